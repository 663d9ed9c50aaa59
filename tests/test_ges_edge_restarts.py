"""GES / GIES edge restarts (``GESStructure(edge_restarts=k)``): deterministic restarts from
the best class with one edge deleted, weakest edge first.

Checked against independent answers: the provably optimal DAG (``ExactStructure``, dynamic
programming over subsets, the same score) on 7-node samples where the plain greedy search
stops below it, with and without experimental rows; R pcalg's ``gies`` graphs as literals
where it stops below the true DAG, whose class the edge restarts return; the score of the
returned DAG recomputed
from the local scores; the stop rule counted from ``edge_restart_scores_``; and the true
DAG's score on ALARM (in ``tests/test_ges_turn.py``).
"""

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from skbn import ExactStructure, GESStructure, HillClimbStructure
from skbn._data import encode_fit
from skbn._engines._local_scores import FamilyScoreCache
from skbn.datasets import make_random_network
from skbn.graph import interventional_essential_graph
from skbn.scores import GaussianBIC

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_ges_turn import _literal_graph, dag_score  # noqa: E402
from test_gies import chain, gaussian_experiments  # noqa: E402


def observational(seed, n=500):
    """A 7-node random discrete network's sample (bnlearn-style ordered random graph)."""
    net = make_random_network(7, edge_prob=0.45, random_state=seed)
    return net.sample(n, random_state=seed)


def experimental(seed):
    """400 observational rows of a 7-node random discrete network and 100 rows per state of
    ``do(t = state)`` for one node ``t`` drawn from the seed; the intervention mask."""
    net = make_random_network(7, edge_prob=0.45, random_state=seed)
    nodes = list(net.nodes)
    target = nodes[int(np.random.default_rng(seed).integers(7))]
    parts, masks = [net.sample(400, random_state=seed)], [np.zeros((400, 7), dtype=bool)]
    for j, state in enumerate(net.states[target]):
        parts.append(net.sample(100, random_state=seed + 1 + j, do={target: state}))
        masks.append(np.zeros((100, 7), dtype=bool))
        masks[-1][:, nodes.index(target)] = True
    X = pd.concat(parts, ignore_index=True)
    for c in X.columns:  # every state declared, whatever the rows hold
        X[c] = pd.Categorical(X[c], categories=net.states[c])
    return X, np.vstack(masks)


def accepted(first, scores):
    """Indices of the tries that improved on the best score so far (``first``: the plain
    search's), under the documented tolerance."""
    best, out = first, []
    for i, s in enumerate(scores):
        if s > best + 1e-10 * (1 + abs(best)):
            best = s
            out.append(i)
    return out


# -------------------------------------------------- the optimum, where greedy stops below it
@pytest.mark.parametrize("seed", [3, 9, 32])
def test_edge_restarts_reach_the_exact_optimum_where_ges_stops_below_it(seed):
    X = observational(seed)
    exact = ExactStructure(fit_parameters=False).fit(X).score_
    plain = GESStructure(fit_parameters=False).fit(X)
    assert plain.score_ < exact - 1.0  # the greedy search's local optimum
    model = GESStructure(edge_restarts=10, fit_parameters=False).fit(X)
    assert model.score_ == pytest.approx(exact, rel=1e-9)
    assert model.edge_restart_scores_.max() == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize("seed", [2, 3, 11])
def test_edge_restarts_reach_the_exact_optimum_where_gies_stops_below_it(seed):
    X, mask = experimental(seed)
    exact = ExactStructure(fit_parameters=False).fit(X, interventions=mask).score_
    plain = GESStructure(edge_restarts=0, fit_parameters=False).fit(X, interventions=mask)
    assert plain.score_ < exact - 1.0
    model = GESStructure(edge_restarts=10, fit_parameters=False).fit(X, interventions=mask)
    assert model.score_ == pytest.approx(exact, rel=1e-9)


def test_edge_restarts_leave_pcalgs_gies_local_optimum_for_the_true_class():
    # R 4.2.2, pcalg 2.7-12; data of gaussian_experiments(p, seed, n_targets=3) written to CSV:
    #   score <- new("GaussL0penIntScore", data = X, targets = c(list(integer(0)),
    #                as.list(t + 1)), target.index = index)
    #   m <- as(gies(score, phase = c("forward", "backward", "turning"), iterate = TRUE)$essgraph,
    #           "matrix")
    # (m[i, j] & !m[j, i]: i -> j; both: i - j; 0-based positions below). The plain search
    # returns pcalg's graph, which scores below the true DAG on these 1,900 rows (a local
    # optimum); the edge restarts return the true DAG's interventional essential graph
    expected = {
        (10, 14): ([(0, 7), (0, 9), (1, 8), (2, 0), (2, 6), (2, 9), (3, 2), (3, 7), (3, 8), (4, 1),
                    (4, 2), (4, 9), (5, 7), (8, 2)], [(3, 5)]),
        (12, 17): ([(0, 2), (2, 1), (2, 3), (3, 10), (3, 11), (5, 0), (5, 2), (7, 0), (7, 4), (9, 1),
                    (9, 5), (11, 1)], []),
    }
    for (p, seed), (directed, undirected) in expected.items():
        net, X, mask, targets = gaussian_experiments(p, seed, n_targets=3)
        scorer = GaussianBIC(variance="mle")
        plain = GESStructure(scorer=scorer, fit_parameters=False).fit(X, interventions=mask)
        _literal_graph(plain, directed, undirected)
        truth = HillClimbStructure(scorer=scorer, start=list(net.edges), max_iter=0, fit_parameters=False)
        truth_score = truth.fit(X, interventions=mask).score_
        assert plain.score_ < truth_score - 1.0
        model = GESStructure(scorer=scorer, edge_restarts=10, fit_parameters=False).fit(X, interventions=mask)
        columns = list(X.columns)
        true_class = interventional_essential_graph(net.nodes, list(net.edges),
                                                    [(), *[(columns[t],) for t in targets]])
        assert set(model.cpdag_.directed) == set(true_class.directed)
        assert set(model.cpdag_.undirected) == set(true_class.undirected)
        assert model.score_ == pytest.approx(truth_score, rel=1e-9)


