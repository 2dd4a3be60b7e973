"""A third-party plugin, as a file: a Korean matcher, made ``--lang ko``'s default.

Korean writes a particle onto the word it marks: 학교에 "to school", 학교는 "school
(topic)", 친구가 "friend (subject)". The ``ko-particles`` stage links two different words
whose stems agree once one trailing particle is taken off. The plugin registers the
matcher and, through ``meteorx_register_language_defaults``, makes Korean's default
configuration the ``meteorx`` preset with this stage added. Used by
``tests/test_defaults_table.py`` (``--plugin``, ``meteorx.register``) and shown in
``docs/plugins.md``.
"""

from __future__ import annotations

from collections.abc import Callable

from meteorx.hookspecs import LanguageDefault, hookimpl
from meteorx.matchers import KeyMatcher, Matcher

#: Particles, longest first (a two-syllable one is tried before its last syllable).
PARTICLES = (
    "에서", "에게", "으로", "까지", "부터", "처럼",
    "은", "는", "이", "가", "을", "를", "에", "의", "도", "로", "와", "과", "만",
)  # fmt: skip

#: Korean's default with this plugin: what ``--lang ko`` scores with.
KOREAN_DEFAULT = {
    "name": "meteorx-ko",
    "extends": "meteorx",
    "stages": [
        {"matcher": "exact"},
        {"matcher": "case", "weight": 0.6},
        {"matcher": "ko-particles", "weight": 0.6},
    ],
}


def stem(word: str) -> str:
    """``word`` without one trailing particle (a stem keeps at least one syllable)."""
    for particle in PARTICLES:
        if word.endswith(particle) and len(word) > len(particle):
            return word[: -len(particle)]
    return word


class ParticleMatcher(KeyMatcher):
    """Links different words with the same stem once a particle is taken off."""

    name = "ko-particles"
    version = "1"

    def keys(self, word: str) -> tuple[str]:
        return (stem(word),)


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(ParticleMatcher)


@hookimpl
def meteorx_register_language_defaults(register: Callable[[str, LanguageDefault], None]) -> None:
    register("ko", LanguageDefault(KOREAN_DEFAULT))
