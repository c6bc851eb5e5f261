/*
 * rt_report.c — the one result line of an exported program, printed by rank 0:
 *     polyapm-result checksum=<16 hex digits> seconds=<main-loop time> ranks=<P>
 * `polyapm run` and the tests parse exactly this line.
 */
#include "rt.h"

#include <stdio.h>

void rt_report(MPI_Comm comm, uint64_t checksum, double seconds)
{
    int size = rt_size(comm);
    if (rt_rank(comm) == 0) {
        printf(RT_RESULT_FORMAT, (unsigned long long)checksum, seconds, size);
        fflush(stdout);
    }
}
