"""Export Trajectory and Import Trajectory operators, their File menu entries, the animation
operators in the Object > Vart menu, and the sidebar's Animation panel (real bpy, headless:
menus and panels draw into a recording layout that checks every call against Blender's own
UILayout API)."""
from __future__ import annotations

import math
import os
from types import SimpleNamespace

import bpy
import numpy as np
import pytest

from repo_paths import DATA
from vart_addon.animation import bake as BK
from vart_addon.bridge import animation as A
from vart_addon.bridge import schema as S
from vart_addon.formats.trajectory.files import parse_json
from vart_addon.io_trajectory import read_trajectory  # noqa: E402
from vart_addon.io_urdf.importer import import_urdf
from vart_addon.solver import Settings

ARM6 = DATA / "arm6" / "arm6.urdf"
TIGHT = Settings(tol=1e-10, max_iterations=200)


def child_of(joint):
    for ob in bpy.context.scene.objects:
        g = ob.get("vart")
        if g is not None and joint in g.get("joints", {}):
            return ob
    raise KeyError(joint)


def key(joint, frames, values):
    fc = A.ensure_fcurve(child_of(joint), S.q_data_path(joint), 0, "Vart")
    A.write_keys(fc, frames, values)
    return fc


def arm(frames=13, bake=True):
    import_urdf(ARM6, fixed_base=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    key("shoulder_pan", [1, frames], [0.0, 0.6])
    key("elbow", [1, frames], [0.0, -0.5])
    if bake:
        assert BK.bake(scene, 1, frames, settings=TIGHT).unmet == {}


def fcurve_keys():
    return {ob.name: sorted((fc.data_path, fc.array_index,
                             tuple(tuple(k.co) for k in fc.keyframe_points))
                            for fc in A.fcurves_of(ob)) for ob in bpy.data.objects}


# ---- registration -----------------------------------------------------------------------------
def test_the_operators_are_registered_with_their_properties(vart_registered):
    from vart_addon.operators import trajectory as OT
    for cls in OT.classes:
        rna = getattr(bpy.ops.vart, cls.bl_idname.split(".")[1]).get_rna_type()
        assert rna.description == cls.bl_description and cls.bl_description
        declared = {}
        for base in reversed(cls.__mro__):
            declared.update(getattr(base, "__annotations__", {}))
        assert set(declared) <= set(rna.properties.keys()), cls.bl_idname
    ex = bpy.ops.vart.export_trajectory.get_rna_type().properties
    assert [i.identifier for i in ex["file_format"].enum_items] == ["CSV", "JSON", "PATH",
                                                                     "GOAL"]
    assert ex["angle_step"].subtype == 'ANGLE'
    assert ex["angle_step"].default == pytest.approx(math.radians(2.0))
    assert ex["length_step"].default == pytest.approx(0.02)
    assert (ex["include_virtual"].default, ex["every_frame"].default,
            ex["refuse_violations"].default) == (False, False, False)
    im = bpy.ops.vart.import_trajectory.get_rna_type().properties
    assert im["bake"].default is True and "start_frame" in im.keys()
    assert OT.VART_OT_import_trajectory.bl_options >= {'REGISTER', 'UNDO'}


def test_the_export_dialog_draws_every_option_once_timing_after_the_waypoints(
        vart_registered):
    """Export Trajectory's own draw() (its Timing options come from a mixin shared with
    Replay in MuJoCo, which Blender would list first): every option but the file browser's
    own, each once, Timing and its limits after the waypoints' options."""
    from vart_addon.operators import trajectory as OT
    rna = bpy.ops.vart.export_trajectory.get_rna_type().properties
    options = set(rna.keys()) - {"rna_type", "filepath", "check_existing", "filter_glob"}
    drawn: list = []
    layout = SimpleNamespace(prop=lambda data, name, **kw: drawn.append(name))
    cls = OT.VART_OT_export_trajectory
    cls.draw(SimpleNamespace(layout=layout, DRAWN=cls.DRAWN), bpy.context)
    assert sorted(drawn) == sorted(options) and len(drawn) == len(set(drawn))
    assert drawn.index("retime") == drawn.index("derivatives") + 1
    replay = bpy.ops.vart.replay_physics.get_rna_type().properties
    for name in ("retime", "velocity_limit", "linear_velocity_limit", "acceleration_limit",
                 "linear_acceleration_limit"):
        a, b = replay[name], rna[name]
        assert (a.type, a.subtype, a.default, a.description) == \
            (b.type, b.subtype, b.default, b.description)


def test_no_keymap_and_nothing_left_after_unregister(vart_registered):
    kc = bpy.context.window_manager.keyconfigs.addon
    if kc is not None:  # none in background mode
        assert not [kmi for km in kc.keymaps for kmi in km.keymap_items
                    if kmi.idname.startswith("vart.")]
    vart_registered.unregister()
    assert not hasattr(bpy.ops.vart, "export_trajectory") or \
        not _registered("vart.export_trajectory")
    assert not hasattr(bpy.types, "VART_PT_animation")
    vart_registered.register()
    assert _registered("vart.import_trajectory") and hasattr(bpy.types, "VART_PT_animation")


def _registered(idname):
    from vart_addon.panels.common import has_operator
    return has_operator(idname)


# ---- export operator --------------------------------------------------------------------------
def test_export_writes_the_format_of_the_extension_over_the_scene_range(vart_registered,
                                                                       tmp_path, capsys):
    arm()
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    out = tmp_path / "m.json"
    assert bpy.ops.vart.export_trajectory(filepath=str(out), every_frame=True) == {'FINISHED'}
    traj = parse_json(out.read_text())  # the extension chose JSON (the format said CSV)
    assert traj.n_times == 13 and traj.times[-1] == pytest.approx(12 / fps)
    assert "exported 13 waypoints of 9 joint values (frames 1-13)" in \
        "".join(capsys.readouterr())
    # no extension: the format's is added; an explicit range and steps are used
    assert bpy.ops.vart.export_trajectory(filepath=str(tmp_path / "m"), file_format='PATH',
                                          frame_start=3, frame_end=9,
                                          angle_step=math.radians(10)) == {'FINISHED'}
    got = read_trajectory(tmp_path / "m.path", scene)  # the robot's Klampt configurations
    got = got.columns([got.joint_names.index(n) for n in traj.joint_names])
    assert got.times[0] == 0.0 and got.times[-1] == pytest.approx(6 / fps)
    assert 2 <= got.n_times < 7
    pan = traj.joint_names.index("shoulder_pan")
    np.testing.assert_allclose(got.positions[0, pan], 0.6 * 2 / 12, atol=1e-6)


def test_export_check_follows_the_typed_extension():
    from bpy_extras.io_utils import ExportHelper

    from vart_addon.formats.trajectory.files import BY_ID
    from vart_addon.operators.trajectory import VART_OT_export_trajectory as E

    class Fake:
        check_extension = True
        filename_ext = property(lambda self: BY_ID[self.file_format].extension)

        def __init__(self, path, fmt):
            self.filepath, self.file_format = path, fmt
    assert issubclass(E, ExportHelper)
    op = Fake("/tmp/run.path", 'CSV')
    assert E.check(op, None) and (op.file_format, op.filepath) == ('PATH', "/tmp/run.path")
    op = Fake("/tmp/run", 'JSON')
    assert E.check(op, None) and op.filepath == "/tmp/run.json"
    op = Fake("/tmp/run.csv", 'CSV')
    assert not E.check(op, None) and op.filepath == "/tmp/run.csv"


def test_export_warns_about_limit_violations_and_still_writes(vart_registered, tmp_path,
                                                             capsys):
    arm(bake=False)
    key("elbow", [1, 13], [2.0, 3.0])
    out = tmp_path / "over.csv"
    # the motion is keyed on the real joints themselves: nothing to bake
    assert bpy.ops.vart.export_trajectory(filepath=str(out), require_bake=False) == {'FINISHED'}
    assert out.is_file()
    text = "".join(capsys.readouterr())
    assert "Warning: exported 13 waypoints" in text and "limits exceeded by 1 joint " in text
    assert "elbow: position above 2.6 rad at t=" in text
    out.write_text("kept")
    with pytest.raises(RuntimeError, match="not exported: 5 limit violations: elbow"):
        bpy.ops.vart.export_trajectory(filepath=str(out), refuse_violations=True,
                                       require_bake=False)
    assert out.read_text() == "kept"


def test_export_refusals_are_errors_and_write_nothing(vart_registered, tmp_path):
    scene = bpy.context.scene
    out = tmp_path / "x.csv"
    out.write_text("old")
    with pytest.raises(RuntimeError, match="nothing to export: the scene has no links"):
        bpy.ops.vart.export_trajectory(filepath=str(out))
    arm(bake=False)
    with pytest.raises(RuntimeError, match="empty frame range"):
        bpy.ops.vart.export_trajectory(filepath=str(out), frame_start=9, frame_end=2)
    with pytest.raises(RuntimeError, match="frames 1-13 of 1-13 are not baked.*Bake Range"):
        bpy.ops.vart.export_trajectory(filepath=str(out))
    with pytest.raises(RuntimeError, match="cannot write trajectory"):
        bpy.ops.vart.export_trajectory(filepath=str(tmp_path / "no" / "x.csv"),
                                       require_bake=False)
    with pytest.raises(RuntimeError, match="choose a file"):
        bpy.ops.vart.export_trajectory(filepath=str(tmp_path))
    assert out.read_text() == "old" and sorted(os.listdir(tmp_path)) == ["x.csv"]
    assert scene.frame_current == 1


# ---- import operator --------------------------------------------------------------------------
def test_import_keys_bakes_and_stores_the_bake_status(vart_registered, tmp_path, capsys):
    arm()
    scene = bpy.context.scene
    out = tmp_path / "m.csv"
    assert bpy.ops.vart.export_trajectory(filepath=str(out), every_frame=True) == {'FINISHED'}
    for ob in scene.objects:
        ob.animation_data_clear()
    scene.frame_start = 4  # the default start frame
    assert bpy.ops.vart.import_trajectory(filepath=str(out)) == {'FINISHED'}
    fc = A.find_fcurve(child_of("elbow"), S.q_data_path("elbow"), 0)
    assert [k.co[0] for k in fc.keyframe_points] == pytest.approx(list(range(4, 17)))
    assert fc.keyframe_points[-1].co[1] == pytest.approx(-0.5, abs=1e-6)
    assert scene.vart.bake_summary.startswith("Baked frames 4-16 (13 frames")
    text = "".join(capsys.readouterr())
    assert "Imported m.csv: 13 waypoints" in text
    assert "mimic joints follow the solve" in text  # the fingers' followers
    # links got keys too
    assert A.find_fcurve(bpy.data.objects["forearm"], "location", 0) is not None
    assert bpy.ops.vart.import_trajectory(filepath=str(out), start_frame=30,
                                          bake=False) == {'FINISHED'}
    assert [k.co[0] for k in fc.keyframe_points][-1] == pytest.approx(42)
    assert scene.vart.bake_summary.startswith("Baked frames 4-16")


def test_import_refusals_are_errors_and_change_nothing(vart_registered, tmp_path):
    arm()
    bad = tmp_path / "ghost.csv"
    bad.write_text("time_s,ghost [rad]\n0,1\n1,2\n")
    before = fcurve_keys()
    with pytest.raises(RuntimeError, match="nothing to import"):
        bpy.ops.vart.import_trajectory(filepath=str(bad))
    with pytest.raises(RuntimeError, match="cannot read trajectory"):
        bpy.ops.vart.import_trajectory(filepath=str(tmp_path / "none.csv"))
    with pytest.raises(RuntimeError, match="choose a trajectory file"):
        bpy.ops.vart.import_trajectory(filepath=str(tmp_path))
    # fixed defect (issue 35): a field over the csv module's limit escaped as _csv.Error
    long = tmp_path / "long.csv"
    long.write_text("time_s,elbow [rad]\n0," + "1" * 140_000 + "\n")
    with pytest.raises(RuntimeError, match=r"long.csv: line 2, column 'elbow \[rad\]': longer "
                       r"than 131,072 characters"):
        bpy.ops.vart.import_trajectory(filepath=str(long))
    assert fcurve_keys() == before


# ---- menus ------------------------------------------------------------------------------------
class MenuLayout:
    def __init__(self):
        self.ops = []

    def operator(self, idname, **kw):
        self.ops.append(idname)
        return SimpleNamespace()

    def __getattr__(self, name):
        return lambda *a, **kw: self


def test_file_menus_have_the_trajectory_entries(vart_registered):
    from vart_addon.io_trajectory import menus as io_menus
    for op in io_menus.TRAJECTORY_OPERATORS:
        assert _registered(f"vart.{op}")
    lay = MenuLayout()
    io_menus.draw_import(SimpleNamespace(layout=lay), bpy.context)
    assert "vart.import_trajectory" in lay.ops
    lay = MenuLayout()
    io_menus.draw_export(SimpleNamespace(layout=lay), bpy.context)
    assert "vart.export_trajectory" in lay.ops
    assert io_menus.draw_import in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize()
    assert io_menus.draw_export in bpy.types.TOPBAR_MT_file_export._dyn_ui_initialize()


def test_the_vart_menu_has_the_animation_operators(vart_registered):
    from vart_addon import menus
    lay = MenuLayout()
    menus.VART_MT_object.draw(SimpleNamespace(layout=lay), bpy.context)
    for op in ("drag", "operate_joint_modal", "key_pose", "bake"):
        assert f"vart.{op}" in lay.ops and op in menus.menu_operators()
        assert _registered(f"vart.{op}")


# ---- the Animation panel ----------------------------------------------------------------------
UIL = bpy.types.UILayout.bl_rna
ICONS = set(UIL.functions["prop"].parameters["icon"].enum_items.keys())


class Rec:
    """A layout that records calls and checks them against UILayout's RNA."""

    def __init__(self, log):
        object.__setattr__(self, "log", log)

    def __setattr__(self, name, value):
        assert name in UIL.properties.keys(), name

    def __getattr__(self, name):
        fn = UIL.functions.get(name)
        assert fn is not None, f"UILayout has no function {name!r}"
        names = [p.identifier for p in fn.parameters if not p.is_output]

        def call(*args, **kw):
            bound = dict(zip(names, args))
            assert not set(kw) - set(names), f"{name}(): unknown keywords {set(kw) - set(names)}"
            bound.update(kw)
            if "icon" in bound:
                assert bound["icon"] in ICONS, bound["icon"]
            self.log.append((name, bound))
            if name in ("row", "column", "box", "split"):
                return Rec(self.log)
            if name == "prop":
                assert bound["property"] in bound["data"].bl_rna.properties.keys()
            if name == "operator":
                assert _registered(bound["operator"]), bound["operator"]
                return SimpleNamespace()
            return None
        return call


def draw_panel():
    from vart_addon.panels.animation import VART_PT_animation
    log = []
    VART_PT_animation.draw(SimpleNamespace(layout=Rec(log)), bpy.context)
    return log


def test_the_animation_panel_draws_its_buttons_and_the_last_bake(vart_registered):
    from vart_addon.panels import common as C
    from vart_addon.panels.animation import VART_PT_animation, bake_lines
    assert hasattr(bpy.types, "VART_PT_animation")
    assert (VART_PT_animation.bl_space_type, VART_PT_animation.bl_region_type,
            VART_PT_animation.bl_category) == ('VIEW_3D', 'UI', 'Vart')
    assert VART_PT_animation.poll(bpy.context)
    log = draw_panel()
    ops = [b["operator"] for n, b in log if n == "operator"]
    assert ops == ["vart.drag", "vart.operate_joint_modal", "vart.key_joint", "vart.key_pose",
                   "vart.bake",
                   "vart.export_trajectory", "vart.import_trajectory"]
    assert [b["property"] for n, b in log if n == "prop"] == ["frame_start", "frame_end",
                                                             "check_after_bake", "live"]
    assert ("label", {"text": "Not baked yet"}) in log
    arm(bake=False)
    scene = bpy.context.scene
    assert bpy.ops.vart.bake() == {'FINISHED'}
    labels = [b["text"] for n, b in draw_panel() if n == "label"]
    assert labels[0].startswith("Baked frames 1-13 (13 frames")
    unmet = ("Baked frames 1-5 (5 frames, 9/s): 1 links and 1 joint values, 10 keys in 3 "
             "F-curves. Goals unmet on 2 of 5 frames: target of joint 'a' (frames 2-3); "
             "limit of joint 'b' (frames 3)")
    assert bake_lines(unmet) == [
        "Baked frames 1-5 (5 frames, 9/s): 1 links and 1 joint values, 10 keys in 3 F-curves",
        "Goals unmet on 2 of 5 frames:", "  target of joint 'a' (frames 2-3)",
        "  limit of joint 'b' (frames 3)"]
    scene.vart.bake_summary = unmet
    log = draw_panel()
    assert [b.get("icon") for n, b in log if n == "label"][0] == 'ERROR'
    assert C.has_operator("vart.bake")


def test_the_operators_and_menus_offer_every_format_of_the_table(vart_registered):
    from vart_addon.formats.trajectory.files import TABLE, file_glob
    from vart_addon.io_trajectory import menus as io_menus
    export = bpy.ops.vart.export_trajectory.get_rna_type()
    items = export.properties["file_format"].enum_items
    assert [(i.identifier, i.name) for i in items] == [(f.id, f.label) for f in TABLE]
    for op in (export, bpy.ops.vart.import_trajectory.get_rna_type()):
        assert op.properties["filter_glob"].default == file_glob()
        assert all(f.name in op.description for f in TABLE)
    assert all(f.extension in io_menus.MENU_LABEL for f in TABLE)
