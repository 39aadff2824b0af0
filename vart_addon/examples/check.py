"""Checking a bake from the baked values, frame by frame (:func:`check_baked`; the stories'
tests and ``make demo`` use it)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..bridge import joint_values as JV
from ..bridge import schema as S


@dataclass
class BakeCheck:
    """What the baked animation holds, frame by frame (:func:`check_baked`): the largest
    closure residual (m and rad: the joint type's invariant residual of every closure joint,
    from the linkage rebuilt out of the baked joint values), the largest excess of a real
    joint's baked value over its limits, and where each was."""

    frames: int = 0
    closures: int = 0
    closure_error: float = 0.0
    closure_worst: tuple = ()
    limit_excess: float = 0.0
    limit_worst: tuple = ()
    pose_error: float = 0.0


def check_baked(scene, frame_start: int, frame_end: int) -> BakeCheck:
    """Step through the frames and check the baked values (see :class:`BakeCheck`). At each
    frame the stored properties are what the F-curves say (single precision); the tree
    joints' values are read, forward kinematics places every link, and each closure joint's
    invariant residual is measured there; ``pose_error`` is how far (largest matrix entry, m)
    the links' baked transforms are from those poses. The current frame is restored. The
    linkage is built once, at the first frame (a bake never changes the structure)."""
    from ..bridge import build as B
    from ..bridge import poses as P
    from ..shared.frames import kept_frame, set_frame
    out = BakeCheck()
    lk = None
    with kept_frame(scene):
        for f in range(int(frame_start), int(frame_end) + 1):
            if lk is None:  # the first: keyed values exact (shared.frames); Blender keeps them
                set_frame(scene, f)
            else:
                scene.frame_set(f)
            obs = {ob.name: ob for ob in scene.objects if S.is_link(ob)}
            poses = {n: P.rigid_and_scale(P.observe(ob), n)[0] for n, ob in obs.items()}
            if lk is None:
                data = S.read_scene(obs.values())
                lk = B.build(data, poses)
                tree = [j for j in lk.joints.values() if j.is_tree and j.dof]
                free = [n for n in lk.links if lk.tree_edge[n].is_root]
                closures = [j for j in lk.joints.values() if not j.is_tree]
                real = [j for j in data.joints.values() if not j.virtual and j.dof]
            for j in tree:  # a q stored as a number is one value (issue 35)
                j.q = np.array(JV.stored_q(obs[j.child], j.name, j.dof))
            for n in free:
                lk.set_link_pose(n, poses[n])
            fk = lk.poses()
            out.pose_error = max([out.pose_error] + [float(np.abs(fk[n] - T).max())
                                                     for n, T in poses.items()])
            out.frames += 1
            out.closures = len(closures)
            for j in closures:
                r = j.jtype.residual(lk.relative_pose(j, fk), j.pitch)
                e = float(np.abs(r).max()) if r.size else 0.0
                if e >= out.closure_error:
                    out.closure_error, out.closure_worst = e, (j.name, f)
            for j in real:
                jl = lk.joints[j.name]
                q = np.asarray(jl.q if jl.is_tree else lk.joint_q(jl, fk))
                e = float(max((np.asarray(j.lower) - q).max(), (q - np.asarray(j.upper)).max(),
                              0.0))
                if e > out.limit_excess:
                    out.limit_excess, out.limit_worst = e, (j.name, f)
    return out
