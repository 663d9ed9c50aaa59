"""A newcomer's first command-line session, replayed on generated files.

The files have what real ones have and what broke before: a state named "None", a column
named ``M. Work``, rows sorted by a variable, a continuous column, rows ending with a comma
and a file written with another separator. Every command runs as ``python -m skbn`` in a
temporary directory; the outputs must agree with each other and with the Python API.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skbn import HillClimbStructure
from skbn.datasets import asia_network
from skbn.io import read_bif, read_json
from skbn.metrics import structural_hamming_distance

ROOT = Path(__file__).resolve().parents[1]


def skbn(*argv, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "skbn", *map(str, argv)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def read_literally(path, **kwargs):
    """How the Python API reads the newcomer's file: cells as written."""
    return pd.read_csv(path, keep_default_na=False, dtype=str, **kwargs)


def edges_printed(stdout):
    return [tuple(line.strip().split(" -> ")) for line in stdout.splitlines()
            if line.startswith("  ") and " -> " in line]


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """The newcomer's files and the first `skbn learn` on them."""
    work = tmp_path_factory.mktemp("newcomer")
    frame = asia_network().sample(3000, random_state=7).astype(str)
    frame["xray"] = frame["xray"].replace({"no": "None"})     # a state named "None"
    frame = frame.rename(columns={"dysp": "M. Work"})         # a column with a dot and a space
    frame = frame.sort_values("smoke", kind="stable", ignore_index=True)  # sorted rows
    frame.to_csv(work / "survey.csv", index=False)
    argv = ["learn", "survey.csv", "--method", "tabu", "-o", "m.bif", "--dot", "m.dot"]
    if importlib.util.find_spec("matplotlib") is not None:
        argv += ["--png", "m.png"]
    result = skbn(*argv, cwd=work)
    assert result.returncode == 0, result.stderr
    return work, frame, result


def test_learn_prints_what_it_saves_and_what_the_api_finds(session):
    work, frame, result = session
    assert result.stderr == ""
    model = read_bif(work / "m.bif")
    printed = edges_printed(result.stdout)
    assert sorted(printed) == sorted(model.edges)                 # printed == saved
    dot = (work / "m.dot").read_text()
    assert dot.count(" -> ") == len(printed)
    for parent, child in printed:
        assert f'"{parent}" -> "{child}";' in dot
    api = HillClimbStructure(search="tabu").fit(read_literally(work / "survey.csv"))
    assert sorted(printed) == sorted(api.edges_)
    assert f"mean log-likelihood of the training rows: {api.score(frame):.4f}" in result.stdout
    assert model.states["xray"] == ["None", "yes"] and "M. Work" in model.nodes
    if (work / "m.png").exists():
        assert (work / "m.png").read_bytes()[:4] == b"\x89PNG"


def test_score_and_query_agree_with_the_python_api(session):
    work, frame, _ = session
    model = read_bif(work / "m.bif")
    result = skbn("score", "m.bif", "survey.csv", "--per-row", "ll.csv", cwd=work)
    assert result.returncode == 0, result.stderr
    expected = model.log_likelihood(frame)
    assert f"mean log-likelihood: {np.mean(expected):.6f}" in result.stdout
    np.testing.assert_allclose(pd.read_csv(work / "ll.csv")["log_likelihood"], expected)
    api = HillClimbStructure(search="tabu").fit(frame)
    assert np.mean(expected) == pytest.approx(api.score(frame), abs=1e-9)

    result = skbn("query", "m.bif", "--target", "xray", "--evidence", "M. Work=yes",
                  cwd=work)
    assert result.returncode == 0, result.stderr
    posterior = model.query("xray", {"M. Work": "yes"})
    for state in ("None", "yes"):
        assert f"{state} {posterior[state]:12.6f}".split() == \
            [line.split() for line in result.stdout.splitlines()
             if line.split()[:1] == [state]][0]


def test_sample_reads_back_and_compares(session):
    work, _, _ = session
    result = skbn("sample", "m.bif", "-n", "4000", "--random-state", "0", "-o", "rows.csv",
                  cwd=work)
    assert result.returncode == 0, result.stderr
    rows = read_literally(work / "rows.csv")
    assert set(rows["xray"]) == {"None", "yes"}                # "None" survives the trip
    result = skbn("learn", "rows.csv", "-o", "again.json", cwd=work)
    assert result.returncode == 0, result.stderr
    again = read_json(work / "again.json")
    assert again.states["xray"] == ["None", "yes"]
    truth = read_bif(work / "m.bif")
    result = skbn("compare", "m.bif", "again.json", cwd=work)
    assert result.returncode == 0, result.stderr
    shd = structural_hamming_distance(truth.edges, again.edges, nodes=truth.nodes)
    assert f"SHD: {shd}\n" in result.stdout


def test_awkward_files_are_clear_errors_or_right_answers(session):
    work, frame, _ = session
    rng = np.random.default_rng(0)
    continuous = frame.assign(**{"M. Work": rng.normal(0, 1, len(frame)).round(3)})
    continuous.to_csv(work / "continuous.csv", index=False)
    result = skbn("learn", "continuous.csv", cwd=work)  # a measurement among categories: CLG
    assert result.returncode == 0, result.stderr
    assert "CLGBIC" in result.stdout and "Traceback" not in result.stderr

    text = (work / "survey.csv").read_text()
    header, body = text.split("\n", 1)
    (work / "trailing.csv").write_text(header + "\n" + body.replace("\n", ",\n"))
    result = skbn("score", "m.bif", "trailing.csv", cwd=work)
    assert result.returncode == 0, result.stderr
    expected = np.mean(read_bif(work / "m.bif").log_likelihood(frame))
    assert f"mean log-likelihood: {expected:.6f}" in result.stdout

    frame.to_csv(work / "semicolon.csv", index=False, sep=";")
    result = skbn("learn", "semicolon.csv", cwd=work)
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "--sep ';'" in result.stderr
