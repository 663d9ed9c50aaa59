"""The package's layers (docs/architecture.md): nothing below the learners imports a learner,
and the modules' imports, lazy ones included, form no cycle."""

import ast
from pathlib import Path

from skbn._dag import find_cycle, parents_children, topological_ids

PACKAGE = Path(__file__).resolve().parents[1] / "skbn"
#: The only modules above the learners: they may import skbn.estimators.
ABOVE_LEARNERS = {"skbn", "skbn.__main__", "skbn.cli", "skbn.estimators"}


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path, name):
    """Every skbn module that ``path`` imports, at the top or inside a function."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("skbn"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.startswith("skbn"):
                found.add(module)
                # "from skbn import _em" imports the module skbn._em
                found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _graph():
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return modules, {name: {m for m in _imports(path, name) if m in modules and m != name}
                     for name, path in modules.items()}


def test_nothing_below_the_learners_imports_a_learner():
    _, imports = _graph()
    wrong = sorted((name, m) for name, found in imports.items() for m in found
                   if m.startswith("skbn.estimators") and name not in ABOVE_LEARNERS
                   and not name.startswith("skbn.estimators"))
    assert wrong == []


def test_imports_form_no_cycle():
    modules, imports = _graph()
    names = sorted(modules)
    index = {n: i for i, n in enumerate(names)}
    # an edge imported -> importer; package __init__ files re-export, so leave them out
    edges = [(index[m], index[name]) for name, found in imports.items() for m in found
             if not modules[name].name == "__init__.py" and not modules[m].name == "__init__.py"]
    parents, children = parents_children(len(names), edges)
    _, leftover = topological_ids(len(names), parents, children)
    cycle = find_cycle(parents, leftover) if leftover else []
    assert [names[i] for i in cycle] == []
