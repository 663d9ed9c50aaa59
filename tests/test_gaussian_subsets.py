"""Exact search, exact edge posteriors, order MCMC and bootstrap on continuous and mixed
data: the subset scorer's moments path against brute force over every DAG, with local
scores computed here from their definitions (least squares on the rows, the BGe formula),
and ExactStructure's score against R bnlearn."""

import itertools
import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import all_dags
from scipy.special import multigammaln

from skbn import BootstrapStructure, ExactStructure, OrderMCMCStructure
from skbn._data import encode_fit
from skbn._engines._subsets import (
    ScoringData,
    dense_local_scores,
    drop_bit,
    local_score_table,
    parent_set_scores,
)
from skbn.estimators._bootstrap import resample
from skbn.graph import dag_to_cpdag
from skbn.posterior import edge_posteriors
from skbn.scores import BGe, GaussianBIC, _moment_family_score, resolve_scorer

# -- data -------------------------------------------------------------------------------


def gaussian_data(n, seed, names=("a.1", "b 2", "c", "d", "e")):
    """A linear Gaussian DAG a -> b -> c <- d, a -> e (rows from numpy, seeded)."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = 0.6 * a + rng.normal(size=n)
    d = rng.normal(size=n)
    c = 0.5 * b - 0.4 * d + rng.normal(size=n)
    e = 0.3 * a + rng.normal(size=n)
    return pd.DataFrame(np.column_stack([a, b, c, d, e]), columns=list(names))


def mixed_data(n, seed):
    """z (3 states) -> a -> b <- w (2 states), z -> w; a, b continuous."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    w = (rng.random(n) < np.where(z == 1, 0.7, 0.3)).astype(int)
    a = rng.normal(size=n) + 0.5 * z
    b = 0.7 * a - 0.8 * w + rng.normal(size=n)
    return pd.DataFrame({"z": pd.Categorical(np.array(["x", "y", "NA"])[z]), "a": a,
                         "w": pd.Categorical(np.array(["None", "yes"])[w]), "b": b})


# -- local scores from their definitions --------------------------------------------------


def _gaussian_family_bic(X, child, parents, groups=None, n_groups=1):
    """bnlearn's bic-g / bic-cg of a continuous child, from least squares on the rows:
    per observed configuration g of the discrete parents, sigma_g^2 = RSS_g / (N_g - p - 1),
    loglik_g = -N_g/2 log(2 pi sigma_g^2) - (N_g - p - 1)/2; penalty log(N)/2 q (p + 2) with
    q the declared configurations."""
    n = len(X)
    y = X[:, child]
    design = np.column_stack([np.ones(n)] + [X[:, u] for u in parents])
    groups = np.zeros(n, dtype=int) if groups is None else groups
    loglik = 0.0
    for g in np.unique(groups):
        rows = groups == g
        coef = np.linalg.lstsq(design[rows], y[rows], rcond=None)[0]
        rss = float(np.sum((y[rows] - design[rows] @ coef) ** 2))
        dof = rows.sum() - len(parents) - 1
        loglik += -0.5 * rows.sum() * math.log(2 * math.pi * rss / dof) - 0.5 * dof
    return loglik - 0.5 * math.log(n) * n_groups * (len(parents) + 2)


def _discrete_family_bic(codes, cards, child, parents):
    """Multinomial BIC: sum N_jk log(N_jk / N_j) - log(N)/2 q (r - 1)."""
    n = len(codes)
    q = int(np.prod([cards[u] for u in parents]))
    config = np.zeros(n, dtype=int)
    for u in parents:
        config = config * cards[u] + codes[:, u]
    table = np.zeros((q, cards[child]))
    np.add.at(table, (config, codes[:, child]), 1.0)
    rows = table.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        loglik = np.nansum(table * np.log(table / rows))
    return loglik - 0.5 * math.log(n) * q * (cards[child] - 1)


def _bge_family(X, child, parents, iss_mu=1.0):
    """BGe from Kuipers, Moffa & Heckerman (2014), T = t I, R = T + S_N, iss_w = n + 2."""
    n, p = X.shape
    iss_w = p + 2.0
    t = iss_mu * (iss_w - p - 1) / (iss_mu + 1)
    centred = X - X.mean(axis=0)
    r = t * np.eye(p) + centred.T @ centred

    def log_p(columns):
        size = len(columns)
        if not size:
            return 0.0
        a = iss_w - p + size
        log_det = np.linalg.slogdet(r[np.ix_(columns, columns)])[1]
        return (0.5 * size * math.log(iss_mu / (n + iss_mu)) + multigammaln(0.5 * (n + a), size)
                - multigammaln(0.5 * a, size) - 0.5 * size * n * math.log(math.pi)
                + 0.5 * a * size * math.log(t) - 0.5 * (n + a) * log_det)

    return log_p(list(parents) + [child]) - log_p(list(parents))


