r"""Conditional-independence (CI) tests as pluggable, tunable objects.

A CI test decides whether ``X`` and ``Y`` are independent given a set of variables ``Z``
from the stratified contingency tables ``N[s, a, b]`` (``s`` a configuration of ``Z``,
``a`` a state of ``X``, ``b`` a state of ``Y``) produced by the counting engine
(weighted by ``sample_weight`` when given, see
:class:`BaseCITest`). Every statistic here is a sum over strata,

.. math:: T = \sum_s T_s, \qquad \nu = \sum_s \nu_s ,

computed for all strata at once (one vectorised pass; strata of many tests can even be
stacked into one call).

To run one test on a data set (R bnlearn's ``ci.test``), call :func:`skbn.checking.ci_test`:
it reads the columns as the learners' ``fit`` does and picks PC's test for them.

Test objects hold hyperparameters only (never data), like the score objects of
:mod:`skbn.scores`: ``clone``, pickling, parallel workers and
``GridSearchCV(PCStructure(), {"ci_test__alpha": [0.01, 0.05]})`` work.

Degrees of freedom (``adjust_dof``)
-----------------------------------
``adjust_dof=False``
    The classical :math:`\nu = (r_X - 1)(r_Y - 1)\, q_Z` with ``q_Z = prod r_Z`` the *declared*
    number of configurations of ``Z`` (R bnlearn's ``"x2"`` / ``"mi"`` tests).
``adjust_dof=True`` (default)
    Each observed stratum contributes :math:`(\tilde r_{X,s} - 1)(\tilde r_{Y,s} - 1)` where
    :math:`\tilde r` counts the non-empty rows / columns of that stratum; empty strata
    contribute nothing (bnlearn's ``"x2-adf"`` / ``"mi-adf"``, pgmpy, Tetrad). Without the
    adjustment sparse strata add degrees of freedom but almost no statistic, so with
    conditioning sets of a few variables the test loses nearly all power and PC deletes true
    edges; the adjusted count is the usual fix and gives a better ALARM skeleton.

Too few samples
---------------
A test with fewer than ``min_samples_per_dof * dof`` samples (in its observed strata) is not
trusted: it reports ``pvalue = 0.0`` and ``independent = False`` (dependence is assumed, so PC
keeps the edge). This is the "heuristic power rule" of Spirtes et al. (2000) and Tsamardinos
et al. (2006, MMHC: at least 5 samples per degree of freedom). Set it to 0 to switch it off.
bnlearn's ``"x2-adf"`` / ``"mi-adf"`` decide the other way: with fewer than
:math:`5\, r_X r_Y q_Z` samples they return a statistic of 0 and ``pvalue = 1`` (independence,
so bnlearn's PC removes the edge); with ``min_samples_per_dof=0`` skbn's p-values are those
of their other tests (on R's ``esoph``, 88 rows, 10 of 12 such tests hit their rule).
A test with ``dof == 0`` (e.g. a constant variable, or every stratum empty) has statistic 0 and
``pvalue = 1.0``: p-values are never NaN.
"""

from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy.special import chdtrc, expit, gammaln, ndtr, stdtr, xlogy
from sklearn.base import BaseEstimator

from skbn._counting import contingency_tables, count_positive, n_configurations
from skbn.utils._plugins import resolve_plugin
from skbn.utils._sklearn_compat import Interval, validate_parameter_constraints

__all__ = [
    "BaseCITest",
    "BaseGaussianCITest",
    "BayesFactor",
    "CITestBatchResult",
    "CITestResult",
    "CLGMutualInformation",
    "ChiSquare",
    "DSeparationOracle",
    "FisherZ",
    "GTest",
    "GaussianMutualInformation",
    "PartialCorrelationT",
    "RobustFisherZ",
    "resolve_ci_test",
]


@dataclass(frozen=True)
class CITestResult:
    """Outcome of one conditional-independence test.

    Parameters
    ----------
    statistic : float
        Test statistic (chi-square, G, or log Bayes factor).
    pvalue : float
        In [0, 1], never NaN; small means evidence of dependence.
    dof : float
        Degrees of freedom used.
    independent : bool
        The test's decision.
    power_rule : bool, default=False
        Whether the heuristic power rule decided the test instead of the data (too few
        samples per degree of freedom, see :class:`ChiSquare`'s ``min_samples_per_dof``:
        ``pvalue = 0``, dependence assumed).
    """

    statistic: float
    pvalue: float
    dof: float
    independent: bool
    power_rule: bool = False


