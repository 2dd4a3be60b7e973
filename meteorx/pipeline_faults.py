"""How a :class:`~meteorx.pipeline.Pipeline` names the plugin at fault.

When a matcher or an aligner misbehaves, the error names it, its plugin and the stage,
so that a user knows whom to ask. Kept apart from the per-segment path in
:mod:`meteorx.pipeline`: these run only on the way to an error, except
:meth:`PluginFaults._check_alignment`, which checks each result of an aligner that
meteorx does not ship.
"""

from __future__ import annotations

from typing import Any

from meteorx.align.checks import alignment_problem
from meteorx.config import MeteorConfig
from meteorx.error_text import describe_error, quote
from meteorx.errors import PluginError
from meteorx.matchers import Matcher, span_problem
from meteorx.registry import Registry


class PluginFaults:
    """The errors of :class:`~meteorx.pipeline.Pipeline` that blame a plugin (a base
    class: it reads the pipeline's configuration, registry and matchers)."""

    config: MeteorConfig
    registry: Registry
    matchers: list[Matcher]
    _aligner_owner: str

    def _plugin_error(self, stage: int, what: str, problem: str) -> PluginError:
        """A PluginError naming the matcher of ``stage``, its plugin and the stage."""
        config = self.config.stages[stage]
        owner = self.registry.owners.get(f"matcher:{config.matcher}", "?")
        return PluginError(
            f"matcher {config.matcher!r} (plugin {owner!r}, stage {stage + 1} "
            f"{config.stage_name!r}) {what}: {problem}"
        )

    def _check_alignment(self, alignment: Any, hyp_len: int, ref_len: int) -> None:
        """Raise PluginError unless ``alignment`` is an Alignment of one-to-one links
        inside the sentences, from known stages, with a count of chunks."""
        problem = alignment_problem(alignment, hyp_len, ref_len, len(self.matchers))
        if problem is not None:
            raise PluginError(
                f"aligner {self.config.aligner.name!r} (plugin {self._aligner_owner!r}) "
                f"returned {problem}"
            )

    def _bad_span(self, stage: int, span: Any, hyp_len: int, ref_len: int) -> PluginError:
        problem = span_problem(span, hyp_len, ref_len) or "is malformed"
        return self._plugin_error(stage, "candidates", f"the span {quote(span)} {problem}")

    def _prepare_error(self, tokens: tuple[str, ...], error: Exception) -> PluginError:
        """The PluginError for a failed ``prepare``: the first matcher that raises on
        ``tokens`` (the error itself if none does again)."""
        for stage, matcher in enumerate(self.matchers):
            try:
                matcher.prepare(tokens)
            except Exception as again:
                return self._plugin_error(stage, "prepare", describe_error(again))
        return PluginError(f"preparing a sentence for matching failed: {describe_error(error)}")
