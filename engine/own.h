/*
 * own.h — ownership at the parameter, for our own heap objects (programs, malloc'd strings,
 * result structs), in the manner of isl's __isl_give / __isl_take / __isl_keep (isl/ctx.h),
 * which the isl objects themselves carry.  The macros are empty: they document, the compiler
 * ignores them.
 *
 *   own_give   on a return: the caller owns the result and frees it (ir_program_free, free,
 *              the matching *_free)
 *   own_take   on a parameter: the function consumes it (frees it, or links it into what it
 *              returns); the caller must not use or free it afterwards
 *   own_keep   on a parameter: the function only borrows it; the caller still owns it
 *   own_give   on an out-parameter (T **out): what the function stores there is the caller's;
 *              on a struct the function fills (T *out): what the struct then holds is the
 *              caller's, released by the matching *_clear (store.h)
 *
 * Ownership that depends on the outcome (freed only on failure) stays in the comment.
 * Unannotated pointers are borrowed (own_keep) unless the comment says otherwise.  Nodes of a
 * program (ir_expr, ir_stmt, ir_block, strings from ir_strdup) live in its arena: they are
 * never freed one by one, and own_take on such a node means it is linked into the result (it must
 * not be linked anywhere else afterwards, and may have been changed).
 */
#ifndef POLYAPM_OWN_H
#define POLYAPM_OWN_H

#define own_give
#define own_take
#define own_keep

#endif
