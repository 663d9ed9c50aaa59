"""MomentCounter: the per-fit moments of continuous columns, against moments computed
directly on the rows of each group."""

import warnings

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


@pytest.mark.parametrize("discrete", [False, True])
def test_sums_of_squares_whose_total_overflows_are_kept_and_one_that_overflows_is_refused(discrete):
    # the overflow rule's screen sums every mean and sum of squares: three columns of sums of
    # squares near 1e308 overflow that total while each is finite, and the check column by
    # column keeps them; a column whose own sum of squares overflows is refused, named
    a = 4.4e153  # (four rows of +-a: a sum of squares of 7.7e307, finite, as is twice it)
    X = pd.DataFrame({"u": [a, -a, a, -a], "v": [-a, a, a, -a], "w": [1.0, 2.0, 4.0, 3.0],
                      "x": [a, a, -a, -a]})
    if discrete:
        X["k"] = ["p", "q", "p", "q"]
    types = {"u": "continuous", "v": "continuous", "w": "continuous", "x": "continuous"}
    data, _ = encode_fit(X, allow_continuous=True, column_types=types)
    with warnings.catch_warnings():  # (the screen's overflow is not the user's concern)
        warnings.simplefilter("error", RuntimeWarning)
        stats = MomentCounter(data).moments_given()
    with np.errstate(over="ignore"):
        assert np.isinf(np.diagonal(stats.scatter[0]).sum())
    expected = [4 * a * a, 4 * a * a, 5.0, 4 * a * a]
    assert np.diagonal(stats.scatter[0]).tolist() == pytest.approx(expected, rel=1e-14)
    X["v"] *= 10.0
    data, _ = encode_fit(X, allow_continuous=True, column_types=types)
    with pytest.raises(ValueError, match="Column 'v' holds values too large"):
        MomentCounter(data).moments_given()


def frame_with_unseen_state(n=400, seed=3):
    """Mixed data whose discrete columns have states named "None" and "NA", one declared
    state never seen, and rows sorted by a discrete column."""
    rng = np.random.default_rng(seed)
    d = rng.choice(["None", "NA"], n)
    e = pd.Categorical(rng.choice(["a", "b"], n), categories=["a", "b", "never"])
    f = rng.integers(0, 3, n)
    x = rng.normal(size=n) + (d == "NA")
    y = 0.7 * x - (f == 2) + rng.normal(size=n)
    z = 0.3 * y + 2.0 * (e == "b") + rng.normal(size=n)
    X = pd.DataFrame({"col x": x, "d.state": d, "y": y, "e": e, "f": f, "z": z})
    return X.sort_values("d.state", kind="stable").reset_index(drop=True)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("child, parents, candidates", [
    (5, (), (1, 3, 4)), (5, (0,), (1, 3, 4)), (5, (1, 2), (3, 4)), (2, (0, 3, 4), (1,)), (0, (1, 4), (3,)),
])
def test_added_discrete_equals_each_family(weighted, child, parents, candidates):
    from dataclasses import replace

    X = frame_with_unseen_state()
    data, _ = encode_fit(X, allow_continuous=True)
    if weighted:
        data = replace(data, weights=np.random.default_rng(5).integers(0, 4, len(X)).astype(float))
    counter = MomentCounter(data)
    stats, sizes, child_column, parent_columns = counter.added_discrete(child, parents, candidates)
    start = 0
    for k, size in zip(candidates, sizes):
        # the definition: the family's own columns on the rows of each (parents, k) configuration
        own, own_child, own_parents, _ = counter.family(child, parents + (k,))
        assert (own_child, own_parents) == (child_column, parent_columns) and own.n_groups == size
        block = slice(start, start + size)
        # groups are (parents' configuration, k's state) with k fastest; family() uses the
        # mixed radix over the sorted parents: reorder family()'s groups
        discrete = sorted(v for v in parents + (k,) if data.cardinalities[v] > 0)
        shape = [int(data.cardinalities[v]) for v in discrete]
        grid = np.indices(shape).reshape(len(shape), -1).T  # family()'s group -> states
        position = discrete.index(k)
        rest = np.delete(grid, position, axis=1)
        rest_shape = np.delete(shape, position)
        mine = (np.ravel_multi_index(rest.T, rest_shape) * shape[position] + grid[:, position]
                if len(rest_shape) else grid[:, position])
        np.testing.assert_allclose(stats.weight[block][mine], own.weight, rtol=0, atol=1e-9)
        np.testing.assert_allclose(stats.mean[block][mine], own.mean, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(stats.scatter[block][mine], own.scatter, rtol=1e-10, atol=1e-9)
        start += size
    assert start == stats.n_groups
    # an unseen state ("never" of e) is a group of weight 0 and zero moments
    if 3 in candidates:
        assert (stats.weight == 0).any()


def test_added_discrete_declines_when_the_indicators_are_too_large(monkeypatch):
    import skbn._counting._moment_counter as module

    data, _ = encode_fit(frame_with_unseen_state(), allow_continuous=True)
    monkeypatch.setattr(module, "INDICATOR_BYTES", 0)
    assert MomentCounter(data).added_discrete(5, (0,), (1, 3)) == (None, None, None, None)


def test_regression_rss_equals_regression_per_group_singular_groups_included():
    from skbn._counting._moments import regression, regression_rss

    rng = np.random.default_rng(2)
    values = rng.normal(size=(60, 4))
    values[:, 3] = values[:, 0] - 2 * values[:, 1]  # collinear in every group
    ids = np.repeat(np.arange(6), 10)
    values[ids == 2, 1] = 5.0  # a constant parent in group 2
    values[ids == 3, 2] = 1.0  # a constant child in group 3
    ids[ids == 4] = 5  # group 4 unobserved
    ids[0] = 4  # ... but one row: zero scatter
    stats = moments(values, ids=ids, n_ids=7)
    for child, parents in [(2, [0, 1]), (2, [0, 1, 3]), (3, [0, 1]), (2, []), (0, [3])]:
        expected = [regression(stats.scatter[g], child, parents)[1] for g in range(7)]
        np.testing.assert_allclose(regression_rss(stats.scatter, child, parents), expected,
                                   rtol=1e-9, atol=1e-9)


def test_stacked_scores_equal_each_family_and_a_redefined_formula_is_called():
    from skbn.scores import CLGAIC

    data, _ = encode_fit(frame_with_unseen_state(), allow_continuous=True)
    counter = MomentCounter(data)
    candidates = (1, 3, 4)
    stats, sizes, child, parents = counter.added_discrete(5, (0, 2), candidates)

    class Halved(CLGBIC):
        def local_score_moments(self, stats, child, parents, n_discrete_parents=0):
            return 0.5 * super().local_score_moments(stats, child, parents, n_discrete_parents)

    for scorer, factor in [(CLGBIC(), 1.0), (CLGAIC(variance="mle", edge_penalty=0.3), 1.0),
                           (Halved(), 0.5)]:
        stacked = scorer.local_scores_stacked(stats, child, parents, 1, sizes)
        for t, k in enumerate(candidates):
            own, own_child, own_parents, n_discrete = counter.family(5, (0, 2, k))
            expected = CLGBIC.local_score_moments(scorer, own, own_child, own_parents, n_discrete)
            assert stacked[t] == pytest.approx(factor * expected, rel=1e-10)


def test_one_counter_per_fit_inside_shared_moments_only():
    from skbn._counting._moment_counter import shared_moments

    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(50, 3)), columns=["a", "b", "c"])
    data, _ = encode_fit(frame, allow_continuous=True)
    other, _ = encode_fit(frame, allow_continuous=True)  # equal data, another object
    assert MomentCounter.of(data) is not MomentCounter.of(data)  # outside a fit: a new one
    with shared_moments(data):
        shared = MomentCounter.of(data)
        assert MomentCounter.of(data) is shared
        assert MomentCounter.of(other) is not shared  # a bootstrap sample, EM's rows: their own
        with shared_moments(other):  # a nested fit shares its own counter
            assert MomentCounter.of(other) is MomentCounter.of(other)
            assert MomentCounter.of(data) is not shared
        assert MomentCounter.of(data) is shared
    assert MomentCounter.of(data) is not shared  # nothing kept after the fit


