r"""The moments path of the CI-test runner: Gaussian and conditional-Gaussian tests.

When the CI test reads moments (``ci_test.statistics`` is ``"moments"`` or ``"robust"``),
:class:`~skbn._engines._ci_runner.CITestRunner` hands its units, pairs and keys to a
:class:`MomentTests` built once per fit. It answers every test ``x _||_ y | S`` from the
correlation (scatter) matrix, never from the rows:

* **Gaussian tests** (:class:`~skbn.citests.BaseGaussianCITest`: ``"zf"``, ``"mi-g"``,
  ``"cor"``, ``"robust_fisher_z"``): the unconditional tests of all pairs in one
  :meth:`~skbn.citests.BaseGaussianCITest.test_moments_given` call (the correlation
  matrix); the conditional tests of a round with conditioning sets of one size in one
  :meth:`~skbn.citests.BaseGaussianCITest.test_moments_sets` call (vectorised: a small
  Cholesky solve per test, :func:`skbn._counting.partial_correlations_batch`). One
  ``test_moments_given`` call per set (one inverse per set, no Python step per test) cost
  about 160 microseconds of call overhead per set and was 2-4 times slower on PC with
  20-50 variables. The moments are computed once per fit
  (:class:`~skbn._counting.MomentCounter`; for ``statistics="robust"`` one Minimum
  Covariance Determinant fit, :func:`skbn._counting.robust_moments`).
* **CLG test** (:class:`~skbn.citests.CLGMutualInformation`, mixed data): continuous ``x``
  and ``y`` read the moments split by the discrete members of ``S``
  (:meth:`~skbn._counting.MomentCounter.moments_given`); a discrete ``x`` against a
  continuous ``y`` reads them split by the discrete members of ``S`` and ``x``
  (:meth:`~skbn.citests.CLGMutualInformation.test_mixed`); discrete ``x``, ``y`` and ``S``
  are counted (:class:`~skbn._counting.StratifiedCounter`) and G-tested. **Rule** for
  discrete ``x`` and ``y`` given a set with continuous members (no CLG likelihood-ratio
  test exists; bnlearn's ``"mi-cg"`` there depends on which of ``x``, ``y`` comes first):
  the test is not run and reports dependence (``pvalue = 0``, statistic 0). Under the
  conditional-Gaussian rule (no continuous parent of a discrete variable) this loses no
  separation: every path between two discrete variables through continuous ones has a
  collider among them, so if ``S`` d-separates ``x`` and ``y`` so does its discrete part,
  which PC also tests.

**Missing values** (``missing="available_case"``: NaN in continuous columns, code -1 in
discrete ones): test-wise deletion. A test reads the moments of the rows observing ``x``,
``y`` and every member of ``S`` (pairwise-complete statistics); they are computed with
:func:`skbn._counting.moments` and cached by the set of the test's columns that have
missing cells (the observed pattern: two tests with the same such set read the same rows).

Every result depends only on its test (the rows it reads and the moments of those rows),
so the results are the same for any batching, round size or ``n_jobs``; the tests run
in-process (one correlation matrix answers all of them; ``n_jobs`` only matters to the
counting tests).
"""

import numpy as np

from skbn._counting import MomentCounter, StratifiedCounter
from skbn._counting._moments import ExactFitError, moments
from skbn._engines._rounds import still_active

__all__ = ["MomentTests", "uses_moments"]


def uses_moments(ci_test):
    """Whether ``ci_test`` reads moments (Gaussian and CLG tests)."""
    return getattr(ci_test, "statistics", None) in ("moments", "robust")


