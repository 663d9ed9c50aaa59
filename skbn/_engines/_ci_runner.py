"""The CI-test runner shared by the constraint-based learners (PC, MMHC's restrict phase).

A learner decides *which* tests to run; :class:`CITestRunner` runs them: it owns the
encoded data, the CI-test plug-in, the decision level, the per-fit caches (conditioning-set
ids and level-1 Gram matrices of :class:`~skbn._counting.StratifiedCounter`, bounded in
bytes; the results of keyed tests), the ``max_time`` deadline and the joblib workers.

Two ways in:

* **units** ``(x, y, [S1, S2, ...])``, the sets of one pair in order, optionally stopping at
  the first independence (:meth:`CITestRunner.run`, :func:`_streamed` for a level generated
  group by group): PC's skeleton and collider tests;
* **keys** ``(x, y, S)`` with ``x < y`` and ``S`` sorted, answered from a result cache
  (:meth:`CITestRunner.cached`): MMPC, whose requests repeat across targets.

Either way all tables of one shape ``(r_x, r_y)`` go through the plug-in's
:meth:`~skbn.citests.BaseCITest.test_batch` in one call (:func:`run_tables`), and the
decision is the test's own or ``pvalue > level`` (a corrected level, e.g. Bonferroni's
``alpha / m``). Every result depends only on its test, so the results are the same for any
``n_jobs``, group size, round size and cache bound.

A unit's result is three lists, one entry per test in order: the p-values, the decisions
and whether the test's heuristic power rule decided it instead of the data
(:attr:`~skbn.citests.CITestBatchResult.power_rule`: too few samples per degree of
freedom, dependence assumed). The runner adds up the last over the results it hands out
(:attr:`CITestRunner.n_power_rule`), the one count of those tests for the learners.
"""

import os
import shutil
import tempfile
import time
from dataclasses import replace
from itertools import combinations, islice
from math import ceil, comb

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

from skbn._counting import StratifiedCounter, gram_given, gram_nbytes, pairwise_contingency
from skbn._counting._stratified import CACHE_BYTES, GRAM_CACHE_BYTES, GivenBlocks
from skbn._data import _code_dtype
from skbn._engines._moment_tests import MomentTests, uses_moments
from skbn._engines._rounds import still_active
from skbn.citests import ChiSquare, GTest, _FrequentistTest
from skbn.exceptions import PowerRuleWarning
from skbn.utils._warnings import warn_user

__all__ = ["CITestRunner", "run_tables"]

#: Largest number of conditioning sets whose tables are counted in one round per pair.
_MAX_CHUNK = 64
#: Default ``max_round_cells``: table cells (strata x r_x x r_y, empty strata included)
#: counted before a round's tables go through the test. Bounds the memory of a round
#: (32 MiB as float64) whatever the number of pairs and sets (the collider step of a
#: 441-variable network peaked at 1.1 GB), and of a piece of the keyed tests of
#: :meth:`CITestRunner.cached` (a lock-step round of MMHC on the 100-state mildew network
#: passed 10 GB when all its tables were counted at once).
_MAX_ROUND_CELLS = 1 << 22
#: Default ``min_parallel_work``: below this many counted cells (conditioning sets x rows)
#: a batch of units runs in-process: a process-parallel level costs about 12 ms (dispatch,
#: results) plus the workers' cold caches of conditioning-set ids, i.e. about 10**7 cells
#: of counting.
_MIN_PARALLEL_WORK = 10_000_000
#: Default ``min_memmap_bytes``: codes at least this large are memory-mapped for process
#: workers (joblib's own threshold).
_MIN_MEMMAP_BYTES = 1 << 20
#: The clock of ``max_time`` (wall time, comparable between worker processes).
_now = time.time
#: Default ``max_group_sets``: conditioning sets per group of test units. A level (or the
#: collider step) is generated and run group by group, so its memory is that of one
#: group, not of all its sets (level 1 of a 1,000-node pedigree has tens of millions).
_MAX_GROUP_SETS = 1 << 17
#: Batches per worker in a process-parallel level of :func:`_by_side` (:func:`_side_work`):
#: joblib hands them out as workers free up, so several each even out the costs the
#: estimate (sets x pairs) misses; a variable costing more than one batch is split.
_SIDE_BATCHES_PER_JOB = 4
#: Share of the first pass of levels 1 and 2 (:func:`_first_pass_runs`) left to the ``n_jobs``
#: last runs of consecutive variables, which even out the cost estimate's errors: every
#: boundary between runs sends the second sides of the pairs across it to a second pass.
_RUN_TAIL = 0.1
#: Smallest level at which a process-parallel level of :func:`_by_side` runs each
#: variable's other side with its own side, in one pass (the other side's tests of a pair
#: separated on its own side are wasted), instead of runs of consecutive variables and a
#: second pass for the pairs across runs not separated on their own side (which counts
#: their variables' strata a second time). 1,000-variable pedigree, 10,000 rows, workers'
#: CPU with ``n_jobs=2``: level 1 (93% of the pairs separated on their first side) is
#: cheaper in runs; level 2 (69%) 21.5-23.2 s in runs, 27.4-28.7 s in one pass (18.3 s
#: with one job); from level 3 almost no pair is separated.
_ONE_PASS_FROM_SIZE = 3
#: Batches per worker in a process-parallel run: one contiguous batch each shares the
#: most cached conditioning-set ids (measured faster than 2 or 4 smaller batches).
_BATCHES_PER_JOB = 1
#: Sets of two or more variables are counted once for all their pairs (:func:`_by_side`,
#: :func:`_by_set`) when they serve at least ``_MIN_PAIRS_PER_SET`` pairs on average and
#: the level (or group of collider units) has at least ``_MIN_GROUPED_TESTS`` tests: the
#: extra array calls per set cost more than the strata shared save on small levels (PC on
#: ALARM and CHILD, hundreds of tests a level, was 1.2-1.6x slower grouped).
_MIN_PAIRS_PER_SET = 4
_MIN_GROUPED_TESTS = 20_000
#: Level 1 (:func:`_by_side`): conditioning variables of the first round per variable,
#: doubled every round (an early independence wastes little, a kept edge takes few rounds).
_LEVEL_ONE_FIRST_ROUND = 16


def run_tables(ci_test, blocks, n_strata, r_x, r_y):
    """One :meth:`~skbn.citests.BaseCITest.test_batch` call for the tables of many tests.

    Parameters
    ----------
    ci_test : BaseCITest
        A test with ``from_counts``.
    blocks : list of ndarray of shape (n_ids, r_x * r_y)
        One block per test: its strata (flattened tables), empty ones allowed
        (:meth:`~skbn._counting.StratifiedCounter.tables`).
    n_strata : sequence of int
        Declared number of strata of every test.
    r_x, r_y : int
        The shape shared by all tables.

    Returns
    -------
    CITestBatchResult
        One entry per block. The empty strata are dropped (a stratum is observed iff its
        cells sum to more than 0, whatever the rounding of the BLAS product); the tests
        are independent of each other, so each result is that of its block alone.
    """
    tables = np.concatenate(blocks, dtype=np.float64)  # float once: the tests compute in float64
    group = np.repeat(np.arange(len(blocks)), [len(block) for block in blocks])
    observed = tables @ np.ones(r_x * r_y) > 0
    return ci_test.test_batch(tables[observed].reshape(-1, r_x, r_y), group[observed], len(blocks),
                              np.asarray(n_strata, dtype=float))


def _test_blocks(ci_test, tables, widths, n_strata, r_x, r_y):
    """One :meth:`~skbn.citests.BaseCITest.test_batch` call for the cell-major tables of
    many tests: :meth:`~skbn._counting.StratifiedCounter.stacked_tables`' ``tables``
    (``(r_x r_y, n_kept)`` each, no empty stratum) and ``widths`` (strata per test, in
    order), stacked once as float64."""
    cells = np.concatenate(tables, axis=1, dtype=np.float64).reshape(r_x, r_y, -1)
    widths = np.concatenate(widths)
    group = np.repeat(np.arange(len(widths)), widths)
    return ci_test.test_batch(cells, group, len(widths), np.asarray(n_strata, dtype=float), cell_major=True)


