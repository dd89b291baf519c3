"""`terminal_safe` lives in flue_tui/core/termsafe.py (the trust and approval questions below the ui
layer need it too); the front ends keep importing it from here."""

from flue_tui.core.termsafe import terminal_safe as terminal_safe
