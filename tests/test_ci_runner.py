"""The CI-test runner shared by the constraint-based learners (skbn/_engines/_ci_runner.py)
and PC's skeleton search on it (skbn/_engines/_skeleton.py)."""

import dataclasses
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from conftest import shared_network

from skbn import MMHCStructure
from skbn._data import check_sample_weight, encode_fit
from skbn._engines import _ci_runner
from skbn._engines._ci_runner import CITestRunner
from skbn._engines._skeleton import skeleton
from skbn.citests import ChiSquare, DSeparationOracle, GTest
from skbn.estimators._pc import collider_separating_sets, unshielded_triples
from skbn.graph import d_separated, random_dag


def _reference_pc_stable(nodes, edges):
    """PC-stable's skeleton one test at a time, each test a d-separation query (the
    textbook loop: levels, adjacencies frozen per level, sets from adj(x) - {y} then new
    ones from adj(y) - {x}, lexicographic)."""
    p = len(nodes)
    adjacency = [set(range(p)) - {v} for v in range(p)]
    sepsets, n_tests, level = {}, 0, 0
    while True:
        pairs = [(x, y) for x in range(p) for y in sorted(adjacency[x])
                 if x < y and max(len(adjacency[x]), len(adjacency[y])) - 1 >= level]
        if not pairs:
            return adjacency, sepsets, n_tests
        frozen = [sorted(a) for a in adjacency]
        for x, y in pairs:
            tried = set()
            for a, b in ((x, y), (y, x)):
                for subset in combinations([v for v in frozen[a] if v != b], level):
                    if subset in tried:
                        continue
                    tried.add(subset)
                    n_tests += 1
                    if d_separated(nodes, edges, nodes[x], nodes[y], [nodes[v] for v in subset]):
                        sepsets[(x, y)] = subset
                        adjacency[x].discard(y)
                        adjacency[y].discard(x)
                        break
                if (x, y) in sepsets:
                    break
        level += 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_oracle_gives_the_true_skeleton_and_the_reference_sepsets(seed):
    nodes, edges = random_dag(9, 0.35, random_state=seed, shuffle=True)
    frame = pd.DataFrame(np.random.default_rng(seed).integers(0, 2, size=(20, len(nodes))), columns=nodes)
    data = encode_fit(frame)[0]
    with CITestRunner(data, DSeparationOracle((nodes, edges))) as runner:
        adjacency, sepsets, n_tests, decided = skeleton(runner, len(nodes))
    index = {v: i for i, v in enumerate(nodes)}
    truth = {frozenset((index[a], index[b])) for a, b in edges}
    assert {frozenset((x, y)) for x in range(len(nodes)) for y in adjacency[x]} == truth
    ref_adjacency, ref_sepsets, ref_tests = _reference_pc_stable(nodes, edges)
    assert adjacency == ref_adjacency and sepsets == ref_sepsets and n_tests == ref_tests
    for (x, y), subset in sepsets.items():  # every separating set separates, by definition
        assert d_separated(nodes, edges, nodes[x], nodes[y], [nodes[v] for v in subset])
    assert len(decided) == n_tests and sum(decided.values()) == len(sepsets)


@pytest.fixture(scope="module")
def child_2000():
    return encode_fit(shared_network("child").sample(2000, random_state=0))[0]


def _pc_phases(runner, p, max_cond_vars=None):
    """Skeleton, then the majority rule's extra tests: every result the runner decides."""
    adjacency, sepsets, n_tests, decided = skeleton(runner, p, max_cond_vars=max_cond_vars)
    separating, extra, _ = collider_separating_sets(runner, adjacency, unshielded_triples(adjacency),
                                                 decided, max_cond_vars)
    return adjacency, sepsets, n_tests, decided, separating, extra


def test_same_results_for_one_and_two_workers(child_2000, monkeypatch, tmp_path):
    # every parallel path forced on small data: level-1 Grams by threads, levels >= 2 and
    # the collider tests in process workers on memory-mapped codes (removed on close)
    monkeypatch.setenv("JOBLIB_TEMP_FOLDER", str(tmp_path))
    p = child_2000.n_variables
    one = _pc_phases(CITestRunner(child_2000, ChiSquare(), n_jobs=1), p)
    with CITestRunner(child_2000, ChiSquare(), n_jobs=2, min_parallel_work=0, min_memmap_bytes=0) as runner:
        two = _pc_phases(runner, p)
        assert runner._folder is not None  # the workers did read memory-mapped codes
    assert one == two
    assert one[5] > 0 and len(one[1]) > 100  # collider tests and removals were run
    assert list(tmp_path.iterdir()) == []


def test_bounds_smaller_than_one_table_give_the_same_results(child_2000):
    # groups of 3 sets, rounds flushed after every table, no Gram matrix kept (each is
    # larger than 1000 bytes), the smallest id caches: the same decisions and p-values
    p = child_2000.n_variables
    reference = CITestRunner(child_2000, GTest())
    tiny = CITestRunner(child_2000, GTest(), max_group_sets=3, max_round_cells=1, gram_cache_bytes=1000,
                        cache_bytes=1)
    assert _pc_phases(tiny, p, 2) == _pc_phases(reference, p, 2)
    keys = [(x, y, s) for x, y in combinations(range(0, p, 3), 2)
            for s in combinations([v for v in range(1, p, 4) if v not in (x, y)], 2)][:400]
    assert tiny.cached(keys) == reference.cached(keys)


