"""Parameter learning for a given structure."""

from skbn.estimators._base import _MISSING_CONSTRAINTS, _BaseStructureLearner, _edge_positions, _labelled
from skbn.graph import is_acyclic
from skbn.knowledge import check_conditional_gaussian
from skbn.utils._progress import Progress, amount


class FixedStructure(_BaseStructureLearner):
    """A Bayesian network with a structure given by the user: only the CPTs are learned.

    Useful as a baseline (the true graph of a benchmark network fitted exactly like a learned
    one) and for parameter learning alone (bnlearn's ``bn.fit``).

    Parameters
    ----------
    edges : sequence of (parent, child), default=()
        Column labels (or integer positions) of the DAG's edges; they may name ``latent``
        variables.
    {common_parameters}
    missing : {"error", "complete_case", "em"}, default="error"
        Missing cells (NaN/None) in ``X``: refuse them; drop incomplete rows (with a
        warning giving their number); or estimate the CPTs by EM (``docs/missing.md``).
    latent : dict or None, default=None
        Hidden variables ``{name: n_states}`` (needs ``missing="em"``): nodes never observed,
        with states ``0 .. n_states - 1`` identified only up to a permutation.
    e_step : {"exact", "gibbs"}, default="exact"
        Expected completions enumerated exactly (Gibbs sampling beyond
        512 completions of a row, ``MAX_COMPLETIONS`` in ``skbn/_em.py``), or Gibbs-sampled for every
        row (stochastic EM).
    n_init : int, default=1
        EM runs: the first from the available-case estimates, the others from random
        (Dirichlet) CPTs; the highest final objective wins.
    em_max_iter : int, default=100
        Largest number of EM iterations (M-steps) of one run.
    em_tol : float, default=1e-6
        EM stops when the objective changes by at most ``em_tol`` times its magnitude.
    random_state : int, RandomState instance or None, default=None
        Seeds the random initialisations and the Gibbs draws.
    {verbose_parameter}

    Attributes
    ----------
    edges_ : list of (parent, child)
    network_ : DiscreteBayesianNetwork, GaussianBayesianNetwork or CLGBayesianNetwork
        Gaussian when every column is continuous, CLG when both kinds are present (a
        discrete node may not have a continuous parent in ``edges``): bnlearn's ``bn.fit``
        (see ``docs/gaussian.md``). Latent variables come after the columns of ``X`` (and a
        target fitted through ``y``).
    em_trace_ : ndarray of shape (n_iterations + 1,)
        With ``missing="em"``: the EM objective (observed-data log-likelihood for
        ``parameter_estimator="mle"``, log-posterior for ``"bayes"``) after every M-step
        of the winning run, the initial parameters first (``em_n_iter_ + 1`` values).
    em_n_iter_ : int
        Number of EM iterations of the winning run.
    {common_attributes}

    Examples
    --------
    >>> from skbn.estimators import FixedStructure
    >>> from skbn.datasets import asia_network
    >>> truth = asia_network()
    >>> model = FixedStructure(edges=truth.edges).fit(truth.sample(1000, random_state=0))
    >>> model.network_.parents["either"]
    ('tub', 'lung')
    """

    _parameter_constraints = {
        **_BaseStructureLearner._parameter_constraints,
        **_MISSING_CONSTRAINTS,
        "edges": [list, tuple],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }
    _missing_modes = ("error", "complete_case", "em")
    _interventions = True
    _continuous = True
    _learns_structure = False  # (its structure is given: a family of collinear parents is refused by name)

    def __init__(
        self,
        *,
        edges=(),
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
        random_state=None,
        verbose=0,
    ):
        self.edges = edges
        self.verbose = verbose
        self.missing = missing
        self.latent = latent
        self.e_step = e_step
        self.n_init = n_init
        self.em_max_iter = em_max_iter
        self.em_tol = em_tol
        self.random_state = random_state
        self.categories = categories
        self.column_types = column_types
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess

    def _learn_structure(self, data, knowledge, *, start=None, counter=None):
        progress = Progress(self.verbose, "FixedStructure", unit="edge",
                            detail=f"{amount(data.n_variables, 'column')}, {amount(data.n_samples, 'row')}")
        edges = _edge_positions(_labelled(self.edges, data), data.names, "edges")
        if not is_acyclic(range(data.n_variables), edges):
            raise ValueError("edges must form a directed acyclic graph; they contain a cycle.")
        if data.has_continuous:  # the conditional-Gaussian rule
            check_conditional_gaussian(edges, data.names, data.continuous)
        edges = sorted(set(edges), key=lambda e: (e[1], e[0]))
        progress.close(done=len(edges), rate=False)
        return edges
