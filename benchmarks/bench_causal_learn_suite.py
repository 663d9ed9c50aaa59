"""skbn on causal-learn's own test data, against the results its test suite asserts.

Run ``PYTHONPATH=$PWD python benchmarks/bench_causal_learn_suite.py --causal-learn DIR`` from
the repository root, ``DIR`` a checkout of https://github.com/py-why/causal-learn (its
``tests/TestData`` is read; nothing of it is copied here). With ``--run-peer`` (causal-learn
importable, e.g. in the benchmark environment) causal-learn's PC is run too, with the
collider rule closest to skbn's, and both are timed.

causal-learn's tests (``TestPC.py``, ``TestGES.py``) load its data files and compare the
returned graph with a recorded one (``benchmark_returned_results``). Here skbn runs the same
learners on the same files:

- **PC** (stable, alpha 0.05): Fisher's z on ``data_linear_10``, G and chi-square on
  ``data_discrete_10``, chi-square on the 10,000-row samples of 13 bnlearn networks
  (``bnlearn_discrete_10000``). skbn's tests take causal-learn's conventions: degrees of
  freedom from the non-empty rows and columns of each stratum (skbn's ``adjust_dof=True``,
  the default), no power rule (``min_samples_per_dof=0``). The skeleton is compared with
  every recorded graph of the file, and the CPDAG with causal-learn's ``uc_priority=3``
  ("prioritise stronger colliders", recorded for ``data_linear_10``; run with
  ``--run-peer`` for the others). Orientations differ where colliders conflict: each
  library resolves conflicts by its own documented rule (``docs/pc.md``).
- **GES**: BIC on ``data_linear_10``, BDeu on ``data_discrete_10``: the CPDAG against the
  recorded one; BIC on ``test_ges_simulated_linear_gaussian_data``: the score against the
  exact optimum (``ExactStructure``).
- **PC on ``test_pc_simulated_linear_gaussian_data``**: the CPDAG against the truth the test
  asserts.
"""

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _common import print_table  # first: puts the checkout on sys.path

from skbn import ExactStructure, GESStructure, PCStructure
from skbn.citests import ChiSquare, FisherZ, GTest
from skbn.graph import PDAG
from skbn.scores import BDeu, GaussianBIC


def load(path, header=True):
    """A causal-learn data file as a DataFrame (its header names the columns)."""
    data = np.loadtxt(path, skiprows=1 if header else 0)
    if header:
        with open(path) as f:
            names = f.readline().split()
    else:
        names = [f"X{j + 1}" for j in range(data.shape[1])]
    return pd.DataFrame(data, columns=names)


def recorded_graph(path, names):
    """causal-learn's graph matrix (``G[i, j] = -1, G[j, i] = 1``: ``i -> j``; ``-1, -1``:
    undirected; ``1, 1``: bidirected, kept as undirected) as a :class:`skbn.graph.PDAG`."""
    g = np.loadtxt(path)
    directed, undirected = [], []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            a, b = g[i, j], g[j, i]
            if (a, b) == (-1, 1):
                directed.append((names[i], names[j]))
            elif (a, b) == (1, -1):
                directed.append((names[j], names[i]))
            elif a or b:
                undirected.append((names[i], names[j]))
    return PDAG(names, directed, undirected)


def skeleton(pdag):
    return {frozenset(e) for e in pdag.directed} | {frozenset(e) for e in pdag.undirected}


def fit_pc(x, test, column_types):
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PCStructure(ci_test=test, column_types=column_types, fit_parameters=False).fit(x)
    return est.cpdag_, time.process_time() - start


