"""skbn.checking: a DAG's claims tested on data, against hand-computed statistics,
calibration on a true graph, and the scikit-learn scorer."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.model_selection import GridSearchCV, cross_val_score

from skbn import ChowLiuTree, HillClimbStructure, PCStructure
from skbn.checking import MarkovCheck, markov_check, markov_check_scorer
from skbn.citests import ChiSquare, GTest
from skbn.datasets import load_network
from skbn.graph import PDAG


def _chain(n=3000, seed=0):
    """A -> B -> C with strong dependence; columns with dots, spaces and 'None'/'NA' states."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = np.where(rng.random(n) < 0.8, a, 1 - a)
    c = np.where(rng.random(n) < 0.75, b, 1 - b)
    return pd.DataFrame({"a.x": np.array(["None", "yes"])[a], "b y": np.array(["NA", "no"])[b],
                         "c": np.array(["lo", "hi"])[c]})


def _g_statistic(x, y, z=None):
    """G = 2 sum O log(O / E) summed over the strata of z, from pandas crosstabs."""
    frame = pd.DataFrame({"x": x, "y": y, "z": 0 if z is None else z})
    g = 0.0
    for _, part in frame.groupby("z"):
        table = pd.crosstab(part["x"], part["y"]).to_numpy().astype(float)
        expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
        nonzero = table > 0
        g += 2 * np.sum(table[nonzero] * np.log(table[nonzero] / expected[nonzero]))
    return g


def test_chain_claims_and_hand_computed_statistics():
    X = _chain()
    check = markov_check([("a.x", "b y"), ("b y", "c")], X)
    t = check.tests
    assert list(zip(t["x"], t["y"], t["given"], t["claim"])) == [
        ("a.x", "b y", (), "dependent"),
        ("a.x", "c", ("b y",), "independent"),
        ("b y", "c", (), "dependent"),
    ]
    assert t["statistic"].tolist() == pytest.approx([
        _g_statistic(X["a.x"], X["b y"]),
        _g_statistic(X["a.x"], X["c"], X["b y"]),
        _g_statistic(X["b y"], X["c"]),
    ], rel=1e-9)
    # a and c are independent given b in the data: the true chain agrees everywhere
    assert t["agrees"].all() and check.agreement == 1.0 and len(check.rejected) == 0
    # the empty graph claims a independent of b: contradicted
    empty = markov_check([], X)
    assert empty.n_independencies == 3 and empty.agreement < 1.0
    assert set(map(tuple, empty.rejected[["x", "y"]].to_numpy())) >= {("a.x", "b y"), ("b y", "c")}


def test_holm_adjustment_by_hand():
    X = _chain()
    check = markov_check([], X)
    p = check.tests["pvalue"].to_numpy()
    order = np.argsort(p)
    expected = np.empty(3)
    expected[order] = np.minimum(1, np.maximum.accumulate(np.array([3, 2, 1]) * p[order]))
    assert check.tests["pvalue_holm"].to_numpy() == pytest.approx(expected)


@pytest.fixture(scope="module")
def alarm_rows():
    alarm = load_network("alarm")
    return alarm, alarm.sample(20_000, random_state=1)


def test_true_graph_is_calibrated_and_beats_wrong_graphs(alarm_rows):
    alarm, X = alarm_rows
    true = markov_check(alarm, X)
    assert true.n_independencies == 666 - 46
    # under the true graph about alpha of the implied independencies are rejected
    assert 0.02 <= true.rejection_rate <= 0.09
    assert true.n_rejected_holm <= 3
    nodes = list(X.columns)
    dropped = list(alarm.edges)[::5]  # 10 true edges removed
    wrong = [e for e in alarm.edges if e not in dropped]
    complete = list(itertools.combinations(nodes, 2))
    scores = {name: markov_check(graph, X).agreement
              for name, graph in [("empty", []), ("complete", complete), ("dropped", wrong)]}
    assert all(true.agreement > s for s in scores.values()), (true.agreement, scores)
    assert markov_check(wrong, X).rejection_rate > 2 * true.rejection_rate


def test_uniformity_summary_matches_scipy(alarm_rows):
    alarm, X = alarm_rows
    check = markov_check(alarm, X.iloc[:3000])
    p = check.tests.loc[check.tests["claim"] == "independent", "pvalue"]
    assert check.uniformity_pvalue == pytest.approx(stats.kstest(p, "uniform").pvalue)
    assert "claims the data agree with" in check.summary()


def test_edge_order_and_column_order():
    X = _chain()
    edges = [("a.x", "b y"), ("b y", "c")]
    a = markov_check(edges, X).tests
    b = markov_check(edges[::-1], X).tests
    pd.testing.assert_frame_equal(a, b)
    # ties go to the names, so another column order gives the same tests
    c = markov_check(edges, X[["c", "b y", "a.x"]]).tests
    pd.testing.assert_frame_equal(a, c)


def test_column_order_does_not_change_the_check(alarm_rows):
    # ALARM's held-out rows in shuffled column orders: the claims were tested given other
    # parent sets (ties of the topological order went to the column order), and the
    # agreement of one graph on the same rows ranged over 0.943-0.951
    truth, rows = alarm_rows
    learned = HillClimbStructure().fit(truth.sample(3000, random_state=0))
    X = rows.iloc[:3000]
    first = markov_check(learned, X).tests
    for seed in range(3):
        columns = list(np.random.default_rng(seed).permutation(X.columns))
        pd.testing.assert_frame_equal(markov_check(learned, X[columns]).tests, first)


