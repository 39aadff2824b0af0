"""Will it run, statically: balance, static torque and slip of a baked range, from a Blender
scene (the figures are :mod:`vart_addon.physics.feasibility`'s).

:func:`statics_scene_steps` reads the scene once (at the first frame):

- the robot: the scene's real links and joints (:class:`vart_addon.physics.static_model.
  StaticModel`: masses and centres of mass of the links, a floating base unless a real joint
  holds the robot to the ground), each joint's effort limit from the URDF the robot was
  imported from (none: the torque it needs is reported);
- the contacts' candidates: each real link's evaluated mesh vertices (as the clearance check
  reads them), and the **pins**: every virtual joint from the world to a real link (a wheel
  held at its contact point), at its child-side frame's origin;
- the surface: the plane z = 0, or the clearance check's ground object (its faces, each
  point's nearest, Blender's BVH tree);

then steps through the frames, reading each link's baked pose. :func:`key_statics_curves`
keys the figures per frame in the Graph Editor (group *Vart Plots*, as Plot Curves): per
joint ``static_torque`` (N m or N) and ``torque_share`` (of its effort limit); per link that
touches, ``contact_load`` (N) and ``contact_slip`` (m since the frame before) under
``["vart_plots"]["(contact)"]``; on the robot's heaviest link, ``balance_margin`` (m) and
``worst_torque_share`` under ``["vart_plots"]["(robot)"]``.
"""
from __future__ import annotations

import bpy
import numpy as np
from mathutils import Vector

from ..bridge import SceneBridge
from ..bridge import poses as P
from ..io_urdf.exporter import depsgraph_of
from ..physics.feasibility import StaticsReport, Thresholds, check_poses_steps
from ..physics.ground_contacts import Pin
from ..physics.static_model import StaticModel
from ..shared.frames import kept_frame
from .clearance import link_meshes, mesh_in_frame
from .plots import key_plot, urdf_limits

#: Timeline markers of the statics check start with this.
MARKER_PREFIX = "will it run: "
CONTACT, ROBOT = "(contact)", "(robot)"


class MeshSurface:
    """A ground mesh (world frame) as a contact surface: each point's signed distance to its
    nearest face (positive on the side the face's normal points to) and that normal."""

    def __init__(self, ob, depsgraph):
        from mathutils.bvhtree import BVHTree
        v, t = mesh_in_frame(ob, depsgraph, np.eye(4))
        self.tree = BVHTree.FromPolygons(v.tolist(), t.tolist())
        self.low, self.high = v.min(axis=0), v.max(axis=0)

    def distance(self, points):
        P_ = np.asarray(points, float).reshape(-1, 3)
        d = np.full(len(P_), np.inf)
        n = np.zeros_like(P_)
        n[:, 2] = 1.0
        reach = np.linalg.norm(self.high - self.low) + 1.0
        near = np.flatnonzero(np.all((P_ > self.low - reach) & (P_ < self.high + reach), axis=1))
        for i in near:
            co, normal, _, dist = self.tree.find_nearest(Vector(P_[i]))
            if co is None:
                continue
            side = 1.0 if (Vector(P_[i]) - co).dot(normal) >= 0 else -1.0
            d[i], n[i] = side * dist, tuple(normal)
        return d, n


def scene_statics(scene, bridge: SceneBridge, ground=None):
    """``(model, points, pins, surface, objects)`` of the scene at the current frame (see the
    module doc)."""
    from ..physics.ground_contacts import GroundPlane
    bridge.sync()
    lk, obs = bridge.linkage, bridge.objects()
    assert lk is not None  # synced
    efforts = {j: e for j, (_, e) in urdf_limits(scene).items() if e > 0}
    model = StaticModel(lk, efforts)
    real = {n: obs[n] for n in model.links}
    depsgraph = depsgraph_of(bpy.context, scene)
    points = {n: m.v for n, m in link_meshes(real, depsgraph).items()}
    pins = [Pin(j.name, j.child, np.asarray(j.T_child_frame, float)[:3, 3])
            for j in lk.joints.values() if j.virtual and j.parent is None and j.child in real]
    surface = GroundPlane() if ground is None else MeshSurface(ground, depsgraph)
    return model, points, pins, surface, real


def _poses(scene, obs, frames):
    for f in frames:
        scene.frame_set(f)
        yield {n: P.rigid_and_scale(P.observe(ob), n)[0] for n, ob in obs.items()}


def statics_scene_steps(scene, frame_start: int, frame_end: int, *, ground=None,
                        thresholds: Thresholds | None = None,
                        bridge: SceneBridge | None = None):
    """Check frames ``frame_start``..``frame_end`` of the baked scene (see the module doc): a
    generator yielding ``(done, total)`` and returning ``(StaticsReport, model, objects)``;
    the current frame is kept. Raises VartError (a BridgeError: the scene cannot be read)."""
    bridge = bridge or SceneBridge(scene)
    frames = list(range(int(frame_start), int(frame_end) + 1))
    with kept_frame(scene):
        scene.frame_set(frames[0])
        model, points, pins, surface, obs = scene_statics(scene, bridge, ground)
        rep = yield from check_poses_steps(model, frames, _poses(scene, obs, frames), points,
                                           pins, thresholds=thresholds, surface=surface)
    return rep, model, obs


def key_statics_curves(rep: StaticsReport, model: StaticModel, obs: dict) -> int:
    """Key the report's per-frame figures (see the module doc). Returns the curves keyed."""
    frames, n = rep.frames, 0
    for k, d in enumerate(model.motors):
        joint = model.dofs[d].joint
        ob = obs.get(model.child_of[joint])
        if ob is None:
            continue
        key_plot(ob, joint, "static_torque", frames, rep.torque[:, k])
        n += 1
        if rep.effort[k] > 0:
            key_plot(ob, joint, "torque_share", frames, rep.ratio[:, k])
            n += 1
    for group, load in rep.load.items():
        ob = obs.get(rep.group_links.get(group, ""))
        if ob is not None:
            key_plot(ob, CONTACT, "contact_load", frames, load)
            key_plot(ob, CONTACT, "contact_slip", frames, rep.slip[group])
            n += 2
    heaviest = obs[model.links[int(np.argmax(model.mass))]]
    key_plot(heaviest, ROBOT, "balance_margin", frames, np.nan_to_num(rep.margin, nan=0.0))
    key_plot(heaviest, ROBOT, "worst_torque_share", frames, rep.worst)
    return n + 2


def put_markers(scene, rep: StaticsReport) -> int:
    """Replace the markers of an earlier statics check by one at the first frame of each run
    of failing frames (a run: consecutive frames that fail the same ways), named by how it
    fails (``will it run: torque, slip``). Returns how many."""
    markers = scene.timeline_markers
    for m in [m for m in markers if m.name.startswith(MARKER_PREFIX)]:
        markers.remove(m)
    bad = rep.failures()
    count, last = 0, (-1, "")
    for f in sorted(bad):
        kinds = ", ".join(kind for kind, _ in bad[f])
        if last != (int(f) - 1, kinds):
            markers.new(MARKER_PREFIX + kinds, frame=int(f))
            count += 1
        last = (int(f), kinds)
    return count
