# derive fuzzer seed 1057: node 5 -np 4: checksum differs from the simulation's; node 9 -np 4: checksum differs from the simulation's; node 10 -np 4: checksum differs from the simulation's
# replay: POLYAPM=/path/to/polyapm sh chain.sh (in a scratch copy of this directory)
set -x
rm -rf ws.pdg
"$POLYAPM" init program.apm -o ws.pdg
"$POLYAPM" -w ws.pdg apply 1 stm auto pick=1
"$POLYAPM" -w ws.pdg apply 2 tile kind=blocked procs=4
"$POLYAPM" -w ws.pdg apply 3 commgen
"$POLYAPM" -w ws.pdg apply 4 memdist
"$POLYAPM" -w ws.pdg run 5 -np 4 --json
"$POLYAPM" -w ws.pdg apply 2 tile kind=block2d procs=4
"$POLYAPM" -w ws.pdg apply 1 stm auto pick=2
"$POLYAPM" -w ws.pdg apply 6 tile kind=cyclic procs=4
"$POLYAPM" -w ws.pdg apply 7 commgen
"$POLYAPM" -w ws.pdg apply 8 memdist
"$POLYAPM" -w ws.pdg run 9 -np 4 --json
"$POLYAPM" -w ws.pdg apply 9 relcoord
"$POLYAPM" -w ws.pdg run 10 -np 4 --json
