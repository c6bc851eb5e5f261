#!/usr/bin/env python3
"""restyle.py — rewrites a PolyBench/C 4.2.1 kernel file into another style of C, at test time
(tests/cli/import_restyle.sh), so that the importer is checked on PolyBench's kernels written
as the field's other codes write them:

  main     the kernel's body moved into main in place of its call (the region in main; the
           arrays stay main's heap arrays, read as (*A)[i][j] through a #define around it)
  globals  the same, with the arrays global (static, of the dataset's sizes) instead of heap

Usage: restyle.py STYLE IN.c OUT.c.  Exits 1 (with a message) when the file is not in the shape
expected (a `static void kernel_X(..) { .. }` called once from main).  A rewrite may not be valid
C (deriche's global y1 is also math.h's Bessel function): the test builds it first."""
import re
import sys


def balanced(s, i, open_c, close_c):
    """The index just past the bracket matching s[i] (an open_c)."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == open_c:
            depth += 1
        elif s[j] == close_c:
            depth -= 1
            if depth == 0:
                return j + 1
    raise ValueError("unbalanced")


def split_top(s):
    """s split at its top-level commas."""
    out, depth, cur = [], 0, ""
    for c in s:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def param_name(p):
    m = re.match(r".*POLYBENCH_\dD\(\s*(\w+)", p)
    if m:
        return m.group(1), True
    return re.findall(r"\w+", p)[-1], False


def main():
    style, src_path, out_path = sys.argv[1:4]
    s = open(src_path).read()
    m = re.search(r"(?:static\s+)?void\s+(kernel_\w+)\s*\(", s)
    if not m:
        sys.exit("no void kernel_X(")
    name = m.group(1)
    p_open = m.end() - 1
    p_close = balanced(s, p_open, "(", ")")
    params = [param_name(p) for p in split_top(s[p_open + 1:p_close - 1])]
    b_open = s.index("{", p_close)
    b_close = balanced(s, b_open, "{", "}")
    body = s[b_open + 1:b_close - 1]
    s = s[:m.start()] + s[b_close:]
    c = re.search(r"\n([ \t]*)" + name + r"\s*\(", s)
    if not c:
        sys.exit("no call of " + name)
    a_open = s.index("(", c.end() - 1)
    a_close = balanced(s, a_open, "(", ")")
    end = s.index(";", a_close) + 1
    args = split_top(s[a_open + 1:a_close - 1])
    if len(args) != len(params):
        sys.exit("the call's arguments do not match the parameters")
    pre, post = [], []
    for (pname, is_array), arg in zip(params, args):
        am = re.match(r"POLYBENCH_ARRAY\(\s*(\w+)\s*\)$", arg)
        given = am.group(1) if am else arg
        if is_array and style == "main":
            target = "(*%s)" % given
        else:
            target = given
        if target != pname:
            pre.append("#define %s %s" % (pname, target))
            post.append("#undef %s" % pname)
    inline = "\n".join(pre) + "\n" + body.strip("\n") + "\n" + "\n".join(post) + "\n"
    s = s[:c.start() + 1] + inline + s[end:]
    if style == "globals":
        decls = []
        def to_global(dm):
            n = int(dm.group(1))
            parts = split_top(dm.group(2))
            arr, typ, dims = parts[0], parts[1], parts[2:2 + n]
            decls.append("static %s %s%s;" % (typ, arr, "".join("[%s]" % d for d in dims)))
            return ""
        s = re.sub(r"POLYBENCH_(\d)D_ARRAY_DECL\(([^;]*)\);", to_global, s)
        s = re.sub(r"POLYBENCH_FREE_ARRAY\(\s*\w+\s*\);", "", s)
        at = re.search(r"\n(static\s+)?void\s", s).start() + 1   # before the first function
        s = s[:at] + "#undef POLYBENCH_ARRAY\n#define POLYBENCH_ARRAY(x) x\n" + "\n".join(decls) + "\n\n" + s[at:]
    open(out_path, "w").write(s)


main()
