"""The joint list's rows: a runtime mirror of the scene's joints, kept in sync.

Joints are ID properties on their child link objects (:mod:`vart_addon.bridge.schema`), not a
collection a UIList could show, so ``WindowManager.vart_joint_rows`` mirrors them (name, type,
parent, child, real/virtual, tree/closure, locked, or the validation error of an object whose
data is bad). It is runtime UI data: nothing in the scene is written to keep it.

When it is refreshed:

- from a ``depsgraph_update_post`` handler and a ``load_post`` handler;
- from a one-shot timer that the list panel schedules when it finds the mirror stale
  (``draw()`` may not write ID data, so it only compares a cheap signature and schedules).

The signature is every scalar leaf of each link's ``ob["vart"]`` group (strings, bools, ints,
object pointers: joint names, types, parents, flags), so moving a slider (a float ``q``)
does not rebuild the list, while adding, renaming, re-parenting, locking or retyping does.
Reading it costs about 30 us per link, so the handler and ``draw()`` read it only when the
scene, its link objects' names or :func:`.shared.edit_count.edit_count` changed since the
last refresh (a drag's updates, and a redraw during playback, change none of them).

Selection: the list's active index is ``scene.vart.joint_index``; the active joint is
``scene.vart.active_joint``. :func:`reconcile_selection` keeps them in step: a clicked row
(the index changed) sets the active joint; an active joint set elsewhere (an operator) or a
re-ordered list moves the index.
"""

from __future__ import annotations

import bpy
from bpy.app.handlers import persistent
from bpy.props import BoolProperty, CollectionProperty, IntProperty, StringProperty

from ..bridge import SchemaError, scene_key, schema
from ..shared import handlers as H
from ..shared.edit_count import edit_count
from . import common as C

_KEY: dict = {}        # "rows": signature of what the rows show
_SELECTION: dict = {}  # scene_key(scene) -> (joint_index, active_joint) last seen


class VART_PG_joint_row(bpy.types.PropertyGroup):
    """One row of the joint list (``name`` is the joint's name)."""

    child: StringProperty(name="Child", description="Child link (the object holding the joint)")
    parent: StringProperty(name="Parent", description="Parent link; empty for the world")
    jtype: StringProperty(name="Type")
    dof: IntProperty(name="DoF")
    virtual: BoolProperty(name="Virtual")
    tree: BoolProperty(name="Tree", description="In the spanning tree (else a closure joint)")
    locked: BoolProperty(name="Locked")
    error: StringProperty(name="Error", description="Why this link's data cannot be read")


classes = (VART_PG_joint_row,)


# ---- signature ------------------------------------------------------------------------------
def _scalars(group, prefix=()) -> list:
    out = []
    for k in sorted(group.keys()):
        v = group[k]
        if hasattr(v, "keys") and hasattr(v, "to_dict"):
            out += _scalars(v, prefix + (k,))
        elif v is None or isinstance(v, (str, bool, int)):
            out.append((prefix + (k,), v))
        elif isinstance(v, bpy.types.ID):
            out.append((prefix + (k,), "ID:" + v.name))
    return out


def signature(scene) -> tuple:
    """What the rows depend on, cheaply: the scene and every scalar leaf of every link's
    property group (floats and arrays are left out)."""
    parts = [scene.name_full]
    for ob in C.link_objects(scene):
        raw = ob.get(schema.KEY)
        parts.append((ob.name, tuple(_scalars(raw)) if hasattr(raw, "keys") else repr(raw)))
    return tuple(parts)


def _quick_key(scene) -> tuple:
    """What changes when the rows may be stale, without reading the links' data: the scene,
    its link objects' names and :func:`.shared.edit_count.edit_count`."""
    return (scene.name_full, tuple(ob.name for ob in C.link_objects(scene)), edit_count())


def is_stale(scene) -> bool:
    if _KEY.get("quick") == _quick_key(scene):
        return False
    return _KEY.get("rows") != signature(scene)


# ---- rows -----------------------------------------------------------------------------------
def row_data(scene) -> list[dict]:
    """The rows for ``scene``: one per joint (sorted by name within their child link, links
    by name), one error row per link whose data does not validate."""
    out = []
    for ob in C.link_objects(scene):
        try:
            _, joints = schema.read_object(ob)
        except SchemaError as e:
            out.append(dict(name=ob.name, child=ob.name, error=str(e)))
            continue
        for j in sorted(joints, key=lambda j: j.name):
            out.append(dict(name=j.name, child=j.child, parent=j.parent or "", jtype=j.type,
                            dof=j.dof, virtual=j.virtual, tree=j.tree, locked=j.locked))
    return out


