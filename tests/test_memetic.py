"""Anytime budgets and the memetic / genetic searches of HillClimbStructure (skbn._engines._memetic)."""

import time

import numpy as np
import pytest

from skbn._engines import _memetic
from skbn.datasets import make_random_network
from skbn.estimators._hill_climb import HillClimbStructure
from skbn.graph import is_acyclic


@pytest.fixture(scope="module")
def problem():
    net = make_random_network(9, max_indegree=3, n_states=(2, 3), edge_prob=0.35,
                              random_state=2)
    return net.sample(800, random_state=0), net


def adjacency(model, X):
    names = list(X.columns)
    A = np.zeros((len(names), len(names)), dtype=bool)
    for p, c in model.edges_:
        A[names.index(p), names.index(c)] = True
    return A


@pytest.mark.parametrize("search", ["memetic", "genetic"])
def test_deterministic_and_never_worse_than_hill_climbing(problem, search):
    X, _ = problem
    kwargs = {"search": search, "population_size": 6, "max_iter": 15, "random_state": 0}
    first = HillClimbStructure(**kwargs).fit(X)
    second = HillClimbStructure(**kwargs).fit(X)
    assert first.edges_ == second.edges_ and first.score_ == second.score_
    np.testing.assert_array_equal(first.trace_, second.trace_)
    np.testing.assert_array_equal(first.trace_evaluations_, second.trace_evaluations_)
    plain = HillClimbStructure().fit(X)
    assert first.score_ >= plain.score_ - 1e-9 * abs(plain.score_)
    assert first.score_ == pytest.approx(first.trace_.max(), rel=1e-12)
    assert len(first.trace_) == len(first.trace_time_) == len(first.trace_evaluations_)
    assert np.all(np.diff(first.trace_evaluations_) >= 0) and np.all(np.diff(first.trace_time_) >= 0)


def test_memetic_respects_background_knowledge(problem):
    X, _ = problem
    names = list(X.columns)
    white = [(names[0], names[1]), (names[5], names[2])]
    black = [(names[3], names[4]), (names[4], names[3]), (names[1], names[6])]
    model = HillClimbStructure(search="memetic", population_size=5, max_iter=12, max_indegree=2,
                               white_list=white, black_list=black, random_state=1).fit(X)
    A = adjacency(model, X)
    pos = {v: i for i, v in enumerate(names)}
    assert all(A[pos[a], pos[b]] for a, b in white)
    assert not any(A[pos[a], pos[b]] for a, b in black)
    assert A.sum(axis=0).max() <= 2
    assert is_acyclic(names, model.edges_)


@pytest.mark.parametrize("search", ["hill_climb", "tabu", "multistart_tabu", "annealing",
                                    "memetic", "genetic"])
def test_tiny_evaluation_budget_returns_a_valid_dag_deterministically(problem, search):
    X, _ = problem
    kwargs = {"search": search, "max_evaluations": 12, "n_restarts": 3, "random_state": 0,
              "population_size": 4}
    model = HillClimbStructure(**kwargs).fit(X)
    assert is_acyclic(list(X.columns), model.edges_)
    again = HillClimbStructure(**kwargs).fit(X)
    assert model.edges_ == again.edges_ and model.score_ == again.score_
    unlimited = HillClimbStructure(**{**kwargs, "max_evaluations": None}).fit(X)
    assert model.trace_evaluations_[-1] < unlimited.trace_evaluations_[-1]


def test_max_time_stops_the_search(problem):
    X, _ = problem
    start = time.perf_counter()
    model = HillClimbStructure(search="tabu", n_restarts=100_000, tabu_patience=50,
                               perturbation=3, max_time=0.5, random_state=0).fit(X)
    assert time.perf_counter() - start < 30  # generous: the budget is 0.5 s
    assert model.trace_time_[-1] < 30
    assert is_acyclic(list(X.columns), model.edges_)


def test_crossover_takes_whole_parent_sets_and_stays_acyclic():
    rng = np.random.RandomState(0)
    p = 12
    required = np.zeros((p, p), dtype=bool)
    required[0, 1] = True
    for _ in range(50):
        graphs = []
        for _ in range(2):
            order = rng.permutation(p)
            A = np.triu(rng.random_sample((p, p)) < 0.3, k=1)[np.ix_(order, order)]
            A[0, 1], A[1, 0] = True, False
            if not is_acyclic(range(p), list(zip(*np.nonzero(A)))):
                A[:] = False
                A[0, 1] = True
            graphs.append(A)
        child = _memetic._crossover(graphs[0], graphs[1], required, rng)
        assert is_acyclic(range(p), list(zip(*np.nonzero(child))))
        assert child[0, 1]
        for j in range(p):
            assert (np.array_equal(child[:, j], graphs[0][:, j])
                    or np.array_equal(child[:, j], graphs[1][:, j]))


