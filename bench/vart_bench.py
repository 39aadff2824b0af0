"""The benchmark problems of ../shared/bench (README.md there) as vart linkages, and their check.

A problem is a URDF tree plus a JSON of closures ("hard") and a drag path. Here:

* the URDF goes through :func:`linkage_from_urdf` with ``fixed_base=True`` (the URDF root,
  ``ground``, is the world in the neutral checker too), and ``q0`` is set on the tree joints;
* a ``point`` pinned to a ``world`` point on axes [0, 1, 2] is a ``spherical`` closure joint
  between the marker's link and the ground, mobility frame at the world point;
* a ``point`` between ``frame`` and ``frame2`` on axes [0, 1] is a ``revolute`` closure about
  world z between the two marker links, both frames at the marker origin with the world's
  orientation at q0 (``world_frame``), so it holds exactly at q0 (``closure="point-slider"``
  writes it as a point-slider instead: the same two in-plane equations and no others);
* an ``orientation`` is a ``cartesian-3`` closure between the frame's link and the ground whose
  mobility frame has the rotation ``R``;
* the drag is a target on the handle link's root joint (``set_link_target``): the full pose
  for ``kind: "pose"``, the listed position axes for ``kind: "point"``.

The check is independent of vart's kinematics: the vart tree joints' values, read as URDF
joint values, go through the URDF layer's own forward kinematics (``urdf.link_poses``), and
the residuals are measured as ../shared/bench/peers/kinematics.py does (per constraint, the
norm of its position error on its axes, or its rotation angle; a pose drag is the larger of
its position error and its rotation angle).

Pure numpy + vart; imported by bench/run.py and tests/solver/test_bench_smoke.py.
"""
from __future__ import annotations

import json
import math
import pathlib
import sys
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from vart_addon.formats.urdf import files as urdf  # noqa: E402
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf  # noqa: E402
from vart_addon.solver import Settings, Solver, se3  # noqa: E402

DEFAULT_PROBLEMS = REPO.parent / "shared" / "bench" / "problems"
PROBLEM_NAMES = ("P1_hexapod", "P1b_hexapod_overreach", "P2_fourbar_chain", "P3_tower")
FEASIBLE_TOL = 1e-6  # the protocol's threshold (m, rad)


def quat_rows(wxyz) -> list:
    """The 3x3 rotation of a quaternion (w, x, y, z), normalized, as rows of floats."""
    w, x, y, z = (float(v) for v in wxyz)
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]


def quat_matrix(wxyz) -> np.ndarray:
    """3x3 rotation of a unit quaternion (w, x, y, z)."""
    return np.array(quat_rows(wxyz))


def translation(p) -> np.ndarray:
    T = np.eye(4)
    T[:3, 3] = p
    return T


def rotation_angle(R) -> float:
    """Angle (rad) of a rotation matrix, accurate near 0 and pi."""
    return float(np.linalg.norm(se3.so3_log(R)))


