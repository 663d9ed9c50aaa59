"""Estimators on continuous and mixed data: the Gaussian / CLG network a fit holds, its
likelihood, predictions and samples, checked against R bnlearn 4.9 and by hand.

The data are regenerated here by numpy; the R numbers come from these calls on the same
rows written with ``float_format="%.17g"`` (``g.csv`` = ``_gaussian_data()``, ``c.csv`` =
``_clg_data()``, read with ``read.csv(..., stringsAsFactors = TRUE)``)::

    library(bnlearn)
    dag <- model2network("[A][B][E][G][C|A:B][D|B][F|A:D:E:G]")
    f <- bn.fit(dag, g); coef(f$C); f$C$sd; coef(f$F); f$F$sd; logLik(f, g)
    f <- bn.fit(dag, g[1:200, ]); logLik(f, g[201:300, ])
    predict(f, node = "F", data = g[201:205, ], method = "parents")
    dag2 <- model2network("[A][B][C|A][D|A][E|B:D][G|A:E]")
    f2 <- bn.fit(dag2, c); f2$C$prob; f2$E$coefficients; f2$E$sd; f2$G$coefficients;
    f2$G$sd; logLik(f2, c)
    logLik(bn.fit(dag2, c[1:300, ]), c[301:400, ])
"""

import pickle
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import with_duplicated_column
from scipy.special import logsumexp
from scipy.stats import multivariate_normal, norm
from sklearn.base import clone
from sklearn.metrics import r2_score
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from skbn.estimators import FixedStructure, HillClimbStructure
from skbn.exceptions import DeterminedColumnsWarning
from skbn.network import CLGBayesianNetwork, GaussianBayesianNetwork

GAUSSIAN_EDGES = [("A", "C"), ("B", "C"), ("B", "D"), ("A", "F"), ("D", "F"), ("E", "F"),
                  ("G", "F")]
CLG_EDGES = [("A", "C"), ("A", "D"), ("B", "E"), ("D", "E"), ("A", "G"), ("E", "G")]
#: parameter_ess small enough that the Bayesian CPTs are bnlearn's "mle" ones to ~1e-12
#: (bnlearn's bn.fit refuses method="bayes" on mixed data)
TINY_ESS = 1e-12


def _gaussian_data(n=300, seed=20):
    rng = np.random.default_rng(seed)
    A = rng.normal(1.0, 1.0, n)
    B = rng.normal(2.0, 3.0, n)
    E = rng.normal(3.0, 2.0, n)
    G = rng.normal(5.0, 2.0, n)
    C = 2.0 + 1.5 * A + 0.8 * B + rng.normal(0, 0.5, n)
    D = 1.0 + 2.0 * B + rng.normal(0, 1.0, n)
    F = 0.5 * A + 1.2 * D - 0.7 * E + 0.3 * G + rng.normal(0, 1.5, n)
    return pd.DataFrame({"A": A, "B": B, "C": C, "D": D, "E": E, "F": F, "G": G})


def _clg_data(n=400, seed=21):
    rng = np.random.default_rng(seed)
    A = rng.choice(["a", "b"], n, p=[0.4, 0.6])
    B = rng.choice(["a", "b", "c"], n, p=[0.3, 0.3, 0.4])
    C = np.where(A == "a", rng.choice(["a", "b"], n, p=[0.7, 0.3]),
                 rng.choice(["a", "b"], n, p=[0.2, 0.8]))
    D = np.where(A == "a", 2.0, -1.0) + rng.normal(0, 1.0, n)
    bmean = pd.Series(B).map({"a": 0.0, "b": 3.0, "c": -2.0}).to_numpy()
    E = bmean + np.where(B == "a", 1.5, -0.5) * D + rng.normal(0, 0.8, n)
    G = np.where(A == "a", 1.0, 4.0) + 0.6 * E + rng.normal(0, 1.2, n)
    return pd.DataFrame({"A": A, "B": B, "C": C, "D": D, "E": E, "G": G})


# ---------------------------------------------------------------- parameters (bn.fit)
def test_gaussian_fit_is_bnlearn_bn_fit_and_loglik():
    X = _gaussian_data()
    model = FixedStructure(edges=GAUSSIAN_EDGES).fit(X)
    net = model.network_
    assert isinstance(net, GaussianBayesianNetwork)
    assert model.column_types_ == dict.fromkeys("ABCDEFG", "continuous")
    assert net.parents["F"] == ("A", "D", "E", "G")
    np.testing.assert_allclose(
        [net.intercepts["C"], *net.coefficients["C"], net.sigmas["C"]],
        [1.99315562976003, 1.49840616570051, 0.786731103663576, 0.497070044186411], rtol=1e-12)
    np.testing.assert_allclose(
        [net.intercepts["F"], *net.coefficients["F"], net.sigmas["F"]],
        [0.145566413459057, 0.648766234131731, 1.21449305331091, -0.697255185241529,
         0.210931104599427, 1.56387763261718], rtol=1e-11)
    np.testing.assert_allclose([net.intercepts["A"], net.sigmas["A"]],
                               [0.820966523633748, 1.02152002148856], rtol=1e-12)
    assert model.score_samples(X).sum() == pytest.approx(-3653.3712595074, rel=1e-12)
    assert model.score(X) == pytest.approx(-3653.3712595074 / 300, rel=1e-12)


def test_mle_variance_is_rss_over_n():
    X = _gaussian_data()
    unbiased = FixedStructure(edges=GAUSSIAN_EDGES).fit(X).network_
    mle = FixedStructure(edges=GAUSSIAN_EDGES, parameter_estimator="mle").fit(X).network_
    for node, p in (("A", 0), ("C", 2), ("F", 4)):
        np.testing.assert_allclose(mle.coefficients[node], unbiased.coefficients[node])
        assert mle.sigmas[node] == pytest.approx(unbiased.sigmas[node] * np.sqrt((300 - p - 1) / 300),
                                                 rel=1e-12)
    # and by hand: the least-squares residuals of C on A, B
    design = np.column_stack([np.ones(300), X[["A", "B"]]])
    beta, rss, *_ = np.linalg.lstsq(design, X["C"], rcond=None)
    np.testing.assert_allclose([mle.intercepts["C"], *mle.coefficients["C"]], beta, rtol=1e-10)
    assert mle.sigmas["C"] == pytest.approx(np.sqrt(rss[0] / 300), rel=1e-10)


