"""The sidebar rows of a joint's or a link's goals, one per stored goal kind
(:mod:`vart_addon.bridge.goal_fields`): a switch for a toggle kind (*Lock*), else the kind's
label, its values in the scene's units and *Set* / *Clear* buttons (the operators of
:mod:`vart_addon.operators.goals`)."""

from __future__ import annotations

from ..bridge import goal_fields as GF
from ..operators.goals import idnames
from . import common as C


def _text(g, rec, angular, scene) -> str:
    """The values of goal ``g`` on record ``rec``: configurations in the joint's units (a
    masked-out DoF as "-"), scalars and vectors with their unit (signs as ``+ - +``), a
    pose's position."""
    if not g.is_on(rec):
        return "none"
    vals = g.values_of(rec)
    mask = next((vals[v.name] for v in g.values if v.kind == "mask"), None)
    parts = []
    for i, v in enumerate(g.values):
        x = vals[v.name]
        if v.kind == "config":
            ms = mask if mask is not None else (True,) * len(x)
            text = ", ".join(C.fmt(q, a, scene) if m else "-" for q, a, m in zip(x, angular, ms))
        elif v.kind == "scalar":
            text = f"{x:g} {v.unit_for(bool(angular and angular[0]))}".rstrip()
        elif v.kind == "vector" and v.signs:  # as + and -, the free ones (0) at the end left out
            n = max((k + 1 for k, f in enumerate(x) if f), default=0)
            text = " ".join("+" if f > 0 else "-" if f < 0 else "0" for f in x[:n]) or "free"
        elif v.kind == "vector":
            text = "(" + ", ".join(f"{f:.3g}" for f in x) + ")" + (f" {v.unit}" if v.unit else "")
        elif v.kind == "pose":
            text = "at (" + ", ".join(C.fmt(f, False, scene) for f in x[:3, 3]) + ")"
        elif v.kind == "choice":
            text = str(x)
        else:
            continue
        parts.append(text if i == 0 else f"{(v.label or v.name).lower()} {text}")
    return ", ".join(parts)


def draw(layout, scene, rec, owner: str, angular=(), dof: int = 0) -> None:
    """Draw the goal rows of record ``rec`` (JointData or LinkData) of ``owner`` ("joint"
    or "link") into ``layout``; ``angular`` and ``dof``: the joint's."""
    target = 'JOINT' if owner == "joint" else 'LINK'
    for g in GF.goals_of(owner):
        if g.kind.one_dof and dof != 1:
            continue
        if g.kind.toggle:
            row = layout.row(align=True)
            if g.is_on(rec):
                C.op(row, "vart.unlock", text="Locked", icon='LOCKED', depress=True,
                     target=target)
            else:
                C.op(row, "vart.lock", text="Lock", icon='UNLOCKED', target=target)
            continue
        layout.label(text=f"{g.kind.label or g.name}: {_text(g, rec, angular, scene)}")
        row = layout.row(align=True)
        set_id, clear_id = idnames(g)
        C.op(row, set_id, text="Set")
        C.op(row, clear_id, text="Clear")