def _lumps_strata(ci_test):
    """Whether the strata of ``ci_test``'s tables may be lumped
    (:class:`~skbn._counting.StratifiedCounter`'s ``lump_degenerate``): it computes the
    chi-square or G statistic of :mod:`skbn.citests` (itself, or a subclass keeping both
    formulas), to which a stratum with one non-empty cell adds exactly nothing."""
    kind = type(ci_test)
    return (kind._test_batch is _FrequentistTest._test_batch
            and kind._stratum_statistic in (ChiSquare._stratum_statistic, GTest._stratum_statistic))


def _decisions(batch, level):
    """``independent`` of a batch: the test's own decision, or ``pvalue > level``."""
    return batch.independent if level is None else batch.pvalue > level


def _outcomes(batch, level):
    """The per-test lists of a batch: p-values, decisions (:func:`_decisions`) and
    whether the power rule decided each test."""
    return batch.pvalue.tolist(), _decisions(batch, level).tolist(), batch.power_rule.tolist()


def _extend(result, new, stop=None):
    """Append the per-test lists ``new`` (up to ``stop``) to a unit's ``result`` lists."""
    for values, more in zip(result, new):
        values.extend(more if stop is None else more[:stop])


def _run_units(data, ci_test, units, stop_at_first, level=None, adjacency=None, grams=None,
               caches=None, deadline=None, counter_options=None, max_round_cells=_MAX_ROUND_CELLS,
               by_set=None):
    """Worker: test ``x _||_ y | S`` for every ``(x, y, subsets)`` unit, ``S`` in order.

    Returns, per unit, ``(pvalues, independent, power_rule)`` lists, truncated after the
    first independence when ``stop_at_first`` -- exactly what testing the sets one by one would
    give. ``level``: decide ``pvalue > level`` instead of the test's own decision. Tests
    that count (``ci_test.from_counts``) are evaluated in rounds: each round takes the next
    chunk of sets of every unfinished unit (chunks grow 4, 8, ... 64, so an early
    independence wastes little), counts their tables (:class:`StratifiedCounter` with
    ``counter_options``; level-1 tables sliced from per-variable Gram matrices when the
    frozen ``adjacency`` is given, ``grams``: those already computed) and sends all tables
    of one shape through :func:`run_tables`, flushing every ``max_round_cells`` counted
    cells. ``caches`` (a dict, filled on first use) shares the counter's conditioning-set
    ids between calls. ``deadline`` (a ``_now()`` value or None): no new table is counted
    after it, so a unit may come back with fewer results than sets (the caller tells by
    their number).
    """
    results = [([], [], []) for _ in units]
    if not ci_test.from_counts:
        for (x, y, subsets), (pvalues, flags, ruled) in zip(units, results):
            if deadline is not None and _now() >= deadline:
                break
            for subset in subsets:
                result = ci_test.test_variables(data, x, y, subset)
                pvalues.append(result.pvalue)
                flags.append(result.independent if level is None else result.pvalue > level)
                ruled.append(result.power_rule)
                if stop_at_first and flags[-1]:
                    break
        return results
    counter = StratifiedCounter(data, adjacency, caches, grams, **(counter_options or {}))
    if by_set is None:
        by_set = not stop_at_first and _worth_grouping(units)
    if by_set and adjacency is None and counter._observed is None:
        return _by_set(counter, ci_test, units, level, deadline, max_round_cells)
    card = [int(r) for r in data.cardinalities]
    position = [0] * len(units)
    active = [u for u, unit in enumerate(units) if unit[2]]
    # growing chunks only pay off when a unit may stop early; otherwise fewer, larger rounds
    size = 4 if stop_at_first else _MAX_CHUNK

    def flush(by_shape):
        for (r_x, r_y), (blocks, declared, owners) in by_shape.items():
            pvalues, flags, ruled = _outcomes(run_tables(ci_test, blocks, declared, r_x, r_y), level)
            k = 0
            for u, n in owners:
                _extend(results[u], (pvalues[k:k + n], flags[k:k + n], ruled[k:k + n]))
                k += n
        by_shape.clear()

    while active:
        by_shape, pending = {}, 0
        for u in active:
            if deadline is not None and _now() >= deadline:
                break  # the units not reached keep the results of the earlier rounds
            x, y, subsets = units[u]
            chunk = subsets[position[u]:position[u] + size]
            position[u] += len(chunk)
            blocks, declared, owners = by_shape.setdefault((card[x], card[y]), ([], [], []))
            for subset in chunk:
                block, q = counter.tables(x, y, subset)
                blocks.append(block)
                declared.append(q)
                pending += block.size
            owners.append((u, len(chunk)))
            if pending > max_round_cells:  # bound the memory of a round's tables
                flush(by_shape)
                pending = 0
        flush(by_shape)
        active = still_active(active, results, position, units, stop_at_first)
        size = min(2 * size, _MAX_CHUNK)
        if deadline is not None and _now() >= deadline:
            break
    return results


def _by_set(counter, ci_test, units, level=None, deadline=None, max_round_cells=_MAX_ROUND_CELLS):
    """:func:`_run_units` without stopping, on complete data: the tests grouped by set.

    Every set ``S`` of the units is counted once for all the pairs it is tested with
    (:meth:`~skbn._counting.StratifiedCounter.stacked_tables`, one per table shape), the
    sets in order of first appearance; the tables are tested every ``max_round_cells``
    cells. Each result is that of its own test, so the results are those of
    :func:`_run_units`. Once ``deadline`` has passed no set is counted, and each unit
    keeps the results before its first untested set. Worth it for the units of
    :func:`_worth_grouping`.
    """
    card = [int(r) for r in counter.cards]
    pvalues = [[None] * len(subsets) for _, _, subsets in units]
    flags = [[None] * len(subsets) for _, _, subsets in units]
    ruled = [[None] * len(subsets) for _, _, subsets in units]
    users = {}
    for u, (_, _, subsets) in enumerate(units):
        for k, subset in enumerate(subsets):
            users.setdefault(subset, []).append((u, k))
    batches, pending = {}, 0

    def flush():
        for (r_x, r_y), (tables, widths, tests, declared) in batches.items():
            batch = _test_blocks(ci_test, tables, widths, declared, r_x, r_y)
            for (u, k), pvalue, flag, rule in zip(tests, *_outcomes(batch, level)):
                pvalues[u][k], flags[u][k], ruled[u][k] = pvalue, flag, rule
        batches.clear()

    for subset, tests in users.items():
        if deadline is not None and _now() >= deadline:
            break
        by_shape = {}
        for u, k in tests:
            x, y, _ = units[u]
            by_shape.setdefault((card[x], card[y]), []).append((u, k))
        for (r_x, r_y), members in by_shape.items():
            tables, widths, declared = counter.stacked_tables(subset, [units[u][:2] for u, _ in members])
            entry = batches.setdefault((r_x, r_y), ([], [], [], []))
            entry[0].append(tables)
            entry[1].append(widths)
            entry[2].extend(members)
            entry[3].extend([declared] * len(members))
            pending += tables.size
        if pending > max_round_cells:
            flush()
            pending = 0
    flush()
    results = []
    for unit_pvalues, unit_flags, unit_ruled in zip(pvalues, flags, ruled):
        done = unit_flags.index(None) if None in unit_flags else len(unit_flags)
        results.append((unit_pvalues[:done], unit_flags[:done], unit_ruled[:done]))
    return results


