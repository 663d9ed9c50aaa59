"""Exact structure learning: the DAG that maximises a decomposable score, by dynamic
programming over subsets (Silander & Myllymaki 2006)."""

import math
import re
import time
from numbers import Integral

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from scipy.special import gammaln, xlogy

from skbn._counting import compress_ids, extend_ids
from skbn.estimators._base import _BaseStructureLearner
from skbn._search import TIE_TOLERANCE, _nonzero_columns, improves
from skbn.scores import AIC, BIC, BDeu, FamilyScoreCache, K2Score, LogLikelihood, resolve_scorer
from skbn.utils._sklearn_compat import Interval

__all__ = ["ExactStructure", "exact_memory_bytes"]

_UNITS = {"": 1, "B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}


def _parse_memory(value):
    """Bytes from an int or a string such as ``"4GB"``, ``"512 MB"`` (binary units)."""
    if isinstance(value, Integral) and not isinstance(value, bool):
        if value <= 0:
            raise ValueError(f"max_memory must be positive, got {value!r}.")
        return int(value)
    if isinstance(value, str):
        match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([KMGT]?B?)\s*", value.upper())
        if match and float(match.group(1)) > 0:
            unit = match.group(2)
            unit = unit if unit.endswith("B") or unit == "" else unit + "B"
            return int(float(match.group(1)) * _UNITS[unit])
    raise ValueError(
        f"max_memory must be a positive number of bytes or a string like '4GB' or '512MB', "
        f"got {value!r}."
    )


def _format_bytes(n):
    for unit in ("TB", "GB", "MB", "KB"):
        if n >= _UNITS[unit]:
            return f"{n / _UNITS[unit]:.1f} {unit}"
    return f"{n} B"


def exact_memory_bytes(n_variables):
    """Peak memory (bytes) of :class:`ExactStructure`'s arrays for ``n_variables`` variables.

    ``p 2^(p-1)`` float64 best-parent-set scores, plus per subset of all ``p`` variables a
    float64 best-network score, an int8 best sink, a uint8 popcount and about 24 bytes of
    per-layer temporaries.
    """
    p = int(n_variables)
    if p == 0:
        return 0
    return 8 * p * (1 << (p - 1)) + 34 * (1 << p)


def _drop_bit(masks, v):
    """Index of subsets of the variables other than ``v`` (bit ``v`` squeezed out)."""
    low = (1 << v) - 1
    return (masks & low) | ((masks >> (v + 1)) << v)


def _unique_rows(codes):
    """Distinct rows of the data and their multiplicities (float64, exact integers)."""
    rows, weights = np.unique(codes, axis=0, return_counts=True)
    return rows, weights.astype(np.float64)


class _ChildrenCounter:
    """Local scores of several children for one parent set, from one weighted ``bincount``.

    The data are the distinct rows with their multiplicities. For a parent set with
    configuration ids ``c`` (one per distinct row) and children ``L``, one ``bincount`` over
    ``c * sum_L r + o_v + x_v`` (rows x children) gives every family table ``G[c, o_v + x_v]``
    at once; the built-in scores are then summed over the non-zero cells per child, the
    cells' ``gammaln`` / ``xlogy`` terms being evaluated once per distinct (child, count)
    pair (see :func:`_per_child_sum`). Other scorers get each child's block through
    ``scorer.local_score``. Every family's value depends only on its own cells, so it does
    not depend on which other children are counted alongside it.
    """

    def __init__(self, rows, weights, cards, scorer):
        self.codes_t = np.ascontiguousarray(rows.T, dtype=np.int64)  # (p, n_distinct)
        self.n_rows = rows.shape[0]
        self.weights = weights
        self.tiled = np.tile(weights, rows.shape[1])  # weights of (child, row) cells, child-major
        self.cards = np.asarray(cards, dtype=np.int64)
        self.scorer = scorer
        self.kind = type(scorer) if type(scorer) in (BDeu, K2Score, BIC, AIC, LogLikelihood) else None
        n = int(round(weights.sum()))
        self.n = n
        everything = np.arange(n + 1, dtype=np.float64)
        if self.kind is K2Score:
            self.cell_table = gammaln(1.0 + everything)
        elif self.kind in (BIC, AIC, LogLikelihood):
            self.cell_table = xlogy(everything, everything)

    @property
    def has_bound(self):
        return self.kind is not None

    def upper_bounds(self, children, n_configs, q, n_parents):
        r"""Upper bounds of the local scores of ``children`` with any superset of a parent
        set with ``n_configs`` observed and ``q`` declared configurations.

        * BDeu and K2: each observed parent configuration contributes the log-probability
          of its child values under a symmetric Dirichlet-multinomial, at most
          :math:`-\log r` (the first value has probability ``1/r``), so
          :math:`s \le -m \log r` with ``m`` observed configurations (cf. de Campos & Ji
          2011);
        * BIC, AIC, log-likelihood: the log-likelihood is at most 0, so
          :math:`s \le -\mathrm{penalty}(q)`.

        Both decrease when parents are added (``m`` and ``q`` never shrink), as does the
        ``edge_penalty`` term.
        """
        r = self.cards[children].astype(np.float64)
        kind = self.kind
        if kind in (BDeu, K2Score):
            bound = -n_configs * np.log(r)
        elif kind is BIC and self.n > 0:
            bound = -0.5 * math.log(self.n) * (r - 1) * q
        elif kind is AIC:
            bound = -(r - 1) * q
        else:
            bound = np.zeros(len(children))
        return bound - self.scorer.edge_penalty * n_parents

    def scores(self, ids, n_ids, children, q, n_parents):
        """Local scores of ``children`` (int array) with the parent set whose ids are given."""
        cards = self.cards[children]
        offsets = np.zeros(len(children) + 1, dtype=np.int64)
        np.cumsum(cards, out=offsets[1:])
        total = int(offsets[-1])
        cells = self.codes_t[children] + offsets[:-1, None]
        cells += ids * total
        size = len(children) * self.n_rows
        table = np.bincount(cells.ravel(), self.tiled[:size], minlength=n_ids * total)
        table = table.reshape(n_ids, total)
        if self.kind is None:
            return np.array([self.scorer.local_score(table[:, offsets[i]:offsets[i + 1]], q, n_parents)
                             for i in range(len(children))])
        values, columns = _nonzero_columns(table)
        counts = values.astype(np.int64)
        child = np.repeat(np.arange(len(children)), cards)[columns]
        row_counts = np.bincount(ids, self.weights, minlength=n_ids)
        row_counts = row_counts[row_counts > 0].astype(np.int64)
        kind, r = self.kind, cards.astype(np.float64)
        if kind is BDeu:
            a_row = self.scorer.ess / q
            a_cell = a_row / r
            largest, n_configs = int(row_counts.max(initial=0)), len(row_counts)
            row_term = _per_child_sum(lambda c, k: gammaln(a_row + k) - gammaln(a_row),
                                      row_counts, np.zeros(n_configs, dtype=np.int64), 1,
                                      largest, n_configs)
            base = gammaln(a_cell)
            cell_term = _per_child_sum(lambda c, k: gammaln(a_cell[c] + k) - base[c],
                                       counts, child, len(children), largest, n_configs)
            result = cell_term - row_term
        elif kind is K2Score:
            distinct, which = np.unique(r, return_inverse=True)
            row_terms = np.array([np.sum(gammaln(a) - gammaln(a + row_counts)) for a in distinct])
            result = np.bincount(child, self.cell_table[counts], minlength=len(children))
            result += row_terms[which]
        else:
            result = np.bincount(child, self.cell_table[counts], minlength=len(children))
            result -= np.sum(self.cell_table[row_counts])
            if kind is BIC and self.n > 0:
                result -= 0.5 * math.log(self.n) * (r - 1) * q
            elif kind is AIC:
                result -= (r - 1) * q
        return result - self.scorer.edge_penalty * n_parents


def _per_child_sum(function, counts, child, n_children, largest, n_configs):
    """``sum`` of ``function(child, count)`` over cells, per child.

    When the counts are small (large parent sets: most cells hold 1, 2, 3 rows) the function
    is evaluated once per distinct (child, count) pair and weighted by its multiplicity. The
    choice depends on the parent set only (``largest`` row count, ``n_configs`` observed
    configurations), never on which children are counted together, so a family's value
    does not depend on ``n_jobs``.
    """
    if largest + 1 <= 16 * n_configs:
        span = largest + 1
        multiplicity = np.bincount(child * span + counts, minlength=n_children * span)
        pairs = np.flatnonzero(multiplicity)
        which, count = np.divmod(pairs, span)
        return np.bincount(which, multiplicity[pairs] * function(which, count), minlength=n_children)
    return np.bincount(child, function(child, counts), minlength=n_children)


def _local_scores(rows, weights, cards, scorer, children, n_vars, max_indegree, tables):
    """Local scores of ``children`` for every parent set of at most ``max_indegree``
    variables, written into ``tables[i]`` (the child ``children[i]``'s row of a 2-D array,
    indexed by the parent-set bitmask over the other variables). Returns the number of
    families scored.

    Parent sets are visited depth first, each extended by variables of lower index than its
    smallest member, so every subset of a set is visited before it; the rows' configuration
    ids gain one radix digit per added parent and are renumbered to the observed
    configurations.

    Pruning (scores with an upper bound, see :meth:`_ChildrenCounter.upper_bounds`): a
    child ``v`` is not counted at ``T`` when its bound there is below the best score of
    ``v`` along the depth-first path to ``T`` (``T``'s prefixes, all subsets of ``T``) by
    more than the tie tolerance. Then neither ``T`` nor any superset can beat that subset,
    because the bound only decreases when ``T`` grows; its entries stay ``-inf`` and the
    caller's subset-max pass gives every best-parent-set value unchanged. A depth-first
    subtree where every child is pruned is skipped. The decision for ``v`` depends on
    ``v``'s own scores only, so it is the same whichever children share the pass.
    """
    counter = _ChildrenCounter(rows, weights, cards, scorer)
    children = np.asarray(children, dtype=np.int64)
    prune = counter.has_bound
    r = [int(c) for c in cards]
    n_scored = 0

    def visit(mask, lowest, ids, n_ids, q, size, path_best):
        nonlocal n_scored
        outside = ((mask >> children) & 1) == 0
        if prune and size:
            bound = counter.upper_bounds(children, n_ids, q, size)
            outside &= ~(path_best > bound + 1e-10 * (1.0 + np.abs(bound)))
        live = np.flatnonzero(outside)
        if not len(live):
            return
        values = counter.scores(ids, n_ids, children[live], q, size)
        tables[live, _drop_bit(mask, children[live])] = values
        n_scored += len(live)
        if size >= max_indegree:
            return
        if prune:
            path_best = path_best.copy()
            path_best[live] = np.maximum(path_best[live], values)
        for u in range(lowest):
            new_ids, new_n = extend_ids(ids, n_ids, rows, cards, u)
            new_ids, new_n = compress_ids(new_ids, new_n)
            visit(mask | (1 << u), u, new_ids, new_n, q * r[u], size + 1, path_best)

    visit(0, n_vars, np.zeros(len(weights), dtype=np.int64), 1, 1, 0, np.full(len(children), -np.inf))
    return n_scored


def _local_scores_worker(rows, weights, cards, scorer, children, n_vars, max_indegree):
    tables = np.full((len(children), 1 << (n_vars - 1)), -np.inf)
    n_scored = _local_scores(rows, weights, cards, scorer, children, n_vars, max_indegree, tables)
    return tables, n_scored


def _subset_max(table):
    """In place: ``table[S] = max_{T subset of S} table[T]`` over bitmask indices."""
    for b in range(int(len(table)).bit_length() - 1):
        view = table.reshape(-1, 2, 1 << b)
        np.maximum(view[:, 1, :], view[:, 0, :], out=view[:, 1, :])


def _best_parents(v_table, candidates_mask, v):
    """Recover a best parent set of ``v`` within ``candidates_mask`` from the superset-max
    table: drop members (in index order) while the best score within the remaining set is
    not beaten by the overall best (``skbn._search.improves``: rounding-level differences
    between equal scores never keep a useless parent)."""
    best = v_table[_drop_bit(candidates_mask, v)]
    current = candidates_mask
    for u in range(int(candidates_mask).bit_length()):
        if (current >> u) & 1:
            smaller = current & ~(1 << u)
            if not improves(best, v_table[_drop_bit(smaller, v)]):
                current = smaller
    return [u for u in range(int(current).bit_length()) if (current >> u) & 1]


class ExactStructure(_BaseStructureLearner):
    r"""Provably optimal DAG for a decomposable score, by dynamic programming over subsets.

    For a decomposable score :math:`\mathrm{score}(G) = \sum_i s_i(\mathrm{pa}_i)` the best
    network on a set of variables :math:`W` has some sink :math:`v` whose parents are the
    best subset of :math:`W \setminus \{v\}` (Silander & Myllymaki 2006):

    .. math::
        \mathrm{bps}_v(C) = \max_{S \subseteq C} s_v(S), \qquad
        F(W) = \max_{v \in W} \; F(W \setminus \{v\}) + \mathrm{bps}_v(W \setminus \{v\}),

    with :math:`F(\emptyset) = 0`. The steps are (1) local scores :math:`s_v(S)` of every
    family with :math:`|S| \le` ``max_indegree``: parent sets are visited depth first
    (extending the distinct rows' configuration ids by one radix digit per added parent)
    and, for each set, every child outside it is counted by ONE weighted ``bincount`` over
    the distinct rows and scored by one vectorised pass; families that provably cannot
    beat a subset are skipped (upper bounds below); (2) best parent sets
    :math:`\mathrm{bps}_v` by a vectorised subset-max over the bits; (3) best sinks
    :math:`F(W)` layer by layer over subset size; (4) the optimal network, peeling the best
    sink off the full set. Time :math:`O(p^2 2^p)` array operations plus one count pass per
    parent set; memory :math:`8 p 2^{p-1} + 34 \cdot 2^p` bytes (see
    :func:`exact_memory_bytes`), about 115 MB for 20 variables, 2.1 GB for 24 and 4.3 GB
    for 25 (twice the first term while ``n_jobs > 1`` workers hand their tables back).

    Pruning keeps optimality: :math:`s_v(T) \le U_v(T)` with
    :math:`U_v = -m_T \log r_v` for BDeu and K2 (:math:`m_T` observed parent
    configurations; each contributes a Dirichlet-multinomial log-probability of at most
    :math:`-\log r_v`, as its first child value has probability :math:`1/r_v`; a bound of the
    kind used by de Campos & Ji 2011) and :math:`U_v = -\mathrm{penalty}_v(T)` for
    BIC, AIC and the log-likelihood (the log-likelihood is at most 0), minus the
    ``edge_penalty`` term. :math:`U_v` never increases when parents are added, so once
    it falls below the score of a subset of :math:`T` (one on the depth-first path to
    :math:`T`), no superset of :math:`T` can be a best parent set and none is counted.
    Every :math:`\mathrm{bps}_v` value, hence the network, is the unpruned one. Other
    scorers are counted in full.

    Determinism: a sink replaces the incumbent only if it improves by more than
    ``skbn._search.improves``' tolerance (the lowest column index wins ties); the parent
    set is then made minimal by dropping members in column order while the best score
    within the rest is within that tolerance of the best. Results, ``n_families_``
    included, do not depend on ``n_jobs``.

    Parameters
    ----------
    scorer : str or BaseScore, default="bdeu"
        Any decomposable score ("bdeu", "k2", "bic", "aic", or an object).
    max_indegree : int or None, default=None
        Largest parent set considered; bounding it saves most of the counting time (the
        dynamic programme over the ``2^p`` subsets stays).
    max_memory : int or str, default="4GB"
        Refuse (``MemoryError`` before allocating) when :func:`exact_memory_bytes` exceeds
        it: a number of bytes or a string with a binary unit ("KB", "MB", "GB", "TB";
        1 GB = 2**30 bytes).
    n_jobs : int or None, default=None
        Parallel workers (joblib) for the local-score tables, each counting a contiguous
        block of children over every parent set; results are identical for any value.
    verbose : int, default=0
        Print progress when > 0.
    {common_parameters}

    Attributes
    ----------
    edges_ : list of (parent, child)
        The optimal DAG.
    score_ : float
        Its score (sum of the families' local scores).
    network_ : DiscreteBayesianNetwork
    scorer_ : BaseScore
        The resolved score object.
    n_families_ : int
        Number of local scores computed (pruned families excluded).
    categories_, classes_, n_features_in_, feature_names_in_

    References
    ----------
    T. Silander and P. Myllymaki, "A simple approach for finding the globally optimal
    Bayesian network structure", UAI 2006.

    C. P. de Campos and Q. Ji, "Efficient structure learning of Bayesian networks using
    constraints", JMLR 12, 2011.

    Examples
    --------
    >>> from skbn.estimators.exact import ExactStructure
    >>> from skbn.datasets import sample_asia
    >>> X = sample_asia(2000, random_state=0)[["smoke", "lung", "bronc", "dysp"]]
    >>> model = ExactStructure(scorer="bic").fit(X)
    >>> model.score_ >= ExactStructure(scorer="bic", max_indegree=1).fit(X).score_
    True
    >>> ("smoke", "lung") in model.edges_ or ("lung", "smoke") in model.edges_
    True
    """

    _parameter_constraints = {
        **_BaseStructureLearner._parameter_constraints,
        "scorer": "no_validation",
        "max_indegree": [None, Interval(Integral, 0, None, closed="left")],
        "max_memory": [Interval(Integral, 1, None, closed="left"), str],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        scorer="bdeu",
        max_indegree=None,
        max_memory="4GB",
        n_jobs=None,
        verbose=0,
        categories="auto",
        handle_unknown="error",
        target=None,
        fit_parameters=True,
        parameter_estimator="bayes",
        parameter_ess=1.0,
    ):
        self.scorer = scorer
        self.max_indegree = max_indegree
        self.max_memory = max_memory
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.categories = categories
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess

    def _learn_structure(self, data):
        self.scorer_ = resolve_scorer(self.scorer)
        limit = _parse_memory(self.max_memory)
        p = data.n_variables
        needed = exact_memory_bytes(p)
        if needed > limit:
            raise MemoryError(
                f"ExactStructure needs about {_format_bytes(needed)} for {p} variables "
                f"(8 p 2^(p-1) + 34 2^p bytes), more than max_memory={self.max_memory!r}; "
                f"raise max_memory or use fewer variables (each one doubles the memory)."
            )
        if p == 0:
            self.score_, self.n_families_ = 0.0, 0
            return []
        k = p - 1 if self.max_indegree is None else min(self.max_indegree, p - 1)
        half = 1 << (p - 1)

        # (1) local scores, written into the best-parent-set tables (-inf: not considered)
        started = time.perf_counter()
        rows, weights = _unique_rows(data.codes)
        n_jobs = min(effective_n_jobs(self.n_jobs), p)
        if n_jobs == 1:
            bps = np.full((p, half), -np.inf)
            n_families = _local_scores(rows, weights, data.cardinalities, self.scorer_,
                                       range(p), p, k, bps)
        else:
            groups = np.array_split(np.arange(p), n_jobs)
            parts = Parallel(n_jobs=n_jobs)(
                delayed(_local_scores_worker)(rows, weights, data.cardinalities, self.scorer_,
                                              group, p, k)
                for group in groups
            )
            bps = np.concatenate([tables for tables, _ in parts])
            n_families = sum(count for _, count in parts)
            del parts
        if self.verbose:
            print(f"[ExactStructure] {n_families} local scores")

        if self.verbose:
            print(f"[ExactStructure] local scores: {time.perf_counter() - started:.2f} s")
        # (2) best parent set within each candidate set: superset-max over each bit
        for table in bps:
            _subset_max(table)

        if self.verbose:
            print(f"[ExactStructure] best parent sets: {time.perf_counter() - started:.2f} s")
        # (3) best sinks, layer by layer over subset size
        full = (1 << p) - 1
        best = np.full(1 << p, -np.inf)
        best[0] = 0.0
        sink = np.zeros(1 << p, dtype=np.int8)
        popcount = np.zeros(1 << p, dtype=np.uint8)
        for v in range(p):  # sets with top bit v: one more than the sets below 2^v
            np.add(popcount[:1 << v], 1, out=popcount[1 << v:2 << v])
        for size in range(1, p + 1):
            layer = np.flatnonzero(popcount == size).astype(np.int32)
            layer_best = np.full(len(layer), -np.inf)
            layer_bar = np.full(len(layer), -np.inf)  # incumbent + tolerance (improves)
            layer_sink = np.zeros(len(layer), dtype=np.int8)
            for v in range(p):
                has_v = np.flatnonzero((layer >> v) & 1)
                rest = layer[has_v] ^ (1 << v)
                value = best[rest] + bps[v][_drop_bit(rest, v)]
                take = value > layer_bar[has_v]
                where, value = has_v[take], value[take]
                layer_best[where] = value
                layer_bar[where] = value + TIE_TOLERANCE * (1.0 + np.abs(value))
                layer_sink[where] = v
            best[layer] = layer_best
            sink[layer] = layer_sink
        del popcount

        if self.verbose:
            print(f"[ExactStructure] best sinks: {time.perf_counter() - started:.2f} s")
        # (4) the optimal network: peel off the best sink of the remaining set
        edges = []
        remaining = full
        while remaining:
            v = int(sink[remaining])
            rest = remaining & ~(1 << v)
            edges.extend((u, v) for u in _best_parents(bps[v], rest, v))
            remaining = rest
        edges.sort()
        parents = [[] for _ in range(p)]
        for u, v in edges:
            parents[v].append(u)
        cache = FamilyScoreCache(data, self.scorer_)
        self.score_ = float(sum(cache.local_score(v, pa) for v, pa in enumerate(parents)))
        self.n_families_ = n_families
        return edges
