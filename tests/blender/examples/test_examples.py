"""Assets that ship and Add Example (real bpy, headless): the generated files are what
``tools/make_assets.py`` makes, every robot imports whole, every example is added by the
operator and the keyed mechanisms bake with their closures held; Key Joint; the Examples
panel and the Add menu entry."""
import math
from types import SimpleNamespace

import bpy
import numpy as np
import pytest

from repo_paths import REPO, load_script
from vart_addon import examples as X
from vart_addon.bridge import SceneBridge
from vart_addon.bridge import schema as S
from vart_addon.examples import robots

ASSETS = REPO / "assets"
ROBOT_FILES = {"athlete": (38, 37), "fourbar": (4, 3), "slider_crank": (4, 3),
               "stewart": (20, 19)}   # URDF: (links, joints)


def make_assets():
    return load_script("tools/make_assets.py", "make_assets")


def scene_data():
    return S.read_scene(ob for ob in bpy.context.scene.objects if S.is_link(ob))


def linkage():
    br = SceneBridge(bpy.context.scene)
    br.sync()
    return br.linkage


# ---- the files --------------------------------------------------------------------------------
def test_assets_are_what_the_generator_makes_and_small():
    tool = make_assets()
    made = tool.files()
    assert set(made) == {str(p.relative_to(ASSETS)) for p in ASSETS.rglob("*")
                         if p.is_file() and p.name != "README.md"}
    for rel, data in made.items():
        assert tool.same(rel, ASSETS / rel, data), \
            f"assets/{rel} is not what tools/make_assets.py makes: run it"
    assert tool.main(["--check"]) == 0  # what the tool itself says
    total = sum(p.stat().st_size for p in ASSETS.rglob("*") if p.is_file())
    assert total < 2_000_000
    readme = (ASSETS / "README.md").read_text()
    assert "CC0" in readme and "tools/make_assets.py" in readme


@pytest.mark.parametrize("name", sorted(ROBOT_FILES))
def test_each_robot_imports_whole(vart_registered, name):
    from vart_addon.io_urdf import import_urdf
    robot = import_urdf(ASSETS / name / f"{name}.urdf", use_env=False)
    links, joints = ROBOT_FILES[name]
    assert (len(robot), len(robot.joints)) == (links, joints)
    assert robot.missing == [] and robot.warnings == []
    data = scene_data()
    assert len(data.links) == links and not any(j.virtual for j in data.joints.values())


# ---- the robots -------------------------------------------------------------------------------
def test_the_stance_is_the_assets_limb_with_its_ankle_inclined():
    """robots.LIMB is the asset's limb; a stance keeps the wheel centre where the straight one
    has it, its ankle segment inclined as asked, every joint within its limits."""
    from vart_addon.formats.urdf import files as urdf
    robot = urdf.read_urdf(robots.asset("athlete"))
    x = {j: robot.joint_by_name(f"leg0_{j}").origin.xyz[0]
         for j in ("knee_pitch", "ankle_pitch", "ankle_roll", "wheel")}
    assert robots.LIMB == pytest.approx((x["knee_pitch"], x["ankle_pitch"],
                                         x["ankle_roll"] + x["wheel"]), abs=1e-12)
    assert robots.stance(0.0) == pytest.approx(robots.STRAIGHT, abs=1e-12)
    straight = urdf.link_poses(robot, {f"leg0_{j}": v for j, v in robots.STRAIGHT.items()})
    for incline in (X.ANKLE_INCLINE, 0.3):
        q = robots.stance(incline)
        for j, v in q.items():
            lim = robot.joint_by_name(f"leg0_{j}").limit
            assert lim is None or lim.lower <= v <= lim.upper, j
        T = urdf.link_poses(robot, {f"leg0_{j}": v for j, v in q.items()})
        assert T["leg0_wheel"][:3, 3] == pytest.approx(straight["leg0_wheel"][:3, 3], abs=1e-12)
        down = T["leg0_foot"][:3, 0]  # the ankle segment, toward the wheel
        assert down == pytest.approx((-math.sin(incline), 0.0, -math.cos(incline)), abs=1e-12)


