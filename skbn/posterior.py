r"""Exact posterior probabilities of structural features, by dynamic programming over
subsets (Koivisto & Sood 2004; Koivisto 2006). The local score of every family comes from
the subset scorer shared with :class:`skbn.ExactStructure` and
:class:`skbn.OrderMCMCStructure`; :func:`parent_set_scores` (every allowed
family, grouped by child) and :func:`count_parent_sets` are its public face.

Under the *order-modular* structure prior a DAG :math:`G` and a node order :math:`\prec`
compatible with it have joint weight :math:`\prod_i \beta_i(\mathrm{pa}_i)` with
:math:`\beta_i(S) = \exp s_i(S)`, :math:`s_i` a decomposable Bayesian score (BDeu, K2, or
BGe for Gaussian networks; an ``edge_penalty`` is a log structure prior per edge).
Summing over orders, a DAG gets weight :math:`\#\mathrm{ext}(G) \prod_i \beta_i(\mathrm{pa}_i)`, where
:math:`\#\mathrm{ext}(G)` is its number of linear extensions: DAGs that fix fewer orders
get more prior mass than under a uniform prior over DAGs. This is the known bias of
order-based posteriors (Friedman & Koller 2003); Kuipers & Moffa (2017)'s partition MCMC
removes it.
"""

import math
from dataclasses import replace
from numbers import Integral

import numpy as np
import pandas as pd

from skbn._counting._moment_counter import shared_moments
from skbn._dag import popcounts
from skbn._data import (
    check_container,
    check_total_weight,
    encode_fit,
    intervention_matrix,
    positive_weight_rows,
)
from skbn._determined_columns import any_family, check_determined_columns
from skbn._engines._subsets import (
    ParentSetScores,
    ScoringData,
    check_finite_dags,
    count_parent_sets,
    dense_local_scores,
    drop_bit,
    insert_bit,
    log_subset_sums,
    parent_set_scores,
    superset_logsumexp,
)
from skbn.scores import resolve_scorer
from skbn.utils._memory import format_bytes, parse_memory
from skbn.utils._plugins import check_plugin_fits_data, data_kind

__all__ = ["ParentSetScores", "count_parent_sets", "edge_posteriors", "parent_set_scores"]

#: The score of ``scorer="auto"`` on discrete, continuous and mixed data.
AUTO_SCORERS = ("bdeu", "bge", "bic-cg")


def _logaddexp_into(target, where, values):
    target[where] = np.logaddexp(target[where], values)


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
    p = n_variables
    full = (1 << p) - 1
    alpha = log_subset_sums(local)  # alpha_v(S) = sum_{T subset of S} beta_v(T)
    popcount = popcounts(p)
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
            _logaddexp_into(value, has_v, forward[rest] + alpha[v][drop_bit(rest, v)])
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
            _logaddexp_into(value, without_v, alpha[v][drop_bit(rest, v)] + backward[rest | (1 << v)])
        backward[layer] = value
    del alpha, layers
    log_z = float(forward[full])
    posterior = np.zeros((p, p))
    index = np.arange(1 << max(p - 1, 0), dtype=np.int64)
    for v in range(p):
        before = insert_bit(index, v)  # S without v, as a full mask
        # Gamma_v(S): orders where v's predecessors are exactly S; K_v(T) = sum_{S >= T}
        weight = forward[before] + backward[before | (1 << v)]
        superset_logsumexp(weight)
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


