"""Edge strengths by bootstrap resampling and the averaged network (Friedman, Goldszmidt &
Wyner 1999; Scutari & Nagarajan 2013), bnlearn's ``boot.strength`` / ``averaged.network``."""

from dataclasses import replace
from numbers import Integral, Real

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import clone
from sklearn.utils import check_random_state, get_tags

from skbn._counting import moments, weights_are_integral
from skbn._counting._moment_counter import MomentCounter
from skbn._dag import extension_ids, has_path
from skbn._data import EncodedData
from skbn._determined_columns import finitely_scored
from skbn._engines._ci_runner import report_power_rule
from skbn.estimators._base import INTERVENTION_LEARNERS, _BaseStructureLearner, _param_defaults
from skbn.estimators._pc import report_conflicts
from skbn.exceptions import DeterminedColumnsWarning
from skbn.scores import GaussianBIC
from skbn.utils._progress import Progress, amount
from skbn.utils._sklearn_compat import Interval, StrOptions
from skbn.utils._warnings import warn_user

__all__ = ["BootstrapStructure", "averaged_edges", "inclusion_threshold", "resample"]


def inclusion_threshold(strengths):
    r"""Significance threshold of edge strengths (Scutari & Nagarajan 2013).

    With :math:`\hat F` the empirical CDF of the strengths and :math:`\tilde F_t` the step
    function of an ideal set of strengths (a fraction :math:`t` at 0, the rest at 1), the
    threshold minimises the L1 distance

    .. math::
        L_1(t) = \int_0^1 \left| \hat F(x) - t \right| dx ,

    a piecewise-linear convex function of :math:`t` with kinks at the values of
    :math:`\hat F`: its minimiser :math:`\hat t` is the weighted median of the values
    :math:`\hat F(u_j)` taken on the intervals :math:`[u_j, u_{j+1})` between the distinct
    strengths :math:`0 \le u_1 < \dots < u_m \le 1`, weighted by the intervals' lengths
    (the lowest one on a tie). The threshold is the empirical :math:`\hat t`-quantile
    :math:`\min\{x : \hat F(x) \ge \hat t\}` (R's ``quantile(type=1)``), as bnlearn's
    ``inclusion.threshold``; edges *strictly* stronger than it are significant.

    Parameters
    ----------
    strengths : array-like of shape (n,)
        Values in [0, 1] (bnlearn passes every ordered pair, each adjacency twice).

    Returns
    -------
    threshold : float

    Examples
    --------
    >>> inclusion_threshold([0, 0, 0, 0, 0.1, 0.2, 0.9, 1, 1, 1])
    0.2
    """
    values = np.sort(np.asarray(strengths, dtype=float).ravel())
    if not len(values):
        return 0.0
    knots = np.unique(values)
    breaks = np.unique(np.concatenate([[0.0], knots, [1.0]]))
    levels = np.searchsorted(values, breaks[:-1], side="right") / len(values)  # F on each interval
    lengths = np.diff(breaks)
    order = np.argsort(levels, kind="stable")
    cumulative = np.cumsum(lengths[order])
    best = levels[order][np.searchsorted(cumulative, cumulative[-1] / 2.0)]
    cdf = np.searchsorted(values, knots, side="right") / len(values)
    return float(knots[np.searchsorted(cdf, best)])


