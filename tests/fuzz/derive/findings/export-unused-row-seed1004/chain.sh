# derive fuzzer seed 1004: node 7 -np 3: the export does not build
# replay: POLYAPM=/path/to/polyapm sh chain.sh (in a scratch copy of this directory)
set -x
rm -rf ws.pdg
"$POLYAPM" init program.apm -o ws.pdg
"$POLYAPM" -w ws.pdg apply 1 stm auto pick=1
"$POLYAPM" -w ws.pdg apply 2 tile kind=block2d procs=3
"$POLYAPM" -w ws.pdg apply 1 stm auto pick=3
"$POLYAPM" -w ws.pdg apply 3 tile kind=cyclic procs=3
"$POLYAPM" -w ws.pdg apply 4 commgen
"$POLYAPM" -w ws.pdg apply 5 memdist
"$POLYAPM" -w ws.pdg run 6 -np 3 --json
"$POLYAPM" -w ws.pdg apply 6 relcoord
"$POLYAPM" -w ws.pdg run 7 -np 3 --json
