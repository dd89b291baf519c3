"""Inline mode's side of the slash commands: the `FrontEnd` operations (ui/commands.py) that the
shared dispatcher calls, printed into the scrollback instead of shown as notices.

A mixin of InlineApp (it never imports the app, so the two do not form an import cycle); what it
uses of the app is declared below.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from flue_tui.ui.keys import missing_key

if TYPE_CHECKING:
    from flue_tui.agent.session import Session
    from flue_tui.config.settings import Settings
    from flue_tui.context.skills import Skill
    from flue_tui.inline.prompt import InlinePrompt
    from flue_tui.inline.renderer import Renderer
    from flue_tui.inline.sessions import InlineSessions
    from flue_tui.ui.router import Status

KEYS = (
    ("enter", "send"),
    ("ctrl+j, alt+enter, \\ enter", "new line"),
    ("up / down", "prompt history (at the first / last line)"),
    ("@ / tab", "complete a file path or a /command"),
    ("!command", "run a shell command yourself; the model sees it next turn"),
    ("esc esc", "clear the input"),
    ("ctrl+c", "interrupt the agent; twice at the prompt quits"),
    ("shift+tab", "permission mode: ask → accept-edits → plan"),
)


class InlineCommands:
    help_keys = KEYS

    # Provided by InlineApp.
    settings: Settings
    renderer: Renderer
    sessions: InlineSessions
    unavailable: str | None
    quitting: bool
    switch_session: Callable[[str | None], Awaitable[None]]
    send: Callable[..., Awaitable[None]]  # (text, echo=None, display=None)
    start: Callable[[], None]
    ready: Callable[[], Awaitable[bool]]
    _turn: Callable[[Awaitable[Any], str | None], Awaitable[Any]]
    prompt: InlinePrompt
    console: Any
    dumb: bool

    @property
    def session(self) -> Session | None:
        return self.sessions.session

    @property
    def usage(self) -> Status:
        return self.renderer.router.status

    def notice(self, text: str, level: str = "info") -> None:
        self.renderer.note(text, level)

    def session_label(self) -> str:
        return self.sessions.label()

    def context_label(self) -> str:
        return ""  # inline mode does not look the context window up (yet)

    def remember_mode(self, mode: str) -> None:
        self.sessions.keep_mode(mode)  # /new and /resume keep the mode the user chose

    @property
    def handle(self) -> InlineSessions:
        return self.sessions

    async def new_session(self) -> None:
        await self.switch_session(None)

    async def open_picker(self, ref: str | None) -> None:
        """/resume NAME resumes it; /resume alone lists the recent sessions to pick from."""
        if not self.sessions.persist:
            self.notice("Sessions are not saved in this run (--no-session-persistence).", "warn")
            return
        if ref:
            await self.switch_session(ref)
            return
        from flue_tui.store.values import local_time

        recent = self.sessions.recent()
        if not recent:
            self.notice("No saved sessions in this directory yet.")
            return
        lines = [f"  {local_time(i.updated_at)}  {i.label}  ({i.message_count} messages)  {i.id}" for i in recent]
        self.notice("Recent sessions (resume one with /resume NAME or an id prefix):\n" + "\n".join(lines))

    async def rename_session(self, name: str) -> None:
        self._try(lambda: self.sessions.rename(name))

    async def switch_model(self, model: str) -> None:
        self._try(lambda: self.sessions.switch_model(model))
        hint = missing_key(self.settings)
        if hint:  # the no-key screen now, not a prompt that waits and fails later
            self.notice(hint, "warn")
        if self.sessions.session is None and self.unavailable:
            self.start()  # the session could not start without a model: try again with this one

    async def pick_model(self, current: str | None, query: str) -> str | None:
        from flue_tui.inline.modelpick import pick

        return await pick(self.renderer, current, query)

    async def run_skill(self, skill: Skill, extra: str) -> None:
        from flue_tui.context.skills import skill_prompt, skill_typed

        await self.send(skill_prompt(skill, extra or None), display=skill_typed(skill, extra))

    async def run_shell(self, command: str) -> None:
        if not await self.ready():
            return
        session = self.sessions.session
        assert session is not None  # ready() started it
        result = await self._turn(session.shell(command), None)  # Ctrl+C / Esc interrupt it as a turn
        if result.aborted:
            self.notice(result.error, "warn")

    async def run_slow(self, job: Coroutine[Any, Any, None]) -> None:
        await job  # inline commands run in turn: the prompt comes back when it is done

    async def quit(self) -> None:
        self.quitting = True

    def session_store(self) -> Any:
        return self.sessions.started.store if self.sessions.started is not None else None

    async def confirm(self, title: str, lines: list[str], yes: str) -> bool:
        from flue_tui.inline.asking import ask_yes_no

        return await ask_yes_no(self.console, title, lines, yes, self.dumb)

    async def pick_rewind(self, points: list[Any]) -> tuple[int, str] | None:
        lines = [
            f"  {p.number:>3}. {(p.text.strip().splitlines() or [''])[0][:70]}"
            + ("" if p.has_files else "  (no files)")
            for p in points
        ]
        self.notice(
            "Rewind to just before message N with /rewind N [both|code|conversation] "
            "(both: files and conversation):\n" + "\n".join(lines)
        )
        return None  # inline mode lists; the user picks with /rewind N

    async def continue_on(self, session_id: str, prompt: str) -> None:
        await self.switch_session(session_id)
        self.prompt.prefill = prompt

    def _try(self, action: Callable[[], str]) -> None:
        try:
            self.notice(action())
        except ValueError as exc:
            self.notice(str(exc), "error")