def test_parameters_are_validated(problem):
    X, _ = problem
    for kwargs, match in [({"population_size": 1}, "population_size"),
                          ({"max_time": 0}, "max_time"),
                          ({"max_evaluations": 0}, "max_evaluations"),
                          ({"search": "evolution"}, "search")]:
        with pytest.raises(ValueError, match=match):
            HillClimbStructure(**kwargs).fit(X)


# --------------------------------------------------------------------- multistart tabu
def chow_liu_start(X, **knowledge):
    """The Chow-Liu seed (start plus tree edges) as (parent, child) labels."""
    from skbn._data import encode_fit
    from skbn.knowledge import parse_knowledge

    data, _ = encode_fit(X, "auto")
    parsed = parse_knowledge(data.names, **knowledge)
    seed = _memetic.chow_liu_seed(data, parsed.initial_graph(), parsed.forbidden,
                                  parsed.max_indegree)
    return [(data.names[i], data.names[j]) for i, j in np.argwhere(seed)]


@pytest.mark.parametrize("seed", [0, 1, 2])  # the empty start wins, a tie, the tree wins
def test_multistart_tabu_is_the_better_of_two_tabu_searches(seed):
    net = make_random_network(12, max_indegree=3, n_states=(2, 3), edge_prob=0.3,
                              random_state=seed)
    X = net.sample(600, random_state=seed)
    best = HillClimbStructure(search="multistart_tabu").fit(X)
    from_empty = HillClimbStructure(search="tabu", tabu_patience=20).fit(X)
    from_tree = HillClimbStructure(search="tabu", tabu_patience=20, start=chow_liu_start(X)).fit(X)
    plain = HillClimbStructure().fit(X)
    tabu = HillClimbStructure(search="tabu").fit(X)  # patience 10: the same moves, fewer
    # the first wins ties: compare with the same rule
    tree_wins = from_tree.score_ > from_empty.score_ + 1e-10 * (1 + abs(from_empty.score_))
    winner = from_tree if tree_wins else from_empty
    assert best.edges_ == winner.edges_ and best.score_ == winner.score_
    assert best.score_ >= from_empty.score_ >= tabu.score_ >= plain.score_
    assert best.score_ == best.trace_.max()
    assert best.n_iter_ == from_empty.n_iter_ + from_tree.n_iter_
    again = HillClimbStructure(search="multistart_tabu").fit(X)
    np.testing.assert_array_equal(best.trace_, again.trace_)


def test_multistart_tabu_takes_triangle_moves_beyond_both_tabu_searches():
    """A case where the triangle -> v-structure moves fire (found by search over seeds):
    the result is strictly above both tabu searches, never below the one from the start,
    and deterministic."""
    net = make_random_network(12, max_indegree=3, n_states=(2, 3), edge_prob=0.3,
                              random_state=5)
    X = net.sample(1000, random_state=5)
    best = HillClimbStructure(search="multistart_tabu").fit(X)
    from_empty = HillClimbStructure(search="tabu", tabu_patience=20).fit(X)
    from_tree = HillClimbStructure(search="tabu", tabu_patience=20, start=chow_liu_start(X)).fit(X)
    tol = 1e-10 * (1 + abs(best.score_))
    assert best.score_ > max(from_empty.score_, from_tree.score_) + tol
    assert best.score_ >= HillClimbStructure(search="tabu").fit(X).score_
    assert best.score_ == best.trace_.max()
    assert best.n_iter_ > from_empty.n_iter_ + from_tree.n_iter_  # the triangle moves, climbs
    again = HillClimbStructure(search="multistart_tabu").fit(X)
    assert again.edges_ == best.edges_
    np.testing.assert_array_equal(best.trace_, again.trace_)
    # the memetic search starts from the same two climbs, triangle moves included
    memetic = HillClimbStructure(search="memetic", population_size=3, max_iter=2,
                                 random_state=0).fit(X)
    assert memetic.score_ >= best.score_ - tol


@pytest.mark.parametrize("max_indegree", [None, 2])
def test_triangle_moves_respect_background_knowledge(max_indegree):
    """The case above with a white list, a black list of both directions of a learned edge
    and ``max_indegree``: every constraint holds and the result is at least the tabu
    search's from the start."""
    net = make_random_network(12, max_indegree=3, n_states=(2, 3), edge_prob=0.3,
                              random_state=5)
    X = net.sample(1000, random_state=5)
    names = list(X.columns)
    free = HillClimbStructure(search="multistart_tabu").fit(X)
    a, b = free.edges_[0]
    knowledge = {"white_list": [(names[0], names[1]), (names[3], names[2]), (names[2], names[3])],
                 "black_list": [(a, b), (b, a)], "max_indegree": max_indegree}
    model = HillClimbStructure(search="multistart_tabu", **knowledge).fit(X)
    A = adjacency(model, X)
    assert A[0, 1] and (A[2, 3] or A[3, 2])
    assert not A[names.index(a), names.index(b)] and not A[names.index(b), names.index(a)]
    assert A.sum(axis=0).max() <= (max_indegree or 11)
    assert is_acyclic(names, model.edges_)
    tabu = HillClimbStructure(search="tabu", tabu_patience=20, **knowledge).fit(X)
    assert model.score_ >= tabu.score_ - 1e-10 * (1 + abs(tabu.score_))


