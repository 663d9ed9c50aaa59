"""Decomposable scores: hand computations, literature formulas, equivalence properties."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import xlogy
from sklearn.base import clone

from skbn._counting import DistinctRows, FamilyCounter
from skbn._data import EncodedData, encode_fit
from skbn._engines._local_scores import FamilyScoreCache
from skbn.scores import (
    AIC,
    BIC,
    BDeu,
    GaussianBIC,
    K2Score,
    LogLikelihood,
    resolve_scorer,
)


def _bd_reference(counts, alpha):
    """Bayesian Dirichlet score with pseudo-count matrix ``alpha`` by explicit loops (math.lgamma)."""
    total = 0.0
    for j in range(counts.shape[0]):
        a_j, n_j = alpha[j].sum(), counts[j].sum()
        total += math.lgamma(a_j) - math.lgamma(a_j + n_j)
        for k in range(counts.shape[1]):
            total += math.lgamma(alpha[j, k] + counts[j, k]) - math.lgamma(alpha[j, k])
    return total


def _loglik_reference(counts):
    return sum(
        n_jk * math.log(n_jk / counts[j].sum())
        for j in range(counts.shape[0]) for n_jk in counts[j] if n_jk > 0
    )


def test_hand_computed_values():
    counts = np.array([[3, 1], [0, 2]])
    # BDeu(ess=2), q=2, r=2: a_j = 1, a_jk = 1/2
    expected = (math.lgamma(1) - math.lgamma(5) + math.lgamma(3.5) - math.lgamma(0.5)
                + math.lgamma(1.5) - math.lgamma(0.5)
                + math.lgamma(1) - math.lgamma(3) + math.lgamma(2.5) - math.lgamma(0.5))
    assert BDeu(ess=2).local_score(counts, 2, 1) == pytest.approx(expected, abs=1e-12)
    # K2: log[(r-1)!/(N_j+r-1)! prod N_jk!] = log(1!/5! * 3! 1!) + log(1!/3! * 0! 2!)
    assert K2Score().local_score(counts, 2, 1) == pytest.approx(math.log(6 / 120) + math.log(2 / 6))
    ll = 3 * math.log(3 / 4) + 1 * math.log(1 / 4) + 2 * math.log(1.0)
    assert LogLikelihood().local_score(counts, 2, 1) == pytest.approx(ll)
    assert BIC().local_score(counts, 2, 1) == pytest.approx(ll - 0.5 * math.log(6) * 1 * 2)
    assert AIC().local_score(counts, 2, 1) == pytest.approx(ll - 2)


@pytest.mark.parametrize("seed", range(5))
def test_vectorised_scores_match_references(seed):
    rng = np.random.default_rng(seed)
    q, r = rng.integers(1, 7), rng.integers(2, 5)
    counts = rng.integers(0, 6, size=(q, r)) * (rng.random((q, r)) < 0.7)
    ess = rng.uniform(0.1, 20)
    assert BDeu(ess=ess).local_score(counts, q, 2) == pytest.approx(
        _bd_reference(counts, np.full((q, r), ess / (q * r))), rel=1e-12, abs=1e-9)
    assert K2Score().local_score(counts, q, 2) == pytest.approx(
        _bd_reference(counts, np.ones((q, r))), rel=1e-12, abs=1e-9)
    assert LogLikelihood().local_score(counts, q, 2) == pytest.approx(_loglik_reference(counts), abs=1e-9)
    free = (r - 1) * q
    n = counts.sum()
    assert BIC().local_score(counts, q, 2) == pytest.approx(
        _loglik_reference(counts) - 0.5 * math.log(n) * free if n else -0.0, abs=1e-9)


def test_empty_rows_contribute_nothing():
    counts = np.array([[4, 1, 0], [2, 2, 2]])
    padded = np.vstack([counts, np.zeros((5, 3), dtype=int)])
    for scorer in (BDeu(ess=3), K2Score(), BIC(), AIC(), LogLikelihood()):
        assert scorer.local_score(counts, 7, 1) == pytest.approx(scorer.local_score(padded, 7, 1))


def _sample_frame(seed, n=400):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = (a + (rng.random(n) < 0.3)) % 3
    c = (b + rng.integers(0, 2, n)) % 2
    return pd.DataFrame({"a": a, "b": b, "c": c})


@pytest.mark.parametrize("scorer", [BDeu(ess=1), BDeu(ess=7.5), BIC(), AIC(), LogLikelihood()])
def test_markov_equivalent_dags_score_equal(scorer):
    X = _sample_frame(0)
    chain = [("a", "b"), ("b", "c")]
    reversed_chain = [("c", "b"), ("b", "a")]
    fork = [("b", "a"), ("b", "c")]
    scores = [scorer.score(X, g) for g in (chain, reversed_chain, fork)]
    assert scores[1] == pytest.approx(scores[0], rel=1e-10)
    assert scores[2] == pytest.approx(scores[0], rel=1e-10)
    collider = [("a", "b"), ("c", "b")]
    assert scorer.score(X, collider) != pytest.approx(scores[0], rel=1e-10)


def test_k2_is_not_score_equivalent():
    X = _sample_frame(1)
    assert K2Score().score(X, [("a", "b")]) != pytest.approx(K2Score().score(X, [("b", "a")]), rel=1e-9)
    assert not K2Score.score_equivalent and BDeu.score_equivalent


def test_edge_penalty_is_a_structure_prior():
    X = _sample_frame(2)
    edges = [("a", "b"), ("b", "c")]
    assert BDeu(edge_penalty=2.5).score(X, edges) == pytest.approx(BDeu().score(X, edges) - 5.0)


def test_total_score_is_the_sum_of_families():
    X = _sample_frame(3)
    data, _ = encode_fit(X)
    cache = FamilyScoreCache(data, BDeu(ess=2))
    expected = cache.local_score(0, ()) + cache.local_score(1, (0,)) + cache.local_score(2, (1, 0))
    assert BDeu(ess=2).score(X, [("a", "b"), ("a", "c"), ("b", "c")]) == pytest.approx(expected)
    assert cache.local_score(2, (0, 1)) == cache.local_score(2, (1, 0)) and len(cache) == 3
    with pytest.raises(ValueError, match="unknown column 'z'"):
        BDeu().score(X, [("a", "z")])


def test_parameters_and_resolution():
    scorer = BDeu(ess=3)
    assert scorer.get_params() == {"ess": 3, "edge_penalty": 0.0}
    assert clone(scorer).set_params(ess=10).ess == 10 and scorer.ess == 3
    assert isinstance(resolve_scorer("k2"), K2Score) and resolve_scorer(scorer) is not scorer
    with pytest.raises(ValueError, match="Unknown scorer 'bdue'"):
        resolve_scorer("bdue")
    with pytest.raises(TypeError, match="BaseScore"):
        resolve_scorer(3)
    with pytest.raises(ValueError, match="ess"):
        resolve_scorer(BDeu(ess=-1))


# ------------------------------------------------------------------ batched kernels and bounds
ALL_SCORES = [BDeu(ess=2.0, edge_penalty=0.3), K2Score(), BIC(), AIC(), LogLikelihood()]


def _data(n, seed, weights=None):
    rng = np.random.default_rng(seed)
    cards = np.array([2, 3, 4, 2, 3], dtype=np.int64)
    codes = np.asfortranarray(np.column_stack([rng.integers(0, r, n) for r in cards]).astype(np.uint8))
    return EncodedData(codes, cards, tuple("abcde"), weights)


@pytest.mark.parametrize("scorer", ALL_SCORES, ids=repr)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [30, 2000])  # few rows: counts are small (tabulated terms)
def test_batched_kernel_equals_loop_over_local_score(scorer, weighted, n):
    weights = np.random.default_rng(1).uniform(0.2, 3.0, n) if weighted else None
    data = _data(n, 0, weights)
    counter = FamilyCounter(data)
    for child, parents in [(0, ()), (1, (0,)), (4, (1, 2))]:
        stack, _, _ = counter.added_parent_tables(child, parents)
        batched = scorer.local_scores(stack)
        for k in range(5):
            if k == child or k in parents:
                continue
            family = tuple(sorted(parents + (k,)))
            expected = scorer.local_score(counter.family_table(child, family),
                                          math.prod(int(data.cardinalities[v]) for v in family), len(family))
            assert batched[k] == pytest.approx(expected, rel=1e-11, abs=1e-9)
    distinct = DistinctRows(data.codes, data.cardinalities, weights)
    ids, m = distinct.add_parent(*distinct.empty_ids(), 3)
    ids, m = distinct.add_parent(ids, m, 1)
    children = np.array([0, 2, 4])
    batched = scorer.local_scores(distinct.children_stack(ids, m, children, 6, 2))
    for value, child in zip(batched, children):
        expected = scorer.local_score(counter.family_table(child, (1, 3)), 6, 2)
        assert value == pytest.approx(expected, rel=1e-11, abs=1e-9)


@pytest.mark.parametrize("scorer", ALL_SCORES, ids=repr)
@pytest.mark.parametrize("weighted", [False, True])
def test_upper_bound_dominates_every_superset(scorer, weighted):
    n = 40
    weights = np.random.default_rng(2).integers(1, 4, n).astype(float) if weighted else None
    data = _data(n, 3, weights)
    counter = FamilyCounter(data)
    child, others = 2, (0, 1, 3, 4)
    cards = data.cardinalities
    for size in range(4):
        for base in itertools.combinations(others, size):
            table = counter.family_table(child, base)
            m = int(np.sum(table.sum(axis=1) > 0))
            bound = scorer.upper_bounds(cards[[child]], math.prod(int(cards[v]) for v in base), m, size,
                                        data.total_weight, True)
            for extra in range(len(others) - size + 1):
                for more in itertools.combinations([v for v in others if v not in base], extra):
                    superset = tuple(sorted(base + more))
                    value = scorer.local_score(counter.family_table(child, superset),
                                               math.prod(int(cards[v]) for v in superset), len(superset))
                    assert value <= bound[0] + 1e-9


def test_dirichlet_bound_refuses_fractional_counts():
    assert BDeu().upper_bounds(np.array([2]), 4.0, 3, 1, 10.0, False) is None
    assert BIC().upper_bounds(np.array([2]), 4.0, 3, 1, 10.0, False) is not None


def test_scores_are_defined_for_real_valued_counts():
    counts = np.array([[0.5, 1.25], [2.0, 0.0]])
    for scorer in ALL_SCORES:
        assert np.isfinite(scorer.local_score(counts, 2, 1))
    # BIC's n is the total weight
    n = counts.sum()
    log_likelihood = float(np.sum(xlogy(counts, counts)) - np.sum(xlogy(counts.sum(1), counts.sum(1))))
    expected = log_likelihood - 0.5 * math.log(n) * 2
    assert BIC().local_score(counts, 2, 0) == pytest.approx(expected)


class _OwnFormula(BDeu):
    def local_score(self, counts, n_parent_configs, n_parents):
        return 2.0 * super().local_score(counts, n_parent_configs, n_parents)


class _Inherits(BDeu):
    pass


def test_kernels_follow_the_formula_owner():
    data = _data(200, 4)
    stack, _, _ = FamilyCounter(data).added_parent_tables(0, (1,))
    assert _OwnFormula()._kernel("_data_scores") is None
    assert _OwnFormula().upper_bounds([2], 1, 1, 0, 9, True) is None
    np.testing.assert_allclose(_OwnFormula().local_scores(stack), 2 * BDeu().local_scores(stack))
    np.testing.assert_array_equal(_Inherits().local_scores(stack), BDeu().local_scores(stack))
    assert _Inherits().upper_bounds(np.array([2]), 1, 1, 0, 9, True) is not None


@pytest.mark.parametrize("scorer", [BDeu(), GaussianBIC()], ids=["bdeu", "bic-g"])
def test_score_does_not_read_rows_of_weight_0(scorer):
    """A weight 0 is no row: a new state, a missing cell or a text cell there changes
    nothing (``score`` encoded them before reading the weights)."""
    rng = np.random.default_rng(0)
    if isinstance(scorer, BDeu):
        X = pd.DataFrame({"a": rng.choice(["u", "v"], 200), "b": rng.choice(["p", "q"], 200)})
        extra = pd.DataFrame({"a": ["new", None], "b": ["p", "q"]})
    else:
        X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
        extra = pd.DataFrame({"a": [np.nan, 1.0], "b": [0.5, np.inf]})
    both = pd.concat([X, extra], ignore_index=True)
    w = np.r_[np.ones(len(X)), 0.0, 0.0]
    assert scorer.score(both, [("a", "b")], sample_weight=w) == scorer.score(X, [("a", "b")])
