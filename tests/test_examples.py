"""The example scripts run end to end from a fresh clone, on the built-in networks."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted(p for p in (Path(__file__).resolve().parents[1] / "examples").glob("*.py")
                  if not p.name.startswith("_"))


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(script.parents[1])}
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
    # no machine path in what the gallery shows
    assert str(script.parents[1]) not in result.stdout + result.stderr
    assert str(tmp_path) not in result.stdout + result.stderr


@pytest.mark.parametrize("script", EXAMPLES + [EXAMPLES[0].parent / "_shared.py"], ids=lambda p: p.name)
def test_example_needs_no_file_outside_the_package(script):
    # the data come from skbn (built-in networks, sampling) or scikit-learn's bundled data
    # sets, never from ../shared or another folder beside the checkout
    import ast

    text = script.read_text()
    docstring = ast.get_docstring(ast.parse(text), clean=False) or ""
    text = text.replace(docstring, "")  # the code, not its description
    for forbidden in ("shared/networks", '"shared"', "read_bif(", "parents[2]"):
        assert forbidden not in text, f"{script.name} uses {forbidden!r}"


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_docstring_has_a_gallery_title(script):
    # sphinx-gallery (the docs build) takes the title from the docstring: a first line
    # underlined with "=" of the same length
    import ast

    docstring = ast.get_docstring(ast.parse(script.read_text()), clean=True) or ""
    lines = docstring.splitlines()
    assert len(lines) >= 2 and lines[0].strip() and lines[1] == "=" * len(lines[0]), (
        f"{script.name}: start the docstring with a title line underlined by '=' "
        "(e.g. 'Learn the ALARM network\\n========================')"
    )
