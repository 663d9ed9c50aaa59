import copy
import math
import pickle
import re
import warnings
from itertools import product

import numpy as np
import pandas as pd
import pytest

from skbn.datasets import asia_network
from skbn.exceptions import ZeroProbabilityWarning
from skbn.network import DiscreteBayesianNetwork


# ---------------------------------------------------------------------- references
def random_network(seed=0, n_nodes=6):
    """Random DAG whose node order is NOT a topological order; 2- and 3-state nodes."""
    rng = np.random.default_rng(seed)
    topo = [f"v{i}" for i in range(n_nodes)]
    names = list(rng.permutation(topo))
    card = {v: int(rng.choice([2, 3])) for v in topo}
    card[topo[-1]] = 3
    parents = {}
    for k, v in enumerate(topo):
        candidates = topo[:k]
        n_pa = min(len(candidates), int(rng.integers(0, 3)))
        parents[v] = list(rng.choice(candidates, size=n_pa, replace=False)) if n_pa else []
    parents[topo[-1]] = topo[-3:-1]  # at least one node with two parents
    cpts = {v: rng.dirichlet(np.ones(card[v]), size=tuple(card[p] for p in parents[v]))
            for v in topo}
    states = {v: [f"{v}s{k}" for k in range(card[v])] for v in names}
    return DiscreteBayesianNetwork(states, parents, cpts)


def log_prob_slow(net, row):
    """log p(x) for one complete row of codes, by a plain loop over the nodes."""
    total = 0.0
    for i, node in enumerate(net.nodes):
        idx = tuple(row[net.nodes.index(p)] for p in net.parents[node]) + (row[i],)
        p = float(net.cpts[node][idx])
        total += math.log(p) if p > 0 else -math.inf
    return total


def marginal_slow(net, row):
    """log sum over all completions of the -1 cells of exp(log p)."""
    missing = [j for j, c in enumerate(row) if c < 0]
    total = 0.0
    for fill in product(*(range(net.cardinalities[j]) for j in missing)):
        full = list(row)
        for j, c in zip(missing, fill):
            full[j] = c
        total += math.exp(log_prob_slow(net, full))
    return math.log(total) if total > 0 else -math.inf


def posterior_slow(net, row, target):
    row = list(row)
    logs = []
    for k in range(net.cardinalities[target]):
        row[target] = k
        logs.append(marginal_slow(net, row))
    p = np.exp(np.array(logs) - max(logs)) if max(logs) > -math.inf else np.ones(len(logs))
    return p / p.sum()


def joint_table(net):
    """Full joint as an array indexed by node codes (node order)."""
    shape = tuple(net.cardinalities)
    table = np.empty(shape)
    for idx in np.ndindex(*shape):
        table[idx] = math.exp(log_prob_slow(net, idx))
    return table


def codes_of(net, frame):
    return np.column_stack([frame[v].cat.codes.to_numpy() for v in net.nodes]).astype(np.int64)


def with_missing(codes, rate, seed):
    rng = np.random.default_rng(seed)
    out = codes.copy()
    out[rng.random(out.shape) < rate] = -1
    out[0] = -1  # a fully missing row
    return out


NETWORKS = {"asia": asia_network, "random": random_network}


# ---------------------------------------------------------------------- likelihood
@pytest.mark.parametrize("name", list(NETWORKS))
def test_complete_log_likelihood_matches_loop(name):
    net = NETWORKS[name]()
    codes = codes_of(net, net.sample(300, random_state=1))
    expected = [log_prob_slow(net, row) for row in codes]
    np.testing.assert_allclose(net.log_likelihood_codes(codes), expected, rtol=1e-12)


def test_impossible_complete_row_is_minus_inf():
    net = asia_network()
    row = np.zeros((1, 8), dtype=int)
    row[0, net.nodes.index("either")] = 1  # lung = yes but either = no
    assert net.log_likelihood_codes(row)[0] == -np.inf


@pytest.mark.parametrize("name", list(NETWORKS))
def test_missing_log_likelihood_matches_brute_force(name):
    net = NETWORKS[name]()
    codes = with_missing(codes_of(net, net.sample(60, random_state=2)), 0.35, seed=3)
    expected = [marginal_slow(net, row) for row in codes]
    got = net.log_likelihood_codes(codes)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert got[0] == 0.0


STRATEGIES = {"per_pattern": 0.0, "batched": 1e9}  # VariableElimination's cost_pattern_node


