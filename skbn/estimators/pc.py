"""PC: constraint-based structure learning, from CI tests to the CPDAG (Spirtes & Glymour 1991)."""

import os
import shutil
import tempfile
from dataclasses import replace
from itertools import combinations
from numbers import Integral

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

from skbn._counting import compress_ids, extend_ids, pairwise_tables
from skbn.citests import resolve_ci_test
from skbn.estimators._base import _BaseStructureLearner
from skbn.graph import PDAG, has_directed_path, meek_orient, pdag_to_dag, topological_order
from skbn.utils._sklearn_compat import Interval, StrOptions

#: Largest number of conditioning sets whose tables are counted in one stacked bincount.
_MAX_CHUNK = 64
#: Below this many counted cells (conditioning sets x rows) in a level >= 2, the level runs
#: in-process: a process-parallel level costs about 12 ms (dispatch, results) plus the
#: workers' cold caches of conditioning-set ids, i.e. about 10**7 cells of counting.
_MIN_PARALLEL_WORK = 10_000_000
#: Rows per one-hot chunk of the level-1 Gram products (keeps the float32 block in cache).
_GRAM_CHUNK_ROWS = 8192
#: Rows are counted in ``_LANES`` interleaved lanes (``cell * _LANES + row % _LANES``),
#: summed afterwards: on skewed data most consecutive rows fall in the same cell, and
#: ``np.bincount`` then waits on the previous increment of that counter; lanes break the
#: dependency (about 1.6x faster on ALARM at 100,000 rows).
_LANE_BITS = 2
_LANES = 1 << _LANE_BITS
#: Lanes cost O(bins) (a 4x larger table to clear and sum) and pay off with many rows per
#: bin: a conditioning set gets lanes only when its largest table (``n_ids`` x the largest
#: ``r_x * r_y`` of the data) has at most ``n_samples / _LANE_ROWS_PER_BIN`` lane bins.
_LANE_ROWS_PER_BIN = 16
#: Below this many level-1 cells (conditioning sets x rows), the Gram products stay serial.
_MIN_THREAD_WORK = 10_000_000
#: Codes at least this large are memory-mapped for process workers (joblib's own threshold).
_MIN_MEMMAP_BYTES = 1 << 20
#: Batches per worker in a process-parallel level: one contiguous batch each shares the
#: most cached conditioning-set ids (measured faster than 2 or 4 smaller batches).
_BATCHES_PER_JOB = 1
#: Bound on the per-worker cache of conditioning-set configuration ids.
_ID_CACHE_SIZE = 1024


