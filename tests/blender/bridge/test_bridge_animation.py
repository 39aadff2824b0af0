"""Keyframing joint values (real bpy, Blender 5.0 slotted actions): q is an ordinary animatable
property, ``fcurves_of`` finds its curves, and the bridge follows the animated value."""
from __future__ import annotations

import math

import bpy
import numpy as np
import pytest

from vart_addon.bridge import (
    SceneBridge,
    fcurves_of,
    find_fcurve,
    keyframe_q,
    q_data_path,
    q_fcurves,
    write_joint,
    write_link,
)
from vart_addon.bridge import animation as A
from vart_addon.solver import se3


@pytest.fixture(autouse=True)
def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    yield


def deck_on_tilt():
    """A link 'Deck' on a revolute joint 'tilt' to the world (axis: world x), and a link
    'Cam' on a spherical joint 'pan' to the deck."""
    obs = {}
    for n in ("Deck", "Cam"):
        obs[n] = bpy.data.objects.new(n, None)
        bpy.context.scene.collection.objects.link(obs[n])
        write_link(obs[n], root_tree=False)
    axis_x = se3.make_pose(se3.so3_exp(np.array([0.0, math.pi / 2, 0.0])), [0, 0, 1])
    write_joint(obs["Deck"], "tilt", "revolute", None, T_parent_mob=axis_x,
                T_child_frame=axis_x)  # the deck's origin is at the world origin
    write_joint(obs["Cam"], "pan", "spherical", obs["Deck"],
                T_parent_mob=se3.make_pose(None, [0, 2, 0]))
    bridge = SceneBridge()
    bridge.solve()
    bridge.write_back()  # the objects now sit where the joints say
    return obs, bridge


def test_keyframing_q_makes_an_fcurve_in_the_slotted_action():
    obs, _ = deck_on_tilt()
    deck = obs["Deck"]
    assert fcurves_of(deck) == []
    assert deck.keyframe_insert(data_path='["vart"]["joints"]["tilt"]["q"]', index=0)
    curves = fcurves_of(deck)
    assert [(fc.data_path, fc.array_index) for fc in curves] == [(q_data_path("tilt"), 0)]
    ad = deck.animation_data
    if A.slotted_actions():
        # where Blender >= 4.4 keeps it: action > layer > keyframe strip > channelbag of the slot
        assert ad.action_slot is not None
        assert hasattr(ad.action, "fcurves") == (bpy.app.version < (5, 0, 0))  # gone in 5.0
        bag = ad.action.layers[0].strips[0].channelbag(ad.action_slot)
        assert list(bag.fcurves) == curves
    else:  # Blender 4.2, 4.3: the action holds its F-curves
        assert not hasattr(ad, "action_slot") and list(ad.action.fcurves) == curves
    assert find_fcurve(deck, q_data_path("tilt")) == curves[0]
    assert find_fcurve(deck, q_data_path("tilt"), 1) is None


def test_every_dof_of_a_joint_can_be_keyed():
    obs, _ = deck_on_tilt()
    assert keyframe_q(obs["Cam"], "pan", frame=1)
    assert sorted(q_fcurves(obs["Cam"], "pan")) == [0, 1, 2]
    assert q_fcurves(obs["Deck"], "tilt") == {}


def test_animated_q_drives_the_scene_through_the_bridge():
    obs, bridge = deck_on_tilt()
    deck = obs["Deck"]
    g = deck["vart"]["joints"]["tilt"]
    g["q"] = [0.0]
    keyframe_q(deck, "tilt", frame=1)
    g["q"] = [1.0]
    keyframe_q(deck, "tilt", frame=11)
    fc = find_fcurve(deck, q_data_path("tilt"))
    assert [tuple(k.co) for k in fc.keyframe_points] == [(1.0, 0.0), (11.0, 1.0)]
    assert fc.keyframe_points[0].interpolation == 'BEZIER'  # a float: smooth, not steps
    scene = bpy.context.scene
    scene.frame_set(6)
    value = deck["vart"]["joints"]["tilt"]["q"][0]
    assert 0.0 < value < 1.0
    assert bridge.sync() is False  # a value change: patched, not rebuilt
    assert bridge.linkage.joint("tilt").q[0] == value
    bridge.solve()
    report = bridge.write_back()
    assert sorted(report.links) == ["Cam", "Deck"] and report.joints == []
    R = np.array(deck.matrix_world)[:3, :3]
    # the deck turned by `value` about world x
    np.testing.assert_allclose(R, se3.so3_exp(np.array([value, 0.0, 0.0])), atol=1e-6)
    scene.frame_set(11)
    assert deck["vart"]["joints"]["tilt"]["q"][0] == pytest.approx(1.0)
