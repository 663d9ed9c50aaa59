"""The counting context of one fit: the encoded data, its weights and the count caches."""

from collections import OrderedDict

import numpy as np

from skbn._counting._stacks import added_parent_stack
from skbn._counting._tables import (
    compress_ids,
    config_ids,
    count_cells,
    cpt_counts,
    dense_is_small,
    extend_ids,
    n_configurations,
    pairwise_tables,
    table_from_ids,
    weights_are_integral,
)

#: Number of parent sets whose configuration ids a :class:`FamilyCounter` keeps.
ID_CACHE_SIZE = 64


class FamilyCounter:
    """Weighted count tables of one data set, with the caches a search reuses.

    Lives only while an estimator fits (it holds the data). Cache policy: the one-hot
    Gram matrix of all pairs is computed once, on first use; configuration ids are kept
    for the :data:`ID_CACHE_SIZE` parent sets used last (least recently used dropped), so
    a family ``parents + {k}`` is counted by extending the cached ids of ``parents`` by
    one radix digit. Scores are cached by the scores' own
    :class:`~skbn.scores.FamilyScoreCache`, never here.

    Parameters
    ----------
    data : EncodedData
        Codes, cardinalities and optional row weights (``data.weights``).

    Attributes
    ----------
    codes, cardinalities, weights
        Those of ``data``.
    total_weight : float
        Number of rows, or the sum of the weights.
    integral : bool
        Every count is a whole number (no weights, or integer weights).
    offsets : ndarray of shape (n_variables + 1,)
        Start of every variable's block of states in the one-hot layout.
    """

    def __init__(self, data):
        self.codes = data.codes
        self.cardinalities = np.asarray(data.cardinalities, dtype=np.int64)
        self.weights = data.weights
        self.n_samples, self.n_variables = data.codes.shape
        self.total_weight = data.total_weight
        self.integral = weights_are_integral(self.weights)
        self.offsets = np.concatenate([[0], np.cumsum(self.cardinalities)]).astype(np.int64)
        self._ids = OrderedDict()
        self._gram = None
        self._shifted = None
        self._entry_weights = None

    # ------------------------------------------------------------------ ids
    def config_ids(self, columns):
        """``(ids, n_ids)`` of the configurations of ``columns`` (a tuple), cached."""
        hit = self._ids.get(columns)
        if hit is not None:
            self._ids.move_to_end(columns)
            return hit
        prefix = self._ids.get(columns[:-1]) if columns else None
        if prefix is not None:
            hit = extend_ids(*prefix, self.codes, self.cardinalities, columns[-1])
        else:
            hit = config_ids(self.codes, self.cardinalities, columns)
        self._ids[columns] = hit
        if len(self._ids) > ID_CACHE_SIZE:
            self._ids.popitem(last=False)
        return hit

    # --------------------------------------------------------------- tables
    def family_table(self, child, parents):
        """Count table ``N[j, k]`` of ``child | parents`` (parents a sorted tuple)."""
        ids, n_ids = self.config_ids(tuple(parents))
        return table_from_ids(ids, n_ids, self.codes[:, child], int(self.cardinalities[child]), self.weights)

    def extended_family_table(self, child, parents, extra):
        """Count table of ``child | parents + {extra}``, its rows ordered as the ids of
        ``parents`` extended by ``extra`` (any row order scores the same)."""
        if not parents:
            return self.pair_table(extra, child)
        ids, n_ids = self.config_ids(tuple(parents))
        ids, n_ids = extend_ids(ids, n_ids, self.codes, self.cardinalities, extra)
        return table_from_ids(ids, n_ids, self.codes[:, child], int(self.cardinalities[child]), self.weights)

    def pairwise(self):
        """``(gram, offsets)`` of :func:`~skbn._counting.pairwise_tables`, computed once."""
        if self._gram is None:
            self._gram = pairwise_tables(self.codes, self.cardinalities, weights=self.weights)
        return self._gram

    def pair_table(self, parent, child):
        """Count table ``N[a, b]`` of ``child | parent`` from the Gram matrix."""
        gram, offsets = self.pairwise()
        return gram[offsets[parent]:offsets[parent + 1], offsets[child]:offsets[child + 1]]

    def cpt_counts(self, child, parents):
        """Dense counts of ``child`` given ``parents`` (in that order), CPT-shaped."""
        return cpt_counts(self.codes, self.cardinalities, child, parents, self.weights)

    def added_parent_tables(self, child, parents):
        """Tables of ``child | parents + {k}`` for every variable ``k``, in one pass.

        With ``c`` the id of each row's configuration of ``(parents, child)``, one
        ``bincount`` over ``c * sum(r) + o_k + x_k`` for all variables ``k`` at once counts
        ``G[j, b, o_k + a]`` (parent configuration ``j``, child state ``b``, ``x_k = a``);
        for ``parents = ()`` this is the child's block of the one-hot Gram matrix.

        Returns
        -------
        stack : TableStack
            Candidate ``k`` = the family with ``k`` added (entries for ``k = child`` and
            ``k`` in ``parents`` are meaningless).
        family : ndarray of shape (m, r_child)
            The table of ``child | parents`` itself (rows = the ``m`` id values).
        dense : bool
            Whether the ``m`` rows are all ``q`` declared parent configurations in C order
            (then dropping a parent is a marginal of ``family``).
        """
        cards, offsets = self.cardinalities, self.offsets
        r_child = int(cards[child])
        total = int(offsets[-1])
        if not parents:
            gram, _ = self.pairwise()
            stacked, m = gram[offsets[child]:offsets[child + 1]][None, :, :], 1
        else:
            ids, m = self.config_ids(tuple(parents))
            n_entries = self.n_samples * self.n_variables
            if not dense_is_small(m * r_child * total, n_entries):
                ids, m = compress_ids(ids, m)
            if self._shifted is None:
                self._shifted = np.ascontiguousarray(self.codes, dtype=np.int64) + offsets[:-1]
                if self.weights is not None:
                    self._entry_weights = np.repeat(self.weights, self.n_variables)
            cell = (ids * r_child + self.codes[:, child]) * total
            flat = count_cells(cell[:, None] + self._shifted, m * r_child * total, self._entry_weights)
            stacked = flat.reshape(m, r_child, total).astype(np.float64, copy=False)
        q = n_configurations(cards, parents)
        states = np.arange(r_child)
        family = stacked[:, states, offsets[child] + states]
        stack = added_parent_stack(stacked, r_child, cards, offsets, q, len(parents) + 1,
                                   self.total_weight, self.integral)
        return stack, family, m == q
