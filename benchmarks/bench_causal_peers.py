"""skbn's causal tools against the peers, on the same random graphs and networks.

Usage::

    python benchmarks/bench_causal_peers.py [--graphs 200] [--nodes 8] [--peervenv PATH]

* **SID** (Peters & Bühlmann 2015): ``skbn.metrics.structural_intervention_distance`` against
  R ``SID::structIntervDist`` (SID 1.1) for ``--graphs`` pairs of random DAGs (true, estimated)
  and for the true DAG against the CPDAG of the estimate (the lower and upper bounds).
* **Optimal adjustment set** (Henckel, Perković & Maathuis 2022): ``skbn.causal.
  optimal_adjustment_set`` against R ``pcalg::optAdjSet`` (pcalg 2.7-12) on the true DAGs and
  their CPDAGs, for every pair ``(x, y)`` with ``y`` a descendant of ``x`` where a valid set
  exists (pcalg's precondition; on a CPDAG, the pairs where it is adjustment amenable).
* **Adjustment criterion**: ``skbn.causal.is_adjustment_set`` against ``pcalg::gac`` (the
  generalised adjustment criterion, ``type = "cpdag"``) on the true CPDAGs, every ordered
  pair with two random candidate sets of 0-3 other nodes each.
* **Interventional distributions**: ``DiscreteBayesianNetwork.query(y, do={x: v})`` against
  pyAgrum (``pyAgrum.causal.CausalModel`` and ``causalImpact``) on the bundled ASIA and
  SACHS networks, every ordered pair of nodes, first state of ``x``.

R (with pcalg and SID) and a Python environment with pyAgrum (``--peervenv``) must be
installed (``benchmarks/install_pcalg.sh``; SID from the cran/SID mirror with
``R CMD INSTALL``); a peer that is missing is reported and skipped.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from _common import print_table  # first: puts the checkout on sys.path

from skbn.causal import is_adjustment_set, optimal_adjustment_set
from skbn.graph import dag_to_cpdag, has_directed_path, random_dag
from skbn.metrics import structural_intervention_distance

R_SCRIPT = r"""
suppressMessages({library(SID); library(pcalg)})
args <- commandArgs(trailingOnly = TRUE)
lines <- readLines(args[1])
out <- character(0)
for (line in lines) {
  job <- strsplit(line, " ")[[1]]
  p <- as.integer(job[2])
  true <- matrix(as.integer(strsplit(job[3], "")[[1]]), p, p, byrow = TRUE)
  if (job[1] == "sid") {
    est <- matrix(as.integer(strsplit(job[4], "")[[1]]), p, p, byrow = TRUE)
    s <- structIntervDist(true, est)
    out <- c(out, paste(s$sid, s$sidLowerBound, s$sidUpperBound))
  } else if (job[1] == "adj") {
    # amat.cpdag: amat[a, b] = 0, amat[b, a] = 1 means a -> b; our rows are parents
    amat <- t(true)
    x <- as.integer(job[4]); y <- as.integer(job[5])
    o <- tryCatch(suppressMessages(optAdjSet(amat, x, y)), error = function(e) "error")
    out <- c(out, paste(c("set", o), collapse = " "))
  } else {  # gac: is z an adjustment set (generalised adjustment criterion) in the CPDAG
    amat <- t(true)
    x <- as.integer(job[4]); y <- as.integer(job[5])
    z <- if (length(job) > 5) as.integer(job[6:length(job)]) else c()
    out <- c(out, paste("gac", gac(amat, x, y, z, type = "cpdag")$gac))
  }
}
writeLines(out, args[2])
"""


def matrix_text(nodes, edges, undirected=()):
    index = {n: i for i, n in enumerate(nodes)}
    m = np.zeros((len(nodes), len(nodes)), dtype=int)
    for u, v in edges:
        m[index[u], index[v]] = 1
    for u, v in undirected:
        m[index[u], index[v]] = m[index[v], index[u]] = 1
    return "".join(map(str, m.reshape(-1)))


def run_r(jobs):
    with tempfile.TemporaryDirectory() as tmp:
        script, given, answer = (os.path.join(tmp, f) for f in ("run.R", "jobs.txt", "out.txt"))
        with open(script, "w") as f:
            f.write(R_SCRIPT)
        with open(given, "w") as f:
            f.write("\n".join(jobs) + "\n")
        subprocess.run(["Rscript", script, given, answer], check=True, capture_output=True)
        with open(answer) as f:
            return f.read().splitlines()


def compare_graphs(n_graphs, n_nodes):
    sid_jobs, sid_ours, adj_jobs, adj_ours = [], [], [], []
    cpdag_jobs, cpdag_ours, gac_jobs, gac_ours = [], [], [], []
    for seed in range(n_graphs):
        nodes, true = random_dag(n_nodes, 0.3, random_state=seed, shuffle=True)
        _, estimate = random_dag(n_nodes, 0.3, random_state=10_000 + seed, shuffle=True)
        cpdag = dag_to_cpdag(nodes, estimate)
        t = matrix_text(nodes, true)
        sid_jobs.append(f"sid {n_nodes} {t} {matrix_text(nodes, estimate)}")
        sid_ours.append(("dag", structural_intervention_distance(true, estimate, nodes=nodes)))
        sid_jobs.append(f"sid {n_nodes} {t} {matrix_text(nodes, cpdag.directed, cpdag.undirected)}")
        sid_ours.append(("cpdag", structural_intervention_distance(true, cpdag, nodes=nodes)))
        for i, x in enumerate(nodes):
            for j, y in enumerate(nodes):
                if x == y or not has_directed_path(nodes, true, x, y):
                    continue
                ours = optimal_adjustment_set(true, x, y, nodes=nodes)
                if ours is None:
                    continue
                adj_jobs.append(f"adj {n_nodes} {t} {i + 1} {j + 1}")
                adj_ours.append(sorted(nodes.index(v) + 1 for v in ours))
        # the true DAG's CPDAG: optimal sets where the class is amenable, and the validity of
        # random candidate sets (amenable or not) by the generalised adjustment criterion
        true_cpdag = dag_to_cpdag(nodes, true)
        c = matrix_text(nodes, true_cpdag.directed, true_cpdag.undirected)
        rng = np.random.default_rng(seed)
        for i, x in enumerate(nodes):
            for j, y in enumerate(nodes):
                if x == y:
                    continue
                rest = [k for k in range(n_nodes) if k not in (i, j)]
                for _ in range(2):
                    z = sorted(int(k) for k in rng.choice(rest, size=rng.integers(0, 4), replace=False))
                    gac_jobs.append(f"gac {n_nodes} {c} {i + 1} {j + 1}" + "".join(f" {k + 1}" for k in z))
                    gac_ours.append(is_adjustment_set(true_cpdag, x, y, [nodes[k] for k in z], nodes=nodes))
                if not has_directed_path(nodes, true, x, y):
                    continue
                try:
                    ours = optimal_adjustment_set(true_cpdag, x, y, nodes=nodes)
                except ValueError:  # not amenable: no adjustment set in the class
                    continue
                if ours is None:
                    continue
                cpdag_jobs.append(f"adj {n_nodes} {c} {i + 1} {j + 1}")
                cpdag_ours.append(sorted(nodes.index(v) + 1 for v in ours))
    answers = run_r(sid_jobs + adj_jobs + cpdag_jobs + gac_jobs)
    sid_equal = {"dag": [0, 0], "cpdag": [0, 0]}
    for (kind, ours), line in zip(sid_ours, answers[:len(sid_jobs)]):
        sid, low, high = (int(float(v)) for v in line.split())
        same = ours == sid if kind == "dag" else tuple(ours) == (low, high)
        sid_equal[kind][0] += same
        sid_equal[kind][1] += 1
    start = len(sid_jobs)
    adj_equal = sum(sorted(int(v) for v in line.split()[1:]) == ours
                    for ours, line in zip(adj_ours, answers[start:start + len(adj_jobs)]))
    start += len(adj_jobs)
    cpdag_equal = sum(sorted(int(v) for v in line.split()[1:]) == ours
                      for ours, line in zip(cpdag_ours, answers[start:start + len(cpdag_jobs)]))
    start += len(cpdag_jobs)
    gac_equal = sum((line.split()[1] == "TRUE") == ours for ours, line in zip(gac_ours, answers[start:]))
    n_valid = sum(gac_ours)
    dag, cpdag = sid_equal["dag"], sid_equal["cpdag"]
    return [
        ["SID of a DAG", "SID::structIntervDist", f"{dag[0]} / {dag[1]}"],
        ["SID bounds of a CPDAG", "SID::structIntervDist", f"{cpdag[0]} / {cpdag[1]}"],
        ["optimal adjustment set (DAG)", "pcalg::optAdjSet", f"{adj_equal} / {len(adj_ours)}"],
        ["optimal adjustment set (CPDAG, amenable pairs)", "pcalg::optAdjSet",
         f"{cpdag_equal} / {len(cpdag_ours)}"],
        [f"is z an adjustment set (CPDAG, random z; {n_valid} valid)", "pcalg::gac",
         f"{gac_equal} / {len(gac_ours)}"],
    ]


PYAGRUM = r"""
import json, sys
import warnings
warnings.simplefilter("ignore")
import pyagrum as gum
import pyagrum.causal as csl
bn = gum.loadBN(sys.argv[1])
model = csl.CausalModel(bn)
out = {}
names = [bn.variable(i).name() for i in bn.nodes()]
for x in names:
    for y in names:
        if x == y:
            continue
        value = bn.variable(x).labels()[0]
        _, result, _ = csl.causalImpact(model, on=y, doing=x, values={x: value})
        labels = bn.variable(y).labels()
        out[f"{x}|{y}"] = dict(zip(labels, (float(v) for v in result.toarray().reshape(-1))))
