"""The ``skbn`` command line: learn, score, query, sample and compare Bayesian networks,
estimate causal effects (``skbn effect``) and test one conditional independence
(``skbn citest``).

``skbn <command> --help`` shows each command's options and examples; docs/cli.md is the
guide. Run as the console script ``skbn`` or as ``python -m skbn``; without a command
(``python -m skbn``, ``python -m skbn --n-samples 2000``) it runs :func:`run_demo`.

Every error is one line on stderr (``skbn <command>: error: ...``) and exit status 1 (2 for
a malformed command line, from argparse; 130 when interrupted with Ctrl-C); ``--debug``
shows the traceback instead. Warnings are one line each (``skbn: warning: ...``).
Results go to stdout, progress (``-v``) to stderr.

numpy, pandas and the estimators are imported inside the commands, so that
``skbn --version`` and ``skbn --help`` answer at once.
"""

import argparse
import contextlib
import os
import re
import sys
import tempfile
import time
import warnings
from pathlib import Path

from skbn._engines._strategies import STRATEGIES
from skbn.utils._text import (
    DECIMAL_COMMA,
    INTEGER,
    MISSING_MARKERS,
    NUMBER_TEXT,
    THOUSANDS,
    counted,
    spelled_number,
)

__all__ = ["main", "run_demo"]

#: ``skbn learn --method`` -> (estimator class name in skbn.estimators, fixed parameters):
#: every search strategy of HillClimbStructure (its registry), then the other learners.
METHODS = {
    **{name: ("HillClimbStructure", {"search": name}) for name in STRATEGIES},
    "ges": ("GESStructure", {}),
    "pc": ("PCStructure", {}),
    "exact": ("ExactStructure", {}),
    "k2": ("K2Structure", {}),
    "chow_liu": ("ChowLiuTree", {}),
    "mmhc": ("MMHCStructure", {}),
}
#: Scores and tests by data kind: discrete, then continuous (Gaussian), then mixed (CLG);
#: by default (no --score / --ci-test) the method picks the one that fits the data.
SCORES = ("bdeu", "k2", "bic", "aic", "loglik", "bic-g", "aic-g", "loglik-g", "bge",
          "bic-cg", "aic-cg", "loglik-cg")
CI_TESTS = ("chi_square", "g_test", "bayes_factor", "zf", "mi-g", "cor", "mi-cg")
COMMANDS = ("demo", "learn", "score", "query", "sample", "compare", "effect", "citest")

#: Exit statuses.
EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130

#: Estimator parameters and the options that set them, to say the option in messages.
OPTION_OF = {"max_memory": "--max-memory", "max_indegree": "--max-indegree",
             "n_jobs": "--n-jobs",
             "random_state": "--random-state", "white_list": "--white-list",
             "black_list": "--black-list", "ci_test": "--ci-test", "missing": "--missing",
             "scorer": "--score", "ess": "--ess", "alpha": "--alpha", "tiers": "--tiers",
             "ordering": "--ordering", "target": "--target", "verbose": "-v",
             "sample_weight": "--weights", "em_max_iter": "--em-max-iter"}

#: Extensions of the outputs (compressed CSV: pandas infers the compression).
_TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".dat")
_COMPRESSION = (".gz", ".bz2", ".zip", ".xz", ".zst")
_PARQUET = (".parquet", ".pq")


class CommandError(Exception):
    """A problem with the command line or its input, reported as one line."""


def _warn(message):
    print(f"skbn: warning: {_typable(' '.join(str(message).split()))}", file=sys.stderr,
          flush=True)


def _typable(text):
    """``text`` with every suggested option that names a column beginning with ``-``
    written as ``--option='NAME'``, once per name: argparse takes a bare ``'-113.8.1'`` for an
    option (plyr's ``ozone`` names its columns so), and the options of names take
    ``--option=NAME`` repeated (``--continuous '-1.5' 'b'`` -> ``--continuous='-1.5'
    --continuous='b'``)."""
    def typed(match):
        names = re.findall(r"'[^']*'", match.group(2))
        if not any(name.startswith("'-") for name in names):
            return match.group(0)
        return " ".join(f"{match.group(1)}={name}" for name in names)

    return re.sub(r"(--[a-z][a-z-]*)((?: '[^']*')+)", typed, text)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """``warnings.showwarning`` of the command line: one line, no file path."""
    _warn(_with_options(str(message)))


# ---------------------------------------------------------------------- stdout
_stdout_closed = False


def _close_stdout():
    """The reader of stdout went away (``| head``): send the rest of stdout to /dev/null."""
    global _stdout_closed
    _stdout_closed = True
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # not a real file (captured output)
        pass


def out(text=""):
    """Print a result line to stdout; a closed pipe ends the printing, not the command."""
    if _stdout_closed:
        return
    try:
        print(text, flush=True)
    except BrokenPipeError:
        _close_stdout()


# ---------------------------------------------------------------------- reading
def _separator(sep):
    """``--sep``: one character; ``\t`` and ``tab`` mean a tab."""
    sep = {"\\t": "\t", "tab": "\t", "TAB": "\t"}.get(sep, sep)
    if len(sep) != 1:
        raise CommandError(f"--sep {sep!r}: give one character, e.g. --sep ';' or --sep tab")
    return sep


def _separator_hint(text, sep):
    """`` (is the separator ';'? ...)`` when ``text`` (a lone column name) holds one."""
    for candidate, shown in ((";", ";"), ("\t", "tab"), ("|", "|"), (",", ","), (" ", "' '")):
        if candidate != sep and candidate in str(text):
            return f"; is the separator {shown!r}? Use --sep {shown!r}" if candidate != " " \
                else "; is the separator a space? Use --sep ' '"
    return ""


def read_table(path, sep=",", na_values=(), *, numbers=True, categorical=(), continuous=(), decimal=".",
               lines=False, weights=None):
    """Read a data file: CSV (cells taken literally) or Parquet.

    CSV cells are read as written: only empty cells are missing, plus the texts in
    ``na_values`` (``--na-values``), so states called "None", "NA" or "null" stay states.
    With ``numbers=True`` (``learn``) a column whose every non-missing cell is a number is
    numeric (integers when every cell is an integer), other columns are text; the columns
    named in ``categorical`` (``--categorical``) always stay text, i.e. discrete; those named
    in ``continuous`` (``--continuous``) must be numbers (the caller declares them continuous:
    ``column_types``); the column ``weights`` (``--weights``) stays text, for
    :func:`_take_weights` to read as numbers, naming it. Rows ending
    with the separator (a trailing comma) are read as the header says; a header with an
    empty or repeated name, a row with more values than the header, or a row with fewer
    fields than the header (a truncated line) is an error naming its line in the file.
    A column of whole numbers that writes a number otherwise than plainly (``01``, ``+1``,
    ``1e1``: codes) stays text, so that its states keep their names.
    Parquet keeps its column types and needs pyarrow.

    With ``lines=True`` the result is ``(frame, line)``: ``line(row)`` names the line of
    the file row ``row`` of the frame was read from (``"line 7"``), for messages.
    """
    path = Path(path)
    if path.is_dir():
        raise CommandError(f"{str(path)!r} is a directory, not a data file")
    if not path.is_file():
        raise CommandError(f"no such data file: {str(path)!r}")
    import pandas as pd

    if path.suffix.lower() in _PARQUET:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise CommandError("reading Parquet needs pyarrow: pip install pyarrow") from None
        frame = pd.read_parquet(path)
        line = lambda row: f"row {row + 1}"  # noqa: E731
        if frame.columns.has_duplicates:
            raise CommandError(f"{str(path)!r}: repeated column name(s) "
                               f"{frame.columns[frame.columns.duplicated()].unique().tolist()!r}")
    else:
        frame, records = _read_csv(path, _separator(sep), list(na_values), pd)
        line = records.line
        for option, names in (("--categorical", categorical), ("--continuous", continuous),
                              ("--weights", [] if weights is None else [weights])):
            unknown = [c for c in names if c not in frame.columns]
            if unknown:
                raise CommandError(f"{option}: no column {unknown[0]!r} in {str(path)!r} "
                                   f"(columns: {', '.join(map(str, frame.columns))})")
        both = [c for c in continuous if c in categorical]
        if both:
            raise CommandError(f"column {both[0]!r} is given to both --categorical and "
                               f"--continuous")
        if numbers:
            text_columns = [*categorical, *([] if weights is None else [weights])]
            frame = _numeric_columns(frame, pd, keep_text=text_columns, measured=continuous,
                                     decimal=decimal)
            text = [c for c in continuous if not pd.api.types.is_numeric_dtype(frame[c].dtype)]
            if text:
                cells = frame[text[0]].dropna()
                example = next((t for t in cells if spelled_number(str(t), decimal) is None), "")
                hint = (f"; if it marks missing cells, pass --na-values {example.strip()}"
                        if isinstance(example, str) and example.strip() in MISSING_MARKERS else "")
                raise CommandError(f"--continuous: column {text[0]!r} of {str(path)!r} holds "
                                   f"text (e.g. {example!r}), not numbers{hint}")
    if frame.shape[0] == 0:
        raise CommandError(f"{str(path)!r} has no data rows")
    return (frame, line) if lines else frame


def _read_csv(path, sep, na_values, pd):
    """The cells of a CSV file as text (missing: NaN), and its :class:`_Records` (the
    line of each row, for messages).

    pandas parses the file once. The rows whose number of fields differs from the header's
    cost nothing more when there are none: pandas warns of longer rows, and a shorter row
    leaves the last column missing; only then does :class:`_Records` read the file again
    (the rows with a missing last cell, or all of it), and it names the lines in messages."""
    import numpy as np

    name = repr(str(path))
    options = dict(sep=sep, dtype=str, keep_default_na=False, encoding="utf-8")
    records = _Records(path, sep)
    try:
        header = pd.read_csv(path, header=None, nrows=1, na_filter=False, **options)
        header = [str(h) for h in header.iloc[0].tolist()]
        _check_separator_line(name, records, sep)
        _check_quotes(name, records, header)
        frame, longer = _parse_csv(path, len(header), na_values, options, pd)
        if longer:  # rows with more fields than the header: as many columns as the longest
            width = records.widest()
            if width is None or width <= len(header):
                raise CommandError(f"cannot parse {name} as CSV: some rows have more values "
                                   f"than the {len(header)} column names of the header")
            frame, _ = _parse_csv(path, width, na_values, options, pd, wide=True)
    except pd.errors.EmptyDataError:
        raise CommandError(f"{name} is empty") from None
    except pd.errors.ParserError as exc:
        text = " ".join(str(exc).split())
        if "EOF inside string" in text:
            start = records.last_start()
            where = f"on line {start} " if start is not None else ""
            raise CommandError(f"cannot parse {name} as CSV: the quoted field that starts "
                               f"{where}has no closing quote (\")") from None
        raise CommandError(f"cannot parse {name} as CSV: {text}") from None
    except UnicodeDecodeError:
        found = _first_bad_utf8(path)
        where = ""
        if found is not None:
            line, offset, raw = found
            where = (f": line {line} (byte {offset}) holds {raw[:4]!r}, which is "
                     f"{raw[:1].decode('cp1252', errors='replace')!r} in Latin-1 / Windows-1252")
        raise CommandError(f"{name} is not UTF-8 text{where}; save it as UTF-8 CSV (Excel: "
                           f"\"CSV UTF-8\"; R: write.csv(..., fileEncoding = \"UTF-8\"); or "
                           f"iconv -f latin1 -t utf-8)") from None
    records.n_rows = len(frame)
    # values beyond the header: a trailing separator leaves an empty column, else an error
    for k in range(len(header), frame.shape[1]):
        filled = frame[k].notna().to_numpy()
        if filled.any():
            row = int(filled.argmax())
            found = records.fields(row)
            found = f"{found} fields; " if found is not None else ""
            raise CommandError(f"{name}: {records.where(row)} has more values than the "
                               f"{len(header)} column names of the header ({found}extra value "
                               f"{frame[k].iloc[row]!r}); "
                               + _longer_rows_hint(header, frame, sep))
    frame = frame.iloc[:, :len(header)]
    while header and not header[-1].strip() and frame[len(header) - 1].isna().all():
        header.pop()  # `a,b,c,` on every line: the trailing separator, not a column
        frame = frame.iloc[:, :len(header)]
    empty = [k + 1 for k, h in enumerate(header) if not h.strip()]
    if empty:
        hint = ""
        if empty[0] == 1 and frame.shape[1] > 1:
            first = frame.iloc[:, 0].tolist()
            if first in ([str(k) for k in range(1, len(first) + 1)],
                         [str(k) for k in range(len(first))]):
                hint = (f" (it numbers the rows {first[0]}, {first[1] if len(first) > 1 else ''}..., "
                        f"as the row names R's write.csv writes, or the index pandas' to_csv "
                        f"writes: not data; remove that column, or write the file with "
                        f"write.csv(x, row.names = FALSE) or to_csv(path, index=False))")
            elif len(first) > 1 and len(set(first)) == len(first):
                hint = (f" (its values {first[0]!r}, {first[1]!r}, ... are all distinct, as the "
                        f"row names R's write.csv writes: if they name the rows, remove that "
                        f"column or write the file with write.csv(x, row.names = FALSE); else "
                        f"name it)")
        if not hint and sep == " ":
            hint = f" ({_RUNS_OF_SPACES})"
        raise CommandError(f"{name}: column(s) {empty} have no name in the header{hint}")
    seen, repeated = set(), []
    for h in header:
        if h in seen and h not in repeated:
            repeated.append(h)
        seen.add(h)
    if repeated:
        raise CommandError(f"{name}: repeated column name(s) {repeated!r} in the header")
    frame.columns = header
    if (header[0].startswith("#") and len(frame) > 1
            and all((frame.iloc[:, k] == frame.iloc[0, k]).sum() == 1 for k in range(len(header)))):
        # "# exported by ..." read as the header, the real header as the first data row (each
        # of its cells found once in its column); a column named "# of children" is left alone
        _warn(f"{name}: the first column name {header[0]!r} begins with '#' and line 2 looks "
              f"like a header (each cell unique in its column): if line 1 is a comment, delete "
              f"it (skbn reads the first line as the header)")
    if (all(spelled_number(h) is not None or spelled_number(h, ",") is not None for h in header)
            and not all(INTEGER.fullmatch(h.strip()) for h in header)):
        # a file with no header line (JMulTi's, a matrix written with write.table(col.names =
        # FALSE)): its first row became the names; whole numbers (years, column numbers)
        # are plausible names, a name like 0.083 is not
        shown = ", ".join(map(repr, header[:5])) + (", ..." if len(header) > 5 else "")
        _warn(f"{name}: every column name in line 1 is a number ({shown}), and not all are "
              f"whole: a file with no header line? skbn reads line 1 as the column names, so "
              f"that row is left out of the data; add a header line of names to the file")
    padded = [h for h in header if h != h.strip()]
    if padded:
        _warn(f"{name}: column name(s) {padded[:5]!r} begin or end with spaces (a space after "
              f"each separator?), kept as written; numbers with spaces around them are read "
              f"as numbers")
    first = frame.iloc[:, 0]
    again = np.flatnonzero((first == header[0]).to_numpy())  # candidates, then every cell
    again = again[(frame.iloc[again].to_numpy(dtype=object)
                   == np.array(header, dtype=object)).all(axis=1)]
    if len(again):
        raise CommandError(f"{name}: {records.where(int(again[0]))} repeats the header (files "
                           f"joined with their headers?); remove it")
    blank = np.flatnonzero(first.isna().to_numpy())
    blank = blank[frame.iloc[blank].isna().all(axis=1).to_numpy()]
    unfilled = np.flatnonzero(frame.iloc[:, -1].isna().to_numpy())  # a short row's last cell
    short = records.short(np.setdiff1d(unfilled, blank), len(header)) if len(unfilled) else []
    if short is None:
        _warn(f"{name}: could not read the file again to tell rows cut short (fewer fields "
              f"than the header) from empty cells in its last column; their cells are read "
              f"as missing")
    elif short:
        shown = ", ".join(f"line {line} ({count} field{'s' * (count != 1)})"
                          for line, count in short[:5])
        more = f" and {len(short) - 5} more" if len(short) > 5 else ""
        raise CommandError(f"{name}: {len(short)} row(s) have fewer fields than the "
                           f"{len(header)} column names of the header: {shown}{more}; a "
                           f"truncated line or a lost separator? Complete or remove them (an "
                           f"empty field between two separators, as in 'x,,z', is a missing "
                           f"cell)")
    if len(blank):  # rows of separators only (",,,,"), as spreadsheets export: no data
        _warn(f"{name}: {len(blank)} row(s) hold no value (only separators), skipped "
              f"({records.where_many(blank)})")
        keep = np.ones(len(frame), dtype=bool)
        keep[blank] = False
        frame = frame.loc[keep].reset_index(drop=True)
        records.kept = np.flatnonzero(keep)
    _warn_unquoted_markers(name, frame, records, na_values)
    return frame, records


