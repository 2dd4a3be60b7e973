# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The scorer's per-segment hot path in C: candidate links of every key stage, and the
statistics of an alignment.

:class:`meteorx.matchers.KeyMatcher` defines a key stage in plain Python (words link
when their key sets intersect). The scorer interns every word once per run: a word is
an id, and each key stage has a :class:`KeyTable` ``id -> sorted key ids``. :func:`key_candidates` then finds the links of all stages of a
segment in one pass, in the order the Python definition yields them, so the two give
the same candidate list, element for element (tests compare them).
"""

from cpython.dict cimport PyDict_GetItem, PyDict_SetItem
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from cpython.bool cimport PyBool_Check
from cpython.long cimport PyLong_Check
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE, PyTuple_SET_ITEM
from libc.stdlib cimport free, malloc, qsort, realloc


cdef extern from "Python.h":
    object PyType_GenericAlloc(type tp, Py_ssize_t nitems)


cdef inline object _match(type match_type, object rs, object rl, object hs, object hl,
                          object stage):
    """A ``match_type`` (a 5-field tuple subclass, :class:`meteorx.types.Match`) without
    a Python-level ``__new__`` call."""
    cdef object m = PyType_GenericAlloc(match_type, 5)
    Py_INCREF(rs)
    PyTuple_SET_ITEM(m, 0, rs)
    Py_INCREF(rl)
    PyTuple_SET_ITEM(m, 1, rl)
    Py_INCREF(hs)
    PyTuple_SET_ITEM(m, 2, hs)
    Py_INCREF(hl)
    PyTuple_SET_ITEM(m, 3, hl)
    Py_INCREF(stage)
    PyTuple_SET_ITEM(m, 4, stage)
    return m


cdef int _cmp_int(const void* a, const void* b) noexcept nogil:
    cdef int x = (<const int*>a)[0]
    cdef int y = (<const int*>b)[0]
    return (x > y) - (x < y)


cdef void* _resized(void* block, size_t size) except NULL:
    """``realloc`` that raises MemoryError instead of returning NULL."""
    cdef void* grown = realloc(block, size)
    if grown == NULL:
        raise MemoryError()
    return grown


cdef class KeyTable:
    """The keys of every known word in one key stage: ``word id -> sorted key ids``.

    Words are added in id order (0, 1, 2…); their keys live in one growing pool.
    """

    cdef int* start   # start[w]: where word w's keys begin in pool; start[n] = used
    cdef int* pool
    cdef Py_ssize_t n, cap, pool_used, pool_cap
    # Scratch space of key_candidates, by key id: the hypothesis positions having key k
    # form a list head[k] -> ... -> tail[k], valid while stamp[k] == gen (one generation
    # per call, so nothing needs clearing).
    cdef int max_key
    cdef Py_ssize_t kcap
    cdef unsigned int gen
    cdef unsigned int* stamp
    cdef int* head
    cdef int* tail

    def __cinit__(self):
        self.n = 0
        self.cap = 1024
        self.pool_used = 0
        self.pool_cap = 4096
        self.start = <int*>malloc((self.cap + 1) * sizeof(int))
        self.pool = <int*>malloc(self.pool_cap * sizeof(int))
        if self.start == NULL or self.pool == NULL:
            raise MemoryError()
        self.start[0] = 0
        self.max_key = -1
        self.kcap = 0
        self.gen = 0
        self.stamp = NULL
        self.head = NULL
        self.tail = NULL

    def __dealloc__(self):
        free(self.start)
        free(self.pool)
        free(self.stamp)
        free(self.head)
        free(self.tail)

    cdef int _scratch(self) except -1:
        """Make room for every key id in the scratch arrays; start a new generation."""
        cdef Py_ssize_t need = self.max_key + 1
        cdef Py_ssize_t k
        if need > self.kcap:
            need = 2 * need + 1024
            self.stamp = <unsigned int*>_resized(self.stamp, need * sizeof(unsigned int))
            self.head = <int*>_resized(self.head, need * sizeof(int))
            self.tail = <int*>_resized(self.tail, need * sizeof(int))
            for k in range(self.kcap, need):
                self.stamp[k] = 0
            self.kcap = need
        self.gen += 1
        if self.gen == 0:  # wrapped around: old stamps could look current
            for k in range(self.kcap):
                self.stamp[k] = 0
            self.gen = 1
        return 0

    def __len__(self):
        return self.n

    def add(self, keys):
        """Append the next word's key ids (ascending, each in [0, 2**31))."""
        cdef Py_ssize_t m = len(keys)
        cdef Py_ssize_t k
        cdef int* buf = <int*>malloc((m + 1) * sizeof(int))
        if buf == NULL:
            raise MemoryError()
        try:
            for k in range(m):
                buf[k] = keys[k]
            self._append(buf, m)
        finally:
            free(buf)

    def add_keysets(self, list keysets, dict key_ids):
        """Append one word per element of ``keysets`` (each an iterable of hashable
        keys), its keys mapped to ids by ``key_ids``, where a new key gets the next id
        (``len(key_ids)``): what ``self.add(sorted({key_ids.setdefault(k,
        len(key_ids)) for k in keys}))`` does per word, in one call."""
        cdef Py_ssize_t m, k, q, cap = 64
        cdef int* buf = <int*>malloc(cap * sizeof(int))
        cdef int key, x
        cdef object value
        cdef PyObject* found
        if buf == NULL:
            raise MemoryError()
        try:
            for keys in keysets:
                m = 0
                for item in keys:
                    found = PyDict_GetItem(key_ids, item)
                    if found == NULL:
                        value = len(key_ids)
                        PyDict_SetItem(key_ids, item, value)
                    else:
                        value = <object>found
                    key = value
                    if m == cap:
                        buf = <int*>_resized(buf, 2 * cap * sizeof(int))
                        cap *= 2
                    buf[m] = key
                    m += 1
                # sort (insertion: a word has few keys) and drop repeats
                for k in range(1, m):
                    x = buf[k]
                    q = k
                    while q > 0 and buf[q - 1] > x:
                        buf[q] = buf[q - 1]
                        q -= 1
                    buf[q] = x
                q = 0
                for k in range(m):
                    if q == 0 or buf[k] != buf[q - 1]:
                        buf[q] = buf[k]
                        q += 1
                self._append(buf, q)
        finally:
            free(buf)

    cdef int _reserve(self, Py_ssize_t words, Py_ssize_t keys) except -1:
        """Room for ``words`` more words holding ``keys`` more key ids."""
        if self.n + words > self.cap:
            self.start = <int*>_resized(
                self.start, (2 * self.cap + words + 1) * sizeof(int))
            self.cap = 2 * self.cap + words
        if self.pool_used + keys > self.pool_cap:
            self.pool = <int*>_resized(self.pool, (2 * self.pool_cap + keys) * sizeof(int))
            self.pool_cap = 2 * self.pool_cap + keys
        return 0

    cdef inline int _put(self, int key) except -1:
        """Append one key id to the pool (room reserved) for the word being added."""
        if key < 0:
            raise ValueError(f"key ids are >= 0, not {key}")
        self.pool[self.pool_used] = key
        self.pool_used += 1
        if key > self.max_key:
            self.max_key = key
        return 0

    cdef int _append(self, const int* keys, Py_ssize_t m) except -1:
        """Append one word with the key ids ``keys[0:m]`` (ascending, >= 0)."""
        cdef Py_ssize_t k
        for k in range(m):  # all checked first: a rejected word leaves no key behind
            if keys[k] < 0:
                raise ValueError(f"key ids are >= 0, not {keys[k]}")
        self._reserve(1, m)
        for k in range(m):
            self._put(keys[k])
        self.n += 1
        self.start[self.n] = <int>self.pool_used
        return 0

    def add_single(self, list keys):
        """Append one word per key id in ``keys``, each with that single key."""
        cdef Py_ssize_t m = len(keys)
        cdef Py_ssize_t k
        self._reserve(m, m)
        for k in range(m):
            self._put(keys[k])
            self.n += 1
            self.start[self.n] = <int>self.pool_used

    def keys(self, Py_ssize_t word):
        """The key ids of one word (for tests and debugging)."""
        if word < 0 or word >= self.n:
            raise IndexError(word)
        return [self.pool[k] for k in range(self.start[word], self.start[word + 1])]


