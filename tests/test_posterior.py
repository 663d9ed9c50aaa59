"""Exact edge posteriors against brute force over every DAG, each weighted by its number of
linear extensions (the order-modular prior)."""

import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from conftest import all_dags, one_observational_row_data

from skbn._data import encode_fit
from skbn._engines._local_scores import FamilyScoreCache
from skbn.datasets import sample_asia
from skbn.exceptions import DeterminedColumnsWarning
from skbn.posterior import count_parent_sets, edge_posteriors, parent_set_scores
from skbn.scores import BDeu, K2Score


def _brute_force(X, scorer, max_indegree=None, intervened=None):
    """P(u -> v) by enumerating every edge set on p nodes, keeping the DAGs, counting their
    linear extensions over all p! orders and scoring each family from scratch (with
    ``intervened``, by the family cache without each child's intervened rows)."""
    data, _ = encode_fit(X)
    data = replace(data, intervened=intervened)
    p = data.n_variables
    cache = FamilyScoreCache(data, scorer)
    dags, extensions = all_dags(p)  # (parent bitmasks of every child)
    log_weight = np.log(extensions.astype(float))
    keep = np.ones(len(dags), dtype=bool)
    for v in range(p):
        parent_bits = dags[:, v]
        table = {}
        for bits in np.unique(parent_bits):
            parents = [u for u in range(p) if (bits >> u) & 1]
            table[bits] = cache.local_score(v, parents)
            if max_indegree is not None and len(parents) > max_indegree:
                keep &= parent_bits != bits
        log_weight += np.array([table[b] for b in parent_bits])
    dags, log_weight = dags[keep], log_weight[keep]
    weight = np.exp(log_weight - log_weight.max())
    weight /= weight.sum()
    posterior = np.zeros((p, p))
    for u in range(p):
        for v in range(p):
            if u != v:
                posterior[u, v] = weight[((dags[:, v] >> u) & 1) == 1].sum()
    return posterior


@pytest.fixture(scope="module")
def asia():
    return sample_asia(300, random_state=1)


@pytest.mark.parametrize("columns, scorer, max_indegree", [
    (["smoke", "lung", "bronc", "dysp"], BDeu(ess=1.0), None),
    (["smoke", "lung", "bronc", "dysp"], K2Score(), 1),
    (["smoke", "lung", "either", "xray", "tub"], BDeu(ess=5.0), None),
    (["smoke", "lung", "bronc", "dysp", "either"], BDeu(ess=1.0, edge_penalty=0.5), 2),
])
def test_exact_posteriors_equal_brute_force(asia, columns, scorer, max_indegree):
    X = asia[columns]
    expected = _brute_force(X, scorer, max_indegree)
    result = edge_posteriors(X, scorer=scorer, max_indegree=max_indegree)
    assert list(result.index) == list(result.columns) == columns
    np.testing.assert_allclose(result.to_numpy(), expected, atol=1e-10)


def test_forward_and_backward_sums_agree(asia):
    from skbn.estimators._exact import _drop_bit
    from skbn.posterior import _edge_posterior_matrix

    data, _ = encode_fit(asia)
    p = data.n_variables
    families = parent_set_scores(data, BDeu(), 2)
    local = np.full((p, 1 << (p - 1)), -np.inf)
    for v in range(p):
        local[v, _drop_bit(np.asarray(families.masks(v)), v)] = families.scores[v]
    posterior, log_z = _edge_posterior_matrix(local, p)
    assert np.isfinite(log_z)
    assert np.all(posterior + posterior.T <= 1 + 1e-9)  # u -> v and v -> u exclude each other
    assert np.all(np.diag(posterior) == 0)


def test_parent_set_scores_match_the_family_cache(asia):
    data, _ = encode_fit(asia)
    scorer = BDeu(ess=2.0)
    cache = FamilyScoreCache(data, scorer)
    candidates = [[u for u in range(8) if u != v and (u + v) % 3] for v in range(8)]
    families = parent_set_scores(data, scorer, max_indegree=2, candidate_parents=candidates)
    assert families.n_families == count_parent_sets(8, 2, candidates)
    for v in range(8):
        for row, value in zip(families.parents[v], families.scores[v]):
            parents = [int(u) for u in row if u >= 0]
            assert set(parents) <= set(candidates[v])
            assert value == pytest.approx(cache.local_score(v, parents), abs=1e-9)


