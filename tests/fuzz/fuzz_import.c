/*
 * fuzz_import.c — libFuzzer target for the C importer (`make fuzz-import`, part of `make fuzz`).
 *
 * Each input is written to a C file beside tests/import's (so that its `#include "dump.h"`
 * resolves) and imported as `polyapm import` does, with a size given for run-time reads (--param
 * n=8).  Any input must import or fail with located diagnostics, never crash or leak: an import
 * that fails without a message, or an imported program that does not load again, aborts.  The
 * seeds are the C files of tests/import.
 */
#include "import.h"
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static char path[4096];

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (!*path) {
        const char *dir = getenv("FUZZ_IMPORT_DIR");
        snprintf(path, sizeof path, "%s/fuzz-import-%d.c", dir && *dir ? dir : "/tmp", (int)getpid());
    }
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    static const char *const includes[] = {IMPORT_TESTS_DIR};
    static const char *const params[] = {"n=8", "m=9"};
    xf_import_opts o = {.file = path, .includes = includes, .nincludes = 1, .params = params, .nparams = 2};
    diag_list d;
    diag_list_init(&d);
    char *text = xf_import_c(&o, &d, NULL);
    if (!text && diag_count(&d) == 0) {
        fprintf(stderr, "the import failed without saying why\n");
        abort();
    }
    if (text) {
        diag_list pd;
        diag_list_init(&pd);
        ir_program *p = ir_load_text("fuzz.apm", text, strlen(text), &pd);
        if (!p) {
            fprintf(stderr, "the imported program does not load again:\n%s\n", text);
            diag_print(&pd, stderr);
            abort();
        }
        ir_program_free(p);
        diag_list_free(&pd);
    }
    free(text);
    diag_list_free(&d);
    unlink(path);
    return 0;
}
