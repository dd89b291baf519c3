"""Real image files for the tests, made with Pillow (a dependency of flue for downscaling)."""

from __future__ import annotations

import io

from PIL import Image


def png(width: int = 4, height: int = 4, color: str = "red") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, "PNG")
    return buf.getvalue()


def noisy_png(width: int, height: int) -> bytes:
    """A PNG that does not compress: random pixels, so its size follows its pixel count."""
    import os

    buf = io.BytesIO()
    Image.frombytes("RGB", (width, height), os.urandom(width * height * 3)).save(buf, "PNG")
    return buf.getvalue()


def fmt(kind: str) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (3, 3), "blue").save(buf, kind)
    return buf.getvalue()
