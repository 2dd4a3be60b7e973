"""One exception hierarchy, so callers (and the CLI) can catch every expected failure at once.

Every error carries a message written for the person running the tool: what is wrong
and, where possible, what to do about it. The CLI prints ``str(error)`` on one line and
exits non-zero; it never shows a traceback for these.
"""

from __future__ import annotations

#: Quoted input is cut to this many characters in error messages.
QUOTE_LIMIT = 80


def cut(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` on one line (line breaks and other control characters escaped), cut to
    ``limit`` characters (an ellipsis marks the cut): no message grows with its input."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


class MeteorxError(Exception):
    """Base class of every error meteorx raises on purpose."""


class ConfigError(MeteorxError):
    """An invalid configuration: bad YAML, an unknown key, a value out of range."""


class InputError(MeteorxError):
    """Bad input text: mismatched line counts, invalid UTF-8, a missing file."""


class LanguageError(MeteorxError):
    """An unknown language, or one the requested stage cannot handle."""


class OutputError(MeteorxError):
    """An output file or standard output cannot be written."""


def output_error(path: object, error: OSError) -> OutputError:
    """The one-line error for a failed write to ``path``."""
    return OutputError(f"cannot write {path}: {error.strerror or error}")


class ResourceError(MeteorxError):
    """A resource (word list, synonym table, paraphrase table) is missing or corrupt."""


class PluginError(MeteorxError):
    """A plugin failed to import, raised in a hook, or registered a duplicate name."""


class JobsError(MeteorxError):
    """Too many processes asked for (``--jobs``), or the system cannot start them (out
    of open files or processes)."""


class WorkerDied(MeteorxError):
    """A worker process ended while it had work (killed, out of memory)."""


class MeteorxWarning(UserWarning):
    """Base class of meteorx's warnings; the command line prints them as one line,
    ``meteorx: warning: ...``."""
