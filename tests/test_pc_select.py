"""PCSelect (PC-simple) against R pcalg 2.7-12 ``pcSelect`` and the scikit-learn contract."""

import pickle
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from sklearn.base import clone
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from skbn import HillClimbStructure, PCSelect
from skbn.estimators import PCSelect as PCSelectFromEstimators
from skbn.exceptions import DeterminedColumnsWarning

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_pc_select import linear_gaussian  # noqa: E402

# pcalg numbers: the data are written to a CSV (last column y) and R runs
#   d <- as.matrix(read.csv(path, header = FALSE)); y <- d[, ncol(d)]; dm <- d[, -ncol(d)]
#   res <- pcSelect(y, dm, alpha = 0.05); which(res$G) - 1; res$zMin[res$G]
# (benchmarks/bench_pc_select.py, R 4.2.2, pcalg 2.7-12).
PCALG = [
    ((20, 100, 0), [5, 8, 18], [2.609610424, 2.051419816, 2.237559366]),
    ((50, 200, 2), [24, 30, 31, 35], [2.16755993, 2.660439906, 6.070448772, 7.471813762]),
    ((200, 100, 4), [6, 145, 177, 192], [3.614905292, 3.611695042, 2.781590398, 2.401797915]),
    ((200, 1000, 6), [24, 41, 67, 182, 199],
     [2.000210876, 2.017630909, 2.143392994, 2.150678862, 1.976855314]),
]


def _z(pvalues):
    return norm.isf(np.asarray(pvalues) / 2)


@pytest.mark.parametrize(("shape", "selected", "zmin"), PCALG)
def test_same_set_and_zmin_as_pcalg(shape, selected, zmin):
    X, y = linear_gaussian(*shape)
    est = PCSelect(alpha=0.05).fit(X, y)
    assert np.flatnonzero(est.support_).tolist() == selected
    np.testing.assert_allclose(_z(est.pvalues_[selected]), zmin, rtol=1e-8)


def test_diabetes_as_pcalg():
    # pcSelect(load_diabetes target, data, alpha = 0.05) (same R call as above)
    zmin = [0.9862250225, 0.9028073781, 9.030320779, 4.133807965, 1.752960259, 0.559309427,
            1.864298102, 0.8565933067, 8.195447285, 1.450764629]
    data = load_diabetes(as_frame=True)
    with pytest.warns(UserWarning, match="only 2 distinct values"):  # the 'sex' column
        est = PCSelect().fit(data.data, data.target)
    assert est.get_feature_names_out().tolist() == ["bmi", "bp", "s5"]  # pcalg: columns 3, 4, 9
    np.testing.assert_allclose(_z(est.pvalues_), zmin, rtol=1e-8)
    assert est.feature_names_in_.tolist() == list(data.data.columns)


def test_small_n_rule_drops_as_pcalg():
    # n = 4: order 1 has n - |S| - 3 = 0, pcalg's zStat gives z = 0 (independence), so the
    # first feature is dropped; the second then has no other active feature left.
    # pcSelect(...) -> selected column 1 (0-based), zMin = 0, 8.40562139, 1.09438064
    rng = np.random.default_rng(1)
    y = rng.normal(size=4)
    X = np.column_stack([y + 1e-3 * rng.normal(size=4), y + 1e-3 * rng.normal(size=4), rng.normal(size=4)])
    with pytest.warns(UserWarning):
        est = PCSelect().fit(X, y)
    assert est.get_support(indices=True).tolist() == [1]
    np.testing.assert_allclose(_z(est.pvalues_), [0.0, 8.40562139, 1.09438064], rtol=1e-8, atol=1e-12)
    assert est.pvalues_[0] == 1.0


