/* dump.h — the test kernels' array dumps, in PolyBench's format with exact values ("%a"), on
 * stderr: tests/polybench/dumpsum.c hashes them as `polyapm sim` hashes the outputs. */
#include <stdio.h>
#define DUMP_BEGIN(name) fprintf(stderr, "begin dump: %s\n", name)
#define DUMP_END(name) fprintf(stderr, "\nend dump: %s\n", name)
#define DUMP_VALUE(x) fprintf(stderr, "%a ", (double)(x))
