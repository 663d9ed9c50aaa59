"""Memory limits given as parameters (``max_memory=``): parsing and printing byte counts."""

import re
from numbers import Integral

__all__ = ["format_bytes", "parse_memory"]

#: Binary units: 1 KB = 2**10 bytes, ..., 1 TB = 2**40 bytes.
_UNITS = {"": 1, "B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}


def parse_memory(value):
    """Bytes from an int or a string such as ``"4GB"``, ``"512 MB"`` (binary units).

    Parameters
    ----------
    value : int or str
        A positive number of bytes, or a positive number followed by ``B``, ``KB``, ``MB``,
        ``GB`` or ``TB`` (the ``B`` may be left out; case and spaces are ignored).

    Returns
    -------
    int
        The number of bytes.

    Raises
    ------
    ValueError
        Naming ``max_memory``, when ``value`` is not a positive size.
    """
    if isinstance(value, Integral) and not isinstance(value, bool):
        if value <= 0:
            raise ValueError(f"max_memory must be positive, got {value!r}.")
        return int(value)
    if isinstance(value, str):
        match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([KMGT]?B?)\s*", value.upper())
        if match and float(match.group(1)) > 0:
            unit = match.group(2)
            unit = unit if unit.endswith("B") or unit == "" else unit + "B"
            return int(float(match.group(1)) * _UNITS[unit])
    raise ValueError(
        f"max_memory must be a positive number of bytes or a string like '4GB' or '512MB', "
        f"got {value!r}."
    )


def format_bytes(n):
    """``n`` bytes in the largest binary unit it reaches, one decimal: ``"1.5 GB"``."""
    for unit in ("TB", "GB", "MB", "KB"):
        if n >= _UNITS[unit]:
            return f"{n / _UNITS[unit]:.1f} {unit}"
    return f"{n} B"
