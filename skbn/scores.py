"""Decomposable network scores as pluggable, tunable objects.

A decomposable score of a DAG G on data D is a sum of family (local) scores::

    score(G; D) = sum_i local(x_i, pa_i) - edge_penalty * |E(G)|,

each a function of the family's count table ``N[j, k]`` (parent configuration ``j``,
child state ``k``), ``N_j = sum_k N[j, k]``, the child's number of states ``r`` and
the declared number of parent configurations ``q = prod r_parents``. Score objects hold
hyperparameters only (never data), so ``clone``, ``GridSearchCV(est, {"scorer__ess": ...})``
and pickling work; the estimators own the data and the counts.

Empty rows of a count table (unobserved parent configurations) contribute exactly 0 to
every score here, so tables over observed configurations only are enough.
"""

import functools
import math
from numbers import Real

import numpy as np
from scipy.special import gammaln, multigammaln, xlogy
from sklearn.base import BaseEstimator

from skbn._counting import MomentCounter, family_table, n_configurations
from skbn._counting._moments import (
    Moments,
    added_parent_rss,
    conditional_variances,
    regression,
    regression_rss,
)
from skbn._data import encode_fit, positive_weight_rows
from skbn.knowledge import dag_matrix
from skbn.utils._plugins import check_plugin_fits_data, resolve_plugin
from skbn.utils._sklearn_compat import Interval, StrOptions, validate_parameter_constraints

__all__ = [
    "AIC",
    "BIC",
    "BDeu",
    "BGe",
    "BaseGaussianScore",
    "BaseScore",
    "CLGAIC",
    "CLGBIC",
    "CLGLogLikelihood",
    "GaussianAIC",
    "GaussianBIC",
    "GaussianLogLikelihood",
    "K2Score",
    "LogLikelihood",
    "check_bounded_likelihood",
    "is_rss_score",
    "resolve_scorer",
]


def _sum_per_candidate(term, values, owner, n_candidates, small_counts):
    """``sum`` of ``term(owner, value)`` over entries, per candidate.

    With ``small_counts`` (whole-number counts, mostly 1, 2, 3, ... as in large parent
    sets) the term is evaluated once per distinct (candidate, count) pair and weighted by
    its multiplicity; the choice is made by the counting engine from the parent set alone,
    so a candidate's value never depends on the candidates scored alongside it.
    """
    if small_counts and len(values):
        span = int(values.max()) + 1
        multiplicity = np.bincount(owner * span + values.astype(np.int64), minlength=n_candidates * span)
        pairs = np.flatnonzero(multiplicity)
        which, count = np.divmod(pairs, span)
        return np.bincount(which, multiplicity[pairs] * term(which, count.astype(np.float64)),
                           minlength=n_candidates)
    return np.bincount(owner, term(owner, values), minlength=n_candidates)


def _sum_rows(term, per_candidate, stack, offset=None):
    """``sum_j [term(a_c, N^c_j) - offset_c]`` per candidate ``c`` over the stack's row totals.

    ``per_candidate`` holds the candidates' row hyperparameter ``a_c`` (e.g. the BDeu row
    prior) and ``offset`` (default 0) a per-candidate constant such as ``log Gamma(a_c)``,
    evaluated once per candidate rather than once per row; when all candidates share
    their row totals the sum is computed once per distinct value.
    """
    n = stack.n_candidates
    if offset is None:
        offset = np.zeros(n)
    if stack.row_owner is not None:
        return _sum_per_candidate(lambda c, v: term(per_candidate[c], v) - offset[c], stack.rows,
                                  stack.row_owner, n, stack.small_counts)
    values = stack.rows
    if stack.small_counts:  # tabulate: each distinct row total once
        multiplicity = np.bincount(values.astype(np.int64))
        distinct = np.flatnonzero(multiplicity)
        weight, values = multiplicity[distinct], distinct.astype(np.float64)
    else:
        weight = None
    sums = {}
    for a, constant in zip(per_candidate.tolist(), offset.tolist()):  # a few distinct values
        if (a, constant) not in sums:
            terms = term(a, values) - constant
            sums[a, constant] = float(np.sum(terms) if weight is None else np.dot(weight, terms))
    return np.array([sums[key] for key in zip(per_candidate.tolist(), offset.tolist())])


@functools.cache
def _kernel_owner_trusted(klass, name):
    """Whether ``klass.<name>`` is defined by a class that also gives ``klass`` its formula
    (no class earlier in the MRO redefines ``local_score`` or ``_data_score``)."""
    for base in klass.__mro__:
        if name in vars(base):
            return True
        if "_data_score" in vars(base) or "local_score" in vars(base):
            return False
    return False


