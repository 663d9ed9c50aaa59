import itertools
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from skbn.graph import (
    PDAG,
    _extension,
    _meek,
    ancestors,
    d_separated,
    dag_to_cpdag,
    has_directed_path,
    is_acyclic,
    is_markov_equivalent,
    markov_blanket,
    meek_orient,
    minimal_imap,
    pdag_to_dag,
    random_dag,
    topological_order,
    v_structures,
)

ASIA_NODES = ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"]
ASIA_EDGES = [("asia", "tub"), ("smoke", "lung"), ("smoke", "bronc"), ("tub", "either"),
              ("lung", "either"), ("either", "xray"), ("either", "dysp"), ("bronc", "dysp")]

_nx_dsep = getattr(nx, "is_d_separator", None) or nx.d_separated


# ---------------------------------------------------------------------------------------------
# independent brute-force references (no skbn code)
# ---------------------------------------------------------------------------------------------
def _brute_vstructs(edges):
    parents = {}
    for u, v in edges:
        parents.setdefault(v, set()).add(u)
    adj = {frozenset(e) for e in edges}
    return {(frozenset((a, b)), c) for c, ps in parents.items()
            for a, b in itertools.combinations(ps, 2) if frozenset((a, b)) not in adj}


def _brute_equivalent(e1, e2):
    return ({frozenset(e) for e in e1} == {frozenset(e) for e in e2}
            and _brute_vstructs(e1) == _brute_vstructs(e2))


def _all_dags(nodes):
    pairs = list(itertools.combinations(nodes, 2))
    for states in itertools.product((0, 1, 2), repeat=len(pairs)):
        edges = []
        for (u, v), s in zip(pairs, states):
            if s == 1:
                edges.append((u, v))
            elif s == 2:
                edges.append((v, u))
        g = nx.DiGraph(edges)
        g.add_nodes_from(nodes)
        if nx.is_directed_acyclic_graph(g):
            yield edges


def _cpdag_via_meek(nodes, edges):
    """Second route to the CPDAG: v-structures directed, everything else undirected, Meek."""
    directed = set()
    for a, c, b in v_structures(nodes, edges):
        directed |= {(a, c), (b, c)}
    undirected = [e for e in edges if e not in directed]
    return meek_orient(PDAG(nodes, sorted(directed), undirected))


# ---------------------------------------------------------------------------------------------
# topological order, paths, blankets
# ---------------------------------------------------------------------------------------------
def test_topological_order_ties_by_position():
    assert topological_order("abcd", [("c", "a")]) == ["b", "c", "a", "d"]
    assert topological_order(["c", "b", "a"], [("a", "b"), ("b", "c")]) == ["a", "b", "c"]
    assert topological_order([], []) == []


def test_topological_order_is_valid_on_random_dags():
    for seed in range(10):
        nodes, edges = random_dag(30, 0.2, random_state=seed, shuffle=True)
        order = topological_order(nodes, edges)
        pos = {v: i for i, v in enumerate(order)}
        assert sorted(order) == sorted(nodes)
        assert all(pos[u] < pos[v] for u, v in edges)
        # independent of the order of the edge list
        assert topological_order(nodes, edges[::-1]) == order


def test_cycle_is_reported_with_its_nodes():
    with pytest.raises(ValueError, match="cycle") as info:
        topological_order("abcde", [("a", "b"), ("b", "c"), ("c", "d"), ("d", "b"), ("d", "e")])
    msg = str(info.value)
    assert all(repr(v) in msg for v in "bcd") and "'a'" not in msg and "'e'" not in msg
    assert not is_acyclic("ab", [("a", "b"), ("b", "a")])
    assert is_acyclic("ab", [("a", "b")])


def test_bad_input():
    with pytest.raises(ValueError, match="unknown node"):
        topological_order("ab", [("a", "z")])
    with pytest.raises(ValueError, match="self loop"):
        topological_order("ab", [("a", "a")])
    with pytest.raises(ValueError, match="duplicate node"):
        topological_order("aba", [])