def test_definition_on_small_problem():
    # every kept feature is dependent on y given every subset of the other kept features
    X, y = linear_gaussian(8, 300, 11)
    est = PCSelect(alpha=0.05).fit(X, y)
    from itertools import combinations

    from skbn._counting import moments
    from skbn.citests import FisherZ

    stats = moments(np.column_stack([X, y]))
    kept = est.get_support(indices=True).tolist()
    for x in kept:
        others = [j for j in kept if j != x]
        for m in range(len(others) + 1):
            for subset in combinations(others, m):
                assert FisherZ().test_moments(stats, x, 8, subset).pvalue <= 0.05
    assert est.pvalues_.max() <= 1.0 and (est.pvalues_[est.support_] <= 0.05).all()
    assert (est.pvalues_[~est.support_] > 0.05).all()


def test_max_cond_vars_zero_is_marginal_screening():
    X, y = linear_gaussian(20, 200, 3)
    est = PCSelect(max_cond_vars=0).fit(X, y)
    r = np.array([np.corrcoef(X[:, j], y)[0, 1] for j in range(20)])
    p = 2 * norm.sf(np.sqrt(200 - 3) * np.abs(np.arctanh(r)))
    np.testing.assert_array_equal(est.support_, p <= 0.05)
    np.testing.assert_allclose(est.pvalues_, p, rtol=1e-9)
    assert est.max_order_ == 0


def test_integer_weights_equal_replicated_rows():
    X, y = linear_gaussian(10, 150, 5)
    w = np.random.default_rng(0).integers(0, 4, size=150)
    weighted = PCSelect().fit(X, y, sample_weight=w)
    replicated = PCSelect().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_array_equal(weighted.support_, replicated.support_)
    np.testing.assert_allclose(weighted.pvalues_, replicated.pvalues_, rtol=1e-9, atol=1e-300)


def test_pipeline_cross_val_score():
    data = load_diabetes()
    pipe = make_pipeline(PCSelect(column_types={1: "continuous"}), LinearRegression())
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        scores = cross_val_score(pipe, data.data, data.target, cv=5)
    assert scores.shape == (5,) and np.all(scores > 0.3)


def test_clone_pickle_set_params_refit():
    X, y = linear_gaussian(20, 200, 7)
    est = PCSelect(alpha=0.01).fit(X, y)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.transform(X), est.transform(X))
    fresh = clone(est).set_params(alpha=0.2)
    assert fresh.alpha == 0.2 and not hasattr(fresh, "support_")
    assert fresh.fit(X, y).support_.sum() >= est.support_.sum()
    small = est.fit(X[:, :5], y)
    assert small.support_.shape == (5,) and small.n_features_in_ == 5
    assert PCSelectFromEstimators is PCSelect


def test_discrete_features_and_target():
    rng = np.random.default_rng(2)
    n = 2000
    a = rng.integers(0, 3, n)
    b = rng.integers(0, 2, n)
    c = (a + rng.integers(0, 2, n)) % 3  # depends on y only through a
    y = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))
    X = pd.DataFrame({"a": a, "b": b, "c": c}).astype(str)
    est = PCSelect().fit(X, y.astype(str))
    assert est.ci_test_.__class__.__name__ == "ChiSquare"
    assert est.get_feature_names_out().tolist() == ["a"]
    from scipy.stats import chi2_contingency

    # b is dropped at order 0: its p-value is the marginal Pearson chi-square test's
    expected = chi2_contingency(pd.crosstab(b, y), correction=False)[1]
    assert est.pvalues_[1] == pytest.approx(expected, rel=1e-9)
    assert set(est.column_types_.values()) == {"discrete"}


def test_discrete_features_and_a_continuous_target():
    # every feature discrete and the target a measurement: the target stays continuous (the
    # CLG test), where it was read as one category per distinct value, which made every
    # feature (noise included) "dependent" at p = 0 under the chi-square test
    rng = np.random.default_rng(0)
    n = 1000
    X = pd.DataFrame({f"g{j}": rng.integers(0, 3, n) for j in range(5)})
    y = 2.0 * X["g0"] - 1.5 * X["g1"] + rng.normal(size=n)
    est = PCSelect().fit(X, y)
    assert est.target_type_ == "continuous"
    assert est.ci_test_.__class__.__name__ == "CLGMutualInformation"
    assert est.get_feature_names_out().tolist() == ["g0", "g1"]
    frame = X.assign(target=y)
    dropped = np.flatnonzero(est.pvalues_ > est.alpha)
    assert len(dropped) == 3
    for j in dropped:  # dropped at order 0: the marginal test, computed from the rows
        expected = _clg_pvalue(frame, f"g{j}", "target", [], set(X.columns))
        assert est.pvalues_[j] == pytest.approx(expected, rel=1e-9)
    # whole numbers the column-type rule takes for codes (class labels) stay discrete
    labels = PCSelect().fit(X, (y > 0).astype(int))
    assert labels.target_type_ == "discrete" and labels.ci_test_.__class__.__name__ == "ChiSquare"


