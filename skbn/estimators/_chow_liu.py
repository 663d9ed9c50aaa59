"""Chow-Liu trees and tree-augmented naive Bayes."""

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import minimum_spanning_tree
from sklearn.utils import ClassifierTags

from skbn._counting import (
    marginal_stack,
    pair_family_stack,
    pairwise_tables,
    stratified_codes,
    weights_are_integral,
)
from skbn.estimators._base import _MISSING_CONSTRAINTS, _BaseStructureLearner, _column_position
from skbn.scores import resolve_scorer
from skbn.utils._progress import Progress
from skbn.utils._sklearn_compat import StrOptions


def _pair_tables(data, features, stratum, gram=None):
    """One-hot Gram matrix of ``features`` (of the codes ``x_i r_c + c`` within the strata
    of ``stratum`` when given), its offsets and the stratum's weighted counts ``N_c``;
    ``gram``: the already computed ``(gram, offsets)`` of every column of ``data`` (then
    ``features`` are all columns in order and ``stratum`` is None)."""
    if gram is not None:
        return *gram, None
    if stratum is None:
        gram, offsets = pairwise_tables(data.codes[:, features], data.cardinalities[features],
                                        weights=data.weights)
        return gram, offsets, None
    codes, cards = stratified_codes(data.codes, data.cardinalities, features, stratum)
    gram, offsets = pairwise_tables(codes, cards, weights=data.weights)
    r_c = int(data.cardinalities[stratum])
    first = np.diag(gram)[offsets[0]:offsets[1]]  # N_{a c} of the first feature
    return gram, offsets, first.reshape(-1, r_c).sum(axis=0)


def pairwise_mutual_information(data, features, stratum=None, counter=None):
    r"""Matrix of (conditional) mutual informations, in nats, between ``features``.

    .. math:: I(X_i; X_j \mid C) = \sum_{a,b,c} \frac{N_{abc}}{n}
              \log \frac{N_{abc} N_c}{N_{ac} N_{bc}}

    with ``N`` weighted counts and ``n`` the total weight: ``n I`` is the log-likelihood
    gain of the edge, ``LL(j | i [, c]) - LL(j [| c])`` (:func:`_score_gains` with the
    ``"loglik"`` score). ``counter``: as in :func:`_score_gains`.
    """
    mi = _score_gains(data, features, stratum, resolve_scorer("loglik"), counter) / data.total_weight
    np.fill_diagonal(mi, 0.0)
    return np.maximum(mi, 0.0)


def _score_gains(data, features, stratum, scorer, counter=None):
    """Symmetric matrix of ``local(j | i [, c]) - local(j [| c])`` (``i < j``) for a
    score-equivalent scorer.

    All pairs come from one one-hot Gram matrix (BLAS) of the codes ``x_i r_c + c`` (its
    cells with different classes are zero, its diagonal holds ``N_{ac}``); the families
    ``j | i [, c]`` of all pairs are scored in one batch. ``counter``: a
    :class:`~skbn._counting.FamilyCounter` of ``data`` already in use (then ``features``
    are all columns in order and ``stratum`` is None), whose Gram matrix and pair tables
    are read instead of counted again.
    """
    gram, offsets, _ = _pair_tables(data, features, stratum, None if counter is None else counter.pairwise())
    r_c = 1 if stratum is None else int(data.cardinalities[stratum])
    extra = 0 if stratum is None else 1
    cards = np.diff(offsets)
    r_features = np.asarray(data.cardinalities)[features]
    p = len(features)
    integral = weights_are_integral(data.weights)
    # local(j [| c]) from the counts N_{bc} on the diagonal, in one batch
    base = scorer.local_scores(marginal_stack(np.diag(gram), r_features, r_c, extra, data.total_weight,
                                              integral))
    if counter is not None:
        stack = counter.pair_stack()
    else:  # joint[s_j + b, o_i + a r_c + c]: rows with x_j = b, x_i = a and class c
        joint = gram.reshape(gram.shape[0], -1, r_c).sum(axis=2).T
        stack = pair_family_stack(joint, r_features, cards, offsets, 1 + extra, data.total_weight, integral)
    gains = scorer.local_scores(stack).reshape(p, p).T - base  # gains[i, j] = local(j | i) - local(j)
    upper = np.triu(gains, k=1)
    return upper + upper.T


def maximum_spanning_tree(weights, root):
    """Edges (parent, child) of a maximum-weight spanning forest, oriented away from ``root``.

    Only positive weights are candidate edges. Uses scipy's minimum spanning tree on
    ``max(w) + 1 - w``; components not containing ``root`` are rooted at their smallest index.
    """
    p = weights.shape[0]
    upper = np.triu(weights > 0, k=1)
    shifted = np.where(upper, weights.max() + 1.0 - weights, 0.0)
    tree = minimum_spanning_tree(csr_matrix(shifted)).tocoo()
    neighbours = [[] for _ in range(p)]
    for u, v in zip(tree.row.tolist(), tree.col.tolist()):
        neighbours[u].append(v)
        neighbours[v].append(u)
    # orient away from the root of each component: in a forest every node but the root
    # has exactly one neighbour nearer the root, its parent, whatever the visiting order
    edges, seen = [], [False] * p
    for start in [root] + [i for i in range(p) if i != root]:
        if seen[start]:
            continue
        seen[start] = True
        queue = [start]
        for u in queue:  # grows while it is read: breadth-first
            for v in neighbours[u]:
                if not seen[v]:
                    seen[v] = True
                    edges.append((u, v))
                    queue.append(v)
    return sorted(edges, key=lambda e: (e[1], e[0]))


