"""Gaussian IDA (skbn.causal.ida on continuous columns) against R pcalg 2.7-12 ``ida`` and the
true total effect."""

import sys
from itertools import permutations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skbn import PCStructure
from skbn.causal import ida
from skbn.graph import PDAG

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_ida_gaussian import cpdag_of, random_linear_gaussian  # noqa: E402

# pcalg numbers (benchmarks/bench_ida_gaussian.py; R 4.2.2, pcalg 2.7-12): rows and the
# CPDAG's adjacency written to CSVs, then
#   C <- cov(d); g <- as(t(amat), "graphNEL")
#   sort(ida(x, y, C, g, method = m, type = "cpdag"))    (x, y 1-based; below 0-based)
# on random_linear_gaussian(6, 500, 0) (its CPDAG has 6 undirected edges, no directed one).
PCALG = {
    ("local", 0, 3): [0.00931282166795663, 0.0251232021106198, 0.0745973688680267,
                      0.10002829649401, 0.10045485596152],
    ("global", 0, 3): [0.00931282166795663] * 4 + [0.0251232021106198] * 3 + [0.0745973688680267] * 2
    + [0.10002829649401] * 2 + [0.10045485596152],
    ("local", 1, 2): [0.0, 0.618157162467457, 0.630824228159379, 0.653281333420315, 0.660522829998491],
    ("global", 1, 2): [0.0] * 4 + [0.618157162467457] + [0.630824228159379] * 2 + [0.653281333420315] * 2
    + [0.660522829998491] * 3,
    ("local", 4, 0): [-0.42023827051871, -0.257245199579586, 0.0, 0.0],
}


def _multiset(table, method):
    effects = table["effect"].to_numpy()
    if method == "global":
        effects = np.repeat(effects, table["n_dags"].to_numpy())
    return np.sort(effects)


@pytest.mark.parametrize("key", list(PCALG))
def test_equals_pcalg_ida(key):
    method, x, y = key
    rows, weights = random_linear_gaussian(6, 500, 0)
    table = ida(rows, cpdag_of(weights), x, y, method=method)
    np.testing.assert_allclose(_multiset(table, method), np.sort(PCALG[key]), rtol=1e-9, atol=1e-12)


def _true_effect(weights, x, y):
    """Sum over directed paths of the products of edge weights: ((I - W)^-1)[x, y]."""
    total = np.linalg.inv(np.eye(len(weights)) - weights)
    return total[x, y]


def test_true_dag_gives_the_true_effect_in_large_samples():
    rows, weights = random_linear_gaussian(6, 200_000, 3)
    dag = PDAG(range(6), directed=[(int(u), int(v)) for u, v in zip(*np.nonzero(weights))])
    for x, y in permutations(range(6), 2):
        table = ida(rows, dag, x, y)
        assert len(table) == 1  # a DAG: one parent set
        assert table["effect"][0] == pytest.approx(_true_effect(weights, x, y), abs=0.02)


def test_cpdag_multiset_contains_the_true_effect():
    rows, weights = random_linear_gaussian(6, 200_000, 0)
    cpdag = cpdag_of(weights)
    for x, y in permutations(range(6), 2):
        for method in ("local", "global"):
            effects = ida(rows, cpdag, x, y, method=method)["effect"].to_numpy()
            assert np.min(np.abs(effects - _true_effect(weights, x, y))) < 0.02


def test_global_and_local_give_the_same_distinct_effects():
    rows, weights = random_linear_gaussian(8, 400, 5)
    cpdag = cpdag_of(weights)
    for x, y in [(0, 7), (2, 5), (6, 1)]:
        local = ida(rows, cpdag, x, y, method="local")
        global_ = ida(rows, cpdag, x, y, method="global")
        assert set(local["parents"]) == set(global_["parents"])
        merged = local.merge(global_, on="parents")
        np.testing.assert_allclose(merged["effect_x"], merged["effect_y"], rtol=1e-12)


