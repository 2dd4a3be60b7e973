"""The report's HTML document (:mod:`meteorx.report`): the score table, the plots and
the segments, with inline CSS and the script that draws the alignment grids.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from meteorx import __version__
from meteorx.metric import SegmentResult
from meteorx.report.plots import STAGE_COLORS, SYSTEM_COLORS, esc, histogram_svg, scatter_svg
from meteorx.report.summary import SystemSummary, segments_data


def _fmt(x: float, digits: int = 4) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def json_for_script(data: Any) -> str:
    """JSON that a script element cannot end early (``</script>``, ``<!--``).

    ``<``, ``>`` and ``&`` only occur inside JSON strings, where their ``\\uXXXX``
    escapes are still valid JSON, so the page's ``JSON.parse`` reads the data unchanged.
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# -- the page -----------------------------------------------------------------------


def render_report(
    names: Sequence[str],
    results: Sequence[Sequence[SegmentResult]],
    summaries: Sequence[SystemSummary],
    stage_names: Sequence[str],
    signature: str,
    seg_ids: Sequence[str] | None = None,
    docs: Sequence[str] | None = None,
    title: str = "meteorx report",
    significance_note: str = "",
    expanded: int = 10,
) -> str:
    """The complete HTML document."""
    n = len(results[0]) if results else 0
    seg_ids = list(seg_ids) if seg_ids is not None else [str(i + 1) for i in range(n)]
    scores = [[r.score for r in system] for system in results]
    data = {
        "systems": list(names),
        "stages": list(stage_names),
        "colors": [STAGE_COLORS[i % len(STAGE_COLORS)] for i in range(len(stage_names))],
        "expanded": expanded,
        "segments": segments_data(results, seg_ids, docs),
    }
    rows = []
    for k, s in enumerate(summaries):
        color = SYSTEM_COLORS[k % len(SYSTEM_COLORS)]
        ci = f"{_fmt(s.ci[0])} – {_fmt(s.ci[1])}" if s.ci else "–"
        if k == 0:
            p_cell = "baseline" if len(summaries) > 1 else "–"
        elif s.p_value is None:
            p_cell = "–"
        else:
            star = " *" if s.p_value < 0.05 else ""
            p_cell = f"{s.p_value:.4f}{star}"
        rows.append(
            f'<tr class="system-row"><td><span class="swatch" style="background:{color}"></span>'
            f'{esc(s.name)}</td><td class="num score">{_fmt(s.score)}</td>'
            f'<td class="num">{ci}</td><td class="num">{_fmt(s.precision)}</td>'
            f'<td class="num">{_fmt(s.recall)}</td><td class="num">{_fmt(s.fragmentation)}</td>'
            f'<td class="num">{_fmt(s.penalty)}</td><td class="num">{p_cell}</td></tr>'
        )
    legend = "".join(
        f'<span class="legend-item"><span class="swatch" '
        f'style="background:{SYSTEM_COLORS[k % len(SYSTEM_COLORS)]}"></span>{esc(name)}</span>'
        for k, name in enumerate(names)
    )
    stage_legend = "".join(
        f'<span class="legend-item"><span class="cell-swatch s{i}"></span>{esc(name)}</span>'
        for i, name in enumerate(stage_names)
    )
    stage_css = "".join(
        f"table.grid td.s{i},.cell-swatch.s{i}{{background:{STAGE_COLORS[i % len(STAGE_COLORS)]}}}"
        for i in range(len(stage_names))
    )
    scatter = ""
    if len(names) >= 2:
        better_b = sum(1 for a, b in zip(scores[0], scores[1], strict=True) if b > a)
        better_a = sum(1 for a, b in zip(scores[0], scores[1], strict=True) if a > b)
        scatter = (
            '<figure class="plot scatter-figure">'
            + scatter_svg(names[0], names[1], scores[0], scores[1])
            + f"<figcaption>Segment scores: {esc(names[1])} (up) against {esc(names[0])} "
            f"(across). {better_b} segments favour {esc(names[1])}, {better_a} favour "
            f"{esc(names[0])}, {n - better_a - better_b} tie.</figcaption></figure>"
        )
    sort_options = (
        '<option value="diff">difference (2nd − 1st), largest first</option>'
        '<option value="-diff">difference (2nd − 1st), smallest first</option>'
        '<option value="absdiff">absolute difference</option>'
        if len(names) >= 2
        else ""
    ) + (
        '<option value="score0">score of the 1st system, lowest first</option>'
        '<option value="id">segment order</option>'
    )
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return _PAGE.format(
        title=esc(title),
        style=_STYLE + stage_css,
        generated=esc(generated),
        version=esc(__version__),
        signature=esc(signature),
        n_segments=n,
        n_systems=len(names),
        system_rows="".join(rows),
        significance_note=esc(significance_note),
        histogram=histogram_svg(names, scores),
        legend=legend,
        scatter=scatter,
        stage_legend=stage_legend,
        sort_options=sort_options,
        data=json_for_script(data),
        script=_SCRIPT,
    )


