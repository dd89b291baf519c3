"""The app's prompt queue: what is sent, what waits its turn, and the workers that run a prompt or
a /compact (one agent worker at a time). A mixin of FlueApp, kept apart so app.py stays the app's
layout and keys; the attributes below are the app's own."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from textual import work

from flue_tui.tui import nokey
from flue_tui.ui.bashes import EndedJobs

if TYPE_CHECKING:
    from flue_tui.core.images import Image

# attach.py, clipboard.py and tools/background.py are imported where used, after the first frame:
# with what they import (messages, images, the tools' base) they would delay the app's start.


class Prompting:
    queue: deque[tuple[str, str | None, tuple[Image, ...]]]
    pasted: list[Image]  # Ctrl+V's images, sent with the next message
    ended: EndedJobs
    typed_early: list[str]
    busy: bool
    session: Any
    settings: Any
    ctl: Any
    router: Any
    queue_view: Any
    notice: Any
    request_flush: Any
    _update_ticker: Any

    def send(self, text: str, display: str | None = None) -> None:
        if nokey.refused(self, display or text):  # said why, and the prompt is back in the input
            return
        images, self.pasted = tuple(self.pasted), []
        self.ended.user_sent()
        if self.busy or self.session is None:
            self.queue.append((text, display, images))
            self._show_queue()
            return
        if images:  # the chips go: the images are in this message now
            self._show_queue()
        self.busy = True  # before the worker starts, so a second Enter queues
        self._run_prompt(text, display, images)

    @work(group="clipboard", exclusive=True, thread=True, exit_on_error=False)
    def action_paste_image(self) -> None:
        """Ctrl+V: the clipboard's image goes with the next message (a chip above the prompt)."""
        from flue_tui.ui.clipboard import clipboard_image

        got = clipboard_image()
        self.call_from_thread(self._pasted, got)  # pyright: ignore[reportAttributeAccessIssue]

    def _give_back(self, typed: str, pasted: tuple[Image, ...]) -> None:
        prompt = getattr(self, "prompt", None)
        if prompt is not None and not prompt.text.strip():
            prompt.set_text(typed)
        self.pasted = [*pasted, *self.pasted]
        self._show_queue()

    def _pasted(self, got: Image | str) -> None:
        if isinstance(got, str):
            self.notice(got, "warn")
            return
        self.pasted.append(got)
        self._show_queue()

    def clear_queue(self) -> None:
        self.queue.clear()
        self._show_queue()

    def _show_queue(self) -> None:
        waiting = [*((t, None, ()) for t in self.typed_early), *self.queue]
        lines = [
            f"⏳ queued: {(display or text).strip().splitlines()[0][:200]}"
            for text, display, _ in waiting
            if text.strip()
        ]
        lines += [f"📎 {image.label} goes with your next message" for image in self.pasted]
        self.queue_view.update("\n".join(lines))
        self.queue_view.display = bool(lines)

    def send_next(self) -> None:
        if self.busy or self.session is None:
            return
        if self.queue:
            text, display, images = self.queue.popleft()
            self._show_queue()
            self.busy = True
            self._run_prompt(text, display, images)
            return
        from flue_tui.tools.background import jobs_of

        follow_up = self.ended.follow_up(jobs_of(self.session))  # a background command ended: tell the model
        if follow_up is not None:
            self.busy = True
            self._run_prompt(*follow_up)

    @work(group="agent", exit_on_error=False)
    async def _run_prompt(self, text: str, display: str | None, images: tuple[Image, ...] = ()) -> None:
        session = self.session
        self.busy = True
        typed, pasted = text, images
        if display is None:  # a typed prompt (a skill run has its display): `@path` attaches the file
            from flue_tui.ui.attach import attached, with_images

            got = with_images(attached(text, self.settings, session), images, text)
            text, display, images = got.text, got.display, got.images
        self._update_ticker()
        aborted = False
        try:
            kept = len(session.messages)
            result = await session.prompt(text, display=display, images=images)
            aborted = result.aborted
            if aborted:
                self.notice("Interrupted. The session is intact: send a message to continue.", "warn")
            elif result.is_error:
                self.notice(result.hint or result.error or "The prompt failed.", "error")
                if images and len(session.messages) == kept:  # refused before sending: nothing typed is lost
                    self._give_back(typed, pasted)
        except Exception as exc:  # the UI must survive anything the agent raises
            self.notice(f"{type(exc).__name__}: {exc}", "error")
        finally:
            self.busy = False
            self.router.set_activity("idle")
            self.request_flush()
        if not aborted:
            self.send_next()

    async def compact(self, focus: str | None) -> None:
        if self.session is None:
            self.notice(self.ctl.unavailable or "No session yet.", "warn")
        elif self.busy:
            self.notice("The agent is working: /compact once it is done (or after Esc).", "warn")
        else:
            self.busy = True
            self._run_compact(focus)

    @work(group="agent", exit_on_error=False)
    async def _run_compact(self, focus: str | None) -> None:
        self._update_ticker()
        try:
            result = await self.session.compact(focus)
            self.notice(result.text, "error" if result.is_error else "info")
        except Exception as exc:
            self.notice(f"{type(exc).__name__}: {exc}", "error")
        finally:
            self.busy = False
            self.router.set_activity("idle")
            self.request_flush()
        self.send_next()
