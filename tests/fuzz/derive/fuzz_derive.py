#!/usr/bin/env python3
"""tests/fuzz/derive/fuzz_derive.py — the derive-and-export fuzzer: for seed after seed, a random
small program (gen.py), a random derivation chain in a fresh workspace (stm auto pick=K, a tile
kind, commgen, memdist, sometimes relcoord, sometimes the overlap or the ghost-zone placement), and for every verified syndm node an export built
and run under mpirun at its procs (`polyapm run NODE -np P --json`, which compares the checksum
with the node's simulation).  Deterministic per seed.

    fuzz_derive.py --polyapm EXE [--seconds S] [--seed N] [--count K] [--jobs J]
                   [--work DIR] [--findings DIR] [--verbose]

A finding is a verified node whose program prints another checksum, fails to build or to run, or
any polyapm call that crashes (exit >= 128 or a sanitizer report) or reports an internal error.  Refusals and unverified
nodes are fine.  Each finding is saved as FINDINGS/seed-N/{program.apm, chain.sh (the commands
that reproduce it, replayable with POLYAPM=... sh chain.sh), log.txt}; the exit status is 1 when
there is any.  Stops after S seconds (no new seed starts later) or K seeds.

    fuzz_derive.py --polyapm EXE --replay DIR...
re-runs saved findings (tests/fuzz/derive/findings/*): FOUND DIR: what, or gone DIR; exit 1 when
any is still found.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

TILE_KINDS = [["kind=blocked"], ["kind=cyclic"], ["kind=blockcyclic", "bs=2"], ["kind=block2d"]]
SANITIZER = re.compile(r"ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer")


def local_args(r):
    """`local` with random tiles (small ones cut the loops into ragged tiles) and, with tiles, sometimes
    rows jammed (the exporter unrolls them where all run, and runs the ends as they are), and with
    a jam sometimes register tiles (the exporter keeps whole ones in registers, partial ones as they are)."""
    args = ["local"]
    if r.random() < 0.7:
        args.append("tile=" + ",".join(str(r.choice([2, 3, 4, 5, 8, 32])) for _ in range(r.randint(1, 3))))
        if r.random() < 0.6:
            args.append("jam=%d" % r.choice([2, 3, 4, 8]))
            if r.random() < 0.5:
                args.append("regs=%d" % r.choice([2, 3, 4, 16]))
    return args


class Seed:
    """One seed's run: its workspace, the commands so far (the chain), the log, the findings."""

    def __init__(self, args, seed):
        self.args, self.seed = args, seed
        self.dir = os.path.join(args.work, "seed-%d" % seed)
        self.ws = os.path.join(self.dir, "ws.pdg")
        self.chain = []   # shell lines reproducing the run
        self.log = []
        self.findings = []
        self.runs = 0
        self.family = "?"
        self.stats = {"applied": 0, "refused": 0, "unverified syndm": 0}

    def call(self, argv, timeout):
        """Runs polyapm ARGV (recorded in the chain); returns (status, output); notes crashes."""
        self.chain.append("\"$POLYAPM\" " + " ".join(argv))
        try:
            p = subprocess.run([self.args.polyapm, *argv], capture_output=True, text=True, timeout=timeout,
                               cwd=self.dir)
            rc, out = p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired:
            rc, out = 124, "timed out after %d s" % timeout
        self.log.append("$ polyapm %s\n%s[exit %d]" % (" ".join(argv), out, rc))
        if rc >= 128 or rc < 0 or SANITIZER.search(out):
            self.findings.append("crash (exit %d): polyapm %s" % (rc, " ".join(argv)))
        elif "internal error" in out:
            self.findings.append("internal error: polyapm %s" % " ".join(argv))
        return rc, out

    def apply(self, node, *xf):
        """apply XF to NODE; the new (or linked) node's id and whether it is verified, or None."""
        rc, out = self.call(["-w", "ws.pdg", "apply", str(node), *xf], timeout=120)
        m = re.search(r"^(?:added|linked) node (\d+) .*\((\w+)\) under \d+: cost [^,]*, (NOT verified|verified)",
                      out, re.M)
        if rc != 0 or not m:
            self.stats["refused"] += 1
            if self.args.verbose and xf[0] in ("overlap", "ghost", "local"):
                print("# seed %d: %s refused: %s" % (self.seed, " ".join(xf), out.strip().splitlines()[-1] if out.strip() else rc))
            return None
        self.stats["applied"] += 1
        if xf[0] in ("overlap", "ghost", "local"):
            key = ("local regs" if any(a.startswith("regs=") for a in xf) else
                   "local jam" if any(a.startswith("jam=") for a in xf) else xf[0])
            self.stats[key] = self.stats.get(key, 0) + 1
        if m.group(2) == "syndm" and m.group(3) != "verified":
            self.stats["unverified syndm"] += 1
        return int(m.group(1)), m.group(2), m.group(3) == "verified"

    def run(self, node, procs):
        """exports and runs a verified syndm node; a disagreement, build or run failure is a finding."""
        self.runs += 1
        rc, out = self.call(["-w", "ws.pdg", "run", str(node), "-np", str(procs), "--json"], timeout=240)
        if rc == 0:
            return
        if "differs from the simulation" in out:
            what = "checksum differs from the simulation's"
        elif re.search(r"^polyapm: building .* failed", out, re.M):
            what = "the export does not build"
        elif re.search(r"^polyapm: running .* failed", out, re.M):
            what = "the exported program fails"
        else:
            return  # refused (e.g. not verified at its own parameters): fine
        self.findings.append("node %d -np %d: %s" % (node, procs, what))

    def derive(self):
        """The random chain(s) of this seed."""
        r = random.Random(self.seed * 7919 + 1)
        text = gen.Gen(self.seed).program()
        self.family = re.search(r"\((\w+)\)", text).group(1)
        procs = int(re.search(r"procs = (\d+)", text).group(1))
        os.makedirs(self.dir, exist_ok=True)
        with open(os.path.join(self.dir, "program.apm"), "w") as f:
            f.write(text)
        rc, _ = self.call(["init", "program.apm", "-o", "ws.pdg"], timeout=60)
        if rc != 0:
            return
        for pick in r.sample([1, 2, 3], r.randint(1, 2)):
            syn = self.apply(1, "stm", "auto", "pick=%d" % pick)
            if not syn:
                continue
            for kind in r.sample(TILE_KINDS, r.randint(1, 2)):
                self.tail(syn[0], kind, procs, r)

    def tail(self, syn, kind, procs, r):
        """tile KIND, commgen, memdist (and sometimes relcoord, then sometimes the overlap or ghost placement,
        then sometimes local with random tiles and jams) below SYN; runs every verified syndm."""
        node = syn
        place = ["overlap", "width=%d" % r.randint(1, 2)]
        if r.random() < 0.5:
            place = ["ghost", "width=%d" % r.randint(2, 3)]
        for xf in (["tile", *kind, "procs=%d" % procs], ["commgen"], ["memdist"], ["relcoord"], place,
                   local_args(r)):
            optional = xf[0] in ("relcoord", "overlap", "ghost", "local")
            if optional and r.random() < 0.5:
                continue
            got = self.apply(node, *xf)
            if not got and optional:
                continue   # refused where it does not apply: the chain goes on from the node before
            if not got:
                return
            node, level, verified = got
            if level == "syndm" and verified:
                self.run(node, procs)

    def replay(self, finding_dir):
        """Re-runs a saved finding's chain.sh (program.apm, then its polyapm calls) in self.dir."""
        os.makedirs(self.dir, exist_ok=True)
        shutil.copy(os.path.join(finding_dir, "program.apm"), self.dir)
        with open(os.path.join(finding_dir, "chain.sh")) as f:
            for line in f:
                if not line.startswith('"$POLYAPM" '):
                    continue
                argv = shlex.split(line)[1:]
                m = re.match(r"-w ws\.pdg run (\d+) -np (\d+)", " ".join(argv))
                if m:
                    self.run(int(m.group(1)), int(m.group(2)))
                else:
                    self.call(argv, timeout=120)

    def save(self):
        """Writes a finding's program, chain and log under the findings directory."""
        dest = os.path.join(self.args.findings, "seed-%d" % self.seed)
        os.makedirs(dest, exist_ok=True)
        shutil.copy(os.path.join(self.dir, "program.apm"), dest)
        with open(os.path.join(dest, "chain.sh"), "w") as f:
            f.write("# derive fuzzer seed %d: %s\n# replay: POLYAPM=/path/to/polyapm sh chain.sh (in a scratch copy "
                    "of this directory)\nset -x\nrm -rf ws.pdg\n" % (self.seed, "; ".join(self.findings)))
            f.write("\n".join(self.chain) + "\n")
        with open(os.path.join(dest, "log.txt"), "w") as f:
            f.write("\n".join(self.log) + "\n")


