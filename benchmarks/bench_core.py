"""ChowLiuTree and K2Structure on ALARM: time, SHD, held-out log-likelihood, peers side by side.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_core.py [--quick]

Times are the best of 3 calls of the learning call (fit for skbn, which also encodes the data
and fits the CPTs). Peers run when importable (pgmpy, pyAgrum): use the benchmark environment.
"""

import argparse
import warnings

from _common import best_time, load_shared, print_table

from skbn import ChowLiuTree, FixedStructure, K2Structure
from skbn.metrics import structural_hamming_distance
from skbn.scores import BDeu

warnings.filterwarnings("ignore")


def peer_pgmpy_chow_liu(train):
    from pgmpy.estimators import TreeSearch

    return lambda: TreeSearch(train.astype(str)).estimate(estimator_type="chow-liu", show_progress=False)


def peer_pgmpy_bdeu(train, edges):
    from pgmpy.estimators import BDeu as PgmpyBDeu
    from pgmpy.models import DiscreteBayesianNetwork as PgmpyNet

    model = PgmpyNet(edges)
    model.add_nodes_from(train.columns)
    scorer = PgmpyBDeu(train.astype(str), equivalent_sample_size=1.0)
    return lambda: scorer.score(model)


def peer_pyagrum_k2(train, order):
    """pyAgrum's K2; the learner (which parses the data) is built outside the timed call."""
    import pyagrum as gum  # pyAgrum >= 2 is imported as pyagrum

    learner = gum.BNLearner(train.astype(str))
    learner.useScoreK2()
    learner.useK2([list(train.columns).index(v) for v in order])
    return learner.learnDAG


def try_peer(make, *args):
    try:
        return best_time(make(*args))
    except ImportError:
        return None, None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="10,000 rows only")
    args = parser.parse_args()
    truth = load_shared("alarm")
    order = truth.topological_order()
    rows = []
    for n in [10_000] if args.quick else [10_000, 100_000]:
        train = truth.sample(n, random_state=0)[order]
        test = truth.sample(20_000, random_state=1)[order]
        true_ll = FixedStructure(edges=truth.edges).fit(train).score(test)
        learners = {
            "ChowLiuTree": ChowLiuTree(),
            "K2Structure(k2)": K2Structure(ordering=order),
            "K2Structure(bdeu)": K2Structure(ordering=order, scorer="bdeu"),
        }
        for name, learner in learners.items():
            seconds, model = best_time(lambda: learner.fit(train))
            rows.append({
                "rows": n, "learner": name, "seconds": seconds,
                "SHD": structural_hamming_distance(truth.edges, model.edges_, nodes=truth.nodes),
                "held-out LL": model.score(test), "true-graph LL": true_ll,
            })
        cl_time = rows[-3]["seconds"]
        k2_time = rows[-2]["seconds"]
        seconds, _ = try_peer(peer_pgmpy_chow_liu, train)
        if seconds is not None:
            rows.append({"rows": n, "learner": "pgmpy TreeSearch", "seconds": seconds,
                         "ratio": seconds / cl_time})
        seconds, _ = try_peer(peer_pyagrum_k2, train, order)
        if seconds is not None:
            rows.append({"rows": n, "learner": "pyAgrum K2", "seconds": seconds, "ratio": seconds / k2_time})
        ours, _ = best_time(lambda: BDeu(ess=1.0).score(train, truth.edges))
        ours_value = BDeu(ess=1.0).score(train, truth.edges)
        rows.append({"rows": n, "learner": "skbn BDeu(true DAG)", "seconds": ours, "score": ours_value})
        seconds, value = try_peer(peer_pgmpy_bdeu, train, truth.edges)
        if seconds is not None:
            rows.append({"rows": n, "learner": "pgmpy BDeu(true DAG)", "seconds": seconds,
                         "ratio": seconds / ours, "score": value,
                         "|diff|": abs(value - ours_value)})
    print_table(rows, ["rows", "learner", "seconds", "ratio", "SHD", "held-out LL",
                       "true-graph LL", "score", "|diff|"])


if __name__ == "__main__":
    main()
