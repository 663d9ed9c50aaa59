"""PC's skeleton search: levels of CI tests, separating sets (Spirtes & Glymour 1991).

:func:`skeleton` is the adjacency phase of PC-stable (Colombo & Maathuis 2014), with the
``"original"`` variant and the false-discovery-rate correction of Li & Wang (2009). Every test
runs through a :class:`~skbn._engines._ci_runner.CITestRunner`, so any learner that needs
PC's skeleton (:class:`~skbn.estimators.PCStructure`, :class:`~skbn.estimators.MMHCStructure`
with ``restrict="pc"``) calls this function with a runner of its own.
"""

from collections.abc import Mapping
from itertools import combinations

import numpy as np

from skbn.utils._progress import amount

__all__ = ["skeleton"]


def _side_subsets(adjacency, x, y, size, seen):
    """Conditioning sets of ``size`` from ``adjacency[x] - {y}``, lexicographic, unseen ones."""
    out = []
    for subset in combinations([v for v in adjacency[x] if v != y], size):
        if subset not in seen:
            seen.add(subset)
            out.append(subset)
    return out


def _edge_subsets(adjacency, x, y, sizes):
    """All conditioning sets for the pair: from x's side first, then new ones from y's side."""
    seen, out = set(), []
    for size in sizes:
        out.extend(_side_subsets(adjacency, x, y, size, seen))
    for size in sizes:
        out.extend(_side_subsets(adjacency, y, x, size, seen))
    return out


