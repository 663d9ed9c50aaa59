"""pcalg 2.7-12's own graph tests replayed on skbn.graph / skbn.causal / skbn.metrics.

Each test names the pcalg test file it ports. pcalg writes graphs as adjacency matrices;
here they are edge lists on nodes 1..p (pcalg's 1-based numbering), decoded by hand from the
matrices of those files: ``a -> b`` directed, ``a - b`` undirected.
"""

from itertools import product

import numpy as np
import pytest
from _pcalg_suite import edges_of, random_weighted_dag

from skbn.causal import equivalent_dags
from skbn.graph import (
    PDAG,
    dag_to_cpdag,
    interventional_essential_graph,
    is_acyclic,
    meek_orient,
    pdag_to_dag,
    v_structures,
)
from skbn.metrics import structural_hamming_distance

# (DAG edges, CPDAG directed, CPDAG undirected) of test_dag2cpdag.R (p = 5, 5, 4)
DAG2CPDAG = [
    (5, [(1, 5), (2, 3), (2, 5), (3, 4)], [(1, 5), (2, 5)], [(2, 3), (3, 4)]),
    (5, [(1, 2), (2, 4), (3, 4), (4, 5)], [(2, 4), (3, 4), (4, 5)], [(1, 2)]),
    (4, [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)], [],
     [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)]),
]


def _permutations(p, n_perm, seed):
    """The identity, then ``n_perm - 1`` random orders of the nodes (pcalg's ``ind``)."""
    rng = np.random.default_rng(seed)
    return [list(range(1, p + 1))] + [list(rng.permutation(p) + 1) for _ in range(n_perm - 1)]


@pytest.mark.parametrize("case", range(len(DAG2CPDAG)))
def test_dag2cpdag_known_cpdags_under_node_permutations(case):
    """test_dag2cpdag.R: the CPDAG of three DAGs, whatever the order of the nodes (a bug of
    pcalg <= 2.0.8 depended on it)."""
    p, dag, directed, undirected = DAG2CPDAG[case]
    for order in _permutations(p, 5, case):
        got = dag_to_cpdag(order, dag)
        assert got == PDAG(order, directed, undirected)


# (DAG, targets, essential directed, essential undirected) of test_dag2essgraph.R
COMPLETE4 = [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)]
DAG2ESSGRAPH = [(*DAG2CPDAG[0][1:2], [()], *DAG2CPDAG[0][2:]),
                (*DAG2CPDAG[1][1:2], [()], *DAG2CPDAG[1][2:]),
                (COMPLETE4, [()], [], COMPLETE4),
                (COMPLETE4, [(), (4,)], [(1, 4), (2, 4), (3, 4)], [(1, 2), (1, 3), (2, 3)]),
                (COMPLETE4, [(), (2,)], [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4)], [(3, 4)])]


@pytest.mark.parametrize("case", range(len(DAG2ESSGRAPH)))
def test_dag2essgraph_known_interventional_essential_graphs(case):
    """test_dag2essgraph.R: the interventional essential graph for targets {{}}, {{}, {4}}
    and {{}, {2}} on a complete 4-node DAG (and the observational cases), under node
    permutations."""
    dag, targets, directed, undirected = DAG2ESSGRAPH[case]
    p = max(max(e) for e in dag)
    for order in _permutations(p, 5, 10 + case):
        got = interventional_essential_graph(order, dag, targets)
        assert got == PDAG(order, directed, undirected)


def _brute_force_class(pdag):
    """Every orientation of the undirected edges that is acyclic and has the PDAG's
    v-structures (no new one): the definition of the DAGs a PDAG represents."""
    nodes = pdag.nodes
    wanted = None
    found = []
    for bits in product((0, 1), repeat=len(pdag.undirected)):
        dag = list(pdag.directed) + [(u, v) if b else (v, u)
                                     for (u, v), b in zip(pdag.undirected, bits)]
        if not is_acyclic(nodes, dag):
            continue
        found.append((frozenset(dag), frozenset(v_structures(nodes, dag))))
    if not found:
        return set()
    # the PDAG's own v-structures: those among its directed edges that every orientation has
    wanted = frozenset.intersection(*(vs for _, vs in found))
    return {dag for dag, vs in found if vs == wanted}


