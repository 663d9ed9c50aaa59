"""Learning from incomplete data: EM for the CPTs, structural EM, latent variables.

The design is *complete the data in expectation*. Under the current network
:math:`(G, \\theta)`, every incomplete row :math:`n` with observed cells :math:`x_o` and
missing cells :math:`x_m` is replaced by all its completions :math:`(x_o, x_m)`, each a row
of weight

.. math::

    w_n \\, p(x_m \\mid x_o; \\theta)
    = w_n \\frac{\\prod_i \\theta_{x_i \\mid \\mathrm{pa}_i}}
               {\\sum_{x_m'} \\prod_i \\theta_{x_i \\mid \\mathrm{pa}_i}},

(:func:`expected_completions`). The weighted counts of the completed data are then exactly
the expected sufficient statistics :math:`E[N_{ijk} \\mid x_o, \\theta]` of the E-step, so
the M-step is the ordinary CPT estimate on weighted rows, and every learner runs unchanged
on them (structural EM). A completion's probability is a product of CPT entries, so the
posterior over a row's completions is the row's complete-data joint (one vectorised table
look-up per completion, :meth:`skbn._inference.VariableElimination.complete_log_joint`)
normalised by its sum, which is also the row's marginal likelihood :math:`p(x_o)`.

A row with more than :data:`MAX_COMPLETIONS` completions (many missing cells, or a latent
variable with many states) is completed by Gibbs sampling instead
(:class:`GibbsCompleter`): ``GIBBS_SAMPLES`` draws of weight ``w_n / GIBBS_SAMPLES``.
Parameter EM on a fixed DAG stays exact far beyond that: it enumerates each independent
group of a row's missing cells on its own (within the budget :data:`MAX_GROUP_COMPLETIONS`,
:data:`COMPLETION_BUDGET`), and splits a group still too large by cutset conditioning
(:func:`_cutset`, within :data:`MAX_CONDITIONED_COMPLETIONS`, :data:`CONDITIONING_BUDGET`);
only rows beyond those bounds go to Gibbs.
``e_step="gibbs"`` completes every incomplete row that way (stochastic EM).

Continuous columns (Gaussian and CLG networks, :class:`MomentEM`) follow the same design:
a completion of a row's missing discrete cells, weighted by its exact posterior, carries
its missing continuous cells as ``d + 1`` weighted rows whose weighted mean and scatter
are the exact conditional mean and covariance, so the weighted moments of the completed
rows are the expected sufficient statistics, the M-step is the estimators' network fit
and structural EM's searches read the same rows. The loop (:class:`_EMLoop`), the
initialisations (:func:`fit_em`) and the structural EM driver are shared.

References
----------
.. [1] A. P. Dempster, N. M. Laird and D. B. Rubin (1977), "Maximum likelihood from
   incomplete data via the EM algorithm", JRSS B 39(1).
.. [2] S. L. Lauritzen (1995), "The EM algorithm for graphical association models with
   missing data", Computational Statistics & Data Analysis 19.
.. [3] N. Friedman (1997), "Learning belief networks in the presence of missing values and
   hidden variables", ICML; (1998) "The Bayesian structural EM algorithm", UAI.
.. [4] D. Koller and N. Friedman (2009), *Probabilistic Graphical Models*, ch. 19.
"""

import functools
import math
from dataclasses import replace

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skbn._continuous_network import _condition_rows
from skbn._counting import moments
from skbn._dag import components, moral_neighbours, sweep_order
from skbn._data import (
    EncodedData,
    RowGroups,
    _code_dtype,
    complete_row_mask,
    kept_rows,
    name_ranks,
    no_observed_value_message,
)
from skbn._engines._search import improves
from skbn._inference import VariableElimination
from skbn.parameters import estimate_cpt
from skbn.utils._progress import Progress, amount
from skbn.utils._warnings import warn_user

__all__ = [
    "MAX_COMPLETIONS", "MAX_GROUP_COMPLETIONS", "COMPLETION_BUDGET", "MAX_CONDITIONED_COMPLETIONS",
    "CONDITIONING_BUDGET", "GIBBS_SAMPLES", "expected_completions",
    "GibbsCompleter", "ParameterEM", "MomentEM", "fit_em", "structural_em",
]

#: Largest number of completions of one row enumerated exactly by the E-step; rows with
#: more are completed by Gibbs sampling.
MAX_COMPLETIONS = 512
#: Parameter EM on a fixed structure enumerates each independent group of a row's missing
#: cells separately (:meth:`ParameterEM._grouped`); there a row whose largest group has
#: more than ``MAX_COMPLETIONS`` (but at most ``MAX_GROUP_COMPLETIONS``) completions is
#: still enumerated exactly, fewest completions first, while the E-step's total stays
#: within ``COMPLETION_BUDGET`` completions per data row. Rows left over go to Gibbs.
MAX_GROUP_COMPLETIONS = 8192
COMPLETION_BUDGET = 32
#: The remaining rows are made enumerable by conditioning (:func:`_cutset`): a row whose
#: conditioned enumeration needs at most ``MAX_CONDITIONED_COMPLETIONS`` completions is
#: exact, cheapest rows first while the conditioned rows' total stays within
#: ``CONDITIONING_BUDGET`` completions (a memory bound: the E-step holds every completion,
#: ``n_nodes`` codes each). Only rows beyond these bounds go to Gibbs.
MAX_CONDITIONED_COMPLETIONS = 2 ** 16
CONDITIONING_BUDGET = 2 ** 22
#: Gibbs sweeps kept per E-step (each gives every sampled row one completion of weight
#: ``w / GIBBS_SAMPLES``) and sweeps discarded before them.
GIBBS_SAMPLES = 10
GIBBS_BURN_IN = 3
#: Gaussian / CLG EM keeps every residual variance of a continuous column within
#: ``[VARIANCE_BOUND, 1 / VARIANCE_BOUND]`` times the variance of the column's observed
#: cells (a standard deviation within a factor 1000 of the column's): without a bound the
#: objective can be unbounded (:class:`MomentEM`, "Bounded residual variances").
VARIANCE_BOUND = 1e-6


def _n_completions(codes, cardinalities):
    """Number of completions ``prod_{i missing} r_i`` of every row (float, may be huge)."""
    missing = codes < 0
    return np.prod(np.where(missing, cardinalities.astype(np.float64), 1.0), axis=1)


def expected_completions(inference, codes, rows, n_completions):
    """Enumerate every completion of ``codes[rows]`` with its posterior probability.

    Parameters
    ----------
    inference : VariableElimination
    codes : int64 ndarray (n_samples, n_nodes), ``-1`` = missing
    rows : int ndarray, the rows to expand (each with at most ``MAX_COMPLETIONS``)
    n_completions : int ndarray, ``prod r`` over each of those rows' missing cells

    Returns
    -------
    completed : int64 ndarray (sum n_completions, n_nodes)
        The completions, row by row; within a row the missing cells run through their
        configurations in mixed radix, last missing column fastest.
    owner : int ndarray (sum n_completions,), the index into ``rows`` of each completion
    posterior : float ndarray (sum n_completions,), ``p(x_m | x_o)``; uniform over the
        completions of a row whose evidence has probability 0.
    log_marginal : float ndarray (len(rows),), ``log p(x_o)`` of each row
    """
    completed, owner, starts = _completions(codes, rows, n_completions, inference.cardinalities)
    posterior, log_marginal = _normalise_segments(
        inference.complete_log_joint(completed), owner, starts)
    return completed, owner, posterior, log_marginal


def _completions(codes, rows, n_completions, cardinalities):
    """Every completion of ``codes[rows]``: ``(completed, owner, starts)`` (see
    :func:`expected_completions`; ``starts`` = first completion of each row)."""
    block = codes[rows]
    counts = n_completions.astype(np.int64)
    owner = np.repeat(np.arange(len(rows)), counts)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return _enumerate(block, block < 0, owner, starts, cardinalities), owner, starts


