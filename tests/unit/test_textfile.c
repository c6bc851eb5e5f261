/*
 * test_textfile.c — textfile_read, the one whole-file reader: contents and length exact at the
 * sizes around its buffer's growth (0, 1, 4095, 4096, 4097, 100000 bytes), the limit (a file of
 * exactly `max` bytes reads, one more byte is refused), and the refusals: a missing file, a
 * directory, each as one diagnostic on the path that says what the file was to be.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "t.h"
#include "textfile.h"

static char path[64];

/* Writes n bytes of a pattern (a NUL among them past the first 100) to `path`. */
static void write_file(size_t n)
{
    FILE *f = fopen(path, "wb");
    for (size_t i = 0; i < n; i++) fputc(i == 150 ? 0 : (int)('a' + i % 23), f);
    fclose(f);
}

static void check_size(size_t n)
{
    char name[96];
    write_file(n);
    diag_list d;
    diag_list_init(&d);
    size_t len = 12345;
    char *buf = textfile_read(path, "a test file", 1 << 20, &len, &d);
    snprintf(name, sizeof name, "%zu bytes: read, no diagnostic", n);
    T_CHECK(name, buf && d.n == 0, "%s", d.n ? d.items[0].msg : "NULL");
    snprintf(name, sizeof name, "%zu bytes: the length", n);
    T_EQ_INT(name, len, buf ? n : 0);
    int same = buf != NULL && buf[n] == '\0';
    for (size_t i = 0; same && i < n; i++) same = buf[i] == (i == 150 ? 0 : (char)('a' + i % 23));
    snprintf(name, sizeof name, "%zu bytes: the contents, NUL-terminated", n);
    T_CHECK(name, same, "differ");
    free(buf);
    diag_list_free(&d);
}

static void check_refused(const char *p, size_t max, const char *want, const char *name)
{
    diag_list d;
    diag_list_init(&d);
    size_t len = 7;
    char *buf = textfile_read(p, "a test file", max, &len, &d);
    T_CHECK(name, !buf && d.n == 1 && strstr(d.items[0].msg, want) && d.items[0].file &&
                      strcmp(d.items[0].file, p) == 0 && len == 7,
            "%s", buf ? "read" : d.n ? d.items[0].msg : "no diagnostic");
    free(buf);
    diag_list_free(&d);
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/test_textfile.%d", (int)getpid());
    static const size_t sizes[] = {0, 1, 4095, 4096, 4097, 8191, 100000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) check_size(sizes[i]);

    write_file(5000);
    diag_list d;
    diag_list_init(&d);
    char *buf = textfile_read(path, "a test file", 5000, NULL, &d);
    T_CHECK("exactly max bytes: read (len may be NULL)", buf && d.n == 0, "%s", d.n ? d.items[0].msg : "NULL");
    free(buf);
    diag_list_free(&d);
    check_refused(path, 4999, "larger than 4999 bytes: not a test file", "one byte over max: refused");
    write_file(40000);
    check_refused(path, 4096, "larger than 4096 bytes", "far over max: refused");
    remove(path);
    check_refused(path, 4096, "cannot open a test file: No such file", "a missing file: refused");
    check_refused("/tmp", 4096, "is a directory, not a test file", "a directory: refused");
    return t_done();
}
