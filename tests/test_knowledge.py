import itertools

import numpy as np
import pytest

from skbn.knowledge import BackgroundKnowledge, parse_knowledge

NAMES = ("a", "b", "c", "d")


def test_defaults_constrain_nothing_but_self_loops():
    k = parse_knowledge(NAMES)
    assert isinstance(k, BackgroundKnowledge)
    assert not k.required.any()
    assert np.array_equal(k.forbidden, np.eye(4, dtype=bool))
    assert k.max_indegree == 3
    assert k.start is None
    assert k.is_empty
    assert k.allowed_parents(2).tolist() == [0, 1, 3]
    assert not k.initial_graph().any()


def test_matrices_and_derived_views():
    k = parse_knowledge(NAMES, white_list=[("a", "b"), ("c", "d"), ("d", "c")],
                        black_list=[("b", "c"), ("a", "d"), ("d", "a")], max_indegree=2)
    assert k.required[0, 1] and not k.required[1, 0]
    assert k.required[2, 3] and k.required[3, 2]
    assert k.required_directed.sum() == 1 and k.required_undirected.sum() == 2
    assert k.required_adjacency[1, 0] and k.required_adjacency[3, 2]
    assert k.forbidden[1, 2] and not k.forbidden[2, 1]
    assert k.forbidden_adjacency[0, 3] and k.forbidden_adjacency[3, 0]
    assert not k.forbidden_adjacency[1, 2]
    assert k.allowed_parents(3).tolist() == [1, 2]
    assert k.required_parents(1).tolist() == [0]
    assert k.max_indegree == 2 and not k.is_empty
    with pytest.raises(ValueError):
        k.required[0, 0] = True  # read-only


def test_integer_positions_for_arrays():
    k = parse_knowledge((0, 1, 2), white_list=[(0, 2)], black_list=np.array([[2, 1]]))
    assert k.required[0, 2] and k.forbidden[2, 1]
    k = parse_knowledge(("x0", "x1", "x2"), white_list=[(0, 2)])
    assert k.required[0, 2]


def _tiers_brute_force(tiers, p):
    """Definition: i -> j is forbidden iff i sits in a strictly later tier than j."""
    out = np.zeros((p, p), dtype=bool)
    for later, tier_later in enumerate(tiers):
        for earlier, tier_earlier in enumerate(tiers):
            if later > earlier:
                for i in tier_later:
                    for j in tier_earlier:
                        out[i, j] = True
    return out


@pytest.mark.parametrize("seed", range(20))
def test_tiers_match_brute_force(seed):
    rng = np.random.RandomState(seed)
    p = 7
    level = rng.randint(-1, 4, size=p)  # -1: in no tier
    tiers = [[i for i in range(p) if level[i] == t] for t in range(4)]
    names = tuple(f"v{i}" for i in range(p))
    k = parse_knowledge(names, tiers=[[names[i] for i in tier] for tier in tiers])
    expected = _tiers_brute_force(tiers, p) | np.eye(p, dtype=bool)
    assert np.array_equal(k.forbidden, expected)
    # every DAG consistent with a topological order that lists tiers in order is allowed
    order = sorted(range(p), key=lambda i: (max(level[i], 0), i))
    forward = np.zeros((p, p), dtype=bool)
    for x, y in itertools.combinations(order, 2):
        if level[x] >= 0 and level[y] >= 0:
            forward[x, y] = True
    assert not (forward & k.forbidden).any()
    assert k.violations(forward) == []


def test_violations_lists_every_breach():
    k = parse_knowledge(NAMES, white_list=[("a", "b"), ("c", "d"), ("d", "c")],
                        black_list=[("b", "c")], max_indegree=1)
    dag = np.zeros((4, 4), dtype=bool)
    dag[1, 2] = dag[0, 2] = True
    messages = k.violations(dag)
    assert any("'a' -> 'b' is missing" in m for m in messages)
    assert any("'c' - 'd' is missing" in m for m in messages)
    assert any("'b' -> 'c' is present" in m for m in messages)
    assert any("more than max_indegree=1" in m for m in messages)
    ok = np.zeros((4, 4), dtype=bool)
    ok[0, 1] = ok[3, 2] = True
    assert k.violations(ok) == []


