"""Per-fit time of the continuous learners on small data, for one checkout of skbn (not part
of the test suite).

Issue 20's speed targets on small continuous data are set by skbn's fixed cost per fit
(encoding, parameter validation, the plug-ins' set-up, the network fit after the search),
not by the search. This times, in CPU milliseconds (``time.process_time``, median of
``--repeats`` fits, each the whole ``fit`` including encoding the DataFrame):

* ``PCStructure(ci_test="fisher_z")``, ``HillClimbStructure(scorer="bic-g")``,
  ``GESStructure(scorer="bic-g")`` and ``GESStructure()``,
* on bnlearn's ``gaussian.test`` (``--gaussian-test``, skipped when absent) and on random
  linear-Gaussian networks (``skbn.datasets.make_random_network(p, kind="gaussian",
  random_state=0)``, ``--rows`` rows sampled with ``random_state=1``) for ``--sizes``.

Each row carries a digest of the fitted result (``edges_``, ``score_``, ``n_tests_`` and the
network's coefficients, intercepts and standard deviations, bit for bit), so ``--against``
(an older checkout, alternated with ``--checkout`` in subprocesses for ``--rounds`` rounds,
the minimum of every row kept) says whether both learned the same thing.

``--digests`` times nothing: it fits about 200 configurations (GES, GIES, hill climbing
and PC on Gaussian data of 4 to 20 variables and 60 to 3,000 rows, with weights,
knowledge, the ML variance, reversed columns and integer-valued columns; GES and GIES
on discrete and conditional-Gaussian data; hill climbing on CLG data) and prints the
digest of each (edges, score, steps per phase, number of tests, the classes, and the
log-likelihoods of 60 rows when the parameters are fitted); with ``--against``, the
configurations whose digests differ. Usage::

    git archive --prefix=old/ main | tar -x -C /tmp
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_fixed_cost.py --against /tmp/old
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_fixed_cost.py --digests --against /tmp/old
"""

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--against", help="an older checkout: alternate it with --checkout")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of --against")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--gaussian-test", default="/work/realdata/gaussian.test.csv")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--digests", action="store_true",
                        help="the digests of about 200 fits instead of timings")
    args = parser.parse_args()
    if args.digests and args.against:
        return compare_digests(args)
    if args.against:
        return compare(args)
    sys.path.insert(0, str(Path(args.checkout).resolve()))
    if args.digests:
        print(json.dumps(many_digests()))
        return
    import numpy as np  # noqa: PLC0415
    import pandas as pd  # noqa: PLC0415

    from skbn import GESStructure, HillClimbStructure, PCStructure  # noqa: PLC0415
    from skbn.datasets import make_random_network  # noqa: PLC0415

    learners = {
        "pc fisher_z": lambda: PCStructure(ci_test="fisher_z"),
        "hc bic-g": lambda: HillClimbStructure(scorer="bic-g"),
        "ges bic-g": lambda: GESStructure(scorer="bic-g"),
        "ges default": lambda: GESStructure(),
    }
    data = {}
    if Path(args.gaussian_test).exists():
        data["gaussian.test"] = pd.read_csv(args.gaussian_test)
    for p in args.sizes:
        network = make_random_network(p, kind="gaussian", random_state=0)
        data[f"random p={p}, n={args.rows}"] = network.sample(args.rows, random_state=1)
    rows = []
    for name, X in data.items():
        for learner, make in learners.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (PC's orientation conflicts on random data)
                fitted = make().fit(X)
                seconds = []
                for _ in range(args.repeats):
                    start = time.process_time()
                    make().fit(X)
                    seconds.append(time.process_time() - start)
            rows.append({"data": name, "learner": learner, "ms": 1e3 * statistics.median(seconds),
                         "edges": len(fitted.edges_), "digest": _digest(fitted, np)})
    if args.json:
        print(json.dumps(rows))
        return
    print(f"skbn from {Path(args.checkout).resolve()}; median of {args.repeats} fits, CPU ms")
    for row in rows:
        print(f"{row['data']:24s} {row['learner']:12s} {row['ms']:8.2f}  {row['edges']:3d} edges  "
              f"{row['digest']}")


def _digest(fitted, np):
    """Short hash of the learned graph, its score / number of tests and every parameter."""
    parts = [repr(sorted(map(tuple, fitted.edges_))), repr(getattr(fitted, "score_", None)),
             repr(getattr(fitted, "n_tests_", None))]
    network = fitted.network_
    for node in network.nodes:
        parts.append(np.asarray(network.coefficients[node], dtype=np.float64).tobytes().hex())
        parts.append(repr(float(network.intercepts[node])) + repr(float(network.sigmas[node])))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:12]