def _enumerate(block, missing, owner, starts, cardinalities):
    """Row ``owner[t]`` of ``block`` with its ``missing`` cells set to the configuration
    number ``t - starts[owner[t]]`` (mixed radix, last missing column fastest)."""
    local = np.arange(owner.size) - starts[owner]
    radix = np.where(missing, cardinalities, 1)
    stride = np.ones_like(radix)
    stride[:, :-1] = np.cumprod(radix[:, ::-1], axis=1)[:, ::-1][:, 1:]
    completed = block[owner]
    for j in np.flatnonzero(missing.any(axis=0)):
        fill = missing[owner, j]
        completed[fill, j] = (local[fill] // stride[owner[fill], j]) % cardinalities[j]
    return completed


def _segment_cumsum(values, starts, counts):
    """Running sums of ``values`` within each segment (``starts``, ``counts``), each summed
    from its segment's own start: ``np.cumsum`` over all segments minus each segment's offset
    would carry the rounding of the grand total (``ulp`` of the number of segments) into
    every segment. Segments of equal length are summed together as the rows of a matrix."""
    out = np.empty_like(values)
    for length in np.unique(counts).tolist():
        index = starts[counts == length][:, None] + np.arange(length)
        out[index] = np.cumsum(values[index], axis=1)
    return out


def _normalise_segments(log_values, owner, starts):
    """Per segment (``owner`` sorted, segments beginning at ``starts``): probabilities
    ``exp(v - logsumexp(v))`` (uniform where every value is ``-inf``) and the logsumexp."""
    if owner.size == 0:
        return np.zeros(0), np.zeros(len(starts))
    peak = np.maximum.reduceat(log_values, starts)
    finite = np.isfinite(peak)
    with np.errstate(invalid="ignore"):
        shifted = np.exp(log_values - np.where(finite, peak, 0.0)[owner])
    shifted[~finite[owner]] = 1.0  # impossible evidence: uniform over the completions
    total = np.add.reduceat(shifted, starts)
    with np.errstate(divide="ignore"):
        log_total = np.where(finite, peak + np.log(total), -np.inf)
    return shifted / total[owner], log_total


def _cutset(missing, neighbours, cardinalities, limit):
    """Missing nodes to condition on (cutset conditioning, Pearl 1988 ch. 4.3; Koller &
    Friedman 9.5) so that every group of the rest has at most ``limit`` completions.

    Setting a missing node :math:`c` to each of its states turns one row into
    :math:`r_c` rows in which :math:`c` is observed; the rest of its group may then split
    into smaller groups. The conditioned row enumerates
    :math:`\\mathrm{cost}(C) = \\prod_{c \\in C} r_c \\sum_g \\prod_{v \\in g} r_v`
    completions (groups :math:`g` of the missing cells left). Greedy and deterministic:
    repeatedly take the largest group of two or more nodes (ties: smallest first member)
    and condition on its node :math:`c` that minimises the next enumeration of that group,
    :math:`r_c \\sum_{g' \\subset g \\setminus c} \\prod_{v \\in g'} r_v` (ties: smallest
    index); once every group has at most ``limit`` completions, go on only while the
    cost strictly decreases. A single node is never conditioned on (it is enumerated).

    Returns ``(cutset, cost)``: the conditioned nodes in order and their cost.
    """
    def size(group):
        return float(np.prod(cardinalities[group]))

    free, cut, best = set(np.flatnonzero(missing).tolist()), [], None
    while True:
        groups = components(free, neighbours)
        cost = float(np.prod(cardinalities[cut])) * sum(map(size, groups))
        splittable = [g for g in groups if len(g) > 1]
        if all(size(g) <= limit for g in splittable):
            if best is not None and cost >= best[1]:
                return best
            best = list(cut), cost
        if not splittable:
            return best
        group = max(splittable, key=lambda g: (size(g), -g[0]))
        node = min(group, key=lambda c: (
            cardinalities[c] * sum(map(size, components(set(group) - {c}, neighbours))), c))
        cut.append(node)
        free.discard(node)


def _group_layout(missing, parent_idx, cardinalities):
    """The groups of each row's missing cells, once per pattern: the missing nodes of one
    pattern that are independent given the observed cells, i.e. the connected components,
    among the missing nodes, of the moral graph (two nodes joined when a family holds both;
    :func:`skbn._dag.components`, sorted by first member). Returns
    ``(inverse, group_masks, first_group, group_counts)`` -- each row's pattern, every
    pattern's groups as masks (pattern ``p`` owns ``first_group[p]:first_group[p + 1]``)
    and their numbers of completions."""
    patterns, inverse = np.unique(missing, axis=0, return_inverse=True)
    moral = moral_neighbours(parent_idx)
    groups = [[tuple(c) for c in components(np.flatnonzero(pattern).tolist(), moral)]
              for pattern in patterns]
    group_masks = np.zeros((sum(map(len, groups)), missing.shape[1]), dtype=bool)
    first_group = np.concatenate([[0], np.cumsum([len(g) for g in groups])]).astype(np.int64)
    for pattern, pattern_groups in enumerate(groups):
        for k, group in enumerate(pattern_groups):
            group_masks[first_group[pattern] + k, list(group)] = True
    group_counts = np.prod(np.where(group_masks, cardinalities.astype(float), 1.0), axis=1)
    return inverse.ravel(), group_masks, first_group, group_counts


class GibbsCompleter:
    """Gibbs sampler over the missing cells of some rows, its chain kept across E-steps.

    One sweep visits the nodes in topological order and redraws, for every row where node
    :math:`v` is missing, :math:`x_v` from its full conditional

    .. math::

        p(x_v \\mid x_{-v}) \\propto \\theta_{x_v \\mid \\mathrm{pa}_v}
        \\prod_{c \\in \\mathrm{ch}(v)} \\theta_{x_c \\mid \\mathrm{pa}_c},

    vectorised over the rows. The chain starts from a forward sample of the network
    clamped to the observed cells, and continues from its last state at the next E-step,
    so a few burn-in sweeps suffice after the first.
    """

    def __init__(self, codes, rows, rng):
        self.rows = rows
        self.missing = codes[rows] < 0
        self.state = codes[rows].copy()
        self.rng = rng
        self._started = False

    def _families_of(self, inference):
        n = len(inference.cardinalities)
        children = [[] for _ in range(n)]
        for child, pa in enumerate(inference.parent_idx):
            for p in pa:
                children[p].append(child)
        return [[v] + children[v] for v in range(n)]

    def _lookup(self, inference, node, state):
        pa = inference.parent_idx[node]
        index = tuple(state[:, p] for p in pa) + (state[:, node],)
        return inference.log_factor_at(node, index)

    def _start(self, inference, order):
        for v in order:  # forward sampling, observed cells clamped
            rows = np.flatnonzero(self.missing[:, v])
            if rows.size == 0:
                continue
            sub = self.state[rows]
            pa = inference.parent_idx[v]
            probs = np.broadcast_to(inference.cpts[v][tuple(sub[:, p] for p in pa)],
                                    (rows.size, int(inference.cardinalities[v])))
            self.state[rows, v] = _draw(probs, self.rng)
        self._started = True

    def sweep(self, inference, order, families):
        for v in order:
            rows = np.flatnonzero(self.missing[:, v])
            if rows.size == 0:
                continue
            sub = self.state[rows]
            r = int(inference.cardinalities[v])
            log_p = np.empty((rows.size, r))
            for k in range(r):
                sub[:, v] = k
                log_p[:, k] = sum(self._lookup(inference, f, sub) for f in families[v])
            peak = log_p.max(axis=1, keepdims=True)
            with np.errstate(invalid="ignore"):
                p = np.exp(log_p - np.where(np.isfinite(peak), peak, 0.0))
            p[~np.isfinite(peak[:, 0])] = 1.0
            self.state[rows, v] = _draw(p / p.sum(axis=1, keepdims=True), self.rng)

    def complete(self, inference, order):
        """``GIBBS_SAMPLES`` completions per row after burn-in: (completed, owner, weight)."""
        families = self._families_of(inference)
        if not self._started:
            self._start(inference, order)
        for _ in range(GIBBS_BURN_IN):
            self.sweep(inference, order, families)
        draws = []
        for _ in range(GIBBS_SAMPLES):
            self.sweep(inference, order, families)
            draws.append(self.state.copy())
        completed = np.concatenate(draws)
        owner = np.tile(np.arange(len(self.rows)), GIBBS_SAMPLES)
        return completed, owner, np.full(owner.size, 1.0 / GIBBS_SAMPLES)


def _sweep_order_by_name(parents, names):
    """The Gibbs sweep order (:func:`skbn._dag.sweep_order`) of the graph with its nodes
    numbered in name order, as node positions: the chain visits the nodes, hence draws its
    random numbers, in the same order for any column order of ``X``."""
    ranks = name_ranks(names)
    by_rank = np.argsort(ranks)  # by_rank[k]: the position of the k-th name
    renamed = [tuple(int(ranks[p]) for p in parents[v]) for v in by_rank]
    return [int(by_rank[k]) for k in sweep_order(renamed)]


def _canonical_rows(rows, codes, weights, names, values=None):
    """``rows`` (indices into ``codes``) in the order EM handles the incomplete rows:
    sorted by their cells, the columns compared in name order (a column by its code,
    ``-1``, missing, first; then, with ``values``, by its value, NaN last), then by weight;
    rows equal in all of them keep their order.

    Each Gibbs chain takes its random numbers in this order, the bounds of the exact
    E-step pick among rows of equal cost in this order, and the random hot-deck starts of
    :class:`MomentEM` assign their donors in this order, so the same rows in another order
    of ``X`` (or with the columns in another order) get the same completions, permuted
    with them: only rows equal in every cell and weight swap places, and they are
    exchangeable.
    """
    if rows.size < 2:
        return rows
    by_name = np.argsort(name_ranks(names), kind="stable")
    # np.lexsort: the last key is the primary one
    keys = [weights[rows]]
    for j in by_name[::-1]:
        keys += ([] if values is None else [values[rows, j]]) + [codes[rows, j]]
    return rows[np.lexsort(keys)]


def _random_cpt(rng, cardinalities, child, parents, ranks):
    """A Dirichlet(1)-random CPT of ``child`` given ``parents`` (positions), its axes
    ``(*parents, child)``.

    The draw does not depend on the column order: the configurations are filled with the
    parents in name order (``ranks``: :func:`skbn._data.name_ranks`), then the axes are
    moved to the parents' positional order, so a column permutation permutes the axes of
    the same CPT (the caller draws the families in name order too).
    """
    by_name = sorted(parents, key=lambda q: ranks[q])
    shape = tuple(int(cardinalities[c]) for c in (*by_name, child))
    cpt = rng.dirichlet(np.ones(shape[-1]), size=shape[:-1]).reshape(shape)
    return np.transpose(cpt, [by_name.index(q) for q in parents] + [len(parents)])


def _draw(probs, rng):
    """One inverse-CDF draw per row of (n, r) probabilities."""
    cum = np.cumsum(probs, axis=1)
    u = rng.random_sample(probs.shape[0]) * cum[:, -1]
    return np.minimum((u[:, None] >= cum).sum(axis=1), probs.shape[1] - 1)


class _EMLoop:
    """The EM loop shared by :class:`ParameterEM` and :class:`MomentEM`: each provides
    ``model(params, parents)`` (what the E-step conditions on), ``e_step(model)``,
    ``m_step(data, parents)``, ``log_prior(params)`` and ``method``."""

    #: the most incomplete rows one structure's E-step had to sample although it is exact
    #: (beyond its enumeration's bounds: :meth:`ParameterEM._plan`); reported once by :meth:`run`
    sampled_rows = 0
    _sampling_reported = False

    # ------------------------------------------------------------------ loop
    def run(self, parents, cpts, max_iter, tol, progress=None):
        """EM from ``cpts`` until the relative change of the objective is at most ``tol``
        or ``max_iter`` M-steps. Returns ``(cpts, trace, data)``: ``trace[t]`` is the
        objective of the parameters after ``t`` M-steps and ``data`` the expected
        completions under the returned parameters. ``progress`` (a
        :class:`skbn.utils._progress.Progress`) hears of every iteration, out of
        ``max_iter``. The loop of every EM of this module (:class:`MomentEM` runs it
        with its own ``model``, ``e_step``, ``m_step`` and ``log_prior``)."""
        trace = []
        label = "log-likelihood" if self.method == "mle" else "log-posterior"
        self.last_change = None  # (no iteration asked for: nothing to converge)
        for iteration in range(max_iter + 1):
            data, log_lik = self.e_step(self.model(cpts, parents))
            trace.append(log_lik + self.log_prior(cpts))
            if progress is not None and progress.enabled:
                progress.message(f"iteration {iteration}: {label} {trace[-1]:.6f}")
                progress.update(progress.done + 1, **{label: trace[-1]})
            if iteration:
                scale, change = self.scale(trace[-1], log_lik), abs(trace[-1] - trace[-2])
                if change <= tol * scale:
                    self.last_change = None
                    break
                self.last_change = change / scale if scale else math.inf
            if iteration == max_iter:
                break
            cpts = self.m_step(data, parents)
        if self.sampled_rows and not self._sampling_reported:
            self._sampling_reported = True
            warn_user(
                f"EM (e_step='exact'): {self.sampled_rows} incomplete row(s) have more completions "
                "than the exact E-step's bounds (many missing cells together) and were completed "
                "by Gibbs sampling: there the objective (em_trace_) may decrease slightly, and the "
                "result depends on random_state (pass one to reproduce it)."
            )
        return cpts, np.asarray(trace), data

    #: the relative change of the objective at the last iteration of :meth:`run`'s latest
    #: loop when it stopped at ``max_iter`` above ``tol`` (None: converged, or no iteration)
    last_change = None

    #: what ``last_change`` is relative to, in :func:`warn_not_converged`'s words
    change_of = "of its size"

    def scale(self, objective, log_lik):
        """What the change of the objective is relative to in the stopping rule: its size,
        ``|objective|`` (:meth:`MomentEM.scale` on continuous columns)."""
        return abs(objective)

    def report(self, params):
        """Warnings about the parameters a fit returns (:meth:`MomentEM.report`)."""


class ParameterEM(_EMLoop):
    """EM for the CPTs of a fixed DAG on data with missing cells (codes ``-1``).

    E-step: expected completions (exact enumeration, per independent group of missing
    cells and with cutset conditioning for the groups too large to enumerate; Gibbs for
    the rows beyond the bounds of :meth:`_plan`, or for every row with
    ``e_step="gibbs"``). M-step: :func:`skbn.parameters.estimate_cpt` on
    the weighted completed rows -- maximum likelihood (``method="mle"``) or the posterior
    mean under the BDeu-style Dirichlet prior (``method="bayes"``), which is the MAP
    estimate under the prior with every hyperparameter raised by one, so EM with it is
    MAP-EM.

    Traced objective (``trace`` after :meth:`run`): the observed-data log-likelihood
    :math:`\\ell(\\theta) = \\sum_n w_n \\log p(x_o^{(n)}; \\theta)` for ``"mle"``, never
    decreasing with the exact E-step; for ``"bayes"`` the log-posterior (up to a constant)
    :math:`\\ell(\\theta) + \\sum_{ijk} \\alpha_{ijk} \\log \\theta_{ijk}` with
    :math:`\\alpha_{ijk} = \\mathrm{ess} / (q_i r_i)`, never decreasing likewise. (A row beyond
    the exact enumeration's bounds is sampled even with ``e_step="exact"``, with a warning
    from :meth:`run`: the objective may then decrease slightly.)

    Parameters
    ----------
    codes : int64 ndarray (n_samples, n_nodes), ``-1`` = missing (latent columns all ``-1``)
    cardinalities : int ndarray (n_nodes,)
    names : sequence, column names of the completed data
    weights : float ndarray (n_samples,) or None
    method, ess : CPT estimator, as :func:`skbn.parameters.estimate_cpt`
    e_step : {"exact", "gibbs"}
    rng : numpy RandomState (Gibbs draws and random initialisations)
    max_completions, max_group_completions, completion_budget : int, \
default=MAX_COMPLETIONS, MAX_GROUP_COMPLETIONS, COMPLETION_BUDGET
        The exact enumeration's bounds (:data:`MAX_COMPLETIONS`, :data:`MAX_GROUP_COMPLETIONS`,
        :data:`COMPLETION_BUDGET`, see :meth:`_plan`).
    max_conditioned_completions, conditioning_budget : int, \
default=MAX_CONDITIONED_COMPLETIONS, CONDITIONING_BUDGET
        The bounds of cutset conditioning (:data:`MAX_CONDITIONED_COMPLETIONS`,
        :data:`CONDITIONING_BUDGET`, see :meth:`_conditioning`). None of the five changes an
        expected count (the rows beyond them go to Gibbs): they trade memory for exactness.
    """

    def __init__(self, codes, cardinalities, names, weights, method, ess, e_step, rng, *,
                 max_completions=MAX_COMPLETIONS, max_group_completions=MAX_GROUP_COMPLETIONS,
                 completion_budget=COMPLETION_BUDGET,
                 max_conditioned_completions=MAX_CONDITIONED_COMPLETIONS,
                 conditioning_budget=CONDITIONING_BUDGET):
        self.max_completions = max_completions
        self.max_group_completions = max_group_completions
        self.completion_budget = completion_budget
        self.max_conditioned_completions = max_conditioned_completions
        self.conditioning_budget = conditioning_budget
        self.codes = codes
        self.names = tuple(names)
        self.cardinalities = np.asarray(cardinalities, dtype=np.int64)
        self.weights = np.ones(codes.shape[0]) if weights is None else np.asarray(weights, float)
        self.method = method
        self.ess = ess
        self.e_step_kind = e_step
        self.rng = rng
        missing = codes < 0
        self.complete_rows = np.flatnonzero(~missing.any(axis=1))
        # in a canonical order (:func:`_canonical_rows`): the rows the bounds below send to
        # the exact E-step, and the Gibbs draws of the others, do not depend on the row order
        self.incomplete_rows = _canonical_rows(np.flatnonzero(missing.any(axis=1)), codes,
                                               self.weights, self.names)
        self._plans = {}
        self._joint_completions = None
        self._dtype = _code_dtype(self.cardinalities)

    def reset_chain(self):
        """Forget the Gibbs chains (a new EM run starts its own)."""
        for plan in self._plans.values():
            plan["gibbs"] = None

    # ------------------------------------------------------------------ plans
    def _plan(self, parent_idx, joint):
        """Which rows are enumerated and how, for one structure (cached).

        ``joint=True``: every completion of a row (valid for any structure, for structure
        search). ``joint=False``: the row's missing cells split into independent groups
        (the moral graph's components among them), each enumerated on its own, then coupled (valid for the
        families of this structure only, far fewer rows). Rows beyond
        ``max_completions`` (jointly; for one group, beyond the budget of
        ``max_group_completions`` and ``completion_budget``) are conditioned on a cutset
        (:meth:`_conditioning`) when ``joint=False``; the rest go to the Gibbs sampler.

        With ``joint=False`` the plan's rows are *units*: an exact row, or one copy of a
        conditioned row per state of its cutset with those cells set (``unit_codes``;
        ``unit_row`` = the index into ``exact_rows`` of each unit, ``unit_starts`` = the
        first unit of each exact row); the groups, pairs and families below are the
        units'.
        """
        key = (tuple(parent_idx), joint)
        if key in self._plans:
            return self._plans[key]
        rows = self.incomplete_rows
        missing = self.codes[rows] < 0
        plan = {"gibbs": None}
        if rows.size == 0:
            plan["exact_rows"] = plan["gibbs_rows"] = rows
            self._plans[key] = plan
            return plan
        if joint:
            n_completions = _n_completions(self.codes[rows], self.cardinalities)
            exact = n_completions <= self.max_completions
        else:
            inverse, group_masks, first_group, group_counts = _group_layout(
                missing, parent_idx, self.cardinalities)
            largest = np.maximum.reduceat(group_counts, first_group[:-1])[inverse]
            exact = largest <= self.max_completions
            row_total = np.add.reduceat(group_counts, first_group[:-1])[inverse]
            extra = np.flatnonzero(~exact & (largest <= self.max_group_completions))
            budget = self.completion_budget * self.codes.shape[0] - row_total[exact].sum()
            extra = extra[np.argsort(row_total[extra], kind="stable")]
            exact[extra[np.cumsum(row_total[extra]) <= budget]] = True
            conditioned, cut_mask = self._conditioning(missing, inverse, exact, parent_idx)
            exact |= conditioned
        if self.e_step_kind == "gibbs":
            exact[:] = False
        elif not exact.all():  # (beyond every bound: sampled although e_step="exact")
            self.sampled_rows = max(self.sampled_rows, int(np.count_nonzero(~exact)))
        plan["exact_rows"] = rows[exact]
        plan["gibbs_rows"] = rows[~exact]
        if joint:
            plan["counts"] = n_completions[exact].astype(np.int64)
        else:
            # units: each exact row, or one row per state of its cutset (the cut cells set)
            row_codes = self.codes[plan["exact_rows"]]
            cut_mask = cut_mask[exact]
            n_units = np.prod(np.where(cut_mask, self.cardinalities, 1), axis=1)
            unit_row = np.repeat(np.arange(n_units.size), n_units)
            unit_starts = np.concatenate([[0], np.cumsum(n_units)[:-1]])
            unit_codes = _enumerate(row_codes, cut_mask, unit_row, unit_starts, self.cardinalities)
            plan["unit_codes"], plan["unit_row"], plan["unit_starts"] = unit_codes, unit_row, unit_starts
            if cut_mask.any():
                inverse, group_masks, first_group, group_counts = _group_layout(
                    unit_codes < 0, parent_idx, self.cardinalities)
            else:
                inverse = inverse[exact]
            n_groups = np.diff(first_group)[inverse]
            pair_row = np.repeat(np.arange(inverse.size), n_groups)
            row_first_pair = np.concatenate([[0], np.cumsum(n_groups)[:-1]])
            local = np.arange(pair_row.size) - row_first_pair[pair_row]
            pair_group = first_group[inverse][pair_row] + local
            pair_mask = group_masks[pair_group]
            fill = (unit_codes < 0)[pair_row] & ~pair_mask  # other groups' cells: any value
            plan["pseudo"] = np.where(fill, 0, unit_codes[pair_row])
            plan["pair_row"], plan["pair_mask"] = pair_row, pair_mask
            plan["group_n_cols"] = pair_mask.sum(axis=1)  # the columns of each pair's group, flat
            plan["group_col_start"] = np.cumsum(plan["group_n_cols"]) - plan["group_n_cols"]
            plan["group_cols"] = np.nonzero(pair_mask)[1]
            plan["row_first_pair"], plan["n_groups"] = row_first_pair, n_groups
            plan["counts"] = group_counts[pair_group].astype(np.int64)
            families = [(*pa, node) for node, pa in enumerate(parent_idx)]
            plan["touch"] = np.column_stack(  # family f has a cell in the pair's group
                [pair_mask[:, list(f)].any(axis=1) for f in families])
            plan["observed_family"] = np.column_stack(
                [(unit_codes[:, list(f)] >= 0).all(axis=1) for f in families])
        self._plans[key] = plan
        return plan

    def _conditioning(self, missing, inverse, exact, parent_idx):
        """The rows not ``exact`` yet that become exact by conditioning (a mask over the
        rows) and their cutsets (:func:`_cutset`; a mask (rows, nodes), possibly empty
        for a row whose too-large groups are single nodes). Left to Gibbs: the rows whose
        conditioned enumeration exceeds ``max_conditioned_completions`` completions, or
        that would take the conditioned rows' total beyond ``conditioning_budget``
        (cheapest rows first)."""
        conditioned, cut_mask = np.zeros(missing.shape[0], dtype=bool), np.zeros_like(missing)
        pending = np.flatnonzero(~exact)
        if pending.size == 0 or self.e_step_kind == "gibbs":
            return conditioned, cut_mask
        neighbours = moral_neighbours(parent_idx)
        cuts = {}  # per pattern
        patterns, first = np.unique(inverse[pending], return_index=True)
        for pattern, row in zip(patterns, pending[first]):
            cuts[pattern] = _cutset(missing[row], neighbours, self.cardinalities, self.max_completions)
        cost = np.array([cuts[pattern][1] for pattern in inverse[pending]])
        bounded = cost <= self.max_conditioned_completions
        pending, cost = pending[bounded], cost[bounded]
        order = np.argsort(cost, kind="stable")
        for row in pending[order[np.cumsum(cost[order]) <= self.conditioning_budget]]:
            conditioned[row] = True
            cut_mask[row, cuts[inverse[row]][0]] = True
        return conditioned, cut_mask

    # ------------------------------------------------------------------ pieces
    def initial_cpts(self, parents, latent, random):
        """Available-case CPTs (``random=False``; families touching a latent node drawn at
        random) or Dirichlet(1)-random CPTs (``random=True``).

        The random CPTs are drawn family by family in name order, each over its parents in
        name order (:func:`_random_cpt`): the same data and ``rng`` give the same start
        for any column order of ``X``.

        The available-case CPTs are the posterior mean (``ess``) even for maximum
        likelihood: a zero entry is a fixed point of EM (its completions get posterior 0,
        hence expected count 0), so a state or parent configuration unseen in the
        available cases would stay impossible however much the completions support it.
        """
        ranks = name_ranks(self.names)
        cpts = [None] * len(parents)
        for child in np.argsort(ranks):  # the draws in name order: any column order, same start
            pa = parents[child]
            if random or latent[child] or any(latent[p] for p in pa):
                cpts[child] = _random_cpt(self.rng, self.cardinalities, child, pa, ranks)
                continue
            family = list(pa) + [child]
            rows = np.flatnonzero((self.codes[:, family] >= 0).all(axis=1))
            cpts[child] = estimate_cpt(self.codes[rows], self.cardinalities, child, list(pa),
                                       method="bayes", ess=self.ess, weights=self.weights[rows])
        return cpts

    def e_step(self, inference, joint=False):
        """Expected completions under ``inference``'s network.

        Returns ``(data, log_likelihood)``: the completed rows as a weighted
        :class:`EncodedData` (complete rows first, then the enumerated completions, then
        the Gibbs ones) and the observed-data log-likelihood :math:`\\ell(\\theta)`.
        With ``joint=False`` the rows are right for the families of ``inference``'s
        structure only (see :meth:`_plan`); ``joint=True`` gives rows right for any
        family (structure search); their :class:`~skbn._data.RowGroups` then record that
        the completions of a row share its observed cells, so the search counts those
        cells once per row and family cell rather than once per completion.
        """
        plan = self._plan(inference.parent_idx, joint)
        parts = [self.codes[self.complete_rows]]
        weights = [self.weights[self.complete_rows]]
        owners = [self.complete_rows]  # the input row each output row completes
        log_lik = _weighted_sum(self.weights[self.complete_rows],
                                inference.complete_log_joint(self.codes[self.complete_rows]))
        exact_rows = plan["exact_rows"]
        if exact_rows.size:
            row_weights = self.weights[exact_rows]
            if joint:  # the same completions for every structure: enumerated once
                if self._joint_completions is None:
                    completed, owner, starts = _completions(self.codes, exact_rows, plan["counts"],
                                                            self.cardinalities)
                    self._joint_completions = completed.astype(self._dtype), owner, starts
                completed, owner, starts = self._joint_completions
                posterior, log_marginal = _normalise_segments(
                    inference.complete_log_joint(completed), owner, starts)
                keep = posterior > 0
                completed, completion_weights = completed[keep], (row_weights[owner] * posterior)[keep]
                owners.append(exact_rows[owner[keep]])
            else:
                completed, completion_weights, log_marginal = self._grouped(inference, plan)
            parts.append(completed)
            weights.append(completion_weights)
            log_lik += _weighted_sum(row_weights, log_marginal)
        gibbs_rows = plan["gibbs_rows"]
        if gibbs_rows.size:
            if plan["gibbs"] is None:
                plan["gibbs"] = GibbsCompleter(self.codes, gibbs_rows, self.rng)
            order = _sweep_order_by_name(inference.parent_idx, self.names)
            completed, owner, share = plan["gibbs"].complete(inference, order)
            row_weights = self.weights[gibbs_rows]
            parts.append(completed)
            weights.append(row_weights[owner] * share)
            owners.append(gibbs_rows[owner])
            log_lik += _weighted_sum(row_weights, inference.log_likelihood(self.codes[gibbs_rows]))
        codes = np.asfortranarray(np.concatenate(parts).astype(self._dtype))
        groups = None
        if joint:  # the completions of a row share its observed cells (a counting shortcut)
            owner_rows = np.concatenate(owners)
            present = np.concatenate([self.complete_rows, exact_rows, gibbs_rows])
            position = np.empty(self.codes.shape[0], dtype=np.int64)
            position[present] = np.arange(present.size)
            groups = RowGroups(position[owner_rows], self.codes[present] >= 0)
        data = EncodedData(codes, self.cardinalities, self.names, np.concatenate(weights), groups)
        return data, log_lik

    def _enumerated(self, inference, plan):
        """The parameter-free part of :meth:`_grouped`, built once per plan: every group's
        completions, and for each family the completions it touches (resp. the rows
        observing it whole) with their cells' flat indices into the family's CPT."""
        if "enumerated" not in plan:
            counts = plan["counts"]
            owner = np.repeat(np.arange(counts.size), counts)
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
            completed = _enumerate(plan["pseudo"], plan["pair_mask"], owner, starts, inference.cardinalities)
            unit_codes = plan["unit_codes"]
            filled = np.where(unit_codes < 0, 0, unit_codes)
            touched, observed = [], []
            for node in range(plan["touch"].shape[1]):
                rows = np.flatnonzero(plan["touch"][owner, node])
                if rows.size:
                    touched.append((node, rows, inference.family_cells(completed[rows], node)))
                rows = np.flatnonzero(plan["observed_family"][:, node])
                if rows.size:
                    observed.append((node, rows, inference.family_cells(filled[rows], node)))
            plan["enumerated"] = owner, starts, completed.astype(self._dtype), touched, observed
        return plan["enumerated"]

    def _grouped(self, inference, plan):
        """Enumerate each independent group of each row, then couple a row's groups.

        The posterior of group :math:`g` of row :math:`n` is proportional to the product
        of the factors (families) with a cell in :math:`g`; other groups' cells do not
        appear in them. The row's groups are then *coupled* on :math:`[0, 1]`: each
        group's completions are laid end to end by cumulative posterior, and every
        interval between consecutive breakpoints (over all groups of the row) becomes one
        completed row whose weight is the interval's length. Every group's marginal, hence
        every expected family count of this structure, is exact, with
        :math:`\\sum_g |g| - G + 1` rows instead of :math:`\\prod_g |g|`.

        A row conditioned on a cutset :math:`C` (:meth:`_conditioning`) is one *unit* per
        state :math:`x_C`, with those cells observed; the above gives each unit's
        :math:`\\log p(x_o, x_C)` and its completions. The expected counts of the row are
        the sum over its units of :math:`p(x_C \\mid x_o)` times theirs, the weights
        normalised over all units of the row (:func:`_normalise_segments`), and
        :math:`p(x_o) = \\sum_{x_C} p(x_o, x_C)`. An unconditioned row is its own unit,
        of weight exactly 1.

        Returns (completed rows, their weights, log p(x_o) of each exact row).
        """
        pair_row, counts = plan["pair_row"], plan["counts"]
        owner, starts, completed, touched, observed = self._enumerated(inference, plan)
        log_factor = np.zeros(owner.size)
        for node, rows, cells in touched:
            log_factor[rows] += inference.family_log_factor_at(node, cells)
        posterior, log_z = _normalise_segments(log_factor, owner, starts)
        unit_codes = plan["unit_codes"]
        # log p(x_o, x_c) of each unit = fully observed families + sum over groups of log Z_g
        log_unit = np.zeros(unit_codes.shape[0])
        for node, rows, cells in observed:
            log_unit[rows] += inference.family_log_factor_at(node, cells)
        log_unit += np.bincount(pair_row, weights=log_z, minlength=log_unit.size)
        # a row's units (one per state x_c of its cutset) weighted by p(x_c | x_o)
        branch, log_marginal = _normalise_segments(log_unit, plan["unit_row"], plan["unit_starts"])
        unit_weights = self.weights[plan["exact_rows"]][plan["unit_row"]] * branch
        if plan["n_groups"].max() == 1:  # one group per unit: nothing to couple
            return completed, unit_weights[pair_row][owner] * posterior, log_marginal
        # couple the groups of each row: each group's cumulative posterior, summed from
        # the group's own start (a running sum over all groups loses ulp(number of
        # groups) ~ 1e-11 per breakpoint, the whole mass of a completion rarer than that)
        cum = np.clip(_segment_cumsum(posterior, starts, counts), 0.0, 1.0)
        cum[starts + counts - 1] = 1.0
        completion_row = pair_row[owner]
        order = np.lexsort((cum, completion_row))  # stable: a group's completions in order
        ends, seg_row = cum[order], completion_row[order]
        first = np.ones(ends.size, dtype=bool)
        first[1:] = seg_row[1:] != seg_row[:-1]
        begins = np.where(first, 0.0, np.concatenate([[0.0], ends[:-1]]))
        keep = ends > begins
        end_at = np.flatnonzero(keep)  # the sorted position of each interval's end
        seg_row, lengths = seg_row[keep], (ends - begins)[keep]
        n_groups = plan["n_groups"][seg_row]
        seg_rep = np.repeat(np.arange(seg_row.size), n_groups)
        local = np.arange(seg_rep.size) - np.repeat(np.cumsum(n_groups) - n_groups, n_groups)
        pair = plan["row_first_pair"][seg_row][seg_rep] + local
        # the interval ending at sorted position t (the first of its ties) lies in the
        # completion of each group whose breakpoint is the group's first at a position >= t:
        # integer positions, searched exactly (keys sorted by group, then position)
        position = np.empty(order.size, dtype=np.int64)
        position[order] = np.arange(order.size)
        stride = order.size + 1
        chosen = np.searchsorted(owner * stride + position, pair * stride + end_at[seg_rep], side="left")
        chosen = np.clip(chosen, starts[pair], starts[pair] + counts[pair] - 1)
        out = unit_codes[seg_row]
        # the cells of each chosen group: (rep, column) pairs, from the plan's per-group lists
        n_hit = plan["group_n_cols"][pair]
        hit_rep = np.repeat(np.arange(pair.size), n_hit)
        first_hit = np.cumsum(n_hit) - n_hit
        hit_col = plan["group_cols"][np.repeat(plan["group_col_start"][pair] - first_hit, n_hit)
                                     + np.arange(hit_rep.size)]
        out[seg_rep[hit_rep], hit_col] = completed[chosen[hit_rep], hit_col]
        return out, unit_weights[seg_row] * lengths, log_marginal

    def m_step(self, data, parents):
        return [estimate_cpt(data.codes, data.cardinalities, child, list(pa), method=self.method,
                             ess=self.ess, weights=data.weights)
                for child, pa in enumerate(parents)]

    def log_prior(self, cpts):
        """:math:`\\sum_{ijk} \\alpha_{ijk} \\log \\theta_{ijk}` for ``"bayes"``, else 0."""
        if self.method != "bayes":
            return 0.0
        return _dirichlet_log_prior(cpts, self.ess)

    def model(self, cpts, parents):
        """The network the E-step conditions on: variable elimination over ``cpts``."""
        return VariableElimination(cpts, parents, self.cardinalities)


class MomentEM(_EMLoop):
    r"""EM for a Gaussian or conditional linear Gaussian (CLG) network on a fixed DAG, on
    data with missing cells (NaN values of continuous columns, codes ``-1`` of discrete ones).

    **E-step (exact).** Take row :math:`n` with observed discrete cells :math:`d_o`,
    missing discrete cells :math:`d_m`, observed continuous cells :math:`x_o` and missing
    continuous cells :math:`x_m`. For every configuration :math:`\delta` of :math:`d_m`
    (enumerated), the continuous nodes are jointly normal given the full discrete
    configuration :math:`\Delta = (d_o, \delta)`, :math:`N(\mu_\Delta, \Sigma_\Delta)` (the
    linear Gaussian recursion in the configuration of their discrete parents), so

    .. math::

        p(\delta, x_o) = P(d_o, \delta)\, N(x_o; \mu_{\Delta,o}, \Sigma_{\Delta,oo}), \qquad
        x_m \mid x_o, \Delta \sim N\big(\mu_{\Delta,m} + K (x_o - \mu_{\Delta,o}),\;
        \Sigma_{\Delta,mm} - K \Sigma_{\Delta,om}\big),

    :math:`K = \Sigma_{\Delta,mo}\Sigma_{\Delta,oo}^{-1}` (the networks' own conditioning,
    :func:`skbn._continuous_network._condition_rows`, one Cholesky factorisation per
    pattern of missing continuous cells and configuration of the continuous nodes'
    discrete parents). The posterior of :math:`\delta` is :math:`p(\delta, x_o)` normalised
    over :math:`\delta`, and the normaliser is the row's likelihood :math:`p(x_o)`, the
    network's ``log_likelihood`` of the row (missing cells integrated out).

    **Expected completed data.** The sufficient statistics of every Gaussian or CLG family
    (per configuration of some discrete columns: the total weight, :math:`\sum w x` and
    :math:`\sum w x x^\top`) are sums over rows, and
    :math:`E[x x^\top \mid x_o, \Delta] = \hat x \hat x^\top + C` with :math:`\hat x` the
    completion's conditional mean and :math:`C` its conditional covariance (0 on the
    observed cells). So completion :math:`(n, \delta)` of posterior :math:`\pi` becomes the
    :math:`d + 1` rows :math:`\hat x + L v_j` (:math:`d = |x_m|`, :math:`C = L L^\top` from
    the eigendecomposition, :math:`v_j` the vertices of a regular simplex with mean 0 and
    second moment :math:`I`, :func:`_simplex`), each of weight :math:`w_n \pi / (d + 1)`
    (one row of weight :math:`w_n \pi` when nothing continuous is
    missing): their weighted mean is :math:`\hat x` and their weighted scatter about it
    :math:`w_n \pi C`. The weighted moments of the completed rows
    (:class:`~skbn._counting.MomentCounter`) and their weighted counts are then exactly the
    expected sufficient statistics, and every consumer of an :class:`EncodedData` reads
    them unchanged: the M-step is the estimators' own network fit (``fit_network``) and
    structural EM searches on the same rows. The completions are joint (every missing
    cell of the row), so the rows are right for any family, of any structure.

    **Objective** (``trace`` after :meth:`run`): the observed-data log-likelihood
    :math:`\ell(\theta) = \sum_n w_n \log p(x_o^{(n)}; \theta)` for ``method="mle"``
    (variance ``RSS / N``); for ``"bayes"`` (variance ``RSS / (N - p - 1)``, discrete CPTs
    the posterior mean) :math:`\ell(\theta)` plus the log prior
    :math:`\sum \alpha_{ijk} \log \theta_{ijk} + \sum_{v,\delta} \frac{p_v + 1}{2}
    \log \sigma^2_{v\delta}` (:math:`p_v` continuous parents), whose maximiser given the
    expected statistics is that M-step (maximising
    :math:`-\frac{N}{2}\log\sigma^2 - \frac{RSS}{2\sigma^2} + a \log \sigma^2` gives
    :math:`\sigma^2 = RSS / (N - 2a)`). Non-decreasing in both cases (Dempster, Laird &
    Rubin 1977; Lauritzen 1995 for CLG networks).

    **Bounded residual variances.** The objective need not have a maximum. Rows missing a
    node's continuous parents (or whose discrete configuration is uncertain) can be moved,
    by the E-step, onto the regression of one configuration :math:`\delta` of its discrete
    parents: once the rows that pin it are no more than its :math:`p + 1` coefficients,
    :math:`\sigma^2_{v\delta} \to 0` makes :math:`\ell` grow without bound (the
    singularity of Gaussian mixtures; Kiefer & Wolfowitz 1956, Day 1969), and EM follows
    it until the RSS is rounding (at 30% MCAR on 100 rows of bnlearn's clgaussian.test,
    12 of 40 seeded fits of the true DAG stopped with "the residual variance is 0", and
    others lowered their trace). With ``"bayes"``, when the
    rows of :math:`\delta` observing :math:`v` weigh no more than :math:`p_v + 1`, the log
    prior's :math:`(p_v + 1) \log\sigma_{v\delta}` outgrows the likelihood and
    :math:`\sigma_{v\delta} \to \infty` instead. So EM maximises over the parameters
    whose residual variances lie in :math:`[\epsilon s_v^2, s_v^2 / \epsilon]`,
    :math:`s_v^2` the weighted variance of :math:`v`'s observed cells (a constant of the
    data) and :math:`\epsilon` = :data:`VARIANCE_BOUND` (Hathaway 1985's constrained
    maximum likelihood, with bounds relative to the column's spread, so that they do not
    depend on its unit). The M-step stays exact: for any :math:`\sigma^2` the best
    coefficients are the least-squares ones, and in :math:`\sigma^2` the expected
    complete-data objective :math:`-\frac{N - 2a}{2}\log\sigma^2 - \frac{RSS}{2\sigma^2}`
    is unimodal with its peak at :math:`RSS / (N - 2a)`, so its maximum over the interval
    is that value clipped to it (:func:`skbn._continuous_network._family_parameters`). The
    start is fitted within the bounds too, the objective is bounded, and every step
    still increases it. A bound that holds in the returned parameters is reported by a
    warning naming the column and the configurations; where none is reached, the
    parameters are those of the unbounded EM, bit for bit. Data without a missing cell
    have no bounds: their objective is the complete-data likelihood, maximised by the
    plain fit (a column nearly a linear function of others, 1 - R^2 = 4e-10 in pscl's
    ``vote92``, keeps its residual variance instead of the floor's 1e-6 of its spread).

    **Configurations with too few expected rows.** The learners' rule for a configuration
    whose (expected) rows weigh no more than its :math:`p + 1` coefficients is the
    regression over all the child's rows
    (:meth:`skbn.estimators._base._BaseStructureLearner._regressions`); EM's start uses it.
    That regression does not maximise the configuration's term of the expected
    complete-data objective, so taking it in an M-step could lower :math:`\ell`; the
    M-step (``fit_network(..., current=network)``) keeps such a configuration's current
    regression instead. Its term is then unchanged and the others maximised: a generalised
    EM step (Dempster, Laird & Rubin 1977, section 3), which never decreases the objective.

    Parameters
    ----------
    data : EncodedData
        The incomplete data (``values`` not None).
    fit_network : callable
        ``fit_network(data, parents, family_data=None, *, variance_bounds=None, current=None)
        -> network``: the estimator's fit of the Gaussian or CLG network with parent tuples
        ``parents`` from complete weighted ``data``; with ``family_data`` (one
        :class:`EncodedData` per node) the family of node ``i`` is estimated from
        ``family_data[i]``, discrete CPTs as the posterior mean; ``variance_bounds`` (per
        node, ``(low, high)`` or None) and ``current`` (the E-step's network): see
        "Bounded residual variances" and "Configurations with too few expected rows".
    weights : float ndarray (n_samples,) or None
    method : {"mle", "bayes"}
        The estimator's ``parameter_estimator`` (what ``fit_network`` does); decides the
        traced objective.
    ess : float
        ``parameter_ess`` (the Dirichlet prior of the discrete CPTs).
    rng : numpy RandomState
        Random initialisations.
    """

    def __init__(self, data, fit_network, weights, method, ess, rng):
        self.fit_network = fit_network
        self.names = tuple(data.names)
        self.cardinalities = np.asarray(data.cardinalities, dtype=np.int64)
        self.continuous = self.cardinalities == 0
        self.codes = np.asarray(data.codes, dtype=np.int64)
        self.values = np.asarray(data.values, dtype=np.float64)
        n = self.codes.shape[0]
        self.weights = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
        self.method, self.ess, self.rng = method, ess, rng
        self.missing = np.where(self.continuous, np.isnan(self.values), self.codes < 0)
        seen = (~self.missing & (self.weights > 0)[:, None]).any(axis=0)
        if not seen.all():
            raise ValueError(no_observed_value_message(
                [self.names[j] for j in np.flatnonzero(~seen)], why="in the rows of positive weight"))
        self._discrete = np.flatnonzero(~self.continuous)
        self._continuous = np.flatnonzero(self.continuous)
        spreads = _observed_variances(self.values, self.missing, self.weights, self.continuous)
        # (no missing cell: the complete-data likelihood, whose maximum is the plain fit)
        self.variance_bounds = (_variance_bounds(spreads) if self.missing.any()
                                else [None] * len(spreads))
        # the log-density of the observed cells of column v in units of their spread s_v:
        # rescaling v by c adds -W_v log c to the log-likelihood (W_v the weight of its
        # observed cells) and W_v log c to this offset (:meth:`scale`)
        observed = (~self.missing * self.weights[:, None]).sum(axis=0)
        self._unit_offset = sum(0.5 * observed[j] * np.log(spread)
                                for j, spread in enumerate(spreads) if spread)
        self._observed_cells = float(observed[self.continuous].sum())
        self._current = None  # the network of the last E-step (the M-step's held regressions)
        # the completions of the missing discrete cells: the same for every network
        block = self.codes[:, self._discrete]
        n_completions = _n_completions(block, self.cardinalities[self._discrete])
        if n_completions.max(initial=1) > MAX_CONDITIONED_COMPLETIONS or \
                n_completions.sum() > CONDITIONING_BUDGET:
            worst = int(np.argmax(n_completions))
            raise ValueError(
                f"missing='em' with continuous columns enumerates the configurations of every "
                f"row's missing discrete cells, and row {worst} alone has {n_completions[worst]:.3g} "
                f"(all rows: {n_completions.sum():.3g}; at most {MAX_CONDITIONED_COMPLETIONS} per row "
                f"and {CONDITIONING_BUDGET} in all). Drop the rows missing many discrete cells.")
        completed, self._owner, self._starts = _completions(
            block, np.arange(n), n_completions, self.cardinalities[self._discrete])
        self._completed = completed.astype(_code_dtype(self.cardinalities))
        self._patterns, self._pattern_id = np.unique(self.missing[:, self._continuous], axis=0,
                                                     return_inverse=True)
        self._pattern_id = self._pattern_id.ravel().astype(np.int64)

    def reset_chain(self):
        """Nothing to forget: the E-step draws nothing."""

    def model(self, network, parents):
        """The network itself (the E-step conditions on its joint); the next M-step holds
        its regressions where it cannot estimate new ones."""
        self._current = network
        return network

    def _fit(self, data, parents, family_data=None, current=None):
        """``fit_network`` within the variance bounds (class docstring)."""
        return self.fit_network(data, parents, family_data, variance_bounds=self.variance_bounds,
                                current=current)

    def _data(self, codes, values, weights):
        """Complete weighted rows as :class:`EncodedData` (Fortran order, small codes)."""
        return EncodedData(np.asfortranarray(codes.astype(_code_dtype(self.cardinalities))),
                           self.cardinalities, self.names, weights, values=np.asfortranarray(values))

    def initial_cpts(self, parents, latent, random):
        """The starting network (the hook :meth:`run`'s caller shares with
        :class:`ParameterEM`).

        ``random=False``: the available-case estimate, each family fitted on the rows
        observing all of its cells (discrete CPTs as the posterior mean, as
        :meth:`ParameterEM.initial_cpts` does); when some family cannot be fitted so (a
        configuration of a continuous node's discrete parents with too few such rows), the
        fit on the data with every missing cell replaced by its column's weighted mean
        (continuous) or most frequent state (discrete). ``random=True``: the fit on the
        data with every missing cell replaced by the cell of a random row observing the
        column (a random hot-deck completion). The columns draw their donors in name order
        (:func:`skbn._data.name_ranks`), and the missing cells of a column and its donor
        rows are taken in the canonical row order (:func:`_canonical_rows`), so the same
        data and ``rng`` give the same start for any column order and any row order of
        ``X`` (as :meth:`ParameterEM.initial_cpts`).
        """
        codes = np.where(self.missing, 0, self.codes)
        values = np.where(self.missing, 0.0, self.values)
        incomplete = self.missing.any(axis=0)
        order = (_canonical_rows(np.arange(codes.shape[0]), self.codes, self.weights, self.names,
                                 self.values) if random else np.arange(codes.shape[0]))
        holes = [(j, order[self.missing[order, j]], order[~self.missing[order, j]])
                 for j in np.argsort(name_ranks(self.names)) if incomplete[j]]
        if random:
            for j, rows, donors in holes:
                pick = donors[self.rng.randint(donors.size, size=rows.size)]
                codes[rows, j], values[rows, j] = codes[pick, j], values[pick, j]
            return self._fit(self._data(codes, values, self.weights), parents)
        family_data = []
        for child, pa in enumerate(parents):
            rows = np.flatnonzero(~self.missing[:, [*pa, child]].any(axis=1))
            family_data.append(self._data(codes[rows], values[rows], self.weights[rows]))
        try:
            return self._fit(self._data(codes, values, self.weights), parents, family_data)
        except ValueError:  # a family the available cases cannot fit: a mean / mode fill
            for j, rows, donors in holes:
                if self.continuous[j]:
                    values[rows, j] = np.average(self.values[donors, j], weights=self.weights[donors])
                else:
                    codes[rows, j] = np.argmax(np.bincount(self.codes[donors, j], self.weights[donors],
                                                           minlength=self.cardinalities[j]))
            return self._fit(self._data(codes, values, self.weights), parents)

    def e_step(self, network, joint=False):
        """Expected completed rows under ``network`` (see the class docstring).

        Returns ``(data, log_likelihood)``: the weighted rows as :class:`EncodedData`
        (grouped by pattern of missing continuous cells; their moments and counts are the
        expected sufficient statistics of any family, whatever ``joint``) and
        :math:`\\ell(\\theta)`.
        """
        owner, completed = self._owner, self._completed
        log_joint = np.zeros(owner.size)
        if self._discrete.size:
            log_joint += network.discrete_network._complete_log_joint(completed)
        names = [self.names[i] for i in self._continuous]
        order = [v for v in network.topological_order() if v in set(names)]
        position = {v: k for k, v in enumerate(order)}
        permutation = [position[v] for v in names]
        # the discrete parents of the continuous nodes: their configuration picks the joint
        dpa = sorted({self.names.index(p) for v in names for p in network._dpa[v]})
        dpa_columns = np.searchsorted(self._discrete, dpa)
        # group the completions by (pattern of missing continuous cells, configuration of dpa)
        n_configs = float(np.prod(self.cardinalities[dpa].astype(float)))
        if n_configs * len(self._patterns) < 2.0 ** 62:  # a mixed-radix id fits in int64
            config_id = (np.ravel_multi_index(tuple(completed[:, dpa_columns].T),
                                              tuple(int(r) for r in self.cardinalities[dpa]))
                         if dpa else np.zeros(owner.size, dtype=np.int64))
        else:  # too many declared configurations: number the observed ones
            config_id = np.unique(completed[:, dpa_columns], axis=0, return_inverse=True)[1].ravel()
            n_configs = float(config_id.max() + 1)
        key = self._pattern_id[owner] * int(n_configs) + config_id
        by_group = np.argsort(key, kind="stable")
        starts = np.flatnonzero(np.diff(key[by_group], prepend=-1))
        bounds = np.append(starts, owner.size)
        components, groups = {}, []
        values = self.values[:, self._continuous]
        for g, first in enumerate(starts):
            rows = by_group[first:bounds[g + 1]]
            pattern = self._patterns[self._pattern_id[owner[rows[0]]]]
            config = tuple(int(c) for c in completed[rows[0], dpa_columns])
            if config not in components:
                mu, cov = network._component(order, {self.names[d]: c for d, c in zip(dpa, config)})
                components[config] = mu[permutation], cov[np.ix_(permutation, permutation)]
            mu, cov = components[config]
            lost, kept = np.flatnonzero(pattern), np.flatnonzero(~pattern)
            means, covariance, log_density = _condition_rows(
                mu, cov, lost, kept, values[owner[rows]][:, kept])
            log_joint[rows] += log_density
            groups.append((rows, lost, means, covariance))
        posterior, log_marginal = _normalise_segments(log_joint, owner, self._starts)
        log_lik = _weighted_sum(self.weights, log_marginal)
        mass = self.weights[owner] * posterior
        parts = []
        for rows, lost, means, covariance in groups:
            rows, means = rows[mass[rows] > 0], means[mass[rows] > 0]
            copies = lost.size + 1
            filled = np.repeat(values[owner[rows]], copies, axis=0)
            if lost.size:
                factor = _covariance_factor(covariance)  # C = L L^T
                offsets = _simplex(lost.size) @ factor.T  # (d + 1, d): the rows L v_j
                filled[:, lost] = np.repeat(means, copies, axis=0) + np.tile(offsets, (rows.size, 1))
            parts.append((np.repeat(rows, copies), filled, np.repeat(mass[rows] / copies, copies)))
        source = np.concatenate([p[0] for p in parts])
        codes = np.zeros((source.size, len(self.names)), dtype=_code_dtype(self.cardinalities), order="F")
        codes[:, self._discrete] = completed[source]
        out_values = np.zeros((source.size, len(self.names)), order="F")
        out_values[:, self._continuous] = np.concatenate([p[1] for p in parts])
        weights = np.concatenate([p[2] for p in parts])
        return EncodedData(codes, self.cardinalities, self.names, weights, values=out_values), log_lik

    def m_step(self, data, parents):
        """The estimator's network fit on the expected completed rows, within the variance
        bounds, holding the current regression of a configuration it cannot estimate."""
        return self._fit(data, parents, current=self._current)

    def report(self, network):
        """Warn, naming the column and configurations, where a residual variance of
        ``network`` (the returned parameters) is at a bound (class docstring)."""
        if network is None:
            return
        for j in self._continuous:
            if self.variance_bounds[j] is None:  # (no missing cell: no bounds)
                continue
            name, (low, high) = self.names[j], self.variance_bounds[j]
            sigma = np.asarray(network.sigmas[name], dtype=float)
            variance = sigma ** 2
            for bound, at, label, why in (
                    (low, variance <= low * (1 + 1e-9), f"its floor, {VARIANCE_BOUND:g}",
                     "the likelihood grows without bound as that variance shrinks (the regression "
                     "there can pass through the few rows that pin it)"),
                    (high, variance >= high * (1 - 1e-9), f"its ceiling, {1 / VARIANCE_BOUND:g}",
                     "the log-posterior of parameter_estimator='bayes' grows without bound as that "
                     "variance grows (the rows there observing the column weigh no more than the "
                     "regression's coefficients)")):
                if not at.any():
                    continue
                where = ""
                dpa = list(getattr(network, "discrete_parents", {}).get(name, ()))
                if dpa:
                    configs = [repr({p: network.states[p][k] for p, k in zip(dpa, index)})
                               for index in np.argwhere(at)]
                    where = (f" in {len(configs)} configuration(s) of its discrete parents "
                             f"({', '.join(configs[:5])}{', ...' if len(configs) > 5 else ''})")
                warn_user(
                    f"EM: the residual variance of column {name!r}{where} is held at {label} x "
                    f"the variance of its observed cells ({bound:.6g}): {why}, so EM maximises "
                    "within these bounds (docs/gaussian.md, 'Few rows behind a configuration'). Few "
                    "rows inform that regression; fewer parents, merged states or more rows avoid it."
                )

    def log_prior(self, network):
        """0 for ``"mle"``; for ``"bayes"`` :math:`\\sum \\alpha_{ijk} \\log \\theta_{ijk}`
        over the discrete CPTs plus :math:`\\sum_{v, \\delta} (p_v + 1) \\log \\sigma_{v\\delta}`
        over the continuous nodes (see the class docstring)."""
        if self.method != "bayes":
            return 0.0
        total = _dirichlet_log_prior(list(getattr(network, "cpts", {}).values()), self.ess)
        for _, coefficients, sigma in network._params.values():
            total += (coefficients.shape[1] + 1) * float(np.sum(np.log(sigma)))
        return total

    def scale(self, objective, log_lik):
        """The stopping rule's scale on continuous columns, in nats: the size of the
        log-likelihood of the observed cells with each continuous column in units of its
        observed spread, ``|log_lik + sum_v W_v log s_v|``, and at least ``sum_v W_v`` (one
        nat per observed continuous cell, so that a log-likelihood near 0 in those units
        does not hold EM to ``max_iter``). ``|objective|`` depended on the units: rescaling
        a column by ``c`` shifts the log-likelihood by ``-W_v log c`` but leaves its change
        over an iteration as it is, so EM stopped earlier in millimetres than in metres and
        gave other parameters (on 1,000 rows with 30% missing, 4 iterations against 5 and
        log-densities 0.008 apart). The change of the objective is the same in any unit
        (the log prior's unit terms are constant for one DAG), so the rule now is too."""
        return max(abs(log_lik + self._unit_offset), self._observed_cells)

    change_of = ("of the log-likelihood's size with each continuous column in units of its "
                 "observed spread")


def _variance_bounds(spreads):
    """Per column, ``(low, high)`` = ``(VARIANCE_BOUND, 1 / VARIANCE_BOUND)`` times the
    weighted variance of its observed cells (``spreads``, :func:`_observed_variances`), or
    None for a discrete column: the bounds of :class:`MomentEM`'s residual variances."""
    return [None if spread is None else
            (VARIANCE_BOUND * spread, spread / VARIANCE_BOUND if spread > 0 else np.inf)
            for spread in spreads]


def _observed_variances(values, missing, weights, continuous):
    """Per column, the weighted variance of its observed cells (rows of positive weight; 0
    with fewer than two), or None for a discrete column: the scale of :class:`MomentEM`'s
    residual-variance bounds (:func:`_variance_bounds`) and of its stopping rule."""
    spreads = []
    for j in range(values.shape[1]):
        if not continuous[j]:
            spreads.append(None)
            continue
        seen = ~missing[:, j] & (weights > 0)
        spread = 0.0
        if seen.sum() > 1:  # (the counting engine's weighted moments of the observed cells)
            spread = float(moments(values[seen, j:j + 1], weights[seen]).covariance()[0, 0, 0])
        spreads.append(spread)
    return spreads


def _covariance_factor(covariance):
    """A factor ``L`` of a positive semi-definite ``C = L L^T`` (conditional covariances of
    a row's missing cells), from the eigendecomposition of ``C`` scaled to unit diagonal:
    ``L = D V sqrt(Lambda)`` with ``D`` the standard deviations. Scaling a column by ``c``
    scales its row of ``L`` by ``c`` to rounding. The eigendecomposition of ``C`` itself
    did not: with one column in units a million times smaller, its rounding (relative to
    the largest eigenvalue) swamped the other columns' entries, and EM's fit changed with
    the units (log-densities 2e-5 apart after one iteration, a trace that decreased)."""
    scale = np.sqrt(np.diagonal(covariance)).copy()
    scale[scale == 0] = 1.0
    eigenvalues, vectors = np.linalg.eigh(covariance / np.outer(scale, scale))
    return scale[:, None] * vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))


