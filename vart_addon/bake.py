"""Key Pose and Bake: from what the user animated to keyframes of every link and joint value.

**Key Pose** (:func:`key_pose`) keys every link's transform (location and the rotation channel
of its rotation mode) and every joint's q at a frame, through Blender's own keying (user
preferences apply; new curves join the groups "Object Transforms" and "Vart").

**Bake** (:func:`bake`) over a frame range:

1. *Inputs* are the F-curves on link objects that are not in the :data:`BAKE_GROUP` channel
   group (curves there are the output of an earlier bake):

   - a tree joint's q (any DoF): a target on that joint at the animated value, those DoF
     only (it replaces the joint's stored target for the bake). A closure joint's q is
     output only (as stored, :mod:`.bridge.schema`): animate its target instead (Operate
     Joint sets targets);
   - a link's location and/or the rotation channel of its rotation mode: a target on the
     link's root joint at its animated world pose (position and/or rotation);
   - any other ``["vart"]`` property (targets, locks, postures, springs...) or a driver on a
     link: the bridge re-reads the scene every frame (``SceneBridge.sync``) so the stored
     goals follow the animation.

2. Each frame: ``scene.frame_set``, the inputs become goals, the solver runs warm-started
   from the previous frame's solution, and every link's pose and every joint's q are
   collected (nothing is written to the scene while it runs: a failure keys nothing).
3. Keys are written in bulk per F-curve (:func:`.bridge.animation.write_keys`: one
   ``keyframe_points.add`` + ``foreach_set``, keys of the range replaced, linear
   interpolation, key type GENERATED): every link's location and rotation channel, every
   joint's q, in curves of the BAKE_GROUP. An input curve whose goal was met on every frame
   is left as the user made it (it already says what the bake found, and stays editable
   for the next bake); one whose goal was not met somewhere is overwritten in the range.

Afterwards the F-curves are the motion: playback needs no solver. Frames where a goal was
unmet are in :attr:`BakeResult.unmet` (frame -> goal names), summarized by
:meth:`BakeResult.summary`, and per level by :meth:`BakeResult.level_status` (what the
operator stores in the scene's status).

Blender-parented links are keyed in their parent's space (a link under another link, with
plain objects in between, uses the baked pose of that link; under plain objects only, the
parent's evaluated matrix at each frame). Delta transforms are respected.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import bpy
import numpy as np
from mathutils import Euler, Matrix, Quaternion

from .bridge import BridgeError, SceneBridge
from .bridge import animation as A
from .bridge import build as B
from .bridge import poses as P
from .bridge.scene import closure_qs
from .bridge import schema as S
from .solver import LevelStatus, Settings, SolveStatus, VartError
from .solver import goals as G

BAKE_GROUP = A.BAKE_GROUP
TRANSFORM_GROUP = "Object Transforms"
JOINT_GROUP = "Vart"
_ROTATION_PATHS = ("rotation_euler", "rotation_quaternion", "rotation_axis_angle")


class BakeError(BridgeError):
    """A bake that cannot run (empty range, nothing animated, a failed solve...): nothing
    was keyed."""


def rotation_path(ob) -> str:
    """The rotation channel that drives ``ob`` in its rotation mode."""
    return {"QUATERNION": "rotation_quaternion",
            "AXIS_ANGLE": "rotation_axis_angle"}.get(ob.rotation_mode, "rotation_euler")


def _link_objects(scene) -> dict:
    return {ob.name: ob for ob in scene.objects if S.is_link(ob)}


# ---- key pose -----------------------------------------------------------------------------------
@dataclass
class KeyResult:
    """What :func:`key_pose` keyed: the frame, link and joint names, channels keyed."""

    frame: float
    links: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    channels: int = 0


def joint_data_path(joint: str, key: str) -> str:
    """The RNA path of a stored joint field (``q``, ``target_q``...) on its child object."""
    q = S.q_data_path(joint)
    return q[:-len('["q"]')] + f'["{key}"]'


def key_pose(scene=None, frame=None, *, links=None, joints=None, targets=(),
             options=()) -> KeyResult:
    """Key the transform (location, rotation) of ``links`` and the q of ``joints`` (default:
    every link and every joint with a value) at ``frame`` (default: the current frame), as
    they are now, and the ``target_q`` of the joints in ``targets``. ``options``: Blender's
    keying flags (``{'INSERTKEY_REPLACE'}``: only replace existing keys, as auto-keying's
    Replace mode). Validates the scene first (SchemaError; nothing keyed)."""
    scene = scene or bpy.context.scene
    obs = _link_objects(scene)
    data = S.read_scene(obs.values())
    frame = float(scene.frame_current if frame is None else frame)
    link_names = sorted(data.links) if links is None else list(links)
    joint_names = [n for n, j in data.joints.items() if j.dof] if joints is None \
        else list(joints)
    for n in link_names:
        if n not in obs:
            raise BakeError(f"{n!r} is not a link of this scene")
    for n in list(joint_names) + list(targets):
        if n not in data.joints:
            raise BakeError(f"no joint named {n!r} in this scene")
    res = KeyResult(frame)
    for n in link_names:
        ob = obs[n]
        done = False
        for path in ("location", rotation_path(ob)):
            if A.key_channels(ob, path, frame, group=TRANSFORM_GROUP, options=options):
                res.channels += 1
                done = True
        if done:
            res.links.append(n)
    for n in joint_names:
        j = data.joints[n]
        if j.dof and A.key_channels(obs[j.child], S.q_data_path(n), frame, group=JOINT_GROUP,
                                    options=options):
            res.channels += 1
            res.joints.append(n)
    for n in targets:
        j = data.joints[n]
        if A.key_channels(obs[j.child], joint_data_path(n, "target_q"), frame,
                          group=JOINT_GROUP, options=options):
            res.channels += 1
    return res


# ---- inputs -----------------------------------------------------------------------------------
@dataclass
class Inputs:
    """What the user animated (see the module doc)."""

    joints: dict = field(default_factory=dict)   # joint -> (child object name, DoF mask)
    links: dict = field(default_factory=dict)    # link -> mask (x, y, z, wx, wy, wz)
    curves: dict = field(default_factory=dict)   # (object, data_path, index) -> goal name
    sync: bool = False                           # other vart properties or drivers animated
    described: list = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.joints or self.links or self.sync)


def find_inputs(obs: dict, data, linkage) -> Inputs:
    """Scan the link objects' F-curves (and drivers) for what the user animated.

    A link's transform curves are an input only if its pose is not already fixed by animated
    joint values: a link whose every tree joint down to the ground (in the bridge's spanning
    tree) has all its DoF animated is *joint-driven*, and its transform curves (keyed with
    it by Key Pose or auto-keying) are output like any other. Interpolating such a link's
    Euler angles would fight the joints (and near gimbal lock, swing wildly)."""
    inp = Inputs()
    qpaths = {}
    for jn, j in data.joints.items():
        qpaths.setdefault(j.child, {})[S.q_data_path(jn)] = jn
    link_curves = []
    for n, ob in sorted(obs.items()):
        rot = rotation_path(ob)
        for (path, idx), fc in sorted(A.fcurve_map(ob).items()):
            if A.group_of(fc) == BAKE_GROUP or fc.mute or not len(fc.keyframe_points):
                continue
            if path == "location" or path == rot:
                link_curves.append((n, path, idx))
            elif path in qpaths.get(n, {}):
                jn = qpaths[n][path]
                dof = data.joints[jn].dof
                if idx >= dof or not linkage.joints[jn].is_tree:
                    continue  # a closure's q is output only: it is driven by its target
                _, mask = inp.joints.setdefault(jn, (n, np.zeros(dof, bool)))
                mask[idx] = True
                inp.curves[(n, path, idx)] = f"target of {linkage.joints[jn].label()}"
            elif path.startswith(f'["{S.KEY}"]'):
                inp.sync = True
        ad = ob.animation_data
        if ad is not None and any(d.data_path.startswith(f'["{S.KEY}"]') and not d.mute
                                  for d in ad.drivers):
            inp.sync = True
    for n, path, idx in link_curves:
        if joint_driven(linkage, n, inp.joints):
            continue
        mask = inp.links.setdefault(n, np.zeros(6, bool))
        if path == "location":
            mask[:3] = True
        else:
            mask[3:] = True
        inp.curves[(n, path, idx)] = f"target of {linkage.roots[n].label()}"
    inp.described = ([f"q of joint {jn!r}" for jn in inp.joints]
                     + [f"transform of link {ln!r}" for ln in inp.links]
                     + (["other vart properties"] if inp.sync else []))
    return inp


def joint_driven(linkage, link: str, animated: dict) -> bool:
    """True if every tree joint with DoF from ``link`` down to the ground has all its DoF
    in ``animated`` (joint -> (object, DoF mask)); False if the link (or one below it)
    hangs from its root joint (its pose is then its own)."""
    while link is not None:
        e = linkage.tree_edge[link]
        if e.is_root:
            return False
        if e.dof and (e.name not in animated or not animated[e.name][1].all()):
            return False
        link = linkage.tree_parent(link)
    return True


# ---- the result -------------------------------------------------------------------------------
def frame_ranges(frames) -> str:
    """``[1, 2, 3, 7]`` -> ``"1-3, 7"``."""
    frames = sorted(set(int(f) for f in frames))
    out, i = [], 0
    while i < len(frames):
        j = i
        while j + 1 < len(frames) and frames[j + 1] == frames[j] + 1:
            j += 1
        out.append(str(frames[i]) if i == j else f"{frames[i]}-{frames[j]}")
        i = j + 1
    return ", ".join(out)


#: The level of a goal, from the first word of the solver's goal names.
_LEVEL_OF = {"invariant": G.INVARIANT, "mimic": G.INVARIANT, "limit": G.LIMIT, "lock": G.LOCK,
             "target": G.TARGET, "posture": G.POSTURE}


@dataclass
class BakeResult:
    """What :func:`bake` did. ``unmet``: frame -> names of goals not met there (invariant,
    limit, lock and target levels); ``stuck``: frame -> joints no DoF could move;
    ``statuses``: the SolveStatus of every frame; ``kept``: input curves left as they were
    (``"object: data_path[index]"``); ``input_error``: per input goal, its largest error
    over the frames; ``curves`` / ``keys``: F-curves and keys written."""

    frame_start: int
    frame_end: int
    inputs: list = field(default_factory=list)
    unmet: dict = field(default_factory=dict)
    stuck: dict = field(default_factory=dict)
    statuses: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    input_error: dict = field(default_factory=dict)
    links: int = 0
    joints: int = 0
    curves: int = 0
    keys: int = 0
    solve_ms: float = 0.0
    total_ms: float = 0.0

    @property
    def frames(self) -> int:
        return self.frame_end - self.frame_start + 1

    @property
    def fps(self) -> float:
        """Frames baked per second, everything included."""
        return self.frames / (self.total_ms / 1e3) if self.total_ms > 0 else float("inf")

    def goals_unmet(self) -> dict:
        """Goal name -> frames where it was unmet (first seen first)."""
        out: dict = {}
        for f in sorted(self.unmet):
            for g in self.unmet[f]:
                out.setdefault(g, []).append(f)
        return out

    def summary(self, most: int = 3) -> str:
        head = (f"Baked frames {self.frame_start}-{self.frame_end} ({self.frames} frames, "
                f"{self.fps:.0f}/s): {self.links} links and {self.joints} joint values, "
                f"{self.keys} keys in {self.curves} F-curves")
        goals = self.goals_unmet()
        if not goals:
            return head
        parts = [f"{g} (frames {frame_ranges(fs)})" for g, fs in list(goals.items())[:most]]
        more = len(goals) - most
        tail = f"; and {more} more goals (see the Vart status)" if more > 0 else ""
        return (f"{head}. Goals unmet on {len(self.unmet)} of {self.frames} frames: "
                + "; ".join(parts) + tail)

    def level_status(self) -> SolveStatus:
        """The whole bake as one SolveStatus: per level, whether it was active, its largest
        error over the frames, and its unmet goals as ``"goal (frames a-b, c)"``."""
        levels = [LevelStatus(n) for n in G.LEVEL_NAMES]
        out = SolveStatus(levels=levels, converged=True)
        per_goal: list[dict] = [{} for _ in levels]
        for k, st in enumerate(self.statuses):
            f = self.frame_start + k
            out.iterations += st.iterations
            out.ms += st.ms
            out.converged &= st.converged
            out.stalled |= st.stalled
            out.out_of_budget |= st.out_of_budget
            for i, lv in enumerate(st.levels):
                agg = levels[i]
                agg.active |= lv.active
                agg.error = max(agg.error, lv.error)
                agg.max_goal_error = max(agg.max_goal_error, lv.max_goal_error)
                agg.iterations = max(agg.iterations, lv.iterations)
                if i == G.POTENTIAL or i == G.POSTURE:
                    agg.satisfied &= lv.satisfied
            for g in self.unmet.get(f, ()):
                i = _LEVEL_OF.get(g.split(" ", 1)[0], G.TARGET)
                per_goal[i].setdefault(g, []).append(f)
        for i, goals in enumerate(per_goal):
            levels[i].unmet = [f"{g} (frames {frame_ranges(fs)})" for g, fs in goals.items()]
            if i not in (G.POTENTIAL, G.POSTURE):
                levels[i].satisfied = not goals
        out.stuck = sorted({n for names in self.stuck.values() for n in names})
        return out


# ---- from world poses to transform channels --------------------------------------------------
def _rows(M) -> np.ndarray:
    return np.array(M, dtype=float)


class _Keyer:
    """Per link object: how to turn its world pose into its own transform channels."""

    def __init__(self, ob, obs):
        self.ob = ob
        self.scale = P.rigid_and_scale(P.observe(ob), ob.name)[1]
        self.dloc = np.array(ob.delta_location, float)
        # Blender: matrix_basis rotation = delta @ rotation; the delta is the quaternion in
        # quaternion mode, none in axis-angle mode (not exposed), else the delta Euler angles
        # in the object's rotation order
        if ob.rotation_mode == "QUATERNION":
            Rd = _rows(Quaternion(ob.delta_rotation_quaternion).normalized().to_matrix())
        elif ob.rotation_mode == "AXIS_ANGLE":
            Rd = np.eye(3)
        else:
            Rd = _rows(Euler(ob.delta_rotation_euler, ob.rotation_mode).to_matrix())
        self.drot = None if np.array_equal(Rd, np.eye(3)) else Rd
        # parent chain up to the nearest link ancestor (None: no link above)
        self.chain = []
        a = ob.parent
        while a is not None and a.name not in obs:
            self.chain.append(a)
            a = a.parent
        self.link_parent = None if a is None else a.name
        if self.link_parent is not None:
            for c in [ob] + self.chain:
                if c.parent_type != "OBJECT":
                    raise BakeError(f"link {ob.name!r} hangs from link {a.name!r} through a "
                                    f"{c.parent_type.lower()} parent ({c.name!r}); bake "
                                    "supports plain object parenting between links")
        self.mpi = [_rows(c.matrix_parent_inverse) for c in [ob] + self.chain]
        self.frames_E = []      # no link above: the parent part of matrix_world per frame
        self.frames_B = []      # link above: matrix_basis of the plain objects between

    def record(self):
        """At an evaluated frame: what the parent side of the object is."""
        ob = self.ob
        if ob.parent is None:
            return
        if self.link_parent is None:
            self.frames_E.append(_rows(ob.matrix_world) @ np.linalg.inv(_rows(ob.matrix_basis)))
        else:
            self.frames_B.append([_rows(c.matrix_basis) for c in self.chain])

    def world(self, T: np.ndarray) -> np.ndarray:
        """World matrices (n, 4, 4) of the object for rigid poses T (n, 4, 4)."""
        M = T.copy()
        M[:, :3, :3] *= self.scale
        return M

    def basis(self, M: np.ndarray, worlds: dict) -> np.ndarray:
        """matrix_basis per frame for world matrices M (n, 4, 4); ``worlds`` holds the world
        matrices of the other links (by name) for parents."""
        ob = self.ob
        if ob.parent is None:
            return M
        if self.link_parent is None:
            E = np.stack(self.frames_E)
        else:
            E = worlds[self.link_parent].copy()
            for i in range(len(self.chain) - 1, -1, -1):
                c_mpi = self.mpi[i + 1]
                B = np.stack([fb[i] for fb in self.frames_B])
                E = E @ c_mpi @ B
            E = E @ self.mpi[0]
        return np.linalg.solve(E, M)

    def channels(self, basis: np.ndarray):
        """``(location (n, 3), rotation (n, 3 or 4))`` in the object's rotation mode,
        continuous from the object's current rotation."""
        ob = self.ob
        loc = basis[:, :3, 3] - self.dloc
        A3 = basis[:, :3, :3]
        R = A3 / np.linalg.norm(A3, axis=1, keepdims=True)
        if self.drot is not None:
            R = np.einsum("ji,njk->nik", self.drot, R)
        mode = ob.rotation_mode
        out = []
        if mode == "QUATERNION" or mode == "AXIS_ANGLE":
            prev = Quaternion(ob.rotation_quaternion) if mode == "QUATERNION" else \
                Quaternion(ob.rotation_axis_angle[1:], ob.rotation_axis_angle[0])
            for Rk in R:
                q = Matrix(Rk.tolist()).to_quaternion()
                if q.dot(prev) < 0:
                    q.negate()
                prev = q
                if mode == "QUATERNION":
                    out.append(tuple(q))
                else:
                    axis, angle = q.to_axis_angle()
                    out.append((angle, *axis))
        else:
            prev = Euler(ob.rotation_euler, mode)
            for Rk in R:
                e = Matrix(Rk.tolist()).to_euler(mode, prev)
                prev = e
                out.append(tuple(e))
        return loc, np.array(out, float)


