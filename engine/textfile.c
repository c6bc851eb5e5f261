/*
 * textfile.c — reading a whole file into memory, with a size limit and a diagnostic that says
 * what went wrong (textfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "textfile.h"

char *textfile_read(const char *path, const char *what, size_t max, size_t *len, diag_list *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_add(d, path, 0, 0, "cannot open %s: %s", what, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        diag_add(d, path, 0, 0, "is a directory, not %s", what);
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    int err = 0;
    while (buf) {
        if (n + 1 == cap) {   /* full: one byte kept for the NUL */
            if (n > max) break;
            char *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0) { err = ferror(f) ? errno : 0; break; }
    }
    int bad = buf && ferror(f);
    fclose(f);
    if (!buf) diag_add(d, path, 0, 0, "out of memory");
    else if (bad) diag_add(d, path, 0, 0, "read error: %s", strerror(err ? err : EIO));
    else if (n > max && max % (1 << 20) == 0 && max > 0)
        diag_add(d, path, 0, 0, "larger than %zu MiB: not %s", max >> 20, what);
    else if (n > max) diag_add(d, path, 0, 0, "larger than %zu bytes: not %s", max, what);
    else {
        buf[n] = '\0';
        if (len) *len = n;
        return buf;
    }
    free(buf);
    return NULL;
}
