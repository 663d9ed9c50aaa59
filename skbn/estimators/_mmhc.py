"""Max-min hill climbing: a hybrid learner (restrict by CI tests, maximise a score)."""

from itertools import combinations
from numbers import Integral

import numpy as np

from skbn._counting import FamilyCounter
from skbn._engines._ci_runner import CITestRunner, report_power_rule
from skbn._engines._skeleton import skeleton
from skbn.estimators._base import _MISSING_CONSTRAINTS, _BaseStructureLearner
from skbn.estimators._hill_climb import HillClimbStructure
from skbn.utils._progress import Progress, amount
from skbn.utils._sklearn_compat import Interval, StrOptions


class MMHCStructure(_BaseStructureLearner):
    r"""Hybrid structure learning: a CI-test skeleton restricts a score-based search.

    1. **Restrict** (``restrict="mmpc"``): for every variable :math:`T`, max-min parents
       and children (MMPC, Tsamardinos, Brown & Aliferis 2006). The forward phase adds to
       the candidate set :math:`\mathrm{CPC}` the variable :math:`X` of largest minimum
       association :math:`\min_{S \subseteq \mathrm{CPC}} \mathrm{assoc}(X; T \mid S)`
       (association: smaller p-value, then the stronger dependence by ``ci_test``'s
       :meth:`~skbn.citests.BaseCITest.association` of its statistic, e.g. ``|z|``); a variable
       found independent of :math:`T` given a subset is dropped for good. The backward
       phase removes every :math:`X \in \mathrm{CPC}` independent of :math:`T` given a
       subset of the rest. Conditioning sets have at most ``max_cond_vars`` variables;
       results are cached by (pair, set), so the runs for ``T`` and ``X`` share tests.
       Symmetry correction: ``X - T`` is kept only if ``X`` is in ``T``'s set *and* ``T``
       in ``X``'s. With ``restrict="pc"`` the skeleton of :class:`PCStructure` (PC-stable,
       step 1) is used (same weighted rows, same ``white_list`` / ``black_list`` / ``tiers``).
    2. **Maximise**: :class:`HillClimbStructure` (``search="hill_climb"`` or ``"tabu"``)
       with every pair outside the skeleton black-listed both ways, merged with the
       user's knowledge (:mod:`skbn.knowledge`); white-listed pairs are never cut.

    bnlearn's ``mmhc`` is the same pair (its defaults: mutual-information test at
    ``alpha=0.05``, hill climbing on BIC), and so are the defaults here.

    Parameters
    ----------
    restrict : {"mmpc", "pc"}, default="mmpc"
        Restrict phase.
    ci_test : str or BaseCITest, default="auto"
        "auto" is "g_test" on discrete data, "zf" on continuous data and "mi-cg" on
        mixed data (``ci_test_`` holds the one used; see ``docs/gaussian.md``).
        CI test of the restrict phase ("g_test", "chi_square", "bayes_factor" or an
        object such as ``GTest(alpha=0.01)``).
    max_cond_vars : int or None, default=None
        Largest conditioning set of the restrict phase (None: no bound).
    scorer : str or BaseScore, default="auto"
        "auto" is "bic" on discrete data, "bic-g" on continuous data and "bic-cg" on
        mixed data (``scorer_`` holds the one used; see ``docs/gaussian.md``).
        Score of the maximise phase.
    search : {"hill_climb", "tabu"}, default="hill_climb"
    tabu_length, tabu_patience, max_iter
        See :class:`HillClimbStructure`.
    max_indegree, white_list, black_list, tiers
        Background knowledge, as in :class:`HillClimbStructure`.
    {verbose_parameter}
    missing : {"error", "complete_case", "em"}, default="error"
        Missing cells (NaN/None) in ``X``: refuse them; drop incomplete rows (with a warning
        giving their number); or structural EM (Friedman 1997) as in
        :class:`skbn.HillClimbStructure`: alternate expected completions under the
        current network (weighted rows) and a new MMHC run (restriction and search) on them,
        which re-runs from scratch every iteration (``docs/missing.md``).
    {structural_em_parameters}
    random_state : int, RandomState instance or None, default=None
        Seeds EM's random initialisations (``n_init > 1``) and Gibbs draws.
    {common_parameters}

    Attributes
    ----------
    skeleton_ : list of (u, v)
        Pairs kept by the restrict phase (``u`` before ``v`` in column order), white-listed
        pairs included.
    n_tests_ : int
        Number of distinct CI tests run by the restrict phase (with ``restrict="pc"``: the
        tests of PC's skeleton, as ``PCStructure(orient="standard").n_tests_``).
    n_power_rule_tests_ : int
        How many of those ``n_tests_`` tests the test's heuristic power rule decided instead
        of the data, as in :class:`PCStructure`: fewer than ``min_samples_per_dof`` samples
        per degree of freedom (:class:`~skbn.citests.ChiSquare`,
        :class:`~skbn.citests.GTest`), so dependence was assumed (``pvalue = 0``) and the
        pair kept in the skeleton, where bnlearn's tests find independence. A
        :class:`~skbn.exceptions.PowerRuleWarning` gives the count when it is not 0; 0 for
        tests without such a rule. With ``missing="em"``: summed over the structural-EM
        searches (each runs the restrict phase again on its completion), in one warning per
        fit giving the searches' tests and how many searches had any; ``n_tests_`` and
        ``skeleton_`` are then the last search's.
    edges_, network_, score_, n_iter_, trace_, scorer_, ci_test_
        As in :class:`HillClimbStructure` / :class:`PCStructure`.
    {structural_em_attributes}
    {common_attributes}

    References
    ----------
    I. Tsamardinos, L. E. Brown and C. F. Aliferis (2006), "The max-min hill-climbing
    Bayesian network structure learning algorithm", Machine Learning 65.

    Examples
    --------
    >>> from skbn import MMHCStructure
    >>> from skbn.datasets import sample_asia
    >>> model = MMHCStructure().fit(sample_asia(5000, random_state=0))
    >>> ("smoke", "lung") in model.skeleton_
    True
    >>> len(model.edges_) <= len(model.skeleton_)   # every edge is a kept pair
    True
    """

    _parameter_constraints = {
        **_BaseStructureLearner._parameter_constraints,
        **_MISSING_CONSTRAINTS,
        "random_state": ["random_state"],
        "restrict": [StrOptions({"mmpc", "pc"})],
        "ci_test": "no_validation",
        "max_cond_vars": [None, Interval(Integral, 0, None, closed="left")],
        "scorer": "no_validation",
        "search": [StrOptions({"hill_climb", "tabu"})],
        "tabu_length": [Interval(Integral, 0, None, closed="left")],
        "tabu_patience": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [None, Interval(Integral, 0, None, closed="left")],
        "max_indegree": [None, Interval(Integral, 0, None, closed="left")],
        "verbose": ["verbose"],
    }
    _plugins = ("scorer", "ci_test")
    _auto_plugins = {"ci_test": ("g_test", "zf", "mi-cg"), "scorer": ("bic", "bic-g", "bic-cg")}
    _knowledge = ("white_list", "black_list", "tiers", "max_indegree")
    _bounded_score = True
    _missing_modes = ("error", "complete_case", "em")
    _structural_em = True
    _continuous = True

    def __init__(self, *, restrict="mmpc", ci_test="auto", max_cond_vars=None, scorer="auto",
                 search="hill_climb", tabu_length=10, tabu_patience=10, max_iter=None,
                 max_indegree=None, white_list=(), black_list=(), tiers=None, verbose=0,
                 missing="error", latent=None, e_step="exact", n_init=1, em_max_iter=100,
                 em_tol=1e-6, random_state=None, categories="auto", column_types="auto",
                 handle_unknown="warn", target=None, fit_parameters=True, parameter_estimator="bayes",
                 parameter_ess=1.0):
        self.restrict = restrict
        self.ci_test = ci_test
        self.max_cond_vars = max_cond_vars
        self.scorer = scorer
        self.search = search
        self.tabu_length = tabu_length
        self.tabu_patience = tabu_patience
        self.max_iter = max_iter
        self.max_indegree = max_indegree
        self.white_list = white_list
        self.black_list = black_list
        self.tiers = tiers
        self.verbose = verbose
        self.categories = categories
        self.column_types = column_types
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess
        self.missing = missing
        self.latent = latent
        self.e_step = e_step
        self.n_init = n_init
        self.em_max_iter = em_max_iter
        self.em_tol = em_tol
        self.random_state = random_state

    def _restore_column_order(self, names):
        super()._restore_column_order(names)
        position = {name: i for i, name in enumerate(names)}
        self.skeleton_ = sorted((tuple(sorted(pair, key=position.get)) for pair in self.skeleton_),
                                key=lambda pair: (position[pair[0]], position[pair[1]]))

    def _learn_structure(self, data, knowledge, *, start=None, counter=None):
        progress = Progress(self.verbose, "MMHCStructure", unit="phase", total=2,
                            detail=f"restrict={self.restrict!r}, {amount(data.n_variables, 'column')}, "
                                   f"{amount(data.n_samples, 'row')}")
        counter = FamilyCounter(data) if counter is None else counter  # one Gram matrix for both phases
        if self.restrict == "mmpc":
            adjacency, self.n_tests_, n_power_rule = _mmpc_skeleton(
                data, self.ci_test_, self.max_cond_vars, knowledge.forbidden_adjacency, counter)
        else:
            with progress.nested():
                adjacency, self.n_tests_, n_power_rule = _pc_skeleton(
                    data, self.ci_test_, self.max_cond_vars, knowledge, self.verbose)
        report_power_rule(self, self.ci_test_, n_power_rule, self.n_tests_)
        adjacency |= knowledge.required_adjacency
        progress.message(f"skeleton: {amount(self.n_tests_, 'test')}, "
                         f"{amount(int(np.triu(adjacency, 1).sum()), 'adjacency', 'adjacencies')}, "
                         f"{progress.elapsed():.2f} s")
        progress.update(1, tests=self.n_tests_)
        self.skeleton_ = [(data.names[i], data.names[j]) for i, j in np.argwhere(np.triu(adjacency, 1))]
        search = HillClimbStructure(
            scorer=self.scorer_, search=self.search, tabu_length=self.tabu_length,
            tabu_patience=self.tabu_patience, max_iter=self.max_iter, max_indegree=self.max_indegree,
            verbose=self.verbose,
        )  # its knowledge: MMHC's, restricted to the skeleton (passed to _structure)
        with progress.nested():
            edges = search._structure(data, knowledge=knowledge.with_forbidden_adjacencies(~adjacency),
                                      counter=counter)
        self.score_ = search.score_
        self.n_iter_, self.trace_ = search.n_iter_, search.trace_
        progress.close(done=2, rate=False, tests=self.n_tests_, moves=self.n_iter_, score=self.score_,
                       edges=len(edges))
        return edges