def maximum_branching(weights, allowed):
    """Parents of a maximum-weight branching (a forest of arborescences): ``parent[v]`` is
    ``-1`` (a root) or ``u`` with ``allowed[u, v]``, the parent graph is acyclic, and
    ``sum_v weights[parent[v], v]`` (a root adds 0) is the largest possible.

    Chu-Liu/Edmonds on a virtual root joined to every node by a 0-weight arc: each node
    takes its best incoming arc; a cycle is contracted (arcs into it re-weighted by the
    cycle arc they replace) and the problem solved again. Ties: the virtual root, then
    the smallest index.
    """
    p = weights.shape[0]
    W = np.full((p + 1, p + 1), -np.inf)
    W[0, 1:] = 0.0
    W[1:, 1:] = np.where(allowed, weights, -np.inf)
    np.fill_diagonal(W, -np.inf)
    parent = _edmonds(W)
    return np.asarray(parent[1:]) - 1


def _edmonds(W):
    n = W.shape[0]
    parent = [-1] + [int(np.argmax(W[:, v])) for v in range(1, n)]  # first maximum wins
    cycle = _find_cycle(parent)
    if cycle is None:
        return parent
    in_cycle = np.zeros(n, dtype=bool)
    in_cycle[cycle] = True
    outside = [v for v in range(n) if not in_cycle[v]]  # root 0 stays first
    index = {v: k for k, v in enumerate(outside)}
    c = len(outside)
    W2 = np.full((c + 1, c + 1), -np.inf)
    W2[:c, :c] = W[np.ix_(outside, outside)]
    enter = {}
    leave = {}
    for u in outside:
        gains = W[u, cycle] - W[[parent[v] for v in cycle], cycle]
        k = int(np.argmax(gains))
        W2[index[u], c] = gains[k]
        enter[u] = cycle[k]
    for v in outside:
        k = int(np.argmax(W[cycle, v]))
        W2[c, index[v]] = W[cycle[k], v]
        leave[v] = cycle[k]
    sub = _edmonds(W2)
    result = list(parent)
    for v in outside:
        if v == 0:
            continue
        u = sub[index[v]]
        result[v] = leave[v] if u == c else outside[u]
    u = outside[sub[c]]
    result[enter[u]] = u
    return result


def _find_cycle(parent):
    n = len(parent)
    state = [0] * n  # 0 unseen, 1 on the current path, 2 done
    for start in range(n):
        path = []
        v = start
        while v != -1 and state[v] == 0:
            state[v] = 1
            path.append(v)
            v = parent[v]
        if v != -1 and state[v] == 1:
            return path[path.index(v):]
        for w in path:
            state[w] = 2
    return None



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
    arcs together). Chu-Liu/Edmonds (:func:`maximum_branching`) finds it exactly; without
    constraints its weight is that of the maximum spanning tree. When the knowledge cannot
    be met by a tree (two required parents of one node, a cycle of required pairs) ``fit``
    raises, listing what is broken.

    Parameters
    ----------
    root : column label or None, default=None
        Root of the tree; default the target if there is one (the first feature for TAN),
        else the first column.
    variant : {"chow_liu", "tan"}, default="chow_liu"
    scorer : str or BaseScore, default="loglik"
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
        :class:`skbn.estimators.HillClimbStructure`: alternate expected completions under the
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
    network_ : DiscreteBayesianNetwork
    weights_ : ndarray of shape (n_variables, n_variables)
        Edge weights used (log-likelihood gains; conditional ones for TAN, target row 0).
    scorer_ : BaseScore
    categories_ : list of ndarray
    classes_ : ndarray of shape (n_classes,), only with a target
        The target's states sorted as ``np.unique`` sorts them (the column order of
        ``predict_proba``), whatever the order of a categorical target's categories.
    n_features_in_, feature_names_in_

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
    _knowledge = ("white_list", "black_list", "tiers")
    _missing_modes = ("error", "complete_case", "em")
    _structural_em = True

    def __init__(
        self,
        *,
        root=None,
        variant="chow_liu",
        scorer="loglik",
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
        features = [i for i in range(data.n_variables) if not (tan and i == target)]
        root = self._root_position(data, target, tan, features)
        stratum = target if tan else None
        progress = Progress(self.verbose, "ChowLiuTree", unit="pairs",
                            detail=f"variant={self.variant!r}, {data.n_variables} columns, "
                                   f"{data.n_samples:,} rows")
        gains = _score_gains(data, features, stratum, self.scorer_)
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

    def _knowledge_tree(self, data, knowledge, gains, features, root):
        """Maximum spanning tree over ``features`` under the knowledge, oriented."""
        if knowledge.is_empty:
            return maximum_spanning_tree(gains, features.index(root))
        sub = np.ix_(features, features)
        # an arc is allowed unless forbidden or against a one-way required edge; the
        # root given by the user has no parent
        allowed = ~(knowledge.forbidden | knowledge.required_directed.T)[sub]
        if self.root is not None:
            allowed[:, features.index(root)] = False
        # required pairs are worth more than all other arcs together: taken whenever possible
        bonus = 2.0 * np.abs(gains).sum() + 1.0
        weights = gains + bonus * knowledge.required_adjacency[sub]
        parent = maximum_branching(weights, allowed)
        return [(int(u), v) for v, u in enumerate(parent) if u >= 0]

    def _root_position(self, data, target, tan, features):
        if self.root is None:
            return target if target is not None and not tan else features[0]
        root = _column_position(self.root, data.names, "root")
        if root not in features:
            raise ValueError("With variant='tan' the root must be a feature, not the target.")
        return root