class BaseScore(BaseEstimator):
    r"""Base class of decomposable scores (higher is better).

    A score is a pure function of count tables. Subclasses implement
    :meth:`_data_score` (one table) and set ``score_equivalent`` (True when
    Markov-equivalent DAGs always get the same score, as for BDeu and BIC), which search
    algorithms may exploit. They may also implement

    * ``_data_scores(stack)``: the same formula for the count tables of many candidate
      families at once (vectorised; the ``stack`` of :meth:`local_scores`); without it
      :meth:`local_scores` loops over :meth:`local_score`;
    * ``_data_bound(r_child, n_parent_configs, n_observed_configs, total_weight,
      integral)``: an upper bound of the data term valid for a parent set and all its
      supersets, which exact search uses to prune (:meth:`upper_bounds`).

    A batched kernel or bound is used only if it belongs to the class that defines the
    formula: a subclass that overrides :meth:`local_score` or :meth:`_data_score` (and
    not the kernel) is scored one table at a time, without pruning, so its own formula
    is always honoured. ``class MyBDeu(BDeu): pass`` keeps BDeu's kernel and bound.

    Every formula must be defined for real-valued counts: with ``sample_weight`` a count
    is a sum of row weights.

    Parameters
    ----------
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    score_equivalent = False
    #: True for scores whose optimum is the complete DAG (searches then need max_indegree).
    unbounded_without_max_indegree = False
    #: The data the score applies to ("discrete", "continuous", "mixed"): the learners refuse
    #: it on other data, naming the columns.
    data_kinds = ("discrete",)
    _parameter_constraints = {"edge_penalty": [Interval(Real, 0, None, closed="left")]}

    def __init__(self, edge_penalty=0.0):
        self.edge_penalty = edge_penalty

    def _validate(self):
        validate_parameter_constraints(
            self._parameter_constraints, self.get_params(deep=False), type(self).__name__
        )

    def _data_score(self, counts, n_parent_configs):
        raise NotImplementedError

    def _kernel(self, name):
        """Bound method ``name`` if the class defining it also defines the score's formula
        (or inherits it unchanged), else None."""
        return getattr(self, name) if _kernel_owner_trusted(type(self), name) else None

    def local_score(self, counts, n_parent_configs, n_parents):
        """Score of one family from its count table.

        Parameters
        ----------
        counts : ndarray of shape (n_rows, r_child)
            (Weighted) counts per parent configuration (rows) and child state (columns);
            rows of unobserved configurations may be omitted.
        n_parent_configs : int
            Declared number of parent configurations ``q = prod r_parents``.
        n_parents : int
            Number of parents (for the edge penalty).

        Returns
        -------
        float
            The family's score minus ``edge_penalty * n_parents``.
        """
        return float(self._data_score(counts, n_parent_configs)) - self.edge_penalty * n_parents

    def local_scores(self, stack):
        """Scores of every candidate family of a stack of count tables.

        Parameters
        ----------
        stack : stack of count tables
            Count tables of ``stack.n_candidates`` families that share ``stack.n_parents``
            parents (the non-zero cells of each, with their parent configurations).

        Returns
        -------
        scores : ndarray of shape (stack.n_candidates,)
            ``scores[c]`` equals ``local_score(stack.dense(c), stack.n_parent_configs[c],
            stack.n_parents)`` up to rounding.
        """
        kernel = self._kernel("_data_scores")
        if kernel is None:
            return np.array([
                self.local_score(stack.dense(c), stack.n_parent_configs[c], stack.n_parents)
                for c in range(stack.n_candidates)
            ])
        return kernel(stack) - self.edge_penalty * stack.n_parents

    def upper_bounds(self, r_child, n_parent_configs, n_observed_configs, n_parents, total_weight, integral):
        """Upper bounds of local scores given a parent set and any of its supersets.

        The bound holds for children with ``r_child`` states given a parent set
        (``n_parent_configs`` declared and ``n_observed_configs`` observed configurations,
        ``n_parents`` members) and given any of its supersets; exact search prunes the
        supersets of a set whose bound is below the best score already found.

        Parameters
        ----------
        r_child : ndarray of shape (n_children,)
            Number of states of every child.
        n_parent_configs : float
            Declared number of parent configurations (product of the parents' numbers of
            states).
        n_observed_configs : int
            Parent configurations with positive weight.
        n_parents : int
            Number of parents in the set (each costs ``edge_penalty``).
        total_weight : float
            Total weight of the rows (their number when unweighted).
        integral : bool
            Whether every count is a whole number.

        Returns
        -------
        bounds : ndarray of shape (n_children,) or None
            Upper bound of every child's local score, or None when the score offers no
            bound (then nothing is pruned).
        """
        bound = self._kernel("_data_bound")
        if bound is None:
            return None
        value = bound(np.asarray(r_child, dtype=np.float64), float(n_parent_configs),
                      n_observed_configs, total_weight, integral)
        return None if value is None else value - self.edge_penalty * n_parents

    def score(self, X, edges, sample_weight=None, *, column_types="auto"):
        """Total score of the DAG ``edges`` on data ``X`` (bnlearn's ``score(dag, data, type)``).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_variables)
            Discrete, continuous or mixed data, encoded as in the estimators' ``fit`` (the
            column-type rule; ``column_types`` declares). The score must apply to its kind:
            a discrete score to discrete data, a Gaussian score to continuous data, a CLG
            score to mixed data (or to either).
        edges : iterable of (parent, child)
            Column names (integer positions for arrays): a DAG in which, on mixed data, no
            discrete column has a continuous parent.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights (every count and moment is a sum of weights).
        column_types : "auto", "discrete", "continuous", list or dict, default="auto"
            Which columns are discrete and which continuous, as the estimators'
            ``column_types``.

        Returns
        -------
        float
            The sum of the local scores of every family: a discrete child's from its count
            table, a continuous child's from the weighted moments of its family (one group
            per configuration of its discrete parents): the statistics the learners score.

        Raises
        ------
        ValueError
            A score that does not apply to the data's kind (naming the columns), an edge
            naming an unknown column, a cycle, or a discrete child of a continuous parent.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from skbn.scores import GaussianBIC
        >>> rng = np.random.default_rng(0)
        >>> a = rng.normal(size=200)
        >>> X = pd.DataFrame({"a": a, "b": 2 * a + rng.normal(size=200)})
        >>> GaussianBIC().score(X, [("a", "b")]) > GaussianBIC().score(X, [])
        True
        """
        self._validate()
        X, weights = positive_weight_rows(X, sample_weight)  # (a weight 0 is no row)
        data, _ = encode_fit(X, allow_continuous=True, column_types=column_types, weights=weights)
        check_plugin_fits_data(self, data, "scorer")
        matrix = dag_matrix(edges, data.names, "edges", data.continuous if data.has_continuous else None)
        counter = MomentCounter(data) if data.has_continuous else None
        total = 0.0
        for child in range(data.n_variables):
            parents = np.flatnonzero(matrix[:, child]).tolist()
            if counter is not None and data.continuous[child]:
                total += _moment_family_score(counter, self, child, parents)
            else:
                counts = family_table(data.codes, data.cardinalities, child, parents, data.weights)
                total += self.local_score(counts, n_configurations(data.cardinalities, parents), len(parents))
        return total


def _bdeu_terms(counts, a_row, a_cell):
    # np.add.reduce is ndarray.sum without its Python wrapper: the same reduction, bit for bit
    prior_row, prior_cell = gammaln([a_row, a_cell])
    return (
        np.add.reduce(prior_row - gammaln(a_row + np.add.reduce(counts, axis=1)), axis=None)
        + np.add.reduce(gammaln(a_cell + counts), axis=None) - counts.size * prior_cell
    )


def _dirichlet_scores(stack, a_row, a_cell):
    """Batched Bayesian-Dirichlet data term with row prior ``a_row`` and cell prior
    ``a_cell`` per candidate (arrays of shape (n_candidates,))."""
    n = stack.n_candidates
    base = gammaln(a_cell)
    cells = _sum_per_candidate(lambda c, v: gammaln(a_cell[c] + v) - base[c],
                               stack.cells, stack.cell_owner, n, stack.small_counts)
    rows = _sum_rows(lambda a, v: gammaln(a + v), a_row, stack, offset=gammaln(a_row))
    return cells - rows


def _dirichlet_bound(r_child, n_observed_configs, integral):
    r"""Each observed parent configuration contributes the log-probability of its child
    values under a symmetric Dirichlet-multinomial (a Polya urn), at most ``-log r``: the
    first value has probability ``1/r``. So :math:`s \le -m \log r` with ``m`` observed
    configurations, which never increases when parents are added (cf. de Campos & Ji
    2011). The urn argument needs whole-number counts: None otherwise."""
    if not integral:
        return None
    return -n_observed_configs * np.log(r_child)


class BDeu(BaseScore):
    r"""Bayesian Dirichlet equivalent uniform score (Heckerman et al. 1995).

    With ``a_j = ess / q`` and ``a_jk = ess / (q r)``:

    .. math::
        \sum_j \left[\log\Gamma(a_j) - \log\Gamma(a_j + N_j)\right]
        + \sum_{j,k} \left[\log\Gamma(a_{jk} + N_{jk}) - \log\Gamma(a_{jk})\right]

    Defined for real-valued (weighted) counts. Upper bound for pruning:
    :math:`-m \log r` with ``m`` observed parent configurations (whole-number counts only).

    Parameters
    ----------
    ess : float, default=1.0
        Equivalent sample size (imaginary sample size) of the Dirichlet prior.
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.

    Examples
    --------
    >>> import numpy as np
    >>> from skbn.scores import BDeu
    >>> round(BDeu(ess=1.0).local_score(np.array([[3, 1]]), 1, 0), 4)
    -3.2426
    """

    score_equivalent = True
    _parameter_constraints = {
        **BaseScore._parameter_constraints,
        "ess": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, ess=1.0, *, edge_penalty=0.0):
        self.ess = ess
        self.edge_penalty = edge_penalty

    def _data_score(self, counts, n_parent_configs):
        a_row = self.ess / n_parent_configs
        return _bdeu_terms(counts, a_row, a_row / counts.shape[1])

    def _data_scores(self, stack):
        a_row = self.ess / stack.n_parent_configs
        return _dirichlet_scores(stack, a_row, a_row / stack.r_child)

    def _data_bound(self, r_child, n_parent_configs, n_observed_configs, total_weight, integral):
        return _dirichlet_bound(r_child, n_observed_configs, integral)


class K2Score(BaseScore):
    r"""Cooper-Herskovits (K2) Bayesian Dirichlet score: every pseudo-count is 1.

    .. math::
        \sum_j \left[\log\Gamma(r) - \log\Gamma(r + N_j)\right] + \sum_{j,k} \log\Gamma(1 + N_{jk})

    Not score equivalent: Markov-equivalent DAGs can score differently. Upper bound
    :math:`-m \log r` as for :class:`BDeu`.

    Parameters
    ----------
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    def _data_score(self, counts, n_parent_configs):
        return _bdeu_terms(counts, float(counts.shape[1]), 1.0)

    def _data_scores(self, stack):
        r = stack.r_child.astype(np.float64)
        return _dirichlet_scores(stack, r, np.ones(stack.n_candidates))

    def _data_bound(self, r_child, n_parent_configs, n_observed_configs, total_weight, integral):
        return _dirichlet_bound(r_child, n_observed_configs, integral)


