"""Configuration ids and count tables: the primitives every statistic is built from.

A configuration of a set of columns ``(c_1, ..., c_k)`` gets the mixed-radix id

    id = (...((x_{c_1} r_{c_2} + x_{c_2}) r_{c_3} + x_{c_3}) ...) r_{c_k} + x_{c_k}

(last column fastest, the C order of a CPT array), and a count table is one weighted
``np.bincount`` over cell ids (:func:`count_cells`). Every count is the sum of the weights
of the rows it counts (``EncodedData.weights``); without weights it is an integer count.

Compression policy (one rule, :func:`dense_is_small`): a table of ``n_cells`` cells filled
from ``n_entries`` (row, column) entries stays dense while
``n_cells <= max(4 n_entries, 2**16)``; beyond that the ids are renumbered to the observed
configurations (:func:`compress_ids`, order kept), so memory stays O(n_entries) whatever
the parent set.
"""

import math

import numpy as np

#: A dense table may have this many cells per counted entry before ids are compressed.
DENSE_CELLS_PER_ENTRY = 4
#: Tables up to this many cells are always dense.
DENSE_FLOOR = 1 << 16


def dense_is_small(n_cells, n_entries, floor=DENSE_FLOOR, cells_per_entry=DENSE_CELLS_PER_ENTRY):
    """The one compression rule: keep a table of ``n_cells`` dense for ``n_entries`` entries,
    i.e. ``n_cells <= max(cells_per_entry * n_entries, floor)`` (the defaults
    :data:`DENSE_CELLS_PER_ENTRY` and :data:`DENSE_FLOOR`; a
    :class:`~skbn._counting.FamilyCounter` passes its own)."""
    return n_cells <= max(cells_per_entry * n_entries, floor)


def count_cells(cells, n_cells, weights=None):
    """The counting primitive: ``N[c]`` = total weight of the entries in cell ``c``.

    Parameters
    ----------
    cells : ndarray of int, any shape
        Cell id of every entry (``0 <= cells < n_cells``).
    n_cells : int
    weights : ndarray of float64 with the shape of ``cells``, or None
        Entry weights; ``None`` counts every entry once (int64 result, the fast path).

    Returns
    -------
    counts : ndarray of shape (n_cells,), int64 without weights, else float64 (also for no
        entries, where ``np.bincount`` would return int64 zeros whatever the weights)
    """
    if weights is None:
        return np.bincount(cells.ravel(), minlength=n_cells)
    if not cells.size:  # (np.bincount of no entries is int64 even with weights)
        return np.zeros(n_cells, dtype=np.float64)
    return np.bincount(cells.ravel(), weights=weights.ravel(), minlength=n_cells)


def count_positive(values, dtype=np.int64):
    """Number of positive entries of ``values`` (non-negative counts or margins) along
    axis 1, one axis-1 slice at a time (cheaper than ``np.count_nonzero(values, axis=1)``
    on a short axis 1). ``dtype`` must hold ``values.shape[1]``: an int8 counter wraps at
    128 entries.

    Returns
    -------
    ndarray of shape ``values.shape[:1] + values.shape[2:]``, dtype ``dtype``
    """
    count = (values[:, 0] > 0).astype(dtype)
    for k in range(1, values.shape[1]):
        count += values[:, k] > 0
    return count


def compress_ids(ids, n_ids):
    """Renumber ids to ``0..n_observed-1`` keeping their order; returns ``(ids, n_observed)``.

    A configuration is observed when some row has it (whatever that row's weight).
    """
    if n_ids <= (1 << 26):
        present = np.bincount(ids, minlength=n_ids).astype(bool)
        new_id = np.cumsum(present) - 1
        return new_id[ids], int(present.sum())
    unique, inverse = np.unique(ids, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64, copy=False), len(unique)


def n_configurations(cardinalities, columns):
    """Declared number of joint configurations ``prod_k r_{c_k}`` (exact Python int)."""
    return math.prod(int(cardinalities[c]) for c in columns)


