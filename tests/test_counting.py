"""The counting engine against slow loop-based references."""

import itertools
from dataclasses import replace

import numpy as np
import pytest

from skbn._counting import (
    DistinctRows,
    FamilyCounter,
    config_ids,
    contingency_tables,
    count_cells,
    cpt_counts,
    dense_is_small,
    extend_ids,
    family_table,
    marginal_stack,
    pair_family_stack,
    pairwise_tables,
    stratified_codes,
    table_from_ids,
)
from skbn._data import EncodedData, RowGroups


def _random_codes(n, cardinalities, seed):
    rng = np.random.default_rng(seed)
    return np.asfortranarray(np.column_stack([rng.integers(0, r, n) for r in cardinalities]).astype(np.uint8))


def _family_table_slow(codes, cards, child, parents):
    """Dict {parent configuration tuple: counts per child state} by a Python loop."""
    table = {}
    for row in codes:
        key = tuple(int(row[p]) for p in parents)
        table.setdefault(key, np.zeros(cards[child], dtype=int))[row[child]] += 1
    return table


@pytest.mark.parametrize("parents", [(), (1,), (2, 0), (3, 1, 2)])
def test_family_table_matches_loop(parents):
    cards = np.array([2, 3, 4, 2], dtype=np.int64)
    codes = _random_codes(500, cards, seed=len(parents))
    table = family_table(codes, cards, 0 if 0 not in parents else 3, parents)
    child = 0 if 0 not in parents else 3
    slow = _family_table_slow(codes, cards, child, parents)
    # dense mixed-radix layout: row id = C-order position of the parent configuration
    shape = tuple(int(cards[p]) for p in parents)
    for config in itertools.product(*(range(r) for r in shape)):
        row = np.ravel_multi_index(config, shape) if shape else 0
        np.testing.assert_array_equal(table[row], slow.get(config, np.zeros(cards[child], int)))


def test_weighted_counts_are_float_even_without_entries():
    """``count_cells`` with weights returns float64 counts, also for no entries (where
    ``np.bincount`` returns int64 zeros whatever the weights): a caller adds weighted counts
    into it in place (structural EM on rows without a missing cell crashed on that)."""
    empty = count_cells(np.zeros(0, dtype=np.int64), 4, np.zeros(0))
    assert empty.dtype == np.float64 and empty.tolist() == [0.0] * 4
    counts = count_cells(np.array([1, 3, 1]), 4, np.array([0.5, 2.0, 1.0]))
    assert counts.dtype == np.float64 and counts.tolist() == [0.0, 1.5, 0.0, 2.0]
    assert count_cells(np.array([1, 3, 1]), 4).dtype == np.int64  # (unweighted: int64)


def test_sparse_counting_when_parent_space_is_huge():
    cards = np.array([40] * 6 + [3], dtype=np.int64)  # 40**6 = 4.1e9 parent configurations
    codes = _random_codes(300, cards, seed=1)
    parents = tuple(range(6))
    ids, n_ids = config_ids(codes, cards, parents)
    assert n_ids < 40**6  # compressed: no dense id space of 4.1e9 configurations
    table = family_table(codes, cards, 6, parents)
    slow = _family_table_slow(codes, cards, 6, parents)
    assert dense_is_small(table.size, 300)  # the one compression rule: O(rows) memory
    observed = table[table.sum(axis=1) > 0]
    expected = np.array([slow[k] for k in sorted(slow)])
    np.testing.assert_array_equal(observed, expected)  # compression keeps id order


def test_extend_ids_equals_counting_from_scratch():
    cards = np.array([3, 2, 4, 3], dtype=np.int64)
    codes = _random_codes(400, cards, seed=2)
    ids, n_ids = config_ids(codes, cards, [1])
    ids, n_ids = extend_ids(ids, n_ids, codes, cards, 2)
    np.testing.assert_array_equal(
        table_from_ids(ids, n_ids, codes[:, 0], 3), family_table(codes, cards, 0, (1, 2))
    )


