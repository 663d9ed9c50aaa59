"""PC's tests grouped by conditioning set against one table per test.

The skeleton's levels run by side variable (``_by_side``: each set's strata counted once
for all the pairs that test it) and the collider step by set (``_by_set``); both must give,
for every test, the p-value and decision bits of counting that test's own table and
testing it (``contingency_tables`` + ``BaseCITest.test``), stop each pair at the same first
independence, and give the same skeleton, separating sets and decisions as running the
sets one pair at a time (``_streamed``).
"""

from dataclasses import replace
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

import skbn._counting._stratified as stratified
import skbn._engines._ci_runner as ci_runner
from skbn._counting._tables import contingency_tables
from skbn._data import encode_fit
from skbn._engines._skeleton import _edge_subsets, skeleton
from skbn.citests import BayesFactor, ChiSquare, GTest
from skbn.estimators._pc import PCStructure


def _frame(n_rows=300, n_columns=9, seed=0):
    """Noisy copies of one hidden three-state column (PC reaches sets of 3 and more), with
    states named "None" and "NA" and column names with dots and spaces; the rows sorted by
    one variable."""
    rng = np.random.default_rng(seed)
    hidden = rng.integers(0, 3, n_rows)
    states = np.array(["None", "NA", "a.b"])
    frame = pd.DataFrame({
        f"v.{k} x": states[np.where(rng.random(n_rows) < 0.6, hidden, rng.integers(0, 3, n_rows))]
        for k in range(n_columns)
    })
    frame["two"] = np.where(rng.random(n_rows) < 0.7, hidden > 0, rng.random(n_rows) < 0.5).astype(str)
    return frame.sort_values("v.0 x", kind="stable").reset_index(drop=True)


def _data(weighted):
    data, _ = encode_fit(_frame())
    if weighted:
        data = replace(data, weights=np.random.default_rng(3).uniform(0.2, 2.0, data.n_samples))
    return data


def _one_test(ci_test, data, x, y, subset):
    table = contingency_tables(data.codes, data.cardinalities, x, y, subset, data.weights)
    return ci_test.test(table, int(np.prod([data.cardinalities[z] for z in subset])))


def _dense_adjacency(p, seed, density=0.75):
    rng = np.random.default_rng(seed)
    adjacency = [set() for _ in range(p)]
    for x, y in combinations(range(p), 2):
        if rng.random() < density:
            adjacency[x].add(y)
            adjacency[y].add(x)
    return [sorted(a) for a in adjacency]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ci_test", [ChiSquare(alpha=0.3, min_samples_per_dof=0), GTest(alpha=0.3),
                                     BayesFactor(threshold=40.0)])
@pytest.mark.parametrize("size", [2, 3])
def test_by_side_equals_one_table_per_test(ci_test, weighted, size, monkeypatch):
    # every pair's sets in the order of _edge_subsets, each p-value and decision those of
    # its own table, stopping at the first independence; lumping from 8 strata on, so
    # the lumped strata are exercised (unweighted chi-square and G), rounds of 4, 8, ...
    # sets and a 1,000-cell flush bound (several flushes per round), n_jobs 1 and 2
    monkeypatch.setattr(stratified, "LUMP_MIN_STRATA", 8)
    data = _data(weighted)
    frozen = _dense_adjacency(data.n_variables, seed=size)
    pairs = [(x, y) for x in range(data.n_variables) for y in frozen[x] if x < y]
    expected = []
    for x, y in pairs:
        pvalues, flags, ruled = [], [], []
        for subset in _edge_subsets(frozen, x, y, [size]):
            result = _one_test(ci_test, data, x, y, subset)
            pvalues.append(result.pvalue)
            flags.append(bool(result.independent))
            ruled.append(result.power_rule)
            if flags[-1]:
                break
        expected.append((pvalues, flags, ruled))
    assert any(f and f[-1] for _, f, _ in expected) and any(f and not f[-1] for _, f, _ in expected)
    assert any(len(f) > 8 for _, f, _ in expected)  # pairs past the first rounds
    options = {"lump_degenerate": ci_runner._lumps_strata(ci_test)}
    for n_jobs in (1, 2):
        got = ci_runner._by_side(data, ci_test, frozen, pairs, size, n_jobs=n_jobs,
                                 counter_options=options, max_round_cells=1000)
        assert [f for _, f, _ in got] == [f for _, f, _ in expected]
        assert [r for _, _, r in got] == [r for _, _, r in expected]  # the power rule's tests
        for (pv, _, _), (ref, _, _) in zip(got, expected):
            np.testing.assert_array_equal(pv, ref)  # bit for bit