class BenchProblem:
    """One benchmark problem built as a vart linkage, with its drag and independent check.

    ``settings`` follow the protocol: tolerance 1e-6 on every goal, at most 100 iterations,
    steps capped at 0.2 (rad or m); an unreachable drag (P1b) stops when its residual improves
    by less than 1e-5 per iteration (``stall_tol``).
    """

    def __init__(self, name: str, problems_dir=DEFAULT_PROBLEMS, closure: str = "revolute",
                 max_iterations: int = 100):
        d = pathlib.Path(problems_dir)
        path = d / f"{name}.json"
        if not path.is_file():
            raise FileNotFoundError(f"no benchmark problem {name!r} in {d}")
        with open(path) as f:
            self.spec = spec = json.load(f)
        if closure not in ("revolute", "point-slider"):
            raise ValueError(f"closure must be 'revolute' or 'point-slider', not {closure!r}")
        self.name = spec["name"]
        self.reachable = bool(spec["reachable"])
        self.robot = urdf.read_urdf(d / spec["urdf"])
        self.q0 = {n: float(spec["q0"].get(n, 0.0)) for n in spec["joints"]}
        self.lk, self.umap = linkage_from_urdf(self.robot, self.q0, fixed_base=True)
        self.hard = spec["hard"]
        self.drag = spec["drag"]
        self.path = np.asarray(self.drag["path"], dtype=float)
        self.n_frames = len(self.path)
        self.closure = closure
        self._add_closures()
        self._drag_mask = self._mask()
        self.settings = Settings(max_iterations=max_iterations, tol=FEASIBLE_TOL,
                                 stall_tol=1e-12 if self.reachable else 1e-5, max_step=0.2)
        self.solver = Solver(self.lk, self.settings)

    # ---- building ------------------------------------------------------------------------
    def _add_closures(self):
        lk, poses = self.lk, self.lk.poses()
        for c in self.hard:
            name, frame = c["name"], c["frame"]
            if c["kind"] == "point" and "world" in c:
                if sorted(c["axes"]) != [0, 1, 2]:
                    raise ValueError(f"{name}: a world point on axes {c['axes']} is not mapped")
                lk.add_joint(name, "spherical", None, frame,
                             T_parent_mob=translation(c["world"]), T_child_frame=np.eye(4),
                             tree=False)
            elif c["kind"] == "point":
                if sorted(c["axes"]) != [0, 1]:
                    raise ValueError(f"{name}: a two-frame point on axes {c['axes']} is not mapped")
                W = translation(poses[frame][:3, 3])  # marker origin, world orientation
                lk.add_joint(name, self.closure, c["frame2"], frame, world_frame=W, tree=False)
            elif c["kind"] == "orientation":
                R = np.eye(4)
                R[:3, :3] = np.asarray(c["R"], dtype=float)
                lk.add_joint(name, "cartesian-3", None, frame, T_parent_mob=R,
                             T_child_frame=np.eye(4), tree=False)
            else:
                raise ValueError(f"{name}: unknown constraint kind {c['kind']!r}")

    def _mask(self):
        if self.drag["kind"] == "pose":
            return None
        m = np.zeros(6, bool)
        m[list(self.drag["axes"])] = True
        return m

    def target_pose(self, f: int) -> np.ndarray:
        """World pose given to the drag target at frame ``f`` (rotation ignored for points)."""
        row = self.path[f].tolist()
        R = quat_rows(row[3:7]) if self.drag["kind"] == "pose" else \
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        return np.array([R[0] + row[0:1], R[1] + row[1:2], R[2] + row[2:3],
                         [0.0, 0.0, 0.0, 1.0]])

    # ---- solving ---------------------------------------------------------------------------
    def solve_frame(self, f: int):
        """Set frame ``f``'s target and solve from the current (warm) state; the timed work."""
        self.lk.set_link_target(self.drag["frame"], self.target_pose(f), mask=self._drag_mask)
        return self.solver.solve()

    def get_state(self) -> np.ndarray:
        return self.lk.model().q_from_joints()

    def set_state(self, q: np.ndarray):
        self.lk.model().q_to_joints(q)

    # ---- independent check -----------------------------------------------------------------
    def urdf_poses(self) -> dict:
        """World link poses from the URDF layer's FK of the vart tree joints' values."""
        return urdf.link_poses(self.robot, self.umap.urdf_values(self.lk))

    def residuals(self, f: int, poses=None) -> tuple[float, float]:
        """(largest hard residual, drag residual) at frame ``f``, measured as the neutral
        checker of ../shared/bench/peers/kinematics.py does."""
        P = self.urdf_poses() if poses is None else poses
        hard = 0.0
        for c in self.hard:
            T = P[c["frame"]]
            if c["kind"] == "point":
                other = np.asarray(c["world"]) if "world" in c else P[c["frame2"]][:3, 3]
                e = (T[:3, 3] - other)[list(c["axes"])]
                hard = max(hard, float(np.linalg.norm(e)))
            else:
                hard = max(hard, rotation_angle(T[:3, :3] @ np.asarray(c["R"]).T))
        T = P[self.drag["frame"]]
        row = self.path[f]
        if self.drag["kind"] == "pose":
            drag = max(float(np.linalg.norm(T[:3, 3] - row[:3])),
                       rotation_angle(T[:3, :3] @ quat_matrix(row[3:7]).T))
        else:
            ax = list(self.drag["axes"])
            drag = float(np.linalg.norm((T[:3, 3] - row[:3])[ax]))
        return hard, drag

    def within_limits(self) -> bool:
        """Every limited URDF joint's value within its limits (to 1e-12)."""
        vals = self.umap.urdf_values(self.lk)
        for j in self.robot.joints:
            if j.type in ("revolute", "prismatic") and j.limit is not None and j.name in vals:
                if not j.limit.lower - 1e-12 <= vals[j.name] <= j.limit.upper + 1e-12:
                    return False
        return True