@functools.cache
def _simplex(d):
    """The ``d + 1`` vertices :math:`v_j` (rows) of a regular simplex in :math:`R^d` with mean
    0 and :math:`\\frac{1}{d+1} \\sum_j v_j v_j^\\top = I`: :math:`\\sqrt{d+1}` times an
    orthonormal basis of the complement of :math:`\\mathbf 1` in :math:`R^{d+1}` (the
    eigenvectors of the centring matrix for eigenvalue 1), transposed."""
    centring = np.eye(d + 1) - 1.0 / (d + 1)
    basis = np.linalg.eigh(centring)[1][:, 1:]  # eigenvalues 0, then 1 (d times)
    return np.sqrt(d + 1) * basis


def _dirichlet_log_prior(cpts, ess):
    """:math:`\\sum_{ijk} \\alpha_{ijk} \\log \\theta_{ijk}`, :math:`\\alpha_{ijk} = \\mathrm{ess} /
    (q_i r_i)`: the log-density (up to a constant) of the Dirichlet prior whose posterior
    mode is the ``"bayes"`` CPT estimate (the posterior mean under ``ess``)."""
    total = 0.0
    for cpt in cpts:
        with np.errstate(divide="ignore"):
            total += ess / cpt.size * float(np.sum(np.log(cpt)))
    return total


