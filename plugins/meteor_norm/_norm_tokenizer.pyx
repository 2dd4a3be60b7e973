# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Meteor 1.5's ``-norm`` tokeniser in C: the optional twin of the plain Python in
``meteorx_plugins.meteor_norm.tokenizer`` (``tokens``), which defines the results; tests
compare the two token lists line by line. The plugin gets this module only through
``meteorx.engine.compiled``; it imports nothing from meteorx.

The Python definition is a chain of regex passes over the line; each pass here is the
same pass written as a scan over an array of code points (``Py_UCS4``), so the results
agree by construction rather than by a cleverer algorithm:

* the first scan (splitting off "other" characters) also notes which characters the
  line holds, and the passes that could not change it are skipped (as the Python
  skips them with ``in`` tests);
* the jar's "X<c>Y -> X new Y" rules come in the same two forms (only looking around
  ``c``, or consuming X and Y so that adjacent matches block each other), chosen by
  the same "two ``c`` at most two characters apart" test;
* the ``DOTMULTI`` placeholders are written, stepped and restored literally (text
  that already holds ``DOTMULTI`` is therefore treated exactly as the Python does);
* tokens are then split and each one's final period handled with the caller's prefix
  table (a ``dict`` prefix -> kind). They go straight to the output unless the joined
  line needs more work (placeholders to restore, or the exact splitting of lines with
  unusual whitespace), which is then done on the joined line as in the Python;
* ASCII tokens are lower-cased here, others with ``str.lower`` (per token, which
  equals lowering the joined line: the only context-dependent mapping, final sigma,
  never looks across a space).

Every ``str`` is handled (any character); :func:`tokens` returns None only for
arguments of other types, and the caller then runs the Python definition.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.ref cimport Py_DECREF, Py_INCREF, PyObject
from libc.stdint cimport uint8_t, uint16_t, uint32_t
from libc.stddef cimport wchar_t
from libc.string cimport memcpy

ctypedef uint32_t cp    # a code point (Py_UCS4; plain integer arithmetic in Cython)


cdef extern from "Python.h":
    Py_ssize_t PyUnicode_GET_LENGTH(object u)
    int PyUnicode_KIND(object u)
    int PyUnicode_1BYTE_KIND
    int PyUnicode_2BYTE_KIND
    object PyUnicode_New(Py_ssize_t size, uint32_t maxchar)
    void* PyUnicode_DATA(object u)
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    PyObject* PyDict_GetItemWithError(object mapping, object key) except? NULL
    bint PyUnicode_CheckExact(object o)
    bint PyDict_CheckExact(object o)
    list PyList_New(Py_ssize_t size)
    void PyList_SET_ITEM(object list, Py_ssize_t i, PyObject* item)  # steals item
    int PyUnicode_4BYTE_KIND


# --- character classes (the jar's, as in tokenizer.py) ------------------------------

cdef inline bint _alpha(cp c) noexcept nogil:
    """A letter in the jar's sense (``_ALPHA``)."""
    if c < 0x80:
        return <cp>((c | 0x20) - 0x61) < 26
    if c < 0xC0:
        return False
    if c <= 0x17E:
        return c != 0xD7 and c != 0xF7
    if c < 0x400:
        return False
    if c <= 0x527:
        return True
    if c <= 0x1D7F:
        return c >= 0x1D00
    return (0xA640 <= c <= 0xA66E) or (0xA67E <= c <= 0xA697)


cdef inline bint _digit(cp c) noexcept nogil:
    return <cp>(c - 0x30) < 10


cdef inline bint _alnum(cp c) noexcept nogil:
    return _digit(c) or _alpha(c)


cdef inline bint _split_unsafe(cp c) noexcept nogil:
    """Where str.split()/strip() and the jar's StringTokenizer/trim() differ
    (``_SPLIT_UNSAFE``): such a line takes the exact splitting at the end."""
    if c < 0x20:
        return c <= 8 or c == 0x0B or c >= 0x0E
    if c < 0x85:
        return False
    return (c == 0x85 or c == 0xA0 or c == 0x1680 or 0x2000 <= c <= 0x200A
            or c == 0x2028 or c == 0x2029 or c == 0x202F or c == 0x205F or c == 0x3000)