# -- brute force over every DAG -----------------------------------------------------------


def _brute_force_posterior(p, family_score):
    """P(u -> v) under the order-modular prior: every DAG weighted by its number of linear
    extensions times exp(sum of local scores) (-inf: no weight)."""
    parents, extensions = all_dags(p)
    local = np.array([[family_score(v, [u for u in range(p) if (m >> u) & 1]) if not (m >> v) & 1
                       else -np.inf for m in range(1 << p)] for v in range(p)])
    log_weight = np.log(extensions.astype(float)) + sum(local[v][parents[:, v]] for v in range(p))
    weight = np.exp(log_weight - log_weight.max())
    weight /= weight.sum()
    return np.array([[weight[(parents[:, v] >> u) & 1 == 1].sum() if u != v else 0.0
                      for v in range(p)] for u in range(p)])


def _brute_force_best(p, family_score):
    """Every DAG's total score; returns (scores, parent bitmasks)."""
    parents, _ = all_dags(p)
    local = np.array([[family_score(v, [u for u in range(p) if (m >> u) & 1]) if not (m >> v) & 1
                       else -np.inf for m in range(1 << p)] for v in range(p)])
    return sum(local[v][parents[:, v]] for v in range(p)), parents


@pytest.fixture(scope="module")
def dags5():
    return all_dags(5)


# -- the scorer itself --------------------------------------------------------------------


@pytest.mark.parametrize("scorer", ["bic-g", "aic-g", "loglik-g", "bge", BGe(iss_mu=3.0, iss_w=12.0),
                                    GaussianBIC(variance="mle", edge_penalty=0.5)])
