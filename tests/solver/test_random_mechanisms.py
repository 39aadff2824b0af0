"""Random mechanisms with random goals (issue 19, "keep it caught"): a solve never raises
anything but VartError, never writes NaN, never claims convergence with a hard goal broken,
and gives the same answer twice (to rounding: :data:`SAME_TOL`). A few hundred cases in
``make test``; more with ``VART_FUZZ_EXAMPLES=5000 make test-solver``. Fixed reproductions of what it once found are
in test_bend_predictor.py (a group stopping before its first step) and test_bad_input.py.
The budget variant (issue 35): solved with a 5 ms budget, none takes more than 1.5 times it
in CPU time."""
from __future__ import annotations

import os
import time
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vart_addon.solver import Settings, Solver, VartError
from vart_addon.solver import sparse_rows as SR

EXAMPLES = int(os.environ.get("VART_FUZZ_EXAMPLES", "200"))
#: How far two solves of one mechanism may differ (rad or m), converged and not. Not bit for
#: bit: OpenBLAS's dot product rounds the last bit by its arrays' memory alignment (``a.dot(b)``
#: of 9 values placed 8 bytes apart can differ in the last bit), so two solves in one process
#: can end one unit in the last place apart (seed 29461955, ``blocks_and_packs``, found with
#: 3,000 examples). A solve that stops unconverged (its iteration budget spent on an
#: unreachable compromise) carries that last bit on through its iterations: 8.8e-7 apart at
#: seed 111297380. A real dependence on anything else (a set's order, a stale cache) moves
#: them by far more.
SAME_TOL = {True: 1e-9, False: 1e-5}


def _mechanism(vh, seed: int):
    """A random tree with up to two closures and random goals on random joints: targets
    (some DoF), locks, postures and springs, and in some a balance goal; the same for the
    same seed."""
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, closures=int(rng.integers(0, 3)))
    for name, j in list(lk.joints.items()):
        if not j.dof:
            continue
        r = rng.random()
        try:
            if r < 0.35:
                mask = rng.random(j.dof) < 0.7
                lk.set_target(name, j.q + rng.uniform(-0.8, 0.8, j.dof), mask if mask.any()
                              else None)
            elif r < 0.5:
                lk.lock_joint(name)
            elif r < 0.65:
                lk.set_posture(name, rng.uniform(-0.5, 0.5, j.dof))
            elif r < 0.75 and j.dof == 1:
                lk.set_stiffness(name, float(rng.uniform(1, 100)), j.q + 0.3)
        except VartError:
            pass  # a goal the API refuses (e.g. on a closure) is bad input, refused cleanly
    _balance_goals(lk, np.random.default_rng([seed, 1]))
    return lk


def _balance_goals(lk, rng):
    """In a third of the mechanisms: masses on the links, up to three pins, torque limits on
    some joints, and a balance, CoM Target or CoM Over goal on a random link (its own stream
    of random numbers, so the goals above are those of the same seed before balance goals
    existed)."""
    if rng.random() > 1 / 3:
        return
    for name in lk.links:
        lk.set_mass(name, float(rng.uniform(0.1, 5.0)), rng.normal(0, 0.2, 3))
    names = list(lk.links)
    poses = lk.poses()
    for k in range(int(rng.integers(0, 4))):  # pins: spherical joints from the ground
        link = names[int(rng.integers(len(names)))]
        frame = poses[link].copy()
        frame[:3, 3] += rng.normal(0, 0.3, 3)
        lk.add_joint(f"balance_pin{k}", "spherical", None, link, world_frame=frame,
                     virtual=True, tree=False)
    for j in list(lk.joints.values()):  # torque limits on some 1-DoF tree joints
        if j.is_tree and j.dof == 1 and rng.random() < 0.3:
            lk.set_goal("torque_limit", j.name, {"effort": float(rng.uniform(0, 50))})
    host = names[int(rng.integers(len(names)))]
    kind = ("balance", "com_over", "com_target")[int(rng.integers(3))]
    lk.set_goal(kind, host, {"margin": float(rng.uniform(0, 0.1))} if kind == "balance" else
                {"point": rng.normal(0, 0.5, 3)})


def _solve(vh, seed: int):
    lk = _mechanism(vh, seed)
    status = Solver(lk, Settings(max_iterations=60)).solve()
    return lk, status


