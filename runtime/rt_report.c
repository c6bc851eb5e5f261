/*
 * rt_report.c — the one result line of an exported program, printed by rank 0:
 *     polyapm-result checksum=<16 hex digits> seconds=<main-loop time> ranks=<P>
 * `polyapm run` and the tests parse exactly this line.  Before it, the elements each rank
 * allocated (what the dist declarations and the pieces keep):
 *     polyapm-memory elements=[<rank 0>,<rank 1>,..] total=<sum>
 */
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>

void rt_report(MPI_Comm comm, uint64_t checksum, double seconds)
{
    int size = rt_size(comm);
    if (rt_rank(comm) == 0) {
        printf(RT_RESULT_FORMAT, (unsigned long long)checksum, seconds, size);
        fflush(stdout);
    }
}

void rt_report_memory(MPI_Comm comm, int64_t elements)
{
    int size = rt_size(comm), me = rt_rank(comm);
    int64_t *all = me == 0 ? rt_malloc((size_t)size * sizeof *all) : NULL;
    RT_CHECK(MPI_Gather(&elements, 1, MPI_INT64_T, all, 1, MPI_INT64_T, 0, comm));
    if (me == 0) {
        long long total = 0;
        printf("polyapm-memory elements=[");
        for (int k = 0; k < size; k++) {
            printf("%s%lld", k ? "," : "", (long long)all[k]);
            total += all[k];
        }
        printf("] total=%lld\n", total);
    }
    free(all);
}
