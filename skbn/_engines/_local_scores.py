"""Local scores: what a search engine may ask of the data, and nothing else.

The search engines (:class:`~skbn._engines._search.DeltaEngine` and its strategies, the
memetic search, K2, GES, the exact search) see the data only through this module. They
ask three questions, always by column index, never for a count table:

``FamilyScoreCache(data, scorer, counter=None)``
    ``local_score(child, parents) -> float``: the score of ``child`` given a parent set
    (any order), cached by ``(child, sorted parents)``; ``lookup(child, parents)`` (the
    cached value or None) and ``store(child, parents, value)`` let an engine that scored
    a family in a batch share it.
``FamilyColumns(data, scorer, candidates=None, counter=None)``
    ``toggle_column(child, parents) -> ndarray (p,)``: entry ``k`` is the local score of
    ``child`` with ``k`` toggled in or out of ``parents``, entry ``child`` the score of
    ``parents`` itself (non-candidates: ``-inf``); ``local_score(child, parents)`` as
    above, from the same cache (``family_cache``).
``pairwise_mutual_information(data, features, stratum=None, counter=None)``, ``pair_score_gains(...)``
    The symmetric ``(len(features), len(features))`` matrices of Chow-Liu: ``I(X_i; X_j
    [| C])`` and ``local(j | i [, c]) - local(j [| c])``.

``counter`` is an opaque per-fit handle on the sufficient statistics, shared so that
they are computed once per fit (here a :class:`skbn._counting.FamilyCounter`: count
tables, the one-hot Gram matrix, cached configuration ids); an engine passes it on and
never looks inside.

*Continuous and mixed data* (``data.has_continuous``): the same constructors return
subclasses (:class:`FamilyScoreCache` picks ``_MixedFamilyScoreCache``,
:class:`FamilyColumns` picks ``_MixedFamilyColumns``) whose ``counter`` is a
:class:`Statistics`: a :class:`~skbn._counting.FamilyCounter` for the discrete children
(scored on count tables, as below: in conditional-Gaussian data their parents are
discrete) and a :class:`~skbn._counting.MomentCounter` for the continuous ones (scored
from moments by the scorer's ``local_score_moments`` and, for a whole toggle column, its
batched ``local_scores_added``). The engines' code is the same for every kind of data.
The subset-scoring of the exact search and :mod:`skbn.posterior` still stream
:class:`~skbn._counting.DistinctRows` count tables.

The discrete implementation below counts with :mod:`skbn._counting` and scores with the
plug-ins' per-family (:meth:`skbn.scores.BaseScore.local_score`) and batched
(:meth:`skbn.scores.BaseScore.local_scores`) kernels.
"""

from dataclasses import replace

import numpy as np

from skbn._counting import (
    FamilyCounter,
    MomentCounter,
    ResidualLattice,
    marginal_stack,
    n_configurations,
    pair_family_stack,
    pairwise_tables,
    stratified_codes,
    weights_are_integral,
)
from skbn._dag import id_bits, popcounts
from skbn.scores import _moment_family_score, is_rss_score, resolve_scorer

__all__ = [
    "FamilyColumns",
    "FamilyScoreCache",
    "Statistics",
    "make_counter",
    "pair_score_gains",
    "pairwise_mutual_information",
]



#: Most columns of a Gaussian network on which :class:`FamilyScoreCache` takes the
#: residual sums of squares from a :class:`~skbn._counting.ResidualLattice` (each set it
#: holds is a ``k x k`` matrix, ``8 k^2`` bytes); on more, every family is regressed on its
#: own block. GES with bic-g is faster with the lattice up to 50 columns and slower from
#: about 60 (``benchmarks/bench_gaussian_learners.py ges --lattice-both``).
LATTICE_MAX_COLUMNS = 50

#: Most columns of a Gaussian network on which :meth:`FamilyScoreCache.dense_scores` gives
#: the local score of every family at once (``2^p p`` values, from
#: :meth:`~skbn._counting.ResidualLattice.rss_table`), which GES then reads by bit mask;
#: on more, the families a search asks for are scored one by one. Measured with GES and
#: bic-g (``benchmarks/bench_gaussian_learners.py``): the table costs about as much as the
#: families a search reads at 11 columns.
DENSE_MAX_COLUMNS = 10


