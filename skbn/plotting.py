"""Pictures of networks: the learned graph, learned vs true, edge strengths, search traces.

matplotlib is an optional dependency (``pip install matplotlib``), imported only when a
function draws; networkx is not needed. Every function draws on ``ax`` (a new figure
sized to the graph, at most 16 x 16 inches, when ``None``) and returns the Axes.

The layered layout follows Sugiyama, Tagawa and Toda (1981):

1. **layers** -- each node goes one layer below its lowest parent (longest path from the
   sources), so every edge points downwards; undirected (CPDAG) edges are oriented along a
   topological order of the directed part first, for the layering only (they are drawn
   without arrowheads). A node without parents moves down to just above its highest child;
2. **bounded width** -- a layer wider than the figure allows gives nodes to the layer
   below (descendants move down with them, so every edge still points down), preferring
   nodes that move alone; nodes without any edge are packed in a near-square grid beside
   or below the graph, never in a long row;
3. **virtual nodes** -- an edge spanning ``k > 1`` layers gets ``k - 1`` invisible bend
   points, one per crossed layer, so it is routed between the nodes;
4. **crossing reduction** -- alternating downward and upward sweeps sort each layer by the
   barycentre (mean position) of the neighbours in the previous layer (Sugiyama et al.;
   the layer-by-layer sweep of Eades and Wormald, 1994); the ordering with the fewest
   crossings wins;
5. **coordinates** -- each node is pulled towards the mean x of its neighbours, subject to
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
from itertools import pairwise

import numpy as np
import pandas as pd

from skbn._dag import cycle_breaking_order, depth_first_order

__all__ = [
    "auto_font_size",
    "circular_layout",
    "edge_strength_tables",
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
#: Colour of the cells :func:`plot_edge_strength` leaves blank (diagonal, below threshold).
HIDDEN_CELL = "#dee2e6"

_DUMMY_WIDTH = 0.05    # inches reserved for an edge passing through a layer
_NODE_GAP = 0.25       # inches of air between neighbouring labels
_MIN_WIDTH = 2.5       # inches: narrowest figure drawn for a graph
_N_SWEEPS = 24
_ASPECT = 2.0         # width / height aimed at by the layered layout's layer width


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("skbn.plotting needs matplotlib: pip install matplotlib") from None
    return plt


# ---------------------------------------------------------------------- graph input
def _as_graph(graph, nodes=None, undirected=()):
    """``(nodes, directed, undirected)`` from an estimator, network, PDAG or edge list."""
    from skbn.graph import PDAG

    found_nodes = None
    if _is_network(graph):
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
                        f"(with edges_), a network object (discrete, Gaussian or CLG), a PDAG "
                        f"or a list of (parent, child) edges.")
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


def _is_network(graph):
    from skbn.network import CLGBayesianNetwork, DiscreteBayesianNetwork, GaussianBayesianNetwork

    return isinstance(graph, (CLGBayesianNetwork, DiscreteBayesianNetwork,
                              GaussianBayesianNetwork))


#: matplotlib box style of a node by its DOT shape (``to_dot``): continuous nodes are ellipses
_BOX_STYLES = {None: "round,pad=0.3", "box": "round,pad=0.3", "ellipse": "ellipse,pad=0.3"}


# ---------------------------------------------------------------------- layouts
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
    """Number of crossings between two adjacent layers (orders as lists of vertex ids).

    Two segments ``(a1, b1)`` and ``(a2, b2)`` (positions in the upper and lower layer)
    cross when ``(a1 - a2) * (b1 - b2) < 0``; all pairs are compared at once.
    """
    up_pos = {v: k for k, v in enumerate(upper)}
    low_pos = {v: k for k, v in enumerate(lower)}
    segments = np.array([(up_pos[a], low_pos[b]) for a in upper for b in down_edges.get(a, ())
                         if b in low_pos], dtype=float).reshape(-1, 2)
    a, b = segments[:, 0], segments[:, 1]
    return int(np.count_nonzero(np.subtract.outer(a, a) * np.subtract.outer(b, b) < 0)) // 2


def _longest_path_layers(n, parents, children, order):
    """Layer of each vertex: one below its lowest parent; sources just above their highest child."""
    layer = np.zeros(n, dtype=int)
    for v in order:
        layer[v] = max((layer[p] + 1 for p in parents[v]), default=0)
    for v in order[::-1]:
        if not parents[v] and children[v]:
            layer[v] = min(layer[c] for c in children[v]) - 1
    return layer


def _bound_layer_widths(layer, parents, children, order, widths, max_width, node_gap):
    """Move vertices down until every layer (its labels and gaps) fits in ``max_width``.

    Layers are fixed from the top: while layer ``k`` is too wide, one of its vertices moves
    to ``k + 1`` and its descendants move down as far as needed to stay below their parents
    (so every edge still points down). The vertex moved is the first by the key (added
    bend points, i.e. the change of ``sum(layer[child] - layer[parent] - 1)`` over the
    edges; vertices pushed along; later in ``order`` first). A layer of one vertex is never
    split.
    """
    layer = layer.copy()
    rank = np.empty(len(layer), dtype=int)
    rank[order] = np.arange(len(order))
    arcs = np.array([(p, c) for c in range(len(layer)) for p in parents[c]], dtype=int).reshape(-1, 2)

    def pushed_layers(v, target):
        new = layer.copy()
        new[v] = target
        for w in order[rank[v] + 1:]:
            if parents[w]:
                new[w] = max(new[w], max(new[p] for p in parents[w]) + 1)
        return new

    def span(layers_):
        return int(np.sum(layers_[arcs[:, 1]] - layers_[arcs[:, 0]]))

    k = 0
    while k <= layer.max(initial=-1):
        members = [v for v in order if layer[v] == k]
        while len(members) > 1 and (sum(widths[v] for v in members)
                                    + node_gap * (len(members) - 1)) > max_width:
            base = span(layer)
            best = None
            for v in members:
                if all(layer[c] > k + 1 for c in children[v]):  # moves alone
                    key = (len(parents[v]) - len(children[v]), 1, -rank[v])
                else:
                    moved = pushed_layers(v, k + 1)
                    key = (span(moved) - base, int(np.count_nonzero(moved != layer)), -rank[v])
                if best is None or key < best[0]:
                    best = (key, v)
            v = best[1]
            layer = pushed_layers(v, k + 1)
            members.remove(v)
        k += 1
    return layer


def _grid_block(widths, row_pitch, node_gap):
    """Offsets of ``len(widths)`` labels in a near-square grid, filled row by row.

    Returns ``(offsets, block_width, block_height)``; offsets are label centres measured
    from the block's top-left corner (y negative downwards). The number of columns,
    ``ceil(sqrt(k * row_pitch / column_pitch))``, makes the block about as wide as tall.
    """
    k = len(widths)
    column_pitch = max(widths) + node_gap
    n_columns = max(1, int(np.ceil(np.sqrt(k * row_pitch / column_pitch))))
    n_rows = int(np.ceil(k / n_columns))
    offsets = [(column_pitch * (i % n_columns + 0.5), -row_pitch * (i // n_columns + 0.5))
               for i in range(k)]
    return offsets, column_pitch * n_columns, row_pitch * n_rows


def layered_layout(nodes, edges, undirected=(), label_widths=None, *, max_width=None,
                   layer_gap=0.9, node_gap=0.25, isolated=None):
    """Sugiyama-style layered positions, isolated nodes packed in a block aside.

    See the module docstring for the steps. Every directed edge goes from a higher layer
    to a lower one (when ``edges`` has no cycle).

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
    max_width : float, optional
        Widest layer allowed (labels plus gaps, in x units): wider layers give vertices to
        the layer below (every edge still points down). ``None``: no bound.
    layer_gap : float, default=0.9
        Vertical distance between layers.
    node_gap : float, default=0.25
        Smallest horizontal gap between neighbouring labels.
    isolated : sequence, optional
        Nodes packed in the block aside; default the nodes without any edge. They are
        placed row by row in ``nodes`` order in a near-square grid (rows ``layer_gap / 2``
        apart): in an empty bottom corner of the graph's bounding box if one is large
        enough (right first), else to the right of the graph or below it, whichever keeps
        the larger side of the whole picture smaller (right on ties).

    Returns
    -------
    positions : dict
        Node -> ``(x, y)``; layer ``k`` has ``y = -k * layer_gap``.
    routes : dict
        ``(u, v)`` (as in ``edges`` / ``undirected``) -> list of ``(x, y)`` bend points
        strictly between the two nodes (empty for an edge between adjacent layers).
    """
    all_widths = (np.ones(len(nodes)) if label_widths is None
                  else np.asarray(label_widths, dtype=float))
    width_of = dict(zip(nodes, all_widths))
    if isolated is None:
        linked = {w for e in list(edges) + list(undirected) for w in e}
        isolated = [v for v in nodes if v not in linked]
    isolated_set = set(isolated)
    on_edges = [v for v in nodes if v in isolated_set
                and any(v in e for e in list(edges) + list(undirected))]
    if on_edges:
        raise ValueError(f"isolated node(s) {on_edges!r} have edges.")
    isolated = [v for v in nodes if v in isolated_set]
    graph_nodes = [v for v in nodes if v not in isolated_set]
    positions, routes = _layered_graph(graph_nodes, edges, undirected,
                                       [width_of[v] for v in graph_nodes], max_width,
                                       layer_gap, node_gap)
    if not isolated:
        return positions, routes
    row_pitch = layer_gap / 2
    offsets, block_w, block_h = _grid_block([width_of[v] for v in isolated], row_pitch, node_gap)
    if positions:
        left = min(x - width_of[v] / 2 for v, (x, _) in positions.items())
        right = max(x + width_of[v] / 2 for v, (x, _) in positions.items())
        top = max(y for _, y in positions.values()) + row_pitch / 2
        bottom = min(y for _, y in positions.values()) - row_pitch / 2
        gap = 2 * node_gap + 0.2 * layer_gap
        beside = (right - left + gap + block_w, max(top - bottom, block_h))
        below = (max(right - left, block_w), top - bottom + gap + block_h)
        corner = _empty_corner(positions, routes, width_of, (left, right, bottom), block_w,
                               block_h, gap, row_pitch)
        if corner is None and max(beside) <= max(below):
            corner = (right + gap, top)
        elif corner is None:
            corner = ((left + right) / 2 - block_w / 2, bottom - gap)
    else:
        corner = (-block_w / 2, row_pitch / 2)
    for v, (dx, dy) in zip(isolated, offsets):
        positions[v] = (float(corner[0] + dx), float(corner[1] + dy))
    return positions, routes


def _empty_corner(positions, routes, width_of, box, block_w, block_h, gap, row_pitch):
    """Top-left corner for a block in an empty bottom corner of the graph's box, or None.

    The bottom-right corner is tried first, then the bottom-left one: the block, its bottom
    on the graph's bottom, fits when no label or edge segment within ``gap`` of its
    columns comes lower than ``gap`` above its top.
    """
    left, right, bottom = box
    for x0 in (right - block_w, left):
        x1 = x0 + block_w
        heights = [y - row_pitch / 2 for v, (x, y) in positions.items()
                   if x + width_of[v] / 2 > x0 - gap and x - width_of[v] / 2 < x1 + gap]
        for (u, v), bends in routes.items():  # every edge segment over those columns
            line = [positions[u]] + list(bends) + [positions[v]]
            heights += [min(ya, yb) for (xa, ya), (xb, yb) in pairwise(line)
                        if min(xa, xb) < x1 + gap and max(xa, xb) > x0 - gap]
        top = min(heights, default=bottom + block_h + gap) - gap
        if top - block_h >= bottom:
            return x0, bottom + block_h
    return None


def _layered_graph(nodes, edges, undirected, widths, max_width, layer_gap, node_gap):
    """The layered layout of ``nodes`` (every one on an edge or laid out as a lone vertex)."""
    index = {v: i for i, v in enumerate(nodes)}
    n = len(nodes)
    widths = np.asarray(widths, dtype=float)
    order = cycle_breaking_order(n, [(index[u], index[v]) for u, v in edges])
    rank = np.empty(n, dtype=int)
    rank[order] = np.arange(n)
    arcs = []  # (upper, lower, original edge) oriented from earlier to later in ``order``
    for u, v in list(edges) + list(undirected):
        i, j = index[u], index[v]
        arcs.append((i, j, (u, v)) if rank[i] < rank[j] else (j, i, (u, v)))
    parents, children = [[] for _ in range(n)], [[] for _ in range(n)]
    for i, j, _ in arcs:
        parents[j].append(i)
        children[i].append(j)
    layer = _longest_path_layers(n, parents, children, order)
    if max_width is not None:
        layer = _bound_layer_widths(layer, parents, children, order, widths, max_width, node_gap)

    # virtual nodes: ids n, n+1, ... ; chains[edge] = [upper, d1, ..., lower]
    vertex_layer, vertex_width = list(layer), list(widths)
    down, up, chains, bend_depth = {}, {}, {}, {}
    for i, j, edge in arcs:
        chain = [i]
        for k in range(layer[i] + 1, layer[j]):
            vertex_layer.append(k)
            vertex_width.append(_DUMMY_WIDTH * node_gap / _NODE_GAP)
            chain.append(len(vertex_layer) - 1)
        chain.append(j)
        bend_depth.update((d, int(layer[j])) for d in chain[1:-1])
        for a, b in pairwise(chain):
            down.setdefault(a, []).append(b)
            up.setdefault(b, []).append(a)
        chains[edge] = chain
    n_layers = max(vertex_layer, default=-1) + 1
    layers = [[v for v in range(len(vertex_layer)) if vertex_layer[v] == k]
              for k in range(n_layers)]
    layers = _reduce_crossings(layers, up, down, n, bend_depth)

    # coordinates: pull towards neighbours' mean x under minimal gaps (isotonic regression)
    def offsets(layer_):  # x of each vertex when packed left to right with minimal gaps
        gaps = [0.0] + [(vertex_width[a] + vertex_width[b]) / 2
                        + node_gap * (1.0 if a < n and b < n else 0.5 if a < n or b < n else 0.2)
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
    positions = {nodes[v]: (float(x[v]), -layer_gap * float(layer[v])) for v in range(n)}
    routes = {}
    for edge, chain in chains.items():
        bends = [(float(x[d]), -layer_gap * float(vertex_layer[d])) for d in chain[1:-1]]
        routes[edge] = bends if chain[0] == index[edge[0]] else bends[::-1]
    return positions, routes


def _sort_layer(layer_, keys, n_real, bend_depth):
    """``layer_`` sorted by ``keys`` (stable), bend points in the middle of ties.

    Within a run of equal keys the bend points (ids ``>= n_real``) go to the middle of the
    run, those of edges ending soonest (``bend_depth``: layer of the edge's lower end)
    outermost, alternately left and right: edges passing through a layer then run between
    its labels in a bundle that sheds its outer edges first, rather than beside the labels.
    """
    ordered = [v for _, _, v in sorted(zip(keys, range(len(keys)), layer_))]
    key_of = dict(zip(layer_, keys))
    result, start = [], 0
    while start < len(ordered):
        stop = start
        while stop < len(ordered) and key_of[ordered[stop]] == key_of[ordered[start]]:
            stop += 1
        run = ordered[start:stop]
        real = [v for v in run if v < n_real]
        bends = sorted((v for v in run if v >= n_real), key=lambda v: bend_depth[v])
        result += real[:len(real) // 2] + bends[::2] + bends[1::2][::-1] + real[len(real) // 2:]
        start = stop
    return result


def _reduce_crossings(layers, up, down, n_real, bend_depth):
    """Barycentre sweeps (down, up, ...) after one downward pass from the given order; the
    ordering with the fewest crossings is kept."""
    n_layers = len(layers)
    layers = [list(layer_) for layer_ in layers]

    def total_crossings(candidate):
        return sum(_crossings(candidate[k], candidate[k + 1], down) for k in range(n_layers - 1))

    def sweep(downward):
        sequence = range(1, n_layers) if downward else range(n_layers - 2, -1, -1)
        for k in sequence:
            fixed = layers[k - 1] if downward else layers[k + 1]
            neighbours = up if downward else down
            position = {v: p for p, v in enumerate(fixed)}
            keys = []
            for p, v in enumerate(layers[k]):
                linked = [position[w] for w in neighbours.get(v, ()) if w in position]
                keys.append(float(np.mean(linked)) if linked else float(p))
            layers[k] = _sort_layer(layers[k], keys, n_real, bend_depth)

    sweep(True)
    best, best_crossings = [list(layer_) for layer_ in layers], total_crossings(layers)
    for k in range(_N_SWEEPS):
        if best_crossings == 0:
            break
        sweep(k % 2 == 1)
        crossings = total_crossings(layers)
        if crossings < best_crossings:
            best, best_crossings = [list(layer_) for layer_ in layers], crossings
    return best


def circular_layout(nodes, radius=None):
    """Nodes evenly on a circle, the first at the top, clockwise (inches).

    Parameters
    ----------
    nodes : sequence
        The nodes, in the order they are placed around the circle.
    radius : float, optional
        Radius of the circle in inches; default ``max(1, 0.22 * len(nodes) / (2 pi))``:
        0.22 in of arc per node, the height of a 9-point label and its gap, as
        :func:`plot_network` writes the labels outside the circle, along the radius.

    Returns
    -------
    positions : dict
        Node -> ``(x, y)`` in inches, the centre of the circle at the origin.
    """
    n = len(nodes)
    radius = max(1.0, 0.22 * n / (2 * np.pi)) if radius is None else radius
    angles = np.pi / 2 - 2 * np.pi * np.arange(n) / max(n, 1)
    return {v: (float(radius * np.cos(a)), float(radius * np.sin(a)))
            for v, a in zip(nodes, angles)}


# ---------------------------------------------------------------------- drawing
def auto_font_size(n_nodes):
    """Default label size in points: 9 up to 30 nodes, ``9 sqrt(30 / n)`` above, at least 6.

    Parameters
    ----------
    n_nodes : int
        Number of nodes drawn.

    Returns
    -------
    font_size : float
        9.0 at 30 nodes or fewer, 8.1 at 37 (ALARM), 6.6 at 56, 6.0 from 68 nodes on.
    """
    return float(np.clip(9.0 * np.sqrt(30.0 / max(n_nodes, 1)), 6.0, 9.0))


def _labels(nodes, max_label_length):
    """Label text of each node: ``str(node)``, cut to ``max_label_length`` characters with '…'."""
    if max_label_length is not None and (not isinstance(max_label_length, int)
                                         or max_label_length < 2):
        raise ValueError(f"max_label_length must be None or an integer >= 2, "
                         f"got {max_label_length!r}.")
    labels = [str(v) for v in nodes]
    if max_label_length is None:
        return labels
    return [s if len(s) <= max_label_length else s[:max_label_length - 1] + "…" for s in labels]


def _label_widths(labels, font_size):
    """Width in inches of each boxed label (text extent plus the box padding)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    font = FontProperties(size=font_size)
    pad = 2 * 0.3 * font_size / 72
    return [text_to_path.get_text_width_height_descent(label, font, ismath=False)[0] / 72
            + pad + 0.05 * font_size / 9 for label in labels]


def _gaps(font_size):
    """``(layer_gap, node_gap)`` in inches for labels of ``font_size`` points."""
    return 0.9 * font_size / 9, 0.25 * font_size / 9


def _extent(nodes, positions, routes, half_widths, half_height, edges=()):
    """``(xlim, ylim)`` around the labels, bend points and arcs, in data units.

    A ``curved`` edge (a quadratic Bezier arc whose control point is a quarter of its
    length off its midpoint, see :func:`_draw`) reaches half way to its control point.
    """
    xs = np.array([positions[v][0] for v in nodes] or [0.0])
    ys = np.array([positions[v][1] for v in nodes] or [0.0])
    half_widths = np.asarray(half_widths if len(half_widths) else [0.5])
    points = [p for bends in routes.values() for p in bends]
    for edge in edges:
        if edge.get("curved") and not edge["bends"]:
            (x0, y0), (x1, y1) = positions[edge["u"]], positions[edge["v"]]
            points.append(((x0 + x1) / 2 - (y1 - y0) / 8, (y0 + y1) / 2 + (x1 - x0) / 8))
    px = [x for x, _ in points] or [xs[0]]
    py = [y for _, y in points] or [ys[0]]
    xlim = (min(min(xs - half_widths), min(px)) - 0.2, max(max(xs + half_widths), max(px)) + 0.2)
    ylim = (min(ys.min() - half_height, min(py)) - 0.15, max(ys.max() + half_height, max(py)) + 0.15)
    return xlim, ylim


def _graph_axes(xlim, ylim, ax, max_size, title):
    """Axes showing ``xlim`` x ``ylim``, and the size in inches of one data unit.

    A new figure is sized so that one data unit is one inch, scaled down (by the returned
    factor) when either side would exceed ``max_size`` inches; a given ``ax`` keeps its size
    (factor 1).
    """
    scale = 1.0
    if xlim[1] - xlim[0] < _MIN_WIDTH:  # room for a title and a legend's height
        centre = (xlim[0] + xlim[1]) / 2
        xlim = (centre - _MIN_WIDTH / 2, centre + _MIN_WIDTH / 2)
    if ax is None:
        plt = _pyplot()
        width, height = xlim[1] - xlim[0], ylim[1] - ylim[0]
        title_space = 0.4 if title is not None else 0.0
        scale = min(1.0, max_size / width, (max_size - title_space) / height)
        fig_w, fig_h = width * scale, height * scale + title_space
        figure = plt.figure(figsize=(fig_w, fig_h))
        ax = figure.add_axes((0.0, 0.0, 1.0, height * scale / fig_h))
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_axis_off()
    if title is not None:
        ax.set_title(title)
    return ax, scale


def _clip_to_box(inside, outside, box):
    """Point where the segment from ``inside`` (box centre) to ``outside`` leaves ``box``."""
    (x0, y0), (x1, y1) = inside, outside
    half_w, half_h = box.width / 2 + 2, box.height / 2 + 2  # 2 display units of air
    dx, dy = x1 - x0, y1 - y0
    scale = min(half_w / abs(dx) if dx else np.inf, half_h / abs(dy) if dy else np.inf)
    if not np.isfinite(scale) or scale >= 1:
        return inside
    return x0 + dx * scale, y0 + dy * scale


def _clip_to_circle(inside, outside, radius):
    """Point at distance ``radius`` from ``inside`` towards ``outside`` (display units)."""
    (x0, y0), (x1, y1) = inside, outside
    length = np.hypot(x1 - x0, y1 - y0)
    if length <= radius:
        return inside
    return x0 + (x1 - x0) * radius / length, y0 + (y1 - y0) * radius / length


def _draw(ax, nodes, labels, positions, edges, font_size, node_color=NODE_FACE,
          circular=False, shapes=None):
    """Nodes as labels, then every edge as one ``FancyArrowPatch`` clipped to its end nodes.

    Layered (and user) layouts draw each node as its boxed label at its position. The
    circular layout draws each node as a dot on the circle and its label outside, along the
    radius (turned half a turn on the left half, so it never reads upside down).

    ``edges``: list of dicts with keys ``u, v, bends, arrow, color`` and optional ``style``,
    ``width``, ``curved`` (an edge without bends drawn as a quadratic Bezier arc bulging
    to its left by a quarter of its length, so it does not run through the labels of its
    layer or over a straight edge) and ``label`` (a text at the middle of the edge).
    ``shapes``: node -> DOT shape (``"ellipse"`` draws the node's box as an ellipse).
    """
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path as MplPath

    renderer = ax.figure.canvas.get_renderer()
    to_display, to_data = ax.transData, ax.transData.inverted()
    texts, boxes = {}, {}
    dot_radius = 0.35 * font_size * ax.figure.dpi / 72  # display units
    if circular:
        xy = np.array([positions[v] for v in nodes]).reshape(-1, 2)
        ax.scatter(xy[:, 0], xy[:, 1], s=(0.7 * font_size) ** 2, c=[node_color],
                   edgecolors=NODE_EDGE, linewidths=0.6, zorder=3)
        offset = (dot_radius + 0.6 * font_size * ax.figure.dpi / 72)
    for v, label in zip(nodes, labels):
        x, y = positions[v]
        if circular:
            angle = np.arctan2(y, x)
            dx, dy = to_display.transform((x, y))
            lx, ly = to_data.transform((dx + offset * np.cos(angle), dy + offset * np.sin(angle)))
            degrees = np.degrees(angle)
            left = np.cos(angle) < -1e-9
            text = ax.text(lx, ly, label, ha="right" if left else "left", va="center",
                           rotation=degrees + 180 if left else degrees,
                           rotation_mode="anchor", fontsize=font_size, zorder=3)
        else:
            style = _BOX_STYLES[(shapes or {}).get(v)]
            text = ax.text(x, y, label, ha="center", va="center", fontsize=font_size, zorder=3,
                           bbox=dict(boxstyle=style, fc=node_color, ec=NODE_EDGE, lw=0.8))
            # the label boxes are sized at draw time: size them now, without drawing
            text.update_bbox_position_size(renderer)
            boxes[v] = text.get_bbox_patch().get_window_extent(renderer)
        text.skbn_node = v  # lets tests and users find a node's label
        texts[v] = text
    patches = []
    head = max(5.0, 10.0 * font_size / 9)
    for edge in edges:
        points = [positions[edge["u"]]] + list(edge["bends"]) + [positions[edge["v"]]]
        display = [tuple(p) for p in to_display.transform(points)]
        codes = None
        if edge.get("curved") and len(display) == 2:
            (x0, y0), (x1, y1) = display
            control = ((x0 + x1) / 2 - (y1 - y0) / 4, (y0 + y1) / 2 + (x1 - x0) / 4)
            display = [display[0], control, display[1]]
            codes = [MplPath.MOVETO, MplPath.CURVE3, MplPath.CURVE3]
        if circular:
            display[0] = _clip_to_circle(display[0], display[1], dot_radius + 1)
            display[-1] = _clip_to_circle(display[-1], display[-2], dot_radius + 1)
        else:
            display[0] = _clip_to_box(display[0], display[1], boxes[edge["u"]])
            display[-1] = _clip_to_box(display[-1], display[-2], boxes[edge["v"]])
        vertices = to_data.transform(display)
        patch = FancyArrowPatch(
            path=MplPath(vertices, codes), arrowstyle="-|>" if edge["arrow"] else "-",
            mutation_scale=head, color=edge["color"], linestyle=edge.get("style", "-"),
            linewidth=edge.get("width", 1.1) * max(0.6, font_size / 9), zorder=2)
        patch.skbn_edge = (edge["u"], edge["v"])  # lets tests and users find an edge
        ax.add_patch(patch)
        patches.append(patch)
        if edge.get("label"):
            middle = (0.25 * vertices[0] + 0.5 * vertices[1] + 0.25 * vertices[2] if codes
                      else 0.5 * (vertices[(len(vertices) - 1) // 2]
                                  + vertices[len(vertices) // 2]))
            text = ax.text(*middle, edge["label"], ha="center", va="center",
                           fontsize=0.8 * font_size, color=edge["color"], zorder=4,
                           bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none",
                                     alpha=0.8))
            text.skbn_edge_label = (edge["u"], edge["v"])
    return patches


def _frame_isolated(ax, isolated, positions, half_widths, half_height, font_size):
    """A light frame around the packed block of nodes without edges, captioned 'no edges'."""
    from matplotlib.offsetbox import AnchoredOffsetbox, TextArea
    from matplotlib.patches import FancyBboxPatch

    xs = np.array([positions[v][0] for v in isolated])
    ys = np.array([positions[v][1] for v in isolated])
    half = np.array([half_widths[v] for v in isolated])
    x0, x1 = (xs - half).min() - 0.06, (xs + half).max() + 0.06
    y0, y1 = ys.min() - half_height - 0.06, ys.max() + half_height + 0.06
    ax.add_patch(FancyBboxPatch((x0, y0), x1 - x0, y1 - y0, boxstyle="round,pad=0.02",
                                fc="none", ec="#adb5bd", lw=0.8, ls=":", zorder=1))
    caption = AnchoredOffsetbox(
        loc="lower left", child=TextArea(f"no edges ({len(isolated)})",
                                         textprops=dict(fontsize=font_size, color="#868e96")),
        pad=0, borderpad=0.1, frameon=False, bbox_to_anchor=(x0, y1),
        bbox_transform=ax.transData)
    ax.add_artist(caption)


def _network_picture(nodes, directed, undirected, edges, *, ax, layout, font_size,
                     max_label_length, max_size, title, node_color, isolated=None, shapes=None):
    """Lay out, size the figure, and draw; returns ``(ax, patches)``."""
    _pyplot()  # without matplotlib, its one message before the label widths import it
    labels = _labels(nodes, max_label_length)
    font = auto_font_size(len(nodes)) if font_size is None else float(font_size)
    widths = _label_widths(labels, font)
    half_width = dict(zip(nodes, np.asarray(widths) / 2))
    layer_gap, node_gap = _gaps(font)
    half_height = (font * 1.2 / 72 + 2 * 0.3 * font / 72) / 2
    circular = isinstance(layout, str) and layout == "circular"
    if isinstance(layout, dict):
        missing = [v for v in nodes if v not in layout]
        if missing:
            raise ValueError(f"layout gives no position for node(s) {missing!r}.")
        positions, routes = {v: tuple(layout[v]) for v in nodes}, {}
    elif layout == "layered":
        max_width = _layer_width(widths, node_gap, layer_gap,
                                 max_size if ax is None else _axes_width(ax))
        positions, routes = layered_layout(nodes, directed, undirected, widths,
                                           max_width=max_width, layer_gap=layer_gap,
                                           node_gap=node_gap, isolated=isolated)
    elif circular:
        pitch = 1.2 * font / 72 + 0.05 * font / 9
        radius = max(1.5, 1.6 * pitch * len(nodes) / (2 * np.pi))
        around = _circle_order(nodes, list(directed) + list(undirected))
        positions, routes = circular_layout(around, radius), {}
    else:
        raise ValueError(f"layout must be 'layered', 'circular' or a dict of positions, "
                         f"got {layout!r}.")
    if circular:  # labels outside the circle: room for the longest on every side
        reach = (max(np.hypot(*positions[v]) for v in nodes) if nodes else 1.0)
        reach += 0.2 * font / 9 + (max(widths) if widths else 0.5)
        xlim = ylim = (-reach - 0.1, reach + 0.1)
    else:
        xlim, ylim = _extent(nodes, positions, routes, [half_width[v] for v in nodes],
                             half_height, edges(routes))
    ax, scale = _graph_axes(xlim, ylim, ax, max_size, title)
    patches = _draw(ax, nodes, labels, positions, edges(routes), font * scale, node_color,
                    circular=circular, shapes=shapes)
    if layout == "layered":
        linked = {w for e in list(directed) + list(undirected) for w in e}
        lone = [v for v in nodes if v not in linked] if isolated is None else list(isolated)
        if lone and len(lone) < len(nodes):
            _frame_isolated(ax, lone, positions, half_width, half_height, font * scale)
    return ax, patches


def _layer_width(widths, node_gap, layer_gap, available):
    """Widest layer allowed: a picture about ``_ASPECT`` times wider than tall, if it fits.

    ``L`` layers of total label width ``T`` (gaps included) are about ``T / L`` wide and
    ``L * layer_gap`` tall, so the width ``sqrt(_ASPECT * T * layer_gap)`` gives that
    aspect; never narrower than the widest label, never wider than ``available``.
    """
    total = float(np.sum(widths)) + node_gap * len(widths)
    balanced = np.sqrt(_ASPECT * total * layer_gap)
    return float(min(available, max(balanced, max(widths, default=1.0))))


def _circle_order(nodes, pairs):
    """Nodes in depth-first order of the skeleton (neighbours in node order), so that
    neighbours sit close on a circle; each connected component is one arc."""
    index = {v: i for i, v in enumerate(nodes)}
    neighbours = [[] for _ in nodes]
    for u, v in pairs:
        neighbours[index[u]].append(index[v])
        neighbours[index[v]].append(index[u])
    return [nodes[i] for i in depth_first_order(neighbours)]


def _axes_width(ax):
    """Width of ``ax`` in inches."""
    return float(ax.get_position().width * ax.figure.get_size_inches()[0])


def plot_network(model_or_edges, ax=None, layout="layered", nodes=None, undirected=(), *,
                 font_size=None, max_label_length=None, max_size=16.0, node_color=NODE_FACE,
                 edge_color=EDGE_COLOR, title=None, edge_labels=False):
    """Draw a DAG or a CPDAG: arrows for directed edges, plain lines for undirected ones.

    Parameters
    ----------
    model_or_edges : fitted estimator, network object, PDAG or list of (u, v)
        A fitted estimator gives ``edges_``; one with ``undirected_edges_`` (PC, GES)
        is drawn as its CPDAG (``directed_edges_`` as arrows). A
        ``GaussianBayesianNetwork`` or ``CLGBayesianNetwork`` draws its continuous nodes
        as ellipses and its discrete nodes as boxes (the shapes of its ``to_dot``).
    ax : matplotlib Axes, optional
        Drawn on a new figure sized to the graph when None.
    layout : {"layered", "circular"} or dict, default="layered"
        Layered: parents above children, nodes without edges packed in a block aside
        (Sugiyama layout, see the module docstring). Circular (on request; the layered
        layout reads better above a few dozen nodes): nodes as dots on a circle, in
        depth-first order of the skeleton so that neighbours sit close, labels outside
        along the radius (the circle grows with the number of nodes). A dict gives
        node -> (x, y) in inches.
    nodes : sequence, optional
        All nodes (isolated ones included) and their order; default the model's nodes, or
        the nodes of the edge list in first-seen order.
    undirected : sequence of (u, v), default=()
        Edges to draw without arrowhead (replacing a directed edge on the same pair).
    font_size : float, optional
        Font size of the node labels, in points; default :func:`auto_font_size` of the
        number of nodes (9 points up to 30 nodes, down to 6 from 68 nodes on).
    max_label_length : int, optional
        Labels longer than this are cut to ``max_label_length - 1`` characters and '…'
        (the full name stays in the label's ``skbn_node`` attribute).
    max_size : float, default=16.0
        Largest width and height of a new figure, in inches. The layered layout keeps each
        layer within this width (moving nodes to lower layers); a picture still larger is
        scaled down, labels included, so labels never overlap.
    node_color : matplotlib colour, default=NODE_FACE
        Fill colour of the node boxes.
    edge_color : matplotlib colour, default=EDGE_COLOR
        Colour of the edges.
    title : str, optional
        Title of the axes; none when omitted.
    edge_labels : bool, default=False
        With a Gaussian or CLG network: write on every edge between continuous nodes its
        coefficient (one per configuration of the child's discrete parents; the labels of
        ``to_dot(edge_labels=True)``).

    Returns
    -------
    ax : matplotlib Axes
        Node labels are ``Text`` artists (``ax.texts``) whose ``skbn_node`` attribute is
        their node; every edge is one ``FancyArrowPatch`` in ``ax.patches`` whose
        ``skbn_edge`` attribute is its pair; an edge label is a ``Text`` whose
        ``skbn_edge_label`` attribute is its pair.

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
    network = model_or_edges if _is_network(model_or_edges) else None
    shapes = {v: network._node_shape(v) for v in network.nodes} if network else None

    def label(u, v):
        return network._edge_label(u, v) if edge_labels and network else None

    def edges(routes):
        return ([dict(u=u, v=v, bends=routes.get((u, v), []), arrow=True, color=edge_color,
                      label=label(u, v))
                 for u, v in directed]
                + [dict(u=u, v=v, bends=routes.get((u, v), []), arrow=False, color=edge_color)
                   for u, v in extra])

    ax, _ = _network_picture(nodes, directed, extra, edges, ax=ax, layout=layout,
                             font_size=font_size, max_label_length=max_label_length,
                             max_size=max_size, title=title, node_color=node_color,
                             shapes=shapes)
    return ax


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


def plot_comparison(true, learned, ax=None, layout="layered", nodes=None, *, font_size=None,
                    max_label_length=None, max_size=16.0, legend=True, title=None):
    """Draw a learned graph over the true one, each edge coloured by its class.

    Classes (colours in :data:`COMPARISON_COLORS`): **true positive** (the learned edge is
    a true edge in the same direction, or an undirected learned edge on a true adjacency),
    **reversed** (a true adjacency learned in the opposite direction), **false positive**
    (no adjacency in the truth) and **missed** (a true edge that was not learned, drawn
    dashed). The layout is that of the true graph, so pictures of several learners of the
    same truth line up; false positives, which the layout does not route, are drawn as arcs.
    Nodes without any edge, true or learned, are packed in a block aside.

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
    font_size : float, optional
        Font size of the node labels and of the legend, in points; default
        :func:`auto_font_size` of the number of nodes.
    max_label_length : int, optional
        Labels longer than this are cut, as in :func:`plot_network`.
    max_size : float, default=16.0
        Largest width and height of a new figure (without the legend), in inches, as in
        :func:`plot_network`.
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
    linked = {w for members in classes.values() for u, v, _ in members for w in (u, v)}

    def edges(routes):
        routes = dict(routes)
        for (u, v), bends in list(routes.items()):
            routes[(v, u)] = bends[::-1]
        return [dict(u=u, v=v, bends=routes.get((u, v), []), arrow=directed,
                     color=COMPARISON_COLORS[name], style="--" if name == "missed" else "-",
                     width=1.0 if name == "missed" else 1.5, kind=name,
                     curved=name == "false positive")
                for name, members in classes.items() for u, v, directed in members]

    ax, patches = _network_picture(
        all_nodes, true_directed, true_undirected, edges, ax=ax, layout=layout,
        font_size=font_size, max_label_length=max_label_length, max_size=max_size,
        title=title, node_color=NODE_FACE, isolated=[v for v in all_nodes if v not in linked])
    for patch, kind in zip(patches, [name for name, members in classes.items() for _ in members]):
        patch.skbn_class = kind
    if legend:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], color=COMPARISON_COLORS[name],
                          linestyle="--" if name == "missed" else "-", lw=1.5,
                          label=f"{name} ({len(members)})")
                   for name, members in classes.items()]
        size = auto_font_size(len(all_nodes)) if font_size is None else font_size
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0),
                  frameon=False, fontsize=size)
    return ax


