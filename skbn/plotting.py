"""Pictures of networks: the learned graph, learned vs true, edge strengths, search traces.

matplotlib is an optional dependency (``pip install skbn[plot]``), imported only when a
function draws; networkx is not needed. Every function draws on ``ax`` (a new figure
sized to the graph when ``None``) and returns the Axes.

The layered layout follows Sugiyama, Tagawa and Toda (1981):

1. **layers** -- each node goes one layer below its lowest parent (longest path from the
   sources), so every edge points downwards; undirected (CPDAG) edges are oriented along a
   topological order of the directed part first;
2. **virtual nodes** -- an edge spanning ``k > 1`` layers gets ``k - 1`` invisible bend
   points, one per crossed layer, so it is routed between the nodes;
3. **crossing reduction** -- alternating downward and upward sweeps sort each layer by the
   barycentre (mean position) of the neighbours in the previous layer (Sugiyama et al.;
   the layer-by-layer sweep of Eades and Wormald, 1994); the ordering with the fewest
   crossings wins;
4. **coordinates** -- each node is pulled towards the mean x of its neighbours, subject to
   a minimal gap from its left neighbour (the half widths of the two labels): a least-squares
   fit under order constraints, solved by isotonic regression (pool adjacent violators).

References
----------
K. Sugiyama, S. Tagawa and M. Toda, "Methods for visual understanding of hierarchical
system structures", IEEE Trans. Systems, Man, and Cybernetics 11(2), 1981.
P. Eades and N. C. Wormald, "Edge crossings in drawings of bipartite graphs",
Algorithmica 11, 1994.
"""

import reprlib
from itertools import combinations, pairwise

import numpy as np
import pandas as pd

__all__ = [
    "circular_layout",
    "layered_layout",
    "plot_comparison",
    "plot_edge_strength",
    "plot_network",
    "plot_search_trace",
]

#: Edge colours of :func:`plot_comparison`, by class.
COMPARISON_COLORS = {
    "true positive": "#2b8a3e",
    "reversed": "#e67700",
    "false positive": "#c92a2a",
    "missed": "#868e96",
}
NODE_FACE = "#e7f5ff"
NODE_EDGE = "#1c7ed6"
EDGE_COLOR = "#343a40"

_LAYER_GAP = 0.9       # inches between layers
_DUMMY_WIDTH = 0.15    # inches reserved for an edge passing through a layer
_NODE_GAP = 0.25       # inches of air between neighbouring labels
_MIN_WIDTH = 2.5       # inches: narrowest figure drawn for a graph
_N_SWEEPS = 24


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("skbn.plotting needs matplotlib: pip install skbn[plot]") from None
    return plt


# ---------------------------------------------------------------------- graph input
def _as_graph(graph, nodes=None, undirected=()):
    """``(nodes, directed, undirected)`` from an estimator, network, PDAG or edge list."""
    from skbn.graph import PDAG
    from skbn.network import DiscreteBayesianNetwork

    found_nodes = None
    if isinstance(graph, DiscreteBayesianNetwork):
        found_nodes, directed, extra = list(graph.nodes), list(graph.edges), []
    elif isinstance(graph, PDAG):
        found_nodes = list(graph.nodes)
        directed, extra = list(graph.directed), list(graph.undirected)
    elif hasattr(graph, "edges_"):
        if hasattr(graph, "undirected_edges_"):
            directed, extra = list(graph.directed_edges_), list(graph.undirected_edges_)
        else:
            directed, extra = list(graph.edges_), []
        found_nodes = list(getattr(graph, "feature_names_in_", graph.network_.nodes))
    elif hasattr(graph, "get_params") or isinstance(graph, (str, bytes)):
        raise TypeError(f"Cannot draw {type(graph).__name__}: pass a fitted estimator "
                        f"(with edges_), a DiscreteBayesianNetwork, a PDAG or a list of "
                        f"(parent, child) edges.")
    else:
        directed, extra = [], []
        for edge in graph:
            try:
                u, v = edge
            except (TypeError, ValueError):
                raise ValueError(f"Edge {reprlib.repr(edge)} is not a (parent, child) "
                                 f"pair.") from None
            directed.append((u, v))
    for edge in undirected:
        u, v = edge
        directed = [e for e in directed if set(e) != {u, v}]
        extra.append((u, v))
    if nodes is None:
        nodes = found_nodes if found_nodes is not None else []
    nodes = list(dict.fromkeys(list(nodes) + [w for e in directed + extra for w in e]))
    return nodes, directed, extra


