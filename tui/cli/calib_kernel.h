/*
 * calib_kernel.h — timing the calibration kernel exported as C (calib_kernel.c), for `polyapm
 * calibrate`: its measured seconds over its simulated ticks are the profile's tick.
 */
#ifndef POLYAPM_CALIB_KERNEL_H
#define POLYAPM_CALIB_KERNEL_H

#include "sim.h"

/* For each part of the kernel (a work class, SIM_WORK_*: the unit-stride stencil, the stride-n
 * column sums): simulates it for its ticks, exports it as sequential C into a fresh directory
 * under `dir` (removed afterwards), builds it and runs it (2 runs when `quick`, else 5), keeping
 * the fastest main loop.  0 with seconds[k] and ticks[k] of each class k (0 for a class without
 * a part), or -1 after printing why (cli_fail). */
int calib_kernel_measure(const char *dir, int quick, double seconds[SIM_WORK_CLASSES],
                         double ticks[SIM_WORK_CLASSES]);

#endif
