"""Reading WMT SGML test and reference sets into a :class:`TestSet`
(:func:`read_sgml`; ``--input-format sgml``), as Meteor 1.5's ``-sgml`` reads them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from meteorx.errors import InputError
from meteorx.formats.input_checks import check_identifier
from meteorx.formats.model import TestSet
from meteorx.inputs import read_lines

__all__ = ["SgmlSet", "read_sgml", "read_sgml_file", "unescape_sgml"]

# SGML, as Meteor 1.5's SGMData reads it. One pass over the tags: no pattern spans a
# segment body, so an unclosed <seg> costs linear time (a lazy ``<seg.*?</seg>`` pattern
# rescans the rest of the file from every unclosed tag: quadratic).
_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z]+)([^<>]*)>")
_SEG_START = re.compile(r"<\s*seg\b", re.IGNORECASE)
_ATTR = re.compile(r"(?<!\w)(\w+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))")
_ENTITIES = [("&quot;", '"'), ("&apos;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")]


def _attrs(text: str, where: str) -> dict[str, str]:
    attrs = {
        m.group(1).lower(): next(g for g in m.groups()[1:] if g is not None)
        for m in _ATTR.finditer(text)
    }
    for name, value in attrs.items():
        check_identifier(value, f"{where}: attribute {name}")
    return attrs


def unescape_sgml(text: str) -> str:
    """Meteor 1.5's ``Normalizer.unescapeSGML`` (case-insensitive, ``&amp;`` last)."""
    for entity, char in _ENTITIES:
        text = re.sub(re.escape(entity), char, text, flags=re.IGNORECASE)
    return text


@dataclass
class SgmlSet:
    """One SGML file: ``system -> [(docid, segid, text)]`` in file order, and its setid."""

    setid: str | None
    systems: dict[str, list[tuple[str, str, str]]]


def read_sgml_file(path: str) -> SgmlSet:
    """Parse a WMT SGML file (test, reference or source set).

    Tags other than the set, ``doc`` and ``seg`` tags are ignored; inside a segment
    everything up to ``</seg>`` is its text. A ``<seg>`` left open is an error.
    """
    text = "\n".join(read_lines(path))
    setid: str | None = None
    system: str | None = None
    doc: str | None = None
    systems: dict[str, list[tuple[str, str, str]]] = {}
    found_set = False
    open_seg: tuple[int, int, dict[str, str]] | None = None  # (line, body start, attrs)
    seg_tags: set[int] = set()
    line, counted = 1, 0
    for match in _TAG.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        closing, name, rest = match.group(1), match.group(2).lower(), match.group(3)
        if open_seg is not None:
            if name != "seg":
                continue  # markup inside a segment is its text
            if not closing:
                raise InputError(
                    f"{path}, line {open_seg[0]}: <seg> not closed "
                    f"(a new <seg> starts on line {line} before </seg>)"
                )
            seg_line, body_start, attrs = open_seg
            open_seg = None
            if doc is None or system is None:
                raise InputError(f"{path}, line {seg_line}: <seg> outside a <doc>")
            if "id" not in attrs:
                raise InputError(f"{path}, line {seg_line}: <seg> needs an id attribute")
            body = unescape_sgml(" ".join(text[body_start : match.start()].split()))
            systems.setdefault(system, []).append((doc, attrs["id"], body))
        elif closing:
            if name == "seg":
                raise InputError(f"{path}, line {line}: </seg> without an opening <seg>")
        elif name in ("tstset", "refset", "srcset"):
            found_set = True
            attrs = _attrs(rest, f"{path}, line {line}")
            if "setid" not in attrs:
                raise InputError(f"{path}, line {line}: set header needs a setid attribute")
            setid = attrs["setid"]
            system = attrs.get("sysid", attrs.get("refid", system))
        elif name == "doc":
            attrs = _attrs(rest, f"{path}, line {line}")
            system = attrs.get("sysid", attrs.get("refid", system))
            if system is None:
                raise InputError(f"{path}, line {line}: no sysid in the document or set header")
            if "docid" not in attrs:
                raise InputError(f"{path}, line {line}: document header needs a docid attribute")
            doc = attrs["docid"]
        elif name == "seg":
            open_seg = (line, match.end(), _attrs(rest, f"{path}, line {line}"))
            seg_tags.add(match.start())
    if open_seg is not None:
        raise InputError(f"{path}, line {open_seg[0]}: <seg> not closed (no </seg> after it)")
    for start in (m.start() for m in _SEG_START.finditer(text)):
        if start not in seg_tags:  # '<seg' with no '>' before the next '<'
            line = text.count("\n", 0, start) + 1
            raise InputError(f"{path}, line {line}: '<seg' without the '>' that ends the tag")
    if not found_set:
        raise InputError(f"{path}: not WMT SGML (no <tstset>, <refset> or <srcset> header)")
    if not systems:
        raise InputError(f"{path}: no segments (<seg id=...>text</seg> inside a <doc>)")
    return SgmlSet(setid, systems)


def read_sgml(hyp_paths: Sequence[str], ref_paths: Sequence[str]) -> TestSet:
    """WMT SGML test and reference sets, matched by (document, segment id).

    Segments are in the order of the (first) reference set; every system must cover
    exactly those segments. Each reference system (``sysid``) is one reference.
    """
    ref_sets = [read_sgml_file(p) for p in ref_paths]
    order: list[tuple[str, str]] = []
    refs: dict[tuple[str, str], list[str]] = {}
    for ref_set in ref_sets:
        for entries in ref_set.systems.values():
            for doc, seg, body in entries:
                key = (doc, seg)
                if key not in refs:
                    refs[key] = []
                    order.append(key)
                refs[key].append(body)
    if not order:
        raise InputError(f"no reference segments in {', '.join(ref_paths)}")
    systems = []
    setid = ref_sets[0].setid
    for path in hyp_paths:
        test_set = read_sgml_file(path)
        setid = setid or test_set.setid
        for sysid, entries in test_set.systems.items():
            segs = {(doc, seg): body for doc, seg, body in entries}
            missing = [k for k in order if k not in segs]
            extra = [k for k in segs if k not in refs]
            if missing or extra:
                doc, seg = (missing or extra)[0]
                what = "has no" if missing else "has a segment without"
                raise InputError(
                    f"{path}: system {sysid!r} {what} reference segment "
                    f"(doc {doc!r}, seg {seg!r}); {len(missing)} missing, {len(extra)} extra"
                )
            systems.append((sysid, [segs[k] for k in order]))
    return TestSet(
        systems,
        [refs[k] for k in order],
        [seg for _, seg in order],
        [doc for doc, _ in order],
        setid,
    )
