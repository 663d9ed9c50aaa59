import numpy as np
import pandas as pd
import pytest

from skbn._counting import StratifiedCounter, contingency_tables, pairwise_contingency
from skbn._data import EncodedData, encode_fit


def _data(seed=0, n=500, p=5, weights=None):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.integers(0, 3, size=(n, p)) * rng.integers(1, 3, size=(n, p)))
    data = encode_fit(frame)[0]
    if weights is not None:
        data = EncodedData(data.codes, data.cardinalities, data.names, weights)
    return data


def _slow_tables(data, x, y, z):
    """Loop reference: weighted tables over the observed strata, in id order."""
    w = np.ones(data.n_samples) if data.weights is None else data.weights
    r_x, r_y = (int(data.cardinalities[v]) for v in (x, y))
    strata = {}
    for n in range(data.n_samples):
        key = tuple(int(data.codes[n, c]) for c in z)
        table = strata.setdefault(key, np.zeros((r_x, r_y)))
        table[data.codes[n, x], data.codes[n, y]] += w[n]
    keys = [k for k in sorted(strata) if strata[k].sum() > 0]
    return np.array([strata[k] for k in keys]).reshape(-1, r_x, r_y)


CASES = [(0, 1, (2,)), (1, 3, (0,)), (0, 4, (1, 2)), (2, 3, (0, 1, 4)), (1, 2, ())]


@pytest.mark.parametrize("lane_limit", [None, 0, 10**9])
def test_counter_tables_match_contingency_tables(lane_limit):
    data = _data()
    p = data.n_variables
    adjacency = [sorted(set(range(p)) - {v}) for v in range(p)]
    caches = {}
    StratifiedCounter(data, None, caches).tables(0, 1, (2, 3))  # fills the shared caches
    counter = StratifiedCounter(data, adjacency, caches)
    if lane_limit is not None:  # force plain ids (0) or lanes (10**9) for every new set
        counter._ids.clear()
        counter._xy.clear()
        counter._lane_limit = lane_limit
    for x, y, subset in CASES:
        counts, declared = counter.tables(x, y, subset)
        r_x, r_y = (int(data.cardinalities[v]) for v in (x, y))
        expected = contingency_tables(data.codes, data.cardinalities, x, y, subset)
        got = counts[counts.any(axis=1)].reshape(-1, r_x, r_y)
        np.testing.assert_array_equal(got, expected)
        assert declared == int(np.prod([data.cardinalities[v] for v in subset]))


@pytest.mark.parametrize("adjacent", [False, True])
def test_weighted_counter_matches_loop_reference(adjacent):
    rng = np.random.default_rng(1)
    data = _data(weights=rng.gamma(1.0, size=500))
    p = data.n_variables
    adjacency = [sorted(set(range(p)) - {v}) for v in range(p)] if adjacent else None
    counter = StratifiedCounter(data, adjacency, {})
    for x, y, subset in CASES:
        counts, _ = counter.tables(x, y, subset)
        assert counts.dtype == np.float64
        r_x, r_y = (int(data.cardinalities[v]) for v in (x, y))
        got = counts[counts.sum(axis=1) > 0].reshape(-1, r_x, r_y)
        np.testing.assert_allclose(got, _slow_tables(data, x, y, subset), rtol=1e-12)


def test_integer_weights_equal_duplicated_rows_exactly():
    rng = np.random.default_rng(2)
    weights = rng.integers(0, 4, size=500).astype(float)
    data = _data(weights=weights)
    copies = EncodedData(np.asfortranarray(np.repeat(data.codes, weights.astype(int), axis=0)),
                         data.cardinalities, data.names)
    p = data.n_variables
    adjacency = [sorted(set(range(p)) - {v}) for v in range(p)]
    for adj in (None, adjacency):
        a, b = StratifiedCounter(data, adj, {}), StratifiedCounter(copies, adj, {})
        for x, y, subset in CASES:
            ta, tb = a.tables(x, y, subset)[0], b.tables(x, y, subset)[0]
            np.testing.assert_array_equal(ta[ta.sum(axis=1) > 0], tb[tb.sum(axis=1) > 0])
    pairs = np.array([(x, y) for x in range(p) for y in range(x + 1, p)])
    for (ia, ta), (ib, tb) in zip(pairwise_contingency(data, pairs), pairwise_contingency(copies, pairs)):
        np.testing.assert_array_equal(ia, ib)
        np.testing.assert_array_equal(ta, tb)