@pytest.mark.parametrize("learner", ["pc", "hc", "ges"])
def test_a_fit_computes_the_moments_once_and_its_network_equals_a_fresh_fit(monkeypatch, learner):
    import skbn._counting._moment_counter as module
    from skbn import GESStructure, HillClimbStructure, PCStructure
    from skbn.network import GaussianBayesianNetwork

    rng = np.random.default_rng(1)
    a = rng.normal(size=300)
    b = 2 * a + rng.normal(size=300)
    frame = pd.DataFrame({"a": a, "b": b, "c": b - a + rng.normal(size=300), "d": rng.normal(size=300)})
    estimator = {"pc": PCStructure(ci_test="zf"), "hc": HillClimbStructure(scorer="bic-g"),
                 "ges": GESStructure(scorer="bic-g")}[learner]
    calls = []
    original = module.moments

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, "moments", counted)
    estimator.fit(frame)
    assert len(calls) == 1  # the search and the network fit read one scatter matrix
    expected = GaussianBayesianNetwork.from_data(frame, estimator.edges_)  # its own moments
    for node in frame.columns:
        assert estimator.network_.intercepts[node] == pytest.approx(expected.intercepts[node], rel=1e-12)
        np.testing.assert_allclose(estimator.network_.coefficients[node], expected.coefficients[node],
                                   rtol=1e-12)
        assert estimator.network_.sigmas[node] == pytest.approx(expected.sigmas[node], rel=1e-12)


def test_regression_without_parents_is_the_childs_own_scatter():
    from skbn._counting._moments import regression

    values = np.random.default_rng(2).normal(size=(30, 3))
    values[:, 2] = 4.0  # constant
    scatter = moments(values).scatter[0]
    coef, rss = regression(scatter, 1, [])
    assert coef.shape == (0,) and coef.dtype == np.float64
    assert rss == pytest.approx(np.sum((values[:, 1] - values[:, 1].mean()) ** 2), rel=1e-12)
    assert regression(scatter, 2, []) == (pytest.approx(np.zeros(0)), 0.0)
