"""Large, sparse conditioning sets: the fast paths against one table per test.

Sets of many three-state variables on few rows have mostly empty or one-row strata. The
grouped counting (:meth:`StratifiedCounter.stacked_tables`: strata kept by their largest
cell, lumps sized from the set's strata) and the cell-major test kernels (cache-sized
passes, each stratum's cells summed in numpy's pairwise order) must give, for every test,
the statistic, p-value, degrees of freedom and decision bits of counting that test's own
full table (``contingency_tables``) and testing it alone.
"""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2_contingency
from test_pc_grouped import _one_test

import skbn._counting._stratified as stratified
import skbn.citests as citests
from skbn._counting import StratifiedCounter
from skbn._counting._tables import contingency_tables
from skbn._data import encode_fit
from skbn.citests import BayesFactor, ChiSquare, GTest


def _frame(n_rows, n_columns=12, seed=0):
    """Three-state noisy copies of one hidden column (states "None", "NA", "a.b"; column
    names with dots and spaces), a row-id-like column whose every state is one row, and
    the rows sorted by the first column."""
    rng = np.random.default_rng(seed)
    hidden = rng.integers(0, 3, n_rows)
    states = np.array(["None", "NA", "a.b"])
    frame = pd.DataFrame({
        f"v.{k} x": states[np.where(rng.random(n_rows) < 0.5, hidden, rng.integers(0, 3, n_rows))]
        for k in range(n_columns)
    })
    frame["row id"] = [f"r{k}" for k in rng.permutation(n_rows)]
    return frame.sort_values("v.0 x", kind="stable").reset_index(drop=True)


def _data(n_rows, weights=None, seed=0):
    data, _ = encode_fit(_frame(n_rows, seed=seed))
    if weights == "fractional":
        data = replace(data, weights=np.random.default_rng(seed).uniform(0.2, 2.0, data.n_samples))
    elif weights == "with zeros":  # rows of weight 0 leave strata empty
        w = np.random.default_rng(seed).integers(0, 3, data.n_samples).astype(float)
        data = replace(data, weights=w)
    return data


def _same(got, want):
    assert got.statistic.tobytes() == np.asarray(want.statistic).tobytes()
    assert got.pvalue.tobytes() == np.asarray(want.pvalue).tobytes()
    assert got.dof.tobytes() == np.asarray(want.dof).tobytes()
    assert bool(got.independent) == bool(want.independent)


@pytest.mark.parametrize("weights", [None, "fractional", "with zeros"])
@pytest.mark.parametrize("ci_test", [ChiSquare(alpha=0.3), GTest(alpha=0.3, min_samples_per_dof=0),
                                     BayesFactor(threshold=5.0)])
@pytest.mark.parametrize("lump", ["forced", "default"])
def test_stacked_tables_equal_one_full_table_per_test(ci_test, weights, lump, monkeypatch):
    # sets of 1 to 8 variables on 150 rows (sets of 5 and more: most strata hold one row),
    # and sets with the row-id column (every stratum one row); several pairs per set,
    # sharing x; forced lumping lumps every set (unweighted chi-square and G)
    if lump == "forced":
        monkeypatch.setattr(stratified, "LUMP_MIN_STRATA", 1)
        monkeypatch.setattr(stratified, "LUMP_ROWS_PER_STRATUM", 10**6)
    data = _data(150, weights)
    row_id = data.n_variables - 1
    assert (np.bincount(data.codes[:, row_id]) == 1).all()
    lumps = ci_test.__class__ in (ChiSquare, GTest) and weights is None
    counter = StratifiedCounter(data, lump_degenerate=lumps)
    rng = np.random.default_rng(1)
    singletons = all_singletons = n_lumped = 0
    for size in range(1, 9):
        for _ in range(6):
            subset = tuple(sorted(int(v) for v in rng.choice(np.arange(3, 12), size, replace=False)))
            if size >= 7:
                subset = (*subset[:-1], row_id)
            pairs = [(0, 1), (0, 2), (1, 2)]
            tables, widths, declared = counter.stacked_tables(subset, pairs)
            assert widths.sum() == tables.shape[1]
            owner = np.repeat(np.arange(len(pairs)), widths)
            batch = ci_test.test_batch(tables.reshape(3, 3, -1), owner, len(pairs), [declared] * len(pairs),
                                       cell_major=True)
            rows = contingency_tables(data.codes, data.cardinalities, 0, 1, subset)  # unweighted
            singletons += bool((rows.sum(axis=(1, 2)) == 1).any())
            all_singletons += bool((rows.sum(axis=(1, 2)) == 1).all())
            n_full = 0
            for k, (x, y) in enumerate(pairs):
                want = _one_test(ci_test, data, x, y, subset)
                n_full += len(contingency_tables(data.codes, data.cardinalities, x, y, subset, data.weights))
                _same(citests.CITestBatchResult(*(np.asarray(a)[k:k + 1] for a in (
                    batch.statistic, batch.pvalue, batch.dof, batch.independent))), want)
                block, _ = counter.tables(x, y, subset)
                keep = block.reshape(len(block), -1).sum(axis=1) > 0
                _same(ci_test.test_batch(block[keep].reshape(-1, 3, 3), np.zeros(int(keep.sum()), int),
                                         1, [declared]), want)
            n_lumped += tables.shape[1] < n_full
    assert singletons >= 20 and all_singletons >= 6
    assert (n_lumped > 0) == (lumps and lump == "forced")