print(json.dumps(out))
"""


def compare_do(peervenv):
    from skbn.datasets import load_network

    rows = []
    python = os.path.join(peervenv, "bin", "python")
    if not os.path.exists(python):
        return [["P(y | do(x)), pyAgrum", "(no --peervenv)", "skipped"]]
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("asia", "sachs"):
        path = os.path.join(here, os.pardir, "skbn", "_networks", f"{name}.bif")
        done = subprocess.run([python, "-c", PYAGRUM, path], check=True, capture_output=True, text=True)
        theirs = json.loads(done.stdout)
        net = load_network(name)
        worst = 0.0  # (every pair is identifiable: no latent variable)
        for key, values in theirs.items():
            x, y = key.split("|")
            ours = net.query(y, do={x: net.states[x][0]})  # pyAgrum's first label: the BIF order
            worst = max(worst, max(abs(ours[s] - values[str(s)]) for s in net.states[y]))
        rows.append([f"P(y | do(x)) on {name.upper()} ({len(theirs)} pairs)", "pyAgrum causalImpact",
                     f"max |diff| {worst:.1e}"])
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=200)
    parser.add_argument("--nodes", type=int, default=8)
    parser.add_argument("--peervenv", default=os.environ.get("PEER_VENV", "peervenv"))
    args = parser.parse_args()
    rows = compare_graphs(args.graphs, args.nodes)
    rows += compare_do(args.peervenv)
    columns = ["what", "peer", "equal"]
    print_table([dict(zip(columns, row)) for row in rows], columns)
    return 0


if __name__ == "__main__":
    sys.exit(main())
