import itertools

import numpy as np
import pytest

from skbn import (
    ChowLiuTree,
    ExactStructure,
    GESStructure,
    HillClimbStructure,
    K2Structure,
)
from skbn.datasets import sample_asia
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
    k = parse_knowledge(NAMES, white_list=[("a", "b"), ("c", "d"), ("d", "c")],
                        start=[("d", "c"), ("b", "d")])
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
        # (None was a TypeError: 'NoneType' object is not iterable)
        ({"white_list": None}, "white_list must be a sequence .*\\(\\) for none.*got None"),
        ({"black_list": None}, "black_list must be a sequence"),
        ({"tiers": ["ab"]}, "tiers entry 'ab' is not a list"),
        ({"tiers": [["a", "b"], ["b"]]}, "tiers puts column 'b' in more than one tier"),
        ({"white_list": [("a", "b")], "black_list": [("a", "b")]},
         "white_list requires the edge \\('a', 'b'\\) but black_list forbids it"),
        ({"white_list": [("b", "a")], "tiers": [["a"], ["b"]]},
         "white_list requires the edge \\('b', 'a'\\) but tiers forbids it"),
        ({"white_list": [("b", "a"), ("a", "b")], "tiers": [["a"], ["b"]]}, "list only the allowed one"),
        ({"white_list": [("a", "b"), ("b", "c"), ("c", "a")]},
         "white_list: the required edges must be acyclic"),
        ({"white_list": [("a", "c"), ("b", "c")], "max_indegree": 1},
         "white_list gives 'c' 2 required parents, more than max_indegree=1"),
        ({"white_list": [("a", "c"), ("c", "a")], "max_indegree": 0}, "white_list gives .* max_indegree=0"),
        ({"max_indegree": -1}, "max_indegree must be None or an integer >= 0"),
        ({"max_indegree": 1.5}, "max_indegree must be None or an integer >= 0"),
        ({"start": [("a", "b"), ("b", "a")]}, "start: the start graph must be acyclic"),
        ({"start": [("b", "a")], "white_list": [("a", "b")]}, "start: the start graph with the required"),
        ({"start": [("a", "b")], "black_list": [("a", "b")]},
         "start edge \\('a', 'b'\\) is forbidden by black_list"),
        ({"start": [("b", "a")], "tiers": [["a"], ["b"]]}, "start edge \\('b', 'a'\\) is forbidden by tiers"),
        ({"start": [("a", "c"), ("b", "c")], "max_indegree": 1}, "start .* gives 'c' 2 required parents"),
        ({"start": [("a", "c")], "white_list": [("b", "c")], "max_indegree": 1}, "start .* gives 'c' 2"),
    ],
)
def test_errors_name_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message):
        parse_knowledge(NAMES, **kwargs)


# ------------------------------------------------------------------ every learner honours it
ORDER = ["asia", "smoke", "tub", "lung", "bronc", "either", "xray", "dysp"]
WHITE = [("asia", "smoke"), ("tub", "dysp")]  # not edges of ASIA: the learner must add them
BLACK = [("either", "xray"), ("xray", "either"), ("smoke", "bronc")]  # true edges
TIERS = [["asia", "smoke"], ["tub", "lung", "bronc"], ["either", "xray", "dysp"]]


@pytest.fixture(scope="module")
def asia_data():
    return sample_asia(3000, random_state=0)[ORDER]


def _adjacency(model, names):
    A = np.zeros((len(names), len(names)), dtype=bool)
    for p, c in model.edges_:
        A[names.index(p), names.index(c)] = True
    return A


LEARNERS = {
    "hill_climb": lambda **k: HillClimbStructure(scorer="bic", **k),
    "tabu": lambda **k: HillClimbStructure(scorer="bic", search="tabu", **k),
    "k2": lambda **k: K2Structure(ordering=ORDER, **k),
    "exact": lambda **k: ExactStructure(scorer="bic", **k),
    "chow_liu": lambda **k: ChowLiuTree(**{key: v for key, v in k.items() if key != "max_indegree"}),
}


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_learners_respect_every_constraint(name, asia_data):
    kwargs = dict(white_list=WHITE, black_list=BLACK, tiers=TIERS, max_indegree=2)
    if name == "chow_liu":  # a tree has no in-degree to bound
        kwargs.pop("max_indegree")
    model = LEARNERS[name](**kwargs).fit(asia_data)
    knowledge = parse_knowledge(ORDER, **kwargs)
    assert knowledge.violations(_adjacency(model, ORDER)) == []
    # without knowledge the same learner breaks at least one of these constraints
    free = LEARNERS[name]().fit(asia_data)
    assert knowledge.violations(_adjacency(free, ORDER)) != []