@pytest.mark.parametrize("ci_test", [ChiSquare(alpha=0.3), GTest(alpha=0.3, min_samples_per_dof=0)])
def test_lumped_sets_passing_every_shared_stratum_give_the_same_bits(ci_test, monkeypatch):
    # a lumped set whose strata hold many rows passes all its strata of two or more rows
    # (those with one non-empty cell add exactly nothing), else only those with two or
    # more non-empty cells: both, on every set, give each test's statistic, p-value,
    # degrees of freedom and decision bits of its own full table
    monkeypatch.setattr(stratified, "LUMP_MIN_STRATA", 1)
    monkeypatch.setattr(stratified, "LUMP_ROWS_PER_STRATUM", 10**6)
    data = _data(300, seed=3)
    rng = np.random.default_rng(4)
    pairs = [(0, 1), (0, 2), (1, 2), (2, 5)]
    widths = {}
    for size in range(1, 8):
        for _ in range(4):
            subset = tuple(sorted(int(v) for v in rng.choice(np.arange(6, 12), min(size, 6), replace=False)))
            if size == 7:
                subset = (*subset[:-1], data.n_variables - 1)  # every stratum one row
            results = []
            for keep_all_rows in (0, 10**9):  # every set passes all strata / filters them
                monkeypatch.setattr(stratified, "_KEEP_ALL_ROWS", keep_all_rows)
                counter = StratifiedCounter(data, lump_degenerate=True)
                tables, width, declared = counter.stacked_tables(subset, pairs)
                widths.setdefault(keep_all_rows, []).append(tables.shape[1])
                # every row once per pair: the sample size of the power rule
                owner = np.repeat(np.arange(len(pairs)), width)
                totals = np.bincount(owner, weights=tables.sum(axis=0))
                assert totals.tolist() == [data.n_samples] * len(pairs)
                results.append(ci_test.test_batch(tables.reshape(3, 3, -1), owner,
                                                  len(pairs), [declared] * len(pairs), cell_major=True))
            for k, (x, y) in enumerate(pairs):
                want = _one_test(ci_test, data, x, y, subset)
                for batch in results:
                    _same(citests.CITestBatchResult(*(np.asarray(a)[k:k + 1] for a in (
                        batch.statistic, batch.pvalue, batch.dof, batch.independent))), want)
    # the two ways passed different strata (strata with one non-empty cell kept or not)
    assert sum(widths[0]) > sum(widths[10**9])


def test_all_one_row_strata_lump_to_nothing_but_the_sample_size(monkeypatch):
    # given the row-id column every stratum holds one row: the lumped tables are one lump
    # per pair holding every row, the statistic 0, no degrees of freedom, p-value 1
    monkeypatch.setattr(stratified, "LUMP_MIN_STRATA", 1)
    data = _data(200)
    row_id = data.n_variables - 1
    counter = StratifiedCounter(data, lump_degenerate=True)
    tables, widths, declared = counter.stacked_tables((3, row_id), [(0, 1), (0, 2)])
    # cell-major: one stratum per pair, all 200 rows in its first cell
    np.testing.assert_array_equal(widths, [1, 1])
    np.testing.assert_array_equal(tables, [[200, 200]] + [[0, 0]] * 8)
    tables = tables.reshape(3, 3, 2)
    for ci_test in (ChiSquare(min_samples_per_dof=0), GTest(min_samples_per_dof=0)):
        batch = ci_test.test_batch(tables, [0, 1], 2, [declared] * 2, cell_major=True)
        np.testing.assert_array_equal(batch.statistic, 0.0)
        np.testing.assert_array_equal(batch.dof, 0.0)
        np.testing.assert_array_equal(batch.pvalue, 1.0)
        for x, y in ((0, 1), (0, 2)):
            assert _one_test(ci_test, data, x, y, (3, row_id)).pvalue == 1.0


