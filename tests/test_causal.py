"""skbn.causal: adjustment sets and IDA, against definitions checked by brute force.

Oracles (none shares code with skbn.causal):
* adjustment validity in a DAG from the path definition of Shpitser et al. (2010): enumerate
  every simple path, check the forbidden descendants of causal paths and block every proper
  non-causal path by the d-separation rule on the path;
* a CPDAG is checked against "valid in every DAG of the class", the class enumerated by trying
  every orientation of the undirected edges; so is a maximally oriented PDAG (a CPDAG with
  background knowledge), against every DAG of the class that has its directed edges;
* numbers: the adjustment formula on the exact joint equals ``network.query(do=...)``.
"""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import dag_descendants

from skbn.causal import (
    backdoor_adjustment_set,
    effect_over_graphs,
    equivalent_dags,
    ida,
    is_adjustment_set,
    joint_ida,
    optimal_adjustment_set,
)
from skbn.datasets import load_network, make_random_network
from skbn.exceptions import PositivityWarning
from skbn.graph import PDAG, dag_to_cpdag, is_acyclic, meek_orient, pdag_to_dag, random_dag


# ---------------------------------------------------------------------------------------------
# oracles
# ---------------------------------------------------------------------------------------------
def _paths(nodes, edges, a, b):
    """Every simple path from a to b in the skeleton, as node lists."""
    adj = {v: set() for v in nodes}
    for u, v in edges:
        adj[u].add(v)
        adj[v].add(u)
    out = []

    def walk(path):
        if path[-1] == b:
            out.append(list(path))
            return
        for w in sorted(adj[path[-1]], key=nodes.index):
            if w not in path:
                walk(path + [w])

    walk([a])
    return out


def _oracle_valid(nodes, edges, xs, ys, zs):
    """Adjustment criterion of Shpitser et al. (2010), by enumerating paths."""
    edge_set = set(edges)
    for x in xs:
        for y in ys:
            for path in _paths(nodes, edges, x, y):
                if any(v in xs for v in path[1:]):
                    continue  # not proper
                causal = all((path[k], path[k + 1]) in edge_set for k in range(len(path) - 1))
                if causal:
                    for w in path[1:]:
                        if dag_descendants(edges, w) & set(zs):
                            return False
                    continue
                # non-causal: must be blocked by zs
                blocked = False
                for k in range(1, len(path) - 1):
                    a, c, b = path[k - 1], path[k], path[k + 1]
                    collider = (a, c) in edge_set and (b, c) in edge_set
                    if collider:
                        if not (dag_descendants(edges, c) & set(zs)):
                            blocked = True
                    elif c in zs:
                        blocked = True
                if not blocked:
                    return False
    return True


def _oracle_class(cpdag):
    """Every DAG of a CPDAG's class: the orientations of its undirected edges whose CPDAG is it."""
    nodes = list(cpdag.nodes)
    out = []
    for flips in itertools.product((False, True), repeat=len(cpdag.undirected)):
        edges = list(cpdag.directed) + [(v, u) if f else (u, v)
                                        for (u, v), f in zip(cpdag.undirected, flips)]
        if is_acyclic(nodes, edges) and dag_to_cpdag(nodes, edges) == cpdag:
            out.append(sorted(edges, key=lambda e: (nodes.index(e[0]), nodes.index(e[1]))))
    return out


def _subsets(items):
    for k in range(len(items) + 1):
        yield from itertools.combinations(items, k)


# ---------------------------------------------------------------------------------------------
# adjustment sets
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(12))
def test_is_adjustment_set_on_dags_matches_the_path_definition(seed):
    nodes, edges = random_dag(5, 0.5, random_state=seed, shuffle=True)
    checked = 0
    for x, y in itertools.permutations(nodes, 2):
        rest = [v for v in nodes if v not in (x, y)]
        for z in _subsets(rest):
            expected = _oracle_valid(nodes, edges, [x], [y], z)
            assert is_adjustment_set(edges, x, y, z, nodes=nodes) == expected, (edges, x, y, z)
            checked += expected
    # sets of treatments
    for xs in itertools.combinations(nodes, 2):
        for y in nodes:
            if y in xs:
                continue
            rest = [v for v in nodes if v not in xs and v != y]
            for z in _subsets(rest):
                assert is_adjustment_set(edges, list(xs), y, z, nodes=nodes) == \
                    _oracle_valid(nodes, edges, xs, [y], z), (edges, xs, y, z)


@pytest.mark.parametrize("seed", range(25))
def test_is_adjustment_set_on_cpdags_means_valid_in_every_dag_of_the_class(seed):
    nodes, edges = random_dag(5, 0.5, random_state=100 + seed, shuffle=True)
    cpdag = dag_to_cpdag(nodes, edges)
    dags = _oracle_class(cpdag)
    assert len(dags) == len(equivalent_dags(cpdag))
    assert sorted(map(tuple, dags)) == sorted(map(tuple, equivalent_dags(cpdag)))
    for x, y in itertools.permutations(nodes, 2):
        rest = [v for v in nodes if v not in (x, y)]
        any_valid = False
        for z in _subsets(rest):
            expected = all(_oracle_valid(nodes, d, [x], [y], z) for d in dags)
            assert is_adjustment_set(cpdag, x, y, z) == expected, (cpdag, x, y, z)
            any_valid |= expected
        # constructors: O-set exists iff some set is valid; it is then valid
        try:
            o_set = optimal_adjustment_set(cpdag, x, y)
        except ValueError as exc:
            assert "not adjustment amenable" in str(exc)
            assert not any_valid
            continue
        assert (o_set is not None) == any_valid
        if o_set is not None:
            assert is_adjustment_set(cpdag, x, y, o_set)
        backdoor = backdoor_adjustment_set(cpdag, x, y)
        if backdoor is not None:
            assert all(_oracle_valid(nodes, d, [x], [y], backdoor) for d in dags)


def _oracle_checker(nodes, edges, x, y):
    """``z -> _oracle_valid(nodes, edges, [x], [y], z)`` with the paths enumerated once."""
    edge_set = set(edges)
    paths = [p for p in _paths(nodes, edges, x, y)]
    causal = [all((p[k], p[k + 1]) in edge_set for k in range(len(p) - 1)) for p in paths]
    below = {v: dag_descendants(edges, v) for v in nodes}
    mediated = set().union(*(below[w] for p, c in zip(paths, causal) if c for w in p[1:]))

    def blocked(path, zs):
        for k in range(1, len(path) - 1):
            a, c, b = path[k - 1], path[k], path[k + 1]
            if (a, c) in edge_set and (b, c) in edge_set:
                if not below[c] & zs:
                    return True
            elif c in zs:
                return True
        return False

    def valid(z):
        zs = set(z)
        return not zs & mediated and all(blocked(p, zs) for p, c in zip(paths, causal) if not c)
    return valid


