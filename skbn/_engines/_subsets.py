r"""The subset scorer: the local score of every parent set of every node, and the tables
over subsets built from them (engine of :class:`skbn.estimators.ExactStructure`,
:func:`skbn.posterior.edge_posteriors` and :class:`skbn.estimators.OrderMCMCStructure`).

One depth-first scorer (:func:`visit_parent_sets`) visits every parent set of at most
``max_indegree`` variables, restricted per child to its allowed parents, counts every child
that takes the set in one weighted pass over the distinct rows
(:class:`skbn._counting.DistinctRows`) and scores them in one batch
(:meth:`skbn.scores.BaseScore.local_scores`); it can prune families that provably cannot
be best (exact search). Its values are recorded in one of two layouts:

* dense (:func:`local_scores`): a ``(n_children, 2^(p-1))`` float64 array, row ``i`` for
  child ``v = children[i]``, column the parent-set bitmask over the variables other than
  ``v`` -- bit ``b`` stands for variable ``b`` if ``b < v`` and ``b + 1`` otherwise
  (:func:`drop_bit` / :func:`insert_bit`); ``-inf`` marks a set not scored (beyond
  ``max_indegree``, disallowed or pruned). For up to about 25 variables.
* sparse (:func:`parent_set_scores`): per child the scored sets as member rows and their
  scores (:class:`ParentSetScores`), in depth-first order; for any number of variables.

Over the dense layout, per child (vectorised over the bits, :math:`O(p\, 2^p)`):

* best-parent-set tables :math:`\mathrm{bps}_v(C) = \max_{S \subseteq C} s_v(S)`
  (:func:`subset_max`, exact search; :func:`best_parent_set` recovers a minimal maximiser);
* log-sum tables :math:`\log \alpha_v(C) = \log \sum_{S \subseteq C} \exp s_v(S)`
  (:func:`log_subset_sums`, exact posteriors and order MCMC), and the superset sums
  (:func:`superset_logsumexp`).

Continuous and mixed data (:class:`ScoringData`, the one object the callers build from
the encoded data; nothing above this module learns the column kinds):

* a discrete child takes only discrete parents (the conditional-Gaussian rule: a discrete
  node never has a continuous parent) and is scored as above, on the distinct rows of the
  discrete columns;
* a continuous child's family is scored from the moments
  (:class:`skbn._counting.MomentCounter`: :meth:`~skbn._counting.MomentCounter.family`,
  then :meth:`skbn.scores.BaseGaussianScore.local_score_moments`), in batches
  (:func:`_gaussian_batch`): for one set of discrete parents, every set of continuous
  parents of one size at once, one Cholesky factor per set (and per configuration of the
  discrete parents) of the unit-diagonal scatter matrix giving the residual of every child
  outside the set. A singular factor, or a score that redefines the formula, is scored
  one family at a time. Nothing is pruned on this path.

Nothing here imports a learner.
"""

import math
from itertools import combinations

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

from skbn._counting import DistinctRows, MomentCounter, kept_row_groups
from skbn._counting._moments import SINGULAR_RCOND
from skbn._engines._local_scores import FamilyScoreCache
from skbn._engines._search import TIE_TOLERANCE, improves
from skbn.scores import BGe, _bge_log_marginal, _gaussian_loglik, _moment_family_score, is_rss_score

__all__ = [
    "ParentSetScores",
    "ScoringData",
    "best_parent_set",
    "check_finite_dags",
    "count_parent_sets",
    "dense_local_scores",
    "drop_bit",
    "insert_bit",
    "local_score_table",
    "local_scores",
    "log_subset_sums",
    "parent_set_scores",
    "restrict_to_knowledge",
    "subset_logsumexp",
    "subset_max",
    "superset_logsumexp",
    "visit_parent_sets",
]


# -- bits ------------------------------------------------------------------------------

def drop_bit(masks, v):
    """Index of subsets of the variables other than ``v`` (bit ``v`` squeezed out).

    Parameters
    ----------
    masks : int or ndarray of int64
        Bitmasks over all variables, without bit ``v``.
    v : int or ndarray of int64
        The child (broadcast against ``masks``).

    Returns
    -------
    int or ndarray
        The bits above ``v`` moved one place down.
    """
    low = (1 << v) - 1
    return (masks & low) | ((masks >> (v + 1)) << v)


def insert_bit(index, v):
    """The inverse of :func:`drop_bit`: bitmasks over all variables (bit ``v`` clear) from
    indices over the variables other than ``v``."""
    low = (1 << v) - 1
    return ((index >> v) << (v + 1)) | (index & low)


# -- the scorer ------------------------------------------------------------------------

