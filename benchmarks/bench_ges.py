"""Benchmark GESStructure against our hill climbing and causal-learn's GES.

BDeu(ess=1) on child and alarm at 10,000 and 100,000 rows: time (best of 3, causal-learn
once), CPDAG SHD to the true CPDAG, final BDeu score of the returned DAG extension, held-out
mean log-likelihood (20,000 fresh rows).  causal-learn's ``local_score_BDeu`` adds a structure
prior ``-log(p - 2)`` per parent; the ``GES+pen`` row runs our GES with that same prior
(``BDeu(edge_penalty=log(p - 2))``) for a like-for-like comparison.  Run::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_ges.py [--quick]

(peers are optional imports: rows are skipped when causal-learn or HillClimbStructure is
not importable; ``--no-causal-learn`` skips it, ``--quick`` runs child and alarm at 10k once.)
"""

import argparse
import math

import numpy as np
from _common import SHARED_NETWORKS, best_time  # noqa: E402

from skbn import FixedStructure, GESStructure  # noqa: E402
from skbn.graph import PDAG, dag_to_cpdag, pdag_to_dag  # noqa: E402
from skbn.io import read_bif  # noqa: E402
from skbn.metrics import structural_hamming_distance  # noqa: E402
from skbn.scores import BDeu  # noqa: E402


def causal_learn_ges(X):
    from causallearn.search.ScoreBased.GES import ges

    codes = np.column_stack([X[c].cat.codes.to_numpy() for c in X.columns])
    graph = ges(codes, score_func="local_score_BDeu")["G"].graph
    nodes, p = list(X.columns), X.shape[1]
    directed, undirected = [], []
    for i in range(p):
        for j in range(p):
            if graph[j, i] == 1 and graph[i, j] == -1:
                directed.append((nodes[i], nodes[j]))
            elif graph[i, j] == -1 and graph[j, i] == -1 and i < j:
                undirected.append((nodes[i], nodes[j]))
    return PDAG(nodes, directed, undirected)


def fit_network_ll(edges, X, test):
    """Held-out mean log-likelihood of a DAG with CPTs fitted as our estimators do."""
    return FixedStructure(edges=edges, handle_unknown="error").fit(X).score(test)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-causal-learn", action="store_true")
    args = parser.parse_args()
    if not SHARED_NETWORKS.is_dir():
        raise SystemExit(f"needs the shared networks in {SHARED_NETWORKS}")
    configs = [("child", 10000), ("alarm", 10000)]
    if not args.quick:
        configs += [("child", 100000), ("alarm", 100000)]
    repeats = 1 if args.quick else 3
    try:
        from skbn.estimators._hill_climb import HillClimbStructure
    except ImportError:
        HillClimbStructure = None
    try:
        import causallearn  # noqa: F401
        with_causal_learn = not args.no_causal_learn
    except ImportError:
        with_causal_learn = False
    print(f"{'network':>8} {'rows':>7} {'method':>14} {'time s':>8} {'ratio':>7} {'SHD':>4} "
          f"{'BDeu':>14} {'test LL':>9}")
    for name, n in configs:
        net = read_bif(SHARED_NETWORKS / f"{name}.bif")
        X = net.sample(n, random_state=0)
        test = net.sample(20000, random_state=1)
        true = dag_to_cpdag(net.nodes, net.edges)
        bdeu = BDeu(ess=1.0)
        rows = []
        t, ges = best_time(lambda: GESStructure(scorer=bdeu).fit(X), repeats)
        rows.append(("GES", t, ges.cpdag_, ges.score_, ges.score(test)))
        penalty = math.log(len(net.nodes) - 2)
        t, gp = best_time(lambda: GESStructure(scorer=BDeu(ess=1.0, edge_penalty=penalty)).fit(X), repeats)
        rows.append(("GES+pen", t, gp.cpdag_, bdeu.score(X, gp.edges_), gp.score(test)))
        if HillClimbStructure is not None:
            t, hc = best_time(lambda: HillClimbStructure(scorer=bdeu).fit(X), repeats)
            rows.append(("HillClimb", t, dag_to_cpdag(net.nodes, hc.edges_), bdeu.score(X, hc.edges_),
                         hc.score(test)))
        if with_causal_learn:
            t, cl = best_time(lambda: causal_learn_ges(X), 1)
            dag = pdag_to_dag(cl)
            rows.append(("causal-learn", t, cl, bdeu.score(X, dag), fit_network_ll(dag, X, test)))
        base = rows[0][1]
        for method, t, cpdag, score, ll in rows:
            shd = structural_hamming_distance(true, cpdag)
            print(f"{name:>8} {n:>7} {method:>14} {t:>8.2f} {t / base:>7.1f} {shd:>4} {score:>14.2f} "
                  f"{ll:>9.4f}", flush=True)


if __name__ == "__main__":
    main()
