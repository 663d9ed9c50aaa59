"""PC with ``n_jobs``: the work split across joblib workers gives the serial results.

A level of the skeleton runs by side variable (``_by_side``); with ``n_jobs`` a variable
whose sets cost more than a batch (a hub) is split into contiguous ranges of its subsets'
lexicographic order (``_side_work``), each pair's ranges appended in order up to its first
independence, and the collider step's and the evidence's units are cut where the batches
end (``_unit_batches``). Batches are forced small here (module constants) so that the
split paths run on small data; every result is compared with ``n_jobs=1``'s.
"""

from dataclasses import replace
from math import comb

import numpy as np
import pandas as pd
import pytest
from test_pc_grouped import _dense_adjacency

import skbn._engines._ci_runner as ci_runner
import skbn.estimators._pc as pc_module
from skbn._data import encode_fit
from skbn._engines._skeleton import _edge_subsets
from skbn.citests import BayesFactor, ChiSquare, GTest
from skbn.estimators import PCStructure


def _hub_frame(n_rows=1500, n_children=12, seed=0):
    """A three-state hub with ``n_children`` noisy copies (the hub has 12+ neighbours), a
    grandchild of the hub and a collider below it; states named "None", "NA" and "a.b",
    column names with dots and spaces, the rows sorted by the hub."""
    rng = np.random.default_rng(seed)
    states = np.array(["None", "NA", "a.b"])

    def copy(parent, keep=0.7):
        return np.where(rng.random(n_rows) < keep, parent, rng.integers(0, 3, n_rows))

    hub = rng.integers(0, 3, n_rows)
    columns = {"hub.0 x": hub}
    for k in range(n_children):
        columns[f"child.{k} y"] = copy(hub)
    columns["grand child"] = copy(columns["child.0 y"])
    columns["collider.z"] = copy((columns["child.1 y"] + columns["grand child"]) % 3, 0.8)
    frame = pd.DataFrame({name: states[values] for name, values in columns.items()})
    return frame.sort_values("hub.0 x", kind="stable").reset_index(drop=True)


def _last_first(n_jobs=None, **kwargs):
    """A stand-in for joblib's ``Parallel``: the tasks in this process, the last one first
    (as a worker may start a later batch before another starts an earlier one), their
    outputs in task order."""
    def run(tasks):
        return [function(*args, **kw) for function, args, kw in reversed(list(tasks))][::-1]
    return run


@pytest.mark.parametrize("ci_test", [ChiSquare(alpha=0.3), GTest(alpha=0.3), BayesFactor()])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("size", [1, 2, 3])
def test_by_side_split_hubs_equal_serial(ci_test, weighted, size, monkeypatch):
    # many batches per worker: the variables are split into ranges of their sets, each
    # pair's ranges merged in order up to its first independence; n_jobs 2 (and 3) in
    # joblib workers give the serial results bit for bit (the serial results are those of
    # one table per test: test_pc_grouped)
    monkeypatch.setattr(ci_runner, "_SIDE_BATCHES_PER_JOB", 16)
    split = []
    side_work, first_pass_runs = ci_runner._side_work, ci_runner._first_pass_runs
    monkeypatch.setattr(ci_runner, "_side_work", lambda *a: split.append(side_work(*a)) or split[-1])
    # levels 1 and 2: hubs' first sides split in the first pass, as (v, start, stop)
    monkeypatch.setattr(ci_runner, "_first_pass_runs", lambda *a: split.append(
        [(v, None, start, stop) for v, start, stop in first_pass_runs(*a)[1]]) or first_pass_runs(*a))
    data, _ = encode_fit(_hub_frame(n_rows=600))
    if weighted:
        data = replace(data, weights=np.random.default_rng(3).uniform(0.2, 2.0, data.n_samples))
    frozen = _dense_adjacency(data.n_variables, seed=size, density=0.9)
    assert max(len(a) for a in frozen) >= 12  # hubs
    pairs = [(x, y) for x in range(data.n_variables) for y in frozen[x] if x < y]
    options = {"lump_degenerate": ci_runner._lumps_strata(ci_test)}
    serial = ci_runner._by_side(data, ci_test, frozen, pairs, size, n_jobs=1, counter_options=options)
    assert any(f and f[-1] for _, f, _ in serial) and any(f and not f[-1] for _, f, _ in serial)
    for n_jobs in (2, 3) if isinstance(ci_test, ChiSquare) and not weighted else (2,):
        split.clear()
        got = ci_runner._by_side(data, ci_test, frozen, pairs, size, n_jobs=n_jobs, counter_options=options)
        assert any(start > 0 for work in split for _, _, start, _ in work)  # some variable was split
        assert [f for _, f, _ in got] == [f for _, f, _ in serial]
        assert [r for _, _, r in got] == [r for _, _, r in serial]
        for (pvalues, _, _), (reference, _, _) in zip(got, serial):
            np.testing.assert_array_equal(pvalues, reference)