def _engine(net, **knobs):
    """The network's inference engine rebuilt with tuning knobs (the same CPTs)."""
    from skbn._inference import VariableElimination

    engine = net._inference
    return VariableElimination(engine.cpts, engine.parent_idx, engine.cardinalities, **knobs)


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("name", list(NETWORKS))
def test_many_missingness_patterns_both_strategies(name, strategy):
    """Random 20-30% missing cells: nearly every row has its own pattern."""
    net = NETWORKS[name]()
    engine = _engine(net, cost_pattern_node=STRATEGIES[strategy])
    codes = codes_of(net, net.sample(80, random_state=11))
    rng = np.random.default_rng(12)
    codes[rng.random(codes.shape) < rng.uniform(0.2, 0.3, size=(len(codes), 1))] = -1
    codes[0] = -1
    codes[1, :] = codes[2, :]
    if name == "asia":  # an impossible row: lung = yes, tub = yes, either = no
        codes[1, [net.nodes.index(v) for v in ("lung", "tub", "either")]] = [0, 0, 1]
    assert len(np.unique(codes < 0, axis=0)) > 20
    expected = [marginal_slow(net, row) for row in codes]
    got = engine.log_likelihood(net._engine_codes(codes))  # (the engine's nodes: in name order)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert got[0] == 0.0
    target = 3
    expected = np.array([posterior_slow(net, row, target) for row in codes[:30]])
    proba, impossible = engine.posterior(net._engine_codes(codes[:30]), net._engine_index[target])
    np.testing.assert_allclose(proba, expected, rtol=1e-10, atol=1e-13)
    # the rows whose evidence (the row without its target cell) has probability 0
    evidence = codes[:30].copy()
    evidence[:, target] = -1
    np.testing.assert_array_equal(impossible, [marginal_slow(net, row) == -np.inf for row in evidence])
    assert impossible.any() == (name == "asia")


def test_batched_strategy_matches_per_pattern_on_larger_network():
    net = random_network(seed=5, n_nodes=14)
    codes = with_missing(codes_of(net, net.sample(300, random_state=3)), 0.25, seed=4)
    results = {}
    for strategy, cost in STRATEGIES.items():
        engine = _engine(net, cost_pattern_node=cost, indicator_budget=1000)  # several chunks
        assert engine._indicator_plan(tuple(range(14)), ())[2] < 300
        results[strategy] = (engine.log_likelihood(net._engine_codes(codes)),
                             engine.posterior(net._engine_codes(codes), 2)[0])
    np.testing.assert_allclose(results["batched"][0], results["per_pattern"][0], rtol=1e-10)
    np.testing.assert_allclose(results["batched"][1], results["per_pattern"][1],
                               rtol=1e-10, atol=1e-14)


def test_missing_impossible_evidence_is_minus_inf():
    net = asia_network()
    row = np.full((2, 8), -1)
    row[:, net.nodes.index("tub")] = 0
    row[:, net.nodes.index("either")] = 1  # tub = yes forces either = yes
    assert np.all(net.log_likelihood_codes(row) == -np.inf)


@pytest.mark.parametrize("name", list(NETWORKS))
def test_dataframe_absent_columns_and_nan_cells(name):
    net = NETWORKS[name]()
    frame = net.sample(40, random_state=4)
    kept = net.nodes[1::2]
    sub = frame[kept].astype(object)
    sub.iloc[::3, 0] = None
    sub.iloc[1::4, 1] = np.nan
    codes = np.full((len(frame), len(net.nodes)), -1)
    for col in kept:
        codes[:, net.nodes.index(col)] = [
            -1 if pd.isna(v) else net.states[col].index(v) for v in sub[col]]
    expected = [marginal_slow(net, row) for row in codes]
    np.testing.assert_allclose(net.log_likelihood(sub), expected, rtol=1e-10)
    # categorical input gives the same answer
    np.testing.assert_allclose(net.log_likelihood(frame[kept]),
                               net.log_likelihood(frame[kept].astype(object)))


def test_log_likelihood_unknown_label_and_column():
    net = asia_network()
    with pytest.raises(ValueError, match=r"'maybe'.*'smoke'"):
        net.log_likelihood(pd.DataFrame({"smoke": ["yes", "maybe"]}))
    with pytest.raises(ValueError, match="cough"):
        net.log_likelihood(pd.DataFrame({"cough": ["yes"]}))
    with pytest.raises(ValueError, match="repeated column"):
        net.log_likelihood(pd.DataFrame([["yes", "no"]], columns=["smoke", "smoke"]))
    with pytest.raises(ValueError, match="out of range"):
        net.log_likelihood_codes(np.full((1, 8), 2))


def test_cpts_above_the_log_table_bound_log_the_entries_they_look_up(monkeypatch):
    """A CPT larger than ``_LOG_TABLE_MAX_CELLS`` keeps no table of its logs: complete rows,
    marginalised rows and posteriors take the log of the entries they look up, the same
    numbers bit for bit. (On munin1's 10,000 rows, hill climbing with BDeu ess 1 learns
    families of 7-9 parents whose CPTs have up to 9.3 million cells, of which 1-16 parent
    configurations are observed; the tables of logs doubled the fitted network's 0.74 GB.)"""
    from skbn import _inference

    net = asia_network()
    codes = codes_of(net, net.sample(400, random_state=3))
    missing = with_missing(codes, 0.3, seed=4)
    expected = [net.log_likelihood_codes(codes), net.log_likelihood_codes(missing),
                net.predict_proba_codes(missing, 5), net.predict_proba_codes(codes, 0)]
    assert all(table is not None for table in net._inference._log_cpts)
    monkeypatch.setattr(_inference, "_LOG_TABLE_MAX_CELLS", 4)  # asia's CPTs: 2, 4 or 8 cells
    large = DiscreteBayesianNetwork(net.states, net.parents, net.cpts)
    kept = [table is not None for table in large._inference._log_cpts]
    assert kept == [net.cpts[net.nodes[i]].size <= 4 for i in net._by_name] and not all(kept) and any(kept)
    got = [large.log_likelihood_codes(codes), large.log_likelihood_codes(missing),
           large.predict_proba_codes(missing, 5), large.predict_proba_codes(codes, 0)]
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)


