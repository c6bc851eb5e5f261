#!/usr/bin/env bash
# `polyapm explore --at` in the C file's own words (issue 30 item 2): a program imported from C
# records the command that imports it again (`# imported with:`, paths absolute, quoted for the
# shell), and --at takes a PolyBench dataset (LARGE or LARGE_DATASET) or a macro of the file
# (SIZE=80), whose sizes come from importing the file again with it; a name the file does not
# use, or one given to a program not imported from C, is an error that says so.
source "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/polybench/kernels.inc"   # pb_dir
cd "$TMP"
mkdir -p "dir with space"
cat >"dir with space/it's.c" <<'EOF'
#ifndef SIZE
#define SIZE 20
#endif
static double a[4 * SIZE], b[4 * SIZE];
int main(void)
{
    int n = SIZE, steps = 3;
    for (int i = 0; i < n; i++) a[i] = (i % 4) * 0.5;
#pragma scop
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            b[i] = (a[i - 1] + a[i + 1]) / 2;
        for (int i = 1; i < n - 1; i++)
            a[i] = b[i];
    }
#pragma endscop
    return (int)b[1];
}
EOF
"$POLYAPM" init "dir with space/it's.c" -o c.pdg >/dev/null 2>init.err || fail "init of the C file" "$(cat init.err)"
line=$("$POLYAPM" -w c.pdg show ROOT --program | grep '^# imported with:')
expect_eq "the header records the command, the path absolute and quoted" "$line" \
    "# imported with: polyapm import '$TMP/dir with space/it'\\''s.c'"
at() { "$POLYAPM" -w "$1" explore ROOT -D procs=2 --budget 12 -q --json --at "$2" 2>"$TMP/at.err"; }
out=$(at c.pdg SIZE=80); rc=$?
expect_eq "--at SIZE=80 (a macro): exit 0, ranked at the sizes the file has then" \
    "$rc $(printf '%s' "$out" | json "j['rank_at']")" "0 n=80,steps=3"
out=$(at c.pdg SIZE=80,steps=7); rc=$?
expect_eq "--at SIZE=80,steps=7: a parameter given wins over the file's value" \
    "$rc $(printf '%s' "$out" | json "j['rank_at']")" "0 n=80,steps=7"
at c.pdg LARGE >/dev/null; rc=$?
expect_eq "--at LARGE where the file has no datasets: exit 1" "$rc" 1
expect_match "... saying the sizes did not change" "$(cat at.err)" \
    "--at LARGE: the C file imported again with it has the program's own sizes \(n=20,steps=3\)"
"$POLYAPM" init "$ROOT/examples/polybench/gemm.apm" -o apm.pdg >/dev/null
at apm.pdg LARGE >/dev/null; rc=$?
expect_eq "--at LARGE on a program written in the language: a usage error (exit 2)" "$rc" 2
expect_match "... saying what it takes" "$(cat at.err)" "--at takes name=integer"
rm "dir with space/it's.c"
at c.pdg SIZE=40 >/dev/null; rc=$?
expect_eq "the C file gone: exit 1" "$rc" 1
expect_match "... saying the import failed" "$(cat at.err)" "--at SIZE=40: importing the C file again .* failed"

PB=$(pb_dir)
if [ -z "$PB" ]; then
    echo "skip the PolyBench datasets: PolyBench/C 4.2.1 not found (set POLYBENCH_DIR)"
else
    "$POLYAPM" init "$PB/linear-algebra/blas/gemm/gemm.c" -I "$PB/utilities" -D MINI_DATASET \
        -D DATA_TYPE_IS_DOUBLE -o pb.pdg >/dev/null
    for name in LARGE MEDIUM_DATASET; do
        out=$(at pb.pdg $name); rc=$?
        want=$(cd "$TMP" && "$POLYAPM" import "$PB/linear-algebra/blas/gemm/gemm.c" -I "$PB/utilities" \
            -D ${name%_DATASET}_DATASET -D DATA_TYPE_IS_DOUBLE | sed -n 's/^param \([a-z]*\) = \([0-9]*\)$/\1=\2/p' |
            paste -sd,)
        expect_eq "gemm --at $name: exit 0, ranked at PolyBench's $name sizes ($want)" \
            "$rc $(printf '%s' "$out" | json "j['rank_at']")" "0 $want"
    done
fi
finish
