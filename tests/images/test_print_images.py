"""`flue -p` with images, through the real CLI against the strict stand-ins: `--image FILE` and
`@shot.png` reach a vision model's request as each provider takes them; a model without vision is
refused before any request; hostile files get one sentence."""

from __future__ import annotations

import base64
import os

import pytest

from tests.fakellm import Turn
from tests.images.pictures import png

VISION = "openai/gpt-4.1"
BLIND = "openai/gpt-3.5-turbo"  # litellm's map: no supports_vision


def _parts(request: dict) -> list[dict]:
    content = request["messages"][-1]["content"]
    return content if isinstance(content, list) else []


def test_an_image_file_reaches_a_vision_models_request(fakellm, flue_main, tmp_path):
    data = png(8, 8)
    (tmp_path / "shot.png").write_bytes(data)
    fakellm.script(Turn(text="A red square."))
    out = flue_main("-p", "what is in it?", "--image", "shot.png", "--model", VISION)
    assert out.code == 0, out.stderr
    assert out.stdout == "A red square.\n"
    url = "data:image/png;base64," + base64.b64encode(data).decode()
    assert _parts(fakellm.requests[0]) == [
        {"type": "text", "text": "what is in it?"},
        {"type": "image_url", "image_url": {"url": url}},
    ]


def test_at_mention_and_dropped_path_attach_images(fakellm, flue_main, tmp_path):
    (tmp_path / "a.png").write_bytes(png(2, 2, "blue"))
    (tmp_path / "My Shot.png").write_bytes(png(3, 3, "green"))
    fakellm.script(Turn(text="two"))
    dropped = f"'{tmp_path}/My Shot.png'"
    out = flue_main("-p", f"compare @a.png with {dropped}", "--model", VISION)
    assert out.code == 0, out.stderr
    parts = _parts(fakellm.requests[0])
    assert [p["type"] for p in parts] == ["text", "image_url", "image_url"]
    assert parts[0]["text"] == f"compare @a.png with {dropped}"  # the typed text, as typed


def test_the_anthropic_path_sends_a_base64_image_block(fakeanthropic, flue_main, flue_env, tmp_path):
    data = png(5, 5)
    (tmp_path / "shot.png").write_bytes(data)
    env = {k: v for k, v in flue_env.items() if not k.startswith("OPENAI_")}
    env.update({"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_API_BASE": fakeanthropic.base_url})
    fakeanthropic.script(Turn(text="red"))
    out = flue_main("-p", "what?", "--image", "shot.png", "--model", "anthropic/claude-sonnet-4-5", env=env)
    assert out.code == 0, out.stderr
    blocks = fakeanthropic.requests[0]["messages"][-1]["content"]
    image = next(b for b in blocks if b["type"] == "image")
    assert image["source"] == {"type": "base64", "media_type": "image/png", "data": base64.b64encode(data).decode()}


def test_a_model_without_vision_is_refused_before_any_request(fakellm, flue_main, tmp_path):
    (tmp_path / "shot.png").write_bytes(png())
    out = flue_main("-p", "what?", "--image", "shot.png", "--model", BLIND)
    assert out.code == 1
    assert "gpt-3.5-turbo does not take images" in out.stdout + out.stderr
    assert fakellm.requests == []


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p.write_bytes(b"<html>not a png</html>"), "fake.png is not a PNG, JPEG, GIF or WebP image."),
        (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * (50 * 1024 * 1024)), "fake.png is larger than 20 MB"),
        (lambda p: os.symlink("/etc/shadow", p), "fake.png"),
    ],
)
def test_hostile_image_files_get_one_sentence(fakellm, flue_main, tmp_path, make, said):
    make(tmp_path / "fake.png")
    out = flue_main("-p", "what?", "--image", "fake.png", "--model", VISION)
    assert out.code == 2 and said in out.stderr and ".." not in out.stderr  # a start failure, in one line
    assert len(out.stderr.splitlines()) == 1
    assert "Traceback" not in out.stderr and fakellm.requests == []
    at = flue_main("-p", "what is @fake.png", "--model", VISION)
    assert at.code in (0, 1) and "Traceback" not in at.stderr
    assert all("image_url" not in str(r) for r in fakellm.requests)


def test_the_workspace_sandbox_and_read_rules_guard_images(fakellm, flue_main, tmp_path):
    outside = tmp_path.parent / f"{tmp_path.name}-outside.png"
    outside.write_bytes(png())
    (tmp_path / "secret.png").write_bytes(png())
    os.symlink(outside, tmp_path / "link.png")
    out = flue_main("-p", "x", "--image", "link.png", "--sandbox", "workspace", "--model", VISION)
    assert out.code == 2 and "outside the workspace" in out.stderr
    denied = flue_main("-p", "x", "--image", "secret.png", "--disallowedTools", "Read(secret.png)", "--model", VISION)
    assert denied.code == 2 and "denied by the rule" in denied.stderr
    assert fakellm.requests == []


def test_a_name_that_is_not_utf8_is_attached_and_shown_replaced(fakellm, flue_main, tmp_path):
    name = os.fsdecode(b"shot-\xff.png")
    (tmp_path / name).write_bytes(png())
    fakellm.script(Turn(text="ok"))
    out = flue_main("-p", "what?", "--image", name, "--model", VISION, "--output-format", "json")
    assert out.code == 0, out.stderr
    assert [p["type"] for p in _parts(fakellm.requests[0])] == ["text", "image_url"]