def edge_posteriors(X, scorer="auto", max_indegree=None, max_memory="4GB", column_types="auto",
                    interventions=None, sample_weight=None):
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

    With row weights :math:`w_n` (``sample_weight``) every statistic of a local score is a
    weighted sum over the rows, as in the estimators' ``fit``: the counts of a discrete
    family :math:`N_{jk} = \sum_n w_n [x_{n,\mathrm{pa}} = j, x_{n,v} = k]`, and the
    moments of the Gaussian and CLG scores :math:`N = \sum_n w_n`,
    :math:`\bar x = \sum_n w_n x_n / N`, :math:`S = \sum_n w_n (x_n - \bar x)(x_n -
    \bar x)^\top` (per configuration of the discrete parents). So an integer weight
    :math:`w` gives the posterior of :math:`w` copies of the row, and a weight 0 that of
    the data without it.

    Columns determined by others are reported as the learners report them, with a
    :class:`~skbn.exceptions.DeterminedColumnsWarning` naming them (the checks of the
    ``fit`` of :class:`~skbn.ExactStructure`, which scores the same families): a
    continuous column that is an exact linear function of other continuous columns, and,
    on mixed data, a continuous column with no spread within a state (of two rows or more)
    of a discrete column, whose families with that discrete parent a CLG score gives
    ``-inf``, so that such an edge gets posterior 0 however strong the dependence. The
    posteriors are still computed: such a deterministic relation breaks the assumptions
    (faithfulness, a positive residual variance) they rest on.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_variables)
        Discrete, continuous or mixed data (non-integer numeric columns are continuous;
        see ``column_types``).
    scorer : str or BaseScore, default="auto"
        A decomposable Bayesian score: "bdeu", "k2", "bge" (Gaussian networks) or an
        object (its ``edge_penalty`` is the log structure prior per edge). Penalised
        likelihoods ("bic", "aic", "bic-g", "bic-cg", ...) give a BIC approximation of the
        marginal likelihood. "auto" is "bdeu" on discrete data, "bge" on continuous data
        and "bic-cg" on mixed data (conditional linear Gaussian networks, in which a
        discrete node never has a continuous parent: such DAGs get no weight).
    max_indegree : int or None, default=None
        Largest parent set.
    max_memory : int or str, default="4GB"
        Refuse (``ValueError`` naming ``max_memory``, before anything is counted or
        allocated) when :func:`posterior_memory_bytes` exceeds it: a number of bytes or a
        string with a binary unit ("KB", "MB", "GB", "TB"; 1 GB = 2**30 bytes), as
        :class:`skbn.ExactStructure`'s ``max_memory``.
    column_types : "auto", dict or str, default="auto"
        Which columns are continuous, as the estimators' ``column_types``.
    interventions : DataFrame, array-like or list, default=None
        Experimental rows, as the estimators' ``fit(X, interventions=...)``: each
        variable's local scores leave out the rows where it was set by intervention (the
        interventional BDe of Cooper & Yoo 1999, and the Gaussian scores likewise), so the
        posterior is that of the interventional score. None (or no cell set): observational.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative row weights, as the estimators' ``fit(X, sample_weight=...)`` reads
        them: every count and moment of a score is the sum of the weights of its rows, so
        an integer weight ``w`` is the same as ``w`` copies of the row and a weight 0 the
        same as dropping it (such rows are dropped before the data are read: their values
        add no state, decide no column type and may be missing). ``None``: weight 1.

    Returns
    -------
    posterior : DataFrame of shape (n_variables, n_variables)
        ``posterior.loc[u, v]`` = P(u -> v | data); zero diagonal.

    Raises
    ------
    ValueError
        A bad ``scorer``, ``max_indegree``, ``max_memory``, ``interventions`` or
        ``sample_weight`` (negative, not finite, of the wrong length, or summing to
        infinity; the message names it), or more memory needed than ``max_memory`` allows
        (the message says how much), or no DAG with a finite score (every parent set of some
        column scores ``-inf``, e.g. a continuous column with a single observational row;
        the message names it).

    Warns
    -----
    DeterminedColumnsWarning
        Columns exactly determined by others, or with no spread within a state of a
        discrete column, named (see above).

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
    if max_indegree is not None and (
        not isinstance(max_indegree, Integral) or isinstance(max_indegree, bool) or max_indegree < 0
    ):
        raise ValueError(f"max_indegree must be None or a non-negative integer, got {max_indegree!r}.")
    # the estimators' input path (fit): weights validated, rows of weight 0 dropped first
    check_container(X)
    X, weights, interventions = positive_weight_rows(X, sample_weight, interventions)
    data, states = encode_fit(X, column_types=column_types, allow_continuous=True, weights=weights)
    if interventions is not None:
        data = replace(data, intervened=intervention_matrix(interventions, data, data.n_variables))
    check_total_weight(data)
    if isinstance(scorer, str) and scorer == "auto":
        scorer = AUTO_SCORERS[data_kind(data)]
    scorer_ = resolve_scorer(scorer)
    check_plugin_fits_data(scorer_, data, "scorer")
    p = data.n_variables
    needed = posterior_memory_bytes(p)
    if needed > parse_memory(max_memory):
        raise ValueError(
            f"edge_posteriors needs about {format_bytes(needed)} for {p} variables, more than "
            f"max_memory={max_memory!r}; each variable doubles it (order MCMC, "
            f"OrderMCMCStructure, scales to more)."
        )
    names = list(data.names)
    if p == 0:
        return pd.DataFrame(np.zeros((0, 0)), index=names, columns=names)
    k = p - 1 if max_indegree is None else min(int(max_indegree), p - 1)
    local = np.full((p, 1 << (p - 1)), -np.inf)
    with shared_moments(data):  # (one set of moments for the checks and the scores)
        check_determined_columns(data, states, "edge_posteriors", reader="posterior",  # (ExactStructure's)
                                 scorer_of=lambda: scorer_, reach=lambda: any_family(p, k))
        # a posterior sums over every family: nothing pruned
        dense_local_scores(ScoringData(data), scorer_, k, local, prune=False)
    node_best = local.max(axis=1)
    check_finite_dags(node_best, names, scorer_)  # (a node with no finite family: before the sums)
    posterior, log_z = _edge_posterior_matrix(local, p)
    check_finite_dags(node_best, names, scorer_, log_z)
    return pd.DataFrame(posterior, index=names, columns=names)
