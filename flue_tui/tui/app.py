"""The Textual app: conversation, prompt and status bar around one Session.

Events from the session only touch plain data (router.py); a timer renders what changed at a
bounded rate (tui/rendering.py), so a fast stream never floods the UI. litellm is never imported
here: the first frame comes first, then the import warms in a background thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections import deque
from typing import Any

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from flue_tui.config.errors import EXIT_CONFIG, ConfigError
from flue_tui.config.settings import Settings
from flue_tui.core.heap import freeze_startup, release_collections
from flue_tui.runtime.quitting import leave
from flue_tui.runtime.workers import DaemonExecutor
from flue_tui.tui import approvals
from flue_tui.tui.frontend import AppFrontEnd
from flue_tui.tui.prompting import Prompting
from flue_tui.tui.rendering import Rendering
from flue_tui.tui.session_ctl import SessionControl
from flue_tui.tui.widgets.conversation import Conversation
from flue_tui.tui.widgets.plan import PlanPanel
from flue_tui.tui.widgets.prompt import CompletionList, PromptArea
from flue_tui.tui.widgets.status import StatusBar
from flue_tui.ui.bashes import EndedJobs
from flue_tui.ui.commands import KEYS, parse
from flue_tui.ui.dispatch import dispatch
from flue_tui.ui.history import PromptHistory
from flue_tui.ui.pathindex import PathIndex
from flue_tui.ui.router import EventRouter
from flue_tui.ui.transcript import NoticeEntry, Transcript

TICK_S = 0.25  # spinners and elapsed times
QUIT_WINDOW_S = 2.0  # a second Ctrl+C within this quits
# How long the background loads wait for the first answer's frame (_load_background): about what
# the fastest hosted models take to a first token, so before one of theirs the loads are done.
HOLD_LOADS_S = 0.25


def litellm_ready(settings: Settings) -> bool:
    """Whether the model's library is in: a direct-path model needs none (model/route.py)."""
    from flue_tui.model.route import ready

    return ready(settings.model, settings.api_base, settings.transport)


