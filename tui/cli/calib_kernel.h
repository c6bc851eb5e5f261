/*
 * calib_kernel.h — timing the calibration kernel exported as C (calib_kernel.c), for `polyapm
 * calibrate`: its measured seconds over its simulated ticks are the profile's tick.
 */
#ifndef POLYAPM_CALIB_KERNEL_H
#define POLYAPM_CALIB_KERNEL_H

/* Simulates the kernel for its ticks, exports it as sequential C into a fresh directory under
 * `dir` (removed afterwards), builds it and runs it (2 runs when `quick`, else 5), keeping the
 * fastest main loop.  0 with *seconds and *ticks, or -1 after printing why (cli_fail). */
int calib_kernel_measure(const char *dir, int quick, double *seconds, double *ticks);

#endif
