"""How many distinct results each learner gives over shuffles of the columns of ``X``.

For every learner: ALARM (``../shared/networks/alarm.bif``, 5,000 sampled rows) and a
linear Gaussian network of 7 columns named A-G as bnlearn's ``gaussian.test`` (5,000 rows,
``make_random_network(7, kind="gaussian", random_state=0)``) are fitted with the columns in
their given order and in ``--shuffles`` random orders; a result is the set of edges and the
``score_`` (rounded to 1e-6). One distinct result per row means the column order changes
nothing (``docs/reproducibility.md``); the best and worst scores show what a tie broken by
position used to cost. ``--csv`` adds public data sets (e.g. bnlearn's ``hailfinder``,
``insurance``, ``coronary``, ``clgaussian.test`` written to CSV): read without turning
"NA"/"None" into missing cells, column names given dots and spaces, rows sorted by the
first column. Run it in two checkouts to compare::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_column_order.py --shuffles 5 [--csv a.csv b.csv]
"""

import argparse
import string
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _common import load_shared, print_table

from skbn import (
    ChowLiuTree,
    ExactStructure,
    GESStructure,
    HillClimbStructure,
    K2Structure,
    MMHCStructure,
    OrderMCMCStructure,
    PCStructure,
)
from skbn.datasets import make_random_network

LEARNERS = {
    "hill_climb": lambda: HillClimbStructure(),
    "tabu": lambda: HillClimbStructure(search="tabu", random_state=0),
    "ges": lambda: GESStructure(),
    "mmhc": lambda: MMHCStructure(),
    "k2 (ordering=None)": lambda: K2Structure(),
    "chow_liu": lambda: ChowLiuTree(),
    "pc": lambda: PCStructure(),
}
#: Only on the 7 Gaussian columns (too slow on ALARM's 37).
SMALL_LEARNERS = {
    "exact": lambda: ExactStructure(),
    "order_mcmc": lambda: OrderMCMCStructure(n_iter=2000, random_state=0),
}


def _data(rows, csvs=()):
    alarm = load_shared("alarm").sample(rows, random_state=0)
    gaussian = make_random_network(7, kind="gaussian", random_state=0).sample(rows, random_state=0)
    gaussian.columns = list(string.ascii_uppercase[:7])
    data = {"alarm": alarm, "gaussian": gaussian}
    for path in csvs:
        X = pd.read_csv(path, keep_default_na=False)  # "NA" and "None" stay states
        X.columns = [str(c).replace("_", ". ") for c in X.columns]
        data[Path(path).stem] = X.sort_values(X.columns[0], kind="stable").reset_index(drop=True)
    return data


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--shuffles", type=int, default=5)
    parser.add_argument("--csv", nargs="*", default=(), help="public data sets as CSV files")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for data_name, X in _data(args.rows, args.csv).items():
        orders = [list(X.columns)] + [list(rng.permutation(X.columns)) for _ in range(args.shuffles)]
        learners = {**LEARNERS, **(SMALL_LEARNERS if data_name == "gaussian" else {})}
        for name, make in learners.items():
            results = []
            for columns in orders:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = make().set_params(fit_parameters=False).fit(X[columns])
                score = getattr(model, "score_", None)
                results.append((frozenset(model.edges_), None if score is None else round(score, 6)))
            scores = [s for _, s in results if s is not None]
            rows.append({
                "data": data_name, "learner": name, "orders": len(orders),
                "distinct results": len(set(results)),
                "distinct edge sets": len({edges for edges, _ in results}),
                "best score": f"{max(scores):.1f}" if scores else "-",
                "worst score": f"{min(scores):.1f}" if scores else "-",
            })
    print_table(rows, ["data", "learner", "orders", "distinct results", "distinct edge sets",
                       "best score", "worst score"])


if __name__ == "__main__":
    main()
