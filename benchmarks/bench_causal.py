"""Causal effects on random networks: interval coverage and IDA point errors.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_causal.py [--networks 50] [--resamples 30]

For each of ``--networks`` random networks (``make_random_network(8, max_indegree=3,
n_states=(2, 3), random_state=seed)``) one ordered pair ``(x, y)`` with ``x`` an ancestor of
``y`` is drawn; its true average causal effect
``P(y=s0 | do(x=a0)) - P(y=s0 | do(x=a1))`` (first states) comes from ``query(do=...)``. At
200, 1,000 and 10,000 sampled rows the table reports:

* the coverage of the nominal 90% interval of ``effect_over_graphs`` over hill climbing on
  ``--resamples`` bootstrap resamples, for the four combinations of ``equivalence_class`` and
  ``parameter_uncertainty``, and the median width of the default-with-parameters interval;
* the median absolute error of single-graph IDA on PC's CPDAG: the element of the multiset
  closest to the truth (a lower bound on IDA's error), and the element for the true parents
  is not available from a learned graph, so the closest one is the optimistic reading.
"""

import argparse
import time
import warnings

import numpy as np
from _common import print_table  # first: puts the checkout on sys.path

from skbn import BootstrapStructure, HillClimbStructure, PCStructure
from skbn.causal import effect_over_graphs, ida
from skbn.datasets import make_random_network
from skbn.graph import ancestors

SIZES = (200, 1_000, 10_000)
VARIANTS = [(True, True), (True, False), (False, True), (False, False)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", type=int, default=50)
    parser.add_argument("--resamples", type=int, default=30)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    covered = {(n, v): [] for n in SIZES for v in VARIANTS}
    width = {n: [] for n in SIZES}
    ida_error = {n: [] for n in SIZES}
    start = time.process_time()
    for seed in range(args.networks):
        net = make_random_network(8, max_indegree=3, n_states=(2, 3), random_state=seed)
        rng = np.random.default_rng(seed)
        pairs = [(a, b) for a in net.nodes for b in net.nodes
                 if a != b and a in ancestors(net.nodes, net.edges, b)]
        x, y = pairs[rng.integers(len(pairs))]
        sx, sy = net.states[x], net.states[y]
        truth = net.query(y, do={x: sx[0]})[sy[0]] - net.query(y, do={x: sx[1]})[sy[0]]
        for n in SIZES:
            rows = net.sample(n, random_state=seed)
            boot = BootstrapStructure(HillClimbStructure(), n_resamples=args.resamples,
                                      keep_graphs=True, random_state=0).fit(rows)
            for variant in VARIANTS:
                out = effect_over_graphs(rows, boot, x, y, contrast=(sx[0], sx[1]),
                                         y_value=sy[0], equivalence_class=variant[0],
                                         parameter_uncertainty=variant[1], random_state=0)
                covered[n, variant].append(out.interval[0] <= truth <= out.interval[1])
                if variant == (True, True):
                    width[n].append(out.interval[1] - out.interval[0])
            try:
                effects = ida(rows, PCStructure().fit(rows), x, y, contrast=(sx[0], sx[1]),
                              y_value=sy[0])["effect"].to_numpy()
                ida_error[n].append(float(np.min(np.abs(effects - truth))))
            except ValueError:  # PC's graph has no consistent extension
                pass
    columns = ["rows", "class+param", "class only", "DAG+param", "DAG only",
               "width (class+param)", "PC-IDA closest |err|", "PC nets"]
    table = []
    for n in SIZES:
        row = {"rows": n, "width (class+param)": float(np.median(width[n])),
               "PC-IDA closest |err|": float(np.median(ida_error[n])),
               "PC nets": len(ida_error[n])}
        for name, variant in zip(columns[1:5], VARIANTS):
            row[name] = float(np.mean(covered[n, variant]))
        table.append(row)
    print_table(table, columns)
    print(f"{args.networks} networks, {args.resamples} resamples; "
          f"CPU {time.process_time() - start:.0f} s (main process)")


if __name__ == "__main__":
    main()
