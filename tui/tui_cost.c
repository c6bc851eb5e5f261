/*
 * tui_cost.c — the cost pane: the selected node's stored simulation under the current model,
 * machine profile and parameters: total (ticks and predicted seconds), speedup over the root,
 * verified or violations, at syndm the local memories against full replication, per-processor
 * bars (# work, = communication and barrier) and the per-step cost as an ASCII sparkline.
 */
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

void tui_cost_free(tui *t)
{
    free(t->work);
    free(t->comm);
    free(t->steps);
    free(t->mem);
    t->work = t->comm = t->steps = t->mem = NULL;
    t->nwork = t->ncomm = t->nsteps = t->nmem = 0;
}

static void load(tui *t, int64_t id, int gi)
{
    tui_cost_free(t);
    t->cost_id = id;
    t->cost_params[0] = '\0';
    t->meas[0] = '\0';
    diag_list d;
    diag_list_init(&d);
    store_measurement *ms = NULL;
    int nm = 0;
    if (store_measurement_list(t->s, id, &ms, &nm, &d) == 0 && nm > 0)   /* the newest: last */
        snprintf(t->meas, sizeof t->meas, "measured %.3g s (%s%d)", ms[nm - 1].seconds,
                 strcmp(ms[nm - 1].runner, "smpirun") ? "np " : "smpi np ", ms[nm - 1].ranks);
    store_measurements_free(ms, nm);
    const tui_info *in = &t->info[gi];
    if (!in->has) { diag_list_free(&d); return; }
    store_sim *ss = NULL;
    int ns = 0;
    if (store_sim_list(t->s, id, &ss, &ns, &d) == 0) {
        for (int k = 0; k < ns; k++) {
            const store_sim *m = &ss[k];
            if (strcmp(m->model, tui_model(t)) || strcmp(m->machine, t->profile.name) ||
                strcmp(m->params ? m->params : "", in->params ? in->params : ""))
                continue;
            t->nwork = ops_json_numbers(m->per_proc, "work", &t->work);
            t->ncomm = ops_json_numbers(m->per_proc, "comm", &t->comm);
            t->nsteps = ops_json_numbers(m->trace, "step_cost", &t->steps);
            t->nmem = ops_json_numbers(m->report_json, "local_memory", &t->mem);
            const char *full = m->report_json ? strstr(m->report_json, "\"full_memory\":") : NULL;
            t->mem_full = full ? strtod(full + strlen("\"full_memory\":"), NULL) : 0;
            snprintf(t->cost_params, sizeof t->cost_params, "%s", m->params ? m->params : "");
            break;
        }
        for (int k = 0; k < ns; k++) store_sim_clear(&ss[k]);
        free(ss);
    }
    diag_list_free(&d);
}

static void sparkline(const double *v, int n, char *out, int w)
{
    static const char lv[] = " ._-=+*#%@";
    double mx = 0;
    for (int i = 0; i < n; i++) if (v[i] > mx) mx = v[i];
    int cols = n < w ? n : w;
    for (int c = 0; c < cols; c++) {
        int a = (int)((long long)c * n / cols), b = (int)((long long)(c + 1) * n / cols);
        if (b <= a) b = a + 1;
        double m = 0;
        for (int i = a; i < b && i < n; i++) if (v[i] > m) m = v[i];
        int k = mx > 0 ? (int)(m / mx * 9 + 0.5) : 0;
        if (k == 0 && m > 0) k = 1;
        out[c] = lv[k];
    }
    out[cols] = '\0';
}

