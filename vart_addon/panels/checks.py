"""The Will It Run? panel of the sidebar: the checks of the frame range (the ground and
tolerance of clearance; friction, contact tolerance, torque margin and slip tolerance of the
statics; the link pairs clearance leaves out, to add and remove by hand; Will It Run? runs
both, Clearance Only the first) and what the last check found,
with the failing frames and the joints by peak static torque (a click goes there); Replay in
MuJoCo with its timing (the scene's, or re-timed as an export would be, within the
acceleration limits below) and what the last replay measured; Plot Curves and the joints'
peaks against their limits, worst first (a click selects the joint and jumps to the frame)."""

import bpy

from . import common as C
from .animation import bake_lines


class VART_PT_checks(C.Panel, bpy.types.Panel):
    bl_idname = "VART_PT_checks"
    bl_label = "Will It Run?"
    bl_order = 5  # after Animation, in registration order

    def draw(self, context):
        layout = self.layout
        sv = C.settings(context)
        col = layout.column(align=True)
        col.prop(sv, "clearance_ground", text="Ground")
        col.prop(sv, "clearance_tolerance")
        col.prop(sv, "statics_friction")
        col.prop(sv, "statics_tolerance")
        col.prop(sv, "statics_torque_margin")
        col.prop(sv, "statics_slip")
        _ignored_pairs(layout, sv)
        row = layout.row(align=True)
        C.op(row, "vart.will_it_run", icon='CHECKMARK')
        C.op(row, "vart.check_clearance", text="Clearance Only", icon='MOD_PHYSICS')
        _outcome(layout, getattr(sv, "clearance_summary", ""), "Contacts on",
                 "Not checked yet")
        _outcome(layout, getattr(sv, "statics_summary", ""), "fail", "Statics not checked yet")
        if len(sv.statics_rows):
            layout.label(text="Failing frames, joints by peak torque / limit:")
            layout.template_list("VART_UL_statics", "", sv, "statics_rows", sv,
                                 "statics_index", rows=4)
        row = layout.row(align=True)
        C.op(row, "vart.replay_physics", icon='PHYSICS', retime=sv.replay_timing,
             acceleration_limit=sv.plot_acceleration_limit,
             linear_acceleration_limit=sv.plot_linear_acceleration_limit)
        row.prop(sv, "replay_timing", text="")
        _outcome(layout, getattr(sv, "replay_summary", ""), "effort limit",
                 "Not replayed yet", lines=sentence_lines)
        col = layout.column(align=True)
        C.op(col, "vart.plot_curves", icon='GRAPH')
        col.prop(sv, "plot_acceleration_limit")
        col.prop(sv, "plot_linear_acceleration_limit")
        if len(sv.peaks):
            layout.label(text="Peaks / limit (worst first): v a f")
            layout.template_list("VART_UL_peaks", "", sv, "peaks", sv, "peaks_index", rows=4)


def _ignored_pairs(layout, sv) -> None:
    """The clearance check's ignored pairs: a list, with Ignore Pair (the two selected
    links), Check Pair Again (the active row) and Check Every Pair beside it."""
    layout.label(text=f"Ignored pairs ({len(sv.clearance_ignored)}):")
    row = layout.row()
    row.template_list("VART_UL_ignored_pairs", "", sv, "clearance_ignored", sv,
                      "clearance_ignored_index", rows=3)
    col = row.column(align=True)
    col.operator("vart.add_ignored_pair", text="", icon='ADD')
    col.operator("vart.remove_ignored_pair", text="", icon='REMOVE')
    col.operator("vart.clear_ignored_pairs", text="", icon='X')


class VART_UL_ignored_pairs(bpy.types.UIList):
    """A pair of links the clearance check leaves out per row: the two links and why (an
    SRDF's reason, or by hand)."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname,
                  index=0, flt_flag=0):
        a = item.a.name if item.a is not None else "(deleted)"
        b = item.b.name if item.b is not None else "(deleted)"
        row = layout.row(align=True)
        row.label(text=f"{a} / {b}", icon='UNLINKED')
        row.label(text=item.reason)


def _percent(fraction: float) -> str:
    return "-" if fraction < 0 else f"{fraction:.0%}"


class VART_UL_peaks(bpy.types.UIList):
    """A joint per row: its name, peak velocity, acceleration and force as fractions of their
    limits (- without one) and the frame of the worst; a click selects it and jumps there."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname,
                  index=0, flt_flag=0):
        row = layout.row(align=True)
        row.label(text=item.name, icon='ERROR' if item.worst > 1.0 else 'CON_TRACKTO')
        row.label(text=" ".join(_percent(f) for f in (item.velocity, item.acceleration,
                                                       item.force)))
        row.label(text=str(item.frame), icon='TIME')


class VART_UL_statics(bpy.types.UIList):
    """A failing frame (its first reason) or a joint (its peak static torque as a share of
    its effort limit) per row, with the frame; a click goes there."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname,
                  index=0, flt_flag=0):
        row = layout.row(align=True)
        if item.kind == 'FRAME':
            row.label(text=item.name, icon='ERROR')
        else:
            row.label(text=item.name, icon='ERROR' if item.share > 1.0 else 'CON_TRACKTO')
            row.label(text=_percent(item.share))
            row.label(text=str(item.frame), icon='TIME')


def sentence_lines(summary: str) -> list[str]:
    """A summary of short sentences (the replay's) as lines: a sentence each, the items of a
    list after its colon (``; ``-separated) one a line below it."""
    out = []
    for sentence in summary.split(". "):
        head, colon, items = sentence.partition(": ")
        out.append(head + colon.rstrip())
        out += ["  " + item.strip() for item in items.split("; ") if item.strip()]
    return out


def _outcome(layout, summary: str, bad: str, none: str, lines=bake_lines):
    """A summary as short lines in a box (``lines`` splits it); an error icon when it holds
    ``bad`` or a fall."""
    if not summary:
        layout.label(text=none)
        return
    box = layout.box()
    warn = bad in summary or "FALLS" in summary
    for i, line in enumerate(lines(summary)):
        icon = ('ERROR' if warn else 'CHECKMARK') if i == 0 else 'BLANK1'
        box.label(text=line, icon=icon)


classes = (VART_UL_peaks, VART_UL_statics, VART_UL_ignored_pairs, VART_PT_checks)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
