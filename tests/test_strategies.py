"""The registry of search strategies (skbn._engines._strategies) and its readers: the
estimator's ``search`` parameter, its docstring and the command line's ``--method``."""

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.utils import check_random_state

from skbn import HillClimbStructure
from skbn._engines import _memetic, _search
from skbn._engines._strategies import MULTISTART_PATIENCE, STRATEGIES
from skbn.cli import METHODS, main
from skbn.datasets import make_random_network
from skbn.io import read_json
from skbn.knowledge import parse_knowledge
from skbn.scores import resolve_scorer

UNLIMITED = np.iinfo(np.int64).max


def _former_fit(model, X):
    """The search as the estimator ran it before the registry (an if/elif over the names),
    written against the engine functions: (edges, score, n_moves, trace)."""
    from skbn._data import encode_fit

    data, _ = encode_fit(X)
    search = model.search
    scorer = resolve_scorer(model._auto_plugins["scorer"][0] if model.scorer == "auto" else model.scorer)
    knowledge = parse_knowledge(data.names, white_list=model.white_list, black_list=model.black_list,
                                tiers=model.tiers, max_indegree=model.max_indegree, start=model.start)
    required, forbidden = knowledge.required, knowledge.forbidden
    max_indegree, start = knowledge.max_indegree, knowledge.initial_graph()
    rng = check_random_state(model.random_state)
    budget = _search.Budget(model.max_time, model.max_evaluations)
    engine = _search.DeltaEngine(data, scorer, required, forbidden, max_indegree)
    max_iter = model.max_iter
    if max_iter is None and search in ("memetic", "genetic"):
        max_iter = 10 * model.population_size
    elif max_iter is None:
        max_iter = 100 * data.n_variables if search == "annealing" else UNLIMITED
    patience = (model.tabu_patience if model.tabu_patience is not None
                else 20 if search in ("multistart_tabu", "memetic") else 10)
    seeds = ([_memetic.chow_liu_seed(data, start, forbidden, max_indegree, engine.counter)]
             if search in ("multistart_tabu", "memetic", "genetic") else None)

    def run(graph, label):
        engine.start(graph) if label == "" else engine.set_graph(graph)
        recorder = _search._Recorder(0, data.names, label, budget)
        recorder.record(engine)
        if search == "hill_climb":
            _search.steepest_ascent(engine, recorder, max_iter)
        elif search == "first_improvement":
            _search.first_improvement(engine, recorder, max_iter, rng)
        elif search == "tabu" or (search == "multistart_tabu" and label != ""):
            _search.tabu_search(engine, recorder, max_iter, model.tabu_length, patience)
        elif search == "multistart_tabu":
            best_graph, best_score = None, -np.inf
            for k, seed in enumerate([None, *seeds]):
                if k and budget.exhausted(engine):
                    break
                if seed is not None:
                    engine.set_graph(seed)
                    recorder.record(engine)
                _search.tabu_triangle_climb(engine, recorder, max_iter, model.tabu_length, patience)
                if best_graph is None or _search.improves(engine.score, best_score):
                    best_graph, best_score = engine.A.copy(), engine.score
            if not np.array_equal(engine.A, best_graph):
                engine.set_graph(best_graph)
                recorder.record(engine)
        elif search == "annealing":
            _search.simulated_annealing(engine, recorder, max_iter, float(model.temperature),
                                        float(model.cooling), rng)
        else:
            _memetic.memetic_search(engine, recorder, population_size=model.population_size,
                                    n_generations=max_iter, perturbation=model.perturbation,
                                    local_search=search == "memetic", rng=rng, seeds=seeds,
                                    tabu=(model.tabu_length, patience))
        if search != "hill_climb":
            _search.polish(engine, recorder, UNLIMITED if search in ("memetic", "genetic") else max_iter)
        return engine.A.copy(), recorder

    graph, recorder = run(start, "")
    recorders, best_graph, best_score = [recorder], graph, engine.score
    for r in range(model.n_restarts):
        if budget.exhausted(engine):
            break
        engine.set_graph(best_graph)
        _search.perturb(engine, model.perturbation, rng)
        graph, recorder = run(engine.A.copy(), f" restart {r + 1}")
        recorders.append(recorder)
        if engine.score > best_score + _search.tolerance(best_score):
            best_graph, best_score = graph, engine.score
    engine.set_graph(best_graph)
    edges = [(data.names[i], data.names[j]) for i, j in np.argwhere(best_graph)]
    trace = np.concatenate([np.asarray(r.trace, dtype=float) for r in recorders])
    return edges, engine.score, sum(r.n_moves for r in recorders), trace


