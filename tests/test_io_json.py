"""skbn.io.read_json / write_json: the documented schema and exact round trips."""

import json

import numpy as np
import pytest

from skbn.datasets import asia_network
from skbn.io import read_json, write_json
from skbn.network import DiscreteBayesianNetwork


def assert_same_network(a, b):
    assert a.nodes == b.nodes and a.states == b.states and a.parents == b.parents
    for node in a.nodes:
        np.testing.assert_array_equal(a.cpts[node], b.cpts[node])   # exact


def test_schema_is_the_documented_one():
    net = DiscreteBayesianNetwork({"rain": ["yes", "no"], "wet": ["yes", "no"]},
                                  {"wet": ["rain"]},
                                  {"rain": [0.2, 0.8], "wet": [[0.9, 0.1], [0.1, 0.9]]})
    document = json.loads(write_json(net))
    assert document == {
        "format": "skbn.DiscreteBayesianNetwork", "version": 1,
        "nodes": [{"name": "rain", "states": ["yes", "no"], "parents": [], "cpt": [0.2, 0.8]},
                  {"name": "wet", "states": ["yes", "no"], "parents": ["rain"],
                   "cpt": [[0.9, 0.1], [0.1, 0.9]]}]}


def test_round_trip_is_exact_for_files_text_and_non_string_labels(tmp_path):
    asia = asia_network()
    write_json(asia, tmp_path / "asia.json")
    assert_same_network(read_json(tmp_path / "asia.json"), asia)
    assert_same_network(read_json(str(tmp_path / "asia.json")), asia)
    rng = np.random.default_rng(0)
    cpt = rng.dirichlet(np.ones(3), size=(2, 2))
    net = DiscreteBayesianNetwork({0: [True, False], 1: [1, 2], "c": ["x", 1.5, "z"]},
                                  {"c": [0, 1]},
                                  {0: [1 / 3, 2 / 3], 1: np.array([0.1, 0.9]), "c": cpt})
    copy = read_json(write_json(net))
    assert_same_network(copy, net)
    assert copy.states[0] == [True, False] and copy.states["c"][1] == 1.5


def test_numpy_labels_are_written_as_plain_scalars():
    net = DiscreteBayesianNetwork({"a": [np.int64(0), np.int64(1)]}, {}, {"a": [0.5, 0.5]})
    assert json.loads(write_json(net))["nodes"][0]["states"] == [0, 1]
    bad = DiscreteBayesianNetwork({"a": [(0, 1), (1, 0)]}, {}, {"a": [0.5, 0.5]})
    with pytest.raises(ValueError, match="cannot be written to JSON"):
        write_json(bad)


@pytest.mark.parametrize("text, match", [
    ("{not json", "Invalid JSON"),
    ('{"format": "other"}', "Not a skbn network"),
    ('{"format": "skbn.DiscreteBayesianNetwork", "version": 99, "nodes": []}', "version 99"),
    ('{"format": "skbn.DiscreteBayesianNetwork", "version": 1, "nodes": {}}', "list"),
    ('{"format": "skbn.DiscreteBayesianNetwork", "version": 1, "nodes": [{"name": "a"}]}',
     "lacks"),
    ('{"format": "skbn.DiscreteBayesianNetwork", "version": 1, "nodes": '
     '[{"name": "a", "states": [0, 1], "parents": [], "cpt": [0.5, 0.6]}]}', "sum to 1"),
])
def test_bad_documents_are_refused_clearly(text, match):
    with pytest.raises(ValueError, match=match):
        read_json(text)


def _document(**node):
    entry = {"name": "a", "states": ["y", "n"], "parents": [], "cpt": [0.5, 0.5], **node}
    return json.dumps({"format": "skbn.DiscreteBayesianNetwork", "version": 1,
                       "nodes": [entry]})


@pytest.mark.parametrize("node, match", [
    ({"states": "yn"}, r'"states" of node \'a\' must be a list of state names, got the string'),
    ({"states": []}, r'"states" of node \'a\' is empty'),
    ({"states": [["y"], ["n"]]}, r'"states" of node \'a\' must list strings or numbers'),
    ({"parents": "b"}, r'"parents" of node \'a\' must be a list of node names'),
    ({"name": ["a"]}, r'"name" of node #0 must be a string or a number, got a list'),
    ({"cpt": [0.5, "x"]}, r'"cpt" of node \'a\' must be a number or nested lists'),
    ({"cpt": [[0.5], [0.5, 0.5]]}, r'"cpt" of node \'a\''),
    ({"cpt": {"y": 0.5}}, r'"cpt" of node \'a\''),
])
def test_malformed_fields_are_named(node, match):
    with pytest.raises(ValueError, match=match):
        read_json(_document(**node))


def test_a_node_that_is_not_an_object_and_a_non_utf8_file(tmp_path):
    text = ('{"format": "skbn.DiscreteBayesianNetwork", "version": 1, "nodes": ["a"]}')
    with pytest.raises(ValueError, match="node #0 must be an object"):
        read_json(text)
    (tmp_path / "m.json").write_bytes(b'{"format": "\xff"}')
    with pytest.raises(ValueError, match="not UTF-8 text"):
        read_json(tmp_path / "m.json")
    with pytest.raises(ValueError, match="version True"):
        read_json('{"format": "skbn.DiscreteBayesianNetwork", "version": true, "nodes": []}')