#: Colour-bar label of each quantity :func:`plot_edge_strength` draws.
STRENGTH_LABELS = {
    "arc": "arc probability P(row → column) = strength × direction",
    "strength": "strength = P(row and column adjacent)",
    "direction": "direction = P(row → column | adjacent)",
}


def _pair_check(matrix, nodes, bad, message):
    """Raise ``ValueError(message)`` naming the first pair where ``bad`` holds."""
    i, j = np.argwhere(bad)[0]
    raise ValueError(message.format(u=nodes[i], v=nodes[j], a=matrix[i, j], b=matrix[j, i]))


def edge_strength_tables(matrix_or_frame, nodes=None, values=None):
    """The arc, strength and direction matrices of an edge-strength input.

    With ``A[u, v]`` the probability of the arc ``u -> v``, ``S = A + A.T`` is the
    strength (probability that ``u`` and ``v`` are adjacent, symmetric) and
    ``D = A / S`` the direction (probability of ``u -> v`` given adjacency; 0 where
    ``S = 0``), as in bnlearn's ``boot.strength``.

    Parameters
    ----------
    matrix_or_frame : array of shape (p, p), DataFrame or fitted estimator
        One of:

        * a fitted estimator with ``strength_matrix_`` (the bootstrap learner): ``A``;
        * a long frame with columns ``from``, ``to`` (or ``source``, ``target``),
          ``strength`` and optionally ``direction`` (bnlearn's ``boot.strength``, the
          bootstrap learner's ``edge_strength_``): ``S`` from ``strength`` and, with
          ``direction``, ``A = strength * direction`` and ``D``; a pair listed one way
          only gets the reverse direction ``1 - direction``;
        * a square array or DataFrame (columns name the nodes) holding the quantity named
          by ``values``: ``A`` by default (as ``strength_matrix_``,
          :func:`skbn.posterior.edge_posteriors` and order MCMC's ``edge_posterior_`` give).
    nodes : sequence, optional
        Node names and order.
    values : {"arc", "strength", "direction"}, optional
        What a square matrix holds (default ``"arc"``); ignored for the other inputs.

    Returns
    -------
    tables : dict
        ``"arc"``, ``"strength"``, ``"direction"`` -> float array of shape (p, p), for the
        quantities the input determines (a frame without ``direction`` gives only
        ``"strength"``; a direction matrix only ``"direction"``).
    nodes : list
        The node names, in matrix order.

    Raises
    ------
    ValueError
        A value outside [0, 1]; arc probabilities with ``A[u, v] + A[v, u] > 1``; a
        strength matrix that is not symmetric; a frame whose two rows of a pair disagree on
        the strength, or whose directions do not add up to 1. The message names the pair.
    """
    data = matrix_or_frame
    if hasattr(data, "strength_matrix_"):  # a fitted bootstrap estimator
        data, values = data.strength_matrix_, "arc"
    if isinstance(data, pd.DataFrame) and "strength" in data.columns:
        return _tables_from_frame(data, nodes)
    if isinstance(data, pd.DataFrame):
        matrix = data.to_numpy(dtype=float)
        nodes = list(data.columns) if nodes is None else list(nodes)
    else:
        matrix = np.asarray(data, dtype=float)
        nodes = list(range(matrix.shape[0])) if matrix.ndim == 2 and nodes is None else nodes
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"Edge strengths must be a square matrix, got shape {matrix.shape}.")
    nodes = list(nodes)
    if len(nodes) != matrix.shape[0]:
        raise ValueError(f"{len(nodes)} node names for a {matrix.shape[0]}-node matrix.")
    values = "arc" if values is None else values
    if values not in STRENGTH_LABELS:
        raise ValueError(f"values must be 'arc', 'strength' or 'direction', got {values!r}.")
    outside = ~((matrix >= 0) & (matrix <= 1))
    if outside.any():
        _pair_check(matrix, nodes, outside,
                    f"Edge {values} values are probabilities in [0, 1]: ({{u!r}}, {{v!r}}) is {{a}}.")
    if values == "direction":
        return {"direction": matrix}, nodes
    if values == "strength":
        if not np.allclose(matrix, matrix.T, atol=1e-9):
            _pair_check(matrix, nodes, ~np.isclose(matrix, matrix.T, atol=1e-9),
                        "A strength matrix is symmetric (P(u and v adjacent)), but "
                        "({u!r}, {v!r}) is {a} and ({v!r}, {u!r}) is {b}; for arc "
                        "probabilities P(u -> v) pass values='arc'.")
        return {"strength": matrix}, nodes
    strength = matrix + matrix.T
    if (strength > 1 + 1e-9).any():
        _pair_check(matrix, nodes, strength > 1 + 1e-9,
                    "Arc probabilities P(u -> v) and P(v -> u) add up to at most 1, but "
                    "({u!r}, {v!r}) is {a} and ({v!r}, {u!r}) is {b}; for a symmetric matrix "
                    "of strengths (P(u and v adjacent)) pass values='strength'.")
    direction = np.divide(matrix, strength, out=np.zeros_like(matrix), where=strength > 0)
    return {"arc": matrix, "strength": strength, "direction": direction}, nodes