def test_paths_and_ancestors():
    edges = [("a", "b"), ("b", "c"), ("d", "c")]
    assert has_directed_path("abcd", edges, "a", "c")
    assert not has_directed_path("abcd", edges, "a", "d")
    assert not has_directed_path("abcd", edges, "a", "a")
    assert ancestors("abcd", edges, "c") == ["a", "b", "d"]


def test_markov_blanket():
    assert markov_blanket(ASIA_NODES, ASIA_EDGES, "lung") == ["tub", "smoke", "either"]
    assert markov_blanket(ASIA_NODES, ASIA_EDGES, "either") == [
        "tub", "lung", "bronc", "xray", "dysp"]
    assert markov_blanket(ASIA_NODES, ASIA_EDGES, "asia") == ["tub"]


def test_v_structures():
    assert v_structures(ASIA_NODES, ASIA_EDGES) == [
        ("tub", "either", "lung"), ("bronc", "dysp", "either")]
    # shielded collider is not a v-structure
    assert v_structures("abc", [("a", "c"), ("b", "c"), ("a", "b")]) == []
    # a before b in node order
    assert v_structures("bca", [("a", "c"), ("b", "c")]) == [("b", "c", "a")]


# ---------------------------------------------------------------------------------------------
# d-separation
# ---------------------------------------------------------------------------------------------
def test_d_separation_textbook():
    chain = [("a", "b"), ("b", "c")]
    fork = [("b", "a"), ("b", "c")]
    collider = [("a", "b"), ("c", "b")]
    for edges in (chain, fork):
        assert not d_separated("abc", edges, "a", "c")
        assert d_separated("abc", edges, "a", "c", ["b"])
    assert d_separated("abc", collider, "a", "c")
    assert not d_separated("abc", collider, "a", "c", ["b"])
    # observed descendant of the collider opens it
    with_desc = collider + [("b", "d"), ("d", "e")]
    assert d_separated("abcde", with_desc, "a", "c")
    assert not d_separated("abcde", with_desc, "a", "c", ["e"])
    assert not d_separated("abcde", with_desc, "a", "c", "d")
    # sets
    assert d_separated("abcde", with_desc, ["a"], ["c", "d"], []) is False
    assert d_separated("abcde", with_desc, ["a", "c"], ["e"], ["d"])


def test_d_separation_asia():
    assert d_separated(ASIA_NODES, ASIA_EDGES, "asia", "smoke")
    assert not d_separated(ASIA_NODES, ASIA_EDGES, "asia", "smoke", ["dysp"])
    assert d_separated(ASIA_NODES, ASIA_EDGES, "tub", "bronc", ["smoke"])
    assert not d_separated(ASIA_NODES, ASIA_EDGES, "tub", "bronc", ["smoke", "dysp"])
    assert d_separated(ASIA_NODES, ASIA_EDGES, "xray", "dysp", ["either", "smoke"])


def test_d_separation_errors():
    with pytest.raises(ValueError, match="disjoint"):
        d_separated("abc", [("a", "b")], "a", "b", ["a"])
    with pytest.raises(ValueError, match="disjoint"):
        d_separated("abc", [("a", "b")], ["a", "b"], "b")
    with pytest.raises(ValueError, match="unknown node"):
        d_separated("abc", [("a", "b")], "a", "q")
    with pytest.raises(ValueError, match="cycle"):
        d_separated("abc", [("a", "b"), ("b", "a")], "a", "c")
    assert d_separated("abc", [("a", "b")], [], "b")


def test_d_separation_agrees_with_networkx():
    rng = random.Random(0)
    n_checked = 0
    for seed in range(12):
        nodes, edges = random_dag(12, 0.25, random_state=seed, shuffle=True)
        g = nx.DiGraph(edges)
        g.add_nodes_from(nodes)
        for _ in range(60):
            perm = rng.sample(nodes, len(nodes))
            kx, ky, kz = rng.randint(1, 2), rng.randint(1, 2), rng.randint(0, 4)
            x, y, z = perm[:kx], perm[kx:kx + ky], perm[kx + ky:kx + ky + kz]
            assert d_separated(nodes, edges, x, y, z) == _nx_dsep(g, set(x), set(y), set(z))
            n_checked += 1
    assert n_checked == 720


