/*
 * mpirun.c — how polyapm starts MPI programs (run, calibrate): the mpirun command line, with
 * --allow-run-as-root when root and --oversubscribe, in an Open MPI session directory of the
 * run's own; the shell quoting such command lines need; and the removal of a run's scratch
 * directories.
 *
 * Open MPI creates its session directory (/tmp/ompi.HOST.UID) with the first mpirun and removes
 * it with the last.  Two mpiruns that start at the same moment race to create it, and one of
 * them fails before its program starts ("A call to mkdir was unable to create the desired
 * directory ... File exists", orte_init failed, exit 1).  So each run gets a directory of its
 * own, created under OMPI_MCA_orte_tmpdir_base when the user set one (else /tmp: PMIx puts its
 * sockets there, and a socket's path must stay short), named to Open MPI through the same
 * variable.  Other MPI implementations ignore it.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

void cli_shell_quote(char *out, size_t size, const char *s)
{
    size_t k = 0;
    if (k + 1 < size) out[k++] = '\'';
    for (; *s && k + 5 < size; s++) {
        if (*s == '\'') { memcpy(out + k, "'\\''", 4); k += 4; }
        else out[k++] = *s;
    }
    if (k + 1 < size) out[k++] = '\'';
    out[k] = '\0';
}

int cli_mpirun_open(cli_mpirun *m)
{
    const char *base = getenv("OMPI_MCA_orte_tmpdir_base");
    if (!base || !*base) base = "/tmp";
    if ((size_t)snprintf(m->dir, sizeof m->dir, "%s/polyapm-mpi-XXXXXX", base) >= sizeof m->dir) {
        m->dir[0] = '\0';
        return cli_fail("the MPI session directory's path is too long under %s", base);
    }
    if (!mkdtemp(m->dir)) {
        int e = errno;
        char tried[sizeof m->dir];
        snprintf(tried, sizeof tried, "%s", m->dir);
        m->dir[0] = '\0';
        return cli_fail("cannot create an MPI session directory %s: %s", tried, strerror(e));
    }
    return CLI_OK;
}

void cli_mpirun_command(const cli_mpirun *m, int np, char *out, size_t size)
{
    char q[sizeof m->dir + 64];
    cli_shell_quote(q, sizeof q, m->dir);
    snprintf(out, size, "env OMPI_MCA_orte_tmpdir_base=%s mpirun %s--oversubscribe -np %d", q,
             geteuid() == 0 ? "--allow-run-as-root " : "", np);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path) != 0 && errno != ENOENT;
}

int cli_remove_tree(const char *dir)
{
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 || errno == ENOENT ? 0 : -1;
}

void cli_mpirun_close(cli_mpirun *m)
{
    if (!m->dir[0]) return;
    /* Open MPI empties it on a normal exit; after a crash it holds the job's files */
    if (cli_remove_tree(m->dir) != 0)
        fprintf(stderr, "polyapm: could not remove the MPI session directory %s\n", m->dir);
    m->dir[0] = '\0';
}
