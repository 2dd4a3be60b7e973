"""Shared fixtures: where the evaluation data lives, and skip helpers for resources.

``pip install -e ".[test]"`` then ``python -m pytest`` passes on a fresh machine: tests
that need something pip does not install skip, saying what is missing and how to get it.

* evaluation data: read from ``$METEORX_DATA`` or ``../shared/data`` beside the
  checkout, never copied into the repository (:func:`require_data`);
* a WordNet 3.0 database (WordNet's morphology, as in ``meteor-2005``, and the NLTK
  mode): :func:`require_wordnet`, the ``wordnet`` mark; Meteor 1.5's English (WordNet,
  possibly the jar's own copy, and the paraphrase table): :func:`require_full_english`,
  the ``full_english`` mark;
* the Meteor 1.5 jar (``pip install pycocoevalcap``) and a Java runtime: the ``jar``
  mark; the English paraphrase table: :func:`require_paraphrase_en`, the
  ``paraphrase`` mark.

A test that meets a missing resource anyway (a :class:`~meteorx.errors.ResourceError`)
is reported as skipped with the error's message, when one of the resources above is
indeed missing here. Set ``METEORX_TEST_REQUIRE_RESOURCES=1`` (CI does, after
installing everything) to make each of these a failure instead: then nothing can skip
silently for want of WordNet, Java, the jar or the paraphrase table.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from functools import cache
from pathlib import Path

import pytest

from meteorx.errors import ResourceError

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
XRAY = DATA / "meteor15-examples"

#: When set, a missing WordNet, Java, jar or paraphrase table fails the tests needing it.
STRICT = os.environ.get("METEORX_TEST_REQUIRE_RESOURCES", "") not in ("", "0")


def unavailable(reason: str) -> None:
    if STRICT:
        pytest.fail(f"{reason} (METEORX_TEST_REQUIRE_RESOURCES is set)", pytrace=False)
    pytest.skip(reason)


def require_data(*parts: str) -> Path:
    """Path under the shared data folder, or skip the test saying what is missing."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"evaluation data not found: {path} (set METEORX_DATA to the shared data folder)"
        )
    return path


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


@cache
def wordnet_missing() -> str | None:
    """Why a full WordNet 3.0 database (NLTK's data or the system's; needed by WordNet's
    morphology, as in ``meteor-2005``, and by the NLTK mode) is not available, or None.

    The copy inside the Meteor 1.5 jar does not count: it serves only the jar's own
    synonym lookup (see :func:`full_english_missing`).
    """
    from meteorx_plugins.wordnet import find_wordnet

    try:
        find_wordnet(data=True)  # with the data files (NLTK's lemma names); never the jar's
    except ResourceError as error:
        return (
            "needs a WordNet 3.0 database (apt-get install wordnet-base, or python -m "
            "nltk.downloader wordnet; the copy in the Meteor 1.5 jar serves only its own "
            f"synonym lookup): {error}"
        )
    return None


@cache
def full_english_missing() -> str | None:
    """Why Meteor 1.5's English (``meteor-1.5-en``: WordNet, possibly the jar's copy, and
    the English paraphrase table) cannot run here, or None."""
    from meteorx_plugins.wordnet import find_wordnet

    try:
        find_wordnet()
    except ResourceError as error:
        return f"needs WordNet 3.0: {error}"
    return paraphrase_en_missing()


@cache
def jar_missing() -> str | None:
    """Why the Meteor 1.5 jar cannot run here (jar or Java missing), or None."""
    from tests.oracle import jar

    reason = jar.unavailable_reason()
    return None if reason is None else f"needs the Meteor 1.5 jar: {reason}"


@cache
def paraphrase_en_missing() -> str | None:
    """Why the English paraphrase table is not available here, or None."""
    from meteorx.languages import resolve_language
    from meteorx_plugins.paraphrase import find_paraphrase_table

    try:
        find_paraphrase_table(resolve_language("en"))
    except ResourceError as error:
        return f"needs the English paraphrase table: {error}"
    return None


def require_wordnet() -> None:
    """Skip (fail in strict mode) unless WordNet 3.0 is installed."""
    reason = wordnet_missing()
    if reason:
        unavailable(reason)


def require_jar() -> None:
    """Skip (fail in strict mode) unless the Meteor 1.5 jar and Java can run."""
    reason = jar_missing()
    if reason:
        unavailable(reason)


def require_paraphrase_en() -> None:
    """Skip (fail in strict mode) unless the English paraphrase table is installed."""
    reason = paraphrase_en_missing()
    if reason:
        unavailable(reason)


def require_full_english() -> None:
    """Skip (fail in strict mode) unless ``meteor-1.5-en``'s resources are installed."""
    reason = full_english_missing()
    if reason:
        unavailable(reason)


_MARKS = {
    "wordnet": (require_wordnet, "needs WordNet 3.0 (skips without it)"),
    "jar": (require_jar, "compares against the Meteor 1.5 jar (needs pycocoevalcap and Java)"),
    "paraphrase": (require_paraphrase_en, "needs the English paraphrase table"),
    "full_english": (require_full_english, "needs meteor-1.5-en's WordNet and paraphrase table"),
}


def pytest_configure(config: pytest.Config) -> None:
    for name, (_, text) in _MARKS.items():
        config.addinivalue_line("markers", f"{name}: {text}")


def pytest_runtest_setup(item: pytest.Item) -> None:
    for name, (require, _) in _MARKS.items():
        if item.get_closest_marker(name) is not None:
            require()


def missing_resources() -> list[str]:
    found = (wordnet_missing(), jar_missing(), full_english_missing())
    return [reason for reason in found if reason]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A :class:`ResourceError` on a machine lacking a resource is a skip, not a failure."""
    report = yield
    excinfo = call.excinfo
    if (
        report.failed
        and not STRICT
        and excinfo is not None
        and excinfo.errisinstance(ResourceError)
        and missing_resources()
    ):
        path, line, _ = item.reportinfo()
        report.outcome = "skipped"
        report.longrepr = (str(path), (line or 0) + 1, f"Skipped: {excinfo.value}")
    return report


@pytest.fixture(scope="session")
def xray() -> dict[str, list[str]]:
    """The Meteor 1.5 example data: reference and two systems, 2,489 lines each."""
    base = require_data("meteor15-examples")
    return {
        "ref": read_lines(base / "xray.reference"),
        "system1": read_lines(base / "xray.system1.hyp"),
        "system2": read_lines(base / "xray.system2.hyp"),
    }
