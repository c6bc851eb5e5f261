/*
 * dumpsum.c — the checksum of a PolyBench array dump (a kernel built with -DPOLYBENCH_DUMP_ARRAYS,
 * its stderr on our stdin): every value between "begin dump: NAME" and "end dump: NAME", hashed
 * by runtime/rt_checksum.c as `polyapm sim` hashes the outputs.  Usage: dumpsum NAME... — the
 * arrays the dump must hold, in order (the .apm's outputs); a dump of other arrays is an error.
 * Some kernels print their first value right after the name ("begin dump: x0x1p+0"): what follows
 * the expected name is that value.  The values must be exact: doubles printed with "%a" (hex
 * floats), ints with "%d".  Prints "checksum: %016llx" and "values: N"; exits 1 on an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_checksum.h"

static int hash_value(rt_checksum *sum, const char *tok)
{
    char *endp;
    double v = strtod(tok, &endp);
    if (*tok == '\0' || *endp != '\0') {
        fprintf(stderr, "dumpsum: not a number in a dump: '%s'\n", tok);
        return 0;
    }
    rt_checksum_double(sum, v);
    return 1;
}

int main(int argc, char **argv)
{
    rt_checksum sum;
    rt_checksum_init(&sum);
    char tok[256], prev[256] = "";
    int inside = 0, expect_name = 0, narrays = 0;
    long count = 0;
    while (scanf("%255s", tok) == 1) {
        if (expect_name) {                       /* the NAME after "begin dump:" / "end dump:" */
            expect_name = 0;
            if (!inside) continue;
            size_t len = strlen(argv[narrays]);
            if (strncmp(tok, argv[narrays], len) != 0) {
                fprintf(stderr, "dumpsum: dump of '%s', expected '%s'\n", tok, argv[narrays]);
                return 1;
            }
            if (tok[len] != '\0' && !hash_value(&sum, tok + len)) return 1;
            count += tok[len] != '\0';
        } else if (strcmp(tok, "dump:") == 0 && (!strcmp(prev, "begin") || !strcmp(prev, "end"))) {
            inside = strcmp(prev, "begin") == 0;
            expect_name = 1;
            if (inside && ++narrays >= argc) {
                fprintf(stderr, "dumpsum: more arrays dumped than the %d named\n", argc - 1);
                return 1;
            }
        } else if (inside && strcmp(tok, "end") != 0) {
            if (!hash_value(&sum, tok)) return 1;
            count++;
        }
        snprintf(prev, sizeof prev, "%s", tok);
    }
    if (narrays != argc - 1) {
        fprintf(stderr, "dumpsum: %d arrays dumped, %d named\n", narrays, argc - 1);
        return 1;
    }
    printf("checksum: %016llx\nvalues: %ld\n", (unsigned long long)rt_checksum_value(&sum), count);
    return 0;
}