def _pc_skeleton(data, ci_test, max_cond_vars, knowledge, verbose=0):
    """Symmetric adjacency of PC's skeleton (:func:`skbn._engines._skeleton.skeleton`, stable
    variant, no correction), its number of tests and how many of them the test's power rule
    decided (the runner's count): the required adjacencies never tested, the forbidden ones
    removed untested, every test on the same weighted rows."""
    p = data.n_variables
    fixed, removed = knowledge.required_adjacency, knowledge.forbidden_adjacency
    progress = Progress(verbose, "PC skeleton", unit="test",
                        detail=f"{amount(p, 'column')}, {amount(data.n_samples, 'row')}")
    with CITestRunner(data, ci_test) as runner:
        adjacency, _, n_tests, _ = skeleton(runner, p, fixed=fixed, removed=removed,
                                            max_cond_vars=max_cond_vars, progress=progress)
    found = np.zeros((p, p), dtype=bool)
    for x, neighbours in enumerate(adjacency):
        found[x, sorted(neighbours)] = True
    progress.close(done=n_tests, edges=int(np.triu(found, 1).sum()))
    return found, n_tests, runner.n_power_rule


def _mmpc_skeleton(data, ci_test, max_cond_vars, excluded, counter=None):
    """Symmetric adjacency of MMPC with the AND symmetry correction, the count of distinct
    tests and how many of them the test's power rule decided (the runner's count: every
    distinct test is run once) (``counter``: a :class:`~skbn._counting.FamilyCounter` of
    ``data`` whose Gram matrix the unconditional tests share)."""
    p = data.n_variables
    tests = _CachedTests(data, ci_test, counter)
    limit = p if max_cond_vars is None else max_cond_vars
    found = np.zeros((p, p), dtype=bool)
    runs = {}
    for target in range(p):
        candidates = [x for x in range(p) if x != target and not excluded[x, target]]
        runs[target] = _mmpc_steps(tests.associations(target, candidates), limit, tests.association)
    for target, cpc in _lock_step(runs, tests).items():
        found[target, cpc] = True
    return found & found.T, tests.n_tests, tests.runner.n_power_rule


