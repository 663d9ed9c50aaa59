"""Memetic and genetic search over DAGs (engine of ``HillClimbStructure(search="memetic")``).

A memetic algorithm (Moscato 1989) is a genetic algorithm whose offspring are improved by
local search before they compete. Here an individual is a DAG satisfying the background
knowledge, its fitness the decomposable score, and the local search the steepest ascent of
:mod:`skbn._engines._search`, sharing one :class:`~skbn._engines._search.DeltaEngine` (so one cache of toggle
columns and family scores) with every other individual.

* **Initial population**: the optimum of a tabu search (then steepest ascent, then the
  triangle -> v-structure moves of :func:`skbn._engines._search.triangle_descent`, each followed by
  the same climb) from the start graph, the same from a Chow-Liu tree (the maximum
  mutual-information spanning tree, inserted edge by edge where the constraints allow) --
  the two results of ``search="multistart_tabu"``, so the population starts at least as
  high as that search -- then steepest-ascent optima reached from random perturbations of
  the first member (``perturbation`` random legal moves, more for later members), duplicates
  rejected, until ``population_size`` members. The deeper tabu climb is spent on the two
  seeds only: every later individual gets the cheaper steepest ascent, so most of the
  budget goes to evolution.
* **Selection**: two binary tournaments (the better of two random members, ties to the
  lower index).
* **Crossover** exchanges whole parent sets, the unit of a decomposable score (as in the
  parent-set crossovers of Larranaga et al. 1996): the child starts as the first parent
  and, in a random node order, takes the second parent's parent set of each node with
  probability 1/2 -- unless that would close a cycle (the node reaches one of the new
  parents) or lose a two-way white-listed adjacency; that exchange is then skipped (the
  repair). Parent sets come from valid graphs, so the child keeps every required edge,
  no forbidden edge and the in-degree bound.
* **Mutation**: ``perturbation`` uniformly random legal moves.
* **Local search** (``memetic`` only): steepest ascent. ``genetic`` has no local step at
  all (no tabu climb of the seeds either): its members are the start graph, the Chow-Liu
  tree and their random variations as they are.
* **Replacement keeps diversity** (deterministic crowding, Mahfoud 1995): a child equal to
  a member is dropped; otherwise it replaces, among the members it beats, the one nearest
  to it in Hamming distance of adjacency matrices (ties: the worse, then the first).

The best graph seen is returned, so the result is never worse than the tabu optimum
reached from the start graph, nor (when the budget allows the second climb) than the one
reached from the Chow-Liu tree, nor than the start itself when the budget stops the first
climb. Every random choice draws from ``rng`` in a fixed order, so a result stopped by
generations or ``max_evaluations`` is deterministic.

References
----------
P. Moscato (1989), "On evolution, search, optimization, genetic algorithms and martial
arts: towards memetic algorithms", Caltech Concurrent Computation Program report 826.
P. Larranaga, M. Poza, Y. Yurramendi, R. Murga and C. Kuijpers (1996), "Structure learning
of Bayesian networks by genetic algorithms: a performance analysis of control parameters",
IEEE TPAMI 18(9).
S. W. Mahfoud (1995), "Niching methods for genetic algorithms", PhD thesis, University of
Illinois.
"""

import numpy as np

from skbn._dag import maximum_spanning_tree, reaches_any
from skbn._engines._local_scores import pairwise_mutual_information
from skbn._engines._search import graph_key, improves, perturb, steepest_ascent, tabu_triangle_climb

__all__ = ["memetic_search"]


class _Member:
    __slots__ = ("graph", "score", "key")

    def __init__(self, graph, score):
        self.graph = graph
        self.score = score
        self.key = graph_key(graph)