@pytest.mark.parametrize("min_cols", [SR.MIN_COLS, 1], ids=["as_shipped", "blocks_and_packs"])
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31 - 1))
def test_a_random_mechanism_solves_cleanly_and_the_same_twice(vh, seed, min_cols):
    """``blocks_and_packs``: every mechanism solved as a large one is (rows stored by
    supports where they are narrow, the stack solved by blocks, independent groups packed:
    issue 22), so those paths meet arbitrary joint types, closures, limits and goals."""
    with mock.patch.object(SR, "MIN_COLS", min_cols):
        _check_solves_cleanly(vh, seed)


def _check_solves_cleanly(vh, seed):
    try:
        lk, status = _solve(vh, seed)
    except VartError:
        return  # refused as a whole: bad input, with a message
    q = np.concatenate([j.q for j in lk.all_joints() if j.q.size] or [np.zeros(0)])
    assert np.isfinite(q).all()
    poses = lk.poses()
    assert all(np.isfinite(T).all() for T in poses.values())
    if status.converged:
        for name in ("invariant", "lock"):
            level = status.level(name)
            assert level.satisfied and level.max_goal_error < 1e-6, (name, level)
    lk2, status2 = _solve(vh, seed)
    assert status.converged == status2.converged and status.unmet == status2.unmet
    for n, j in lk.joints.items():  # deterministic, to the rounding of numpy's BLAS kernels
        assert np.abs(j.q - lk2.joints[n].q).max(initial=0.0) <= SAME_TOL[status.converged], n


#: The budget variant: ``Settings.max_ms`` and how far past it a solve may end, in CPU time.
BUDGET_MS, OVERRUN = 5.0, 1.5
#: Runs of a solve over the bound, and the pause before each rerun (s).
RETRIES, RETRY_PAUSE_S = 5, 0.05


def _cpu_ms(vh, seed):
    """CPU milliseconds of the solving thread for one solve of the mechanism ``seed`` with a
    ``BUDGET_MS`` budget and no iteration limit, and its status."""
    solver = Solver(_mechanism(vh, seed), Settings(max_iterations=10**6, max_ms=BUDGET_MS))
    c0 = time.thread_time()
    status = solver.solve()
    return (time.thread_time() - c0) * 1e3, status


@pytest.fixture(scope="module")
def warm(vh):
    """One solve before the timed ones: a process's first solve imports what the solver
    imports lazily, finds the BLAS library (:mod:`~vart_addon.solver.threads`) and runs
    numpy's first LAPACK calls (about 6 ms, once per process)."""
    Solver(_mechanism(vh, 1)).solve()


@pytest.mark.parametrize("min_cols", [SR.MIN_COLS, 1], ids=["as_shipped", "blocks_and_packs"])
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31 - 1))
def test_a_5_ms_budget_holds_within_1_5x_in_cpu_time(vh, warm, seed, min_cols):
    """The time from the call to the return, analysis included, in CPU time of the solving
    thread (``time.thread_time``): the solver checks its wall-clock deadline before every
    evaluation and step, and its thread's CPU clock runs no faster than the wall clock, so
    what it may use past the budget is the work after the last check (one evaluation or step,
    and one evaluation of each group not yet solved, for its status): under 1.5 ms for these
    mechanisms (2 to 8 links, up to 2 closures). Wall time is not what is checked: on a shared
    machine another process takes the core for whole scheduler slices at any moment (beside
    two busy processes these solves took up to 2.6 times the budget in wall time and 1.4 in
    CPU time), which no solver can prevent. CPU time also moves with the neighbours (shared
    caches, the core's clock: one solve measured 1.03 alone, 1.47 in a busy run), so a solve
    over the bound is measured again, up to :data:`RETRIES` times in all, a pause apart, and
    the least is kept: the solver's own overrun repeats, the neighbours' does not. (With
    three runs back to back, 3,000 examples after the test above in one process failed now
    and then: seed 60 took 10.8 ms three times in a row, 5.1-5.6 ms in a process of its own,
    and Hypothesis then reported the failure as flaky.) Issue 35 measured 32 of 522 solves over 1.5 (up to
    2.9) before the checks between a step's damping rounds and the analysis counted in."""
    with mock.patch.object(SR, "MIN_COLS", min_cols):
        try:
            runs = [_cpu_ms(vh, seed)]
        except VartError:
            return  # refused as a whole: bad input, with a message
        while runs[-1][0] > OVERRUN * BUDGET_MS and len(runs) < RETRIES:
            time.sleep(RETRY_PAUSE_S)  # (past a neighbour's burst, not into it)
            runs.append(_cpu_ms(vh, seed))
    ms = min(r[0] for r in runs)
    assert ms <= OVERRUN * BUDGET_MS, (seed, [r[0] for r in runs], runs[0][1])
