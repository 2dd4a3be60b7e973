"""meteorx as a Hugging Face ``evaluate`` metric (loads offline, no hub needed).

    import evaluate
    meteor = evaluate.load("path/to/meteorx/metrics/meteorx")          # this folder
    meteor.compute(predictions=["a cat sat"], references=[["the cat sat", "a cat sits"]])
    {'meteor': ...}

Same ``compute(predictions=…, references=…)`` inputs and the same output key as
``evaluate.load("meteor")``, plus the choice of configuration. The scoring itself is
:func:`meteorx.api.compute`; see its docstring for the defaults.
"""

from __future__ import annotations

import inspect
from typing import Any

import datasets
import evaluate

import meteorx.api

_CITATION = """\
@inproceedings{banarjee2005,
  title     = {{METEOR}: An Automatic Metric for {MT} Evaluation with Improved Correlation
               with Human Judgments},
  author    = {Banerjee, Satanjeev and Lavie, Alon},
  booktitle = {Proceedings of the {ACL} Workshop on Intrinsic and Extrinsic Evaluation
               Measures for Machine Translation and/or Summarization},
  year      = {2005},
  pages     = {65--72},
}
@inproceedings{denkowski2014,
  title     = {Meteor Universal: Language Specific Translation Evaluation for Any Target Language},
  author    = {Denkowski, Michael and Lavie, Alon},
  booktitle = {Proceedings of the Ninth Workshop on Statistical Machine Translation},
  year      = {2014},
  pages     = {376--380},
}
"""

_DESCRIPTION = """\
METEOR (Banerjee & Lavie 2005; Meteor 1.5, Denkowski & Lavie 2014) computed by meteorx:
the reference implementation's numbers without Java, for any Snowball language, from
sufficient statistics summed over the corpus. Unlike evaluate's "meteor" (NLTK), the
default is Meteor 1.5's English configuration with its -norm normalisation, and the
score is the corpus score; `config="nltk"` gives NLTK-style numbers (their mean).
"""

_KWARGS_DESCRIPTION = """
Computes METEOR of predictions against one or more references each.
Args:
    predictions: list of predictions to score (strings).
    references: for each prediction, a reference string or a list of reference strings
        (the best-scoring reference counts).
    config: a meteorx preset name (`meteorx presets`: "meteor-1.5-en", "li",
        "meteor-1.5-pt", "meteor-2005", "nltk", ...), a YAML file or a dict. Default:
        the recommended configuration of `language` (English: "meteor-1.5-en" with
        normalize="meteor", the jar's `-l en -norm`). `preset` is an alias;
        `evaluate.load(path, config_name=NAME)` sets a default preset too.
    language: ISO 639-1 code (e.g. "de"): picks the language's recommended
        configuration, or sets the language of the one given (e.g. "li").
    normalize: "none", "lower", "meteor" or "meteor-nopunct".
    alpha, beta, gamma, delta: override the configuration's parameters.
    aggregate: "corpus" (the score of the summed statistics) or "mean" (the mean of
        segment scores, what evaluate's "meteor" reports); default: the configuration's
        own (corpus for every preset but "nltk").
    segment_scores: also return "scores", one per prediction.
    signature: also return "signature", naming every setting behind the numbers.
    Every argument but predictions and references may also be given once to
    `evaluate.load(path, config="nltk", language=..., ...)`, as the module's defaults;
    a value given to `compute` wins.
Returns:
    'meteor': the METEOR score (and 'scores', 'signature' when asked).
Examples:
    >>> meteor = evaluate.load("metrics/meteorx")
    >>> results = meteor.compute(predictions=["the cat sat on the mat"],
    ...                          references=[["the cat sat on the mat"]])
    >>> print(results["meteor"])
    1.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Meteorx(evaluate.Metric):  # type: ignore[misc]
    """METEOR by meteorx."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=[
                datasets.Features(
                    {
                        "predictions": datasets.Value("string", id="sequence"),
                        "references": datasets.Sequence(
                            datasets.Value("string", id="sequence"), id="references"
                        ),
                    }
                ),
                datasets.Features(
                    {
                        "predictions": datasets.Value("string", id="sequence"),
                        "references": datasets.Value("string", id="sequence"),
                    }
                ),
            ],
            codebase_urls=["https://pypi.org/project/meteorx/"],
            reference_urls=[
                "https://aclanthology.org/W05-0909/",
                "https://aclanthology.org/W14-3348/",
            ],
        )

    def __init__(self, **kwargs: Any) -> None:
        # ``evaluate.load(path, config="nltk", language="de")`` hands its extra keywords
        # here; evaluate's own constructor would swallow unknown ones silently.
        self._defaults = {k: kwargs.pop(k) for k in _SETTINGS if k in kwargs}
        unknown = sorted(set(kwargs) - _MODULE_ARGUMENTS)
        if unknown:
            raise TypeError(
                f"meteorx: unknown argument(s) {', '.join(map(repr, unknown))}; "
                f"settings: {', '.join(_SETTINGS)}"
            )
        super().__init__(**kwargs)

    def _compute(
        self,
        predictions: list[str],
        references: list[str] | list[list[str]],
        config: Any = None,
        preset: str | None = None,
        language: str | None = None,
        normalize: str | None = None,
        alpha: float | None = None,
        beta: float | None = None,
        gamma: float | None = None,
        delta: float | None = None,
        aggregate: str | None = None,
        segment_scores: bool | None = None,
        signature: bool | None = None,
    ) -> dict[str, Any]:
        given = {name: value for name, value in locals().items() if name in _SETTINGS}
        settings = dict(self._defaults)
        if config is not None or preset is not None:  # a configuration given here wins
            settings.pop("config", None)
            settings.pop("preset", None)
        settings.update({k: v for k, v in given.items() if v is not None})
        no_config = "config" not in settings and "preset" not in settings
        if no_config and self.config_name not in (None, "default"):
            settings["preset"] = self.config_name
        return meteorx.api.compute(predictions, references, **settings)


#: Settings accepted by ``evaluate.load(...)`` (defaults) and by ``compute(...)``: the
#: keywords of ``_compute`` after the predictions and references.
_SETTINGS = tuple(inspect.signature(Meteorx._compute).parameters)[3:]
#: What ``evaluate.EvaluationModule`` itself takes (cache_dir, process_id, ...).
_MODULE_ARGUMENTS = frozenset(
    name
    for name, p in inspect.signature(evaluate.EvaluationModule.__init__).parameters.items()
    if name != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD
)
