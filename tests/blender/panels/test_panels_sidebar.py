"""The sidebar (real bpy, headless): registration, the joint list's rows and selection, the
live sliders, display units, and every panel's draw() run against a recording layout that
checks each call against Blender's own UILayout API (function names, keyword names, icons,
property and operator names).

Headless Blender has no UI regions, so a real UILayout cannot be made; the recording layout
stands in for it and validates every call through ``bpy.types.UILayout.bl_rna``.
"""
import importlib
import math
from types import SimpleNamespace

import bpy
import numpy as np
import pytest
from bpy.props import FloatVectorProperty

from vart_addon.bridge import schema
from vart_addon.panels import common as C
from vart_addon.panels import joints as PJ
from vart_addon.panels import live as L
from vart_addon.panels import rows as R
from vart_addon.panels import scene as PS
from vart_addon.solver.joint_types import CATALOG

PANELS = (PJ.VART_PT_joints, PJ.VART_PT_active_joint, PS.VART_PT_active_link,
          PS.VART_PT_solver, PS.VART_PT_scene)
CALLS: list = []


class VART_OT_operate_joint(bpy.types.Operator):
    """Test stand-in, registered only while the real operator is missing: stores the value
    (display units, 6 entries) into the active joint's q."""

    bl_idname = "vart.operate_joint"
    bl_label = "Operate Joint (test stand-in)"
    value: FloatVectorProperty(size=6)

    def execute(self, context):
        from vart_addon.shared import selection, units
        ob, name = selection.active_joint(context)
        jtype = selection.joint_type_of(context, name)
        q = units.to_internal(self.value, jtype, context.scene)
        schema.update_joint(ob, name, q=q)
        CALLS.append((name, tuple(self.value)))
        return {'FINISHED'}


@pytest.fixture(scope="module", autouse=True)
def addon():
    """The add-on as ``vart_addon.register()`` registers it (properties, operators, menus),
    plus the panels while they are not in its ``_SUBMODULES`` yet; a stand-in Operate Joint
    only if the real one is missing."""
    import vart_addon
    vart_addon.register()
    done = [vart_addon.unregister]
    if not C.has_operator("vart.operate_joint"):
        bpy.utils.register_class(VART_OT_operate_joint)
        done.append(lambda: bpy.utils.unregister_class(VART_OT_operate_joint))
    if "panels" not in vart_addon._SUBMODULES:
        panels = importlib.import_module("vart_addon.panels")
        panels.register()
        done.append(panels.unregister)
    yield
    for undo in reversed(done):
        undo()


@pytest.fixture(autouse=True)
def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    CALLS.clear()
    yield


def link(name, location=(0.0, 0.0, 0.0), mesh=False):
    data = bpy.data.meshes.new(name) if mesh else None
    ob = bpy.data.objects.new(name, data)
    ob.location = location
    bpy.context.scene.collection.objects.link(ob)
    schema.write_link(ob)
    return ob


def robot():
    """hip (world -> A, revolute), knee (A -> B), slide (B -> C, virtual prismatic), loop
    (C -> world, closure spherical, locked)."""
    a, b, c = link("A", mesh=True), link("B", (1, 0, 0)), link("C", (2, 0, 0))
    schema.write_joint(a, "hip", "revolute", None)
    schema.write_joint(b, "knee", "revolute", a, q=[0.3])
    schema.write_joint(c, "slide", "prismatic", b, virtual=True, q=[0.1])
    schema.write_joint(c, "loop", "spherical", None, tree=False, locked=True)
    bpy.context.view_layer.update()
    return a, b, c


def rows():
    return bpy.context.window_manager.vart_joint_rows


def scene_settings():
    return bpy.context.scene.vart


# ---- a layout that checks every call against Blender's UILayout -----------------------------
UIL = bpy.types.UILayout.bl_rna
ICONS = set(UIL.functions["prop"].parameters["icon"].enum_items.keys())
LAYOUT_MAKERS = {"row", "column", "box", "split", "column_flow", "grid_flow"}


