"""The baked motion between its frames, as the physics replay (:mod:`.replay`) reads it.

A bake gives joint values at frame times only. Between frames the replay follows
:class:`Spline`, a cubic spline through them (C2: value, velocity and acceleration continuous,
so an inverse dynamics torque is a continuous curve and its peaks between frames are
meaningful), which starts at rest (velocity 0 at the first frame: the replay starts from the
robot at rest there) and ends free (acceleration 0 at the last frame: a natural spline's end).

:class:`Motion` is the whole MuJoCo configuration (``qpos``) along the baked motion: each
hinge or slide joint given a trajectory follows its spline; each free joint given poses (world
4x4 per frame: the root link's baked path, a floating joint's child) follows a spline of its
position and of its unit quaternion (signs made continuous, normalised after interpolation),
each ball joint given rotations (its child's, relative to its reference orientation: the
rotation part of a 4x4) a spline of its quaternion; every other joint stays at the model's
``qpos0``. :meth:`Motion.kinematics` gives
``qpos``, ``qvel`` and ``qacc`` at given times by central finite differences at the physics
step ``h`` (MuJoCo's velocity conventions: a free joint's linear velocity in the world frame,
its angular velocity in the body frame).
"""
from __future__ import annotations

import numpy as np

from ..solver import se3
from .model import PhysicsError


class Spline:
    """Cubic spline through ``values`` (n x m, one column per curve) at increasing ``times``
    (n >= 2, s), at rest at the first time and natural at the last (module doc)."""

    def __init__(self, times, values):
        t = np.asarray(times, float)
        y = np.asarray(values, float).reshape(len(t), -1)
        self.t, self.y, self.h = t, y, np.diff(t)
        self.M = _moments(t, y)  # second derivatives at the knots

    def __call__(self, at, derivative: int = 0) -> np.ndarray:
        """Values (``derivative`` 0), velocities (1) or accelerations (2) at times ``at``
        (k,) -> (k x m); outside the times, the end pieces extended."""
        at = np.asarray(at, float)
        i = np.clip(np.searchsorted(self.t, at, side="right") - 1, 0, len(self.t) - 2)
        h = self.h[i][:, None]
        a = (self.t[i + 1] - at)[:, None]
        b = (at - self.t[i])[:, None]
        M0, M1, y0, y1 = self.M[i], self.M[i + 1], self.y[i], self.y[i + 1]
        c0, c1 = y0 / h - M0 * h / 6, y1 / h - M1 * h / 6
        if derivative == 0:
            return (M0 * a ** 3 + M1 * b ** 3) / (6 * h) + c0 * a + c1 * b
        if derivative == 1:
            return (M1 * b ** 2 - M0 * a ** 2) / (2 * h) + c1 - c0
        return (M0 * a + M1 * b) / h


def _moments(t, y) -> np.ndarray:
    """The spline's second derivatives at the knots: the tridiagonal system of a cubic
    spline with ``S'(t0) = 0`` and ``S''(t_end) = 0``, solved by the Thomas algorithm."""
    n = len(t)
    h = np.diff(t)
    slope = np.diff(y, axis=0) / h[:, None]
    lower, diag, upper = np.zeros(n), np.ones(n), np.zeros(n)
    rhs = np.zeros_like(y)
    diag[0], upper[0], rhs[0] = 2 * h[0], h[0], 6 * slope[0]  # S'(t0) = 0
    for i in range(1, n - 1):
        lower[i], diag[i], upper[i] = h[i - 1], 2 * (h[i - 1] + h[i]), h[i]
        rhs[i] = 6 * (slope[i] - slope[i - 1])
    # the last row stays M = 0 (natural end)
    for i in range(1, n):
        w = lower[i] / diag[i - 1]
        diag[i] -= w * upper[i - 1]
        rhs[i] -= w * rhs[i - 1]
    M = np.zeros_like(y)
    M[-1] = rhs[-1] / diag[-1]
    for i in range(n - 2, -1, -1):
        M[i] = (rhs[i] - upper[i] * M[i + 1]) / diag[i]
    return M


def _quat_mul(a, b) -> np.ndarray:
    """Hamilton products of quaternions ``(w, x, y, z)``, row by row."""
    w1, v1, w2, v2 = a[:, :1], a[:, 1:], b[:, :1], b[:, 1:]
    return np.hstack([w1 * w2 - np.sum(v1 * v2, axis=1, keepdims=True),
                      w1 * v2 + w2 * v1 + np.cross(v1, v2)])


def _quat_log(q) -> np.ndarray:
    """Rotation vectors of unit quaternions (rows), the shorter way round."""
    q = np.where(q[:, :1] < 0, -q, q)
    s = np.linalg.norm(q[:, 1:], axis=1)
    angle = 2 * np.arctan2(s, q[:, 0])
    scale = np.where(s > 1e-12, angle / np.maximum(s, 1e-300), 2.0 / np.maximum(q[:, 0], 1e-300))
    return q[:, 1:] * scale[:, None]