def test_definition_by_least_squares_and_weights():
    rows, weights = random_linear_gaussian(5, 300, 9)
    cpdag = cpdag_of(weights)
    w = np.random.default_rng(1).integers(0, 3, 300)
    table = ida(rows, cpdag, 1, 3, sample_weight=w)
    replicated = np.repeat(rows, w, axis=0)
    for parents, effect, y_is_parent in zip(table["parents"], table["effect"], table["y_is_parent"]):
        if y_is_parent:
            assert effect == 0.0
            continue
        design = np.column_stack([np.ones(len(replicated)), replicated[:, [1, *parents]]])
        coef = np.linalg.lstsq(design, replicated[:, 3], rcond=None)[0]
        assert effect == pytest.approx(coef[1], rel=1e-9)


def test_dataframe_names_and_errors():
    rows, weights = random_linear_gaussian(4, 200, 2)
    names = ["a b", "c.d", "None", "x"]
    frame = pd.DataFrame(rows, columns=names)
    dag = PDAG(names, directed=[(names[u], names[v]) for u, v in zip(*np.nonzero(weights))])
    by_name = ida(frame, dag, "a b", "x")
    by_position = ida(rows, PDAG(range(4), directed=[(int(u), int(v)) for u, v in zip(*np.nonzero(weights))]),
                      0, 3)
    np.testing.assert_allclose(by_name["effect"], by_position["effect"], rtol=1e-12)
    with pytest.raises(ValueError, match="apply to discrete data"):
        ida(frame, dag, "a b", "x", x_value=1.0)
    mixed = frame.assign(**{"None": (frame["None"] > 0).map({True: "hi", False: "lo"})})
    with pytest.raises(ValueError, match="discrete but others are continuous"):
        ida(mixed, PDAG(names, directed=[("None", "x"), ("a b", "x")]), "None", "x")


def test_local_ida_gives_one_row_when_y_is_a_definite_parent_of_x():
    # R's quakes (long -> depth, depth - mag): pcalg's local ida(depth, long) is the one
    # effect 0, whatever x's undirected neighbours; skbn listed one zero per parent set
    rng = np.random.default_rng(0)
    n = 500
    a, b = rng.normal(size=n), rng.normal(size=n)
    x = a + b + rng.normal(size=n)
    w = a - b + 0.5 * x + rng.normal(size=n)
    rows = pd.DataFrame({"a": a, "b": b, "x": x, "w": w})
    cpdag = PDAG(["a", "b", "x", "w"], [("a", "x"), ("b", "x"), ("a", "w"), ("b", "w")], [("x", "w")])
    local = ida(rows, cpdag, "x", "a")
    assert local["parents"].tolist() == [("a", "b")]
    assert local["y_is_parent"].tolist() == [True] and local["effect"].tolist() == [0.0]
    every = ida(rows, cpdag, "x", "a", method="global")  # (pcalg's global: one 0 per DAG)
    assert sorted(every["parents"].tolist()) == [("a", "b"), ("a", "b", "w")]
    assert every["effect"].tolist() == [0.0, 0.0] and every["n_dags"].sum() == 2
    # x's own effect on w still lists both sets
    assert len(ida(rows, cpdag, "x", "w")) == 2


def test_a_fitted_learner_gives_ida_the_column_types_it_was_fitted_with():
    # whole-number measurements (ages, counts with few values) declared continuous on the
    # learner: ida(X, learner, ...) re-read them with the column-type rule, so few-valued
    # ones became discrete (asking for x_value / contrast, or refused as mixed) although the
    # graph was learned as a Gaussian network; the learner's column_types_ now apply
    from skbn import BootstrapStructure, HillClimbStructure, PCStructure
    from skbn.causal import effect_over_graphs, joint_ida

    rng = np.random.default_rng(0)
    n = 2000
    x, z = rng.integers(0, 6, n), rng.integers(0, 4, n)
    X = pd.DataFrame({"x": x, "y": 2.0 * x + z + rng.normal(0, 1, n), "z": z})
    pc = PCStructure(column_types="continuous").fit(X)
    declared = ida(X, pc, "x", "y", column_types="continuous")
    pd.testing.assert_frame_equal(ida(X, pc, "x", "y"), declared)
    assert declared["effect"].iloc[0] == pytest.approx(2.0, abs=0.05)
    assert ida(X, pc, "x", "z")["effect"].abs().max() < 0.1     # no effect, not a contrast query
    pd.testing.assert_frame_equal(joint_ida(X, pc, ["x", "z"], "y"),
                                  joint_ida(X, pc, ["x", "z"], "y", column_types="continuous"))
    boot = BootstrapStructure(HillClimbStructure(), n_resamples=4, keep_graphs=True,
                              column_types="continuous", random_state=0).fit(X)
    out = effect_over_graphs(X, boot, "x", "y")
    assert np.allclose(out.effects, effect_over_graphs(X, boot, "x", "y",
                                                       column_types="continuous").effects)
    # an explicit column_types still wins
    with pytest.raises(ValueError, match="give exactly one of x_value"):
        ida(X, pc, "x", "z", column_types="discrete")


