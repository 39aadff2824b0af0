"""Whether vart data may have changed since it was last read, without reading it.

Reading every link's ``ob["vart"]`` costs about 13 us per link (8 ms on the 271-link tower):
too much for what runs at every frame change or every update (live mode's check that the
frames it remembers still hold, the joint list's check that its rows are current). They
compare :func:`edit_count` instead, and read the links again only when it changed. It
changes with:

- every write through vart (:func:`.bridge.schema.edits`): its panels, operators, importers
  and Python API;
- every depsgraph update that tags a link object's data (:func:`data_tagged`): a property
  edited in Blender's UI tags its object's data, and so does ``ob.update_tag()``.

Moving objects (a drag, live mode's poses, a transform by hand) tags only their transforms,
and does not count. A script that writes ``ob["vart"]`` itself, outside vart's API, calls
``ob.update_tag()`` afterwards (as Blender's drivers also need) for live mode and the joint
list to see it.
"""
from __future__ import annotations

import bpy
from bpy.app.handlers import persistent

from ..bridge import schema as S
from . import handlers as H

#: How many depsgraph updates tagged a link object's data.
_tagged = [0]


def edit_count() -> tuple:
    """A value that changes whenever vart data may have been edited (see the module doc)."""
    return (S.edits(), _tagged[0])


def data_tagged(depsgraph) -> bool:
    """True if ``depsgraph``'s updates tag a link object's data (not only its transform)."""
    for u in depsgraph.updates:
        if u.is_updated_geometry and isinstance(u.id, bpy.types.Object) \
                and S.is_link(u.id.original):
            return True
    return False


@persistent
def on_depsgraph_update(scene, depsgraph=None):
    try:
        if depsgraph is None or data_tagged(depsgraph):
            _tagged[0] += 1
    except Exception:  # noqa: BLE001 - nothing may raise into Blender's update loop
        _tagged[0] += 1


def register() -> None:
    # first: before the handlers that compare the count
    H.add(bpy.app.handlers.depsgraph_update_post, on_depsgraph_update, first=True)


def unregister() -> None:
    H.remove(bpy.app.handlers.depsgraph_update_post, on_depsgraph_update)
