"""The one error type of the config layer: bad settings, shown to the user as one sentence."""

from __future__ import annotations


class ConfigError(Exception):
    """Bad settings: the message is shown to the user as is."""
