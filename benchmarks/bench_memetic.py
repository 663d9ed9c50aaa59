"""Memetic search vs tabu search at an equal evaluation budget, and vs pyAgrum's greedy search.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_memetic.py [--quick] [--budget-per-variable 50]
        [--random-state 0] [--random-seeds 0 1 2 3 4 5 6 7]

Cases (those of ``bench_best.py``): ALARM and CHILD at 1,000, 10,000 and 100,000 rows (from
../shared/networks) and two random 100-node networks
(``make_random_network(100, max_indegree=3, random_state=seed)``, seeds 0 and 1 or
``--random-seeds``, 5,000 rows);
``--quick``: ALARM and CHILD at 1,000 rows. Every skbn search gets the same budget of
``max_evaluations = budget_per_variable * n_variables`` family re-scorings (the unit of
:class:`skbn._engines._search.Budget`) and ``random_state=0`` (``--random-state``):

* ``hill_climb``: plain steepest ascent (stops at its local optimum, under the budget);
* ``tabu+restarts``: tabu search restarted from perturbations of the best graph
  (``n_restarts`` unbounded, ``perturbation=3``) until the budget is spent;
* ``memetic`` / ``genetic``: ``population_size=10``, generations unbounded;
* ``multistart_tabu``: the recommended best-graph setting (``bench_best.py``), which
  stops on its own, usually well under the budget;
* ``pyagrum``: ``BNLearner.useGreedyHillClimbing()`` with ``useScoreBDeu()`` and no prior.

Every learned DAG is scored by skbn's BDeu (ess = 1) on the same rows; ``diff`` is the
score minus the hill-climbing score (higher is better), ``SHD`` the structural Hamming
distance to the true DAG, ``evals`` the evaluations used and ``s`` the wall time of ``fit``.
"""

import argparse
import time
import warnings

from _common import print_table
from bench_best import cases, pyagrum_edges

from skbn._engines._search import improves
from skbn.estimators._hill_climb import HillClimbStructure
from skbn.metrics import structural_hamming_distance


def main():
    warnings.filterwarnings("ignore", category=FutureWarning)
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="ALARM and CHILD at 1,000 rows only")
    parser.add_argument("--budget-per-variable", type=int, default=50)
    parser.add_argument("--random-state", type=int, default=0,
                        help="random_state of tabu+restarts, memetic and genetic")
    parser.add_argument("--random-seeds", type=int, nargs="+", default=[0, 1],
                        help="seeds of the random 100-node networks")
    args = parser.parse_args()
    unbounded = 10 ** 9
    rows = []
    for label, net, X in cases(args.quick, args.random_seeds):
        budget = args.budget_per_variable * X.shape[1]
        methods = {
            "hill_climb": {"max_evaluations": budget},
            "tabu+restarts": {"search": "tabu", "n_restarts": unbounded, "perturbation": 3,
                              "max_evaluations": budget, "random_state": args.random_state},
            "memetic": {"search": "memetic", "population_size": 10, "max_iter": unbounded,
                        "max_evaluations": budget, "random_state": args.random_state},
            "genetic": {"search": "genetic", "population_size": 10, "max_iter": unbounded,
                        "max_evaluations": budget, "random_state": args.random_state},
            "multistart_tabu": {"search": "multistart_tabu", "max_evaluations": budget},
        }
        reference = None
        for method, params in methods.items():
            start = time.perf_counter()
            model = HillClimbStructure(**params).fit(X)
            seconds = time.perf_counter() - start
            reference = model.score_ if reference is None else reference
            rows.append({"data": label, "budget": budget, "method": method,
                         "score": model.score_, "diff": model.score_ - reference,
                         "evals": int(model.trace_evaluations_[-1]), "s": seconds,
                         "SHD": structural_hamming_distance(net.edges, model.edges_,
                                                            nodes=net.nodes)})
            print(rows[-1], flush=True)
        try:
            start = time.perf_counter()
            edges = pyagrum_edges(X)
            seconds = time.perf_counter() - start
        except Exception as error:  # noqa: BLE001 - optional peer
            print(f"# pyAgrum unavailable: {error}")
            continue
        scored = HillClimbStructure(start=edges, max_iter=0).fit(X)
        rows.append({"data": label, "budget": "-", "method": "pyagrum greedy",
                     "score": scored.score_, "diff": scored.score_ - reference, "evals": None,
                     "s": seconds, "SHD": structural_hamming_distance(net.edges, scored.edges_,
                                                                      nodes=net.nodes)})
        print(rows[-1], flush=True)
    print()
    print_table(rows, ["data", "budget", "method", "score", "diff", "SHD", "evals", "s"])
    score = {(r["data"], r["method"]): r["score"] for r in rows}
    labels = list(dict.fromkeys(r["data"] for r in rows))
    outcome = {"beats": [], "ties": [], "loses to": []}
    for d in labels:  # the search's tie rule: better by more than the relative tolerance
        memetic, tabu = score[d, "memetic"], score[d, "tabu+restarts"]
        key = "beats" if improves(memetic, tabu) else "loses to" if improves(tabu, memetic) else "ties"
        outcome[key].append(d)
    print()
    for key, cases_ in outcome.items():
        print(f"memetic {key} tabu+restarts at an equal budget on {len(cases_)} of {len(labels)} "
              f"cases: {', '.join(cases_) or '-'}")


if __name__ == "__main__":
    main()
