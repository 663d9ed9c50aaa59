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
    with pytest.raises(ValueError, match="admits no consistent extension"):
        pdag_to_dag(cyc)
    # a -> b - c with a, c non-adjacent: both orientations of b - c are fine? no: c -> b makes
    # a new v-structure, so the extension must be b -> c
    assert pdag_to_dag(PDAG("abc", [("a", "b")], [("b", "c")])) == [("a", "b"), ("b", "c")]


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
