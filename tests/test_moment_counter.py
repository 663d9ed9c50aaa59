"""MomentCounter: the per-fit moments of continuous columns, against moments computed
directly on the rows of each group."""

import numpy as np
import pandas as pd
import pytest

from skbn._counting import MomentCounter, moments
from skbn._data import encode_fit
from skbn.scores import CLGBIC, GaussianBIC


def mixed(n=500, seed=0):
    rng = np.random.default_rng(seed)
    d = rng.integers(0, 2, n)
    e = rng.choice(["a", "b", "c"], n)
    x = rng.normal(size=n) + d
    y = 0.5 * x + (e == "b") + rng.normal(size=n)
    return pd.DataFrame({"x": x, "d": d, "y.value": y, "e": e})


def test_groups_are_declared_configurations_in_mixed_radix_order():
    X = mixed()
    data, _ = encode_fit(X, allow_continuous=True)
    counter = MomentCounter(data)
    assert counter.continuous.tolist() == [0, 2] and counter.index.tolist() == [0, -1, 1, -1]
    stats = counter.moments_given((3, 1))  # sorted: d (2 states) slowest, then e (3 states)
    assert stats.n_groups == 6
    for g in range(6):
        rows = (data.codes[:, 1] == g // 3) & (data.codes[:, 3] == g % 3)
        direct = moments(X[["x", "y.value"]].to_numpy()[rows])
        np.testing.assert_allclose(stats.scatter[g], direct.scatter[0], rtol=1e-12)
        assert stats.weight[g] == rows.sum()
    assert counter.moments_given((1, 3)) is stats  # cached, any order


def test_weights_equal_replicated_rows():
    X = mixed(200)
    w = np.random.default_rng(1).integers(1, 4, len(X))
    data, _ = encode_fit(X, allow_continuous=True)
    from dataclasses import replace

    weighted = MomentCounter(replace(data, weights=w.astype(float))).moments_given((1,))
    copies, _ = encode_fit(X.loc[X.index.repeat(w)].reset_index(drop=True), allow_continuous=True)
    replicated = MomentCounter(copies).moments_given((1,))
    np.testing.assert_allclose(weighted.scatter, replicated.scatter, rtol=1e-10)
    np.testing.assert_allclose(weighted.weight, replicated.weight)


def test_family_feeds_the_scores():
    X = mixed()
    data, _ = encode_fit(X, allow_continuous=True)
    counter = MomentCounter(data)
    stats, child, parents, n_discrete = counter.family(2, [3, 0])
    assert (child, parents, n_discrete) == (1, [0], 1) and stats.n_groups == 3
    # the same as scoring the family's own columns on each group's rows
    by_hand = 0.0
    for state in ["a", "b", "c"]:
        rows = X[X["e"] == state]
        by_hand += GaussianBIC().local_score_moments(moments(rows[["y.value", "x"]].to_numpy()), 0, [1])
    # each group's BIC has its own penalty 0.5 log(N_g) x 3 parameters (intercept, slope,
    # variance); the CLG BIC has one, 0.5 log(N) x 9, for the three groups together
    loglik = by_hand + sum(0.5 * np.log(len(X[X["e"] == s])) * 3 for s in "abc")
    score = CLGBIC().local_score_moments(stats, child, parents, n_discrete)
    np.testing.assert_allclose(score, loglik - 0.5 * np.log(len(X)) * 9, rtol=1e-12)
    with pytest.raises(ValueError, match="variable 1 is discrete"):
        counter.family(1, [])


def test_missing_continuous_cells_are_refused():
    X = mixed(50)
    X.loc[3, "x"] = np.nan
    data, _ = encode_fit(X, allow_continuous=True, allow_missing=True)
    with pytest.raises(ValueError, match="Column 'x' has missing cells"):
        MomentCounter(data)
