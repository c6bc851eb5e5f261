/*
 * stats.c — least-squares lines, the thesis's robust line fit and Kendall's τ (see stats.h).
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double r_squared(const double *x, const double *y, const unsigned char *use, int n,
                        double slope, double intercept)
{
    double mean = 0;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!use || use[i]) { mean += y[i]; m++; }
    if (m == 0) return 0;
    mean /= m;
    double ss_res = 0, ss_tot = 0;
    for (int i = 0; i < n; i++) {
        if (use && !use[i]) continue;
        double e = y[i] - (slope * x[i] + intercept);
        ss_res += e * e;
        ss_tot += (y[i] - mean) * (y[i] - mean);
    }
    return ss_tot > 0 ? 1 - ss_res / ss_tot : (ss_res == 0 ? 1 : 0);
}

/* The fit over the points with use[i] set (all when use is NULL). */
static int fit_masked(const double *x, const double *y, const unsigned char *use, int n,
                      stats_line *out)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (use && !use[i]) continue;
        sx += x[i];
        sy += y[i];
        m++;
    }
    if (m < 2) return -1;
    double mx = sx / m, my = sy / m;
    for (int i = 0; i < n; i++) {
        if (use && !use[i]) continue;
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (sxx <= 0) return -1;
    out->slope = sxy / sxx;
    out->intercept = my - out->slope * mx;
    out->n = m;
    out->dropped = n - m;
    out->r2 = r_squared(x, y, use, n, out->slope, out->intercept);
    return 0;
}

int stats_fit_line(const double *x, const double *y, int n, stats_line *out)
{
    memset(out, 0, sizeof *out);
    return fit_masked(x, y, NULL, n, out);
}

int stats_fit_origin(const double *x, const double *y, int n, stats_line *out)
{
    memset(out, 0, sizeof *out);
    double sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    if (n < 1 || sxx <= 0) return -1;
    out->slope = sxy / sxx;
    out->n = n;
    /* R² against the mean (as for a line with an intercept); 1 for a single point. */
    out->r2 = n == 1 ? 1 : r_squared(x, y, NULL, n, out->slope, 0);
    return 0;
}

int stats_fit_robust(const double *x, const double *y, int n, double xmin, int drop_worst,
                     stats_line *out)
{
    memset(out, 0, sizeof *out);
    if (n <= 0) return -1;
    unsigned char *use = malloc((size_t)n);
    if (!use) return -1;
    int m = 0;
    for (int i = 0; i < n; i++) m += (use[i] = x[i] >= xmin);
    int rc = fit_masked(x, y, use, n, out);
    /* Drop the worst-fitting points one at a time against the first fit's line (the thesis
     * removed the 10 points furthest from its line), keeping at least two. */
    for (int k = 0; rc == 0 && k < drop_worst && m > 2; k++) {
        int worst = -1;
        double we = -1;
        for (int i = 0; i < n; i++) {
            if (!use[i]) continue;
            double e = fabs(y[i] - (out->slope * x[i] + out->intercept));
            if (e > we) { we = e; worst = i; }
        }
        use[worst] = 0;
        m--;
    }
    if (rc == 0) rc = fit_masked(x, y, use, n, out);
    free(use);
    return rc;
}

static int sign(double v) { return (v > 0) - (v < 0); }

/* Solves the m x m system a·c = b in place by Gaussian elimination with partial pivoting; 0, or
 * -1 when it is singular. */
static int solve_small(double a[STATS_POLY_MAX][STATS_POLY_MAX], double *b, int m, double *c)
{
    for (int col = 0; col < m; col++) {
        int piv = col;
        for (int r = col + 1; r < m; r++)
            if (fabs(a[r][col]) > fabs(a[piv][col])) piv = r;
        if (!(fabs(a[piv][col]) > 1e-300)) return -1;
        for (int k = 0; k < m; k++) {
            double t = a[col][k];
            a[col][k] = a[piv][k], a[piv][k] = t;
        }
        double t = b[col];
        b[col] = b[piv], b[piv] = t;
        for (int r = 0; r < m; r++) {
            if (r == col) continue;
            double f = a[r][col] / a[col][col];
            for (int k = col; k < m; k++) a[r][k] -= f * a[col][k];
            b[r] -= f * b[col];
        }
    }
    for (int r = 0; r < m; r++) c[r] = b[r] / a[r][r];
    return 0;
}

