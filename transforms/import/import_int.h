/*
 * import_int.h — what the files of the C importer (transforms/import/) share: the importer's
 * state, its symbols, the name bindings of the code being read, and the text builder.
 *
 * A symbol is a parameter, or an array (a scalar is an array without dimensions) of the imported
 * program.  C names reach symbols through bindings (a list, innermost first): the kernel's names
 * bind to its symbols, an init function's parameters to what main passes, a loop variable to
 * the text that stands for it.  While the init code is read, an array's value is a text with the
 * placeholders @0, @1, .. for the element's indices (imp_sym.val): each assignment wraps the
 * value before it, so the init declaration at the end says exactly what C computed.
 */
#ifndef POLYAPM_IMPORT_INT_H
#define POLYAPM_IMPORT_INT_H

#ifndef POLYAPM_XF_PRIVATE
#error "import_int.h is private to transforms/: include xf.h"
#endif

#include <clang-c/Index.h>
#include <stdarg.h>
#include <stdio.h>

#include "diag.h"
#include "mem.h"
#include "strbuf.h"
#include "import.h"

enum { IMP_MAXDIM = 8, IMP_MAXNEST = 16 };   /* subscripts; loops around a statement of the init code */

typedef enum imp_symkind { SYM_PARAM, SYM_ARRAY } imp_symkind;

typedef struct imp_sym {
    char *name;                 /* the .apm name (owned) */
    imp_symkind kind;
    int is_int;                 /* element type int (else double) */
    int ndims;
    char *dims[IMP_MAXDIM];     /* the extent of each dimension, .apm text (owned) */
    long long value;            /* SYM_PARAM: its value */
    char *val;                  /* the value the init code gave it (placeholders @k), or NULL */
    char *macro;                /* SYM_PARAM: the size macro its value came from, or NULL (owned) */
    int local;                  /* a temporary of the init code: not declared */
    int lazy;                   /* an int the kernel declares without a value: declared if the region
                                   assigns it (else it is a loop variable) */
    int linear;                 /* a pointer indexed A[i * n + j]: its dimensions come from its accesses */
    CXCursor lin_decl;          /* linear: the variable whose allocation gives its size */
    int named;                  /* the region names it (else it is not declared) */
    int global;                 /* a variable of the file's scope (declared once the region names it) */
    int written;                /* the region assigns it */
    int assigned;               /* the region assigns it somewhere (known before it is read) */
    int iter_dep;               /* the init code's loop nest being read assigns it a value that changes
                                   with the iteration of a loop it is not indexed by (its val is the
                                   last iteration's: not what a read in that nest sees) */
    struct imp_sym *next;       /* declaration order */
} imp_sym;

typedef struct imp_bind {
    const char *cname;          /* the C name (borrowed from its cursor's spelling, kept in `names`) */
    imp_sym *sym;               /* what it names, or NULL: `text` */
    char *text;                 /* the text that stands for it (owned by the importer's pool) */
    int nonneg;                 /* a loop variable known to be >= 0 */
    struct imp_bind *next;
} imp_bind;

typedef struct imp_decls { CXCursor *at; int n, cap; } imp_decls;   /* a set of declarations */


typedef struct imp_mark { int line; CXCursor at; } imp_mark;   /* a region line's C statement */

/* ---- the C library's random numbers (import_rand.c) ---- */
/* A number of calls: c + the text t (an .apm expression of parameters; NULL: none). */
typedef struct imp_count { long long c; const char *t; } imp_count;
/* The generators: rand() and random() (one sequence, seeded by srand and srandom), drand48() and
 * lrand48() (one state, seeded by srand48). */
enum { IMP_RNG_RAND, IMP_RNG_48, IMP_NRNG };
typedef struct imp_rng {
    const char *seed;           /* the seed's text, or NULL: none given (rand: 1; drand48: glibc's state) */
    imp_count at;               /* the calls before the statement being read, but for the loops' */
    imp_count per[IMP_MAXNEST]; /* the calls of one iteration of the loop at each depth (0: none) */
} imp_rng;
/* A loop whose body calls a generator: where its iterations are counted from. */
typedef struct imp_rng_loop { const char *lo, *hi; long long step; int down; } imp_rng_loop;
/* What the reading of a statement changes, restored or advanced after it. */
typedef struct imp_rng_save {
    int active;                 /* the statement calls a generator */
    imp_rng rng[IMP_NRNG];      /* as before it */
    imp_count count[IMP_NRNG];  /* the calls it makes */
    int depth;
} imp_rng_save;
typedef struct imp_macro_use imp_macro_use;   /* import_macro.c */
/* An element a loop nest of the init code assigns: its array and its subscripts as text. */
typedef struct imp_write { imp_sym *sym; char *subs; } imp_write;