class _CachedTests:
    """MMPC's CI tests ``x _||_ target | S``, cached by ``(min, max, sorted S)``, batched.

    The conditional tests go through a :class:`~skbn._engines._ci_runner.CITestRunner`
    (its key cache, :meth:`~skbn._engines._ci_runner.CITestRunner.cached`: tables from
    :class:`~skbn._counting.StratifiedCounter`, weighted by ``sample_weight``, one
    ``test_batch`` per table shape). Counting tests run every unconditional pair at once
    from one one-hot Gram matrix (the ``family_counter``'s, when given, so the search reuses
    it) and keep the results in ``p x p`` arrays, read by index.
    """

    def __init__(self, data, ci_test, family_counter=None):
        self.data, self.ci_test = data, ci_test
        self.runner = CITestRunner(data, ci_test)
        #: ``(pvalue, statistic, independent)`` of every unconditional pair as three
        #: symmetric ``p x p`` arrays (read by index: no key per pair), or None
        self.unconditional = None
        p = data.n_variables
        if ci_test.from_counts and p > 1:
            x, y = np.triu_indices(p, 1)
            gram = None if family_counter is None else family_counter.pairwise()
            arrays = np.ones((p, p)), np.zeros((p, p)), np.zeros((p, p), dtype=bool)
            for array, values in zip(arrays, self.runner.unconditional(np.column_stack((x, y)), gram)):
                array[x, y] = array[y, x] = values
            self.unconditional = arrays

    @property
    def cache(self):
        """``{(x, y, S): (pvalue, statistic, independent)}`` of the conditional tests run."""
        return self.runner.cache

    def associations(self, target, candidates):
        """``{x: association}`` (:meth:`association`) of the ``candidates`` not independent of ``target``
        (unconditional tests), ``x`` in increasing order."""
        if self.unconditional is None:
            results = self(target, [(x, ()) for x in candidates])
            return {x: self.association(r) for x, r in zip(candidates, results) if not r[2]}
        pvalue, statistic, independent = (array[target] for array in self.unconditional)
        kept = np.asarray(candidates, dtype=np.intp)
        kept = np.sort(kept[~independent[kept]])
        strength = np.asarray(self.ci_test.association(statistic[kept]), dtype=float)
        return dict(zip(kept.tolist(), zip((-pvalue[kept]).tolist(), strength.tolist())))

    def association(self, result):
        """Larger = more strongly associated: smaller p-value, then the stronger dependence
        by the test's :meth:`~skbn.citests.BaseCITest.association` of its statistic (``|z|``
        for Fisher's z: ranking by the signed z put a strong negative correlation after a
        weak positive one when both p-values were 0)."""
        return (-result[0], float(self.ci_test.association(result[1])))

    @property
    def n_tests(self):
        """Number of distinct tests run (every unconditional pair counts once)."""
        p = self.data.n_variables
        return len(self.cache) + (0 if self.unconditional is None else p * (p - 1) // 2)

    def result(self, key):
        """Cached ``(pvalue, statistic, independent)`` of ``key = (x, y, S)``, ``x < y``."""
        if self.unconditional is not None and not key[2]:
            return tuple(array.item(key[0], key[1]) for array in self.unconditional)
        return self.cache[key]

    def __call__(self, target, requests):
        """``(pvalue, statistic, independent)`` of ``x _||_ target | S`` per ``(x, S)``."""
        return self.batch([(target, requests)])[0]

    def batch(self, calls):
        """:meth:`__call__` of many ``(target, requests)`` at once: the missing tests of
        all of them counted and decided together (one ``test_batch`` per table shape)."""
        zero = self.unconditional
        keys = [[None if zero is not None and not subset
                 else (min(x, target), max(x, target), tuple(sorted(subset))) for x, subset in requests]
                for target, requests in calls]
        self.runner.cached([key for call in keys for key in call if key is not None])
        if zero is None:
            return [[self.cache[key] for key in call] for call in keys]
        pvalue, statistic, independent = zero
        return [[(pvalue.item(target, x), statistic.item(target, x), independent.item(target, x))
                 if key is None else self.cache[key] for (x, _), key in zip(requests, call)]
                for (target, requests), call in zip(calls, keys)]


def _lock_step(runs, tests):
    """Drive MMPC runs (``{target: _mmpc_steps(...)}``) together: each round gathers the
    pending requests of every run into one ``tests.batch`` call, so tests of many targets
    share each ``test_batch`` call. A run's requests depend only on its own answers and
    every answer only on its key, so the result (and the set of distinct tests) is the one
    of running the targets one after another. Returns ``{target: sorted CPC}``."""
    found, answers = {}, dict.fromkeys(runs)  # sending None starts a generator
    while answers:
        calls = []
        for target, answer in answers.items():
            try:
                calls.append((target, runs[target].send(answer)))
            except StopIteration as stop:
                found[target] = stop.value
        answers = dict(zip([target for target, _ in calls], tests.batch(calls))) if calls else {}
    return found


def _mmpc(target, candidates, tests, limit):
    """MMPC(target): candidate parents and children (sorted), tests run by ``tests``."""
    return _lock_step({target: _mmpc_steps(tests.associations(target, candidates), limit, tests.association)},
                      tests)[target]


def _mmpc_steps(min_assoc, limit, association):
    """MMPC of a target, forward then backward phase, as a generator.

    ``min_assoc`` maps the candidates found dependent on the target unconditionally to
    their association (``association(result)``, :meth:`_CachedTests.association`). The
    generator yields its requests ``[(x, S), ...]``, is sent back their
    ``(pvalue, statistic, independent)`` and returns the sorted candidate parents and
    children.
    """
    cpc = []
    while min_assoc:  # forward: add the max-min associated variable
        best = max(min_assoc, key=lambda x: (min_assoc[x], -x))
        del min_assoc[best]
        # the new conditioning sets are those holding ``best``: test them all in one batch
        sets = [rest + (best,) for size in range(min(len(cpc), limit - 1) + 1)
                for rest in combinations(cpc, size)]
        requests = [(x, subset) for x in sorted(min_assoc) for subset in sets]
        answers = yield requests
        for (x, _), result in zip(requests, answers):
            if x not in min_assoc:
                continue
            if result[2]:
                del min_assoc[x]  # independent given a subset: never a neighbour
            else:
                min_assoc[x] = min(min_assoc[x], association(result))
        cpc.append(best)
    for x in list(cpc):  # backward: drop variables independent given a subset of the rest
        others = [c for c in cpc if c != x]
        requests = [(x, rest) for size in range(min(len(others), limit) + 1)
                    for rest in combinations(others, size)]
        answers = yield requests
        if any(result[2] for result in answers):
            cpc.remove(x)
    return sorted(cpc)