def _log_likelihood(counts):
    """Maximised log-likelihood ``sum_jk N_jk log(N_jk / N_j)`` (0 log 0 = 0)."""
    return np.sum(xlogy(counts, counts)) - np.sum(xlogy(counts.sum(axis=1), counts.sum(axis=1)))


def _log_likelihoods(stack):
    """Batched :func:`_log_likelihood` over the candidates of a stack."""
    n = stack.n_candidates
    # the stack holds non-zero counts only, so N log N needs no 0 log 0 case
    cells = _sum_per_candidate(lambda c, v: v * np.log(v), stack.cells, stack.cell_owner, n,
                               stack.small_counts)
    rows = _sum_rows(lambda a, v: v * np.log(v), np.zeros(n), stack)
    return cells - rows


class LogLikelihood(BaseScore):
    r"""Maximised log-likelihood :math:`\sum_{j,k} N_{jk} \log(N_{jk}/N_j)`.

    It never decreases when a parent is added: searches refuse it without
    ``max_indegree``. Upper bound 0.

    Parameters
    ----------
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    score_equivalent = True
    unbounded_without_max_indegree = True

    def _data_score(self, counts, n_parent_configs):
        return _log_likelihood(counts)

    def _data_scores(self, stack):
        return _log_likelihoods(stack)

    def _data_bound(self, r_child, n_parent_configs, n_observed_configs, total_weight, integral):
        return np.zeros(len(r_child))


def _bic_penalty(n, *factors):
    r"""The BIC penalty :math:`\frac{\log n}{2} k` (Schwarz 1978) of a family of ``k`` free
    parameters, ``k`` the product of ``factors`` (the discrete family's ``r - 1`` and ``q``,
    arrays for a batch; a Gaussian family's parameter count), and 0 when the total weight
    ``n`` is 0. The one home of the penalty of :class:`BIC`, :class:`GaussianBIC` and
    :class:`CLGBIC`; the factors multiply :math:`\frac{\log n}{2}` one after the other."""
    penalty = 0.5 * math.log(n) if n > 0 else 0.0
    for factor in factors:
        penalty = penalty * factor
    return penalty


class BIC(BaseScore):
    r"""Bayesian information criterion / MDL (Schwarz 1978).

    .. math:: LL - \frac{\log n}{2} (r - 1) q

    where ``(r - 1) q`` is the family's number of free parameters and ``n`` the total
    weight of the data (the number of rows without weights). Upper bound: the
    log-likelihood is at most 0, so :math:`s \le -\frac{\log n}{2} (r - 1) q`, which
    decreases with ``q`` when ``n > 1``.

    Parameters
    ----------
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    score_equivalent = True

    def _data_score(self, counts, n_parent_configs):
        return _log_likelihood(counts) - _bic_penalty(counts.sum(), counts.shape[1] - 1, n_parent_configs)

    def _data_scores(self, stack):
        return _log_likelihoods(stack) - _bic_penalty(stack.total_weight, stack.r_child - 1,
                                                      stack.n_parent_configs)

    def _data_bound(self, r_child, n_parent_configs, n_observed_configs, total_weight, integral):
        if total_weight <= 1:
            return None
        return -_bic_penalty(total_weight, r_child - 1, n_parent_configs)


class AIC(BaseScore):
    r"""Akaike information criterion :math:`LL - (r - 1) q`; upper bound :math:`-(r - 1) q`.

    Parameters
    ----------
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    score_equivalent = True

    def _data_score(self, counts, n_parent_configs):
        return _log_likelihood(counts) - (counts.shape[1] - 1) * n_parent_configs

    def _data_scores(self, stack):
        return _log_likelihoods(stack) - (stack.r_child - 1) * stack.n_parent_configs

    def _data_bound(self, r_child, n_parent_configs, n_observed_configs, total_weight, integral):
        return -(r_child - 1) * n_parent_configs


_ALIASES = {
    "bdeu": BDeu,
    "k2": K2Score,
    "bic": BIC,
    "aic": AIC,
    "loglik": LogLikelihood,
    "log_likelihood": LogLikelihood,
}


def check_bounded_likelihood(scorer, max_indegree, learner, n_variables=None):
    """Refuse a score whose optimum is the complete DAG when the search has no in-degree bound.

    The maximised log-likelihood never decreases when a parent is added, so a search without
    ``max_indegree`` would end at a complete DAG.

    Parameters
    ----------
    scorer : BaseScore
        The resolved score object; refused when its ``unbounded_without_max_indegree``
        attribute is true.
    max_indegree : int or None
        The search's in-degree bound; None is refused for such a score, and so is a bound of
        ``n_variables - 1`` or more, which bounds nothing.
    learner : str
        Name of the learner, for the error message.
    n_variables : int or None, default=None
        The number of columns searched (None: the bound is not compared with it).

    Raises
    ------
    ValueError
        When the score is unbounded and ``max_indegree`` is None.
    """
    vacuous = max_indegree is not None and n_variables is not None and max_indegree >= n_variables - 1
    if getattr(scorer, "unbounded_without_max_indegree", False) and (max_indegree is None or vacuous):
        penalised = ("'bic-cg' / 'aic-cg'" if isinstance(scorer, _DiscreteChildren)
                     else "'bic-g' / 'bge'" if isinstance(scorer, BaseGaussianScore) else "'bic' / 'bdeu'")
        if vacuous:  # (every other column can be a parent: the complete DAG again)
            without = (f"with max_indegree={max_indegree} (all {n_variables - 1} other columns can be a "
                       f"column's parents: it bounds nothing)")
            bound = f"below {n_variables - 1} (e.g. max_indegree={min(2, n_variables - 2)})"
        else:
            without, bound = "without max_indegree", "(e.g. max_indegree=2)"
        raise ValueError(
            f"{learner}: scorer={type(scorer).__name__} (maximised log-likelihood) never "
            f"decreases when a parent is added, so {without} the best graph is "
            f"complete; set max_indegree {bound} or use {penalised}."
        )


def resolve_scorer(scorer):
    """Return a fresh score object for an alias, or a validated clone of a score object.

    Parameters
    ----------
    scorer : str or BaseScore
        An alias ("bdeu", "k2", "bic", "aic", "loglik") or a score object.

    Returns
    -------
    scorer : BaseScore
        A new object; the caller's object is never modified.
    """
    return resolve_plugin(scorer, _ALIASES, BaseScore, "scorer")



# -- Gaussian and conditional-Gaussian (CLG) scores: families of continuous children ------------
#
# These plug-ins score a continuous child from the weighted moments of the engine
# (:class:`skbn._counting.Moments`) instead of a count table; the learners pick them for the
# continuous children (``scorer="auto"``: bnlearn's defaults, ``docs/gaussian.md``).


def _gaussian_loglik(weight, rss, n_coef, variance):
    """Gaussian log-likelihood of residuals with sum of squares ``rss`` over total weight
    ``weight``, ``n_coef`` regression coefficients (intercept included), and the variance
    estimate ``rss / (weight - ddof)`` (``ddof = n_coef`` unbiased, 0 MLE):

    .. math:: -\\frac{N}{2} \\log(2\\pi\\hat\\sigma^2) - \\frac{RSS}{2\\hat\\sigma^2}

    Arrays broadcast. Empty groups (weight 0) give 0; a group whose variance estimate is 0
    or undefined gives ``-inf`` (see :class:`GaussianLogLikelihood`); a NaN ``rss`` (no
    family) gives NaN. A float ``weight`` with a list ``rss`` (non-negative or NaN: several
    families of one group) gives a list; an array ``n_coef`` (families of several sizes)
    broadcasts against ``rss``.
    """
    ddof = n_coef if variance == "unbiased" else 0.0
    if isinstance(weight, float) and not isinstance(ddof, np.ndarray):  # (one group's total weight)
        usable = weight > ddof and weight > 0
        if usable and isinstance(rss, float) and rss > 0:
            # one usable family (a Gaussian search's case): the same operations on Python
            # floats (IEEE arithmetic as numpy's; the logarithm still numpy's)
            return float(-0.5 * weight * np.log(2 * np.pi * (rss / (weight - ddof))) - 0.5 * (weight - ddof))
        if usable and isinstance(rss, list):
            # a batch of families of one group: the same operations value by value, one
            # call of numpy's logarithm for all (a variance 0 gives -inf, NaN stays NaN)
            dof, factor, half = weight - ddof, 2 * np.pi, -0.5 * weight
            logs = np.log([factor * (r / dof) if r > 0 else 1.0 for r in rss]).tolist()
            half_dof, minus_inf = 0.5 * dof, -math.inf
            return [half * value - half_dof if r > 0 else (r if r != r else minus_inf)
                    for r, value in zip(rss, logs)]
        weight = np.float64(weight)
    elif isinstance(weight, float):  # (one group, families of several sizes: an array ddof)
        dof = weight - ddof
        rss = np.asarray(rss, dtype=np.float64)
        if weight > 0 and dof.min(initial=np.inf) > 0 and np.fmin.reduce(rss, axis=None, initial=np.inf) > 0:
            # every group usable and no rss at or below 0 (fmin passes over NaN; a NaN
            # goes through the logarithm as NaN): the operations of the expression below,
            # in place on one new array
            result = np.asarray(np.divide(rss, dof))
            np.multiply(result, 2 * np.pi, out=result)
            np.log(result, out=result)
            np.multiply(result, -0.5 * weight, out=result)
            return np.subtract(result, np.multiply(dof, 0.5, out=dof), out=result)  # (dof: our own)
        usable = False
        weight = np.float64(weight)
    else:
        weight = np.asarray(weight, dtype=np.float64)
        usable = (weight > ddof).all() and (weight > 0).all()
    rss = np.asarray(rss, dtype=np.float64)
    if usable and not (rss <= 0).any():
        # every group usable (a search's common case): the same values, without the masks
        # (a NaN goes through the logarithm as NaN)
        return -0.5 * weight * np.log(2 * np.pi * (rss / (weight - ddof))) - 0.5 * (weight - ddof)
    weight, rss = np.broadcast_arrays(weight, rss)
    dof = weight - ddof
    result = np.zeros(weight.shape)
    ok = (weight > 0) & (dof > 0) & (rss > 0)
    sigma2 = rss[ok] / dof[ok]
    result[ok] = -0.5 * weight[ok] * np.log(2 * np.pi * sigma2) - 0.5 * dof[ok]
    result[(weight > 0) & ~ok] = -np.inf
    result[np.isnan(rss)] = np.nan
    return result


def _moment_family_score(counter, scorer, child, parents, n_variables=None):
    """The local score of the continuous ``child`` given ``parents`` from the moments of its
    family (:meth:`skbn._counting.MomentCounter.family`: split by its discrete parents) by
    the scorer's ``local_score_moments``: the one path from moments to a family score of
    :meth:`BaseScore.score`, the engines' family cache and their subset scorer.
    ``n_variables``: the number of variables of the network, which BGe's prior reads (None:
    BGe's default, the moments' columns, every variable on the all-continuous data BGe
    applies to)."""
    stats, column, parent_columns, n_discrete = counter.family(child, parents)
    if n_variables is not None and isinstance(scorer, BGe):
        return float(scorer.local_score_moments(stats, column, parent_columns, n_discrete,
                                                n_variables=n_variables))
    return float(scorer.local_score_moments(stats, column, parent_columns, n_discrete))


def is_rss_score(scorer):
    """Whether a scorer scores a Gaussian family from its residual sum of squares.

    True for a :class:`BaseGaussianScore` whose formula is the base class's
    (:meth:`BaseGaussianScore.local_scores_rss`): the Gaussian log-likelihood, BIC and AIC
    and their CLG forms. False for BGe, for a subclass that redefines
    ``local_score_moments`` or the data term, and for the discrete scores. The batched and
    residual-lattice kernels of the engines compute the residuals themselves only for such
    a scorer; any other is asked family by family.

    Parameters
    ----------
    scorer : BaseScore
        A score plug-in.

    Returns
    -------
    bool
        Whether the engines may score its families from residual sums of squares.

    Examples
    --------
    >>> from skbn.scores import BGe, GaussianBIC, is_rss_score
    >>> is_rss_score(GaussianBIC()), is_rss_score(BGe())
    (True, False)
    """
    klass = type(scorer)
    return (isinstance(scorer, BaseGaussianScore)
            and klass.local_score_moments is BaseGaussianScore.local_score_moments
            and klass._data_from_rss is BaseGaussianScore._data_from_rss)


class BaseGaussianScore(BaseScore):
    r"""Base class of the scores of continuous children (Gaussian and CLG networks).

    A continuous family is scored from the weighted moments of its columns (total
    weight, means and scatter matrix): one group for a Gaussian network, one group per
    configuration of the discrete parents for a conditional linear Gaussian (CLG) network.
    Subclasses implement ``_family_score(weight, rss, n_coef, n_groups, n_total)`` or
    override :meth:`local_score_moments`.

    Parameters
    ----------
    variance : {"unbiased", "mle"}, default="unbiased"
        Variance estimate in the log-likelihood: ``"unbiased"`` is R bnlearn's
        :math:`RSS/(N - p - 1)` (``p`` continuous parents), ``"mle"`` the maximum-likelihood
        :math:`RSS/N`, which makes the log-likelihood the maximised one.
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    statistics = "moments"
    data_kinds = ("continuous",)
    _parameter_constraints = {
        **BaseScore._parameter_constraints,
        "variance": [StrOptions({"unbiased", "mle"})],
    }

    def __init__(self, variance="unbiased", *, edge_penalty=0.0):
        self.variance = variance
        self.edge_penalty = edge_penalty

    def _penalty(self, n_params, n_total):
        return 0.0

    def _data_from_rss(self, weight, rss, n_coef, n_groups):
        """Data term of a family from per-group totals and residual sums of squares."""
        if len(weight) == 1:  # one group (a Gaussian family): on Python floats
            w = float(weight[0])
            loglik = float(_gaussian_loglik(w, float(rss[0]), n_coef, self.variance))
            return loglik - self._penalty(n_groups * (n_coef + 1), w)
        loglik = float(np.sum(_gaussian_loglik(weight, rss, n_coef, self.variance)))
        return loglik - self._penalty(n_groups * (n_coef + 1), float(np.sum(weight)))

    def local_score_moments(self, stats, child, parents, n_discrete_parents=0):
        """Score of a continuous child given continuous ``parents`` from moments.

        Parameters
        ----------
        stats : weighted moments
            Moments of (at least) the child and its continuous parents; its groups are the
            (declared) configurations of the child's discrete parents (one group when it has
            none). Unobserved configurations (weight 0) add 0 to the log-likelihood and
            count in the number of parameters (bnlearn's convention).
        child : int
            Position of the child among the moments' columns.
        parents : sequence of int
            Positions of the continuous parents.
        n_discrete_parents : int, default=0
            Number of discrete parents (for the edge penalty only).

        Returns
        -------
        float
            The family's score minus ``edge_penalty`` times its number of parents.
        """

        parents = list(parents)
        if len(stats.weight) == 1:  # one group: its blocks read from the moments' scaled matrix
            rss = regression_rss(stats.scatter, child, parents, stats.unit)
            return self.local_scores_rss(float(stats.weight[0]), float(rss[0]), len(parents),
                                         n_discrete_parents)
        rss = regression_rss(stats.scatter, child, parents)
        data = self._data_from_rss(stats.weight, rss, len(parents) + 1, len(stats.weight))
        return data - self.edge_penalty * (len(parents) + n_discrete_parents)

    def local_scores_added(self, stats, child, parents, n_discrete_parents=0):
        """Scores of ``child`` given ``parents + [j]`` for every column ``j`` (batched).

        Parameters
        ----------
        stats, child, parents, n_discrete_parents
            As for :meth:`local_score_moments`.

        Returns
        -------
        scores : ndarray of shape (stats.n_columns,)
            ``scores[j]`` equals ``local_score_moments(stats, child, parents + [j])`` up to
            rounding; NaN at the child and the parents.
        """

        parents = list(parents)
        if len(stats.scatter) == 1:  # one group (scaled once, shared by every family of these moments)
            d, scaled = stats.unit
            rss = added_parent_rss(stats.scatter[0], child, parents, (d[0], scaled[0]))
            return self.local_scores_rss(float(stats.weight[0]), rss, len(parents) + 1, n_discrete_parents)
        n_coef = len(parents) + 2
        rss = np.stack([added_parent_rss(scatter, child, parents) for scatter in stats.scatter])
        missing = np.isnan(rss[0])
        weight = float(np.sum(stats.weight))
        loglik = _gaussian_loglik(stats.weight[:, None], np.where(np.isnan(rss), 1.0, rss), n_coef,
                                  self.variance).sum(axis=0)
        scores = (loglik - self._penalty(stats.n_groups * (n_coef + 1), weight)
                  - self.edge_penalty * (len(parents) + 1 + n_discrete_parents))
        scores[missing] = np.nan
        return scores

    def local_scores_rss(self, weight, rss, n_parents, n_discrete_parents=0):
        """Scores of families of one group (a Gaussian network's: no discrete parent splits
        the rows) from their total weight and residual sums of squares, the data term of
        :meth:`local_score_moments`: what a search that computes the residuals itself
        (the searches on a Gaussian network, from a lattice of regressions over parent
        subsets) scores them with.

        Parameters
        ----------
        weight : float
            Total weight of the rows.
        rss : float, list or ndarray
            Residual sum of squares of one family (a float), or of several families with
            the same number of parents (a sequence; NaN: no family, its score NaN).
        n_parents : int or ndarray of int
            Number of continuous parents of each family (an array broadcast against an
            array ``rss``: families of several sizes, the same values as one call per size).
        n_discrete_parents : int, default=0
            Number of discrete parents (for the edge penalty only).

        Returns
        -------
        float, list or ndarray
            As :meth:`local_score_moments` of each family (up to the rounding of ``rss``),
            a list for a list ``rss``.
        """
        n_coef = n_parents + 1
        if isinstance(rss, float):
            data = self._data_from_rss((weight,), (rss,), n_coef, 1)
            return data - self.edge_penalty * (n_parents + n_discrete_parents)
        loglik = _gaussian_loglik(weight, rss, n_coef, self.variance)  # (NaN stays NaN)
        if isinstance(n_parents, np.ndarray):  # (several sizes: each size's penalty, as one family's)
            sizes = range(int(n_parents.max()) + 1)
            penalty = np.array([self._penalty(k + 2, weight) for k in sizes]).take(n_parents)
        else:
            penalty = self._penalty(n_coef + 1, weight)
        if self.edge_penalty == 0 and math.copysign(1.0, self.edge_penalty) > 0:
            # (no edge term: x - 0.0 is x, the value the one-family call subtracts it from)
            return [value - penalty for value in loglik] if isinstance(loglik, list) else loglik - penalty
        edges = self.edge_penalty * (n_parents + n_discrete_parents)
        if isinstance(loglik, list):
            return [value - penalty - edges for value in loglik]
        return loglik - penalty - edges

    def local_scores_stacked(self, stats, child, parents, n_discrete_parents, sizes):
        """Scores of several families of one child stored back to back in ``stats``:
        family ``t`` owns ``sizes[t]`` consecutive groups (e.g. the families with one more
        discrete parent each, as the searches stack them).

        Parameters
        ----------
        stats : weighted moments
            The groups of every family.
        child, parents
            As for :meth:`local_score_moments` (the same columns in every family).
        n_discrete_parents : int
            Number of discrete parents of every family.
        sizes : sequence of int
            Number of groups of each family.

        Returns
        -------
        scores : ndarray of shape (len(sizes),)
            ``scores[t]`` equals :meth:`local_score_moments` of family ``t``'s groups up to
            rounding (it is that call for a subclass that redefines the formula).
        """

        sizes = np.asarray(sizes, dtype=np.int64)
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        if not is_rss_score(self):
            return np.array([self.local_score_moments(
                Moments(stats.weight[a:b], stats.mean[a:b], stats.scatter[a:b]), child, parents,
                n_discrete_parents) for a, b in zip(bounds[:-1], bounds[1:])])
        parents = list(parents)
        rss = regression_rss(stats.scatter, child, parents)
        n_coef = len(parents) + 1
        family = np.repeat(np.arange(len(sizes)), sizes)
        loglik = np.bincount(family, weights=_gaussian_loglik(stats.weight, rss, n_coef, self.variance),
                             minlength=len(sizes))
        totals = np.bincount(family, weights=stats.weight, minlength=len(sizes))
        known = {}  # (the families differ only by their numbers of groups, mostly)
        penalty = np.array([known.setdefault(key, self._penalty(key[0] * (n_coef + 1), key[1]))
                            for key in zip(sizes.tolist(), totals.tolist())])
        return loglik - penalty - self.edge_penalty * (len(parents) + n_discrete_parents)

    def upper_bound_moments(self, stats, child, parents, candidates, n_discrete_parents=0):
        r"""Upper bound of the score of ``child`` given ``parents`` or any superset of them
        drawn from the continuous ``candidates`` (one group: Gaussian networks).

        The residual sum of squares never increases when parents are added, so it is at
        least :math:`RSS_{min}`, the one given all candidates; every term of the
        log-likelihood that depends on the number of coefficients ``m`` decreases with ``m``
        (for the unbiased variance, :math:`\tfrac{N}{2}\log(N - m) + \tfrac{m}{2}` does), as
        does the penalty. So with ``m = |parents| + 1``:

        .. math:: s \le -\tfrac{N}{2}\log(2\pi RSS_{min}/(N - d)) - \tfrac{N - d}{2}
                  - \mathrm{penalty}(m + 1)

        (``d = m`` unbiased, 0 MLE).

        Parameters
        ----------
        stats : weighted moments
            Moments of the child and the candidates.
        child : int
            Position of the child.
        parents : sequence of int
            Positions of the parents the bound starts from.
        candidates : sequence of int
            Positions of every column that may join the parents.
        n_discrete_parents : int, default=0
            Number of discrete parents (edge penalty).

        Returns
        -------
        float or None
            The bound; None for several groups (CLG: no bound is offered).
        """

        if stats.n_groups != 1:
            return None
        parents = list(parents)
        pool = sorted(set(candidates) | set(parents))
        rss_min = regression(stats.scatter[0], child, [c for c in pool if c != child])[1]
        m = len(parents) + 1
        loglik = float(_gaussian_loglik(stats.weight[0], rss_min, m, self.variance))
        return (loglik - self._penalty(m + 1, float(stats.weight[0]))
                - self.edge_penalty * (len(parents) + n_discrete_parents))

    def _data_score(self, counts, n_parent_configs):
        raise TypeError(f"{type(self).__name__} scores continuous families: call "
                        f"local_score_moments(stats, child, parents).")


