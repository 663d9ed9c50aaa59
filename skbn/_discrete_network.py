"""Discrete Bayesian networks (public as :class:`skbn.network.DiscreteBayesianNetwork`): a
DAG, the states of every node and one CPT per node.

The joint distribution factorises over the families of the DAG,

.. math::

    p(x_1, \\dots, x_d) = \\prod_{i=1}^{d} \\theta_{x_i \\mid x_{\\mathrm{pa}(i)}},

so the log-likelihood of a complete row is
``log p(x) = sum_i log theta[x_i | x_pa(i)]``. Rows with missing cells are scored by
their marginal likelihood ``log sum_{x_m} p(x_o, x_m)``, computed exactly by the variable
elimination engine of :mod:`skbn._inference`, to which every probability computation of this
class (likelihood, posteriors, ``query``) is delegated.
"""

import functools
from itertools import product

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from skbn._data import name_ranks, warn_state_read_as_missing
from skbn._inference import VariableElimination
from skbn._zero_probability import warn_impossible_evidence, warn_zero_probability
from skbn.graph import topological_order

__all__ = ["DiscreteBayesianNetwork"]

_SUM_TOL = 1e-6


def _check_structure(nodes, parents):
    """Node list, parents dict (tuples, every node a key) and edges; raise on unknown or
    repeated names and on a cycle: the one check of every network's structure."""
    nodes = list(nodes)
    if len(set(nodes)) != len(nodes):
        raise ValueError(f"Repeated node names: {nodes!r}.")
    index = {v: i for i, v in enumerate(nodes)}
    parents = {} if parents is None else dict(parents)
    for node in parents:
        if node not in index:
            raise ValueError(f"Parents are given for unknown node {node!r}.")
    out = {}
    for node in nodes:
        pa = tuple(parents.get(node, ()) or ())
        for p in pa:
            if p not in index:
                raise ValueError(f"Node {node!r} has unknown parent {p!r}.")
        if len(set(pa)) != len(pa):
            raise ValueError(f"Node {node!r} lists a parent twice: {pa!r}.")
        out[node] = pa
    edges = [(p, v) for v in nodes for p in out[v]]
    order = topological_order(nodes, edges)  # raises on a cycle, naming it
    return nodes, index, out, edges, [index[v] for v in order]


def _check_n_samples(n_samples):
    """Refuse, naming it, an ``n_samples`` that is not a non-negative integer."""
    if not isinstance(n_samples, (int, np.integer)) or n_samples < 0:
        raise ValueError(f"n_samples must be a non-negative integer, got {n_samples!r}.")


