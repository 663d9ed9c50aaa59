"""Benchmark the hybrid MMHCStructure against unrestricted HillClimbStructure (and pyAgrum).

Run (single core numbers)::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_hybrid.py [--repeats 3] [--clock cpu]

For ALARM at 10,000 and 100,000 rows and CHILD at 10,000 rows (../shared/networks, or
``SKBN_SHARED_NETWORKS``), prints the best wall time (``--clock cpu``: process CPU time, steadier on a shared
machine) of the whole ``fit`` (encoding,
search, CPTs), the time of the restrict phase alone (MMPC), the number of CI tests, the
BIC and BDeu (ess=1) scores of the learned DAG under skbn's score objects, the SHD to the
true DAG, and skeleton precision / recall. Methods: ``mmhc`` (MMPC with the G test at alpha
0.05, then hill climbing on BIC, as bnlearn's ``mmhc``), ``mmhc-tabu``, ``hc`` (unrestricted
hill climbing on BIC), pyAgrum's greedy hill climbing on BIC when importable (one run), and,
when R and bnlearn are installed (:mod:`_bnlearn`, ``benchmarks/install_bnlearn.sh``; best of
``--repeats`` inside R, data transfer and R startup not timed), R bnlearn's ``mmhc(x)`` (its
default test for discrete data, ``"mi"``: the G test with (r_x - 1)(r_y - 1) prod r_Z degrees
of freedom), ``bnlearn-mmhc-adf`` (``test = "mi-adf"``: degrees of freedom adjusted for empty
strata, as skbn's default ``adjust_dof=True``) and ``hc(x, score = "bic")``.
"""

import argparse
import time

import _bnlearn
from _common import SHARED_NETWORKS, best_time

from skbn import HillClimbStructure, MMHCStructure
from skbn._data import encode_fit
from skbn.citests import resolve_ci_test
from skbn.estimators._mmhc import _mmpc_skeleton
from skbn.io import read_bif
from skbn.metrics import skeleton_scores, structural_hamming_distance
from skbn.scores import BIC, BDeu

BNLEARN = {"bnlearn-mmhc": "mmhc(x)", "bnlearn-mmhc-adf": 'mmhc(x, restrict.args = list(test = "mi-adf"))',
           "bnlearn-hc": 'hc(x, score = "bic")'}


def run_pyagrum(X):
    import pyagrum as gum

    learner = gum.BNLearner(X)
    learner.setNumberOfThreads(1)
    learner.useGreedyHillClimbing()
    learner.useScoreBIC()
    dag = learner.learnDAG()
    return [(learner.nameFromId(a), learner.nameFromId(b)) for a, b in dag.arcs()]


def restrict_time(X, repeats, clock):
    data, _ = encode_fit(X, "auto")
    ci_test = resolve_ci_test("g_test")
    seconds, _ = best_time(lambda: _mmpc_skeleton(data, ci_test, None, _no_exclusions(data)), repeats, clock)
    return seconds


def _no_exclusions(data):
    import numpy as np

    return np.zeros((data.n_variables, data.n_variables), dtype=bool)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    try:
        import pyagrum  # noqa: F401

        peers = {"pyagrum-hc": run_pyagrum}
    except ImportError:
        peers = {}
    header = (f"{'network':<8}{'rows':>8} {'method':<17}{'time s':>8}{'MMPC s':>8}{'tests':>7}"
              f"{'BIC':>13}{'BDeu':>13}{'SHD':>5}{'skel P':>7}{'skel R':>7}")
    print(_bnlearn.version() or "bnlearn not available")
    print(header)
    print("-" * len(header))
    for name, n in [("alarm", 10_000), ("alarm", 100_000), ("child", 10_000)]:
        net = read_bif(SHARED_NETWORKS / f"{name}.bif")
        truth = [(p, c) for c in net.nodes for p in net.parents[c]]
        X = net.sample(n, random_state=0)
        methods = {
            "mmhc": lambda X=X: MMHCStructure().fit(X),
            "mmhc-tabu": lambda X=X: MMHCStructure(search="tabu").fit(X),
            "hc": lambda X=X: HillClimbStructure(scorer="bic").fit(X),
        }
        rows = []
        for method, run in methods.items():
            seconds, model = best_time(run, args.repeats, clock)
            rows.append((method, seconds, model.edges_, getattr(model, "n_tests_", None)))
        for peer, run in peers.items():
            started = clock()
            edges = run(X)
            rows.append((peer, clock() - started, edges, None))
        for peer, call in BNLEARN.items():
            result = _bnlearn.run(X, call, args.repeats)
            if result is not None:
                rows.append((peer, result.seconds(args.clock), result.directed, None))
        mmpc_seconds = restrict_time(X, args.repeats, clock)
        for method, seconds, edges, n_tests in rows:
            bic = HillClimbStructure(scorer=BIC(), start=edges, max_iter=0).fit(X).score_
            bdeu = HillClimbStructure(scorer=BDeu(ess=1.0), start=edges, max_iter=0).fit(X).score_
            shd = structural_hamming_distance(truth, edges, nodes=net.nodes)
            skel = skeleton_scores(truth, edges)
            print(f"{name:<8}{n:>8} {method:<17}{seconds:>8.3f}"
                  f"{(f'{mmpc_seconds:.3f}' if method.startswith('mmhc') else ''):>8}"
                  f"{(n_tests if n_tests is not None else ''):>7}"
                  f"{bic:>13.1f}{bdeu:>13.1f}{shd:>5}{skel['precision']:>7.3f}{skel['recall']:>7.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