class GaussianLogLikelihood(BaseGaussianScore):
    r"""Log-likelihood of a linear Gaussian family (R bnlearn ``"loglik-g"``).

    The child is regressed on its parents by least squares (residual sum of squares
    :math:`RSS`, total weight :math:`N`, ``p`` parents) and scored by

    .. math:: \ell = -\frac{N}{2}\log(2\pi\hat\sigma^2) - \frac{RSS}{2\hat\sigma^2},
       \qquad \hat\sigma^2 = \frac{RSS}{N - p - 1} \;\text{(bnlearn)} \text{ or } \frac{RSS}{N}
       \;\text{(``variance="mle"``, the maximised log-likelihood)}.

    Both are score equivalent (Markov-equivalent DAGs have equal scores: their families'
    residual variances multiply to the same determinant and covered-edge reversals keep
    the multiset of parent-set sizes). A family whose variance estimate is 0 or undefined
    (a constant child, a child that is an exact linear function of its parents, or no more
    rows than coefficients with ``"unbiased"``) scores ``-inf`` and is never chosen, as in
    bnlearn (the learners refuse constant continuous columns up front and warn about
    columns that are linear functions of others). Collinear parents do not make a family
    ``-inf``: a collinear parent adds nothing to the regression (the projection on the
    parents' span), so the family has the residual sum of squares of the family without
    it, and its score differs only by the one more coefficient counted (in the degrees of
    freedom of ``"unbiased"``, and in the penalty of BIC and AIC).

    Parameters
    ----------
    variance : {"unbiased", "mle"}, default="unbiased"
        Variance estimate (see above).
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.

    References
    ----------
    M. Scutari (2010), "Learning Bayesian networks with the bnlearn R package", JSS 35(3).
    """

    score_equivalent = True
    unbounded_without_max_indegree = True