class _Counter:
    """Stratified contingency tables of variable pairs, with cached conditioning-set ids.

    The table of ``x, y | S`` is one ``np.bincount`` of ``cell = xy * q + stratum`` where
    ``xy`` is the joint state of the pair and ``stratum`` the configuration id of ``S``
    (:func:`skbn._counting.config_ids`, extended one column at a time from the cached id of
    the prefix of ``S``, compressed to the observed configurations when the declared number
    would exceed the number of rows).
    """

    def __init__(self, data, adjacency=None, caches=None):
        self.codes = data.codes
        self.cards = data.cardinalities
        self._r = [int(r) for r in data.cardinalities]  # Python ints: no numpy scalar per test
        self.adjacency = adjacency
        self.adjacency_sets = None if adjacency is None else [set(a) for a in adjacency]
        # ``caches``: a dict kept by the caller to share the conditioning-set ids (and the
        # scaled pair states) between the counters of one fit's levels and collider phase
        if caches:
            self._ids, self._xy, self._lane = caches["ids"], caches["xy"], caches["lane"]
        else:
            self._ids = {}
            self._lane = np.arange(self.codes.shape[0], dtype=np.int64) & (_LANES - 1)
            self._xy = {}
            if caches is not None:
                caches.update(ids=self._ids, xy=self._xy, lane=self._lane)
        self._gram = {}
        top = sorted(self._r)[-2:]
        self._lane_limit = self.codes.shape[0] // (_LANE_ROWS_PER_BIN * _LANES * max(1, top[0] * top[-1]))

    def config(self, subset):
        """``(lane ids, n_ids, declared n_configurations, lane bits)`` of a sorted set.

        Lane ids are ``id * _LANES + row % _LANES`` (see :meth:`tables`) when ``lane bits``
        is ``_LANE_BITS``, plain ids when it is 0 (small data, large tables); ``id`` is
        ``lane_ids >> lane bits``.
        """
        hit = self._ids.get(subset)
        if hit is not None:
            return hit
        if not subset:
            value = (self._lane, 1, 1, _LANE_BITS)
        else:
            lane_ids, n_ids, declared, bits = self.config(subset[:-1])
            ids, n_ids = extend_ids(lane_ids >> bits, n_ids, self.codes, self.cards, subset[-1])
            declared *= int(self.cards[subset[-1]])
            if n_ids > len(ids):  # keep every bincount O(n_samples)
                ids, n_ids = compress_ids(ids, n_ids)
            bits = _LANE_BITS if n_ids <= self._lane_limit else 0
            if bits:
                ids <<= bits
                ids += self._lane
            value = (ids, n_ids, declared, bits)
        if len(self._ids) >= _ID_CACHE_SIZE:
            self._ids.clear()
        self._ids[subset] = value
        return value

    def _given(self, v):
        """Level-1 counts around ``v``: ``G[a]`` = one-hot Gram matrix of ``adj(v)`` over the
        rows where ``v = a``, so ``G[a][o_y + b, o_z + c] = #(v = a, y = b, z = c)`` for all
        ``y, z`` in ``adj(v)`` at once. The rows are sorted by ``v`` once (a stable radix sort
        of a uint8 column), so each state is a contiguous block counted by
        :func:`skbn._counting.pairwise_tables` in cache-sized chunks (BLAS, exact)."""
        hit = self._gram.get(v)
        if hit is None:
            hit = self._gram[v] = _gram_given(self.codes, self.cards, v, self.adjacency[v])
        return hit
    def _level_one(self, x, y, z):
        """Table of ``x, y | z`` sliced from a level-1 Gram matrix, or None."""
        r_x, r_y, r_z = self._r[x], self._r[y], self._r[z]
        for v, w, axes in ((x, y, (2, 0, 1)), (y, x, (2, 1, 0))):
            if self.adjacency is not None and z in self.adjacency_sets[v] and w in self.adjacency_sets[v]:
                gram, offsets = self._given(v)
                block = gram[:, offsets[w]:offsets[w] + (r_y if v == x else r_x),
                             offsets[z]:offsets[z] + r_z]
                return np.rint(block.transpose(axes)).astype(np.int64).reshape(r_z, r_x * r_y)
        return None

    def tables(self, x, y, subset):
        """``(counts of shape (n_ids, r_x * r_y), declared number of strata)``."""
        if len(subset) == 1 and self.adjacency is not None:
            block = self._level_one(x, y, subset[0])
            if block is not None:
                return block, int(self.cards[subset[0]])
        lane_ids, n_ids, declared, bits = self.config(subset)
        r_y = self._r[y]
        n_cells = self._r[x] * r_y
        key = (x, y, n_ids << bits)
        xyk = self._xy.get(key)
        if xyk is None:
            if len(self._xy) >= _ID_CACHE_SIZE:
                self._xy.clear()
            xy = self.codes[:, x].astype(np.int64) * r_y + self.codes[:, y]
            xy *= n_ids << bits
            xyk = self._xy[key] = xy
        cells = xyk + lane_ids
        if not bits:
            counts = np.bincount(cells, minlength=n_cells * n_ids)
            return counts.reshape(n_cells, n_ids).T, declared
        lanes = np.bincount(cells, minlength=(n_cells * n_ids) << _LANE_BITS)
        lanes = lanes.reshape(n_cells * n_ids, _LANES)
        counts = lanes[:, 0] + lanes[:, 1] if _LANES > 1 else lanes[:, 0]
        for lane in range(2, _LANES):  # 10x faster than lanes.sum(axis=1)
            counts += lanes[:, lane]
        return counts.reshape(n_cells, n_ids).T, declared


