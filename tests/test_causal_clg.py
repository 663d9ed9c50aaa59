"""Effects on mixed (conditional linear Gaussian) data: ida, joint_ida and effect_over_graphs
answer over the DAGs of the class that respect the conditional-Gaussian rule (a discrete node
never has a continuous parent), checked against a brute-force enumeration of the class
filtered by the rule and against hand-computed adjustments; and the effect of a continuous x
on a continuous y with discrete parents of x (the coefficient averaged over their strata),
checked against a CLG network's analytic effect, least squares by numpy and R's lm."""

import io
import re
import warnings
from itertools import product

import numpy as np
import pandas as pd
import pytest
from conftest import dag_descendants

from skbn.causal import effect_over_graphs, equivalent_dags, ida, joint_ida
from skbn.cli import main
from skbn.graph import PDAG, dag_to_cpdag, random_dag, topological_order

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


# ---------------------------------------------------------------------------------------------
# continuous x and y with discrete parents: the coefficient averaged over the strata
# ---------------------------------------------------------------------------------------------
#: A CLG network (A, W discrete; C, x, M, y continuous) whose coefficients into M and y change
#: with W, a discrete variable outside x's parents {A, C}: E[y | x, A, C] is then not linear in
#: C (it mixes the W-specific lines with weights P(W | A, C)).
CLG_DAG = [("A", "W"), ("A", "C"), ("W", "C"), ("A", "x"), ("C", "x"), ("x", "M"), ("W", "M"),
           ("x", "y"), ("M", "y"), ("C", "y"), ("W", "y")]
#: Its total effect of x on y: per configuration of W the sum over the paths x -> y and
#: x -> M -> y of the products of the W-specific coefficients (W=0: 0.5 + 1.0 * 0.7 = 1.2;
#: W=1: -1.0 + 2.0 * 0.7 = 0.4), averaged with P(W=1) = 0.3 * 0.7 + 0.7 * 0.2 = 0.35
CLG_EFFECT = 0.65 * 1.2 + 0.35 * 0.4


def clg_rows(n, seed):
    rng = np.random.default_rng(seed)
    a = (rng.random(n) < 0.3).astype(int)
    w = (rng.random(n) < np.where(a == 1, 0.7, 0.2)).astype(int)
    c = 1.0 * a + 2.0 * w + rng.normal(size=n)
    x = 0.5 + 1.0 * a + np.where(a == 0, 0.8, -0.5) * c + rng.normal(size=n)
    m = np.where(w == 0, 1.0, 2.0) * x + rng.normal(size=n)
    y = np.where(w == 0, 0.5, -1.0) * x + 0.7 * m + 1.5 * c + 2.0 * w + rng.normal(size=n)
    return pd.DataFrame({"A": a, "W": w, "C": c, "x": x, "M": m, "y": y})


def stratified_ols(rows, x, y, continuous, discrete, weights=None):
    """By hand with numpy: the weighted least-squares coefficient of x in the regression of
    y on (1, x, continuous) within each configuration of the discrete columns (their own
    intercepts and slopes), averaged with the configurations' shares of the weight; and
    its standard error: HC0 sandwich variances of the strata's coefficients (the
    regression of y is misspecified in C when a discrete variable outside the strata
    changes coefficients) plus the multinomial variance of the shares."""
    w = np.ones(len(rows)) if weights is None else np.asarray(weights, dtype=float)
    groups = rows.groupby(list(discrete)).indices if discrete else {(): np.arange(len(rows))}
    shares, betas, variances = [], [], []
    for index in groups.values():
        part, pw = rows.iloc[index], w[index]
        design = np.column_stack([np.ones(len(part)), part[x]] + [part[c] for c in continuous])
        root = np.sqrt(pw)[:, None]
        coef = np.linalg.lstsq(design * root, part[y].to_numpy() * root[:, 0], rcond=None)[0]
        residual = part[y].to_numpy() - design @ coef
        bread = np.linalg.inv(design.T @ (pw[:, None] * design))
        meat = (design * (pw * residual ** 2)[:, None]).T @ design
        shares.append(pw.sum() / w.sum())
        betas.append(coef[1])
        variances.append((bread @ meat @ bread)[1, 1])
    shares, betas = np.array(shares), np.array(betas)
    effect = float(shares @ betas)
    variance = shares ** 2 @ np.array(variances) + (shares @ betas ** 2 - effect ** 2) / w.sum()
    return effect, float(np.sqrt(variance))