@pytest.fixture(scope="module")
def sample():
    net = make_random_network(9, max_indegree=3, n_states=(2, 3), edge_prob=0.35, random_state=4)
    return net.sample(600, random_state=4)


@pytest.mark.parametrize("search", list(STRATEGIES))
@pytest.mark.parametrize("settings", [
    {"random_state": 0},
    {"n_restarts": 2, "random_state": 1, "scorer": "bic", "max_indegree": 2},
    {"max_evaluations": 40, "random_state": 0, "tabu_patience": 3, "population_size": 3},
])
def test_every_strategy_runs_and_matches_the_former_dispatch(search, settings, sample):
    if search in ("memetic", "genetic"):
        settings = {"population_size": 4, "max_iter": 5, **settings}
    model = HillClimbStructure(search=search, **settings).fit(sample)
    edges, score, n_moves, trace = _former_fit(model, sample)
    assert sorted(model.edges_) == sorted(edges)
    assert model.score_ == score  # bit for bit
    assert model.n_iter_ == n_moves
    np.testing.assert_array_equal(model.trace_, trace)


def test_strategy_rules_are_those_of_the_documented_defaults():
    assert [name for name, s in STRATEGIES.items() if s.seeds] == ["multistart_tabu", "memetic", "genetic"]
    assert {name: s.tabu_patience for name, s in STRATEGIES.items()} == {
        name: MULTISTART_PATIENCE if name in ("multistart_tabu", "memetic") else 10 for name in STRATEGIES}
    assert STRATEGIES["annealing"].default_max_iter(7, 10) == 700
    assert STRATEGIES["memetic"].default_max_iter(7, 4) == STRATEGIES["genetic"].default_max_iter(7, 4) == 40
    assert STRATEGIES["tabu"].default_max_iter(7, 4) == UNLIMITED


def test_unknown_strategy_is_refused_naming_the_parameter(sample):
    with pytest.raises(ValueError, match=r"'search' parameter of HillClimbStructure must be .*'tabu'"):
        HillClimbStructure(search="steepest").fit(sample)


def test_the_docstring_lists_exactly_the_registry():
    listed = re.findall(r'^    \* ``"(\w+)"``: ', HillClimbStructure.__doc__, flags=re.MULTILINE)
    assert listed == list(STRATEGIES)
    assert "{search_strategies}" not in HillClimbStructure.__doc__


def test_the_command_line_lists_exactly_the_registry(capsys):
    hill_climbing = {name: params for name, (cls, params) in METHODS.items() if cls == "HillClimbStructure"}
    assert list(hill_climbing) == list(STRATEGIES)
    assert all(params == {"search": name} for name, params in hill_climbing.items())
    assert main(["learn", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    choices = re.search(r"--method \{([^}]*)\}", help_text).group(1).split(",")
    assert choices[:len(STRATEGIES)] == list(STRATEGIES)
    assert set(choices[len(STRATEGIES):]).isdisjoint(STRATEGIES)


@pytest.mark.parametrize("method", ["annealing", "genetic"])
def test_a_strategy_new_to_the_command_line_learns_as_the_estimator(method, sample, tmp_path, capsys):
    sample.to_csv(tmp_path / "d.csv", index=False)
    status = main(["learn", str(tmp_path / "d.csv"), "--method", method, "--random-state", "0",
                   "-o", str(tmp_path / "m.json")])
    out = capsys.readouterr().out
    assert status == 0 and out.startswith(f"HillClimbStructure ({method})")
    model = HillClimbStructure(search=method, random_state=0).fit(pd.read_csv(tmp_path / "d.csv"))
    assert sorted(read_json(tmp_path / "m.json").edges) == sorted(model.edges_)