class _Network:
    """What every network object shares: its DAG (``nodes``, ``edges``, ``_index`` name ->
    position, ``_topo`` a topological order of positions), the drawing exports and the
    check of ``do`` interventions. Subclasses give ``_node_attributes(node)`` (networkx
    node attributes) and ``_intervention_value(node, value)`` (the checked value)."""

    def __repr__(self):
        return f"{type(self).__name__}(n_nodes={len(self.nodes)}, n_edges={len(self.edges)})"

    def __setstate__(self, state):
        """Unpickling (also ``copy.deepcopy``): the parameter arrays (the values of the public
        dicts: ``cpts``, ``coefficients``, ...) are read-only again. Pickle rebuilds every
        array writeable, and an edit in place would bypass the checks and leave the
        inference caches built from the old values."""
        self.__dict__.update(state)
        for name, value in state.items():
            if not name.startswith("_") and isinstance(value, dict):
                for array in value.values():
                    if isinstance(array, np.ndarray):
                        array.flags.writeable = False

    def topological_order(self):
        """Node names in a topological order (Kahn's algorithm, ties broken by node order).

        Returns
        -------
        order : list
            Every parent comes before its children.
        """
        return [self.nodes[i] for i in self._topo]

    def _draw_order(self):
        """Node positions in the order the samplers draw them: the topological order whose
        ties are broken by node name (:func:`skbn._data.name_ranks`, the rule by which
        skbn processes columns), not by node position. Every node takes its random numbers
        in this order, so the same network with its nodes in another order (e.g. learned
        from the columns in another order) draws the same rows for the same seed."""
        by_name = [self.nodes[k] for k in np.argsort(name_ranks(self.nodes), kind="stable")]
        return [self._index[v] for v in topological_order(by_name, self.edges)]

    def to_networkx(self):
        """The DAG as a ``networkx.DiGraph`` (networkx is an optional dependency).

        Returns
        -------
        graph : networkx.DiGraph
            Nodes in node order with their parameters' summary as attributes (a discrete
            node: ``states``; a Gaussian node: ``intercept``, ``coefficients`` and
            ``sigma``; a CLG network adds ``kind``).

        Raises
        ------
        ImportError
            If networkx is not installed.
        """
        try:
            import networkx as nx
        except ImportError as exc:  # pragma: no cover - networkx is a test dependency
            raise ImportError("to_networkx requires networkx: pip install networkx") from exc
        graph = nx.DiGraph()
        for node in self.nodes:
            graph.add_node(node, **self._node_attributes(node))
        graph.add_edges_from(self.edges)
        return graph

    def to_dot(self, edge_labels=False):
        """The DAG in Graphviz DOT format: ``digraph { "a" -> "b"; ... }`` (names quoted).

        Gaussian and CLG networks give every node a shape: ``ellipse`` for a continuous
        node, ``box`` for a discrete one (a discrete network's nodes have no attribute).

        Parameters
        ----------
        edge_labels : bool, default=False
            Label every edge between continuous nodes with its coefficient (one per
            configuration of the child's discrete parents, comma-separated, 3 significant
            digits); other edges have no label.

        Returns
        -------
        dot : str
            The DOT source.
        """
        def attributes(**values):
            text = ", ".join(f"{k}={_dot_quote(v)}" for k, v in values.items() if v is not None)
            return f" [{text}]" if text else ""

        lines = ["digraph {"]
        lines += [f"  {_dot_quote(v)}{attributes(shape=self._node_shape(v))};"
                  for v in self.nodes]
        lines += [f"  {_dot_quote(p)} -> {_dot_quote(c)}"
                  f"{attributes(label=self._edge_label(p, c) if edge_labels else None)};"
                  for p, c in self.edges]
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _node_shape(self, node):
        """The node's shape in drawings (None: the default box of a discrete node)."""
        return None

    def _edge_label(self, parent, child):
        """The text on the edge in drawings with ``edge_labels`` (None: no label)."""
        return None

    def _interventions(self, interventions, what):
        """Check ``do``: a dict of node name -> ``what``; returns ``{node: checked value}``."""
        if interventions is None:
            return {}
        if not isinstance(interventions, dict):
            raise ValueError(f"do must be a dict of node name -> {what}, got "
                             f"{type(interventions).__name__}.")
        out = {}
        for name, value in interventions.items():
            if not _is_node(name, self._index):
                raise ValueError(f"Unknown node {name!r}; nodes are {self.nodes!r}.")
            out[name] = self._intervention_value(name, value)
        return out


