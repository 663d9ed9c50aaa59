"""``ida(method="optimal")``: IDA with the optimal adjustment set of each local orientation
(Witte, Henckel, Maathuis & Didelez 2020), against R pcalg 2.7-12 ``ida(method = "optimal")``,
the true total effect and the variance of the parent-set estimate."""

import sys
from itertools import permutations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _pcalg_suite import rows_with_covariance, total_effects, true_cov

from skbn.causal import ida, optimal_adjustment_set
from skbn.graph import PDAG, dag_to_cpdag, meek_orient

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_ida_gaussian import cpdag_of, random_linear_gaussian  # noqa: E402

# The dagitty DAG "Schipf_2010" (testosterone TT -> type 2 diabetes T2DM; the dagitty file of
# the pgmpy 1.1.2 wheel), with the coefficients and rows of schipf_rows.
SCHIPF = [("A", "PA"), ("A", "S"), ("A", "TT"), ("A", "U"), ("A", "WC"), ("PA", "T2DM"),
          ("PA", "WC"), ("S", "T2DM"), ("S", "TT"), ("U", "T2DM"), ("U", "TT"), ("WC", "T2DM"),
          ("WC", "TT"), ("WC", "U")]
SCHIPF_ORDER = ["A", "PA", "S", "WC", "U", "TT", "T2DM"]


def schipf_rows(n=300, seed=2010):
    """Linear-Gaussian rows on the Schipf DAG: edge k has coefficient (-1)^k (0.5 + 0.05 k),
    N(0, 1) noise; columns sorted by name."""
    rng = np.random.default_rng(seed)
    noise = rng.normal(size=(n, len(SCHIPF_ORDER)))
    rows = {}
    for j, v in enumerate(SCHIPF_ORDER):
        rows[v] = noise[:, j] + sum((-1) ** k * (0.5 + 0.05 * k) * rows[u]
                                    for k, (u, w) in enumerate(SCHIPF) if w == v)
    return pd.DataFrame(rows)[sorted(SCHIPF_ORDER)]


def schipf_graphs():
    """The CPDAG of the Schipf DAG, and it with the true orientation WC -> U as background
    knowledge, closed under Meek's rules (pcalg ``addBgKnowledge``)."""
    cpdag = dag_to_cpdag(sorted(SCHIPF_ORDER), SCHIPF)
    knowledge = PDAG(cpdag.nodes, [*cpdag.directed, ("WC", "U")],
                     [e for e in cpdag.undirected if set(e) != {"WC", "U"}])
    return {"cpdag": cpdag, "pdag": meek_orient(knowledge)}


# pcalg numbers, written by this R code on the rows and graph (nodes renamed 1..p: pcalg's
# addBgKnowledge, which ida(method = "optimal") calls, looks nodes up by name with their
# index, so only index names work):
#   C <- cov(d); g <- as(t(amat), "graphNEL")    # amat[b, a] = 1, amat[a, b] = 0: a -> b
#   sort(unlist(ida(x, y, C, g, method = "optimal", type = "cpdag")))   # "pdag": knowledge
# (R 4.2.2, pcalg 2.7-12), random_linear_gaussian(6, 500, 0) with x, y 0-based below, and
# schipf_rows() on schipf_graphs() (columns sorted by name).
PCALG_RANDOM = {
    (0, 3): [0.0, 0.0, 0.07459736886802673, 0.07459736886802673, 0.1004548559615197],
    (1, 2): [0.0, 0.630824228159379, 0.630824228159379, 0.630824228159379, 0.630824228159379],
    (4, 0): [-0.4202382705187104, -0.2572451995795864, 0.0, 0.0],
    (0, 2): [-0.32122144982375633, -0.1674667952789172, -0.1674667952789172, 0.0, 0.0],
    (1, 3): [-0.14280049704053874] * 4 + [0.0],
}
PCALG_SCHIPF = {
    ("cpdag", "A", "T2DM"): [0.20894584444289016, 0.43596179643347077, 0.5531821344907835,
                             0.6947444699678782, 0.9442963967787524, 1.0642902016852884,
                             1.0992515484110195],
    ("cpdag", "WC", "T2DM"): [-1.570393303093907, -1.5142617057373366, -0.3457473691196257,
                              0.09922838035570943, 0.1961053331410465, 0.6320426016950386],
    ("cpdag", "PA", "TT"): [-0.26883573456435533, -0.03151425711065027, 0.0, 0.14349211847639826],
    ("cpdag", "U", "T2DM"): [-1.1470901834957623, -0.9590664987704413, -0.24894654708681074,
                             -0.10963865093808044],
    ("cpdag", "A", "TT"): [-0.5123677751167851, -0.46964583138173993, -0.32550126496096243,
                           -0.32550126496096243, -0.007888658979514287, 0.20269494856812362,
                           0.2877423287241935],
    ("cpdag", "WC", "TT"): [-0.35357660076359665, -0.28259225084182693, -0.12219566370715593,
                            -0.12219566370715593, 1.1417974634233885, 1.1439575446411263],
    ("pdag", "A", "T2DM"): [0.20894584444289016, 0.5531821344907835, 0.6947444699678782,
                            0.9442963967787524, 1.0642902016852884, 1.0992515484110195],
    ("pdag", "WC", "T2DM"): [-0.3457473691196257, 0.09922838035570943, 0.1961053331410465,
                             0.6320426016950386],
    ("pdag", "PA", "TT"): [-0.26883573456435533, -0.03151425711065027, 0.0, 0.14349211847639826],
    ("pdag", "U", "T2DM"): [-1.1470901834957623, -0.9590664987704413],
    ("pdag", "A", "TT"): [-0.5123677751167851, -0.46964583138173993, -0.32550126496096243,
                          -0.32550126496096243, -0.007888658979514287, 0.20269494856812362],
    ("pdag", "WC", "TT"): [-0.35357660076359665, -0.28259225084182693, -0.12219566370715593,
                           -0.12219566370715593],
}


