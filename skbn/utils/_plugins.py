"""Resolution of plug-in parameters (scores, CI tests) given as aliases or objects."""

import numpy as np
from sklearn.base import clone


def resolve_plugin(value, aliases, base_class, parameter):
    """A fresh plug-in for a string alias, or a validated clone of a plug-in object.

    Never returns the user's object itself, so fitting cannot mutate it. An alias makes
    the plug-in with its documented parameters, valid by construction (a test validates
    every alias's plug-in), so only a user's object is validated.
    """
    if isinstance(value, str):
        if value not in aliases:
            raise ValueError(
                f"Unknown {parameter} {value!r}; choose one of {sorted(aliases)} "
                f"or pass a {base_class.__name__}."
            )
        return aliases[value]()
    if isinstance(value, base_class):
        resolved = clone(value)
    else:
        raise TypeError(
            f"{parameter} must be a string alias {sorted(aliases)} or a "
            f"{base_class.__module__}.{base_class.__name__} instance, got {type(value).__name__}."
        )
    resolved._validate()
    return resolved


DATA_KINDS = ("discrete", "continuous", "mixed")


def data_kind(data):
    """0, 1 or 2: every variable discrete, every one continuous, or both kinds."""
    if not data.has_continuous:
        return 0
    # (no discrete column: no nonzero cardinality; a count, no comparison and reduction)
    return 1 if not np.count_nonzero(data.cardinalities) else 2


def _first_names(names, shown=5):
    """The first ``shown`` names, then how many more there are (a list that looks whole
    must be whole)."""
    return f"{names[:shown]!r}" + (f" and {len(names) - shown} more" if len(names) > shown else "")


def check_plugin_fits_data(plugin, data, parameter, label=None):
    """Refuse a score or test on data it does not apply to (``plugin.data_kinds``), naming
    the columns and the aliases that do. ``parameter`` ("scorer", "ci_test") chooses the
    aliases; ``label`` is the parameter's name in the message (default ``parameter``)."""
    kind = DATA_KINDS[data_kind(data)]
    if kind in plugin.data_kinds:
        return
    label = parameter if label is None else label
    continuous = [n for n, c in zip(data.names, data.continuous) if c]
    discrete = [n for n, c in zip(data.names, data.continuous) if not c]
    every = _first_names(list(data.names))
    shown = {"discrete": f"every column is discrete ({every})",
             "continuous": f"every column is continuous ({every})",
             "mixed": (f"the data mix continuous columns {_first_names(continuous)} and discrete "
                       f"columns {_first_names(discrete)}")}[kind]
    fits = {"scorer": {"discrete": "'bdeu', 'bic', 'aic', 'k2', 'loglik'",
                       "continuous": "'bic-g', 'aic-g', 'loglik-g', 'bge'",
                       "mixed": "'bic-cg', 'aic-cg', 'loglik-cg'"},
            "ci_test": {"discrete": "'chi_square', 'g_test', 'bayes_factor'",
                        "continuous": "'zf', 'mi-g', 'cor'", "mixed": "'mi-cg'"}}[parameter][kind]
    raise ValueError(
        f"{label}={type(plugin).__name__} applies to {' or '.join(plugin.data_kinds)} data, but "
        f"{shown}. Use {label}='auto' or one of {fits}."
    )
