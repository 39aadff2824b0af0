"""Operators (real bpy): the four-bar built by operators only and operated (analytic answer),
registration and the menu, save and reload, the add-on disabled and enabled again, undo."""
from __future__ import annotations

import math
import types

import bpy
import numpy as np
import pytest

from vart_addon.bridge import SceneBridge, read_scene
from vart_addon.solver import se3


def operate(joint: str, *values):
    bpy.context.scene.vart.active_joint = joint
    return bpy.ops.vart.operate_joint(value=tuple(values) + (0.0,) * (6 - len(values)))


def q(joint: str) -> list:
    ob = next(o for o in bpy.context.scene.objects
              if "vart" in o.keys() and joint in o["vart"]["joints"])
    return list(ob["vart"]["joints"][joint]["q"])


def about(W, angle):
    """The rigid motion rotating by ``angle`` about the z axis of world frame W."""
    return W @ se3.make_pose(se3.rot_z(angle), None) @ se3.inverse(W)


def check_fourbar(fb, opkit, theta2):
    """Stored q of every joint and the bars' world poses against the analytic answer."""
    t3, t4 = fb.analytic(theta2)
    assert q("A")[0] == pytest.approx(theta2 - fb.theta2_0, abs=1e-9)
    assert q("D")[0] == pytest.approx(t4 - fb.theta4_0, abs=1e-9)
    assert q("B")[0] == pytest.approx((t3 - theta2) - (fb.theta3_0 - fb.theta2_0), abs=1e-9)
    assert q("C")[0] == pytest.approx((t4 - t3) - (fb.theta4_0 - fb.theta3_0), abs=1e-9)
    W = {k: fb.planar(*fb.p[k]) for k in fb.p}  # pivot frames (in the plane)
    rocker = about(W["D"], t4 - fb.theta4_0) @ fb.built["rocker"]
    crank = about(W["A"], theta2 - fb.theta2_0) @ fb.built["crank"]
    np.testing.assert_allclose(opkit.rigid(fb.obs["rocker"]), rocker, atol=1e-6)
    np.testing.assert_allclose(opkit.rigid(fb.obs["crank"]), crank, atol=1e-6)
    # the coupler carries B and C where the crank and the rocker have them
    Tc = opkit.rigid(fb.obs["coupler"])
    for pivot, other in (("B", crank), ("C", rocker)):
        in_coupler = se3.inverse(fb.built["coupler"]) @ np.append(fb.pivots[pivot], 1)
        in_other = se3.inverse(fb.built["crank" if pivot == "B" else "rocker"]) @ \
            np.append(fb.pivots[pivot], 1)
        np.testing.assert_allclose(Tc @ in_coupler, other @ in_other, atol=2e-6)


# ---- the four-bar ------------------------------------------------------------------------------
def test_the_fourbar_built_by_operators_has_the_expected_structure(op_fourbar, opkit):
    fb = op_fourbar
    data = read_scene(bpy.context.scene.objects)
    assert sorted(data.links) == ["coupler", "crank", "rocker"]
    ends = {n: (j.parent, j.child, j.type, j.tree) for n, j in data.joints.items()}
    assert ends == {"A": (None, "crank", "revolute", True),
                    "B": ("crank", "coupler", "revolute", True),
                    "C": ("coupler", "rocker", "revolute", False),
                    "D": (None, "rocker", "revolute", True)}
    assert all(abs(j.q[0]) < 1e-12 for j in data.joints.values())  # q = 0 as built
    assert bpy.context.scene.vart.active_joint == "C"  # the last added joint
    # meshes keep their geometry, nothing moved
    assert len(fb.obs["crank"].data.vertices) == 8
    for n, ob in fb.obs.items():
        np.testing.assert_allclose(opkit.rigid(ob), fb.built[n], atol=1e-7)
    # frames at the 3D cursor: the mobility frame of A is the cursor pose in the world
    np.testing.assert_allclose(np.array(data.joints["A"].T_parent_mob).reshape(4, 4),
                               fb.planar(0, 0), atol=1e-6)