class FlueApp(Rendering, Prompting, AppFrontEnd):
    """The app; also the `FrontEnd` slash commands run over (ui/commands.py)."""

    CSS_PATH = "app.tcss"
    TITLE = "flue"
    AUTO_FOCUS = "#prompt"
    PAUSE_GC_ON_SCROLL = True
    help_keys = KEYS
    BINDINGS = [
        # Priority: handled on arrival, not after hopping through the prompt and the screen while
        # a fast stream keeps the loop busy (see check_action for the screens that need Esc).
        Binding("escape", "interrupt", "Interrupt", show=False, priority=True),
        Binding("ctrl+c", "ctrl_c", "Quit", show=False),
        Binding("ctrl+o", "toggle_details", "Expand tool output", show=False),
        Binding("ctrl+v", "paste_image", "Paste an image", show=False, priority=True),
        Binding("ctrl+end", "jump_end", "Latest", show=False),
        Binding("pageup", "page(-1)", show=False, priority=True),
        Binding("pagedown", "page(1)", show=False, priority=True),
        # Priority: otherwise the focus chain takes Shift+Tab before the app sees it.
        Binding("shift+tab", "cycle_mode", "Permission mode", show=False, priority=True),
    ]

    def __init__(self, settings: Settings, prompt: str | None = None, *, sessions: Any = None) -> None:
        from flue_tui.tui.palette import SlashCommandsProvider

        # Set here, not on the class: the palette module imports lazily (first frame).
        self.COMMANDS = App.COMMANDS | {SlashCommandsProvider}  # pyright: ignore[reportAttributeAccessIssue]
        super().__init__()
        self.initial_prompt = prompt
        self.transcript = Transcript()
        self.router = EventRouter(self.transcript, self.request_flush, cwd=settings.cwd)
        self.ctl = SessionControl(self, settings, sessions)
        self.history = PromptHistory(settings.cwd)
        self.paths = PathIndex(settings.cwd)
        self.queue: deque[tuple[str, str | None, tuple[Any, ...]]] = deque()
        self.pasted: list[Any] = []
        self.ended = EndedJobs()  # background commands that ended: the user's line, the model's follow-up
        self.launching = True  # until the first session start is over
        self.typed_early: list[str] = []  # what was entered meanwhile
        self.busy = False
        self.context_window: int | None = None
        self.first_frame_at: float | None = None
        self.first_frame_cpu: float | None = None
        self.litellm_loaded_at_first_frame: bool | None = None
        self._flush_timer: Any = None
        self._flushing = False
        self._draws_answer = False  # the flush under way shows the start of a reply (rendering.py)
        self.answer_drawn = asyncio.Event()  # a reply's first text has been painted
        self._render_s = 0.0  # how long the last render of changes took
        self._flushed_at = -1.0e9  # when it ended: none yet, so the first change is flushed at once
        self._frame_s = 0.0  # the CPU from its start until it was painted (layout and compositing too)
        self._ctrl_c_at = 0.0
        self._esc_at = 0.0  # Esc Esc on an empty, idle prompt opens /rewind (as in Claude Code)
        self._details = False
        self._greeting: NoticeEntry | None = None
        self.exit_code = 0

    def get_driver_class(self) -> Any:
        from flue_tui.tui.driver import quick_exit

        return quick_exit(super().get_driver_class())

    # -- layout ------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        self.ctl.greet_first()
        self.conversation = Conversation(self.transcript, id="conversation")
        self.completion = CompletionList()
        self.prompt = PromptArea(self.history, self.completion, self.command_items)
        self.queue_view = Static("", id="queue")
        self.plan_view = PlanPanel()
        self.status_bar = StatusBar()
        yield self.conversation
        with Vertical(id="bottom"):
            yield self.plan_view
            yield self.queue_view
            yield self.completion
            yield self.prompt
            yield self.status_bar

    def on_mount(self) -> None:
        asyncio.get_running_loop().set_default_executor(DaemonExecutor())  # quitting never waits on a job
        self.completion.display = False
        self.queue_view.display = False
        if self.is_headless:
            self.prompt.cursor_blink = False
        self.prompt.paths = self.paths
        self.ticker = self.set_interval(TICK_S, self._tick, pause=True)
        self.refresh_status()
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        self.first_frame_at = time.perf_counter()
        self.first_frame_cpu = time.process_time()  # for bench/tui.py: the CPU up to the frame
        self.litellm_loaded_at_first_frame = "litellm" in sys.modules
        from flue_tui.model.route import warm

        warm(self.settings.model, self.settings.api_base, self.settings.transport)  # litellm, or the HTTP client
        self.ctl.start()  # the background loads wait for it (replay_typed)

    @work(group="startup", exit_on_error=False)
    async def _load_background(self, hold: float = 0.0) -> None:
        """The Markdown stack, the prompt history and the path index, in threads. `hold`: a prompt
        is being answered (given at launch, or typed while the session started), so they wait for
        its answer's first frame, at most `hold` seconds: one interpreter runs them and that
        frame, and their CPU came before it when the model answered at once. A model
        that takes longer to answer than the hold finds them done before its first token."""
        from flue_tui.tui.widgets import views

        if hold:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.answer_drawn.wait(), hold)

        async def index_paths() -> None:
            await asyncio.to_thread(self.paths.build)
            self.prompt.paths_ready()  # an `@path` typed meanwhile gets its list now, not at the next key

        async def markdown() -> None:
            from flue_tui.tui.widgets.reply import drawn_plain

            try:
                await asyncio.to_thread(views.warm)
            finally:  # even if a later import failed: the Markdown stack may be there
                self.router.redraw(*drawn_plain())  # a reply drawn plain meanwhile is drawn as Markdown now
                self.request_flush()

        await asyncio.gather(markdown(), asyncio.to_thread(self.history.load), index_paths(), return_exceptions=True)

    # -- rendering: tui/rendering.py ------------------------------------------------------------------
    def _update_ticker(self) -> None:
        if self.busy or self.router.running:
            self.ticker.resume()
        else:
            self.ticker.pause()

    def _tick(self) -> None:
        for entry in list(self.router.running.values()):
            view = entry.view
            if view is not None and view.is_attached:
                header = getattr(view, "header", view)
                header.tick()
        self.status_bar.frame += 1
        if self.router.status.activity == "waiting for the model" and not litellm_ready(self.settings):
            # A prompt sent in the first seconds waits for the background import: say so.
            self.router.status.activity = "loading the model library"
        elif self.router.status.activity == "loading the model library" and litellm_ready(self.settings):
            self.router.status.activity = "waiting for the model"
        self.refresh_status()

    def refresh_status(self) -> None:
        self.router.status_dirty = False
        self.status_bar.show(
            model=self.settings.model or "",
            name=self.session_label(),
            cwd=self.settings.cwd,
            status=self.router.status,
            context_window=self.context_window,
            busy=self.busy,
            mode=approvals.mode_label(self),
        )

    def greet(self, text: str) -> None:
        """The welcome before the session has started (session_ctl.py); said again, it is reworded."""
        if self._greeting is None:  # before the first frame: in the transcript the conversation mounts
            self._greeting = NoticeEntry(text=text, level="welcome")
            self.transcript.entries.append(self._greeting)
        elif self._greeting.text != text:
            self._greeting.text = text
            view = self._greeting.view
            if view is not None:
                view.sync()

    async def attach(self, session: Any, *, resumed: bool) -> None:
        """Show `session` (fresh or resumed) and send its events to the router."""
        # Imported here, after the first frame (attach follows the session's start): the tools'
        # and the backfill's modules would add to the CPU before that frame.
        from flue_tui.tools.background import jobs_of
        from flue_tui.tools.todo import latest_plan

        # What was said before the run's first session started (the welcome, "Trusted …") stays.
        before = self.transcript.entries if self.transcript.session_id is None and not resumed else []
        self.transcript = Transcript(session_id=session.id)
        self.transcript.entries.extend(before)
        self.router = EventRouter(self.transcript, self.request_flush, cwd=self.settings.cwd)
        if resumed and session.messages:
            from flue_tui.ui.backfill import make_backfill

            self.transcript.backfill = make_backfill(
                list(session.messages), self.settings.cwd, self.ctl.store, session.id, tools=session.tools
            )
        self.router.plan = latest_plan(session.messages) if resumed else None  # resume shows the last plan
        self.plan_view.show(self.router.plan)
        usage = getattr(session, "usage", None)
        if usage is not None:  # a resumed session's stored total, its tasks' included
            self.router.status.set_total(usage)
        if resumed:
            self.router.status.resume_context(list(session.messages))
        session.subscribe(self.router.handle)
        jobs = jobs_of(session)
        if jobs is not None:
            if self._on_jobs not in jobs.listeners:
                jobs.listeners.append(self._on_jobs)
            self.router.status.background = len(jobs.running())
        approvals.install(self, session)  # permission questions become the approval dialog
        await self.conversation.show(self.transcript)
        self.refresh_status()
        self._fetch_context_window(session)
        from flue_tui.mcp.manager import manager

        manager().start()  # MCP servers, in the background: attach runs after the first frame

    def _on_jobs(self) -> None:
        """A background command started or ended: the status bar's count follows; one that ended
        gets its line, and the model hears of it in a follow-up turn once the agent is idle."""
        from flue_tui.tools.background import jobs_of

        jobs = jobs_of(self.session)
        self.router.status.background = len(jobs.running()) if jobs is not None else 0
        self.router.status_dirty = True
        for line in self.ended.newly_ended(jobs):
            self.notice(line)
        self.request_flush()
        self.send_next()

    @work(group="context-window", exclusive=True, exit_on_error=False)
    async def _fetch_context_window(self, session: Any) -> None:
        # Needs litellm's model map: waits in a thread for the background import, never on the loop.
        self.context_window = await asyncio.to_thread(session.model.context_window)
        self.refresh_status()

    async def switch_model(self, model: str) -> None:
        self.ctl.switch_model(model)
        from flue_tui.model.route import warm

        warm(self.settings.model, self.settings.api_base, self.settings.transport)
        self.context_window = None
        if self.session is not None:
            self._fetch_context_window(self.session)
        self.refresh_status()

    async def run_skill(self, skill: Any, extra: str) -> None:
        from flue_tui.context.skills import skill_prompt, skill_typed

        self.send(skill_prompt(skill, extra or None), display=skill_typed(skill, extra))

    # -- prompting -----------------------------------------------------------------------------------
    async def on_prompt_area_submitted(self, message: PromptArea.Submitted) -> None:
        text = message.text  # the input is empty already (PromptArea._submit)
        self.history.add(text)
        # What you send, and its answer, are at the end: a command's output as much as a reply (a
        # "new output below" marker would still leave the user to press Ctrl+End for what they asked).
        await self.conversation.jump_to_end()
        parsed = parse(text.strip())
        if self.launching and not (parsed is not None and parsed[0] in ("quit", "exit")):
            # Typed before the session has started (its attach starts a fresh transcript): each
            # entry is answered once it has, in order, a command as a command (replay_typed).
            self.typed_early.append(text)
            self._show_queue()
            return
        await self._submitted(text)

    def replay_typed(self) -> None:
        """The session start is over (SessionControl): what was typed meanwhile runs now. After the
        first, the app's own loads begin: beside the start, their threads took two thirds of the
        interpreter from it, and a prompt given at launch waited for them."""
        if self.launching:
            # Start-up is over: its objects (Textual's, flue's, the session's) out of every full
            # collection during a stream, and the collector held since the entry runs again.
            freeze_startup()
            self._load_background(HOLD_LOADS_S if self.busy or self.typed_early else 0.0)
        self.launching = False
        if self.typed_early:
            self.run_worker(self._replay(), group="replay", exit_on_error=False)

    async def _replay(self) -> None:
        while self.typed_early:
            text = self.typed_early.pop(0)
            self._show_queue()
            await self._submitted(text)

    async def _submitted(self, text: str) -> None:
        parsed = parse(text.strip())
        if parsed is not None and await dispatch(self, *parsed):
            return
        self.send(text)

    # -- keys ------------------------------------------------------------------------------------------
    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        from flue_tui.tui.screenshots import screenshot_dir

        # Textual's default is ~/Downloads, which a server or container often lacks; its notice says where.
        return super().deliver_screenshot(filename, path or str(screenshot_dir()), time_format)

    def action_interrupt(self) -> None:
        if self.completion.display:
            self.completion.hide()
            return
        if self.busy and self.session is not None:
            self.session.abort()
            self.router.set_activity("interrupting")
            self.request_flush()
            if self.queue:
                # Queued prompts come back to the editor: after an interrupt the user decides.
                held = "\n\n".join(text for text, _, _ in self.queue)
                self.pasted = [i for _, _, images in self.queue for i in images] + self.pasted
                self.queue.clear()
                self._show_queue()
                if not self.prompt.text.strip():
                    self.prompt.set_text(held)
        elif not self.busy and not self.prompt.text.strip():
            now = time.monotonic()
            if now - self._esc_at < QUIT_WINDOW_S:
                self._esc_at = 0.0
                self.run_worker(dispatch(self, "rewind", ""), group="rewind-key", exit_on_error=False)
            else:
                self._esc_at = now

    async def action_ctrl_c(self) -> None:
        now = time.monotonic()
        if now - self._ctrl_c_at < QUIT_WINDOW_S:
            await self.action_quit()
            return
        self._ctrl_c_at = now
        if self.busy:
            self.action_interrupt()
        elif self.prompt.text:
            self.prompt.set_text("")
        self.notify("Press Ctrl+C again to quit", timeout=QUIT_WINDOW_S)

    def on_unmount(self) -> None:
        self.ctl.close()  # however the app ends, the session's lock and store are let go

    async def action_quit(self) -> None:
        if self.session is not None and self.busy:
            self.session.abort()
        self.ctl.close()
        self.exit(self.exit_code)

    def action_cycle_mode(self) -> None:
        approvals.cycle(self)

    async def action_toggle_details(self) -> None:
        self._details = not self._details
        await self.conversation.set_expanded(self._details)

    async def action_jump_end(self) -> None:
        await self.conversation.jump_to_end()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # PageUp/PageDown scroll the conversation only on the main screen (a picker list keeps them).
        if action in ("page", "interrupt"):
            return self.screen is self.screen_stack[0]
        return True

    def action_page(self, direction: int) -> None:
        if direction < 0:
            self.conversation.scroll_page_up()
        else:
            self.conversation.scroll_page_down()


def run_tui(settings: Settings, prompt: str | None = None, *, sessions: Any = None) -> int:
    app = FlueApp(settings, prompt, sessions=sessions)
    try:
        code = app.run()
    except ConfigError as exc:
        print(f"flue: {exc}", file=sys.stderr)
        code = EXIT_CONFIG
    finally:
        release_collections()  # an app that ended before its first session started
        app.ctl.close()
    leave(code if isinstance(code, int) else 0, app.ctl.resume_hint)  # after the alternate screen is gone