# ------------------------------------------------------------------ the counter
class Statistics:
    """The per-fit statistics of data with continuous columns (the ``counter`` the engines
    pass around without looking inside): a :class:`~skbn._counting.FamilyCounter` of the
    codes (``counts``: the families of discrete children) and a
    :class:`~skbn._counting.MomentCounter` of the continuous values (``moments``).

    Parameters
    ----------
    data : EncodedData
        Encoded data with continuous columns.
    counts : FamilyCounter or None, default=None
        A counter of ``data`` already in use (a new one when None).
    """

    def __init__(self, data, counts=None):
        self._data, self._counts = data, counts
        self.moments = MomentCounter.of(data)  # the fit's (shared with its network fit)
        #: Whether some child has intervened rows (both counters leave them out of its
        #: families: the same rows of the same data).
        self.masked = self.moments.masked
        self.cardinalities = self.moments.cardinalities
        self.continuous = np.asarray(data.continuous, dtype=bool)
        self.total_weight = data.total_weight

    @property
    def counts(self):
        """The :class:`~skbn._counting.FamilyCounter` of the codes, made on first use (a
        Gaussian network's search never counts)."""
        if self._counts is None:
            self._counts = FamilyCounter(self._data)
        return self._counts


def make_counter(data):
    """The ``counter`` of a fit: a :class:`~skbn._counting.FamilyCounter` on all-discrete
    data, a :class:`Statistics` when some column is continuous."""
    return Statistics(data) if data.has_continuous else FamilyCounter(data)


def _is_mixed(data, counter):
    """Whether the moments classes apply: data with continuous columns (a
    :class:`~skbn._counting.FamilyCounter` given then becomes the ``counts`` of a
    :class:`Statistics`), or a :class:`Statistics` counter."""
    return isinstance(counter, Statistics) or bool(getattr(data, "has_continuous", False))


def _statistics(data, counter):
    """``counter`` as a :class:`Statistics` of ``data`` (a new one when None)."""
    if isinstance(counter, Statistics):
        return counter
    return Statistics(data, counts=counter)


