/*
 * load.c — loading a program (see ir.h): parse, then check, from a text in memory or from a
 * file (a text file of bounded size, without NUL bytes).
 */
#include "ir.h"
#include "textfile.h"

#include <stdlib.h>
#include <string.h>

enum { IR_MAX_FILE = 16 * 1024 * 1024 };

ir_program *ir_load_text(const char *file, const char *text, size_t len, diag_list *d)
{
    ir_program *p = ir_parse(file, text, len, d);
    if (!p) return NULL;
    if (ir_check(p, d) > 0) {
        ir_program_free(p);
        return NULL;
    }
    return p;
}

ir_program *ir_load_file(const char *path, diag_list *d)
{
    size_t len;
    char *buf = textfile_read(path, "a program file", IR_MAX_FILE, &len, d);
    if (!buf) return NULL;
    const char *nul = memchr(buf, 0, len);
    if (nul) {
        int line = 1, col = 1;
        for (const char *c = buf; c < nul; c++) {
            if (*c == '\n') { line++; col = 1; }
            else col++;
        }
        free(buf);
        diag_add(d, path, line, col, "file contains a NUL byte: not a text file");
        return NULL;
    }
    ir_program *p = ir_load_text(path, buf, len, d);
    free(buf);
    return p;
}
