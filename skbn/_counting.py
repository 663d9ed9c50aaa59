"""The counting engine: sufficient statistics of discrete data, vectorised.

Every score and every conditional-independence test reads counts from here.
A configuration of a set of columns ``(c_1, ..., c_k)`` gets the mixed-radix id

    id = (...((x_{c_1} r_{c_2} + x_{c_2}) r_{c_3} + x_{c_3}) ...) r_{c_k} + x_{c_k}

(last column fastest, the C order of a CPT array), and a count table is one
``np.bincount`` over ids. When the product of cardinalities grows beyond the number
of rows, the ids are compressed to the observed configurations only, so memory stays
O(n_samples) whatever the parent set.
"""

import math

import numpy as np

__all__ = [
    "config_ids",
    "table_from_ids",
    "family_table",
    "contingency_tables",
    "pairwise_tables",
    "n_configurations",
]


def _compression_limit(n_samples):
    """Largest id space kept dense: beyond it a table would be mostly empty."""
    return max(2 * n_samples, 1 << 16)


def compress_ids(ids, n_ids):
    """Renumber ids to ``0..n_observed-1`` keeping their order; returns ``(ids, n_observed)``."""
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
    n_samples = codes.shape[0]
    limit = _compression_limit(n_samples)
    ids = np.zeros(n_samples, dtype=np.int64)
    n_ids = 1
    for column in columns:
        r = int(cardinalities[column])
        if n_ids * r > limit:
            ids, n_ids = compress_ids(ids, n_ids)
        ids = ids * r + codes[:, column]
        n_ids *= r
    return ids, n_ids


def extend_ids(ids, n_ids, codes, cardinalities, column):
    """Ids over ``columns + [column]`` from the ids over ``columns`` (one more radix digit)."""
    r = int(cardinalities[column])
    if n_ids * r > _compression_limit(len(ids)):
        ids, n_ids = compress_ids(ids, n_ids)
    return ids * r + codes[:, column], n_ids * r


def table_from_ids(ids, n_ids, child_codes, r_child):
    """Count table ``N[j, k]`` = #rows with parent configuration id ``j`` and child state ``k``.

    Returns an array of shape (n_rows, r_child); rows may be empty parent configurations
    (every decomposable score gives them 0).
    """
    if n_ids > len(ids):
        ids, n_ids = compress_ids(ids, n_ids)
    flat = np.bincount(ids * r_child + child_codes, minlength=n_ids * r_child)
    return flat.reshape(n_ids, r_child)


def family_table(codes, cardinalities, child, parents):
    """Count table of the family ``child | parents``: shape (rows, r_child)."""
    ids, n_ids = config_ids(codes, cardinalities, parents)
    return table_from_ids(ids, n_ids, codes[:, child], int(cardinalities[child]))


def contingency_tables(codes, cardinalities, x, y, z=()):
    """Stratified contingency tables ``N[s, a, b]`` of ``x`` and ``y`` for each observed
    configuration ``s`` of the conditioning set ``z``; empty strata are dropped.

    Returns an array of shape (n_observed_strata, r_x, r_y).
    """
    r_x, r_y = int(cardinalities[x]), int(cardinalities[y])
    strata, n_strata = config_ids(codes, cardinalities, z)
    if n_strata > len(strata):
        strata, n_strata = compress_ids(strata, n_strata)
    cell = (strata * r_x + codes[:, x]) * r_y + codes[:, y]
    tables = np.bincount(cell, minlength=n_strata * r_x * r_y).reshape(n_strata, r_x, r_y)
    if n_strata > 1:
        tables = tables[tables.sum(axis=(1, 2)) > 0]
    return tables


def one_hot(codes, cardinalities, rows=slice(None)):
    """Indicator matrix (n_rows, sum r_i) in float32, columns grouped by variable."""
    offsets = np.concatenate([[0], np.cumsum(cardinalities)[:-1]]).astype(np.intp)
    block = codes[rows]
    total = int(np.sum(cardinalities))
    flat = (np.arange(block.shape[0], dtype=np.intp) * total)[:, None] + offsets + block
    matrix = np.zeros(block.shape[0] * total, dtype=np.float32)
    matrix[flat.ravel()] = 1.0
    return matrix.reshape(block.shape[0], total)


def pairwise_tables(codes, cardinalities, chunk_rows=1 << 16):
    """All pairwise joint count tables at once, as one one-hot Gram matrix ``G = M^T M``.

    ``G[o_i + a, o_j + b]`` = #rows with ``x_i = a`` and ``x_j = b`` where ``o`` are the
    returned offsets; the diagonal block of ``i`` holds its marginal counts. Computed by
    BLAS in float32 chunks (exact: every partial sum is an integer below 2**24) and
    accumulated in float64.

    Returns
    -------
    gram : ndarray of shape (sum r, sum r), float64
    offsets : ndarray of shape (n_variables + 1,), int64
    """
    cardinalities = np.asarray(cardinalities, dtype=np.int64)
    total = int(cardinalities.sum())
    gram = np.zeros((total, total), dtype=np.float64)
    for start in range(0, codes.shape[0], chunk_rows):
        block = one_hot(codes, cardinalities, slice(start, start + chunk_rows))
        gram += block.T @ block
    offsets = np.concatenate([[0], np.cumsum(cardinalities)]).astype(np.int64)
    return gram, offsets
