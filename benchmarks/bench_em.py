"""Benchmark learning from incomplete data: structural EM and parameter EM on ALARM.

Run (single core numbers)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_em.py [--rates 0.1 0.3] [--rows 10000]
        [--skip-structure] [--skip-parameters] [--skip-pyagrum] [--skip-bnlearn]

1. Structure: ALARM, ``--rows`` training rows with every cell missing completely at
   random (MCAR) with probability ``rate``. ``HillClimbStructure(missing="em")``
   (structural EM, BDeu ess 1, at most 5 structure searches like bnlearn's
   ``structural.em(maximize="hc", max.iter=5)``, ``random_state=0``) against complete-case
   hill climbing (``missing="complete_case"``; none at 30% MCAR, where no row of ALARM's 37
   columns is complete) and hill climbing on single imputation (every missing cell set to
   its column's most frequent state): wall time of ``fit`` (one run: these take seconds to
   minutes), SHD between the CPDAGs of the learned and the true DAG, and held-out
   log-likelihood per row on 10,000 complete rows. Then, when R and bnlearn are installed
   (:mod:`_bnlearn`, ``benchmarks/install_bnlearn.sh``; one run inside R, data transfer and
   R startup not timed), on the same cells: bnlearn's ``structural.em(x, maximize = "hc",
   maximize.args = list(score = "bde", iss = 1), max.iter = 5)`` (its defaults otherwise:
   ``fit = "mle"``, ``impute = "bayes-lw"``; ``set.seed(0)``) and ``hc(score = "bde",
   iss = 1)`` on the complete rows.
2. Parameters: EM on the true ALARM DAG, maximum likelihood. skbn
   ``FixedStructure(missing="em")`` at pyAgrum's stopping rule (relative change of the
   log-likelihood at most 1e-5, ``em_tol=1e-5``), at its default ``em_tol=1e-6`` and to
   convergence (``em_tol=1e-9``; every run at most 100 iterations)
   against pyAgrum's ``BNLearner.useEM(1e-5)`` (its iterations from ``EMnbrIterations``) on
   the same data (a CSV with ``?`` for the missing cells; a smoothing prior of 1e-6 because
   pyAgrum refuses unseen parent configurations under pure ML): wall time (one run), process
   CPU time (all threads; pyAgrum may use several, skbn one) and
   the final observed-data log-likelihood of each parameter set, both computed exactly by
   skbn.
"""

import argparse
import os
import tempfile
import time
import warnings

import _bnlearn
import numpy as np
from _common import best_time, load_shared, print_table  # noqa: E402

from skbn.estimators import FixedStructure, HillClimbStructure  # noqa: E402
from skbn.metrics import structural_hamming_distance  # noqa: E402
from skbn.network import DiscreteBayesianNetwork  # noqa: E402


def mcar(frame, rate, seed):
    mask = np.random.default_rng(seed).random(frame.shape) < rate
    return frame.astype(object).mask(mask)


BNLEARN = {
    "bnlearn structural.em (hc)":
        'structural.em(x, maximize = "hc", maximize.args = list(score = "bde", iss = 1), max.iter = 5)',
    "bnlearn complete-case hc": 'hc(x[complete.cases(x), ], score = "bde", iss = 1)',
}


def structure_rows(truth, rows, rates, bnlearn=True):
    train = truth.sample(rows, random_state=0)
    test = truth.sample(10_000, random_state=1)
    categories = dict(truth.states)
    out = []
    for rate in rates:
        X = mcar(train, rate, seed=2)
        learners = {
            "structural EM (hc)": (HillClimbStructure(missing="em", em_max_iter=5, categories=categories,
                                                      random_state=0), X),
            "complete-case hc": (HillClimbStructure(missing="complete_case", categories=categories), X),
            "mode-imputed hc": (HillClimbStructure(categories=categories), X.fillna(X.mode().iloc[0])),
        }
        for name, (model, data) in learners.items():
            start, cpu = time.perf_counter(), time.process_time()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    model.fit(data)
            except ValueError:  # no complete row left
                out.append({"MCAR": rate, "learner": name + f" ({int(X.notna().all(axis=1).sum())} rows)"})
                continue
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            out.append({
                "MCAR": rate, "learner": name, "time_s": seconds, "cpu_s": cpu,
                "cpdag_shd": structural_hamming_distance(truth.edges, model.edges_, cpdag=True),
                "n_edges": len(model.edges_),
                "heldout_ll": model.score(test),
            })
        for name, call in BNLEARN.items() if bnlearn else ():
            if "complete" in name and not X.notna().all(axis=1).any():
                continue  # no complete row
            try:
                result = _bnlearn.run(X, call, categories=categories)
            except RuntimeError as error:  # e.g. bnlearn's imputation meets a zero-probability row
                out.append({"MCAR": rate, "learner": f"{name} failed: {error}"})
                continue
            if result is not None:
                out.append({"MCAR": rate, "learner": name, "time_s": result.wall, "cpu_s": result.cpu,
                            "cpdag_shd": structural_hamming_distance(truth.edges, result.directed,
                                                                     cpdag=True),
                            "n_edges": len(result.directed)})
    return out