_RUNS_OF_SPACES = ("columns aligned with runs of spaces? With --sep ' ' each space is a separator, "
                   "so two in a row make an empty field: replace each run by one space (e.g. "
                   "tr -s ' ' < in > out) or use another separator")


def _longer_rows_hint(header, frame, sep):
    """Why the rows of ``frame`` (parsed as wide as its longest row) may have more fields
    than the ``header``: a comment line above the header (``# ...``), another separator
    (a header of one name holding one), or the row names R's ``write.table`` writes, with
    no name in the header (every row exactly one field longer)."""
    if header[0].lstrip().startswith("#"):
        return ("is line 1 a comment? skbn reads the first line as the header: delete the "
                "comment line(s)")
    if sep == " " and frame.isna().to_numpy().any():
        return _RUNS_OF_SPACES
    hint = _separator_hint(header[0], sep) if len(header) == 1 else ""
    if hint:
        return hint.removeprefix("; ")
    if frame.shape[1] == len(header) + 1 and frame[len(header)].notna().all():
        return ("every row has one value more than the header has names, as R's write.table "
                "writes row names (the header has no name for them): write the file with "
                "write.table(x, row.names = FALSE), or name or delete the first column")
    return "is a name missing from the header?"


def _check_separator_line(name, records, sep):
    """Refuse Excel's separator line (``sep=;`` as line 1, before the header), naming the
    ``--sep`` it stands for: read as the header, it gave a header of one or two names."""
    handle = _open_binary(records.path)
    if handle is None:
        return
    with handle:
        first = re.split(r"[\r\n]", handle.readline(100).decode("utf-8", errors="replace"))[0]
    found = re.fullmatch(r'\ufeff?"?(sep=(.))"?\s*', first, flags=re.IGNORECASE)
    if found:
        given = _separator(found.group(2))
        option = f" and pass --sep {found.group(2)!r}" if given != sep else ""
        raise CommandError(f"{name}: line 1 {found.group(1)!r} is the separator line Excel "
                           f"writes, not a header: delete that line{option}")


def _warn_unquoted_markers(name, frame, records, na_values):
    """Warn of text columns in which a missing-value marker (``NA``) is written unquoted
    while every other cell is quoted, or is ``TRUE`` or ``FALSE``: R's ``write.csv`` writes
    the missing cells of a factor, text or logical column so, and quotes a text ``"NA"``.
    Such cells are read as a state (cells are read literally), which for R's files silently
    adds a state "missing" to the column. Columns of numbers are left to the data layer's
    warning (it names ``--na-values`` too)."""
    markers = [t for t in MISSING_MARKERS if t not in na_values]
    found = frame.isin(markers)
    columns = [k for k in range(frame.shape[1]) if found.iloc[:, k].any()]
    if not columns:
        return
    texts = [k for k in columns if any(spelled_number(str(t)) is None
                                       for t in frame.iloc[:, k][~found.iloc[:, k]].dropna().unique())]
    quoted = records.quoted(texts) if texts else None
    if not quoted:
        return
    named, shown = [], set()
    for k in texts:
        marked = found.iloc[:, k].to_numpy()
        filled = frame.iloc[:, k].notna().to_numpy() & ~marked
        logical = set(frame.iloc[:, k][filled].unique()) <= {"TRUE", "FALSE"}  # R's logicals
        if filled.any() and (logical or quoted[k][filled].all()) and not quoted[k][marked].any():
            named.append(frame.columns[k])
            shown.update(frame.iloc[:, k][marked].unique())
    if named:
        shown = sorted(shown)
        listed = ", ".join(repr(c) for c in named[:5]) + (f" and {len(named) - 5} more"
                                                          if len(named) > 5 else "")
        _warn(f"{name}: column(s) {listed} hold {' and '.join(map(repr, shown))} unquoted "
              f"among quoted texts (or TRUE/FALSE), as R's write.csv writes a missing cell (it "
              f"quotes a text \"NA\"); read as a state. If it marks missing cells, pass --na-values "
              f"{' '.join(shown)}")


def _check_quotes(name, records, header):
    """Refuse double quotes out of place (:meth:`_Records.quotes`), naming their lines and
    columns; warn of quoted fields that hold a line break (legal CSV, read as one cell)."""
    found = records.quotes()
    if not found:
        return
    faults, spans = found

    def column(field):
        return repr(header[field]) if field < len(header) else f"field {field + 1}"

    def lines(first, last):
        return f"line {first}" if first == last else f"lines {first}-{last}"

    if faults:
        line, _, text, opened = faults[0]
        hint = _separator_hint(text[:1], records.sep) if opened is not None and len(header) == 1 else ""
        if hint:  # "a";"b" read with --sep ',': the quotes are right, the separator is not
            raise CommandError(f"cannot read {name} as CSV: on line {line} a quoted field is "
                               f"followed by {text[:1]!r}, not by the separator "
                               f"{records.sep!r}{hint}")
        shown = "; ".join(
            f"line {line}, column {column(field)}: "
            + (f"{text!r}, a quote inside a field that does not start with one" if opened is None
               else f"{text!r} after the closing quote of the field that opens on line {opened}")
            for line, field, text, opened in faults[:3])
        more = f"; and {len(faults) - 3} more" if len(faults) > 3 else ""
        raise CommandError(
            f"cannot read {name} as CSV: double quote(s) (\") out of place ({shown}{more}). A "
            f"quote may only enclose a whole field, as in \"a, b\", with a quote inside it "
            f"written twice (\"say \"\"hi\"\"\"); read as written, such a quote becomes part of "
            f"a state or, unbalanced, merges records. Remove the stray quote or quote the whole "
            f"field")
    if spans:
        shown = ", ".join(f"{lines(first, last)} (column {column(field)})"
                          for first, last, field in spans[:5])
        more = f" and {len(spans) - 5} more" if len(spans) > 5 else ""
        _warn(f"{name}: {len(spans)} quoted field(s) hold a line break, each read as one cell: "
              f"{shown}{more}; if a quote there is unbalanced, those lines are several records "
              f"read as one")


def _parse_csv(path, width, na_values, options, pd, wide=False):
    """pandas' parse of the data rows into ``width`` columns; ``longer``: whether a row had
    more fields (pandas skipped it, or cut the first one short, with a warning). ``wide``:
    ``width`` is more than the header has (pandas then reads the header as a row)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pd.errors.ParserWarning)
        frame = pd.read_csv(path, header=None if wide else 0, names=range(width),
                            index_col=False, on_bad_lines="warn", na_values=[""] + na_values,
                            **options)
    if wide:
        frame = frame.iloc[1:].reset_index(drop=True)
    longer = any(issubclass(w.category, pd.errors.ParserWarning) for w in caught)
    return frame, longer


def _first_bad_utf8(path):
    """``(line, byte offset, bytes)`` of the first bytes of ``path`` that are not UTF-8
    (lines counted by line feeds, from 1), or None. The file is decoded in chunks, an
    incomplete character at a chunk's end carried over (pandas' own error counts its bytes
    from the start of a buffer, not of the file)."""
    handle = _open_binary(path)
    if handle is None:
        return None
    offset, line, carry = 0, 1, b""
    with handle:
        while True:
            chunk = handle.read(1 << 20)
            data = carry + chunk
            try:
                data.decode("utf-8")
                good, carry = len(data), b""
            except UnicodeDecodeError as exc:
                if not (chunk and exc.reason == "unexpected end of data"):
                    return (line + data.count(b"\n", 0, exc.start), offset + exc.start,
                            data[exc.start:exc.end])
                good, carry = exc.start, data[exc.start:]
            line += data.count(b"\n", 0, good)
            offset += good
            if not chunk:
                return None


def _open_binary(path):
    """``path`` opened for reading bytes, decompressed as pandas reads it (by extension), or
    None for a compression the standard library cannot read."""
    lower = str(path).lower()
    if lower.endswith((".zst", ".tar", ".tar.gz", ".tar.bz2", ".tar.xz")):
        return None
    suffix = Path(path).suffix.lower()
    if suffix in (".gz", ".bz2", ".xz"):
        import bz2
        import gzip
        import lzma

        return {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}[suffix](path, "rb")
    if suffix == ".zip":
        import zipfile

        archive = zipfile.ZipFile(path)
        names = archive.namelist()
        if len(names) != 1:
            archive.close()
            return None
        return archive.open(names[0])
    return open(path, "rb")


class _Records:
    """Where the rows of a CSV file are: the line each starts on (1-based, the header is
    line 1, as an editor shows) and its number of fields, as the CSV rules split them
    (Python's :mod:`csv`, the rules pandas follows: separator, double quotes, separators and
    line breaks inside quotes). Lines pandas skips (empty, or spaces and tabs only) are
    left out, so that record ``k + 1`` is row ``k`` of pandas' frame.

    Nothing is read until a message or a check needs it. When every record is one line (the
    file's non-blank lines are as many as pandas' rows plus the header), the lines are
    found by splitting the bytes and only the rows asked about are parsed again; otherwise
    the whole file is parsed by :mod:`csv`. When neither agrees with pandas on the number
    of rows (or the file cannot be read again), messages name data rows instead of lines.
    """

    def __init__(self, path, sep):
        self.path, self.sep = path, sep
        self.n_rows = None  # pandas' data rows, once parsed
        self.kept = None  # the parsed rows kept in the frame read_table returns
        self._text = self._starts = self._counts = self._parsed = None

    # ---- the two ways of reading the file again
    def _bytes_lines(self):
        """Each record's line number and text when every record is one line, else None."""
        if self._text is None:
            self._text = False
            handle = _open_binary(self.path)
            if handle is None:
                return None
            with handle:
                data = handle.read()
            if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
                return None  # lines ended by a lone CR: left to csv
            blank = (b" \t\r").replace(self.sep.encode(), b"")
            text = data.split(b"\n")
            if text and not text[-1]:
                text.pop()
            keep = [k for k, line in enumerate(text) if line.strip(blank)]
            if self.n_rows is None or len(keep) != self.n_rows + 1:
                return None  # a quoted field spans lines (or pandas counts otherwise)
            self._text = ([k + 1 for k in keep], [text[k] for k in keep])
        return self._text or None

    def _scan(self):
        """Every record's (first line, number of fields) by :mod:`csv`, or None."""
        if self._parsed is None:
            self._parsed = False
            import csv
            import io

            blank = " \t".replace(self.sep, "")
            starts, counts = [], []
            limit = csv.field_size_limit()
            try:
                csv.field_size_limit(2 ** 31 - 1)
                handle = _open_binary(self.path)
                if handle is None:
                    return None
                with io.TextIOWrapper(handle, encoding="utf-8", errors="replace",
                                      newline="") as text:
                    reader = csv.reader(text, delimiter=self.sep, strict=False)
                    end = 0
                    for fields in reader:
                        start, end = end + 1, reader.line_num
                        if not fields or (len(fields) == 1 and start == end and fields[0]
                                          and not fields[0].strip(blank)):
                            continue  # a line pandas skips
                        starts.append(start)
                        counts.append(len(fields))
            except (OSError, csv.Error, EOFError, ValueError):
                return None
            finally:
                csv.field_size_limit(limit)
            self._parsed = (starts, counts)
        return self._parsed or None

    def _aligned_scan(self):
        scan = self._scan()
        return scan if scan and (self.n_rows is None or len(scan[0]) == self.n_rows + 1) else None

    def _starts_of(self):
        """The first line of every record, or None."""
        found = self._bytes_lines()
        if found:
            return found[0]
        scan = self._aligned_scan()
        return scan[0] if scan else None

    def quotes(self):
        """How the file uses double quotes, by the rules of RFC 4180 (section 2): a field
        is either unquoted, holding no quote, or quoted from its first character to a
        closing quote followed by the separator or the end of the line (a quote inside it
        doubled, ``""``). Returns ``(faults, spans)``: ``faults``, ``(line, field, text,
        opened)`` of each place that breaks them: a quote inside an unquoted field (``yes"``;
        ``opened`` None), or text after a closing quote (``"1"x``; ``opened``, the line the
        quoted field opens on). pandas, and Python's :mod:`csv`, read both without a word,
        and an unbalanced quote that pairs with a later one merges records;
        ``spans``, ``(first line, last line, field)`` of each quoted field that holds a line
        break (legal, but also how an unbalanced quote shows). Fields are numbered from 0;
        lines as in :meth:`where`. A file without a quote is not parsed: ``([], [])``; a
        file that cannot be read again: None. A quote never closed is left to the parser,
        which names the line it opens on."""
        handle = _open_binary(self.path)
        if handle is None:
            return None
        with handle:
            data = handle.read()
        if b'"' not in data:
            return [], []
        text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
        sep = re.escape(self.sep)
        quoted = r'"[^"]*(?:""[^"]*)*"'
        plain = re.compile(rf'[^"{sep}\r\n]*')
        whole = re.compile(rf'(?:{quoted}|[^"{sep}\r\n]*)(?:{sep}(?:{quoted}|[^"{sep}\r\n]*))*')
        inside = re.compile(r'[^"]*(?:""[^"]*)*')
        faults, spans = [], []
        opened = None  # (line, field) of a quoted field running on from an earlier line
        field = 0
        for number, line in enumerate(re.split(r"\r\n|\n|\r", text), start=1):
            if opened is None:
                if '"' not in line or whole.fullmatch(line):
                    continue  # no quote, or every field as the rules say
                field, at, parse = 0, 0, True
            else:
                at = inside.match(line).end()
                if at == len(line):
                    continue  # the quoted field goes on over the next line break
                spans.append((opened[0], number, opened[1]))
                first, field, at, parse, opened = opened[0], opened[1], at + 1, False, None
            while True:
                begin = at
                if parse and at < len(line) and line[at] == '"':
                    first = number
                    at = inside.match(line, at + 1).end()
                    if at == len(line):
                        opened = (number, field)  # a line break inside the quotes
                        break
                    at += 1
                elif parse:
                    at = plain.match(line, at).end()
                    if at < len(line) and line[at] == '"':
                        faults.append((number, field, line[begin:at + 1][-12:], None))
                        break
                parse = True
                if at >= len(line):
                    break
                if line[at] != self.sep:  # after a closing quote
                    faults.append((number, field, line[at:at + 12], first))
                    break
                at += 1
                field += 1
        return faults, spans

    # ---- what the reader and the messages ask
    def widest(self):
        """The largest number of fields of a record (None if the file cannot be re-read)."""
        scan = self._scan()
        return max(scan[1]) if scan and scan[1] else None

    def last_start(self):
        """The line the last record starts on (an unclosed quote runs to the end)."""
        scan = self._scan()
        return scan[0][-1] if scan and scan[0] else None

    def counts(self, rows):
        """``(line, number of fields)`` of the data rows ``rows`` (0-based, pandas' rows),
        or None."""
        import csv

        found = self._bytes_lines()
        if found:
            starts, text = found
            lines = [text[r + 1].decode("utf-8", errors="replace") for r in rows]
            parsed = csv.reader(lines, delimiter=self.sep, strict=False)
            return [(starts[r + 1], len(fields)) for r, fields in zip(rows, parsed)]
        scan = self._aligned_scan()
        if scan is None:
            return None
        return [(scan[0][r + 1], scan[1][r + 1]) for r in rows]

    def fields(self, row):
        """The number of fields of data row ``row`` (0-based), or None."""
        found = self.counts([row])
        return found[0][1] if found else None

    def where(self, row):
        """``line 7``: the line data row ``row`` (0-based) starts on; ``data row 6`` if the
        file cannot be read again alike."""
        starts = self._starts_of()
        return f"line {starts[row + 1]}" if starts else f"data row {row + 1}"

    def line(self, row):
        """:meth:`where` for row ``row`` of the frame :func:`read_table` returns (after rows
        of separators only were skipped)."""
        return self.where(int(self.kept[row]) if self.kept is not None else row)

    def where_many(self, rows, shown=5):
        """``lines 3, 7, 9 and 2 more`` for the data rows ``rows``."""
        rows = [int(r) for r in rows]
        starts = self._starts_of()
        head = [str(starts[r + 1] if starts else r + 1) for r in rows[:shown]]
        word = ("line" if starts else "data row") + ("s" if len(rows) > 1 else "")
        more = f" and {len(rows) - shown} more" if len(rows) > shown else ""
        return f"{word} {', '.join(head)}{more}"

    def quoted(self, fields):
        """``{field: bool array}``: whether each data row's cell of each of ``fields`` (0-based)
        is written in double quotes, aligned with the frame :func:`read_table` returns; None
        when a record spans lines (a quoted line break) or the file cannot be read again."""
        import numpy as np

        found = self._bytes_lines()
        if not found:
            return None
        sep = re.escape(self.sep)
        cell = re.compile(rf'"(?:[^"]|"")*"|[^"{sep}\r\n]*')
        last = max(fields)
        rows = self.kept if self.kept is not None else range(self.n_rows)
        marks = {k: np.zeros(len(rows), dtype=bool) for k in fields}
        for i, r in enumerate(rows):
            line = found[1][r + 1].decode("utf-8", errors="replace")
            at = field = 0
            while field <= last:
                match = cell.match(line, at)
                if field in marks:
                    marks[field][i] = line.startswith('"', at)
                at = match.end()
                if at >= len(line) or line[at] != self.sep:
                    break
                at += 1
                field += 1
        return marks

    def short(self, rows, width):
        """``(line, fields)`` of those of the data rows ``rows`` that have fewer than
        ``width`` fields: truncated rows (None if the file cannot be read again)."""
        found = self.counts(rows)
        return None if found is None else [(line, n) for line, n in found if n < width]