def test_the_hexapod_stands_on_its_six_wheels(vart_registered):
    bpy.context.scene.cursor.location = (1.0, -2.0, 0.5)
    assert bpy.ops.vart.add_example(example="athlete") == {'FINISHED'}
    data = scene_data()
    limbs = [j for j in data.joints.values() if j.name.startswith("leg")]
    assert len(limbs) == 36 and all(j.type == "revolute" and not j.virtual for j in limbs)
    for j in limbs:
        assert j.q[0] == pytest.approx(X.STANDING[j.name.split("_", 1)[1]], abs=1e-12)
        assert j.lower[0] <= j.q[0] <= j.upper[0]
    wheels = [j for j in limbs if j.name.endswith("_wheel")]
    assert all(j.lower[0] == -math.inf for j in wheels)  # continuous
    deck = bpy.data.objects["deck"]
    assert S.read_object(deck)[1] == []  # a free link: nothing added
    for k in range(6):
        bottom = X.contact(bpy.data.objects[f"leg{k}_wheel"])
        assert bottom[2] == pytest.approx(0.5, abs=1e-6)  # on the ground under the cursor
        foot = X.pose(bpy.data.objects[f"leg{k}_foot"])
        # the ankle segment inclined ANKLE_INCLINE from straight down, in the limb's plane
        out = (math.cos(k * math.pi / 3), math.sin(k * math.pi / 3), 0.0)
        down = -math.sin(X.ANKLE_INCLINE) * np.array(out) - (0.0, 0.0, math.cos(X.ANKLE_INCLINE))
        assert foot[:3, 0] == pytest.approx(down, abs=1e-6)
        assert X.pose(bpy.data.objects[f"leg{k}_wheel"])[2, 1] == pytest.approx(0.0, abs=1e-6)
    assert np.linalg.norm(X.pose(deck)[:2, 3] - (1.0, -2.0)) < 1e-6


@pytest.mark.parametrize("key, closures, turn", [("fourbar", ["C"], 2 * math.pi),
                                                 ("slider_crank", ["rod_slider"], 2 * math.pi),
                                                 ("stewart", [f"leg{i}_ball" for i in range(6)],
                                                  None)])
def test_mechanisms_are_closed_and_bake(vart_registered, key, closures, turn):
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    lk = linkage()
    assert sorted(n for n, j in lk.joints.items() if not j.is_tree) == sorted(closures)
    for n in closures:
        j = lk.joints[n]
        assert not j.virtual
        assert np.abs(j.jtype.residual(lk.relative_pose(j))).max() < 1e-12  # built assembled
    scene = bpy.context.scene
    assert (scene.frame_start, scene.frame_end) == (1, X.MECHANISM_FRAMES)
    assert bpy.ops.vart.bake() == {'FINISHED'}
    assert "unmet" not in scene.vart.status_summary
    check = X.check_baked(scene, 1, X.MECHANISM_FRAMES)
    assert check.closure_error < 1e-6 and check.limit_excess == 0.0
    if turn is not None:  # the crank made one turn; so did the mechanism
        data0 = _at_frame(1)
        data1 = _at_frame(X.MECHANISM_FRAMES)
        crank = next(n for n in data0 if n in ("A", "crank_joint"))
        assert data1[crank] - data0[crank] == pytest.approx(turn, abs=1e-5)
        for n in data0:
            if n != crank:
                d = (data1[n] - data0[n] + math.pi) % (2 * math.pi) - math.pi
                assert abs(d) < 1e-4, n


def _at_frame(f):
    bpy.context.scene.frame_set(f)
    return {n: j.q[0] for n, j in scene_data().joints.items() if j.dof == 1}


def test_the_tower_has_270_joints_and_90_cycles(vart_registered):
    assert bpy.ops.vart.add_example(example="tower") == {'FINISHED'}
    lk = linkage()
    revolute = [j for j in lk.joints.values() if j.jtype.name == "revolute"]
    tree = [j for j in revolute if j.is_tree]
    assert len(lk.links) == 271 and len(tree) == 270 and len(revolute) - len(tree) == 90
    # independent cycles of the joint graph: edges - vertices + 1, the ground a vertex
    assert len(lk.joints) - (len(lk.links) + 1) + 1 == 90
    for j in revolute:
        if not j.is_tree:
            assert np.abs(j.jtype.residual(lk.relative_pose(j))).max() < 1e-12
    # the keyed top: a few frames of the pull, closures held
    assert bpy.ops.vart.bake(frame_start=1, frame_end=3) == {'FINISHED'}
    check = X.check_baked(bpy.context.scene, 1, 3)
    assert check.closures == 90 and check.closure_error < 1e-6


# ---- Add Example itself -----------------------------------------------------------------------
def test_every_example_is_in_the_operator_enum():
    from vart_addon.operators.examples import EXAMPLE_ITEMS
    keys = [i[0] for i in EXAMPLE_ITEMS]
    assert keys == list(X.EXAMPLES) == ["athlete", "athlete_legs", "fourbar", "slider_crank",
                                        "stewart", "tower", "tower_abstract", "step_probe",
                                        "truss_gripper", "camera_tilt",
                                        "camera_tilt_legs", "trenching", "inspection",
                                        "pinch", "go2_step", "g1_lift_foot",
                                        "ur5_pick_place"]
    assert sum(e.story for e in X.EXAMPLES.values()) == 8


