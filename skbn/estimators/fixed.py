"""Parameter learning for a given structure."""

from skbn.estimators._base import _BaseStructureLearner, _edge_positions
from skbn.graph import is_acyclic


class FixedStructure(_BaseStructureLearner):
    """A Bayesian network with a structure given by the user: only the CPTs are learned.

    Useful as a baseline (the true graph of a benchmark network fitted exactly like a learned
    one) and for parameter learning alone (bnlearn's ``bn.fit``).

    Parameters
    ----------
    edges : sequence of (parent, child), default=()
        Column labels (or integer positions) of the DAG's edges.
    {common_parameters}

    Attributes
    ----------
    edges_ : list of (parent, child)
    network_ : DiscreteBayesianNetwork

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
        "edges": [list, tuple],
    }

    def __init__(
        self,
        *,
        edges=(),
        categories="auto",
        handle_unknown="error",
        target=None,
        fit_parameters=True,
        parameter_estimator="bayes",
        parameter_ess=1.0,
    ):
        self.edges = edges
        self.categories = categories
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess

    def _learn_structure(self, data):
        edges = _edge_positions(self.edges, data.names, "edges")
        if not is_acyclic(range(data.n_variables), edges):
            raise ValueError("edges must form a directed acyclic graph; they contain a cycle.")
        return sorted(set(edges), key=lambda e: (e[1], e[0]))
