r"""Stratified contingency tables of many ``(x, y | S)`` at once: the counting of CI tests.

A conditional-independence test of ``x`` and ``y`` given a set ``S`` reads the stratified
table

.. math:: N[s, a, b] = \sum_{n:\; S_n = s,\; x_n = a,\; y_n = b} w_n ,

the (weighted) number of rows in configuration ``s`` of ``S`` with ``x = a`` and ``y = b``.
Without weights (``data.weights is None``) every ``w_n = 1`` and the tables are exact
integer counts (int64, or float64 products of exact float32 BLAS sums); with weights they
are ``np.bincount(..., weights=w)`` sums in float64. An integer weight ``w`` on a row
therefore gives exactly the table of ``w`` copies of that row (sums of integers below
``2**53`` are exact in float64).

Three ways of counting, by size of ``S``:

* ``|S| = 0`` (:func:`pairwise_contingency`): every pair at once from the one-hot Gram
  matrix ``M^T W M`` (:func:`skbn._counting.pairwise_tables`).
* ``|S| = 1`` (:func:`gram_given`): for a variable ``v``, the one-hot Gram matrix of its
  neighbours over the rows with ``v = a``, for every state ``a``; the table of ``x, y | v``
  for every pair of neighbours is a slice of it.
* any ``S`` (:class:`StratifiedCounter`): one ``np.bincount`` of ``cell = xy * q + stratum``,
  stratum ids of ``S`` cached and extended one column at a time from the cached prefix of
  ``S`` (:func:`skbn._counting.extend_ids`), compressed to the observed configurations when
  their number would exceed the number of rows.
"""

import numpy as np

from skbn._counting._cache import BoundedCache
from skbn._counting._tables import (
    compress_ids,
    count_cells,
    count_positive,
    extend_ids,
    one_hot,
    pairwise_tables,
)

__all__ = ["GivenBlocks", "StratifiedCounter", "gram_given", "gram_nbytes", "pairwise_contingency"]

#: Rows per one-hot chunk of the Gram products (keeps the float32 block in cache).
GRAM_CHUNK_ROWS = 8192
#: Unweighted rows are counted in ``LANES`` interleaved lanes (``cell * LANES + row %
#: LANES``), summed afterwards: on skewed data most consecutive rows fall in the same cell,
#: and ``np.bincount`` then waits on the previous increment of that counter; lanes break the
#: dependency (about 1.6x faster on ALARM at 100,000 rows).
LANE_BITS = 2
LANES = 1 << LANE_BITS
#: Lanes cost O(bins) (a 4x larger table to clear and sum) and pay off with many rows per
#: bin: a conditioning set gets lanes only when its largest table (``n_ids`` x the largest
#: ``r_x * r_y`` of the data) has at most ``n_samples / LANE_ROWS_PER_BIN`` lane bins.
LANE_ROWS_PER_BIN = 16
#: Default memory bound of each cache (conditioning-set ids, pair states; the counter's
#: ``cache_bytes``): at most
#: ``CACHE_BYTES / (8 n_samples)`` arrays (and at most ``ID_CACHE_SIZE``), the oldest
#: dropped first (256 MiB: 320 arrays at 100,000 rows; 80 made CHILD 100k 30% slower).
#: 1024 arrays of 100,000 rows took 800 MB per cache.
CACHE_BYTES = 1 << 28
ID_CACHE_SIZE = 1024
#: Default memory bound of the level-1 Gram matrices kept by one counter (its
#: ``gram_cache_bytes``; least recently used
#: dropped first, recomputed -- to the same bits -- when needed again). Without it they
#: grew as p x (3 x degree)^2: 0.7 GB for a 441-node pedigree whose level 0 left 85
#: neighbours per node, and several GB at 1,000 nodes.
GRAM_CACHE_BYTES = 1 << 28
#: ``lump_degenerate`` lumps the strata of a conditioning set with at least
#: ``LUMP_MIN_STRATA`` strata (ids) and at most ``LUMP_ROWS_PER_STRATUM`` rows per stratum
#: on average: with fewer strata, or more rows in each, few strata are lumped and the extra
#: array operations (~15 us a table) cost more than they save (CHILD at 1,000 and 10,000
#: rows: PC 1.2x slower when every set of 64 strata or more was lumped).
LUMP_MIN_STRATA = 512
LUMP_ROWS_PER_STRATUM = 16
#: When it lumps, :meth:`StratifiedCounter.stacked_tables` passes every stratum of two or
#: more rows (those with one non-empty cell add exactly nothing to the chi-square and G
#: statistics and degrees of freedom) when they hold at least this many rows on average,
#: instead of finding, pair by pair, those with two or more non-empty cells. On the
#: 1,000-variable pedigree (sets of three-state variables, 10,000 rows) sets of 8 hold
#: 5-8 rows a stratum: passing them all (22% more strata) took 26-29 s for PC's level 8
#: instead of 29-32 s with the search; sets of 10 (2-5 rows) were even either way.
_KEEP_ALL_ROWS = 4