class Motion:
    """The model's configuration along the baked motion (module doc). ``joints``: MuJoCo
    hinge or slide joint -> its values at ``times``; ``free``: free joint -> its body's world
    poses at ``times`` (n x 4 x 4), ball joint -> its rotations (the 4x4s' rotation parts).
    Raises :class:`.model.PhysicsError` for a name the model has not, or a joint of another
    type."""

    def __init__(self, mj, model, times, joints: dict, free: dict):
        self.nq, self.nv = model.nq, model.nv
        self.qpos0 = model.qpos0.copy()
        FREE, BALL, HINGE, SLIDE = (int(mj.mjtJoint.mjJNT_FREE), int(mj.mjtJoint.mjJNT_BALL),
                                    int(mj.mjtJoint.mjJNT_HINGE), int(mj.mjtJoint.mjJNT_SLIDE))
        self.cols, values = [], []
        for name, v in joints.items():
            j = _joint_id(mj, model, name, (HINGE, SLIDE), "hinge or slide")
            self.cols.append(int(model.jnt_qposadr[j]))
            values.append(np.asarray(v, float))
        self.free = []  # (qpos address, position too?) per free or ball joint given
        for name, T in free.items():
            j = _joint_id(mj, model, name, (FREE, BALL), "free or ball")
            T = np.asarray(T, float)
            q = se3.rot_to_quat(T[:, :3, :3])
            flip = np.cumprod(np.where(np.sum(q[1:] * q[:-1], axis=1) < 0, -1.0, 1.0))
            q[1:] *= flip[:, None]
            moves = int(model.jnt_type[j]) == FREE
            self.free.append((int(model.jnt_qposadr[j]), moves))
            values.append(np.hstack([T[:, :3, 3], q]) if moves else q)
        self.spline = Spline(times, np.column_stack(values)) if values else None
        # differences: scalar qpos entries -> dofs; quaternions (free and ball) -> 3 dofs
        self.scalar_q, self.scalar_v, self.quat_q, self.quat_v = [], [], [], []
        for j in range(model.njnt):
            qa, va = int(model.jnt_qposadr[j]), int(model.jnt_dofadr[j])
            kind = int(model.jnt_type[j])
            if kind == FREE:
                self.scalar_q += [qa, qa + 1, qa + 2]
                self.scalar_v += [va, va + 1, va + 2]
                qa, va = qa + 3, va + 3
            if kind in (FREE, BALL):
                self.quat_q.append(qa)
                self.quat_v.append(va)
            else:
                self.scalar_q.append(qa)
                self.scalar_v.append(va)

    def qpos(self, at) -> np.ndarray:
        """``qpos`` (k x nq) at times ``at`` (k,)."""
        at = np.atleast_1d(np.asarray(at, float))
        out = np.tile(self.qpos0, (len(at), 1))
        if self.spline is not None:
            s = self.spline(at)
            col = len(self.cols)
            out[:, self.cols] = s[:, :col]
            for a, moves in self.free:
                if moves:
                    out[:, a:a + 3] = s[:, col:col + 3]
                    a, col = a + 3, col + 3
                quat = s[:, col:col + 4]
                out[:, a:a + 4] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
                col += 4
        return out

    def velocity(self, qa, qb, dt) -> np.ndarray:
        """The velocity (k x nv) that moves configurations ``qa`` to ``qb`` (rows) in ``dt``
        s (one, or one per row): as MuJoCo's ``mj_differentiatePos``, for many rows at once."""
        dt = np.broadcast_to(np.asarray(dt, float), (len(qa),))[:, None]
        v = np.zeros((len(qa), self.nv))
        v[:, self.scalar_v] = (qb[:, self.scalar_q] - qa[:, self.scalar_q]) / dt
        for a, d in zip(self.quat_q, self.quat_v):
            A, B = qa[:, a:a + 4].copy(), qb[:, a:a + 4]
            A[:, 1:] *= -1  # conjugate: the rotation from A to B in A's (the body's) frame
            v[:, d:d + 3] = _quat_log(_quat_mul(A, B)) / dt
        return v

    def kinematics(self, at, h):
        """``(qpos, qvel, qacc)`` at times ``at`` (k,), velocities and accelerations by
        central differences at step ``h`` s (one, or one per time; module doc)."""
        at = np.asarray(at, float)
        h = np.broadcast_to(np.asarray(h, float), at.shape)
        q = self.qpos(np.concatenate([at - h, at, at + h]))
        k = len(at)
        before, now, after = q[:k], q[k:2 * k], q[2 * k:]
        v0, v1 = self.velocity(before, now, h), self.velocity(now, after, h)
        return now, 0.5 * (v0 + v1), (v1 - v0) / h[:, None]


def _joint_id(mj, model, name: str, kinds, what: str) -> int:
    j = mj.mj_name2id(model, mj.mjtObj.mjOBJ_JOINT, name)
    if j < 0:
        raise PhysicsError(f"no joint {name!r} in the model to give a trajectory to")
    if int(model.jnt_type[j]) not in kinds:
        raise PhysicsError(f"joint {name!r} is not a {what} joint: it takes no such trajectory")
    return int(j)