# ---------------------------------------------------------------------- Gaussian and CLG
def _same_continuous(a, b):
    assert type(a) is type(b) and a.nodes == b.nodes and a.parents == b.parents
    for v in a.intercepts:   # exact: floats are written with repr
        for table in ("intercepts", "coefficients", "sigmas"):
            x, y = np.asarray(getattr(a, table)[v]), np.asarray(getattr(b, table)[v])
            assert x.shape == y.shape and x.tobytes() == y.tobytes(), (v, table)
    for v in getattr(a, "cpts", {}):
        assert a.states[v] == b.states[v]
        np.testing.assert_array_equal(a.cpts[v], b.cpts[v])


def test_gaussian_and_clg_round_trips_are_exact(tmp_path):
    from skbn.datasets import make_random_network

    for kind in ("gaussian", "clg"):
        net = make_random_network(12, kind=kind, random_sign=True, edge_prob=0.4,
                                  intercept=0.1, sigma=1 / 3, random_state=1)
        text = write_json(net, tmp_path / f"{kind}.json")
        assert json.loads(text)["kind"] == kind and json.loads(text)["version"] == 2
        _same_continuous(read_json(text), net)
        _same_continuous(read_json(tmp_path / f"{kind}.json"), net)
        X = net.sample(20, random_state=0)
        np.testing.assert_array_equal(read_json(text).log_likelihood(X), net.log_likelihood(X))


def test_gaussian_and_clg_schema():
    from skbn.network import CLGBayesianNetwork, GaussianBayesianNetwork

    net = GaussianBayesianNetwork(["a", "b"], {"b": ["a"]}, {"a": 0.0, "b": 1.5}, {"b": [2.0]},
                                  {"a": 1.0, "b": 0.5})
    assert json.loads(write_json(net)) == {
        "format": "skbn.DiscreteBayesianNetwork", "version": 2, "kind": "gaussian",
        "nodes": [{"name": "a", "parents": [], "intercept": 0.0, "coefficients": [],
                   "sigma": 1.0},
                  {"name": "b", "parents": ["a"], "intercept": 1.5, "coefficients": [2.0],
                   "sigma": 0.5}]}
    clg = CLGBayesianNetwork(["g", "x", "y"], {"g": [0, 1]}, {"y": ["g", "x"]},
                             {"g": [0.4, 0.6]}, {"x": 1.0, "y": [0.0, 1.5]},
                             {"y": [[2.0], [0.5]]}, {"x": 2.0, "y": [1.0, 0.7]})
    assert json.loads(write_json(clg))["nodes"] == [
        {"name": "g", "states": [0, 1], "parents": [], "cpt": [0.4, 0.6]},
        {"name": "x", "parents": [], "intercept": 1.0, "coefficients": [], "sigma": 2.0},
        {"name": "y", "parents": ["g", "x"], "intercept": [0.0, 1.5],
         "coefficients": [[2.0], [0.5]], "sigma": [1.0, 0.7]}]
    # a file without "kind" (every file written before version 2) is discrete
    old = ('{"format": "skbn.DiscreteBayesianNetwork", "version": 1, "nodes": '
           '[{"name": "a", "states": [0, 1], "parents": [], "cpt": [0.5, 0.5]}]}')
    assert type(read_json(old)).__name__ == "DiscreteBayesianNetwork"
    with pytest.raises(TypeError, match="write_json writes"):
        write_json("a network")


def _continuous_document(kind="gaussian", **node):
    entry = {"name": "x y", "parents": [], "intercept": 0.5, "coefficients": [], "sigma": 1.0,
             **node}
    return json.dumps({"format": "skbn.DiscreteBayesianNetwork", "version": 2, "kind": kind,
                       "nodes": [entry]})


@pytest.mark.parametrize("kind, node, match", [
    ("gaussian", {"sigma": "one"}, r'"sigma" of node \'x y\' must be a number'),
    ("gaussian", {"intercept": [0.5, 1.0]}, r'"intercept" of node \'x y\' must be a number in'),
    ("gaussian", {"coefficients": [1.0]}, r"Node 'x y' has 0 parents"),
    ("gaussian", {"sigma": -1.0}, r"sigma of node 'x y' must be positive"),
    ("gaussian", {"parents": "a"}, r'"parents" of node \'x y\' must be a list'),
    ("clg", {"intercept": [[0.5], [1]]}, r"intercept of node 'x y' has shape \(2, 1\)"),
    ("clg", {"coefficients": [["a"]]}, r'"coefficients" of node \'x y\' must be a number or'),
    ("gaussian", {"intercept": None}, r"intercept of continuous node 'x y' must be finite"),
])
def test_malformed_continuous_fields_are_named(kind, node, match):
    with pytest.raises(ValueError, match=match):
        read_json(_continuous_document(kind, **node))


def test_continuous_documents_missing_keys_and_unknown_kind():
    entry = {"name": "x", "parents": [], "intercept": 0.5}
    text = json.dumps({"format": "skbn.DiscreteBayesianNetwork", "version": 2,
                       "kind": "gaussian", "nodes": [entry]})
    with pytest.raises(ValueError, match=r"node #0 lacks \['coefficients', 'sigma'\]"):
        read_json(text)
    with pytest.raises(ValueError, match="unknown \"kind\" 'poisson'"):
        read_json(_continuous_document("poisson"))
