"""GIES (``GESStructure.fit(X, interventions=...)``) against R pcalg's ``gies``.

Random linear Gaussian networks (``skbn.datasets.make_random_network``, pcalg's weights in
[0.1, 1], unit noise) with 8 to 15 variables; ``n_obs`` observational rows plus ``n_int``
rows for each of 2 to 4 single-variable targets chosen at random, where the target is set
to a fresh N(0, 2^2) draw (a hard intervention) and its descendants follow. pcalg scores
with ``GaussL0penIntScore`` (BIC, ``lambda = log(n) / 2``, intercept), skbn with
``bic-g`` on the maximum-likelihood variance (``GaussianBIC(variance="mle")``), each family
on the rows where its child was not set. The two differ only in the penalty of an
intervened child (``log(n_kept) / 2`` per parameter in skbn, ``log(n) / 2`` in pcalg);
otherwise they are equal up to a constant per variable.

For every network the table gives the number of edges of the true DAG, of each learned
essential graph, whether the two essential graphs are identical, their structural
Hamming distance (a differently marked edge counts 1) and each side's CPU time
(``time.process_time`` for skbn; R's ``proc.time`` user + system for ``gies`` alone,
R start-up and data reading excluded). ``--phases fb`` runs both without the turning
phase (the forward, backward and turning operators are Hauser & Bühlmann's in both).
``--observational`` compares GES instead: ``GESStructure().fit`` on the ``n_obs``
observational rows alone against pcalg's ``ges`` with ``GaussL0penObsScore``.
``--edge-restarts k`` fits skbn with ``GESStructure(edge_restarts=k)`` (deterministic restarts
by edge deletion, which pcalg does not have: a difference then means skbn found a class
scoring higher than pcalg's). Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_gies.py [--quick] [--phases fb] [--observational]
        [--edge-restarts 10]
"""

import argparse
import os
import subprocess
import tempfile
import time

import numpy as np
import pandas as pd

from skbn import GESStructure
from skbn.datasets import make_random_network
from skbn.scores import GaussianBIC

R_SCRIPT = r"""
suppressMessages(library(pcalg))
args <- commandArgs(trailingOnly = TRUE)
X <- as.matrix(read.csv(args[1]))
targets <- c(list(integer(0)), as.list(as.integer(scan(args[2], quiet = TRUE))))
index <- scan(args[3], quiet = TRUE)
phases <- strsplit(args[5], ",")[[1]]
observational <- length(targets) == 1
if (observational) {
  score <- new("GaussL0penObsScore", data = X)
} else {
  score <- new("GaussL0penIntScore", data = X, targets = targets, target.index = index)
}
t0 <- proc.time()
if (observational) {
  fit <- ges(score, phase = phases, iterate = length(phases) > 1)
} else {
  fit <- gies(score, phase = phases, iterate = length(phases) > 1)
}
t1 <- proc.time() - t0
m <- as(fit$essgraph, "matrix")
write.csv(m * 1, args[4], row.names = FALSE)
cat((t1[["user.self"]] + t1[["sys.self"]]), "\n")
"""


def interventional_rows(net, n_obs, n_int, targets, rng):
    """Rows of the linear Gaussian network ``net``: ``n_obs`` observational, then ``n_int``
    for each target node where that node is a fresh N(0, 4) draw; and the 1-based
    pcalg target index of every row (1: observational)."""
    nodes = list(net.nodes)
    blocks, index = [], []
    for k, target in enumerate([None, *targets]):
        n = n_obs if target is None else n_int
        x = {}
        for node in net.topological_order():
            if node == target:
                x[node] = rng.normal(0.0, 2.0, n)
                continue
            value = net.intercepts[node] + rng.normal(0.0, net.sigmas[node], n)
            for parent, b in zip(net.parents[node], net.coefficients[node]):
                value = value + b * x[parent]
            x[node] = value
        blocks.append(pd.DataFrame({node: x[node] for node in nodes}))
        index += [k + 1] * n
    return pd.concat(blocks, ignore_index=True), np.array(index)


def skbn_gies(X, index, targets, phases, edge_restarts=0):
    """GIES (GES without targets) on ``X``; the essential graph and the CPU time."""
    mask = np.zeros(X.shape, dtype=bool)
    columns = list(X.columns)
    for k, target in enumerate(targets):
        mask[index == k + 2, columns.index(target)] = True
    start = time.process_time()
    model = GESStructure(scorer=GaussianBIC(variance="mle"), phases=phases, edge_restarts=edge_restarts,
                         fit_parameters=False).fit(X, interventions=mask if targets else None)
    return model.cpdag_, time.process_time() - start