@pytest.mark.parametrize("weighted", [False, True])
def test_by_set_equals_one_table_per_test(weighted, monkeypatch):
    # the collider step's units (every set, no stopping) grouped by set: every p-value
    # and decision of its own table, sets shared by several pairs and of sizes 0 to 4
    monkeypatch.setattr(stratified, "LUMP_MIN_STRATA", 8)
    monkeypatch.setattr(ci_runner, "_MIN_GROUPED_TESTS", 0)  # group these few tests
    monkeypatch.setattr(ci_runner, "_MIN_PAIRS_PER_SET", 1)
    grouped = []
    by_set = ci_runner._by_set
    monkeypatch.setattr(ci_runner, "_by_set", lambda *args: grouped.append(by_set(*args)) or grouped[-1])
    data = _data(weighted)
    ci_test = ChiSquare(alpha=0.2)
    rng = np.random.default_rng(4)
    units = []
    for x, y in [(0, 3), (0, 5), (2, 7), (1, 9), (4, 6)]:
        others = [v for v in range(data.n_variables) if v not in (x, y)]
        subsets = [()] + [tuple(sorted(int(v) for v in rng.choice(others, size=k, replace=False)))
                          for k in (1, 1, 2, 2, 3, 4, 4)] + [(8,), (8, 9) if 9 not in (x, y) else (8,)]
        units.append((x, y, list(dict.fromkeys(subsets))))
    with ci_runner.CITestRunner(data, ci_test, max_round_cells=500) as runner:
        got = runner.run(units, False)
    assert len(grouped) == 1
    for (x, y, subsets), (pvalues, flags, ruled) in zip(units, got):
        results = [_one_test(ci_test, data, x, y, s) for s in subsets]
        np.testing.assert_array_equal(pvalues, [r.pvalue for r in results])
        assert flags == [bool(r.independent) for r in results]
        assert ruled == [r.power_rule for r in results]


def test_a_group_worth_grouping_is_grouped_in_every_worker(monkeypatch):
    # CITestRunner.run decides for all the units before sharing them out between the
    # workers, so each worker's half, below the threshold alone, is still grouped by set
    # (a 33,000-test collider group of a 1,000-variable pedigree split in two halves of
    # 16,600 ran one table at a time: 4.9 s instead of 1.9 s); same results either way
    import joblib

    data = _data(False)
    ci_test = ChiSquare(alpha=0.2)
    sets = [(), (1,), (2,), (1, 2), (4,), (2, 4), (1, 2, 4)]
    pairs = [(0, 3), (0, 5), (3, 6), (5, 7)]
    units = [(x, y, [s for s in sets if x not in s and y not in s]) for x, y in pairs]
    n_tests = sum(len(subsets) for _, _, subsets in units)
    monkeypatch.setattr(ci_runner, "_MIN_GROUPED_TESTS", n_tests)  # the whole group only
    monkeypatch.setattr(ci_runner, "_MIN_PAIRS_PER_SET", 1)
    shares = []
    by_set = ci_runner._by_set
    monkeypatch.setattr(ci_runner, "_by_set",
                        lambda *args: shares.append(sum(len(u[2]) for u in args[2])) or by_set(*args))
    with joblib.parallel_backend("threading"):
        with ci_runner.CITestRunner(data, ci_test, n_jobs=2, min_parallel_work=0) as runner:
            got = runner.run(units, False)
    assert len(shares) == 2 and sum(shares) == n_tests and max(shares) < n_tests
    for (x, y, subsets), (pvalues, flags, ruled) in zip(units, got):
        results = [_one_test(ci_test, data, x, y, s) for s in subsets]
        np.testing.assert_array_equal(pvalues, [r.pvalue for r in results])
        assert flags == [bool(r.independent) for r in results]
        assert ruled == [r.power_rule for r in results]


