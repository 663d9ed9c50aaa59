"""Median CPU time of ``GESStructure(scorer="bic-g", fit_parameters=False).fit`` in this
process (one checkout: the ``skbn`` on ``sys.path``), for the cases of bench_ges_ab.py.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=CHECKOUT python benchmarks/bench_ges_fit.py [--fits N] [--layout array]

Run it alternately for two checkouts, several times each (``--rounds`` of
``benchmarks/bench_ges_ab.py``'s in-process alternation shares the caches between the two
versions: a change of what the fit leaves in the CPU caches is measured here instead).
Prints one line ``case median_ms`` per case.
"""
import argparse
import statistics
import time

import numpy as np
import pandas as pd

from skbn import GESStructure
from skbn.datasets import make_random_network

CASES = ["7x1k", "7x5k", "7x10k", "10x1k", "10x10k", "15x1k"]


def case_frame(name, make=make_random_network):
    """The rows of a case: ``"7x5k"`` bnlearn's ``gaussian.test``, ``"PxNk"`` ``N``,000 rows of
    a random Gaussian network of ``P`` nodes (seed 0, rows seed 1, as
    ``bench_gaussian_learners.py`` draws them); ``make``: the ``make_random_network`` to use."""
    if name == "7x5k":
        return pd.read_csv("/work/rdata/bn_gaussian.test.csv").dropna()
    p, n = name.split("x")
    return make(int(p), kind="gaussian", random_state=0).sample(int(n[:-1]) * 1000, random_state=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fits", type=int, default=500)
    parser.add_argument("--cases", nargs="+", default=CASES)
    parser.add_argument("--layout", choices=["frame", "array"], default="frame",
                        help="fit the DataFrame, or its values as a row-major numpy array (what a "
                             "scikit-learn transformer passes on in a Pipeline)")
    args = parser.parse_args()
    for name in args.cases:
        x = case_frame(name)
        if args.layout == "array":
            x = np.ascontiguousarray(x.to_numpy(dtype=np.float64))
        learner = GESStructure(scorer="bic-g", fit_parameters=False)
        for _ in range(20):
            learner.fit(x)
        times = []
        for _ in range(args.fits):
            start = time.process_time()
            learner.fit(x)
            times.append(time.process_time() - start)
        print(f"{name} {1e3 * statistics.median(times):.4f}", flush=True)


if __name__ == "__main__":
    main()
