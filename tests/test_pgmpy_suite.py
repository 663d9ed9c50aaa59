"""pgmpy 1.1.2's own tests replayed on skbn: structure scores (test_structure_score/*), CI tests
(test_ci_tests/*, test_estimators/test_CITests.py), PC, hill climbing, GES, exhaustive search,
Chow-Liu/TAN, MMHC (test_causal_discovery/*, test_estimators/*), parameter estimation
(test_parameter_estimator/*), linear Gaussian networks (test_models/
test_LinearGaussianBayesianNetwork.py), variable elimination (test_inference/
test_ExactInference.py) and SHD (test_metrics/test_shd.py).

Each test runs pgmpy's inputs (its CSV files in tests/data/pgmpy, its seeded numpy data, its
small frames) through skbn and checks the values pgmpy's test asserts. Where pgmpy's value
follows another convention, or is wrong, the expected value here is bnlearn's (R 4.2, bnlearn
4.9, the call given in a comment) or a hand computation, and the comment says why. Data that
pgmpy's tests draw with pgmpy's own samplers are drawn here from the same network with skbn's
sampler (same law, other draws). pgmpy itself is not imported.
"""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from skbn import (
    ChowLiuTree,
    ExactStructure,
    FixedStructure,
    GESStructure,
    HillClimbStructure,
    MMHCStructure,
    PCStructure,
)
from skbn.checking import ci_test
from skbn.citests import ChiSquare, DSeparationOracle, FisherZ, GTest, PartialCorrelationT
from skbn.graph import pdag_to_dag
from skbn.io import read_bif
from skbn.metrics import structural_hamming_distance
from skbn.network import DiscreteBayesianNetwork, GaussianBayesianNetwork
from skbn.scores import (
    AIC,
    BIC,
    CLGAIC,
    CLGBIC,
    BDeu,
    CLGLogLikelihood,
    GaussianAIC,
    GaussianBIC,
    GaussianLogLikelihood,
    K2Score,
)

DATA = Path(__file__).parent / "data" / "pgmpy"
NETWORKS = Path(os.environ.get("SKBN_SHARED_NETWORKS",
                               Path(__file__).resolve().parents[2] / "shared" / "networks"))


def _gaussian_testdata():
    return pd.read_csv(DATA / "gaussian_testdata.csv.gz", index_col=0)


def _mixed_testdata():
    return pd.read_csv(DATA / "mixed_testdata.csv.gz", index_col=0)


def _adult():
    counts = pd.read_csv(DATA / "adult_counts.csv.gz", dtype={"HoursPerWeek": str})
    rows = counts.loc[counts.index.repeat(counts.pop("count"))].reset_index(drop=True)
    return rows


def _titanic():
    """titanic_train.csv's Survived, Sex, Pclass (891 rows) from their cell counts."""
    cells = {  # (Survived, Sex, Pclass): count
        (0, "female", 1): 3, (0, "female", 2): 6, (0, "female", 3): 72,
        (0, "male", 1): 77, (0, "male", 2): 91, (0, "male", 3): 300,
        (1, "female", 1): 91, (1, "female", 2): 70, (1, "female", 3): 72,
        (1, "male", 1): 45, (1, "male", 2): 17, (1, "male", 3): 47,
    }
    rows = [key for key, n in cells.items() for _ in range(n)]
    return pd.DataFrame(rows, columns=["Survived", "Sex", "Pclass"]).astype("category")


def _local(scorer, X, child, parents, column_types=None):
    """Local score of ``child | parents`` (pgmpy's ``local_score``) from skbn's public total
    score: the family's network minus the parents' empty network."""
    parents = list(parents)
    kind = {} if column_types is None else {"column_types": {c: column_types[c] for c in (child, *parents)}}
    total = scorer.score(X[[child, *parents]], [(p, child) for p in parents], **kind)
    if not parents:
        return total
    kind = {} if column_types is None else {"column_types": {c: column_types[c] for c in parents}}
    return total - scorer.score(X[parents], [], **kind)


def _skeleton(learner):
    return {frozenset(e) for e in (*learner.directed_edges_, *learner.undirected_edges_)}


# ---------------------------------------------------------------- structure scores

SMALL_DF = pd.DataFrame({"A": [0, 0, 1], "B": [0, 1, 0], "C": [1, 1, 0], "D": ["X", "Y", "Z"]})
SMALL_M1 = [("A", "C"), ("B", "C"), ("D", "B")]
SMALL_M2 = [("C", "A"), ("C", "B"), ("A", "D")]


@pytest.mark.parametrize(
    ("scorer", "m1", "m2"),
    [  # test_bdeu.py (pgmpy's default equivalent sample size is 10), test_k2, test_bic, test_aic
        (BDeu(ess=10), -9.907103407446435, -9.839964104608821),
        (K2Score(), -10.73813429536977, -10.345091707260167),
        (BIC(), -10.698440814229318, -9.625886526130714),
        (AIC(), -15.205379370888767, -13.68213122712422),
    ],
)
def test_discrete_scores_small_df(scorer, m1, m2):
    assert scorer.score(SMALL_DF, SMALL_M1) == pytest.approx(m1, rel=1e-12)
    assert scorer.score(SMALL_DF, SMALL_M2) == pytest.approx(m2, rel=1e-12)


@pytest.mark.parametrize(
    ("scorer", "expected"),
    [(BDeu(ess=25), -1892.7383393910427), (K2Score(), -1891.0630673606006),
     (BIC(), -1896.7250012840179), (AIC(), -1875.1594513603993)],
)
def test_discrete_scores_titanic(scorer, expected):
    """test_*.py::test_score_titanic: Sex -> Survived <- Pclass, and it beats Pclass -> Sex."""
    data = _titanic()
    titanic = [("Sex", "Survived"), ("Pclass", "Survived")]
    assert scorer.score(data, titanic) == pytest.approx(expected, rel=1e-12)
    assert scorer.score(data, [("Pclass", "Sex")]) < scorer.score(data, titanic)


