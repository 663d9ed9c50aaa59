"""Out-of-core fitting: data given as chunks, compressed to weighted distinct rows.

A discrete data set is summarised exactly by its distinct rows and their numbers of copies:
every count table of every family is

    N_ijk = sum over rows n of [x_n in cell ijk] = sum over distinct rows d of c_d [x_d in cell ijk],

where ``c_d`` is the number of copies of the distinct row ``d``. With the weighted counting
engine (integer row weight ``w`` == ``w`` copies of the row, bit for bit), learning on the
distinct rows with weights ``c_d`` therefore gives the same scores, tests, graph and CPTs as
learning on all the rows, while memory grows with the number of *distinct* rows only.

:func:`encode_chunks` reads the chunks one at a time. Every chunk is encoded column by
column with the checks of the in-memory encoder (:mod:`skbn._data`), reduced to its distinct
rows, and its codes are mapped into a running state table per column (states numbered in the
order first seen). The accumulated distinct rows are merged again whenever they have doubled
since the last merge. At the end the state spaces are fixed exactly as the in-memory encoder
fixes them for the concatenated data (pandas categories, the ``categories=`` parameter, or
the sorted observed values), the codes are renumbered and duplicates merged a last time.

Missing cells (NaN/None), when the learner's ``missing`` mode accepts them, keep the code
``-1`` of the in-memory encoder: a distinct row is then a pattern of observed values *and*
missing cells (``-1`` is one more value of its column for the compression), so
``missing="complete_case"`` drops exactly the rows it drops in memory, PC's test-wise
deletion counts exactly the same rows, and EM completes every distinct incomplete row once,
weighted by its number of copies (the expected counts of ``c`` copies of a row are ``c``
times those of one copy).

What is a chunked ``X`` (:func:`is_chunked`)
-------------------------------------------
* an iterator (a generator, ``map``, ``iter(list)``, a pyarrow ``RecordBatchReader``);
* a list or tuple that is not empty and whose items are all pandas DataFrames;
* an object with a ``to_batches()`` method (pyarrow ``Table`` and ``dataset.Dataset``):
  its record batches are the chunks;
* a dask DataFrame (an object with ``to_delayed()`` and ``npartitions``): its partitions
  are the chunks, computed one at a time.

Everything else (DataFrame, ndarray, list of rows, ...) is in-memory data as before. Each
chunk must be a pandas DataFrame or have a ``to_pandas()`` method (pyarrow ``RecordBatch``
or ``Table``, polars); all chunks must have the same column labels (in any order; the
first chunk's order is used).
"""

from collections.abc import Iterator

import numpy as np
import pandas as pd

from skbn._counting import config_ids, count_cells
from skbn._data import (
    MAX_STATES,
    EncodedData,
    _as_columns,
    _code_dtype,
    _codes_for,
    _infer_states,
    _user_states,
)
from skbn.utils._sklearn_compat import validate_data

__all__ = ["encode_chunks", "is_chunked"]

#: The accumulated distinct rows are merged when they exceed this many rows and have
#: doubled since the last merge (amortised O(distinct rows) work per row).
MERGE_FLOOR = 1 << 18


def is_chunked(X):
    """Whether ``X`` is chunked data (see the module docstring for the rule)."""
    if isinstance(X, (pd.DataFrame, pd.Series, np.ndarray)):
        return False
    if isinstance(X, Iterator):
        return True
    if isinstance(X, (list, tuple)):
        return len(X) > 0 and all(isinstance(item, pd.DataFrame) for item in X)
    if callable(getattr(X, "to_batches", None)):
        return True
    return callable(getattr(X, "to_delayed", None)) and hasattr(X, "npartitions")


def _iter_chunks(X):
    """The chunks of ``X`` as pandas DataFrames, read lazily."""
    if isinstance(X, (Iterator, list, tuple)):
        items = X
    elif callable(getattr(X, "to_batches", None)):
        items = X.to_batches()
    else:  # dask DataFrame: one partition at a time
        items = (partition.compute() for partition in X.to_delayed())
    for index, chunk in enumerate(items):
        if isinstance(chunk, pd.DataFrame):
            yield index, chunk
        elif callable(getattr(chunk, "to_pandas", None)):
            yield index, chunk.to_pandas()
        else:
            raise TypeError(
                f"Chunk {index} of X is a {type(chunk).__name__}; every chunk of chunked X must "
                "be a pandas DataFrame or have a to_pandas() method (pyarrow RecordBatch/Table)."
            )


