"""The counting engine against slow loop-based references."""

import itertools

import numpy as np
import pytest

from skbn._counting import (
    config_ids,
    contingency_tables,
    dense_is_small,
    extend_ids,
    family_table,
    pairwise_tables,
    table_from_ids,
)


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
