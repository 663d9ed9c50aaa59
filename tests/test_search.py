"""The incremental delta table and the lazy cycle check of skbn._engines._search.DeltaEngine.

Reference: the from-scratch formulas of the delta table (every move's delta from the toggle
columns, legality from the transitive closure by repeated squaring and the other-path test
``R @ A``), i.e. the engine as it was before it became incremental.
"""

import itertools
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import shared_network

from skbn._data import encode_fit
from skbn._engines import _search
from skbn._engines._local_scores import FamilyColumns, FamilyScoreCache
from skbn.datasets import make_random_network
from skbn.estimators._hill_climb import HillClimbStructure
from skbn.network import DiscreteBayesianNetwork
from skbn.scores import AIC, BIC, BDeu, K2Score, LogLikelihood

REFERENCE = Path(__file__).parent / "data" / "hill_climb_reference.json"


def slow_closure(A):
    reach = A.astype(np.float32)
    while True:
        grown = ((reach + reach @ reach) > 0).astype(np.float32)
        if np.array_equal(grown, reach):
            return reach > 0
        reach = grown


def slow_deltas(engine):
    """The full legal delta table recomputed from scratch."""
    A, T, req = engine.A, engine.T, engine.required
    R = slow_closure(A)
    D = T - np.diag(T)[None, :]
    room = A.sum(axis=0) < engine.max_indegree
    add_ok = ~(A | A.T) & ~engine.forbidden & ~R.T & room[None, :]
    removable = A & ~(req | req.T)
    reversible = A & ~(req & ~req.T)
    other_path = (R.astype(np.float32) @ A.astype(np.float32)) > 0
    reverse_ok = reversible & ~engine.forbidden.T & room[:, None] & ~other_path
    out = np.full(A.shape + (3,), -np.inf)
    out[..., _search.ADD] = np.where(add_ok, D, -np.inf)
    out[..., _search.REMOVE] = np.where(removable, D, -np.inf)
    out[..., _search.REVERSE] = np.where(reverse_ok, D + D.T, -np.inf)
    return out


def make_engine(p, seed, max_indegree, n_required=1, both_ways=True):
    net = make_random_network(p, max_indegree=2, n_states=(2, 3), edge_prob=0.4,
                              random_state=seed)
    data, _ = encode_fit(net.sample(300, random_state=seed))
    rng = np.random.RandomState(seed)
    required = np.zeros((p, p), dtype=bool)
    forbidden = np.zeros((p, p), dtype=bool)
    pairs = rng.permutation([(i, j) for i in range(p) for j in range(p) if i != j])
    for i, j in pairs[:n_required]:
        required[i, j] = True
    if both_ways:  # a required adjacency of free direction
        i, j = pairs[n_required]
        required[i, j] = required[j, i] = True
    for i, j in pairs[n_required + 1:n_required + 4]:
        forbidden[i, j] = True
    engine = _search.DeltaEngine(data, BDeu(ess=1.0), required, forbidden, max_indegree)
    start = required & ~np.tril(np.ones((p, p), dtype=bool))  # one direction of each pair
    start |= required & ~required.T
    engine.start(start)
    return engine, rng


@pytest.mark.parametrize("seed, p, max_indegree", [(0, 6, 2), (1, 7, 3), (2, 8, 8), (3, 5, 1), (4, 6, 5)])
def test_incremental_table_and_lazy_selection_equal_the_slow_path(seed, p, max_indegree):
    engine, rng = make_engine(p, seed, max_indegree)
    n_checked = 0
    for step in range(60):
        full = slow_deltas(engine)
        np.testing.assert_array_equal(engine.deltas(), full)
        score = engine.score
        expected = _search.best_move(full.ravel(), score)
        assert _search.select_move(engine, score) == expected
        # the lazy check masks cyclic moves only: the full table is unchanged by it
        np.testing.assert_array_equal(engine.deltas(), full)
        legal = np.flatnonzero(np.isfinite(full.ravel()))
        if not len(legal):
            break
        if step % 3 and expected[0] is not None:
            move = expected[0]  # a steepest-ascent step
        else:
            move = int(legal[rng.randint(len(legal))])  # any legal move: removals, reversals
        engine.apply(_search.decode(move, p))
        n_checked += 1
    assert n_checked > 30