def _random_mpdag(seed):
    """A random DAG's CPDAG with some undirected edges oriented as in the DAG (background
    knowledge), closed under Meek's rules: a maximally oriented PDAG. None if the CPDAG
    has no undirected edge."""
    rng = np.random.RandomState(seed)
    nodes, edges = random_dag(int(rng.randint(5, 8)), rng.uniform(0.35, 0.65), random_state=rng,
                              shuffle=True)
    cpdag = dag_to_cpdag(nodes, edges)
    if not cpdag.undirected:
        return None
    picks = rng.choice(len(cpdag.undirected), size=rng.randint(1, len(cpdag.undirected) + 1) // 2
                       or 1, replace=False)
    required = [(u, v) if (u, v) in set(edges) else (v, u)
                for u, v in (cpdag.undirected[i] for i in picks)]
    return cpdag, meek_orient(cpdag, required=required)


def test_b_possible_descendants_are_the_ends_of_b_possibly_causal_paths():
    """The kernel's walk rule (unshielded possibly directed walks) against enumerating every
    b-possibly causal path (no edge from a later to an earlier node of the path, Perković et
    al. 2017), with and without nodes to avoid, and against the union over the class's DAGs."""
    from skbn._dag import adjacent_sets, possible_descendants
    from skbn.causal import _compile

    rng = np.random.RandomState(0)
    for seed in range(30):
        made = _random_mpdag(seed)
        if made is None:
            continue
        for graph in made:
            compiled = _compile(graph)  # (node sets on ids, as the criteria read them)
            nodes, ix, n = list(compiled.nodes), compiled.index, compiled.n
            ch, pa, nb = compiled.children, compiled.parents, compiled.neighbours
            adjacent = adjacent_sets(pa, ch, nb)
            dags = equivalent_dags(graph)
            for x in range(n):
                avoid = set(rng.choice([v for v in range(n) if v != x], 2, replace=False))
                for skip in (set(), avoid):
                    ends, stack = set(), [[x]]
                    while stack:
                        path = stack.pop()
                        ends.add(path[-1])
                        for w in ch[path[-1]] | nb[path[-1]]:
                            if w not in path and w not in skip and not ch[w] & set(path):
                                stack.append(path + [w])
                    assert possible_descendants(ch, nb, {x}, skip, adjacent) == ends
                below = set().union(*({ix[v] for v in dag_descendants(d, nodes[x])} for d in dags))
                assert possible_descendants(ch, nb, {x}, adjacent=adjacent) == below


def test_adjustment_on_a_pdag_with_background_knowledge_by_hand():
    """0 -> 1 rules out the path 1 - 5 - 0 -> 4 in every DAG of the PDAG: it is not
    b-possibly causal (Perković, Kalisch & Maathuis 2017), so {0} is valid (the CPDAG notion
    of possibly causal paths rejected it)."""
    pdag = PDAG(range(6), [(0, 1), (0, 4), (3, 4)], [(0, 2), (0, 5), (1, 5)])
    assert meek_orient(pdag) == pdag
    dags = equivalent_dags(pdag)
    assert all(_oracle_valid(range(6), d, [1], [4], [0]) for d in dags)
    assert is_adjustment_set(pdag, 1, 4, [0])
    assert optimal_adjustment_set(pdag, 1, 4) is not None
    # an edge x - w starting a b-possibly causal path to y: not amenable
    assert not is_adjustment_set(pdag, 5, 4, [0])
    with pytest.raises(ValueError, match="not adjustment amenable"):
        optimal_adjustment_set(pdag, 5, 4)


def test_adjustment_on_maximally_oriented_pdags_means_valid_in_every_dag():
    """Random maximally oriented PDAGs (5 to 7 nodes): ``is_adjustment_set`` is "valid in
    every DAG the PDAG represents" for every (x, y) and every z; ``optimal_adjustment_set``
    returns a valid set exactly when some set is valid (None or not amenable otherwise)."""
    checked = valid_sets = graphs = 0
    for seed in range(60):
        made = _random_mpdag(seed)
        if made is None:
            continue
        cpdag, pdag = made
        if pdag == cpdag:
            continue
        graphs += 1
        nodes = list(pdag.nodes)
        # the class by brute force: DAGs of the CPDAG's class with the PDAG's directed edges
        dags = [d for d in _oracle_class(cpdag) if set(pdag.directed) <= set(d)]
        assert sorted(map(tuple, dags)) == sorted(map(tuple, equivalent_dags(pdag)))
        for x, y in itertools.permutations(nodes, 2):
            checkers = [_oracle_checker(nodes, d, x, y) for d in dags]
            rest = [v for v in nodes if v not in (x, y)]
            any_valid = False
            for z in _subsets(rest):
                expected = all(check(z) for check in checkers)
                assert is_adjustment_set(pdag, x, y, z) == expected, (pdag, x, y, z)
                any_valid |= expected
                checked += 1
                valid_sets += expected
            try:
                o_set = optimal_adjustment_set(pdag, x, y)
            except ValueError as exc:
                assert "not adjustment amenable" in str(exc)
                assert not any_valid, (pdag, x, y)
                continue
            assert (o_set is not None) == any_valid, (pdag, x, y)
            if o_set is not None:
                assert all(check(o_set) for check in checkers), (pdag, x, y, o_set)
    assert graphs >= 25 and valid_sets > 1000, (graphs, checked, valid_sets)


def _extends(pdag):
    """Whether ``pdag`` has a consistent extension (a DAG it represents)."""
    try:
        pdag_to_dag(pdag)
    except ValueError:
        return False
    return True