@pytest.mark.parametrize("ci_test", [ChiSquare(alpha=0.3), GTest(alpha=0.3), BayesFactor()])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("batches_per_job", [1, 8])
@pytest.mark.parametrize("size", [1, 2])
def test_first_pass_runs_equal_serial(ci_test, weighted, batches_per_job, size, monkeypatch):
    # levels 1 and 2 with n_jobs: runs of consecutive variables in the workers (a pair's
    # second side with its first when both are in one run), hubs' first sides in ranges
    # (with 8 batches per job), then the second sides of the pairs across runs; pairs
    # separated on their first side, on their second side and never, second sides in a run
    # and in the second pass: the serial results bit for bit, for n_jobs 2 and 3
    monkeypatch.setattr(ci_runner, "_SIDE_BATCHES_PER_JOB", batches_per_job)
    planned, second = [], []
    first_pass_runs, side_work = ci_runner._first_pass_runs, ci_runner._side_work
    monkeypatch.setattr(ci_runner, "_first_pass_runs",
                        lambda *a: planned.append(first_pass_runs(*a)) or planned[-1])
    monkeypatch.setattr(ci_runner, "_side_work", lambda *a: second.append(a[1]) or side_work(*a))
    data, _ = encode_fit(_hub_frame(n_rows=600, n_children=14, seed=2))
    if weighted:
        data = replace(data, weights=np.random.default_rng(4).uniform(0.2, 2.0, data.n_samples))
    frozen = _dense_adjacency(data.n_variables, seed=7, density=0.85)
    pairs = [(x, y) for x in range(data.n_variables) for y in frozen[x] if x < y]
    options = {"lump_degenerate": ci_runner._lumps_strata(ci_test)}
    serial = ci_runner._by_side(data, ci_test, frozen, pairs, size, n_jobs=1, counter_options=options)
    first_side = [comb(len(frozen[x]) - 1, size) for x, _ in pairs]
    flags = [f for _, f, _ in serial]
    assert any(f and f[-1] and len(f) <= n for f, n in zip(flags, first_side))  # separated on x's side
    # on y's side (Bayes factors at level 2 separate no pair there on these data, and the
    # runs below keep no pair with a second side together)
    few_second_sides = size == 2 and isinstance(ci_test, BayesFactor)
    assert any(f and f[-1] and len(f) > n for f, n in zip(flags, first_side)) or few_second_sides
    assert any(f and not f[-1] for f in flags)  # never
    for n_jobs in (2, 3) if isinstance(ci_test, ChiSquare) and not weighted else (2,):
        planned.clear()
        second.clear()
        got = ci_runner._by_side(data, ci_test, frozen, pairs, size, n_jobs=n_jobs, counter_options=options)
        (runs, hubs, costs), = planned
        assert len(runs) > 1 and len(costs) == len(runs) + len(hubs)
        assert bool(hubs) == (batches_per_job > 1)
        if n_jobs == 2 and not few_second_sides:  # second sides within a run, and in the second pass
            run_of = {v: k for k, run in enumerate(runs) for v in run}
            assert any(len(f) > n and run_of.get(x, -1) == run_of.get(y, -2)
                       for (x, y), f, n in zip(pairs, flags, first_side))
            assert second and any(queries for queries in second[0].values())
        assert [f for _, f, _ in got] == flags
        assert [r for _, _, r in got] == [r for _, _, r in serial]
        for (pvalues, _, _), (reference, _, _) in zip(got, serial):
            np.testing.assert_array_equal(pvalues, reference)