# test_log_likelihood_gauss.py, test_aic_gauss.py, test_bic_gauss.py: pgmpy's Gaussian scores
# use the maximum-likelihood variance RSS/N (skbn variance="mle"); the bnlearn values in pgmpy's
# comments (score(..., type="loglik-g") etc.) use RSS/(N - p - 1), skbn's default. Both checked.
GAUSS_FAMILIES = [("A", ()), ("B", ()), ("C", ()), ("C", ("A", "B")), ("D", ("A", "B", "C"))]
GAUSS_EXPECTED = {
    # pgmpy's asserted values (variance="mle")
    (GaussianLogLikelihood, "mle"): [-119.7202, -257.0042, -328.2361, -78.3815, -27.1936],
    (GaussianAIC, "mle"): [-121.7202, -259.0042, -330.2361, -82.3815, -32.1936],
    (GaussianBIC, "mle"): [-124.3254, -261.6093, None, -87.5918, None],
    # bnlearn (variance="unbiased"): pgmpy's comments and
    #   score(model2network("[A][B][C|A:B]"), g[c("A","B","C")], type="loglik-g") = -455.1339
    (GaussianLogLikelihood, "unbiased"): [-119.7228, -257.0067, -328.2386, -78.4044, -27.2347],
    (GaussianAIC, "unbiased"): [-121.7228, -259.0067, -330.2386, -82.4044, -32.2347],
}
GAUSS_TOTALS = {  # A -> C <- B and A -> B -> C on columns A, B, C
    (GaussianLogLikelihood, "mle"): (-455.1058, -569.4505),
    (GaussianAIC, "mle"): (-463.1059, -577.4505),
    (GaussianBIC, "mle"): (-473.5265, -587.8711),
    (GaussianLogLikelihood, "unbiased"): (-455.1339, None),  # bnlearn, pgmpy's comment
    (GaussianAIC, "unbiased"): (-463.1339, None),  # bnlearn, pgmpy's comment
    (GaussianBIC, "unbiased"): (None, -587.8939),  # bnlearn bic-g on [A][B|A][C|B]
}


@pytest.mark.parametrize("key", list(GAUSS_TOTALS))
def test_gaussian_scores(key):
    klass, variance = key
    scorer = klass(variance=variance)
    data = _gaussian_testdata()
    for (child, parents), expected in zip(GAUSS_FAMILIES, GAUSS_EXPECTED.get(key, [])):
        if expected is not None:
            assert _local(scorer, data, child, parents) == pytest.approx(expected, abs=1e-3)
    three = data[["A", "B", "C"]]
    for edges, expected in zip(([("A", "C"), ("B", "C")], [("A", "B"), ("B", "C")]), GAUSS_TOTALS[key]):
        if expected is not None:
            assert scorer.score(three, edges) == pytest.approx(expected, abs=1e-3)


# test_log_likelihood_cond_gauss.py, test_aic_cond_gauss.py, test_bic_cond_gauss.py on
# mixed_testdata.csv. Families without continuous parents: skbn = pgmpy = bnlearn. With a
# continuous parent pgmpy divides the residual sum of squares by N - 1 whatever the number of
# parents (A | B: -119.4935 is -N/2 log(2 pi RSS/(N-1)) - (N-1)/2); skbn's default is
# bnlearn's N - p - 1, and the values below are bnlearn's:
#   score(model2network("[B][A|B]"), d[c("A","B")], type="loglik-g") - score([B]) = -119.5012
#   score(model2network("[B][B_cat][A|B:B_cat]"), ..., type="loglik-cg") - score([B][B_cat])
#     = -113.3972 (aic-cg -122.3972, bic-cg -134.1205)
#   score(model2network("[B][B_cat][C][C_cat][A|B:B_cat:C:C_cat]"), type="loglik-cg") = -Inf
# (pgmpy: -113.2371, -122.2372, -133.9605 and finite 19.1557 / -40.8443 / -118.9994 for the
# last family, some of whose configurations have no more rows than coefficients).
CLG_CASES = [
    ("A", ()), ("B", ()), ("C", ()), ("A_cat", ()), ("B_cat", ()), ("C_cat", ()),
    ("A", ("B",)), ("A", ("B_cat",)), ("A_cat", ("B_cat",)), ("A", ("B_cat", "B")),
    ("A", ("B_cat", "B", "C_cat", "C")),
]
CLG_EXPECTED = {
    CLGLogLikelihood: [-119.7228, -257.0067, -328.2386, -121.527, -81.6952, -130.1208,
                       -119.5012, -118.5250, -117.6219, -113.3972, -np.inf],
    CLGAIC: [-121.7228, -259.0067, -330.2386, -124.527, -83.6952, -134.1208,
             -122.5012, -124.525, -126.6219, -122.3972, -np.inf],
    CLGBIC: [-124.3279, -261.6119, -332.8438, -128.4347, -86.3004, -139.3311,
             -126.4089, -132.3405, -138.3452, -134.1205, -np.inf],
}


@pytest.mark.parametrize("klass", list(CLG_EXPECTED))
def test_clg_scores(klass):
    data = _mixed_testdata().drop(columns="B_int")
    types = {c: "discrete" if c.endswith("_cat") else "continuous" for c in data.columns}
    scorer = klass()
    got = [_local(scorer, data, c, p, types) for c, p in CLG_CASES]
    np.testing.assert_allclose(got, CLG_EXPECTED[klass], atol=1e-3)


def test_clg_scores_refuse_continuous_parent_of_discrete_child():
    """pgmpy scores A_cat | B (a discrete child of a continuous parent); a CLG network has no
    such family (bnlearn refuses it too), and skbn says so, naming the edge."""
    data = _mixed_testdata()[["A_cat", "B"]]
    with pytest.raises(ValueError, match="'B' -> 'A_cat'"):
        CLGLogLikelihood().score(data, [("B", "A_cat")])


# ---------------------------------------------------------------- CI tests on adult.csv

