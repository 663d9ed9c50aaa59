"""Stacks of candidate count tables, counted in one pass, for batched scoring.

A search often needs the tables of many families that differ in one place: hill climbing
and K2 need ``child | parents + {k}`` for every variable ``k``; exact search needs
``v | parents`` for every child ``v`` of one parent set. Both are counted by ONE weighted
``bincount`` over ``(row, variable)`` entries and handed to a score as a
:class:`TableStack` of their non-zero cells (empty cells and empty rows add 0 to every
decomposable score), so :meth:`skbn.scores.BaseScore.local_scores` evaluates all
candidates in a few vectorised passes.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from skbn._counting._tables import compress_ids, count_cells, dense_is_small

#: Counts are "small" (a kernel may evaluate a term once per distinct (candidate, count)
#: pair) when the largest row total is below this many times the number of rows.
SMALL_COUNT_FACTOR = 16


@dataclass(frozen=True)
class TableStack:
    """Count tables of ``n_candidates`` families, by their non-zero entries.

    Candidate ``c``'s table ``N^c[j, k]`` (parent configuration ``j``, child state ``k``)
    has row totals ``N^c_j = sum_k N^c[j, k]``.

    Attributes
    ----------
    cells : ndarray of shape (n_cells,)
        The non-zero ``N^c[j, k]`` of all candidates (float64, whole numbers when
        ``integral``), each candidate's cells in row-major order.
    cell_owner : ndarray of shape (n_cells,), int64
        Candidate of every cell.
    rows : ndarray of shape (n_rows,)
        The non-zero row totals ``N^c_j``.
    row_owner : ndarray of shape (n_rows,), int64, or None
        Candidate of every row total; None when all candidates share the same row totals
        (same parent set, different children).
    r_child : ndarray of shape (n_candidates,), int64
        Number of child states ``r`` of every candidate.
    n_parent_configs : ndarray of shape (n_candidates,), float64
        Declared number of parent configurations ``q`` of every candidate.
    n_parents : int
        Number of parents (the same for every candidate).
    total_weight : float
        Total weight ``n`` of the data (sum of every candidate's cells).
    integral : bool
        Every count is a whole number (unweighted data or integer weights).
    small_counts : bool
        ``integral`` and the counts are small against the number of rows, so a kernel may
        evaluate its terms once per distinct (candidate, count) pair; decided from the
        parent set alone, so a candidate's value never depends on its companions.
    dense : callable
        ``dense(c)`` returns candidate ``c``'s table as an array (rows, r) (for kernels
        that score one table at a time).
    """

    cells: np.ndarray
    cell_owner: np.ndarray
    rows: np.ndarray
    row_owner: np.ndarray | None
    r_child: np.ndarray
    n_parent_configs: np.ndarray
    n_parents: int
    total_weight: float
    integral: bool
    small_counts: bool
    dense: Callable[[int], np.ndarray]

    @property
    def n_candidates(self):
        return len(self.r_child)

    @property
    def max_count(self):
        """Largest row total (every cell is at most this)."""
        return float(self.rows.max(initial=0))


def _nonzero(matrix):
    """Values and column indices of the non-zero entries of a 2-D array, row-major."""
    flat = matrix.ravel()
    where = flat.nonzero()[0]
    return flat[where], where % matrix.shape[1]


def _small(rows, n_row_configs, integral, largest=None):
    """Whether counts are small: ``largest`` (default ``rows.max()``) row total + 1 is at
    most ``SMALL_COUNT_FACTOR`` times the number of row configurations."""
    if not (integral and len(rows) > 0):
        return False
    return (float(rows.max()) if largest is None else largest) + 1 <= SMALL_COUNT_FACTOR * n_row_configs


def added_parent_stack(stacked, r_child, cards, offsets, q_parents, n_parents, total_weight, integral,
                       largest_row_total=None, owner_of_column=None):
    """:class:`TableStack` of the families ``child | parents + {k}`` for every variable ``k``.

    ``stacked[j, b, o_k + a]`` (see :meth:`FamilyCounter.added_parent_tables`) counts rows
    with parent configuration ``j``, child state ``b`` and ``x_k = a``; candidate ``k``'s
    table has rows ``(j, a)`` and ``q_parents r_k`` declared configurations. ``cards`` and
    ``offsets`` describe the counted variables' blocks (all variables, or some of them).
    ``largest_row_total`` (default: the largest in ``stacked``) decides ``small_counts``; a
    caller counting some variables passes the largest over all of them, so a candidate's
    score never depends on which others were counted. ``owner_of_column`` (default:
    computed): ``np.repeat(np.arange(len(cards)), cards)``, the variable of every column.
    """
    total = int(offsets[-1])
    if owner_of_column is None:
        owner_of_column = np.repeat(np.arange(len(cards)), cards)
    cells, cell_columns = _nonzero(stacked.reshape(-1, total))
    rows, row_columns = _nonzero(np.add.reduce(stacked, axis=1))  # stacked.sum(axis=1)
    m = stacked.shape[0]

    def dense(k):
        block = stacked[:, :, offsets[k]:offsets[k + 1]].transpose(0, 2, 1)
        return block.reshape(-1, r_child)

    return TableStack(
        cells=cells, cell_owner=owner_of_column[cell_columns],
        rows=rows, row_owner=owner_of_column[row_columns],
        r_child=np.full(len(cards), r_child, dtype=np.int64),
        n_parent_configs=float(q_parents) * np.asarray(cards, dtype=np.float64),
        n_parents=n_parents, total_weight=total_weight, integral=integral,
        small_counts=_small(rows, m, integral, largest_row_total), dense=dense,
    )


def pair_family_stack(joint, r_child, cards, offsets, n_parents, total_weight, integral):
    """:class:`TableStack` of the families ``j | i`` of every ordered pair of variables.

    ``joint[s_j + b, o_i + a]`` counts the rows with ``x_j = b`` and state ``a`` of column
    block ``i`` (``s_j`` = first row of variable ``j``, ``o`` = ``offsets``), e.g. a one-hot
    Gram matrix. Candidate ``c = j p + i`` is the family of child ``j`` with parent block
    ``i``: its table has rows ``a`` (``cards[i]`` declared configurations) and columns ``b``,
    and its cells and row totals are exactly those of ``added_parent_stack`` for child
    ``j`` with no parents, so all pairs are scored in one batch (entries ``i = j`` are
    meaningless).
    """
    p = len(cards)
    total = int(offsets[-1])
    r_child = np.asarray(r_child, dtype=np.int64)
    row_starts = np.concatenate([[0], np.cumsum(r_child)]).astype(np.int64)
    owner_of_column = np.repeat(np.arange(p), cards)
    child_of_row = np.repeat(np.arange(p), r_child)
    flat = joint.ravel()
    where = np.flatnonzero(flat)
    cells = flat[where]
    cell_owner = child_of_row[where // total] * p + owner_of_column[where % total]
    # (p, total): sum over b, block by block as in ``added_parent_stack`` (same rounding)
    totals = np.stack([joint[a:b].sum(axis=0) for a, b in zip(row_starts[:-1], row_starts[1:])])
    flat_totals = totals.ravel()
    where = np.flatnonzero(flat_totals)
    rows = flat_totals[where]
    row_owner = (where // total) * p + owner_of_column[where % total]

    def dense(c):
        j, i = divmod(c, p)
        return joint[row_starts[j]:row_starts[j + 1], offsets[i]:offsets[i + 1]].T

    return TableStack(
        cells=cells, cell_owner=cell_owner, rows=rows, row_owner=row_owner,
        r_child=np.repeat(r_child, p),
        n_parent_configs=np.tile(np.asarray(cards, dtype=np.float64), p),
        n_parents=n_parents, total_weight=total_weight, integral=integral,
        small_counts=_small(rows, 1, integral), dense=dense,
    )


def marginal_stack(diagonal, r_features, r_stratum, n_parents, total_weight, integral):
    """:class:`TableStack` of the families ``j | c`` of every variable ``j``, from the
    diagonal of a one-hot Gram matrix.

    ``diagonal[o_j + b r_c + c]`` counts the rows with ``x_j = b`` and stratum ``c`` (the
    stratified codes ``x_j r_c + c`` of :func:`~skbn._counting.stratified_codes`, or the
    plain codes with ``r_stratum = 1``: then candidate ``j`` is the parentless family of
    ``j``). Candidate ``j``'s table has rows ``c`` (``r_stratum`` declared configurations)
    and columns ``b``; all candidates are scored in one batch instead of one
    :meth:`~skbn.scores.BaseScore.local_score` call each. Scored term by term
    (``small_counts`` is False): a candidate's value never depends on the others.
    """
    r_features = np.asarray(r_features, dtype=np.int64)
    owner = np.repeat(np.arange(len(r_features)), r_features * r_stratum)
    stratum = np.arange(len(owner)) % r_stratum  # blocks start at multiples of r_stratum
    where = np.flatnonzero(diagonal)
    totals = np.bincount(owner * r_stratum + stratum, weights=diagonal,
                         minlength=len(r_features) * r_stratum)  # N_{jc}: sum over b
    rows = np.flatnonzero(totals)

    def dense(j):
        block = diagonal[owner == j].reshape(int(r_features[j]), r_stratum)
        return block.T

    return TableStack(
        cells=diagonal[where].astype(np.float64), cell_owner=owner[where],
        rows=totals[rows], row_owner=rows // r_stratum, r_child=r_features,
        n_parent_configs=np.full(len(r_features), float(r_stratum)), n_parents=n_parents,
        total_weight=total_weight, integral=integral, small_counts=False, dense=dense,
    )


class DistinctRows:
    """The data as its distinct rows with their total weights (rows of weight 0 dropped).

    Exact search counts every family of every parent set; on the distinct rows (a few
    thousand for tens of thousands of rows of small networks) each count pass is short.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_variables)
    cardinalities : ndarray of shape (n_variables,)
    weights : ndarray of shape (n_samples,) or None

    Attributes
    ----------
    rows : ndarray of shape (n_distinct, n_variables)
    multiplicity : ndarray of shape (n_distinct,), float64
        Total weight of each distinct row (its number of copies without weights).
    total_weight : float
    integral : bool
    """

    def __init__(self, codes, cardinalities, weights=None):
        if weights is not None:
            keep = weights > 0
            codes, weights = codes[keep], weights[keep]
        rows, inverse = np.unique(codes, axis=0, return_inverse=True)
        self.rows = rows
        self.multiplicity = count_cells(inverse.reshape(-1), len(rows), weights).astype(np.float64)
        self.cards = np.asarray(cardinalities, dtype=np.int64)
        self.total_weight = float(self.multiplicity.sum())
        self.integral = bool(np.all(self.multiplicity == np.floor(self.multiplicity)))
        self._codes_t = np.ascontiguousarray(rows.T, dtype=np.int64)  # (p, n_distinct)
        self._tiled = np.tile(self.multiplicity, rows.shape[1])  # weights of (child, row) entries

    @property
    def n_rows(self):
        return self.rows.shape[0]

    def empty_ids(self):
        """Ids of the empty parent set (one configuration)."""
        return np.zeros(self.n_rows, dtype=np.int64), 1

    def add_parent(self, ids, n_ids, column):
        """Ids over one more parent, renumbered to the observed configurations; returns
        ``(ids, n_observed)`` (every distinct row has a positive weight, so ``n_observed``
        is the ``m`` of an upper bound)."""
        r = int(self.cards[column])
        if not dense_is_small(n_ids * r, self.n_rows):
            ids, n_ids = compress_ids(ids, n_ids)
        return compress_ids(ids * r + self.rows[:, column], n_ids * r)

    def children_stack(self, ids, n_ids, children, q, n_parents):
        """:class:`TableStack` of ``v | parents`` for every ``v`` in ``children`` (int array),
        for the parent set whose (observed) configuration ids are ``ids``."""
        cards = self.cards[children]
        offsets = np.zeros(len(children) + 1, dtype=np.int64)
        np.cumsum(cards, out=offsets[1:])
        total = int(offsets[-1])
        entries = self._codes_t[children] + offsets[:-1, None]
        entries += ids * total
        size = len(children) * self.n_rows
        table = count_cells(entries, n_ids * total, self._tiled[:size]).reshape(n_ids, total)
        cells, columns = _nonzero(table)
        rows = count_cells(ids, n_ids, self.multiplicity)
        rows = rows[rows > 0]

        def dense(c):
            return table[:, offsets[c]:offsets[c + 1]]

        return TableStack(
            cells=cells, cell_owner=np.repeat(np.arange(len(children)), cards)[columns],
            rows=rows, row_owner=None, r_child=cards,
            n_parent_configs=np.full(len(children), float(q)),
            n_parents=n_parents, total_weight=self.total_weight, integral=self.integral,
            small_counts=_small(rows, len(rows), self.integral), dense=dense,
        )