cdef int* _ids(list words, Py_ssize_t limit) except NULL:
    """The word ids as a C array (malloc'd), each checked against ``limit``."""
    cdef Py_ssize_t n = len(words)
    cdef int* out = <int*>malloc((n + 1) * sizeof(int))
    cdef Py_ssize_t k, w
    if out == NULL:
        raise MemoryError()
    for k in range(n):
        w = words[k]
        if w < 0 or w >= limit:
            free(out)
            raise IndexError(f"word id {w} is not in the key table")
        out[k] = <int>w
    return out


cdef int _key_stage(list out, type match_type, int stage, KeyTable table, bint link_identical,
                    int max_links, const int* hyp, Py_ssize_t H, const int* ref,
                    Py_ssize_t R) except -1:
    """Append the links of one key stage, as ``KeyMatcher.candidates`` yields them."""
    cdef const int* start = table.start
    cdef const int* pool = table.pool
    cdef Py_ssize_t nh = 0
    cdef Py_ssize_t i, j, k, p, q, cnt, lo, hi, t, half
    for i in range(H):
        nh += start[hyp[i] + 1] - start[hyp[i]]
    if nh == 0:
        return 0
    table._scratch()
    cdef unsigned int gen = table.gen
    cdef unsigned int* stamp = table.stamp
    cdef int* head = table.head
    cdef int* tail = table.tail
    # entry e: hypothesis position pos[e], next entry with the same key nxt[e] (or -1)
    cdef int* pos = <int*>malloc(nh * sizeof(int))
    cdef int* nxt = <int*>malloc(nh * sizeof(int))
    cdef int* found = <int*>malloc((nh + 1) * sizeof(int))
    if pos == NULL or nxt == NULL or found == NULL:
        free(pos)
        free(nxt)
        free(found)
        raise MemoryError()
    cdef int key, e
    cdef bint several
    try:
        p = 0
        for i in range(H):  # each key's positions, ascending (a word's keys are distinct)
            for k in range(start[hyp[i]], start[hyp[i] + 1]):
                key = pool[k]
                pos[p] = <int>i
                nxt[p] = -1
                if stamp[key] != gen:
                    stamp[key] = gen
                    head[key] = <int>p
                else:
                    nxt[tail[key]] = <int>p
                tail[key] = <int>p
                p += 1
        for j in range(R):
            cnt = 0
            several = start[ref[j] + 1] - start[ref[j]] > 1
            for k in range(start[ref[j]], start[ref[j] + 1]):
                key = pool[k]
                if stamp[key] != gen:
                    continue
                e = head[key]
                while e >= 0:
                    found[cnt] = pos[e]
                    cnt += 1
                    e = nxt[e]
            if cnt == 0:
                continue
            if several and cnt > 1:  # union of several keys' positions: sort, unique
                qsort(found, cnt, sizeof(int), _cmp_int)
                q = 1
                for p in range(1, cnt):
                    if found[p] != found[q - 1]:
                        found[q] = found[p]
                        q += 1
                cnt = q
            lo = 0
            hi = cnt
            if max_links > 0 and cnt > max_links:  # the max_links nearest to j
                t = 0
                while t < cnt and found[t] < j:
                    t += 1
                half = max_links // 2
                lo = t - half
                if lo > cnt - max_links:
                    lo = cnt - max_links
                if lo < 0:
                    lo = 0
                hi = lo + max_links
            for t in range(lo, hi):
                i = found[t]
                if not link_identical and hyp[i] == ref[j]:
                    continue
                out.append(_match(match_type, j, 1, i, 1, stage))
    finally:
        free(pos)
        free(nxt)
        free(found)
    return 0


