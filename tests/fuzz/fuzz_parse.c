/*
 * fuzz_parse.c — libFuzzer target for the language front end (`make fuzz`).
 *
 * Any input must parse or fail with diagnostics, never crash.  Whenever it parses (checked or
 * not), its canonical text must parse again and print identically
 * (print(parse(print(parse(x)))) == print(parse(x))), and a deep copy must print identically;
 * when it also checks, the canonical text must check too.  Otherwise the target aborts.
 */
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void fail(const char *what, const char *a, const char *b, const diag_list *d)
{
    fprintf(stderr, "%s\n--- first\n%s\n--- second\n%s\n", what, a, b ? b : "");
    if (d) diag_print(d, stderr);
    abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_parse("fuzz.apm", (const char *)data, size, &d);
    diag_list_free(&d);
    if (!p) return 0;
    char *s1 = ir_print(p);
    diag_list_init(&d);
    ir_program *q = ir_parse("fuzz2.apm", s1, strlen(s1), &d);
    if (!q) fail("canonical text does not parse", s1, NULL, &d);
    diag_list_free(&d);
    char *s2 = ir_print(q);
    if (strcmp(s1, s2) != 0) fail("printing is not idempotent", s1, s2, NULL);
    ir_program *c = ir_program_clone(p);
    char *s3 = ir_print(c);
    if (strcmp(s1, s3) != 0) fail("a clone prints differently", s1, s3, NULL);

    diag_list_init(&d);
    int errs = ir_check(p, &d);
    diag_list_free(&d);
    diag_list_init(&d);
    int errs2 = ir_check(q, &d);
    if ((errs == 0) != (errs2 == 0)) fail("canonical text checks differently", s1, s2, &d);
    diag_list_free(&d);
    if (errs == 0) {
        int64_t *vals = calloc((size_t)p->nparams + 1, sizeof *vals);
        diag_list_init(&d);
        ir_params_eval(p, NULL, 0, 0, vals, &d);
        diag_list_free(&d);
        free(vals);
    }
    free(s1);
    free(s2);
    free(s3);
    ir_program_free(c);
    ir_program_free(q);
    ir_program_free(p);
    return 0;
}
