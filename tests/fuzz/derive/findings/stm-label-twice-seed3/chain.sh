# derive fuzzer seed 3: internal error: polyapm -w ws.pdg apply 1 stm auto pick=2
# replay: POLYAPM=/path/to/polyapm sh chain.sh (in a scratch copy of this directory)
set -x
rm -rf ws.pdg
"$POLYAPM" init program.apm -o ws.pdg
"$POLYAPM" -w ws.pdg apply 1 stm auto pick=2
