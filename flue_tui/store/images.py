"""Attached images, stored once: the `images` table holds each image's bytes under its sha256,
and a user message's row keeps only the references (`{name, media_type, sha256, size}`). Writing
strips the base64 out of a message (values.encode) and keeps the bytes here; reading puts them back,
so every reader (resume, export, rewind's fork) sees the message as it was sent."""

from __future__ import annotations

import base64
import binascii
import hashlib
import sqlite3
from typing import Any

Blob = tuple[str, str, bytes]  # sha256, media type, bytes


def strip(message: dict[str, Any]) -> tuple[dict[str, Any], tuple[Blob, ...]]:
    """The message as its row keeps it, and the images to keep beside it. Bytes that do not hash
    to their sha256 are not kept (the reference stays: the message then says the image is gone)."""
    images = message.get("images")
    if message.get("role") != "user" or not isinstance(images, list) or not images:
        return message, ()
    refs: list[Any] = []
    blobs: list[Blob] = []
    for image in images:
        if not isinstance(image, dict):
            continue
        ref = {k: v for k, v in image.items() if k != "data"}
        refs.append(ref)
        raw = image.get("data")
        if not isinstance(raw, str):
            continue
        try:
            data = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            continue
        if hashlib.sha256(data).hexdigest() == ref.get("sha256"):
            blobs.append((ref["sha256"], str(ref.get("media_type") or ""), data))
    return {**message, "images": refs}, tuple(blobs)


def keep(conn: sqlite3.Connection, blobs: tuple[Blob, ...]) -> None:
    """Inside the caller's write transaction; an image already there is not written again."""
    for sha, media_type, data in blobs:
        conn.execute(
            "INSERT OR IGNORE INTO images (sha256, media_type, data) VALUES (?, ?, ?)", (sha, media_type, data)
        )


def fill(conn: sqlite3.Connection, data: dict[str, Any]) -> dict[str, Any]:
    """A stored user message with its images' bytes back (base64, as it was sent)."""
    images = data.get("images")
    if data.get("role") != "user" or not isinstance(images, list) or not images:
        return data
    out = []
    for ref in images:
        row = None
        if isinstance(ref, dict) and isinstance(ref.get("sha256"), str):
            row = conn.execute("SELECT data FROM images WHERE sha256 = ?", (ref["sha256"],)).fetchone()
        out.append({**ref, "data": base64.b64encode(row[0]).decode("ascii")} if row else ref)
    return {**data, "images": out}


def prune(conn: sqlite3.Connection) -> None:
    """Drop images no message refers to any more (after a session is deleted)."""
    conn.execute(
        "DELETE FROM images WHERE sha256 NOT IN (SELECT json_extract(j.value, '$.sha256') FROM messages m, "
        "json_each(m.content, '$.images') j WHERE m.role = 'user' AND json_valid(m.content) "
        "AND json_type(m.content, '$.images') = 'array')"
    )