# ---------------------------------------------------------------------------------------------
# PDAG
# ---------------------------------------------------------------------------------------------
def test_pdag_normalises_and_compares():
    g1 = PDAG("abcd", directed=[("c", "d"), ("a", "c")], undirected=[("b", "a")])
    g2 = PDAG(("a", "b", "c", "d"), directed=(("a", "c"), ("c", "d")), undirected=(("a", "b"),))
    assert g1 == g2 and hash(g1) == hash(g2)
    assert g1.directed == (("a", "c"), ("c", "d"))
    assert g1.undirected == (("a", "b"),)
    assert g1.skeleton() == (("a", "b"), ("a", "c"), ("c", "d"))
    assert g1.adjacent("b", "a") and g1.adjacent("d", "c") and not g1.adjacent("b", "d")
    assert g1.parents("d") == ["c"] and g1.children("a") == ["c"] and g1.neighbors("a") == ["b"]
    a = g1.to_adjacency_matrix()
    assert a.dtype == bool
    assert np.array_equal(a.astype(int), [[0, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]])
    assert not g1.is_dag and PDAG.from_dag("ab", [("a", "b")]).is_dag


def test_pdag_rejects_two_edges_on_one_pair():
    with pytest.raises(ValueError, match="more than one edge"):
        PDAG("ab", directed=[("a", "b")], undirected=[("a", "b")])
    with pytest.raises(ValueError, match="more than one edge"):
        PDAG("ab", directed=[("a", "b"), ("b", "a")])


# ---------------------------------------------------------------------------------------------
# CPDAG
# ---------------------------------------------------------------------------------------------
def test_cpdag_known_cases():
    chain = dag_to_cpdag("abc", [("a", "b"), ("b", "c")])
    assert chain.directed == () and chain.undirected == (("a", "b"), ("b", "c"))
    collider = dag_to_cpdag("abc", [("a", "c"), ("b", "c")])
    assert collider.directed == (("a", "c"), ("b", "c")) and collider.undirected == ()
    # collider plus a child: the child edge is compelled by R1
    g = dag_to_cpdag("abcd", [("a", "c"), ("b", "c"), ("c", "d")])
    assert g.directed == (("a", "c"), ("b", "c"), ("c", "d")) and g.undirected == ()
    # complete graph: all reversible
    g = dag_to_cpdag("abc", [("a", "b"), ("a", "c"), ("b", "c")])
    assert g.directed == () and len(g.undirected) == 3


def test_cpdag_asia():
    g = dag_to_cpdag(ASIA_NODES, ASIA_EDGES)
    assert g.undirected == (("asia", "tub"), ("smoke", "lung"), ("smoke", "bronc"))
    assert g.directed == (("tub", "either"), ("lung", "either"), ("bronc", "dysp"),
                          ("either", "xray"), ("either", "dysp"))


def test_cpdag_two_algorithms_agree_and_extensions_round_trip():
    for seed in range(40):
        n = 4 + seed % 12
        nodes, edges = random_dag(n, 0.35, random_state=seed, shuffle=True,
                                  max_indegree=None if seed % 2 else 3)
        cpdag = dag_to_cpdag(nodes, edges)
        assert cpdag == _cpdag_via_meek(nodes, edges)
        assert cpdag == dag_to_cpdag(nodes, edges[::-1])
        ext = pdag_to_dag(cpdag)
        assert is_acyclic(nodes, ext)
        assert is_markov_equivalent(nodes, ext, edges)
        assert _brute_equivalent(ext, edges)
        assert dag_to_cpdag(nodes, ext) == cpdag
        # the CPDAG is closed under the Meek rules
        assert meek_orient(cpdag) == cpdag


