"""Exact structure learning: the DAG that maximises a decomposable score, by dynamic
programming over subsets (Silander & Myllymaki 2006)."""

import math
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from skbn._dag import popcounts
from skbn._engines._search import TIE_TOLERANCE
from skbn._engines._subsets import ScoringData, check_finite_dags
from skbn._engines._subsets import best_parent_set as _best_parents
from skbn._engines._subsets import dense_local_scores as _dense_local_scores
from skbn._engines._subsets import drop_bit as _drop_bit
from skbn._engines._subsets import restrict_to_knowledge as _restrict_to_knowledge
from skbn._engines._subsets import subset_max as _subset_max
from skbn.estimators._base import _MISSING_CONSTRAINTS, _BaseStructureLearner
from skbn.utils._memory import format_bytes as _format_bytes
from skbn.utils._memory import parse_memory as _parse_memory
from skbn.utils._progress import Progress, amount, format_duration
from skbn.utils._sklearn_compat import Interval
from skbn.utils._warnings import warn_user

__all__ = ["ExactCost", "ExactStructure", "exact_cost", "exact_memory_bytes"]

#: Seconds per parent set counted (fixed cost of one pass), per family and distinct row
#: (the ``bincount`` over distinct rows x children), and per ``p 2^p`` step of the dynamic
#: programme; measured with ALARM prefixes (12-22 variables, 500-20,000 rows, no pruning,
#: one core), see ``docs/exact.md``.
_SECONDS_PER_SET = 80e-6
_SECONDS_PER_FAMILY_ROW = 15e-9
_SECONDS_PER_SUBSET_STEP = 30e-9
#: Above this estimate (seconds) ``fit`` warns and suggests ``max_indegree``.
_WARN_SECONDS = 60.0
#: The in-degree bound the warning suggests.
_SUGGESTED_INDEGREE = 3


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


@dataclass(frozen=True)
class ExactCost:
    r"""What an :class:`ExactStructure` fit costs, estimated before it starts.

    Attributes
    ----------
    n_parent_sets : int
        Parent sets counted, :math:`\sum_{k \le K} \binom{p}{k}` (an upper bound: pruning
        skips some).
    n_families : int
        Local scores, :math:`p \sum_{k \le K} \binom{p-1}{k}` (upper bound likewise).
    memory_bytes : int
        :func:`exact_memory_bytes`.
    seconds : float
        Estimated time on one core: counting plus the dynamic programme.
    """

    n_parent_sets: int
    n_families: int
    memory_bytes: int
    seconds: float