typedef struct imp {
    const xf_import_opts *o;
    CXTranslationUnit tu;
    diag_list *d;
    FILE *notes;
    int failed;                 /* an error was reported */
    imp_sym *syms, **tail;
    imp_bind *env;              /* the bindings in force */
    void **pool; int npool, cappool;   /* strings and bindings freed at the end */
    unsigned scop_lo, scop_hi;  /* the region: file offsets of its first and last line */
    int have_scop;
    int auto_lo, auto_hi;       /* without #pragma scop: the lines of the loop nest taken as the region */
    CXCursor kernel, main_fn, kernel_call;
    int nlabels;                /* statements labelled so far */
    int in_init;                /* reading the init code (values) rather than the region (statements) */
    int decl_local;             /* declarations read now are temporaries of the init code */
    int call_depth;             /* calls of the init code being read (a bound against recursion) */
    imp_write *writes;          /* what the init code's loop nest being read assigns */
    int nwrites, capwrites;
    imp_sym *target;            /* the array the init statement being read assigns */
    int target_read;            /* its right-hand side reads that array */
    int nsum;                   /* reduction variables named so far */
    imp_mark *marks;            /* the C statement of each line of the region's text */
    int nmarks, capmarks;
    int region_line;            /* the line of the program's text where the region starts */
    imp_macro_use *macros;      /* where integer macros were expanded in the file */
    int nmacros, capmacros;
    int macro_params;           /* a macro of no parameter becomes one (after the kernel's arguments) */
    const char *src_text;       /* the file as written */
    const char *pp_text;        /* the preprocessed text libclang parses */
    imp_decls globals;          /* the file-scope variables */
    imp_decls assigned_anywhere;   /* the variables a function of the file assigns (or passes to one) */
    imp_decls region_reads;     /* the variables the region names, and what main passes the kernel */
    imp_bind *genv;             /* the bindings of the globals used so far */
    imp_bind *main_env;         /* main's names (after what it passes the kernel is bound) */
    int making_global;          /* globals being bound (their extents may name others) */
    int in_region;              /* reading the region */
    int nset_aside;             /* statements set aside so far */
    imp_rng rng[IMP_NRNG];      /* the generators' seeds and call counts (import_rand.c) */
    imp_rng_loop rng_loop[IMP_MAXNEST];
    int rng_live;               /* reading a statement whose generator calls are numbered */
    int rng_used[IMP_NRNG];     /* ... and the calls numbered in it so far */
    struct imp_fn_mark { void *file; unsigned off; int calls; } *rng_fns;   /* functions known to call a
                                   generator (calls 1) or not (0), by where they are defined (owned) */
    int nrng_fns, caprng_fns;
} imp;

/* ---- import_clang.c: libclang, opened on first use ---- */
/* Opens libclang (once); NULL when its functions can be called, else why not (static text). */
const char *imp_clang_open(void);

