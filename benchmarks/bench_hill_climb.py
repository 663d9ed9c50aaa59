"""Benchmark HillClimbStructure against pyAgrum and pgmpy hill climbing.

Run (single core numbers)::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_hill_climb.py \
        [--quick] [--pgmpy-100k] [--search tabu]

For every network (child, alarm from ../shared/networks, and a synthetic 80-node network),
every sample size (10,000 and 100,000 rows; --quick: alarm at 10,000 only) and every
score (BDeu ess=1, BIC), prints the best of 3 wall-clock times of skbn's whole ``fit``
(encoding, search and CPTs) and of the peers' learning call, the final score of each
learned DAG under *skbn's* score object, the SHD to the true DAG and the held-out
log-likelihood per row of each DAG with CPTs fitted the same way. Peers are optional:
they are used when importable (see "Speed" in the README for the environment).
"""

import argparse
import warnings

import numpy as np
from _common import SHARED_NETWORKS, best_time  # noqa: E402

from skbn.estimators._hill_climb import HillClimbStructure  # noqa: E402
from skbn.graph import random_dag  # noqa: E402
from skbn.io import read_bif  # noqa: E402
from skbn.metrics import structural_hamming_distance  # noqa: E402
from skbn.network import DiscreteBayesianNetwork  # noqa: E402
from skbn.scores import BIC, BDeu  # noqa: E402


def synthetic(n_nodes=80, seed=0):
    rng = np.random.RandomState(seed)
    nodes, edges = random_dag(n_nodes, 2.5 / n_nodes, random_state=rng, max_indegree=3, shuffle=True)
    cards = {v: int(rng.randint(2, 5)) for v in nodes}
    parents = {v: [p for p, c in edges if c == v] for v in nodes}
    cpts = {}
    for v in nodes:
        shape = [cards[p] for p in parents[v]] + [cards[v]]
        cpts[v] = rng.dirichlet(np.full(cards[v], 0.5), size=shape[:-1] or None).reshape(shape)
    return DiscreteBayesianNetwork({v: [f"s{k}" for k in range(cards[v])] for v in nodes}, parents, cpts)




def run_pyagrum(X, score):
    import pyagrum as gum

    learner = gum.BNLearner(X)
    learner.setNumberOfThreads(1)
    learner.useGreedyHillClimbing()
    if score == "bdeu":
        learner.useScoreBDeu()
        learner.useNoPrior()
    else:
        learner.useScoreBIC()
    dag_bn = learner.learnDAG()
    return [(learner.nameFromId(a), learner.nameFromId(b)) for a, b in dag_bn.arcs()]


def run_pgmpy(X, score):
    from pgmpy.estimators import HillClimbSearch

    search = HillClimbSearch(X)
    model = search.estimate(scoring_method="bdeu" if score == "bdeu" else "bic-d", show_progress=False)
    return list(model.edges())


def peers():
    found = {}
    for name, module in (("pyagrum", "pyagrum"), ("pgmpy", "pgmpy")):
        try:
            __import__(module)
            found[name] = {"pyagrum": run_pyagrum, "pgmpy": run_pgmpy}[name]
        except Exception as error:  # noqa: BLE001 - optional peers
            print(f"# {name} not available: {error}")
    return found


def main():
    warnings.filterwarnings("ignore", category=FutureWarning)
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--pgmpy-100k", action="store_true", help="also run pgmpy at 100k rows (slow)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--search", default="hill_climb", help="skbn search strategy (e.g. tabu)")
    args = parser.parse_args()

    nets = {}
    for name in ("child", "alarm"):
        if (SHARED_NETWORKS / f"{name}.bif").exists():
            nets[name] = read_bif(SHARED_NETWORKS / f"{name}.bif")
    nets["synthetic80"] = synthetic()
    sizes = [10_000, 100_000]
    scores = {"bdeu": BDeu(ess=1.0), "bic": BIC()}
    if args.quick:
        nets = {"alarm": nets["alarm"]} if "alarm" in nets else {"synthetic80": nets["synthetic80"]}
        sizes = [10_000]
    available = peers()
    header = f"{'network':<12}{'rows':>8} {'score':<5} {'method':<8}{'time s':>9}{'ratio':>8}" \
             f"{'score':>16}{'diff':>12}{'SHD':>5}{'test LL':>10}"
    print(header)
    print("-" * len(header))
    for net_name, net in nets.items():
        truth = [(p, c) for c in net.nodes for p in net.parents[c]]
        X_test = net.sample(10_000, random_state=12345)
        for n in sizes:
            X = net.sample(n, random_state=0)
            for score_name, scorer in scores.items():
                ours_time, model = best_time(
                    lambda: HillClimbStructure(scorer=scorer, search=args.search).fit(X), args.repeats)
                ours_score = model.score_
                rows = [("skbn", ours_time, model.edges_)]
                for peer, runner in available.items():
                    if peer == "pgmpy" and n > 10_000 and not args.pgmpy_100k:
                        continue
                    repeats = 1 if peer == "pgmpy" else args.repeats
                    try:
                        peer_time, edges = best_time(lambda: runner(X, score_name), repeats)
                    except Exception as error:  # noqa: BLE001
                        print(f"# {peer} failed on {net_name}: {error}")
                        continue
                    rows.append((peer, peer_time, edges))
                for method, seconds, edges in rows:
                    fitted = HillClimbStructure(scorer=scorer, start=edges, max_iter=0).fit(X)
                    shd = structural_hamming_distance(truth, fitted.edges_, nodes=net.nodes)
                    ratio = seconds / ours_time
                    print(f"{net_name:<12}{n:>8} {score_name:<5} {method:<8}{seconds:>9.3f}{ratio:>8.1f}"
                          f"{fitted.score_:>16.1f}{fitted.score_ - ours_score:>12.1f}{shd:>5}"
                          f"{fitted.score(X_test):>10.4f}", flush=True)


if __name__ == "__main__":
    main()
