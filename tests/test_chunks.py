"""Out-of-core fit: chunked X (iterators, lists of DataFrames, pyarrow, dask) is compressed
to weighted distinct rows and gives exactly the model of the concatenated rows."""

from itertools import pairwise

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from skbn import (
    ChowLiuTree,
    ExactStructure,
    GESStructure,
    HillClimbStructure,
    K2Structure,
    PCStructure,
    _chunks,
)
from skbn._chunks import encode_chunks, is_chunked
from skbn._data import encode_fit
from skbn.datasets import sample_asia

#: Uneven cut points: a one-row chunk, an empty chunk, chunks of very different sizes.
CUTS = [0, 1, 1, 97, 350, 1200, 2000]


def _split(frame, cuts=CUTS):
    return (frame.iloc[start:stop] for start, stop in pairwise(cuts))


@pytest.fixture(scope="module")
def asia():
    return sample_asia(2000, random_state=0)


@pytest.fixture(scope="module")
def plain_asia(asia):
    """Non-categorical columns (object strings, ints, bools) whose states appear in later chunks."""
    frame = pd.DataFrame({name: asia[name].astype(str).to_numpy(dtype=object) for name in asia})
    frame["smoke"] = (asia["smoke"] == "yes").to_numpy()  # bool
    frame["either"] = (asia["either"] == "yes").astype(int).to_numpy() * 7 - 2  # ints -2 / 5
    return frame


def _assert_same_model(chunked, in_memory):
    assert chunked.edges_ == in_memory.edges_
    if hasattr(in_memory, "score_"):
        assert chunked.score_ == in_memory.score_
    assert len(chunked.categories_) == len(in_memory.categories_)
    for mine, theirs in zip(chunked.categories_, in_memory.categories_):
        assert mine.tolist() == theirs.tolist()
        assert [type(v) for v in mine] == [type(v) for v in theirs]
    for node, cpt in in_memory.network_.cpts.items():
        np.testing.assert_array_equal(chunked.network_.cpts[node], cpt)
    assert chunked.n_features_in_ == in_memory.n_features_in_
    assert list(chunked.feature_names_in_) == list(in_memory.feature_names_in_)


LEARNERS = [HillClimbStructure(), HillClimbStructure(scorer="bic", search="tabu", random_state=0),
            ChowLiuTree(), K2Structure()]


@pytest.mark.parametrize("learner", LEARNERS, ids=repr)
def test_generator_equals_in_memory_fit(learner, asia, plain_asia):
    for frame in (asia, plain_asia):
        _assert_same_model(clone(learner).fit(_split(frame)), clone(learner).fit(frame))


@pytest.mark.parametrize("learner", [GESStructure(), ExactStructure(scorer="bic", max_indegree=2)], ids=repr)
def test_ges_and_exact_generator_equals_in_memory_fit(learner, asia):
    frame = asia[["asia", "smoke", "tub", "lung", "bronc", "either", "xray"]]
    _assert_same_model(clone(learner).fit(_split(frame)), clone(learner).fit(frame))


def test_pc_generator_equals_in_memory_fit(asia):
    chunked, in_memory = PCStructure().fit(_split(asia)), PCStructure().fit(asia)
    _assert_same_model(chunked, in_memory)
    assert chunked.sepsets_ == in_memory.sepsets_


def test_alarm_chunks_equal_in_memory_fit(alarm):
    frame = alarm.sample(6000, random_state=1)
    cuts = [0, 5, 1000, 1001, 4500, 6000]
    _assert_same_model(HillClimbStructure().fit(_split(frame, cuts)), HillClimbStructure().fit(frame))