def visit_parent_sets(distinct, scorer, children, max_indegree, record, *, tops=None, include_empty=True,
                      allowed=None, prune=False, progress=None):
    """Score every parent set of at most ``max_indegree`` variables for the ``children``
    that may take it, depth first; hand each set's scores to ``record``.

    Parent sets are visited depth first, each extended by variables of lower index than its
    smallest member, so every subset of a set is visited before it; the rows'
    configuration ids gain one radix digit per added parent
    (:meth:`skbn._counting.DistinctRows.add_parent`, renumbered to the observed
    configurations). For each set, every child that takes it is counted in one pass
    (:meth:`skbn._counting.DistinctRows.children_stack`) and scored in one batch
    (:meth:`skbn.scores.BaseScore.local_scores`). A child's value does not depend on which
    other children share its batch, so every layout and grouping gives the same bits.

    A child takes a set when it is not a member and (with ``allowed``) every member is an
    allowed parent; the sets a child takes are closed under subsets, so a set no child
    takes ends its depth-first subtree.

    Pruning (``prune=True``, scores with an upper bound,
    :meth:`skbn.scores.BaseScore.upper_bounds`): a child ``v`` is not counted at ``T`` when
    its bound there is below the best score of ``v`` along the depth-first path to ``T``
    (``T``'s prefixes, all subsets of ``T``) by more than the tie tolerance. Then neither
    ``T`` nor any superset can beat that subset, because the bound only decreases when
    ``T`` grows; its entry is not recorded and a subset-max (:func:`subset_max`) gives every
    best-parent-set value unchanged. A subtree where every child is pruned is skipped.
    The decision for ``v`` depends on ``v``'s own scores only, so it is the same whichever
    children share the pass.

    Parameters
    ----------
    distinct : DistinctRows
        The (weighted) data.
    scorer : BaseScore
        A resolved, decomposable score.
    children : sequence of int
        The children scored.
    max_indegree : int
        Largest parent set.
    record : callable
        ``record(mask, members, live, scored, values)`` for every set scored: ``mask`` the
        set's bitmask (a Python int), ``members`` its members (a tuple, decreasing),
        ``live`` the positions in ``children`` of the children scored, ``scored`` those
        children (``children[live]``), ``values`` their local scores.
    tops : iterable of int or None, default=None
        The largest members of the non-empty sets visited (None: every variable): a
        subtree ``{u} + subsets of {0..u-1}`` per top ``u``.
    include_empty : bool, default=True
        Score the empty set (first).
    allowed : ndarray of shape (p, p), bool, or None, default=None
        ``allowed[v, u]``: may ``u`` be a parent of ``v`` (None: every other variable).
    prune : bool, default=False
        Skip families that cannot be best (needs ``scorer.upper_bounds``).
    progress : Progress or None, default=None
        Hears of every parent set visited, a skipped subtree counting as visited
        (exact when ``tops`` is ``range(q)``).

    Returns
    -------
    int
        The number of families scored.
    """
    children = np.asarray(children, dtype=np.int64)
    r_children = distinct.cards[children]
    r = [int(c) for c in distinct.cards]
    tops = range(len(r)) if tops is None else tops
    # column u: which children may take u as a parent (contiguous, read once per extension)
    takes = None if allowed is None else np.ascontiguousarray(np.asarray(allowed, dtype=bool)[children].T)
    n_scored = n_visited = 0

    def visit(mask, members, extensions, ids, n_ids, q, takers, path_best):
        nonlocal n_scored, n_visited
        n_visited += 1
        size = len(members)
        live = takers
        if prune and size:
            bound = scorer.upper_bounds(r_children, q, n_ids, size, distinct.total_weight, distinct.integral)
            live = takers & ~(path_best > bound + TIE_TOLERANCE * (1.0 + np.abs(bound)))
        live = np.flatnonzero(live)
        if not len(live):  # the subtree below is skipped: count it as done
            n_visited += sum(math.comb(len(extensions), j) for j in range(1, max_indegree - size + 1))
            if progress is not None:
                progress.update(n_visited, families=n_scored)
            return
        scored = children[live]
        values = scorer.local_scores(distinct.children_stack(ids, n_ids, scored, q, size))
        record(mask, members, live, scored, values)
        n_scored += len(live)
        if progress is not None:
            progress.update(n_visited, families=n_scored)
        if size >= max_indegree:
            return
        if prune:
            path_best = path_best.copy()
            path_best[live] = np.maximum(path_best[live], values)
        for u in extensions:
            extend(mask, members, ids, n_ids, q, takers, path_best, u)

    def extend(mask, members, ids, n_ids, q, takers, path_best, u):
        new_ids, new_n = distinct.add_parent(ids, n_ids, u)
        new_takers = takers & (children != u)
        if takes is not None:
            new_takers &= takes[u]
        visit(mask | (1 << u), members + (u,), range(u), new_ids, new_n, q * r[u], new_takers, path_best)

    ids, n_ids = distinct.empty_ids()
    takers = np.ones(len(children), dtype=bool)
    path_best = np.full(len(children), -np.inf)
    if include_empty:
        visit(0, (), tops, ids, n_ids, 1, takers, path_best)
    elif max_indegree >= 1:
        for u in tops:
            extend(0, (), ids, n_ids, 1, takers, path_best, u)
    return n_scored