def test_a_pdag_not_closed_under_meek_rules_is_closed_first():
    """A PDAG that lacks orientations Meek's rules imply represents the same DAGs as its
    closure: every answer equals the closure's (without closing, the b-possibly causal
    paths of the criteria would be read on the wrong graph)."""
    compared = 0
    for seed in range(40):
        made = _random_mpdag(seed)
        if made is None:
            continue
        closed = made[1]
        for u, v in closed.directed:  # un-orient an edge the rules orient again
            open_ = PDAG(closed.nodes, [e for e in closed.directed if e != (u, v)],
                         [*closed.undirected, (u, v)])
            if meek_orient(open_) != closed or not _extends(open_):
                continue
            for x, y in itertools.permutations(closed.nodes, 2):
                for z in ([], [v for v in closed.nodes if v not in (x, y)][:1]):
                    assert is_adjustment_set(open_, x, y, z) == is_adjustment_set(closed, x, y, z)
                try:
                    expected = optimal_adjustment_set(closed, x, y)
                except ValueError:
                    with pytest.raises(ValueError):
                        optimal_adjustment_set(open_, x, y)
                    continue
                assert optimal_adjustment_set(open_, x, y) == expected
                compared += 1
    assert compared > 200, compared


def test_adjustment_formula_on_the_exact_joint_equals_query_do():
    net = make_random_network(5, max_indegree=2, n_states=(2, 3), edge_prob=0.6, random_state=3)
    joint = net.query(list(net.nodes))  # P(all), MultiIndex
    frame = joint.reset_index()
    differs = 0
    for x, y in itertools.permutations(net.nodes, 2):
        truth = np.array([net.query(y, do={x: s}).to_numpy() for s in net.states[x]])
        rest = [v for v in net.nodes if v not in (x, y)]
        for z in _subsets(rest):
            valid = is_adjustment_set(net.edges, x, y, z, nodes=net.nodes)
            # sum_z P(y | x, z) P(z) from the exact joint
            est = np.zeros_like(truth)
            grouped = frame.groupby(list(z) + [x, y], observed=False)["probability"].sum()
            for zs in itertools.product(*(net.states[v] for v in z)):
                pz = frame.loc[(frame[list(z)] == list(zs)).all(axis=1), "probability"].sum() \
                    if z else 1.0
                for a, xv in enumerate(net.states[x]):
                    pxz = np.array([grouped[tuple(zs) + (xv, yv)] for yv in net.states[y]])
                    est[a] += pz * pxz / pxz.sum()
            if valid:
                np.testing.assert_allclose(est, truth, atol=1e-12)
            else:
                differs += not np.allclose(est, truth, atol=1e-6)
    assert differs > 0  # the check can fail: invalid sets do give other numbers


def test_adjustment_examples_by_hand():
    confounded = [("z", "x"), ("z", "y"), ("x", "y")]
    assert is_adjustment_set(confounded, "x", "y", ["z"])
    assert not is_adjustment_set(confounded, "x", "y", [])
    mediator = [("a", "x"), ("x", "m"), ("m", "y"), ("b", "y"), ("a", "b")]
    assert optimal_adjustment_set(mediator, "x", "y") == ["b"]  # pa({m, y}) \ {x, m, y}
    assert backdoor_adjustment_set(mediator, "x", "y") == ["a"]
    assert not is_adjustment_set(mediator, "x", "y", ["m"])  # a mediator is forbidden
    # y causes x: no adjustment set, no effect
    assert backdoor_adjustment_set([("y", "x")], "x", "y") is None
    assert optimal_adjustment_set([("y", "x")], "x", "y") is None
    # not amenable: x - y undirected
    chain = PDAG("xy", undirected=[("x", "y")])
    assert not is_adjustment_set(chain, "x", "y", [])
    with pytest.raises(ValueError, match="not adjustment amenable.*'x' - 'y'"):
        optimal_adjustment_set(chain, "x", "y")
    # a collider is never adjusted for (M-bias)
    m_bias = [("u1", "x"), ("u1", "m"), ("u2", "m"), ("u2", "y"), ("x", "y")]
    assert is_adjustment_set(m_bias, "x", "y", [])
    assert not is_adjustment_set(m_bias, "x", "y", ["m"])
    assert is_adjustment_set(m_bias, "x", "y", ["m", "u1"])


def test_adjustment_bad_input():
    edges = [("a", "b")]
    with pytest.raises(ValueError, match="unknown node 'q'"):
        is_adjustment_set(edges, "q", "b", [])
    with pytest.raises(ValueError, match="disjoint"):
        is_adjustment_set(edges, "a", "b", ["a"])
    with pytest.raises(ValueError, match="directed cycle"):
        is_adjustment_set([("a", "b"), ("b", "a")], "a", "b", [])
    square = PDAG("abcd", undirected=[("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")])
    with pytest.raises(ValueError, match="not a CPDAG"):
        is_adjustment_set(square, "a", "c", [])
    with pytest.raises(TypeError, match="PDAG"):
        is_adjustment_set("ab", "a", "b", [])


# ---------------------------------------------------------------------------------------------
# IDA
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def asia():
    return load_network("asia")


def _exact_rows(net):
    """Every joint configuration once, weighted by its probability."""
    joint = net.query(list(net.nodes))
    frame = joint.index.to_frame(index=False)
    return frame, joint.to_numpy()


def test_ida_on_the_exact_joint_contains_the_true_effect(asia):
    rows, weights = _exact_rows(asia)
    cpdag = dag_to_cpdag(asia.nodes, asia.edges)
    for x, y in [("smoke", "dysp"), ("lung", "dysp"), ("smoke", "lung"), ("tub", "xray"),
                 ("bronc", "smoke"), ("either", "tub")]:
        truth = asia.query(y, do={x: "yes"}).to_numpy()
        for method in ("local", "global"):
            out = ida(rows, cpdag, x, y, x_value="yes", ess=0.0, sample_weight=weights,
                      method=method)
            values = out[[f"P({y}={s} | do({x}=yes))" for s in asia.states[y]]].to_numpy()
            true_parents = set(asia.parents[x])
            row = [k for k, p in enumerate(out["parents"]) if set(p) == true_parents][0]
            np.testing.assert_allclose(values[row], truth, atol=1e-12)
        # on the true DAG: one element, the adjustment for the true parents
        dag = ida(rows, asia.edges, x, y, x_value="yes", ess=0.0, sample_weight=weights)
        assert len(dag) == 1 and set(dag["parents"][0]) == set(asia.parents[x])
        values = dag[[f"P({y}={s} | do({x}=yes))" for s in asia.states[y]]].to_numpy()
        np.testing.assert_allclose(values[0], truth, atol=1e-12)


