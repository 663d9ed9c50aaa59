"""pcalg 2.7-12's adjustment tests (test_gac.R, test_optAdjSet.R, test_backdoor.R) replayed on
skbn.causal.

pcalg's matrices are decoded by hand into edge lists on nodes 1..p (pcalg's numbering);
regenerated graphs use nodes 0..p-1 and pcalg's answers are shifted to them.
"""

import pytest
from _pcalg_suite import edges_of, random_weighted_dag

from skbn.causal import backdoor_adjustment_set, is_adjustment_set, optimal_adjustment_set
from skbn.graph import PDAG, dag_to_cpdag, has_directed_path

# test_gac.R, the DAG and CPDAG cases: (graph, x, y, [(z, valid), ...]). The PAG cases of
# that file are not applicable (skbn has no ancestral graphs).
FIG1 = PDAG(range(1, 7), directed=[(1, 3), (2, 3), (4, 3), (3, 6), (4, 6), (5, 6)],
            undirected=[(1, 2), (2, 4), (2, 5), (4, 5)])
FIG5A = PDAG(range(1, 6), directed=[(2, 3), (4, 3), (3, 5)], undirected=[(1, 2)])
MMD1 = PDAG(range(1, 7), directed=[(1, 2), (1, 4), (2, 3), (2, 5), (3, 6)])
MMD2 = PDAG(range(1, 7), directed=[(1, 2), (1, 4), (3, 2), (3, 5), (4, 5), (5, 6)])
GAC = [
    (FIG1, 3, 6, [([2, 4], True), ([4, 5], True), ([4, 2, 1], True), ([4, 5, 1], True),
                  ([4, 2, 5], True), ([4, 2, 5, 1], True), ([2], False), ([], False)]),
    (FIG5A, [1, 5], 4, [([2, 3], True), ([2], False)]),
    (MMD1, 1, 3, [([], True), ([2], False), ([4], True), ([5], False), ([6], False),
                  ([4, 5], False)]),
    (MMD2, 4, 6, [([1], True), ([3], True), ([5], False), ([1, 5], False), ([1, 2], True),
                  ([1, 3], True), ([2], False)]),
]


@pytest.mark.parametrize("case", range(len(GAC)))
def test_gac_known_answers(case):
    """test_gac.R: the generalised adjustment criterion on pcalg's CPDAG (Perković et al.
    2018, Fig. 1 and 5a) and DAG examples, single and joint treatments."""
    graph, x, y, sets = GAC[case]
    for z, valid in sets:
        assert is_adjustment_set(graph, x, y, z) is valid, z