_STYLE = """
:root{--fg:#1d1d1f;--muted:#6e6e73;--line:#d2d2d7;--bg:#fff;--soft:#f5f5f7}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
background:var(--bg);margin:0 auto;max-width:1180px;padding:20px 28px 60px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 10px;border-bottom:1px solid
var(--line);padding-bottom:4px}
.meta{color:var(--muted);font-size:12px}code.signature{display:block;font-size:11px;
background:var(--soft);padding:6px 8px;border-radius:4px;word-break:break-all;margin-top:6px}
table{border-collapse:collapse}table.systems td,table.systems th{padding:4px 10px;
border-bottom:1px solid var(--line);text-align:left}td.num,th.num{text-align:right;
font-variant-numeric:tabular-nums}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}
.legend-item{margin-right:16px;white-space:nowrap}.plots{display:flex;gap:24px;
flex-wrap:wrap;align-items:flex-start}figure.plot{margin:0;flex:0 0 auto}
figcaption{font-size:12px;color:var(--muted);max-width:640px}
figure.scatter-figure figcaption{max-width:300px}
svg text.tick{font-size:10px;fill:var(--muted)}svg text.axis-label{font-size:11px;
fill:var(--fg)}svg .gridline{stroke:#eee}svg .axis{stroke:#999}
svg .frame{fill:none;stroke:#999}svg .diagonal{stroke:#bbb;stroke-dasharray:4 3}
svg .pt-a{fill:#1f77b4;fill-opacity:.55}svg .pt-b{fill:#d62728;fill-opacity:.55}
svg .pt-tie{fill:#999;fill-opacity:.4}
.controls{display:flex;gap:12px;align-items:center;margin:8px 0 12px;flex-wrap:wrap}
.controls select,.controls input{font:inherit;padding:3px 6px}
table.segments{width:100%}table.segments th{position:sticky;top:0;background:var(--bg);
text-align:left;border-bottom:2px solid var(--line);padding:4px 8px}
table.segments td{padding:3px 8px;border-bottom:1px solid #eee;vertical-align:top}
tr.seg-row{cursor:pointer}tr.seg-row:hover{background:var(--soft)}
tr.seg-row td.text{max-width:520px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;
color:var(--muted)}td.pos{color:#1a7f37}td.neg{color:#c62828}
tr.detail td{background:#fbfbfd;padding:10px 8px 16px}
.grids{display:flex;gap:28px;flex-wrap:wrap}.grid-box h4{margin:0 0 4px;font-size:13px}
.grid-box .numbers{font-size:12px;color:var(--muted);margin-top:4px}
table.grid{border-collapse:separate;border-spacing:1px;font-size:11px}
table.grid th{font-weight:normal;color:var(--fg);padding:0 2px}
table.grid th.rw{writing-mode:vertical-rl;transform:rotate(180deg);text-align:left;
height:auto;max-height:140px;white-space:nowrap;padding:2px 0}
table.grid th.hw{text-align:right;white-space:nowrap;padding-right:4px}
table.grid th.un,table.grid th.rw.un{color:#b0b0b0}
table.grid td{width:14px;height:14px;background:#f1f1f4;border-radius:2px;padding:0}
table.grid td.m{outline:1px solid rgba(0,0,0,.25)}
.cell-swatch{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;
vertical-align:-2px}
button.more{margin:10px 0;font:inherit;padding:4px 12px}
.note{font-size:12px;color:var(--muted)}
"""

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="meteorx {version}">
<title>{title}</title>
<style>{style}</style></head>
<body>
<header><h1>{title}</h1>
<div class="meta">{n_systems} system(s), {n_segments} segments · generated {generated} by
meteorx {version}</div>
<code class="signature" id="signature">{signature}</code></header>