def test_clg_fit_is_bnlearn_bn_fit_and_loglik():
    X = _clg_data()
    model = FixedStructure(edges=CLG_EDGES).fit(X)
    net = model.network_
    assert isinstance(net, CLGBayesianNetwork)
    assert model.column_types_ == {"A": "discrete", "B": "discrete", "C": "discrete",
                                   "D": "continuous", "E": "continuous", "G": "continuous"}
    assert model.categories_[3] is None and list(model.categories_[0]) == ["a", "b"]
    # E | B (discrete), D (continuous): one regression per state of B
    np.testing.assert_allclose(net.intercepts["E"], [0.109663170861388, 3.09164493157938,
                                                     -1.94817164750663], rtol=1e-11)
    np.testing.assert_allclose(net.coefficients["E"][:, 0], [1.5214299076736, -0.525441885264765,
                                                             -0.482889933106643], rtol=1e-11)
    np.testing.assert_allclose(net.sigmas["E"], [0.842607217616586, 0.76687286065652,
                                                 0.787659546477371], rtol=1e-11)
    np.testing.assert_allclose(net.intercepts["G"], [1.01385228346481, 3.90505808858315], rtol=1e-11)
    np.testing.assert_allclose(net.coefficients["G"][:, 0], [0.641238066719325, 0.621867688744534],
                               rtol=1e-11)
    np.testing.assert_allclose(net.sigmas["G"], [1.34121222346924, 1.24012966293121], rtol=1e-11)
    mle = FixedStructure(edges=CLG_EDGES, parameter_estimator="mle").fit(X).network_
    np.testing.assert_allclose(np.asarray(mle.cpts["C"]).ravel(),
                               [0.672619047619048, 0.327380952380952, 0.219827586206897,
                                0.780172413793103], rtol=1e-12)
    near_mle = FixedStructure(edges=CLG_EDGES, parameter_ess=TINY_ESS).fit(X)
    assert near_mle.score_samples(X).sum() == pytest.approx(-2641.13226501528, rel=1e-10)


def test_held_out_loglik_is_bnlearn():
    g = _gaussian_data()
    model = FixedStructure(edges=GAUSSIAN_EDGES).fit(g.iloc[:200])
    assert model.score_samples(g.iloc[200:]).sum() == pytest.approx(-1245.1350940904, rel=1e-12)
    c = _clg_data()
    model = FixedStructure(edges=CLG_EDGES, parameter_ess=TINY_ESS).fit(c.iloc[:300])
    assert model.score_samples(c.iloc[300:]).sum() == pytest.approx(-661.141766255536, rel=1e-10)


def test_sample_weight_integer_equals_replicated_rows():
    X = _clg_data(n=200)
    w = np.random.default_rng(0).integers(0, 4, len(X))
    weighted = FixedStructure(edges=CLG_EDGES).fit(X, sample_weight=w)
    replicated = FixedStructure(edges=CLG_EDGES).fit(X.loc[X.index.repeat(w)].reset_index(drop=True))
    for node in "DEG":
        np.testing.assert_allclose(weighted.network_.intercepts[node],
                                   replicated.network_.intercepts[node], rtol=1e-10)
        np.testing.assert_allclose(weighted.network_.sigmas[node],
                                   replicated.network_.sigmas[node], rtol=1e-10)
    np.testing.assert_allclose(weighted.score_samples(X), replicated.score_samples(X), rtol=1e-10)


@pytest.mark.parametrize("kept", [0, 1, 2])
def test_a_configuration_with_too_few_rows_takes_the_regression_over_all_rows(kept):
    """``E`` has one continuous parent (2 coefficients): with ``kept`` rows of ``B = c``,
    that configuration cannot be estimated on its own rows. The estimator's network gives
    it ``E``'s regression on ``D`` over all rows, with a warning naming it (a CLG score
    leaves an empty configuration out, so a learned graph may hold one: R's ``infert``);
    the other configurations keep their own fit, and the network scores every row."""
    X = _clg_data(n=200)
    c_rows = np.flatnonzero(X["B"] == "c")
    X = X.drop(index=c_rows[kept:]).reset_index(drop=True)
    X["B"] = pd.Categorical(X["B"], categories=["a", "b", "c"])
    with pytest.warns(UserWarning, match=r"'E' cannot be estimated on its own rows in 1 of "
                                         r"the 3 configurations .*\{'B': 'c'\}"):
        model = FixedStructure(edges=CLG_EDGES).fit(X)
    pooled = FixedStructure(edges=[e for e in CLG_EDGES if e != ("B", "E")]).fit(X).network_
    net = model.network_
    assert net.intercepts["E"][2] == pooled.intercepts["E"]
    np.testing.assert_array_equal(net.coefficients["E"][2], pooled.coefficients["E"])
    assert net.sigmas["E"][2] == pooled.sigmas["E"]
    own = CLGBayesianNetwork.from_data(X[X["B"] != "c"].astype({"B": str}), CLG_EDGES)
    np.testing.assert_allclose(net.intercepts["E"][:2], own.intercepts["E"], rtol=1e-12)
    np.testing.assert_allclose(net.sigmas["E"][:2], own.sigmas["E"], rtol=1e-12)
    assert np.isfinite(model.score_samples(X)).all()


def _zero_inflated(n=300, seed=0):
    """``y`` is exactly 0 under ``control`` (a point mass) and ``1 + x + noise`` under
    ``treated``; ``z`` is a continuous column constant under ``control``."""
    rng = np.random.default_rng(seed)
    g = np.where(np.arange(n) % 3 == 0, "control", "treated")
    x = rng.normal(size=n)
    y = np.where(g == "control", 0.0, 1 + x + rng.normal(size=n))
    z = np.where(g == "control", 2.5, rng.normal(size=n))
    return pd.DataFrame({"g": g, "x": x, "y": y, "z": z})


