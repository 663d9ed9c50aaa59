"""Score-based learners on continuous data against their peers (not part of the test suite).

* ``hc``: ``HillClimbStructure(scorer="bic-g")`` against R bnlearn 4.9 ``hc(x, score =
  "bic-g")`` on random linear-Gaussian networks (``skbn.datasets.make_random_network(p,
  kind="gaussian")``, 10,000 rows): CPU seconds (median of ``--repeats``; R's timed inside R
  with ``proc.time()``, reading the data excluded), whether the graphs are equal, the bic-g
  score of each graph (skbn's ``score_`` and bnlearn's ``score(dag, x, type = "bic-g")``).
  ``--sizes 50 200 1000``; a size above ``--r-max`` runs skbn only.
* ``clg``: the same with ``scorer="bic-cg"`` against ``hc(x, score = "bic-cg")`` on random
  conditional-Gaussian networks (``kind="clg"``; ``--sizes 20 50 --rows 1000 10000 --seeds
  0 1 2``) and ``--real`` CSVs such as bnlearn's ``clgaussian.test`` (string columns are
  discrete). bnlearn reads the CSV's discrete columns as factors of their *observed*
  levels, skbn keeps a declared state never sampled: then the scores of the same graph
  differ by that state's parameters in the penalty.
* ``ges``: ``GESStructure(scorer="bic-g")`` against causal-learn's GES
  (``ges(X, score_func="local_score_BIC")``, run by ``--peer-python``) and pcalg 2.7's
  ``ges(new("GaussL0penObsScore", x, lambda = log(nrow(x)) / 2))`` (run by Rscript; its
  time includes building the score object, timed inside R with ``proc.time()``, reading
  the data excluded) on ``--sizes`` variables and ``--ges-rows`` rows: CPU seconds (skbn:
  median of ``--repeats``; pcalg: best of ``--repeats``; causal-learn: its first run and the
  median of ``--peer-repeats`` runs in one process, each with its speed-up, so that both
  sides can be timed the same way), the bic-g score of each learned class (a peer's CPDAG
  scored through one of its DAGs, by skbn's scorer) and whether each peer's CPDAG equals
  skbn's. A size above ``--peer-max`` skips causal-learn. ``--lattice-both`` adds skbn's
  time with the residual lattice off (every family regressed on its own block, the search
  otherwise the same) and whether that CPDAG is the same; ``--no-peers`` times skbn only.

``--network JSON...`` (``hc`` and ``ges``) runs first the Gaussian networks of the bnlearn
repository given as JSON (pgmpy's example models ``ecoli70``, ``magic-niab``, ``magic-irri``,
``arth150``: coefficients and variances per node): ``--rows`` (``hc``) or ``--ges-rows``
(``ges``) rows sampled from each with ``random_state`` ``--seed``, columns sorted by name
(bnlearn and pcalg depend on the column order, skbn does not), and the CPDAG SHD of every
learned graph to the network's DAG.

Timings are CPU seconds (``time.process_time()``), so a shared machine inflates them less
than wall time; the fit includes encoding the data. Usage::

    python benchmarks/bench_gaussian_learners.py hc --sizes 50 200 1000
    python benchmarks/bench_gaussian_learners.py clg --sizes 20 50 --rows 1000 10000 \
        --seeds 0 1 2 --real /path/to/clgaussian.test.csv
    python benchmarks/bench_gaussian_learners.py ges --sizes 10 15 20 50 --ges-rows 1000 10000 \
        --repeats 7 --peer-repeats 5 [--real /path/to/gaussian.test.csv]
    python benchmarks/bench_gaussian_learners.py hc --sizes --rows 1000 10000 --network ecoli70.json \
        magic-niab.json magic-irri.json arth150.json
"""

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import read_gaussian_json

import skbn._engines._local_scores as local_scores
from skbn import GESStructure, HillClimbStructure
from skbn.datasets import make_random_network
from skbn.graph import PDAG, dag_to_cpdag, pdag_to_dag
from skbn.metrics import structural_hamming_distance
from skbn.scores import GaussianBIC

