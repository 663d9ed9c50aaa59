"""Score-based searches on continuous and mixed data (issue 20): hill climbing (every
strategy), K2, Chow-Liu / TAN and GES through the local-score module's moments path.

Reference values come from R 4.2 / bnlearn 4.9 on the data sets generated below by numpy
(fixed seeds); each block names the R call. Other checks are against independent
computations: every family scored from :func:`skbn._counting.moments` of its own rows,
brute force over every DAG of 4 variables, the true DAG of large samples.
"""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from skbn import ChowLiuTree, GESStructure, HillClimbStructure, K2Structure, PCStructure
from skbn._counting import config_ids, family_table, moments
from skbn._data import encode_fit
from skbn._engines._local_scores import (
    FamilyColumns,
    FamilyScoreCache,
    Statistics,
    pair_score_gains,
    pairwise_mutual_information,
)
from skbn._engines._strategies import STRATEGIES
from skbn.datasets import make_random_network
from skbn.graph import dag_to_cpdag
from skbn.scores import resolve_scorer

RTOL = 1e-9


# -- data ------------------------------------------------------------------------------------
def gaussian_frame(seed=7, n=400):
    """A linear-Gaussian DAG a.1 -> b 2 -> d <- c, d -> e -> f <- a.1 (names with a dot and a
    space)."""
    rng = np.random.default_rng(seed)
    a = rng.normal(0.0, 1.0, n)
    b = 0.9 * a + rng.normal(0.0, 1.0, n)
    c = rng.normal(2.0, 3.0, n)
    d = 0.5 * b - 0.4 * c + rng.normal(0.0, 1.0, n)
    e = 1.2 * d + rng.normal(0.0, 0.8, n)
    f = -0.7 * a + 0.6 * e + rng.normal(0.0, 1.0, n)
    return pd.DataFrame({"a.1": a, "b 2": b, "c": c, "d": d, "e": e, "f": f})


def clg_frame(seed=11, n=600):
    """A CLG network: discrete s (3 states) -> t (2), s, t, v -> u, s, t -> v -> w."""
    rng = np.random.default_rng(seed)
    s = rng.choice(3, size=n, p=[0.3, 0.4, 0.3])
    t = (rng.random(n) < np.array([0.2, 0.5, 0.9])[s]).astype(int)
    u = np.array([-1.0, 0.0, 1.5])[s] + rng.normal(0.0, 1.0, n)
    v = np.array([0.5, -0.5])[t] + np.array([1.0, -0.8])[t] * u + rng.normal(0.0, 1.0, n)
    w = 0.7 * v + rng.normal(0.0, 1.0, n)
    return pd.DataFrame({"s": np.array(["x", "y", "z"])[s], "t": np.array(["no", "yes"])[t],
                         "u": u, "v": v, "w": w})


def cpdag(names, edges):
    graph = dag_to_cpdag(list(names), list(edges))
    return set(graph.directed), {frozenset(e) for e in graph.undirected}


def sampled(n_nodes, seed, n_rows, kind="gaussian"):
    net = make_random_network(n_nodes, kind=kind, random_state=seed)
    return net, net.sample(n_rows, random_state=seed + 1)


def true_edges(net):
    return [(p, c) for c in net.nodes for p in net.parents[c]]


# -- an independent scorer: every family from the moments / counts of its own rows ------------
def family_score(frame, child, parents, scorer):
    """Local score of ``child | parents`` computed from the frame directly."""
    discrete = [c for c in frame.columns if not pd.api.types.is_float_dtype(frame[c])]
    codes = {c: pd.Categorical(frame[c]).codes.astype(np.int64) for c in discrete}
    cards = {c: len(pd.Categorical(frame[c]).categories) for c in discrete}
    d_parents = [p for p in parents if p in discrete]
    c_parents = [p for p in parents if p not in discrete]
    if child in discrete:
        table = family_table(np.column_stack([codes[c] for c in [child, *d_parents]]),
                             np.array([cards[c] for c in [child, *d_parents]]), 0,
                             list(range(1, len(d_parents) + 1)))
        q = int(np.prod([cards[c] for c in d_parents])) if d_parents else 1
        return scorer.local_score(table, q, len(d_parents))
    values = frame[[child, *c_parents]].to_numpy(dtype=float)
    if d_parents:
        ids, n_ids = config_ids(np.column_stack([codes[c] for c in d_parents]),
                                np.array([cards[c] for c in d_parents]), list(range(len(d_parents))))
        stats = moments(values, ids=ids, n_ids=n_ids)
    else:
        stats = moments(values)
    extra = {"n_variables": frame.shape[1]} if type(scorer).__name__ == "BGe" else {}
    return scorer.local_score_moments(stats, 0, list(range(1, len(c_parents) + 1)), len(d_parents), **extra)