def replay_all(args):
    """--replay: each finding still found prints FOUND, each gone prints gone; 1 when any is found."""
    found = 0
    for k, d in enumerate(args.replay):
        s = Seed(args, k)
        s.dir = os.path.join(args.work, "replay-%d" % k)
        shutil.rmtree(s.dir, ignore_errors=True)
        s.replay(d)
        print("%s %s%s" % ("FOUND" if s.findings else "gone ", d, ": " + "; ".join(s.findings) if s.findings else ""))
        found += bool(s.findings)
        shutil.rmtree(s.dir, ignore_errors=True)
    return 1 if found else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--polyapm", required=True)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1 << 30)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--work", default="build/fuzz/derive-work")
    ap.add_argument("--findings", default="build/fuzz/derive-findings")
    ap.add_argument("--verbose", action="store_true", help="a line per seed")
    ap.add_argument("--replay", nargs="+", metavar="DIR", help="re-run saved findings (DIR/program.apm, chain.sh)")
    args = ap.parse_args()
    args.polyapm = os.path.abspath(args.polyapm)
    args.work = os.path.abspath(args.work)
    args.findings = os.path.abspath(args.findings)
    if args.replay:
        return replay_all(args)
    deadline = time.time() + args.seconds
    lock = threading.Lock()
    seeds = iter(range(args.seed, args.seed + args.count))
    totals = {"seeds": 0, "runs": 0, "findings": 0}

    def worker():
        while time.time() < deadline:
            with lock:
                seed = next(seeds, None)
            if seed is None:
                return
            s = Seed(args, seed)
            shutil.rmtree(s.dir, ignore_errors=True)
            s.derive()
            with lock:
                if args.verbose:
                    print("# seed %d (%s): %s, %d runs" % (seed, s.family, ", ".join(
                        "%d %s" % (v, k) for k, v in s.stats.items()), s.runs), flush=True)
                totals["seeds"] += 1
                totals["runs"] += s.runs
                if s.findings:
                    totals["findings"] += 1
                    s.save()
                    print("FINDING seed %d: %s" % (seed, "; ".join(s.findings)), flush=True)
            shutil.rmtree(s.dir, ignore_errors=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for f in [pool.submit(worker) for _ in range(max(1, args.jobs))]:
            f.result()
    print("derive fuzzer: %d seeds from %d, %d exported runs, %d with findings%s" %
          (totals["seeds"], args.seed, totals["runs"], totals["findings"],
           " (in %s)" % args.findings if totals["findings"] else ""))
    return 1 if totals["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