# ---------------------------------------------------------------------- layouts
def _order_nodes(n, arcs):
    """A topological order (Kahn, smallest index first); cycles broken at the smallest node."""
    indegree = np.zeros(n, dtype=int)
    children = [[] for _ in range(n)]
    for i, j in arcs:
        indegree[j] += 1
        children[i].append(j)
    done, order = np.zeros(n, dtype=bool), []
    while len(order) < n:
        ready = [v for v in range(n) if not done[v] and indegree[v] == 0]
        v = ready[0] if ready else int(np.flatnonzero(~done)[0])
        done[v] = True
        order.append(v)
        for c in children[v]:
            indegree[c] -= 1
    return order


def _isotonic(values, weights=None):
    """Pool adjacent violators: the non-decreasing sequence closest to ``values``."""
    blocks = []  # [mean, weight, count]
    for v, w in zip(values, np.ones(len(values)) if weights is None else weights):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    return np.concatenate([np.full(c, m) for m, _, c in blocks]) if blocks else np.empty(0)


def _crossings(upper, lower, down_edges):
    """Number of crossings between two adjacent layers (orders as lists of vertex ids)."""
    up_pos = {v: k for k, v in enumerate(upper)}
    low_pos = {v: k for k, v in enumerate(lower)}
    segments = [(up_pos[a], low_pos[b]) for a in upper for b in down_edges.get(a, ())
                if b in low_pos]
    return sum((a1 - a2) * (b1 - b2) < 0 for (a1, b1), (a2, b2) in combinations(segments, 2))