def dag_score(frame, edges, scorer):
    return sum(family_score(frame, v, sorted(p for p, c in edges if c == v), scorer) for v in frame.columns)


# -- the local-score module --------------------------------------------------------------------
@pytest.mark.parametrize("scorer", ["bic-g", "bge", "loglik-g", "aic-g"])
def test_toggle_column_equals_family_scores_gaussian(scorer):
    frame = gaussian_frame()
    data, _ = encode_fit(frame, allow_continuous=True)
    scorer = resolve_scorer(scorer)
    columns = FamilyColumns(data, scorer)
    assert isinstance(columns.counter, Statistics)
    names = list(frame.columns)
    for child, parents in [(3, ()), (3, (1, 2)), (5, (0,)), (0, (1, 4, 5))]:
        column = columns.toggle_column(child, parents)
        for k in range(len(names)):
            toggled = sorted(set(parents) ^ {k}) if k != child else sorted(parents)
            expected = family_score(frame, names[child], [names[v] for v in toggled], scorer)
            assert column[k] == pytest.approx(expected, rel=RTOL), (child, parents, k)
        # the family cache agrees with the column (adding, then removing the parent)
        assert columns.local_score(child, parents) == pytest.approx(column[child], rel=RTOL)


@pytest.mark.parametrize("scorer", ["bic-cg", "loglik-cg"])
def test_toggle_column_equals_family_scores_mixed(scorer):
    frame = clg_frame()
    data, _ = encode_fit(frame, allow_continuous=True)
    scorer = resolve_scorer(scorer)
    names = list(frame.columns)
    continuous = np.array([pd.api.types.is_float_dtype(frame[c]) for c in names])
    candidates = ~(continuous[:, None] & ~continuous[None, :])  # no continuous parent of a discrete node
    columns = FamilyColumns(data, scorer, candidates=candidates)
    for child, parents in [(2, ()), (2, (0,)), (2, (1, 3)), (4, (0, 1, 3)), (1, ()), (1, (0,)), (0, ())]:
        column = columns.toggle_column(child, parents)
        for k in range(len(names)):
            if k != child and not candidates[k, child] and k not in parents:
                assert column[k] == -np.inf
                continue
            toggled = sorted(set(parents) ^ {k}) if k != child else sorted(parents)
            expected = family_score(frame, names[child], [names[v] for v in toggled], scorer)
            assert column[k] == pytest.approx(expected, rel=RTOL), (child, parents, k)


def test_family_score_cache_extended_and_discrete_children():
    frame = clg_frame()
    data, _ = encode_fit(frame, allow_continuous=True)
    scorer = resolve_scorer("bic-cg")
    cache = FamilyScoreCache(data, scorer)
    assert type(cache) is not FamilyScoreCache and isinstance(cache, FamilyScoreCache)
    names = list(frame.columns)
    for child, base, extra in [(3, (0,), 2), (3, (), 1), (1, (), 0), (4, (2, 3), 1)]:
        expected = family_score(frame, names[child], [names[v] for v in sorted(base + (extra,))], scorer)
        assert cache.extended_score(child, base, extra) == pytest.approx(expected, rel=RTOL)
    assert cache.local_score(0, (2,)) == -np.inf  # a continuous parent of a discrete child


