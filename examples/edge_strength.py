"""
Bootstrap edge strengths and edge posteriors
============================================

How sure are we of each edge? Bootstrap edge strengths and exact / MCMC posteriors::

    python examples/edge_strength.py                 # prints, then shows the figures
    python examples/edge_strength.py strengths.png   # prints, saves the figures instead

Hill climbing on 100 bootstrap resamples of 1,000 rows of the 11-node SACHS network
(shipped with skbn) gives every pair of variables a strength (fraction of resamples with
an edge between them) and a direction (fraction of those oriented one way); the averaged
network keeps the edges above the Scutari-Nagarajan threshold. The exact Bayesian edge
posteriors (dynamic programming over subsets) and an order-MCMC estimate of them are
printed next to the strongest edges. The figures (with matplotlib,
``pip install matplotlib``) map the bootstrap's arc probabilities
``P(u -> v) = strength x direction`` next to the exact posteriors ``P(u -> v | data)``, and
the distribution of the strengths with the threshold.
"""

import sys

import numpy as np

from skbn import BootstrapStructure, HillClimbStructure, OrderMCMCStructure
from skbn.datasets import load_network
from skbn.plotting import plot_edge_strength
from skbn.posterior import edge_posteriors
from _shared import show_or_save

name, truth = "sachs", load_network("sachs")
X = truth.sample(1_000, random_state=0)
true_edges = set(truth.edges)

boot = BootstrapStructure(HillClimbStructure(), n_resamples=100, random_state=0).fit(X)
exact = edge_posteriors(X, max_indegree=2)
mcmc = OrderMCMCStructure(max_indegree=2, n_iter=20_000, burn_in=2_000, thin=20, random_state=0).fit(X)

table = boot.edge_strength_[boot.edge_strength_.direction >= 0.5].copy()
table["exact P(u->v)"] = [exact.loc[u, v] for u, v in zip(table.source, table.target)]
table["MCMC P(u->v)"] = [mcmc.edge_posterior_.loc[u, v] for u, v in zip(table.source, table.target)]
table["in truth"] = [(u, v) in true_edges or (v, u) in true_edges for u, v in zip(table.source, table.target)]
table = table.sort_values(["strength", "direction"], ascending=False)
print(f"{name}, {len(X)} rows: the 15 strongest edges (bootstrap, 100 resamples)\n")
print(table.head(15).round(3).to_string(index=False))
print(f"\nthreshold {boot.threshold_:.3f}: averaged network with {len(boot.edges_)} edges, "
      f"{sum((u, v) in true_edges or (v, u) in true_edges for u, v in boot.edges_)} of them "
      f"adjacent in the true network ({len(true_edges)} edges)")
print(f"order MCMC vs exact: largest edge-posterior difference "
      f"{np.abs(mcmc.edge_posterior_.to_numpy() - exact.to_numpy()).max():.3f}; "
      "held-out log-likelihood per row: "
      f"averaged network {boot.score(truth.sample(2000, random_state=1)):.4f}, "
      f"MCMC model average {mcmc.score(truth.sample(2000, random_state=1)):.4f}")


try:
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not installed (pip install matplotlib): figures skipped")
    sys.exit(0)

# %%
# Arc probabilities: the bootstrap's strength x direction (row = parent, column = child)
# next to the exact posterior probability of each arc. Pairs below the threshold are blank.
figure, (left, right) = plt.subplots(1, 2, figsize=(13, 5.5), layout="constrained")
plot_edge_strength(boot, ax=left, threshold=boot.threshold_, annotate=False,
                   title=f"bootstrap, 100 resamples (strength >= {boot.threshold_:.2f})")
plot_edge_strength(exact, ax=right, annotate=False, title="exact posterior, max_indegree=2")
figures = {"": figure}

# %%
# The distribution of the pair strengths and the averaged network's threshold.
strengths = np.sort(boot.edge_strength_.strength.to_numpy())
figure, axis = plt.subplots(figsize=(5, 3.5), layout="constrained")
axis.step(strengths, np.arange(1, len(strengths) + 1) / len(strengths), where="post")
axis.axvline(boot.threshold_, linestyle="--", color="gray", label=f"threshold {boot.threshold_:.2f}")
axis.set_xlabel("edge strength = P(adjacent)")
axis.set_ylabel("empirical CDF")
axis.legend()
figures["_cdf"] = figure

show_or_save(figures, plt)  # python examples/edge_strength.py strengths.png: save them
