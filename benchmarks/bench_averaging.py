"""Benchmarks of structure averaging: bootstrap, order MCMC, exact edge posteriors.

1. ``boot``: 200 hill-climbing resamples (BDeu, ess 1) on ALARM 10k, ``n_jobs=1`` and
   ``n_jobs=2``, against R bnlearn's ``boot.strength`` (``algorithm = "hc"``, ``score = "bde"``,
   ``iss = 1``) + ``averaged.network`` on the same rows when R and bnlearn are installed
   (:mod:`_bnlearn`, ``benchmarks/install_bnlearn.sh``; one run, timed inside R).
2. ``heldout``: held-out log-likelihood per row (5000 test rows from the true network) of
   the best single DAG (hill climbing), the bootstrap averaged network and the order-MCMC
   model average, on ALARM and CHILD with 200, 500 and 2000 training rows.
3. ``mcmc``: order-MCMC iterations per second on ALARM 10k (max_indegree 3) and the
   iterations / wall time until two chains' edge posteriors agree within 0.05.
4. ``exact``: exact edge posteriors (Koivisto-Sood DP) for 10 to 20 variables.

Run from the checkout (``../shared/networks`` must be beside it)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_averaging.py [boot heldout mcmc exact] [--quick]
"""

import argparse
import sys
import time

import _bnlearn
import numpy as np
from _common import load_shared, print_table  # noqa: E402

from skbn import BootstrapStructure, HillClimbStructure, OrderMCMCStructure
from skbn.posterior import edge_posteriors
from skbn.scores import BDeu

BNLEARN_BOOT = ('averaged.network(boot.strength(x, R = {}, algorithm = "hc", '
                'algorithm.args = list(score = "bde", iss = 1)))')


def bench_boot(n_resamples, repeats):
    """n_jobs=1, then n_jobs=2 twice: the first call starts the loky workers (each imports
    numpy, pandas, scipy, scikit-learn and skbn: about 1.5 s on an idle machine), the second
    reuses them, as any later fit in the same session does."""
    X = load_shared("alarm").sample(10_000, random_state=0)
    bnlearn = _bnlearn.run(X, BNLEARN_BOOT.format(n_resamples))
    rows = []
    for n_jobs, label in ((1, "1"), (2, "2 (cold pool)"), (2, "2 (warm pool)")):
        best = np.inf
        for _ in range(repeats if label != "2 (cold pool)" else 1):
            start = time.perf_counter()
            model = BootstrapStructure(HillClimbStructure(scorer=BDeu(ess=1.0)), n_resamples=n_resamples,
                                       n_jobs=n_jobs, random_state=0).fit(X)
            best = min(best, time.perf_counter() - start)
        rows.append({"n_jobs": label, "resamples": n_resamples, "seconds": best,
                     "s/resample": best / n_resamples,
                     "vs bnlearn": bnlearn.wall / best if bnlearn else None,
                     "vs n_jobs=1": rows[0]["seconds"] / best if rows else None,
                     "edges": len(model.edges_), "threshold": model.threshold_})
    if bnlearn:
        rows.append({"n_jobs": "bnlearn boot.strength", "resamples": n_resamples,
                     "seconds": bnlearn.wall, "s/resample": bnlearn.wall / n_resamples,
                     "edges": len(bnlearn.directed) + len(bnlearn.undirected)})
    print(f"\n## Bootstrap: {n_resamples} HC resamples, ALARM 10k (best of {repeats})")
    print_table(rows, ["n_jobs", "resamples", "seconds", "s/resample", "vs bnlearn", "vs n_jobs=1",
                       "edges", "threshold"])