@dataclass(frozen=True)
class CITestBatchResult:
    """Outcomes of a batch of conditional-independence tests (:meth:`BaseCITest.test_batch`).

    Parameters
    ----------
    statistic : ndarray of shape (n_tests,), float64
        Test statistics, as in :class:`CITestResult`, one entry per test.
    pvalue : ndarray of shape (n_tests,), float64
        P-values in [0, 1], one entry per test.
    dof : ndarray of shape (n_tests,), float64
        Degrees of freedom used, one entry per test.
    independent : ndarray of shape (n_tests,), bool
        The test's decisions at its own level.
    power_rule : ndarray of shape (n_tests,), bool, default=None
        Whether the heuristic power rule decided each test instead of the data (as in
        :class:`CITestResult`); None (the default) is read as all False.
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    dof: np.ndarray
    independent: np.ndarray
    power_rule: np.ndarray = None

    def __post_init__(self):
        if self.power_rule is None:
            object.__setattr__(self, "power_rule", np.zeros(np.shape(self.statistic), dtype=bool))


class BaseCITest(BaseEstimator):
    """Base class of CI tests.

    A test is a pure function of stratified (weighted) count tables. The public entry points
    are :meth:`test` (one table), :meth:`test_batch` (many tests stacked into one call, what
    PC uses) and :meth:`test_variables` (count columns of an encoded data set, then test).
    Subclasses implement the hook ``_test_batch`` with the signature and return value of
    :meth:`test_batch`.

    **Weighted tables.** The tables are weighted frequency tables (``sample_weight``: each
    cell is the sum of the weights of its rows) and every statistic is computed on them as
    if they were counts. An integer weight ``w`` on a row is therefore exactly ``w`` copies
    of the row (same tables, same statistic, p-value and decision, bit for bit); with
    fractional weights the sample size is the total weight. This is the usual reading of
    frequency weights (and of the Bayesian bootstrap, whose Dirichlet weights are scaled to
    sum to ``n``, Rubin 1981): a test's calibration holds for the *effective* sample size the
    weights represent, so weights should be scaled to it (not, e.g., normalised to sum to 1,
    which would make every test accept independence).

    Attributes
    ----------
    from_counts : bool
        Class attribute: True when the test is a function of count tables (PC then counts
        and stacks the tables of many tests); False for oracles that answer from variable
        identities.
    pvalue_is_probability : bool
        Class attribute: True when ``pvalue`` is a frequentist p-value, so that
        multiple-testing corrections (``PCStructure(correction=...)``) make sense.

    References
    ----------
    D. B. Rubin (1981), "The Bayesian bootstrap", The Annals of Statistics 9(1).
    """

    from_counts = True
    pvalue_is_probability = True
    #: The data the test applies to ("discrete", "continuous", "mixed"): the learners refuse
    #: it on other data, naming the columns.
    data_kinds = ("discrete",)
    _parameter_constraints = {}

    @staticmethod
    def association(statistic):
        """How strongly a result's ``statistic`` (a float or an array of them) speaks for
        dependence: larger is stronger. It ranks results whose p-values tie, as
        :class:`~skbn.MMHCStructure`'s max-min heuristic must when the p-values of strong
        dependences underflow to 0 on large samples. The statistic itself here: the
        chi-square, G and mutual-information statistics grow with the dependence.

        Parameters
        ----------
        statistic : float or ndarray
            The ``statistic`` of one or more results of this test.

        Returns
        -------
        float or ndarray
            The strength, of the shape of ``statistic``.
        """
        return statistic

    def _validate(self):
        validate_parameter_constraints(
            self._parameter_constraints, self.get_params(deep=False), type(self).__name__
        )

    def _test_batch(self, cells, group, n_tests, n_strata):
        """The hook of :meth:`test_batch`: ``cells`` are the tables cell-major, float64
        ``(r_x, r_y, n_strata_total)`` (possibly a strided view); returns ``(statistic,
        pvalue, dof, independent)``, optionally followed by a fifth array ``power_rule``
        (the tests a rule decided instead of the data; all False when omitted)."""
        raise NotImplementedError

    def test_batch(self, tables, group, n_tests, n_strata, *, cell_major=False):
        """Run ``n_tests`` tests at once from one stack of their observed strata.

        Parameters
        ----------
        tables : ndarray of shape (n_strata_total, r_x, r_y)
            The non-empty strata of all tests (one shape ``(r_x, r_y)`` for all), stacked;
            non-negative (weighted) counts. With ``cell_major``, shape ``(r_x, r_y,
            n_strata_total)``: ``tables[a, b]`` holds cell ``(a, b)`` of every stratum.
        group : ndarray of shape (n_strata_total,), int
            ``group[k]`` is the test that stratum ``k`` belongs to, in ``0..n_tests-1``
            (strata of one test in any order; a test with no stratum has statistic 0).
        n_tests : int
            Number of tests in the batch (the length of every returned array).
        n_strata : ndarray of shape (n_tests,)
            Declared number of strata (``prod r_Z``) of every test.
        cell_major : bool, default=False
            The layout of ``tables``. Cell-major float64 tables are read without a copy
            (what PC's counting produces); the results do not depend on the layout.

        Returns
        -------
        CITestBatchResult
            Arrays of length ``n_tests``: ``statistic``, ``pvalue``, ``dof``,
            ``independent``, ``power_rule``; equal to :meth:`test` on every test's strata, bit for bit.
        """
        if not self.from_counts:
            raise TypeError(f"{type(self).__name__} does not test count tables.")
        tables = np.asarray(tables, dtype=np.float64)
        if tables.ndim != 3:
            raise ValueError(f"tables must be 3-dimensional, got shape {tables.shape}.")
        cells = tables if cell_major else np.moveaxis(tables, 0, -1)
        return CITestBatchResult(*self._test_batch(
            cells, np.asarray(group, dtype=np.intp), int(n_tests), np.asarray(n_strata, dtype=np.float64),
        ))

    def test(self, table, n_strata=None):
        """Test ``X`` independent of ``Y`` given ``Z`` from stratified counts.

        Parameters
        ----------
        table : array-like of shape (n_observed_strata, r_x, r_y) or (r_x, r_y)
            Counts per configuration of ``Z`` (empty strata may be omitted); a 2-D table is
            an unconditional test.
        n_strata : int or None, default=None
            Declared number of configurations of ``Z`` (``prod r_Z``), used by the
            unadjusted degrees of freedom; default the number of strata passed.

        Returns
        -------
        CITestResult
            Statistic, p-value, degrees of freedom and decision.
        """
        table = np.asarray(table, dtype=np.float64)
        if table.ndim == 2:
            table = table[None]
        if table.ndim != 3:
            raise ValueError(f"table must have shape (strata, r_x, r_y), got {table.shape}.")
        if np.any(table < 0) or not np.all(np.isfinite(table)):
            raise ValueError("table must hold non-negative finite counts.")
        if n_strata is None:
            n_strata = max(table.shape[0], 1)
        group = np.zeros(table.shape[0], dtype=np.int64)
        result = self.test_batch(table, group, 1, np.array([n_strata], dtype=float))
        return CITestResult(float(result.statistic[0]), float(result.pvalue[0]),
                            float(result.dof[0]), bool(result.independent[0]), bool(result.power_rule[0]))

    def test_variables(self, data, x, y, z=()):
        """Test column ``x`` independent of column ``y`` given columns ``z`` of ``data``.

        Parameters
        ----------
        data : encoded data set
            The encoded data set.
        x, y : int
            Column indices.
        z : tuple of int
            Conditioning columns.

        Returns
        -------
        CITestResult
            Statistic, p-value, degrees of freedom and decision.
        """
        table = contingency_tables(data.codes, data.cardinalities, x, y, tuple(z), data.weights)
        return self.test(table, n_configurations(data.cardinalities, z))


#: Strata per pass of the cell-major kernels (:func:`_in_passes`): the per-stratum arrays
#: of one pass stay in the CPU cache (3 x 3 tables: 16,384 strata, 1.2 MB a pass; 1.6x
#: faster than one pass over a round of 466,000 strata).
KERNEL_STRATA = 1 << 14
#: The smallest positive normal float64: the chi-square's stand-in for a zero ``E``.
_TINY = np.finfo(np.float64).tiny


def _in_passes(cells, per_pass):
    """``per_pass(cells, rows, cols, n_s)`` on the strata of the cell-major ``(r_x, r_y,
    K)`` tables in cache-sized passes of :data:`KERNEL_STRATA` strata (with their
    :func:`_margins`): its per-stratum arrays, concatenated over the passes (an entry None
    stays None). A pass whose strata are not contiguous (stratum-major tables seen through
    a transposed view) is copied cell-major first, so every cell is one contiguous vector.
    No stratum: one pass over empty arrays."""
    n_total = cells.shape[-1]
    parts = []
    for start in range(0, max(n_total, 1), KERNEL_STRATA):
        part = cells[:, :, start:start + KERNEL_STRATA]
        if part.strides[-1] != part.itemsize:
            part = np.ascontiguousarray(part)
        parts.append(per_pass(part, *_margins(part)))
    if len(parts) == 1:
        return parts[0]
    return tuple(None if part[0] is None else np.concatenate(part) for part in zip(*parts))


def _margins(cells):
    """Row sums ``(r_x, K)``, column sums ``(r_y, K)`` and totals ``(K,)`` of cell-major
    tables ``(r_x, r_y, K)``, added in index order (integer counts: exact)."""
    r_x, r_y = cells.shape[0], cells.shape[1]
    rows = _slice_sum(cells[:, 0], [cells[:, b] for b in range(1, r_y)])
    cols = _slice_sum(cells[0], [cells[a] for a in range(1, r_x)])
    n_s = _slice_sum(rows[0], [rows[a] for a in range(1, r_x)])
    return rows, cols, n_s


def _slice_sum(first, others):
    """``first + sum(others)`` in a new array, the first addition writing it (no copy)."""
    if not others:
        return first.copy()
    out = np.add(first, others[0])
    for other in others[1:]:
        out += other
    return out


def _pairwise_sum(terms):
    """Sum over axis 0 of ``terms`` ``(n, K)`` (cell-major tables ``(r_x, r_y, K)``: over
    their ``n = r_x r_y`` cells, in C order), added in the order of numpy's pairwise
    summation (``np.add.reduce`` over a contiguous axis of length ``n``): in index order
    below 8 terms; up to 128, eight running sums of every eighth term combined as
    ``((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))``, then the last ``n % 8``
    terms; beyond, the two halves (the first a multiple of 8 long) summed so and added.

    The cell-major kernels sum each stratum's cells with it, so a stratum's statistic has
    the same bits as the reduction over its ``(r_x, r_y)`` table (the statistic of one
    table does not depend on the layout its strata were computed in).
    """
    if terms.ndim > 2:
        terms = terms.reshape(int(np.prod(terms.shape[:-1])), terms.shape[-1])
    n = len(terms)
    if n < 8:
        return _slice_sum(terms[0], list(terms[1:]))
    if n > 128:
        half = n // 2 - (n // 2) % 8
        return _pairwise_sum(terms[:half]) + _pairwise_sum(terms[half:])
    whole = n - n % 8
    partial = terms[:8]
    if whole > 8:  # the eight running sums (else the first eight terms themselves)
        partial = partial.copy()
        for start in range(8, whole, 8):
            partial += terms[start:start + 8]
    pairs = partial[0::2] + partial[1::2]
    quads = pairs[0::2] + pairs[1::2]
    out = quads[0] + quads[1]
    for k in range(whole, n):
        out += terms[k]
    return out


class _FrequentistTest(BaseCITest):
    """Shared code of the chi-square and G tests (asymptotic chi-square null)."""

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, 1, closed="both")],
        "adjust_dof": ["boolean"],
        "min_samples_per_dof": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, alpha=0.05, *, adjust_dof=True, min_samples_per_dof=5.0):
        self.alpha = alpha
        self.adjust_dof = adjust_dof
        self.min_samples_per_dof = min_samples_per_dof

    def _stratum_statistic(self, cells, n_s, rows, cols):
        """The statistic of every stratum of cell-major tables ``cells`` ``(r_x, r_y, K)``
        with margins ``rows`` ``(r_x, K)``, ``cols`` ``(r_y, K)`` and totals ``n_s``, each
        with two or more filled rows and columns (:meth:`_strata_pass`)."""
        raise NotImplementedError

    def _strata_pass(self, cells, rows, cols, n_s):
        r"""``(statistic, n_s, adjusted dof or None)`` of every stratum of one pass.

        A stratum in which ``X`` or ``Y`` takes one value (one filled row or column: every
        ``N_{sab} = N_{sa.} N_{s.b} / N_s``) adds exactly 0 to Pearson's :math:`X^2` and to
        :math:`G^2`, as in bnlearn and pcalg, whose terms :math:`(N - E)^2 / E` and
        :math:`N \log(N / E)` vanish there; so does it to the adjusted degrees of freedom.
        Its statistic is 0.0 and :meth:`_stratum_statistic` runs on the other strata only
        (evaluating the formula there would add rounding noise of about ``1e-16 N_s``; at
        high PC levels most strata are such, e.g. 72% at level 8 of a pedigree).
        """
        filled_rows, filled_cols = count_positive(rows.T), count_positive(cols.T)
        dof_s = np.maximum(filled_rows - 1, 0) * np.maximum(filled_cols - 1, 0)
        n_varied = np.count_nonzero(dof_s)
        if 2 * n_varied >= len(n_s):  # mostly varied: score all, zero the others (fewer calls)
            statistic = self._stratum_statistic(cells, n_s, rows, cols)
            if n_varied < len(n_s):
                statistic[dof_s == 0] = 0.0
        else:
            statistic = np.zeros(len(n_s))
            if n_varied:
                varied = dof_s > 0
                statistic[varied] = self._stratum_statistic(
                    np.compress(varied, cells, axis=2), n_s[varied],
                    np.compress(varied, rows, axis=1), np.compress(varied, cols, axis=1))
        return statistic, n_s, dof_s if self.adjust_dof else None

    def _test_batch(self, cells, group, n_tests, n_strata):
        r_x, r_y = cells.shape[0], cells.shape[1]
        stat_s, n_s, dof_s = _in_passes(cells, self._strata_pass)
        statistic = np.bincount(group, weights=stat_s, minlength=n_tests)
        n = np.bincount(group, weights=n_s, minlength=n_tests)
        if self.adjust_dof:
            dof = np.bincount(group, weights=dof_s, minlength=n_tests)
        else:
            dof = (r_x - 1) * (r_y - 1) * np.asarray(n_strata, dtype=np.float64)
        statistic = np.maximum(statistic, 0.0)
        pvalue = np.ones(n_tests)
        positive = dof > 0
        pvalue[positive] = chdtrc(dof[positive], statistic[positive])
        power_rule = n < self.min_samples_per_dof * dof
        pvalue[power_rule] = 0.0
        return statistic, pvalue, dof, pvalue > self.alpha, power_rule


class ChiSquare(_FrequentistTest):
    r"""Pearson's chi-square test of conditional independence.

    .. math::
        X^2 = \sum_s \sum_{a,b} \frac{(N_{sab} - E_{sab})^2}{E_{sab}}, \qquad
        E_{sab} = \frac{N_{sa\cdot} N_{s\cdot b}}{N_{s}}

    (cells with :math:`E = 0` omitted), compared with a chi-square distribution; equal to
    ``scipy.stats.chi2_contingency(table, correction=False)`` summed over strata. A stratum
    in which :math:`X` or :math:`Y` takes one value (every :math:`N = E`) adds exactly 0,
    as in bnlearn, without evaluating its terms (whose rounding would add about
    :math:`10^{-16} N_s`).

    With weighted tables (``sample_weight``) :math:`N` are weighted frequencies and the
    formula is applied to them unchanged: integer weights equal row duplication exactly, and
    the sample size (in :math:`E`, the power rule and the chi-square calibration) is the
    total weight, so fractional weights should sum to the sample size they stand for (e.g.
    Bayesian-bootstrap weights scaled to sum to ``n``; see :class:`BaseCITest`).

    Parameters
    ----------
    alpha : float in [0, 1], default=0.05
        Level: independence is accepted when ``pvalue > alpha``.
    adjust_dof : bool, default=True
        Degrees-of-freedom convention (see the module docstring).
    min_samples_per_dof : float >= 0, default=5.0
        Heuristic power rule: with fewer than this many samples per degree of freedom the
        test is not trusted and dependence is assumed (``pvalue = 0``).

    Examples
    --------
    >>> import numpy as np
    >>> from skbn.citests import ChiSquare
    >>> result = ChiSquare(min_samples_per_dof=0).test(np.array([[10, 20], [20, 10]]))
    >>> round(result.statistic, 4), result.dof, result.independent
    (6.6667, 1.0, False)
    """

    def _stratum_statistic(self, cells, n_s, rows, cols):
        # sum (N - E)^2 / E = N_s * sum N^2 / (N_a. N_.b) - N_s over the cells with E > 0
        # a cell with E = 0 has an empty row or column, so N = 0: dividing by the smallest
        # normal float there gives the same 0.0 as omitting it, without a masked select
        # (a positive margin product, even of fractional weights, is left as it is)
        denominator = rows[:, None, :] * cols[None, :, :]
        np.maximum(denominator, _TINY, out=denominator)
        ratio = cells * cells
        ratio /= denominator
        return n_s * _pairwise_sum(ratio) - n_s


class GTest(_FrequentistTest):
    r"""Likelihood-ratio (G², mutual information) test of conditional independence.

    .. math::
        G^2 = 2 \sum_s \sum_{a,b} N_{sab} \log \frac{N_{sab} N_s}{N_{sa\cdot} N_{s\cdot b}}
            = 2 N \, \widehat{I}(X; Y \mid Z)

    compared with a chi-square distribution; equal to ``scipy.stats.chi2_contingency(table,
    correction=False, lambda_="log-likelihood")`` summed over strata; a stratum in which
    :math:`X` or :math:`Y` takes one value adds exactly 0, as for :class:`ChiSquare`.
    Weighted tables are treated as counts, as for :class:`ChiSquare` (:math:`N` = total
    weight).

    Parameters
    ----------
    alpha : float in [0, 1], default=0.05
        Test level, as for :class:`ChiSquare`.
    adjust_dof : bool, default=True
        Degrees-of-freedom adjustment for empty rows and columns, as for :class:`ChiSquare`.
    min_samples_per_dof : float >= 0, default=5.0
        Heuristic power rule, as for :class:`ChiSquare`.

    Examples
    --------
    >>> import numpy as np
    >>> from skbn.citests import GTest
    >>> round(GTest(min_samples_per_dof=0).test(np.array([[10, 20], [20, 10]])).statistic, 4)
    6.796
    """

    def _stratum_statistic(self, cells, n_s, rows, cols):
        return 2.0 * (
            _pairwise_sum(xlogy(cells, cells)) + xlogy(n_s, n_s)
            - _pairwise_sum(xlogy(rows, rows)) - _pairwise_sum(xlogy(cols, cols))
        )


class BayesFactor(BaseCITest):
    r"""Bayesian test: Dirichlet marginal likelihoods of independence vs dependence.

    In each stratum ``s`` (with :math:`N_s` samples) the dependent model draws the pair
    ``(X, Y)`` from one categorical distribution over its :math:`r_X r_Y` cells with a
    symmetric Dirichlet prior of total mass ``ess``; the independent model draws ``X`` and
    ``Y`` from two categorical distributions with symmetric Dirichlet priors of mass ``ess``
    each. With :math:`\mathrm{ML}(n; a) = \log\Gamma(\sum a) - \log\Gamma(\sum a + \sum n)
    + \sum_k [\log\Gamma(a_k + n_k) - \log\Gamma(a_k)]`,

    .. math::
        \log B = \sum_s \left[\mathrm{ML}(N_{s a \cdot}; \tfrac{ess}{r_X})
            + \mathrm{ML}(N_{s \cdot b}; \tfrac{ess}{r_Y})
            - \mathrm{ML}(N_{s a b}; \tfrac{ess}{r_X r_Y})\right]

    is the log Bayes factor in favour of independence (empty strata contribute 0).
    Independence is accepted when ``log B > threshold``. ``statistic`` is ``log B``,
    ``dof`` the classical :math:`(r_X - 1)(r_Y - 1)` times the number of observed strata, and
    ``pvalue`` the posterior probability of independence under even prior odds,
    :math:`B / (1 + B)` (not a frequentist p-value: multiple-testing corrections refuse it).

    With weighted tables (``sample_weight``) the Dirichlet-multinomial marginal likelihoods
    are evaluated at the weighted frequencies (``log Gamma`` is defined for real arguments):
    integer weights equal row duplication exactly; fractional weights act as fractional
    pseudo-observations with total mass the total weight, the reading of weighted counts in
    the BDeu / BDe scores (e.g. expected counts in structural EM, Friedman 1998), so the
    strength of the evidence against the prior ``ess`` scales with the total weight.

    Parameters
    ----------
    ess : float > 0, default=1.0
        Equivalent sample size of the Dirichlet priors, per stratum.
    threshold : float, default=0.0
        Log Bayes factor above which independence is accepted (0: the more probable model
        wins; e.g. ``log(3)`` asks for "positive" evidence of independence).

    References
    ----------
    D. Heckerman, D. Geiger and D. M. Chickering (1995), "Learning Bayesian networks: the
    combination of knowledge and statistical data", Machine Learning 20.
    N. Friedman (1998), "The Bayesian structural EM algorithm", UAI.

    Examples
    --------
    >>> import numpy as np
    >>> from skbn.citests import BayesFactor
    >>> BayesFactor().test(np.array([[50, 0], [0, 50]])).independent
    False
    """

    pvalue_is_probability = False
    _parameter_constraints = {
        "ess": [Interval(Real, 0, None, closed="neither")],
        "threshold": [Real],
    }

    @staticmethod
    def association(statistic):
        """``-log B``: the log Bayes factor ``statistic`` favours independence, so the
        smaller it is, the stronger the dependence (:meth:`BaseCITest.association`).

        Parameters
        ----------
        statistic : float or ndarray
            The ``statistic`` of one or more results of this test.

        Returns
        -------
        float or ndarray
            The strength, of the shape of ``statistic``.
        """
        return -statistic

    def __init__(self, ess=1.0, *, threshold=0.0):
        self.ess = ess
        self.threshold = threshold

    def _test_batch(self, cells, group, n_tests, n_strata):
        r_x, r_y = cells.shape[0], cells.shape[1]
        ess = float(self.ess)
        a_x, a_y, a_xy = ess / r_x, ess / r_y, ess / (r_x * r_y)

        def strata_pass(cells, rows, cols, n_s):
            # the log Gamma(ess) - log Gamma(ess + N_s) terms: twice for independence, once
            # for dependence, so one copy remains.
            return (gammaln(ess) - gammaln(ess + n_s)
                    + _pairwise_sum(gammaln(a_x + rows) - gammaln(a_x))
                    + _pairwise_sum(gammaln(a_y + cols) - gammaln(a_y))
                    - _pairwise_sum(gammaln(a_xy + cells) - gammaln(a_xy))), n_s

        log_b_s, n_s = _in_passes(cells, strata_pass)
        log_b = np.bincount(group, weights=log_b_s, minlength=n_tests)
        observed = np.bincount(group, weights=(n_s > 0).astype(float), minlength=n_tests)
        dof = (r_x - 1) * (r_y - 1) * observed
        return log_b, expit(log_b), dof, log_b > self.threshold


class DSeparationOracle(BaseCITest):
    """Perfect CI oracle: answers by d-separation in a known DAG.

    Lets users and tests check a constraint-based algorithm separately from statistical
    error: with this oracle PC returns exactly the CPDAG of ``dag``.

    It answers from the *identities* of the variables, so it implements
    :meth:`test_variables` (column names of the data are looked up among the DAG's nodes);
    :meth:`test` on a count table is refused. Results have ``statistic = 0``, ``dof = 0``,
    ``pvalue = 1`` for d-separated and ``0`` for d-connected pairs.

    The DAG is compiled once, on first use, into bitsets (parents, children and ancestors of
    every node); a query is then a Bayes-ball reachability
    walk (Koller & Friedman 2009, Alg. 3.1) on those bitsets, restricted to the ancestral set
    of the queried variables and stopped at the first node of ``y`` reached, and its answer
    is cached under ``(min(x, y), max(x, y), sorted(z))``. A query takes a few microseconds
    on graphs of hundreds of nodes (``benchmarks/bench_oracle.py``).

    Parameters
    ----------
    dag : graph, default=None
        The true DAG, as any of:

        - a :class:`~skbn.network.DiscreteBayesianNetwork` or a ``networkx.DiGraph``
          (anything with ``nodes`` and ``edges``);
        - a fitted skbn structure learner (its ``edges_``, nodes ``feature_names_in_``);
        - a ``(nodes, edges)`` tuple;
        - a plain edge list ``[(parent, child), ...]`` (nodes in order of first
          appearance, after those of ``nodes``).
    nodes : sequence or None, default=None
        With an edge list: extra (e.g. isolated) nodes, placed first, in this order.

    See Also
    --------
    skbn.graph.d_separated : the same test, one query at a time.

    References
    ----------
    D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press, 2009, Alg. 3.1.

    Examples
    --------
    >>> from skbn.citests import DSeparationOracle
    >>> oracle = DSeparationOracle([("a", "c"), ("b", "c")])   # the collider a -> c <- b
    >>> oracle.separated("a", "b", []), oracle.separated("a", "b", ["c"])
    (True, False)
    """

    from_counts = False
    data_kinds = ("discrete", "continuous", "mixed")  # it reads the graph, not the data
    _parameter_constraints = {"dag": "no_validation", "nodes": "no_validation"}
    _SEPARATED = CITestResult(0.0, 1.0, 0.0, True)
    _CONNECTED = CITestResult(0.0, 0.0, 0.0, False)

    def __init__(self, dag=None, *, nodes=None):
        self.dag = dag
        self.nodes = nodes

    def _graph(self):
        """``(nodes, edges)`` lists from any accepted form of ``dag``."""
        dag = self.dag
        if hasattr(dag, "edges_"):  # a fitted skbn structure learner
            edges = [tuple(e) for e in dag.edges_]
            names = getattr(dag, "feature_names_in_", None)
            nodes = list(names) if names is not None else list(range(dag.n_features_in_))
            return nodes, edges
        if hasattr(dag, "nodes") and hasattr(dag, "edges") and not isinstance(dag, (tuple, list)):
            return list(dag.nodes), [tuple(e) for e in dag.edges]
        if isinstance(dag, tuple) and len(dag) == 2 and _is_pair_list(dag[1]):
            return list(dag[0]), [tuple(e) for e in dag[1]]
        if dag is not None and not isinstance(dag, (str, bytes)) and _is_pair_list(dag):
            edges = [tuple(e) for e in dag]
            nodes = list(dict.fromkeys(
                [*(self.nodes if self.nodes is not None else ()), *(v for e in edges for v in e)]))
            return nodes, edges
        raise TypeError(
            "DSeparationOracle(dag): dag must be a DiscreteBayesianNetwork, a networkx "
            "DiGraph, a fitted structure learner, a (nodes, edges) pair or a list of "
            f"(parent, child) edges, got {type(dag).__name__}."
        )

    def _compiled(self):
        """``(node index, _DSeparation)``, built on first use and kept."""
        compiled = self.__dict__.get("_compiled_dag")
        if compiled is None:
            from skbn._dag import _DSeparation
            from skbn.graph import _check_dag

            nodes, edges = self._graph()
            try:
                index, _, parents, _, order = _check_dag(nodes, edges)
            except ValueError as exc:
                raise ValueError(f"DSeparationOracle(dag): {exc}.") from None
            compiled = self._compiled_dag = (index, _DSeparation(parents, order))
            self._answers = {}
            self._columns = (None, None)
        return compiled

    def _validate(self):
        self._compiled()

    def _forget(self, state):
        for key in ("_compiled_dag", "_answers", "_columns"):
            state.pop(key, None)
        return state

    def __getstate__(self):  # the compiled DAG and the answers are rebuilt on demand
        return self._forget(self.__dict__.copy())

    def set_params(self, **params):
        """Set the parameters and forget the compiled DAG and the cached answers.

        Parameters
        ----------
        **params : dict
            Estimator parameters (``dag``, ``nodes``).

        Returns
        -------
        self : DSeparationOracle
            The oracle, to be recompiled on its next query.
        """
        self._forget(self.__dict__)
        return super().set_params(**params)

    def test(self, table, n_strata=None):
        """Refuse count tables: the oracle answers from variable identities.

        Parameters
        ----------
        table : array-like
            Ignored.
        n_strata : int or None, default=None
            Ignored.

        Raises
        ------
        TypeError
            Always; call :meth:`test_variables` instead.
        """
        raise TypeError(
            "DSeparationOracle answers from variable identities, not count tables: "
            "call test_variables(data, x, y, z)."
        )

    def separated(self, x, y, z=()):
        """Whether nodes ``x`` and ``y`` are d-separated given the nodes ``z``.

        Parameters
        ----------
        x, y : hashable
            Labels of two distinct nodes of the DAG.
        z : sequence of hashable, default=()
            Labels of the conditioning nodes (distinct from ``x`` and ``y``).

        Returns
        -------
        bool
            True when every path between ``x`` and ``y`` is blocked by ``z``.

        Raises
        ------
        ValueError
            When a label is not a node of the DAG, or ``x``, ``y`` and ``z`` overlap.
        """
        index, _ = self._compiled()
        try:
            ids = [index[v] for v in (x, y, *z)]
        except (KeyError, TypeError):
            unknown = [v for v in (x, y, *z) if v not in index]
            raise ValueError(f"DSeparationOracle: unknown nodes {unknown!r}.") from None
        if len(set(ids)) != len(ids):
            raise ValueError(f"DSeparationOracle: x, y and z must be distinct, got "
                             f"{x!r}, {y!r}, {list(z)!r}.")
        return self._answer(ids[0], ids[1], ids[2:])

    def _answer(self, x, y, z):
        key = (x, y, tuple(sorted(z))) if x < y else (y, x, tuple(sorted(z)))
        answer = self._answers.get(key)
        if answer is None:
            answer = self._answers[key] = self._compiled_dag[1].separated((x,), (y,), key[2])
        return answer

    def test_variables(self, data, x, y, z=()):
        """Answer ``x _||_ y | z`` for columns of ``data`` (looked up by ``data.names``).

        Parameters
        ----------
        data : encoded data set
            The encoded data set; only its column names are used, every one must be a node
            of the DAG.
        x, y : int
            Column indices.
        z : tuple of int, default=()
            Conditioning columns.

        Returns
        -------
        CITestResult
            ``pvalue=1``, ``independent=True`` when the nodes are d-separated, ``pvalue=0``,
            ``independent=False`` otherwise (``statistic=0``, ``dof=0``).
        """
        names, ids = self._columns if "_columns" in self.__dict__ else (None, None)
        if names is not data.names:
            index, _ = self._compiled()
            missing = [name for name in data.names if name not in index]
            if missing:
                raise ValueError(
                    f"DSeparationOracle: columns {missing!r} are not nodes of the DAG.")
            ids = [index[name] for name in data.names]
            self._columns = (data.names, ids)
        separated = self._answer(ids[x], ids[y], [ids[v] for v in z])
        return self._SEPARATED if separated else self._CONNECTED


def _is_pair_list(items):
    """Whether ``items`` is a sequence of 2-sequences (an edge list), strings excluded."""
    try:
        return all(not isinstance(e, (str, bytes)) and len(e) == 2 for e in items)
    except TypeError:
        return False




def resolve_ci_test(ci_test):
    """Return a fresh test object for an alias, or a validated clone of a test object.

    Parameters
    ----------
    ci_test : str or BaseCITest
        An alias ("chi_square", "g_test", "bayes_factor") or a test object.

    Returns
    -------
    ci_test : BaseCITest
        A new object; the caller's object is never modified.
    """
    return resolve_plugin(ci_test, _ALIASES, BaseCITest, "ci_test")


# -- Gaussian and conditional-Gaussian tests: continuous variables, from weighted moments -------
#
# These tests read the weighted moments of the engine (:class:`skbn._counting.Moments`)
# instead of count tables; the learners run them through the CI-test runner's moments path
# (:mod:`skbn._engines._moment_tests`).


class BaseGaussianCITest(BaseCITest):
    r"""Base class of tests on partial correlations of continuous variables.

    A test of ``x`` independent of ``y`` given ``S`` reads the partial correlation
    :math:`r = \rho_{xy|S}` of the moments (from the inverse of their correlation matrix,
    a pseudo-inverse for singular matrices) and the sample size :math:`n` = total weight
    (integer weights equal replicated rows).

    **Too few rows.** When the residual degrees of freedom of a test are not positive
    (:math:`n - |S| - 3 \le 0` for Fisher's z, :math:`n - |S| - 2 \le 0` otherwise) the
    partial correlation is that of a saturated regression and carries no evidence: the test
    reports statistic 0, ``pvalue = 1`` and ``independent = True``, as pcalg's
    ``gaussCItest`` (its ``z`` becomes 0) and bnlearn's ``ci.test`` (``"zf"``, ``"cor"``:
    p-value 1 with a warning) do. See :class:`FisherZ` for what this means for PC.

    Parameters
    ----------
    alpha : float in [0, 1], default=0.05
        Level: independence is accepted when ``pvalue > alpha``.
    """

    from_counts = False
    statistics = "moments"
    data_kinds = ("continuous",)
    _parameter_constraints = {"alpha": [Interval(Real, 0, 1, closed="both")]}
    #: residual degrees of freedom are n - |S| - _dof_offset
    _dof_offset = 2

    def __init__(self, alpha=0.05):
        self.alpha = alpha

    @staticmethod
    def association(statistic):
        """``|statistic|``: Fisher's z and the t statistic carry the sign of the partial
        correlation, and a strong negative one is as strong a dependence as a strong
        positive one (:meth:`BaseCITest.association`).

        Parameters
        ----------
        statistic : float or ndarray
            The ``statistic`` of one or more results of this test.

        Returns
        -------
        float or ndarray
            The strength, of the shape of ``statistic``.
        """
        return abs(statistic)

    def moments_of(self, values, weights=None, ids=None, n_ids=1):
        """The statistics this test reads: the weighted moments of ``values``.

        Parameters
        ----------
        values : ndarray of shape (n_samples, k)
            The continuous columns the tests will refer to by position.
        weights : ndarray of shape (n_samples,) or None, default=None
            Row weights (integer weights equal replicated rows).
        ids : ndarray of shape (n_samples,) or None, default=None
            Configuration ids of discrete conditioning columns (CLG tests); None for one group.
        n_ids : int, default=1
            Size of the id space.

        Returns
        -------
        weighted moments
            The moments of the columns (per group: total weight, weighted means and
            scatter matrix), as the tests read them.
        """
        from skbn._counting._moments import moments

        return moments(values, weights, ids, n_ids)

    def _from_correlation(self, r, n, size):
        """``(statistic, pvalue)`` arrays from partial correlations ``r``."""
        raise NotImplementedError

    def _results(self, r, n, size):
        r = np.atleast_1d(np.asarray(r, dtype=np.float64))
        dof = np.full(r.shape, float(n - size - self._dof_offset))
        if n - size - self._dof_offset > 0:
            statistic, pvalue = self._from_correlation(r, float(n), size)
            # NaN -> 1, then into [0, 1] (np.clip(np.nan_to_num(p, nan=1.0), 0, 1)'s values)
            pvalue = np.minimum(np.maximum(np.where(np.isnan(pvalue), 1.0, pvalue), 0.0), 1.0)
        else:
            statistic, pvalue = np.zeros(r.shape), np.ones(r.shape)  # too few rows: independence
        return statistic, pvalue, dof, pvalue > self.alpha

    def test_moments(self, stats, x, y, z=()):
        """Test columns ``x`` and ``y`` independent given the columns ``z``.

        Parameters
        ----------
        stats : weighted moments
            Moments of (at least) ``x``, ``y`` and ``z``, one group.
        x, y : int
            Positions of the two columns.
        z : sequence of int, default=()
            Positions of the conditioning columns.

        Returns
        -------
        CITestResult
            Statistic, p-value, residual degrees of freedom and decision.
        """
        from skbn._counting._moments import partial_correlation

        if stats.n_groups != 1:
            raise ValueError(f"{type(self).__name__} tests one group of moments; got {stats.n_groups}.")
        r = partial_correlation(stats.scatter[0], x, y, tuple(z))
        statistic, pvalue, dof, independent = self._results(r, float(stats.weight[0]), len(z))
        return CITestResult(float(statistic[0]), float(pvalue[0]), float(dof[0]), bool(independent[0]))

    def test_moments_given(self, stats, pairs, z=()):
        """Test many pairs given the same conditioning set at once (one Schur complement).

        Parameters
        ----------
        stats : weighted moments
            One group.
        pairs : array-like of shape (n_tests, 2), int
            Column positions ``(x, y)``, none of them in ``z``.
        z : sequence of int, default=()
            The shared conditioning columns.

        Returns
        -------
        CITestBatchResult
            Equal to :meth:`test_moments` on each pair up to rounding.
        """
        from skbn._counting._moments import partial_correlations

        if stats.n_groups != 1:
            raise ValueError(f"{type(self).__name__} tests one group of moments; got {stats.n_groups}.")
        pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
        r = partial_correlations(stats.scatter[0], tuple(z))[pairs[:, 0], pairs[:, 1]]
        return CITestBatchResult(*self._results(r, float(stats.weight[0]), len(z)))

    def test_moments_sets(self, stats, pairs, sets):
        """Test many pairs, each given its own conditioning set, all sets of one size.

        One vectorised computation (a small Cholesky solve per test, no Python step per
        set): what the CI-test runner
        uses when the tests of a round have many different sets.

        Parameters
        ----------
        stats : weighted moments
            One group.
        pairs : array-like of shape (n_tests, 2), int
            Column positions ``(x, y)``.
        sets : array-like of shape (n_tests, s), int
            The conditioning columns of every test (none of them ``x`` or ``y``).

        Returns
        -------
        CITestBatchResult
            Equal to :meth:`test_moments` on each test up to rounding.
        """
        from skbn._counting._moments import partial_correlations_batch

        if stats.n_groups != 1:
            raise ValueError(f"{type(self).__name__} tests one group of moments; got {stats.n_groups}.")
        pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
        sets = np.asarray(sets, dtype=np.intp).reshape(len(pairs), -1)
        r = partial_correlations_batch(stats.scatter[0], pairs[:, 0], pairs[:, 1], sets)
        return CITestBatchResult(*self._results(r, float(stats.weight[0]), sets.shape[1]))

    def test(self, table, n_strata=None):
        """Refuse count tables: Gaussian tests read moments (:meth:`test_moments`).

        Parameters
        ----------
        table : array-like
            Ignored.
        n_strata : int or None, default=None
            Ignored.

        Raises
        ------
        TypeError
            Always.
        """
        raise TypeError(f"{type(self).__name__} tests continuous variables: call "
                        f"test_moments(stats, x, y, z).")

    def test_variables(self, data, x, y, z=()):
        """Not a test of count tables: a Gaussian test reads weighted moments.

        Parameters
        ----------
        data : encoded data set
            The encoded data set.
        x, y : int
            Column indices.
        z : tuple of int, default=()
            Conditioning columns.

        Raises
        ------
        TypeError
            Always; call :func:`skbn.checking.ci_test` (one test on a data set) or
            :meth:`test_moments` (on :meth:`moments_of`).
        """
        raise TypeError(f"{type(self).__name__} tests continuous columns from their moments: call "
                        f"skbn.checking.ci_test(X, x, y, z, test=...) or test_moments(stats, x, y, z).")


#: Largest |partial correlation| used by Fisher's z (pcalg's ``cut.at``), so atanh stays finite.
FISHER_Z_CUT = 0.9999999


class FisherZ(BaseGaussianCITest):
    r"""Fisher's z test on a partial correlation (pcalg ``gaussCItest``, bnlearn ``"zf"``).

    .. math:: z = \sqrt{n - |S| - 3}\; \operatorname{atanh}(r), \qquad p = 2\,(1 - \Phi(|z|))

    with :math:`r` the partial correlation of ``x`` and ``y`` given ``S`` (clipped to
    :math:`\pm 0.9999999`, as pcalg does) and :math:`n` the total weight. ``statistic`` is
    ``z`` and ``dof`` is :math:`n - |S| - 3` (bnlearn's reported ``df``).

    **Fewer rows than the test needs** (:math:`n - |S| - 3 \le 0`, e.g. more variables than
    rows): ``z = 0``, ``pvalue = 1``, independence, exactly as pcalg's ``gaussCItest`` (and
    bnlearn's ``ci.test(test = "zf")``). In PC an edge still present when the level reaches
    :math:`n - 3` is therefore removed at its first conditioning set of that size (its
    separating set). This keeps PC's skeleton equal to pcalg's and bnlearn's on
    :math:`p > n` data and bounds its levels by :math:`n - 3` (the other choice, dependence,
    would keep every such edge and let the levels, and the number of tests, grow with the
    degrees). Consistency is unaffected: for a fixed graph, :math:`n - |S| - 3 > 0` for every
    set once :math:`n > p + 1`.

    Parameters
    ----------
    alpha : float in [0, 1], default=0.05
        Level of the test.

    References
    ----------
    R. A. Fisher (1924), "The distribution of the partial correlation coefficient", Metron 3.
    M. Kalisch and P. Bühlmann (2007), "Estimating high-dimensional directed acyclic graphs
    with the PC-algorithm", JMLR 8.

    Examples
    --------
    >>> import numpy as np
    >>> from skbn.citests import FisherZ
    >>> x = np.random.default_rng(0).normal(size=(500, 3))
    >>> test = FisherZ()
    >>> test.test_moments(test.moments_of(x), 0, 1, (2,)).independent
    True
    """

    _dof_offset = 3

    def _from_correlation(self, r, n, size):
        z = np.sqrt(n - size - 3) * np.arctanh(np.clip(r, -FISHER_Z_CUT, FISHER_Z_CUT))
        return z, 2.0 * ndtr(-np.abs(z))


class GaussianMutualInformation(BaseGaussianCITest):
    r"""Likelihood-ratio (mutual information) test for Gaussian variables (bnlearn ``"mi-g"``).

    .. math:: G = 2 n\, \widehat{I}(x; y \mid S) = -n \log(1 - r^2) \sim \chi^2_1

    with :math:`r` the partial correlation and :math:`n` the total weight. ``dof`` is the
    chi-square's 1.

    Parameters
    ----------
    alpha : float in [0, 1], default=0.05
        Level of the test.
    """

    def _results(self, r, n, size):
        statistic, pvalue, dof, independent = super()._results(r, n, size)
        return statistic, pvalue, np.where(dof > 0, 1.0, dof), independent

    def _from_correlation(self, r, n, size):
        statistic = np.maximum(-n * np.log1p(-r * r), 0.0)
        return statistic, chdtrc(1.0, statistic)


class PartialCorrelationT(BaseGaussianCITest):
    r"""Student's t test on a partial correlation (bnlearn ``"cor"``).

    .. math:: t = r \sqrt{\frac{n - |S| - 2}{1 - r^2}} \sim t_{n - |S| - 2}, \qquad
       p = 2\,(1 - F_t(|t|))

    ``statistic`` is ``t`` (bnlearn reports the partial correlation itself as its statistic;
    the p-values agree).

    Parameters
    ----------
    alpha : float in [0, 1], default=0.05
        Level of the test.
    """

    def _from_correlation(self, r, n, size):
        dof = n - size - 2
        with np.errstate(divide="ignore"):
            t = r * np.sqrt(dof / np.maximum(1.0 - r * r, 0.0))
        return t, 2.0 * stdtr(dof, -np.abs(t))


class RobustFisherZ(FisherZ):
    r"""Fisher's z on a robust correlation matrix (Kalisch & Bühlmann 2008, "robustified PC").

    The same test as :class:`FisherZ`, on the location and covariance of the Minimum
    Covariance Determinant estimator (:class:`sklearn.covariance.MinCovDet`): breakdown
    point about 50% (nearly half the rows may be gross outliers), and, unlike pairwise
    robust correlations (Kalisch & Bühlmann's Qn-based estimator), one positive
    semi-definite, affine-equivariant matrix, so the partial correlations from its inverse
    are proper ones. It needs more rows than columns.
    Integer row weights are replicated rows; fractional weights are refused.

    Parameters
    ----------
    alpha : float in [0, 1], default=0.05
        Level of the test.
    support_fraction : float in (0, 1) or None, default=None
        Share of the rows the MCD fits (None: scikit-learn's ``ceil((n + k + 1) / 2)`` of the
        ``n`` rows, one row more than the largest-breakdown ``floor((n + k + 1) / 2)`` of
        Rousseeuw's MCD and robustbase's ``covMcd`` when ``n + k`` is even).
    random_state : int, RandomState or None, default=0
        Seed of FAST-MCD's random starts. FAST-MCD is a randomised search (its local optima
        can differ between starts), so the default fixes the seed: a PC fit, a ``PCSelect``
        selection or a :func:`skbn.checking.ci_test` then gives the same answer every time,
        as every skbn learner does; ``None`` draws new starts from numpy's global generator
        at every fit (the graph can then change from one fit to the next). The rows are put
        in one canonical order before the search, so the row order of the data and integer
        weights against replicated rows change nothing either.

    References
    ----------
    M. Kalisch and P. Bühlmann (2008), "Robustification of the PC-algorithm for directed
    acyclic graphs", J. Comput. Graph. Statist. 17(4).
    P. J. Rousseeuw and K. Van Driessen (1999), "A fast algorithm for the minimum covariance
    determinant estimator", Technometrics 41(3).
    """

    statistics = "robust"
    _parameter_constraints = {
        **FisherZ._parameter_constraints,
        "support_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "random_state": ["random_state"],
    }

    def __init__(self, alpha=0.05, *, support_fraction=None, random_state=0):
        self.alpha = alpha
        self.support_fraction = support_fraction
        self.random_state = random_state

    def moments_of(self, values, weights=None, ids=None, n_ids=1):
        """Robust moments of ``values`` (one group; integer weights replicate rows).

        Parameters
        ----------
        values : ndarray of shape (n_samples, k)
            The continuous columns; more rows than columns.
        weights : ndarray of shape (n_samples,) or None, default=None
            Non-negative integer row weights (replicated rows), or None.
        ids : None
            Must be None (no discrete strata).
        n_ids : int, default=1
            Must be 1.

        Returns
        -------
        weighted moments
            One group: weight ``n``, the MCD location and ``n`` times its covariance.
        """
        from skbn._counting._moments import robust_moments

        if ids is not None and n_ids > 1:
            raise ValueError("RobustFisherZ tests continuous variables only (no discrete strata).")
        values = np.asarray(values, dtype=np.float64)
        if weights is not None:
            weights = np.asarray(weights, dtype=np.float64)
            if np.any(weights != np.floor(weights)) or np.any(weights < 0):
                raise ValueError("RobustFisherZ: sample_weight must hold non-negative integers "
                                 "(replicated rows); the MCD has no fractional weights.")
            values = np.repeat(values, weights.astype(np.int64), axis=0)
        return robust_moments(values, self.random_state, self.support_fraction)


class CLGMutualInformation(BaseCITest):
    r"""Mutual-information test for mixed data under a conditional linear Gaussian model
    (bnlearn ``"mi-cg"``).

    The conditioning set splits into discrete columns :math:`Z_d` (``q`` configurations)
    and continuous ones :math:`Z_c`. The statistic is twice the log-likelihood ratio of two
    CLG regressions, with bnlearn's log-likelihood (:func:`skbn.scores.CLGLogLikelihood`,
    unbiased variances :math:`RSS_g / (N_g - m)` for ``m`` coefficients):

    * ``x``, ``y`` continuous (:meth:`test_moments`, moments grouped by :math:`Z_d`): in each
      configuration ``g``, ``y`` on :math:`Z_c \cup \{x\}` against ``y`` on :math:`Z_c`;
      ``dof`` = number of configurations used;
    * ``x`` discrete (``r_x`` states), ``y`` continuous (:meth:`test_mixed`, moments grouped
      by :math:`Z_d \cup \{x\}`): ``y`` on :math:`Z_c` in each configuration of
      :math:`Z_d \cup \{x\}` against each configuration of :math:`Z_d`;
      ``dof`` = :math:`(r_x - 1)\, q\, (|Z_c| + 2)`;
    * ``x``, ``y`` and :math:`Z` discrete (:meth:`test` on count tables): the G-test
      :math:`2 N \hat I` with :math:`\nu = (r_x - 1)(r_y - 1) q` (bnlearn's ``"mi"``).

    Discrete ``x`` and ``y`` given continuous columns are not offered: a discrete variable
    has no continuous parent in a CLG network (and bnlearn's answer there changes when
    ``x`` and ``y`` are swapped). A configuration with too few rows for its regression (``N_g`` at most
    the number of coefficients) or no residual spread is left out of the statistic and of
    ``dof``; for a discrete ``x``, the rows of a configuration of :math:`Z_d \cup \{x\}` left
    out leave the pooled regression too, so that both sides are fitted on the same rows (else
    the statistic would change with the unit of ``y``). With no configuration left, the
    statistic is 0 and the p-value 1, as for the Gaussian tests with too few rows.

    Parameters
    ----------
    alpha : float in [0, 1], default=0.05
        Level of the test.
    """

    data_kinds = ("continuous", "mixed")
    statistics = "moments"
    _parameter_constraints = {"alpha": [Interval(Real, 0, 1, closed="both")]}

    def __init__(self, alpha=0.05):
        self.alpha = alpha

    moments_of = BaseGaussianCITest.moments_of

    def _result(self, statistic, dof):
        statistic = max(float(statistic), 0.0)
        pvalue = float(chdtrc(dof, statistic)) if dof > 0 else 1.0
        return CITestResult(statistic, pvalue, float(dof), pvalue > self.alpha)

    @staticmethod
    def _group_loglik(stats, child, parents):
        """Per-group unbiased log-likelihood and whether the group can be fitted."""
        from skbn._counting._moments import regression_rss
        from skbn.scores import _gaussian_loglik

        parents = list(parents)
        n_coef = len(parents) + 1
        # a group of at most n_coef rows (most of them, when the configurations of many
        # discrete columns are declared) is never usable: its regression is not solved
        enough = stats.weight > n_coef
        rss = np.zeros(stats.n_groups)
        if enough.any():  # (every group's regression in one batched solve)
            rss[enough] = regression_rss(stats.scatter[enough], child, parents)
        usable = enough & (rss > 0)
        return _gaussian_loglik(stats.weight, np.where(usable, rss, 1.0), n_coef, "unbiased"), usable

    def test_moments(self, stats, x, y, z=()):
        """Continuous ``x`` and ``y`` given continuous columns ``z`` and the discrete
        configurations the moments are grouped by.

        Parameters
        ----------
        stats : weighted moments
            Moments of ``x``, ``y``, ``z``, one group per configuration of the discrete
            conditioning columns.
        x, y : int
            Positions of the two continuous columns.
        z : sequence of int, default=()
            Positions of the continuous conditioning columns.

        Returns
        -------
        CITestResult
            Statistic (twice the log-likelihood ratio), p-value, degrees of freedom, decision.
        """
        z = list(z)
        full, usable = self._group_loglik(stats, y, z + [x])
        reduced, _ = self._group_loglik(stats, y, z)
        statistic = 2.0 * np.sum(full[usable] - reduced[usable])  # (the others may be -inf in both)
        return self._result(statistic, int(np.count_nonzero(usable)))

    def test_mixed(self, stats, y, z, n_x_states):
        """Discrete ``x`` against continuous ``y`` given continuous ``z`` and the discrete
        conditioning configurations.

        Parameters
        ----------
        stats : weighted moments
            Moments of ``y`` and ``z`` grouped by the configuration ids of the discrete
            conditioning columns followed by ``x`` as the last (fastest) digit (the
            mixed-radix number of the states of ``z_d + [x]``, uncompressed).
        y : int
            Position of the continuous column.
        z : sequence of int
            Positions of the continuous conditioning columns.
        n_x_states : int
            Number of states ``r_x`` of ``x``.

        Returns
        -------
        CITestResult
            Statistic (twice the log-likelihood ratio), p-value, degrees of freedom, decision.
        """
        z = list(z)
        r_x = int(n_x_states)
        if stats.n_groups % r_x:
            raise ValueError(f"{stats.n_groups} groups are not configurations of (z, x) with {r_x} x-states.")
        q = stats.n_groups // r_x
        full, usable_full = self._group_loglik(stats, y, z)
        # both sides over the same rows: those of the configurations of (z, x) whose own
        # regression fits (the rows of one with too few rows or no spread would enter the
        # pooled side only, and the statistic would then change with the unit of y)
        pooled_of = np.arange(stats.n_groups) // r_x
        given = stats.pooled(np.where(usable_full, pooled_of, q), q + 1)
        reduced, usable = self._group_loglik(given, y, z)
        usable = usable[:q]  # (group q: the rows left out)
        fitted = usable_full & usable[pooled_of]
        statistic = 2.0 * (np.sum(full[fitted]) - np.sum(reduced[:q][usable]))
        return self._result(statistic, (r_x - 1) * int(np.count_nonzero(usable)) * (len(z) + 2))

    def test_variables(self, data, x, y, z=()):
        """On data of discrete columns only, the G-test of their count tables (:meth:`test`);
        continuous columns are read from their moments.

        Parameters
        ----------
        data : encoded data set
            The encoded data set.
        x, y : int
            Column indices.
        z : tuple of int, default=()
            Conditioning columns.

        Returns
        -------
        CITestResult
            Statistic, p-value, degrees of freedom and decision of the G-test.

        Raises
        ------
        TypeError
            When ``data`` has continuous columns: call :func:`skbn.checking.ci_test` (one
            test on a data set) or :meth:`test_moments` / :meth:`test_mixed`.
        """
        if data.has_continuous:
            raise TypeError("CLGMutualInformation tests continuous columns from their moments: call "
                            "skbn.checking.ci_test(X, x, y, z, test='mi-cg') or test_moments / test_mixed.")
        return super().test_variables(data, x, y, z)

    def _test_batch(self, cells, group, n_tests, n_strata):
        return GTest(alpha=self.alpha, adjust_dof=False, min_samples_per_dof=0)._test_batch(
            cells, group, n_tests, n_strata)


_ALIASES = {
    "chi_square": ChiSquare,
    "g_test": GTest,
    "bayes_factor": BayesFactor,
    "fisher_z": FisherZ,
    "zf": FisherZ,
    "mi-g": GaussianMutualInformation,
    "cor": PartialCorrelationT,
    "robust_fisher_z": RobustFisherZ,
    "mi-cg": CLGMutualInformation,
}


#: ``"auto"``, the test PC runs (``PCStructure(ci_test="auto")``, :func:`skbn.checking.ci_test`)
#: by the kind of the columns (discrete, continuous, mixed: :func:`skbn.utils._plugins.data_kind`):
#: the chi-square test, Fisher's z, the conditional-Gaussian mutual-information test.
AUTO_TESTS = ("chi_square", "zf", "mi-cg")
