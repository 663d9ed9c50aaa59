"""Bayesian model averaging over DAGs by Markov chain Monte Carlo over node orders
(Friedman & Koller 2003)."""

import math
from collections import Counter
from numbers import Integral

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from skbn._dag import transitive_closure
from skbn._data import name_ranks
from skbn._engines._search import improves
from skbn._engines._subsets import (
    check_finite_dags,
    count_parent_sets,
    drop_bit,
    local_score_table,
    log_subset_sums,
    parent_set_scores,
)
from skbn.estimators._base import _BaseStructureLearner, _edge_positions, _labelled
from skbn.utils._progress import Progress, amount, format_duration
from skbn.utils._sklearn_compat import Interval
from skbn.utils._warnings import warn_user

__all__ = ["CONVERGENCE_THRESHOLD", "OrderMCMCStructure"]

#: A chain tells its ``progress`` how far it is every this many iterations.
_REPORT_EVERY = 500

#: ``fit`` warns (``ConvergenceWarning``) when two chains' edge posteriors differ by more.
CONVERGENCE_THRESHOLD = 0.1

#: Up to this many variables the order score is looked up in dense subset-sum tables
#: (``8 p 2^(p-1)`` bytes: 10 MB for 18 variables) instead of scanning parent sets.
_TABLE_MAX_VARIABLES = 18


_WORD = (1 << 64) - 1


def _words(mask, n_words):
    """A Python-int bitmask as ``n_words`` uint64 words (lowest bits first)."""
    return np.array([(mask >> (64 * i)) & _WORD for i in range(n_words)], dtype=np.uint64)


def _set_masks(rows, n_words):
    """Bitmask words of parent sets given as padded member rows: shape (n_words, n_sets)."""
    masks = np.zeros((n_words, len(rows)), dtype=np.uint64)
    for w in range(n_words):
        local = rows - 64 * w
        inside = (rows >= 0) & (local >= 0) & (local < 64)
        bits = np.left_shift(np.uint64(1), np.where(inside, local, 0).astype(np.uint64))
        masks[w] = np.bitwise_or.reduce(np.where(inside, bits, np.uint64(0)), axis=1)
    return masks


