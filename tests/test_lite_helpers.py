"""The in-browser kernel's helpers that run anywhere: the blank pictures that stand
in for figures saved offline (lite/slowtorch_lite), and the start-up settings of
the lite build (scripts/build_lite.py)."""

from __future__ import annotations

import importlib.util
import io
import struct
import sys
import zlib
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


lite = _load("slowtorch_lite", ROOT / "lite" / "slowtorch_lite" / "__init__.py")
build_lite = _load("build_lite", ROOT / "scripts" / "build_lite.py")


def _png_size_and_pixels(data: bytes) -> tuple[int, int, bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks = 8, {}
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        end = position + 8 + length
        body = data[position + 8 : end]
        (crc,) = struct.unpack(">I", data[end : end + 4])
        assert crc == zlib.crc32(kind + body), f"bad CRC in {kind!r}"
        chunks[kind] = body
        position += 12 + length
    width, height = struct.unpack(">II", chunks[b"IHDR"][:8])
    return width, height, zlib.decompress(chunks[b"IDAT"])


def test_a_blank_png_is_a_valid_picture_of_the_asked_size() -> None:
    width, height, pixels = _png_size_and_pixels(lite.blank_png(7, 3))
    assert (width, height) == (7, 3)
    row = b"\x00" + bytes(lite.BLANK_RGB) * 7
    assert pixels == row * 3


def test_savefig_offline_writes_a_picture_of_the_figure_size() -> None:
    buffer = io.BytesIO()
    lite._save_blank((4.2, 3.4), (buffer,), {"format": "png", "dpi": 72})
    width, height, _ = _png_size_and_pixels(buffer.getvalue())
    assert (width, height) == (302, 245)
    text = io.StringIO()
    lite._save_blank((2.0, 1.0), (text,), {"format": "svg"})
    assert text.getvalue().startswith("<svg") and 'width="200"' in text.getvalue()
    assert "offline" in text.getvalue()


def test_savefig_offline_into_a_file(tmp_path: Path) -> None:
    target = tmp_path / "figure.png"
    lite._save_blank(lite.DEFAULT_FIGSIZE, (str(target),), {})
    width, height, _ = _png_size_and_pixels(target.read_bytes())
    assert (width, height) == (640, 480)


def test_the_kernel_starts_with_what_it_would_install_one_by_one() -> None:
    # The kernel skips installing each of these when they are preloaded.
    for name in ["micropip", "piplite", "ipykernel", "comm", "pyodide-kernel"]:
        assert name in build_lite.STARTUP_PACKAGES
    assert "jedi" in build_lite.STARTUP_PACKAGES  # named, then deferred by the boot
    boot = (ROOT / "lite" / "pyodide_boot.mjs").read_text(encoding="utf-8")
    assert 'const DEFERRED = ["jedi"];' in boot
    assert "slowtorch-course" not in build_lite.STARTUP_PACKAGES
