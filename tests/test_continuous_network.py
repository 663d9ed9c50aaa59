"""GaussianBayesianNetwork and CLGBayesianNetwork: parameters and log-likelihoods equal to
R bnlearn 4.9, brute force against the implied joint normal, queries, sampling, do, bad input."""

import pickle
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skbn.exceptions import NotEstimable, ZeroProbabilityWarning
from skbn.network import (
    CLGBayesianNetwork,
    DiscreteBayesianNetwork,
    GaussianBayesianNetwork,
    MultivariateNormal,
    NormalMixture,
)


# ---------------------------------------------------------------------- data (also for R)
def gaussian_data():
    """120 rows; integer-looking columns, names with dots and spaces."""
    rng = np.random.default_rng(20)
    n = 120
    a = np.round(rng.normal(3, 2, n))
    b = np.round(1.5 * a + rng.normal(0, 1.5, n), 1)
    c = rng.normal(-1, 1, n)
    d = 2.0 - 0.7 * b + 0.5 * c + rng.normal(0, 0.8, n)
    e = np.round(0.3 * d + rng.normal(0, 2, n))
    return pd.DataFrame({"x.a": a, "x b": b, "c": c, "d.1": d, "e e": e})


GAUSS_EDGES = [("x.a", "x b"), ("x b", "d.1"), ("c", "d.1"), ("d.1", "e e")]


def clg_data():
    """300 rows; a state named "None", names with dots and spaces, an integer-looking column."""
    rng = np.random.default_rng(21)
    n = 300
    g = rng.choice(["None", "b", "c"], n, p=[0.3, 0.3, 0.4])
    h = np.where(rng.random(n) < np.where(g == "None", 0.2, 0.7), "lo", "hi")
    x = np.round(rng.normal(2, 1, n) + (g == "b") * 3.0)
    y = np.where(h == "lo", 1.0 + 2.0 * x, -1.0 + 0.5 * x) + rng.normal(0, np.where(h == "lo", 1, 2), n)
    z = 0.5 * y + rng.normal(0, 1, n)
    return pd.DataFrame({"g.1": pd.Categorical(g, categories=["None", "b", "c"]),
                         "h h": pd.Categorical(h, categories=["hi", "lo"]),
                         "x.c": x, "y y": y, "z": z})


CLG_EDGES = [("g.1", "h h"), ("g.1", "x.c"), ("h h", "y y"), ("x.c", "y y"), ("y y", "z")]

# R 4.2 + bnlearn 4.9, on the CSV of gaussian_data() (written with float_format="%.17g"):
#   g = read.csv(f, check.names = FALSE); g[] = lapply(g, as.numeric)
#   net = empty.graph(names(g)); arcs(net) = <GAUSS_EDGES>; f = bn.fit(net, g)
#   coef(f[[v]]); f[[v]]$sd; logLik(f, g, nodes = v); logLik(f, g); logLik(f, g, by.sample = TRUE)
R_GAUSS = {
    "x.a": ([2.6749999999999998], 2.2941742074475617, -269.41737874031315),
    "x b": ([0.051474873268670951, 1.386987586317007803], 1.3820293832117303, -208.09898236315601),
    "c": ([-1.0960569016750723], 1.0420687538886899, -174.71757483733538),
    "d.1": ([2.27718106307927304, -0.71391100774851024, 0.63428952106123881],
            0.77940300151801711, -138.86537978185285),
    "e e": ([-0.34810461503347512, 0.36419019667956143], 1.9883798944200068, -251.75104603467261),
}
R_GAUSS_TOTAL = -1042.8503617573301
R_GAUSS_ROWS = [-6.9741515794123092, -9.0987385467499724, -7.8983343001110651]

# Same on clg_data(): factors with levels as the categories, numeric columns as.numeric,
#   f = bn.fit(net, cl); as.vector(coef(f[[v]])) (per configuration: intercept, coefficients,
#   first discrete parent fastest); as.vector(f[[v]]$sd); as.vector(f[[v]]$prob); logLik(...)
R_CLG = {
    "x.c": ([2.1428571428571428, 5.1022727272727275, 2.0909090909090908],
            [1.03892496329863948, 0.94734684234836553, 1.08012344973464347], -432.22272670917329),
    "y y": ([-0.55475485649714595, 0.40298403938089655, 0.95017352238722141, 1.96353917698942460],
            [1.99182703948099116, 0.91249148975821182], -493.00658111584295),
    "z": ([-0.05006406459326751, 0.49958049939617943], [0.91448097354546398], -397.86197495858534),
}
R_CLG_PROB = {
    "g.1": ([0.30333333333333334, 0.29333333333333333, 0.40333333333333332], -326.35023161253912),
    "h h": ([0.72527472527472525, 0.27472527472527475, 0.27272727272727271, 0.72727272727272729,
             0.28099173553719009, 0.71900826446280997], -176.92332876560414),
}
R_CLG_TOTAL = -1826.3648431617448


def chain_network():
    """a -> b -> c, a -> c, and a constant-free root d -> c (4 nodes)."""
    return GaussianBayesianNetwork(
        nodes=["a", "b", "c", "d"],
        parents={"b": ["a"], "c": ["a", "b", "d"]},
        intercepts={"a": 1.0, "b": -2.0, "c": 0.5, "d": 3.0},
        coefficients={"b": [1.5], "c": [0.7, -1.2, 0.4]},
        sigmas={"a": 2.0, "b": 0.5, "c": 1.0, "d": 0.8})


def brute_joint(net):
    """(I - B)^-1 b0 and (I - B)^-1 D (I - B)^-T by dense matrix inversion."""
    d = len(net.nodes)
    index = {v: i for i, v in enumerate(net.nodes)}
    B = np.zeros((d, d))
    for v in net.nodes:
        for p, b in zip(net.parents[v], net.coefficients[v]):
            B[index[v], index[p]] = b
    A = np.linalg.inv(np.eye(d) - B)
    b0 = np.array([net.intercepts[v] for v in net.nodes])
    D = np.diag([net.sigmas[v] ** 2 for v in net.nodes])
    return A @ b0, A @ D @ A.T


# ---------------------------------------------------------------------- agreement with R
def test_gaussian_fit_and_loglik_equal_bnlearn():
    X = gaussian_data()
    net = GaussianBayesianNetwork.from_data(X, GAUSS_EDGES)
    ll_rows = net.log_likelihood(X)
    for v, (coef, sd, ll) in R_GAUSS.items():
        ours = [net.intercepts[v], *net.coefficients[v]]
        np.testing.assert_allclose(ours, coef, rtol=1e-12, atol=1e-13)
        assert net.sigmas[v] == pytest.approx(sd, rel=1e-12)
        node_ll = GaussianBayesianNetwork(
            [v, *net.parents[v]], {v: net.parents[v]},
            {v: net.intercepts[v], **{p: 0.0 for p in net.parents[v]}},
            {v: net.coefficients[v]}, {v: net.sigmas[v], **{p: 1.0 for p in net.parents[v]}})
        own = node_ll.log_likelihood(X[[v, *net.parents[v]]]) - sum(
            stats.norm.logpdf(X[p]) for p in net.parents[v])
        assert own.sum() == pytest.approx(ll, rel=1e-12)
    assert ll_rows.sum() == pytest.approx(R_GAUSS_TOTAL, rel=1e-12)
    np.testing.assert_allclose(ll_rows[:3], R_GAUSS_ROWS, rtol=1e-12)