def test_cpdag_partitions_all_dags_on_four_nodes():
    nodes = "abcd"
    dags = list(_all_dags(nodes))
    assert len(dags) == 543
    by_cpdag = {}
    for edges in dags:
        by_cpdag.setdefault(dag_to_cpdag(nodes, edges), []).append(edges)
    assert len(by_cpdag) == 185  # Markov equivalence classes on 4 labelled nodes
    for cpdag, members in by_cpdag.items():
        ref = members[0]
        # every member equivalent, nobody outside equivalent (checked by brute force)
        assert all(_brute_equivalent(ref, m) for m in members)
        # the class is exactly the set of acyclic orientations of the undirected edges
        # that create no new v-structure
        count = 0
        for flips in itertools.product((False, True), repeat=len(cpdag.undirected)):
            cand = list(cpdag.directed) + [(v, u) if f else (u, v)
                                           for (u, v), f in zip(cpdag.undirected, flips)]
            if is_acyclic(nodes, cand) and _brute_equivalent(cand, ref):
                count += 1
        assert count == len(members)
        assert all(is_markov_equivalent(nodes, ref, m) for m in members)
    classes = list(by_cpdag.values())
    for c1, c2 in itertools.combinations(classes, 2):
        assert not _brute_equivalent(c1[0], c2[0])
        assert not is_markov_equivalent(nodes, c1[0], c2[0])


# ---------------------------------------------------------------------------------------------
# Meek rules and extensions
# ---------------------------------------------------------------------------------------------
def test_meek_r1():
    g = meek_orient(PDAG("abc", directed=[("a", "b")], undirected=[("b", "c")]))
    assert g.directed == (("a", "b"), ("b", "c")) and g.undirected == ()
    # shielded: no orientation
    g = PDAG("abc", directed=[("a", "b")], undirected=[("b", "c"), ("a", "c")])
    assert meek_orient(g).undirected == (("a", "c"), ("b", "c"))


def test_meek_r2():
    g = meek_orient(PDAG("abc", directed=[("a", "c"), ("c", "b")], undirected=[("a", "b")]))
    assert g.directed == (("a", "b"), ("a", "c"), ("c", "b"))
    # written the other way round in the input
    g = meek_orient(PDAG("abc", directed=[("b", "c"), ("c", "a")], undirected=[("a", "b")]))
    assert g.directed == (("b", "a"), ("b", "c"), ("c", "a"))


def test_meek_r3():
    g = PDAG("abcd", directed=[("c", "b"), ("d", "b")],
             undirected=[("a", "b"), ("a", "c"), ("a", "d")])
    out = meek_orient(g)
    assert ("a", "b") in out.directed
    assert out.undirected == (("a", "c"), ("a", "d"))
    # if c and d are adjacent, R3 does not apply
    g = PDAG("abcd", directed=[("c", "b"), ("d", "b")],
             undirected=[("a", "b"), ("a", "c"), ("a", "d"), ("c", "d")])
    assert ("a", "b") in meek_orient(g).undirected


def test_meek_r4():
    # a - c -> d -> b, a - d, a - b, c and b non-adjacent => a -> b (only R4 applies)
    g = PDAG("abcd", directed=[("c", "d"), ("d", "b")],
             undirected=[("a", "b"), ("a", "c"), ("a", "d")])
    out = meek_orient(g)
    assert ("a", "b") in out.directed
    assert out.undirected == (("a", "c"), ("a", "d"))
    # with c adjacent to b, R4 does not fire (and nothing else does)
    g = PDAG("abcd", directed=[("c", "d"), ("d", "b"), ("c", "b")],
             undirected=[("a", "b"), ("a", "c"), ("a", "d")])
    assert ("a", "b") in meek_orient(g).undirected