def test_edge_restarts_never_exceed_the_optimum_nor_fall_below_the_plain_search():
    for seed in range(6):
        X = observational(seed, n=300)
        exact = ExactStructure(fit_parameters=False).fit(X).score_
        plain = GESStructure(fit_parameters=False).fit(X).score_
        score = GESStructure(edge_restarts=5, fit_parameters=False).fit(X).score_
        assert plain - 1e-9 * abs(plain) <= score <= exact + 1e-9 * abs(exact)


# ----------------------------------------------------------- determinism and the stop rule
def test_edge_restarts_are_deterministic():
    X, mask = experimental(3)
    plain = GESStructure(edge_restarts=0, fit_parameters=False).fit(X, interventions=mask)
    assert plain.edge_restart_scores_.shape == (0,)
    model = GESStructure(edge_restarts=4, fit_parameters=False)
    a = model.fit(X, interventions=mask)
    cpdag, score, tries = a.cpdag_, a.score_, a.edge_restart_scores_.copy()
    b = clone(model).fit(X, interventions=mask)
    assert b.cpdag_ == cpdag and b.score_ == score
    np.testing.assert_array_equal(b.edge_restart_scores_, tries)
    # the best of the plain search and the tries, and the score of the returned DAG
    assert score == pytest.approx(max(plain.score_, tries.max()), rel=1e-9)
    data, _ = encode_fit(X, "auto")
    cache = FamilyScoreCache(replace(data, intervened=mask), a.scorer_)
    position = {name: i for i, name in enumerate(X.columns)}
    edges = [(position[u], position[v]) for u, v in a.edges_]
    assert dag_score(cache, X.shape[1], edges) == pytest.approx(score, rel=1e-9)
    # a refit without edge restarts resets the attribute and returns the plain class
    model.set_params(edge_restarts=0).fit(X, interventions=mask)
    assert model.edge_restart_scores_.shape == (0,) and model.cpdag_ == plain.cpdag_


def test_auto_edge_restarts_run_on_experimental_rows_with_a_discrete_column_only():
    # "auto": 10 for GIES on discrete (and mixed) data; 0 for observational GES and for
    # Gaussian GIES, which then stay the plain search (pcalg's ges / gies)
    X, mask = experimental(3)
    for rows, interventions, expected in [(X, mask, 10), (X, None, 0),
                                          (X, np.zeros_like(mask), 0)]:
        auto = GESStructure(fit_parameters=False).fit(rows, interventions=interventions)
        explicit = GESStructure(edge_restarts=expected, fit_parameters=False).fit(
            rows, interventions=interventions)
        assert auto.edge_restarts_ == expected
        assert auto.cpdag_ == explicit.cpdag_ and auto.score_ == explicit.score_
        np.testing.assert_array_equal(auto.edge_restart_scores_, explicit.edge_restart_scores_)
    Xg, gmask = chain()
    assert GESStructure(fit_parameters=False).fit(Xg, interventions=gmask).edge_restarts_ == 0
    mixed = Xg.assign(a=np.where(Xg["a"] > 0, "hi", "lo"))
    assert GESStructure(fit_parameters=False).fit(mixed, interventions=gmask).edge_restarts_ == 10


@pytest.mark.parametrize("patience", [1, 3, 1000])
def test_edge_restarts_stop_after_patience_tries_without_improvement(patience):
    # after the last improvement, exactly min(patience, edges of the final DAG) tries fail:
    # patience 1000 tries every edge of the final class (a full pass)
    X = observational(9)
    plain = GESStructure(fit_parameters=False).fit(X)
    model = GESStructure(edge_restarts=patience, fit_parameters=False).fit(X)
    scores = model.edge_restart_scores_
    improved = accepted(plain.score_, scores)
    tail = len(scores) - (improved[-1] + 1 if improved else 0)
    assert tail == min(patience, len(model.edges_))
    assert all(s <= model.score_ + 1e-9 * abs(model.score_) for s in scores[-tail:])
    if patience == 1000:
        assert improved  # this sample's greedy optimum is escaped


def test_edge_restarts_honour_knowledge():
    X, mask = chain()
    model = GESStructure(black_list=[("a", "b")], edge_restarts=5).fit(X, interventions=mask)
    assert ("a", "b") not in model.edges_
    # a required pair is never deleted: the full pass tries every other edge only
    model = GESStructure(white_list=[("a", "c")], edge_restarts=1000).fit(X, interventions=mask)
    assert ("a", "c") in model.edges_
    assert len(model.edge_restart_scores_) == len(model.edges_) - 1


@pytest.mark.parametrize("bad", [-1, "always", 1.5])
def test_edge_restarts_validated(bad):
    X, _ = chain(300)
    with pytest.raises(ValueError, match="edge_restarts"):
        GESStructure(edge_restarts=bad).fit(X)
