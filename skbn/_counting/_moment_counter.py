"""The per-fit context of the continuous statistics: :class:`MomentCounter`.

The twin of :class:`~skbn._counting.FamilyCounter` for continuous columns. It holds the
encoded data's continuous values (``EncodedData.values``) and row weights, and hands out
:class:`~skbn._counting.Moments` -- the only statistic a Gaussian or conditional-Gaussian
(CLG) score or test reads:

* :meth:`MomentCounter.moments_given` -- the moments of every continuous column, in one
  group per configuration of some discrete columns (none: one group); computed once per
  set of discrete columns and cached, so a Gaussian network's whole search reads one
  ``k x k`` scatter matrix and never the rows again;
* :meth:`MomentCounter.family` -- what a score needs for one continuous family: the
  moments split by the child's discrete parents, and the positions of the child and of its
  continuous parents among the moments' columns. With discrete parents only the family's
  own columns are split (``O(n (|P| + 1)^2)`` instead of every continuous column), over
  the rows of each configuration found once per set of discrete columns
  (:meth:`MomentCounter.split`, cached and shared by every child: a search scores many
  families of different children split by the same discrete parents).

Summarised rows (chunked ``X``: ``EncodedData.row_scatter`` set, each row standing for the
rows of one configuration of the discrete columns, with their mean and scatter) give the
same moments by the exact pooling identities (:meth:`~skbn._counting.Moments.pooled`): the
moments of a set of discrete columns are those of the rows' groups merged by configuration.

Groups are the *declared* configurations of the discrete columns (mixed radix over their
numbers of states, never compressed), so an unobserved configuration is a group of weight
0: it counts in a CLG score's number of parameters, as in R bnlearn. Rows with a missing
cell in a continuous column are refused here (the learners that accept incomplete data
select rows before building a counter).

Experimental rows (``data.intervened``, from ``fit(X, interventions=...)``): as in
:class:`~skbn._counting.FamilyCounter`, :meth:`MomentCounter.family` of a child set by
intervention in some rows reads the moments of the other rows only (a value set by the
experimenter says nothing about how the child depends on its parents). The children
with the same intervened rows share one counter of the kept rows (built on first use,
with its own cache); :meth:`MomentCounter.moments_given` is always over every row.

One counter per fit: inside :func:`shared_moments` (which ``fit`` opens around the search
and the network fit), :meth:`MomentCounter.of` the fit's data returns one counter, built on
the first request, so the search's scores or CI tests and the network's regressions read
the same moments, computed once (a counter's results depend only on the data, so sharing
it changes no bit).
"""

import contextvars
import math
from dataclasses import replace

import numpy as np

from skbn._counting._cache import BoundedCache
from skbn._counting._counter import _child_masks
from skbn._counting._moments import Moments, moments
from skbn._data import name_order, name_ranks

__all__ = ["MOMENT_CACHE_SIZE", "MomentCounter", "shared_moments"]

#: ``[data, counter or None]`` of the fit in progress (:func:`shared_moments`), else None.
_SHARED = contextvars.ContextVar("skbn_shared_moments", default=None)


class shared_moments:  # (a context manager that is a class: entered in every fit, cheaper than a generator)
    """Within the block (``with shared_moments(data, counter):``), :meth:`MomentCounter.of`
    ``data`` (this very object) is one counter, ``counter`` or built on first use, and
    dropped at the end of the block (nothing of the data outlives it). Other data (a
    bootstrap sample, EM's completed rows) get their own."""

    __slots__ = ("_shared", "_token")

    def __init__(self, data, counter=None):
        self._shared = [data, counter]

    def __enter__(self):
        self._token = _SHARED.set(self._shared)

    def __exit__(self, *exc_info):
        _SHARED.reset(self._token)


#: Number of sets of discrete columns whose split moments are kept (least recently used
#: dropped). The moments of no discrete column (one group) are always kept.
MOMENT_CACHE_SIZE = 64