class _OneByOne(ci_runner.CITestRunner):
    """The levels as units of one pair each (no grouping by side)."""

    def level_tests(self, adjacency, pairs, size, progress=None):
        units = ((x, y, _edge_subsets(adjacency, x, y, [size])) for x, y in pairs)
        yield from ci_runner._streamed(self, units, True, None, progress)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_skeleton_by_side_equals_one_pair_at_a_time(n_jobs, monkeypatch):
    # the whole skeleton: adjacencies, separating sets, number of tests and every test's
    # decision, grouped (in joblib workers with n_jobs=2: min_parallel_work=0) or not
    monkeypatch.setattr(ci_runner, "_MIN_GROUPED_TESTS", 0)  # every level grouped
    monkeypatch.setattr(ci_runner, "_MIN_PAIRS_PER_SET", 0)
    sizes = []
    by_side = ci_runner._by_side
    monkeypatch.setattr(ci_runner, "_by_side", lambda *args: sizes.append(args[4]) or by_side(*args))
    data, _ = encode_fit(_frame(n_rows=400, n_columns=10, seed=1))
    ci_test = ChiSquare()
    with ci_runner.CITestRunner(data, ci_test, n_jobs=n_jobs, min_parallel_work=0) as runner:
        grouped = skeleton(runner, data.n_variables)
    with _OneByOne(data, ci_test) as runner:
        reference = skeleton(runner, data.n_variables)
    assert max(len(s) for s in reference[1].values()) >= 2  # sets of two or more
    assert sizes[:3] == [1, 2, 3]
    assert grouped[0] == reference[0] and grouped[1] == reference[1] and grouped[2] == reference[2]
    assert dict(grouped[3]) == dict(reference[3])


def test_available_case_falls_back_to_one_pair_at_a_time(monkeypatch):
    # missing cells: the levels run as units (test-wise deletion), never by side or set
    frame = _frame(n_rows=300, seed=2)
    frame.iloc[::7, 1] = np.nan

    def refuse(*args, **kwargs):
        raise AssertionError("grouped path on missing cells")

    monkeypatch.setattr(ci_runner, "_by_side", refuse)
    monkeypatch.setattr(ci_runner, "_by_set", refuse)
    model = PCStructure(missing="available_case", fit_parameters=False).fit(frame)
    assert model.n_tests_ > frame.shape[1] * (frame.shape[1] - 1) // 2  # level 1 and more ran


def test_lumping_keeps_strata_with_more_than_127_filled_cells(monkeypatch):
    # two 12-state variables (144 cells) and a 200-state conditioning variable whose first
    # state holds 1,500 of 2,000 rows (about 140 filled cells: an int8 counter wrapped to
    # a negative count there and lumped the stratum away): lumped tables, alone and
    # stacked, give the full table's statistic
    from skbn._counting import StratifiedCounter

    monkeypatch.setattr(stratified, "LUMP_MIN_STRATA", 2)
    rng = np.random.default_rng(5)
    n = 2000
    z = np.where(np.arange(n) < 1500, 0, rng.integers(1, 200, n))
    frame = pd.DataFrame({"x": rng.integers(0, 12, n), "y": rng.integers(0, 12, n), "z": z}).astype(str)
    data, _ = encode_fit(frame)
    x, y, zc = (list(frame.columns).index(c) for c in ("x", "y", "z"))
    counter = StratifiedCounter(data, lump_degenerate=True)
    full = contingency_tables(data.codes, data.cardinalities, x, y, (zc,))
    assert (full > 0).sum(axis=(1, 2)).max() >= 128
    ci_test = ChiSquare()
    want = ci_test.test(full, data.cardinalities[zc])
    block, declared = counter.tables(x, y, (zc,))
    stacked, _, _ = counter.stacked_tables((zc,), [(x, y)])
    for tables in (block, stacked.T):
        got = ci_test.test(tables.reshape(-1, 12, 12), declared)
        assert (got.statistic, got.pvalue, got.dof) == (want.statistic, want.pvalue, want.dof)