cdef inline bint _java_white(cp c) noexcept nogil:
    """``_JAVA_WHITE``: what the jar collapses to a space at the end."""
    return (c == 0x20 or c == 0xA0 or 0x2000 <= c <= 0x200A or c == 0x202F
            or c == 0x205F or c == 0x3000)


# flags of the characters met (which passes can change the line)
cdef enum:
    F_DOT = 1
    F_COMMA = 2
    F_DASH = 4          # - or the en dash
    F_APOS = 8          # ' ` ‘ ’
    F_TRANSLATE = 16    # ` ‘ ’ –
    F_DOUBLE_QUOTE = 32 # “ ” or two apostrophes side by side ('' `` ’’ ...)
    F_EXACT = 64        # a _SPLIT_UNSAFE character
    F_D = 128           # an upper-case D (text may spell DOTMULTI)
    F_DOT_RUN = 256     # two periods side by side
    F_ALL = 511
    # more bits of _LATIN1 (not flags)
    T_KEEP = 1024       # _SEP_OTHER leaves it in place
    T_NEIGHBOUR = 2048  # . ' `: what precedes it matters (runs of dots, '')
    T_DELIM = 4096      # a StringTokenizer delimiter (_TOKEN_DELIMS)

# what each Latin-1 character is (T_ bits) and the flags it sets
cdef unsigned _LATIN1[256]
cdef int _i
for _i in range(256):
    _LATIN1[_i] = (
        (T_KEEP if _alnum(_i) or chr(_i) in " \t\n\x0b\x0c\r.'`,-" else 0)
        | (F_EXACT if _split_unsafe(_i) else 0)
        | (T_DELIM if chr(_i) in " \t\n\r\x0c" else 0)
    )
_LATIN1[ord(".")] |= F_DOT | T_NEIGHBOUR
_LATIN1[ord(",")] |= F_COMMA
_LATIN1[ord("-")] |= F_DASH
_LATIN1[ord("'")] |= F_APOS | T_NEIGHBOUR
_LATIN1[ord("`")] |= F_APOS | F_TRANSLATE | T_NEIGHBOUR
_LATIN1[ord("D")] |= F_D


cdef inline bint _delim(cp c) noexcept nogil:
    """``_TOKEN_DELIMS`` (StringTokenizer's default delimiters)."""
    return c <= 0x20 and (_LATIN1[c] & T_DELIM) != 0


cdef inline bint _apostrophe_like(cp c) noexcept nogil:
    return c == 0x27 or c == 0x60 or c == 0x2018 or c == 0x2019


cdef extern from "<wchar.h>":
    wchar_t* wmemchr(const wchar_t* s, wchar_t c, size_t n) nogil


cdef inline Py_ssize_t _next(const cp* s, Py_ssize_t i, Py_ssize_t n, cp c) noexcept nogil:
    """Where the first ``c`` of ``s[i:n]`` is, or ``n`` (glibc's vectorised wmemchr
    where wchar_t is 32 bits)."""
    cdef const wchar_t* found
    if sizeof(wchar_t) == sizeof(cp):
        if i >= n:
            return n
        found = wmemchr(<const wchar_t*>(s + i), <wchar_t>c, <size_t>(n - i))
        return n if found == NULL else <Py_ssize_t>(<const cp*>found - s)
    while i < n and s[i] != c:
        i += 1
    return i


# classes of the rules' [before] and [after] characters
cdef enum:
    C_DIGIT
    C_NOT_DIGIT
    C_ALPHA
    C_NOT_ALPHA
    C_NOT_ALPHA_DIGIT
    C_ALNUM_DOT
    C_ALNUM
    C_S


cdef inline bint _in(cp c, int cls) noexcept nogil:
    if cls == C_DIGIT:
        return _digit(c)
    if cls == C_NOT_DIGIT:
        return not _digit(c)
    if cls == C_ALPHA:
        return _alpha(c)
    if cls == C_NOT_ALPHA:
        return not _alpha(c)
    if cls == C_NOT_ALPHA_DIGIT:
        return not _alnum(c)
    if cls == C_ALNUM_DOT:
        return c == 0x2E or _alnum(c)
    if cls == C_ALNUM:
        return _alnum(c)
    return c == 0x73  # C_S


ctypedef struct Rule:
    int before
    int after
    cp rep[3]      # the replacement of the rule's character
    Py_ssize_t rep_len


