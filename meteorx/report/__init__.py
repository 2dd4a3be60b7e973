"""A self-contained HTML report in the spirit of Meteor 1.5's X-Ray.

One file, no network fetches: inline CSS, inline SVG plots (score histograms per
system, and a segment-by-segment scatter of the first two systems) and a small inline
script that draws alignment grids from data embedded as JSON. Sections:

1. system scores with 95% bootstrap intervals and, for two or more systems, paired
   bootstrap p-values against the first (baseline);
2. score distributions;
3. segments sorted by the score difference between the first two systems (or by score
   for one system), each with its alignment grid per system: reference words across,
   hypothesis words down, a filled cell for every link, coloured by the stage that made
   it (exact, stem, synonym, paraphrase, …), as in X-Ray.

The parts: :mod:`~meteorx.report.summary` (what the page says: a system's line, each
segment's results as data for the script), :mod:`~meteorx.report.plots` (the SVG
plots and the colours) and :mod:`~meteorx.report.page` (the HTML document:
:func:`render_report`).
"""

from meteorx.report.page import render_report
from meteorx.report.plots import STAGE_COLORS, SYSTEM_COLORS, histogram_svg, scatter_svg
from meteorx.report.summary import SystemSummary

__all__ = [
    "STAGE_COLORS",
    "SYSTEM_COLORS",
    "SystemSummary",
    "histogram_svg",
    "render_report",
    "scatter_svg",
]
