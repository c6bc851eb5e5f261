#!/usr/bin/env python3
"""tests/mpi/export_all.py — the export promise over everything the suites derived (run by
tests/mpi/export_all.sh): every verified syndm node (and syncomm node without sends: collectives
alone) of every workspace under the given directories is exported, built and run under mpirun
(above 8 ranks under SimGrid's smpirun) at the rank count it was derived for (its parameter
`procs`) by `polyapm run NODE -np P --json`, which compares the program's checksum with the
node's simulation.  Identical programs (the same canonical-text hash) run once, and a
program a suite has already run is not run again (its node shows an mpirun measurement at its own
procs, which `polyapm run` stores only when the checksums agreed).

Usage: export_all.py POLYAPM KNOWN-LIST JOBS DIR...
Prints "ok NAME", "FAIL NAME: why" or "skip NAME: why" per program (NAME names a workspace and
node), comments (#) for the rest; exits 0.  A syndm node must run and match; a syncomm node may
be refused by the exporter (skip).  Programs listed in KNOWN-LIST (lines "HASH12 reason", # for
comments) that do not match are reported as skip with the reason: open failures, tracked there.
Sizes: a node whose simulation's parameters are large (PARAM_CAP below) runs with -D PARAM=CAP,
so that the run and the simulation it compares against stay small.
"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

RUN_TIMEOUT = 180  # seconds per `polyapm run` (simulation + export + build + mpirun)
MPIRUN_RANKS = 8   # more ranks than this run under SimGrid's smpirun (one process for all ranks):
                   # 16 Open MPI processes polling on 2 cores cost ten times the CPU of the program
PLATFORM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "platforms",
                        "cluster64.xml")
MAX_RANKS = 64 if shutil.which("smpirun") else 16  # the platform's hosts; without SimGrid, mpirun's limit
PARAM_CAP = {"n": 24, "m": 24, "steps": 6}  # run larger sizes at these (-D), when still verified


def polyapm(exe, ws, *args, timeout=60):
    """Runs polyapm on workspace ws; returns (exit status, stdout+stderr)."""
    try:
        p = subprocess.run([exe, "-w", ws, *args], capture_output=True, text=True, errors="replace", timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return 124, "timed out after %d s" % timeout


def find_workspaces(dirs):
    """Every directory holding a pdg.db under dirs, sorted."""
    found = []
    for d in dirs:
        for top, subdirs, files in os.walk(d):
            if "pdg.db" in files:
                found.append(top)
                subdirs[:] = []  # a workspace's runs/ holds no workspace
    return sorted(found)


def node_params(text):
    """The literal integer parameters of a node's program text: {name: value}."""
    params = {}
    for line in text.splitlines():
        if not line.startswith("param "):
            continue
        for m in re.finditer(r"(\w+)\s*=\s*(-?\d+)\s*(?:,|$)", line[len("param "):]):
            params[m.group(1)] = int(m.group(2))
    return params


def candidates(exe, ws, short, pool, seen):
    """The verified syndm and syncomm nodes of ws: list of dicts; or a string saying why none.
    Their texts are read `pool`'s threads at a time, once per program: `seen` maps a hash read in
    an earlier workspace to what its text said (the same program; its measurement there counts)."""
    rc, out = polyapm(exe, ws, "tree", "--json")
    if rc != 0:
        return "cannot read it: " + out.strip().splitlines()[-1] if out.strip() else "tree failed"
    try:
        tree = json.loads(out)
    except ValueError:
        return "tree --json is not JSON"
    wanted = [n for n in tree.get("nodes", []) if n.get("level") in ("syndm", "syncomm") and n.get("verified") is True]
    fresh = [n for n in wanted if n["hash"] not in seen]
    for n, (rc, text) in zip(fresh, pool.map(lambda n: polyapm(exe, ws, "show", str(n["id"])), fresh)):
        if rc != 0:
            continue
        params = node_params(text)
        seen[n["hash"]] = {"sends": bool(re.search(r"^\s*send ", text, re.M)), "procs": params.get("procs"),
                           "measured": suite_measured(text, params.get("procs")),
                           "caps": ["%s=%d" % (k, v) for k, v in sorted(PARAM_CAP.items()) if params.get(k, 0) > v]}
    nodes = []
    for n in wanted:
        said = seen.get(n["hash"])
        if not said or (n["level"] == "syncomm" and said["sends"]):
            continue  # unreadable; or sends on shared memory: exported only after memdist, by design
        nodes.append({"ws": ws, "short": short, "id": n["id"], "label": n.get("label", ""), "level": n["level"],
                      "hash": n["hash"], "procs": said["procs"], "caps": said["caps"], "measured": said["measured"]})
    return nodes


def suite_measured(text, procs):
    """Whether `polyapm show`'s header (up to the first empty line) lists an mpirun measurement at
    the node's own procs: `polyapm run` stores one only when the program's checksum was the
    simulation's, so a suite has already exported and run this program."""
    for line in text.split("\n\n", 1)[0].splitlines():
        m = re.search(r"\b\d+ ranks?, mpirun\b(.*)$", line)
        if not m:
            continue
        p = re.search(r"\bprocs=(\d+)", m.group(1))
        if procs is None or (p and int(p.group(1)) == procs):
            return True
    return False


