/*
 * micro.h — the calibration benchmark's microbenchmarks of the processor and its memory
 * (micro.c; bench.c runs them before its message measurements).
 */
#ifndef POLYAPM_CALIBRATE_MICRO_H
#define POLYAPM_CALIBRATE_MICRO_H

#include <mpi.h>

/* Every rank of `world` (as many at once as the host has processors) runs the microbenchmarks;
 * rank 0 prints their lines (micro.c).  `quick`: fewer repetitions and smaller sets. */
void micro_run(MPI_Comm world, int quick);

#endif
