"""Time every learner on ALARM and CHILD at 10k and 100k rows, for one checkout of skbn.

Run it once per revision, in the same minute, and compare the two tables (issue: "no
learner gets slower"):

    git worktree add /tmp/skbn-old <old revision>
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_regression.py --checkout /tmp/skbn-old
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_regression.py --checkout .

Only parameters that every revision accepts are used, so the same script times old and new
code. Each fit is the whole ``fit`` (encoding, search, CPTs), best of ``--repeats``. On a
shared machine, ``--clock cpu`` (process CPU time, single-threaded BLAS) compares revisions
more steadily than wall time; alternate the checkouts a few times and keep the minima.
"""

import argparse
import sys
import time
from pathlib import Path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    sys.path.insert(0, str(Path(args.checkout).resolve()))
    import skbn  # noqa: PLC0415  (first: _common's own imports then resolve inside this checkout)

    # isort: split
    from _common import best_time, load_shared, print_table  # noqa: PLC0415

    from skbn import (  # noqa: PLC0415
        ChowLiuTree,
        ExactStructure,
        GESStructure,
        HillClimbStructure,
        K2Structure,
        PCStructure,
    )
    from skbn.graph import topological_order  # noqa: PLC0415

    print(f"skbn from {Path(skbn.__file__).parent}")
    rows = []
    for name in ("alarm", "child"):
        net = load_shared(name)
        order = topological_order(net.nodes, net.edges)
        for n in args.rows:
            data = net.sample(n, random_state=0)
            cases = {
                "hill_climb": HillClimbStructure(),
                "tabu": HillClimbStructure(search="tabu"),
                "ges": GESStructure(),
                "pc": PCStructure(),
                "k2": K2Structure(ordering=order),
                "chow_liu": ChowLiuTree(),
            }
            if n == args.rows[0]:
                cases["exact (12 vars)"] = ExactStructure(max_indegree=3)
            for label, estimator in cases.items():
                X = data[order[:12]] if label.startswith("exact") else data
                seconds, fitted = best_time(lambda e=estimator, X=X: e.fit(X), args.repeats, clock)
                rows.append({"network": name, "rows": n, "learner": label, "seconds": seconds,
                             "edges": len(fitted.edges_)})
                print(f"  {name} {n} {label}: {seconds:.3f} s", file=sys.stderr)
    print_table(rows, ["network", "rows", "learner", "seconds", "edges"])


if __name__ == "__main__":
    main()