def _numeric_columns(frame, pd, keep_text=(), measured=(), decimal="."):
    """Columns whose every non-missing cell is a number become numeric (see read_table),
    except those named in ``keep_text``.

    A number may have spaces around it and, with ``decimal=","``, a decimal comma
    (:func:`~skbn.utils._text.spelled_number`). A column of numbers with a few other texts stays text with a
    warning naming them; a column of decimal commas read without ``--decimal ,`` is an
    error. A column that would be discrete (whole numbers, not too many of them: the
    column-type rule) and is not in ``measured`` (``--continuous``) stays text with a
    warning when reading it as numbers would rename a state: it writes one number two ways
    ("01" and "1", "1e1" and "10"), or writes a number otherwise than Python writes it
    ("01", "007", "+1", "1e1", "1.50"; codes), so that its cells stay distinct states with
    the names they have in the file (``skbn sample`` -> CSV -> ``skbn learn`` keeps a
    state "01")."""
    from skbn._data import _too_many_integer_states

    columns = {}
    for name in frame.columns:
        column = frame[name]
        texts = pd.unique(column.dropna().to_numpy(dtype=object))
        columns[name] = column
        if len(texts) == 0 or name in keep_text:
            continue
        spelled = {t: spelled_number(t, decimal) for t in texts}
        others = [t for t in texts if spelled[t] is None]
        if others:
            _warn_text_among_numbers(name, column, texts, others, decimal, name in measured)
            continue
        whole = all(INTEGER.fullmatch(spelled[t]) for t in texts)
        values = {t: int(spelled[t]) if whole else float(spelled[t]) for t in texts}
        if whole and max(abs(v) for v in values.values()) >= 2 ** 63:
            continue  # identifiers longer than 64 bits stay text
        discrete = name not in measured and (whole or all(float(v).is_integer()
                                                          for v in values.values()))
        if discrete and len(set(values.values())) < len(set(spelled.values())):
            same = {}  # "01" and "1": two cells, one number
            for t in texts:
                same.setdefault(values[t], set()).add(spelled[t])
            twins = sorted(next(group for group in same.values() if len(group) > 1))
            _warn(f"column {name!r} holds one number written two ways ({twins[0]!r} and "
                  f"{twins[1]!r}), read as text so that distinct cells stay distinct states "
                  f"(codes such as '01' and '1'); pass --categorical {name} to say so, or "
                  f"write each number one way")
            continue
        renamed = sorted((t for t in texts if discrete and spelled[t] != str(values[t])),
                         key=values.get)
        if renamed and not _too_many_integer_states(len(set(values.values())),
                                                     int(column.notna().sum())):
            shown = ", ".join(repr(spelled[t]) for t in renamed[:3]) + (", ..." if len(renamed) > 3
                                                                       else "")
            _warn(f"column {name!r} holds whole numbers written as codes ({shown}), read as "
                  f"text so that each state keeps its name ({spelled[renamed[0]]!r} would "
                  f"become {values[renamed[0]]!r}); pass --categorical {name} to say so, or "
                  f"--continuous {name} if they are measurements")
            continue
        mapped = column.astype(object).map(values)
        columns[name] = (mapped.astype("Int64" if column.isna().any() else "int64") if whole
                         else mapped.astype("float64"))
    return pd.DataFrame(columns, index=frame.index)


def _warn_text_among_numbers(name, column, texts, others, decimal, measured):
    """Say why a column of (mostly) numbers stays text: ``others``, those of its distinct
    cells ``texts`` that are not numbers with the decimal mark ``decimal``. ``measured``:
    the column is given to ``--continuous`` (``read_table`` then refuses its text).

    A column whose other cells are all numbers written with a decimal comma (``--decimal``
    not given) or with thousands separators (``4,421``; ``1.552,5`` with a decimal comma),
    besides missing-value markers, is an error naming the option: read as text, every
    measurement would be a state. That includes a column mixing them with plain numbers,
    as R's ``write.csv2`` writes 5.0 as ``5`` beside ``5,1``. Cells that are all grouped by
    threes (``4,421``, ``12,000``) are taken for thousands separators."""
    stripped = [t.strip() for t in others]
    n_numbers = len(texts) - len(others)
    grouped = [t for t, s in zip(others, stripped) if THOUSANDS[decimal].fullmatch(s)]
    commas = [t for t, s in zip(others, stripped) if decimal == "." and DECIMAL_COMMA.fullmatch(s)]
    read = {*grouped, *commas}  # (a set: a column of many distinct cells is checked in one pass)
    if read and all(t in read or s in MISSING_MARKERS for t, s in zip(others, stripped)):
        markers = [t for t in others if t.strip() in MISSING_MARKERS]
        na = (f" (and --na-values {markers[0].strip()} if {markers[0]!r} marks missing cells)"
              if markers else "")
        if grouped and set(commas) <= set(grouped):
            example = grouped[0].strip()
            comma = (f"; if ',' is their decimal mark, pass --decimal , ({example!r} is then "
                     f"{example.replace(',', '.')})" if decimal == "." and all(
                         DECIMAL_COMMA.fullmatch(t.strip()) for t in grouped) else "")
            raise CommandError(
                f"column {name!r} holds numbers written with thousands separators (e.g. "
                f"{grouped[0]!r}), which skbn does not read: write the file without them (in a "
                f"spreadsheet, a number format without the 1000 separator){na}, or pass "
                f"--categorical {name} to keep them as text{comma}")
        raise CommandError(
            f"column {name!r} holds numbers written with a decimal comma (e.g. {commas[0]!r}): pass "
            f"--decimal , to read them as numbers{na}, or --categorical {name} to keep them as text")
    if not n_numbers:
        return
    if set(stripped) <= set(MISSING_MARKERS):
        # numbers as text beside a missing-value marker (R's NA): the encoder's check refuses
        # the column, or warns, naming it (the CLI's words say --na-values). fit runs it on
        # numbers written with a decimal point; those with a decimal comma only the file's
        # --decimal , tells, so the reader runs the same check on them, once
        if decimal == "," and not measured and any("," in t for t in texts):
            from skbn._data import _check_marked_numbers

            _check_marked_numbers(name, list(texts), len(column), decimal=decimal)
        return
    cells = int(column.isin(others).sum())
    shown = ", ".join(repr(t) for t in others[:3]) + (", ..." if len(others) > 3 else "")
    _warn(f"column {name!r} holds {n_numbers} distinct numbers and {len(others)} other "
          f"text(s) ({shown}; {cells} cell(s)), so every value is read as a text state; if those "
          f"cells mark missing values, pass --na-values with them"
          + (", or --decimal , for decimal commas" if any(DECIMAL_COMMA.fullmatch(t) for t in stripped)
             else ""))


def read_model(path):
    """A network from a ``.bif`` or ``.json`` file (or a built-in name such as ``asia``)."""
    from skbn.datasets import load_network
    from skbn.io import read_json

    text = str(path)
    if text.lower().endswith(".json"):
        if not Path(text).is_file():
            raise CommandError(f"no such model file: {text!r}")
        return read_json(text)
    if text.lower().endswith(".bif") and not Path(text).is_file():
        raise CommandError(f"no such model file: {text!r}")
    return load_network(text)