cdef Rule _COMMA[3]
cdef Rule _DASH[1]
cdef Rule _APOS_EN[5]
cdef Rule _APOS_FR[4]


cdef void _set(Rule* r, int before, int after, str rep):
    r.before = before
    r.after = after
    r.rep_len = len(rep)
    cdef Py_ssize_t i
    for i in range(r.rep_len):
        r.rep[i] = ord(rep[i])


_set(&_COMMA[0], C_NOT_DIGIT, C_NOT_DIGIT, " , ")
_set(&_COMMA[1], C_DIGIT, C_NOT_DIGIT, " , ")
_set(&_COMMA[2], C_NOT_DIGIT, C_DIGIT, " , ")
_set(&_DASH[0], C_ALNUM_DOT, C_ALNUM, " ")
_set(&_APOS_EN[0], C_NOT_ALPHA, C_NOT_ALPHA, " ' ")
_set(&_APOS_EN[1], C_NOT_ALPHA_DIGIT, C_ALPHA, " ' ")
_set(&_APOS_EN[2], C_ALPHA, C_NOT_ALPHA, " ' ")
_set(&_APOS_EN[3], C_ALPHA, C_ALPHA, " '")
_set(&_APOS_EN[4], C_DIGIT, C_S, " '")
_set(&_APOS_FR[0], C_NOT_ALPHA, C_NOT_ALPHA, " ' ")
_set(&_APOS_FR[1], C_NOT_ALPHA, C_ALPHA, " ' ")
_set(&_APOS_FR[2], C_ALPHA, C_NOT_ALPHA, " ' ")
_set(&_APOS_FR[3], C_ALPHA, C_ALPHA, "' ")


# literal strings of the DOTMULTI passes
cdef cp _DOTMULTI[9]          # "DOTMULTI."
cdef cp _DOTDOTMULTI[11]      # "DOTDOTMULTI"
cdef cp _SP_DOTMULTI[9]       # " DOTMULTI"
for _i in range(9):
    _DOTMULTI[_i] = ord("DOTMULTI."[_i])
    _SP_DOTMULTI[_i] = ord(" DOTMULTI"[_i])
for _i in range(11):
    _DOTDOTMULTI[_i] = ord("DOTDOTMULTI"[_i])


# --- the working buffers ---------------------------------------------------------------

cdef enum:
    STACK = 1024    # code points per buffer on the C stack (longer lines use the heap)

ctypedef struct Work:
    cp* a               # the line as it stands
    cp* b               # the output of the running pass
    Py_ssize_t n        # length of a
    Py_ssize_t cap      # capacity of a and b
    bint heap           # a and b were allocated (else they are on the caller's stack)


cdef int _reserve(Work* w, Py_ssize_t need) except -1:
    """Make room for a pass writing up to ``need`` code points (keeping the line)."""
    if need <= w.cap:
        return 0
    need = need + need // 2
    cdef cp* a
    cdef cp* b
    if w.heap:
        a = <cp*>PyMem_Realloc(w.a, need * sizeof(cp))
        if a == NULL:
            raise MemoryError()
        w.a = a
        b = <cp*>PyMem_Realloc(w.b, need * sizeof(cp))
        if b == NULL:
            raise MemoryError()
        w.b = b
    else:
        a = <cp*>PyMem_Malloc(need * sizeof(cp))
        b = <cp*>PyMem_Malloc(need * sizeof(cp))
        if a == NULL or b == NULL:
            PyMem_Free(a)
            PyMem_Free(b)
            raise MemoryError()
        memcpy(a, w.a, w.n * sizeof(cp))
        w.a = a
        w.b = b
        w.heap = True
    w.cap = need
    return 0


cdef inline void _swap(Work* w, Py_ssize_t n) noexcept nogil:
    """The pass's output becomes the line."""
    cdef cp* t = w.a
    w.a = w.b
    w.b = t
    w.n = n


cdef inline bint _at(const cp* s, Py_ssize_t n, Py_ssize_t i,
                     const cp* p, Py_ssize_t m) noexcept nogil:
    """``s[i:i+m] == p``."""
    if i + m > n:
        return False
    cdef Py_ssize_t k
    for k in range(m):
        if s[i + k] != p[k]:
            return False
    return True


