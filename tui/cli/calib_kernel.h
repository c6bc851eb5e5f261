/*
 * calib_kernel.h — timing the calibration kernel exported as C (calib_kernel.c), for `polyapm
 * calibrate`: its measured seconds over its simulated ticks are the profile's tick.
 */
#ifndef POLYAPM_CALIB_KERNEL_H
#define POLYAPM_CALIB_KERNEL_H

#include "calib.h"

/* For each part of the kernel (engine/calib.h, calib_part_names: a work class's, SIM_WORK_*, the
 * stencil in the cache, the row update, over part of rows): simulates it for its ticks, streams
 * and restarts, exports it as sequential C into a fresh
 * directory under `dir` (removed afterwards), builds it and runs `copies` of it at once (3
 * rounds when `quick`, else 9), keeping the fastest round's slowest main loop; *cache_bytes is
 * the cache one processor has (the
 * last-level cache over the processors that share it, sysfs; 0 when unknown).  0 with
 * seconds[k] and counts[k] (its ticks, streams and restarts) of each part k (0 for a class
 * without a part), or -1 after printing why (cli_fail). */
int calib_kernel_measure(const char *dir, int quick, int copies, double seconds[CALIB_PARTS],
                         double counts[CALIB_PARTS][3], double *cache_bytes);

#endif