class _OrderScorer:
    """Log score of a node order, :math:`\\sum_i \\log \\sum_{S \\prec i} \\exp s_i(S)`,
    one node's term at a time, by scanning the node's parent sets.

    Parent sets are bitmasks in 64-bit words; ``prefix[i]`` is the bitmask of the first
    ``i`` nodes of the order, so a set is consistent with the order when it has no bit
    outside its child's prefix.
    """

    def __init__(self, parents, scores, order):
        p = len(order)
        self.n_words = max(1, -(-p // 64))
        # padding -1 -> p, a column of zeros in the edge counts
        self.members = [np.where(rows < 0, p, rows) for rows in parents]
        self.masks = [_set_masks(rows, self.n_words) for rows in parents]
        self.scores = scores
        self.position = np.empty(p, dtype=np.int64)
        self.position[order] = np.arange(p)
        self.prefix = [0] * (p + 1)
        self.accept(order, 0, p - 1)

    def _consistent(self, node, predecessors):
        outside = ~_words(predecessors, self.n_words)
        masks = self.masks[node]
        if self.n_words == 1:
            return (masks[0] & outside[0]) == 0
        return ~((masks & outside[:, None]) != 0).any(axis=0)

    def consistent(self, node):
        """Which parent sets of ``node`` lie among its predecessors."""
        return self._consistent(node, self.prefix[self.position[node]])

    def term(self, node, predecessors):
        values = self.scores[node][self._consistent(node, predecessors)]
        top = values.max()
        return top + math.log(np.exp(values - top).sum())

    def block_terms(self, order, first, last):
        """Terms of the nodes at positions ``first..last`` of ``order``."""
        mask, values = self.prefix[first], []
        for v in order[first:last + 1]:
            v = int(v)
            values.append(self.term(v, mask))
            mask |= 1 << v
        return values

    def accept(self, order, first, last):
        """The order changed at positions ``first..last`` and the change was kept."""
        mask = self.prefix[first]
        for i in range(first, last + 1):
            mask |= 1 << int(order[i])
            self.prefix[i + 1] = mask


class _TableOrderScorer(_OrderScorer):
    """The same order score by table look-up, for few variables: ``log_alpha[v][S]`` is
    :math:`\\log \\sum_{T \\subseteq S} \\exp s_v(T)` for every predecessor set ``S``
    (bit ``v`` squeezed out; :func:`skbn._engines._subsets.log_subset_sums`)."""

    def __init__(self, parents, scores, order, log_alpha):
        super().__init__(parents, scores, order)
        self.log_alpha = log_alpha

    def term(self, node, predecessors):
        return self.log_alpha[node][drop_bit(predecessors, node)]


def _edge_list(parents, choice):
    """The sorted ``(parent, child)`` positions of the DAG whose node ``v`` has the parent set
    ``parents[v][choice[v]]`` (padding ``-1`` left out): a sampled or best DAG, and the key
    of the tie rule."""
    return sorted((int(u), v) for v, row in enumerate(choice) for u in parents[v][row] if u >= 0)


def _better_dag(score, choice, best_score, best_choice, parents):
    """Whether the DAG ``(score, choice)`` replaces the best so far: a higher score beyond the
    searches' relative tie tolerance (:func:`~skbn._engines._search.improves`), or a tie
    within it and a smaller sorted edge list (positions of the columns in name order), so
    that which tied DAG wins does not depend on the order the chains meet them in."""
    if best_choice is None or improves(score, best_score):
        return True
    return not improves(best_score, score) and _edge_list(parents, choice) < _edge_list(parents, best_choice)


def _run_chain(parents, scores, log_alpha, n_variables, n_iter, burn_in, thin, seed, progress=None,
               offset=None, chain=1):
    """One chain of order MCMC. Returns its trace, Rao-Blackwellised edge posterior, DAG
    samples (parent-set row per node), best DAG seen and acceptance rate.

    ``progress`` (a :class:`skbn.utils._progress.Progress`, or None) hears of the
    iterations every :data:`_REPORT_EVERY`: counted from ``offset`` when the chains run one
    after the other in this process, or, with ``offset=None`` (a worker's copy), as a stage
    of its own named after the ``chain`` number.

    Proposals, each with probability 1/3: a transposition of two adjacent nodes (two terms
    change); a swap of two uniformly chosen nodes; a transposition of two adjacent blocks
    (positions ``a < b`` as for a swap and a cut uniformly among the ``b - a`` places in
    between: ``[a..m][m+1..b] -> [m+1..b][a..m]``, whose reverse move has the same
    probability). In the last two every node between ``a`` and ``b`` changes its term. All
    are symmetric, so the acceptance ratio is the ratio of order scores. All random numbers
    are drawn up front from the chain's own seed.

    On two nodes all three are the one transposition, and a score-equivalent score gives
    both orders the same score, so every proposal was accepted: a chain of period 2 whose
    kept orders (every ``thin``-th, ``thin`` even) were all the same order. There the block
    move proposes the order itself instead (a lazy chain, aperiodic; counted as accepted).
    From three nodes a block move can be an even permutation, so the chain is aperiodic.
    """
    rng = np.random.default_rng(seed)
    p = n_variables
    order = rng.permutation(p)
    if log_alpha is None:
        scorer = _OrderScorer(parents, scores, order)
    else:
        scorer = _TableOrderScorer(parents, scores, order, log_alpha)
    position = scorer.position
    terms = np.zeros(p)  # terms[v]: node v's log sum over its consistent parent sets
    if p:
        terms[order] = scorer.block_terms(order, 0, p - 1)
    trace = np.empty(n_iter)
    edge_sum = np.zeros((p, p))
    samples = []
    best_score, best_choice = -np.inf, None
    accepted = 0
    if p > 1:
        kind = rng.integers(0, 3, n_iter)  # 0 adjacent, 1 swap of two nodes, 2 block move
        adjacent = kind == 0
        first = np.where(adjacent, rng.integers(0, p - 1, n_iter), rng.integers(0, p, n_iter))
        second = rng.integers(0, p - 1, n_iter)
        second = np.where(adjacent, first + 1, second + (second >= first))
        low, high = np.minimum(first, second), np.maximum(first, second)
        cut = low + (rng.random(n_iter) * (high - low)).astype(np.int64)  # last of block 1
        log_u = np.log(rng.random(n_iter))
    draws = rng.random((max(n_iter - burn_in, 0) // thin + 1, p))
    total = float(terms.sum())
    report = progress is not None and progress.enabled
    if report and offset is None:
        progress.stage(f"chain {chain}", total=n_iter)
    for it in range(n_iter):
        if report and it and it % _REPORT_EVERY == 0:
            progress.update(it if offset is None else offset + it, acceptance=accepted / max(it, 1))
        if p == 2 and kind[it] == 2:  # (two nodes: the block move proposes the order itself)
            accepted += 1
        elif p > 1:
            a, b = int(low[it]), int(high[it])
            old = order[a:b + 1].copy()
            if kind[it] == 2:
                m = int(cut[it]) - a + 1
                new = np.concatenate([old[m:], old[:m]])
            else:
                new = old.copy()
                new[0], new[-1] = old[-1], old[0]
            order[a:b + 1] = new
            position[new] = np.arange(a, b + 1)
            new_terms = scorer.block_terms(order, a, b)
            delta = math.fsum(new_terms) - math.fsum(terms[new])
            if delta >= 0 or log_u[it] < delta:
                terms[new] = new_terms
                scorer.accept(order, a, b)
                total = float(terms.sum())
                accepted += 1
            else:
                order[a:b + 1] = old
                position[old] = np.arange(a, b + 1)
        trace[it] = total
        if it >= burn_in and (it - burn_in) % thin == 0:
            u = draws[len(samples)]
            choice = np.empty(p, dtype=np.int64)
            map_choice = np.empty(p, dtype=np.int64)
            map_score = 0.0
            for v in range(p):
                where = np.flatnonzero(scorer.consistent(v))
                values = scores[v][where]
                weights = np.exp(values - values.max())
                weights /= weights.sum()
                members = scorer.members[v][where]
                edge_sum[:, v] += np.bincount(members.ravel(), np.repeat(weights, members.shape[1]),
                                              minlength=p + 1)[:p]
                pick = np.searchsorted(np.cumsum(weights), u[v] * weights.sum(), side="right")
                choice[v] = where[min(pick, len(where) - 1)]
                top = int(np.argmax(values))  # first maximum: lowest parent-set index
                map_choice[v] = where[top]
                map_score += values[top]
            samples.append(choice)
            if _better_dag(map_score, map_choice, best_score, best_choice, parents):
                best_score, best_choice = map_score, map_choice
    n_kept = len(samples)
    return {
        "trace": trace,
        "edge_posterior": edge_sum / max(n_kept, 1),
        "samples": np.array(samples, dtype=np.int64).reshape(n_kept, p),
        "best_score": best_score,
        "best_choice": best_choice,
        "acceptance": accepted / max(n_iter, 1),
    }


def _ancestor_frequencies(dags, n_variables):
    """Fraction of ``dags`` (lists of position pairs) with a directed path ``u -> ... -> v``:
    each distinct DAG's reachability from the graph kernel (its transitive closure)."""
    total = np.zeros((n_variables, n_variables))
    for dag, count in Counter(dags).items():
        adjacency = np.zeros((n_variables, n_variables), dtype=bool)
        for u, v in dag:
            adjacency[u, v] = True
        total += count * transitive_closure(adjacency)
    return total / max(len(dags), 1)


class OrderMCMCStructure(_BaseStructureLearner):
    r"""Bayesian model averaging over DAGs by MCMC over node orders (Friedman & Koller 2003).

    Model: a decomposable Bayesian score :math:`s_i(\mathrm{pa}_i)` (BDeu or K2: the log
    marginal likelihood of the family; ``edge_penalty`` adds a log structure prior per
    edge), parent sets of at most ``max_indegree`` variables, optionally restricted to
    ``candidate_parents`` (e.g. a skeleton learned by :class:`PCStructure`). The local
    score of every allowed family is computed once (one weighted count per parent set for
    all children, see :func:`skbn.posterior.parent_set_scores`). Given an order
    :math:`\prec` the DAGs consistent with it factorise, so the order's score is

    .. math::
        \log P(D, \prec) = \sum_i \log \sum_{S \subseteq \{j \prec i\},\ |S| \le k}
        \exp s_i(S) + \text{const}.

    A Metropolis-Hastings chain over orders proposes, with probability 1/3 each, to
    transpose two adjacent nodes, to swap two uniformly chosen nodes, or to transpose two
    adjacent blocks of nodes (all symmetric proposals; only the nodes between the two ends
    change their term; on two nodes, where the three are one transposition, the block move
    proposes the order itself, so that the chain is aperiodic) and accepts with probability
    :math:`\min(1, P(D, \prec') / P(D, \prec))`. After ``burn_in`` iterations, every
    ``thin``-th order is kept: its exact edge probabilities given the order (a
    Rao-Blackwellised estimate: per child, the posterior weight of the parent
    sets containing ``u``) are averaged into ``edge_posterior_``, and one DAG is drawn
    from it (each node's parent set sampled given the order) into ``dag_samples_``.
    ``n_chains`` chains start from random orders and run in parallel (joblib); their seeds
    are drawn up front from ``random_state``, so results do not depend on ``n_jobs``.

    ``edges_`` is the best DAG met (highest score among the kept orders' best DAGs; among
    scores within the searches' relative tie tolerance of ``1e-10``, such as the equal
    scores of Markov-equivalent DAGs under a score-equivalent score, the one with the
    smallest sorted edge list, the columns numbered in name order, whichever chain met it
    first: rounding never decides, so chunked and in-memory data agree); its
    CPTs serve ``sample``. ``score_samples`` and ``score`` are the model-averaged predictive
    density :math:`\log \frac{1}{M} \sum_m p(x \mid G_m, D)` over the sampled DAGs, each
    with Bayesian (posterior-mean) CPTs, and ``predict_proba`` its conditional,
    :math:`\sum_m p(x, y \mid G_m, D) / \sum_m p(x \mid G_m, D)` (the base class's
    model-averaged density, from the sampled DAGs this learner provides).

    Bias: the prior implied by sampling orders is *order-modular*: a DAG's prior weight is
    proportional to its number of linear extensions (orders it is consistent with), not
    uniform over DAGs, so e.g. sparse and chain-like structures are favoured differently
    than under a uniform DAG prior. Partition MCMC (Kuipers & Moffa 2017) removes this
    bias; :func:`skbn.posterior.edge_posteriors` gives the exact order-modular answer for
    up to about 20 variables, which this sampler converges to.

    Parameters
    ----------
    scorer : str or BaseScore, default="auto"
        "auto" is "bdeu" on discrete data, "bge" on continuous data and "bic-cg" on
        mixed data (``scorer_`` holds the one used; see ``docs/gaussian.md``).
        "bdeu", "k2" or a score object (BIC / AIC give a BIC approximation).
    max_indegree : int, default=3
        Largest parent set; with ``candidate_parents`` it bounds the number of families.
    candidate_parents : list of (u, v) pairs or None, default=None
        Skeleton edges (column labels): ``u`` and ``v`` may be adjacent, in either
        direction. ``None``: every pair.
    n_iter : int, default=100_000
        Iterations (proposals) per chain. The defaults (with ``burn_in`` and ``thin``) are
        within 0.05 of the exact edge posteriors (:func:`skbn.posterior.edge_posteriors`) on
        every 8-20 variable benchmark of ``docs/averaging.md`` (5,000 iterations, the
        former default, were up to 0.18 off); peaked posteriors on more variables may need
        more, which the convergence warning says.
    burn_in : int or None, default=None
        Iterations discarded at the start of each chain; None: ``n_iter // 5``.
    thin : int or None, default=None
        Keep every ``thin``-th order after burn-in; None: 1,000 kept orders per chain,
        ``max(1, (n_iter - burn_in) // 1000)`` (the Rao-Blackwellised edge probabilities
        and DAG draw of a kept order cost more than an iteration).
    n_chains : int, default=2
        Independent chains, for the convergence diagnostic: when two chains' edge
        posteriors differ by more than ``CONVERGENCE_THRESHOLD`` (0.1) ``fit`` issues a
        ``ConvergenceWarning`` suggesting a longer ``n_iter``. With one chain there is
        nothing to compare: ``convergence_`` is NaN and ``fit`` warns (``UserWarning``)
        that convergence was not diagnosed.
    max_parent_sets : int, default=2_000_000
        Refuse (``ValueError``) when more families than this would be scored.
    n_jobs : int or None, default=None
        Chains run in parallel with joblib, and the local scores of discrete children in
        blocks of parent sets; results are identical for any value.
    random_state : int, RandomState or None, default=None
        Seeds the chains (one seed per chain, drawn up front) and so every proposal and
        acceptance draw.
    {verbose_parameter}
    {common_parameters}

    Attributes
    ----------
    edges_ : list of (parent, child)
        Best DAG met.
    score_ : float
        Its score.
    edge_posterior_ : DataFrame of shape (n_nodes, n_nodes)
        ``edge_posterior_.loc[u, v]`` = posterior probability of ``u -> v``.
    chain_edge_posteriors_ : ndarray of shape (n_chains, n_nodes, n_nodes)
    convergence_ : float
        Largest difference between two chains' edge posteriors (NaN with one chain, which
        has nothing to compare with: not measured, and ``fit`` warns so); above
        0.1 ``fit`` warns that the chains have not converged. Agreeing chains are no proof
        of convergence (both may miss the same mode), but disagreeing ones prove the
        opposite.
    trace_ : ndarray of shape (n_chains, n_iter)
        Log order score after every iteration.
    acceptance_rate_ : ndarray of shape (n_chains,)
    dag_samples_ : list of list of (parent, child)
        One DAG per kept order, chain after chain.
    ancestor_posterior_ : DataFrame of shape (n_nodes, n_nodes)
        ``ancestor_posterior_.loc[u, v]`` = fraction of the sampled DAGs with a directed path
        ``u -> ... -> v`` (a Monte Carlo estimate of the path feature's posterior).
    n_families_ : int
        Number of local scores computed.
    {interventional_cpdag_attribute}
    averaged_networks_ : list of networks
        The distinct sampled DAGs, each with its parameters, in order of first draw: the
        model average of ``score_samples`` and ``predict_proba``.
    averaged_weights_ : ndarray of shape (n_networks,)
        Their shares of the kept draws.
    network_
        The network of ``edges_``.
    scorer_ : BaseScore
        The resolved score object.
    {common_attributes}

    References
    ----------
    N. Friedman and D. Koller, "Being Bayesian about network structure: a Bayesian
    approach to structure discovery in Bayesian networks", Machine Learning 50, 2003.

    J. Kuipers and G. Moffa, "Partition MCMC for inference on acyclic digraphs",
    JASA 112, 2017.

    Examples
    --------
    >>> from skbn import OrderMCMCStructure
    >>> from skbn.datasets import sample_asia
    >>> X = sample_asia(2000, random_state=0)
    >>> model = OrderMCMCStructure(n_iter=10_000, random_state=0).fit(X)
    >>> model.convergence_ < 0.1  # the two chains agree (else fit warns)
    True
    >>> # smoke and lung adjacent (either direction); exactly 0.922 (skbn.posterior.edge_posteriors)
    >>> posterior = model.edge_posterior_
    >>> round(float(posterior.loc["smoke", "lung"] + posterior.loc["lung", "smoke"]), 2)
    0.92
    """

    _parameter_constraints = {
        **_BaseStructureLearner._parameter_constraints,
        "scorer": "no_validation",
        "max_indegree": [Interval(Integral, 0, None, closed="left")],
        "candidate_parents": [None, list, tuple, np.ndarray],
        "n_iter": [Interval(Integral, 1, None, closed="left")],
        "burn_in": [None, Interval(Integral, 0, None, closed="left")],
        "thin": [None, Interval(Integral, 1, None, closed="left")],
        "n_chains": [Interval(Integral, 1, None, closed="left")],
        "max_parent_sets": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [None, Integral],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }
    _plugins = ("scorer",)
    _auto_plugins = {"scorer": ("bdeu", "bge", "bic-cg")}
    _knowledge = ("max_indegree",)
    _bounded_score = True
    _continuous = True
    _interventions = True

    def __init__(
        self,
        *,
        scorer="auto",
        max_indegree=3,
        candidate_parents=None,
        n_iter=100_000,
        burn_in=None,
        thin=None,
        n_chains=2,
        max_parent_sets=2_000_000,
        n_jobs=None,
        random_state=None,
        verbose=0,
        categories="auto",
        column_types="auto",
        handle_unknown="warn",
        target=None,
        fit_parameters=True,
        parameter_estimator="bayes",
        parameter_ess=1.0,
    ):
        self.scorer = scorer
        self.max_indegree = max_indegree
        self.candidate_parents = candidate_parents
        self.n_iter = n_iter
        self.burn_in = burn_in
        self.thin = thin
        self.n_chains = n_chains
        self.max_parent_sets = max_parent_sets
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.categories = categories
        self.column_types = column_types
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess

    def _candidates(self, data):
        if self.candidate_parents is None:
            return None
        candidates = [set() for _ in range(data.n_variables)]
        for u, v in _edge_positions(_labelled(self.candidate_parents, data), data.names, "candidate_parents"):
            candidates[v].add(u)
            candidates[u].add(v)
        return [sorted(c) for c in candidates]

    def _learn_structure(self, data, knowledge, *, start=None, counter=None):
        if self.burn_in is not None and self.burn_in >= self.n_iter:
            raise ValueError(
                f"burn_in={self.burn_in} leaves no iteration to keep out of n_iter={self.n_iter}; "
                f"make burn_in smaller than n_iter."
            )
        burn_in = self.n_iter // 5 if self.burn_in is None else self.burn_in
        thin = max(1, (self.n_iter - burn_in) // 1000) if self.thin is None else self.thin
        rng = check_random_state(self.random_state)
        p = data.n_variables
        candidates = self._candidates(data)
        n_families = count_parent_sets(p, self.max_indegree, candidates)
        if n_families > self.max_parent_sets:
            raise ValueError(
                f"OrderMCMCStructure would score {n_families} parent sets for {p} variables with "
                f"max_indegree={self.max_indegree}, more than max_parent_sets={self.max_parent_sets}; "
                f"lower max_indegree, restrict candidate_parents (e.g. to a PC skeleton) or raise "
                f"max_parent_sets."
            )
        sequential = effective_n_jobs(self.n_jobs) == 1 or self.n_chains == 1
        progress = Progress(
            self.verbose, "OrderMCMCStructure", unit="iteration",
            total=self.n_iter * self.n_chains if sequential else self.n_iter,
            detail=f"{amount(p, 'column')}, {amount(n_families, 'family', 'families')}, "
                   f"{amount(self.n_chains, 'chain')} x {amount(self.n_iter, 'iteration')}")
        families = parent_set_scores(data, self.scorer_, self.max_indegree, candidates, self.n_jobs)
        self.n_families_ = families.n_families
        check_finite_dags([s.max(initial=-np.inf) for s in families.scores], data.names, self.scorer_)
        progress.message(f"{self.n_families_:,} local scores in {format_duration(progress.elapsed())}")
        log_alpha = None
        if p <= _TABLE_MAX_VARIABLES:  # order terms by look-up: much faster per iteration
            log_alpha = log_subset_sums(local_score_table(families))
        seeds = rng.randint(np.iinfo(np.int32).max, size=self.n_chains)
        # chains one after the other share the reporter (one count over all chains);
        # a worker reports on its own chain from its copy
        chains = Parallel(n_jobs=self.n_jobs)(
            delayed(_run_chain)(families.parents, families.scores, log_alpha, p, self.n_iter, burn_in,
                                thin, int(seed), progress, k * self.n_iter if sequential else None, k + 1)
            for k, seed in enumerate(seeds)
        )
        names = list(data.names)
        self.trace_ = np.array([c["trace"] for c in chains])
        self.acceptance_rate_ = np.array([c["acceptance"] for c in chains])
        self.chain_edge_posteriors_ = np.array([c["edge_posterior"] for c in chains])
        mean = self.chain_edge_posteriors_.mean(axis=0)
        self.edge_posterior_ = pd.DataFrame(mean, index=names, columns=names)
        self.convergence_ = float(max(
            (np.abs(a - b).max() for i, a in enumerate(self.chain_edge_posteriors_)
             for b in self.chain_edge_posteriors_[i + 1:]),
            default=np.nan,  # (one chain: nothing to compare it with, so not measured)
        ))

        sampled = [tuple(_edge_list(families.parents, choice)) for c in chains for choice in c["samples"]]
        self.dag_samples_ = [[(names[u], names[v]) for u, v in edges] for edges in sampled]
        self.ancestor_posterior_ = pd.DataFrame(_ancestor_frequencies(sampled, p),
                                                index=names, columns=names)
        best = 0  # the best DAG of the chains (ties: the smaller edge list)
        for i in range(1, len(chains)):
            if _better_dag(chains[i]["best_score"], chains[i]["best_choice"], chains[best]["best_score"],
                           chains[best]["best_choice"], families.parents):
                best = i
        self.score_ = float(chains[best]["best_score"])
        self._warn_if_unconverged()
        measured = {"chain_difference": self.convergence_} if len(chains) > 1 else {}
        progress.close(done=self.n_iter * self.n_chains, **measured,
                       acceptance=float(self.acceptance_rate_.mean()))
        edges = _edge_list(families.parents, chains[best]["best_choice"])
        self.interventional_cpdag_ = self._interventional_cpdag(data, edges, knowledge)
        return edges

    def _warn_if_unconverged(self):
        r"""A ``UserWarning`` with one chain (no diagnostic), else a ``ConvergenceWarning``
        when two chains' edge posteriors differ by more than
        :data:`CONVERGENCE_THRESHOLD`, suggesting ``n_iter`` for a difference about half the
        threshold, as if the difference fell like the Monte Carlo error,
        :math:`1/\sqrt{n_{iter}}` (at least four times the current ``n_iter``)."""
        if self.n_chains == 1:
            warn_user(
                "OrderMCMCStructure with n_chains=1 cannot diagnose convergence: the diagnostic "
                "compares the edge posteriors of independent chains, so convergence_ is NaN (not "
                "measured) and edge_posterior_ may be off by any amount without a "
                "ConvergenceWarning. Use n_chains=2 or more (they run in parallel with n_jobs).",
                UserWarning,
            )
            return
        if not self.convergence_ > CONVERGENCE_THRESHOLD:
            return
        factor = max(4.0, (2.0 * self.convergence_ / CONVERGENCE_THRESHOLD) ** 2)
        suggested = float(f"{self.n_iter * factor:.2g}")
        warn_user(
            f"OrderMCMCStructure's {self.n_chains} chains have not converged: their edge "
            f"posteriors differ by up to {self.convergence_:.3f} (convergence_), more than "
            f"{CONVERGENCE_THRESHOLD}, so edge_posterior_ may be off by about as much. Run longer "
            f"chains, e.g. n_iter={int(suggested):_}, or restrict "
            f"the search (smaller max_indegree, candidate_parents).",
            ConvergenceWarning,
        )

    def _restore_column_order(self, names):
        super()._restore_column_order(names)
        rank = name_ranks(names)  # each column's row of the matrices over name-ordered columns
        self.chain_edge_posteriors_ = self.chain_edge_posteriors_[:, rank][:, :, rank]

    def _weighted_dags(self, data):
        """The model average: every distinct sampled DAG (in order of first draw), weighted
        by its share of the draws, :math:`\\frac{1}{M} \\sum_m p(x \\mid G_m, D)` over the
        ``M`` sampled DAGs (``averaged_networks_``, ``averaged_weights_``)."""
        position = {name: i for i, name in enumerate(data.names)}
        counts = Counter(tuple((position[u], position[v]) for u, v in dag) for dag in self.dag_samples_)
        return list(counts), np.array(list(counts.values()), dtype=float) / sum(counts.values())
