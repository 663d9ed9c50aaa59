"""Structure learners."""

from skbn.estimators._bootstrap import BootstrapStructure
from skbn.estimators._chow_liu import ChowLiuTree
from skbn.estimators._exact import ExactStructure
from skbn.estimators._fixed import FixedStructure
from skbn.estimators._ges import GESStructure
from skbn.estimators._hill_climb import HillClimbStructure
from skbn.estimators._k2 import K2Structure
from skbn.estimators._mmhc import MMHCStructure
from skbn.estimators._order_mcmc import OrderMCMCStructure
from skbn.estimators._pc import PCStructure
from skbn.estimators._pc_select import PCSelect

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
    "PCSelect",
    "PCStructure",
]
