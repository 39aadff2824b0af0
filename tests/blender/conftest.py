"""Tests here run real Blender through the bpy module; mark them ``blender``."""

from pathlib import Path

import pytest

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.blender)


# ---- the vart add-on registered from the repository (operator tests) -----------------------
@pytest.fixture
def scene():
    """The factory settings' empty scene (no add-ons registered)."""
    import bpy

    bpy.ops.wm.read_factory_settings(use_empty=True)
    return bpy.context.scene


@pytest.fixture
def vart_registered():
    """A factory-fresh empty scene with ``vart_addon`` registered (from the repository, not an
    installed zip). Teardown unregisters it and checks that nothing is left behind: no
    ``Scene.vart`` and no ``VART_`` classes."""
    import bpy

    import vart_addon

    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_addon.register()
    try:
        yield vart_addon
    finally:
        vart_addon.unregister()
        assert not hasattr(bpy.types.Scene, "vart")
        assert [n for n in dir(bpy.types) if n.upper().startswith("VART_")] == []


class OpKit:
    """Helpers of the operator tests (shared through the ``opkit`` fixture)."""

    @staticmethod
    def cube(name: str, scale=(1.0, 1.0, 1.0)):
        """A unit cube mesh object centred on its origin, scaled, in the scene collection."""
        from blender_scenes import cube
        return cube(name, scale)

    @staticmethod
    def place(ob, T):
        """Give ``ob`` the rigid world pose ``T`` (4x4), keeping its scale."""
        import bpy
        import numpy as np
        from mathutils import Matrix
        bpy.context.view_layer.update()
        scale = np.linalg.norm(np.array(ob.matrix_world)[:3, :3], axis=0)
        M = np.array(T, float)
        M[:3, :3] *= scale
        ob.matrix_world = Matrix(M.tolist())
        bpy.context.view_layer.update()

    @staticmethod
    def select(*obs, active=None):
        """Select exactly ``obs``; ``active`` (default: the last) becomes the active object."""
        import bpy
        vl = bpy.context.view_layer
        for ob in vl.objects:
            ob.select_set(False)
        for ob in obs:
            ob.select_set(True)
        vl.objects.active = active if active is not None else (obs[-1] if obs else None)

    @staticmethod
    def cursor(T):
        """Put the 3D cursor at pose ``T`` (4x4: location and rotation)."""
        import bpy
        import numpy as np
        from mathutils import Matrix
        bpy.context.scene.cursor.matrix = Matrix(np.asarray(T, float).tolist())

    @staticmethod
    def world(ob):
        import numpy as np
        return np.array(ob.matrix_world, dtype=float)

    @staticmethod
    def rigid(ob):
        """The object's world pose without scale (4x4)."""
        import numpy as np
        M = np.array(ob.matrix_world, dtype=float)
        M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
        return M

    @staticmethod
    def snapshot() -> dict:
        """Every object: exact world matrix, Blender parent and vart properties (pointers as
        names). Equal snapshots = an unchanged scene."""
        from blender_scenes import scene_snapshot
        return scene_snapshot()

    @staticmethod
    def joint(name: str) -> dict:
        """The stored properties of joint ``name`` (plain dict; ``child`` added)."""
        import bpy
        for ob in bpy.context.scene.objects:
            g = ob.get("vart")
            if g is not None and name in g.get("joints", {}):
                d = g["joints"][name].to_dict()
                d["child"] = ob.name
                return d
        raise KeyError(name)

    @staticmethod
    def link(name: str) -> dict:
        import bpy
        return bpy.data.objects[name]["vart"]["link"].to_dict()


@pytest.fixture
def opkit(vart_registered):
    """:class:`OpKit` with the add-on registered on an empty scene."""
    return OpKit


