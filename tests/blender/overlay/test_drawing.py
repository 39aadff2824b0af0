"""The viewport overlay (real bpy, headless): no draw handler in background mode, handler
added and removed in pairs, and the scene's joints gathered through the bridge into the glyph
geometry (poses, the world, hidden links, bad data, colours, the cache key).

Actual GPU drawing cannot run headless (bpy's GPU module refuses in background mode)."""
from types import SimpleNamespace

import bpy
import numpy as np
import pytest

from vart_addon.bridge import schema
from vart_addon.overlay import drawing as overlay
from vart_addon.overlay import geometry as og
from vart_addon.solver import se3


@pytest.fixture(scope="module", autouse=True)
def addon():
    """The add-on as ``vart_addon.register()`` registers it (``scene.vart`` included)."""
    import vart_addon
    vart_addon.register()
    yield
    vart_addon.unregister()


@pytest.fixture(autouse=True)
def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    yield
    overlay.unregister()


def link(name, pose=None, scale=(1.0, 1.0, 1.0)):
    ob = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(ob)
    if pose is not None:
        ob.matrix_world = [list(r) for r in pose]
    ob.scale = scale
    schema.write_link(ob)
    return ob


def pose(angle, *p):
    return se3.make_pose(se3.so3_exp(np.array([0.2, -0.1, angle])), list(p))


T_PM = se3.make_pose(se3.rot_z(0.4), [0.0, 0.3, 0.1])


def robot():
    a = link("A", pose(0.3, 1.0, 0.0, 0.5))
    b = link("B", pose(-0.6, 2.0, 1.0, 0.5), scale=(2.0, 2.0, 2.0))
    c = link("C", pose(0.1, 3.0, 1.0, 0.0))
    schema.write_joint(a, "hip", "revolute", None, T_parent_mob=pose(0.3, 1.0, 0.0, 0.5))
    schema.write_joint(b, "knee", "cylindrical", a, T_parent_mob=T_PM)
    schema.write_joint(c, "slide", "prismatic", b, virtual=True)
    schema.write_joint(c, "loop", "spherical", None, tree=False, locked=True)
    bpy.context.view_layer.update()
    return a, b, c


def world(ob):
    return np.array(ob.matrix_world, dtype=float)


# ---- the handler ----------------------------------------------------------------------------
def test_background_mode_adds_no_draw_handler_and_draw_returns_at_once(monkeypatch):
    assert bpy.app.background
    overlay.register()
    assert not overlay.is_registered() and overlay._state["handle"] is None
    robot()
    monkeypatch.setattr(overlay, "_shader", lambda: pytest.fail("no GPU work in background"))
    assert overlay.draw() is None
    assert not overlay.enabled(bpy.context)
    overlay.unregister()
    overlay.unregister()  # twice is harmless


def test_with_a_viewport_the_handler_is_added_once_and_removed(monkeypatch):
    """Pretend not to be in background (bpy.app.background is read-only, so the module's
    view of bpy is replaced): the handler goes into SpaceView3D and out again."""
    fake = SimpleNamespace(app=SimpleNamespace(background=False), types=bpy.types,
                           context=bpy.context)
    monkeypatch.setattr(overlay, "bpy", fake)
    overlay.register()
    handle = overlay._state["handle"]
    assert handle is not None and overlay.is_registered()
    overlay.register()
    assert overlay._state["handle"] is handle, "registering twice adds no second handler"
    overlay.unregister()
    assert overlay._state == {"handle": None, "shader": None, "key": None, "batches": []}
    with pytest.raises((ValueError, RuntimeError, TypeError)):
        bpy.types.SpaceView3D.draw_handler_remove(handle, 'WINDOW')  # already gone


def test_the_toggle_and_the_viewport_overlays_switch_it(monkeypatch):
    fake = SimpleNamespace(app=SimpleNamespace(background=False), types=bpy.types)
    monkeypatch.setattr(overlay, "bpy", fake)
    scene = bpy.context.scene
    overlays = SimpleNamespace(show_overlays=True)
    ctx = SimpleNamespace(scene=scene, space_data=SimpleNamespace(overlay=overlays))
    scene.vart.overlay_enabled = True
    assert overlay.enabled(ctx)
    overlays.show_overlays = False
    assert not overlay.enabled(ctx)
    overlays.show_overlays = True
    scene.vart.overlay_enabled = False
    assert not overlay.enabled(ctx)


