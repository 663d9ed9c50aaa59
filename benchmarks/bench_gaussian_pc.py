"""PC-stable with Fisher's z on continuous data: skbn against R bnlearn and pcalg.

For each data set (bnlearn's ``gaussian.test`` when ``/work/realdata`` or ``--gaussian-test``
gives it, and random sparse linear-Gaussian networks drawn by numpy) it runs

* skbn ``PCStructure(ci_test=FisherZ(alpha), fit_parameters=False)``,
* bnlearn ``pc.stable(x, test = "zf", alpha = alpha)``,
* pcalg ``pc(suffStat = list(C = cor(X), n = n), indepTest = gaussCItest,
  skel.method = "stable", alpha = alpha)`` (``cor(X)`` timed with it),

and prints a table: CPU seconds (median of ``--repeats``; skbn in this process with
``time.process_time``, the peers inside R with ``proc.time``), peak memory (skbn: tracemalloc
peak of the fit, R: VmHWM of the process), number of skeleton edges, and whether the
skeletons are identical. ``--big`` adds the 1,000 variables x 10,000 rows case (skbn only
unless ``--big-peers``). ``--robust`` prints instead the CPDAG SHD of Fisher-z PC and of
robust PC (:class:`~skbn.citests.RobustFisherZ`) with 5% of the rows gross outliers.

Usage::

    python benchmarks/bench_gaussian_pc.py [--repeats 3] [--big] [--alpha 0.01]
    python benchmarks/bench_gaussian_pc.py --robust
"""

import argparse
import os
import subprocess
import tempfile
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd

from skbn.citests import FisherZ, RobustFisherZ
from skbn.estimators import PCStructure
from skbn.metrics import structural_hamming_distance

R_SCRIPT = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages({library(bnlearn); library(pcalg)})
x <- read.csv(args[1], check.names = FALSE)
alpha <- as.numeric(args[2]); repeats <- as.integer(args[3]); which <- args[4]
best <- Inf
for (r in seq_len(repeats)) {
  start <- proc.time()
  if (which == "bnlearn") {
    fit <- pc.stable(x, test = "zf", alpha = alpha)
  } else {
    X <- as.matrix(x)
    fit <- pc(suffStat = list(C = cor(X), n = nrow(X)), indepTest = gaussCItest,
              skel.method = "stable", alpha = alpha, labels = colnames(X))
  }
  used <- proc.time() - start
  best <- c(best, used[["user.self"]] + used[["sys.self"]])
}
status <- readLines("/proc/self/status")
peak <- sub("[^0-9]*([0-9]+).*", "\\1", grep("^VmHWM", status, value = TRUE))
cat("time", median(best[-1]), as.numeric(peak) / 1024, "\n", sep = "\t")
if (which == "bnlearn") {
  a <- amat(fit)
} else {
  a <- as(fit@graph, "matrix")
}
a <- (a + t(a)) > 0
for (i in seq_len(nrow(a))) for (j in seq_len(ncol(a))) if (i < j && a[i, j])
  cat("edge", rownames(a)[i], colnames(a)[j], "\n", sep = "\t")
"""


def random_gaussian_data(n_variables, n_samples, n_edges, seed):
    """Rows of a random linear-Gaussian DAG: ``n_edges`` arcs between random pairs in a
    random order, coefficients uniform in +-[0.5, 1.5], unit noise; returns the frame and
    the true arcs ``(parent, child)``."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(n_variables)
    pairs = set()
    while len(pairs) < n_edges:
        a, b = sorted(rng.choice(n_variables, 2, replace=False))
        pairs.add((int(a), int(b)))
    coef = np.zeros((n_variables, n_variables))
    for a, b in pairs:  # a before b in the order
        coef[order[a], order[b]] = rng.uniform(0.5, 1.5) * rng.choice([-1, 1])
    values = np.zeros((n_samples, n_variables))
    for v in order:
        values[:, v] = values @ coef[:, v] + rng.normal(size=n_samples)
    names = [f"X{i}" for i in range(n_variables)]
    arcs = sorted((names[order[a]], names[order[b]]) for a, b in pairs)
    return pd.DataFrame(values, columns=names), arcs


def run_skbn(frame, alpha, repeats):
    times = []
    for _ in range(repeats):
        start = time.process_time()
        pc = PCStructure(ci_test=FisherZ(alpha=alpha), fit_parameters=False).fit(frame)
        times.append(time.process_time() - start)
    tracemalloc.start()
    PCStructure(ci_test=FisherZ(alpha=alpha), fit_parameters=False).fit(frame)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    edges = {frozenset(e) for e in pc.directed_edges_ + pc.undirected_edges_}
    return float(np.median(times)), peak, edges


