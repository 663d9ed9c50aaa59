"""skbn: scikit-learn-style structure and parameter learning for discrete Bayesian networks."""

from skbn._version import __version__
from skbn.estimators import (
    ChowLiuTree,
    ExactStructure,
    FixedStructure,
    GESStructure,
    HillClimbStructure,
    K2Structure,
    MMHCStructure,
    PCStructure,
)
from skbn.network import DiscreteBayesianNetwork

__all__ = [
    "ChowLiuTree",
    "DiscreteBayesianNetwork",
    "ExactStructure",
    "FixedStructure",
    "GESStructure",
    "HillClimbStructure",
    "K2Structure",
    "MMHCStructure",
    "PCStructure",
    "__version__",
]