def _conflicting_pc_rows():
    """40 rows of a -> c <- b, c -> d -> e <- a on which PC's tests contradict each other:
    its cpdag_ (4 edges oriented by the extension fallback) has no consistent extension."""
    rng = np.random.default_rng(10)
    values = rng.normal(size=(40, 5))
    values[:, 2] += 0.6 * values[:, 0] + 0.6 * values[:, 1]
    values[:, 3] += 0.6 * values[:, 2]
    values[:, 4] += 0.5 * values[:, 3] + 0.5 * values[:, 0]
    return pd.DataFrame(values, columns=list("abcde"))


def test_ida_on_a_learner_whose_cpdag_is_not_a_cpdag_says_why():
    """Passing the learner, as docs/causal.md suggests, gave "cpdag is not a CPDAG: ...
    stuck on nodes [...]", which named neither the learner nor its conflicts nor a way
    out; the error now says where the PDAG came from and what to do. Its edges_ works."""
    X = _conflicting_pc_rows()
    with pytest.warns(UserWarning, match="orientation conflict"):
        model = PCStructure(fit_parameters=False).fit(X)
    with pytest.raises(ValueError, match=r"cpdag_ of this PCStructure is not a CPDAG.*4 orientation "
                                         r"conflict.*GESStructure.*edges_"):
        ida(X, model, "a", "e")
    assert len(ida(X, model.edges_, "a", "e")) == 1


def test_a_treatment_that_is_a_linear_function_of_its_parents_has_no_effect_estimate():
    # x = a + b exactly (as a score computed from its parts, e.g. AER's CASchools with a
    # user's total = math + read): with a and b fixed x cannot vary, so the effect of x
    # adjusted for {a, b} is not defined. pcalg 2.7-12 stops there:
    #   ida(x, y, cov(d), g)  ->  "system is computationally singular" (solve of C[x, x]);
    # skbn returned the minimum-norm least-squares coefficient as if it were an effect.
    from skbn.causal import effect_over_graphs, joint_ida

    rng = np.random.default_rng(0)
    a, b, w = rng.normal(size=(3, 300))
    x = a + b
    frame = pd.DataFrame({"a": a, "b": b, "w": w, "x": x, "y": 2 * x + a + w + rng.normal(size=300)})
    edges = [("a", "x"), ("b", "x"), ("x", "y"), ("a", "y"), ("w", "y")]
    with pytest.warns(RuntimeWarning, match=r"'x' is a linear function of its parents \('a', 'b'\)"):
        out = ida(frame, edges, "x", "y")
    assert np.isnan(out["effect"]).all()
    with pytest.warns(RuntimeWarning, match="'x' is a linear function"):
        joint = joint_ida(frame, edges, ["x", "w"], "y")
    assert joint[["effect_x", "effect_w"]].isna().all(axis=None)
    with pytest.raises(ValueError, match="'x' is a linear function of its parents"):
        effect_over_graphs(frame, [edges], "x", "y")
    # with a little noise x varies given its parents: the least-squares coefficient
    noisy = frame.assign(x=x + 1e-3 * rng.normal(size=300))
    design = np.column_stack([np.ones(300), noisy[["x", "a", "b"]]])
    expected = np.linalg.lstsq(design, noisy["y"], rcond=None)[0][1]
    assert ida(noisy, edges, "x", "y")["effect"].item() == pytest.approx(expected, rel=1e-8)
