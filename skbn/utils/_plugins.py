"""Resolution of plug-in parameters (scores, CI tests) given as aliases or objects."""

from sklearn.base import clone


def resolve_plugin(value, aliases, base_class, parameter):
    """A fresh plug-in for a string alias, or a validated clone of a plug-in object.

    Never returns the user's object itself, so fitting cannot mutate it.
    """
    if isinstance(value, str):
        if value not in aliases:
            raise ValueError(
                f"Unknown {parameter} {value!r}; choose one of {sorted(aliases)} "
                f"or pass a {base_class.__name__}."
            )
        resolved = aliases[value]()
    elif isinstance(value, base_class):
        resolved = clone(value)
    else:
        raise TypeError(
            f"{parameter} must be a string alias {sorted(aliases)} or a "
            f"{base_class.__module__}.{base_class.__name__} instance, got {type(value).__name__}."
        )
    resolved._validate()
    return resolved