def test_clg_fit_and_loglik_equal_bnlearn():
    X = clg_data()
    net = CLGBayesianNetwork.from_data(X, CLG_EDGES)
    assert net.states == {"g.1": ["None", "b", "c"], "h h": ["hi", "lo"]}
    for v, (coef, sd, _) in R_CLG.items():
        b0 = np.atleast_1d(net.intercepts[v]).reshape(-1)
        b = net.coefficients[v].reshape(len(b0), -1)
        ours = np.column_stack([b0, b]).ravel()   # per configuration: intercept, coefficients
        np.testing.assert_allclose(ours, coef, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(np.atleast_1d(net.sigmas[v]).ravel(), sd, rtol=1e-12)
    # CPTs: R's prob arrays have the child fastest, i.e. the transpose of our layout's ravel
    np.testing.assert_allclose(net.cpts["g.1"], R_CLG_PROB["g.1"][0], rtol=1e-14)
    np.testing.assert_allclose(net.cpts["h h"].ravel(), R_CLG_PROB["h h"][0], rtol=1e-14)
    total = net.log_likelihood(X).sum()
    assert total == pytest.approx(R_CLG_TOTAL, rel=1e-12)
    # the per-node terms by hand: discrete CPT log-probabilities + Gaussian terms
    by_hand = 0.0
    for v, (_, ll) in R_CLG_PROB.items():
        codes = [X[p].cat.codes.to_numpy() for p in (*net.parents[v], v)]
        mine = np.log(net.cpts[v][tuple(codes)]).sum()
        assert mine == pytest.approx(ll, rel=1e-12)
        by_hand += mine
    h = X["h h"].cat.codes.to_numpy()
    g = X["g.1"].cat.codes.to_numpy()
    x, y, z = X["x.c"].to_numpy(), X["y y"].to_numpy(), X["z"].to_numpy()
    terms = {
        "x.c": stats.norm.logpdf(x, net.intercepts["x.c"][g], net.sigmas["x.c"][g]),
        "y y": stats.norm.logpdf(y, net.intercepts["y y"][h] + net.coefficients["y y"][h, 0] * x,
                                 net.sigmas["y y"][h]),
        "z": stats.norm.logpdf(z, net.intercepts["z"] + net.coefficients["z"][0] * y,
                               net.sigmas["z"]),
    }
    for v, term in terms.items():
        assert term.sum() == pytest.approx(R_CLG[v][2], rel=1e-12)
        by_hand += term.sum()
    assert total == pytest.approx(by_hand, rel=1e-13)


def test_variance_mle_option_and_weights_equal_replicated_rows():
    X = gaussian_data()
    unbiased = GaussianBayesianNetwork.from_data(X, GAUSS_EDGES)
    mle = GaussianBayesianNetwork.from_data(X, GAUSS_EDGES, variance="mle")
    n = len(X)
    for v in X.columns:
        p = len(unbiased.parents[v])
        assert mle.sigmas[v] ** 2 == pytest.approx(unbiased.sigmas[v] ** 2 * (n - p - 1) / n,
                                                   rel=1e-12)
        np.testing.assert_allclose(mle.coefficients[v], unbiased.coefficients[v])
    w = np.random.default_rng(0).integers(0, 4, n)
    weighted = GaussianBayesianNetwork.from_data(X, GAUSS_EDGES, sample_weight=w)
    replicated = GaussianBayesianNetwork.from_data(X.loc[X.index.repeat(w)], GAUSS_EDGES)
    for v in X.columns:
        assert weighted.sigmas[v] == pytest.approx(replicated.sigmas[v], rel=1e-10)
        np.testing.assert_allclose(weighted.coefficients[v], replicated.coefficients[v], rtol=1e-10)
    C = clg_data()
    wc = np.random.default_rng(1).integers(1, 4, len(C))
    a = CLGBayesianNetwork.from_data(C, CLG_EDGES, sample_weight=wc)
    b = CLGBayesianNetwork.from_data(C.loc[C.index.repeat(wc)].reset_index(drop=True), CLG_EDGES)
    for v in ("x.c", "y y", "z"):
        np.testing.assert_allclose(a.sigmas[v], b.sigmas[v], rtol=1e-10)
        np.testing.assert_allclose(a.coefficients[v], b.coefficients[v], rtol=1e-10)
    np.testing.assert_allclose(a.cpts["h h"], b.cpts["h h"], rtol=1e-12)


def test_fit_does_not_change_data():
    X = gaussian_data()
    before = X.copy()
    GaussianBayesianNetwork.from_data(X, GAUSS_EDGES)
    pd.testing.assert_frame_equal(X, before)


# ---------------------------------------------------------------------- brute force
def test_joint_equals_matrix_formula_and_loglik_equals_mvn():
    net = chain_network()
    mu, cov = brute_joint(net)
    joint = net.joint()
    np.testing.assert_allclose(joint.mean.to_numpy(), mu, rtol=1e-13)
    np.testing.assert_allclose(joint.covariance.to_numpy(), cov, rtol=1e-12, atol=1e-14)
    X = net.sample(50, random_state=0)
    np.testing.assert_allclose(net.log_likelihood(X),
                               stats.multivariate_normal(mu, cov).logpdf(X.to_numpy()), rtol=1e-11)
    # column order of X does not matter; absent columns and NaN cells are marginalised
    shuffled = X[["c", "a", "d", "b"]]
    np.testing.assert_allclose(net.log_likelihood(shuffled), net.log_likelihood(X), rtol=1e-13)
    partial = X.copy()
    partial.iloc[::2, 1] = np.nan
    partial.iloc[::3, 2] = np.nan
    expected = []
    for row in partial.to_numpy():
        obs = ~np.isnan(row)
        expected.append(stats.multivariate_normal(mu[obs], cov[np.ix_(obs, obs)]).logpdf(row[obs]))
    np.testing.assert_allclose(net.log_likelihood(partial), expected, rtol=1e-11)
    np.testing.assert_allclose(net.log_likelihood(X[["a", "c"]]),
                               stats.multivariate_normal(mu[[0, 2]], cov[np.ix_([0, 2], [0, 2])])
                               .logpdf(X[["a", "c"]].to_numpy()), rtol=1e-11)


def test_query_equals_schur_complement():
    net = chain_network()
    mu, cov = brute_joint(net)
    result = net.query(["c", "a"], evidence={"b": 1.0, "d": 2.5})
    assert isinstance(result, MultivariateNormal)
    q, e = [2, 0], [1, 3]
    prec = np.linalg.inv(cov)  # conditional of a Gaussian from the precision matrix
    cond_cov = np.linalg.inv(prec[np.ix_(q, q)])
    cond_mean = mu[q] - cond_cov @ prec[np.ix_(q, e)] @ (np.array([1.0, 2.5]) - mu[e])
    np.testing.assert_allclose(result.mean.to_numpy(), cond_mean, rtol=1e-11)
    np.testing.assert_allclose(result.covariance.to_numpy(), cond_cov, rtol=1e-11)
    assert list(result.mean.index) == ["c", "a"]
    np.testing.assert_allclose(result.variance.to_numpy(), np.diag(cond_cov), rtol=1e-11)
    marginal = net.query("b")
    assert marginal.mean["b"] == pytest.approx(mu[1])
    assert marginal.covariance.loc["b", "b"] == pytest.approx(cov[1, 1])


def test_sample_moments_converge():
    net = chain_network()
    mu, cov = brute_joint(net)
    n = 200_000
    X = net.sample(n, random_state=3).to_numpy()
    sd = np.sqrt(np.diag(cov))
    # means: CLT standard error sd / sqrt(n); 5 standard errors
    assert np.all(np.abs(X.mean(axis=0) - mu) < 5 * sd / np.sqrt(n))
    # covariances: var(x_i x_j) <= 2 sd_i^2 sd_j^2 for jointly normal variables
    tol = 5 * np.sqrt(2) * np.outer(sd, sd) / np.sqrt(n)
    assert np.all(np.abs(np.cov(X, rowvar=False) - cov) < tol)
    pd.testing.assert_frame_equal(net.sample(5, random_state=1), net.sample(5, random_state=1))


def test_do_is_the_mutilated_network():
    net = chain_network()
    mutilated = net.do({"b": 2.0})
    assert mutilated.parents["b"] == () and mutilated.sigmas["b"] == 0.0
    assert net.parents["b"] == ("a",)  # unchanged
    by_hand = GaussianBayesianNetwork(
        ["a", "c", "d"], {"c": ["a", "d"]},
        {"a": 1.0, "c": 0.5 - 1.2 * 2.0, "d": 3.0}, {"c": [0.7, 0.4]},
        {"a": 2.0, "c": 1.0, "d": 0.8})
    mu, cov = brute_joint(by_hand)
    joint = mutilated.joint()
    np.testing.assert_allclose(joint.mean[["a", "c", "d"]].to_numpy(), mu, rtol=1e-13)
    np.testing.assert_allclose(joint.covariance.loc[["a", "c", "d"], ["a", "c", "d"]].to_numpy(),
                               cov, rtol=1e-12, atol=1e-14)
    assert joint.mean["b"] == 2.0 and np.all(joint.covariance["b"] == 0)
    # query with do = mutilate then condition (do(b) cuts a -> b, so a keeps its prior here)
    result = net.query(["a", "b"], evidence={"c": 0.0}, do={"b": 2.0})
    expected = by_hand.query("a", evidence={"c": 0.0})
    assert result.mean["a"] == pytest.approx(expected.mean["a"], rel=1e-12)
    assert result.covariance.loc["a", "a"] == pytest.approx(expected.covariance.loc["a", "a"])
    assert result.mean["b"] == 2.0 and result.covariance.loc["b", "b"] == 0.0
    same = net.query("a", evidence={"c": 0.0, "b": 2.0}, do={"b": 2.0})
    assert same.mean["a"] == pytest.approx(expected.mean["a"], rel=1e-12)
    with pytest.raises(ValueError, match="set to 2.0 by do"):
        net.query("a", evidence={"b": 1.0}, do={"b": 2.0})
    X = net.sample(2000, random_state=0, do={"b": 2.0})
    assert np.all(X["b"] == 2.0)
    ll = mutilated.log_likelihood(X)
    np.testing.assert_allclose(ll, by_hand.log_likelihood(X[["a", "c", "d"]]), rtol=1e-12)
    X.loc[0, "b"] = 1.0
    with pytest.warns(ZeroProbabilityWarning, match="column 'b' \\(1 row\\) is not the constant value"):
        assert mutilated.log_likelihood(X)[0] == -np.inf


def test_structure_api_repr_pickle():
    net = chain_network()
    assert repr(net) == "GaussianBayesianNetwork(n_nodes=4, n_edges=4)"
    assert net.edges == [("a", "b"), ("a", "c"), ("b", "c"), ("d", "c")]
    assert net.topological_order() == ["a", "b", "d", "c"]
    graph = net.to_networkx()
    assert graph.nodes["c"]["coefficients"] == {"a": 0.7, "b": -1.2, "d": 0.4}
    assert '"a" -> "b";' in net.to_dot()
    copy = pickle.loads(pickle.dumps(net))
    np.testing.assert_allclose(copy.joint().covariance, net.joint().covariance)


# ---------------------------------------------------------------------- CLG inference
def small_clg():
    return CLGBayesianNetwork(
        nodes=["g", "h", "x", "y"],
        states={"g": ["None", "b"], "h": ["u", "v"]},
        parents={"h": ["g"], "x": ["g"], "y": ["h", "x"]},
        cpts={"g": [0.3, 0.7], "h": [[0.9, 0.1], [0.2, 0.8]]},
        intercepts={"x": [0.0, 5.0], "y": [1.0, -1.0]},
        coefficients={"y": [[2.0], [0.5]]},
        sigmas={"x": [1.0, 2.0], "y": [0.5, 1.5]})


def test_clg_query_mixture_by_enumeration():
    net = small_clg()
    assert repr(net) == "CLGBayesianNetwork(n_nodes=4, n_discrete=2, n_edges=4)"
    pg, ph = np.array([0.3, 0.7]), np.array([[0.9, 0.1], [0.2, 0.8]])
    # p(y | h = v): components over g; y | g, h = v has mean -1 + 0.5 mu_x(g)
    post_g = pg * ph[:, 1] / (pg * ph[:, 1]).sum()
    mx, vx = np.array([0.0, 5.0]), np.array([1.0, 4.0])
    my, vy = -1 + 0.5 * mx, 0.25 * vx + 1.5 ** 2
    result = net.query("y", evidence={"h": "v"})
    assert isinstance(result, NormalMixture)
    np.testing.assert_allclose(result.weights.to_numpy(), post_g, rtol=1e-12)
    assert list(result.weights.index) == ["None", "b"] and result.weights.index.name == "g"
    np.testing.assert_allclose(result.means["y"].to_numpy(), my, rtol=1e-12)
    np.testing.assert_allclose(result.covariances[:, 0, 0], vy, rtol=1e-12)
    mean = post_g @ my
    assert result.mean["y"] == pytest.approx(mean, rel=1e-12)
    assert result.covariance.loc["y", "y"] == pytest.approx(post_g @ (vy + my ** 2) - mean ** 2,
                                                            rel=1e-12)
    # far from 0 (a location of 1e8, a spread of about 1): the mixture's covariance is
    # centred, so rounding does not cancel it away (the uncentred sum gave a variance of -2)
    far = CLGBayesianNetwork(
        nodes=net.nodes, states=net.states, parents=net.parents, cpts=net.cpts,
        intercepts={"x": [1e8, 1e8 + 5.0], "y": [1.0, -1.0]}, coefficients=net.coefficients,
        sigmas={"x": [1.0, 2.0], "y": [0.5, 1.5]})
    shifted = far.query("x", evidence={"h": "v"})
    np.testing.assert_allclose(shifted.means["x"].to_numpy(), 1e8 + mx, rtol=1e-15)
    exact = post_g @ vx + post_g[0] * post_g[1] * 5.0 ** 2
    assert shifted.covariance.loc["x", "x"] == pytest.approx(exact, rel=1e-12)
    assert net.query("x", evidence={"h": "v"}).covariance.loc["x", "x"] == pytest.approx(exact, rel=1e-12)
    # without evidence: 4 components (g, h); mean checked against a large sample
    free = net.query(["x", "y"])
    assert len(free.weights) == 4 and free.weights.index.names == ["g", "h"]
    X = net.sample(200_000, random_state=0)
    for v in ("x", "y"):
        sd = np.sqrt(free.covariance.loc[v, v])
        assert abs(X[v].mean() - free.mean[v]) < 5 * sd / np.sqrt(len(X))
    # discrete queries delegate to the discrete network
    pd.testing.assert_series_equal(net.query("g", evidence={"h": "v"}),
                                   net.discrete_network.query("g", evidence={"h": "v"}))
    # evidence on every discrete parent: one component
    one = net.query("y", evidence={"g": "b", "h": "u"})
    assert len(one.weights) == 1
    assert one.mean["y"] == pytest.approx(1.0 + 2.0 * 5.0)
    assert one.covariance.loc["y", "y"] == pytest.approx(4 * 4.0 + 0.25)


def test_clg_loglik_sample_do():
    net = small_clg()
    X = net.sample(300, random_state=2)
    assert list(X.columns) == ["g", "h", "x", "y"]
    g, h = X["g"].cat.codes.to_numpy(), X["h"].cat.codes.to_numpy()
    pg, ph = np.array([0.3, 0.7]), np.array([[0.9, 0.1], [0.2, 0.8]])
    expected = (np.log(pg[g]) + np.log(ph[g, h])
                + stats.norm.logpdf(X["x"], np.array([0.0, 5.0])[g], np.array([1.0, 2.0])[g])
                + stats.norm.logpdf(X["y"], np.array([1.0, -1.0])[h]
                                    + np.array([2.0, 0.5])[h] * X["x"], np.array([0.5, 1.5])[h]))
    np.testing.assert_allclose(net.log_likelihood(X), expected, rtol=1e-12)
    refit = CLGBayesianNetwork.from_data(net.sample(20_000, random_state=4), net.edges)
    np.testing.assert_allclose(refit.coefficients["y"], net.coefficients["y"], atol=0.05)
    # do on a discrete node: point mass, parents cut
    mutilated = net.do({"h": "v", "x": 1.0})
    assert mutilated.parents["h"] == () and mutilated.parents["x"] == ()
    np.testing.assert_allclose(mutilated.cpts["h"], [0.0, 1.0])
    result = net.query("y", do={"h": "v", "x": 1.0})
    assert result.mean["y"] == pytest.approx(-0.5)
    assert result.covariance.loc["y", "y"] == pytest.approx(1.5 ** 2)
    S = net.sample(100, random_state=0, do={"h": "v"})
    assert (S["h"] == "v").all()


def test_clg_unsupported_queries_say_so():
    net = small_clg()
    with pytest.raises(NotImplementedError, match="mixes discrete and continuous"):
        net.query(["g", "y"])


# ---------------------------------------------------------------------- bad input
def test_bad_input_names_the_column_or_edge():
    X = gaussian_data()
    with pytest.raises(ValueError, match=r"Edge 'd.1' -> 'h h'.*continuous parent 'd.1'"):
        CLGBayesianNetwork(nodes=["d.1", "h h"], states={"h h": ["a", "b"]},
                           parents={"h h": ["d.1"]}, cpts={"h h": [[0.5, 0.5]]},
                           intercepts={"d.1": 0.0}, sigmas={"d.1": 1.0})
    C = clg_data()
    with pytest.raises(ValueError, match=r"Edge 'y y' -> 'h h'"):
        CLGBayesianNetwork.from_data(C, [("y y", "h h")])
    with pytest.raises(ValueError, match="cycle"):
        GaussianBayesianNetwork.from_data(X, [("x.a", "x b"), ("x b", "x.a")])
    with pytest.raises(ValueError, match="'nope', which is not a column"):
        GaussianBayesianNetwork.from_data(X, [("x.a", "nope")])
    bad = X.copy()
    bad.loc[3, "d.1"] = np.nan
    with pytest.raises(ValueError, match="NaN in column 'd.1'"):
        GaussianBayesianNetwork.from_data(bad, GAUSS_EDGES)
    bad = X.astype(object)
    bad.loc[4, "x b"] = "twelve"
    with pytest.raises(ValueError, match="'x b' of a continuous node must hold numbers.*'twelve'"):
        GaussianBayesianNetwork.from_data(bad, GAUSS_EDGES)
    with pytest.raises(ValueError, match="Column 'g.1' of a continuous node must hold numbers"):
        GaussianBayesianNetwork.from_data(C, [])
    with pytest.raises(ValueError, match="variance"):
        GaussianBayesianNetwork.from_data(X, GAUSS_EDGES, variance="biased")
    net = GaussianBayesianNetwork.from_data(X, GAUSS_EDGES)
    with pytest.raises(ValueError, match="not nodes of the network: \\['zz'\\]"):
        net.log_likelihood(X.assign(zz=1.0))


def test_clg_configuration_with_too_few_rows_is_an_error():
    C = clg_data()
    hi = np.flatnonzero(C["h h"] == "hi")
    C = C.drop(index=hi[2:]).reset_index(drop=True)  # 2 rows left for 2 coefficients
    with pytest.raises(ValueError, match=r"node 'y y' in the configuration \{'h h': 'hi'\}"):
        CLGBayesianNetwork.from_data(C, CLG_EDGES)


def test_collinear_or_exact_parents_are_errors():
    X = gaussian_data()
    X["copy"] = 2 * X["x.a"]
    with pytest.raises(ValueError, match="node 'x b'.*collinear"):
        GaussianBayesianNetwork.from_data(X, [("x.a", "x b"), ("copy", "x b")])
    with pytest.raises(ValueError, match="node 'copy'.*residual variance is 0"):
        GaussianBayesianNetwork.from_data(X, [("x.a", "copy")])
    # the error's class is public (skbn.exceptions, as a traceback shows it) and a ValueError
    with pytest.raises(NotEstimable) as caught:
        GaussianBayesianNetwork.from_data(X, [("x.a", "copy")])
    assert type(caught.value).__module__ == "skbn.exceptions"
    assert isinstance(caught.value, ValueError) and caught.value.reason


def test_constructor_validation():
    with pytest.raises(ValueError, match="Node 'b' has 1 parents"):
        GaussianBayesianNetwork(["a", "b"], {"b": ["a"]}, {"a": 0, "b": 0}, {"b": [1, 2]},
                                {"a": 1, "b": 1})
    with pytest.raises(ValueError, match="sigma of node 'b' must be positive"):
        GaussianBayesianNetwork(["a", "b"], {"b": ["a"]}, {"a": 0, "b": 0}, {"b": [1]},
                                {"a": 1, "b": 0})
    with pytest.raises(ValueError, match="Missing sigma for node 'a'"):
        GaussianBayesianNetwork(["a"], {}, {"a": 0})
    with pytest.raises(ValueError, match=r"intercept of node 'x' has shape \(\), expected \(2,\)"):
        CLGBayesianNetwork(["g", "x"], {"g": ["u", "v"]}, {"x": ["g"]}, {"g": [0.5, 0.5]},
                           {"x": 0.0}, None, {"x": [1.0, 1.0]})
    assert isinstance(small_clg().discrete_network, DiscreteBayesianNetwork)


def test_clg_edge_cases_pickle_and_more_bad_input():
    C = clg_data()
    # only continuous columns (a CLG without discrete nodes) equals the Gaussian network
    cont = C[["x.c", "y y", "z"]]
    edges = [("x.c", "y y"), ("y y", "z")]
    a = CLGBayesianNetwork.from_data(cont, edges)
    b = GaussianBayesianNetwork.from_data(cont, edges)
    np.testing.assert_allclose(a.log_likelihood(cont), b.log_likelihood(cont), rtol=1e-13)
    mix = a.query("z")
    assert len(mix.weights) == 1
    assert mix.mean["z"] == pytest.approx(b.query("z").mean["z"], rel=1e-13)
    # only discrete columns: the discrete maximum-likelihood network
    disc = CLGBayesianNetwork.from_data(C[["g.1", "h h"]], [("g.1", "h h")])
    expected = pd.crosstab(C["g.1"], C["h h"], normalize="index").to_numpy()
    np.testing.assert_allclose(disc.cpts["h h"], expected, rtol=1e-13)
    # numeric column declared discrete; states sorted
    declared = CLGBayesianNetwork.from_data(C.assign(k=(C["x.c"] > 2).astype(int)),
                                            [("k", "y y")], discrete=["g.1", "h h", "k"])
    assert declared.states["k"] == [0, 1] and declared.is_discrete("k")
    copy = pickle.loads(pickle.dumps(declared))
    np.testing.assert_allclose(copy.log_likelihood(C.assign(k=(C["x.c"] > 2).astype(int))),
                               declared.log_likelihood(C.assign(k=(C["x.c"] > 2).astype(int))))
    bad = C.copy()
    bad["g.1"] = bad["g.1"].astype(object)
    bad.loc[5, "g.1"] = None
    with pytest.raises(ValueError, match="NaN in column 'g.1'"):
        CLGBayesianNetwork.from_data(bad, CLG_EDGES)
    with pytest.raises(ValueError, match="sample_weight must be finite and non-negative"):
        CLGBayesianNetwork.from_data(C, CLG_EDGES, sample_weight=-np.ones(len(C)))
    with pytest.raises(ValueError, match="Unknown state 'zz' in column 'g.1'"):
        small = CLGBayesianNetwork.from_data(C, CLG_EDGES)
        small.log_likelihood(C.assign(**{"g.1": "zz"}))
    with pytest.raises(ValueError, match="evidence .* has probability 0"):
        CLGBayesianNetwork(["g", "y"], {"g": ["a", "b"]}, {"y": ["g"]}, {"g": [1.0, 0.0]},
                           {"y": [0.0, 1.0]}, None, {"y": [1.0, 1.0]}).query(
                               "y", evidence={"g": "b"})


# ---------------------------------------------------------------------- predict, brute force
def brute_clg(net):
    """Every configuration of all discrete nodes with its probability (product of the CPTs)
    and the joint normal of all continuous nodes given it (dense (I - B)^-1 formula)."""
    from itertools import product

    disc = [v for v in net.nodes if net.is_discrete(v)]
    cont = [v for v in net.nodes if not net.is_discrete(v)]
    cidx = {v: i for i, v in enumerate(cont)}
    out = []
    for config in product(*[range(len(net.states[v])) for v in disc]):
        state = dict(zip(disc, config))
        p = 1.0
        for v in disc:
            p *= net.cpts[v][tuple(state[u] for u in net.parents[v]) + (state[v],)]
        B, b0, D = np.zeros((len(cont),) * 2), np.zeros(len(cont)), np.zeros(len(cont))
        for v in cont:
            g = tuple(state[u] for u in net.discrete_parents[v])
            b0[cidx[v]] = net.intercepts[v][g]
            D[cidx[v]] = net.sigmas[v][g] ** 2
            for u, b in zip(net.continuous_parents[v], net.coefficients[v][g]):
                B[cidx[v], cidx[u]] = b
        A = np.linalg.inv(np.eye(len(cont)) - B)
        out.append((state, p, A @ b0, A @ np.diag(D) @ A.T))
    return disc, cont, out


def brute_predict(net, row, target):
    """E[target | observed cells of row] (continuous target) or P(target | row) (discrete)."""
    disc, cont, configs = brute_clg(net)
    obs_c = [i for i, v in enumerate(cont) if v != target and v in row and not pd.isna(row[v])]
    x = np.array([row[cont[i]] for i in obs_c])
    weights, means = [], []
    for state, p, mu, cov in configs:
        if any(v != target and v in row and not pd.isna(row[v]) and net.states[v][state[v]] != row[v]
               for v in disc):
            weights.append(0.0)
            means.append(0.0)
            continue
        dens = stats.multivariate_normal(mu[obs_c], cov[np.ix_(obs_c, obs_c)]).pdf(x) if obs_c else 1
        weights.append(p * dens)
        if target in cont:
            t = cont.index(target)
            m = mu[t]
            if obs_c:
                m += cov[t, obs_c] @ np.linalg.solve(cov[np.ix_(obs_c, obs_c)], x - mu[obs_c])
            means.append(m)
    weights = np.array(weights) / np.sum(weights)
    if target in cont:
        return float(weights @ np.array(means))
    proba = np.zeros(len(net.states[target]))
    for w, (state, *_) in zip(weights, configs):
        proba[state[target]] += w
    return proba


def random_clg():
    """g -> h, g -> x, h -> y, x -> y, y -> z, k -> z (k discrete, 3 states)."""
    return CLGBayesianNetwork(
        nodes=["g", "x", "h", "y", "k", "z"],
        states={"g": ["None", "b"], "h": ["u", "v"], "k": ["k2", "k0", "k1"]},
        parents={"h": ["g"], "x": ["g"], "y": ["h", "x"], "z": ["y", "k"]},
        cpts={"g": [0.3, 0.7], "h": [[0.9, 0.1], [0.2, 0.8]], "k": [0.5, 0.2, 0.3]},
        intercepts={"x": [0.0, 2.0], "y": [1.0, -1.0], "z": [0.5, -0.5, 1.5]},
        coefficients={"y": [[2.0], [0.5]], "z": [[1.0], [-0.7], [0.3]]},
        sigmas={"x": [1.0, 2.0], "y": [0.5, 1.5], "z": [1.0, 0.6, 0.8]})


def test_predict_gaussian_equals_joint_conditioning():
    net = chain_network()
    mu, cov = brute_joint(net)
    X = net.sample(40, random_state=5)
    X.iloc[::3, 0] = np.nan
    X.iloc[1::4, 3] = np.nan
    X.iloc[5, [0, 1, 3]] = np.nan
    pred = net.predict(X, "b")
    assert isinstance(pred, pd.Series) and pred.name == "b" and pred.index.equals(X.index)
    for i, row in enumerate(X.to_numpy()):
        obs = [j for j in range(4) if j != 1 and not np.isnan(row[j])]
        prec = np.linalg.inv(cov[np.ix_([1] + obs, [1] + obs)])  # precision-matrix route
        expected = mu[1] - prec[0, 1:] @ (row[obs] - mu[obs]) / prec[0, 0]
        assert pred.iloc[i] == pytest.approx(expected, rel=1e-10, abs=1e-12)
    # the target's own column is ignored; absent columns are marginalised
    np.testing.assert_allclose(pred, net.predict(X.drop(columns="b"), "b"), rtol=1e-13)
    assert net.predict(X[["c"]], "a").iloc[0] == pytest.approx(
        mu[0] + cov[0, 2] / cov[2, 2] * (X["c"].iloc[0] - mu[2]), rel=1e-12)
    with pytest.raises(ValueError, match="Unknown target 'q'"):
        net.predict(X, "q")


def test_clg_predict_and_predict_proba_equal_enumeration():
    net = random_clg()
    X = net.sample(30, random_state=7)
    X["g"] = X["g"].astype(object)
    X["k"] = X["k"].astype(object)
    rng = np.random.default_rng(0)
    for col in X.columns:
        X.loc[rng.random(len(X)) < 0.3, col] = np.nan if not net.is_discrete(col) else None
    worst = 0.0
    for target in ("x", "y", "z"):
        pred = net.predict(X, target)
        for i in range(len(X)):
            expected = brute_predict(net, X.iloc[i], target)
            worst = max(worst, abs(pred.iloc[i] - expected) / max(1.0, abs(expected)))
    for target in ("g", "h", "k"):
        proba = net.predict_proba(X, target)
        assert list(proba.columns) == sorted(net.states[target])  # sorted state order
        order = [net.states[target].index(s) for s in proba.columns]
        for i in range(len(X)):
            expected = brute_predict(net, X.iloc[i], target)[order]
            worst = max(worst, np.abs(proba.iloc[i].to_numpy() - expected).max())
        labels = net.predict(X, target)
        assert (labels.to_numpy() == proba.columns.to_numpy()[proba.to_numpy().argmax(1)]).all()
    assert worst < 1e-10
    with pytest.raises(ValueError, match="'x' is continuous"):
        net.predict_proba(X, "x")


def test_clg_query_with_continuous_evidence_equals_enumeration():
    net = random_clg()
    row = pd.Series({"x": 1.3, "z": -0.4, "k": "k0"})
    mixture = net.query("y", evidence={"x": 1.3, "z": -0.4, "k": "k0"})
    assert mixture.mean["y"] == pytest.approx(brute_predict(net, row, "y"), rel=1e-11)
    # y's components: the discrete parents g (of x) and h (of y) and k (of z)
    assert mixture.weights.index.names == ["g", "h"]
    np.testing.assert_allclose(mixture.weights.sum(), 1.0, rtol=1e-14)
    posterior = net.query("h", evidence={"x": 1.3, "z": -0.4, "k": "k0"})
    np.testing.assert_allclose(posterior.to_numpy(), brute_predict(net, row, "h"), rtol=1e-11)
    joint = net.query(["g", "h"], evidence={"y": 2.0})
    assert joint.index.names == ["g", "h"]
    by_h = brute_predict(net, pd.Series({"y": 2.0}), "h")
    np.testing.assert_allclose(joint.groupby(level="h").sum().to_numpy(), by_h, rtol=1e-11)
    # a single component given every discrete parent: the Gaussian conditional
    one = net.query("x", evidence={"g": "b", "y": 0.0, "h": "u"})
    assert len(one.weights) == 1
    mx, vx, vy = 2.0, 4.0, 4 * 4.0 + 0.25          # y = 1 + 2 x + e, x ~ N(2, 4)
    assert one.mean["x"] == pytest.approx(mx + 2 * vx / vy * (0.0 - (1 + 2 * mx)), rel=1e-12)
    assert one.covariance.loc["x", "x"] == pytest.approx(vx - (2 * vx) ** 2 / vy, rel=1e-12)


def test_to_dot_shapes_and_coefficient_labels():
    net = small_clg()
    dot = net.to_dot()
    assert '  "g" [shape="box"];' in dot and '  "x" [shape="ellipse"];' in dot
    assert '  "x" -> "y";' in dot
    labelled = net.to_dot(edge_labels=True)
    assert '  "x" -> "y" [label="2, 0.5"];' in labelled   # one coefficient per state of h
    assert '  "h" -> "y";' in labelled                     # a discrete parent: no label
    gauss = chain_network().to_dot(edge_labels=True)
    assert '  "b" -> "c" [label="-1.2"];' in gauss and '  "a" [shape="ellipse"];' in gauss
    assert DiscreteBayesianNetwork({"a": [0, 1]}, {}, {"a": [0.5, 0.5]}).to_dot(
        edge_labels=True) == 'digraph {\n  "a";\n}\n'


def test_clg_log_likelihood_with_missing_cells_equals_enumeration():
    net = random_clg()
    disc, cont, configs = brute_clg(net)
    X = net.sample(40, random_state=3)
    X["h"] = X["h"].astype(object)
    rng = np.random.default_rng(1)
    for col in X.columns:
        X.loc[rng.random(len(X)) < 0.35, col] = None if net.is_discrete(col) else np.nan
    X.loc[0, :] = [None, np.nan, None, np.nan, None, np.nan]          # nothing observed
    ll = net.log_likelihood(X)
    expected = []
    for _, row in X.iterrows():
        obs = [i for i, v in enumerate(cont) if not pd.isna(row[v])]
        total = 0.0
        for state, p, mu, cov in configs:
            if any(not pd.isna(row[v]) and net.states[v][state[v]] != row[v] for v in disc):
                continue
            x = row[[cont[i] for i in obs]].to_numpy(dtype=float)
            total += p * (stats.multivariate_normal(mu[obs], cov[np.ix_(obs, obs)]).pdf(x)
                          if obs else 1.0)
        expected.append(np.log(total))
    np.testing.assert_allclose(ll, expected, rtol=1e-11)
    assert ll[0] == 0.0
    complete = net.sample(10, random_state=4)
    np.testing.assert_allclose(net.log_likelihood(complete.drop(columns="y")),
                               [np.log(sum(p * stats.multivariate_normal(
                                   mu[[0, 2]], cov[np.ix_([0, 2], [0, 2])]).pdf(r[["x", "z"]].to_numpy(float))
                                   for state, p, mu, cov in configs
                                   if all(net.states[v][state[v]] == r[v] for v in disc)))
                                for _, r in complete.iterrows()], rtol=1e-11)


def test_rows_of_density_zero():
    # the rule of every prediction method (skbn._zero_probability, the learners' too): a row
    # whose evidence has density 0 gets NaN (a continuous target) or the uniform distribution
    # (a discrete one), the other rows are predicted, and one ZeroProbabilityWarning per call
    # names the columns; predict raised for the whole call, predict_proba was silent
    net = chain_network().do({"a": 1.0})  # a constant (intervened) node
    X = pd.DataFrame({"a": [1.0, 2.0], "c": [0.0, 0.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", ZeroProbabilityWarning)
        pred = net.predict(X.iloc[:1], "b")
    # by hand: given a = 1, b ~ N(-0.5, 0.25) and c = 1.2 - 1.2 b + 0.4 d + e (d ~ N(3, 0.64)):
    # E[c] = 3, cov(b, c) = -0.3, var(c) = 0.36 + 0.1024 + 1, so E[b | c = 0] below
    assert pred.iloc[0] == pytest.approx(-0.5 + (-0.3 / 1.4624) * (0.0 - 3.0), rel=1e-12)
    with pytest.warns(ZeroProbabilityWarning) as record:
        both = net.predict(X, "b")
    assert len(record) == 1
    assert re.fullmatch(r"1 of 2 rows have evidence of probability 0: their value of column 'a' \(1 row\) "
                        r"is not the constant value of that node \(standard deviation 0, such as a node "
                        r"set by do\), so they have no posterior of 'b': predict gives them NaN\.",
                        str(record[0].message)), str(record[0].message)
    assert both.iloc[0] == pred.iloc[0] and np.isnan(both.iloc[1])
    with pytest.raises(ValueError, match="'a' = 2.0 has density 0: the node is constant at 1.0"):
        net.query("b", evidence={"a": 2.0})  # (one evidence, no other rows: still refused)
    with pytest.warns(ZeroProbabilityWarning, match="column 'a' \\(1 row\\) is not the constant value"):
        assert np.isneginf(net.log_likelihood(X[["a"]])[1])
    # a CLG row whose discrete cells have probability 0
    clg = CLGBayesianNetwork(["g", "h", "y"], {"g": ["a", "b"], "h": ["u", "v"]},
                             {"h": ["g"], "y": ["h"]}, {"g": [1.0, 0.0], "h": [[0.5, 0.5]] * 2},
                             {"y": [0.0, 3.0]}, None, {"y": [1.0, 1.0]})
    rows = pd.DataFrame({"g": ["b", "a"], "y": [1.0, 1.0]})
    with pytest.warns(ZeroProbabilityWarning, match=r"^1 of 2 rows have evidence of probability 0: whatever "
                      r"the state of 'h', the CPT gives probability 0 to their state of column 'g' "
                      r"\(1 row\), so they have no posterior of 'h': predict_proba gives them the "
                      r"uniform distribution \(predict: the first state in sorted order\)\.$"):
        proba = clg.predict_proba(rows, "h")
    np.testing.assert_allclose(proba.iloc[0], [0.5, 0.5])
    ratio = np.exp(-0.5 * 1.0) / np.exp(-0.5 * 4.0)          # N(1; 0, 1) / N(1; 3, 1)
    np.testing.assert_allclose(proba.iloc[1], [ratio / (1 + ratio), 1 / (1 + ratio)], rtol=1e-12)
    with pytest.warns(ZeroProbabilityWarning, match="column 'g' \\(1 row\\).*predict gives them NaN"):
        mean = clg.predict(rows, "y")
    assert np.isnan(mean.iloc[0]) and mean.iloc[1] == pytest.approx(1.5)   # no evidence on h
    with pytest.warns(ZeroProbabilityWarning, match="column 'g' \\(1 row\\).*uniform distribution"):
        labels = clg.predict(rows.assign(h=["v", "v"]), "h")
    assert labels.tolist() == ["u", "u" if ratio > 1 else "v"]
    with warnings.catch_warnings():  # the possible row alone: the same answers, no warning
        warnings.simplefilter("error", ZeroProbabilityWarning)
        assert clg.predict(rows.iloc[1:], "y").iloc[0] == mean.iloc[1]
        pd.testing.assert_frame_equal(clg.predict_proba(rows.iloc[1:], "h"), proba.iloc[1:])
    # every cause in one message: a CPT entry of 0, a constant node off its value, and
    # evidence impossible only once a missing cell is summed out (h = v needs g = b)
    net = CLGBayesianNetwork(["g", "h", "x", "y"], {"g": ["a", "b"], "h": ["u", "v"]},
                             {"h": ["g"], "y": ["h", "x"]}, {"g": [1.0, 0.0], "h": [[1.0, 0.0], [0.0, 1.0]]},
                             {"x": 0.0, "y": [0.0, 3.0]}, {"y": [[1.0], [1.0]]},
                             {"x": 1.0, "y": [1.0, 1.0]}).do({"x": 2.0})
    rows = pd.DataFrame({"g": [None, "a", "b", "a"], "h": ["v", "u", None, "u"], "x": [2.0, 3.0, 2.0, 2.0]})
    with pytest.warns(ZeroProbabilityWarning) as record:
        mean = net.predict(rows, "y")
    assert len(record) == 1
    assert re.fullmatch(r"3 of 4 rows have evidence of probability 0: the CPT gives probability 0 to their "
                        r"state of column 'g' \(1 row\); their value of column 'x' \(1 row\) is not the "
                        r"constant value of that node \(standard deviation 0, such as a node set by do\); "
                        r"1 row more once their missing cells are summed out, so they have no posterior of "
                        r"'y': predict gives them NaN\.", str(record[0].message)), str(record[0].message)
    np.testing.assert_array_equal(np.isnan(mean), [True, True, True, False])
    assert mean.iloc[3] == pytest.approx(2.0)  # y = x + noise given h = u
    with pytest.warns(ZeroProbabilityWarning) as record:
        np.testing.assert_array_equal(np.isneginf(net.log_likelihood(rows)), [True, True, True, False])
    assert len(record) == 1
    assert str(record[0].message) == (
        "3 of 4 rows have probability 0 (log-likelihood -inf): the CPT gives probability 0 to their state "
        "of column 'g' (1 row); their value of column 'x' (1 row) is not the constant value of that node "
        "(standard deviation 0, such as a node set by do); 1 row more once their missing cells are summed "
        "out.")



def test_log_likelihood_of_rows_of_density_0_warns_once_naming_the_columns():
    # the learners' rule for score_samples (skbn._zero_probability): the networks returned
    # -inf without a word. A CLG row whose discrete configuration has probability 0 (h = v
    # never comes with g = a), by hand: log p = log P(g) + log P(h | g) + log N(y; mu_h, 1)
    clg = CLGBayesianNetwork(["g", "h", "y"], {"g": ["a", "b"], "h": ["u", "v"]},
                             {"h": ["g"], "y": ["h"]}, {"g": [0.4, 0.6], "h": [[1.0, 0.0], [0.5, 0.5]]},
                             {"y": [0.0, 3.0]}, None, {"y": [1.0, 1.0]})
    rows = pd.DataFrame({"g": ["a", "a", "b", None], "h": ["v", "u", "v", "v"], "y": [3.0, 0.0, 3.0, 3.0]})
    with pytest.warns(ZeroProbabilityWarning) as record:
        log_density = clg.log_likelihood(rows)
    assert len(record) == 1
    assert str(record[0].message) == ("1 of 4 rows have probability 0 (log-likelihood -inf): the CPT gives "
                                      "probability 0 to their state of column 'h' (1 row).")
    normal = -0.5 * np.log(2 * np.pi)   # log N(y; y, 1)
    np.testing.assert_allclose(log_density, [-np.inf, np.log(0.4) + normal, np.log(0.6 * 0.5) + normal,
                                             np.log(0.6 * 0.5) + normal], rtol=1e-12)
    with warnings.catch_warnings():  # the possible rows alone: no warning
        warnings.simplefilter("error", ZeroProbabilityWarning)
        np.testing.assert_array_equal(clg.log_likelihood(rows.iloc[1:]), log_density[1:])
    # a Gaussian network: every density is positive (far-off values give a finite, very
    # negative log-density, no warning) unless a constant node (sigma 0, set by do) is
    # observed at another value -- the one degenerate case, warned about as above
    net = chain_network()
    far = net.sample(5, random_state=0) * 1e6
    with warnings.catch_warnings():
        warnings.simplefilter("error", ZeroProbabilityWarning)
        assert np.isfinite(net.log_likelihood(far)).all()
    with pytest.warns(ZeroProbabilityWarning) as record:
        log_density = net.do({"b": 2.0}).log_likelihood(far.assign(b=[2.0, 1.0, 2.0, 1.0, np.nan]))
    assert len(record) == 1
    assert str(record[0].message) == (
        "2 of 5 rows have probability 0 (log-likelihood -inf): their value of column 'b' (2 rows) is not "
        "the constant value of that node (standard deviation 0, such as a node set by do).")
    np.testing.assert_array_equal(np.isneginf(log_density), [False, True, False, True, False])


def test_the_target_column_is_not_read_by_predict_and_predict_proba():
    """The documented rule: the target's own column is ignored. An unseen label (or text
    in a continuous target) there raised an unknown-state error."""
    net = small_clg()
    X = net.sample(50, random_state=1)
    absent = net.predict_proba(X.drop(columns="g"), "g")
    odd = X.astype({"g": object}).assign(g="never seen")
    pd.testing.assert_frame_equal(net.predict_proba(odd, "g"), absent)
    pd.testing.assert_frame_equal(net.predict_proba(X, "g"), absent)
    mean = net.predict(X.drop(columns="y"), "y")
    pd.testing.assert_series_equal(net.predict(X.assign(y="text"), "y"), mean)


def test_network_classes_read_numbers_by_the_encoders_rule():
    """``from_data`` and ``log_likelihood`` read a continuous column as the learners do
    (:func:`skbn._data.value_kind`): number-like text ("3.5") and bools are refused, naming
    the column and a cell (``pd.to_numeric`` read them as numbers, while a learner's fit
    takes such a column for categories); an object column of numbers is accepted."""
    X = gaussian_data()
    net = GaussianBayesianNetwork.from_data(X, GAUSS_EDGES)
    as_objects = X.astype(object)
    np.testing.assert_array_equal(net.log_likelihood(as_objects), net.log_likelihood(X))
    text = X.astype({"x b": str})
    with pytest.raises(ValueError, match=r"'x b' of a continuous node must hold numbers.*e\.g\. '"):
        GaussianBayesianNetwork.from_data(text, GAUSS_EDGES)
    with pytest.raises(ValueError, match="'x b' of a continuous node must hold numbers"):
        net.log_likelihood(text)
    flags = X.assign(**{"x b": X["x b"] > 0})
    with pytest.raises(ValueError, match="'x b' of a continuous node must hold numbers, but holds bools"):
        net.log_likelihood(flags)


def test_gaussian_network_copies_the_callers_coefficient_arrays():
    """The network took a float64 coefficient array as it was given (``np.asarray``): an
    edit of the caller's array changed the network's coefficient, and its likelihood, past
    the constructor's checks. The network keeps a copy, read-only; the caller's array stays
    writeable."""
    coef = np.array([2.0])
    net = GaussianBayesianNetwork(["a", "b"], parents={"a": (), "b": ("a",)},
                                  intercepts={"a": 0.0, "b": 1.0}, coefficients={"b": coef},
                                  sigmas={"a": 1.0, "b": 1.0})
    row = pd.DataFrame({"a": [1.0], "b": [3.0]})
    before = net.log_likelihood(row)
    coef[0] = -5.0
    np.testing.assert_array_equal(net.coefficients["b"], [2.0])
    np.testing.assert_array_equal(net.log_likelihood(row), before)
    # log N(1; 0, 1) + log N(3; 1 + 2 * 1, 1) = 2 * log N(0; 0, 1) - 1/2
    np.testing.assert_allclose(before, [-np.log(2 * np.pi) - 0.5], rtol=1e-12)
    assert coef.flags.writeable and not net.coefficients["b"].flags.writeable