def run_r(frame, alpha, repeats, which):
    with tempfile.TemporaryDirectory() as folder:
        data, script = os.path.join(folder, "x.csv"), os.path.join(folder, "pc.R")
        frame.to_csv(data, index=False, float_format="%.17g")
        with open(script, "w") as handle:
            handle.write(R_SCRIPT)
        out = subprocess.run(["Rscript", script, data, repr(alpha), str(repeats), which],
                             capture_output=True, text=True, check=False)
    if out.returncode:
        return None, None, None
    cpu = peak = None
    edges = set()
    for line in out.stdout.splitlines():
        parts = line.split("\t")
        if parts[0] == "time":
            cpu, peak = float(parts[1]), float(parts[2])
        elif parts[0] == "edge":
            edges.add(frozenset(parts[1:3]))
    return cpu, peak, edges


def robust_table(seeds, share=0.05):
    """CPDAG SHD (true CPDAG vs learned) of Fisher-z PC and robust PC when ``share`` of the
    rows are replaced by gross outliers (N(100, 50^2) in every column)."""
    print(f"\nrobust PC: {share:.0%} of rows gross outliers, alpha=0.01, SHD of the CPDAGs")
    print(f"{'data':28s} {'seed':>4s} {'SHD zf':>7s} {'SHD robust':>10s} {'SHD zf clean':>12s}")
    totals = np.zeros(3)
    for p, n in [(10, 1000), (20, 2000)]:
        for seed in seeds:
            frame, arcs = random_gaussian_data(p, n, p, seed)
            rng = np.random.default_rng(seed)
            dirty = frame.to_numpy().copy()
            rows = rng.choice(n, int(share * n), replace=False)
            dirty[rows] = rng.normal(100.0, 50.0, size=(len(rows), p))
            dirty = pd.DataFrame(dirty, columns=frame.columns)
            shd = []
            for test, X in [(FisherZ(alpha=0.01), dirty), (RobustFisherZ(alpha=0.01, random_state=0), dirty),
                            (FisherZ(alpha=0.01), frame)]:
                pc = PCStructure(ci_test=test, fit_parameters=False).fit(X)
                shd.append(structural_hamming_distance(arcs, pc.cpdag_, cpdag=True))
            totals += shd
            print(f"{f'random p={p} n={n}':28s} {seed:4d} {shd[0]:7d} {shd[1]:10d} {shd[2]:12d}")
    print(f"{'total':28s} {'':4s} {int(totals[0]):7d} {int(totals[1]):10d} {int(totals[2]):12d}")


def main():
    warnings.simplefilter("ignore")  # orientation conflicts of PC on noisy data
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--alpha", type=float, default=0.01)
    parser.add_argument("--big", action="store_true")
    parser.add_argument("--big-peers", action="store_true")
    parser.add_argument("--robust", action="store_true", help="only the robust-PC SHD table")
    parser.add_argument("--gaussian-test", default="/work/realdata/gaussian.test.csv")
    args = parser.parse_args()
    if args.robust:
        return robust_table(range(5))
    cases = []
    if os.path.exists(args.gaussian_test):
        cases.append(("gaussian.test", pd.read_csv(args.gaussian_test), True))
    for p, n in [(20, 1000), (50, 5000), (50, 500)]:
        cases.append((f"random p={p} n={n}", random_gaussian_data(p, n, p, seed=p + n)[0], True))
    if args.big:
        cases.append(("random p=1000 n=10000", random_gaussian_data(1000, 10_000, 1000, seed=1)[0],
                      args.big_peers))
    print(f"alpha={args.alpha}, CPU seconds (median of {args.repeats}), peak MB; shared machine")
    header = f"{'data':24s} {'skbn s':>8s} {'MB':>7s} {'bnlearn s':>10s} {'MB':>7s} {'pcalg s':>8s} " \
             f"{'MB':>7s} {'ratio':>6s} {'edges':>6s} {'=bnlearn':>8s} {'=pcalg':>7s}"
    print(header)
    for name, frame, peers in cases:
        cpu, peak, edges = run_skbn(frame, args.alpha, args.repeats)
        row = {"bnlearn": (None, None, None), "pcalg": (None, None, None)}
        if peers:
            for which in row:
                row[which] = run_r(frame, args.alpha, args.repeats, which)
        peer_times = [row[w][0] for w in row if row[w][0]]
        ratio = cpu / min(peer_times) if peer_times else float("nan")

        def fmt(value, width, digits=3):
            return f"{'-':>{width}s}" if value is None else f"{value:{width}.{digits}f}"

        same = [("-" if row[w][2] is None else str(row[w][2] == edges)) for w in row]
        print(f"{name:24s} {cpu:8.3f} {peak:7.1f} {fmt(row['bnlearn'][0], 10)} "
              f"{fmt(row['bnlearn'][1], 7, 1)} {fmt(row['pcalg'][0], 8)} {fmt(row['pcalg'][1], 7, 1)} "
              f"{ratio:6.2f} {len(edges):6d} {same[0]:>8s} {same[1]:>7s}", flush=True)


if __name__ == "__main__":
    main()
