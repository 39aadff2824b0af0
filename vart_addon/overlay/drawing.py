"""The joint overlay in the 3D viewport: all GPU drawing of vart is here.

What is drawn comes from :mod:`vart_addon.overlay.geometry` (pure numpy, tested without
Blender); this module only gathers the scene's joints and link poses through the bridge
(:func:`collect`, also testable headless) and draws the resulting line lists.

- The draw handler (``SpaceView3D``, ``'WINDOW'``, ``'POST_VIEW'``) is added by
  :func:`register` and removed by :func:`unregister`. In background mode (``bpy.app.background``:
  no GPU, no viewport) it is never added, and the callback returns at once if called.
- Shaders are created lazily, on the first draw (``POLYLINE_UNIFORM_COLOR``: wide lines in
  Blender 4.2 to 5.x).
- A joint whose child link is in a sublinkage (a marked collection,
  :mod:`vart_addon.bridge.sublinkages`) is shaded in the sublinkage's colour (its collection's
  colour tag); a hierarchy the bridge refuses is drawn unshaded.
- GPU batches are cached and rebuilt only when a cheap key changes: the scene, the active
  joint, the sublinkages, and every link's ``ob["vart"]`` and world matrix (under a millisecond for dozens of
  joints), so orbiting the view costs one draw call per style.
- ``scene.vart.overlay_enabled`` toggles it; so does the viewport's own Overlays toggle.
- Joints are drawn on top of geometry (no depth test), so the structure shows through
  meshes; joints of hidden child links are not drawn. Bad data is skipped, never raised.
- A link with a balance goal (*Balance*, *CoM Target*, *CoM Over*) adds its robot's support
  polygon, the region its centre of mass must stay over and the centre of mass's plumb line
  (:mod:`vart_addon.overlay.support_geometry`).
- A tool (:mod:`vart_addon.bridge.tools`) adds its frame's axes, its waypoints' frames and
  the path between them (:mod:`vart_addon.overlay.tool_geometry`).
"""
from __future__ import annotations

import bpy
import numpy as np

from ..bridge import BridgeError, SchemaError, scene_key, schema
from ..bridge import poses as P
from ..bridge import sublinkages as SL
from ..bridge import tools as TL
from ..properties import gravity_of
from . import geometry as og
from . import support_geometry as sg
from . import tool_geometry as tg

_state: dict = {"handle": None, "shader": None, "key": None, "batches": []}


# ---- gathering (no GPU) ---------------------------------------------------------------------
def _visible(ob) -> bool:
    try:
        return bool(ob.visible_get())
    except (RuntimeError, TypeError):  # not in the context's view layer
        return not ob.hide_viewport


def link_poses(objects) -> dict:
    """Rigid world poses (4x4) of link objects by name; objects with a degenerate or
    non-finite matrix are left out."""
    out = {}
    for ob in objects:
        try:
            out[ob.name] = P.rigid_and_scale(P.observe(ob), ob.name)[0]
        except BridgeError:
            continue
    return out


def collect(scene, active: str = "") -> list:
    """:class:`~vart_addon.overlay.geometry.JointGlyph` of every drawable joint of
    ``scene``: joints of visible child links whose data validates and whose parent (if
    any) is in the scene. ``active`` names the active joint (drawn wider)."""
    links = [ob for ob in scene.objects if schema.is_link(ob)]
    poses = link_poses(links)
    shades = link_shades(scene, links)
    glyphs = []
    for ob in sorted(links, key=lambda o: o.name):
        if ob.name not in poses or not _visible(ob):
            continue
        try:
            _, joints = schema.read_object(ob)
        except SchemaError:
            continue
        for j in joints:
            g = og.glyph_from_joint(j, poses, active, shades.get(j.child))
            if g is not None:
                glyphs.append(g)
    return glyphs


def hierarchy(scene, links) -> SL.Hierarchy:
    """The scene's sublinkages as the bridge reads them (none if it refuses them)."""
    try:
        return SL.read_hierarchy(scene, links)
    except BridgeError:
        return SL.EMPTY


def link_shades(scene, links) -> dict:
    """The colour (RGBA) of each link in a sublinkage, by link name."""
    h = hierarchy(scene, links)
    colors = {s.name: og.sublinkage_color(s.color_tag, i) for i, s in enumerate(h.sublinkages)}
    return {link: colors[home] for link, home in h.homes}


def scene_geometry(scene) -> og.OverlayGeometry:
    """The overlay of ``scene`` as line lists grouped by style."""
    sv = getattr(scene, "vart", None)
    glyphs = collect(scene, getattr(sv, "active_joint", ""))
    size = og.auto_size(glyphs)
    geo = og.build(glyphs, size)
    extra = [support_geometry(scene, size), tool_geometry(scene, size)]
    for style, seg in [item for part in extra for item in part.items()]:
        have = geo.batches.get(style)
        seg = np.asarray(seg, np.float32)
        geo.batches[style] = seg if have is None else np.concatenate([have, seg])
    return geo