ADULT_CASES = [
    ("Age", "Immigrant", ()),
    ("Age", "Race", ()),
    ("Age", "Sex", ()),
    ("Education", "HoursPerWeek", ("Age", "Immigrant", "Race", "Sex")),
    ("Immigrant", "Sex", ()),
    ("Education", "MaritalStatus", ("Age", "Sex")),
    ("Income", "Race", ("Age", "Education", "HoursPerWeek", "MaritalStatus")),
    ("Immigrant", "Income", ("Age", "Education", "HoursPerWeek", "MaritalStatus")),
]
# test_chi_square.py::test_chisquare_adult_dataset (dagitty's values): statistic, log p, dof.
# pgmpy applies Yates' continuity correction to 2 x 2 tables (scipy's chi2_contingency
# default): Immigrant-Sex 0.2503 (log p -0.48), and, stratum by stratum, 66.39 (p 0.99) and
# 65.59 (p 0.999) for the last two. skbn's Pearson statistic is uncorrected, as bnlearn's:
#   ci.test("Immigrant", "Sex", data = d, test = "x2-adf")  -> 0.2724872, p 0.6016682, df 1
#   ci.test("Income", "Race", c("Age","Education","HoursPerWeek","MaritalStatus"), d,
#           test = "x2-adf")                                 -> 136.2804, p 0.4771043, df 136
#   ci.test("Immigrant", "Income", <same>, d, test = "x2-adf") -> 160.7569, p 0.03957671, df 131
# (pgmpy's older test_CITests.py asserts the uncorrected 0.2724 for Immigrant-Sex.)
CHI_SQUARE_EXPECTED = [
    (57.75, -25.47, 4), (56.25, -24.75, 4), (289.62, -139.82, 4), (1460.11, None, 316),
    (0.2724872, np.log(0.6016682), 1), (481.96, None, 58),
    (136.2804, np.log(0.4771043), 136), (160.7569, np.log(0.03957671), 131),
]
# bnlearn ci.test(..., test = "mi-adf") on the same cases (statistic, p-value, df)
G_TEST_EXPECTED = [
    (61.1807, None, 4), (58.2050, None, 4), (281.2638, None, 4), (1451.112, 1.139629e-144, 316),
    (0.2730888, 0.6012673, 1), (498.287, None, 58), (162.2665, 0.06176426, 136),
    (164.752, 0.02445464, 131),
]
# test_chi_square / test_g_sq / test_log_likelihood ::test_discrete_tests: independent at 0.05?
ADULT_DECISIONS = [False, False, False, False, True, False]


@pytest.fixture(scope="module")
def adult():
    return _adult()


def _adult_test(test, frame, x, y, z):
    return ci_test(frame, x, y, z, test=test)


def test_chi_square_adult(adult):
    for (x, y, z), (stat, log_p, dof) in zip(ADULT_CASES, CHI_SQUARE_EXPECTED):
        result = _adult_test(ChiSquare(min_samples_per_dof=0), adult, x, y, z)
        assert result.statistic == pytest.approx(stat, abs=1e-2), (x, y, z)
        assert result.dof == dof, (x, y, z)
        if log_p is not None:
            assert np.log(result.pvalue) == pytest.approx(log_p, abs=1e-2), (x, y, z)
        else:
            assert result.pvalue == pytest.approx(0, abs=1e-2)


def test_g_test_adult(adult):
    for (x, y, z), (stat, pvalue, dof) in zip(ADULT_CASES, G_TEST_EXPECTED):
        result = _adult_test(GTest(min_samples_per_dof=0), adult, x, y, z)
        assert result.statistic == pytest.approx(stat, abs=1e-3), (x, y, z)
        assert result.dof == dof
        if pvalue is not None:
            assert result.pvalue == pytest.approx(pvalue, rel=1e-5)


@pytest.mark.parametrize("test", [ChiSquare(alpha=0.05), GTest(alpha=0.05)])
def test_discrete_decisions_adult(test, adult):
    for (x, y, z), independent in zip(ADULT_CASES, ADULT_DECISIONS):
        assert _adult_test(test, adult, x, y, z).independent == independent, (x, y, z)


@pytest.mark.parametrize("test", [ChiSquare(), GTest()])
def test_exactly_same_vars(test):
    """test_*.py::test_exactly_same_vars: y = x (1000 binary draws): dof 1, p-value 0."""
    x = np.random.default_rng(0).integers(0, 2, size=1000)
    result = ci_test(pd.DataFrame({"x": x, "y": x.copy()}), "x", "y", test=test)
    assert result.dof == 1
    assert result.pvalue == pytest.approx(0, abs=1e-2)


# ---------------------------------------------------------------- Gaussian CI tests

def _pearsonr_data(v_coefficient):
    """test_pearsonr.py / test_fisher_z.py fixtures (v_coefficient 0.8 / 0.2), same draws."""
    rng = np.random.default_rng(seed=42)
    ind = pd.DataFrame(rng.standard_normal((10000, 3)), columns=["X", "Y", "Z"])
    z = rng.normal(size=10000)
    x = 0.3 * z + rng.normal(loc=0, scale=0.1, size=10000)
    y = 0.2 * z + rng.normal(loc=0, scale=0.1, size=10000)
    cind = pd.DataFrame({"X": x, "Y": y, "Z": z})
    z1, z2 = rng.normal(size=10000), rng.normal(size=10000)
    x = 0.3 * z1 + 0.2 * z2 + rng.normal(loc=0, scale=0.1, size=10000)
    y = 0.2 * z1 + 0.3 * z2 + rng.normal(loc=0, scale=0.1, size=10000)
    cind_mul = pd.DataFrame({"X": x, "Y": y, "Z1": z1, "Z2": z2})
    x, y = rng.normal(size=10000), rng.normal(size=10000)
    z = v_coefficient * x + v_coefficient * y + rng.normal(loc=0, scale=0.1, size=10000)
    vstruct = pd.DataFrame({"X": x, "Y": y, "Z": z})
    return [(ind, []), (cind, ["Z"]), (cind_mul, ["Z1", "Z2"]), (vstruct, ["Z"])]


def _gauss_test(test, frame, x, y, z):
    return ci_test(frame, x, y, z, test=test, column_types="continuous")


# pgmpy 1.1.2 on these arrays (Pearsonr's p-value, its statistic the partial correlation;
# FisherZ's statistic and p-value); skbn's t statistic differs from pgmpy's r by convention.
PEARSONR_PVALUES = [0.4538773472854894, 0.6041438552069008, 0.9926008424317261, 0.0]
FISHER_Z = [(0.7489513547760204, 0.45388652572389065), (-0.5184388859589744, 0.6041520895185739),
            (-0.009273369757500339, 0.9926010274902766), (None, 0.0)]
VSTRUCT_FISHER_Z = {0.8: -243.67659921351816, 0.2: -110.37310887856094}


@pytest.mark.parametrize("v_coefficient", [0.8, 0.2])
def test_pearsonr_and_fisher_z(v_coefficient):
    cases = _pearsonr_data(v_coefficient)
    for (frame, z), pvalue in zip(cases, PEARSONR_PVALUES):
        result = _gauss_test(PartialCorrelationT(alpha=0.05), frame, "X", "Y", z)
        assert result.pvalue == pytest.approx(pvalue, abs=1e-10)
        assert result.independent == (pvalue > 0.05)
    for (frame, z), (statistic, pvalue) in zip(cases, FISHER_Z):
        result = _gauss_test(FisherZ(alpha=0.05), frame, "X", "Y", z)
        statistic = VSTRUCT_FISHER_Z[v_coefficient] if statistic is None else statistic
        assert result.statistic == pytest.approx(statistic, rel=1e-9)
        assert result.pvalue == pytest.approx(pvalue, abs=1e-10)
        assert result.independent == (pvalue > 0.05)


