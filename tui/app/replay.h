/*
 * replay.h — a derivation re-applied to a changed source: the steps of the path from a node's
 * source (store_reference) down to the node, each a transform with its parameters as stored on
 * its edge, applied again under a new source program, each result simulated and verified
 * against that new source.  And the same path written out as a shell script of `polyapm apply`
 * lines.  Used by `polyapm replay`, `polyapm script` and the TUI.
 *
 * Errors are values: -1 with a message in the diag_list.
 */
#ifndef POLYAPM_REPLAY_H
#define POLYAPM_REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "store.h"

/* One line of progress (a step replayed, or where and why the replay stopped). */
typedef void (*replay_note_fn)(void *ctx, const char *line);

typedef struct replay_result {
    int64_t source;          /* the new source's node */
    int64_t leaf;            /* the last node replayed and verified (the source when none) */
    int steps, done;         /* steps on the path after its source; replayed and verified */
} replay_result;

/* Adds `text` (a program at the level of node's source; `name` names it in labels and messages)
 * as a child of node's source with edge STORE_REPLAY_EDGE, then re-applies the path's steps one
 * by one, simulating each child (the default machine profile, machine.h; the program's own parameters).  Stops at the first
 * step that is not a transform (a hand edit), no longer applies or no longer verifies; a node it
 * created for that step is removed, the steps before it are kept.  0 when every step was
 * replayed, 1 when it stopped (the reason in `d`, *r filled either way), -1 on an error before
 * any step (nothing written). */
int replay_onto(store *s, int64_t node, const char *text, size_t len, const char *name,
                replay_note_fn note, void *ctx, replay_result *r, diag_list *d);

/* Writes the path from node's source to node as a POSIX shell script: one `polyapm apply` per
 * step, starting from the node given as the script's first argument (default ROOT), each
 * taking the id the previous one printed; a step that is not a transform is written as a
 * comment and ends the script with an error.  `ws` is printed in its header. */
int replay_script(store *s, int64_t node, const char *ws, FILE *out, diag_list *d);

/* An edge's stored parameter text ("kind=blocked procs=2", space-joined as ops_apply stores it)
 * split back into its key=value arguments: a new argument starts at a space followed by a key
 * and '=' (values may hold spaces).  *argv (malloc'd, one block with the strings) to free;
 * returns the count, -1 when out of memory. */
int replay_split_params(const char *params, own_give char ***argv);

#endif
