"""BIF files written by others against R bnlearn 4.9: reading, likelihood, inference, learning.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_bif_networks.py NET.bif [NET.bif ...]
        [--rows 10000] [--no-pc] [--no-learn] [--queries 25]
        [--learners hc_bic hc_bde pc] [--peer-timeout SECONDS] [--memory]

For every file (e.g. the bnlearn repository's insurance, water, hailfinder, win95pts,
pathfinder, munin1, andes, as found in public repositories; none ships with skbn):

* ``read``: ``read_bif`` against bnlearn's ``read.bif``: the largest absolute difference of
  any CPT entry after aligning bnlearn's axes (the node first, then the parents in its own
  order) to skbn's, and whether every node's states come in the same order (``states``);
  ``-`` when bnlearn refuses the file (it reads only one statement per line and neither
  ``default`` rows nor ``table`` entries of nodes with parents).
* ``loglik``: the relative difference between ``network.log_likelihood(X).sum()`` and
  bnlearn's ``logLik(fit, x)`` on ``--rows`` rows sampled by skbn (``random_state=0``)
  and on as many rows sampled by bnlearn's ``rbn`` (``set.seed(1)``).
* ``query``: the largest absolute difference between ``network.query(q, evidence)`` and an
  independent exact answer: ``numpy.einsum`` over the CPTs of the ancestral closure of the
  query and evidence nodes (``optimize="greedy"``), for ``--queries`` random queries with
  0-3 evidence nodes set to the states of a forward sample (queries whose closure exceeds
  50 nodes are skipped, column ``skipped``); ``zero ev`` says whether ``query`` refused (as
  documented) three evidence sets of probability 0 built from zero CPT entries.
* ``hc bic`` / ``hc bde``: whether ``HillClimbStructure(scorer=BIC())`` / ``BDeu(ess=1)``
  learn bnlearn's ``hc(x, score = "bic")`` / ``hc(x, score = "bde", iss = 1)`` graph, and the
  relative score difference of the two graphs (skbn's score of each); bnlearn gets the
  columns in skbn's name order (:mod:`_bnlearn`), every node with all its states.
* ``pc``: whether ``PCStructure(ci_test=ChiSquare(adjust_dof=False,
  min_samples_per_dof=0))`` has the skeleton of ``pc.stable(x, test = "x2")`` (alpha 0.05);
  ``pc mi``: the same with ``GTest`` and ``test = "mi"``.
* ``mmhc``: ``MMHCStructure()`` and bnlearn's ``mmhc(x)``, both with their defaults (the
  restrict phases differ, ``docs/hill_climb.md``: the graphs are not expected to agree);
  the relative BIC difference of the two graphs.
* ``fit``: the largest absolute difference between the CPTs ``FixedStructure(edges=<the
  file's arcs>)`` estimates (Bayesian, ess 1) and ``bn.fit(dag, x, method = "bayes", iss = 1)``.

``--learners`` picks among ``hc_bic``, ``hc_bde``, ``pc``, ``pc_mi``, ``mmhc`` and ``fit``
(default: the first three). ``shd`` columns: the structural Hamming distance of skbn's and
bnlearn's graphs to the file's DAG (skeletons only for PC). ``--peer-timeout`` gives up on a
bnlearn call after that many seconds (its columns show ``-``; bnlearn's ``hc`` takes minutes
on 400-1,000 nodes).

Times (seconds, one run): skbn's ``fit`` (wall and process CPU: a shared machine slows the wall
clock) and bnlearn's call inside R (:mod:`_bnlearn`, wall and CPU); memory: bnlearn's peak
resident set (``VmHWM``, MB, R included) and, with ``--memory``, the peak of skbn's
allocations during the fit (``tracemalloc``, MB, numpy's included; the fit runs slower).
"""

import argparse
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import _bnlearn
import numpy as np
import pandas as pd
from _common import print_table

from skbn import HillClimbStructure, MMHCStructure, PCStructure
from skbn.citests import ChiSquare, GTest
from skbn.estimators import FixedStructure
from skbn.io import read_bif
from skbn.metrics import structural_hamming_distance
from skbn.scores import BIC, BDeu