class MomentTests:
    """Answers CI tests on continuous (and mixed) data from moments, for one fit.

    Parameters
    ----------
    data : skbn._data.EncodedData
        Encoded data with continuous columns.
    ci_test : BaseCITest
        A test with ``statistics`` "moments" or "robust".
    level : float or None
        Decision level (None: the test's own decision).
    run_tables : callable or None
        :func:`skbn._engines._ci_runner.run_tables` (passed in by the runner, which
        imports this module): tests the count tables of a CLG test's discrete pairs.
    """

    def __init__(self, data, ci_test, level=None, run_tables=None):
        if data.values is None:
            raise ValueError(f"{type(ci_test).__name__} tests continuous variables; the data have none.")
        self.data = data
        self.ci_test = ci_test
        self.level = level
        self.run_tables = run_tables
        self.cardinalities = np.asarray(data.cardinalities, dtype=np.int64)
        self.is_continuous = self.cardinalities == 0
        self.gaussian = hasattr(ci_test, "test_moments_given")
        if self.gaussian and not self.is_continuous.all():
            names = [n for n, c in zip(data.names, self.is_continuous) if not c]
            raise ValueError(f"{type(ci_test).__name__} tests continuous variables only; "
                             f"discrete columns {names[:5]!r}: use ci_test='mi-cg' on mixed data.")
        self.continuous = np.flatnonzero(self.is_continuous)
        #: ``index[i]``: the moments' column of continuous variable ``i`` (-1 discrete)
        self.index = np.full(len(self.cardinalities), -1, dtype=np.intp)
        self.index[self.continuous] = np.arange(len(self.continuous))
        values = np.asarray(data.values[:, self.continuous], dtype=np.float64)
        #: columns with a missing cell (their tests use test-wise deletion)
        self.incomplete = np.zeros(len(self.cardinalities), dtype=bool)
        self.incomplete[self.continuous] = np.isnan(values).any(axis=0)
        discrete = np.flatnonzero(~self.is_continuous)
        if len(discrete) and data.codes.dtype.kind == "i":  # (unsigned codes: no missing cell)
            self.incomplete[discrete] = (np.asarray(data.codes[:, discrete]) < 0).any(axis=0)
        #: which cells are observed (built only when some column has a missing cell)
        self.observed = None
        if self.incomplete.any():
            observed = np.ones(data.codes.shape, dtype=bool)
            observed[:, self.continuous] = ~np.isnan(values)
            if len(discrete):
                observed[:, discrete] = np.asarray(data.codes[:, discrete]) >= 0
            self.observed = observed
        self.values = values
        if ci_test.statistics == "robust" and self.incomplete.any():
            names = [n for n, c in zip(data.names, self.incomplete) if c]
            raise ValueError(f"{type(ci_test).__name__} needs complete rows (one robust fit of all "
                             f"columns); columns {names[:5]!r} have missing cells.")
        self._counter = None if self.incomplete.any() else MomentCounter.of(data)
        self._stats = {}
        self._tables = None

    # -- statistics -------------------------------------------------------------------------

    def _rows_moments(self, rows, discrete=()):
        """Moments of all continuous columns on the selected rows, grouped by the declared
        configurations of ``discrete`` (sorted); NaN cells of other columns read as 0 (their
        entries are never used by a test on these rows)."""
        values = np.nan_to_num(self.values[rows])
        weights = None if self.data.weights is None else self.data.weights[rows]
        if self.ci_test.statistics == "robust":
            try:
                return self.ci_test.moments_of(values, weights)
            except ExactFitError as error:
                raise error.named([self.data.names[c] for c in self.continuous]) from None
        if not discrete:
            return moments(values, weights)
        codes = np.asarray(self.data.codes)[rows]
        ids = np.zeros(codes.shape[0], dtype=np.int64)
        n_ids = 1
        for column in discrete:
            r = int(self.cardinalities[column])
            ids = ids * r + codes[:, column]
            n_ids *= r
        return moments(values, weights, ids, n_ids)

    def stats(self, columns, discrete=()):
        """Moments (all continuous columns; read only those of ``columns``) for a test on
        the variables ``columns``, grouped by the discrete variables ``discrete`` (sorted)."""
        discrete = tuple(sorted(discrete))
        pattern = tuple(sorted(int(c) for c in columns if self.incomplete[c]))
        key = (pattern, discrete)
        hit = self._stats.get(key)
        if hit is not None:
            return hit
        if not pattern and self._counter is not None and self.ci_test.statistics != "robust":
            stats = self._counter.moments_given(discrete)
        elif not pattern and not discrete:
            stats = self._rows_moments(slice(None))
        else:
            rows = np.flatnonzero(self.observed[:, list(pattern)].all(axis=1)) if pattern else slice(None)
            stats = self._rows_moments(rows, discrete)
        self._stats[key] = stats
        return stats

    # -- tests ------------------------------------------------------------------------------

    def _decide(self, pvalue, independent):
        return independent if self.level is None else pvalue > self.level

    def _unconditional_gaussian(self, pairs):
        """``(pvalue, statistic, independent)`` arrays of ``x _||_ y`` for every pair: one
        :meth:`~skbn.citests.BaseGaussianCITest.test_moments_given` call (the correlation
        matrix) per observed pattern of the pairs."""
        n = len(pairs)
        pvalue, statistic, independent = np.ones(n), np.zeros(n), np.zeros(n, dtype=bool)
        if self.incomplete.any():
            patterns = {}
            for k, (x, y) in enumerate(pairs.tolist()):
                patterns.setdefault(tuple(c for c in (x, y) if self.incomplete[c]), []).append(k)
            groups = [(np.asarray(ks), key) for key, ks in patterns.items()]
        else:
            groups = [(np.arange(n), ())]
        for ks, pattern in groups:
            sub = pairs[ks]
            columns = np.unique(sub)
            local = np.full(len(self.cardinalities), -1, dtype=np.intp)
            local[columns] = np.arange(len(columns))
            block = self.stats(pattern).select(self.index[columns])
            batch = self.ci_test.test_moments_given(block, local[sub], ())
            pvalue[ks], statistic[ks] = batch.pvalue, batch.statistic
            independent[ks] = self._decide(batch.pvalue, batch.independent)
        return pvalue, statistic, independent

    def result(self, x, y, subset):
        """The :class:`~skbn.citests.CITestResult` of one test ``x _||_ y | subset`` (the
        test's own decision): what :func:`skbn.checking.ci_test` returns for the Gaussian and
        CLG tests."""
        if not self.gaussian:
            return self._clg_result(x, y, subset)
        index = self.index
        return self.ci_test.test_moments(self.stats([x, y, *subset]), int(index[x]), int(index[y]),
                                         index[list(subset)].tolist())

    def _clg_one(self, x, y, subset):
        """``(pvalue, statistic, independent)`` of one CLG test (see the module docstring)."""
        result = self._clg_result(x, y, subset)
        return result.pvalue, result.statistic, bool(self._decide(result.pvalue, result.independent))

    def _clg_result(self, x, y, subset):
        """The :class:`~skbn.citests.CITestResult` of one CLG test, the test's own decision."""
        from skbn.citests import CITestResult

        test = self.ci_test
        cont = self.is_continuous
        if not cont[x] and cont[y]:
            x, y = y, x  # the continuous one first
        discrete = [v for v in subset if not cont[v]]
        continuous = [v for v in subset if cont[v]]
        if not cont[x] and not cont[y]:
            if continuous:
                return CITestResult(0.0, 0.0, 0.0, False)  # the rule: discrete x, y given continuous
            if self._tables is None:
                self._tables = StratifiedCounter(self.data, None, {})
            block, declared = self._tables.tables(x, y, tuple(subset))
            batch = self.run_tables(test, [block], [declared], int(self.cardinalities[x]),
                                    int(self.cardinalities[y]))
            return CITestResult(float(batch.statistic[0]), float(batch.pvalue[0]), float(batch.dof[0]),
                                bool(batch.independent[0]))
        index = self.index
        if cont[y]:  # x and y continuous
            stats = self.stats([x, y, *subset], discrete)
            return test.test_moments(stats, int(index[x]), int(index[y]), index[continuous].tolist())
        # x continuous, y discrete: y as test_mixed's discrete x, its digit last
        given = sorted(discrete)
        stats = self.stats([x, y, *subset], given + [y])
        order = sorted(given + [y])
        shape = [int(self.cardinalities[v]) for v in order]
        axes = [order.index(v) for v in given] + [order.index(y)]
        groups = np.arange(stats.n_groups).reshape(shape).transpose(axes).ravel()
        stats = type(stats)(stats.weight[groups], stats.mean[groups], stats.scatter[groups])
        return test.test_mixed(stats, int(index[x]), index[continuous].tolist(), int(self.cardinalities[y]))

    def test_many(self, requests):
        """``(pvalue, statistic, independent)`` lists of ``(x, y, S)`` requests.

        Gaussian tests: the requests of one observed pattern and one set size in one
        :meth:`~skbn.citests.BaseGaussianCITest.test_moments_sets` call (vectorised: a
        small solve per test, no Python step per set); CLG tests one by one.
        """
        n = len(requests)
        pvalue, statistic, independent = [1.0] * n, [0.0] * n, [False] * n
        if not self.gaussian:
            for k, (x, y, subset) in enumerate(requests):
                pvalue[k], statistic[k], independent[k] = self._clg_one(x, y, subset)
            return pvalue, statistic, independent
        groups = {}
        incomplete = self.incomplete if self.incomplete.any() else None
        if incomplete is None and len({len(subset) for _, _, subset in requests}) == 1:
            # one group, the requests in order (a round of one level): no per-test step
            size = len(requests[0][2])
            batch = self.ci_test.test_moments_sets(
                self.stats(()), self.index[[(x, y) for x, y, _ in requests]],
                self.index[np.array([subset for _, _, subset in requests], dtype=np.intp).reshape(n, size)])
            decided = self._decide(batch.pvalue, batch.independent)
            return batch.pvalue.tolist(), batch.statistic.tolist(), decided.tolist()
        for k, (x, y, subset) in enumerate(requests):
            pattern = () if incomplete is None else tuple(sorted(
                c for c in (x, y, *subset) if incomplete[c]))
            groups.setdefault((pattern, len(subset)), []).append(k)
        for (pattern, size), ks in groups.items():
            stats = self.stats(pattern)
            pairs = self.index[[requests[k][:2] for k in ks]]
            sets = self.index[np.array([requests[k][2] for k in ks], dtype=np.intp).reshape(len(ks), size)]
            batch = self.ci_test.test_moments_sets(stats, pairs, sets)
            decided = self._decide(batch.pvalue, batch.independent)
            for k, a, b, c in zip(ks, batch.pvalue.tolist(), batch.statistic.tolist(), decided.tolist()):
                pvalue[k], statistic[k], independent[k] = a, b, c
        return pvalue, statistic, independent

    def unconditional(self, pairs):
        """``(pvalue, statistic, independent)`` arrays of ``x _||_ y`` for every pair."""
        pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
        if self.gaussian:
            return self._unconditional_gaussian(pairs)
        out = self.test_many([(int(x), int(y), ()) for x, y in pairs.tolist()])
        return np.asarray(out[0]), np.asarray(out[1]), np.asarray(out[2], dtype=bool)

    def run(self, units, stop_at_first, deadline=None, now=None):
        """``(pvalues, independent, power_rule)`` lists of every ``(x, y, subsets)`` unit,
        ``S`` in order, truncated after the first independence when ``stop_at_first``
        (``power_rule`` all False: these tests have no power rule).

        Rounds: each takes the next chunk of sets of every unfinished unit (chunks grow 1,
        2, ... 64 when a unit may stop early; all sets at once otherwise) and tests them
        together (:meth:`test_many`).
        ``deadline``: no round starts after it (``now()`` the clock).
        """
        results = [([], [], []) for _ in units]
        position = [0] * len(units)
        active = [u for u, unit in enumerate(units) if unit[2]]
        size = 1 if stop_at_first else 1 << 30
        while active:
            if deadline is not None and now() >= deadline:
                break
            requests, owners = [], []
            for u in active:
                x, y, subsets = units[u]
                chunk = subsets[position[u]:position[u] + size]
                position[u] += len(chunk)
                requests.extend((x, y, subset) for subset in chunk)
                owners.append((u, len(chunk)))
            pvalue, _, independent = self.test_many(requests)
            k = 0
            for u, m in owners:
                results[u][0].extend(pvalue[k:k + m])
                results[u][1].extend(independent[k:k + m])
                results[u][2].extend([False] * m)
                k += m
            active = still_active(active, results, position, units, stop_at_first)
            size = min(2 * size, 64)
        return results
