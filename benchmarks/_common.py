"""Shared helpers of the benchmark scripts (not part of the package or the test suite)."""

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from skbn.io import read_bif  # noqa: E402
from skbn.network import GaussianBayesianNetwork  # noqa: E402

# The benchmark networks (alarm, child, ...): ../shared/networks beside the checkout when it
# exists, else the same .bif files that ship inside the package (skbn/_networks), so the
# scripts run from a fresh clone; SKBN_SHARED_NETWORKS overrides the location.
_BESIDE_CHECKOUT = Path(__file__).resolve().parents[2] / "shared" / "networks"
_SHIPPED = Path(__file__).resolve().parents[1] / "skbn" / "_networks"
SHARED_NETWORKS = Path(
    os.environ.get("SKBN_SHARED_NETWORKS", _BESIDE_CHECKOUT if _BESIDE_CHECKOUT.is_dir() else _SHIPPED)
)


def load_shared(name):
    path = SHARED_NETWORKS / f"{name}.bif"
    if not path.exists():
        raise SystemExit(f"{path} not found (SKBN_SHARED_NETWORKS, ../shared/networks or skbn/_networks)")
    return read_bif(path)


def read_gaussian_json(path):
    """A Gaussian network of the bnlearn repository in the JSON layout of pgmpy's example
    models (``ecoli70.json``, ``magic-niab.json``, ``magic-irri.json``, ``arth150.json``:
    ``nodes``, ``arcs`` and per node ``parents``, ``coefficients`` with ``(Intercept)`` and
    one entry per parent, ``variance``), as a :class:`GaussianBayesianNetwork`."""
    with open(path) as handle:
        doc = json.load(handle)
    cpds = doc["cpds"]
    parents = {v: list(cpds[v]["parents"]) for v in doc["nodes"]}
    return GaussianBayesianNetwork(
        doc["nodes"], parents,
        {v: cpds[v]["coefficients"]["(Intercept)"][0] for v in doc["nodes"]},
        {v: [cpds[v]["coefficients"][u][0] for u in parents[v]] for v in doc["nodes"]},
        {v: float(np.sqrt(cpds[v]["variance"][0])) for v in doc["nodes"]})


def best_time(function, repeats=3, clock=time.perf_counter):
    """Best time of ``repeats`` calls and the last result (wall time, or ``clock``, e.g.
    ``time.process_time`` for CPU time, which ignores other processes on a shared machine)."""
    best, result = np.inf, None
    for _ in range(repeats):
        start = clock()
        result = function()
        best = min(best, clock() - start)
    return best, result


def best_times(functions, repeats=3, clock=time.perf_counter):
    """:func:`best_time` of several functions run in turn (one call of each per round), so
    that a slower or faster spell of a shared machine touches them all alike; returns
    ``{name: (best, median, last result)}`` for ``functions`` ``{name: function}``."""
    times = {name: [] for name in functions}
    results = {}
    for _ in range(repeats):
        for name, function in functions.items():
            start = clock()
            results[name] = function()
            times[name].append(clock() - start)
    return {name: (min(times[name]), float(np.median(times[name])), results[name]) for name in functions}


def print_table(rows, columns):
    widths = [max(len(c), *(len(_fmt(r.get(c))) for r in rows)) for c in columns]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for row in rows:
        print("  ".join(_fmt(row.get(c)).rjust(w) for c, w in zip(columns, widths)))


def _fmt(value):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e5 else f"{value:.1f}"
    return str(value)