def _weighted_sum(weights, values):
    """``sum w * v`` with ``0 * -inf = 0`` (rows of weight 0 do not count)."""
    active = weights > 0
    return float(np.sum(weights[active] * values[active]))


def fit_em(codes, cardinalities, names, parents, latent, *, weights, method, ess, e_step,
           n_init, max_iter, tol, rng, progress=None, values=None, fit_network=None, report=True,
           learner="EM", settable=True):
    """Parameter EM with ``n_init`` initialisations; the best final objective wins.

    The first initialisation is the available-case estimate (random for families
    touching a latent node), the others Dirichlet-random CPTs (with continuous columns:
    random hot-deck completions, see :meth:`MomentEM.initial_cpts`).

    ``values`` (the continuous columns, NaN = missing; None for discrete data) and
    ``fit_network`` (the estimator's network fit, see :class:`MomentEM`) switch to the
    EM of Gaussian and CLG networks, :class:`MomentEM`.

    Returns
    -------
    cpts : list of ndarray, node order (with continuous columns: the fitted network)
    trace : ndarray, objective per iteration of the winning run
    data : EncodedData, expected completions under ``cpts``

    ``progress`` (a :class:`skbn.utils._progress.Progress`) hears of every iteration;
    ``report``: warn about the returned parameters (:meth:`MomentEM.report`) and, naming
    ``learner`` (``settable``: as :func:`warn_not_converged`), when the winning run stopped
    at ``max_iter`` before converging; structural EM reports on its last graph's instead.
    """
    em = _make_em(codes, cardinalities, names, values, fit_network, weights=weights, method=method,
                  ess=ess, e_step=e_step, rng=rng)
    best = None
    for init in range(n_init):
        em.reset_chain()
        start = em.initial_cpts(parents, latent, random=init > 0)
        cpts, trace, data = em.run(parents, start, max_iter, tol, progress)
        if best is None or trace[-1] > best[1][-1]:
            best, change = (cpts, trace, data), em.last_change
    if report:
        em.report(best[0])
        warn_not_converged(change, max_iter, tol, learner, settable, em.change_of)
    return best


