"""The cheap paths of a small Gaussian fit give the same results as the general ones they
shortcut.

Each fast path replaces work by less work with the same outcome; these tests compare them
with the path they stand for or with an independent answer:

* one-group moments without weights against the general (weighted) path, bit for bit, on
  random shapes and the edge cases (one column, one row, no row, integer-valued floats,
  huge and tiny magnitudes, negative zeros), and against numpy's pairwise sum of each
  column taken alone;
* the moment counter's and the encoder's quick NaN / infinity checks: the same errors,
  naming the same column, and no false alarm when a column sum overflows;
* the encoder's zero-copy values of an all-float frame (read-only, X unchanged), and a
  2-D float array read as the frame of its columns;
* GES's Insert / Delete applied to a CPDAG's bit masks against the same operator on a copy
  of its sets, and the sets built lazily from the masks;
* fit's validation, which skips parameters still at their defaults: every default of every
  learner satisfies its constraints, and a changed parameter is still refused.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from skbn import GESStructure
from skbn._counting import MomentCounter
from skbn._counting._moments import moments
from skbn._data import column_names, encode_fit


def _bits(stats):
    return [stats.weight.tobytes(), stats.mean.tobytes(), stats.scatter.tobytes(),
            stats.weight.shape, stats.mean.shape, stats.scatter.shape]


def _shapes():
    rng = np.random.default_rng(0)
    out = [np.random.default_rng(n * k).normal(size=(n, k))  # (numpy's loop and SIMD block sizes)
           for n in (7, 8, 9, 16, 17, 127, 128, 129, 4095, 4096, 4097, 8192, 8193, 20000)
           for k in (2, 3, 4, 8, 9, 16, 17, 33)]
    for trial in range(300):
        n = int(rng.integers(0, 3)) if trial % 10 == 0 else int(rng.integers(1, 2500))
        k = 1 if trial % 7 == 0 else int(rng.integers(1, 16))
        kind = trial % 4
        if kind == 0:
            values = rng.normal(size=(n, k))
        elif kind == 1:  # integer-valued floats (exact sums, ties in the means)
            values = np.round(rng.normal(size=(n, k)) * 50)
        elif kind == 2:  # huge and tiny magnitudes, one per column
            values = rng.normal(size=(n, k)) * 10.0 ** rng.integers(-150, 150, size=k)
        else:  # a shifted column (large mean, small spread) and Fortran order
            values = np.asfortranarray(rng.normal(size=(n, k)) + 1e6 * rng.normal(size=k))
        if trial % 9 == 0:  # a column of negative zeros (its sum is +0.0, from 0)
            values[:, 0] = -0.0
        out.append(values)
    return out


def test_one_group_moments_equal_the_weighted_path_bit_for_bit():
    # weights=ones runs the weighted path (the weights multiplied in, then summed): 1.0 * x
    # == x, so its bits are those of the unweighted moments
    for values in _shapes():
        fast = moments(values)
        general = moments(values, weights=np.ones(len(values)))
        assert _bits(fast) == _bits(general), values.shape


def test_one_group_moments_in_a_canonical_order_are_the_same_numbers_for_any_column_order():
    # with ``order`` (a fit's counter: name order) the scatter is the product of the
    # column-major block in that order, permuted back: any column order of the same
    # columns gives the same bits (on OpenBLAS's kernels here, some entries of the plain
    # product of the column-major block change with the column's position when the number
    # of columns is not a multiple of 4), close to the row-major product's
    rng = np.random.default_rng(21)
    for n, k in ((3000, 7), (500, 5), (2000, 10), (100, 1), (0, 3), (1, 4)):
        values = rng.normal(size=(n, k)) * np.logspace(-3, 3, k) + 10.0
        weights = rng.uniform(0.5, 2.0, size=n)
        canonical = rng.permutation(k)  # (the column at each place of the canonical order)
        for w in (None, weights):
            reference = moments(np.asfortranarray(values), w, order=canonical)
            for permutation in [rng.permutation(k) for _ in range(6)]:
                permuted = np.asfortranarray(values[:, permutation])
                place = np.argsort(permutation)  # column j of values is column place[j] of permuted
                stats = moments(permuted, w, order=place[canonical])
                assert stats.mean.tobytes() == reference.mean[:, permutation].tobytes()
                expected = reference.scatter[:, permutation][:, :, permutation]
                assert stats.scatter.tobytes() == expected.tobytes()
                row_major = moments(np.ascontiguousarray(permuted), w, order=place[canonical])
                assert _bits(row_major) == _bits(stats)  # (any layout of the values)
            if n > 1:
                plain = moments(values, w)  # (the row-major product's rounding)
                np.testing.assert_allclose(reference.scatter, plain.scatter, rtol=1e-12,
                                           atol=1e-12 * np.abs(plain.scatter).max())


def test_one_group_column_sums_are_pairwise_down_each_column():
    # the mean is numpy's pairwise sum of each column as one contiguous vector, over n:
    # the same bits whatever the layout of the values and the column's position
    rng = np.random.default_rng(3)
    values = rng.normal(size=(5000, 3)) * np.array([1.0, 1e8, 1e-8]) + 1.0
    by_column = np.array([np.add.reduce(np.ascontiguousarray(values[:, j])) for j in range(3)])
    for layout in (values, np.asfortranarray(values), values[:, ::-1][:, ::-1]):
        stats = moments(layout)
        assert stats.mean[0].tobytes() == (by_column / 5000).tobytes()
        assert _bits(stats) == _bits(moments(values))
    # a column's bits do not depend on its position or on the other columns
    reordered = moments(values[:, [2, 0, 1]])
    assert reordered.mean[0].tobytes() == (by_column[[2, 0, 1]] / 5000).tobytes()
    assert moments(values[:, :1]).mean[0, 0] == by_column[0] / 5000
    # and within the error bound of numpy's pairwise summation (blocks of 128 values
    # summed by 8 running sums, then halved: about (log2 n + 16) roundings), far below
    # the n roundings a sequential sum may make
    exact = np.array([math.fsum(values[:, j]) for j in range(3)])
    bound = (np.log2(5000) + 16) * np.finfo(float).eps * np.abs(values).sum(axis=0)
    assert (np.abs(by_column - exact) <= bound).all()


def test_one_group_moments_of_a_shifted_column_keep_their_spread():
    # a measurement of spread 1e-3 around 1e6 (a timestamp, a wavelength): the spread is
    # in the last 9 of the 16 digits, so an error in the mean of n eps |x| (a sequential
    # sum: 1e-6 here) would add n (error)^2 to the scatter, 1e-6 of it; the pairwise sum's
    # error, about log2(n) eps |x|, adds under 1e-11
    rng = np.random.default_rng(5)
    values = 1e6 + 1e-5 * rng.normal(size=(20000, 2))
    stats = moments(values)
    for j in range(2):  # the exact scatter about the exact mean, from exactly centred values
        centred = values[:, j] - math.fsum(values[:, j]) / len(values)  # (exact: Sterbenz)
        exact = math.fsum(centred * centred) - math.fsum(centred) ** 2 / len(values)
        assert abs(stats.scatter[0, j, j] - exact) <= 1e-8 * exact


def test_one_group_moments_of_one_row_and_no_row():
    stats = moments(np.array([[1.5, -2.0, 3.0]]))
    assert stats.weight.tolist() == [1.0]
    assert stats.mean.tolist() == [[1.5, -2.0, 3.0]]
    assert not stats.scatter.any()
    empty = moments(np.zeros((0, 2)))
    assert empty.weight.tolist() == [0.0]
    assert empty.mean.tolist() == [[0.0, 0.0]]
    assert empty.scatter.shape == (1, 2, 2) and not empty.scatter.any()


def test_one_group_moments_against_the_definition():
    rng = np.random.default_rng(1)
    values = rng.normal(size=(400, 4)) * [1, 10, 100, 0.1] + [5, -3, 0, 1e3]
    stats = moments(values)
    centred = values - values.mean(axis=0)
    np.testing.assert_allclose(stats.mean[0], values.mean(axis=0), rtol=1e-13)
    np.testing.assert_allclose(stats.scatter[0], centred.T @ centred, rtol=1e-11, atol=1e-9)
    assert np.array_equal(stats.scatter[0], stats.scatter[0].T)


def _counter_data(values, names=None):
    frame = pd.DataFrame(values, columns=names or [f"c{j}" for j in range(values.shape[1])])
    data, _ = encode_fit(frame, allow_continuous=True, allow_missing=True)
    return data


@pytest.mark.parametrize("bad", [np.nan, "nan-and-inf"])
def test_counter_refuses_missing_cells_naming_the_first_column(bad):
    rng = np.random.default_rng(2)
    values = rng.normal(size=(50, 4))
    values[7, 2] = np.nan
    values[3, 3] = np.nan
    if bad == "nan-and-inf":  # a NaN sum from inf - inf must not hide the NaN column
        values[1, 1], values[2, 1] = 1e308, -1e308
        values[4, 1] = 1e308
    data = _counter_data(values)
    with pytest.raises(ValueError, match="Column 'c2' has missing cells"):
        MomentCounter(data)


def test_counter_accepts_columns_whose_sum_overflows():
    # the quick check (a column sum) is NaN here (inf - inf), the full scan finds no NaN
    values = np.array([[1e308, 1.0], [1e308, 2.0], [-1e308, 3.5], [-1e308, 0.25], [1.5, 7.0],
                       [2.5, 1.5], [-3.25, 4.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no overflow warning from the quick check)
        data = _counter_data(values)
        counter = MomentCounter(data)
    assert counter.values.shape == (7, 2)


def test_counter_reads_the_data_without_copying_or_changing_it():
    rng = np.random.default_rng(4)
    data = _counter_data(rng.normal(size=(30, 3)))
    before = data.values.copy()
    counter = MomentCounter(data)
    counter.moments_given()
    assert np.shares_memory(counter.values, data.values)  # every column continuous: no copy
    assert np.array_equal(data.values, before)


def test_gaussian_fit_unchanged_by_the_shortcuts():
    # the same data once through the shortcut (unit weights: None) and once through the
    # general path (sample_weight of ones: every sum weighted): the same class, same score
    rng = np.random.default_rng(5)
    n = 600
    a = rng.normal(size=n)
    b = 0.8 * a + rng.normal(size=n)
    c = -0.5 * b + 0.3 * a + rng.normal(size=n)
    d = rng.normal(size=n) + 0.7 * c
    X = pd.DataFrame({"a": a, "b": b, "c": c, "d": d})
    plain = GESStructure(scorer="bic-g").fit(X)
    weighted = GESStructure(scorer="bic-g").fit(X, sample_weight=np.ones(n))
    assert plain.cpdag_ == weighted.cpdag_
    assert plain.score_ == weighted.score_


def _random_cpdag(rng, p):
    from skbn.estimators._ges import _CPDAG

    order = rng.permutation(p)
    edges = [(int(order[i]), int(order[j])) for i in range(p) for j in range(i + 1, p)
             if rng.random() < 0.35]
    return _CPDAG(p).with_dag(edges).completed()


def _graph_key(g):
    return ([sorted(s) for s in g.pa], [sorted(s) for s in g.ch], [sorted(s) for s in g.und],
            g.masks)


def test_ges_operators_on_masks_equal_the_copy_path():
    # inserted / deleted on a completed CPDAG work on its bit masks; the same operator on a
    # copy of the sets (insert / delete, then completed) is the reference. Operators are
    # drawn at random, valid or not (an invalid one may have no consistent extension:
    # both paths then take the kernel's fallback).
    from skbn.estimators._ges import _CPDAG

    rng = np.random.default_rng(6)
    n_checked = 0
    for _ in range(400):
        p = int(rng.integers(3, 9))
        g = _random_cpdag(rng, p)
        assert g.masks is not None
        x, y = (int(v) for v in rng.choice(p, 2, replace=False))
        if not g.adj(x, y):
            subset = tuple(sorted(int(w) for w in g.und[y] if rng.random() < 0.5))
            fast = g.inserted(x, y, subset)
            slow = g.copy()
            slow.insert(x, y, subset)
        elif y in g.pa[x]:
            continue
        else:
            na = sorted(g.und[y] & (g.pa[x] | g.ch[x] | g.und[x]))
            subset = tuple(w for w in na if rng.random() < 0.5)
            fast = g.deleted(x, y, subset)
            slow = g.copy()
            slow.delete(x, y, subset)
        slow = slow.completed()
        assert type(fast) is _CPDAG
        assert _graph_key(fast) == _graph_key(slow)
        n_checked += 1
    assert n_checked > 200


def _structure_learners():
    import skbn
    import skbn.estimators
    from skbn.estimators._base import _BaseStructureLearner

    found = {}
    for module in (skbn, skbn.estimators):
        for name in getattr(module, "__all__", dir(module)):
            value = getattr(module, name, None)
            if isinstance(value, type) and issubclass(value, _BaseStructureLearner):
                found[value.__name__] = value
    return sorted(found.values(), key=lambda cls: cls.__name__)


def test_every_default_parameter_satisfies_its_constraints():
    # fit's validation skips the parameters that still hold their defaults: this is what
    # makes that sound, for every structure learner
    from skbn.utils._sklearn_compat import validate_parameter_constraints

    learners = _structure_learners()
    assert len(learners) >= 8
    for cls in learners:
        validate_parameter_constraints(cls._parameter_constraints, cls().get_params(deep=False),
                                       cls.__name__)


@pytest.mark.parametrize("param, value, match", [
    ("max_iter", -1, "max_iter"), ("phases", "forward-only", "phases"),
    ("max_subset_size", 1.5, "max_subset_size"), ("verbose", "loud", "verbose"),
])
def test_a_changed_parameter_is_still_validated(param, value, match):
    X = pd.DataFrame(np.random.default_rng(0).normal(size=(50, 3)), columns=list("abc"))
    with pytest.raises(ValueError, match=match):
        GESStructure(**{param: value}).fit(X)


@pytest.mark.parametrize("cell, message", [
    (np.nan, "Input X contains NaN in column 'b'"),
    (np.inf, "Input X contains infinity in column 'b'"),
    (-np.inf, "Input X contains infinity in column 'b'"),
])
def test_encoder_refuses_a_bad_cell_naming_its_column(cell, message):
    rng = np.random.default_rng(7)
    X = pd.DataFrame(rng.normal(size=(200, 3)), columns=list("abc"))
    X.iloc[150, 1] = cell
    with pytest.raises(ValueError, match=message):
        GESStructure(scorer="bic-g").fit(X)


@pytest.mark.parametrize("layout", ["frame", "F order", "C order", "float32", "weights", "mixed"])
def test_one_group_moments_reuse_the_encoders_column_sums_only_for_their_own_array(layout):
    # encode_fit's finiteness check sums the columns of a column-major float block (a
    # row-major array of measured columns copied to column-major order first): the
    # one-group moments start from those sums (the same np.add.reduce of the same array),
    # the same bits as summing again; data with other values (rows taken, weights, a
    # discrete column) sum their own
    from dataclasses import replace

    from skbn._data import ColumnSums

    rng = np.random.default_rng(12)
    values = rng.normal(size=(3000, 5)) * np.logspace(-6, 6, 5) + 1e6
    X = {"frame": pd.DataFrame(values), "F order": np.asfortranarray(values), "C order": values,
         "float32": pd.DataFrame(rng.normal(size=(3000, 5)).astype(np.float32)),
         "weights": pd.DataFrame(values),
         "mixed": pd.DataFrame(values).assign(k=rng.integers(0, 3, size=3000))}[layout]
    weights = rng.uniform(0.5, 2.0, size=3000) if layout == "weights" else None
    data, _ = encode_fit(X, allow_continuous=True, weights=weights)
    summed = layout in ("frame", "F order", "C order", "float32", "weights")
    assert (data.value_sums is not None) == summed
    if summed:
        assert data.value_sums.of(data.values).tobytes() == np.add.reduce(data.values, axis=0).tobytes()
        assert data.value_sums.of(data.values.copy()) is None
    counter = MomentCounter(data)
    assert (counter._sums is not None) == summed  # (with weights the moments sum the weighted values)
    fresh = MomentCounter(replace(data, value_sums=None))
    assert _bits(counter.moments_given()) == _bits(fresh.moments_given())
    # rows taken: new values, the sums of the whole array not read
    keep = slice(0, 2000)
    sub = replace(data, codes=data.codes[keep], values=data.values[keep],
                  weights=None if weights is None else weights[keep])
    assert MomentCounter(sub)._sums is None
    assert _bits(MomentCounter(sub).moments_given()) == _bits(
        moments(data.values[keep][:, counter.continuous], None if weights is None else weights[keep],
                order=counter.name_order()))
    # wrong sums given for another array are never read
    wrong = replace(data, value_sums=ColumnSums(data.values.copy(), np.zeros(data.values.shape[1])))
    assert _bits(MomentCounter(wrong).moments_given()) == _bits(fresh.moments_given())


def test_selected_moments_carry_the_unit_scatter_bit_for_bit():
    # Moments.select selects an already computed unit-diagonal scatter instead of scaling
    # again: the same values as scaling the selected scatter (a flat column's scale 1 too)
    from skbn._counting._moments import _scaled

    rng = np.random.default_rng(13)
    values = rng.normal(size=(500, 6)) * np.logspace(-5, 5, 6) + 1e3
    values[:, 2] = 7.5  # no spread: scatter 0, scale 1
    stats = moments(values)
    for columns in ([5, 0, 3, 2, 1, 4], [4, 2], [1]):
        fresh = stats.select(columns)
        assert "unit" not in vars(fresh)  # (not read on the source: computed when read)
        d, scaled = _scaled(fresh.scatter)
        _ = stats.unit
        carried = stats.select(columns)
        assert _bits(carried) == _bits(fresh)
        assert carried.unit[0].tobytes() == d.tobytes() and carried.unit[1].tobytes() == scaled.tobytes()
        del stats.__dict__["unit"]


def test_encoder_keeps_columns_whose_sum_overflows():
    # the encoder's quick finiteness check is a column sum: one that overflows (finite
    # values near the largest float) reads the cells, and the column stays continuous
    rng = np.random.default_rng(8)
    big = rng.uniform(0.5, 0.9, size=300) * 1.7e308
    X = pd.DataFrame({"a": big, "b": rng.normal(size=300)})
    data, states = encode_fit(X, allow_continuous=True, column_types="continuous")  # (whole numbers)
    assert states == [None, None]
    assert np.array_equal(data.values[:, 0], big)


def test_a_class_reached_on_masks_builds_its_sets_when_read_or_changed():
    from skbn.estimators._ges import _CPDAG

    g = _CPDAG(4).with_dag([(0, 1), (2, 1)]).completed()  # the v-structure 0 -> 1 <- 2
    lazy = g.inserted(3, 1, ())  # 3 -> 1 joins it: its sets are not built yet
    assert "pa" not in vars(lazy)
    assert [sorted(s) for s in lazy.pa] == [[], [0, 2, 3], [], []]
    lazy = g.inserted(3, 1, ())
    lazy.delete(0, 1, ())  # changing the sets builds them first, then forgets the masks
    assert lazy.masks is None
    assert [sorted(s) for s in lazy.pa] == [[], [2, 3], [], []]
    assert [sorted(s) for s in lazy.ch] == [[], [], [1], [1]]
    with pytest.raises(AttributeError, match="no attribute 'targets'"):
        lazy.targets  # noqa: B018


def test_encoder_reads_a_float_frame_without_copying_and_never_writes_it():
    rng = np.random.default_rng(9)
    X = pd.DataFrame(rng.normal(size=(300, 4)), columns=["b", "a", "d c", "x.y"])
    before = X.copy()
    data, states = encode_fit(X, allow_continuous=True)
    assert states == [None] * 4
    assert data.values.flags.f_contiguous
    assert np.array_equal(data.values, X.to_numpy())
    assert not data.values.flags.writeable  # (a view of X: a write would fail, not change X)
    model = GESStructure(scorer="bic-g").fit(X)  # (columns permuted to name order inside)
    pd.testing.assert_frame_equal(X, before)
    # a float32 frame and a frame of one float64 block plus an integer column are converted
    data32, _ = encode_fit(X.astype(np.float32), allow_continuous=True)
    assert np.array_equal(data32.values, X.astype(np.float32).to_numpy().astype(np.float64))
    mixed = X.assign(k=rng.integers(0, 3, size=300))
    data_mixed, _ = encode_fit(mixed, allow_continuous=True)
    assert np.array_equal(data_mixed.values[:, :4], X.to_numpy()) and not data_mixed.values[:, 4].any()
    assert model.score_ == GESStructure(scorer="bic-g").fit(X.copy()).score_


def _array_cases():
    rng = np.random.default_rng(10)
    values = rng.normal(size=(300, 4))
    whole = values.copy()
    whole[:, 2] = np.round(whole[:, 2] * 2)  # a whole-valued float column: discrete by the rule
    few = values.copy()
    few[:, 1] = np.repeat([0.5, 1.5, 2.5, 3.5], 75)  # continuous with few values: a warning
    missing = values.copy()
    missing[7, 3] = np.nan
    return {"C order": values, "F order": np.asfortranarray(values), "float32": values.astype(np.float32),
            "strided": values[::2, ::-1], "whole column": whole, "few values": few, "missing": missing}


@pytest.mark.parametrize("case", sorted(_array_cases()))
def test_encoder_reads_a_float_array_as_the_frame_of_its_columns(case):
    # a 2-D float array takes the block path of a float frame: the same states, codes,
    # values (bit for bit), warnings and errors as the DataFrame of its columns, and the
    # caller's array is neither written nor made read-only
    X = _array_cases()[case]
    before, writeable = X.copy(), X.flags.writeable

    def outcome(data):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                encoded, states = encode_fit(data, allow_continuous=True, allow_missing=case == "missing")
            except ValueError as error:
                return "error", str(error), []
        values = None if encoded.values is None else encoded.values.tobytes()
        return (states, encoded.codes.tobytes(), encoded.codes.dtype, values, encoded.names,
                [str(w.message) for w in caught])

    assert outcome(X) == outcome(pd.DataFrame(X))
    assert np.array_equal(X, before, equal_nan=True) and X.flags.writeable == writeable
    with pytest.raises(ValueError, match="infinity in column 1"):
        bad = np.array(X, dtype=np.float64)
        bad[5, 1] = np.inf
        encode_fit(bad, allow_continuous=True)


def test_a_row_major_array_is_checked_as_its_frame_and_fits_as_its_frame():
    # a numpy array (row-major) of measured columns is copied to column-major order and
    # checked for NaN and infinity by its column sums; with a whole-valued column (not
    # every column kept) it is checked by one sum of every cell; when the sums are not
    # finite every cell is read, and the errors name the same column
    rng = np.random.default_rng(12)
    values = rng.normal(size=(400, 5)) * np.logspace(-3, 3, 5) + 10.0
    frame = pd.DataFrame(values, columns=[f"x{j}" for j in range(5)])
    assert values.flags.c_contiguous and not values.flags.f_contiguous
    by_array = GESStructure(scorer="bic-g").fit(values)
    by_frame = GESStructure(scorer="bic-g").fit(frame)
    assert float(by_array.score_).hex() == float(by_frame.score_).hex()
    assert [(int(p), int(c)) for p, c in by_array.edges_] == [
        (int(p[1:]), int(c[1:])) for p, c in by_frame.edges_]
    with_codes = values.copy()
    with_codes[:, 0] = rng.integers(0, 3, size=400)  # (discrete: the block stays row-major)
    infinity = "infinity in column 3"
    for base in (values, with_codes):
        for bad, message in ((np.nan, "missing"), (np.inf, infinity), (-np.inf, infinity)):
            broken = base.copy()
            broken[7, 3] = bad
            with pytest.raises(ValueError, match=message):
                encode_fit(broken, allow_continuous=True)
    data, states = encode_fit(with_codes, allow_continuous=True)
    assert states[0] == [0.0, 1.0, 2.0] and states[1:] == [None] * 4
    assert np.array_equal(data.values[:, 1:], with_codes[:, 1:]) and data.value_sums is None
    huge = values.copy()
    huge[:, 1] = rng.uniform(0.5, 0.9, size=400) * 1.7e308  # (the sum of every cell overflows)
    data, states = encode_fit(huge, allow_continuous=True, column_types="continuous")  # (whole numbers)
    assert states == [None] * 5 and np.array_equal(data.values, huge)


def test_a_column_of_infinities_is_refused_without_a_numpy_warning():
    X = pd.DataFrame({"a": np.random.default_rng(11).normal(size=100), "b": np.r_[[np.inf] * 50, [1.5] * 50]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match="Input X contains infinity in column 'b'"):
            GESStructure(scorer="bic-g").fit(X)


def test_name_ranks_of_text_are_cached_and_equal_the_rule():
    # string names are ranked once per tuple of names (read-only); the rule is that of
    # names of any type: sorted by (group, value), ties by position
    from skbn._data import _sort_key, name_order, name_ranks

    rng = np.random.default_rng(1)
    pool = ["a", "B", "b", "a.b", "a b", "é", "e", "None", "NA", "", "10", "9", "Z", "x_1"]
    for _ in range(200):
        names = [pool[k] for k in rng.choice(len(pool), size=int(rng.integers(1, 9)), replace=False)]
        by_rule = sorted(range(len(names)), key=lambda i: (_sort_key(names[i]), i))
        expected = np.empty(len(names), dtype=np.int64)
        expected[by_rule] = np.arange(len(names))
        for given in (names, tuple(names)):
            ranks = name_ranks(given)
            assert ranks.tolist() == expected.tolist() and not ranks.flags.writeable
            order = name_order(given)
            identity = by_rule == list(range(len(names)))
            assert (order is None) if identity else order.tolist() == by_rule
    # names that compare equal across types are not mixed up: True sorts before numbers
    assert name_ranks((0.5, True)).tolist() == [1, 0]
    assert name_ranks((0.5, 1)).tolist() == [0, 1]
    assert name_order((0.5, True)).tolist() == [1, 0] and name_order((0.5, 1)) is None


def test_linear_dependencies_read_from_the_unit_scatter_are_the_same():
    # the determined-columns check passes the moments' unit-diagonal scatter (shared with
    # the search) instead of scaling the scatter again: the same dependences, any order
    from skbn._counting._moments import linear_dependencies

    rng = np.random.default_rng(2)
    for trial in range(40):
        n, k = 200, int(rng.integers(2, 9))
        values = rng.normal(size=(n, k)) * 10.0 ** rng.integers(-3, 4, size=k)
        if k > 2:
            values[:, 2] = 3 * values[:, 0] - values[:, 1]  # (determined)
        if trial % 3 == 0:
            values[:, -1] = 7.0  # (no spread)
        stats = moments(values)
        order = rng.permutation(k)
        assert (linear_dependencies(stats.scatter[0], order, limit=k, unit=stats.unit[1][0])
                == linear_dependencies(stats.scatter[0], order, limit=k))


def test_a_remembered_valid_parameter_does_not_pass_another_type():
    # fit remembers the scalar values that passed validation, by type and value: 1 and
    # 1.0 equal True, but fit_parameters must be a bool, and each refusal is raised again
    X = pd.DataFrame(np.random.default_rng(0).normal(size=(50, 3)), columns=list("abc"))
    GESStructure(fit_parameters=True).fit(X)
    for _ in range(2):
        for value in (1, 1.0):
            with pytest.raises(ValueError, match="'fit_parameters' parameter of GESStructure must be"):
                GESStructure(fit_parameters=value).fit(X)
    with pytest.raises(ValueError, match="'max_iter' parameter of GESStructure must be"):
        GESStructure(max_iter=-1.0).fit(X)


def test_default_knowledge_is_parsed_once_and_equals_the_general_parse():
    # a learner without knowledge parameters shares one parse per set of string column
    # names (frozen, read-only arrays): the same as the general parse, field by field
    from skbn.knowledge import _parse_knowledge, parse_knowledge

    names = ("b", "a.x", "c d", "None")
    for continuous in (None, np.ones(4, bool), np.array([True, False, True, False])):
        shared = parse_knowledge(names, continuous=continuous)
        assert parse_knowledge(list(names), white_list=[], continuous=continuous) is shared
        general = _parse_knowledge(names, (), (), None, None, None, continuous)
        assert shared is not general
        for field in ("required", "forbidden"):
            assert np.array_equal(getattr(shared, field), getattr(general, field))
            assert not getattr(shared, field).flags.writeable
        assert (shared.max_indegree, shared.start, shared.names) == (general.max_indegree, None, names)
    # knowledge given, or names that are not all strings: parsed every time
    assert parse_knowledge(names, max_indegree=2) is not parse_knowledge(names, max_indegree=2)
    assert parse_knowledge((0, 1)) is not parse_knowledge((0, 1))
    assert parse_knowledge((1, 2)).names == (1, 2) and parse_knowledge((True, 2)).names == (True, 2)


def test_wide_default_knowledge_is_not_kept():
    # the shared default parse holds two p x p matrices: only small column sets are kept
    from skbn.knowledge import _SHARED_COLUMNS, parse_knowledge

    wide = tuple(f"x{i}" for i in range(_SHARED_COLUMNS + 1))
    assert parse_knowledge(wide) is not parse_knowledge(wide)
    assert parse_knowledge(wide[:-1]) is parse_knowledge(wide[:-1])



@pytest.mark.parametrize("columns", [
    pd.Index(["b", "a", "é", "中文", ""], dtype="str"),  # pandas 3's default: Arrow-backed
    pd.Index(["x", "y"], dtype="string[pyarrow]"),
    pd.Index(["x", None], dtype="str"),  # a missing name: NaN, as tolist gives it
    pd.Index(["x", pd.NA], dtype="string[pyarrow]"),
    pd.Index(["x", "y"], dtype="string[python]"),
    pd.Index(["x", "y"], dtype=object),
    pd.Index([3, 1]),
    pd.Index([1.5, 2.5]),
], ids=lambda columns: repr(columns.dtype))
def test_column_names_equal_tolist(columns):
    # the Arrow protocol's strings for Arrow-backed names, tolist for anything else
    X = pd.DataFrame(np.random.default_rng(0).normal(size=(50, len(columns))), columns=columns)
    names, expected = column_names(X), X.columns.tolist()
    assert [type(name) for name in names] == [type(name) for name in expected]
    assert [str(name) for name in names] == [str(name) for name in expected]
    if all(type(name) is str for name in expected):  # (a fit records them as they are)
        fitted = GESStructure(scorer="bic-g", fit_parameters=False).fit(X)
        assert fitted.feature_names_in_.tolist() == expected
        assert list(fitted.cpdag_.nodes) == expected


@pytest.mark.parametrize("X", [
    np.random.default_rng(13).normal(size=(60, 3)),
    np.asfortranarray(np.random.default_rng(13).normal(size=(60, 3))),
    np.random.default_rng(13).integers(0, 3, size=(60, 4)),
    np.random.default_rng(13).normal(size=(60, 3)).tolist(),  # (validate_data's own path)
], ids=["C order", "F order", "integers", "list"])
def test_features_of_an_array_are_recorded_as_validate_data_records_them(X):
    # a numpy array skips validate_data: the same n_features_in_ and no feature_names_in_,
    # also when the earlier fit was on a named frame
    from sklearn.utils.validation import validate_data

    reference = GESStructure()
    validate_data(reference, X, skip_check_array=True, reset=True)
    model = GESStructure(scorer="bic-g" if np.asarray(X).dtype.kind == "f" else "bic")
    model.fit(pd.DataFrame(np.asarray(X), columns=[f"c{j}" for j in range(np.shape(X)[1])]))
    assert hasattr(model, "feature_names_in_")
    model.fit(X)
    assert model.n_features_in_ == reference.n_features_in_ == np.shape(X)[1]
    assert type(model.n_features_in_) is type(reference.n_features_in_)
    assert not hasattr(model, "feature_names_in_") and not hasattr(reference, "feature_names_in_")