# test_pdag2allDags.R: (nodes, directed, undirected, DAGs decoded from pcalg's `res.truth`)
PDAG2ALLDAGS = [
    ("AB", [], [("A", "B")], [[("A", "B")], [("B", "A")]]),
    ("AB", [], [], [[]]),
    ("ABC", [], [("A", "B"), ("B", "C")],
     [[("A", "B"), ("B", "C")], [("B", "A"), ("B", "C")], [("B", "A"), ("C", "B")]]),
    ("ABC", [("A", "B"), ("C", "B")], [], [[("A", "B"), ("C", "B")]]),
    ("ABC", [("A", "B")], [("B", "C")], [[("A", "B"), ("B", "C")]]),
    ("ABC", [], [("A", "B"), ("A", "C"), ("B", "C")],
     [[("A", "B"), ("A", "C"), ("B", "C")], [("A", "B"), ("A", "C"), ("C", "B")],
      [("B", "A"), ("A", "C"), ("B", "C")], [("B", "A"), ("C", "A"), ("B", "C")],
      [("A", "B"), ("C", "A"), ("C", "B")], [("B", "A"), ("C", "A"), ("C", "B")]]),
    ("ABCD", [], [("A", "B"), ("A", "C"), ("B", "D"), ("C", "D")], []),
    ("ABCD", [("B", "D"), ("C", "D")], [("A", "B"), ("A", "C")],
     [[("C", "A"), ("A", "B"), ("B", "D"), ("C", "D")],
      [("A", "B"), ("A", "C"), ("B", "D"), ("C", "D")],
      [("B", "A"), ("A", "C"), ("B", "D"), ("C", "D")]]),
    ("ABCDE", [("B", "D"), ("C", "D")], [("A", "B"), ("A", "C"), ("D", "E")],
     [[("C", "A"), ("A", "B"), ("B", "D"), ("C", "D"), ("D", "E")],
      [("A", "B"), ("A", "C"), ("B", "D"), ("C", "D"), ("D", "E")],
      [("B", "A"), ("A", "C"), ("B", "D"), ("C", "D"), ("D", "E")]]),
]


@pytest.mark.parametrize("case", range(len(PDAG2ALLDAGS)))
def test_pdag2alldags_every_dag_of_the_class(case):
    """test_pdag2allDags.R: all DAGs of nine PDAGs (pcalg's lists), also equal to the brute
    force definition. The chordless 4-cycle has no DAG: pcalg returns NULL, skbn raises."""
    nodes, directed, undirected, expected = PDAG2ALLDAGS[case]
    pdag = PDAG(nodes, directed, undirected)
    expected = {frozenset(d) for d in expected}
    assert _brute_force_class(pdag) == expected
    if not expected:
        with pytest.raises(ValueError, match="no"):
            equivalent_dags(pdag)
        return
    got = equivalent_dags(pdag)
    assert len(got) == len(expected)
    assert {frozenset(d) for d in got} == expected


def _is_consistent_extension(pdag, dag):
    nodes = pdag.nodes
    skeleton = {frozenset(e) for e in (*pdag.directed, *pdag.undirected)}
    return (is_acyclic(nodes, dag) and {frozenset(e) for e in dag} == skeleton
            and set(pdag.directed) <= set(dag)
            and set(v_structures(nodes, dag)) == set(v_structures(nodes, list(pdag.directed))))


