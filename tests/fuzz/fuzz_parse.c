/*
 * fuzz_parse.c — libFuzzer target for the language front end (`make fuzz`).
 *
 * Any input must load or fail with diagnostics, never crash.  When it loads, its canonical text
 * must load again and print identically (print(parse(print(parse(x)))) == print(parse(x))), and
 * a deep copy must print identically; otherwise the target aborts.
 */
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_load_text("fuzz.apm", (const char *)data, size, &d);
    diag_list_free(&d);
    if (!p) return 0;
    char *s1 = ir_print(p);
    diag_list_init(&d);
    ir_program *q = ir_load_text("fuzz2.apm", s1, strlen(s1), &d);
    if (!q) {
        fprintf(stderr, "canonical text does not load:\n%s\n", s1);
        diag_print(&d, stderr);
        abort();
    }
    diag_list_free(&d);
    char *s2 = ir_print(q);
    if (strcmp(s1, s2) != 0) {
        fprintf(stderr, "printing is not idempotent:\n--- first\n%s\n--- second\n%s\n", s1, s2);
        abort();
    }
    ir_program *c = ir_program_clone(p);
    char *s3 = ir_print(c);
    if (strcmp(s1, s3) != 0) {
        fprintf(stderr, "clone prints differently:\n%s\n---\n%s\n", s1, s3);
        abort();
    }
    int64_t *vals = calloc((size_t)p->nparams + 1, sizeof *vals);
    diag_list_init(&d);
    ir_params_eval(p, NULL, 0, 0, vals, &d);
    diag_list_free(&d);
    free(vals);
    free(s1);
    free(s2);
    free(s3);
    ir_program_free(c);
    ir_program_free(q);
    ir_program_free(p);
    return 0;
}
