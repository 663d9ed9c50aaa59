import dataclasses
import pickle

import numpy as np
import pytest
from scipy.special import gammaln
from scipy.stats import chi2, chi2_contingency
from sklearn.base import clone

from skbn._counting import contingency_tables, n_configurations
from skbn._data import EncodedData
from skbn.citests import (
    BayesFactor,
    ChiSquare,
    CITestResult,
    DSeparationOracle,
    GTest,
    resolve_ci_test,
)


def _scipy_sum(tables, lambda_=None):
    """Reference: scipy per stratum (empty rows / columns removed), summed."""
    total, dof = 0.0, 0
    for t in tables:
        t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
        if t.shape[0] < 2 or t.shape[1] < 2:
            continue
        res = chi2_contingency(t, correction=False, lambda_=lambda_)
        total += res.statistic
        dof += res.dof
    return total, dof


def _random_tables(seed, strata=4, r_x=3, r_y=4, zeros=True):
    rng = np.random.default_rng(seed)
    tables = rng.integers(0, 30, size=(strata, r_x, r_y))
    if zeros:
        tables[0, 1, :] = 0  # an empty row in one stratum
        tables[-1, :, 2] = 0  # an empty column in another
    return tables


@pytest.mark.parametrize("seed", range(5))
def test_statistics_equal_scipy_summed_over_strata(seed):
    tables = _random_tables(seed)
    for test, lam in ((ChiSquare, None), (GTest, "log-likelihood")):
        ref_stat, ref_dof = _scipy_sum(tables, lam)
        result = test(min_samples_per_dof=0).test(tables)
        assert result.statistic == pytest.approx(ref_stat, rel=1e-10)
        assert result.dof == ref_dof  # adjusted dof = scipy's dof of the trimmed tables
        assert result.pvalue == pytest.approx(chi2.sf(ref_stat, ref_dof), rel=1e-9)


def test_unconditional_equals_scipy_and_hand_value():
    table = np.array([[10, 20], [20, 10]])
    res = ChiSquare(min_samples_per_dof=0, adjust_dof=False).test(table)
    ref = chi2_contingency(table, correction=False)
    assert res.statistic == pytest.approx(ref.statistic) == pytest.approx(20 / 3)
    assert res.pvalue == pytest.approx(ref.pvalue)
    assert res.dof == 1 and not res.independent
    g = GTest(min_samples_per_dof=0).test(table).statistic
    hand = 2 * (2 * 10 * np.log(10 / 15) + 2 * 20 * np.log(20 / 15))
    assert g == pytest.approx(hand)


def test_unadjusted_dof_uses_declared_strata():
    tables = _random_tables(0, strata=3, r_x=2, r_y=3)
    res = ChiSquare(adjust_dof=False, min_samples_per_dof=0).test(tables, n_strata=8)
    assert res.dof == (2 - 1) * (3 - 1) * 8
    assert ChiSquare(adjust_dof=False, min_samples_per_dof=0).test(tables).dof == 2 * 3


def test_from_counting_engine_matches_loop_reference():
    rng = np.random.default_rng(3)
    codes = np.asfortranarray(rng.integers(0, 3, size=(500, 4)).astype(np.uint8))
    cards = np.array([3, 3, 3, 3])
    data = EncodedData(codes, cards, ("a", "b", "c", "d"))
    res = ChiSquare(min_samples_per_dof=0).test_variables(data, 0, 1, (2, 3))
    # slow reference: loop over the strata of (c, d)
    ref = []
    for c in range(3):
        for d in range(3):
            rows = (codes[:, 2] == c) & (codes[:, 3] == d)
            t = np.zeros((3, 3))
            np.add.at(t, (codes[rows, 0], codes[rows, 1]), 1)
            ref.append(t)
    assert res.statistic == pytest.approx(_scipy_sum(np.array(ref))[0], rel=1e-10)
    tables = contingency_tables(codes, cards, 0, 1, (2, 3))
    assert ChiSquare(min_samples_per_dof=0).test(tables, n_configurations(cards, (2, 3))) == res


def test_never_nan_and_degenerate_tables():
    for test in (ChiSquare(), GTest(), ChiSquare(adjust_dof=False), BayesFactor()):
        for table in (np.zeros((0, 2, 2)), np.zeros((2, 2)), np.zeros((3, 1, 4)),
                      np.array([[[5, 0], [0, 0]]])):
            res = test.test(table, n_strata=3)
            assert isinstance(res, CITestResult)
            assert np.isfinite(res.statistic) and 0.0 <= res.pvalue <= 1.0
    res = ChiSquare().test(np.zeros((0, 2, 2)))
    assert res.pvalue == 1.0 and res.independent and res.dof == 0


