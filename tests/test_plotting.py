"""skbn.plotting: what is drawn (labels, arrow vs line patches, colours, heat-map values)."""

import os
import subprocess
import sys
from itertools import combinations
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from conftest import shared_network
from matplotlib.colors import to_rgba
from matplotlib.patches import FancyArrowPatch

from skbn import HillClimbStructure, PCStructure
from skbn.datasets import asia_network, make_random_network, sample_asia
from skbn.graph import PDAG
from skbn.plotting import (
    COMPARISON_COLORS,
    STRENGTH_LABELS,
    _crossings,
    _isotonic,
    auto_font_size,
    circular_layout,
    comparison_classes,
    layered_layout,
    plot_comparison,
    plot_edge_strength,
    plot_network,
    plot_search_trace,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def edge_patches(ax):
    return [p for p in ax.patches if isinstance(p, FancyArrowPatch)]


def is_arrow(patch):
    return type(patch.get_arrowstyle()).__name__ != "Curve"  # "-" is Curve, "-|>" is not


def test_network_draws_one_label_per_node_and_one_arrow_per_edge():
    net = asia_network()
    ax = plot_network(net)
    assert sorted(t.get_text() for t in ax.texts) == sorted(net.nodes)
    patches = edge_patches(ax)
    assert sorted(p.skbn_edge for p in patches) == sorted(net.edges)
    assert all(is_arrow(p) for p in patches)


def test_cpdag_undirected_edges_are_lines_without_arrowheads():
    pdag = PDAG(("a", "b", "c", "d"), directed=[("a", "c"), ("b", "c")],
                undirected=[("c", "d")])
    ax = plot_network(pdag)
    kinds = {p.skbn_edge: is_arrow(p) for p in edge_patches(ax)}
    assert kinds == {("a", "c"): True, ("b", "c"): True, ("c", "d"): False}
    # the same through the undirected= argument of an edge list
    ax = plot_network([("a", "c"), ("b", "c"), ("c", "d")], undirected=[("d", "c")])
    assert sorted(is_arrow(p) for p in edge_patches(ax)) == [False, True, True]


def test_fitted_estimators_are_drawn_as_dag_or_cpdag():
    X = sample_asia(2000, random_state=0)
    pc = PCStructure().fit(X)
    ax = plot_network(pc)
    lines = [p for p in edge_patches(ax) if not is_arrow(p)]
    assert len(lines) == len(pc.undirected_edges_)
    assert len(edge_patches(ax)) == len(pc.directed_edges_) + len(pc.undirected_edges_)
    assert len(ax.texts) == X.shape[1]
    hc = HillClimbStructure().fit(X)
    ax = plot_network(hc, layout="circular")
    assert len(edge_patches(ax)) == len(hc.edges_) and all(map(is_arrow, edge_patches(ax)))


def test_draws_on_the_given_axes():
    _, (left, right) = plt.subplots(1, 2, figsize=(8, 4))
    assert plot_network(asia_network(), ax=left) is left
    assert plot_comparison([("a", "b")], [("b", "a")], ax=right, layout="circular") is right
    assert len(left.texts) == 8 and len(edge_patches(right)) == 1
    positions = {"a": (0, 0), "b": (1, -1)}
    ax = plot_network([("a", "b")], layout=positions)
    assert [t.get_position() for t in ax.texts] == [(0, 0), (1, -1)]
    with pytest.raises(ValueError, match="no position"):
        plot_network([("a", "b"), ("b", "c")], layout=positions)


def test_isolated_nodes_and_bad_inputs():
    ax = plot_network([("a", "b")], nodes=["a", "b", "lonely"])
    assert sorted(t.get_text() for t in ax.texts) == ["a", "b", "lonely"]
    with pytest.raises(TypeError, match="fitted estimator"):
        plot_network(HillClimbStructure())
    with pytest.raises(ValueError, match="layout"):
        plot_network([("a", "b")], layout="spring")
    with pytest.raises(ValueError, match="not a \\(parent, child\\) pair"):
        plot_network([("a", "b", "c")])


def test_layered_layout_points_every_edge_down_and_routes_long_edges():
    edges = [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d"), ("e", "d")]
    positions, routes = layered_layout(list("abcde"), edges)
    for u, v in edges:
        assert positions[u][1] > positions[v][1]
    assert len(routes[("a", "d")]) == 2          # spans three layers: two bend points
    assert routes[("a", "b")] == []
    # a source sits just above its highest child
    assert positions["e"][1] == positions["c"][1]
    # bends lie on the crossed layers, strictly between the end points
    ys = [y for _, y in routes[("a", "d")]]
    assert ys == [positions["b"][1], positions["c"][1]]


def test_crossing_count_and_reduction():
    # two layers, a->y and b->x drawn in the order [a, b], [x, y]: one crossing
    down = {"a": ["y"], "b": ["x"]}
    assert _crossings(["a", "b"], ["x", "y"], down) == 1
    assert _crossings(["a", "b"], ["y", "x"], down) == 0
    # a layered graph with a crossing-free drawing is drawn without crossings
    edges = [("r", "a1"), ("r", "a2"), ("a1", "b1"), ("a2", "b2"), ("a1", "b3"), ("a2", "b4")]
    nodes = ["r", "a2", "a1", "b1", "b2", "b3", "b4"]   # a poor initial order
    positions, _ = layered_layout(nodes, edges)
    segments = [(positions[u][0], positions[v][0]) for u, v in edges if u != "r"]
    assert not any((x1 - x2) * (y1 - y2) < 0 for (x1, y1), (x2, y2) in combinations(segments, 2))


def test_layered_layout_keeps_labels_apart():
    nodes = ["p"] + [f"child_{k}" for k in range(6)]
    widths = [0.5 + 0.1 * len(v) for v in nodes]
    positions, _ = layered_layout(nodes, [("p", v) for v in nodes[1:]], label_widths=widths)
    xs = sorted((positions[v][0], w) for v, w in zip(nodes[1:], widths[1:]))
    for (x1, w1), (x2, w2) in zip(xs, xs[1:]):
        assert x2 - x1 >= (w1 + w2) / 2 - 1e-9


def test_isotonic_matches_scikit_learn():
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(0)
    values = rng.normal(size=30)
    expected = IsotonicRegression().fit_transform(np.arange(30), values)
    np.testing.assert_allclose(_isotonic(values), expected)


def test_circular_layout_is_on_a_circle():
    positions = circular_layout(list("abcdef"), radius=2.0)
    radii = [np.hypot(x, y) for x, y in positions.values()]
    np.testing.assert_allclose(radii, 2.0)
    assert positions["a"] == pytest.approx((0.0, 2.0))


def test_alarm_labels_do_not_overlap():
    net = shared_network("alarm")
    ax = plot_network(net)
    renderer = ax.figure.canvas.get_renderer()
    boxes = [t.get_bbox_patch().get_window_extent(renderer) for t in ax.texts]
    assert len(boxes) == 37
    assert not any(a.overlaps(b) for a, b in combinations(boxes, 2))


def test_comparison_colours_every_class():
    true = [("a", "b"), ("b", "c"), ("c", "d")]
    learned = [("a", "b"), ("c", "b"), ("a", "d")]        # right, reversed, extra; c->d missed
    ax = plot_comparison(true, learned)
    by_class = {p.skbn_class: p for p in edge_patches(ax)}
    assert {p.skbn_edge: p.skbn_class for p in edge_patches(ax)} == {
        ("a", "b"): "true positive", ("c", "b"): "reversed",
        ("a", "d"): "false positive", ("c", "d"): "missed"}
    for name, patch in by_class.items():
        assert patch.get_edgecolor() == pytest.approx(to_rgba(COMPARISON_COLORS[name]))
    assert by_class["missed"].get_linestyle() == "--"
    assert by_class["true positive"].get_linestyle() == "-"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["true positive (1)", "reversed (1)", "false positive (1)", "missed (1)"]


def test_comparison_of_a_cpdag_counts_undirected_true_adjacencies_as_right():
    truth = asia_network()
    pc = PCStructure().fit(sample_asia(3000, random_state=1))
    classes, nodes, *_ = comparison_classes(truth, pc)
    assert sorted(nodes) == sorted(truth.nodes)
    undirected = [(u, v) for u, v, directed in classes["true positive"] if not directed]
    true_pairs = {frozenset(e) for e in truth.edges}
    assert all(frozenset(e) in true_pairs for e in undirected)
    n_learned = len(pc.directed_edges_) + len(pc.undirected_edges_)
    assert sum(len(classes[k]) for k in ("true positive", "reversed", "false positive")) == n_learned
    ax = plot_comparison(truth, pc, legend=False)
    assert ax.get_legend() is None
    assert len(edge_patches(ax)) == n_learned + len(classes["missed"])


def shown(ax):
    return ax.images[0].get_array().filled(np.nan)


def colorbar_label(ax):
    return ax.images[0].colorbar.ax.get_ylabel()


def test_edge_strength_square_matrix_is_arc_probabilities():
    arc = np.array([[0.0, 0.9, 0.1], [0.05, 0.0, 0.6], [0.0, 0.3, 0.0]])
    nan = np.nan
    ax = plot_edge_strength(arc, nodes=["a", "b", "c"])
    np.testing.assert_allclose(shown(ax), [[nan, 0.9, 0.1], [0.05, nan, 0.6], [0.0, 0.3, nan]])
    assert colorbar_label(ax) == STRENGTH_LABELS["arc"]
    assert "P(row → column)" in colorbar_label(ax) and "strength × direction" in colorbar_label(ax)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    assert ax.get_ylabel() == "parent (row)" and ax.get_xlabel() == "child (column)"
    # a square matrix holds the quantity named by values=; the estimator gives all three
    strength = pd.DataFrame(arc + arc.T, index=list("abc"), columns=list("abc"))
    ax = plot_edge_strength(strength, values="strength")
    np.testing.assert_allclose(shown(ax), [[nan, 0.95, 0.1], [0.95, nan, 0.9], [0.1, 0.9, nan]])
    assert colorbar_label(ax) == "strength = P(row and column adjacent)"
    assert ax.get_ylabel() == ax.get_xlabel() == "node"
    fitted = SimpleNamespace(strength_matrix_=pd.DataFrame(arc, index=list("abc"),
                                                           columns=list("abc")))
    ax = plot_edge_strength(fitted, values="direction")
    np.testing.assert_allclose(shown(ax), [[nan, 0.9 / 0.95, 1.0], [0.05 / 0.95, nan, 0.6 / 0.9],
                                           [0.0, 0.3 / 0.9, nan]])
    assert colorbar_label(ax) == "direction = P(row → column | adjacent)"
    np.testing.assert_allclose(shown(plot_edge_strength(fitted, values="strength")),
                               shown(plot_edge_strength(strength, values="strength")))


def test_edge_strength_threshold_compares_the_pair_strength():
    # arc probabilities: a-b strength 0.8 split 0.4 / 0.4 (an undecided direction), a-c 0.3
    arc = pd.DataFrame([[0.0, 0.4, 0.3], [0.4, 0.0, 0.0], [0.0, 0.0, 0.0]],
                       index=list("abc"), columns=list("abc"))
    array = plot_edge_strength(arc, threshold=0.5).images[0].get_array()
    # both cells of the strong pair are shown, although each is below the threshold
    assert not array.mask[0, 1] and not array.mask[1, 0] and array[0, 1] == 0.4
    assert array.mask[0, 2] and array.mask[2, 0] and array.mask[1, 2]
    assert array.mask.sum() == 7


def test_edge_strength_from_bnlearn_boot_strength_frame():
    frame = pd.DataFrame({"from": ["a", "b", "a"], "to": ["b", "a", "c"],
                          "strength": [0.8, 0.8, 0.4], "direction": [0.75, 0.25, 1.0]})
    ax = plot_edge_strength(frame)
    nan = np.nan
    np.testing.assert_allclose(shown(ax), [[nan, 0.6, 0.4], [0.2, nan, 0], [0, 0, nan]])
    assert colorbar_label(ax) == STRENGTH_LABELS["arc"]
    ax = plot_edge_strength(frame, values="strength")
    np.testing.assert_allclose(shown(ax), [[nan, 0.8, 0.4], [0.8, nan, 0], [0.4, 0, nan]])
    assert colorbar_label(ax) == STRENGTH_LABELS["strength"]
    ax = plot_edge_strength(frame, values="direction")   # never adjacent: blank
    np.testing.assert_allclose(shown(ax), [[nan, 0.75, 1.0], [0.25, nan, nan], [0, nan, nan]])
    # without direction: a symmetric strength map, labelled as such
    undirected = frame.drop(columns="direction").rename(columns={"from": "source", "to": "target"})
    ax = plot_edge_strength(undirected.iloc[[0, 2]])
    array = ax.images[0].get_array()
    assert array[0, 1] == array[1, 0] == 0.8
    assert colorbar_label(ax) == STRENGTH_LABELS["strength"]
    with pytest.raises(ValueError, match="'direction' column"):
        plot_edge_strength(undirected, values="arc")
    with pytest.raises(ValueError, match="disagree on its strength"):
        plot_edge_strength(frame.assign(strength=[0.8, 0.7, 0.4]))
    with pytest.raises(ValueError, match=r"add up to 1.*\('a', 'b'\) has 0.75"):
        plot_edge_strength(frame.assign(direction=[0.75, 0.5, 1.0]))
    # a frame listing each pair once (e.g. filtered on direction >= 0.5) implies the reverse
    one_way = frame.iloc[[0, 2]]
    np.testing.assert_allclose(shown(plot_edge_strength(one_way)),
                               [[nan, 0.6, 0.4], [0.2, nan, 0], [0, 0, nan]])
    with pytest.raises(ValueError, match="square"):
        plot_edge_strength(np.zeros((2, 3)))


def test_edge_strength_of_a_bootstrap_estimator_and_bad_matrices():
    arc = np.array([[0, 0.6, 0.4], [0.2, 0, 0], [0, 0, 0]])
    fitted = SimpleNamespace(strength_matrix_=pd.DataFrame(arc, index=list("abc"),
                                                           columns=list("abc")))
    ax = plot_edge_strength(fitted)
    np.testing.assert_allclose(np.nan_to_num(shown(ax)), arc)
    assert colorbar_label(ax) == STRENGTH_LABELS["arc"]
    ax = plot_edge_strength(fitted, values="strength")
    assert shown(ax)[0, 1] == shown(ax)[1, 0] == pytest.approx(0.8)
    # a symmetric strength matrix read as arc probabilities would be mislabelled: refused
    strength = np.array([[0, 0.8], [0.8, 0]])
    with pytest.raises(ValueError, match=r"add up to at most 1.*values='strength'"):
        plot_edge_strength(strength)
    assert colorbar_label(plot_edge_strength(strength, values="strength")) == STRENGTH_LABELS["strength"]
    with pytest.raises(ValueError, match="symmetric"):
        plot_edge_strength(np.array([[0, 0.8], [0.1, 0]]), values="strength")
    with pytest.raises(ValueError, match=r"\[0, 1\].*\(1, 0\) is 3"):
        plot_edge_strength(np.array([[0, 0.0], [3.0, 0]]))
    with pytest.raises(ValueError, match="values must be"):
        plot_edge_strength(strength, values="weight")
    with pytest.raises(ValueError, match="threshold"):
        plot_edge_strength(strength / 2, values="direction", threshold=0.5)


def test_bootstrap_strength_map_matches_its_edge_strength_frame():
    from skbn import BootstrapStructure

    boot = BootstrapStructure(HillClimbStructure(), n_resamples=10, random_state=0).fit(
        sample_asia(500, random_state=0))
    from_estimator = plot_edge_strength(boot, values="strength")
    from_frame = plot_edge_strength(boot.edge_strength_, values="strength",
                                    nodes=list(boot.feature_names_in_))
    np.testing.assert_allclose(shown(from_estimator), shown(from_frame))
    np.testing.assert_allclose(shown(plot_edge_strength(boot)),
                               shown(plot_edge_strength(boot.edge_strength_,
                                                        nodes=list(boot.feature_names_in_))))
    filtered = boot.edge_strength_[boot.edge_strength_.direction >= 0.5]
    np.testing.assert_allclose(shown(plot_edge_strength(boot)),
                               shown(plot_edge_strength(filtered, nodes=list(boot.feature_names_in_))))


def test_edge_strength_figure_is_capped():
    ax = plot_edge_strength(np.zeros((120, 120)))
    assert max(ax.figure.get_size_inches()) <= 16.0


def test_search_trace_line_is_the_trace():
    model = HillClimbStructure().fit(sample_asia(1000, random_state=0))
    ax = plot_search_trace(model)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), model.trace_)
    assert ax.lines[1].get_ydata()[0] == pytest.approx(model.trace_.max())
    with pytest.raises(ValueError, match="trace_"):
        plot_search_trace(PCStructure())
    ax = plot_search_trace([1.0, 2.0, 2.5])
    assert list(ax.lines[0].get_xdata()) == [0, 1, 2]