def test_states_are_the_union_sorted_as_in_memory(plain_asia):
    """A state first seen in a late chunk still takes its sorted place."""
    frame = plain_asia.sort_values(["either", "tub"]).reset_index(drop=True)
    data, states = encode_chunks(ChowLiuTree(), _split(frame))
    expected_data, expected_states = encode_fit(frame)
    assert states == expected_states
    assert data.total_weight == len(frame)
    # the distinct rows with their counts are the rows of the in-memory data
    rows_in_memory, counts_in_memory = np.unique(expected_data.codes, axis=0, return_counts=True)
    order = np.lexsort(data.codes.T[::-1])
    np.testing.assert_array_equal(data.codes[order], rows_in_memory)
    np.testing.assert_array_equal(data.weights[order], counts_in_memory)


def test_merging_accumulated_rows_changes_nothing(asia, monkeypatch):
    """Merging the distinct rows after every chunk (merge_floor=2) gives the same encoded
    data, bit for bit, as merging them once at the end (the default on small data); the
    learners see nothing else."""
    calls = []
    distinct = _chunks._distinct
    monkeypatch.setattr(_chunks, "_distinct", lambda *args: calls.append(1) or distinct(*args))  # a spy
    once, states = encode_chunks(ChowLiuTree(), _split(asia))
    n_once = len(calls)
    often, often_states = encode_chunks(ChowLiuTree(), _split(asia), merge_floor=2)
    assert len(calls) - n_once > n_once  # the intermediate merges did run
    assert often_states == states
    np.testing.assert_array_equal(often.codes, once.codes)
    np.testing.assert_array_equal(often.weights, once.weights)
    np.testing.assert_array_equal(often.cardinalities, once.cardinalities)
    assert often.codes.dtype == once.codes.dtype and often.names == once.names


def test_categoricals_keep_unobserved_declared_states(asia):
    frame = asia.copy()
    frame["asia"] = frame["asia"].cat.add_categories(["maybe"])  # never observed
    model = HillClimbStructure().fit(_split(frame))
    assert model.categories_[0].tolist() == [*asia["asia"].cat.categories, "maybe"]
    _assert_same_model(model, HillClimbStructure().fit(frame))


def test_categories_parameter_is_honoured(plain_asia):
    declared = {"either": [5, -2, 11], "xray": ["yes", "no"]}
    learner = ChowLiuTree(categories=declared)
    model = clone(learner).fit(_split(plain_asia))
    assert model.categories_[list(plain_asia).index("either")].tolist() == [5, -2, 11]
    _assert_same_model(model, clone(learner).fit(plain_asia))
    with pytest.raises(ValueError, match="unknown category 'no' in column 'xray'"):
        ChowLiuTree(categories={"xray": ["yes"]}).fit(_split(plain_asia))
    with pytest.raises(ValueError, match="categories has 1 entries but X has 8 columns"):
        ChowLiuTree(categories=[["a"]]).fit(_split(plain_asia))


def test_target_column_of_the_chunks(asia):
    learner = ChowLiuTree(variant="tan", target="either")
    chunked, in_memory = clone(learner).fit(_split(asia)), clone(learner).fit(asia)
    _assert_same_model(chunked, in_memory)
    np.testing.assert_array_equal(chunked.predict_proba(asia[:50]), in_memory.predict_proba(asia[:50]))
    np.testing.assert_array_equal(chunked.classes_, in_memory.classes_)


@pytest.mark.parametrize("container", [list, tuple, lambda chunks: iter(list(chunks)),
                                       lambda chunks: (chunk for chunk in chunks)])
def test_sequences_and_iterators_of_frames(container, asia):
    _assert_same_model(ChowLiuTree().fit(container(_split(asia))), ChowLiuTree().fit(asia))


def test_detection_rule(asia):
    assert is_chunked(_split(asia)) and is_chunked([asia]) and is_chunked((asia, asia))
    assert not is_chunked(asia) and not is_chunked(asia.to_numpy()) and not is_chunked([])
    rows = asia.iloc[:20].to_numpy().tolist()
    assert not is_chunked(rows)  # a list of rows is in-memory data, as before
    assert ChowLiuTree().fit(rows).n_features_in_ == 8


