"""skbn: scikit-learn-style structure and parameter learning for discrete Bayesian networks."""

from skbn._version import __version__
from skbn.estimators import (
    BootstrapStructure,
    ChowLiuTree,
    ExactStructure,
    FixedStructure,
    GESStructure,
    HillClimbStructure,
    K2Structure,
    MMHCStructure,
    OrderMCMCStructure,
    PCStructure,
)
from skbn.network import DiscreteBayesianNetwork

__all__ = [
    "BootstrapStructure",
    "ChowLiuTree",
    "DiscreteBayesianNetwork",
    "ExactStructure",
    "FixedStructure",
    "GESStructure",
    "HillClimbStructure",
    "K2Structure",
    "MMHCStructure",
    "OrderMCMCStructure",
    "PCStructure",
    "__version__",
]
