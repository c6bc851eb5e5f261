# derive fuzzer seed 15104: node 5 -np 1: the export does not build; node 6 -np 1: the export does not build
# replay: POLYAPM=/path/to/polyapm sh chain.sh (in a scratch copy of this directory)
set -x
rm -rf ws.pdg
"$POLYAPM" init program.apm -o ws.pdg
"$POLYAPM" -w ws.pdg apply 1 stm auto pick=3
"$POLYAPM" -w ws.pdg apply 2 tile kind=blocked procs=1
"$POLYAPM" -w ws.pdg apply 3 commgen
"$POLYAPM" -w ws.pdg apply 4 memdist
"$POLYAPM" -w ws.pdg run 5 -np 1 --json
"$POLYAPM" -w ws.pdg apply 5 relcoord
"$POLYAPM" -w ws.pdg run 6 -np 1 --json
"$POLYAPM" -w ws.pdg apply 6 overlap width=2
"$POLYAPM" -w ws.pdg apply 2 tile kind=cyclic procs=1
"$POLYAPM" -w ws.pdg apply 7 commgen
"$POLYAPM" -w ws.pdg apply 8 memdist
"$POLYAPM" -w ws.pdg run 9 -np 1 --json