def test_weights_equal_replicated_rows():
    X = _chain(500)
    w = np.random.default_rng(3).integers(0, 4, len(X))
    weighted = markov_check([("a.x", "b y")], X, sample_weight=w).tests
    replicated = markov_check([("a.x", "b y")], X.loc[X.index.repeat(w)].reset_index(drop=True)).tests
    np.testing.assert_allclose(weighted["statistic"], replicated["statistic"], rtol=1e-12)
    assert (weighted["independent"] == replicated["independent"]).all()


def test_rows_of_weight_0_are_not_read():
    """A weight 0 is no row: a state or a missing cell seen only in such rows changes
    nothing (the state added a cell to the tables, the missing cell was refused)."""
    X = _chain(300)
    kept = markov_check([("a.x", "b y")], X).tests
    extra = pd.concat([X, X.iloc[:2].assign(c=["unseen", None])], ignore_index=True)
    w = np.r_[np.ones(len(X)), 0.0, 0.0]
    weighted = markov_check([("a.x", "b y")], extra, sample_weight=w).tests
    pd.testing.assert_frame_equal(weighted, kept)


def test_fitted_learners_and_networks():
    X = _chain(4000)
    hc = HillClimbStructure().fit(X.iloc[:2000])
    held = X.iloc[2000:]
    from_learner = markov_check(hc, held)
    from_network = markov_check(hc.network_, held)
    pd.testing.assert_frame_equal(from_learner.tests, from_network.tests)
    structure_only = HillClimbStructure(fit_parameters=False).fit(X.iloc[:2000])
    pd.testing.assert_frame_equal(markov_check(structure_only, held).tests, from_learner.tests)
    # a learner fitted with y: the held-out target comes as y
    tan = ChowLiuTree().fit(X.iloc[:2000].drop(columns="c"), X["c"].iloc[:2000])
    check = markov_check(tan, held.drop(columns="c"), held["c"])
    assert len(check.tests) == 3
    # a PDAG without undirected edges is a DAG
    pdag = PDAG(("a.x", "b y", "c"), directed=(("a.x", "b y"), ("b y", "c")))
    pd.testing.assert_frame_equal(markov_check(pdag, X).tests, markov_check(list(pdag.directed), X).tests)


def test_other_tests_and_states_missing_from_held_out_rows():
    X = _chain()
    chi = markov_check([("a.x", "b y")], X, ci_test=ChiSquare(alpha=0.01))
    assert chi.alpha == 0.01
    assert markov_check([("a.x", "b y")], X, ci_test="bayes_factor").alpha is None
    hc = HillClimbStructure().fit(X)
    held = X[X["c"] == "hi"]  # one state of c absent from the held-out rows
    assert len(markov_check(hc, held).tests) == 3


def test_scorer_in_cross_validation_and_grid_search():
    X = load_network("asia").sample(3000, random_state=0)
    scores = cross_val_score(HillClimbStructure(), X, cv=3, scoring=markov_check_scorer)
    assert scores.shape == (3,) and np.all((scores > 0.5) & (scores <= 1))
    search = GridSearchCV(PCStructure(), {"ci_test__alpha": [0.01, 0.05]}, cv=3,
                          scoring=markov_check_scorer).fit(X)
    assert search.best_params_["ci_test__alpha"] in (0.01, 0.05)
    assert markov_check_scorer(search.best_estimator_, X) == markov_check(search.best_estimator_, X).agreement


@pytest.mark.parametrize("graph, X, match, error", [
    ([("a.x", "missing col")], None, "missing col", ValueError),
    ([("a.x", "b y"), ("b y", "a.x")], None, "cycle", ValueError),
    (PDAG(("a.x", "b y"), undirected=(("a.x", "b y"),)), None, "undirected", ValueError),
    ("a.x", None, "fitted learner", TypeError),
    ([("a.x", "b y", "c")], None, "pair", ValueError),
])
def test_bad_input(graph, X, match, error):
    with pytest.raises(error, match=match):
        markov_check(graph, _chain(100) if X is None else X)


def test_continuous_network_is_refused_clearly():
    # a Gaussian learner's network has no states: this was an AttributeError
    rng = np.random.default_rng(0)
    a = rng.normal(size=400)
    X = pd.DataFrame({"a": a, "b": a + rng.normal(size=400)})
    gaussian = HillClimbStructure().fit(X)
    for graph in (gaussian, gaussian.network_):
        with pytest.raises(ValueError,
                           match="discrete networks only, got a GaussianBayesianNetwork.*ci_test"):
            markov_check(graph, X)


def test_y_must_be_the_missing_node():
    X = _chain(100)
    with pytest.raises(ValueError, match="y must be the one node"):
        markov_check([("a.x", "b y")], X, X["c"])


def test_caller_data_unchanged():
    X = _chain(200)
    before = X.copy()
    markov_check([("a.x", "b y")], X, sample_weight=np.ones(len(X)))
    pd.testing.assert_frame_equal(X, before)
    assert isinstance(markov_check([], X), MarkovCheck)
    assert GTest().alpha == 0.05
