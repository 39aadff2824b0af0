"""The edit count (real bpy): what live mode and the joint list compare at every frame and
every update instead of reading every link's ``ob["vart"]``. It must change with every edit
of vart data made through vart or tagged in Blender, and not with what moves objects."""
from __future__ import annotations

import bpy
import pytest

from vart_addon.animation import live
from vart_addon.animation import live_cache as LC
from vart_addon.bridge import schema as S
from vart_addon.panels import rows as R
from vart_addon.shared.edit_count import edit_count


def add(key):
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    return bpy.context.scene


def test_every_write_through_the_schema_counts_except_a_joint_value(vart_registered):
    scene = add("camera_tilt")
    ob = bpy.data.objects["leg0_wheel"]
    writes = [
        lambda: S.update_joint(ob, "leg0_pin", locked=True),
        lambda: S.update_link(ob, mass=2.0),
        lambda: S.write_joint(ob, "extra", "fixed", None),
        lambda: S.remove_joint(ob, "extra"),
        lambda: S.touched(),
    ]
    for write in writes:
        before = edit_count()
        write()
        assert edit_count() != before
    before = edit_count()
    S.write_q(ob, "leg0_pin", list(ob[S.KEY]["joints"]["leg0_pin"]["q"]))
    S.write_qs({ob.name: ob}, [(ob.name, "leg0_pin", [0.0] * 3)])
    ob.location.x += 0.1  # a move tags the transform only
    bpy.context.view_layer.update()
    scene.frame_set(5)
    assert edit_count() == before


def test_a_tagged_edit_counts_and_a_move_does_not(vart_registered):
    add("camera_tilt")
    ob = bpy.data.objects["leg0_wheel"]
    before = edit_count()
    ob.location.x += 0.1
    bpy.context.view_layer.update()
    assert edit_count() == before
    ob[S.KEY]["link"]["mass"] = 7.0  # a script's own write: seen once it tags the object
    ob.update_tag()
    bpy.context.view_layer.update()
    assert edit_count() != before


def test_live_reads_the_links_only_when_the_count_changes(vart_registered, monkeypatch):
    scene = add("camera_tilt")
    reads = []
    real = LC.link_properties
    monkeypatch.setattr(LC, "link_properties", lambda *a: reads.append(1) or real(*a))
    scene.vart.live = True
    for f in range(2, 20):
        scene.frame_set(f)
    assert len(reads) == 1  # the first frame only: playing moves objects, edits nothing
    S.update_joint(bpy.data.objects["leg0_wheel"], "leg0_pin", locked=True)
    scene.frame_set(5)
    assert len(reads) == 2
    assert sorted(live.cache_of(scene).frames) == list(range(1, 6))  # and it was an edit


def test_live_sees_an_edit_made_in_blender_and_forgets_every_frame(vart_registered):
    scene = add("camera_tilt")
    scene.vart.live = True
    scene.frame_set(20)
    ob = bpy.data.objects["leg0_wheel"]
    joint = ob[S.KEY]["joints"]["leg0_pin"]
    joint["locked"] = True  # what the property editor writes, and the update it tags
    joint["lock_q"] = list(joint["q"])
    ob.update_tag()
    bpy.context.view_layer.update()
    scene.frame_set(4)
    assert sorted(live.cache_of(scene).frames) == list(range(1, 5))


@pytest.mark.parametrize("moves", [1, 5])
def test_the_joint_list_skips_reading_the_links_on_updates_that_edit_nothing(
        vart_registered, monkeypatch, moves):
    scene = add("camera_tilt")
    R.refresh(scene)
    reads = []
    real = R.signature
    monkeypatch.setattr(R, "signature", lambda s: reads.append(1) or real(s))
    ob = bpy.data.objects["deck"]
    for _ in range(moves):  # a drag's updates
        ob.location.z += 0.01
        bpy.context.view_layer.update()
    assert reads == [] and not R.is_stale(scene)
    S.update_joint(bpy.data.objects["leg0_wheel"], "leg0_pin", locked=True)
    ob.location.z += 0.01  # the next update after an edit reads them, and the row shows it
    bpy.context.view_layer.update()
    assert reads == [1]
    row = next(r for r in bpy.context.window_manager.vart_joint_rows if r.name == "leg0_pin")
    assert row.locked
