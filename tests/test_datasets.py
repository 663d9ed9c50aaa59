from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skbn.datasets import asia_network, load_network, sample_asia
from skbn.io import read_bif, write_bif

SHARED = Path(__file__).resolve().parents[2] / "shared" / "networks"


def test_asia_equals_shared_bif():
    path = SHARED / "asia.bif"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    ref, net = read_bif(path), asia_network()
    assert net.nodes == ref.nodes
    assert net.states == ref.states
    assert net.parents == ref.parents
    for node in net.nodes:
        np.testing.assert_array_equal(net.cpts[node], ref.cpts[node], err_msg=node)


def test_asia_known_marginal():
    # P(either = yes) = 1 - P(lung = no) P(tub = no)
    p_lung = 0.5 * 0.1 + 0.5 * 0.01
    p_tub = 0.01 * 0.05 + 0.99 * 0.01
    got = asia_network().query("either")["yes"]
    assert got == pytest.approx(1 - (1 - p_lung) * (1 - p_tub), rel=1e-12)


def test_load_network_by_name_and_path(tmp_path):
    assert load_network("asia").nodes == asia_network().nodes
    assert load_network("ASIA").edges == asia_network().edges
    path = tmp_path / "net.bif"
    write_bif(asia_network(), path)
    for arg in (path, str(path)):
        assert load_network(arg).edges == asia_network().edges


def test_load_network_errors_list_names(tmp_path):
    with pytest.raises(ValueError, match=r"'alarm'.*\['asia'\]"):
        load_network("alarm")
    with pytest.raises(ValueError, match="No such BIF file"):
        load_network(tmp_path / "missing.bif")


def test_sample_asia():
    frame = sample_asia(100)
    assert frame.shape == (100, 8)
    assert all(isinstance(frame[c].dtype, pd.CategoricalDtype) for c in frame)
    pd.testing.assert_frame_equal(frame, sample_asia(100))
    assert not frame.equals(sample_asia(100, random_state=1))
