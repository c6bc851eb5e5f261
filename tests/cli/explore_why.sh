#!/usr/bin/env bash
# tests/cli/explore_why.sh — when explore's best leaf keeps the work on one processor, its report
# says which dependences forbid more: PolyBench's floyd-warshall imported from its C file without
# `--assume` (tests/xf/assume.sh has it with one) reaches leaves that run every sweep on one of
# the 2 processors, and the report, text and --json, names statement S1 and for each of its
# loops a flow dependence it carries — i the one through row k (path[k][j]), j the one through
# column k (path[i][k]) — numbered as `polyapm deps` numbers them, and points to `assume`.
# gemm, whose leaves spread the work, has no such report.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/polybench/kernels.inc"
PB=$(pb_dir)
[ -n "$PB" ] || { echo "skip explore_why: PolyBench/C 4.2.1 not found (set POLYBENCH_DIR)"; finish; }
cd "$TMP"

# explore_pb KERNEL-DIR WS: imported at MINI, explored as tests/polybench/c_all.sh does; the text
# report in WS.txt, the JSON one (the same search, from the store) in WS.json
explore_pb() {
    local k
    k=$(basename "$1")
    "$POLYAPM" init "$PB/$1/$k.c" -I "$PB/utilities" -D MINI_DATASET -D DATA_TYPE_IS_DOUBLE -o "$2" >/dev/null 2>"$2.err" ||
        { fail "$k: init" "$(head -3 "$2.err")"; return 1; }
    "$POLYAPM" -w "$2" explore ROOT -D procs=2 --budget 100 -q >"$2.txt" 2>&1 &&
        "$POLYAPM" -w "$2" explore ROOT -D procs=2 --budget 100 -q --json >"$2.json" 2>"$2.err" ||
        { fail "$k: explore" "$(tail -3 "$2.txt" "$2.err")"; return 1; }
}

if explore_pb medley/floyd-warshall fw.pdg; then
    txt=$(cat fw.pdg.txt)
    # the premise: every leaf's simulation has its work on one processor
    busy=""
    for id in $(json "' '.join(str(l['node']) for l in j['leaves'])" <fw.pdg.json); do
        busy+=$("$POLYAPM" -w fw.pdg sim "$id" --json | json "[len(j['work']), sum(w > 0 for w in j['work'])]")
    done
    expect_match "floyd-warshall: every leaf has its work on one of its 2 processors" "$busy" "^(\[2, 1\])+$"
    expect_match "floyd-warshall: the report says no leaf spreads the work" "$txt" "^no leaf spreads the work: each keeps it on one processor$"
    expect_match "... no loop of S1 can run in parallel" "$txt" "^  no loop of S1 can run in parallel: each carries a dependence$"
    expect_match "... loop k: a flow dependence of S1 through path" "$txt" "^    k: dependence [0-9]+ \(flow, S1 -> S1 through path\[[a-z]\]\[[a-z]\]\), e\.g\. S1\["
    expect_match "... loop i: the flow dependence through row k" "$txt" "^    i: dependence [0-9]+ \(flow, S1 -> S1 through path\[k\]\[j\]\), e\.g\. S1\["
    expect_match "... loop j: the flow dependence through column k" "$txt" "^    j: dependence [0-9]+ \(flow, S1 -> S1 through path\[i\]\[k\]\), e\.g\. S1\["
    expect_match "... and what an assume can say" "$txt" "an \`assume\` \(polyapm-lang\(5\)\) can state .*\`assume S1 unchanged when COND\`"
    expect_eq "--json: spread false, no leaf spreading it, S1's loops k, i, j with the references of their dependences" \
        "$(json "[j['spread'], j['spread_node'], [(s['statement'], [(l['var'], l['kind'], l['through']) for l in s['loops'][1:]]) for s in j['serial']], [l['var'] for l in j['serial'][0]['loops']]]" <fw.pdg.json)" \
        "[False, None, [('S1', [('i', 'flow', 'path[k][j]'), ('j', 'flow', 'path[i][k]')])], ['k', 'i', 'j']]"
    "$POLYAPM" -w fw.pdg deps ROOT --json >deps.json
    expect_eq "--json: each loop's dependence is the one \`polyapm deps\` numbers so (source, sink, kind, reference)" \
        "$(python3 -c "
import json
deps = {d['no']: d for d in json.load(open('deps.json'))['dependences']}
loops = json.load(open('fw.pdg.json'))['serial'][0]['loops']
print(all(l['dependence'] in deps and (deps[l['dependence']]['source'], deps[l['dependence']]['sink'], deps[l['dependence']]['kind'],
          deps[l['dependence']]['reference']) == (l['source'], l['sink'], l['kind'], l['through']) for l in loops))")" True
    n=$(grep -o '^    i: dependence [0-9]*' <<<"$txt" | awk '{print $3}')
    expect_eq "the text's dependence of loop i is the JSON's" "$n" "$(json "j['serial'][0]['loops'][1]['dependence']" <fw.pdg.json)"
fi

if explore_pb linear-algebra/blas/gemm gemm.pdg; then
    expect_eq "gemm: its best leaf spreads the work (--json: spread true, nothing serial)" \
        "$(json "[j['spread'], j['serial']]" <gemm.pdg.json)" "[True, []]"
    if grep -q "spreads the work\|can run in parallel" gemm.pdg.txt; then
        fail "gemm: the report says nothing of serial loops" "$(grep "spreads the work\|can run in parallel" gemm.pdg.txt)"
    else
        ok "gemm: the report says nothing of serial loops"
    fi
fi
finish