@pytest.mark.parametrize("test", [ChiSquare(min_samples_per_dof=0), GTest(min_samples_per_dof=0),
                                  ChiSquare(adjust_dof=False, min_samples_per_dof=0)])
def test_a_stratum_with_one_value_of_x_or_y_adds_exactly_nothing(test):
    # X^2 and G^2 of a stratum where X (or Y) takes one value are exactly 0 (every N = E),
    # as bnlearn computes them; evaluated from the formula, Y counts 1, 4, 1 gave
    # 6 * (1/6 + 4/6 + 1/6) - 6 = -8.9e-16, which changed the statistic of a test
    near_independent = np.array([[5, 5, 5], [5, 5, 6], [5, 6, 5]])
    alone = test.test(near_independent[None])
    assert 0.0 < alone.statistic < 0.5
    for degenerate in (np.array([[1, 4, 1], [0, 0, 0], [0, 0, 0]]),   # X constant
                       np.array([[1, 0, 0], [4, 0, 0], [1, 0, 0]]),   # Y constant
                       np.array([[2, 0, 3], [0, 0, 0], [0, 0, 0]])):  # X constant, a Y state unseen
        assert test.test(degenerate[None]).statistic == 0.0
        # half the strata varied (scored, then zeroed) or fewer (only the varied ones scored)
        for strata in ([degenerate, near_independent], [near_independent, degenerate],
                       [degenerate, degenerate, near_independent, degenerate]):
            result = test.test(np.stack(strata))
            assert result.statistic == alone.statistic
            if test.adjust_dof:  # the stratum adds no degree of freedom either
                assert (result.dof, result.pvalue) == (alone.dof, alone.pvalue)
    reference, _ = _scipy_sum(np.stack([near_independent, np.array([[1, 4, 1], [0, 0, 0], [0, 0, 0]])]),
                              "log-likelihood" if isinstance(test, GTest) else None)
    assert alone.statistic == pytest.approx(reference, rel=1e-13)


def test_min_samples_rule_assumes_dependence():
    table = np.array([[[3, 1], [1, 3]]])  # 8 samples, 1 dof
    assert ChiSquare(min_samples_per_dof=10).test(table).pvalue == 0.0
    assert not ChiSquare(min_samples_per_dof=10).test(table).independent
    assert ChiSquare(min_samples_per_dof=5).test(table).independent


def test_alpha_decides():
    table = np.array([[30, 20], [20, 30]])
    p = ChiSquare().test(table).pvalue
    assert ChiSquare(alpha=p * 1.01).test(table).independent is False
    assert ChiSquare(alpha=p * 0.99).test(table).independent is True


def test_bayes_factor_hand_computation():
    table = np.array([[[6, 1], [2, 5]], [[0, 0], [0, 0]]])
    ess = 2.0

    def ml(n, a):
        n = np.asarray(n, float).ravel()
        return gammaln(a * n.size) - gammaln(a * n.size + n.sum()) + np.sum(gammaln(a + n) - gammaln(a))

    t = table[0]
    ref = ml(t.sum(1), ess / 2) + ml(t.sum(0), ess / 2) - ml(t, ess / 4)
    res = BayesFactor(ess=ess).test(table)
    assert res.statistic == pytest.approx(ref)
    assert res.pvalue == pytest.approx(1 / (1 + np.exp(-ref)))
    assert res.independent == (ref > 0)
    assert BayesFactor().test(np.array([[50, 0], [0, 50]])).independent is False
    assert BayesFactor().test(np.array([[25, 25], [25, 25]])).independent is True
    assert BayesFactor(threshold=50).test(np.array([[25, 25], [25, 25]])).independent is False


def test_oracle_answers_by_d_separation():
    nodes, edges = ["a", "b", "c", "d"], [("a", "c"), ("b", "c"), ("c", "d")]
    data = EncodedData(np.zeros((2, 4), dtype=np.uint8, order="F"), np.array([2] * 4), tuple(nodes))
    oracle = DSeparationOracle((nodes, edges))
    assert oracle.test_variables(data, 0, 1).independent
    assert not oracle.test_variables(data, 0, 1, (2,)).independent
    assert not oracle.test_variables(data, 0, 1, (3,)).independent
    assert oracle.test_variables(data, 0, 3, (2,)).independent
    assert oracle.test_variables(data, 0, 3, (2,)).pvalue == 1.0
    with pytest.raises(TypeError, match="variable identities"):
        oracle.test(np.ones((2, 2)))
    bad = EncodedData(data.codes, data.cardinalities, ("a", "b", "c", "zz"))
    with pytest.raises(ValueError, match="zz"):
        oracle.test_variables(bad, 0, 3)