<section id="systems"><h2>System scores</h2>
<table class="systems"><thead><tr><th>system</th><th class="num">METEOR</th>
<th class="num">95% CI</th><th class="num">P</th><th class="num">R</th><th class="num">frag</th>
<th class="num">penalty</th><th class="num">p vs baseline</th></tr></thead>
<tbody>{system_rows}</tbody></table>
<p class="note">{significance_note}</p></section>

<section id="distributions"><h2>Score distributions</h2>
<div class="legend">{legend}</div>
<div class="plots"><figure class="plot">{histogram}<figcaption>Segment scores per system
(20 bins over 0–1).</figcaption></figure>{scatter}</div></section>

<section id="segments"><h2>Segments</h2>
<div class="legend">Alignment grids: reference words across, hypothesis words down; a
coloured cell is a link, coloured by the stage that made it: {stage_legend}
<span class="legend-item">grey words are unmatched.</span></div>
<div class="controls"><label>sort by <select id="sort">{sort_options}</select></label>
<label>filter <input id="filter" type="search" placeholder="word or segment id"></label>
<span id="count" class="note"></span></div>
<table class="segments" id="segment-table"><thead id="segment-head"></thead>
<tbody id="segment-body"></tbody></table>
<button class="more" id="more" type="button">show more</button>
</section>
<script type="application/json" id="report-data">{data}</script>
<script>{script}</script>
</body></html>
"""

_SCRIPT = r"""
(function(){
"use strict";
var D=JSON.parse(document.getElementById("report-data").textContent);
var S=D.systems, segs=D.segments, two=S.length>=2;
var body=document.getElementById("segment-body"), head=document.getElementById("segment-head");
var sortSel=document.getElementById("sort"), filt=document.getElementById("filter");
var moreBtn=document.getElementById("more"), count=document.getElementById("count");
var shown=100, order=[];
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;
 if(text!==undefined&&text!==null)e.textContent=text;return e;}
function diff(i){return two?segs[i].sys[1].s-segs[i].sys[0].s:0;}
function fmt(x){return x===null||x===undefined?"–":x.toFixed(4);}
function grid(seg,k){
 var sy=seg.sys[k], ref=seg.refs[sy.r], hyp=sy.h, cell={}, hm={}, rm={};
 sy.l.forEach(function(m){for(var a=0;a<m[1];a++){hm[m[0]+a]=1;for(var b=0;b<m[3];b++){
  cell[(m[0]+a)+","+(m[2]+b)]=m[4];rm[m[2]+b]=1;}}});
 var box=el("div","grid-box");
 var note=seg.refs.length>1||sy.ri?" (reference "+(sy.ri+1)+")":"";
 var h=el("h4",null,S[k]+" — score "+fmt(sy.s)+note);
 box.appendChild(h);
 var t=el("table","grid"), tr=el("tr"); tr.appendChild(el("th"));
 ref.forEach(function(w,j){tr.appendChild(el("th","rw"+(rm[j]?"":" un"),w));});
 t.appendChild(tr);
 hyp.forEach(function(w,i){var r=el("tr");r.appendChild(el("th","hw"+(hm[i]?"":" un"),w));
  ref.forEach(function(_,j){var st=cell[i+","+j];var td=el("td",st===undefined?"":"m s"+st);
   if(st!==undefined)td.title=w+" — "+ref[j]+" ("+D.stages[st]+")";r.appendChild(td);});
  t.appendChild(r);});
 box.appendChild(t);
 box.appendChild(el("div","numbers","P "+fmt(sy.p)+" · R "+fmt(sy.rc)+" · chunks "+sy.c+
  " · frag "+fmt(sy.f)+" · penalty "+fmt(sy.pen)));
 return box;}
function detail(i){var tr=el("tr","detail"), td=el("td");td.colSpan=S.length+(two?4:3);
 var g=el("div","grids");segs[i].sys.forEach(function(_,k){g.appendChild(grid(segs[i],k));});
 td.appendChild(g);tr.appendChild(td);return tr;}
function toggle(row,i){var next=row.nextSibling;
 if(next&&next.className==="detail"){body.removeChild(next);}
 else{body.insertBefore(detail(i),next);}}
function header(){var tr=el("tr");tr.appendChild(el("th",null,"#"));
 tr.appendChild(el("th",null,"doc"));
 S.forEach(function(s){tr.appendChild(el("th","num",s.length>24?"…"+s.slice(-23):s));});
 if(two)tr.appendChild(el("th","num","Δ (2nd−1st)"));
 tr.appendChild(el("th",null,"hypothesis ("+(S[0].length>24?"…"+S[0].slice(-23):S[0])+")"));
 head.appendChild(tr);}
function compute(){var key=sortSel.value, q=filt.value.trim().toLowerCase();
 order=[];for(var i=0;i<segs.length;i++){
  if(q){var hit=segs[i].id.toLowerCase()===q||segs[i].sys.some(function(sy){
   return sy.h.join(" ").toLowerCase().indexOf(q)>=0;})||segs[i].refs.some(function(r){
   return r.join(" ").toLowerCase().indexOf(q)>=0;});if(!hit)continue;}
  order.push(i);}
 var f={diff:function(i){return -diff(i);},"-diff":function(i){return diff(i);},
  absdiff:function(i){return -Math.abs(diff(i));},score0:function(i){return segs[i].sys[0].s;},
  id:function(i){return i;}}[key];
 order.sort(function(a,b){return (f(a)-f(b))||(a-b);});}
function render(expand){body.textContent="";
 order.slice(0,shown).forEach(function(i,rank){var s=segs[i], tr=el("tr","seg-row");
  tr.dataset.segment=s.id;
  tr.appendChild(el("td",null,s.id));tr.appendChild(el("td",null,s.doc||""));
  s.sys.forEach(function(sy){tr.appendChild(el("td","num",fmt(sy.s)));});
  if(two){var d=diff(i);tr.appendChild(el("td","num "+(d>0?"pos":d<0?"neg":""),
   (d>0?"+":"")+d.toFixed(4)));}
  tr.appendChild(el("td","text",s.sys[0].h.join(" ")));
  tr.addEventListener("click",function(){toggle(tr,i);});
  body.appendChild(tr);
  if(expand&&rank<D.expanded){body.appendChild(detail(i));}});
 count.textContent="showing "+Math.min(shown,order.length)+" of "+order.length+" segments";
 moreBtn.style.display=order.length>shown?"":"none";}
header();compute();render(true);
sortSel.addEventListener("change",function(){compute();render(true);});
filt.addEventListener("input",function(){compute();render(false);});
moreBtn.addEventListener("click",function(){shown+=100;render(false);});
document.body.dataset.ready="1";
})();
"""
