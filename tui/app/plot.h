/*
 * plot.h — plot files through gnuplot (Debian gnuplot-nox): the curves of `sweep` and the
 * predicted-against-measured chart of `compare`.  The format follows the file's extension
 * (.svg or .png).  Data go inline (gnuplot datablocks); nothing is left behind but the file.
 */
#ifndef POLYAPM_PLOT_H
#define POLYAPM_PLOT_H

#include "diag.h"

typedef struct plot_series {
    const char *title;
    const double *x, *y;
    int n;
    const char *style;        /* gnuplot "with ..." text, e.g. "linespoints", "points pt 7" */
    const char *const *labels;/* optional: a label per point (drawn next to it), or NULL */
} plot_series;

typedef struct plot_panel {
    const char *title, *xlabel, *ylabel;
    int logx, logy;
    int diagonal;             /* draw y = x (predicted against measured) */
    const plot_series *series;
    int nseries;
} plot_panel;

/* 1 if `path` ends in .svg or .png. */
int plot_format_ok(const char *path);
/* Draws the panels side by side into `path`.  0, or -1 with a message (gnuplot missing, failed). */
int plot_write(const char *path, const plot_panel *panels, int npanels, diag_list *d);

#endif
