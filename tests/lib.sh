# tests/lib.sh — helpers for the shell test suites: source it, call ok/fail/expect_*,
# and end with `finish`.  Each check prints "ok NAME" or "FAIL NAME: why".
set -u
: "${ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${BUILD:=build}"
T_FAILED=0
# Exported programs build through tests/mpi/bin (mpicc, cc): a cache keyed by the exported
# directory's sources, shared by every suite ($BUILD/export-cache unless POLYAPM_EXPORT_CACHE says).
case $BUILD in /*) T_BUILD_DIR=$BUILD ;; *) T_BUILD_DIR=$ROOT/$BUILD ;; esac
: "${POLYAPM:=$T_BUILD_DIR/polyapm}"
export POLYAPM_EXPORT_CACHE=${POLYAPM_EXPORT_CACHE:-$T_BUILD_DIR/export-cache}
# Open MPI on one machine: shared memory directly (ob1 over vader), without probing UCX and the
# network components first; the same messages, a third of a second less per mpirun
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
case ":$PATH:" in *":$ROOT/tests/mpi/bin:"*) ;; *) export PATH="$ROOT/tests/mpi/bin:$PATH" ;; esac
# The suite's scratch directory.  Under tests/run.sh (POLYAPM_TEST_WORKSPACES set) it lives there
# and is kept at exit, so that tests/mpi/export_all.sh can export and run every workspace the
# suites derived; otherwise it is a fresh directory removed at exit.  t_cleanup is the EXIT trap
# (suites that set their own trap call it).
# Open MPI's session directory is the suite's own (a short path: PMIx puts sockets there), so
# that suites starting mpirun at the same moment do not race to create one shared
# /tmp/ompi.HOST.UID ("File exists").
T_OMPI_TMP=$(mktemp -d /tmp/pa-ompi.XXXXXX) && export OMPI_MCA_orte_tmpdir_base=$T_OMPI_TMP
if [ -n "${POLYAPM_TEST_WORKSPACES:-}" ] && mkdir -p "$POLYAPM_TEST_WORKSPACES"; then
    TMP=$(mktemp -d "$POLYAPM_TEST_WORKSPACES/$(basename "$(dirname "$0")")-$(basename "$0" .sh).XXXXXX")
    t_cleanup() { rm -rf "$T_OMPI_TMP"; }
else
    TMP=$(mktemp -d)
    t_cleanup() { rm -rf "$TMP" "$T_OMPI_TMP"; }
fi
trap t_cleanup EXIT
# python3 resolved once (tests/python.inc); tests/run.sh does it for every suite
if [ -z "${T_PYTHON_DIR:-}" ]; then
    . "$ROOT/tests/python.inc"
    t_python_dir "$TMP/python-bin"
fi
# user-level machine profiles and calibrate's saved measurements stay inside the test's directory
# (two suites calibrating at once shared ~/.cache/polyapm/calibrate-local.raw: one read the
# other's half-written file, "no exchange measurements")
export XDG_CONFIG_HOME="$TMP/config" XDG_CACHE_HOME="$TMP/cache"
# every test names its machine profile: the thesis's cluster, so that no command calibrates this
# machine by accident (the default, polyapm(1) DEFAULT MACHINE); tests/cli/machine_default.sh
# unsets it to test that calibration
export POLYAPM_MACHINE=scali2004
ok()   { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; T_FAILED=1; }
# expect_eq NAME GOT WANT
expect_eq() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got '$2', want '$3'"; fi; }
# expect_near NAME GOT WANT TOL
expect_near() {
    if python3 -c "import sys; sys.exit(0 if abs(float('$2')-float('$3'))<=float('$4') else 1)" 2>/dev/null
    then ok "$1"; else fail "$1" "got '$2', want '$3' ± $4"; fi; }
# expect_match NAME TEXT REGEX
expect_match() { if printf '%s' "$2" | grep -Eq -- "$3"; then ok "$1"; else fail "$1" "no match for /$3/ in: $(printf '%s' "$2" | head -c 400)"; fi; }
# json FIELD < json   (python3 expression on the object `j`, e.g. json "j['cost']")
json() { python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }
finish() { exit $T_FAILED; }

# The thesis's four LU leaves (STM1/STM2 x blocked/cyclic, procs=4, each tile -> commgen ->
# memdist) below ROOT of the workspace the caller's P() names.
lu_four_leaves() {
    P apply ROOT stm "theta.L=2*(j-1)" sigma.L=i "theta.U=2*(i-1)+1" sigma.U=j >/dev/null
    P apply ROOT stm "theta=i+j-2" sigma=i >/dev/null
    local id=3 s k
    for s in 2 3; do
        for k in blocked cyclic; do
            P apply $s tile kind=$k procs=4 >/dev/null && P apply $((id + 1)) commgen >/dev/null &&
                P apply $((id + 2)) memdist >/dev/null || fail "lu chain $s $k" "did not apply"
            id=$((id + 3))
        done
    done
}