def test_missing_matplotlib_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install matplotlib"):
        plot_edge_strength(np.eye(2))


def test_missing_matplotlib_message_of_every_drawing(monkeypatch):
    # docs/plotting.md: without matplotlib every function raises "skbn.plotting needs
    # matplotlib: pip install matplotlib". plot_network and plot_comparison used to import
    # matplotlib.font_manager (the label widths) first, a bare ModuleNotFoundError.
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)  # every import of matplotlib now fails
    edges = [("a", "b"), ("b", "c")]
    for draw in (lambda: plot_network(edges), lambda: plot_comparison(edges, edges[:1]),
                 lambda: plot_edge_strength(np.eye(2)), lambda: plot_search_trace([1.0, 2.0])):
        with pytest.raises(ImportError, match=r"^skbn.plotting needs matplotlib: pip install matplotlib$"):
            draw()


# ---------------------------------------------------------------------- large graphs
def node_positions(ax):
    return {t.skbn_node: t.get_position() for t in ax.texts}


def label_boxes(ax):
    renderer = ax.figure.canvas.get_renderer()
    return {t.skbn_node: t.get_bbox_patch().get_window_extent(renderer) for t in ax.texts}


@pytest.mark.parametrize("n_nodes, seed", [(20, 0), (45, 1), (70, 2), (100, 3)])
def test_random_dags_point_down_fit_the_cap_and_keep_labels_apart(n_nodes, seed):
    net = make_random_network(n_nodes, random_state=seed)
    ax = plot_network(net)
    positions = node_positions(ax)
    assert sorted(positions) == sorted(net.nodes)
    assert net.edges and all(positions[u][1] > positions[v][1] for u, v in net.edges)
    width, height = ax.figure.get_size_inches()
    assert width <= 16.0 + 1e-9 and height <= 16.0 + 1e-9
    boxes = list(label_boxes(ax).values())
    assert not any(a.overlaps(b) for a, b in combinations(boxes, 2))
    # the text is not shrunk below what a printed page can show
    assert min(t.get_fontsize() for t in ax.texts) >= 4.0