def averaged_edges(strength, direction, threshold, admits=None):
    """The averaged network's edges (bnlearn's ``averaged.network``), as a DAG.

    An ordered pair ``u -> v`` is a candidate when its strength is above ``threshold`` (or
    equal to 1) and ``direction[u, v] >= 0.5``. A pair whose two directions are both
    candidates (``direction`` exactly 0.5: the resamples orient it neither way, e.g. an edge
    undirected in every resample's CPDAG) is an *undirected* edge, as in bnlearn's PDAG.
    The other candidates are added by decreasing strength (ties in row-major pair order),
    each skipped when it would close a cycle, or when ``admits`` refuses the family it
    would give ``v``. The undirected edges are then oriented by a consistent extension
    (Dor & Tarsi 1992, :func:`skbn.graph.pdag_to_dag`): no v-structure that the directed
    edges do not already make, so the DAG's equivalence class does not depend on the
    column names (when no consistent extension exists, the remaining undirected edges
    follow the topological order of the directed ones, ties by position); directing each
    such pair from the column first by name instead can make a v-structure no resample has
    (``married -> race <- nodegree`` on MatchIt's ``lalonde``, 100 resamples), which
    renaming a column would undo. The oriented edges then pass ``admits`` in turn, by
    decreasing strength.

    Parameters
    ----------
    strength, direction : ndarray of shape (p, p)
    threshold : float
    admits : callable or None, default=None
        ``admits(v, parents)`` (positions; ``parents`` the kept parents of ``v`` and the
        candidate, in the order added): whether ``v`` may have that family. None: every
        family.

    Returns
    -------
    edges : list of (u, v) position pairs, sorted
    skipped : list of (u, v) position pairs
        The candidates ``admits`` refused, directed edges first, each group by decreasing
        strength (not those that would close a cycle, bnlearn's silent rule).
    """
    p = strength.shape[0]
    off_diagonal = ~np.eye(p, dtype=bool)
    candidate = ((strength > threshold) | (strength == 1)) & (direction >= 0.5) & off_diagonal
    both = candidate & candidate.T
    us, vs = np.nonzero(candidate & ~both)
    order = np.argsort(-strength[us, vs], kind="stable")
    children = [[] for _ in range(p)]
    parents = [[] for _ in range(p)]
    edges, skipped = [], []

    def add(u, v):
        if admits is not None and not admits(v, parents[v] + [u]):
            skipped.append((u, v))
            return
        children[u].append(v)
        parents[v].append(u)
        edges.append((u, v))

    for u, v in zip(us[order], vs[order]):
        u, v = int(u), int(v)
        if not has_path(children, v, u):  # v ~> u: u -> v would close a cycle
            add(u, v)
    ties, tie_vs = np.nonzero(np.triu(both))
    if len(ties):
        undirected = [(int(u), int(v)) for u, v in zip(ties, tie_vs)]
        extension, _ = extension_ids(p, list(edges), undirected)
        oriented = sorted(set(extension) - set(edges), key=lambda e: (-strength[e], min(e), max(e)))
        for u, v in oriented:
            add(u, v)
    return sorted(edges), skipped


def _not_determined(data):
    """``admits(v, parents)`` for :func:`averaged_edges` on ``data``: False when ``v`` is a
    continuous column that the continuous columns of ``parents`` determine exactly over all
    the rows (the Gaussian scores' no-spread rule: ``bic-g`` scores the family ``-inf``,
    :func:`skbn._determined_columns.finitely_scored`): a family of residual variance 0, to
    which no Gaussian or CLG network can give a density (a CLG configuration without spread
    falls back on this regression over all rows). No resample learns such a family under a
    residual-variance score (its score is ``-inf``) nor under BGe (refused before the
    search), but the average can combine it from different resamples: ``a -> c`` in some,
    ``b -> c`` in others, with ``c = a + b``. None (every family admitted) for discrete data
    or when the moments cannot be computed (missing cells)."""
    if not data.has_continuous:
        return None
    try:
        counter = MomentCounter.of(data)  # (the fit's shared moments)
    except ValueError:  # missing cells: no moments
        return None
    scorer, continuous = GaussianBIC(), data.continuous

    def admits(v, parents):
        given = [u for u in parents if continuous[u]]
        return not continuous[v] or not given or bool(finitely_scored(scorer, data, counter, [(v, given)]))

    return admits


def _warn_determined_families(skipped, names):
    """One warning naming the edges the averaged network left out by :func:`_not_determined`."""
    if skipped:
        shown = ", ".join(f"{names[u]!r} -> {names[v]!r}" for u, v in skipped)
        warn_user(
            f"BootstrapStructure: the averaged network leaves out {shown}: with the stronger edges "
            f"kept before {'it' if len(skipped) == 1 else 'them'}, the child would be an exact linear "
            "function of its continuous parents (a family of residual variance 0, which no Gaussian "
            "network can fit; the resamples learned its edges in different DAGs). The strengths keep "
            "them. Keep one column of each group of exactly determined columns to avoid it.",
            DeterminedColumnsWarning,
        )