cdef Py_ssize_t _find(const cp* s, Py_ssize_t n, const cp* p,
                      Py_ssize_t m) noexcept nogil:
    """Where ``p[:m]`` first occurs in ``s[:n]``, or -1."""
    cdef Py_ssize_t i = _next(s, 0, n, p[0])
    while i < n:
        if _at(s, n, i, p, m):
            return i
        i = _next(s, i + 1, n, p[0])
    return -1


cdef Py_ssize_t _replace(const cp* s, Py_ssize_t n, cp* o, const cp* p,
                         Py_ssize_t m, const cp* r, Py_ssize_t rn) noexcept nogil:
    """``str.replace`` (leftmost, non-overlapping); returns the output length."""
    cdef Py_ssize_t i = 0, k = 0, j, start
    while i < n:
        start = i
        i = _next(s, i, n, p[0])
        memcpy(o + k, s + start, (i - start) * sizeof(cp))
        k += i - start
        if i == n:
            break
        if _at(s, n, i, p, m):
            for j in range(rn):
                o[k + j] = r[j]
            k += rn
            i += m
        else:
            o[k] = s[i]
            k += 1
            i += 1
    return k


# --- the passes (each: the Python's regex substitution as one scan) ---------------------

cdef Py_ssize_t _multi_dot(const cp* s, Py_ssize_t n, cp* o) noexcept nogil:
    """``\\.(\\.+)`` -> `` DOTMULTI\\1``."""
    cdef Py_ssize_t i = 0, k = 0, j, start
    while i < n:
        start = i
        i = _next(s, i, n, 0x2E)
        memcpy(o + k, s + start, (i - start) * sizeof(cp))
        k += i - start
        if i == n:
            break
        if i + 1 < n and s[i + 1] == 0x2E:
            for j in range(9):
                o[k + j] = _SP_DOTMULTI[j]
            k += 9
            i += 1
            while i < n and s[i] == 0x2E:
                o[k] = 0x2E
                k += 1
                i += 1
        else:
            o[k] = s[i]
            k += 1
            i += 1
    return k


cdef Py_ssize_t _multi_dot_step(const cp* s, Py_ssize_t n, cp* o) noexcept nogil:
    """``DOTMULTI\\.([^.])`` -> ``DOTDOTMULTI \\1``."""
    cdef Py_ssize_t i = 0, k = 0, j
    while i < n:
        if s[i] == 0x44 and i + 9 < n and s[i + 9] != 0x2E and _at(s, n, i, _DOTMULTI, 9):
            for j in range(11):
                o[k + j] = _DOTDOTMULTI[j]
            o[k + 11] = 0x20
            o[k + 12] = s[i + 9]
            k += 13
            i += 10
        else:
            o[k] = s[i]
            k += 1
            i += 1
    return k


cdef bint _close_pair(const cp* s, Py_ssize_t n, cp c) noexcept nogil:
    """Two ``c`` at most two characters apart (``_close_pair``)."""
    cdef Py_ssize_t i = _next(s, 0, n, c), j
    while i < n:
        j = _next(s, i + 1, n, c)
        if j - i <= 2 and j < n:
            return True
        i = j
    return False


cdef Py_ssize_t _rules_fast(const cp* s, Py_ssize_t n, cp* o, cp c, const Rule* rules,
                            int count) noexcept nogil:
    """The fast forms ``c(?<=[before]c)(?=[after]) -> new`` of a family, in one scan.

    Without two ``c`` at most two characters apart, a ``c``'s neighbours are never
    ``c`` and no replacement changes them; and no rule of these families matches a
    ``c`` inside a replacement of an earlier one. So each ``c`` becomes the
    replacement of the first rule its original neighbours match, as with one pass a
    rule."""
    cdef Py_ssize_t i = 0, k = 0, j, start
    cdef int r
    cdef const Rule* rule
    while i < n:
        start = i
        i = _next(s, i, n, c)
        memcpy(o + k, s + start, (i - start) * sizeof(cp))
        k += i - start
        if i == n:
            break
        if i > 0 and i + 1 < n:
            for r in range(count):
                rule = &rules[r]
                if _in(s[i - 1], rule.before) and _in(s[i + 1], rule.after):
                    for j in range(rule.rep_len):
                        o[k + j] = rule.rep[j]
                    k += rule.rep_len
                    break
            else:
                o[k] = c
                k += 1
        else:
            o[k] = c
            k += 1
        i += 1
    return k