R_HC = r"""
suppressPackageStartupMessages(library(bnlearn))
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1], check.names = FALSE, stringsAsFactors = TRUE)
for (j in seq_along(x)) if (is.integer(x[[j]])) x[[j]] <- as.numeric(x[[j]])  # (bnlearn: doubles)
repeats <- as.integer(args[2])
start <- proc.time()
for (r in seq_len(repeats)) dag <- hc(x, score = args[3])
used <- proc.time() - start
cat("time", (used[["user.self"]] + used[["sys.self"]]) / repeats, "\n", sep = "\t")
cat("score", format(score(dag, x, type = args[3]), digits = 17), "\n", sep = "\t")
a <- arcs(dag)
for (i in seq_len(nrow(a))) cat("arc", a[i, 1], a[i, 2], "\n", sep = "\t")
"""

PEER_GES = r"""
import json, sys, time
import numpy as np
from causallearn.search.ScoreBased.GES import ges
X = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
times = []
for _ in range(int(sys.argv[2])):
    start = time.process_time()
    record = ges(X, score_func="local_score_BIC")
    times.append(time.process_time() - start)
G = record["G"].graph
print(json.dumps({"first": times[0], "median": float(np.median(times)), "graph": G.tolist()}))
"""


R_GES = r"""
suppressPackageStartupMessages(library(pcalg))
args <- commandArgs(trailingOnly = TRUE)
x <- as.matrix(read.csv(args[1], check.names = FALSE))
best <- Inf
for (r in seq_len(as.integer(args[2]))) {
  start <- proc.time()
  score <- new("GaussL0penObsScore", x, lambda = log(nrow(x)) / 2)
  fit <- ges(score)
  used <- proc.time() - start
  best <- min(best, used[["user.self"]] + used[["sys.self"]])
}
cat("time", best, "\n", sep = "\t")
m <- as(fit$essgraph, "matrix")  # m[i, j]: an edge i -> j (both ways: undirected)
for (i in seq_len(nrow(m))) for (j in seq_len(ncol(m)))
  if (m[i, j]) cat("edge", i - 1, j - 1, "\n", sep = "\t")
"""


def frame(p, n, seed, kind="gaussian"):
    net = make_random_network(p, kind=kind, random_state=seed)
    return net.sample(n, random_state=seed + 1)


def skbn_fit(learner, x, repeats):
    times, model = [], None
    for _ in range(repeats):
        start = time.process_time()
        model = learner.set_params(fit_parameters=False).fit(x)
        times.append(time.process_time() - start)
    return statistics.median(times), model


def dag_score(x, edges):
    """bic-g score of a DAG, family by family (skbn's scorer on the moments of the rows)."""
    from skbn._counting import moments

    names = list(x.columns)
    stats = moments(x.to_numpy(dtype=float))
    scorer = GaussianBIC()
    parents = {v: [] for v in names}
    for u, v in edges:
        parents[v].append(names.index(u))
    return sum(scorer.local_score_moments(stats, names.index(v), sorted(parents[v])) for v in names)


