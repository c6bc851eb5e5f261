/*
 * objcache.c — the runtime's compiled objects, kept between runs; and polyapm's cache directory.
 *
 * Every program `polyapm run` exports carries the same runtime (rt_*.c), and compiling it is
 * nine tenths of a build.  Before make, cli_objcache_fill copies in the objects an earlier build
 * made of the very same runtime — the same sources and headers, compiler, flags and processor
 * (-march=native) — newer than their sources, so that make compiles the program alone; after a
 * successful build cli_objcache_keep stores the directory's objects.  The cache is
 * CACHE/objects/KEY/, KEY a hash of all that; an entry is complete or absent (filled in a
 * temporary directory, then renamed into place), so runs at the same moment may share it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "store.h"
#include "mem.h"
#include "strbuf.h"
#include "xf.h"

char *cli_cache_dir(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char base[4096];
    if (xdg && *xdg) snprintf(base, sizeof base, "%s", xdg);
    else if (home && *home) snprintf(base, sizeof base, "%s/.cache", home);
    else snprintf(base, sizeof base, "/tmp");
    mkdir(base, 0777);
    char *dir = xasprintf("%s/polyapm", base);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) { free(dir); return NULL; }
    return dir;
}

/* A runtime file of an exported directory: rt_*.c and the headers. */
static int oc_runtime_file(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    if (n > 2 && strcmp(e->d_name + n - 2, ".h") == 0) return 1;
    return strncmp(e->d_name, "rt_", 3) == 0 && n > 2 && strcmp(e->d_name + n - 2, ".c") == 0;
}

/* Appends the whole file at path to b; 0, or -1 when it cannot be read. */
static int oc_append_file(strbuf *b, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    char chunk[8192];
    size_t r;
    while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) strbuf_putn(b, chunk, r);
    fclose(f);
    return 0;
}

/* Appends the lines of /proc/cpuinfo's first processor that -march=native reads. */
static void oc_append_cpu(strbuf *b)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[8192];
    while (fgets(line, sizeof line, f) && line[0] != '\n')
        if (!strncmp(line, "vendor_id", 9) || !strncmp(line, "model", 5) || !strncmp(line, "cpu family", 10) ||
            !strncmp(line, "flags", 5))
            strbuf_printf(b, "%s", line);
    fclose(f);
}

/* Appends what `cc --version` prints. */
static void oc_append_compiler(strbuf *b, const char *cc)
{
    char q[1100], cmd[1200];
    cli_shell_quote(q, sizeof q, cc);
    snprintf(cmd, sizeof cmd, "%s --version 2>&1", q);
    FILE *f = popen(cmd, "r");
    if (!f) return;
    char chunk[4096];
    size_t r;
    while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) strbuf_putn(b, chunk, r);
    pclose(f);
}

/* The key of dir's runtime built with cc and extra_cflags: 0, or -1 when a file cannot be read. */
static int oc_key(const char *dir, const char *cc, const char *extra_cflags, vcs_hex key)
{
    struct dirent **names;
    int n = scandir(dir, &names, oc_runtime_file, alphasort);
    if (n < 0) return -1;
    strbuf b = {0};
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char *path = xasprintf("%s/%s", dir, names[i]->d_name);
        strbuf_printf(&b, "\n%s\n", names[i]->d_name);
        if (oc_append_file(&b, path) != 0) rc = -1;
        free(path);
        free(names[i]);
    }
    free(names);
    const char *env[] = {"CC", "OMPI_CC", "PORTABLE"};
    for (size_t i = 0; i < sizeof env / sizeof *env; i++)
        strbuf_printf(&b, "\n%s=%s", env[i], getenv(env[i]) ? getenv(env[i]) : "");
    strbuf_printf(&b, "\nCFLAGS=%s\nEXTRA_CFLAGS=%s\nCOMPILER=%s\n", XF_EXPORT_CFLAGS, extra_cflags, cc);
    oc_append_compiler(&b, cc);
    oc_append_cpu(&b);
    vcs_hash_text(b.s ? b.s : "", b.n, key);
    strbuf_free(&b);
    return rc;
}

/* Copies from to to (created, mode 0644): 0, or -1. */
static int oc_copy(const char *from, const char *to)
{
    int in = open(from, O_RDONLY), out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int rc = in < 0 || out < 0 ? -1 : 0;
    char chunk[65536];
    ssize_t r;
    while (rc == 0 && (r = read(in, chunk, sizeof chunk)) != 0)
        if (r < 0 || write(out, chunk, (size_t)r) != r) rc = -1;
    if (in >= 0) close(in);
    if (out >= 0 && close(out) != 0) rc = -1;
    if (rc != 0) unlink(to);
    return rc;
}

/* dir/NAME.o for NAME.c (malloc'd). */
static char *oc_object(const char *dir, const char *source)
{
    return xasprintf("%s/%.*s.o", dir, (int)strlen(source) - 2, source);
}

/* Copies NAME.o of each rt_NAME.c in sources from one directory to another: how many were
 * copied; *total how many there are. */
static int oc_copy_objects(const char *sources, const char *from, const char *to, int *total)
{
    struct dirent **names;
    int n = scandir(sources, &names, oc_runtime_file, alphasort), copied = 0;
    *total = 0;
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (name[strlen(name) - 1] == 'c') {
            char *src = oc_object(from, name), *dst = oc_object(to, name);
            ++*total;
            if (oc_copy(src, dst) == 0) copied++;
            free(src);
            free(dst);
        }
        free(names[i]);
    }
    if (n >= 0) free(names);
    return copied;
}

int cli_objcache_fill(const char *dir, const char *cc, const char *extra_cflags, char *entry, size_t len)
{
    entry[0] = '\0';
    char *cache = cli_cache_dir();
    vcs_hex key;
    if (!cache || oc_key(dir, cc, extra_cflags, key) != 0) { free(cache); return 0; }
    snprintf(entry, len, "%s/objects/%.20s", cache, key);
    free(cache);
    struct stat st;
    int total;
    return stat(entry, &st) == 0 ? oc_copy_objects(dir, entry, dir, &total) : 0;
}

void cli_objcache_keep(const char *dir, const char *entry)
{
    struct stat st;
    if (!entry[0] || stat(entry, &st) == 0) return;
    char *parent = xasprintf("%.*s", (int)(strrchr(entry, '/') - entry), entry);
    char *tmp = xasprintf("%s/tmp-XXXXXX", parent);
    mkdir(parent, 0777);
    if (mkdtemp(tmp)) {
        int total, copied = oc_copy_objects(dir, dir, tmp, &total);
        if (copied == 0 || copied != total || rename(tmp, entry) != 0) cli_remove_tree(tmp);
    }
    free(tmp);
    free(parent);
}