def test_ida_large_sample_contains_the_true_effect(asia):
    rows = asia.sample(200_000, random_state=1)
    cpdag = dag_to_cpdag(asia.nodes, asia.edges)
    out = ida(rows, cpdag, "smoke", "dysp", contrast=("yes", "no"), y_value="yes")
    truth = (asia.query("dysp", do={"smoke": "yes"})["yes"]
             - asia.query("dysp", do={"smoke": "no"})["yes"])
    assert np.min(np.abs(out["effect"].to_numpy() - truth)) < 0.01
    # the row of the true parent set (none) is that one
    assert abs(out.loc[out["parents"] == (), "effect"].iloc[0] - truth) < 0.01


def test_ida_adjustment_by_hand_with_pandas():
    rng = np.random.default_rng(0)
    z = rng.integers(0, 2, 500)
    x = (rng.random(500) < 0.3 + 0.4 * z).astype(int)
    y = (rng.random(500) < 0.2 + 0.3 * x + 0.3 * z).astype(int)
    frame = pd.DataFrame({"z": z, "x": x, "y": y})
    out = ida(frame, [("z", "x"), ("z", "y"), ("x", "y")], "x", "y", x_value=1, ess=0.0)
    expected = np.zeros(2)
    for _, group in frame.groupby("z"):
        pz = len(group) / len(frame)
        cond = group[group.x == 1].y.value_counts(normalize=True).reindex([0, 1], fill_value=0)
        expected += pz * cond.to_numpy()
    np.testing.assert_allclose(out.filter(like="P(").to_numpy()[0], expected, atol=1e-12)
    assert list(out.columns) == ["parents", "y_is_parent", "P(y=0 | do(x=1))", "P(y=1 | do(x=1))"]
    # BDeu smoothing: ess shrinks towards uniform, the answer still a distribution
    smooth = ida(frame, [("z", "x"), ("z", "y"), ("x", "y")], "x", "y", x_value=1, ess=50.0)
    p = smooth.filter(like="P(").to_numpy()[0]
    assert np.isclose(p.sum(), 1.0) and abs(p[0] - 0.5) < abs(expected[0] - 0.5)


@pytest.mark.parametrize("seed", range(20))
def test_local_and_global_ida_give_the_same_parent_sets(seed):
    nodes, edges = random_dag(6, 0.5, random_state=200 + seed, shuffle=True)
    cpdag = dag_to_cpdag(nodes, edges)
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.integers(0, 2, (300, 6)), columns=nodes)
    dags = equivalent_dags(cpdag)
    for x in nodes[:3]:
        y = nodes[-1] if x != nodes[-1] else nodes[0]
        local = ida(frame, cpdag, x, y, x_value=1)
        glob = ida(frame, cpdag, x, y, x_value=1, method="global")
        assert sorted(local["parents"]) == sorted(glob["parents"])
        assert glob["n_dags"].sum() == len(dags)
        by_dag = {tuple(p for p, c in d if c == x) for d in dags}
        assert set(glob["parents"]) == by_dag
        merged = local.merge(glob, on="parents")
        np.testing.assert_allclose(merged.filter(like="_x").filter(like="P(").to_numpy(),
                                   merged.filter(like="_y").filter(like="P(").to_numpy())


def test_ida_y_parent_of_x_gives_no_effect():
    frame = pd.DataFrame({"a": [0, 1, 1, 0, 1], "b": [1, 1, 0, 0, 1]})
    out = ida(frame, PDAG("ab", undirected=[("a", "b")]), "a", "b", contrast=(1, 0))
    assert list(out["parents"]) == [(), ("b",)]
    assert list(out["y_is_parent"]) == [False, True]
    assert out["effect"][1] == 0.0


def test_ida_awkward_names_and_states(asia):
    rows = asia.sample(3000, random_state=2)
    rename = {"smoke": "smoke.status now", "dysp": "dys pnoea"}
    relabel = {"yes": "None", "no": "NA"}
    odd = rows.rename(columns=rename).astype(str).replace(relabel)
    nodes = [rename.get(v, v) for v in asia.nodes]
    edges = [(rename.get(u, u), rename.get(v, v)) for u, v in asia.edges]
    cpdag = dag_to_cpdag(nodes, edges)
    out = ida(odd, cpdag, "smoke.status now", "dys pnoea", contrast=("None", "NA"),
              y_value="None")
    plain = ida(rows, dag_to_cpdag(asia.nodes, asia.edges), "smoke", "dysp",
                contrast=("yes", "no"), y_value="yes")
    np.testing.assert_allclose(out["effect"], plain["effect"])
    assert "P(dys pnoea=None | do(smoke.status now=None))" in out.columns


def test_ida_sample_weight_equals_repeated_rows(asia):
    rows = asia.sample(400, random_state=3)
    weights = np.random.default_rng(0).integers(0, 4, len(rows))
    cpdag = dag_to_cpdag(asia.nodes, asia.edges)
    weighted = ida(rows, cpdag, "smoke", "dysp", x_value="yes", sample_weight=weights)
    repeated = ida(rows.loc[rows.index.repeat(weights)], cpdag, "smoke", "dysp", x_value="yes")
    pd.testing.assert_frame_equal(weighted, repeated)


def test_weight_zero_rows_are_dropped_before_encoding(asia):
    """A row of weight 0 is not there (docs/core.md): its states must not enter the BDeu
    pseudocounts (q_z, r_x) nor be accepted as treatment states, and its missing cells must
    not be refused, in ida, joint_ida and effect_over_graphs alike."""
    from skbn.causal import effect_over_graphs, joint_ida

    rows = asia.sample(600, random_state=4).reset_index(drop=True).astype(object)
    odd = rows.copy()
    odd.loc[[5, 17], "bronc"] = "maybe"   # a state of a parent seen only in weight-0 rows
    odd.loc[9, "smoke"] = "never"         # a state of x seen only in a weight-0 row
    odd.loc[11, "lung"] = None            # a missing cell in a weight-0 row
    weights = np.ones(len(odd))
    weights[[5, 9, 11, 17]] = 0
    kept = odd[weights > 0]
    cpdag = dag_to_cpdag(asia.nodes, asia.edges)
    query = dict(contrast=("yes", "no"), y_value="yes")
    pd.testing.assert_frame_equal(ida(odd, cpdag, "smoke", "dysp", sample_weight=weights, **query),
                                  ida(kept, cpdag, "smoke", "dysp", **query))
    both = dict(contrast=(("yes", "yes"), ("no", "no")), y_value="yes", method="global")
    pd.testing.assert_frame_equal(
        joint_ida(odd, cpdag, ["smoke", "lung"], "dysp", sample_weight=weights, **both),
        joint_ida(kept, cpdag, ["smoke", "lung"], "dysp", **both))
    dag = [list(asia.edges)]
    np.testing.assert_array_equal(
        effect_over_graphs(odd, dag, "smoke", "dysp", sample_weight=weights, **query).effects,
        effect_over_graphs(kept, dag, "smoke", "dysp", **query).effects)
    with pytest.raises(ValueError, match="'never' is not a state"):
        ida(odd, cpdag, "smoke", "dysp", contrast=("never", "no"), y_value="yes",
            sample_weight=weights)


