"""Background knowledge on an equivalence class: the maximally oriented PDAG (issue 19).

The reference is the definition (Meek 1995): among the DAGs of the Markov equivalence class
that respect the knowledge (every required edge, no forbidden one), an edge of the returned
PDAG is directed iff all of them have it that way, and undirected otherwise. The class is
enumerated by brute force (every orientation of the CPDAG's undirected edges that is acyclic
and Markov equivalent), so none of the code under test decides the expected answers.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

from skbn import GESStructure, PCStructure
from skbn._dag import MixedGraph, complete_pdag, meek_fires, orient_with_knowledge
from skbn.citests import DSeparationOracle
from skbn.exceptions import OrientationConflictWarning
from skbn.graph import (
    PDAG,
    dag_to_cpdag,
    is_acyclic,
    is_markov_equivalent,
    meek_orient,
    random_dag,
    v_structures,
)


def class_members(nodes, edges):
    """Every DAG Markov equivalent to ``edges``, by brute force over the CPDAG's orientations."""
    cpdag = dag_to_cpdag(nodes, edges)
    out = []
    for flips in itertools.product((False, True), repeat=len(cpdag.undirected)):
        cand = list(cpdag.directed) + [(v, u) if f else (u, v)
                                       for (u, v), f in zip(cpdag.undirected, flips)]
        if is_acyclic(nodes, cand) and is_markov_equivalent(nodes, edges, cand):
            out.append(set(cand))
    return cpdag, out


def maximally_oriented(nodes, members, required, forbidden):
    """The definition: None if no member respects the knowledge, else the PDAG whose directed
    edges are those all respecting members share. A pair required both ways requires only
    the adjacency."""
    one_way = {e for e in required if e[::-1] not in required}
    adjacent = {frozenset(e) for e in required}
    ok = [m for m in members if one_way <= m and not set(forbidden) & m
          and adjacent <= {frozenset(e) for e in m}]
    if not ok:
        return None
    skeleton = {frozenset(e) for e in next(iter(ok))}
    directed = [e for e in ok[0] if all(e in m for m in ok)]
    undirected = [tuple(pair) for pair in skeleton if not any(set(pair) == set(e) for e in directed)]
    return PDAG(nodes, directed, undirected)


def random_knowledge(nodes, members, rng):
    """Required directions and forbidden directions, often (not always) consistent."""
    base = sorted(members[rng.integers(len(members))])
    pairs = [(u, v) for u in nodes for v in nodes if u != v]
    required, forbidden = [], []
    for e in base:
        r = rng.random()
        if r < 0.2:
            required.append(e)
        elif r < 0.35:
            forbidden.append(e[::-1])
    for _ in range(rng.integers(0, 2)):  # sometimes a random, possibly inconsistent, entry
        e = pairs[rng.integers(len(pairs))]
        (required if rng.random() < 0.5 else forbidden).append(e)
    forbidden = [e for e in forbidden if e not in required]
    return required, forbidden


def test_meek_orient_with_knowledge_is_the_definition_by_brute_force():
    rng = np.random.default_rng(0)
    n_checked = n_inconsistent = n_r4 = 0
    for trial in range(400):
        p = 3 + trial % 3
        nodes, edges = random_dag(p, 0.6, random_state=trial)
        cpdag, members = class_members(nodes, edges)
        required, forbidden = random_knowledge(nodes, members, rng)
        expected = maximally_oriented(nodes, members, required, forbidden)
        if expected is None:
            with pytest.raises(ValueError, match="background knowledge inconsistent"):
                meek_orient(cpdag, required=required, forbidden=forbidden)
            n_inconsistent += 1
            continue
        out = meek_orient(cpdag, required=required, forbidden=forbidden)
        assert out == expected, (nodes, edges, required, forbidden)
        # from the pattern (skeleton + v-structures) instead of the CPDAG: the same
        arrows = {e for a, c, b in v_structures(nodes, edges) for e in ((a, c), (b, c))}
        pattern = PDAG(nodes, sorted(arrows), [e for e in edges if e not in arrows])
        assert meek_orient(pattern, required=required, forbidden=forbidden) == expected
        # without R4 the closure would be smaller on some of these cases
        index = {v: i for i, v in enumerate(nodes)}
        g = MixedGraph(p, [(index[u], index[v]) for u, v in out.directed],
                       [(index[u], index[v]) for u, v in out.undirected])
        assert all(meek_fires(g, index[u], index[v]) == 0 == meek_fires(g, index[v], index[u])
                   for u, v in out.undirected)
        n_checked += 1
        n_r4 += _needs_r4(cpdag, required, forbidden)
    assert n_checked > 200 and n_inconsistent > 20 and n_r4 > 0


