"""Benchmark the cost of structural EM's acceptance rule (:func:`skbn._em._accepts`).

Run (single core numbers)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_sem_accept.py [--rows 2000] [--repeats 3]
        [--cars93 path/to/Cars93.csv]

Hill climbing always passes the rule (it starts from the current graph and takes only
improving moves), so on it the rule costs its scoring of the families and changes nothing:
``HillClimbStructure(missing="em", em_max_iter=5, random_state=0)`` on ALARM and CHILD
(``--rows`` rows, 10% of the cells missing completely at random), with the rule and with it
replaced by "always accept", alternated in one process, best of ``--repeats`` CPU times;
the graphs and traces must be equal. With ``--cars93`` (MASS's Cars93 as CSV, as R writes
it), ``MMHCStructure(missing="em")`` there once: CPU time, ``em_n_iter_`` and the last
objectives (before the rule: 100 searches alternating between two graphs).
"""

import argparse
import time
import warnings

import numpy as np
from _common import best_times, load_shared, print_table  # noqa: E402

from skbn import _em  # noqa: E402
from skbn.estimators import HillClimbStructure, MMHCStructure  # noqa: E402


def mcar(frame, rate, seed):
    mask = np.random.default_rng(seed).random(frame.shape) < rate
    return frame.astype(object).mask(mask)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cars93", default=None)
    args = parser.parse_args()
    accepts = _em._accepts
    rows = []
    for name in ("alarm", "child"):
        X = mcar(load_shared(name).sample(args.rows, random_state=0), 0.1, seed=1)

        def fit(rule):
            _em._accepts = accepts if rule else (lambda *a: True)
            try:
                model = HillClimbStructure(missing="em", em_max_iter=5, random_state=0).fit(X)
            finally:
                _em._accepts = accepts
            return sorted(model.edges_), model.em_trace_.tolist()

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            timed = best_times({"rule": lambda: fit(True), "always accept": lambda: fit(False)},
                               repeats=args.repeats, clock=time.process_time)
        same = timed["rule"][2] == timed["always accept"][2]
        rows.append({"network": name, "rule CPU s": f"{timed['rule'][0]:.2f}",
                     "always accept CPU s": f"{timed['always accept'][0]:.2f}",
                     "ratio": f"{timed['rule'][0] / timed['always accept'][0]:.3f}",
                     "same result": "yes" if same else "NO"})
    print_table(rows, ["network", "rule CPU s", "always accept CPU s", "ratio", "same result"])
    if args.cars93:
        import pandas as pd

        x = pd.read_csv(args.cars93, keep_default_na=False, na_values=["", "NA"])
        types = {c: ("continuous" if pd.api.types.is_numeric_dtype(x[c]) and c != "Cylinders"
                     else "discrete") for c in x.columns}
        start = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = MMHCStructure(missing="em", column_types=types).fit(x)
        print(f"Cars93 MMHC: {time.process_time() - start:.1f} s CPU, em_n_iter_ {model.em_n_iter_}, "
              f"{len(model.edges_)} edges, last objectives {np.round(model.em_trace_[-3:], 2).tolist()}")


if __name__ == "__main__":
    main()
