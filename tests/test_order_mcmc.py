"""Order MCMC: agreement with the exact order-modular posterior, determinism, errors."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import one_observational_row_data, shared_network, with_duplicated_column
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning

from skbn.datasets import sample_asia
from skbn.estimators import _order_mcmc as order_mcmc
from skbn.estimators._order_mcmc import CONVERGENCE_THRESHOLD, OrderMCMCStructure
from skbn.posterior import edge_posteriors


@pytest.fixture(scope="module")
def asia():
    return sample_asia(1000, random_state=0)


def test_edge_posteriors_agree_with_the_exact_dynamic_programme():
    X = shared_network("sachs").sample(1000, random_state=0)  # 11 variables
    exact = edge_posteriors(X, max_indegree=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # converged chains: no warning
        model = OrderMCMCStructure(max_indegree=2, n_iter=40_000, burn_in=1000, thin=20,
                                   random_state=0).fit(X)
    assert np.abs(model.edge_posterior_.to_numpy() - exact.to_numpy()).max() < 0.05
    assert model.convergence_ < 0.1
    assert model.trace_.shape == (2, 40_000)
    assert model.chain_edge_posteriors_.shape == (2, 11, 11)


def test_table_lookup_and_parent_set_scan_give_the_same_chain(asia):
    """A chain whose order terms are looked up in the log-sum tables (the learner's choice
    for at most ``_TABLE_MAX_VARIABLES`` variables) and one that scans the consistent
    parent sets are the same chain."""
    from skbn._data import encode_fit
    from skbn._engines._subsets import local_score_table, log_subset_sums, parent_set_scores
    from skbn.scores import BDeu

    data = encode_fit(asia)[0]
    families = parent_set_scores(data, BDeu(), max_indegree=2)
    log_alpha = log_subset_sums(local_score_table(families))
    chains = [order_mcmc._run_chain(families.parents, families.scores, table, data.n_variables,
                                    n_iter=400, burn_in=100, thin=10, seed=3)
              for table in (log_alpha, None)]
    fast, scan = chains
    np.testing.assert_allclose(fast["edge_posterior"], scan["edge_posterior"], atol=1e-12)
    np.testing.assert_allclose(fast["trace"], scan["trace"], rtol=1e-12)
    np.testing.assert_array_equal(fast["samples"], scan["samples"])
    np.testing.assert_array_equal(fast["best_choice"], scan["best_choice"])
    assert fast["acceptance"] == scan["acceptance"] and len(fast["samples"]) == 30


def test_same_result_for_any_n_jobs(asia):
    params = dict(n_iter=300, burn_in=50, thin=10, n_chains=2, random_state=0)
    one = OrderMCMCStructure(n_jobs=1, **params).fit(asia)
    two = OrderMCMCStructure(n_jobs=2, **params).fit(asia)
    np.testing.assert_array_equal(one.chain_edge_posteriors_, two.chain_edge_posteriors_)
    assert one.dag_samples_ == two.dag_samples_ and one.edges_ == two.edges_


def test_model_averaged_density_is_the_mean_over_sampled_dags(asia):
    model = OrderMCMCStructure(n_iter=300, burn_in=50, thin=25, random_state=0).fit(asia)
    assert len(model.dag_samples_) == 2 * 10
    from skbn.estimators._fixed import FixedStructure

    rows = asia.iloc[:20]
    per_dag = [FixedStructure(edges=dag).fit(asia).score_samples(rows) for dag in model.dag_samples_]
    expected = logsumexp(per_dag, axis=0) - np.log(len(per_dag))
    np.testing.assert_allclose(model.score_samples(rows), expected, rtol=1e-10)
    assert model.score(rows) == pytest.approx(expected.mean())
    best = FixedStructure(edges=model.edges_).fit(asia)
    np.testing.assert_allclose(model.network_.log_likelihood_codes(model._encode(rows)),
                               best.score_samples(rows))


def test_candidate_parents_restrict_the_posterior(asia):
    skeleton = [("smoke", "lung"), ("smoke", "bronc"), ("bronc", "dysp")]
    model = OrderMCMCStructure(candidate_parents=skeleton, n_iter=200, burn_in=50,
                               random_state=0).fit(asia)
    allowed = {(u, v) for u, v in skeleton} | {(v, u) for u, v in skeleton}
    posterior = model.edge_posterior_
    for u in posterior.index:
        for v in posterior.columns:
            if (u, v) not in allowed:
                assert posterior.loc[u, v] == 0.0
    assert posterior.loc["smoke", "lung"] + posterior.loc["lung", "smoke"] > 0.99


@pytest.mark.parametrize("params, match", [
    ({"max_indegree": 3, "max_parent_sets": 100}, "max_indegree=3"),
    ({"n_iter": 0}, "n_iter"),
    ({"burn_in": 500, "n_iter": 500}, "burn_in"),
    ({"thin": 0}, "thin"),
    ({"candidate_parents": [("smoke", "nope")]}, "candidate_parents"),
])
def test_bad_parameters(asia, params, match):
    with pytest.raises(ValueError, match=match):
        OrderMCMCStructure(**params).fit(asia)


def test_refit_resets_everything(asia):
    model = OrderMCMCStructure(n_iter=200, burn_in=50, random_state=0)
    first = model.fit(asia).edge_posterior_.copy()
    second = model.fit(asia.iloc[:, :4]).edge_posterior_
    assert second.shape == (4, 4) and first.shape == (8, 8)
    assert isinstance(second, pd.DataFrame)


def test_bitmask_consistency_beyond_64_variables():
    from skbn.estimators._order_mcmc import _OrderScorer

    rng = np.random.default_rng(0)
    p = 70
    parents = [np.sort(rng.choice([u for u in range(p) if u != v], size=(30, 2)), axis=1) for v in range(p)]
    for rows in parents:
        rows[:5, 1] = -1  # some single-parent sets
    scores = [rng.normal(size=30) for _ in range(p)]
    order = rng.permutation(p)
    scorer = _OrderScorer(parents, scores, order)
    position = np.empty(p + 1, dtype=np.int64)
    position[order], position[p] = np.arange(p), -1
    for v in range(p):
        members = np.where(parents[v] < 0, p, parents[v])
        np.testing.assert_array_equal(scorer.consistent(v), position[members].max(axis=1) < position[v])


def test_ancestor_posterior_counts_directed_paths_in_the_samples(asia):
    from skbn.graph import has_directed_path

    model = OrderMCMCStructure(n_iter=300, burn_in=50, thin=10, random_state=1).fit(asia)
    nodes = list(asia.columns)
    expected = np.zeros((8, 8))
    for dag in model.dag_samples_:
        for i, u in enumerate(nodes):
            for j, v in enumerate(nodes):
                expected[i, j] += i != j and has_directed_path(nodes, dag, u, v)
    np.testing.assert_allclose(model.ancestor_posterior_.to_numpy(), expected / len(model.dag_samples_))
    edge_frequency = np.zeros((8, 8))
    for dag in model.dag_samples_:
        for u, v in dag:
            edge_frequency[nodes.index(u), nodes.index(v)] += 1 / len(model.dag_samples_)
    assert np.all(model.ancestor_posterior_.to_numpy() >= edge_frequency - 1e-12)


def test_integer_sample_weight_equals_repeated_rows(asia):
    X = asia.iloc[:300]
    repeats = np.random.default_rng(0).integers(0, 3, size=300)
    params = dict(max_indegree=2, n_iter=200, burn_in=50, thin=10, random_state=0)
    weighted = OrderMCMCStructure(**params).fit(X, sample_weight=repeats)
    copied = OrderMCMCStructure(**params).fit(X.loc[X.index.repeat(repeats)])
    np.testing.assert_allclose(weighted.edge_posterior_, copied.edge_posterior_, atol=1e-12)
    assert weighted.dag_samples_ == copied.dag_samples_
    np.testing.assert_allclose(weighted.score_samples(X), copied.score_samples(X), rtol=1e-10)


def test_chains_that_disagree_warn_with_a_longer_run_suggested(asia):
    """A too-short run: the chains' edge posteriors differ by more than the threshold, and
    the warning says by how much and which n_iter to try."""
    with pytest.warns(ConvergenceWarning, match=r"2 chains have not converged.*differ by up to "
                                                r"0\.\d+ \(convergence_\).*n_iter=") as record:
        model = OrderMCMCStructure(n_iter=300, burn_in=100, random_state=0).fit(asia)
    chains = model.chain_edge_posteriors_
    assert model.convergence_ == np.abs(chains[0] - chains[1]).max() > CONVERGENCE_THRESHOLD
    message = str(record[0].message)
    assert f"{model.convergence_:.3f}" in message
    suggested = int(re.search(r"n_iter=([0-9_]+)", message).group(1).replace("_", ""))
    assert suggested >= 4 * 300
    # one chain: no between-chain diagnostic (NaN, not 0, which would read as agreement), no
    # ConvergenceWarning, but a warning that convergence was not diagnosed
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        single = OrderMCMCStructure(n_iter=300, burn_in=100, n_chains=1, random_state=0).fit(asia)
    assert np.isnan(single.convergence_)
    assert not [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    told = [w for w in caught if "cannot diagnose convergence" in str(w.message)]
    assert len(told) == 1 and "n_chains=2" in str(told[0].message) and told[0].filename == __file__


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_default_chains_reach_the_documented_accuracy_on_a_held_out_subset(seed):
    """The defaults on 10 random columns of CHILD (a case where the old defaults, 5,000
    iterations, were 0.13 off), chain seeds 0-2: either the chains disagree and ``fit``
    warns, or the estimate is within the warning threshold (0.1) of the exact posterior.
    docs/averaging.md quotes these runs: seed 0 is 0.046 off, seed 1 0.070 off with chains
    0.0997 apart (the one benchmark run more than 0.05 off without a warning), seed 2 warns.
    Agreeing chains do not prove convergence; the documented accuracy is measured, not
    guaranteed, so the test holds the threshold, not 0.05."""
    net = shared_network("child")
    columns = list(np.random.default_rng(1).choice(net.topological_order(), 10, replace=False))
    X = net.sample(5000, random_state=0)[columns]
    exact = edge_posteriors(X, max_indegree=3).to_numpy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model = OrderMCMCStructure(random_state=seed).fit(X)
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    assert warned == (model.convergence_ > CONVERGENCE_THRESHOLD)
    if not warned:
        assert np.abs(model.edge_posterior_.to_numpy() - exact).max() < CONVERGENCE_THRESHOLD


def test_no_dag_with_a_finite_score_is_refused_naming_the_column():
    """Every order scored -inf (a column kept on one row, so every family of it -inf): the
    chains compared NaNs, never moved, and edge_posterior_ held numbers from nothing."""
    X, mask = one_observational_row_data()
    with pytest.raises(ValueError, match=r"column 'a' scores -inf under GaussianBIC"):
        OrderMCMCStructure(scorer="bic-g", n_iter=200, random_state=0, fit_parameters=False).fit(
            X, interventions=mask)


def test_sampled_dags_with_collinear_parents_are_fitted():
    """``a2`` is a copy of ``a``. Under bic-g the family ``a2 | a`` scores -inf, so no
    sampled DAG holds it, but ``d | a, a2`` only pays one more parent's penalty and is
    sampled: the fit of the averaged networks failed after the chain ("Cannot estimate
    the column 'd': its parents are collinear there"). They now follow lm's rule (the
    parent later in name order gets coefficient 0, with a warning) and the model-averaged
    density is finite. With BGe (the default on continuous data) such data are refused
    before the chain (``tests/test_determined_columns.py``)."""
    X = with_duplicated_column()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model = OrderMCMCStructure(scorer="bic-g", n_iter=2000, random_state=0).fit(X)
    aliased = [str(w.message) for w in record if "exactly collinear" in str(w.message)]
    assert aliased and all("leaves 'a2' out, with coefficient 0" in m for m in aliased)
    collinear = [net for net in model.averaged_networks_ if {"a", "a2"} <= set(net.parents["d"])]
    assert collinear  # (the sampled family the fit failed on)
    for net in collinear:
        assert dict(zip(net.parents["d"], net.coefficients["d"]))["a2"] == 0.0
    assert np.isfinite(model.score_samples(X)).all()


def test_model_averaged_class_probabilities_are_at_most_1_for_neg_log_loss():
    """The model average of P(y | x) over the sampled DAGs is a weighted sum of rows that
    sum to 1, which rounds above 1 (1 + 4e-16 on iris): scikit-learn 1.9's log_loss refuses
    such a value, so cross_val_score(scoring="neg_log_loss") gave NaN folds. Each row is
    now divided by its sum."""
    from sklearn.datasets import load_iris
    from sklearn.metrics import log_loss
    from sklearn.model_selection import KFold, cross_val_score

    X, y = load_iris(return_X_y=True, as_frame=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # (short chains)
        model = OrderMCMCStructure(n_iter=100, burn_in=20, random_state=0).fit(X, y)
        proba = model.predict_proba(X)
        assert proba.max() <= 1.0 and proba.min() >= 0.0
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-15)
        # -log P(y | x) = log p(x) - log p(x, y) of the averaged density, row by row
        assert log_loss(y, proba, labels=model.classes_) == pytest.approx(
            model.score(X) - model.score(X, y), rel=1e-9)
        scores = cross_val_score(OrderMCMCStructure(n_iter=100, burn_in=20, random_state=0), X, y,
                                 cv=KFold(3, shuffle=True, random_state=0), scoring="neg_log_loss",
                                 error_score="raise")  # (a failed scoring raises)
    assert np.isfinite(scores).all()


def test_two_variables_give_each_chain_both_directions():
    # On two nodes every proposal is the one transposition; under a score-equivalent score
    # both orders score the same, so a chain that always moves alternates, and with an
    # even thin it kept one order only: its edge posterior was P(a -> b | a before b)
    # one way and 0 the other, and two chains that started alike agreed on it (no warning).
    # The exact posterior gives each direction half of P(adjacent).
    rng = np.random.default_rng(0)
    a = rng.normal(size=60)
    X = pd.DataFrame({"a": a, "b": a + rng.normal(size=60)})
    exact = edge_posteriors(X, scorer="bge").to_numpy()
    assert exact[0, 1] == pytest.approx(exact[1, 0]) and exact[0, 1] > 0.45
    for seed in range(4):
        model = OrderMCMCStructure(scorer="bge", n_iter=4000, burn_in=1000, thin=10,
                                   random_state=seed).fit(X)
        for chain in model.chain_edge_posteriors_:
            assert np.abs(chain - exact).max() < 0.1
