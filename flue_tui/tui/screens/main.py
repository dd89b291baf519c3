"""The app's main screen: Textual's own, with its note of what the next layout must redo fixed.

A widget asking for a layout (its content changed) tells the screen, which notes, for each of the
widget's auto-height ancestors, the child that leads to it. A `layout: stream` container (the
conversation, a reply, a task, a task's steps) then places again only its children from the
first one noted and keeps the placements of those before it. Textual 8.2.8's `Screen._on_layout`
checks `widget not in self._layout_widgets` (the ancestors noted so far) where it means the
ancestor's own set: once a child has been noted as an ancestor itself (a request from deeper
inside it came first in the same frame), it is never noted under its parent, and the parent keeps
the child's old height whenever a later sibling of it is noted. A resumed task's steps shown with
Ctrl+O, the bash block below it expanded in the same frame, kept the task at its collapsed
height, its steps and answer cut off, until some request from inside the task came alone in a
later frame: on a loaded box (fewer frames for the same mounts) it could stay so (f2eeb04,
`tests/tui/test_task_layout.py`). Here a child is noted under each ancestor it leads to.
"""

from __future__ import annotations

from textual import events, messages
from textual.screen import Screen
from textual.widget import Widget


class MainScreen(Screen):
    async def _on_layout(self, message: messages.Layout) -> None:
        # Textual's handler but for the set checked; prevent_default keeps Screen's from running too.
        message.stop()
        message.prevent_default()
        layout_required = False
        widget = message.widget
        for ancestor in message.widget.ancestors:
            if not isinstance(ancestor, Widget):
                break
            noted = self._layout_widgets.setdefault(ancestor, set())
            if widget not in noted:
                noted.add(widget)
                layout_required = True
            if not ancestor.styles.auto_dimensions:
                break
            widget = ancestor
        if layout_required and not self._layout_required:
            self._layout_required = True
            self.check_idle()

    # -- painting ----------------------------------------------------------------------------------
    # Textual paints on its update timer: with something to draw, the idle screen resumes the timer,
    # and its tick comes a whole period (1/60 s) after the timer was first resumed, or at the next
    # tick of its grid. That coalesces the changes of a burst into one paint, but the app's first
    # frame waited up to a period with nothing to do, and so could the first text of an answer. A frame the
    # app marks urgent (`paint_now`: the first, and a flush showing a reply's first text: one a
    # reply, so never a burst) is painted as soon as the screen is idle; every other change is
    # left to the timer (painting every change at once drew 7 frames where the timer drew 4
    # between the first frame and a launch prompt's answer).
    paint_now = True  # the first frame

    async def _on_idle(self, event: events.Idle) -> None:
        if (
            self.paint_now
            and not self.app._batch_count
            and self.is_current
            and (self._layout_required or self._scroll_required or self._repaint_required or self._dirty_widgets)
            and not self._recompose_required
        ):
            self.paint_now = False
            event.prevent_default()  # Screen's own handler (it would resume the timer) does not run
            self._on_timer_update()
        # Otherwise Textual's handler runs next, as the dispatcher walks the classes.