def test_a_family_counter_given_on_continuous_data_is_wrapped():
    from skbn._counting import FamilyCounter

    frame = clg_frame()
    data, _ = encode_fit(frame, allow_continuous=True)
    counts = FamilyCounter(data)
    columns = FamilyColumns(data, resolve_scorer("bic-cg"), counter=counts)
    assert isinstance(columns.counter, Statistics) and columns.counter.counts is counts
    expected = family_score(frame, "v", ["s", "u"], resolve_scorer("bic-cg"))
    assert columns.toggle_column(3, (0,))[2] == pytest.approx(expected, rel=RTOL)


def test_pair_gains_gaussian_mutual_information():
    frame = gaussian_frame()
    data, _ = encode_fit(frame, allow_continuous=True)
    rho = np.corrcoef(frame.to_numpy().T)
    np.fill_diagonal(rho, 0.0)
    expected = -0.5 * np.log(1.0 - rho ** 2)
    mi = pairwise_mutual_information(data, list(range(6)))
    np.testing.assert_allclose(mi, expected, rtol=1e-9, atol=1e-12)
    scorer = resolve_scorer("bic-g")
    gains = pair_score_gains(data, list(range(6)), None, scorer)
    names = list(frame.columns)
    for i, j in itertools.combinations(range(6), 2):
        gain = family_score(frame, names[j], [names[i]], scorer) - family_score(frame, names[j], [], scorer)
        assert gains[i, j] == pytest.approx(gain, rel=RTOL) and gains[j, i] == gains[i, j]


def test_pair_gains_mixed_use_the_discrete_parent():
    frame = clg_frame()
    data, _ = encode_fit(frame, allow_continuous=True)
    scorer = resolve_scorer("loglik-cg")
    gains = pair_score_gains(data, list(range(5)), None, scorer)
    names = list(frame.columns)
    for i, j in itertools.combinations(range(5), 2):
        # the child: the later column of a pair of one kind, the continuous one of a mixed pair
        child, parent = (i, j) if (names[i] in "uvw" and names[j] in "st") else (j, i)
        gain = (family_score(frame, names[child], [names[parent]], scorer)
                - family_score(frame, names[child], [], scorer))
        assert gains[i, j] == pytest.approx(gain, rel=RTOL) and gains[j, i] == gains[i, j]


# -- agreement with R bnlearn ------------------------------------------------------------------
# x <- read.csv("gaussian.csv", check.names = FALSE)   # gaussian_frame() written by pandas
# dag <- hc(x, score = "bic-g"); arcs(dag); score(dag, x, type = "bic-g")   (likewise aic-g,
# bge; loglik-g with maxp = 2); m <- read.csv("clg.csv", stringsAsFactors = TRUE) for bic-cg,
# aic-cg: hc(m, score = "bic-cg"); score(dag, m, type = "bic-cg")
BNLEARN_HC = {
    "bic-g": (-3770.7171382599995, {}, [("d", "e"), ("e", "f"), ("c", "d"), ("a.1", "b 2"), ("b 2", "d"),
                                        ("a.1", "f")]),
    "aic-g": (-3734.3441515231189, {}, [("d", "e"), ("e", "f"), ("c", "d"), ("a.1", "b 2"), ("b 2", "d"),
                                        ("a.1", "f"), ("d", "f"), ("a.1", "e")]),
    "bge": (-3789.268075426759, {}, [("d", "e"), ("e", "f"), ("c", "d"), ("a.1", "b 2"), ("a.1", "f"),
                                     ("b 2", "d")]),
    "loglik-g": (-3715.3384581648102, {"max_indegree": 2},
                 [("d", "e"), ("e", "f"), ("c", "d"), ("a.1", "b 2"), ("b 2", "d"), ("a.1", "f"),
                  ("a.1", "e"), ("c", "b 2"), ("a.1", "c")]),
}
BNLEARN_HC_CG = {
    "bic-cg": (-3625.9510441783159, [("v", "w"), ("s", "u"), ("s", "t"), ("v", "u"), ("t", "u"), ("s", "v"),
                                     ("t", "v")]),
    "aic-cg": (-3539.27639481293, [("v", "w"), ("s", "u"), ("s", "t"), ("v", "u"), ("t", "u"), ("s", "v"),
                                   ("t", "v"), ("t", "w")]),
}


