"""Graph checking without ground truth (`skbn.checking`): calibration and discrimination.

1. Calibration: on 20 random networks (``make_random_network``, 20 nodes) the p-values of
   the true graph's implied independencies, tested on fresh rows, should be uniform: the
   rejection rate at alpha = 0.05 and the Kolmogorov-Smirnov p-value per network.
2. Discrimination: candidate graphs of ALARM at a range of structural Hamming distances from
   the truth (random single-edge edits that keep the graph acyclic); the Spearman rank
   correlation between the check's score (``agreement``) and the SHD on 10,000 held-out rows.
3. Time of one check on ALARM with 10,000 rows.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_checking.py
"""

import time

import numpy as np
from _common import print_table  # noqa: F401  (puts this checkout first on sys.path)
from scipy import stats

from skbn.checking import markov_check
from skbn.datasets import load_network, make_random_network
from skbn.graph import is_acyclic
from skbn.metrics import structural_hamming_distance


def calibration(n_networks=20, n_nodes=20, n_rows=20_000):
    rows = []
    for seed in range(n_networks):
        net = make_random_network(n_nodes, random_state=seed)
        check = markov_check(net, net.sample(n_rows, random_state=1000 + seed))
        rows.append({"network": seed, "claims": check.n_independencies,
                     "rejection rate": check.rejection_rate, "KS p": check.uniformity_pvalue})
    return rows


def edited(nodes, edges, n_edits, rng):
    """``n_edits`` random acyclic single-edge edits (add, remove or reverse) of a DAG."""
    edges = set(edges)
    done = 0
    while done < n_edits:
        u, v = rng.choice(len(nodes), 2, replace=False)
        u, v = nodes[u], nodes[v]
        if (u, v) in edges:
            candidate = edges - {(u, v)} if rng.random() < 0.5 else (edges - {(u, v)}) | {(v, u)}
        elif (v, u) in edges:
            continue
        else:
            candidate = edges | {(u, v)}
        if is_acyclic(nodes, candidate):
            edges, done = candidate, done + 1
    return sorted(edges)


def discrimination(n_rows=10_000, edits=(0, 2, 4, 8, 12, 16, 24, 32, 48, 64), repeats=3):
    alarm = load_network("alarm")
    X = alarm.sample(n_rows, random_state=7)
    rng = np.random.default_rng(0)
    nodes = list(alarm.nodes)
    shd, score = [], []
    for k in edits:
        for _ in range(repeats if k else 1):
            graph = edited(nodes, alarm.edges, k, rng)
            shd.append(structural_hamming_distance(alarm.edges, graph, nodes))
            score.append(markov_check(graph, X).agreement)
    rho = stats.spearmanr(shd, score).statistic
    start = time.process_time()
    markov_check(alarm, X)
    return shd, score, rho, time.process_time() - start


if __name__ == "__main__":
    rows = calibration()
    print_table(rows, ["network", "claims", "rejection rate", "KS p"])
    rates = [r["rejection rate"] for r in rows]
    ks = [r["KS p"] for r in rows]
    print(f"rejection rate: median {np.median(rates):.3f}, range {min(rates):.3f}-{max(rates):.3f}; "
          f"KS p < 0.05 in {sum(p < 0.05 for p in ks)} of {len(ks)} networks")
    shd, score, rho, seconds = discrimination()
    print("SHD:       ", shd)
    print("agreement: ", [round(s, 3) for s in score])
    print(f"Spearman(agreement, SHD) = {rho:.3f}; one check on ALARM 10k: {seconds:.2f} s CPU")
