"""Rounds with early stopping, shared by the CI-test runner's two paths (count tables in
:mod:`skbn._engines._ci_runner`, moments in :mod:`skbn._engines._moment_tests`).

A *unit* is ``(x, y, subsets)``: the tests of ``x _||_ y | S`` for the sets ``S`` in order.
Each round tests the next chunk of sets of every unfinished unit; a unit whose tests may
stop at the first independence (PC's skeleton) leaves after it.
"""

__all__ = ["still_active"]


def still_active(active, results, position, units, stop_at_first):
    """The units of a round that go on to the next: not finished with their sets, and not
    stopped by an independence when ``stop_at_first`` (their results are then cut after
    the first one). ``results[u]`` is the unit's per-test lists ``(pvalues, flags, ...)``,
    ``position[u]`` the number of sets of unit ``u`` tested so far."""
    still = []
    for u in active:
        flags = results[u][1]
        if stop_at_first and True in flags:
            first = flags.index(True)
            for values in results[u]:
                del values[first + 1:]
        elif position[u] < len(units[u][2]):
            still.append(u)
    return still