def test_target_read_as_the_encoder_reads_a_column():
    # np.asarray dropped a categorical's dtype (integer categories became a continuous
    # target, tested by Fisher's z), an object array of floats was a discrete target with
    # one state per value, and an infinite value made the target discrete; all silently
    rng = np.random.default_rng(1)
    n = 600
    cls = rng.integers(0, 3, n)
    X = pd.DataFrame({"a": (cls == 1) + rng.normal(0, 0.5, n), "b": rng.normal(size=n)})
    as_text = PCSelect().fit(X, cls.astype(str))
    assert as_text.get_feature_names_out().tolist() == ["a"]
    for y in (pd.Series(pd.Categorical(cls)), pd.Categorical(cls), pd.DataFrame({"y": pd.Categorical(cls)})):
        est = PCSelect().fit(X, y)  # a is uncorrelated with the codes 0, 1, 2: Fisher's z dropped it
        assert est.target_type_ == "discrete"
        np.testing.assert_allclose(est.pvalues_, as_text.pvalues_, rtol=1e-12)
    y = X["a"] - X["b"] + rng.normal(size=n)
    floats = PCSelect().fit(X, y)
    objects = PCSelect().fit(X, y.to_numpy(dtype=object))
    assert objects.target_type_ == "continuous"
    np.testing.assert_array_equal(objects.pvalues_, floats.pvalues_)
    with pytest.raises(ValueError, match="infinity"):
        PCSelect().fit(X, y.where(y.index != 3, np.inf))


def test_one_column_type_string_declares_every_feature():
    # R's mtcars-like features: whole numbers (hp: 22 values in 32 rows) that the rule
    # refuses undeclared; column_types="continuous" declares every feature (it was dropped)
    rng = np.random.default_rng(4)
    hp = rng.choice(np.arange(50, 340, 5), size=32)
    wt = np.round(rng.uniform(1.5, 5.5, 32), 3)
    mpg = 40 - 0.03 * hp - 3 * wt + rng.normal(0, 1, 32)
    X = pd.DataFrame({"hp": hp, "cyl": rng.choice([4, 6, 8], 32), "wt": wt})
    with pytest.raises(ValueError, match="Column 'hp' is numeric"):
        PCSelect().fit(X, mpg)
    est = PCSelect(column_types="continuous").fit(X, mpg)
    assert est.column_types_ == {"hp": "continuous", "cyl": "continuous", "wt": "continuous"}
    assert est.ci_test_.__class__.__name__ == "FisherZ"
    X["hp"] = X["hp"] % 3
    est = PCSelect(column_types="discrete").fit(X.drop(columns="wt"), (mpg > 20).astype(int))
    assert set(est.column_types_.values()) == {"discrete"}