def test_meek_is_order_independent_on_background_knowledge():
    rng = random.Random(1)
    for seed in range(25):
        nodes, edges = random_dag(10, 0.4, random_state=seed, shuffle=True)
        cpdag = dag_to_cpdag(nodes, edges)
        # background knowledge: orient some reversible edges as in the true DAG
        true_dir = set(edges)
        extra = [e if e in true_dir else e[::-1] for e in cpdag.undirected if rng.random() < 0.3]
        und = [e for e in cpdag.undirected if e not in extra and e[::-1] not in extra]
        g = PDAG(nodes, list(cpdag.directed) + extra, und)
        out = meek_orient(g)
        # sound: still consistent with the true DAG
        assert set(out.directed) <= true_dir
        # relabelled node order gives the same closure
        rev = PDAG(nodes[::-1], g.directed, g.undirected)
        out_rev = meek_orient(rev)
        assert set(out_rev.directed) == set(out.directed)
        ext = pdag_to_dag(out)
        assert set(out.directed) <= set(ext) and is_markov_equivalent(nodes, ext, edges)


def test_pdag_to_dag_raises_without_extension():
    square = PDAG("abcd", undirected=[("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")])
    with pytest.raises(ValueError, match="admits no consistent extension"):
        pdag_to_dag(square)
    cyc = PDAG("abc", directed=[("a", "b"), ("b", "c"), ("c", "a")])
    for strict in (True, False):
        with pytest.raises(ValueError, match="directed edges of the PDAG have a cycle"):
            pdag_to_dag(cyc, strict=strict)
    with pytest.raises(ValueError, match="cycle: 'b' -> 'c' -> 'a' -> 'b'"):
        meek_orient(cyc)
    # a -> b - c with a, c non-adjacent: both orientations of b - c are fine? no: c -> b makes
    # a new v-structure, so the extension must be b -> c
    assert pdag_to_dag(PDAG("abc", [("a", "b")], [("b", "c")])) == [("a", "b"), ("b", "c")]


# ---------------------------------------------------------------------------------------------
# conflicts: the acyclicity guard of Meek's rules and the extension fallback
# ---------------------------------------------------------------------------------------------
def _naive_meek(pdag):
    """Meek R1-R4 without any guard: sweep the undirected edges until nothing changes.

    An independent reference (plain sets, a fixpoint loop): on a PDAG with a consistent
    extension the closure is unique (Meek 1995), so it must equal meek_orient's.
    """
    directed = set(pdag.directed)
    undirected = {frozenset(e) for e in pdag.undirected}

    def adjacent(a, b):
        return (a, b) in directed or (b, a) in directed or frozenset((a, b)) in undirected

    def und(a, b):
        return frozenset((a, b)) in undirected

    def fires(a, b):
        nodes = pdag.nodes
        if any((c, a) in directed and not adjacent(c, b) for c in nodes):
            return True  # R1
        if any((a, c) in directed and (c, b) in directed for c in nodes):
            return True  # R2
        cs = [c for c in nodes if und(a, c) and (c, b) in directed]
        if any(not adjacent(c, d) for c, d in itertools.combinations(cs, 2)):
            return True  # R3
        return any(und(a, c) and (c, d) in directed and (d, b) in directed and adjacent(a, d)
                   and not adjacent(c, b) for c in nodes for d in nodes if d != a)  # R4

    changed = True
    while changed:
        changed = False
        for e in sorted(undirected, key=sorted):
            a, b = sorted(e)
            for u, v in ((a, b), (b, a)):
                if e in undirected and fires(u, v):
                    undirected.discard(e)
                    directed.add((u, v))
                    changed = True
    return PDAG(pdag.nodes, directed, [tuple(e) for e in undirected])


def _nx_acyclic(nodes, edges):
    g = nx.DiGraph(list(edges))
    g.add_nodes_from(nodes)
    return nx.is_directed_acyclic_graph(g)


def _check_valid_closure(pdag, out):
    """The guarantees of meek_orient on any input with an acyclic directed part."""
    assert set(out.skeleton()) == set(pdag.skeleton())  # every adjacency kept, none added
    assert set(pdag.directed) <= set(out.directed)  # input arrows kept
    assert _nx_acyclic(out.nodes, out.directed)  # no directed cycle (PDAG: no bidirected)