# ---- bake -------------------------------------------------------------------------------------
def _set_gravity(lk, gravity):
    g = None if gravity is None else np.asarray(gravity, float)
    if (g is None) != (lk.gravity is None) or (g is not None
                                                and not np.array_equal(g, lk.gravity)):
        lk.set_gravity(g)


def _release(bridge, lk, data, inputs, checkpoint):
    """Take the bake's own goals off the linkage (stored goals as the data says; the link
    targets the bridge holds are re-applied by the rollback) and put the bridge's cache back
    to where it was: the next sync reconciles it with the scene (now keyed) without
    rebuilding the linkage."""
    try:
        if bridge.linkage is lk:
            if inputs.sync:  # goals followed the animation: patch them back to the data's
                B.patch_goals(lk, bridge.data, data)
            for jn in inputs.joints:
                B.apply_joint_goals(lk, data.joints[jn])
            for ln in inputs.links:
                lk.clear_link_target(ln)
        bridge.rollback(checkpoint)
    except Exception:  # never leave a half-restored cache behind
        bridge.invalidate()


def _input_errors(lk, inputs, poses, targets) -> dict:
    """Goal name -> how far the solution is from each input's target (largest DoF error, m
    or rad; for a link the larger of its position error and rotation angle, masked)."""
    out = {}
    for jn, (_, mask) in inputs.joints.items():
        j = lk.joints[jn]
        out[f"target of {j.label()}"] = float(np.abs(j.q - targets[jn])[mask].max())
    for ln, mask in inputs.links.items():
        T, Tt = poses[ln], targets[ln]
        e = 0.0
        if mask[:3].any():
            e = float(np.linalg.norm((T[:3, 3] - Tt[:3, 3])[mask[:3]]))
        if mask[3:].any():
            c = (np.trace(T[:3, :3] @ Tt[:3, :3].T) - 1.0) / 2.0
            e = max(e, float(np.arccos(np.clip(c, -1.0, 1.0))))
        out[f"target of {lk.roots[ln].label()}"] = e
    return out