@pytest.mark.parametrize("scorer", sorted(BNLEARN_HC))
def test_hill_climb_equals_bnlearn_gaussian(scorer):
    score, settings, arcs = BNLEARN_HC[scorer]
    model = HillClimbStructure(scorer=scorer, fit_parameters=False, **settings).fit(gaussian_frame())
    assert sorted(model.edges_) == sorted(arcs)
    assert model.score_ == pytest.approx(score, rel=1e-9)


@pytest.mark.parametrize("scorer", sorted(BNLEARN_HC_CG))
def test_hill_climb_equals_bnlearn_clg(scorer):
    score, arcs = BNLEARN_HC_CG[scorer]
    frame = clg_frame()
    model = HillClimbStructure(scorer=scorer, fit_parameters=False).fit(frame)
    # the s - t edge is reversible (both discrete, same class): compare equivalence classes
    assert cpdag(frame.columns, model.edges_) == cpdag(frame.columns, arcs)
    assert model.score_ == pytest.approx(score, rel=1e-9)
    assert model.score_ == pytest.approx(dag_score(frame, model.edges_, resolve_scorer(scorer)), rel=RTOL)


def test_tabu_equals_bnlearn_bic_g():
    # dag <- tabu(x, score = "bic-g"): the same arcs and score as hc
    score, _, arcs = BNLEARN_HC["bic-g"]
    model = HillClimbStructure(search="tabu", fit_parameters=False).fit(gaussian_frame())
    assert sorted(model.edges_) == sorted(arcs)
    assert model.score_ == pytest.approx(score, rel=1e-9)


# -- every strategy, the learners, large samples -----------------------------------------------
@pytest.mark.parametrize("search", sorted(STRATEGIES))
def test_every_strategy_on_continuous_data(search):
    frame = gaussian_frame(n=2000)
    model = HillClimbStructure(search=search, random_state=0, max_iter=None if search not in (
        "memetic", "genetic") else 5, fit_parameters=False).fit(frame)
    assert model.column_types_ == {c: "continuous" for c in frame.columns}
    # score_ is the score of the returned DAG, computed independently
    assert model.score_ == pytest.approx(dag_score(frame, model.edges_, resolve_scorer("bic-g")), rel=RTOL)
    if search != "genetic":  # every other strategy ends with steepest ascent: a local optimum
        assert is_local_optimum(frame, model.edges_, resolve_scorer("bic-g"))


def is_local_optimum(frame, edges, scorer):
    """No single-edge addition, removal or reversal keeping the graph acyclic improves the
    independently computed score."""
    names = list(frame.columns)
    index = {v: i for i, v in enumerate(names)}
    current = dag_score(frame, edges, scorer)
    edges = set(edges)
    moves = []
    for a, b in itertools.permutations(names, 2):
        if (a, b) in edges:
            moves += [edges - {(a, b)}, (edges - {(a, b)}) | {(b, a)}]
        elif (b, a) not in edges:
            moves.append(edges | {(a, b)})
    for graph in moves:
        adjacency = np.zeros((len(names), len(names)), dtype=bool)
        for a, b in graph:
            adjacency[index[a], index[b]] = True
        if not acyclic(adjacency):
            continue
        if dag_score(frame, graph, scorer) > current + 1e-9 * abs(current):
            return False
    return True


def acyclic(adjacency):
    reach = adjacency.copy()
    for k in range(len(reach)):
        reach |= reach[:, [k]] & reach[[k], :]
    return not reach.diagonal().any()


def gaussian_edges():
    return [("a.1", "b 2"), ("b 2", "d"), ("c", "d"), ("d", "e"), ("e", "f"), ("a.1", "f")]


@pytest.mark.parametrize("learner", [
    HillClimbStructure(search="multistart_tabu"), HillClimbStructure(search="tabu"),
    K2Structure(ordering=["a.1", "c", "b 2", "d", "e", "f"]),
])
def test_learners_recover_the_true_cpdag(learner):
    frame = gaussian_frame(n=20000)
    model = learner.set_params(fit_parameters=False).fit(frame)
    assert cpdag(frame.columns, model.edges_) == cpdag(frame.columns, gaussian_edges())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ges_and_tabu_recover_random_gaussian_networks(seed):
    net, frame = sampled(7, seed, 20000)
    truth = cpdag(net.nodes, true_edges(net))
    for learner in (GESStructure(), HillClimbStructure(search="multistart_tabu")):
        model = learner.set_params(fit_parameters=False).fit(frame)
        assert cpdag(net.nodes, model.edges_) == truth, type(learner).__name__