class DiscreteBayesianNetwork(_Network):
    """A discrete Bayesian network with fixed structure and conditional probability tables.

    The network defines the joint distribution

    .. math::

        p(x) = \\prod_i \\theta_{x_i \\mid \\mathrm{pa}_i},
        \\qquad \\log p(x) = \\sum_i \\log \\theta_{x_i \\mid \\mathrm{pa}_i},

    where :math:`\\theta_{k \\mid j}` is the probability that node :math:`i` takes its
    :math:`k`-th state when its parents are in configuration :math:`j`.

    Parameters
    ----------
    states : dict
        Node name -> sequence of state labels. The node order is the dict's insertion order.
    parents : dict
        Node name -> sequence of parent names. A missing key means "no parents".
    cpts : dict
        Node name -> array of shape ``(r_parent_1, ..., r_parent_k, r_node)``. The axes
        follow ``parents[node]`` and the last axis is the node itself; every slice along
        the last axis (one parent configuration) sums to 1 within ``1e-6``. The network
        keeps a copy, except of a read-only float64 C-order array that owns its data (a
        learner's estimate, another network's CPT), which it shares.

    Attributes
    ----------
    nodes : list
        Node names, in node order.
    states : dict
        Node name -> list of state labels.
    parents : dict
        Node name -> tuple of parent names (every node has a key).
    cpts : dict
        Node name -> read-only float64 ndarray of shape ``(r_pa_1, ..., r_pa_k, r_node)``.
    cardinalities : ndarray of shape (n_nodes,), dtype int64
        Number of states ``r_i`` of each node, in node order.
    edges : list of (parent, child) tuples
        In node order of the child, then in parent order.

    Raises
    ------
    ValueError
        On an unknown parent, a cycle, a missing CPT, a CPT of the wrong shape, negative
        probabilities, or CPT rows not summing to 1; the message names the node.

    See Also
    --------
    skbn.io.read_bif, skbn.io.write_bif, skbn.datasets.asia_network

    References
    ----------
    .. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press, 2009,
       ch. 3 (factorisation) and ch. 9 (variable elimination).

    Examples
    --------
    >>> import numpy as np
    >>> from skbn.network import DiscreteBayesianNetwork
    >>> net = DiscreteBayesianNetwork(
    ...     states={"rain": ["yes", "no"], "wet": ["yes", "no"]},
    ...     parents={"wet": ["rain"]},
    ...     cpts={"rain": np.array([0.2, 0.8]),
    ...           "wet": np.array([[0.9, 0.1], [0.1, 0.9]])})
    >>> net
    DiscreteBayesianNetwork(n_nodes=2, n_edges=1)
    >>> net.query("rain", evidence={"wet": "yes"}).round(4).tolist()
    [0.6923, 0.3077]
    """

    def __init__(self, states, parents, cpts):
        states = dict(states)
        cpts = dict(cpts)
        self.nodes = list(states)
        self.states = {}
        for node, labels in states.items():
            labels = list(labels)
            if not labels:
                raise ValueError(f"Node {node!r} has no states.")
            if len(set(labels)) != len(labels):
                raise ValueError(f"Node {node!r} has repeated state labels: {labels!r}.")
            self.states[node] = labels
        self.nodes, index, self.parents, self.edges, self._topo = _check_structure(self.nodes, parents)
        self._index = index
        self.cardinalities = np.array([len(self.states[v]) for v in self.nodes], dtype=np.int64)
        self._parent_idx = [tuple(index[p] for p in self.parents[v]) for v in self.nodes]
        for node in cpts:
            if node not in index:
                raise ValueError(f"A CPT is given for unknown node {node!r}.")
        self.cpts = {}
        for node in self.nodes:
            self.cpts[node] = self._check_cpt(node, cpts.get(node))

    @functools.cached_property
    def _canonical_engine(self):
        """``(engine, by_name, engine_index, permuted)``: the inference engine over the
        canonical network, the nodes in name order (:func:`skbn._data.name_ranks`), every
        CPT's parent axes in name order too; built on first use (a network whose
        probabilities are never computed, e.g. a learner's ``network_`` that is only read,
        pays nothing for it) and kept.

        Every tie of the elimination order, every product of factors and every sum of the
        engine then runs in the same order for any node order of this network (e.g. the
        column order of the data it was learned from), so its outputs are the same bits.
        ``_by_name[k]`` is the node position of the engine's node ``k``; the codes' columns
        are permuted by it at every call (:meth:`_engine_codes`; no copy when the nodes are
        in name order), node positions mapped to the engine's by ``_engine_index``. A CPT
        whose parents are listed in another order is transposed once into a C-ordered copy
        (the engine ravels it); one in name order is shared.
        """
        by_name = np.argsort(name_ranks(self.nodes), kind="stable")
        rank = np.empty(len(self.nodes), dtype=np.intp)
        rank[by_name] = np.arange(len(self.nodes))
        cpts, parent_idx = [], []
        for i in by_name:
            pa = [int(rank[p]) for p in self._parent_idx[i]]
            axes = sorted(range(len(pa)), key=pa.__getitem__)
            cpt = self.cpts[self.nodes[i]]
            if axes != list(range(len(pa))):
                cpt = np.ascontiguousarray(cpt.transpose(axes + [len(pa)]))
                cpt.flags.writeable = False
            cpts.append(cpt)
            parent_idx.append(tuple(pa[a] for a in axes))
        permuted = bool((by_name != np.arange(len(by_name))).any())
        return VariableElimination(cpts, parent_idx, self.cardinalities[by_name]), by_name, rank, permuted

    # (properties, which an instance's own attributes of the same name cannot shadow: a
    # network pickled before the engine worked in name order held an engine in node order)
    @property
    def _inference(self):
        """The :class:`~skbn._inference.VariableElimination` engine (nodes in name order)."""
        return self._canonical_engine[0]

    @property
    def _by_name(self):
        """``_by_name[k]``: the node position of the engine's node ``k``."""
        return self._canonical_engine[1]

    @property
    def _engine_index(self):
        """``_engine_index[i]``: the engine's index of node position ``i``."""
        return self._canonical_engine[2]

    @property
    def _permuted(self):
        """Whether the nodes are not in name order (the codes' columns are then permuted)."""
        return self._canonical_engine[3]

    def _engine_codes(self, codes):
        """Validated ``codes``, or any array with a column per node (a mask of observed
        cells), columns in node order, with its columns in the engine's (name) order."""
        return codes[:, self._by_name] if self._permuted else codes

    def _engine_keep(self, keep):
        """Node positions -> the engine's node indices (a result's axes follow ``keep``)."""
        return tuple(int(self._engine_index[k]) for k in keep)

    def _complete_log_joint(self, codes):
        """``log p(x)`` of complete rows of validated ``codes`` (node order): the families'
        log-factors added in name order."""
        return self._inference.complete_log_joint(self._engine_codes(codes))

    def _marginalise_rows(self, codes, observed, rows_mask, keep):
        """:meth:`skbn._inference.VariableElimination.marginalise_rows` of validated
        ``codes`` and ``observed`` (columns in node order) onto the node positions ``keep``:
        yields ``(rows, values, log_scale)``, the axes of ``values`` in the order of ``keep``."""
        return self._inference.marginalise_rows(self._engine_codes(codes), self._engine_codes(observed),
                                                rows_mask, self._engine_keep(keep))

    # ------------------------------------------------------------------ validation
    def _check_cpt(self, node, cpt):
        if cpt is None:
            raise ValueError(f"Missing CPT for node {node!r}.")
        if not (isinstance(cpt, np.ndarray) and cpt.dtype == np.float64 and cpt.flags.owndata
                and cpt.flags.c_contiguous and not cpt.flags.writeable):
            # a copy the caller cannot change; a read-only float64 C-order array that owns its
            # data (a learner's estimate, another network's CPT) is shared instead: on a
            # many-state network a fitted CPT can take hundreds of MB
            try:
                cpt = np.array(cpt, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"CPT of node {node!r} is not numeric: {exc}") from None
        expected = tuple(len(self.states[p]) for p in self.parents[node]) + (
            len(self.states[node]),)
        if cpt.shape != expected:
            raise ValueError(
                f"CPT of node {node!r} has shape {cpt.shape}, expected {expected} "
                f"(parents {list(self.parents[node])!r} then the node itself).")
        if not np.all(np.isfinite(cpt)):
            raise ValueError(f"CPT of node {node!r} contains NaN or infinite values.")
        if np.any(cpt < 0):
            raise ValueError(f"CPT of node {node!r} contains negative probabilities.")
        sums = cpt.sum(axis=-1)
        bad = np.argwhere(np.abs(sums - 1.0) > _SUM_TOL)
        if len(bad):
            config = tuple(bad[0])
            labels = {p: self.states[p][k] for p, k in zip(self.parents[node], config)}
            raise ValueError(
                f"CPT of node {node!r} does not sum to 1 for parent configuration "
                f"{labels!r} (sum = {sums[config]!r}).")
        cpt.flags.writeable = False
        return cpt

    # ------------------------------------------------------------------ structure
    def _node_attributes(self, node):
        return {"states": list(self.states[node])}

    # ------------------------------------------------------------------ encoding
    def _check_codes(self, codes):
        codes = np.asarray(codes)
        if codes.ndim != 2 or codes.shape[1] != len(self.nodes):
            raise ValueError(
                f"codes must have shape (n_samples, {len(self.nodes)}), got {codes.shape}.")
        if codes.size and not np.issubdtype(codes.dtype, np.integer):
            raise ValueError(f"codes must be integers, got dtype {codes.dtype}.")
        codes = codes.astype(np.int64, copy=False)
        if codes.size:
            bad = (codes < -1) | (codes >= self.cardinalities)
            if bad.any():
                row, col = np.argwhere(bad)[0]
                raise ValueError(
                    f"Code {codes[row, col]} out of range for node {self.nodes[col]!r} "
                    f"with {self.cardinalities[col]} states (row {row}).")
        return codes

    def _encode_frame(self, X):
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}.")
        if X.columns.has_duplicates:
            raise ValueError(f"X has repeated column names: {list(X.columns)!r}.")
        unknown = [c for c in X.columns if c not in self._index]
        if unknown:
            raise ValueError(f"X has columns that are not nodes of the network: {unknown!r}.")
        codes = np.full((len(X), len(self.nodes)), -1, dtype=np.int64)
        for pos, col in enumerate(X.columns):
            values = np.asarray(X.iloc[:, pos], dtype=object)
            codes[:, self._index[col]] = self._encode_values(col, values)
        return codes

    def _encode_values(self, node, values):
        """Map state labels to codes; missing cells (None/NaN) -> -1."""
        values = np.asarray(values, dtype=object)
        missing = np.asarray(pd.isna(values), dtype=bool)
        idx = pd.Index(self.states[node], dtype=object).get_indexer(values)
        unknown = (idx < 0) & ~missing
        if unknown.any():
            value = values[np.argmax(unknown)]
            hint = ""
            if not isinstance(value, str) and str(value) in self.states[node]:
                hint = (f" The state {str(value)!r} is text: a BIF file stores every state as text "
                        f"(read_bif), so compare with X.astype({{{node!r}: str}}), or save the "
                        f"network with write_json, which keeps the states' types.")
            raise ValueError(
                f"Unknown state {value!r} in column {node!r}; the node's states are "
                f"{self.states[node]!r}.{hint}")
        warn_state_read_as_missing(node, self.states[node], values)
        return idx.astype(np.int64)

    def _node_index(self, name):
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise ValueError(f"Unknown node {name!r}; nodes are {self.nodes!r}.") from None

    def _state_code(self, node, label):
        try:
            return self.states[node].index(label)
        except ValueError:
            raise ValueError(
                f"Unknown state {label!r} for node {node!r}; its states are "
                f"{self.states[node]!r}.") from None

    # ------------------------------------------------------------------ likelihood
    def log_likelihood_codes(self, codes):
        """Log-probability of each row of integer codes, missing cells marginalised.

        .. math::

            \\log p(x_o) = \\log \\sum_{x_m} \\prod_i \\theta_{x_i \\mid \\mathrm{pa}_i}

        where :math:`x_o` are the observed cells of the row and :math:`x_m` the missing
        ones. Complete rows use a vectorised table look-up. The other rows are marginalised
        exactly by variable elimination (barren nodes pruned, min-fill order), either once per
        missingness pattern (vectorised over the rows sharing it) or, when patterns are many,
        once for all rows with per-row indicators
        :math:`\\lambda_i[n, x] = [x_{ni} = x \\text{ or } x_{ni} \\text{ missing}]`;
        a cost model picks the cheaper.

        Parameters
        ----------
        codes : array-like of int, shape (n_samples, n_nodes)
            State codes in node order; ``-1`` marks a missing cell.

        Returns
        -------
        log_prob : ndarray of shape (n_samples,)
            ``-inf`` where the row has probability 0 (a CPT entry of 0 meets it), with one
            :class:`~skbn.exceptions.ZeroProbabilityWarning` per call naming the columns
            whose CPT gives the rows' states probability 0 and how many rows each (the
            learners' rule for ``score_samples``).
        """
        codes = self._check_codes(codes)
        log_prob = self._inference.log_likelihood(self._engine_codes(codes))
        warn_zero_probability([self], codes, log_prob)
        return log_prob

    def _log_likelihood_codes(self, codes):
        """:meth:`log_likelihood_codes` without the warning (a learner, or a CLG network,
        warns for its own call)."""
        return self._inference.log_likelihood(self._engine_codes(self._check_codes(codes)))

    def log_likelihood(self, X):
        """Log-probability of each row of a DataFrame of state labels.

        Columns are a subset of the nodes; absent columns and NaN/None cells are
        marginalised exactly (see :meth:`log_likelihood_codes`).

        Parameters
        ----------
        X : pandas.DataFrame of shape (n_samples, n_columns)
            State labels; NaN or None marks a missing cell.

        Returns
        -------
        log_prob : ndarray of shape (n_samples,)
            Natural log-probability of every row; ``-inf`` where it is 0, with one
            :class:`~skbn.exceptions.ZeroProbabilityWarning` per call naming the columns.

        Raises
        ------
        ValueError
            For a column that is not a node, or a label that is not a state of its column.
        """
        return self.log_likelihood_codes(self._encode_frame(X))

    # ------------------------------------------------------------------ interventions
    def do(self, interventions):
        """The mutilated network of the hard intervention ``do(X_I = x_I)``.

        For every intervened node :math:`i \\in I` the edges into :math:`i` are removed and
        its CPT becomes a point mass on the state it is set to; every other family is kept.
        The mutilated network's joint is the truncated factorisation (Pearl 2009, eq. 3.10)

        .. math::

            p(x \\mid \\mathrm{do}(x_I = x_I^*)) = \\prod_{i \\notin I}
            \\theta_{x_i \\mid x_{\\mathrm{pa}(i)}} \\prod_{i \\in I} [x_i = x_i^*].

        Parameters
        ----------
        interventions : dict
            Node name -> the state label it is set to. An empty dict gives a copy of the
            network.

        Returns
        -------
        network : DiscreteBayesianNetwork
            A new network with the same nodes and states; this network is unchanged.

        Raises
        ------
        ValueError
            For an unknown node or state, or ``interventions`` that is not a dict.

        References
        ----------
        .. [1] J. Pearl, *Causality: Models, Reasoning, and Inference*, 2nd ed., Cambridge
           University Press, 2009, sec. 3.2.3, eq. (3.10).
        """
        codes = self._intervention_codes(interventions)
        parents = {v: ([] if v in codes else list(self.parents[v])) for v in self.nodes}
        cpts = {}
        for v in self.nodes:
            if v in codes:
                point = np.zeros(len(self.states[v]))
                point[codes[v]] = 1.0
                cpts[v] = point
            else:
                cpts[v] = self.cpts[v]
        return type(self)(self.states, parents, cpts)

    def _intervention_value(self, node, label):
        return self._state_code(node, label)

    def _intervention_codes(self, interventions):
        """Validate ``{node: state}`` and return ``{node: state code}``."""
        return self._interventions(interventions, "state label")

    # ------------------------------------------------------------------ inference
    def predict_proba_codes(self, codes, target):
        """Posterior ``P(target | observed cells of the row)`` for each row.

        .. math::

            P(x_t = k \\mid x_o) = \\frac{p(x_t = k, x_o)}{\\sum_{k'} p(x_t = k', x_o)}

        The target's own column of ``codes`` is ignored. A row whose evidence has
        probability 0 (a CPT entry of 0 meets it) has no posterior: it gets the uniform
        distribution (never NaN), and one :class:`~skbn.exceptions.ZeroProbabilityWarning`
        per call names the columns whose CPT gives its state probability 0 and how many
        rows each (the rule of every prediction method).

        Parameters
        ----------
        codes : array-like of int, shape (n_samples, n_nodes)
            State codes in node order; ``-1`` marks a missing cell.
        target : int
            Index of the target node.

        Returns
        -------
        proba : ndarray of shape (n_samples, r_target)
            Rows sum to 1.
        """
        proba, impossible = self._predict_proba_codes(codes, target)  # (codes validated there)
        warn_impossible_evidence([self], np.asarray(codes, dtype=np.int64), impossible,
                                 self.nodes[int(target)], method="predict_proba_codes")
        return proba

    def _predict_proba_codes(self, codes, target):
        """:meth:`predict_proba_codes` without the warning: ``(proba, impossible)``, the rows
        whose evidence has probability 0 as a bool mask (a learner warns for its model)."""
        codes = self._check_codes(codes)
        n_nodes = len(self.nodes)
        if not (isinstance(target, (int, np.integer)) and 0 <= target < n_nodes):
            raise ValueError(f"target must be a node index in [0, {n_nodes}), got {target!r}.")
        return self._inference.posterior(self._engine_codes(codes),
                                         int(self._engine_index[int(target)]))

    def query(self, variables, evidence=None, do=None):
        """Exact posterior joint distribution of ``variables`` given ``evidence`` and ``do``.

        .. math::

            P(x_Q \\mid x_E = e) = \\frac{\\sum_{x_R} p(x_Q, x_R, e)}{\\sum_{x_Q, x_R} p(x_Q, x_R, e)}

        computed by variable elimination over the relevant (non-barren) nodes. With ``do``,
        :math:`p` is the interventional distribution of the mutilated network
        :meth:`do` (truncated factorisation, Pearl 2009, eq. 3.10),

        .. math::

            P(x_Q \\mid x_E = e, \\mathrm{do}(x_I = x_I^*)) \\propto \\sum_{x_R}
            \\prod_{i \\notin I} \\theta_{x_i \\mid x_{\\mathrm{pa}(i)}}
            \\Big|_{x_I = x_I^*,\\, x_E = e},

        i.e. ``self.do(do).query(variables, evidence)``. An intervened node may be a query
        variable (its distribution is the point mass on the state it is set to). Evidence on an
        intervened node is redundant when it names the same state and an error otherwise.

        Parameters
        ----------
        variables : node name or list of node names
            A node name (a name that is a tuple counts as one node), or a list or tuple of
            node names.
        evidence : dict, optional
            Node name -> observed state label.
        do : dict, optional
            Node name -> state label it is set to by a hard intervention. None or an empty
            dict gives the observational query.

        Returns
        -------
        proba : pandas.Series
            Probabilities summing to 1, indexed by the states of the variable (an
            ``Index`` named after it) or by every combination of states of the variables
            (a ``MultiIndex``, the last variable varying fastest). A one-element list
            also gives a plain ``Index``.

        Raises
        ------
        ValueError
            For an unknown node or state (in ``variables``, ``evidence`` or ``do``), a
            variable that is also in the evidence, a repeated variable, a node given in
            ``evidence`` and ``do`` with different states, or evidence of probability 0
            (under the intervention).

        References
        ----------
        .. [1] J. Pearl, *Causality: Models, Reasoning, and Inference*, 2nd ed., Cambridge
           University Press, 2009, sec. 3.2.3, eq. (3.10).
        """
        intervened = self._intervention_codes(do)
        if intervened:
            for name, label in dict(evidence or {}).items():
                if name in intervened and self._state_code(name, label) != intervened[name]:
                    raise ValueError(
                        f"Node {name!r} is set to {do[name]!r} by do but observed as "
                        f"{label!r} in the evidence.")
            return self.do(do).query(variables, evidence)
        if _is_node(variables, self.states) or not isinstance(variables, (list, tuple)):
            variables = [variables]  # one node, even when its name is a tuple
        variables = list(variables)
        if not variables:
            raise ValueError("query needs at least one variable.")
        evidence = dict(evidence or {})
        keep = tuple(self._node_index(v) for v in variables)
        if len(set(keep)) != len(keep):
            raise ValueError(f"A variable is repeated in {variables!r}.")
        codes = np.full((1, len(self.nodes)), -1, dtype=np.int64)
        for name, label in evidence.items():
            i = self._node_index(name)
            if name in variables:
                raise ValueError(f"Node {name!r} is both a query variable and in the evidence.")
            codes[0, i] = self._state_code(name, label)
        codes = self._engine_codes(codes)
        values, _ = self._inference.eliminate(codes, codes[0] >= 0, keep=self._engine_keep(keep))
        table = values[0]
        total = table.sum()
        if not total > 0:
            raise ValueError(f"The evidence {evidence!r} has probability 0.")
        table = table / total
        labels = [self.states[v] for v in variables]
        if len(variables) == 1:
            index = pd.Index(labels[0], name=variables[0])
        else:
            index = pd.MultiIndex.from_tuples(list(product(*labels)), names=variables)
        return pd.Series(table.ravel(), index=index, name="probability")

    # ------------------------------------------------------------------ sampling
    def sample(self, n_samples=1, random_state=None, do=None):
        """Draw rows by forward (ancestral) sampling, optionally under an intervention.

        Nodes are drawn in topological order, ties broken by node name (not by node
        position: the same network with its nodes in another order draws the same rows
        for the same seed); node :math:`i` takes state
        :math:`\\min\\{k : u < \\sum_{l \\le k} \\theta_{l \\mid \\mathrm{pa}_i}\\}` with one
        uniform :math:`u` per row (inverse CDF of its CPT row). With ``do``, the rows are drawn
        from the mutilated network :meth:`do`, i.e. from the truncated factorisation
        :math:`\\prod_{i \\notin I} \\theta_{x_i \\mid x_{\\mathrm{pa}(i)}}
        \\prod_{i \\in I} [x_i = x_i^*]` (Pearl 2009, eq. 3.10): intervened columns are constant.

        Parameters
        ----------
        n_samples : int, default=1
            Number of rows.
        random_state : int, RandomState instance or None, default=None
            Seed of the draw.
        do : dict, optional
            Node name -> state label it is set to by a hard intervention. None or an empty
            dict samples the observational distribution.

        Returns
        -------
        X : pandas.DataFrame of shape (n_samples, n_nodes)
            One ``Categorical`` column per node (categories = the node's states), in node
            order.
        """
        _check_n_samples(n_samples)
        if self._intervention_codes(do):
            return self.do(do).sample(n_samples, random_state)
        rng = check_random_state(random_state)
        n_samples = int(n_samples)
        codes = np.zeros((n_samples, len(self.nodes)), dtype=np.int64)
        for i in self._draw_order():
            pa = self._parent_idx[i]
            cpt = self.cpts[self.nodes[i]]
            r = cpt.shape[-1]
            cum = np.cumsum(cpt.reshape(-1, r), axis=1)
            cum /= cum[:, -1:]
            if pa:
                config = np.ravel_multi_index(tuple(codes[:, p] for p in pa), cpt.shape[:-1])
            else:
                config = np.zeros(n_samples, dtype=np.intp)
            u = rng.random_sample(n_samples)
            codes[:, i] = np.minimum((u[:, None] >= cum[config]).sum(axis=1), r - 1)
        return pd.DataFrame({
            node: pd.Categorical.from_codes(codes[:, i], categories=self.states[node])
            for i, node in enumerate(self.nodes)})


# ---------------------------------------------------------------------- helpers
def _is_node(name, states):
    """Whether ``name`` is (hashable and) the name of a node of ``states``."""
    try:
        return name in states
    except TypeError:  # unhashable: a list of names
        return False


def _dot_quote(name):
    text = str(name).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'
