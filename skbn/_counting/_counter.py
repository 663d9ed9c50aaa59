"""The counting context of one fit: the encoded data, its weights and the count caches."""

from dataclasses import replace

import numpy as np
from scipy import sparse

from skbn._counting._cache import BoundedCache
from skbn._counting._stacks import SMALL_COUNT_FACTOR, added_parent_stack, pair_family_stack
from skbn._counting._tables import (
    DENSE_CELLS_PER_ENTRY,
    DENSE_FLOOR,
    compress_ids,
    config_ids,
    count_cells,
    cpt_counts,
    dense_is_small,
    extend_ids,
    n_configurations,
    one_hot,
    pairwise_tables,
    table_from_ids,
)
from skbn._data import weights_are_integral

#: Number of parent sets whose configuration ids a :class:`FamilyCounter` keeps.
ID_CACHE_SIZE = 64
#: ... and at most this many bytes of ids (8 per row each): large data keep fewer sets.
ID_CACHE_BYTES = 1 << 28
#: (row, variable) entries counted per block by :meth:`FamilyCounter.added_parent_tables`
#: (32 MB of int64 scratch), so its memory does not grow with the number of rows.
BLOCK_ENTRIES = 1 << 22
#: Unweighted data count the candidate tables of every variable by a sparse product with
#: their one-hot matrix (float32, ``n_samples x sum r``, kept for the fit) while it takes at
#: most this many bytes and the variables have at most :data:`ONE_HOT_MEAN_STATES` states on
#: average: the product adds ``sum r`` floats a row where ``bincount`` counts ``n_variables``
#: entries a row (measured with 40 or 300 variables of r states: 2-3x faster for r <= 3,
#: 1.7-2.3x for r = 4, even at r = 6-8, slower at r = 12).
ONE_HOT_BYTES = 1 << 28
ONE_HOT_MEAN_STATES = 4
#: ... and at least this many rows: below, building the sparse indicator matrix costs more
#: than the ``bincount`` it replaces (multistart tabu on CHILD / ALARM: bincount 6 % / 1 %
#: faster at 1,000 rows, even at 2,000, the product 10 % / 15 % faster at 4,000).
ONE_HOT_MIN_ROWS = 2048
#: Below :data:`ONE_HOT_MIN_ROWS` rows, the candidate tables of a family with few cells are
#: counted by a *dense* product instead of ``bincount``: the (cells x rows) float32
#: indicator of the family's cells times the one-hot matrix (same byte bound), one BLAS
#: call of ``n_samples * cells * sum r`` multiply-adds against ``bincount``'s
#: ``n_samples * n_variables`` entries (and their ``n_samples * n_variables`` cell ids). It is
#: used when ``cells * sum r <= DENSE_PRODUCT_STATES * n_variables``, i.e. at most this many
#: cells times the mean number of states per variable (measured on ALARM at 1,000 rows,
#: 37 variables of 2.8 states on average: the product takes 17 us at 4 cells, 23 us at 8 and
#: 56 us at 16 against 51 us for the cell ids and ``bincount``).
DENSE_PRODUCT_STATES = 32


