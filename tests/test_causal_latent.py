"""Adjustment sets with unmeasured (``latent=``) nodes.

The rule: an adjustment set of measured nodes exists iff the canonical set ``Adjust(X, Y) =
PossAn(X u Y) \\ (X u Y u Forb(X, Y) u L)`` is valid (van der Zander, Liśkiewicz & Textor
2014, 2019, on a DAG). Checked here against brute force (every subset of the measured nodes
tested with ``is_adjustment_set``) on random DAGs and CPDAGs, and on M-bias with pcalg
2.7-12's ``gac``.
"""

import random
from itertools import combinations

import pytest

from skbn.causal import backdoor_adjustment_set, is_adjustment_set, optimal_adjustment_set
from skbn.graph import dag_to_cpdag, meek_orient

# M-bias: u1 and u2 unmeasured, m a collider between them (a pre-treatment covariate).
# pcalg 2.7-12, nodes 1 = u1, 2 = u2, 3 = m, 4 = x, 5 = y, amat[i, j] = 1: i -> j,
#   gac(t(amat), 4, 5, z, type = "dag")$gac
# is TRUE for z = {}, {u1}, {u2}, {u1, m}, {u2, m} and FALSE for z = {m}.
M_BIAS = [("u1", "x"), ("u1", "m"), ("u2", "m"), ("u2", "y"), ("x", "y")]


def test_m_bias_with_latent_nodes():
    latent = ["u1", "u2"]
    assert is_adjustment_set(M_BIAS, "x", "y", [], latent=latent)
    assert not is_adjustment_set(M_BIAS, "x", "y", ["m"], latent=latent)
    # pa(x) = {u1} is latent: the measured canonical set An({x, y}) \ {x, y, u1, u2} = {}
    assert backdoor_adjustment_set(M_BIAS, "x", "y") == ["u1"]
    assert backdoor_adjustment_set(M_BIAS, "x", "y", latent=latent) == []
    # O = pa(y) \ forb = {u2}: unmeasured, and a measured set (the empty one) is valid
    assert optimal_adjustment_set(M_BIAS, "x", "y") == ["u2"]
    with pytest.raises(ValueError, match=r"latent node\(s\) \['u2'\].*measured set \[\] is valid"):
        optimal_adjustment_set(M_BIAS, "x", "y", latent=latent)
    # one latent node only: O = {u2} is measured, hence optimal among the measured sets
    assert optimal_adjustment_set(M_BIAS, "x", "y", latent=["u1"]) == ["u2"]


def test_latent_nodes_in_x_y_z_are_refused_by_name():
    with pytest.raises(ValueError, match=r"z and latent must be disjoint; both contain \['u1'\]"):
        is_adjustment_set(M_BIAS, "x", "y", ["u1", "m"], latent=["u1", "u2"])
    for f in (backdoor_adjustment_set, optimal_adjustment_set):
        with pytest.raises(ValueError, match=r"x and latent must be disjoint; both contain \['x'\]"):
            f(M_BIAS, "x", "y", latent=["x"])
        with pytest.raises(ValueError, match=r"y and latent must be disjoint"):
            f(M_BIAS, "x", "y", latent="y")  # a node is one node
        with pytest.raises(ValueError, match="unknown node 'w' in latent"):
            f(M_BIAS, "x", "y", latent=["w"])


def test_no_measured_set():
    """A latent confounder u of x and y: no set adjusts; the measured mediator-free
    covariate a (a cause of x only) does not help."""
    edges = [("u", "x"), ("u", "y"), ("a", "x"), ("x", "y")]
    assert backdoor_adjustment_set(edges, "x", "y", latent=["u"]) is None
    assert optimal_adjustment_set(edges, "x", "y", latent=["u"]) is None
    assert optimal_adjustment_set(edges, "x", "y") == ["u"]


def _random_cases(seed, n_cases):
    """``(graph, nodes, xs, ys, latent)`` on random DAGs, their CPDAGs and these with some
    true orientations as background knowledge (maximally oriented PDAGs), 4-7 nodes, one or
    two treatments, 1-2 latent nodes (a parent of a treatment when it has one, mostly)."""
    rng = random.Random(seed)
    cases = []
    while len(cases) < n_cases:
        n = rng.randint(4, 7)
        order = list(range(n))
        rng.shuffle(order)
        p = rng.uniform(0.25, 0.6)
        edges = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)
                 if rng.random() < p]
        xs = rng.sample(range(n), rng.choice((1, 1, 2)))
        ys = [rng.choice([v for v in range(n) if v not in xs])]
        rest = [v for v in range(n) if v not in xs + ys]
        parents = [u for u, v in edges if v in xs and u in rest]
        latent = set(rng.sample(rest, min(len(rest), rng.randint(1, 2))))
        if parents and rng.random() < 0.7:
            latent = (latent - {next(iter(latent))}) | {rng.choice(parents)}
        cpdag = dag_to_cpdag(range(n), edges)
        undirected = {frozenset(e) for e in cpdag.undirected}
        known = [e for e in edges if frozenset(e) in undirected and rng.random() < 0.4]
        for graph in (edges, cpdag, meek_orient(cpdag, required=known)):
            cases.append((graph, list(range(n)), xs, ys, sorted(latent)))
    return cases


def test_measured_sets_against_brute_force():
    counts = {"backdoor_none": 0, "backdoor_adjust": 0, "o_set": 0, "o_latent": 0, "none": 0}
    for graph, nodes, xs, ys, latent in _random_cases(7, 1200):
        try:
            backdoor = backdoor_adjustment_set(graph, xs, ys, nodes=nodes, latent=latent)
        except ValueError as exc:  # a CPDAG not amenable for (xs, ys): no set at all
            assert "not adjustment amenable" in str(exc)
            continue
        measured = [v for v in nodes if v not in xs + ys + latent]
        valid = [set(z) for k in range(len(measured) + 1) for z in combinations(measured, k)
                 if is_adjustment_set(graph, xs, ys, z, nodes=nodes)]
        directed = getattr(graph, "directed", graph)
        if any(u in latent for u, v in directed if v in xs and u not in xs):
            # a latent parent: the canonical measured set, returned iff some measured set is valid
            assert (backdoor is not None) == bool(valid)
            counts["backdoor_adjust" if valid else "backdoor_none"] += 1
        else:  # latent= changes nothing
            assert backdoor == backdoor_adjustment_set(graph, xs, ys, nodes=nodes)
        if backdoor is not None:
            assert set(backdoor) in valid
        try:
            optimal = optimal_adjustment_set(graph, xs, ys, nodes=nodes, latent=latent)
        except ValueError as exc:  # O holds a latent node while a measured set is valid
            assert valid and "holds the latent" in str(exc)
            counts["o_latent"] += 1
            continue
        if optimal is None:
            assert not valid
            counts["none"] += 1
        else:
            assert set(optimal) in valid
            counts["o_set"] += 1
    assert min(counts.values()) >= 5, counts


def test_latent_none_and_empty_agree():
    for graph, nodes, xs, ys, _ in _random_cases(3, 60):
        for f in (backdoor_adjustment_set, optimal_adjustment_set):
            try:
                expected = f(graph, xs, ys, nodes=nodes)
            except ValueError:
                continue
            assert f(graph, xs, ys, nodes=nodes, latent=[]) == expected
