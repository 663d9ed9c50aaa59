import math

import pytest

from skbn.graph import PDAG, dag_to_cpdag, pdag_to_dag, random_dag
from skbn.metrics import arrowhead_scores, skeleton_scores, structural_hamming_distance

TRUE = [("a", "b"), ("b", "c"), ("c", "d")]


def test_shd_hand_cases():
    shd = structural_hamming_distance
    assert shd(TRUE, TRUE) == 0
    assert shd(TRUE, [("b", "a"), ("b", "c"), ("c", "d")]) == 1  # reversed
    assert shd(TRUE, [("b", "c"), ("c", "d")]) == 1  # missing
    assert shd(TRUE, TRUE + [("a", "d")]) == 1  # extra
    assert shd(TRUE, []) == 3 and shd([], TRUE) == 3
    # reversed + missing + extra
    assert shd(TRUE, [("b", "a"), ("c", "d"), ("a", "c")]) == 3
    # directed vs undirected counts 1; undirected vs undirected 0
    learned = PDAG("abcd", directed=[("b", "c"), ("c", "d")], undirected=[("b", "a")])
    assert shd(TRUE, learned) == 1
    both = PDAG("abcd", undirected=[("a", "b")])
    assert shd(both, PDAG("abcd", undirected=[("b", "a")])) == 0
    assert shd(both, PDAG("abcd", directed=[("b", "a")])) == 1
    # order of the edge lists is irrelevant
    assert shd(TRUE[::-1], [("c", "d"), ("b", "a")]) == 2


def test_shd_is_symmetric_and_a_metric_on_random_graphs():
    for seed in range(10):
        nodes, g1 = random_dag(8, 0.4, random_state=seed, shuffle=True)
        _, g2 = random_dag(8, 0.4, random_state=seed + 100, shuffle=True)
        _, g3 = random_dag(8, 0.4, random_state=seed + 200, shuffle=True)
        d12 = structural_hamming_distance(g1, g2, nodes)
        assert d12 == structural_hamming_distance(g2, g1, nodes)
        assert d12 <= (structural_hamming_distance(g1, g3, nodes)
                       + structural_hamming_distance(g3, g2, nodes))
        for cp in (False, True):
            assert structural_hamming_distance(g1, g1, nodes, cpdag=cp) == 0


def test_shd_cpdag_option():
    # chain a -> b -> c and fork a <- b -> c are equivalent; collider a -> b <- c is not
    chain = [("a", "b"), ("b", "c")]
    fork = [("b", "a"), ("b", "c")]
    collider = [("a", "b"), ("c", "b")]
    assert structural_hamming_distance(chain, fork) == 1
    assert structural_hamming_distance(chain, fork, cpdag=True) == 0
    # CPDAG of the chain: a - b - c; of the collider: a -> b <- c: two pairs differ
    assert structural_hamming_distance(chain, collider, cpdag=True) == 2
    assert structural_hamming_distance(chain, collider, "abc", cpdag=True) == 2
    # PDAG inputs: a CPDAG stays itself
    cp = dag_to_cpdag("abc", chain)
    assert structural_hamming_distance(cp, fork, cpdag=True) == 0
    assert structural_hamming_distance(cp, fork) == 2
    # a consistent extension of the CPDAG is at distance 0
    for seed in range(5):
        nodes, edges = random_dag(10, 0.3, random_state=seed)
        other = pdag_to_dag(dag_to_cpdag(nodes, edges))
        assert structural_hamming_distance(edges, other, nodes, cpdag=True) == 0


def test_shd_input_checks():
    with pytest.raises(ValueError, match="not in `nodes`"):
        structural_hamming_distance([("a", "z")], [], nodes="abc")
    with pytest.raises(ValueError, match="self loop"):
        structural_hamming_distance([("a", "a")], [])
    with pytest.raises(ValueError, match="both"):
        structural_hamming_distance([("a", "b"), ("b", "a")], [])
    with pytest.raises(ValueError, match="cycle"):
        structural_hamming_distance([("a", "b"), ("b", "c"), ("c", "a")], [], cpdag=True)


def test_skeleton_scores_hand_cases():
    # learned: a-b (TP, reversed), b-c missing, c-d (TP), a-c extra
    learned = [("b", "a"), ("c", "d"), ("a", "c")]
    s = skeleton_scores(TRUE, learned)
    assert s["precision"] == pytest.approx(2 / 3)
    assert s["recall"] == pytest.approx(2 / 3)
    assert s["f1"] == pytest.approx(2 / 3)
    s = skeleton_scores(TRUE, [("a", "b")])
    assert s == {"precision": 1.0, "recall": pytest.approx(1 / 3), "f1": pytest.approx(0.5)}
    pdag = PDAG("abcd", undirected=TRUE)
    assert skeleton_scores(TRUE, pdag) == {"precision": 1.0, "recall": 1.0, "f1": 1.0}


def test_arrowhead_scores_hand_cases():
    # learned: a->b TP, c->b wrong, c-d undirected (no arrowhead)
    learned = PDAG("abcd", directed=[("a", "b"), ("c", "b")], undirected=[("c", "d")])
    s = arrowhead_scores(TRUE, learned)
    assert s["precision"] == pytest.approx(1 / 2)
    assert s["recall"] == pytest.approx(1 / 3)
    assert s["f1"] == pytest.approx(2 * 1 / (2 + 3))
    # truth undirected edges carry no arrowheads either
    truth = PDAG("abc", directed=[("a", "b")], undirected=[("b", "c")])
    s = arrowhead_scores(truth, [("a", "b"), ("b", "c")])
    assert s == {"precision": 0.5, "recall": 1.0, "f1": pytest.approx(2 / 3)}


def test_zero_division():
    s = skeleton_scores([], [])
    assert s == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    s = skeleton_scores(TRUE, [])
    assert s == {"precision": 1.0, "recall": 0.0, "f1": 0.0}
    s = skeleton_scores(TRUE, [], zero_division=0.0)
    assert s == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    s = arrowhead_scores([], TRUE, zero_division=float("nan"))
    assert s["precision"] == 0.0 and math.isnan(s["recall"]) and s["f1"] == 0.0
    # a CPDAG with only undirected edges predicts no arrowheads
    s = arrowhead_scores(TRUE, PDAG("abcd", undirected=TRUE))
    assert s == {"precision": 1.0, "recall": 0.0, "f1": 0.0}
    with pytest.raises(ValueError, match="zero_division"):
        skeleton_scores([], [], zero_division=2)
    with pytest.raises(ValueError, match="zero_division"):
        skeleton_scores([], [], zero_division="warn")


def test_shd_cpdag_option_accepts_a_pdag_without_extension():
    # an undirected 4-cycle has no consistent extension: its marks are compared as given
    cycle = PDAG("abcd", undirected=[("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")])
    assert structural_hamming_distance(cycle, cycle, cpdag=True) == 0
    truth = [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")]  # CPDAG: a -> d <- c, a - b - c
    assert structural_hamming_distance(truth, cycle, "abcd", cpdag=True) == 2
