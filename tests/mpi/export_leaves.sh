#!/usr/bin/env bash
# tests/mpi/export_leaves.sh — the four LU leaves (STM1/STM2 x blocked/cyclic, procs=4), a
# block-cyclic LU leaf, matmul and jacobi1d exported as C+MPI: at every rank count each node
# supports among 1, 2, 3, 4, 8 they build with -Wall -Wextra -Werror and print the checksum of
# `polyapm sim`.  LU's sends change with t, so auto picks the alltoallv records; jacobi1d's are a halo.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$(dirname "$0")/export.inc"
EX=$ROOT/examples
sed 's/^param n = 64$/param n = 12, procs = 4/' "$EX/lu.apm" >"$TMP/lu.apm"
for m in "stm1:theta.L=2*(j-1) sigma.L=i theta.U=2*(i-1)+1 sigma.U=j" "stm2:theta=i+j-2 sigma=i"; do
    for k in blocked cyclic; do
        name="lu ${m%%:*} $k"
        if chain "$TMP/lu.apm" "${m#*:}" "kind=$k procs=4"; then ok "$name: the chain applies"
        else fail "$name: the chain applies" "see above"; continue; fi
        every_rank_count "$name" 5
    done
done
P export 5 -o "$TMP/lu-out" >"$TMP/out" 2>&1
expect_match "lu: its sends change with t, auto takes the alltoallv records" "$(cat "$TMP/out")" "C\+MPI, alltoallv"
P export 5 -o "$TMP/lu-halo" --exchange halo >/dev/null 2>"$TMP/err"
expect_eq "lu --exchange halo: refused" "$?" 1
# (the leaf's u is pieced — the halo needs one box per processor — and its partner sets change
# with t: either reason is given)
expect_match "lu --exchange halo: says why" "$(cat "$TMP/err")" "not static: the send at [0-9]+:[0-9]+|array u is sent and its dist has pieces"
chain "$TMP/lu.apm" "theta=i+j-2 sigma=i" "kind=blockcyclic bs=2 procs=4" && ok "lu stm2 blockcyclic: the chain applies"
every_rank_count "lu stm2 blockcyclic bs=2" 5

sed 's/^param n = 64$/param n = 12, procs = 4/' "$EX/matmul.apm" >"$TMP/mm.apm"
chain "$TMP/mm.apm" "theta=i sigma=j" "kind=blocked procs=4" && ok "matmul: the chain applies"
every_rank_count "matmul" 5
sed 's/^param n = 1000, steps = 100$/param n = 40, steps = 10, procs = 4/' "$EX/jacobi1d.apm" >"$TMP/jac.apm"
# the relcoord leaf (node 6): local indexing, as careful exported code has it
chain "$TMP/jac.apm" "theta=t sigma=i" "kind=blocked procs=4" relcoord && ok "jacobi1d: the chain applies (relcoord leaf)"
every_rank_count "jacobi1d" 6
P export 6 -o "$TMP/jac-out" >"$TMP/out" 2>&1
expect_match "jacobi1d: a static partner set, auto takes the halo" "$(cat "$TMP/out")" "C\+MPI, halo"
finish