def test_k2_is_the_greedy_selection_of_independent_scores():
    frame = gaussian_frame(n=2000)
    order = ["c", "a.1", "b 2", "d", "e", "f"]
    scorer = resolve_scorer("bic-g")
    model = K2Structure(ordering=order, fit_parameters=False).fit(frame)
    expected, total = [], 0.0
    for position, child in enumerate(order):
        parents, best = [], family_score(frame, child, [], scorer)
        while True:
            options = [(family_score(frame, child, parents + [v], scorer), v) for v in order[:position]
                       if v not in parents]
            if not options or max(options)[0] <= best + 1e-10 * (1 + abs(best)):
                break
            best, choice = max(options)
            parents.append(choice)
        expected += [(v, child) for v in parents]
        total += best
    assert sorted(model.edges_) == sorted(expected)
    assert model.score_ == pytest.approx(total, rel=RTOL)


# pcalg 2.7-12: x <- as.matrix(read.csv(f)); g <- ges(new("GaussL0penObsScore", x,
# lambda = log(nrow(x)) / 2)); as(g$essgraph, "matrix")  -- the essential graph's directed
# edges and undirected pairs, on gaussian_frame(n=20000) and on its columns a.1, b 2, d, f
# with n=2000 (a finite-sample local optimum of GES that is not the true class)
PCALG_GES = {
    20000: (None, {("b 2", "a.1"), ("b 2", "c"), ("b 2", "d"), ("b 2", "e"), ("d", "c"), ("e", "d"),
                   ("f", "a.1"), ("f", "e")}, {frozenset(("a.1", "e"))}),
    2000: (["a.1", "b 2", "d", "f"], {("b 2", "a.1"), ("b 2", "d"), ("f", "a.1"), ("f", "d")},
           {frozenset(("a.1", "d"))}),
}


@pytest.mark.parametrize("n", sorted(PCALG_GES))
def test_ges_equals_pcalg(n):
    columns, directed, undirected = PCALG_GES[n]
    frame = gaussian_frame(n=n)
    if columns is not None:
        frame = frame[columns]
    model = GESStructure(fit_parameters=False).fit(frame)
    assert cpdag(frame.columns, model.edges_) == (directed, undirected)


def _topological(net):
    done, order = set(), []
    while len(order) < len(net.nodes):
        for i, v in enumerate(net.nodes):
            if i not in done and all(net.nodes.index(p) in done for p in net.parents[v]):
                done.add(i)
                order.append(i)
    return order


# -- brute force over every DAG ----------------------------------------------------------------
def all_dags(p):
    pairs = list(itertools.combinations(range(p), 2))
    for choice in itertools.product((0, 1, 2), repeat=len(pairs)):
        adjacency = np.zeros((p, p), dtype=bool)
        for (i, j), c in zip(pairs, choice):
            if c == 1:
                adjacency[i, j] = True
            elif c == 2:
                adjacency[j, i] = True
        if acyclic(adjacency):
            yield adjacency


@pytest.mark.parametrize("scorer", ["bic-g", "bge"])
def test_searches_find_the_best_dag_of_four_variables(scorer):
    frame = gaussian_frame(n=60)[["a.1", "b 2", "d", "f"]]
    names = list(frame.columns)
    resolved = resolve_scorer(scorer)
    best = -np.inf
    cache = {}
    for adjacency in all_dags(4):
        total = 0.0
        for j in range(4):
            key = (j, tuple(np.flatnonzero(adjacency[:, j])))
            if key not in cache:
                cache[key] = family_score(frame, names[j], [names[i] for i in key[1]], resolved)
            total += cache[key]
        best = max(best, total)
    model = HillClimbStructure(scorer=scorer, search="multistart_tabu", fit_parameters=False).fit(frame)
    assert dag_score(frame, model.edges_, resolved) == pytest.approx(best, rel=1e-9)
    assert model.score_ == pytest.approx(best, rel=1e-9)
    ges = GESStructure(scorer=scorer, fit_parameters=False).fit(frame)  # greedy: at most the best
    assert dag_score(frame, ges.edges_, resolved) <= best + 1e-9 * abs(best)