@pytest.mark.parametrize("key", list(PCALG_RANDOM))
def test_equals_pcalg_on_a_random_cpdag(key):
    rows, weights = random_linear_gaussian(6, 500, 0)
    table = ida(rows, cpdag_of(weights), *key, method="optimal")
    np.testing.assert_allclose(np.sort(table["effect"]), PCALG_RANDOM[key], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("key", list(PCALG_SCHIPF))
def test_equals_pcalg_on_a_literature_dag_with_and_without_knowledge(key):
    kind, x, y = key
    table = ida(schipf_rows(), schipf_graphs()[kind], x, y, method="optimal")
    np.testing.assert_allclose(np.sort(table["effect"]), PCALG_SCHIPF[key], rtol=1e-9, atol=1e-12)


def test_rows_are_the_local_rows_each_adjusting_for_the_o_set_of_its_orientation():
    frame = schipf_rows()
    cpdag = schipf_graphs()["cpdag"]
    local = ida(frame, cpdag, "A", "TT", method="local")
    optimal = ida(frame, cpdag, "A", "TT", method="optimal")
    assert list(optimal.columns) == ["parents", "adjustment_set", "y_is_parent", "effect"]
    assert list(optimal["parents"]) == list(local["parents"])
    for parents, adjusted in zip(optimal["parents"], optimal["adjustment_set"]):
        # the orientation as background knowledge, closed: its O-set
        directed = [*cpdag.directed, *((w, "A") for w in parents)]
        directed += [("A", w) for e in cpdag.undirected if "A" in e for w in e
                     if w != "A" and w not in parents]
        knowledge = PDAG(cpdag.nodes, directed, [e for e in cpdag.undirected if "A" not in e])
        assert adjusted == tuple(optimal_adjustment_set(meek_orient(knowledge), "A", "TT"))


def test_no_causal_path_and_y_a_parent_give_zero_without_adjustment():
    rows, weights = random_linear_gaussian(6, 500, 0)
    table = ida(rows, cpdag_of(weights), 4, 0, method="optimal")
    none = table["adjustment_set"].isna()
    assert none.sum() == 2 and (table["effect"][none] == 0.0).all()
    # y -> x in every DAG: one row, like method="local" (pcalg's optimal repeats the 0 once
    # per orientation of x's undirected edges: with a, b, x, w = 1..4 and this graph,
    # ida(3, 1, C, g, method = "optimal") is the 1x2 matrix 0, 0 for any covariance C)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(100, 4)), columns=["a", "b", "x", "w"])
    cpdag = PDAG(["a", "b", "x", "w"], [("a", "x"), ("b", "x"), ("a", "w"), ("b", "w")],
                 [("x", "w")])
    table = ida(frame, cpdag, "x", "a", method="optimal")
    assert table["parents"].tolist() == [("a", "b")] and table["effect"].tolist() == [0.0]
    assert table["y_is_parent"].tolist() == [True] and table["adjustment_set"].tolist() == [None]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_row_of_the_true_parents_gives_the_true_effect_on_an_exact_covariance(seed):
    rows, weights = random_linear_gaussian(7, 10, seed, prob=0.5)
    rows = rows_with_covariance(true_cov(weights), 28, 0)  # (exactly the SEM's covariance)
    total = total_effects(weights)  # path sums: total[x, y]
    cpdag = cpdag_of(weights)
    for x, y in permutations(range(7), 2):
        table = ida(rows, cpdag, x, y, method="optimal")
        true_parents = tuple(int(u) for u in np.flatnonzero(weights[:, x]))
        row = table[table["parents"] == true_parents]
        if y in true_parents and len(row) == 0:  # (one row when y -> x is definite)
            row = table
        assert len(row) == 1
        assert row["effect"].iloc[0] == pytest.approx(total[x, y], abs=1e-9)


def test_the_optimal_estimate_is_less_variable_than_the_parent_set_one():
    """a -> x -> y, a -> y, c -> y (CPDAG: a - x, the rest directed). With the true parents
    {a}, local IDA adjusts for {a}, optimal IDA for O = {a, c}: asymptotic variance ratio
    sigma^2(y | x, a, c) / sigma^2(y | x, a) = 1 / (1 + 2^2) = 0.2. Over 300 replicates of 200
    rows the observed ratio has a standard error near 0.2 * sqrt(2 (1 - rho^2) / 300)
    < 0.02, so the bound 0.5 sits more than 10 standard errors above it (and below 1)."""
    rng = np.random.default_rng(7)
    cpdag = dag_to_cpdag(["a", "c", "x", "y"], [("a", "x"), ("x", "y"), ("a", "y"), ("c", "y")])
    local, optimal = [], []
    for _ in range(300):
        a, c, ex, ey = rng.normal(size=(4, 200))
        x = 0.8 * a + ex
        frame = pd.DataFrame({"a": a, "c": c, "x": x, "y": 0.5 * x + a + 2 * c + ey})
        for out, method in ((local, "local"), (optimal, "optimal")):
            table = ida(frame, cpdag, "x", "y", method=method)
            out.append(table.loc[table["parents"] == ("a",), "effect"].iloc[0])
    assert np.mean(optimal) == pytest.approx(0.5, abs=0.02)
    assert np.var(optimal) / np.var(local) < 0.5


def test_discrete_data_adjust_for_the_o_set_by_the_adjustment_formula():
    # a -> x -> y <- c, a -> y: CPDAG a - x; the row with parents (a,) adjusts for {a, c}
    rng = np.random.default_rng(3)
    n = 4000
    a, c = rng.integers(0, 2, n), rng.integers(0, 3, n)
    x = (rng.random(n) < 0.3 + 0.4 * a).astype(int)
    y = (rng.random(n) < 0.1 + 0.3 * x + 0.2 * a + 0.1 * c).astype(int)
    frame = pd.DataFrame({"a": a, "c": c, "x": x, "y": y})
    cpdag = dag_to_cpdag(["a", "c", "x", "y"], [("a", "x"), ("x", "y"), ("a", "y"), ("c", "y")])
    table = ida(frame, cpdag, "x", "y", contrast=(1, 0), method="optimal", ess=0)
    row = table[table["parents"] == ("a",)].iloc[0]
    assert row["adjustment_set"] == ("a", "c")
    # sum_{a, c} P(a, c) (P(y=1 | x=1, a, c) - P(y=1 | x=0, a, c)), by pandas
    cells = frame.groupby(["a", "c"])
    p = cells.size() / n
    cond = frame.groupby(["a", "c", "x"])["y"].mean().unstack("x")
    assert row["effect"] == pytest.approx(float((p * (cond[1] - cond[0])).sum()), rel=1e-12)
    # x -> a: no causal path from x to y's other parents; O = {a, c} again is not valid
    # (a descends from x): the set is {c}
    other = table[table["parents"] == ()].iloc[0]
    assert other["adjustment_set"] == ("c",)


def test_mixed_data_stratify_by_the_discrete_members_of_the_o_set():
    # a -> x -> y <- d, d discrete: y = (1 + d) x + ..., so the effect is E[1 + d] = 1.3;
    # O = {d} for the row with parents (a,): the coefficients of x within d = 0 and d = 1,
    # averaged with the shares of the rows
    rng = np.random.default_rng(5)
    n = 3000
    a, d = rng.normal(size=n), (rng.random(n) < 0.3).astype(int)
    x = a + rng.normal(size=n)
    frame = pd.DataFrame({"a": a, "d": d, "x": x, "y": (1 + d) * x + d + rng.normal(size=n)})
    cpdag = dag_to_cpdag(["a", "d", "x", "y"], [("a", "x"), ("x", "y"), ("d", "y")])
    table = ida(frame, cpdag, "x", "y", method="optimal", column_types={"d": "discrete"})
    row = table[table["parents"] == ("a",)].iloc[0]
    assert row["adjustment_set"] == ("d",)
    by_hand = 0.0
    for _, part in frame.groupby("d"):
        design = np.column_stack([np.ones(len(part)), part["x"]])
        by_hand += len(part) / n * np.linalg.lstsq(design, part["y"], rcond=None)[0][1]
    assert row["effect"] == pytest.approx(by_hand, rel=1e-9)
    assert row["effect"] == pytest.approx(1.3, abs=0.05)


def test_a_bad_method_is_refused():
    rows, weights = random_linear_gaussian(4, 20, 0)
    with pytest.raises(ValueError, match="'local', 'global' or 'optimal'"):
        ida(rows, cpdag_of(weights), 0, 1, method="best")