def test_bad_input_errors():
    X, y = linear_gaussian(4, 100, 0)
    mixed = pd.DataFrame({"x": X[:, 0], "k": np.arange(100) % 3})
    with pytest.raises(ValueError, match="ci_test=FisherZ does not apply to mixed data"):
        PCSelect(ci_test="zf").fit(mixed, y)
    with pytest.raises(ValueError, match="ci_test=FisherZ does not apply to mixed data"):
        PCSelect(ci_test="zf").fit(X, np.array(["a", "b"] * 50))  # a discrete target
    with pytest.raises(ValueError, match="ci_test=ChiSquare does not apply to continuous data"):
        PCSelect(ci_test="chi_square").fit(X, y)
    with pytest.raises(ValueError, match="ci_test=ChiSquare does not apply to mixed data"):
        PCSelect(ci_test="chi_square").fit(mixed, y)
    with pytest.raises(ValueError, match="rows of X"):
        PCSelect().fit(X, y[:-1])
    with pytest.raises(ValueError, match="rows of X"):
        PCSelect().fit(mixed, y[:, None].repeat(2, axis=1))
    with pytest.raises(ValueError, match="requires y"):
        PCSelect().fit(mixed, None)
    with pytest.raises(ValueError, match="column_types has 1 entries"):
        PCSelect(column_types=["continuous"]).fit(mixed, y)
    with pytest.raises(ValueError, match="alpha"):
        PCSelect(alpha=1.5).fit(mixed, y)
    bad = mixed.assign(x=mixed["x"].where(mixed.index != 7))  # a missing cell
    with pytest.raises(ValueError, match="'x'"):
        PCSelect().fit(bad, y)
    # a missing label: refused as y's (it named the internal column '__target__'), saying why
    # and what to do
    for unlabelled in (np.where(np.arange(100) == 7, np.nan, y), np.where(np.arange(100) == 7, None, "a")):
        with pytest.raises(ValueError, match=r"Input y contains NaN \(1 of 100 rows\)\. PCSelect is a "
                                             r"scikit-learn feature selector.*Drop those rows"):
            PCSelect().fit(mixed, unlabelled)
    weights = np.where(np.arange(100) == 7, 0.0, 1.0)  # a row of weight 0 is not read
    PCSelect().fit(mixed, np.where(np.arange(100) == 7, np.nan, y), sample_weight=weights)


# -- mixed features: the conditional-Gaussian test (bnlearn's "mi-cg") ------------------------
def clg_with_sink(n, seed, discrete_target=False):
    """Mixed data (names with dots and spaces, states "None" and "NA", rows sorted by a
    discrete column) whose target is a sink with parents {"u.1", "v 2", "a"} (continuous
    target), or a discrete target with parent "a" and child "u.1" (``discrete_target``)."""
    rng = np.random.default_rng(seed)
    a = rng.choice(["None", "NA", "x"], n)
    b = rng.choice(["p", "q"], n)
    c = np.where(rng.random(n) < 0.7, a, rng.choice(["None", "NA", "x"], n))  # a child of a
    effect = {"None": 0.0, "NA": 1.0, "x": -1.0}
    if discrete_target:
        y = np.where(rng.random(n) < 0.8, a, rng.choice(["None", "NA", "x"], n))
        u = np.vectorize(effect.get)(y) + rng.normal(size=n)  # a child of y
        v = rng.normal(size=n)
        w = 0.9 * u + rng.normal(size=n)  # separated from y by u
        truth = ["a", "u.1"]
    else:
        u = (b == "q") + rng.normal(size=n)
        v = rng.normal(size=n)
        y = 0.8 * u - 0.6 * v + np.vectorize(effect.get)(a) + rng.normal(size=n)
        w = 0.9 * u + rng.normal(size=n)  # separated from y by u
        truth = ["u.1", "v 2", "a"]
    X = pd.DataFrame({"u.1": u, "a": a, "v 2": v, "b": b, "w": w, "c": c})
    order = np.argsort(b, kind="stable")
    return X.iloc[order].reset_index(drop=True), np.asarray(y)[order], truth


@pytest.mark.parametrize("discrete_target", [False, True])
def test_mixed_features_select_the_large_sample_truth(discrete_target):
    X, y, truth = clg_with_sink(20_000, 4, discrete_target)
    est = PCSelect().fit(X, y)
    assert type(est.ci_test_).__name__ == "CLGMutualInformation"
    assert est.target_type_ == ("discrete" if discrete_target else "continuous")
    assert sorted(est.get_feature_names_out()) == sorted(truth)
    assert est.column_types_ == {"u.1": "continuous", "a": "discrete", "v 2": "continuous",
                                 "b": "discrete", "w": "continuous", "c": "discrete"}