def test_ida_accepts_a_fitted_learner_and_arrays():
    from skbn import PCStructure

    net = load_network("cancer")
    rows = net.sample(2000, random_state=0)
    pc = PCStructure().fit(rows)
    a = ida(rows, pc, "Smoker", "Cancer", x_value="True")
    b = ida(rows, pc.cpdag_, "Smoker", "Cancer", x_value="True")
    pd.testing.assert_frame_equal(a, b)
    array = rows.to_numpy()
    names = list(rows.columns)
    idx = [(names.index(u), names.index(v)) for u, v in net.edges]
    c = ida(array, idx, names.index("Smoker"), names.index("Cancer"), x_value="True")
    d = ida(rows, net.edges, "Smoker", "Cancer", x_value="True")
    sx, sy = names.index("Smoker"), names.index("Cancer")
    for state in ("True", "False"):
        np.testing.assert_allclose(c[f"P({sy}={state} | do({sx}=True))"],
                                   d[f"P(Cancer={state} | do(Smoker=True))"])


def test_ida_positivity_warns_with_ess_zero():
    frame = pd.DataFrame({"z": [0, 0, 1, 1], "x": [0, 1, 0, 0], "y": [0, 1, 1, 0]})
    with pytest.warns(RuntimeWarning, match="positivity"):
        out = ida(frame, [("z", "x"), ("x", "y"), ("z", "y")], "x", "y", x_value=1, ess=0.0)
    assert out.filter(like="P(").isna().all(axis=None)


def test_ida_unseen_treatment_state_takes_the_prior_mean():
    # z = b never has x = 1: with ess > 0 the BDeu posterior mean of P(y | x=1, z=b) is the
    # prior's, 1/2 per state (it was taken as 0, so P(y | do(x=1)) summed to 1/2).
    # By hand, a = ess / (q_z r_x r_y) = 1/8: P(y | x=1, z=a) = (0 + a, 2 + a) / (2 + 2a)
    # = (1/18, 17/18); P(z) = (1/2, 1/2), so P(y=1 | do(x=1)) = 17/36 + 1/4 = 13/18.
    from skbn.causal import joint_ida

    frame = pd.DataFrame({"z": list("aaaabbbb"), "x": list("01010000"),
                          "y": list("01110101")})
    edges = [("z", "x"), ("z", "y"), ("x", "y")]
    with pytest.warns(PositivityWarning, match=r"x='1' with z='b' \(50.0% of the rows\)"):
        out = ida(frame, edges, "x", "y", x_value="1")
    assert out["P(y=0 | do(x=1))"].item() == pytest.approx(5 / 18)
    assert out["P(y=1 | do(x=1))"].item() == pytest.approx(13 / 18)
    with pytest.warns(PositivityWarning, match=r"joint_ida: .*\(x=1, w=0\) with z='b'"):
        joint = joint_ida(frame.assign(w=list("01010101")), edges + [("w", "y")], ["x", "w"],
                          "y", x_values=["1", "0"])
    assert joint.filter(like="P(").sum(axis=1).to_numpy() == pytest.approx(1.0)


# a -> x, a -> y, x -> y; a=0 never has x=1 (3 of the 9 rows have a=0)
_GAP_ROWS = pd.DataFrame({"a": [0, 0, 0, 1, 1, 1, 1, 1, 1],
                          "x": [0, 0, 0, 0, 0, 1, 1, 1, 1],
                          "y": [0, 0, 1, 0, 1, 1, 1, 1, 0]})
_GAP_DAG = [("a", "x"), ("a", "y"), ("x", "y")]


def test_positivity_failure_is_reported_with_the_prior_based_value():
    # The adjustment formula by hand, ess=1: a = ess / (q_a r_x r_y) = 1/8 per cell,
    # P(y=1 | x, a) = (N + 1/8) / (N_xa + 1/4):
    #   x=1, a=0: no row, (0 + 1/8) / (0 + 1/4) = 1/2 (the prior alone)
    #   x=1, a=1: (3 + 1/8) / (4 + 1/4) = 25/34;  x=0, a=0: (1 + 1/8) / (3 + 1/4) = 9/26;
    #   x=0, a=1: (1 + 1/8) / (2 + 1/4) = 1/2;    P(a) = (1/3, 2/3)
    # P(y=1 | do(x=1)) = 1/6 + 25/51 = 67/102, P(y=1 | do(x=0)) = 3/26 + 1/3 = 35/78.
    # The value is kept (the prior's term weighs 1/3), and the call says so, once.
    with pytest.warns(PositivityWarning) as record:
        out = ida(_GAP_ROWS, _GAP_DAG, "x", "y", contrast=(1, 0), y_value=1)
    assert out["effect"].item() == pytest.approx(67 / 102 - 35 / 78, abs=1e-12)
    assert len(record) == 1
    message = str(record[0].message)
    assert "ida: positivity fails" in message and "x=1 with a=0 (33.3% of the rows)" in message
    assert record[0].message.share == pytest.approx(1 / 3)
    # the share is of the weighted rows: the a=0 rows counted twice weigh 6 of 12
    with pytest.warns(PositivityWarning, match=r"x=1 with a=0 \(50.0% of the rows\)"):
        ida(_GAP_ROWS, _GAP_DAG, "x", "y", contrast=(1, 0), y_value=1,
            sample_weight=[2, 2, 2, 1, 1, 1, 1, 1, 1])
    # x=0 is seen with every a: no warning for its probability alone
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        alone = ida(_GAP_ROWS, _GAP_DAG, "x", "y", x_value=0)
    assert alone["P(y=1 | do(x=0))"].item() == pytest.approx(35 / 78, abs=1e-12)
    # ess=0 keeps its NaN and RuntimeWarning, and says nothing more
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nan = ida(_GAP_ROWS, _GAP_DAG, "x", "y", contrast=(1, 0), y_value=1, ess=0.0)
    assert np.isnan(nan["effect"].item())
    assert [w.category for w in caught] == [RuntimeWarning]