def _own_regression(frame, child, parents):
    """Least squares of ``child`` on ``parents`` by numpy: intercept, coefficients and the
    unbiased residual standard deviation (bnlearn's ``bn.fit``)."""
    design = np.column_stack([np.ones(len(frame))] + [frame[p].to_numpy() for p in parents])
    beta, *_ = np.linalg.lstsq(design, frame[child].to_numpy(), rcond=None)
    rss = float(np.sum((frame[child].to_numpy() - design @ beta) ** 2))
    return beta[0], beta[1:], np.sqrt(rss / (len(frame) - len(parents) - 1))


def test_a_configuration_without_residual_spread_takes_the_regression_over_all_rows():
    """R's ``infert`` (``parity`` equal in the two rows of one configuration) and
    zero-inflated measurements: a configuration whose rows lie exactly on a regression
    cannot give a variance (0 would give every other value density 0); the learner's
    network gives it the regression over all rows, names it, and keeps the others' own
    fit. It was an error that lost the whole fit."""
    X = _zero_inflated()
    with pytest.warns(UserWarning, match=r"'y' cannot be estimated on its own rows in 1 of the 2 "
                                         r"configurations .*no residual spread .*\{'g': 'control'\}"):
        net = FixedStructure(edges=[("g", "y"), ("x", "y")]).fit(X).network_
    control, treated = 0, 1  # (states in sorted order)
    b0, b, sigma = _own_regression(X, "y", ["x"])  # over all rows
    np.testing.assert_allclose([net.intercepts["y"][control], net.sigmas["y"][control]], [b0, sigma],
                               rtol=1e-10)
    np.testing.assert_allclose(net.coefficients["y"][control], b, rtol=1e-10)
    b0, b, sigma = _own_regression(X[X["g"] == "treated"], "y", ["x"])
    np.testing.assert_allclose([net.intercepts["y"][treated], net.sigmas["y"][treated]], [b0, sigma],
                               rtol=1e-10)
    np.testing.assert_allclose(net.coefficients["y"][treated], b, rtol=1e-10)


def _in_configuration_b(y, x, z=None, a_rows=4):
    """``y | a + x (+ z)``: rows ``a = 'a'`` (``x`` = 1, 2, ...) then rows ``a = 'b'`` with
    the given values (the cases checked in R below)."""
    head = {"x": [1.0, 2, 3, 4, 5][:a_rows], "z": [2.0, 1, 4, 3, 6][:a_rows],
            "y": [1.0, 2.5, 2.9, 4.2, 5.5][:a_rows]}
    frame = {"a": ["a"] * a_rows + ["b"] * len(y), "x": head["x"] + list(x), "y": head["y"] + list(y)}
    if z is not None:
        frame["z"] = head["z"] + list(z)
    return pd.DataFrame(frame)


def _fit_y(X, parameter_estimator="bayes"):
    """FixedStructure's network of ``y | a + continuous parents`` (the numeric columns declared
    continuous: they have few values)."""
    parents = [c for c in X if c not in ("a", "y")]
    return FixedStructure(edges=[("a", "y")] + [(p, "y") for p in parents],
                          parameter_estimator=parameter_estimator,
                          column_types={c: "continuous" for c in X if c != "a"}).fit(X)