def test_meek_conflict_minimal_case_from_issue():
    # colliders a -> d <- e with a - b - d, b - c - d, c - e: old closure c -> e -> d -> c
    g = PDAG(list("abcde"), directed=[("a", "d"), ("e", "d")],
             undirected=[("a", "b"), ("b", "d"), ("b", "c"), ("c", "d"), ("c", "e")])
    with pytest.raises(ValueError, match="admits no consistent extension"):
        pdag_to_dag(g)  # the input itself has no consistent extension
    out, conflicts = _meek(g)
    assert out == meek_orient(g)
    _check_valid_closure(g, out)
    assert conflicts  # reported, in node order
    assert all(g.adjacent(u, v) and list(g.nodes).index(u) < list(g.nodes).index(v)
               for u, v in conflicts)
    # the DAG extension keeps all 7 adjacencies
    dag = pdag_to_dag(out, strict=False)
    assert len(dag) == 7 and _nx_acyclic(g.nodes, dag)
    assert {frozenset(e) for e in dag} == {frozenset(e) for e in g.skeleton()}
    assert set(out.directed) <= set(dag)


def test_meek_guard_refuses_only_cycle_closing_orientations():
    # R1 proposes b -> c (a -> b, a and c non-adjacent), but c -> d -> e -> b already and no
    # rule supports c -> b: the edge stays undirected
    arrows = [("a", "b"), ("c", "d"), ("d", "e"), ("e", "b")]
    g = PDAG("abcdef", directed=arrows, undirected=[("b", "c")])
    out, conflicts = _meek(g)
    assert out.undirected == (("b", "c"),) and conflicts == [("b", "c")]
    # with f -> c (f, b non-adjacent) R1 also supports c -> b, which closes no cycle
    g = PDAG("abcdef", directed=arrows + [("f", "c")], undirected=[("b", "c")])
    out, conflicts = _meek(g)
    assert ("c", "b") in out.directed and not out.undirected and conflicts == [("b", "c")]
    # R2 with a path of length 2 never conflicts: c -> d -> b orients c -> b
    g = PDAG("abcd", directed=[("c", "d"), ("d", "b")], undirected=[("b", "c")])
    assert _meek(g) == (PDAG("abcd", [("c", "d"), ("d", "b"), ("c", "b")]), [])


def _random_arrowheads(nodes, edges, rng, p_flip):
    """The skeleton of a DAG with its true v-structures directed, plus random arrowheads on
    other edges (random directions, skipping any that would close a cycle, checked with
    networkx): a collider step with test errors."""
    directed = set()
    for a, c, b in v_structures(nodes, edges):
        directed |= {(a, c), (b, c)}
    undirected = []
    for u, v in edges:
        if (u, v) in directed:
            continue
        if rng.random() < p_flip:
            arrow = (u, v) if rng.random() < 0.5 else (v, u)
            if _nx_acyclic(nodes, directed | {arrow}):
                directed.add(arrow)
                continue
        undirected.append((u, v))
    return PDAG(nodes, sorted(directed), undirected)


def test_meek_guard_property_on_random_conflicting_pdags():
    rng = random.Random(0)
    n_conflicting = n_consistent = 0
    for seed in range(500):
        nodes, edges = random_dag(5 + seed % 8, 0.25 + 0.05 * (seed % 6), random_state=seed,
                                  shuffle=True)
        g = _random_arrowheads(nodes, edges, rng, p_flip=0.0 if seed % 5 == 0 else 0.3)
        out, conflicts = _meek(g)
        _check_valid_closure(g, out)
        try:
            pdag_to_dag(g)
            consistent = True
        except ValueError:
            consistent = False
        if consistent:
            # a consistent input: the guard never fires and the closure is Meek's
            n_consistent += 1
            assert conflicts == []
            assert out == _naive_meek(g)
        elif conflicts:
            n_conflicting += 1
        if seed % 5 == 0:  # exactly the true v-structures: the CPDAG of the true DAG
            assert out == dag_to_cpdag(nodes, edges) and conflicts == []
        # the extension keeps every adjacency and every arrow, and is acyclic
        dag = pdag_to_dag(out, strict=False)
        assert len(dag) == len(g.skeleton()) and _nx_acyclic(nodes, dag)
        assert set(out.directed) <= set(dag)
    assert n_conflicting > 20 and n_consistent > 100  # both kinds were exercised