cdef Py_ssize_t _rule_slow(const cp* s, Py_ssize_t n, cp* o, cp c,
                           const Rule* r) noexcept nogil:
    """``([before])c([after]) -> \\1 new \\2``: matches consume both neighbours."""
    cdef Py_ssize_t i = 0, k = 0, j
    while i < n:
        if (i + 2 < n and s[i + 1] == c and _in(s[i], r.before)
                and _in(s[i + 2], r.after)):
            o[k] = s[i]
            k += 1
            for j in range(r.rep_len):
                o[k + j] = r.rep[j]
            k += r.rep_len
            o[k] = s[i + 2]
            k += 1
            i += 3
        else:
            o[k] = s[i]
            k += 1
            i += 1
    return k


cdef int _apply(Work* w, cp c, const Rule* rules, int count) except -1:
    """One family of rules (``_apply``): the fast forms when no two ``c`` are close,
    else the consuming forms, one pass a rule."""
    cdef int r
    if not _close_pair(w.a, w.n, c):
        _reserve(w, 3 * w.n + 16)
        _swap(w, _rules_fast(w.a, w.n, w.b, c, rules, count))
        return 0
    for r in range(count):
        _reserve(w, 3 * w.n + 16)
        _swap(w, _rule_slow(w.a, w.n, w.b, c, &rules[r]))
    return 0


cdef Py_ssize_t _double_quotes(const cp* s, Py_ssize_t n, cp* o) noexcept nogil:
    """``[“”]|''`` -> `` " ``."""
    cdef Py_ssize_t i = 0, k = 0
    while i < n:
        if s[i] == 0x201C or s[i] == 0x201D:
            i += 1
        elif s[i] == 0x27 and i + 1 < n and s[i + 1] == 0x27:
            i += 2
        else:
            o[k] = s[i]
            k += 1
            i += 1
            continue
        o[k] = 0x20
        o[k + 1] = 0x22
        o[k + 2] = 0x20
        k += 3
    return k


cdef Py_ssize_t _other_apostrophes(const cp* s, Py_ssize_t n, cp* o) noexcept nogil:
    """``'`` -> `` ' `` (languages without apostrophe rules)."""
    cdef Py_ssize_t i = 0, k = 0, start
    while i < n:
        start = i
        i = _next(s, i, n, 0x27)
        memcpy(o + k, s + start, (i - start) * sizeof(cp))
        k += i - start
        if i == n:
            break
        o[k] = 0x20
        o[k + 1] = 0x27
        o[k + 2] = 0x20
        k += 3
        i += 1
    return k


cdef Py_ssize_t _single_dashes(const cp* s, Py_ssize_t n, cp* o) noexcept nogil:
    """``str.replace("--", "-")``."""
    cdef Py_ssize_t i = 0, k = 0, start
    while i < n:
        start = i
        i = _next(s, i, n, 0x2D)
        memcpy(o + k, s + start, (i - start) * sizeof(cp))
        k += i - start
        if i == n:
            break
        o[k] = 0x2D
        k += 1
        i += 2 if i + 1 < n and s[i + 1] == 0x2D else 1
    return k


# --- output ----------------------------------------------------------------------------

# the one-character Latin-1 tokens, lower-cased (punctuation tokens are frequent)
cdef list _ONE = [chr(_i).lower() for _i in range(256)]

cdef enum:
    STACK_TOKENS = 128  # tokens collected on the C stack (more go to the heap)

ctypedef struct Tokens:
    PyObject** items    # owned references
    Py_ssize_t n
    Py_ssize_t cap
    bint heap


cdef int _push(Tokens* t, object token) except -1:
    cdef PyObject** items
    if t.n == t.cap:
        items = <PyObject**>PyMem_Malloc(2 * t.cap * sizeof(PyObject*))
        if items == NULL:
            raise MemoryError()
        memcpy(items, t.items, t.n * sizeof(PyObject*))
        if t.heap:
            PyMem_Free(t.items)
        t.items = items
        t.cap *= 2
        t.heap = True
    Py_INCREF(token)
    t.items[t.n] = <PyObject*>token
    t.n += 1
    return 0


