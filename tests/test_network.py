import math
import pickle
from itertools import product

import numpy as np
import pandas as pd
import pytest

from skbn.datasets import asia_network
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


STRATEGIES = {"per_pattern": 0.0, "batched": 1e9}  # skbn._inference._COST_PATTERN_NODE


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("name", list(NETWORKS))
def test_many_missingness_patterns_both_strategies(name, strategy, monkeypatch):
    """Random 20-30% missing cells: nearly every row has its own pattern."""
    import skbn._inference as network_module

    monkeypatch.setattr(network_module, "_COST_PATTERN_NODE", STRATEGIES[strategy])
    net = NETWORKS[name]()
    codes = codes_of(net, net.sample(80, random_state=11))
    rng = np.random.default_rng(12)
    codes[rng.random(codes.shape) < rng.uniform(0.2, 0.3, size=(len(codes), 1))] = -1
    codes[0] = -1
    codes[1, :] = codes[2, :]
    if name == "asia":  # an impossible row: lung = yes, tub = yes, either = no
        codes[1, [net.nodes.index(v) for v in ("lung", "tub", "either")]] = [0, 0, 1]
    assert len(np.unique(codes < 0, axis=0)) > 20
    expected = [marginal_slow(net, row) for row in codes]
    got = net.log_likelihood_codes(codes)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert got[0] == 0.0
    target = 3
    expected = np.array([posterior_slow(net, row, target) for row in codes[:30]])
    np.testing.assert_allclose(net.predict_proba_codes(codes[:30], target), expected,
                               rtol=1e-10, atol=1e-13)


def test_batched_strategy_matches_per_pattern_on_larger_network(monkeypatch):
    import skbn._inference as network_module

    net = random_network(seed=5, n_nodes=14)
    codes = with_missing(codes_of(net, net.sample(300, random_state=3)), 0.25, seed=4)
    results = {}
    for strategy, cost in STRATEGIES.items():
        monkeypatch.setattr(network_module, "_COST_PATTERN_NODE", cost)
        monkeypatch.setattr(network_module, "_INDICATOR_BUDGET", 1000)  # several chunks
        results[strategy] = (net.log_likelihood_codes(codes), net.predict_proba_codes(codes, 2))
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


def test_predict_proba_impossible_evidence_is_uniform():
    net = asia_network()
    rows = np.zeros((2, 8), dtype=int)
    rows[:, net.nodes.index("either")] = 1  # lung = yes, tub = yes, either = no
    rows[1, net.nodes.index("xray")] = -1
    proba = net.predict_proba_codes(rows, net.nodes.index("smoke"))
    np.testing.assert_array_equal(proba, 0.5)


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