def test_fisher_z_uses_partial_correlation():
    """test_fisher_z.py::test_fisher_z_uses_pearsonr_partial_correlation: 40 rows, 5
    conditioning columns; z = sqrt(n - |S| - 3) atanh(r). pgmpy: r = 0.29210667684679664."""
    rng = np.random.default_rng(seed=7)
    columns = [f"Z{i}" for i in range(5)]
    data = pd.DataFrame(rng.standard_normal((40, 5)), columns=columns)
    data["X"] = data[columns].sum(axis=1) + rng.normal(scale=1.0, size=40)
    data["Y"] = 0.35 * data["X"] + data[columns].sum(axis=1) + rng.normal(scale=1.2, size=40)
    statistic = np.sqrt(40 - 5 - 3) * np.arctanh(0.29210667684679664)
    result = _gauss_test(FisherZ(), data, "X", "Y", columns)
    assert result.statistic == pytest.approx(statistic, rel=1e-9)
    assert result.pvalue == pytest.approx(2 * norm.sf(abs(statistic)), rel=1e-9)
    assert _gauss_test(PartialCorrelationT(), data, "X", "Y", columns).pvalue == pytest.approx(
        0.08861908064654507, rel=1e-9)  # pgmpy's Pearsonr p-value


# ---------------------------------------------------------------- PC

def _legacy(seed):
    """pgmpy's tests draw after ``np.random.seed(seed)``: the same stream as this."""
    return np.random.RandomState(seed)


@pytest.mark.parametrize("variant", ["original", "stable"])
@pytest.mark.parametrize("test", [ChiSquare(alpha=0.005), GTest(alpha=0.005)])
def test_pc_skeleton_discrete(variant, test):
    """test_PC.py::test_build_skeleton_chi_square / _discrete: F = A + B + C on 5 fair coins:
    skeleton A-F, B-F, C-F and every separating set empty."""
    data = pd.DataFrame(_legacy(42).randint(0, 2, size=(10000, 5)), columns=list("ABCDE"))
    data["F"] = data["A"] + data["B"] + data["C"]
    learner = PCStructure(ci_test=test, variant=variant, fit_parameters=False).fit(data)
    assert _skeleton(learner) == {frozenset(e) for e in [("A", "F"), ("B", "F"), ("C", "F")]}
    assert len(learner.sepsets_) == 12
    assert all(s == () for s in learner.sepsets_.values())


def test_pc_dag_discrete():
    """test_PC.py::test_build_dag_discrete: X, Y, Z on 3 states and their sum: X -> sum <- Y,
    Z -> sum."""
    data = pd.DataFrame(_legacy(42).randint(0, 3, size=(10000, 3)), columns=list("XYZ"))
    data["sum"] = data.sum(axis=1)
    learner = PCStructure(ci_test=ChiSquare(alpha=0.001), fit_parameters=False).fit(data)
    assert set(learner.directed_edges_) == {("X", "sum"), ("Y", "sum"), ("Z", "sum")}
    assert not learner.undirected_edges_


@pytest.mark.filterwarnings("ignore::UserWarning")  # F (sum) is a linear function of A, B, C
@pytest.mark.parametrize("test", [PartialCorrelationT(), FisherZ()])
def test_pc_continuous(test):
    """test_PC.py::test_build_skeleton_continuous / test_build_dag_continuous (pearsonr)."""
    data = pd.DataFrame(_legacy(42).randn(10000, 5), columns=list("ABCDE"))
    data["F"] = data["A"] + data["B"] + data["C"]
    learner = PCStructure(ci_test=test, fit_parameters=False).fit(data)
    assert set(learner.directed_edges_) == {("A", "F"), ("B", "F"), ("C", "F")}
    assert all(s == () for s in learner.sepsets_.values())
    data = pd.DataFrame(_legacy(42).randn(10000, 3), columns=list("XYZ"))
    data["sum"] = data.sum(axis=1)
    learner = PCStructure(ci_test=test, fit_parameters=False).fit(data)
    assert set(learner.directed_edges_) == {("X", "sum"), ("Y", "sum"), ("Z", "sum")}


def test_pc_oracle():
    """test_PC.py::test_build_skeleton_from_ind / test_estimate_dag with the independencies of
    A -> C <- B, B -> D, C -> E: pgmpy accepts either of two separating-set dicts (D-E by C or
    by B); skbn finds the second, and a DAG extension is the true DAG."""
    dag = [("A", "C"), ("B", "C"), ("B", "D"), ("C", "E")]
    data = pd.DataFrame([[0] * 5, [0] * 5], columns=list("ABCDE"))
    for variant in ("original", "stable"):
        learner = PCStructure(ci_test=DSeparationOracle(dag), variant=variant, fit_parameters=False).fit(data)
        assert {frozenset(k): v for k, v in learner.sepsets_.items()} == {
            frozenset("CD"): ("B",), frozenset("BE"): ("C",), frozenset("AD"): (),
            frozenset("DE"): ("B",), frozenset("AE"): ("C",), frozenset("AB"): (),
        }
        assert set(pdag_to_dag(learner.cpdag_)) == set(dag)


def test_pc_stable_order_independence():
    """test_PC.py::test_stable_variant_order_independence: the stable skeleton does not
    change under 5 column permutations."""
    rng = np.random.default_rng(seed=42)
    data = pd.DataFrame(rng.integers(0, 3, size=(2000, 12)), columns=[chr(65 + i) for i in range(12)])
    data["M"] = (data["A"] + data["B"] + data["C"]) % 3
    data["N"] = (data["D"] + data["E"] + data["F"]) % 3
    data["O"] = (data["M"] + data["N"] + data["G"]) % 3
    skeletons = set()
    for _ in range(5):
        shuffled = data[list(rng.permutation(data.columns))]
        learner = PCStructure(ci_test=ChiSquare(alpha=0.05), fit_parameters=False).fit(shuffled)
        skeletons.add(frozenset(_skeleton(learner)))
    assert len(skeletons) == 1


