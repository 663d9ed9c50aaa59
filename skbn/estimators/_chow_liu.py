"""Chow-Liu trees and tree-augmented naive Bayes."""

import numpy as np
from sklearn.utils import ClassifierTags

from skbn._dag import maximum_branching, maximum_spanning_tree
from skbn._data import name_ranks
from skbn._engines._local_scores import pair_score_gains
from skbn.estimators._base import _MISSING_CONSTRAINTS, _BaseStructureLearner, _column_position, _labelled
from skbn.utils._progress import Progress, amount
from skbn.utils._sklearn_compat import StrOptions


class ChowLiuTree(_BaseStructureLearner):
    r"""Chow-Liu tree: the maximum-likelihood tree-shaped Bayesian network.

    Edge weights are the empirical mutual informations ``n I(X_i; X_j)``, i.e. the gain in
    log-likelihood of adding the edge (with another score-equivalent ``scorer``, the gain in
    that score), all computed at once from one one-hot Gram matrix product. The maximum
    spanning tree over positive weights is oriented away from ``root``. With
    ``variant="tan"`` and a target, the tree-augmented naive Bayes classifier of Friedman
    et al. (1997): the target is a parent of every feature and the tree over the features
    maximises the conditional mutual information given the target.

    Background knowledge (:mod:`skbn.knowledge`): the tree becomes the maximum-weight
    *branching* (a forest of trees each oriented away from its root, every node with at most
    one parent) among the arcs the knowledge allows -- no forbidden arc (``black_list``,
    ``tiers``), no arc against a one-way ``white_list`` edge, no parent for a ``root`` you
    give -- with the white-listed pairs taken whenever possible (they outweigh all other
    arcs together). Chu-Liu/Edmonds (``maximum_branching`` in ``skbn/_dag.py``) finds it exactly; without
    constraints its weight is that of the maximum spanning tree. When no direction is
    constrained (pairs forbidden both ways; TAN's features on mixed data, where the
    conditional-Gaussian rule forbids only arcs into the class) it is the maximum spanning
    forest of the allowed pairs, oriented away from ``root`` as without knowledge. When the knowledge cannot
    be met by a tree (two required parents of one node, a cycle of required pairs) ``fit``
    raises, listing what is broken.

    Parameters
    ----------
    root : column label or None, default=None
        Root of the tree; default the target if there is one (the first feature for TAN),
        else the first column (first by name: columns are searched in name order). When
        the knowledge constrains directions (mixed features, whose discrete members take no
        continuous parent; one-way white-listed edges), the maximum branching decides the
        roots of the default instead.
    variant : {"chow_liu", "tan"}, default="chow_liu"
    scorer : str or BaseScore, default="auto"
        "auto" is "loglik" on discrete data, "loglik-g" on continuous data and "loglik-cg" on
        mixed data (``scorer_`` holds the one used; see ``docs/gaussian.md``).
        Score whose family gains weight the edges; must be score-equivalent.
    white_list : sequence of (parent, child), default=()
        Required edges (both directions listed: a required adjacency of free direction).
    black_list : sequence of (parent, child), default=()
        Forbidden edges.
    tiers : sequence of sequences of columns or None, default=None
        No edge from a later tier into an earlier one.
    missing : {"error", "complete_case", "em"}, default="error"
        Missing cells (NaN/None) in ``X``: refuse them; drop incomplete rows (with a warning
        giving their number); or structural EM (Friedman 1997) as in
        :class:`skbn.HillClimbStructure`: alternate expected completions under the
        current network (weighted rows) and a new maximum spanning tree on them, which is re-
        built from scratch every iteration (``docs/missing.md``).
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
    weights_ : ndarray of shape (n_variables, n_variables)
        Edge weights used (log-likelihood gains; conditional ones for TAN, target row 0).
    scorer_ : BaseScore
    {structural_em_attributes}
    {common_attributes}

    References
    ----------
    Chow & Liu (1968), IEEE Trans. Inf. Theory 14(3). Friedman, Geiger & Goldszmidt (1997),
    Machine Learning 29.

    Examples
    --------
    >>> from skbn import ChowLiuTree
    >>> from skbn.datasets import sample_asia
    >>> model = ChowLiuTree().fit(sample_asia(2000, random_state=0))
    >>> len(model.edges_)
    7
    """

    _parameter_constraints = {
        **_BaseStructureLearner._parameter_constraints,
        **_MISSING_CONSTRAINTS,
        "random_state": ["random_state"],
        "root": "no_validation",
        "variant": [StrOptions({"chow_liu", "tan"})],
        "scorer": "no_validation",
        "verbose": ["verbose"],
    }
    _plugins = ("scorer",)
    _auto_plugins = {"scorer": ("loglik", "loglik-g", "loglik-cg")}
    _continuous = True
    _knowledge = ("white_list", "black_list", "tiers")
    _missing_modes = ("error", "complete_case", "em")
    _structural_em = True

    def __init__(
        self,
        *,
        root=None,
        variant="chow_liu",
        scorer="auto",
        white_list=(),
        black_list=(),
        tiers=None,
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
        self.root = root
        self.verbose = verbose
        self.variant = variant
        self.scorer = scorer
        self.white_list = white_list
        self.black_list = black_list
        self.tiers = tiers
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

    def __sklearn_tags__(self):
        """``variant="tan"`` without ``target=`` is a classifier of ``y``: ``fit(X, y)`` needs
        ``y``, and ``cross_val_score`` / ``GridSearchCV`` then split with stratified folds."""
        tags = super().__sklearn_tags__()
        if self.variant == "tan" and self.target is None:
            tags.estimator_type = "classifier"
            tags.classifier_tags = ClassifierTags()
            tags.target_tags.required = True
        return tags

    def _family_reach(self, data, knowledge):
        """:meth:`_BaseStructureLearner._family_reach` of a tree: one parent at most (none
        for the root, the target's class besides it for TAN's features); the one-way
        white-listed edges fix the direction of their pairs."""
        allowed, required, bound = super()._family_reach(data, knowledge)
        allowed &= ~np.asarray(knowledge.required_directed).T
        target, tan = data.target, self.variant == "tan" and data.target is not None
        features = [i for i in np.argsort(name_ranks(data.names), kind="stable").tolist()
                    if not (tan and i == target)]
        bound = np.ones(data.n_variables, dtype=np.int64)
        try:
            bound[self._root_position(data, target, tan, features)] = 0
        except ValueError:  # (a root the search refuses, naming it)
            pass
        if tan:  # the class is a parent of every feature, and has none
            required = required.copy()
            required[target, features] = True
            bound[features] += 1
            bound[target] = 0
        return allowed, required, bound

    def _learn_structure(self, data, knowledge, *, start=None, counter=None):
        if not self.scorer_.score_equivalent:
            raise ValueError(
                f"ChowLiuTree needs a score-equivalent scorer (symmetric edge weights); "
                f"{type(self.scorer_).__name__} is not. Use 'loglik', 'bdeu', 'bic' or 'aic'."
            )
        target = data.target
        tan = self.variant == "tan"
        if tan and target is None:
            raise ValueError(
                "ChowLiuTree(variant='tan') requires y to be passed, but the target y is None: "
                "fit(X, y), or name a column of X with target=<column>."
            )
        if tan and data.continuous[target]:
            raise ValueError(
                f"ChowLiuTree(variant='tan') is a classifier: its target {data.names[target]!r} must be "
                "discrete, but it is continuous (non-integer numbers). Declare it discrete with "
                "column_types, or use variant='chow_liu' with target= to predict it."
            )
        features = [i for i in range(data.n_variables) if not (tan and i == target)]
        root = self._root_position(data, target, tan, features)
        stratum = target if tan else None
        progress = Progress(self.verbose, "ChowLiuTree", unit="pair",
                            detail=f"variant={self.variant!r}, {amount(data.n_variables, 'column')}, "
                                   f"{amount(data.n_samples, 'row')}")
        gains = pair_score_gains(data, features, stratum, self.scorer_)
        progress.message(f"{len(features) * (len(features) - 1) // 2:,} pair weights in "
                         f"{progress.elapsed():.2f} s")
        tree = self._knowledge_tree(data, knowledge, gains, features, root)
        edges = [(features[p], features[c]) for p, c in tree]
        self.weights_ = np.zeros((data.n_variables, data.n_variables))
        self.weights_[np.ix_(features, features)] = gains
        if tan:
            edges = [(target, f) for f in features] + edges
        if not knowledge.is_empty:
            graph = np.zeros((data.n_variables, data.n_variables), dtype=bool)
            for parent, child in edges:
                graph[parent, child] = True
            broken = knowledge.violations(graph)
            if broken:
                raise ValueError(
                    "ChowLiuTree cannot honour the background knowledge: " + "; ".join(broken)
                    + ". (A tree holds no cycle of required adjacencies and at most one parent "
                    "per node; with a target, variant='tan' makes it a parent of every feature.)"
                )
        progress.close(done=len(features) * (len(features) - 1) // 2, edges=len(edges))
        return edges

    def _restore_column_order(self, names):
        super()._restore_column_order(names)
        rank = name_ranks(names)  # each column's row of the matrix over name-ordered columns
        self.weights_ = self.weights_[np.ix_(rank, rank)]

    def _knowledge_tree(self, data, knowledge, gains, features, root):
        """Maximum spanning tree over ``features`` under the knowledge, oriented."""
        if knowledge.is_empty:
            return maximum_spanning_tree(gains, features.index(root))
        sub = np.ix_(features, features)
        # an arc is allowed unless forbidden or against a one-way required edge; the
        # root given by the user has no parent
        allowed = ~(knowledge.forbidden | knowledge.required_directed.T)[sub]
        # required pairs are worth more than all other arcs together: taken whenever possible.
        # The bonus is a sum of the finite gains: a pair whose family scores -inf (a
        # continuous child of a sparse discrete parent) is no arc, required or not, and
        # must not make the bonus infinite (inf * 0 would turn every other weight to NaN)
        finite = gains[np.isfinite(gains)]
        bonus = 2.0 * np.abs(finite).sum() + 1.0
        weights = np.where(knowledge.required_adjacency[sub], gains + bonus, gains)
        if np.array_equal(allowed, allowed.T):
            # no direction is constrained (pairs forbidden both ways, TAN's features on
            # mixed data, where the conditional-Gaussian rule constrains only arcs into the
            # class): every orientation of the maximum spanning forest is a maximum
            # branching, so it is oriented away from the root, as without knowledge. The
            # branching would pick one orientation by the rounding of equal sums of weights
            # (another for weights than for the replicated rows).
            return maximum_spanning_tree(np.where(allowed, weights, -np.inf), features.index(root))
        if self.root is not None:
            allowed[:, features.index(root)] = False
        parent = maximum_branching(weights, allowed)
        return [(int(u), v) for v, u in enumerate(parent) if u >= 0]

    def _root_position(self, data, target, tan, features):
        if self.root is None:
            return target if target is not None and not tan else features[0]
        root = _column_position(_labelled(self.root, data), data.names, "root")
        if root not in features:
            raise ValueError("With variant='tan' the root must be a feature, not the target.")
        return root
