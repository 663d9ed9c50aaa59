"""Benchmark ExactStructure: time and peak memory for 10, 15, 20, ... variables.

Variables are the first p nodes (in topological order) of the shared alarm network, or of a
random network when p exceeds it / the file is absent.  Run::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_exact.py [--quick]
"""

import argparse
import resource
import sys
import time
import tracemalloc

import numpy as np
from _common import SHARED_NETWORKS  # noqa: E402

from skbn.estimators._exact import ExactStructure, exact_memory_bytes
from skbn.estimators._k2 import K2Structure


def sample(p, n, seed=0):
    if not SHARED_NETWORKS.is_dir():
        raise SystemExit("needs ../shared/networks/alarm.bif")
    from skbn.io import read_bif
    net = read_bif(SHARED_NETWORKS / "alarm.bif")
    order = net.topological_order()
    train = net.sample(n, random_state=seed)[order[:p]]
    test = net.sample(n, random_state=seed + 1)[order[:p]]
    return train, test


def run(p, n, max_indegree, repeats, scorer):
    train, test = sample(p, n)
    best_time, model = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        model = ExactStructure(scorer=scorer, max_indegree=max_indegree, max_memory="16GB").fit(train)
        best_time = min(best_time, time.perf_counter() - start)
    tracemalloc.start()
    ExactStructure(scorer=scorer, max_indegree=max_indegree, max_memory="16GB").fit(train)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    k2 = K2Structure(scorer=scorer, ordering=list(train.columns), max_indegree=max_indegree).fit(train)
    return dict(p=p, n=n, k=max_indegree, time=best_time, peak=peak / 2**20,
                estimate=exact_memory_bytes(p) / 2**20, score=model.score_,
                k2=k2.score_, loglik=model.score(test), edges=len(model.edges_),
                families=model.n_families_)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--scorer", default="bdeu", help="bdeu (default), k2, bic, aic")
    parser.add_argument("--unbounded-20", action="store_true",
                        help="add p=20 without an in-degree bound (one run, minutes for BDeu)")
    args = parser.parse_args()
    if args.quick:
        configs, repeats = [(10, 2000, None), (15, 2000, 3)], 1
    else:
        configs, repeats = [(10, 5000, None), (15, 5000, None), (15, 5000, 3), (20, 5000, 3),
                            (20, 5000, 4), (22, 5000, 2), (24, 5000, 2)], 3
        if args.unbounded_20:
            configs.append((20, 5000, None))
    print(f"{'p':>3} {'n':>6} {'k':>4} {'time s':>8} {'peak MiB':>9} {'est MiB':>8} "
          f"{args.scorer:>12} {'K2 ord.':>12} {'test LL':>9} {'edges':>5} {'families':>9}")
    for p, n, k in configs:
        r = run(p, n, k, repeats if p <= 20 and (k is not None or p < 20) else 1, args.scorer)
        print(f"{r['p']:>3} {r['n']:>6} {str(r['k']):>4} {r['time']:>8.2f} {r['peak']:>9.1f} "
              f"{r['estimate']:>8.1f} {r['score']:>12.2f} {r['k2']:>12.2f} {r['loglik']:>9.4f} "
              f"{r['edges']:>5} {r['families']:>9}", flush=True)
    print(f"max rss {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    sys.exit(main())