def _bh_adjust(pvalues):
    """Benjamini-Hochberg adjusted p-values (step-up), in the input order."""
    pvalues = np.asarray(pvalues, dtype=float)
    m = len(pvalues)
    if m == 0:
        return pvalues
    order = np.argsort(pvalues, kind="stable")
    scaled = pvalues[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


class Decisions(Mapping):
    """The decisions of every test of the skeleton, stored by position, not by set.

    A read-only mapping ``{(x, y, S): independent}`` (``x < y``, ``S`` a sorted tuple) of
    every test run; :meth:`of_pair` gives one pair's at once.

    A pair's tests at a level of PC-stable are the first ``n`` sets of
    :func:`_edge_subsets` on the level's frozen adjacency (the runner stops at the first
    independence), and all decide dependence except, when the level removed the pair, the
    last one. So the level's frozen adjacency and ``n`` per pair give back every set and
    its decision (:meth:`of_pair`) in a few bytes per pair instead of a dict entry per test
    (3.9 million at level 1 of a 1,000-variable pedigree). Level 0 tested every pair not
    fixed by knowledge with the empty set; the ``"original"`` variant, whose sets come
    from the live adjacency, records them explicitly (:meth:`add_sets`).

    Parameters
    ----------
    n_variables : int
    testable : (p, p) bool array
        The pairs tested at level 0.

    Attributes
    ----------
    sepset_pvalue : (p, p) float array
        ``[x, y]``: the p-value of the test that separated ``x < y`` (the test of its
        separating set), NaN for a pair not removed by a test.
    """

    def __init__(self, n_variables, testable):
        self.testable = testable
        self.removed_at = np.zeros((n_variables, n_variables), dtype=np.int16)  # level + 1
        self.sepset_pvalue = np.full((n_variables, n_variables), np.nan)
        self.levels = []  # (level, frozen adjacency, {(x, y): n})
        self.explicit = {}  # (x, y) -> {S: decision}

    def removed(self, x, y, level, pvalue):
        """Record that a test at ``level``, of p-value ``pvalue``, separated ``x < y``."""
        self.removed_at[x, y] = level + 1
        self.sepset_pvalue[x, y] = pvalue

    def add_level(self, level, frozen):
        """Start a level of PC-stable on the ``frozen`` adjacency; returns its counts dict,
        ``{(x, y): number of sets tested}``, for the caller to fill."""
        counts = {}
        self.levels.append((level, frozen, counts))
        return counts

    def add_sets(self, x, y, subsets, flags):
        """Record tests given explicitly (the ``"original"`` variant)."""
        self.explicit.setdefault((x, y), {}).update(zip(subsets, flags))

    def of_pair(self, x, y, size=None):
        """``{S: independent}`` of every test of ``x < y`` run by the skeleton (of the sets
        of ``size`` variables only, when given)."""
        known = {}
        removed_at = int(self.removed_at[x, y])
        if self.testable[x, y] and size in (None, 0):
            known[()] = removed_at == 1
        for level, frozen, counts in self.levels:
            n = counts.get((x, y), 0)
            if n and size in (None, level):
                subsets = _edge_subsets(frozen, x, y, [level])[:n]
                known.update(dict.fromkeys(subsets, False))
                if removed_at == level + 1:
                    known[subsets[-1]] = True
        known.update((s, flag) for s, flag in self.explicit.get((x, y), {}).items()
                     if size in (None, len(s)))
        return known

    def _pairs(self):
        pairs = set(zip(*(a.tolist() for a in np.nonzero(np.triu(self.testable, 1)))))
        for _, _, counts in self.levels:
            pairs.update(counts)
        pairs.update(self.explicit)
        return sorted(pairs)

    def __getitem__(self, key):
        x, y, subset = key
        return self.of_pair(x, y)[subset]

    def __iter__(self):
        for x, y in self._pairs():
            for subset in self.of_pair(x, y):
                yield x, y, subset

    def __len__(self):
        return sum(len(self.of_pair(x, y)) for x, y in self._pairs())


def skeleton(runner, n_variables, *, fixed=None, removed=None, max_cond_vars=None,
             variant="stable", fdr_alpha=None, progress=None):
    """Phase 1 of PC: the skeleton and the separating sets, level by level.

    Parameters
    ----------
    runner : skbn._engines._ci_runner.CITestRunner
        Runs every test (and holds the decision level and ``max_time``; its ``stopped_at``
        is set when the budget runs out during a level).
    n_variables : int
    fixed : (p, p) bool array or None
        Required adjacencies: never tested, never removed.
    removed : (p, p) bool array or None
        Forbidden adjacencies: removed before level 0, without a test.
    max_cond_vars : int or None
    variant : {"stable", "original"}
    fdr_alpha : float or None
        Benjamini-Hochberg level of the ``"fdr"`` correction after every level (None: off).
    progress : skbn.utils._progress.Progress or None
        Hears of the pairs done and left at every level (see :func:`_streamed`).

    Returns
    -------
    adjacency : list of sets
    sepsets : dict {(x, y): tuple}
        Separating set of every pair removed by a test (``x < y``).
    n_tests : int
    decided : Decisions
        The decision of every test run (reused by the collider rules).
    """
    p = n_variables
    adjacency = [set(range(p)) - {i} for i in range(p)]
    fixed = np.zeros((p, p), dtype=bool) if fixed is None else fixed
    removed = np.zeros((p, p), dtype=bool) if removed is None else removed
    for x, y in zip(*np.nonzero(np.triu(removed, 1))):
        adjacency[x].discard(int(y))
        adjacency[y].discard(int(x))
    testable = [(x, y) for x, y in combinations(range(p), 2) if not (fixed[x, y] or removed[x, y])]
    testable_pairs = ~(fixed | removed)
    np.fill_diagonal(testable_pairs, False)
    sepsets, decided = {}, Decisions(p, testable_pairs)
    p_max = np.zeros((p, p))
    p_max_set = {}
    pvalues, _, independent = runner.unconditional(testable) if testable else ((), (), ())
    for (x, y), pv, flag in zip(testable, np.asarray(pvalues).tolist(), np.asarray(independent).tolist()):
        p_max[x, y] = pv
        if fdr_alpha is not None:
            p_max_set[(x, y)] = ()
        if flag:
            decided.removed(x, y, 0, pv)
            adjacency[x].discard(y)
            adjacency[y].discard(x)
            sepsets[(x, y)] = ()
    n_tests = len(testable)
    if fdr_alpha is not None:
        _fdr_step(adjacency, sepsets, p_max, p_max_set, fdr_alpha, testable, decided)
    _level_done(progress, 0, n_tests, adjacency)
    level = 1
    while max_cond_vars is None or level <= max_cond_vars:
        if runner.expired():
            runner.stopped_at = f"level {level}"
            break
        pairs = [
            (x, y) for x in range(p) for y in sorted(adjacency[x]) if x < y and not fixed[x, y]
            and max(len(adjacency[x]), len(adjacency[y])) - 1 >= level
        ]
        if not pairs:
            break
        if variant == "stable":
            frozen = [sorted(a) for a in adjacency]
            tested = decided.add_level(level, frozen)
            if progress is not None:
                progress.stage(f"level {level}", total=len(pairs), unit="pair")
            done = runner.level_tests(frozen, pairs, level, progress)
        else:
            units, results = [], []
            if progress is not None:
                progress.stage(f"level {level}", total=len(pairs), unit="pair")
            for x, y in pairs:
                if y not in adjacency[x] or runner.expired():
                    continue
                live = {x: sorted(adjacency[x]), y: sorted(adjacency[y])}
                unit = (x, y, _edge_subsets(live, x, y, [level]))
                result = runner.run([unit], True)[0]
                units.append(unit)
                results.append(result)
                if result[1] and result[1][-1]:
                    adjacency[x].discard(y)
                    adjacency[y].discard(x)
                if progress is not None:
                    progress.update(len(units))
            done = zip(units, results)
        level_tests = 0
        for (x, y, subsets), (pvals, flags, _) in done:  # removals: frozen adjacency unchanged
            level_tests += len(flags)
            if not flags:
                continue
            if variant == "stable":
                tested[(x, y)] = len(flags)
            else:
                decided.add_sets(x, y, subsets, flags)
            best = int(np.argmax(pvals))
            if pvals[best] > p_max[x, y]:
                p_max[x, y] = pvals[best]
                p_max_set[(x, y)] = subsets[best]
            if flags[-1]:
                adjacency[x].discard(y)
                adjacency[y].discard(x)
                sepsets[(x, y)] = subsets[len(flags) - 1]
                decided.removed(x, y, level, pvals[len(flags) - 1])
        runner.caches.pop("gram", None)  # the Gram matrices of this level's adjacency
        n_tests += level_tests
        if fdr_alpha is not None:
            _fdr_step(adjacency, sepsets, p_max, p_max_set, fdr_alpha, testable, decided)
        _level_done(progress, level, level_tests, adjacency)
        if runner.expired() and runner.stopped_at is None:
            # max_time ran out during this level: the removals found stand, the pairs
            # whose sets were not all tried keep their edge, and no level follows
            runner.stopped_at = f"level {level}"
            break
        level += 1
    return adjacency, sepsets, n_tests, decided


def _level_done(progress, level, n_tests, adjacency):
    if progress is not None and progress.enabled:
        n_edges = sum(len(a) for a in adjacency) // 2
        progress.message(f"level {level}: {amount(n_tests, 'test')}, "
                         f"{amount(n_edges, 'adjacency', 'adjacencies')} left")


def _fdr_step(adjacency, sepsets, p_max, p_max_set, alpha, testable, decided):
    """Remove the tested adjacencies whose Benjamini-Hochberg adjusted maximum p-value
    exceeds ``alpha`` (Li & Wang 2009); separating set: the set of the maximum p-value."""
    if not testable:
        return
    x_index, y_index = np.asarray(testable).T
    adjusted = _bh_adjust(p_max[x_index, y_index])
    for (x, y), q in zip(testable, adjusted.tolist()):
        if q > alpha and y in adjacency[x]:
            adjacency[x].discard(y)
            adjacency[y].discard(x)
            sepsets[(x, y)] = p_max_set[(x, y)]
            decided.sepset_pvalue[x, y] = p_max[x, y]
