"""Bake Range says when the animation's keys end before the range does (issue 19, item 8: a
new scene's range is frames 1-250, and a motion keyed over 1-48 then bakes and exports 202
frames of standing still): the summary names the last keyed frame and the frames that only
hold its pose; nothing is said when the keys reach the end, or when how far they reach is not
known (a Cycles modifier repeats them)."""
import bpy

from vart_addon.bridge import fcurves_of
from vart_addon.examples import MECHANISM_FRAMES as N


def bake_fourbar(end: int, cycles: bool = False) -> str:
    scene = bpy.context.scene
    assert bpy.ops.vart.add_example(example="fourbar") == {'FINISHED'}
    scene.frame_end = end
    if cycles:
        crank = bpy.data.objects["crank"]
        for fc in fcurves_of(crank):
            fc.modifiers.new('CYCLES')
    assert bpy.ops.vart.bake() == {'FINISHED'}
    return scene.vart.bake_summary


def test_keys_ending_before_the_range_are_said(vart_registered):
    summary = bake_fourbar(N + 24)
    assert (f"the animation's last key is on frame {N}, so frames {N + 1}-{N + 24} hold its "
            "last pose") in summary, summary


def test_keys_reaching_the_end_say_nothing(vart_registered):
    assert "last key" not in bake_fourbar(N)


def test_cycled_keys_say_nothing(vart_registered):
    assert "last key" not in bake_fourbar(N + 24, cycles=True)
