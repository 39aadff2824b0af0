"""Operators that work through a frame range step by step (Bake, Replay in MuJoCo): with a
window, a few frames per timer tick so Blender's progress bar and the area's header show how
far it got, and Esc stops cleanly; without one (a script, background mode), at once.

A subclass (also a ``bpy.types.Operator`` with ``frame_start`` / ``frame_end`` properties)
gives :attr:`FrameSteps.verb` (the header's "Baking"), :meth:`_start` (sets ``self._steps``,
a generator yielding ``(done, total)`` after each frame and returning its result, and
``self._done`` / ``self._total``; begins the progress bar), :meth:`_finish` (reports the
result) and :meth:`_stopped_text` (the report after Esc, the generator already closed).
"""
from __future__ import annotations

import time

from . import support

#: Wall time (s) each timer tick works for before Blender redraws.
TICK_S = 0.05


class FrameSteps:
    verb = "Working"

    def _defaults(self, context):
        """The scene's frame range for whichever of ``frame_start`` / ``frame_end`` is unset."""
        scene, is_set = context.scene, self.properties.is_property_set
        if not is_set("frame_start"):
            self.frame_start = scene.frame_start
        if not is_set("frame_end"):
            self.frame_end = scene.frame_end

    def _start(self, context):
        raise NotImplementedError

    def _finish(self, context, value):
        raise NotImplementedError

    def _stopped_text(self) -> str:
        raise NotImplementedError

    def invoke(self, context, event):
        """With a window: step per timer tick (progress shown, Esc stops); without one: at
        once (:meth:`execute`)."""
        self._defaults(context)
        if getattr(context, "window", None) is None:
            return self.execute(context)
        try:
            self._start(context)
        except support.ERRORS as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        wm = context.window_manager
        self._timer = wm.event_timer_add(0.0, window=context.window)
        wm.modal_handler_add(self)
        return {'RUNNING_MODAL'}

    def modal(self, context, event):
        """Esc closes the steps (the work undoes itself); each timer tick steps for TICK_S."""
        if event.type == 'ESC':
            self._steps.close()
            self._end(context)
            self.report({'WARNING'}, self._stopped_text())
            return {'CANCELLED'}
        if event.type != 'TIMER':
            return {'RUNNING_MODAL'}
        t0 = time.perf_counter()
        try:
            while time.perf_counter() - t0 < TICK_S:
                self._done, self._total = next(self._steps)
                context.window_manager.progress_update(self._done)
        except StopIteration as stop:
            self._end(context)
            return self._finish(context, stop.value)
        except support.ERRORS as e:
            self._end(context)
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        if context.area is not None:
            context.area.header_text_set(f"{self.verb}: frame {self._done} of {self._total} "
                                         "(Esc to stop)")
        return {'RUNNING_MODAL'}

    def _run_all(self, context):
        """Without a window (a script, background mode): every step at once, with the
        progress bar; what :meth:`modal` does over timer ticks."""
        self._defaults(context)
        try:
            self._start(context)
            while True:
                try:
                    self._done, self._total = next(self._steps)
                except StopIteration as stop:
                    return self._finish(context, stop.value)
                context.window_manager.progress_update(self._done)
        except support.ERRORS as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        finally:
            context.window_manager.progress_end()

    def _end(self, context):
        """Timer, progress bar and header text off."""
        wm = context.window_manager
        if getattr(self, "_timer", None) is not None:
            wm.event_timer_remove(self._timer)
            self._timer = None
        wm.progress_end()
        if context.area is not None:
            context.area.header_text_set(None)