@pytest.mark.parametrize("budget", [1, 5_000])
def test_keyed_tests_in_pieces_equal_one_piece(child_2000, monkeypatch, budget):
    # CITestRunner.cached counts and tests the missing keys in pieces of max_round_cells
    # cells (MMHC on mildew, 100-state nodes: one lock-step round's tables passed 10 GB).
    # Several batches of mixed shapes and overlapping keys: the same results, the same
    # cache in the same order and the same power-rule count as one piece per shape.
    p = child_2000.n_variables
    keys = [(x, y, s) for x, y in combinations(range(p), 2)
            for s in combinations([v for v in range(p) if v not in (x, y)], 2)][::7]
    batches = [keys[:300], keys[200:700], keys[650:1000] + keys[:50]]
    calls, original = [], _ci_runner.run_tables

    def run_tables(ci_test, blocks, n_strata, r_x, r_y):
        calls.append([block.size for block in blocks])
        return original(ci_test, blocks, n_strata, r_x, r_y)

    monkeypatch.setattr(_ci_runner, "run_tables", run_tables)
    # min_samples_per_dof=50: some tests decided by the power rule
    reference = CITestRunner(child_2000, GTest(min_samples_per_dof=50), n_jobs=1)
    expected = [reference.cached(batch) for batch in batches]
    one_piece, calls[:] = len(calls), []
    pieces = CITestRunner(child_2000, GTest(min_samples_per_dof=50), n_jobs=2, max_round_cells=budget)
    assert [pieces.cached(batch) for batch in batches] == expected
    assert list(pieces.cache.items()) == list(reference.cache.items())
    assert pieces.n_power_rule == reference.n_power_rule > 0
    # every piece ends at its first table past the budget
    assert all(sum(sizes[:-1]) <= budget for sizes in calls) and len(calls) > one_piece


def test_keyed_tests_equal_tests_one_by_one_and_are_cached(child_2000):
    ci_test = GTest()
    runner = CITestRunner(child_2000, ci_test)
    keys = [(0, 5, ()), (1, 7, (2,)), (3, 4, (0, 9)), (2, 11, (1, 6, 8)), (0, 5, ())]
    results = runner.cached(keys)
    assert len(runner.cache) == 4 and results[0] == results[-1]
    for key, (pvalue, statistic, independent) in zip(keys, results):
        expected = ci_test.test_variables(child_2000, *key)
        np.testing.assert_allclose((pvalue, statistic), (expected.pvalue, expected.statistic),
                                   rtol=1e-9, atol=1e-12)
        assert independent == expected.independent
    runner.cache[keys[1]] = "kept"  # a cached key is never recomputed
    assert runner.cached([keys[1]]) == ["kept"]


def test_decision_level_decides_by_pvalue(child_2000):
    # a corrected level (Bonferroni's alpha / m) changes the decisions, never the p-values
    units = [(x, y, [(z,) for z in range(6) if z not in (x, y)]) for x, y in combinations(range(8), 2)]
    own = CITestRunner(child_2000, ChiSquare(alpha=0.05)).run(units, False)
    level = 0.05 / 190
    strict = CITestRunner(child_2000, ChiSquare(alpha=0.05), level=level).run(units, False)
    assert [pv for pv, _, _ in own] == [pv for pv, _, _ in strict]
    assert [flags for _, flags, _ in strict] == [[pv > level for pv in pvs] for pvs, _, _ in own]
    assert [flags for _, flags, _ in own] == [[pv > 0.05 for pv in pvs] for pvs, _, _ in own]
    assert sum(map(sum, (f for _, f, _ in strict))) > sum(map(sum, (f for _, f, _ in own)))


def test_weighted_rows_equal_replicated_rows_through_the_runner():
    X = shared_network("child").sample(1500, random_state=5)
    weights = np.random.default_rng(0).integers(0, 4, len(X))  # 0 drops the row
    replicated = encode_fit(X.iloc[np.repeat(np.arange(len(X)), weights)], "auto")[0]
    data = encode_fit(X, "auto")[0]
    weighted = dataclasses.replace(data, weights=check_sample_weight(weights.astype(float), len(X)))
    p = data.n_variables
    for ci_test in (ChiSquare(), GTest()):  # (replicated rows make many more adjacencies: level <= 2)
        assert (_pc_phases(CITestRunner(weighted, ci_test), p, 2)
                == _pc_phases(CITestRunner(replicated, ci_test), p, 2))
    keys = [(x, y, (z,)) for x, y, z in combinations(range(p), 3)][:300]
    assert CITestRunner(weighted, GTest()).cached(keys) == CITestRunner(replicated, GTest()).cached(keys)


def test_mmhc_pc_restrict_weighted_rows_equal_replicated_rows():
    # regression (the PC phase once re-encoded the rows without their weights), on CHILD
    # with knowledge and a bounded level
    X = shared_network("child").sample(1500, random_state=6)
    weights = np.random.default_rng(1).integers(1, 4, len(X))
    replicated = X.iloc[np.repeat(np.arange(len(X)), weights)].reset_index(drop=True)
    kwargs = dict(restrict="pc", max_cond_vars=2, black_list=[("Disease", "Age"), ("Age", "Disease")])
    weighted = MMHCStructure(**kwargs).fit(X, sample_weight=weights)
    copies = MMHCStructure(**kwargs).fit(replicated)
    assert (weighted.skeleton_, weighted.n_tests_, weighted.edges_) == (
        copies.skeleton_, copies.n_tests_, copies.edges_)
    assert weighted.score_ == pytest.approx(copies.score_, rel=1e-9)
    assert ("Age", "Disease") not in weighted.skeleton_
