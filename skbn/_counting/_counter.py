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
#: ... and at most this many bytes of ids (8 per row each): large data keep fewer sets.
ID_CACHE_BYTES = 1 << 28
#: (row, variable) entries counted per block by :meth:`FamilyCounter.added_parent_tables`
#: (32 MB of int64 scratch), so its memory does not grow with the number of rows.
BLOCK_ENTRIES = 1 << 22


class FamilyCounter:
    """Weighted count tables of one data set, with the caches a search reuses.

    Lives only while an estimator fits (it holds the data). Cache policy: the one-hot
    Gram matrix of all pairs is computed once, on first use; configuration ids are kept
    for the :data:`ID_CACHE_SIZE` parent sets used last (fewer if they would take more than
    :data:`ID_CACHE_BYTES`; least recently used dropped), so
    a family ``parents + {k}`` is counted by extending the cached ids of ``parents`` by
    one radix digit. Rows in groups that share cells (``data.groups``: the completions
    of incomplete rows from EM's E-step) are counted by group where the cells are shared
    (:meth:`added_parent_tables`, :meth:`pairwise`). Scores are cached by the scores' own
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
        self._id_cache_size = max(1, min(ID_CACHE_SIZE, ID_CACHE_BYTES // (8 * max(self.n_samples, 1))))
        self._gram = None
        self._shifted = None
        self.groups = getattr(data, "groups", None)
        self._group_plan = None

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
        if len(self._ids) > self._id_cache_size:
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
            if self.groups is not None:
                self._gram = self._grouped_pairwise(), self.offsets
            else:
                self._gram = pairwise_tables(self.codes, self.cardinalities, weights=self.weights)
        return self._gram

    def _grouped_pairwise(self):
        """The one-hot Gram matrix :math:`G = \\sum_t w_t h_t h_t^T` of grouped rows.

        Row ``t``'s indicator splits into its group's shared cells and its own:
        :math:`h_t = s_{g(t)} + f_t`, so

        .. math::

            G = \\sum_g W_g s_g s_g^T + S^T F + F^T S + \\sum_t w_t f_t f_t^T,
            \\qquad W_g = \\sum_{t \\in g} w_t, \\quad F_g = \\sum_{t \\in g} w_t f_t :

        two products of (groups x states) matrices and one sparse product over the
        unshared cells only. Same counts as :func:`pairwise_tables`, summed in another order.
        """
        from scipy import sparse

        plan = self._grouping()
        total, n_groups = int(self.offsets[-1]), plan["n_groups"]
        shared = np.zeros((n_groups, total))
        g_index, k_index = np.nonzero(plan["shared"])
        shared[g_index, plan["shifted"][g_index, k_index]] = 1.0
        group_weight = count_cells(self.groups.group, n_groups, plan["weights"])
        free_by_group = count_cells(self.groups.group[plan["free_rows"]] * total + plan["free_shifted"],
                                    n_groups * total, plan["free_weights"]).reshape(n_groups, total)
        cross = shared.T @ free_by_group
        free = sparse.csr_matrix((plan["free_weights"], (plan["free_rows"], plan["free_shifted"])),
                                 shape=(self.n_samples, total))
        free_gram = (free.T @ (free > 0).astype(np.float64)).toarray()
        return (shared * group_weight[:, None]).T @ shared + cross + cross.T + free_gram

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
        elif self.groups is not None:
            ids, m = self.config_ids(tuple(parents))
            if not dense_is_small(m * r_child * total, self.n_samples * self.n_variables):
                ids, m = compress_ids(ids, m)
            flat = self._grouped_added_parent_counts(ids * r_child + self.codes[:, child], m * r_child)
            stacked = flat.reshape(m, r_child, total)
        else:
            ids, m = self.config_ids(tuple(parents))
            n_entries = self.n_samples * self.n_variables
            if not dense_is_small(m * r_child * total, n_entries):
                ids, m = compress_ids(ids, m)
            cell = (ids * r_child + self.codes[:, child]) * total
            n_cells = m * r_child * total
            # blocks of rows keep the (rows x variables) entry scratch O(block) instead of
            # O(n_samples * n_variables) -- unless the table itself is that large
            block = max(1, BLOCK_ENTRIES // self.n_variables) if n_cells <= BLOCK_ENTRIES else self.n_samples
            if self._shifted is None:  # x_k + o_k of every entry, row-major; 2 or 4 bytes an
                # entry beyond one block (int64 adds faster, but costs 8 bytes an entry)
                dtype = (np.int64 if n_entries <= BLOCK_ENTRIES
                         else np.uint16 if total <= np.iinfo(np.uint16).max else np.int32)
                self._shifted = np.ascontiguousarray(self.codes + offsets[:-1].astype(dtype), dtype=dtype)
            flat = None
            for start in range(0, self.n_samples, block):
                rows = slice(start, start + block)
                entries = cell[rows, None] + self._shifted[rows]
                weights = None if self.weights is None else np.repeat(self.weights[rows], self.n_variables)
                counts = count_cells(entries, n_cells, weights)
                flat = counts if flat is None else np.add(flat, counts, out=flat)
            stacked = flat.reshape(m, r_child, total).astype(np.float64, copy=False)
        q = n_configurations(cards, parents)
        states = np.arange(r_child)
        family = stacked[:, states, offsets[child] + states]
        stack = added_parent_stack(stacked, r_child, cards, offsets, q, len(parents) + 1,
                                   self.total_weight, self.integral)
        return stack, family, m == q

    def _grouped_added_parent_counts(self, cell, n_family_cells):
        """The counts ``G[c, o_k + a]`` of :meth:`added_parent_tables` on grouped rows.

        With rows in groups sharing cells (``data.groups``, :class:`skbn._data.RowGroups`),

        .. math::

            G[c, o_k + a] = \\sum_{g,\\, k \\text{ shared in } g} [x_{gk} = a]\\, W_{gc}
            + \\sum_{t,\\, k \\text{ not shared in } g(t)} [c_t = c]\\,[x_{tk} = a]\\, w_t,
            \\qquad W_{gc} = \\sum_{t \\in g,\\, c_t = c} w_t :

        a shared cell is counted once per distinct (group, family cell) pair with the
        pair's total weight, and only the other cells once per row. For the completions of
        incomplete rows (few distinct family cells per group, few missing cells per row)
        that is a small fraction of the ``n_samples * n_variables`` entries. The same
        counts as the row-by-row pass, summed in another order.
        """
        plan = self._grouping()
        total = int(self.offsets[-1])
        n_cells = n_family_cells * total
        n_groups = plan["n_groups"]
        key = self.groups.group * n_family_cells + cell
        if dense_is_small(n_groups * n_family_cells, self.n_samples):
            pair_weight = count_cells(key, n_groups * n_family_cells, plan["weights"])
            pairs = np.flatnonzero(pair_weight)
            pair_weight = pair_weight[pairs]
        else:
            pairs, inverse = np.unique(key, return_inverse=True)
            pair_weight = count_cells(inverse.reshape(-1), pairs.size, plan["weights"])
        pair_group, pair_cell = np.divmod(pairs, n_family_cells)
        flat = count_cells(cell[plan["free_rows"]] * total + plan["free_shifted"], n_cells,
                           plan["free_weights"])
        block = max(1, BLOCK_ENTRIES // self.n_variables)
        for start in range(0, pairs.size, block):
            part = slice(start, start + block)
            groups = pair_group[part]
            entries = (pair_cell[part] * total)[:, None] + plan["shifted"][groups]
            weights = pair_weight[part, None] * plan["shared"][groups]
            np.add(flat, count_cells(entries, n_cells, weights), out=flat)
        return flat

    def _grouping(self):
        """Per-fit arrays of the grouped count (built once): each group's shared cells
        ``o_k + x_{gk}`` (weight mask ``shared``) and the unshared (row, column) entries."""
        if self._group_plan is None:
            group, shared = self.groups.group, self.groups.shared
            n_groups = shared.shape[0]
            weights = np.ones(self.n_samples) if self.weights is None else self.weights
            first = np.zeros(n_groups, dtype=np.int64)
            first[group[::-1]] = np.arange(self.n_samples - 1, -1, -1)  # a row of each group
            offsets = self.offsets[:-1]
            free_rows, free_cols = np.nonzero(~shared[group])
            self._group_plan = {
                "n_groups": n_groups,
                "weights": weights,
                "shifted": np.asarray(self.codes[first], dtype=np.int64) + offsets,
                "shared": shared.astype(np.float64),
                "free_rows": free_rows,
                "free_shifted": (np.asarray(self.codes[free_rows, free_cols], dtype=np.int64)
                                 + offsets[free_cols]),
                "free_weights": weights[free_rows],
            }
        return self._group_plan
