"""Cache files that hold data only and are checked on every load.

What plugins compile from a resource (WordNet's index, simplemma's tables, an OMW
index, a paraphrase table) is written once under the user cache folder and read back
by later runs. What that relies on, and what it checks:

* **Data only.** A cache file is named byte sections (arrays, UTF-8 text) and a JSON
  header; reading one never runs code (no pickle, no marshal).
* **Checked.** The file carries a digest of all its bytes, and its header names the
  cache kind (with its format version), the identity of the source it was compiled
  from and the byte order. A digest or header mismatch, a truncated file or any
  decoding error makes the caller rebuild it, with one warning per file and process:
  a cache never changes a score and never stops a run.
* **Private.** A cache folder must belong to the current user and be writable by no
  one else, and a parent folder everyone can write must have the sticky bit, as
  ``/tmp`` has (:func:`cache_dir`); a folder failing that is not used (one warning)
  and resources are compiled in memory instead. Files are created private (0600) and
  replaced atomically, never written or read through a symbolic link, and must belong
  to the current user.
* **Read, not mapped.** A file is read into memory whole and verified there, so
  nothing another process does to it afterwards (truncating it, rewriting it) can
  reach the run.

The package's modules, one concern each (their names are importable from here):

* :mod:`~meteorx.cache.layout`: the bytes of a cache file, its digest, writing
  (:class:`Writer`) and verifying (:func:`parse`);
* :mod:`~meteorx.cache.private_files`: reading a file only when it is the user's own
  regular file (:func:`read_private`), replacing one atomically (:func:`replacing`);
* :mod:`~meteorx.cache.folder`: the user cache folder and its safety checks
  (:func:`cache_dir`, :func:`cache_path`);
* :mod:`~meteorx.cache.store`: loading a resource from its verified cache file or
  rebuilding it (:func:`cached`, :func:`load`), one warning per unusable file;
* :mod:`~meteorx.cache.errors`: :class:`CacheError` and :class:`CacheWarning`.
"""

from __future__ import annotations

from meteorx.cache.errors import CacheError, CacheWarning
from meteorx.cache.folder import CACHE_ENV, cache_dir, cache_path
from meteorx.cache.layout import CacheFile, Record, Writer, parse
from meteorx.cache.private_files import MAX_FILE_BYTES, read_private, replacing
from meteorx.cache.store import cached, compiling, load, read, warn_once, write

__all__ = [
    "CACHE_ENV",
    "MAX_FILE_BYTES",
    "CacheError",
    "CacheFile",
    "CacheWarning",
    "Record",
    "Writer",
    "cache_dir",
    "cache_path",
    "cached",
    "compiling",
    "load",
    "parse",
    "read",
    "read_private",
    "replacing",
    "warn_once",
    "write",
]