def test_positivity_failure_is_summed_over_graphs():
    # three copies of the DAG with the gap and one without a path x -> y: one warning for
    # the call, with the number of DAGs and their weight; positivity_fails marks them
    graphs = [_GAP_DAG] * 3 + [[("a", "x"), ("a", "y")]]
    for draws in (False, True):
        with pytest.warns(PositivityWarning) as record:
            out = effect_over_graphs(_GAP_ROWS, graphs, "x", "y", contrast=(1, 0), y_value=1,
                                     equivalence_class=False, parameter_uncertainty=draws,
                                     random_state=0)
        assert len(record) == 1
        assert "in 3 of the 4 DAGs (weight 0.75)" in str(record[0].message)
        assert out.positivity_fails.tolist() == [True, True, True, False]
    assert out.effects[0] != out.effects[1]  # one draw per DAG
    # identified(): the one DAG without the gap, its weight renormalised to 1 (no path x -> y)
    kept = out.identified()
    assert kept.weights.tolist() == [1.0] and kept.effects.tolist() == [out.effects[3]]
    assert kept.estimate == kept.interval[0] == kept.interval[1] == out.effects[3] == 0.0
    assert kept.prob_causes == 0.0 and not kept.positivity_fails.any()
    with pytest.warns(PositivityWarning):
        gapped = effect_over_graphs(_GAP_ROWS, [_GAP_DAG] * 2, "x", "y", contrast=(1, 0), y_value=1,
                                    equivalence_class=False)
    with pytest.raises(ValueError, match="positivity fails in every DAG"):
        gapped.identified()


def test_asia_effect_through_a_function_of_the_treatment_warns(asia):
    # either = lung or tub: with either -> lung, either='no' never has lung='yes', so
    # P(dysp | lung=yes, either=no) comes from the prior on 94% of the rows: 0.081 against
    # the exact 0.371 (asia.query(do=...)), which used to come back without a word
    rows = asia.sample(10_000, random_state=0)
    graph = PDAG(asia.nodes, directed=[("either", "lung"), ("either", "dysp"),
                                       ("bronc", "dysp"), ("smoke", "bronc")])
    with pytest.warns(PositivityWarning, match=r"lung='yes' with either='no' \(93.6% of the rows\)"):
        out = ida(rows, graph, "lung", "dysp", contrast=("yes", "no"), y_value="yes")
    assert out["effect"].item() == pytest.approx(0.0813, abs=1e-4)
    truth = asia.query("dysp", do={"lung": "yes"})["yes"] - asia.query("dysp", do={"lung": "no"})["yes"]
    assert truth == pytest.approx(0.3711, abs=1e-4)


