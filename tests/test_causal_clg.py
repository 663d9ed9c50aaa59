"""Effects on mixed (conditional linear Gaussian) data: ida, joint_ida and effect_over_graphs
answer over the DAGs of the class that respect the conditional-Gaussian rule (a discrete node
never has a continuous parent), checked against a brute-force enumeration of the class
filtered by the rule and against hand-computed adjustments."""

import re
from itertools import product

import numpy as np
import pandas as pd
import pytest
from conftest import dag_descendants

from skbn.causal import effect_over_graphs, equivalent_dags, ida, joint_ida
from skbn.cli import main
from skbn.graph import PDAG, dag_to_cpdag, random_dag

# the random tables are small (a few rows per configuration): the parent sets and the
# adjustment are compared, positivity gaps are expected there
pytestmark = pytest.mark.filterwarnings("ignore::skbn.exceptions.PositivityWarning")


def clg_dags(cpdag, continuous):
    """Brute force: the DAGs of the class of ``cpdag`` with no edge continuous -> discrete."""
    return [dag for dag in equivalent_dags(cpdag, max_dags=10_000)
            if not any(continuous[u] and not continuous[v] for u, v in dag)]


def mixed_rows(nodes, continuous, n=60, seed=0):
    """Independent columns: three-state discrete ones and Gaussian ones (the parent sets,
    not the numbers, are compared)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({v: rng.normal(size=n) if continuous[v] else rng.integers(0, 3, n)
                         for v in nodes})


def parent_counts(dags, xs):
    counts = {}
    for dag in dags:
        key = tuple(tuple(sorted(u for u, v in dag if v == x)) for x in xs)
        counts[key] = counts.get(key, 0) + 1
    return counts


def hand_adjusted(rows, x, y, z, treated, control, y_value, ess=1.0):
    """P(y=y_value | do(x=treated)) - P(... control) by the adjustment formula over ``z``,
    with the BDeu posterior mean of P(y | x, z) (pseudocount ess / (q_z r_x r_y) per cell)
    and the empirical P(z), written out with pandas."""
    r_x, r_y = rows[x].nunique(), rows[y].nunique()
    q_z = int(np.prod([rows[c].nunique() for c in z])) if z else 1
    a = ess / (q_z * r_x * r_y)
    groups = rows.groupby(list(z)) if z else [((), rows)]
    out = 0.0
    for _, part in groups:
        p_z = len(part) / len(rows)
        for state, sign in ((treated, 1), (control, -1)):
            cell = part[part[x] == state]
            out += sign * p_z * ((cell[y] == y_value).sum() + a) / (len(cell) + r_y * a)
    return out


def node_order(dag, nodes):
    """Sorted id pairs as the graph's node positions give them (equivalent_dags' order)."""
    return sorted(dag, key=lambda e: (nodes.index(e[0]), nodes.index(e[1])))


def test_parent_sets_are_those_of_the_class_dags_that_respect_the_rule():
    # random 6-node DAGs and random column types (classes whose directed edges respect the
    # rule): for every discrete x (and a discrete y), local and global IDA's parent sets
    # (global: with their number of DAGs) are those of a brute-force enumeration of the
    # class's DAGs without an edge continuous -> discrete; with none left (the rule cannot
    # orient the undirected edges all at once), ida refuses, saying no DAG of the class is a
    # CLG network
    rng = np.random.default_rng(1)
    checked = refused = 0
    for seed in range(60):
        nodes, edges = random_dag(6, 0.5, random_state=seed, shuffle=True)
        cpdag = dag_to_cpdag(nodes, edges)
        if not cpdag.undirected:
            continue
        continuous = dict(zip(nodes, rng.random(6) < 0.4))
        if all(continuous.values()) or not any(continuous.values()):
            continue
        if any(continuous[u] and not continuous[v] for u, v in cpdag.directed):
            continue  # (the graph's own edge c -> d: refused where an effect uses it, below)
        rows = mixed_rows(nodes, continuous, seed=seed)
        allowed = clg_dags(cpdag, continuous)
        discrete = [v for v in nodes if not continuous[v]]
        for x, y in product(discrete, discrete):
            if x == y:
                continue
            if not allowed:
                with pytest.raises(ValueError, match="conditional linear Gaussian network"):
                    ida(rows, cpdag, x, y, x_value=0)
                refused += 1
                continue
            expected = {k[0]: n for k, n in parent_counts(allowed, [x]).items()}
            every = ida(rows, cpdag, x, y, x_value=0, method="global")
            assert dict(zip(every["parents"], every["n_dags"])) == expected
            local = ida(rows, cpdag, x, y, x_value=0)
            if y in {u for u, v in cpdag.directed if v == x}:  # one row: "no effect"
                assert len(local) == 1 and local["y_is_parent"].all()
            else:
                assert sorted(local["parents"]) == sorted(expected)
            checked += 1
    assert checked > 100 and refused > 0


def test_joint_parent_sets_are_those_of_the_class_dags_that_respect_the_rule():
    # two discrete treatments: joint_ida's combinations (local, and global with counts)
    rng = np.random.default_rng(2)
    checked = 0
    for seed in range(150):
        nodes, edges = random_dag(5, 0.6, random_state=100 + seed, shuffle=True)
        cpdag = dag_to_cpdag(nodes, edges)
        continuous = dict(zip(nodes, rng.random(5) < 0.4))
        discrete = [v for v in nodes if not continuous[v]]
        if len(discrete) < 3 or len(discrete) == 5 or not cpdag.undirected:
            continue
        allowed = clg_dags(cpdag, continuous)
        if not allowed or any(continuous[u] and not continuous[v] for u, v in cpdag.directed):
            continue
        rows = mixed_rows(nodes, continuous, seed=seed)
        xs, y = discrete[:2], discrete[2]
        expected = parent_counts(allowed, xs)
        try:
            every = joint_ida(rows, cpdag, xs, y, x_values=[0, 0], method="global")
        except ValueError as exc:  # a combination the joint adjustment cannot answer
            assert "sequential g-formula" in str(exc)
            continue
        assert dict(zip(every["parents"], every["n_dags"])) == expected
        local = joint_ida(rows, cpdag, xs, y, x_values=[0, 0])
        assert sorted(local["parents"]) == sorted(expected)
        checked += 1
    assert checked > 5


def test_effects_equal_the_hand_adjustment_over_the_rule_respecting_dags():
    # c continuous, a, b, x, y discrete: the class of a -> x -> y, b -> x, a - b, x -> c...
    # a small skeleton with undirected edges at x, one to the continuous c
    rng = np.random.default_rng(3)
    n = 400
    a = rng.integers(0, 2, n)
    x = (rng.random(n) < 0.3 + 0.4 * a).astype(int)
    y = (rng.random(n) < 0.2 + 0.5 * x + 0.2 * a).astype(int)
    c = 1.0 + x + rng.normal(size=n)
    rows = pd.DataFrame({"a": a, "c": c, "x": x, "y": y})
    nodes = ["a", "c", "x", "y"]
    cpdag = PDAG(nodes, undirected=[("a", "x"), ("c", "x"), ("x", "y"), ("a", "y")])
    continuous = {"a": False, "c": True, "x": False, "y": False}
    allowed = clg_dags(cpdag, continuous)
    # every DAG of the class respecting the rule has x -> c
    assert allowed and all(("x", "c") in dag for dag in allowed)
    assert len(allowed) < len(equivalent_dags(cpdag))
    out = ida(rows, cpdag, "x", "y", contrast=(1, 0), method="global")
    expected = {}
    for dag in allowed:
        parents = tuple(sorted(u for u, v in dag if v == "x"))
        if "y" in parents:
            expected[parents] = 0.0
        else:
            expected[parents] = hand_adjusted(rows, "x", "y", parents, 1, 0, 1)
    got = dict(zip(out["parents"], out["effect"]))
    assert got.keys() == expected.keys()
    for parents, value in expected.items():
        assert got[parents] == pytest.approx(value, abs=1e-12)
    # effect_over_graphs: one entry per DAG of the restricted class, equal weights
    summary = effect_over_graphs(rows, [allowed[0]], "x", "y", contrast=(1, 0), y_value=1)
    per_dag = []
    for dag in allowed:
        parents = tuple(sorted(u for u, v in dag if v == "x"))
        causes = "y" in dag_descendants(dag, "x")
        per_dag.append(hand_adjusted(rows, "x", "y", parents, 1, 0, 1) if causes else 0.0)
    np.testing.assert_allclose(np.sort(summary.effects), np.sort(per_dag), atol=1e-12)
    np.testing.assert_allclose(summary.weights, 1 / len(allowed))
    # joint_ida with one treatment gives ida's sets and effects
    joint = joint_ida(rows, cpdag, ["x"], "y", contrast=((1,), (0,)), method="global")
    assert dict(zip((p[0] for p in joint["parents"]), joint["effect"])) == pytest.approx(got)


def test_a_class_with_no_clg_dag_and_a_directed_continuous_parent_are_refused():
    rng = np.random.default_rng(4)
    rows = pd.DataFrame({"d1": rng.integers(0, 2, 50), "c": rng.normal(size=50),
                         "d2": rng.integers(0, 2, 50)})
    # d1 - c - d2 (no v-structure): the rule needs d1 -> c <- d2, a new v-structure
    chain = PDAG(["d1", "c", "d2"], undirected=[("d1", "c"), ("c", "d2")])
    assert clg_dags(chain, {"d1": False, "c": True, "d2": False}) == []
    for call in (lambda: ida(rows, chain, "d1", "d2", x_value=0),
                 lambda: joint_ida(rows, chain, ["d1"], "d2", x_values=[0]),
                 lambda: effect_over_graphs(rows, [[("d1", "c"), ("c", "d2")]], "d1", "d2",
                                            contrast=(1, 0))):
        with pytest.raises(ValueError, match=r"no DAG of the graph's equivalence class is a "
                                             r"conditional linear Gaussian.*'d1' -> 'c'"):
            call()
    # a graph that itself gives the treatment a continuous parent (directed c -> d1): named
    for call in (lambda: ida(rows, [("c", "d1"), ("d1", "d2")], "d1", "d2", x_value=0),
                 lambda: joint_ida(rows, [("c", "d1"), ("d1", "d2")], ["d1"], "d2", x_values=[0]),
                 lambda: effect_over_graphs(rows, [[("c", "d1"), ("d1", "d2")]], "d1", "d2",
                                            contrast=(1, 0), equivalence_class=False)):
        with pytest.raises(ValueError, match=r"edge\(s\) 'c' -> 'd1' .*from a continuous "
                                             r"column into a discrete one"):
            call()


#: statsmodels 0.15.0's spector data set (statsmodels/datasets/spector/spector.csv, the OBS
#: column dropped): GPA continuous, TUCE a whole-number score, PSI and GRADE 0/1.
SPECTOR = """GPA,TUCE,PSI,GRADE
2.66,20,0,0
2.89,22,0,0
3.28,24,0,0
2.92,12,0,0
4.0,21,0,1
2.86,17,0,0
2.76,17,0,0
2.87,21,0,0
3.03,25,0,0
3.92,29,0,1
2.63,20,0,0
3.32,23,0,0
3.57,23,0,0
3.26,25,0,1
3.53,26,0,0
2.74,19,0,0
2.75,25,0,0
2.83,19,0,0
3.12,23,1,0
3.16,25,1,1
2.06,22,1,0
3.62,28,1,1
2.89,14,1,0
3.51,26,1,0
3.54,24,1,1
2.83,27,1,1
3.39,17,1,1
2.67,24,1,0
3.65,21,1,1
4.0,23,1,1
3.1,21,1,0
2.39,19,1,1
"""


def test_spector_effect_of_psi_on_grade_is_answered(tmp_path, capsys):
    # `skbn effect spector.csv --x PSI --y GRADE` refused: the classes of the learned graphs
    # made the continuous GPA a candidate parent of PSI (PSI - GPA undirected), a DAG that
    # is no CLG network. It now answers over the DAGs that respect the rule (PSI -> GPA)
    path = tmp_path / "spector.csv"
    path.write_text(SPECTOR)
    rows = pd.read_csv(path)
    status = main(["effect", str(path), "--x", "PSI", "--y", "GRADE", "--contrast", "1,0",
                   "--n-resamples", "10", "--random-state", "0"])
    out = capsys.readouterr().out
    assert status == 0, out
    # the learned class leaves PSI's parents (none) and (GRADE): the contrast with no parent
    # is the smoothed conditional difference (8 of 14 with PSI=1 have GRADE=1, 3 of 18 with
    # PSI=0; pseudocount 1/4 per cell): (8.25/14.5) - (3.25/18.5) = 0.3933
    assert hand_adjusted(rows, "PSI", "GRADE", (), 1, 0, 1) == pytest.approx(8.25 / 14.5 - 3.25 / 18.5)
    assert re.search(r"\(none\)\s+0\.3933", out), out
    assert "mean effect" in out and "P(PSI causes GRADE)" in out
    # the same class through the library: PSI's parents never include GPA
    graph = dag_to_cpdag(["GPA", "PSI", "GRADE"], [("GRADE", "PSI"), ("PSI", "GPA")])
    assert ("GPA", "PSI") in graph.undirected
    out = ida(rows, graph, "PSI", "GRADE", contrast=(1, 0), method="global")
    assert out["parents"].tolist() == [(), ("GRADE",)] and out["n_dags"].tolist() == [1, 1]
    assert out["effect"].iloc[0] == pytest.approx(8.25 / 14.5 - 3.25 / 18.5)


def test_joint_ida_local_on_a_pdag_with_background_knowledge():
    # joint_ida's local method refused a PDAG with background knowledge ("use
    # method='global'"), which the CLG class is on mixed data; it now checks the
    # combinations of all the treatments together: the distinct combinations equal a brute
    # force over the class's DAGs that have the required edge
    from skbn.graph import meek_orient

    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(80):
        nodes, edges = random_dag(6, 0.5, random_state=seed, shuffle=True)
        cpdag = dag_to_cpdag(nodes, edges)
        if len(cpdag.undirected) < 2:
            continue
        u, v = cpdag.undirected[rng.integers(len(cpdag.undirected))]
        required = (u, v) if (u, v) in edges else (v, u)
        pdag = meek_orient(cpdag, required=[required])
        if not pdag.undirected:
            continue
        rows = pd.DataFrame({n: rng.normal(size=100) for n in nodes})
        xs = [str(v) for v in rng.choice(nodes, 2, replace=False)]
        y = next(n for n in nodes if n not in xs)
        brute = {tuple(tuple(sorted(a for a, b in dag if b == x)) for x in xs)
                 for dag in equivalent_dags(cpdag) if required in dag}
        assert set(joint_ida(rows, pdag, xs, y)["parents"]) == brute
        checked += 1
    assert checked > 30


def test_effect_over_graphs_is_the_distribution_over_the_rule_respecting_dags():
    # random 6-node classes with several chain components and random column types:
    # effect_over_graphs enumerates only x's component (restricted by the rule), each
    # orientation with an equal weight; the distribution of the effect (weight per value),
    # its mean and P(x causes y) equal those over every DAG of the class that respects the
    # rule (brute force), each effect the hand adjustment for the DAG's parents of x
    rng = np.random.default_rng(6)
    checked = 0
    for seed in range(120):
        nodes, edges = random_dag(6, 0.4, random_state=200 + seed, shuffle=True)
        cpdag = dag_to_cpdag(nodes, edges)
        continuous = dict(zip(nodes, rng.random(6) < 0.35))
        discrete = [v for v in nodes if not continuous[v]]
        if len(discrete) < 2 or len(discrete) == 6 or not cpdag.undirected:
            continue
        if any(continuous[u] and not continuous[v] for u, v in cpdag.directed):
            continue
        allowed = clg_dags(cpdag, continuous)
        if not allowed:
            continue
        rows = mixed_rows(nodes, continuous, n=80, seed=seed)
        rows[discrete] = rows[discrete] % 2  # (two states: a contrast 1 vs 0)
        x, y = discrete[:2]
        summary = effect_over_graphs(rows, [edges], x, y, contrast=(1, 0), y_value=1)
        expected = {}
        for dag in allowed:
            parents = tuple(sorted(u for u, v in dag if v == x))
            value = hand_adjusted(rows, x, y, parents, 1, 0, 1) if y in dag_descendants(dag, x) else 0.0
            key = round(value, 9)
            expected[key] = expected.get(key, 0.0) + 1 / len(allowed)
        got = {}
        for value, weight in zip(summary.effects, summary.weights):
            got[round(value, 9)] = got.get(round(value, 9), 0.0) + weight
        assert got.keys() == expected.keys()
        assert [got[k] for k in sorted(got)] == pytest.approx([expected[k] for k in sorted(got)])
        assert summary.prob_causes == pytest.approx(
            np.mean([y in dag_descendants(dag, x) for dag in allowed]))
        checked += 1
    assert checked > 20


def test_an_array_with_declared_types_reads_the_same_class():
    # the chain 0 - 1 - 2 - 3 with 0, 1 discrete and 2, 3 continuous: the rule gives 1 -> 2,
    # then Meek's R1 2 -> 3; of the class's 4 DAGs two remain (0 -> 1 or 1 -> 0), whatever
    # the form of column_types (a dict naming some positions, a list, the rule)
    rng = np.random.default_rng(7)
    d0 = rng.integers(0, 2, 300)
    d1 = (rng.random(300) < 0.3 + 0.4 * d0).astype(int)
    c2 = d1 + rng.normal(size=300)
    X = np.column_stack([d0, d1, c2, c2 + rng.normal(size=300)]).astype(float)
    cpdag = dag_to_cpdag([0, 1, 2, 3], [(0, 1), (1, 2), (2, 3)])
    assert len(equivalent_dags(cpdag)) == 4
    for types in ("auto", {0: "discrete", 1: "discrete", 3: "continuous"},
                  ["discrete", "discrete", "continuous", "continuous"]):
        out = ida(X, cpdag, 1, 0, x_value=1.0, column_types=types, method="global")
        assert out["parents"].tolist() == [(), (0,)] and out["n_dags"].tolist() == [1, 1]
