"""Score-based local search over DAGs: hill climbing, tabu search, simulated annealing."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from skbn._engines import _memetic, _search
from skbn.estimators._base import _MISSING_CONSTRAINTS, _BaseStructureLearner
from skbn.utils._progress import Progress
from skbn.utils._sklearn_compat import Interval, StrOptions

#: Default ``tabu_patience`` of ``search="multistart_tabu"``: measured on the random
#: 100-node networks of ``benchmarks/bench_best.py`` (seeds 0-7), 20 instead of 10 raises
#: the score on 4 of 8 for 0-25 % more time, and changes nothing on ALARM and CHILD.
MULTISTART_PATIENCE = 20


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

    * ``"hill_climb"``: steepest ascent, the best improving move until none improves;
    * ``"tabu"``: the best move whose resulting graph is not among the last
      ``tabu_length`` graphs, even if it lowers the score; stops after ``tabu_patience``
      moves without beating the best graph seen, which is returned (bnlearn's ``tabu``);
    * ``"annealing"``: simulated annealing -- a uniformly random legal move is accepted
      with probability :math:`\min(1, e^{\Delta / T})`, :math:`T` starting at
      ``temperature`` and multiplied by ``cooling`` after every proposal;
    * ``"first_improvement"``: opportunistic ascent -- legal moves are tried in random
      order and the first improving one is taken;
    * ``"multistart_tabu"``: tabu search (as ``"tabu"``, with ``tabu_patience`` 20 by
      default: the same moves, searched further) from ``start``, then from ``start`` plus
      the Chow-Liu tree (the maximum mutual-information spanning tree, its edges inserted
      where the knowledge allows), sharing one score cache. Each climb ends with
      *triangle moves*: while replacing a triangle of the DAG by a v-structure (remove one
      of its edges, point the other two into the third node) raises the score, the best
      such move is taken and tabu search runs again (:func:`skbn._engines._search.triangle_descent`;
      one edge at a time a climb cannot undo a v-structure it covered by a triangle). The
      better result wins (ties: the first). **The recommended setting when the score
      matters most**: on ALARM, CHILD and random 100-node networks it reaches a BDeu score
      at least that of hill climbing, tabu search, bnlearn's ``hc`` and ``tabu`` and
      pyAgrum's greedy search, in 1.6-3.5 times the time of plain hill climbing (``docs/hill_climb.md``,
      ``benchmarks/bench_best.py``);
    * ``"memetic"``: a population of ``population_size`` local optima evolved for
      ``max_iter`` generations. The first two members are ``"multistart_tabu"``'s two
      optima (tabu search, then steepest ascent and triangle moves, from the start graph
      and from the Chow-Liu tree), the others steepest-ascent optima from random
      perturbations of the first; parents are picked by tournament, crossover exchanges whole parent sets
      (with cycle repair), mutation applies ``perturbation`` random legal moves, every
      child is climbed by steepest ascent, and replacement keeps the population diverse
      (:mod:`skbn._engines._memetic`). ``"genetic"`` is the same without any local search (no
      tabu, no steepest ascent: the members are the start graph, the Chow-Liu tree and
      their random variations, only the final result is polished).

    Anytime budgets: ``max_time`` (seconds) and ``max_evaluations`` (family re-scorings,
    see :class:`skbn._engines._search.Budget`) stop every search, restart and generation loop; the
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
    the score by more than that tolerance (the rule of :func:`skbn._engines._search.improves`).
    Random choices use ``random_state``; the result is the same for any
    ``PYTHONHASHSEED``. The search runs in one process: there is no ``n_jobs`` (measured on
    ALARM, a step's one or two count passes of a few milliseconds are too small to ship to
    workers, and restarts in parallel processes lose the shared score cache).

    Parameters
    ----------
    scorer : str or BaseScore, default="bdeu"
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
        Search strategy (see above): "hill_climb", "tabu", "multistart_tabu" (recommended
        for the best score), "annealing", "first_improvement", "memetic" or "genetic".
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
        Edges of the learned DAG, sorted by (parent, child) position.
    network_ : DiscreteBayesianNetwork
        The DAG with its CPTs.
    score_ : float
        Score of the learned DAG.
    n_iter_ : int
        Number of moves taken, over all searches and restarts.
    em_trace_ : ndarray
        With ``missing="em"``: the EM objective (log-likelihood for "mle", log-posterior
        for "bayes") along the starting (empty-graph) network's EM, then of the network
        each later structure search starts from, then along the final parameter EM.
    em_n_iter_ : int
        ``len(em_trace_) - 1``.
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
    categories_, classes_, n_features_in_, feature_names_in_
        See the base class.

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
        "search": [StrOptions({"hill_climb", "tabu", "multistart_tabu", "annealing",
                               "first_improvement", "memetic", "genetic"})],
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
    _knowledge = ("white_list", "black_list", "tiers", "max_indegree", "start")
    _bounded_score = True
    _missing_modes = ("error", "complete_case", "em")
    _structural_em = True

    def __init__(
        self,
        *,
        scorer="bdeu",
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
            self.verbose, "HillClimbStructure", unit="moves",
            detail=f"search={self.search!r}, {data.n_variables} columns, {data.n_samples:,} rows")
        if self.search in ("multistart_tabu", "memetic", "genetic"):
            settings["seeds"] = [_memetic.chow_liu_seed(data, start, forbidden, max_indegree,
                                                        engine.counter)]
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
        return [(int(i), int(j)) for i, j in np.argwhere(best_graph)]

    def _settings(self, data):
        max_iter = self.max_iter
        if max_iter is None and self.search in ("memetic", "genetic"):
            max_iter = 10 * self.population_size
        elif max_iter is None:
            max_iter = 100 * data.n_variables if self.search == "annealing" else np.iinfo(np.int64).max
        return {
            "search": self.search,
            "max_iter": int(max_iter),
            "tabu_length": self.tabu_length,
            "tabu_patience": (self.tabu_patience if self.tabu_patience is not None
                              else MULTISTART_PATIENCE if self.search in ("multistart_tabu", "memetic")
                              else 10),
            "temperature": float(self.temperature),
            "cooling": float(self.cooling),
            "population_size": self.population_size,
            "perturbation": self.perturbation,
            "names": data.names,
        }


def _run(engine, start_graph, settings, rng, label):
    """One search from ``start_graph``; returns (graph, recorder)."""
    engine.start(start_graph) if label == "" else engine.set_graph(start_graph)
    recorder = _search._Recorder(settings["progress"], settings["names"], label, settings["budget"])
    recorder.record(engine)
    budget = settings["max_iter"]
    search = settings["search"]
    if search == "hill_climb":
        _search.steepest_ascent(engine, recorder, budget)
    elif search == "first_improvement":
        _search.first_improvement(engine, recorder, budget, rng)
    elif search == "tabu" or (search == "multistart_tabu" and label != ""):
        _search.tabu_search(engine, recorder, budget, settings["tabu_length"], settings["tabu_patience"])
    elif search == "multistart_tabu":
        _multistart_tabu(engine, recorder, settings)
    elif search == "annealing":
        _search.simulated_annealing(engine, recorder, budget,
                                    settings["temperature"], settings["cooling"], rng)
    else:
        _memetic.memetic_search(
            engine, recorder, population_size=settings["population_size"], n_generations=budget,
            perturbation=settings["perturbation"], local_search=search == "memetic", rng=rng,
            seeds=settings["seeds"], tabu=(settings["tabu_length"], settings["tabu_patience"]))
    if search != "hill_climb":
        _search.polish(engine, recorder,
                       np.iinfo(np.int64).max if search in ("memetic", "genetic") else budget)
    return engine.A.copy(), recorder


def _multistart_tabu(engine, recorder, settings):
    """Polished tabu search from the engine's graph, then from each seed graph (while the
    budget lasts), each followed by triangle -> v-structure moves and a new polished tabu
    search after each (:func:`skbn._engines._search.triangle_descent`); leave the engine at the best
    result (ties: the earliest)."""
    best_graph, best_score = None, -np.inf
    for k, seed in enumerate([None, *settings["seeds"]]):
        if k and recorder.budget.exhausted(engine):
            break
        if seed is not None:
            engine.set_graph(seed)
            recorder.record(engine)
        _search.tabu_triangle_climb(engine, recorder, settings["max_iter"], settings["tabu_length"],
                                    settings["tabu_patience"])
        if best_graph is None or _search.improves(engine.score, best_score):
            best_graph, best_score = engine.A.copy(), engine.score
    if not np.array_equal(engine.A, best_graph):
        engine.set_graph(best_graph)
        recorder.record(engine)
