"""numpydoc validation of the public API (skipped when numpydoc is not installed).

Every public class, function and method of the public modules (their ``__all__``, methods
defined in skbn, inherited ones included) must pass the checks in ``CHECKS``. The other
numpydoc checks are style choices this project does not follow everywhere: See Also and
Examples sections on every function (SA01, EX01), an extended summary (ES01), a summary
starting with an infinitive verb (SS05) or fitting on one line (SS06), "name : type" on the
first line of Returns (RT02), a type on every parameter line (PR04-PR06 wording), etc.
"""

import importlib
import inspect

import pytest

validate = pytest.importorskip("numpydoc.validate").validate

#: The enforced checks (see ``numpydoc.validate.ERROR_MSGS``).
CHECKS = {
    "GL06",  # unknown section
    "GL07",  # sections in the wrong order
    "GL08",  # no docstring
    "SS01",  # no summary
    "SS02",  # summary does not start with a capital letter
    "SS03",  # summary does not end with a period
    "PR01",  # a parameter of the signature is not documented
    "PR02",  # a documented parameter is not in the signature
    "PR03",  # parameters documented in the wrong order
    "PR07",  # a parameter has no description
    "RT01",  # a function that returns something has no Returns section
    "RT03",  # a returned value has no description
}

#: The public modules; a module that does not exist (yet) is skipped.
MODULES = [
    "skbn",
    "skbn.estimators",
    "skbn.network",
    "skbn.scores",
    "skbn.citests",
    "skbn.knowledge",
    "skbn.io",
    "skbn.datasets",
    "skbn.graph",
    "skbn.metrics",
    "skbn.plotting",
    "skbn.parameters",
]


def _public_objects():
    """Import paths of every public callable, each object once (first path wins)."""
    paths = {}
    for module_name in MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            continue
        for name in module.__all__:
            obj = getattr(module, name)
            if not callable(obj):
                continue
            path = f"{obj.__module__}.{obj.__qualname__}"
            paths.setdefault(id(obj), path)
            if inspect.isclass(obj):
                for member_name, member in _public_members(obj):
                    paths.setdefault(id(member), f"{path}.{member_name}")
    return sorted(paths.values())


def _public_members(cls):
    """Methods and properties of ``cls`` (and its skbn bases) not starting with ``_``."""
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith("skbn"):
            continue
        for name, member in vars(klass).items():
            if name.startswith("_"):
                continue
            function = member.fget if isinstance(member, property) else member
            function = getattr(function, "__func__", function)  # classmethod, staticmethod
            function = getattr(function, "fn", function)  # sklearn's available_if
            if inspect.isfunction(function):
                yield name, function


PUBLIC = _public_objects()


def test_the_public_api_is_found():
    assert "skbn.estimators.hill_climb.HillClimbStructure" in PUBLIC
    assert "skbn.io.read_bif" in PUBLIC
    # the methods every user calls are defined once, in the base class, and checked once
    for method in ("fit", "score", "score_samples", "predict_proba", "predict", "sample"):
        assert sum(path.endswith(f".{method}") and "Tree." in path for path in PUBLIC) == 1


@pytest.mark.parametrize("path", PUBLIC)
def test_docstring(path):
    errors = [f"{code}: {message}" for code, message in validate(path)["errors"] if code in CHECKS]
    assert not errors, f"{path}:\n" + "\n".join(errors)