def test_two_way_white_list_keeps_the_pair_adjacent_in_hill_climbing(asia_data):
    white = [("asia", "dysp"), ("dysp", "asia")]
    model = HillClimbStructure(scorer="bic", white_list=white).fit(asia_data)
    A = _adjacency(model, ORDER)
    assert A[0, 7] or A[7, 0]
    # it may be reversed: the search is free to pick the better direction
    start = HillClimbStructure(scorer="bic", white_list=white, start=[("dysp", "asia")], max_iter=0)
    assert ("dysp", "asia") in start.fit(asia_data).edges_


def test_k2_orients_a_two_way_pair_by_the_ordering(asia_data):
    model = K2Structure(ordering=ORDER, white_list=[("dysp", "asia"), ("asia", "dysp")]).fit(asia_data)
    assert ("asia", "dysp") in model.edges_


def test_ges_honours_adjacency_knowledge(asia_data):
    model = GESStructure(scorer="bic", white_list=[("asia", "dysp"), ("dysp", "asia")],
                         black_list=[("either", "xray")]).fit(asia_data)
    assert model.cpdag_.adjacent("asia", "dysp")
    # one direction black-listed forbids that direction only (issue 19)
    assert ("either", "xray") not in model.edges_ and ("either", "xray") not in model.cpdag_.directed
    assert not model.cpdag_.adjacent("either", "xray") or ("xray", "either") in model.cpdag_.directed
    model = GESStructure(scorer="bic", black_list=[("either", "xray"), ("xray", "either")]).fit(asia_data)
    assert not model.cpdag_.adjacent("either", "xray")


@pytest.mark.parametrize("name", [*sorted(LEARNERS), "ges"])
def test_contradictory_knowledge_is_refused(name, asia_data):
    make = LEARNERS.get(name, lambda **k: GESStructure(**k))
    with pytest.raises(ValueError, match="black_list forbids it"):
        make(white_list=[("tub", "either"), ("either", "tub")],
             black_list=[("tub", "either")]).fit(asia_data)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: K2Structure(ordering=ORDER, white_list=[("dysp", "asia")]), "ordering puts 'asia' before"),
        (lambda: K2Structure(ordering=ORDER, white_list=[("asia", "dysp"), ("dysp", "asia"),
                                                          ("tub", "dysp")], max_indegree=1),
         "more than max_indegree=1"),
        (lambda: ExactStructure(white_list=[("asia", "dysp"), ("dysp", "asia")]), "needs one direction"),
        (lambda: ChowLiuTree(white_list=[(a, b) for a in ("asia", "tub", "dysp")
                                         for b in ("asia", "tub", "dysp") if a != b]),
         "required adjacency .* is missing"),
        (lambda: ChowLiuTree(white_list=[("asia", "dysp"), ("tub", "dysp")]), "cannot honour"),
    ],
)
def test_learner_specific_contradictions(make, message, asia_data):
    with pytest.raises(ValueError, match=message):
        make().fit(asia_data)