def _clg_pvalue(frame, x, y, subset, discrete):
    """bnlearn's "mi-cg" test of a continuous ``y`` by least squares on the rows of each
    configuration (the definition, independent of the moments): x continuous, twice the
    log-likelihood ratio of y on (Sc, x) against y on Sc in each configuration of Sd; x
    discrete, y on Sc per configuration of (Sd, x) against per configuration of Sd."""
    from scipy.stats import chi2

    sd = [v for v in subset if v in discrete]
    sc = [v for v in subset if v not in discrete]

    def loglik(rows, parents):
        design = np.column_stack([np.ones(len(rows)), rows[parents].to_numpy(float)])
        target = rows[y].to_numpy(float)
        m = design.shape[1]
        resid = target - design @ np.linalg.lstsq(design, target, rcond=None)[0]
        rss, n = float(resid @ resid), len(rows)
        if n <= m or rss <= 1e-12 * max(float(((target - target.mean()) ** 2).sum()), 1e-300):
            return None
        return -0.5 * n * np.log(2 * np.pi * rss / (n - m)) - 0.5 * (n - m)

    def configurations(columns):
        if not columns:
            return [frame]
        return [rows for _, rows in frame.groupby(columns, observed=True)]

    if x in discrete:
        full = [loglik(rows, sc) for rows in configurations(sd + [x])]
        reduced = [loglik(rows, sc) for rows in configurations(sd)]
        statistic = 2 * (sum(v for v in full if v is not None) - sum(v for v in reduced if v is not None))
        dof = (frame[x].nunique() - 1) * sum(v is not None for v in reduced) * (len(sc) + 2)
    else:
        statistic, dof = 0.0, 0
        for rows in configurations(sd):
            full = loglik(rows, sc + [x])
            if full is not None:
                statistic += 2 * (full - loglik(rows, sc))
                dof += 1
    return float(chi2.sf(max(statistic, 0.0), dof)) if dof > 0 else 1.0


def test_mixed_features_follow_the_definition():
    """PC-simple written out (orders, lexicographic subsets of the other active features,
    the features in name order, a feature dropped at its first p-value above alpha leaves
    the later sets of its order) on the CLG test computed from the rows: the same set,
    p-values and number of tests, whatever the column order."""
    from itertools import combinations

    X, y, _ = clg_with_sink(300, 8)
    frame = X.assign(target=y)
    names = sorted(X.columns)
    discrete = {"a", "b", "c"}
    active = dict.fromkeys(names, True)
    pvalues = dict.fromkeys(names, 0.0)
    n_tests, order, largest = 0, 0, -1
    while True:
        more = False
        for x in names:
            others = [v for v in names if active[v] and v != x]
            if not active[x] or len(others) < order:
                continue
            more = more or len(others) > order
            for subset in combinations(others, order):
                pvalue = _clg_pvalue(frame, x, "target", list(subset), discrete)
                n_tests, largest = n_tests + 1, order
                pvalues[x] = max(pvalues[x], pvalue)
                if pvalue > 0.05:
                    active[x] = False
                    break
        order += 1
        if not more:
            break
    for columns in (list(X.columns), names, names[::-1]):
        est = PCSelect().fit(X[columns], y)
        assert est.support_.tolist() == [active[v] for v in columns]
        np.testing.assert_allclose(est.pvalues_, [pvalues[v] for v in columns], rtol=1e-8, atol=1e-12)
        assert est.n_tests_ == n_tests and est.max_order_ == largest


def test_max_order_is_the_largest_set_tested():
    # n = 6 rows, 10 features: order 0 drops all but at most one feature, so no set of size 1
    # is ever tested (max_order_ once reported the empty order 1)
    X, y = linear_gaussian(10, 6, 1)
    est = PCSelect().fit(X, y)
    assert est.support_.sum() <= 1 and est.n_tests_ == 10 and est.max_order_ == 0