def config_ids(codes, cardinalities, columns):
    """Configuration id of every row over ``columns`` (see module docstring).

    Returns
    -------
    ids : ndarray of shape (n_samples,), int64
    n_ids : int
        Size of the id space; equals ``prod r`` unless the ids were compressed, in which
        case it is the number of observed configurations.
    """
    ids = np.zeros(codes.shape[0], dtype=np.int64)
    n_ids = 1
    for column in columns:
        ids, n_ids = extend_ids(ids, n_ids, codes, cardinalities, column)
    return ids, n_ids


def extend_ids(ids, n_ids, codes, cardinalities, column):
    """Ids over ``columns + [column]`` from the ids over ``columns`` (one more radix digit)."""
    r = int(cardinalities[column])
    if not dense_is_small(n_ids * r, len(ids)):
        ids, n_ids = compress_ids(ids, n_ids)
    return ids * r + codes[:, column], n_ids * r


def table_from_ids(ids, n_ids, child_codes, r_child, weights=None):
    """Count table ``N[j, k]`` = weight of the rows with parent configuration id ``j`` and
    child state ``k``.

    Returns an array of shape (n_rows, r_child); rows may be empty parent configurations
    (every decomposable score gives them 0).
    """
    if not dense_is_small(n_ids * r_child, len(ids)):
        ids, n_ids = compress_ids(ids, n_ids)
    flat = count_cells(ids * r_child + child_codes, n_ids * r_child, weights)
    return flat.reshape(n_ids, r_child)


def family_table(codes, cardinalities, child, parents, weights=None):
    """Count table of the family ``child | parents``: shape (rows, r_child)."""
    ids, n_ids = config_ids(codes, cardinalities, parents)
    return table_from_ids(ids, n_ids, codes[:, child], int(cardinalities[child]), weights)


def cpt_counts(codes, cardinalities, child, parents, weights=None):
    """Dense count array of ``child`` given ``parents``, shape ``(r_p1, ..., r_pk, r_child)``,
    float64 (C order: the layout of a CPT). The caller bounds its size."""
    columns = list(parents) + [child]
    shape = tuple(int(cardinalities[c]) for c in columns)
    ids = _mixed_radix_ids(codes, cardinalities, columns)
    return count_cells(ids, math.prod(shape), weights).reshape(shape).astype(np.float64, copy=False)


def observed_cpt_counts(codes, cardinalities, child, parents, weights=None):
    """The rows of :func:`cpt_counts` (reshaped to ``(q, r_child)``, ``q`` the number of
    parent configurations) that some row of ``codes`` has: ``(configurations, counts)``.
    Every other row of the dense array is 0. Memory O(rows) whatever ``q``: a family of
    many parents has millions of configurations of which the data observe a few.

    Returns
    -------
    configurations : ndarray of shape (n_observed,), int64
        The observed parent configurations' ids (module docstring, over ``parents``),
        increasing.
    counts : ndarray of shape (n_observed, r_child), float64
        Their rows of :func:`cpt_counts`, the same numbers (each cell sums the same rows'
        weights in the same order).
    """
    r = int(cardinalities[child])
    configurations, inverse = np.unique(_mixed_radix_ids(codes, cardinalities, parents),
                                        return_inverse=True)
    cells = inverse.reshape(-1) * r + codes[:, child]
    counts = count_cells(cells, len(configurations) * r, weights)
    return configurations, counts.reshape(-1, r).astype(np.float64, copy=False)


def _mixed_radix_ids(codes, cardinalities, columns):
    """Uncompressed configuration ids over ``columns`` (the caller bounds ``prod r``)."""
    ids = np.zeros(codes.shape[0], dtype=np.int64)
    for column in columns:
        ids = ids * int(cardinalities[column]) + codes[:, column]
    return ids


def contingency_tables(codes, cardinalities, x, y, z=(), weights=None):
    """Stratified contingency tables ``N[s, a, b]`` of ``x`` and ``y`` for each observed
    configuration ``s`` of the conditioning set ``z``; empty strata are dropped.

    Returns an array of shape (n_observed_strata, r_x, r_y).
    """
    r_x, r_y = int(cardinalities[x]), int(cardinalities[y])
    strata, n_strata = config_ids(codes, cardinalities, z)
    if not dense_is_small(n_strata * r_x * r_y, len(strata)):
        strata, n_strata = compress_ids(strata, n_strata)
    cell = (strata * r_x + codes[:, x]) * r_y + codes[:, y]
    tables = count_cells(cell, n_strata * r_x * r_y, weights).reshape(n_strata, r_x, r_y)
    if n_strata > 1:
        tables = tables[tables.sum(axis=(1, 2)) > 0]
    return tables


