/*
 * t_export.c — test driver of export_pieces.sh: exports FILE.apm with xf_export alone (no
 * simulation first), so that the exporter of pieced local memories can be tested while
 * `polyapm export` still refuses such programs because the simulator does not honour pieces.
 *   t_export FILE.apm DIR [--exchange auto|halo|alltoallv] [name=value]...
 * exit 0 exported, 1 refused (the reason on stderr), 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "xf.h"

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: t_export FILE.apm DIR [--exchange E] [name=value]...\n"); return 2; }
    ir_binding b[16];
    int nb = 0;
    xf_exchange ex = XF_EXCHANGE_AUTO;
    for (int i = 3; i < argc && nb < 16; i++) {
        if (strcmp(argv[i], "--exchange") == 0) {
            if (i + 1 >= argc || !xf_exchange_parse(argv[i + 1], &ex)) { fprintf(stderr, "t_export: bad --exchange\n"); return 2; }
            i++;
            continue;
        }
        char *eq = strchr(argv[i], '=');
        if (!eq) { fprintf(stderr, "t_export: %s: want name=value\n", argv[i]); return 2; }
        *eq = '\0';
        b[nb++] = (ir_binding){argv[i], strtoll(eq + 1, NULL, 10)};
    }
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_load_file(argv[1], &d);
    int rc = 1;
    if (p) {
        xf_export_options o = {b, nb, ex, argv[1]};
        xf_export_info info;
        rc = xf_export(p, argv[2], &o, &info, &d) == XF_OK ? 0 : 1;
        if (!rc) printf("exported %s: %s, %d ranks, %s\n", info.prog, info.mpi ? "C+MPI" : "C", info.ranks,
                        xf_exchange_name(info.exchange));
    }
    diag_print(&d, stderr);
    diag_list_free(&d);
    ir_program_free(p);
    return rc;
}