# X holding a dict cell: skbn's encoder raises a ValueError naming the column, scikit-learn
# expects numpy's TypeError ("argument must be a string or a number").
_EXPECTED_FAILED = {"check_dtype_object": "skbn's encoder refuses unhashable cells with a ValueError naming "
                                          "the column, not numpy's TypeError"}


@parametrize_with_checks([PCSelect()], expected_failed_checks=lambda est: _EXPECTED_FAILED)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_robust_test_reads_robust_moments():
    # 5% of the rows put feature 3 and y far out together: Fisher's z on the plain moments
    # keeps feature 3; the robust test (Minimum Covariance Determinant moments, which the CI
    # runner computes for statistics="robust") sees through them
    rng = np.random.default_rng(0)
    n = 400
    X = rng.normal(size=(n, 4))
    y = X[:, 0] + rng.normal(size=n)
    bad = rng.choice(n, 20, replace=False)
    X[bad, 3] = 50 + rng.normal(size=20)
    y[bad] = 50 + rng.normal(size=20)
    assert 3 in PCSelect(ci_test="zf").fit(X, y).get_support(indices=True)
    robust = PCSelect(ci_test="robust_fisher_z").fit(X, y).get_support(indices=True)
    assert 0 in robust and 3 not in robust


def test_the_selection_does_not_depend_on_the_column_order():
    """pcalg's pcSelect depends on the column order (a feature dropped early leaves the
    later conditioning sets of its order); PCSelect takes the features in name order, so
    every order of the columns gives the same selection and p-values. On these data
    (R's ``longley`` shape: collinear economic series, the target one of them) pcSelect
    selects one set or another depending on the order."""
    import itertools

    rng = np.random.default_rng(3)
    trend = np.linspace(0, 1, 40)
    X = pd.DataFrame({"gnp": trend + 0.02 * rng.normal(size=40),
                      "population": trend + 0.03 * rng.normal(size=40),
                      "unemployed": rng.normal(size=40), "armed": 0.5 * trend + rng.normal(size=40)})
    y = X["gnp"] + 0.5 * X["population"] - 0.3 * X["unemployed"] + 0.05 * rng.normal(size=40)
    first = PCSelect().fit(X, y)
    for columns in itertools.permutations(X.columns):
        est = PCSelect().fit(X[list(columns)], y)
        assert dict(zip(columns, est.support_)) == dict(zip(X.columns, first.support_))
        expected = dict(zip(X.columns, first.pvalues_))
        assert dict(zip(columns, est.pvalues_)) == pytest.approx(expected, rel=1e-12)


def test_target_errors_and_warnings_name_y():
    # the target was encoded as a column named by an internal placeholder: "Input X contains
    # NaN in column '__target__'" for a missing value of y
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 3)), columns=list("abc"))
    y = pd.Series(2 * X["a"] + rng.normal(size=200), name="price")
    for bad, match in ((y.where(y.index != 5), "Input y contains NaN"),
                       (y.where(y.index != 5, np.inf), "Input y contains infinity"),
                       (y * 0 + 1.5, "Input y is continuous and constant")):
        with pytest.raises(ValueError, match=match) as info:
            PCSelect().fit(X, bad)
        assert "__target__" not in str(info.value)
    classes = (X["a"] > 0).astype(int) + (X["b"] > 0)  # 0, 1, 2 with continuous features
    with pytest.warns(UserWarning, match=r"Input y is continuous but has only 3 distinct values.*"
                                         r"y\.astype\('category'\)") as record:
        PCSelect().fit(X, classes)
    assert not any("__target__" in str(w.message) for w in record)
    with pytest.raises(ValueError, match="Complex data not supported \\(column 'price'\\)"):
        PCSelect().fit(X, pd.Series(np.full(200, 1j), name="price"))


