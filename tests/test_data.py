"""Column-wise encoding of discrete data and its error messages."""

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from skbn._data import MAX_STATES, encode_fit, encode_target, encode_transform


def test_mixed_dtypes_encode_to_small_codes():
    X = pd.DataFrame({
        "cat": pd.Categorical(["b", "a", "b"], categories=["a", "b", "unseen"]),
        "obj": np.array(["x", "y", "x"], dtype=object),
        "flag": [True, False, True],
        "int": [3, 1, 3],
        "intfloat": [1.0, 0.0, 1.0],
    })
    data, states = encode_fit(X)
    assert data.codes.dtype == np.uint8 and data.codes.flags.f_contiguous
    assert states[0] == ["a", "b", "unseen"]  # unobserved pandas category kept
    assert states[1] == ["x", "y"] and states[2] == [False, True] and states[3] == [1, 3]
    assert data.cardinalities.tolist() == [3, 2, 2, 2, 2]
    np.testing.assert_array_equal(data.codes[:, 0], [1, 0, 1])
    np.testing.assert_array_equal(data.codes[:, 3], [1, 0, 1])
    assert data.names == ("cat", "obj", "flag", "int", "intfloat")


def test_numpy_array_columns_are_positions():
    data, states = encode_fit(np.array([[0, 5], [1, 5], [1, 7]]))
    assert data.names == (0, 1)
    assert states == [[0, 1], [5, 7]]


def test_user_categories_list_and_dict():
    X = pd.DataFrame({"a": ["x", "y"], "b": [0, 1]})
    data, states = encode_fit(X, {"a": ["y", "x", "z"]})
    assert states[0] == ["y", "x", "z"] and data.codes[:, 0].tolist() == [1, 0]
    with pytest.raises(ValueError, match="unknown category 'y' in column 'a'"):
        encode_fit(X, [["x"], [0, 1]])
    with pytest.raises(ValueError, match="duplicates"):
        encode_fit(X, {"a": ["x", "x", "y"]})


@pytest.mark.parametrize(
    "X, error, match",
    [
        (pd.DataFrame({"t": [0.5, 1.25, 2.0]}), ValueError, "KBinsDiscretizer"),
        (pd.DataFrame({"t": np.arange(MAX_STATES + 1)}), ValueError, "distinct values"),
        (pd.DataFrame({"xray": ["yes", None, "no"]}), ValueError, "NaN in column 'xray'"),
        (pd.DataFrame({"x": [1.0, np.nan, 0.0]}), ValueError, "NaN in column 'x'"),
        (pd.DataFrame({"x": [1.0, np.inf, 0.0]}), ValueError, "infinity"),
        (pd.DataFrame({"x": [1]}), ValueError, "minimum of 2"),
        (pd.DataFrame(index=range(3)), ValueError, "0 feature"),
        (np.arange(4), ValueError, "Reshape your data"),
        (sparse.csr_matrix(np.eye(3)), TypeError, "sparse"),
        (pd.Series([1, 2]), ValueError, "Series"),
        (pd.DataFrame([[0, 1], [1, 0]], columns=["a", "a"]), ValueError, "Duplicate column"),
        (pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2020-01-02"])}), TypeError, "dates"),
        (np.array([[1 + 1j], [2]]), ValueError, "Complex data"),
    ],
)
def test_bad_training_input_is_refused_clearly(X, error, match):
    with pytest.raises(error, match=match):
        encode_fit(X)


def test_transform_missing_unknown_and_column_matching():
    X = pd.DataFrame({"a": ["x", "y"], "b": [0, 1]})
    data, states = encode_fit(X)
    new = pd.DataFrame({"b": [1, np.nan, 0], "a": ["y", "x", None]})
    codes = encode_transform(new, data.names, states)
    np.testing.assert_array_equal(codes, [[1, 1], [0, -1], [-1, 0]])
    unknown = pd.DataFrame({"a": ["z", "x"], "b": [0, 1]})
    with pytest.raises(ValueError, match="unknown category 'z' in column 'a'.*categories="):
        encode_transform(unknown, data.names, states)
    codes = encode_transform(unknown, data.names, states, handle_unknown="marginalize")
    assert codes[0, 0] == -1
    with pytest.raises(ValueError, match=r"missing \['b'\], unexpected \['c'\]"):
        encode_transform(pd.DataFrame({"a": ["x"], "c": [0]}), data.names, states)
    with pytest.raises(ValueError, match="3 features"):
        encode_transform(np.zeros((2, 3)), data.names, states)


def test_target_encoding():
    codes, states = encode_target(pd.Series(["b", "a", "b"]))
    assert states == ["a", "b"] and codes.tolist() == [1, 0, 1]
    with pytest.raises(ValueError, match="1-D"):
        encode_target(np.zeros((3, 2)))


def test_misspelt_categories_key_is_an_error_naming_it():
    X = pd.DataFrame({"xray": ["yes", "no"], "lung": ["no", "no"]})
    with pytest.raises(ValueError, match=r"\['xrya'\].*not columns of X"):
        encode_fit(X, {"xrya": ["yes", "no"]})
    _, states = encode_fit(X, {"xray": ["yes", "no", "unsure"]})
    assert states == [["yes", "no", "unsure"], ["no"]]
