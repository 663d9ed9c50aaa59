"""Time the subset learners on continuous data against the discrete path of the same size.

ExactStructure (bic-g, bge; bdeu and bic on the same columns cut into 3 states) and
edge_posteriors (bge vs bdeu) on p = 15, 18, 20 columns of 1,000 rows, and order MCMC
iterations per second (one chain of 20,000, max_indegree=3). The data: a linear Gaussian
chain where each column depends on the two before it (numpy, seeded). Process CPU time,
best of ``--repeats``. Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_gaussian_subsets.py [--sizes 15 18] [--discrete-max 18]
"""

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from _common import best_time, print_table

from skbn import ExactStructure, OrderMCMCStructure
from skbn.posterior import edge_posteriors


def data(p, n=1000, kind="continuous", seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, p))
    for j in range(p):
        X[:, j] = rng.normal(size=n)
        for u in range(max(0, j - 2), j):
            X[:, j] += 0.5 * X[:, u]
    if kind == "discrete":
        X = (X > 0).astype(int) + (X > 1).astype(int)
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(p)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[15, 18, 20])
    parser.add_argument("--discrete-max", type=int, default=18,
                        help="largest p timed on the discrete path (20 unbounded takes minutes)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    clock = time.process_time
    rows = []
    for p in args.sizes:
        for kind, scorers in (("continuous", ("bic-g", "bge")), ("discrete", ("bdeu", "bic"))):
            if kind == "discrete" and p > args.discrete_max:
                continue
            X = data(p, kind=kind)
            repeats = args.repeats if kind == "continuous" else 1
            for scorer in scorers:
                learner = ExactStructure(scorer=scorer, fit_parameters=False)
                seconds, model = best_time(lambda e=learner, X=X: e.fit(X), repeats, clock)
                rows.append({"p": p, "data": kind, "task": f"ExactStructure({scorer})", "seconds": seconds,
                             "families": model.n_families_})
            seconds, _ = best_time(lambda X=X: edge_posteriors(X), repeats, clock)
            rows.append({"p": p, "data": kind, "task": "edge_posteriors(auto)", "seconds": seconds,
                         "families": None})
    for p in (5, 20):
        for kind in ("continuous", "discrete"):
            X = data(p, kind=kind)
            model = OrderMCMCStructure(n_iter=20_000, n_chains=1, max_indegree=3, random_state=0,
                                       fit_parameters=False)
            seconds, _ = best_time(lambda m=model, X=X: m.fit(X), 1, clock)
            rows.append({"p": p, "data": kind, "task": "OrderMCMC 20,000 it. (whole fit)", "seconds": seconds,
                         "families": None})
    print_table(rows, ["p", "data", "task", "seconds", "families"])


if __name__ == "__main__":
    main()