def test_pdag2dag_extensions():
    """test_pdag2dag.R: a consistent extension of four PDAGs: ``a - b``; ``1 -> 2, 3 -> 1,
    2 - 3`` (only ``3 -> 2`` avoids a cycle); the chordless 4-cycle (none: skbn raises,
    pcalg reports ``success = FALSE``); a labelled undirected triangle (the 2015 label bug).
    pcalg picks one extension and skbn another for the triangle; both are consistent."""
    one = PDAG("ab", undirected=[("a", "b")])
    assert _is_consistent_extension(one, pdag_to_dag(one))
    two = PDAG((1, 2, 3), directed=[(1, 2), (3, 1)], undirected=[(2, 3)])
    assert sorted(pdag_to_dag(two)) == [(1, 2), (3, 1), (3, 2)]
    cycle = PDAG((1, 2, 3, 4), undirected=[(1, 2), (2, 3), (3, 4), (4, 1)])
    with pytest.raises(ValueError, match="consistent extension"):
        pdag_to_dag(cycle)
    labels = ("cxs", "def", "dfe")
    triangle = PDAG(labels, undirected=[("cxs", "def"), ("cxs", "dfe"), ("def", "dfe")])
    dag = pdag_to_dag(triangle)
    assert _is_consistent_extension(triangle, dag)
    assert {u for e in dag for u in e} == set(labels)


def test_apply_orientation_rules_keeps_a_closed_pdag():
    """test_pc.R (last block): Meek's rules leave pcalg's 4-node example unchanged
    (``1 -> 2, 4 -> 1, 4 -> 2`` with ``1 - 3, 2 - 3, 3 - 4``: no rule applies)."""
    pdag = PDAG((1, 2, 3, 4), directed=[(1, 2), (4, 1), (4, 2)],
                undirected=[(1, 3), (2, 3), (3, 4)])
    assert meek_orient(pdag) == pdag


# test_shd.R on graphs regenerated here: pcalg's shd on the same pairs, computed by
#   g1 <- as(A1, "graphNEL"); g2 <- as(A2, "graphNEL")   # A: 0/1 matrices, A[i,j]: i->j
#   c(shd(g1, g2), shd(dag2cpdag(g1), g1))
# for A1, A2 = the DAGs of random_weighted_dag(5, 0.5, seed) for seed = 2k and 2k + 1.
SHD_PCALG = {0: (7, 5), 1: (5, 4), 2: (3, 2), 3: (6, 4), 4: (4, 1), 5: (5, 3), 6: (2, 1),
             7: (5, 2), 8: (4, 5), 9: (2, 2)}


@pytest.mark.parametrize("k", list(SHD_PCALG))
def test_shd_equals_pcalg(k):
    """test_shd.R: the structural Hamming distance between two random 5-node DAGs and between
    a DAG and its own CPDAG (every undirected edge of the CPDAG counts 1), against pcalg."""
    nodes = list(range(5))
    g1 = edges_of(random_weighted_dag(5, 0.5, 2 * k))
    g2 = edges_of(random_weighted_dag(5, 0.5, 2 * k + 1))
    dag_dag, cpdag_dag = SHD_PCALG[k]
    assert structural_hamming_distance(g1, g2, nodes) == dag_dag
    cpdag = dag_to_cpdag(nodes, g1)
    assert structural_hamming_distance(cpdag, g1, nodes) == cpdag_dag
    assert cpdag_dag == len(cpdag.undirected)


