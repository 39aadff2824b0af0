"""The event mapping of the modal drag operators: Blender events onto a :class:`.drag.DragSession`.

:class:`LinkDrag` and :class:`JointDrag` map events (anything with ``type``, ``value``,
``mouse_region_x``/``_y``, ``ctrl``, ``shift``) onto a session the way Blender's G and R do,
through a *view* (anything with ``ray(xy) -> (origin, direction)``, ``view_dir()``,
``project(point) -> xy or None`` and optionally ``xy(event)``, the mouse in its region); the
geometry is :mod:`.geometry`.
"""
from __future__ import annotations

import math

import numpy as np

from ..bridge import BridgeError
from ..solver.joint_types import CATALOG
from . import geometry as DM
from .session import DragSession

# ---- event mapping ----------------------------------------------------------------------------
#: Events that navigate the view: passed through to Blender during a drag.
NAVIGATION = frozenset((
    "MIDDLEMOUSE", "WHEELUPMOUSE", "WHEELDOWNMOUSE", "WHEELINMOUSE", "WHEELOUTMOUSE",
    "TRACKPADPAN", "TRACKPADZOOM", "MOUSEROTATE", "MOUSESMARTZOOM", "NDOF_MOTION",
    "NUMPAD_0", "NUMPAD_1", "NUMPAD_2", "NUMPAD_3", "NUMPAD_4", "NUMPAD_5", "NUMPAD_6",
    "NUMPAD_7", "NUMPAD_8", "NUMPAD_9", "NUMPAD_PERIOD", "NUMPAD_PLUSMINUS", "NUMPAD_PLUS",
    "NUMPAD_MINUS", "NUMPAD_SLASH", "NUMPAD_ASTERIX"))
CONFIRM = frozenset(("LEFTMOUSE", "RET", "NUMPAD_ENTER"))
CANCEL = frozenset(("ESC", "RIGHTMOUSE"))
MODIFIERS = frozenset(("LEFT_CTRL", "RIGHT_CTRL", "LEFT_SHIFT", "RIGHT_SHIFT", "OSKEY"))
MOUSEMOVE = frozenset(("MOUSEMOVE", "INBETWEEN_MOUSEMOVE"))

#: What a handler asks the operator to do.
RUNNING, PASS_THROUGH, FINISHED, CANCELLED = "RUNNING_MODAL", "PASS_THROUGH", "FINISHED", \
    "CANCELLED"


def _xy(event, view=None) -> np.ndarray:
    """The mouse in the view's region: ``view.xy(event)`` if the view says, else the event's
    region coordinates."""
    if view is not None and hasattr(view, "xy"):
        return np.asarray(view.xy(event), float)
    return np.array([event.mouse_region_x, event.mouse_region_y], float)


class _Drag:
    """Shared event handling: confirm, cancel, navigation, modifiers, errors."""

    def __init__(self, session: DragSession):
        self.session = session
        self.error: str | None = None
        self.ctrl = self.shift = False

    def handle(self, event, view) -> str:
        """One event: returns RUNNING, PASS_THROUGH, FINISHED or CANCELLED (the operator
        confirms or cancels the session accordingly)."""
        t, v = event.type, event.value
        if t in CANCEL and v == "PRESS":
            return CANCELLED
        if t in CONFIRM and v == "PRESS":
            return FINISHED
        if t in NAVIGATION:
            return PASS_THROUGH
        self.ctrl, self.shift = bool(event.ctrl), bool(event.shift)
        if t in MOUSEMOVE:
            self.mouse = _xy(event, view)
            return self._apply(view)
        if t in MODIFIERS:
            return self._apply(view)
        if v == "PRESS" and self.key(t, event, view):
            return self._apply(view)
        return RUNNING

    def key(self, t, event, view) -> bool:  # pragma: no cover - interface
        return False

    def target(self, view) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def _apply(self, view) -> str:
        try:
            self.session.update(self.target(view))
        except BridgeError as e:  # e.g. the solution was not finite: the session is over
            self.error = str(e)
            return CANCELLED
        return RUNNING

    def header(self) -> str:  # pragma: no cover - interface
        return ""


