/*
 * test_bad.c — every malformed program in tests/bad/ is rejected with the expected first error.
 *
 * Each tests/bad/NAME.apm starts with a line "# expect: LINE:COL: SUBSTRING"; loading the file
 * with ir_load_file must fail, and the first diagnostic must be at LINE:COL with a message that
 * contains SUBSTRING.  Loading must never crash (this runs under ASan/UBSan in check-asan).
 * The directory is found relative to $ROOT (default ".").
 */
#include "ir.h"
#include "t.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_one(const char *dir, const char *name)
{
    char path[8448], tname[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tname, sizeof tname, "bad_%.*s", (int)(strlen(name) - 4), name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        T_CHECK(tname, 0, "cannot open %s", path);
        return;
    }
    char first[512] = "";
    if (!fgets(first, sizeof first, f)) first[0] = 0;
    fclose(f);
    int line = 0, col = 0, off = 0;
    if (sscanf(first, "# expect: %d:%d: %n", &line, &col, &off) < 2 || off == 0) {
        T_CHECK(tname, 0, "no '# expect: LINE:COL: SUBSTRING' first line");
        return;
    }
    char *sub = first + off;
    size_t n = strlen(sub);
    while (n > 0 && (sub[n - 1] == '\n' || sub[n - 1] == '\r' || sub[n - 1] == ' ')) sub[--n] = 0;

    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_load_file(path, &d);
    if (p) {
        T_CHECK(tname, 0, "loaded without error (want %d:%d: %s)", line, col, sub);
    } else if (d.n == 0) {
        T_CHECK(tname, 0, "failed without a diagnostic");
    } else {
        const diag *g = &d.items[0];
        T_CHECK(tname, g->line == line && g->col == col && strstr(g->msg, sub),
                "got %d:%d: %s; want %d:%d: %s", g->line, g->col, g->msg, line, col, sub);
    }
    ir_program_free(p);
    diag_list_free(&d);
}

int main(void)
{
    const char *root = getenv("ROOT");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/bad", root && *root ? root : ".");
    DIR *dp = opendir(dir);
    if (!dp) {
        T_CHECK("bad_dir", 0, "cannot open %s (set ROOT to the source tree)", dir);
        return t_done();
    }
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".apm") != 0) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, (size_t)cap * sizeof *names);
            if (!names) return 2;
        }
        names[n++] = strdup(de->d_name);
    }
    closedir(dp);
    qsort(names, (size_t)n, sizeof *names, cmp_names);
    T_CHECK("bad_count", n >= 45, "only %d files in %s", n, dir);
    for (int i = 0; i < n; i++) {
        check_one(dir, names[i]);
        free(names[i]);
    }
    free(names);
    return t_done();
}