class FourBar:
    """A crank-rocker built from four cubes by operators only (see the ``op_fourbar`` fixture).

    The mechanism lies in the plane of frame ``G`` (z: the joints' axes). Ground pivots O2 at
    (0, 0) and O4 at (4, 0); crank 1.5, coupler 3.5, rocker 2.5 (metres), built at crank angle
    90 degrees. Joints: A crank-world, B crank->coupler, D rocker-world (tree), C
    coupler->rocker (closure). Each has q = 0 as built. ``analytic(theta2)`` gives the
    absolute (coupler, rocker) angles in the plane for an absolute crank angle, computed from
    the pivots as the 3D cursor actually held them (float32), on the built branch.
    """

    A_, B_, C_, D_ = 1.5, 3.5, 2.5, 4.0
    THETA0 = 1.5707963267948966  # crank angle as built

    def __init__(self, kit):
        import math

        import bpy
        import numpy as np

        from vart_addon.solver import se3
        self.kit, self.se3 = kit, se3
        self.G = se3.make_pose(se3.so3_exp(np.array([0.3, -0.2, 0.5])), [0.7, -1.2, 0.4])
        t2 = self.THETA0
        t3, t4 = self._ideal(t2)
        bx, by = self.A_ * math.cos(t2), self.A_ * math.sin(t2)
        cx, cy = bx + self.B_ * math.cos(t3), by + self.B_ * math.sin(t3)
        self.obs = {"crank": kit.cube("crank", (1.5, .2, .2)),
                    "coupler": kit.cube("coupler", (3.5, .2, .2)),
                    "rocker": kit.cube("rocker", (2.5, .2, .2))}
        # link origins at the middle of each bar
        kit.place(self.obs["crank"], self.planar(bx / 2, by / 2, t2))
        kit.place(self.obs["coupler"], self.planar((bx + cx) / 2, (by + cy) / 2, t3))
        kit.place(self.obs["rocker"], self.planar((self.D_ + cx) / 2, cy / 2, t4))
        kit.select(*self.obs.values())
        assert bpy.ops.vart.make_links() == {'FINISHED'}
        self.pivots = {}
        for name, (x, y), parent, child in (("A", (0, 0), None, "crank"),
                                            ("B", (bx, by), "crank", "coupler"),
                                            ("D", (self.D_, 0), None, "rocker"),
                                            ("C", (cx, cy), "coupler", "rocker")):
            kit.cursor(self.planar(x, y))
            self.pivots[name] = np.array(bpy.context.scene.cursor.location, float)
            sel = [self.obs[child]] if parent is None else [self.obs[parent], self.obs[child]]
            kit.select(*sel, active=self.obs[child])
            assert bpy.ops.vart.add_joint(joint_type="revolute", name=name) == {'FINISHED'}
        self.built = {n: kit.rigid(ob) for n, ob in self.obs.items()}
        # the mechanism as built: pivots (float32 cursor) projected into the plane
        p = {k: (se3.inverse(self.G) @ np.append(v, 1.0))[:2] for k, v in self.pivots.items()}
        self.p = p
        self.a = np.linalg.norm(p["B"] - p["A"])
        self.b = np.linalg.norm(p["C"] - p["B"])
        self.c = np.linalg.norm(p["C"] - p["D"])
        self.theta2_0 = math.atan2(*(p["B"] - p["A"])[::-1])
        self.theta3_0, self.theta4_0 = self.analytic(self.theta2_0)
        # Analytic answers must not depend on the machine's load: no time budget (the default
        # 50 ms cut an operator's solve short on a CI machine busy with a benchmark).
        bpy.context.scene.vart.time_budget_ms = 0.0

    def planar(self, x, y, angle=0.0):
        return self.G @ self.se3.make_pose(self.se3.rot_z(angle), [x, y, 0.0])

    def _ideal(self, t2):
        import math
        bx, by = self.A_ * math.cos(t2), self.A_ * math.sin(t2)
        dx, dy = self.D_ - bx, -by
        L = math.hypot(dx, dy)
        a = (self.B_ ** 2 - self.C_ ** 2 + L ** 2) / (2 * L)
        h = math.sqrt(self.B_ ** 2 - a ** 2)
        ux, uy = dx / L, dy / L
        cx, cy = bx + a * ux - h * uy, by + a * uy + h * ux
        return math.atan2(cy - by, cx - bx), math.atan2(cy, cx - self.D_)

    def analytic(self, theta2: float):
        """Absolute (coupler, rocker) angles for absolute crank angle ``theta2`` (rad)."""
        import math

        import numpy as np
        p = self.p
        B = p["A"] + self.a * np.array([math.cos(theta2), math.sin(theta2)])
        d = p["D"] - B
        L = np.linalg.norm(d)
        a = (self.b ** 2 - self.c ** 2 + L ** 2) / (2 * L)
        h = math.sqrt(self.b ** 2 - a ** 2)
        u = d / L
        C = B + a * u + h * np.array([-u[1], u[0]])  # the branch it was built on (C above)
        return math.atan2(*(C - B)[::-1]), math.atan2(*(C - p["D"])[::-1])


@pytest.fixture
def op_fourbar(opkit):
    """:class:`FourBar`: a crank-rocker built by ``vart.make_links`` and four
    ``vart.add_joint`` calls (3D cursor at each pivot)."""
    return FourBar(opkit)