def refresh(scene, wm=None, force: bool = False, quick: bool = False) -> bool:
    """Rebuild ``wm.vart_joint_rows`` for ``scene`` if the scene's joints changed (or
    ``force``); then reconcile the selection. True if the rows were rebuilt. ``quick`` (the
    depsgraph handler, at every update): the rows are taken as current while the scene, its
    link objects' names and :func:`.shared.edit_count.edit_count` are as at the last refresh,
    without reading every link (8 ms on the 271-link tower, at every step of a drag)."""
    wm = wm if wm is not None else _window_manager()
    if wm is None or not hasattr(wm, "vart_joint_rows"):
        return False
    quick_key = _quick_key(scene)
    rebuilt = False
    if force or not quick or _KEY.get("quick") != quick_key:
        key = signature(scene)
        rebuilt = force or _KEY.get("rows") != key
        if rebuilt:
            rows = wm.vart_joint_rows
            rows.clear()
            for d in row_data(scene):
                item = rows.add()
                for k, v in d.items():
                    setattr(item, k, v)
        _KEY["rows"], _KEY["quick"] = key, quick_key
    reconcile_selection(scene, wm, rows_changed=rebuilt)
    return rebuilt


def reconcile_selection(scene, wm, rows_changed: bool = False) -> None:
    """Keep ``scene.vart.joint_index`` and ``scene.vart.active_joint`` in step (see the
    module doc). Writes only what differs."""
    sv = C.settings(scene)
    if sv is None:
        return
    rows = wm.vart_joint_rows
    names = [r.name if not r.error else None for r in rows]
    idx, active = sv.joint_index, sv.active_joint
    last = _SELECTION.get(scene_key(scene))
    if not rows_changed and last == (idx, active):
        return  # nothing moved since it was last reconciled
    clicked = (not rows_changed and last is not None and idx != last[0]
               and 0 <= idx < len(names) and names[idx] is not None)
    if clicked and names[idx] != active:
        sv.active_joint = names[idx]
    elif active and active in names and names.index(active) != idx:
        sv.joint_index = names.index(active)
    _SELECTION[scene_key(scene)] = (sv.joint_index, sv.active_joint)


def filter_flags(rows, selected: set, bitflag: int) -> list[int]:
    """UIList flags that keep the rows touching a selected link (as child or parent); all
    rows when nothing is selected."""
    if not selected:
        return [bitflag] * len(rows)
    return [bitflag if (r.child in selected or r.parent in selected) else 0 for r in rows]


# ---- keeping in sync ------------------------------------------------------------------------
def _window_manager():
    wm = getattr(bpy.context, "window_manager", None)
    if wm is None and len(bpy.data.window_managers):
        wm = bpy.data.window_managers[0]
    return wm


def _tag_sidebars():
    wm = _window_manager()
    for window in getattr(wm, "windows", ()):
        for area in window.screen.areas:
            if area.type == C.SPACE:
                for region in area.regions:
                    if region.type == C.REGION:
                        region.tag_redraw()


@persistent
def on_depsgraph_update(scene, depsgraph=None):
    if bpy.context.scene is not None and scene != bpy.context.scene:
        return  # rows show the context scene only
    try:
        if refresh(scene, quick=True):
            _tag_sidebars()
    except Exception as e:  # a handler must never break Blender's update loop
        print(f"vart: could not refresh the joint list: {e}")


@persistent
def on_load_post(*_args):
    _KEY.clear()
    _SELECTION.clear()
    scene = bpy.context.scene
    if scene is not None:
        on_depsgraph_update(scene)


def _deferred_refresh():
    scene = bpy.context.scene
    if scene is not None:
        refresh(scene)
        _tag_sidebars()
    return None  # one shot


def request_refresh(context) -> None:
    """Called from draw(): schedule a refresh if the rows are stale or the list's index
    and the active joint disagree. Writes nothing itself."""
    scene = context.scene
    sv = C.settings(scene)
    stale = is_stale(scene)
    if not stale and sv is not None:
        last = _SELECTION.get(scene_key(scene))
        stale = last != (sv.joint_index, sv.active_joint)
    if stale and not bpy.app.timers.is_registered(_deferred_refresh):
        bpy.app.timers.register(_deferred_refresh, first_interval=0.0)


_HANDLERS = ((bpy.app.handlers.depsgraph_update_post, on_depsgraph_update),
             (bpy.app.handlers.load_post, on_load_post))


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.WindowManager.vart_joint_rows = CollectionProperty(type=VART_PG_joint_row)
    for handlers, fn in _HANDLERS:
        H.add(handlers, fn)
    _KEY.clear()
    _SELECTION.clear()


def unregister():
    for handlers, fn in _HANDLERS:
        H.remove(handlers, fn)
    if bpy.app.timers.is_registered(_deferred_refresh):
        bpy.app.timers.unregister(_deferred_refresh)
    del bpy.types.WindowManager.vart_joint_rows
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
    _KEY.clear()
    _SELECTION.clear()
