"""The verbose convention: the reporter (rate limiting, ETA, with a fake clock) and every
learner writing its progress to stderr only, nothing at verbose=0."""

import re

import numpy as np
import pytest
from _learners import ASIA_ORDER, CONFIGURATIONS, make

from skbn.datasets import sample_asia
from skbn.utils._progress import Progress, amount, format_duration
from skbn.utils._text import counted


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def lines(text):
    return [line for line in text.splitlines() if line]


def test_silent_at_verbose_zero(capsys):
    clock = FakeClock()
    progress = Progress(0, "Task", total=10, unit="unit", clock=clock)
    for done in range(1, 11):
        clock.now += 100
        progress.update(done, score=1.0)
    progress.stage("phase", total=3)
    progress.message("detail", level=1)
    progress.close(score=2.0)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_rate_limited_summaries_with_rate_and_time_left(capsys):
    clock = FakeClock()
    progress = Progress(1, "Task", total=100, unit="unit", clock=clock)
    # 1 unit per second: a line only once 5 s have passed since the previous one
    for done in range(1, 21):
        clock.now += 1.0
        progress.update(done, score=-12.5)
    progress.close()
    out = capsys.readouterr()
    assert out.out == ""
    got = lines(out.err)
    assert got[0] == "[Task] start: 100 units"
    summaries = got[1:-1]
    assert len(summaries) == 4  # at 5, 10, 15 and 20 s
    # after 5 s, 5 of 100 units at 1 unit/s: 95 s left
    assert summaries[0] == ("[Task] 5/100 units (5%), 1 unit/s, about 1 min 35 s left, "
                            "5.00 s elapsed, score -12.5")
    assert "20/100 units (20%)" in summaries[3] and "about 1 min 20 s left" in summaries[3]
    assert got[-1] == "[Task] done: 20 units in 20.0 s (1 unit/s)"


def test_verbose_two_writes_more_often_and_details(capsys):
    clock = FakeClock()
    progress = Progress(2, "Task", total=10, unit="unit", clock=clock)
    progress.message("a detail")
    for done in range(1, 11):
        clock.now += 1.0
        progress.update(done)
    progress.close()
    got = lines(capsys.readouterr().err)
    assert got[1] == "[Task] a detail"
    assert len(got) == 1 + 1 + 10 + 1
    assert got[-2].startswith("[Task] 10/10 units (100%), 1 unit/s, about 0.00 s left")


def test_unknown_total_has_no_time_left_and_detail_lines_need_verbose_two(capsys):
    clock = FakeClock()
    progress = Progress(1, "Task", unit="move", detail="3 variables", clock=clock)
    progress.message("hidden")
    progress.message("shown", level=1)
    clock.now += 6.0
    progress.update(12)
    progress.close(edges=4)
    got = lines(capsys.readouterr().err)
    assert got == ["[Task] start: 3 variables", "[Task] shown",
                   "[Task] 12 moves, 2 moves/s, 6.00 s elapsed",
                   "[Task] done: 12 moves in 6.00 s (2 moves/s), edges 4"]


def test_stage_restarts_the_rate_and_total(capsys):
    clock = FakeClock()
    progress = Progress(2, "PC", unit="test", clock=clock)
    clock.now += 10.0
    progress.stage("level 1", total=40)
    clock.now += 2.0
    progress.update(10)  # 5 tests/s since the stage began, 30 left: 6 s
    got = lines(capsys.readouterr().err)
    assert got[1] == "[PC] level 1: 40 tests"
    assert got[2] == "[PC] level 1, 10/40 tests (25%), 5 tests/s, about 6.00 s left, 12.0 s elapsed"


def test_counts_take_the_number_of_their_noun(capsys):
    # The lines wrote "1 edges", "1 tests/s" and "1 columns": one rule (skbn.utils._text.
    # counted) now writes the singular when the number reads "1", for the progress lines
    # and the command line's summaries alike.
    assert counted(1, "edge") == "1 edge"
    assert [counted(n, "edge") for n in (0, 2, 1.5)] == ["0 edges", "2 edges", "1.5 edges"]
    assert counted(1, "family", "families") == "1 family"
    assert counted(3, "family", "families") == "3 families"
    assert counted(1.0004, "test", text="1") == "1 test"
    assert amount(1, "row") == "1 row" and amount(12345, "row") == "12,345 rows"
    clock = FakeClock()
    progress = Progress(2, "Task", total=1, unit="test", detail="1 column", clock=clock)
    progress.stage("level 0", total=1)
    clock.now += 1.0
    progress.update(1)
    progress.close(done=1)
    got = lines(capsys.readouterr().err)
    assert got == ["[Task] start: 1 column", "[Task] level 0: 1 test",
                   "[Task] level 0, 1/1 test (100%), 1 test/s, about 0.00 s left, 1.00 s elapsed",
                   "[Task] done: 1 test in 1.00 s (1 test/s)"]