def _needs_r4(cpdag, required, forbidden):
    """Whether closing with R1-R3 only would leave an edge the full closure directs."""
    import skbn._dag as kernel

    full = meek_orient(cpdag, required=required, forbidden=forbidden)
    original = kernel.meek_fires

    def no_r4(g, a, b):
        rule = original(g, a, b)
        return 0 if rule == 4 else rule

    kernel.meek_fires = no_r4
    try:
        partial = meek_orient(cpdag, required=required, forbidden=forbidden)
    finally:
        kernel.meek_fires = original
    return partial != full


def test_meek_r4_by_hand():
    # a - b, a - c, a - d, c - d, d - b (c, b non-adjacent): a chordal undirected class.
    # Requiring c -> d gives d -> b (R1: c -> d - b), then a -> b only by R4
    # (a - c -> d -> b, a adjacent to d, c and b non-adjacent). a - c and a - d stay open:
    # c -> a -> d, a -> c, a -> d and c -> a, d -> a with c -> d are all consistent DAGs.
    und = [("a", "b"), ("a", "c"), ("a", "d"), ("c", "d"), ("b", "d")]
    out = meek_orient(PDAG("abcd", undirected=und), required=[("c", "d")])
    assert set(out.directed) == {("c", "d"), ("d", "b"), ("a", "b")}
    assert set(out.undirected) == {("a", "c"), ("a", "d")}
    # R4 is the rule that fires on a - b once c -> d -> b is in place
    g = MixedGraph(4, [(2, 3), (3, 1)], [(0, 1), (0, 2), (0, 3)])
    assert meek_fires(g, 0, 1) == 4 and meek_fires(g, 1, 0) == 0
    # forbidding d -> c says the same thing
    assert meek_orient(PDAG("abcd", undirected=und), forbidden=[("d", "c")]) == out


def test_meek_orient_inconsistent_knowledge_names_the_edge():
    collider = PDAG("abc", directed=[("a", "c"), ("b", "c")])
    with pytest.raises(ValueError, match=r"'c' -> 'a'.*compels"):
        meek_orient(collider, required=[("c", "a")])
    with pytest.raises(ValueError, match=r"'c' -> 'a'"):
        meek_orient(collider, forbidden=[("a", "c")])
    chain = PDAG("abc", undirected=[("a", "b"), ("b", "c")])
    # a -> b <- c would be a new v-structure: a -> b forces b -> c (R1)
    with pytest.raises(ValueError, match=r"'c' -> 'b'"):
        meek_orient(chain, required=[("a", "b"), ("c", "b")])
    triangle = PDAG("abc", undirected=[("a", "b"), ("b", "c"), ("a", "c")])
    with pytest.raises(ValueError, match=r"'c' -> 'a'"):  # a directed cycle
        meek_orient(triangle, required=[("a", "b"), ("b", "c"), ("c", "a")])
    with pytest.raises(ValueError, match=r"'a' -> 'c' joins non-adjacent"):
        meek_orient(chain, required=[("a", "c")])
    with pytest.raises(ValueError, match=r"'a' - 'b' is forbidden both ways"):
        meek_orient(chain, forbidden=[("a", "b"), ("b", "a")])
    with pytest.raises(ValueError, match="both required and forbidden"):
        meek_orient(chain, required=[("a", "b")], forbidden=[("a", "b")])
    with pytest.raises(ValueError, match="unknown node 'z'"):
        meek_orient(chain, required=[("a", "z")])
    # a two-way required pair only requires the adjacency
    assert meek_orient(chain, required=[("a", "b"), ("b", "a")]) == chain


