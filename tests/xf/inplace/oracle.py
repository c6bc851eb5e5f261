#!/usr/bin/env python3
"""The messages each step of an in-place kernel needs, worked out from the kernel by hand (not
from the generated program): for every value, the distinct real processors other than its
writer's that read it before it is overwritten.  Usage: oracle.py KERNEL n procs [steps].
Prints "step:messages" for every step that sends, as tests/xf/commgen_inplace.sh reads the trace."""
import sys
from collections import Counter

kernel, n, procs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
steps = int(sys.argv[4]) if len(sys.argv) > 4 else 0


def blocked(p0, p1):
    """tile kind=blocked: virtual processors p0 .. p1 in blocks of b = (p1 - p0) / procs + 1"""
    b = (p1 - p0) // procs + 1
    return lambda p: (p - p0) // b


msgs = Counter()   # step -> elements sent


def send(tt, writer, readers, elements=1):
    """a value (or `elements` of them) written at step tt by virtual processor `writer`, read by
    the virtual processors `readers`"""
    dst = {own(r) for r in readers} - {own(writer)}
    msgs[tt] += elements * len(dst)


if kernel in ("jacobi1d", "jacobi1d_ab"):            # theta.SB = 2t, theta.SA = 2t+1, sigma = i (1 .. n-2)
    own, last = blocked(1, n - 2), 2 * steps - 1
    for tt in range(last):           # both arrays alike: each value is read at tt+1 by i-1, i+1
        for i in range(1, n - 1):
            send(tt, i, [q for q in (i - 1, i + 1) if 1 <= q <= n - 2])
elif kernel in ("jacobi2d", "jacobi2d_ab"):          # the same, by rows: a row's values go to the rows beside it
    own, last = blocked(1, n - 2), 2 * steps - 1
    for tt in range(last):
        for i in range(1, n - 1):
            send(tt, i, [q for q in (i - 1, i + 1) if 1 <= q <= n - 2], n - 2)
elif kernel == "seidel2d":          # theta = 2t + i, sigma = i: row i at t is read by row i+1 at t
    own = blocked(1, n - 2)          # and by row i-1 at t+1
    for t in range(steps):
        for i in range(1, n - 1):
            readers = ([i + 1] if i + 1 <= n - 2 else []) + ([i - 1] if i - 1 >= 1 and t + 1 < steps else [])
            send(2 * t + i, i, readers, n - 2)
elif kernel == "trisolv":           # x[i] is final at step 2i+1 (XD); rows below read it
    own = blocked(0, n - 1)
    for i in range(n):
        send(2 * i + 1, i, range(i + 1, n))
elif kernel == "lu":                # theta 2k+1 (L, U), 2j (D), sigma = i; row 0 has no statement:
    own = blocked(1, n - 1)          # rows 1 .. n-1 are the processors
    for i in range(1, n):           # A[i][j], j >= i, is final after U at k = i-1 (step 2i-1)
        send(2 * i - 1, i, range(i + 1, n), n - i)      # and every row below reads it
elif kernel == "floyd":             # theta 3k (rows < k), 3k+1 (row k), 3k+2 (rows > k), sigma = i
    own = blocked(0, n - 1)
    for k in range(n):
        send(3 * k + 1, k, range(k + 1, n), n)          # row k, for the rows below at 3k+2
        if k + 1 < n:               # row k+1 as the rows > k leave it, for the rows <= k at k+1
            send(3 * k + 2, k + 1, range(0, k + 1), n)
elif kernel == "floyd-planes":      # theta = k, sigma = i: row k+1 of plane k+1 goes to every row
    own = blocked(0, n - 1)
    for k in range(n - 1):
        send(k, k + 1, range(n), n)
else:
    sys.exit("unknown kernel " + kernel)
print(" ".join("%d:%d" % (tt, msgs[tt]) for tt in sorted(msgs) if msgs[tt]))