# ------------------------------------------------------------------ family scores
class FamilyScoreCache:
    """Local scores of families on one data set, cached by ``(child, sorted parents)``.

    Lives only while an estimator fits; counts through a
    :class:`~skbn._counting.FamilyCounter` (``counter``, shared with the search, or a
    new one on ``data``).

    Parameters
    ----------
    data : EncodedData
        The encoded data set.
    scorer : BaseScore
        The score of every family.
    counter : FamilyCounter or None, default=None
        Counting context to share with the search (a new one on ``data`` when None).
    """

    def __new__(cls, data, scorer, counter=None):
        if cls is FamilyScoreCache and _is_mixed(data, counter):
            cls = _MixedFamilyScoreCache
        return super().__new__(cls)

    def __init__(self, data, scorer, counter=None):
        self.counter = FamilyCounter(data) if counter is None else counter
        self.scorer = scorer
        self._cache = {}

    def __len__(self):
        return len(self._cache)

    def local_score(self, child, parents):
        """Local score of a family, counted and scored on the first request only.

        Parameters
        ----------
        child : int
            Column index of the child.
        parents : iterable of int
            Column indices of the parents (any order).

        Returns
        -------
        score : float
            The scorer's local score of the family.
        """
        key = (child, tuple(sorted(parents)))
        value = self._cache.get(key)
        if value is None:
            value = self._score(child, key[1])
            self._cache[key] = value
        return value

    def _score(self, child, parents):
        """The local score of ``child`` given the sorted tuple ``parents`` (not cached)."""
        return self.score_table(self.counter.family_table(child, parents), child, parents)

    def score_table(self, counts, child, parents):
        """Score a count table already counted for the family (no caching).

        Parameters
        ----------
        counts : ndarray of shape (n_parent_configs, r_child)
            Count table of the family.
        child : int
            Column index of the child.
        parents : sequence of int
            Column indices of the parents.

        Returns
        -------
        score : float
            The scorer's local score of the family.
        """
        q = n_configurations(self.counter.cardinalities, parents)
        return self.scorer.local_score(counts, q, len(parents))

    def extended_score(self, child, base, extra):
        """Local score of ``child`` given ``base + {extra}`` (``base`` a sorted tuple),
        cached; a new family is counted by extending the configuration ids of ``base``
        (:meth:`skbn._counting.FamilyCounter.extended_family_table`).

        Parameters
        ----------
        child : int
            Column index of the child.
        base : tuple of int
            Sorted column indices of the parents.
        extra : int
            Column index of the added parent.

        Returns
        -------
        score : float
            The scorer's local score of the family.
        """
        with_extra = tuple(sorted(base + (extra,)))
        key = (child, with_extra)
        value = self._cache.get(key)
        if value is None:
            value = self._extended(child, base, extra, with_extra)
            self._cache[key] = value
        return value

    def _extended(self, child, base, extra, with_extra):
        counts = self.counter.extended_family_table(child, base, extra)
        return self.score_table(counts, child, with_extra)

    def added_scores(self, child, base, extras):
        """Local scores of ``child`` given ``base + {k}`` for every ``k`` in ``extras``: what
        a search needs to score every parent it may add to one parent set.

        Each is :meth:`extended_score` (cached) on discrete data; on data with continuous
        columns a continuous child's continuous candidates are scored in one batch (see
        ``_MixedFamilyScoreCache``).

        Parameters
        ----------
        child : int
            Column index of the child.
        base : tuple of int
            Sorted column indices of the parents.
        extras : sequence of int
            Column indices of the added parents (none in ``base``, none equal to ``child``).

        Returns
        -------
        scores : list of float
            ``scores[i]`` is the local score of ``child`` given ``base + {extras[i]}``.
        """
        return [self.extended_score(child, base, k) for k in extras]

    def added_column(self, child, base):
        """Every column's :meth:`added_scores` entry as one list indexed by column (cached),
        when one batch scores them all (a Gaussian network); else None.

        Parameters
        ----------
        child : int
            Column index of the child.
        base : tuple of int
            Sorted column indices of the parents.

        Returns
        -------
        list of float or None
            ``column[k]`` equals ``added_scores(child, base, [k])[0]`` bit for bit (NaN at
            the child and at ``base``); None on data with discrete columns.
        """
        return None

    def dense_scores(self):
        """The local score of every family at once, when the data allow it cheaply (a
        Gaussian network of at most :data:`DENSE_MAX_COLUMNS` columns and a score of the
        residual sums of squares); else None.

        Returns
        -------
        list of memoryview or None
            ``table[child][mask]``: :meth:`local_score` of ``child`` given the parents of the
            bit mask ``mask`` (bit ``j``: column ``j``), a float, bit for bit; NaN where
            ``child`` is in ``mask``. (Each row is a view of a float64 array: read by index,
            it gives Python floats without holding a list of them.)
        """
        return None

    def added_columns(self, requests):
        """Compute ahead the :meth:`added_column` of every ``(child, base)`` of ``requests``
        (``base`` a sorted tuple): what a search asks for all the parent sets one of its
        steps opens, so that a cache may score them together. Nothing by default (each is
        computed when asked for)."""

    def store(self, child, parents, value):
        """Cache ``value`` as the local score of the family ``(child, parents)``.

        Parameters
        ----------
        child : int
            Column index of the child.
        parents : iterable of int
            Column indices of the parents (any order).
        value : float
            Its local score.
        """
        self._cache[(child, tuple(sorted(parents)))] = value

    def lookup(self, child, parents):
        """Cached local score of the family, or None when it was never scored.

        Parameters
        ----------
        child : int
            Column index of the child.
        parents : iterable of int
            Column indices of the parents (any order).

        Returns
        -------
        score : float or None
            The cached score.
        """
        return self._cache.get((child, tuple(sorted(parents))))