@pytest.mark.parametrize("size", [1, 2])
def test_first_pass_runs_cover_the_variables(size):
    # the runs are the involved variables that are not hubs, increasing and consecutive;
    # each hub's ranges cover its sets in order; the first runs share most of the cost
    rng = np.random.default_rng(size)
    for trial in range(200):
        p = int(rng.integers(2, 40))
        frozen = _dense_adjacency(p, seed=trial, density=float(rng.uniform(0.05, 0.9)))
        cards = rng.integers(2, 5, p)
        pairs = [(x, y) for x in range(p) for y in frozen[x]
                 if x < y and max(len(frozen[x]), len(frozen[y])) - 1 >= size]
        n_jobs = int(rng.integers(2, 5))
        runs, hubs, costs = ci_runner._first_pass_runs(frozen, pairs, cards, n_jobs, size)
        involved = sorted({v for pair in pairs for v in pair})
        hub_variables = sorted({v for v, _, _ in hubs})
        assert [v for run in runs for v in run] == [v for v in involved if v not in hub_variables]
        assert all(run == sorted(run) for run in runs) and len(runs) <= 2 * n_jobs
        assert all(any(x == v for x, _ in pairs) for v in hub_variables)
        for v in hub_variables:
            ranges = [(a, b) for w, a, b in hubs if w == v]
            assert ranges[0][0] == 0 and ranges[-1][1] == comb(len(frozen[v]), size)
            assert all(b1 == a2 and a1 < b1 for (a1, b1), (a2, _) in zip(ranges, ranges[1:] + [(None, None)])
                       if a2 is not None)
        # level 2: a variable of one neighbour has no set of its own (cost 0)
        assert len(costs) == len(runs) + len(hubs) and all(c > 0 if size == 1 else c >= 0 for c in costs)


@pytest.mark.parametrize("size", [1, 2])
def test_by_side_deadline_gives_prefixes(size, monkeypatch):
    # max_time during a split level: the ranges started after the deadline are not run
    # (the later batches run first here), and each pair keeps the results before its
    # first range not run (a prefix of its serial results), never those of a later range
    monkeypatch.setattr(ci_runner, "_SIDE_BATCHES_PER_JOB", 16)
    monkeypatch.setattr(ci_runner, "Parallel", _last_first)
    data, _ = encode_fit(_hub_frame(n_rows=400))
    ci_test = ChiSquare(alpha=0.01)
    frozen = _dense_adjacency(data.n_variables, seed=5, density=0.95)
    pairs = [(x, y) for x in range(data.n_variables) for y in frozen[x] if x < y]
    serial = ci_runner._by_side(data, ci_test, frozen, pairs, size, n_jobs=1)
    ticks = iter(range(10**9))
    monkeypatch.setattr(ci_runner, "_now", lambda: next(ticks))
    got = ci_runner._by_side(data, ci_test, frozen, pairs, size, n_jobs=2, deadline=8)
    lengths = [(len(g[1]), len(s[1])) for g, s in zip(got, serial)]
    assert any(a == b > 0 for a, b in lengths) and any(a < b for a, b in lengths)
    for (pvalues, flags, ruled), (ref_pvalues, ref_flags, ref_ruled) in zip(got, serial):
        assert flags == ref_flags[:len(flags)] and pvalues == ref_pvalues[:len(pvalues)]
        assert ruled == ref_ruled[:len(ruled)]


def test_unit_batches_cover_units_in_order():
    # every set of every unit exactly once, in unit order and set order; with split the
    # batches hold equal numbers of sets (to one), without it they end between units
    rng = np.random.default_rng(0)
    for _ in range(500):
        units = [(0, 1, list(range(int(rng.choice([0, 1, 2, 5, 40]))))) for _ in range(rng.integers(1, 8))]
        total = sum(len(u[2]) for u in units)
        for split in (False, True):
            n_batches = int(rng.integers(1, 6))
            batches = ci_runner._unit_batches(units, n_batches, split)
            assert 1 <= len(batches) <= n_batches and all(batches)
            pieces = [piece for batch in batches for piece in batch]
            reached = [0] * len(units)
            for u, start, stop in pieces:
                assert start == reached[u] and all(r == len(units[w][2]) for w, r in enumerate(reached[:u]))
                reached[u] = stop
            assert reached == [len(u[2]) for u in units]
            if split and total >= n_batches:
                sizes = [sum(stop - start for _, start, stop in batch) for batch in batches]
                assert len(batches) == n_batches and max(sizes) - min(sizes) <= 1
            if not split:
                assert all(start == 0 and stop == len(units[u][2]) for u, start, stop in pieces)