# ---- gathering the joints -------------------------------------------------------------------
def test_collect_places_each_glyph_at_its_mobility_frame_from_link_poses():
    a, b, c = robot()
    glyphs = {g.name: g for g in overlay.collect(bpy.context.scene, active="knee")}
    assert set(glyphs) == {"hip", "knee", "slide", "loop"}
    knee = glyphs["knee"]
    np.testing.assert_allclose(knee.T_world_mob, world(a) @ T_PM, atol=1e-6)
    Tb = world(b)
    Tb[:3, :3] /= 2.0  # the link frame is the rigid part of a scaled object
    np.testing.assert_allclose(knee.T_world_cframe, Tb, atol=1e-6)
    np.testing.assert_allclose(knee.parent_origin, world(a)[:3, 3], atol=1e-6)
    np.testing.assert_allclose(knee.child_origin, world(b)[:3, 3], atol=1e-6)
    assert knee.active and not glyphs["hip"].active
    hip = glyphs["hip"]
    assert hip.parent_origin is None, "a joint to the world has the ground as parent"
    np.testing.assert_allclose(hip.T_world_mob, pose(0.3, 1.0, 0.0, 0.5), atol=1e-6)
    flags = {n: (g.tree, g.locked, g.virtual) for n, g in glyphs.items()}
    assert flags["slide"] == (True, False, True) and flags["loop"] == (False, True, False)


def test_hidden_links_bad_data_and_missing_parents_are_skipped_not_raised():
    a, b, c = robot()
    c.hide_set(True)
    names = {g.name for g in overlay.collect(bpy.context.scene)}
    assert names == {"hip", "knee"}
    c.hide_set(False)
    b["vart"]["joints"]["knee"]["q"] = [float("nan"), 0.0]
    names = {g.name for g in overlay.collect(bpy.context.scene)}
    assert names == {"hip", "slide", "loop"}
    bpy.context.scene.collection.objects.unlink(a)   # parent gone from the scene
    b["vart"]["joints"]["knee"]["q"] = [0.0, 0.0]
    names = {g.name for g in overlay.collect(bpy.context.scene)}
    assert names == {"slide", "loop"}


def test_scene_geometry_uses_msim_colours():
    robot()
    bpy.context.scene.vart.active_joint = "hip"
    geo = overlay.scene_geometry(bpy.context.scene)
    styles = list(geo.batches)
    colours = {s.color[:3] for s in styles}
    assert og.ULTRAMARINE[:3] in colours and og.RED[:3] in colours
    assert og.joint_color(True, False, True)[:3] in colours, "the virtual slide, lighter"
    assert any(s.dashed for s in styles) and any(not s.dashed for s in styles)
    assert max(s.width for s in styles) == og.WIDTH_ACTIVE
    for verts in geo.batches.values():
        assert verts.dtype == np.float32 and np.isfinite(verts).all()


def test_the_cache_key_changes_with_what_is_drawn_only():
    a, b, c = robot()
    scene = bpy.context.scene
    k0 = overlay.cache_key(scene)
    assert overlay.cache_key(scene) == k0
    schema.update_joint(b, "knee", q=[0.5, 0.0])
    k1 = overlay.cache_key(scene)
    assert k1 != k0
    b.location.x += 0.1
    bpy.context.view_layer.update()
    k2 = overlay.cache_key(scene)
    assert k2 != k1
    scene.vart.active_joint = "loop"
    k3 = overlay.cache_key(scene)
    assert k3 != k2
    c.hide_set(True)
    assert overlay.cache_key(scene) != k3
    plain = bpy.data.objects.new("Plain", None)
    scene.collection.objects.link(plain)
    c.hide_set(False)
    assert overlay.cache_key(scene) == k3, "objects that are not links do not matter"