def test_column_types_keys_as_the_learners_key_them():
    # with an array X a learner keys column_types by position (0, 1, ...); PCSelect wanted
    # the strings "0", "1" (and refused the learners' keys as unknown)
    rng = np.random.default_rng(3)
    n = 300
    X = np.column_stack([rng.integers(0, 40, n), rng.normal(size=n), rng.normal(size=n)]).astype(float)
    y = 0.1 * X[:, 0] + X[:, 1] + rng.normal(size=n)
    with pytest.raises(ValueError, match="Column 0 is numeric"):
        PCSelect().fit(X, y)  # whole numbers with 40 values: undeclared, refused
    est = PCSelect(column_types={0: "continuous"}).fit(X, y)
    assert est.column_types_ == {0: "continuous", 1: "continuous", 2: "continuous"}
    learner = HillClimbStructure(column_types={0: "continuous"}).fit(np.column_stack([X, y]))
    assert learner.column_types_[0] == est.column_types_[0]
    for key in ("0", 7):
        with pytest.raises(ValueError, match=rf"column_types has key\(s\) \[{key!r}\] that are not columns "
                                             r"of X \(columns: \[0, 1, 2\]\)"):
            PCSelect(column_types={key: "continuous"}).fit(X, y)
    frame = pd.DataFrame(X, columns=["n", "u", "v"])
    with pytest.raises(ValueError, match=r"key\(s\) \['typo'\]"):
        PCSelect(column_types={"n": "continuous", "typo": "discrete"}).fit(frame, y)
    assert PCSelect(column_types={"n": "continuous"}).fit(frame, y).column_types_["n"] == "continuous"


def test_a_point_mass_of_the_target_in_a_group_is_warned_about():
    """A continuous target exactly 0 in one group of a discrete feature (CreditCard's
    ``expenditure`` where ``card`` is ``no``): the CLG test leaves that group out of its
    regressions, so PC-simple found the feature independent of the target (p-value 1) and
    dropped it without a word. It now warns, naming the target, the feature and the state;
    the same when a continuous feature has no spread in a class of a discrete target."""
    rng = np.random.default_rng(0)
    g = np.repeat(["no", "yes"], 50)
    X = pd.DataFrame({"g": g, "x": rng.normal(size=100)})
    y = pd.Series(np.where(g == "no", 0.0, 5.0 + rng.normal(size=100)), name="spent")
    message = "PCSelect: 'spent' where 'g' is 'no'.*drop the feature"
    with pytest.warns(DeterminedColumnsWarning, match=message):
        selector = PCSelect().fit(X, y)
    assert selector.pvalues_[0] == 1.0 and not selector.support_[0]
    features = pd.DataFrame({"spent": y, "x": X["x"]})
    with pytest.warns(DeterminedColumnsWarning, match="PCSelect: 'spent' where 'card' is 'no'"):
        PCSelect().fit(features, pd.Series(g, name="card"))


def _constant_feature_fits(X, y, **params):
    """PCSelect fitted on ``X`` and warned about its constant features (the warning's text)."""
    with pytest.warns(UserWarning, match="constant in the") as record:
        selector = PCSelect(**params).fit(X, y)
    messages = [str(w.message) for w in record if "constant in the" in str(w.message)]
    assert len(messages) == 1
    return selector, messages[0]


def test_a_constant_feature_is_not_selected_as_pcalg_drops_it():
    """A continuous feature constant in the rows fitted was refused ("has no variance to
    model"), so a cross-validation fold in which a rare dummy is constant crashed. pcalg's
    pcSelect finds its correlation NA and its z 0 (p-value 1): dropped at order 0, never in
    a conditioning set; scikit-learn's f_regression gives it p-value 1 too. PCSelect sets it
    aside, warning: not selected, p-value 1, no test; the other features' results are
    those without the column, bit for bit, and transform drops it from new data."""
    X, y = linear_gaussian(8, 200, 3)
    X = pd.DataFrame(X, columns=[f"x{j}" for j in range(8)])
    without = PCSelect().fit(X, y)
    flat = X.assign(k=0.5)[["x0", "x1", "x2", "k", *X.columns[3:]]]  # in the middle of the name order
    selector, message = _constant_feature_fits(flat, y)
    assert message.startswith("PCSelect: feature 'k' is constant in the 200 rows fitted ('k' is always 0.5)")
    kept = np.flatnonzero(flat.columns != "k")
    assert not selector.support_[3] and selector.pvalues_[3] == 1.0
    np.testing.assert_array_equal(selector.support_[kept], without.support_)
    np.testing.assert_array_equal(selector.pvalues_[kept], without.pvalues_)
    assert (selector.n_tests_, selector.max_order_) == (without.n_tests_, without.max_order_)
    new = flat.assign(k=np.arange(200.0))  # the column varies in new data: still dropped
    np.testing.assert_array_equal(selector.transform(new), without.transform(X))
    assert list(selector.get_feature_names_out()) == list(without.get_feature_names_out())
    # a constant array column declared continuous, and a constant target still refused
    array = np.column_stack([X.to_numpy(), np.full(200, 3.0)])
    selector, message = _constant_feature_fits(array, y, column_types="continuous")
    assert "feature 8 is constant" in message and "8 is always 3.0" in message and not selector.support_[8]
    with pytest.raises(ValueError, match="Input y is continuous and constant"):
        PCSelect().fit(flat, np.full(200, 2.5))


