"""One BLAS thread while vart solves (issue 35, item 2): the scope sets every BLAS library to
one thread and gives each back the count it had, when the last scope of the process closes
(nested, in several threads, after an error); every solve runs inside it."""
from __future__ import annotations

import math
import sys
import threading

import pytest

from vart_addon.solver import Settings, Solver
from vart_addon.solver import threads as T

pytestmark = pytest.mark.skipif(not T.available(), reason="no BLAS library threadpoolctl can "
                                "limit in this Python")


@pytest.fixture
def two_threads():
    """Every BLAS library at 2 threads for the test (whatever OPENBLAS_NUM_THREADS said), then
    back to the count it had."""
    before = T.blas_threads()
    for _, put in T._blas_libraries():
        put(2)
    assert T.blas_threads() == [2] * len(before)
    yield
    for (_, put), n in zip(T._blas_libraries(), before):
        put(n)


def test_the_scope_sets_one_thread_and_restores_the_count_before(two_threads):
    with T.one_blas_thread():
        assert set(T.blas_threads()) == {1}
    assert set(T.blas_threads()) == {2}
    for _, put in T._blas_libraries():
        put(3)
    with T.one_blas_thread():
        assert set(T.blas_threads()) == {1}
    assert set(T.blas_threads()) == {3}  # what it was at this scope's start, not the last one


def test_nested_scopes_restore_at_the_outermost_and_after_an_error(two_threads):
    with T.one_blas_thread():
        with T.one_blas_thread():
            pass
        assert set(T.blas_threads()) == {1}  # the inner scope closed: still one thread
    assert set(T.blas_threads()) == {2}
    with pytest.raises(RuntimeError), T.one_blas_thread():
        raise RuntimeError("the body fails")
    assert set(T.blas_threads()) == {2}
    assert T._depth == 0


def test_scopes_in_two_threads_keep_one_thread_until_both_close(two_threads):
    """The count is process-wide: a scope closed in one thread while another thread's solve
    is still open keeps one thread; the last one to close (here not the one that opened the
    first scope) restores it."""
    opened, release, seen = threading.Event(), threading.Event(), []

    def other():
        with T.one_blas_thread():
            opened.set()
            release.wait(10)
            seen.append(T.blas_threads())

    scope = T.one_blas_thread()
    scope.__enter__()
    worker = threading.Thread(target=other)
    worker.start()
    assert opened.wait(10)
    scope.__exit__(None, None, None)  # the first scope closes first
    assert set(T.blas_threads()) == {1}
    release.set()
    worker.join(10)
    assert set(seen[0]) == {1} and set(T.blas_threads()) == {2}


def test_a_solve_runs_on_one_blas_thread_and_gives_the_count_back(vh, two_threads,
                                                                    monkeypatch):
    fb = vh.FourBar()
    solver = Solver(fb.lk, Settings())
    during = []
    solve_group = solver._solve_group

    def spy(*a, **k):
        during.append(T.blas_threads())
        return solve_group(*a, **k)
    monkeypatch.setattr(solver, "_solve_group", spy)
    fb.lk.set_target("crank", [math.radians(20)])
    assert solver.solve().converged
    assert during and all(set(d) == {1} for d in during)
    assert set(T.blas_threads()) == {2}


def test_without_threadpoolctl_the_scope_leaves_the_count_alone(monkeypatch, two_threads):
    libraries = T._blas_libraries()
    monkeypatch.setattr(T, "_libraries", None)  # found again, with the import failing
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)
    assert not T.available() and T.blas_threads() == []
    with T.one_blas_thread():
        assert {get() for get, _ in libraries} == {2}