def test_table_after_moves_equals_a_fresh_engine():
    engine, rng = make_engine(9, 5, 3)
    for _ in range(40):
        legal = np.flatnonzero(np.isfinite(engine.deltas().ravel()))
        engine.apply(_search.decode(int(legal[rng.randint(len(legal))]), 9))
        _search.select_move(engine, engine.score)  # leaves cyclic moves masked
    fresh, _ = make_engine(9, 5, 3)  # same data and constraints, a new table
    fresh.start(engine.A)
    np.testing.assert_array_equal(fresh.deltas(), engine.deltas())
    assert fresh.score == engine.score


def test_tabu_masking_leaves_the_table_intact():
    engine, _ = make_engine(7, 4, 3)
    recorder = _search._Recorder(0, [str(i) for i in range(7)], "")
    _search.tabu_search(engine, recorder, max_moves=40, tabu_length=5, patience=40)
    fresh, _ = make_engine(7, 4, 3)
    fresh.start(engine.A)
    np.testing.assert_array_equal(fresh.deltas(), engine.deltas())


def test_reachability_updated_by_moves_equals_repeated_squaring():
    # long walks of random legal moves (mostly adds at first, then removals and reversals)
    # with no rebuild in between: the bitsets updated by each move stay exact
    engine, rng = make_engine(12, 6, 11, n_required=0, both_ways=False)
    engine.reachability()  # built once; every later state comes from the updates
    kinds = set()
    for _ in range(300):
        legal = np.flatnonzero(np.isfinite(engine.deltas().ravel()))
        move = _search.decode(int(legal[rng.randint(len(legal))]), 12)
        engine.apply(move)
        kinds.add(move[0])
        np.testing.assert_array_equal(engine.reachability(), slow_closure(engine.A))
        assert [int(b) for b in engine._parent_bits] == [int(sum(1 << int(i) for i in np.flatnonzero(col)))
                                                         for col in engine.A.T]
    assert kinds == {_search.ADD, _search.REMOVE, _search.REVERSE}


def _rows_drawn_in_file_order(net, n_samples, random_state):
    """The rows ``net.sample`` drew before it broke the ties of its drawing order by node
    name: then they went by node (file) order. Renaming the nodes ``"000 name"``, ... makes
    name order the file order, so today's sampler draws those rows."""
    new = {v: f"{k:03d} {v}" for k, v in enumerate(net.nodes)}
    renamed = DiscreteBayesianNetwork({new[v]: net.states[v] for v in net.nodes},
                                      {new[v]: [new[p] for p in net.parents[v]] for v in net.nodes},
                                      {new[v]: net.cpts[v] for v in net.nodes})
    rows = renamed.sample(n_samples, random_state=random_state)
    rows.columns = list(net.nodes)
    return rows


@pytest.mark.parametrize("case", ["alarm/hill_climb", "alarm/tabu", "alarm/restarts",
                                  "child/hill_climb", "child/tabu", "child/restarts"])
def test_same_result_as_before_the_incremental_engine(case):
    # fixture: edges and score of HillClimbStructure before the delta table became
    # incremental (2,000 rows drawn with random_state=0), whose ties went by column position:
    # the search on the columns in the network's file order (fit sorts them by name first).
    # The fixture's rows are those sample() drew before it broke its ties by name.
    reference = json.loads(REFERENCE.read_text())[case]
    X = _rows_drawn_in_file_order(shared_network(case.split("/")[0]), 2000, 0)
    data, _ = encode_fit(X)
    model = HillClimbStructure(**reference["params"])
    edges = model._run_search(data)
    assert [[data.names[u], data.names[v]] for u, v in edges] == reference["edges"]
    assert model.score_ == pytest.approx(reference["score"], rel=1e-12)
    assert model.n_iter_ == reference["n_iter"]


