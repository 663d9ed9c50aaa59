r"""Exact posterior probabilities of structural features, by dynamic programming over
subsets (Koivisto & Sood 2004; Koivisto 2006), and the table of every family's local score
that both this module and :class:`skbn.estimators.OrderMCMCStructure` sum over.

Under the *order-modular* structure prior a DAG :math:`G` and a node order :math:`\prec`
compatible with it have joint weight :math:`\prod_i \beta_i(\mathrm{pa}_i)` with
:math:`\beta_i(S) = \exp s_i(S)`, :math:`s_i` a decomposable Bayesian score (BDeu, K2; an
``edge_penalty`` is a log structure prior per edge). Summing over orders, a DAG gets
weight :math:`\#\mathrm{ext}(G) \prod_i \beta_i(\mathrm{pa}_i)`, where
:math:`\#\mathrm{ext}(G)` is its number of linear extensions: DAGs that fix fewer orders
get more prior mass than under a uniform prior over DAGs. This is the known bias of
order-based posteriors (Friedman & Koller 2003); Kuipers & Moffa (2017)'s partition MCMC
removes it.
"""

import math
from numbers import Integral

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs

from skbn._counting import DistinctRows
from skbn._data import encode_fit
from skbn.scores import resolve_scorer

__all__ = ["ParentSetScores", "count_parent_sets", "edge_posteriors", "parent_set_scores"]