def _gram_given(codes, cards, v, others):
    """``(gram, offsets)`` of :meth:`_Counter._given` (a function, so threads can run it)."""
    others = list(others)
    column = codes[:, v]
    order = np.argsort(column, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(column, minlength=int(cards[v])))])
    block = codes[:, others][order]
    sub_cards = np.asarray(cards, dtype=np.int64)[others]
    gram = np.stack([
        pairwise_tables(block[a:b], sub_cards, _GRAM_CHUNK_ROWS)[0]
        for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist())
    ])
    starts = np.concatenate([[0], np.cumsum(sub_cards)[:-1]]).tolist()
    return gram, dict(zip(others, starts))


def _run_units(data, ci_test, units, stop_at_first, adjacency=None, grams=None, caches=None):
    """Worker: test ``x _||_ y | S`` for every ``(x, y, subsets)`` unit, ``S`` in order.

    Returns, per unit, ``(pvalues, independent)`` lists, truncated after the first
    independence when ``stop_at_first`` -- exactly what testing the sets one by one would
    give. Tests that count (``ci_test.from_counts``) are evaluated in rounds: each round
    takes the next chunk of sets of every unfinished unit (chunks grow 4, 8, ... 64, so an
    early independence wastes little), counts their tables, and sends all tables of one
    shape ``(r_x, r_y)`` through the test in a single vectorised call. With the (frozen)
    ``adjacency``, tables given one variable are sliced from per-variable Gram matrices
    (:meth:`_Counter._given`; ``grams``: those already computed) instead of counted one by
    one. ``caches`` (a dict, filled on first use) shares the counter's caches of
    conditioning-set ids between calls on the same data.
    """
    results = [([], []) for _ in units]
    if not ci_test.from_counts:
        for (x, y, subsets), (pvalues, flags) in zip(units, results):
            for subset in subsets:
                result = ci_test.test_variables(data, x, y, subset)
                pvalues.append(result.pvalue)
                flags.append(result.independent)
                if stop_at_first and result.independent:
                    break
        return results
    counter = _Counter(data, adjacency, caches)
    counter._gram.update(grams or {})
    card = counter._r
    position = [0] * len(units)
    active = [u for u, unit in enumerate(units) if unit[2]]
    # growing chunks only pay off when a unit may stop early; otherwise fewer, larger rounds
    size = 4 if stop_at_first else _MAX_CHUNK
    while active:
        by_shape = {}
        for u in active:
            x, y, subsets = units[u]
            chunk = subsets[position[u]:position[u] + size]
            position[u] += len(chunk)
            entry = by_shape.setdefault((card[x], card[y]), ([], [], [], []))
            blocks, sizes, declared, owners = entry
            for subset in chunk:
                block, q = counter.tables(x, y, subset)
                blocks.append(block)
                sizes.append(len(block))
                declared.append(q)
            owners.append((u, len(chunk)))
        for (r_x, r_y), (blocks, sizes, declared, owners) in by_shape.items():
            # float once here (the tests count in float64); a stratum is observed iff its
            # cells sum to more than 0, whatever the rounding of the BLAS product
            tables = np.concatenate(blocks, dtype=np.float64)
            group = np.repeat(np.arange(len(blocks)), sizes)
            observed = tables @ np.ones(r_x * r_y) > 0
            _, pval, _, indep = ci_test._test_batch(
                tables[observed].reshape(-1, r_x, r_y), group[observed], len(blocks),
                np.asarray(declared, dtype=float),
            )
            pval, indep = pval.tolist(), indep.tolist()
            k = 0
            for u, n in owners:
                results[u][0].extend(pval[k:k + n])
                results[u][1].extend(indep[k:k + n])
                k += n
        still = []
        for u in active:
            pvalues, flags = results[u]
            if stop_at_first and True in flags:
                first = flags.index(True)
                del pvalues[first + 1:], flags[first + 1:]
            elif position[u] < len(units[u][2]):
                still.append(u)
        active = still
        size = min(2 * size, _MAX_CHUNK)
    return results


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