def _worth_grouping(units):
    """Whether :func:`_by_set` pays for these ``(x, y, subsets)`` units: at least
    :data:`_MIN_GROUPED_TESTS` tests whose sets serve at least :data:`_MIN_PAIRS_PER_SET`
    pairs on average (otherwise grouping only adds array calls). :meth:`CITestRunner.run`
    decides it for all the units before they are shared out, so a worker's share of a
    group that pays is grouped too, whatever its size."""
    n_tests = sum(len(subsets) for _, _, subsets in units)
    if n_tests < _MIN_GROUPED_TESTS:
        return False
    return n_tests >= _MIN_PAIRS_PER_SET * len({s for _, _, subsets in units for s in subsets})


def _ragged_ranges(starts, lengths):
    """``concatenate([arange(s, s + n) for s, n in zip(starts, lengths)])``, vectorised."""
    total = int(lengths.sum())
    shift = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return shift + np.arange(total)


def _by_side(data, ci_test, adjacency, pairs, size=1, level=None, deadline=None, progress=None,
             n_jobs=1, counter_options=None, max_round_cells=_MAX_ROUND_CELLS, caches=None):
    """A level of PC-stable on complete counts: the tests of ``pairs``, variable by variable.

    For the pair ``x < y`` the sets of ``size`` variables are those of :func:`_pair_sets`:
    the subsets of ``adjacency[x] - {y}`` in lexicographic order, then those of
    ``adjacency[y] - {x}`` not within ``adjacency[x]``, stopping at the first
    independence. A set on ``v``'s side is a subset of ``adjacency[v]``, shared by the
    pairs of ``v`` and every neighbour not in it, so the variables are visited once each
    (:class:`_Side`), in column order: at ``v``, the tests of the pairs ``(v, y)`` on
    ``v``'s side and those of the pairs ``(x, v)`` left for ``v``'s side (no independence
    on ``x``'s side, visited before) are counted together, each set's strata once for all
    its pairs (level 1: the blocks of :func:`~skbn._counting.gram_given` matrices, as in
    :class:`~skbn._counting.StratifiedCounter`'s level-1 slices; larger sets:
    :meth:`~skbn._counting.StratifiedCounter.stacked_tables`), in rounds of growing
    numbers of sets, only for the pairs not yet separated. All tables of one shape of a
    round go through one :meth:`~skbn.citests.BaseCITest.test_batch` call.

    Parameters
    ----------
    data : skbn._data.EncodedData
        Unsigned codes (no missing cell).
    ci_test : BaseCITest
        A counting test (``from_counts``).
    adjacency : list of sorted lists
        The frozen adjacency of the level.
    pairs : list of (x, y)
        Adjacent pairs, ``x < y``.
    size : int, default=1
        The level: the size of the conditioning sets.
    level : float or None
        Decision level (None: the test's own decision).
    deadline : float or None
        A ``_now()`` value after which no table is counted (the pairs not finished keep the
        results found so far).
    progress : skbn.utils._progress.Progress or None
        Hears of the pairs finished after every variable (every batch with ``n_jobs``).
    n_jobs : int, default=1
        With more than one, the variables' sides run in joblib workers on ``data``
        (memory-mapped codes), in contiguous batches of about equal cost, a variable
        costing more than a batch split into ranges of its sets (:func:`_side_work`), each
        pair's ranges appended in order up to its first independence. Levels 1 and 2:
        first runs of consecutive variables, each as with one job (:func:`_side_run`, a
        pair's second side with its first when both variables are in the run;
        :func:`_first_pass_runs`), then the second sides of the pairs across runs still not
        separated; larger sets (from :data:`_ONE_PASS_FROM_SIZE`): one pass, both sides
        together. The results are the same.
    counter_options : dict or None
        Options of the :class:`~skbn._counting.StratifiedCounter` of sets of two or more.
    max_round_cells : int
        Table cells counted before they are tested (sets of two or more).
    caches : dict or None
        The counter's shared caches (in-process runs).

    Returns
    -------
    list of (pvalues, independent, power_rule)
        Per pair, the results of its sets in order up to the first independence: exactly
        those of testing the sets one by one.
    """
    options = (size, level, counter_options, max_round_cells)
    if n_jobs <= 1:
        return _side_run(data, ci_test, adjacency, pairs, range(len(adjacency)), options, deadline,
                         progress, caches)[0]
    results = [([], [], []) for _ in pairs]
    closed = set()  # pairs with no more sets to test: an independence, both sides done, max_time

    def append(indices, found):
        # a pair's pieces come in set order: append them up to its first independence
        for i, result in zip(indices, found):
            if i in closed:
                continue
            if result is None:  # its piece was not run (max_time): no more sets
                closed.add(i)
                continue
            _extend(results[i], result)
            if result[1] and result[1][-1]:
                closed.add(i)

    if size < _ONE_PASS_FROM_SIZE:
        # levels 1 and 2: runs of consecutive variables, each as in-process (a pair's second side
        # with its first when both variables are in the run), hubs' first sides in ranges;
        # then the second sides of the pairs left, as below
        runs, hubs, costs = _first_pass_runs(adjacency, pairs, data.cardinalities, n_jobs, size)
        first = {}
        for i, (x, _) in enumerate(pairs):
            first.setdefault(x, []).append(i)
        tasks, members = [], []
        for run in runs:
            indices = [i for v in run for i in first.get(v, [])]
            tasks.append(delayed(_side_run)(data, ci_test, adjacency, [pairs[i] for i in indices], run,
                                            options, deadline))
            members.append((indices, set(run)))
        hub_work = [(v, [(pairs[i][1], False) for i in first[v]], start, stop) for v, start, stop in hubs]
        tasks.extend(delayed(_side_batch)(data, ci_test, adjacency, [item], options, deadline)
                     for item in hub_work)
        order = np.argsort(-np.asarray(costs), kind="stable")  # the largest first (joblib hands
        outputs = [None] * len(tasks)  # them out in order as workers free up)
        for k, output in zip(order.tolist(), Parallel(n_jobs=n_jobs)(tasks[k] for k in order)):
            outputs[k] = output
        for (indices, run), (found, stopped) in zip(members, outputs[:len(runs)]):
            append(indices, found)
            for i in indices:
                if stopped or pairs[i][1] in run:  # max_time, or both sides run
                    closed.add(i)
        for (v, _, _, _), (found,) in zip(hub_work, outputs[len(runs):]):
            append(first[v], found or [None] * len(first[v]))
        if progress is not None:
            progress.update(len(closed))
        side = {}
        for i in range(len(pairs)):
            if i not in closed and _needs_other_side(adjacency, pairs[i], results[i], size):
                side.setdefault(pairs[i][1], []).append((i, True))
    else:
        # one pass, each variable's own and other side together (the other side's tests of a
        # pair separated on its own side are wasted): see _ONE_PASS_FROM_SIZE
        side = {}
        for i, (x, _) in enumerate(pairs):
            side.setdefault(x, []).append((i, False))
        for i in range(len(pairs)):
            if _needs_other_side(adjacency, pairs[i], results[i], size):
                side.setdefault(pairs[i][1], []).append((i, True))
    if side:
        work = _side_work(adjacency, side, pairs, size, n_jobs)
        bounds = _batch_bounds([(stop - start) * len(queries) for _, queries, start, stop in work],
                               _SIDE_BATCHES_PER_JOB * n_jobs)
        outputs = Parallel(n_jobs=n_jobs)(
            delayed(_side_batch)(data, ci_test, adjacency, work[a:b], options, deadline)
            for a, b in zip(bounds[:-1], bounds[1:]))
        for (v, _, _, _), found in zip(work, (f for output in outputs for f in output)):
            append([i for i, _ in side[v]], found or [None] * len(side[v]))
    if progress is not None:
        progress.update(len(pairs))
    return results


def _needs_other_side(adjacency, pair, result, size):
    """Whether the pair ``x < y`` has sets on ``y``'s side (subsets of ``adjacency[y] - {x}``
    not within ``adjacency[x]``) still to test: no independence in its ``result`` so far."""
    x, y = pair
    if result[1] and result[1][-1]:
        return False
    sets = set(adjacency[x])
    others = [z for z in adjacency[y] if z != x]
    return len(others) >= size and any(z not in sets for z in others)


