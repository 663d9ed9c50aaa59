"""Benchmark PCStructure against the true CPDAG and, when installed, against peers.

Usage::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_pc.py [--quick] [--repeat 3]

For every network (child, alarm) and sample size (10,000 and 100,000 rows; --quick: alarm at
10,000 only) it times ``PCStructure(ci_test=..., n_jobs=...).fit`` (the whole fit: encoding,
tests, orientation, CPTs) with the chi-square and G tests at alpha 0.05, n_jobs 1 and 2, and
reports the number of tests, the SHD between the learned and the true CPDAG (a reversed or
differently-marked edge counts 1), the skeleton F1 and the held-out mean log-likelihood
(5,000 fresh rows). When importable, peers run PC-stable on the same data in the same run
(10,000-row cases only; pgmpy once, being slow),
timing the learning call only, single-threaded: pgmpy (``PC.estimate(variant="stable")``),
causal-learn (``pc(stable=True, indep_test="chisq")``), pyAgrum (``BNLearner.usePC``) and R
bnlearn (``pc.stable(x, test = "x2")``, and ``"x2-adf"``: degrees of freedom adjusted for
empty strata, as skbn's default; :mod:`_bnlearn`, timed inside R).
Each configuration is run ``--repeat`` times and the best time is kept.

``n_jobs=2`` sends a level to joblib's process workers only when it counts at least 10**7
cells (conditioning sets x rows, the CI-test runner's ``min_parallel_work``): below that the
dispatch and the workers' cold caches cost more than they save, so on these networks only the
100,000-row fits use the workers, and the 10,000-row ``n_jobs=2`` rows measure the in-process
path (plus noise). Set ``SKBN_SHARED_NETWORKS`` to the networks folder when running from a git
worktree (default: ``../shared/networks`` beside the checkout).
"""

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
from _common import SHARED_NETWORKS, best_time  # noqa: E402

from skbn.citests import ChiSquare, GTest
from skbn.estimators._pc import PCStructure
from skbn.graph import PDAG, dag_to_cpdag
from skbn.io import read_bif
from skbn.metrics import skeleton_scores, structural_hamming_distance

ALPHA = 0.05
#: ``SKBN_SHARED_NETWORKS`` overrides the networks folder (e.g. from a git worktree).
NETWORKS = Path(os.environ.get("SKBN_SHARED_NETWORKS", SHARED_NETWORKS))


def codes_frame(data):
    return data.apply(lambda col: col.cat.codes.astype(np.int64))


def peer_pgmpy(data, repeat):
    from pgmpy.estimators import PC

    frame = data.astype(str)

    def run():
        return PC(data=frame).estimate(
            variant="stable", ci_test="chi_square", significance_level=ALPHA,
            max_cond_vars=data.shape[1], return_type="pdag", n_jobs=1, show_progress=False,
        )

    seconds, pdag = best_time(run, repeat)
    directed = [tuple(e) for e in pdag.directed_edges]
    undirected = [tuple(e) for e in pdag.undirected_edges]
    return seconds, PDAG(list(data.columns), directed, undirected)


def peer_causal_learn(data, repeat):
    from causallearn.search.ConstraintBased.PC import pc

    matrix = codes_frame(data).to_numpy()

    def run():
        return pc(matrix, alpha=ALPHA, indep_test="chisq", stable=True, show_progress=False)

    seconds, cg = best_time(run, repeat)
    g = cg.G.graph
    names = list(data.columns)
    directed, undirected = [], []
    for i in range(len(names)):
        for j in range(len(names)):
            if g[j, i] == 1 and g[i, j] == -1:
                directed.append((names[i], names[j]))
            elif i < j and g[i, j] == -1 and g[j, i] == -1:
                undirected.append((names[i], names[j]))
            elif i < j and g[i, j] == 1 and g[j, i] == 1:  # bidirected: count as undirected
                undirected.append((names[i], names[j]))
    return seconds, PDAG(names, directed, undirected)


