"""Image blocks on `--input-format stream-json`, in the Agent SDK's shape, sent by the real
claude-agent-sdk to the real `flue` script: they reach a vision model's request as `image_url`
parts; a model without vision answers with the one sentence and no request; a broken block drops
its message with one line on stderr and the session goes on."""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakellm import Turn
from tests.images.pictures import png

sdk = pytest.importorskip("claude_agent_sdk")
from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query  # noqa: E402

FLUE = shutil.which("flue", path=str(Path(sys.executable).parent)) or "flue"
pytestmark = pytest.mark.skipif(shutil.which(FLUE) is None, reason="the flue script is not installed in this venv")
TIMEOUT = 240  # each run spawns flue, which imports litellm: seconds of CPU on a loaded machine
DATA = base64.b64encode(png(6, 6)).decode()


def _user(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": list(blocks)}, "parent_tool_use_id": None}


def _image(data: str = DATA, media: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}


def _ask(flue_env: dict[str, str], cwd: Path, model: str, *messages: dict[str, Any]) -> list[Any]:
    env = {
        k: flue_env[k]
        for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "FLUE_RETRY_BASE_MS", "FLUE_HOME")
        if k in flue_env
    }
    options = ClaudeAgentOptions(cli_path=FLUE, cwd=str(cwd), model=model, env=env)

    async def stream():
        for m in messages:
            yield m

    async def run() -> list[Any]:
        return [m async for m in query(prompt=stream(), options=options)]

    return asyncio.run(asyncio.wait_for(run(), TIMEOUT))


def test_an_sdk_image_block_reaches_the_models_request(fakellm, flue_env, tmp_path):
    fakellm.script(Turn(text="A red square."))
    out = _ask(flue_env, tmp_path, "openai/gpt-4.1", _user({"type": "text", "text": "what is it?"}, _image()))
    result = next(m for m in out if isinstance(m, ResultMessage))
    assert not result.is_error and result.result == "A red square."
    parts = fakellm.requests[0]["messages"][-1]["content"]
    assert parts == [
        {"type": "text", "text": "what is it?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{DATA}"}},
    ]


def test_a_model_without_vision_answers_with_one_sentence_and_sends_nothing(fakellm, flue_env, tmp_path):
    out = _ask(flue_env, tmp_path, "openai/gpt-3.5-turbo", _user({"type": "text", "text": "what?"}, _image()))
    result = next(m for m in out if isinstance(m, ResultMessage))
    assert result.is_error and "does not take images" in str(result.result or "") + str(getattr(result, "errors", ""))
    assert fakellm.requests == []


def test_broken_image_blocks_drop_their_message_and_the_session_goes_on(fakellm, flue_env, tmp_path):
    fakellm.script(Turn(text="still here"))
    lines = [
        _user({"type": "text", "text": "a"}, _image("not base64 at all!")),
        _user({"type": "text", "text": "b"}, _image(base64.b64encode(b"<svg/>").decode())),
        _user({"type": "text", "text": "c"}, _image(media="image/svg+xml")),
        _user({"type": "text", "text": "d"}, {"type": "image", "source": {"type": "url", "url": "http://x/y.png"}}),
        _user({"type": "text", "text": "hi"}),
    ]
    proc = subprocess.run(
        [FLUE, "--input-format", "stream-json", "--output-format", "stream-json", "--model", "openai/gpt-4.1"],
        input="\n".join(json.dumps(line) for line in lines) + "\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=flue_env,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert out[-1]["type"] == "result" and out[-1]["result"] == "still here"
    said = proc.stderr.splitlines()
    assert len(said) == 4 and all(s.startswith("flue: a user message was ignored: ") for s in said), said
    assert "not valid base64" in said[0] and "not a PNG, JPEG, GIF or WebP" in said[1]
    assert "media type 'image/svg+xml'" in said[2] and "base64 source" in said[3]
    assert len(fakellm.requests) == 1 and fakellm.requests[0]["messages"][-1]["content"] == "hi"