#: How close a solution must come to an animated value (m, rad) for its goal to count as met:
#: F-curves hold single-precision values, so animated poses and values agree with each other
#: only to about 1e-7 relative.
INPUT_TOL = 1e-5


def bake(scene=None, frame_start=None, frame_end=None, *, bridge: SceneBridge | None = None,
         settings: Settings | None = None, gravity=None, progress=None,
         input_tol: float = INPUT_TOL) -> BakeResult:
    """Bake ``frame_start``..``frame_end`` (inclusive; default: the scene's range) of
    ``scene`` (see the module doc). ``settings``: the solver's per frame (default: the
    bridge's; the bend predictor always off); ``gravity``: m/s^2 or None;
    ``progress(done, total)`` is called after each frame. An animated input counts as met
    within ``input_tol``; every other goal as the solver's tolerance says. Raises
    :class:`BakeError` (or SchemaError for a corrupt scene) with nothing keyed and the
    current frame restored."""
    t_start = time.perf_counter()
    scene = scene or bpy.context.scene
    start = int(scene.frame_start if frame_start is None else frame_start)
    end = int(scene.frame_end if frame_end is None else frame_end)
    if end < start:
        raise BakeError(f"empty frame range: frame {end} is before frame {start}; nothing "
                        "was baked")
    bridge = bridge or SceneBridge(scene)
    bridge.sync()
    obs = bridge.objects()
    if not obs:
        raise BakeError("nothing to bake: the scene has no links (Vart > Make Links)")
    lk, data = bridge.linkage, bridge.data
    inputs = find_inputs(obs, data, lk)
    if not inputs:
        raise BakeError("nothing to bake: nothing is animated. Keyframe a joint's value, a "
                        "target, a lock or a link's transform (Key Pose keys the current "
                        "pose) and bake again")
    n = end - start + 1
    frame0, sub0 = scene.frame_current, scene.frame_subframe
    res = BakeResult(start, end, inputs=inputs.described)
    keyers = {nm: _Keyer(ob, obs) for nm, ob in obs.items()}
    model = lk.model()
    names = list(obs)
    idx = np.array([model.index[nm] for nm in names])
    jlist = [(jn, j) for jn, j in lk.joints.items() if j.dof]
    T_out = np.empty((n, len(names), 4, 4))
    q_out = {jn: np.empty((n, j.dof)) for jn, j in jlist}
    _set_gravity(lk, gravity)
    old_settings = bridge.settings
    # Without the bend predictor (solver.Settings), each frame's pose is a function of the
    # previous one's and the frame's goals only: re-baking part of a range gives the same keys.
    settings = replace(settings or old_settings, predict_bend=False)
    checkpoint = bridge.checkpoint()
    done = False
    try:
        prev = None
        for k in range(n):
            f = start + k
            scene.frame_set(f)
            if inputs.sync or k == 0:  # first frame: start from the scene as it is there
                if bridge.sync() or bridge.linkage is not lk:
                    raise BakeError(f"frame {f}: the mechanism's structure is animated "
                                    "(joint types, frames, parents or tree flags); only "
                                    "values can be baked")
            if prev is not None:
                model.q_to_joints(prev)
            targets = {}
            for jn, (child, mask) in inputs.joints.items():
                targets[jn] = np.array(obs[child][S.KEY]["joints"][jn]["q"], float)
                lk.set_target(jn, targets[jn], mask)
            for ln, mask in inputs.links.items():
                targets[ln] = P.rigid_and_scale(P.observe(obs[ln]), ln)[0]
                lk.set_link_target(ln, targets[ln], mask)
            st = bridge.solve(settings if k == 0 else None, sync=False)
            res.solve_ms += st.ms
            q = model.q_from_joints()
            prev = q
            T = model.fk(q)
            if not np.isfinite(T).all():
                raise BakeError(f"frame {f}: the solution is not finite; nothing was keyed")
            T_out[k] = T[idx]
            poses = {nm: T[i] for nm, i in model.index.items() if nm is not None}
            fits = closure_qs(lk, poses)
            for jn, j in jlist:
                q_out[jn][k] = j.q if j.is_tree else fits[jn]
            for kr in keyers.values():
                kr.record()
            res.statuses.append(st)
            errs = _input_errors(lk, inputs, poses, targets)
            for g, e in errs.items():
                res.input_error[g] = max(res.input_error.get(g, 0.0), e)
            unmet = [g for lv in st.levels[:G.POSTURE] if lv.name != "potential"
                     for g in lv.unmet if g not in errs]
            unmet += [g for g, e in errs.items() if e > input_tol]
            if unmet:
                res.unmet[f] = unmet
            if st.stuck:
                res.stuck[f] = list(st.stuck)
            if progress is not None:
                progress(k + 1, n)
        done = True
    except VartError as e:
        raise BakeError(f"frame {f}: {e}; nothing was keyed") from None
    finally:
        bridge.settings = old_settings
        if bridge.solver is not None:
            bridge.solver.settings = old_settings
        _release(bridge, lk, data, inputs, checkpoint)
        if not done:
            scene.frame_set(frame0, subframe=sub0)
    _write(res, obs, names, T_out, q_out, jlist, data, inputs, keyers, start)
    scene.frame_set(frame0, subframe=sub0)
    res.total_ms = (time.perf_counter() - t_start) * 1e3
    return res


