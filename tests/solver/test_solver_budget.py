"""The solver's time budget against pauses of Python's garbage collector.

A solve pauses the cyclic collector (it creates no reference cycles), so a collection of a
large heap cannot eat an interactive solve's millisecond budget and stop it early, at a
point that depends on when the collector ran. Here every collection is made to cost 60 ms
(a callback that sleeps), collections are made as frequent as possible (threshold 1), and a
four-bar operated by 40 degrees must still converge within a 50 ms budget.
"""

import contextlib
import gc
import math
import time

import pytest

from vart_addon.solver import Settings, Solver


@contextlib.contextmanager
def slow_collector():
    """While active: a collection after every allocation of a tracked object, 60 ms each."""
    def pause(phase, info):
        if phase == "start":
            time.sleep(0.06)
    old = gc.get_threshold()
    gc.collect()
    gc.callbacks.append(pause)
    gc.set_threshold(1)
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.callbacks.remove(pause)


def test_a_collection_cannot_eat_the_time_budget(vh):
    fb = vh.FourBar()
    solver = Solver(fb.lk, Settings(max_ms=50.0))
    fb.lk.set_target("crank", [math.radians(40)])
    with slow_collector():
        status = solver.solve()
    assert status.converged and not status.out_of_budget
    th = fb.th0 + math.radians(40)
    assert fb.measured_rocker_angle() == pytest.approx(fb.rocker_angle(th), abs=1e-9)


def test_the_collector_is_restored_after_a_solve_and_after_an_error(vh):
    fb = vh.FourBar()
    solver = Solver(fb.lk)
    assert gc.isenabled()
    solver.solve()
    assert gc.isenabled()
    gc.disable()
    try:
        solver.solve()
        assert not gc.isenabled()  # left as the caller had it
    finally:
        gc.enable()

    class Boom(Exception):
        pass

    def fail(*_a, **_k):
        assert not gc.isenabled()
        raise Boom
    solver._solve_group = fail
    with pytest.raises(Boom):
        solver.solve()
    assert gc.isenabled()
