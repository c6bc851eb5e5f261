/*
 * rt_collective.c — what exported collectives need beyond a plain MPI call: user-defined and
 * fused operators (MPI_Op_create with the operator's commute flag) and the exclusive scan with
 * rank 0 set to the operator's identity (MPI_Exscan leaves it undefined).
 */
#include "rt.h"

#include <string.h>

MPI_Op rt_op_create(MPI_User_function *fn, int commute)
{
    MPI_Op op;
    RT_CHECK(MPI_Op_create(fn, commute ? 1 : 0, &op));
    return op;
}

void rt_op_free(MPI_Op *op)
{
    RT_CHECK(MPI_Op_free(op));
}

void rt_exscan(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
               const void *ident, MPI_Comm comm)
{
    RT_CHECK(MPI_Exscan(send, recv, count, type, op, comm));
    if (rt_rank(comm) == 0) {
        MPI_Aint lb, extent;
        RT_CHECK(MPI_Type_get_extent(type, &lb, &extent));
        memcpy(recv, ident, (size_t)count * (size_t)extent);
    }
}