class OpProps:
    """An operator button's properties: each one set is checked against the operator and
    kept in ``values``."""

    def __init__(self, idname):
        mod, _, name = idname.partition(".")
        object.__setattr__(self, "_rna", getattr(getattr(bpy.ops, mod), name).get_rna_type())
        object.__setattr__(self, "values", {})

    def __setattr__(self, key, value):
        prop = self._rna.properties.get(key)
        assert prop is not None, f"{self._rna.identifier} has no property {key!r}"
        if prop.type == 'ENUM':
            assert value in prop.enum_items.keys(), f"{key}={value!r} not in {prop.enum_items.keys()}"
        self.values[key] = value


class Rec:
    """Records layout calls; asserts they exist in UILayout with these keywords."""

    def __init__(self, log):
        object.__setattr__(self, "log", log)

    def __setattr__(self, name, value):
        assert name in UIL.properties.keys(), f"UILayout has no attribute {name!r}"

    def __getattr__(self, name):
        fn = UIL.functions.get(name)
        assert fn is not None, f"UILayout has no function {name!r}"
        params = list(fn.parameters.keys())

        def call(*args, **kw):
            out_params = {p.identifier for p in fn.parameters if p.is_output}
            names = [p for p in params if p not in out_params]
            bound = dict(zip(names, args))
            unknown = set(kw) - set(names)
            assert not unknown, f"UILayout.{name}() has no keyword {unknown}"
            bound.update(kw)
            if "icon" in bound:
                assert bound["icon"] in ICONS, f"unknown icon {bound['icon']!r}"
            self.log.append((name, bound))
            if name in LAYOUT_MAKERS:
                return Rec(self.log)
            if name == "prop":
                data, prop = bound["data"], bound["property"]
                assert prop in data.bl_rna.properties.keys(), f"{data} has no {prop!r}"
                getattr(data, prop)  # the getter runs
            if name == "template_list":
                assert hasattr(bpy.types, bound["listtype_name"])
                for d, p in (("dataptr", "propname"), ("active_dataptr", "active_propname")):
                    assert bound[p] in bound[d].bl_rna.properties.keys()
            if name in ("operator", "operator_menu_enum"):
                assert C.has_operator(bound["operator"]), bound["operator"]
                if name == "operator_menu_enum":
                    OpProps(bound["operator"])._rna.properties[bound["property"]]
                bound["_props"] = OpProps(bound["operator"])  # (what the panel sets on it)
                return bound["_props"]
            return None
        return call


def draw(panel, context=None):
    log = []
    panel.draw(SimpleNamespace(layout=Rec(log)), context or bpy.context)
    return log


def labels(log):
    return [b.get("text", "") for n, b in log if n == "label"]


def props(log):
    return [b["property"] for n, b in log if n == "prop"]


# ---- registration ---------------------------------------------------------------------------
def snapshot():
    return dict(types=sorted(dir(bpy.types)),
                wm=sorted(bpy.types.WindowManager.bl_rna.properties.keys()),
                scene=sorted(bpy.types.Scene.bl_rna.properties.keys()),
                handlers={h: [getattr(f, "__name__", "") for f in getattr(bpy.app.handlers, h)]
                          for h in ("depsgraph_update_post", "load_post")},
                timer=bpy.app.timers.is_registered(R._deferred_refresh))


def test_register_unregister_leaves_nothing_behind():
    panels = importlib.import_module("vart_addon.panels")
    panels.unregister()   # registered by the fixture (directly or through vart_addon)
    before = snapshot()
    assert "VART_PT_joints" not in before["types"] and "vart_joint_rows" not in before["wm"]
    panels.register()
    during = snapshot()
    for cls in PANELS + (PJ.VART_UL_joints,):
        assert cls.__name__ in during["types"]
        assert cls.bl_category == "Vart" if hasattr(cls, "bl_category") else True
    assert "vart_joint_rows" in during["wm"] and "vart_live" in during["scene"]
    assert "on_depsgraph_update" in during["handlers"]["depsgraph_update_post"]
    draw(PJ.VART_PT_joints)  # may schedule the refresh timer
    panels.unregister()
    assert snapshot() == before
    panels.register()


def test_panels_live_in_the_vart_tab_of_the_sidebar_and_poll_on_scene_settings():
    for cls in PANELS:
        assert (cls.bl_space_type, cls.bl_region_type, cls.bl_category) == \
            ('VIEW_3D', 'UI', 'Vart')
        assert cls.poll(bpy.context)
        assert not cls.poll(SimpleNamespace(scene=SimpleNamespace()))
    assert [c.bl_order for c in PANELS] == sorted(c.bl_order for c in PANELS)


