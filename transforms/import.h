/*
 * import.h — `polyapm import`: a C kernel (a `#pragma scop` region, or one function's body) to a
 * source-level .apm program, through libclang.
 *
 * The C file is preprocessed by clang with the user's -I and -D (so PolyBench's macros work) and
 * the result parsed by libclang (operators are then tokens between their operands, never hidden
 * by a macro; the original file:line comes from the line markers).  The region (in any function,
 * main included; one of several chosen by index, line or function) becomes loops and labelled
 * statements.  Its data are the kernel's arguments, its locals, and the file's globals and
 * statics it names (VLAs, PolyBench's macros; a pointer indexed A[i * n + j] delinearised); its
 * parameters the integer arguments it reads (with the values the call passes), size macros, and
 * int variables set to constants or read at run time (atoi(argv[k]): --param).  The code before
 * it (main's statements before the call, the functions they call, formula functions, constant
 * tables) gives `init` declarations; what of it cannot be read and assigns nothing the region
 * reads (timers, prints, allocations) is set aside and said on `notes`; the code after it gives
 * the `output` declarations (the arrays it prints or reads).  What lies outside the supported
 * subset is an error at file:line:col naming the construct and what is supported (the
 * preprocessor's first error included); nothing is produced then.  Only the files of
 * transforms/import/ see libclang.
 */
#ifndef POLYAPM_IMPORT_H
#define POLYAPM_IMPORT_H

#include "diag.h"
#include "own.h"

typedef struct xf_import_opts {
    const char *file;                 /* the C file */
    const char *const *includes;      /* -I directories */
    int nincludes;
    const char *const *defines;       /* -D NAME[=VALUE] */
    int ndefines;
    const char *function;             /* the kernel function (its region, else its body), or NULL */
    const char *region;               /* which #pragma scop region: "K" (the K-th of the file, from 1) or
                                         "line:L" (the one holding line L), or NULL: the only one */
    const char *const *params;        /* NAME=VALUE: the value of a size variable the program reads
                                         when it runs (n = atoi(argv[1])), or overriding its constant */
    int nparams;
    const char *const *inits;         /* "A[i][j] = e": the initial values of an array, in the
                                         language's terms, instead of what the C code computes */
    int ninits;
    const char *const *assumes;       /* "S1 unchanged when i == k": assumptions about the region's
                                         statements (S1, S2, .. in the order written), in the
                                         language's terms (assume declarations) */
    int nassumes;
    const char *outputs;              /* "A,B": the output arrays, or NULL */
    const char *name;                 /* the program's name, or NULL: from the file name */
    const char *command;              /* the command that imports the file again (with other -D:
                                         explore --at LARGE_DATASET), written in the program's
                                         header as `# imported with: COMMAND`, or NULL */
} xf_import_opts;

/* The canonical .apm text of the imported program (the caller frees it), or NULL with the errors
 * in `d`.  Notes that are not errors (the statements set aside as not the kernel's) are printed
 * to `notes` when it is not NULL. */
own_give char *xf_import_c(const xf_import_opts *o, diag_list *d, FILE *notes);

#endif
