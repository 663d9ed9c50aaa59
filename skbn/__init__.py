"""skbn: scikit-learn-style structure and parameter learning for discrete Bayesian networks."""

from skbn._version import __version__
from skbn.estimators import ChowLiuTree, FixedStructure, K2Structure
from skbn.network import DiscreteBayesianNetwork

__all__ = ["ChowLiuTree", "DiscreteBayesianNetwork", "FixedStructure", "K2Structure", "__version__"]