class GaussianBIC(BaseGaussianScore):
    r"""Bayesian information criterion of a linear Gaussian family (bnlearn ``"bic-g"``).

    .. math:: \ell - \frac{\log N}{2} (p + 2)

    with :math:`\ell` the log-likelihood of :class:`GaussianLogLikelihood` and ``p + 2``
    parameters (intercept, ``p`` coefficients, variance), as in bnlearn. Score equivalent.

    Parameters
    ----------
    variance : {"unbiased", "mle"}, default="unbiased"
        Variance estimate of :class:`GaussianLogLikelihood`.
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    score_equivalent = True

    def _penalty(self, n_params, n_total):
        return _bic_penalty(n_total, n_params)


class GaussianAIC(BaseGaussianScore):
    r"""Akaike information criterion of a linear Gaussian family (bnlearn ``"aic-g"``):
    :math:`\ell - (p + 2)`. Score equivalent.

    Parameters
    ----------
    variance : {"unbiased", "mle"}, default="unbiased"
        Variance estimate of :class:`GaussianLogLikelihood`.
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    score_equivalent = True

    def _penalty(self, n_params, n_total):
        return float(n_params)


class _DiscreteChildren:
    """CLG scores: a discrete child (only discrete parents) is scored on its count table by
    the discrete score ``_discrete_score`` (e.g. :class:`BIC` for :class:`CLGBIC`), whose
    kernels ``BaseGaussianScore`` overrides."""

    _discrete_score = None  # set by each CLG score
    data_kinds = ("discrete", "continuous", "mixed")

    def _data_score(self, counts, n_parent_configs):
        return self._discrete_score._data_score(self, counts, n_parent_configs)

    def _data_scores(self, stack):
        return self._discrete_score._data_scores(self, stack)

    def _data_bound(self, r_child, n_parent_configs, n_observed_configs, total_weight, integral):
        return self._discrete_score._data_bound(self, r_child, n_parent_configs, n_observed_configs,
                                            total_weight, integral)


