"""Chow-Liu trees and tree-augmented naive Bayes."""

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, minimum_spanning_tree

from skbn._counting import pairwise_tables
from skbn.estimators._base import _BaseStructureLearner, _column_position
from skbn.scores import LogLikelihood, resolve_scorer
from skbn.utils._sklearn_compat import StrOptions


def _combined_codes(data, features, stratum):
    """Codes of ``x_i * r_c + c`` for every feature (``stratum`` None: plain codes)."""
    if stratum is None:
        return data.codes[:, features], data.cardinalities[features], np.ones(1)
    r_c = int(data.cardinalities[stratum])
    codes = data.codes[:, features].astype(np.int64) * r_c + data.codes[:, [stratum]]
    class_counts = np.bincount(data.codes[:, stratum], minlength=r_c).astype(np.float64)
    return codes, data.cardinalities[features] * r_c, class_counts


def pairwise_mutual_information(data, features, stratum=None):
    r"""Matrix of (conditional) mutual informations, in nats, between ``features``.

    .. math:: I(X_i; X_j \mid C) = \sum_{a,b,c} \frac{N_{abc}}{n}
              \log \frac{N_{abc} N_c}{N_{ac} N_{bc}}

    All pairs at once from one one-hot Gram matrix (BLAS) of the codes ``x_i r_c + c``:
    its cells with different classes are zero, its diagonal holds ``N_{ac}``.
    """
    codes, cards, class_counts = _combined_codes(data, features, stratum)
    gram, offsets = pairwise_tables(codes, cards)
    n = data.n_samples
    r_c = len(class_counts)
    states = np.arange(gram.shape[0])
    log_class = np.log(np.maximum(class_counts, 1.0))[states % r_c] if stratum is not None else np.full(
        gram.shape[0], np.log(n)
    )
    log_marg = np.log(np.maximum(np.diag(gram), 1.0))
    with np.errstate(divide="ignore"):
        log_gram = np.log(np.where(gram > 0, gram, 1.0))
    terms = gram * (log_gram + log_class[:, None] - log_marg[:, None] - log_marg[None, :])
    starts = offsets[:-1]
    mi = np.add.reduceat(np.add.reduceat(terms, starts, axis=0), starts, axis=1) / n
    mi = (mi + mi.T) / 2  # exact symmetry despite summation order
    np.fill_diagonal(mi, 0.0)
    return np.maximum(mi, 0.0)


def _score_gains(data, features, stratum, scorer):
    """Symmetric matrix of ``local(j | i [, c]) - local(j [| c])`` for a score-equivalent scorer."""
    codes, cards, _ = _combined_codes(data, features, stratum)
    gram, offsets = pairwise_tables(codes, cards)
    r_c = 1 if stratum is None else int(data.cardinalities[stratum])
    extra = 0 if stratum is None else 1
    p = len(features)
    tables = []
    for j in range(p):
        block = np.diag(gram)[offsets[j]:offsets[j + 1]].reshape(-1, r_c).T  # (r_c, r_j)
        tables.append(scorer.local_score(block, r_c, extra))
    gains = np.zeros((p, p))
    for i in range(p):
        for j in range(i + 1, p):
            block = gram[offsets[i]:offsets[i + 1], offsets[j]:offsets[j + 1]]
            r_j = int(data.cardinalities[features[j]])
            table = block.reshape(-1, r_j, r_c).sum(axis=2)  # rows (a, c), columns b
            gains[i, j] = gains[j, i] = scorer.local_score(table, table.shape[0], 1 + extra) - tables[j]
    return gains