def test_two_way_pair_oriented_along_required_order():
    # path c -> b -> a: the free pair a - c must become c -> a to stay acyclic
    k = parse_knowledge(NAMES, white_list=[("c", "b"), ("b", "a"), ("a", "c"), ("c", "a")])
    graph = k.initial_graph()
    assert graph[2, 0] and not graph[0, 2] and graph[2, 1] and graph[1, 0]
    # no directed constraint: the topological order is the column order
    graph = parse_knowledge(NAMES, white_list=[("d", "b"), ("b", "d")]).initial_graph()
    assert graph[1, 3] and not graph[3, 1]


def test_start_gets_required_edges():
    k = parse_knowledge(NAMES, white_list=[("a", "b"), ("c", "d"), ("d", "c")], start=[("d", "c"), ("b", "d")])
    expected = np.zeros((4, 4), dtype=bool)
    expected[0, 1] = expected[3, 2] = expected[1, 3] = True
    assert np.array_equal(k.start, expected)
    assert np.array_equal(k.initial_graph(), expected)


def test_with_forbidden_adjacencies_keeps_required_pairs():
    k = parse_knowledge(NAMES, white_list=[("a", "b")])
    gaps = np.ones((4, 4), dtype=bool)
    restricted = k.with_forbidden_adjacencies(gaps)
    assert not restricted.forbidden[0, 1] and not restricted.forbidden[1, 0]
    assert restricted.forbidden[2, 3] and restricted.forbidden[0, 2]
    assert not k.forbidden[2, 3]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"white_list": [("a", "zz")]}, "white_list edge .* unknown column 'zz'"),
        ({"black_list": [("zz", "a")]}, "black_list edge .* unknown column 'zz'"),
        ({"start": [("a", "zz")]}, "start edge .* unknown column 'zz'"),
        ({"tiers": [["a"], ["zz"]]}, "tiers='zz' is not a column"),
        ({"white_list": [("a", "a")]}, "white_list edge .* self loop"),
        ({"black_list": [("b", "b")]}, "black_list edge .* self loop"),
        ({"white_list": [("a", "b", "c")]}, "white_list entry .* not a \\(parent, child\\) pair"),
        ({"black_list": ["ab"]}, "black_list entry 'ab' is not a \\(parent, child\\) pair"),
        ({"white_list": "ab"}, "white_list must be a sequence"),
        ({"tiers": ["ab"]}, "tiers entry 'ab' is not a list"),
        ({"tiers": [["a", "b"], ["b"]]}, "tiers puts column 'b' in more than one tier"),
        ({"white_list": [("a", "b")], "black_list": [("a", "b")]},
         "white_list requires the edge \\('a', 'b'\\) but black_list forbids it"),
        ({"white_list": [("b", "a")], "tiers": [["a"], ["b"]]},
         "white_list requires the edge \\('b', 'a'\\) but tiers forbids it"),
        ({"white_list": [("b", "a"), ("a", "b")], "tiers": [["a"], ["b"]]}, "list only the allowed one"),
        ({"white_list": [("a", "b"), ("b", "c"), ("c", "a")]}, "white_list: the required edges are not acyclic"),
        ({"white_list": [("a", "c"), ("b", "c")], "max_indegree": 1},
         "white_list gives 'c' 2 required parents, more than max_indegree=1"),
        ({"white_list": [("a", "c"), ("c", "a")], "max_indegree": 0}, "white_list gives .* max_indegree=0"),
        ({"max_indegree": -1}, "max_indegree must be None or an integer >= 0"),
        ({"max_indegree": 1.5}, "max_indegree must be None or an integer >= 0"),
        ({"start": [("a", "b"), ("b", "a")]}, "start: the start graph are not acyclic"),
        ({"start": [("b", "a")], "white_list": [("a", "b")]}, "start: the start graph with the required"),
        ({"start": [("a", "b")], "black_list": [("a", "b")]}, "start edge \\('a', 'b'\\) is forbidden by black_list"),
        ({"start": [("b", "a")], "tiers": [["a"], ["b"]]}, "start edge \\('b', 'a'\\) is forbidden by tiers"),
        ({"start": [("a", "c"), ("b", "c")], "max_indegree": 1}, "start .* gives 'c' 2 required parents"),
        ({"start": [("a", "c")], "white_list": [("b", "c")], "max_indegree": 1}, "start .* gives 'c' 2"),
    ],
)
def test_errors_name_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message):
        parse_knowledge(NAMES, **kwargs)