class BadSpan(ValueError):
    """A stage's span failed the checks of :func:`_span_ok`; ``args`` are ``(stage,
    span)`` (the scorer turns it into a PluginError naming the plugin)."""


cdef inline object _as_tuple(object span):
    """A list span as a tuple; None for anything else (never a tuple: checked first)."""
    return tuple(<list>span) if isinstance(span, list) else None


cdef inline bint _span_ok(tuple t, Py_ssize_t H, Py_ssize_t R):
    """``meteorx.matchers.span_problem(t, H, R) is None``: four ints (not bools), each
    length at least 1, inside its sentence. Spans index C arrays: nothing unchecked
    gets past here."""
    cdef Py_ssize_t hs, hl, rs, rl, k
    if PyTuple_GET_SIZE(t) != 4:
        return False
    for k in range(4):
        v = <object>PyTuple_GET_ITEM(t, k)
        if not PyLong_Check(v) or PyBool_Check(v):
            return False
    try:
        hs = t[0]
        hl = t[1]
        rs = t[2]
        rl = t[3]
    except OverflowError:
        return False
    return 0 <= hs and 1 <= hl <= H - hs and 0 <= rs and 1 <= rl <= R - rs


def key_candidates(type match_type, list plans, list tables, list hyp_ids, list ref_ids,
                   list explicit, Py_ssize_t n_stages):
    """Candidate links ``match_type(ref_start, ref_len, hyp_start, hyp_len, stage)`` of a
    segment (``match_type`` is :class:`meteorx.types.Match`).

    For stage ``s`` below ``n_stages``: when ``plans[s]`` is ``(link_identical,
    max_links)``, its links come from ``tables[s]`` (a :class:`KeyTable`) and the word ids
    ``hyp_ids`` / ``ref_ids``; when ``plans[s]`` is None, ``explicit[s]`` holds the
    stage's spans ``(hyp_start, hyp_len, ref_start, ref_len)`` in order; a malformed
    one raises :class:`BadSpan`.
    """
    cdef list out = []
    cdef Py_ssize_t H = len(hyp_ids)
    cdef Py_ssize_t R = len(ref_ids)
    cdef tuple t
    cdef Py_ssize_t s
    cdef object plan
    cdef KeyTable table
    cdef Py_ssize_t known = -1
    cdef int* hyp = NULL
    cdef int* ref = NULL
    try:
        for s in range(n_stages):
            plan = plans[s]
            if plan is None:
                for span in explicit[s]:
                    # (a named tuple's own item access is slower than a tuple's)
                    t = <tuple>span if isinstance(span, tuple) else _as_tuple(span)
                    if t is None or not _span_ok(t, H, R):
                        raise BadSpan(s, span)
                    out.append(_match(match_type, t[2], t[3], t[0], t[1], s))
                continue
            if H == 0 or R == 0:
                continue
            table = tables[s]
            if hyp == NULL:
                known = table.n
                hyp = _ids(hyp_ids, known)
                ref = _ids(ref_ids, known)
            elif table.n != known:
                raise ValueError("the key tables do not hold the same words")
            _key_stage(out, match_type, <int>s, table, plan[0], plan[1], hyp, H, ref, R)
    finally:
        free(hyp)
        free(ref)
    return out


