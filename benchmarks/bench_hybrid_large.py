"""MMHC against unrestricted hill climbing on large random networks (200+ variables).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_hybrid_large.py [--nodes 200 400] [--rows 10000]
        [--repeats 1] [--clock cpu]

Data: ``make_random_network(n, max_indegree=3, n_states=(2, 4))``, ``--rows`` sampled rows.
Both learners score with BIC (MMHC's default, as bnlearn's ``mmhc``); the table gives the
best wall time (``--clock cpu``: process CPU time) of ``--repeats`` runs (one by default:
these fits take seconds to minutes), the BIC of the result and the structural Hamming
distance to the true DAG.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from _common import best_time, print_table  # noqa: E402

from skbn import HillClimbStructure, MMHCStructure  # noqa: E402
from skbn.datasets import make_random_network  # noqa: E402
from skbn.metrics import structural_hamming_distance  # noqa: E402
from skbn.scores import BIC  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[200, 400])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    rows = []
    for n_nodes in args.nodes:
        net = make_random_network(n_nodes, max_indegree=3, n_states=(2, 4), random_state=0)
        X = net.sample(args.rows, random_state=1)
        for label, estimator in (("mmhc", MMHCStructure()), ("hill_climb", HillClimbStructure(scorer="bic"))):
            seconds, estimator = best_time(lambda e=estimator: e.fit(X), args.repeats, clock)
            rows.append({
                "nodes": n_nodes, "learner": label, "seconds": seconds,
                "bic": BIC().score(X, estimator.edges_),
                "shd": structural_hamming_distance(net.edges, estimator.edges_, net.nodes),
            })
            print(f"  {n_nodes} {label}: {seconds:.1f} s", file=sys.stderr)
    print_table(rows, ["nodes", "learner", "seconds", "bic", "shd"])


if __name__ == "__main__":
    main()