@pytest.mark.skipif(not NETWORKS.is_dir(), reason="shared networks absent")
def test_pc_knowledge_cancer_asia():
    """test_PC.py::test_temporal_pc_cancer (tiers) and test_pc_asia_expert (required edges),
    on 5e4 / 1e5 rows drawn from the same networks with skbn's sampler."""
    data = read_bif(NETWORKS / "cancer.bif").sample(50000, random_state=42)
    learner = PCStructure(tiers=[["Pollution", "Smoker", "Cancer"], ["Dyspnoea", "Xray"]],
                          max_cond_vars=4, fit_parameters=False).fit(data)
    assert set(learner.directed_edges_) == {("Cancer", "Xray"), ("Cancer", "Dyspnoea"),
                                            ("Smoker", "Cancer"), ("Pollution", "Cancer")}
    assert not learner.undirected_edges_
    data = read_bif(NETWORKS / "asia.bif").sample(100000, random_state=42)
    required = [("lung", "either"), ("tub", "either"), ("bronc", "dysp")]
    learner = PCStructure(max_cond_vars=2, white_list=required, fit_parameters=False).fit(data)
    assert set(required) <= set(learner.directed_edges_)


# ---------------------------------------------------------------- score-based search

def _rand_data(n, seed):
    data = pd.DataFrame(_legacy(seed).randint(0, 5, size=(n, 2)), columns=list("AB"), dtype="category")
    data["C"] = data["B"]
    return data


@pytest.mark.parametrize("scorer", ["k2", "bdeu", "bic", "aic"])
def test_hill_climb_rand(scorer):
    """test_HillClimbSearch.py::test_estimate_rand / test_estimate_discrete: C = B, A
    independent: the one edge B - C (from the empty DAG, from A -> B, A -> C, or required)."""
    data = _rand_data(10000, 0)
    for kwargs in ({}, {"start": [("A", "B"), ("A", "C")]}, {"white_list": [("B", "C")]}):
        edges = HillClimbStructure(scorer=scorer, fit_parameters=False, **kwargs).fit(data).edges_
        assert {frozenset(e) for e in edges} == {frozenset("BC")}, kwargs


def test_hill_climb_titanic():
    """test_HillClimbSearch.py::test_estimate_titanic."""
    data = _titanic()
    edges = HillClimbStructure(scorer="k2", fit_parameters=False).fit(data).edges_
    assert set(edges) == {("Survived", "Pclass"), ("Sex", "Pclass"), ("Sex", "Survived")}
    edges = HillClimbStructure(scorer="k2", white_list=[("Pclass", "Survived")],
                               fit_parameters=False).fit(data).edges_
    assert ("Pclass", "Survived") in edges
    edges = HillClimbStructure(tiers=[["Pclass", "Sex"], ["Survived"]], fit_parameters=False).fit(data).edges_
    assert set(edges) <= {("Sex", "Survived"), ("Sex", "Pclass"), ("Pclass", "Sex"), ("Pclass", "Survived")}


def test_hill_climb_gaussian_and_mixed():
    """test_HillClimbSearch.py::test_estimate_gaussian / test_estimate_mixed_data (pgmpy only
    checks that fit runs; here the learned DAGs are checked to be DAGs over every column and
    a CLG-valid one: no discrete child of a continuous parent). pgmpy's "ll-cg" is unbounded;
    skbn asks for max_indegree with it."""
    data = _gaussian_testdata()
    for scorer in ("aic-g", "bic-g"):
        learner = HillClimbStructure(scorer=scorer, fit_parameters=False).fit(data)
        assert learner.edges_ and set(learner.feature_names_in_) == set(data.columns)
    mixed = _mixed_testdata()
    for column in ("A_cat", "B_cat", "C_cat", "B_int"):
        mixed[column] = mixed[column].astype("category")
    with pytest.raises(ValueError, match="max_indegree"):
        HillClimbStructure(scorer="loglik-cg", fit_parameters=False).fit(mixed)
    for learner in (HillClimbStructure(scorer="loglik-cg", max_indegree=2, fit_parameters=False),
                    HillClimbStructure(scorer="bic-cg", fit_parameters=False)):
        edges = learner.fit(mixed).edges_
        discrete = {"A_cat", "B_cat", "C_cat", "B_int"}
        assert not [(p, c) for p, c in edges if c in discrete and p not in discrete]


# test_ExhaustiveSearch.py::test_all_scores: the K2 score of every DAG on titanic's
# Survived, Sex, Pclass that pgmpy enumerates (the 25 DAGs on 3 nodes).
K2_ALL_SCORES = [
    (-2072.9132364404695, []),
    (-2069.071694164769, [("Pclass", "Sex")]),
    (-2069.0144197068785, [("Sex", "Pclass")]),
    (-2025.869489762676, [("Survived", "Pclass")]),
    (-2025.8559302273054, [("Pclass", "Survived")]),
    (-2022.0279474869753, [("Pclass", "Sex"), ("Survived", "Pclass")]),
    (-2022.0143879516047, [("Pclass", "Sex"), ("Pclass", "Survived")]),
    (-2021.9571134937144, [("Pclass", "Survived"), ("Sex", "Pclass")]),
    (-2017.5258065853768, [("Sex", "Pclass"), ("Survived", "Pclass")]),
    (-1941.3075053892837, [("Survived", "Sex")]),
    (-1941.2720031713893, [("Sex", "Survived")]),
    (-1937.4304608956886, [("Pclass", "Sex"), ("Sex", "Survived")]),
    (-1937.4086886556927, [("Sex", "Pclass"), ("Survived", "Sex")]),
    (-1937.3731864377983, [("Sex", "Pclass"), ("Sex", "Survived")]),
    (-1934.1344850608882, [("Pclass", "Sex"), ("Survived", "Sex")]),
    (-1894.2637587114903, [("Survived", "Pclass"), ("Survived", "Sex")]),
    (-1894.2501991761198, [("Pclass", "Survived"), ("Survived", "Sex")]),
    (-1894.2282564935958, [("Sex", "Survived"), ("Survived", "Pclass")]),
    (-1891.0630673606006, [("Pclass", "Survived"), ("Sex", "Survived")]),
    (-1887.2215250849, [("Pclass", "Sex"), ("Pclass", "Survived"), ("Sex", "Survived")]),
    (-1887.1642506270096, [("Pclass", "Survived"), ("Sex", "Pclass"), ("Sex", "Survived")]),
    (-1887.0907383830947, [("Pclass", "Sex"), ("Survived", "Pclass"), ("Survived", "Sex")]),
    (-1887.0771788477243, [("Pclass", "Sex"), ("Pclass", "Survived"), ("Survived", "Sex")]),
    (-1885.9200755341915, [("Sex", "Pclass"), ("Survived", "Pclass"), ("Survived", "Sex")]),
    (-1885.884573316297, [("Sex", "Pclass"), ("Sex", "Survived"), ("Survived", "Pclass")]),
]