def test_a_wide_graph_is_wrapped_into_layers_within_the_width():
    # one parent with 80 children: longest-path layering puts all 80 in one row
    nodes = ["hub"] + [f"child_{k:02d}" for k in range(80)]
    edges = [("hub", v) for v in nodes[1:]]
    widths = [1.0] * len(nodes)
    positions, _ = layered_layout(nodes, edges, label_widths=widths, max_width=12.0,
                                  node_gap=0.25)
    rows = {}
    for v in nodes[1:]:
        rows.setdefault(positions[v][1], []).append(v)
    assert len(rows) >= 7        # 80 labels of 1.0 + 0.25 gaps: at most 9 per 12-wide row
    assert all(len(row) * 1.0 + (len(row) - 1) * 0.25 <= 12.0 for row in rows.values())
    assert all(positions["hub"][1] > y for y in rows)
    ax = plot_network(edges)
    assert max(ax.figure.get_size_inches()) <= 16.0 + 1e-9


def isolated_graph():
    """A 56-node graph: a chain and a small tree on 26 nodes, 30 nodes without edges."""
    nodes = [f"V{k:02d}" for k in range(56)]
    edges = [(nodes[k], nodes[k + 1]) for k in range(15)]              # a chain of 16
    edges += [(nodes[16], nodes[k]) for k in range(17, 26)]           # a star of 10
    return nodes, edges, nodes[26:]


