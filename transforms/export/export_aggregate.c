/*
 * export_aggregate.c — the exporter's part of the aggregation placement (place_aggregate.c): a
 * program that says `messages aggregate`, exported with the halo pattern, sets its patterns to
 * one message per partner (rt_pattern_aggregate, runtime/rt_pattern.c) before recording them: a
 * partner's message carries every array's elements of the step, packed into one buffer when it
 * holds several arrays, in place (a row, or a column as an MPI vector type) when it holds one.
 * The Alltoallv records need nothing: they already travel as one message per partner.
 */
#include "export_int.h"

void ex_aggregate_pattern(const ir_program *p, strbuf *b, int k)
{
    if (!p->aggregate) return;
    strbuf_printf(b, "    /* messages aggregate: one message per partner and step, every array's elements in it */\n"
                     "    rt_pattern_aggregate(pattern[%d]);\n", k);
}