class FamilyCounter:
    """Weighted count tables of one data set, with the caches a search reuses.

    Lives only while an estimator fits (it holds the data). Cache policy: the one-hot
    Gram matrix of all pairs is computed once, on first use; configuration ids are kept
    for the ``id_cache_size`` parent sets used last (fewer if they would take more than
    ``id_cache_bytes``; least recently used dropped, in a
    :class:`~skbn._counting._cache.BoundedCache`), so
    a family ``parents + {k}`` is counted by extending the cached ids of ``parents`` by
    one radix digit. Rows in groups that share cells (``data.groups``: the completions
    of incomplete rows from EM's E-step) are counted by group where the cells are shared
    (:meth:`added_parent_tables`, :meth:`pairwise`). Scores are cached by the local-score module's
    :class:`~skbn._engines._local_scores.FamilyScoreCache`, never here.

    Experimental rows (``data.intervened``, from ``fit(X, interventions=...)``): every table
    of a family whose child ``i`` was set by intervention in some rows is counted on the
    other rows only (Cooper & Yoo 1999: the intervened value of ``i`` says nothing about
    ``P(i | parents)``). The children with the same intervened rows share one counter of
    the kept rows (a copy of their codes and weights, built on first use, with its own
    caches: its Gram matrix and ids are never those of another mask), to which every
    per-child method (:meth:`family_table`, :meth:`extended_family_table`,
    :meth:`pair_table`, :meth:`cpt_counts`, :meth:`added_parent_tables`) hands the call;
    children never intervened on are counted here, on every row. :meth:`pairwise` is the
    Gram matrix of every row and :meth:`pair_stack` (all children at once) is refused on
    such data. Without ``data.intervened`` nothing changes (one ``None`` test per call).

    Parameters
    ----------
    data : EncodedData
        Codes, cardinalities and optional row weights (``data.weights``).
    block_entries : int, default=BLOCK_ENTRIES
        (row, variable) entries counted per block of rows (:data:`BLOCK_ENTRIES`).
    id_cache_size, id_cache_bytes : int, default=ID_CACHE_SIZE, ID_CACHE_BYTES
        The configuration ids of at most ``id_cache_size`` parent sets are kept, and at most
        ``id_cache_bytes`` of them (8 bytes a row each), but at least one set.
    one_hot_bytes, one_hot_min_rows, one_hot_mean_states : int, \
default=ONE_HOT_BYTES, ONE_HOT_MIN_ROWS, ONE_HOT_MEAN_STATES
        When unweighted candidate tables are counted by the sparse one-hot product
        (:data:`ONE_HOT_BYTES`, :data:`ONE_HOT_MIN_ROWS`, :data:`ONE_HOT_MEAN_STATES`).
    dense_product_states : int, default=DENSE_PRODUCT_STATES
        Below ``one_hot_min_rows`` rows, when the candidate tables of a family with few cells
        are counted by the dense one-hot product (:data:`DENSE_PRODUCT_STATES`).
    dense_floor, dense_cells_per_entry : int, default=DENSE_FLOOR, DENSE_CELLS_PER_ENTRY
        The compression rule of this counter's tables
        (:func:`~skbn._counting.dense_is_small`).

    None of these changes a count (but for the rounding of fractional weights summed in
    other blocks): they trade memory for time, and tests set them small to reach every
    path on small data.

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

    def __init__(self, data, *, block_entries=BLOCK_ENTRIES, id_cache_size=ID_CACHE_SIZE,
                 id_cache_bytes=ID_CACHE_BYTES, one_hot_bytes=ONE_HOT_BYTES,
                 one_hot_min_rows=ONE_HOT_MIN_ROWS, one_hot_mean_states=ONE_HOT_MEAN_STATES,
                 dense_product_states=DENSE_PRODUCT_STATES, dense_floor=DENSE_FLOOR,
                 dense_cells_per_entry=DENSE_CELLS_PER_ENTRY):
        self._options = {  # the tuning knobs, handed to the counters of intervened rows
            "block_entries": block_entries, "id_cache_size": id_cache_size, "id_cache_bytes": id_cache_bytes,
            "one_hot_bytes": one_hot_bytes, "one_hot_min_rows": one_hot_min_rows,
            "one_hot_mean_states": one_hot_mean_states, "dense_product_states": dense_product_states,
            "dense_floor": dense_floor,
            "dense_cells_per_entry": dense_cells_per_entry}
        self.block_entries = block_entries
        self.dense_floor, self.dense_cells_per_entry = dense_floor, dense_cells_per_entry
        self.codes = data.codes
        self.cardinalities = np.asarray(data.cardinalities, dtype=np.int64)
        self.weights = data.weights
        self.n_samples, self.n_variables = data.codes.shape
        self.total_weight = data.total_weight
        self.integral = weights_are_integral(self.weights)
        self.offsets = np.concatenate([[0], np.cumsum(self.cardinalities)]).astype(np.int64)
        self._column_owner = np.repeat(np.arange(self.n_variables), self.cardinalities)
        self._ids = BoundedCache(max(1, min(id_cache_size, id_cache_bytes // (8 * max(self.n_samples, 1)))))
        self._gram = None
        self._pair_stack = None
        self._shifted = None
        self._one_hot = None  # (matrix, ones, row pointers) of the sparse-product count, or False
        self._one_hot_matrix = None  # the float32 one-hot matrix of the rows, or False
        self._largest_marginal = None
        self.groups = getattr(data, "groups", None)
        self._group_plan = None
        self._data = data
        self._masks = _child_masks(getattr(data, "intervened", None))  # None: observational
        self._kept = {}  # mask key -> FamilyCounter of the rows kept for those children

    @property
    def masked(self):
        """Whether some child has intervened rows (its tables leave them out)."""
        return self._masks is not None

    def _child_counter(self, child):
        """The counter of ``child``'s non-intervened rows, or None when it has no mask."""
        key = self._masks[child]
        if key is None:
            return None
        counter = self._kept.get(key)
        if counter is None:
            keep = ~self._data.intervened[:, child]
            weights = self.weights
            sub = replace(self._data, codes=np.asfortranarray(self.codes[keep]),
                          weights=None if weights is None else weights[keep], groups=None, intervened=None)
            counter = self._kept[key] = FamilyCounter(sub, **self._options)
        return counter

    # ------------------------------------------------------------------ ids
    def config_ids(self, columns):
        """``(ids, n_ids)`` of the configurations of ``columns`` (a tuple), cached."""
        hit = self._ids.get(columns)
        if hit is not None:
            return hit
        prefix = self._ids.get(columns[:-1]) if columns else None
        if prefix is not None:
            hit = extend_ids(*prefix, self.codes, self.cardinalities, columns[-1])
        else:
            hit = config_ids(self.codes, self.cardinalities, columns)
        self._ids.put(columns, hit)
        return hit

    # --------------------------------------------------------------- tables
    def family_table(self, child, parents):
        """Count table ``N[j, k]`` of ``child | parents`` (parents a sorted tuple)."""
        if self._masks is not None and self._masks[child] is not None:
            return self._child_counter(child).family_table(child, parents)
        ids, n_ids = self.config_ids(tuple(parents))
        return table_from_ids(ids, n_ids, self.codes[:, child], int(self.cardinalities[child]), self.weights)

    def extended_family_table(self, child, parents, extra):
        """Count table of ``child | parents + {extra}``, its rows ordered as the ids of
        ``parents`` extended by ``extra`` (any row order scores the same)."""
        if self._masks is not None and self._masks[child] is not None:
            return self._child_counter(child).extended_family_table(child, parents, extra)
        if not parents:
            return self.pair_table(extra, child)
        ids, n_ids = self.config_ids(tuple(parents))
        ids, n_ids = extend_ids(ids, n_ids, self.codes, self.cardinalities, extra)
        return table_from_ids(ids, n_ids, self.codes[:, child], int(self.cardinalities[child]), self.weights)

    def pairwise(self):
        """``(gram, offsets)`` of :func:`~skbn._counting.pairwise_tables`, computed once
        (over every row, intervened or not). Below ``one_hot_min_rows`` unweighted rows, from
        the one-hot matrix of the dense product (:meth:`_one_hot_rows`, then built once for
        both): the same float32 product, bit for bit."""
        if self._gram is None:
            matrix = (self._one_hot_rows()
                      if self.groups is None and self.n_samples < self._options["one_hot_min_rows"] else None)
            if self.groups is not None:
                self._gram = self._grouped_pairwise(), self.offsets
            elif matrix is not None:  # pairwise_tables' one chunk, on the dense product's matrix
                self._gram = (matrix.T @ matrix).astype(np.float64), self.offsets
            else:
                self._gram = pairwise_tables(self.codes, self.cardinalities, weights=self.weights)
        return self._gram

    def pair_stack(self):
        """:func:`~skbn._counting.pair_family_stack` of the Gram matrix: the tables of the
        families ``j | i`` of every ordered pair of variables, computed once. Refused on
        data with intervened rows (the children's tables come from different rows)."""
        if self._masks is not None:
            raise ValueError("pair_stack mixes children counted on different rows; with intervened "
                             "rows, count each child's tables with added_parent_tables.")
        if self._pair_stack is None:
            gram, offsets = self.pairwise()
            self._pair_stack = pair_family_stack(gram, self.cardinalities, self.cardinalities, offsets, 1,
                                                 self.total_weight, self.integral)
        return self._pair_stack

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
        if self._masks is not None and self._masks[child] is not None:
            return self._child_counter(child).pair_table(parent, child)
        gram, offsets = self.pairwise()
        return gram[offsets[parent]:offsets[parent + 1], offsets[child]:offsets[child + 1]]

    def cpt_counts(self, child, parents):
        """Dense counts of ``child`` given ``parents`` (in that order), CPT-shaped."""
        if self._masks is not None and self._masks[child] is not None:
            return self._child_counter(child).cpt_counts(child, parents)
        return cpt_counts(self.codes, self.cardinalities, child, parents, self.weights)

    def added_parent_tables(self, child, parents, columns=None):
        """Tables of ``child | parents + {k}`` for every variable ``k`` (or every ``k`` in
        ``columns``), in one pass.

        With ``c`` the id of each row's configuration of ``(parents, child)``, one
        ``bincount`` over ``c * sum(r) + o_k + x_k`` for all variables ``k`` at once counts
        ``G[j, b, o_k + a]`` (parent configuration ``j``, child state ``b``, ``x_k = a``);
        for ``parents = ()`` this is the child's block of the one-hot Gram matrix. Unweighted
        data count every variable's blocks by a sparse product instead (the ``(cells x
        rows)`` indicator of ``c`` times the cached one-hot matrix, see
        :data:`ONE_HOT_BYTES`): the same tables, bit for bit. With
        ``columns`` only those variables' blocks are counted (``o`` then their offsets in
        a layout of these blocks alone): a search restricted to a few candidate parents
        (e.g. MMHC's skeleton) counts ``n_samples * len(columns)`` entries, not
        ``n_samples * n_variables``, with the same tables.

        Parameters
        ----------
        child : int
        parents : tuple of int
            Sorted parent set.
        columns : sequence of int or None
            Sorted variables ``k`` to count, holding ``child`` (its entry gives the family
            table); None: every variable.

        Returns
        -------
        stack : TableStack
            Candidate ``c`` = the family with ``columns[c]`` (variable ``c`` without
            ``columns``) added; entries for ``k = child`` and ``k`` in ``parents`` are
            meaningless. Whether its counts are small (:attr:`TableStack.small_counts`)
            depends on the parent set alone, never on ``columns``.
        family : ndarray of shape (m, r_child)
            The table of ``child | parents`` itself (rows = the ``m`` id values).
        dense : bool
            Whether the ``m`` rows are all ``q`` declared parent configurations in C order
            (then dropping a parent is a marginal of ``family``).
        """
        if self._masks is not None and self._masks[child] is not None:
            return self._child_counter(child).added_parent_tables(child, parents, columns)
        if columns is None:
            cards, offsets, position = self.cardinalities, self.offsets, child
        else:
            columns = np.asarray(columns, dtype=np.int64)
            cards = self.cardinalities[columns]
            offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)
            position = int(np.searchsorted(columns, child))
        r_child = int(self.cardinalities[child])
        total = int(offsets[-1])
        if not parents:
            gram, full = self.pairwise()
            block = gram[full[child]:full[child + 1]]
            if columns is not None:
                block = block[:, np.concatenate([np.arange(full[k], full[k + 1]) for k in columns.tolist()])]
            stacked, m = block[None, :, :], 1
        elif self.groups is not None and columns is None:
            ids, m = self.config_ids(tuple(parents))
            if not self._dense(m * r_child * total, self.n_samples * self.n_variables):
                ids, m = compress_ids(ids, m)
            flat = self._grouped_added_parent_counts(ids * r_child + self.codes[:, child], m * r_child)
            return self._added_parent_stack(child, parents, flat, m, cards, offsets, position)
        else:
            ids, m = self.config_ids(tuple(parents))
            # compression and row blocks as when counting every variable, so ``columns``
            # changes no table (nor a weighted sum's rounding)
            all_cells = m * r_child * int(self.offsets[-1])
            if not self._dense(all_cells, self.n_samples * self.n_variables):
                ids, m = compress_ids(ids, m)
                all_cells = m * r_child * int(self.offsets[-1])
            product = self._one_hot_product() if columns is None else None
            n_family = m * r_child
            if (product is None and columns is None and self.n_samples < self._options["one_hot_min_rows"]
                    and n_family * total <= self._options["dense_product_states"] * self.n_variables):
                matrix = self._one_hot_rows()
                if matrix is not None:
                    # G[(j, b), :] as below, by a dense product (few cells: one small BLAS call)
                    indicator = np.zeros((n_family, self.n_samples), dtype=np.float32)
                    indicator[ids * r_child + self.codes[:, child], np.arange(self.n_samples)] = 1.0
                    return self._added_parent_stack(child, parents, (indicator @ matrix).astype(np.float64),
                                                    m, cards, offsets, position)
            if product is not None:
                # G[(j, b), :] = sum of the one-hot rows M[n] of the rows n in cell (j, b): the
                # (cells x rows) indicator matrix times M, summed in float32 (exact: every
                # count is below 2**24); the same tables as the bincount below, bit for bit
                matrix, ones, row_pointers = product
                indicator = sparse.csc_matrix((ones, ids * r_child + self.codes[:, child], row_pointers),
                                              shape=(m * r_child, self.n_samples))
                return self._added_parent_stack(child, parents, (indicator @ matrix).astype(np.float64),
                                                m, cards, offsets, position)
            cell = (ids * r_child + self.codes[:, child]) * total
            n_cells = m * r_child * total
            # blocks of rows keep the (rows x variables) entry scratch O(block) instead of
            # O(n_samples * n_variables) -- unless the table itself is that large
            block = (self.n_samples if all_cells > self.block_entries
                     else max(1, self.block_entries // self.n_variables))
            shifted = self._shifted_codes() if columns is None else None
            flat = None
            for start in range(0, self.n_samples, block):
                rows = slice(start, start + block)
                if columns is None:
                    entries = cell[rows, None] + shifted[rows]
                else:  # x_k + o_k in the layout of ``columns``
                    entries = cell[rows, None] + (self.codes[rows, columns] + offsets[:-1])
                weights = None if self.weights is None else np.repeat(self.weights[rows], entries.shape[1])
                counts = count_cells(entries, n_cells, weights)
                flat = counts if flat is None else np.add(flat, counts, out=flat)
            stacked = flat.astype(np.float64, copy=False)
        return self._added_parent_stack(child, parents, stacked, m, cards, offsets, position)

    def _added_parent_stack(self, child, parents, counts, m, cards, offsets, position):
        """``(stack, family, dense)`` of :meth:`added_parent_tables` from the flat counts
        ``G`` (``m x r_child x sum r``, float64) of the counted variables' blocks."""
        r_child = int(self.cardinalities[child])
        stacked = counts.reshape(m, r_child, int(offsets[-1]))
        q = n_configurations(self.cardinalities, parents)
        states = np.arange(r_child)
        family = stacked[:, states, offsets[position] + states]
        owners = self._column_owner if cards is self.cardinalities else None  # every variable counted
        stack = added_parent_stack(stacked, r_child, cards, offsets, q, len(parents) + 1,
                                   self.total_weight, self.integral, self._largest_row_total(family, parents),
                                   owners)
        return stack, family, m == q

    def _dense(self, n_cells, n_entries):
        """:func:`~skbn._counting.dense_is_small` with this counter's rule."""
        return dense_is_small(n_cells, n_entries, self.dense_floor, self.dense_cells_per_entry)

    def _one_hot_rows(self):
        """The float32 one-hot matrix ``M`` of the rows (built once, shared by the sparse and
        the dense product), or None: weighted data, ``2**24`` rows or more (float32 counts
        exact below) or ``M`` over :data:`ONE_HOT_BYTES`."""
        if self._one_hot_matrix is None:
            n, total = self.n_samples, int(self.offsets[-1])
            usable = (self.weights is None and n < (1 << 24)
                      and 4 * n * total <= self._options["one_hot_bytes"])
            self._one_hot_matrix = one_hot(self.codes, self.cardinalities) if usable else False
        return None if self._one_hot_matrix is False else self._one_hot_matrix

    def _one_hot_product(self):
        """``(M, ones, row pointers)`` for counting by a sparse product (built once), or None:
        no one-hot matrix ``M`` (:meth:`_one_hot_rows`), fewer than :data:`ONE_HOT_MIN_ROWS`
        rows, or more than :data:`ONE_HOT_MEAN_STATES` states per variable on average."""
        if self._one_hot is None:
            n, total = self.n_samples, int(self.offsets[-1])
            options = self._options
            usable = (n >= options["one_hot_min_rows"]
                      and total <= options["one_hot_mean_states"] * self.n_variables)
            matrix = self._one_hot_rows() if usable else None
            self._one_hot = ((matrix, np.ones(n, dtype=np.float32), np.arange(n + 1))
                             if matrix is not None else False)
        return self._one_hot or None

    def _shifted_codes(self):
        """``x_k + o_k`` of every (row, variable) entry, row-major, computed once: 2 or 4
        bytes an entry beyond one block (int64 adds faster, but costs 8 bytes an entry)."""
        if self._shifted is None:
            n_entries = self.n_samples * self.n_variables
            dtype = (np.int64 if n_entries <= self.block_entries
                     else np.uint16 if int(self.offsets[-1]) <= np.iinfo(np.uint16).max else np.int32)
            self._shifted = np.ascontiguousarray(self.codes + self.offsets[:-1].astype(dtype), dtype=dtype)
        return self._shifted

    def _largest_row_total(self, family, parents):
        """Largest row total of the candidate families ``child | parents + {k}`` over every
        variable ``k``: the largest parent-configuration count ``max_j N_j`` (a parent
        ``k`` splits nothing), or without parents the largest marginal count of any
        variable (from the Gram matrix's diagonal, computed once). Only the small-count
        decision reads it (:data:`~skbn._counting._stacks.SMALL_COUNT_FACTOR`): when the mean
        row total, a lower bound of the largest, already rules small counts out, the mean
        is returned instead (the same decision, without a pass over the table)."""
        if parents:
            mean = self.total_weight / family.shape[0]
            if mean + 1 > SMALL_COUNT_FACTOR * family.shape[0]:
                return mean
            return float(family.sum(axis=1).max(initial=0))
        if self._largest_marginal is None:
            gram, _ = self.pairwise()
            self._largest_marginal = float(np.diagonal(gram).max(initial=0))
        return self._largest_marginal

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
        if self._dense(n_groups * n_family_cells, self.n_samples):
            pair_weight = count_cells(key, n_groups * n_family_cells, plan["weights"])
            pairs = np.flatnonzero(pair_weight)
            pair_weight = pair_weight[pairs]
        else:
            pairs, inverse = np.unique(key, return_inverse=True)
            pair_weight = count_cells(inverse.reshape(-1), pairs.size, plan["weights"])
        pair_group, pair_cell = np.divmod(pairs, n_family_cells)
        flat = count_cells(cell[plan["free_rows"]] * total + plan["free_shifted"], n_cells,
                           plan["free_weights"])
        block = max(1, self.block_entries // self.n_variables)
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


def kept_row_groups(intervened, n_variables):
    """The children grouped by the rows their families are counted on (Cooper & Yoo 1999:
    a row where a child was set by intervention says nothing about its conditional).

    Parameters
    ----------
    intervened : ndarray of shape (n_samples, n_variables), bool, or None
        ``data.intervened``.
    n_variables : int

    Returns
    -------
    list of (ndarray of int, ndarray of bool or None)
        ``(children, keep)`` per distinct set of intervened rows, in order of each group's
        first child: ``keep`` the rows the group's families are counted on, None for every
        row (the children never intervened on; observational data give one such group).
    """
    masks = _child_masks(intervened)
    if masks is None:
        return [(np.arange(n_variables), None)]
    groups = {}
    for child, key in enumerate(masks):
        groups.setdefault(key, []).append(child)
    return [(np.asarray(children), None if key is None else ~intervened[:, children[0]])
            for key, children in groups.items()]


def _child_masks(intervened):
    """Per child, a key of its intervened rows (children with equal rows share it), or None
    for a child never intervened on; None when no child is (observational data)."""
    if intervened is None:
        return None
    hit = intervened.any(axis=0)
    if not hit.any():
        return None
    keys, masks = {}, []
    for child in range(intervened.shape[1]):
        if not hit[child]:
            masks.append(None)
            continue
        masks.append(keys.setdefault(np.packbits(intervened[:, child]).tobytes(), len(keys)))
    return masks
