"""Score-based local search over DAGs: hill climbing, tabu search, simulated annealing."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from skbn._engines import _memetic, _search
from skbn._engines._strategies import STRATEGIES, fill_strategy_list
from skbn.estimators._base import _MISSING_CONSTRAINTS, _BaseStructureLearner
from skbn.utils._progress import Progress, amount
from skbn.utils._sklearn_compat import Interval, StrOptions


class HillClimbStructure(_BaseStructureLearner):
    r"""Score-based structure learning by local search over DAGs.

    Starting from ``start`` (default: the empty graph), every step looks at all legal
    single-edge moves -- add ``i -> j``, remove it, reverse it -- and applies one. A legal
    move keeps the graph acyclic and respects the background knowledge
    (:mod:`skbn.knowledge`): it never adds a ``black_list`` edge or an edge from a later
    ``tiers`` tier into an earlier one, never exceeds ``max_indegree``, and never removes a
    ``white_list`` edge (nor reverses it, unless both directions are listed: then the pair
    stays adjacent in either direction). The score
    is decomposable,

    .. math::
        S(G; D) = \sum_i s(x_i, \mathrm{pa}_i), \qquad
        \Delta_{\mathrm{add}\ i \to j} = s(x_j, \mathrm{pa}_j \cup \{x_i\}) - s(x_j, \mathrm{pa}_j),

    so a move changes one family (two for a reversal): the table of every move's
    :math:`\Delta` is refreshed only for the families the last move changed.

    Search strategies (``search``):

    {search_strategies}

    Anytime budgets: ``max_time`` (seconds) and ``max_evaluations`` (family re-scorings,
    ``Budget`` in ``skbn/_engines/_search.py``) stop every search, restart and generation loop; the
    best graph found so far is returned, and ``trace_time_`` / ``trace_evaluations_``
    tell when each score of ``trace_`` was reached. A search stopped by
    ``max_evaluations`` or by ``max_iter`` is deterministic; one stopped by ``max_time``
    depends on the machine.

    Tabu (each multistart one too), annealing and first-improvement results are polished
    by steepest ascent, so every result is a local optimum. With ``n_restarts > 0`` the
    result of the first search is perturbed by ``perturbation`` random legal moves and
    searched again, once per restart, perturbing the best graph found so far (bnlearn's
    ``restart`` and ``perturb``); the best graph wins. A restart of ``"multistart_tabu"``
    is one tabu search from the perturbed graph.

    Determinism: moves are scanned in the order (parent index, child index, move) with
    moves ordered add, remove, reverse; the best delta is found and the first move in
    scan order within ``1e-10 * (1 + |score|)`` of it is taken, and only if it improves
    the score by more than that tolerance (the rule of ``improves`` in ``skbn/_engines/_search.py``).
    Random choices use ``random_state``; the result is the same for any
    ``PYTHONHASHSEED``. The search runs in one process: there is no ``n_jobs`` (measured on
    ALARM, a step's one or two count passes of a few milliseconds are too small to ship to
    workers, and restarts in parallel processes lose the shared score cache).

    Parameters
    ----------
    scorer : str or BaseScore, default="auto"
        "auto" is "bdeu" on discrete data, "bic-g" on continuous data and "bic-cg" on
        mixed data (``scorer_`` holds the one used; see ``docs/gaussian.md``).
        Decomposable score: "bdeu", "k2", "bic", "aic", "loglik" or a
        :class:`skbn.scores.BaseScore` (e.g. ``BDeu(ess=10)``). The log-likelihood needs
        ``max_indegree`` (without a bound its optimum is the complete DAG; refused).
    max_indegree : int or None, default=None
        Largest number of parents of any node.
    start : sequence of (parent, child) or None, default=None
        Starting DAG (column labels); required edges are added to it.
    white_list : sequence of (parent, child), default=()
        Edges that must be in the graph (bnlearn's whitelist): present from the start,
        never removed or reversed. Both ``(a, b)`` and ``(b, a)`` listed: ``a`` and ``b``
        stay adjacent, in either direction (the edge may be reversed, never removed).
    black_list : sequence of (parent, child), default=()
        Edges never added (``(a, b)`` forbids ``a -> b`` only; list both to forbid the pair).
    tiers : sequence of sequences of columns or None, default=None
        No edge from a later tier into an earlier one (bnlearn's ``tiers2blacklist``).
    search : str, default="hill_climb"
        Search strategy, one of those listed above ("multistart_tabu" recommended for the
        best score).
    tabu_length : int, default=10
        Number of recent graphs that are tabu.
    tabu_patience : int or None, default=None
        Tabu search stops after this many moves without beating the best graph seen.
        None: 10 for ``"tabu"`` (bnlearn's ``max.tabu``), 20 for ``"multistart_tabu"``
        (the same moves as with 10, searched further) and for the tabu climbs that seed
        ``"memetic"``.
    temperature : float, default=10.0
        Initial temperature of simulated annealing, in score units.
    cooling : float, default=0.995
        Geometric cooling factor of simulated annealing.
    n_restarts : int, default=0
        Number of random restarts.
    perturbation : int, default=1
        Random legal moves applied at each restart, and by each mutation of the memetic
        and genetic searches.
    population_size : int, default=10
        Number of individuals of the memetic and genetic searches.
    max_time : float or None, default=None
        Wall-time budget of the whole search, in seconds (None: no limit).
    max_evaluations : int or None, default=None
        Budget of family re-scorings of the whole search (None: no limit).
    max_iter : int or None, default=None
        Largest number of moves of one search (None: no limit; for annealing, None means
        ``100 * n_variables`` proposals; for the memetic and genetic searches it is the
        number of generations, None meaning ``10 * population_size``).
    random_state : int, RandomState instance or None, default=None
        Seeds restarts, annealing and first-improvement.
    {verbose_parameter}
    {common_parameters}
    missing : {"error", "complete_case", "em"}, default="error"
        Missing cells (NaN/None) in ``X``: refuse them; drop incomplete rows (with a
        warning giving their number); or structural EM (Friedman 1997): alternate expected
        completions under the current network and a search on them from the current graph
        (``docs/missing.md``).
    {structural_em_parameters}

    Attributes
    ----------
    edges_ : list of (parent, child)
        Edges of the learned DAG, by parent, then child, in name order (the same list for
        any column order).
    network_ : DiscreteBayesianNetwork, GaussianBayesianNetwork or CLGBayesianNetwork
        The DAG with its parameters: CPTs on discrete data, linear Gaussian regressions
        on continuous columns (a CLG network on mixed data; ``docs/gaussian.md``).
    score_ : float
        Score of the learned DAG.
    {interventional_cpdag_attribute}
    n_iter_ : int
        Number of moves taken, over all searches and restarts.
    {structural_em_attributes}
    trace_ : ndarray of shape (n_steps,)
        Score after every move: the start, then every move of the first search, then for
        each restart the perturbed graph's score and every move of that restart (memetic
        and genetic searches: also every new individual's score before its local search).
    trace_time_ : ndarray of shape (n_steps,)
        Seconds since the search began at each entry of ``trace_``.
    trace_evaluations_ : ndarray of shape (n_steps,)
        Family re-scorings done at each entry of ``trace_`` (the ``max_evaluations``
        unit).
    scorer_ : BaseScore
        The resolved score object.
    {common_attributes}

    See Also
    --------
    K2Structure : greedy search given a variable ordering.

    References
    ----------
    D. Heckerman, D. Geiger and D. M. Chickering (1995), "Learning Bayesian networks: the
    combination of knowledge and statistical data", Machine Learning 20.
    M. Scutari (2010), "Learning Bayesian networks with the bnlearn R package", Journal of
    Statistical Software 35(3).
    D. M. Chickering, D. Geiger and D. Heckerman (1995), "Learning Bayesian networks:
    search methods and experimental results", AISTATS.

    Examples
    --------
    >>> from skbn.datasets import sample_asia
    >>> from skbn import HillClimbStructure
    >>> model = HillClimbStructure().fit(sample_asia(5000, random_state=0))
    >>> model.n_iter_ == len(model.trace_) - 1   # one score per move, after the start
    True
    >>> ("either", "xray") in model.edges_ or ("xray", "either") in model.edges_
    True
    """

    _parameter_constraints = {
        **_BaseStructureLearner._parameter_constraints,
        "scorer": "no_validation",
        "max_indegree": [None, Interval(Integral, 0, None, closed="left")],
        "search": [StrOptions(set(STRATEGIES))],
        "tabu_length": [Interval(Integral, 0, None, closed="left")],
        "tabu_patience": [None, Interval(Integral, 1, None, closed="left")],
        "temperature": [Interval(Real, 0, None, closed="left")],
        "cooling": [Interval(Real, 0, 1, closed="right")],
        "n_restarts": [Interval(Integral, 0, None, closed="left")],
        "perturbation": [Interval(Integral, 1, None, closed="left")],
        "population_size": [Interval(Integral, 2, None, closed="left")],
        "max_time": [None, Interval(Real, 0, None, closed="neither")],
        "max_evaluations": [None, Interval(Integral, 1, None, closed="left")],
        "max_iter": [None, Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        **_MISSING_CONSTRAINTS,
    }
    _plugins = ("scorer",)
    _auto_plugins = {"scorer": ("bdeu", "bic-g", "bic-cg")}
    _continuous = True
    _knowledge = ("white_list", "black_list", "tiers", "max_indegree", "start")
    _bounded_score = True
    _missing_modes = ("error", "complete_case", "em")
    _structural_em = True
    _interventions = True

    def __init__(
        self,
        *,
        scorer="auto",
        max_indegree=None,
        start=None,
        white_list=(),
        black_list=(),
        tiers=None,
        search="hill_climb",
        tabu_length=10,
        tabu_patience=None,
        temperature=10.0,
        cooling=0.995,
        n_restarts=0,
        perturbation=1,
        population_size=10,
        max_time=None,
        max_evaluations=None,
        max_iter=None,
        random_state=None,
        verbose=0,
        categories="auto",
        column_types="auto",
        handle_unknown="warn",
        target=None,
        fit_parameters=True,
        parameter_estimator="bayes",
        parameter_ess=1.0,
        missing="error",
        latent=None,
        e_step="exact",
        n_init=1,
        em_max_iter=100,
        em_tol=1e-6,
    ):
        self.missing = missing
        self.latent = latent
        self.e_step = e_step
        self.n_init = n_init
        self.em_max_iter = em_max_iter
        self.em_tol = em_tol
        self.scorer = scorer
        self.max_indegree = max_indegree
        self.start = start
        self.white_list = white_list
        self.black_list = black_list
        self.tiers = tiers
        self.search = search
        self.tabu_length = tabu_length
        self.tabu_patience = tabu_patience
        self.temperature = temperature
        self.cooling = cooling
        self.n_restarts = n_restarts
        self.perturbation = perturbation
        self.population_size = population_size
        self.max_time = max_time
        self.max_evaluations = max_evaluations
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose
        self.categories = categories
        self.column_types = column_types
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess

    # ------------------------------------------------------------------ search
    def _learn_structure(self, data, knowledge, *, start=None, counter=None):
        """The search (the base class's protocol), from ``knowledge.initial_graph()`` (the
        ``start`` parameter, or structural EM's ``start``, with the required edges); a hybrid
        learner (MMHC) restricts it through ``knowledge``'s forbidden edges and shares its
        ``counter``."""
        required, forbidden = knowledge.required, knowledge.forbidden
        max_indegree, start = knowledge.max_indegree, knowledge.initial_graph()
        rng = check_random_state(self.random_state)
        budget = _search.Budget(self.max_time, self.max_evaluations)
        engine = _search.DeltaEngine(data, self.scorer_, required, forbidden, max_indegree, counter)
        settings = self._settings(data)
        settings["budget"] = budget
        settings["progress"] = progress = Progress(
            self.verbose, "HillClimbStructure", unit="move",
            detail=f"search={self.search!r}, {amount(data.n_variables, 'column')}, "
                   f"{amount(data.n_samples, 'row')}")
        if STRATEGIES[self.search].seeds:
            # (with intervened rows the seed tree is from every row: a start, not a score)
            settings["seeds"] = [_memetic.chow_liu_seed(data, start, forbidden, max_indegree,
                                                        None if engine.counter.masked else engine.counter)]
        graph, recorder = _run(engine, start, settings, rng, "")
        recorders, total_moves = [recorder], recorder.n_moves
        best_graph, best_score = graph, engine.score
        for r in range(self.n_restarts):
            if budget.exhausted(engine):
                break
            # bnlearn's restarts: perturb the best graph so far, search again
            engine.set_graph(best_graph)
            _search.perturb(engine, self.perturbation, rng)
            graph, recorder = _run(engine, engine.A.copy(), settings, rng, f" restart {r + 1}")
            recorders.append(recorder)
            total_moves += recorder.n_moves
            if engine.score > best_score + _search.tolerance(best_score):
                best_graph, best_score = graph, engine.score
        engine.set_graph(best_graph)
        self.score_ = engine.score
        self.n_iter_ = total_moves
        self.trace_ = np.concatenate([np.asarray(r.trace, dtype=float) for r in recorders])
        self.trace_time_ = np.concatenate([np.asarray(r.times, dtype=float) for r in recorders])
        self.trace_evaluations_ = np.concatenate(
            [np.asarray(r.evaluations, dtype=np.int64) for r in recorders])
        progress.close(done=total_moves, score=self.score_, edges=int(best_graph.sum()))
        edges = [(int(i), int(j)) for i, j in np.argwhere(best_graph)]
        self.interventional_cpdag_ = self._interventional_cpdag(data, edges, knowledge)
        return edges

    def _settings(self, data):
        strategy = STRATEGIES[self.search]
        max_iter = self.max_iter
        if max_iter is None:
            max_iter = strategy.default_max_iter(data.n_variables, self.population_size)
        return {
            "strategy": strategy,
            "max_iter": int(max_iter),
            "tabu_length": self.tabu_length,
            "tabu_patience": strategy.tabu_patience if self.tabu_patience is None else self.tabu_patience,
            "temperature": float(self.temperature),
            "cooling": float(self.cooling),
            "population_size": self.population_size,
            "perturbation": self.perturbation,
            "names": data.names,
        }


HillClimbStructure.__doc__ = fill_strategy_list(HillClimbStructure.__doc__)


def _run(engine, start_graph, settings, rng, label):
    """One search from ``start_graph`` (a restart when ``label`` is not empty); returns
    (graph, recorder)."""
    engine.start(start_graph) if label == "" else engine.set_graph(start_graph)
    recorder = _search._Recorder(settings["progress"], settings["names"], label, settings["budget"])
    recorder.record(engine)
    settings["strategy"].run(engine, recorder, settings, rng, restart=label != "")
    return engine.A.copy(), recorder