@pytest.mark.parametrize("degrees", [-30.0, 30.0, -90.0, 12.5])
def test_operating_the_crank_gives_the_analytic_rocker_angle(op_fourbar, opkit, degrees):
    """Operator values are float32 (Blender has no double properties): use values that are
    exact in float32, then the stored q are exact to the solver's precision."""
    fb = op_fourbar
    theta2 = fb.theta2_0 + math.radians(degrees)
    assert operate("A", degrees) == {'FINISHED'}
    check_fourbar(fb, opkit, theta2)
    s = bpy.context.scene.vart
    assert s.status_summary.startswith("Converged"), s.status_summary
    levels = {lv.name: lv for lv in s.status_levels}
    assert list(levels) == ["invariant", "limit", "lock", "potential", "target", "posture"]
    assert levels["invariant"].active and levels["invariant"].satisfied
    assert levels["target"].active and levels["target"].unmet == ""
    assert not levels["posture"].active
    # the crank keeps its target (that is what operating means)
    A = opkit.joint("A")
    assert list(A["target_mask"]) == [True]
    assert A["target_q"][0] == math.radians(degrees)


def test_operating_twice_and_a_fresh_bridge_agree(op_fourbar, opkit):
    fb = op_fourbar
    operate("A", -30.0)
    operate("A", 15.0)
    check_fourbar(fb, opkit, fb.theta2_0 + math.radians(15.0))
    bridge = SceneBridge()
    bridge.solve()
    assert bridge.write_back().links == []  # the scene is a fixed point


def test_operating_the_closure_joint_sets_its_target(op_fourbar, opkit):
    bpy.context.scene.vart.active_joint = "A"
    assert bpy.ops.vart.clear_target() == {'FINISHED'}
    want = math.radians(-15.5)  # exact in float32 degrees
    assert operate("C", -15.5) == {'FINISHED'}
    C = opkit.joint("C")
    assert C["target_q"][0] == pytest.approx(want, abs=1e-12) and C["tree"] is False
    assert q("C")[0] == pytest.approx(want, abs=1e-9)
    # a one-DoF loop: the whole mechanism follows (the crank may go either way; check the
    # loop closes and C has its value)
    bridge = SceneBridge()
    bridge.sync()
    assert bridge.linkage.joint_q(bridge.linkage.joint("C"))[0] == pytest.approx(want, abs=1e-9)


def test_operate_respects_display_units(op_fourbar, opkit):
    """Radians when the scene's rotation unit is radians."""
    fb = op_fourbar
    bpy.context.scene.unit_settings.system_rotation = 'RADIANS'
    operate("A", -0.5)
    check_fourbar(fb, opkit, fb.theta2_0 - 0.5)


# ---- registration and the menu ---------------------------------------------------------------
def _goal_operator_ids() -> list:
    """The Set / Clear operators generated per stored goal kind (operators/goals.py)."""
    from vart_addon.bridge import goal_fields as GF
    from vart_addon.operators.goals import idnames
    return [i.split(".")[1] for g in GF.joint_goals() + GF.link_goals() if not g.kind.toggle
            for i in idnames(g)]


OPERATOR_IDS = ["make_links", "add_joint", "add_virtual_link", "remove_joint",
                "set_joint_frame_from_cursor", "change_joint_type", "lock", "unlock",
                "set_limits", "make_tree_joint", "make_closure_joint", "invert_joint",
                "make_ground_link", "split_link", "rename_joint", "merge_joint", "set_mass",
                "operate_joint", "solve", "set_torque_limits", "clear_torque_limits"] + \
    _goal_operator_ids()
#: The generated goal operators that kept the names they had before: still there.
assert {"set_target", "clear_target", "set_posture", "clear_posture", "set_stiffness",
        "clear_spring"} <= set(OPERATOR_IDS)
#: The animation operators (vart_addon.operators.animate), also in the Vart menu.
ANIMATION_IDS = ["drag", "operate_joint_modal", "key_joint", "key_pose", "bake"]
#: The sublinkage operators (vart_addon.operators.sublinkages), in the Vart menu too.
SUBLINKAGE_IDS = ["make_sublinkage", "set_disposition", "dissolve_sublinkage"]
#: The arm operators in the Vart menu: Find Solutions (vart_addon.operators.arms); Add Tool
#: Frame, Mark as Tool, Key Waypoint and Check Arm Motion (vart_addon.operators.tools).
ARM_IDS = ["find_solutions", "add_tool", "mark_tool", "key_waypoint", "check_arm_motion"]


