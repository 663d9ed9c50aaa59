"""K2: greedy parent selection given a variable ordering (Cooper & Herskovits 1992)."""

from numbers import Integral

import numpy as np

from skbn._search import FamilyColumns, improves, tolerance
from skbn.estimators._base import _BaseStructureLearner
from skbn.scores import resolve_scorer
from skbn.utils._sklearn_compat import Interval


def k2_parents(columns, child, predecessors, max_parents):
    """Greedy K2 parent set of ``child`` among ``predecessors``; returns (parents, score).

    Each round scores every remaining predecessor added to the current parents — one
    :meth:`FamilyColumns.toggle_column` pass counts all candidate families at once — and
    adds the best one while it improves the family score. Candidates are scanned in column
    order; among candidates within the tie tolerance of the best, the first wins.
    """
    parents = ()
    column = columns.toggle_column(child, parents)
    best = column[child]
    candidates = sorted(predecessors)
    while len(parents) < max_parents and candidates:
        values = column[candidates]
        top = values.max()
        choice = candidates[int(np.flatnonzero(values >= top - tolerance(top))[0])]
        if not improves(column[choice], best):
            break
        candidates.remove(choice)
        parents = tuple(sorted(parents + (choice,)))
        column = columns.toggle_column(child, parents)
        best = column[child]
    return list(parents), best


class K2Structure(_BaseStructureLearner):
    """K2 structure search: each variable takes, greedily, the predecessors in ``ordering``
    that most increase its family score, until none improves it or ``max_parents`` is reached.

    Parameters
    ----------
    ordering : sequence of column labels or None, default=None
        Variable ordering (parents only come earlier); default the column order. With a
        target fitted through ``y`` the target may be named or is placed first.
    max_parents : int or None, default=None
        Upper bound on each family's number of parents.
    scorer : str or BaseScore, default="k2"
        Any decomposable score ("k2", "bdeu", "bic", "aic", or an object).
    {common_parameters}

    Attributes
    ----------
    edges_ : list of (parent, child)
    network_ : DiscreteBayesianNetwork
    score_ : float
        Score of the learned DAG.
    scorer_ : BaseScore
    ordering_ : list of column labels
    categories_, classes_, n_features_in_, feature_names_in_

    References
    ----------
    Cooper & Herskovits (1992), "A Bayesian method for the induction of probabilistic
    networks from data", Machine Learning 9.

    Examples
    --------
    >>> from skbn import K2Structure
    >>> from skbn.datasets import sample_asia
    >>> order = ["asia", "smoke", "tub", "lung", "bronc", "either", "xray", "dysp"]
    >>> model = K2Structure(ordering=order).fit(sample_asia(5000, random_state=0)[order])
    >>> ("smoke", "lung") in model.edges_
    True
    """

    _parameter_constraints = {
        **_BaseStructureLearner._parameter_constraints,
        "ordering": [None, list, tuple, np.ndarray],
        "max_parents": [None, Interval(Integral, 0, None, closed="left")],
        "scorer": "no_validation",
    }

    def __init__(
        self,
        *,
        ordering=None,
        max_parents=None,
        scorer="k2",
        categories="auto",
        handle_unknown="error",
        target=None,
        fit_parameters=True,
        parameter_estimator="bayes",
        parameter_ess=1.0,
    ):
        self.ordering = ordering
        self.max_parents = max_parents
        self.scorer = scorer
        self.categories = categories
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess

    def _order(self, data):
        names = list(data.names)
        if self.ordering is None:
            order = list(range(data.n_variables))
            if self._target_index is not None and self.target is None:
                order = [order[-1]] + order[:-1]
            return order
        labels = list(self.ordering)
        unknown = [v for v in labels if v not in names]
        if unknown:
            raise ValueError(f"ordering names unknown columns {unknown}.")
        if len(set(labels)) != len(labels):
            raise ValueError("ordering contains duplicates.")
        order = [names.index(v) for v in labels]
        left_out = [i for i in range(data.n_variables) if i not in set(order)]
        if left_out and not (left_out == [self._target_index] and self.target is None):
            raise ValueError(f"ordering must name every column; missing {[names[i] for i in left_out]}.")
        return left_out + order

    def _learn_structure(self, data):
        self.scorer_ = resolve_scorer(self.scorer)
        order = self._order(data)
        max_parents = data.n_variables if self.max_parents is None else self.max_parents
        columns = FamilyColumns(data, self.scorer_)
        edges, total = [], 0.0
        for position, child in enumerate(order):
            parents, value = k2_parents(columns, child, order[:position], max_parents)
            edges.extend((p, child) for p in sorted(parents))
            total += value
        self.ordering_ = [data.names[i] for i in order]
        self.score_ = total
        return edges
