"""A failed litellm import reaches the awaiting caller instead of hanging it."""

from __future__ import annotations

import asyncio
import sys

import pytest

from flue_tui.model import loader


async def test_import_failure_is_raised_not_hung(monkeypatch):
    monkeypatch.setattr(loader, "_litellm", None)
    monkeypatch.setitem(sys.modules, "litellm", None)  # makes `import litellm` raise ImportError
    with pytest.raises(ImportError):
        await asyncio.wait_for(loader.aget_litellm(), 30)
