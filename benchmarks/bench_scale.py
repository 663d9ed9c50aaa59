"""Structure learning at scale: 1,000 variables, 10,000 rows.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_scale.py [--n-nodes 1000] [--n-rows 10000]
        [--learners chow_liu,hill_climb,tabu,mmhc,pc,bnlearn_hc,bnlearn_pc] [--max-indegree 4]
        [--network random|pedigree|linkage] [--checkout DIR] [--timeout 600]
        [--n-jobs 2] [--bnlearn-timeout 900]

Draws ``n_rows`` rows from a generated network: ``--network random`` (default)
``make_random_network(n_nodes, max_indegree=4, n_states=(2, 4), random_state=0)``;
``pedigree`` ``make_pedigree_network(n_nodes, random_state=0)`` (three-state genotypes
inherited along generations, like the bnlearn repository's ``pigs``); ``linkage``
``make_pedigree_network(n_nodes, n_loci=2, random_state=0)`` (two linked loci per
individual, in-degree up to 3, like ``link``). The rows are drawn once (by this checkout)
and stored in a temporary pickle; each learner then fits them in its own subprocess,
importing skbn from ``--checkout`` (default: this one; an older worktree times the old
code on the same rows), so that the peak resident memory is the learner's
(``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` of the child, the data frame included).
A fit still running after ``--timeout`` seconds is stopped and reported as such. The table
reports the wall time of ``fit`` (encoding, search, CPTs), the peak RSS of the
whole child process (Python, numpy and the data included), the child's CPU time (user +
system: on a shared machine, closer to the idle wall time), the number of learned edges and
the skeleton F1 against the true graph; for PC also ``n_tests_`` and a digest (sha256,
16 hex digits) of the decision of every skeleton test ``(x, y, S)``, the separating sets,
the collider step's separating sets and the CPDAG's edges, computed after the timing: two
checkouts with the same digest made the same decisions. Learners: ``HillClimbStructure()`` (BDeu,
steepest ascent, no in-degree cap), ``tabu`` (``search="tabu"``), ``ChowLiuTree()``,
``PCStructure()`` (chi-square, alpha 0.05) and ``MMHCStructure()`` (MMPC with the G test
at alpha 0.05, then hill climbing on BIC); ``--n-jobs`` sets ``n_jobs`` of those that
have it (the child's CPU time then leaves out joblib's worker processes: read the wall
time; ``workers peak RSS MB`` is the sum of the peak RSS of the child's own children
alive after the fit, joblib's worker processes, to add to the child's for the total).

R bnlearn as a peer (:mod:`_bnlearn`, ``benchmarks/install_bnlearn.sh``): ``bnlearn_hc`` is
``hc(x, score = "bde", iss = 1)``, ``bnlearn_pc`` is ``pc.stable(x, test = "x2", alpha =
0.05)`` on the same rows (drawn here, then handed to ``Rscript``). ``fit s`` is the call's
wall time inside R, ``process s`` / ``process CPU s`` the whole ``Rscript`` process (R
startup and reading the data included), ``peak RSS MB`` the R process's ``VmHWM``; a call
still running after ``--bnlearn-timeout`` seconds is stopped and reported without numbers.
"""

import argparse
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import hashlib, json, os, pickle, sys, time
sys.path.insert(0, {root!r})
from skbn import ChowLiuTree, HillClimbStructure, MMHCStructure, PCStructure
from skbn.metrics import skeleton_scores
import skbn.estimators._pc as pc_module

found = {{}}  # PC's skeleton and collider-step results, for the digest


def keep(name, function):
    def wrapped(*args, **kwargs):
        found[name] = out = function(*args, **kwargs)
        return out
    return wrapped


pc_module.skeleton = keep("skeleton", pc_module.skeleton)
pc_module.collider_separating_sets = keep("colliders", pc_module.collider_separating_sets)


def pc_digest(learner):
    # sha256 of every skeleton test's (x, y, S, decision), the separating sets, the
    # collider step's separating sets and the CPDAG's edges
    digest = hashlib.sha256()
    _, sepsets, n_tests, decided = found["skeleton"]
    for x, y in decided._pairs():  # column ids of every pair tested, then its sets
        digest.update(repr((x, y, sorted(decided.of_pair(x, y).items()))).encode())
    digest.update(repr((n_tests, sorted(sepsets.items()))).encode())
    if "colliders" in found:
        separating, extra = found["colliders"][:2]
        digest.update(repr((extra, sorted(separating.items()))).encode())
    digest.update(repr((sorted(learner.directed_edges_), sorted(learner.undirected_edges_))).encode())
    return digest.hexdigest()[:16]

def workers_peak_mb():
    # the summed peak RSS (VmHWM) of this process's children alive after the fit: joblib's
    # worker processes (kept for the next call) and their resource tracker
    total = 0
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{{pid}}/status") as file:
                fields = dict(line.split(":", 1) for line in file if ":" in line)
        except (OSError, ValueError):
            continue
        if int(fields.get("PPid", "0")) == os.getpid():
            total += int(fields.get("VmHWM", "0 kB").split()[0])
    return total / 1024.0

with open({data!r}, "rb") as file:
    true_edges, X = pickle.load(file)
