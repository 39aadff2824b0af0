"""A drag across a rebuild of the bridge (issue 19, item 11), in real bpy on the benchmark
hexapod: the bridge rebuilt mid-drag (its cache dropped, as undo or a load does) or the
mechanism's structure changed mid-drag (a pin removed from the stored properties), the drag
going on, then cancelled: every object is back bit for bit and the bridge agrees with the
scene. The link targets the bridge holds (a drag's) are re-applied to the linkage after a
rebuild and after a rollback, for links that still exist, and dropped for links gone."""
from __future__ import annotations

import bpy
import numpy as np
import pytest

import blender_scenes as BS
from drag_scene import SETTINGS, assert_feet_pinned, deck_path, hexapod_scene, pins, state
from vart_addon.bridge import SceneBridge
from vart_addon.bridge import schema as S
from vart_addon.drag import session as D
from vart_addon.solver import se3

pytestmark = pytest.mark.skipif(not BS.available(), reason="../shared/bench not present")


@pytest.fixture
def hexapod():
    return hexapod_scene()


def target(bridge, link):
    """The target the linkage holds on ``link``'s root joint (None: none)."""
    q = bridge.linkage.root(link).target_q
    return None if q is None else q.copy()


def pin_of(hx, foot) -> str:
    """The name of the closure joint pinning ``foot``."""
    return next(n for n, j in hx.bridge.linkage.joints.items()
                if not j.is_tree and foot in (j.parent, j.child))


def agrees_with_scene(bridge):
    """The bridge holds what a new bridge reads from the scene: every link's pose and tree
    joint's q, to the last bit."""
    fresh = SceneBridge(bridge.scene)
    fresh.sync()
    poses, want = bridge.linkage.poses(), fresh.linkage.poses()
    assert poses.keys() == want.keys()
    for n, T in want.items():
        assert np.array_equal(poses[n], T), n
    for n, j in fresh.linkage.joints.items():
        if j.is_tree:
            assert np.array_equal(bridge.linkage.joint(n).q, j.q), n


def test_a_drag_cancelled_after_the_bridge_rebuilt_restores_the_exact_state(hexapod):
    hx, link = hexapod, hexapod.prob.drag["frame"]
    before = state()
    s = D.DragSession(hx.bridge, SETTINGS)
    s.begin_link(link)
    path = deck_path(hx, 8)
    for T in path[:4]:
        s.update(T)
    held = target(hx.bridge, link)
    rebuilds = hx.bridge.rebuilds
    hx.bridge.invalidate()           # the cache dropped mid-drag (undo, a file load...)
    assert hx.bridge.sync() is True and hx.bridge.rebuilds == rebuilds + 1
    assert np.array_equal(target(hx.bridge, link), held)   # the drag's target re-applied
    for T in path[4:]:                                      # the drag goes on
        st = s.update(T)
        assert st.level("invariant").satisfied
        assert_feet_pinned(hx)
        assert np.abs(np.array(hx.obs[link].matrix_world, float) - T).max() < 1e-5
    assert state() != before
    s.cancel()
    assert state() == before
    assert link not in hx.bridge._link_targets
    hx.bridge.sync()
    assert target(hx.bridge, link) is None
    agrees_with_scene(hx.bridge)


def test_a_drag_cancelled_after_the_structure_changed_restores_the_exact_state(hexapod):
    hx, link = hexapod, hexapod.prob.drag["frame"]
    foot = next(iter(pins(hx.prob)))
    pin = pin_of(hx, foot)
    before = state()
    s = D.DragSession(hx.bridge, SETTINGS)
    s.begin_link(link)
    path = deck_path(hx, 6)
    s.update(path[1])
    child = hx.obs[hx.bridge.data.joints[pin].child]
    del child[S.KEY]["joints"][pin]  # a pin removed mid-drag: the structure changes
    assert hx.bridge.sync() is True  # rebuilt
    assert pin not in hx.bridge.linkage.joints and target(hx.bridge, link) is not None
    for T in path[2:]:
        assert s.update(T).level("invariant").satisfied
    s.cancel()
    assert state() == before         # the pin is back, every object as it was
    assert hx.bridge.sync() is True  # the cache was dropped: rebuilt from the scene
    assert pin in hx.bridge.linkage.joints and target(hx.bridge, link) is None
    assert_feet_pinned(hx)
    agrees_with_scene(hx.bridge)


def probe_link(name="Probe"):
    """A free link of its own (an empty, no joints), 1 m above the origin."""
    ob = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(ob)
    ob.location = (0.0, 0.0, 1.0)
    S.write_link(ob, virtual=True)
    bpy.context.view_layer.update()
    return ob


def test_held_link_targets_follow_rebuilds_and_rollbacks_and_go_with_their_links(hexapod):
    hx, deck = hexapod, hexapod.prob.drag["frame"]
    br = hx.bridge
    probe = probe_link()
    br.sync()
    T_deck = br.linkage.pose(deck) @ se3.make_pose(se3.rot_z(0.1), [0.05, 0.0, 0.0])
    T_probe = se3.make_pose(None, [0.3, 0.0, 1.0])
    br.set_link_target(deck, T_deck)
    br.set_link_target("Probe", T_probe, [True, True, True, False, False, False])
    held = {n: target(br, n) for n in (deck, "Probe")}
    mask = br.linkage.root("Probe").target_mask.copy()

    # a rebuild re-applies both, with their masks
    br.invalidate()
    assert br.sync() is True
    assert {n: target(br, n).tolist() for n in held} == {n: v.tolist() for n, v in held.items()}
    assert np.array_equal(br.linkage.root("Probe").target_mask, mask)

    # a rollback to a checkpoint: its targets back, later ones dropped
    cp = br.checkpoint()
    br.clear_link_target(deck)
    other = next(n for n in br.linkage.links if n not in (deck, "Probe"))
    br.set_link_target(other, br.linkage.pose(other))
    br.rollback(cp)
    assert np.array_equal(target(br, deck), held[deck]) and target(br, other) is None
    assert set(br._link_targets) == {deck, "Probe"}

    # a rollback to a checkpoint taken before a rebuild: the cache is dropped, the
    # checkpoint's targets are applied by the next sync
    cp = br.checkpoint()
    br.invalidate()
    br.sync()
    br.set_link_target(other, br.linkage.pose(other))
    br.rollback(cp)
    assert br.linkage is None and set(br._link_targets) == {deck, "Probe"}
    br.sync()
    assert np.array_equal(target(br, deck), held[deck]) and target(br, other) is None

    # a link gone: its target is dropped at the rebuild, the others stay
    cp = br.checkpoint()
    bpy.data.objects.remove(probe)
    assert br.sync() is True
    assert "Probe" not in br.linkage.links and set(br._link_targets) == {deck}
    assert np.array_equal(target(br, deck), held[deck])
    # ...also when a rollback brings back a checkpoint that held it
    br.rollback(cp)
    br.sync()
    assert set(br._link_targets) == {deck} and np.array_equal(target(br, deck), held[deck])
    st = br.solve(SETTINGS)
    assert st.level("invariant").satisfied