def test_exact_with_knowledge_is_the_best_allowed_dag():
    """Brute force over every DAG on 4 nodes that honours the knowledge."""
    from skbn._data import encode_fit
    from skbn._engines._local_scores import FamilyScoreCache
    from skbn.graph import is_acyclic
    from skbn.scores import BIC

    X = sample_asia(2000, random_state=1)[["smoke", "lung", "bronc", "dysp"]]
    names = list(X.columns)
    kwargs = dict(white_list=[("dysp", "smoke")], black_list=[("lung", "dysp")], tiers=[["lung"], ["bronc"]])
    model = ExactStructure(scorer="bic", **kwargs).fit(X)
    knowledge = parse_knowledge(names, **kwargs)
    data, _ = encode_fit(X, "auto")
    cache = FamilyScoreCache(data, BIC())
    pairs = [(i, j) for i in range(4) for j in range(4) if i != j]
    best = -np.inf
    for chosen in itertools.product([False, True], repeat=len(pairs)):
        edges = [e for e, c in zip(pairs, chosen) if c]
        A = np.zeros((4, 4), dtype=bool)
        for i, j in edges:
            A[i, j] = True
        if (A & A.T).any() or not is_acyclic(range(4), edges) or knowledge.violations(A):
            continue
        best = max(best, sum(cache.local_score(v, list(np.flatnonzero(A[:, v]))) for v in range(4)))
    assert model.score_ == pytest.approx(best, rel=1e-9)
    assert knowledge.violations(_adjacency(model, names)) == []


def test_hill_climbing_moves_are_exactly_the_legal_ones():
    """Every move the delta engine allows leads to a DAG that honours the knowledge, and
    every single-edge change to such a DAG that keeps required pairs adjacent is allowed
    (brute force from the definitions; a two-way white-listed pair may be reversed)."""
    from skbn._data import encode_fit
    from skbn._engines import _search
    from skbn.graph import is_acyclic
    from skbn.scores import BIC

    X = sample_asia(500, random_state=2)[["asia", "smoke", "tub", "lung", "either"]]
    names = list(X.columns)
    knowledge = parse_knowledge(names, white_list=[("smoke", "lung"), ("tub", "either"), ("either", "tub")],
                                black_list=[("asia", "lung")], tiers=[["asia"], ["either"]], max_indegree=2)
    data, _ = encode_fit(X, "auto")
    engine = _search.DeltaEngine(data, BIC(), knowledge.required, knowledge.forbidden, knowledge.max_indegree)
    engine.start(knowledge.initial_graph())
    rng = np.random.RandomState(0)
    p = len(names)
    for _ in range(15):
        deltas = engine.deltas()
        allowed = set()
        for kind, i, j in itertools.product(range(3), range(p), range(p)):
            if np.isfinite(deltas[i, j, kind]):
                B = engine.A.copy()
                B[i, j] = kind == _search.ADD
                if kind == _search.REVERSE:
                    B[j, i] = True
                allowed.add(B.tobytes())
        expected = set()
        for i, j in itertools.permutations(range(p), 2):
            for B in _one_change(engine.A, i, j):
                if (is_acyclic(range(p), list(zip(*np.nonzero(B)))) and not knowledge.violations(B)):
                    expected.add(B.tobytes())
        assert allowed == expected
        assert not knowledge.violations(engine.A)
        _search.perturb(engine, 1, rng)


def _one_change(A, i, j):
    """The graphs one add / remove / reverse of the pair (i, j) away from A."""
    if A[i, j]:
        B = A.copy()
        B[i, j] = False
        yield B
        B = B.copy()
        B[j, i] = True
        yield B
    elif not A[j, i]:
        B = A.copy()
        B[i, j] = True
        yield B


def test_maximum_branching_is_optimal_by_brute_force():
    """Chu-Liu/Edmonds against every parent assignment on 2-5 nodes (forbidden arcs,
    symmetric and asymmetric weights)."""
    from skbn._dag import maximum_branching

    rng = np.random.RandomState(0)
    for trial in range(120):
        p = rng.randint(2, 6)
        w = rng.normal(size=(p, p))
        if trial % 2:
            w = (w + w.T) / 2
        allowed = rng.rand(p, p) > 0.3
        np.fill_diagonal(allowed, False)

        def feasible(parent):
            if any(u >= 0 and not allowed[u, v] for v, u in enumerate(parent)):
                return False
            for v in range(p):  # following parents from any node never loops
                seen, x = set(), v
                while x >= 0:
                    if x in seen:
                        return False
                    seen.add(x)
                    x = parent[x]
            return True

        def value(parent):
            return sum(w[u, v] for v, u in enumerate(parent) if u >= 0)

        found = list(maximum_branching(w, allowed))
        assert feasible(found)
        best = max(value(c) for c in itertools.product(range(-1, p), repeat=p) if feasible(c))
        assert value(found) == pytest.approx(best, abs=1e-9)
