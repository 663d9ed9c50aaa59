"""Cost of experimental rows in the subset scorer: ExactStructure and OrderMCMCStructure with
and without ``interventions=``.

Data: the first ``p`` nodes of ALARM (in topological order), 5,000 observational rows plus
1,000 rows for each of ``--targets`` experiments, each setting one of the ``p`` nodes
(chosen at random from a seed) to random states. The same rows are fitted once as
observational data and once with the intervention matrix; with masks the children are
scored in groups, one per distinct set of kept rows, so the cost grows with the number of
targets. Prints CPU seconds (median of ``--repeats``), the score and the number of
undirected edges left in ``interventional_cpdag_``. Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_interventions_exact.py --sizes 12 15 --targets 3
"""

import argparse
import time

import numpy as np
import pandas as pd
from _common import SHARED_NETWORKS

from skbn import ExactStructure, OrderMCMCStructure
from skbn.io import read_bif


def experimental_rows(p, n_targets, seed=0):
    net = read_bif(SHARED_NETWORKS / "alarm.bif")
    nodes = net.topological_order()[:p]
    rng = np.random.default_rng(seed)
    targets = rng.choice(nodes, size=n_targets, replace=False)
    parts, masks = [net.sample(5000, random_state=seed)[nodes]], []
    masks.append(pd.DataFrame(False, index=parts[0].index, columns=nodes))
    for k, target in enumerate(targets):
        states = net.states[target]
        rows = net.sample(1000, random_state=seed + k + 1,
                          do={target: states[int(rng.integers(len(states)))]})[nodes]
        parts.append(rows)
        masks.append(pd.DataFrame({c: c == target for c in nodes}, index=rows.index))
    return pd.concat(parts, ignore_index=True), pd.concat(masks, ignore_index=True), list(targets)


def timed(make, X, mask, repeats):
    times, model = [], None
    for _ in range(repeats):
        start = time.process_time()
        model = make().fit(X, interventions=mask)
        times.append(time.process_time() - start)
    return float(np.median(times)), model


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[12, 15])
    parser.add_argument("--targets", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mcmc-iter", type=int, default=2000)
    args = parser.parse_args()
    print("| learner | p | interventions | CPU s | score | undirected left |")
    print("|---|---|---|---|---|---|")
    for p in args.sizes:
        X, mask, targets = experimental_rows(p, args.targets)
        learners = {"ExactStructure": lambda: ExactStructure(max_indegree=3),
                    "OrderMCMCStructure": lambda: OrderMCMCStructure(max_indegree=3, n_iter=args.mcmc_iter,
                                                                     random_state=0)}
        for name, make in learners.items():
            for label, m in (("none", None), (f"{args.targets} targets", mask)):
                seconds, model = timed(make, X, m, args.repeats)
                print(f"| {name} | {p} | {label} | {seconds:.2f} | {model.score_:.2f} | "
                      f"{len(model.interventional_cpdag_.undirected)} |", flush=True)


if __name__ == "__main__":
    main()