class CLGLogLikelihood(_DiscreteChildren, GaussianLogLikelihood, LogLikelihood):
    r"""Log-likelihood of a conditional linear Gaussian (CLG) network (bnlearn ``"loglik-cg"``).

    A continuous child is regressed on its continuous parents separately in each
    configuration ``g`` of its discrete parents (own intercept, coefficients and variance):

    .. math:: \ell = \sum_g \left[-\frac{N_g}{2}\log(2\pi\hat\sigma_g^2)
              - \frac{RSS_g}{2\hat\sigma_g^2}\right],
              \qquad \hat\sigma_g^2 = \frac{RSS_g}{N_g - p - 1} \text{ (bnlearn) or } \frac{RSS_g}{N_g}

    (:meth:`local_score_moments` with moments split by the discrete parents' configuration
    ids). A discrete child has only discrete parents and gets the multinomial
    log-likelihood of :class:`LogLikelihood` (:meth:`local_score` on its count table).
    Unobserved configurations add 0; an observed configuration with no residual variance
    (e.g. a single row) makes the family ``-inf``.

    Parameters
    ----------
    variance : {"unbiased", "mle"}, default="unbiased"
        Variance estimate of the continuous families.
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    _discrete_score = LogLikelihood


class CLGBIC(_DiscreteChildren, GaussianBIC, BIC):
    r"""BIC of a conditional linear Gaussian network (bnlearn ``"bic-cg"``).

    A continuous child with ``p`` continuous parents and ``q`` configurations of its
    discrete parents: :math:`\ell - \frac{\log N}{2} q (p + 2)` (``q`` intercepts, ``q p``
    coefficients, ``q`` variances; :math:`\ell` as in :class:`CLGLogLikelihood`, ``N`` the
    total weight of all rows). A discrete child: the discrete :class:`BIC`.

    Parameters
    ----------
    variance : {"unbiased", "mle"}, default="unbiased"
        Variance estimate of the continuous families.
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    _discrete_score = BIC