def test_isolated_nodes_are_packed_in_a_compact_block_aside():
    nodes, edges, isolated = isolated_graph()
    order = nodes[::2] + nodes[1::2]         # isolated nodes interleaved with the others
    ax = plot_network(edges, nodes=order)
    positions, boxes = node_positions(ax), label_boxes(ax)
    x = np.array([positions[v][0] for v in isolated])
    y = np.array([positions[v][1] for v in isolated])
    width, height = np.ptp(x) + 1.0, np.ptp(y) + 0.5
    assert 1 / 3 <= width / height <= 3, (width, height)          # not one long row
    assert len(set(np.round(y, 6))) >= 4
    # the block is beside or below the graph, not mixed with it
    linked = [v for v in nodes if v not in isolated]
    gx = [positions[v][0] for v in linked]
    gy = [positions[v][1] for v in linked]
    beside = x.min() > max(gx)
    below = y.max() < min(gy)
    assert beside or below
    assert not any(boxes[a].overlaps(boxes[b]) for a, b in combinations(nodes, 2))
    assert max(ax.figure.get_size_inches()) <= 16.0 + 1e-9
    # the frame around the block is the only patch that is not an edge
    frames = [p for p in ax.patches if not isinstance(p, FancyArrowPatch)]
    assert len(frames) == 1
    # old layout: 30 isolated nodes in the first layer made a picture 20+ inches wide
    assert ax.figure.get_size_inches()[0] < 10