def test_meek_equals_brute_force_maximal_orientation_on_four_nodes():
    """Without conflicts the guard changes nothing: on every CPDAG of 4 nodes with every
    subset of its reversible edges oriented as in a member DAG (background knowledge), the
    closure orients exactly the edges that all class members agreeing with it share."""
    nodes = "abcd"
    by_cpdag = {}
    for edges in _all_dags(nodes):
        by_cpdag.setdefault(dag_to_cpdag(nodes, edges), []).append(set(edges))
    n_cases = 0
    for cpdag, members in by_cpdag.items():
        und = list(cpdag.undirected)
        for dag in members:
            for mask in itertools.product((False, True), repeat=len(und)):
                known = [e if e in dag else e[::-1] for e, m in zip(und, mask) if m]
                rest = [e for e, m in zip(und, mask) if not m]
                g = PDAG(nodes, list(cpdag.directed) + known, rest)
                agreeing = [m for m in members if set(known) <= m]
                common = set.intersection(*agreeing)
                out, conflicts = _meek(g)
                assert conflicts == []
                assert set(out.directed) == common
                assert out == _naive_meek(g)
                n_cases += 1
    assert n_cases > 1000


def test_pdag_to_dag_fallback_keeps_every_edge():
    square = PDAG("abcd", undirected=[("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")])
    dag = pdag_to_dag(square, strict=False)
    assert dag == [("a", "b"), ("a", "d"), ("b", "c"), ("c", "d")]  # along a, b, c, d
    edges, forced = _extension(square)
    assert edges == dag and forced == dag
    # a partly extensible PDAG: Dor-Tarsi removes the sink e first, then the 4-cycle is
    # oriented along the topological order b, c, d, a of its directed edge d -> a (Kahn,
    # ties by position)
    g = PDAG("abcde", directed=[("d", "a")],
             undirected=[("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")])
    edges, forced = _extension(g)
    assert ("d", "e") in edges and ("d", "e") not in forced
    assert ("d", "a") in edges and len(edges) == 5 and _nx_acyclic("abcde", edges)
    assert forced == [("b", "a"), ("b", "c"), ("c", "d")]
    # a consistent PDAG: nothing forced, and the same as strict
    g = dag_to_cpdag(ASIA_NODES, ASIA_EDGES)
    assert _extension(g) == (pdag_to_dag(g), [])


def test_is_markov_equivalent():
    assert is_markov_equivalent(ASIA_NODES, ASIA_EDGES,
                                [("tub", "asia") if e == ("asia", "tub") else e
                                 for e in ASIA_EDGES])
    assert not is_markov_equivalent(ASIA_NODES, ASIA_EDGES,
                                    [("dysp", "bronc") if e == ("bronc", "dysp") else e
                                     for e in ASIA_EDGES])
    assert not is_markov_equivalent("abc", [("a", "b")], [("a", "c")])


# ---------------------------------------------------------------------------------------------
# minimal I-map
# ---------------------------------------------------------------------------------------------
def test_minimal_imap_recovers_dag():
    order = topological_order(ASIA_NODES, ASIA_EDGES)

    def oracle(x, ys, zs):
        return d_separated(ASIA_NODES, ASIA_EDGES, x, ys, zs)

    assert set(minimal_imap(order, oracle)) == set(ASIA_EDGES)
    for seed in range(8):
        nodes, edges = random_dag(9, 0.35, random_state=seed, shuffle=True)
        order = topological_order(nodes, edges)
        calls = []

        def oracle(x, ys, zs):
            calls.append((x, tuple(ys), tuple(zs)))
            assert ys and not set(ys) & set(zs) and x not in ys and x not in zs
            return d_separated(nodes, edges, x, ys, zs)

        learned = minimal_imap(order, oracle)
        assert set(learned) == set(edges)
        pos = {v: i for i, v in enumerate(order)}
        assert learned == sorted(learned, key=lambda e: (pos[e[0]], pos[e[1]]))


