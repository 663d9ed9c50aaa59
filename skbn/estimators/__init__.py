"""Structure learners."""

from skbn.estimators.chow_liu import ChowLiuTree
from skbn.estimators.fixed import FixedStructure
from skbn.estimators.k2 import K2Structure

__all__ = ["ChowLiuTree", "FixedStructure", "K2Structure"]