class _RunningStates:
    """States of one column seen so far, numbered in the order first seen."""

    def __init__(self, name, declared=None):
        self.name = name
        self.declared = declared  # pandas categories of the first chunk, fixed
        self.labels = [] if declared is None else list(declared)
        self.index = {label: code for code, label in enumerate(self.labels)}
        self.observed = False  # some chunk has an observed (non-missing) cell

    def codes(self, column, chunk_index, allow_missing=False):
        """Running codes of one chunk's column (checked as the in-memory encoder checks);
        ``-1`` marks a missing cell when ``allow_missing``, else a missing cell is refused."""
        categorical = isinstance(column.dtype, pd.CategoricalDtype)
        if (self.declared is not None) != categorical or (
            categorical and list(column.cat.categories) != self.labels
        ):
            raise ValueError(
                f"Column {self.name!r} of chunk {chunk_index} has "
                + (f"categories {list(column.cat.categories)[:20]}" if categorical
                   else "no categorical dtype")
                + " but the first chunk "
                + (f"declared categories {self.labels[:20]}" if self.declared is not None
                   else "is not categorical")
                + "; declare one CategoricalDtype for every chunk (or pass categories=)."
            )
        states = _infer_states(self.name, column.dropna() if allow_missing else column)
        local = _codes_for(self.name, column, states, allow_missing=allow_missing, allow_unknown=False)
        present = local >= 0
        self.observed = self.observed or bool(present.any())
        if categorical:
            return local
        lookup = np.array([self.index.setdefault(s, len(self.index)) for s in states], dtype=np.int64)
        self.labels.extend(list(self.index)[len(self.labels):])
        if len(self.labels) > MAX_STATES:
            raise ValueError(
                f"Column {self.name!r} has more than {MAX_STATES} distinct values over the chunks "
                f"read so far (chunk {chunk_index}), more than skbn accepts for one variable; "
                "discretize it or drop it before fitting."
            )
        return np.where(present, lookup[np.where(present, local, 0)] if len(lookup) else 0, -1)


def _distinct(codes, cardinalities, counts):
    """Distinct rows of ``codes`` and their total ``counts`` (one mixed-radix id per row).

    Signed codes may hold ``-1`` (a missing cell): the ids are then those of ``codes + 1``
    over ``cardinalities + 1`` states, so a missing cell is one more value of its column.
    """
    shift = int(codes.dtype.kind == "i")
    ids, _ = config_ids(codes + shift if shift else codes, np.asarray(cardinalities) + shift,
                        range(codes.shape[1]))
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    return codes[first], count_cells(inverse.reshape(-1), len(first), counts)


def _chunk_code_dtype(codes, cardinalities):
    """The in-memory encoder's code dtype: signed ``int16`` when a cell is missing (``-1``),
    else the smallest unsigned type."""
    return np.int16 if codes.dtype.kind == "i" and (codes < 0).any() else _code_dtype(cardinalities)