def test_run_split_units_equal_serial(monkeypatch):
    # the collider step's units (every set, no stopping) cut where batches end: the same
    # p-values and decisions in n_jobs=2 and 3 workers; and under a deadline (in-process
    # stand-in, the later batches first), each unit a prefix of its results
    monkeypatch.setattr(ci_runner, "_BATCHES_PER_JOB", 3)
    cut = []
    unit_batches = ci_runner._unit_batches
    monkeypatch.setattr(ci_runner, "_unit_batches",
                        lambda *a, **k: cut.append(unit_batches(*a, **k)) or cut[-1])
    data, _ = encode_fit(_hub_frame(n_rows=500))
    ci_test = GTest(alpha=0.2)
    frozen = _dense_adjacency(data.n_variables, seed=1, density=0.9)
    units = [(x, y, _edge_subsets(frozen, x, y, range(4))) for x, y in [(0, 1), (0, 3), (2, 5), (4, 14)]]
    with ci_runner.CITestRunner(data, ci_test) as runner:
        serial = runner.run(units, False)
    for n_jobs in (2, 3):
        cut.clear()
        with ci_runner.CITestRunner(data, ci_test, n_jobs=n_jobs, min_parallel_work=0,
                                    min_memmap_bytes=0) as runner:
            got = runner.run(units, False)
        assert any(start > 0 for batch in cut[0] for _, start, _ in batch)  # a unit was split
        assert got == serial
    monkeypatch.setattr(ci_runner, "Parallel", _last_first)
    ticks = iter(range(10**9))
    monkeypatch.setattr(ci_runner, "_now", lambda: next(ticks))
    with ci_runner.CITestRunner(data, ci_test, n_jobs=2, max_time=6, min_parallel_work=0) as runner:
        got = runner.run(units, False)
    assert any(len(g[1]) < len(s[1]) for g, s in zip(got, serial))
    for (pvalues, flags, ruled), (ref_pvalues, ref_flags, ref_ruled) in zip(got, serial):
        assert flags == ref_flags[:len(flags)] and pvalues == ref_pvalues[:len(pvalues)]
        assert ruled == ref_ruled[:len(ruled)]


@pytest.mark.parametrize("ci_test", ["chi_square", "g_test", "bayes_factor"])
def test_pc_same_for_any_n_jobs_with_a_hub(ci_test, monkeypatch):
    # the whole fit (majority rule: collider step and evidence) on data with a hub, with
    # every level and the collider step in workers and split: skeleton decisions,
    # separating sets, collider sets, n_tests_ and CPDAG equal for n_jobs 1, 2 and 3
    monkeypatch.setattr(ci_runner, "_MIN_PARALLEL_WORK", 0)
    monkeypatch.setattr(ci_runner, "_MIN_MEMMAP_BYTES", 0)
    monkeypatch.setattr(ci_runner, "_SIDE_BATCHES_PER_JOB", 16)
    monkeypatch.setattr(ci_runner, "_BATCHES_PER_JOB", 3)
    monkeypatch.setattr(ci_runner, "_MIN_GROUPED_TESTS", 0)  # every level by side
    monkeypatch.setattr(ci_runner, "_MIN_PAIRS_PER_SET", 0)
    found = {}

    def keep(name, function):
        def wrapped(*args, **kwargs):
            found[name] = out = function(*args, **kwargs)
            return out
        return wrapped

    monkeypatch.setattr(pc_module, "skeleton", keep("skeleton", pc_module.skeleton))
    monkeypatch.setattr(pc_module, "collider_separating_sets",
                        keep("colliders", pc_module.collider_separating_sets))
    split = []
    side_work = ci_runner._side_work
    monkeypatch.setattr(ci_runner, "_side_work", lambda *a: split.append(side_work(*a)) or split[-1])
    frame = _hub_frame(n_rows=800)
    weights = np.random.default_rng(1).uniform(0.5, 1.5, len(frame))
    fits = []
    for n_jobs in (1, 2, 3):
        learner = PCStructure(ci_test=ci_test, orient="majority", max_cond_vars=3, n_jobs=n_jobs,
                              fit_parameters=False)
        learner.fit(frame, sample_weight=weights if ci_test == "g_test" else None)
        adjacency, sepsets, n_tests, decided = found["skeleton"]
        fits.append((adjacency, sepsets, n_tests, dict(decided), found["colliders"], learner.n_tests_,
                     learner.sepsets_, sorted(learner.directed_edges_), sorted(learner.undirected_edges_)))
    # the hub's 12 neighbours at level 2 and later (columns in name order), its sets split
    # between workers
    hub = sorted(frame.columns).index("hub.0 x")
    assert min(len(frozen[hub]) for level, frozen, _ in decided.levels if level >= 2) >= 12
    assert any(v == hub and start > 0 for work in split for v, _, start, _ in work)
    assert fits[0][5] > fits[0][2] and fits[0][4][0]  # the collider step ran tests of its own
    assert fits[1] == fits[0] and fits[2] == fits[0]