def test_kernel_reports_conflicts_instead_of_raising():
    # the collider a -> c <- b with c -> a required: a knowledge conflict, the graph unchanged
    g = MixedGraph(3, [(0, 2), (1, 2)])
    required = np.zeros((3, 3), dtype=bool)
    required[2, 0] = True
    out, bad, rules = orient_with_knowledge(g, required, np.eye(3, dtype=bool))
    assert bad == [(2, 0)] and rules == [] and out.edge_lists() == g.edge_lists()


def test_complete_pdag_is_the_cpdag():
    for seed in range(60):
        nodes, edges = random_dag(7, 0.4, random_state=seed)
        index = {v: i for i, v in enumerate(nodes)}
        ids = [(index[u], index[v]) for u, v in edges]
        expected = dag_to_cpdag(range(7), ids)
        out = complete_pdag(MixedGraph(7, ids))
        assert out.edge_lists() == (list(expected.directed), list(expected.undirected))
        # from the CPDAG itself (a PDAG with consistent extensions): unchanged
        again = complete_pdag(MixedGraph(7, expected.directed, expected.undirected))
        assert again.edge_lists() == out.edge_lists()


# ---------------------------------------------------------------------------------------------
# learners
# ---------------------------------------------------------------------------------------------
# A tree rooted at Age: its class has no v-structure, so every edge is undirected; requiring
# Age -> VehicleYear orients it and, by R1, VehicleYear's other edges; Age - SocioEcon stays.
TREE = [("Age", "VehicleYear"), ("VehicleYear", "Antilock"), ("VehicleYear", "MakeModel"),
        ("Age", "SocioEcon")]
TREE_NODES = ["Age", "SocioEcon", "VehicleYear", "MakeModel", "Antilock"]
TREE_ORIENTED = {("Age", "VehicleYear"), ("VehicleYear", "Antilock"), ("VehicleYear", "MakeModel")}


def sample_dag(nodes, edges, n, seed):
    """Rows from a DAG with strongly dependent random CPTs (3 states, string labels)."""
    rng = np.random.default_rng(seed)
    codes = {}
    for v in _topological(nodes, edges):
        parents = [u for u, w in edges if w == v]
        q = 3 ** len(parents)
        cpt = rng.dirichlet(np.full(3, 0.3), size=q)
        cfg = np.zeros(n, dtype=np.int64)
        for u in parents:
            cfg = cfg * 3 + codes[u]
        cum = cpt[cfg].cumsum(axis=1)
        codes[v] = (rng.random(n)[:, None] > cum).sum(axis=1).clip(max=2)
    return pd.DataFrame({v: pd.Categorical(np.array(["low", "mid", "high"])[codes[v]])
                         for v in nodes})


def _topological(nodes, edges):
    out = []
    while len(out) < len(nodes):
        out += [v for v in nodes if v not in out and all(u in out for u, w in edges if w == v)]
    return out


@pytest.fixture(scope="module")
def tree_data():
    return sample_dag(TREE_NODES, TREE, 20000, 1)


def test_ges_required_direction_and_its_meek_consequences(tree_data):
    free = GESStructure().fit(tree_data)
    assert free.directed_edges_ == [] and len(free.undirected_edges_) == 4  # the true class
    for knowledge in ({"white_list": [("Age", "VehicleYear")]},
                      {"black_list": [("VehicleYear", "Age")]}):
        model = GESStructure(**knowledge).fit(tree_data)
        assert set(model.directed_edges_) == TREE_ORIENTED, knowledge
        assert model.undirected_edges_ == [("Age", "SocioEcon")]
        assert TREE_ORIENTED <= set(model.edges_)
        assert model.score_ == pytest.approx(free.score_, rel=1e-12)  # same class, same score