PEER = r"""
suppressPackageStartupMessages(library(bnlearn))
a <- commandArgs(trailingOnly = TRUE)   # bif, csv of skbn's rows, number of rbn rows
fit <- read.bif(a[1])
for (n in nodes(fit)) {
  p <- fit[[n]]$prob
  dn <- dimnames(p)
  axes <- if (is.null(names(dn))) n else names(dn)
  cat("cpt", n, paste(axes, collapse = ","),
      paste(sapply(dn, paste, collapse = ","), collapse = "|"),
      paste(sprintf("%.17g", as.vector(p)), collapse = ","), "\n", sep = "\t")
}
levels <- lapply(nodes(fit), function(n) dimnames(fit[[n]]$prob)[[1]])
names(levels) <- nodes(fit)
x <- read.csv(a[2], colClasses = "character", check.names = FALSE, na.strings = character(0))
for (j in names(x)) x[[j]] <- factor(x[[j]], levels = levels[[j]])
set.seed(1)
y <- rbn(fit, as.integer(a[3]))
cat("loglik", sprintf("%.17g", logLik(fit, x)), sprintf("%.17g", logLik(fit, y)), "\n", sep = "\t")
write.csv(y, a[4], row.names = FALSE)
"""


def bnlearn_read(path, X):
    """bnlearn's CPTs ``{node: (axes, levels, flat values)}``, its log-likelihood of ``X``
    and of its own ``rbn`` rows (returned as a frame), or ``None`` when it refuses the file."""
    with tempfile.TemporaryDirectory() as folder:
        data, rows = Path(folder) / "x.csv", Path(folder) / "y.csv"
        X.to_csv(data, index=False)
        out = subprocess.run(["Rscript", "-e", PEER, str(path), str(data), str(len(X)), str(rows)],
                             capture_output=True, text=True)
        if out.returncode:
            return None, (out.stderr.strip().splitlines() or ["?"])[-1]
        Y = pd.read_csv(rows, dtype=str, keep_default_na=False)
    cpts, loglik = {}, None
    for line in out.stdout.splitlines():
        kind, *fields = line.rstrip("\n").split("\t")
        if kind == "cpt":
            node, axes, levels, values = fields[:4]
            cpts[node] = (axes.split(","), [lv.split(",") for lv in levels.split("|")],
                          np.array(values.split(","), dtype=float))
        elif kind == "loglik":
            loglik = float(fields[0]), float(fields[1])
    return (cpts, loglik, Y), None


def compare_cpts(net, cpts):
    """Largest |difference| of aligned CPT entries, and whether all state orders agree."""
    worst, same_states = 0.0, set(cpts) == set(net.nodes)
    for node, (axes, levels, values) in cpts.items():
        same_states &= all(levels[k] == net.states[v] for k, v in enumerate(axes))
        table = values.reshape([len(lv) for lv in levels], order="F")  # R: first axis fastest
        table = np.transpose(table, [axes.index(p) for p in net.parents[node]] + [0])
        worst = max(worst, float(np.max(np.abs(table - net.cpts[node]), initial=0.0)))
    return worst, same_states


def ancestral_closure(net, nodes):
    closure, stack = set(), list(nodes)
    while stack:
        v = stack.pop()
        if v not in closure:
            closure.add(v)
            stack.extend(net.parents[v])
    return sorted(closure)


def einsum_query(net, query, evidence, max_nodes=50):
    """P(query | evidence) by one ``numpy.einsum`` over the ancestral closure (or None)."""
    closure = ancestral_closure(net, [query, *evidence])
    if len(closure) > max_nodes:
        return None
    label = {v: k for k, v in enumerate(closure)}
    operands = []
    for v in closure:
        table, axes = np.asarray(net.cpts[v]), [*net.parents[v], v]
        for k in reversed(range(len(axes))):
            if axes[k] in evidence:
                table = np.take(table, net.states[axes[k]].index(evidence[axes[k]]), axis=k)
                del axes[k]
        operands += [table, [label[a] for a in axes]]
    joint = np.einsum(*operands, [label[query]], optimize="greedy")
    return joint / joint.sum()


def check_queries(net, n_queries, rng):
    worst, skipped = 0.0, 0
    for _ in range(n_queries):
        query = net.nodes[rng.integers(len(net.nodes))]
        others = [v for v in net.nodes if v != query]
        row = net.sample(1, random_state=int(rng.integers(2**31))).iloc[0]
        evidence = {v: str(row[v]) for v in rng.choice(others, int(rng.integers(0, 4)), replace=False)}
        exact = einsum_query(net, query, evidence)
        if exact is None:
            skipped += 1
            continue
        worst = max(worst, float(np.max(np.abs(net.query(query, evidence=evidence).to_numpy() - exact))))
    refused = tried = 0
    for v in net.nodes:
        table = np.asarray(net.cpts[v])
        if tried == 3 or not net.parents[v] or not (table == 0).any():
            continue
        config = np.argwhere(table == 0)[0]
        evidence = {p: net.states[p][c] for p, c in zip(net.parents[v], config[:-1])}
        evidence[v] = net.states[v][config[-1]]
        tried += 1
        try:
            net.query(next(u for u in net.nodes if u not in evidence), evidence=evidence)
        except ValueError:
            refused += 1
    return worst, skipped, f"{refused}/{tried}"