class ScoringData:
    """What the subset scorer reads of one encoded data set.

    The distinct rows of the discrete columns (:class:`skbn._counting.DistinctRows`) and
    the moments of the continuous ones (:class:`skbn._counting.MomentCounter`); on
    all-discrete data, the distinct rows of every column as before, and nothing else.
    Lives only while a learner fits.

    Experimental rows (``data.intervened``): a child's families are scored on the rows
    where it was not set by intervention (Cooper & Yoo 1999; bnlearn's ``mbde``), so the
    children are scored in groups, one per distinct set of kept rows
    (:func:`skbn._counting.kept_row_groups`): :attr:`distinct_groups` and
    :attr:`moment_groups`. Observational data give one group of every child, on every row.

    Parameters
    ----------
    data : EncodedData
        The encoded (possibly weighted) data set.

    Attributes
    ----------
    n_variables : int
    discrete : ndarray of int
        Positions of the discrete columns.
    continuous : ndarray of int
        Positions of the continuous columns.
    distinct : DistinctRows or None
        The distinct rows of the discrete columns (None without one).
    moments : MomentCounter or None
        The moments of the continuous columns (None without one).
    distinct_groups : list of (ndarray of int, DistinctRows)
        The discrete children (as positions among the discrete columns) grouped by their
        kept rows, each with the distinct rows of those rows (``distinct`` for the
        children never intervened on).
    moment_groups : list of (ndarray of int, MomentCounter)
        The continuous children (variable positions) grouped likewise, each with the
        moments of its kept rows (:meth:`skbn._counting.MomentCounter.rows_of`).
    n_rows : int
        Rows a count pass reads (for cost estimates): the distinct rows of the discrete
        columns, or 1 when every column is continuous (the moments are read instead).
    seconds_per_set : float or None
        Cost of scoring one parent set for every child when every column is continuous
        (:data:`MOMENT_SECONDS_PER_SET`); None: the counting model of the discrete path.
    """

    def __init__(self, data):
        self.data = data
        self.n_variables = data.n_variables
        cards = np.asarray(data.cardinalities, dtype=np.int64)
        self.discrete = np.flatnonzero(cards > 0)
        self.continuous = np.flatnonzero(cards == 0)
        self.distinct = None
        if len(self.discrete):
            self.distinct = DistinctRows(self.distinct_codes(), cards[self.discrete], data.weights)
        self.moments = MomentCounter.of(data) if data.has_continuous else None
        self.distinct_groups, self.moment_groups = [], []
        for children, keep in kept_row_groups(data.intervened, self.n_variables):
            discrete = np.searchsorted(self.discrete, children[cards[children] > 0])
            if len(discrete):
                distinct = self.distinct
                if keep is not None:
                    distinct = DistinctRows(self.distinct_codes()[keep], cards[self.discrete],
                                            None if data.weights is None else data.weights[keep])
                self.distinct_groups.append((discrete, distinct))
            continuous = children[cards[children] == 0]
            if len(continuous):
                self.moment_groups.append((continuous, self.moments.rows_of(int(continuous[0]))))
        self.n_rows = self.distinct.n_rows if self.distinct is not None else 1
        self.seconds_per_set = MOMENT_SECONDS_PER_SET if self.distinct is None else None
        self._cache = None

    def distinct_codes(self):
        """The codes of the discrete columns (every column on all-discrete data)."""
        if not self.data.has_continuous:
            return self.data.codes
        return np.asfortranarray(self.data.codes[:, self.discrete])

    def allowed(self, allowed=None):
        """``allowed[v, u]``: may ``u`` be a parent of ``v``, with the conditional-Gaussian
        rule (no continuous parent of a discrete child) on mixed data."""
        p = self.n_variables
        allowed = ~np.eye(p, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool).copy()
        if len(self.continuous) and len(self.discrete):
            allowed[np.ix_(self.discrete, self.continuous)] = False
        return allowed

    def local_score(self, scorer, child, parents):
        """The local score of one family (a discrete child from its count table, a
        continuous one from the moments)."""
        parents = sorted(int(u) for u in parents)
        if self.moments is None or self.moments.index[child] < 0:
            if self._cache is None or self._cache.scorer is not scorer:
                self._cache = FamilyScoreCache(self.data, scorer)
            return self._cache.local_score(child, parents)
        return _moment_family_score(self.moments, scorer, child, parents, self.n_variables)


def _batch_kind(scorer):
    """Which batched kernel reproduces the scorer's formula for a family whose parents are
    all continuous: "bge", "gaussian" (residual sum of squares, then
    ``_gaussian_loglik`` and the penalty), or None (a subclass that redefines the formula
    is scored one family at a time)."""
    klass = type(scorer)
    if isinstance(scorer, BGe):
        same = (klass.local_score_moments is BGe.local_score_moments
                and klass._log_marginal is BGe._log_marginal)
        return "bge" if same else None
    return "gaussian" if is_rss_score(scorer) else None


#: Seconds per parent set on all-continuous data (one batched Cholesky factor and the
#: residuals of every child), measured on 15-20 Gaussian columns, unbounded, one core.
MOMENT_SECONDS_PER_SET = 8e-6

#: Parent sets factorised per batch (memory: about ``8 k (k + n_columns)`` bytes each).
_BATCH_SETS = 4096


