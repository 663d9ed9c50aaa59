"""The skbn command line: in-process ``main(argv)`` for most paths, a few real subprocesses."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skbn import HillClimbStructure, PCStructure
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


def run(argv, capsys):
    """Run ``main(argv)``; return (exit status, stdout, stderr)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(status, err, *fragments):
    assert status == 1
    assert err.count("\n") == 1 and "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


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
    (["-o", "model.txt"], [".bif or .json"]),
    (["--black-list", "nope.csv"], ["nope.csv"]),
])
def test_learn_refuses_options_the_method_cannot_honour(argv, fragments, asia_csv, capsys):
    status, _, err = run(["learn", asia_csv, *argv], capsys)
    assert_one_line_error(status, err, *fragments)


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
    assert_one_line_error(status, err, "pip install skbn[plot]")


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
    status, out, _ = run(["--help"], capsys)
    assert status == 0 and "examples:" in out and "skbn learn survey.csv" in out
    status, out, _ = run(["learn", "--help"], capsys)
    assert status == 0 and "--tiers" in out and "examples:" in out
    status, _, err = run(["learn"], capsys)                   # argparse usage error
    assert status == 2 and "required" in err


def test_unexpected_errors_are_one_line_unless_debug(asia_csv, capsys, monkeypatch):
    def broken(self, X, y=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(HillClimbStructure, "fit", broken)
    status, _, err = run(["learn", asia_csv], capsys)
    assert status == 3 and err.count("\n") == 1
    assert "RuntimeError: boom" in err and "--debug" in err
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
    assert_one_line_error(status, err, "missing='em' is not supported by PCStructure")