def ranks_args(np):
    """polyapm run's arguments for np ranks: under mpirun, or smpirun above MPIRUN_RANKS."""
    smpi = ["--smpi", PLATFORM] if np > MPIRUN_RANKS and shutil.which("smpirun") else []
    return ["-np", str(np), *smpi]


def run_node(exe, node):
    """Runs one node (and retries without -D when the capped size is not verified)."""
    np = node["procs"] if node["procs"] else 1
    for caps in ([node["caps"], []] if node["caps"] else [[]]):
        dargs = [a for c in caps for a in ("-D", c)]
        rc, out = polyapm(exe, node["ws"], "run", str(node["id"]), *ranks_args(np), "--json", *dargs,
                          timeout=RUN_TIMEOUT)
        m = re.search(r"needs (\d+) MPI ranks", out)
        if rc != 0 and m and not node["procs"]:
            np = int(m.group(1))
            rc, out = polyapm(exe, node["ws"], "run", str(node["id"]), *ranks_args(np), "--json", *dargs,
                              timeout=RUN_TIMEOUT)
        if rc != 0 and caps and "not exported" in out:
            continue  # not verified at the capped size: run at the node's own
        return classify(node, np, caps, rc, out)
    return classify(node, np, [], rc, out)


def classify(node, np, caps, rc, out):
    """(verdict ok|fail|refused, detail) of one run."""
    where = "-np %d%s%s" % (np, " smpirun" if np > MPIRUN_RANKS and shutil.which("smpirun") else "",
                            "".join(" -D " + c for c in caps))
    last = [line for line in out.strip().splitlines() if line.strip()]
    reason = last[-1] if last else "no output"
    for line in reversed(last):
        if line.startswith("{"):
            try:
                j = json.loads(line)
            except ValueError:
                break
            if rc == 0 and j.get("match"):
                return "ok", "%s: checksum %s = the simulation's" % (where, j["checksum"])
            break
    if rc >= 124 or "differs from the simulation" in out or "building " in out or "running " in out:
        # what the program and mpirun printed before polyapm's last line says why
        said = " | ".join(line.strip() for line in last[-12:-1] if not line.startswith("{"))
        return "fail", "%s: %s%s" % (where, reason, " (output: %s)" % said if said else "")
    return "refused", "%s: %s" % (where, reason)


def load_known(path):
    """{hash prefix: reason} from the known-failures list."""
    known = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    h, _, reason = line.partition(" ")
                    known[h] = reason.strip()
    return known


def main():
    exe, known_path, jobs, dirs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    known = load_known(known_path)
    workspaces = find_workspaces(dirs)
    programs = {}  # (hash, caps) -> [node, ...]: the first runs, the others are the same program
    common = os.path.commonpath(dirs) if dirs else ""
    seen = {}  # hash -> what its text said (candidates)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for ws in workspaces:
            short = os.path.relpath(ws, common) if common else ws
            nodes = candidates(exe, ws, short, pool, seen)
            if isinstance(nodes, str):
                print("# %s: %s" % (short, nodes))
                continue
            for n in nodes:
                programs.setdefault((n["hash"], n["procs"], tuple(n["caps"])), []).append(n)
    print("# %d workspaces, %d distinct verified syndm/syncomm programs" % (len(workspaces), len(programs)))
    measured = {(n["hash"], n["procs"]) for group in programs.values() for n in group if n["measured"]}
    todo = []
    for group in programs.values():
        n = group[0]
        if (n["hash"], n["procs"]) in measured:
            print("ok export_all %s node %d (%s, %s) run by its suite: a measurement is stored, the "
                  "checksum was the simulation's" % (n["short"], n["id"], n["label"], n["level"]))
            continue
        if n["procs"] and n["procs"] > MAX_RANKS:
            print("skip export_all %s node %d: procs=%d > %d ranks" % (n["short"], n["id"], n["procs"], MAX_RANKS))
            continue
        todo.append(group)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = pool.map(lambda g: (g, run_node(exe, g[0])), todo)
        for group, (verdict, detail) in results:
            n = group[0]
            name = "export_all %s node %d (%s, %s)" % (n["short"], n["id"], n["label"], n["level"])
            hash12 = n["hash"][:12]
            if verdict == "ok":
                print("ok %s %s" % (name, detail))
                if hash12 in known:
                    print("# %s passes now: remove %s from %s" % (name, hash12, os.path.basename(known_path)))
            elif hash12 in known:
                print("skip %s: known failure (%s): %s" % (name, known[hash12], detail))
            elif verdict == "refused" and n["level"] == "syncomm":
                print("skip %s: the exporter refuses it: %s" % (name, detail))
            else:
                print("FAIL %s [program %s]: %s" % (name, hash12, detail))
            for other in group[1:]:
                print("#   the same program: %s node %d" % (other["short"], other["id"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