def _as_number(value):
    """The float of a number or of a number's text, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) or type(value).__module__ == "numpy":
        try:
            return float(value)
        except (TypeError, ValueError):
            return None
    if isinstance(value, str) and NUMBER_TEXT.fullmatch(value):
        return float(value)
    return None


class StateMatcher:
    """Map a cell or an option's text to a model state.

    A value matches the state with the same text (``str``); failing that, a number matches
    the one state that is the same number (``"1.0"`` and ``1`` match the state ``"1"``), so
    a CSV scores against a model learned from typed data and the other way round.
    """

    def __init__(self, states):
        self.by_text = {str(state): state for state in states}
        numbers = {}
        for state in states:
            number = _as_number(state)
            if number is not None:
                numbers.setdefault(number, []).append(state)
        self.by_number = {k: v[0] for k, v in numbers.items() if len(v) == 1}

    def __call__(self, value, default=None):
        text = str(value)
        if text in self.by_text:
            return self.by_text[text]
        number = _as_number(value)
        if number is not None and number in self.by_number:
            return self.by_number[number]
        return default


def _states(network, node):
    """The states of ``node``, None for a continuous node (Gaussian and CLG models)."""
    return getattr(network, "states", {}).get(node)


def _comma_hint(text, decimal, option=True):
    """What a cell that is not a number with the decimal mark ``decimal`` may need, for a
    message: thousands separators are not read (``4,421``: the hint must not send the user
    to ``--decimal ,``, which reads it as 4.421, unless it can be a decimal comma);
    ``--decimal ,`` for a decimal comma (``5,1``). ``option=False``: the text is no cell of
    a file but a value on the command line (``--evidence``), which has no ``--decimal``."""
    text = text.strip()
    comma = ("pass --decimal , " if option
             else f"write it with a decimal point ({text.replace(',', '.')!r}) ")
    if THOUSANDS[decimal].fullmatch(text):
        comma = (f", or {comma}if ',' is the decimal mark"
                 if decimal == "." and DECIMAL_COMMA.fullmatch(text) else "")
        return f"; thousands separators? skbn reads numbers written without them{comma}"
    if decimal == "." and DECIMAL_COMMA.fullmatch(text):
        return f"; {comma}to read decimal commas" if option else f"; {comma.strip()}"
    return ""


def _number(node, text, what, decimal=".", option=True):
    """The float a cell or an evidence value of the continuous ``node`` holds: a number as
    ``learn`` reads one (:func:`~skbn.utils._text.spelled_number`). ``option=False``: an
    ``--evidence`` value, for which no ``--decimal`` or ``--na-values`` option exists."""
    if not isinstance(text, str):
        text = str(text)
    spelled = spelled_number(text, decimal)
    if spelled is None:
        if text.strip() in MISSING_MARKERS:
            hint = (f"; if it marks a missing value, pass --na-values {text}" if option
                    else f"; to leave {node!r} unobserved, leave it out of --evidence")
        else:
            hint = _comma_hint(text, decimal, option)
        raise CommandError(f"{what}: {text!r} is not a number, and {node!r} is continuous{hint}")
    return float(spelled)


def align_to_model(frame, network, path=None, sep=",", decimal=".", line=None):
    """Match the columns to the model's nodes and each cell to a state (:class:`StateMatcher`),
    or, for a continuous node, to a number.

    Missing cells stay missing. A cell that is not a state of its node (or not a number, for
    a continuous node) is an error naming the column, the value and, with ``line`` (from
    :func:`read_table`), the line of the file it is on; without ``line`` unknown labels are
    left for the network to report by column and value.
    """
    import pandas as pd

    by_text = {str(node): node for node in network.nodes}
    unknown = [c for c in frame.columns if str(c) not in by_text]
    of = f" of {str(path)!r}" if path is not None else ""
    if unknown:
        hint = _separator_hint(unknown[0], sep) if frame.shape[1] == 1 else ""
        if len(unknown) == 1 and all(spelled_number(str(v), decimal) is not None
                                     for v in frame[unknown[0]].dropna()):
            hint += f"; if it holds row weights (counts), pass --weights {str(unknown[0])!r}"
        raise CommandError(f"column(s) {unknown!r}{of} are not nodes of the model "
                           f"(nodes: {[str(v) for v in network.nodes]!r}){hint}")

    def first_line(values, bad):
        return line(int(values.isin(bad).to_numpy().argmax()))

    aligned = {}
    for column in frame.columns:
        node = by_text[str(column)]
        values = frame[column].astype(object)
        cells = pd.unique(values.dropna())
        if _states(network, node) is None:
            where = f"column {str(column)!r}{of}"
            mapping = {}
            for v in cells:
                try:
                    mapping[v] = _number(node, v, where, decimal)
                except CommandError:
                    if line is None:
                        raise
                    _number(node, v, f"column {str(column)!r} ({first_line(values, [v])}{of})",
                            decimal)
            aligned[node] = values.map(mapping).astype("float64")
            continue
        match, missing = StateMatcher(network.states[node]), object()
        mapping = {v: match(v, missing) for v in cells}
        bad = [v for v, state in mapping.items() if state is missing]
        if bad and line is not None:
            text = values[values.isin(bad)].iloc[0]
            hint = (f"; if it marks a missing cell, pass --na-values {str(text).strip()}"
                    if str(text).strip() in MISSING_MARKERS else "")
            raise CommandError(f"Unknown state {text!r} in column {str(column)!r} "
                               f"({first_line(values, bad)}{of}); the node's states are "
                               f"{network.states[node]!r}{hint}")
        aligned[node] = values.map({v: v if state is missing else state
                                    for v, state in mapping.items()})
    return pd.DataFrame(aligned, index=frame.index)


def node_of(network, text):
    """The node whose text is ``text`` (node names of a JSON model may be numbers)."""
    for node in network.nodes:
        if str(node) == text:
            return node
    raise CommandError(f"unknown node {text!r} (nodes: {[str(v) for v in network.nodes]!r})")


def state_of(network, node, text):
    """The state of ``node`` named by ``text`` (for --evidence; see :class:`StateMatcher`),
    or the number it holds for a continuous node."""
    if _states(network, node) is None:
        return _number(node, text, f"--evidence {node}={text}", option=False)
    missing = object()
    state = StateMatcher(network.states[node])(text, missing)
    if state is missing:
        raise CommandError(f"unknown state {text!r} of {node!r} (states: "
                           f"{[str(s) for s in network.states[node]]!r})")
    return state


# ---------------------------------------------------------------------- writing
class Output:
    """One file a command writes: checked before the work starts, written atomically."""

    KINDS = {"model": (".bif", ".json"), "dot": (".dot", ".gv"), "png": None,
             "table": _TABLE_SUFFIXES + _PARQUET}

    def __init__(self, option, path, kind):
        self.option, self.path, self.kind = option, Path(path), kind

    def __str__(self):
        return f"{self.option} {str(self.path)!r}"

    def suffix(self):
        suffixes = [s.lower() for s in self.path.suffixes]
        if self.kind == "table" and len(suffixes) >= 2 and suffixes[-1] in _COMPRESSION:
            return suffixes[-2]
        return suffixes[-1] if suffixes else ""

    def check(self):
        """Refuse, in one line, an output that could not be written."""
        path = self.path
        if path.is_dir():
            raise CommandError(f"{self}: is a directory")
        if self.kind == "png":
            try:
                import matplotlib
            except ImportError:
                raise CommandError(f"{self.option} needs matplotlib: "
                                   f"pip install matplotlib") from None
            matplotlib.use("Agg")  # files only, never a window
            from matplotlib.backends.backend_agg import FigureCanvasAgg

            known = tuple(f".{k}" for k in FigureCanvasAgg.get_supported_filetypes())
        else:
            known = self.KINDS[self.kind]
        if self.suffix() not in known:
            raise CommandError(f"{self}: unknown file type {self.suffix() or '(none)'!r}; "
                               f"use one of {', '.join(known)}")
        parent = path.parent
        if not parent.is_dir():
            raise CommandError(f"{self}: the directory {str(parent)!r} does not exist")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise CommandError(f"{self}: the directory {str(parent)!r} is not writable")
        if path.exists() and not os.access(path, os.W_OK):
            raise CommandError(f"{self}: the file exists and is read-only")

    def write(self, writer):
        """Call ``writer(temporary path)`` and move the file into place (``os.replace``):
        a failure leaves any existing file untouched."""
        path = self.path
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                         suffix="".join(path.suffixes[-2:]))
        os.close(fd)
        try:
            writer(temporary)
            if path.exists():
                mode = path.stat().st_mode & 0o7777
            else:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.chmod(temporary, mode)
            os.replace(temporary, path)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise


def check_outputs(outputs, inputs=()):
    """Check every output before any work: writable, known type, no two the same file."""
    seen = {}
    inputs = {Path(p).resolve() for p in inputs if p is not None and Path(p).is_file()}
    for output in outputs:
        output.check()
        key = output.path.resolve()
        if key in seen:
            raise CommandError(f"{seen[key]} and {output} are the same file")
        if key in inputs:
            raise CommandError(f"{output} would overwrite an input file")
        seen[key] = output


def write_outputs(jobs, log):
    """Write every ``(Output, writer)``; if some fail, the others are still written and one
    error names the failed ones."""
    failed, written = [], 0
    for output, writer in jobs:
        log(f"writing {output.path}")
        try:
            output.write(writer)
            written += 1
        except (KeyboardInterrupt, MemoryError):
            raise
        except Exception as exc:
            failed.append(f"{output}: {_one_line(exc)}")
    if failed:
        others = f" ({written} other output(s) written)" if written else ""
        raise CommandError(f"could not write {'; '.join(failed)}{others}")


def write_model(network, path):
    """Write ``network`` as BIF or JSON, chosen by the file extension."""
    from skbn.io import _check_bif_writable, write_bif, write_json

    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        write_json(network, path)
    elif suffix == ".bif":
        try:
            _check_bif_writable(network)
        except ValueError:  # (no path in the message: ``path`` is the temporary file, and the
            # caller names the output)
            raise CommandError("BIF holds discrete networks only, and this one has continuous "
                               "nodes; write a .json model instead") from None
        write_bif(network, path)
    else:
        raise CommandError(f"cannot tell the model format of {str(path)!r}: use a .bif or "
                           f".json file name")


def write_table(frame, path, sep=","):
    """CSV (pandas infers a compression extension) or Parquet, by extension."""
    if Path(path).suffix.lower() in _PARQUET:
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False, sep=sep)


def write_dot(nodes, directed, undirected, path):
    """Graphviz DOT: directed edges as arrows, undirected (CPDAG) edges with ``dir=none``."""
    def quote(name):
        return '"' + str(name).replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["digraph {"]
    lines += [f"  {quote(v)};" for v in nodes]
    lines += [f"  {quote(u)} -> {quote(v)};" for u, v in directed]
    lines += [f"  {quote(u)} -> {quote(v)} [dir=none];" for u, v in undirected]
    Path(path).write_text("\n".join(lines + ["}"]) + "\n", encoding="utf-8")


def _read_rows(path, option, width):
    """The rows of a small CSV file of names, cells as written (edge lists, tiers)."""
    import pandas as pd

    if not Path(path).is_file():
        raise CommandError(f"{option} {str(path)!r}: no such file")
    try:
        frame = pd.read_csv(path, dtype=str, header=None, keep_default_na=False,
                            na_filter=False, encoding="utf-8")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise CommandError(f"{option} {str(path)!r}: {_one_line(exc)}") from None
    if frame.shape[1] != width:
        raise CommandError(f"{option} {str(path)!r}: expected {width} columns, found "
                           f"{frame.shape[1]}")
    return [tuple(cell.strip() for cell in row)
            for row in frame.itertuples(index=False, name=None)]


def read_edge_list(path, option, columns=()):
    """(from, to) pairs from a CSV file with two columns; a header row is optional.

    A first row ``from,to``, ``parent,child`` or ``source,target`` (any case) is the
    header. When the data has two columns of exactly those names the row could also be an
    edge between them (dropped, or added, without a word): that is an error.
    """
    headers = (["from", "to"], ["parent", "child"], ["source", "target"])
    pairs = _read_rows(path, option, 2)
    if pairs and [h.lower() for h in pairs[0]] in headers:
        if all(name in set(map(str, columns)) for name in pairs[0]):
            a, b = pairs[0]
            others = " or ".join(",".join(h) for h in headers if h != [a.lower(), b.lower()])
            raise CommandError(
                f"{option} {path}: the first row {a},{b} is read as the header, but the data "
                f"has columns {a!r} and {b!r}, so it could also be the edge {a} -> {b}. Begin "
                f"the file with the header {others} and list the edge below it if you mean it")
        pairs = pairs[1:]
    return pairs


def read_tiers(spec):
    """``--tiers``: a CSV file of ``column,tier`` rows, or inline ``"a,b > c > d,e"``.

    Inline: tiers separated by ``>``, columns within a tier by commas; earlier tiers come
    first (no edge from a later tier into an earlier one). File: tier numbers (smaller =
    earlier), any order; a header row ``column,tier`` is optional.
    """
    if Path(spec).is_file():
        rows = _read_rows(spec, "--tiers", 2)
        if rows and str(rows[0][1]).strip().lower() == "tier":
            rows = rows[1:]  # header
        ranks = {}
        for column, tier in rows:
            try:
                ranks.setdefault(int(tier), []).append(column)
            except ValueError:
                raise CommandError(f"--tiers {spec!r}: tier of {column!r} is {tier!r}, "
                                   f"not an integer") from None
        if not ranks:
            raise CommandError(f"--tiers {spec!r}: the file lists no column")
        return [ranks[k] for k in sorted(ranks)]
    if ">" not in spec and "," not in spec:
        raise CommandError(f"--tiers {spec!r}: no such file, and not the inline form "
                           f"'a,b > c > d'")
    tiers = [[c.strip() for c in tier.split(",") if c.strip()] for tier in spec.split(">")]
    if any(not tier for tier in tiers):
        raise CommandError(f"--tiers {spec!r}: a tier is empty")
    return tiers


# ---------------------------------------------------------------------- learn
def _estimator_class(method):
    import skbn.estimators

    class_name, fixed = METHODS[method]
    cls = getattr(skbn.estimators, class_name, None)
    if cls is None:
        raise CommandError(f"--method {method}: {class_name} is not available in this "
                           f"version of skbn")
    return cls, dict(fixed)


def _default_plugin(cls, name):
    """The alias of a learner's default plug-in on discrete data (its ``"auto"``)."""
    value = cls().get_params()[name]
    return cls._auto_plugins[name][0] if isinstance(value, str) and value == "auto" else value


def build_estimator(args, data):
    """The estimator for ``skbn learn``: only parameters the method accepts, else an error."""
    from skbn.citests import resolve_ci_test
    from skbn.scores import resolve_scorer

    cls, params = _estimator_class(args.method)
    accepted = cls().get_params()

    def need(parameter, option, value):
        if parameter not in accepted:
            raise CommandError(f"{option} cannot be used with --method {args.method} "
                               f"({cls.__name__} has no {parameter!r} parameter)")
        params[parameter] = value

    if args.score is not None or args.ess is not None:
        option = "--score" if args.score is not None else "--ess"
        if "scorer" not in accepted:
            raise CommandError(f"{option} cannot be used with --method {args.method} "
                               f"(it is not score-based)")
        scorer = resolve_scorer(args.score if args.score is not None else _default_plugin(cls, "scorer"))
        if args.ess is not None:
            if "ess" not in scorer.get_params():
                raise CommandError(f"--ess needs a score with an equivalent sample size "
                                   f"(--score bdeu), not {type(scorer).__name__}")
            scorer.set_params(ess=args.ess)
        params["scorer"] = scorer
    if args.alpha is not None or args.ci_test is not None:
        option = "--alpha" if args.alpha is not None else "--ci-test"
        if "ci_test" not in accepted:
            raise CommandError(f"{option} cannot be used with --method {args.method} "
                               f"(it uses no conditional independence test)")
        test = resolve_ci_test(args.ci_test if args.ci_test is not None
                               else _default_plugin(cls, "ci_test"))
        if args.alpha is not None:
            if "alpha" not in test.get_params():
                raise CommandError(f"--alpha does not apply to the {type(test).__name__} "
                                   f"test")
            test.set_params(alpha=args.alpha)
        params["ci_test"] = test
    if args.max_indegree is not None:
        need("max_indegree", "--max-indegree", args.max_indegree)
    if args.black_list is not None:
        need("black_list", "--black-list", read_edge_list(args.black_list, "--black-list", data.columns))
    if args.white_list is not None:
        need("white_list", "--white-list", read_edge_list(args.white_list, "--white-list", data.columns))
    if args.tiers is not None:
        need("tiers", "--tiers", read_tiers(args.tiers))
    if args.ordering is not None:
        need("ordering", "--ordering", [c.strip() for c in args.ordering.split(",")])
    if args.target is not None:
        need("target", "--target", args.target)
    if args.missing is not None:
        need("missing", "--missing", args.missing)
    if getattr(args, "em_max_iter", None) is not None:
        need("em_max_iter", "--em-max-iter", args.em_max_iter)
        if args.missing != "em":
            raise CommandError("--em-max-iter bounds EM, which runs under --missing em only: "
                               "add --missing em, or leave --em-max-iter out")
    if args.n_jobs is not None:
        need("n_jobs", "--n-jobs", args.n_jobs)
    if args.max_memory is not None:
        need("max_memory", "--max-memory", args.max_memory)
    declared = _declared_types(args)
    if declared and "column_types" in accepted:
        params["column_types"] = declared
    if args.verbose and "verbose" in accepted:
        params["verbose"] = args.verbose
    if args.random_state is not None and "random_state" in accepted:
        params["random_state"] = args.random_state  # deterministic methods need none
    if args.missing is None and "missing" not in accepted and data.isna().to_numpy().any():
        column = data.columns[data.isna().any().to_numpy()][0]
        raise CommandError(f"the data have missing values (first in column {column!r}) and "
                           f"--method {args.method} cannot handle them: drop or impute them")
    return cls(**params)


def undirected_edges(model):
    """CPDAG learners' reversible edges (empty for DAG learners)."""
    return list(getattr(model, "undirected_edges_", ()))


def directed_edges(model):
    """Edges to draw as arrows: the compelled ones for CPDAG learners, else ``edges_``."""
    if hasattr(model, "undirected_edges_"):
        return list(model.directed_edges_)
    return list(model.edges_)


def learn_outputs(args):
    """The outputs of ``skbn learn``, checked before reading and fitting."""
    outputs = {}
    if args.output is not None:
        outputs["model"] = Output("-o", args.output, "model")
    if args.dot is not None:
        outputs["dot"] = Output("--dot", args.dot, "dot")
    if args.png is not None:
        outputs["png"] = Output("--png", args.png, "png")
    check_outputs(outputs.values(), inputs=[args.data])
    return outputs


