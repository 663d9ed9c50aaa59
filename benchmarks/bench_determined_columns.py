"""Columns determined by others on public data: where the warning fires, what PC learns
with and without them, and what the check costs (not part of the test suite).

1. ``--real DIR`` (CSV files; ``--export DIR`` first writes R's data sets there, those of
   ``bench_real_data_peers.py --export``, and bnlearn's discrete ones as ``bn_<name>.csv``,
   which needs R with bnlearn; at most ``--rows`` rows each): every
   ``PCStructure`` fit the data allow (``column_types`` "auto" and "continuous", missing
   cells: complete cases) and the ``DeterminedColumnsWarning`` it gives. On R's ``CO2`` data
   also PC's graph with and without the column ``Plant`` (whose units determine ``Type``
   and ``Treatment``).
2. The time of the discrete check (``skbn._counting.functional_pairs``) on ALARM's columns
   at 10,000 and 100,000 rows, the rows in sampled order and sorted by three columns (best
   of 7; skipped without ``../shared/networks``).
3. The CPU time of a fit whose check names a column determined within states
   (``c = a + b + 3 [d = v]`` on 5,000 rows, ``PCStructure(fit_parameters=False)``) and of
   one whose small configurations hold repeated rows (a ``birthwt``-shaped frame of 189
   rows: 3 whole-number measurements declared continuous, 7 small codes), best of 15; run
   it from two checkouts to compare them.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_determined_columns.py --export /tmp/rdata --real /tmp/rdata
"""

import argparse
import subprocess
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _common import SHARED_NETWORKS  # (puts this checkout first on sys.path)
from bench_real_data_peers import EXPORT

from skbn import HillClimbStructure, PCStructure
from skbn._counting import functional_pairs
from skbn._data import encode_fit
from skbn.exceptions import DeterminedColumnsWarning
from skbn.io import read_bif

#: bnlearn's discrete data sets, written as ``bn_<name>.csv`` (R, after :data:`EXPORT`).
EXPORT_BNLEARN = r"""
suppressPackageStartupMessages(library(bnlearn))
out <- commandArgs(trailingOnly = TRUE)[1]
for (s in c("alarm", "asia", "coronary", "hailfinder", "insurance", "learning.test", "lizards")) {
  data(list = s, package = "bnlearn", envir = environment())
  write.csv(get(s), file.path(out, paste0("bn_", s, ".csv")), row.names = FALSE)
}
"""


def export(directory):
    Path(directory).mkdir(parents=True, exist_ok=True)
    for script in (EXPORT, EXPORT_BNLEARN):
        subprocess.run(["Rscript", "-e", script, str(directory)], check=True, capture_output=True)


def where_it_fires(directory, rows):
    fits = 0
    for path in sorted(Path(directory).glob("*.csv")):
        X = pd.read_csv(path).head(rows)
        missing = "complete_case" if X.isna().any().any() else "error"
        for types in ("auto", "continuous"):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    PCStructure(column_types=types, missing=missing).fit(X)
                except ValueError:  # (a refusal: integer columns undeclared, text declared continuous)
                    continue
            fits += 1
            for warning in caught:
                if issubclass(warning.category, DeterminedColumnsWarning):
                    print(f"{path.name} ({types}): {str(warning.message).split(': these')[0]}")
        if path.name == "CO2.csv":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for columns in (list(X.columns), [c for c in X.columns if c != "Plant"]):
                    cpdag = PCStructure().fit(X[columns]).cpdag_
                    print(f"  CO2, PC on {columns}: directed {list(cpdag.directed)}, "
                          f"undirected {list(cpdag.undirected)}")
    print(f"{fits} fits")


def check_time():
    path = SHARED_NETWORKS / "alarm.bif"
    if not path.exists():
        print(f"(no {path}: timing skipped)")
        return
    network = read_bif(path)
    print("rows, row order, functional_pairs ms (best of 7), pairs found")
    for n in (10_000, 100_000):
        X = network.sample(n, random_state=0)
        for order, frame in (("sampled", X), ("sorted", X.sort_values(list(X.columns[:3])))):
            data, _ = encode_fit(frame.reset_index(drop=True))
            columns = list(range(data.n_variables))
            times = []
            for _ in range(7):
                start = time.perf_counter()
                found = functional_pairs(data.codes, columns)
                times.append(time.perf_counter() - start)
            print(f"{n}, {order}, {min(times) * 1e3:.2f}, {found}")


def within_time():
    rng = np.random.default_rng(0)
    n = 5000
    d, e = rng.choice(["u", "v", "w"], n), rng.choice(["p", "q"], n)
    a, b = rng.normal(size=(2, n))
    planted = pd.DataFrame({"a": a, "b": b, "c": a + b + np.where(d == "u", 0.0, 3.0), "d": d, "e": e,
                            "f": rng.normal(size=n)})
    m = 189  # (birthwt's shape: codes of 2-6 states, three measurements, repeated rows)
    code_states = {"low": 2, "race": 3, "smoke": 2, "ptl": 4, "ht": 2, "ui": 2, "ftv": 6}
    codes = {name: rng.integers(0, r, m) for name, r in code_states.items()}
    shaped = pd.DataFrame({**codes, "age": rng.integers(14, 46, m), "lwt": rng.integers(80, 250, m),
                           "bwt": rng.integers(700, 5000, m)})
    shaped.iloc[1] = shaped.iloc[0]
    declared = {"age": "continuous", "lwt": "continuous", "bwt": "continuous"}
    print("fit with the determined-columns check, CPU ms (best of 15)")
    for label, fit in (("within states, 5,000 rows, PC",
                        lambda: PCStructure(fit_parameters=False).fit(planted)),
                       ("birthwt-shaped, 189 rows, hill climbing",
                        lambda: HillClimbStructure(column_types=declared).fit(shaped))):
        times = []
        for _ in range(15):
            start = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit()
            times.append(time.process_time() - start)
        print(f"{label}, {min(times) * 1e3:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export", help="write R's and bnlearn's data sets to this directory first")
    parser.add_argument("--real", help="directory of CSV files")
    parser.add_argument("--rows", type=int, default=5000)
    args = parser.parse_args()
    if args.export:
        export(args.export)
    if args.real:
        where_it_fires(args.real, args.rows)
    check_time()
    within_time()


if __name__ == "__main__":
    main()
