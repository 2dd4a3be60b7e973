"""Coverage-guided fuzzing of configuration loading with atheris (libFuzzer).

    pip install atheris
    python fuzz/fuzz_config.py --engine compiled -dict=fuzz/config.dict -max_total_time=600 corpus
    python fuzz/fuzz_config.py --engine python -dict=fuzz/config.dict -max_total_time=600 corpus

Each input is the text of a YAML configuration (bytes decoded as UTF-8, bad bytes
replaced). It is written to a file in a scratch folder, beside a small ``base.yaml`` it
may extend, and loaded with :func:`meteorx.config.load_config`, the loader behind
``--config``. Checked: loading either succeeds or raises
:class:`~meteorx.errors.ConfigError` with a one-line message of bounded length; any
other exception, a hang past ``-timeout`` or a crash of the interpreter is a finding. A
configuration that loads and uses only the light stages (exact, stem; nothing to load
from disk) then scores one segment pair on the chosen engine (``compiled``: the C
extensions; ``python``: the pure-Python twins), where only a MeteorxError may be
raised and the score must be in [0, 1]. The seed inputs (:data:`SEEDS`) are written to
the corpus folder when it is empty. A crash is written to ``crash-<sha1>``; reproduce
with ``python fuzz/fuzz_config.py --engine ENGINE crash-<sha1>``.

Coverage guidance covers the Python code of meteorx, its plugins and PyYAML; the C
extensions run (on the compiled engine) but are not instrumented (that needs clang's
``-fsanitize=fuzzer-no-link``), so a crash in them is found, not steered towards.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

#: Seed configurations: every construct the loader handles, small and valid or nearly.
SEEDS = [
    "extends: li\nlanguage: en\n",
    "extends: li\nlanguage: pt\nalpha: 0.8\nbeta: 1.5\ngamma: 0.6\ndelta: 0.5\n",
    "extends: base.yaml\nnormalize: {tokenizer: meteor, lowercase: true, unicode: nfkc}\n",
    "extends: meteor-2005\nstages:\n- {matcher: exact, weight: 1.0}\n"
    "- {matcher: stem, weight: 0.5, algorithm: porter}\n",
    "extends: meteor-1.5-en\nnormalize: lower\naligner: {name: optimal, max_states: 50}\n",
    "language: en\nnormalize: none\nstages:\n- &e {matcher: exact, weight: 1.0}\n"
    "- {matcher: stem, name: s2}\naligner:\n  name: meteor-1.5\n  beam_size: 3\n"
    "perfect_match_rule: false\nfmean: nltk\nsystem_score: mean\n",
    "a: &a [1, 2]\nb: &b [*a, *a]\nextends: li\nlanguage: en\n",
    "extends: li\nlanguage: en\naligner:\n  <<: {name: optimal}\n  max_states: 7\n",
    "extends: li\nalpha: 0.5\nalpha: 0.6\n",
    "extends: li\nbeta: .inf\nfunction_words: builtin\n",
]
BASE = "extends: li\nlanguage: en\ngamma: 0.4\n"
#: Matchers that load nothing from disk: configurations using only these are scored.
LIGHT = frozenset({"exact", "stem"})
MAX_MESSAGE = 2000

_state: dict[str, Any] = {}


def _setup(engine: str) -> None:
    """Import meteorx (instrumented when called under atheris) with ``engine``'s modules."""
    from meteorx import engine as seam
    from meteorx.config import load_config
    from meteorx.errors import ConfigError, MeteorxError
    from meteorx.metric import Scorer
    from meteorx.registry import get_registry

    if engine == "python":  # fuzz/_engine.py set METEORX_ENGINE=python
        assert seam.active() == "python", "compiled path still in use"
    folder = Path(tempfile.mkdtemp(prefix="meteorx-fuzz-config-"))
    (folder / "base.yaml").write_text(BASE, encoding="utf-8")
    _state.update(
        engine=engine,
        folder=folder,
        load_config=load_config,
        Scorer=Scorer,
        ConfigError=ConfigError,
        MeteorxError=MeteorxError,
        registry=get_registry(),
    )


def check(data: bytes) -> None:
    """Load ``data`` as a configuration file and, if it loads, score one segment."""
    if not _state:
        _setup("compiled" if "--engine=python" not in sys.argv else "python")
    text = data.decode("utf-8", errors="replace")
    path = _state["folder"] / "fuzzed.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        config = _state["load_config"](str(path))
    except _state["ConfigError"] as error:
        message = str(error)
        assert "\n" not in message and len(message) <= MAX_MESSAGE, message[:300]
        return
    if not {stage.matcher for stage in config.stages} <= LIGHT:
        return
    try:
        scorer = _state["Scorer"](config, registry=_state["registry"])
        result = scorer.segment("the cats sat on the mat café", ["a cat sat on a mat cafe\u0301"])
    except _state["MeteorxError"]:
        return
    assert 0.0 <= result.score <= 1.0, result.score


def main() -> None:
    import atheris  # type: ignore[import-untyped]

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _engine import take_engine_option, use_engine

    argv = list(sys.argv)
    engine = take_engine_option(argv)
    use_engine(engine)
    with atheris.instrument_imports(include=["meteorx", "meteorx_plugins", "yaml"]):
        _setup(engine)
    corpus = [Path(a) for a in argv[1:] if not a.startswith("-")]
    for folder in corpus:
        if folder.is_dir() and not any(folder.iterdir()):
            for i, seed in enumerate(SEEDS):
                (folder / f"seed-{i}").write_text(seed, encoding="utf-8")
    atheris.Setup(argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