def test_strong_dependence_gets_posterior_near_one():
    X = sample_asia(3000, random_state=0)[["smoke", "lung", "bronc", "dysp"]]
    post = edge_posteriors(X)
    assert post.loc["smoke", "lung"] + post.loc["lung", "smoke"] > 0.99
    assert post.loc["smoke", "dysp"] + post.loc["dysp", "smoke"] < 0.1


def test_bad_inputs():
    X = pd.DataFrame({"a": [0, 1] * 5, "b": [1, 0] * 5})
    with pytest.raises(ValueError, match="max_indegree"):
        edge_posteriors(X, max_indegree=-1)
    with pytest.raises(ValueError, match="max_memory=10"):  # as ExactStructure: parameter-driven refusal
        edge_posteriors(X, max_memory=10)
    with pytest.raises(ValueError, match="max_memory must be a positive"):
        edge_posteriors(X, max_memory="lots")
    with pytest.raises(ValueError, match="scorer"):
        edge_posteriors(X, scorer="nope")


def test_parent_set_scores_identical_for_any_n_jobs(asia):
    data, _ = encode_fit(asia)
    one = parent_set_scores(data, BDeu(), 3, n_jobs=1)
    two = parent_set_scores(data, BDeu(), 3, n_jobs=2)
    for v in range(8):
        np.testing.assert_array_equal(one.parents[v], two.parents[v])
        np.testing.assert_array_equal(one.scores[v], two.scores[v])


def test_integer_row_weights_equal_repeated_rows(asia):
    from skbn._data import EncodedData

    data, _ = encode_fit(asia.iloc[:200])
    repeats = np.random.default_rng(0).integers(0, 3, size=200)
    weighted = EncodedData(data.codes, data.cardinalities, data.names, weights=repeats.astype(float))
    copied = EncodedData(np.asfortranarray(np.repeat(data.codes, repeats, axis=0)), data.cardinalities,
                         data.names)
    for scorer in (BDeu(), K2Score()):
        a = parent_set_scores(weighted, scorer, 2)
        b = parent_set_scores(copied, scorer, 2)
        for v in range(8):
            np.testing.assert_allclose(a.scores[v], b.scores[v], rtol=1e-12)
    halves = EncodedData(data.codes, data.cardinalities, data.names, weights=np.full(200, 0.5))
    cache = FamilyScoreCache(data, BDeu())  # reference: the scorer on halved count tables
    scores = parent_set_scores(halves, BDeu(), 1)
    for row, value in zip(scores.parents[0], scores.scores[0]):
        parents = [int(u) for u in row if u >= 0]
        from skbn._counting import family_table
        table = family_table(data.codes, data.cardinalities, 0, parents) * 0.5
        assert value == pytest.approx(cache.score_table(table, 0, parents), rel=1e-10)


def test_exact_posteriors_with_interventions_equal_brute_force(asia):
    X = asia[["smoke", "lung", "bronc", "dysp"]].reset_index(drop=True)
    rng = np.random.default_rng(4)
    mask = np.zeros(X.shape, dtype=bool)
    mask[:80, 0] = True  # smoke set in the first rows, lung in others
    mask[150:200, 1] = True
    X.loc[:79, "smoke"] = rng.choice(["yes", "no"], 80)
    expected = _brute_force(X, BDeu(), intervened=mask)
    got = edge_posteriors(X, scorer=BDeu(), interventions=mask)
    np.testing.assert_allclose(got.to_numpy(), expected, atol=1e-9)
    assert not np.allclose(got.to_numpy(), edge_posteriors(X, scorer=BDeu()).to_numpy(), atol=1e-3)
    with pytest.raises(ValueError, match="must have shape"):
        edge_posteriors(X, interventions=mask[:10])


def test_no_dag_with_a_finite_score_is_refused_naming_the_column():
    """A continuous column kept on one row only (set by intervention everywhere else) has
    every family -inf under the unbiased Gaussian BIC: the posterior was NaN everywhere."""
    X, mask = one_observational_row_data()
    with pytest.raises(ValueError, match=r"column 'a' scores -inf under GaussianBIC"):
        edge_posteriors(X, scorer="bic-g", interventions=mask)
    mask[2:, 0] = True
    mask[1, 0] = False  # two kept rows: the empty family is finite again
    assert np.isfinite(edge_posteriors(X, scorer="bic-g", interventions=mask).to_numpy()).all()


