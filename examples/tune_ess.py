"""
Tune the BDeu equivalent sample size
====================================

Tune the BDeu equivalent sample size by held-out likelihood with GridSearchCV::

    python examples/tune_ess.py

GridSearchCV maximises ``score`` (mean held-out log-likelihood per row) over the structure
score's ``ess`` and the CPT prior's ``parameter_ess``, on 2,000 rows of the CHILD network
(built in). The folds are shuffled: real files are often sorted by some column, and
unshuffled folds would then hold out states the training folds never saw.
"""

import pandas as pd
from sklearn.model_selection import GridSearchCV, KFold

from _shared import save_figure
from skbn import GESStructure
from skbn.datasets import load_network
from skbn.scores import BDeu

truth = load_network("child")  # built in: 20 variables, 25 edges
X = truth.sample(2_000, random_state=0)
grid = {"scorer__ess": [0.1, 1.0, 10.0, 50.0], "parameter_ess": [0.5, 1.0, 5.0]}
cv = KFold(n_splits=5, shuffle=True, random_state=0)
search = GridSearchCV(GESStructure(scorer=BDeu()), grid, cv=cv).fit(X)

results = pd.DataFrame(search.cv_results_)
table = results.pivot_table(index="param_scorer__ess", columns="param_parameter_ess",
                            values="mean_test_score")
print("CHILD: mean held-out log-likelihood per row (5-fold CV)\n")
print(table.round(4).to_string())
print(f"\nbest: {search.best_params_}, score {search.best_score_:.4f}, "
      f"{len(search.best_estimator_.edges_)} edges")


def draw(plt):
    figure, axis = plt.subplots(figsize=(5, 3.5))
    for column in table.columns:
        axis.plot(table.index, table[column], marker="o", label=f"parameter_ess={column}")
    axis.set_xscale("log")
    axis.set_xlabel("BDeu ess (structure)")
    axis.set_ylabel("held-out log-likelihood / row")
    axis.legend()
    return figure


save_figure(draw, "tune_ess.png")