def memetic_search(engine, recorder, *, population_size, n_generations, perturbation,
                   local_search, rng, seeds=(), tabu=None):
    """Evolve a population from the engine's current graph; leave the engine at the best.

    Parameters
    ----------
    engine : skbn._engines._search.DeltaEngine
        Positioned at the start graph.
    recorder : skbn._engines._search._Recorder
        Receives every move of the local searches and the score of every child; its
        ``budget`` stops the search.
    population_size, n_generations, perturbation : int
    local_search : bool
        True for the memetic algorithm, False for the plain genetic algorithm.
    rng : numpy.random.RandomState
    seeds : sequence of ndarray of shape (p, p), bool
        Extra starting graphs (legal DAGs), e.g. a Chow-Liu tree.
    tabu : (int, int) or None
        ``(tabu_length, patience)``: the start graph and the ``seeds`` are climbed by tabu
        search then steepest ascent, then triangle moves
        (:func:`skbn._engines._search.tabu_triangle_climb`), instead of steepest ascent alone
        (memetic only; ignored when ``local_search`` is False).

    Returns
    -------
    n_generations : int
        Generations run.
    """
    budget = recorder.budget
    unlimited = np.iinfo(np.int64).max

    def settle(deep=False):
        """Local optimum from the engine's graph (memetic; ``deep``: tabu search first), as
        a member."""
        if local_search and deep and tabu is not None:
            tabu_triangle_climb(engine, recorder, unlimited, *tabu)
        elif local_search:
            steepest_ascent(engine, recorder, unlimited)
        return _Member(engine.A.copy(), engine.score)

    population = [settle(deep=True)]
    best = population[0]
    keys = {best.key}

    def admit(member):
        nonlocal best
        if member.key not in keys:
            population.append(member)
            keys.add(member.key)
        if improves(member.score, best.score):
            best = member

    for seed in seeds:
        if budget.exhausted(engine) or len(population) >= population_size:
            break
        engine.set_graph(seed)
        recorder.record(engine)
        admit(settle(deep=True))
    attempt = 0
    while len(population) < population_size and attempt < 3 * population_size:
        if budget.exhausted(engine):
            break
        attempt += 1
        engine.set_graph(population[0].graph)
        perturb(engine, perturbation * (1 + attempt), rng)
        recorder.record(engine)
        admit(settle())

    generation = 0
    while generation < n_generations and not budget.exhausted(engine):
        generation += 1
        first = _tournament(population, rng)
        if len(population) > 1:
            second = _tournament(population, rng, exclude=first)
            child = _crossover(population[first].graph, population[second].graph,
                               engine.required, rng)
        else:
            child = population[first].graph
        engine.set_graph(child)
        perturb(engine, perturbation, rng)
        recorder.record(engine)
        member = settle()
        if improves(member.score, best.score):
            best = member
        _replace(population, keys, member)
        recorder.progress.update(recorder.progress.done, generation=f"{generation}/{n_generations}",
                                 best_score=best.score)
    engine.set_graph(best.graph)
    return generation


def _tournament(population, rng, exclude=None):
    """Index of the better of two random members (ties: the lower index)."""
    candidates = [i for i in range(len(population)) if i != exclude]
    a, b = (candidates[k] for k in rng.randint(len(candidates), size=2))
    a, b = min(a, b), max(a, b)
    return b if improves(population[b].score, population[a].score) else a


def _crossover(first, second, required, rng):
    """Uniform crossover of parent sets with cycle repair (see the module docstring)."""
    child = first.copy()
    p = child.shape[0]
    take = rng.random_sample(p) < 0.5
    for j in rng.permutation(p).tolist():
        if not take[j] or np.array_equal(child[:, j], second[:, j]):
            continue
        added = second[:, j] & ~child[:, j]
        if added.any() and reaches_any(child, j, added):
            continue  # closes a cycle: keep the current parent set
        dropped = np.flatnonzero(child[:, j] & ~second[:, j])
        if any(required[k, j] and not child[j, k] for k in dropped.tolist()):
            continue  # a two-way required adjacency would be lost
        child[:, j] = second[:, j]
    return child


def _replace(population, keys, member):
    """Deterministic crowding: replace the nearest member the child beats."""
    if member.key in keys:
        return
    nearest, nearest_distance = None, None
    for i, other in enumerate(population):
        if not improves(member.score, other.score):
            continue
        distance = int(np.count_nonzero(other.graph != member.graph))
        if (nearest is None or distance < nearest_distance
                or (distance == nearest_distance and other.score < population[nearest].score)):
            nearest, nearest_distance = i, distance
    if nearest is not None:
        keys.discard(population[nearest].key)
        population[nearest] = member
        keys.add(member.key)


def chow_liu_seed(data, start, forbidden, max_indegree, counter=None):
    """``start`` plus the edges of the Chow-Liu tree that the constraints allow.

    The tree is the maximum spanning tree of the pairwise mutual informations, oriented
    away from the first variable (:func:`skbn._dag.maximum_spanning_tree` of
    :func:`skbn._engines._local_scores.pairwise_mutual_information`);
    its edges are inserted by decreasing mutual information, each in the tree's direction
    or else reversed, when that keeps the graph acyclic, within ``max_indegree`` and off
    the ``black_list`` (``forbidden``). ``counter``: the search's
    :class:`~skbn._counting.FamilyCounter`, whose Gram matrix and pair tables the mutual
    informations are read from, so the data are not counted again.
    """
    p = data.n_variables
    weights = pairwise_mutual_information(data, list(range(p)), counter=counter)
    tree = maximum_spanning_tree(weights, 0)
    graph = start.copy()
    indegree = graph.sum(axis=0)
    acyclic = not start.any()  # every orientation of a forest is acyclic
    for u, v in sorted(tree, key=lambda e: (-weights[e[0], e[1]], e)):
        if graph[u, v] or graph[v, u]:
            continue
        for a, b in ((u, v), (v, u)):
            if forbidden[a, b] or indegree[b] >= max_indegree:
                continue
            target = np.zeros(p, dtype=bool)
            target[a] = True
            if not acyclic and reaches_any(graph, b, target):
                continue
            graph[a, b] = True
            indegree[b] += 1
            break
    return graph
