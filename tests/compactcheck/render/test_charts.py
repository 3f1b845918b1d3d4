"""The fidelity charts: inline SVG from the report alone, stable, inert with hostile names."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from compactcheck.render.charts import survival_chart, tradeoff_chart
from compactcheck.report.io import load_report
from compactcheck.report.model import TargetReport

GOLDEN = Path(__file__).parent / "golden"
SVG = "{http://www.w3.org/2000/svg}"


def _targets(name: str) -> list[TargetReport]:
    return load_report(GOLDEN / f"{name}.json").targets


def _texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return ["".join(node.itertext()) for node in root.iter(f"{SVG}text")]


# What matplotlib draws with: shapes, text, styles and references to its own definitions.
DRAWING = {
    "svg", "defs", "style", "g", "path", "use", "text", "clipPath", "rect", "tspan", "circle",
}  # fmt: skip


def _inert(svg: str) -> None:
    """Only drawing elements, no event handler, every link to an id of the same picture."""
    root = ET.fromstring(svg)
    for node in root.iter():
        assert node.tag.removeprefix(SVG) in DRAWING, node.tag
        for attribute, value in node.attrib.items():
            assert not attribute.lower().startswith("on"), attribute
            if attribute.endswith("href"):
                assert value.startswith("#"), value


def test_a_target_without_fidelity_draws_nothing() -> None:
    target = _targets("report")[2]
    assert target.fidelity is None
    assert survival_chart(target) is None
    assert tradeoff_chart([target]) is None


def test_the_survival_chart_is_one_inert_svg_element_and_always_the_same() -> None:
    target = _targets("report")[1]
    svg = survival_chart(target)
    assert svg is not None
    assert svg.startswith("<svg ")
    assert svg.rstrip().endswith("</svg>")
    assert svg == survival_chart(target)
    _inert(svg)
    assert "metadata" not in svg
    texts = _texts(svg)
    # The legend names every kind measured and the reference it is drawn beside.
    for label in ("must-keep facts kept", "changed files kept", "reference-messages"):
        assert label in texts
    assert "compaction round" in texts


def test_hostile_names_stay_text_inside_the_chart() -> None:
    [target] = _targets("hostile")
    svg = survival_chart(target)
    assert svg is not None
    _inert(svg)
    # Parsed as XML, the name is one text node, dollar signs and all (no math mode).
    assert '<script>alert("xss")</script>$\\alpha$ & </svg>' in _texts(svg)
    tradeoff = tradeoff_chart([target, *_targets("report")])
    assert tradeoff is not None
    _inert(tradeoff)


def test_the_tradeoff_chart_numbers_each_target_by_its_place() -> None:
    targets = _targets("report")
    svg = tradeoff_chart(targets)
    assert svg is not None
    texts = _texts(svg)
    # The first two targets have figures; the third (no fidelity) has no point, no number.
    assert "1" in texts
    assert "2" in texts
    assert "3" not in texts
    assert "the reference on the same inputs" in texts
    assert "facts kept: mean of the four shares (%)" in texts


def test_without_matplotlib_the_html_report_says_where_a_chart_would_be(tmp_path: Path) -> None:
    """matplotlib is the optional charts extra: blocked, the page renders with a one-line note."""
    import subprocess
    import sys

    page = tmp_path / "report.html"
    # A None entry in sys.modules makes `import matplotlib` raise ImportError, as if absent.
    script = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from pathlib import Path\n"
        "from compactcheck.report.io import load_report\n"
        "from compactcheck.render.html import render_html\n"
        f"report = load_report(Path({str(GOLDEN / 'report.json')!r}))\n"
        f"Path({str(page)!r}).write_text(render_html(report))\n"
        "assert 'matplotlib' not in [m.split('.')[0] for m in sys.modules if sys.modules[m]]\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    html = page.read_text()
    assert "Chart not drawn: matplotlib is not installed" in html
    assert "compactcheck[charts]" in html
    assert '<svg role="img"' not in html
