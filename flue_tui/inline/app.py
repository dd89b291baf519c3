"""`flue --inline`: the loop. Read a prompt, run it with output streaming into the scrollback,
repeat. Ctrl+C while the agent works interrupts the turn (a SIGINT handler: the prompt is not on
screen then, and keys typed meanwhile wait for the next prompt); Ctrl+C twice at the prompt quits.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from flue_tui.agent import usage_text
from flue_tui.config.errors import EXIT_CONFIG, ConfigError
from flue_tui.config.settings import Settings
from flue_tui.core.images import Image
from flue_tui.inline import greeting, terminal
from flue_tui.inline.asking import make_asker
from flue_tui.inline.commands import InlineCommands
from flue_tui.inline.prompt import QUIT, QUIT_WINDOW_S, WOKEN, InlinePrompt
from flue_tui.inline.renderer import Renderer
from flue_tui.inline.sessions import InlineSessions
from flue_tui.runtime.start import SessionOptions
from flue_tui.tools.background import jobs_of
from flue_tui.ui import toolfmt
from flue_tui.ui.attach import attached
from flue_tui.ui.backfill import recap
from flue_tui.ui.bashes import EndedJobs
from flue_tui.ui.commands import COMMANDS, builtin_names, parse, runnables
from flue_tui.ui.dispatch import dispatch
from flue_tui.ui.history import PromptHistory
from flue_tui.ui.pathindex import PathIndex

RECAP_MESSAGES = 6  # a resumed session shows its last few messages, not its whole history


class InlineApp(InlineCommands):
    """The loop; also the `FrontEnd` slash commands run over (ui/commands.py, inline/commands.py)."""

    def __init__(self, settings: Settings, first: str | None, options: SessionOptions | None) -> None:
        self.first = first
        self.options = options
        self.dumb = terminal.is_dumb()
        self.console = terminal.make_console(self.dumb)
        self.renderer = Renderer(self.console, settings.cwd, dumb=self.dumb)
        self.sessions = InlineSessions(settings, options)
        self.paths = PathIndex(settings.cwd)
        self.prompt = InlinePrompt(
            PromptHistory(settings.cwd),
            self.paths,
            self.command_items,
            self.toolbar,
            self.cycle_mode,
            self.renderer.typed,
        )
        self.quitting = False
        self.unavailable: str | None = None
        self._background: set[asyncio.Future[Any]] = set()
        self._attaching: asyncio.Future[bool] | None = None
        self._turn_task: asyncio.Future[Any] | None = None
        self._quit_signal: asyncio.Future[None] | None = None  # set by Ctrl+C twice during a turn
        self._interrupted_at = -QUIT_WINDOW_S
        self.ended = EndedJobs()  # background commands that ended: the user's line, the model's follow-up
        self._ended_lines: list[str] = []  # held while a turn streams, printed when it ends
        self._welcomed = False  # this run's first session was welcomed before it started

    # -- what the prompt shows ---------------------------------------------------------------------
    def skill_list(self) -> list[tuple[str, str]]:
        return runnables(
            getattr(self.sessions.started.context if self.sessions.started else None, "skills", None)
        )  # skills, then .claude/commands

    def find_skill(self, name: str) -> Any:
        skills = getattr(self.sessions.started.context if self.sessions.started else None, "skills", None)
        return skills.runnable(name) if skills is not None and name not in builtin_names() else None

    def command_items(self) -> list[tuple[str, str]]:
        return [(c.name, c.help) for c in COMMANDS] + self.skill_list()

    @property
    def settings(self) -> Settings:
        return self.sessions.settings  # the handle's: /model, /effort and /mode replace them

    def policy(self) -> Any:
        from flue_tui.permissions.policy import policy_of

        return policy_of(self.sessions.session) if self.sessions.session is not None else None

    def cycle_mode(self) -> None:
        policy = self.policy()
        if policy is not None:
            self.sessions.keep_mode(policy.cycle_mode())

    def toolbar(self) -> str:
        return greeting.toolbar(self)

    # -- sessions ----------------------------------------------------------------------------------
    def start(self, picker: Any = None) -> None:
        """Start the session in a thread; the prompt works meanwhile and `ready()` waits for it."""
        self.sessions.begin(picker=picker)
        self._attaching = asyncio.ensure_future(self._attach())

    async def ready(self) -> bool:
        """Whether a session is there to prompt; says why not (once more if it failed earlier)."""
        if self._attaching is None:
            self.start()
        assert self._attaching is not None
        reported = self._attaching.done()
        ok = await asyncio.shield(self._attaching)
        if not ok and reported:
            self.renderer.note(f"flue: {self.unavailable or 'no session'} (fix it, or /model provider/model)", "error")
        return ok

    async def _attach(self) -> bool:
        try:
            started = await self.sessions.ready()
        except ConfigError as exc:
            message = self.unavailable = greeting.unavailable(self, exc)  # `exc` is unbound after the block
            await self.say(lambda: self.renderer.note(f"flue: {message}", "error"))
            return False
        self.unavailable = None
        await self.say(lambda: self._bind(started))
        from flue_tui.mcp.manager import manager

        manager().start()  # MCP servers, in the background, once the session is there
        return True

    def _bind(self, started: Any) -> None:
        """Listen to this session and answer its permission questions; greet with what to know."""
        self.renderer.attach(started.session)
        jobs = jobs_of(started.session)
        if jobs is not None and self._on_jobs not in jobs.listeners:
            jobs.listeners.append(self._on_jobs)
        policy = self.policy()
        if policy is not None:
            policy.asker = make_asker(self.renderer, self.interrupt, self.dumb)
            policy.listeners.append(self.remember_mode)
        self._greet(started)

    def _greet(self, started: Any) -> None:
        from flue_tui.ui.keys import missing_key

        resumed = started.resumed
        if resumed is not None:
            messages = recap(list(started.session.messages), RECAP_MESSAGES)
            self.renderer.replay(messages, started.store, started.session.id, started.session.tools)
            self.renderer.note(f"Resumed {resumed.label} · {resumed.message_count} messages")
        elif not self._welcomed:
            self.renderer.note(greeting.welcome(self), "welcome")
        self._welcomed = False  # a /new or /resume later is greeted as it comes
        for line in [*started.notices, *getattr(started.context, "warnings", [])]:
            self.renderer.note(line, "warn")
        hint = missing_key(self.settings)
        if hint:
            self.renderer.note(hint, "warn")

    async def switch_session(self, resume: str | None) -> None:
        try:
            started = await self.sessions.replace(resume)
        except ConfigError as exc:
            self.renderer.note(str(exc), "error")
            return
        self._attaching = asyncio.ensure_future(asyncio.sleep(0, True))
        self._bind(started)
        if resume is None:
            self.renderer.note("New session.")

    def _on_jobs(self) -> None:
        """A background command started or ended: the toolbar's count follows; one that ended gets
        its line (after the turn, if one streams), and at the prompt the model's follow-up starts."""
        self._ended_lines += self.ended.newly_ended(jobs_of(self.sessions.session))
        self.prompt.refresh()
        if self._turn_task is None and self._ended_lines:
            lines, self._ended_lines = self._ended_lines, []
            self._spawn(self.say(lambda: self._notes(lines)))
            self.prompt.wake()  # read() returns WOKEN: the loop tells the model (and what was typed waits)

    def _notes(self, lines: list[str]) -> None:
        for line in lines:
            self.renderer.note(line)

    async def _follow_ups(self) -> None:
        """Tell the idle model of background commands that ended (ui/bashes.py EndedJobs)."""
        while not self.quitting and (follow := self.ended.follow_up(jobs_of(self.sessions.session))) is not None:
            await self.send(*follow[:1], display=follow[1])

    async def say(self, show: Callable[[], None]) -> None:
        """Print above the prompt if it is on screen, else just print."""
        await self.prompt.print_above(show)

    # -- turns -------------------------------------------------------------------------------------
    def interrupt(self) -> None:
        now = time.monotonic()
        if self._turn_task is not None and now - self._interrupted_at < QUIT_WINDOW_S:
            self.quitting = True  # Ctrl+C twice quits, also while a command or a stream still runs
            if self._quit_signal is not None and not self._quit_signal.done():
                self._quit_signal.set_result(None)
            return
        self._interrupted_at = now
        session = self.sessions.session
        if session is not None and session.running:
            session.abort()
            self.renderer.interrupting = True
            self.renderer.flush()
        self.prompt.arm_quit()

    async def _turn(self, work: Awaitable[Any], echo: str | None) -> Any:
        self.renderer.begin_turn(echo)
        loop = asyncio.get_running_loop()
        try:
            # The terminal is already quiet (run() keeps it so): typed-ahead keys wait.
            loop.add_signal_handler(signal.SIGINT, self.interrupt)
            self._turn_task = task = asyncio.ensure_future(work)
            self._quit_signal = quit_signal = loop.create_future()
            try:
                # Not `await task`: a cancelled turn may take its time to wind down (an MCP
                # server still starting); quitting does not wait for it.
                await asyncio.wait({task, quit_signal}, return_when=asyncio.FIRST_COMPLETED)
                if quit_signal.done():
                    task.cancel()
                    return None  # quitting: run_inline closes the session, what streamed is kept
                return task.result()
            finally:
                self._turn_task = None
                loop.remove_signal_handler(signal.SIGINT)
        finally:
            self.renderer.finish()
            lines, self._ended_lines = self._ended_lines, []
            self._notes(lines)  # background commands that ended while it streamed

    async def send(
        self, text: str, echo: str | None = None, display: str | None = None, images: tuple[Image, ...] = ()
    ) -> None:
        """`echo` prints the prompt (one not typed at the prompt); `display` is what was typed when
        `text` is its expansion (a skill run, `@path`), kept with the message for a resume."""
        if self._attaching is None or not self._attaching.done():
            from flue_tui.model.route import ready

            loaded = ready(self.settings.model, self.settings.api_base, self.settings.transport)
            self.renderer.working("starting the session" if loaded else "loading the model library")
        ok = await self.ready()
        self.renderer.finish()  # the spinner line goes; the turn draws its own
        if not ok:
            return
        session = self.sessions.session
        assert session is not None  # ready() started it
        try:
            result = await self._turn(session.prompt(text, display=display or echo, images=images), echo)
        except Exception as exc:  # the loop must survive anything the agent raises
            self.renderer.note(f"{type(exc).__name__}: {exc}", "error")
            return
        if result is None:  # Ctrl+C twice during the turn
            return
        greeting.notify_turn(self, result)
        if result.aborted:
            self.renderer.note("Interrupted. The session is intact: send a message to continue.", "warn")
        elif result.is_error:
            self.renderer.note(result.hint or result.error or "The prompt failed.", "error")
        self.renderer.note(
            f"{result.num_turns} turn{'s' if result.num_turns != 1 else ''} · "
            f"{toolfmt.seconds(result.duration_ms)} · {usage_text.brief(result.usage)}"
        )

    async def compact(self, focus: str | None) -> None:
        if not await self.ready():
            return
        session = self.sessions.session
        assert session is not None  # ready() started it
        result = await self._turn(session.compact(focus), None)
        if result is not None:
            self.renderer.note(result.text, "error" if result.is_error else "info")

    # -- the loop ----------------------------------------------------------------------------------
    async def run(self) -> int:
        # From the first moment to the last, whenever nothing reads the terminal (the session
        # starting, a turn, a command such as /undo), keys typed ahead stay unechoed and Enter stays
        # Enter (not a Ctrl+J newline) for the next prompt. prompt-toolkit switches to raw mode
        # around each read and back to this; questions switch to normal mode around theirs.
        with terminal.quiet_input():
            return await self._run()

    async def _run(self) -> int:
        from flue_tui.model.route import warm
        from flue_tui.runtime.start import pick_by_number
        from flue_tui.runtime.workers import DaemonExecutor

        asyncio.get_running_loop().set_default_executor(DaemonExecutor())  # quitting never waits on a job

        warm(self.settings.model, self.settings.api_base, self.settings.transport)  # litellm, or the HTTP client
        await self._ask_trust()
        self._welcomed = await greeting.welcome_first(self)
        opts = self.options
        waits = opts is not None and (opts.pick or opts.continue_last or opts.resume is not None)
        self.start(picker=_line_picker(pick_by_number) if opts is not None and opts.pick else None)
        # The `@path` index is built once the session has started, not beside it: in a big tree
        # its thread would take the interpreter from the start.
        assert self._attaching is not None
        self._attaching.add_done_callback(lambda _f: None if self.quitting else self._index_paths())
        # Resuming shows its recap before the first prompt, and a bad name ends the run.
        if (waits or self.first) and not await self.ready():
            return 1
        if self.first and not greeting.refused(self, self.first):
            got = attached(self.first, self.settings, self.sessions.session)  # `@path` attaches the file
            await self.send(got.text, echo=got.display or self.first, display=got.display, images=got.images)
        while not self.quitting:
            text = await self.prompt.read()
            if text is QUIT:
                break
            if text is not WOKEN:
                await self._handle(text)
            await self._follow_ups()
        return 0

    def _index_paths(self) -> None:
        indexed = self._spawn(asyncio.to_thread(self.paths.build))
        indexed.add_done_callback(lambda _f: self.prompt.paths_ready())

    async def _handle(self, text: str) -> None:
        if not text.strip():
            return
        parsed = parse(text.strip())
        if parsed is not None and parsed[0] not in ("quit", "exit", "help") and self._attaching is not None:
            # Typed while the session starts (/status, /cost, ...): answered once it has, about it.
            await asyncio.shield(self._attaching)
        if parsed is not None and await dispatch(self, *parsed):
            return
        if self._attaching is not None:  # the session's read deny rules apply to `@path` too
            await asyncio.shield(self._attaching)
        if greeting.refused(self, text):
            return
        self.ended.user_sent()
        got = attached(text, self.settings, self.sessions.session)
        if got.display is not None:  # the typed line is on screen already: only the notes
            self.renderer.note(got.display.split("\n", 1)[1], "info")
        await self.send(got.text, display=got.display, images=got.images)

    async def _ask_trust(self) -> None:
        """Before the first session: may the project's .flue/config.toml loosen protection?"""
        from flue_tui.inline.asking import ask_trust
        from flue_tui.permissions.project import accept, pending

        asked = await asyncio.to_thread(pending, self.settings)
        if asked is None or not await ask_trust(self.console, asked, self.dumb):
            return  # the session starts with the one-line notice of what was ignored
        try:
            self.sessions.settings = await asyncio.to_thread(accept, self.settings, asked)
        except ConfigError as exc:
            self.renderer.note(f"flue: {exc}", "error")
            return
        self.renderer.note(f"Trusted {asked.path}.")

    def _spawn(self, aw: Awaitable[Any]) -> asyncio.Future[Any]:
        fut = asyncio.ensure_future(aw)
        self._background.add(fut)
        fut.add_done_callback(self._background.discard)
        return fut


def _line_picker(pick: Callable[[Any, str], str | None]) -> Callable[[Any, str], str | None]:
    """`--resume` alone reads a number with Enter: the terminal is in its normal mode for that."""

    def picked(store: Any, cwd: str) -> str | None:
        with terminal.normal_input():
            return pick(store, cwd)

    return picked


def run_inline(settings: Settings, first: str | None, *, sessions: SessionOptions | None = None) -> int:
    from flue_tui.runtime.quitting import close_session, leave

    app = InlineApp(settings, first, sessions)

    async def run_and_leave() -> int:
        code = await app.run()
        # Leave from inside the loop: asyncio.run's teardown would wait for every task's cancellation
        # (an MCP server's stdio client waits for its process to end).
        leave(code, close_session(app.sessions))

    hint = None
    try:
        code = asyncio.run(run_and_leave())
    except ConfigError as exc:
        print(f"flue: {exc}", file=sys.stderr)
        code = EXIT_CONFIG
    except KeyboardInterrupt:
        code = 130
    finally:
        hint = close_session(app.sessions)
    leave(code, hint)