def test_contingency_tables_drop_empty_strata():
    cards = np.array([2, 3, 3, 5], dtype=np.int64)
    codes = _random_codes(60, cards, seed=3)
    tables = contingency_tables(codes, cards, 0, 1, (2, 3))
    strata = sorted({(int(r[2]), int(r[3])) for r in codes})
    assert tables.shape == (len(strata), 2, 3)
    for table, (a, b) in zip(tables, strata):
        rows = codes[(codes[:, 2] == a) & (codes[:, 3] == b)]
        expected = np.zeros((2, 3), int)
        np.add.at(expected, (rows[:, 0], rows[:, 1]), 1)
        np.testing.assert_array_equal(table, expected)
    unconditional = contingency_tables(codes, cards, 0, 1)
    assert unconditional.shape == (1, 2, 3) and unconditional.sum() == 60


def test_pairwise_tables_hold_every_joint_table():
    cards = np.array([2, 3, 4], dtype=np.int64)
    codes = _random_codes(1000, cards, seed=4)
    gram, offsets = pairwise_tables(codes, cards, chunk_rows=300)  # several chunks
    for i, j in itertools.product(range(3), repeat=2):
        expected = np.zeros((cards[i], cards[j]))
        np.add.at(expected, (codes[:, i], codes[:, j]), 1)
        np.testing.assert_array_equal(gram[offsets[i]:offsets[i + 1], offsets[j]:offsets[j + 1]], expected)


# ------------------------------------------------------------------ weighted counting
def _weighted_table_slow(codes, cards, child, parents, weights):
    table = {}
    for row, w in zip(codes, weights):
        key = tuple(int(row[p]) for p in parents)
        table.setdefault(key, np.zeros(cards[child]))[row[child]] += w
    return table


@pytest.mark.parametrize("parents", [(), (1,), (2, 0), (3, 1, 2)])
def test_weighted_family_table_matches_loop(parents):
    cards = np.array([2, 3, 4, 2], dtype=np.int64)
    codes = _random_codes(300, cards, seed=7)
    weights = np.random.default_rng(0).uniform(0, 3, 300)
    child = 0 if 0 not in parents else 3
    table = family_table(codes, cards, child, parents, weights)
    slow = _weighted_table_slow(codes, cards, child, parents, weights)
    observed = table[table.sum(axis=1) > 0]
    np.testing.assert_allclose(observed, np.array([slow[k] for k in sorted(slow)]), rtol=1e-12)


def test_integer_weights_count_like_repeated_rows():
    cards = np.array([3, 2, 4], dtype=np.int64)
    codes = _random_codes(200, cards, seed=8)
    weights = np.random.default_rng(1).integers(0, 4, 200)
    repeated = np.asfortranarray(np.repeat(codes, weights, axis=0))
    np.testing.assert_array_equal(family_table(codes, cards, 0, (1, 2), weights.astype(float)),
                                  family_table(repeated, cards, 0, (1, 2)))
    np.testing.assert_array_equal(cpt_counts(codes, cards, 2, (0,), weights.astype(float)),
                                  cpt_counts(repeated, cards, 2, (0,)))
    np.testing.assert_array_equal(contingency_tables(codes, cards, 0, 1, (2,), weights.astype(float)),
                                  contingency_tables(repeated, cards, 0, 1, (2,)))
    gram_w, _ = pairwise_tables(codes, cards, weights=weights.astype(float))
    gram_r, _ = pairwise_tables(repeated, cards, chunk_rows=64)
    np.testing.assert_array_equal(gram_w, gram_r)


def test_cpt_counts_layout_is_c_order():
    cards = np.array([2, 3, 4], dtype=np.int64)
    codes = _random_codes(500, cards, seed=9)
    counts = cpt_counts(codes, cards, 0, (2, 1))
    expected = np.zeros((4, 3, 2))
    np.add.at(expected, (codes[:, 2], codes[:, 1], codes[:, 0]), 1)
    np.testing.assert_array_equal(counts, expected)


def test_stratified_codes_give_within_stratum_pair_tables():
    cards = np.array([2, 3, 2], dtype=np.int64)
    codes = _random_codes(400, cards, seed=10)
    combined, combined_cards = stratified_codes(codes, cards, [0, 1], 2)
    gram, offsets = pairwise_tables(combined, combined_cards)
    block = gram[offsets[0]:offsets[1], offsets[1]:offsets[2]]  # rows (a, c), columns (b, c')
    for a, b, c, c2 in itertools.product(range(2), range(3), range(2), range(2)):
        expected = np.sum((codes[:, 0] == a) & (codes[:, 1] == b) & (codes[:, 2] == c) & (c == c2))
        assert block[a * 2 + c, b * 2 + c2] == expected