def test_no_positivity_warning_when_every_state_is_seen(asia):
    # the true graphs: lung's parent smoke takes both values with both states of lung
    rows = asia.sample(10_000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = ida(rows, dag_to_cpdag(asia.nodes, asia.edges), "lung", "dysp",
                  contrast=("yes", "no"), y_value="yes")
        over = effect_over_graphs(rows, [asia.edges], "lung", "dysp", contrast=("yes", "no"),
                                  y_value="yes", parameter_uncertainty=True, random_state=0)
        joint_ida(rows, asia.edges, ["lung", "bronc"], "dysp", x_values=["yes", "yes"])
    assert len(out) == 2 and not over.positivity_fails.any()


def test_ida_bad_input(asia):
    rows = asia.sample(100, random_state=0)
    cpdag = dag_to_cpdag(asia.nodes, asia.edges)
    with pytest.raises(ValueError, match="same node"):
        ida(rows, cpdag, "smoke", "smoke", x_value="yes")
    with pytest.raises(ValueError, match="unknown node 'nope'"):
        ida(rows, cpdag, "nope", "smoke", x_value="yes")
    with pytest.raises(ValueError, match="not a state.*'yes', 'no'|not a state"):
        ida(rows, cpdag, "smoke", "dysp", x_value="maybe")
    with pytest.raises(ValueError, match="exactly one of x_value"):
        ida(rows, cpdag, "smoke", "dysp")
    with pytest.raises(ValueError, match="not columns of X"):
        ida(rows.drop(columns="bronc"), cpdag, "smoke", "dysp", x_value="yes")
    with pytest.raises(ValueError, match="method"):
        ida(rows, cpdag, "smoke", "dysp", x_value="yes", method="both")
    with pytest.raises(ValueError, match="ess"):
        ida(rows, cpdag, "smoke", "dysp", x_value="yes", ess=-1)
    oriented = PDAG(cpdag.nodes, cpdag.directed + (("smoke", "lung"),),
                    [e for e in cpdag.undirected if e != ("smoke", "lung")])
    local = ida(rows, oriented, "smoke", "dysp", x_value="yes")  # background knowledge
    assert len(ida(rows, oriented, "smoke", "dysp", x_value="yes", method="global")) == 2
    assert len(local) == 2
    with pytest.raises(ValueError, match="more than max_dags=2"):
        ida(rows, cpdag, "smoke", "dysp", x_value="yes", method="global", max_dags=2)
    with pytest.raises(ValueError, match="give y_value"):
        frame = pd.DataFrame({"a": [0, 1, 2], "b": [0, 1, 2]})
        ida(frame, [("a", "b")], "a", "b", contrast=(1, 0))


def test_equivalent_dags_counts():
    assert len(equivalent_dags(PDAG("abcd", undirected=[("a", "b"), ("b", "c"), ("c", "d")]))) == 4
    full = PDAG("abc", undirected=[("a", "b"), ("b", "c"), ("a", "c")])
    assert len(equivalent_dags(full)) == 6
    assert equivalent_dags(PDAG("ab", directed=[("a", "b")])) == [[("a", "b")]]


# ---------------------------------------------------------------------------------------------
# effects over sampled graphs
# ---------------------------------------------------------------------------------------------
def test_effect_over_graphs_by_hand(asia):
    from skbn.causal import effect_over_graphs

    rows = asia.sample(3000, random_state=4)
    true_dag = asia.edges
    reversed_ = [(v, u) if (u, v) == ("smoke", "lung") else (u, v) for u, v in asia.edges]
    no_path = [e for e in asia.edges if e[0] != "smoke"]
    graphs = [true_dag, true_dag, reversed_, no_path]
    out = effect_over_graphs(rows, graphs, "smoke", "dysp", contrast=("yes", "no"),
                             y_value="yes", level=0.5, equivalence_class=False)
    expected = [ida(rows, g, "smoke", "dysp", contrast=("yes", "no"), y_value="yes")["effect"][0]
                for g in graphs[:3]] + [0.0]  # no directed path: no effect
    np.testing.assert_allclose(out.effects, expected, atol=1e-15)
    assert list(out.causes) == [True, True, True, False]
    assert out.prob_causes == 0.75
    assert out.estimate == pytest.approx(np.mean(expected))
    np.testing.assert_allclose(out.interval, np.quantile(expected, [0.25, 0.75],
                                                         method="inverted_cdf"))
    # x_value: the probability of y_value; a graph without a path gives P(y = y_value)
    prob = effect_over_graphs(rows, graphs, "smoke", "dysp", x_value="yes", y_value="yes",
                              equivalence_class=False)
    marginal = (rows["dysp"] == "yes").mean()
    assert abs(prob.effects[3] - marginal) < 1e-3  # smoothed by ess=1 over 3000 rows


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_effect_over_order_mcmc_samples_matches_its_ancestor_posterior(asia):
    from skbn import OrderMCMCStructure
    from skbn.causal import effect_over_graphs

    rows = asia.sample(1000, random_state=5)
    mcmc = OrderMCMCStructure(n_iter=300, random_state=0).fit(rows)
    out = effect_over_graphs(rows, mcmc, "smoke", "dysp", contrast=("yes", "no"),
                             y_value="yes", equivalence_class=False)
    assert len(out.effects) == len(mcmc.dag_samples_)
    assert out.prob_causes == pytest.approx(mcmc.ancestor_posterior_.loc["smoke", "dysp"])
    assert out.interval[0] <= out.estimate <= out.interval[1]


def test_effect_over_bootstrap_graphs(asia):
    from skbn import BootstrapStructure, HillClimbStructure
    from skbn.causal import effect_over_graphs

    rows = asia.sample(1000, random_state=6)
    boot = BootstrapStructure(HillClimbStructure(), n_resamples=6, keep_graphs=True,
                              random_state=0).fit(rows)
    out = effect_over_graphs(rows, boot, "smoke", "lung", contrast=("yes", "no"))
    assert out.weights.sum() == pytest.approx(1.0)
    assert out.interval[0] <= out.estimate <= out.interval[1]
    as_given = effect_over_graphs(rows, boot, "smoke", "lung", contrast=("yes", "no"),
                                  equivalence_class=False)
    assert len(as_given.effects) == 6
    with pytest.raises(ValueError, match="keep_graphs=True"):
        effect_over_graphs(rows, BootstrapStructure(HillClimbStructure(), n_resamples=2,
                                                    random_state=0).fit(rows),
                           "smoke", "lung", contrast=("yes", "no"))
    with pytest.raises(ValueError, match="give y_value"):
        effect_over_graphs(rows, boot, "smoke", "lung", x_value="yes")
    with pytest.raises(ValueError, match="empty"):
        effect_over_graphs(rows, [], "smoke", "lung", contrast=("yes", "no"))


@pytest.mark.parametrize("seed", range(10))
def test_is_adjustment_set_for_two_treatments_on_cpdags(seed):
    nodes, edges = random_dag(5, 0.5, random_state=300 + seed, shuffle=True)
    cpdag = dag_to_cpdag(nodes, edges)
    dags = _oracle_class(cpdag)
    for xs in itertools.combinations(nodes, 2):
        for y in nodes:
            if y in xs:
                continue
            rest = [v for v in nodes if v not in xs and v != y]
            any_valid = False
            for z in _subsets(rest):
                expected = all(_oracle_valid(nodes, d, xs, [y], z) for d in dags)
                assert is_adjustment_set(cpdag, list(xs), y, z) == expected, (cpdag, xs, y, z)
                any_valid |= expected
            try:
                o_set = optimal_adjustment_set(cpdag, list(xs), y)
            except ValueError:
                assert not any_valid
                continue
            assert (o_set is not None) == any_valid, (cpdag, xs, y)


def test_effect_parameter_uncertainty_matches_the_dirichlet_posterior():
    """One graph, many draws: the draws' mean and spread are those of the posterior of
    P(y=1 | do(x=1)) = sum_z P(z) P(y=1 | x=1, z), computed here by Monte Carlo with numpy's
    own Dirichlet sampler from the hand-made counts."""
    from skbn.causal import effect_over_graphs

    rng = np.random.default_rng(0)
    z = rng.integers(0, 2, 400)
    x = (rng.random(400) < 0.3 + 0.4 * z).astype(int)
    y = (rng.random(400) < 0.2 + 0.3 * x + 0.3 * z).astype(int)
    frame = pd.DataFrame({"z": z, "x": x, "y": y})
    dag = [("z", "x"), ("z", "y"), ("x", "y")]
    out = effect_over_graphs(frame, [dag] * 4000, "x", "y", x_value=1, y_value=1, ess=4.0,
                             parameter_uncertainty=True, random_state=0,
                             equivalence_class=False)
    a = 4.0 / (2 * 2 * 2)
    n_z = np.bincount(z, minlength=2)
    reference = np.zeros(20000)
    p_z = rng.dirichlet(n_z + 4.0 / 2, size=20000)
    for s in (0, 1):
        counts = np.bincount(y[(z == s) & (x == 1)], minlength=2)
        reference += p_z[:, s] * rng.dirichlet(counts + a, size=20000)[:, 1]
    assert abs(out.effects.mean() - reference.mean()) < 3e-3
    assert abs(out.effects.std() - reference.std()) < 3e-3
    point = effect_over_graphs(frame, [dag], "x", "y", x_value=1, y_value=1, ess=4.0,
                               equivalence_class=False)
    assert abs(point.effects[0] - reference.mean()) < 3e-3
    same = effect_over_graphs(frame, [dag] * 5, "x", "y", x_value=1, y_value=1, ess=4.0,
                              parameter_uncertainty=True, random_state=0,
                              equivalence_class=False)
    np.testing.assert_array_equal(same.effects, out.effects[:5])  # seeded
    with pytest.raises(ValueError, match="ess > 0"):
        effect_over_graphs(frame, [dag], "x", "y", x_value=1, y_value=1, ess=0,
                           parameter_uncertainty=True)


def test_a_fitted_dag_learner_gives_its_edges(asia):
    from skbn import HillClimbStructure

    rows = asia.sample(2000, random_state=7)
    hc = HillClimbStructure().fit(rows)
    a = ida(rows, hc, "lung", "dysp", x_value="yes")
    b = ida(rows, hc.edges_, "lung", "dysp", x_value="yes")
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 1
    assert is_adjustment_set(hc, "lung", "dysp", backdoor_adjustment_set(hc, "lung", "dysp"))


def test_effect_over_one_graph_class_is_global_ida_weighted_by_dags(asia):
    """One DAG standing for its class: its values are global IDA's, weighted n_dags / size,
    except that DAGs without a directed path smoke -> dysp give exactly 0. Only smoke's chain
    component is enumerated (3 orientations of the 6 DAGs), with the same distribution."""
    from skbn.causal import effect_over_graphs

    rows = asia.sample(3000, random_state=8)
    out = effect_over_graphs(rows, [asia.edges], "smoke", "dysp", contrast=("yes", "no"),
                             y_value="yes")
    dags = equivalent_dags(dag_to_cpdag(asia.nodes, asia.edges))
    assert len(dags) == 6 and len(out.effects) == 3  # smoke - lung, smoke - bronc: 3 orientations
    np.testing.assert_allclose(out.weights, 1 / 3)
    glob = ida(rows, dag_to_cpdag(asia.nodes, asia.edges), "smoke", "dysp",
               contrast=("yes", "no"), y_value="yes", method="global")
    expected = []
    for dag in dags:
        parents = tuple(p for p, c in dag if c == "smoke")
        causes = "dysp" in dag_descendants(dag, "smoke")
        expected.append(glob.loc[glob["parents"] == parents, "effect"].iloc[0] if causes else 0.0)
    # the same distribution: each value's weight is its share of the class's DAGs
    ours, theirs = {}, {}
    for value, weight in zip(out.effects, out.weights):
        ours[round(float(value), 12)] = ours.get(round(float(value), 12), 0.0) + weight
    for value in expected:
        theirs[round(float(value), 12)] = theirs.get(round(float(value), 12), 0.0) + 1 / len(dags)
    assert ours.keys() == theirs.keys()
    for value in ours:
        assert ours[value] == pytest.approx(theirs[value], abs=1e-12)
    assert out.prob_causes == pytest.approx(np.mean([e != 0 for e in expected]))
    # order-free: twice the same graph gives the same distribution
    twice = effect_over_graphs(rows, [asia.edges] * 2, "smoke", "dysp",
                               contrast=("yes", "no"), y_value="yes")
    assert twice.estimate == pytest.approx(out.estimate)
    assert twice.interval == out.interval


def test_dirichlet_draws_survive_gamma_underflow():
    """Tiny shapes (an unobserved configuration of many parents) make every gamma variate
    of a row underflow to 0; the draw must still be a distribution. As a -> 0,
    Dirichlet(a c) puts all its mass on vertex k with probability c_k / sum(c)."""
    from skbn.causal import _dirichlet

    rng = np.random.RandomState(0)
    alpha = np.tile(1e-6 * np.array([1.0, 2.0, 3.0]), (20000, 1))
    draws = _dirichlet(rng, alpha)
    assert np.isfinite(draws).all()
    np.testing.assert_allclose(draws.sum(axis=1), 1.0)
    vertex = draws.argmax(axis=1)
    assert (draws.max(axis=1) > 1 - 1e-6).mean() > 0.99
    np.testing.assert_allclose(np.bincount(vertex, minlength=3) / len(vertex),
                               [1 / 6, 2 / 6, 3 / 6], atol=0.015)
    # rows that do not underflow keep their normalised gamma variates
    mixed = np.array([[2.0, 3.0], [1e-7, 1e-7]])
    g = np.random.RandomState(1).standard_gamma(mixed)
    assert g[1].sum() == 0  # the second row underflows
    draws = _dirichlet(np.random.RandomState(1), mixed)
    np.testing.assert_array_equal(draws[0], g[0] / g[0].sum())
    assert np.isfinite(draws[1]).all() and draws[1].sum() == pytest.approx(1.0)


def _ambiguous_collider_rows():
    """60 rows of a -> c <- b, c -> d (coefficients 0.7, 0.3, 0.6), rounded to 2 decimals.
    PCStructure's default majority rule finds the triples a - c - d and b - c - d ambiguous
    (c in half of the separating sets of a and d, and of b and d) and leaves c - d
    undirected, which Meek's R1 (a -> c - d) orients c -> d; orient='standard' reads them as
    colliders (d -> c)."""
    rng = np.random.default_rng(293)
    a, b = rng.normal(size=60), rng.normal(size=60)
    c = 0.7 * a + 0.3 * b + rng.normal(size=60)
    d = 0.6 * c + rng.normal(size=60)
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d}).round(2)