def test_bic_search_equals_slow_steepest_ascent():
    # the whole steepest ascent, step by step, against best_move on the slow table
    net = make_random_network(12, max_indegree=3, random_state=3)
    data, _ = encode_fit(net.sample(1500, random_state=0))
    none = np.zeros((12, 12), dtype=bool)
    fast = _search.DeltaEngine(data, BIC(), none, none, 3)
    slow = _search.DeltaEngine(data, BIC(), none, none, 3)
    fast.start(none)
    slow.start(none)
    recorder = _search._Recorder(0, data.names, "")
    _search.steepest_ascent(fast, recorder, 10_000)
    while True:
        score = slow.score
        index, delta = _search.best_move(slow_deltas(slow).ravel(), score)
        if index is None or delta <= _search.tolerance(score):
            break
        slow.apply(_search.decode(index, 12))
    np.testing.assert_array_equal(fast.A, slow.A)
    assert recorder.n_moves > 10


@pytest.mark.parametrize("scorer", [BIC(), BDeu(ess=1.0)])
def test_forbidden_parents_are_not_counted_and_change_no_move(scorer):
    """With a black list the engine counts and scores only the allowed parents; every
    allowed entry of the toggle columns, hence the whole search, is that of an engine
    counting every variable (forbidden entries: -inf, never read)."""
    p = 12
    net = make_random_network(p, max_indegree=3, random_state=5)
    data, _ = encode_fit(net.sample(1500, random_state=1))
    rng = np.random.RandomState(0)
    forbidden = rng.random_sample((p, p)) < 0.6
    forbidden[net.nodes.index(net.edges[0][0]), net.nodes.index(net.edges[0][1])] = False
    np.fill_diagonal(forbidden, False)
    none = np.zeros((p, p), dtype=bool)
    restricted = _search.DeltaEngine(data, scorer, none, forbidden, p)
    counting_all = _search.DeltaEngine(data, scorer, none, forbidden, p)
    counting_all.columns._columns = None  # the path without candidates: every variable counted
    assert restricted.columns._columns is not None
    recorders = []
    for engine in (restricted, counting_all):
        engine.start(none)
        recorders.append(_search._Recorder(0, data.names, ""))
        _search.steepest_ascent(engine, recorders[-1], 10_000)
    np.testing.assert_array_equal(restricted.A, counting_all.A)
    np.testing.assert_array_equal(restricted.table, counting_all.table)
    allowed = ~forbidden
    np.testing.assert_array_equal(restricted.T[allowed], counting_all.T[allowed])
    assert np.all(restricted.T[forbidden] == -np.inf)
    assert recorders[0].trace == recorders[1].trace and recorders[0].n_moves > 3


@pytest.mark.parametrize("scorer", [BDeu(ess=1.0), BDeu(ess=5.0), BIC(), AIC(), K2Score(), LogLikelihood()])
@pytest.mark.parametrize("weights", [None, "fractional"])
def test_parentless_columns_in_one_batch_equal_one_pass_per_child(scorer, weights):
    # the batch (FamilyCounter.pair_stack, one local_scores call) gives every parentless
    # toggle column bit for bit as counting and scoring each child alone
    net = make_random_network(7, max_indegree=2, n_states=(2, 4), edge_prob=0.4, random_state=2)
    data, _ = encode_fit(net.sample(400, random_state=2))
    if weights:
        data = replace(data, weights=np.random.RandomState(0).rand(data.n_samples))
    columns = FamilyColumns(data, scorer)
    for child in range(data.n_variables):
        stack, family, _ = columns.counter.added_parent_tables(child, ())
        expected = scorer.local_scores(stack)
        expected[child] = scorer.local_score(family, 1, 0)
        np.testing.assert_array_equal(columns.toggle_column(child, ()), expected)