def test_family_counter_caches_and_matches_direct_tables():
    cards = np.array([3, 2, 4, 2], dtype=np.int64)
    codes = _random_codes(300, cards, seed=11)
    weights = np.random.default_rng(2).uniform(0.5, 2, 300)
    counter = FamilyCounter(EncodedData(codes, cards, ("a", "b", "c", "d"), weights))
    np.testing.assert_allclose(counter.family_table(0, (1, 2)),
                               family_table(codes, cards, 0, (1, 2), weights))
    extended = counter.extended_family_table(0, (1,), 3)
    np.testing.assert_allclose(extended, family_table(codes, cards, 0, (1, 3), weights))
    np.testing.assert_allclose(counter.pair_table(2, 0), family_table(codes, cards, 0, (2,), weights))
    assert (1, 2) in counter._ids
    stack, family, dense = counter.added_parent_tables(0, (1,))
    np.testing.assert_allclose(family, family_table(codes, cards, 0, (1,), weights))
    for k in (2, 3):  # candidate k's table is the family (1, k) -> 0, rows (j, a)
        np.testing.assert_allclose(stack.dense(k), family_table(codes, cards, 0, (1, k), weights))
    assert dense and stack.n_parents == 2 and stack.total_weight == pytest.approx(weights.sum())


def test_distinct_rows_drop_zero_weights_and_keep_totals():
    cards = np.array([2, 2, 3], dtype=np.int64)
    codes = _random_codes(100, cards, seed=12)
    weights = np.random.default_rng(3).integers(0, 3, 100).astype(float)
    distinct = DistinctRows(codes, cards, weights)
    assert np.all(distinct.multiplicity > 0) and distinct.total_weight == weights.sum()
    ids, n_ids = distinct.add_parent(*distinct.empty_ids(), 1)
    stack = distinct.children_stack(ids, n_ids, np.array([0, 2]), 2, 1)
    np.testing.assert_allclose(stack.dense(0)[:n_ids], family_table(codes, cards, 0, (1,), weights)[
        family_table(codes, cards, 0, (1,), weights).sum(axis=1) > 0])
    assert stack.integral and n_ids == len(np.unique(codes[weights > 0, 1]))


@pytest.mark.parametrize("weighted", [False, True])
def test_added_parent_tables_in_row_blocks_and_small_id_cache_change_nothing(weighted):
    """Memory bounds for large (e.g. out-of-core) data: counting in blocks of rows and
    keeping fewer cached ids give the same tables."""
    cards = np.array([3, 2, 4, 2], dtype=np.int64)
    codes = _random_codes(301, cards, seed=12)
    weights = np.random.default_rng(3).integers(1, 5, 301).astype(float) if weighted else None
    data = EncodedData(codes, cards, ("a", "b", "c", "d"), weights)
    whole = FamilyCounter(data)
    blocked = FamilyCounter(data, block_entries=600,  # blocks of 150, 150, 1 rows (tables <= 528 cells)
                            id_cache_bytes=8 * 301,  # one cached parent set
                            one_hot_bytes=0)  # bincount in blocks, not the sparse product
    assert blocked._ids.max_entries == 1
    for child, parents in [(0, (1,)), (3, (0, 2)), (1, (0, 2, 3)), (0, (1,))]:
        expected, family, dense = whole.added_parent_tables(child, parents)
        stack, blocked_family, blocked_dense = blocked.added_parent_tables(child, parents)
        np.testing.assert_array_equal(blocked_family, family)
        assert blocked_dense == dense and len(blocked._ids) == 1
        for k in set(range(4)) - {child, *parents}:
            np.testing.assert_array_equal(stack.dense(k), expected.dense(k))