def tool_geometry(scene, size: float) -> dict:
    """``{Style: segments}`` of every visible tool and its waypoints (see
    :mod:`vart_addon.overlay.tool_geometry`); waypoints that do not read are left out."""
    out: dict = {}
    for ob in sorted((o for o in scene.objects if schema.is_link(o) and TL.is_tool(o)),
                     key=lambda o: o.name):
        T = link_poses([ob]).get(ob.name)
        if T is None or not _visible(ob):
            continue
        try:
            wp = TL.read_waypoints(ob)
        except BridgeError:
            wp = None
        for style, seg in tg.tool_segments(T, wp, size).items():
            out[style] = seg if style not in out else np.concatenate([out[style], seg])
    return out


def support_geometry(scene, size: float) -> dict:
    """``{Style: segments}`` of every link's balance goals (see
    :mod:`vart_addon.overlay.support_geometry`); links or joints whose data does not validate
    are left out."""
    obs = [ob for ob in scene.objects if schema.is_link(ob)]
    links, joints = {}, []
    for ob in obs:
        try:
            link, js = schema.read_object(ob)
        except SchemaError:
            continue
        if link is not None:
            links[ob.name] = link
        joints += js
    hosts = [n for n, rec in links.items() if any(getattr(rec, k, False) for k in sg.KINDS)]
    if not hosts:
        return {}
    poses = link_poses(obs)
    out: dict = {}
    for host in sorted(hosts):
        for style, seg in sg.support_segments(host, links, joints, poses, gravity_of(scene),
                                              size).items():
            out[style] = seg if style not in out else np.concatenate([out[style], seg])
    return out


def cache_key(scene) -> tuple:
    """Changes whenever the drawing may change (see the module doc)."""
    sv = getattr(scene, "vart", None)
    links = [ob for ob in scene.objects if schema.is_link(ob)]
    parts = [scene_key(scene), getattr(sv, "active_joint", ""), hierarchy(scene, links),
             gravity_of(scene)]
    for ob in links:
        raw = ob.get(schema.KEY)
        data = raw.to_dict() if hasattr(raw, "to_dict") else raw
        parts.append((ob.name, repr(data), P.observe(ob), _visible(ob)))
        if TL.is_tool(ob):
            parts.append(TL.fingerprint(ob))
    return tuple(parts)


# ---- drawing (GPU) --------------------------------------------------------------------------
def _shader():
    if _state["shader"] is None:
        import gpu
        _state["shader"] = gpu.shader.from_builtin('POLYLINE_UNIFORM_COLOR')
    return _state["shader"]


def _batches(scene) -> list:
    key = cache_key(scene)
    if key != _state["key"]:
        from gpu_extras.batch import batch_for_shader
        shader = _shader()
        geo = scene_geometry(scene)
        _state["batches"] = [(style, batch_for_shader(shader, 'LINES', {"pos": verts}))
                             for style, verts in geo.batches.items() if len(verts)]
        _state["key"] = key
    return _state["batches"]


def enabled(context) -> bool:
    """Whether the overlay should draw in this context."""
    if bpy.app.background:
        return False
    sv = getattr(context.scene, "vart", None)
    if sv is None or not getattr(sv, "overlay_enabled", False):
        return False
    overlay = getattr(context.space_data, "overlay", None)
    return overlay is None or overlay.show_overlays


def draw():
    """The POST_VIEW draw callback."""
    context = bpy.context
    try:
        if not enabled(context):
            return
        batches = _batches(context.scene)
    except Exception as e:  # never break the viewport
        print(f"vart overlay: {e}")
        _state["key"] = None
        return
    if not batches:
        return
    import gpu
    shader = _shader()
    scale = context.preferences.system.pixel_size
    gpu.state.blend_set('ALPHA')
    gpu.state.depth_test_set('NONE')
    shader.bind()
    shader.uniform_float("viewportSize", gpu.state.viewport_get()[2:])
    for style, batch in batches:
        shader.uniform_float("lineWidth", style.width * scale)
        shader.uniform_float("color", style.color)
        batch.draw(shader)
    gpu.state.blend_set('NONE')


def _redraw_viewports():
    wm = getattr(bpy.context, "window_manager", None)
    for window in getattr(wm, "windows", ()):
        for area in window.screen.areas:
            if area.type == 'VIEW_3D':
                area.tag_redraw()


def is_registered() -> bool:
    return _state["handle"] is not None


def register():
    if bpy.app.background or _state["handle"] is not None:
        return
    _state["handle"] = bpy.types.SpaceView3D.draw_handler_add(draw, (), 'WINDOW', 'POST_VIEW')
    _redraw_viewports()


def unregister():
    handle = _state["handle"]
    if handle is not None:
        bpy.types.SpaceView3D.draw_handler_remove(handle, 'WINDOW')
        _redraw_viewports()
    _state.update(handle=None, shader=None, key=None, batches=[])