# ---- rows -----------------------------------------------------------------------------------
def test_rows_mirror_the_joints_written_through_the_bridge():
    robot()  # its view_layer.update() ran the depsgraph handler: the rows are there
    assert not R.refresh(bpy.context.scene)
    got = {r.name: (r.jtype, r.parent, r.child, r.dof, r.virtual, r.tree, r.locked, r.error)
           for r in rows()}
    assert got == {
        "hip": ("revolute", "", "A", 1, False, True, False, ""),
        "knee": ("revolute", "A", "B", 1, False, True, False, ""),
        "loop": ("spherical", "", "C", 3, False, False, True, ""),
        "slide": ("prismatic", "B", "C", 1, True, True, False, ""),
    }


def test_rows_rebuild_only_when_the_structure_changes():
    a, b, c = robot()
    scene = bpy.context.scene
    R.refresh(scene)
    assert not R.refresh(scene)
    schema.update_joint(b, "knee", q=[1.2])           # a float: a slider, a solve
    b.location.x += 0.5
    assert not R.refresh(scene)
    schema.update_joint(b, "knee", locked=True)       # a flag
    assert R.refresh(scene)
    assert next(r for r in rows() if r.name == "knee").locked
    a.name = "Thigh"                                   # a rename follows the pointer
    assert R.refresh(scene)
    assert next(r for r in rows() if r.name == "knee").parent == "Thigh"
    schema.remove_joint(c, "slide")
    assert R.refresh(scene) and "slide" not in [r.name for r in rows()]


def test_bad_data_shows_as_an_error_row_and_the_rest_stays():
    a, b, c = robot()
    b["vart"]["joints"]["knee"]["type"] = "hinge"
    R.refresh(bpy.context.scene)
    bad = [r for r in rows() if r.error]
    assert [r.child for r in bad] == ["B"] and "hinge" in bad[0].error
    assert {r.name for r in rows() if not r.error} == {"hip", "slide", "loop"}
    log = []
    for i, r in enumerate(rows()):
        PJ.VART_UL_joints.draw_item(SimpleNamespace(layout_type='DEFAULT'), bpy.context,
                                    Rec(log), bpy.context.window_manager, r, 0,
                                    scene_settings(), "joint_index", i)
    assert "B: bad data" in labels(log)


def test_the_depsgraph_handler_and_file_load_keep_the_rows_in_sync():
    a, b, c = robot()
    R.refresh(bpy.context.scene)
    schema.write_joint(c, "extra", "cylindrical", a, virtual=True)
    c.location.z += 1.0                      # any depsgraph update refreshes
    bpy.context.view_layer.update()
    assert "extra" in [r.name for r in rows()]
    bpy.ops.wm.read_factory_settings(use_empty=True)   # load_post: the new file's (no) joints
    assert len(rows()) == 0


def test_draw_schedules_a_refresh_when_stale_and_writes_nothing():
    robot()
    R.refresh(bpy.context.scene)
    schema.write_joint(bpy.data.objects["B"], "extra", "fixed", None)
    n = len(rows())
    draw(PJ.VART_PT_joints)
    assert len(rows()) == n, "draw() does not write"
    assert bpy.app.timers.is_registered(R._deferred_refresh)
    R._deferred_refresh()   # what the timer does (timers do not run headless)
    bpy.app.timers.unregister(R._deferred_refresh)
    assert len(rows()) == n + 1


def test_clicking_a_row_sets_the_active_joint_and_the_index_follows_it():
    robot()
    scene, sv, wm = bpy.context.scene, scene_settings(), bpy.context.window_manager
    R.refresh(scene)
    names = [r.name for r in rows()]
    sv.joint_index = names.index("slide")          # the user clicks a row
    R.reconcile_selection(scene, wm)
    assert sv.active_joint == "slide"
    sv.active_joint = "knee"                       # an operator makes a joint active
    R.reconcile_selection(scene, wm)
    assert names[sv.joint_index] == "knee"
    schema.write_joint(bpy.data.objects["A"], "aa_first", "fixed", None)  # rows re-ordered
    R.refresh(scene)
    assert rows()[sv.joint_index].name == "knee" and sv.active_joint == "knee"


