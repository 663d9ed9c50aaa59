"""skbn: scikit-learn-style structure and parameter learning for Bayesian networks (discrete,
Gaussian and conditional linear Gaussian)."""

# The estimators are imported on first use (PEP 562), so that `import skbn` and the command
# line's `skbn --version` do not load scikit-learn.
from skbn._version import __version__

_LAZY = {
    "BootstrapStructure": "skbn.estimators",
    "ChowLiuTree": "skbn.estimators",
    "DiscreteBayesianNetwork": "skbn.network",
    "ExactStructure": "skbn.estimators",
    "FixedStructure": "skbn.estimators",
    "GESStructure": "skbn.estimators",
    "HillClimbStructure": "skbn.estimators",
    "K2Structure": "skbn.estimators",
    "MMHCStructure": "skbn.estimators",
    "OrderMCMCStructure": "skbn.estimators",
    "PCSelect": "skbn.estimators",
    "PCStructure": "skbn.estimators",
}

__all__ = [*_LAZY, "__version__"]


def __getattr__(name):
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    try:  # `import skbn; skbn.graph` keeps working for the submodules
        return importlib.import_module(f"skbn.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"skbn.{name}":
            raise
        raise AttributeError(f"module 'skbn' has no attribute {name!r}") from None


def __dir__():
    return sorted({*globals(), *_LAZY})