def warn_not_converged(change, max_iter, tol, learner="EM", settable=True, change_of="of its size"):
    """Warn (``ConvergenceWarning``) that parameter EM stopped at ``max_iter`` iterations
    while the objective still changed by ``change`` of its scale (:meth:`_EMLoop.scale`,
    ``change_of`` in words: :attr:`_EMLoop.change_of`), more than ``tol``
    (:meth:`_EMLoop.run`'s rule); nothing when ``change`` is None. ``settable``: whether
    ``learner`` has the parameter ``em_max_iter`` (PC's available case runs EM with the
    defaults)."""
    if change is None:
        return
    remedy = ("increase em_max_iter to let EM converge" if settable else
              "to run EM longer, fit FixedStructure(edges=model.edges_, missing='em', "
              "em_max_iter=...) on the same data")
    warn_user(
        f"{learner}: parameter EM did not converge: after em_max_iter={max_iter} iterations the "
        f"objective (em_trace_) still changed by {change:.3g} {change_of}, more than "
        f"em_tol={tol:g}. The parameters of the last iteration are returned; {remedy}.",
        ConvergenceWarning)


def _make_em(codes, cardinalities, names, values, fit_network, *, weights, method, ess, e_step, rng):
    """:class:`MomentEM` when there are continuous columns (``values``), else :class:`ParameterEM`."""
    if values is None:
        return ParameterEM(codes, cardinalities, names, weights, method, ess, e_step, rng)
    data = EncodedData(codes, np.asarray(cardinalities), tuple(names), values=values)
    return MomentEM(data, fit_network, weights, method, ess, rng)


