#!/usr/bin/env bash
# tests/cli/ownership.sh — ownership at the parameter (engine/own.h, isl's own annotations): every
# prototype in transforms/'s headers, public and private (and every function pointer member there) with an isl object pointer among its
# parameters or as its result carries isl's __isl_give / __isl_take / __isl_keep on it; own.h's
# macros stay empty and are not isl's.  Fails when someone adds an unannotated one.
#   tests/cli/ownership.sh [FILE..]   checks FILE.. instead of the headers (e.g. transforms/*.c)
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

# unannotated FILE..: one line "file:line: what" per isl pointer parameter without __isl_take /
# __isl_keep / __isl_give, and per isl pointer result without __isl_give.  Comments and strings
# are blanked first; only declarations outside function bodies count (struct members included).
unannotated() {
    python3 - "$@" <<'EOF'
import re, sys

ISL = re.compile(r'\bisl_\w+\s*\*')
ANN = re.compile(r'\b__isl_(take|keep|give)\b')

def blank(text):
    """Comments, strings, character literals and preprocessor lines as spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    bol = True
    while i < n:
        c = text[i]
        if bol and c == '#' or (bol and text[i:].lstrip(' \t').startswith('#') and c in ' \t'):
            j = i
            while j < n and (text[j] != '\n' or text[j - 1] == '\\'):
                j += 1
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
            continue
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            j += 1
        else:
            out.append(c)
            bol = c == '\n' or (bol and c in ' \t')
            i += 1
            continue
        out.append(re.sub(r'[^\n]', ' ', text[i:j]))
        bol = False
        i = j
    return ''.join(out)

def groups(s):
    """The top-level parenthesised groups of s: (start, end) of their contents."""
    res, depth, start = [], 0, 0
    for k, c in enumerate(s):
        if c == '(':
            if depth == 0:
                start = k + 1
            depth += 1
        elif c == ')':
            depth -= 1
            if depth == 0:
                res.append((start, k))
    return res

def split_params(s):
    res, depth, cur = [], 0, ''
    for c in s:
        if c in '([':
            depth += 1
        elif c in ')]':
            depth -= 1
        if c == ',' and depth == 0:
            res.append(cur)
            cur = ''
        else:
            cur += c
    res.append(cur)
    return res

def check(path, frag, line, bad):
    g = groups(frag)
    if not g:
        return
    ret = frag[:g[0][0] - 1]
    params = g[0]
    if frag[g[0][0]:g[0][1]].strip().startswith('*') and len(g) > 1:   # (*name)(params)
        params = g[1]
    if '=' in ret or re.search(r'\b(return|if|while|for|switch|sizeof)\b', ret):
        return
    name = re.findall(r'\w+', frag[g[0][0]:g[0][1]] if params is not g[0] else ret)
    name = name[-1] if name else '?'
    if ISL.search(ret) and not re.search(r'\b__isl_give\b', ret):
        bad.append(f'{path}:{line}: {name}: isl result without __isl_give')
    for prm in split_params(frag[params[0]:params[1]]):
        if ISL.search(prm) and not ANN.search(prm):
            bad.append(f'{path}:{line}: {name}: parameter "{" ".join(prm.split())}" without __isl_take/keep/give')

def scan(path):
    text = blank(open(path, encoding='utf-8').read())
    bad, stack, frag, fstart, line = [], [], '', 1, 1
    for c in text:
        if not frag.strip():
            fstart = line
        if c == '\n':
            line += 1
        if c in '{;}':
            inside_body = 'body' in stack
            if not inside_body and c in '{;':
                check(path, frag, fstart, bad)
            if c == '{':
                g = groups(frag)
                stack.append('body' if g and frag.rstrip().endswith(')') and '=' not in frag[:g[0][0]]
                             else 'agg')
            elif c == '}' and stack:
                stack.pop()
            frag = ''
        else:
            frag += c
    return bad

bad = [b for p in sys.argv[1:] for b in scan(p)]
print('\n'.join(bad))
print('checked %d' % len(sys.argv[1:]), file=sys.stderr)
EOF
}

if [ $# -gt 0 ]; then
    files=("$@")
else
    mapfile -t files < <(find transforms -name '*.h' | sort)
    expect_match "ownership: transforms/ has headers to check" "${#files[@]}" '^[1-9][0-9]*$'
fi
out=$(unannotated "${files[@]}" 2>"$TMP/checked")
[ $# -gt 0 ] || expect_eq "ownership: every header find counts was checked" "$(cat "$TMP/checked")" \
    "checked $(find transforms -name '*.h' | wc -l | tr -d ' ')"
if [ -z "$out" ]; then
    ok "ownership: isl pointers annotated in ${#files[@]} files"
else
    fail "ownership: isl pointers annotated" "$(printf '%s\n' "$out" | head -40)"
fi

# the checker finds what it should: an unannotated parameter, a result, a callback member
printf '%s\n' '#include <isl/set.h>' 'isl_set *f(isl_set *s);' 'int g(__isl_keep isl_set *s);' \
    'typedef struct k { int (*cb)(isl_map *m, void *u); } k;' \
    '__isl_give isl_set *h(__isl_take isl_set *s, isl_map *m);' >"$TMP/probe.h"
probe=$(unannotated "$TMP/probe.h" 2>/dev/null)
expect_eq "ownership: the checker's findings on a probe" "$(printf '%s\n' "$probe" | wc -l | tr -d ' ')" 4
expect_match "ownership: unannotated result found" "$probe" 'probe.h:2: f: isl result'
expect_match "ownership: callback member found" "$probe" 'probe.h:4: cb: parameter "isl_map \*m"'

# own.h's macros are ours, empty, and isl's are not redefined
expect_eq "ownership: own.h defines own_give/own_take/own_keep empty" \
    "$(grep -cE '^#define own_(give|take|keep)$' engine/own.h)" 3
expect_eq "ownership: nothing redefines isl's macros" \
    "$(grep -lE '#define __isl_(give|take|keep)' $(find engine transforms -name '*.[ch]') | wc -l | tr -d ' ')" 0
finish