LEARNERS = {  # key: (skbn estimator, bnlearn call)
    "hc_bic": (lambda: HillClimbStructure(scorer=BIC(), fit_parameters=False),
               'hc(x, score = "bic")'),
    "hc_bde": (lambda: HillClimbStructure(scorer=BDeu(ess=1.0), fit_parameters=False),
               'hc(x, score = "bde", iss = 1)'),
    "pc": (lambda: PCStructure(ci_test=ChiSquare(adjust_dof=False, min_samples_per_dof=0),
                               fit_parameters=False),
           'pc.stable(x, test = "x2", alpha = 0.05)'),
    "pc_mi": (lambda: PCStructure(ci_test=GTest(adjust_dof=False, min_samples_per_dof=0),
                                  fit_parameters=False),
              'pc.stable(x, test = "mi", alpha = 0.05)'),
    "mmhc": (lambda: MMHCStructure(fit_parameters=False), "mmhc(x)"),
}

FIT_PEER = r"""
suppressPackageStartupMessages(library(bnlearn))
a <- commandArgs(trailingOnly = TRUE)   # bif, csv of skbn's rows
fit <- read.bif(a[1])
levels <- lapply(nodes(fit), function(n) dimnames(fit[[n]]$prob)[[1]])
names(levels) <- nodes(fit)
x <- read.csv(a[2], colClasses = "character", check.names = FALSE, na.strings = character(0))
for (j in names(x)) x[[j]] <- factor(x[[j]], levels = levels[[j]])
start <- proc.time()
fitted <- bn.fit(bn.net(fit), x, method = "bayes", iss = 1)
used <- proc.time() - start
status <- readLines("/proc/self/status")
peak <- sub("[^0-9]*([0-9]+).*", "\\1", grep("^VmHWM", status, value = TRUE))
cat("time", used[["elapsed"]], used[["user.self"]] + used[["sys.self"]], as.numeric(peak) / 1024,
    "\n", sep = "\t")
for (n in nodes(fitted)) {
  p <- fitted[[n]]$prob
  dn <- dimnames(p)
  axes <- if (is.null(names(dn))) n else names(dn)
  cat("cpt", n, paste(axes, collapse = ","),
      paste(sapply(dn, paste, collapse = ","), collapse = "|"),
      paste(sprintf("%.17g", as.vector(p)), collapse = ","), "\n", sep = "\t")
}
"""


def timed_fit(estimator, X, memory):
    """Fit; wall and CPU seconds, and the tracemalloc peak in MB (``None`` unless ``memory``)."""
    if memory:
        tracemalloc.start()
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():   # PC's orientation conflicts: the skeleton is compared
        warnings.simplefilter("ignore")
        estimator.fit(X)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = None
    if memory:
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return estimator, wall, cpu, peak


def fit_parameters(path, net, X, row, memory):
    """``FixedStructure`` on the file's DAG against ``bn.fit`` (Bayesian, ess 1)."""
    model, row["skbn s"], row["skbn cpu"], row["skbn MB"] = timed_fit(
        FixedStructure(edges=net.edges), X, memory)
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "x.csv"
        X.to_csv(data, index=False)
        out = subprocess.run(["Rscript", "-e", FIT_PEER, str(path), str(data)],
                             capture_output=True, text=True)
    if out.returncode:
        print(f"# bn.fit on {path.name}: {(out.stderr.strip().splitlines() or ['?'])[-1]}")
        return
    cpts = {}
    for line in out.stdout.splitlines():
        kind, *fields = line.rstrip("\n").split("\t")
        if kind == "time":
            row["bnlearn s"], row["bnlearn cpu"], row["bnlearn MB"] = map(float, fields[:3])
        elif kind == "cpt":
            node, axes, levels, values = fields[:4]
            cpts[node] = (axes.split(","), [lv.split(",") for lv in levels.split("|")],
                          np.array(values.split(","), dtype=float))
    row["equal"], same_states = compare_cpts(model.network_, cpts)
    if not same_states:
        row["equal"] = "states differ"