def test_a_discrete_feature_with_one_state_and_a_target_with_one_class():
    """A discrete feature with a single observed state (declared states unobserved) is set
    aside as a constant measurement is (its test found p-value 1 silently); a discrete
    target with a single class is refused naming y, as a constant continuous one is."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.integers(0, 3, size=(300, 3)), columns=list("abc"))
    y = pd.Series((X["a"] + rng.integers(0, 2, 300)) % 3, name="label")
    without = PCSelect().fit(X, y)
    for one in (np.ones(300, dtype=int), pd.Categorical(["u"] * 300, categories=["u", "v"])):
        selector, message = _constant_feature_fits(X.assign(k=one), y)
        assert "feature 'k' is constant in the 300 rows" in message
        assert not selector.support_[3] and selector.pvalues_[3] == 1.0
        np.testing.assert_array_equal(selector.support_[:3], without.support_)
        np.testing.assert_array_equal(selector.pvalues_[:3], without.pvalues_)
        assert selector.n_tests_ == without.n_tests_
    for target in (np.ones(300, dtype=int), np.array(["x"] * 300)):
        with pytest.raises(ValueError, match=r"Input y has a single class .* in the 300 rows"):
            PCSelect().fit(X, target)


def test_every_feature_constant_selects_nothing():
    y = np.random.default_rng(0).normal(size=50)
    X = pd.DataFrame({"u": np.full(50, 1.5), "v": np.zeros(50, dtype=int)})
    selector, message = _constant_feature_fits(X, y)
    assert message.startswith("PCSelect: every feature is constant in the 50 rows fitted ('u' is always "
                              "1.5; 'v' is always 0)")
    assert "Nothing is selected" in message
    assert not selector.support_.any() and (selector.pvalues_ == 1.0).all()
    assert (selector.n_tests_, selector.max_order_) == (0, -1)
    with pytest.warns(UserWarning, match="No features were selected"):
        assert selector.transform(X).shape == (50, 0)


def test_cross_val_score_when_a_fold_has_a_constant_feature():
    """wage1's construc (24 of 526 rows 1) with rows sorted by it and unshuffled KFold: the
    last fold's training rows hold only 0s. That fold crashed; it now drops the feature."""
    rng = np.random.default_rng(0)
    n = 200
    X = pd.DataFrame({"educ": rng.normal(12, 2, n), "exper": rng.normal(17, 8, n),
                      "construc": (np.arange(n) >= n - 20).astype(float)})
    y = 0.1 * X["educ"] + 0.01 * X["exper"] + 0.2 * X["construc"] + rng.normal(0, 0.4, n)
    pipe = make_pipeline(PCSelect(column_types="continuous"), LinearRegression())
    message = "feature 'construc' is constant in the 160 rows fitted \\('construc' is always 0.0\\)"
    with pytest.warns(UserWarning, match=message):
        scores = cross_val_score(pipe, X, y, cv=KFold(5), error_score="raise")
    assert scores.shape == (5,) and np.isfinite(scores).all()
