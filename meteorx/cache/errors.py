"""The cache's two exceptions: a file that cannot be used, and the warning that says so."""

from __future__ import annotations

from meteorx.errors import MeteorxWarning

__all__ = ["CacheError", "CacheWarning"]


class CacheWarning(MeteorxWarning):
    """A cache file or folder that meteorx did not use (it rebuilds or compiles anew)."""


class CacheError(Exception):
    """A cache file that cannot be used; the caller rebuilds it. Never leaves meteorx."""