def _factor_residuals(scaled, sets):
    r"""Scaled residuals of every column given each set of ``sets`` (``(n_sets, k)``), in
    every group of the unit-diagonal matrices ``scaled`` (``(n_groups, c, c)``): one
    Cholesky factor :math:`L L^\top = C_{SS}` per set and group, then
    :math:`C_{vv} - \lVert L^{-1} C_{Sv} \rVert^2` for all ``v`` at once.

    Returns ``(residual, log_diag, singular)``: ``(n_groups, n_sets, c)`` residuals,
    ``(n_groups, n_sets)`` sums of the logs of the factors' diagonals (``log |C_SS| / 2``),
    and ``(n_sets,)`` whether some group's factor failed or has a squared diagonal ratio
    below ``SINGULAR_RCOND`` (those sets' values are meaningless).
    """
    n_groups, c, _ = scaled.shape
    n_sets, k = sets.shape
    singular = np.zeros(n_sets, dtype=bool)
    if not k:
        residual = np.broadcast_to(np.diagonal(scaled, axis1=1, axis2=2)[:, None, :], (n_groups, n_sets, c))
        return residual, np.zeros((n_groups, n_sets)), singular
    block = scaled[:, sets[:, :, None], sets[:, None, :]]  # (n_groups, n_sets, k, k)
    try:
        factor = np.linalg.cholesky(block)
    except np.linalg.LinAlgError:  # some set is singular: factor one by one
        factor = np.zeros_like(block)
        for g, i in np.ndindex(n_groups, n_sets):
            try:
                factor[g, i] = np.linalg.cholesky(block[g, i])
            except np.linalg.LinAlgError:
                singular[i] = True
    diag = np.diagonal(factor, axis1=2, axis2=3)
    low, high = diag.min(axis=2), diag.max(axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        singular |= ~((low > 0) & ((low / high) ** 2 > SINGULAR_RCOND)).all(axis=0)
    factor[:, singular] = np.eye(k)
    solved = np.linalg.inv(factor) @ scaled[:, sets]  # L^{-1} C_{S.}: (n_groups, n_sets, k, c)
    residual = np.diagonal(scaled, axis1=1, axis2=2)[:, None, :] - np.einsum("gskc,gskc->gsc", solved, solved)
    log_diag = np.log(np.where(singular[None, :, None], 1.0, diag)).sum(axis=2)
    return residual, log_diag, singular


def _gaussian_batch(kind, scorer, stats, sets, n_variables, n_discrete=0):
    r"""Local scores of every continuous child given each parent set of ``sets`` (all of
    one size ``k``, columns of ``stats``) and ``n_discrete`` discrete parents, whose
    configurations are the groups of ``stats``.

    With :math:`C_g` group ``g``'s scatter matrix scaled to unit diagonal (``d_g`` its
    square-root diagonal; 1 for a constant column), one Cholesky factor per set and group
    gives every child's scaled residual (:func:`_factor_residuals`), the residual sum of
    squares after multiplying by :math:`d_{g,v}^2` (0 below ``SINGULAR_RCOND``, the rule of
    :func:`skbn._counting._moments.regression`); the score is then that of
    :meth:`skbn.scores.BaseGaussianScore.local_score_moments` (``_gaussian_loglik`` summed
    over the observed groups, less the penalty of ``n_groups (k + 2)`` parameters). For BGe
    (one group) the same on :math:`R = tI + S`, whose log-determinants give
    :math:`\log|R_{S \cup v}| = \log|R_{SS}| + \log R_{vv|S}`.

    Returns ``(values, fallback)``: ``values`` of shape ``(n_sets, n_columns)`` (entries of a
    child inside its set are meaningless), and the sets with a singular factor, which the
    caller scores one family at a time (pseudo-inverse rule).
    """
    total = float(np.sum(stats.weight))
    observed = stats.weight > 0  # unobserved configurations add 0 (and count in the penalty)
    if kind == "bge":
        iss_mu, iss_w, t = scorer._prior(n_variables)
        matrix = t * np.eye(stats.n_columns)[None] + stats.scatter
    else:
        matrix = stats.scatter[observed]
    d = np.sqrt(np.diagonal(matrix, axis1=1, axis2=2).copy())
    d[d == 0] = 1.0
    scaled = matrix / (d[:, :, None] * d[:, None, :])
    residual, log_diag, fallback = _factor_residuals(scaled, sets)
    k = sets.shape[1]
    if kind == "bge":
        log_det = 2.0 * (log_diag[0] + np.log(d[0][sets]).sum(axis=1))  # log |R_SS|
        with np.errstate(divide="ignore", invalid="ignore"):
            log_det_child = log_det[:, None] + np.log(residual[0]) + 2.0 * np.log(d[0])[None, :]
        values = (_bge_log_marginal(total, log_det_child, k + 1, n_variables, iss_mu, iss_w, t)
                  - np.reshape(_bge_log_marginal(total, log_det, k, n_variables, iss_mu, iss_w, t), (-1, 1)))
    else:
        rss = np.where(residual > SINGULAR_RCOND, residual, 0.0) * (d ** 2)[:, None, :]
        weight = stats.weight[observed][:, None, None]
        values = (_gaussian_loglik(weight, rss, k + 1, scorer.variance).sum(axis=0)
                  - scorer._penalty(stats.n_groups * (k + 2), total))
    return values - scorer.edge_penalty * (k + n_discrete), fallback


def _visit_continuous(source, scorer, allowed, max_indegree, record, progress=None):
    """Score every continuous child given every allowed parent set of at most
    ``max_indegree`` members; hand them to ``record(sets, children, values)`` batch by
    batch (``sets`` an ``(n_sets, k)`` array of increasing positions, ``children`` the
    continuous children, ``values`` of shape ``(n_sets, n_children)``, NaN where the child
    does not take the set).

    Sets are visited by their discrete part (subsets of the discrete columns, in
    ``itertools.combinations`` order by size), then by size of their continuous part, in
    ``combinations`` order. With experimental rows, each group of children with the same
    kept rows (:attr:`ScoringData.moment_groups`) is visited in turn, from the moments of
    its rows. Returns the number of families scored.
    """
    n_scored = 0
    for children, counter in source.moment_groups:
        n_scored += _visit_continuous_group(counter, children, source.n_variables, scorer, allowed,
                                            max_indegree, record, progress)
    return n_scored


def _visit_continuous_group(counter, children, p, scorer, allowed, max_indegree, record, progress):
    """:func:`_visit_continuous` for the continuous ``children`` scored from ``counter``."""
    takes = allowed[children]  # (n_children, p)
    candidates = np.flatnonzero(takes.any(axis=0))
    disc = [int(u) for u in candidates if counter.index[u] < 0]
    cont = [int(u) for u in candidates if counter.index[u] >= 0]
    kind = _batch_kind(scorer)
    n_scored = 0
    n_visited = 0
    for n_disc in range(min(len(disc), max_indegree) + 1):
        for dset in combinations(disc, n_disc):
            dset = list(dset)
            stats = counter.moments_given(dset)
            batch_size = max(1, _BATCH_SETS // max(1, int(np.count_nonzero(stats.weight))))
            batched = kind == "gaussian" or (kind == "bge" and not n_disc)
            for k in range(max_indegree - n_disc + 1):
                if k > len(cont):
                    break
                all_sets = np.array(list(combinations(cont, k)), dtype=np.int64)
                all_sets = all_sets.reshape(math.comb(len(cont), k), k)
                for start in range(0, len(all_sets), batch_size):
                    csets = all_sets[start:start + batch_size]
                    sets = np.sort(np.concatenate([np.tile(dset, (len(csets), 1)).astype(np.int64), csets],
                                                  axis=1), axis=1)
                    member = np.zeros((len(sets), p), dtype=bool)
                    np.put_along_axis(member, sets, True, axis=1)
                    # child v takes S: v not in S and every member allowed
                    taken = ~member[:, children] & ~(member[:, None, :] & ~takes[None, :, :]).any(axis=2)
                    values = np.full(taken.shape, np.nan)
                    if batched:
                        batch, fallback = _gaussian_batch(kind, scorer, stats, counter.index[csets], p,
                                                          n_disc)
                        values[:] = batch[:, counter.index[children]]
                        redo = np.flatnonzero(fallback)
                    else:
                        redo = np.arange(len(sets))
                    for i in redo:
                        for j in np.flatnonzero(taken[i]):
                            values[i, j] = _moment_family_score(counter, scorer, int(children[j]),
                                                                sets[i].tolist(), p)
                    values[~taken] = np.nan
                    keep = taken.any(axis=1)
                    if keep.any():
                        record(sets[keep], children, values[keep])
                    n_scored += int(taken.sum())
                    n_visited += len(sets)
                    if progress is not None:
                        progress.update(n_visited, families=n_scored)
    return n_scored


def _record_discrete_dense(source, tables):
    """A ``record`` of :func:`visit_parent_sets` on the discrete columns' distinct rows,
    writing the dense tables of all variables (positions mapped back)."""
    disc = source.discrete

    def record(mask, members, live, scored, values):
        full = 0
        for u in members:
            full |= 1 << int(disc[u])
        v = disc[scored]
        tables[v, drop_bit(full, v)] = values

    return record


def local_scores(distinct, scorer, children, n_vars, max_indegree, tables, progress=None, *, prune=None):
    """Dense layout: the local scores of ``children`` for every parent set of at most
    ``max_indegree`` of the variables ``0 .. n_vars - 1``, written into ``tables[i]`` (the
    child ``children[i]``'s row, indexed by the parent-set bitmask over the other variables,
    :func:`drop_bit`). Entries not scored are left as they are (``-inf`` by convention).

    ``prune=None`` prunes when the scorer has an upper bound (exact search:
    :func:`visit_parent_sets`); ``prune=False`` scores every family (posteriors sum over
    all of them). ``progress`` as in :func:`visit_parent_sets`. Returns the number of
    families scored.
    """
    children = np.asarray(children, dtype=np.int64)
    if prune is None:
        prune = scorer.upper_bounds(distinct.cards[children], 1.0, 1, 0, distinct.total_weight,
                                    distinct.integral) is not None

    def record(mask, members, live, scored, values):
        tables[live, drop_bit(mask, scored)] = values

    return visit_parent_sets(distinct, scorer, children, max_indegree, record, tops=range(n_vars),
                             prune=prune, progress=progress)


def dense_local_scores(source, scorer, max_indegree, tables, progress=None, *, prune=None):
    """Dense layout of any data: the local scores of every variable for every parent set
    of at most ``max_indegree`` of the other variables, written into ``tables[v]``
    (indexed by the parent-set bitmask over the other variables, :func:`drop_bit`).
    Entries not scored are left as they are (``-inf`` by convention): beyond
    ``max_indegree``, pruned, or a continuous parent of a discrete child.

    ``source`` is the :class:`ScoringData` of the data. On all-discrete data this is
    :func:`local_scores` of every variable. Otherwise the discrete children are scored by
    :func:`visit_parent_sets` on the discrete columns (positions mapped back; pruned as
    :func:`local_scores` does), the continuous ones from the moments
    (:func:`_visit_continuous`, nothing pruned). Returns the number of families scored.
    """
    p = source.n_variables
    if source.moments is None and source.data.intervened is None:  # one group: every child, every row
        return local_scores(source.distinct, scorer, range(p), p, max_indegree, tables, progress, prune=prune)
    n_scored = 0
    n_discrete = len(source.discrete)
    for children, distinct in source.distinct_groups:  # one group per set of kept rows
        group_prune = prune
        if prune is None:
            group_prune = scorer.upper_bounds(distinct.cards, 1.0, 1, 0, distinct.total_weight,
                                              distinct.integral) is not None
        n_scored += visit_parent_sets(distinct, scorer, children, min(max_indegree, n_discrete - 1),
                                      _record_discrete_dense(source, tables), tops=range(n_discrete),
                                      prune=group_prune, progress=progress)

    def record(sets, children, values):
        masks = np.bitwise_or.reduce(np.left_shift(1, sets), axis=1) if sets.shape[1] else \
            np.zeros(len(sets), dtype=np.int64)
        for j, v in enumerate(children):
            where = ~np.isnan(values[:, j])
            tables[v, drop_bit(masks[where], int(v))] = values[where, j]

    return n_scored + _visit_continuous(source, scorer, source.allowed(), max_indegree, record, progress)


class ParentSetScores:
    """Local scores of every allowed family, grouped by child (the sparse layout).

    Built by :func:`parent_set_scores`; the parameters are stored as attributes of the same
    names.

    Parameters
    ----------
    parents : list of ndarray of shape (n_sets_i, max_indegree), int64
        Parent sets of child ``i``, one per row, members increasing and padded with ``-1``.
    scores : list of ndarray of shape (n_sets_i,)
        Local score (log marginal likelihood plus log structure prior) of each set.
    n_variables : int
        Number of variables (children).
    """

    def __init__(self, parents, scores, n_variables):
        self.parents = parents
        self.scores = scores
        self.n_variables = n_variables

    @property
    def n_families(self):
        """Total number of scored families, over all children."""
        return int(sum(len(s) for s in self.scores))

    def masks(self, child):
        """Bitmask of every parent set of ``child``.

        Parameters
        ----------
        child : int
            Position of the child variable.

        Returns
        -------
        list of int
            One bitmask per row of ``parents[child]`` (bit ``u`` set when ``u`` is a
            parent), as Python ints, exact for any number of variables.
        """
        return [sum(1 << int(u) for u in row if u >= 0) for row in self.parents[child]]


def _allowed_matrix(n_variables, candidate_parents):
    """``allowed[v, u]``: may ``u`` be a parent of ``v``."""
    allowed = ~np.eye(n_variables, dtype=bool)
    if candidate_parents is not None:
        allowed[:] = False
        for v, candidates in enumerate(candidate_parents):
            allowed[v, [u for u in candidates if u != v]] = True
    return allowed


def count_parent_sets(n_variables, max_indegree, candidate_parents=None):
    """Number of families :func:`parent_set_scores` would score.

    For every child :math:`i`, :math:`\\sum_{j \\le k} \\binom{c_i}{j}` with ``c_i`` candidate
    parents and :math:`k = \\min(\\text{max\\_indegree}, c_i)`.

    Parameters
    ----------
    n_variables : int
        Number of variables.
    max_indegree : int or None
        Largest parent set (None: no bound).
    candidate_parents : list of sequences of int or None, default=None
        ``candidate_parents[v]``: the variables allowed as parents of ``v`` (None: every
        other variable).

    Returns
    -------
    int
        The number of families, summed over the children.
    """
    allowed = _allowed_matrix(n_variables, candidate_parents)
    total = 0
    for v in range(n_variables):
        c = int(allowed[v].sum())
        k = c if max_indegree is None else min(max_indegree, c)
        total += sum(math.comb(c, j) for j in range(k + 1))
    return total


def parent_set_scores(data, scorer, max_indegree=None, candidate_parents=None, n_jobs=None):
    r"""Local score of every family with at most ``max_indegree`` parents taken from each
    child's candidates (all other variables by default).

    Parent sets are visited depth first, each extended by variables of lower index than its
    smallest member; the distinct rows' configuration ids gain one radix digit per added
    parent, and for each set every child that may take it is counted in one pass over the
    distinct rows (weighted by ``data.weights``) and scored in one batch
    (:meth:`skbn.scores.BaseScore.local_scores`): the scorer
    :class:`skbn.estimators.ExactStructure` uses, with the same value for every family to
    the bit. Unlike the exact learner's search nothing is pruned: a posterior sums over
    every family.

    With continuous columns: a discrete child's sets are those of
    the discrete path over the discrete columns (never a continuous parent), in
    depth-first order; a continuous child's follow (from the moments, by their discrete part,
    then by size of their continuous part), computed in this process whatever ``n_jobs``.

    Parameters
    ----------
    data : EncodedData
        The encoded (possibly weighted) data set.
    scorer : BaseScore
        A resolved score object.
    max_indegree : int or None
        Largest parent set scored (None: ``n_variables - 1``).
    candidate_parents : list of sequences of int or None
        ``candidate_parents[v]``: the variables allowed as parents of ``v``.
    n_jobs : int or None
        Workers (joblib) scoring contiguous blocks of depth-first subtrees (the sets whose
        largest member is ``u``), balanced by their number of sets; the tables are
        concatenated in depth-first order, so they are identical for any ``n_jobs``.

    Returns
    -------
    ParentSetScores
        Every child's allowed parent sets and their local scores, in depth-first order.
    """
    p = data.n_variables
    allowed = _allowed_matrix(p, candidate_parents)
    k = p - 1 if max_indegree is None else min(int(max_indegree), p - 1)
    width = max(k, 1)
    if not data.has_continuous and data.intervened is None:
        distinct = DistinctRows(data.codes, data.cardinalities, data.weights)
        return ParentSetScores(*_discrete_parent_sets(distinct, scorer, allowed, k, width, n_jobs), p)
    source = ScoringData(data)
    allowed = source.allowed(allowed)
    found_sets = [[np.zeros((0, width), dtype=np.int64)] for _ in range(p)]
    found_scores = [[np.zeros(0)] for _ in range(p)]
    disc = source.discrete
    # discrete children, discrete parents (positions mapped back), one group per set of kept rows
    for children, distinct in source.distinct_groups:
        sub = allowed[np.ix_(disc, disc)]
        k_sub = min(k, len(disc) - 1)
        sets, scores = _discrete_parent_sets(distinct, scorer, sub, k_sub, width, n_jobs, children)
        for i in children:
            v = disc[i]
            found_sets[v].append(np.where(sets[i] >= 0, disc[np.maximum(sets[i], 0)], -1))
            found_scores[v].append(scores[i])

    def record(sets, children, values):
        rows = np.full((len(sets), width), -1, dtype=np.int64)
        rows[:, :sets.shape[1]] = sets
        for j, v in enumerate(children):
            where = ~np.isnan(values[:, j])
            found_sets[v].append(rows[where])
            found_scores[v].append(values[where, j])

    _visit_continuous(source, scorer, allowed, k, record)
    return ParentSetScores([np.concatenate(s) for s in found_sets],
                           [np.concatenate(s) for s in found_scores], p)


def _discrete_parent_sets(distinct, scorer, allowed, k, width, n_jobs, children=None):
    """The sparse layout of the discrete path: per child the set rows and their scores,
    in depth-first order (blocks of subtrees scored by ``n_jobs`` workers); only the
    ``children`` (None: every variable) are scored, the others' lists stay empty."""
    p = len(distinct.cards)
    # the empty set, then the subtrees of {0}, {1}, ... in contiguous blocks balanced by size
    sizes = [sum(math.comb(u, j) for j in range(k)) for u in range(p)]
    n_blocks = max(1, min(effective_n_jobs(n_jobs), p))
    bounds = np.searchsorted(np.cumsum(sizes), np.arange(1, n_blocks) * sum(sizes) / n_blocks)
    blocks = [b.tolist() for b in np.split(np.arange(p), bounds)]
    blocks = [None] + [b for b in blocks if b]
    if n_blocks == 1:
        parts = [_score_subtrees(distinct, scorer, allowed, k, width, b, children) for b in blocks]
    else:
        parts = Parallel(n_jobs=n_jobs)(
            delayed(_score_subtrees)(distinct, scorer, allowed, k, width, b, children) for b in blocks
        )
    parents = [np.concatenate([part[0][v] for part in parts]) for v in range(p)]
    scores = [np.concatenate([part[1][v] for part in parts]) for v in range(p)]
    return parents, scores


def _score_subtrees(distinct, scorer, allowed, max_indegree, width, tops, children=None):
    """The sparse layout of the parent sets whose largest member is in ``tops`` (``None``:
    the empty set alone); per child (of ``children``, None: every variable) the set rows
    and their scores, in depth-first order."""
    p = len(distinct.cards)
    found_sets = [[] for _ in range(p)]
    found_scores = [[] for _ in range(p)]

    def record(mask, members, live, scored, values):
        row = sorted(members) + [-1] * (width - len(members))
        for v, value in zip(scored, values):
            found_sets[v].append(row)
            found_scores[v].append(float(value))

    visit_parent_sets(distinct, scorer, range(p) if children is None else children, max_indegree, record,
                      tops=() if tops is None else tops,
                      include_empty=tops is None, allowed=allowed)
    return ([np.asarray(s, dtype=np.int64).reshape(-1, width) for s in found_sets],
            [np.asarray(s, dtype=np.float64) for s in found_scores])


def local_score_table(families):
    """The dense layout of a :class:`ParentSetScores`: ``(p, 2^(p-1))``, ``-inf`` where a
    set was not scored."""
    p = families.n_variables
    local = np.full((p, 1 << max(p - 1, 0)), -np.inf)
    for v in range(p):
        masks = np.asarray(families.masks(v), dtype=np.int64)
        local[v, drop_bit(masks, v)] = families.scores[v]
    return local


# -- tables over subsets (dense layout) ------------------------------------------------

def subset_max(table):
    """In place: ``table[S] = max_{T subset of S} table[T]`` over bitmask indices (one
    vectorised pass per bit)."""
    for b in range(int(len(table)).bit_length() - 1):
        view = table.reshape(-1, 2, 1 << b)
        np.maximum(view[:, 1, :], view[:, 0, :], out=view[:, 1, :])


def subset_logsumexp(table):
    """In place: ``table[S] = log sum_{T subset of S} exp(table[T])`` (zeta transform)."""
    for b in range(len(table).bit_length() - 1):
        view = table.reshape(-1, 2, 1 << b)
        np.logaddexp(view[:, 1, :], view[:, 0, :], out=view[:, 1, :])


def superset_logsumexp(table):
    """In place: ``table[S] = log sum_{T superset of S} exp(table[T])``."""
    for b in range(len(table).bit_length() - 1):
        view = table.reshape(-1, 2, 1 << b)
        np.logaddexp(view[:, 0, :], view[:, 1, :], out=view[:, 0, :])


def log_subset_sums(local):
    r"""The log-sum tables :math:`\log \alpha_v(C) = \log \sum_{S \subseteq C} \exp s_v(S)`
    of dense local-score tables ``local`` (a new array; ``-inf`` entries add nothing)."""
    alpha = local.copy()
    for table in alpha:
        subset_logsumexp(table)
    return alpha


def best_parent_set(v_table, candidates_mask, v):
    """Recover a best parent set of ``v`` within ``candidates_mask`` (a bitmask over all
    variables) from its best-parent-set table (:func:`subset_max` of its local scores):
    drop members (in index order) while the best score within the remaining set is not
    beaten by the overall best (``skbn._engines._search.improves``: rounding-level
    differences between equal scores never keep a useless parent). Returns the members,
    increasing."""
    best = v_table[drop_bit(candidates_mask, v)]
    current = candidates_mask
    for u in range(int(candidates_mask).bit_length()):
        if (current >> u) & 1:
            smaller = current & ~(1 << u)
            rest = v_table[drop_bit(smaller, v)]  # -inf: a required parent would be dropped
            if np.isfinite(rest) and not improves(best, rest):
                current = smaller
    return [u for u in range(int(current).bit_length()) if (current >> u) & 1]


def check_finite_dags(node_best, names, scorer, total=None):
    r"""Refuse data on which no DAG has a finite score.

    A DAG's score is the sum of its families' local scores, so when every allowed parent
    set of some node scores :math:`-\infty` every DAG does: there is no best DAG to find
    (exact search's sink peeling would not end) and no posterior to normalise (order MCMC
    and :func:`skbn.posterior.edge_posteriors` would average ``-inf - (-inf)``, NaN).

    Parameters
    ----------
    node_best : array-like of shape (n_variables,)
        Best local score of every node over its allowed parent sets (after background
        knowledge): ``max_S s_v(S)``.
    names : sequence
        Column names, in the order of ``node_best``.
    scorer : BaseScore
        The score (named in the message).
    total : float or None, default=None
        The best DAG's score, or the log normaliser of a posterior, when known: ``-inf``
        without a node to blame means that the nodes' finite families cannot be combined
        into one DAG.

    Raises
    ------
    ValueError
        Naming the columns whose every family scores ``-inf`` and why a family does.
    """
    node_best = np.asarray(node_best, dtype=float)
    blamed = [names[v] for v in np.flatnonzero(np.isneginf(node_best))]
    if not blamed and (total is None or not np.isneginf(total)):
        return
    kind = type(scorer).__name__
    if blamed:
        what = (f"every allowed parent set of {'column' if len(blamed) == 1 else 'columns'} "
                f"{', '.join(map(repr, blamed))} scores -inf under {kind}")
    else:
        what = (f"every node has a parent set of finite {kind} score, but no DAG combines them "
                f"(the background knowledge forces the others)")
    raise ValueError(
        f"No DAG has a finite score: {what}. A continuous column's family scores -inf when the "
        f"column has no residual variance on the rows scored (constant there, e.g. in a "
        f"bootstrap resample that drew a single one of its values, or an exact linear function "
        f"of parents a white_list requires) or when those rows weigh no more than the family's "
        f"coefficients (variance='unbiased'). Drop the column or declare it discrete, or remove "
        f"the required edge; BootstrapStructure(bootstrap='bayesian') keeps every row in every "
        f"resample."
    )


def restrict_to_knowledge(tables, knowledge, max_indegree, local_score):
    """In place, on dense local-score tables of every child, before the subset-max:
    ``tables[v][S] = -inf`` unless ``S`` holds every required parent of ``v`` and no
    forbidden one (:class:`skbn.knowledge.BackgroundKnowledge`).

    Forbidden parents only remove sets, and the allowed sets are closed under subsets, so
    pruning (which compares a set with its subsets) stays exact for them. Sets holding the
    required parents are not closed under subsets: such a set pruned because a smaller
    one lacking a required parent scored higher is scored here by ``local_score(v,
    parents)``.
    """
    p = len(tables)
    masks = np.arange(tables.shape[1], dtype=np.int64)
    size = np.zeros(len(masks), dtype=np.int64)
    for b in range(p - 1):
        size += (masks >> b) & 1
    for v, table in enumerate(tables):
        def bits(members, v=v):
            return int(sum(1 << (u if u < v else u - 1) for u in members))

        forbidden = bits(np.flatnonzero(knowledge.forbidden[:, v] & (np.arange(p) != v)))
        required = bits(knowledge.required_parents(v))
        table[((masks & forbidden) != 0) | ((masks & required) != required)] = -np.inf
        if required:
            missing = np.flatnonzero(np.isneginf(table) & ((masks & forbidden) == 0)
                                     & ((masks & required) == required) & (size <= max_indegree))
            for mask in missing:
                parents = [u for u in range(p) if u != v and (mask >> (u if u < v else u - 1)) & 1]
                table[mask] = local_score(v, parents)