def _side_run(data, ci_test, adjacency, pairs, variables, options, deadline=None, progress=None,
              caches=None):
    """The sides of ``variables`` (increasing), one after the other, as :func:`_by_side` with
    one job: at ``v``, the tests of the pairs ``(v, y)`` on ``v``'s side and those of the
    pairs ``(x, v)`` with ``x`` in ``variables`` left for ``v``'s side, together.

    ``pairs``: the pairs ``(x, y)`` with ``x`` in ``variables`` (a pair whose ``y`` is not
    gets its tests on ``x``'s side only). Returns ``(results, stopped)``: per pair, its results
    in order up to the first independence; ``stopped`` when ``deadline`` ended the run
    before its last variable (the pairs not finished keep the results found so far).
    """
    size = options[0]
    results = [([], [], []) for _ in pairs]
    own_side, other_side = {}, {}
    for i, (x, _) in enumerate(pairs):
        own_side.setdefault(x, []).append(i)
    members = set(variables)
    sides = _Side(data, ci_test, adjacency, *options, caches)
    n_done = 0
    for v in variables:
        indices = own_side.pop(v, [])
        queries = [(pairs[i][1], False) for i in indices]
        later = other_side.pop(v, [])
        indices += later
        queries += [(pairs[i][0], True) for i in later]
        if not queries:
            continue
        if deadline is not None and _now() >= deadline:
            return results, True
        for i, found in zip(indices, sides.tests(v, queries)):
            _extend(results[i], found)
        for i, (_, other) in zip(indices, queries):
            y = pairs[i][1]
            if not other and y in members and _needs_other_side(adjacency, pairs[i], results[i], size):
                other_side.setdefault(y, []).append(i)
            else:
                n_done += 1
        if progress is not None:
            progress.update(n_done)
    return results, False