def _write(res, obs, names, T_out, q_out, jlist, data, inputs, keyers, start):
    """Step 3: the keys, in bulk, per F-curve."""
    n = T_out.shape[0]
    frames = np.arange(start, start + n, dtype=float)
    missed = {g for goals in res.unmet.values() for g in goals}
    maps = {}

    def curve(nm, path, i):
        """The F-curve to write, or None to keep the user's (an input whose goal held)."""
        fmap = maps.setdefault(nm, A.fcurve_map(obs[nm]))
        fc = fmap.get((path, i))
        goal = inputs.curves.get((nm, path, i))
        if goal is not None and goal not in missed:
            res.kept.append(f"{nm}: {path}[{i}]")
            return None
        if fc is None:
            fc = A.ensure_fcurve(obs[nm], path, i, BAKE_GROUP)
            fmap[(path, i)] = fc
        return fc

    def put(nm, path, values):
        wrote = False
        for i in range(values.shape[1]):
            fc = curve(nm, path, i)
            if fc is not None:
                res.keys += A.write_keys(fc, frames, values[:, i], interpolation="LINEAR",
                                         key_type="GENERATED")
                res.curves += 1
                wrote = True
        return wrote

    worlds = {nm: keyers[nm].world(T_out[:, i]) for i, nm in enumerate(names)}
    for i, nm in enumerate(sorted(names, key=lambda x: P.depth(obs[x]))):
        kr = keyers[nm]
        loc, rot = kr.channels(kr.basis(worlds[nm], worlds))
        a = put(nm, "location", loc)
        b = put(nm, rotation_path(obs[nm]), rot)
        res.links += bool(a or b)
    for jn, j in jlist:
        res.joints += put(data.joints[jn].child, S.q_data_path(jn), q_out[jn])
