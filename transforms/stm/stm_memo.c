/*
 * stm_memo.c — the programs of the mappings stm generated lately.
 *
 * stm auto generates the step nest of each candidate to check and measure it (stm.c's codegen:
 * the hull of the mapping's image is most of the work, seconds for a program of many
 * statements), and explore then applies the candidates it tries, each with a fresh session that
 * generated the same program again.  So the last STM_MEMO programs are kept by their source
 * (its canonical text and the parameter overrides: everything the session's model is built
 * from) and the mapping's arguments, and a copy is handed out.  Only programs generated to the
 * end are kept, and none is handed out under an isl operation quota (stm auto's check): there the
 * work is what is measured, and a mapping it refuses must stay refused.
 */
#include <stdlib.h>
#include <string.h>

#include "stm_int.h"

enum { STM_MEMO = 16 };

typedef struct memo_entry { char *key; ir_program *prog; } memo_entry;
static memo_entry memo[STM_MEMO];
static int memo_next;

char *xf_stm_memo_source(const ir_program *src, const ir_binding *ov, int nov)
{
    char *text = ir_print(src);
    strbuf b = {0};
    strbuf_printf(&b, "%s\n", text ? text : "");
    free(text);
    for (int i = 0; i < nov; i++) strbuf_printf(&b, "-D %s=%lld\n", ov[i].name, (long long)ov[i].value);
    return strbuf_take(&b);
}

/* The key of the mapping `args` on the source `source` (a fresh string). */
static char *memo_key(const char *source, const xf_args *args)
{
    strbuf b = {0};
    strbuf_printf(&b, "%s", source);
    for (int i = 0; i < args->n; i++) {
        const xf_arg *a = &args->items[i];
        strbuf_printf(&b, "%s%s%s=%s\n", a->key, a->label ? "." : "", a->label ? a->label : "", a->value);
    }
    return strbuf_take(&b);
}

ir_program *xf_stm_memo_get(const char *source, const xf_args *args, const ir_program *src, diag_list *d)
{
    char *key = memo_key(source, args);
    ir_program *out = NULL;
    for (int e = 0; e < STM_MEMO && !out; e++) {
        if (!memo[e].key || strcmp(memo[e].key, key) != 0) continue;
        out = ir_program_clone(memo[e].prog);
        out->file = src->file ? ir_strdup(out, src->file) : NULL;
        if (xf_check_generated("stm", out, d) != 0) out = NULL;   /* freed there */
    }
    free(key);
    return out;
}

void xf_stm_memo_put(const char *source, const xf_args *args, const ir_program *out)
{
    memo_entry *me = &memo[memo_next];
    memo_next = (memo_next + 1) % STM_MEMO;
    free(me->key);
    ir_program_free(me->prog);
    me->key = memo_key(source, args);
    me->prog = ir_program_clone(out);
}
