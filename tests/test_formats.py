"""Input formats (text, TSV, JSONL, WMT SGML), outputs, statistics files and ``combine``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from meteorx.cli.main import main
from meteorx.errors import InputError
from meteorx.formats import read_sgml, read_stats, read_table, unescape_sgml
from meteorx.metric import Scorer
from meteorx.stats import sum_stats
from tests.conftest import XRAY, require_data

REPO = Path(__file__).resolve().parents[1]
HYP = REPO / "examples" / "hyp.txt"
REF = REPO / "examples" / "ref.txt"
LI = ["-p", "li", "-l", "en", "--norm", "lower"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- tables -------------------------------------------------------------------------


def test_tsv_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hyps = HYP.read_text().splitlines()
    refs = REF.read_text().splitlines()
    table = tmp_path / "t.tsv"
    rows = ["id\tdoc\tmt1\tmt2\tref1\tref2"] + [
        f"s{i}\td{i // 2}\t{h}\t{r}\t{r}\t{h}"
        for i, (h, r) in enumerate(zip(hyps, refs, strict=True))
    ]
    table.write_text("\n".join(rows) + "\n")
    data = read_table([str(table)], "tsv", ["mt1", "mt2"], ["ref1", "ref2"], (), "doc", "id")
    assert [name for name, _ in data.systems] == ["mt1", "mt2"]
    assert data.refs[0] == [refs[0], hyps[0]] and data.n_refs == 2
    assert data.docs == ["d0", "d0", "d1", "d1"] and data.seg_ids[0] == "s0"

    code, out, _ = run(
        capsys,
        "score",
        "-i",
        "tsv",
        "-H",
        str(table),
        "--hyp-column",
        "mt1",
        "--ref-column",
        "ref1",
        "--doc-column",
        "doc",
        *LI,
        "-f",
        "json",
    )
    assert code == 0
    got = json.loads(out)
    code, out, _ = run(capsys, "score", "-H", str(HYP), "-r", str(REF), *LI, "-f", "json")
    plain = json.loads(out)
    assert [s["score"] for s in got["segments"]] == [s["score"] for s in plain["segments"]]
    assert got["system"]["score"] == plain["system"]["score"]
    assert [d["document"] for d in got["documents"]] == ["d0", "d1"]
    assert got["segments"][2]["document"] == "d1"


def test_jsonl_with_reference_lists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hyps = HYP.read_text().splitlines()
    refs = REF.read_text().splitlines()
    path = tmp_path / "t.jsonl"
    path.write_text(
        "".join(
            json.dumps({"hyp": h, "refs": [r, h]}) + "\n" for h, r in zip(hyps, refs, strict=True)
        )
    )
    code, out, _ = run(
        capsys, "score", "-i", "jsonl", "-H", str(path), "--ref-column", "refs", *LI, "-f", "json"
    )
    assert code == 0
    data = json.loads(out)
    assert all(s["score"] > 0.99 and s["ref_index"] == 1 for s in data["segments"])
    assert "|refs:2|" in data["signature"]


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ("hyp\tref\na\tb\tc\n", [], "line 2: 3 fields but the header has 2"),
        (
            "hyp\tref\na\tb\n",
            ["--hyp-column", "mt"],
            "has no column 'mt'; its columns are: hyp, ref",
        ),
        ('{"hyp": "a", "ref": "b"}\n{"hyp": \n', ["-i", "jsonl"], "line 2: invalid JSON"),
        ('{"hyp": "a", "ref": 3}\n', ["-i", "jsonl"], "column 'ref' must be a string"),
    ],
)
def test_table_errors_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, args: list[str], message: str
) -> None:
    path = tmp_path / "t.data"
    path.write_text(content)
    fmt = [] if "-i" in args else ["-i", "tsv"]
    code, out, err = run(capsys, "score", *fmt, "-H", str(path), *args, *LI)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_text_input_needs_a_reference(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "score", "-H", str(HYP), *LI)
    assert code == 2 and "needs at least one --ref" in err


# -- SGML ---------------------------------------------------------------------------

TEST_SGM = """<tstset trglang="en" setid="demo" srclang="any">
<doc sysid="sysA" docid="doc2" genre="news">
<seg id="1"> the cat sat on the mat </seg>
<seg id="2">a dog &amp; a cat
 ran away</seg>
