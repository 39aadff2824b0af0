"""What every operator does alike: polls that explain themselves, running an edit through the
bridge, and turning bridge and solver errors into reports (an error report and CANCELLED,
nothing changed).

What the operators share with panels and examples (the active joint and link, display units,
the cached bridge) is :mod:`vart_addon.shared`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..bridge import BridgeError
from ..bridge import schema as S
from ..shared import selection
from ..shared.bridge_cache import bridge_for, solve_kw
from ..solver import VartError
from ..solver.joint_types import CATALOG

#: What the operators report instead of raising (SchemaError is a BridgeError).
ERRORS = (BridgeError, VartError)

#: Enum items of the joint types: the catalog's 12 types and "fixed".
JOINT_TYPE_ITEMS = [(t.name, "-".join(w.title() for w in t.name.split("-")),
                     f"{t.description[0].upper()}{t.description[1:]} ({t.dof} DoF)", i)
                    for i, t in enumerate(CATALOG.values())]

#: Largest magnitude a finite limit may have in an operator field; beyond it means "none".
NO_LIMIT = 1e30


def typed(x) -> float:
    """A value of a float32 operator field as typed (0.05, not 0.05000000074505806)."""
    return float(f"{float(x):.7g}")


@dataclass(frozen=True)
class MenuItem:
    """Where an operator appears in *Object > Vart* (:mod:`vart_addon.menus`): its
    ``section`` (menus.SECTIONS), the button's ``text`` (None: the operator's label) and
    ``props`` (``(name, value)`` pairs set on it), or instead a ``submenu`` (a menu's
    ``bl_idname``) standing for the operator's family. Items of a section are drawn by
    ``order``, then in registration order. An operator lists its items as the class attribute
    ``vart_menu``: a new operator is one class."""

    section: str
    text: str | None = None
    props: tuple = ()
    submenu: str | None = None
    order: int = 0


def object_mode(cls, context) -> bool:
    if context.mode != 'OBJECT':
        cls.poll_message_set("Switch to Object Mode")
        return False
    return True


def poll_links(cls, context) -> bool:
    """Poll of operators on the scene's links as a whole (export, checks, studies): Object
    Mode and at least one link (sets the message)."""
    if not object_mode(cls, context):
        return False
    if not any(S.is_link(ob) for ob in context.scene.objects):
        cls.poll_message_set("The scene has no links (Vart > Make Links, or Add Example)")
        return False
    return True


def poll_joint(cls, context) -> bool:
    """Poll of operators acting on the active joint (sets the message)."""
    if not object_mode(cls, context):
        return False
    if selection.active_joint(context) is None:
        name = context.scene.vart.active_joint
        if name:
            cls.poll_message_set(f"No active joint: the active joint {name!r} does not exist; "
                                 "pick one in the Vart joint list")
        else:
            cls.poll_message_set("No active joint: pick one in the Vart joint list, or make "
                                 "active a link that has exactly one joint")
        return False
    return True


def poll_link(cls, context) -> bool:
    """Poll of operators acting on the active link (sets the message)."""
    if not object_mode(cls, context):
        return False
    if selection.active_link(context) is None:
        cls.poll_message_set("The active object is not a link (Vart > Make Links)")
        return False
    return True


# ---- progress of a blocking operator ----------------------------------------------------------
class Progress:
    """Blender's progress indicator and the status bar's text for an operator that runs a long
    call: pass the instance as the call's ``progress(done, total)`` callback, inside
    ``with Progress(context, "Importing URDF"):``. The indicator begins at the first call
    (when the total is known) and ends, with the text cleared, however the block ends."""

    def __init__(self, context, what: str):
        self.wm = context.window_manager
        self.workspace = getattr(context, "workspace", None)
        self.what = what
        self.started = False

    def __call__(self, done, total) -> None:
        if not self.started:
            self.wm.progress_begin(0, total)
            self.started = True
        self.wm.progress_update(done)
        if self.workspace is not None:
            self.workspace.status_text_set(f"{self.what}: {done} of {total}")

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        if self.started:
            self.wm.progress_end()
            self.started = False
        if self.workspace is not None:
            self.workspace.status_text_set(None)


# ---- running an edit --------------------------------------------------------------------------
def run(op, fn):
    """Call ``fn()`` (which returns the operator's result set); a bridge or solver error
    becomes an error report and CANCELLED (the edit changed nothing)."""
    try:
        return fn()
    except ERRORS as e:
        op.report({'ERROR'}, str(e))
        return {'CANCELLED'}


def report_status(op, scene, status) -> None:
    """Store a solve's status in ``scene.vart`` and report it (a warning if goals are unmet)."""
    from ..properties import store_status
    store_status(scene, status)
    text = scene.vart.status_summary
    op.report({'WARNING'} if status.unmet or status.stuck else {'INFO'}, text)


def apply(op, context, mutate, *, solve: bool = False, quiet: bool = True,
          one_shot: bool = False):
    """Run ``edits.edit(mutate)`` on the context's scene with its solver settings and return
    ``(result set, EditResult or None)``. If a solve ran (asked, or the edit moved a link),
    its status is stored; it is reported when goals are unmet, or always unless ``quiet``.
    ``one_shot``: a solve the user asked for once (no time budget, see
    :func:`vart_addon.shared.bridge_cache.solve_kw`, and no damping left by earlier solves).
    Errors become an error report and CANCELLED."""
    from ..bridge import edits
    scene = context.scene
    try:
        res = edits.edit(mutate, scene, solve=solve, bridge=bridge_for(scene), one_shot=one_shot,
                         **solve_kw(scene, one_shot=one_shot))
    except ERRORS as e:
        op.report({'ERROR'}, str(e))
        return {'CANCELLED'}, None
    if res.status is not None:
        if quiet and not (res.status.unmet or res.status.stuck):
            from ..properties import store_status
            store_status(scene, res.status)
        else:
            report_status(op, scene, res.status)
    return {'FINISHED'}, res