def peer_pyagrum(data, repeat, tmpdir="/tmp"):
    import pyagrum as gum

    path = os.path.join(tmpdir, f"bench_pc_{os.getpid()}.csv")
    data.astype(str).to_csv(path, index=False)
    names = list(data.columns)

    def run():
        learner = gum.BNLearner(path)
        learner.setNumberOfThreads(1)
        learner.usePC()
        learner.useChi2Test()
        learner.setPCAlpha(ALPHA)
        start = time.perf_counter()
        pdag = learner.learnPDAG()
        return time.perf_counter() - start, pdag, learner

    best, out = np.inf, None
    for _ in range(repeat):
        seconds, pdag, learner = run()
        if seconds < best:
            best, out = seconds, (pdag, learner)
    os.remove(path)
    pdag, learner = out
    name = learner.nameFromId
    directed = [(name(a), name(b)) for a, b in pdag.arcs()]
    undirected = [(name(a), name(b)) for a, b in pdag.edges()]
    return best, PDAG(names, directed, undirected)


def peer_bnlearn(data, repeat, test="x2"):
    import _bnlearn

    result = _bnlearn.run(data, f'pc.stable(x, test = "{test}", alpha = {ALPHA})', repeat)
    if result is None:
        raise ImportError("R or bnlearn is not installed")
    return result.wall, PDAG(list(data.columns), result.directed, result.undirected)


PEERS = {"pgmpy": peer_pgmpy, "causal-learn": peer_causal_learn, "pyAgrum": peer_pyagrum,
         "bnlearn": peer_bnlearn,
         "bnlearn-adf": lambda data, repeat: peer_bnlearn(data, repeat, test="x2-adf")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="alarm at 10,000 rows only")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args()
    cases = [("alarm", 10_000)] if args.quick else [
        ("child", 10_000), ("alarm", 10_000), ("child", 100_000), ("alarm", 100_000)]
    header = (f"{'network':8} {'rows':>7} {'method':24} {'n_jobs':>6} {'time s':>8} {'ratio':>6} "
              f"{'tests':>6} {'SHD':>4} {'skel F1':>7} {'held-out LL':>11}")
    print(header)
    print("-" * len(header))
    for name, n_rows in cases:
        net = read_bif(NETWORKS / f"{name}.bif")
        data = net.sample(n_rows, random_state=0)
        test_data = net.sample(5000, random_state=1)
        true = dag_to_cpdag(net.nodes, net.edges)
        ours = None
        for label, ci in (("skbn chi_square", ChiSquare(alpha=ALPHA)), ("skbn g_test", GTest(alpha=ALPHA))):
            for n_jobs in (1, 2):
                model = PCStructure(ci_test=ci, n_jobs=n_jobs).fit(data)  # warm-up (workers)
                seconds, model = best_time(
                    lambda: PCStructure(ci_test=ci, n_jobs=n_jobs).fit(data), args.repeat)
                if ours is None:
                    ours = seconds
                print(f"{name:8} {n_rows:>7} {label:24} {n_jobs:>6} {seconds:>8.3f} "
                      f"{seconds / ours:>6.2f} {model.n_tests_:>6} "
                      f"{structural_hamming_distance(true, model.cpdag_):>4} "
                      f"{skeleton_scores(true, model.cpdag_)['f1']:>7.3f} {model.score(test_data):>11.3f}")
        if args.no_peers or n_rows > 10_000:  # peers only at 10,000 rows (pgmpy takes ~1 min there)
            continue
        for peer, fn in PEERS.items():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    seconds, pdag = fn(data, 1 if peer == "pgmpy" else args.repeat)
            except ImportError:
                print(f"{name:8} {n_rows:>7} {peer:24} (not installed)")
                continue
            except Exception as exc:  # a peer failing must not stop the benchmark
                print(f"{name:8} {n_rows:>7} {peer:24} failed: {type(exc).__name__}: {exc}"[:160])
                continue
            print(f"{name:8} {n_rows:>7} {peer + ' chi_square':24} {1:>6} {seconds:>8.3f} "
                  f"{seconds / ours:>6.2f} {'-':>6} {structural_hamming_distance(true, pdag):>4} "
                  f"{skeleton_scores(true, pdag)['f1']:>7.3f} {'-':>11}")
    print("\nratio = time / time of skbn chi_square with n_jobs=1 on the same data")


if __name__ == "__main__":
    main()