def parents_of(edges, n_variables):
    """Sorted parent tuples of every node of the DAG ``edges`` (``(parent, child)`` positions)."""
    parents = [[] for _ in range(n_variables)]
    for parent, child in edges:
        parents[child].append(parent)
    return [tuple(sorted(pa)) for pa in parents]


def unobserved_configurations(codes, cardinalities, parents, continuous, latent, limit=4096):
    """``{child: [configuration]}``: for every child with discrete parents (none of them, nor
    the child, latent), the configurations of its discrete parents (code tuples, in the
    order of ``parents[child]``) in which no row observes the child, a row with missing
    parent cells counting for every configuration it agrees with. The observed-data
    likelihood does not depend on the child's parameters there, so EM keeps whatever values
    it started from. Children with more than ``limit`` configurations are not examined."""
    out = {}
    for child, family in enumerate(parents):
        discrete = [q for q in family if not continuous[q]]
        if not discrete or latent[child] or any(latent[q] for q in discrete):
            continue
        shape = tuple(int(cardinalities[q]) for q in discrete)
        if np.prod(shape, dtype=np.float64) > limit:
            continue
        seen = np.zeros(shape, dtype=bool)
        for row in np.unique(codes[codes[:, child] >= 0][:, discrete], axis=0):
            seen[tuple(slice(None) if k < 0 else int(k) for k in row)] = True
        if not seen.all():
            out[child] = [tuple(int(k) for k in config) for config in np.argwhere(~seen)]
    return out


