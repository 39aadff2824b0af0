"""Running a generator of frame steps (a check's, a bake's: it yields ``(done, total)`` and
returns its result) to its end, as the operators do without a window."""
from __future__ import annotations


def run(steps):
    """Run ``steps`` to its end; its result."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value