def test_the_list_filter_shows_the_joints_of_the_selected_links():
    a, b, c = robot()
    R.refresh(bpy.context.scene)
    ul = SimpleNamespace(filter_name="", bitflag_filter_item=1 << 30, filter_selected=True,
                         use_filter_invert=False)
    wm = bpy.context.window_manager

    def shown():
        flags, order = PJ.VART_UL_joints.filter_items(ul, bpy.context, wm, "vart_joint_rows")
        assert order == []
        return {r.name for r, f in zip(rows(), flags) if f}

    assert shown() == {"hip", "knee", "slide", "loop"}, "nothing selected: everything"
    b.select_set(True)
    assert shown() == {"knee", "slide"}
    ul.filter_selected = False
    assert len(shown()) == 4
    ul.filter_name = "lo"
    assert shown() == {"loop"}
    rna = PJ.VART_UL_joints.bl_rna.properties.keys()
    assert {"filter_name", "use_filter_invert", "filter_selected"} <= set(rna)


def test_list_items_show_type_parent_child_and_flags():
    robot()
    R.refresh(bpy.context.scene)
    log = []
    for i, r in enumerate(rows()):
        PJ.VART_UL_joints.draw_item(SimpleNamespace(layout_type='DEFAULT'), bpy.context,
                                    Rec(log), bpy.context.window_manager, r, 0,
                                    scene_settings(), "joint_index", i)
    text = labels(log)
    assert "World \u2192 A" in text and "A \u2192 B" in text and "B \u2192 C" in text
    icons = [b.get("icon") for n, b in log if n == "label"]
    assert 'GHOST_ENABLED' in icons and 'LINKED' in icons and 'LOCKED' in icons
    assert C.type_icon("revolute") in icons and C.type_icon("spherical") in icons


# ---- panels' draw() -------------------------------------------------------------------------
def test_every_panel_draws_on_an_empty_scene():
    for panel in PANELS:
        draw(panel)
    assert "No active joint: pick one in the list" in labels(draw(PJ.VART_PT_active_joint))
    assert "Not solved yet" in labels(draw(PS.VART_PT_solver))
    assert props(draw(PS.VART_PT_scene)) == ["gravity_enabled", "gravity", "overlay_enabled"]


def test_the_will_it_run_panel_replays_at_its_timing():
    """Replay in MuJoCo gets the scene's Timing beside it, and the acceleration limits the
    peaks list reads (the limits a re-timed export is given)."""
    from vart_addon.panels import checks as PC
    sv = scene_settings()
    sv.replay_timing, sv.plot_acceleration_limit = 'TOPPRA', 2.0
    sv.plot_linear_acceleration_limit = 0.5
    log = draw(PC.VART_PT_checks)
    (button,) = [b["_props"] for n, b in log if n == "operator"
                 and b["operator"] == "vart.replay_physics"]
    assert button.values == {"retime": 'TOPPRA', "acceleration_limit": 2.0,
                             "linear_acceleration_limit": 0.5}
    assert "replay_timing" in props(log)


@pytest.mark.parametrize("jtype", list(CATALOG))
def test_active_joint_panel_has_one_slider_per_dof_in_display_units(jtype):
    a = link("A")
    schema.write_joint(a, "j", jtype, None, lower=[-1.0] * CATALOG[jtype].dof,
                       posture_q=[0.1] * CATALOG[jtype].dof)
    scene_settings().active_joint = "j"
    log = draw(PJ.VART_PT_active_joint)
    sliders = props(log)
    ang = CATALOG[jtype].is_angular()
    assert sliders == [L.dof_prop_name(i, a_) for i, a_ in enumerate(ang)]
    for i, a_ in enumerate(ang):
        prop = bpy.types.Scene.bl_rna.properties["vart_live"].fixed_type.properties[sliders[i]]
        assert prop.subtype == ('ANGLE' if a_ else 'DISTANCE')
    text = " ".join(labels(log))
    if not len(ang):
        assert "A fixed joint has no value to operate" in text
        return
    assert "Posture:" in text and "Target: none" in text
    lower = C.fmt(-1.0, ang[0], bpy.context.scene)
    assert lower in ("-57.3\u00b0", "-1 m")
    assert f"Limits: {lower} .. \u221e" in text
    schema.update_joint(a, "j", lower=[-float("inf")] * CATALOG[jtype].dof)
    assert "Limits: " + ", ".join(["free"] * CATALOG[jtype].dof) in labels(
        draw(PJ.VART_PT_active_joint))


