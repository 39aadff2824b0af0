"""Replay a joint trajectory on a MuJoCo model (:mod:`.model`) and measure what happens.

:func:`replay_steps` plays ``targets`` (joint name -> value per frame, rad or m, at ``times``
s) as the position actuators' targets, linearly interpolated between frames at every physics
step, and nothing else: the base is free (no motion is imposed on it), gravity is -9.81 m/s^2
along world z. It starts at rest at the first frame's values. At every frame it records (a
:class:`ReplayResult`):

- per actuated joint: the value reached (``q``), the tracking error ``target - q``, the
  actuator force (N m or N) and its limit (the URDF effort; ``saturated`` frames are those
  where the force is at the limit: the motion asks more than the joint can give);
- the root link's world pose ``T_world_root`` (``base``), hence its drift from the start;
- contact slip: per link touching the ground, how far (m, horizontally) the point of the link
  that touched the ground at one frame has moved by the next while still touching, summed
  over the frames;
- whether the robot stays up: it falls (``fell_at``, the first such frame) when its root
  link tilts more than :data:`FALL_TILT` from its start orientation or sinks below half its
  start height above the ground.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..solver.text import frame_ranges
from .model import FREE_JOINT, Built, PhysicsError, mujoco_module

#: Tilt of the root link from its start orientation that counts as a fall (rad).
FALL_TILT = math.radians(45.0)
#: A force within this fraction of its limit is at the limit.
SATURATED = 0.999


@dataclass
class ReplayResult:
    """What :func:`replay_steps` measured (see the module doc). Arrays are per frame (rows)
    and per actuated joint (columns, in ``joints`` order)."""

    times: np.ndarray
    joints: list
    target: np.ndarray
    q: np.ndarray
    force: np.ndarray
    limit: np.ndarray
    base: np.ndarray
    floating: bool = True
    slip: dict = field(default_factory=dict)
    fell_at: int | None = None
    frames_done: int = 0
    wall_s: float = 0.0
    steps: int = 0

    @property
    def error(self) -> np.ndarray:
        """Tracking error ``target - q`` (rad or m), per frame and joint."""
        return self.target - self.q

    @property
    def stays_up(self) -> bool:
        return self.fell_at is None

    @property
    def sim_s(self) -> float:
        """Simulated time (s)."""
        return float(self.times[self.frames_done - 1] - self.times[0]) if self.frames_done else 0.0

    def saturated(self) -> dict:
        """Joint -> frame indices where its force is at its effort limit."""
        n = self.frames_done
        lim = np.where(self.limit > 0, self.limit, np.inf)
        at = np.abs(self.force[:n]) >= SATURATED * lim
        return {j: np.flatnonzero(at[:, i]).tolist() for i, j in enumerate(self.joints)
                if at[:, i].any()}

    def drift(self) -> float:
        """Largest horizontal distance (m) of the root link from where it started."""
        n = self.frames_done
        d = self.base[:n, :2, 3] - self.base[0, :2, 3]
        return float(np.linalg.norm(d, axis=1).max()) if n else 0.0

    def worst(self) -> list[tuple[str, float, float, int]]:
        """Per joint (name, largest |error|, largest |force| / limit (nan without a limit),
        frame index of the largest force ratio), worst force ratio first."""
        n = self.frames_done
        out = []
        for i, j in enumerate(self.joints):
            err = float(np.abs(self.error[:n, i]).max()) if n else 0.0
            f = np.abs(self.force[:n, i])
            ratio = f / self.limit[i] if self.limit[i] > 0 else np.full(n, np.nan)
            k = int(np.nanargmax(ratio)) if n and np.isfinite(ratio).any() else 0
            out.append((j, err, float(ratio[k]) if n else float("nan"), k))
        return sorted(out, key=lambda r: -(r[2] if np.isfinite(r[2]) else -1.0))

    def summary(self, first_frame: int = 0, most: int = 3) -> str:
        """One paragraph: speed, whether it stays up, drift, slip, joints at their limit."""
        n = self.frames_done
        speed = self.sim_s / self.wall_s if self.wall_s > 0 else float("inf")
        head = (f"Replayed {n} frames ({self.sim_s:.2f} s simulated, {speed:.0f}x real time)")
        parts = []
        if self.floating:
            parts.append("stays up" if self.fell_at is None else
                         f"FALLS at frame {first_frame + self.fell_at}")
            parts.append(f"base drift {self.drift() * 1e3:.1f} mm")
            if self.slip:
                link, s = max(self.slip.items(), key=lambda kv: kv[1])
                parts.append(f"largest contact slip {s * 1e3:.1f} mm ({link})")
        sat = self.saturated()
        if sat:
            items = [f"{j} (frames {frame_ranges([first_frame + k for k in ks])})"
                     for j, ks in list(sat.items())[:most]]
            more = f"; and {len(sat) - most} more" if len(sat) > most else ""
            parts.append(f"{len(sat)} joints at their effort limit: " + "; ".join(items) + more)
        err = max((r[1] for r in self.worst()), default=0.0)
        parts.append(f"largest tracking error {err:.3g}")
        return head + ". " + ", ".join(parts)


def replay_steps(built: Built, times, targets: dict, *, gravity=(0.0, 0.0, -9.81)):
    """Replay ``targets`` (joint -> values, one per entry of ``times``, s) on ``built``'s
    model (see the module doc): a generator yielding ``(frames done, frames)`` after each
    frame and returning the :class:`ReplayResult` (``StopIteration.value``); closing it early
    stops the replay (the result so far is then lost). Raises :class:`PhysicsError`."""
    mj = mujoco_module()
    t0 = time.perf_counter()
    times = np.asarray(times, float)
    n = len(times)
    if n < 2 or not np.all(np.diff(times) > 0):
        raise PhysicsError("a replay needs two or more frames at increasing times")
    joints = list(built.actuated)
    missing = [j for j in joints if j not in targets]
    if missing:
        raise PhysicsError(f"no trajectory for actuated joint(s) {', '.join(missing)}")
    target = np.column_stack([np.asarray(targets[j], float) for j in joints]) \
        if joints else np.zeros((n, 0))
    if target.shape[0] != n or not np.isfinite(target).all():
        raise PhysicsError(f"every joint needs {n} finite values, one per frame")
    try:
        model = built.spec.compile()
    except ValueError as e:
        raise PhysicsError(f"MuJoCo cannot compile the model: {e}") from None
    model.opt.gravity[:] = gravity
    data = mj.MjData(model)
    act = np.array([model.actuator(j).id for j in joints], int)
    qadr = np.array([model.jnt_qposadr[model.joint(j).id] for j in joints], int)
    data.qpos[qadr] = target[0]
    data.ctrl[act] = target[0]
    mj.mj_forward(model, data)
    root = _root_body(mj, model, built)
    res = ReplayResult(times, joints, target, np.zeros_like(target), np.zeros_like(target),
                       np.array([built.actuated[j] for j in joints], float),
                       np.zeros((n, 4, 4)), floating=built.floating)
    z0 = float(data.xpos[root][2])
    contacts_before = _record(mj, model, data, res, 0, root, act, qadr, None)
    for k in range(1, n):
        dt = times[k] - times[k - 1]
        sub = max(1, int(math.ceil(dt / built.spec.option.timestep - 1e-9)))
        model.opt.timestep = dt / sub
        for s in range(1, sub + 1):
            data.ctrl[act] = target[k - 1] + (target[k] - target[k - 1]) * (s / sub)
            mj.mj_step(model, data)
        res.steps += sub
        if not np.isfinite(data.qpos).all():
            raise PhysicsError(f"the simulation diverged at frame index {k}")
        contacts_before = _record(mj, model, data, res, k, root, act, qadr, contacts_before)
        if res.fell_at is None and built.floating:
            R0, R = res.base[0, :3, :3], res.base[k, :3, :3]
            tilt = math.acos(float(np.clip((np.trace(R0.T @ R) - 1) / 2, -1, 1)))
            if tilt > FALL_TILT or (z0 > 0 and res.base[k, 2, 3] < 0.5 * z0):
                res.fell_at = k
        res.wall_s = time.perf_counter() - t0
        yield k + 1, n
    return res


def _root_body(mj, model, built: Built) -> int:
    if built.floating:
        return int(model.jnt_bodyid[model.joint(FREE_JOINT).id])
    return 0


def _record(mj, model, data, res: ReplayResult, k, root, act, qadr, before):
    """Frame ``k``'s joint values, forces and base pose, and the slip since the previous
    frame's contacts. ``before`` and the return value: body id -> (its contact point in the
    body frame, that point in the world) at the previous frame and at this one."""
    res.q[k] = data.qpos[qadr]
    res.force[k] = data.actuator_force[act]
    T = np.eye(4)
    T[:3, :3] = data.xmat[root].reshape(3, 3)
    T[:3, 3] = data.xpos[root]
    res.base[k] = T
    res.frames_done = k + 1
    now: dict = {}
    for i in range(data.ncon):
        c = data.contact[i]
        b1, b2 = int(model.geom_bodyid[c.geom1]), int(model.geom_bodyid[c.geom2])
        body = b2 if b1 == 0 else b1 if b2 == 0 else None
        if body is None or body in now:
            continue
        p_world = np.array(c.pos, float)
        R, p = data.xmat[body].reshape(3, 3), data.xpos[body]
        now[body] = (R.T @ (p_world - p), p_world)
    for body, (p_local, p_world) in (before or {}).items():
        if body in now:
            R, p = data.xmat[body].reshape(3, 3), data.xpos[body]
            d = float(np.linalg.norm((R @ p_local + p - p_world)[:2]))
            name = model.body(body).name
            res.slip[name] = res.slip.get(name, 0.0) + d
    return now