# -- sample_weight and the determined-columns warning, as the estimators' fit ---------------
def _continuous_rows(n=60, seed=1):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = 0.8 * a + rng.normal(size=n)
    c = rng.normal(size=n)
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": b - 0.5 * c + rng.normal(size=n)})


def _mixed_rows(n=80, seed=2):
    rng = np.random.default_rng(seed)
    g = rng.choice(["u", "v"], n)
    x = rng.normal(size=n)
    return pd.DataFrame({"g": g, "x": x, "y": x + 2.0 * (g == "v") + rng.normal(size=n)})


WEIGHTED_CASES = [("discrete", "bdeu"), ("discrete", "k2"), ("continuous", "bge"),
                  ("continuous", "bic-g"), ("mixed", "bic-cg")]


def _rows_of(kind, asia):
    if kind == "discrete":
        return asia[["smoke", "lung", "bronc", "dysp"]].iloc[:150].reset_index(drop=True)
    return _continuous_rows() if kind == "continuous" else _mixed_rows()


@pytest.mark.parametrize("kind, scorer", WEIGHTED_CASES)
def test_integer_sample_weight_equals_replicated_rows(asia, kind, scorer):
    # sample_weight as in the estimators' fit: an integer weight w is w copies of the row
    # (edge_posteriors had no sample_weight)
    X = _rows_of(kind, asia)
    weights = np.random.default_rng(3).integers(0, 4, size=len(X))
    weighted = edge_posteriors(X, scorer=scorer, sample_weight=weights)
    copied = edge_posteriors(X.loc[np.repeat(X.index, weights)].reset_index(drop=True), scorer=scorer)
    np.testing.assert_allclose(weighted.to_numpy(), copied.to_numpy(), rtol=0, atol=1e-12)
    # (the weights matter: the unweighted posterior is another)
    assert np.abs(weighted.to_numpy() - edge_posteriors(X, scorer=scorer).to_numpy()).max() > 1e-3
    # weight 1 everywhere is no weight
    np.testing.assert_array_equal(edge_posteriors(X, scorer=scorer, sample_weight=np.ones(len(X))).to_numpy(),
                                  edge_posteriors(X, scorer=scorer).to_numpy())


@pytest.mark.parametrize("kind, scorer", WEIGHTED_CASES)
def test_rows_of_weight_0_are_dropped_before_anything_reads_them(asia, kind, scorer):
    # their values add no state, decide no column type and may be missing, as in fit
    X = _rows_of(kind, asia)
    extra = X.iloc[:3].copy().astype(object)
    column = X.columns[0]
    extra[column] = ["a state never seen", np.nan, 0.5]  # (a new state, a missing cell, a fraction)
    extra.loc[:, X.columns[-1]] = [1e6, -1e6, 3.0] if kind != "discrete" else ["yes", "no", "yes"]
    padded = pd.concat([X.astype(object), extra], ignore_index=True).astype(
        {name: X[name].dtype for name in X.columns if name != column})
    weights = np.r_[np.ones(len(X)), np.zeros(3)]
    got = edge_posteriors(padded, scorer=scorer, sample_weight=weights, column_types=_types(X))
    # (equal to rounding: the discrete column made of objects loses its category order, so
    # the sums run over its states in another order)
    expected = edge_posteriors(X, scorer=scorer).to_numpy()
    np.testing.assert_allclose(got.to_numpy(), expected, rtol=0, atol=1e-12)
    assert list(got.index) == list(X.columns)
    with pytest.raises(ValueError, match=repr(column)):  # (without the weights they are read, and refused)
        edge_posteriors(padded, scorer=scorer, column_types=_types(X))
    # weight 0 with interventions: the intervention rows of the dropped rows go too
    mask = np.zeros(padded.shape, dtype=bool)
    mask[:20, 1] = True
    mask[len(X):, 2] = True
    np.testing.assert_allclose(
        edge_posteriors(padded, scorer=scorer, sample_weight=weights, column_types=_types(X),
                        interventions=mask).to_numpy(),
        edge_posteriors(X, scorer=scorer, interventions=mask[:len(X)]).to_numpy(), rtol=0, atol=1e-12)


