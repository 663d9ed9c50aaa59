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
import re
import warnings

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
    "skbn.posterior",
    "skbn.io",
    "skbn.datasets",
    "skbn.graph",
    "skbn.metrics",
    "skbn.causal",
    "skbn.plotting",
    "skbn.parameters",
    "skbn.cli",
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


def _resolve(path):
    """The object named by a path of ``PUBLIC`` (a module, then attributes)."""
    parts = path.split(".")
    for stop in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:stop]))
        except ModuleNotFoundError:
            continue
        for name in parts[stop:]:
            obj = inspect.getattr_static(obj, name)  # the descriptor itself, not a bound wrapper
        return obj
    raise ImportError(path)


def _function(obj):
    """The plain function behind a property, classmethod or sklearn's available_if."""
    obj = obj.fget if isinstance(obj, property) else obj
    obj = getattr(obj, "__func__", obj)
    return getattr(obj, "fn", obj)


PUBLIC = _public_objects()


def test_the_public_api_is_found():
    from skbn.estimators._base import _BaseStructureLearner

    for path in (
        "skbn.estimators._hill_climb.HillClimbStructure",
        "skbn.estimators._bootstrap.BootstrapStructure",
        "skbn.estimators._mmhc.MMHCStructure",
        "skbn.estimators._order_mcmc.OrderMCMCStructure",
        "skbn.io.read_bif",
        "skbn.knowledge.parse_knowledge",
        "skbn.plotting.plot_network",
        "skbn.posterior.edge_posteriors",
    ):
        assert path in PUBLIC
    # the methods every user calls are defined once, in the base class, and checked once
    # (under the first public estimator that inherits them)
    for method in ("fit", "score", "score_samples", "predict_proba", "predict", "sample"):
        base_function = _function(vars(_BaseStructureLearner)[method])
        paths = [p for p in PUBLIC if p.endswith(f".{method}") and _function(_resolve(p)) is base_function]
        assert len(paths) == 1, (method, paths)


@pytest.mark.parametrize("path", PUBLIC)
def test_docstring(path):
    errors = [f"{code}: {message}" for code, message in validate(path)["errors"] if code in CHECKS]
    assert not errors, f"{path}:\n" + "\n".join(errors)


def test_every_fitted_attribute_is_documented():
    # help(HillClimbStructure) and the API reference list every public fitted attribute a
    # plain fit sets (column_types_, categories_, ... used to be "see the base class", a
    # private class, or missing; OrderMCMCStructure's averaged_networks_ too).
    from numpydoc.docscrape import NumpyDocString

    import skbn
    from skbn.datasets import sample_asia

    X = sample_asia(300, random_state=0)
    learners = [skbn.HillClimbStructure(), skbn.GESStructure(), skbn.PCStructure(),
                skbn.ExactStructure(), skbn.MMHCStructure(), skbn.K2Structure(ordering=list(X.columns)),
                skbn.ChowLiuTree(), skbn.FixedStructure(edges=[("smoke", "lung")]),
                skbn.BootstrapStructure(n_resamples=2, random_state=0),
                skbn.OrderMCMCStructure(n_iter=200, random_state=0)]
    for learner in learners:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            learner.fit(X)
        documented = {name.strip() for entry in NumpyDocString(type(learner).__doc__)["Attributes"]
                      for name in entry.name.split(",")}
        fitted = {name for name in vars(learner) if name.endswith("_") and not name.startswith("_")}
        assert fitted <= documented, (type(learner).__name__, sorted(fitted - documented))


#: What a rendered docstring of the public API must not name: a private module or class
#: path (``skbn._counting.Moments``, ``skbn._dag._DSeparation``), a role pointing at a private
#: function, class or module (``:func:`_guard_interrupts```), or a private class in
#: backticks (```_MomentCounter```). The hooks a plug-in subclass implements stay allowed
#: (``:meth:`_data_score``` in ``BaseScore``), as does maths (``\mathrm{Pa}_Y``).
PRIVATE_REFERENCE = re.compile(r"\bskbn(?:\.\w+)*\._\w+|:(?:class|func|mod|data|obj):`~?_\w+|`_[A-Z]\w*`")


def _private_classes():
    """Names of the classes defined in skbn's private modules that no public module
    exports (``FamilyScoreCache``, ``MomentCounter``, ``Moments``, ``EncodedData``, ...)."""
    import pkgutil

    import skbn

    public = set()
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        public |= {id(getattr(module, name)) for name in module.__all__}
    names = set()
    for info in pkgutil.walk_packages(skbn.__path__, "skbn."):
        if "._" not in info.name:
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and obj.__module__ == info.name and id(obj) not in public
                    and not name.startswith("_")):
                names.add(name)
    return names


def test_public_docstrings_name_no_private_module_or_class():
    # Sphinx renders these docstrings (about 35 plug-in docstrings of skbn.scores and
    # skbn.citests named skbn._counting.Moments, MomentCounter, TableStack, EncodedData or
    # skbn._dag._DSeparation as parameter types and references); they say in words what the
    # object is instead. A private class is flagged where a role names it (a ``literal``
    # beside its source file, as the learners' notes on their internals write, is not).
    private_class = re.compile(r"(?<!`)`~?(?:[\w.]*\.)?(" + "|".join(sorted(_private_classes())) + r")`(?!`)")
    found = []
    docs = [(path, inspect.getdoc(_function(_resolve(path))) or "") for path in PUBLIC]
    docs += [(name, importlib.import_module(name).__doc__ or "") for name in MODULES]
    for path, doc in docs:
        for line in doc.splitlines():
            if PRIVATE_REFERENCE.search(line) or private_class.search(line):
                found.append(f"{path}: {line.strip()}")
    assert not found, "\n".join(found)
