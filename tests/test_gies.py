"""Experimental rows with continuous data, and GIES (issue 21).

Gaussian and CLG scores leave out each child's intervened rows (the moments of its family
come from the other rows); the network's parameters are fitted on them; and
``GESStructure.fit(X, interventions=...)`` is GIES (Hauser & Bühlmann 2012), checked
against R pcalg's ``gies``.
"""

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from skbn import FixedStructure, GESStructure, HillClimbStructure, K2Structure
from skbn._data import encode_fit
from skbn._engines._local_scores import FamilyColumns, FamilyScoreCache
from skbn._engines._strategies import STRATEGIES
from skbn.datasets import make_random_network
from skbn.graph import interventional_essential_graph, is_acyclic, v_structures
from skbn.scores import CLGBIC, BGe, GaussianAIC, GaussianBIC, GaussianLogLikelihood, resolve_scorer


def gaussian_experiments(p, seed, n_obs=1000, n_int=300, n_targets=2):
    """A random linear Gaussian network (pcalg's weights in [0.1, 1], unit noise), ``n_obs``
    observational rows, then ``n_int`` rows for each of ``n_targets`` random single-node
    targets, where the target is a fresh N(0, 4) draw and its descendants follow.
    Returns the network, the rows, the intervention mask and the targets (positions)."""
    net = make_random_network(p, kind="gaussian", random_state=seed)
    rng = np.random.default_rng(seed)
    nodes = list(net.nodes)
    targets = sorted(rng.choice(p, n_targets, replace=False).tolist())
    blocks, masks = [], []
    for target in [None, *targets]:
        n = n_obs if target is None else n_int
        x = {}
        for node in net.topological_order():
            if target is not None and node == nodes[target]:
                x[node] = rng.normal(0.0, 2.0, n)
                continue
            value = rng.normal(0.0, 1.0, n)
            for parent, b in zip(net.parents[node], net.coefficients[node]):
                value = value + b * x[parent]
            x[node] = value
        blocks.append(pd.DataFrame({node: x[node] for node in nodes}))
        mask = np.zeros((n, p), dtype=bool)
        if target is not None:
            mask[:, target] = True
        masks.append(mask)
    return net, pd.concat(blocks, ignore_index=True), np.vstack(masks), targets


