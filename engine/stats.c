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