def test_feature_names_checked_at_score_time(asia):
    model = ChowLiuTree().fit(_split(asia))
    assert model.score(asia) == ChowLiuTree().fit(asia).score(asia)
    with pytest.raises(ValueError, match="feature names"):
        model.score(asia[list(asia.columns[::-1])])


def test_pyarrow_tables_batches_readers_and_datasets(asia):
    pa = pytest.importorskip("pyarrow")
    dataset = pytest.importorskip("pyarrow.dataset")
    expected = HillClimbStructure().fit(asia)
    table = pa.Table.from_pandas(asia, preserve_index=False)
    batches = table.to_batches(max_chunksize=300)
    assert len(batches) > 3
    table = pa.Table.from_batches(batches)
    for source in (table, iter(batches), pa.RecordBatchReader.from_batches(table.schema, batches),
                   dataset.dataset(table)):
        _assert_same_model(HillClimbStructure().fit(source), expected)


def test_dask_dataframe_partitions(asia):
    dd = pytest.importorskip("dask.dataframe")
    frame = dd.from_pandas(asia, npartitions=4)
    assert frame.npartitions == 4
    _assert_same_model(HillClimbStructure().fit(frame), HillClimbStructure().fit(asia))


def test_bad_chunked_input(asia):
    model = ChowLiuTree()
    with pytest.raises(ValueError, match="empty sequence of chunks"):
        model.fit(iter([]))
    with pytest.raises(ValueError, match=r"chunk 2 of X differ.*missing \['dysp'\], extra \['extra'\]"):
        model.fit(iter([asia[:10], asia[10:20], asia[20:30].rename(columns={"dysp": "extra"})]))
    changed = asia[10:20].copy()
    changed["tub"] = changed["tub"].cat.add_categories(["maybe"])
    with pytest.raises(ValueError, match="Column 'tub' of chunk 1 has categories"):
        model.fit(iter([asia[:10], changed]))
    with pytest.raises(ValueError, match="Column 'tub' of chunk 1 has no categorical dtype"):
        model.fit(iter([asia[:10], asia[10:20].astype({"tub": object})]))
    with_nan = asia[10:20].astype(object)
    with_nan.iloc[3, 2] = np.nan
    message = "Input X contains NaN in column 'smoke'"
    with pytest.raises(ValueError, match=message):
        model.fit(pd.concat([asia[:10].astype(object), with_nan]))  # the in-memory message
    with pytest.raises(ValueError, match=message):
        model.fit(iter([asia[:10].astype(object), with_nan]))
    with pytest.raises(TypeError, match="Chunk 1 of X is a ndarray"):
        model.fit(iter([asia[:10], asia[10:20].to_numpy()]))
    with pytest.raises(ValueError, match="y is not supported with chunked X.*target="):
        model.fit(_split(asia), asia["either"])
    with pytest.raises(ValueError, match="sample_weight is not supported with chunked X"):
        model.fit(_split(asia), sample_weight=np.ones(len(asia)))
    with pytest.raises(ValueError, match="1 row"):
        model.fit(iter([asia[:1], asia[:0]]))
    with pytest.raises(ValueError, match="0 feature"):
        model.fit(iter([asia[[]]]))


def test_refit_on_memory_after_chunks_resets(asia):
    model = ChowLiuTree().fit(_split(asia))
    model.fit(asia.to_numpy())
    assert not hasattr(model, "feature_names_in_")


# ------------------------------------------------------------------ missing cells in chunks
@pytest.fixture(scope="module")
def incomplete_asia(asia):
    """10% MCAR cells; categorical columns (NaN in the categorical) and object columns."""
    rng = np.random.RandomState(0)
    frame = asia.mask(rng.rand(*asia.shape) < 0.1)
    for name in ("tub", "either", "dysp"):
        frame[name] = frame[name].astype(object)
    frame.loc[350:1199, "asia"] = np.nan  # a whole chunk without an observed "asia"
    return frame