def one_hot(codes, cardinalities, rows=slice(None), dtype=np.float32):
    """Indicator matrix (n_rows, sum r_i), columns grouped by variable.

    A missing cell (code ``-1``, signed codes only) gives an all-zero indicator block, so a
    Gram product ``M^T M`` counts a pair of variables over the rows observing both. A
    continuous column (cardinality 0) has an empty block.
    """
    offsets = np.concatenate([[0], np.cumsum(cardinalities)[:-1]]).astype(np.intp)
    block = codes[rows]
    total = int(np.sum(cardinalities))
    size = block.shape[0] * total
    flat = (np.arange(block.shape[0], dtype=np.intp) * total)[:, None] + offsets + block
    matrix = np.zeros(size + 1, dtype=dtype)
    if block.dtype.kind == "i":
        flat[block < 0] = size  # missing cells write to a spare slot, dropped below
    empty = np.asarray(cardinalities) == 0
    if empty.any():  # continuous columns: no cell (their code 0 would land in the next block)
        flat[:, empty] = size
    matrix[flat.ravel()] = 1.0
    return matrix[:size].reshape(block.shape[0], total)


def pairwise_tables(codes, cardinalities, chunk_rows=1 << 16, weights=None):
    """All pairwise joint count tables at once, as one one-hot Gram matrix ``G = M^T W M``.

    ``G[o_i + a, o_j + b]`` = weight of the rows with ``x_i = a`` and ``x_j = b`` where
    ``o`` are the returned offsets; the diagonal block of ``i`` holds its marginal counts.
    Computed by BLAS in chunks and accumulated in float64: without weights in float32
    (exact: every partial sum is an integer below 2**24), with weights in float64.

    Returns
    -------
    gram : ndarray of shape (sum r, sum r), float64
    offsets : ndarray of shape (n_variables + 1,), int64
    """
    cardinalities = np.asarray(cardinalities, dtype=np.int64)
    total = int(cardinalities.sum())
    gram = np.zeros((total, total), dtype=np.float64)
    for start in range(0, codes.shape[0], chunk_rows):
        rows = slice(start, start + chunk_rows)
        if weights is None:
            block = one_hot(codes, cardinalities, rows)
            gram += block.T @ block
        else:
            block = one_hot(codes, cardinalities, rows, dtype=np.float64)
            gram += (block * weights[rows, None]).T @ block
    offsets = np.concatenate([[0], np.cumsum(cardinalities)]).astype(np.int64)
    return gram, offsets


def stratified_codes(codes, cardinalities, features, stratum):
    """Codes ``x_i r_s + s`` of the pairs (feature, stratum) and their cardinalities
    ``r_i r_s``: a pairwise table of these codes holds every table of two features within
    each stratum (its blocks are zero across different strata)."""
    r_s = int(cardinalities[stratum])
    combined = codes[:, features].astype(np.int64) * r_s + codes[:, [stratum]]
    return combined, np.asarray(cardinalities)[features] * r_s


def observed_together(codes, a, b, copies=None):
    """The rows where the discrete columns ``a`` and ``b`` (positions in ``codes``) are both
    observed (no code ``-1``), and their number counted as :func:`functional_pairs` counts
    rows (the total of ``copies``, integer row weights, when given): ``(mask, n_rows)``."""
    both = (codes[:, a] >= 0) & (codes[:, b] >= 0)
    n_rows = int(np.count_nonzero(both)) if copies is None else int(np.sum(copies[both]))
    return both, n_rows


