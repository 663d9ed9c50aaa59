"""The learner configurations the tests share: one registry, picked by name.

Every learner, every ``search`` of :class:`HillClimbStructure`, both ``restrict`` phases of
:class:`MMHCStructure` and :class:`PCStructure` with every built-in CI test are here, with
small, fast parameters. A test file picks the configurations it needs with
:func:`make` (``make("k2", ordering=ASIA_ORDER)`` adds or overrides parameters) instead of
listing its own, so a new learner or search is added in one place and every shared test
(model selection, sample weights, progress, EM, the scikit-learn checks, the fit contract)
sees it.
"""

from sklearn.base import clone

from skbn import (
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

#: A causal order of the ASIA columns (K2's ``ordering``).
ASIA_ORDER = ["asia", "smoke", "tub", "lung", "bronc", "either", "xray", "dysp"]

#: ``name -> (class, parameters)``; the parameters fit ASIA-sized data in well under a second.
CONFIGURATIONS = {
    # every search of HillClimbStructure
    "hill_climb": (HillClimbStructure, {}),
    "tabu": (HillClimbStructure, {"search": "tabu", "random_state": 0}),
    "multistart_tabu": (HillClimbStructure,
                        {"search": "multistart_tabu", "n_restarts": 2, "random_state": 0}),
    "annealing": (HillClimbStructure, {"search": "annealing", "random_state": 0}),
    "first_improvement": (HillClimbStructure, {"search": "first_improvement", "random_state": 0}),
    "memetic": (HillClimbStructure, {"search": "memetic", "random_state": 0}),
    "genetic": (HillClimbStructure, {"search": "genetic", "random_state": 0}),
    "ges": (GESStructure, {}),
    # PC with every built-in CI test
    "pc": (PCStructure, {}),
    "pc_g_test": (PCStructure, {"ci_test": "g_test"}),
    "pc_bayes_factor": (PCStructure, {"ci_test": "bayes_factor"}),
    # MMHC with both restrict phases
    "mmhc": (MMHCStructure, {}),
    "mmhc_pc": (MMHCStructure, {"restrict": "pc"}),
    "k2": (K2Structure, {}),
    "chow_liu": (ChowLiuTree, {}),
    "tan": (ChowLiuTree, {"variant": "tan"}),
    "exact": (ExactStructure, {}),
    "order_mcmc": (OrderMCMCStructure, {"n_iter": 300, "burn_in": 100, "random_state": 0}),
    "bootstrap": (BootstrapStructure,
                  {"estimator": HillClimbStructure(), "n_resamples": 3, "random_state": 0}),
    "fixed": (FixedStructure, {"edges": [("smoke", "lung")]}),
}

#: One configuration per learner class (the first of each), for tests about every class.
ONE_PER_CLASS = [name for k, (name, (cls, _)) in enumerate(CONFIGURATIONS.items())
                 if all(other is not cls for other, _ in list(CONFIGURATIONS.values())[:k])]


def make(name, **params):
    """A new estimator of configuration ``name``, with ``params`` added or overridden."""
    cls, defaults = CONFIGURATIONS[name]
    # plug-ins and wrapped estimators are cloned: no two estimators share a parameter object
    return cls(**{key: clone(value) if hasattr(value, "get_params") else value
                  for key, value in {**defaults, **params}.items()})


def missing_modes(name):
    """The ``missing`` modes the configuration's learner supports, besides ``"error"``."""
    cls, _ = CONFIGURATIONS[name]
    return [mode for mode in cls._missing_modes if mode != "error"]