def cmd_learn(args, log):
    outputs = learn_outputs(args)
    log(f"reading {args.data}")
    start = time.perf_counter()
    data, line = read_table(args.data, sep=args.sep, na_values=args.na_values,
                            categorical=args.categorical, continuous=args.continuous,
                            decimal=args.decimal, lines=True, weights=args.weights)
    log(f"read {counted(data.shape[0], 'row')}, {counted(data.shape[1], 'column')} "
        f"({time.perf_counter() - start:.2f} s)")
    data, weights = _take_weights(args, data, line, [("--target", args.target)]
                                  + [(option, c) for option, columns in (("--categorical", args.categorical),
                                                                         ("--continuous", args.continuous))
                                     for c in columns])
    if data.shape[1] < 2:
        raise CommandError(f"{str(args.data)!r} has one column ({str(data.columns[0])!r}); "
                           f"a network needs at least two"
                           f"{_separator_hint(data.columns[0], args.sep)}")
    model = build_estimator(args, data)
    if args.guard_interrupts and args.n_jobs not in (None, 1):
        _guard_interrupts()
    log(f"fitting {model!r}")
    start = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):  # stdout holds results only
        model.fit(data) if weights is None else model.fit(data, sample_weight=weights)
    log(f"fitted in {time.perf_counter() - start:.2f} s")
    kinds = {kind: [str(c) for c, k in model.column_types_.items() if k == kind]
             for kind in ("discrete", "continuous")}
    log("column types: " + "; ".join(f"{kind} {', '.join(names)}" for kind, names in kinds.items()
                                     if names))

    incomplete = data.isna().any(axis=1).to_numpy()
    mean = "mean" if weights is None else f"weighted mean (--weights {args.weights})"
    if weights is not None:  # rows of weight 0 are left out (not read), as in fit
        incomplete = incomplete & (weights > 0)
    used = data.shape[0] if weights is None else int((weights > 0).sum())
    if getattr(model, "missing", None) == "complete_case":
        used -= int(incomplete.sum())
    directed, undirected = directed_edges(model), undirected_edges(model)
    out(f"{type(model).__name__} ({args.method}) on {args.data}: "
        f"{_rows_used(data.shape[0], used)}{_weighted(weights)}, {counted(data.shape[1], 'variable')}, "
        f"{counted(len(directed) + len(undirected), 'edge')}")
    for parent, child in directed:
        out(f"  {parent} -> {child}")
    for u, v in undirected:
        out(f"  {u} -- {v}   (direction not identifiable)")
    if hasattr(model, "score_"):
        out(f"score ({type(model.scorer_).__name__}): {model.score_:.4f}")
    if not incomplete.any():
        out(f"{mean} log-likelihood of the training rows: "
            f"{model.score(data, sample_weight=weights):.4f}")
    elif getattr(model, "missing", None) == "complete_case":
        # the model was learned from the complete rows only: say so, and score those
        complete = data[~incomplete]
        kept = None if weights is None else weights[~incomplete]
        out(f"{mean} log-likelihood of the {counted(len(complete), 'complete row')} it was learned from: "
            f"{model.score(complete, sample_weight=kept):.4f}")
        out(f"{mean} log-likelihood of all {counted(len(data), 'row')} (missing cells summed out): "
            f"{model.score(data, sample_weight=weights):.4f}")
    else:
        out(f"{mean} log-likelihood of the training rows (missing cells summed out): "
            f"{model.score(data, sample_weight=weights):.4f}")

    jobs = []
    if "model" in outputs:
        jobs.append((outputs["model"], lambda path: write_model(model.network_, path)))
    if "dot" in outputs:
        jobs.append((outputs["dot"], lambda path: write_dot(model.network_.nodes, directed,
                                                             undirected, path)))
    if "png" in outputs:
        jobs.append((outputs["png"], lambda path: _draw(model, args, path)))
    write_outputs(jobs, log)
    return 0


def _draw(model, args, path):
    import matplotlib.pyplot as plt

    from skbn.plotting import plot_network

    ax = plot_network(model, title=f"{args.method} on {Path(args.data).name}")
    try:
        ax.figure.savefig(path, dpi=120, bbox_inches="tight",
                          format=Path(args.png).suffix.lower().lstrip("."))
    finally:
        plt.close(ax.figure)


# ---------------------------------------------------------------------- other commands
def cmd_score(args, log):
    import numpy as np
    import pandas as pd

    from skbn.exceptions import ZeroProbabilityWarning

    per_row = Output("--per-row", args.per_row, "table") if args.per_row else None
    check_outputs([per_row] if per_row else [], inputs=[args.data, args.model])
    network = read_model(args.model)
    log(f"reading {args.data}")
    frame, line = read_table(args.data, sep=args.sep, na_values=args.na_values, numbers=False,
                             lines=True)
    frame, weights = _take_weights(args, frame, line)
    n_rows = len(frame)
    if weights is not None:  # rows of weight 0 are left out (not read), as in fit and score
        kept = np.flatnonzero(weights > 0)
        frame, weights, file_line = frame.iloc[kept], weights[kept], line
        line = lambda row: file_line(int(kept[row]))  # noqa: E731
    data = align_to_model(frame, network, path=args.data, sep=args.sep, decimal=args.decimal,
                          line=line)
    start = time.perf_counter()
    # the rows of probability 0 are reported once, on stdout, with the columns that make
    # them so (the warning's causes); other warnings are shown as usual
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ZeroProbabilityWarning)
        log_likelihood = network.log_likelihood(data)
    causes = ""
    for w in caught:
        if issubclass(w.category, ZeroProbabilityWarning) and w.message.causes is not None:
            causes = f" ({w.message.causes})"
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    log(f"scored {counted(len(data), 'row')} in {time.perf_counter() - start:.2f} s")
    finite = np.isfinite(log_likelihood)
    if weights is None:
        out(f"rows: {len(data)}")
        out(f"mean log-likelihood: {np.mean(log_likelihood):.6f}")
    else:
        dropped = n_rows - len(data)
        out(f"rows: {len(data)}{_weighted(weights)}"
            + (f" ({dropped} row(s) of weight 0 left out)" if dropped else ""))
        out(f"weighted mean log-likelihood (--weights {args.weights}): "
            f"{np.average(log_likelihood, weights=weights):.6f}")
    if not finite.all():
        out(f"rows with probability 0: {int((~finite).sum())}{causes}")
    if per_row is not None:
        table = pd.DataFrame({"log_likelihood": log_likelihood})
        if weights is not None:  # one line per row of the file; NaN: weight 0, not read
            table = pd.DataFrame({"log_likelihood": np.full(n_rows, np.nan),
                                  "weight": np.zeros(n_rows)})
            table.iloc[kept, 0], table.iloc[kept, 1] = log_likelihood, weights
        write_outputs([(per_row, lambda path: write_table(table, path))], log)
    return 0


def parse_evidence(network, items):
    evidence = {}
    for item in items:
        node, sep, text = item.partition("=")
        if not sep or not node:
            raise CommandError(f"--evidence {item!r}: expected NODE=STATE")
        node = node_of(network, node)
        evidence[node] = state_of(network, node, text)
    return evidence


def cmd_query(args, log):
    import numpy as np

    network = read_model(args.model)
    evidence = parse_evidence(network, args.evidence)
    targets = [node_of(network, text) for text in args.target]
    start = time.perf_counter()
    posterior = network.query(targets, evidence=evidence)
    log(f"query answered in {time.perf_counter() - start:.3f} s")
    given = ", ".join(f"{k}={v}" for k, v in evidence.items())
    number = lambda x: f"{x:.6f}"  # noqa: E731
    if hasattr(posterior, "covariance"):  # continuous targets: a normal (mixture)
        out(f"p({', '.join(args.target)}{' | ' + given if given else ''})")
        out(posterior.mean.to_frame("mean").assign(sd=np.sqrt(posterior.variance)).to_string(
            float_format=number))
        if len(posterior.mean) > 1:
            out("covariance:")
            out(posterior.covariance.to_string(float_format=number))
        weights = getattr(posterior, "weights", None)
        if weights is not None and len(weights) > 1:
            out("mixture of normals; component weights and means:")
            out(posterior.means.assign(weight=weights).to_string(float_format=number))
        return 0
    out(f"P({', '.join(args.target)}{' | ' + given if given else ''})")
    out(posterior.to_frame().to_string(float_format=number))
    return 0


def cmd_sample(args, log):
    output = Output("-o", args.output, "table") if args.output not in (None, "-") else None
    check_outputs([output] if output else [], inputs=[args.model])
    sep = _separator(args.sep)
    if args.n_samples < 0:
        raise CommandError(f"-n must be non-negative, got {args.n_samples}")
    network = read_model(args.model)
    for node in network.nodes:  # a state written as an empty cell would read back missing
        if any(str(state) == "" for state in _states(network, node) or ()):
            raise CommandError(f"node {node!r} has a state named '' (the empty text), which "
                               f"a data file cannot tell from a missing cell; rename it")
    start = time.perf_counter()
    rows = network.sample(args.n_samples, random_state=args.random_state)
    log(f"sampled {counted(args.n_samples, 'row')} in {time.perf_counter() - start:.2f} s")
    if output is None:
        try:
            rows.to_csv(sys.stdout, index=False, sep=sep)
            sys.stdout.flush()
        except BrokenPipeError:
            _close_stdout()
        return 0
    write_outputs([(output, lambda path: write_table(rows, path, sep=sep))], log)
    out(f"{counted(args.n_samples, 'row')} written to {args.output}")
    return 0


def cmd_compare(args, log):
    from skbn.metrics import (
        arrowhead_scores,
        skeleton_scores,
        structural_hamming_distance,
    )

    truth, learned = read_model(args.true), read_model(args.learned)
    if set(map(str, truth.nodes)) != set(map(str, learned.nodes)):
        extra = sorted(set(map(str, learned.nodes)) ^ set(map(str, truth.nodes)))
        raise CommandError(f"the two models have different nodes (not in both: {extra!r})")
    names = {str(v): v for v in truth.nodes}
    learned_edges = [(names[str(u)], names[str(v)]) for u, v in learned.edges]
    nodes = truth.nodes
    shd = structural_hamming_distance(truth.edges, learned_edges, nodes=nodes)
    cpdag_shd = structural_hamming_distance(truth.edges, learned_edges, nodes=nodes, cpdag=True)
    out(f"true: {args.true} ({counted(len(truth.edges), 'edge')}); learned: {args.learned} "
        f"({counted(len(learned.edges), 'edge')})")
    out(f"SHD: {shd}")
    out(f"CPDAG SHD: {cpdag_shd}")
    out(f"{'':10s} {'precision':>9s} {'recall':>7s} {'F1':>7s}")
    for label, scores in (("skeleton", skeleton_scores(truth.edges, learned_edges)),
                          ("arrowhead", arrowhead_scores(truth.edges, learned_edges))):
        out(f"{label:10s} {scores['precision']:9.3f} {scores['recall']:7.3f} "
            f"{scores['f1']:7.3f}")
    return 0


# ---------------------------------------------------------------------- effect
def _declared_types(args):
    """The column types ``--categorical`` and ``--continuous`` declare (``column_types=``), an
    empty dict when neither is given."""
    return {**{c: "discrete" for c in args.categorical},
            **{c: "continuous" for c in getattr(args, "continuous", ())}}


def _complete_rows(args, data, weights, line):
    """``(data, weights, declared)``: the rows of positive weight (the learners' rule, rows of
    weight 0 are not read) without a missing cell, their weights and the
    column types and states ``effect`` encodes them with (``--missing complete_case``), or
    refuse missing cells naming the first column and line that holds one (``--missing
    error``): ``effect`` learns the structure and estimates the effect on complete rows.

    The rows are dropped by the learners' rule of ``missing="complete_case"``: the columns
    are encoded from every row of positive weight first, so a column keeps the type and the
    states read from all of them (a state seen only in dropped rows stays a state, with
    prior mass), and :func:`~skbn._data.complete_cases` drops the rows with a missing cell
    (its warning, its refusal of fewer than two rows). ``declared`` is then
    ``(column_types, categories)`` of every column, which the structure learner and the
    bootstrap are given with the complete rows, so the structure is that of ``skbn learn
    --missing complete_case`` on the same data; ``None`` when no row is dropped."""
    import numpy as np

    from skbn._data import complete_cases, complete_row_mask, encode_fit, positive_weight_rows

    # rows of weight 0 are not read (the learners' rule): they add no state and may be
    # missing; ``read`` holds the positions of the rows kept, for the line of a refusal
    data, weights, read = positive_weight_rows(data, weights, np.arange(len(data)))
    missing = data.isna().to_numpy()
    if not missing.any():
        return data, weights, None
    rows = missing.any(axis=1)
    if args.missing == "complete_case":
        encoded, states = encode_fit(data, allow_missing=True, allow_continuous=True,
                                     column_types=_declared_types(args) or "auto",
                                     weights=weights)
        keep = complete_row_mask(encoded)
        complete_cases(encoded)  # the warning (rows dropped) and the refusal (< 2 left)
        types = {name: "discrete" if s is not None else "continuous"
                 for name, s in zip(data.columns, states)}
        categories = {name: list(s) for name, s in zip(data.columns, states) if s is not None}
        return (data[keep], None if weights is None else weights[keep],
                (types, categories))
    j = int(missing.any(axis=0).argmax())  # the first column with a missing cell
    first = int(read[int(missing[:, j].argmax())])
    where = line(first) if line is not None else f"row {first + 1}"
    raise CommandError(f"column {str(data.columns[j])!r} has {int(missing[:, j].sum())} missing "
                       f"cell(s) (first on {where}); skbn effect learns the structure and "
                       f"estimates the effect on complete rows: pass --missing complete_case to "
                       f"leave out the {int(rows.sum())} row(s) with a missing cell, or fill them "
                       f"in first")


def _take_weights(args, data, line=None, uses=()):
    """``(data, weights)``: the ``--weights`` column taken out of ``data`` as the row weights
    (``sample_weight``), or ``(data, None)`` without the option.

    The column is not a variable: a column named by another option (``uses``: pairs of the
    option and its text, e.g. ``("--target", args.target)``) is refused. Its cells must be
    numbers as ``learn`` reads them (``--decimal``), none missing, none negative or infinite,
    not all 0 (:func:`~skbn._data.check_sample_weight`, the fit's rule); each refusal names the
    column and, with ``line`` (from :func:`read_table`), the line of the first bad cell.
    """
    import numpy as np
    import pandas as pd

    from skbn._data import check_sample_weight

    if args.weights is None:
        return data, None
    column = _column(data, args.weights, "--weights")
    for option, text in uses:
        if text is not None and str(text) == str(column):
            raise CommandError(f"{option} {str(text)!r} is the --weights column: the weights "
                               f"count rows, they are not a variable")
    where = line if line is not None else (lambda row: f"row {row + 1}")
    name = f"--weights {str(column)!r}"
    cells = data[column]
    missing = cells.isna().to_numpy()
    if missing.any():
        raise CommandError(f"{name}: {int(missing.sum())} missing cell(s) (first on "
                           f"{where(int(missing.argmax()))}); every row needs a weight (0 "
                           f"leaves a row out)")
    if pd.api.types.is_numeric_dtype(cells.dtype) and not pd.api.types.is_bool_dtype(cells.dtype):
        weights = cells.to_numpy(dtype=np.float64)
    else:
        spelled = [spelled_number(str(text), args.decimal) for text in cells]
        bad = next((row for row, number in enumerate(spelled) if number is None), None)
        if bad is not None:
            text = str(cells.iloc[bad])
            hint = _comma_hint(text, args.decimal)
            raise CommandError(f"{name}: {text!r} on {where(bad)} is not a number; the weights "
                               f"must be non-negative numbers, e.g. the counts of a frequency "
                               f"table{hint}")
        weights = np.array(spelled, dtype=np.float64)
    try:
        check_sample_weight(weights, len(weights))
    except ValueError as exc:
        bad = ~np.isfinite(weights) | (weights < 0)
        first = (f" (first: {str(cells.iloc[int(bad.argmax())])!r} on {where(int(bad.argmax()))})"
                 if bad.any() else "")
        raise CommandError(f"{name}: " + str(exc).replace("sample_weight", "the column").rstrip(".")
                           + first) from None
    return data.drop(columns=column), weights


