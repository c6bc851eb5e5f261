/*
 * stats.h — the little statistics calibration and comparison need: least-squares lines (with an
 * intercept, or through the origin), the thesis's robust fit (§4.4.4: drop the points below a
 * threshold, fit, drop the worst-fitting points, fit again), and Kendall's rank correlation τ.
 *
 * Pure functions over caller-owned arrays; nothing is allocated that the caller must free.
 */
#ifndef POLYAPM_STATS_H
#define POLYAPM_STATS_H

typedef struct stats_line {
    double slope, intercept;
    double r2;                 /* coefficient of determination of the final fit (1 = perfect) */
    int n;                     /* points used in the final fit */
    int dropped;               /* points dropped (below the threshold, or worst-fitting) */
} stats_line;

/* y = slope·x + intercept by least squares.  0, or -1 when fewer than two distinct x. */
int stats_fit_line(const double *x, const double *y, int n, stats_line *out);
/* y = slope·x (intercept 0).  0, or -1 when every x is 0 or n < 1. */
int stats_fit_origin(const double *x, const double *y, int n, stats_line *out);
/* The thesis's rule: use only points with x >= xmin, fit, drop the `drop_worst` points with the
 * largest absolute residuals (never leaving fewer than two), fit again. */
int stats_fit_robust(const double *x, const double *y, int n, double xmin, int drop_worst,
                     stats_line *out);

/* Kendall's τ-b of two orderings of the same n items (ties allowed).  0 when n < 2 or either side
 * is constant. */
double stats_kendall_tau(const double *a, const double *b, int n);

#endif