def _types(X):
    """The column types of ``X`` as the encoder reads them, declared (the padded frame's
    object columns would otherwise all be discrete)."""
    data, _ = encode_fit(X, allow_continuous=True)
    return {name: "continuous" if c else "discrete" for name, c in zip(data.names, data.continuous)}


@pytest.mark.parametrize("weights", [np.r_[-1.0, np.ones(9)], np.ones(3), np.r_[np.nan, np.ones(9)],
                                     np.r_[np.inf, np.ones(9)], np.zeros(10),
                                     np.r_[1e308, 1e308, np.ones(8)]],
                         ids=["negative", "wrong length", "NaN", "infinite", "all zero", "overflowing sum"])
def test_bad_sample_weight_is_refused_as_the_estimators_refuse_it(weights):
    from skbn.estimators import ExactStructure

    X = pd.DataFrame({"a": [0, 1] * 5, "b": [1, 0] * 5})
    with pytest.raises(ValueError, match="sample_weight") as estimator:
        ExactStructure().fit(X, sample_weight=weights)
    with pytest.raises(ValueError, match="sample_weight") as posterior:
        edge_posteriors(X, sample_weight=weights)
    assert str(posterior.value) == str(estimator.value)


def _determined(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if issubclass(w.category, DeterminedColumnsWarning)]


@pytest.mark.parametrize("scorer", ["bge", "bic-g"])
def test_a_column_that_is_a_linear_function_of_others_is_reported(scorer):
    # as ExactStructure's fit reports it (edge_posteriors said nothing)
    from skbn.estimators import ExactStructure

    X = _continuous_rows()
    X["total"] = X["a"] + 2.0 * X["c"]
    messages = _determined(lambda: edge_posteriors(X, scorer=scorer))
    assert len(messages) == 1
    assert messages[0].startswith("edge_posteriors: 'total' (a linear function of 'a', 'c'): a column is "
                                  "exactly determined by other columns"), messages[0]
    # the score's rule for such a family, as the scorer gives it: BGe finite, bic-g -inf
    rule = ("a finite score, above any family with noise" if scorer == "bge"
            else "determine it -inf (as bnlearn's bic-g")
    assert rule in messages[0], messages[0]
    exact = _determined(lambda: ExactStructure(scorer=scorer, fit_parameters=False).fit(X))
    assert [m.replace("ExactStructure", "edge_posteriors", 1) for m in exact] == messages
    # the rows read are the rows of positive weight: a row of weight 0 off the relation is not
    X.loc[0, "total"] += 1.0
    assert _determined(lambda: edge_posteriors(X, scorer=scorer)) == []
    weights = np.r_[0.0, np.ones(len(X) - 1)]
    assert _determined(lambda: edge_posteriors(X, scorer=scorer, sample_weight=weights)) == messages
    with warnings.catch_warnings():  # independent noise: no word
        warnings.simplefilter("error", DeterminedColumnsWarning)
        edge_posteriors(_continuous_rows(), scorer=scorer)


def test_a_column_with_no_spread_in_a_state_of_a_discrete_column_is_reported():
    # y exactly 0 where g is 'control' (zero-inflated): every family with g as a parent of y
    # scores -inf under the CLG score, so g -> y gets posterior 0 however strong it is
    from skbn.estimators import ExactStructure

    rng = np.random.default_rng(9)
    g = rng.choice(["control", "treated"], 300)
    x = rng.normal(size=300)
    X = pd.DataFrame({"g": g, "x": x, "y": np.where(g == "control", 0.0, 1 + x + rng.normal(size=300))})
    messages = _determined(lambda: edge_posteriors(X))
    assert len(messages) == 1
    assert messages[0].startswith("edge_posteriors: 'y' where 'g' is 'control': a continuous column has no "
                                  "spread"), messages[0]
    assert "every family in which 'g' is a parent of 'y' -inf" in messages[0]
    assert edge_posteriors(X).loc["g", "y"] == 0.0  # (the harm the warning is about)
    exact = _determined(lambda: ExactStructure(fit_parameters=False).fit(X))
    assert [m.replace("ExactStructure", "edge_posteriors", 1).replace("is never learned", "gets posterior 0")
            for m in exact] == messages
    X.loc[X["g"] == "control", "y"] = 0.1 * rng.normal(size=int((g == "control").sum()))
    with warnings.catch_warnings():  # a little spread: conditional-Gaussian, no word
        warnings.simplefilter("error", DeterminedColumnsWarning)
        edge_posteriors(X)