def test_exhaustive_titanic():
    data = _titanic()
    scorer = K2Score()
    for expected, edges in K2_ALL_SCORES:
        assert scorer.score(data, edges) == pytest.approx(expected, rel=1e-12), edges
    best = ExactStructure(scorer="k2", fit_parameters=False).fit(data).edges_
    assert set(best) == set(K2_ALL_SCORES[-1][1])
    # test_estimate_titanic_bic_default: pgmpy's DAG Pclass -> Survived <- Sex, Pclass -> Sex is
    # complete, so every complete DAG ties under BIC; skbn's is one of them.
    best = ExactStructure(scorer="bic", fit_parameters=False).fit(data).edges_
    assert len(best) == 3


def test_exhaustive_rand():
    """test_ExhaustiveSearch.py::test_estimate_rand on 5000 rows, C = B. BDeu and BIC: the edge
    B - C, as pgmpy. K2: pgmpy asserts B -> A, B -> C, C -> A, because its K2 score of A given
    the duplicated parents {B, C} (-16208.70 for the DAG) exceeds that of A given C alone; it
    cannot: the 20 unobserved parent configurations add 0, so A | {B, C} scores as A | C.
    bnlearn: score(model2network("[B][C|B][A|B:C]"), d, type = "k2") = -16272.26, equal to
    "[B][C|B][A|C]"; the best K2 DAG is the single edge, score -16239.44."""
    data = _rand_data(5000, 42)
    assert K2Score().score(data, [("B", "A"), ("B", "C"), ("C", "A")]) == pytest.approx(-16272.26, abs=0.01)
    assert K2Score().score(data, [("B", "C"), ("C", "A")]) == pytest.approx(-16272.26, abs=0.01)
    assert K2Score().score(data, [("C", "B")]) == pytest.approx(-16239.44, abs=0.01)
    for scorer in ("k2", "bdeu", "bic"):
        edges = ExactStructure(scorer=scorer, fit_parameters=False).fit(data).edges_
        assert {frozenset(e) for e in edges} == {frozenset("BC")}, scorer


@pytest.mark.parametrize("scorer", ["bdeu", "bic"])
def test_ges_rand(scorer):
    """test_GES.py::test_estimate_rand: the one edge B - C. (pgmpy's GES also runs with K2,
    which is not score equivalent; skbn's GES refuses it, naming the reason.)"""
    data = _rand_data(10000, 0)
    learner = GESStructure(scorer=scorer, fit_parameters=False).fit(data)
    assert {frozenset(e) for e in learner.edges_} == {frozenset("BC")}
    with pytest.raises(ValueError, match="score-equivalent"):
        GESStructure(scorer="k2", fit_parameters=False).fit(data)


# ---------------------------------------------------------------- trees, MMHC

def _network(spec):
    """A DiscreteBayesianNetwork from pgmpy-style TabularCPD values (rows: child states,
    columns: parent configurations, last parent fastest)."""
    def table(values, cards):
        values = np.asarray(values, dtype=float)
        return values.T.reshape(*cards, values.shape[0])

    return DiscreteBayesianNetwork(
        {n: list(range(card)) for n, (card, _, _) in spec.items()},
        {n: parents for n, (_, parents, _) in spec.items()},
        {n: table(v, [spec[p][0] for p in parents]) for n, (_, parents, v) in spec.items()})


def test_chow_liu_and_tan():
    """test_TreeSearch.py::test_estimate_chow_liu (data13) and test_estimate_tan (data22): the
    generating tree / TAN structure is recovered from 10,000 rows (drawn with skbn)."""
    tree = _network({
        "A": (2, (), [[0.4], [0.6]]), "B": (3, ("A",), [[0.6, 0.2], [0.3, 0.5], [0.1, 0.3]]),
        "C": (2, ("A",), [[0.3, 0.4], [0.7, 0.6]]),
        "D": (3, ("B",), [[0.5, 0.3, 0.1], [0.4, 0.4, 0.8], [0.1, 0.3, 0.1]]),
        "E": (2, ("B",), [[0.3, 0.5, 0.2], [0.7, 0.5, 0.8]]),
        "F": (3, ("C",), [[0.3, 0.6], [0.5, 0.2], [0.2, 0.2]])})
    data = tree.sample(10000, random_state=0)
    assert set(ChowLiuTree(root="A", fit_parameters=False).fit(data).edges_) == set(tree.edges)
    tan = _network({
        "A": (2, (), [[0.7], [0.3]]), "R": (3, ("A",), [[0.6, 0.2], [0.3, 0.5], [0.1, 0.3]]),
        "B": (3, ("A", "R"), [[0.1, 0.1, 0.2, 0.2, 0.7, 0.1], [0.1, 0.3, 0.1, 0.2, 0.1, 0.2],
                              [0.8, 0.6, 0.7, 0.6, 0.2, 0.7]]),
        "C": (2, ("A", "R"), [[0.7, 0.2, 0.2, 0.5, 0.1, 0.3], [0.3, 0.8, 0.8, 0.5, 0.9, 0.7]]),
        "D": (3, ("A", "R"), [[0.3, 0.8, 0.2, 0.8, 0.4, 0.7], [0.4, 0.1, 0.4, 0.1, 0.1, 0.1],
                              [0.3, 0.1, 0.4, 0.1, 0.5, 0.2]]),
        "E": (2, ("A", "R"), [[0.5, 0.6, 0.6, 0.5, 0.5, 0.4], [0.5, 0.4, 0.4, 0.5, 0.5, 0.6]])})
    data = tan.sample(10000, random_state=0)
    learner = ChowLiuTree(variant="tan", target="A", root="R", fit_parameters=False).fit(data)
    assert set(learner.edges_) == set(tan.edges)