def peer_pc(x, test_name):
    """causal-learn's PC (stable, ``uc_rule=0``, ``uc_priority=3``) and its CPU time."""
    from causallearn.search.ConstraintBased.PC import pc
    from causallearn.utils import cit

    start = time.process_time()
    graph = pc(x.to_numpy(), 0.05, getattr(cit, test_name), True, 0, 3, show_progress=False)
    elapsed = time.process_time() - start
    path = Path(__file__).with_name(".causal_learn_pc.txt")
    np.savetxt(path, graph.G.graph, fmt="%d")
    try:
        return recorded_graph(path, list(x.columns)), elapsed
    finally:
        path.unlink()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--causal-learn", required=True, type=Path, help="a causal-learn checkout")
    parser.add_argument("--run-peer", action="store_true", help="run causal-learn's PC as well")
    args = parser.parse_args()
    data = args.causal_learn / "tests" / "TestData"
    results = data / "benchmark_returned_results"
    rows = []

    def pc_row(label, x, test, peer_test, column_types, recorded):
        cpdag, seconds = fit_pc(x, test, column_types)
        same = [skeleton(recorded_graph(path, list(x.columns))) == skeleton(cpdag) for path in recorded]
        row = {"data": label, "vars": x.shape[1], "rows": len(x), "edges": len(skeleton(cpdag)),
               "skeleton = recorded": f"{sum(same)}/{len(same)}", "skbn s": round(seconds, 3)}
        strong = [p for p in recorded if p.name.endswith("_0_3.txt")]
        if strong:
            row["CPDAG = uc_priority 3"] = recorded_graph(strong[0], list(x.columns)) == cpdag
        if args.run_peer:
            peer, peer_seconds = peer_pc(x, peer_test)
            row["CPDAG = uc_priority 3"] = peer == cpdag
            row["skeleton = peer"] = skeleton(peer) == skeleton(cpdag)
            row["causal-learn s"] = round(peer_seconds, 3)
        rows.append(row)

    linear = load(data / "data_linear_10.txt")
    pc_row("data_linear_10 (Fisher z)", linear, FisherZ(alpha=0.05), "fisherz", "continuous",
           sorted(results.glob("linear_10_pc_fisherz_0.05_stable_*.txt")))
    discrete = load(data / "data_discrete_10.txt").astype(int)
    for name, test in (("gsq", GTest), ("chisq", ChiSquare)):
        pc_row(f"data_discrete_10 ({name})", discrete, test(alpha=0.05, min_samples_per_dof=0), name,
               "discrete", sorted(results.glob(f"discrete_10_pc_{name}_0.05_stable_*.txt")))
    networks = data / "bnlearn_discrete_10000"
    for path in sorted((networks / "benchmark_returned_results").glob("*_pc_chisq_0.05_stable_0_-1.txt")):
        net = path.name.split("_")[0]
        source = next((p for p in (networks / "data" / f"{net}.txt", networks / f"{net}.txt")
                       if p.exists() and p.stat().st_size), None)
        if source is None:
            print(f"{net}: no data file in the checkout (a Git LFS or missing object)")
            continue
        pc_row(f"bnlearn {net} (chisq)", load(source).astype(int),
               ChiSquare(alpha=0.05, min_samples_per_dof=0), "chisq", "discrete", [path])
    print_table(rows, list(dict.fromkeys(key for row in rows for key in row)))

    print()
    ges_rows = []
    ges_cases = (("data_linear_10 (BIC)", linear, GaussianBIC(),
                  "linear_10_ges_local_score_BIC_none_none.txt"),
                 ("data_discrete_10 (BDeu)", discrete, BDeu(ess=1),
                  "discrete_10_ges_local_score_BDeu_none_none.txt"))
    for label, x, scorer, recorded in ges_cases:
        est = GESStructure(scorer=scorer, fit_parameters=False).fit(x)
        same = est.cpdag_ == recorded_graph(results / recorded, list(x.columns))
        ges_rows.append({"data": label, "CPDAG = recorded": same, "score": f"{est.score_:.4f}"})
    simulated = load(data / "test_ges_simulated_linear_gaussian_data.txt", header=False)
    ges = GESStructure(scorer="bic-g", fit_parameters=False).fit(simulated)
    exact = ExactStructure(scorer="bic-g", fit_parameters=False).fit(simulated)
    ges_rows.append({"data": "test_ges_simulated_linear_gaussian (BIC)",
                     "CPDAG = recorded": "(none recorded)", "score": f"{ges.score_:.4f}",
                     "exact optimum": f"{exact.score_:.4f}"})
    print_table(ges_rows, list(dict.fromkeys(key for row in ges_rows for key in row)))

    x = load(data / "test_pc_simulated_linear_gaussian_data.txt")
    x.columns = [f"X{j}" for j in range(x.shape[1])]
    truth = PDAG(list(x.columns), [("X0", "X3"), ("X1", "X3"), ("X2", "X3"), ("X2", "X4"), ("X3", "X4")],
                 [("X0", "X1"), ("X1", "X2")])
    cpdag, _ = fit_pc(x, FisherZ(alpha=0.05), "continuous")
    print(f"\ntest_pc_simulated_linear_gaussian: CPDAG = the truth TestPC asserts: {cpdag == truth}")


if __name__ == "__main__":
    main()
