"""The counters' one bounded cache (skbn/_counting/_cache.py)."""

import pickle

import numpy as np
import pytest

from skbn._counting import BoundedCache
from skbn._counting._cache import value_nbytes


def _reference(operations, max_entries, max_bytes, policy):
    """The cache's contents after ``operations`` by a plain list, oldest first: the
    definition of the eviction rule, written independently."""
    entries = []  # [key, size]
    for op, key, size in operations:
        index = next((i for i, (k, _) in enumerate(entries) if k == key), None)
        if op == "get":
            if index is not None and policy == "lru":
                entries.append(entries.pop(index))
            continue
        if max_bytes is not None and size > max_bytes:
            continue
        if index is not None:
            entries.pop(index)
        while entries and ((max_entries is not None and len(entries) >= max_entries)
                           or (max_bytes is not None and sum(s for _, s in entries) + size > max_bytes)):
            entries.pop(0)
        entries.append([key, size])
    return entries


@pytest.mark.parametrize("policy", ["lru", "fifo"])
@pytest.mark.parametrize("max_entries, max_bytes", [(3, None), (None, 64), (4, 48), (1, None)])
def test_eviction_order_matches_the_definition(policy, max_entries, max_bytes):
    rng = np.random.default_rng(0)
    operations = [("put" if rng.random() < 0.5 else "get", int(rng.integers(8)), 8 * int(rng.integers(1, 5)))
                  for _ in range(400)]
    cache = BoundedCache(max_entries, max_bytes, policy)
    for step, (op, key, size) in enumerate(operations):
        if op == "put":
            cache.put(key, np.zeros(size // 8))
        else:
            value = cache.get(key)
            assert (value is None) == (key not in cache)
        expected = _reference(operations[:step + 1], max_entries, max_bytes, policy)
        assert list(cache) == [k for k, _ in expected]
        assert len(cache) == len(expected)
        if max_bytes is not None:
            assert cache.nbytes == sum(s for _, s in expected) <= max_bytes


def test_lru_keeps_the_entry_just_read_fifo_drops_it():
    for policy, kept in (("lru", ["a", "c"]), ("fifo", ["b", "c"])):
        cache = BoundedCache(max_entries=2, policy=policy)
        cache.put("a", 1)
        cache.put("b", 2)
        assert cache.get("a") == 1
        cache.put("c", 3)
        assert list(cache) == kept, policy
        assert cache.get("missing", "default") == "default"


def test_byte_bound_counts_every_array_of_a_tuple():
    gram, offsets = np.zeros((2, 3, 3)), {4: 0, 7: 3}  # a level-1 Gram entry: 144 bytes + a dict
    ids = (np.zeros(10, dtype=np.int64), 12)          # configuration ids and their number
    assert value_nbytes((gram, offsets)) == 144
    assert value_nbytes(ids) == 80
    assert value_nbytes([np.zeros(3, np.float32), np.zeros(2, np.uint8), "x"]) == 14
    assert value_nbytes(7) == 0
    cache = BoundedCache(max_bytes=224)
    cache.put("gram", (gram, offsets))
    cache.put("ids", ids)
    assert cache.nbytes == 224 and len(cache) == 2
    cache.put("more", (np.zeros(1),))   # 8 more bytes: the oldest entry goes
    assert list(cache) == ["ids", "more"] and cache.nbytes == 88
    cache.put("ids", (np.zeros(2, dtype=np.int64), 2))  # replacing an entry re-counts its bytes
    assert list(cache) == ["more", "ids"] and cache.nbytes == 24


def test_an_entry_larger_than_the_bound_is_not_kept_and_evicts_nothing():
    cache = BoundedCache(max_bytes=100)
    cache.put("small", np.zeros(10))
    cache.put("huge", np.zeros(13))  # 104 bytes > 100
    assert "huge" not in cache and list(cache) == ["small"] and cache.nbytes == 80
    assert cache.get("huge") is None


def test_clear_pickle_and_bad_parameters():
    cache = BoundedCache(max_entries=2, max_bytes=64, policy="fifo")
    cache.put((1, 2), np.arange(3))
    copy = pickle.loads(pickle.dumps(cache))
    np.testing.assert_array_equal(copy.get((1, 2)), np.arange(3))
    copy.put((3,), np.arange(2))  # the copy's look-up reads the copy's own entries
    assert (3,) in copy and (3,) not in cache and copy.get((3,)) is not None
    cache.clear()
    assert len(cache) == 0 and cache.nbytes == 0 and cache.get((1, 2)) is None
    with pytest.raises(ValueError, match="policy"):
        BoundedCache(policy="random")
    with pytest.raises(ValueError, match="max_entries"):
        BoundedCache(max_entries=0)