cdef list _as_list(Tokens* t):
    """The tokens as a list (which takes over their references)."""
    cdef list out = PyList_New(t.n)
    cdef Py_ssize_t i
    for i in range(t.n):
        PyList_SET_ITEM(out, i, t.items[i])
    t.n = 0
    return out


cdef void _release(Tokens* t) noexcept:
    cdef Py_ssize_t i
    for i in range(t.n):
        Py_DECREF(<object>t.items[i])
    t.n = 0
    if t.heap:
        PyMem_Free(t.items)


cdef inline object _lowered(const cp* p, Py_ssize_t m):
    """``str(p[:m]).lower()``, without ``str.lower`` for ASCII."""
    cdef Py_ssize_t i
    cdef cp c
    if m == 1 and p[0] < 0x100:
        return _ONE[p[0]]
    cdef object out = PyUnicode_New(m, 0x7F)
    cdef uint8_t* d = <uint8_t*>PyUnicode_DATA(out)
    for i in range(m):
        c = p[i]
        if c >= 0x80:
            return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, p, m).lower()
        d[i] = <uint8_t>(c + 0x20 if <cp>(c - 0x41) < 26 else c)
    return out


cdef inline int _emit(Tokens* out, const cp* p, Py_ssize_t m,
                      bint keep_punctuation) except -1:
    """Add a piece of the final line (no spaces in it) as ``-norm`` tokens: itself,
    lower-cased, or (``-noPunct``) its runs of letters/digits, lower-cased."""
    cdef Py_ssize_t i = 0, start
    if keep_punctuation:
        if m:
            _push(out, _lowered(p, m))
        return 0
    while i < m:
        while i < m and not _alnum(p[i]):
            i += 1
        start = i
        while i < m and _alnum(p[i]):
            i += 1
        if i > start:
            _push(out, _lowered(p + start, i - start))
    return 0


cdef int _words(Tokens* out, const cp* s, Py_ssize_t n, bint keep_punctuation) except -1:
    """The pieces of ``s.split(" ")`` through :func:`_emit`."""
    cdef Py_ssize_t i = 0, start
    while i < n:
        while i < n and s[i] == 0x20:
            i += 1
        start = i
        while i < n and s[i] != 0x20:
            i += 1
        if i > start:
            _emit(out, s + start, i - start, keep_punctuation)
    return 0


# --- the normaliser --------------------------------------------------------------------

cdef enum:
    APOS_OTHER
    APOS_EN
    APOS_FR


cdef int _apostrophe_mode(str apostrophes) except -1:
    if apostrophes == "en":
        return APOS_EN
    if apostrophes == "fr":
        return APOS_FR
    return APOS_OTHER


ctypedef fused unit:    # the code units of a str's data (its "kind")
    uint8_t
    uint16_t
    uint32_t


cdef Py_ssize_t _split_other(const unit* s, Py_ssize_t n, cp* o, int* flags_out) noexcept nogil:
    """`` line `` with every character that is not a letter/digit, Java whitespace or
    one of . ' ` , - ‘ ’ split off as `` c `` (``_SEP_OTHER``), read straight from the
    str's data; sets the flags of what the line holds. Returns the output length."""
    cdef Py_ssize_t i, k = 1
    cdef int flags = 0
    cdef unsigned t
    cdef cp c
    o[0] = 0x20
    for i in range(n):
        c = s[i]
        if unit is uint8_t or c < 0x100:
            t = _LATIN1[c]
            if t & T_KEEP:
                o[k] = c
                k += 1
                if t & (F_ALL | T_NEIGHBOUR):
                    flags |= t & F_ALL
                    # o[k - 2]: the character before (a space after a split one)
                    if t & T_NEIGHBOUR:
                        if c == 0x2E:
                            if o[k - 2] == 0x2E:
                                flags |= F_DOT_RUN
                        elif _apostrophe_like(o[k - 2]):
                            flags |= F_DOUBLE_QUOTE
                continue
            flags |= t & F_ALL
        elif c == 0x2018 or c == 0x2019:
            flags |= F_APOS | F_TRANSLATE
            if _apostrophe_like(o[k - 1]):
                flags |= F_DOUBLE_QUOTE
            o[k] = c
            k += 1
            continue
        elif _alpha(c):
            o[k] = c
            k += 1
            continue
        elif c == 0x2013:
            flags |= F_DASH | F_TRANSLATE
        elif c == 0x201C or c == 0x201D:
            flags |= F_DOUBLE_QUOTE
        elif _split_unsafe(c):
            flags |= F_EXACT
        o[k] = 0x20
        o[k + 1] = c
        o[k + 2] = 0x20
        k += 3
    o[k] = 0x20
    flags_out[0] = flags
    return k + 1


