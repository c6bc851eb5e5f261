/*
 * check_int.h — the semantic checker's internals (see ir.h, ir_check), shared by check.c (the
 * symbols, affinity, expressions and the driver ir_check), check_stmt.c (statements, the step
 * nest, the rules of each level) and check_decl.c (operators, parameters, arrays, inits,
 * outputs, dists).
 */
#ifndef POLYAPM_CHECK_INT_H
#define POLYAPM_CHECK_INT_H

#include "ir.h"

enum { AFF_CONST = 0, AFF_AFFINE = 1, AFF_NON = 2 };
enum { M_ANY, M_CONST, M_NOARRAY, M_OP, M_INIT };   /* what an expression may use (M_OP: an
                                                        operator clause: its own names and literals
                                                        only; M_INIT: an init value, M_NOARRAY and the
                                                        random numbers crand, clrand48, cdrand48) */

typedef struct sym {
    const char *name;
    ir_name_kind nk;
    int index;          /* param index, array index, or slot */
    ir_pos pos;
    ir_type type;
    int prev;           /* the symbol of the same name this one hides, or -1 */
    int hslot;          /* its entry in the name table */
} sym;

/* Name table (open addressing, insert-only keys): name -> innermost symbol (or -1), or for the
 * label table name -> the statement position stored in `pos`. */
typedef struct hentry {
    const char *name;
    int top;
    ir_pos pos;
} hentry;

typedef struct htab {
    hentry *e;
    int cap, n;
} htab;

typedef struct checker {
    ir_program *p;
    diag_list *d;
    int nerr;
    sym *syms;
    int nsyms, capsyms;
    htab names;              /* name -> innermost symbol */
    htab labels;             /* label -> position */
    signed char *cls[2];     /* per slot: affinity class of a let's value (0 subscript, 1 bound) */
    int nslots, capslots;
    const ir_loopvar *procvar;   /* the processor loop of the step nest (syn and above) */
    const ir_block *proc_body;   /* the body of the processor loop (collectives go there) */
    const ir_block *cur_block;   /* the block whose statements are being checked */
    int cur_param;           /* index in decls of the parameter being checked, or -1 */
} checker;

/* check.c: reporting */
void chk_err(checker *C, ir_pos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The name of each kind of name ("parameter", "loop variable", ...), for messages. */
extern const char *const chk_nk_names[];

/* check.c: symbols */
/* The entry of `name` (inserted with top -1 when `insert` and absent), or -1. */
int chk_ht_find(htab *t, const char *name, int insert);
/* The innermost symbol named `name`, or NULL. */
sym *chk_lookup(checker *C, const char *name);
/* Leaves scope: forgets the symbols defined after `mark`. */
void chk_pop_to(checker *C, int mark);
/* Does e (unresolved) name `nm` anywhere (a reduction's own variable shadows it in its body)? */
int chk_expr_uses_name(const ir_expr *e, const char *nm);
/* Defines a name; reports shadowing.  Returns the slot for variables (new_slot) or `index`. */
int chk_define(checker *C, const char *name, ir_name_kind nk, int index, ir_pos pos, ir_type t);
/* The declaration of array symbol s. */
ir_decl *chk_array_decl(checker *C, const sym *s);

/* check.c: affinity and expressions */
/* The affinity class (AFF_*) of e as a subscript (bound = 0) or a loop bound (bound = 1); at
 * AFF_NON, *bad is the first offending node. */
int chk_aff(checker *C, const ir_expr *e, int bound, const ir_expr **bad);
/* Resolves the names of e, infers its type and checks what it may use (mode: M_*); `what` names
 * it in messages. */
ir_type chk_resolve(checker *C, ir_expr *e, int mode, const char *what);
/* An array subscript: resolved as an integer, affine. */
void check_subscript(checker *C, ir_expr *ix, int mode, const char *what);
/* Resolves an operator reference: a built-in name or a declared op.  0 = ok. */
int chk_resolve_opref(checker *C, ir_opref *op);
/* A constant integer expression (cost, step, array bound, ...). */
void check_const(checker *C, ir_expr *e, const char *what, int need_int);
/* An integer expression. */
void check_int(checker *C, ir_expr *e, const char *what);
void check_assumption_labels(checker *C);   /* check_stmt.c: every assume names an assignment */

/* check_stmt.c */
/* "'what' is not available at level L (needs `needs`)". */
void chk_level_error(checker *C, ir_pos pos, const char *what, const char *needs);
void check_block(checker *C, ir_block *b);
/* syn and above: optional lets, then one step nest `for t .. seq { for p .. par|proc {..} }`. */
void check_structure(checker *C);

/* check_decl.c */
/* Every declaration: operators, parameters and arrays, references, inits, outputs, dists. */
void check_decls(checker *C);

#endif