# ------------------------------------------------------------------ toggle columns
class FamilyColumns:
    """Local scores of a child's family with every other variable toggled in or out.

    ``toggle_column(child, parents)[k]`` is the local score of ``child`` with parent set
    ``parents`` plus ``k`` (minus ``k`` when ``k`` is a parent); entry ``child`` is the
    score of ``parents`` itself. One pass over the rows counts every candidate family
    (:meth:`skbn._counting.FamilyCounter.added_parent_tables`) and the score evaluates them
    in one batch (:meth:`skbn.scores.BaseScore.local_scores`). Columns are cached by
    ``(child, parents)``, family scores in a :class:`FamilyScoreCache` (``family_cache``).
    Used by hill climbing (:class:`~skbn._engines._search.DeltaEngine`) and by K2.

    With ``candidates`` (``candidates[k, child]``: ``k`` may become a parent of ``child``),
    only those variables are counted and scored: entry ``k`` of a column is ``-inf`` for a
    non-candidate ``k`` that is not a parent. A search restricted to a sparse candidate
    graph (MMHC's skeleton) then costs ``O(n_samples * degree)`` per column instead of
    ``O(n_samples * p)``, with the same values at the candidates. ``counter``: a
    :class:`~skbn._counting.FamilyCounter` of ``data`` already in use (its caches shared).
    """

    def __new__(cls, data, scorer, candidates=None, counter=None):
        if cls is FamilyColumns and _is_mixed(data, counter):
            cls = _MixedFamilyColumns
        return super().__new__(cls)

    def __init__(self, data, scorer, candidates=None, counter=None):
        self.scorer = scorer
        self.counter = FamilyCounter(data) if counter is None else counter
        self.cards = self.counter.cardinalities
        self.n, self.p = data.codes.shape
        self.family_cache = FamilyScoreCache(data, scorer, self.counter)
        self.column_cache = {}
        # counted variables of every child (itself included: its entry is the family
        # table), or None when every variable is a candidate
        self._columns = None
        if candidates is not None and not candidates[~np.eye(self.p, dtype=bool)].all():
            self._columns = [np.flatnonzero(candidates[:, child] | (np.arange(self.p) == child))
                             for child in range(self.p)]

    def toggle_column(self, child, parents):
        """Local scores of ``child`` with each variable toggled; entry ``child`` = current."""
        key = (child, parents)
        column = self.column_cache.get(key)
        if column is not None:
            return column
        if not parents and self._columns is None and not self.counter.masked:
            # (with intervened rows every child is counted on its own rows: one column each)
            self._parentless_columns()
            return self.column_cache[key]
        scorer, cards = self.scorer, self.cards
        r_child = int(cards[child])
        columns = None if self._columns is None else self._columns[child]
        stack, family, dense = self.counter.added_parent_tables(child, parents, columns)
        q = n_configurations(cards, parents)
        base = self.family_cache.lookup(child, parents)
        if base is None:
            base = scorer.local_score(family, q, len(parents))
            self.family_cache.store(child, parents, base)
        if columns is None:
            column = scorer.local_scores(stack)
        else:
            column = np.full(self.p, -np.inf)
            column[columns] = scorer.local_scores(stack)
        column[child] = base
        for position, k in enumerate(parents):
            rest = parents[:position] + parents[position + 1:]
            value = self.family_cache.lookup(child, rest)
            if value is None:
                if dense:  # the family without k is a marginal of the current table
                    shape = [int(cards[v]) for v in parents] + [r_child]
                    table = family.reshape(shape).sum(axis=position).reshape(-1, r_child)
                    value = scorer.local_score(table, q // int(cards[k]), len(rest))
                    self.family_cache.store(child, rest, value)
                else:
                    value = self.family_cache.local_score(child, rest)
            column[k] = value
        self.column_cache[key] = column
        return column

    def local_score(self, child, parents):
        """Local score of ``child`` given ``parents`` (any order), from :attr:`family_cache`."""
        return self.family_cache.local_score(child, parents)

    def _parentless_columns(self):
        """Toggle columns of every child without parents, in one batch (all variables
        candidates): the families ``j | i`` of every ordered pair are the blocks of the
        one-hot Gram matrix (:meth:`skbn._counting.FamilyCounter.pair_stack`, the same cells and
        row totals as :meth:`~skbn._counting.FamilyCounter.added_parent_tables` with no
        parents) and are scored by one :meth:`~skbn.scores.BaseScore.local_scores` call
        instead of one per child. Entry ``j`` of column ``j`` is ``local(j)``."""
        scorer, p = self.scorer, self.p
        gram, offsets = self.counter.pairwise()
        pairs = scorer.local_scores(self.counter.pair_stack()).reshape(p, p)  # [j, i] = local(j | i)
        for child in range(p):
            if (child, ()) in self.column_cache:
                continue
            base = self.family_cache.lookup(child, ())
            if base is None:  # by local_score, as every family score: the same bits on every path
                table = np.diagonal(gram)[offsets[child]:offsets[child + 1]].reshape(1, -1)
                base = scorer.local_score(table, 1, 0)
                self.family_cache.store(child, (), base)
            column = pairs[child].copy()
            column[child] = base
            self.column_cache[(child, ())] = column


# ------------------------------------------------------------------ continuous and mixed data
#: Fewest children of one parent set whose added-parent columns
#: :meth:`_MixedFamilyScoreCache.added_columns` computes in one batch: below it the lists of
#: :meth:`~skbn._counting.ResidualLattice.added_rss` one child at a time take less time
#: than the batch's fixed number of numpy calls.
BATCHED_CHILDREN = 5

class _MixedFamilyScoreCache(FamilyScoreCache):
    """:class:`FamilyScoreCache` on data with continuous columns (picked by its constructor).

    A continuous child is scored from the moments of its family
    (:meth:`skbn._counting.MomentCounter.family`: split by its discrete parents) by the
    scorer's ``local_score_moments``; a discrete child from its count table, as on discrete
    data. A discrete child with a continuous parent (excluded by the conditional-Gaussian
    rule, which the learners merge into the knowledge) scores ``-inf``.
    """

    def __init__(self, data, scorer, counter=None):
        self.counter = _statistics(data, counter)
        self.scorer = scorer
        self._cache = {}
        self._added = {}  # (child, sorted parents) -> batched added-parent scores (added_scores)
        self._all_continuous = bool(self.counter.continuous.all())
        #: a Gaussian network without intervened rows: every family reads the one-group
        #: moments, whose columns are the variables (MomentCounter.family's answer, unasked)
        self._gaussian = self._all_continuous and not self.counter.moments.masked
        #: on few such columns, with a score of the residual sums of squares, every family's
        #: residuals come from one lattice of swept matrices (made on the first family)
        self._lattice = self._weight = None
        self._use_lattice = (self._gaussian and is_rss_score(scorer)
                             and len(self.counter.continuous) <= LATTICE_MAX_COLUMNS)

    def lattice(self):
        """The :class:`~skbn._counting.ResidualLattice` of the one-group moments (with
        their total weight, ``_weight``)."""
        if self._lattice is None:
            stats = self.counter.moments.moments_given()
            d, scaled = stats.unit
            self._weight = float(stats.weight[0])  # (first: a thread sharing the cache reads both)
            self._lattice = ResidualLattice((d[0], scaled[0]))
        return self._lattice

    def _score(self, child, parents):
        if self._use_lattice:
            rss = self.lattice().rss(child, id_bits(parents))
            return self.scorer.local_scores_rss(self._weight, rss, len(parents))
        continuous = self.counter.continuous
        if continuous[child]:  # (a Gaussian network's family: the one-group moments, every column)
            return _moment_family_score(self.counter.moments, self.scorer, child, parents)
        if continuous[list(parents)].any():
            return -np.inf
        return self.score_table(self.counter.counts.family_table(child, parents), child, parents)

    def _extended(self, child, base, extra, with_extra):
        continuous = self.counter.continuous
        if self._gaussian or continuous[child] or continuous[extra] or continuous[list(base)].any():
            return self._score(child, with_extra)
        return self.score_table(self.counter.counts.extended_family_table(child, base, extra), child,
                                with_extra)

    def _batch(self, child, base):
        """The scorer's batched ``local_scores_added`` of a continuous child on the moments of
        ``base``, as an array indexed by column (NaN at the discrete columns)."""
        if self._gaussian:
            stats = self.counter.moments.moments_given()
            batch = self.scorer.local_scores_added(stats, child, sorted(base), 0)
        else:
            stats, position, parent_columns, n_discrete = self.counter.moments.family(child, base, True)
            batch = self.scorer.local_scores_added(stats, position, parent_columns, n_discrete)
        if self._all_continuous:  # (the moments' columns are the variables: the same array)
            return np.asarray(batch, dtype=np.float64)
        column = np.full(len(self.counter.continuous), np.nan)
        column[self.counter.moments.continuous] = batch
        return column

    def added_column(self, child, base):
        """:meth:`FamilyScoreCache.added_column`: on all-continuous data, the batch of
        :meth:`added_scores` as a list (cached by ``(child, base)``)."""
        if not self._all_continuous:
            return None
        key = (child, base)
        column = self._added.get(key)
        if column is None:
            if self._use_lattice:  # (the lattice's residuals, scored as a list)
                rss = self.lattice().added_rss(child, id_bits(base))  # (first: it sets _weight)
                column = self.scorer.local_scores_rss(self._weight, rss, len(base) + 1)
                if key not in self._cache:  # (the family of base itself: the same residual matrix)
                    self._cache[key] = self._score(child, base)
            else:
                column = self._batch(child, base).tolist()
            self._added[key] = column
        return column

    def dense_scores(self):
        """:meth:`FamilyScoreCache.dense_scores`: every residual sum of squares from the
        lattice's table (:meth:`~skbn._counting.ResidualLattice.rss_table`, the values of
        :meth:`~skbn._counting.ResidualLattice.rss` bit for bit), scored by the scorer's
        ``local_scores_rss`` in one call (the operations of the one-family call,
        element-wise)."""
        p = len(self.counter.continuous)
        if not self._use_lattice or p > DENSE_MAX_COLUMNS:
            return None
        rss = self.lattice().rss_table().T  # (first: it sets _weight)
        scores = np.ascontiguousarray(self.scorer.local_scores_rss(self._weight, rss, popcounts(p)))
        return [memoryview(row) for row in scores]  # (an item is a Python float: no list of them)

    def added_columns(self, requests):
        """:meth:`FamilyScoreCache.added_columns`: with the lattice, the columns not cached
        of the children of one base (all of them at the first step of a search from the
        empty graph) are computed together when there are at least
        :data:`BATCHED_CHILDREN` of them: their residual sums of squares by one call of the
        lattice (:meth:`~skbn._counting.ResidualLattice.added_rss_of`), scored by one call of
        the scorer's ``local_scores_rss`` on the array: the values of :meth:`added_column`,
        bit for bit (the family of the base itself is scored when read, by
        :meth:`local_score`)."""
        if not self._use_lattice:
            return
        by_base = {}
        for child, base in dict.fromkeys(requests):
            if (child, base) not in self._added:
                by_base.setdefault(base, []).append(child)
        for base, children in by_base.items():
            if len(children) >= BATCHED_CHILDREN:
                added = self.lattice().added_rss_of(children, id_bits(base))  # (first: it sets _weight)
                columns = self.scorer.local_scores_rss(self._weight, added, len(base) + 1).tolist()
                self._added.update(((child, base), column) for child, column in zip(children, columns))

    def added_scores(self, child, base, extras):
        """:meth:`FamilyScoreCache.added_scores`; for a continuous child the continuous
        candidates come from one call of the scorer's batched ``local_scores_added`` on the
        moments of ``base`` (one Schur complement per group of its discrete parents: the
        residual sums of squares of every added column at once), cached by ``(child, base)``
        apart from the family scores (as a list on all-continuous data:
        :meth:`added_column`); the discrete candidates (which change the split) are
        split and scored together as hill climbing's toggle columns do
        (:func:`_score_added_discrete`), and cached as family scores."""
        continuous = self.counter.continuous
        if not continuous[child]:
            return super().added_scores(child, base, extras)
        if self._all_continuous:  # (every candidate from the batch)
            if not len(extras):
                return []
            column = self.added_column(child, base)
            return [column[k] for k in extras]
        column = None
        if any(continuous[k] for k in extras):
            column = self._added.get((child, base))
            if column is None:
                column = self._added[child, base] = self._batch(child, base)
        _score_added_discrete(self, child, base, [k for k in extras if not continuous[k]])
        return [float(column[k]) if continuous[k] else self.extended_score(child, base, k) for k in extras]


class _MixedFamilyColumns(FamilyColumns):
    """:class:`FamilyColumns` on data with continuous columns (picked by its constructor).

    A discrete child's column is that of a :class:`FamilyColumns` of the counts whose
    candidates are the discrete candidates only (a continuous variable never becomes the
    parent of a discrete one: ``-inf``). A continuous child's column: the scorer's batched
    ``local_scores_added`` on the moments split by its discrete parents gives every
    continuous candidate at once (one Schur complement per group); a discrete candidate
    changes the split: the families of all of them are split together, on the family's own
    columns only (:meth:`skbn._counting.MomentCounter.added_discrete`), and scored in one
    call (the scorer's ``local_scores_stacked``); every removal is scored as its own family
    (:attr:`family_cache`). Non-candidates are ``-inf``.
    """

    def __init__(self, data, scorer, candidates=None, counter=None):
        self.scorer = scorer
        self.counter = _statistics(data, counter)
        self.n, self.p = data.codes.shape
        p = self.p
        self.family_cache = FamilyScoreCache(data, scorer, self.counter)
        self.column_cache = {}
        allowed = np.ones((p, p), dtype=bool) if candidates is None else np.array(candidates, dtype=bool)
        allowed[np.diag_indices(p)] = False
        self.candidates = allowed
        continuous = self.counter.continuous
        self._continuous_ids = np.flatnonzero(continuous)
        self._moment_index = self.counter.moments.index
        self._discrete_columns = None
        if not continuous.all():
            discrete_allowed = allowed & ~continuous[:, None]
            # the codes alone (``values=None``: the discrete class) count the discrete children
            self._discrete_columns = FamilyColumns(replace(data, values=None), scorer, discrete_allowed,
                                                   self.counter.counts)
            self._discrete_columns.family_cache = self.family_cache  # one cache of family scores

    def toggle_column(self, child, parents):
        """Local scores of ``child`` with each variable toggled; entry ``child`` = current."""
        key = (child, parents)
        column = self.column_cache.get(key)
        if column is not None:
            return column
        if not self.counter.continuous[child]:
            column = self._discrete_columns.toggle_column(child, tuple(parents))
            self.column_cache[key] = column
            return column
        parents = tuple(parents)
        cache = self.family_cache
        column = np.full(self.p, -np.inf)
        base = cache.local_score(child, parents)
        allowed = self.candidates[:, child].copy()
        allowed[list(parents)] = False
        added = self._continuous_ids[allowed[self._continuous_ids]]
        if len(added):
            batch = cache.added_column(child, parents)  # (all-continuous data: by variable, cached)
            if batch is not None:
                column[added] = np.take(batch, added)
            else:
                stats, position, parent_columns, n_discrete = self.counter.moments.family(
                    child, parents, True)
                scores = self.scorer.local_scores_added(stats, position, parent_columns, n_discrete)
                column[added] = scores[self._moment_index[added]]
        self._discrete_added(child, parents, np.flatnonzero(allowed & ~self.counter.continuous), column)
        column[child] = base
        for position, k in enumerate(parents):
            column[k] = cache.local_score(child, parents[:position] + parents[position + 1:])
        self.column_cache[key] = column
        return column

    def _discrete_added(self, child, parents, candidates, column):
        """``column[k]``: the score of the continuous ``child`` given ``parents + (k,)`` for
        every discrete ``k`` of ``candidates`` (:func:`_score_added_discrete`, through
        :attr:`family_cache`)."""
        candidates = candidates.tolist()
        _score_added_discrete(self.family_cache, child, parents, candidates)
        for k in candidates:
            column[k] = self.family_cache.local_score(child, parents + (k,))


def _score_added_discrete(cache, child, parents, candidates):
    """Score into ``cache`` (a ``_MixedFamilyScoreCache``) the families of the continuous
    ``child`` given ``parents + (k,)`` for the discrete ``k`` of ``candidates`` not yet
    cached: when there are two or more, split and scored in one batch
    (:meth:`skbn._counting.MomentCounter.added_discrete`, the scorer's
    ``local_scores_stacked``); otherwise (or when the batch declines) left to the cache,
    which scores a family on request. Hill climbing's toggle columns and GES's Insert
    operators read the same values."""
    todo = [k for k in candidates if cache.lookup(child, parents + (k,)) is None]
    if len(todo) < 2:
        return
    counter = cache.counter
    stats, sizes, position, parent_columns = counter.moments.added_discrete(child, parents, todo)
    if stats is None:
        return
    n_discrete = int((~counter.continuous[list(parents)]).sum()) + 1
    scores = cache.scorer.local_scores_stacked(stats, position, parent_columns, n_discrete, sizes)
    for k, value in zip(todo, scores.tolist()):
        cache.store(child, parents + (k,), value)


# ------------------------------------------------------------------ pair statistics (Chow-Liu)
def _pair_tables(data, features, stratum, gram=None):
    """One-hot Gram matrix of ``features`` (of the codes ``x_i r_c + c`` within the strata
    of ``stratum`` when given), its offsets and the stratum's weighted counts ``N_c``;
    ``gram``: the already computed ``(gram, offsets)`` of every column of ``data`` (then
    ``features`` are all columns in order and ``stratum`` is None)."""
    if gram is not None:
        return *gram, None
    if stratum is None:
        gram, offsets = pairwise_tables(data.codes[:, features], data.cardinalities[features],
                                        weights=data.weights)
        return gram, offsets, None
    codes, cards = stratified_codes(data.codes, data.cardinalities, features, stratum)
    gram, offsets = pairwise_tables(codes, cards, weights=data.weights)
    r_c = int(data.cardinalities[stratum])
    first = np.diag(gram)[offsets[0]:offsets[1]]  # N_{a c} of the first feature
    return gram, offsets, first.reshape(-1, r_c).sum(axis=0)


def pairwise_mutual_information(data, features, stratum=None, counter=None):
    r"""Matrix of (conditional) mutual informations, in nats, between ``features``.

    .. math:: I(X_i; X_j \mid C) = \sum_{a,b,c} \frac{N_{abc}}{n}
              \log \frac{N_{abc} N_c}{N_{ac} N_{bc}}

    with ``N`` weighted counts and ``n`` the total weight: ``n I`` is the log-likelihood
    gain of the edge, ``LL(j | i [, c]) - LL(j [| c])`` (:func:`pair_score_gains` with the
    ``"loglik"`` score). ``counter``: as in :func:`pair_score_gains`.

    With continuous columns the same gain is that of the maximised (``variance="mle"``)
    conditional-Gaussian log-likelihood: for two continuous columns
    :math:`I = -\tfrac12 \log(1 - \rho^2)` (:math:`\rho` their (partial, within the
    stratum's groups) correlation), for a discrete and a continuous column the gain of the
    discrete one as the parent of the continuous one.
    """
    scorer = resolve_scorer("loglik")
    if _is_mixed(data, counter):
        scorer = resolve_scorer("loglik-cg").set_params(variance="mle")
    mi = pair_score_gains(data, features, stratum, scorer, counter) / data.total_weight
    np.fill_diagonal(mi, 0.0)
    return np.maximum(mi, 0.0)


def pair_score_gains(data, features, stratum, scorer, counter=None):
    """Symmetric matrix of ``local(j | i [, c]) - local(j [| c])`` (``i < j``) for a
    score-equivalent scorer.

    All pairs come from one one-hot Gram matrix (BLAS) of the codes ``x_i r_c + c`` (its
    cells with different classes are zero, its diagonal holds ``N_{ac}``); the families
    ``j | i [, c]`` of all pairs are scored in one batch. ``counter``: a
    :class:`~skbn._counting.FamilyCounter` of ``data`` already in use (then ``features``
    are all columns in order and ``stratum`` is None), whose Gram matrix and pair tables
    are read instead of counted again.

    With continuous columns (:func:`_mixed_pair_score_gains`) the gains come from the
    moments; a pair of a discrete and a continuous column gets the gain of the discrete
    one as the parent (the other direction is excluded by the conditional-Gaussian rule).
    """
    if _is_mixed(data, counter):
        return _mixed_pair_score_gains(data, features, stratum, scorer, counter)
    gram, offsets, _ = _pair_tables(data, features, stratum, None if counter is None else counter.pairwise())
    r_c = 1 if stratum is None else int(data.cardinalities[stratum])
    extra = 0 if stratum is None else 1
    cards = np.diff(offsets)
    r_features = np.asarray(data.cardinalities)[features]
    p = len(features)
    integral = weights_are_integral(data.weights)
    # local(j [| c]) from the counts N_{bc} on the diagonal, in one batch
    base = scorer.local_scores(marginal_stack(np.diag(gram), r_features, r_c, extra, data.total_weight,
                                              integral))
    if counter is not None:
        stack = counter.pair_stack()
    else:  # joint[s_j + b, o_i + a r_c + c]: rows with x_j = b, x_i = a and class c
        joint = gram.reshape(gram.shape[0], -1, r_c).sum(axis=2).T
        stack = pair_family_stack(joint, r_features, cards, offsets, 1 + extra, data.total_weight, integral)
    gains = scorer.local_scores(stack).reshape(p, p).T - base  # gains[i, j] = local(j | i) - local(j)
    upper = np.triu(gains, k=1)
    return upper + upper.T


def _mixed_pair_score_gains(data, features, stratum, scorer, counter=None):
    """:func:`pair_score_gains` on data with continuous columns: ``gains[a, b] =
    local(j | i [, c]) - local(j [| c])`` for ``i = features[a]``, ``j = features[b]``
    (``i < j`` read; a mixed pair: the continuous child), a continuous child's column from
    one batched ``local_scores_added`` call, every other family by its own score."""
    statistics = _statistics(data, counter)
    cache = FamilyScoreCache(data, scorer, statistics)
    continuous, index = statistics.continuous, statistics.moments.index
    given = () if stratum is None else (int(stratum),)
    p = len(features)
    gains = np.zeros((p, p))
    for b, j in enumerate(features):
        base = cache.local_score(j, given)
        added = None
        if continuous[j] and any(continuous[i] for i in features if i != j):
            stats, position, parent_columns, n_discrete = statistics.moments.family(j, given, True)
            added = scorer.local_scores_added(stats, position, parent_columns, n_discrete)
        for a, i in enumerate(features):
            if i == j or (continuous[i] and not continuous[j]):
                continue
            if continuous[i]:
                gains[a, b] = added[index[i]] - base
            else:
                gains[a, b] = cache.local_score(j, given + (i,)) - base
    kind = continuous[features]
    mixed = kind[:, None] != kind[None, :]
    upper = np.triu(gains, k=1)
    symmetric = upper + upper.T
    # a mixed pair: the gain of its continuous child (discrete parent)
    directed = np.where(kind[None, :], gains, gains.T)
    return np.where(mixed, directed, symmetric)
