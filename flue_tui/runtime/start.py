"""Checking the session flags, and starting a Session that resumes from the store and records
into it. Print mode, the plain front end and the TUI all start sessions through here."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flue_tui.config.errors import ConfigError

if TYPE_CHECKING:
    import argparse  # only the CLI's flags are read here; the app imports this module before its frame

    from flue_tui.agent.session import Session
    from flue_tui.config.settings import Settings
    from flue_tui.store.lock import SessionLock
    from flue_tui.store.recorder import Recorder
    from flue_tui.store.sessions import SessionStore
    from flue_tui.store.values import SessionInfo

# (store, cwd) -> the chosen session's id, or None when the user cancelled.
Picker = Callable[["SessionStore", str], "str | None"]


class SessionStartError(ConfigError):
    """Shown as is; every front end exits with EXIT_CONFIG (2): the run never started."""


@dataclass(frozen=True, slots=True)
class SessionOptions:
    """Which session a front end starts (new, named, resumed, continued or forked) and how it is stored."""

    name: str | None = None
    resume: str | None = None
    pick: bool = False
    continue_last: bool = False
    fork: bool = False
    persist: bool = True
    db: str | None = None
    owner: str = "flue"  # what this process is, for the sentence a second writer of the session gets
    session_id: str | None = None  # --session-id UUID: that session resumed, or a new one with this id

    @property
    def uses_store(self) -> bool:
        return self.persist or self.named

    @property
    def named(self) -> bool:
        """A stored session was asked for: one that cannot be read is an error, never a fresh start."""
        return self.pick or self.continue_last or bool(self.name or self.resume)


def options_from_args(args: argparse.Namespace, *, print_mode: bool) -> SessionOptions:
    """Check the combination; raises ValueError with a usage message (the CLI exits 2)."""
    resume = args.resume
    pick = bool(getattr(args, "pick", False))  # a bare --resume (cli/flags.py)
    if resume is not None and not resume.strip():
        raise ValueError("--resume needs a session name or id")
    if pick and print_mode:
        raise ValueError("--resume needs a session name or id in print mode (list them with: flue sessions list)")
    asked = pick or resume is not None
    if args.continue_last and asked:
        raise ValueError("use either --continue or --resume, not both")
    if args.session is not None and (args.continue_last or asked) and not args.fork_session:
        raise ValueError(
            "--session names the session to use; with --resume/--continue it is only allowed "
            "together with --fork-session (the fork gets that name)"
        )
    if args.fork_session and not (args.session or args.continue_last or asked):
        raise ValueError("--fork-session needs a session to fork: --resume NAME, --continue or --session NAME")
    session_id = getattr(args, "session_id", None)  # a UUID already (headless.claude.flags.check_session_id)
    if session_id is not None and (args.session is not None or args.continue_last or asked):
        raise ValueError("--session-id names the session itself; use it without --session, --continue or --resume")
    if args.session is not None:
        from flue_tui.store.db import StoreError
        from flue_tui.store.sessions import check_name

        try:
            check_name(args.session)
        except StoreError as exc:
            raise ValueError(str(exc)) from None
    worktree = getattr(args, "worktree", None)
    name = args.session
    if worktree is not None:
        from flue_tui.runtime.worktree import WorktreeError, check_name

        try:
            check_name(worktree)
        except WorktreeError as exc:
            raise ValueError(str(exc)) from None
        if name is None and not asked and not args.continue_last and session_id is None:
            name = worktree  # the worktree's session: `flue -w NAME` again resumes it
            from flue_tui.store.db import StoreError
            from flue_tui.store.sessions import check_name as check_session_name

            try:
                check_session_name(name)
            except StoreError as exc:
                raise ValueError(str(exc)) from None
    return SessionOptions(
        name=name,
        resume=resume,
        pick=pick,
        continue_last=args.continue_last,
        fork=args.fork_session,
        persist=not args.no_session_persistence,
        db=args.db,
        owner=_owner(args, print_mode),
        session_id=session_id,
    )


def _owner(args: argparse.Namespace, print_mode: bool) -> str:
    if print_mode:
        return "flue -p"
    if getattr(args, "inline", False):
        return "flue --inline"
    return "flue --plain" if getattr(args, "plain", False) else "interactive flue"


@dataclass(slots=True)
class Started:
    """A ready Session plus what the front end may want from the store (the TUI's hooks)."""

    session: Session
    context: Any  # runtime.Context
    store: SessionStore | None = None
    recorder: Recorder | None = None
    resumed: SessionInfo | None = None  # the stored session this one continues (or was forked from)
    notices: list[str] = field(default_factory=list)
    runtime: Any = None  # the Runtime that built it (agents an Agent SDK defines join its roster)
    hooks: Any = None  # the root session's hooks (hooks/lifecycle.SessionHooks): SessionEnd at close


def announce(started: Started, source: str | None, model: str | None) -> Started:
    """Claude Code's SessionStart, once the session is built: its context waits for the first
    prompt, what it says to the user joins the start's notices."""
    hooks = started.session.seams.prompt_hooks
    if hooks is None:  # no hooks: their modules stay unimported, out of the start
        return started
    from flue_tui.core.termsafe import terminal_safe
    from flue_tui.hooks.lifecycle import SessionHooks, blocking

    if not isinstance(hooks, SessionHooks):
        return started
    started.hooks = hooks
    source = source or ("resume" if started.resumed is not None else "startup")
    try:
        # a hook's stderr or systemMessage may echo a repository's text: shown, never obeyed
        started.notices.extend(map(terminal_safe, blocking(lambda: hooks.session_start(source, model or ""))))
    except Exception as exc:  # noqa: BLE001 - a hook is never the reason a session does not start
        started.notices.append(f"SessionStart hooks did not run: {exc}")
    return started


def _target(
    store: SessionStore, options: SessionOptions, cwd: str, picker: Picker | None, notices: list[str]
) -> SessionInfo | None:
    ref = options.resume
    if options.session_id is not None:
        return _by_id(store, options, cwd)
    if options.continue_last:
        found = store.newest(cwd)
        skipped = store.newer_imports(cwd, found)
        if skipped:  # one line, so an import that looks newest is not a silent surprise either way
            notices.append(
                f"--continue skipped the imported session {skipped[0].id} (imported sessions are resumed "
                f"only by name or id: flue --resume {skipped[0].id})."
            )
        if found is None:
            raise SessionStartError(
                f"No session to continue in {cwd}. "
                + (notices[-1] + " " if skipped else "")
                + "See all sessions with: flue sessions list --all"
            )
        return found
    if options.pick:
        if picker is None:
            raise SessionStartError(
                "--resume without a name needs the app's picker; pass a name or id (list them with: flue sessions list)"
            )
        ref = picker(store, cwd)
        if ref is None:
            return None
    if ref is not None:
        found = store.find(ref, cwd)
        if found is None:
            raise SessionStartError(str(store.unknown(ref, cwd)))
        if found.cwd != cwd and not found.id.startswith(ref):
            raise SessionStartError(
                f'No session named "{ref}" in {cwd}; there is one in {found.cwd}. '
                f"Run flue there, or resume it by id: flue --resume {found.id}"
            )
        if found.parent_id is not None:
            raise SessionStartError(f"{found.id} is a task inside session {found.parent_id}; resume that one.")
        return found
    if options.name is not None:
        return store.by_name(options.name, cwd)
    return None


def _by_id(store: SessionStore, options: SessionOptions, cwd: str) -> SessionInfo | None:
    """The session an exact id names (`--session-id`, ACP's load, resume and fork), in this project
    only: another project's history is not continued, nor copied, with this one's files and rules."""
    verb = "fork" if options.fork else "resume"
    found = store.get(options.session_id or "")
    if found is None and options.fork:  # nothing to copy: no new session takes the id asked for
        raise SessionStartError(f"No stored session {options.session_id} to fork. See them with: flue sessions list")
    if found is not None and found.parent_id is not None:
        raise SessionStartError(f"{found.id} is a task inside session {found.parent_id}; {verb} that one.")
    if found is not None and found.cwd != cwd:
        raise SessionStartError(f"Session {found.id} belongs to {found.cwd}; run flue there to {verb} it.")
    return found  # None: a new session gets this id


def start_session(
    settings: Settings,
    options: SessionOptions | None,
    *,
    picker: Picker | None = None,
    source: str | None = None,
    announced: bool = True,
) -> Started:
    """Resolve the options against the store, build the Session (system prompt recomposed, history
    rebuilt from the store) and attach the recorder; then the SessionStart hooks (`source`: Claude
    Code's, "clear" for /new; else startup or resume), unless `announced` is False (the caller
    runs `announce` once the session before has ended). Raises SessionStartError or ConfigError."""
    started = _start(settings, options, picker)
    return announce(started, source, settings.model) if announced else started


def _start(settings: Settings, options: SessionOptions | None, picker: Picker | None) -> Started:
    from flue_tui.core.messages import Usage
    from flue_tui.runtime.checkpointing import TurnCheckpoints, carry_over  # not before the app's first frame
    from flue_tui.runtime.wiring import Runtime

    runtime = Runtime(settings)  # checks the model before anything touches the database
    check_budget(settings)
    if options is None or not options.uses_store:
        hook = TurnCheckpoints(settings.cwd)
        session, context = runtime.new_session(
            checkpoints=hook,
            **({"session_id": options.session_id} if options is not None and options.session_id else {}),
        )
        carry_over(hook, session.id, warm=settings.interactive)
        return Started(session, context, notices=_layout_notices(), runtime=runtime)
    from flue_tui.store.db import StoreError
    from flue_tui.store.recorder import Recorder
    from flue_tui.store.sessions import SessionStore

    path = options.db
    if not options.persist and not _exists(options.db):
        path = ":memory:"  # nothing saved yet and nothing to save: do not create the file
    try:
        store = _checked(SessionStore.open(path), options)
    except StoreError as exc:
        raise SessionStartError(f"{exc} (Or run without saving: --no-session-persistence.)") from None
    from flue_tui.core.ids import new_id

    locks: list[SessionLock] = []
    notices: list[str] = []
    try:
        target = _target(store, options, settings.cwd, picker, notices)
        new_name = options.name if target is None else None
        source = target
        if target is not None and options.fork and options.persist:
            fork_name = options.name if (options.resume or options.continue_last or options.pick) else None
            target = store.fork(target.id, name=fork_name, cwd=settings.cwd)
        session_id = target.id if target is not None else (options.session_id or new_id("ses"))
        if options.persist:  # before reading: what we resume is what no one else is adding to
            locks = _lock(store, options, settings.cwd, session_id, target, new_name)
        messages = store.load_context(target.id) if target is not None else None
        kwargs: dict[str, Any] = {"session_id": session_id}
        if target is not None:
            kwargs["messages"] = messages
            # Its task children's tokens included; a price unknown then stays unknown.
            kwargs["usage"] = Usage(*store.tree_usage(target.id), priced=store.tree_priced(target.id))
        hook = TurnCheckpoints(settings.cwd, len(store.user_prompts(target.id)) if target else 0)
        session, context = runtime.new_session(checkpoints=hook, **kwargs)
    except StoreError as exc:
        _release(locks)
        store.close()
        raise SessionStartError(str(exc)) from None
    except BaseException:
        _release(locks)
        store.close()
        raise
    carry_over(
        hook,
        session.id,
        forked_from=source.id if source is not None and target is not None and source.id != target.id else None,
        warm=settings.interactive,
    )
    recorder = None
    if options.persist:
        recorder = Recorder(
            store,
            session_id=session.id,
            cwd=settings.cwd,
            model=settings.model,
            name=new_name,
            exists=target is not None,
            locks=locks,
        )
        session.subscribe(recorder)
    notes = [*store.notices, *notices, *_layout_notices()]
    return Started(session, context, store, recorder, source, notes, runtime=runtime)


def _layout_notices() -> list[str]:
    """An old-layout config file that is no longer read is said at every start (config/paths.py)."""
    from flue_tui.config.paths import legacy_notice

    notice = legacy_notice()
    return [notice] if notice is not None else []


def check_budget(settings: Settings) -> None:
    """--max-budget-usd holds in every front end, so one that cannot be priced stops every start
    (and every model switch: SessionHandle.switch_model)."""
    if settings.max_budget_usd is None or not settings.model:
        return
    from flue_tui.model.pricing import budget_problem
    from flue_tui.runtime.wiring import prices

    problem = budget_problem(settings.model, prices(settings))
    if problem:
        raise SessionStartError(problem)


def _lock(
    store: SessionStore,
    options: SessionOptions,
    cwd: str,
    session_id: str,
    target: SessionInfo | None,
    new_name: str | None,
) -> list[SessionLock]:
    """This session's lock, and for a new named session also its name's (a second `--session NAME`
    started before the first has saved anything would otherwise begin a second conversation)."""
    from flue_tui.store.lock import acquire

    ref = options.resume or options.name or session_id
    label = f'Session "{target.label if target else new_name or session_id}"'
    keys = ([f"name:{cwd}\0{new_name}"] if new_name else []) + [session_id]
    locks: list[SessionLock] = []
    try:
        for key in keys:
            lock = acquire(store.path, key, label=label, ref=ref, owner=options.owner)
            if lock is not None:
                locks.append(lock)
    except BaseException:
        _release(locks)
        raise
    return locks


def _release(locks: list[SessionLock]) -> None:
    for lock in locks:
        lock.release()


def _checked(store: SessionStore, options: SessionOptions) -> SessionStore:
    """A database that cannot be read, or cannot be written when this run would save, stops a run
    that asked for a stored session; a fresh run goes on unsaved, with the notice."""
    from flue_tui.store.sessions import SessionStore

    cannot_save = store.readonly and options.persist
    if store.problem is None and not cannot_save:
        return store
    problem = store.problem or (store.notices[0] if store.notices else f"{store.path} is read-only.")
    if options.named:
        store.close()
        ask = options.resume or options.name
        what = f'Session "{ask}"' if ask else "The saved session"
        if store.problem is None:  # readable, not writable
            raise SessionStartError(
                f"{problem} {what} would not be saved, so flue stops here. Give a writable "
                "database with --db, or read it without saving: --no-session-persistence."
            )
        raise SessionStartError(
            f"{problem} {what} cannot be read, and flue does not start a fresh conversation in its place."
        )
    store.close()
    fresh = SessionStore.open(":memory:")
    fresh.notices = (f"{problem} Sessions are not saved this run.",) if cannot_save else store.notices
    return fresh


def _exists(db: str | None) -> bool:
    from flue_tui.store.db import default_path

    # Only a file that is really not there means "nothing saved yet"; a path that cannot be
    # reached is opened, so its problem is reported instead of "no such session".
    try:
        os.stat(os.path.expanduser(db) if db else default_path())
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def pick_by_number(store: SessionStore, cwd: str) -> str | None:
    """A line-mode picker for bare `--resume` outside the TUI: numbered list, read a number."""
    from flue_tui.store.values import local_time

    sessions = store.list_sessions(cwd, limit=20)
    if not sessions:
        raise SessionStartError(f"No saved sessions in {cwd} to resume.")
    for n, info in enumerate(sessions, 1):
        print(f"{n:>3}. {local_time(info.updated_at)}  {info.label}  ({info.message_count} messages)", file=sys.stderr)
    try:
        answer = input("Resume which session? (number, Enter to cancel) ").strip()
    except EOFError:
        return None
    if not answer:
        return None
    if not answer.isdigit() or not 1 <= int(answer) <= len(sessions):
        raise SessionStartError(f"Not a number from the list: {answer!r}.")
    return sessions[int(answer) - 1].id
