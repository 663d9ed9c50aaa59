"""The search strategies of :class:`~skbn.estimators.HillClimbStructure`, in one registry.

:data:`STRATEGIES` maps each value of the ``search`` parameter to a :class:`Strategy`:
how to run it on a :class:`~skbn._engines._search.DeltaEngine` and the rules the
estimator reads from it (default ``max_iter`` and ``tabu_patience``, whether it starts
from the Chow-Liu seed graph). It is the one list of strategies: the estimator's
``search`` constraint, the strategy list of its docstring and the command line's
``skbn learn --method`` choices are all read from it, so adding a strategy is one entry
here (a run function and its rules).

Importing this module loads neither numpy nor the engines (the command line lists the
names for ``skbn --help`` without importing the library): each run function imports
:mod:`skbn._engines._search` / :mod:`skbn._engines._memetic` when it is called.

Every run function has the signature ``run(engine, recorder, settings, rng, restart)``:
``engine`` is positioned at the start graph and ``recorder`` has recorded it;
``settings`` holds ``max_iter`` (resolved), ``tabu_length``, ``tabu_patience``
(resolved), ``temperature``, ``cooling``, ``population_size``, ``perturbation`` and,
for strategies with ``seeds``, ``seeds`` (the Chow-Liu seed graphs); ``restart`` is True
for a search started from a perturbed graph (``n_restarts``). It leaves the engine at its
result.
"""

import textwrap
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["MULTISTART_PATIENCE", "STRATEGIES", "UNLIMITED", "Strategy", "fill_strategy_list"]

#: "No limit" for a number of moves (the largest int64).
UNLIMITED = 2**63 - 1

#: Default ``tabu_patience`` of ``search="multistart_tabu"``: measured on the random
#: 100-node networks of ``benchmarks/bench_best.py`` (seeds 0-7), 20 instead of 10 raises
#: the score on 4 of 8 for 0-25 % more time, and changes nothing on ALARM and CHILD.
MULTISTART_PATIENCE = 20


@dataclass(frozen=True)
class Strategy:
    """One search strategy: how to run it, and the defaults the estimator takes from it.

    Attributes
    ----------
    run : callable
        ``run(engine, recorder, settings, rng, restart)`` (see the module docstring).
    description : str
        The docstring bullet of the strategy (reStructuredText, without the leading
        ``* "name": ``), shown in :class:`~skbn.estimators.HillClimbStructure`'s docstring.
    default_max_iter : callable
        ``default_max_iter(n_variables, population_size) -> int``: ``max_iter`` when the
        parameter is None.
    tabu_patience : int
        ``tabu_patience`` when the parameter is None (used by the strategies with tabu
        climbs).
    seeds : bool
        Whether the search starts a second climb (or population members) from the start
        graph plus the Chow-Liu tree (:func:`skbn._engines._memetic.chow_liu_seed`),
        passed as ``settings["seeds"]``.
    """

    run: Callable
    description: str
    default_max_iter: Callable = lambda n_variables, population_size: UNLIMITED
    tabu_patience: int = 10
    seeds: bool = False


# ------------------------------------------------------------------ run functions
def _hill_climb(engine, recorder, settings, rng, restart):
    from skbn._engines import _search

    _search.steepest_ascent(engine, recorder, settings["max_iter"])


def _tabu(engine, recorder, settings, rng, restart):
    from skbn._engines import _search

    _search.tabu_search(engine, recorder, settings["max_iter"], settings["tabu_length"],
                        settings["tabu_patience"])
    _search.polish(engine, recorder, settings["max_iter"])


def _multistart_tabu(engine, recorder, settings, rng, restart):
    """Polished tabu search from the engine's graph, then from each seed graph (while the
    budget lasts), each followed by triangle -> v-structure moves and a new polished tabu
    search after each (:func:`skbn._engines._search.tabu_triangle_climb`); leave the engine
    at the best result (ties: the earliest). A restart is one polished tabu search."""
    from skbn._engines import _search

    if restart:
        _tabu(engine, recorder, settings, rng, restart)
        return
    best_graph, best_score = None, None
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
    if (engine.A != best_graph).any():
        engine.set_graph(best_graph)
        recorder.record(engine)
    _search.polish(engine, recorder, settings["max_iter"])


def _annealing(engine, recorder, settings, rng, restart):
    from skbn._engines import _search

    _search.simulated_annealing(engine, recorder, settings["max_iter"], settings["temperature"],
                                settings["cooling"], rng)
    _search.polish(engine, recorder, settings["max_iter"])


def _first_improvement(engine, recorder, settings, rng, restart):
    from skbn._engines import _search

    _search.first_improvement(engine, recorder, settings["max_iter"], rng)
    _search.polish(engine, recorder, settings["max_iter"])