def _set_random_states(estimator, seed):
    """Give every ``random_state`` parameter (nested ones too) the resample's seed."""
    params = {key: seed for key in estimator.get_params(deep=True)
              if key == "random_state" or key.endswith("__random_state")}
    if params:
        estimator.set_params(**params)


def resample(codes, cardinalities, names, weights, bootstrap, rs, values=None, intervened=None):
    r"""One bootstrap resample of (possibly weighted) rows, as an :class:`EncodedData`.

    Rows are resampled, whatever their storage:

    * no weights: ``"nonparametric"`` draws :math:`n` rows uniformly with replacement;
      ``"bayesian"`` weights the rows by :math:`n\,D`, :math:`D \sim \mathrm{Dirichlet}(1,
      \dots, 1)`.
    * integer weights :math:`w_d` (the copies of a distinct row of chunked data, or integer
      ``sample_weight``, each unit one row): the resample of the :math:`N = \sum_d w_d`
      rows they stand for. ``"nonparametric"``: counts
      :math:`c \sim \mathrm{Multinomial}(N, w / N)` over the stored rows (the numbers of
      times each is drawn when :math:`N` rows are drawn uniformly); ``"bayesian"``:
      :math:`N\,D`, :math:`D \sim \mathrm{Dirichlet}(w)` (the aggregated Dirichlet(1, ...,
      1) weights of the copies). Same distribution as resampling the replicated rows.
    * non-integer weights (importance weights of the :math:`n` stored rows, total
      :math:`W`): ``"nonparametric"`` draws :math:`n` rows with probabilities
      :math:`w / W`, each drawn row weighted :math:`W / n`; ``"bayesian"`` weights the rows
      by :math:`n\,D\,w`, :math:`D \sim \mathrm{Dirichlet}(1, \dots, 1)`. Either way
      the expected weight of every row is its own weight.

    Parameters
    ----------
    codes : ndarray of shape (n, p)
    cardinalities : ndarray of shape (p,)
    names : tuple
    weights : ndarray of shape (n,) or None
    bootstrap : {"nonparametric", "bayesian"}
    rs : numpy.random.RandomState
    values : ndarray of shape (n, p) or None, default=None
        The continuous columns' values (``EncodedData.values``), resampled with the rows.
    intervened : ndarray of shape (n, p), bool, or None, default=None
        Which values were set by intervention (``EncodedData.intervened``), resampled with
        the rows.

    Returns
    -------
    data : EncodedData
        The resample (for weighted nonparametric draws, the rows drawn at least once,
        weighted by their counts).
    """
    n = codes.shape[0]

    def rows_of(rows):
        return dict(codes=np.asfortranarray(codes[rows]),
                    values=None if values is None else np.asfortranarray(values[rows]),
                    intervened=None if intervened is None else intervened[rows])

    every = dict(codes=codes, values=values, intervened=intervened)
    if weights is None:
        if bootstrap == "nonparametric":
            return EncodedData(cardinalities=cardinalities, names=names, **rows_of(rs.randint(n, size=n)))
        return EncodedData(cardinalities=cardinalities, names=names, weights=rs.dirichlet(np.ones(n)) * n,
                           **every)
    total = float(np.sum(weights))
    integral = weights_are_integral(weights)
    if bootstrap == "bayesian":
        if integral:
            positive = weights > 0
            draw = np.zeros(n)
            draw[positive] = rs.dirichlet(weights[positive]) * total
            return EncodedData(cardinalities=cardinalities, names=names, weights=draw, **every)
        return EncodedData(cardinalities=cardinalities, names=names,
                           weights=rs.dirichlet(np.ones(n)) * n * weights, **every)
    n_draws = int(round(total)) if integral else n
    counts = rs.multinomial(n_draws, weights / total)
    drawn = np.flatnonzero(counts)
    scale = 1.0 if integral else total / n
    return EncodedData(cardinalities=cardinalities, names=names,
                       weights=counts[drawn].astype(np.float64) * scale, **rows_of(drawn))


