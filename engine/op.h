/*
 * op.h — the operators of collectives: the built-in operators and the one table of their
 * algebraic properties (associativity, commutativity, identity, left distributivity), the
 * evaluation of user-defined operators (`op NAME { .. }`), and the checks of a user operator's
 * declared properties on sampled values.
 *
 * The fusion transforms ask the property questions through op_associative, op_commutative and
 * op_distributes; the simulator applies operators with op_builtin_apply_* and op_apply.
 *
 * Values: an operator's state is a tuple of fields, each int (int64) or double; op_value holds
 * one field.  A user operator is evaluated by walking its clauses' expressions (pattern names and
 * lets live in an op_env's frames).
 */
#ifndef POLYAPM_OP_H
#define POLYAPM_OP_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"

#define OP_MAX_FIELDS 256         /* state, input and output tuples (ZRAN3 fused: 220) */

typedef union op_value { int64_t i; double d; } op_value;

/* ---- built-in operators --------------------------------------------------------------------- */

const char *op_builtin_name(ir_bop b);            /* "+", "*", "max", .., "bxor" */
int op_builtin_find(const char *name);            /* ir_bop, or -1 */
int op_builtin_int_only(ir_bop b);                /* and, or, band, bor, bxor: integers only */
int64_t op_builtin_apply_i(ir_bop b, int64_t x, int64_t y);   /* wraps on overflow */
double op_builtin_apply_d(ir_bop b, double x, double y);
int64_t op_builtin_ident_i(ir_bop b);             /* 0 for +, 1 for *, INT64_MIN for max, .. */
double op_builtin_ident_d(ir_bop b);              /* 0, 1, -inf, +inf */
/* Operation count of one application in the cost unit (one base op = 1). */
double op_builtin_ticks(ir_bop b);

/* ---- properties (built in: the table; user: as declared, checked on samples) --------------- */

/* Resolved operator references (a checked program's); -1 when the reference is unresolved. */
int op_associative(const ir_program *p, const ir_opref *op);
int op_commutative(const ir_program *p, const ir_opref *op);
/* Left distributivity: outer(a, inner(b, c)) == inner(outer(a, b), outer(a, c)).  Built-in
 * pairs from the table (on integers: `*` over `+`, `+` over max/min, max over min and max, ..);
 * a user operator distributes over what it declares with `distributes over`. */
int op_distributes(const ir_program *p, const ir_opref *outer, const ir_opref *inner);
/* The same by names (built-in names, or names of p's operators; p may be NULL for built-ins). */
int op_distributes_names(const ir_program *p, const char *outer, const char *inner);
int op_commutative_name(const ir_program *p, const char *name);
int op_associative_name(const ir_program *p, const char *name);

/* ---- user operators ------------------------------------------------------------------------- */

typedef struct op_env op_env;

/* An evaluation context for p's operator clauses (p must be checked).  Free with op_env_free. */
own_give op_env *op_env_new(const ir_program *p);
void op_env_free(own_take op_env *E);
/* Applies clause k of operator `u` (index into p->ops) to the tuples a (first pattern) and b
 * (second pattern; NULL when the clause has one or none); `out` receives the result tuple (its
 * arity is op_clause_arity).  Returns 0; -1 on a runtime error (division by zero, integer
 * overflow, a missing clause), with the message in `err`. */
int op_apply(op_env *E, int u, ir_clause_kind k, const op_value *a, const op_value *b,
             op_value *out, char *err, size_t errn);
int op_clause_arity(const ir_program *p, int u, ir_clause_kind k);   /* 0 when absent */
/* Base operations of one application of clause k: every arithmetic, comparison and logical
 * operator and every call (min/max of n arguments: n - 1), int or double alike (an operator's
 * arithmetic is data, not index computation); lets count once.  0 when the clause is absent. */
double op_clause_ops(const ir_program *p, int u, ir_clause_kind k);
/* How many names of pattern `pat` (0 or 1) clause k reads: the fields a partner must send. */
int op_clause_fields_used(const ir_program *p, int u, ir_clause_kind k, int pat);
/* The type of field i of the state (0-based) / of the input tuple / of the gen result. */
ir_type op_state_type(const ir_program *p, int u, int i);
int op_state_arity(const ir_program *p, int u);
int op_in_arity(const ir_program *p, int u);      /* 0: an elementwise operator */

/* repeat(OP, k, start): walks the bits of k from the least significant; a 0 bit applies `even`,
 * a 1 bit `odd` (Gorlatch et al.'s repeat).  `st` (state arity) is updated in place. */
int op_repeat(op_env *E, int u, int64_t k, op_value *st, char *err, size_t errn);

/* Checks operator u of a checked program on sampled values: ident a two-sided identity of
 * combine, combine associative (unless nonassociative), commutative when declared so, the
 * declared distributivities; states are accumulations of sampled inputs for operators with
 * `in`, sampled tuples otherwise.  Adds one diagnostic with the counter-example per failed
 * property; returns the number added. */
int op_check_samples(const ir_program *p, int u, diag_list *d);

#endif