class PCStructure(_BaseStructureLearner):
    r"""PC algorithm: CI tests -> skeleton -> v-structures -> Meek rules -> CPDAG.

    1. **Skeleton** (PC-stable, Colombo & Maathuis 2014). Start from the complete graph. At
       level :math:`\ell = 0, 1, \dots` every adjacent pair ``x - y`` is tested for
       :math:`x \perp y \mid S` for the sets ``S`` of size :math:`\ell` drawn from
       ``adj(x) - {y}`` and then ``adj(y) - {x}`` (lexicographic, by column index), with the
       adjacencies *frozen at the start of the level*; the first independence removes the
       edge and records ``S`` as the separating set. Freezing makes the skeleton
       independent of the column order and lets all pairs of a level be tested in parallel.
       Level 0 tests every pair at once from the one-hot Gram matrix of pairwise counts.
    2. **Colliders.** For every unshielded triple ``x - z - y`` (``x``, ``y`` non-adjacent):

       * ``"standard"``: ``x -> z <- y`` iff ``z`` is not in the separating set of ``x, y``;
       * ``"conservative"`` (Ramsey et al. 2006): all subsets of ``adj(x) - {y}`` and of
         ``adj(y) - {x}`` (sizes up to ``max_cond_vars``) are tested; collider iff ``z`` is in
         none of the separating sets found, non-collider iff in all; otherwise the triple is
         ambiguous and left unoriented;
       * ``"majority"`` (Colombo & Maathuis 2014): as conservative, collider iff ``z`` is in
         less than half of them, non-collider if more than half, ambiguous at exactly half.

       When those tests find no separating set, the separating set of step 1 decides.
       Arrowheads are placed triple by triple in sorted order of ``(x, z, y)`` positions; an
       arrowhead that contradicts one already placed (``z -> x`` vs ``x -> z``) is dropped
       (the first in scan order wins).
    3. **Meek rules** R1-R4 (:func:`skbn.graph.meek_orient`) give the maximally oriented PDAG
       ``cpdag_``.
    4. **A DAG in the class** (:func:`skbn.graph.pdag_to_dag`, Dor & Tarsi) gives ``edges_``,
       used for the CPTs, so ``score``, ``score_samples``, ``predict_proba`` and ``sample``
       work as for the score-based learners. With finite-sample errors the PDAG may admit no
       consistent extension; then ``edges_`` keeps the directed edges of ``cpdag_`` in
       sorted order, skipping any that would close a directed cycle, and orients the
       undirected edges along the topological order of that DAG (ties by column index).

    Parameters
    ----------
    ci_test : str or BaseCITest, default="chi_square"
        ``"chi_square"`` (:class:`~skbn.citests.ChiSquare`), ``"g_test"``
        (:class:`~skbn.citests.GTest`), ``"bayes_factor"``
        (:class:`~skbn.citests.BayesFactor`), or a test object such as
        ``GTest(alpha=0.01)`` or ``DSeparationOracle(true_dag)``. **The test level lives on
        the test object** (default 0.05 for the aliases); tune it as ``ci_test__alpha``.
    max_cond_vars : int or None, default=None
        Largest conditioning set tried (None: until no pair has enough neighbours). With a
        perfect oracle any value >= the true maximum in-degree still gives the exact CPDAG.
    variant : {"stable", "original"}, default="stable"
        ``"stable"`` freezes adjacencies per level (order-independent skeleton, parallel);
        ``"original"`` removes edges as soon as found (order-dependent, always sequential).
    orient : {"standard", "conservative", "majority"}, default="majority"
        Collider rule (see above). The default majority rule makes the whole result
        independent of the column order (with ``variant="stable"``) and was the most accurate
        on the shared networks: CPDAG SHD 0 instead of 15 on CHILD and 4 (equal) on ALARM at
        10,000 rows, for about 1.3-1.7x the tests. ``"standard"`` is the textbook rule.
    correction : {None, "bonferroni", "fdr"}, default=None
        Multiple-testing control of the *adjacencies kept* (an edge is kept only if every test
        of it rejects independence). ``"bonferroni"`` runs every test at level
        ``alpha / m`` with ``m = p (p - 1) / 2`` pairs, so the family-wise probability of
        keeping any absent edge is at most ``alpha`` whenever a true separating set is among
        the sets tried. ``"fdr"`` (after Li & Wang 2009): each pair's p-value is the maximum
        p-value of all its tests; after every level the Benjamini-Hochberg procedure at level
        ``alpha`` is applied to these ``m`` p-values and the edges it does not reject are
        removed too (separating set: the set of the maximum p-value), bounding the expected
        fraction of false adjacencies. Needs a test with frequentist p-values and ``alpha``.
    n_jobs : int or None, default=None
        Workers (joblib). Level 1's Gram products run in threads; the tests of larger
        levels (and of the collider step) in the active joblib backend (processes by default,
        or e.g. dask through ``joblib.parallel_config(backend="dask")``), on codes memory-mapped
        once per fit. Small levels stay in-process. Results are identical for any value.
    verbose : int, default=0
        Print one line per level.
    {common_parameters}

    Attributes
    ----------
    cpdag_ : skbn.graph.PDAG
        Learned (maximally oriented) partially directed graph over the column names.
    directed_edges_ : list of (parent, child)
        Directed edges of ``cpdag_``, sorted by column position.
    undirected_edges_ : list of (u, v)
        Undirected edges of ``cpdag_`` (``u`` before ``v`` in column order).
    edges_ : list of (parent, child)
        A DAG in the learned class (see step 4); its CPTs are ``network_``.
    sepsets_ : dict {(x, y): tuple}
        Separating set of every removed pair (``x`` before ``y`` in column order), names.
    n_tests_ : int
        Number of CI tests whose result the algorithm used (chunked evaluation may compute
        up to a few more past a deciding independence; they are not counted).
    ci_test_ : BaseCITest
        The resolved test (for ``"bonferroni"``, at the per-test level ``alpha / m``).
    network_ : DiscreteBayesianNetwork
    categories_, classes_, n_features_in_, feature_names_in_

    References
    ----------
    P. Spirtes, C. Glymour and R. Scheines (2000), *Causation, Prediction, and Search*, 2nd ed.
    D. Colombo and M. H. Maathuis (2014), "Order-independent constraint-based causal structure
    learning", JMLR 15.
    J. Ramsey, J. Zhang and P. Spirtes (2006), "Adjacency-faithfulness and conservative causal
    inference", UAI.
    J. Li and Z. J. Wang (2009), "Controlling the false discovery rate of the
    association/causality structure learned with the PC algorithm", JMLR 10.
    C. Meek (1995), "Causal inference and causal explanation with background knowledge", UAI.

    Examples
    --------
    >>> from skbn.estimators.pc import PCStructure
    >>> from skbn.datasets import sample_asia
    >>> model = PCStructure().fit(sample_asia(5000, random_state=0))
    >>> ("lung", "either") in model.directed_edges_
    True
    """

    _parameter_constraints = {
        **_BaseStructureLearner._parameter_constraints,
        "ci_test": "no_validation",
        "max_cond_vars": [None, Interval(Integral, 0, None, closed="left")],
        "variant": [StrOptions({"stable", "original"})],
        "orient": [StrOptions({"standard", "conservative", "majority"})],
        "correction": [None, StrOptions({"bonferroni", "fdr"})],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        ci_test="chi_square",
        max_cond_vars=None,
        variant="stable",
        orient="majority",
        correction=None,
        n_jobs=None,
        verbose=0,
        categories="auto",
        handle_unknown="error",
        target=None,
        fit_parameters=True,
        parameter_estimator="bayes",
        parameter_ess=1.0,
    ):
        self.ci_test = ci_test
        self.max_cond_vars = max_cond_vars
        self.variant = variant
        self.orient = orient
        self.correction = correction
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.categories = categories
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess

    # ------------------------------------------------------------------ helpers
    def _resolve_test(self, n_pairs):
        ci_test = resolve_ci_test(self.ci_test)
        if self.correction is not None:
            if not ci_test.pvalue_is_probability or "alpha" not in ci_test.get_params():
                raise ValueError(
                    f"correction={self.correction!r} needs a ci_test with frequentist p-values "
                    f"and an alpha level; {type(ci_test).__name__} has none."
                )
            if self.correction == "bonferroni":
                ci_test.set_params(alpha=ci_test.alpha / max(n_pairs, 1))
        return ci_test

    def _run(self, data, units, stop_at_first, adjacency=None):
        """Run test units, in parallel when worthwhile; results in unit order."""
        if not units:
            return []
        n_jobs = effective_n_jobs(self.n_jobs)
        work = sum(len(u[2]) for u in units)
        if adjacency is not None:
            # level 1: the per-variable Gram products (BLAS and numpy copies, which release
            # the GIL) run in a thread pool; the tests then slice them in-process
            grams = None
            if n_jobs > 1 and work * data.n_samples >= _MIN_THREAD_WORK:
                needed = sorted({v for x, y, _ in units for v in (x, y) if len(adjacency[v]) >= 2})
                codes, cards = data.codes, data.cardinalities
                grams = dict(zip(needed, Parallel(n_jobs=self.n_jobs, require="sharedmem")(
                    delayed(_gram_given)(codes, cards, v, adjacency[v]) for v in needed
                )))
            return _run_units(data, self.ci_test_, units, stop_at_first, adjacency, grams,
                              self._caches)
        if n_jobs == 1 or len(units) < 2 or work * data.n_samples < _MIN_PARALLEL_WORK:
            return _run_units(data, self.ci_test_, units, stop_at_first, caches=self._caches)
        # contiguous batches of about equal work: units are sorted by (x, y), so a batch's
        # units share conditioning sets (and their cached ids); results come back in order
        n_batches = min(len(units), _BATCHES_PER_JOB * n_jobs)
        cumulative = np.cumsum([len(u[2]) for u in units])
        cuts = np.searchsorted(cumulative, work * np.arange(1, n_batches) / n_batches)
        bounds = [0, *sorted(set(int(c) + 1 for c in cuts)), len(units)]
        batches = [units[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
        shared = self._shared_data(data)
        outputs = Parallel(n_jobs=self.n_jobs)(
            delayed(_run_units)(shared, self.ci_test_, batch, stop_at_first)
            for batch in batches
        )
        return [result for output in outputs for result in output]

    def _shared_data(self, data):
        """``data`` with its codes in a memory-mapped file, written once per fit.

        Process workers then map the file instead of receiving a pickled copy per batch
        (joblib would memory-map it too, but per call, and its clean-up after each call
        sometimes waits 0.1 s for the workers to release the file). Removed by
        :meth:`_learn_structure` at the end of the fit.
        """
        if data.codes.nbytes < _MIN_MEMMAP_BYTES:
            return data
        if self._shared is None:
            folder = os.environ.get("JOBLIB_TEMP_FOLDER")
            if folder is None and os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
                folder = "/dev/shm"
            self._shared_folder = tempfile.mkdtemp(prefix="skbn_pc_", dir=folder)
            path = os.path.join(self._shared_folder, "codes.npy")
            np.save(path, data.codes)
            self._shared = replace(data, codes=np.load(path, mmap_mode="r"))
        return self._shared

    def _level_zero(self, data):
        """p-values and decisions of every unconditional test, as (p, p) arrays."""
        p = data.n_variables
        pvalue = np.ones((p, p))
        independent = np.zeros((p, p), dtype=bool)
        ci_test = self.ci_test_
        if p < 2:
            return pvalue, independent
        if not ci_test.from_counts:
            units = [(x, y, [()]) for x, y in combinations(range(p), 2)]
            for (x, y, _), (pv, flags) in zip(units, _run_units(data, ci_test, units, True)):
                pvalue[x, y], independent[x, y] = pv[0], flags[0]
            return pvalue, independent
        cards = np.asarray(data.cardinalities, dtype=np.int64)
        gram, offsets = pairwise_tables(data.codes, cards)
        iu, ju = np.triu_indices(p, 1)
        shapes = np.stack([cards[iu], cards[ju]], axis=1)
        for r_x, r_y in np.unique(shapes, axis=0):
            sel = np.flatnonzero((shapes[:, 0] == r_x) & (shapes[:, 1] == r_y))
            rows = offsets[iu[sel]][:, None] + np.arange(r_x)
            cols = offsets[ju[sel]][:, None] + np.arange(r_y)
            tables = np.rint(gram[rows[:, :, None], cols[:, None, :]])
            observed = tables.reshape(len(sel), -1).any(axis=1)
            k = np.arange(len(sel))
            _, pval, _, indep = ci_test._test_batch(
                tables[observed], k[observed], len(sel), np.ones(len(sel))
            )
            pvalue[iu[sel], ju[sel]] = pval
            independent[iu[sel], ju[sel]] = indep
        return pvalue, independent

    # ------------------------------------------------------------------ skeleton
    def _skeleton(self, data):
        p = data.n_variables
        adjacency = [set(range(p)) - {i} for i in range(p)]
        sepsets = {}
        pvalue0, indep0 = self._level_zero(data)
        n_tests = p * (p - 1) // 2
        p_max = np.triu(pvalue0, 1)
        p_max_set = {}
        decided = {}  # (x, y, S) -> independent, for every test run (reused by the collider rules)
        for x, y in combinations(range(p), 2):
            p_max_set[(x, y)] = ()
            decided[(x, y, ())] = bool(indep0[x, y])
            if indep0[x, y]:
                adjacency[x].discard(y)
                adjacency[y].discard(x)
                sepsets[(x, y)] = ()
        self._fdr_step(adjacency, sepsets, p_max, p_max_set)
        self._log(0, n_tests, adjacency)
        level = 1
        while self.max_cond_vars is None or level <= self.max_cond_vars:
            pairs = [
                (x, y) for x in range(p) for y in sorted(adjacency[x]) if x < y
                and max(len(adjacency[x]), len(adjacency[y])) - 1 >= level
            ]
            if not pairs:
                break
            level_tests = 0
            if self.variant == "stable":
                frozen = [sorted(a) for a in adjacency]
                units = [(x, y, _edge_subsets(frozen, x, y, [level])) for x, y in pairs]
                results = self._run(data, units, True, frozen if level == 1 else None)
            else:
                units, results = [], []
                for x, y in pairs:
                    if y not in adjacency[x]:
                        continue
                    live = {x: sorted(adjacency[x]), y: sorted(adjacency[y])}
                    unit = (x, y, _edge_subsets(live, x, y, [level]))
                    result = _run_units(data, self.ci_test_, [unit], True, caches=self._caches)[0]
                    units.append(unit)
                    results.append(result)
                    if result[1] and result[1][-1]:
                        adjacency[x].discard(y)
                        adjacency[y].discard(x)
            for (x, y, subsets), (pvals, flags) in zip(units, results):
                level_tests += len(flags)
                decided.update(((x, y, subset), flag) for subset, flag in zip(subsets, flags))
                if not flags:
                    continue
                best = int(np.argmax(pvals))
                if pvals[best] > p_max[x, y]:
                    p_max[x, y] = pvals[best]
                    p_max_set[(x, y)] = subsets[best]
                if flags[-1]:
                    adjacency[x].discard(y)
                    adjacency[y].discard(x)
                    sepsets[(x, y)] = subsets[len(flags) - 1]
            n_tests += level_tests
            self._fdr_step(adjacency, sepsets, p_max, p_max_set)
            self._log(level, level_tests, adjacency)
            level += 1
        return adjacency, sepsets, n_tests, decided

    def _fdr_step(self, adjacency, sepsets, p_max, p_max_set):
        if self.correction != "fdr":
            return
        p = len(adjacency)
        iu, ju = np.triu_indices(p, 1)
        adjusted = _bh_adjust(p_max[iu, ju])
        for x, y, q in zip(iu.tolist(), ju.tolist(), adjusted.tolist()):
            if q > self.ci_test_.alpha and y in adjacency[x]:
                adjacency[x].discard(y)
                adjacency[y].discard(x)
                sepsets[(x, y)] = p_max_set[(x, y)]

    def _log(self, level, n_tests, adjacency):
        if self.verbose:
            n_edges = sum(len(a) for a in adjacency) // 2
            print(f"[PCStructure] level {level}: {n_tests} tests, {n_edges} adjacencies left")

    # ------------------------------------------------------------------ orientation
    def _colliders(self, data, adjacency, sepsets, decided):
        p = len(adjacency)
        triples = []
        for z in range(p):
            nbrs = sorted(adjacency[z])
            for i, x in enumerate(nbrs):
                for y in nbrs[i + 1:]:
                    if y not in adjacency[x]:
                        triples.append((x, z, y))
        triples.sort()
        if self.orient == "standard":
            return [t for t in triples if t[1] not in sepsets[(t[0], t[2])]], 0
        pairs = sorted({(x, y) for x, _, y in triples})
        frozen = [sorted(a) for a in adjacency]
        units = []
        for x, y in pairs:
            largest = max(len(frozen[x]), len(frozen[y]))
            if self.max_cond_vars is not None:
                largest = min(largest, self.max_cond_vars)
            units.append((x, y, _edge_subsets(frozen, x, y, range(largest + 1))))
        # only the sets the skeleton phase did not test already (same test, same decision)
        new_units = [(x, y, [s for s in subsets if (x, y, s) not in decided]) for x, y, subsets in units]
        for (x, y, subsets), (_, flags) in zip(new_units, self._run(data, new_units, False)):
            decided.update(((x, y, subset), flag) for subset, flag in zip(subsets, flags))
        separating = {
            (x, y): [s for s in subsets if decided[(x, y, s)]] for x, y, subsets in units
        }
        n_tests = sum(len(subsets) for _, _, subsets in new_units)
        colliders = []
        for x, z, y in triples:
            sets = separating[(x, y)]
            if not sets:
                if z not in sepsets[(x, y)]:
                    colliders.append((x, z, y))
                continue
            share = sum(z in s for s in sets) / len(sets)
            if (self.orient == "conservative" and share == 0.0) or (
                self.orient == "majority" and share < 0.5
            ):
                colliders.append((x, z, y))
        return colliders, n_tests

    @staticmethod
    def _extension(names, cpdag):
        """A DAG in the class of ``cpdag``, or the documented fallback when none exists."""
        try:
            return pdag_to_dag(cpdag)
        except ValueError:
            pass
        index = {name: i for i, name in enumerate(names)}
        kept = []
        for u, v in cpdag.directed:
            if not has_directed_path(names, kept, v, u):
                kept.append((u, v))
        rank = {name: r for r, name in enumerate(topological_order(names, kept))}
        kept += [(u, v) if rank[u] < rank[v] else (v, u) for u, v in cpdag.undirected]
        return sorted(kept, key=lambda e: (index[e[0]], index[e[1]]))

    # ------------------------------------------------------------------ hook
    def _learn_structure(self, data):
        p = data.n_variables
        self.ci_test_ = self._resolve_test(p * (p - 1) // 2)
        self._shared, self._shared_folder = None, None
        self._caches = {}  # counter caches shared by the in-process levels of this fit
        try:
            adjacency, sepsets, n_tests, decided = self._skeleton(data)
            colliders, extra_tests = self._colliders(data, adjacency, sepsets, decided)
        finally:
            if self._shared_folder is not None:
                shutil.rmtree(self._shared_folder, ignore_errors=True)
            del self._shared, self._shared_folder, self._caches
        arrows = set()
        for x, z, y in colliders:
            for a in (x, y):
                if (z, a) not in arrows:
                    arrows.add((a, z))
        undirected = [
            (x, y) for x in range(p) for y in sorted(adjacency[x])
            if x < y and (x, y) not in arrows and (y, x) not in arrows
        ]
        names = list(data.names)
        pdag = PDAG(
            names,
            [(names[a], names[b]) for a, b in sorted(arrows)],
            [(names[a], names[b]) for a, b in undirected],
        )
        self.cpdag_ = meek_orient(pdag)
        self.directed_edges_ = list(self.cpdag_.directed)
        self.undirected_edges_ = list(self.cpdag_.undirected)
        self.sepsets_ = {
            (names[x], names[y]): tuple(names[v] for v in s) for (x, y), s in sorted(sepsets.items())
        }
        self.n_tests_ = int(n_tests + extra_tests)
        index = {name: i for i, name in enumerate(names)}
        return [(index[u], index[v]) for u, v in self._extension(names, self.cpdag_)]