def pcalg_gies(X, index, targets, phases):
    """pcalg's ``gies`` (``ges`` without targets) on ``X``; its essential graph as a
    boolean matrix and its CPU time."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = [os.path.join(tmp, name) for name in ("x.csv", "t.csv", "i.txt", "m.csv", "g.R")]
        X.to_csv(paths[0], index=False)
        columns = list(X.columns)
        np.savetxt(paths[1], [columns.index(t) + 1 for t in targets], fmt="%d")
        np.savetxt(paths[2], index, fmt="%d")
        with open(paths[4], "w") as f:
            f.write(R_SCRIPT)
        out = subprocess.run(["Rscript", paths[4], *paths[:4], ",".join(phases)],
                             capture_output=True, text=True)
        if out.returncode:
            raise RuntimeError(out.stderr)
        matrix = pd.read_csv(paths[3]).to_numpy().astype(bool)
    return matrix, float(out.stdout.split()[-1])


def as_marks(pdag, columns):
    """Adjacency matrix ``m[i, j]``: an edge ``i -> j`` or ``i - j`` (both ways)."""
    position = {c: i for i, c in enumerate(columns)}
    m = np.zeros((len(columns),) * 2, dtype=bool)
    for u, v in pdag.directed:
        m[position[u], position[v]] = True
    for u, v in pdag.undirected:
        m[position[u], position[v]] = m[position[v], position[u]] = True
    return m


def shd(a, b):
    """Pairs whose marks differ (missing, extra, or differently oriented edge: 1 each)."""
    diff = (a != b) | (a.T != b.T)
    return int(np.triu(diff, 1).sum())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--phases", choices=("fbt", "fb"), default="fbt")
    parser.add_argument("--observational", action="store_true",
                        help="GES on the observational rows against pcalg's ges")
    parser.add_argument("--edge-restarts", type=int, default=0,
                        help="skbn with GESStructure(edge_restarts=k)")
    args = parser.parse_args()
    phases = ("forward", "backward", "turning") if args.phases == "fbt" else ("forward", "backward")
    sizes = [(8, 2), (10, 3), (12, 3), (15, 4)]
    seeds = range(2) if args.quick else range(5)
    rows, agree = [], 0
    for p, n_targets in sizes:
        for seed in seeds:
            rng = np.random.default_rng(1000 * p + seed)
            net = make_random_network(p, kind="gaussian", random_state=1000 * p + seed)
            targets = list(rng.choice(list(net.nodes), n_targets, replace=False))
            X, index = interventional_rows(net, 1000, 300, targets, rng)
            if args.observational:
                keep = index == 1
                X, index, targets = X[keep].reset_index(drop=True), index[keep], []
            ours, t_ours = skbn_gies(X, index, targets, phases, args.edge_restarts)
            theirs, t_theirs = pcalg_gies(X, index, targets, phases)
            mine = as_marks(ours, list(X.columns))
            d = shd(mine, theirs)
            agree += d == 0
            rows.append((p, seed, len(targets), len(net.edges), int(np.triu(mine | mine.T, 1).sum()),
                         int(np.triu(theirs | theirs.T, 1).sum()), d == 0, d, t_ours, t_theirs))
    rows_used = "1000 observational rows (GES, pcalg ges)" if args.observational else \
        "1000 observational rows + 300 per target"
    print(f"phases={','.join(phases)}; {rows_used}; skbn edge_restarts={args.edge_restarts}")
    print(f"{'p':>3} {'seed':>4} {'|I|':>3} {'true':>4} {'skbn':>4} {'pcalg':>5} {'same':>5} "
          f"{'SHD':>3} {'skbn s':>7} {'pcalg s':>7}")
    for p, seed, k, e, a, b, same, d, t1, t2 in rows:
        print(f"{p:>3} {seed:>4} {k:>3} {e:>4} {a:>4} {b:>5} {str(same):>5} {d:>3} {t1:>7.3f} {t2:>7.3f}")
    times = np.array([r[-2:] for r in rows])
    print(f"identical essential graphs: {agree}/{len(rows)}; median CPU s skbn "
          f"{np.median(times[:, 0]):.3f}, pcalg {np.median(times[:, 1]):.3f}")


if __name__ == "__main__":
    main()
