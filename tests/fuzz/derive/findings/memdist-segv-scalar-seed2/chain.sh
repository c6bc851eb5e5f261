# derive fuzzer seed 2: crash (exit -11): polyapm -w ws.pdg apply 4 memdist; crash (exit -11): polyapm -w ws.pdg apply 6 memdist
# replay: POLYAPM=/path/to/polyapm sh chain.sh (in a scratch copy of this directory)
set -x
rm -rf ws.pdg
"$POLYAPM" init program.apm -o ws.pdg
"$POLYAPM" -w ws.pdg apply 1 stm auto pick=1
"$POLYAPM" -w ws.pdg apply 2 tile kind=blockcyclic bs=2 procs=1
"$POLYAPM" -w ws.pdg apply 3 commgen
"$POLYAPM" -w ws.pdg apply 4 memdist
"$POLYAPM" -w ws.pdg apply 2 tile kind=cyclic procs=1
"$POLYAPM" -w ws.pdg apply 5 commgen
"$POLYAPM" -w ws.pdg apply 6 memdist
"$POLYAPM" -w ws.pdg apply 1 stm auto pick=2