def test_first_sets_are_the_pairs_first_sets():
    # the sets listed for a level's results (level 1 built without the generator) are the
    # first n of the pair's test order, for every n up to all of them and beyond
    from itertools import islice
    for trial in range(100):
        p = 3 + trial % 12
        frozen = _dense_adjacency(p, seed=trial, density=0.3 + 0.6 * (trial % 7) / 6)
        for x, y in [(a, b) for a in range(p) for b in frozen[a] if a < b]:
            for size in (1, 2):
                every = list(ci_runner._pair_sets(frozen, x, y, size))
                for n in range(len(every) + 2):
                    assert ci_runner._first_sets(frozen, x, y, size, n) == list(
                        islice(ci_runner._pair_sets(frozen, x, y, size), n))


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_collider_sets_equal_every_test_run_alone(n_jobs, monkeypatch):
    # the collider step size by size, in pieces of 5 sets taken chunk by chunk across the
    # pairs (the hub's two non-adjacent pairs share its subsets), groups of 200 sets (cut
    # within a size), in process workers: each pair's separating sets in _edge_subsets
    # order with their p-values, and the number of tests run, equal running every test
    # of every pair alone (skeleton tests included: the same tests give the same values)
    from skbn._engines._ci_runner import CITestRunner
    from skbn._engines._skeleton import skeleton

    monkeypatch.setattr(pc_module, "_COLLIDER_CHUNK", 5)
    data = encode_fit(_hub_frame(n_rows=800))[0]
    ci_test = ChiSquare()
    with CITestRunner(data, ci_test, n_jobs=n_jobs, min_parallel_work=0, max_group_sets=200) as runner:
        adjacency, _, _, decided = skeleton(runner, data.n_variables, max_cond_vars=4)
        triples = pc_module.unshielded_triples(adjacency)
        separating, n_tests, pvalues = pc_module.collider_separating_sets(
            runner, adjacency, triples, decided, 4)
    frozen = [sorted(a) for a in adjacency]
    want_tests = 0
    for x, y in sorted({(x, y) for x, _, y in triples}):
        largest = min(max(len(frozen[x]), len(frozen[y])), 4)
        every = _edge_subsets(frozen, x, y, range(largest + 1))
        results = [ci_test.test_variables(data, x, y, s) for s in every]
        kept = [(s, r.pvalue) for s, r in zip(every, results) if r.independent]
        assert separating[(x, y)] == [s for s, _ in kept]
        assert pvalues[(x, y)] == [pvalue for _, pvalue in kept]
        known = decided.of_pair(x, y)
        want_tests += sum(s not in known for s in every)
    hub = list(data.names).index("hub.0 x")
    assert sum(hub in pair for pair in separating) >= 2 and len(frozen[hub]) >= 12
    assert n_tests == want_tests > 1000