# test_optAdjSet.R on a DAG regenerated here: random_weighted_dag(20, 0.3, 123) (nodes 0..19)
# written to CSV as a 0/1 matrix A (A[i, j] = 1: i -> j), then in R (nodes i + 1)
#   amat <- t(A); g <- as(A, "graphNEL"); cp <- t(as(dag2cpdag(g), "matrix"))
#   optAdjSet(amat, x, y)                      # every pair where y descends from x
#   pcalg:::isAmenable(cp, x, y, type = "cpdag"); optAdjSet(cp, x, y)
# pcalg's sets (0-based) for every ordered pair with a directed path x -> ... -> y:
OPT_PCALG = {(0, 1): [], (0, 2): [], (0, 3): [], (0, 4): [], (0, 5): [], (0, 6): [], (0, 7): [],
             (0, 8): [], (0, 9): [], (0, 10): [], (0, 11): [], (0, 12): [], (0, 13): [],
             (0, 14): [], (0, 15): [], (0, 16): [], (0, 17): [], (0, 18): [], (0, 19): [],
             (1, 4): [0, 2], (1, 5): [3], (1, 7): [0, 2, 3], (1, 8): [0, 2, 3, 6],
             (1, 9): [3, 6], (1, 10): [0, 2, 3, 6], (1, 11): [0, 2, 3], (1, 12): [2, 3, 6],
             (1, 13): [0, 2, 3, 6], (1, 14): [0, 2, 3, 6], (1, 15): [3, 6],
             (1, 16): [0, 2, 3, 6], (1, 17): [0, 2, 3, 6], (1, 18): [0, 2, 3, 6],
             (1, 19): [0, 2, 3, 6], (2, 4): [0, 1], (2, 6): [], (2, 7): [0, 5], (2, 8): [0, 5],
             (2, 9): [5], (2, 10): [0, 5], (2, 11): [0, 5], (2, 12): [1, 5], (2, 13): [0, 1, 5],
             (2, 14): [0, 1, 3, 5], (2, 15): [1, 5], (2, 16): [0, 1, 3, 5], (2, 17): [0, 1, 5],
             (2, 18): [0, 1, 5], (2, 19): [0, 1, 5], (3, 5): [1], (3, 7): [0, 1, 2],
             (3, 8): [0, 1, 2, 6], (3, 9): [1, 6], (3, 10): [0, 1, 2, 6], (3, 11): [0, 1, 2],
             (3, 12): [1, 2, 6], (3, 13): [0, 1, 2, 4, 6], (3, 14): [0, 1, 2, 4, 6],
             (3, 15): [1, 6], (3, 16): [0, 1, 2, 4, 6], (3, 17): [0, 1, 2, 4, 6],
             (3, 18): [1, 2, 4, 6], (3, 19): [1, 4, 6], (4, 13): [0, 5, 6, 7],
             (4, 14): [0, 3, 5, 6, 7], (4, 16): [0, 3, 5, 6, 7, 9, 10, 11],
             (4, 17): [0, 5, 6, 7, 9, 12], (4, 18): [1, 2, 6, 9], (4, 19): [5, 6, 9],
             (5, 7): [0, 2], (5, 8): [0, 2, 6], (5, 9): [6], (5, 10): [0, 2, 6], (5, 11): [0, 2],
             (5, 12): [1, 2, 6], (5, 13): [0, 2, 4, 6], (5, 14): [0, 2, 3, 4, 6],
             (5, 15): [1, 6], (5, 16): [0, 2, 3, 4, 6], (5, 17): [0, 1, 2, 4, 6],
             (5, 18): [1, 2, 4, 6], (5, 19): [4, 6], (6, 8): [7], (6, 9): [5], (6, 10): [2, 7],
             (6, 12): [1, 2, 5], (6, 13): [0, 4, 5, 7], (6, 14): [0, 3, 4, 5, 7],
             (6, 15): [1, 5], (6, 16): [0, 2, 3, 4, 5, 7, 11], (6, 17): [0, 1, 2, 4, 5, 7],
             (6, 18): [1, 2, 4, 5], (6, 19): [4, 5], (7, 8): [6], (7, 10): [2, 6],
             (7, 13): [0, 4, 5, 6], (7, 14): [0, 3, 4, 5, 6], (7, 16): [0, 2, 3, 4, 5, 6, 9, 11],
             (7, 17): [0, 4, 5, 6, 9, 12], (8, 10): [2, 7], (8, 16): [2, 4, 6, 7, 9, 11, 13, 14],
             (9, 15): [1], (9, 16): [4, 6, 10, 11, 13, 14], (9, 17): [0, 7, 12, 13],
             (9, 18): [1, 2, 4, 6], (9, 19): [4, 5, 6], (10, 16): [4, 6, 9, 11, 13, 14],
             (11, 16): [4, 6, 9, 10, 13, 14], (12, 17): [0, 7, 9, 13], (13, 14): [3, 4],
             (13, 16): [3, 4, 6, 9, 10, 11], (13, 17): [0, 7, 9, 12],
             (14, 16): [4, 6, 9, 10, 11, 13]}
# isAmenable(cp, x, y) is FALSE for every y exactly when x is one of these (x has an
# undirected edge in the CPDAG); for the other pairs optAdjSet(cp, x, y) equals the DAG's.
NOT_AMENABLE_X = {0, 1, 2, 3, 6}


def test_optadjset_equals_pcalg_on_the_dag_and_the_cpdag():
    """test_optAdjSet.R: the O-set on a random 20-node DAG and on its CPDAG, where amenable,
    equals pcalg's ``optAdjSet``, and is the same on the DAG and the CPDAG."""
    nodes = list(range(20))
    dag = edges_of(random_weighted_dag(20, 0.3, 123))
    cpdag = dag_to_cpdag(nodes, dag)
    for (x, y), expected in OPT_PCALG.items():
        assert optimal_adjustment_set(dag, x, y, nodes=nodes) == expected, (x, y)
        if x in NOT_AMENABLE_X:
            with pytest.raises(ValueError, match="amenable"):
                optimal_adjustment_set(cpdag, x, y)
        else:
            assert optimal_adjustment_set(cpdag, x, y) == expected, (x, y)
    # the amenability decision on every causal pair agrees with pcalg's isAmenable
    causal = [(x, y) for x in nodes for y in nodes if x != y and has_directed_path(nodes, dag, x, y)]
    assert sorted(causal) == sorted(OPT_PCALG)