def _rows_used(read, used):
    """The text of a result's rows, the same in ``learn`` and ``effect``: ``"32 rows"`` when
    every row read is used, else ``"32 rows read, 30 used"`` (rows of weight 0 and, under
    ``--missing complete_case``, rows with a missing cell are not used)."""
    return counted(read, "row") + ("" if used == read else f" read, {used} used")


def _weighted(weights):
    """The text of a result's weights: ``", total weight 2201"`` (empty without ``--weights``)."""
    return "" if weights is None else f", total weight {float(weights.sum()):g}"


def _column(data, text, option):
    """The column of ``data`` named ``text`` (for --x, --y)."""
    for column in data.columns:
        if str(column) == text:
            return column
    raise CommandError(f"{option} {text!r}: no such column (columns: "
                       f"{', '.join(map(str, data.columns))})")


def _state(states, text, what):
    """The state named ``text`` among ``states`` (see :class:`StateMatcher`)."""
    missing = object()
    state = StateMatcher(states)(text, missing)
    if state is missing:
        raise CommandError(f"{what}: {text!r} is not a state (states: "
                           f"{', '.join(map(str, states))})")
    return state


def _contrast(tokens):
    """``--contrast A,B`` or ``--contrast A B`` (the second form for states with a comma)."""
    if len(tokens) == 1:
        tokens = tokens[0].split(",")
    if len(tokens) != 2 or not all(tokens):
        raise CommandError(f"--contrast {' '.join(tokens)!r}: give two states of --x, the "
                           f"treated and the control one, e.g. --contrast yes,no")
    return tokens


def model_structure(args, data):
    """``--model``: the model's DAG on the columns of ``data``, as its CPDAG (and the data
    restricted to the model's nodes)."""
    from skbn.graph import dag_to_cpdag

    network = read_model(args.model)
    columns = {str(c): c for c in data.columns}
    nodes = {node: columns.get(str(node)) for node in network.nodes}
    absent = [str(node) for node, column in nodes.items() if column is None]
    if absent:
        raise CommandError(f"node(s) {absent!r} of the model {str(args.model)!r} are not "
                           f"columns of {str(args.data)!r}")
    outside = [str(c) for c in (args.x, args.y) if c not in map(str, network.nodes)]
    if outside:
        raise CommandError(f"{outside[0]!r} is not a node of the model {str(args.model)!r}")
    edges = [(nodes[u], nodes[v]) for u, v in network.edges]
    return dag_to_cpdag(list(nodes.values()), edges), data[list(nodes.values())]


def learned_structure(learner, data, weights=None):
    """The CPDAG of the structure ``learner`` finds on ``data``: its ``cpdag_`` (PC, GES),
    else the class of its DAG (a score-equivalent score cannot tell the DAGs of a class
    apart, and IDA is defined on the class)."""
    from sklearn.base import clone

    from skbn.causal import _undecided, _undecided_edges
    from skbn.graph import dag_to_cpdag, pdag_to_dag

    learner = clone(learner)
    with contextlib.redirect_stdout(sys.stderr):  # stdout holds results only
        learner.fit(data, sample_weight=weights)
    if hasattr(learner, "cpdag_"):
        try:
            pdag_to_dag(learner.cpdag_)
        except ValueError as exc:
            conflicts = len(getattr(learner, "orientation_conflicts_", ()))
            raise CommandError(
                f"the graph learned by {type(learner).__name__} is not a CPDAG ({exc}): its "
                f"conditional-independence tests contradict each other ({conflicts} orientation "
                "conflict(s), the warning above), so IDA's possible effects are not defined. Try "
                "a smaller --alpha, --method ges (always a CPDAG), or --model with a graph you "
                "trust.") from None
        undecided = _undecided_edges(learner.cpdag_)
        if undecided:
            raise CommandError(
                f"the graph learned by {type(learner).__name__} is not a CPDAG: "
                f"{_undecided(learner, undecided)}; so IDA's possible effects are not defined. "
                "Try --method ges (always a CPDAG) or "
                "--model with a graph you trust.")
        return learner.cpdag_
    return dag_to_cpdag(list(data.columns), learner.edges_)


def cmd_effect(args, log):
    import numpy as np
    import pandas as pd
    from sklearn.base import clone

    from skbn._data import encode_fit
    from skbn.causal import effect_over_graphs, ida
    from skbn.estimators import BootstrapStructure

    per_graph = Output("--per-graph", args.per_graph, "table") if args.per_graph else None
    check_outputs([per_graph] if per_graph else [], inputs=[args.data, args.model])
    if not 0 < args.level < 1:
        raise CommandError(f"--level {args.level}: give a coverage in (0, 1), e.g. 0.9")
    if args.n_resamples < 1:
        raise CommandError(f"--n-resamples {args.n_resamples}: give at least 1")
    if args.max_dags < 1:
        raise CommandError(f"--max-dags {args.max_dags}: give at least 1")
    contrast = _contrast(args.contrast) if args.contrast is not None else None
    log(f"reading {args.data}")
    data, line = read_table(args.data, sep=args.sep, na_values=args.na_values,
                            categorical=args.categorical, continuous=args.continuous,
                            decimal=args.decimal, lines=True, weights=args.weights)
    data, weights = _take_weights(args, data, line, [("--x", args.x), ("--y", args.y)])
    x, y = _column(data, args.x, "--x"), _column(data, args.y, "--y")
    if x == y:
        raise CommandError(f"--x and --y are the same column {str(x)!r}: the effect of a "
                           f"variable on itself is not a causal question")
    if args.model is not None:  # only the model's columns are read: their missing cells count
        cpdag, data = model_structure(args, data)
        source = f"the CPDAG of {args.model}"
    n_read = data.shape[0]
    data, weights, full = _complete_rows(args, data, weights, line)
    # the types (and with dropped rows the states) of the columns: those of every row
    declared, categories = full if full is not None else (_declared_types(args), None)
    pair, (x_states, y_states) = encode_fit(  # (_complete_rows left out the rows of weight 0)
        data[[x, y]], allow_continuous=True,
        column_types={c: t for c, t in declared.items() if c in (x, y)} or "auto",
        weights=weights)
    gaussian = pair.has_continuous
    if gaussian and not pair.continuous.all():  # no form of the effect for a mixed pair
        kind = dict(zip(pair.names, pair.continuous))
        discrete, continuous = ([str(c) for c in (x, y) if kind[c] == k] for k in (False, True))
        raise CommandError(f"{discrete[0]!r} is discrete and {continuous[0]!r} is continuous: "
                           f"skbn effect takes two discrete columns (a contrast of states) "
                           f"or two continuous ones (IDA's regression coefficient), not one "
                           f"of each; for a contrast, bin {continuous[0]!r} into a few "
                           f"states in a new column")
    if gaussian:  # the regression coefficient of IDA's Gaussian form: no state to give
        if contrast is not None or args.x_value is not None or args.y_value is not None:
            raise CommandError(f"--contrast, --x-value and --y-value name states of discrete "
                               f"columns; {str(x)!r} and {str(y)!r} are continuous: leave them "
                               f"out (the effect is the change in {str(y)!r} per unit of "
                               f"{str(x)!r} set)")
        x_value = y_value = None
    elif contrast is None and args.x_value is None:
        raise CommandError("give --contrast TREATED,CONTROL or --x-value STATE (--x is discrete)")
    elif contrast is not None:
        contrast = tuple(_state(x_states, t, f"--contrast (a state of --x {str(x)!r})")
                         for t in contrast)
        if contrast[0] == contrast[1]:
            raise CommandError(f"--contrast: the treated and the control state are both "
                               f"{str(contrast[0])!r}; give two different states of "
                               f"{str(x)!r}")
        x_value = None
    else:
        x_value = _state(x_states, args.x_value, f"--x-value (a state of --x {str(x)!r})")
    if gaussian:
        pass
    elif args.y_value is not None:
        y_value = _state(y_states, args.y_value, f"--y-value (a state of --y {str(y)!r})")
    elif len(y_states) == 2:
        y_value = y_states[1]  # the rule of skbn.causal for a binary outcome
    else:
        raise CommandError(f"--y {str(y)!r} has {len(y_states)} states "
                           f"({', '.join(map(str, y_states))}): give --y-value, the outcome "
                           f"state whose probability the effect is about")
    # the learner of the bootstrap (and of the point estimate without --model); --n-jobs
    # parallelises the resamples
    learner = build_estimator(argparse.Namespace(**{**vars(args), "target": None,
                                                    "missing": None, "n_jobs": None}), data)
    if categories is not None:  # the states and types of every row (_complete_rows)
        learner.set_params(**{name: value for name, value in (("column_types", declared),
                                                              ("categories", categories))
                              if name in learner.get_params()})
    if args.guard_interrupts and args.n_jobs not in (None, 1):
        _guard_interrupts()
    if args.model is None:
        log(f"learning the structure with {args.method}")
        start = time.perf_counter()
        cpdag = learned_structure(learner, data, weights)
        log(f"learned in {time.perf_counter() - start:.2f} s")
        source = f"the CPDAG learned by {args.method}"
    query = {} if gaussian else dict(x_value=x_value, contrast=contrast, y_value=y_value)
    point = ida(data, cpdag, x, y, column_types=declared or "auto", sample_weight=weights, **query)
    # the declared types and states are the bootstrap's (it encodes the resamples), not its
    # learner's
    inner = clone(learner)
    inner.set_params(**{name: "auto" for name in ("column_types", "categories")
                        if name in inner.get_params()})
    boot = BootstrapStructure(inner, n_resamples=args.n_resamples, keep_graphs=True,
                              fit_parameters=False, n_jobs=args.n_jobs,
                              random_state=args.random_state, column_types=declared or "auto",
                              categories=categories or "auto")
    log(f"fitting {args.n_resamples} bootstrap resamples with {args.method}")
    start = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):
        boot.fit(data, sample_weight=weights)
    log(f"fitted in {time.perf_counter() - start:.2f} s")
    try:
        summary = effect_over_graphs(data, boot, x, y, **query, level=args.level,
                                     sample_weight=weights,
                                     parameter_uncertainty=args.parameter_uncertainty,
                                     random_state=args.random_state, max_dags=args.max_dags)
    except ValueError as exc:
        if "max_dags" not in str(exc):
            raise
        raise CommandError(f"the equivalence class of a bootstrap graph has more than "
                           f"--max-dags {args.max_dags} DAGs: raise --max-dags, e.g. "
                           f"--max-dags {10 * args.max_dags}") from None

    if gaussian:
        what = f"d E[{y}] / d do({x}) (linear Gaussian: the change in {y} per unit of {x} set)"
        column = "effect"
    elif contrast is None:
        what = f"P({y}={y_value} | do({x}={x_value}))"
        column = what
    else:
        what = (f"P({y}={y_value} | do({x}={contrast[0]})) - "
                f"P({y}={y_value} | do({x}={contrast[1]}))")
        column = "effect"
    out(f"effect of {x} on {y}: {what}")
    out(f"data: {args.data}, {_rows_used(n_read, data.shape[0])}{_weighted(weights)}")
    out(f"IDA (local) on {source}: one effect per possible parent set of {x}")
    width = max([len("parents of " + str(x))]
                + [len(", ".join(map(str, p)) or "(none)") for p in point["parents"]])
    out(f"  {'parents of ' + str(x):{width}s}  {'effect':>8s}")
    for parents, y_is_parent, value in zip(point["parents"], point["y_is_parent"],
                                           point[column]):
        note = f"   ({y} is a parent of {x}: no effect)" if y_is_parent else ""
        out(f"  {', '.join(map(str, parents)) or '(none)':{width}s}  {value:8.4f}{note}")
    extra = ", one posterior draw of the parameters per DAG" if args.parameter_uncertainty \
        else ""
    out(f"bootstrap: {counted(args.n_resamples, 'resample')}, {args.method}, each graph's equivalence "
        f"class ({counted(len(summary.effects), 'DAG')}){extra}")
    rows = [("mean effect", f"{summary.estimate:.4f}"),
            (f"{100 * args.level:g}% interval",
             f"[{summary.interval[0]:.4f}, {summary.interval[1]:.4f}]"),
            (f"P({x} causes {y})", f"{summary.prob_causes:.4f}")]
    failed = np.isnan(summary.effects)
    if failed.any():  # (the warning above says why): mean and interval are over the others
        rows.append(("no estimate", f"{int(failed.sum())} of {len(failed)} DAGs (weight "
                                    f"{summary.weights[failed].sum():.4f}): the mean and "
                                    f"interval are over the other {int((~failed).sum())}"))
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        out(f"  {label:{width}s}  {value}")
    if per_graph is not None:
        table = pd.DataFrame({"effect": summary.effects, "weight": summary.weights,
                              "causes": summary.causes})
        write_outputs([(per_graph, lambda path: write_table(table, path))], log)
    return 0



# ---------------------------------------------------------------------- citest
def cmd_citest(args, log):
    from skbn.checking import _prepared_test, _run_prepared

    log(f"reading {args.data}")
    data, line = read_table(args.data, sep=args.sep, na_values=args.na_values,
                            categorical=args.categorical, continuous=args.continuous,
                            decimal=args.decimal, lines=True, weights=args.weights)
    data, weights = _take_weights(args, data, line, [("X", args.x), ("Y", args.y)]
                                  + [("--given", text) for text in args.given])
    x, y = _column(data, args.x, "X"), _column(data, args.y, "Y")
    given = [_column(data, text, "--given") for text in args.given]
    declared = _declared_types(args)
    ci_test, encoded = _prepared_test(data, x, y, given, args.ci_test or "auto", weights, "auto",
                                      declared or "auto", args.missing)
    if args.alpha is not None:  # on the test resolved for these columns (a fresh object)
        if "alpha" not in ci_test.get_params():
            raise CommandError(f"--alpha does not apply to the {type(ci_test).__name__} test")
        if not 0 <= args.alpha <= 1:
            raise CommandError(f"--alpha {args.alpha}: give a level in [0, 1], e.g. 0.05")
        ci_test.set_params(alpha=args.alpha)
    result = _run_prepared(ci_test, encoded)
    level = ci_test.get_params().get("alpha")
    given_text = f" | {', '.join(map(str, given))}" if given else ""
    out(f"{type(ci_test).__name__} test of {x} _||_ {y}{given_text} on {args.data}: "
        f"{counted(encoded.n_samples, 'row')}{_weighted(encoded.weights)}")
    out(f"statistic: {result.statistic:.6g}")
    out(f"dof: {result.dof:g}")
    if ci_test.pvalue_is_probability:
        out(f"p-value: {result.pvalue:.6g}")
    else:
        out(f"posterior probability of independence: {result.pvalue:.6g}")
    rule = ""
    if level is not None and ci_test.pvalue_is_probability:
        rule = f" (p-value {'>' if result.independent else '<='} {level:g})"
    out(f"decision: {'independent' if result.independent else 'dependent'}{rule}")
    return 0