/* ---- import_util.c: text, memory, locations, cursors ---- */
char *imp_strdup(imp *I, const char *s);                 /* pooled */
char *imp_printf(imp *I, const char *fmt, ...) __attribute__((format(printf, 2, 3)));   /* pooled */
char *imp_spelling(imp *I, CXCursor c);                  /* pooled */
/* Reports "construct ... supported: ..." at the cursor; returns NULL for the callers' use. */
void *imp_error(imp *I, CXCursor at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Reports that `what` at `at` is float (the language has no single precision); returns 1. */
int imp_refuse_float(imp *I, CXCursor at, const char *what);
/* The children of a cursor (at most `max`); their number. */
int imp_children(CXCursor c, CXCursor *out, int max);
/* The expression under implicit casts and parentheses' wrappers libclang does not expose. */
CXCursor imp_unwrap(CXCursor c);
/* The operator of a binary, compound-assignment or unary operator cursor ("+", "+=", "-", "++"),
 * from the tokens between its operands (the text is preprocessed, so no macro hides them);
 * pooled.  *postfix is set for x++ / x--. */
const char *imp_operator(imp *I, CXCursor c, int *postfix);
/* Does c write a variable or element: =, a compound assignment, ++ or --? */
int imp_is_write(imp *I, CXCursor c);
/* Is a type an integer, a floating type?  The C type's kind. */
int imp_type_is_int(CXType t);
int imp_type_is_float(CXType t);
int imp_in_file(imp *I, CXCursor c);      /* in the imported file (not a header) */
unsigned imp_offset(CXCursor c, int end);  /* the file offset of its start or end */
unsigned imp_line(CXCursor c);             /* its line in the file the preprocessor read */

/* ---- bindings and symbols ---- */
void imp_bind_sym(imp *I, const char *cname, imp_sym *s);
void imp_bind_text(imp *I, const char *cname, const char *text, int nonneg);
imp_bind *imp_lookup(imp *I, const char *cname);
imp_sym *imp_sym_new(imp *I, const char *cname, imp_symkind kind);
imp_sym *imp_sym_find(imp *I, const char *name);
/* The .apm spelling of a C name (keywords and built-in names get a '_' appended); pooled. */
char *imp_apm_name(imp *I, const char *cname);

/* ---- import.c ---- */
/* --region's value: K (*line 0) or line:L (*line 1) in *v; 0, or -1 with the reason. */
int imp_region_arg(imp *I, int *line, long *v);

/* ---- import_auto.c: the kernel of a file without #pragma scop ---- */
/* Chooses the loop nest that is the kernel (I->kernel, the region's offsets and lines); 0, or -1
 * with the reason. */
int imp_auto_region(imp *I);

/* ---- import_expr.c: expressions to .apm text (pooled; NULL after an error) ---- */
char *imp_expr(imp *I, CXCursor e);
/* Is name one of math.h's functions the language has (sqrt, fabs, sin, ..)? */
int imp_math_call(const char *name);
/* Is the integer expression known to be >= 0? */
int imp_nonneg(imp *I, CXCursor e);
/* The array element or scalar an lvalue names: its symbol and subscript cursors. */
imp_sym *imp_lvalue(imp *I, CXCursor e, CXCursor *subs, int *nsubs);
/* The array or scalar an argument names (A, *A, &alpha), or NULL. */
imp_sym *imp_argsym(imp *I, CXCursor e);
/* A value of an array read in the init code: its value text with the subscripts substituted. */
char *imp_subst(imp *I, const char *val, char **subs, int nsubs);

/* ---- import_loop.c: C for loops ---- */
typedef struct imp_loop {
    const char *var;            /* the C loop variable */
    char *lo, *hi;              /* .apm bounds (pooled) */
    long long step;             /* positive */
    int down;                   /* counts down from hi to lo */
    int nonneg;                 /* its variable is >= 0 */
    CXCursor body;
} imp_loop;
/* Reads `for (init; cond; inc) body` into a loop; 0, or -1 after an error. */
int imp_for(imp *I, CXCursor f, imp_loop *l);
/* The variable a for loop sets (v = a, int v = a), or NULL; reports nothing. */
const char *imp_for_var(imp *I, CXCursor f);

/* ---- import_stmt.c: the region ---- */
/* Records that the next line of `out` comes from the statement `at` (for located errors). */
void imp_mark_line(imp *I, CXCursor at, const strbuf *out);
int imp_region(imp *I, CXCursor *stmts, int n, strbuf *out);

/* ---- import_macro.c: size macros ---- */
/* Records the expansions of integer macros in the file (libclang on the file as written). */
void imp_macros_scan(imp *I, CXIndex index, const char *const *args, int nargs);
/* The macro an integer literal of value v at `at` was, or NULL (pooled). */
const char *imp_macro_of(imp *I, CXCursor at, long long v);
/* The parameter an integer literal of value v at `at` stands for, or NULL. */
imp_sym *imp_macro_param(imp *I, CXCursor at, long long v);

/* ---- import_fold.c: math calls on constants ---- */
/* Is `e` a constant at import (literals, scalars the region never assigns whose value is a
 * number, + - * / and exp, pow of such)?  Its value in *v. */
int imp_const(imp *I, CXCursor e, double *v);
/* Marks the scalars the region's statements assign (imp_sym.assigned). */
void imp_mark_assigned(imp *I, CXCursor *stmts, int n);

/* ---- import_linear.c: linearised arrays ---- */
/* Is t a pointer to int or floating numbers? */
int imp_is_numbers_pointer(CXType t);
/* A linearised array's symbol for `decl` (its allocation that of `alloc_decl`); NULL after an error. */
imp_sym *imp_linear_sym(imp *I, const char *cname, CXCursor decl, CXCursor alloc_decl);
/* The subscripts of the access A[sub] of a linearised array (its dimensions fixed by the first
 * access); 0, or -1 after an error naming it. */
int imp_linear_subs(imp *I, imp_sym *s, CXCursor access, CXCursor sub, CXCursor *subs, int *nsubs);

/* Is a local pointer to arrays used as A[i][j] (a pointer to rows), not as (*A)[i][j]? */
int imp_row_pointer(imp *I, CXCursor decl);
/* The first extent of the array a pointer `decl` points into, from its allocation (malloc(n *
 * sizeof *A)); NULL after an error. */
char *imp_alloc_extent(imp *I, imp_sym *s, CXCursor decl);

/* ---- import_scope.c: the file's variables, sizes, what is set aside ---- */
void imp_scope_scan(imp *I, CXCursor *region, int nregion);
int imp_decls_has(const imp_decls *set, CXCursor c);
void imp_decls_free(imp_decls *set);
/* The binding of a file-scope variable of that name (made on first use), or NULL. */
imp_bind *imp_global(imp *I, const char *cname);
/* The value of an int variable that is a size: --param NAME=V, a constant initialiser, or the
 * default of `argc > k ? atoi(argv[k]) : V`; 1 with *v, 0 if it is none, -1 after an error
 * (read at run time without a value). */
int imp_size_value(imp *I, CXCursor var, long long *v);
/* The value of an int variable that is a fixed size: one imp_size_value gives that the file never
 * assigns, or one without a value assigned a constant once (int n; .. n = 100;); 1, 0, -1. */
int imp_fixed_size(imp *I, CXCursor v, long long *value);
/* The --init text that gives the array `name` its values, or NULL. */
const char *imp_given_init(imp *I, const char *name);
/* Does a statement assign (or pass to a function of the file) a variable the region reads (and
 * --init does not give)? */
int imp_matters(imp *I, CXCursor stmt);
/* The value (placeholders @k) of an array initialised with a table of constants {..}; NULL after
 * an error. */
char *imp_table(imp *I, imp_sym *s, CXCursor init, CXType t);
/* Says on the notes that the statement at `at` is not part of the kernel. */
void imp_set_aside(imp *I, CXCursor at, const char *what);

/* ---- import_rand.c: the C library's random numbers in the code before the kernel ---- */
/* Does the statement or expression call rand(), srand() or their kin (the file's functions it calls
 * included)? */
int imp_rand_mentions(imp *I, CXCursor s);
/* Is e a call of one of the C library's random number functions (rand, srand, erand48, ..)? */
int imp_rand_is_call(imp *I, CXCursor e);
/* Is e a call of rand(), random() or lrand48() (a non-negative int)? */
int imp_rand_is_int_call(imp *I, CXCursor e);
/* The value of a call of a generator in an expression of the statement being read (crand(42, k)
 * with k its call number, a text of the loops' variables); NULL after a located error. */
char *imp_rand_value(imp *I, CXCursor call);
/* Around the reading of a loop at `depth` (loops: those around it): its iterations are numbered
 * if its body calls a generator; 0, or -1 after a located error. */
int imp_rand_loop_enter(imp *I, const CXCursor *loops, int depth, CXCursor loop, imp_rng_save *sv);
void imp_rand_loop_leave(imp *I, imp_rng_save *sv);
/* Around the reading of an if: both branches start from the calls before it, and make as many. */
int imp_rand_if_enter(imp *I, CXCursor s, imp_rng_save *sv);
void imp_rand_if_else(imp *I, imp_rng_save *sv);
void imp_rand_if_leave(imp *I, imp_rng_save *sv);
/* Around the reading of any other statement: its calls are numbered, srand(s) seeds (*handled:
 * nothing else to read); 0, or -1 after a located error. */
int imp_rand_stmt_enter(imp *I, CXCursor s, int depth, int nguards, imp_rng_save *sv, int *handled);
void imp_rand_stmt_leave(imp *I, imp_rng_save *sv);
/* The value text with the loop variables' markers of the generators' call numbers replaced by
 * the texts the loops at each depth stand for (iter[d]); pooled. */
char *imp_rand_subst(imp *I, const char *val, char *const *iter, int n);
/* Does a text call a generator (crand, cdrand48, clrand48)? */
int imp_rand_in(const char *text);

/* ---- import_init.c: the code before the kernel ---- */
/* Binds the parameters of the file's function `def` to the arguments of the call s; 0 or -1. */
int imp_call_bind(imp *I, CXCursor s, CXCursor def);
/* May the init code read s[subs] here?  Inside a loop nest that assigns s, only the element it
 * assigns (its values are per element: a recurrence is out of reach).  0 after an error. */
int imp_init_read_ok(imp *I, CXCursor at, imp_sym *s, CXCursor *subs, int n);
/* May the init code read the scalar or element of s here?  Not inside a loop nest that assigns it
 * a value changing with an iteration it is not indexed by (s->iter_dep).  0 after an error. */
int imp_init_iter_read_ok(imp *I, CXCursor at, imp_sym *s);
int imp_init_stmt(imp *I, CXCursor s);
/* Declares the symbols of a local variable declaration (a scalar or an array) and records its
 * initialiser as a value; 0 or -1. */
int imp_local_decl(imp *I, CXCursor decl, int local, strbuf *region);

/* ---- import_decl.c: parameters, arrays, outputs ---- */
int imp_kernel_params(imp *I);
int imp_dims(imp *I, CXCursor decl, CXType t, imp_sym *s);
int imp_outputs(imp *I, char ***names, int *n);

#endif
