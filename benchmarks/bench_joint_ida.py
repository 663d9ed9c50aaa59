"""Joint IDA (``skbn.causal.joint_ida`` on continuous columns) against R pcalg 2.7-12 ``jointIda``.

Random linear-Gaussian networks come from ``make_random_network(kind="gaussian")`` (6-10
nodes, several seeds); the CPDAG is the true DAG's (``skbn.graph.dag_to_cpdag``). R gets the
rows and the CPDAG's adjacency matrix and, for every pair of intervened nodes ``(x1, x2)``
and every outcome ``y``, runs

    g <- as(t(amat), "graphNEL"); C <- cov(d)
    jointIda(c(x1, x2), y, C, graphEst = g, technique = "RRC" / "MCD")

(the default ``type``, ``"pdag"``: the distinct jointly valid combinations); it also prints
the parent sets of each column (``pcalg:::b.extract.parent.sets``, the function jointIda
calls). skbn's rows are matched to pcalg's columns by their parent sets, so the combinations
are compared as sets and the effects combination by combination.

Run: ``PYTHONPATH=$PWD python benchmarks/bench_joint_ida.py``.
"""

import time

import numpy as np
from bench_ida_gaussian import run_pcalg

R_SCRIPT = """
suppressMessages(library(pcalg))
d <- as.matrix(read.csv("{data}", header = FALSE)); amat <- as.matrix(read.csv("{amat}", header = FALSE))
p <- ncol(d); dimnames(amat) <- list(as.character(seq_len(p)), as.character(seq_len(p)))
C <- cov(d); g <- as(t(amat), "graphNEL")
for (x1 in 1:(p - 1)) for (x2 in (x1 + 1):p) {{
  xs <- c(x1, x2)
  sets <- pcalg:::b.extract.parent.sets(xs, t(as(g, "matrix")))
  for (y in setdiff(1:p, xs)) for (t in c("RRC", "MCD")) {{
    b <- jointIda(xs, y, C, graphEst = g, technique = t)
    for (k in seq_along(sets)) cat(t, x1 - 1, x2 - 1, y - 1, "|",
        paste(sort(sets[[k]][[1]]) - 1, collapse = " "), "|",
        paste(sort(sets[[k]][[2]]) - 1, collapse = " "), "|",
        sprintf("%.17g", b[, k]), "\\n")
  }}
}}
"""


def pcalg_joint_ida(rows, cpdag):
    """``{(technique, x1, x2, y): {(pa1, pa2): (effect1, effect2)}}`` (0-based positions)."""
    out = run_pcalg(R_SCRIPT, rows, cpdag)
    result = {}
    for line in out.splitlines():
        head, pa1, pa2, values = line.split("|")
        technique, x1, x2, y = head.split()
        key = (technique, int(x1), int(x2), int(y))
        sets = (tuple(int(v) for v in pa1.split()), tuple(int(v) for v in pa2.split()))
        result.setdefault(key, {})[sets] = tuple(float(v) for v in values.split())
    return result


def skbn_joint_ida(rows, cpdag, xs, y, technique):
    from skbn.causal import joint_ida

    table = joint_ida(rows, cpdag, list(xs), y, technique=technique)
    return {tuple(tuple(pa) for pa in sets): tuple(float(v) for v in values)
            for sets, *values in zip(table["parents"], *(table[f"effect_{x}"] for x in xs))}


def main():
    from skbn.datasets import make_random_network
    from skbn.graph import dag_to_cpdag

    for p, n, seed in [(6, 500, 0), (7, 1000, 1), (8, 300, 2), (9, 2000, 3), (10, 500, 4)]:
        net = make_random_network(p, kind="gaussian", random_state=seed)
        position = {v: k for k, v in enumerate(net.nodes)}
        rows = net.sample(n, random_state=seed).to_numpy()
        cpdag = dag_to_cpdag(list(range(p)), [(position[u], position[v]) for u, v in net.edges])
        reference = pcalg_joint_ida(rows, cpdag)
        worst, n_combos, start = 0.0, 0, time.process_time()
        for (technique, x1, x2, y), theirs in reference.items():
            ours = skbn_joint_ida(rows, cpdag, (x1, x2), y, technique)
            assert set(ours) == set(theirs), (technique, x1, x2, y, sorted(ours), sorted(theirs))
            for sets, values in theirs.items():
                worst = max(worst, float(np.max(np.abs(np.subtract(ours[sets], values)))))
            n_combos += len(theirs)
        print(f"p={p} n={n} seed={seed} undirected={len(cpdag.undirected)} "
              f"(pair, y, technique) cases={len(reference)} combinations={n_combos} "
              f"max|skbn - pcalg|={worst:.2e} skbn CPU {time.process_time() - start:.2f} s")


if __name__ == "__main__":
    main()