</doc>
<doc sysid="sysA" docid="doc1">
<p><seg id="1"> it is &quot;raining&quot; </seg></p>
</doc>
<doc sysid="sysB" docid="doc1">
<seg id="1"> it rains </seg>
</doc>
<doc sysid="sysB" docid="doc2">
<seg id="2"> the dog and the cat ran away </seg>
<seg id="1"> a cat sat on a mat </seg>
</doc>
</tstset>
"""
REF_SGM = """<refset trglang="en" setid="demo" srclang="any">
<doc sysid="ref" docid="doc1"><seg id="1"> it is "raining" </seg></doc>
<doc sysid="ref" docid="doc2">
<seg id="1"> the cat sat on the mat </seg>
<seg id="2"> the dog and the cat ran away </seg>
</doc>
<doc sysid="ref2" docid="doc1"><seg id="1"> it rains </seg></doc>
<doc sysid="ref2" docid="doc2">
<seg id="1"> a cat is sitting on the mat </seg>
<seg id="2"> a dog and a cat fled </seg>
</doc>
</refset>
"""


@pytest.fixture
def sgml(tmp_path: Path) -> tuple[Path, Path]:
    test, ref = tmp_path / "test.sgm", tmp_path / "ref.sgm"
    test.write_text(TEST_SGM)
    ref.write_text(REF_SGM)
    return test, ref


def test_sgml_reading(sgml: tuple[Path, Path]) -> None:
    data = read_sgml([str(sgml[0])], [str(sgml[1])])
    assert data.setid == "demo"
    assert [name for name, _ in data.systems] == ["sysA", "sysB"]
    # Reference order; segments matched by (document, id), not by position.
    assert data.docs == ["doc1", "doc2", "doc2"] and data.seg_ids == ["1", "1", "2"]
    assert data.systems[0][1] == [
        'it is "raining"',
        "the cat sat on the mat",
        "a dog & a cat ran away",
    ]
    assert data.systems[1][1][1] == "a cat sat on a mat"
    assert data.refs[0] == ['it is "raining"', "it rains"]  # two references (two sysids)
    assert unescape_sgml("&AMP;lt; &lt;") == "&lt; <"


def test_sgml_scores_and_scr_files(
    sgml: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prefix = tmp_path / "out"
    code, out, _ = run(
        capsys,
        "score",
        "-i",
        "sgml",
        "-H",
        str(sgml[0]),
        "-r",
        str(sgml[1]),
        *LI,
        "-f",
        "json",
        "--scr",
        str(prefix),
    )
    assert code == 0
    data = json.loads(out)
    a, b = data["systems"]
    assert [d["document"] for d in a["documents"]] == ["doc1", "doc2"]
    # A document's score is the score of its summed statistics.
    scorer = Scorer("li", language="en", normalize="lower")
    doc2 = scorer.rescore(
        sum_stats(
            Scorer("li", language="en", normalize="lower").segment(h, r).stats
            for h, r in [
                (
                    "the cat sat on the mat",
                    ["the cat sat on the mat", "a cat is sitting on the mat"],
                ),
                (
                    "a dog & a cat ran away",
                    ["the dog and the cat ran away", "a dog and a cat fled"],
                ),
            ]
        )
    )
    assert a["documents"][1]["score"] == pytest.approx(doc2.score)
    seg = (tmp_path / "out-seg.scr").read_text().splitlines()
    assert seg[0].split("\t")[:4] == ["demo", "sysA", "doc1", "1"]
    assert [line.split("\t")[2:4] for line in seg[:3]] == [
        ["doc1", "1"],
        ["doc2", "1"],
        ["doc2", "2"],
    ]
    assert float(seg[0].split("\t")[4]) == pytest.approx(a["segments"][0]["score"])
    doc = (tmp_path / "out-doc.scr").read_text().splitlines()
    assert len(doc) == 4 and doc[0].startswith("demo\tsysA\tdoc1\t")
    sys_lines = (tmp_path / "out-sys.scr").read_text().splitlines()
    assert sys_lines[1].split("\t")[:2] == ["demo", "sysB"]
    assert float(sys_lines[1].split("\t")[2]) == pytest.approx(b["system"]["score"])
    assert (tmp_path / "out-signature.txt").read_text().strip() == data["signature"]


def test_sgml_missing_segment(sgml: tuple[Path, Path], tmp_path: Path) -> None:
    broken = tmp_path / "broken.sgm"
    broken.write_text(TEST_SGM.replace('<seg id="2"> the dog and the cat ran away </seg>\n', ""))
    with pytest.raises(InputError, match="system 'sysB' has no reference segment"):
        read_sgml([str(broken)], [str(sgml[1])])
    with pytest.raises(InputError, match="not WMT SGML"):
        read_sgml([str(HYP)], [str(sgml[1])])


@pytest.mark.jar
@pytest.mark.data
@pytest.mark.slow
def test_sgml_parity_with_the_jar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.oracle import jar

    reason = jar.unavailable_reason()
    if reason:
        pytest.skip(reason)
    test, ref = XRAY / "test.sgm", XRAY / "ref.sgm"
    require_data("meteor15-examples", "test.sgm")
    expected = jar.run_jar(test, ref, ["-l", "en", "-lower", "-m", "exact stem", "-sgml"])
    config = tmp_path / "jar.yaml"
    config.write_text(
        "extends: meteor-1.5-en\nnormalize: lower\nfunction_words: meteor-1.5\n"
        "stages:\n- matcher: exact\n- matcher: stem\n  weight: 0.6\n"
    )
    prefix = tmp_path / "mx"
    code, _, _ = run(
        capsys,
        "score",
        "-i",
        "sgml",
        "-H",
        str(test),
        "-r",
        str(ref),
        "-c",
        str(config),
        "--scr",
        str(prefix),
        "--system-only",
        "-j",
        "2",
        "-q",
    )
    assert code == 0
    for kind in ("seg", "doc", "sys"):
        want = expected.files[f"meteor-{kind}.scr"].splitlines()
        got = (tmp_path / f"mx-{kind}.scr").read_text().splitlines()
        assert [w.rsplit("\t", 1)[0] for w in want] == [g.rsplit("\t", 1)[0] for g in got]
        close = sum(
            abs(float(w.rsplit("\t", 1)[1]) - float(g.rsplit("\t", 1)[1])) < 1e-6
            for w, g in zip(want, got, strict=True)
        )
        if kind == "seg":  # the jar's older English stemmer explains the rest
            assert close / len(want) >= 0.995
        elif kind == "doc":
            assert close / len(want) >= 0.95
        else:
            assert float(got[0].rsplit("\t", 1)[1]) == pytest.approx(
                float(want[0].rsplit("\t", 1)[1]), abs=1e-4
            )


# -- outputs ------------------------------------------------------------------------


def test_json_contract_and_nan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hyp = tmp_path / "h.txt"
    hyp.write_text("the cat\nzebra\n")
    ref = tmp_path / "r.txt"
    ref.write_text("the cat\nthe dog\n")
    code, out, _ = run(capsys, "score", "-H", str(hyp), "-r", str(ref), *LI, "-f", "json")
    assert code == 0
    data = json.loads(out)  # strict JSON: no NaN
    assert set(data) >= {"hyp", "system", "segments", "signature", "parameters"}
    assert data["segments"][1]["score"] == 0.0
    assert data["segments"][1]["fragmentation"] is None
    assert data["parameters"]["stages"] == ["exact", "stem"]


def test_tsv_has_document_and_confidence_columns(
    sgml: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys,
        "score",
        "-i",
        "sgml",
        "-H",
        str(sgml[0]),
        "-r",
        str(sgml[1]),
        *LI,
        "-f",
        "tsv",
        "--confidence",
        "--paired-bs",
        "--n-bootstrap",
        "50",
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("# meteorx|") and "|bs:50|seed:12345|" in lines[0]
    assert lines[1].split("\t") == [
        "system",
        "segment",
        "score",
        "precision",
        "recall",
        "fragmentation",
        "penalty",
        "document",
        "ci_lower",
        "ci_upper",
        "p_value",
    ]
    levels = [line.split("\t")[1] for line in lines[2:]]
    assert levels.count("document") == 4 and levels.count("system") == 2
    system_b = next(line for line in lines if line.split("\t")[:2] == ["sysB", "system"])
    assert system_b.split("\t")[-1] != ""


# -- statistics files and combine ---------------------------------------------------


def test_stats_round_trip_and_combine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stats = tmp_path / "s.tsv"
    code, out, _ = run(
        capsys,
        "score",
        "-H",
        str(HYP),
        "-H",
        str(REF),
        "-r",
        str(REF),
        *LI,
        "-f",
        "json",
        "--stats-out",
        str(stats),
    )
    assert code == 0
    scored = json.loads(out)
    data = read_stats(str(stats))
    assert [name for name, _ in data.systems] == [str(HYP), str(REF)]
    assert data.signature == scored["signature"]
    code, out, _ = run(capsys, "combine", str(stats), "-f", "json")
    combined = json.loads(out)
    for a, b in zip(combined["systems"], scored["systems"], strict=True):
        assert a["system"]["score"] == b["system"]["score"]
        assert [s["score"] for s in a["segments"]] == [s["score"] for s in b["segments"]]
    assert combined["signature"] == scored["signature"]
    # The JSON output is a statistics file too.
    json_out = tmp_path / "s.json"
    json_out.write_text(json.dumps(scored))
    code, out, _ = run(capsys, "combine", str(json_out), "--system-only")
    assert code == 0 and f"{scored['systems'][0]['system']['score']:.6f}" in out


def test_combine_reparameterises_like_a_fresh_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stats = tmp_path / "s.tsv"
    assert main(["score", "-H", str(HYP), "-r", str(REF), *LI, "--stats-out", str(stats)]) == 0
    capsys.readouterr()
    code, out, _ = run(
        capsys,
        "combine",
        str(stats),
        "--alpha",
        "0.5",
        "--gamma",
        "0.3",
        "--weights",
        "1,0.9",
        "-f",
        "json",
    )
    assert code == 0
    rescored = json.loads(out)
    config = tmp_path / "c.yaml"
    config.write_text(
        "extends: li\nlanguage: en\nnormalize: lower\nalpha: 0.5\ngamma: 0.3\n"
        "stages:\n- matcher: exact\n- matcher: stem\n  weight: 0.9\n"
    )
    code, out, _ = run(
        capsys, "score", "-H", str(HYP), "-r", str(REF), "-c", str(config), "-f", "json"
    )
    fresh = json.loads(out)
    assert rescored["system"]["score"] == pytest.approx(fresh["system"]["score"], abs=1e-12)
    assert "|a:0.5|" in rescored["signature"] and "|g:0.3|" in rescored["signature"]
    assert "stem=stem.v1(snowball-english):0.9" in rescored["signature"]


def test_combine_concatenates_shards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines_h = HYP.read_text().splitlines()
    lines_r = REF.read_text().splitlines()
    paths = []
    for k, part in enumerate([slice(0, 2), slice(2, 4)]):
        h, r, s = tmp_path / f"h{k}", tmp_path / f"r{k}", tmp_path / f"s{k}.tsv"
        h.write_text("\n".join(lines_h[part]) + "\n")
        r.write_text("\n".join(lines_r[part]) + "\n")
        assert main(["score", "-H", str(h), "-r", str(r), *LI, "--stats-out", str(s)]) == 0
        paths.append(s)
    capsys.readouterr()
    # Name the systems alike: shards of one system.
    for s in paths:
        text = s.read_text().splitlines()
        s.write_text(
            "\n".join(
                t
                if t.startswith("#") or t.startswith("system\t")
                else "sys\t" + t.split("\t", 1)[1]
                for t in text
            )
            + "\n"
        )
    code, out, _ = run(capsys, "combine", *map(str, paths), "-f", "json")
    whole = Scorer("li", language="en", normalize="lower").corpus(lines_h, lines_r)
    assert code == 0 and json.loads(out)["system"]["score"] == pytest.approx(whole.score)


def test_combine_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "combine", str(HYP))
    assert code == 2 and "not a meteorx statistics file" in err
    stats = tmp_path / "s.tsv"
    assert main(["score", "-H", str(HYP), "-r", str(REF), *LI, "--stats-out", str(stats)]) == 0
    capsys.readouterr()
    code, _, err = run(capsys, "combine", str(stats), "--weights", "1")
    assert code == 2 and "--weights needs 2 values" in err
    code, _, err = run(capsys, "combine", str(stats), "--alpha", "2")
    assert code == 2 and "out of range" in err
