#!/usr/bin/env python3
"""IK branches of an arm, timed (``.venv/bin/python bench/arm_branches.py``): Find Solutions
and a drag with Keep Configuration (``vart_addon/solver/arm_solutions.py``,
``keep_configuration.py``), on example-robot-data's UR5 and Panda, headless.

- ``find``: :func:`find_solutions` at a generic pose of each arm (its default starts), run
  ``--repeats`` times (default 7; a new seed each): the median and the slowest wall time, and
  how many solutions and branches each run found (the median);
- ``drag``: UR5's ``tool0`` dragged round a 10 cm circle (``--frames`` link targets, default
  200, the tool's rotation held) by one solver, as a viewport drag does, plain and with Keep
  Configuration on the tool; the two alternate ``--repeats`` times and the median of each
  run's median ms per frame is printed with their ratio (Keep Configuration / plain: the
  issue asks for 1.2 at most). ``drag-through``: the same along a path through the wrist
  singularity (wrist 2 from 0.5 to -0.5 rad), where the goal is at work: the plain drag flips
  the wrist, the held one stops at the margin.

One BLAS thread (as the solver runs). Timings on a shared machine are noisy: compare the
ratios of one run.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests" / "helpers")]

import numpy as np  # noqa: E402

from pinocchio_check import ROBOTS  # noqa: E402
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf  # noqa: E402
from vart_addon.solver import Solver  # noqa: E402
from vart_addon.solver import arm_branches as AB  # noqa: E402
from vart_addon.solver.arm_solutions import find_solutions  # noqa: E402

UR5 = ("ur_description/urdf/ur5_robot.urdf", "tool0", False, [0.3, -1.2, 1.5, -0.8, 1.1, 0.4])
PANDA = ("panda_description/urdf/panda.urdf", "panda_hand_tcp", True,
         [0.3, -0.5, 0.2, -2.0, 0.3, 1.5, 0.5])


def arm(robot):
    """``(linkage, tool)`` of an arm at its generic configuration."""
    path, tool, fixed, q = robot
    lk = linkage_from_urdf(ROBOTS / path, fixed_base=fixed)[0]
    for j, v in zip(AB.arm_joints(lk, tool), q):
        lk.set_q(j.name, [v])
    return lk, tool


def bench_find(repeats: int) -> None:
    print("find_solutions (default starts): median / slowest ms, solutions, branches")
    for name, robot in (("UR5", UR5), ("Panda", PANDA)):
        lk, tool = arm(robot)
        T = lk.pose(tool)
        ms, found, branches = [], [], []
        for seed in range(repeats):
            t0 = time.perf_counter()
            sols = find_solutions(lk, tool, T, seed=seed)
            ms.append((time.perf_counter() - t0) * 1e3)
            found.append(len(sols))
            branches.append(len({s.branch for s in sols}))
        print(f"  {name:6s} {statistics.median(ms):7.1f} / {max(ms):7.1f} ms  "
              f"{statistics.median(found):4.0f} solutions  {statistics.median(branches):3.0f} "
              "branches")


def circle(lk, tool, frames: int) -> list:
    """Tool poses round a 10 cm circle in the world's xy plane from where it is."""
    T0 = lk.pose(tool)
    out = []
    for a in np.linspace(0.0, 2 * np.pi, frames):
        T = T0.copy()
        T[:3, 3] += 0.1 * np.array([np.cos(a) - 1.0, np.sin(a), 0.0])
        out.append(T)
    return out


def through_wrist(lk, tool, frames: int) -> list:
    """Tool poses of wrist 2 turning from 0.5 to -0.5 rad, the other joints held."""
    a = AB.arm_of(lk, tool)
    m = lk.model()
    q0 = np.array([j.q[0] for j in AB.arm_joints(lk, tool)])
    out = []
    for v in np.linspace(0.5, -0.5, frames):
        q = q0.copy()
        q[4] = v
        out.append(m.fk(a.full_q(m, q))[a.tool])
    return out


def drag(path, keep: bool) -> tuple[float, int, tuple]:
    """One drag of UR5's tool along ``path`` (a function of the linkage): median ms per
    frame, frames with an unmet goal, and the branch at the end."""
    lk, tool = arm(UR5)
    lk.set_q("wrist_2_joint", [0.5])
    poses = path(lk, tool)
    if keep:
        lk.set_goal("keep_configuration", tool, {})
    solver = Solver(lk)
    solver.solve()
    ms, unmet = [], 0
    for T in poses:
        t0 = time.perf_counter()
        lk.set_link_target(tool, T)
        st = solver.solve()
        ms.append((time.perf_counter() - t0) * 1e3)
        unmet += bool(st.unmet)
    return statistics.median(ms), unmet, AB.branch_of(lk, tool)


def bench_drag(repeats: int, frames: int) -> None:
    for title, path in (("drag", lambda lk, tool: circle(lk, tool, frames)),
                        ("drag-through", lambda lk, tool: through_wrist(lk, tool, frames))):
        runs: dict = {False: [], True: []}
        for _ in range(repeats):
            for keep in (False, True):
                runs[keep].append(drag(path, keep))
        plain = statistics.median(r[0] for r in runs[False])
        held = statistics.median(r[0] for r in runs[True])
        print(f"{title} (UR5 tool0, {frames} frames, median of {repeats} runs' medians)")
        for keep, med in ((False, plain), (True, held)):
            r = runs[keep][-1]
            print(f"  {'keep configuration' if keep else 'plain':18s} {med:6.3f} ms/frame  "
                  f"unmet in {r[1]} frames, branch at the end {r[2]}")
        print(f"  ratio {held / plain:.2f}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--only", choices=("find", "drag"))
    args = ap.parse_args(argv)
    if not (ROBOTS / UR5[0]).is_file():
        sys.exit("example-robot-data is not installed in this Python")
    if args.only != "drag":
        bench_find(args.repeats)
    if args.only != "find":
        bench_drag(args.repeats, args.frames)


if __name__ == "__main__":
    main()
