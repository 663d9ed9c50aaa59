"""Benchmark parameter EM of Gaussian and CLG networks on data with missing cells.

Run (single core numbers)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_gaussian_em.py [--kinds gaussian clg]
        [--nodes 10 30] [--rows 2000] [--rates 0.1 0.3] [--repeats 3] [--skip-bnlearn]
        [--network ecoli70.json magic-niab.json magic-irri.json arth150.json]

For every kind, number of nodes and rate: the random network
``make_random_network(n, kind=kind, max_indegree=2, n_states=(2, 3), random_state=0)``
(``--network JSON...``: instead the Gaussian networks of the bnlearn repository in pgmpy's
JSON layout, e.g. ``ecoli70.json``, ``arth150.json``),
``--rows`` training rows with every cell missing completely at random (MCAR) with
probability ``rate``, and 10,000 complete held-out rows. On the true DAG, maximum
likelihood (``parameter_estimator="mle"``):

* ``skbn EM``: ``FixedStructure(edges=truth.edges, missing="em")`` (``em_tol=1e-6``, at most
  100 iterations);
* ``available case``: the same with ``em_max_iter=0``, i.e. EM's start, each family fitted on
  the rows observing all of its cells;
* ``complete case``: ``missing="complete_case"`` (when enough complete rows are left);
* ``bnlearn single-imputation EM`` (Gaussian networks, R bnlearn 4.9 when installed; bnlearn
  has no EM with expected moments):
  ``structural.em(x, maximize = "hc", maximize.args = list(whitelist = <true arcs>,
  blacklist = <every other arc>), fit = "mle-g", impute = "exact", max.iter = 100)``, which
  imputes every missing cell by its conditional mean and refits until the DAG (fixed here)
  stops changing; its parameters read back into a ``GaussianBayesianNetwork``.

Columns: CPU seconds of the fit (median of ``--repeats`` runs; bnlearn's timed inside R with
``proc.time()``, one run, R startup and data transfer not timed), EM iterations, the
observed-data log-likelihood per training row (missing cells integrated out) and the
held-out log-likelihood per row, both computed by skbn for every parameter set.
"""

import argparse
import shutil
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from _common import print_table, read_gaussian_json  # (also puts the checkout on sys.path)

from skbn.datasets import make_random_network  # noqa: E402
from skbn.estimators import FixedStructure  # noqa: E402
from skbn.network import GaussianBayesianNetwork  # noqa: E402

R_SCRIPT = r"""
suppressPackageStartupMessages(library(bnlearn))
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1], check.names = FALSE)
nodes <- names(x)
dag <- empty.graph(nodes)
if (nchar(args[2])) arcs(dag) <- matrix(strsplit(args[2], "\t")[[1]], ncol = 2, byrow = TRUE)
pairs <- expand.grid(from = nodes, to = nodes, stringsAsFactors = FALSE)
pairs <- pairs[pairs$from != pairs$to, ]
wl <- arcs(dag)
bl <- pairs[!(paste(pairs$from, pairs$to) %in% paste(wl[, 1], wl[, 2])), ]
start <- proc.time()
r <- suppressWarnings(structural.em(x, maximize = "hc", maximize.args = list(whitelist = wl,
        blacklist = bl), fit = "mle-g", impute = "exact", max.iter = 100, return.all = TRUE))
used <- proc.time() - start
cat("time", used[["user.self"]] + used[["sys.self"]], "\n", sep = "\t")
for (v in nodes) {
  b <- coef(r$fitted[[v]])
  cat("node", v, format(r$fitted[[v]]$sd, digits = 17), paste(names(b), format(b, digits = 17),
      sep = "=", collapse = ";"), "\n", sep = "\t")
}
"""


def mcar(frame, rate, seed):
    return frame.mask(np.random.default_rng(seed).random(frame.shape) < rate)