def test_a_one_edge_fit_says_one_edge(capsys):
    X = sample_asia(200, random_state=0)[["smoke", "lung"]]
    make("fixed", edges=[("smoke", "lung")], verbose=1).fit(X)
    got = lines(capsys.readouterr().err)
    assert got[0] == "[FixedStructure] start: 2 columns, 200 rows"
    assert got[-1].startswith("[FixedStructure] done: 1 edge in "), got[-1]


def test_durations():
    assert format_duration(0.421) == "0.42 s"
    assert format_duration(12.34) == "12.3 s"
    assert format_duration(245) == "4 min 05 s"
    assert format_duration(7380) == "2 h 03 min"


#: Every learner and search of tests/_learners.py, with what ASIA needs.
ASIA_PARAMS = {"k2": {"ordering": ASIA_ORDER}, "exact": {"max_indegree": 2}, "tan": {"target": "either"}}


@pytest.mark.parametrize("learner", list(CONFIGURATIONS))
def test_every_learner_reports_on_stderr_only(learner, capsys):
    X = sample_asia(500, random_state=0)
    params = ASIA_PARAMS.get(learner, {})
    make(learner, **params, verbose=0).fit(X)
    quiet = capsys.readouterr()
    assert quiet.out == "" and quiet.err == ""
    model = make(learner, **params, verbose=1).fit(X)
    out = capsys.readouterr()
    assert out.out == ""
    got = lines(out.err)
    name = type(model).__name__
    assert got[0].startswith(f"[{name}] start")
    assert re.match(rf"\[{name}\] done: .* in [0-9.]+ s", got[-1]), got[-1]


@pytest.mark.parametrize("learner, params", [("hill_climb", {}), ("fixed", {"edges": []})])
def test_em_reports_iterations_with_the_log_likelihood(learner, params, capsys):
    X = sample_asia(300, random_state=0).astype(object)
    X.iloc[::7, 2] = None
    name = type(make(learner, **params, missing="em", em_max_iter=5, verbose=2).fit(X)).__name__
    out = capsys.readouterr()
    assert out.out == ""
    assert re.search(rf"\[{name} EM\] iteration 1: log-posterior -[0-9.]+\n", out.err), out.err
    assert re.search(rf"\[{name} EM\] done: [0-9]+ iterations in .*objective -[0-9.]+", out.err)


def test_hill_climbing_is_not_one_line_per_move_at_verbose_one(capsys):
    X = sample_asia(2000, random_state=0)
    model = make("hill_climb", verbose=1).fit(X)
    got = lines(capsys.readouterr().err)
    assert model.n_iter_ > 5 and len(got) <= 3
    assert "moves" in got[-1] and "score" in got[-1]
    make("hill_climb", verbose=2).fit(X)
    assert len(lines(capsys.readouterr().err)) >= model.n_iter_


def test_reporter_does_not_change_results():
    X = sample_asia(500, random_state=0)
    for learner in CONFIGURATIONS:
        params = ASIA_PARAMS.get(learner, {})
        quiet = make(learner, **params).fit(X)
        loud = make(learner, **params, verbose=2).fit(X)
        assert quiet.edges_ == loud.edges_, learner
        if hasattr(quiet, "score_"):
            assert np.isclose(quiet.score_, loud.score_) or quiet.score_ == loud.score_


def test_nested_tasks_write_one_level_lower(capsys):
    outer = Progress(1, "Outer", clock=FakeClock())
    with outer.nested():
        Progress(1, "Inner").close()
        inner = Progress(2, "Inner2")
        inner.message("detail")
        inner.close()
    outer.close()
    got = lines(capsys.readouterr().err)
    assert [line.split("]")[0] for line in got] == ["[Outer", "[Inner2", "[Inner2", "[Outer"]
    assert "[Inner2] detail" not in got


def test_close_without_rate(capsys):
    clock = FakeClock()
    progress = Progress(1, "Task", unit="edge", clock=clock)
    clock.now += 2.0
    progress.close(done=3, rate=False, score=-1.5)
    progress.close(done=4)  # closed once
    assert lines(capsys.readouterr().err)[-1] == "[Task] done: 3 edges in 2.00 s, score -1.5"