# --------------------------------------------------------------- triangle -> v-structure
def slow_triangle_moves(engine):
    """Every triangle move from its definition: (a, b, c, z) -> (new DAG or None when a
    constraint forbids it, score change from scratch, acyclic)."""
    A, p = engine.A, engine.p
    adjacent = A | A.T
    fresh = FamilyScoreCache(None, engine.scorer, counter=engine.counter)

    def total(G):
        return sum(fresh.local_score(v, np.flatnonzero(G[:, v]).tolist()) for v in range(p))

    one_way = engine.required & ~engine.required.T
    two_way = engine.required & engine.required.T
    out = {}
    for a, b, c in itertools.combinations(range(p), 3):
        if not (adjacent[a, b] and adjacent[a, c] and adjacent[b, c]):
            continue
        for z in (a, b, c):
            u, w = (v for v in (a, b, c) if v != z)
            G = A.copy()
            G[u, w] = G[w, u] = G[z, u] = G[z, w] = False
            G[u, z] = G[w, z] = True
            legal = ((G >= one_way).all() and ((G | G.T) >= two_way).all()
                     and not (G & ~A & engine.forbidden).any()
                     and G.sum(axis=0).max() <= engine.max_indegree)
            acyclic = not np.diag(slow_closure(G)).any()
            out[(a, b, c, z)] = (G if legal else None, total(G) - total(A), acyclic)
    return out


@pytest.mark.parametrize("seed, p, max_indegree", [(0, 6, 2), (1, 7, 3), (2, 8, 8), (3, 7, 4)])
def test_triangle_moves_equal_their_definition(seed, p, max_indegree):
    """Deltas, legality (required, forbidden, max_indegree) and the acyclicity test of the
    triangle moves against graphs built from the definition and scored from scratch, along
    a walk of random legal moves."""
    engine, rng = make_engine(p, seed, max_indegree)
    n_triangles = n_cyclic = 0
    for _ in range(80):
        expected = slow_triangle_moves(engine)
        found = _search.triangle_moves(engine)
        assert [m for _, m in found] == [m for m, v in expected.items() if v[0] is not None]
        for delta, move in found:
            graph, slow_delta, acyclic = expected[move]
            assert delta == pytest.approx(slow_delta, rel=1e-9, abs=1e-9)
            np.testing.assert_array_equal(_search.triangle_graph(engine.A, move), graph)
            assert _search._triangle_keeps_acyclic(engine, move) == acyclic
            n_triangles += 1
            n_cyclic += not acyclic
        legal = np.flatnonzero(np.isfinite(engine.deltas().ravel()))
        if not len(legal):
            break
        # mostly additions, so that triangles appear
        adds = legal[legal % 3 == _search.ADD]
        pool = adds if len(adds) and rng.random_sample() < 0.7 else legal
        engine.apply(_search.decode(int(pool[rng.randint(len(pool))]), p))
    assert n_triangles > 20 and n_cyclic > 0


def v_structure_data(n=3000, seed=0):
    """``u -> z <- w`` with independent ``u``, ``w``: ``z`` is their noisy OR."""
    rng = np.random.RandomState(seed)
    u, w = rng.randint(2, size=n), rng.randint(2, size=n)
    z = (u | w) ^ (rng.random_sample(n) < 0.1)
    return pd.DataFrame({"u": u, "w": w, "z": z}).astype(str)


def test_triangle_descent_escapes_a_covered_v_structure():
    """A triangle covering the v-structure ``u -> z <- w`` is a complete DAG: no single
    move improves it (every reversal gives an equivalent DAG, every removal drops a real
    dependence), and the triangle move at apex ``z`` reaches the v-structure."""
    data, _ = encode_fit(v_structure_data())
    none = np.zeros((3, 3), dtype=bool)
    engine = _search.DeltaEngine(data, BDeu(ess=1.0), none, none, 3)
    u, w, z = 0, 1, 2
    triangle = none.copy()
    triangle[z, u] = triangle[z, w] = triangle[u, w] = True
    engine.start(triangle)
    recorder = _search._Recorder(0, data.names, "")
    assert _search.steepest_ascent(engine, recorder, 100) == 0
    before = engine.score
    climbs = []
    taken = _search.triangle_descent(engine, recorder, lambda: climbs.append(engine.score))
    assert taken == 1 and len(climbs) == 1 and recorder.n_moves == 1
    assert engine.A.tolist() == [[False, False, True], [False, False, True], [False] * 3]
    assert engine.score > before
    # a black-listed u -> z forbids the move (the reversal would create it)
    forbidden = none.copy()
    forbidden[u, z] = True
    blocked = _search.DeltaEngine(data, BDeu(ess=1.0), none, forbidden, 3)
    blocked.start(triangle)
    assert all(move[3] != z for _, move in _search.triangle_moves(blocked))
