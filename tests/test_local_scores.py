"""The local-score module (skbn._engines._local_scores) against hand-computed values."""

import math

import numpy as np
import pandas as pd
import pytest

from skbn._counting import FamilyCounter
from skbn._data import encode_fit
from skbn._engines._local_scores import (
    FamilyColumns,
    FamilyScoreCache,
    pair_score_gains,
    pairwise_mutual_information,
)
from skbn.scores import BIC, LogLikelihood


def _table_rows(table, names=("a", "b")):
    """Rows of a 2-column frame with ``table[x, y]`` copies of ``(x, y)`` (states as text)."""
    rows = [(f"x{x}", f"y{y}") for (x, y), k in np.ndenumerate(table) for _ in range(k)]
    return pd.DataFrame(rows, columns=list(names))


def test_mutual_information_of_a_2x2_table_by_hand():
    # N = [[3, 1], [1, 3]], n = 8: p(a, b) = 3/8 on the diagonal, 1/8 off it, every
    # marginal 1/2, so I = 2 (3/8) log(3/8 / 1/4) + 2 (1/8) log(1/8 / 1/4)
    #                    = (3/4) log(3/2) - (1/4) log 2
    expected = 0.75 * math.log(1.5) - 0.25 * math.log(2.0)
    data, _ = encode_fit(_table_rows(np.array([[3, 1], [1, 3]])))
    mi = pairwise_mutual_information(data, [0, 1])
    assert mi[0, 1] == pytest.approx(expected, rel=1e-12)
    assert mi[1, 0] == mi[0, 1] and mi[0, 0] == mi[1, 1] == 0.0
    # the search's counter (its Gram matrix and pair tables) gives the same matrix
    shared = pairwise_mutual_information(data, [0, 1], counter=FamilyCounter(data))
    np.testing.assert_allclose(shared, mi, rtol=1e-12)
    # n I is the log-likelihood gain of the edge
    gains = pair_score_gains(data, [0, 1], None, LogLikelihood())
    assert gains[0, 1] == pytest.approx(8 * expected, rel=1e-12)


def test_mutual_information_of_independent_and_of_copied_columns_by_hand():
    independent, _ = encode_fit(_table_rows(np.array([[2, 2], [2, 2]])))
    assert pairwise_mutual_information(independent, [0, 1])[0, 1] == pytest.approx(0.0, abs=1e-15)
    # b = a with p(a) = (1/4, 3/4): I = H(a) = -(1/4) log(1/4) - (3/4) log(3/4)
    copied, _ = encode_fit(_table_rows(np.array([[1, 0], [0, 3]])))
    entropy = -(0.25 * math.log(0.25) + 0.75 * math.log(0.75))
    assert pairwise_mutual_information(copied, [0, 1])[0, 1] == pytest.approx(entropy, rel=1e-12)


def test_weighted_rows_count_as_copies_in_the_mutual_information():
    from dataclasses import replace

    distinct, _ = encode_fit(_table_rows(np.array([[1, 1], [1, 1]])))  # rows (0,0), (0,1), (1,0), (1,1)
    weighted = replace(distinct, weights=np.array([3.0, 1.0, 1.0, 3.0]))
    copies, _ = encode_fit(_table_rows(np.array([[3, 1], [1, 3]])))
    np.testing.assert_allclose(pairwise_mutual_information(weighted, [0, 1]),
                               pairwise_mutual_information(copies, [0, 1]), rtol=1e-12)


def test_toggle_columns_and_family_scores_answer_from_one_cache():
    rng = np.random.RandomState(0)
    X = pd.DataFrame(rng.randint(0, 3, size=(300, 4)), columns=list("pqrs"))
    data, _ = encode_fit(X)
    columns = FamilyColumns(data, BIC())
    fresh = FamilyScoreCache(data, BIC())
    column = columns.toggle_column(2, (0,))
    for k, parents in ((0, ()), (1, (0, 1)), (2, (0,)), (3, (0, 3))):
        assert column[k] == pytest.approx(fresh.local_score(2, parents), rel=1e-12)
        assert columns.local_score(2, parents) == column[k]  # from the cache the column filled


def _clg_data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = rng.choice(["lo", "mid", "hi"], n)
    c = rng.integers(0, 3, n)
    x = rng.normal(size=n) + a
    y = 0.5 * x + (b == "hi") - c + rng.normal(size=n)
    frame = pd.DataFrame({"a": a, "b": b, "x": x, "c": c, "y.value": y})
    return encode_fit(frame, allow_continuous=True)[0]


@pytest.mark.parametrize("base", [(), (2,), (0, 2)])
def test_ges_added_discrete_parents_are_batched_as_hill_climbing_scores_them(monkeypatch, base):
    from skbn._counting import MomentCounter
    from skbn._engines._local_scores import FamilyColumns, FamilyScoreCache
    from skbn.scores import CLGBIC

    data = _clg_data()
    child, extras = 4, [k for k in (0, 1, 2, 3) if k not in base]
    calls = []
    original = MomentCounter.added_discrete

    def counted(self, *args, **kwargs):
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(MomentCounter, "added_discrete", counted)
    scorer = CLGBIC()
    cache = FamilyScoreCache(data, scorer)
    scores = cache.added_scores(child, base, extras)
    discrete = [k for k in extras if k != 2]
    assert len(calls) == (1 if len(discrete) > 1 else 0)  # one batch for the discrete candidates
    assert cache.added_scores(child, base, extras) == scores  # cached: no second batch
    assert len(calls) == (1 if len(discrete) > 1 else 0)
    # the same bits as hill climbing's toggle column (the same batch)
    column = FamilyColumns(data, scorer).toggle_column(child, base)
    assert scores == [float(column[k]) for k in extras]
    # and the definition: each family scored on its own, from its own split of the rows
    alone = FamilyScoreCache(data, scorer)
    for k, score in zip(extras, scores):
        assert score == pytest.approx(alone.local_score(child, base + (k,)), rel=1e-10, abs=1e-8)
