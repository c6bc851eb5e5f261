#!/usr/bin/env bash
# tests/cli/import_auto.sh — a C file without #pragma scop and without --function: the importer
# takes as the kernel the deepest loop nest of a function other than main that calls nothing but
# math.h (else main's), says which on its notes (FILE:LINE:COL: note: ... lines A-B in F) and in
# the program's header; --region line:L and --region K choose another of the file's loop nests;
# two nests equally good are an error that lists them (exit 1, nothing written), as is a file
# whose every loop calls something else.  -o a pipe writes through it (never renamed over).  tests/import/noscop_*.c check the values.
. "$(dirname "$0")/../lib.sh"
cd "$TMP"
cat >two.c <<'EOC'
#include <stdio.h>
#define N 10
double a[N][N], b[N][N], s;

void smooth(void)
{
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++)
            b[i][j] = (a[i - 1][j] + a[i + 1][j]) / 2;
}

void scale(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = 2 * b[i][j];
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = i - j;
    smooth();
    scale();
    for (int i = 0; i < N; i++)
        printf("%g\n", a[i][i]);
    return 0;
}
EOC
out=$("$POLYAPM" import two.c -o two.apm 2>&1)
expect_eq "two equally deep nests outside main: exit 1" "$?" 1
expect_match "... located at the second, listing both with their functions" "$out" \
    "^two\.c:14:5: error: no #pragma scop, and several loop nests could be the kernel: lines 7-9 \(smooth\), 14-16 \(scale\); choose one with --region line:L or --function F"
expect_eq "... nothing written" "$([ -e two.apm ] && echo yes || echo no)" no

out=$("$POLYAPM" import two.c --region line:15 -o scale.apm 2>&1)
expect_eq "--region line:15 chooses scale's nest (exit 0)" "$?" 0
expect_match "... its note says which" "$out" "^two\.c:14:5: note: no #pragma scop: the kernel is the loop nest of lines 14-16 in scale"
expect_match "... the program's header too" "$(cat scale.apm)" "^# two\.c, imported by polyapm import \(the loop nest of lines 14-16 of scale: no #pragma scop\)$"
expect_match "... its statement is scale's" "$(cat scale.apm)" "S1: a\[i\]\[j\] = 2 \* b\[i\]\[j\] # two\.c:16"
"$POLYAPM" import two.c --region 3 -o main3.apm >/dev/null 2>&1
expect_eq "--region 3: main's first nest (the loops are numbered in the file's order)" \
    "$(grep -c 'S1: a\[i\]\[j\] = i - j' main3.apm 2>/dev/null)" 1
"$POLYAPM" import two.c --region line:40 -o none.apm >err 2>&1
expect_eq "--region line:40, no nest there: exit 1" "$?" 1
expect_match "... says so" "$(cat err)" "--region line:40: no loop nest holds that line \(without #pragma scop, the file's loop nests are its regions: it has 3\)" # the printing loop is none
"$POLYAPM" import two.c --function smooth -o smooth.apm >/dev/null 2>&1
expect_match "--function smooth: its body, as before" "$(cat smooth.apm)" "S1: b\[i\]\[j\] = \(a\[i - 1\]\[j\] \+ a\[i \+ 1\]\[j\]\) / 2"

cat >prints.c <<'EOC'
#include <stdio.h>
int main(void)
{
    for (int i = 0; i < 3; i++)
        printf("%d\n", i);
    return 0;
}
EOC
out=$("$POLYAPM" import prints.c -o prints.apm 2>&1)
expect_eq "a file whose only loop prints: exit 1" "$?" 1
expect_match "... says there is no region nor loop nest to take" "$out" \
    "^prints\.c:1:1: error: no #pragma scop \.\. #pragma endscop region, and no loop nest that calls nothing but math functions"
expect_eq "... nothing written" "$([ -e prints.apm ] && echo yes || echo no)" no

# -o names something other than a regular file (a pipe here; /dev/null alike): written through,
# never replaced by a file renamed over it
mkfifo pipe
timeout 10 cat pipe >piped.apm &   # a reader that gives up if nothing opens the pipe
"$POLYAPM" import two.c --region line:15 -o pipe 2>/dev/null
wait
expect_eq "-o a named pipe: the program goes through it" "$(cmp -s piped.apm scale.apm && echo same)" same
expect_eq "... and it stays a pipe" "$([ -p pipe ] && echo pipe || echo replaced)" pipe
finish
