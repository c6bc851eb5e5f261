# derive fuzzer seed 1796071571: node 7 -np 2: the export does not build
# replay: POLYAPM=/path/to/polyapm sh chain.sh (in a scratch copy of this directory)
set -x
rm -rf ws.pdg
"$POLYAPM" init program.apm -o ws.pdg
"$POLYAPM" -w ws.pdg apply 1 stm auto pick=1
"$POLYAPM" -w ws.pdg apply 2 tile kind=blocked procs=2
"$POLYAPM" -w ws.pdg apply 3 commgen
"$POLYAPM" -w ws.pdg apply 4 memdist
"$POLYAPM" -w ws.pdg run 5 -np 2 --json
"$POLYAPM" -w ws.pdg apply 5 relcoord
"$POLYAPM" -w ws.pdg run 6 -np 2 --json
"$POLYAPM" -w ws.pdg apply 6 local tile=32 jam=8
"$POLYAPM" -w ws.pdg run 7 -np 2 --json