# Random 8-node DAGs regenerated here: random_weighted_dag(8, 0.35, 500 + k) as a 0/1 matrix A
# (A[i, j] = 1: i -> j) and targets t = 1 + k % 3 nodes drawn by
# np.random.default_rng(k).choice(8, 1 + k % 3, replace=False), then in R (1-based)
#   dag2essgraph(A, targets = list(integer(0), t))            # one target of several nodes
#   dag2essgraph(A, targets = c(list(integer(0)), as.list(t))) # one target per node
#   nrow(pdag2allDags(t(as(dag2cpdag(g), "matrix")))$dags)     # g <- as(A, "graphNEL")
#   shd(dag2cpdag(g), dag2cpdag(g2)); shd(g, dag2cpdag(g2))    # g2: the DAG of k + 1
# per k: ((directed, undirected) of each essential graph as "uv" pairs), class size, SHDs
RANDOM_PCALG = {
    0: (('06 16 67', '24'),
         ('06 16 67', '24'), 2, 4, 4),
    1: (('23 14 06 16', ''),
         ('23 14 06 16', ''), 4, 10, 10),
    2: (('12 05 15 25 16 26 46', '34'),
         ('12 05 15 25 16 26 46', '34'), 4, 6, 7),
    3: (('16 26', '01 34 05 15'),
         ('16 26', '01 34 05 15'), 12, 9, 9),
    4: (('24 34 45 37 47', '01 16'),
         ('24 34 45 37 47', '01 16'), 3, 13, 12),
    5: (('02 15 35 06 16 56 07', ''),
         ('02 15 35 06 16 56 07', ''), 3, 10, 9),
    6: (('03 35 56 07 67', '24'),
         ('03 35 56 07 67', '24'), 8, 15, 15),
    7: (('05 45 16 36 07 17 37', '01 23 04 14'),
         ('05 45 16 36 07 17 37', '01 23 04 14'), 20, 15, 14),
    8: (('01 04 14 24 34 15 16 57', '03'),
         ('01 04 14 24 34 15 16 57', '03'), 6, 17, 17),
    9: (('23 06 26 36 07 47 67', '05'),
         ('23 06 26 36 07 47 67', '05'), 4, 13, 11),
    10: (('02 12 23 04 24 05 25 06 16 37 47', '26'),
         ('02 12 23 04 24 05 25 06 16 37 47', '26'), 2, 15, 15),
    11: (('02 23 24 06 46 07 37 57 67', '15'),
         ('02 23 24 06 46 07 37 57 67', '15'), 8, 13, 14),
    12: (('03 13 04 05 35 26 46 27 37 47 57 67', '02'),
         ('03 13 04 05 35 26 46 27 37 47 57 67', '02'), 3, 16, 15),
    13: (('13 23 04 24 06 17 27 37', '01'),
         ('13 23 04 24 06 17 27 37', '01'), 6, 13, 13),
    14: (('02 14 24 25 35 07 17 27 57 67', ''),
         ('02 14 24 25 35 07 17 27 57 67', ''), 2, 12, 12),
    15: (('14 24 34 46 07 37', '01 12 25'),
         ('14 24 34 46 07 37', '01 12 25'), 4, 20, 20),
    16: (('23 05 15 45 06 16 26 56 17 47', '02'),
         ('23 05 15 45 06 16 26 56 17 47', '02'), 3, 14, 12),
    17: (('02 12 03 23 14 15 25 45 06 16 46 07 67', ''),
         ('02 12 03 23 14 15 25 45 06 16 46 07 67', ''), 2, 19, 19),
    18: (('04 24 05 45 36 56 27', '13'),
         ('04 24 05 45 36 56 27', '13'), 4, 13, 14),
    19: (('13 04 25 35 45 07 17 37 57', '01'),
         ('13 04 25 35 45 07 17 37 57', '01'), 4, 14, 14),
}


def _pairs(text):
    return [(int(e[0]), int(e[1])) for e in text.split()]