learner = {{"hill_climb": HillClimbStructure, "tabu": lambda: HillClimbStructure(search="tabu"),
           "chow_liu": ChowLiuTree, "pc": PCStructure, "mmhc": MMHCStructure}}[{name!r}]()
if {n_jobs!r} is not None and "n_jobs" in learner.get_params():
    learner.set_params(n_jobs={n_jobs!r})
start = time.perf_counter()
learner.fit(X)
seconds = time.perf_counter() - start
f1 = skeleton_scores(true_edges, learner.edges_)
row = {{"fit s": seconds, "edges": len(learner.edges_), "true edges": len(true_edges), "skeleton": f1,
       "workers peak RSS MB": workers_peak_mb()}}
if {name!r} == "pc":
    row.update({{"tests": learner.n_tests_, "digest": pc_digest(learner)}})
print(json.dumps(row))
"""


def network(args):
    """The generated network of ``--network``."""
    from skbn.datasets import make_pedigree_network, make_random_network

    if args.network == "pedigree":
        return make_pedigree_network(args.n_nodes, random_state=0)
    if args.network == "linkage":
        return make_pedigree_network(args.n_nodes, n_loci=2, random_state=0)
    return make_random_network(args.n_nodes, max_indegree=args.max_indegree, n_states=(2, 4),
                               random_state=0)


def run(name, args):
    code = CHILD.format(root=str(Path(args.checkout).resolve()), data=args.data_file, name=name,
                        n_jobs=args.n_jobs)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before, cpu_before = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
                             timeout=args.timeout)
    except subprocess.TimeoutExpired:
        out = None
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime - cpu_before
    if out is None:
        return {"learner": name, "process s": wall, "process CPU s": cpu,
                "peak RSS MB": max(peak, before) / 1024.0,
                "skeleton": f"stopped after {args.timeout:.0f} s"}
    if out.returncode:
        raise SystemExit(f"{name} failed:\n{out.stderr}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    # ru_maxrss of RUSAGE_CHILDREN is the largest child so far: run the learners from small
    # to large memory, or read it as an upper bound
    result.update({"learner": name, "process s": wall, "process CPU s": cpu,
                   "peak RSS MB": max(peak, before) / 1024.0})
    return result


BNLEARN = {"bnlearn_hc": 'hc(x, score = "bde", iss = 1)',
           "bnlearn_pc": 'pc.stable(x, test = "x2", alpha = 0.05)'}


def run_bnlearn(name, args):
    import _bnlearn  # main() put benchmarks/ and the checkout on sys.path

    from skbn.metrics import skeleton_scores

    net = network(args)
    X = net.sample(args.n_rows, random_state=0)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_before = usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    result = _bnlearn.run(X, BNLEARN[name], timeout=args.bnlearn_timeout)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    row = {"learner": name, "true edges": len(net.edges)}
    if result is None:
        return {**row, "skeleton": f"no result ({wall:.0f} s)"}
    edges = result.directed + result.undirected
    return {**row, "fit s": result.wall, "process s": wall,
            "process CPU s": usage.ru_utime + usage.ru_stime - cpu_before,
            "peak RSS MB": result.peak_mb, "edges": len(edges),
            "skeleton": skeleton_scores(net.edges, edges)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-nodes", type=int, default=1000)
    parser.add_argument("--n-rows", type=int, default=10000)
    parser.add_argument("--max-indegree", type=int, default=4)
    parser.add_argument("--learners", default="chow_liu,hill_climb,pc")
    parser.add_argument("--network", choices=["random", "pedigree", "linkage"], default="random")
    parser.add_argument("--checkout", default=str(HERE.parent),
                        help="the skbn checkout whose learners are timed")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds before a learner's fit is stopped")
    parser.add_argument("--n-jobs", type=int, default=None,
                        help="n_jobs of the learners that have it (default: theirs)")
    parser.add_argument("--bnlearn-timeout", type=float, default=900,
                        help="seconds before a bnlearn learner is stopped")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    sys.path.insert(1, str(HERE.parent))
    from _common import print_table

    net = network(args)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        args.data_file = os.path.join(folder, "data.pkl")
        with open(args.data_file, "wb") as file:
            pickle.dump((net.edges, net.sample(args.n_rows, random_state=0)), file)
        del net
        for name in args.learners.split(","):
            rows.append(main_row(name, args))
    kind = {"random": f"make_random_network({args.n_nodes}, max_indegree={args.max_indegree}, "
                      f"n_states=(2, 4))",
            "pedigree": f"make_pedigree_network({args.n_nodes})",
            "linkage": f"make_pedigree_network({args.n_nodes}, n_loci=2)"}[args.network]
    print(f"\n{kind}, {args.n_rows} rows, skbn from {args.checkout}")
    print_table(rows, ["learner", "fit s", "process s", "process CPU s", "peak RSS MB",
                       "workers peak RSS MB", "edges",
                       "true edges", "skeleton F1", "tests", "digest"])


def main_row(name, args):
    """One learner's row, printed as JSON as soon as it is measured."""
    row = (run_bnlearn if name in BNLEARN else run)(name, args)
    skeleton = row.pop("skeleton")
    row["skeleton F1"] = skeleton["f1"] if isinstance(skeleton, dict) else skeleton
    print(json.dumps(row), flush=True)
    return row


if __name__ == "__main__":
    main()
