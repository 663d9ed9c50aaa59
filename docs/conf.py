"""Sphinx configuration of the skbn documentation.

Build (warnings are errors)::

    pip install ".[docs]" && python -m sphinx -W -b html docs docs/_build/html

The user guide is the markdown pages ``docs/*.md`` (read by myst-parser); the API reference
(``api.rst``) and the user guide's table of contents (``user_guide.rst``) are written below
at every build, from the modules' ``__all__`` and from the ``*.md`` files present, so a new
public function, module or page appears without editing this file. The gallery is
``examples/*.py``, run by sphinx-gallery.
"""

import os
import sys
from importlib import import_module
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))  # document the checkout, not an installed copy

import skbn  # noqa: E402

project = "skbn"
author = "skbn developers"
copyright = "skbn developers"
version = release = skbn.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
root_doc = "index"

# autodoc / autosummary / numpydoc
autosummary_generate = True
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"
numpydoc_show_class_members = False  # members are listed by the autosummary class template
numpydoc_class_members_toctree = False

# myst: ```python fences and $...$ maths in the markdown pages
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

# gallery: examples/*.py run in their folder (so `from _shared import ...` works);
# SKBN_GALLERY tells examples/_shared.py to leave figures open for the gallery's scraper
# instead of writing PNG files next to the scripts.
os.environ["SKBN_GALLERY"] = "1"
sphinx_gallery_conf = {
    "examples_dirs": str(DOCS.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"\.py$",  # run every example
    "ignore_pattern": r"(__init__|^_\w*)\.py$",  # matched against the file name
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    # the figures an example leaves open after each block are shown on its page
    "image_scrapers": ("matplotlib",),
}

html_theme = "pydata_sphinx_theme"
html_title = f"skbn {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path = []

# --------------------------------------------------------------------- generated pages
#: Pages listed in ``index.rst`` itself, before the user guide (a newcomer's first read).
FIRST_PAGES = ["getting_started", "which_learner"]
#: The user guide pages, in reading order; any other ``docs/*.md`` page follows, by name,
#: and the contributors' page (architecture) comes last.
USER_GUIDE_ORDER = [
    "hill_climb", "ges", "pc", "exact", "knowledge", "gaussian", "pc_select", "averaging",
    "missing", "network", "graph", "checking", "causal", "interventions", "plotting", "cli",
    "scale", "reproducibility", "core",
]
LAST_PAGES = ["architecture"]

#: API sections: (title, module, names or None for the module's ``__all__``). An object is
#: documented once, in the first section that lists it; modules that do not exist (yet) are
#: left out, so a new public module appears as soon as it is added here.
API_SECTIONS = [
    ("Estimators", "skbn", [n for n in import_module("skbn.estimators").__all__]),
    ("Bayesian networks", "skbn.network", None),
    ("Scores", "skbn.scores", None),
    ("Conditional-independence tests", "skbn.citests", None),
    ("Background knowledge", "skbn.knowledge", None),
    ("Exact structure posteriors", "skbn.posterior", None),
    ("Reading and writing networks", "skbn.io", None),
    ("Built-in networks", "skbn.datasets", None),
    ("Graphs", "skbn.graph", None),
    ("Structure metrics", "skbn.metrics", None),
    ("Checking a graph against data", "skbn.checking", None),
    ("Causal questions", "skbn.causal", None),
    ("Plotting", "skbn.plotting", None),
    ("Parameter estimation", "skbn.parameters", None),
    ("Command line", "skbn.cli", None),
    ("Warnings", "skbn.exceptions", None),
]


def _write_if_changed(path, text):
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _user_guide():
    pages = [p.stem for p in sorted(DOCS.glob("*.md")) if p.stem not in FIRST_PAGES]
    known = USER_GUIDE_ORDER + LAST_PAGES
    ordered = ([p for p in USER_GUIDE_ORDER if p in pages] + [p for p in pages if p not in known]
               + [p for p in LAST_PAGES if p in pages])
    lines = ["User guide", "==========", "", ".. toctree::", "   :maxdepth: 2", ""]
    lines += [f"   {page}" for page in ordered]
    return "\n".join(lines) + "\n"


def _api_reference():
    lines = ["API reference", "=============", ""]
    seen = set()
    for title, module_name, names in API_SECTIONS:
        try:
            module = import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            continue
        names = list(module.__all__) if names is None else names
        objects = [n for n in names if callable(getattr(module, n)) and id(getattr(module, n)) not in seen]
        seen.update(id(getattr(module, n)) for n in objects)
        lines += [title, "-" * len(title), ""]
        if module_name != "skbn":
            lines += [f".. automodule:: {module_name}", "   :no-members:", ""]
        lines += [f".. currentmodule:: {module_name}", "", ".. autosummary::",
                  "   :toctree: generated", "   :nosignatures:", ""]
        lines += [f"   {n}" for n in objects] + [""]
    return "\n".join(lines)


_write_if_changed(DOCS / "user_guide.rst", _user_guide())
_write_if_changed(DOCS / "api.rst", _api_reference())
