"""A/B CPU time of the fitted networks' ``log_likelihood`` and ``sample`` for two skbn
checkouts loaded in one process, calls alternated (the other core may be busy).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_network_ab.py A_DIR B_DIR [--calls 200]

The networks are ``HillClimbStructure`` fits (each checkout its own) of 3,000 rows of
``make_random_network(8, kind="gaussian", random_state=11, max_indegree=4, edge_prob=0.7)``
(nodes with up to 6 parents), ``make_random_network(12, kind="clg", random_state=5,
max_indegree=5, edge_prob=0.8)`` and ``make_random_network(10, random_state=0,
max_indegree=3, edge_prob=0.6)`` (discrete). Cases: ``log_likelihood`` of 10,000 complete
rows, of the same rows with a cell missing in every 7th row of four continuous columns,
``predict_proba`` of both (CLG: the discrete node that most continuous nodes depend on) and
``sample(10000)``. Discrete inference (the variable-elimination engine) on ALARM (``load_network("alarm")``,
its nodes in the file's order, not in name order): a ``HillClimbStructure(target="HR")``
classifier fitted on 3,000 rows, ``score_samples`` and ``predict_proba`` of 2,000 rows with
15% of their cells missing, the network's ``log_likelihood`` of them and ``query("HR")``
given two observed nodes. Prints the median CPU ms of each, B/A and the largest difference
between the checkouts' numbers (rounding level when a change only reorders sums); run both
orders. Checkouts are loaded as in ``bench_ges_ab.py``.
"""
import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_ges_ab import load  # noqa: E402

NETWORKS = {
    "gaussian": dict(n_nodes=8, kind="gaussian", random_state=11, max_indegree=4, edge_prob=0.7),
    "clg": dict(n_nodes=12, kind="clg", random_state=5, max_indegree=5, edge_prob=0.8),
    "discrete": dict(n_nodes=10, random_state=0, max_indegree=3, edge_prob=0.6),
}


def cases(skbn, datasets):
    """``(name, call)`` pairs of one checkout (its own fitted networks)."""
    out = []
    for kind, spec in NETWORKS.items():
        X = datasets.make_random_network(**spec).sample(3000, random_state=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            network = skbn.HillClimbStructure().fit(X).network_
        rows = network.sample(10000, random_state=1)
        out.append((f"{kind} log_likelihood", lambda n=network, r=rows: n.log_likelihood(r)))
        if kind != "discrete":
            continuous = sorted(c for c in rows.columns if rows[c].dtype.kind == "f")[:4]
            missing = rows.copy()
            for k, name in enumerate(continuous):
                missing.loc[missing.index[k::7], name] = np.nan
            out.append((f"{kind} log_likelihood missing",
                        lambda n=network, r=missing: n.log_likelihood(r)))
        if kind == "clg":
            label = max(sorted(network.states),
                        key=lambda v: sum(v in pa for pa in network.discrete_parents.values()))
            out.append(("clg predict_proba", lambda n=network, r=rows, t=label: n.predict_proba(r, t)))
            out.append(("clg predict_proba missing",
                        lambda n=network, r=missing, t=label: n.predict_proba(r, t)))
        out.append((f"{kind} sample", lambda n=network: n.sample(10000, random_state=0)))
    network = datasets.load_network("alarm")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = skbn.HillClimbStructure(target="HR").fit(network.sample(3000, random_state=2))
    rows = network.sample(2000, random_state=1)
    missing = rows.mask(np.random.default_rng(3).random(rows.shape) < 0.15)
    out.append(("alarm score_samples missing", lambda m=model, r=missing: m.score_samples(r)))
    features = missing.drop(columns="HR")
    out.append(("alarm predict_proba missing", lambda m=model, r=features: m.predict_proba(r)))
    out.append(("alarm log_likelihood missing", lambda n=network, r=missing: n.log_likelihood(r)))
    out.append(("alarm query", lambda n=network: n.query("HR", evidence={"CO": "LOW", "BP": "HIGH"})))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    mods = [load(args.a), load(args.b)]
    calls = []
    for m in mods:
        sys.modules.update(m)
        calls.append(cases(m["skbn"], m["skbn.datasets"]))
    print("case, A ms, B ms, B/A, largest difference")
    for (name, call_a), (_, call_b) in zip(*calls):
        times, results = [[], []], [None, None]
        for k, call in ((0, call_a), (1, call_b), (0, call_a), (1, call_b)):  # (warm-up)
            sys.modules.update(mods[k])
            call()
        for _ in range(args.calls):
            for k, call in ((0, call_a), (1, call_b)):
                sys.modules.update(mods[k])
                start = time.process_time()
                results[k] = call()
                times[k].append(time.process_time() - start)
        a, b = (1e3 * statistics.median(t) for t in times)
        gap = np.abs(numbers(results[0]) - numbers(results[1])).max()
        print(f"{name}, {a:.3f}, {b:.3f}, {b / a:.3f}, {gap:.1e}", flush=True)


def numbers(result):
    """A result as floats: an array, or a sample's columns in name order (a discrete
    column's state codes)."""
    if hasattr(result, "columns"):
        result = result.sort_index(axis=1).apply(
            lambda column: column.cat.codes if column.dtype == "category" else column)
    return np.asarray(result, dtype=np.float64)


if __name__ == "__main__":
    main()
