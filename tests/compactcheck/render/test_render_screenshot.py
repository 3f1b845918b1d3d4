"""The HTML report as a person sees it: a real defect stands out from a waived loss.

Headless Chromium draws the page into a PNG; the test reads its pixels (a small PNG decoder on
zlib, no imaging library) and looks for the violation colour and the waived colour.
"""

from __future__ import annotations

import re
import struct
import zlib
from collections import Counter
from pathlib import Path

from pydantic import JsonValue

from compactcheck.render import render_html
from compactcheck.report.model import (
    Counterexample,
    InvariantResult,
    Report,
    TargetReport,
    Verdict,
)
from tests.compactcheck.render.chromium import chromium, needs_chromium

STYLE = Path(__file__).parents[3] / "compactcheck/render/templates/style.css.j2"

pytestmark = needs_chromium

Pixel = tuple[int, int, int]


def _colour(verdict: str) -> Pixel:
    """The background the shared style gives a matrix cell of ``verdict``."""
    found = re.search(rf"td\.{verdict} {{ background: #([0-9a-f]{{6}})", STYLE.read_text())
    assert found, f"no background colour for td.{verdict} in {STYLE.name}"
    value = int(found[1], 16)
    return (value >> 16, (value >> 8) & 0xFF, value & 0xFF)


def _paeth(left: int, up: int, corner: int) -> int:
    guess = left + up - corner
    near = min((abs(guess - left), 0), (abs(guess - up), 1), (abs(guess - corner), 2))[1]
    return (left, up, corner)[near]


def pixels(png: bytes) -> Counter[Pixel]:
    """How often each RGB colour occurs in an 8-bit, non-interlaced RGB or RGBA PNG."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, data, header = 8, b"", b""
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, body = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            data += body
        at += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8, f"bit depth {depth}: expected 8"
    assert colour in (2, 6), f"colour type {colour}: expected RGB (2) or RGBA (6)"
    assert interlace == 0, "an interlaced PNG: expected none"
    step = 3 if colour == 2 else 4
    stride = width * step
    raw = zlib.decompress(data)
    seen: Counter[Pixel] = Counter()
    previous = bytearray(stride)
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up = previous[i]
            corner = previous[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                line[i] = (line[i] + _paeth(left, up, corner)) & 0xFF
        seen.update(zip(line[0::step], line[1::step], line[2::step], strict=True))
        previous = line
    return seen


def screenshot(page: str, folder: Path) -> Counter[Pixel]:
    """The colours Chromium paints for ``page`` in a 1200 x 900 window."""
    shot = folder / "page.png"
    flags = ("--hide-scrollbars", "--window-size=1200,900", f"--screenshot={shot}")
    chromium(page, folder, *flags)
    assert shot.exists()
    return pixels(shot.read_bytes())


def _near(seen: Counter[Pixel], colour: Pixel) -> int:
    """Pixels within 2 of ``colour`` in every channel (colour management may shift one)."""
    return sum(
        count
        for pixel, count in seen.items()
        if all(abs(a - b) <= 2 for a, b in zip(pixel, colour, strict=True))
    )


WAIVER = "a sliding window keeps no content by design"


def _report(verdicts: list[Verdict]) -> Report:
    messages: list[JsonValue] = [
        {"role": "user", "content": "Goal: fix it"},
        {"role": "user", "content": "go"},
    ]
    example = Counterexample(
        round=1,
        because="the goal was dropped",
        witness=messages[:1],
        input={"messages": messages},
        output={"messages": messages[1:]},
        history_size=2,
    )
    results = [
        InvariantResult(
            invariant=f"law_{index}",
            statement="s",
            verdict=verdict,
            examples=10,
            exercised=10,
            counterexample=example if verdict == "violation" else None,
            level=2,
            waived=WAIVER if verdict == "waived" else None,
        )
        for index, verdict in enumerate(verdicts)
    ]
    target = TargetReport(target="window", view="messages", results=results)
    return Report(
        toolkit_version="0", seed=1, profile="ci", max_examples=10, rounds=1, complete=True,
        started_at="now", targets=[target],
    )  # fmt: skip


def test_the_decoder_reads_a_png_it_can_check() -> None:
    # A 2 x 1 RGB image, one red and one blue pixel, filter "sub" on its only row.
    row = b"\x01" + bytes([255, 0, 0, 1, 0, 255])
    ihdr = struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0)

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(row))
    assert pixels(png + chunk(b"IEND", b"")) == Counter({(255, 0, 0): 1, (0, 0, 255): 1})


def test_a_violation_and_a_waived_loss_are_painted_in_colours_of_their_own(
    tmp_path: Path,
) -> None:
    violation, waived = _colour("violation"), _colour("waived")
    assert violation != waived
    seen = screenshot(render_html(_report(["pass", "violation", "waived"])), tmp_path)
    # A matrix cell is some 200 x 30 pixels; a few hundred is one cell's worth at least.
    assert _near(seen, violation) > 300, "the violation cell is not painted in its colour"
    assert _near(seen, waived) > 300, "the waived cell is not painted in its colour"


def test_a_report_of_passes_shows_neither_colour(tmp_path: Path) -> None:
    # The control: the colours above come from the cells, not from the page around them.
    seen = screenshot(render_html(_report(["pass", "pass"])), tmp_path)
    assert _near(seen, _colour("violation")) == 0
    assert _near(seen, _colour("waived")) == 0
    assert _near(seen, _colour("pass")) > 300