def test_ges_knowledge_against_the_data_is_still_honoured():
    # true collider A -> C <- B; requiring C -> A forces GES into another class
    nodes, edges = ["A", "B", "C", "D"], [("A", "C"), ("B", "C"), ("C", "D")]
    X = sample_dag(nodes, edges, 5000, 0)
    free = GESStructure().fit(X)
    assert set(free.directed_edges_) == set(edges)
    for knowledge in ({"white_list": [("C", "A")]}, {"black_list": [("A", "C"), ("D", "C")]},
                      {"white_list": [("D", "B"), ("C", "A")], "black_list": [("B", "C")]}):
        model = GESStructure(**knowledge).fit(X)
        required = knowledge.get("white_list", [])
        forbidden = knowledge.get("black_list", [])
        assert set(required) <= set(model.edges_) and not set(forbidden) & set(model.edges_)
        assert is_acyclic(nodes, model.edges_)
        # cpdag_ is the maximally oriented PDAG of edges_'s class, by brute force
        _, members = class_members(nodes, model.edges_)
        assert model.cpdag_ == maximally_oriented(nodes, members, required, forbidden)
        assert model.score_ < free.score_


def test_ges_keeps_results_without_directional_knowledge(tree_data):
    # two-way white-list entries (adjacency only) and two-way black-list entries are not
    # directional knowledge: the result is the plain CPDAG of the class
    model = GESStructure(white_list=[("Age", "MakeModel"), ("MakeModel", "Age")],
                         black_list=[("SocioEcon", "Antilock"), ("Antilock", "SocioEcon")]).fit(tree_data)
    assert model.cpdag_ == dag_to_cpdag(TREE_NODES, model.edges_)
    assert model.cpdag_.adjacent("Age", "MakeModel")


def test_pc_oracle_with_knowledge_is_the_definition():
    rng = np.random.default_rng(1)
    n_checked = 0
    for seed in range(40):
        p = 4 + seed % 2
        nodes, edges = random_dag(p, 0.5, random_state=seed)
        _, members = class_members(nodes, edges)
        base = sorted(members[rng.integers(len(members))])
        required = [e for e in base if rng.random() < 0.3]
        forbidden = [e[::-1] for e in base if e not in required and rng.random() < 0.2]
        model = PCStructure(ci_test=DSeparationOracle((nodes, edges)), white_list=required,
                            black_list=forbidden).fit(pd.DataFrame(np.zeros((5, p), int), columns=nodes))
        assert model.orientation_conflicts_ == []
        assert model.cpdag_ == maximally_oriented(nodes, members, required, forbidden)
        assert set(required) <= set(model.edges_) and not set(forbidden) & set(model.edges_)
        n_checked += 1
    assert n_checked == 40


def test_pc_tree_example_and_inconsistent_knowledge():
    frame = pd.DataFrame(np.zeros((5, 5), int), columns=TREE_NODES)
    model = PCStructure(ci_test=DSeparationOracle((TREE_NODES, TREE)),
                        white_list=[("Age", "VehicleYear")]).fit(frame)
    assert set(model.directed_edges_) == TREE_ORIENTED
    assert model.undirected_edges_ == [("Age", "SocioEcon")]
    # against a collider the tests found: left out, reported, never a cycle
    nodes, edges = ["A", "B", "C"], [("A", "C"), ("B", "C")]
    with pytest.warns(OrientationConflictWarning, match="background-knowledge"):
        model = PCStructure(ci_test=DSeparationOracle((nodes, edges)),
                            white_list=[("C", "A")]).fit(frame.iloc[:, :3].set_axis(nodes, axis=1))
    assert ("knowledge", ("C", "A")) in model.orientation_conflicts_
    assert is_acyclic(nodes, model.cpdag_.directed) and is_acyclic(nodes, model.edges_)