def test_plugins_are_sklearn_params_and_picklable():
    test = GTest(alpha=0.01)
    assert clone(test).get_params() == {"alpha": 0.01, "adjust_dof": True, "min_samples_per_dof": 5.0}
    assert pickle.loads(pickle.dumps(test)).alpha == 0.01
    result = test.test(np.array([[10, 20], [20, 10]]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.pvalue = 0.5


def test_resolve_and_bad_parameters():
    assert isinstance(resolve_ci_test("chi_square"), ChiSquare)
    assert isinstance(resolve_ci_test("g_test"), GTest)
    assert isinstance(resolve_ci_test("bayes_factor"), BayesFactor)
    user = ChiSquare(alpha=0.2)
    resolved = resolve_ci_test(user)
    assert resolved is not user and resolved.alpha == 0.2
    with pytest.raises(ValueError, match="Unknown ci_test"):
        resolve_ci_test("x3")
    with pytest.raises(TypeError, match="BaseCITest"):
        resolve_ci_test(0.05)
    with pytest.raises(ValueError, match="alpha"):
        resolve_ci_test(ChiSquare(alpha=2.0))
    with pytest.raises(ValueError, match="ess"):
        resolve_ci_test(BayesFactor(ess=0))
    with pytest.raises(ValueError, match="cycle"):
        resolve_ci_test(DSeparationOracle((["a", "b"], [("a", "b"), ("b", "a")])))
    with pytest.raises(TypeError, match="DSeparationOracle"):
        resolve_ci_test(DSeparationOracle(42))
    with pytest.raises(ValueError, match="shape"):
        ChiSquare().test(np.ones(3))
    with pytest.raises(ValueError, match="non-negative"):
        ChiSquare().test(-np.ones((2, 2)))


@pytest.mark.parametrize("test", [ChiSquare(), GTest(), BayesFactor(), ChiSquare(adjust_dof=False)])
def test_stacked_batch_equals_tests_one_by_one(test):
    """PC stacks many tests into one ``test_batch`` call: it must give bit-identical results
    to testing each table alone (cell sums, 8+ cell tables, empty rows and columns)."""
    rng = np.random.default_rng(3)
    for r_x, r_y in [(2, 2), (3, 4), (6, 6)]:
        tables = [rng.integers(0, 4, size=(k, r_x, r_y)) * rng.integers(0, 2, size=(k, r_x, 1))
                  for k in (1, 5, 17)]
        stacked = np.concatenate(tables).astype(float)
        group = np.repeat(np.arange(len(tables)), [len(t) for t in tables])
        n_strata = np.array([len(t) for t in tables], dtype=float)
        batch = test.test_batch(stacked, group, len(tables), n_strata)
        stat, pval, dof, indep = batch.statistic, batch.pvalue, batch.dof, batch.independent
        for k, table in enumerate(tables):
            one = test.test(table, len(table))
            assert (stat[k], pval[k], dof[k], indep[k]) == (
                one.statistic, one.pvalue, one.dof, one.independent)


@pytest.mark.parametrize("test", [ChiSquare(), GTest(), BayesFactor(), ChiSquare(adjust_dof=False)])
def test_integer_weights_equal_row_duplication(test):
    """Weighted tables are counts: weight w on a row == w copies of it, bit for bit."""
    rng = np.random.default_rng(7)
    codes = np.asfortranarray(rng.integers(0, 3, size=(400, 4)).astype(np.uint8))
    cards = np.array([3, 3, 3, 3])
    weights = rng.integers(0, 4, size=400).astype(float)  # zeros: rows dropped
    weighted = EncodedData(codes, cards, ("a", "b", "c", "d"), weights)
    copies = EncodedData(np.asfortranarray(np.repeat(codes, weights.astype(int), axis=0)), cards,
                         ("a", "b", "c", "d"))
    for z in [(), (2,), (2, 3)]:
        assert test.test_variables(weighted, 0, 1, z) == test.test_variables(copies, 0, 1, z)


def test_fractional_weights_scale_the_sample_size():
    """With fractional weights the sample size is the total weight: weights all 0.5 on a
    table give the statistic of the halved table (chi-square and G are linear in N)."""
    rng = np.random.default_rng(8)
    codes = np.asfortranarray(rng.integers(0, 2, size=(300, 3)).astype(np.uint8))
    cards = np.array([2, 2, 2])
    full = EncodedData(codes, cards, ("a", "b", "c"))
    half = EncodedData(codes, cards, ("a", "b", "c"), np.full(300, 0.5))
    for test in (ChiSquare(min_samples_per_dof=0), GTest(min_samples_per_dof=0)):
        a, b = test.test_variables(full, 0, 1, (2,)), test.test_variables(half, 0, 1, (2,))
        assert b.statistic == pytest.approx(a.statistic / 2, rel=1e-12) and b.dof == a.dof
    tables = contingency_tables(codes, cards, 0, 1, (2,)) / 2
    assert BayesFactor().test_variables(half, 0, 1, (2,)) == BayesFactor().test(tables, 2)


def test_batch_api_refuses_oracles_and_returns_arrays():
    table = np.array([[[10.0, 20.0], [20.0, 10.0]]])
    batch = ChiSquare().test_batch(table, np.array([0]), 1, np.array([1.0]))
    assert batch.pvalue.shape == batch.independent.shape == (1,)
    with pytest.raises(TypeError, match="count tables"):
        DSeparationOracle((["a", "b"], [])).test_batch(table, np.array([0]), 1, np.array([1.0]))
# ------------------------------------------------------------------- fast d-separation oracle
def _random_queries(rng, n, n_queries, max_z):
    for _ in range(n_queries):
        picked = rng.choice(n, size=2 + rng.randint(0, max_z + 1), replace=False).tolist()
        yield picked[0], picked[1], tuple(picked[2:])


def test_oracle_equals_networkx_on_random_dags():
    import networkx as nx

    from skbn.graph import random_dag

    is_d_separator = getattr(nx, "is_d_separator", None) or nx.d_separated
    rng = np.random.RandomState(0)
    checked = 0
    for seed, (n, p) in enumerate([(8, 0.4), (15, 0.2), (30, 0.1), (60, 0.05), (40, 0.3)]):
        nodes, edges = random_dag(n, p, random_state=seed, max_indegree=4, shuffle=True)
        graph = nx.DiGraph(edges)
        graph.add_nodes_from(nodes)
        oracle = DSeparationOracle((nodes, edges))
        for x, y, z in _random_queries(rng, n, 800, 4):
            expected = is_d_separator(graph, {nodes[x]}, {nodes[y]}, {nodes[v] for v in z})
            assert oracle.separated(nodes[x], nodes[y], [nodes[v] for v in z]) == expected
            assert oracle.separated(nodes[y], nodes[x], [nodes[v] for v in z][::-1]) == expected
            checked += 1
    assert checked == 4000


def test_oracle_accepts_every_graph_form():
    import networkx as nx

    from skbn import ChowLiuTree
    from skbn.datasets import asia_network, sample_asia

    net = asia_network()
    data = EncodedData(np.zeros((1, 8), dtype=np.uint8, order="F"), np.array([2] * 8),
                       tuple(net.nodes))
    queries = [(0, 7, ()), (0, 2, (7,)), (1, 4, (2,)), (1, 4, (2, 7)), (6, 7, (5, 2))]
    reference = [DSeparationOracle((net.nodes, net.edges)).test_variables(data, *q).independent
                 for q in queries]
    assert reference == [False, False, True, False, True]
    graph = nx.DiGraph(net.edges)
    for form in (net, graph, net.edges, list(map(list, net.edges)),
                 DSeparationOracle(net.edges, nodes=["dysp"]).dag):
        oracle = DSeparationOracle(form)
        assert [oracle.test_variables(data, *q).independent for q in queries] == reference
    # isolated nodes come from `nodes`
    oracle = DSeparationOracle([("a", "b")], nodes=["c"])
    assert oracle.separated("a", "c") and not oracle.separated("a", "b")
    # a fitted learner: its edges_ over feature_names_in_
    tree = ChowLiuTree().fit(sample_asia(500, random_state=0))
    fitted = DSeparationOracle(tree)
    direct = DSeparationOracle((list(tree.feature_names_in_), tree.edges_))
    for x, y, z in _random_queries(np.random.RandomState(1), 8, 100, 3):
        names = [net.nodes[v] for v in (x, y, *z)]
        assert fitted.separated(*names[:2], names[2:]) == direct.separated(*names[:2], names[2:])


def test_oracle_is_a_clean_plugin():
    oracle = DSeparationOracle([("a", "c"), ("b", "c")])
    assert not oracle.separated("a", "b", ["c"])  # compiles and caches
    copy = pickle.loads(pickle.dumps(oracle))
    assert "_compiled_dag" not in copy.__dict__ and copy.separated("a", "b")
    assert "_compiled_dag" not in clone(oracle).__dict__
    oracle.set_params(dag=[("a", "b"), ("b", "c")])
    assert oracle.separated("a", "c", ["b"]) and not oracle.separated("a", "c")
    with pytest.raises(ValueError, match="unknown nodes"):
        oracle.separated("a", "q")
    with pytest.raises(ValueError, match="distinct"):
        oracle.separated("a", "b", ["a"])