def learn(path, net, X, learners, peer_timeout, memory):
    """One timing row per learner: skbn's fit against bnlearn's call on the same rows."""
    rows = []
    for key in learners:
        row = {"network": path.stem, "rows": len(X), "learner": key}
        rows.append(row)
        if key == "fit":
            fit_parameters(path, net, X, row, memory)
            continue
        make, call = LEARNERS[key]
        model, row["skbn s"], row["skbn cpu"], row["skbn MB"] = timed_fit(make(), X, memory)
        ours = sorted(model.edges_)
        pc = key.startswith("pc")
        truth = {frozenset(e) for e in net.edges}
        if pc:
            ours = {frozenset(e) for e in ours}
            row["shd"] = len(ours ^ truth)
        else:
            row["shd"] = structural_hamming_distance(net.edges, ours, net.nodes)
        try:
            peer = _bnlearn.run(X, call, timeout=peer_timeout)
        except RuntimeError as error:
            print(f"# bnlearn {call} on {path.name}: {error}")
            continue
        if peer is None:
            continue
        row["bnlearn s"], row["bnlearn cpu"], row["bnlearn MB"] = peer.wall, peer.cpu, peer.peak_mb
        if pc:
            theirs = {frozenset(e) for e in peer.directed} | {frozenset(e) for e in peer.undirected}
            row["equal"], row["bnlearn shd"] = ours == theirs, len(theirs ^ truth)
            continue
        theirs = sorted(peer.directed)
        row["bnlearn shd"] = structural_hamming_distance(net.edges, theirs, net.nodes)
        row["equal"] = ours == theirs
        scorer = BDeu(ess=1.0) if key == "hc_bde" else BIC()
        reference = scorer.score(X, theirs)
        row["dscore"] = abs(scorer.score(X, ours) - reference) / abs(reference)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=25)
    parser.add_argument("--no-pc", action="store_true")
    parser.add_argument("--no-learn", action="store_true")
    parser.add_argument("--learners", nargs="+", default=["hc_bic", "hc_bde", "pc"],
                        choices=[*LEARNERS, "fit"])
    parser.add_argument("--peer-timeout", type=float, default=None)
    parser.add_argument("--memory", action="store_true")
    args = parser.parse_args()
    learners = [k for k in args.learners if not (args.no_pc and k == "pc")]
    checks, timings = [], []
    for path in args.files:
        try:
            net = read_bif(path)
        except ValueError as error:
            print(f"# {path.name}: skbn refuses it: {error}")
            continue
        X = net.sample(args.rows, random_state=0)
        X = X.astype({c: pd.CategoricalDtype(net.states[c]) for c in X.columns})
        row = {"network": path.stem, "nodes": len(net.nodes), "arcs": len(net.edges)}
        peer, why = bnlearn_read(path, X) if _bnlearn.available() else (None, "no R")
        if peer is None:
            print(f"# {path.name}: bnlearn refuses it: {why}")
        else:
            cpts, (ll_x, ll_y), Y = peer
            row["read"], row["states"] = compare_cpts(net, cpts)
            row["loglik"] = max(abs(net.log_likelihood(X).sum() - ll_x) / abs(ll_x),
                                abs(net.log_likelihood(Y).sum() - ll_y) / abs(ll_y))
        rng = np.random.default_rng(0)
        row["query"], row["skipped"], row["zero ev"] = check_queries(net, args.queries, rng)
        checks.append(row)
        if not args.no_learn:
            for timing in learn(path, net, X, learners, args.peer_timeout, args.memory):
                timings.append(timing)
                if timing["learner"] in ("hc_bic", "hc_bde", "pc"):
                    key = timing["learner"].replace("_bde", " bde").replace("_bic", " bic")
                    row[key] = timing.get("equal")
                    if "dscore" in timing:
                        row[f"{key} dscore"] = timing["dscore"]
        sys.stdout.flush()
    print(f"# {args.rows} rows each; {_bnlearn.version() or 'bnlearn not available'}")
    print_table(checks, ["network", "nodes", "arcs", "read", "states", "loglik", "query", "skipped",
                         "zero ev", "hc bic", "hc bic dscore", "hc bde", "hc bde dscore", "pc"])
    if timings:
        print()
        print_table(timings, ["network", "rows", "learner", "skbn s", "skbn cpu", "skbn MB",
                              "bnlearn s", "bnlearn cpu", "bnlearn MB", "equal", "dscore", "shd",
                              "bnlearn shd"])


if __name__ == "__main__":
    main()
