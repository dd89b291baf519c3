"""The one error type of the config layer: bad settings, shown to the user as one sentence."""

from __future__ import annotations


class ConfigError(Exception):
    """Bad settings: the message is shown to the user as is."""


# Every front end exits with this when the run never started: bad flags, settings, config files,
# session flags or prompt bytes (argparse's own usage code, so all of them read the same).
EXIT_CONFIG = 2
