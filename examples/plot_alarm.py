"""
Draw a learned ALARM network next to the truth
==============================================

Learns the 37-node ALARM monitoring network (shipped with skbn) from 5,000 sampled rows,
prints how many learned edges are right, reversed, extra or missing, and draws three
pictures:

* hill climbing's graph over the true one: green right, orange reversed, red extra,
  dashed grey missed;
* PC's CPDAG of the same rows: arrows where the data fix the direction, plain lines where
  they do not, nodes without any edge packed in a block aside;
* the score after each move of the hill climb.

Run ``python examples/plot_alarm.py`` to see the figures, or
``python examples/plot_alarm.py alarm.png`` to save them (``alarm.png``,
``alarm_pc.png``, ``alarm_trace.png``). The pictures need matplotlib
(``pip install matplotlib``); without it the script prints the counts only.
"""

import sys
import warnings

from skbn import HillClimbStructure, PCStructure
from skbn.datasets import load_network
from skbn.exceptions import OrientationConflictWarning
from skbn.plotting import comparison_classes, plot_comparison, plot_network, plot_search_trace
from _shared import show_or_save

truth = load_network("alarm")
train = truth.sample(5_000, random_state=0)
model = HillClimbStructure().fit(train)
with warnings.catch_warnings():
    # at a few thousand rows CI tests can contradict each other: PC then leaves a collider
    # unoriented and warns; the example prints the count (orientation_conflicts_) instead
    warnings.simplefilter("ignore", OrientationConflictWarning)
    pc = PCStructure().fit(train)
classes, *_ = comparison_classes(truth, model)
print(f"alarm: {len(truth.nodes)} variables, {len(truth.edges)} true edges, "
      f"{len(model.edges_)} learned from {len(train)} rows in {model.n_iter_} moves")
for label, edges in classes.items():
    print(f"  {label:15s} {len(edges):3d}")
print(f"PC: {len(pc.directed_edges_)} directed and {len(pc.undirected_edges_)} undirected edges, "
      f"{pc.n_orientation_conflicts_} orientation conflict(s) between its CI tests")

try:
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not installed (pip install matplotlib): pictures skipped")
    sys.exit(0)

# %%
# Hill climbing against the truth, on the true network's layered layout.
ax = plot_comparison(truth, model, title="hill climbing on alarm: learned vs true")
figures = {"": ax.figure}

# %%
# PC's CPDAG of the same rows.
ax = plot_network(pc, title="PC on alarm: the learned CPDAG")
figures["_pc"] = ax.figure

# %%
# The BDeu score after each move of the hill climb.
ax = plot_search_trace(model)
figures["_trace"] = ax.figure

show_or_save(figures, plt)  # python examples/plot_alarm.py alarm.png: save them
