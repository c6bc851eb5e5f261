#!/usr/bin/env python3
"""The elements each real processor of an LU leaf touches (reads or writes), counted straight from
the statements of examples/lu.apm and the leaf's mapping - an oracle for memdist's local memories,
independent of isl and of the dist it writes.

usage: lu_footprint.py stm1|stm2 blocked|cyclic|blockcyclic N PROCS  ->  a JSON list per processor
"""
import json
import sys

stm, tiling, n, procs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
b = (n - 1) // procs + 1


def rp_of(p):   # virtual processor p = 1 .. n (sigma = i or j)
    if tiling == "blocked":
        return (p - 1) // b
    if tiling == "cyclic":
        return (p - 1) % procs
    return ((p - 1) // 2) % procs   # blockcyclic bs=2


touched = [set() for _ in range(procs)]


def L(i, j, p):   # l[i][j] = a[i][j] - sum(k < j) l[i][k] * u[k][j]
    s = touched[rp_of(p)]
    s.update({("l", i, j), ("a", i, j)})
    for k in range(1, j):
        s.update({("l", i, k), ("u", k, j)})


def U(i, j, p):   # u[i][j] = (a[i][j] - sum(k < i) l[i][k] * u[k][j]) / l[i][i]
    s = touched[rp_of(p)]
    s.update({("u", i, j), ("a", i, j), ("l", i, i)})
    for k in range(1, i):
        s.update({("l", i, k), ("u", k, j)})


for i in range(1, n + 1):
    for j in range(1, n + 1):
        if j <= i:
            L(i, j, i)                               # sigma.L = i (both mappings)
        else:
            U(i, j, j if stm == "stm1" else i)       # sigma.U = j (STM1) or i (STM2)
print(json.dumps([len(s) for s in touched]))