def _tables_from_frame(data, nodes):
    """Tables of a long ``from``/``to``/``strength``[/``direction``] frame."""
    columns = ("from", "to") if {"from", "to"} <= set(data.columns) else ("source", "target")
    if not set(columns) <= set(data.columns):
        raise ValueError("An edge-strength frame needs columns 'from', 'to' (or "
                         "'source', 'target') and 'strength'.")
    pairs = list(zip(data[columns[0]], data[columns[1]]))
    if nodes is None:
        nodes = list(dict.fromkeys(w for pair in pairs for w in pair))
    nodes = list(nodes)
    index = {v: i for i, v in enumerate(nodes)}
    p = len(nodes)
    strength, seen = np.zeros((p, p)), np.zeros((p, p), dtype=bool)
    has_direction = "direction" in data.columns
    arc, direction, listed = np.zeros((p, p)), np.zeros((p, p)), np.zeros((p, p), dtype=bool)
    for (u, v), s, d in zip(pairs, data["strength"].to_numpy(dtype=float),
                            (data["direction"].to_numpy(dtype=float) if has_direction
                             else np.zeros(len(pairs)))):
        if u not in index or v not in index:
            raise ValueError(f"Edge ({u!r}, {v!r}) uses a node not in nodes.")
        i, j = index[u], index[v]
        for value, name in ((s, "strength"), (d, "direction")):
            if not 0 <= value <= 1:
                raise ValueError(f"Edge {name} values are probabilities in [0, 1]: "
                                 f"({u!r}, {v!r}) has {name} {value}.")
        if seen[i, j] and not np.isclose(strength[i, j], s, atol=1e-9):
            raise ValueError(f"The rows of the pair ({u!r}, {v!r}) disagree on its strength: "
                             f"{strength[i, j]} and {s}.")
        strength[i, j] = strength[j, i] = s
        seen[i, j] = seen[j, i] = True
        if has_direction:
            listed[i, j] = True
            arc[i, j], direction[i, j] = s * d, d
    if not has_direction:
        return {"strength": strength}, nodes
    # P(u -> v | adjacent) + P(v -> u | adjacent) = 1: a pair listed one way only (a
    # filtered frame) gets its reverse; a pair listed both ways must add up
    rows, columns = np.nonzero(listed & ~listed.T)
    direction[columns, rows] = 1.0 - direction[rows, columns]
    arc[columns, rows] = strength[rows, columns] * direction[columns, rows]
    both = listed & listed.T & (strength > 0)
    if (np.abs(direction + direction.T - 1.0) > 1e-6)[both].any():
        _pair_check(direction, nodes, both & (np.abs(direction + direction.T - 1.0) > 1e-6),
                    "The directions of a pair add up to 1 (P(u -> v | adjacent) + "
                    "P(v -> u | adjacent)), but ({u!r}, {v!r}) has {a} and ({v!r}, {u!r}) {b}.")
    return {"arc": arc, "strength": strength, "direction": direction}, nodes