def maximum_spanning_tree(weights, root):
    """Edges (parent, child) of a maximum-weight spanning forest, oriented away from ``root``.

    Only positive weights are candidate edges. Uses scipy's minimum spanning tree on
    ``max(w) + 1 - w``; components not containing ``root`` are rooted at their smallest index.
    """
    p = weights.shape[0]
    upper = np.triu(weights > 0, k=1)
    shifted = np.where(upper, weights.max() + 1.0 - weights, 0.0)
    tree = minimum_spanning_tree(csr_matrix(shifted))
    tree = tree + tree.T
    edges, seen = [], np.zeros(p, dtype=bool)
    for start in [root] + [i for i in range(p) if i != root]:
        if seen[start]:
            continue
        order, predecessors = breadth_first_order(tree, start, directed=False)
        seen[order] = True
        edges.extend((int(predecessors[v]), int(v)) for v in order[1:])
    return sorted(edges, key=lambda e: (e[1], e[0]))


class ChowLiuTree(_BaseStructureLearner):
    r"""Chow-Liu tree: the maximum-likelihood tree-shaped Bayesian network.

    Edge weights are the empirical mutual informations ``n I(X_i; X_j)``, i.e. the gain in
    log-likelihood of adding the edge (with another score-equivalent ``scorer``, the gain in
    that score), all computed at once from one one-hot Gram matrix product. The maximum
    spanning tree over positive weights is oriented away from ``root``. With
    ``variant="tan"`` and a target, the tree-augmented naive Bayes classifier of Friedman
    et al. (1997): the target is a parent of every feature and the tree over the features
    maximises the conditional mutual information given the target.

    Parameters
    ----------
    root : column label or None, default=None
        Root of the tree; default the target if there is one (the first feature for TAN),
        else the first column.
    variant : {"chow_liu", "tan"}, default="chow_liu"
    scorer : str or BaseScore, default="loglik"
        Score whose family gains weight the edges; must be score-equivalent.
    {common_parameters}

    Attributes
    ----------
    edges_ : list of (parent, child)
    network_ : DiscreteBayesianNetwork
    weights_ : ndarray of shape (n_variables, n_variables)
        Edge weights used (log-likelihood gains; conditional ones for TAN, target row 0).
    scorer_ : BaseScore
    categories_ : list of ndarray
    classes_ : ndarray, only with a target
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
        "root": "no_validation",
        "variant": [StrOptions({"chow_liu", "tan"})],
        "scorer": "no_validation",
    }

    def __init__(
        self,
        *,
        root=None,
        variant="chow_liu",
        scorer="loglik",
        categories="auto",
        handle_unknown="error",
        target=None,
        fit_parameters=True,
        parameter_estimator="bayes",
        parameter_ess=1.0,
    ):
        self.root = root
        self.variant = variant
        self.scorer = scorer
        self.categories = categories
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess

    def _learn_structure(self, data):
        self.scorer_ = resolve_scorer(self.scorer)
        if not self.scorer_.score_equivalent:
            raise ValueError(
                f"ChowLiuTree needs a score-equivalent scorer (symmetric edge weights); "
                f"{type(self.scorer_).__name__} is not. Use 'loglik', 'bdeu', 'bic' or 'aic'."
            )
        target = self._target_index
        tan = self.variant == "tan"
        if tan and target is None:
            raise ValueError("variant='tan' needs a target: fit(X, y) or target=<column>.")
        features = [i for i in range(data.n_variables) if not (tan and i == target)]
        root = self._root_position(data, target, tan, features)
        stratum = target if tan else None
        if isinstance(self.scorer_, LogLikelihood):
            gains = data.n_samples * pairwise_mutual_information(data, features, stratum)
            gains -= self.scorer_.edge_penalty
        else:
            gains = _score_gains(data, features, stratum, self.scorer_)
        tree = maximum_spanning_tree(gains, features.index(root))
        edges = [(features[p], features[c]) for p, c in tree]
        self.weights_ = np.zeros((data.n_variables, data.n_variables))
        self.weights_[np.ix_(features, features)] = gains
        if tan:
            edges = [(target, f) for f in features] + edges
        return edges

    def _root_position(self, data, target, tan, features):
        if self.root is None:
            return target if target is not None and not tan else features[0]
        root = _column_position(self.root, data.names, "root")
        if root not in features:
            raise ValueError("With variant='tan' the root must be a feature, not the target.")
        return root