def test_optadjset_several_outcomes_convention():
    """test_optAdjSet.R (last line), ``optAdjSet(amat, x, c(...))`` with outcomes that do not
    all descend from ``x``: pcalg drops those outcomes ("continue with the pruned Y") and may
    return one of them in the set (x = 1, Y = {2, 6, 11}: pcalg gives [0, 2, 3]); skbn
    answers the joint question for every outcome (a set disjoint from Y: the canonical
    set here) and equals pcalg when given the pruned Y, and when every outcome descends."""
    nodes = list(range(20))
    dag = edges_of(random_weighted_dag(20, 0.3, 123))
    # pcalg: optAdjSet(amat, x + 1, Y + 1) (0-based here)
    pcalg = {(1, (2, 6, 11)): [0, 2, 3], (3, (2, 6, 11)): [0, 1, 2], (5, (2, 6, 11)): [0, 2],
             (1, (9, 18)): [0, 2, 3, 6], (3, (9, 18)): [1, 2, 4, 6], (5, (9, 18)): [1, 2, 4, 6],
             (3, (4, 16)): [0, 1, 2, 4, 6], (5, (4, 16)): [0, 2, 3, 4, 6]}
    for (x, ys), expected in pcalg.items():
        pruned = [y for y in ys if has_directed_path(nodes, dag, x, y)]
        assert optimal_adjustment_set(dag, x, pruned, nodes=nodes) == expected
        joint = optimal_adjustment_set(dag, x, list(ys), nodes=nodes)
        if pruned == list(ys):
            assert joint == expected
        else:
            assert not set(joint) & set(ys)
            assert is_adjustment_set(dag, x, list(ys), joint, nodes=nodes)


# test_backdoor.R on a DAG regenerated here: random_weighted_dag(12, 0.25, 47), A as above;
#   backdoor(A, x, y, type = "dag"); backdoor(as(dag2cpdag(g), "matrix"), x, y, type = "cpdag")
# for every ordered pair: (DAG answer, CPDAG answer), None for NA (not identifiable by the
# generalised back-door criterion), [] for NULL (the empty set).
# pcalg's backdoor reads a[i, j] = 1, a[j, i] = 0 as i -> j (its own test passes
# as(myDAG, "matrix") untransposed), the transpose of the amat.cpdag coding its help page
# names and that gac and optAdjSet read: with the documented coding, c -> x, c -> y, x -> y
# gives NA instead of {c}.
BACKDOOR_PCALG = {(0, 1): ([], []), (0, 2): ([], []), (0, 3): ([], None), (0, 4): ([], []),
                  (0, 5): ([], []), (0, 6): ([], None), (0, 7): ([], []), (0, 8): ([], None),
                  (0, 9): ([], None), (0, 10): ([], None), (0, 11): ([], None), (1, 0): ([], []),
                  (1, 2): ([], []), (1, 3): ([], []), (1, 4): ([], []), (1, 5): ([], []),
                  (1, 6): ([], []), (1, 7): ([], None), (1, 8): ([], None), (1, 9): ([], None),
                  (1, 10): ([], None), (1, 11): ([], None), (2, 0): ([], []), (2, 1): ([], []),
                  (2, 3): ([], []), (2, 4): ([], []), (2, 5): ([], []), (2, 6): ([], []),
                  (2, 7): ([], []), (2, 8): ([], []), (2, 9): ([], []), (2, 10): ([], []),
                  (2, 11): ([], []), (3, 0): (None, None), (3, 1): ([0], []), (3, 2): ([], []),
                  (3, 4): ([0], []), (3, 5): ([0], []), (3, 6): ([0], None), (3, 7): ([0], []),
                  (3, 8): ([0], []), (3, 9): ([0], None), (3, 10): ([0], None),
                  (3, 11): ([0], None), (4, 0): ([], []), (4, 1): ([], []), (4, 2): ([], []),
                  (4, 3): ([], []), (4, 5): ([], []), (4, 6): ([], []), (4, 7): ([], []),
                  (4, 8): ([], []), (4, 9): ([], []), (4, 10): ([], []), (4, 11): ([], []),
                  (5, 0): ([], []), (5, 1): ([], []), (5, 2): ([], []), (5, 3): ([], []),
                  (5, 4): ([], []), (5, 6): ([], []), (5, 7): ([], []), (5, 8): ([], []),
                  (5, 9): ([], []), (5, 10): ([], []), (5, 11): ([], []), (6, 0): (None, None),
                  (6, 1): ([0, 3, 5], [0, 3, 5]), (6, 2): ([], []), (6, 3): (None, None),
                  (6, 4): ([0, 3, 5], [0, 3, 5]), (6, 5): (None, None),
                  (6, 7): ([0, 3, 5], [0, 3, 5]), (6, 8): ([0, 3, 5], [0, 3, 5]),
                  (6, 9): ([0, 3, 5], [0, 3, 5]), (6, 10): ([0, 3, 5], [0, 3, 5]),
                  (6, 11): ([0, 3, 5], [0, 3, 5]), (7, 0): ([1], []), (7, 1): (None, None),
                  (7, 2): ([], []), (7, 3): ([1], []), (7, 4): ([1], []), (7, 5): ([1], []),
                  (7, 6): ([1], []), (7, 8): ([1], []), (7, 9): ([1], None),
                  (7, 10): ([1], None), (7, 11): ([1], None), (8, 0): ([3, 7], [3, 7]),
                  (8, 1): ([3, 7], [3, 7]), (8, 2): ([], []), (8, 3): (None, None),
                  (8, 4): ([3, 7], [3, 7]), (8, 5): ([3, 7], [3, 7]), (8, 6): ([3, 7], [3, 7]),
                  (8, 7): (None, None), (8, 9): ([3, 7], [3, 7]), (8, 10): ([3, 7], [3, 7]),
                  (8, 11): ([3, 7], [3, 7]), (9, 0): (None, None), (9, 1): (None, None),
                  (9, 2): ([], []), (9, 3): (None, None), (9, 4): ([0, 1, 3, 7], [0, 1, 3, 7]),
                  (9, 5): ([0, 1, 3, 7], [0, 1, 3, 7]), (9, 6): ([0, 1, 3, 7], [0, 1, 3, 7]),
                  (9, 7): (None, None), (9, 8): ([0, 1, 3, 7], [0, 1, 3, 7]),
                  (9, 10): ([0, 1, 3, 7], [0, 1, 3, 7]), (9, 11): ([0, 1, 3, 7], [0, 1, 3, 7]),
                  (10, 0): ([3, 4, 7, 9], [3, 4, 7, 9]), (10, 1): ([3, 4, 7, 9], [3, 4, 7, 9]),
                  (10, 2): ([], []), (10, 3): (None, None), (10, 4): (None, None),
                  (10, 5): ([3, 4, 7, 9], [3, 4, 7, 9]), (10, 6): ([3, 4, 7, 9], [3, 4, 7, 9]),
                  (10, 7): (None, None), (10, 8): ([3, 4, 7, 9], [3, 4, 7, 9]),
                  (10, 9): (None, None), (10, 11): ([3, 4, 7, 9], [3, 4, 7, 9]),
                  (11, 0): ([1, 5, 6, 10], [1, 5, 6, 10]), (11, 1): (None, None),
                  (11, 2): ([], []), (11, 3): ([1, 5, 6, 10], [1, 5, 6, 10]),
                  (11, 4): ([1, 5, 6, 10], [1, 5, 6, 10]), (11, 5): (None, None),
                  (11, 6): (None, None), (11, 7): ([1, 5, 6, 10], [1, 5, 6, 10]),
                  (11, 8): ([1, 5, 6, 10], [1, 5, 6, 10]),
                  (11, 9): ([1, 5, 6, 10], [1, 5, 6, 10]), (11, 10): (None, None)}


