"""Replay a baked motion on a MuJoCo model (:mod:`.model`) and measure what happens.

:func:`replay_steps` plays ``targets`` (joint name -> value per frame, rad or m, at ``times``
s) with the position servos, and nothing else: the base is free (no motion is imposed on it),
gravity is -9.81 m/s^2 along world z.

1. **Settling.** The robot is put at the first frame (``qpos0`` with the targets' first
   values and the given free bodies' first poses) and its servos hold the first frame's
   targets until every velocity stays below :data:`SETTLE_SPEED` (rad/s or m/s) over
   :data:`SETTLE_WINDOW` (or stops decaying below :data:`SETTLE_FLOOR`), at most
   :data:`SETTLE_S` simulated seconds, before time 0. A
   position servo holds a load only with an error ``tau / kp``, so a robot started at
   ``q = target`` would first sag and swing (a static pose read 21-29 % high in its first
   frames); settled, the first frame is at rest under its load. (Offsetting the joints by
   ``tau / kp`` from the gravity torque would do for a fixed base; settling also finds the
   rest of a free base on the ground, through its contacts and loops.) The settling damps
   by *kinetic damping* (dynamic relaxation): whenever the kinetic energy ``qvel^T M qvel / 2``
   passes a peak, every velocity is set to 0, and the motion starts again from rest where it
   is. A peak is where potential energy is least along the way, so each restart comes nearer
   the rest; the rest found is the model's own (no force is added, none is changed). Without
   it a robot that sways on its feet, whose servos damp only what their joints move with the
   base free (a stance ankle: its foot), would still swing after :data:`SETTLE_S` (G1
   standing still: its pelvis 5.7 mm back and forth, once in 0.83 s, and 3.1 mm four seconds
   later); with it, it rests after 0.6 s. A robot that cannot hold the first frame keeps
   gaining kinetic energy and falls as before (``fell_at`` 0).
2. **The motion.** Between frames the trajectory is :class:`.trajectory.Spline` (cubic, from
   rest at the first frame). At every physics step (the spec's ``timestep`` or less, a whole
   number per frame) each servo's target is the trajectory's value ``q_ref`` and its velocity
   is fed forward: MuJoCo's position actuator exerts ``kp (ctrl - q) - kv qdot``, and
   ``ctrl = q_ref + (kv / kp) qdot_ref`` makes it ``kp (q_ref - q) + kv (qdot_ref - qdot)``,
   a PD servo on the position and velocity errors as a joint trajectory controller runs it
   (clamped to the effort limit), with no lag proportional to the speed.
3. **Forces at every step.** The actuator force each physics step applies is kept; per
   frame, the :mod:`.replay_result` holds the peak and the mean over the steps since the
   previous frame (so a peak between frames is not lost, and the mean is the interval's
   impulse over its length). Under MuJoCo's ``implicitfast`` integrator a servo's damping
   acts at the step's *end* velocity: the force applied is ``actuator_force - kv dv`` (``dv``
   the joint's velocity change over the step), which is what is kept, unless the force is
   clamped at its limit (then MuJoCo applies the limit itself; a force the linearisation
   would take past the limit, as at an impact, is kept at the limit). (``actuator_force`` alone,
   at the step's start velocity, reads the inertial part of the load ``1 + h kv / I`` times
   too large: 40 % on a 0.5 kg m^2 pendulum with a 20 kN m/rad servo at 1 ms steps.)
4. **Inverse dynamics.** At the same steps, ``mujoco.mj_inverse`` gives the generalized force
   the baked motion needs: ``qpos`` from the trajectory, ``qvel`` and ``qacc`` from it by
   central differences at the physics step (:meth:`.trajectory.Motion.kinematics`); its
   actuated joints' entries are ``required``. It is computed with MuJoCo's constraints off:
   MuJoCo's contacts and loop equalities are soft, their force comes from their violation,
   and the baked motion violates none, so they would give nothing but an artefact. Hence the
   root (when free), every free body (a floating joint's child) and every passive joint (ball,
   planar) move along their baked paths (``bodies``; held where they start when not given)
   carried by whatever force that takes, without ground contact or loop forces: for a robot
   fixed to the world without loops or passive joints the torques are the whole truth
   (inertia, gravity, the joints' damping); for a robot that stands on the ground or closes
   loops they are what the joints need to move their own subtrees, not to carry the base
   (compare the replay's own actuator forces). URDF dry friction (``frictionloss``, a
   constraint in MuJoCo) is not in it.
5. **Per frame** also: the value reached, the root's world pose (hence its drift), the free
   bodies' world poses, the contacts (:mod:`.contacts`: which geoms touch, the ground named
   ``ground``, normal and tangential force) and their slip, and whether the robot stays up: it
   falls (``fell_at``) when its root link tilts more than :data:`FALL_TILT` from its start
   orientation or sinks below half its start height above the ground.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ..solver import se3
from .contacts import Contacts
from .model import FREE_JOINT, Built, PhysicsError, compile_spec, mujoco_module
from .replay_result import SATURATED, ReplayResult, peak
from .trajectory import Motion

__all__ = ["FALL_TILT", "SATURATED", "SETTLE_S", "SETTLE_SPEED", "ReplayResult",
           "replay_steps"]

#: Tilt of the root link from its start orientation that counts as a fall (rad).
FALL_TILT = math.radians(45.0)
#: Settled: every velocity stays below this (rad/s or m/s) for :data:`SETTLE_WINDOW` ...
SETTLE_SPEED = 1e-5
#: ... or below this, no longer decaying (at most 10 % less than over the window before):
#: the noise floor of soft constraints that servos press against (a Stewart platform's
#: loops jitter at 3e-4 m/s).
SETTLE_FLOOR = 1e-3
#: The window (s) over which velocities are watched, not only as they pass through 0.
SETTLE_WINDOW = 0.05
#: Longest settling before the first frame (simulated s).
SETTLE_S = 3.0
#: Frames whose servo targets and inverse dynamics are computed at once.
CHUNK = 24


def replay_steps(built: Built, times, targets: dict, *, bodies=None,
                 gravity=(0.0, 0.0, -9.81), settle_s: float = SETTLE_S):
    """Replay the baked motion on ``built``'s model (see the module doc): ``targets``, MuJoCo
    hinge or slide joint -> values (rad or m), one per entry of ``times`` (s; every actuated
    joint needs one, others given are used for the start and the inverse dynamics);
    ``bodies``: free joint (``FREE_JOINT`` for the root, a floating joint's name) -> its
    body's world poses (n x 4 x 4); ball joint -> its child's rotations relative to its
    reference orientation (the 4x4s' rotation parts). A generator yielding ``(frames done,
    frames)`` after each frame and returning the :class:`ReplayResult`
    (``StopIteration.value``); closing it early stops the replay (the result so far is then
    lost). Raises :class:`PhysicsError`."""
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
    values = {j: np.asarray(v, float) for j, v in targets.items()}
    poses = {j: np.asarray(T, float) for j, T in (bodies or {}).items()}
    for name, v in list(values.items()) + list(poses.items()):
        if v.shape[:1] != (n,) or not np.isfinite(v).all():
            raise PhysicsError(f"joint {name!r}: {n} finite values needed, one per frame")
    model = compile_spec(built.spec, f"robot {built.spec.modelname!r}")
    model.opt.gravity[:] = gravity
    motion = Motion(mj, model, times, values, poses)
    run = _Run(mj, model, built, joints, motion)
    target = np.column_stack([values[j] for j in joints]) if joints else np.zeros((n, 0))
    res = ReplayResult(times, joints, target, np.zeros_like(target), np.zeros_like(target),
                       np.array([built.actuated[j] for j in joints], float),
                       np.zeros((n, 4, 4)), floating=built.floating,
                       force_mean=np.zeros_like(target), required=np.zeros_like(target),
                       required_mean=np.zeros_like(target), units=run.units,
                       carried=bool(built.free or built.balls or built.planar))
    run.settle(res, float(times[0]), settle_s)
    run.record(res, 0)
    for k0 in range(1, n, CHUNK):
        ks = np.arange(k0, min(n, k0 + CHUNK))
        dt = times[ks] - times[ks - 1]
        sub = np.maximum(1, np.ceil(dt / built.spec.option.timestep - 1e-9).astype(int))
        at = np.concatenate([times[k - 1] + d * np.arange(m) / m for k, d, m in zip(ks, dt, sub)])
        ctrl, need = run.plan(at, np.repeat(dt / sub, sub))
        end = np.cumsum(sub)
        for k, a, b, h in zip(ks, end - sub, end, dt / sub):
            run.interval(res, int(k), ctrl[a:b], need[a:b], float(h))
            res.steps += int(b - a)
            run.record(res, int(k))
            res.wall_s = time.perf_counter() - t0
            yield int(k) + 1, n
    res.slip = run.contacts.slip
    return res


class _Run:
    """One replay's MuJoCo state: the simulation (``data``), the inverse dynamics (``inv``)
    and where the actuated joints live in them."""

    def __init__(self, mj, model, built: Built, joints: list, motion: Motion):
        self.mj, self.model, self.built, self.motion = mj, model, built, motion
        self.data, self.inv = mj.MjData(model), mj.MjData(model)
        jid = [model.joint(j).id for j in joints]
        self.act = np.array([model.actuator(j).id for j in joints], int)
        self.qadr = model.jnt_qposadr[jid].astype(int)
        self.dof = model.jnt_dofadr[jid].astype(int)
        self.kv = -model.actuator_biasprm[self.act, 2]  # N m s/rad or N s/m
        self.ff = self.kv / model.actuator_gainprm[self.act, 0]  # kv / kp (s)
        lim = np.where(model.actuator_forcelimited[self.act] == 1,
                       model.actuator_forcerange[self.act, 1], np.inf)
        self.limit = lim * (1 - 1e-12)  # below it: not clamped
        self.cols = [motion.cols.index(int(a)) for a in self.qadr]  # their spline columns
        self.every = np.array_equal(self.act, np.arange(model.nu))  # ctrl written whole
        slide = int(mj.mjtJoint.mjJNT_SLIDE)
        self.units = ["N" if int(model.jnt_type[j]) == slide else "N m" for j in jid]
        self.root = model.jnt_qposadr[model.joint(FREE_JOINT).id] if built.floating else None
        self.free = {body: int(model.jnt_qposadr[model.joint(name).id])
                     for name, body in built.free.items() if name != FREE_JOINT}
        self.contacts = Contacts(mj, model)
        self.start: np.ndarray | None = None  # the root's pose at the first frame

    def pose(self, adr) -> np.ndarray:
        """World pose (4x4) of the free joint at qpos address ``adr``."""
        q = self.data.qpos[adr:adr + 7]
        R = np.zeros(9)
        self.mj.mju_quat2Mat(R, q[3:])
        return se3.make_pose(R.reshape(3, 3), q[:3])

    def fallen(self) -> bool:
        """Whether the root has tilted past :data:`FALL_TILT` or sunk below half its start
        height (module doc)."""
        if self.root is None or self.start is None:
            return False
        R0, T = self.start[:3, :3], self.pose(self.root)
        tilt = math.acos(float(np.clip((np.trace(R0.T @ T[:3, :3]) - 1) / 2, -1, 1)))
        z0 = float(self.start[2, 3])
        return tilt > FALL_TILT or (z0 > 0 and float(T[2, 3]) < 0.5 * z0)

    def settle(self, res: ReplayResult, t: float, most: float) -> None:
        """Hold the first frame's targets until at rest (module doc, 1)."""
        mj, model, data = self.mj, self.model, self.data
        data.qpos[:] = self.motion.qpos([t])[0]
        data.ctrl[self.act] = data.qpos[self.qadr]
        mj.mj_forward(model, data)
        if self.root is not None:
            self.start = self.pose(self.root)
        h = model.opt.timestep
        steps, window = int(math.ceil(max(most, 0.0) / h)), int(math.ceil(SETTLE_WINDOW / h))
        done, fastest, before = 0, 0.0, math.inf
        res.settled = False
        energy = _KineticEnergy(mj, model)
        while done < steps:
            mj.mj_step(model, data)
            done += 1
            if energy.passed_peak(data):
                data.qvel[:] = 0.0  # kinetic damping (module doc, 1)
            fastest = max(fastest, float(np.abs(data.qvel).max(initial=0.0)))
            if done % 10 == 0 and self.fallen():
                res.fell_at = 0
                break
            if done % window == 0:
                if fastest < SETTLE_SPEED or SETTLE_FLOOR > fastest > 0.9 * before:
                    res.settled = True
                    break
                before, fastest = fastest, 0.0
        res.settle_s = done * h
        mj.mj_forward(model, data)  # forces and contacts of the state reached
        f = data.actuator_force[self.act]
        res.force[0] = res.force_mean[0] = f
        qpos, qvel, qacc = self.motion.kinematics([t], model.opt.timestep)
        res.required[0] = res.required_mean[0] = self.inverse(qpos, qvel, qacc)[0]

    def plan(self, at: np.ndarray, h: np.ndarray):
        """For physics steps starting at times ``at`` (of ``h`` s each): the servos' targets
        (module doc, 2) and the inverse dynamics force on their joints (4), steps x joints."""
        spline = self.motion.spline
        if len(self.act):
            assert spline is not None
            ctrl = spline(at)[:, self.cols] + self.ff * spline(at, 1)[:, self.cols]
        else:
            ctrl = np.zeros((len(at), 0))
        return ctrl, self.inverse(*self.motion.kinematics(at, h))

    def interval(self, res: ReplayResult, k: int, ctrl, need, h: float) -> None:
        """The physics steps (``h`` s each, servo targets ``ctrl``, inverse dynamics
        ``need``) from frame ``k - 1`` to frame ``k``."""
        mj, model, data = self.mj, self.model, self.data
        model.opt.timestep = h
        forces = np.zeros((len(ctrl), model.nu))
        qvel = np.zeros((len(ctrl) + 1, model.nv))
        qvel[0] = data.qvel
        act = slice(None) if self.every else self.act
        for s in range(len(ctrl)):
            data.ctrl[act] = ctrl[s]
            mj.mj_step(model, data)
            forces[s] = data.actuator_force
            qvel[s + 1] = data.qvel
            self.contacts.step(data, h)
        if not np.isfinite(data.qpos).all():
            raise PhysicsError(f"the simulation diverged at frame index {k}")
        # the force the step applied (module doc, 3): an unclamped servo's damping acts at
        # the step's end velocity under the implicit integrator, a clamped one's does not
        forces = forces[:, self.act]
        free = np.abs(forces) < self.limit
        forces += np.where(free, -self.kv * np.diff(qvel[:, self.dof], axis=0), 0.0)
        np.clip(forces, -self.limit, self.limit, out=forces)
        if len(self.act):
            res.force[k], res.force_mean[k] = peak(forces), forces.mean(axis=0)
            res.required[k], res.required_mean[k] = peak(need), need.mean(axis=0)

    def inverse(self, qpos, qvel, qacc) -> np.ndarray:
        """``mj_inverse``'s generalized force on the actuated joints at each row (module
        doc, 4), constraints off."""
        mj, model, inv = self.mj, self.model, self.inv
        out = np.zeros((len(qpos), model.nv))
        flags = model.opt.disableflags
        model.opt.disableflags = flags | int(mj.mjtDisableBit.mjDSBL_CONSTRAINT)
        try:
            for s in range(len(qpos)):
                inv.qpos[:], inv.qvel[:], inv.qacc[:] = qpos[s], qvel[s], qacc[s]
                mj.mj_inverse(model, inv)
                out[s] = inv.qfrc_inverse
        finally:
            model.opt.disableflags = flags
        return out[:, self.dof]

    def record(self, res: ReplayResult, k: int) -> None:
        """Frame ``k``'s values reached, poses, contacts and slip; the fall check."""
        data = self.data
        res.q[k] = data.qpos[self.qadr]
        res.base[k] = self.pose(self.root) if self.root is not None else np.eye(4)
        for body, adr in self.free.items():
            res.bodies.setdefault(body, np.zeros((len(res.times), 4, 4)))[k] = self.pose(adr)
        res.contacts.append(self.contacts.frame(data))
        res.frames_done = k + 1
        if res.fell_at is None and k and self.fallen():
            res.fell_at = k


class _KineticEnergy:
    """The kinetic energy ``qvel^T M qvel / 2`` of a state, step after step: whether it has
    just passed a peak (it fell after rising), for the settling's kinetic damping."""

    def __init__(self, mj, model):
        self.mj, self.model = mj, model
        self.Mv = np.zeros(model.nv)
        self.last, self.rising = 0.0, False

    def passed_peak(self, data) -> bool:
        """Whether the energy of ``data`` is less than the step before's, which was more than
        the one before it (a peak); after a peak the next rise is watched from 0."""
        self.mj.mj_mulM(self.model, data, self.Mv, data.qvel)
        now = 0.5 * float(data.qvel @ self.Mv)
        peak = self.rising and now < self.last
        self.rising = not peak and now > self.last
        self.last = 0.0 if peak else now
        return peak