@pytest.mark.parametrize("weights", [None, "integer", "fractional"])
@pytest.mark.parametrize("n_rows, small_limits", [(401, False), (401, True), (70, False)])
def test_added_parent_tables_of_some_columns_equal_those_of_all(weights, n_rows, small_limits):
    """Counting only some candidate variables gives their tables bit for bit, the same
    family table and the same small-counts decision (so the same scores), whatever the
    parent set (none, dense, compressed) and the row blocks (``small_limits``: blocks of
    100 rows, compression beyond 4 cells an entry; 70 rows: small counts decided by the
    parents, not by the counted candidates)."""
    from skbn.scores import BIC, BDeu

    limits = {"block_entries": 700, "dense_floor": 0} if small_limits else {}
    cards = np.array([3, 2, 4, 2, 3, 5, 2], dtype=np.int64)
    codes = _random_codes(n_rows, cards, seed=13)
    rng = np.random.default_rng(4)
    weights = {None: None, "integer": rng.integers(1, 4, n_rows).astype(float),
               "fractional": rng.uniform(0.2, 2.0, n_rows)}[weights]
    data = EncodedData(codes, cards, tuple("abcdefg"), weights)
    everything, some = FamilyCounter(data, **limits), FamilyCounter(data, **limits)
    compressed = False
    for child, parents, columns in [(0, (), [0, 3]), (2, (), [1, 2, 6]), (4, (1,), [0, 4]),
                                    (4, (1,), [4, 5]), (5, (0, 2), [1, 5]), (1, (0, 5), [1, 2, 3, 6]),
                                    (6, (0, 2, 4, 5), [3, 6]), (1, (0, 2, 3, 4, 5), [1, 6])]:
        full_stack, full_family, full_dense = everything.added_parent_tables(child, parents)
        stack, family, dense = some.added_parent_tables(child, parents, columns)
        np.testing.assert_array_equal(family, full_family)
        assert dense == full_dense and stack.small_counts == full_stack.small_counts
        compressed |= not dense
        assert stack.n_candidates == len(columns)
        for c, k in enumerate(columns):
            np.testing.assert_array_equal(stack.dense(c), full_stack.dense(k))
        for score in (BIC(), BDeu(ess=1.0)):
            np.testing.assert_array_equal(score.local_scores(stack), score.local_scores(full_stack)[columns])
    assert compressed == small_limits


def _assert_same_candidate_tables(got, expected):
    """Two ``added_parent_tables`` results ``(stack, family, dense)`` hold the same tables."""
    stack, family, dense = got
    expected_stack, expected_family, expected_dense = expected
    np.testing.assert_array_equal(family, expected_family)
    assert dense == expected_dense
    for field in ("cells", "cell_owner", "rows", "row_owner", "n_parent_configs"):
        np.testing.assert_array_equal(getattr(stack, field), getattr(expected_stack, field))
    assert stack.small_counts == expected_stack.small_counts


def test_sparse_product_count_equals_bincount_bit_for_bit():
    """Unweighted candidate tables by the one-hot sparse product (float32 sums of ones) are
    the bincount tables exactly, compressed ids included; weighted data, fewer rows than
    ``ONE_HOT_MIN_ROWS``, or a one-hot matrix over the byte or states-per-variable bounds use
    the bincount."""
    cards = np.array([3, 2, 4, 2, 3], dtype=np.int64)
    codes = _random_codes(50, cards, seed=21)  # too few rows to observe all 36 configurations of 4 parents
    data = EncodedData(codes, cards, tuple("abcde"))
    assert FamilyCounter(data)._one_hot_product() is None  # 50 rows: below ONE_HOT_MIN_ROWS
    compress = {"dense_floor": 200, "dense_cells_per_entry": 0}  # ids compressed beyond 200 cells
    product = FamilyCounter(data, one_hot_min_rows=50, **compress)
    assert product._one_hot_product() is not None
    counted = FamilyCounter(data, one_hot_min_rows=50, one_hot_bytes=4 * 50 * 14 - 1,  # one byte short
                            **compress)
    assert counted._one_hot_product() is None
    few_states = FamilyCounter(data, one_hot_min_rows=50, one_hot_mean_states=2)  # 14 states over 5 variables
    assert few_states._one_hot_product() is None
    assert FamilyCounter(replace(data, weights=np.ones(50)), one_hot_min_rows=50)._one_hot_product() is None
    for child, parents in [(0, (1,)), (4, (0, 2)), (1, (0, 2, 3)), (2, (0, 1, 3, 4))]:
        expected, family, dense = counted.added_parent_tables(child, parents)
        stack, product_family, product_dense = product.added_parent_tables(child, parents)
        _assert_same_candidate_tables((stack, product_family, product_dense), (expected, family, dense))
    assert not dense and len(family) < 36  # the last parent set was compressed


