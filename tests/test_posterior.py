"""Exact edge posteriors against brute force over every DAG, each weighted by its number of
linear extensions (the order-modular prior)."""

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from conftest import one_observational_row_data

from skbn._data import encode_fit
from skbn._engines._local_scores import FamilyScoreCache
from skbn.datasets import sample_asia
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
    pairs = [(u, v) for u in range(p) for v in range(p) if u != v]
    masks = np.arange(1 << len(pairs), dtype=np.int64)
    extensions = np.zeros(len(masks), dtype=np.int64)
    for order in itertools.permutations(range(p)):
        position = {v: i for i, v in enumerate(order)}
        backward = sum(1 << e for e, (u, v) in enumerate(pairs) if position[u] > position[v])
        extensions += (masks & backward) == 0
    dags, extensions = masks[extensions > 0], extensions[extensions > 0]
    log_weight = np.log(extensions.astype(float))
    keep = np.ones(len(dags), dtype=bool)
    for v in range(p):
        parent_bits = np.zeros(len(dags), dtype=np.int64)
        for e, (u, w) in enumerate(pairs):
            if w == v:
                parent_bits |= ((dags >> e) & 1) << u
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
    for e, (u, v) in enumerate(pairs):
        posterior[u, v] = weight[((dags >> e) & 1) == 1].sum()
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