def test_active_joint_and_link_panels_show_goals_and_link_fields():
    a, b, c = robot()
    schema.update_link(b, mass=2.5, com=(0.1, 0.0, 0.0))
    schema.update_joint(b, "knee", stiffness=3.0, target_q=(0.5,), target_mask=(True,))
    sv = scene_settings()
    sv.active_joint = "knee"
    text = labels(draw(PJ.VART_PT_active_joint))
    assert "A \u2192 B" in text and "real, tree" in text
    assert any(t.startswith("Target: 28.65") for t in text), text
    assert any(t.startswith("Spring: 3 N\u00b7m/rad, rest 17.19") for t in text), text
    sv.active_joint = "loop"
    assert "real, closure" in labels(draw(PJ.VART_PT_active_joint))
    bpy.context.view_layer.objects.active = b
    log = draw(PS.VART_PT_active_link)
    assert props(log) == ["mass", "com"]
    assert "Look At: none" in labels(log)  # a row per link goal kind, from its declaration
    schema.update_link(b, look_at=True, look_at_axis=(0.0, 0.0, -1.0),
                       look_at_point=(2.0, 1.0, 0.5))
    log = draw(PS.VART_PT_active_link)
    assert "Look At: (0, 0, -1), point (2, 1, 0.5) m" in labels(log), labels(log)
    buttons = [b_.get("operator") for n, b_ in log if n == "operator"]
    assert {"vart.lock", "vart.set_look_at", "vart.clear_look_at"} <= set(buttons), buttons
    assert {"Balance: none", "CoM Target: none", "CoM Over: none"} <= set(labels(log))
    schema.update_link(b, balance=True, balance_margin=0.03, com_over=True,
                       com_over_point=(0.5, -0.25, 0.0))
    text = labels(draw(PS.VART_PT_active_link))
    assert "Balance: 0.03 m, level limit" in text, text
    assert "CoM Over: (0.5, -0.25, 0) m, level target" in text, text
    assert {"vart.set_balance", "vart.clear_balance", "vart.set_com_over"} <= set(
        b_.get("operator") for n, b_ in draw(PS.VART_PT_active_link) if n == "operator")
    assert bpy.context.scene.vart_live.mass == pytest.approx(2.5)
    assert tuple(bpy.context.scene.vart_live.com) == pytest.approx((0.1, 0.0, 0.0))
    plain = bpy.data.objects.new("Plain", None)
    bpy.context.scene.collection.objects.link(plain)
    bpy.context.view_layer.objects.active = plain
    assert "Plain is not a link" in labels(draw(PS.VART_PT_active_link))
    b["vart"]["link"]["mass"] = "heavy"
    bpy.context.view_layer.objects.active = b
    assert "B: bad data" in labels(draw(PS.VART_PT_active_link))
    assert bpy.context.scene.vart_live.mass == 0.0


def test_solver_panel_shows_the_last_status_per_level():
    sv = scene_settings()
    sv.status_summary = "Unmet: drag (12 iterations, 3.1 ms)"
    for name, err, ok, unmet in (("invariant", 1e-12, True, ""), ("target", 0.2, False, "drag")):
        lv = sv.status_levels.add()
        lv.name, lv.error, lv.satisfied, lv.unmet, lv.iterations, lv.ms = name, err, ok, unmet, 12, 3.1
    log = draw(PS.VART_PT_solver)
    assert props(log) == ["max_iterations", "time_budget_ms", "damping"]
    text = labels(log)
    assert text[0].startswith("Unmet: drag")
    assert "target: error 0.2, 12 it, 3.1 ms" in text and "   unmet: drag" in text
    icons = [b["icon"] for n, b in log if n == "label"]
    assert icons.count('ERROR') == 1 and icons.count('CHECKMARK') == 1


