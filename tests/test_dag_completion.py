"""The CPDAG completion of the integer kernel (:func:`skbn._dag.complete_pdag`) against its
definition, by brute force: every DAG on 4 and 5 nodes is enumerated, the DAGs are grouped
into Markov equivalence classes by skeleton and v-structures (Verma & Pearl 1990), and the
CPDAG of a class is read off its members (an edge directed iff every member orients it the
same way). The completion of every DAG, of every DAG with some of its reversible edges made
undirected (a PDAG whose consistent extensions are that class) and of every CPDAG must be
that CPDAG."""

import itertools

import numpy as np
import pytest

from skbn._dag import MeekCloser, MixedGraph, complete_pdag, v_structure_pattern


def _all_dags(n):
    """Every DAG on nodes 0 .. n-1, as a frozenset of (u, v) edges (each pair: no edge,
    u -> v or v -> u; cyclic assignments dropped)."""
    pairs = list(itertools.combinations(range(n), 2))
    out = []
    for choice in itertools.product(range(3), repeat=len(pairs)):
        edges = [(u, v) if c == 1 else (v, u) for (u, v), c in zip(pairs, choice) if c]
        children = [[] for _ in range(n)]
        indegree = [0] * n
        for u, v in edges:
            children[u].append(v)
            indegree[v] += 1
        ready = [v for v in range(n) if not indegree[v]]
        seen = 0
        while ready:
            u = ready.pop()
            seen += 1
            for v in children[u]:
                indegree[v] -= 1
                if not indegree[v]:
                    ready.append(v)
        if seen == n:
            out.append(frozenset(edges))
    return out


def _class_key(edges):
    """Skeleton and v-structures (``a -> c <- b``, ``a``, ``b`` non-adjacent) of a DAG."""
    skeleton = frozenset(frozenset(e) for e in edges)
    parents = {}
    for u, v in edges:
        parents.setdefault(v, []).append(u)
    colliders = frozenset((min(a, b), c, max(a, b)) for c, ps in parents.items()
                          for a, b in itertools.combinations(ps, 2) if frozenset((a, b)) not in skeleton)
    return skeleton, colliders


def _classes(n):
    """DAG -> the (directed, undirected) edge sets of its class's CPDAG, from the members."""
    members = {}
    for dag in _all_dags(n):
        members.setdefault(_class_key(dag), []).append(dag)
    cpdag = {}
    for dags in members.values():
        directed = frozenset.intersection(*dags)
        undirected = {(min(u, v), max(u, v)) for u, v in dags[0] if (u, v) not in directed}
        for dag in dags:
            cpdag[dag] = (directed, undirected)
    return cpdag


def _edges(g):
    directed, undirected = g.edge_lists()
    return set(directed), set(undirected)


@pytest.mark.parametrize("n, n_dags", [(4, 543), (5, 29281)])
def test_completion_is_the_cpdag_of_the_class(n, n_dags):
    classes = _classes(n)
    assert len(classes) == n_dags  # the number of labelled DAGs (OEIS A003024)
    rng = np.random.default_rng(n)
    for dag, (directed, undirected) in classes.items():
        expected = (set(directed), undirected)
        assert _edges(complete_pdag(MixedGraph(n, sorted(dag)))) == expected
        assert _edges(complete_pdag(MixedGraph(n, sorted(directed), sorted(undirected)))) == expected
        reversible = [(u, v) for u, v in sorted(dag) if (u, v) not in directed]
        if reversible:  # some reversible edges of the DAG undirected, the others kept
            keep = rng.random(len(reversible)) < 0.5
            partial = MixedGraph(n, sorted(directed) + [e for e, k in zip(reversible, keep) if k],
                                 [e for e, k in zip(reversible, keep) if not k])
            assert _edges(complete_pdag(partial)) == expected


def test_completion_keeps_the_graph_class_and_input():
    g = MixedGraph(4, [(0, 2), (1, 2), (2, 3)], [])
    before = _edges(g)
    out = complete_pdag(g)
    assert type(out) is MixedGraph and out.n == 4
    assert _edges(g) == before  # not modified
    assert _edges(out) == ({(0, 2), (1, 2), (2, 3)}, set())  # R1 orients 2 -> 3


def test_conflicting_rules_fall_back_to_the_ordered_closer():
    # pattern: v-structures 0 -> 2 <- 1 and 3 -> 4 <- 5; 2 - 4 is oriented both ways by R1
    # (no consistent extension): the result is MeekCloser's, whose tie rule picks 2 -> 4
    g = MixedGraph(6, [(0, 2), (1, 2), (3, 4), (5, 4)], [(2, 4)])
    expected = v_structure_pattern(g)
    assert MeekCloser(expected).close(all_edges=True) == {(2, 4)}
    assert _edges(complete_pdag(g)) == _edges(expected)
    # a directed cycle of v-structure arrows is refused as before
    cyclic = MixedGraph(6, [(0, 1), (3, 1), (1, 2), (4, 2), (2, 0), (5, 0)])
    with pytest.raises(ValueError, match="cycle"):
        complete_pdag(cyclic)