def functional_pairs(codes, columns, sample=256, growth=16, copies=None):
    """Ordered pairs of the discrete ``columns`` (positions in ``codes``) where the second
    is a function of the first on the rows where both are observed: every observed state of
    the first occurs there with a single state of the second (a duplicated column, labels
    beside their codes, a region beside its cities, a treatment group beside the units
    that received it).

    ``b`` is a function of ``a`` exactly when, among the rows that observe both, each state
    of ``a`` holds one state of ``b``: the rows are sorted by ``a`` once, and the largest and
    smallest observed code of every ``b`` in each state of ``a`` (missing cells, code
    ``-1``, left out) are compared, for every ``b`` at once. Without missing cells these are
    all the rows. Only non-trivial relations are reported, read on the rows that observe
    both (:func:`observed_together`), the rule that keeps small configurations from
    looking functional:

    * ``b`` has two observed states or more there (a constant is a function of anything);
    * ``a`` has at most half as many observed states there as there are such rows (two rows
      per state on average): every column is a function of an identifier, whose states
      occur once each, and of a column with nearly as many states as rows, without the rows
      showing any relation. So a pair is never reported on fewer than 4 rows observed
      together (two states of ``a``, each twice).

    ``copies``: integer row weights, the number of rows each row of ``codes`` stands for
    (the copies of the distinct rows of chunked data, :func:`skbn._data.row_copies`), which
    the identifier rule counts; None: each row once.

    The pairs are tried on rows spread evenly over the data (every ``n // m``-th row, so
    that rows sorted by some column do not make them alike), first ``m = sample`` of them,
    then ``growth`` times as many, and so on up to every row: a counterexample among some
    rows refutes a pair for all rows, so each round tests only the pairs the previous one
    left.

    Returns
    -------
    list of (int, int)
        ``(a, b)``: ``b`` is a function of ``a``, in the order of ``columns`` (by ``a``,
        then ``b``). A one-to-one pair gives both ``(a, b)`` and ``(b, a)``.
    """
    n = len(codes)
    kept, sizes = [], []  # columns with two observed states or more, their code ranges
    for j in columns:
        observed = codes[:, j][codes[:, j] >= 0]
        if len(observed) and observed.max() > observed.min():
            kept.append(j)
            sizes.append(int(observed.max()) + 1)
    kept, everything = np.array(kept, dtype=np.intp), np.arange(len(kept))
    pending = {i: everything[everything != i] for i in range(len(kept))} if len(kept) > 1 else {}
    m = sample
    while pending:  # (column i -> the columns that may still be functions of it)
        step = max(1, n // m)
        involved = np.union1d(list(pending), np.concatenate(list(pending.values())))
        rows = codes[::step, kept[involved]][:m] if step > 1 else codes[:, kept[involved]]
        local = np.empty(len(kept), dtype=np.intp)  # position in ``kept`` -> column of ``rows``
        local[involved] = np.arange(len(involved))
        left = {}
        for i, others in pending.items():
            column = rows[:, local[i]]
            order = np.argsort(column, kind="stable")
            order = order[column[order] >= 0]  # (the rows that observe the first column)
            if not len(order):  # (no row to refute a pair)
                left[i] = others
                continue
            starts = np.flatnonzero(np.r_[True, np.diff(column[order]) != 0])
            seen = rows[order][:, local[others]].astype(np.int64)
            highest = np.maximum.reduceat(seen, starts, axis=0)  # (-1: none observed in the state)
            lowest = np.minimum.reduceat(np.where(seen >= 0, seen, np.iinfo(np.int64).max), starts, axis=0)
            agree = ((highest == lowest) | (highest < 0)).all(axis=0)
            if agree.any():
                left[i] = others[agree]
        pending = left
        if step == 1:
            break
        m *= growth
    pairs = []
    for i, others in pending.items():  # (every row was read)
        for k in others.tolist():
            both, n_rows = observed_together(codes, kept[i], kept[k], copies)
            together = codes[both][:, [kept[i], kept[k]]]
            if (len(together) and together[:, 1].max() > together[:, 1].min()
                    and 2 * np.count_nonzero(count_cells(together[:, 0], sizes[i])) <= n_rows):
                pairs.append((int(kept[i]), int(kept[k])))
    rank = {j: position for position, j in enumerate(columns)}
    return sorted(pairs, key=lambda pair: (rank[pair[0]], rank[pair[1]]))
