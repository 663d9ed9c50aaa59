"""Decomposable scores: hand computations, literature formulas, equivalence properties."""

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from skbn.scores import AIC, BIC, BDeu, FamilyScoreCache, K2Score, LogLikelihood, resolve_scorer
from skbn._data import encode_fit


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
