"""The sublinkage operators (real bpy): Make Sublinkage (a new collection nested where the
selected links were, their visuals with them), Set Disposition, Dissolve Sublinkage; each one
undo step; bad input refused with the scene and its collections unchanged."""
from __future__ import annotations

import bpy
import pytest

from vart_addon.bridge import sublinkages as SL
from vart_addon.shared.bridge_cache import bridge_for


def collections() -> tuple:
    """Every collection of the file: objects, children, stored ``["vart"]``, colour tag; and
    the scene collection's objects. Equal results: unchanged collections."""
    def plain(c):
        raw = c.get("vart")
        return repr(raw.to_dict() if hasattr(raw, "to_dict") else raw)
    out = [("<scene>", tuple(sorted(o.name for o in bpy.context.scene.collection.objects)),
            tuple(sorted(c.name for c in bpy.context.scene.collection.children)))]
    for c in sorted(bpy.data.collections, key=lambda c: c.name):
        out.append((c.name, tuple(sorted(o.name for o in c.objects)),
                    tuple(sorted(ch.name for ch in c.children)), plain(c), c.color_tag))
    return tuple(out)


def refused(opkit, call, *patterns):
    """``call()`` raises RuntimeError naming every pattern; objects and collections are
    unchanged."""
    before = opkit.snapshot(), collections()
    with pytest.raises(RuntimeError) as e:
        call()
    for p in patterns:
        assert p in str(e.value), str(e.value)
    assert (opkit.snapshot(), collections()) == before
    return str(e.value)


def home(ob):
    return SL.sublinkage_collection(bpy.context.scene, ob)


@pytest.fixture
def robot(op_fourbar):
    """The four-bar's links in a plain collection Robot, the crank with a visual (a mesh
    Blender-parented to it) and the coupler too."""
    fb = op_fourbar
    robot = bpy.data.collections.new("Robot")
    bpy.context.scene.collection.children.link(robot)
    for n in ("crank", "coupler", "rocker"):
        ob = fb.obs[n]
        robot.objects.link(ob)
        bpy.context.scene.collection.objects.unlink(ob)
    for n in ("crank", "coupler"):
        vis = bpy.data.objects.new(f"{n}.visual", bpy.data.meshes.new(f"{n}.visual"))
        vis.parent = fb.obs[n]
        robot.objects.link(vis)
    bpy.context.view_layer.update()
    return fb


def test_make_sublinkage_nests_a_new_collection_where_the_links_were(robot, opkit):
    fb = robot
    opkit.select(bpy.data.objects["crank.visual"], fb.obs["coupler"])  # a visual: its link
    assert bpy.ops.vart.make_sublinkage(name="Front", disposition="driven") == {'FINISHED'}
    front = bpy.data.collections["Front"]
    assert [c.name for c in bpy.data.collections["Robot"].children] == ["Front"]
    assert sorted(o.name for o in front.objects) == ["coupler", "coupler.visual", "crank",
                                                     "crank.visual"]
    assert sorted(o.name for o in bpy.data.collections["Robot"].objects) == ["rocker"]
    assert SL.disposition_of(front) == "driven" and front.color_tag == "COLOR_01"
    assert home(fb.obs["crank"]) == front and home(fb.obs["rocker"]) is None
    assert bridge_for(bpy.context.scene).linkage.sublinkages["Front"].disposition == "driven"
    opkit.select(fb.obs["crank"])  # nested: made inside Front, the next colour
    assert bpy.ops.vart.make_sublinkage(name="Crank") == {'FINISHED'}
    crank = bpy.data.collections["Crank"]
    assert [c.name for c in front.children] == ["Crank"] and crank.color_tag == "COLOR_02"
    assert SL.read_hierarchy(bpy.context.scene, bpy.context.scene.objects).sublinkages == (
        SL.SublinkageData("Front", None, "driven", "COLOR_01"),
        SL.SublinkageData("Crank", "Front", "driving", "COLOR_02"))


def test_set_disposition_of_the_active_links_sublinkage_or_a_named_collection(robot, opkit):
    fb = robot
    opkit.select(fb.obs["crank"])
    assert bpy.ops.vart.make_sublinkage(name="Crank") == {'FINISHED'}
    assert bpy.ops.vart.set_disposition(disposition="simultaneous") == {'FINISHED'}
    assert SL.disposition_of(bpy.data.collections["Crank"]) == "simultaneous"
    assert bpy.ops.vart.set_disposition(collection="Robot", disposition="driven") \
        == {'FINISHED'}  # a plain collection becomes a sublinkage
    h = SL.read_hierarchy(bpy.context.scene, bpy.context.scene.objects)
    assert [(s.name, s.parent, s.disposition) for s in h.sublinkages] == [
        ("Robot", None, "driven"), ("Crank", "Robot", "simultaneous")]
    assert h.homes == (("coupler", "Robot"), ("crank", "Crank"), ("rocker", "Robot"))