cdef int _prepare(Work* w, object line, int apos) except -1:
    """Every pass before the token split: ``w.a`` becomes the line as the Python has
    it there. Returns flags of what the line holds."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(line), i
    cdef int flags = 0, kind = PyUnicode_KIND(line)
    cdef cp c
    cdef const void* data = PyUnicode_DATA(line)
    _reserve(w, 3 * n + 16)
    if kind == PyUnicode_1BYTE_KIND:
        w.n = _split_other(<const uint8_t*>data, n, w.a, &flags)
    elif kind == PyUnicode_2BYTE_KIND:
        w.n = _split_other(<const uint16_t*>data, n, w.a, &flags)
    else:
        w.n = _split_other(<const uint32_t*>data, n, w.a, &flags)

    # Runs of dots become DOTMULTI placeholders (which text may also hold: "DOTMULTI."
    # needs a D and a period).
    if flags & F_DOT_RUN:
        _reserve(w, 5 * w.n + 16)
        _swap(w, _multi_dot(w.a, w.n, w.b))
    if flags & F_DOT_RUN or (flags & (F_D | F_DOT)) == F_D | F_DOT:
        while _find(w.a, w.n, _DOTMULTI, 9) >= 0:
            _reserve(w, 2 * w.n + 16)
            _swap(w, _multi_dot_step(w.a, w.n, w.b))
            _swap(w, _replace(w.a, w.n, w.b, _DOTMULTI, 9, _DOTDOTMULTI, 11))
    if flags & F_COMMA:
        _apply(w, 0x2C, _COMMA, 3)
    if flags & F_TRANSLATE:
        for i in range(w.n):
            c = w.a[i]
            if c == 0x60 or c == 0x2018 or c == 0x2019:
                w.a[i] = 0x27
            elif c == 0x2013:
                w.a[i] = 0x2D
    # "''" only where two apostrophes (of any kind) were next to each other in the line
    if flags & F_DOUBLE_QUOTE:
        _reserve(w, 3 * w.n + 16)
        _swap(w, _double_quotes(w.a, w.n, w.b))
    if flags & F_DASH:
        _swap(w, _single_dashes(w.a, w.n, w.b))
        _apply(w, 0x2D, _DASH, 1)
    if flags & F_APOS:
        if apos == APOS_EN:
            _apply(w, 0x27, _APOS_EN, 5)
        elif apos == APOS_FR:
            _apply(w, 0x27, _APOS_FR, 4)
        else:
            _reserve(w, 3 * w.n + 16)
            _swap(w, _other_apostrophes(w.a, w.n, w.b))
    return flags


cdef int _tokens(Work* w, dict prefixes, Tokens* out, bint keep_punctuation) except -1:
    """Split ``w.a`` into tokens and handle each one's final period as the jar does
    (kept, split off, or every period of the token dropped). With ``out`` NULL, join
    the results with single spaces into the line (``w.a``); else emit them into
    ``out`` (the line would need no further change)."""
    cdef const cp* s = w.a
    cdef Py_ssize_t n = w.n
    cdef cp* o = w.b
    cdef Py_ssize_t i, a = 0, e, na, k = 0, m
    cdef cp c, nxt
    cdef bint dots, letters, keep
    cdef int mode   # 0 as is, 1 drop its periods, 2 split the final period off
    cdef PyObject* kind
    cdef bint join = out == NULL
    while a < n and _delim(s[a]):
        a += 1
    e = a
    while e < n and not _delim(s[e]):
        e += 1
    while a < n:
        na = e
        while na < n and _delim(s[na]):
            na += 1
        mode = 0
        if e - a >= 2 and s[e - 1] == 0x2E:
            dots = False
            letters = False
            for i in range(a, e - 1):
                c = s[i]
                if c == 0x2E:
                    dots = True
                elif _alpha(c):
                    letters = True
            if dots and letters:
                mode = 1
            else:
                nxt = s[na] if na < n else 0
                keep = 0x61 <= nxt <= 0x7A
                if not keep:
                    kind = PyDict_GetItemWithError(
                        prefixes, PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, s + a,
                                                            e - 1 - a))
                    if kind != NULL:
                        keep = (<object>kind == 1
                                or (<object>kind == 2 and 0x30 <= nxt <= 0x39))
                if not keep:
                    mode = 2
        if join:
            if k:
                o[k] = 0x20
                k += 1
            if mode == 0:
                for i in range(a, e):
                    o[k] = s[i]
                    k += 1
            elif mode == 1:
                for i in range(a, e):
                    if s[i] != 0x2E:
                        o[k] = s[i]
                        k += 1
            else:
                for i in range(a, e - 1):
                    o[k] = s[i]
                    k += 1
                o[k] = 0x20
                o[k + 1] = 0x2E
                k += 2
        elif mode == 0:
            _emit(out, s + a, e - a, keep_punctuation)
        elif mode == 1:
            m = 0
            for i in range(a, e):
                if s[i] != 0x2E:
                    o[m] = s[i]
                    m += 1
            _emit(out, o, m, keep_punctuation)
        else:
            _emit(out, s + a, e - 1 - a, keep_punctuation)
            _emit(out, s + e - 1, 1, keep_punctuation)
        a = na
        e = a
        while e < n and not _delim(s[e]):
            e += 1
    if join:
        _swap(w, k)
    return 0


cdef cp _PERIOD[1]
_PERIOD[0] = 0x2E


cdef int _normalize(Work* w, Tokens* out, object line, int apos, dict prefixes,
                    bint keep_punctuation) except -1:
    cdef int flags = _prepare(w, line, apos)
    _reserve(w, 2 * w.n + 16)
    # Straight to the tokens unless the joined line needs more work: DOTMULTI
    # placeholders (from a run of dots, or text with a D) or the exact splitting.
    if not (flags & (F_DOT_RUN | F_D | F_EXACT)):
        _tokens(w, prefixes, out, keep_punctuation)
        return 0
    _tokens(w, prefixes, NULL, keep_punctuation)
    if _find(w.a, w.n, _DOTMULTI, 8) >= 0:
        while _find(w.a, w.n, _DOTDOTMULTI, 11) >= 0:
            _swap(w, _replace(w.a, w.n, w.b, _DOTDOTMULTI, 11, _DOTMULTI, 9))
        _swap(w, _replace(w.a, w.n, w.b, _DOTMULTI, 8, _PERIOD, 1))
    cdef Py_ssize_t n = w.n, start = 0, i
    cdef cp* t = w.a
    if keep_punctuation and flags & F_EXACT:
        # Java whitespace -> " ", then String.trim() of the whole line
        for i in range(n):
            if _java_white(t[i]):
                t[i] = 0x20
        while start < n and t[start] <= 0x20:
            start += 1
        while n > start and t[n - 1] <= 0x20:
            n -= 1
    _words(out, t + start, n - start, keep_punctuation)
    return 0


cdef list _run(object line, int apos, dict prefixes, bint keep_punctuation):
    """The token list of ``line`` (a str), on buffers of the C stack while they suffice."""
    cdef cp stack_a[STACK]
    cdef cp stack_b[STACK]
    cdef PyObject* stack_tokens[STACK_TOKENS]
    cdef Work w
    w.a = stack_a
    w.b = stack_b
    w.n = 0
    w.cap = STACK
    w.heap = False
    cdef Tokens out
    out.items = stack_tokens
    out.n = 0
    out.cap = STACK_TOKENS
    out.heap = False
    try:
        _normalize(&w, &out, line, apos, prefixes, keep_punctuation)
        return _as_list(&out)
    finally:
        _release(&out)
        if w.heap:
            PyMem_Free(w.a)
            PyMem_Free(w.b)


def tokens(object line, str apostrophes, object prefixes, bint keep_punctuation=True):
    """The tokens of the plain Python ``tokens(line, ...)`` for a language with these
    apostrophe rules ("en", "fr" or other) and non-breaking prefixes (a dict prefix ->
    kind), or None when ``line`` is not a ``str`` or ``prefixes`` not a ``dict``."""
    if not PyUnicode_CheckExact(line) or not PyDict_CheckExact(prefixes):
        return None
    return _run(line, _apostrophe_mode(apostrophes), <dict>prefixes, keep_punctuation)