def test_mixed_brute_force_bic_cg():
    frame = clg_frame(n=300)[["t", "u", "v", "w"]]
    names = list(frame.columns)
    resolved = resolve_scorer("bic-cg")
    best = -np.inf
    for adjacency in all_dags(4):
        if adjacency[1:, 0].any():  # a continuous parent of the discrete t
            continue
        edges = [(names[i], names[j]) for i, j in np.argwhere(adjacency)]
        best = max(best, dag_score(frame, edges, resolved))
    model = HillClimbStructure(search="multistart_tabu", fit_parameters=False).fit(frame)
    assert model.score_ == pytest.approx(best, rel=1e-9)


# -- invariances and the conditional-Gaussian rule ---------------------------------------------
@pytest.mark.parametrize("learner", [HillClimbStructure(search="multistart_tabu"), GESStructure()])
def test_column_order(learner):
    frame = gaussian_frame(n=3000)
    edges = learner.set_params(fit_parameters=False).fit(frame).edges_
    reordered = frame[list(reversed(frame.columns))]
    other = learner.fit(reordered)
    assert cpdag(frame.columns, other.edges_) == cpdag(frame.columns, edges)


def test_integer_weights():
    frame = gaussian_frame(n=300)
    weights = np.random.default_rng(3).integers(1, 4, len(frame))
    weighted = HillClimbStructure(fit_parameters=False).fit(frame, sample_weight=weights)
    replicated = HillClimbStructure(fit_parameters=False).fit(frame.loc[frame.index.repeat(weights)])
    assert weighted.edges_ == replicated.edges_
    assert weighted.score_ == pytest.approx(replicated.score_, rel=1e-9)


@pytest.mark.parametrize("factor", [1e12, 1e-12])
def test_rescaling_a_column_keeps_the_graph(factor):
    frame = gaussian_frame(n=500)
    base = HillClimbStructure(fit_parameters=False).fit(frame)
    scaled = frame.copy()
    scaled["d"] = scaled["d"] * factor
    scaled["a.1"] = scaled["a.1"] / factor
    for learner in (HillClimbStructure(), GESStructure()):
        model = learner.set_params(fit_parameters=False).fit(scaled)
        assert cpdag(frame.columns, model.edges_) == cpdag(frame.columns, base.edges_)


def test_a_column_too_large_for_its_moments_is_named_not_read_as_flat():
    # up to about 1e154 the graph and the scores follow the rescaling (the score by n log c);
    # beyond, the sum of squares overflows float64: a ValueError names the column, where an
    # infinite scatter used to read as a column of no spread (a "determined" warning, then
    # "residual variance is 0"), and no numpy RuntimeWarning escapes
    frame = gaussian_frame(n=500)
    base = HillClimbStructure(fit_parameters=False).fit(frame)
    mixed = clg_frame(n=500)
    declared = {"d": "continuous"}  # (such values are whole numbers)
    for factor in (1e150, 1e156, 1e300):
        scaled = frame.copy()
        scaled["d"] = scaled["d"] * factor
        scaled_mixed = mixed.copy()
        scaled_mixed["u"] = scaled_mixed["u"] * factor
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            if factor < 1e154:
                model = HillClimbStructure(fit_parameters=False, column_types=declared).fit(scaled)
                assert cpdag(frame.columns, model.edges_) == cpdag(frame.columns, base.edges_)
                assert model.score_ == pytest.approx(base.score_ - len(frame) * np.log(factor), rel=1e-12)
                continue
            for learner in (HillClimbStructure(), GESStructure(), PCStructure()):
                learner.set_params(column_types=declared)
                with pytest.raises(ValueError, match=r"Column 'd' holds values too large .*\(magnitudes "
                                                     r"up to \S+e\+(156|300)\).* Rescale the column"):
                    learner.fit(scaled)
            with pytest.raises(ValueError, match=r"Column 'u' holds values too large"):
                HillClimbStructure(column_types={"u": "continuous"}).fit(scaled_mixed)


