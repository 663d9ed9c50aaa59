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