def bench_heldout(sizes, n_resamples, n_iter):
    rows = []
    for name in ("alarm", "child"):
        net = load_shared(name)
        test = net.sample(5000, random_state=99)
        truth = float(np.mean(net.log_likelihood(test)))
        for n in sizes:
            train = net.sample(n, random_state=n)
            hc = HillClimbStructure(scorer=BDeu(ess=1.0)).fit(train)
            boot = BootstrapStructure(HillClimbStructure(scorer=BDeu(ess=1.0)), n_resamples=n_resamples,
                                      n_jobs=2, random_state=0).fit(train)
            start = time.perf_counter()
            mcmc = OrderMCMCStructure(scorer=BDeu(ess=1.0), max_indegree=3, n_iter=n_iter,
                                      burn_in=n_iter // 5, thin=max(n_iter // 500, 1), n_jobs=2,
                                      random_state=0).fit(train)
            rows.append({"network": name, "n": n, "true DAG": truth,
                         "HC DAG": hc.score(test), "boot avg net": boot.score(test),
                         "MCMC best DAG": float(
                             np.mean(mcmc.network_.log_likelihood_codes(mcmc._encode(test)))),
                         "MCMC average": mcmc.score(test), "MCMC s": time.perf_counter() - start,
                         "MCMC conv": mcmc.convergence_})
    print(f"\n## Held-out log-likelihood per row (5000 test rows; bootstrap {n_resamples} resamples; "
          f"order MCMC 2 chains x {n_iter} iterations, max_indegree 3)")
    print_table(rows, ["network", "n", "true DAG", "HC DAG", "boot avg net", "MCMC best DAG",
                       "MCMC average", "MCMC s", "MCMC conv"])


def bench_mcmc(budgets, target=0.05):
    X = load_shared("alarm").sample(10_000, random_state=0)
    rows = []
    for n_iter in budgets:
        start = time.perf_counter()
        model = OrderMCMCStructure(scorer=BDeu(ess=1.0), max_indegree=3, n_iter=n_iter,
                                   burn_in=n_iter // 5, thin=max(n_iter // 200, 1), n_chains=2,
                                   n_jobs=2, random_state=0, verbose=1).fit(X)
        wall = time.perf_counter() - start
        rows.append({"n_iter": n_iter, "wall s": wall, "families": model.n_families_,
                     "max chain diff": model.convergence_,
                     "accept": float(model.acceptance_rate_.mean())})
        if model.convergence_ <= target:
            break
    # iterations per second of one chain, without the local scores (measured separately)
    from skbn._data import encode_fit
    from skbn.estimators._order_mcmc import _run_chain
    from skbn.posterior import parent_set_scores

    data, _ = encode_fit(X)
    start = time.perf_counter()
    families = parent_set_scores(data, BDeu(ess=1.0), 3)
    scoring = time.perf_counter() - start
    start = time.perf_counter()
    _run_chain(families.parents, families.scores, None, data.n_variables, 5000, 5000, 1, 0)
    per_second = 5000 / (time.perf_counter() - start)
    print(f"\n## Order MCMC on ALARM 10k, max_indegree 3: {families.n_families} local scores in "
          f"{scoring:.1f} s (n_jobs=1); {per_second:.0f} iterations/s per chain (no sampling)")
    print_table(rows, ["n_iter", "wall s", "families", "max chain diff", "accept"])


def bench_exact(sizes):
    net = load_shared("alarm")
    order = net.topological_order()
    rows = []
    for p in sizes:
        X = net.sample(5000, random_state=0)[order[:p]]
        start = time.perf_counter()
        edge_posteriors(X, max_indegree=3)
        rows.append({"p": p, "max_indegree": 3, "seconds": time.perf_counter() - start})
    print("\n## Exact edge posteriors (all p(p-1) edges), ALARM prefix, 5000 rows")
    print_table(rows, ["p", "max_indegree", "seconds"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("parts", nargs="*", default=["boot", "heldout", "mcmc", "exact"])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    quick = args.quick
    if "boot" in args.parts:
        bench_boot(20 if quick else 200, 1)
    if "heldout" in args.parts:
        bench_heldout((200,) if quick else (200, 500, 2000), 20 if quick else 100, 2000 if quick else 10_000)
    if "mcmc" in args.parts:
        bench_mcmc((2000,) if quick else (5000, 10_000, 20_000, 40_000, 80_000))
    if "exact" in args.parts:
        bench_exact((10, 12) if quick else (10, 14, 18, 20))


if __name__ == "__main__":
    sys.exit(main())