def pyagrum_em(truth, X, tol):
    """pyAgrum's EM on the true DAG; returns our network with its CPTs."""
    import pyagrum as gum

    bn = gum.loadBN(os.environ.get("ALARM_BIF", str(_alarm_path())))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "data.csv")
        X.fillna("?").to_csv(path, index=False)

        def learn():
            learner = gum.BNLearner(path, bn, ["?"])
            learner.useEM(tol)
            learner.useSmoothingPrior(1e-6)  # pyAgrum refuses unseen parent configurations under pure ML
            return learner.learnParameters(bn.dag()), learner.EMnbrIterations()

        seconds, (learned, iterations) = best_time(learn, repeats=1)
    cpts = {}
    for node in truth.nodes:
        potential = learned.cpt(node)
        names = list(potential.names)[::-1]  # toarray axes: the node's parents, then the node
        array = potential.toarray()
        order = [names.index(v) for v in (*truth.parents[node], node)]
        cpts[node] = np.transpose(array, order)
    network = DiscreteBayesianNetwork(truth.states, truth.parents, cpts)
    return seconds, network, iterations


def _alarm_path():
    from _common import SHARED_NETWORKS

    return SHARED_NETWORKS / "alarm.bif"


def parameter_rows(truth, rows, rates, tol=1e-5, skbn_tols=(1e-5, 1e-6, 1e-9), pyagrum=True):
    """skbn's EM at pyAgrum's stopping rule (relative change of the log-likelihood at most
    ``tol``; both libraries use this rule), at its default ``em_tol=1e-6`` and run to
    convergence, then pyAgrum's (unless ``pyagrum=False``)."""
    train = truth.sample(rows, random_state=0)
    out = []
    for rate in rates:
        X = mcar(train, rate, seed=2)
        for em_tol in skbn_tols:
            model = FixedStructure(edges=truth.edges, missing="em", parameter_estimator="mle",
                                   em_tol=em_tol, em_max_iter=100, categories=dict(truth.states),
                                   random_state=0)
            start, cpu = time.perf_counter(), time.process_time()
            model.fit(X)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            codes = model._encode(X)
            out.append({"MCAR": rate, "learner": f"skbn EM (tol {em_tol:g})", "time_s": seconds,
                        "cpu_s": cpu, "iterations": model.em_n_iter_,
                        "train_ll": f"{model.network_.log_likelihood_codes(codes).sum():.2f}"})
        if not pyagrum:
            continue
        try:
            cpu = time.process_time()
            seconds, network, iterations = pyagrum_em(truth, X, tol)
            cpu = time.process_time() - cpu
        except ImportError:
            continue
        out.append({"MCAR": rate, "learner": f"pyAgrum EM (tol {tol:g})", "time_s": seconds,
                    "cpu_s": cpu, "iterations": iterations,
                    "train_ll": f"{network.log_likelihood(X[truth.nodes]).sum():.2f}"})
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rates", type=float, nargs="+", default=[0.1, 0.3])
    parser.add_argument("--skip-structure", action="store_true")
    parser.add_argument("--skip-parameters", action="store_true")
    parser.add_argument("--skip-pyagrum", action="store_true",
                        help="parameter EM: skbn only (pyAgrum takes ~10 min at 30%% MCAR; its "
                             "log-likelihood there is -84,530.32, see docs/missing.md)")
    parser.add_argument("--skip-bnlearn", action="store_true", help="structure: skbn only")
    args = parser.parse_args()
    truth = load_shared("alarm")
    if not args.skip_structure:
        print(f"Structure learning, ALARM {args.rows} rows, MCAR")
        print(_bnlearn.version() or "bnlearn not available")
        print_table(structure_rows(truth, args.rows, args.rates, bnlearn=not args.skip_bnlearn),
                    ["MCAR", "learner", "time_s", "cpu_s", "cpdag_shd", "n_edges", "heldout_ll"])
        print()
    if args.skip_parameters:
        return
    print(f"Parameter EM on the true DAG, ALARM {args.rows} rows, MCAR, ML")
    print_table(parameter_rows(truth, args.rows, args.rates, pyagrum=not args.skip_pyagrum),
                ["MCAR", "learner", "time_s", "cpu_s", "iterations", "train_ll"])


if __name__ == "__main__":
    main()