def test_learner_with_ambiguous_triples_is_refused():
    """A PC graph left unoriented by ambiguous triples is not a CPDAG; the causal functions
    read it as a CPDAG with background knowledge and silently took the non-collider reading:
    ida(c -> d) returned the one effect 0.499 (c causes d for sure), where the collider
    reading the data equally allow (d -> c, orient='standard') gives 0. Now refused, naming
    the edge and the ways out; meek_orient takes the non-collider reading knowingly."""
    from skbn import PCStructure

    rows = _ambiguous_collider_rows()
    pc = PCStructure().fit(rows)
    assert pc.cpdag_.undirected == (("c", "d"),) and meek_orient(pc.cpdag_) != pc.cpdag_
    for call in (lambda: ida(rows, pc, "c", "d"), lambda: joint_ida(rows, pc, ["a", "c"], "d"),
                 lambda: optimal_adjustment_set(pc, "c", "d"),
                 lambda: is_adjustment_set(pc, "c", "d", ["a", "b"])):
        with pytest.raises(ValueError, match=r"leaves 'c' - 'd' undirected.*'c' -> 'd'.*"
                                             r"orient='majority'.*ambiguous.*orient='standard'"):
            call()
    # the two readings, each by hand (least squares with numpy)
    design = np.column_stack([np.ones(60), rows[["c", "a", "b"]]])
    by_hand = np.linalg.lstsq(design, rows["d"].to_numpy(), rcond=None)[0][1]
    closed = ida(rows, meek_orient(pc.cpdag_), "c", "d")
    assert closed["parents"].tolist() == [("a", "b")]
    assert closed["effect"].tolist() == pytest.approx([by_hand], rel=1e-12)
    assert by_hand == pytest.approx(0.498956, abs=1e-6)
    standard = PCStructure(orient="standard").fit(rows)
    assert set(standard.cpdag_.directed) == {("a", "c"), ("b", "c"), ("d", "c")}
    assert ida(rows, standard, "c", "d")["effect"].tolist() == [0.0]