def test_dense_product_count_equals_bincount_bit_for_bit():
    """Below ``ONE_HOT_MIN_ROWS`` rows, the candidate tables of a family with few cells
    counted by the dense one-hot product (float32 sums of ones) are the bincount tables
    exactly; a family with more cells, weighted data or ``dense_product_states=0`` use the
    bincount."""
    from skbn.scores import BIC, BDeu

    cards = np.array([3, 2, 4, 2, 3], dtype=np.int64)
    codes = _random_codes(50, cards, seed=23)
    data = EncodedData(codes, cards, tuple("abcde"))
    product = FamilyCounter(data)  # 14 states over 5 variables: families of <= 11 cells
    counted = FamilyCounter(data, dense_product_states=0)
    for child, parents in [(0, (1,)), (4, (0,)), (1, (0, 3)), (3, (1, 4)), (2, (0, 1, 3, 4))]:
        expected, family, dense = counted.added_parent_tables(child, parents)
        stack, product_family, product_dense = product.added_parent_tables(child, parents)
        _assert_same_candidate_tables((stack, product_family, product_dense), (expected, family, dense))
        for score in (BIC(), BDeu(ess=1.0)):
            np.testing.assert_array_equal(score.local_scores(stack), score.local_scores(expected))
    assert isinstance(product._one_hot_matrix, np.ndarray)  # built by the dense product
    assert counted._one_hot_matrix is None  # never built
    weighted = FamilyCounter(replace(data, weights=np.ones(50)))
    weighted.added_parent_tables(0, (1,))
    assert weighted._one_hot_rows() is None


def test_gram_from_the_dense_product_matrix_equals_pairwise_tables():
    """Below ``ONE_HOT_MIN_ROWS`` unweighted rows the counter's Gram matrix is the product of
    the one-hot matrix it keeps for the dense product: pairwise_tables' values, bit for bit
    (missing cells, code -1, included)."""
    cards = np.array([3, 2, 4, 2, 3], dtype=np.int64)
    codes = _random_codes(60, cards, seed=24).astype(np.int16)
    codes[np.random.default_rng(25).random(codes.shape) < 0.1] = -1
    for block in (codes, np.abs(codes).astype(np.uint8)):
        counter = FamilyCounter(EncodedData(np.asfortranarray(block), cards, tuple("abcde")))
        gram, offsets = counter.pairwise()
        expected, expected_offsets = pairwise_tables(block, cards)
        np.testing.assert_array_equal(gram, expected)
        np.testing.assert_array_equal(offsets, expected_offsets)
        assert gram.dtype == expected.dtype and isinstance(counter._one_hot_matrix, np.ndarray)