def _flat_columns(drawn):
    """The continuous columns of a resample with no spread in it (constant over its rows of
    positive weight), by the scores' rule: a zero diagonal of the moments engine's scatter
    (:func:`skbn._counting.moments`, which zeroes a spread at the rounding level of the
    mean). Every family of such a column scores -inf, so the learner's edges at it carry
    no information."""
    continuous = np.flatnonzero(np.asarray(drawn.cardinalities) == 0)
    if not len(continuous) or drawn.values is None:
        return ()
    values = np.asarray(drawn.values, dtype=np.float64)[:, continuous]
    spread = moments(values, drawn.weights).scatter[0].diagonal()
    return tuple(int(j) for j in continuous[spread == 0])


def _learn_resamples(estimator, data, seeds, bootstrap, cpdag):
    """Learn one graph per seed; returns (directed pairs, undirected pairs, DAG pairs) per
    resample, as position arrays, the positions of the continuous columns with no spread
    in each resample (:func:`_flat_columns`) and each resample's ``(n_power_rule_tests_,
    n_tests_, ci_test_)`` (0, 0, None for a learner without CI tests) and
    ``orientation_conflicts_`` (PC's; empty for other learners); its own
    ``PowerRuleWarning`` and ``OrientationConflictWarning`` are not raised: the caller sums
    them into one each. ``data``: the encoded data (with the caller's row weights and
    target)."""
    results, flat, ruled, conflicts = [], [], [], []
    names = data.names
    for seed in seeds:
        drawn = resample(data.codes, data.cardinalities, names, data.weights, bootstrap,
                         np.random.RandomState(seed), values=data.values, intervened=data.intervened)
        flat.append(_flat_columns(drawn))
        if drawn.intervened is not None and not drawn.intervened.any():
            drawn = replace(drawn, intervened=None)  # no experimental row drawn: observational
        drawn = replace(drawn, target=data.target, target_from_y=data.target_from_y,
                        input_names=data.input_names)
        learner = clone(estimator)
        _set_random_states(learner, int(seed))
        learner._validate_params()
        learner._quiet_summaries = True  # (counted here, warned once by the caller)
        dag = [(int(u), int(v)) for u, v in learner._structure(drawn)]
        ruled.append((getattr(learner, "n_power_rule_tests_", 0), getattr(learner, "n_tests_", 0),
                      getattr(learner, "ci_test_", None)))
        conflicts.append(list(getattr(learner, "orientation_conflicts_", ())))
        if not cpdag:
            directed, undirected = dag, []
        else:  # the class of the resample's graph among the DAGs that respect the knowledge
            pdag = getattr(learner, "interventional_cpdag_", None)  # (its targets' class)
            if pdag is None:
                pdag = getattr(learner, "cpdag_", None)  # (PC: observational rows only)
            if pdag is None:
                pdag = learner._interventional_cpdag(drawn, dag, learner._parsed_knowledge(drawn))
            position = {name: i for i, name in enumerate(names)}
            directed = [(position[u], position[v]) for u, v in pdag.directed]
            undirected = [(position[u], position[v]) for u, v in pdag.undirected]
        results.append(
            tuple(np.asarray(e, dtype=np.int64).reshape(-1, 2) for e in (directed, undirected, dag))
        )
    return results, flat, ruled, conflicts


def _warn_flat_resamples(flat, names, n_resamples):
    """One warning naming the continuous columns that had no spread in some resamples
    (:func:`_flat_columns`) and in how many: their edges in those resamples are the
    learner's arbitrary choice among families that all score -inf, and enter the
    strengths."""
    counts = {}
    for columns in flat:
        for j in columns:
            counts[j] = counts.get(j, 0) + 1
    if not counts:
        return
    listed = ", ".join(f"{names[j]!r} in {counts[j]} of {n_resamples}" for j in sorted(counts))
    warn_user(
        f"Some resamples hold a continuous column with no spread (constant over the rows drawn): "
        f"{listed}. Every family of such a column scores -inf there, so the edges learned at it "
        "in those resamples carry no information, yet they count in the strengths. The column "
        "differs in too few rows: drop it, make it discrete, or use bootstrap='bayesian' (every "
        "row kept, with a positive weight).",
        DeterminedColumnsWarning,
    )


