"""The Sublinkages panel: the scene's sublinkages (collections with a disposition), each with
its disposition, editable in place, its links, and a Dissolve button; the active link's
sublinkage; Make Sublinkage.

The disposition field is ``Collection.vart_disposition``, a property without storage of its
own: its getter and setter read and write the collection's ``["vart"]["sublinkage"]``
(:mod:`vart_addon.bridge.sublinkages`). It changes a sublinkage's disposition only (a plain
collection becomes one through *Set Disposition* or *Make Sublinkage*, which validate).
"""
import bpy
from bpy.props import EnumProperty

from ..bridge import BridgeError, schema
from ..bridge import sublinkages as SL
from ..solver.sublinkages import DISPOSITIONS
from . import common as C


def _get(coll) -> int:
    try:
        d = SL.disposition_of(coll)
    except BridgeError:
        return 0
    return DISPOSITIONS.index(d) if d is not None else 0


def _set(coll, value: int) -> None:
    try:
        if SL.disposition_of(coll) is not None:
            SL.write_disposition(coll, DISPOSITIONS[value])
    except BridgeError:
        pass  # a malformed property is shown as an error by the panel, not overwritten


def _icon(coll) -> str:
    tag = coll.color_tag
    return f"COLLECTION_{tag}" if tag.startswith("COLOR_") else 'OUTLINER_COLLECTION'


class VART_PT_sublinkages(C.Panel, bpy.types.Panel):
    bl_idname = "VART_PT_sublinkages"
    bl_label = "Sublinkages"
    bl_order = 2  # beside Active Link, after it (registered after panels.scene)

    def draw(self, context):
        layout = self.layout
        scene = context.scene
        ob = context.active_object
        try:
            colls = SL.sublinkage_collections(scene)
            h = SL.read_hierarchy(scene, scene.objects)
            home = SL.sublinkage_collection(scene, ob) if schema.is_link(ob) else None
        except BridgeError as e:
            layout.label(text="Sublinkages: bad data", icon='ERROR')
            layout.label(text=str(e))
            return
        if schema.is_link(ob):
            layout.label(text=f"{ob.name} is in " + (f"sublinkage {home.name}" if home else
                                                     "no sublinkage (the top)"),
                         icon='OBJECT_DATA')
        C.op(layout, "vart.make_sublinkage", icon='COLLECTION_NEW')
        if not colls:
            layout.label(text="No sublinkage: each is a collection", icon='INFO')
            return
        depth = {s.name: 0 for s in h.sublinkages}
        for s in h.sublinkages:
            if s.parent is not None:
                depth[s.name] = depth[s.parent] + 1
        count = {s.name: 0 for s in h.sublinkages}
        for _link, name in h.homes:
            count[name] += 1
        col = layout.column(align=True)
        for coll in colls:
            row = col.row(align=True)
            row.separator(factor=1.5 * depth.get(coll.name, 0))
            row.label(text=f"{coll.name} ({count.get(coll.name, 0)})", icon=_icon(coll))
            row.prop(coll, "vart_disposition", text="")
            C.op(row, "vart.dissolve_sublinkage", text="", icon='X', collection=coll.name)


classes = (VART_PT_sublinkages,)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    # A property added at run time: the stubs' Collection has no `vart_disposition`.
    bpy.types.Collection.vart_disposition = EnumProperty(
        name="Disposition", items=SL.DISPOSITION_ITEMS, get=_get, set=_set, options=set(),
        description="When the sublinkage's goals are solved, relative to its parent's")


def unregister():
    del bpy.types.Collection.vart_disposition
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