@pytest.mark.parametrize("k", list(RANDOM_PCALG))
def test_random_dags_essential_graphs_class_sizes_and_shd_equal_pcalg(k):
    """test_dag2essgraph.R, test_pdag2allDags.R and test_shd.R on random DAGs: the
    interventional essential graph for one multi-node target and for single-node targets,
    the number of DAGs of the CPDAG, and the SHD of two CPDAGs and of a DAG and a CPDAG
    equal pcalg's."""
    nodes = list(range(8))
    dag = edges_of(random_weighted_dag(8, 0.35, 500 + k))
    other = edges_of(random_weighted_dag(8, 0.35, 500 + k + 1))
    targets = np.random.default_rng(k).choice(8, 1 + k % 3, replace=False).tolist()
    joint, single, n_dags, shd_cpdags, shd_dag_cpdag = RANDOM_PCALG[k]
    got = interventional_essential_graph(nodes, dag, [(), targets])
    assert got == PDAG(nodes, _pairs(joint[0]), _pairs(joint[1]))
    got = interventional_essential_graph(nodes, dag, [()] + [(t,) for t in targets])
    assert got == PDAG(nodes, _pairs(single[0]), _pairs(single[1]))
    cpdag, cpdag_other = dag_to_cpdag(nodes, dag), dag_to_cpdag(nodes, other)
    assert len(equivalent_dags(cpdag, max_dags=100_000)) == n_dags
    assert structural_hamming_distance(cpdag, cpdag_other, nodes) == shd_cpdags
    assert structural_hamming_distance(dag, cpdag_other, nodes) == shd_dag_cpdag


def test_meek_rules_skip_ambiguous_triples():
    """pcalg's ``udag2pdagRelaxed(unfVect = ...)`` (the orientation step of conservative and
    majority PC, test_pc.R): R1 (``a -> b - c``) and R3 (``a - c -> b``, ``a - d -> b``) do not
    read an ambiguous unshielded triple as a non-collider; R2 is unaffected."""
    from skbn._dag import MeekCloser, MixedGraph

    def closed(n, directed, undirected, ambiguous):
        g = MixedGraph(n, directed, undirected)
        MeekCloser(g, ambiguous=ambiguous).close(all_edges=True)
        return g.edge_lists()

    # R1 on 0 -> 1 - 2
    assert closed(3, [(0, 1)], [(1, 2)], set()) == ([(0, 1), (1, 2)], [])
    assert closed(3, [(0, 1)], [(1, 2)], {(0, 1, 2)}) == ([(0, 1)], [(1, 2)])
    # R3 on 0 - 1 -> 3, 0 - 2 -> 3, 0 - 3 (1, 2 non-adjacent): the triple 1 - 0 - 2
    r3 = ([(1, 3), (2, 3)], [(0, 1), (0, 2), (0, 3)])
    assert closed(4, *r3, set()) == ([(0, 3), (1, 3), (2, 3)], [(0, 1), (0, 2)])
    assert closed(4, *r3, {(1, 0, 2)}) == ([(1, 3), (2, 3)], [(0, 1), (0, 2), (0, 3)])
    # R2 on 0 -> 1 -> 2, 0 - 2: no triple involved
    assert closed(3, [(0, 1), (1, 2)], [(0, 2)], {(0, 1, 2)}) == ([(0, 1), (0, 2), (1, 2)], [])


def test_possible_descendants_and_ancestors():
    """test_possDeAn.R: in ``a -> b - c`` the possible descendants of ``a`` are ``{a, b, c}``,
    ``{a}`` when paths may not pass ``b`` (pcalg's ``y``), and its descendants along directed
    edges only (``possible = FALSE``) ``{a, b}``; in ``a - b -> c`` the possible ancestors of
    ``c`` are ``{a, b, c}``, ``{c}`` avoiding ``b``. (skbn's graph kernel, on ids 0, 1, 2.)"""
    from skbn._dag import possible_ancestors, possible_descendants

    # a -> b - c
    children, parents, neighbours = [{1}, set(), set()], [set(), {0}, set()], [set(), {2}, {1}]
    assert possible_descendants(children, neighbours, {0}) == {0, 1, 2}
    assert possible_descendants(children, neighbours, {0}, avoid={1}) == {0}
    assert possible_descendants(children, [set()] * 3, {0}) == {0, 1}
    # a - b -> c
    children, parents, neighbours = [set(), {2}, set()], [set(), set(), {1}], [{1}, {0}, set()]
    assert possible_ancestors(parents, neighbours, {2}) == {0, 1, 2}
    assert possible_ancestors(parents, neighbours, {2}, avoid={1}) == {2}
