/*
 * stats.h — the little statistics calibration and comparison need: least-squares lines (with an
 * intercept, or through the origin), the thesis's robust fit (§4.4.4: drop the points below a
 * threshold, fit, drop the worst-fitting points, fit again), a polynomial of non-negative
 * coefficients (explore --at's costs), and Kendall's rank correlation τ.
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

enum { STATS_POLY_MAX = 6 };   /* terms of stats_fit_nonneg_poly */

/* y = Σ_k c_k·x^(low+k), k < nterms (at most STATS_POLY_MAX, and at most n), every c_k >= 0, by
 * least squares (y > 0; the largest samples weigh most, as they do in the sum of squares): the
 * exact interpolant when its coefficients are all non-negative, else the best fit over the
 * subsets of terms (a cost of work, messages and overheads grows by each of its terms; a negative
 * one is noise the samples' few sizes cannot tell apart).  0 with c[0 .. nterms), or -1 (a y not
 * above 0, or no subset solvable). */
int stats_fit_nonneg_poly(const double *x, const double *y, int n, int low, int nterms, double *c);

/* Kendall's τ-b of two orderings of the same n items (ties allowed).  0 when n < 2 or either side
 * is constant. */
double stats_kendall_tau(const double *a, const double *b, int n);

#endif