def layered_layout(nodes, edges, undirected=(), label_widths=None):
    """Sugiyama-style layered positions (see the module docstring).

    Parameters
    ----------
    nodes : list
        All nodes of the graph (isolated ones included); ties in a layer keep this order.
    edges : list of (parent, child)
        Directed edges; their parents are placed in higher layers.
    undirected : list of (u, v), default=()
        Oriented along a topological order of the directed part for layering only.
    label_widths : sequence of float, optional
        Width of each node's label, in x units (default 1).

    Returns
    -------
    positions : dict
        Node -> ``(x, y)``; layer ``k`` has ``y = -k * 0.9`` (inches), x in the same unit
        as ``label_widths``.
    routes : dict
        ``(u, v)`` (as in ``edges`` / ``undirected``) -> list of ``(x, y)`` bend points
        strictly between the two nodes (empty for an edge between adjacent layers).
    """
    index = {v: i for i, v in enumerate(nodes)}
    n = len(nodes)
    widths = np.ones(n) if label_widths is None else np.asarray(label_widths, dtype=float)
    directed_ids = [(index[u], index[v]) for u, v in edges]
    order = _order_nodes(n, directed_ids)
    rank = np.empty(n, dtype=int)
    rank[order] = np.arange(n)
    arcs = []  # (upper, lower, original edge) oriented from earlier to later in ``order``
    for u, v in list(edges) + list(undirected):
        i, j = index[u], index[v]
        arcs.append((i, j, (u, v)) if rank[i] < rank[j] else (j, i, (u, v)))
    layer = np.zeros(n, dtype=int)
    for v in order:
        for i, j, _ in arcs:
            if j == v:
                layer[v] = max(layer[v], layer[i] + 1)
    has_parent = {j for _, j, _ in arcs}
    for v in order[::-1]:  # sources sink to just above their highest child (shorter edges)
        below = [layer[j] for i, j, _ in arcs if i == v]
        if v not in has_parent and below:
            layer[v] = min(below) - 1

    # virtual nodes: ids n, n+1, ... ; chains[edge] = [upper, d1, ..., lower]
    vertex_layer, vertex_width = list(layer), list(widths)
    down, up, chains = {}, {}, {}
    for i, j, edge in arcs:
        chain = [i]
        for k in range(layer[i] + 1, layer[j]):
            vertex_layer.append(k)
            vertex_width.append(_DUMMY_WIDTH)
            chain.append(len(vertex_layer) - 1)
        chain.append(j)
        for a, b in pairwise(chain):
            down.setdefault(a, []).append(b)
            up.setdefault(b, []).append(a)
        chains[edge] = chain
    n_layers = max(vertex_layer, default=-1) + 1
    layers = [[v for v in range(len(vertex_layer)) if vertex_layer[v] == k]
              for k in range(n_layers)]

    def total_crossings(candidate):
        return sum(_crossings(candidate[k], candidate[k + 1], down) for k in range(n_layers - 1))

    best, best_crossings = [list(layer_) for layer_ in layers], total_crossings(layers)
    for sweep in range(_N_SWEEPS):
        downward = sweep % 2 == 0
        sequence = range(1, n_layers) if downward else range(n_layers - 2, -1, -1)
        for k in sequence:
            fixed = layers[k - 1] if downward else layers[k + 1]
            neighbours = up if downward else down
            position = {v: p for p, v in enumerate(fixed)}
            keys = []
            for p, v in enumerate(layers[k]):
                linked = [position[w] for w in neighbours.get(v, ()) if w in position]
                keys.append(np.mean(linked) if linked else p)
            layers[k] = [v for _, _, v in sorted(zip(keys, range(len(keys)), layers[k]))]
        crossings = total_crossings(layers)
        if crossings < best_crossings:
            best, best_crossings = [list(layer_) for layer_ in layers], crossings
        if best_crossings == 0:
            break
    layers = best

    # coordinates: pull towards neighbours' mean x under minimal gaps (isotonic regression)
    def offsets(layer_):  # x of each vertex when packed left to right with minimal gaps
        gaps = [0.0] + [(vertex_width[a] + vertex_width[b]) / 2 + _NODE_GAP
                        for a, b in pairwise(layer_)]
        return np.cumsum(gaps)

    x = np.zeros(len(vertex_layer))
    for layer_ in layers:
        packed = offsets(layer_)
        x[layer_] = packed - packed[-1] / 2
    for sweep in range(8):
        sequence = list(range(n_layers)) if sweep % 2 == 0 else list(range(n_layers))[::-1]
        for k in sequence:
            layer_ = layers[k]
            packed = offsets(layer_)
            targets = []
            for v in layer_:
                linked = list(up.get(v, ())) + list(down.get(v, ()))
                targets.append(np.mean(x[linked]) if linked else x[v])
            x[layer_] = _isotonic(np.asarray(targets) - packed) + packed
    positions = {nodes[v]: (float(x[v]), -_LAYER_GAP * layer[v]) for v in range(n)}
    routes = {}
    for edge, chain in chains.items():
        bends = [(float(x[d]), -_LAYER_GAP * vertex_layer[d]) for d in chain[1:-1]]
        routes[edge] = bends if chain[0] == index[edge[0]] else bends[::-1]
    return positions, routes