def bnlearn_hc(x, score, repeats):
    """R bnlearn's ``hc(x, score = score)``: best CPU seconds, its score, its arcs (discrete
    columns are written as their state names and read back as factors)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.csv"
        x.to_csv(path, index=False, float_format="%.17g")
        out = subprocess.run(["Rscript", "-e", R_HC, str(path), str(repeats), score],
                             capture_output=True, text=True, check=True).stdout
    seconds = r_score = None
    arcs = []
    for line in out.splitlines():
        field = line.rstrip("\t").split("\t")
        if field[0] == "time":
            seconds = float(field[1])
        elif field[0] == "score":
            r_score = float(field[1])
        elif field[0] == "arc":
            arcs.append((field[1], field[2]))
    return seconds, r_score, arcs


def run_hc(args):
    score = "bic-g" if args.what == "hc" else "bic-cg"
    print("data, p, rows, skbn CPU s, bnlearn CPU s, ratio, same graph, skbn score, bnlearn score"
          + (", skbn SHD, bnlearn SHD (CPDAG, to the network's DAG)" if args.network else ""))
    cases = [(f"random {args.kind_name} seed {seed}", p, rows, seed)
             for p in args.sizes for rows in args.rows for seed in args.seeds]
    cases[:0] = [(path, None, None, None) for path in args.real or ()]
    cases[:0] = [(path, "network", rows, args.seed) for path in args.network or () for rows in args.rows]
    for label, p, rows, seed in cases:
        types, truth = "auto", None
        if p == "network":
            truth, x = network_rows(label, rows, seed)
            p = x.shape[1]
        elif p is None:  # (numeric columns continuous, whole numbers included; text discrete)
            x = pd.read_csv(label).dropna()
            x = x.astype({c: "category" for c in x.columns if not pd.api.types.is_numeric_dtype(x[c])})
            types = {c: "continuous" for c in x.columns if pd.api.types.is_numeric_dtype(x[c])}
            rows, p = x.shape
        else:
            x = frame(p, rows, seed, "gaussian" if args.what == "hc" else "clg")
        seconds, model = skbn_fit(HillClimbStructure(scorer=score, column_types=types), x, args.repeats)
        r_seconds = r_score = same = None
        if p <= args.r_max:
            r_seconds, r_score, arcs = bnlearn_hc(x, score, args.r_repeats)
            same = sorted(arcs) == sorted(model.edges_)
        ratio = None if r_seconds is None else seconds / r_seconds
        shd = "" if truth is None else f", {cpdag_shd(truth, model.edges_)}, " + (
            "" if r_seconds is None else f"{cpdag_shd(truth, arcs)}")
        print(f"{label}, {p}, {rows}, {seconds:.5f}, {r_seconds}, "
              f"{'' if ratio is None else f'{ratio:.2f}'}, {same}, {model.score_:.6f}, {r_score}{shd}",
              flush=True)


def network_rows(path, rows, seed):
    """The network of a JSON file and ``rows`` rows sampled from it, columns sorted by name."""
    truth = read_gaussian_json(path)
    x = truth.sample(rows, random_state=seed)
    return truth, x[sorted(x.columns)]


def cpdag_shd(truth, edges):
    return structural_hamming_distance(truth.edges, edges, truth.nodes, cpdag=True)


def _peer_class(names, directed, undirected):
    """A peer's CPDAG (integer pairs) as a DAG of it over ``names``."""
    return pdag_to_dag(PDAG(names, [(names[i], names[j]) for i, j in directed],
                            [(names[i], names[j]) for i, j in undirected]), strict=False)


def causal_learn_ges(args, path, names):
    out = subprocess.run([args.peer_python, "-c", PEER_GES, str(path), str(args.peer_repeats)],
                         capture_output=True, text=True, check=True).stdout
    peer = json.loads(out.strip().splitlines()[-1])
    graph = np.asarray(peer["graph"])  # causal-learn: G[j, i] = 1, G[i, j] = -1 is i -> j
    p = len(names)
    directed = [(i, j) for i in range(p) for j in range(p) if graph[j, i] == 1 and graph[i, j] == -1]
    undirected = [(i, j) for i in range(p) for j in range(i + 1, p)
                  if graph[i, j] == -1 and graph[j, i] == -1]
    return (peer["first"], peer["median"]), _peer_class(names, directed, undirected)


def pcalg_ges(args, path, names):
    out = subprocess.run(["Rscript", "-e", R_GES, str(path), str(args.repeats)], capture_output=True,
                         text=True, check=True).stdout
    seconds, edges = None, set()
    for line in out.splitlines():
        field = line.rstrip("\t").split("\t")
        if field[0] == "time":
            seconds = float(field[1])
        elif field[0] == "edge":
            edges.add((int(field[1]), int(field[2])))
    directed = [(i, j) for i, j in edges if (j, i) not in edges]
    undirected = [(i, j) for i, j in edges if i < j and (j, i) in edges]
    return seconds, _peer_class(names, directed, undirected)