class CLGAIC(_DiscreteChildren, GaussianAIC, AIC):
    r"""AIC of a conditional linear Gaussian network (bnlearn ``"aic-cg"``):
    :math:`\ell - q (p + 2)` for a continuous child, the discrete :class:`AIC` for a
    discrete one (see :class:`CLGBIC`).

    Parameters
    ----------
    variance : {"unbiased", "mle"}, default="unbiased"
        Variance estimate of the continuous families.
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    _discrete_score = AIC


def _bge_log_marginal(weight, log_det_r, size, n_variables, iss_mu, iss_w, t):
    """``log p(d^Y)`` of a set ``Y`` of ``size`` columns under the BGe prior, given
    ``log |R_YY|`` (Kuipers, Moffa & Heckerman 2014, eq. 2 and the corrected ``T``)."""
    if size == 0:
        return 0.0
    a = iss_w - n_variables + size
    return (0.5 * size * math.log(iss_mu / (weight + iss_mu))
            + multigammaln(0.5 * (weight + a), size) - multigammaln(0.5 * a, size)
            - 0.5 * size * weight * math.log(math.pi)
            + 0.5 * a * size * math.log(t) - 0.5 * (weight + a) * log_det_r)


class BGe(BaseGaussianScore):
    r"""Bayesian Gaussian equivalent score (bnlearn ``"bge"``; Geiger & Heckerman 1994,
    2002, with the correction of Kuipers, Moffa & Heckerman 2014).

    Normal-Wishart prior: mean :math:`\nu` (the sample means, bnlearn's default), precision
    Wishart with ``iss_w`` degrees of freedom and scale :math:`T = t I`,
    :math:`t = \alpha_\mu(\alpha_w - n - 1)/(\alpha_\mu + 1)` (``n`` variables,
    :math:`\alpha_\mu` = ``iss_mu``, :math:`\alpha_w` = ``iss_w``). With the posterior scale
    :math:`R = T + S_N` (:math:`S_N` the scatter matrix, ``N`` rows) the marginal
    likelihood of the columns ``Y`` (``l = |Y|``, :math:`a = \alpha_w - n + l`) is

    .. math::
        \log p(d^Y) = \frac{l}{2}\log\frac{\alpha_\mu}{N + \alpha_\mu}
          + \log\Gamma_l\!\left(\tfrac{N + a}{2}\right) - \log\Gamma_l\!\left(\tfrac{a}{2}\right)
          - \frac{lN}{2}\log\pi + \frac{a}{2}\log|T_{YY}| - \frac{N + a}{2}\log|R_{YY}|

    and the local score of a child ``c`` with parents ``P`` is
    :math:`\log p(d^{P \cup c}) - \log p(d^P)`. Score equivalent. No upper bound is offered
    (:meth:`upper_bound_moments` returns None).

    Unlike the scores of the residual variance, BGe gives a child that is an exact linear
    function of its parents a *finite* score, as bnlearn does: :math:`R = T + S_N` keeps
    :math:`|R_{YY}|` above 0, and :math:`\log|R_{cc \cdot P}|` is then bounded by the
    prior scale alone, so such a family scores far above any family with noise and a BGe
    search learns it. A Gaussian network cannot give that child a density (standard
    deviation 0), so a learner with this scorer refuses such columns before its search when
    it fits parameters (``docs/gaussian.md``, "Columns determined by others").

    Parameters
    ----------
    iss_mu : float > 0, default=1.0
        Imaginary sample size of the normal component (bnlearn ``iss.mu``).
    iss_w : float or None, default=None
        Degrees of freedom of the Wishart component (bnlearn ``iss.w``); None means
        ``n + 2`` for ``n`` variables (bnlearn's default). Must exceed ``n + 1``.
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.

    References
    ----------
    D. Geiger and D. Heckerman (1994), "Learning Gaussian networks", UAI.
    D. Geiger and D. Heckerman (2002), "Parameter priors for directed acyclic graphical
    models and the characterization of several probability distributions", Ann. Statist. 30.
    J. Kuipers, G. Moffa and D. Heckerman (2014), "Addendum on the scoring of Gaussian
    directed acyclic graphical models", Ann. Statist. 42(4).
    """

    score_equivalent = True
    _parameter_constraints = {
        "edge_penalty": [Interval(Real, 0, None, closed="left")],
        "iss_mu": [Interval(Real, 0, None, closed="neither")],
        "iss_w": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(self, iss_mu=1.0, *, iss_w=None, edge_penalty=0.0):
        self.iss_mu = iss_mu
        self.iss_w = iss_w
        self.edge_penalty = edge_penalty

    def _prior(self, n_variables):
        iss_w = n_variables + 2.0 if self.iss_w is None else float(self.iss_w)
        if iss_w <= n_variables + 1:
            raise ValueError(f"BGe: iss_w must exceed the number of variables + 1 = {n_variables + 1}, "
                             f"got {iss_w}.")
        iss_mu = float(self.iss_mu)
        return iss_mu, iss_w, iss_mu * (iss_w - n_variables - 1) / (iss_mu + 1)

    def _log_marginal(self, stats, columns, n_variables):
        iss_mu, iss_w, t = self._prior(n_variables)
        columns = list(columns)
        r = t * np.eye(len(columns)) + stats.scatter[0][np.ix_(columns, columns)]
        log_det = float(np.linalg.slogdet(r)[1]) if columns else 0.0
        return _bge_log_marginal(float(stats.weight[0]), log_det, len(columns), n_variables, iss_mu, iss_w, t)

    def local_score_moments(self, stats, child, parents, n_discrete_parents=0, n_variables=None):
        """BGe score of ``child`` given ``parents`` (one group of moments).

        Parameters
        ----------
        stats : weighted moments
            Moments with one group.
        child : int
            Position of the child.
        parents : sequence of int
            Positions of the parents.
        n_discrete_parents : int, default=0
            Must be 0 (BGe is for Gaussian networks).
        n_variables : int or None, default=None
            Number of variables ``n`` of the network (the prior depends on it); None means
            ``stats.n_columns``.

        Returns
        -------
        float
            The family's BGe score minus ``edge_penalty`` times its number of parents.
        """
        if stats.n_groups != 1 or n_discrete_parents:
            raise ValueError("BGe scores Gaussian networks only (one group of moments, no discrete parent).")
        n_variables = stats.n_columns if n_variables is None else int(n_variables)
        parents = list(parents)
        score = (self._log_marginal(stats, parents + [child], n_variables)
                 - self._log_marginal(stats, parents, n_variables))
        return float(score) - self.edge_penalty * len(parents)

    def local_scores_added(self, stats, child, parents, n_discrete_parents=0, n_variables=None):
        """BGe scores of ``child`` given ``parents + [j]`` for every column ``j`` (batched:
        the log-determinant ratio is the residual ``R_{cc|P+j}``, one Schur complement).

        Parameters
        ----------
        stats : weighted moments
            Moments with one group.
        child : int
            Position of the child.
        parents : sequence of int
            Positions of the current parents.
        n_discrete_parents : int, default=0
            Must be 0.
        n_variables : int or None, default=None
            Number of variables of the network (None: ``stats.n_columns``).

        Returns
        -------
        scores : ndarray of shape (stats.n_columns,)
            NaN at the child and the parents.
        """

        if stats.n_groups != 1 or n_discrete_parents:
            raise ValueError("BGe scores Gaussian networks only (one group of moments, no discrete parent).")
        k = stats.n_columns
        n_variables = k if n_variables is None else int(n_variables)
        iss_mu, iss_w, t = self._prior(n_variables)
        parents = list(parents)
        r = t * np.eye(k) + stats.scatter[0]
        residual = added_parent_rss(r, child, parents)   # |R_{P+j+c}| / |R_{P+j}|
        weight, size = float(stats.weight[0]), len(parents) + 1
        # log p(d^Z) - log p(d^Y) with Y = P + j (|Y| = size), Z = Y + c: only log|R| varies with j
        scores = (_bge_log_marginal(weight, 0.0, size + 1, n_variables, iss_mu, iss_w, t)
                  - _bge_log_marginal(weight, 0.0, size, n_variables, iss_mu, iss_w, t))
        a_z, a_y = iss_w - n_variables + size + 1, iss_w - n_variables + size
        log_det_p = float(np.linalg.slogdet(r[np.ix_(parents, parents)])[1]) if parents else 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            log_det_y = log_det_p + np.log(conditional_variances(r, parents))   # log |R_{P+j}|
            scores = (scores - 0.5 * (weight + a_z) * (np.log(residual) + log_det_y)
                      + 0.5 * (weight + a_y) * log_det_y)
        scores[[child, *parents]] = np.nan
        return scores - self.edge_penalty * size

    def upper_bound_moments(self, stats, child, parents, candidates, n_discrete_parents=0):
        """No upper bound is known for BGe: returns None.

        Parameters
        ----------
        stats : weighted moments
            Ignored.
        child : int
            Ignored.
        parents : sequence of int
            Ignored.
        candidates : sequence of int
            Ignored.
        n_discrete_parents : int, default=0
            Ignored.

        Returns
        -------
        None
            Nothing is pruned.
        """
        return None


_ALIASES.update({
    "loglik-g": GaussianLogLikelihood,
    "bic-g": GaussianBIC,
    "aic-g": GaussianAIC,
    "bge": BGe,
    "loglik-cg": CLGLogLikelihood,
    "bic-cg": CLGBIC,
    "aic-cg": CLGAIC,
})