# ---- live sliders ---------------------------------------------------------------------------
def test_a_slider_shows_the_joint_value_and_dragging_it_operates_the_joint():
    a, b = link("A"), link("B", (1, 0, 0))
    schema.write_joint(a, "hip", "revolute", None)
    schema.write_joint(b, "slide", "prismatic", a, T_parent_mob=np.eye(4), q=[0.25])
    bpy.context.view_layer.update()
    ui, sv = bpy.context.scene.vart_live, scene_settings()
    sv.active_joint = "slide"
    assert ui.len0 == pytest.approx(0.25)
    ui.len0 = 0.5
    assert schema.read_object(b)[1][0].q[0] == pytest.approx(0.5, abs=1e-6)
    sv.active_joint = "hip"
    bpy.context.scene.unit_settings.system_rotation = 'DEGREES'
    ui.ang0 = math.radians(30)
    assert schema.read_object(a)[1][0].q[0] == pytest.approx(math.radians(30), abs=1e-6)
    bpy.context.scene.unit_settings.system_rotation = 'RADIANS'
    ui.ang0 = 0.2
    assert schema.read_object(a)[1][0].q[0] == pytest.approx(0.2, abs=1e-6)
    assert ui.ang0 == pytest.approx(0.2, abs=1e-6)
    if CALLS:  # the stand-in saw display units: degrees, then radians
        assert CALLS[1][1][0] == pytest.approx(30.0) and CALLS[2][1][0] == pytest.approx(0.2)


def test_sliders_without_an_active_joint_are_inert():
    robot()
    ui = bpy.context.scene.vart_live
    assert ui.ang0 == 0.0
    ui.ang0 = 1.0
    assert not CALLS
    scene_settings().active_joint = "knee"
    assert ui.ang3 == 0.0, "beyond the joint's DoF"


def test_link_mass_and_centre_of_mass_write_through_the_bridge():
    a, b, c = robot()
    bpy.context.view_layer.objects.active = b
    ui = bpy.context.scene.vart_live
    ui.mass = 4.0
    ui.com = (0.0, 0.2, -0.1)
    link_data = schema.read_object(b)[0]
    assert link_data.mass == 4.0 and link_data.com == (0.0, 0.2, -0.1), "as typed"
    assert isinstance(b["vart"]["link"]["mass"], float)
    ui.mass = -1.0                                  # the bridge refuses, nothing changes
    assert schema.read_object(b)[0].mass == 4.0


# ---- display units --------------------------------------------------------------------------
def test_values_are_formatted_in_the_scene_units():
    scene = bpy.context.scene
    us = scene.unit_settings
    assert C.fmt(math.pi / 2, True, scene) == "90\u00b0"
    us.system_rotation = 'RADIANS'
    assert C.fmt(0.5, True, scene) == "0.5 rad"
    us.system = 'METRIC'
    assert C.fmt(0.25, False, scene).replace(" ", "") in ("25cm", "0.25m")
    us.system = 'IMPERIAL'
    assert "'" in C.fmt(1.0, False, scene) or "ft" in C.fmt(1.0, False, scene) \
        or '"' in C.fmt(1.0, False, scene)
    us.system = 'NONE'
    assert C.fmt(0.25, False, scene) == "0.25"
    assert C.fmt(float("inf"), False, scene) == "\u221e"
    assert C.fmt(-float("inf"), True, scene) == "-\u221e"


def test_sublinkages_panel_lists_each_with_its_disposition_editable_in_place():
    from vart_addon.bridge import sublinkages as SL
    from vart_addon.panels import sublinkages as PSL
    a, b, c = robot()
    assert "No sublinkage: each is a collection" in labels(draw(PSL.VART_PT_sublinkages))
    outer = bpy.data.collections.new("Legs")
    bpy.context.scene.collection.children.link(outer)
    inner = bpy.data.collections.new("Knee")
    outer.children.link(inner)
    SL.write_disposition(outer, "driving")
    SL.write_disposition(inner, "driven")
    inner.objects.link(b)
    bpy.context.scene.collection.objects.unlink(b)
    bpy.context.view_layer.objects.active = b
    log = draw(PSL.VART_PT_sublinkages)
    assert labels(log)[:1] == ["B is in sublinkage Knee"]
    assert "Legs (0)" in labels(log) and "Knee (1)" in labels(log)
    assert props(log) == ["vart_disposition", "vart_disposition"]
    assert [b_["factor"] for n, b_ in log if n == "separator"] == [0.0, 1.5]  # nested
    assert inner.vart_disposition == "driven"
    inner.vart_disposition = "simultaneous"  # the sidebar's field writes the collection
    assert SL.disposition_of(inner) == "simultaneous"
    plain = bpy.data.collections.new("Plain")
    plain.vart_disposition = "driven"  # not a sublinkage: the field does not make one
    assert SL.disposition_of(plain) is None