def _first_pass_runs(adjacency, pairs, cardinalities, n_jobs, size=1):
    """The first pass of :func:`_by_side` with ``n_jobs`` (levels below
    :data:`_ONE_PASS_FROM_SIZE`): ``(runs, hubs, costs)``.

    ``runs``: lists of consecutive variables, one :func:`_side_run` each (a pair's second
    side runs with its first when both its variables are in the run; each boundary between
    runs leaves the second sides of the pairs across it, not separated on their first side,
    to a second pass, which counts their variables' strata again). ``hubs``: ``(v, start,
    stop)``, ranges of the sets of ``size`` of a variable costing more than a share ``1 /
    (_SIDE_BATCHES_PER_JOB * n_jobs)`` of the level, split into ranges of about that cost
    (its first sides only, one :func:`_side_batch` each). ``costs``: the estimated cost of
    every run, then of every hub range.

    The cost of a variable ``v`` with ``f`` first-side pairs is, at level 1, that of its
    :class:`~skbn._counting._stratified.GivenBlocks` in one-hot columns (times the rows):
    its neighbours' indicators, built once, plus the rows of its pairs' products (of the
    first round: most pairs are separated in it); at larger levels, its sets' strata and
    tables, ``C(deg v, size) * (1 + f)`` row passes. The runs share the total: ``n_jobs``
    runs of ``(1 - _RUN_TAIL) / n_jobs`` each, then ``n_jobs`` of ``_RUN_TAIL / n_jobs``,
    which even out the rounds the estimate misses (the caller hands out the largest
    first). 1,000-variable pedigree, 10,000 rows: correlation 0.94 with the CPU of each
    variable's side at level 1.
    """
    cards = np.asarray(cardinalities, dtype=np.int64)
    p = len(adjacency)
    if not pairs:
        return [], [], []
    first, second = np.asarray(pairs, dtype=np.intp).T
    involved = np.zeros(p, dtype=bool)
    involved[first] = involved[second] = True
    n_sets = np.asarray([comb(len(a), size) for a in adjacency], dtype=float)
    n_first = np.bincount(first, minlength=p)
    if size == 1:  # indicators built once, pair products
        fixed = np.asarray([cards[a].sum() if len(a) else 0 for a in adjacency], dtype=float)
        rows = np.zeros(p)
        np.add.at(rows, first, cards[second])
    else:  # every set's strata, then its first-side pairs' tables
        fixed, rows = np.zeros(p), n_sets * (1 + n_first)
    cost = np.where(involved, fixed + rows, 0.0)
    share = cost.sum() / (_SIDE_BATCHES_PER_JOB * n_jobs)
    is_hub = (n_first > 0) & (cost > share)
    hubs, costs = [], []
    for v in np.flatnonzero(is_hub).tolist():
        total = int(n_sets[v])
        pieces = max(1, min(total, ceil(cost[v] / share)))
        cuts = [total * k // pieces for k in range(pieces + 1)]
        hubs.extend((v, a, b) for a, b in zip(cuts[:-1], cuts[1:]))
        costs.extend(fixed[v] + rows[v] * (b - a) / total for a, b in zip(cuts[:-1], cuts[1:]))
    others = np.flatnonzero(~is_hub & involved)
    runs = []
    if len(others):
        weight = np.cumsum(cost[others])
        shares = np.cumsum([(1 - _RUN_TAIL) / n_jobs] * n_jobs + [_RUN_TAIL / n_jobs] * n_jobs)[:-1]
        cuts = np.searchsorted(weight, shares * weight[-1]) + 1
        cuts = sorted({int(c) for c in cuts if 0 < c < len(others)})
        runs = [run.tolist() for run in np.split(others, cuts)]
    return runs, hubs, [float(cost[run].sum()) for run in runs] + costs


def _side_work(adjacency, side, pairs, size, n_jobs):
    """Work items ``(v, queries, start, stop)`` of a pass of :func:`_by_side` with ``n_jobs``.

    ``side`` maps each variable ``v`` to its ``(i, other)``: the pair ``pairs[i]`` on
    ``v``'s side, ``v`` its first variable (``other`` False) or its second; the item runs
    the sets ``start:stop`` of the lexicographic order of ``v``'s subsets of ``size``
    (:meth:`_Side.tests`) for all of them. A variable whose cost (sets x pairs) exceeds a
    share ``1 / (_SIDE_BATCHES_PER_JOB * n_jobs)`` of the pass is split into contiguous
    ranges of about that cost, so that a hub (a variable with many neighbours, which holds
    most of a high level's sets) is shared by the workers; the caller appends each pair's
    ranges in order up to its first independence (a range after it is wasted, harmless).
    """
    items = []
    for v in sorted(side):
        queries = [(pairs[i][1 - other], other) for i, other in side[v]]
        items.append((v, queries, comb(len(adjacency[v]), size)))
    share = sum(n_sets * len(queries) for _, queries, n_sets in items) / (_SIDE_BATCHES_PER_JOB * n_jobs)
    work = []
    for v, queries, n_sets in items:
        pieces = max(1, min(n_sets, ceil(n_sets * len(queries) / share))) if share else 1
        cuts = [n_sets * k // pieces for k in range(pieces + 1)]
        work.extend((v, queries, a, b) for a, b in zip(cuts[:-1], cuts[1:]))
    return work


def _batch_bounds(costs, n_batches):
    """Bounds of at most ``n_batches`` contiguous batches of about equal total ``costs``."""
    if not costs:
        return [0]
    weight = np.cumsum(costs)
    n_batches = min(len(costs), n_batches)
    cuts = np.searchsorted(weight, weight[-1] * np.arange(1, n_batches) / n_batches) + 1
    return [0, *sorted({int(c) for c in cuts if 0 < c < len(costs)}), len(costs)]


def _side_batch(data, ci_test, adjacency, work, options, deadline=None):
    """Worker of :func:`_by_side` with ``n_jobs``: :meth:`_Side.tests` of every
    ``(v, queries, start, stop)`` of ``work`` (:func:`_side_work`); None for the items
    not started before ``deadline``."""
    out = []
    sides = _Side(data, ci_test, adjacency, *options)
    for v, queries, start, stop in work:
        if deadline is not None and _now() >= deadline:
            out.append(None)
            continue
        out.append(sides.tests(v, queries, start, stop))
    return out


def _first_results(results, active, found):
    """Append each active query's new ``found[q]`` results up to its first independence;
    returns the queries still active (no independence yet)."""
    still = []
    for q in active:
        if q in found:
            new_flags = found[q][1]
            if True in new_flags:
                _extend(results[q], found[q], new_flags.index(True) + 1)
                continue
            _extend(results[q], found[q])
        still.append(q)
    return still


class _Side:
    """The tests of several pairs on one variable's side, at one level (see :func:`_by_side`).

    Parameters
    ----------
    data, ci_test, adjacency, size, level, counter_options, max_round_cells, caches
        As in :func:`_by_side`.
    """

    def __init__(self, data, ci_test, adjacency, size, level=None, counter_options=None,
                 max_round_cells=_MAX_ROUND_CELLS, caches=None):
        self.data, self.ci_test, self.adjacency = data, ci_test, adjacency
        self.size, self.level, self.max_round_cells = size, level, max_round_cells
        self.buffer = None  # scratch memory of level 1's indicator matrices (GivenBlocks)
        self.counter = None
        if size > 1:
            self.counter = StratifiedCounter(data, None, caches, **(counter_options or {}))

    def tests(self, v, queries, start=0, stop=None):
        """Per query, its results in order up to the first independence.

        Parameters
        ----------
        v : int
        queries : list of (w, other)
            The pair is ``(v, w)`` (``v < w``; sets from ``adjacency[v] - {w}``) when
            ``other`` is False, ``(w, v)`` (``w < v``; sets from ``adjacency[v] - {w}`` not
            within ``adjacency[w]``) when True.
        start, stop : int or None
            Only the sets ``start:stop`` of the lexicographic order of ``v``'s subsets
            (``stop`` None: to the end); a query's results then stop at its first
            independence within them.

        Returns
        -------
        list of (pvalues, independent, power_rule)
        """
        if stop is None:
            stop = comb(len(self.adjacency[v]), self.size)
        if self.size == 1:
            return self._given(v, queries, start, stop)
        return self._stacked(v, queries, start, stop)

    def _stacked(self, v, queries, start=0, stop=None):
        """Sets of two or more: every subset of ``adjacency[v]`` in lexicographic order,
        its strata counted once for the queries it belongs to (one
        :meth:`~skbn._counting.StratifiedCounter.stacked_tables` per table shape), tested
        every round of 4, 8, ... 64 sets or ``max_round_cells`` cells."""
        data, adjacency, size, counter = self.data, self.adjacency, self.size, self.counter
        neighbours = adjacency[v]
        cards = [int(r) for r in data.cardinalities]
        n_queries = len(queries)
        own = np.zeros((n_queries, len(neighbours) + 1), dtype=bool)  # w's position
        outside = np.ones((n_queries, len(neighbours)), dtype=bool)  # may leave adjacency[w]
        position = {w: k for k, w in enumerate(neighbours)}
        shapes, pairs = {}, []
        for q, (w, other) in enumerate(queries):
            own[q, position[w]] = True
            pairs.append((w, v) if other else (v, w))
            if other:
                member = set(adjacency[w])
                outside[q] = [z not in member for z in neighbours]
            shapes.setdefault((cards[pairs[-1][0]], cards[pairs[-1][1]]), []).append(q)
        other = np.array([o for _, o in queries])
        groups = list(shapes.items())
        group_of = np.zeros(n_queries, dtype=np.intp)
        for g, (_, members) in enumerate(groups):
            group_of[members] = g
        results = [([], [], []) for _ in queries]
        active = list(range(n_queries))
        subsets = islice(combinations(range(len(neighbours)), size), start, stop)
        round_size = 4
        while active:
            chunk = list(islice(subsets, round_size))
            if not chunk:
                break
            chunk = np.asarray(chunk)
            eligible = ~own[:, chunk].any(axis=2)  # (queries, sets): w not in the set
            eligible &= ~other[:, None] | outside[:, chunk].any(axis=2)
            is_active = np.zeros(n_queries, dtype=bool)
            is_active[active] = True
            eligible &= is_active[:, None]
            pending, batches = 0, {}
            found = {}
            for k, positions in enumerate(chunk.tolist()):
                users = np.flatnonzero(eligible[:, k])
                if not len(users):
                    continue
                subset = tuple(neighbours[j] for j in positions)
                for g, (shape, _) in enumerate(groups):
                    chosen = users[group_of[users] == g] if len(groups) > 1 else users
                    if not len(chosen):
                        continue
                    tables, widths, declared = counter.stacked_tables(subset, [pairs[q] for q in chosen])
                    entry = batches.setdefault(shape, ([], [], [], []))
                    entry[0].append(tables)
                    entry[1].append(widths)
                    entry[2].extend(chosen.tolist())
                    entry[3].extend([declared] * len(chosen))
                    pending += tables.size
                if pending > self.max_round_cells:
                    self._flush(batches, found)
                    pending = 0
            self._flush(batches, found)
            active = _first_results(results, active, found)
            round_size = min(2 * round_size, _MAX_CHUNK)
        return results

    def _flush(self, batches, found):
        """Test the tables of ``batches`` (``{shape: (tables, widths, queries, declared)}``:
        :func:`_test_blocks`' arguments, one test per query entry, in set order) and append
        the results to ``found[q]``."""
        for (r_x, r_y), (tables, widths, users, declared) in batches.items():
            batch = _test_blocks(self.ci_test, tables, widths, declared, r_x, r_y)
            for q, pvalue, flag, rule in zip(users, *_outcomes(batch, self.level)):
                entry = found.setdefault(q, ([], [], []))
                entry[0].append(pvalue)
                entry[1].append(flag)
                entry[2].append(rule)
        batches.clear()

    def _given(self, v, queries, start=0, stop=None):
        """Level 1: the blocks of ``v``'s :func:`~skbn._counting.gram_given` matrix (only
        the rows and columns needed, :class:`~skbn._counting._stratified.GivenBlocks`;
        the whole matrix with weights, for the same float sums), in rounds of ``16, 32,
        ...`` neighbours of ``v``."""
        data, ci_test, adjacency, level = self.data, self.ci_test, self.adjacency, self.level
        codes, weights = data.codes, data.weights
        cards = np.asarray(data.cardinalities, dtype=np.int64)
        results = [([], [], []) for _ in queries]
        neighbours = np.asarray(adjacency[v], dtype=np.intp)
        position = {int(w): k for k, w in enumerate(adjacency[v])}
        block_cards = cards[neighbours]
        keep = []
        for w, other in queries:
            mask = np.ones(len(neighbours), dtype=bool)
            mask[position[w]] = False
            if other:  # v's side of (w, v): the sets not already on w's side
                member = np.zeros(len(adjacency), dtype=bool)
                member[adjacency[w]] = True
                mask &= ~member[neighbours]
            keep.append(mask)
        if weights is None:
            given, full = GivenBlocks(codes, cards, v, neighbours, buffer=self.buffer), None
            self.buffer = given.buffer
        else:
            full, offsets = gram_given(codes, cards, weights, v, neighbours)
            starts = np.asarray([offsets[int(w)] for w in neighbours])
        active = list(range(len(queries)))
        size, end = _LEVEL_ONE_FIRST_ROUND, len(neighbours) if stop is None else stop
        while active and start < end:
            stop = min(start + size, end)
            columns = np.arange(start, stop)
            rows = np.unique([position[queries[q][0]] for q in active])
            row_at = {int(k): o for k, o in zip(rows, np.cumsum(block_cards[rows]) - block_cards[rows])}
            if full is None:
                counts = given.counts(rows, columns)
            else:
                counts = full[:, _ragged_ranges(starts[rows], block_cards[rows])][
                    :, :, _ragged_ranges(starts[columns], block_cards[columns])]
            column_at = np.cumsum(block_cards[columns]) - block_cards[columns]
            by_shape = {}
            for q in active:
                w, other = queries[q]
                chosen = np.flatnonzero(keep[q][start:stop])
                if not len(chosen):
                    continue
                lengths = block_cards[columns[chosen]]
                tables = counts[:, row_at[position[w]]:row_at[position[w]] + int(cards[w]),
                                _ragged_ranges(column_at[chosen], lengths)]
                # (strata, r_x, r_y) with x < y: v is x on its own side, y on the other
                tables = tables.transpose((2, 1, 0) if other else (2, 0, 1))
                entry = by_shape.setdefault(tables.shape[1:], ([], [], [], []))
                entry[0].append(tables)
                entry[1].append(lengths)
                entry[2].append(q)
                entry[3].append(len(chosen))
            found = {}
            for (r_x, r_y), (stacks, lengths, owners, sizes) in by_shape.items():
                tables = np.concatenate(stacks).reshape(-1, r_x, r_y)
                if weights is None:
                    tables = np.rint(tables)
                declared = np.concatenate(lengths)
                group = np.repeat(np.arange(len(declared)), declared)
                observed = tables.reshape(len(tables), -1).sum(axis=1) > 0
                batch = ci_test.test_batch(np.ascontiguousarray(tables[observed]), group[observed],
                                           len(declared), declared.astype(float))
                pvalues, flags, ruled = _outcomes(batch, level)
                at = 0
                for q, n in zip(owners, sizes):
                    found[q] = (pvalues[at:at + n], flags[at:at + n], ruled[at:at + n])
                    at += n
            active = _first_results(results, active, found)
            start, size = stop, 2 * size
        return results


def _shares_sets(adjacency, pairs, size):
    """Whether a level's sets of ``size`` are worth counting once for all their pairs
    (:data:`_MIN_PAIRS_PER_SET`, :data:`_MIN_GROUPED_TESTS`), from upper bounds (second
    sides only run for the pairs not separated): a variable with degree ``d`` in ``q``
    pairs has ``C(d, size)`` sets and its pairs test ``q C(d - 1, size)`` of them."""
    n_pairs = {}
    for pair in pairs:
        for v in pair:
            n_pairs[v] = n_pairs.get(v, 0) + 1
    tests = sum(q * comb(len(adjacency[v]) - 1, size) for v, q in n_pairs.items())
    sets = sum(comb(len(adjacency[v]), size) for v in n_pairs)
    return tests >= max(_MIN_GROUPED_TESTS, _MIN_PAIRS_PER_SET * sets)


def _pair_sets(adjacency, x, y, size):
    """The conditioning sets of ``size`` of the pair ``x < y`` in test order (a generator):
    the subsets of ``adjacency[x] - {y}`` in lexicographic order, then those of
    ``adjacency[y] - {x}`` not within ``adjacency[x]`` (sorted adjacency lists)."""
    yield from combinations([z for z in adjacency[x] if z != y], size)
    seen = set(adjacency[x])
    for subset in combinations([z for z in adjacency[y] if z != x], size):
        if any(z not in seen for z in subset):
            yield subset


def _first_sets(adjacency, x, y, size, n):
    """The first ``n`` sets of :func:`_pair_sets` in a list; level 1 without the generator
    (millions of sets at level 1 of a 1,000-variable network: ~2 s through it)."""
    if size != 1:
        return list(islice(_pair_sets(adjacency, x, y, size), n))
    sets = [(z,) for z in adjacency[x][:n + 1] if z != y][:n]
    if len(sets) < n:
        seen = set(adjacency[x])
        sets += [(z,) for z in adjacency[y] if z != x and z not in seen][:n - len(sets)]
    return sets




class CITestRunner:
    """Per-fit runner of CI tests: counts, tests and decides, in-process or in joblib workers.

    A context manager that lives only during ``fit`` (never on the estimator); a
    constraint-based learner builds one, asks it for tests (:meth:`unconditional`,
    :meth:`run`, :func:`_streamed`, :meth:`cached`) and reads ``stopped_at`` at the end.

    Parameters
    ----------
    data : skbn._data.EncodedData
        The encoded (weighted) data. Signed codes without a missing cell are recoded to the
        small unsigned dtype (the fast counting paths); with missing cells every table
        counts the rows observing its variables (test-wise deletion).
    ci_test : BaseCITest
        The resolved test plug-in.
    level : float or None, default=None
        Decision level: None uses the test's own decision, a number decides
        ``pvalue > level`` (e.g. Bonferroni's ``alpha / m``).
    n_jobs : int or None, default=None
        joblib workers for the units of :meth:`run` (see there). Results are identical for
        any value.
    max_time : float or None, default=None
        Wall-time budget in seconds from construction (None: none): no table is counted
        after it (:meth:`expired`); the learner records where it stopped in ``stopped_at``.
    cache_bytes, gram_cache_bytes : int
        Memory bounds of the counters' caches (:class:`~skbn._counting.StratifiedCounter`);
        ``gram_cache_bytes`` also decides whether level 1's Gram matrices are all computed
        up front by threads.
    max_round_cells : int, default=2**22
        Table cells counted before a round's tables are tested (memory of a round, and of
        a piece of :meth:`cached`).
    max_group_sets : int, default=2**17
        Conditioning sets per group of :func:`_streamed` (memory of a level).
    min_parallel_work : int, default=10**7
        Counted cells (sets x rows) below which :meth:`run` stays in-process.
    min_memmap_bytes : int, default=2**20
        Codes at least this large are memory-mapped once for process workers.

    Attributes
    ----------
    deadline : float or None
        The ``_now()`` value at which ``max_time`` runs out.
    stopped_at : str or None
        Set by the learner: the step during which ``max_time`` ran out.
    n_power_rule : int
        Number of the tests in the results handed out so far (:meth:`unconditional`,
        :meth:`run`, :meth:`level_tests`, the new keys of :meth:`cached`) that the test's
        power rule decided instead of the data (each counted once; a unit's results end at
        its first independence, so the count is the same for any ``n_jobs``).
    caches : dict
        Conditioning-set ids and pair states shared by the in-process counters, and the
        Gram matrices of the current level-1 adjacency (``"gram"``; drop it when the
        adjacency changes).
    cache : dict {(x, y, S): (pvalue, statistic, independent)}
        Results of the keyed tests (:meth:`cached`).
    """

    def __init__(self, data, ci_test, level=None, n_jobs=None, max_time=None, *,
                 cache_bytes=CACHE_BYTES, gram_cache_bytes=GRAM_CACHE_BYTES,
                 max_round_cells=_MAX_ROUND_CELLS, max_group_sets=_MAX_GROUP_SETS,
                 min_parallel_work=None, min_memmap_bytes=None):
        if data.codes.dtype.kind == "i" and not (data.codes < 0).any():  # nothing missing
            data = replace(data, codes=np.asfortranarray(data.codes.astype(_code_dtype(data.cardinalities))))
        self.data = data
        self.ci_test = ci_test
        self.level = level
        self.n_jobs = n_jobs
        self.deadline = None if max_time is None else _now() + max_time
        self.stopped_at = None
        self.n_power_rule = 0
        self.counter_options = {"cache_bytes": cache_bytes, "gram_cache_bytes": gram_cache_bytes,
                                "lump_degenerate": _lumps_strata(ci_test)}
        self.max_round_cells = max_round_cells
        self.max_group_sets = max_group_sets
        self.min_parallel_work = _MIN_PARALLEL_WORK if min_parallel_work is None else min_parallel_work
        self.min_memmap_bytes = _MIN_MEMMAP_BYTES if min_memmap_bytes is None else min_memmap_bytes
        self.caches = {}
        self.cache = {}
        self._counter = None
        self._shared = None
        self._folder = None
        #: the moments path (Gaussian and CLG tests), or None for the counting tests
        self._moments = MomentTests(data, ci_test, level, run_tables) if uses_moments(ci_test) else None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        """Drop the caches and remove the memory-mapped codes."""
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
        self._shared, self._folder, self.caches, self._counter = None, None, {}, None

    def shared_data(self):
        """The data with its codes in a memory-mapped file, written once per fit.

        Process workers then map the file instead of receiving a pickled copy per batch
        (joblib would memory-map it too, but per call, and its clean-up after each call
        sometimes waits 0.1 s for the workers to release the file). The folder is
        ``JOBLIB_TEMP_FOLDER``, else ``/dev/shm``, else the temporary directory.
        """
        data = self.data
        if data.codes.nbytes < self.min_memmap_bytes:
            return data
        if self._shared is None:
            folder = os.environ.get("JOBLIB_TEMP_FOLDER")
            if folder is None and os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
                folder = "/dev/shm"
            self._folder = tempfile.mkdtemp(prefix="skbn_ci_", dir=folder)
            path = os.path.join(self._folder, "codes.npy")
            np.save(path, data.codes)
            self._shared = replace(data, codes=np.load(path, mmap_mode="r"))
        return self._shared

    def expired(self):
        """Whether the ``max_time`` budget is spent."""
        return self.deadline is not None and _now() >= self.deadline

    def _parallel(self, work):
        """Number of workers worth using for ``work`` counted cells (1: in-process)."""
        n_jobs = effective_n_jobs(self.n_jobs)
        if n_jobs == 1 or work * self.data.n_samples < self.min_parallel_work:
            return 1
        return n_jobs

    def _tally(self, results):
        """Count the power-rule decisions of units' ``results`` (:attr:`n_power_rule`);
        returns them."""
        self.n_power_rule += sum(ruled.count(True) for _, _, ruled in results)
        return results

    def _units(self, units, stop_at_first, adjacency=None, grams=None, deadline=None):
        """:func:`_run_units` in-process, with this runner's test, level, caches and bounds."""
        return _run_units(self.data, self.ci_test, units, stop_at_first, self.level, adjacency, grams,
                          self.caches, deadline, self.counter_options, self.max_round_cells)

    def run(self, units, stop_at_first, adjacency=None, *, timed=True):
        """``(pvalues, independent, power_rule)`` lists of every ``(x, y, subsets)`` unit, in
        unit order (counted in :attr:`n_power_rule`).

        ``stop_at_first``: a unit's results end at its first independence. ``timed=False``
        runs every unit whatever ``max_time`` (tests that were already run once and are
        only repeated for their p-values).

        Level 1 (the frozen ``adjacency`` given): the per-variable Gram matrices are
        computed by joblib with ``prefer="threads"`` when worthwhile and within
        ``gram_cache_bytes`` (BLAS releases the GIL; shipping them from process workers
        cost more than it saved: ALARM 100k 1.95 s vs 1.45 s) and the tests slice them
        in-process. Otherwise, when the work is worth it, the units go to the workers in
        contiguous batches of about equal numbers of sets (units sorted by pair share
        conditioning sets), on the memory-mapped codes; without ``stop_at_first`` a unit
        is cut where a batch ends (:func:`_unit_batches`) and its pieces appended in order,
        up to the first one that ``max_time`` cut short.
        """
        if not units:
            return []
        return self._tally(self._run(units, stop_at_first, adjacency, self.deadline if timed else None))

    def _run(self, units, stop_at_first, adjacency, deadline):
        """:meth:`run`'s results, not yet counted."""
        if self._moments is not None:
            return self._moments.run(units, stop_at_first, deadline, _now)
        work = sum(len(u[2]) for u in units)
        n_jobs = self._parallel(work) if len(units) > 1 else 1
        if adjacency is not None and self.data.codes.dtype.kind == "i":
            adjacency = None  # missing cells: no Gram slices (see StratifiedCounter)
        if adjacency is not None:
            grams = None
            needed = sorted({v for x, y, _ in units for v in (x, y) if len(adjacency[v]) >= 2})
            cards = self.data.cardinalities
            fits = (sum(gram_nbytes(cards, v, adjacency[v]) for v in needed)
                    <= self.counter_options["gram_cache_bytes"])
            if n_jobs > 1 and fits:
                # BLAS and numpy copies release the GIL: threads, unless the user's joblib
                # context sets another backend; all at once only within the counter's
                # memory bound, else computed (and dropped) by the counter as needed
                data = self.data
                grams = dict(zip(needed, Parallel(n_jobs=self.n_jobs, prefer="threads")(
                    delayed(gram_given)(data.codes, data.cardinalities, data.weights, v, adjacency[v])
                    for v in needed)))
            return self._units(units, stop_at_first, adjacency, grams, deadline)
        if n_jobs == 1:
            return self._units(units, stop_at_first, deadline=deadline)
        batches = _unit_batches(units, _BATCHES_PER_JOB * n_jobs, split=not stop_at_first)
        shared = self.shared_data()
        by_set = not stop_at_first and _worth_grouping(units)
        outputs = Parallel(n_jobs=self.n_jobs)(
            delayed(_run_units)(shared, self.ci_test, [(units[u][0], units[u][1], units[u][2][a:b])
                                                       for u, a, b in batch],
                                stop_at_first, self.level, deadline=deadline,
                                counter_options=self.counter_options,
                                max_round_cells=self.max_round_cells, by_set=by_set)
            for batch in batches
        )
        # a unit's pieces in order, up to the first one cut short by max_time
        results, complete = [([], [], []) for _ in units], [True] * len(units)
        for (u, a, b), result in zip((piece for batch in batches for piece in batch),
                                     (result for output in outputs for result in output)):
            if complete[u]:
                _extend(results[u], result)
                complete[u] = len(result[1]) == b - a
        return results

    def level_tests(self, adjacency, pairs, size, progress=None):
        """``(unit, (pvalues, independent, power_rule))`` of a level of PC-stable for every
        pair, in order (counted in :attr:`n_power_rule`).

        ``unit`` is ``(x, y, sets)`` with the pair's sets of ``size`` variables in test
        order (:func:`_pair_sets`; at least as many as results). With a counting test on
        complete discrete data the tests run by :func:`_by_side` (each set's strata counted
        once for all the pairs it serves -- level 1: each variable's Gram blocks --, only
        for the pairs not yet separated; in joblib workers when ``n_jobs`` is worth it, see
        :meth:`run`); otherwise as units of :func:`_streamed`. Same results either way.
        """
        if (self._moments is not None or not self.ci_test.from_counts or self.data.codes.dtype.kind == "i"
                or (size > 1 and not _shares_sets(adjacency, pairs, size))):
            units = ((x, y, list(_pair_sets(adjacency, x, y, size))) for x, y in pairs)
            yield from _streamed(self, units, True, adjacency if size == 1 else None, progress)
            return
        work = sum(comb(len(adjacency[x]) - 1, size) + comb(len(adjacency[y]) - 1, size) for x, y in pairs)
        n_jobs = self._parallel(work)
        data = self.data if n_jobs == 1 else self.shared_data()
        results = self._tally(_by_side(data, self.ci_test, adjacency, pairs, size, self.level, self.deadline,
                                       progress, n_jobs, self.counter_options, self.max_round_cells,
                                       self.caches if n_jobs == 1 else None))
        for (x, y), result in zip(pairs, results):
            yield (x, y, _first_sets(adjacency, x, y, size, len(result[1]))), result

    def unconditional(self, pairs, gram=None):
        """``(pvalue, statistic, independent)`` arrays of ``x _||_ y`` for every pair ``(x, y)``
        (the power rule's decisions counted in :attr:`n_power_rule`).

        Counting tests read every pair's table from one one-hot Gram matrix
        (:func:`~skbn._counting.pairwise_contingency`; ``gram``: ``(gram, offsets)`` of
        :func:`~skbn._counting.pairwise_tables` when already computed), one
        :meth:`~skbn.citests.BaseCITest.test_batch` call per table shape.
        """
        if self._moments is not None:
            return self._moments.unconditional(pairs)
        n = len(pairs)
        pvalue, statistic, independent = np.ones(n), np.zeros(n), np.zeros(n, dtype=bool)
        if not self.ci_test.from_counts:
            for k, (x, y) in enumerate(pairs):
                result = self.ci_test.test_variables(self.data, x, y, ())
                pvalue[k], statistic[k] = result.pvalue, result.statistic
                independent[k] = result.independent if self.level is None else result.pvalue > self.level
                self.n_power_rule += result.power_rule
            return pvalue, statistic, independent
        for index, tables in pairwise_contingency(self.data, pairs, gram):
            observed = tables.reshape(len(index), -1).any(axis=1)
            k = np.arange(len(index))
            batch = self.ci_test.test_batch(tables[observed], k[observed], len(index), np.ones(len(index)))
            pvalue[index], statistic[index] = batch.pvalue, batch.statistic
            independent[index] = _decisions(batch, self.level)
            self.n_power_rule += int(np.count_nonzero(batch.power_rule))
        return pvalue, statistic, independent

    def cached(self, keys):
        """``(pvalue, statistic, independent)`` of every key ``(x, y, S)`` (``x < y``, ``S`` a
        sorted tuple), from :attr:`cache`; the keys not in it are counted and tested first,
        by table shape ``(r_x, r_y)`` in sorted order, then key order, in pieces of about
        ``max_round_cells`` table cells: each piece's tables are counted, go through one
        :func:`run_tables` call and are released before the next piece is counted (one
        round of MMHC on the 100-state mildew network counted all its tables first: over
        10 GB).
        Each result is that of its own test, so the results, the order in which they enter
        :attr:`cache` and :attr:`n_power_rule` are the same for any bound. Oracles answer
        from the variables. Runs in-process, whatever ``n_jobs`` and ``max_time``. The
        power rule's decisions of the new keys are counted in :attr:`n_power_rule`."""
        missing = sorted({key for key in keys if key not in self.cache})
        if missing and self._moments is not None:
            self.cache.update(zip(missing, zip(*self._moments.test_many(missing))))
        elif missing and self.ci_test.from_counts:
            if self._counter is None:
                self._counter = StratifiedCounter(self.data, None, self.caches, **self.counter_options)
            card = [int(r) for r in self.data.cardinalities]

            def shape(key):
                return card[key[0]], card[key[1]]

            order = sorted(missing, key=shape)  # stable: key order within a shape
            start = 0
            while start < len(order):
                r_x, r_y = shape(order[start])
                blocks, declared, cells, stop = [], [], 0, start
                while (stop < len(order) and shape(order[stop]) == (r_x, r_y)
                       and (stop == start or cells <= self.max_round_cells)):
                    block, q = self._counter.tables(*order[stop])
                    blocks.append(block)
                    declared.append(q)
                    cells += block.size
                    stop += 1
                batch = run_tables(self.ci_test, blocks, declared, r_x, r_y)
                self.n_power_rule += int(np.count_nonzero(batch.power_rule))
                self.cache.update(zip(order[start:stop], zip(batch.pvalue.tolist(), batch.statistic.tolist(),
                                                             _decisions(batch, self.level).tolist())))
                start = stop
        elif missing:
            for key in missing:
                result = self.ci_test.test_variables(self.data, *key)
                independent = result.independent if self.level is None else result.pvalue > self.level
                self.cache[key] = (result.pvalue, result.statistic, independent)
                self.n_power_rule += result.power_rule
        return [self.cache[key] for key in keys]


def _unit_batches(units, n_batches, split):
    """Contiguous batches of ``(u, start, stop)`` pieces of about equal numbers of sets.

    Each piece is the sets ``start:stop`` of ``units[u]``. With ``split`` (units run
    without stopping, whose results are those of their sets one by one) a unit is cut where
    a batch ends, so one unit with most of the sets (the ends of a collider next to a hub)
    is shared by the workers; otherwise the batches end between units.
    """
    sizes = [len(unit[2]) for unit in units]
    total = sum(sizes)
    n_batches = max(1, min(n_batches, total if split else len(units)))
    ends = [total * k // n_batches for k in range(1, n_batches + 1)]
    batches, batch, offset = [], [], 0
    for u, n in enumerate(sizes):
        start = 0
        while split and start < n and offset + n > ends[len(batches)] > offset + start:
            stop = ends[len(batches)] - offset
            batch.append((u, start, stop))
            batches.append(batch)
            batch, start = [], stop
        batch.append((u, start, n))
        offset += n
        if len(batches) < n_batches - 1 and offset >= ends[len(batches)]:
            batches.append(batch)
            batch = []
    if batch:
        batches.append(batch)
    return batches


def report_power_rule(learner, ci_test, n_power_rule, n_tests, over=None):
    """Set ``learner.n_power_rule_tests_`` to ``n_power_rule`` and, when it is not 0, warn
    once (:class:`~skbn.exceptions.PowerRuleWarning`): the test's heuristic power rule
    decided that many of the fit's ``n_tests`` CI tests (fewer than ``min_samples_per_dof``
    samples per degree of freedom: dependence assumed, ``pvalue = 0``, so the test removes
    nothing, where bnlearn's and pcalg's tests find independence).

    The one home of the attribute and the warning of every learner that runs CI tests:
    ``n_power_rule`` is :attr:`CITestRunner.n_power_rule` of the fit's runner, or the sum
    over several searches with ``over=(k, searches)``: the rule decided tests in ``k`` of
    ``searches`` (e.g. ``"PCStructure fits on 50 resamples"`` of a bootstrap, ``"4
    structural-EM searches"``). A learner whose ``_quiet_summaries`` is true (one of those
    searches) sets the attribute, silently.
    """
    learner.n_power_rule_tests_ = int(n_power_rule)
    if not n_power_rule or getattr(learner, "_quiet_summaries", False):
        return
    name = type(ci_test).__name__
    rule = getattr(ci_test, "min_samples_per_dof", None)
    option = (f"with fewer than min_samples_per_dof={rule:g} samples per degree of freedom, "
              if rule is not None else "")
    change = (f"Pass ci_test={name}(min_samples_per_dof=0) to decide them from the data "
              "(the asymptotic p-value; keep its other parameters), or a lower value to relax the rule"
              if rule is not None else f"See {name}'s power rule")
    scope = "" if over is None else f" of its {over[1]}, {over[0]:,} of which had any"
    warn_user(
        f"{type(learner).__name__}: {name}'s power rule decided {n_power_rule:,} of the {n_tests:,} "
        f"CI tests{scope} ({option}a test reports dependence, pvalue=0, and removes nothing: the edge "
        f"or feature is kept; bnlearn's and pcalg's tests take such a test as independence). "
        f"{change}; see n_power_rule_tests_.",
        PowerRuleWarning)


def _streamed(runner, units, stop_at_first, adjacency=None, progress=None):
    """``(unit, result)`` of a stream of units, run in groups of about ``runner.max_group_sets``.

    The results are those of running all units at once (each unit's tests and decisions
    do not depend on the other units); once ``max_time`` has run out, the remaining units
    get empty results without being run. ``progress`` (a stage counted in units) hears of
    the units done after each group.
    """
    group, n_sets, n_done = [], 0, 0
    for unit in units:
        if runner.expired():
            yield unit, ([], [], [])
            continue
        group.append(unit)
        n_sets += len(unit[2])
        if n_sets >= runner.max_group_sets:
            yield from _run_group(runner, group, stop_at_first, adjacency, progress, n_done)
            n_done += len(group)
            group, n_sets = [], 0
    if group:
        yield from _run_group(runner, group, stop_at_first, adjacency, progress, n_done)


def _run_group(runner, group, stop_at_first, adjacency, progress, n_done):
    results = runner.run(group, stop_at_first, adjacency)
    if progress is not None:
        progress.update(n_done + len(group))
    return zip(group, results)