def test_read_only_cpts_that_own_their_data_are_shared_others_copied():
    """A learner's estimated CPT (read-only, C order, owning its data) becomes the network's
    own without a copy, so a fitted network holds each CPT once; a writeable array, a view,
    a Fortran-order array or a list is copied, so changing the caller's object leaves the
    network unchanged."""
    net = asia_network()
    frozen = np.array(net.cpts["lung"])
    frozen.flags.writeable = False
    writeable = np.array(net.cpts["tub"])
    view = np.array(net.cpts["either"])[...]
    view.flags.writeable = False
    fortran = np.asfortranarray(net.cpts["dysp"])
    fortran.flags.writeable = False
    cpts = {**net.cpts, "lung": frozen, "tub": writeable, "either": view, "dysp": fortran,
            "asia": net.cpts["asia"].tolist()}
    rebuilt = DiscreteBayesianNetwork(net.states, net.parents, cpts)
    assert rebuilt.cpts["lung"] is frozen
    assert rebuilt.cpts["smoke"] is net.cpts["smoke"]  # another network's read-only CPT
    assert rebuilt.cpts["tub"] is not writeable and rebuilt.cpts["either"] is not view
    assert rebuilt.cpts["dysp"] is not fortran
    writeable[...] = 0.5
    np.testing.assert_array_equal(rebuilt.cpts["tub"], net.cpts["tub"])
    assert not any(rebuilt.cpts[v].flags.writeable for v in rebuilt.nodes)


@pytest.mark.parametrize("kind", ["discrete", "gaussian", "clg"])
@pytest.mark.parametrize("copier", [lambda n: pickle.loads(pickle.dumps(n)), copy.deepcopy],
                         ids=["pickle", "deepcopy"])
def test_parameters_stay_read_only_after_pickle_and_deepcopy(kind, copier):
    """Pickle (and ``copy.deepcopy``) rebuild every array writeable: without restoring the
    flag, ``copied.cpts[node][...] = x`` succeeded silently, bypassed the checks, and the
    copy's likelihoods kept using the log tables of the old values."""
    from skbn.datasets import make_random_network

    net = make_random_network(5, kind=kind, random_state=0)
    copied = copier(net)
    arrays = [(name, node, a) for name in ("cpts", "coefficients", "intercepts", "sigmas")
              for node, a in getattr(copied, name, {}).items() if isinstance(a, np.ndarray)]
    assert arrays
    for name, node, a in arrays:
        np.testing.assert_array_equal(a, getattr(net, name)[node])  # the data kept
        with pytest.raises(ValueError, match="read-only"):
            a[...] = 0.5
    if kind == "discrete":
        assert not any(a.flags.writeable for a in copied._inference._log_cpts)


# ---------------------------------------------------------------------- inference
def test_query_matches_full_joint_on_asia():
    net = asia_network()
    joint = joint_table(net)
    ax = {v: i for i, v in enumerate(net.nodes)}
    # P(lung | xray = yes, smoke = no)
    cond = joint[:, :, 1, :, :, :, 0, :]  # smoke = no (axis 2), xray = yes (axis 6)
    lung = cond.sum(axis=(0, 1, 3, 4, 5))
    got = net.query("lung", evidence={"xray": "yes", "smoke": "no"})
    np.testing.assert_allclose(got.to_numpy(), lung / lung.sum(), rtol=1e-12)
    assert list(got.index) == ["yes", "no"] and got.index.name == "lung"
    # joint of (either, tub) given dysp = yes
    cond = joint[..., 0]
    pair = cond.sum(axis=tuple(i for i in range(7) if i not in (ax["either"], ax["tub"])))
    pair = pair.T  # axes (tub, either) -> (either, tub)
    got = net.query(["either", "tub"], evidence={"dysp": "yes"})
    np.testing.assert_allclose(got.to_numpy(), (pair / pair.sum()).ravel(), rtol=1e-12)
    assert list(got.index.names) == ["either", "tub"]
    assert got.index[1] == ("yes", "no")
    single = net.query(["lung"], evidence={"xray": "yes", "smoke": "no"})
    assert not isinstance(single.index, pd.MultiIndex) and single.index.name == "lung"
    # no evidence: prior marginal
    np.testing.assert_allclose(net.query("dysp").to_numpy(),
                               joint.sum(axis=tuple(range(7))), rtol=1e-12)


def test_query_random_network_matches_full_joint():
    net = random_network(seed=5)
    joint = joint_table(net)
    a, b, e = net.nodes[0], net.nodes[3], net.nodes[5]
    got = net.query([b, a], evidence={e: net.states[e][1]})
    cond = np.take(joint, 1, axis=5).sum(axis=(1, 2, 4))  # axes (node0, node3)
    np.testing.assert_allclose(got.to_numpy(), (cond.T / cond.sum()).ravel(), rtol=1e-12)
    assert abs(got.sum() - 1) < 1e-12


def test_query_errors():
    net = asia_network()
    with pytest.raises(ValueError, match="cough"):
        net.query("cough")
    with pytest.raises(ValueError, match="maybe"):
        net.query("lung", evidence={"smoke": "maybe"})
    with pytest.raises(ValueError, match="both"):
        net.query(["lung", "smoke"], evidence={"smoke": "yes"})
    with pytest.raises(ValueError, match="probability 0"):
        net.query("dysp", evidence={"tub": "yes", "either": "no"})