def _assert_close_model(chunked, in_memory):
    """Same graph and states; CPTs and EM trace equal up to the summation order of the
    fractional expected counts (c copies of a row added one by one, or once times c)."""
    assert chunked.edges_ == in_memory.edges_
    for mine, theirs in zip(chunked.categories_, in_memory.categories_):
        assert mine.tolist() == theirs.tolist()
    for node, cpt in in_memory.network_.cpts.items():
        np.testing.assert_allclose(chunked.network_.cpts[node], cpt, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(chunked.em_trace_, in_memory.em_trace_, rtol=1e-12)


def test_missing_cells_are_a_distinct_code_of_the_compressed_rows(incomplete_asia):
    data, states = encode_chunks(HillClimbStructure(), _split(incomplete_asia), allow_missing=True)
    expected_data, expected_states = encode_fit(incomplete_asia, allow_missing=True)
    assert states == expected_states
    assert data.codes.dtype == expected_data.codes.dtype == np.int16
    rows_in_memory, counts_in_memory = np.unique(expected_data.codes, axis=0, return_counts=True)
    order = np.lexsort(data.codes.T[::-1])
    np.testing.assert_array_equal(data.codes[order], rows_in_memory)  # -1 cells included
    np.testing.assert_array_equal(data.weights[order], counts_in_memory)


def test_complete_case_chunks_equal_in_memory_fit(incomplete_asia):
    learner = HillClimbStructure(missing="complete_case")
    with pytest.warns(UserWarning, match=r"dropped (\d+) of 2000 rows") as chunked_warning:
        chunked = clone(learner).fit(_split(incomplete_asia))
    with pytest.warns(UserWarning, match=r"dropped (\d+) of 2000 rows") as in_memory_warning:
        in_memory = clone(learner).fit(incomplete_asia)
    assert str(chunked_warning[0].message) == str(in_memory_warning[0].message)
    _assert_same_model(chunked, in_memory)  # integer counts: bit for bit


@pytest.mark.parametrize("learner", [HillClimbStructure(missing="em", em_max_iter=3),
                                     ChowLiuTree(missing="em", em_max_iter=3)], ids=repr)
def test_structural_em_on_chunks_equals_in_memory_fit(learner, incomplete_asia):
    chunked = clone(learner).fit(_split(incomplete_asia))
    in_memory = clone(learner).fit(incomplete_asia)
    assert len(chunked.em_trace_) > 1
    _assert_close_model(chunked, in_memory)


def test_pc_available_case_chunks_equal_in_memory_fit(incomplete_asia):
    chunked = PCStructure(missing="available_case").fit(_split(incomplete_asia))
    in_memory = PCStructure(missing="available_case").fit(incomplete_asia)
    assert chunked.sepsets_ == in_memory.sepsets_  # test-wise deletion: the same integer counts
    _assert_close_model(chunked, in_memory)  # CPTs by EM


def test_missing_cells_in_chunks_refused_by_default_naming_the_column(incomplete_asia):
    with pytest.raises(ValueError, match="Input X contains NaN in column 'asia'.*missing='em'"):
        HillClimbStructure().fit(_split(incomplete_asia))
    complete = incomplete_asia.dropna()
    later = complete.iloc[50:60].copy()
    later.loc[later.index[3], "tub"] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN in column 'tub'"):  # in chunk 1
        HillClimbStructure().fit(iter([complete.iloc[:50], later]))
    every_cell_missing = incomplete_asia.assign(xray=np.nan)
    with pytest.raises(ValueError, match="Column 'xray' has no observed value"):
        HillClimbStructure(missing="em").fit(_split(every_cell_missing))
    with pytest.raises(ValueError, match="Column 'xray' has no observed value"):
        HillClimbStructure(missing="em").fit(every_cell_missing)  # the in-memory message
    two_missing = every_cell_missing.assign(tub=np.nan)  # one error names both
    for X in (_split(two_missing), two_missing):
        with pytest.raises(ValueError, match="2 columns have no observed value .*: 'tub', 'xray'"):
            HillClimbStructure(missing="em").fit(X)


# ------------------------------------------------------------------ column types across chunks
def _csv(tmp_path, frame, name="data.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def test_csv_column_numeric_early_and_textual_later_is_refused(tmp_path, asia):
    """pd.read_csv(chunksize=...) guesses each chunk's types: 0/1 codes that turn textual
    later would get both 0 and '0' as states; reading the whole file gives text."""
    frame = asia.astype(str)
    frame["code"] = np.where(asia["smoke"] == "yes", "1", "0")
    frame.loc[1500:, "code"] = np.where(asia["smoke"][1500:] == "yes", "1", "unknown")
    path = _csv(tmp_path, frame)
    whole = pd.read_csv(path)
    assert whole["code"].dtype == "str"  # the in-memory read: text
    assert pd.read_csv(path, chunksize=500).get_chunk()["code"].dtype == np.int64
    with pytest.raises(ValueError, match=r"Column 'code' holds numbers in chunk 0 but text in chunk 3.*"
                                         r"dtype=\{'code': str\}"):
        ChowLiuTree().fit(pd.read_csv(path, chunksize=500))
    # read as text in every chunk: the model of the whole file
    chunked = ChowLiuTree().fit(pd.read_csv(path, chunksize=500, dtype={"code": str}))
    _assert_same_model(chunked, ChowLiuTree().fit(whole))
    assert chunked.categories_[-1].tolist() == ["0", "1", "unknown"]


def test_csv_bools_then_text_and_ints_then_floats(tmp_path, asia):
    tub = asia["tub"].astype(str)
    frame = pd.DataFrame({"flag": np.where(asia["xray"] == "yes", "True", "False"), "tub": tub})
    frame.loc[1800:, "flag"] = "maybe"
    path = _csv(tmp_path, frame)
    with pytest.raises(ValueError, match="Column 'flag' holds bools in chunk 0 but text in chunk 3"):
        ChowLiuTree().fit(pd.read_csv(path, chunksize=600))
    # integers in early chunks, whole floats later (as after a missing cell): numbers both,
    # floats in memory as in chunks
    numbers = pd.DataFrame({"n": (asia["lung"] == "yes").astype(int).astype(str), "tub": tub})
    numbers.loc[1900:, "n"] = numbers.loc[1900:, "n"] + ".0"
    path = _csv(tmp_path, numbers, "numbers.csv")
    whole = pd.read_csv(path)
    assert whole["n"].dtype == np.float64
    chunked = ChowLiuTree().fit(pd.read_csv(path, chunksize=600))
    _assert_same_model(chunked, ChowLiuTree().fit(whole))
    assert [type(v) for v in chunked.categories_[0]] == [float, float]


def test_numeric_rule_in_chunks_as_in_memory(asia):
    rng = np.random.default_rng(0)
    frame = asia[["tub", "lung"]].astype(str)
    frame["m"] = rng.normal(50, 15, len(frame)).round(1)
    message = _error(lambda: encode_fit(frame))
    assert "Column 'm' holds continuous" in message  # a function that needs discrete data
    chunked = ChowLiuTree().fit(_split(frame))  # a learner that takes continuous columns
    assert chunked.column_types_ == {"tub": "discrete", "lung": "discrete", "m": "continuous"}
    assert chunked.edges_ == ChowLiuTree().fit(frame).edges_
    frame["m"] = np.arange(len(frame)) % 40  # 40 integer values: refused, declared: accepted
    with pytest.raises(ValueError, match="Column 'm' is numeric with 40 distinct values in 2000 rows"):
        ChowLiuTree().fit(frame)
    with pytest.raises(ValueError, match=r"Column 'm' is numeric with at least 40 distinct values "
                                         r"\(in the first 97 rows read\).*column_types="):
        ChowLiuTree().fit(_split(frame))
    declared = ChowLiuTree(categories={"m": list(range(40))})
    _assert_same_model(clone(declared).fit(_split(frame)), clone(declared).fit(frame))
    frame["m"] = frame["m"].astype("category")
    _assert_same_model(ChowLiuTree().fit(_split(frame)), ChowLiuTree().fit(frame))


def _error(fit):
    with pytest.raises(ValueError) as info:
        fit()
    return str(info.value)


def test_categories_typos_are_refused_as_in_memory(plain_asia):
    cases = [{"xrya": ["yes", "no"]}, {"xray": ["yes"]}, {"either": [5]}, [["yes"]] * 8,
             {"xray": ["yes", "no", "yes"]}]
    for categories in cases:
        in_memory = _error(lambda: ChowLiuTree(categories=categories).fit(plain_asia))
        assert _error(lambda: ChowLiuTree(categories=categories).fit(_split(plain_asia))) == in_memory
    assert "['xrya'] that are not columns of X" in _error(
        lambda: ChowLiuTree(categories={"xrya": ["yes", "no"]}).fit(_split(plain_asia)))
    assert "unknown category -2 in column 'either'" in _error(
        lambda: ChowLiuTree(categories={"either": [5]}).fit(_split(plain_asia)))


def test_declared_column_may_change_dtype_between_chunks(asia):
    frame = asia.copy()
    chunks = [frame.iloc[:700], frame.iloc[700:].astype({"tub": object})]  # categorical, then text
    with pytest.raises(ValueError, match="Column 'tub' of chunk 1 has no categorical dtype"):
        ChowLiuTree().fit(iter(chunks))
    declared = ChowLiuTree(categories={"tub": ["no", "yes"]})
    _assert_same_model(clone(declared).fit(iter(chunks)), clone(declared).fit(frame))


def test_na_strings_and_mixed_columns_in_chunks(asia):
    frame = asia.astype(str).astype(object)
    frame["tub"] = np.where(asia["tub"] == "yes", "None", "NA")
    mixed = np.full(len(asia), "no", dtype=object)
    mixed[asia["lung"] == "yes"] = 1
    mixed[np.flatnonzero(asia["lung"] == "yes")[::2]] = 1.0
    mixed[np.flatnonzero(asia["lung"] != "yes")[::3]] = True  # True == 1: refused
    refused = _error(lambda: ChowLiuTree().fit(frame.assign(lung=mixed)))
    assert "'lung' holds values of different types that are equal, True (bool) and 1" in refused
    assert _error(lambda: ChowLiuTree().fit(_split(frame.assign(lung=mixed)))) == refused
    mixed[np.flatnonzero(asia["lung"] != "yes")[::3]] = False
    frame["lung"] = mixed
    in_memory = ChowLiuTree().fit(frame)
    assert in_memory.categories_[1].tolist() == ["NA", "None"]
    assert in_memory.categories_[3].tolist() == [False, 1.0, "no"]
    _assert_same_model(ChowLiuTree().fit(_split(frame)), in_memory)


# ------------------------------------------------------------------ pyarrow datasets of parquet files
def _parquet_dir(tmp_path, frames, writer="pandas"):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    directory = tmp_path / writer
    directory.mkdir()
    for i, part in enumerate(frames):
        path = directory / f"part-{i:02d}.parquet"
        if writer == "pandas":
            part.to_parquet(path)
        else:
            pq.write_table(pa.Table.from_pandas(part, preserve_index=False), path, row_group_size=250)
    return directory


@pytest.mark.parametrize("writer", ["pandas", "pyarrow"])
@pytest.mark.parametrize("columns", ["categorical", "text", "numbers"])
def test_pyarrow_dataset_over_a_directory_of_parquet_files(tmp_path, asia, writer, columns):
    dataset = pytest.importorskip("pyarrow.dataset")
    frame = asia.sort_values(["tub", "lung"])  # files see different states
    if columns == "text":
        frame = frame.astype(str)
    elif columns == "numbers":
        frame = pd.DataFrame({name: (frame[name] == "yes").astype(int) for name in frame}, index=frame.index)
    cuts = [0, 150, 900, 1400, 2000]
    parts = [frame.iloc[a:b] for a, b in pairwise(cuts)]
    if columns == "categorical":  # every file's categories are its own observed values
        parts = [part.astype(str).astype("category") for part in parts]
    directory = _parquet_dir(tmp_path, parts, writer)
    source = dataset.dataset(directory)
    in_memory = source.to_table().to_pandas()  # what reading the whole directory gives
    pd.testing.assert_frame_equal(in_memory.reset_index(drop=True),
                                  pd.read_parquet(directory).reset_index(drop=True))
    for learner in (HillClimbStructure(), PCStructure()):
        _assert_same_model(clone(learner).fit(source), clone(learner).fit(in_memory))
    model = HillClimbStructure().fit(dataset.dataset(str(directory), format="parquet"))
    _assert_same_model(model, HillClimbStructure().fit(in_memory))


def test_directory_path_is_refused_with_the_way_to_read_it(tmp_path, asia):
    directory = _parquet_dir(tmp_path, [asia.iloc[:1000], asia.iloc[1000:]])
    with pytest.raises(TypeError, match=r"pyarrow.dataset.dataset\(path\)"):
        HillClimbStructure().fit(directory)
    with pytest.raises(TypeError, match=r"pd.read_csv\(path\)"):
        HillClimbStructure().fit(str(directory))


@pytest.mark.parametrize("seed", range(4))
def test_random_frames_of_every_column_kind_equal_in_memory(seed):
    """States and weighted distinct rows of random chunks equal those of pd.concat(chunks)."""
    rng = np.random.default_rng(seed)
    n = 600
    mixed = rng.choice(np.array([1, 2, 10, "a", "None", 2.0, None], dtype=object), n)
    frame = pd.DataFrame({
        "cat": pd.Categorical(rng.choice(["x", "y"], n), categories=["y", "x", "unused"]),
        "text": pd.Series(rng.choice(["NA", "nan", "b", "a"], n), dtype="str"),
        "mixed": mixed,
        "nullable": pd.array(rng.choice([1, 5, 9], n), dtype="Int64"),
        "float": rng.choice([0.0, 3.0, -1.0], n),
        "flag": rng.random(n) < 0.3,
    })
    for name in ("text", "nullable", "float"):
        frame.loc[rng.random(n) < 0.1, name] = None
    cuts = np.unique(np.concatenate([[0, n], rng.integers(0, n, 6)]))
    chunks = [frame.iloc[a:b] for a, b in pairwise(cuts)]
    data, states = encode_chunks(ChowLiuTree(), iter(chunks), allow_missing=True)
    expected, expected_states = encode_fit(pd.concat(chunks), allow_missing=True)
    assert states == expected_states
    assert [[type(v) for v in s] for s in states] == [[type(v) for v in s] for s in expected_states]
    assert expected_states[2] == [1.0, 2.0, 10.0, "None", "a"]  # numbers as floats (2.0 seen), then text
    rows, counts = np.unique(expected.codes, axis=0, return_counts=True)
    order = np.lexsort(data.codes.T[::-1])
    np.testing.assert_array_equal(data.codes[order], rows)
    np.testing.assert_array_equal(data.weights[order], counts)


def test_a_list_of_pyarrow_record_batches_is_chunked_data():
    # (table.to_batches() gives a list: it was taken for in-memory rows and failed in numpy)
    pa = pytest.importorskip("pyarrow")
    from skbn import HillClimbStructure
    from skbn.datasets import sample_asia

    X = sample_asia(2000, random_state=0)
    batches = pa.Table.from_pandas(X, preserve_index=False).to_batches(max_chunksize=300)
    chunked, whole = HillClimbStructure().fit(batches), HillClimbStructure().fit(X)
    assert chunked.edges_ == whole.edges_ and chunked.score_ == whole.score_
