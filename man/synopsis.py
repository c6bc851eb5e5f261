#!/usr/bin/env python3
"""man/synopsis.py — the roff SYNOPSIS lines of man/polyapm.1, generated from `polyapm --help`
(whose synopsis comes from the commands' option tables, tui/cli/optable.h).

    python3 man/synopsis.py build/polyapm

prints one block per command form ('.B polyapm NAME', its arguments and options, '.br'), in the
style of the manual: options bold, values italic, keyword choices (auto|halo) bold.  Paste it over
the command blocks of the SYNOPSIS; tests/cli/options.sh checks that every option is there."""
import re
import subprocess
import sys


def synopsis_lines(polyapm):
    text = subprocess.run([polyapm, '--help'], capture_output=True, text=True, check=True).stdout
    lines, on = [], False
    for line in text.splitlines():
        if line.startswith('synopsis'):
            on = True
        elif on and not line.strip():
            break
        elif on and line.startswith('  polyapm '):
            lines.append(line.strip())
        elif on:
            lines[-1] += ' ' + line.strip()
    return lines


def words(s):
    """Splits at spaces outside brackets: '[-D name=value]...' is one word."""
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch == ' ' and depth == 0:
            if cur:
                out.append(cur)
            cur = ''
            continue
        depth += (ch == '[') - (ch == ']')
        cur += ch
    return out + ([cur] if cur else [])


def value_segments(v):
    """'name=value' -> name, =, value; 'a|b' -> a, |, b: (font, text) pairs."""
    keyword = '|' in v and all(re.fullmatch(r'[a-z0-9-]+', a) for a in v.split('|'))
    segs = []
    for p in re.split(r'([=|])', v):
        if p in ('=', '|'):
            segs.append(('R', p))
        elif p:
            segs.append(('B' if keyword else 'I', p))
    return segs


def emit(segs):
    """(font, text) pairs as roff lines, each an alternating-font macro (.RB, .IR, ...)."""
    merged = []
    for f, t in segs:
        if merged and merged[-1][0] == f:
            merged[-1] = (f, merged[-1][1] + t)
        elif t:
            merged.append((f, t))
    res, i = [], 0
    while i < len(merged):
        run, fonts, j = [merged[i]], {merged[i][0]}, i + 1
        while j < len(merged) and (merged[j][0] in fonts or len(fonts) < 2):
            fonts.add(merged[j][0])
            run.append(merged[j])
            j += 1
        if len(run) == 1:
            res.append('.%s %s' % run[0] if run[0][0] != 'R' else run[0][1])
        else:
            res.append('.%s%s %s' % (run[0][0], run[1][0], ' '.join(t for _, t in run)))
        i = j
    return res


def block(line):
    w = words(line)
    out = ['.B polyapm %s' % w[1]]
    for t in w[2:]:
        pre = post = ''
        if t.startswith('['):
            k = t.rindex(']')
            pre, post, t = '[', t[k:], t[1:k]
        if t.startswith('-'):                      # an option, with its value on a line of its own
            opt, _, val = t.partition(' ')
            if not val:
                out += emit([('R', pre), ('B', opt), ('R', post)])
                continue
            out += emit([('R', pre), ('B', opt)])
            out += emit(value_segments(val) + [('R', post)])
            continue
        dots = ''
        if t.endswith('...') and not t.endswith(',...'):
            t, dots = t[:-3], '...'
        segs = value_segments(t)
        if dots:
            segs.append(('I' if segs[-1][0] == 'I' and not post else 'R', dots))
        out += emit([('R', pre)] + segs + [('R', post)])
    # "..." ends no sentence: no wider space after it
    return [l + '\\&' if l.endswith('...') else l for l in out] + ['.br']


if __name__ == '__main__':
    for line in synopsis_lines(sys.argv[1] if len(sys.argv) > 1 else 'build/polyapm'):
        print('\n'.join(block(line)))
