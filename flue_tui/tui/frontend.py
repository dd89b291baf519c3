"""The app's side of the slash-command protocol (ui/commands.FrontEnd): what a command may ask of
the app, kept apart from its layout, rendering and keys (tui/app.py)."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from textual.app import App

from flue_tui.tui import approvals
from flue_tui.ui.commands import COMMANDS, builtin_names, runnables
from flue_tui.ui.transcript import NoticeEntry

if TYPE_CHECKING:
    from flue_tui.config.settings import Settings
    from flue_tui.permissions.policy import PermissionPolicy
    from flue_tui.tui.session_ctl import SessionControl
    from flue_tui.tui.widgets.prompt import PromptArea
    from flue_tui.ui.router import EventRouter, Status


class AppFrontEnd(App[int]):
    # Set up by FlueApp.
    ctl: SessionControl
    router: EventRouter
    prompt: PromptArea
    context_window: int | None

    def notice(self, text: str, level: str = "info") -> None:
        self.router.add(NoticeEntry(text=text, level=level))

    @property
    def usage(self) -> Status:
        return self.router.status

    def policy(self) -> PermissionPolicy | None:
        return approvals.current(self)

    async def run_slow(self, job: Coroutine[Any, Any, None]) -> None:
        self.run_worker(job, group="slow-command", exit_on_error=False)  # keys keep working meanwhile

    async def quit(self) -> None:
        await self.action_quit()

    async def run_shell(self, command: str) -> None:
        from flue_tui.tui.shell import run_shell

        await run_shell(self, command)

    @property
    def handle(self) -> Any:
        return self.ctl.handle

    def session_store(self) -> Any:
        return self.ctl.store

    async def pick_rewind(self, points: list[Any]) -> tuple[int, str] | None:
        from flue_tui.tui.screens.rewind import RewindScreen

        return await self.push_screen_wait(RewindScreen(points))

    async def confirm(self, title: str, lines: list[str], yes: str) -> bool:
        from flue_tui.tui.screens.confirm import ConfirmScreen

        return bool(await self.push_screen_wait(ConfirmScreen(title, lines, yes)))

    async def pick_model(self, current: str | None, query: str) -> str | None:
        from flue_tui.tui.screens.models import ModelPicker

        return await self.push_screen_wait(ModelPicker(current, query))

    async def continue_on(self, session_id: str, prompt: str) -> None:
        await self.ctl.replace(session_id)
        self.prompt.set_text(prompt)
        await self.ctl.wait_started()  # the caller goes on with the fork's session (ui/commands.py)

    # -- sessions ----------------------------------------------------------------------------------
    @property
    def session(self) -> Any:
        return self.ctl.session

    def session_label(self) -> str:
        return self.ctl.label()

    @property
    def settings(self) -> Settings:
        return self.ctl.settings  # the session handle's: /model, /effort and /mode replace them

    def context_label(self) -> str:
        s = self.router.status
        if not (self.context_window and s.context_tokens):
            return ""
        return f"{s.context_tokens:,} of {self.context_window:,} tokens ({100 * s.context_tokens / self.context_window:.0f}%)"

    async def new_session(self) -> None:
        await self.ctl.replace(None)

    async def open_picker(self, ref: str | None) -> None:
        await self.ctl.pick(ref)

    async def rename_session(self, name: str) -> None:
        await self.ctl.rename(name)

    def skill_list(self) -> list[tuple[str, str]]:
        return runnables(getattr(self.ctl.context, "skills", None))  # skills, then .claude/commands

    def find_skill(self, name: str) -> Any:
        skills = getattr(self.ctl.context, "skills", None)
        return skills.runnable(name) if skills is not None and name not in builtin_names() else None

    def command_items(self) -> list[tuple[str, str, bool]]:
        """(name, help, needs an argument) for completion and the palette; skills included."""
        builtin = [(c.name, c.help, bool(c.args) and not c.args.startswith("[")) for c in COMMANDS]
        return builtin + [(name, desc, False) for name, desc in self.skill_list()]
