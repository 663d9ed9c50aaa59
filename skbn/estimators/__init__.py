"""Structure learners."""

from skbn.estimators.bootstrap import BootstrapStructure
from skbn.estimators.chow_liu import ChowLiuTree
from skbn.estimators.exact import ExactStructure
from skbn.estimators.fixed import FixedStructure
from skbn.estimators.ges import GESStructure
from skbn.estimators.hill_climb import HillClimbStructure
from skbn.estimators.k2 import K2Structure
from skbn.estimators.mmhc import MMHCStructure
from skbn.estimators.order_mcmc import OrderMCMCStructure
from skbn.estimators.pc import PCStructure

__all__ = [
    "BootstrapStructure",
    "ChowLiuTree",
    "ExactStructure",
    "FixedStructure",
    "GESStructure",
    "HillClimbStructure",
    "K2Structure",
    "MMHCStructure",
    "OrderMCMCStructure",
    "PCStructure",
]