def test_a_graph_without_edges_is_one_square_block():
    nodes = [f"node{k}" for k in range(30)]
    positions, routes = layered_layout(nodes, [], label_widths=[0.6] * 30, layer_gap=0.9)
    assert routes == {}
    x = np.array([p[0] for p in positions.values()])
    y = np.array([p[1] for p in positions.values()])
    assert 0.5 <= (np.ptp(x) + 0.6) / (np.ptp(y) + 0.45) <= 2
    ax = plot_network([], nodes=nodes)
    assert len(ax.texts) == 30 and not edge_patches(ax)
    with pytest.raises(ValueError, match=r"isolated node\(s\) \['node1'\] have edges"):
        layered_layout(nodes, [("node0", "node1")], isolated=["node1", "node2"])


def test_cpdag_of_100_nodes_points_down_and_isolated_nodes_aside():
    net = make_random_network(100, random_state=0)
    pc = PCStructure().fit(net.sample(3000, random_state=0))
    ax = plot_network(pc)
    positions = node_positions(ax)
    assert all(positions[u][1] > positions[v][1] for u, v in pc.directed_edges_)
    kinds = {p.skbn_edge: is_arrow(p) for p in edge_patches(ax)}
    assert all(kinds[e] for e in pc.directed_edges_)
    assert not any(kinds[e] for e in pc.undirected_edges_)
    assert max(ax.figure.get_size_inches()) <= 16.0 + 1e-9
    boxes = list(label_boxes(ax).values())
    assert not any(a.overlaps(b) for a, b in combinations(boxes, 2))