@pytest.mark.parametrize("name", list(NETWORKS))
@pytest.mark.parametrize("rate", [0.0, 0.3])
def test_predict_proba_codes_matches_brute_force(name, rate):
    net = NETWORKS[name]()
    codes = codes_of(net, net.sample(40, random_state=6))
    if rate:
        codes = with_missing(codes, rate, seed=7)
    for target in (0, len(net.nodes) - 1, 3):
        proba = net.predict_proba_codes(codes, target)
        expected = np.array([posterior_slow(net, row, target) for row in codes])
        assert proba.shape == (len(codes), net.cardinalities[target])
        np.testing.assert_allclose(proba, expected, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        # the target column is ignored
        shifted = codes.copy()
        shifted[:, target] = -1
        np.testing.assert_array_equal(net.predict_proba_codes(shifted, target), proba)


def test_predict_proba_impossible_evidence_is_uniform_with_a_warning_naming_the_column():
    # the rule of every prediction method (skbn._zero_probability): a row whose evidence has
    # probability 0 gets the uniform distribution, the others their posterior, and one
    # ZeroProbabilityWarning per call names the column whose CPT gives 0 (it was silent)
    net = asia_network()
    rows = np.zeros((3, 8), dtype=int)
    rows[:2, net.nodes.index("either")] = 1  # lung = yes, tub = yes, either = no
    rows[1, net.nodes.index("xray")] = -1
    smoke = net.nodes.index("smoke")
    with pytest.warns(ZeroProbabilityWarning) as record:
        proba = net.predict_proba_codes(rows, smoke)
    assert len(record) == 1
    assert re.fullmatch(r"2 of 3 rows have evidence of probability 0: whatever the state of 'smoke', the "
                        r"CPT gives probability 0 to their state of column 'either' \(2 rows\), so they "
                        r"have no posterior of 'smoke': predict_proba_codes gives them the uniform "
                        r"distribution\.", str(record[0].message)), str(record[0].message)
    np.testing.assert_array_equal(proba[:2], 0.5)
    with warnings.catch_warnings():  # a possible row: its posterior, and no warning
        warnings.simplefilter("error", ZeroProbabilityWarning)
        np.testing.assert_array_equal(proba[2], net.predict_proba_codes(rows[2:], smoke)[0])
        evidence = {v: net.states[v][0] for v in net.nodes if v != "smoke"}
        np.testing.assert_allclose(proba[2], net.query("smoke", evidence=evidence).to_numpy(), rtol=1e-12)
    # a single evidence has no other rows: query still refuses it
    with pytest.raises(ValueError, match="probability 0"):
        net.query("smoke", evidence={"lung": "yes", "tub": "yes", "either": "no"})



def test_log_likelihood_of_rows_of_probability_0_warns_once_naming_the_columns():
    # the learners' rule for score_samples (skbn._zero_probability), which the network's own
    # log_likelihood and log_likelihood_codes did not follow: -inf without a word
    net = asia_network()
    rows = np.zeros((4, 8), dtype=int)
    rows[:2, net.nodes.index("either")] = 1          # lung = yes, tub = yes, either = no
    rows[1, net.nodes.index("xray")] = -1
    rows[2, [net.nodes.index(v) for v in ("lung", "tub", "either")]] = [-1, -1, 1]  # possible
    expected = [marginal_slow(net, row) for row in rows]
    np.testing.assert_array_equal(np.isneginf(expected), [True, True, False, False])
    frame = pd.DataFrame({v: [net.states[v][c] if c >= 0 else None for c in rows[:, i]]
                          for i, v in enumerate(net.nodes)})
    message = (r"2 of 4 rows have probability 0 \(log-likelihood -inf\): the CPT gives probability 0 to "
               r"their state of column 'either' \(2 rows\)\.")
    for call in (lambda: net.log_likelihood_codes(rows), lambda: net.log_likelihood(frame)):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            got = call()
        assert [w.category for w in record] == [ZeroProbabilityWarning]
        assert re.fullmatch(message, str(record[0].message)), str(record[0].message)
        np.testing.assert_allclose(got, expected, rtol=1e-12)  # the values are unchanged
    with warnings.catch_warnings():  # possible rows: no warning
        warnings.simplefilter("error", ZeroProbabilityWarning)
        assert np.isfinite(net.log_likelihood_codes(rows[2:])).all()


def test_log_likelihood_of_a_row_impossible_only_once_summed_out_still_warns():
    # no observed family has a CPT entry of 0: the message says the cause is the sum
    net = DiscreteBayesianNetwork({"a": ["x", "y"], "b": ["u", "v"]}, {"b": ["a"]},
                                  {"a": [0.5, 0.5], "b": [[1.0, 0.0], [1.0, 0.0]]})
    with pytest.warns(ZeroProbabilityWarning) as record:
        log_prob = net.log_likelihood(pd.DataFrame({"b": ["v", "u"]}))
    assert len(record) == 1
    assert str(record[0].message) == ("1 of 2 rows have probability 0 (log-likelihood -inf) once their "
                                      "missing cells are summed out.")
    np.testing.assert_array_equal(log_prob, [-np.inf, 0.0])


# ---------------------------------------------------------------------- sampling
def test_sample_frequencies_and_determinism():
    net = asia_network()
    n = 200_000
    frame = net.sample(n, random_state=0)
    assert list(frame.columns) == net.nodes
    for col in frame:
        assert isinstance(frame[col].dtype, pd.CategoricalDtype)
        assert list(frame[col].cat.categories) == ["yes", "no"]

    def check(p_hat, p, m):
        assert abs(p_hat - p) <= 4 * math.sqrt(p * (1 - p) / m) + 1e-12

    check((frame["smoke"] == "yes").mean(), 0.5, n)
    smokers = frame[frame["smoke"] == "yes"]
    check((smokers["bronc"] == "yes").mean(), 0.6, len(smokers))
    check((smokers["lung"] == "yes").mean(), 0.1, len(smokers))
    sick = frame[(frame["bronc"] == "no") & (frame["either"] == "yes")]
    check((sick["dysp"] == "yes").mean(), 0.7, len(sick))
    # deterministic OR: never either = no with tub = yes
    assert not ((frame["either"] == "no") & (frame["tub"] == "yes")).any()
    pd.testing.assert_frame_equal(net.sample(500, random_state=3),
                                  net.sample(500, random_state=3))
    assert not net.sample(500, random_state=3).equals(net.sample(500, random_state=4))


def test_sample_random_network_node_order():
    net = random_network()
    frame = net.sample(10, random_state=np.random.RandomState(0))
    assert list(frame.columns) == net.nodes
    assert list(frame[net.nodes[0]].cat.categories) == net.states[net.nodes[0]]
    assert net.sample(0).shape == (0, len(net.nodes))


# ---------------------------------------------------------------------- structure
def test_attributes_and_topological_order():
    net = asia_network()
    assert net.nodes == ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"]
    assert net.cardinalities.dtype == np.int64
    np.testing.assert_array_equal(net.cardinalities, 2)
    assert net.edges == [("asia", "tub"), ("smoke", "lung"), ("smoke", "bronc"),
                         ("lung", "either"), ("tub", "either"), ("either", "xray"),
                         ("bronc", "dysp"), ("either", "dysp")]
    assert net.parents["asia"] == () and net.parents["either"] == ("lung", "tub")
    assert net.topological_order() == ["asia", "tub", "smoke", "lung", "bronc", "either",
                                       "xray", "dysp"]
    rnd = random_network()
    order = rnd.topological_order()
    for p, c in rnd.edges:
        assert order.index(p) < order.index(c)
    assert repr(net) == "DiscreteBayesianNetwork(n_nodes=8, n_edges=8)"


def _two_nodes(**overrides):
    spec = dict(states={"a": [0, 1], "b": ["x", "y", "z"]}, parents={"b": ["a"]},
                cpts={"a": [0.3, 0.7], "b": [[0.2, 0.3, 0.5], [1 / 3, 1 / 3, 1 / 3]]})
    spec.update(overrides)
    return DiscreteBayesianNetwork(**spec)


@pytest.mark.parametrize("overrides, match", [
    (dict(parents={"b": ["a"], "a": ["b"]}), "cycle.*'a'"),
    (dict(parents={"b": ["c"]}), "'b'.*unknown parent 'c'"),
    (dict(parents={"b": ["a", "a"]}), "'b' lists a parent twice"),
    (dict(parents={"b": ["a"], "c": ["a"]}), "Parents are given for unknown node 'c'"),
    (dict(cpts={"a": [0.3, 0.7], "b": [0.2, 0.3, 0.5]}), "'b'.*shape"),
    (dict(cpts={"a": [0.3, 0.6], "b": [[0.2, 0.3, 0.5]] * 2}), "'a'.*sum"),
    (dict(cpts={"a": [1.3, -0.3], "b": [[0.2, 0.3, 0.5]] * 2}), "'a'.*negative"),
    (dict(cpts={"a": [0.3, 0.7]}), "Missing CPT.*'b'"),
    (dict(states={"a": [0, 0], "b": ["x", "y", "z"]}), "'a'.*repeated"),
])
def test_validation_errors_name_the_node(overrides, match):
    with pytest.raises(ValueError, match=match):
        _two_nodes(**overrides)


def test_unnormalised_row_names_parent_configuration():
    with pytest.raises(ValueError, match=r"'b'.*\{'a': 1\}"):
        _two_nodes(cpts={"a": [0.3, 0.7], "b": [[0.2, 0.3, 0.5], [0.5, 0.5, 0.5]]})


def test_pickle_round_trip():
    net = random_network()
    codes = with_missing(codes_of(net, net.sample(30, random_state=0)), 0.3, seed=1)
    clone = pickle.loads(pickle.dumps(net))
    assert clone.nodes == net.nodes and clone.parents == net.parents
    np.testing.assert_array_equal(clone.log_likelihood_codes(codes),
                                  net.log_likelihood_codes(codes))


def test_to_dot_lists_every_edge():
    net = asia_network()
    dot = net.to_dot()
    assert dot.startswith("digraph {")
    for p, c in net.edges:
        assert f'"{p}" -> "{c}";' in dot
    weird = _two_nodes(states={'a "1"': [0, 1], "b": ["x", "y", "z"]},
                       parents={"b": ['a "1"']},
                       cpts={'a "1"': [0.5, 0.5], "b": [[0.2, 0.3, 0.5]] * 2})
    assert '"a \\"1\\"" -> "b";' in weird.to_dot()


def test_to_networkx():
    nx = pytest.importorskip("networkx")
    graph = asia_network().to_networkx()
    assert isinstance(graph, nx.DiGraph)
    assert list(graph.nodes) == asia_network().nodes
    assert sorted(graph.edges) == sorted(asia_network().edges)
    assert graph.nodes["dysp"]["states"] == ["yes", "no"]


def test_query_takes_a_tuple_node_name_as_one_node():
    net = DiscreteBayesianNetwork(
        states={("lung", 3): ["no", "yes"], "xray": ["no", "yes"]},
        parents={"xray": [("lung", 3)]},
        cpts={("lung", 3): np.array([0.9, 0.1]), "xray": np.array([[0.95, 0.05], [0.02, 0.98]])},
    )
    marginal = net.query(("lung", 3))
    assert marginal.index.name == ("lung", 3)
    np.testing.assert_allclose(marginal.to_numpy(), [0.9, 0.1])
    joint = net.query([("lung", 3), "xray"])
    np.testing.assert_allclose(joint.sum(), 1.0)
    assert joint.shape == (4,)


# ---------------------------------------------------------------------- interventions
def truncated_marginal(net, interventions, target, nodes):
    """P(target | do(interventions)) by enumerating every configuration of ``nodes``.

    The product is the truncated factorisation (Pearl 2009, eq. 3.10): intervened nodes
    contribute the indicator of their set state, the others their CPT entry. ``nodes`` must
    contain ``target`` and be ancestral in the mutilated graph (all nodes always is).
    """
    nodes = list(nodes)
    pos = {v: k for k, v in enumerate(nodes)}
    shape = tuple(len(net.states[v]) for v in nodes)
    configs = np.indices(shape).reshape(len(nodes), -1)
    weight = np.ones(configs.shape[1])
    for v in nodes:
        if v in interventions:
            weight *= configs[pos[v]] == net.states[v].index(interventions[v])
        else:
            idx = tuple(configs[pos[p]] for p in net.parents[v]) + (configs[pos[v]],)
            weight *= net.cpts[v][idx]
    return np.bincount(configs[pos[target]], weights=weight, minlength=shape[pos[target]])


def mutilated_ancestors(net, target, intervened):
    """The target and its ancestors once the edges into the intervened nodes are cut."""
    out, stack = {target}, [target]
    while stack:
        v = stack.pop()
        if v in intervened:
            continue
        for p in net.parents[v]:
            if p not in out:
                out.add(p)
                stack.append(p)
    return out


def descendants(net, node):
    children = {v: [c for c in net.nodes if v in net.parents[c]] for v in net.nodes}
    out, stack = set(), [node]
    while stack:
        for c in children[stack.pop()]:
            if c not in out:
                out.add(c)
                stack.append(c)
    return out


def max_do_error(name):
    """Largest |query(Y, do={X: x}) - brute force| over every ordered pair and state."""
    from skbn.datasets import load_network

    net = load_network(name)
    worst = 0.0
    for x_node, y_node in product(net.nodes, net.nodes):
        if x_node == y_node:
            continue
        # ASIA: the full joint over all 2^8 configurations; CHILD: the ancestral set of Y
        # in the mutilated graph (at most 7,776 configurations), which gives the same marginal.
        nodes = (net.nodes if name == "asia"
                 else mutilated_ancestors(net, y_node, {x_node}))
        for x in net.states[x_node]:
            brute = truncated_marginal(net, {x_node: x}, y_node, nodes)
            got = net.query(y_node, do={x_node: x})
            assert list(got.index) == net.states[y_node]
            worst = max(worst, float(np.max(np.abs(got.to_numpy() - brute))))
    return worst


@pytest.mark.parametrize("name", ["asia", "child"])
def test_do_query_matches_truncated_factorisation_on_every_pair(name):
    assert max_do_error(name) < 1e-12


def test_joint_intervention_with_evidence_matches_full_joint():
    net = asia_network()
    do = {"smoke": "yes", "either": "no"}
    joint = truncated_marginal(net, do, "dysp", net.nodes)  # P(dysp | do)
    np.testing.assert_allclose(net.query("dysp", do=do).to_numpy(), joint, atol=1e-12)
    # P(bronc | dysp = yes, do): evidence conditions the mutilated joint
    nodes = net.nodes
    shape = tuple(len(net.states[v]) for v in nodes)
    configs = np.indices(shape).reshape(len(nodes), -1)
    weight = np.ones(configs.shape[1])
    for k, v in enumerate(nodes):
        if v in do:
            weight *= configs[k] == net.states[v].index(do[v])
        else:
            idx = tuple(configs[nodes.index(p)] for p in net.parents[v]) + (configs[k],)
            weight *= net.cpts[v][idx]
    weight *= configs[nodes.index("dysp")] == 0
    expected = np.bincount(configs[nodes.index("bronc")], weights=weight, minlength=2)
    got = net.query("bronc", evidence={"dysp": "yes"}, do=do)
    np.testing.assert_allclose(got.to_numpy(), expected / expected.sum(), atol=1e-12)


@pytest.mark.parametrize("name", ["asia", "child"])
def test_do_on_a_root_equals_conditioning(name):
    from skbn.datasets import load_network

    net = load_network(name)
    roots = [v for v in net.nodes if not net.parents[v]]
    assert roots
    for root, y_node in product(roots, net.nodes):
        if y_node == root:
            continue
        for x in net.states[root]:
            np.testing.assert_allclose(
                net.query(y_node, do={root: x}).to_numpy(),
                net.query(y_node, evidence={root: x}).to_numpy(), atol=1e-12)


@pytest.mark.parametrize("name", ["asia", "child"])
def test_do_without_directed_path_leaves_the_marginal_unchanged(name):
    from skbn.datasets import load_network

    net = load_network(name)
    n_checked = 0
    for x_node in net.nodes:
        below = descendants(net, x_node)
        for y_node in net.nodes:
            if y_node == x_node or y_node in below:
                continue
            prior = net.query(y_node).to_numpy()
            for x in net.states[x_node]:
                np.testing.assert_allclose(
                    net.query(y_node, do={x_node: x}).to_numpy(), prior, atol=1e-12)
                n_checked += 1
    assert n_checked > 0


def test_do_differs_from_conditioning_under_confounding():
    # lung -> dysp is confounded by smoke (lung <- smoke -> bronc -> dysp): seeing lung = yes
    # also says smoke = yes is likely, which do(lung = yes) does not.
    net = asia_network()
    for x_node, y_node in [("lung", "dysp"), ("either", "dysp")]:
        seen = net.query(y_node, evidence={x_node: "yes"})
        done = net.query(y_node, do={x_node: "yes"})
        assert abs(seen["yes"] - done["yes"]) > 0.01
    # and do(lung) leaves its cause smoke at its prior, while seeing lung moves it
    np.testing.assert_allclose(net.query("smoke", do={"lung": "yes"}).to_numpy(),
                               net.query("smoke").to_numpy(), atol=1e-12)
    assert abs(net.query("smoke", evidence={"lung": "yes"})["yes"]
               - net.query("smoke")["yes"]) > 0.1


def test_sample_under_do_matches_query():
    net = asia_network()
    do = {"either": "yes"}
    n = 20_000
    rows = net.sample(n, random_state=3, do=do)
    assert (rows["either"] == "yes").all()
    for node in net.nodes:
        p = net.query(node, do=do)
        freq = rows[node].value_counts(normalize=True).reindex(p.index, fill_value=0.0)
        se = np.sqrt(p * (1 - p) / n)
        assert (np.abs(freq - p) <= 4 * se + 1e-12).all(), node
    again = net.sample(n, random_state=3, do=do)
    pd.testing.assert_frame_equal(rows, again)
    pd.testing.assert_frame_equal(net.sample(50, random_state=1, do={}),
                                  net.sample(50, random_state=1))


def test_do_returns_the_mutilated_network_and_leaves_the_original_unchanged():
    net = asia_network()
    before = pickle.dumps((net.parents, net.edges, net.cpts, net.states))
    prior = net.query("dysp").to_numpy()
    cut = net.do({"either": "no", "smoke": "yes"})
    assert isinstance(cut, DiscreteBayesianNetwork) and cut is not net
    assert pickle.dumps((net.parents, net.edges, net.cpts, net.states)) == before
    np.testing.assert_array_equal(net.query("dysp").to_numpy(), prior)
    assert cut.parents["either"] == () and cut.parents["smoke"] == ()
    assert ("lung", "either") not in cut.edges and ("tub", "either") not in cut.edges
    np.testing.assert_array_equal(cut.cpts["either"], [0.0, 1.0])
    np.testing.assert_array_equal(cut.cpts["smoke"], [1.0, 0.0])
    for v in ["asia", "tub", "lung", "bronc", "xray", "dysp"]:
        assert cut.parents[v] == net.parents[v]
        np.testing.assert_array_equal(cut.cpts[v], net.cpts[v])
    assert cut.nodes == net.nodes and cut.states == net.states
    empty = net.do({})
    assert empty.edges == net.edges


def test_do_query_special_cases():
    net = asia_network()
    # a query on an intervened node is its point mass
    assert net.query("either", do={"either": "no"}).tolist() == [0.0, 1.0]
    # empty or None do is the observational query
    for empty in ({}, None):
        np.testing.assert_array_equal(
            net.query("lung", evidence={"xray": "yes"}, do=empty).to_numpy(),
            net.query("lung", evidence={"xray": "yes"}).to_numpy())
    # evidence naming the intervened state is redundant
    np.testing.assert_allclose(
        net.query("dysp", evidence={"either": "yes"}, do={"either": "yes"}).to_numpy(),
        net.query("dysp", do={"either": "yes"}).to_numpy(), atol=1e-15)


@pytest.mark.parametrize("call, match", [
    (lambda net: net.do({"cancer": "yes"}), "Unknown node 'cancer'"),
    (lambda net: net.do({"lung": "maybe"}), "Unknown state 'maybe' for node 'lung'"),
    (lambda net: net.do(["lung"]), "do must be a dict"),
    (lambda net: net.query("dysp", do={"cancer": "yes"}), "Unknown node 'cancer'"),
    (lambda net: net.query("dysp", do={"lung": "maybe"}), "Unknown state 'maybe'"),
    (lambda net: net.query("dysp", evidence={"lung": "no"}, do={"lung": "yes"}),
     "Node 'lung' is set to 'yes' by do but observed as 'no'"),
    (lambda net: net.query("dysp", evidence={"cancer": "no"}, do={"lung": "yes"}),
     "Unknown node 'cancer'"),
    (lambda net: net.sample(5, do={"lung": "maybe"}), "Unknown state 'maybe'"),
    (lambda net: net.sample(5, do={"cancer": "yes"}), "Unknown node 'cancer'"),
])
def test_do_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call(asia_network())


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_posterior_of_a_node_with_more_children_than_einsum_operands(strategy):
    """A naive Bayes network whose class has 70 children: with a missing cell, the class's
    posterior multiplies 71 factors over the class alone, a product with no index summed,
    which numpy's einsum does in one call and refuses beyond 63 operands (31 before numpy 2):
    ``predict_proba`` of a 64-feature naive Bayes or TAN classifier (scikit-learn's
    ``load_digits``) raised "too many operands" on any held-out row with an unseen state,
    and ``cross_val_score`` returned NaN folds. Expected value by hand: P(c | x_o) is
    proportional to P(c) prod over the observed children of P(x_j | c)."""
    rng = np.random.default_rng(0)
    children = [f"x{j:02d}" for j in range(70)]
    prior = np.array([0.5, 0.3, 0.2])
    tables = {x: rng.dirichlet(np.ones(2), size=3) for x in children}
    net = DiscreteBayesianNetwork({"C": ["a", "b", "c"], **{x: ["0", "1"] for x in children}},
                                  {"C": [], **{x: ["C"] for x in children}},
                                  {"C": prior, **tables})
    engine = _engine(net, cost_pattern_node=STRATEGIES[strategy])
    codes = np.column_stack([rng.integers(0, 3, 6)] + [rng.integers(0, 2, 6) for _ in children])
    order = [net.nodes.index(v) for v in ["C", *children]]  # codes above in this column order
    codes = codes[:, np.argsort(order)]
    codes[:, net.nodes.index("C")] = -1  # the class unobserved: log p(x_o) sums it out
    codes[:, net.nodes.index("x05")] = -1  # and one cell missing in every row
    codes[3, net.nodes.index("x40")] = -1
    joint = np.tile(prior, (6, 1))
    for x in children:
        cell = codes[:, net.nodes.index(x)]
        joint *= np.where(cell[:, None] >= 0, tables[x][:, np.maximum(cell, 0)].T, 1.0)
    target = net.nodes.index("C")
    proba, impossible = engine.posterior(codes, target)
    np.testing.assert_allclose(proba, joint / joint.sum(axis=1, keepdims=True), rtol=1e-10)
    assert not impossible.any()
    np.testing.assert_allclose(engine.log_likelihood(codes), np.log(joint.sum(axis=1)), rtol=1e-10)
    evidence = {x: net.states[x][codes[0, net.nodes.index(x)]] for x in children if x != "x05"}
    np.testing.assert_allclose(net.query("C", evidence=evidence).to_numpy(),
                               joint[0] / joint[0].sum(), rtol=1e-10)


def test_contract_many_operands_equals_einsum():
    """The grouped product of more operands than one einsum call takes equals numpy's own
    pairwise contraction (which numpy does whenever an index is summed), with and without
    a batch axis, for indices shared across the groups and summed within one."""
    from skbn._inference import _contract

    rng = np.random.default_rng(1)
    letters = "abcdef"
    subs = ["".join(sorted(set(rng.choice(list(letters), size=rng.integers(1, 3)))))
            for _ in range(45)]
    shapes = {c: 2 + i % 2 for i, c in enumerate(letters)}
    for batch, out in (("", "ac"), ("...", "...b"), ("", "")):
        operands = [rng.random(((4,) if batch else ()) + tuple(shapes[c] for c in sub))
                    for sub in subs]
        spec = ",".join(batch + sub for sub in subs) + "->" + out
        np.testing.assert_allclose(_contract(spec, operands),
                                   np.einsum(spec, *operands, optimize=True), rtol=1e-12)


def test_the_inference_engine_is_built_on_first_use_and_cannot_be_shadowed():
    # a network builds its variable-elimination engine (nodes in name order, CPTs
    # transposed) only when it first computes a probability: building one costs no more
    # than its CPTs' checks. The engine is read through properties, so an instance
    # attribute ``_inference`` (what a network pickled before the engine worked in name
    # order holds: an engine in node order) is never used
    from skbn._inference import VariableElimination

    net = asia_network()
    nodes = list(reversed(net.nodes))  # (not in name order: the engine's codes are permuted)
    reordered = DiscreteBayesianNetwork({v: net.states[v] for v in nodes},
                                        {v: list(reversed(net.parents[v])) for v in nodes},
                                        {v: np.moveaxis(net.cpts[v], range(len(net.parents[v])),
                                                        range(len(net.parents[v]))[::-1])
                                         for v in nodes})
    assert "_canonical_engine" not in vars(reordered)
    rows = pd.DataFrame({v: [net.states[v][0], None] for v in nodes})
    expected = net.log_likelihood(rows[list(net.nodes)])
    stale = VariableElimination([reordered.cpts[v] for v in nodes],
                                [tuple(nodes.index(p) for p in reordered.parents[v]) for v in nodes],
                                [len(reordered.states[v]) for v in nodes])
    copy_ = pickle.loads(pickle.dumps(reordered))
    copy_.__dict__["_inference"] = stale  # (an old pickle's engine, in node order)
    for network in (reordered, copy_):
        np.testing.assert_allclose(network.log_likelihood(rows), expected, rtol=1e-13)
        assert "_canonical_engine" in vars(network) and network._inference is not stale