/* The least-squares fit over the terms in `mask` (bit k: x^(low+k)), errors over ymax: 0 with
 * the coefficients in c (0 for terms outside the mask) and the sum of squared errors. */
static int fit_terms(const double *x, const double *y, double ymax, int n, int low, int nterms, unsigned mask,
                     double *c, double *err)
{
    int idx[STATS_POLY_MAX], m = 0;
    for (int k = 0; k < nterms; k++)
        if (mask & (1u << k)) idx[m++] = k;
    double a[STATS_POLY_MAX][STATS_POLY_MAX] = {{0}}, b[STATS_POLY_MAX] = {0}, s[STATS_POLY_MAX];
    for (int i = 0; i < n; i++) {
        double w = 1 / (ymax * ymax), p[STATS_POLY_MAX];
        for (int u = 0; u < m; u++) p[u] = pow(x[i], low + idx[u]);
        for (int u = 0; u < m; u++) {
            b[u] += w * p[u] * y[i];
            for (int v = 0; v < m; v++) a[u][v] += w * p[u] * p[v];
        }
    }
    if (solve_small(a, b, m, s) != 0) return -1;
    for (int k = 0; k < nterms; k++) c[k] = 0;
    for (int u = 0; u < m; u++) c[idx[u]] = s[u];
    *err = 0;
    for (int i = 0; i < n; i++) {
        double f = 0;
        for (int k = 0; k < nterms; k++) f += c[k] * pow(x[i], low + k);
        *err += (f - y[i]) * (f - y[i]) / (ymax * ymax);
    }
    return 0;
}

int stats_fit_nonneg_poly(const double *x, const double *y, int n, int low, int nterms, double *c)
{
    if (nterms < 1 || nterms > STATS_POLY_MAX || nterms > n) return -1;
    double xm = 0, ymax = 0, *xs = malloc((size_t)n * sizeof *xs);
    if (!xs) return -1;
    for (int i = 0; i < n; i++) {
        if (!(y[i] > 0)) { free(xs); return -1; }
        if (fabs(x[i]) > xm) xm = fabs(x[i]);
        if (y[i] > ymax) ymax = y[i];
    }
    if (!(xm > 0)) xm = 1;
    for (int i = 0; i < n; i++) xs[i] = x[i] / xm;   /* powers of at most 1: a better conditioned system */
    double best = -1, t[STATS_POLY_MAX], err;
    for (unsigned mask = 1; mask < (1u << nterms); mask++) {
        if (fit_terms(xs, y, ymax, n, low, nterms, mask, t, &err) != 0) continue;
        int neg = 0;
        for (int k = 0; k < nterms; k++) neg |= t[k] < 0;
        if (neg || (best >= 0 && err >= best)) continue;
        best = err;
        memcpy(c, t, (size_t)nterms * sizeof *c);
    }
    free(xs);
    for (int k = 0; best >= 0 && k < nterms; k++) c[k] /= pow(xm, low + k);
    return best >= 0 ? 0 : -1;
}

double stats_kendall_tau(const double *a, const double *b, int n)
{
    double concordant = 0, ties_a = 0, ties_b = 0, pairs = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int sa = sign(a[i] - a[j]), sb = sign(b[i] - b[j]);
            pairs++;
            if (sa == 0) ties_a++;
            if (sb == 0) ties_b++;
            concordant += sa * sb;
        }
    double den = sqrt((pairs - ties_a) * (pairs - ties_b));
    return den > 0 ? concordant / den : 0;
}