def chain(n=3000, seed=0):
    """a -> b -> c with b set (to N(0, 4) draws) in the last third of the rows."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = 0.8 * a + rng.normal(size=n)
    b[2 * n // 3:] = rng.normal(0.0, 2.0, n - 2 * n // 3)
    c = 0.5 * b + rng.normal(size=n)
    mask = np.zeros((n, 3), dtype=bool)
    mask[2 * n // 3:, 1] = True
    return pd.DataFrame({"a": a, "b": b, "c": c}), mask


def encoded(X, mask):
    data, _ = encode_fit(X, "auto", allow_continuous=True)
    return replace(data, intervened=None if mask is None else np.asarray(mask, dtype=bool))


def regression_by_hand(y, Z):
    """Least squares of y on [1, Z]: (coefficients, RSS)."""
    A = np.column_stack([np.ones(len(y)), *Z.T]) if Z.size else np.ones((len(y), 1))
    beta = np.linalg.lstsq(A, y, rcond=None)[0]
    residual = y - A @ beta
    return beta, float(residual @ residual)


def gaussian_bic_by_hand(y, Z, variance="unbiased"):
    """bnlearn's bic-g of one family on the rows given: the Gaussian log-likelihood at the
    least-squares fit (sigma^2 = RSS / (n - k) or RSS / n) minus log(n) / 2 per parameter
    (intercept, coefficients, variance)."""
    n, k = len(y), 1 + Z.shape[1]
    _, rss = regression_by_hand(y, Z)
    s2 = rss / (n - k) if variance == "unbiased" else rss / n
    return -n / 2 * np.log(2 * np.pi * s2) - rss / (2 * s2) - np.log(n) / 2 * (k + 1)


# ------------------------------------------------------------------ scores on the kept rows
@pytest.mark.parametrize("variance", ["unbiased", "mle"])
def test_gaussian_bic_is_the_bic_of_the_kept_rows_by_hand(variance):
    X, mask = chain()
    keep = ~mask[:, 1]
    cache = FamilyScoreCache(encoded(X, mask), GaussianBIC(variance=variance))
    x = X.to_numpy()
    by_hand = gaussian_bic_by_hand(x[keep, 1], x[keep][:, [0]], variance)
    assert cache.local_score(1, [0]) == pytest.approx(by_hand, rel=1e-12)
    by_hand = gaussian_bic_by_hand(x[keep, 1], x[keep][:, []], variance)
    assert cache.local_score(1, []) == pytest.approx(by_hand, rel=1e-12)
    # a child never set: every row
    by_hand = gaussian_bic_by_hand(x[:, 2], x[:, [0, 1]], variance)
    assert cache.local_score(2, [0, 1]) == pytest.approx(by_hand, rel=1e-12)


@pytest.mark.parametrize("scorer", [GaussianLogLikelihood(), GaussianAIC(), GaussianBIC(variance="mle"),
                                    BGe(), BGe(iss_mu=3.0, iss_w=9.0)])
def test_every_gaussian_score_leaves_the_childs_intervened_rows_out(scorer):
    X, mask = chain(900, seed=3)
    mask[:100, 0] = True  # a is set in other rows than b
    masked = FamilyScoreCache(encoded(X, mask), scorer)
    columns = FamilyColumns(encoded(X, mask), scorer)
    for child, parents in [(0, []), (0, [1, 2]), (1, [0]), (1, [0, 2]), (2, [1]), (2, [])]:
        kept = X[~mask[:, child]].reset_index(drop=True)
        plain = FamilyScoreCache(encoded(kept, None), scorer)
        expected = plain.local_score(child, parents)
        assert masked.local_score(child, parents) == pytest.approx(expected, rel=1e-12)
        column = columns.toggle_column(child, tuple(parents))
        for k in set(range(3)) - {child}:  # every toggled family from the same kept rows
            toggled = sorted(set(parents) ^ {k})
            assert column[k] == pytest.approx(plain.local_score(child, toggled), rel=1e-10)


def test_clg_scores_leave_the_childs_intervened_rows_out():
    rng = np.random.default_rng(5)
    n = 1200
    d = rng.integers(0, 2, n)
    x = 1.5 * d + rng.normal(size=n)
    y = 0.7 * x - d + rng.normal(size=n)
    x[800:] = rng.normal(0, 2, n - 800)  # x set in the last rows (y does not follow: a test of the mask only)
    X = pd.DataFrame({"d": pd.Categorical(np.where(d, "on", "off")), "x": x, "y": y})
    mask = np.zeros((n, 3), dtype=bool)
    mask[800:, 1] = True
    mask[:50, 0] = True  # and d in the first rows
    scorer = CLGBIC()
    cache = FamilyScoreCache(encoded(X, mask), scorer)
    keep = ~mask[:, 1]
    # bic-cg of x | d by hand: one regression per state of d, log(n) / 2 per parameter
    loglik = 0.0
    for state in (0, 1):
        rows = keep & (d == state)
        _, rss = regression_by_hand(x[rows], np.empty((rows.sum(), 0)))
        s2 = rss / (rows.sum() - 1)
        loglik += -rows.sum() / 2 * np.log(2 * np.pi * s2) - rss / (2 * s2)
    assert cache.local_score(1, [0]) == pytest.approx(loglik - np.log(keep.sum()) / 2 * 4, rel=1e-12)
    # the discrete child d: its count table without its 50 intervened rows
    counts = np.bincount(d[50:], minlength=2).astype(float)
    expected = float(counts @ np.log(counts / counts.sum())) - np.log(n - 50) / 2
    assert cache.local_score(0, []) == pytest.approx(expected, rel=1e-12)


def test_batched_discrete_candidates_of_an_intervened_continuous_child_use_its_kept_rows():
    # two discrete candidates: their families are split and scored in one batch
    rng = np.random.default_rng(6)
    n = 1500
    d, e = rng.integers(0, 2, n), rng.integers(0, 3, n)
    x = 1.5 * d - 0.5 * e + rng.normal(size=n)
    x[1000:] = rng.normal(0, 2, n - 1000)  # x set in the last rows
    X = pd.DataFrame({"d": pd.Categorical(np.where(d, "on", "off")), "x": x,
                      "e": pd.Categorical(np.array(["None", "NA", "c"])[e])})
    mask = np.zeros((n, 3), dtype=bool)
    mask[1000:, 1] = True
    kept = FamilyScoreCache(encoded(X.iloc[:1000], None), CLGBIC())
    column = FamilyColumns(encoded(X, mask), CLGBIC()).toggle_column(1, ())
    for k in (0, 2):
        assert column[k] == pytest.approx(kept.local_score(1, [k]), rel=1e-10)


def test_intervened_rows_with_weights_equal_replicated_rows():
    X, mask = chain(600, seed=1)
    w = np.random.default_rng(0).integers(0, 4, len(X)).astype(float)
    weighted = HillClimbStructure().fit(X, sample_weight=w, interventions=mask)
    rows = np.repeat(np.arange(len(X)), w.astype(int))
    replicated = HillClimbStructure().fit(X.iloc[rows].reset_index(drop=True), interventions=mask[rows])
    assert weighted.edges_ == replicated.edges_
    assert weighted.score_ == pytest.approx(replicated.score_, rel=1e-10)


def test_pcalg_local_score_is_bic_g_up_to_the_penalty_of_intervened_children():
    # R 4.2.2, pcalg 2.7-12, on gaussian_experiments(6, 1) written to CSV (targets X0002, X0003):
    #   score <- new("GaussL0penIntScore", data = X, targets = list(integer(0), 3L, 4L),
    #                target.index = index)        # lambda = log(n) / 2, intercept
    #   score$local.score(5, integer(0)); score$local.score(5, c(2L, 3L)); ...
    pcalg = {(4, ()): -1227.6277303311, (4, (1, 2)): -805.9526639976, (2, (0,)): -642.8626064471,
             (3, (2,)): -675.9882556490, (3, (1, 2)): -679.0514240935}
    _, X, mask, targets = gaussian_experiments(6, 1)
    assert targets == [2, 3]
    cache = FamilyScoreCache(encoded(X, mask), GaussianBIC(variance="mle"))
    n = len(X)
    for (child, parents), value in pcalg.items():
        n_kept = int((~mask[:, child]).sum())
        # pcalg: -n_v / 2 (1 + log(RSS / n_v)) - log(n) / 2 (|pa| + 1); bic-g adds -n_v / 2 log(2 pi)
        # and counts the variance, with log(n_v) / 2 per parameter
        ours = (value - n_kept / 2 * np.log(2 * np.pi) + np.log(n) / 2 * (len(parents) + 1)
                - np.log(n_kept) / 2 * (len(parents) + 2))
        assert cache.local_score(child, parents) == pytest.approx(ours, rel=1e-9)


# ------------------------------------------------------------------ learners on continuous data
def test_fixed_structure_fits_each_node_on_its_kept_rows():
    X, mask = chain()
    edges = [("a", "b"), ("b", "c")]
    fixed = FixedStructure(edges=edges, parameter_estimator="mle").fit(X, interventions=mask)
    x, keep = X.to_numpy(), ~mask[:, 1]
    beta, rss = regression_by_hand(x[keep, 1], x[keep][:, [0]])
    net = fixed.network_
    assert net.intercepts["b"] == pytest.approx(beta[0], rel=1e-10)
    assert net.coefficients["b"][0] == pytest.approx(beta[1], rel=1e-10)
    assert net.sigmas["b"] == pytest.approx(np.sqrt(rss / keep.sum()), rel=1e-10)
    beta, _ = regression_by_hand(x[:, 2], x[:, [1]])
    assert net.coefficients["c"][0] == pytest.approx(beta[1], rel=1e-10)
    # the pooled fit is biased by the experiment (b's variance there is 4, not 1.64)
    pooled = FixedStructure(edges=[("a", "b"), ("b", "c")], parameter_estimator="mle").fit(X).network_
    assert abs(pooled.sigmas["b"] - net.sigmas["b"]) > 0.1


def test_clg_discrete_cpt_from_its_kept_rows():
    rng = np.random.default_rng(2)
    n = 1000
    d = rng.integers(0, 2, n)
    d[:300] = 1  # set to "on" by experiment in the first 300 rows
    x = d + rng.normal(size=n)
    X = pd.DataFrame({"d": pd.Categorical(np.where(d, "on", "off")), "x": x})
    mask = np.zeros((n, 2), dtype=bool)
    mask[:300, 0] = True
    net = FixedStructure(edges=[("d", "x")], parameter_estimator="mle").fit(X, interventions=mask).network_
    share = np.mean(d[300:] == 1)
    np.testing.assert_allclose(net.cpts["d"].ravel(), [1 - share, share], rtol=1e-12)


@pytest.mark.parametrize("learner", [HillClimbStructure(), GESStructure(),
                                     K2Structure(ordering=["a", "b", "c"])])
def test_an_experiment_on_b_orients_the_chain(learner):
    X, mask = chain()
    observational = clone(learner).fit(X)
    assert observational.interventional_cpdag_.directed == ()  # a - b - c
    model = clone(learner).fit(X, interventions=mask)
    assert set(model.interventional_cpdag_.directed) == {("a", "b"), ("b", "c")}


def test_mixed_data_with_interventions():
    rng = np.random.default_rng(4)
    n = 4000
    d = rng.integers(0, 2, n)
    d[3000:] = rng.integers(0, 2, n - 3000)  # set by experiment (uniform draws)
    x = 2.0 * d + rng.normal(size=n)
    y = 0.8 * x + rng.normal(size=n)
    X = pd.DataFrame({"d": pd.Categorical(np.where(d, "on", "off")), "x": x, "y": y})
    mask = np.zeros((n, 3), dtype=bool)
    mask[3000:, 0] = True
    for learner in (HillClimbStructure(), GESStructure()):
        model = learner.fit(X, interventions=mask)
        assert set(model.edges_) == {("d", "x"), ("x", "y")}


# ------------------------------------------------------------------ GIES
def test_gies_matches_pcalg():
    # R 4.2.2, pcalg 2.7-12, data of gaussian_experiments(p, seed, n_targets=k) written to CSV:
    #   score <- new("GaussL0penIntScore", data = X, targets = c(list(integer(0)), as.list(t + 1)),
    #                target.index = index)
    #   m <- as(gies(score)$essgraph, "matrix")   # m[i, j] & !m[j, i]: i -> j; both: i - j
    expected = {
        (6, 1, 2): ([(1, 4), (2, 0), (2, 3), (2, 4)], [(1, 5)]),
        (8, 2, 2): ([(1, 5), (4, 0), (6, 0), (6, 2), (6, 5), (7, 5)], [(1, 4), (3, 4), (6, 7)]),
        (9, 5, 3): ([(0, 6), (1, 0), (2, 6), (4, 3), (4, 6), (4, 8), (5, 0), (8, 0)], [(1, 5)]),
    }
    scorer = GaussianBIC(variance="mle")  # pcalg's score up to the intervened children's penalty
    for (p, seed, k), (directed, undirected) in expected.items():
        _, X, mask, _ = gaussian_experiments(p, seed, n_targets=k)
        names = list(X.columns)
        model = GESStructure(scorer=scorer).fit(X, interventions=mask)
        assert set(model.cpdag_.directed) == {(names[u], names[v]) for u, v in directed}
        assert set(model.cpdag_.undirected) == {(names[u], names[v]) for u, v in undirected}


@pytest.mark.parametrize("seed", range(6))
def test_gies_returns_the_interventional_essential_graph_of_its_dag(seed):
    p = 6 + seed % 3
    _, X, mask, targets = gaussian_experiments(p, 100 + seed, n_obs=400, n_int=150, n_targets=2)
    model = GESStructure().fit(X, interventions=mask)
    names = list(X.columns)
    family = [(), *[(names[t],) for t in targets]]
    assert model.cpdag_ == interventional_essential_graph(names, model.edges_, family)
    assert model.interventional_cpdag_ == model.cpdag_
    # a local optimum: Insert and Delete reach every class that adds or removes one edge of a
    # DAG of the class, so no edge added to (acyclic) or removed from its DAG improves the score
    cache = FamilyScoreCache(encoded(X, mask), model.scorer_)
    position = {name: i for i, name in enumerate(names)}
    parents = [set() for _ in names]
    for u, v in model.edges_:
        parents[position[v]].add(position[u])

    def ancestors(v):
        seen, stack = set(), [v]
        while stack:
            for u in parents[stack.pop()] - seen:
                seen.add(u)
                stack.append(u)
        return seen

    tolerance = 1e-9 * abs(model.score_)
    for u, v in itertools.permutations(range(p), 2):
        current = cache.local_score(v, parents[v])
        if u in parents[v]:
            assert cache.local_score(v, parents[v] - {u}) <= current + tolerance
        elif v not in parents[u] and v not in ancestors(u):
            assert cache.local_score(v, parents[v] | {u}) <= current + tolerance


def _all_dags(n):
    pairs = list(itertools.combinations(range(n), 2))
    for choice in itertools.product((0, 1, 2), repeat=len(pairs)):
        edges = [(i, j) if c == 1 else (j, i) for (i, j), c in zip(pairs, choice) if c]
        if is_acyclic(range(n), edges):
            yield edges


@pytest.mark.parametrize("scorer", ["bic-g", "bge", "aic-g"])
def test_interventional_score_is_equal_within_a_class_and_gies_finds_the_best_class(scorer):
    # brute force over the 543 DAGs on 4 nodes: the score with each child's intervened rows
    # left out is the same for every DAG of an interventional Markov equivalence class
    # (Hauser & Buhlmann's premise), and GIES's class is the best one here
    _, X, mask, targets = gaussian_experiments(4, 7, n_obs=500, n_int=200, n_targets=1)
    data = encoded(X, mask)
    cache = FamilyScoreCache(data, resolve_scorer(scorer))
    family = [(), tuple(targets)]
    by_class = {}
    for edges in _all_dags(4):
        parents = [[u for u, v in edges if v == k] for k in range(4)]
        score = sum(cache.local_score(k, pa) for k, pa in enumerate(parents))
        cut = tuple(frozenset(frozenset(e) for e in edges if e[1] not in set(t)) for t in family)
        key = (frozenset(frozenset(e) for e in edges), frozenset(v_structures(range(4), edges)), cut)
        by_class.setdefault(key, []).append((score, edges))
    best = max(max(s for s, _ in members) for members in by_class.values())
    for members in by_class.values():
        scores = [s for s, _ in members]
        assert max(scores) - min(scores) <= 1e-9 * abs(best)
    model = GESStructure(scorer=scorer).fit(X, interventions=mask)
    assert model.score_ == pytest.approx(best, rel=1e-12)


def test_gies_on_discrete_data_orients_asia():
    from conftest import shared_network

    net = shared_network("asia")
    plan = [(4000, None), (2000, {"smoke": "yes"}), (2000, {"smoke": "no"}), (1000, {"asia": "yes"}),
            (1000, {"asia": "no"}), (1500, {"tub": "yes"}), (1500, {"tub": "no"})]
    parts, masks = [], []
    for seed, (n, do) in enumerate(plan):
        rows = net.sample(n, random_state=seed, do=do)
        parts.append(rows)
        masks.append(pd.DataFrame({c: c in (do or {}) for c in rows.columns}, index=rows.index))
    X, mask = pd.concat(parts, ignore_index=True), pd.concat(masks, ignore_index=True)
    plain = GESStructure().fit(X)
    model = GESStructure().fit(X, interventions=mask)
    assert len(plain.cpdag_.undirected) > 0
    assert model.cpdag_.undirected == ()
    hill = HillClimbStructure().fit(X, interventions=mask)
    assert model.score_ >= hill.score_ - 1e-9 * abs(hill.score_)


def test_gies_without_interventions_is_ges():
    _, X, _, _ = gaussian_experiments(7, 3)
    a = GESStructure().fit(X)
    b = GESStructure().fit(X, interventions=np.zeros(X.shape, dtype=bool))
    assert a.cpdag_ == b.cpdag_ and a.score_ == b.score_


def test_gies_bad_input():
    X, mask = chain(300)
    with pytest.raises(ValueError, match="score-equivalent"):
        GESStructure(scorer="k2").fit(X.astype(int).astype(str), interventions=mask)
    with pytest.raises(ValueError, match="shape"):
        GESStructure().fit(X, interventions=mask[:, :2])
    with pytest.raises(ValueError, match="column 'b' is intervened on in every row"):
        GESStructure().fit(X, interventions=[["b"]] * len(X))
    with pytest.raises(ValueError, match="missing='error'"):
        GESStructure(missing="complete_case").fit(X, interventions=mask)
    with pytest.raises(ValueError, match="in-memory X"):
        GESStructure().fit([X.iloc[:150], X.iloc[150:]], interventions=mask)


@pytest.mark.parametrize("search", sorted(STRATEGIES))
def test_every_search_takes_interventions_on_continuous_data(search):
    X, mask = chain(1500)
    model = HillClimbStructure(search=search, random_state=0).fit(X, interventions=mask)
    assert set(model.interventional_cpdag_.directed) == {("a", "b"), ("b", "c")}


def test_gies_honours_knowledge():
    X, mask = chain()
    model = GESStructure(black_list=[("a", "b")]).fit(X, interventions=mask)
    assert ("a", "b") not in model.edges_
    model = GESStructure(white_list=[("a", "c")]).fit(X, interventions=mask)
    assert ("a", "c") in model.edges_


@pytest.mark.parametrize("p", [5, 62, 63, 70])
def test_intervention_targets_are_the_distinct_rows_in_lexicographic_order(p):
    # the distinct rows of the mask, as np.unique(axis=0) orders them, whatever the width
    # (an integer key per row up to 62 columns, the rows themselves beyond)
    from skbn.estimators._base import _intervention_targets

    rng = np.random.default_rng(p)
    rows = np.zeros((200, p), dtype=bool)
    for i in range(200):
        rows[i, rng.choice(p, rng.integers(0, 3), replace=False)] = True
    rows[:, 0] |= rng.random(200) < 0.1
    rows[:, -1] |= rng.random(200) < 0.1
    data = replace(encoded(pd.DataFrame(rng.normal(size=(200, p))), None), intervened=rows)
    expected = [tuple(np.flatnonzero(row).tolist()) for row in np.unique(rows, axis=0)]
    assert _intervention_targets(data) == expected
    assert len(expected) > 20 and () in expected and (0,) in expected and (p - 1,) in expected