#: Relative spread below which :meth:`MomentCounter.flat_screen` flags a column (the square
#: root of the float64 epsilon: far above the rounding of its one-pass sums).
SCREEN_RESOLUTION = float(np.sqrt(np.finfo(np.float64).eps))

#: Largest one-hot matrix of the discrete columns kept for :meth:`MomentCounter.added_discrete`
#: (bytes); above it the families are split one by one.
INDICATOR_BYTES = 64 * 2**20


def _declared_ids(codes, cardinalities, columns):
    """Mixed-radix configuration id of every row over ``columns`` (first column slowest),
    uncompressed, and the number of declared configurations."""
    ids = np.zeros(codes.shape[0], dtype=np.int64)
    n_ids = 1
    for column in columns:
        r = int(cardinalities[column])
        ids = ids * r + codes[:, column]
        n_ids *= r
    return ids, n_ids


class MomentCounter:
    """Weighted moments of one data set's continuous columns, cached for a search.

    Lives only while an estimator fits (it holds the data).

    Parameters
    ----------
    data : EncodedData
        Encoded data with continuous columns (``data.values`` not None).
    cache_size : int, default=MOMENT_CACHE_SIZE
        Number of sets of discrete columns whose split moments are kept.

    Attributes
    ----------
    continuous : ndarray of int
        Positions (in the data) of the continuous columns, in column order: column ``t`` of
        every :class:`~skbn._counting.Moments` this counter returns is variable
        ``continuous[t]``.
    index : ndarray of shape (n_variables,), int
        ``index[i]``: the moments' column of continuous variable ``i``, ``-1`` for a
        discrete one.
    total_weight : float
        Number of rows, or the sum of the row weights.
    """

    def __init__(self, data, cache_size=MOMENT_CACHE_SIZE):
        if data.values is None:
            raise ValueError("MomentCounter needs continuous columns (EncodedData.values is None).")
        self.cardinalities = np.asarray(data.cardinalities, dtype=np.int64)
        self.names = data.names
        self.codes = data.codes
        self.weights = data.weights
        self.total_weight = data.total_weight
        # (in Python: a few columns each, where a numpy call apiece costs more than the loop)
        continuous, positions = [], []
        for i, r in enumerate(self.cardinalities.tolist()):
            positions.append(-1 if r else len(continuous))
            if not r:
                continuous.append(i)
        self.continuous = np.array(continuous, dtype=np.intp)
        self.index = np.array(positions, dtype=np.intp)
        self._positions = positions  # (``index`` as Python ints, read per family)
        self._all_continuous = len(continuous) == len(positions)
        # (every column continuous: the data's own array, read and never written, not a copy)
        self.values = np.asarray(data.values if self._all_continuous else data.values[:, self.continuous],
                                 dtype=np.float64)
        #: summarised rows (chunked X): the moments of every row's rows, pooled by
        #: :meth:`moments_given` instead of being computed from the values
        self._rows = None
        if data.row_scatter is not None:
            weight = np.ones(len(self.values)) if data.weights is None else data.weights
            self._rows = Moments(np.asarray(weight, dtype=np.float64), self.values, data.row_scatter)
        # a NaN makes its column's sum NaN; a NaN sum without one (infinite values of both
        # signs) is told apart by the full scan, which runs only then. Unsigned codes mark
        # data encoded without missing cells (a NaN value is a missing cell, coded -1:
        # :class:`~skbn._data.EncodedData`), whose values are not read again here
        if data.codes.dtype.kind == "i":
            with np.errstate(over="ignore", invalid="ignore"):
                quick = np.isnan(np.add.reduce(self.values, axis=0)).any()
            if quick:
                missing = np.isnan(self.values).any(axis=0)
                if missing.any():
                    name = data.names[self.continuous[np.argmax(missing)]]
                    raise ValueError(f"Column {name!r} has missing cells; the moments need complete rows.")
        # the column sums encode_fit's finiteness check computed (only for its own array)
        self._sums = None if data.value_sums is None else data.value_sums.of(self.values)
        self._one_group = None  # the moments of no discrete column, always kept
        self._order = None  # (name_order, computed on first use)
        self._cache = BoundedCache(max_entries=int(cache_size))
        self._splits = BoundedCache(max_entries=int(cache_size))
        self._onehot = None  # (indicators of every discrete state, offsets), built on first use
        self._cache_size = int(cache_size)
        self._data = data
        self._masks = _child_masks(getattr(data, "intervened", None))  # None: observational
        self._kept = {}  # mask key -> MomentCounter of the rows kept for those children

    @classmethod
    def of(cls, data):
        """The counter of ``data``: the fit's shared one inside :func:`shared_moments` of
        this ``data``, else a new one."""
        shared = _SHARED.get()
        if shared is None or shared[0] is not data:
            return cls(data)
        if shared[1] is None:
            shared[1] = cls(data)
        return shared[1]

    @classmethod
    def shared_with(cls, data, permuted, order):
        """The counter of ``permuted``, the columns of ``data`` in the order ``order``
        (:func:`skbn._data.permute_columns`, the searches' name order), starting from the
        moments of no discrete column of ``data``'s counter (:meth:`of`: the fit's shared
        one, which the network fit then reuses), and from its moments split by one discrete
        column (those ``fit``'s spread check computed), so that they are computed once per
        fit. None when ``data`` has missing cells (no moments: the learner deletes rows test by
        test, or completes them by EM)."""
        try:
            source = cls.of(data)
        except ValueError:
            return None
        counter = cls(permuted, cache_size=source._cache_size)
        if source._masks is None:  # (with interventions every child has its own rows)
            inner = np.argsort(np.argsort(order)[source.continuous])  # source column of each
            # (with its unit-diagonal scatter when the determined-columns check read it)
            counter._one_group = source.moments_given().select(inner)
            # the moments split by one discrete column carry over too:
            # the same groups (the column's states), the columns permuted
            position = np.argsort(order)
            for key in list(source._cache):
                if len(key) == 1:
                    counter._cache.put((int(position[key[0]]),), source._cache.get(key).select(inner))
            for key in list(source._splits):
                if len(key) == 1:
                    counter._splits.put((int(position[key[0]]),), source._splits.get(key))
        return counter

    @property
    def masked(self):
        """Whether some child has intervened rows (its families leave them out)."""
        return self._masks is not None

    def rows_of(self, child):
        """The counter whose rows ``child``'s family is scored on: this one, or for a child
        set by intervention in some rows the counter of the other rows (one per distinct
        set of intervened rows, built on first use)."""
        key = None if self._masks is None else self._masks[child]
        if key is None:
            return self
        counter = self._kept.get(key)
        if counter is None:
            data = self._data
            keep = ~data.intervened[:, child]
            sub = replace(data, codes=data.codes[keep], values=data.values[keep],
                          weights=None if data.weights is None else data.weights[keep],
                          groups=None, intervened=None)
            counter = self._kept[key] = MomentCounter(sub, cache_size=self._cache_size)
        return counter

    @property
    def n_continuous(self):
        """Number of continuous columns."""
        return len(self.continuous)

    def moments_given(self, discrete=()):
        """Moments of every continuous column, one group per declared configuration of the
        discrete columns ``discrete`` (positions in the data, any order: sorted here).

        Returns
        -------
        Moments
            ``n_groups = prod r_d`` (1 without discrete columns); group ids are the mixed
            radix over ``sorted(discrete)``, the first column slowest.
        """
        if not len(discrete):  # (one group: a Gaussian search's every call)
            if self._one_group is None:
                self._one_group = self._representable(
                    moments(self.values, self.weights, sums=self._sums, order=self.name_order())
                    if self._rows is None
                    else self._rows.pooled())
            return self._one_group
        key = tuple(sorted(int(d) for d in discrete))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        ids, n_ids, rows = self.split(key)
        stats = self._representable(moments(self.values, self.weights, ids, n_ids, rows) if self._rows is None
                                    else self._rows.pooled(ids, n_ids))
        self._cache.put(key, stats)
        return stats

    def name_order(self):
        """The moments' columns (positions in ``values``) in the order of their names
        (:func:`skbn._data.name_ranks`), computed once: the canonical order in which the
        one-group moments are computed, so that any column order of the data gives the same
        numbers, and in which the determined-columns check takes the columns
        (:func:`skbn._determined_columns.check_determined_columns`)."""
        if self._order is None:
            if self._all_continuous:  # (every column: the data's name order, cached per names)
                order = name_order(self.names)
                self._order = np.arange(len(self.continuous)) if order is None else order
            else:
                ranks = np.asarray(name_ranks(self.names))[self.continuous]
                self._order = np.argsort(ranks, kind="stable")
        return self._order

    def _representable(self, stats):
        r"""``stats``, refused (``ValueError`` naming the column, first in name order) when a
        column's mean or sum of squares is not a finite float64: missing cells and infinite
        values are refused before, so that is an overflow, of values of magnitude near
        :math:`10^{154} / \sqrt{n}` or more, whose squares exceed the largest float64
        (about :math:`1.8 \cdot 10^{308}`). Its scatter would be infinite or NaN, which the
        scores and tests would read as a column of no spread or an exact linear function.
        The common case is read off one sum of the means and sums of squares, finite only
        when every term is (one that overflows from finite terms is checked column by column)."""
        with np.errstate(over="ignore", invalid="ignore"):  # (a total that overflows: read below)
            total = (np.add.reduce(stats.mean, axis=None)
                     + np.add.reduce(stats.scatter.diagonal(0, 1, 2), axis=None))
        if math.isfinite(total):
            return stats
        diagonal = np.diagonal(stats.scatter, axis1=1, axis2=2)
        finite = np.isfinite(diagonal).all(axis=0) & np.isfinite(stats.mean).all(axis=0)
        if finite.all():
            return stats
        ranks = name_ranks(self.names)
        column = min((int(self.continuous[j]) for j in np.flatnonzero(~finite)), key=lambda c: ranks[c])
        peak = float(np.max(np.abs(self.values[:, self.index[column]])))
        raise ValueError(
            f"Column {self.names[column]!r} holds values too large for the moments of a Gaussian model "
            f"(magnitudes up to {peak:.3g}): the sum of their squares overflows float64 (about "
            f"1.8e308). Rescale the column (divide it by a power of 10) and fit again.")

    def split(self, discrete):
        """The configurations of the discrete columns ``discrete`` (sorted positions):
        ``(ids, n_ids, rows)`` -- every row's mixed-radix id (first column slowest), the
        number of declared configurations, and the rows of each configuration as
        :func:`~skbn._counting.moments` reads them (``order, bounds``). Cached (least
        recently used dropped) and shared by every family split by the same columns."""
        key = tuple(int(d) for d in discrete)
        hit = self._splits.get(key)
        if hit is not None:
            return hit
        if any(self.cardinalities[d] == 0 for d in key):
            raise ValueError(f"moments_given: columns {[d for d in key if self.cardinalities[d] == 0]} "
                             "are continuous, not discrete.")
        ids, n_ids = _declared_ids(self.codes, self.cardinalities, key)
        order = np.argsort(ids, kind="stable")
        entry = ids, n_ids, (order, np.searchsorted(ids[order], np.arange(n_ids + 1)))
        self._splits.put(key, entry)
        return entry

    def _indicators(self):
        """The one-hot matrix of every discrete column (``n x sum r``, float64) and the
        offset of each column's block; None when it would exceed :data:`INDICATOR_BYTES`."""
        if self._onehot is None:
            discrete = np.flatnonzero(self.cardinalities > 0)
            offsets = np.zeros(len(self.cardinalities) + 1, dtype=np.int64)
            offsets[1:] = np.cumsum(self.cardinalities)
            width = int(offsets[-1])
            if self.codes.shape[0] * width * 8 > INDICATOR_BYTES:
                self._onehot = False
            else:
                onehot = np.zeros((self.codes.shape[0], width))
                rows = np.arange(self.codes.shape[0])
                for d in discrete:
                    onehot[rows, offsets[d] + self.codes[:, d]] = 1.0
                self._onehot = onehot, offsets
        return self._onehot or None

    def flat_screen(self, block_rows=8192):
        r"""Which continuous columns may have no spread in each state of each discrete
        column, from one pass over the rows: a screen, never the decision -- only the
        discrete columns it flags need :meth:`moments_given` (whose moments carry the
        scores' rule) to decide.

        One matrix product of the indicators of every discrete state (:meth:`_indicators`,
        which :meth:`added_discrete` shares) with :math:`w`, :math:`wv` and :math:`wv^2`
        (:math:`v` the values centred by their overall mean, in blocks of ``block_rows``
        rows) gives each state's weight and one-pass spread :math:`\sum wv^2 - N \bar v^2`;
        a column is flagged when that spread is at most :data:`SCREEN_RESOLUTION` of the sum
        of squares it subtracts from, far above the rounding of the sums (about
        :math:`N\epsilon` of it), or at most :math:`N (\text{SCREEN\_RESOLUTION}\, \bar
        x)^2`, far above the scores' :math:`N ((16 + n) \epsilon \bar x)^2`, so no column without
        spread is missed.
        ``O(n (\sum r) k)`` for every discrete column at once, instead of ``O(n k^2)`` for
        each.

        Returns
        -------
        flagged : ndarray of shape (sum r, k), bool or None
            Rows in the order of the discrete columns' states (``offsets``); None when the
            indicator matrix would be too large or the rows are summarised (chunked X).
        offsets : ndarray of shape (n_variables + 1,) or None
            The first row of each variable's states (a continuous variable has none).
        """
        indicators = None if self._rows is not None else self._indicators()
        if indicators is None:
            return None, None
        onehot, offsets = indicators
        k = len(self.continuous)
        center = self.moments_given().mean[0]
        raw = np.zeros((onehot.shape[1], 1 + 2 * k))
        for start in range(0, len(self.values), int(block_rows)):
            rows = slice(start, start + int(block_rows))
            w = (np.ones(len(self.values[rows])) if self.weights is None
                 else np.asarray(self.weights[rows], dtype=np.float64))
            v = self.values[rows] - center
            weighted = w[:, None] * v
            raw += onehot[rows].T @ np.concatenate([w[:, None], weighted, weighted * v], axis=1)
        weight, sums, squares = raw[:, 0], raw[:, 1:1 + k], raw[:, 1 + k:]
        offset = sums / np.where(weight > 0, weight, 1.0)[:, None]
        spread = squares - weight[:, None] * offset * offset
        # (the second bound: values equal but for their last bits, whose mean is the overall
        # one, which the scores' rule takes as flat too)
        limit = np.maximum(SCREEN_RESOLUTION * squares,
                           weight[:, None] * (SCREEN_RESOLUTION * (center + offset)) ** 2)
        return (weight[:, None] > 0) & (spread <= limit), offsets

    def added_discrete(self, child, parents, candidates):
        r"""The moments of the families ``child | parents + {k}`` for every discrete
        ``k`` of ``candidates`` at once (what a search needs to score every added discrete
        parent of a continuous child), back to back.

        Family ``k``'s groups are the configurations ``(g, s)`` of the discrete parents
        (``g``, as :meth:`split`) and of ``k`` (``s``, fastest); its columns are the
        continuous parents (sorted) and the child last, as :meth:`family` returns them.
        With :math:`V` those columns centred by the mean of their configuration ``g``
        (the first pass), one matrix product of the indicators of every discrete state
        with :math:`w`, :math:`wV` and :math:`w V_a V_b` per configuration ``g`` gives
        every cell's :math:`N`, :math:`\sum wV` and :math:`\sum w V V^\top`, hence its mean
        and scatter :math:`\sum w V V^\top - N \bar v \bar v^\top` (small: ``V`` is
        centred). Equal to :meth:`family` of each family up to rounding and the order of
        the groups (which no score depends on).

        Parameters
        ----------
        child : int
            Position of a continuous variable.
        parents : iterable of int
            Its parents (positions, any order).
        candidates : sequence of int
            Discrete variables outside ``parents``.

        Returns
        -------
        stats : Moments or None
            The groups of every family, family ``t`` owning ``sizes[t]`` consecutive
            ones; None when the indicator matrix would be too large or the rows are summarised
            (chunked X: the moments are pooled, no row is left; score the families
            one by one with :meth:`family`).
        sizes : ndarray of int
            Number of groups of each family (``n_D r_k``).
        child_column : int
        parent_columns : list of int
        """
        if self._masks is not None and self._masks[child] is not None:
            return self.rows_of(child).added_discrete(child, parents, candidates)
        indicators = None if self._rows is not None else self._indicators()  # rows needed
        if indicators is None:
            return None, None, None, None
        onehot, offsets = indicators
        parents = sorted(int(v) for v in parents)
        discrete = [v for v in parents if self.index[v] < 0]
        columns = [int(self.index[v]) for v in parents if self.index[v] >= 0] + [int(self.index[child])]
        m = len(columns)
        if discrete:
            ids, n_ids, (order, bounds) = self.split(discrete)
        else:
            ids, n_ids, order, bounds = np.zeros(len(self.values), dtype=np.intp), 1, None, None
        w = np.ones(len(self.values)) if self.weights is None else np.asarray(self.weights, dtype=np.float64)
        values = self.values[:, columns]
        total = np.bincount(ids, weights=w, minlength=n_ids)
        base = np.stack([np.bincount(ids, weights=w * values[:, j], minlength=n_ids)
                         for j in range(m)], axis=1) / np.where(total > 0, total, 1.0)[:, None]
        candidates = np.asarray(candidates, dtype=np.intp)
        sizes = self.cardinalities[candidates]
        starts = np.cumsum(sizes) - sizes  # each candidate's first cell
        state = np.arange(int(sizes.sum())) - np.repeat(starts, sizes)
        cells = np.repeat(offsets[candidates], sizes) + state
        indicators = onehot.take(cells, axis=1)
        if order is None:  # one configuration
            bounds = np.array([0, len(ids)])
        else:  # the rows sorted by configuration: each configuration's rows are one block
            indicators, values = indicators.take(order, axis=0), values.take(order, axis=0)
            w, ids = w.take(order), ids.take(order)
        centred = values - base.take(ids, axis=0)
        # per row: w, w v_a, w v_a v_b (a <= b): the cells' raw moments of the centred values
        upper_a, upper_b = np.triu_indices(m)
        weighted = w[:, None] * centred
        products = np.concatenate([w[:, None], weighted, weighted[:, upper_a] * centred[:, upper_b]], axis=1)
        raw = np.zeros((n_ids, len(cells), products.shape[1]))
        for g in np.flatnonzero(np.diff(bounds)):
            raw[g] = indicators[bounds[g]:bounds[g + 1]].T @ products[bounds[g]:bounds[g + 1]]
        # family t's groups: (g, s) with s fastest
        candidate = np.repeat(np.arange(len(sizes)), sizes * n_ids)
        within = np.arange(len(candidate)) - np.repeat(starts * n_ids, sizes * n_ids)
        group_of = within // sizes[candidate]
        flat = raw[group_of, starts[candidate] + within % sizes[candidate]]
        weight = flat[:, 0]
        safe = np.where(weight > 0, weight, 1.0)
        offset = flat[:, 1:1 + m] / safe[:, None]
        second = np.empty((len(flat), m, m))
        second[:, upper_a, upper_b] = flat[:, 1 + m:]
        second[:, upper_b, upper_a] = flat[:, 1 + m:]
        scatter = second - weight[:, None, None] * offset[:, :, None] * offset[:, None, :]
        diagonal = np.arange(m)
        scatter[:, diagonal, diagonal] = np.maximum(scatter[:, diagonal, diagonal], 0.0)  # (rounding)
        mean = np.where(weight[:, None] > 0, base[group_of] + offset, 0.0)
        # a cell where a column is constant keeps the rounding of the sum of squares it was
        # subtracted from (about an epsilon of it per row): the one-pass spread is a screen
        # (flat_screen's bounds), and the cells it flags get the two-pass moments of their
        # own rows, whose rule (:func:`moments`) decides, as in :meth:`family`
        spread = scatter[:, diagonal, diagonal]
        limit = np.maximum(SCREEN_RESOLUTION * second[:, diagonal, diagonal],
                           weight[:, None] * (SCREEN_RESOLUTION * mean) ** 2)
        suspect = np.flatnonzero((weight > 0) & (spread <= limit).any(axis=1))
        if len(suspect):
            scatter, mean = scatter.copy(), mean.copy()
            for cell in suspect.tolist():
                g = group_of[cell]
                block = slice(bounds[g], bounds[g + 1])
                rows = indicators[block, starts[candidate[cell]] + within[cell] % sizes[candidate[cell]]] > 0
                exact = moments(values[block][rows], None if self.weights is None else w[block][rows])
                mean[cell], scatter[cell] = exact.mean[0], exact.scatter[0]
        return Moments(weight, mean, scatter), sizes * n_ids, m - 1, list(range(m - 1))

    def family(self, child, parents, every_column=False):
        """The statistics of a continuous child's family (from the rows where the child was
        not set by intervention: :meth:`rows_of`).

        Parameters
        ----------
        child : int
            Position of a continuous variable.
        parents : iterable of int
            Positions of its parents, continuous and discrete (any order).
        every_column : bool, default=False
            Return :meth:`moments_given` the discrete parents (every continuous column,
            cached), as a batched score of every added continuous parent needs.

        Returns
        -------
        stats : Moments
            Without discrete parents or with ``every_column``, :meth:`moments_given` the
            discrete parents (every continuous column); otherwise the moments of the
            continuous parents and the child only, split by the discrete parents'
            configurations (:meth:`split`).
        child_column : int
            The child's column in ``stats``.
        parent_columns : list of int
            The continuous parents' columns in ``stats``, sorted.
        n_discrete : int
            The number of discrete parents.
        """
        position = self._positions[child]
        if position < 0:
            raise ValueError(f"MomentCounter.family: variable {child} is discrete.")
        if self._masks is not None and self._masks[child] is not None:
            return self.rows_of(child).family(child, parents, every_column)
        index = self._positions
        if self._all_continuous:  # (a Gaussian network: one group, every column)
            return self.moments_given(()), position, sorted(index[v] for v in parents), 0
        parents = sorted(int(v) for v in parents)
        discrete = [v for v in parents if index[v] < 0]
        continuous = [index[v] for v in parents if index[v] >= 0]
        if not discrete or every_column or self._rows is not None:  # summarised rows: pooled
            return self.moments_given(discrete), position, continuous, len(discrete)
        ids, n_ids, rows = self.split(discrete)
        columns = continuous + [position]
        stats = moments(self.values[:, columns], self.weights, ids, n_ids, rows)
        return stats, len(continuous), list(range(len(continuous))), len(discrete)