def count_stats(matches, Py_ssize_t n_stages, list hyp_ids, list ref_ids,
                bytearray function_word):
    """The per-stage match counts of an alignment (``meteorx.counts.segment_stats`` over word ids).

    ``function_word[w]`` is 1 when word ``w`` is a function word. Returns ``(hyp
    function words, ref function words, hyp content matches, ref content matches, hyp
    function matches, ref function matches, hyp matched words, ref matched words)``
    with per-stage tuples of floats.
    """
    cdef Py_ssize_t H = len(hyp_ids)
    cdef Py_ssize_t R = len(ref_ids)
    cdef Py_ssize_t known = len(function_word)
    cdef const char* fw = function_word
    cdef tuple t
    cdef double* counts = <double*>malloc((4 * n_stages + 1) * sizeof(double))
    cdef int* hyp = NULL
    cdef int* ref = NULL
    cdef Py_ssize_t k, stage, hs, hl, rs, rl, hyp_fw = 0, ref_fw = 0
    cdef Py_ssize_t hyp_words = 0, ref_words = 0
    if counts == NULL:
        raise MemoryError()
    try:
        hyp = _ids(hyp_ids, known)
        ref = _ids(ref_ids, known)
        for k in range(4 * n_stages):
            counts[k] = 0.0
        for k in range(H):
            hyp_fw += fw[hyp[k]]
        for k in range(R):
            ref_fw += fw[ref[k]]
        for m in matches:
            # Match is a tuple subclass: items are read as a tuple's (a subclass's item
            # access goes through a Python-level method lookup, 5x slower).
            t = <tuple>m if isinstance(m, tuple) else tuple(m)
            if len(t) != 5:
                raise ValueError(f"match {m!r} does not have 5 fields")
            rs = t[0]
            rl = t[1]
            hs = t[2]
            hl = t[3]
            stage = t[4]
            if (stage < 0 or stage >= n_stages or hs < 0 or hl < 0 or hs + hl > H
                    or rs < 0 or rl < 0 or rs + rl > R):
                raise ValueError(f"match {m!r} is out of range")
            for k in range(hs, hs + hl):
                counts[(2 if fw[hyp[k]] else 0) * n_stages + stage] += 1.0
            for k in range(rs, rs + rl):
                counts[(3 if fw[ref[k]] else 1) * n_stages + stage] += 1.0
            hyp_words += hl
            ref_words += rl
        return (
            hyp_fw,
            ref_fw,
            tuple([counts[k] for k in range(0, n_stages)]),
            tuple([counts[k] for k in range(n_stages, 2 * n_stages)]),
            tuple([counts[k] for k in range(2 * n_stages, 3 * n_stages)]),
            tuple([counts[k] for k in range(3 * n_stages, 4 * n_stages)]),
            hyp_words,
            ref_words,
        )
    finally:
        free(counts)
        free(hyp)
        free(ref)