def test_dissolve_puts_links_and_nested_collections_back_in_the_parent(robot, opkit):
    fb = robot
    opkit.select(fb.obs["crank"], fb.obs["coupler"])
    assert bpy.ops.vart.make_sublinkage(name="Front") == {'FINISHED'}
    opkit.select(fb.obs["crank"])
    assert bpy.ops.vart.make_sublinkage(name="Crank") == {'FINISHED'}
    assert bpy.ops.vart.dissolve_sublinkage(collection="Front") == {'FINISHED'}
    robot_coll = bpy.data.collections["Robot"]
    assert "Front" not in bpy.data.collections
    assert [c.name for c in robot_coll.children] == ["Crank"]
    assert sorted(o.name for o in robot_coll.objects) == ["coupler", "coupler.visual", "rocker"]
    assert bpy.ops.vart.dissolve_sublinkage(keep_collection=True) == {'FINISHED'}  # active: crank
    assert SL.disposition_of(bpy.data.collections["Crank"]) is None
    assert bridge_for(bpy.context.scene).linkage.sublinkages == {}


def test_bad_input_is_refused_and_changes_nothing(robot, opkit):
    fb = robot
    opkit.select()
    assert not bpy.ops.vart.make_sublinkage.poll()
    refused(opkit, bpy.ops.vart.make_sublinkage, "Select the links of the new sublinkage")
    loose = bpy.data.objects.new("loose", None)  # not a link, hangs from none
    bpy.context.scene.collection.objects.link(loose)
    bpy.context.view_layer.update()
    opkit.select(loose)
    refused(opkit, bpy.ops.vart.make_sublinkage, "Select the links of the new sublinkage")
    other = bpy.data.collections.new("Other")
    bpy.context.scene.collection.children.link(other)
    other.objects.link(fb.obs["rocker"])  # the rocker in Robot and Other
    opkit.select(fb.obs["rocker"])
    refused(opkit, bpy.ops.vart.make_sublinkage, "link 'rocker' is in 2 collections",
            "'Robot'", "'Other'")
    other.objects.unlink(fb.obs["rocker"])
    other.objects.link(fb.obs["crank"])
    bpy.data.collections["Robot"].objects.unlink(fb.obs["crank"])
    opkit.select(fb.obs["crank"], fb.obs["rocker"])
    refused(opkit, bpy.ops.vart.make_sublinkage, "the links are in different collections")
    opkit.select(fb.obs["rocker"])
    refused(opkit, bpy.ops.vart.set_disposition, "link 'rocker' is in no sublinkage")
    refused(opkit, bpy.ops.vart.dissolve_sublinkage, "link 'rocker' is in no sublinkage")
    refused(opkit, lambda: bpy.ops.vart.dissolve_sublinkage(collection="Robot"),
            "collection 'Robot' is not a sublinkage")
    refused(opkit, lambda: bpy.ops.vart.set_disposition(collection="Nowhere"),
            "collection 'Nowhere' is not in scene")
    # a link in two sublinkages neither inside the other: marking the second is refused
    opkit.select(fb.obs["crank"])
    assert bpy.ops.vart.make_sublinkage(name="Crank") == {'FINISHED'}
    bpy.data.collections["Robot"].objects.link(fb.obs["crank"])  # also in Robot
    refused(opkit, lambda: bpy.ops.vart.set_disposition(collection="Robot"),
            "object 'crank': in two sublinkages", "'Robot'", "'Crank'")


def _undo(kind="undo"):
    w = bpy.context.window
    with bpy.context.temp_override(window=w, screen=w.screen, area=w.screen.areas[0]):
        return getattr(bpy.ops.ed, kind)()


@pytest.mark.parametrize("op,kwargs", [
    ("make_sublinkage", {"name": "Front"}),
    ("set_disposition", {"disposition": "driven"}),
    ("dissolve_sublinkage", {}),
])
def test_each_operator_is_one_undo_step_and_the_solve_follows(robot, opkit, op, kwargs):
    fb = robot
    opkit.select(fb.obs["crank"])
    if op != "make_sublinkage":
        assert bpy.ops.vart.make_sublinkage(name="Crank") == {'FINISHED'}
    assert bpy.ops.ed.undo_push(message="before") == {'FINISHED'}
    before = collections()
    assert getattr(bpy.ops.vart, op)('EXEC_DEFAULT', True, **kwargs) == {'FINISHED'}
    after = collections()
    assert after != before
    stages = bridge_for(bpy.context.scene)
    stages.sync()
    after_homes = dict(stages.linkage.link_home), dict(
        (n, s.disposition) for n, s in stages.linkage.sublinkages.items())
    assert _undo() == {'FINISHED'}
    assert collections() == before
    bridge = bridge_for(bpy.context.scene)  # what the next solve sees: the restored hierarchy
    bridge.sync()
    expected = SL.read_hierarchy(bpy.context.scene, bpy.context.scene.objects)
    assert bridge.hierarchy == expected
    assert {n: s.disposition for n, s in bridge.linkage.sublinkages.items()} == \
        {s.name: s.disposition for s in expected.sublinkages}
    assert _undo("redo") == {'FINISHED'}
    assert collections() == after
    bridge = bridge_for(bpy.context.scene)
    bridge.sync()
    assert (dict(bridge.linkage.link_home), {n: s.disposition for n, s in
                                             bridge.linkage.sublinkages.items()}) == after_homes
