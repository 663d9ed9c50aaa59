"""The one progress reporter of every learner (the ``verbose`` convention).

Every estimator's ``verbose`` means the same (see ``VERBOSE_PARAMETER`` in
:mod:`skbn.utils._docstrings`):

* ``0``: nothing is written;
* ``1``: a start line, at most one summary line every :data:`INTERVALS` ``[1]`` seconds
  while the work runs (work done, rate and, when the total work is known, the percentage
  and the time left), and a final summary;
* ``2`` and more: summaries every :data:`INTERVALS` ``[2]`` seconds, plus the detail
  lines a learner has (PC's levels, GES's phases, one line per EM iteration, ...).

Everything goes to ``sys.stderr`` (looked up at every write, so redirections and pytest's
``capsys`` see it), one line per message, prefixed by ``[task]``; standard output stays
free for results.

The time left is ``(total - done) / rate``, with the rate ``done / elapsed`` measured since
the start (or the last :meth:`Progress.stage`). It assumes equal work per unit, so it is
an estimate of the remaining time, exact only when the units cost the same.
"""

import contextvars
import math
import sys
import time
from contextlib import contextmanager
from numbers import Integral, Real

from skbn.utils._text import counted

__all__ = ["INTERVALS", "Progress", "amount", "format_duration"]

#: Smallest number of seconds between two periodic summary lines, by verbosity.
INTERVALS = {1: 5.0, 2: 1.0}

#: How many reporting tasks enclose the current one (see :meth:`Progress.nested`).
_DEPTH = contextvars.ContextVar("skbn_progress_depth", default=0)


def format_duration(seconds):
    """A short human duration: ``"0.42 s"``, ``"12.3 s"``, ``"4 min 05 s"``, ``"2 h 03 min"``."""
    seconds = max(float(seconds), 0.0)
    if seconds < 10:
        return f"{seconds:.2f} s"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _format_value(value):
    """Integers with thousands separators; reals with 6 significant digits, or one decimal
    from 10,000 on (scores and log-likelihoods); anything else as ``str``."""
    if isinstance(value, bool) or not isinstance(value, Real):
        return str(value)
    if isinstance(value, Integral):
        return f"{int(value):,}"
    value = float(value)
    if math.isfinite(value) and 1e4 <= abs(value) < 1e15:
        return f"{value:.1f}"
    return f"{value:.6g}"


def _format_fields(fields):
    return ", ".join(f"{key.replace('_', ' ')} {_format_value(value)}" for key, value in fields.items())


def _rate(rate, unit):
    text = f"{rate:,.0f}" if rate >= 100 else f"{rate:.3g}"
    return f"{counted(rate, unit, text=text)}/s"


def amount(value, unit, plural=None):
    """``value`` and ``unit`` (singular; ``plural`` when not ``unit + "s"``) as the lines
    write them: "1 edge", "1,024 edges" (:func:`skbn.utils._text.counted`)."""
    return counted(value, unit, plural, text=_format_value(value))


