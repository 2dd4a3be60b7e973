"""Reproducibility signatures, built from the validated configuration.

Short form: ``meteorx|preset:li|lang:pt|norm:lower|...|version:0.1.0``. Every field
comes from the config model or from a component's own ``describe()``; nothing is read
from object internals, so renaming code never silently changes a signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from meteorx import __version__
from meteorx.config_models import SOFT_CREDIT
from meteorx.normalize import tokenizer_description

if TYPE_CHECKING:
    from meteorx.align import Aligner
    from meteorx.config_models import MeteorConfig
    from meteorx.languages import Language
    from meteorx.matchers import Matcher
    from meteorx.registry import Registry


class Described(Protocol):
    """What a signature reads of a scorer (:class:`meteorx.metric.Scorer` has it all):
    the signature module needs no scorer, so the scorer can import it."""

    @property
    def config(self) -> MeteorConfig: ...
    @property
    def registry(self) -> Registry: ...
    @property
    def language(self) -> Language: ...
    @property
    def matchers(self) -> Sequence[Matcher]: ...
    @property
    def aligner(self) -> Aligner: ...
    @property
    def function_words_id(self) -> str: ...


#: The field naming ``system_score: mean`` (the default, ``statistics``, is not written).
_MEAN_RULE = "sys:mean"


def _num(x: float) -> str:
    return f"{x:g}"


def _tokenizer_field(scorer: Described) -> list[str]:
    """``tok:characters`` when the tokenizer split this language in a way its name does
    not say (text written without spaces split into characters); else nothing."""
    name = scorer.config.normalize.tokenizer
    description = tokenizer_description(scorer.registry, name, scorer.language)
    return [f"tok:{description}"] if description else []


def _plugins_field(scorer: Described) -> list[str]:
    """``plugins:NAME@sha256:1a2b3c4d,...``: the plugins given in this process (a file,
    ``meteorx.register``; not installed) that provide a stage, the aligner, the
    tokenizer or the function words, each with the start of its file's digest, so a
    score made with a local matcher names the code that made it. Nothing when every
    one is installed (their matchers' and aligners' versions say it already)."""
    named = {
        info.name: f"sha256:{info.digest[:8]}" if info.digest else "no-digest"
        for info in scorer.registry.local_plugins(scorer.config)
    }
    if not named:
        return []
    return ["plugins:" + ",".join(f"{name}@{digest}" for name, digest in named.items())]


def signature(scorer: Described, refs: int | None = None, resampling: Sequence[str] = ()) -> str:
    """The one-line signature naming every setting that affects the score; ``refs``
    adds ``refs:N`` and ``resampling`` the significance fields (``bs:N``, ``ar:N``,
    ``seed:S``, as sacreBLEU's), which make resampled numbers reproducible."""
    cfg = scorer.config
    stages = ",".join(
        f"{stage.stage_name}={m.describe()}:{_num(stage.weight)}"
        for stage, m in zip(cfg.stages, scorer.matchers, strict=True)
    )
    if cfg.soft_credit is not None:  # a weighted block like a stage's (see combine)
        soft = cfg.soft_credit
        stages += f",{SOFT_CREDIT}=indel({_num(soft.cutoff)}):{_num(soft.weight)}"
    fields = [
        "meteorx",
        f"preset:{cfg.name}",
        f"lang:{scorer.language.code}",
        f"norm:{cfg.normalize.shorthand}",
        *_tokenizer_field(scorer),
        f"unicode:{cfg.normalize.unicode}",
        f"stages:{stages}",
        f"a:{_num(cfg.alpha)}",
        f"b:{_num(cfg.beta)}",
        f"g:{_num(cfg.gamma)}",
        f"d:{_num(cfg.delta)}",
        f"fw:{scorer.function_words_id}",
        f"align:{scorer.aligner.describe()}",
        f"perfect:{'yes' if cfg.perfect_match_rule else 'no'}",
    ]
    if cfg.fmean != "harmonic":
        fields.append(f"fmean:{cfg.fmean}")
    if cfg.units != "words":
        fields.append("units:ch")
    if cfg.system_score == "mean":
        fields.append(_MEAN_RULE)
    fields.extend(_plugins_field(scorer))
    if refs is not None:
        fields.append(f"refs:{refs}")
    fields.extend(resampling)
    fields.append(f"version:{__version__}")
    return "|".join(fields)


def system_score_rule(signature_text: str) -> str:
    """The ``system_score`` rule a signature names (``sys:mean``, else ``statistics``):
    what statistics files, which keep only the signature, were scored under."""
    return "mean" if f"|{_MEAN_RULE}|" in signature_text else "statistics"


def with_resampling(signature_text: str, resampling: Sequence[str]) -> str:
    """A signature read from a statistics file (``meteorx combine``'s, which has no
    metric object to ask) with the significance fields inserted before ``version:``,
    where :func:`signature` puts them."""
    head, sep, version = signature_text.rpartition("|version:")
    if not sep:
        return "|".join([signature_text, *resampling])
    return "|".join([head, *resampling]) + sep + version
