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

import math
from numbers import Real

import numpy as np
from scipy.special import gammaln, xlogy
from sklearn.base import BaseEstimator

from skbn._counting import family_table, n_configurations
from skbn._data import encode_fit
from skbn.utils._plugins import resolve_plugin
from skbn.utils._sklearn_compat import Interval, validate_parameter_constraints

__all__ = [
    "BaseScore",
    "BDeu",
    "K2Score",
    "BIC",
    "AIC",
    "LogLikelihood",
    "FamilyScoreCache",
    "resolve_scorer",
]


class BaseScore(BaseEstimator):
    """Base class of decomposable scores (higher is better).

    Subclasses implement :meth:`_data_score` and set ``score_equivalent`` (True when
    Markov-equivalent DAGs always get the same score, as for BDeu and BIC), which search
    algorithms may exploit.

    Parameters
    ----------
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    score_equivalent = False
    _parameter_constraints = {"edge_penalty": [Interval(Real, 0, None, closed="left")]}

    def __init__(self, edge_penalty=0.0):
        self.edge_penalty = edge_penalty

    def _validate(self):
        validate_parameter_constraints(
            self._parameter_constraints, self.get_params(deep=False), type(self).__name__
        )

    def _data_score(self, counts, n_parent_configs):
        raise NotImplementedError

    def local_score(self, counts, n_parent_configs, n_parents):
        """Score of one family from its count table.

        Parameters
        ----------
        counts : ndarray of shape (n_rows, r_child)
            Counts per parent configuration (rows) and child state (columns); rows of
            unobserved configurations may be omitted.
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

    def score(self, X, edges):
        """Total score of the DAG ``edges`` on data ``X``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_variables)
            Discrete data, encoded as in the estimators' ``fit``.
        edges : iterable of (parent, child)
            Column names (integer positions for arrays).

        Returns
        -------
        float
            The sum of the local scores of every family.
        """
        self._validate()
        data, _ = encode_fit(X)
        position = {name: i for i, name in enumerate(data.names)}
        parents = [[] for _ in data.names]
        for parent, child in edges:
            for node in (parent, child):
                if node not in position:
                    raise ValueError(f"Edge ({parent!r}, {child!r}) names unknown column {node!r}.")
            parents[position[child]].append(position[parent])
        cache = FamilyScoreCache(data, self)
        return sum(cache.local_score(child, pa) for child, pa in enumerate(parents))


class BDeu(BaseScore):
    r"""Bayesian Dirichlet equivalent uniform score (Heckerman et al. 1995).

    With ``a_j = ess / q`` and ``a_jk = ess / (q r)``:

    .. math::
        \sum_j \left[\log\Gamma(a_j) - \log\Gamma(a_j + N_j)\right]
        + \sum_{j,k} \left[\log\Gamma(a_{jk} + N_{jk}) - \log\Gamma(a_{jk})\right]

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

    def __init__(self, ess=1.0, edge_penalty=0.0):
        self.ess = ess
        self.edge_penalty = edge_penalty

    def _data_score(self, counts, n_parent_configs):
        a_row = self.ess / n_parent_configs
        a_cell = a_row / counts.shape[1]
        return (
            np.sum(gammaln(a_row) - gammaln(a_row + counts.sum(axis=1)))
            + np.sum(gammaln(a_cell + counts)) - counts.size * gammaln(a_cell)
        )


class K2Score(BaseScore):
    r"""Cooper-Herskovits (K2) Bayesian Dirichlet score: every pseudo-count is 1.

    .. math::
        \sum_j \left[\log\Gamma(r) - \log\Gamma(r + N_j)\right] + \sum_{j,k} \log\Gamma(1 + N_{jk})

    Not score equivalent: Markov-equivalent DAGs can score differently.

    Parameters
    ----------
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    def _data_score(self, counts, n_parent_configs):
        r = counts.shape[1]
        return np.sum(gammaln(r) - gammaln(r + counts.sum(axis=1))) + np.sum(gammaln(1 + counts))


def _log_likelihood(counts):
    """Maximised log-likelihood ``sum_jk N_jk log(N_jk / N_j)`` (0 log 0 = 0)."""
    return np.sum(xlogy(counts, counts)) - np.sum(xlogy(counts.sum(axis=1), counts.sum(axis=1)))


class LogLikelihood(BaseScore):
    r"""Maximised log-likelihood :math:`\sum_{j,k} N_{jk} \log(N_{jk}/N_j)`.

    It never decreases when a parent is added: bound the search with ``max_indegree``.

    Parameters
    ----------
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    score_equivalent = True

    def _data_score(self, counts, n_parent_configs):
        return _log_likelihood(counts)


class BIC(BaseScore):
    r"""Bayesian information criterion / MDL (Schwarz 1978).

    .. math:: LL - \frac{\log n}{2} (r - 1) q

    where ``(r - 1) q`` is the family's number of free parameters.

    Parameters
    ----------
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    score_equivalent = True

    def _data_score(self, counts, n_parent_configs):
        n = counts.sum()
        penalty = 0.5 * math.log(n) * (counts.shape[1] - 1) * n_parent_configs if n > 0 else 0.0
        return _log_likelihood(counts) - penalty


class AIC(BaseScore):
    r"""Akaike information criterion :math:`LL - (r - 1) q`.

    Parameters
    ----------
    edge_penalty : float, default=0.0
        Log structure prior ``-edge_penalty`` per edge.
    """

    score_equivalent = True

    def _data_score(self, counts, n_parent_configs):
        return _log_likelihood(counts) - (counts.shape[1] - 1) * n_parent_configs


_ALIASES = {
    "bdeu": BDeu,
    "k2": K2Score,
    "bic": BIC,
    "aic": AIC,
    "loglik": LogLikelihood,
    "log_likelihood": LogLikelihood,
}


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


class FamilyScoreCache:
    """Local scores of families on one data set, cached by ``(child, sorted parents)``.

    Lives only while an estimator fits; holds the encoded data.

    Parameters
    ----------
    data : EncodedData
        The encoded data set.
    scorer : BaseScore
        The score of every family.
    """

    def __init__(self, data, scorer):
        self.data = data
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
            counts = family_table(self.data.codes, self.data.cardinalities, child, key[1])
            value = self.score_table(counts, child, key[1])
            self._cache[key] = value
        return value

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
        q = n_configurations(self.data.cardinalities, parents)
        return self.scorer.local_score(counts, q, len(parents))

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
