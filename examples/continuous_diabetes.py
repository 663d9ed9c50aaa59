"""
Continuous and mixed data: diabetes progression
===============================================

Learn a conditional linear Gaussian (CLG) network from real measurements, score it by
held-out likelihood, use it as a regressor and ask what setting a measurement would do::

    python examples/continuous_diabetes.py

scikit-learn's diabetes data (442 patients, bundled with scikit-learn): age, body mass
index, blood pressure and six blood serum measurements (standardised), ``sex`` (two
values) and ``target``, a measure of disease progression one year later. Columns of
non-integer numbers are continuous by the column-type rule; ``sex`` holds two numbers
that are categories, so it is declared discrete, and ``target`` holds whole numbers, so
it is declared continuous (``column_types=``). The network is then a CLG network: every
continuous node a linear regression on its continuous parents, one per state of its
discrete parents, and ``sex`` a root or a child of discrete nodes only.
"""

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import KFold, cross_val_score

from skbn import HillClimbStructure

data = load_diabetes(as_frame=True).frame  # 10 features and "target"
types = {"sex": "discrete", "target": "continuous"}
model = HillClimbStructure(column_types=types, target="target").fit(data)

print("column types:", model.column_types_)
print(f"{type(model.network_).__name__} with {len(model.edges_)} edges:")
for parent, child in model.edges_:
    print(f"  {parent} -> {child}")

# %%
# Checking the edges into the target, one test each: ``ci_test`` runs the test PC would run
# (Fisher's z on continuous columns, the conditional-Gaussian test when ``sex`` is among
# them), reading the columns as ``fit`` does (the same ``column_types``). Each parent is
# tested against the target given the target's other parents: a small p-value says the
# edge carries information the other parents do not (bnlearn's ``ci.test``).
from skbn.checking import ci_test  # noqa: E402

parents = sorted(u for u, v in model.edges_ if v == "target")
print("\nparent of target: p-value given the other parents")
for parent in parents:
    others = [u for u in parents if u != parent]
    result = ci_test(data, parent, "target", others, column_types=types)
    print(f"  {parent:>4}: {result.pvalue:.2e} ({'independent' if result.independent else 'dependent'})")

# %%
# Held-out log-likelihood: ``score`` is the mean log-density per row, so
# ``cross_val_score`` (and ``GridSearchCV``) select models by it. The folds are shuffled.
cv = KFold(n_splits=5, shuffle=True, random_state=0)
loglik = cross_val_score(model, data, cv=cv)
print(f"\nheld-out log-likelihood per row: {loglik.mean():.3f} (+/- {loglik.std():.3f})")

# %%
# Predicting the target: ``predict`` gives its conditional mean given the other columns
# of each row (the target's own column is ignored, missing cells are integrated out), so
# the network is a regressor for ``scoring="r2"``. A linear regression on every column is
# the reference: the network predicts from the target's Markov blanket only.
X, y = data.drop(columns="target"), data["target"]
r2 = cross_val_score(model, data, y, cv=cv, scoring="r2")
baseline = cross_val_score(LinearRegression(), X, y, cv=cv, scoring="r2")
print(f"held-out R^2: network {r2.mean():.3f}, linear regression {baseline.mean():.3f}")

first = data.iloc[:5]
print("\nfirst patients: observed and predicted progression")
print(np.column_stack([first["target"], model.predict(first).round(1)]))

# %%
# What would setting a measurement do? ``ida`` (Maathuis et al. 2009) reads the learned
# network's equivalence class and gives the effect of one unit of ``s3`` (HDL, standardised)
# on the progression for each parent set ``s3`` can have in it. Here its parent is ``sex``,
# a discrete column: the effect is the coefficient of ``s3`` in a regression of the target
# within each sex, averaged over the sexes with their shares of the patients (the
# average effect of a CLG network). ``method="optimal"`` adjusts instead for the optimal
# adjustment set of each parent set's orientation (Henckel, Perković & Maathuis 2022), the
# valid set of smallest asymptotic variance; ``adjustment_set`` names it.
from skbn.causal import ida  # noqa: E402

for method in ("local", "optimal"):
    effects = ida(data, model, "s3", "target", method=method)
    print(f"\neffect of s3 on target, method={method!r}:")
    print(effects.round(1).to_string(index=False))