def _same_value(a, b):
    """Whether two parameter values are the same setting, whatever container holds them:
    sequences (list, tuple, numpy array of one dimension or more) are the same when they
    have the same length and the same items in order, whichever of them holds them; dicts
    when they have the same keys and the same value under each; a 0-d array or a numpy
    scalar is its Python scalar; a scalar is never the same as a sequence (``[1.0]`` is not
    ``1.0``: no broadcasting) and a bool is not a number (``True`` is not ``1.0``, as
    scikit-learn's parameter constraints tell them apart); other values by ``==``, False
    when it does not give a plain bool or raises. Never raises."""
    if a is b:
        return True
    a, b = (v.item() if isinstance(v, np.generic) or (isinstance(v, np.ndarray) and v.ndim == 0) else v
            for v in (a, b))
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys()
                and all(_same_value(a[key], b[key]) for key in a))
    sequences = [isinstance(v, (list, tuple, np.ndarray)) for v in (a, b)]
    if any(sequences):
        return (all(sequences) and len(a) == len(b)
                and all(_same_value(x, y) for x, y in zip(a, b)))
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    try:
        same = a == b
    except Exception:  # (a value whose comparison fails is not the same as the other)
        return False
    return isinstance(same, bool) and same


class BootstrapStructure(_BaseStructureLearner):
    r"""Edge strengths by bootstrap and the averaged network, around any skbn learner.

    The wrapped ``estimator`` (cloned per resample) learns one graph from each of
    ``n_resamples`` resamples of the data: rows drawn with replacement
    (``"nonparametric"``, Friedman, Goldszmidt & Wyner 1999) or every row weighted by
    :math:`n` times a flat Dirichlet draw (``"bayesian"``, Rubin 1981), through the
    weighted counts every learner takes. Rows are resampled however they are stored: an
    integer ``sample_weight`` ``w`` (and the copies of a distinct row of chunked ``X``) is
    ``w`` rows, so the resample is that of the replicated rows; non-integer weights are
    importance weights of the rows given, drawn with probabilities proportional to them
    (the rule: ``resample`` in ``skbn/estimators/_bootstrap.py``). For every pair of variables,

    * ``strength`` = fraction of resamples with an edge between them, either way;
    * ``direction`` = among those, the fraction oriented ``source -> target``; with
      ``cpdag=True`` every graph is first reduced to its equivalence class (CPDAG) and a
      reversible (undirected) edge counts half in each direction, as bnlearn's
      ``boot.strength(cpdag=TRUE)``; learners returning a CPDAG (PC, GES) give theirs.
      The class is that of the DAGs which respect the wrapped learner's background
      knowledge (:func:`skbn.graph.meek_orient`): on mixed data a discrete node never has
      a continuous parent, so no such edge is counted in the continuous -> discrete
      direction, and a black-listed direction is never counted either.

    Experimental rows (``fit(X, interventions=...)``, for an ``estimator`` that takes
    them): each resample draws the rows of the intervention matrix with those of ``X``,
    the learner scores it as usual (each family without its child's intervened rows), and
    with ``cpdag=True`` every graph is reduced to its interventional essential graph for
    the resample's targets (a resample without an experimental row: its CPDAG).

    The averaged network keeps the pairs stronger than ``threshold_`` (or of strength 1),
    each in the direction with ``direction >= 0.5``, added by decreasing strength and
    skipping any edge that would close a cycle (bnlearn's ``averaged.network``; a pair of
    direction exactly 0.5 is an undirected edge, oriented at the end by a consistent
    extension, so without a new v-structure: ``averaged_edges``), or that
    would make its continuous child an exact linear function of its continuous parents
    (residual variance 0 over all the rows: no Gaussian network can fit it; the resamples
    learn such edges in different DAGs), which a ``DeterminedColumnsWarning`` names. By
    default ``threshold_`` is Scutari & Nagarajan's (2013) L1 threshold,
    ``inclusion_threshold`` (``docs/averaging.md``). ``edges_``, ``network_`` (CPTs from all the data),
    ``score_samples``, ``predict_proba`` and ``sample`` are those of the averaged network.

    Resample seeds are drawn up front from ``random_state`` (the wrapped estimator's
    ``random_state`` is set to its resample's seed, as ``BaggingClassifier`` does), so
    results are identical for any ``n_jobs`` and joblib backend (e.g. a dask cluster
    through ``joblib.parallel_config(backend="dask")``). The encoded data go to each
    worker once per batch of resamples, and each resample skips the wrapped estimator's
    encoding and CPT fitting.

    Continuous and mixed data are resampled the same way (a row's values go with its
    codes); the wrapped learner must take continuous columns (``fit`` says so, naming it,
    when it does not).

    Parameters
    ----------
    estimator : skbn structure learner or None, default=None
        Learner run on every resample; ``None`` means ``HillClimbStructure()``. The data
        are encoded, and the averaged network fitted, by this estimator's parameters, so
        the wrapped learner's ``column_types``, ``categories``, ``target``, ``missing``,
        ``parameter_estimator`` and ``parameter_ess`` must keep their defaults (``fit``
        refuses other values, naming where to set them).
    n_resamples : int, default=200
        Number of bootstrap resamples (bnlearn's ``R``).
    bootstrap : {"nonparametric", "bayesian"}, default="nonparametric"
    threshold : float in [0, 1] or None, default=None
        Strength threshold of the averaged network; ``None``: Scutari & Nagarajan's L1 threshold.
    cpdag : bool, default=True
        Count equivalence classes rather than the DAGs learned.
    keep_graphs : bool, default=False
        Keep every resample's DAG in ``graphs_``.
    n_jobs : int or None, default=None
        Parallel workers (joblib); results are identical for any value.
    random_state : int, RandomState or None, default=None
        Draws the resamples and their seeds (every resample's seed is drawn up front and
        given to the wrapped estimator's ``random_state`` parameters).
    {verbose_parameter}
    {common_parameters}

    Attributes
    ----------
    edge_strength_ : DataFrame of shape (n_nodes * (n_nodes - 1), 4)
        Columns ``source``, ``target``, ``strength``, ``direction``, one row per ordered
        pair (rows in column order), like bnlearn's ``bn.strength``.
    strength_matrix_ : DataFrame of shape (n_nodes, n_nodes)
        ``strength_matrix_.loc[u, v]`` = fraction of resamples with an edge ``u -> v``
        (undirected edges counted half), so ``strength = M + M.T`` and
        ``direction = M / strength``.
    threshold_ : float
        Strength threshold used for the averaged network.
    edges_ : list of (parent, child)
        The averaged network.
    graphs_ : list of list of (parent, child)
        Every resample's DAG (only with ``keep_graphs=True``).
    estimator_ : estimator
        The (unfitted) clone of ``estimator`` run on every resample.
    n_power_rule_tests_ : int
        How many CI tests of the resamples' fits their test's heuristic power rule decided
        instead of the data, summed over the resamples (each fit's ``n_power_rule_tests_``,
        e.g. :class:`PCStructure`'s; 0 for learners without CI tests). One
        :class:`~skbn.exceptions.PowerRuleWarning` per fit, not per resample, gives the
        count, the tests of all resamples and in how many resamples the rule decided any.
    n_orientation_conflicts_ : int
        Orientation conflicts of the resamples' fits, summed over the resamples (each
        :class:`PCStructure` fit's ``n_orientation_conflicts_``; 0 for other learners). One
        :class:`~skbn.exceptions.OrientationConflictWarning` per fit, not per resample,
        gives the total, its kinds and in how many resamples PC had any.
    network_
        The averaged network's DAG (``edges_``) with its parameters fitted on all of ``X``.
    {common_attributes}

    References
    ----------
    N. Friedman, M. Goldszmidt and A. Wyner, "Data analysis with Bayesian networks: a
    bootstrap approach", UAI 1999.

    M. Scutari and R. Nagarajan, "Identifying significant edges in graphical models of
    molecular networks", Artificial Intelligence in Medicine 57, 2013.

    Examples
    --------
    >>> from skbn import BootstrapStructure, HillClimbStructure
    >>> from skbn.datasets import sample_asia
    >>> X = sample_asia(2000, random_state=0)
    >>> boot = BootstrapStructure(HillClimbStructure(), n_resamples=20, random_state=0).fit(X)
    >>> top = boot.edge_strength_.sort_values("strength", ascending=False).iloc[0]
    >>> float(top.strength)
    1.0
    """

    _continuous = True
    _interventions = True
    _parameter_constraints = {
        **_BaseStructureLearner._parameter_constraints,
        "estimator": "no_validation",
        "n_resamples": [Interval(Integral, 1, None, closed="left")],
        "bootstrap": [StrOptions({"nonparametric", "bayesian"})],
        "threshold": [None, Interval(Real, 0, 1, closed="both")],
        "cpdag": ["boolean"],
        "keep_graphs": ["boolean"],
        "n_jobs": [None, Integral],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        estimator=None,
        *,
        n_resamples=200,
        bootstrap="nonparametric",
        threshold=None,
        cpdag=True,
        keep_graphs=False,
        n_jobs=None,
        random_state=None,
        verbose=0,
        categories="auto",
        column_types="auto",
        handle_unknown="warn",
        target=None,
        fit_parameters=True,
        parameter_estimator="bayes",
        parameter_ess=1.0,
    ):
        self.estimator = estimator
        self.n_resamples = n_resamples
        self.bootstrap = bootstrap
        self.threshold = threshold
        self.cpdag = cpdag
        self.keep_graphs = keep_graphs
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.categories = categories
        self.column_types = column_types
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess

    # the wrapped learner's parameters that the resamples never read: the data are encoded,
    # and the averaged network fitted, by this estimator's own (see ``estimator``)
    _wrapper_parameters = ("column_types", "categories", "target", "missing",
                           "parameter_estimator", "parameter_ess")

    def _validate_params(self):
        """Also refuse a wrapped learner whose encoding, target or parameter settings differ
        from their defaults: they would be ignored silently (a ``column_types`` declared
        there left whole numbers discrete, or refused as undeclared)."""
        super()._validate_params()
        if not isinstance(self.estimator, _BaseStructureLearner):
            return  # (_check_estimator names the type)
        defaults = _param_defaults(type(self.estimator))
        for name in self._wrapper_parameters:
            value = getattr(self.estimator, name, None)
            default = defaults.get(name)
            if name not in defaults or value is default or _same_value(value, default):
                continue
            learner = type(self.estimator).__name__
            where = (f"set it on BootstrapStructure instead: BootstrapStructure({learner}(), "
                     f"{name}={value!r})" if name in self.get_params(deep=False) else
                     "BootstrapStructure takes complete data only: drop the incomplete rows "
                     "(or impute) first")
            raise ValueError(
                f"BootstrapStructure: the wrapped {learner} has {name}={value!r}, which the "
                f"resamples would ignore (the data are encoded, and the averaged network "
                f"fitted, by BootstrapStructure's own parameters); {where}.")

    def _check_estimator(self):
        if self.estimator is None:
            from skbn.estimators._hill_climb import HillClimbStructure

            return HillClimbStructure()
        if not isinstance(self.estimator, _BaseStructureLearner):
            raise TypeError(
                f"estimator must be an skbn structure learner (e.g. HillClimbStructure()), "
                f"got {type(self.estimator).__name__}."
            )
        return clone(self.estimator)

    def _restore_column_order(self, names):
        super()._restore_column_order(names)
        position = {name: i for i, name in enumerate(names)}
        table = self.edge_strength_
        rows = np.lexsort(([position[v] for v in table["target"]], [position[u] for u in table["source"]]))
        self.edge_strength_ = table.iloc[rows].reset_index(drop=True)

    def __sklearn_tags__(self):
        """A classifier when the wrapped learner is one (``ChowLiuTree(variant="tan")`` of
        ``y``): ``fit(X, y)`` then needs ``y``, and ``cross_val_score`` / ``GridSearchCV``
        split with stratified folds, as they do for the learner alone."""
        tags = super().__sklearn_tags__()
        if self.estimator is not None:
            inner = get_tags(self.estimator)
            if inner.estimator_type == "classifier":
                tags.estimator_type = "classifier"
                tags.classifier_tags = inner.classifier_tags
                tags.target_tags.required = inner.target_tags.required
        return tags

    def _learn_structure(self, data, knowledge, *, start=None, counter=None):
        self.estimator_ = self._check_estimator()
        if data.has_continuous and not self.estimator_._continuous:
            columns = [name for name, c in zip(data.names, data.continuous) if c]
            raise ValueError(
                f"BootstrapStructure: its estimator {type(self.estimator_).__name__} does not take "
                f"continuous columns yet, and the data have {len(columns)} ({columns[:5]!r}). Wrap a "
                f"learner that does (e.g. ExactStructure), or discretize the columns."
            )
        if data.intervened is not None and not self.estimator_._interventions:
            raise ValueError(
                f"BootstrapStructure: its estimator {type(self.estimator_).__name__} does not accept "
                f"interventions=; wrap one that does: {', '.join(INTERVENTION_LEARNERS)}."
            )
        rng = check_random_state(self.random_state)
        seeds = rng.randint(np.iinfo(np.int32).max, size=self.n_resamples)
        n_workers = effective_n_jobs(self.n_jobs)
        n_batches = min(self.n_resamples, 4 * n_workers if n_workers > 1 else (10 if self.verbose else 1))
        batches = np.array_split(seeds, n_batches)
        batches_text = amount(n_batches, "batch", "batches")
        progress = Progress(self.verbose, "BootstrapStructure", total=self.n_resamples, unit="resample",
                            detail=f"{amount(self.n_resamples, 'resample')} of "
                                   f"{type(self.estimator_).__name__}, {batches_text}")
        parallel = Parallel(n_jobs=self.n_jobs, return_as="generator")
        results, flat, ruled, conflicts = [], [], [], []
        with progress.nested():  # the wrapped learner's own lines, one level lower
            for batch, batch_flat, batch_ruled, batch_conflicts in parallel(
                delayed(_learn_resamples)(self.estimator_, data, seeds_, self.bootstrap, self.cpdag)
                for seeds_ in batches
            ):
                results.extend(batch)
                flat.extend(batch_flat)
                ruled.extend(batch_ruled)
                conflicts.extend(batch_conflicts)
                progress.update(len(results))
        _warn_flat_resamples(flat, data.names, self.n_resamples)
        with_rule = [(n_rule, ci_test) for n_rule, _, ci_test in ruled if n_rule]
        fits = f"{type(self.estimator_).__name__} fits on {self.n_resamples:,} resamples"
        report_power_rule(self, with_rule[0][1] if with_rule else None, sum(n for n, _, _ in ruled),
                          sum(n for _, n, _ in ruled), (len(with_rule), fits))
        self.n_orientation_conflicts_ = sum(len(c) for c in conflicts)
        report_conflicts(self, [conflict for c in conflicts for conflict in c],
                         dict(zip(data.names, data.continuous)) if data.has_continuous else None,
                         (sum(1 for c in conflicts if c), fits))

        p = data.n_variables
        names = list(data.names)
        oriented = np.zeros((p, p))
        for directed, undirected, _ in results:
            np.add.at(oriented, (directed[:, 0], directed[:, 1]), 1.0)
            np.add.at(oriented, (undirected[:, 0], undirected[:, 1]), 0.5)
            np.add.at(oriented, (undirected[:, 1], undirected[:, 0]), 0.5)
        oriented /= self.n_resamples
        strength = oriented + oriented.T
        direction = np.divide(oriented, strength, out=np.zeros_like(oriented), where=strength > 0)
        self.strength_matrix_ = pd.DataFrame(oriented, index=names, columns=names)
        sources, targets = np.nonzero(~np.eye(p, dtype=bool))
        self.edge_strength_ = pd.DataFrame({
            "source": [names[u] for u in sources],
            "target": [names[v] for v in targets],
            "strength": strength[sources, targets],
            "direction": direction[sources, targets],
        })
        self.threshold_ = (inclusion_threshold(strength[sources, targets])
                           if self.threshold is None else float(self.threshold))
        if self.keep_graphs:
            self.graphs_ = [[(names[u], names[v]) for u, v in dag] for _, _, dag in results]
        elif hasattr(self, "graphs_"):
            del self.graphs_
        edges, skipped = averaged_edges(strength, direction, self.threshold_, _not_determined(data))
        _warn_determined_families(skipped, names)
        progress.close(threshold=self.threshold_, edges=len(edges))
        return edges
