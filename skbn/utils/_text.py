"""What a text cell spells: a number, or a common marker of a missing cell; and how a
count is written (:func:`counted`: "1 edge", "2 edges").

Shared by the encoder (:mod:`skbn._data`, the column-type rule) and the command line's CSV
reader (:mod:`skbn.cli`), which must not import numpy or pandas before it needs them; the
counts by the progress lines (:mod:`skbn.utils._progress`) and the command line.
"""

import re

#: Texts that often mark a missing cell (R's ``write.csv`` writes ``NA``; ``?``, ``.`` and
#: ``-`` in other exports). They are states like any other text, but a column of numbers
#: written as text that also holds one of them is met with a warning or, when its numbers
#: would be a measurement, an error (``skbn._data._check_marked_numbers``).
MISSING_MARKERS = ("NA", "N/A", "n/a", "na", "NaN", "nan", "NAN", "null", "NULL", "Null", "None",
                   "none", "?", "-", ".", "#N/A", "missing")

#: The texts ``pandas.read_csv`` reads as a missing cell by default (its documented
#: ``na_values`` defaults, pandas 1.x to 3.x, the empty cell aside): a state spelled so is
#: lost by a file read without ``keep_default_na=False``.
PANDAS_NA_TEXTS = frozenset({"#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                             "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None",
                             "n/a", "nan", "null"})

#: A number written as text, as ``float`` reads it but without ``nan``, ``inf`` or ``1_000``.
NUMBER_TEXT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
#: A number written with a decimal comma (European spreadsheets): "1,5", "-0,25".
DECIMAL_COMMA = re.compile(r"[+-]?(?:\d+,\d*|,\d+)(?:[eE][+-]?\d+)?")
#: A whole number written as text.
INTEGER = re.compile(r"[+-]?\d+")
#: A number written with thousands separators, by decimal mark: "4,421", "1,234,567.5",
#: "1'234.5" (decimal point); "1.552,5", "12.000", "1 234,5" (decimal comma; a space, a
#: no-break space or a narrow one, as French spreadsheets write). One separator throughout.
#: None of them is a number :func:`spelled_number` reads with that decimal mark, but "4,421"
#: also spells 4.421 with a decimal comma.
THOUSANDS = {".": re.compile(r"[+-]?[1-9]\d{0,2}([,'\u00a0\u202f])\d{3}(?:\1\d{3})*(?:\.\d*)?"),
             ",": re.compile(r"[+-]?[1-9]\d{0,2}([. \u00a0\u202f])\d{3}(?:\1\d{3})*(?:,\d*)?")}


def spelled_number(text, decimal="."):
    """The number the text ``text`` spells, written as ``float`` reads it ("1.5", "-2",
    "1e3"; spaces around it allowed, and with ``decimal=","`` a decimal comma, "1,5" ->
    "1.5"), or None: not ``nan``, ``inf`` or ``1_000``, which Python's ``float`` would take,
    nor, with ``decimal=","``, a decimal point."""
    text = text.strip()
    if decimal == ",":
        if "." in text or (DECIMAL_COMMA.fullmatch(text) is None and INTEGER.fullmatch(text) is None):
            return None
        return text.replace(",", ".")
    return text if NUMBER_TEXT.fullmatch(text) else None


def counted(count, noun, plural=None, *, text=None):
    """``count`` followed by ``noun`` in the number it takes: "1 edge", "0 edges",
    "2 edges", "1.5 edges" (``plural``: the plural form when it is not ``noun + "s"``).

    ``text``: the number as written (thousands separators, rounding); the noun is singular
    when that text reads exactly "1", so a rate written "1" is "1 test/s" whatever its
    rounded-off decimals. The one rule of the progress lines and the command line's summaries.
    """
    text = str(count) if text is None else text
    return f"{text} {noun if text == '1' else (plural or noun + 's')}"
