"""The counting engine: the only code that turns encoded data into count tables.

Every score, conditional-independence test and CPT reads its sufficient statistics from
here, and every count is weighted by ``EncodedData.weights`` (row weights from
``sample_weight``; integer counts on the fast path when there are none).

* :mod:`~skbn._counting._tables` -- configuration ids (mixed radix, one compression
  rule :func:`dense_is_small`), the counting primitive :func:`count_cells`, family,
  contingency, CPT and pairwise (one-hot Gram) tables;
* :mod:`~skbn._counting._stacks` -- :class:`TableStack`, the candidate tables a score
  evaluates in one batch, and :class:`DistinctRows` (exact search's compressed data);
* :mod:`~skbn._counting._counter` -- :class:`FamilyCounter`, the per-fit counting
  context with its caches (Gram matrix once, configuration ids of recent parent sets);
* :mod:`~skbn._counting._stratified` -- :class:`StratifiedCounter`, the stratified
  contingency tables of many conditional-independence tests at once (PC's row lanes,
  level-1 Gram slices, shared configuration-id caches);
* :mod:`~skbn._counting._cache` -- :class:`BoundedCache`, the one bounded cache (in
  entries and / or bytes of arrays, least recently used or first in first out) of the
  counters' configuration ids, pair states and level-1 Gram matrices;
* :mod:`~skbn._counting._moments` -- the second kind of statistic: weighted means and
  scatter matrices of continuous columns (per configuration of discrete ones, for CLG
  models), additive across chunks, and the regressions and partial correlations read
  from them;
* :mod:`~skbn._counting._moment_counter` -- :class:`MomentCounter`, the per-fit context of
  the moments (one scatter matrix per set of discrete columns that split them, cached).
"""

from skbn._counting._cache import BoundedCache
from skbn._counting._counter import ID_CACHE_SIZE, FamilyCounter, kept_row_groups
from skbn._counting._moment_counter import MOMENT_CACHE_SIZE, MomentCounter
from skbn._counting._moments import (
    Moments,
    ResidualLattice,
    added_parent_rss,
    collinear_pairs,
    conditional_variances,
    linear_dependencies,
    moments,
    partial_correlation,
    partial_correlations,
    partial_correlations_batch,
    regression,
    robust_moments,
)
from skbn._counting._stacks import (
    DistinctRows,
    TableStack,
    added_parent_stack,
    marginal_stack,
    pair_family_stack,
)
from skbn._counting._stratified import StratifiedCounter, gram_given, gram_nbytes, pairwise_contingency
from skbn._counting._tables import (
    compress_ids,
    config_ids,
    contingency_tables,
    count_cells,
    count_positive,
    cpt_counts,
    dense_is_small,
    extend_ids,
    family_table,
    functional_pairs,
    n_configurations,
    observed_cpt_counts,
    observed_together,
    one_hot,
    pairwise_tables,
    stratified_codes,
    table_from_ids,
)
from skbn._data import row_copies, weights_are_integral  # (the row-weight rules: the encoder's)

__all__ = [
    "BoundedCache",
    "ID_CACHE_SIZE",
    "MOMENT_CACHE_SIZE",
    "MomentCounter",
    "DistinctRows",
    "FamilyCounter",
    "Moments",
    "ResidualLattice",
    "StratifiedCounter",
    "TableStack",
    "added_parent_rss",
    "added_parent_stack",
    "collinear_pairs",
    "conditional_variances",
    "linear_dependencies",
    "marginal_stack",
    "moments",
    "pair_family_stack",
    "compress_ids",
    "config_ids",
    "contingency_tables",
    "count_cells",
    "count_positive",
    "cpt_counts",
    "dense_is_small",
    "extend_ids",
    "family_table",
    "functional_pairs",
    "gram_given",
    "gram_nbytes",
    "kept_row_groups",
    "n_configurations",
    "observed_cpt_counts",
    "observed_together",
    "one_hot",
    "pairwise_contingency",
    "pairwise_tables",
    "partial_correlation",
    "partial_correlations",
    "partial_correlations_batch",
    "regression",
    "robust_moments",
    "row_copies",
    "stratified_codes",
    "table_from_ids",
    "weights_are_integral",
]
