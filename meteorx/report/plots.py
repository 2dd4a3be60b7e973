"""The report's SVG plots (:mod:`meteorx.report`): score histograms per system and a
segment-by-segment scatter of two systems; and the report's colours.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

#: Stage colours (colour-blind-safe Okabe–Ito palette), in stage order.
STAGE_COLORS = ["#0072B2", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442"]
#: System colours for plots.
SYSTEM_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]


def esc(text: object) -> str:
    """``text`` escaped for HTML (quotes too)."""
    return html.escape(str(text), quote=True)


def histogram_svg(names: Sequence[str], scores: Sequence[Sequence[float]], bins: int = 20) -> str:
    """Overlaid histograms of segment scores in [0, 1], one colour per system."""
    width, height = 640, 260
    left, right, top, bottom = 48, 16, 16, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    counts = []
    for values in scores:
        c = [0] * bins
        for v in values:
            c[min(bins - 1, max(0, int(v * bins)))] += 1
        counts.append(c)
    peak = max((max(c) for c in counts if c), default=1) or 1
    parts = [
        f'<svg class="histogram" role="img" aria-label="score distributions" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg">'
    ]
    # Axes and grid.
    for k in range(5):
        y = top + plot_h - plot_h * k / 4
        label = round(peak * k / 4)
        parts.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" class="gridline"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" class="tick" text-anchor="end">{label}</text>'
        )
    for k in range(11):
        x = left + plot_w * k / 10
        parts.append(
            f'<text x="{x:.1f}" y="{top + plot_h + 16}" class="tick" '
            f'text-anchor="middle">{k / 10:.1f}</text>'
        )
    parts.append(
        f'<text x="{left + plot_w / 2}" y="{height - 4}" class="axis-label" '
        f'text-anchor="middle">segment score</text>'
    )
    parts.append(
        f'<text x="12" y="{top + plot_h / 2}" class="axis-label" text-anchor="middle" '
        f'transform="rotate(-90 12 {top + plot_h / 2})">segments</text>'
    )
    bar_w = plot_w / bins
    for s, c in enumerate(counts):
        color = SYSTEM_COLORS[s % len(SYSTEM_COLORS)]
        d = [f"M{left:.1f},{top + plot_h:.1f}"]
        for b, n in enumerate(c):
            y = top + plot_h - plot_h * n / peak
            d.append(f"L{left + b * bar_w:.1f},{y:.1f}L{left + (b + 1) * bar_w:.1f},{y:.1f}")
        d.append(f"L{left + plot_w:.1f},{top + plot_h:.1f}Z")
        parts.append(
            f'<path class="hist-series" data-system="{esc(names[s])}" d="{"".join(d)}" '
            f'fill="{color}" fill-opacity="0.18" stroke="{color}" stroke-width="1.5"/>'
        )
    parts.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + plot_h}" class="axis"/>')
    parts.append(
        f'<line x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" '
        f'y2="{top + plot_h}" class="axis"/>'
    )
    parts.append("</svg>")
    return "".join(parts)


def scatter_svg(name_a: str, name_b: str, a: Sequence[float], b: Sequence[float]) -> str:
    """Segment scores of system B against system A; points above the diagonal favour B."""
    size, pad = 300, 40
    plot = size - 2 * pad
    parts = [
        f'<svg class="scatter" role="img" aria-label="segment scores, {esc(name_b)} against '
        f'{esc(name_a)}" viewBox="0 0 {size} {size}" width="{size}" height="{size}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        f'<rect x="{pad}" y="{pad}" width="{plot}" height="{plot}" class="frame"/>',
        f'<line x1="{pad}" y1="{pad + plot}" x2="{pad + plot}" y2="{pad}" class="diagonal"/>',
    ]
    for x, y in zip(a, b, strict=True):
        cls = "pt-b" if y > x else "pt-a" if x > y else "pt-tie"
        parts.append(
            f'<circle class="{cls}" cx="{pad + plot * x:.1f}" cy="{pad + plot * (1 - y):.1f}" '
            f'r="1.6"/>'
        )
    parts.append(
        f'<text x="{pad + plot / 2}" y="{size - 8}" class="axis-label" '
        f'text-anchor="middle">{esc(_short(name_a))}</text>'
    )
    parts.append(
        f'<text x="12" y="{pad + plot / 2}" class="axis-label" text-anchor="middle" '
        f'transform="rotate(-90 12 {pad + plot / 2})">{esc(_short(name_b))}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def _short(name: str, limit: int = 36) -> str:
    return name if len(name) <= limit else "…" + name[-(limit - 1) :]