def test_chow_liu_data12():
    """test_TreeSearch.py::test_estimate_chow_liu_auto_root_node: pgmpy's tree on 100 rows of
    5 coins, rooted at D (pgmpy's automatic root, the largest total mutual information; skbn's
    default root is the first column, so D is passed)."""
    data = pd.DataFrame(_legacy(0).randint(low=0, high=2, size=(100, 5)), columns=list("ABCDE"))
    edges = ChowLiuTree(root="D", fit_parameters=False).fit(data).edges_
    assert set(edges) == {("C", "E"), ("D", "A"), ("D", "B"), ("D", "C")}  # pgmpy 1.1.2's


def test_mmhc_sum():
    """test_MmhcEstimator.py::test_estimate: X, Y, Z coins and their sum (1e5 rows)."""
    data = pd.DataFrame(_legacy(0).randint(0, 2, size=(100000, 3)), columns=list("XYZ"))
    data["sum"] = data.sum(axis=1)
    for test in ("auto", ChiSquare(alpha=0.001)):
        edges = MMHCStructure(ci_test=test, fit_parameters=False).fit(data).edges_
        assert set(edges) == {("X", "sum"), ("Y", "sum"), ("Z", "sum")}


# ---------------------------------------------------------------- parameters

D1 = pd.DataFrame({"A": [0, 0, 1], "B": [0, 1, 0], "C": [1, 1, 0]})
D2 = pd.DataFrame({"A": [0, 0, 1, 0, 2, 0, 2, 1, 0, 2], "B": ["X", "Y"] * 5,
                   "C": [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]})
COLLIDER = [("A", "C"), ("B", "C")]


def _cpd(cpt):
    """skbn's CPT (parents..., child) as pgmpy's (child, parent configurations) matrix."""
    return cpt.reshape(-1, cpt.shape[-1]).T


def test_bayesian_estimator():
    """test_BayesianEstimator.py: test_estimate_cpd_shortcuts (BDeu, ess 9, declared states),
    test_get_parameters (pgmpy's default BDeu ess 5) and the K2 prior of C (one pseudo-count
    per cell = BDeu with ess q r = 12 for C's family)."""
    fitted = FixedStructure(edges=COLLIDER, categories={"A": [0, 1, 2], "B": [0, 1], "C": [0, 1, 23]},
                            parameter_ess=9).fit(D1).network_
    third = 1 / 3
    np.testing.assert_allclose(_cpd(fitted.cpts["C"]), [
        [0.2, 0.2, 0.6, third, third, third], [0.6, 0.6, 0.2, third, third, third],
        [0.2, 0.2, 0.2, third, third, third]])
    fitted = FixedStructure(edges=COLLIDER, parameter_ess=5).fit(D2).network_
    np.testing.assert_allclose(fitted.cpts["A"], [4 / 9, 11 / 45, 14 / 45])
    np.testing.assert_allclose(fitted.cpts["B"], [0.5, 0.5])
    np.testing.assert_allclose(_cpd(fitted.cpts["C"]), [
        [0.5, 29 / 46, 5 / 22, 17 / 22, 29 / 34, 17 / 22], [0.5, 17 / 46, 17 / 22, 5 / 22, 5 / 34, 5 / 22]])
    fitted = FixedStructure(edges=COLLIDER, parameter_ess=12).fit(D2).network_
    np.testing.assert_allclose(_cpd(fitted.cpts["C"]), [
        [0.5, 0.6, 1 / 3, 2 / 3, 0.75, 2 / 3], [0.5, 0.4, 2 / 3, 1 / 3, 0.25, 1 / 3]])


def test_maximum_likelihood_estimator():
    """test_MaximumLikelihoodEstimator.py: state names, booleans, declared unobserved states
    (an unobserved parent configuration gets the uniform row; pgmpy's improper-prior test
    gives NaN there), and integer sample weights equal to repeated rows."""
    fitted = FixedStructure(edges=[("A", "B")], parameter_estimator="mle").fit(
        pd.DataFrame({"A": [2, 3, 8, 8, 8], "B": ["X", "O", "X", "O", "X"]})).network_
    assert fitted.states == {"A": [2, 3, 8], "B": ["O", "X"]}
    np.testing.assert_allclose(_cpd(fitted.cpts["B"]), [[0, 1, 1 / 3], [1, 0, 2 / 3]])
    frame = pd.DataFrame({"Fruit": ["Apple", "Apple", "Apple", "Banana", "Banana"],
                          "Light?": [True, True, False, False, True],
                          "Color": ["red", "green", "black", "black", "yellow"]})
    fitted = FixedStructure(edges=[("Light?", "Color"), ("Fruit", "Color")],
                            parameter_estimator="mle").fit(frame).network_
    assert fitted.states["Color"] == ["black", "green", "red", "yellow"]
    assert fitted.parents["Color"] == ("Fruit", "Light?")
    np.testing.assert_allclose(_cpd(fitted.cpts["Color"]), [
        [1, 0, 1, 0], [0, 0.5, 0, 0], [0, 0.5, 0, 0], [0, 0, 0, 1]])
    fitted = FixedStructure(edges=COLLIDER, parameter_estimator="mle",
                            categories={"A": [0, 1, 23], "B": [0, 1], "C": [0, 42, 1]}).fit(D1).network_
    np.testing.assert_allclose(fitted.cpts["A"], [2 / 3, 1 / 3, 0])
    third = 1 / 3
    np.testing.assert_allclose(_cpd(fitted.cpts["C"]), [
        [0, 0, 1, third, third, third], [0, 0, 0, third, third, third], [1, 1, 0, third, third, third]])
    weights = np.array([2.0, 1.0, 3.0])
    weighted = FixedStructure(edges=COLLIDER, parameter_estimator="mle").fit(
        D1, sample_weight=weights).network_
    repeated = FixedStructure(edges=COLLIDER, parameter_estimator="mle").fit(
        D1.loc[D1.index.repeat(weights.astype(int))]).network_
    for node in "ABC":
        np.testing.assert_allclose(weighted.cpts[node], repeated.cpts[node])
    with pytest.raises(ValueError, match="sample_weight has 2 entries but X has 3 rows"):
        FixedStructure(edges=COLLIDER).fit(D1, sample_weight=np.array([1.0, 2.0]))


# ---------------------------------------------------------------- linear Gaussian networks

LGBN = GaussianBayesianNetwork(
    nodes=["x1", "x2", "x3"], parents={"x2": ["x1"], "x3": ["x2"]},
    intercepts={"x1": 1.0, "x2": -5.0, "x3": 4.0}, coefficients={"x2": [0.5], "x3": [-1.0]},
    sigmas={"x1": 4.0, "x2": 4.0, "x3": 3.0})


