"""CPU time of the learners flagged by ``bench_regression.py``, for one checkout of skbn.

On a shared machine wall-clock times swing by 2x; process CPU time (single-threaded BLAS)
does not count the time other processes hold the core, so old and new revisions can be
compared run against run. Alternate the checkouts a few times and keep the minima:

    export OPENBLAS_NUM_THREADS=1
    for i in 1 2 3; do for c in /tmp/skbn-old /work/main .; do
        python benchmarks/bench_regression_cpu.py --checkout $c; done; done

``fit`` is the whole fit (encoding, search, CPTs), ``search`` the structure search alone
(``_learn_structure``); both the minimum CPU seconds over ``--repeats`` fits.
"""

import argparse
import sys
import time
from pathlib import Path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(args.checkout).resolve()))
    import skbn  # noqa: PLC0415  (first: _common's own imports then resolve inside this checkout)

    # isort: split
    from _common import load_shared  # noqa: PLC0415

    from skbn import ChowLiuTree, HillClimbStructure, K2Structure, PCStructure  # noqa: PLC0415
    from skbn.graph import topological_order  # noqa: PLC0415

    search_seconds = [0.0]

    def timed(method):
        def learn_structure(self, *args, **kwargs):
            start = time.process_time()
            try:
                return method(self, *args, **kwargs)
            finally:
                search_seconds[0] += time.process_time() - start
        return learn_structure

    for klass in (ChowLiuTree, HillClimbStructure, K2Structure, PCStructure):
        klass._learn_structure = timed(klass._learn_structure)

    cases = [
        ("alarm", 10_000, "tabu", lambda order: HillClimbStructure(search="tabu")),
        ("alarm", 10_000, "chow_liu", lambda order: ChowLiuTree()),
        ("child", 10_000, "chow_liu", lambda order: ChowLiuTree()),
        ("child", 100_000, "k2", lambda order: K2Structure(ordering=order)),
        ("child", 10_000, "pc", lambda order: PCStructure()),
    ]
    print(f"skbn from {Path(skbn.__file__).parent}")
    samples = {}
    for name, n, label, make in cases:
        if (name, n) not in samples:
            net = load_shared(name)
            samples[name, n] = net.sample(n, random_state=0), topological_order(net.nodes, net.edges)
        X, order = samples[name, n]
        fits, searches = [], []
        for _ in range(args.repeats):
            estimator = make(order)
            search_seconds[0] = 0.0
            start = time.process_time()
            estimator.fit(X)
            fits.append(time.process_time() - start)
            searches.append(search_seconds[0])
        print(f"{name:6s} {n:7d} {label:9s} fit {min(fits):.4f} s  search {min(searches):.4f} s  "
              f"edges {len(estimator.edges_)}")


if __name__ == "__main__":
    main()
