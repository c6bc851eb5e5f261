#!/usr/bin/env bash
# tests/xf/derive_findings.sh — every finding of the derive-and-export fuzzer (make fuzz-derive,
# kept in tests/fuzz/derive/findings/) stays fixed: its chain applies and every verified syndm
# node it derives exports to a program with the simulation's checksum.
source "$(dirname "$0")/../lib.sh"
command -v mpirun >/dev/null || { echo "skip derive findings: no mpirun"; finish; }
for dir in "$ROOT"/tests/fuzz/derive/findings/*/; do
    name=$(basename "$dir")
    out=$(python3 "$ROOT/tests/fuzz/derive/fuzz_derive.py" --polyapm "$POLYAPM" --work "$TMP/work-$name" \
          --replay "$dir" 2>&1)
    expect_match "fuzz finding $name stays fixed" "$out" "^gone "
done
finish