def test_batched_scores_equal_each_family_scored_alone(scorer):
    """The batched kernel (one Cholesky per parent set) equals the per-family kernel, with
    a near-collinear column (the fallback rule) among them."""
    X = gaussian_data(80, seed=3)
    X["f"] = X["a.1"] - X["b 2"] + 1e-9 * np.random.default_rng(0).normal(size=80)  # collinear
    data, _ = encode_fit(X, allow_continuous=True)
    scorer = resolve_scorer(scorer)
    source = ScoringData(data)
    p = data.n_variables
    tables = np.full((p, 1 << (p - 1)), -np.inf)
    n = dense_local_scores(source, scorer, p - 1, tables)
    assert n == p * (1 << (p - 1))
    for v in range(p):
        others = [u for u in range(p) if u != v]
        for k in range(p):
            for parents in itertools.combinations(others, k):
                expected = _moment_family_score(source.moments, scorer, v, list(parents), p)
                got = tables[v, drop_bit(sum(1 << u for u in parents), v)]
                if np.isinf(expected):
                    assert got == expected
                else:
                    assert got == pytest.approx(expected, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("scorer", ["bic-cg", "aic-cg", "loglik-cg"])
def test_clg_batched_scores_equal_each_family_scored_alone(scorer):
    """Per configuration of the discrete parents, with a declared but unobserved state
    (weight 0: adds 0, counts in the penalty) and a state seen in 2 rows (no residual
    variance: -inf, through the one-family fallback)."""
    X = mixed_data(120, seed=6)
    z = X["z"].astype(str).to_numpy()
    z[:2] = "rare"
    X["z"] = pd.Categorical(z, categories=["x", "y", "NA", "rare", "never"])
    X["c"] = X["a"] * 1e12 + np.random.default_rng(1).normal(size=120) * 1e12
    data, _ = encode_fit(X, allow_continuous=True)
    scorer = resolve_scorer(scorer)
    source = ScoringData(data)
    p = data.n_variables
    tables = np.full((p, 1 << (p - 1)), -np.inf)
    dense_local_scores(source, scorer, p - 1, tables, prune=False)
    n_finite = n_infinite = 0
    for v in np.flatnonzero(data.continuous):
        others = [u for u in range(p) if u != v]
        for k in range(p):
            for parents in itertools.combinations(others, k):
                expected = _moment_family_score(source.moments, scorer, v, list(parents), p)
                got = tables[v, drop_bit(sum(1 << u for u in parents), v)]
                if np.isinf(expected):
                    n_infinite += 1
                    assert got == expected
                else:
                    n_finite += 1
                    assert got == pytest.approx(expected, rel=1e-9)
    assert n_finite >= 3 * 8 and n_infinite > 0  # every family without z is finite


def test_a_subclass_with_its_own_formula_is_scored_by_it():
    class Halved(GaussianBIC):
        def local_score_moments(self, stats, child, parents, n_discrete_parents=0):
            return 0.5 * super().local_score_moments(stats, child, parents, n_discrete_parents)

    data, _ = encode_fit(gaussian_data(60, seed=1), allow_continuous=True)
    plain, halved = np.full((5, 16), -np.inf), np.full((5, 16), -np.inf)
    dense_local_scores(ScoringData(data), GaussianBIC(), 4, plain)
    dense_local_scores(ScoringData(data), Halved(), 4, halved)
    np.testing.assert_allclose(halved, 0.5 * plain, rtol=1e-12)


def test_mixed_discrete_children_never_take_continuous_parents():
    X = mixed_data(300, seed=0)
    data, _ = encode_fit(X, allow_continuous=True)
    families = parent_set_scores(data, resolve_scorer("bic-cg"), None)
    continuous = data.continuous
    for v in range(4):
        rows = families.parents[v]
        members = rows[rows >= 0]
        if not continuous[v]:
            assert not continuous[members].any()
        assert len(rows) == (2 if not continuous[v] else 8)  # discrete: {}, {other}; continuous: 2^3
    # the dense layout is the sparse one, and n_jobs changes nothing
    tables = np.full((4, 8), -np.inf)
    dense_local_scores(ScoringData(data), resolve_scorer("bic-cg"), 3, tables, prune=False)
    np.testing.assert_array_equal(tables, local_score_table(families))
    again = parent_set_scores(data, resolve_scorer("bic-cg"), None, n_jobs=2)
    for v in range(4):
        np.testing.assert_array_equal(again.parents[v], families.parents[v])
        np.testing.assert_array_equal(again.scores[v], families.scores[v])


# -- exact edge posteriors -----------------------------------------------------------------


@pytest.mark.parametrize("n, seed", [(40, 0), (200, 5)])
def test_bge_edge_posteriors_equal_brute_force_over_all_29281_dags(n, seed, dags5):
    X = gaussian_data(n, seed=seed)
    values = X.to_numpy()
    expected = _brute_force_posterior(5, lambda v, pa: _bge_family(values, v, pa))
    got = edge_posteriors(X, scorer="bge")
    assert got.index.tolist() == list(X.columns)
    np.testing.assert_allclose(got.to_numpy(), expected, rtol=0, atol=1e-9)
    assert 0.02 < expected.max(initial=0, where=expected < 0.98) < 0.98  # not all 0 or 1
    # "auto" is BGe on continuous data
    np.testing.assert_array_equal(edge_posteriors(X).to_numpy(), got.to_numpy())


def test_bge_posteriors_with_max_indegree_and_iss():
    X = gaussian_data(60, seed=2).iloc[:, :4]
    values = X.to_numpy()
    expected = _brute_force_posterior(
        4, lambda v, pa: _bge_family(values, v, pa, iss_mu=4.0) if len(pa) <= 1 else -np.inf)
    got = edge_posteriors(X, scorer=BGe(iss_mu=4.0), max_indegree=1)
    np.testing.assert_allclose(got.to_numpy(), expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize("columns", [["z", "a", "b"], ["z", "a", "w", "b"]])
def test_clg_edge_posteriors_equal_brute_force(columns):
    """bic-cg on 3-4 mixed variables: DAGs with an edge continuous -> discrete get no weight."""
    X = mixed_data(150, seed=4)[columns]
    data, _ = encode_fit(X, allow_continuous=True)
    codes, cards, values = data.codes, data.cardinalities, data.values
    p = len(columns)

    def family(v, parents):
        if cards[v] > 0:  # the conditional-Gaussian rule: no continuous parent
            if any(cards[u] == 0 for u in parents):
                return -np.inf
            return _discrete_family_bic(codes, cards, v, parents)
        discrete = [u for u in parents if cards[u] > 0]
        groups = np.zeros(len(X), dtype=int)
        n_groups = 1
        for u in discrete:
            groups = groups * cards[u] + codes[:, u]
            n_groups *= cards[u]
        return _gaussian_family_bic(values, v, [u for u in parents if cards[u] == 0], groups, n_groups)

    expected = _brute_force_posterior(p, family)
    got = edge_posteriors(X, scorer="bic-cg")
    np.testing.assert_allclose(got.to_numpy(), expected, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(edge_posteriors(X).to_numpy(), got.to_numpy())  # auto: bic-cg


# -- exact search --------------------------------------------------------------------------

# R bnlearn 4.9 on the same rows (gaussian_data(200, seed=7).to_csv("g.csv", index=False,
# float_format="%.17g")), the DAG ExactStructure(scorer="bic-g") finds:
#   d <- read.csv("g.csv", check.names = FALSE); g <- empty.graph(names(d))
#   arcs(g) <- matrix(c("a.1", "b 2", "b 2", "c", "c", "d", "e", "a.1"), ncol = 2, byrow = TRUE,
#                     dimnames = list(NULL, c("from", "to")))
#   sprintf("%.17g", score(g, d, type = "bic-g"))      # -1384.0713216801503
# (hc(d, score = "bic-g") finds an equivalent DAG of the same score.)
_R_BIC_G_SEED7 = -1384.0713216801503
_R_EDGES_SEED7 = [("a.1", "b 2"), ("b 2", "c"), ("c", "d"), ("e", "a.1")]


def test_exact_bic_g_finds_the_best_dag_of_29281(dags5):
    X = gaussian_data(200, seed=7)
    values = X.to_numpy()
    scores, parents = _brute_force_best(5, lambda v, pa: _gaussian_family_bic(values, v, pa))
    model = ExactStructure(scorer="bic-g", fit_parameters=False).fit(X)
    best = scores.max()
    assert model.score_ == pytest.approx(best, rel=1e-12)
    assert sorted(model.edges_) == _R_EDGES_SEED7
    assert model.score_ == pytest.approx(_R_BIC_G_SEED7, rel=1e-12)
    # the DAG found is a maximiser (ties: its Markov equivalents), and the only class of them
    names = list(X.columns)
    found = np.zeros(5, dtype=np.int64)
    for u, v in model.edges_:
        found[names.index(v)] |= 1 << names.index(u)
    winners = np.flatnonzero(scores >= best - 1e-9 * abs(best))
    assert any((parents[i] == found).all() for i in winners)

    def cpdag(row):
        edges = [(names[u], names[v]) for v in range(5) for u in range(5) if (row[v] >> u) & 1]
        pdag = dag_to_cpdag(names, edges)
        return sorted(pdag.directed), sorted(map(sorted, pdag.undirected))

    assert len({str(cpdag(parents[i])) for i in winners}) == 1
    assert str(cpdag(found)) == str(cpdag(parents[winners[0]]))


def test_exact_auto_is_bic_g_and_four_columns_brute_force():
    X = gaussian_data(120, seed=11).iloc[:, [0, 1, 2, 3]]
    values = X.to_numpy()
    scores, _ = _brute_force_best(4, lambda v, pa: _gaussian_family_bic(values, v, pa))
    model = ExactStructure(fit_parameters=False).fit(X)
    assert type(model.scorer_).__name__ == "GaussianBIC"
    assert model.score_ == pytest.approx(scores.max(), rel=1e-12)


def test_exact_mixed_clg_respects_the_conditional_gaussian_rule():
    X = mixed_data(400, seed=1)
    model = ExactStructure(fit_parameters=False).fit(X)
    assert type(model.scorer_).__name__ == "CLGBIC"
    kinds = model.column_types_
    assert all(not (kinds[u] == "continuous" and kinds[v] == "discrete") for u, v in model.edges_)
    assert {frozenset(e) for e in model.edges_} >= {frozenset(("a", "b"))}


def test_exact_invariances():
    """Column order, integer weights = replicated rows, a column times 1e12."""
    X = gaussian_data(150, seed=9)
    base = ExactStructure(scorer="bic-g", fit_parameters=False).fit(X)
    reordered = ExactStructure(scorer="bic-g", fit_parameters=False).fit(X[list(X.columns[::-1])])
    # ties between Markov-equivalent DAGs go to the lowest column index: the same class
    names = list(X.columns)
    classes = [dag_to_cpdag(names, model.edges_) for model in (base, reordered)]
    assert [(sorted(c.directed), sorted(map(sorted, c.undirected))) for c in classes].count(
        (sorted(classes[0].directed), sorted(map(sorted, classes[0].undirected)))) == 2
    assert reordered.score_ == pytest.approx(base.score_, rel=1e-12)

    weights = np.random.default_rng(0).integers(0, 4, len(X))
    weighted = ExactStructure(scorer="bic-g", fit_parameters=False).fit(X, sample_weight=weights)
    replicated = ExactStructure(scorer="bic-g", fit_parameters=False).fit(X.loc[X.index.repeat(weights)])
    assert weighted.edges_ == replicated.edges_
    assert weighted.score_ == pytest.approx(replicated.score_, rel=1e-12)

    scaled = X.copy()
    scaled["c"] *= 1e12
    big = ExactStructure(scorer="bic-g", fit_parameters=False).fit(scaled)
    assert big.edges_ == base.edges_
    # the density of c is rescaled: its family's log-likelihood drops by N log(1e12)
    assert big.score_ == pytest.approx(base.score_ - len(X) * math.log(1e12), rel=1e-12)
    scaled["c"] *= 1e-24
    assert ExactStructure(scorer="bic-g", fit_parameters=False).fit(scaled).edges_ == base.edges_


def test_exact_honours_knowledge_on_continuous_data():
    X = gaussian_data(200, seed=7)
    model = ExactStructure(scorer="bic-g", black_list=[("a.1", "b 2"), ("b 2", "a.1")],
                           white_list=[("e", "d")], fit_parameters=False).fit(X)
    assert ("e", "d") in model.edges_
    assert not {("a.1", "b 2"), ("b 2", "a.1")} & set(model.edges_)


def test_posterior_invariances():
    X = gaussian_data(80, seed=3)
    base = edge_posteriors(X, scorer="bge")
    order = list(X.columns[[2, 0, 4, 1, 3]])
    reordered = edge_posteriors(X[order], scorer="bge")
    np.testing.assert_allclose(reordered.loc[order, order].to_numpy(), base.loc[order, order].to_numpy(),
                               atol=1e-12)
    # bic-g posteriors do not see a column's scale (BGe's prior T = t I does, as in bnlearn)
    scaled = X.copy()
    scaled["d"] *= 1e12
    np.testing.assert_allclose(edge_posteriors(scaled, scorer="bic-g").to_numpy(),
                               edge_posteriors(X, scorer="bic-g").to_numpy(), atol=1e-9)


# -- order MCMC ----------------------------------------------------------------------------


def test_order_mcmc_bge_close_to_exact_posteriors():
    """Two chains of 20,000 iterations, 1,000 kept orders each, Rao-Blackwellised: on 5
    variables (120 orders, acceptance well above 10%) the Monte Carlo error of an edge
    probability is a few 0.01 at most; 0.05 is the docs' tolerance for the defaults."""
    X = gaussian_data(60, seed=0)
    exact = edge_posteriors(X, scorer="bge", max_indegree=3)
    model = OrderMCMCStructure(n_iter=20_000, random_state=0, fit_parameters=False).fit(X)
    assert type(model.scorer_).__name__ == "BGe"
    np.testing.assert_allclose(model.edge_posterior_.to_numpy(), exact.to_numpy(), atol=0.05)
    assert model.acceptance_rate_.min() > 0.1
    parallel = OrderMCMCStructure(n_iter=20_000, random_state=0, n_jobs=2, fit_parameters=False).fit(X)
    np.testing.assert_array_equal(parallel.edge_posterior_.to_numpy(), model.edge_posterior_.to_numpy())
    assert parallel.edges_ == model.edges_


def test_order_mcmc_same_result_for_any_hash_seed():
    code = ("import sys; sys.path[:0] = [{root!r}, {root!r} + '/tests']; import numpy as np;"
            "from tests.test_gaussian_subsets import gaussian_data;"
            "from skbn import OrderMCMCStructure;"
            "m = OrderMCMCStructure(n_iter=2000, random_state=3, fit_parameters=False);"
            "m.fit(gaussian_data(60, 0));"
            "print(m.edges_, np.round(m.edge_posterior_.to_numpy(), 15).tolist())")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    outputs = []
    for seed in ("0", "123"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": root}
        result = subprocess.run([sys.executable, "-c", code.format(root=root)], env=env, cwd=root,
                                capture_output=True, text=True, check=True)
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]


def test_order_mcmc_mixed_data_respects_the_rule():
    X = mixed_data(300, seed=2)
    model = OrderMCMCStructure(n_iter=3000, random_state=0, fit_parameters=False).fit(X)
    post = model.edge_posterior_
    for u in ("a", "b"):
        for v in ("z", "w"):
            assert post.loc[u, v] == 0.0


# -- bootstrap ------------------------------------------------------------------------------


def test_resample_keeps_values_with_their_rows():
    codes = np.asfortranarray(np.zeros((6, 2), dtype=np.int64))
    codes[:, 0] = np.arange(6) % 2
    values = np.asfortranarray(np.column_stack([np.zeros(6), np.arange(6) * 1.5]))
    for weights in (None, np.array([1.0, 2, 0, 1, 3, 1]), np.array([0.5, 1, 2, 1, 1, 0.1])):
        for kind in ("nonparametric", "bayesian"):
            drawn = resample(codes, np.array([2, 0]), ("k", "x"), weights, kind, np.random.RandomState(0),
                             values=values)
            np.testing.assert_array_equal(drawn.codes[:, 0], (drawn.values[:, 1] / 1.5).astype(int) % 2)


def test_bootstrap_with_exact_on_continuous_data():
    X = gaussian_data(300, seed=7)
    boot = BootstrapStructure(ExactStructure(scorer="bic-g"), n_resamples=20, random_state=0,
                              keep_graphs=True, fit_parameters=False).fit(X)
    strength = boot.strength_matrix_ + boot.strength_matrix_.T
    for u, v in [("a.1", "b 2"), ("b 2", "c"), ("c", "d")]:
        assert strength.loc[u, v] > 0.9
    assert strength.loc["b 2", "d"] < 0.5
    # every resample's graph is ExactStructure's on that resample (same seeds, refit here)
    seeds = np.random.RandomState(0).randint(np.iinfo(np.int32).max, size=20)
    data, _ = encode_fit(X, allow_continuous=True)
    for seed, graph in list(zip(seeds, boot.graphs_))[:3]:
        drawn = resample(data.codes, data.cardinalities, data.names, None, "nonparametric",
                         np.random.RandomState(seed), values=data.values)
        rows = pd.DataFrame(drawn.values, columns=X.columns)
        assert sorted(ExactStructure(scorer="bic-g", fit_parameters=False).fit(rows).edges_) == sorted(graph)
    again = BootstrapStructure(ExactStructure(scorer="bic-g"), n_resamples=20, random_state=0, n_jobs=2,
                               fit_parameters=False).fit(X)
    np.testing.assert_array_equal(again.strength_matrix_.to_numpy(), boot.strength_matrix_.to_numpy())


def test_bootstrap_refuses_an_estimator_without_continuous_support():
    class DiscreteOnly(ExactStructure):
        _continuous = False

    with pytest.raises(ValueError, match="DiscreteOnly does not take continuous columns.*'a.1'"):
        BootstrapStructure(DiscreteOnly(), n_resamples=2, fit_parameters=False).fit(gaussian_data(50, 0))


def test_integer_looking_continuous_column_and_complete_cases():
    """A continuous column of whole numbers (declared), and missing='complete_case' drops
    the incomplete rows' values with their codes."""
    X = gaussian_data(200, seed=7)
    X["c"] = np.round(X["c"] * 3)
    incomplete = X.copy()
    incomplete.iloc[3, 1] = np.nan
    kinds = {"c": "continuous"}
    with pytest.warns(UserWarning, match="dropped 1 of 200 rows"):
        dropped = ExactStructure(scorer="bic-g", column_types=kinds, missing="complete_case",
                                 fit_parameters=False).fit(incomplete)
    complete = ExactStructure(scorer="bic-g", column_types=kinds, fit_parameters=False).fit(X.drop(index=3))
    assert dropped.column_types_["c"] == "continuous"
    assert dropped.edges_ == complete.edges_
    assert dropped.score_ == complete.score_
    values = X.drop(index=3).to_numpy()
    assert complete.score_ == pytest.approx(
        sum(_gaussian_family_bic(values, v, [u for u, w in _positions(complete.edges_, X.columns) if w == v])
            for v in range(5)), rel=1e-12)


def _positions(edges, names):
    names = list(names)
    return [(names.index(u), names.index(v)) for u, v in edges]