@pytest.mark.parametrize("seed", range(8))
def test_ges_random_knowledge_is_respected_and_maximal(seed):
    rng = np.random.default_rng(seed)
    nodes, edges = random_dag(5, 0.5, random_state=seed, max_indegree=2)
    X = sample_dag(nodes, edges, 1500, seed)
    pairs = [(u, v) for u in nodes for v in nodes if u != v]
    picks = rng.choice(len(pairs), size=3, replace=False)
    required = [pairs[picks[0]]]
    forbidden = [pairs[k] for k in picks[1:] if pairs[k][::-1] != required[0]]
    model = GESStructure(white_list=required, black_list=forbidden).fit(X)
    assert set(required) <= set(model.edges_) and not set(forbidden) & set(model.edges_)
    _, members = class_members(nodes, model.edges_)
    assert model.cpdag_ == maximally_oriented(nodes, members, required, forbidden)
    # the start class (no step) already respects the knowledge
    start = GESStructure(white_list=required, black_list=forbidden, max_iter=0).fit(X)
    assert start.directed_edges_ == required and start.undirected_edges_ == []


def _mixed_frame(n=600, seed=3):
    """Two discrete and three continuous columns with edges between the kinds."""
    rng = np.random.default_rng(seed)
    d1 = rng.integers(0, 2, n)
    d2 = np.where(rng.random(n) < 0.8, d1, 1 - d1)
    x1 = 1.5 * d1 + rng.normal(size=n)
    x2 = 0.8 * x1 - d2 + rng.normal(size=n)
    x3 = 0.6 * x2 + rng.normal(size=n)
    return pd.DataFrame({"d1": np.array(["a", "b"])[d1], "d2": np.array(["u", "v"])[d2],
                         "x1": x1, "x2": x2, "x3": x3})


@pytest.mark.parametrize("learner", ["hill_climb", "k2", "exact", "order_mcmc"])
def test_learned_class_respects_the_conditional_gaussian_rule_by_brute_force(learner):
    """On mixed data the class of the learned DAG (``interventional_cpdag_``) is that of the
    DAGs which respect the knowledge, the CLG rule among it: by brute force over the class,
    an edge is directed iff every member with no continuous -> discrete edge has it so."""
    from skbn import ExactStructure, HillClimbStructure, K2Structure, OrderMCMCStructure

    X = _mixed_frame()
    model = {"hill_climb": HillClimbStructure(), "k2": K2Structure(ordering=list(X.columns)),
             "exact": ExactStructure(), "order_mcmc": OrderMCMCStructure(n_iter=200, random_state=0),
             }[learner].set_params(fit_parameters=False).fit(X)
    nodes = list(X.columns)
    forbidden = [(u, v) for u in ("x1", "x2", "x3") for v in ("d1", "d2")]
    _, members = class_members(nodes, model.edges_)
    expected = maximally_oriented(nodes, members, [], forbidden)
    got = model.interventional_cpdag_
    assert set(got.directed) == set(expected.directed)
    assert {frozenset(e) for e in got.undirected} == {frozenset(e) for e in expected.undirected}
    assert not set(got.directed) & set(forbidden)


def test_learned_class_respects_a_black_listed_direction():
    """A direction the user forbids is never reversible in the class of the learned DAG:
    discrete data, where the plain CPDAG would leave the edge undirected."""
    from skbn import HillClimbStructure

    rng = np.random.default_rng(4)
    a = rng.integers(0, 2, 2000)
    b = np.where(rng.random(2000) < 0.85, a, 1 - a)
    X = pd.DataFrame({"a": a, "b": b, "c": rng.integers(0, 2, 2000)})
    plain = HillClimbStructure(fit_parameters=False).fit(X)
    assert {frozenset(e) for e in plain.interventional_cpdag_.undirected} == {frozenset(("a", "b"))}
    model = HillClimbStructure(black_list=[("b", "a")], fit_parameters=False).fit(X)
    assert model.edges_ == [("a", "b")]
    assert list(model.interventional_cpdag_.directed) == [("a", "b")]
    assert not model.interventional_cpdag_.undirected
