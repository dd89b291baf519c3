"""Session modes and config options: flue's permission modes, the model and the thinking effort.

Every change goes through the SessionHandle (switch_model, set_effort, keep_mode) and the session's
permission policy, as `/model`, `/effort` and `/mode` do. A client picks among the modes a person
could pick in the app; yolo (nothing asked) is offered only when the person started this flue in
yolo themselves (--permission-mode yolo or their own config), so no client can switch the questions
off. Any model id the handle accepts may be set (a harness names its own), not only those listed.
"""

from __future__ import annotations

from typing import Any

from acp import RequestError
from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption, SessionMode, SessionModeState

from flue_tui.config.text import lone_surrogate
from flue_tui.model.turn_params import EFFORTS
from flue_tui.permissions.policy import policy_of

_MODES = {
    "ask": ("Ask", "Asks before each edit and command."),
    "accept-edits": ("Accept edits", "Edits run without asking; commands still ask."),
    "plan": ("Plan", "Read-only: no edits; only commands that only read (git diff, ls)."),
    "yolo": ("Yolo", "Nothing is asked (deny rules and the sandbox still hold)."),
}


def offered_modes(start_mode: str) -> tuple[str, ...]:
    return tuple(m for m in _MODES if m != "yolo" or start_mode == "yolo")


def current_mode(handle: Any) -> str:
    policy = policy_of(handle.session)
    return policy.mode if policy is not None else "yolo"


def modes(handle: Any, offered: tuple[str, ...]) -> SessionModeState:
    return SessionModeState(
        current_mode_id=current_mode(handle),
        available_modes=[SessionMode(id=m, name=_MODES[m][0], description=_MODES[m][1]) for m in offered],
    )


def config_options(handle: Any, offered: tuple[str, ...], models: list[str]) -> list[Any]:
    model = handle.settings.model or ""
    listed = list(dict.fromkeys([model, *models])) if model else list(dict.fromkeys(models))
    effort = handle.settings.effort or "off"
    return [
        SessionConfigOptionSelect(
            id="mode",
            name="Permission mode",
            category="mode",
            type="select",
            current_value=current_mode(handle),
            options=[SessionConfigSelectOption(value=m, name=_MODES[m][0], description=_MODES[m][1]) for m in offered],
        ),
        SessionConfigOptionSelect(
            id="model",
            name="Model",
            category="model",
            type="select",
            current_value=model,
            options=[SessionConfigSelectOption(value=m, name=m) for m in listed],
        ),
        SessionConfigOptionSelect(
            id="effort",
            name="Thinking effort",
            category="thought_level",
            type="select",
            current_value=effort,
            options=[SessionConfigSelectOption(value=e, name=e) for e in EFFORTS],
        ),
    ]


def set_mode(handle: Any, offered: tuple[str, ...], mode: str) -> None:
    policy = policy_of(handle.session)
    if mode not in offered or policy is None:
        raise RequestError.invalid_params({"modeId": f"not a mode of this session: {mode!r} ({', '.join(offered)})"})
    policy.set_mode(mode)
    handle.keep_mode(mode)


def set_option(handle: Any, offered: tuple[str, ...], config_id: str, value: Any) -> None:
    if not isinstance(value, str) or lone_surrogate(value) is not None:
        raise RequestError.invalid_params({"value": "this option takes a string of valid Unicode"})
    if config_id == "mode":
        set_mode(handle, offered, value)
    elif config_id == "model":
        try:
            handle.switch_model(value)
        except ValueError as exc:
            raise RequestError.invalid_params({"value": str(exc)}) from None
    elif config_id == "effort":
        if value not in EFFORTS:
            raise RequestError.invalid_params({"value": f"the effort is one of {', '.join(EFFORTS)}"})
        try:
            handle.set_effort(value)
        except ValueError as exc:
            raise RequestError.invalid_params({"value": str(exc)}) from None
    else:
        raise RequestError.invalid_params({"configId": f"no such option: {config_id!r}"})
