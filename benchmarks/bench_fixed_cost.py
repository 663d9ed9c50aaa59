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
the minimum of every row kept) says whether both learned the same thing. Usage::

    git archive --prefix=old/ main | tar -x -C /tmp
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_fixed_cost.py --against /tmp/old
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
    args = parser.parse_args()
    if args.against:
        return compare(args)
    sys.path.insert(0, str(Path(args.checkout).resolve()))
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