@pytest.mark.parametrize("n_terms", [1, 2, 3, 7, 8, 9, 15, 16, 17, 64, 127, 128, 129, 144, 300, 1000])
def test_pairwise_sum_has_the_bits_of_numpys_reduction(n_terms):
    # the cell-major kernels sum a stratum's cells in numpy's order: the reduction over a
    # contiguous axis of the (K, r_x, r_y) tables, bit for bit, on values of many scales
    rng = np.random.default_rng(n_terms)
    values = rng.random((500, n_terms)) * 10.0 ** rng.uniform(-8, 8, (500, n_terms))
    got = citests._pairwise_sum(np.ascontiguousarray(values.T))
    assert got.tobytes() == np.add.reduce(values, axis=1).tobytes()
    if n_terms % 3 == 0:
        tables = values.reshape(500, 3, n_terms // 3)
        assert got.tobytes() == np.add.reduce(tables, axis=(1, 2)).tobytes()


@pytest.mark.parametrize("shape", [(2, 2), (3, 3), (2, 5), (4, 4), (12, 12), (1, 3)])
@pytest.mark.parametrize("ci_test", [ChiSquare(min_samples_per_dof=0), GTest(min_samples_per_dof=0),
                                     ChiSquare(adjust_dof=False), BayesFactor(ess=2.5)])
def test_kernels_against_the_textbook_per_stratum_and_any_pass_size(ci_test, shape, monkeypatch):
    # sparse strata of many tests stacked in any order: each test's statistic equals the
    # sum of scipy's per-stratum statistic (chi-square, G) or the Dirichlet formula
    # (Bayes factor), and the bits do not depend on the kernel's pass size
    from scipy.special import gammaln

    rng = np.random.default_rng(sum(shape))
    n_strata, n_tests = 3000, 40
    tables = rng.poisson(0.4, (n_strata,) + shape).astype(float)
    tables[::5] *= rng.uniform(0.5, 2.0, (len(tables[::5]),) + shape)  # weighted strata
    group = rng.integers(0, n_tests, n_strata)
    declared = np.full(n_tests, 27.0)
    want = ci_test.test_batch(tables, group, n_tests, declared)
    for pass_size in (1, 7, 1000):
        monkeypatch.setattr(citests, "KERNEL_STRATA", pass_size)
        got = ci_test.test_batch(tables, group, n_tests, declared)
        for a, b in zip((got.statistic, got.pvalue, got.dof), (want.statistic, want.pvalue, want.dof)):
            assert a.tobytes() == b.tobytes()
    reference = np.zeros(n_tests)
    for table, k in zip(tables, group):
        rows, cols = table.sum(axis=1) > 0, table.sum(axis=0) > 0
        if isinstance(ci_test, BayesFactor):
            if table.sum() > 0:
                a = ci_test.ess
                r_x, r_y = shape
                reference[k] += (gammaln(a) - gammaln(a + table.sum())
                                 + np.sum(gammaln(a / r_x + table.sum(axis=1)) - gammaln(a / r_x))
                                 + np.sum(gammaln(a / r_y + table.sum(axis=0)) - gammaln(a / r_y))
                                 - np.sum(gammaln(a / (r_x * r_y) + table) - gammaln(a / (r_x * r_y))))
        elif rows.sum() > 1 and cols.sum() > 1:
            reduced = table[rows][:, cols]
            kind = "log-likelihood" if isinstance(ci_test, GTest) else "pearson"
            reference[k] += chi2_contingency(reduced, correction=False, lambda_=kind)[0]
    if not isinstance(ci_test, BayesFactor):
        reference = np.maximum(reference, 0.0)
    np.testing.assert_allclose(want.statistic, reference, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("shape", [(2, 2), (3, 3), (2, 3), (3, 2), (5, 4)])
@pytest.mark.parametrize("ci_test", [ChiSquare(min_samples_per_dof=0), GTest(), ChiSquare(adjust_dof=False),
                                     BayesFactor(ess=2.5)])
def test_cell_major_tables_give_the_bits_of_stratum_major_ones(ci_test, shape, monkeypatch):
    # the same strata handed over cell-major (contiguous, or a strided view of a larger
    # array, as PC's stacked blocks are not) give every statistic, p-value, dof and
    # decision bit for bit, whatever the kernel's pass size; weighted and integer strata,
    # empty rows and columns, one-cell strata
    rng = np.random.default_rng(shape[0] * 10 + shape[1])
    n_strata, n_tests = 700, 30
    tables = rng.poisson(0.6, (n_strata,) + shape).astype(float)
    tables[::4] *= rng.uniform(0.5, 2.0, (len(tables[::4]),) + shape)
    tables[::7] = 0.0
    tables[::7, 0, 0] = rng.integers(1, 9, len(tables[::7]))
    group = rng.integers(0, n_tests, n_strata)
    declared = np.full(n_tests, 81.0)
    cells = np.ascontiguousarray(np.moveaxis(tables, 0, -1))
    wide = np.zeros(shape + (n_strata + 11,))
    wide[..., 5:5 + n_strata] = cells
    strided = wide[..., 5:5 + n_strata]
    assert not strided.flags.c_contiguous
    for pass_size in (3, 64, citests.KERNEL_STRATA):
        monkeypatch.setattr(citests, "KERNEL_STRATA", pass_size)
        want = ci_test.test_batch(tables, group, n_tests, declared)
        for layout in (cells, strided):
            got = ci_test.test_batch(layout, group, n_tests, declared, cell_major=True)
            for k in range(n_tests):
                _same(citests.CITestBatchResult(*(np.asarray(a)[k:k + 1] for a in (
                    got.statistic, got.pvalue, got.dof, got.independent))),
                    citests.CITestBatchResult(*(np.asarray(a)[k:k + 1] for a in (
                        want.statistic, want.pvalue, want.dof, want.independent))))
    with pytest.raises(ValueError, match="3-dimensional"):
        ci_test.test_batch(cells[0], group, n_tests, declared, cell_major=True)


@pytest.mark.parametrize("weights", [None, "fractional"])
@pytest.mark.parametrize("ci_test", [ChiSquare(alpha=0.3), GTest(alpha=0.3, min_samples_per_dof=0),
                                     BayesFactor(threshold=5.0)])
def test_grouped_by_set_mixed_shapes_equal_one_full_table_per_test(ci_test, weights, monkeypatch):
    # the collider step's path (_by_set): 2- and 3-state pairs in the same rounds (two
    # table shapes per set), sparse sets (lumped for unweighted chi-square and G, every
    # set lumped), sets with the row-id column (all one-row strata), flushed every 2,000
    # cells; every p-value and decision is that of the test's own full table
    import skbn._engines._ci_runner as ci_runner

    monkeypatch.setattr(stratified, "LUMP_MIN_STRATA", 1)
    monkeypatch.setattr(stratified, "LUMP_ROWS_PER_STRATUM", 10**6)
    monkeypatch.setattr(ci_runner, "_MIN_GROUPED_TESTS", 0)
    monkeypatch.setattr(ci_runner, "_MIN_PAIRS_PER_SET", 1)
    frame = _frame(150, seed=3)
    frame["two.  states"] = np.where(frame["v.1 x"] == "NA", "None", "NA")
    data, _ = encode_fit(frame)
    if weights == "fractional":
        data = replace(data, weights=np.random.default_rng(3).uniform(0.2, 2.0, data.n_samples))
    columns = list(frame.columns)
    two, row_id = columns.index("two.  states"), columns.index("row id")
    assert data.cardinalities[two] == 2
    rng = np.random.default_rng(8)
    units = []
    for x, y in [(0, 1), (0, two), (2, 3), (3, two), (1, 4)]:
        others = [v for v in range(3, 12) if v not in (x, y)]
        subsets = [tuple(sorted(int(v) for v in rng.choice(others, k, replace=False)))
                   for k in (2, 3, 5, 7, 7)]
        subsets += [(5, 6, 7, 8), (others[0], row_id)]
        units.append((x, y, list(dict.fromkeys(subsets))))
    lumps = ci_test.__class__ in (ChiSquare, GTest) and weights is None
    counter = StratifiedCounter(data, lump_degenerate=lumps)
    got = ci_runner._by_set(counter, ci_test, units, max_round_cells=2000)
    assert got is not None
    for (x, y, subsets), (pvalues, flags, ruled) in zip(units, got):
        want = [_one_test(ci_test, data, x, y, subset) for subset in subsets]
        assert np.asarray(pvalues).tobytes() == np.asarray([w.pvalue for w in want]).tobytes()
        assert flags == [bool(w.independent) for w in want]
        assert ruled == [w.power_rule for w in want]