class LinkDrag(_Drag):
    """A link drag: G (move in the view plane, or along / across a constrained axis) and R
    (turn about the view axis, or a constrained axis) through the link's origin."""

    def __init__(self, session: DragSession, link: str, mouse, mode: str = "TRANSLATE"):
        super().__init__(session)
        self.link = link
        self.T0 = session.begin_link(link)
        self.base = self.T0.copy()
        self.mouse0 = np.asarray(mouse, float)
        self.mouse = self.mouse0.copy()
        self.mode = mode
        self.constraint = None
        self.precision = DM.Precision()
        self.angle = self._raw_angle = 0.0
        self.delta = np.zeros(3)
        self.snap_length = (DM.SNAP_LENGTH, DM.SNAP_LENGTH_FINE)
        self.snap_angle = (DM.SNAP_ANGLE, DM.SNAP_ANGLE_FINE)

    def _rebase(self):
        """Keep what was done so far and measure the next motion from here."""
        self.base = np.array(self.session.value, float)
        self.mouse0 = self.mouse.copy()
        self.precision = DM.Precision()
        self.angle = self._raw_angle = 0.0
        self.delta = np.zeros(3)

    def key(self, t, event, view) -> bool:
        if t in ("R", "G"):
            if t == "G" and self.mode == "TRANSLATE":
                return False
            self._rebase()
            self.mode = "ROTATE" if t == "R" and self.mode == "TRANSLATE" else "TRANSLATE"
            self.constraint = None
            return True
        if t in DM.AXIS_INDEX:
            self.constraint = DM.next_constraint(self.constraint, t, bool(event.shift)
                                                 and self.mode == "TRANSLATE")
            self.precision = DM.Precision()
            return True
        return False

    def target(self, view) -> np.ndarray:
        pivot = self.base[:3, 3]
        if self.mode == "TRANSLATE":
            d, s = DM.translation(view.ray(self.mouse0), view.ray(self.mouse), pivot,
                                  view.view_dir(), self.constraint, self.base)
            d = np.asarray(self.precision(d, self.shift), float)
            if self.ctrl:
                inc = self.snap_length[1 if self.shift else 0]
                c = self.constraint
                if c is not None and not c.plane:
                    a = DM.axis_vector(c, self.base)
                    d = DM.snap(float(d @ a), inc) * a
                elif c is not None and c.space == "LOCAL":
                    R = self.base[:3, :3]
                    d = R @ DM.snap(R.T @ d, inc)
                else:
                    d = DM.snap(d, inc)
            self.delta = d
            return DM.translated(self.base, d)
        p2 = view.project(pivot)
        a = 0.0 if p2 is None else DM.unwrap(DM.screen_angle(p2, self.mouse0, self.mouse),
                                             self._raw_angle)
        self._raw_angle = a
        a = float(self.precision(a, self.shift))
        if self.ctrl:
            a = DM.snap(a, self.snap_angle[1 if self.shift else 0])
        self.angle = a
        axis = DM.rotation_axis(view.view_dir(), self.constraint, self.base)
        return DM.rotated(self.base, pivot, axis, a)

    def header(self) -> str:
        c = "" if self.constraint is None else f" {self.constraint.label()}"
        if self.mode == "TRANSLATE":
            what = "Move " + " ".join(DM.length_text(x) for x in self.delta)
        else:
            what = f"Rotate {DM.angle_text(self.angle)}"
        mods = (" [snap]" if self.ctrl else "") + (" [precise]" if self.shift else "")
        return (f"Vart drag {self.link!r}: {what}{c}{mods} | "
                f"{DM.status_text(self.session.status, self.session.ms)}")


class JointDrag(_Drag):
    """Operate a joint with the mouse: horizontal motion changes the value of one DoF (Tab:
    the next DoF), Ctrl snaps the value to increments, Shift is precise."""

    #: radians per pixel of horizontal mouse motion for an angular DoF
    ANGLE_PER_PIXEL = math.radians(0.25)

    def __init__(self, session: DragSession, joint: str, mouse, index: int = 0,
                 length_per_pixel: float = 0.002):
        super().__init__(session)
        self.joint = joint
        self.q0 = session.begin_joint(joint, index)
        self.index = index
        self.mouse0 = np.asarray(mouse, float)
        self.mouse = self.mouse0.copy()
        self.length_per_pixel = length_per_pixel
        self.precision = DM.Precision()
        jt = CATALOG[session.bridge.data.joints[joint].type]
        self.angular = np.asarray(jt.is_angular(), bool)

    def key(self, t, event, view) -> bool:
        if t == "TAB" and len(self.q0) > 1:
            self.q0 = np.array(self.session.value, float)
            self.index = (self.index + 1) % len(self.q0)
            self.session.index = self.index
            self.mouse0 = self.mouse.copy()
            self.precision = DM.Precision()
            return True
        return False

    def target(self, view):
        ang = bool(self.angular[self.index])
        per = self.ANGLE_PER_PIXEL if ang else self.length_per_pixel
        raw = (self.mouse[0] - self.mouse0[0]) * per
        dv = float(self.precision(raw, self.shift))
        v = float(self.q0[self.index]) + dv
        if self.ctrl:
            if ang:
                v = DM.snap(v, DM.SNAP_ANGLE_FINE if self.shift else DM.SNAP_ANGLE)
            else:
                v = DM.snap(v, DM.SNAP_LENGTH_FINE if self.shift else DM.SNAP_LENGTH)
        q = np.array(self.session.value, float)
        q[self.index] = v
        return q

    def header(self) -> str:
        q = self.session.value
        assert q is not None  # the session is active
        ang = bool(self.angular[self.index])
        v = float(q[self.index])
        text = DM.angle_text(v) if ang else DM.length_text(v)
        dof = f" DoF {self.index + 1}/{len(q)} (Tab: next)" if len(q) > 1 else ""
        mods = (" [snap]" if self.ctrl else "") + (" [precise]" if self.shift else "")
        return (f"Vart operate {self.joint!r}{dof}: {text}{mods} | "
                f"{DM.status_text(self.session.status, self.session.ms)}")
