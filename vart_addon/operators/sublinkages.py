"""Operators on sublinkages (MSim's hierarchy as Blender collections): Make Sublinkage, Set
Disposition, Dissolve Sublinkage.

A sublinkage is a collection marked with a disposition (:mod:`vart_addon.bridge.sublinkages`).
Each operator first syncs the scene's bridge (a scene refused as it is, is left as it is),
changes collections only, then syncs again: the bridge reads the hierarchy and validates it; if
that refuses (a link left in two sublinkages neither inside the other), the change is undone and
reported, nothing changed.
"""
import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

from ..bridge import BridgeError
from ..bridge import schema as S
from ..bridge import sublinkages as SL
from ..shared import bridge_cache
from ..solver.sublinkages import DISPOSITIONS
from . import support


def selected_links(context) -> list:
    """The links of the selection: a selected link, or the link a selected object hangs from
    (Blender parenting: a visual counts as its link), each once, in selection order."""
    out = []
    for ob in context.selected_objects:
        while ob is not None and not S.is_link(ob):
            ob = ob.parent
        if ob is not None and ob not in out:
            out.append(ob)
    return out


def _validate(context) -> None:
    """Sync the scene's bridge: it reads the new hierarchy (and re-analyses the solve)."""
    bridge_cache.bridge_for(context.scene).sync()


def _checked(context, change, undo):
    """``change()`` between two syncs of the scene's bridge: a scene refused as it was stays
    as it was; a change the second sync refuses is undone (``undo(result)``) and the error
    raised. Returns what ``change()`` returned."""
    _validate(context)
    result = change()
    try:
        _validate(context)
    except support.ERRORS:
        undo(result)
        raise
    return result


def _target(context, name: str):
    """The collection an operator acts on: ``name``, else the active link's sublinkage."""
    scene = context.scene
    if name:
        coll = bpy.data.collections.get(name)
        if coll is None or coll not in scene.collection.children_recursive:
            raise BridgeError(f"collection {name!r} is not in scene {scene.name!r}")
        return coll
    ob = context.active_object
    if ob is None or not S.is_link(ob):
        raise BridgeError("name a collection, or make active a link of a sublinkage")
    coll = SL.sublinkage_collection(scene, ob)
    if coll is None:
        raise BridgeError(f"link {ob.name!r} is in no sublinkage")
    return coll


class VART_OT_make_sublinkage(bpy.types.Operator):
    bl_idname = "vart.make_sublinkage"
    vart_menu = (support.MenuItem("links", submenu="VART_MT_sublinkage"),
            support.MenuItem("sublinkage"))
    bl_label = "Make Sublinkage"
    bl_description = ("Move the selected links (with the objects hanging from them) into a new "
                      "collection nested in the one that held them: a sublinkage with the "
                      "chosen disposition")
    bl_options = {'REGISTER', 'UNDO'}

    name: StringProperty(name="Name", description="Name of the new collection",
                         default="Sublinkage")
    disposition: EnumProperty(name="Disposition", items=SL.DISPOSITION_ITEMS, default="driving",
                              description="When its goals are solved, relative to its parent's")

    @classmethod
    def poll(cls, context):
        if not support.object_mode(cls, context):
            return False
        if not selected_links(context):
            cls.poll_message_set("Select the links of the new sublinkage")
            return False
        return True

    def invoke(self, context, event):
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        obs = selected_links(context)

        def go():
            coll = _checked(
                context, lambda: SL.make_sublinkage(context.scene, obs, self.name,
                                                    self.disposition),
                lambda made: SL.dissolve(context.scene, made))
            self.report({'INFO'}, f"Sublinkage {coll.name!r} ({self.disposition}): "
                        + ", ".join(ob.name for ob in obs))
            return {'FINISHED'}
        return support.run(self, go)


class VART_OT_set_disposition(bpy.types.Operator):
    bl_idname = "vart.set_disposition"
    vart_menu = tuple(support.MenuItem("sublinkage", text=f"Set {d.title()}",
                                  props=(("disposition", d),)) for d in DISPOSITIONS)
    bl_label = "Set Disposition"
    bl_description = ("Set a sublinkage's disposition (the active link's sublinkage, or the "
                      "collection named); a plain collection named here becomes a sublinkage")
    bl_options = {'REGISTER', 'UNDO'}

    collection: StringProperty(name="Collection", description="The collection (empty: the "
                               "active link's sublinkage)")
    disposition: EnumProperty(name="Disposition", items=SL.DISPOSITION_ITEMS, default="driving",
                              description="When its goals are solved, relative to its parent's")

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def execute(self, context):
        def go():
            coll = _target(context, self.collection)
            raw = coll.get(S.KEY)
            before = raw.to_dict() if hasattr(raw, "to_dict") else raw

            def undo(_):
                if before is None:
                    SL.unmark(coll)
                else:
                    coll[S.KEY] = before
            _checked(context, lambda: SL.write_disposition(coll, self.disposition), undo)
            return {'FINISHED'}
        return support.run(self, go)


class VART_OT_dissolve_sublinkage(bpy.types.Operator):
    bl_idname = "vart.dissolve_sublinkage"
    vart_menu = (support.MenuItem("sublinkage"),)
    bl_label = "Dissolve Sublinkage"
    bl_description = ("Dissolve a sublinkage (the active link's, or the collection named): its "
                      "links and nested collections go back to the collection it is nested in, "
                      "and it is removed")
    bl_options = {'REGISTER', 'UNDO'}

    collection: StringProperty(name="Collection", description="The sublinkage's collection "
                               "(empty: the active link's sublinkage)")
    keep_collection: BoolProperty(name="Keep Collection", default=False,
                                  description="Only stop being a sublinkage: the collection "
                                  "stays, as a plain group")

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def execute(self, context):
        def go():
            _validate(context)
            coll = _target(context, self.collection)
            if SL.disposition_of(coll) is None:
                raise BridgeError(f"collection {coll.name!r} is not a sublinkage")
            name = coll.name
            SL.dissolve(context.scene, coll, self.keep_collection)
            _validate(context)  # dissolving merges: it cannot leave a link in two
            self.report({'INFO'}, f"Sublinkage {name!r} dissolved")
            return {'FINISHED'}
        return support.run(self, go)


classes = (VART_OT_make_sublinkage, VART_OT_set_disposition, VART_OT_dissolve_sublinkage)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