def test_continuous_effect_with_discrete_parents_is_the_clg_path_average():
    # 200,000 rows of the CLG network above: ida's effect of x on y (parents A, C) is the
    # stratified least squares computed by hand, and within 4 standard errors of the
    # analytic effect 0.92; a pooled regression with a dummy for A (common slopes) is not
    # (0.843: it weighs the strata by the residual variance of x, whose slope on C changes
    # with A)
    # (the "global" estimate, bnlearn 4.9's CLG fit of the true DAG on these rows, written
    # to CSV with A and W as factors, gives 0.9221, as close to the truth:
    #   fit <- bn.fit(model2network("[A][W|A][C|A:W][x|A:C][M|x:W][y|x:M:C:W]"), d)
    #   pW <- colSums(t(fit$W$prob) * as.numeric(fit$A$prob))
    #   cy <- fit$y$coefficients; sum(pW * (cy["x", ] + cy["M", ] * fit$M$coefficients["x", ]))
    # it needs every family of the DAG, where IDA knows only x's parents)
    rows = clg_rows(200_000, 0)
    out = ida(rows, CLG_DAG, "x", "y")
    assert out["parents"].tolist() == [("A", "C")]
    effect, se = stratified_ols(rows, "x", "y", ["C"], ["A"])
    assert out["effect"].iloc[0] == pytest.approx(effect, rel=1e-9)
    assert se < 0.004 and abs(effect - CLG_EFFECT) < 4 * se
    design = np.column_stack([np.ones(len(rows)), rows["x"], rows["C"], rows["A"]])
    pooled = np.linalg.lstsq(design, rows["y"], rcond=None)[0][1]
    assert abs(pooled - CLG_EFFECT) > 20 * se
    # the class (two DAGs, orienting the triangle A, W, C) gives x the parents (A, C) in
    # both; effect_over_graphs and joint_ida with the one treatment agree
    cpdag = dag_to_cpdag(list(rows), CLG_DAG)
    every = ida(rows, cpdag, "x", "y", method="global")
    assert dict(zip(every["parents"], every["effect"])) == pytest.approx({("A", "C"): effect})
    summary = effect_over_graphs(rows, [CLG_DAG], "x", "y")
    np.testing.assert_allclose(summary.effects[summary.causes], effect, rtol=1e-9)
    joint = joint_ida(rows, CLG_DAG, ["x"], "y")
    assert joint["effect_x"].tolist() == pytest.approx([effect], rel=1e-9)


def test_a_pure_discrete_confounder_with_equal_slopes_gives_the_dummy_regression():
    # s (three states) confounds x and y with the same slopes in every stratum. A balanced
    # design (equal strata, the same centred x and c in each): the average of the strata's
    # coefficients equals, to rounding, the coefficient of x in the pooled regression of y
    # on x, c and dummies for s (least squares by numpy); on random rows both estimate the
    # same effect (0.6), within a few standard errors of each other
    rng = np.random.default_rng(8)
    u, v = rng.normal(size=(2, 50))
    s = np.repeat([0, 1, 2], 50)
    c = np.tile(v, 3) + 0.5 * s
    x = np.tile(u + 0.4 * v, 3) + s
    y = 0.6 * x + 0.3 * c - 1.0 * s + rng.normal(size=150)
    rows = pd.DataFrame({"s": s, "c": c, "x": x, "y": y})
    dag = [("s", "c"), ("s", "x"), ("c", "x"), ("s", "y"), ("c", "y"), ("x", "y")]
    dummies = np.column_stack([np.ones(150), x, c, s == 1, s == 2])
    pooled = np.linalg.lstsq(dummies, y, rcond=None)[0][1]
    assert ida(rows, dag, "x", "y")["effect"].iloc[0] == pytest.approx(pooled, rel=1e-10)
    n = 20_000
    s = rng.integers(0, 3, n)
    c = 0.5 * s + rng.normal(size=n)
    x = s + 0.4 * c + rng.normal(size=n) * (1 + s)  # (residual spreads differ by stratum)
    y = 0.6 * x + 0.3 * c - 1.0 * s + rng.normal(size=n)
    rows = pd.DataFrame({"s": s, "c": c, "x": x, "y": y})
    effect, se = stratified_ols(rows, "x", "y", ["c"], ["s"])
    assert ida(rows, dag, "x", "y")["effect"].iloc[0] == pytest.approx(effect, rel=1e-9)
    dummies = np.column_stack([np.ones(n), x, c, s == 1, s == 2])
    pooled = np.linalg.lstsq(dummies, y, rcond=None)[0][1]
    assert abs(effect - 0.6) < 4 * se and abs(pooled - effect) < 4 * se


