# tests/mpi/export_lib.sh — shared by the export suites (sourced after tests/lib.sh and mpi.inc; not a
# suite itself): build a derivation chain in a fresh workspace, and check a leaf under mpirun at
# every rank count it supports.
#   chain SRC.apm STM-ARGS TILE-ARGS [relcoord]   workspace $WS with nodes 1..5 (6 = relcoord)
#   every_rank_count NAME NODE                      for P in 1 2 3 4 8: when `sim -D procs=P` is
#        verified, `run NODE -np P` must print the simulation's checksum; otherwise run refuses
P() { "$POLYAPM" -w "$WS" "$@"; }
chain() {
    WS=$TMP/$(basename "$1" .apm)-$RANDOM.pdg
    "$POLYAPM" init "$1" -o "$WS" >/dev/null || return 1
    P apply ROOT stm $2 >/dev/null && P apply 2 tile $3 >/dev/null &&
        P apply 3 commgen >/dev/null && P apply 4 memdist >/dev/null || return 1
    if [ "${4:-}" = relcoord ]; then P apply 5 relcoord >/dev/null || return 1; fi
}
every_rank_count() {
    local name=$1 node=$2 np out supported=""
    for np in 1 2 3 4 8; do
        if [ "$(P sim "$node" -D procs=$np --json 2>/dev/null | json "j['verified'] and j['violations_total'] == 0" 2>/dev/null)" != True ]; then
            P run "$node" -np $np >/dev/null 2>&1
            expect_eq "$name: procs=$np not verified by the simulation, so run refuses" "$?" 1
            continue
        fi
        supported="$supported $np"
        out=$(P run "$node" -np $np --json 2>&1)
        expect_eq "$name -np $np: builds with -Werror, runs, prints the simulation's checksum" \
            "$(printf '%s' "$out" | tail -1 | json "j['match'] and j['ranks'] == $np" 2>/dev/null || printf '%s' "$out" | tail -5)" True
    done
    if [ -n "$supported" ]; then echo "# $name: rank counts run:$supported"
    else fail "$name: some rank count runs" "no rank count among 1 2 3 4 8 is verified by the simulation"; fi
}