def test_tool_panel_lists_the_waypoints_with_their_moves():
    from vart_addon.bridge import tools as TL
    from vart_addon.panels import tools as PT
    a, b, c = robot()
    bpy.context.view_layer.objects.active = b
    log = draw(PT.VART_PT_tool)
    assert "B is not a tool" in labels(log)
    assert {"vart.mark_tool", "vart.add_tool"} <= {x.get("operator") for n, x in log
                                                   if n == "operator"}
    TL.set_tool(b)
    assert "No waypoints: pose the tool, then key one" in labels(draw(PT.VART_PT_tool))
    TL.key_waypoint(b, 1, np.eye(4), "LINEAR", False)
    TL.key_waypoint(b, 12, np.eye(4), "JOINT", True)
    log = draw(PT.VART_PT_tool)
    assert {"Tool: B", "start"} <= set(labels(log)), labels(log)
    assert [(x.get("text"), x.get("icon")) for n, x in log if n == "operator"
            and x.get("operator") == "vart.go_to_waypoint"] == [("1", "LAYER_ACTIVE"),
                                                                  ("12", "LAYER_USED")]
    moves = [(x.get("text"), x.get("depress")) for n, x in log
             if n == "operator" and x.get("operator") == "vart.set_waypoint_move"]
    assert ("Joint", True) in moves and ("Linear", False) in moves, moves
    b["vart_move"] = 5.0
    from vart_addon.bridge import animation as A
    A.fcurve_map(b)[('["vart_move"]', 0)].keyframe_points[1].co.y = 5.0
    assert any("frame 12: 5.0 is not a move" in t for t in labels(draw(PT.VART_PT_tool)))


def test_arm_panel_lists_the_solutions_found_with_preview_and_apply():
    """The Arm Configurations panel (panels/arms.py): Find Solutions for the active link,
    the list kept for it (a row: branch, distance, manipulability) with Preview and Apply;
    the Active Link panel's Keep Configuration row comes from its goal kind's declaration."""
    from vart_addon.operators import arms
    from vart_addon.panels import arms as PA
    from vart_addon.solver.arm_solutions import Solution

    def buttons(log):
        return {x.get("operator") for n, x in log if n == "operator"}
    a, b, c = robot()
    bpy.context.view_layer.objects.active = c
    assert buttons(draw(PA.VART_PT_arm)) == {"vart.find_solutions"}
    arms.store(bpy.context.scene.vart_arm, "C", [
        Solution(("hip", "knee"), np.array([0.1, 0.2]), (1,), "elbow up", 0.25, 0.0),
        Solution(("hip", "knee"), np.array([0.3, -0.2]), (-1,), "elbow down", 0.125, 1.5)])
    log = draw(PA.VART_PT_arm)
    assert "Found 2 (there may be more): distance, manipulability" in labels(log)
    assert [x["listtype_name"] for n, x in log if n == "template_list"] == \
        ["VART_UL_arm_solutions"]
    assert {"vart.preview_solution", "vart.apply_solution"} <= buttons(log)
    rows = bpy.context.scene.vart_arm.solutions
    assert [(r.name, r.branch, r.current) for r in rows] == [("elbow up", "+1", True),
                                                              ("elbow down", "-1", False)]
    row = []
    PA.VART_UL_arm_solutions.draw_item(None, bpy.context, Rec(row), None, rows[1], 0, None, "")
    assert labels(row) == ["elbow down", "1.50", "0.125"]
    bpy.context.view_layer.objects.active = b  # the list is C's
    assert buttons(draw(PA.VART_PT_arm)) == {"vart.find_solutions"}
    log = draw(PS.VART_PT_active_link)
    assert "Keep Configuration: none" in labels(log)
    assert {"vart.set_keep_configuration", "vart.clear_keep_configuration"} <= buttons(log)
    schema.update_link(b, keep_configuration=True,
                       keep_configuration_branch=(-1.0, 1.0, -1.0) + (0.0,) * 5)
    text = labels(draw(PS.VART_PT_active_link))
    assert "Keep Configuration: - + -, margin 0.05, level limit" in text, text
