"""Score-based local search over DAGs: hill climbing, tabu search, simulated annealing."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from skbn import _search
from skbn.estimators._base import _BaseStructureLearner, _edge_positions
from skbn.graph import _check_dag
from skbn.scores import resolve_scorer
from skbn.utils._sklearn_compat import Interval, StrOptions


class HillClimbStructure(_BaseStructureLearner):
    r"""Score-based structure learning by local search over DAGs.

    Starting from ``start`` (default: the empty graph), every step looks at all legal
    single-edge moves -- add ``i -> j``, remove it, reverse it -- and applies one. A legal
    move keeps the graph acyclic, respects ``max_indegree``, never adds a ``black_list``
    edge and never removes or reverses a ``white_list`` / ``fixed_edges`` edge. The score
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
      order and the first improving one is taken.

    Tabu, annealing and first-improvement results are polished by steepest ascent, so
    every result is a local optimum. With ``n_restarts > 0`` the result of the first
    search is perturbed by ``perturbation`` random legal moves and searched again, once
    per restart, perturbing the best graph found so far (bnlearn's ``restart`` and
    ``perturb``); the best graph wins.

    Determinism: moves are scanned in the order (parent index, child index, move) with
    moves ordered add, remove, reverse; the best delta is found and the first move in
    scan order within ``1e-10 * (1 + |score|)`` of it is taken, and only if it improves
    the score by more than that tolerance (the rule of :func:`skbn._search.improves`).
    Random choices use ``random_state``; the result is the same for any ``n_jobs`` and
    any ``PYTHONHASHSEED``.

    Parameters
    ----------
    scorer : str or BaseScore, default="bdeu"
        Decomposable score: "bdeu", "k2", "bic", "aic", "loglik" or a
        :class:`skbn.scores.BaseScore` (e.g. ``BDeu(ess=10)``). The log-likelihood needs
        ``max_indegree``.
    max_indegree : int or None, default=None
        Largest number of parents of any node.
    start : sequence of (parent, child) or None, default=None
        Starting DAG (column labels); required edges are added to it.
    white_list : sequence of (parent, child), default=()
        Edges that must be in the graph (bnlearn's whitelist): present from the start,
        never removed or reversed.
    fixed_edges : sequence of (parent, child), default=()
        Same as ``white_list`` (pgmpy's name); the two are merged.
    black_list : sequence of (parent, child), default=()
        Edges never added (the reverse direction stays allowed).
    search : {"hill_climb", "tabu", "annealing", "first_improvement"}, default="hill_climb"
        Search strategy (see above).
    tabu_length : int, default=10
        Number of recent graphs that are tabu.
    tabu_patience : int, default=10
        Tabu search stops after this many moves without improving the best score.
    temperature : float, default=10.0
        Initial temperature of simulated annealing, in score units.
    cooling : float, default=0.995
        Geometric cooling factor of simulated annealing.
    n_restarts : int, default=0
        Number of random restarts.
    perturbation : int, default=1
        Random legal moves applied at each restart.
    max_iter : int or None, default=None
        Largest number of moves of one search (None: no limit; for annealing, None means
        ``100 * n_variables`` proposals).
    random_state : int, RandomState instance or None, default=None
        Seeds restarts, annealing and first-improvement.
    n_jobs : int or None, default=None
        Accepted for API symmetry; the search runs in one process. Measured on ALARM:
        the per-step work is one or two count passes of a few milliseconds, too small to
        ship to workers, and restarts run in parallel processes lose the shared score cache
        (6 restarts at 100,000 rows: 1.25 s with 2 processes vs 0.99 s in one). Results
        never depend on it.
    verbose : int, default=0
        Print the score after every move.
    {common_parameters}

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
    trace_ : ndarray of shape (n_steps,)
        Score after every move: the start, then every move of the first search, then for
        each restart the perturbed graph's score and every move of that restart.
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
    >>> from skbn.estimators.hill_climb import HillClimbStructure
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
        "start": [None, list, tuple, np.ndarray],
        "white_list": [list, tuple, np.ndarray],
        "fixed_edges": [list, tuple, np.ndarray],
        "black_list": [list, tuple, np.ndarray],
        "search": [StrOptions({"hill_climb", "tabu", "annealing", "first_improvement"})],
        "tabu_length": [Interval(Integral, 0, None, closed="left")],
        "tabu_patience": [Interval(Integral, 1, None, closed="left")],
        "temperature": [Interval(Real, 0, None, closed="left")],
        "cooling": [Interval(Real, 0, 1, closed="right")],
        "n_restarts": [Interval(Integral, 0, None, closed="left")],
        "perturbation": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [None, Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        scorer="bdeu",
        max_indegree=None,
        start=None,
        white_list=(),
        fixed_edges=(),
        black_list=(),
        search="hill_climb",
        tabu_length=10,
        tabu_patience=10,
        temperature=10.0,
        cooling=0.995,
        n_restarts=0,
        perturbation=1,
        max_iter=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        categories="auto",
        handle_unknown="error",
        target=None,
        fit_parameters=True,
        parameter_estimator="bayes",
        parameter_ess=1.0,
    ):
        self.scorer = scorer
        self.max_indegree = max_indegree
        self.start = start
        self.white_list = white_list
        self.fixed_edges = fixed_edges
        self.black_list = black_list
        self.search = search
        self.tabu_length = tabu_length
        self.tabu_patience = tabu_patience
        self.temperature = temperature
        self.cooling = cooling
        self.n_restarts = n_restarts
        self.perturbation = perturbation
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.categories = categories
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess

    # ------------------------------------------------------------ constraints
    def _edge_matrix(self, data, edges, what):
        matrix = np.zeros((data.n_variables, data.n_variables), dtype=bool)
        for parent, child in _edge_positions(edges, data.names, what):
            matrix[parent, child] = True
        return matrix

    def _check_acyclic(self, data, matrix, what):
        edges = [(data.names[i], data.names[j]) for i, j in np.argwhere(matrix)]
        try:
            _check_dag(data.names, edges)
        except ValueError as error:
            raise ValueError(f"{what}: {error}.") from None

    def _constraints(self, data):
        p = data.n_variables
        required = self._edge_matrix(data, self.white_list, "white_list")
        required |= self._edge_matrix(data, self.fixed_edges, "fixed_edges")
        forbidden = self._edge_matrix(data, self.black_list, "black_list")
        both = np.argwhere(required & forbidden)
        if len(both):
            i, j = both[0]
            raise ValueError(
                f"Edge ({data.names[i]!r}, {data.names[j]!r}) is both required "
                "(white_list/fixed_edges) and in black_list."
            )
        self._check_acyclic(data, required, "white_list/fixed_edges")
        max_indegree = p if self.max_indegree is None else int(self.max_indegree)
        self._check_indegree(data, required, max_indegree, "white_list/fixed_edges")
        start = required.copy()
        if self.start is not None:
            given = self._edge_matrix(data, self.start, "start")
            bad = np.argwhere(given & forbidden)
            if len(bad):
                i, j = bad[0]
                raise ValueError(f"start edge ({data.names[i]!r}, {data.names[j]!r}) is in black_list.")
            self._check_acyclic(data, given, "start")
            start |= given
            self._check_acyclic(data, start, "start with the required edges added")
            self._check_indegree(data, start, max_indegree, "start")
        return required, forbidden, max_indegree, start

    @staticmethod
    def _check_indegree(data, matrix, max_indegree, what):
        indegree = matrix.sum(axis=0)
        if indegree.max(initial=0) > max_indegree:
            j = int(np.argmax(indegree))
            raise ValueError(
                f"{what} gives {data.names[j]!r} {int(indegree[j])} parents, more than "
                f"max_indegree={max_indegree}."
            )

    # ------------------------------------------------------------------ search
    def _learn_structure(self, data):
        self.scorer_ = resolve_scorer(self.scorer)
        required, forbidden, max_indegree, start = self._constraints(data)
        rng = check_random_state(self.random_state)
        engine = _search.DeltaEngine(data, self.scorer_, required, forbidden, max_indegree)
        settings = self._settings(data)
        graph, trace, n_moves = _run(engine, start, settings, rng, "")
        traces, total_moves = [trace], n_moves
        best_graph, best_score = graph, engine.score
        for r in range(self.n_restarts):
            # bnlearn's restarts: perturb the best graph so far, search again
            engine.set_graph(best_graph)
            _search.perturb(engine, self.perturbation, rng)
            graph, trace, n_moves = _run(engine, engine.A.copy(), settings, rng, f" restart {r + 1}")
            traces.append(trace)
            total_moves += n_moves
            if engine.score > best_score + _search.tolerance(best_score):
                best_graph, best_score = graph, engine.score
        engine.set_graph(best_graph)
        self.score_ = engine.score
        self.n_iter_ = total_moves
        self.trace_ = np.concatenate([np.asarray(t, dtype=float) for t in traces])
        if self.verbose:
            print(f"[HillClimbStructure] final score {self.score_:.6f} after {total_moves} moves")
        return [(int(i), int(j)) for i, j in np.argwhere(best_graph)]

    def _settings(self, data):
        max_iter = self.max_iter
        if max_iter is None:
            max_iter = 100 * data.n_variables if self.search == "annealing" else np.iinfo(np.int64).max
        return {
            "search": self.search,
            "max_iter": int(max_iter),
            "tabu_length": self.tabu_length,
            "tabu_patience": self.tabu_patience,
            "temperature": float(self.temperature),
            "cooling": float(self.cooling),
            "verbose": self.verbose,
            "names": data.names,
        }


def _run(engine, start_graph, settings, rng, label):
    """One search from ``start_graph``; returns (graph, trace, n_moves)."""
    engine.start(start_graph) if label == "" else engine.set_graph(start_graph)
    recorder = _search._Recorder(settings["verbose"], settings["names"], label)
    recorder.record(engine)
    budget = settings["max_iter"]
    search = settings["search"]
    if search == "hill_climb":
        _search.steepest_ascent(engine, recorder, budget)
    elif search == "first_improvement":
        _search.first_improvement(engine, recorder, budget, rng)
    elif search == "tabu":
        _search.tabu_search(engine, recorder, budget, settings["tabu_length"], settings["tabu_patience"])
    else:
        _search.simulated_annealing(engine, recorder, budget, settings["temperature"], settings["cooling"], rng)
    if search != "hill_climb":
        if recorder.trace[-1] != engine.score:  # returned to the best graph seen
            recorder.trace.append(engine.score)
        _search.steepest_ascent(engine, recorder, budget)
    return engine.A.copy(), recorder.trace, recorder.n_moves