@pytest.mark.parametrize("learner", [
    HillClimbStructure(), HillClimbStructure(search="multistart_tabu"), GESStructure(),
    HillClimbStructure(search="memetic", max_iter=3, random_state=0),
    K2Structure(ordering=["u", "v", "w", "s", "t"]), ChowLiuTree(),
])
def test_conditional_gaussian_rule_in_every_learned_graph(learner):
    frame = clg_frame(n=2000)
    model = learner.set_params(fit_parameters=False).fit(frame)
    assert model.column_types_["s"] == "discrete" and model.column_types_["u"] == "continuous"
    assert not [(p, c) for p, c in model.edges_ if c in ("s", "t") and p in ("u", "v", "w")]
    assert model.edges_


# -- Chow-Liu and TAN --------------------------------------------------------------------------
def test_chow_liu_gaussian_tree():
    rng = np.random.default_rng(5)
    n = 5000
    a = rng.normal(size=n)
    b = 0.8 * a + rng.normal(size=n)
    c = -0.6 * b + rng.normal(size=n)
    d = 0.7 * b + rng.normal(size=n)
    e = 0.9 * d + rng.normal(size=n)
    frame = pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e})
    model = ChowLiuTree(scorer="loglik-g", fit_parameters=False).fit(frame)
    truth = {frozenset(e) for e in [("a", "b"), ("b", "c"), ("b", "d"), ("d", "e")]}
    assert {frozenset(e) for e in model.edges_} == truth
    rho = np.corrcoef(frame.to_numpy().T)
    np.fill_diagonal(rho, 0.0)
    mle = ChowLiuTree(scorer=resolve_scorer("loglik-g").set_params(variance="mle"),
                      fit_parameters=False).fit(frame)
    expected = -0.5 * n * np.log(1 - rho ** 2)
    np.testing.assert_allclose(mle.weights_, expected, rtol=1e-9, atol=1e-9)


def test_tan_with_discrete_class_and_continuous_features():
    rng = np.random.default_rng(6)
    n = 6000
    y = rng.choice(2, size=n)
    a = np.array([-1.0, 1.0])[y] + rng.normal(size=n)
    b = np.array([0.5, 2.0])[y] * a + rng.normal(size=n)
    c = 0.8 * b + rng.normal(size=n)
    frame = pd.DataFrame({"a": a, "b": b, "c": c})
    target = pd.Series(np.array(["no", "yes"])[y], name="label")
    model = ChowLiuTree(variant="tan", fit_parameters=False).fit(frame, target)
    assert {("label", f) for f in "abc"} <= set(model.edges_)
    assert {frozenset(e) for e in model.edges_ if "label" not in e} == {frozenset("ab"), frozenset("bc")}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_batched_discrete_parents_give_the_graph_of_one_family_at_a_time(seed, monkeypatch):
    """Hill climbing with bic-cg on random CLG networks: the added discrete parents of a
    continuous child scored in one batch (MomentCounter.added_discrete) and one family at a
    time (the indicator matrix refused) find the same graph and the same score up to
    rounding; and that score is the sum of the families scored on their own rows."""
    import skbn._counting._moment_counter as module

    frame = make_random_network(14, kind="clg", random_state=seed).sample(600, random_state=seed + 10)
    batched = HillClimbStructure(scorer="bic-cg", fit_parameters=False).fit(frame)
    monkeypatch.setattr(module, "INDICATOR_BYTES", 0)
    one_by_one = HillClimbStructure(scorer="bic-cg", fit_parameters=False).fit(frame)
    assert sorted(batched.edges_) == sorted(one_by_one.edges_)
    assert batched.score_ == pytest.approx(one_by_one.score_, rel=1e-12)
    by_rows = dag_score(frame, batched.edges_, resolve_scorer("bic-cg"))
    assert batched.score_ == pytest.approx(by_rows, rel=RTOL)