def exact_cost(n_variables, max_indegree=None, n_distinct_rows=1000, seconds_per_set=None):
    r"""Estimated cost of :class:`ExactStructure` before it starts.

    With :math:`p` variables, in-degree bound :math:`K` (``p - 1`` when None) and :math:`n`
    distinct rows,

    .. math::
        t pprox a \sum_{k \le K} inom{p}{k} + b\, n\, p \sum_{k \le K} inom{p-1}{k}
        + c\, p\, 2^p,

    one count pass per parent set, a ``bincount`` over the distinct rows for every family,
    and the dynamic programme over the :math:`2^p` subsets; :math:`a = 80` µs,
    :math:`b = 15` ns, :math:`c = 30` ns were measured on one core of this project's
    machine (ALARM prefixes of 12-22 variables, 500-20,000 rows). Pruning (scores with an
    upper bound) can only make the counting cheaper, so this is an upper estimate, close
    to the time when few families are pruned (many rows).

    Parameters
    ----------
    n_variables : int
    max_indegree : int or None, default=None
    n_distinct_rows : int, default=1000
    seconds_per_set : float or None, default=None
        Replaces :math:`a` (e.g. the moments path on all-continuous data, where a parent set
        costs about 8 µs and there are no rows to count: ``n_distinct_rows=1``).

    Returns
    -------
    ExactCost
    """
    p = int(n_variables)
    if p == 0:
        return ExactCost(0, 0, 0, 0.0)
    k = p - 1 if max_indegree is None else min(int(max_indegree), p - 1)
    n_sets = sum(math.comb(p, j) for j in range(k + 1))
    n_families = p * sum(math.comb(p - 1, j) for j in range(k + 1))
    per_set = _SECONDS_PER_SET if seconds_per_set is None else seconds_per_set
    seconds = (per_set * n_sets + _SECONDS_PER_FAMILY_ROW * n_families * max(int(n_distinct_rows), 1)
               + _SECONDS_PER_SUBSET_STEP * p * 2.0 ** p)
    return ExactCost(n_sets, n_families, exact_memory_bytes(p), seconds)


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
    and, for each set, every child outside it is counted in one weighted pass over the
    distinct rows of the data (``DistinctRows`` of ``skbn/_counting``, row weights summed)
    and scored in one batch (:meth:`skbn.scores.BaseScore.local_scores`); families that provably cannot
    beat a subset are skipped (upper bounds below); (2) best parent sets
    :math:`\mathrm{bps}_v` by a vectorised subset-max over the bits; (3) best sinks
    :math:`F(W)` layer by layer over subset size; (4) the optimal network, peeling the best
    sink off the full set. Time :math:`O(p^2 2^p)` array operations plus one count pass per
    parent set; memory :math:`8 p 2^{p-1} + 34 \cdot 2^p` bytes (see
    :func:`exact_memory_bytes`), about 115 MB for 20 variables, 2.1 GB for 24 and 4.3 GB
    for 25.

    Pruning keeps optimality: the score's upper bound
    (:meth:`skbn.scores.BaseScore.upper_bounds`) gives :math:`s_v(S) \le U_v(T)` for every
    :math:`S \supseteq T` -- e.g. :math:`-m_T \log r_v` for the Bayesian Dirichlet scores
    with :math:`m_T` observed parent configurations (de Campos & Ji 2011) or
    :math:`-\mathrm{penalty}_v(T)` for the penalised log-likelihoods. Once :math:`U_v(T)`
    falls below the score of a subset of :math:`T` (one on the depth-first path to
    :math:`T`), no superset of :math:`T` can be a best parent set and none is counted.
    Every :math:`\mathrm{bps}_v` value, hence the network, is the unpruned one. Scores
    without a bound are counted in full.

    Continuous and mixed data (Gaussian and conditional linear Gaussian networks, scores
    such as "bic-g", "bge", "bic-cg"): a continuous child's local scores come from the
    weighted moments of the data (its families with continuous parents only in batches of
    parent sets, one Cholesky factor per set for every child; see
    ``skbn/_engines/_subsets.py``), a discrete child takes only discrete parents (the
    conditional-Gaussian rule) and is counted as above. Nothing is pruned on the moments
    path; 20 Gaussian columns, unbounded, take about 8 s on one core (about 25 times less
    than the counting on 18 discrete columns).

    Determinism: a sink replaces the incumbent only if it improves by more than the
    tolerance of ``improves`` in ``skbn/_engines/_search.py`` (the lowest column index wins
    ties); the parent set is then made minimal by dropping members in column order while the best score
    within the rest is within that tolerance of the best.

    There is no ``n_jobs``: workers counting blocks of children were slower than one
    process on 2 cores (ALARM's first 20 variables, 5,000 rows, ``max_indegree=3``:
    12.0 s with 2 workers vs 5.2 s; first 15, unbounded: 48.3 s vs 38.7 s), as each hands
    back its share of the ``p 2^(p-1)`` table.

    Background knowledge (:mod:`skbn.knowledge`) restricts the best parent sets: a set
    with a forbidden parent (``black_list``, ``tiers``) or without a required one
    (``white_list``) scores :math:`-\infty` before the subset-max, so the programme returns
    the best DAG among those that honour it (see
    ``restrict_to_knowledge`` in ``skbn/_engines/_subsets.py``). A white-listed pair must have a
    direction here: both directions listed is refused (the requirement "adjacent either
    way" does not decompose over families).

    Parameters
    ----------
    scorer : str or BaseScore, default="auto"
        "auto" is "bdeu" on discrete data, "bic-g" on continuous data and "bic-cg" on
        mixed data (``scorer_`` holds the one used; see ``docs/gaussian.md``).
        Any decomposable score ("bdeu", "k2", "bic", "aic", or an object).
    max_indegree : int or None, default=None
        Largest parent set considered; bounding it saves most of the counting time (the
        dynamic programme over the ``2^p`` subsets stays). None (no bound) keeps the
        promise of the best DAG over all DAGs; ``fit`` first estimates the time
        (:func:`exact_cost`) and warns, suggesting ``max_indegree=3``, when it exceeds
        about a minute (unbounded, from about 17-19 columns with a few thousand rows).
    max_memory : int or str, default="4GB"
        Refuse (``ValueError`` before allocating, naming the number of columns that fit)
        when :func:`exact_memory_bytes` exceeds it: a number of bytes or a string with a
        binary unit ("KB", "MB", "GB", "TB"; 1 GB = 2**30 bytes). The default fits 24
        columns.
    white_list : sequence of (parent, child), default=()
        Required edges.
    black_list : sequence of (parent, child), default=()
        Forbidden edges.
    tiers : sequence of sequences of columns or None, default=None
        No edge from a later tier into an earlier one.
    {verbose_parameter}
    missing : {"error", "complete_case", "em"}, default="error"
        Missing cells (NaN/None) in ``X``: refuse them; drop incomplete rows (with a warning
        giving their number); or structural EM (Friedman 1997) as in
        :class:`skbn.HillClimbStructure`: alternate expected completions under the
        current network (weighted rows) and the exact search on them, which re-solves from
        scratch every iteration (``docs/missing.md``).
    {structural_em_parameters}
    random_state : int, RandomState instance or None, default=None
        Seeds EM's random initialisations (``n_init > 1``) and Gibbs draws.
    {common_parameters}

    Attributes
    ----------
    edges_ : list of (parent, child)
        The optimal DAG.
    score_ : float
        Its score (sum of the families' local scores).
    network_ : DiscreteBayesianNetwork, GaussianBayesianNetwork or CLGBayesianNetwork
        The DAG with its parameters: CPTs on discrete data, linear Gaussian regressions
        on continuous columns (a CLG network on mixed data; ``docs/gaussian.md``).
    scorer_ : BaseScore
        The resolved score object.
    n_families_ : int
        Number of local scores computed (pruned families excluded).
    {interventional_cpdag_attribute}
    {structural_em_attributes}
    {common_attributes}

    References
    ----------
    T. Silander and P. Myllymaki, "A simple approach for finding the globally optimal
    Bayesian network structure", UAI 2006.

    C. P. de Campos and Q. Ji, "Efficient structure learning of Bayesian networks using
    constraints", JMLR 12, 2011.

    Examples
    --------
    >>> from skbn import ExactStructure
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
        **_MISSING_CONSTRAINTS,
        "random_state": ["random_state"],
        "scorer": "no_validation",
        "max_indegree": [None, Interval(Integral, 0, None, closed="left")],
        "max_memory": [Interval(Integral, 1, None, closed="left"), str],
        "verbose": ["verbose"],
    }
    _plugins = ("scorer",)
    _auto_plugins = {"scorer": ("bdeu", "bic-g", "bic-cg")}
    _knowledge = ("white_list", "black_list", "tiers", "max_indegree")
    _bounded_score = True
    _missing_modes = ("error", "complete_case", "em")
    _structural_em = True
    _continuous = True
    _interventions = True

    def __init__(
        self,
        *,
        scorer="auto",
        max_indegree=None,
        max_memory="4GB",
        white_list=(),
        black_list=(),
        tiers=None,
        verbose=0,
        missing="error",
        latent=None,
        e_step="exact",
        n_init=1,
        em_max_iter=100,
        em_tol=1e-6,
        random_state=None,
        categories="auto",
        column_types="auto",
        handle_unknown="warn",
        target=None,
        fit_parameters=True,
        parameter_estimator="bayes",
        parameter_ess=1.0,
    ):
        self.scorer = scorer
        self.max_indegree = max_indegree
        self.max_memory = max_memory
        self.white_list = white_list
        self.black_list = black_list
        self.tiers = tiers
        self.verbose = verbose
        self.categories = categories
        self.column_types = column_types
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess
        self.missing = missing
        self.latent = latent
        self.e_step = e_step
        self.n_init = n_init
        self.em_max_iter = em_max_iter
        self.em_tol = em_tol
        self.random_state = random_state

    def _learn_structure(self, data, knowledge, *, start=None, counter=None):
        limit = _parse_memory(self.max_memory)
        p = data.n_variables
        needed = exact_memory_bytes(p)
        if needed > limit:
            fits = max(q for q in range(p + 1) if exact_memory_bytes(q) <= limit)
            raise ValueError(
                f"ExactStructure on {p} columns needs about {_format_bytes(needed)} "
                f"(8 p 2^(p-1) + 34 2^p bytes), more than max_memory={self.max_memory!r}, "
                f"which fits at most {fits} columns. Each column doubles the time and memory "
                f"whatever max_indegree (it bounds the counting, not the 2^p subsets): select "
                f"at most {fits} columns, raise max_memory, or use a heuristic search such as "
                f'HillClimbStructure(search="multistart_tabu").'
            )
        if knowledge.required_undirected.any():
            i, j = np.argwhere(knowledge.required_undirected)[0]
            raise ValueError(
                f"white_list lists both ({data.names[i]!r}, {data.names[j]!r}) and the reverse: "
                "ExactStructure needs one direction per required edge."
            )
        if p == 0:
            self.score_, self.n_families_ = 0.0, 0
            return []
        k = p - 1 if self.max_indegree is None else min(self.max_indegree, p - 1)
        half = 1 << (p - 1)

        # (1) local scores, written into the best-parent-set tables (-inf: not considered)
        source = ScoringData(data)
        cost = exact_cost(p, k, source.n_rows, source.seconds_per_set)
        self._warn_if_slow(cost, p, k, source.n_rows, source.seconds_per_set)
        progress = Progress(
            self.verbose, "ExactStructure", total=cost.n_parent_sets, unit="parent set",
            detail=f"{amount(p, 'column')}, {amount(source.n_rows, 'distinct row')}, "
                   f"max_indegree={self.max_indegree}: {amount(cost.n_parent_sets, 'parent set')}, "
                   f"{_format_bytes(cost.memory_bytes)}, "
                   f"estimated {format_duration(cost.seconds)}")
        bps = np.full((p, half), -np.inf)
        n_families = _dense_local_scores(source, self.scorer_, k, bps, progress if progress.enabled else None)
        progress.message(f"{n_families:,} local scores in {format_duration(progress.elapsed())}")
        if knowledge.required.any() or (knowledge.forbidden.sum() > p):  # beyond the diagonal
            _restrict_to_knowledge(bps, knowledge, k,
                                   lambda v, parents: source.local_score(self.scorer_, v, parents))
        # (2) best parent set within each candidate set: subset-max over each bit
        for table in bps:
            _subset_max(table)

        progress.message(f"best parent sets: {format_duration(progress.elapsed())} elapsed")
        # (3) best sinks, layer by layer over subset size
        full = (1 << p) - 1
        best = np.full(1 << p, -np.inf)
        best[0] = 0.0
        sink = np.zeros(1 << p, dtype=np.int8)
        popcount = popcounts(p)
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

        progress.message(f"best sinks: {format_duration(progress.elapsed())} elapsed")
        # every DAG -inf: no sink was ever taken, and peeling would not end
        check_finite_dags(bps[:, -1], data.names, self.scorer_, best[full])
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
        self.score_ = float(sum(source.local_score(self.scorer_, v, pa) for v, pa in enumerate(parents)))
        self.n_families_ = n_families
        self.interventional_cpdag_ = self._interventional_cpdag(data, edges, knowledge)
        progress.close(done=cost.n_parent_sets, families=n_families, score=self.score_, edges=len(edges))
        return edges

    def _warn_if_slow(self, cost, p, k, n_distinct, seconds_per_set=None):
        """Warn, with the estimate and a bounded alternative, when the estimated time of
        the search exceeds ``_WARN_SECONDS``."""
        if cost.seconds <= _WARN_SECONDS:
            return
        text = (f"ExactStructure on {p} columns with max_indegree={self.max_indegree} counts up to "
                f"{cost.n_parent_sets:,} parent sets ({cost.n_families:,} families over "
                f"{n_distinct:,} distinct rows) and needs {_format_bytes(cost.memory_bytes)}: "
                f"estimated {format_duration(cost.seconds)} on one core.")
        if k > _SUGGESTED_INDEGREE:
            bounded = exact_cost(p, _SUGGESTED_INDEGREE, n_distinct, seconds_per_set)
            text += (f" max_indegree={_SUGGESTED_INDEGREE} (the best DAG with at most "
                     f"{_SUGGESTED_INDEGREE} parents per node) would take about "
                     f"{format_duration(bounded.seconds)}.")
        else:
            text += " Fewer columns, or a heuristic search (HillClimbStructure), would be faster."
        text += " verbose=1 shows the progress and the time left."
        warn_user(text, UserWarning)