class ParentSetScores:
    """Local scores of every allowed family, grouped by child.

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
    distinct rows (:class:`skbn._counting.DistinctRows`, weighted by ``data.weights``) and
    scored in one batch (:meth:`skbn.scores.BaseScore.local_scores`), as the exact learner
    does. Unlike the exact learner's search nothing is pruned: a posterior sums over every
    family.

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
    distinct = DistinctRows(data.codes, data.cardinalities, data.weights)
    # the empty set, then the subtrees of {0}, {1}, ... in contiguous blocks balanced by size
    sizes = [sum(math.comb(u, j) for j in range(k)) for u in range(p)]
    n_blocks = max(1, min(effective_n_jobs(n_jobs), p))
    bounds = np.searchsorted(np.cumsum(sizes), np.arange(1, n_blocks) * sum(sizes) / n_blocks)
    blocks = [b.tolist() for b in np.split(np.arange(p), bounds)]
    blocks = [[None]] + [b for b in blocks if b]
    if n_blocks == 1:
        parts = [_score_subtrees(distinct, scorer, allowed, k, width, b)
                 for b in blocks]
    else:
        parts = Parallel(n_jobs=n_jobs)(
            delayed(_score_subtrees)(distinct, scorer, allowed, k, width, b)
            for b in blocks
        )
    parents = [np.concatenate([part[0][v] for part in parts]) for v in range(p)]
    scores = [np.concatenate([part[1][v] for part in parts]) for v in range(p)]
    return ParentSetScores(parents, scores, p)


def _score_subtrees(distinct, scorer, allowed, max_indegree, width, tops):
    """Depth-first scoring of the parent sets whose largest member is in ``tops`` (``None``
    stands for the empty set alone); returns per child the set rows and their scores, in
    depth-first order."""
    p = len(distinct.cards)
    cards = [int(c) for c in distinct.cards]
    found_sets = [[] for _ in range(p)]
    found_scores = [[] for _ in range(p)]
    everyone = np.arange(p)

    def visit(members, ids, n_ids, q, descend):
        takers = allowed[:, members].all(axis=1) if members else np.ones(p, dtype=bool)
        takers[members] = False
        live = everyone[takers]
        if not len(live):  # no child accepts this set, hence none accepts a superset
            return
        values = scorer.local_scores(distinct.children_stack(ids, n_ids, live, q, len(members)))
        row = sorted(members) + [-1] * (width - len(members))
        for v, value in zip(live, values):
            found_sets[v].append(row)
            found_scores[v].append(float(value))
        if not descend or len(members) >= max_indegree:
            return
        for u in range(members[-1]):
            extend(members, ids, n_ids, q, u)

    def extend(members, ids, n_ids, q, u):
        new_ids, new_n = distinct.add_parent(ids, n_ids, u)
        visit(members + [u], new_ids, new_n, q * cards[u], True)

    root, n_root = distinct.empty_ids()
    for top in tops:
        if top is None:
            visit([], root, n_root, 1, False)
        elif max_indegree >= 1:
            extend([], root, n_root, 1, top)
    return ([np.asarray(s, dtype=np.int64).reshape(-1, width) for s in found_sets],
            [np.asarray(s, dtype=np.float64) for s in found_scores])


def local_score_table(families):
    """Dense ``(p, 2^(p-1))`` table of local scores indexed by the parent-set bitmask over
    the variables other than the child (bit ``v`` squeezed out); ``-inf`` where a set is
    not allowed."""
    from skbn.estimators._exact import _drop_bit  # not at the top: _order_mcmc imports us

    p = families.n_variables
    local = np.full((p, 1 << max(p - 1, 0)), -np.inf)
    for v in range(p):
        masks = np.asarray(families.masks(v), dtype=np.int64)
        local[v, _drop_bit(masks, v)] = families.scores[v]
    return local


def _logaddexp_into(target, where, values):
    target[where] = np.logaddexp(target[where], values)


def _subset_logsumexp(table):
    """In place: ``table[S] = log sum_{T subset of S} exp(table[T])`` (zeta transform)."""
    for b in range(len(table).bit_length() - 1):
        view = table.reshape(-1, 2, 1 << b)
        np.logaddexp(view[:, 1, :], view[:, 0, :], out=view[:, 1, :])


def _superset_logsumexp(table):
    """In place: ``table[S] = log sum_{T superset of S} exp(table[T])``."""
    for b in range(len(table).bit_length() - 1):
        view = table.reshape(-1, 2, 1 << b)
        np.logaddexp(view[:, 0, :], view[:, 1, :], out=view[:, 0, :])


def posterior_memory_bytes(n_variables):
    """Peak memory (bytes) of :func:`edge_posteriors` for ``n_variables`` variables:
    two ``p 2^(p-1)`` float64 tables (local scores and their subset sums) and a few
    float64 / int arrays of ``2^p`` entries."""
    p = int(n_variables)
    return 16 * p * (1 << max(p - 1, 0)) + 48 * (1 << p)


def _edge_posterior_matrix(local, n_variables):
    r"""Exact edge posteriors from the local-score tables.

    ``local[v]`` is indexed by the parent-set bitmask over the variables other than
    ``v`` (bit ``v`` squeezed out), ``-inf`` for disallowed sets. Returns
    ``(P, log_z)`` with ``P[u, v]`` the posterior of ``u -> v`` and ``log_z`` the log of
    the sum over (order, DAG) pairs.
    """
    from skbn.estimators._exact import _drop_bit  # not at the top: _order_mcmc imports us

    p = n_variables
    full = (1 << p) - 1
    alpha = local.copy()
    for table in alpha:  # alpha_v(S) = sum_{T subset of S} beta_v(T)
        _subset_logsumexp(table)
    popcount = np.zeros(1 << p, dtype=np.uint8)
    for v in range(p):
        np.add(popcount[:1 << v], 1, out=popcount[1 << v:2 << v])
    layers = [np.flatnonzero(popcount == size) for size in range(p + 1)]
    del popcount
    # forward: L(S) = sum_{v in S} L(S - v) alpha_v(S - v), the orders of S
    forward = np.full(1 << p, -np.inf)
    forward[0] = 0.0
    for size in range(1, p + 1):
        layer = layers[size]
        value = np.full(len(layer), -np.inf)
        for v in range(p):
            has_v = np.flatnonzero((layer >> v) & 1)
            rest = layer[has_v] ^ (1 << v)
            _logaddexp_into(value, has_v, forward[rest] + alpha[v][_drop_bit(rest, v)])
        forward[layer] = value
    # backward: R(S) = sum_{v not in S} alpha_v(S) R(S + v), the orders of the rest after S
    backward = np.full(1 << p, -np.inf)
    backward[full] = 0.0
    for size in range(p - 1, -1, -1):
        layer = layers[size]
        value = np.full(len(layer), -np.inf)
        for v in range(p):
            without_v = np.flatnonzero(((layer >> v) & 1) == 0)
            rest = layer[without_v]
            _logaddexp_into(value, without_v, alpha[v][_drop_bit(rest, v)] + backward[rest | (1 << v)])
        backward[layer] = value
    del alpha, layers
    log_z = float(forward[full])
    posterior = np.zeros((p, p))
    index = np.arange(1 << max(p - 1, 0), dtype=np.int64)
    for v in range(p):
        low = (1 << v) - 1
        before = ((index >> v) << (v + 1)) | (index & low)  # S without v, as a full mask
        # Gamma_v(S): orders where v's predecessors are exactly S; K_v(T) = sum_{S >= T}
        weight = forward[before] + backward[before | (1 << v)]
        _superset_logsumexp(weight)
        weight += local[v]
        # sum_T exp(weight) over all T is Z, so scaling by the largest term loses only
        # terms below e^-745 of it, i.e. below 1e-300 of a posterior
        top = float(np.max(weight))
        scaled = np.exp(weight - top)
        for u in range(p):
            if u == v:
                continue
            b = u if u < v else u - 1
            posterior[u, v] = scaled.reshape(-1, 2, 1 << b)[:, 1, :].sum() * math.exp(top - log_z)
    return np.minimum(posterior, 1.0), log_z


def edge_posteriors(X, scorer="bdeu", max_indegree=None, max_memory="4GB"):
    r"""Exact posterior probability of every directed edge under the order-modular prior.

    The dynamic programme of Koivisto & Sood (2004), with all edges at once as in
    Koivisto (2006). With :math:`\beta_v(T) = \exp s_v(T)` (zero beyond
    ``max_indegree``), :math:`\alpha_v(S) = \sum_{T \subseteq S} \beta_v(T)`,

    .. math::
        L(S) = \sum_{v \in S} L(S \setminus v)\, \alpha_v(S \setminus v), \quad
        R(S) = \sum_{v \notin S} \alpha_v(S)\, R(S \cup v),

    sum over the orders of :math:`S` and over the orders of the other variables placed
    after :math:`S`; :math:`Z = L(V) = R(\emptyset)`. The orders in which the predecessors
    of :math:`v` are exactly :math:`S` weigh :math:`\Gamma_v(S) = L(S) R(S \cup v)`, so

    .. math::
        P(u \to v \mid D) = \frac{1}{Z} \sum_{T \ni u} \beta_v(T)
        \sum_{S \supseteq T,\, v \notin S} \Gamma_v(S),

    an up-set (superset) zeta transform of :math:`\Gamma_v` per child. Everything is in
    log space. Time :math:`O(p^2 2^p)` array operations plus one count per family;
    memory :func:`posterior_memory_bytes` (about 100 MB for 20 variables).

    The prior is uniform over orders and, given an order, modular over parent sets: a DAG
    weighs its number of linear extensions, not uniform over DAGs (see the module
    docstring).

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_variables)
        Discrete data.
    scorer : str or BaseScore, default="bdeu"
        A decomposable Bayesian score: "bdeu", "k2" or an object (its ``edge_penalty`` is
        the log structure prior per edge). Penalised likelihoods (BIC, AIC) give a BIC
        approximation of the marginal likelihood.
    max_indegree : int or None, default=None
        Largest parent set.
    max_memory : int or str, default="4GB"
        Refuse (``MemoryError``) when :func:`posterior_memory_bytes` exceeds it.

    Returns
    -------
    posterior : DataFrame of shape (n_variables, n_variables)
        ``posterior.loc[u, v]`` = P(u -> v | data); zero diagonal.

    References
    ----------
    M. Koivisto and K. Sood, "Exact Bayesian structure discovery in Bayesian networks",
    JMLR 5, 2004.

    M. Koivisto, "Advances in exact Bayesian structure discovery in Bayesian networks",
    UAI 2006.

    Examples
    --------
    >>> from skbn.datasets import sample_asia
    >>> from skbn.posterior import edge_posteriors
    >>> X = sample_asia(2000, random_state=0)[["smoke", "lung", "bronc", "dysp"]]
    >>> post = edge_posteriors(X)
    >>> bool(post.loc["smoke", "lung"] + post.loc["lung", "smoke"] > 0.99)
    True
    """
    from skbn.estimators._exact import _format_bytes, _parse_memory

    scorer_ = resolve_scorer(scorer)
    if max_indegree is not None and (
        not isinstance(max_indegree, Integral) or isinstance(max_indegree, bool) or max_indegree < 0
    ):
        raise ValueError(f"max_indegree must be None or a non-negative integer, got {max_indegree!r}.")
    data, _ = encode_fit(X)
    p = data.n_variables
    needed = posterior_memory_bytes(p)
    if needed > _parse_memory(max_memory):
        raise MemoryError(
            f"edge_posteriors needs about {_format_bytes(needed)} for {p} variables, more than "
            f"max_memory={max_memory!r}; each variable doubles it (order MCMC, "
            f"OrderMCMCStructure, scales to more)."
        )
    names = list(data.names)
    if p == 0:
        return pd.DataFrame(np.zeros((0, 0)), index=names, columns=names)
    local = local_score_table(parent_set_scores(data, scorer_, max_indegree))
    posterior, _ = _edge_posterior_matrix(local, p)
    return pd.DataFrame(posterior, index=names, columns=names)
