/*
 * plot.c — writing plot files with gnuplot (see plot.h): one script on gnuplot's standard input,
 * the data as datablocks, multiplot for several panels.
 */
#include "plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ext(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? dot + 1 : "";
}

int plot_format_ok(const char *path)
{
    return !strcmp(ext(path), "svg") || !strcmp(ext(path), "png");
}

static void quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int plot_write(const char *path, const plot_panel *panels, int npanels, diag_list *d)
{
    if (!plot_format_ok(path)) {
        diag_add(d, NULL, 0, 0, "%s: a plot file ends in .svg or .png", path);
        return -1;
    }
    char *script = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&script, &len);
    if (!f) { diag_add(d, NULL, 0, 0, "out of memory"); return -1; }
    int w = 640 * npanels, h = 480;
    if (!strcmp(ext(path), "svg")) fprintf(f, "set terminal svg size %d,%d dynamic\n", w, h);
    else fprintf(f, "set terminal png size %d,%d\n", w, h);
    fprintf(f, "set output ");
    quoted(f, path);
    fprintf(f, "\nset grid\nset key top left\nset offsets graph 0.05, graph 0.05, 0, 0\n");
    for (int p = 0; p < npanels; p++)
        for (int s = 0; s < panels[p].nseries; s++) {
            const plot_series *se = &panels[p].series[s];
            fprintf(f, "$D%d_%d << EOD\n", p, s);
            for (int i = 0; i < se->n; i++) {
                fprintf(f, "%.10g %.10g", se->x[i], se->y[i]);
                if (se->labels) { fputc(' ', f); quoted(f, se->labels[i]); }
                fputc('\n', f);
            }
            fprintf(f, "EOD\n");
        }
    if (npanels > 1) fprintf(f, "set multiplot layout 1,%d\n", npanels);
    for (int p = 0; p < npanels; p++) {
        const plot_panel *pa = &panels[p];
        fprintf(f, "set title ");
        quoted(f, pa->title);
        fprintf(f, "\nset xlabel ");
        quoted(f, pa->xlabel);
        fprintf(f, "\nset ylabel ");
        quoted(f, pa->ylabel);
        fprintf(f, "\n%s logscale x\n%s logscale y\n", pa->logx ? "set" : "unset", pa->logy ? "set" : "unset");
        fprintf(f, "plot ");
        int first = 1;
        for (int s = 0; s < pa->nseries; s++) {
            const plot_series *se = &pa->series[s];
            fprintf(f, "%s$D%d_%d using 1:2 with %s title ", first ? "" : ", ", p, s,
                    se->style ? se->style : "linespoints");
            quoted(f, se->title);
            if (se->labels)
                fprintf(f, ", $D%d_%d using 1:2:3 with labels offset 1,0.5 left notitle", p, s);
            first = 0;
        }
        if (pa->diagonal) fprintf(f, "%sx with lines dt 2 title \"predicted = measured\"", first ? "" : ", ");
        fprintf(f, "\n");
    }
    if (npanels > 1) fprintf(f, "unset multiplot\n");
    fclose(f);
    FILE *g = popen("gnuplot", "w");
    int rc = -1;
    if (!g) diag_add(d, NULL, 0, 0, "cannot run gnuplot: %s", strerror(errno));
    else {
        fwrite(script, 1, len, g);
        int st = pclose(g);
        if (st == 0) rc = 0;
        else diag_add(d, NULL, 0, 0, "gnuplot failed (exit status %d; is gnuplot-nox installed?)", st);
    }
    free(script);
    return rc;
}