def test_layout_is_deterministic():
    net = make_random_network(60, random_state=4)
    first = node_positions(plot_network(net))
    plt.close("all")
    assert node_positions(plot_network(net)) == first
    # and independent of the hash seed (node names are strings)
    code = ("import matplotlib; matplotlib.use('Agg');"
            "from skbn.datasets import make_random_network;"
            "from skbn.plotting import layered_layout;"
            "net = make_random_network(60, random_state=4);"
            "pos, _ = layered_layout(net.nodes, net.edges, max_width=8.0);"
            "print(sorted(pos.items()))")
    other_seed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                env={**os.environ, "PYTHONHASHSEED": "12345"}, check=True)
    positions, _ = layered_layout(net.nodes, net.edges, max_width=8.0)
    assert other_seed.stdout.strip() == str(sorted(positions.items()))


def test_figure_size_follows_max_size():
    net = make_random_network(80, random_state=5)
    ax = plot_network(net, max_size=6.0)
    assert max(ax.figure.get_size_inches()) <= 6.0 + 1e-9
    boxes = list(label_boxes(ax).values())
    assert not any(a.overlaps(b) for a, b in combinations(boxes, 2))


def test_long_labels_are_truncated_on_request():
    edges = [("a_very_long_variable_name", "short"), ("another_long_name_here", "short")]
    ax = plot_network(edges, max_label_length=8)
    texts = {t.skbn_node: t.get_text() for t in ax.texts}
    assert texts == {"a_very_long_variable_name": "a_very_…", "another_long_name_here": "another…",
                     "short": "short"}
    assert all(len(t) <= 8 for t in texts.values())
    with pytest.raises(ValueError, match="max_label_length"):
        plot_network(edges, max_label_length=1)


def test_font_shrinks_with_the_number_of_nodes():
    assert auto_font_size(8) == 9.0 and auto_font_size(30) == 9.0
    assert auto_font_size(37) == pytest.approx(9 * np.sqrt(30 / 37))
    assert auto_font_size(100) == 6.0
    sizes = [auto_font_size(n) for n in range(1, 200)]
    assert all(a >= b for a, b in zip(sizes, sizes[1:]))