def many_digests():
    """``{configuration: digest}`` of about 200 fits (``--digests``)."""
    import numpy as np  # noqa: PLC0415

    from skbn import GESStructure, HillClimbStructure, PCStructure  # noqa: PLC0415
    from skbn.datasets import make_random_network, sample_asia  # noqa: PLC0415
    from skbn.scores import GaussianBIC  # noqa: PLC0415

    out = {}

    def run(key, learner, X, **fit):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = learner.fit(X, **fit)
            parts = [repr(sorted(map(tuple, model.edges_))), repr(getattr(model, "score_", None)),
                     repr(getattr(model, "n_steps_", None)), repr(getattr(model, "n_tests_", None))]
            for name in ("cpdag_", "interventional_cpdag_"):
                graph = getattr(model, name, None)
                if graph is not None:
                    parts.append(repr((sorted(graph.directed), sorted(graph.undirected))))
            if model.network_ is not None:
                parts.append(np.asarray(model.score_samples(X.head(60))).tobytes().hex())
            out[key] = hashlib.sha256("|".join(parts).encode()).hexdigest()[:12]
        except Exception as error:  # noqa: BLE001 (an error is a result to compare too)
            out[key] = f"error {type(error).__name__}: {str(error)[:80]}"

    def mask(X, rows, columns, seed):
        rng = np.random.default_rng(seed)
        intervened = np.zeros(X.shape, dtype=bool)
        for column, count in zip(columns, rows):
            intervened[rng.choice(len(X), count, replace=False), column] = True
        return intervened

    for p in (4, 6, 10, 15, 20):
        for seed in range(4):
            network = make_random_network(p, kind="gaussian", random_state=seed)
            for n in (60, 500, 3000):
                X = network.sample(n, random_state=seed + 10)
                run(f"ges bic-g p={p} seed={seed} n={n}",
                    GESStructure(scorer="bic-g", fit_parameters=seed % 2 == 0), X)
                if seed:
                    continue
                c = X.columns
                run(f"ges bic-g mle p={p} n={n}", GESStructure(scorer=GaussianBIC(variance="mle"),
                                                               fit_parameters=False), X)
                run(f"ges bic-g weighted p={p} n={n}", GESStructure(scorer="bic-g", fit_parameters=False), X,
                    sample_weight=np.random.default_rng(p).uniform(0.5, 2, n))
                run(f"ges bic-g knowledge p={p} n={n}", GESStructure(
                    scorer="bic-g", max_indegree=2, max_subset_size=1, black_list=[(c[0], c[1])],
                    white_list=[(c[2], c[3])]), X)
                run(f"hc bic-g p={p} n={n}", HillClimbStructure(scorer="bic-g"), X)
                run(f"pc fisher_z p={p} n={n}", PCStructure(ci_test="fisher_z"), X)
                run(f"ges bic-g reversed p={p} n={n}", GESStructure(scorer="bic-g"), X[c[::-1]])
    X = make_random_network(8, kind="gaussian", random_state=3).sample(400, random_state=1).round(0)
    run("ges bic-g integer-valued", GESStructure(scorer="bic-g", column_types="continuous"), X)
    for seed in range(6):
        X = make_random_network(8, kind="gaussian", random_state=seed).sample(800, random_state=seed)
        intervened = mask(X, (150, 100), (seed % 8, (seed + 3) % 8), seed)
        run(f"gies bic-g mle seed={seed}", GESStructure(scorer=GaussianBIC(variance="mle")), X,
            interventions=intervened)
        run(f"gies bic-g fb seed={seed}", GESStructure(scorer="bic-g", phases=("forward", "backward")), X,
            interventions=intervened)
    for seed in range(6):
        X = make_random_network(7, kind="discrete", random_state=seed).sample(1500, random_state=seed)
        run(f"ges bdeu seed={seed}", GESStructure(), X)
        run(f"ges bic seed={seed}", GESStructure(scorer="bic"), X)
        run(f"gies bdeu seed={seed}", GESStructure(), X, interventions=mask(X, (300,), (seed % 7,), seed))
    A = sample_asia(3000, random_state=0)
    run("ges asia", GESStructure(), A)
    run("ges asia knowledge",
        GESStructure(black_list=[("either", "xray")], white_list=[("smoke", "lung")]), A)
    for seed in range(6):
        X = make_random_network(8, kind="clg", random_state=seed).sample(1200, random_state=seed)
        run(f"ges clg seed={seed}", GESStructure(), X)
        run(f"hc clg seed={seed}", HillClimbStructure(), X)
        if seed < 3:
            run(f"gies clg seed={seed}", GESStructure(edge_restarts=0), X,
                interventions=mask(X, (200,), (seed % 8,), seed))
    return out


def compare_digests(args):
    """``--digests --against``: the configurations whose digests differ."""
    found = {}
    for label, checkout in (("old", args.against), ("new", args.checkout)):
        command = [sys.executable, __file__, "--checkout", checkout, "--digests"]
        found[label] = json.loads(subprocess.run(command, capture_output=True, text=True,
                                                 check=True).stdout.splitlines()[-1])
    old, new = found["old"], found["new"]
    differ = [key for key in old if old[key] != new.get(key)]
    errors = sum(value.startswith("error") for value in new.values())
    print(f"old: {args.against}; new: {args.checkout}; {len(old)} fits, {len(old) - len(differ)} with "
          f"the same digest, {errors} raising (in the new checkout)")
    for key in differ:
        print(f"  differs: {key}: {old[key]} -> {new.get(key)}")


def compare(args):
    """Alternate ``--against`` (old) and ``--checkout`` (new); print the best of each row."""
    best = {}
    for _ in range(args.rounds):
        for label, checkout in (("old", args.against), ("new", args.checkout)):
            command = [sys.executable, __file__, "--checkout", checkout, "--json",
                       "--repeats", str(args.repeats), "--rows", str(args.rows),
                       "--gaussian-test", args.gaussian_test, "--sizes", *map(str, args.sizes)]
            output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            for row in json.loads(output.splitlines()[-1]):
                entry = best.setdefault((row["data"], row["learner"]), {})
                entry[label] = min(entry.get(label, float("inf")), row["ms"])
                entry[f"{label} digest"] = row["digest"]
    print(f"old: {args.against}; new: {args.checkout}; best of {args.rounds} rounds of the median "
          f"of {args.repeats} fits, CPU ms")
    print(f"{'data':24s} {'learner':12s} {'old ms':>8s} {'new ms':>8s} {'ratio':>6s}  same")
    for (name, learner), entry in best.items():
        same = "yes" if entry["old digest"] == entry["new digest"] else "NO"
        print(f"{name:24s} {learner:12s} {entry['old']:8.2f} {entry['new']:8.2f} "
              f"{entry['new'] / entry['old']:6.2f}  {same}")


if __name__ == "__main__":
    main()
