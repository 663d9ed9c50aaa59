"""Experimental rows in the subset scorer: exact search, order MCMC and bootstrap.

A row where a variable was set by intervention is left out of that variable's families
(Cooper & Yoo 1999; bnlearn's ``mbde``). The subset scorer (``skbn._engines._subsets``)
groups the children by their kept rows; every value it gives is checked here against the
same family scored on the kept rows alone, through the family cache of an unmasked data
set, and the learners against brute force over every DAG.
"""

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from skbn import (
    BootstrapStructure,
    ExactStructure,
    HillClimbStructure,
    OrderMCMCStructure,
    PCStructure,
)
from skbn._data import encode_fit
from skbn._engines._local_scores import FamilyScoreCache
from skbn._engines._subsets import ScoringData, dense_local_scores, drop_bit, parent_set_scores
from skbn.estimators._bootstrap import resample
from skbn.graph import interventional_essential_graph
from skbn.scores import AIC, BIC, CLGBIC, BDeu, GaussianBIC, K2Score


def chain_data(n=1500, seed=0):
    """A -> B -> C <- D, with B set in rows 300-599 and A and D set together in rows
    900-1099 (the values of the set rows drawn at random); states named "None" and "NA"."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = (a + (rng.random(n) < 0.2)) % 2
    b[300:600] = rng.integers(0, 2, 300)
    d = rng.integers(0, 3, n)
    c = (b + d + (rng.random(n) < 0.25)) % 3
    mask = np.zeros((n, 4), dtype=bool)
    mask[300:600, 1] = True
    mask[900:1100, [0, 3]] = True
    names = np.array(["None", "NA", "x"])
    X = pd.DataFrame({"A": names[a], "B.b": names[b], "C c": names[c], "D": names[d]})
    return X, pd.DataFrame(mask, columns=X.columns)


def masked(X, mask):
    data, _ = encode_fit(X, "auto", allow_continuous=True)
    return replace(data, intervened=np.asarray(mask, dtype=bool))


def kept_rows_score(X, mask, scorer, child, parents):
    """The family scored on the rows where ``child`` was not set, with no mask at all."""
    keep = ~np.asarray(mask)[:, child]
    data, _ = encode_fit(X, "auto", allow_continuous=True)
    sub = replace(data, codes=np.asfortranarray(data.codes[keep]),
                  values=None if data.values is None else np.asfortranarray(data.values[keep]))
    return FamilyScoreCache(sub, scorer).local_score(child, sorted(parents))


@pytest.mark.parametrize("scorer", [BDeu(), BDeu(ess=5.0), K2Score(), BIC(), AIC()], ids=repr)
def test_every_local_score_is_the_kept_rows_score(scorer):
    X, mask = chain_data()
    p = X.shape[1]
    tables = np.full((p, 1 << (p - 1)), -np.inf)
    dense_local_scores(ScoringData(masked(X, mask)), scorer, p - 1, tables, prune=False)
    sparse = parent_set_scores(masked(X, mask), scorer)
    for child in range(p):
        others = [u for u in range(p) if u != child]
        for k in range(p):
            for parents in itertools.combinations(others, k):
                expected = kept_rows_score(X, mask, scorer, child, parents)
                bits = sum(1 << u for u in parents)
                assert tables[child, drop_bit(bits, child)] == pytest.approx(expected, rel=1e-12)
                row = sparse.masks(child).index(bits)
                assert sparse.scores[child][row] == pytest.approx(expected, rel=1e-12)


def test_mixed_local_scores_are_the_kept_rows_scores():
    rng = np.random.default_rng(3)
    n = 1200
    d = rng.integers(0, 2, n)
    x = 1.5 * d + rng.normal(size=n)
    y = 0.8 * x - d + rng.normal(size=n)
    x[700:] = rng.normal(0, 2, n - 700)
    X = pd.DataFrame({"d": pd.Categorical(np.where(d, "on", "off")), "x": x, "y": y})
    mask = np.zeros((n, 3), dtype=bool)
    mask[700:, 1] = True
    mask[:100, 0] = True
    tables = np.full((3, 4), -np.inf)
    dense_local_scores(ScoringData(masked(X, mask)), CLGBIC(), 2, tables, prune=False)
    for child, parents in [(0, ()), (1, ()), (1, (0,)), (1, (2,)), (1, (0, 2)), (2, (0, 1)), (2, (1,))]:
        bits = sum(1 << u for u in parents)
        expected = kept_rows_score(X, mask, CLGBIC(), child, parents)
        assert tables[child, drop_bit(bits, child)] == pytest.approx(expected, rel=1e-10)


def _all_dags(p):
    pairs = list(itertools.combinations(range(p), 2))
    for choice in itertools.product((0, 1, 2), repeat=len(pairs)):
        edges = [(i, j) if c == 1 else (j, i) for (i, j), c in zip(pairs, choice) if c]
        order, indegree = [], [sum(v == k for _, v in edges) for k in range(p)]
        ready = [k for k in range(p) if indegree[k] == 0]
        while ready:
            k = ready.pop()
            order.append(k)
            for u, v in edges:
                if u == k:
                    indegree[v] -= 1
                    if indegree[v] == 0:
                        ready.append(v)
        if len(order) == p:
            yield edges


@pytest.mark.parametrize("scorer", [BDeu(), BIC()], ids=repr)
def test_exact_search_is_the_best_dag_by_brute_force(scorer):
    X, mask = chain_data(seed=1)
    p = X.shape[1]
    scores = {}
    for edges in _all_dags(p):  # 543 DAGs
        scores[tuple(sorted(edges))] = sum(
            kept_rows_score(X, mask, scorer, v, [u for u, w in edges if w == v]) for v in range(p))
    best = max(scores.values())
    fit = ExactStructure(scorer=scorer).fit(X, interventions=mask)
    positions = {name: i for i, name in enumerate(X.columns)}
    found = tuple(sorted((positions[u], positions[v]) for u, v in fit.edges_))
    assert fit.score_ == pytest.approx(best, rel=1e-12)
    assert scores[found] == pytest.approx(best, rel=1e-12)
    targets = [(), ("B.b",), ("A", "D")]
    assert fit.interventional_cpdag_ == interventional_essential_graph(list(X.columns), fit.edges_, targets)


def test_the_experiment_orients_what_the_observational_class_cannot():
    # A -> B -> C <- D: observationally A - B is reversible; do(B) orients it
    X, mask = chain_data(n=4000, seed=2)
    observational = ExactStructure().fit(X)
    experimental = ExactStructure().fit(X, interventions=mask)
    assert ("A", "B.b") in observational.interventional_cpdag_.undirected
    assert ("A", "B.b") in experimental.interventional_cpdag_.directed
    assert experimental.interventional_cpdag_.undirected == ()


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # short chains suffice here
@pytest.mark.parametrize("learner", [ExactStructure(), OrderMCMCStructure(n_iter=300, random_state=0)],
                         ids=lambda e: type(e).__name__)
def test_all_false_interventions_give_the_same_bits(learner):
    X, mask = chain_data()
    plain = learner.fit(X)
    edges, score = list(plain.edges_), plain.score_
    again = learner.fit(X, interventions=np.zeros(mask.shape, dtype=bool))
    assert again.edges_ == edges and again.score_ == score


def test_order_mcmc_scores_with_the_masks():
    X, mask = chain_data(n=3000, seed=4)
    fit = OrderMCMCStructure(n_iter=1500, random_state=0).fit(X, interventions=mask)
    exact = ExactStructure().fit(X, interventions=mask)
    assert fit.score_ == pytest.approx(exact.score_, rel=1e-12)  # the chains meet the optimum
    assert fit.interventional_cpdag_.undirected == ()
    # the sampled DAGs put the edge A - B in the direction the experiment shows
    assert fit.edge_posterior_.loc["A", "B.b"] > 0.9


def test_bootstrap_resamples_carry_the_intervention_rows():
    X, mask = chain_data(n=800, seed=5)
    boot = BootstrapStructure(HillClimbStructure(), n_resamples=3, keep_graphs=True, cpdag=False,
                              random_state=7).fit(X, interventions=mask)
    seeds = np.random.RandomState(7).randint(np.iinfo(np.int32).max, size=3)
    names = list(X.columns)
    for seed, graph in zip(seeds, boot.graphs_):
        rows = np.random.RandomState(seed).randint(len(X), size=len(X))  # resample's draw
        alone = HillClimbStructure(random_state=int(seed)).fit(
            X.iloc[rows].reset_index(drop=True), interventions=mask.iloc[rows].reset_index(drop=True))
        assert sorted(graph) == sorted(alone.edges_)
    data = masked(X, mask)
    drawn = resample(data.codes, data.cardinalities, tuple(names), None, "nonparametric",
                     np.random.RandomState(seeds[0]), intervened=data.intervened)
    assert np.array_equal(drawn.intervened, data.intervened[rows_of(seeds[0], len(X))])


def rows_of(seed, n):
    return np.random.RandomState(seed).randint(n, size=n)


def test_bootstrap_cpdag_is_the_interventional_class():
    X, mask = chain_data(n=3000, seed=6)
    boot = BootstrapStructure(ExactStructure(), n_resamples=4, random_state=0).fit(X, interventions=mask)
    strength = boot.edge_strength_.set_index(["source", "target"])
    # every resample orients A -> B (the experiment on B): the direction is certain
    assert strength.loc[("A", "B.b"), "direction"] == pytest.approx(1.0)
    observational = BootstrapStructure(ExactStructure(), n_resamples=4, random_state=0).fit(X)
    strength = observational.edge_strength_.set_index(["source", "target"])
    assert strength.loc[("A", "B.b"), "direction"] == pytest.approx(0.5)  # reversible: half each way


def test_bad_input():
    X, mask = chain_data(n=1200)
    with pytest.raises(ValueError, match="its estimator PCStructure does not accept"):
        BootstrapStructure(PCStructure()).fit(X, interventions=mask)
    with pytest.raises(ValueError, match="every row"):
        ExactStructure().fit(X, interventions=np.ones(mask.shape, dtype=bool))
    with pytest.raises(ValueError, match="rows"):
        OrderMCMCStructure().fit(X, interventions=mask.iloc[:10])


def test_continuous_exact_search_with_interventions():
    rng = np.random.default_rng(8)
    n = 2000
    a = rng.normal(size=n)
    b = 0.9 * a + rng.normal(size=n)
    b[1000:] = rng.normal(size=1000)  # do(b)
    c = 0.7 * b + rng.normal(size=n)
    X = pd.DataFrame({"a": a, "b": b, "c": c})
    mask = pd.DataFrame({"a": False, "b": np.arange(n) >= 1000, "c": False})
    fit = ExactStructure(scorer=GaussianBIC()).fit(X, interventions=mask)
    assert sorted(fit.edges_) == [("a", "b"), ("b", "c")]
    assert fit.interventional_cpdag_.undirected == ()
    hc = HillClimbStructure(scorer=GaussianBIC()).fit(X, interventions=mask)
    assert fit.score_ == pytest.approx(hc.score_, rel=1e-10)