def test_every_operator_is_registered_with_its_properties(vart_registered):
    from vart_addon.operators import goals, joints, links, solve
    classes = links.classes + joints.classes + goals.classes + solve.classes
    assert sorted(c.bl_idname.split(".")[1] for c in classes) == sorted(OPERATOR_IDS)
    for cls in classes:
        op = getattr(bpy.ops.vart, cls.bl_idname.split(".")[1])
        rna = op.get_rna_type()
        assert rna.description == cls.bl_description and cls.bl_description
        # a property that fails to register is only printed by Blender: check each one
        declared = {}
        for base in reversed(cls.__mro__):
            declared.update(getattr(base, "__annotations__", {}))
        assert set(declared) <= set(rna.properties.keys()), cls.bl_idname
        assert cls.bl_options >= {'REGISTER', 'UNDO'}
    add = bpy.ops.vart.add_joint.get_rna_type().properties
    types_ = [i.identifier for i in add["joint_type"].enum_items]
    assert types_ == ["revolute", "prismatic", "helical", "cylindrical", "pin-slider",
                      "cartesian-2", "spherical", "planar", "cartesian-3", "point-slider",
                      "point-plane", "general", "fixed"]
    s = bpy.context.scene.vart
    assert (s.max_iterations, s.time_budget_ms, s.damping, s.gravity_enabled,
            s.overlay_enabled, s.active_joint) == (100, 50.0, pytest.approx(0.05), False,
                                                   True, "")
    assert tuple(s.gravity) == pytest.approx((0, 0, -9.81))


class FakeLayout:
    """Records what a menu's draw() asks for."""

    def __init__(self):
        self.calls = []

    def operator(self, idname, **kw):
        props = types.SimpleNamespace()
        self.calls.append(("operator", idname, props))
        return props

    def operator_enum(self, idname, prop):
        self.calls.append(("operator_enum", idname, prop))

    def menu(self, idname, **kw):
        self.calls.append(("menu", idname, None))

    def separator(self, **kw):
        pass


def draw(menu_cls):
    """Run a menu's draw() with a fake layout (bpy.types.X is the RNA type: look the Python
    class up by its id)."""
    from vart_addon import menus
    if isinstance(menu_cls, str):
        menu_cls = next(c for c in menus.classes if c.bl_idname == menu_cls)
    layout = FakeLayout()
    menu_cls.draw(types.SimpleNamespace(layout=layout, virtual=getattr(menu_cls, "virtual", 0)),
                  bpy.context)
    return layout.calls


def test_the_vart_menu_is_in_the_object_menu_and_reaches_every_operator(vart_registered):
    from vart_addon import menus
    assert menus.draw_object_menu in bpy.types.VIEW3D_MT_object._dyn_ui_initialize()
    assert [c[1] for c in draw(types.SimpleNamespace(draw=menus.draw_object_menu))
            if c[0] == "menu"] == ["VART_MT_object"]
    reached, submenus = set(), ["VART_MT_object"]
    while submenus:
        cls = submenus.pop()
        assert hasattr(bpy.types, cls)  # registered
        for kind, idname, _props in draw(cls):
            if kind == "menu":
                submenus.append(idname)
            else:
                assert idname.startswith("vart.")
                assert hasattr(bpy.ops.vart, idname[5:])
                bpy.ops.vart.__getattr__(idname[5:]).get_rna_type()  # exists in RNA
                reached.add(idname[5:])
    assert reached == set(OPERATOR_IDS + ANIMATION_IDS + SUBLINKAGE_IDS + ARM_IDS) \
        == menus.menu_operators()
    real = draw("VART_MT_add_joint")
    assert [p.joint_type for _, _, p in real][:2] == ["revolute", "prismatic"]
    assert len(real) == 13 and not any(p.virtual for _, _, p in real)
    assert all(p.virtual for _, _, p in draw("VART_MT_add_virtual_joint"))


def test_unregister_and_register_again_leave_nothing_behind(vart_registered):
    from vart_addon import menus
    vart_registered.unregister()
    assert not hasattr(bpy.types.Scene, "vart")
    assert [n for n in dir(bpy.types) if n.upper().startswith("VART_")] == []
    assert menus.draw_object_menu not in bpy.types.VIEW3D_MT_object._dyn_ui_initialize()
    assert not hasattr(bpy.ops.vart, "solve") or not _op_exists("solve")
    vart_registered.register()
    assert bpy.context.scene.vart.max_iterations == 100
    assert bpy.ops.vart.solve() == {'FINISHED'}


def _op_exists(name: str) -> bool:
    try:
        getattr(bpy.ops.vart, name).get_rna_type()
        return True
    except (KeyError, AttributeError):
        return False