def plot_edge_strength(matrix_or_frame, ax=None, threshold=None, nodes=None, *, values=None,
                       cmap=None, annotate=None, title=None):
    """Heat map of edge strengths (bootstrap) or edge probabilities (posteriors).

    Three quantities can be drawn (bnlearn's ``boot.strength`` vocabulary), each with its
    own colour-bar label (:data:`STRENGTH_LABELS`): the **arc probability**
    ``P(u -> v) = strength * direction`` (row = parent, column = child), the **strength**
    ``P(u and v adjacent)`` (symmetric) and the **direction** ``P(u -> v | adjacent)``
    (blank where ``u`` and ``v`` are never adjacent).

    Parameters
    ----------
    matrix_or_frame : array of shape (p, p), DataFrame or fitted estimator
        A fitted estimator with ``strength_matrix_`` (the bootstrap learner), a long frame
        in bnlearn's ``boot.strength`` shape (``from``, ``to`` -- or ``source``, ``target``
        -- ``strength``, optional ``direction``), or a square matrix (DataFrame columns name
        the nodes) holding the quantity ``values`` (arc probabilities by default); see
        :func:`edge_strength_tables`.
    ax : matplotlib Axes, optional
        Drawn on a new figure sized to the number of nodes (at most 16 in) when None.
    threshold : float, optional
        Pairs whose strength is below it are left blank (bnlearn's averaged network keeps
        the pairs with strength above a threshold): both cells of a shown pair are drawn,
        so an arc map shows how the pair's strength splits between the two directions.
    nodes : sequence, optional
        Node names and order.
    values : {"arc", "strength", "direction"}, optional
        The quantity drawn; default ``"arc"`` when the input has directions (an estimator,
        a frame with ``direction``, a square matrix) and ``"strength"`` for a frame
        without. For a square matrix it is also what the matrix holds.
    cmap : str or Colormap, optional
        Matplotlib colour map; default ``"Blues"``, ``"coolwarm"`` for the direction.
        Blank (masked) cells are drawn in :data:`HIDDEN_CELL` grey.
    annotate : bool, optional
        Write the value in each shown cell; default when p <= 12.
    title : str, optional
        Title of the axes; none when omitted.

    Returns
    -------
    ax : matplotlib Axes
        ``ax.images[0].get_array()`` is the masked matrix drawn (the diagonal, pairs below
        ``threshold`` and, for the direction, pairs never adjacent are masked); the colour
        bar's label is ``STRENGTH_LABELS[values]``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from skbn.plotting import plot_edge_strength
    >>> frame = pd.DataFrame({"from": ["a", "b"], "to": ["b", "a"],
    ...                       "strength": [0.8, 0.8], "direction": [0.75, 0.25]})
    >>> ax = plot_edge_strength(frame)
    >>> round(float(ax.images[0].get_array()[0, 1]), 2)
    0.6
    >>> ax.images[0].colorbar.ax.get_ylabel()
    'arc probability P(row → column) = strength × direction'
    """
    plt = _pyplot()
    tables, nodes = edge_strength_tables(matrix_or_frame, nodes, values)
    if values is None:
        values = "arc" if "arc" in tables else next(iter(tables))
    if values not in STRENGTH_LABELS:
        raise ValueError(f"values must be 'arc', 'strength' or 'direction', got {values!r}.")
    if values not in tables:
        raise ValueError(f"This input gives only {' and '.join(tables)}, not {values}: "
                         f"arc probabilities and directions need a 'direction' column.")
    matrix = tables[values]
    p = len(nodes)
    hidden = np.eye(p, dtype=bool)
    strength = tables.get("strength")
    if threshold is not None:
        if strength is None:
            raise ValueError("threshold compares the strength of each pair, which a "
                             "direction matrix alone does not give.")
        hidden |= strength < threshold
    if values == "direction":
        hidden |= strength == 0 if strength is not None else np.zeros_like(hidden)
    shown = np.ma.masked_array(matrix, mask=hidden)
    if ax is None:
        cell = min(0.35, 13.0 / max(p, 1))
        size = max(3.0, cell * p + 1.5)
        _, ax = plt.subplots(figsize=(min(size + 1.0, 16.0), min(size, 16.0)))
    cell_points = 72 * min(0.35, 13.0 / max(p, 1))
    cmap = ("coolwarm" if values == "direction" else "Blues") if cmap is None else cmap
    cmap = plt.get_cmap(cmap).with_extremes(bad=HIDDEN_CELL)  # blank cells grey, 0 white
    image = ax.imshow(shown, cmap=cmap, vmin=0.0, vmax=1.0)
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label=STRENGTH_LABELS[values])
    ticks = np.arange(p)
    tick_size = min(8.0, 0.75 * cell_points)
    ax.set_xticks(ticks, [str(v) for v in nodes], rotation=90, fontsize=tick_size)
    ax.set_yticks(ticks, [str(v) for v in nodes], fontsize=tick_size)
    ax.set_xlabel("node" if values == "strength" else "child (column)")
    ax.set_ylabel("node" if values == "strength" else "parent (row)")
    if annotate is None:
        annotate = p <= 12
    if annotate:
        for (i, j), value in np.ndenumerate(matrix):
            if not hidden[i, j] and (value > 0 or values == "direction"):
                dark = value > 0.6 if values != "direction" else abs(value - 0.5) > 0.3
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if dark else "black")
    if title is not None:
        ax.set_title(title)
    return ax


def plot_search_trace(estimator, ax=None, *, title=None):
    """The score after each move of a local search (``HillClimbStructure.trace_``).

    Parameters
    ----------
    estimator : fitted estimator with ``trace_``, or a 1-D array of scores
        A fitted local search (e.g. :class:`~skbn.HillClimbStructure`), or the
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