# R (bnlearn 4.9), the rows of _in_configuration_b:
#   d <- data.frame(a = factor(rep(c("a", "b"), c(4, 4))), x = c(1, 2, 3, 4, 5, 5, 5, 5),
#                   y = c(1, 2.5, 2.9, 4.2, 1, 3, 2, 6))
#   f <- bn.fit(model2network("[a][x][y|a:x]"), d); f$y$coefficients; f$y$sd
#   -> a: 0.15, 1; b: 3, 0 (lm's NA); sd 0.324037 (a), 2.645751 (b: RSS 14 / (4 - 2), the NA counted)
#   summary(lm(y ~ x, d[d$a == "b", ]))$sigma -> 2.160247 (14 / 3: lm's residual degrees of freedom)
def test_a_parent_constant_in_a_configuration_is_aliased_as_lm_does():
    """``x`` is constant (5) in ``a = 'b'``: collinear with the intercept there, so R's ``lm``
    (and bnlearn's ``bn.fit``) gives it coefficient NA and fits the intercept and sigma on
    the configuration's own rows. Before, the learner's network gave that configuration the
    regression of ``y`` on ``x`` over all 8 rows (intercept 2.825, slope 0)."""
    X = _in_configuration_b(y=[1, 3, 2, 6], x=[5, 5, 5, 5])
    with pytest.warns(DeterminedColumnsWarning,
                      match=r"The parents of the column 'y' are exactly collinear in 1 of the 2 "
                            r"configurations of its discrete parents \(in \{'a': 'b'\}: 'x' is constant, a "
                            r"multiple of the intercept\).*leaves 'x' out, with coefficient 0 \(NA in R\)"):
        model = _fit_y(X)
    net = model.network_
    np.testing.assert_allclose(net.intercepts["y"], [0.15, 3.0], rtol=1e-12)
    np.testing.assert_allclose(net.coefficients["y"][:, 0], [1.0, 0.0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(net.sigmas["y"], [0.324037, 2.160247], rtol=1e-6)  # (b: lm's; bn.fit 2.645751)
    np.testing.assert_allclose(_fit_y(X, "mle").network_.sigmas["y"], np.sqrt([0.21 / 4, 14 / 4]), rtol=1e-12)
    # the density of y given its parents, by hand (a's and x's terms cancel against the empty graph)
    empty = FixedStructure(column_types={"x": "continuous", "y": "continuous"}).fit(X)
    mean = np.where(X["a"] == "a", 0.15 + X["x"], 3.0)
    sigma = np.where(X["a"] == "a", 0.324037, 2.160247)
    expected = norm.logpdf(X["y"], mean, sigma) - norm.logpdf(X["y"], X["y"].mean(), X["y"].std())
    np.testing.assert_allclose(model.score_samples(X) - empty.score_samples(X), expected, rtol=1e-5)


@pytest.mark.parametrize("constant", ["b", "zz"])  # (before and after 'z' in name order)
def test_a_constant_parent_beside_a_varying_one_is_aliased(constant):
    """R: ``d`` with rows a = 1..5 (x 1..5, z 2 1 4 3 6, y 1 2.5 2.9 4.2 5.5) and b = 5 rows with
    x = 5, z = 1 2 4 3 7, y = 1 3 2 6 5; ``bn.fit(model2network("[a][x][z][y|a:x:z]"), d)``:
    b: intercept 1.7641509, x NA (0), z 0.4811321, sd 2.479158 (RSS / (5 - 3));
    ``summary(lm(y ~ x + z, d[d$a == "b", ]))$sigma`` 2.024224. Whatever its name, the constant
    parent is the one aliased (it is a function of no parent)."""
    X = _in_configuration_b(y=[1, 3, 2, 6, 5], x=[5] * 5, z=[1, 2, 4, 3, 7], a_rows=5)
    X = X.rename(columns={"x": constant})
    with pytest.warns(DeterminedColumnsWarning, match=f"'{constant}' is constant, a multiple of the"):
        net = _fit_y(X).network_
    coefficients = dict(zip(net.continuous_parents["y"], net.coefficients["y"][1]))
    assert coefficients == pytest.approx({constant: 0.0, "z": 0.4811321}, rel=1e-6)
    assert net.intercepts["y"][1] == pytest.approx(1.7641509, rel=1e-7)
    assert net.sigmas["y"][1] == pytest.approx(2.024224, rel=1e-6)
    # a = 'a' is bn.fit's: 0.03166667, x 1.1783333, z -0.1083333, sd 0.318329
    assert net.intercepts["y"][0] == pytest.approx(0.03166667, rel=1e-6)
    assert net.sigmas["y"][0] == pytest.approx(0.318329, rel=1e-5)


@pytest.mark.parametrize("x, z, y, intercept, slope, sigma", [
    # x constant on as many rows as y | x has coefficients: lm still fits the intercept
    # (summary(lm(y ~ x))$sigma 1.414214 on y = 1, 3); bn.fit gives sd 0 there, and logLik -Inf
    ([5, 5], None, [1, 3], 2.0, [0.0], 1.414213562),
    # x constant, z varies, 3 rows for 3 coefficients: lm(y ~ x + z) 1.25, NA, 0.3928571429,
    # sigma 1.202675589 (bn.fit: sd 0)
    ([5, 5, 5], [1, 2, 4], [1, 3, 2.5], 1.25, [0.0, 0.3928571429], 1.202675589),
    # every parent constant: the configuration's mean and lm's sigma (14 / 3; bn.fit: sd 3.741657, 14 / 1)
    ([5, 5, 5, 5], [7, 7, 7, 7], [1, 3, 2, 6], 3.0, [0.0, 0.0], 2.160246899),
])
def test_rows_too_few_for_every_parent_can_fit_the_parents_left(x, z, y, intercept, slope, sigma):
    """No more rows than the regression's coefficients counting the constant parents, but
    more than the coefficients left once they are aliased: ``lm`` has a residual degree of
    freedom, so the configuration gets ``lm``'s fit. Before, the regression over all rows."""
    X = _in_configuration_b(y=y, x=x, z=z, a_rows=5 if z is not None else 4)
    with pytest.warns(DeterminedColumnsWarning, match=r"in \{'a': 'b'\}: 'x' is constant"):
        net = _fit_y(X).network_
    assert net.intercepts["y"][1] == pytest.approx(intercept, rel=1e-9)
    np.testing.assert_allclose(net.coefficients["y"][1], slope, rtol=1e-9, atol=1e-15)
    assert net.sigmas["y"][1] == pytest.approx(sigma, rel=1e-9)


@pytest.mark.parametrize("x, y, reason", [
    ([5], [1], r"too few rows \(2 coefficients"),  # lm(y ~ x), one row: sigma NaN (bn.fit: sd 0, logLik +Inf)
    ([5, 5, 5], [2, 2, 2], r"no residual spread"),  # y constant too: RSS 0 (bn.fit: sd 0, logLik +Inf)
])
def test_what_lm_cannot_estimate_keeps_the_regression_over_all_rows(x, y, reason):
    X = _in_configuration_b(y=y, x=x)
    with pytest.warns(UserWarning, match=rf"'y' cannot be estimated on its own rows in 1 of the 2 "
                                         rf"configurations .*\({reason}.*in \{{'a': 'b'\}}\)"):
        net = _fit_y(X).network_
    b0, b, sigma = _own_regression(X, "y", ["x"])  # over all rows
    np.testing.assert_allclose([net.intercepts["y"][1], net.coefficients["y"][1, 0], net.sigmas["y"][1]],
                               [b0, b[0], sigma], rtol=1e-10)


def test_a_parent_constant_in_a_configuration_of_zero_inflated_data():
    """``z`` is constant (2.5) under ``control``: ``x`` there is regressed on no parent (its
    mean and standard deviation on those rows); ``from_data`` still refuses it."""
    X = _zero_inflated()
    with pytest.warns(DeterminedColumnsWarning, match=r"in \{'g': 'control'\}: 'z' is constant"):
        net = FixedStructure(edges=[("g", "x"), ("z", "x")]).fit(X).network_
    control = X[X["g"] == "control"]
    np.testing.assert_allclose([net.intercepts["x"][0], net.coefficients["x"][0, 0], net.sigmas["x"][0]],
                               [control["x"].mean(), 0.0, control["x"].std()], rtol=1e-10, atol=1e-15)
    constant = X[["x"]].assign(z=1.0)
    constant.loc[0, "z"] = 2.0
    with pytest.raises(ValueError, match="node 'x'.*the parent 'z' is constant"):
        GaussianBayesianNetwork.from_data(constant.iloc[1:], [("z", "x")])


def _boston_like(n=150, seed=0):
    """MASS's Boston in small: ``indus`` is 18.1 in every tract with ``rad`` 24 (a sum of 50
    values 18.1 is not 50 * 18.1 in floating point: the flat-spread rule makes it constant)."""
    rng = np.random.default_rng(seed)
    rad = np.repeat(["24", "4", "5"], n // 3)
    indus = np.where(rad == "24", 18.1, rng.normal(10, 3, n))
    crim = np.where(rad == "24", 12 + 3 * rng.normal(size=n), 0.4 * indus + (rad == "5") + rng.normal(size=n))
    return pd.DataFrame({"crim": crim, "indus": indus, "rad": rad})


def _pbc_like(n=200, seed=1):
    """survival's pbc in small: ``edema`` (0, 0.5 or 1, declared continuous) is 0 in stage 1."""
    rng = np.random.default_rng(seed)
    stage = rng.choice(["1", "2", "3", "4"], size=n, p=[0.1, 0.3, 0.3, 0.3])
    edema = np.where(stage == "1", 0.0, rng.choice([0.0, 0.5, 1.0], size=n, p=[0.6, 0.2, 0.2]))
    protime = 10 + 1.5 * edema + 2 * (stage == "4") - (stage == "1") + 0.5 * rng.normal(size=n)
    return pd.DataFrame({"edema": edema, "protime": protime, "stage": stage})


# R, on these rows written with float_format="%.17g" (rad / stage read as factors):
#   g <- hc(d, score = "bic-cg", blacklist = data.frame(from = "crim", to = "indus"))  # Boston-like
#   g <- hc(d, score = "bic-cg")                                                       # pbc-like
#   score(g, d, type = "bic-cg"); f <- bn.fit(g, d); f$crim$coefficients; f$crim$sd
#   summary(lm(crim ~ indus, d[d$rad == "24", ]))$sigma
@pytest.mark.parametrize("make, types, black_list, child, parent, config, score, coefficients, sigma", [
    (_boston_like, {"crim": "continuous", "indus": "continuous"}, [("crim", "indus")], "crim", "indus",
     {"rad": "24"}, -898.704052888696,
     [(11.61597277, 0.0), (0.5136383772, 0.3477795954), (1.1146199535, 0.4081559735)],
     # bn.fit's sd in rad 24: 2.9226147754 (RSS / 48); lm's 2.892638447 (RSS / 49)
     [2.892638447, 0.9191509856, 1.0942307930]),
    (_pbc_like, {"edema": "continuous", "protime": "continuous"}, [], "protime", "edema",
     {"stage": "1"}, -532.006334857581,
     [(9.266371894, 0.0), (10.072615001, 1.326887837), (9.962323729, 1.582174947),
      (12.046072809, 1.204708823)],
     # bn.fit's sd in stage 1: 0.5162069839 (RSS / 11); lm's 0.4942305596 (RSS / 12)
     [0.4942305596, 0.5376393792, 0.4795850598, 0.4923384999]),
])
def test_a_learned_family_with_a_parent_constant_in_a_configuration(make, types, black_list, child, parent,
                                                                   config, score, coefficients, sigma):
    """Hill climbing learns bnlearn's graph and score (the parameters do not enter the
    search); the network's regression in the configuration where the parent is constant is
    ``lm``'s on that configuration's rows, as ``bn.fit``'s coefficients (pbc: skbn's
    log-likelihood of ``protime`` was -339.58 against bnlearn's -324.73; Boston: ``crim``
    -464.73 against -383.74)."""
    X = make()
    with pytest.warns(DeterminedColumnsWarning,
                      match=rf"The parents of the column '{child}' are exactly collinear in 1 of the "
                            rf"{len(sigma)} configurations .*in {re.escape(repr(config))}: '{parent}' is "
                            r"constant"):
        model = HillClimbStructure(column_types=types, black_list=black_list).fit(X)
    assert model.score_ == pytest.approx(score, rel=1e-12)
    net = model.network_
    assert set(net.parents[child]) == {parent, *config}
    np.testing.assert_allclose(np.column_stack([net.intercepts[child], net.coefficients[child][:, 0]]),
                               coefficients, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(net.sigmas[child], sigma, rtol=1e-9)


@pytest.mark.parametrize("columns", [["a", "b", "a2", "d"], ["a2", "d", "b", "a"]])
def test_exactly_collinear_parents_are_aliased_as_lm_does(columns):
    """``a2`` is a copy of ``a``: as parents of ``d`` their coefficients are not
    identifiable. It was an error after the search (order MCMC's sampled DAGs and a
    bootstrap's averaged network hold such families under bic-g too); now R's rule (lm,
    bnlearn's bn.fit: ``a2`` NA) with a warning: the parent later in name order gets
    coefficient 0 and the others the regression without it, whatever the column order;
    sigma is lm's residual standard error (``N - 2`` degrees of freedom: the intercept and
    ``a``; bnlearn's ``bn.fit`` divides by ``N - 3``, counting ``a2``), and the density is
    exactly that of the family without ``a2``."""
    X = with_duplicated_column()[columns]
    with pytest.warns(DeterminedColumnsWarning, match=r"The parents of the column 'd' are exactly "
                                                      r"collinear \('a2' is a linear function of 'a'\)"):
        model = FixedStructure(edges=[("a", "d"), ("a2", "d")]).fit(X)
    net = model.network_
    b0, b, sigma = _own_regression(X, "d", ["a"])  # lm(d ~ a + a2): a2 NA, df.residual 198
    coefficients = dict(zip(net.parents["d"], net.coefficients["d"]))
    assert coefficients["a2"] == 0.0
    np.testing.assert_allclose([net.intercepts["d"], coefficients["a"], net.sigmas["d"]],
                               [b0, b[0], sigma], rtol=1e-10)
    assert sigma == pytest.approx(1.479498, rel=1e-6)  # R: summary(lm(d ~ a + a2))$sigma
    without = FixedStructure(edges=[("a", "d")]).fit(X)
    np.testing.assert_allclose(model.score_samples(X), without.score_samples(X), rtol=1e-12)
    assert np.isfinite(model.sample(50, random_state=0).to_numpy()).all()


def _nearly_collinear(one_minus_r2):
    """40 rows: ``b = 2 a`` plus a small multiple of a column orthogonal to ``a``, so that
    ``1 - cor(a, b)^2`` is ``one_minus_r2``, and ``y = a - b + noise`` (deterministic)."""
    t = np.arange(40.0)
    a = np.sin(0.7 * t) + 0.05 * t
    z = np.cos(1.3 * t)
    z -= z.mean()
    centred = a - a.mean()
    z -= centred * (z @ centred) / (centred @ centred)
    z /= np.sqrt(np.mean(z ** 2))
    b = 2 * a + np.sqrt(one_minus_r2) * 2 * a.std() * z
    return pd.DataFrame({"a": a, "b": b, "y": a - b + np.sin(2.9 * t + 0.3)})


#: The rows of ``_nearly_collinear(2e-12)`` in R (the same formulas) and lm's fit there::
#:
#:     t <- 0:39; a <- sin(0.7 * t) + 0.05 * t; z <- cos(1.3 * t); z <- z - mean(z)
#:     ac <- a - mean(a); z <- z - ac * sum(z * ac) / sum(ac * ac); z <- z / sqrt(mean(z^2))
#:     b <- 2 * a + sqrt(2e-12) * 2 * sqrt(mean(ac^2)) * z; y <- a - b + sin(2.9 * t + 0.3)
#:     f <- lm(y ~ a + b)  # both coefficients: -6338.737924, 3168.86673
#:     coef(f)[1]; coef(f)[2] + 2 * coef(f)[3]; summary(f)$sigma
#:
#: (the coefficients themselves are ill-conditioned, cond ~ 1e12: only the intercept, the
#: combination ``a + 2 b`` along the rows and sigma are compared)
LM_NEARLY_COLLINEAR = (0.01205840754, -1.004464097, 0.7275842873)


@pytest.mark.parametrize("columns", [["a", "b", "y"], ["y", "b", "a"]])
def test_nearly_collinear_parents_are_fitted_as_the_scores_fit_them(columns):
    """``1 - r^2 = 2e-12`` between the parents: above the scores' singular-matrix rule
    (1e-12), so bic-g scores the family by the regression on both. The network fit used a
    stricter rule of its own (smallest eigenvalue at most 1e-12 of the largest, about
    ``1 - r^2 <= 4e-12``) and refused the family ("its parents are collinear"), so a search
    could choose a graph its network fit then rejected; R's ``lm`` fits both parents."""
    from skbn.scores import GaussianLogLikelihood  # noqa: PLC0415

    X = _nearly_collinear(2e-12)[columns]
    model = FixedStructure(edges=[("a", "y"), ("b", "y")]).fit(X)
    net = model.network_
    coefficients = dict(zip(net.parents["y"], net.coefficients["y"]))
    intercept, along, sigma = LM_NEARLY_COLLINEAR
    along_rows = coefficients["a"] + 2 * coefficients["b"]
    np.testing.assert_allclose([net.intercepts["y"], along_rows, net.sigmas["y"]], [intercept, along, sigma],
                               rtol=1e-7)
    assert abs(coefficients["b"]) > 1000  # (both parents fitted, as lm: 3168.87)
    mle = FixedStructure(edges=[("a", "y"), ("b", "y")], parameter_estimator="mle").fit(X).network_
    score = GaussianLogLikelihood(variance="mle").score(X, [("a", "y"), ("b", "y")])
    assert mle.log_likelihood(X).sum() == pytest.approx(score, abs=1e-5)


@pytest.mark.parametrize("one_minus_r2", [5e-13, 2e-12, 1e-10])
def test_a_network_fit_has_the_likelihood_its_score_gave_near_collinear_parents(one_minus_r2):
    """Below the rule (5e-13) one parent is aliased, above it both are fitted: either way
    the fitted network's log-likelihood of the rows is the family's loglik-g score (with
    the maximum-likelihood variance), so a learner never fits another model than it scored."""
    from skbn.scores import GaussianLogLikelihood  # noqa: PLC0415

    X = _nearly_collinear(one_minus_r2)
    edges = [("a", "y"), ("b", "y")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeterminedColumnsWarning)  # (5e-13: 'b' is aliased)
        net = FixedStructure(edges=edges, parameter_estimator="mle").fit(X).network_
    score = GaussianLogLikelihood(variance="mle").score(X, edges)
    assert net.log_likelihood(X).sum() == pytest.approx(score, abs=1e-5)
    assert (net.coefficients["y"][1] == 0.0) == (one_minus_r2 < 1e-12)


def test_nearly_collinear_parents_in_a_clg_configuration_are_fitted_there():
    """The rows of ``_nearly_collinear(2e-12)`` in configuration ``g = 'p'`` and 30 other rows
    in ``'q'``: the CLG fit took configuration ``'p'`` for collinear and used the regression
    over all rows there, with a warning, where the CLG scores fit both parents. R, on the
    rows written by ``to_csv(float_format="%.17g")``::

        for (g in c("p", "q")) { f <- lm(y ~ a + b, x[x$g == g, ])
          print(c(coef(f), coef(f)[2] + 2 * coef(f)[3], summary(f)$sigma)) }
        # p: 0.01205840754 (-6338.737924 3168.86673) -1.004464097 0.7275842873
        # q: -0.01493569465 0.9959866669 -1.021720043 0.7089213842
    """
    from skbn.scores import CLGLogLikelihood  # noqa: PLC0415

    s = np.arange(30.0)
    p = _nearly_collinear(2e-12)
    q = pd.DataFrame({"a": np.cos(0.37 * s), "b": np.sin(1.1 * s)})
    q["y"] = q.a - q.b + np.sin(2.9 * (s + 40) + 0.3)
    X = pd.concat([p.assign(g="p"), q.assign(g="q")], ignore_index=True)
    edges = [("a", "y"), ("b", "y"), ("g", "y")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        net = FixedStructure(edges=edges).fit(X).network_
    (b0p, b0q), ((ap, bp), (aq, bq)) = net.intercepts["y"], net.coefficients["y"]
    np.testing.assert_allclose([b0p, ap + 2 * bp, net.sigmas["y"][0]], LM_NEARLY_COLLINEAR, rtol=1e-7)
    np.testing.assert_allclose([b0q, aq, bq, net.sigmas["y"][1]],
                               [-0.01493569465, 0.9959866669, -1.021720043, 0.7089213842], rtol=1e-8)
    mle = FixedStructure(edges=edges, parameter_estimator="mle").fit(X).network_
    empty = FixedStructure(edges=[], parameter_estimator="mle").fit(X).network_
    score = CLGLogLikelihood(variance="mle")
    assert (mle.log_likelihood(X).sum() - empty.log_likelihood(X).sum()
            == pytest.approx(score.score(X, edges) - score.score(X, []), abs=1e-5))


def test_the_network_function_still_refuses_an_unobserved_configuration():
    X = _clg_data(n=60)
    X = X[~(X["B"] == "c")].reset_index(drop=True)
    X["B"] = pd.Categorical(X["B"], categories=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"'E' in the configuration \{'B': 'c'\}"):
        CLGBayesianNetwork.from_data(X, CLG_EDGES)


# ---------------------------------------------------------------- likelihood
def test_missing_cells_are_marginalised_exactly():
    X = _gaussian_data()
    model = FixedStructure(edges=GAUSSIAN_EDGES).fit(X)
    rows = X.iloc[:5].copy()
    rows.iloc[0, 2] = np.nan
    rows.iloc[1, [0, 5]] = np.nan
    joint = model.network_.joint()
    mean, cov = np.asarray(joint.mean), np.asarray(joint.covariance)
    expected = []
    for _, row in rows.iterrows():
        seen = np.flatnonzero(row.notna().to_numpy())
        expected.append(multivariate_normal(mean[seen], cov[np.ix_(seen, seen)]).logpdf(
            row.to_numpy()[seen]))
    np.testing.assert_allclose(model.score_samples(rows), expected, rtol=1e-10)


def test_clg_missing_discrete_cell_sums_the_mixture():
    X = _clg_data()
    model = FixedStructure(edges=CLG_EDGES).fit(X)
    row = X.iloc[[0]].copy()
    row["A"] = np.nan
    parts = []
    for state in ("a", "b"):
        full = row.copy()
        full["A"] = state
        parts.append(model.score_samples(full)[0])
    assert model.score_samples(row)[0] == pytest.approx(logsumexp(parts), rel=1e-12)


# ---------------------------------------------------------------- prediction
def test_continuous_target_predicts_bnlearn_conditional_mean():
    g = _gaussian_data()
    model = FixedStructure(edges=GAUSSIAN_EDGES, target="F").fit(g.iloc[:200])
    assert not hasattr(model, "predict_proba")
    np.testing.assert_allclose(
        model.predict(g.iloc[200:205]),
        [6.24191095371367, -0.424257410468128, -1.51336843965234, 13.4693030671439,
         9.48129545157809], rtol=1e-12)
    # the target's column may be left out
    np.testing.assert_allclose(model.predict(g.iloc[200:205].drop(columns="F")),
                               model.predict(g.iloc[200:205]))


def test_fit_with_continuous_y_is_a_regressor():
    g = _gaussian_data()
    X, y = g.drop(columns="F"), g["F"]
    model = FixedStructure(edges=GAUSSIAN_EDGES).fit(X, y)
    assert model.column_types_["F"] == "continuous" and not hasattr(model, "classes_")
    design = np.column_stack([np.ones(300), g[["A", "D", "E", "G"]]])
    beta = np.linalg.lstsq(design, y, rcond=None)[0]
    np.testing.assert_allclose(model.predict(X), design @ beta, rtol=1e-9)
    cv = KFold(5, shuffle=True, random_state=0)
    r2 = cross_val_score(FixedStructure(edges=GAUSSIAN_EDGES), X, y, cv=cv, scoring="r2")
    by_hand = []
    for train, test in cv.split(X):
        fitted = FixedStructure(edges=GAUSSIAN_EDGES).fit(X.iloc[train], y.iloc[train])
        by_hand.append(r2_score(y.iloc[test], fitted.predict(X.iloc[test])))
    np.testing.assert_allclose(r2, by_hand)
    assert r2.mean() > 0.9
    # score with y: the mean log-density of (x, y)
    assert model.score(X, y) == pytest.approx(
        FixedStructure(edges=GAUSSIAN_EDGES).fit(g).score(g), rel=1e-12)


def test_clg_predict_proba_is_bayes_rule():
    X = _clg_data()
    model = FixedStructure(edges=CLG_EDGES, target="A").fit(X)
    net = model.network_
    rows = X.iloc[:6]
    proba = model.predict_proba(rows)
    # by hand: P(A) P(C | A) N(D; A) N(G; A, E) (B, E | B, D do not depend on A)
    cpt_a, cpt_c = np.asarray(net.cpts["A"]).ravel(), np.asarray(net.cpts["C"])
    c_code = (rows["C"] == "b").to_numpy().astype(int)
    joint = np.empty((6, 2))
    for k in range(2):
        dens = norm.pdf(rows["D"], net.intercepts["D"][k], net.sigmas["D"][k])
        dens = dens * norm.pdf(rows["G"], net.intercepts["G"][k] + net.coefficients["G"][k, 0]
                               * rows["E"], net.sigmas["G"][k])
        joint[:, k] = cpt_a[k] * cpt_c[k, c_code] * dens
    np.testing.assert_allclose(proba, joint / joint.sum(axis=1, keepdims=True), rtol=1e-10)
    assert list(model.classes_) == ["a", "b"]
    np.testing.assert_array_equal(model.predict(rows), model.classes_[proba.argmax(axis=1)])


# ---------------------------------------------------------------- sampling
def test_sample_columns_float_and_categorical():
    model = FixedStructure(edges=CLG_EDGES).fit(_clg_data())
    S = model.sample(2000, random_state=0)
    assert list(S.columns) == list("ABCDEG")
    for name in "ABC":
        assert isinstance(S[name].dtype, pd.CategoricalDtype)
    for name in "DEG":
        assert S[name].dtype == np.float64
    # a large sample refits to about the same network
    refit = FixedStructure(edges=CLG_EDGES).fit(model.sample(20000, random_state=1)).network_
    np.testing.assert_allclose(refit.intercepts["E"], model.network_.intercepts["E"], atol=0.1)


# ---------------------------------------------------------------- averaged DAGs
class _TwoDags(FixedStructure):
    def _weighted_dags(self, data):
        names = list(data.names)
        first = [(names.index(p), names.index(c)) for p, c in GAUSSIAN_EDGES]
        return [first, first[:2]], [0.3, 0.7]


def test_averaged_networks_mix_the_densities_and_predictions():
    g = _gaussian_data()
    model = _TwoDags(edges=GAUSSIAN_EDGES, target="F").fit(g)
    one = FixedStructure(edges=GAUSSIAN_EDGES, target="F").fit(g)
    two = FixedStructure(edges=GAUSSIAN_EDGES[:2], target="F").fit(g)
    rows = g.iloc[:8]
    expected = logsumexp([np.log(0.3) + one.score_samples(rows), np.log(0.7) + two.score_samples(rows)],
                         axis=0)
    np.testing.assert_allclose(model.score_samples(rows), expected, rtol=1e-12)
    evidence = rows.drop(columns="F")
    w = np.array([np.log(0.3) + one.network_.log_likelihood(evidence),
                  np.log(0.7) + two.network_.log_likelihood(evidence)])
    w = np.exp(w - logsumexp(w, axis=0))
    np.testing.assert_allclose(model.predict(rows),
                               w[0] * one.predict(rows) + w[1] * two.predict(rows), rtol=1e-10)


# ---------------------------------------------------------------- scikit-learn contract
def test_clone_pickle_refit_and_callers_data():
    X = _clg_data()
    before = X.copy()
    model = FixedStructure(edges=CLG_EDGES).fit(X)
    pd.testing.assert_frame_equal(X, before)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.score_samples(X), model.score_samples(X))
    assert clone(model).get_params() == model.get_params()
    # refit on discrete data: a discrete network, nothing of the CLG fit left
    discrete = X[["A", "B", "C"]]
    model.set_params(edges=[("A", "C")]).fit(discrete)
    assert not isinstance(model.network_, CLGBayesianNetwork)
    assert model.column_types_ == dict.fromkeys("ABC", "discrete")


def test_grid_search_and_cross_val_score_by_held_out_likelihood():
    g = _gaussian_data()
    cv = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(FixedStructure(edges=GAUSSIAN_EDGES), g, cv=cv)
    by_hand = [FixedStructure(edges=GAUSSIAN_EDGES).fit(g.iloc[tr]).score(g.iloc[te])
               for tr, te in cv.split(g)]
    np.testing.assert_allclose(scores, by_hand)
    search = GridSearchCV(FixedStructure(), {"edges": [GAUSSIAN_EDGES, GAUSSIAN_EDGES[:3]]}, cv=cv)
    search.fit(g)
    assert search.best_params_["edges"] == GAUSSIAN_EDGES


def test_column_types_declares_a_y_of_whole_numbers():
    g = _gaussian_data()
    X, y = g.drop(columns="F"), g["F"].round().astype(int).rename("F")  # many whole numbers
    with pytest.raises(ValueError, match="column_types=\\{'F': 'continuous'\\}"):
        FixedStructure(edges=GAUSSIAN_EDGES).fit(X, y)
    model = FixedStructure(edges=GAUSSIAN_EDGES, column_types={"F": "continuous"}).fit(X, y)
    assert model.column_types_["F"] == "continuous"
    unnamed = FixedStructure(edges=[(a, "y" if b == "F" else b) for a, b in GAUSSIAN_EDGES],
                             column_types={"y": "continuous"}).fit(X, y.to_numpy())
    np.testing.assert_allclose(unnamed.predict(X), model.predict(X), rtol=1e-12)


def test_complete_case_drops_rows_with_a_missing_measurement():
    X = _clg_data()
    holes = X.copy()
    holes.loc[[3, 50, 200], "E"] = np.nan
    holes.loc[7, "C"] = np.nan
    with pytest.warns(UserWarning, match="dropped 4 of 400 rows"):
        model = FixedStructure(edges=CLG_EDGES, missing="complete_case").fit(holes)
    kept = FixedStructure(edges=CLG_EDGES).fit(X.drop(index=[3, 7, 50, 200]))
    for node in "DEG":
        np.testing.assert_allclose(model.network_.intercepts[node], kept.network_.intercepts[node],
                                   rtol=1e-12)
        np.testing.assert_allclose(model.network_.sigmas[node], kept.network_.sigmas[node],
                                   rtol=1e-12)


def test_continuous_parent_of_a_discrete_node_is_refused_naming_the_edge():
    X = _clg_data()
    for fit_parameters in (True, False):
        with pytest.raises(ValueError, match="Edge 'D' -> 'A': the discrete column 'A'"):
            FixedStructure(edges=[("D", "A")], fit_parameters=fit_parameters).fit(X)


class _TwoClgDags(FixedStructure):
    def _weighted_dags(self, data):
        names = list(data.names)
        first = [(names.index(p), names.index(c)) for p, c in CLG_EDGES]
        return [first, first[2:]], [0.6, 0.4]


def test_averaged_clg_networks_mix_the_class_probabilities():
    X = _clg_data()
    model = _TwoClgDags(edges=CLG_EDGES, target="A").fit(X)
    one = FixedStructure(edges=CLG_EDGES, target="A").fit(X)
    two = FixedStructure(edges=CLG_EDGES[2:], target="A").fit(X)
    rows = X.iloc[:8]
    evidence = rows.drop(columns="A")
    w = np.array([np.log(0.6) + one.network_.log_likelihood(evidence),
                  np.log(0.4) + two.network_.log_likelihood(evidence)])
    w = np.exp(w - logsumexp(w, axis=0))
    expected = w[0][:, None] * one.predict_proba(rows) + w[1][:, None] * two.predict_proba(rows)
    np.testing.assert_allclose(model.predict_proba(rows), expected, rtol=1e-10)
    assert not np.allclose(one.predict_proba(rows), two.predict_proba(rows))


def test_a_max_indegree_that_bounds_nothing_is_named_in_the_refusal_of_a_maximised_likelihood():
    # with 4 columns, max_indegree=3 allows the complete DAG: the refusal said "without
    # max_indegree" to a user who had set it; it now names the bound and a smaller one
    X = pd.DataFrame(np.random.default_rng(0).normal(size=(50, 4)), columns=list("abcd"))
    with pytest.raises(ValueError, match=r"with max_indegree=3 \(all 3 other columns.*bounds nothing\)"
                                         r".*set max_indegree below 3 \(e.g. max_indegree=2\)"):
        HillClimbStructure(scorer="loglik-g", max_indegree=3).fit(X)
    with pytest.raises(ValueError, match=r"without max_indegree"):
        HillClimbStructure(scorer="loglik-g").fit(X)
    assert HillClimbStructure(scorer="loglik-g", max_indegree=2).fit(X).edges_