def test_a_second_copy_gets_its_own_names(vart_registered):
    for _ in range(2):
        assert bpy.ops.vart.add_example(example="camera_tilt") == {'FINISHED'}
    data = scene_data()  # validates: joint names unique in the scene
    assert {"tilt", "tilt.001", "leg0_pin", "leg0_pin.001"} <= set(data.joints)
    assert len(data.links) == 2 * 38


def test_a_failing_example_adds_nothing(vart_registered, monkeypatch, tmp_path):
    bpy.ops.mesh.primitive_cube_add()
    before = {k: set(getattr(bpy.data, k)) for k in X._DATA}
    monkeypatch.setattr(robots, "ASSETS", tmp_path)
    with pytest.raises(RuntimeError, match="asset .* is missing"):
        bpy.ops.vart.add_example(example="camera_tilt")
    assert {k: set(getattr(bpy.data, k)) for k in X._DATA} == before

    def broken(context):  # fails half way: the imported robot must go again
        X.load_athlete(context)
        raise X.ExampleError("step 2 refused")
    monkeypatch.setattr(robots, "ASSETS", ASSETS)
    monkeypatch.setitem(X.EXAMPLES, "athlete", X.Example("athlete", "x", "x", broken))
    with pytest.raises(RuntimeError, match="step 2 refused"):
        bpy.ops.vart.add_example(example="athlete")
    assert {k: set(getattr(bpy.data, k)) for k in X._DATA} == before


# ---- Key Joint --------------------------------------------------------------------------------
def test_key_joint_keys_a_tree_value_or_a_closure_target(vart_registered):
    from vart_addon.bridge.animation import fcurves_of
    assert bpy.ops.vart.add_example(example="fourbar") == {'FINISHED'}
    scene = bpy.context.scene
    scene.vart.active_joint = "D"           # a tree joint: its q
    scene.frame_set(10)
    assert bpy.ops.vart.key_joint() == {'FINISHED'}
    rocker = bpy.data.objects["rocker"]
    paths = {(fc.data_path, tuple(k.co[0] for k in fc.keyframe_points))
             for fc in fcurves_of(rocker)}
    assert (S.q_data_path("D"), (10.0,)) in paths
    scene.vart.active_joint = "C"           # a closure: its target, set where it is
    assert bpy.ops.vart.key_joint() == {'FINISHED'}
    c = next(j for j in scene_data().joints.values() if j.name == "C")
    assert all(c.target_mask)
    path = S.q_data_path("C")[:-len('["q"]')] + '["target_q"]'
    assert any(fc.data_path == path for fc in fcurves_of(rocker))
    fixed = next(j.name for j in scene_data().joints.values() if j.type == "fixed")
    scene.vart.active_joint = fixed         # fixed: nothing to key
    with pytest.raises(RuntimeError, match="no value"):
        bpy.ops.vart.key_joint()
    scene.vart.active_joint = ""
    bpy.context.view_layer.objects.active = None
    assert not bpy.ops.vart.key_joint.poll()


# ---- the UI -----------------------------------------------------------------------------------
class Recorder:
    """A stand-in UILayout that checks each call against Blender's own UILayout API."""

    def __init__(self):
        self.ops = []

    def __getattr__(self, name):
        assert name in bpy.types.UILayout.bl_rna.functions, name

        def call(*args, **kw):
            fn = bpy.types.UILayout.bl_rna.functions[name]
            assert set(kw) <= set(fn.parameters.keys()), (name, kw)
            if name in ("operator", "operator_menu_enum"):
                self.ops.append(args[0])
                return SimpleNamespace()
            return self
        return call


def test_examples_panel_and_add_menu(vart_registered):
    from vart_addon.panels import examples as PE
    assert hasattr(bpy.types, "VART_PT_examples") and hasattr(bpy.types, "VART_MT_add_example")
    assert PE.draw_add_menu in bpy.types.VIEW3D_MT_add._dyn_ui_initialize()
    lay = Recorder()
    PE.VART_PT_examples.draw(SimpleNamespace(layout=lay), bpy.context)
    assert lay.ops == ["vart.add_example"]
    lay = Recorder()
    PE.VART_MT_add_example.draw(SimpleNamespace(layout=lay), bpy.context)
    assert lay.ops == ["vart.add_example"] * len(X.EXAMPLES)