def test_multistart_tabu_respects_background_knowledge(problem):
    X, _ = problem
    names = list(X.columns)
    knowledge = {"white_list": [(names[0], names[1])], "max_indegree": 1,
                 "black_list": [(names[2], names[3]), (names[3], names[2])],
                 "tiers": [names[:4], names[4:]]}
    model = HillClimbStructure(search="multistart_tabu", **knowledge).fit(X)
    A = adjacency(model, X)
    assert A[0, 1] and not A[2, 3] and not A[3, 2]
    assert A.sum(axis=0).max() <= 1
    assert not A[4:, :4].any()  # no edge from the later tier into the earlier one
    assert is_acyclic(names, model.edges_)
    tree = chow_liu_start(X, **knowledge)
    assert (names[0], names[1]) in tree and len(tree) >= len(names) // 2
    from_tree = HillClimbStructure(search="tabu", tabu_patience=20, start=tree, **knowledge).fit(X)
    from_empty = HillClimbStructure(search="tabu", tabu_patience=20, **knowledge).fit(X)
    assert model.score_ == max(from_empty.score_, from_tree.score_)


def test_multistart_tabu_budget_skips_the_second_start(problem):
    X, _ = problem
    full = HillClimbStructure(search="multistart_tabu").fit(X)
    first = HillClimbStructure(search="tabu", tabu_patience=20).fit(X)
    budget = int(first.trace_evaluations_[-1])
    stopped = HillClimbStructure(search="multistart_tabu", max_evaluations=budget).fit(X)
    assert stopped.edges_ == first.edges_ and stopped.score_ == first.score_
    assert stopped.trace_evaluations_[-1] < full.trace_evaluations_[-1]


# --------------------------------------------------------------- memetic seeded by tabu
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_memetic_starts_from_multistart_tabu_optima(seed):
    """The first two members are tabu climbs (then steepest ascent) from the start graph and
    the Chow-Liu tree, so memetic search is never worse than ``multistart_tabu``."""
    net = make_random_network(12, max_indegree=3, n_states=(2, 3), edge_prob=0.3,
                              random_state=seed)
    X = net.sample(600, random_state=seed)
    memetic = HillClimbStructure(search="memetic", population_size=4, max_iter=8,
                                 random_state=0).fit(X)
    from_empty = HillClimbStructure(search="tabu", tabu_patience=20).fit(X)
    # the same moves, scores and evaluations as the learner's tabu search from the start
    k = len(from_empty.trace_)
    np.testing.assert_array_equal(memetic.trace_[:k], from_empty.trace_)
    np.testing.assert_array_equal(memetic.trace_evaluations_[:k], from_empty.trace_evaluations_)
    best = HillClimbStructure(search="multistart_tabu").fit(X)
    assert memetic.score_ >= best.score_ - 1e-10 * (1 + abs(best.score_))
    # an explicit tabu_patience reaches the seeding climbs too
    short = HillClimbStructure(search="memetic", population_size=4, max_iter=8, tabu_patience=3,
                               random_state=0).fit(X)
    tabu3 = HillClimbStructure(search="tabu", tabu_patience=3).fit(X)
    np.testing.assert_array_equal(short.trace_[:len(tabu3.trace_)], tabu3.trace_)


def test_genetic_has_no_local_step(problem):
    """``genetic`` climbs nothing before the final polish: the tabu settings are unused and
    its first two members are the start graph and the Chow-Liu tree themselves."""
    X, _ = problem
    kwargs = {"search": "genetic", "population_size": 4, "max_iter": 6, "random_state": 0}
    a = HillClimbStructure(tabu_patience=2, **kwargs).fit(X)
    b = HillClimbStructure(tabu_patience=50, tabu_length=3, **kwargs).fit(X)
    np.testing.assert_array_equal(a.trace_, b.trace_)
    empty = HillClimbStructure(max_iter=0).fit(X)
    tree = HillClimbStructure(start=chow_liu_start(X), max_iter=0).fit(X)
    assert a.trace_[0] == empty.score_ and a.trace_[1] == tree.score_  # no move in between