void tui_cost_draw(tui *t, int y, int x, int h, int w)
{
    for (int i = x; i < x + w; i++) mvaddch(y, i, '-');
    int gi = tui_sel_gi(t);
    if (gi < 0) return;
    int64_t id = t->g.nodes[gi].id;
    if (id != t->cost_id) load(t, id, gi);
    const tui_info *in = &t->info[gi];
    char line[2048];
    snprintf(line, sizeof line, " cost  %s / %s ", tui_model(t), t->profile.name);
    attron(A_BOLD);
    mvaddnstr(y, x + 1, line, w - 1);
    attroff(A_BOLD);
    if (!in->has) {
        mvaddnstr(y + 1, x + 1, "not simulated under this model, machine and parameters", w - 1);
        mvaddnstr(y + 2, x + 1, "s simulates (with other parameters), m/M switch model/machine", w - 1);
        if (t->meas[0]) mvaddnstr(y + 3, x + 1, t->meas, w - 1);
        return;
    }
    snprintf(line, sizeof line, "total %.1f ticks (%.4g s)", in->cost, in->cost * t->profile.tick_seconds);
    int ca = tui_cost_color(t, in->cost);
    attron(ca | A_BOLD);
    mvaddnstr(y + 1, x + 1, line, w - 1);
    attroff(ca | A_BOLD);
    char spd[32];
    tui_fmt_speedup(in->speedup, spd, sizeof spd);
    snprintf(line, sizeof line, "speedup %s  %s  %s", spd,
             in->violations > 0 ? "VIOLATIONS" : in->verified == 1 ? "verified" :
             in->verified == 0 ? "NOT VERIFIED" : "not checked", t->cost_params);
    mvaddnstr(y + 2, x + 1, line, w - 1);
    int row = y + 3, last = y + h - 1;
    if (t->meas[0] && row < last) {               /* predicted against measured */
        snprintf(line, sizeof line, "%s, predicted %.3g s", t->meas, in->cost * t->profile.tick_seconds);
        attron(A_BOLD);
        mvaddnstr(row++, x + 1, line, w - 1);
        attroff(A_BOLD);
    }
    if (t->nmem > 0 && row < last) {               /* syndm: local memories */
        double lo = t->mem[0], hi = t->mem[0];
        for (int p = 1; p < t->nmem; p++) {
            if (t->mem[p] < lo) lo = t->mem[p];
            if (t->mem[p] > hi) hi = t->mem[p];
        }
        if (lo == hi) snprintf(line, sizeof line, "local memory %.0f", hi);   /* elements a processor */
        else snprintf(line, sizeof line, "local memory %.0f..%.0f", lo, hi);
        if (t->mem_full > 0)
            snprintf(line + strlen(line), sizeof line - strlen(line), " (%.0f%% of full)", 100.0 * hi / t->mem_full);
        mvaddnstr(row++, x + 1, line, w - 1);
    }
    /* per-processor bars */
    int np = t->nwork;
    double mx = 0;
    for (int p = 0; p < np; p++) {
        double v = t->work[p] + (p < t->ncomm ? t->comm[p] : 0);
        if (v > mx) mx = v;
    }
    int avail = last - row;                        /* keep the last line for the sparkline */
    /* more processors than lines: groups of k, each drawn with its largest work and comm */
    int groups = np <= avail ? np : avail - 1, k = 1;
    if (groups < 1) groups = 0;
    if (groups > 0 && np > groups) {
        k = (np + groups - 1) / groups;
        groups = (np + k - 1) / k;
    }
    int bw = w - 32;
    if (bw < 5) bw = 5;
    if (bw > 300) bw = 300;
    for (int g = 0; g < groups; g++, row++) {
        int p0 = g * k, p1 = p0 + k - 1 < np - 1 ? p0 + k - 1 : np - 1;
        double wk = 0, cm = 0;
        for (int p = p0; p <= p1; p++) {
            if (t->work[p] > wk) wk = t->work[p];
            if (p < t->ncomm && t->comm[p] > cm) cm = t->comm[p];
        }
        int a = mx > 0 ? (int)(wk / mx * bw + 0.5) : 0, b = mx > 0 ? (int)(cm / mx * bw + 0.5) : 0;
        if (a + b > bw) b = bw - a;
        char bar[TUI_LINE], lab[32];
        int n = 0;
        for (int i = 0; i < a && n < (int)sizeof bar - 1; i++) bar[n++] = '#';
        for (int i = 0; i < b && n < (int)sizeof bar - 1; i++) bar[n++] = '=';
        bar[n] = '\0';
        if (p0 == p1) snprintf(lab, sizeof lab, "p%d", p0);
        else snprintf(lab, sizeof lab, "p%d-%d", p0, p1);
        char wbuf[24], cbuf[24];
        tui_fmt_cost(wk, wbuf, sizeof wbuf);
        tui_fmt_cost(cm, cbuf, sizeof cbuf);
        snprintf(line, sizeof line, "%-8s %-*s %7s %7s", lab, bw, bar, wbuf, cbuf);
        mvaddnstr(row, x + 1, line, w - 1);
    }
    if (k > 1 && row < last) {
        snprintf(line, sizeof line, "%d processors, %d a line (the largest); # work, = comm", np, k);
        attron(A_DIM);
        mvaddnstr(row++, x + 1, line, w - 1);
        attroff(A_DIM);
    }
    if (t->nsteps > 0) {
        char sp[400];
        int sw = w - 12;
        if (sw > (int)sizeof sp - 1) sw = (int)sizeof sp - 1;
        if (sw < 1) sw = 1;
        sparkline(t->steps, t->nsteps, sp, sw);
        snprintf(line, sizeof line, "steps %3d %s", t->nsteps, sp);
        mvaddnstr(last, x + 1, line, w - 1);
    }
}
