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
  continuous parents among the moments' columns.

Summarised rows (chunked ``X``: ``EncodedData.row_scatter`` set, each row standing for the
rows of one configuration of the discrete columns, with their mean and scatter) give the
same moments by the exact pooling identities (:meth:`~skbn._counting.Moments.pooled`): the
moments of a set of discrete columns are those of the rows' groups merged by configuration.

Groups are the *declared* configurations of the discrete columns (mixed radix over their
numbers of states, never compressed), so an unobserved configuration is a group of weight
0: it counts in a CLG score's number of parameters, as in R bnlearn. Rows with a missing
cell in a continuous column are refused here (the learners that accept incomplete data
select rows before building a counter).
"""

import numpy as np

from skbn._counting._cache import BoundedCache
from skbn._counting._moments import Moments, moments

__all__ = ["MOMENT_CACHE_SIZE", "MomentCounter"]

#: Number of sets of discrete columns whose split moments are kept (least recently used
#: dropped). The moments of no discrete column (one group) are always kept.
MOMENT_CACHE_SIZE = 64


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
        self.codes = data.codes
        self.weights = data.weights
        self.total_weight = data.total_weight
        self.continuous = np.flatnonzero(self.cardinalities == 0)
        self.index = np.full(len(self.cardinalities), -1, dtype=np.intp)
        self.index[self.continuous] = np.arange(len(self.continuous))
        self.values = np.asarray(data.values[:, self.continuous], dtype=np.float64)
        #: summarised rows (chunked X): the moments of every row's rows, pooled by
        #: :meth:`moments_given` instead of being computed from the values
        self._rows = None
        if data.row_scatter is not None:
            weight = np.ones(len(self.values)) if data.weights is None else data.weights
            self._rows = Moments(np.asarray(weight, dtype=np.float64), self.values, data.row_scatter)
        missing = np.isnan(self.values).any(axis=0)
        if missing.any():
            name = data.names[self.continuous[np.argmax(missing)]]
            raise ValueError(f"Column {name!r} has missing cells; the moments need complete rows.")
        self._one_group = None  # the moments of no discrete column, always kept
        self._cache = BoundedCache(max_entries=int(cache_size))

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
        key = tuple(sorted(int(d) for d in discrete))
        if not key:
            if self._one_group is None:
                self._one_group = (moments(self.values, self.weights) if self._rows is None
                                   else self._rows.pooled())
            return self._one_group
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        if any(self.cardinalities[d] == 0 for d in key):
            raise ValueError(f"moments_given: columns {[d for d in key if self.cardinalities[d] == 0]} "
                             "are continuous, not discrete.")
        ids, n_ids = _declared_ids(self.codes, self.cardinalities, key)
        stats = (moments(self.values, self.weights, ids, n_ids) if self._rows is None
                 else self._rows.pooled(ids, n_ids))
        self._cache.put(key, stats)
        return stats

    def family(self, child, parents):
        """The statistics of a continuous child's family.

        Parameters
        ----------
        child : int
            Position of a continuous variable.
        parents : iterable of int
            Positions of its parents, continuous and discrete (any order).

        Returns
        -------
        stats : Moments
            :meth:`moments_given` the discrete parents.
        child_column : int
            The child's column in ``stats``.
        parent_columns : list of int
            The continuous parents' columns in ``stats``, sorted.
        n_discrete : int
            The number of discrete parents.
        """
        if self.index[child] < 0:
            raise ValueError(f"MomentCounter.family: variable {child} is discrete.")
        parents = sorted(int(v) for v in parents)
        discrete = [v for v in parents if self.index[v] < 0]
        continuous = [int(self.index[v]) for v in parents if self.index[v] >= 0]
        return self.moments_given(discrete), int(self.index[child]), continuous, len(discrete)
