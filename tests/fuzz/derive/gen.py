#!/usr/bin/env python3
"""tests/fuzz/derive/gen.py — small random affine programs in polyapm's source language, one per
seed (the same seed always gives the same program): the raw material of the derive-and-export
fuzzer (fuzz_derive.py).

    gen.py SEED        prints the program

Families (one is picked per seed): stencils over time, single assignment (a time dimension) or in
place (Gauss-Seidel-like updates of one array); inner reductions (sum, max, min over a range that
may be triangular); triangular loop nests with a recurrence along a row; a scalar accumulated in
place; a matrix product accumulated in place.  Arrays have 1-3 dimensions, elements int or double; parameters are small (n <= 8), with
procs = 1..4 so that every program can be tiled and exported.
"""
import random
import sys

NAMES = "xyz"


def subscript(idx, offs):
    """[x - 1][y] for idx [x, y] and offsets [-1, 0]."""
    return "".join("[%s]" % (v if o == 0 else "%s %s %d" % (v, "+" if o > 0 else "-", abs(o))) for v, o in zip(idx, offs))


class Gen:
    """One program's choices, all drawn from one random.Random(seed)."""

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.seed = seed

    def typ(self):
        return self.r.choice(["double", "double", "int"])

    def coef(self):
        return self.r.choice([1, 1, 2, 3, -1, 5])

    def init_expr(self, idx, typ):
        """An initial value: an affine hash of the indices, modulo a small prime."""
        terms = " + ".join("%s * %d" % (v, self.r.choice([3, 5, 7, 11, 13])) for v in idx) or "1"
        e = "(%s + %d) %% %d" % (terms, self.r.randint(0, 9), self.r.choice([7, 11, 13, 17]))
        if typ == "double" and self.r.random() < 0.3:
            e = "%s - %d" % (e, self.r.randint(1, 5))
        return e

    def combine(self, terms, typ):
        """A right-hand side from read terms: a weighted sum, averaged (double) or reduced (int)."""
        parts = []
        for t in terms:
            c = self.coef()
            parts.append(t if c == 1 else "%d * %s" % (c, t))
        e = " + ".join(parts).replace("+ -1 * ", "- ")
        if typ == "double":
            return "(%s) / %d" % (e, self.r.choice([2, 3, 4, 8]))
        return "(%s) %% %d" % (e, self.r.choice([101, 997, 65521]))

    def header(self, name, params):
        return ["program %s" % name, "level source",
                "param " + ", ".join("%s = %d" % kv for kv in params)]

    def params(self, steps=True):
        p = [("n", self.r.randint(5, 8))]
        if steps:
            p.append(("steps", self.r.randint(2, 4)))
        p.append(("procs", self.r.randint(1, 4)))
        return p

    # ---- families --------------------------------------------------------------------------

    def stencil_sa(self):
        """a[t][x..] from a[t-1][x+o..]: a boundary statement and an interior stencil."""
        d = self.r.randint(1, 2 if self.r.random() < 0.8 else 3)
        typ = self.typ()
        idx = list(NAMES[:d])
        dims = "".join("[0 .. n - 1]" for _ in idx)
        sub = lambda offs: subscript(idx, offs)
        lines = self.header("sten%dsa" % d, self.params())
        lines += ["array a[0 .. steps]%s %s" % (dims, typ),
                  "init a[0]%s = %s" % ("".join("[%s]" % v for v in idx), self.init_expr(idx, typ)),
                  "output a[steps]", "",
                  "for t = 1 .. steps, %s {" % ", ".join("%s = 0 .. n - 1" % v for v in idx)]
        border = " || ".join("%s == 0 || %s == n - 1" % (v, v) for v in idx)
        terms = set()
        while len(terms) < self.r.randint(2, 4):
            terms.add(tuple(self.r.choice([-1, 0, 1]) for _ in idx))
        reads = ["a[t - 1]%s" % sub(o) for o in sorted(terms)]
        lines += ["  if %s {" % border, "    B: a[t]%s = a[t - 1]%s" % (sub([0] * d), sub([0] * d)), "  } else {",
                  "    S: a[t]%s = %s" % (sub([0] * d), self.combine(reads, typ)), "  }", "}"]
        return lines

    def stencil_inplace(self):
        """a[x] updated in place over time steps from its neighbours (old and new values)."""
        d = self.r.randint(1, 2)
        typ = self.typ()
        idx = list(NAMES[:d])
        sub = lambda offs: subscript(idx, offs)
        lines = self.header("sten%dip" % d, self.params())
        lines += ["array a%s %s" % ("".join("[0 .. n - 1]" for _ in idx), typ),
                  "init a%s = %s" % ("".join("[%s]" % v for v in idx), self.init_expr(idx, typ)),
                  "output a", "",
                  "for t = 1 .. steps, %s {" % ", ".join("%s = 1 .. n - 2" % v for v in idx)]
        terms = set()
        while len(terms) < self.r.randint(2, 3):
            terms.add(tuple(self.r.choice([-1, 0, 1]) for _ in idx))
        reads = ["a%s" % sub(o) for o in sorted(terms)]
        lines += ["  S: a%s = %s" % (sub([0] * d), self.combine(reads, typ)), "}"]
        return lines

    def reduction(self):
        """c[i] or c[i][j] = red(k = lo .. hi) a[..k..] * b[..k..], maybe followed by a use of c."""
        d = self.r.randint(1, 2)
        typ = self.typ()
        op = self.r.choice(["sum", "sum", "max", "min"])
        tri = self.r.random() < 0.5
        lines = self.header("red%d%s" % (d, "tri" if tri else ""), self.params(steps=False))
        lines += ["array a[0 .. n - 1][0 .. n - 1] %s" % typ, "array b[0 .. n - 1] %s" % typ,
                  "array c%s %s" % ("[0 .. n - 1]" * d, typ),
                  "init a[i][j] = %s" % self.init_expr(["i", "j"], typ),
                  "init b[i] = %s" % self.init_expr(["i"], typ)]
        hi = "i" if tri else "n - 1"
        if d == 1:
            body = ["  C: c[i] = %s(k = 0 .. %s) a[i][k] * b[k]" % (op, hi)]
            loops = "i = 0 .. n - 1"
        else:
            body = ["  C: c[i][j] = %s(k = 0 .. %s) a[i][k] * a[k][j] + b[j]" % (op, hi)]
            loops = "i = 0 .. n - 1, j = 0 .. n - 1"
        second = self.r.random() < 0.5
        if second:
            lines.append("array e[0 .. n - 1] %s" % typ)
            lines.append("output e")
        else:
            lines.append("output c")
        lines += ["", "for %s {" % loops] + body + ["}"]
        if second:
            cread = "c[i]" if d == 1 else "c[i][i]"
            cprev = "c[i - 1]" if d == 1 else "c[i - 1][i]"
            lines += ["for i = 0 .. n - 1 {", "  if i == 0 {", "    F: e[i] = %s" % cread, "  } else {",
                      "    G: e[i] = %s" % self.combine([cread, cprev], typ), "  }", "}"]
        return lines

    def triangular(self):
        """x[i][j] over a triangle, a recurrence along the row (j - 1) or down the column (i - 1)."""
        typ = self.typ()
        lower = self.r.random() < 0.5
        along_row = self.r.random() < 0.5
        lines = self.header("tri%s%s" % ("lo" if lower else "up", "row" if along_row else "col"),
                            self.params(steps=False))
        lines += ["array a[0 .. n - 1][0 .. n - 1] %s" % typ, "array x[0 .. n - 1][0 .. n - 1] %s" % typ,
                  "init a[i][j] = %s" % self.init_expr(["i", "j"], typ), "output x", ""]
        jr = "j = 0 .. i" if lower else "j = i .. n - 1"
        if along_row:
            first = "j == 0" if lower else "j == i"
            prev = "x[i][j - 1]"
        else:
            first = "j == i" if lower else "i == 0"  # row i - 1 of a lower triangle ends at j = i - 1
            prev = "x[i - 1][j]"
        lines += ["for i = 0 .. n - 1, %s {" % jr, "  if %s {" % first, "    F: x[i][j] = a[i][j]", "  } else {",
                  "    R: x[i][j] = %s" % self.combine([prev, "a[i][j]"], typ), "  }", "}"]
        return lines

    def scalar(self):
        """s accumulated in place over an array (a chain in time), and a read-only scalar w in a map."""
        typ = self.typ()
        lines = self.header("scal", self.params(steps=False))
        lines += ["array a[0 .. n - 1] %s" % typ, "array s %s" % typ, "array w %s" % typ,
                  "array y[0 .. n - 1] %s" % typ,
                  "init a[i] = %s" % self.init_expr(["i"], typ), "init s = %d" % self.r.randint(0, 3),
                  "init w = %d" % self.r.randint(1, 5), "output y", "output s", "",
                  "for i = 0 .. n - 1 {", "  S: s = %s" % self.combine(["s", "a[i]"], typ),
                  "  Y: y[i] = %s" % self.combine(["a[i]", "w"], typ), "}"]
        return lines

    def product(self):
        """c[i][j] accumulated in place along k (a matrix product, the shape local's jam= and regs= make
        register tiles of), after a scaling of c; its term sometimes reads c at another element along k
        (no register tile may hold it) or adds rather than multiplies."""
        typ = self.typ()
        lines = self.header("prod", self.params(steps=False))
        lines += ["array a[0 .. n - 1][0 .. n - 1] %s" % typ, "array b[0 .. n - 1][0 .. n - 1] %s" % typ,
                  "array c[0 .. n - 1][0 .. n - 1] %s" % typ,
                  "init a[i][j] = %s" % self.init_expr(["i", "j"], typ),
                  "init b[i][j] = %s" % self.init_expr(["i", "j"], typ),
                  "init c[i][j] = %s" % self.init_expr(["i", "j"], typ), "output c", ""]
        term = self.r.choice(["a[i][k] * b[k][j]", "a[i][k] * b[k][j]", "a[i][k] * c[k][j]", "a[i][k] + b[k][j]"])
        if typ == "int":
            term = "(%s) %% 13" % term
        lines += ["for i = 0 .. n - 1, j = 0 .. n - 1 {", "  S: c[i][j] = %s" % self.combine(["c[i][j]"], typ), "}",
                  "for i = 0 .. n - 1, k = 0 .. n - 1, j = 0 .. n - 1 {", "  P: c[i][j] = c[i][j] + %s" % term, "}"]
        return lines

    FAMILIES = ["stencil_sa", "stencil_sa", "stencil_inplace", "reduction", "reduction", "triangular", "scalar",
                "product"]

    def program(self):
        fam = self.r.choice(self.FAMILIES)
        lines = ["# derive fuzzer, seed %d (%s)" % (self.seed, fam)] + getattr(self, fam)()
        return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen.py SEED")
    sys.stdout.write(Gen(int(sys.argv[1])).program())


if __name__ == "__main__":
    main()
