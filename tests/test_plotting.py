"""skbn.plotting: what is drawn (labels, arrow vs line patches, colours, heat-map values)."""

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
from skbn.datasets import asia_network, sample_asia
from skbn.graph import PDAG
from skbn.plotting import (
    COMPARISON_COLORS,
    _crossings,
    _isotonic,
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


def test_edge_strength_matrix_values():
    matrix = np.array([[0.0, 0.9, 0.1], [0.05, 0.0, 0.6], [0.0, 0.3, 0.0]])
    ax = plot_edge_strength(matrix, nodes=["a", "b", "c"])
    np.testing.assert_allclose(ax.images[0].get_array().filled(np.nan), matrix)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    ax = plot_edge_strength(pd.DataFrame(matrix, index=list("abc"), columns=list("abc")),
                            threshold=0.5)
    shown = ax.images[0].get_array()
    assert shown.mask.sum() == 7 and shown[0, 1] == 0.9 and shown[1, 2] == 0.6


def test_edge_strength_from_bnlearn_boot_strength_frame():
    frame = pd.DataFrame({"from": ["a", "b", "a"], "to": ["b", "a", "c"],
                          "strength": [0.8, 0.8, 0.4], "direction": [0.75, 0.25, 1.0]})
    ax = plot_edge_strength(frame)
    expected = np.array([[0, 0.6, 0.4], [0.2, 0, 0], [0, 0, 0]])
    np.testing.assert_allclose(ax.images[0].get_array().filled(np.nan), expected)
    undirected = frame.drop(columns="direction").rename(columns={"from": "source", "to": "target"})
    ax = plot_edge_strength(undirected.iloc[[0, 2]])
    array = ax.images[0].get_array()
    assert array[0, 1] == array[1, 0] == 0.8
    with pytest.raises(ValueError, match="square"):
        plot_edge_strength(np.zeros((2, 3)))
    fitted = SimpleNamespace(strength_matrix_=pd.DataFrame(expected, index=list("abc"),
                                                           columns=list("abc")))
    ax = plot_edge_strength(fitted)
    np.testing.assert_allclose(ax.images[0].get_array().filled(np.nan), expected)


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
    with pytest.raises(ImportError, match=r"pip install skbn\[plot\]"):
        plot_edge_strength(np.eye(2))