# ---- files ----------------------------------------------------------------------------------
def test_save_and_reload_keeps_every_joint_and_setting(op_fourbar, opkit, tmp_path):
    operate("A", -30.0)
    bpy.context.scene.vart.max_iterations = 77
    before = read_scene(bpy.context.scene.objects)
    snap = opkit.snapshot()
    path = str(tmp_path / "fourbar.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    assert not bpy.data.objects
    bpy.ops.wm.open_mainfile(filepath=path)
    assert read_scene(bpy.context.scene.objects) == before
    assert opkit.snapshot() == snap
    s = bpy.context.scene.vart
    assert s.max_iterations == 77 and s.active_joint == "A"
    assert s.status_summary.startswith("Converged")
    assert operate("A", 10.0) == {'FINISHED'}  # and it still works


def test_a_file_opened_without_the_addon_keeps_everything_for_when_it_is_back(
        op_fourbar, opkit, vart_registered, tmp_path):
    operate("A", -30.0)
    bpy.context.scene.vart.damping = 0.2
    before = read_scene(bpy.context.scene.objects)
    path = str(tmp_path / "fourbar.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    vart_registered.unregister()
    bpy.ops.wm.open_mainfile(filepath=path)
    assert read_scene(bpy.context.scene.objects) == before  # plain ID properties
    assert not hasattr(bpy.context.scene, "vart")
    bpy.ops.wm.save_as_mainfile(filepath=path)  # saved again without vart
    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_registered.register()
    bpy.ops.wm.open_mainfile(filepath=path)
    assert read_scene(bpy.context.scene.objects) == before
    assert bpy.context.scene.vart.damping == pytest.approx(0.2)
    assert bpy.context.scene.vart.active_joint == "A"
    assert operate("A", 20.0) == {'FINISHED'}


# ---- undo ------------------------------------------------------------------------------------
def _undo(kind="undo"):
    w = bpy.context.window
    area = w.screen.areas[0]
    with bpy.context.temp_override(window=w, screen=w.screen, area=area):
        return getattr(bpy.ops.ed, kind)()


@pytest.mark.parametrize("op,kwargs,joint", [
    ("operate_joint", {"value": (-30.0, 0, 0, 0, 0, 0)}, "A"),
    ("invert_joint", {}, "B"),
    ("change_joint_type", {"joint_type": "spherical"}, "C"),
    ("lock", {"target": 'JOINT'}, "D"),
    ("split_link", {"take_active_joint": True}, "C"),
])
def test_each_operator_is_one_undo_step(op_fourbar, opkit, op, kwargs, joint):
    """Python-called operators push their undo step only with the ``undo=True`` argument and
    without a context override (with one, bpy 5.0.1 crashes in background mode)."""
    bpy.context.scene.vart.active_joint = joint
    opkit.select(op_fourbar.obs["coupler"])
    assert bpy.ops.ed.undo_push(message="before") == {'FINISHED'}
    before = opkit.snapshot()
    assert getattr(bpy.ops.vart, op)('EXEC_DEFAULT', True, **kwargs) == {'FINISHED'}
    after = opkit.snapshot()
    assert after != before
    assert _undo() == {'FINISHED'}
    assert opkit.snapshot() == before
    assert _undo("redo") == {'FINISHED'}
    assert opkit.snapshot() == after


def test_operators_after_undo_see_the_restored_scene(op_fourbar, opkit):
    """The operators keep one scene bridge between calls; undo must not confuse it."""
    fb = op_fourbar
    bpy.context.scene.vart.active_joint = "A"
    bpy.ops.ed.undo_push(message="built")
    assert bpy.ops.vart.operate_joint('EXEC_DEFAULT', True, value=(-30.0, 0, 0, 0, 0, 0)) \
        == {'FINISHED'}
    bpy.context.scene.vart.active_joint = "B"
    assert bpy.ops.vart.invert_joint('EXEC_DEFAULT', True) == {'FINISHED'}
    assert _undo() == {'FINISHED'} and _undo() == {'FINISHED'}  # back to as built
    fb.obs = {n: bpy.data.objects[n] for n in fb.obs}  # undo re-creates the Python objects
    assert opkit.joint("B")["child"] == "coupler" and abs(q("A")[0]) < 1e-12
    assert operate("A", 20.0) == {'FINISHED'}
    check_fourbar(fb, opkit, fb.theta2_0 + math.radians(20.0))


def test_every_operator_module_is_registered_and_every_class_reached(vart_registered):
    """Issue 34, item 6: operators are listed once, by their classes: each module of
    operators.MODULES is registered by vart_addon, and every class it lists is an operator."""
    import vart_addon
    from vart_addon import operators
    assert {f"operators.{m}" for m in operators.MODULES} == \
        {m for m in vart_addon._SUBMODULES if m.startswith("operators.")}
    classes = operators.operator_classes()
    assert len(classes) == len({c.bl_idname for c in classes}) > 40
    for cls in classes:
        assert _op_exists(cls.bl_idname[5:]), cls.bl_idname
