"""`flue --acp` under the SDK's client side (tests/acp/client.py), against the scripted server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.acp.client import FLUE, LIMIT

pytestmark = pytest.mark.skipif(FLUE is None, reason="the flue script is not installed in this venv")


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, LIMIT * 2))