def circular_layout(nodes, radius=None):
    """Nodes evenly on a circle, the first at the top, clockwise (inches).

    Parameters
    ----------
    nodes : sequence
        The nodes, in the order they are placed around the circle.
    radius : float, optional
        Radius of the circle in inches; default ``max(1.2, 0.35 * len(nodes))``.

    Returns
    -------
    positions : dict
        Node -> ``(x, y)`` in inches, the centre of the circle at the origin.
    """
    n = len(nodes)
    radius = max(1.2, 0.35 * n) if radius is None else radius
    angles = np.pi / 2 - 2 * np.pi * np.arange(n) / max(n, 1)
    return {v: (float(radius * np.cos(a)), float(radius * np.sin(a)))
            for v, a in zip(nodes, angles)}


# ---------------------------------------------------------------------- drawing
def _label_widths(nodes, font_size):
    """Width in inches of each node's boxed label (text extent plus the box padding)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    font = FontProperties(size=font_size)
    pad = 2 * 0.3 * font_size / 72
    return [text_to_path.get_text_width_height_descent(str(v), font, ismath=False)[0] / 72
            + pad + 0.05 for v in nodes]


def _graph_axes(nodes, positions, routes, font_size, ax):
    """Axes whose data unit is one inch when new (labels then never overlap), with limits set."""
    xs = np.array([positions[v][0] for v in nodes] or [0.0])
    ys = np.array([positions[v][1] for v in nodes] or [0.0])
    half_widths = np.array(_label_widths(nodes, font_size) or [0.5]) / 2
    bends = [x for points in routes.values() for x, _ in points] or [0.0]
    xlim = (min(min(xs - half_widths), min(bends)) - 0.2,
            max(max(xs + half_widths), max(bends)) + 0.2)
    if xlim[1] - xlim[0] < _MIN_WIDTH:  # room for a title and a legend's height
        centre = (xlim[0] + xlim[1]) / 2
        xlim = (centre - _MIN_WIDTH / 2, centre + _MIN_WIDTH / 2)
    ylim = (ys.min() - 0.3, ys.max() + 0.3)
    if ax is None:
        plt = _pyplot()
        width, height = xlim[1] - xlim[0], ylim[1] - ylim[0]
        figure = plt.figure(figsize=(width / 0.96, (height + 0.4) / 0.96))
        ax = figure.add_axes((0.02, 0.02, 0.96, 0.96 * height / (height + 0.4)))
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_axis_off()
    return ax


def _clip_to_box(inside, outside, box):
    """Point where the segment from ``inside`` (box centre) to ``outside`` leaves ``box``."""
    (x0, y0), (x1, y1) = inside, outside
    half_w, half_h = box.width / 2 + 2, box.height / 2 + 2  # 2 display units of air
    dx, dy = x1 - x0, y1 - y0
    scale = min(half_w / abs(dx) if dx else np.inf, half_h / abs(dy) if dy else np.inf)
    if not np.isfinite(scale) or scale >= 1:
        return inside
    return x0 + dx * scale, y0 + dy * scale


def _draw(ax, nodes, positions, edges, font_size, node_color=NODE_FACE):
    """Nodes as boxed labels, then every edge as one ``FancyArrowPatch`` clipped to the boxes.

    ``edges``: list of dicts with keys ``u, v, bends, arrow, color`` and optional ``style``,
    ``width`` and ``curved`` (an edge without bends drawn as a quadratic Bezier arc bulging
    to its left by a quarter of its length, so it does not run through the labels of its
    layer or over a straight edge).
    """
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path as MplPath

    texts = {}
    for v in nodes:
        x, y = positions[v]
        texts[v] = ax.text(x, y, str(v), ha="center", va="center", fontsize=font_size,
                           zorder=3, bbox=dict(boxstyle="round,pad=0.3", fc=node_color,
                                               ec=NODE_EDGE, lw=0.8))
    # the label boxes are sized at draw time: size them now, without drawing the figure
    renderer = ax.figure.canvas.get_renderer()
    to_display, to_data = ax.transData, ax.transData.inverted()
    boxes = {}
    for v, text in texts.items():
        text.update_bbox_position_size(renderer)
        boxes[v] = text.get_bbox_patch().get_window_extent(renderer)
    patches = []
    for edge in edges:
        points = [positions[edge["u"]]] + list(edge["bends"]) + [positions[edge["v"]]]
        display = [tuple(p) for p in to_display.transform(points)]
        codes = None
        if edge.get("curved") and len(display) == 2:
            (x0, y0), (x1, y1) = display
            control = ((x0 + x1) / 2 - (y1 - y0) / 4, (y0 + y1) / 2 + (x1 - x0) / 4)
            display = [display[0], control, display[1]]
            codes = [MplPath.MOVETO, MplPath.CURVE3, MplPath.CURVE3]
        display[0] = _clip_to_box(display[0], display[1], boxes[edge["u"]])
        display[-1] = _clip_to_box(display[-1], display[-2], boxes[edge["v"]])
        vertices = to_data.transform(display)
        patch = FancyArrowPatch(
            path=MplPath(vertices, codes), arrowstyle="-|>" if edge["arrow"] else "-",
            mutation_scale=10, color=edge["color"], linestyle=edge.get("style", "-"),
            linewidth=edge.get("width", 1.1), zorder=2)
        patch.skbn_edge = (edge["u"], edge["v"])  # lets tests and users find an edge
        ax.add_patch(patch)
        patches.append(patch)
    return patches


def plot_network(model_or_edges, ax=None, layout="layered", nodes=None, undirected=(), *,
                 font_size=9, node_color=NODE_FACE, edge_color=EDGE_COLOR, title=None):
    """Draw a DAG or a CPDAG: arrows for directed edges, plain lines for undirected ones.

    Parameters
    ----------
    model_or_edges : fitted estimator, DiscreteBayesianNetwork, PDAG or list of (u, v)
        A fitted estimator gives ``edges_``; one with ``undirected_edges_`` (PC, GES)
        is drawn as its CPDAG (``directed_edges_`` as arrows).
    ax : matplotlib Axes, optional
        Drawn on a new figure sized to the graph when None.
    layout : {"layered", "circular"} or dict, default="layered"
        Layered: parents above children (Sugiyama layout, see the module docstring).
        Circular: nodes on a circle in node order. A dict gives node -> (x, y) in inches.
    nodes : sequence, optional
        All nodes (isolated ones included) and their order; default the model's nodes, or
        the nodes of the edge list in first-seen order.
    undirected : sequence of (u, v), default=()
        Edges to draw without arrowhead (replacing a directed edge on the same pair).
    font_size : float, default=9
        Font size of the node labels, in points.
    node_color : matplotlib colour, default=NODE_FACE
        Fill colour of the node boxes.
    edge_color : matplotlib colour, default=EDGE_COLOR
        Colour of the edges.
    title : str, optional
        Title of the axes; none when omitted.

    Returns
    -------
    ax : matplotlib Axes
        Nodes are ``Text`` artists (``ax.texts``); every edge is one
        ``FancyArrowPatch`` in ``ax.patches`` whose ``skbn_edge`` attribute is its pair.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skbn.datasets import asia_network
    >>> from skbn.plotting import plot_network
    >>> ax = plot_network(asia_network())
    >>> len(ax.texts), len(ax.patches)
    (8, 8)
    """
    nodes, directed, extra = _as_graph(model_or_edges, nodes, undirected)
    positions, routes = _positions(nodes, directed, extra, layout, font_size)
    ax = _graph_axes(nodes, positions, routes, font_size, ax)
    edges = [dict(u=u, v=v, bends=routes.get((u, v), []), arrow=True, color=edge_color)
             for u, v in directed]
    edges += [dict(u=u, v=v, bends=routes.get((u, v), []), arrow=False, color=edge_color)
              for u, v in extra]
    _draw(ax, nodes, positions, edges, font_size, node_color)
    if title is not None:
        ax.set_title(title)
    return ax


def _positions(nodes, directed, undirected, layout, font_size):
    if isinstance(layout, dict):
        missing = [v for v in nodes if v not in layout]
        if missing:
            raise ValueError(f"layout gives no position for node(s) {missing!r}.")
        return {v: tuple(layout[v]) for v in nodes}, {}
    if layout == "layered":
        return layered_layout(nodes, directed, undirected, _label_widths(nodes, font_size))
    if layout == "circular":
        return circular_layout(nodes), {}
    raise ValueError(f"layout must be 'layered', 'circular' or a dict of positions, "
                     f"got {layout!r}.")


def comparison_classes(true, learned, nodes=None):
    """Classify edges of ``learned`` against ``true``.

    Returns
    -------
    classes : dict
        ``"true positive"``, ``"reversed"``, ``"false positive"``, ``"missed"`` -> list of
        ``(u, v, directed)``: learned edges as learned (missed ones as in ``true``);
        ``directed`` is False for a learned undirected edge. An undirected learned edge
        on a true adjacency is a true positive.
    nodes, true_directed, true_undirected : the union of the nodes and the true graph.
    """
    true_nodes, true_directed, true_undirected = _as_graph(true, nodes)
    learned_nodes, learned_directed, learned_undirected = _as_graph(learned, nodes)
    all_nodes = list(dict.fromkeys(true_nodes + learned_nodes))
    true_arcs = set(true_directed)
    true_pairs = {frozenset(e) for e in true_directed + true_undirected}
    learned_pairs = {frozenset(e) for e in learned_directed + learned_undirected}
    classes = {name: [] for name in COMPARISON_COLORS}
    for (u, v), directed in ([(e, True) for e in learned_directed]
                             + [(e, False) for e in learned_undirected]):
        pair = frozenset((u, v))
        if pair not in true_pairs:
            classes["false positive"].append((u, v, directed))
        elif not directed or (u, v) in true_arcs or (v, u) not in true_arcs:
            classes["true positive"].append((u, v, directed))
        else:
            classes["reversed"].append((u, v, directed))
    for u, v in true_directed + true_undirected:
        if frozenset((u, v)) not in learned_pairs:
            classes["missed"].append((u, v, (u, v) in true_arcs))
    return classes, all_nodes, true_directed, true_undirected


def plot_comparison(true, learned, ax=None, layout="layered", nodes=None, *, font_size=9,
                    legend=True, title=None):
    """Draw a learned graph over the true one, each edge coloured by its class.

    Classes (colours in :data:`COMPARISON_COLORS`): **true positive** (the learned edge is
    a true edge in the same direction, or an undirected learned edge on a true adjacency),
    **reversed** (a true adjacency learned in the opposite direction), **false positive**
    (no adjacency in the truth) and **missed** (a true edge that was not learned, drawn
    dashed). The layout is that of the true graph, so pictures of several learners of the
    same truth line up; false positives, which the layout does not route, are drawn as arcs.

    Parameters
    ----------
    true, learned : fitted estimator, DiscreteBayesianNetwork, PDAG or list of (u, v)
        The true graph and the learned one (a CPDAG's undirected edges count as the true
        adjacency in either direction).
    ax : matplotlib Axes, optional
        Drawn on a new figure sized to the graph when None.
    layout : {"layered", "circular"} or dict, default="layered"
        Layout of the true graph, as in :func:`plot_network`.
    nodes : sequence, optional
        All nodes and their order.
    font_size : float, default=9
        Font size of the node labels and of the legend, in points.
    legend : bool, default=True
        A legend with the count of edges of each class.
    title : str, optional
        Title of the axes; none when omitted.

    Returns
    -------
    ax : matplotlib Axes
        Every edge is a ``FancyArrowPatch`` with ``skbn_edge`` (its pair) and
        ``skbn_class`` (its class) attributes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skbn.plotting import plot_comparison
    >>> ax = plot_comparison([("a", "b"), ("b", "c")], [("b", "a"), ("a", "c")])
    >>> sorted(p.skbn_class for p in ax.patches)
    ['false positive', 'missed', 'reversed']
    """
    classes, all_nodes, true_directed, true_undirected = comparison_classes(true, learned, nodes)
    positions, routes = _positions(all_nodes, true_directed, true_undirected, layout, font_size)
    for (u, v), bends in list(routes.items()):
        routes[(v, u)] = bends[::-1]
    ax = _graph_axes(all_nodes, positions, routes, font_size, ax)
    edges = []
    for name, members in classes.items():
        for u, v, directed in members:
            edges.append(dict(u=u, v=v, bends=routes.get((u, v), []), arrow=directed,
                              color=COMPARISON_COLORS[name],
                              style="--" if name == "missed" else "-",
                              width=1.0 if name == "missed" else 1.5, kind=name,
                              curved=name == "false positive"))
    patches = _draw(ax, all_nodes, positions, edges, font_size)
    for patch, edge in zip(patches, edges):
        patch.skbn_class = edge["kind"]
    if legend:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], color=COMPARISON_COLORS[name],
                          linestyle="--" if name == "missed" else "-", lw=1.5,
                          label=f"{name} ({len(members)})")
                   for name, members in classes.items()]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0),
                  frameon=False, fontsize=font_size)
    if title is not None:
        ax.set_title(title)
    return ax


def edge_strength_matrix(matrix_or_frame, nodes=None):
    """``(matrix, nodes)`` from a p x p array/DataFrame or a bnlearn ``boot.strength`` frame.

    An object with a ``strength_matrix_`` attribute (a fitted bootstrap estimator) gives
    that matrix.

    A long frame has columns ``from``/``to`` (or ``source``/``target``), ``strength`` and
    optionally ``direction``: entry ``(u, v)`` is ``strength * direction``, the
    probability of the arc ``u -> v`` (bnlearn: strength = P(u and v adjacent),
    direction = P(u -> v | adjacent)); without ``direction`` the matrix is symmetric.
    """
    data = matrix_or_frame
    if hasattr(data, "strength_matrix_"):  # a fitted bootstrap estimator
        data = data.strength_matrix_
    if isinstance(data, pd.DataFrame) and "strength" in data.columns:
        columns = ("from", "to") if {"from", "to"} <= set(data.columns) else ("source", "target")
        if not set(columns) <= set(data.columns):
            raise ValueError("An edge-strength frame needs columns 'from', 'to' (or "
                             "'source', 'target') and 'strength'.")
        pairs = list(zip(data[columns[0]], data[columns[1]]))
        if nodes is None:
            nodes = list(dict.fromkeys(w for pair in pairs for w in pair))
        index = {v: i for i, v in enumerate(nodes)}
        matrix = np.zeros((len(nodes), len(nodes)))
        strength = data["strength"].to_numpy(dtype=float)
        direction = (data["direction"].to_numpy(dtype=float) if "direction" in data.columns
                     else None)
        for k, (u, v) in enumerate(pairs):
            if u not in index or v not in index:
                raise ValueError(f"Edge ({u!r}, {v!r}) uses a node not in nodes.")
            if direction is None:
                matrix[index[u], index[v]] = matrix[index[v], index[u]] = strength[k]
            else:
                matrix[index[u], index[v]] = strength[k] * direction[k]
        return matrix, list(nodes)
    if isinstance(data, pd.DataFrame):
        matrix = data.to_numpy(dtype=float)
        nodes = list(data.columns) if nodes is None else list(nodes)
    else:
        matrix = np.asarray(data, dtype=float)
        nodes = list(range(matrix.shape[0])) if nodes is None else list(nodes)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"Edge strengths must be a square matrix, got shape {matrix.shape}.")
    if len(nodes) != matrix.shape[0]:
        raise ValueError(f"{len(nodes)} node names for a {matrix.shape[0]}-node matrix.")
    return matrix, nodes


def plot_edge_strength(matrix_or_frame, ax=None, threshold=None, nodes=None, *,
                       cmap="Blues", annotate=None, title=None):
    """Heat map of edge strengths: row = parent, column = child.

    Parameters
    ----------
    matrix_or_frame : array of shape (p, p), DataFrame or fitted estimator
        A square matrix (DataFrame columns name the nodes) of arc strengths in [0, 1], a
        long frame in bnlearn's ``boot.strength`` shape (see :func:`edge_strength_matrix`),
        or an estimator with a ``strength_matrix_`` attribute.
    ax : matplotlib Axes, optional
        Drawn on a new figure sized to the number of nodes when None.
    threshold : float, optional
        Cells below it are left blank (bnlearn's averaged network keeps arcs with strength
        above a threshold).
    nodes : sequence, optional
        Node names and order.
    cmap : str, default="Blues"
        Matplotlib colour map of the strengths.
    annotate : bool, optional
        Write the value in each shown cell; default when p <= 12.
    title : str, optional
        Title of the axes; none when omitted.

    Returns
    -------
    ax : matplotlib Axes
        ``ax.images[0].get_array()`` is the (masked) matrix drawn.
    """
    plt = _pyplot()
    matrix, nodes = edge_strength_matrix(matrix_or_frame, nodes)
    shown = np.ma.masked_less(matrix, threshold) if threshold is not None else np.ma.asarray(matrix)
    if ax is None:
        size = min(max(3.0, 0.35 * len(nodes) + 1.5), 20.0)
        _, ax = plt.subplots(figsize=(size + 1.0, size))
    image = ax.imshow(shown, cmap=cmap, vmin=0.0, vmax=max(1.0, float(np.nanmax(matrix, initial=0))))
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="strength")
    ticks = np.arange(len(nodes))
    ax.set_xticks(ticks, [str(v) for v in nodes], rotation=90, fontsize=8)
    ax.set_yticks(ticks, [str(v) for v in nodes], fontsize=8)
    ax.set_xlabel("child")
    ax.set_ylabel("parent")
    if annotate is None:
        annotate = len(nodes) <= 12
    if annotate:
        for (i, j), value in np.ndenumerate(matrix):
            if not np.ma.is_masked(shown[i, j]) and value > 0:
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if value > 0.6 else "black")
    if title is not None:
        ax.set_title(title)
    return ax


def plot_search_trace(estimator, ax=None, *, title=None):
    """The score after each move of a local search (``HillClimbStructure.trace_``).

    Parameters
    ----------
    estimator : fitted estimator with ``trace_``, or a 1-D array of scores
        A fitted local search (e.g. :class:`~skbn.estimators.HillClimbStructure`), or the
        scores themselves, one per move.
    ax : matplotlib Axes, optional
        Drawn on a new 6 x 3.5 inch figure when None.
    title : str, optional
        Title of the axes; default "score along the search".

    Returns
    -------
    ax : matplotlib Axes
        One line: x = move number (0 = the start graph), y = score.
    """
    plt = _pyplot()
    if hasattr(estimator, "get_params"):
        if not hasattr(estimator, "trace_"):
            raise ValueError(f"{type(estimator).__name__} has no trace_: fit a "
                             f"HillClimbStructure first.")
        trace, label = np.asarray(estimator.trace_, dtype=float), type(estimator).__name__
    else:
        trace, label = np.asarray(estimator, dtype=float), "search"
    if trace.ndim != 1:
        raise ValueError(f"A search trace is one score per move, got shape {trace.shape}.")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(np.arange(len(trace)), trace, marker="." if len(trace) < 60 else None, label=label)
    if len(trace):
        best = int(np.argmax(trace))
        ax.plot([best], [trace[best]], "o", color="#c92a2a", label=f"best {trace[best]:.2f}")
    ax.set_xlabel("move")
    ax.set_ylabel("score")
    ax.legend(frameon=False)
    ax.set_title(title if title is not None else "score along the search")
    return ax
