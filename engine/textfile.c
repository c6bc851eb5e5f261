/*
 * textfile.c — reading a whole file into memory, with a size limit and a diagnostic that says
 * what went wrong, and writing one whole (textfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Writes all of text to f and closes it: 0, or -1. */
static int put_all(FILE *f, const char *text)
{
    size_t len = strlen(text);
    int rc = fwrite(text, 1, len, f) == len ? 0 : -1;
    if (fclose(f) != 0) rc = -1;
    return rc;
}

int textfile_write(const char *path, const char *suffix, const char *text)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {   /* /dev/null, a pipe: written, not replaced */
        FILE *f = fopen(path, "wb");
        return f ? put_all(f, text) : -1;
    }
    size_t n = strlen(path) + strlen(suffix) + 1;
    char *tmp = malloc(n);
    if (!tmp) return -1;
    snprintf(tmp, n, "%s%s", path, suffix);
    FILE *f = fopen(tmp, "wb");
    int rc = f ? put_all(f, text) : -1;
    if (rc == 0) rc = rename(tmp, path);
    if (rc != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
    }
    free(tmp);
    return rc;
}