class Progress:
    """Rate-limited progress lines on stderr for one task.

    Parameters
    ----------
    verbose : int
        The estimator's ``verbose``; 0 (or False) makes every method a no-op.
    task : str
        Prefix of every line, e.g. ``"ExactStructure"``.
    total : int or None, default=None
        Number of work units, when known: the summaries then give the percentage done and
        the time left.
    unit : str, default="step"
        Name of a work unit, singular ("parent set", "resample", "move", ...): the lines
        write "1 move", "2 moves" (:func:`skbn.utils._text.counted`).
    detail : str or None, default=None
        Written on the start line (e.g. the data's size or a cost estimate).
    clock : callable or None, default=None
        Returns seconds (``time.perf_counter`` when None); tests pass a fake clock.
    """

    def __init__(self, verbose, task, total=None, unit="step", *, detail=None, clock=None):
        self.verbose = max(int(verbose or 0) - _DEPTH.get(), 0)
        self.task = task
        self.unit = self._task_unit = unit
        self.clock = time.perf_counter if clock is None else clock
        self.interval = INTERVALS[min(max(self.verbose, 1), 2)]
        self.total = total
        self.done = 0
        self._start = self._stage_start = self._last = self.clock() if self.verbose else 0.0
        self._stage_done = 0
        self._stage = None
        self._closed = False
        if self.verbose:
            text = "start" if detail is None else f"start: {detail}"
            if total is not None and detail is None:
                text += f": {amount(total, unit)}"
            self._write(text)

    @property
    def enabled(self):
        """Whether anything is written (``verbose >= 1``)."""
        return self.verbose >= 1

    @property
    def detailed(self):
        """Whether detail lines are written (``verbose >= 2``)."""
        return self.verbose >= 2

    @staticmethod
    @contextmanager
    def nested():
        """A block whose own reporters (an inner search: MMHC's hill climbing, the searches
        of structural EM) write one verbosity level lower: silent at ``verbose=1``, where
        the enclosing task's summaries stand for them."""
        token = _DEPTH.set(_DEPTH.get() + 1)
        try:
            yield
        finally:
            _DEPTH.reset(token)

    def _write(self, text):
        print(f"[{self.task}] {text}", file=sys.stderr, flush=True)

    def elapsed(self):
        """Seconds since the start."""
        return self.clock() - self._start if self.verbose else 0.0

    def stage(self, name, total=None, unit=None, **fields):
        """Start a new stage (a PC level, a GES phase): the count restarts at 0 of ``total``
        and the rate is measured afresh. Written at ``verbose >= 2``."""
        if not self.verbose:
            return
        self._stage, self.total, self.done = name, total, 0
        if unit is not None:
            self.unit = unit
        self._stage_start = self._last = self.clock()
        self._stage_done = 0
        if self.detailed:
            extra = ([amount(total, self.unit)] if total is not None else []) + (
                [_format_fields(fields)] if fields else [])
            self._write(": ".join([name, ", ".join(extra)]) if extra else name)

    def _summary(self, now, fields):
        done, total = self.done, self.total
        elapsed = now - self._stage_start
        rate = (done - self._stage_done) / elapsed if elapsed > 0 else None
        parts = []
        if self._stage is not None:
            parts.append(self._stage)
        if total is not None:
            share = 100.0 * done / total if total else 100.0
            parts.append(f"{_format_value(done)}/{amount(total, self.unit)} ({share:.0f}%)")
        else:
            parts.append(amount(done, self.unit))
        if rate is not None:
            parts.append(_rate(rate, self.unit))
            if total is not None and rate > 0:
                parts.append(f"about {format_duration(max(total - done, 0) / rate)} left")
        parts.append(f"{format_duration(now - self._start)} elapsed")
        if fields:
            parts.append(_format_fields(fields))
        return ", ".join(parts)

    def update(self, done, total=None, **fields):
        """Record that ``done`` units are finished (of ``total``, if it changed); write a
        summary line when the last one is older than the interval. ``fields`` (score,
        log-likelihood, edges, ...) are appended as ``name value``."""
        if not self.verbose:
            return
        self.done = done
        if total is not None:
            self.total = total
        now = self.clock()
        if now - self._last >= self.interval:
            self._last = now
            self._write(self._summary(now, fields))

    def message(self, text, level=2):
        """Write ``text`` when ``verbose >= level`` (detail lines: level 2)."""
        if self.verbose >= level:
            self._write(text)

    def close(self, done=None, rate=True, **fields):
        """Write the final summary: work done (in the task's unit, whatever the stages'),
        time taken, rate (unless ``rate`` is False) and ``fields``."""
        if not self.verbose or self._closed:
            return
        self._closed = True
        if done is not None:
            self.done = done
        elapsed = self.clock() - self._start
        unit = self._task_unit
        text = f"done: {amount(self.done, unit)} in {format_duration(elapsed)}"
        if rate and elapsed > 0 and self.done:
            text += f" ({_rate(self.done / elapsed, unit)})"
        if fields:
            text += f", {_format_fields(fields)}"
        self._write(text)