def test_weights_are_row_copies_and_empty_strata_do_not_count():
    # integer weights equal copies of the rows; a stratum whose rows all have weight 0
    # (a state of s kept only in rows with weight 0, where x does not even vary) has no
    # share of the effect
    rng = np.random.default_rng(9)
    rows = clg_rows(600, 1)
    weights = rng.integers(1, 4, 600)
    copies = rows.loc[rows.index.repeat(weights)].reset_index(drop=True)
    by_weight = ida(rows, CLG_DAG, "x", "y", sample_weight=weights)["effect"].iloc[0]
    assert by_weight == pytest.approx(ida(copies, CLG_DAG, "x", "y")["effect"].iloc[0], rel=1e-10)
    assert by_weight == pytest.approx(stratified_ols(rows, "x", "y", ["C"], ["A"], weights)[0],
                                      rel=1e-10)
    extra = pd.DataFrame({"A": [2, 2], "W": [0, 0], "C": [0.0, 1.0], "x": [1.0, 1.0],
                          "M": [0.0, 0.0], "y": [0.0, 0.0]})
    padded = pd.concat([rows, extra], ignore_index=True)
    out = ida(padded, CLG_DAG, "x", "y", sample_weight=np.append(weights, [0, 0]))
    assert out["effect"].iloc[0] == pytest.approx(by_weight, rel=1e-12)
    summary = effect_over_graphs(padded, [CLG_DAG], "x", "y", equivalence_class=False,
                                 sample_weight=np.append(weights, [0, 0]))
    assert summary.estimate == pytest.approx(by_weight, rel=1e-12)


def test_a_stratum_where_x_cannot_vary_gives_nan_with_a_warning_naming_it():
    # A=2 in two rows with one continuous parent C: x is a linear function of C there (two
    # rows, two coefficients), so that stratum's coefficient, hence the effect, is not
    # defined: ida says NaN with the determined-columns warning naming the stratum and its
    # share; effect_over_graphs refuses (as for a determined x on continuous data)
    rows = clg_rows(400, 2)
    extra = pd.DataFrame({"A": [2, 2], "W": [0, 1], "C": [0.0, 1.0], "x": [1.0, 3.0],
                          "M": [0.0, 1.0], "y": [0.5, 2.0]})
    rows = pd.concat([rows, extra], ignore_index=True)
    with pytest.warns(RuntimeWarning, match=r"'x' is a linear function of its parents "
                                            r"\('A', 'C'\) within the rows with A=2 \(0\.5% of "
                                            r"the rows: a stratum .* too few rows"):
        out = ida(rows, CLG_DAG, "x", "y")
    assert np.isnan(out["effect"].iloc[0])
    with pytest.warns(RuntimeWarning, match=r"joint_ida: 'x' is .* within the rows with A=2"):
        assert np.isnan(joint_ida(rows, CLG_DAG, ["x"], "y")["effect_x"].iloc[0])
    with pytest.raises(ValueError, match=r"linear function of its parents \['A', 'C'\] within "
                                         r"the rows with A=2"):
        effect_over_graphs(rows, [CLG_DAG], "x", "y", equivalence_class=False)
    # a third row with x varying given C: the stratum has its (exact) coefficient, with the
    # warning of a stratum without residual degrees of freedom
    rows.loc[len(rows)] = {"A": 2, "W": 0, "C": 2.0, "x": 4.0, "M": 1.0, "y": 1.0}
    with pytest.warns(RuntimeWarning, match=r"A=2 of the parent set \('A', 'C'\) \(3 rows"):
        effect = ida(rows, CLG_DAG, "x", "y")["effect"].iloc[0]
    assert effect == pytest.approx(stratified_ols(rows, "x", "y", ["C"], ["A"])[0], rel=1e-9)


#: x's parents s (discrete) and c (continuous) with a confounded y; the stratum s=2 has
#: exactly |C| + 2 = 3 rows, through which y = 1 + 3 x + c passes exactly (slope 3, by hand:
#: c=0, x=0 gives y=1; c=1 adds 1; x=1 adds 3), while x varies given c there (its three
#: rows are not on a line in (c, x)).
SMALL_DAG = [("s", "c"), ("s", "x"), ("c", "x"), ("s", "y"), ("c", "y"), ("x", "y")]
SMALL_STRATUM = pd.DataFrame({"s": [2, 2, 2], "c": [0.0, 1.0, 0.0], "x": [0.0, 0.0, 1.0],
                              "y": [1.0, 2.0, 4.0]})