def encode_chunks(estimator, X, y=None, sample_weight=None, categories="auto", *, allow_missing=False):
    """Encode chunked ``X`` to its weighted distinct rows.

    Sets ``n_features_in_`` and ``feature_names_in_`` on ``estimator`` from the first
    chunk, as an in-memory DataFrame would.

    Parameters
    ----------
    estimator : the estimator being fitted
    X : chunked data (see :func:`is_chunked`)
    y, sample_weight : must be None (name a target column with ``target=`` instead)
    categories : "auto", list of sequences or dict, as in :func:`skbn._data.encode_fit`
    allow_missing : bool, default=False
        Keep missing cells (NaN/None) as code ``-1`` (signed ``int16`` codes, as
        :func:`skbn._data.encode_fit` does) instead of refusing them, naming the column; a
        column with no observed value in any chunk is still refused.

    Returns
    -------
    data : EncodedData
        One row per distinct row of the concatenated chunks; ``weights`` holds the number of
        copies of each (``None`` when every row is distinct).
    states : list of lists
        State labels per column, as :func:`skbn._data.encode_fit` would return for the
        concatenated chunks.
    """
    if y is not None:
        raise ValueError(
            "y is not supported with chunked X: make the target a column of the chunks and "
            "pass target=<column name>."
        )
    if sample_weight is not None:
        raise ValueError(
            "sample_weight is not supported with chunked X: every row of a chunk has weight 1 "
            "(repeat rows to weight them)."
        )
    names = running = None
    buffered, buffered_counts, n_buffered, n_merged = [], [], 0, 0
    for index, chunk in _iter_chunks(X):
        chunk_names, columns = _as_columns(chunk)
        if names is None:
            validate_data(estimator, chunk, skip_check_array=True, reset=True)
            names = chunk_names
            running = [
                _RunningStates(name,
                               list(c.cat.categories) if isinstance(c.dtype, pd.CategoricalDtype) else None)
                for name, c in zip(names, columns)
            ]
            if not names:
                raise ValueError("Found array with 0 feature(s) while a minimum of 1 is required.")
            _check_categories_length(categories, len(names))
        elif chunk_names != names:
            if set(chunk_names) != set(names) or len(chunk_names) != len(names):
                missing = [n for n in names if n not in set(chunk_names)]
                extra = [n for n in chunk_names if n not in set(names)]
                raise ValueError(
                    f"The columns of chunk {index} of X differ from those of chunk 0: missing "
                    f"{missing}, unexpected {extra}. Every chunk needs the same columns."
                )
            columns = [columns[chunk_names.index(n)] for n in names]
        if len(columns[0]) == 0:
            continue
        # < MAX_STATES states; signed when a missing cell may be -1
        codes = np.empty((len(columns[0]), len(names)), dtype=np.int16 if allow_missing else np.uint16)
        for j, (state, column) in enumerate(zip(running, columns)):
            codes[:, j] = state.codes(column, index, allow_missing)
        cards = np.array([max(len(state.labels), 1) for state in running], dtype=np.int64)
        codes = codes.astype(_chunk_code_dtype(codes, cards), copy=False)  # 1 byte a cell if they fit
        rows, counts = _distinct(codes, cards, None)
        buffered.append(rows)
        buffered_counts.append(counts.astype(np.float64))
        n_buffered += len(rows)
        if n_buffered > max(MERGE_FLOOR, 2 * n_merged):
            merged = _distinct(np.concatenate(buffered), cards, np.concatenate(buffered_counts))
            buffered, buffered_counts = [merged[0]], [merged[1]]
            n_buffered = n_merged = len(merged[0])
    if names is None:
        raise ValueError("X is an empty sequence of chunks; fitting needs at least one chunk of rows.")
    n_samples = int(sum(c.sum() for c in buffered_counts))
    if n_samples < 2:
        raise ValueError(
            f"The chunks of X hold {n_samples} row(s) in total while a minimum of 2 is required "
            "to learn a Bayesian network."
        )
    for state in running:
        if not state.observed:
            raise ValueError(f"Column {state.name!r} has no observed value (every cell is missing).")
    states, renumber = _final_states(running, categories)
    running_rows, counts = np.concatenate(buffered), np.concatenate(buffered_counts)
    del buffered, buffered_counts
    cardinalities = np.array([len(s) for s in states], dtype=np.int64)
    rows = np.empty(running_rows.shape, dtype=_chunk_code_dtype(running_rows, cardinalities))
    for j in range(len(names)):
        running_codes = running_rows[:, j]
        missing = running_codes < 0 if running_codes.dtype.kind == "i" else np.zeros(len(running_codes), bool)
        final = np.where(missing, -1, renumber[j][np.where(missing, 0, running_codes)])
        outside = (final < 0) & ~missing
        if np.any(outside):  # an observed value outside categories=: the in-memory error
            bad = running[j].labels[running_codes[np.argmax(outside)]]
            _codes_for(names[j], pd.Series([bad], dtype=object), states[j],
                       allow_missing=False, allow_unknown=False)
        rows[:, j] = final
    del running_rows
    rows, counts = _distinct(rows, cardinalities, counts)
    weights = None if np.all(counts == 1) else counts
    return EncodedData(
        codes=np.asfortranarray(rows.astype(_chunk_code_dtype(rows, cardinalities))),
        cardinalities=cardinalities,
        names=tuple(names),
        weights=weights,
    ), states


def _check_categories_length(categories, n_columns):
    if isinstance(categories, (list, tuple)) and len(categories) != n_columns:
        raise ValueError(f"categories has {len(categories)} entries but X has {n_columns} columns.")


def _final_states(running, categories):
    """States of every column (declared, pandas categories or sorted observed values) and
    the lookup from running codes to their final codes."""
    auto = isinstance(categories, str) and categories == "auto"
    states, renumber = [], []
    for j, state in enumerate(running):
        declared = None if auto else _user_states(categories, [s.name for s in running], j, state.name)
        if declared is not None and len(set(map(repr, declared))) != len(declared):
            raise ValueError(f"categories for column {state.name!r} contain duplicates.")
        if declared is None:
            labels = pd.Series(state.labels, dtype=object)
            declared = state.labels if state.declared is not None else _infer_states(state.name, labels)
        if not declared:
            raise ValueError("Every variable needs at least one state.")
        seen = pd.Series(state.labels, dtype=object)  # -1: a declared category outside categories=
        renumber.append(_codes_for(state.name, seen, declared, allow_missing=False, allow_unknown=True))
        states.append(list(declared))
    return states, renumber
