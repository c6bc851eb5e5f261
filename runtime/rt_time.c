/*
 * rt_time.c — timing of the main loop: every rank starts after a barrier, and the reported time
 * is the slowest rank's (MPI_Wtime differences, maximum over the communicator).
 */
#include "rt.h"

double rt_time_start(MPI_Comm comm)
{
    RT_CHECK(MPI_Barrier(comm));
    return MPI_Wtime();
}

double rt_time_stop(MPI_Comm comm, double t0)
{
    double mine = MPI_Wtime() - t0, all = 0.0;
    RT_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, comm));
    return all;
}
