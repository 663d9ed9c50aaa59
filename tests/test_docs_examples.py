"""The code blocks of README.md and docs/*.md run as written, from a fresh clone.

The rule, per page:

- every ```python block runs; the blocks of one page run in order, in one namespace, in a
  fresh temporary working directory (so a block may use what an earlier block defined or
  wrote);
- every ```bash block runs when each of its commands starts with ``skbn`` or
  ``python -m skbn`` (run as ``sys.executable -m skbn`` in the same directory, with the
  checkout first on ``PYTHONPATH``);
- a block right after an HTML comment ``<!-- no-test: reason -->`` is not run, and the test
  says so with that reason (``pytest -ra`` lists it): installing packages, benchmarks,
  building the site, interface listings;
- any other ```bash block fails the test: make it runnable or mark it.

Other fences (``json``, plain text, benchmark tables) are not code and are not run.
"""

import os
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^```(?P<lang>[\w-]*)[^\n]*\n(?P<code>.*?)^```[ \t]*$", re.S | re.M)
MARKER = re.compile(r"<!--\s*no-test:\s*(?P<reason>[^<>]*?)\s*-->\Z")
SHELL_OPERATORS = {"|", "||", "&&", ";", ">", ">>", "<", "&"}


def code_blocks(path):
    """``(line, language, code, skip reason or None)`` of every python / bash block of a page."""
    text = path.read_text()
    blocks = []
    for match in FENCE.finditer(text):
        lang = match["lang"].lower()
        if lang not in ("python", "bash"):
            continue
        line = text.count("\n", 0, match.start()) + 1
        marker = MARKER.search(text[:match.start()].rstrip())
        reason = " ".join(marker["reason"].split()) if marker else None
        blocks.append((line, lang, match["code"], reason))
    return blocks


def skbn_commands(code, where):
    """The argument lists of a bash block whose every command is ``skbn ...``."""
    commands = []
    for raw in code.replace("\\\n", " ").splitlines():
        words = shlex.split(raw, comments=True)
        if not words:
            continue
        if words[0] == "skbn":
            args = words[1:]
        elif words[:3] == ["python", "-m", "skbn"]:
            args = words[3:]
        else:
            pytest.fail(f"{where}: `{raw.strip()}` is not a skbn command; make the block run as "
                        "written or put <!-- no-test: reason --> before it")
        if SHELL_OPERATORS & set(args):
            pytest.fail(f"{where}: `{raw.strip()}` uses a shell operator; one skbn command a line")
        commands.append(args)
    return commands


def run_page(path, workdir):
    """Run the page's unmarked blocks in order (marked ones: ``test_marked_block_is_not_run``)."""
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    namespace = {"__name__": "__docs__"}
    for line, lang, code, reason in code_blocks(path):
        where = f"{path.relative_to(ROOT)}:{line}"
        if reason is not None:
            continue
        if lang == "python":
            try:
                with warnings.catch_warnings():
                    # a warning in an example is a problem to fix (e.g. NaN scores of a CV
                    # fold); only library deprecations and plt.show() under Agg are let through
                    warnings.simplefilter("error")
                    warnings.filterwarnings("ignore", category=DeprecationWarning)
                    warnings.filterwarnings("ignore", category=PendingDeprecationWarning)
                    warnings.filterwarnings("ignore", message=".*non-interactive.*")
                    exec(compile(code, where, "exec"), namespace)
            except Exception as exc:
                raise AssertionError(f"{where}: the python block fails:\n{code}") from exc
            continue
        for args in skbn_commands(code, where):
            result = subprocess.run([sys.executable, "-m", "skbn", *args], cwd=workdir, env=env,
                                    capture_output=True, text=True, timeout=300)
            assert result.returncode == 0, (
                f"{where}: `skbn {shlex.join(args)}` exits {result.returncode}:\n{result.stderr}")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_examples_run_as_written(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    try:
        run_page(path, tmp_path)
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")


MARKED = [(f"{page.relative_to(ROOT)}:{line}", reason)
          for page in PAGES for line, _, _, reason in code_blocks(page) if reason is not None]


@pytest.mark.parametrize("where, reason", MARKED, ids=[where for where, _ in MARKED])
def test_marked_block_is_not_run(where, reason):
    pytest.skip(f"{where} is marked no-test: {reason}")


def test_marker_rule():
    # a marked block is skipped with its reason; an unmarked bash block that is not a skbn
    # command fails; a skbn command line becomes an argument list
    page = ROOT / "README.md"
    first = code_blocks(page)[0]
    assert first[1] == "bash" and "pip install ." in first[2] and first[3]
    with pytest.raises(pytest.fail.Exception, match="not a skbn command"):
        skbn_commands("pip install .\n", "here")
    assert skbn_commands("skbn sample survey -n 5 -o a.csv  # comment\npython -m skbn --help\n",
                         "here") == [["sample", "survey", "-n", "5", "-o", "a.csv"], ["--help"]]
    with pytest.raises(pytest.fail.Exception, match="shell operator"):
        skbn_commands("skbn score m.bif t.csv | head\n", "here")


PRIVATE_PATH = re.compile(r"\bskbn(\.[A-Za-z_]\w*)*\._\w")


def test_no_private_import_path_in_user_docs():
    # README, docs, examples and the doctests of the package name public paths only
    # (`from skbn import PCStructure`, not `skbn.estimators._pc`); a private file may be
    # named as a file (`skbn/_search.py`) where a page explains the internals
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
                 *sorted((ROOT / "docs").glob("*.rst")), *sorted((ROOT / "examples").glob("*.py"))]:
        found += [f"{path.relative_to(ROOT)}:{i}: {line.strip()}"
                  for i, line in enumerate(path.read_text().splitlines(), 1) if PRIVATE_PATH.search(line)]
    for path in sorted((ROOT / "skbn").rglob("*.py")):
        found += [f"{path.relative_to(ROOT)}:{i}: {line.strip()}"
                  for i, line in enumerate(path.read_text().splitlines(), 1)
                  if line.lstrip().startswith((">>>", "...")) and PRIVATE_PATH.search(line)]
    assert not found, "private import paths:\n" + "\n".join(found)