cdef extern from "Python.h":
    int PyObject_GenericSetAttr(object o, object name, object value) except -1


cdef object _object_new = object.__new__

# Stats' field names, in the order alignment_stats builds their values (equal to
# meteorx.stats.STATS_FIELDS: a test checks).
_STATS_FIELDS = (
    "hyp_len", "ref_len", "hyp_function", "ref_function", "hyp_content_matches",
    "ref_content_matches", "hyp_function_matches", "ref_function_matches", "chunks",
    "hyp_matched_words", "ref_matched_words", "segments",
)


cdef object _make_record(type cls, tuple names, tuple values):
    """An instance of the (frozen) dataclass ``cls`` with ``names[i] = values[i]``.

    Does what the generated ``__init__`` does (``object.__setattr__`` per field, so the
    instance's layout is the usual one) without the Python-level call per field. Only
    for classes without ``__post_init__`` or defaults the caller leaves out.
    """
    cdef Py_ssize_t i
    obj = _object_new(cls)
    for i in range(len(names)):
        PyObject_GenericSetAttr(obj, names[i], values[i])
    return obj


def alignment_stats(matches, Py_ssize_t chunks, Py_ssize_t n_stages, list hyp_ids,
                    list ref_ids, bytearray function_word, bint perfect_match_rule,
                    type stats_type):
    """The ``Stats`` record of an alignment (``stats_type`` is
    :class:`meteorx.stats.Stats`): ``meteorx.counts.segment_stats`` over word ids, the same numbers
    (tests compare them). The formula is applied in Python (:mod:`meteorx.scoring`)."""
    hyp_fw, ref_fw, hc, rc, hf, rf, hyp_words, ref_words = count_stats(
        matches, n_stages, hyp_ids, ref_ids, function_word)
    cdef Py_ssize_t hyp_len = len(hyp_ids), ref_len = len(ref_ids)
    if (chunks == 1 and perfect_match_rule and hyp_words == hyp_len
            and ref_words == ref_len):
        chunks = 0  # a perfect segment adds no fragmentation (Meteor 1.5)
    return _make_record(stats_type, _STATS_FIELDS, (
        hyp_len, ref_len, hyp_fw, ref_fw, hc, rc, hf, rf, chunks, hyp_words, ref_words, 1))


def make_record(type cls, tuple names, tuple values):
    """``cls(*values)`` for a frozen dataclass without ``__post_init__``, the fields
    set as its generated ``__init__`` sets them (the twin of
    :func:`meteorx.types.make_record`, without a Python call per field)."""
    return _make_record(cls, names, values)
