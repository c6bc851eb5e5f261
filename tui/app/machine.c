/*
 * machine.c — the default machine profile and the automatic first calibration (see machine.h).
 *
 * The calibration is `polyapm calibrate --quick` run by this very program (/proc/self/exe) in a
 * child process: the calibration's code lives with the command line, and a child keeps its
 * mpirun and its output apart from the caller's (its stdout goes to our stderr, so that a
 * command's --json output stays one object).
 */
#include "machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ops.h"

#define LOCAL "local"

const char *machine_default_name(void)
{
    const char *env = getenv(MACHINE_ENV);
    return env && *env ? env : LOCAL;
}

/* Runs `polyapm calibrate --quick [-w WS]` in a child, its output on stderr.  0, or -1 with a
 * message. */
static int machine_calibrate(store *s, diag_list *d)
{
    fprintf(stderr, "polyapm: no profile of this machine yet: measuring it once (polyapm calibrate --quick); "
                    "--machine scali2004 or %s=scali2004 prices on the thesis's cluster instead\n", MACHINE_ENV);
    fflush(stderr);
    fflush(stdout);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) return diag_add(d, NULL, 0, 0, "cannot calibrate this machine: fork failed"), -1;
    if (pid == 0) {
        dup2(2, 1);
        char *argv[] = {"polyapm", "calibrate", "--quick", s ? "-w" : NULL, s ? (char *)store_dir(s) : NULL, NULL};
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {}
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        diag_add(d, NULL, 0, 0, "calibrating this machine failed (polyapm calibrate --quick says why above); "
                                "--machine scali2004 prices on the thesis's cluster");
        return -1;
    }
    fprintf(stderr, "polyapm: this machine calibrated in %.0f s and stored as the profile %s\n",
            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), LOCAL);
    return 0;
}

int machine_resolve(store *s, const char *name, cost_profile *out, diag_list *d)
{
    if (!name) name = machine_default_name();
    diag_list first;
    diag_list_init(&first);
    int rc = ops_resolve_machine(s, name, out, &first);
    if (rc != 0 && !strcmp(name, LOCAL)) {
        rc = machine_calibrate(s, d);
        if (rc == 0) rc = ops_resolve_machine(s, name, out, d);
    } else if (rc != 0) {
        for (int i = 0; i < first.n; i++)
            diag_add(d, first.items[i].file, first.items[i].line, first.items[i].col, "%s", first.items[i].msg);
    }
    diag_list_free(&first);
    return rc;
}