def test_backdoor_against_pcalg():
    """test_backdoor.R (which only prints): every set pcalg's ``backdoor`` returns on the DAG
    and its CPDAG is a valid adjustment set for skbn; where pcalg finds none on the CPDAG, the
    CPDAG is not amenable for the pair and skbn raises, or y is a parent of x and skbn returns
    None; and skbn's back-door set (the parents
    of x) equals pcalg's except where y is in another connected component, where pcalg
    returns the empty set (also valid) and skbn still the parents of x."""
    nodes = list(range(12))
    dag = edges_of(random_weighted_dag(12, 0.25, 47))
    cpdag = dag_to_cpdag(nodes, dag)
    components = {}
    for i in nodes:  # connected components of the skeleton, by a union-find
        components[i] = i
    def root(i):
        while components[i] != i:
            i = components[i]
        return i
    for u, v in dag:
        components[root(u)] = root(v)
    for (x, y), answers in BACKDOOR_PCALG.items():
        for graph, expected in zip((dag, cpdag), answers):
            if expected is None:
                # pcalg: not identifiable; skbn: None (y -> x), or not amenable (CPDAG)
                try:
                    got = backdoor_adjustment_set(graph, x, y, nodes=nodes)
                except ValueError as error:
                    assert graph is cpdag and "amenable" in str(error)
                else:
                    assert got is None and y in {u for u, v in dag if v == x}
                continue
            assert is_adjustment_set(graph, x, y, expected, nodes=nodes)
            got = backdoor_adjustment_set(graph, x, y, nodes=nodes)
            if root(x) != root(y):
                assert expected == []
                assert is_adjustment_set(graph, x, y, got, nodes=nodes)
            else:
                assert got == expected, (x, y)
