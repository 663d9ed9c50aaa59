"""Shared fixtures: the benchmark networks, from ../shared/networks or else built in, and
small data sets several test files share.

The seven standard networks (asia, cancer, earthquake, survey, sachs, child, alarm) ship
inside the package (``skbn.datasets.load_network``), so tests that need them run in a fresh
clone too. When ``<repo>/../shared/networks`` (or ``$SKBN_SHARED_NETWORKS``) exists, the
tests read the files there instead: the same networks, kept beside the checkouts for the
benchmarks. ``NETWORKS`` is the folder in use; a test reads ``NETWORKS / "alarm.bif"``.
"""

import itertools
import os
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

# SKBN_SHARED_NETWORKS overrides the location (e.g. from a worktree elsewhere)
SHARED_NETWORKS = Path(
    os.environ.get("SKBN_SHARED_NETWORKS", Path(__file__).resolve().parents[1].parent / "shared" / "networks")
)
#: The networks shipped in the package (skbn/_networks/*.bif), read from the tested checkout.
BUILTIN_NETWORKS = Path(str(resources.files("skbn") / "_networks"))
#: Where the tests read the standard networks: ../shared/networks when present, else built in.
NETWORKS = SHARED_NETWORKS if SHARED_NETWORKS.is_dir() else BUILTIN_NETWORKS


def shared_network(name):
    """The standard network ``name`` read from ``NETWORKS / "<name>.bif"``.

    Skips the test only for a name that is neither in ../shared/networks nor built in.
    """
    from skbn.io import read_bif

    for folder in (NETWORKS, BUILTIN_NETWORKS):
        path = folder / f"{name}.bif"
        if path.is_file():
            return read_bif(path)
    pytest.skip(f"network {name!r} is neither in {SHARED_NETWORKS} nor built in")


@pytest.fixture(scope="session")
def alarm():
    return shared_network("alarm")


def all_dags(p):
    """Every DAG on p nodes as parent bitmasks (n_dags, p): bit ``u`` of ``[d, v]`` says
    ``u -> v`` in DAG ``d``; and its number of linear extensions (orders it is consistent
    with), by enumerating edge sets and orders: the brute-force reference of the tests of
    edge posteriors and of exact search."""
    pairs = [(u, v) for u in range(p) for v in range(p) if u != v]
    masks = np.arange(1 << len(pairs), dtype=np.int64)
    extensions = np.zeros(len(masks), dtype=np.int64)
    for order in itertools.permutations(range(p)):
        position = {v: i for i, v in enumerate(order)}
        backward = sum(1 << e for e, (u, v) in enumerate(pairs) if position[u] > position[v])
        extensions += (masks & backward) == 0
    dags, extensions = masks[extensions > 0], extensions[extensions > 0]
    parents = np.zeros((len(dags), p), dtype=np.int64)
    for e, (u, v) in enumerate(pairs):
        parents[:, v] |= ((dags >> e) & 1) << u
    return parents, extensions


def collinear_triple(n=200, seed=0):
    """``c = a + b`` exactly, ``b`` caused by ``a`` and ``d`` by ``b`` (Gaussian noise): the
    data of the bnlearn 4.9 comparisons of BGe and bic-g on determined columns (a CSV of
    these floats gives the same numbers in R)."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = 0.5 * a + rng.normal(size=n)
    d = rng.normal(size=n) + b
    return pd.DataFrame({"a": a, "b": b, "c": a + b, "d": d})


def with_duplicated_column():
    """:func:`collinear_triple` with ``c`` replaced by ``a2``, an exact copy of ``a``."""
    X = collinear_triple()
    return X.drop(columns="c").assign(a2=X["a"])[["a", "b", "a2", "d"]]


def one_observational_row_data():
    """Three continuous columns whose first, ``a``, is set by intervention in every row but
    the first (``(X, interventions mask)``): every family of ``a`` is scored on one row, so
    under the unbiased Gaussian BIC every one scores -inf, and so does every DAG."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=50)
    X = pd.DataFrame({"a": a, "b": a + rng.normal(size=50), "c": rng.normal(size=50)})
    mask = np.zeros(X.shape, dtype=bool)
    mask[1:, 0] = True
    return X, mask



def assert_cli_learns_what_the_api_learns(run, capsys, path, frame, options, folder):
    """``skbn learn PATH OPTIONS`` then ``skbn score`` on the file: the edges and the mean
    log-likelihood of ``HillClimbStructure().fit(frame)``, ``frame`` the file read as meant
    (``run(argv, capsys)`` returns ``(status, out, err)`` of the command line)."""
    from skbn import HillClimbStructure
    from skbn.io import read_json

    model = Path(folder) / "m.json"
    status, _, err = run(["learn", path, *options, "-o", model], capsys)
    assert status == 0, err
    expected = HillClimbStructure().fit(frame)
    assert sorted(read_json(model).edges) == sorted(expected.edges_)
    status, out, err = run(["score", model, path, *options], capsys)
    assert status == 0, err
    assert f"mean log-likelihood: {expected.score(frame):.6f}" in out


def run_cli(argv, capsys):
    """Run the command line ``skbn ARGV`` in-process; return (exit status, stdout, stderr)."""
    from skbn.cli import main

    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(status, err, *fragments):
    """The command failed (status 1) with a one-line message, no traceback, holding every
    fragment."""
    assert status == 1
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, err


def linked_measurements(n, seed, mean, sd, decimals):
    """Three linked measurements ``a -> b -> c`` rounded to ``decimals`` (a chain of
    Gaussian regressions; ``a`` of mean ``mean`` and spread ``sd``)."""
    rng = np.random.default_rng(seed)
    a = rng.normal(mean, sd, n).round(decimals)
    b = (0.8 * a + rng.normal(0, 1, n)).round(decimals)
    c = (-0.5 * b + rng.normal(0, 1, n)).round(decimals)
    return pd.DataFrame({"a": a, "b": b, "c": c})


def lone_state_frame():
    """A discrete ``g`` whose state ``'c'`` is held by one row beside the chain ``x -> y -> z``
    (60 rows): every bic-cg family with ``g`` as a parent of a continuous column scores
    ``-inf`` (one row cannot estimate that configuration's regression)."""
    rng = np.random.RandomState(0)
    n = 60
    x = rng.normal(size=n).round(3)
    y = (x + 0.5 * rng.normal(size=n)).round(3)
    z = (y + 0.5 * rng.normal(size=n)).round(3)
    g = np.where(np.arange(n) % 2 == 0, "a", "b")
    g[0] = "c"
    return pd.DataFrame({"g": g, "x": x, "y": y, "z": z})


def dag_descendants(edges, v):
    """The descendants of ``v`` in the DAG ``edges`` (``(parent, child)`` pairs), ``v``
    included, by a walk: the brute force the causal tests check skbn's criteria against."""
    out, stack = {v}, [v]
    while stack:
        u = stack.pop()
        for p, c in edges:
            if p == u and c not in out:
                out.add(c)
                stack.append(c)
    return out
