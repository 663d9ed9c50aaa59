"""K2: greedy parent selection given a variable ordering (Cooper & Herskovits 1992)."""

from numbers import Integral

import numpy as np

from skbn._data import name_ranks
from skbn._engines._local_scores import FamilyColumns
from skbn._engines._search import improves, tolerance
from skbn.estimators._base import _MISSING_CONSTRAINTS, _BaseStructureLearner
from skbn.utils._progress import Progress, amount
from skbn.utils._sklearn_compat import Interval
from skbn.utils._warnings import warn_user


def k2_parents(columns, child, predecessors, max_parents, required=()):
    """Greedy K2 parent set of ``child`` among ``predecessors``; returns (parents, score).

    The parents start as ``required``. Each round scores every remaining predecessor
    added to the current parents — one :meth:`FamilyColumns.toggle_column` pass counts all
    candidate families at once — and adds the best one while it improves the family
    score. Candidates are scanned in column order; among candidates within the tie
    tolerance of the best, the first wins.
    """
    parents = tuple(sorted(required))
    column = columns.toggle_column(child, parents)
    best = column[child]
    candidates = sorted(set(predecessors) - set(parents))
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
    that most increase its family score, until none improves it or ``max_indegree`` is
    reached.

    Background knowledge (:mod:`skbn.knowledge`): the candidate parents of a variable are
    its predecessors in ``ordering`` minus the forbidden ones (``black_list``, ``tiers``);
    its required parents (``white_list``) are always taken, the greedy search starting
    from them. A white-listed pair listed both ways is oriented by the ordering; a one-way
    white-listed edge against the ordering is an error.

    Parameters
    ----------
    ordering : sequence of column labels or None, default=None
        Variable ordering (parents only come earlier): an input, as in Cooper & Herskovits
        (1992). ``None``: the columns sorted by name (the tie rule of every learner, see
        ``docs/reproducibility.md``: the column order of ``X`` never changes a result), with
        a ``UserWarning`` (K2 depends on the ordering; one that is not causal gives many
        extra edges); pass ``ordering=list(X.columns)`` for the column order. With a
        target (``fit(X, y)`` or ``target=``, the same model either way) the default
        ordering places it first, and a given ordering may name it or leave it out
        (then it is placed first). With
        ``latent``, a given ordering must name the latent variables too; the default
        ordering puts them first, in the order of ``latent`` (hidden causes: a latent
        variable may become a parent of any column, never a child).
    max_indegree : int or None, default=None
        Upper bound on each family's number of parents.
    white_list : sequence of (parent, child), default=()
        Required edges (both directions listed: the ordering picks the direction).
    black_list : sequence of (parent, child), default=()
        Forbidden edges.
    tiers : sequence of sequences of columns or None, default=None
        No edge from a later tier into an earlier one.
    scorer : str or BaseScore, default="auto"
        "auto" is "k2" on discrete data, "bic-g" on continuous data and "bic-cg" on
        mixed data (``scorer_`` holds the one used; see ``docs/gaussian.md``).
        Any decomposable score ("k2", "bdeu", "bic", "aic", or an object).
    missing : {"error", "complete_case", "em"}, default="error"
        Missing cells (NaN/None) in ``X``: refuse them; drop incomplete rows (with a warning
        giving their number); or structural EM (Friedman 1997) as in
        :class:`skbn.HillClimbStructure`: alternate expected completions under the
        current network (weighted rows) and the K2 search in the given ordering on them, which
        re-runs from the empty graph every iteration (``docs/missing.md``).
    {structural_em_parameters}
    random_state : int, RandomState instance or None, default=None
        Seeds EM's random initialisations (``n_init > 1``) and Gibbs draws.
    {verbose_parameter}
    {common_parameters}

    Attributes
    ----------
    edges_ : list of (parent, child)
    network_ : DiscreteBayesianNetwork, GaussianBayesianNetwork or CLGBayesianNetwork
        The DAG with its parameters: CPTs on discrete data, linear Gaussian regressions
        on continuous columns (a CLG network on mixed data; ``docs/gaussian.md``).
    score_ : float
        Score of the learned DAG.
    {interventional_cpdag_attribute}
    scorer_ : BaseScore
    ordering_ : list of column labels
    {structural_em_attributes}
    {common_attributes}

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
        **_MISSING_CONSTRAINTS,
        "random_state": ["random_state"],
        "ordering": [None, list, tuple, np.ndarray],
        "max_indegree": [None, Interval(Integral, 0, None, closed="left")],
        "scorer": "no_validation",
        "verbose": ["verbose"],
    }
    _plugins = ("scorer",)
    _auto_plugins = {"scorer": ("k2", "bic-g", "bic-cg")}
    _continuous = True
    _knowledge = ("white_list", "black_list", "tiers", "max_indegree")
    _bounded_score = True
    _missing_modes = ("error", "complete_case", "em")
    _structural_em = True
    _interventions = True

    def __init__(
        self,
        *,
        ordering=None,
        max_indegree=None,
        white_list=(),
        black_list=(),
        tiers=None,
        scorer="auto",
        missing="error",
        latent=None,
        e_step="exact",
        n_init=1,
        em_max_iter=100,
        em_tol=1e-6,
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
        self.ordering = ordering
        self.verbose = verbose
        self.max_indegree = max_indegree
        self.white_list = white_list
        self.black_list = black_list
        self.tiers = tiers
        self.scorer = scorer
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

    def _order(self, data):
        names = list(data.names)
        latent = [names.index(v) for v in self._latent_states(())]
        if self.ordering is None:  # the columns in name order (those of the search's sorted data)
            first = [] if data.target is None else [data.target]
            order = [i for i in np.argsort(name_ranks(names), kind="stable").tolist()
                     if i not in latent and i not in first]
            return latent + first + order  # hidden causes first: a latent may parent any column
        labels = list(self.ordering)
        unknown = [v for v in labels if v not in names]
        if unknown:
            raise ValueError(f"ordering names unknown columns {unknown}.")
        if len(set(labels)) != len(labels):
            raise ValueError("ordering contains duplicates.")
        order = [names.index(v) for v in labels]
        left_out = [i for i in range(data.n_variables) if i not in set(order)]
        hidden = [names[i] for i in left_out if i in latent]
        if hidden:
            raise ValueError(f"ordering must name the latent variables too; missing {hidden}.")
        if left_out and left_out != [data.target]:
            raise ValueError(f"ordering must name every column; missing {[names[i] for i in left_out]}.")
        return left_out + order

    def _family_reach(self, data, knowledge):
        """:meth:`_BaseStructureLearner._family_reach` within the ordering: only the
        columns before a column may be its parents, and a white-listed pair listed both ways
        is a parent the later column always has."""
        allowed, _, bound = super()._family_reach(data, knowledge)
        position_of = np.argsort(self._order(data))
        before = position_of[:, None] < position_of[None, :]
        return allowed & before, np.asarray(knowledge.required_adjacency) & before, bound

    def _learn_structure(self, data, knowledge, *, start=None, counter=None):
        order = self._order(data)
        if self.ordering is None and data.n_variables > 1:
            warn_user(
                "K2Structure(ordering=None) takes the columns sorted by name as the causal "
                "ordering: a column can only get parents among the columns before it, and the "
                "learned graph depends on that order (a wrong one adds many edges). Pass "
                "ordering= (a known causal or temporal order of the columns, e.g. "
                "list(X.columns) if they are in one), or use a learner that needs none, e.g. "
                "HillClimbStructure() or PCStructure().",
                UserWarning,
            )
        position_of = np.argsort(order)
        against = np.argwhere(knowledge.required_directed & (position_of[:, None] > position_of[None, :]))
        if len(against):
            i, j = against[0]
            raise ValueError(
                f"white_list requires {data.names[i]!r} -> {data.names[j]!r}, but the ordering "
                f"puts {data.names[j]!r} before {data.names[i]!r}."
            )
        # required adjacencies, oriented by the ordering
        required = knowledge.required_adjacency & (position_of[:, None] < position_of[None, :])
        crowded = np.flatnonzero(required.sum(axis=0) > knowledge.max_indegree)
        if len(crowded):
            raise ValueError(
                f"white_list gives {data.names[crowded[0]]!r} {int(required[:, crowded[0]].sum())} "
                f"parents in this ordering, more than max_indegree={knowledge.max_indegree}."
            )
        progress = Progress(self.verbose, "K2Structure", total=len(order), unit="variable",
                            detail=f"{amount(data.n_variables, 'column')}, {amount(data.n_samples, 'row')}")
        columns = FamilyColumns(data, self.scorer_)
        edges, total = [], 0.0
        for position, child in enumerate(order):
            allowed = set(order[:position]) & set(knowledge.allowed_parents(child).tolist())
            parents, value = k2_parents(columns, child, allowed, knowledge.max_indegree,
                                        np.flatnonzero(required[:, child]).tolist())
            edges.extend((p, child) for p in sorted(parents))
            total += value
            progress.message(f"{data.names[child]!r}: parents {[data.names[p] for p in sorted(parents)]}")
            progress.update(position + 1, edges=len(edges))
        self.ordering_ = [data.names[i] for i in order]
        self.score_ = total
        progress.close(score=total, edges=len(edges))
        self.interventional_cpdag_ = self._interventional_cpdag(data, edges, knowledge)
        return edges
