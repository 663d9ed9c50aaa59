"""Shared fixtures: the benchmark networks in ../shared/networks (skip when absent)."""

import os
from pathlib import Path

import pytest

# SKBN_SHARED_NETWORKS overrides the location (e.g. from a worktree elsewhere)
SHARED_NETWORKS = Path(
    os.environ.get("SKBN_SHARED_NETWORKS", Path(__file__).resolve().parents[1].parent / "shared" / "networks")
)


def shared_network(name):
    """Read ``<repo>/../shared/networks/<name>.bif``, skipping the test when it is absent."""
    from skbn.io import read_bif

    path = SHARED_NETWORKS / f"{name}.bif"
    if not path.exists():
        pytest.skip(f"shared network {path} not available")
    return read_bif(path)


@pytest.fixture(scope="session")
def alarm():
    return shared_network("alarm")