def _evolution(local_search):
    """Run function of the memetic (``local_search``) or genetic search: ``max_iter``
    generations, then an unlimited polish."""

    def run(engine, recorder, settings, rng, restart):
        from skbn._engines import _memetic, _search

        _memetic.memetic_search(
            engine, recorder, population_size=settings["population_size"],
            n_generations=settings["max_iter"], perturbation=settings["perturbation"],
            local_search=local_search, rng=rng, seeds=settings["seeds"],
            tabu=(settings["tabu_length"], settings["tabu_patience"]))
        _search.polish(engine, recorder, UNLIMITED)

    return run


def _generations(n_variables, population_size):
    return 10 * population_size


# ------------------------------------------------------------------ the registry
#: ``search`` value -> :class:`Strategy`, in the order the docstring and the command line
#: list them.
STRATEGIES = {
    "hill_climb": Strategy(
        _hill_climb,
        "steepest ascent, the best improving move until none improves;"),
    "tabu": Strategy(
        _tabu,
        "the best move whose resulting graph is not among the last ``tabu_length`` graphs, "
        "even if it lowers the score; stops after ``tabu_patience`` moves without beating the "
        "best graph seen, which is returned (bnlearn's ``tabu``);"),
    "multistart_tabu": Strategy(
        _multistart_tabu,
        "tabu search (as ``\"tabu\"``, with ``tabu_patience`` 20 by default: the same moves, "
        "searched further) from ``start``, then from ``start`` plus the Chow-Liu tree (the "
        "maximum mutual-information spanning tree, its edges inserted where the knowledge "
        "allows), sharing one score cache. Each climb ends with *triangle moves*: while "
        "replacing a triangle of the DAG by a v-structure (remove one of its edges, point the "
        "other two into the third node) raises the score, the best such move is taken and tabu "
        "search runs again (``triangle_descent`` in ``skbn/_engines/_search.py``; one edge at a time "
        "a climb cannot undo a v-structure it covered by a triangle). The better result wins "
        "(ties: the first). **The recommended setting when the score matters most**: on ALARM, "
        "CHILD and random 100-node networks it reaches a BDeu score at least that of hill "
        "climbing, tabu search, bnlearn's ``hc`` and ``tabu`` and pyAgrum's greedy search, in "
        "1.6-3.5 times the time of plain hill climbing (``docs/hill_climb.md``, "
        "``benchmarks/bench_best.py``);",
        tabu_patience=MULTISTART_PATIENCE, seeds=True),
    "annealing": Strategy(
        _annealing,
        "simulated annealing -- a uniformly random legal move is accepted with probability "
        ":math:`\\min(1, e^{\\Delta / T})`, :math:`T` starting at ``temperature`` and "
        "multiplied by ``cooling`` after every proposal;",
        default_max_iter=lambda n_variables, population_size: 100 * n_variables),
    "first_improvement": Strategy(
        _first_improvement,
        "opportunistic ascent -- legal moves are tried in random order and the first "
        "improving one is taken;"),
    "memetic": Strategy(
        _evolution(local_search=True),
        "a population of ``population_size`` local optima evolved for ``max_iter`` "
        "generations. The first two members are ``\"multistart_tabu\"``'s two optima (tabu "
        "search, then steepest ascent and triangle moves, from the start graph and from the "
        "Chow-Liu tree), the others steepest-ascent optima from random perturbations of the "
        "first; parents are picked by tournament, crossover exchanges whole parent sets (with "
        "cycle repair), mutation applies ``perturbation`` random legal moves, every child is "
        "climbed by steepest ascent, and replacement keeps the population diverse "
        "(``skbn/_engines/_memetic.py``);",
        default_max_iter=_generations, tabu_patience=MULTISTART_PATIENCE, seeds=True),
    "genetic": Strategy(
        _evolution(local_search=False),
        "the same without any local search (no tabu, no steepest ascent: the members are the "
        "start graph, the Chow-Liu tree and their random variations, only the final result "
        "is polished).",
        default_max_iter=_generations, seeds=True),
}


def fill_strategy_list(docstring):
    """Replace the ``{search_strategies}`` line of ``docstring`` by the bullet list of
    :data:`STRATEGIES` (name and description, wrapped to 92 columns, indented like the
    placeholder); ``None`` (``python -OO``) is returned as is."""
    if not docstring:
        return docstring
    lines = docstring.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "{search_strategies}":
            indent = line[: len(line) - len(line.lstrip())]
            lines[i] = "\n".join(
                textwrap.fill(f'``"{name}"``: {strategy.description}', width=92,
                              initial_indent=f"{indent}* ", subsequent_indent=f"{indent}  ",
                              break_long_words=False, break_on_hyphens=False)
                for name, strategy in STRATEGIES.items())
    return "\n".join(lines)
