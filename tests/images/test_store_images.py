"""Images in the store: kept once per sha256 however often they are sent, read back with every
message (resume, fork, export), carried by export/import, named in the Markdown export, and gone
with the last session that refers to them."""

from __future__ import annotations

import base64
import json

from flue_tui.core.images import from_bytes
from flue_tui.core.messages import UserMessage, message_to_dict
from flue_tui.store.export import to_json, to_markdown
from flue_tui.store.importing import import_json
from flue_tui.store.sessions import SessionStore
from tests.images.pictures import png


def _count(store: SessionStore) -> int:
    return store.conn.execute("SELECT count(*) FROM images").fetchone()[0]


def test_an_image_is_stored_once_and_read_back_whole(tmp_path):
    image = from_bytes(png(9, 9), "shot.png")
    message = message_to_dict(UserMessage(content="look", display="look\n  ⎿ attached x", images=(image,)))
    with SessionStore.open(tmp_path / "s.db") as store:
        for sid in ("a", "b"):
            store.create(sid, cwd=str(tmp_path))
            store.append(sid, message)
            store.append(sid, message)
        assert _count(store) == 1
        row = store.conn.execute("SELECT content FROM messages WHERE session_id = 'a' LIMIT 1").fetchone()[0]
        assert image.sha256 in row and base64.b64encode(image.data or b"").decode() not in row  # a reference only
        [first, _] = list(store.iter_messages("a"))
        assert first.data["images"][0]["data"] == base64.b64encode(image.data or b"").decode()
        resumed = store.load_context("a")[0]
        assert isinstance(resumed, UserMessage) and resumed.images == (image,)
        store.delete("a")
        assert _count(store) == 1  # "b" still refers to it
        store.delete("b")
        assert _count(store) == 0


def test_export_and_import_carry_the_image(tmp_path):
    image = from_bytes(png(5, 5), "shot.png")
    with SessionStore.open(tmp_path / "one.db") as store:
        store.create("s1", cwd=str(tmp_path))
        store.append("s1", message_to_dict(UserMessage(content="look", images=(image,))))
        info = store.get("s1")
        assert info is not None
        exported = json.loads(json.dumps(to_json(store, info)))
        assert "[image: shot.png]" in to_markdown(store, info)
    with SessionStore.open(tmp_path / "two.db") as other:
        imported, _ = import_json(other, exported)
        back = other.load_context(imported.id)[0]
        assert isinstance(back, UserMessage) and back.images == (image,)
        assert _count(other) == 1


def test_an_import_whose_image_bytes_lie_keeps_no_bytes(tmp_path):
    image = from_bytes(png(5, 5), "shot.png")
    with SessionStore.open(tmp_path / "one.db") as store:
        store.create("s1", cwd=str(tmp_path))
        store.append("s1", message_to_dict(UserMessage(content="look", images=(image,))))
        info = store.get("s1")
        assert info is not None
        exported = to_json(store, info)
    exported["messages"][0]["images"][0]["data"] = base64.b64encode(b"\x89PNG\r\n\x1a\nforged").decode()
    with SessionStore.open(tmp_path / "two.db") as other:
        imported, _ = import_json(other, exported)
        back = other.load_context(imported.id)[0]
        assert isinstance(back, UserMessage) and back.images[0].data is None and back.images[0].name == "shot.png"
        assert _count(other) == 0