def _complete_row_start(data, search, latent, progress):
    """The graph structural EM starts from: ``search`` on the rows without a missing cell
    (sorted position pairs), or the empty graph when fewer than two rows are complete, no
    more rows are complete than there are continuous columns, a column is latent (never
    observed), or the search refuses those rows (a ``ValueError``: a column constant there,
    say). Returns ``(edges, rows)``: ``rows`` the complete rows the graph was learned from
    (:class:`EncodedData`), None for the empty graph.

    ``N`` complete rows of ``p >= N`` continuous columns span at most ``N - 1`` dimensions
    once centred: every column is then an exact linear function of any ``N - 1`` others,
    and a Gaussian score's search on them takes families that nearly interpolate the few
    rows (``bic-g``: 233 edges from the 8 complete rows of 1,000 rows of the 46-node
    ``ecoli70`` network with 10% MCAR cells). Structural EM then climbs from that graph to
    a local optimum below the one it reaches from the empty graph: 115 edges, observed-data
    BIC -38,927.7 against 93 edges and -38,833.4 (CPDAG SHD to the true graph 91 against
    75); on ``magic-niab`` (44 columns, 10 complete rows) 74 edges and -43,778.7 against 63
    and -43,761.2.

    From the empty graph the first E-step completes every missing cell independently of the
    others, so the expected counts of a family mix the rows where it is observed with
    product-of-margins mass, and a dependence observed on a share ``w`` of the rows enters
    the first search with a likelihood gain of roughly ``w**2`` of its own: the search can
    add nothing, and the loop stops at once (mice's ``boys``: ``gen`` and ``phb``, missing
    together in 502 of 748 rows, gain 60.7 against a BIC penalty of 66.2, where their
    244 complete rows alone gain 208.6). Each later search still starts from the current
    graph, and the M-step's parameters are EM's on all rows. ``progress`` hears of it.
    """
    keep = None if any(latent) else complete_row_mask(data)
    n_complete = 0 if keep is None else int(np.count_nonzero(keep))
    n_continuous = int(np.count_nonzero(data.continuous)) if data.has_continuous else 0
    if n_complete < 2 or n_complete <= n_continuous:
        if n_complete >= 2:
            progress.message(f"start: the empty graph ({n_complete} complete rows, no more than "
                             f"the {n_continuous} continuous columns)")
        return [], None
    rows = kept_rows(data, keep)
    try:
        with progress.nested():
            edges = sorted(search(rows, None))
    except ValueError:
        return [], None
    progress.message(f"start: the search on the {amount(n_complete, 'complete row')}, "
                     f"{amount(len(edges), 'edge')}")
    return edges, rows


