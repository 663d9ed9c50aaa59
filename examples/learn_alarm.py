"""
Learn the ALARM network back with every learner
===============================================

Learn the ALARM monitoring network back from 10,000 sampled rows with every learner::

    python examples/learn_alarm.py

Prints time, structural Hamming distance (DAG and CPDAG) and held-out log-likelihood per
learner next to the true graph fitted the same way, and draws learned-vs-true adjacency
matrices when matplotlib is installed.
"""

import time

import numpy as np

from _shared import save_figure
from skbn import (
    ChowLiuTree,
    FixedStructure,
    GESStructure,
    HillClimbStructure,
    K2Structure,
    PCStructure,
)
from skbn.datasets import load_network
from skbn.metrics import structural_hamming_distance

truth = load_network("alarm")  # built in: 37 variables, 46 edges
order = truth.topological_order()
train = truth.sample(10_000, random_state=0)
test = truth.sample(5_000, random_state=1)

learners = {
    "true graph (CPTs only)": FixedStructure(edges=truth.edges),
    "ChowLiuTree": ChowLiuTree(),
    "K2Structure (true order)": K2Structure(ordering=order, scorer="bdeu"),
    "HillClimbStructure": HillClimbStructure(),
    "GESStructure": GESStructure(),
    "PCStructure": PCStructure(),
}
print(f"ALARM: {len(truth.nodes)} variables, {len(truth.edges)} edges, {len(train)} training rows\n")
print(f"{'learner':28s} {'seconds':>8s} {'SHD':>5s} {'CPDAG SHD':>9s} {'held-out LL':>12s}")
fitted = {}
for label, learner in learners.items():
    start = time.perf_counter()
    learner.fit(train)
    seconds = time.perf_counter() - start
    shd = structural_hamming_distance(truth.edges, learner.edges_, nodes=truth.nodes)
    cpdag_shd = structural_hamming_distance(truth.edges, learner.edges_, nodes=truth.nodes, cpdag=True)
    print(f"{label:28s} {seconds:8.3f} {shd:5d} {cpdag_shd:9d} {learner.score(test):12.4f}")
    fitted[label] = learner


def adjacency(edges):
    index = {node: i for i, node in enumerate(truth.nodes)}
    matrix = np.zeros((len(index), len(index)))
    for parent, child in edges:
        matrix[index[parent], index[child]] = 1
    return matrix


def draw(plt):
    figure, axes = plt.subplots(2, (len(fitted) + 1) // 2, figsize=(3.2 * ((len(fitted) + 1) // 2), 6.8))
    axes = axes.ravel()
    for axis in axes[len(fitted):]:
        axis.axis("off")
    for axis, (label, learner) in zip(axes, fitted.items()):
        axis.imshow(adjacency(truth.edges) * 0.35 + adjacency(learner.edges_) * 0.65, cmap="Greys")
        axis.set_title(label, fontsize=9)
        axis.set_xlabel("child")
        axis.set_ylabel("parent")
    figure.suptitle("parent -> child: black = true edge learned, dark grey = extra edge, light grey = missed")
    return figure


save_figure(draw, "learn_alarm.png")
