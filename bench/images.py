"""Images in the store: what a session of image prompts costs to resume and to keep, against the
same session without images, in the same run.

Usage: uv run python bench/images.py
Prints, for N user messages each carrying the same ~200 KB image (a screenshot sent again and
again) and for N plain ones: the resume (load_context) median, their ratio, and the database's
size (the image is stored once, so its size should not grow with N).
"""

from __future__ import annotations

import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image as Pil

from flue_tui.core.images import from_bytes
from flue_tui.core.messages import AssistantMessage, UserMessage, message_to_dict
from flue_tui.store.sessions import SessionStore

N = 200
RUNS = 7


def _image() -> bytes:
    buf = io.BytesIO()
    Pil.frombytes("RGB", (300, 300), os.urandom(300 * 300 * 3)).save(buf, "PNG")
    return buf.getvalue()


def _fill(store: SessionStore, sid: str, with_image: bool, image) -> None:
    store.create(sid, cwd="/tmp")
    for i in range(N):
        user = UserMessage(content=f"look at this {i}", images=(image,) if with_image else ())
        store.append(sid, message_to_dict(user))
        store.append(sid, message_to_dict(AssistantMessage(text=f"I see picture {i}.")))


def _resume(store: SessionStore, sid: str) -> float:
    times = []
    for _ in range(RUNS):
        began = time.perf_counter()
        store.load_context(sid)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def main() -> None:
    image = from_bytes(_image(), "shot.png")
    with tempfile.TemporaryDirectory() as tmp:
        sizes = {}
        medians = {}
        for label, with_image in (("plain", False), ("images", True)):
            path = Path(tmp) / f"{label}.db"
            with SessionStore.open(path) as store:
                _fill(store, "s", with_image, image)
                store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                medians[label] = _resume(store, "s")
            sizes[label] = path.stat().st_size
        print(f"image: {image.size / 1024:.0f} KB, sent {N} times")
        print(f"resume plain:  {medians['plain'] * 1000:.1f} ms median")
        print(
            f"resume images: {medians['images'] * 1000:.1f} ms median ({medians['images'] / medians['plain']:.1f}x ratio)"
        )
        print(
            f"database: plain {sizes['plain'] / 1e6:.2f} MB, images {sizes['images'] / 1e6:.2f} MB "
            f"(ratio {sizes['images'] / sizes['plain']:.2f}; {N} copies would be {N * image.size / 1e6:.0f} MB)"
        )


if __name__ == "__main__":
    main()
