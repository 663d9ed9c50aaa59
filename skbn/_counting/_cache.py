"""The one bounded cache of the counters (configuration ids, pair states, Gram matrices)."""

from collections import OrderedDict

import numpy as np

__all__ = ["BoundedCache", "value_nbytes"]


def value_nbytes(value):
    """Bytes of the arrays in ``value``: an ndarray's ``nbytes``, the sum over the ndarray
    members of a tuple or list (other members, e.g. ints or dicts, count 0), else 0."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(member.nbytes for member in value if isinstance(member, np.ndarray))
    return 0


class BoundedCache:
    """A mapping bounded in number of entries and/or in bytes, oldest entries evicted first.

    The counters' per-fit caches (configuration ids of parent and conditioning sets, pair
    states, level-1 Gram matrices) are all of this class. An entry is recomputed, to the
    same bits, when it was evicted and is needed again, so a bound changes memory and
    time, never a result.

    Eviction: before an entry is stored, the oldest entries are dropped until it fits
    (at most ``max_entries - 1`` others, and their bytes plus its own at most
    ``max_bytes``). With ``policy="lru"`` a hit (:meth:`get`) makes the entry the
    newest (least recently used dropped first); with ``policy="fifo"`` only insertion
    counts (first in, first out), and a hit costs a plain dictionary look-up -- for the
    caches read once per CI test, where it is measurably cheaper. An entry larger than
    ``max_bytes`` on its own is not stored and evicts nothing (the caller uses it and
    drops it).

    Parameters
    ----------
    max_entries : int or None, default=None
        Largest number of entries (at least 1); None: no bound.
    max_bytes : int or None, default=None
        Largest total of :func:`value_nbytes` over the entries (the arrays of a value,
        alone or in a tuple); None: no bound, and sizes are never measured.
    policy : {"lru", "fifo"}, default="lru"
        Which entry is the oldest: least recently used, or first stored.

    Attributes
    ----------
    nbytes : int
        Bytes held (:func:`value_nbytes` of every value; 0 without ``max_bytes``).

    Examples
    --------
    >>> import numpy as np
    >>> cache = BoundedCache(max_bytes=16)
    >>> cache.put("a", np.zeros(1)); cache.put("b", np.zeros(1))
    >>> cache.get("a") is not None        # "a" is now the most recently used
    True
    >>> cache.put("c", np.zeros(1))       # 24 bytes > 16: the oldest, "b", goes
    >>> sorted(cache), cache.nbytes
    (['a', 'c'], 16)
    """

    def __init__(self, max_entries=None, max_bytes=None, policy="lru"):
        if policy not in ("lru", "fifo"):
            raise ValueError(f"policy must be 'lru' or 'fifo', got {policy!r}.")
        if max_entries is not None and max_entries < 1:
            raise ValueError(f"max_entries must be at least 1 or None, got {max_entries!r}.")
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.policy = policy
        self.nbytes = 0
        if policy == "fifo":  # a plain dictionary keeps the insertion order; a hit reorders
            self._store = {}  # nothing, so the look-up is the dictionary's own
            self.get = self._store.get
        else:
            self._store = OrderedDict()

    def get(self, key, default=None):
        """The value of ``key`` (now the most recently used), or ``default``."""
        store = self._store
        try:
            value = store[key]
        except KeyError:
            return default
        store.move_to_end(key)
        return value

    def put(self, key, value):
        """Store ``value`` under ``key`` (the newest entry), evicting the oldest entries
        until it fits; a value larger than ``max_bytes`` alone is not stored."""
        store = self._store
        if self.max_bytes is None:  # the hot path: bounded in entries only
            if key in store:
                del store[key]
            elif self.max_entries is not None and len(store) >= self.max_entries:
                del store[next(iter(store))]
            store[key] = value
            return
        size = value_nbytes(value)
        if size > self.max_bytes:
            return
        if key in store:
            self.nbytes -= value_nbytes(store.pop(key))
        while store and ((self.max_entries is not None and len(store) >= self.max_entries)
                         or self.nbytes + size > self.max_bytes):
            self.nbytes -= value_nbytes(store.pop(next(iter(store))))
        store[key] = value
        self.nbytes += size

    def clear(self):
        """Drop every entry."""
        self._store.clear()
        self.nbytes = 0

    def __contains__(self, key):
        return key in self._store

    def __len__(self):
        return len(self._store)

    def __iter__(self):
        """The keys, oldest first."""
        return iter(self._store)

    def __repr__(self):
        return (f"BoundedCache(max_entries={self.max_entries}, max_bytes={self.max_bytes}, "
                f"policy={self.policy!r}: {len(self)} entries, {self.nbytes} bytes)")