def level_summary(status) -> str:
    """``name=error`` per active level of a SolveStatus (``!`` marks an unsatisfied one)."""
    return " ".join(f"{lv.name}={lv.error:.2e}{'' if lv.satisfied else '!'}"
                    for lv in status.levels if lv.active)


def run_problem(prob: BenchProblem, frames: int | None = None, repeats: int = 1,
                on_frame=None, profiler=None) -> dict:
    """Drag ``prob`` along its path (the first ``frames`` frames) and measure each frame.

    As the peers' harness does: ``repeats`` passes over the frames, each from the initial
    state, every frame warm-started from the previous one (the solver keeps what it learnt,
    as it does in an interactive drag); a frame's time is its median over the passes. Each
    timed frame is set-target + solve; after it, untimed, the independent check (the
    figures below are the last pass's; a frame is infeasible if any pass missed).
    ``profiler`` (a cProfile.Profile) is enabled around the timed work only. Returns a dict
    of per-frame lists and the summary figures.
    """
    n = prob.n_frames if frames is None else min(frames, prob.n_frames)
    start = prob.get_state()
    times = np.zeros((repeats, n))
    worst_hard, worst_drag = np.zeros(n), np.zeros(n)
    for r in range(repeats):
        prob.set_state(start)
        rec = {k: [] for k in ("ms", "iterations", "hard", "drag", "converged", "stalled",
                               "levels", "in_limits")}
        for f in range(n):
            if profiler is not None:
                profiler.enable()
            t0 = time.perf_counter()
            status = prob.solve_frame(f)
            times[r, f] = (time.perf_counter() - t0) * 1e3
            if profiler is not None:
                profiler.disable()
            hard, drag = prob.residuals(f)
            worst_hard[f], worst_drag[f] = max(worst_hard[f], hard), max(worst_drag[f], drag)
            rec["iterations"].append(int(status.iterations))
            rec["hard"].append(hard)
            rec["drag"].append(drag)
            rec["converged"].append(bool(status.converged))
            rec["stalled"].append(bool(status.stalled))
            rec["levels"].append({lv.name: lv.error for lv in status.levels if lv.active})
            rec["in_limits"].append(prob.within_limits())
            if on_frame is not None and r == repeats - 1:
                on_frame(f, status, hard, drag, float(np.median(times[:, f])))
    rec["ms"] = np.median(times, axis=0).tolist()
    ms = np.array(rec["ms"])
    hard, drag = worst_hard, worst_drag
    bad_hard = int(np.sum(hard >= FEASIBLE_TOL))
    bad_drag = int(np.sum(drag >= FEASIBLE_TOL)) if prob.reachable else 0
    summary = dict(
        problem=prob.name, frames=n, repeats=repeats, closure=prob.closure,
        reachable=prob.reachable,
        median_ms=float(np.median(ms)), p95_ms=float(np.percentile(ms, 95)),
        total_s=float(ms.sum() / 1e3),
        iterations_median=float(np.median(rec["iterations"])),
        iterations_max=int(max(rec["iterations"])),
        max_hard=float(hard.max()), final_drag=float(drag[-1]),
        frames_hard_bad=bad_hard, frames_drag_bad=bad_drag,
        frames_out_of_limits=int(n - sum(rec["in_limits"])),
        feasible=bad_hard == 0 and bad_drag == 0,
    )
    return dict(summary=summary, per_frame=rec)