# ---------------------------------------------------------------------- demo
DEMO_ESTIMATORS = ("hill_climb", "tabu", "ges", "pc", "exact", "k2", "chow_liu")


def run_demo(network="asia", estimator="hill_climb", n_samples=10_000, random_state=0):
    """Learn a known network back from rows sampled from it and print how close it got.

    Prints the learned edges, the structural Hamming distance to the truth and the
    held-out mean log-likelihood next to the true network's. ``k2`` uses the true
    topological ordering.

    Parameters
    ----------
    network : str or path-like, default="asia"
        A built-in network name or a ``.bif`` file (:func:`skbn.datasets.load_network`).
    estimator : str, default="hill_climb"
        A learner of ``skbn learn --method``: "hill_climb", "tabu", "ges", "pc", "exact",
        "k2", "chow_liu" or "mmhc".
    n_samples : int, default=10_000
        Number of training rows sampled from the network (the held-out set has
        ``max(n_samples // 2, 1000)`` rows).
    random_state : int, default=0
        Seed of the training sample; the held-out sample uses ``random_state + 1``.

    Returns
    -------
    None
        The report is printed on standard output.
    """
    import numpy as np

    from skbn.datasets import load_network
    from skbn.metrics import structural_hamming_distance

    truth = load_network(network)
    train = truth.sample(n_samples, random_state=random_state)
    test = truth.sample(max(n_samples // 2, 1000), random_state=random_state + 1)
    cls, params = _estimator_class(estimator)
    if estimator == "k2":
        params.update(ordering=truth.topological_order(), scorer="bdeu")
    model = cls(**params)
    start = time.perf_counter()
    model.fit(train)
    elapsed = time.perf_counter() - start

    out(f"{type(model).__name__} on {network}: {counted(len(truth.nodes), 'variable')}, "
          f"{counted(n_samples, 'row')}, fit in {elapsed:.3f} s")
    out("learned edges:")
    true_edges, learned = set(truth.edges), set(model.edges_)
    for parent, child in model.edges_:
        mark = ("" if (parent, child) in true_edges else
                f"   (reversed: the true network has {child} -> {parent})" if (child, parent) in true_edges
                else "   (not in the true network)")
        out(f"  {parent} -> {child}{mark}")
    missed = [f"{a} -> {b}" for a, b in truth.edges if (a, b) not in learned and (b, a) not in learned]
    if missed:
        out(f"true edges not learned: {', '.join(missed)}")
    shd = structural_hamming_distance(truth.edges, model.edges_, nodes=truth.nodes)
    cpdag_shd = structural_hamming_distance(truth.edges, model.edges_, nodes=truth.nodes,
                                            cpdag=True)
    out(f"structural Hamming distance to the truth: {shd} "
          f"(between equivalence classes: {cpdag_shd})")
    out(f"held-out mean log-likelihood: learned {model.score(test):.4f}, "
          f"true network {np.mean(truth.log_likelihood(test)):.4f}")


def cmd_demo(args, log):
    run_demo(args.network, args.estimator, args.n_samples, args.random_state)
    return 0


# ---------------------------------------------------------------------- parser
MAIN_EPILOG = """\
examples:
  skbn demo --n-samples 2000                      learn ASIA back from 2000 sampled rows
  skbn learn survey.csv --method tabu -o m.bif --png m.png
  skbn score m.bif test.csv --per-row ll.csv
  skbn query m.bif --target T --evidence A=young S=F
  skbn sample m.bif -n 1000 -o rows.csv --random-state 0
  skbn compare true.bif m.bif
  skbn effect rows.csv --x smoke --y dysp --contrast yes,no
  skbn citest rows.csv smoke dysp --given bronc either

Without a command, `skbn [--n-samples N ...]` runs the demo. docs/cli.md has the details.
"""

LEARN_EPILOG = """\
examples:
  skbn learn data.csv                                  hill climbing with BDeu
  skbn learn data.csv --method tabu --score bic -o model.bif --png model.png
  skbn learn data.csv --method pc --alpha 0.01 --dot cpdag.dot
  skbn learn data.csv --score bdeu --ess 10 --max-indegree 3 --black-list forbidden.csv
  skbn learn data.csv --tiers "age,sex > education > occupation,residence > travel"

--black-list / --white-list: CSV files of (from, to) rows, header optional.
--tiers: a CSV file of column,tier rows (smaller tier = earlier), or inline tiers
separated by '>' with commas inside a tier; no edge may point into an earlier tier.
Options a method cannot honour are errors (e.g. --alpha with hill_climb).
CSV cells are read as written: only empty cells are missing, unless --na-values
lists texts that mark a missing cell (e.g. --na-values NA ?). A column of numbers is
numeric (measurements continuous, whole numbers discrete; --decimal , reads decimal
commas); every other column is text, and so is a column of codes such as 01, 007, +1
or 1e1 (read as numbers they would be renamed 1, 7, 1, 10), with a warning.
Every row must have as many fields as the header: a shorter row (a truncated line)
or a longer one is an error naming its line (the header is line 1); an empty field
(x,,z) is a missing cell.
Every output is checked before fitting and replaced only once fully written.
"""


EFFECT_EPILOG = """\
examples:
  skbn effect asia.csv --x smoke --y dysp --contrast yes,no --random-state 0
  skbn effect asia.csv --x smoke --y dysp --contrast yes,no --model m.json
  skbn effect data.csv --x drug --y outcome --x-value high --y-value cured --method pc
  skbn effect asia.csv --x lung --y dysp --contrast yes,no --parameter-uncertainty

The point estimates are IDA's (Maathuis, Kalisch & Buhlmann 2009): the effect adjusted
for each parent set --x can have in the CPDAG, one per line. The interval is over the
DAGs learned by --method on --n-resamples bootstrap resamples of DATA, each standing
for its equivalence class (--parameter-uncertainty adds the estimation error of the
parameters). --y-value may be omitted when --y has two states (the second one is used).
When --x and --y are continuous, leave out --contrast, --x-value and --y-value: the effect
is IDA's regression coefficient, the change in --y per unit of --x set:
  skbn effect measurements.csv --x dose --y response --random-state 0
"""


CITEST_EPILOG = """\
examples:
  skbn citest data.csv A B                               A and B independent?
  skbn citest data.csv A B --given C D                   given C and D
  skbn citest data.csv A B --given C --ci-test g_test --alpha 0.01
  skbn citest data.csv x y --given z --ci-test zf        Fisher's z (pcalg's gaussCItest)

The columns are read as 'skbn learn' reads them (--categorical, --continuous); the
statistic and p-value are those of skbn.checking.ci_test (bnlearn's ci.test with
test = "x2-adf", "mi-adf", "zf", "mi-g", "cor", "mi-cg").
"""

class _Parser(argparse.ArgumentParser):
    """argparse with a one-line usage error: ``skbn learn: error: ... (see --help)``."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {' '.join(message.split())} "
                              f"(see {self.prog} --help)\n")


def _add_common(parser):
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="progress and timings on stderr (-vv: more)")
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of an error instead of one line")


def _add_na_values(parser):
    parser.add_argument("--na-values", nargs="+", action="extend", default=[], metavar="TEXT",
                        help="CSV cells with this text are missing (default: only empty "
                             "cells), e.g. --na-values NA ?")
    parser.add_argument("--decimal", choices=[".", ","], default=".", metavar="MARK",
                        help="the decimal mark of the numbers: '.' (default) or ',' for "
                             "decimal commas, as European spreadsheets write them (with --sep ';')")


def _add_weights(parser, use="a weight w counts as w copies of the row"):
    """``--weights COLUMN``: a column of row weights (``sample_weight``), read by
    :func:`_take_weights`."""
    parser.add_argument("--weights", metavar="COLUMN",
                        help=f"a column of non-negative row weights, e.g. the counts of a "
                             f"frequency table (R's as.data.frame(table) 'Freq'): {use}; the "
                             f"column is not a variable")


def _add_learner_options(parser):
    """The structure learner's options (``learn``, ``effect``; see :func:`build_estimator`)."""
    parser.add_argument("--method", choices=list(METHODS), default="hill_climb")
    parser.add_argument("--score", choices=SCORES, help="score of score-based methods")
    parser.add_argument("--ess", type=float, help="equivalent sample size of --score bdeu")
    parser.add_argument("--ci-test", choices=CI_TESTS,
                        help="independence test of constraint-based methods")
    parser.add_argument("--alpha", type=float, help="level of the independence test")
    parser.add_argument("--max-indegree", type=int, help="largest number of parents")
    parser.add_argument("--black-list", metavar="CSV", help="forbidden (from, to) edges")
    parser.add_argument("--white-list", metavar="CSV", help="required (from, to) edges")
    parser.add_argument("--tiers", metavar="CSV_OR_SPEC", help="temporal tiers (see below)")
    parser.add_argument("--ordering", metavar="A,B,...", help="variable ordering for k2")
    parser.add_argument("--max-memory", metavar="SIZE",
                        help="memory limit of --method exact, e.g. 8GB (default 4GB)")


def _add_data_options(parser):
    """How a data file is read (``learn``, ``effect``; see :func:`read_table`)."""
    parser.add_argument("--categorical", nargs="+", action="extend", default=[],
                        metavar="COLUMN",
                        help="columns of numbers whose values are categories (read as text), "
                             "e.g. codes with more than 32 values")
    parser.add_argument("--continuous", nargs="+", action="extend", default=[],
                        metavar="COLUMN",
                        help="columns of numbers that are measurements (continuous), e.g. "
                             "integer-valued ones (columns of non-integer numbers are "
                             "continuous anyway)")
    parser.add_argument("--sep", default=",", help="CSV field separator (default ',')")
    _add_na_values(parser)


def build_parser():
    formatter = argparse.RawDescriptionHelpFormatter
    parser = _Parser(
        prog="skbn", formatter_class=formatter, epilog=MAIN_EPILOG,
        description="Learn, score, query, sample and compare Bayesian networks (discrete, "
                    "Gaussian and conditional Gaussian); "
                    "estimate causal effects.")
    from skbn._version import __version__

    parser.add_argument("--version", action="version", version=f"skbn {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = commands.add_parser(
        "demo", formatter_class=formatter, help="learn a known network back from samples",
        description=run_demo.__doc__.splitlines()[0],
        epilog="examples:\n  skbn demo\n  skbn demo --network alarm.bif --estimator pc "
               "--n-samples 5000\n")
    demo.add_argument("--network", default="asia", help="built-in name or path to a .bif file")
    demo.add_argument("--estimator", choices=DEMO_ESTIMATORS, default="hill_climb",
                      help="k2 uses the true topological ordering")
    demo.add_argument("--n-samples", type=int, default=10_000)
    demo.add_argument("--random-state", type=int, default=0)
    _add_common(demo)
    demo.set_defaults(handler=cmd_demo)

    learn = commands.add_parser(
        "learn", formatter_class=formatter, help="learn a network from a data file",
        description="Learn the structure and the CPTs of a network from a CSV or Parquet "
                    "file of discrete and continuous columns; print the edges and the "
                    "score.",
        epilog=LEARN_EPILOG)
    learn.add_argument("data", help="CSV (cells read as written) or Parquet file")
    _add_learner_options(learn)
    learn.add_argument("--target", help="column to predict (predict_proba of the model)")
    learn.add_argument("--missing", metavar="STRATEGY",
                       help="how the method handles missing values (methods with a "
                            "'missing' parameter only)")
    learn.add_argument("--em-max-iter", type=int, metavar="N",
                       help="most EM iterations, and structural-EM searches, of --missing em "
                            "(default 100)")
    learn.add_argument("--n-jobs", type=int, help="parallel workers (joblib)")
    learn.add_argument("--random-state", type=int,
                       help="seed of randomised methods (ignored by deterministic ones)")
    _add_data_options(learn)
    _add_weights(learn)
    learn.add_argument("-o", "--output", metavar="MODEL", help="write the model (.bif or .json)")
    learn.add_argument("--dot", metavar="FILE", help="write the graph in Graphviz DOT")
    learn.add_argument("--png", metavar="FILE",
                       help="draw the graph (needs matplotlib: pip install matplotlib)")
    _add_common(learn)
    learn.set_defaults(handler=cmd_learn)

    score = commands.add_parser(
        "score", formatter_class=formatter, help="log-likelihood of data under a model",
        description="Mean (and per-row) log-likelihood of a data file under a model; "
                    "missing cells and absent columns are summed out.",
        epilog="examples:\n  skbn score model.bif test.csv\n"
               "  skbn score model.json test.parquet --per-row ll.csv\n")
    score.add_argument("model", help=".bif or .json model")
    score.add_argument("data", help="CSV or Parquet file")
    score.add_argument("--per-row", metavar="CSV", help="write one log-likelihood per row")
    score.add_argument("--sep", default=",", help="CSV field separator (default ',')")
    _add_na_values(score)
    _add_weights(score, "the mean log-likelihood is the weighted mean")
    _add_common(score)
    score.set_defaults(handler=cmd_score)

    query = commands.add_parser(
        "query", formatter_class=formatter, help="posterior of variables given evidence",
        description="Exact posterior distribution of --target given --evidence.",
        epilog="examples:\n  skbn query asia.bif --target lung --evidence smoke=yes xray=yes\n"
               "  skbn query model.json --target T R\n")
    query.add_argument("model", help=".bif or .json model")
    query.add_argument("--target", nargs="+", required=True, metavar="NODE")
    query.add_argument("--evidence", nargs="*", default=[], metavar="NODE=STATE")
    _add_common(query)
    query.set_defaults(handler=cmd_query)

    sample = commands.add_parser(
        "sample", formatter_class=formatter, help="draw rows from a model",
        description="Forward sampling: rows drawn from the model's joint distribution.",
        epilog="examples:\n  skbn sample survey.bif -n 1000 -o survey.csv --random-state 0\n")
    sample.add_argument("model", help=".bif or .json model")
    sample.add_argument("-n", "--n-samples", type=int, default=1000)
    sample.add_argument("-o", "--output", metavar="FILE",
                        help="CSV or Parquet file (default, or -: CSV on stdout)")
    sample.add_argument("--random-state", type=int)
    sample.add_argument("--sep", default=",", help="CSV field separator (default ',')")
    _add_common(sample)
    sample.set_defaults(handler=cmd_sample)

    compare = commands.add_parser(
        "compare", formatter_class=formatter, help="structural distance between two models",
        description="SHD, CPDAG SHD, skeleton and arrowhead precision/recall/F1 of a "
                    "learned model against the true one.",
        epilog="examples:\n  skbn compare true.bif learned.bif\n")
    compare.add_argument("true", help="true .bif or .json model")
    compare.add_argument("learned", help="learned .bif or .json model")
    _add_common(compare)
    compare.set_defaults(handler=cmd_compare)

    effect = commands.add_parser(
        "effect", formatter_class=formatter,
        help="causal effect of one variable on another, with an interval",
        description="What happens to --y if we set --x? IDA's possible effects (one per "
                    "parent set --x can have in the CPDAG of --model, or of the structure "
                    "learned from DATA), then the effect over the graphs learned on "
                    "bootstrap resamples of DATA: its mean, an interval and the probability "
                    "that --x causes --y.",
        epilog=EFFECT_EPILOG)
    effect.add_argument("data", help="CSV (cells read as written) or Parquet file")
    effect.add_argument("--x", required=True, metavar="COLUMN", help="the treatment")
    effect.add_argument("--y", required=True, metavar="COLUMN", help="the outcome")
    what = effect.add_mutually_exclusive_group()  # neither on continuous --x and --y
    what.add_argument("--contrast", nargs="+", metavar="TREATED,CONTROL",
                      help="average causal effect P(y | do(x=TREATED)) - P(y | do(x=CONTROL))"
                           " (or --contrast TREATED CONTROL)")
    what.add_argument("--x-value", metavar="STATE", help="P(y | do(x=STATE))")
    effect.add_argument("--y-value", metavar="STATE",
                        help="the outcome state (default: the second state of a binary --y)")
    effect.add_argument("--model", metavar="MODEL",
                        help="take the point estimates' structure from this .bif/.json model "
                             "(e.g. written by skbn learn -o) instead of learning it")
    _add_learner_options(effect)
    effect.add_argument("--n-resamples", type=int, default=100,
                        help="bootstrap resamples (default 100)")
    effect.add_argument("--level", type=float, default=0.9,
                        help="coverage of the interval (default 0.9)")
    effect.add_argument("--parameter-uncertainty", action="store_true",
                        help="each DAG's effect from one posterior draw of its parameters")
    effect.add_argument("--max-dags", type=int, default=1000,
                        help="largest equivalence class of a bootstrap graph that is "
                             "enumerated (default 1000)")
    effect.add_argument("--n-jobs", type=int, help="parallel workers for the resamples")
    effect.add_argument("--missing", choices=["error", "complete_case"], default="error",
                        help="missing cells: an error (default), or learn and estimate on the "
                             "rows without one")
    effect.add_argument("--random-state", type=int,
                        help="seed of the resamples and of the parameter draws")
    _add_data_options(effect)
    _add_weights(effect)
    effect.add_argument("--per-graph", metavar="CSV",
                        help="write the effect, weight and 'causes' of every bootstrap DAG")
    _add_common(effect)
    effect.set_defaults(handler=cmd_effect)

    citest = commands.add_parser(
        "citest", formatter_class=formatter,
        help="test whether two columns are independent given others",
        description="One conditional-independence test of X and Y given the --given columns, "
                    "as PC runs it on an edge (bnlearn's ci.test): print the statistic, its "
                    "degrees of freedom, the p-value and the decision.",
        epilog=CITEST_EPILOG)
    citest.add_argument("data", help="CSV (cells read as written) or Parquet file")
    citest.add_argument("x", metavar="X", help="a column")
    citest.add_argument("y", metavar="Y", help="another column")
    citest.add_argument("--given", nargs="+", action="extend", default=[], metavar="COLUMN",
                        help="the conditioning columns (none: an unconditional test)")
    citest.add_argument("--ci-test", choices=CI_TESTS,
                        help="the test (default: chi_square on discrete columns, zf on "
                             "continuous ones, mi-cg on a mixture, as --method pc)")
    citest.add_argument("--alpha", type=float, help="level of the test (default 0.05)")
    citest.add_argument("--missing", choices=["error", "complete_case"], default="error",
                        help="missing cells in X, Y or --given: an error (default), or test on "
                             "the rows observing them all")
    _add_data_options(citest)
    _add_weights(citest)
    _add_common(citest)
    citest.set_defaults(handler=cmd_citest)
    return parser


# ---------------------------------------------------------------------- entry point
def main(argv=None):
    """Run the command line; return the exit status (0 on success).

    Without a command the demo runs, so ``python -m skbn --n-samples 2000`` works as before
    the subcommands existed.

    Parameters
    ----------
    argv : list of str or None, default=None
        The command-line arguments, without the program name; ``sys.argv[1:]`` when None
        (then this is the ``skbn`` process, and Ctrl-C is also kept away from parallel
        workers).

    Returns
    -------
    int
        The exit status: 0 on success, 1 for an error (one line on stderr), 2 for a
        malformed command line, 130 when interrupted.
    """
    real_process = argv is None  # the console script / python -m skbn, not a caller
    argv = list(sys.argv[1:] if argv is None else argv)
    leading = 0  # `skbn -v learn ...` means `skbn learn ... -v`
    while leading < len(argv) and argv[leading] in ("-v", "-vv", "--verbose", "--debug"):
        leading += 1
    if leading < len(argv) and argv[leading] in COMMANDS:
        argv = argv[leading:] + argv[:leading]
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv.insert(0, "demo")
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        print("skbn: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    args.guard_interrupts = real_process

    def log(message):
        if args.verbose:
            print(f"[skbn {args.command}] {message}", file=sys.stderr, flush=True)

    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            status = args.handler(args, log)
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                _close_stdout()
            return status
        except KeyboardInterrupt:
            print("skbn: interrupted", file=sys.stderr, flush=True)
            return EXIT_INTERRUPTED
        except BrokenPipeError:  # the reader of stdout left (`| head`): nothing to say
            _close_stdout()
            return 0
        except Exception as exc:
            if args.debug:
                raise
            print(f"skbn {args.command}: error: {_typable(_message(exc, args))}",
                  file=sys.stderr, flush=True)
            return EXIT_ERROR


#: Errors that describe the input or the environment (the others are bugs of skbn).
_INPUT_ERRORS = (CommandError, ValueError, TypeError, KeyError, OSError, ImportError,
                 NotImplementedError, ArithmeticError)


def _message(exc, args):
    """The one line of an error: options for parameter names, a hint for memory and bugs."""
    text = _one_line(exc)
    if isinstance(exc, CommandError):
        return text
    text = _with_options(text)
    if isinstance(exc, MemoryError):
        if "--" in text:  # a planned refusal that names its option
            return text
        hint = "; try --max-indegree or fewer columns" if args.command == "learn" else ""
        return f"out of memory ({text}){hint}"
    if isinstance(exc, _INPUT_ERRORS):
        return text
    return (f"internal error {type(exc).__name__}: {text} (a bug in skbn: please report it; "
            f"--debug shows the traceback)")


#: A column name as Python's ``repr`` writes it in a message: between single quotes, or
#: between double quotes when it holds a single quote (``"'popul'"``).
_QUOTED_NAME = r"""('[^'\\]*'|"[^"\\]*")"""


def _with_options(text):
    """Name the command-line option where a message names an estimator parameter:
    ``max_memory='4GB'`` -> ``--max-memory 4GB``, ``max_indegree`` -> ``--max-indegree``."""
    text = text.replace("e.g. sample_weight / sample_weight.max()",
                        "e.g. divide the --weights column by its largest value")
    text = re.sub(r"\bInput X\b", "The data", re.sub(r"\bof X\b", "of the data", text))
    # the encoder's advice on reading missing-value markers: the CSV reader's options
    text = re.sub(r"read the file with pd\.read_csv\(path, keep_default_na=False, na_values=\['', "
                  r"'(.*?)'\]\): only empty cells and '.*?' are then missing, and the learner's "
                  r"missing= mode handles them", lambda m: f"pass --na-values {m.group(1)}", text)
    text = text.replace("If the file spells a state \"None\", \"NA\", \"NaN\" or \"null\", "
                        "pandas.read_csv read it as missing: read the file with keep_default_na=False, "
                        "na_values=[''] to keep such states (only empty cells missing; a file "
                        "written by R marks its missing cells NA: na_values=['', 'NA']).",
                        "(Missing cells are the empty ones and those given to --na-values.)")
    # the score-time warning of a state read as missing: the command line reads cells as written
    text = re.sub(r"pandas\.read_csv reads the text ('.*?') as missing by default, and missing cells "
                  r"are marginalised, not scored as that state\. If the file spells the state so, read "
                  r"it with keep_default_na=False, na_values=\[''\] \(a file written by R marks its "
                  r"missing cells NA: na_values=\['', 'NA'\]\)\.",
                  lambda m: f"missing cells are marginalised, not scored as that state. If the file "
                            f"spells the state {m.group(1)}, leave {m.group(1)} out of --na-values.",
                  text)
    # the encoder's advice on states that differ by spaces or quotes: the file is the place
    text = re.sub(r"clean the column, e\.g\. X\[.*?\]\.str\.strip\(\), or read the file with "
                  r"pd\.read_csv\(path, skipinitialspace=True\); declaring the states with "
                  r"categories= keeps them as they are without this warning\.",
                  "remove those spaces or quotes from the file.", text)
    # the point-mass advice: the option that declares a column discrete; no command fits a given graph
    text = text.replace("declare a column with few values discrete with column_types=;",
                        "declare a column with few values discrete with --categorical;")
    text = text.replace("; a graph you know can be fitted as it is with FixedStructure(edges=...).", ".")
    # structural EM's note on configurations never observed: no command refits a given graph
    text = re.sub(r" FixedStructure\(edges=model\.edges_, missing='em'\) always starts from .*?, "
                  r"to the same likelihood\.", "", text)
    # parameter EM that did not converge in a learner without em_max_iter (PC's available
    # case): no command refits a given graph
    text = text.replace("to run EM longer, fit FixedStructure(edges=model.edges_, missing='em', "
                        "em_max_iter=...) on the same data",
                        "to run EM longer, learn with a method that takes --em-max-iter")
    # parameter EM that did not converge: the command has no em_trace_ and no option for em_tol
    text = re.sub(r"the objective \(em_trace_\) still changed by (.*?), more than em_tol=(\S+?)\. ",
                  r"the objective still changed by \1, more than EM's tolerance \2. ", text)
    # K2's warning without an ordering: the option, and methods rather than classes
    text = text.replace("K2Structure(ordering=None) takes", "Without --ordering, k2 takes")
    text = text.replace("Pass ordering= (a known causal or temporal order of the columns, e.g. "
                        "list(X.columns) if they are in one), or use a learner that needs none, e.g. "
                        "HillClimbStructure() or PCStructure().",
                        "Pass --ordering with a known causal or temporal order of the columns, or use "
                        "a method that needs none, e.g. --method hill_climb or --method pc.")
    # the encoder's advice on missing cells: the option's values, unquoted
    text = text.replace("missing='em' / 'complete_case'", "--missing em or complete_case")
    # the encoder's advice to declare a numeric column discrete, in the CLI's words; a name
    # is kept as Python quotes it ('a', or "'a'" for a name holding a single quote), which
    # a shell reads back as the name
    name = _QUOTED_NAME
    text = re.sub(rf"declare them: pass categories=\{{{name}: \[\.\.\.\]\}}.*?astype\('category'\)",
                  lambda m: f"declare it discrete with --categorical {m.group(1)}", text)
    text = re.sub(rf"column_types=\{{{name}: 'discrete'\}} \(or pass categories=.*?astype\('category'\)\)",
                  lambda m: f"--categorical {m.group(1)}", text)
    text = re.sub(rf"column_types=\{{{name}: 'discrete'\}}", lambda m: f"--categorical {m.group(1)}", text)
    text = re.sub(rf"column_types=\{{{name}: 'continuous'\}}", lambda m: f"--continuous {m.group(1)}", text)
    text = re.sub(rf"column_types=\{{((?:{name}: 'continuous'(?:, )?)+)\}}",
                  lambda m: "--continuous " + " ".join(re.findall(rf"{name}(?=: )", m.group(1))), text)
    text = text.replace(" (column_types='continuous' declares every column)", "")
    text = text.replace("'continuous' in column_types too", "with --continuous too")
    text = text.replace("column_types={name: 'discrete'}", "--categorical COLUMN")
    text = text.replace("column_types={name: 'continuous'}", "--continuous COLUMN")
    text = text.replace("column_types='continuous'", "--continuous")
    # the encoder's advice on a count column: the option that takes it out of the data
    text = re.sub(rf"^(Column {name} is numeric.*?)drop it from X and pass it as sample_weight",
                  lambda m: f"{m.group(1)}pass --weights {m.group(2)}", text)
    text = re.sub(rf"drop {name} from X and pass it as sample_weight",
                  lambda m: f"pass --weights {m.group(1)}", text)  # (a frequency table's)
    # a fit's advice to learn the structure alone: the command always fits the network
    text = text.replace(", learn the structure alone with fit_parameters=False,", ",")
    text = text.replace(", or learn the structure alone with fit_parameters=False.", ".")
    text = text.replace(" (fit_parameters=True)", "")
    # skbn citest: the test's parameter is ci_test(test=...)
    text = re.sub(r"^test=(\w+) applies", r"--ci-test \1 applies", text)
    text = text.replace("Use test='auto' or one of", "Use ci_test='auto' or one of")
    for parameter in ("scorer", "ci_test"):  # "auto" is the option left out
        text = text.replace(f"Use {parameter}='auto' or one of",
                            f"Leave {OPTION_OF[parameter]} out (the method's default for these "
                            f"data) or use one of")
    for parameter, option in OPTION_OF.items():
        text = text.replace(f"({parameter})", f"({option})")  # (a parameter named alone)
        text = re.sub(rf"^The '{parameter}' parameter", f"{option}: the '{parameter}' parameter",
                      text)
        text = re.sub(rf"(?<![\w'\"-]){parameter}=(['\"]?)([^'\",;)\s]*)\1",
                      lambda m, option=option: f"{option} {m.group(2)}", text)
        if "_" in parameter:
            text = re.sub(rf"(?<![\w'\"-]){parameter}(?![\w'\"])", option, text)
    return text


def _one_line(exc):
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    text = " ".join(text.split())
    return text or type(exc).__name__


def _guard_interrupts():
    """Keep Ctrl-C away from worker processes; turn it into KeyboardInterrupt here.

    A terminal sends SIGINT to every process of the foreground group, so joblib's workers
    would each print a traceback. SIGINT is blocked in this process (a blocked signal stays
    blocked in the processes it starts, so the workers never see it) and one thread waits
    for it: the first Ctrl-C raises KeyboardInterrupt in the main thread (through SIGUSR1,
    which also interrupts a blocking wait), a second one exits at once. Called before a
    fit with ``--n-jobs``. The multiprocessing resource tracker is started first: starting
    it later would unblock SIGINT in the thread that starts it.
    """
    import signal
    import threading

    if not hasattr(signal, "pthread_sigmask") or not hasattr(signal, "SIGUSR1") \
            or threading.current_thread() is not threading.main_thread():
        return
    try:
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    except (ImportError, OSError):
        pass

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    main_id = threading.main_thread().ident
    try:
        signal.signal(signal.SIGUSR1, interrupt)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    except (OSError, ValueError):
        return

    def wait():
        signal.sigwait({signal.SIGINT})
        signal.pthread_kill(main_id, signal.SIGUSR1)
        signal.sigwait({signal.SIGINT})
        print("skbn: interrupted", file=sys.stderr, flush=True)
        os._exit(EXIT_INTERRUPTED)

    threading.Thread(target=wait, name="skbn-interrupt", daemon=True).start()