def test_pairwise_contingency_matches_loop_reference():
    rng = np.random.default_rng(3)
    for weights in (None, rng.uniform(0, 2, size=500)):
        data = _data(weights=weights)
        pairs = np.array([(0, 1), (3, 2), (1, 4), (0, 3)])
        seen = []
        for index, tables in pairwise_contingency(data, pairs):
            for k, table in zip(index, tables):
                x, y = pairs[k]
                np.testing.assert_allclose(table, _slow_tables(data, x, y, ())[0], rtol=1e-6)
                seen.append(int(k))
        assert sorted(seen) == [0, 1, 2, 3]


def test_gram_cache_bounded_in_bytes_gives_the_same_tables():
    # level-1 Gram matrices in a least-recently-used cache: evicted ones are recomputed to
    # the same tables, and the cache never holds more than its byte bound
    import skbn._counting._stratified as stratified

    data = _data(p=7)
    p = data.n_variables
    adjacency = [sorted(set(range(p)) - {v}) for v in range(p)]
    pairs = [(x, y, (z,)) for x in range(p) for y in range(x + 1, p) for z in range(p)
             if z not in (x, y)]
    full = StratifiedCounter(data, adjacency, {})
    expected = [full.tables(x, y, s)[0] for x, y, s in pairs]
    one = stratified.gram_nbytes(data.cardinalities, 0, adjacency[0])
    assert one == full._gram.get(0)[0].nbytes
    caches = {}
    bounded = StratifiedCounter(data, adjacency, caches, gram_cache_bytes=2 * one)
    for (x, y, s), table in zip(pairs, expected):
        np.testing.assert_array_equal(bounded.tables(x, y, s)[0], table)
        assert sum(caches["gram"].get(v)[0].nbytes for v in list(caches["gram"])) <= 2 * one
    # a second counter on the same caches reuses the kept matrices
    assert StratifiedCounter(data, adjacency, caches)._gram is caches["gram"]
    tiny = StratifiedCounter(data, adjacency, {}, gram_cache_bytes=one // 2)  # none fits: none kept
    for (x, y, s), table in zip(pairs[:20], expected[:20]):
        np.testing.assert_array_equal(tiny.tables(x, y, s)[0], table)
    assert len(tiny._gram) == 0


@pytest.mark.parametrize("weights", [None, "fractional", "with zeros"])
@pytest.mark.parametrize("lump", ["never", "default", "forced"])
@pytest.mark.parametrize("keep_all_rows", [0, 8, 10**9])
def test_stacked_tables_give_the_bits_of_one_table_per_test(weights, lump, keep_all_rows, monkeypatch):
    # all the pairs of one set counted together (one bincount, strata kept by one mask)
    # against the reference path: each test's own table (StratifiedCounter.tables, lumped
    # or full) tested alone (run_tables); 2-, 3- and 4-state pairs (two shapes per set,
    # tested in one batch per shape), sets whose strata all hold one row (a row-id
    # column), sets with no one-row stratum (one or two columns on 600 rows), unobserved
    # configurations (empty strata), rows sorted by a column; every statistic, p-value,
    # degree of freedom and decision bit equal (empty strata and one-cell strata change
    # none of them: the test also checks that none but a lump is passed, and the totals)
    import skbn._counting._stratified as stratified
    from skbn._engines._ci_runner import _test_blocks, run_tables
    from skbn.citests import ChiSquare, GTest

    monkeypatch.setattr(stratified, "_KEEP_ALL_ROWS", keep_all_rows)
    if lump == "forced":  # every unweighted set lumped
        monkeypatch.setattr(stratified, "LUMP_MIN_STRATA", 1)
        monkeypatch.setattr(stratified, "LUMP_ROWS_PER_STRATUM", 10**6)
    elif lump == "never":
        monkeypatch.setattr(stratified, "LUMP_MIN_STRATA", 10**9)
    rng = np.random.default_rng(11)
    n = 600
    hidden = rng.integers(0, 3, n)
    columns = {f"v.{k} x": np.where(rng.random(n) < 0.6, hidden, rng.integers(0, 3, n)) for k in range(9)}
    columns["two states"] = (hidden + rng.integers(0, 2, n)) % 2
    columns["four states"] = np.where(rng.random(n) < 0.5, hidden, rng.integers(0, 4, n))
    columns["row id"] = rng.permutation(n)
    states = np.array(["None", "NA", "a.b", "c d"])
    frame = pd.DataFrame({name: [f"r{v}" for v in values] if name == "row id" else states[values]
                          for name, values in columns.items()})
    frame = frame.sort_values("v.0 x", kind="stable").reset_index(drop=True)
    data = encode_fit(frame)[0]
    if weights == "fractional":
        data = EncodedData(data.codes, data.cardinalities, data.names, rng.uniform(0.2, 2.0, n))
    elif weights == "with zeros":  # rows of weight 0 leave strata empty
        data = EncodedData(data.codes, data.cardinalities, data.names, rng.integers(0, 3, n).astype(float))
    two, four, row_id = 9, 10, 11
    assert [int(data.cardinalities[v]) for v in (0, two, four)] == [3, 2, 4]
    cards = [int(r) for r in data.cardinalities]
    pairs = [(0, 1), (1, 2), (0, two), (1, two), (two, four), (0, four), (2, 1), (0, 2)]
    sets = [(3,), (3, 4), (3, 4, 5, 6), (3, 4, 5, 6, 7, 8), (3, 5, 6, 7, 8), (4, row_id), (3, 4, row_id)]
    counter = StratifiedCounter(data, lump_degenerate=True)
    reference = StratifiedCounter(data, lump_degenerate=True)
    kinds = set()
    for ci_test in (ChiSquare(alpha=0.3, min_samples_per_dof=0), GTest(alpha=0.3)):
        batches = {}
        for subset in sets:
            ids = np.unique(data.codes[:, list(subset)], axis=0, return_counts=True)[1]
            kinds.add((bool((ids == 1).all()), bool((ids > 1).all())))
            by_shape = {}
            for x, y in pairs:
                by_shape.setdefault((cards[x], cards[y]), []).append((x, y))
            # the 3 x 3 pairs share no end; with column 1's pairs alone, the strata where
            # column 1 is constant are lumped too (their tables have one filled row or column)
            groups = [*by_shape.items(), ((3, 3), [pair for pair in pairs[:2] + pairs[6:7]])]
            for shape, members in groups:
                tables, widths, declared = counter.stacked_tables(subset, members)
                assert tables.shape == (shape[0] * shape[1], widths.sum())
                # no empty stratum but a pair's lump (its last); every row once per pair
                ends = np.cumsum(widths)
                assert set(np.flatnonzero(~tables.any(axis=0)) + 1) <= set(ends.tolist())
                totals = np.add.reduceat(tables.sum(axis=0), ends - widths)
                want = [reference.tables(x, y, subset)[0].sum() for x, y in members]
                np.testing.assert_allclose(totals, want, rtol=1e-12)
                if data.weights is None:
                    assert totals.tolist() == [n] * len(members)
                entry = batches.setdefault(shape, ([], [], [], []))
                entry[0].append(tables)
                entry[1].append(widths)
                entry[2].extend([declared] * len(members))
                entry[3].extend((x, y, subset) for x, y in members)
        for (r_x, r_y), (tables, widths, declared, tests) in batches.items():
            got = _test_blocks(ci_test, tables, widths, declared, r_x, r_y)
            for k, (x, y, subset) in enumerate(tests):
                block, n_strata = reference.tables(x, y, subset)
                want = run_tables(ci_test, [block], [n_strata], r_x, r_y)
                for name in ("statistic", "pvalue", "dof", "independent"):
                    assert getattr(got, name)[k:k + 1].tobytes() == getattr(want, name).tobytes()
    assert kinds == {(True, False), (False, True), (False, False)}
    if lump != "never" and weights is None:  # the strata where a shared end varies were used
        assert any(key[:1] == ("varied",) for key in counter._ids)