def _family_lost_to_completion(family_scores, learned_from, completed, edges):
    """The first family ``(child, parents)`` of the DAG ``edges`` (positions) whose score is
    ``-inf`` on the E-step's ``completed`` rows though finite on ``learned_from``, the data
    its search learned the graph from; None when there is none (or ``learned_from`` is
    None: the empty start graph). ``family_scores(data, families)``: the learner's scores of
    the continuous children's families on ``data`` (only a continuous child's score has a
    ``-inf`` rule, for a configuration of its discrete parents with no more weight than its
    regression's coefficients)."""
    if learned_from is None:
        return None
    parents = parents_of(edges, completed.n_variables)
    families = [(child, parents[child]) for child in np.flatnonzero(completed.continuous).tolist()]
    if not families:  # (discrete children: no -inf rule)
        return None
    lost = [family for family, score in zip(families, family_scores(completed, families))
            if score == -np.inf]
    if not lost:
        return None
    before = family_scores(learned_from, lost)
    return next((family for family, score in zip(lost, before) if score > -np.inf), None)


def _accepts(family_scores, completed, edges, new_edges):
    """Friedman's acceptance rule: whether the graph ``new_edges`` scores higher than the
    current graph ``edges`` on the E-step's ``completed`` rows. Only the families whose
    parent sets differ are scored (the others add the same to both graphs): the new graph's
    sum of them must beat the current graph's by the searches' improvement rule
    (:func:`skbn._engines._search.improves`, more than ``1e-10 (1 + |s|)``, ``s`` the
    current graph's sum; a family at ``-inf`` makes it ``-inf``, which only a finite sum
    beats). Local scores of discrete families are at most 0, so ``|s|`` is at most the size
    of the whole score, which a search's every move beats by its tolerance: a search that
    starts from the current graph and only improves it (hill climbing, tabu) always passes.
    ``family_scores(data, families)``: the search's local scores."""
    p = completed.n_variables
    old, new = parents_of(edges, p), parents_of(new_edges, p)
    changed = [child for child in range(p) if old[child] != new[child]]
    scores = family_scores(completed, [(child, old[child]) for child in changed]
                           + [(child, new[child]) for child in changed])
    return improves(math.fsum(scores[len(changed):]), math.fsum(scores[:len(changed)]))


def structural_em(data, search, *, latent, weights, method, ess, e_step, n_init, max_iter, tol, rng,
                  fit_parameters=True, progress=None, fit_network=None, family_scores=None,
                  learner="structural EM"):
    """Structural EM (Friedman 1997, 1998) around any structure search.

    Start from the graph ``search`` learns on the complete rows (:func:`_complete_row_start`;
    the empty graph when there are none) with EM parameters on every row (:func:`fit_em`,
    ``n_init`` initialisations); then repeat -- E-step under the current network (every joint
    completion of a row as a weighted row, so that any candidate family's expected counts
    are right), ``search`` on them, M-step for the new graph on the same expected counts --
    until the search returns the graph it started from, or a graph the acceptance rule
    turns down, or after ``max_iter`` searches (then with a ``ConvergenceWarning`` naming
    ``learner`` and ``em_max_iter``); finally parameter EM to convergence (``max_iter``,
    ``tol``) on the last graph (skipped with ``fit_parameters=False``).

    **Acceptance rule** (Friedman 1997, 1998). The search's graph :math:`G'` replaces the
    current :math:`G` only if it scores higher on the same completions :math:`\\tilde D`,
    :math:`s(G' : \\tilde D) > s(G : \\tilde D) + 10^{-10} (1 + |s(G : \\tilde D)|)` with
    :math:`s` the sum of the search's local scores (``family_scores``) over the families whose
    parent sets differ (:func:`_accepts`, the searches' rule
    :func:`~skbn._engines._search.improves`); otherwise the loop ends at :math:`G`.
    A search that does not start from the current graph (MMHC, K2, GES, Chow-Liu, exact)
    could otherwise return a worse graph and two graphs alternate until ``max_iter`` (MASS's
    Cars93 with MMHC: 100 searches). Hill climbing, which starts from :math:`G` and takes only
    moves raising the whole score by more than its tolerance, passes (:func:`_accepts`).
    For a score whose log-likelihood term is the maximised expected log-likelihood (``bic``,
    ``aic``, ``loglik``) with maximum-likelihood M-steps and the exact E-step, EM's inequality
    :math:`\\ell(G', \\theta') - \\ell(G, \\theta) \\ge Q(G', \\theta') - Q(G, \\theta)` makes the
    observed-data penalised log-likelihood :math:`\\ell - \\mathrm{penalty}` rise strictly
    with every adopted graph; ``trace`` (:math:`\\ell`, plus the log prior with ``"bayes"``)
    can fall from one graph to the next. For BDeu and BGe the score of the expected counts
    approximates the expected score (Friedman 1998): each adopted graph scores higher on the
    completions it was chosen on, and no observed-data quantity is guaranteed to rise.

    **A family the completions make -inf.** Friedman's guarantee (a graph that scores higher
    on the expected completions scores higher on the observed data) holds for scores that
    are expected log-likelihoods. The unbiased-variance Gaussian and CLG scores (bnlearn's
    ``bic-g``, ``bic-cg``, ...) add a rule: a configuration of a continuous child's discrete
    parents holding no more weight than its regression has coefficients scores ``-inf``.
    Incomplete rows, completed by the E-step, can put such a weight into a configuration
    the rows the current graph was learned from leave empty (the one flight of
    nycflights13 at 1 a.m., cancelled, its delays missing: ``arr_delay`` given ``month``,
    ``hour``), and the current graph then scores ``-inf`` on the completions although
    the observed rows hold nothing against it: a search would drop the family for the
    rule's sake, not the data's, to a graph whose observed-data likelihood is lower
    (by 37,700 there). So before each search, when a family of the current graph is
    ``-inf`` on the completions but finite on the data its search learned it from
    (:func:`_family_lost_to_completion`, with ``family_scores``), the loop stops there,
    keeping the current graph, with a warning naming the family.

    Parameters
    ----------
    data : EncodedData
        The incomplete data (``-1`` = missing cell, latent columns all ``-1``); its target
        (``data.target``, ``data.target_from_y``) is carried to every completion.
    search : callable
        ``search(completed, start) -> list of (parent, child)``: the learner's search on
        the completed (weighted) data, ``start`` the current graph (position pairs; None
        for the empty graph), which a search may start from.
    latent : list of bool
        Whether each column is a latent variable (random initial CPTs around it).
    weights, method, ess, e_step, n_init, rng
        As for :func:`fit_em` (``weights``: the rows' weights, None = 1).
    max_iter : int
        Largest number of searches, and of final parameter-EM iterations.
    tol : float
        Relative tolerance of the final parameter EM.
    fit_parameters : bool, default=True
        Run the final parameter EM.
    progress : Progress or None
        Hears of every EM iteration and search (the search's own lines one level lower).
    fit_network : callable or None
        With continuous columns (``data.values``), the estimator's network fit
        (:class:`MomentEM`); the E-step's rows then carry the expected moments, and the
        ``cpts`` returned are the fitted network.
    family_scores : callable or None
        ``family_scores(data, families) -> list of float``: the search's local score of each
        ``(child, parents)`` on ``data``, for the acceptance rule and the -inf rule above
        (None: neither is checked, and every graph the search returns is adopted).
    learner : str, default="structural EM"
        The learner's name, for the ``ConvergenceWarning``.

    Returns
    -------
    edges : sorted list of (parent, child) positions
    cpts : list of ndarray, node order (the M-step's for ``edges``, or the final EM's)
    trace : ndarray
        The objective (observed-data log-likelihood plus log prior) after every step: the
        first parameter EM, one value per adopted graph, the final parameter EM.
    """
    progress = Progress(0, "structural EM") if progress is None else progress
    codes = np.asarray(data.codes, dtype=np.int64)
    p = data.n_variables
    settings = dict(weights=weights, method=method, ess=ess, e_step=e_step)
    edges, learned_from = _complete_row_start(data, search, latent, progress)
    moments = dict(values=data.values, fit_network=fit_network)
    cpts, trace, _ = fit_em(codes, data.cardinalities, data.names, parents_of(edges, p), latent,
                            n_init=n_init, max_iter=max_iter, tol=tol, rng=rng, **settings,
                            progress=progress, **moments, report=False)
    traces = [trace]
    em = _make_em(codes, data.cardinalities, data.names, **moments, rng=rng, **settings)
    recorded = True  # (whether the trace holds the current graph's objective)
    for step in range(max_iter):
        completed, log_lik = em.e_step(em.model(cpts, parents_of(edges, p)), joint=True)
        completed = replace(completed, target=data.target, target_from_y=data.target_from_y)
        if step:  # the first network's objective ends the first trace
            traces.append([log_lik + em.log_prior(cpts)])
        lost = None if family_scores is None else _family_lost_to_completion(
            family_scores, learned_from, completed, edges)
        if lost is not None:
            child, parents = lost
            names = data.names
            source = "the previous search" if step else "the complete rows"
            warn_user(
                f"Structural EM stopped at the graph learned on {source}: on the E-step's "
                f"expected completions, the family of {names[child]!r} given "
                f"{[names[q] for q in parents]} scores -inf, though it is finite on the rows "
                f"that graph was learned from. Completed incomplete rows put into a "
                f"configuration of its discrete parents no more weight than its regression has "
                f"coefficients, which the score's rule for too few rows makes -inf; a search "
                f"would drop the family for that rule's sake, not the data's. The graph is "
                f"kept (see docs/missing.md, structural EM).")
            break
        with progress.nested():
            new_edges = sorted(search(completed, edges or None))
        progress.message(f"structure search {step + 1}: {amount(len(new_edges), 'edge')}, "
                         f"objective {log_lik + em.log_prior(cpts):.6f}")
        progress.update(progress.done, search=step + 1, edges=len(new_edges))
        if new_edges == edges:
            break
        if family_scores is not None and not _accepts(family_scores, completed, edges, new_edges):
            progress.message(f"structure search {step + 1}: its graph scores no higher on the "
                             f"completions than the current one, which is kept")
            break
        edges, learned_from = new_edges, completed
        cpts = em.m_step(completed, parents_of(edges, p))
    else:
        if max_iter:
            warn_user(
                f"{learner}: structural EM did not converge: each of its em_max_iter={max_iter} "
                f"structure searches changed the graph and raised its score on the E-step's "
                f"completions. The last graph is returned; increase em_max_iter to let the loop "
                f"end (see docs/missing.md, structural EM).", ConvergenceWarning)
            # the last search's graph has no value in the trace yet (a next step's E-step
            # gives it): the final EM's first one, or this E-step's
            recorded = False
            if not fit_parameters:
                _, log_lik = em.e_step(em.model(cpts, parents_of(edges, p)))
                traces.append([log_lik + em.log_prior(cpts)])
    if fit_parameters:  # structure only: no parameter EM on the final graph
        cpts, trace, _ = em.run(parents_of(edges, p), cpts, max_iter, tol, progress)
        traces.append(trace[1:] if recorded else trace)  # (its first value: the last graph's)
        em.report(cpts)
        warn_not_converged(em.last_change, max_iter, tol, learner, change_of=em.change_of)
    return edges, cpts, np.concatenate([np.asarray(t, dtype=float) for t in traces])