def gram_nbytes(cardinalities, v, others):
    """Bytes of :func:`gram_given`'s matrices for ``v`` and ``others`` (float64)."""
    width = int(np.asarray(cardinalities, dtype=np.int64)[list(others)].sum())
    return 8 * int(cardinalities[v]) * width * width


def pairwise_contingency(data, pairs, gram=None):
    """Unconditional tables of many pairs, grouped by shape, from one Gram matrix.

    Parameters
    ----------
    data : skbn._data.EncodedData
    pairs : ndarray of shape (n_pairs, 2), int
        Column pairs ``(x, y)``.
    gram : (ndarray, ndarray) or None
        ``(gram, offsets)`` of :func:`~skbn._counting.pairwise_tables` on ``data`` when
        already computed (e.g. :meth:`skbn._counting.FamilyCounter.pairwise`).

    Yields
    ------
    index : ndarray of int
        Positions in ``pairs`` of the pairs of one shape ``(r_x, r_y)``.
    tables : ndarray of shape (len(index), r_x, r_y), float64
        Their (weighted) joint tables.
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if len(pairs) == 0:
        return
    cards = np.asarray(data.cardinalities, dtype=np.int64)
    gram, offsets = pairwise_tables(data.codes, cards, weights=data.weights) if gram is None else gram
    shapes = cards[pairs]
    for r_x, r_y in np.unique(shapes, axis=0):
        index = np.flatnonzero((shapes[:, 0] == r_x) & (shapes[:, 1] == r_y))
        rows = offsets[pairs[index, 0]][:, None] + np.arange(r_x)
        cols = offsets[pairs[index, 1]][:, None] + np.arange(r_y)
        tables = gram[rows[:, :, None], cols[:, None, :]]
        if data.weights is None:
            tables = np.rint(tables)
        yield index, tables


def gram_given(codes, cardinalities, weights, v, others):
    """Level-1 counts around ``v``: ``(gram, offsets)``.

    ``gram[a]`` is the weighted one-hot Gram matrix of the columns ``others`` over the rows
    where ``v = a``, so ``gram[a][offsets[y] + b, offsets[z] + c]`` is the weight of
    ``(v = a, y = b, z = c)`` for all ``y, z`` in ``others`` at once. The rows are sorted by
    ``v`` once (a stable sort of a small-integer column), so each state is a contiguous
    block counted in cache-sized one-hot chunks (BLAS; exact for unit weights).
    """
    others = list(others)
    column = codes[:, v]
    order = np.argsort(column, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(column, minlength=int(cardinalities[v])))])
    block = codes[:, others][order]
    sorted_weights = None if weights is None else weights[order]
    sub_cards = np.asarray(cardinalities, dtype=np.int64)[others]
    gram = np.stack([
        pairwise_tables(block[a:b], sub_cards, GRAM_CHUNK_ROWS,
                        None if sorted_weights is None else sorted_weights[a:b])[0]
        for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist())
    ])
    starts = np.concatenate([[0], np.cumsum(sub_cards)[:-1]]).tolist()
    return gram, dict(zip(others, starts))


#: Largest one-hot indicator matrix (bytes, float32) that :class:`GivenBlocks` keeps for
#: all its blocks; a larger one is rebuilt, chunk by chunk, for every block.
GIVEN_INDICATOR_BYTES = 1 << 26
#: Rows per float32 product of :class:`GivenBlocks`: partial sums stay integers below 2**24.
_EXACT_ROWS = 1 << 23


class GivenBlocks:
    """Blocks of :func:`gram_given`'s matrices of ``v``, unweighted, computed on demand.

    ``counts(rows, columns)[a][i, j]`` is the number of rows of the data with ``v = a``
    whose one-hot column ``i`` of the variables ``others[rows]`` and ``j`` of
    ``others[columns]`` are both 1 (offsets: cumulated cardinalities, in the given
    order): the same integers as those rows and columns of ``gram_given(codes,
    cardinalities, None, v, others)``, without computing the rest of the matrix. The
    data rows are sorted by the state of ``v`` once; the one-hot indicator matrix of
    ``others`` (transposed: a row per state) is built once when it takes at most
    ``max_bytes`` (else per block, in
    chunks of ``GRAM_CHUNK_ROWS`` rows). Products are float32 BLAS over at most ``2**23``
    rows, exact, accumulated in float64.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_variables), unsigned ints (no missing cell)
    cardinalities : sequence of int
    v : int
    others : sequence of int
    max_bytes : int, default=GIVEN_INDICATOR_BYTES
    buffer : ndarray of float32 or None
        Memory for the indicator matrix (used when large enough; its content is replaced):
        one buffer for a sequence of variables saves allocating it for each.
    """

    def __init__(self, codes, cardinalities, v, others, max_bytes=GIVEN_INDICATOR_BYTES, buffer=None):
        column = codes[:, v]
        bounds = np.cumsum(np.bincount(column, minlength=int(cardinalities[v])))
        self.bounds = [0, *bounds.tolist()]
        self.block = codes[:, list(others)][np.argsort(column, kind="stable")]
        self.cards = np.asarray(cardinalities, dtype=np.int64)[list(others)]
        self.offsets = np.concatenate([[0], np.cumsum(self.cards)])
        n_samples, width = self.block.shape[0], int(self.offsets[-1])
        self.chunk = GRAM_CHUNK_ROWS
        self.indicators, self.buffer = None, buffer
        if 4 * n_samples * width <= max_bytes:
            # transposed (width, n_samples): a range of columns of the one-hot matrix is a
            # range of rows here, passed to BLAS without a copy
            # row o_k + c is the indicator of state c of others[k]: one comparison per cell
            state = np.concatenate([np.arange(r) for r in self.cards.tolist()])
            variable = np.repeat(np.arange(len(self.cards)), self.cards)
            if buffer is None or buffer.size < width * n_samples:
                buffer = np.empty(width * n_samples, dtype=np.float32)
            self.buffer = buffer
            self.indicators = buffer[:width * n_samples].reshape(width, n_samples)
            np.equal(np.ascontiguousarray(self.block.T)[variable], state[:, None].astype(self.block.dtype),
                     out=self.indicators, casting="unsafe")
            self.chunk = _EXACT_ROWS

    def _indices(self, positions):
        starts, lengths = self.offsets[positions], self.cards[positions]
        shift = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        return shift + np.arange(int(lengths.sum()))

    def counts(self, rows, columns):
        """``(r_v, sum r_rows, sum r_columns)`` float64 counts; ``rows``, ``columns``:
        positions in ``others``, ``columns`` consecutive and increasing."""
        rows, columns = np.asarray(rows), np.asarray(columns)
        row_index = self._indices(rows)
        first, last = int(self.offsets[columns[0]]), int(self.offsets[columns[-1] + 1])
        out = np.zeros((len(self.bounds) - 1, len(row_index), last - first))
        for a in range(len(self.bounds) - 1):
            for start in range(self.bounds[a], self.bounds[a + 1], self.chunk):
                stop = min(start + self.chunk, self.bounds[a + 1])
                if self.indicators is not None:
                    left = self.indicators[row_index, start:stop]
                    right = self.indicators[first:last, start:stop]
                    out[a] += left @ right.T
                else:
                    left = one_hot(self.block[:, rows], self.cards[rows], slice(start, stop))
                    right = one_hot(self.block[:, columns], self.cards[columns], slice(start, stop))
                    out[a] += left.T @ right
        return out


class StratifiedCounter:
    """Stratified contingency tables of variable pairs, with cached conditioning-set ids.

    The table of ``x, y | S`` is one ``np.bincount`` of ``cell = xy * q + stratum`` where
    ``xy`` is the joint state of the pair and ``stratum`` the configuration id of ``S``,
    weighted by ``data.weights`` when given. Missing cells (signed codes, ``-1``): every
    table counts only the rows observing ``x``, ``y`` and all of ``S`` (test-wise deletion,
    Tu et al. 2019), the complete-data path being unchanged. With a frozen ``adjacency``, tables given one
    variable that is adjacent to ``x`` (or ``y``) together with the other variable are
    sliced from :func:`gram_given` matrices instead.

    Parameters
    ----------
    data : skbn._data.EncodedData
    adjacency : list of sorted lists, or None
        Frozen adjacencies of a PC level 1 (enables the Gram slices).
    caches : dict or None
        Kept by the caller to share the conditioning-set ids and pair states between
        the counters built on the same data (filled on first use), and, with
        ``adjacency``, the Gram matrices of that adjacency (its ``"gram"`` entry: drop it
        when the adjacency changes).
    grams : dict or None
        Already computed :func:`gram_given` results, by variable.
    cache_bytes : int, default=CACHE_BYTES
        Memory bound of each cache of conditioning-set ids and pair states (at most
        ``cache_bytes / (8 n_samples)`` arrays, at least 16, at most ``ID_CACHE_SIZE``;
        first in, first out), set by the counter that creates the caches (shared ones keep
        their bound).
    gram_cache_bytes : int, default=GRAM_CACHE_BYTES
        Memory bound of the level-1 Gram matrices kept (least recently used dropped first;
        a matrix larger than the bound is computed, used and not kept). The tables do not
        depend on either bound.
    lump_degenerate : bool, default=False
        For the chi-square and G tests only (the caller decides): unweighted tables of
        sets with at least :data:`LUMP_MIN_STRATA` strata and at most
        :data:`LUMP_ROWS_PER_STRATUM` rows per stratum keep only their strata with two
        or more non-empty cells, followed by one stratum holding the total count of the
        others in its first cell (see :meth:`tables`).
    """

    def __init__(self, data, adjacency=None, caches=None, grams=None, *, cache_bytes=CACHE_BYTES,
                 gram_cache_bytes=GRAM_CACHE_BYTES, lump_degenerate=False):
        self.codes = data.codes
        self.cards = data.cardinalities
        self.weights = data.weights
        self._observed = None
        if data.codes.dtype.kind == "i" and (data.codes < 0).any():
            # missing cells (code -1): test-wise deletion. The ids are built from codes
            # with -1 replaced by 0, and each table weighs out the rows missing any of
            # its variables (see ``tables``); no Gram slices, no lanes.
            self._observed = data.codes >= 0
            self.codes = np.where(self._observed, data.codes, 0).astype(np.int64)
            if self.weights is None:
                self.weights = np.ones(data.n_samples)
            adjacency = grams = None
        self._r = [int(r) for r in data.cardinalities]  # Python ints: no numpy scalar per test
        self.adjacency = adjacency
        self.adjacency_sets = None if adjacency is None else [set(a) for a in adjacency]
        n_samples = self.codes.shape[0]
        if caches:
            self._ids, self._xy, self._lane = caches["ids"], caches["xy"], caches["lane"]
        else:
            # first in, first out: these are read once per test, where a least-recently-used
            # reordering costs time and saves no recount
            size = max(16, min(ID_CACHE_SIZE, cache_bytes // (8 * max(n_samples, 1))))
            self._ids, self._xy = BoundedCache(size, policy="fifo"), BoundedCache(size, policy="fifo")
            if self.weights is None:
                self._lane = np.arange(n_samples, dtype=np.int64) & (LANES - 1)
            else:  # weighted counts: no lanes (the float sums are not the bottleneck)
                self._lane = np.zeros(n_samples, dtype=np.int64)
            if caches is not None:
                caches.update(ids=self._ids, xy=self._xy, lane=self._lane)
        if caches is not None and adjacency is not None:
            self._gram = caches.get("gram")
            if self._gram is None:
                self._gram = caches["gram"] = BoundedCache(max_bytes=gram_cache_bytes)
        else:
            self._gram = BoundedCache(max_bytes=gram_cache_bytes)
        for v, gram in (grams or {}).items():
            self._gram.put(v, gram)
        # lumping needs exact integer counts (no weights, no test-wise deletion)
        self.lump_degenerate = lump_degenerate and self.weights is None
        top = sorted(self._r)[-2:]
        if self.weights is None:
            self._lane_limit = n_samples // (LANE_ROWS_PER_BIN * LANES * max(1, top[0] * top[-1]))
        else:
            self._lane_limit = -1

    def strata(self, subset):
        """``(lane ids, n_ids, declared n_configurations, lane bits)`` of a sorted set.

        Lane ids are ``id * LANES + row % LANES`` when ``lane bits`` is ``LANE_BITS``,
        plain ids when it is 0 (weighted data, small data, large tables); ``id`` is
        ``lane_ids >> lane bits``.
        """
        hit = self._ids.get(subset)
        if hit is not None:
            return hit
        if not subset:
            value = (self._lane, 1, 1, LANE_BITS if self.weights is None else 0)
        else:
            lane_ids, n_ids, declared, bits = self.strata(subset[:-1])
            ids, n_ids = extend_ids(lane_ids >> bits, n_ids, self.codes, self.cards, subset[-1])
            declared *= self._r[subset[-1]]
            # stricter than the dense rule: n_ids x r_x r_y bins per table, so keep n_ids
            # at most n_samples and every bincount O(n_samples)
            if n_ids > len(ids):
                ids, n_ids = compress_ids(ids, n_ids)
            bits = LANE_BITS if n_ids <= self._lane_limit else 0
            if bits:
                ids <<= bits
                ids += self._lane
            value = (ids, n_ids, declared, bits)
        self._ids.put(subset, value)
        return value

    def _given(self, v):
        """:func:`gram_given` of ``v``, from a least-recently-used cache of at most
        ``gram_cache_bytes`` (one matrix larger than that is computed, used, not kept)."""
        hit = self._gram.get(v)
        if hit is None:
            hit = gram_given(self.codes, self.cards, self.weights, v, self.adjacency[v])
            self._gram.put(v, hit)
        return hit

    def _level_one(self, x, y, z):
        """Table of ``x, y | z`` sliced from a level-1 Gram matrix, or None."""
        r_x, r_y, r_z = self._r[x], self._r[y], self._r[z]
        for v, w, axes in ((x, y, (2, 0, 1)), (y, x, (2, 1, 0))):
            if z in self.adjacency_sets[v] and w in self.adjacency_sets[v]:
                if v == y and self.weights is None and v not in self._gram:
                    # y's matrix was evicted (or never computed): count this table
                    # directly (the same integers) instead of recomputing it
                    return None
                gram, offsets = self._given(v)
                block = gram[:, offsets[w]:offsets[w] + (r_y if v == x else r_x),
                             offsets[z]:offsets[z] + r_z]
                block = block.transpose(axes)
                if self.weights is None:
                    block = np.rint(block).astype(np.int64)
                return block.reshape(r_z, r_x * r_y)
        return None

    def tables(self, x, y, subset):
        r"""Tables of ``x, y | subset`` (a sorted tuple of columns).

        Returns
        -------
        counts : ndarray of shape (n_ids, r_x * r_y)
            Row ``s`` is the flattened ``(r_x, r_y)`` table of stratum id ``s``; empty
            strata may be included (int64 without weights, float64 with). With
            ``lump_degenerate`` and many strata (see the parameter), the strata
            with two or more non-empty cells, in order, then one stratum ``[k, 0, ...]``:
            ``k`` the count of all the others (see below).
        declared : int
            Declared number of configurations of ``subset`` (``prod r``).

        Notes
        -----
        A stratum whose ``k`` rows all sit in one cell ``(a, b)`` (every single-row
        stratum, and most strata of a large conditioning set) adds exactly ``0.0`` to
        Pearson's statistic, :math:`k \cdot k^2 / (k \cdot k) - k`, and to :math:`G^2`,
        :math:`2 (k \log k + k \log k - k \log k - k \log k)`, in floating point as in
        exact arithmetic, and nothing to the adjusted degrees of freedom (one non-empty
        row and column): it counts only in the sample size of the power rule. So does the
        lump of all of them, and a sum in stratum order does not change when terms
        ``0.0`` leave it: the tests' statistics, degrees of freedom, sample sizes and
        p-values are those of the full table, bit for bit, while a set of 8 three-state
        variables on 10,000 rows passes about 400 strata instead of 2,900.
        """
        if len(subset) == 1 and self.adjacency is not None:
            block = self._level_one(x, y, subset[0])
            if block is not None:
                return block, self._r[subset[0]]
        lane_ids, n_ids, declared, bits = self.strata(subset)
        r_y = self._r[y]
        n_cells = self._r[x] * r_y
        xy = self.pair_states(x, y)
        if (self.lump_degenerate and n_ids >= LUMP_MIN_STRATA
                and n_ids * LUMP_ROWS_PER_STRATUM >= len(xy)):
            ids, n_shared, size = self._shared_strata(subset, lane_ids, n_ids, bits)
            cells = xy * (n_shared + 1)
            cells += ids
            counts = np.bincount(cells, minlength=n_cells * (n_shared + 1)).reshape(n_cells, n_shared + 1)
            return _lumped(counts[:, :n_shared], size, len(xy)), declared
        cells = xy * (n_ids << bits)  # two passes whatever the set: the pair states are
        cells += lane_ids  # cached unscaled, so every set of the pair reuses them
        if not bits:
            weights = self.weights
            if self._observed is not None:  # the rows observing x, y and every S
                complete = self._observed[:, x] & self._observed[:, y]
                for s in subset:
                    complete &= self._observed[:, s]
                weights = weights * complete
            counts = count_cells(cells, n_cells * n_ids, weights).reshape(n_cells, n_ids)
        else:
            lanes = np.bincount(cells, minlength=(n_cells * n_ids) << LANE_BITS)
            lanes = lanes.reshape(n_cells * n_ids, LANES)
            counts = lanes[:, 0] + lanes[:, 1] if LANES > 1 else lanes[:, 0]
            for lane in range(2, LANES):  # 10x faster than lanes.sum(axis=1)
                counts += lanes[:, lane]
            counts = counts.reshape(n_cells, n_ids)
        return counts.T, declared

    def pair_states(self, x, y):
        """Joint state ``x * r_y + y`` of every row (int64), cached."""
        xy = self._xy.get((x, y))
        if xy is None:
            xy = self.codes[:, x].astype(np.int64) * self._r[y] + self.codes[:, y]
            self._xy.put((x, y), xy)
        return xy

    def stacked_tables(self, subset, pairs):
        """Tables of several pairs given one sorted ``subset``, cell-major, side by side.

        The pairs share the strata of ``subset`` (computed once, :meth:`strata`, and, when
        lumped, :meth:`_shared_strata`, whose one-row strata share a spare last id: their rows
        are counted there, not gathered out). All the pairs are counted by
        one ``np.bincount`` of ``xy_j * k n_ids + j * n_ids + stratum`` over the rows of the
        ``k`` pairs (``xy_j`` the joint state of pair ``j``): the counts ``(cell, pair,
        stratum)`` are the pairs' tables cell-major side by side, their kept strata taken by
        one ``np.compress``. A bin holds the rows of one pair, added in row order, so every
        count (a weighted sum too) has the bits of counting that pair alone. The strata passed are
        those :meth:`tables` passes to a test, in the same order, but for strata that add
        exactly nothing to the chi-square and G statistics and degrees of freedom (one
        non-empty cell, or none): when :meth:`tables` would lump them (``lump_degenerate``,
        unweighted), the strata of two or more rows with two or more non-empty cells, then one
        lump stratum ``[m, 0, ...]`` holding the ``m`` other rows (all zeros when ``m = 0``),
        or, when those strata hold :data:`_KEEP_ALL_ROWS` rows or more on average, every
        stratum of two or more rows, then the lump of the one-row strata's rows -- where
        "stratum" means, when every pair contains one column (the pairs of one variable in
        a PC level), a stratum in which that column takes two or more values, the others
        going to the lump (:meth:`_varied_strata`: 65% of the strata at level 8 of a
        1,000-variable pedigree; their tables have one filled row or column, which the
        chi-square and G kernels score exactly 0, see
        :class:`skbn.citests.ChiSquare`); otherwise
        every non-empty stratum (the empty strata :meth:`tables` may return are dropped here,
        as :func:`~skbn._engines._ci_runner.run_tables` drops them). Each pair's test has the
        statistic, degrees of freedom and sample size of :meth:`tables`' strata, bit for bit
        (terms ``0.0`` leave a sum in stratum order unchanged).

        Parameters
        ----------
        subset : tuple of int
            Sorted conditioning columns (none of them in a pair).
        pairs : list of (x, y)
            Pairs of one shape ``(r_x, r_y)`` (complete data).

        Returns
        -------
        tables : ndarray of shape (r_x * r_y, n_kept)
            The pairs' strata cell-major, pair after pair: ``tables[a * r_y + b, t]`` is
            cell ``(a, b)`` of stratum ``t`` (int64 without weights, float64 with), what the
            test kernels read (:meth:`~skbn.citests.BaseCITest.test_batch` with
            ``cell_major=True``).
        widths : ndarray of int
            Number of strata of each pair, in order (they sum to ``n_kept``).
        declared : int
            Declared number of configurations of ``subset``.
        """
        lane_ids, n_ids, declared, bits = self.strata(subset)
        n_samples, n_pairs = len(lane_ids), len(pairs)
        n_cells = self._r[pairs[0][0]] * self._r[pairs[0][1]]
        lump = (self.lump_degenerate and n_ids >= LUMP_MIN_STRATA
                and n_ids * LUMP_ROWS_PER_STRATUM >= n_samples)
        if lump:  # the rows of one-row strata share the last id: one lump for all pairs
            common = set(pairs[0]).intersection(*pairs[1:])
            if common:  # and so do those of the strata where an end of every pair is constant
                ids, n_shared, size = self._varied_strata(subset, min(common), lane_ids, n_ids, bits)
            else:
                ids, n_shared, size = self._shared_strata(subset, lane_ids, n_ids, bits)
            n_ids = n_shared + 1
        elif self.weights is None:  # a stratum is empty for every pair or for none:
            ids, n_ids = self._filled_strata(subset, lane_ids, n_ids, bits)  # renumbered
        else:
            ids = lane_ids >> bits
        width = n_pairs * n_ids  # cell (a, b) of stratum s of pair j: bin xy * width + j * n_ids + s
        cells = np.empty((n_pairs, n_samples), dtype=np.int64)
        for j, (x, y) in enumerate(pairs):
            np.multiply(self.pair_states(x, y), width, out=cells[j])
        cells += ids
        cells += np.arange(0, width, n_ids)[:, None]
        weights = None if self.weights is None else np.broadcast_to(self.weights, cells.shape)
        counts = count_cells(cells, n_cells * width, weights).reshape(n_cells, n_pairs, n_ids)
        if lump:  # the lump: the last stratum, overwritten (exact integers)
            alone = n_samples - int(size.sum())
            counts[:, :, n_shared] = 0
            if n_samples - alone >= _KEEP_ALL_ROWS * n_shared:
                counts[0, :, n_shared] = alone
                keep = None
            else:
                keep = np.ones((n_pairs, n_ids), dtype=bool)
                keep[:, :n_shared] = _several_filled(counts[:, :, :n_shared], size)
                counts[0, :, n_shared] = n_samples - keep[:, :n_shared] @ size
        else:  # unweighted: every stratum holds a row; weighted: rows of weight 0 may leave one empty
            keep = None if self.weights is None else counts.any(axis=0)
        counts = counts.reshape(n_cells, width)
        if keep is None:
            return counts, np.full(n_pairs, n_ids), declared
        return np.compress(keep.ravel(), counts, axis=1), keep.sum(axis=1), declared

    def _filled_strata(self, subset, lane_ids, n_ids, bits):
        """``(ids, n_filled)``: the ids of :meth:`strata` renumbered in order to
        ``0..n_filled-1`` over the strata holding a row (:func:`compress_ids`, cached)."""
        key = ("filled", *subset)
        hit = self._ids.get(key)
        if hit is None:
            hit = compress_ids(lane_ids >> bits, n_ids)
            self._ids.put(key, hit)
        return hit

    def _varied_strata(self, subset, column, lane_ids, n_ids, bits):
        """:meth:`_shared_strata` for pairs that all contain ``column``: the strata of
        ``subset`` in which ``column`` takes two or more values, renumbered in order, every
        row of the others (one-row strata included) given the spare last id (cached per
        set and column). In those strata every pair's table has one filled row or column,
        which adds exactly 0 to the chi-square and G statistics and to their adjusted
        degrees of freedom (:class:`skbn.citests.ChiSquare`)."""
        key = ("varied", column, *subset)
        hit = self._ids.get(key)
        if hit is None:
            ids = lane_ids >> bits
            r = self._r[column]
            seen = np.bincount(ids * r + self.codes[:, column], minlength=n_ids * r).reshape(n_ids, r)
            varied = count_positive(seen) > 1
            hit = (*_kept_then_lump(ids, varied), seen[varied].sum(axis=1))
            self._ids.put(key, hit)
        return hit

    def _shared_strata(self, subset, lane_ids, n_ids, bits):
        """``(ids, n_shared, size)``: the strata of ``subset`` that hold two or more rows
        renumbered in order to ``0..n_shared-1``, every row of a one-row stratum given the
        id ``n_shared``, and the number of rows of each of the ``n_shared`` strata (cached;
        ``lane_ids, n_ids, bits`` from :meth:`strata`). A one-row stratum has one filled
        cell whatever ``x, y``: lumped anyway."""
        key = ("shared", *subset)
        hit = self._ids.get(key)
        if hit is None:
            ids = lane_ids >> bits
            size = np.bincount(ids, minlength=n_ids)
            shared = size > 1
            hit = (*_kept_then_lump(ids, shared), size[shared])
            self._ids.put(key, hit)
        return hit


def _kept_then_lump(ids, kept):
    """``(ids, n_kept)``: stratum ids renumbered in order to ``0..n_kept-1`` over the
    strata ``kept`` (a bool array over the ids), every row of the others given the spare
    id ``n_kept`` (the lump)."""
    renumbered = np.cumsum(kept) - 1
    n_kept = int(renumbered[-1]) + 1
    renumbered[~kept] = n_kept
    return renumbered[ids], n_kept


def _several_filled(counts, size):
    """Whether each stratum of the integer ``counts`` (cells on axis 0, strata on the other
    axes) has two or more non-empty cells, for strata of ``size >= 2`` rows each: exactly
    when its largest cell holds fewer than its rows (one pass per cell, no count of the
    non-empty cells)."""
    largest = counts[0].copy()
    for cell in range(1, len(counts)):
        np.maximum(largest, counts[cell], out=largest)
    return largest < size


def _lumped(counts, size, total):
    """``(n_cells, n_ids)`` integer counts of strata of ``size`` (two or more) rows, out of
    ``total`` rows -> the strata with two or more non-empty cells (rows, in order), then
    ``[k, 0, ...]`` with ``k`` the count of the others (:meth:`StratifiedCounter.tables`)."""
    kept = counts.take(np.flatnonzero(_several_filled(counts, size)), axis=1)
    out = np.zeros((kept.shape[1] + 1, len(counts)), dtype=counts.dtype)
    out[:-1] = kept.T
    out[-1, 0] = total - int(kept.sum())
    return out