def test_lgbn_predict():
    """test_LinearGaussianBayesianNetwork.py::test_predict_simple /
    test_predict_probability_simple: E[x2 | x1, x3] on pgmpy's 10 simulated rows (x1, x3 as
    pgmpy 1.1.2 simulates them with seed 42) and Var[x2 | x1, x3] = 1 / (1/16 + 1/9) = 5.76."""
    rows = [[-3.307168, 9.68807], [-7.195367, 9.493212], [-0.324284, 8.75894], [5.615272, 6.073939],
            [4.430069, 10.720208], [4.413358, 3.430609], [-1.104963, 12.72811], [6.600835, 6.289162],
            [0.671714, 6.499968], [1.413728, 11.360896]]
    predicted = LGBN.predict(pd.DataFrame(rows, columns=["x1", "x3"]), "x2")
    np.testing.assert_allclose(np.round(predicted, 2),
                               [-6.04, -6.61, -4.90, -2.12, -5.30, -0.64, -7.58, -2.08, -3.28, -6.26])
    posterior = LGBN.query("x2", evidence={"x1": rows[0][0], "x3": rows[0][1]})
    assert float(np.squeeze(posterior.covariance)) == pytest.approx(5.76)


def test_lgbn_log_likelihood_and_fit():
    """test_log_likelihood (pgmpy 1.1.2 on these arrays: -813.3387059659025 and
    -2518.037003446838) and test_fit (parameters recovered from 1e5 rows to 0.1)."""
    rng = _legacy(42)
    x1 = rng.normal(0, 4, 100)
    x2 = -5 + 0.5 * x1 + rng.normal(0, 4, 100)
    x3 = 4 - 1 * x2 + rng.normal(0, 3, 100)
    good = pd.DataFrame({"x1": x1, "x2": x2, "x3": x3})
    bad = pd.DataFrame(rng.normal(0, 10, (100, 3)), columns=["x1", "x2", "x3"])
    assert LGBN.log_likelihood(good).sum() == pytest.approx(-813.3387059659025, rel=1e-12)
    assert LGBN.log_likelihood(bad).sum() == pytest.approx(-2518.037003446838, rel=1e-12)
    with pytest.raises(ValueError, match="not nodes of the network"):
        LGBN.log_likelihood(pd.DataFrame(np.zeros((3, 3)), columns=["a", "b", "c"]))
    fitted = GaussianBayesianNetwork.from_data(LGBN.sample(100000, random_state=42), LGBN.edges)
    for node in LGBN.nodes:
        assert fitted.intercepts[node] == pytest.approx(LGBN.intercepts[node], abs=0.1)
        assert fitted.sigmas[node] == pytest.approx(LGBN.sigmas[node], abs=0.1)
        np.testing.assert_allclose(fitted.coefficients[node], LGBN.coefficients[node], atol=0.1)


# ---------------------------------------------------------------- inference

def test_variable_elimination():
    """test_ExactInference.py::TestVariableElimination (pgmpy's values from SamIam)."""
    net = _network({
        "A": (2, (), [[0.2], [0.8]]), "R": (2, (), [[0.4], [0.6]]), "G": (2, (), [[0.6], [0.4]]),
        "J": (2, ("A", "R"), [[0.9, 0.6, 0.7, 0.1], [0.1, 0.4, 0.3, 0.9]]),
        "Q": (2, ("J",), [[0.9, 0.2], [0.1, 0.8]]),
        "L": (2, ("J", "G"), [[0.9, 0.45, 0.8, 0.1], [0.1, 0.55, 0.2, 0.9]])})
    np.testing.assert_allclose(net.query(["J"]).to_numpy(), [0.416, 0.584])
    np.testing.assert_allclose(net.query(["J", "Q"]).to_numpy(), [0.3744, 0.0416, 0.1168, 0.4672])
    np.testing.assert_allclose(net.query(["J"], evidence={"A": 0, "R": 1}).to_numpy(), [0.6, 0.4])
    np.testing.assert_allclose(net.query(["J", "Q"], evidence={"A": 0, "R": 0, "G": 0, "L": 1}).to_numpy(),
                               [0.73636364, 0.08181818, 0.03636364, 0.14545455], atol=1e-8)
    with pytest.raises(ValueError, match="both a query variable and in the evidence"):
        net.query(["J"], evidence={"J": 0})
    with pytest.raises(ValueError, match="Unknown state -1 for node 'A'"):
        net.query(["J"], evidence={"A": -1})
    with pytest.raises(ValueError, match="at least one variable"):
        net.query([], evidence={"A": 1})


# ---------------------------------------------------------------- metrics

def test_structural_hamming_distance():
    """test_shd.py (edge_reverse_penalty=1, a reversal counts once)."""
    assert structural_hamming_distance([(1, 2)], [(2, 1)]) == 1
    assert structural_hamming_distance([(1, 2), (2, 4), (1, 3), (3, 4)],
                                       [(1, 2), (1, 3), (3, 2), (3, 4)]) == 2
    assert structural_hamming_distance([(1, 2), (1, 3), (2, 4), (3, 5), (4, 5), (5, 6)],
                                       [(1, 2), (1, 3), (4, 2), (3, 5), (4, 6), (5, 6)]) == 3
    assert structural_hamming_distance([(1, 2)], [(1, 2), (2, 3)], [1, 2, 3]) == 1
    assert structural_hamming_distance([(1, 2), (2, 3)], [(1, 2)], [1, 2, 3]) == 1
    dag1 = [(1, 2), (2, 3), (2, 4), (4, 5), (6, 5), (7, 8)]
    dag2 = [(1, 2), (2, 4), (5, 4), (6, 5), (8, 7), (9, 10)]
    assert structural_hamming_distance(dag1, dag2, range(1, 11)) == 4
    assert structural_hamming_distance(dag2, dag1, range(1, 11)) == 4
    # test_shd_unequal_graphs: pgmpy refuses graphs on different nodes; skbn refuses an edge on
    # a node outside the declared ones (without `nodes` it compares on the union of nodes).
    with pytest.raises(ValueError, match="not in `nodes`"):
        structural_hamming_distance([(1, 2), (1, 3), (3, 2), (3, 4)],
                                    [(1, 2), (1, 3), (3, 2), (3, 5)], [1, 2, 3, 4])
