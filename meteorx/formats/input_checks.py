"""Checks the input readers share: JSON text (:func:`load_json`) and identifiers
(:func:`check_identifier`), each failure an :class:`~meteorx.errors.InputError`."""

from __future__ import annotations

import json
import re
from typing import Any

from meteorx.errors import InputError

__all__ = ["check_identifier", "load_json"]


def load_json(text: str, where: str) -> Any:
    """``json.loads`` with every failure an :class:`InputError` naming ``where``.

    Besides syntax errors, the decoder refuses nesting deeper than the interpreter's
    recursion limit (``RecursionError``) and integers of more than 4,300 digits
    (``ValueError``); both are bad input, not crashes.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{where}: invalid JSON ({error.msg})") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply") from None
    except ValueError as error:  # an integer beyond int_max_str_digits
        reason = str(error).split(":")[0]
        raise InputError(f"{where}: JSON value out of range ({reason})") from None
    if _SURROGATE_ESCAPE.search(text):
        _check_surrogates(value, where)
    return value


#: ``\uD800``-``\uDFFF`` escapes: JSON's only way to a lone surrogate (the text itself
#: was decoded as UTF-8, which has none), a string no UTF-8 output can hold.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_surrogates(value: Any, where: str) -> None:
    """Refuse a decoded JSON value holding a lone surrogate (a pair of escapes that
    forms one character is fine). Iterative: the value may nest deeply."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                raise InputError(
                    f"{where}: a JSON string holds an unpaired surrogate "
                    f"(\\u{ord(found.group()):04X}): it is not valid Unicode"
                )


#: Tabs, line breaks and other control characters: identifiers holding one would break
#: the line- and tab-separated outputs (text, TSV, statistics and .scr files).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def check_identifier(value: str, where: str) -> None:
    """Refuse an identifier (set, system, document, segment) with a control character."""
    found = _CONTROL.search(value)
    if found:
        raise InputError(
            f"{where}: the identifier {value[:40]!r} holds a control character "
            f"(U+{ord(found.group()):04X}: a tab or line break would break the outputs)"
        )