def bnlearn_em(truth, X):
    """bnlearn's single-imputation EM on the true DAG: ``(cpu seconds, network)`` or None."""
    if shutil.which("Rscript") is None:
        return None
    model = "\t".join(node for edge in truth.edges for node in edge)  # (names with dots, digits)
    with tempfile.TemporaryDirectory() as folder:
        data, script = Path(folder, "x.csv"), Path(folder, "em.R")
        X.to_csv(data, index=False, na_rep="NA")
        script.write_text(R_SCRIPT)
        run = subprocess.run(["Rscript", str(script), str(data), model], capture_output=True, text=True)
    if run.returncode:
        print(f"# bnlearn failed: {run.stderr.strip()[-300:]}")
        return None
    intercepts, coefficients, sigmas, seconds = {}, {}, {}, None
    for line in run.stdout.splitlines():
        fields = line.split("\t")
        if fields[0] == "time":
            seconds = float(fields[1])
        elif fields[0] == "node":
            node, sigma = fields[1], float(fields[2])
            terms = dict(term.split("=") for term in fields[3].split(";"))
            intercepts[node] = float(terms.pop("(Intercept)"))
            coefficients[node] = [float(terms[p]) for p in truth.parents[node]]
            sigmas[node] = sigma
    network = GaussianBayesianNetwork(truth.nodes, truth.parents, intercepts, coefficients, sigmas)
    return seconds, network


def median_cpu(fit, repeats):
    times, model = [], None
    for _ in range(repeats):
        start = time.process_time()
        model = fit()
        times.append(time.process_time() - start)
    return float(np.median(times)), model


def rows_for(kind, n_nodes, n_rows, rate, repeats, bnlearn):
    if kind.endswith(".json"):
        truth = read_gaussian_json(kind)
        kind, n_nodes = "gaussian", f"{Path(kind).stem} ({len(truth.nodes)})"
    else:
        truth = make_random_network(n_nodes, kind=kind, max_indegree=2, n_states=(2, 3), random_state=0)
    train = truth.sample(n_rows, random_state=1)
    test = truth.sample(10_000, random_state=2)
    X = mcar(train, rate, seed=3)
    out = []

    def row(method, seconds, network, iterations="-"):
        out.append({"kind": kind, "nodes": n_nodes, "MCAR": rate, "method": method, "cpu_s": seconds,
                    "iterations": iterations,
                    "train_ll": f"{network.log_likelihood(X).mean():.4f}",
                    "heldout_ll": f"{network.log_likelihood(test).mean():.4f}"})

    em = dict(edges=truth.edges, missing="em", parameter_estimator="mle")
    seconds, model = median_cpu(lambda: FixedStructure(**em).fit(X), repeats)
    row("skbn EM", seconds, model.network_, model.em_n_iter_)
    seconds, model = median_cpu(lambda: FixedStructure(**em, em_max_iter=0).fit(X), repeats)
    row("available case", seconds, model.network_)
    n_complete = int(X.notna().all(axis=1).sum())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            seconds, model = median_cpu(lambda: FixedStructure(
                edges=truth.edges, missing="complete_case", parameter_estimator="mle").fit(X), repeats)
        row(f"complete case ({n_complete} rows)", seconds, model.network_)
    except ValueError:  # too few complete rows for some family
        out.append({"kind": kind, "nodes": n_nodes, "MCAR": rate,
                    "method": f"complete case ({n_complete} rows): not estimable"})
    if bnlearn and kind == "gaussian":  # (and the --network ones)
        result = bnlearn_em(truth, X)
        if result is not None:
            row("bnlearn single-imputation EM", *result)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kinds", nargs="*", default=None,
                        help="random networks (default: gaussian clg, none with --network)")
    parser.add_argument("--nodes", type=int, nargs="+", default=[10, 30])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--rates", type=float, nargs="+", default=[0.1, 0.3])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-bnlearn", action="store_true")
    parser.add_argument("--network", nargs="+", default=[],
                        help="Gaussian networks as JSON (pgmpy's bnlearn-repository models), run first")
    args = parser.parse_args()
    out = []
    for path in args.network:
        for rate in args.rates:
            out.extend(rows_for(path, None, args.rows, rate, args.repeats, not args.skip_bnlearn))
    for kind in (args.kinds if args.kinds is not None else [] if args.network else ["gaussian", "clg"]):
        for n_nodes in args.nodes:
            for rate in args.rates:
                out.extend(rows_for(kind, n_nodes, args.rows, rate, args.repeats, not args.skip_bnlearn))
    print(f"Parameter EM on the true DAG, {args.rows} training rows, MCAR, maximum likelihood")
    print_table(out, ["kind", "nodes", "MCAR", "method", "cpu_s", "iterations", "train_ll", "heldout_ll"])


if __name__ == "__main__":
    main()
