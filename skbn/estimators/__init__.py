"""Structure learners."""

from skbn.estimators.chow_liu import ChowLiuTree
from skbn.estimators.exact import ExactStructure
from skbn.estimators.fixed import FixedStructure
from skbn.estimators.ges import GESStructure
from skbn.estimators.hill_climb import HillClimbStructure
from skbn.estimators.k2 import K2Structure
from skbn.estimators.mmhc import MMHCStructure
from skbn.estimators.pc import PCStructure

__all__ = ["ChowLiuTree", "ExactStructure", "FixedStructure", "GESStructure", "HillClimbStructure", "K2Structure", "MMHCStructure", "PCStructure"]