@pytest.mark.parametrize("compress", [False, True])
def test_grouped_rows_count_like_plain_rows(compress):
    """Rows in groups sharing cells (the completions of incomplete rows, shuffled so that a
    group is not contiguous) give the tables of the same rows counted one by one."""
    cards = np.array([3, 2, 4, 2, 3], dtype=np.int64)
    base = _random_codes(40, cards, seed=21).astype(np.int64)
    rng = np.random.default_rng(22)
    missing = rng.random(base.shape) < 0.4
    rows, group = [], []
    for g, (row, miss) in enumerate(zip(base, missing)):
        cols = np.flatnonzero(miss)
        for combo in itertools.product(*[range(cards[c]) for c in cols]):
            full = row.copy()
            full[cols] = combo
            rows.append(full)
            group.append(g)
    order = rng.permutation(len(rows))
    codes = np.asfortranarray(np.array(rows)[order].astype(np.uint8))
    weights = rng.uniform(0.1, 2.0, len(rows))
    plain = EncodedData(codes, cards, tuple("abcde"), weights)
    grouped = EncodedData(codes, cards, tuple("abcde"), weights,
                          RowGroups(np.array(group)[order], ~missing))
    # compress: every table and pair key compressed (np.unique), pairs in blocks of 2
    limits = {"dense_floor": 1, "dense_cells_per_entry": 0, "block_entries": 10} if compress else {}
    one, other = FamilyCounter(plain, **limits), FamilyCounter(grouped, **limits)
    for child, parents in [(0, (1,)), (3, (0, 2)), (1, (0, 2, 3)), (4, (0, 1, 2, 3)), (2, ())]:
        expected, family, dense = one.added_parent_tables(child, parents)
        stack, grouped_family, grouped_dense = other.added_parent_tables(child, parents)
        np.testing.assert_allclose(grouped_family, family, rtol=1e-12)
        assert grouped_dense == dense
        for k in set(range(5)) - {child, *parents}:
            np.testing.assert_allclose(stack.dense(k), expected.dense(k), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_pair_family_stack_holds_every_pair_table(weighted):
    cards = [2, 3, 4, 2]
    codes = _random_codes(500, cards, seed=7)
    weights = np.random.default_rng(8).random(500) if weighted else None
    gram, offsets = pairwise_tables(codes, cards, weights=weights)
    total_weight = 500.0 if weights is None else float(weights.sum())
    stack = pair_family_stack(gram, cards, np.diff(offsets), offsets, 1, total_weight, integral=not weighted)
    p = len(cards)
    for j, i in itertools.product(range(p), range(p)):
        c = j * p + i
        expected = family_table(codes, np.array(cards), j, [i], weights=weights)  # rows x_i, columns x_j
        np.testing.assert_allclose(stack.dense(c), expected)
        cells = np.sort(stack.cells[stack.cell_owner == c])  # (child state, parent state) order
        np.testing.assert_allclose(cells, np.sort(expected[expected > 0]))
        rows = expected.sum(axis=1)
        np.testing.assert_allclose(stack.rows[stack.row_owner == c], rows[rows > 0])
        assert stack.r_child[c] == cards[j] and stack.n_parent_configs[c] == cards[i]


@pytest.mark.parametrize("weights", [None, "integer", "fractional"])
def test_pair_stack_equals_the_parentless_added_parent_tables_bit_for_bit(weights):
    # FamilyCounter.pair_stack scores every child's parentless toggle column in one batch:
    # child j's cells, row totals and flags are exactly those of added_parent_tables(j, ())
    cards = np.array([2, 3, 4, 2, 5])
    codes = _random_codes(700, cards, seed=3)
    rng = np.random.default_rng(4)
    w = {None: None, "integer": rng.integers(0, 4, 700).astype(float), "fractional": rng.random(700)}[weights]
    counter = FamilyCounter(EncodedData(codes=codes, cardinalities=cards, names=tuple("abcde"), weights=w))
    pairs = counter.pair_stack()
    assert counter.pair_stack() is pairs  # computed once
    p = len(cards)
    for j in range(p):
        alone, _, _ = counter.added_parent_tables(j, ())
        cells, rows = pairs.cell_owner // p == j, pairs.row_owner // p == j
        np.testing.assert_array_equal(pairs.cells[cells], alone.cells)
        np.testing.assert_array_equal(pairs.cell_owner[cells] % p, alone.cell_owner)
        np.testing.assert_array_equal(pairs.rows[rows], alone.rows)
        np.testing.assert_array_equal(pairs.row_owner[rows] % p, alone.row_owner)
        np.testing.assert_array_equal(pairs.n_parent_configs[j * p:(j + 1) * p], alone.n_parent_configs)
        assert pairs.small_counts == alone.small_counts and pairs.integral == alone.integral


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("stratum", [None, 4])
def test_marginal_stack_scores_each_variable_given_the_stratum(weighted, stratum):
    from skbn.scores import BDeu, LogLikelihood

    cards = np.array([2, 3, 4, 2, 3])
    codes = _random_codes(600, cards, seed=11)
    weights = np.random.default_rng(12).random(600) if weighted else None
    features = [0, 1, 2, 3] if stratum is not None else [0, 1, 2, 3, 4]
    if stratum is None:
        stratified, r_features, r_c = codes, cards, 1
    else:
        stratified, _ = stratified_codes(codes, cards, features, stratum)
        r_features, r_c = cards[features], int(cards[stratum])
    gram, _ = pairwise_tables(stratified, r_features * r_c, weights=weights)
    total = 600.0 if weights is None else float(weights.sum())
    extra = 0 if stratum is None else 1
    stack = marginal_stack(np.diag(gram), r_features, r_c, extra, total, integral=not weighted)
    for scorer in (BDeu(ess=2.0), LogLikelihood()):
        batch = scorer.local_scores(stack)
        for j, feature in enumerate(features):
            parents = [] if stratum is None else [stratum]
            expected_table = family_table(codes, cards, feature, parents, weights=weights)
            np.testing.assert_allclose(stack.dense(j), expected_table)
            expected = scorer.local_score(expected_table, r_c, extra)
            assert batch[j] == pytest.approx(expected, rel=1e-12, abs=1e-9)