def run_ges(args):
    regressed = ", skbn CPU s regressing every family (no lattice)" if args.lattice_both else ""
    print(f"p, rows, skbn CPU s{regressed}, causal-learn CPU s (first run), causal-learn CPU s (median of "
          f"{args.peer_repeats}), pcalg CPU s, speed-up vs causal-learn (first run), speed-up vs "
          f"causal-learn (median), speed-up vs pcalg, skbn score, causal-learn score, pcalg score, "
          f"same CPDAG as causal-learn, same CPDAG as pcalg"
          + (", CPDAG SHD to the network's DAG (skbn / causal-learn / pcalg)" if args.network else ""))
    cases = [("network", (path, rows)) for path in args.network or () for rows in args.ges_rows]
    cases += [(None, path) for path in args.real or ()]  # (real data first: every column continuous)
    cases += [(p, rows) for rows in args.ges_rows for p in args.sizes]
    for p, rows in cases:
        truth = None
        if p == "network":
            truth, x = network_rows(*rows, args.seed)
            rows, p = x.shape
        elif p is None:
            x = pd.read_csv(rows).dropna()
            rows, p = x.shape
        else:
            x = frame(p, rows, args.seed)
        names = list(x.columns)
        seconds, model = skbn_fit(GESStructure(scorer="bic-g"), x, args.repeats)
        own = dag_score(x, model.edges_)
        mine = dag_to_cpdag(names, model.edges_)
        row = [f"{p}", f"{rows}", f"{seconds:.4f}"]
        if args.lattice_both:  # the same fit with every family regressed on its own block
            cap = local_scores.LATTICE_MAX_COLUMNS
            local_scores.LATTICE_MAX_COLUMNS = 0
            try:
                regressed, other = skbn_fit(GESStructure(scorer="bic-g"), x, args.repeats)
            finally:
                local_scores.LATTICE_MAX_COLUMNS = cap
            row.append(f"{regressed:.4f} ({'same' if other.cpdag_ == model.cpdag_ else 'OTHER'} CPDAG)")
        peers = []
        if args.no_peers:
            print(", ".join(row + [f"{own:.6f}"]), flush=True)
            continue
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "x.csv"
            x.to_csv(path, index=False, float_format="%.17g")
            cl = causal_learn_ges(args, path, names) if p <= args.peer_max else None
            peers = [cl, pcalg_ges(args, path, names)]
        times = [*(cl[0] if cl is not None else (None, None)), peers[1][0]]  # (first, median), pcalg
        row.extend("" if t is None else f"{t:.3f}" for t in times)
        row.extend("" if t is None else f"{t / seconds:.1f}" for t in times)
        row.append(f"{own:.6f}")
        for peer in peers:
            row.append("" if peer is None else f"{dag_score(x, peer[1]):.6f}")
        for peer in peers:
            row.append("" if peer is None else str(dag_to_cpdag(names, peer[1]) == mine))
        if truth is not None:  # CPDAG SHD to the network's DAG: skbn, causal-learn, pcalg
            row.append("SHD " + " / ".join("" if graph is None else str(cpdag_shd(truth, graph))
                                           for graph in [model.edges_] + [q and q[1] for q in peers]))
        print(", ".join(row), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["hc", "clg", "ges"])
    parser.add_argument("--sizes", type=int, nargs="*", default=None,
                        help="numbers of variables of the random networks (none given: --real only)")
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000], help="rows of hc and clg")
    parser.add_argument("--ges-rows", type=int, nargs="+", default=[1_000])
    parser.add_argument("--seed", type=int, default=0, help="seed of ges and of the --network rows")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="seeds of hc and clg")
    parser.add_argument("--real", default=None, nargs="+",
                        help="CSVs (e.g. bnlearn's gaussian.test or clgaussian.test) run first")
    parser.add_argument("--network", default=None, nargs="+",
                        help="hc, ges: Gaussian networks as JSON (bnlearn repository), run first")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--r-repeats", type=int, default=3)
    parser.add_argument("--r-max", type=int, default=200, help="largest size run in R too")
    parser.add_argument("--peer-python", default="/work/peervenv/bin/python")
    parser.add_argument("--peer-max", type=int, default=50, help="largest size run by causal-learn")
    parser.add_argument("--lattice-both", action="store_true",
                        help="ges: also time skbn with the residual lattice off (LATTICE_MAX_COLUMNS = 0)")
    parser.add_argument("--no-peers", action="store_true", help="ges: time skbn only")
    parser.add_argument("--peer-repeats", type=int, default=1,
                        help="runs of causal-learn's GES per fit (its first and median reported)")
    args = parser.parse_args()
    if args.what == "hc":
        args.sizes = [50, 200, 1000] if args.sizes is None else args.sizes
        args.kind_name = "Gaussian"
        run_hc(args)
    elif args.what == "clg":
        args.sizes = [20, 50] if args.sizes is None else args.sizes
        args.kind_name = "CLG"
        run_hc(args)
    else:
        args.sizes = [10, 15, 20, 50] if args.sizes is None else args.sizes
        run_ges(args)


if __name__ == "__main__":
    pd.set_option("display.width", 200)
    main()