def test_circular_layout_puts_labels_outside_at_100_nodes():
    net = make_random_network(100, random_state=6)
    ax = plot_network(net, layout="circular")
    dots = ax.collections[0].get_offsets()
    radius = np.hypot(dots[:, 0], dots[:, 1])
    np.testing.assert_allclose(radius, radius[0])
    for text in ax.texts:
        assert np.hypot(*text.get_position()) > radius[0]
    assert max(ax.figure.get_size_inches()) <= 16.0 + 1e-9
    assert len(edge_patches(ax)) == len(net.edges)
    # neighbours are placed close: the mean chord is shorter than in node order
    order = [tuple(p) for p in dots]
    index = {v: i for i, v in enumerate(net.nodes)}
    def angle_gap(i, j):
        d = abs(i - j) % 100
        return min(d, 100 - d)
    placed = {v: k for k, v in enumerate(
        sorted(net.nodes, key=lambda v: -np.arctan2(*order[index[v]][::-1]) % (2 * np.pi)))}
    assert (np.mean([angle_gap(placed[u], placed[v]) for u, v in net.edges])
            < np.mean([angle_gap(index[u], index[v]) for u, v in net.edges]))


def test_comparison_packs_nodes_without_any_edge():
    nodes, edges, isolated = isolated_graph()
    learned = edges[:10] + [(isolated[0], isolated[1])]   # a false positive between two lone nodes
    ax = plot_comparison(edges, learned, nodes=nodes)
    positions = node_positions(ax)
    kinds = {p.skbn_edge: p.skbn_class for p in edge_patches(ax)}
    assert kinds[(isolated[0], isolated[1])] == "false positive"
    lone = isolated[2:]
    y = np.array([positions[v][1] for v in lone])
    assert len(set(np.round(y, 6))) >= 4                 # a block, not a row
    assert max(ax.figure.get_size_inches()) <= 16.0 + 1e-9


def test_false_positive_arcs_stay_inside_the_picture():
    # a false positive from left to right bulges upwards (arcs bulge to their left) by a
    # quarter of its length at the control point, an eighth on the curve: above the labels
    layout = {"a": (0.0, 0.0), "b": (6.0, 0.0), "c": (3.0, -1.0)}
    ax = plot_comparison([("a", "c"), ("b", "c")], [("a", "c"), ("b", "c"), ("a", "b")],
                         layout=layout)
    arc = next(p for p in edge_patches(ax) if p.skbn_class == "false positive")
    extent = arc.get_path().get_extents()          # the drawn curve (Bezier extrema)
    (x_lo, x_hi), (y_lo, y_hi) = ax.get_xlim(), ax.get_ylim()
    assert extent.y1 > 0.6                         # it does bulge above the labels
    assert x_lo <= extent.x0 and extent.x1 <= x_hi and y_lo <= extent.y0 and extent.y1 <= y_hi


def test_plot_network_draws_gaussian_and_clg_networks():
    net = make_random_network(8, kind="clg", edge_prob=0.4, random_state=0)
    ax = plot_network(net)
    styles = {t.skbn_node: type(t.get_bbox_patch().get_boxstyle()).__name__
              for t in ax.texts if hasattr(t, "skbn_node")}
    assert styles == {v: "Round" if net.is_discrete(v) else "Ellipse" for v in net.nodes}
    assert {p.skbn_edge for p in ax.patches if hasattr(p, "skbn_edge")} == set(net.edges)
    assert not any(hasattr(t, "skbn_edge_label") for t in ax.texts)
    ax = plot_network(net, edge_labels=True, layout="circular")
    labels = {t.skbn_edge_label: t.get_text() for t in ax.texts if hasattr(t, "skbn_edge_label")}
    continuous_edges = [(u, v) for u, v in net.edges
                        if not net.is_discrete(u) and not net.is_discrete(v)]
    assert set(labels) == set(continuous_edges) and continuous_edges
    for (u, v), text in labels.items():   # one coefficient per configuration of v's discrete parents
        expected = net.coefficients[v][..., net.continuous_parents[v].index(u)].ravel()
        np.testing.assert_allclose([float(x) for x in text.split(", ")], expected, rtol=5e-3)
    gauss = make_random_network(6, kind="gaussian", random_state=0)
    ax = plot_network(gauss, edge_labels=True)
    assert len([t for t in ax.texts if hasattr(t, "skbn_edge_label")]) == len(gauss.edges)
    assert {type(t.get_bbox_patch().get_boxstyle()).__name__
            for t in ax.texts if hasattr(t, "skbn_node")} == {"Ellipse"}
    # a discrete network ignores edge_labels (nothing to write)
    ax = plot_network(asia_network(), edge_labels=True)
    assert not any(hasattr(t, "skbn_edge_label") for t in ax.texts)