def test_minimal_imap_other_order_is_an_imap():
    # v-structure a -> c <- b in order c, a, b needs a-b
    dag = [("a", "c"), ("b", "c")]
    learned = minimal_imap("cab", lambda x, ys, zs: d_separated("abc", dag, x, ys, zs))
    assert set(learned) == {("c", "a"), ("c", "b"), ("a", "b")}


# ---------------------------------------------------------------------------------------------
# random DAGs and speed
# ---------------------------------------------------------------------------------------------
def test_random_dag():
    nodes, edges = random_dag(20, 0.5, random_state=3, max_indegree=2)
    assert nodes == [f"X{i}" for i in range(20)]
    assert topological_order(nodes, edges) == nodes
    indeg = {}
    for _, v in edges:
        indeg[v] = indeg.get(v, 0) + 1
    assert max(indeg.values()) <= 2
    assert random_dag(20, 0.5, random_state=3, max_indegree=2) == (nodes, edges)
    nodes, edges = random_dag(30, 0.3, random_state=0, shuffle=True)
    assert is_acyclic(nodes, edges) and topological_order(nodes, edges) != nodes
    assert random_dag(0, 0.5) == ([], [])
    assert len(random_dag(5, 1.0)[1]) == 10
    with pytest.raises(ValueError):
        random_dag(3, 1.5)


def test_large_graphs_are_fast():
    nodes, edges = random_dag(1000, 3 / 1000, random_state=0, shuffle=True, max_indegree=4)
    start = time.perf_counter()
    cpdag = dag_to_cpdag(nodes, edges)
    ext = pdag_to_dag(cpdag)
    assert dag_to_cpdag(nodes, ext) == cpdag
    assert meek_orient(cpdag) == cpdag
    assert d_separated(nodes, edges, nodes[:5], nodes[-5:], nodes[100:150]) in (True, False)
    assert time.perf_counter() - start < 5.0



_HASHSEED_SCRIPT = """
from skbn.graph import PDAG, dag_to_cpdag, meek_orient, pdag_to_dag, random_dag
from skbn.metrics import structural_hamming_distance
nodes, edges = random_dag(40, 0.15, random_state=7, shuffle=True)
cp = dag_to_cpdag(nodes, edges)
print(cp, pdag_to_dag(cp), meek_orient(PDAG(nodes, [], cp.undirected)))
print(structural_hamming_distance(edges, cp))
"""


def test_outputs_do_not_depend_on_hash_seed():
    outs = []
    for seed in ("0", "1"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        res = subprocess.run([sys.executable, "-c", _HASHSEED_SCRIPT], env=env, text=True,
                             capture_output=True, check=True, cwd=Path(__file__).parents[1])
        outs.append(res.stdout)
    assert outs[0] == outs[1] and outs[0]


def test_pdag_of_ids_equals_the_pdag_of_its_labels():
    # a learner's graph on positions (sorted id pairs, undirected as (i, j) with i < j) gives
    # the PDAG the constructor makes of the same edges by label: equal, same order, same
    # adjacency answers, pickled alike
    import pickle

    nodes = ("d", "a", "c", "b", "e")
    directed, undirected = [(0, 2), (1, 2), (3, 4)], [(0, 1), (2, 4)]
    fast = PDAG._of_ids(nodes, directed, undirected)
    slow = PDAG(nodes, [(nodes[u], nodes[v]) for u, v in directed],
                [(nodes[v], nodes[u]) for u, v in undirected])
    assert fast == slow and hash(fast) == hash(slow)
    assert (fast.directed, fast.undirected) == (slow.directed, slow.undirected)
    for u in nodes:
        for v in nodes:
            if u != v:
                assert fast.adjacent(u, v) == slow.adjacent(u, v)
    assert pickle.loads(pickle.dumps(fast)) == slow
