"""The keys of a bake: the poses and joint values it collected, written to F-curves in bulk.

Keys are written in bulk per F-curve (:func:`.bridge.animation.write_keys`: one
``keyframe_points.add`` + ``foreach_set``, keys of the range replaced, linear
interpolation, key type GENERATED): every link's location and rotation channel, every
joint's q, in curves of the :data:`.bake.BAKE_GROUP`. An input curve whose goal was met on
every frame is left as the user made it (it already says what the bake found, and stays
editable for the next bake); one whose goal was not met somewhere is overwritten in the range.

Blender-parented links are keyed in their parent's space (a link under another link, with
plain objects in between, uses the baked pose of that link; under plain objects only, the
parent's evaluated matrix at each frame). Delta transforms are respected.
"""
from __future__ import annotations

import numpy as np
from mathutils import Euler, Matrix, Quaternion

from ..bridge import animation as A
from ..bridge import poses as P
from ..bridge import schema as S
from .bake_result import BakeError
from .keying import rotation_path


# ---- from world poses to transform channels --------------------------------------------------
def _rows(M) -> np.ndarray:
    return np.array(M, dtype=float)


class Keyer:
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
        out: list[tuple] = []
        # (tuple(q), *axis: the mathutils stubs' Quaternion, Euler, Vector lack __iter__)
        if mode == "QUATERNION" or mode == "AXIS_ANGLE":
            prev = Quaternion(ob.rotation_quaternion) if mode == "QUATERNION" else \
                Quaternion(ob.rotation_axis_angle[1:], ob.rotation_axis_angle[0])
            for Rk in R:
                q = Matrix(Rk.tolist()).to_quaternion()
                if q.dot(prev) < 0:
                    q.negate()
                prev = q
                if mode == "QUATERNION":
                    out.append(tuple(q))  # type: ignore[arg-type]
                else:
                    axis, angle = q.to_axis_angle()
                    out.append((angle, *axis))  # type: ignore[misc]
        else:
            prev_e = Euler(ob.rotation_euler, mode)
            for Rk in R:
                e = Matrix(Rk.tolist()).to_euler(mode, prev_e)
                prev_e = e
                out.append(tuple(e))  # type: ignore[arg-type]
        return loc, np.array(out, float)


def write_baked(res, obs, names, T_out, q_out, jlist, data, inputs, keyers, start):
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
            fc = A.ensure_fcurve(obs[nm], path, i, A.BAKE_GROUP)
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
    for _i, nm in enumerate(sorted(names, key=lambda x: P.depth(obs[x]))):
        kr = keyers[nm]
        loc, rot = kr.channels(kr.basis(worlds[nm], worlds))
        a = put(nm, "location", loc)
        b = put(nm, rotation_path(obs[nm]), rot)
        res.links += bool(a or b)
    for jn, _j in jlist:
        res.joints += put(data.joints[jn].child, S.q_data_path(jn), q_out[jn])