def test_each_sublinkage_is_shaded_in_its_collections_colour():
    """B in sublinkage Leg (colour tag 4), C in Foot nested in it (no tag: the palette's
    second colour): their joints' link lines take the colour, with a diamond at the child
    link; A's stay MSim's. The cache key sees membership, disposition and tag; bad
    collection data draws unshaded."""
    from vart_addon.bridge import sublinkages as SL
    a, b, c = robot()
    scene = bpy.context.scene
    k0 = overlay.cache_key(scene)
    leg = bpy.data.collections.new("Leg")
    scene.collection.children.link(leg)
    foot = bpy.data.collections.new("Foot")
    leg.children.link(foot)
    leg.color_tag = 'COLOR_04'
    SL.write_disposition(leg, "driving")
    SL.write_disposition(foot, "driven")
    leg.objects.link(b)
    foot.objects.link(c)
    assert overlay.link_shades(scene, [a, b, c]) == {"B": og.TAG_COLORS["COLOR_04"],
                                                     "C": og.TAG_COLORS["COLOR_02"]}
    k1 = overlay.cache_key(scene)
    assert k1 != k0
    glyphs = {g.name: g for g in overlay.collect(scene)}
    assert glyphs["hip"].shade is None and glyphs["knee"].shade == og.TAG_COLORS["COLOR_04"]
    assert glyphs["slide"].shade == glyphs["loop"].shade == og.TAG_COLORS["COLOR_02"]
    geo = overlay.scene_geometry(scene)
    shaded = [s for s in geo.batches if s.color == og.TAG_COLORS["COLOR_04"]]
    assert [s.width for s in shaded] == [og.WIDTH_SHADE]
    plain = og.build([glyphs["knee"].__class__(**{**glyphs["knee"].__dict__, "shade": None})],
                     1.0)
    assert og.build([glyphs["knee"]], 1.0).segment_count == plain.segment_count + 12  # diamond
    SL.write_disposition(foot, "simultaneous")
    k2 = overlay.cache_key(scene)
    assert k2 != k1
    foot.color_tag = 'COLOR_07'
    assert overlay.cache_key(scene) != k2
    foot["vart"] = {"sublinkage": {"disposition": "sideways"}}
    assert overlay.link_shades(scene, [a, b, c]) == {}
    assert len(overlay.collect(scene)) == 4


def test_a_tool_draws_its_axes_its_waypoints_and_their_paths():
    from vart_addon.bridge import tools as TL
    from vart_addon.overlay import tool_geometry as tg
    a, b, c = robot()
    scene = bpy.context.scene
    k0 = overlay.cache_key(scene)
    TL.set_tool(c)
    geo = overlay.scene_geometry(scene)
    for i, style in enumerate(tg.TOOL_AXES):  # three axes from the tool's origin
        T = world(c)
        seg = geo.batches[style]
        assert np.allclose(seg[0], T[:3, 3], atol=1e-6)
        direction = (seg[1] - seg[0]) / np.linalg.norm(seg[1] - seg[0])
        assert np.allclose(direction, T[:3, i], atol=1e-6)
    assert tg.LINEAR_PATH not in geo.batches
    T1 = pose(0.5, 3.0, 1.0, 0.3)
    T2 = pose(0.9, 3.5, 1.2, 0.3)
    TL.key_waypoint(c, 1, world(c), "LINEAR", False)
    TL.key_waypoint(c, 10, T1, "LINEAR", False)
    TL.key_waypoint(c, 20, T2, "JOINT", False)
    assert overlay.cache_key(scene) != k0
    geo = overlay.scene_geometry(scene)
    line = geo.batches[tg.LINEAR_PATH]
    assert np.allclose(line, [world(c)[:3, 3], T1[:3, 3]], atol=1e-6)
    dashes = geo.batches[tg.JOINT_PATH]  # on the line between the last two, in pieces
    d = T2[:3, 3] - T1[:3, 3]
    for p in dashes:
        off = p - T1[:3, 3]
        assert np.linalg.norm(np.cross(off, d)) / np.linalg.norm(d) < 1e-5
    assert len(geo.batches[tg.WAYPOINT_AXES[0]]) == 6  # one x axis per waypoint
    for verts in geo.batches.values():
        assert verts.dtype == np.float32 and np.isfinite(verts).all()
    k1 = overlay.cache_key(scene)
    TL.key_waypoint(c, 20, T1, "JOINT", False)  # an edited waypoint redraws
    assert overlay.cache_key(scene) != k1