def small_stratum_rows(n=200, seed=0, extra=SMALL_STRATUM):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    c = rng.normal(size=n) + s
    x = 0.5 * c + s + rng.normal(size=n)
    y = 2.0 * x + c - s + rng.normal(size=n)
    return pd.concat([pd.DataFrame({"s": s, "c": c, "x": x, "y": y}), extra], ignore_index=True)


def exact_warnings(caught):
    return [w for w in caught if "no residual degrees of freedom" in str(w.message)]


def test_no_residual_degrees_of_freedom_without_discrete_parents_names_no_stratum():
    # x has one continuous parent z and no discrete one; 3 rows for the 3 coefficients
    # (1, x, z): the fit is exact, the coefficient of x 23/42 (by hand: a = 1 - 0.3 b,
    # c = 1.7 - 1.6 b from the first two rows, the third gives 2.1 b = 1.15; R 4.2:
    #   d <- data.frame(z = c(0, 1, 2.5), x = c(0.3, 1.9, 2.2), y = c(1, 2.7, 4.1))
    #   coef(lm(y ~ x + z, data = d))["x"]   # 0.547619, df.residual 0).
    # The warning said "1 stratum of the discrete parents of 'x'" and advised merging rare
    # states of a discrete parent, which x does not have.
    rows = pd.DataFrame({"z": [0.0, 1.0, 2.5], "x": [0.3, 1.9, 2.2], "y": [1.0, 2.7, 4.1]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = ida(rows, [("z", "x"), ("x", "y"), ("z", "y")], "x", "y",
                  column_types="continuous")
    assert got["effect"].tolist() == pytest.approx([23 / 42], rel=1e-10)
    (warning,) = exact_warnings(caught)
    message = str(warning.message)
    assert message.startswith("ida: the regression of the parent set has no residual degrees "
                              "of freedom: the parent set ('z',) (3 rows: all of them)")
    assert "discrete" not in message and "stratum" not in message and "merge" not in message.lower()


def test_a_stratum_with_no_residual_degrees_of_freedom_keeps_its_slope_with_one_warning():
    # the stratum s=2 has 3 rows for the 3 coefficients (1, x, c): its slope is the exact
    # fit's 3 (as R's lm(y ~ x + c, subset = s == 2) gives it, with NaN standard errors),
    # kept in the average with its share 3/203; the other strata's slopes by numpy least
    # squares. ida, joint_ida (one treatment) and effect_over_graphs give that average with
    # one warning per call naming the stratum, its rows and share. R 4.2:
    #   d <- data.frame(c = c(0, 1, 0), x = c(0, 0, 1), y = c(1, 2, 4))
    #   summary(lm(y ~ x + c, data = d))$coefficients   # x: Estimate 3, Std. Error NaN
    #   df.residual(lm(y ~ x + c, data = d))            # 0
    rows = small_stratum_rows()
    betas, sizes = [], []
    for _, part in rows.groupby("s"):
        design = np.column_stack([np.ones(len(part)), part["x"], part["c"]])
        betas.append(np.linalg.lstsq(design, part["y"], rcond=None)[0][1])
        sizes.append(len(part))
    assert betas[2] == pytest.approx(3.0, rel=1e-12) and sizes[2] == 3
    expected = float(np.dot(sizes, betas) / sum(sizes))
    message = (r"ida: 1 stratum of the discrete parents of 'x' has no residual degrees of "
               r"freedom: s=2 of the parent set \('s', 'c'\) \(3 rows, 1\.5% of the rows\)")
    with pytest.warns(RuntimeWarning, match=message) as caught:
        out = ida(rows, SMALL_DAG, "x", "y")
    assert len(exact_warnings(caught)) == 1
    assert out["effect"].iloc[0] == pytest.approx(expected, rel=1e-10)
    with pytest.warns(RuntimeWarning, match="joint_ida: 1 stratum .* s=2 .*3 rows"):
        joint = joint_ida(rows, SMALL_DAG, ["x"], "y")
    assert joint["effect_x"].iloc[0] == pytest.approx(expected, rel=1e-10)
    with pytest.warns(RuntimeWarning, match=r"effect_over_graphs: 1 stratum .* \(in 2 of 3 "
                                            r"DAGs\): s=2 .*3 rows") as caught:
        summary = effect_over_graphs(rows, [SMALL_DAG, SMALL_DAG, [("y", "x")]], "x", "y",
                                     equivalence_class=False)
    assert len(exact_warnings(caught)) == 1
    np.testing.assert_allclose(summary.effects, [expected, expected, 0.0], rtol=1e-10)
    # two small strata: still one warning, naming every such stratum
    extra = pd.concat([SMALL_STRATUM, SMALL_STRATUM.assign(s=3, y=[0.0, -1.0, 2.0])])
    rows = small_stratum_rows(extra=extra)
    with pytest.warns(RuntimeWarning, match=r"2 strata .* have no residual .*: s=2 .*; s=3 ") \
            as caught:
        ida(rows, SMALL_DAG, "x", "y")
    assert len(exact_warnings(caught)) == 1
    # where no stratum is small, nothing is said
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        ida(small_stratum_rows(extra=None), SMALL_DAG, "x", "y")


def test_the_rows_of_a_weighted_stratum_are_its_weight():
    # an integer weight is that many copies of the row (as in every skbn fit): the stratum
    # s=2 with one row of weight 2 has 4 rows, one residual degree of freedom, and says
    # nothing, as the copied rows; rows of weight 0 are no rows (the stratum with a fourth
    # row of weight 0 has 3 rows: warned); fractional weights count their sum (3 rows of
    # weight 0.5: 1.5 rows, warned). (R's lm(y ~ x + c, weights = c(1, 1, 2)) counts the
    # rows of nonzero weight instead, df.residual 0: its weights are precisions, skbn's
    # frequencies, as in every skbn fit)
    rows = small_stratum_rows()
    n = len(rows)
    copied = np.ones(n)
    copied[-1] = 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        by_weight = ida(rows, SMALL_DAG, "x", "y", sample_weight=copied)["effect"].iloc[0]
        copies = rows.loc[rows.index.repeat(copied.astype(int))].reset_index(drop=True)
        assert by_weight == pytest.approx(ida(copies, SMALL_DAG, "x", "y")["effect"].iloc[0],
                                          rel=1e-10)
    padded = pd.concat([rows, SMALL_STRATUM.iloc[[0]].assign(y=50.0)], ignore_index=True)
    effects = []
    for frame, weights in ((padded, np.append(np.ones(n), 0.0)), (rows, None)):
        with pytest.warns(RuntimeWarning, match=r"s=2 .*\(3 rows"):
            effects.append(ida(frame, SMALL_DAG, "x", "y", sample_weight=weights)["effect"].iloc[0])
    assert effects[0] == pytest.approx(effects[1], rel=1e-12)
    halves = np.append(np.ones(n - 3), [0.5, 0.5, 0.5])
    with pytest.warns(RuntimeWarning, match=r"s=2 .*\(1\.5 rows, 0\.7% of the rows"):
        ida(rows, SMALL_DAG, "x", "y", sample_weight=halves)


def test_a_dag_without_an_estimate_is_nan_and_the_summary_is_over_the_others():
    # three DAGs: in the first, x's parents are (s, c) and the stratum s=2 has two rows, so x
    # is a linear function of c there (no estimate); in the second x's parent is c alone
    # (least squares by numpy); in the third y does not descend from x (exactly 0). The
    # first is NaN, counted in one warning; estimate and interval are the mean and
    # quantiles of the other two with weights 1/2 each, prob_causes counts all three
    rows = small_stratum_rows(extra=SMALL_STRATUM.iloc[:2])
    only_c = [("s", "c"), ("c", "x"), ("s", "y"), ("c", "y"), ("x", "y")]
    design = np.column_stack([np.ones(len(rows)), rows["x"], rows["c"]])
    beta_c = np.linalg.lstsq(design, rows["y"], rcond=None)[0][1]
    with pytest.warns(RuntimeWarning, match=r"effect_over_graphs: 1 of 3 DAGs \(weight 0\.333\) "
                                            r"gives no estimate of the effect of 'x' \(1 of "
                                            r"them: 'x' is a linear function of its parents "
                                            r"\['s', 'c'\] within the rows with s=2") as caught:
        summary = effect_over_graphs(rows, [SMALL_DAG, only_c, [("y", "x")]], "x", "y",
                                     equivalence_class=False, level=0.5)
    assert sum("gives no estimate" in str(w.message) for w in caught) == 1
    assert np.isnan(summary.effects[0])
    np.testing.assert_allclose(summary.effects[1:], [beta_c, 0.0], rtol=1e-10)
    assert summary.estimate == pytest.approx(beta_c / 2, rel=1e-10)
    # the weighted quantiles (inverse CDF) of {0: 1/2, beta_c: 1/2} at 0.25 and 0.75
    assert summary.interval == pytest.approx((0.0, beta_c), rel=1e-10)
    assert summary.prob_causes == pytest.approx(2 / 3)
    # parameter_uncertainty: a stratum with no residual degrees of freedom has no variance
    # to draw from (none is made up): its DAG is NaN; the others are drawn as without it
    rows = small_stratum_rows()
    with pytest.warns(RuntimeWarning, match=r"1 of 2 DAGs .* no residual degrees of freedom "
                                            r"\(3 rows for 3 coefficients\)"):
        drawn = effect_over_graphs(rows, [SMALL_DAG, only_c], "x", "y", equivalence_class=False,
                                   parameter_uncertainty=True, random_state=0)
    alone = effect_over_graphs(rows, [only_c], "x", "y", equivalence_class=False,
                               parameter_uncertainty=True, random_state=0)
    assert np.isnan(drawn.effects[0]) and drawn.effects[1] == alone.effects[0]
    assert drawn.estimate == alone.estimate and drawn.interval == alone.interval
    # every DAG without an estimate: an error naming the reason
    with pytest.raises(ValueError, match=r"no sampled DAG gives an estimate of the effect of "
                                         r"'x': parameter_uncertainty .* within the rows with "
                                         r"s=2 has no residual degrees of freedom"):
        effect_over_graphs(rows, [SMALL_DAG] * 3, "x", "y", equivalence_class=False,
                           parameter_uncertainty=True, random_state=0)

    # every DAG in which x causes y without an estimate, the others without a path: an
    # error too (their effects, 0 by construction, would summarise to a confident "no
    # effect" against prob_causes 1/2)
    with pytest.raises(ValueError, match=r"no sampled DAG in which 'x' causes the outcome gives "
                                         r"an estimate of its effect .* within the rows with "
                                         r"s=2 has no residual degrees of freedom"):
        effect_over_graphs(rows, [SMALL_DAG, [("y", "x")]], "x", "y", equivalence_class=False,
                           parameter_uncertainty=True, random_state=0)


def test_discrete_effects_that_are_nan_with_ess_0_are_left_out_of_the_summary():
    # the same rule on discrete data: with ess=0 a DAG whose adjustment meets a positivity
    # gap has a NaN effect (z=1 only with x=1, and z is x's parent in the first DAG); the
    # mean and interval are over the other two (by hand: x -> y alone gives
    # P(y=1 | x=1) - P(y=1 | x=0) = 15/30 - 10/20 = 0, and no path gives 0); the NaN used to
    # make the estimate NaN. Every DAG NaN: an error naming the reason
    rows = pd.DataFrame({"z": [0] * 40 + [1] * 10, "x": [0] * 20 + [1] * 30, "y": [0, 1] * 25})
    chain = [("z", "x"), ("x", "y")]
    with pytest.warns(RuntimeWarning, match=r"1 of 3 DAGs \(weight 0\.333\) gives no estimate "
                                            r".*with ess=0"):
        out = effect_over_graphs(rows, [chain, [("x", "y")], [("y", "x")]], "x", "y",
                                 contrast=(1, 0), y_value=1, ess=0, equivalence_class=False)
    assert np.isnan(out.effects[0]) and out.positivity_fails.tolist() == [True, False, False]
    assert out.estimate == 0.0 and out.interval == (0.0, 0.0)
    assert out.prob_causes == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match=r"no sampled DAG gives an estimate .* use ess > 0"):
        effect_over_graphs(rows, [chain], "x", "y", contrast=(1, 0), y_value=1, ess=0,
                           equivalence_class=False)


def test_parameter_draws_average_the_strata_draws():
    # parameter_uncertainty: each DAG's effect is sum_s P_s b_s with P ~ Dirichlet(N_s) and
    # b_s ~ N(beta_s, sigma_s^2 / RSS(x | C, s)); over 4000 copies of one DAG the draws
    # centre on the estimate, with the spread of those two sources computed by hand
    rows = clg_rows(3000, 3)
    out = effect_over_graphs(rows, [CLG_DAG] * 4000, "x", "y", equivalence_class=False,
                             parameter_uncertainty=True, random_state=0)
    effect = ida(rows, CLG_DAG, "x", "y")["effect"].iloc[0]
    shares, betas, variances = [], [], []
    for _, part in rows.groupby("A"):
        design = np.column_stack([np.ones(len(part)), part["x"], part["C"]])
        coef, rss = np.linalg.lstsq(design, part["y"], rcond=None)[:2]
        shares.append(len(part) / len(rows))
        betas.append(coef[1])
        variances.append(rss[0] / (len(part) - 3) * np.linalg.inv(design.T @ design)[1, 1])
    shares, betas = np.array(shares), np.array(betas)
    spread = np.sqrt(shares ** 2 @ variances + (shares @ betas ** 2 - effect ** 2) / (len(rows) + 1))
    assert out.effects.mean() == pytest.approx(effect, abs=4 * spread / np.sqrt(4000))
    assert out.effects.std() == pytest.approx(spread, rel=0.05)


def test_continuous_effects_over_the_clg_dags_of_mixed_classes_are_brute_force():
    # random 6-node classes, two discrete columns and four continuous ones, x and y
    # continuous, x with a discrete parent in some DAG: ida (global, with its DAG counts;
    # local, its distinct sets) and
    # effect_over_graphs give, for each DAG of the class that respects the
    # conditional-Gaussian rule (brute force), the stratified least squares for its parents
    # of x computed by hand (ida: 0 where y is a parent of x; effect_over_graphs: 0 where y
    # is no descendant of x)
    rng = np.random.default_rng(10)
    checked = 0
    for seed in range(200):
        nodes, edges = random_dag(6, 0.5, random_state=300 + seed, shuffle=True)
        cpdag = dag_to_cpdag(nodes, edges)
        continuous = dict(zip(nodes, map(bool, rng.permutation([0, 0, 1, 1, 1, 1]))))
        if not cpdag.undirected or any(continuous[u] and not continuous[v]
                                       for u, v in cpdag.directed):
            continue
        allowed = clg_dags(cpdag, continuous)
        x, y = [v for v in nodes if continuous[v]][:2]
        if not any(not continuous[u] for dag in allowed for u, v in dag if v == x):
            continue  # (no DAG gives x a discrete parent: the continuous case)
        noise = np.random.default_rng(seed).normal(size=(800, 6))
        rows = pd.DataFrame({v: noise[:, k] for k, v in enumerate(nodes)})
        for v in topological_order(nodes, edges):  # (continuous columns add their DAG parents)
            if continuous[v]:
                rows[v] += 0.5 * sum(rows[u] for u, c in edges if c == v)
            else:
                rows[v] = (rows[v] > 0).astype(int)
        expected, per_dag = {}, []
        for dag in allowed:
            parents = tuple(sorted(u for u, v in dag if v == x))
            value = stratified_ols(rows, x, y, [p for p in parents if continuous[p]],
                                   [p for p in parents if not continuous[p]])[0]
            count = expected.get(parents, (0, 0))[1]
            expected[parents] = (0.0 if y in parents else value, count + 1)
            per_dag.append(value if y in dag_descendants(dag, x) else 0.0)
        every = ida(rows, cpdag, x, y, method="global")
        got = {tuple(sorted(p)): (e, n) for p, e, n in
               zip(every["parents"], every["effect"], every["n_dags"])}
        assert got.keys() == expected.keys()
        for parents, (value, count) in expected.items():
            assert got[parents][0] == pytest.approx(value, rel=1e-8, abs=1e-12)
            assert got[parents][1] == count
        local = ida(rows, cpdag, x, y)  # (the distinct sets; one row when y is a definite parent)
        for parents, value in zip(local["parents"], local["effect"]):
            assert value == pytest.approx(expected[tuple(sorted(parents))][0], rel=1e-8, abs=1e-12)
        assert len(local) == len(expected) or local["y_is_parent"].all()
        summary = effect_over_graphs(rows, [edges], x, y)
        got_dist, want_dist = {}, {}
        for value, weight in zip(summary.effects, summary.weights):
            got_dist[round(value, 8)] = got_dist.get(round(value, 8), 0.0) + weight
        for value in per_dag:
            want_dist[round(value, 8)] = want_dist.get(round(value, 8), 0.0) + 1 / len(allowed)
        assert got_dist.keys() == want_dist.keys()
        assert [got_dist[k] for k in sorted(got_dist)] == pytest.approx(
            [want_dist[k] for k in sorted(got_dist)])
        checked += 1
    assert checked > 10


def test_spector_effect_of_gpa_on_tuce_equals_r_lm_within_strata():
    # statsmodels' spector rows above, TUCE declared continuous, a hypothetical DAG in which
    # PSI (and GRADE) are parents of GPA: the effect of GPA on TUCE is R's lm slopes within
    # the strata averaged with the strata's shares (R 4.2):
    #   d <- read.csv("spector.csv")
    #   b <- sapply(split(d, d$PSI), function(s) coef(lm(TUCE ~ GPA, data = s))["GPA"])
    #   sum(table(d$PSI) / nrow(d) * b)                              # 3.58537591261382
    #   f <- lm(TUCE ~ factor(PSI) * GPA, data = d)                  # the same, one model:
    #   coef(f)["GPA"] + mean(d$PSI == 1) * coef(f)["factor(PSI)1:GPA"]   # 3.58537591261381
    #   g <- split(d, list(d$PSI, d$GRADE))                          # PSI and GRADE: 4 strata
    #   sum(sapply(g, nrow) / nrow(d) * sapply(g, function(s) coef(lm(TUCE ~ GPA, s))["GPA"]))
    #                                                                # 3.40149941703821
    rows = pd.read_csv(io.StringIO(SPECTOR))
    types = {"TUCE": "continuous"}
    dag = [("PSI", "GPA"), ("GPA", "TUCE"), ("PSI", "TUCE")]
    assert ida(rows, dag, "GPA", "TUCE", column_types=types)["effect"].iloc[0] == pytest.approx(
        3.58537591261382, rel=1e-12)
    dag.append(("GRADE", "GPA"))
    assert ida(rows, dag, "GPA", "TUCE", column_types=types)["effect"].iloc[0] == pytest.approx(
        3.40149941703821, rel=1e-12)


def test_a_discrete_mediator_is_refused_and_a_continuous_to_discrete_edge_elsewhere_is_not():
    # x -> d -> y with d = 1[x > 1] discrete: E[y | do(x = v)] = 3 * 1[v > 1] has no slope
    # per unit of x; ida answered the regression slope (0.76 here) as if it were one. The
    # graph is no CLG network (x -> d), and the edge is on the causal path: refused, named
    rng = np.random.default_rng(0)
    x = rng.normal(size=2000)
    d = (x > 1).astype(int)
    rows = pd.DataFrame({"x": x, "d": d, "y": 3.0 * d + rng.normal(size=2000)})
    mediated = [("x", "d"), ("d", "y")]
    message = (r"the discrete column\(s\) \['d'\] lie on a \(possibly\) causal path from 'x' "
               r"to 'y', entered by the edge\(s\) 'x' -> 'd' from a continuous node into a "
               r"discrete one")
    for call in (lambda: ida(rows, mediated, "x", "y"),
                 lambda: ida(rows, mediated, "x", "y", method="optimal"),
                 lambda: joint_ida(rows, mediated, ["x"], "y"),
                 lambda: effect_over_graphs(rows, [mediated], "x", "y", equivalence_class=False)):
        with pytest.raises(ValueError, match=message):
            call()
    # on a PDAG the possibly causal paths count: x - m undirected, m -> d -> y
    rows["m"] = rows["x"] + rng.normal(size=2000)
    pdag = PDAG(["x", "m", "d", "y"], directed=[("m", "d"), ("d", "y")], undirected=[("x", "m")])
    with pytest.raises(ValueError, match=r"\['d'\] lie on .* 'm' -> 'd'"):
        ida(rows, pdag, "x", "y")
    # edges from a continuous node into a discrete one off the causal paths change nothing
    # the effect uses: a continuous parent c of x's discrete parent s, an unrelated c2 -> d2,
    # a discrete child d3 of x that is no ancestor of y. The effect is that of the graph
    # without them (the strata of s: least squares by numpy), with no error
    n = 3000
    c = rng.normal(size=n)
    s = (c + rng.normal(size=n) > 0).astype(int)
    x = 1.0 + s + rng.normal(size=n)
    c2 = rng.normal(size=n)
    rows = pd.DataFrame({"c": c, "s": s, "x": x, "y": 0.7 * x - s + rng.normal(size=n),
                         "c2": c2, "d2": (c2 > 0).astype(int), "d3": (x > 1).astype(int)})
    plain = [("s", "x"), ("x", "y"), ("s", "y")]
    extra = plain + [("c", "s"), ("c2", "d2"), ("x", "d3")]
    betas = [np.linalg.lstsq(np.column_stack([np.ones(len(p)), p["x"]]), p["y"], rcond=None)[0][1]
             for _, p in rows.groupby("s")]
    expected = float(np.dot(rows["s"].value_counts(normalize=True).sort_index(), betas))
    for graph in (plain, extra):
        assert ida(rows, graph, "x", "y")["effect"].iloc[0] == pytest.approx(expected, rel=1e-10)
        assert joint_ida(rows, graph, ["x"], "y")["effect_x"].iloc[0] == pytest.approx(
            expected, rel=1e-10)
        summary = effect_over_graphs(rows, [graph], "x", "y", equivalence_class=False)
        assert summary.estimate == pytest.approx(expected, rel=1e-10)
