"""Learn a known network back from data sampled from it: ``python -m skbn``.

Samples training and held-out rows from a network (the built-in ASIA by default, or any
BIF file), learns the structure, and prints the learned edges, the structural Hamming
distance to the truth and the held-out mean log-likelihood next to the true network's.
"""

import argparse
import time

import numpy as np

from skbn import (
    ChowLiuTree,
    ExactStructure,
    GESStructure,
    HillClimbStructure,
    K2Structure,
    PCStructure,
)
from skbn.datasets import load_network
from skbn.metrics import structural_hamming_distance

ESTIMATORS = {
    "hill_climb": lambda net: HillClimbStructure(),
    "tabu": lambda net: HillClimbStructure(search="tabu"),
    "ges": lambda net: GESStructure(),
    "pc": lambda net: PCStructure(),
    "exact": lambda net: ExactStructure(),
    "k2": lambda net: K2Structure(ordering=net.topological_order(), scorer="bdeu"),
    "chow_liu": lambda net: ChowLiuTree(),
}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m skbn", description=__doc__.splitlines()[0])
    parser.add_argument("--network", default="asia", help="built-in name or path to a .bif file")
    parser.add_argument("--estimator", choices=list(ESTIMATORS), default="hill_climb",
                        help="k2 uses the true topological ordering")
    parser.add_argument("--n-samples", type=int, default=10_000)
    parser.add_argument("--random-state", type=int, default=0)
    args = parser.parse_args(argv)

    truth = load_network(args.network)
    train = truth.sample(args.n_samples, random_state=args.random_state)
    test = truth.sample(max(args.n_samples // 2, 1000), random_state=args.random_state + 1)
    model = ESTIMATORS[args.estimator](truth)
    start = time.perf_counter()
    model.fit(train)
    elapsed = time.perf_counter() - start

    print(f"{type(model).__name__} on {args.network}: {len(truth.nodes)} variables, "
          f"{args.n_samples} rows, fit in {elapsed:.3f} s")
    print("learned edges:")
    for parent, child in model.edges_:
        mark = "" if (parent, child) in set(truth.edges) else "   (not in the true network)"
        print(f"  {parent} -> {child}{mark}")
    shd = structural_hamming_distance(truth.edges, model.edges_, nodes=truth.nodes)
    cpdag_shd = structural_hamming_distance(truth.edges, model.edges_, nodes=truth.nodes, cpdag=True)
    print(f"structural Hamming distance to the truth: {shd} (between equivalence classes: {cpdag_shd})")
    print(f"held-out mean log-likelihood: learned {model.score(test):.4f}, "
          f"true network {np.mean(truth.log_likelihood(test)):.4f}")


if __name__ == "__main__":
    main()
