# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Segment results to bytes and back, for moving them between processes (``--jobs``).

:mod:`meteorx.transfer` is the definition, with the same functions taking the same
arguments (the engine picks one of the two modules once per worker pool): a result
as a flat tuple of its values (:func:`meteorx.transfer.pack`), sent by pickle.
Pickling those tuples, unpickling them and rebuilding the records cost the
collecting process about a third of its own scoring time when links and tokens
travel too; this module writes the same values into one byte string (a type tag and
the value's bytes each, floats bit for bit) and reads them back into the same
records, with no Python-level call per value. A reference's tokens shared by
consecutive results (results arrive grouped by reference) travel once.
:func:`encode` returns None for a result holding a value it does not know (then the
caller sends :mod:`meteorx.transfer`'s form); tests compare
``decode(encode(results))`` with ``results``, types included.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_FromDouble
from cpython.long cimport PyLong_FromLongLong
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE, PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport int64_t, uint32_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

cdef extern from "Python.h":
    object PyType_GenericAlloc(type tp, Py_ssize_t nitems)
    int PyObject_GenericSetAttr(object o, object name, object value) except -1
    const char* PyUnicode_AsUTF8AndSize(object s, Py_ssize_t* size) except NULL
    long long PyLong_AsLongLongAndOverflow(object v, int* overflow) except? -1
    bint PyLong_CheckExact(object o)
    bint PyFloat_CheckExact(object o)
    bint PyTuple_CheckExact(object o)
    bint PyUnicode_CheckExact(object o)


cdef enum:  # value tags
    T_NONE, T_FALSE, T_TRUE, T_BYTE, T_INT, T_FLOAT, T_TUPLE, T_STR

cdef uint32_t SAME_AS_BEFORE = 0xFFFFFFFF  # a token count: the previous result's ref tokens

cdef object _object_new = object.__new__


cdef object _make_record(type cls, tuple names, tuple values):
    """What the dataclass's generated ``__init__`` does (``object.__setattr__`` per field,
    so the record is laid out as the scorer's own), without a Python call per field."""
    cdef Py_ssize_t i
    obj = _object_new(cls)
    for i in range(len(names)):
        PyObject_GenericSetAttr(obj, names[i], values[i])
    return obj


class Unsupported(Exception):
    """A value :func:`encode` does not know (the caller falls back to pickle)."""


cdef struct Buffer:
    char* data
    Py_ssize_t size
    Py_ssize_t capacity


cdef int _grow(Buffer* buf, Py_ssize_t extra) except -1:
    cdef Py_ssize_t need = buf.size + extra
    cdef Py_ssize_t capacity = buf.capacity
    cdef char* data
    if need <= capacity:
        return 0
    while capacity < need:
        capacity = capacity * 2 if capacity else 4096
    data = <char*>realloc(buf.data, capacity)
    if data == NULL:
        raise MemoryError()
    buf.data = data
    buf.capacity = capacity
    return 0


cdef inline int _put(Buffer* buf, const void* src, Py_ssize_t n) except -1:
    if buf.size + n > buf.capacity:
        _grow(buf, n)
    memcpy(buf.data + buf.size, src, n)
    buf.size += n
    return 0


cdef inline int _put_tag(Buffer* buf, unsigned char tag) except -1:
    return _put(buf, &tag, 1)


cdef inline int _put_u32(Buffer* buf, uint32_t n) except -1:
    return _put(buf, &n, 4)


cdef inline int _put_count(Buffer* buf, Py_ssize_t n) except -1:
    """A length or count (below the SAME_AS_BEFORE marker)."""
    if n >= SAME_AS_BEFORE:
        raise Unsupported()
    return _put_u32(buf, <uint32_t>n)


cdef int _put_str(Buffer* buf, object s) except -1:
    cdef Py_ssize_t n
    cdef const char* utf8
    if not PyUnicode_CheckExact(s):
        raise Unsupported()
    utf8 = PyUnicode_AsUTF8AndSize(s, &n)
    _put_count(buf, n)
    return _put(buf, utf8, n)


cdef int _put_value(Buffer* buf, object v) except -1:
    cdef int overflow = 0
    cdef int64_t i
    cdef unsigned char small[2]
    cdef double d
    cdef Py_ssize_t k, n
    if v is None:
        return _put_tag(buf, T_NONE)
    if v is False:
        return _put_tag(buf, T_FALSE)
    if v is True:
        return _put_tag(buf, T_TRUE)
    if PyLong_CheckExact(v):
        i = PyLong_AsLongLongAndOverflow(v, &overflow)
        if overflow:
            raise Unsupported()
        if 0 <= i < 256:  # positions, lengths, stage numbers, counts
            small[0] = T_BYTE
            small[1] = <unsigned char>i
            return _put(buf, small, 2)
        _put_tag(buf, T_INT)
        return _put(buf, &i, 8)
    if PyFloat_CheckExact(v):
        d = PyFloat_AS_DOUBLE(v)
        _put_tag(buf, T_FLOAT)
        return _put(buf, &d, 8)
    if PyTuple_CheckExact(v):
        n = PyTuple_GET_SIZE(v)
        _put_tag(buf, T_TUPLE)
        _put_count(buf, n)
        for k in range(n):
            _put_value(buf, <object>PyTuple_GET_ITEM(v, k))
        return 0
    if PyUnicode_CheckExact(v):
        _put_tag(buf, T_STR)
        return _put_str(buf, v)
    raise Unsupported()


cdef int _put_fields(Buffer* buf, object record, tuple names) except -1:
    for name in names:
        _put_value(buf, getattr(record, name))
    return 0


cdef int _put_tokens(Buffer* buf, object tokens) except -1:
    cdef Py_ssize_t k, n
    if not PyTuple_CheckExact(tokens):
        raise Unsupported()
    n = PyTuple_GET_SIZE(tokens)
    _put_count(buf, n)
    for k in range(n):
        _put_str(buf, <object>PyTuple_GET_ITEM(tokens, k))
    return 0


def encode(list results, bint detail, type match_type, tuple stats_fields,
           tuple breakdown_fields):
    """``results`` (:class:`meteorx.metric.SegmentResult`) as bytes, or None if one
    holds a value this module does not write. Without ``detail`` the links and tokens
    are left out, as :func:`meteorx.transfer.pack` leaves them."""
    cdef Buffer buf
    cdef Py_ssize_t k, n, j
    cdef object previous_ref = None
    buf.data = NULL
    buf.size = 0
    buf.capacity = 0
    try:
        _put_count(&buf, len(results))
        for result in results:
            _put_value(&buf, result.score)
            _put_fields(&buf, result.breakdown, breakdown_fields)
            _put_fields(&buf, result.stats, stats_fields)
            alignment = result.alignment
            matches = alignment.matches if detail else ()
            if not PyTuple_CheckExact(matches):
                raise Unsupported()
            n = PyTuple_GET_SIZE(matches)
            _put_count(&buf, n)
            for k in range(n):
                match = <object>PyTuple_GET_ITEM(matches, k)
                if type(match) is not match_type:
                    raise Unsupported()
                for j in range(5):
                    _put_value(&buf, <object>PyTuple_GET_ITEM(match, j))
            _put_value(&buf, alignment.chunks)
            _put_value(&buf, alignment.optimal)
            if detail:
                _put_tokens(&buf, result.hyp_tokens)
                ref_tokens = result.ref_tokens
                if ref_tokens is previous_ref:
                    _put_u32(&buf, SAME_AS_BEFORE)
                else:
                    _put_tokens(&buf, ref_tokens)
                    previous_ref = ref_tokens
            else:
                _put_count(&buf, 0)
                _put_count(&buf, 0)
            _put_value(&buf, result.ref_index)
        return PyBytes_FromStringAndSize(buf.data, buf.size)
    except (Unsupported, UnicodeEncodeError):
        return None
    finally:
        free(buf.data)


cdef struct Reader:
    const char* data
    Py_ssize_t pos
    Py_ssize_t size


cdef inline const char* _take(Reader* r, Py_ssize_t n) except NULL:
    cdef const char* p
    if n < 0 or r.pos + n > r.size:
        raise ValueError("truncated or corrupt transfer data")
    p = r.data + r.pos
    r.pos += n
    return p


cdef inline uint32_t _count(Reader* r) except? 0xFFFFFFFE:
    cdef uint32_t n
    memcpy(&n, _take(r, 4), 4)
    return n


cdef object _str(Reader* r):
    cdef uint32_t n = _count(r)
    return PyUnicode_DecodeUTF8(_take(r, n), n, NULL)


cdef object _value(Reader* r):
    cdef unsigned char tag = <unsigned char>_take(r, 1)[0]
    cdef int64_t i
    cdef double d
    cdef uint32_t k, n
    cdef object t, item
    if tag == T_BYTE:
        return PyLong_FromLongLong(<unsigned char>_take(r, 1)[0])
    if tag == T_INT:
        memcpy(&i, _take(r, 8), 8)
        return PyLong_FromLongLong(i)
    if tag == T_FLOAT:
        memcpy(&d, _take(r, 8), 8)
        return PyFloat_FromDouble(d)
    if tag == T_TUPLE:
        n = _count(r)
        t = PyTuple_New(n)
        for k in range(n):
            item = _value(r)
            Py_INCREF(item)
            PyTuple_SET_ITEM(t, k, item)
        return t
    if tag == T_STR:
        return _str(r)
    if tag == T_NONE:
        return None
    if tag == T_FALSE:
        return False
    if tag == T_TRUE:
        return True
    raise ValueError(f"corrupt transfer data (tag {tag})")


cdef object _record(type cls, tuple names, Reader* r):
    """A ``cls`` record whose field values come next in ``r``, one per name."""
    cdef Py_ssize_t k, n = len(names)
    cdef tuple values = PyTuple_New(n)
    for k in range(n):
        item = _value(r)
        Py_INCREF(item)
        PyTuple_SET_ITEM(values, k, item)
    return _make_record(cls, names, values)


cdef tuple _tokens(Reader* r, uint32_t n):
    cdef uint32_t k
    cdef tuple t = PyTuple_New(n)
    for k in range(n):
        item = _str(r)
        Py_INCREF(item)
        PyTuple_SET_ITEM(t, k, item)
    return t


def decode(bytes data, type segment_type, type alignment_type, type stats_type,
           type breakdown_type, type match_type, tuple segment_fields,
           tuple alignment_fields, tuple stats_fields, tuple breakdown_fields):
    """The results :func:`encode` wrote, rebuilt as the same records (with
    the dataclasses' own field setting, as the scorer builds them)."""
    cdef Reader r
    cdef uint32_t n, k, n_matches, j, n_tokens
    cdef int field
    cdef object previous_ref = ()
    cdef list out = []
    r.data = PyBytes_AS_STRING(data)
    r.pos = 0
    r.size = PyBytes_GET_SIZE(data)
    n = _count(&r)
    for k in range(n):
        score = _value(&r)
        breakdown = _record(breakdown_type, breakdown_fields, &r)
        stats = _record(stats_type, stats_fields, &r)
        n_matches = _count(&r)
        matches = PyTuple_New(n_matches)
        for j in range(n_matches):
            match = PyType_GenericAlloc(match_type, 5)
            for field in range(5):
                item = _value(&r)
                Py_INCREF(item)
                PyTuple_SET_ITEM(match, field, item)
            Py_INCREF(match)
            PyTuple_SET_ITEM(matches, j, match)
        chunks = _value(&r)
        optimal = _value(&r)
        alignment = _make_record(alignment_type, alignment_fields, (matches, chunks, optimal))
        hyp_tokens = _tokens(&r, _count(&r))
        n_tokens = _count(&r)
        if n_tokens == SAME_AS_BEFORE:
            ref_tokens = previous_ref
        else:
            ref_tokens = previous_ref = _tokens(&r, n_tokens)
        ref_index = _value(&r)
        out.append(_make_record(segment_type, segment_fields, (
            score, breakdown, stats, alignment, hyp_tokens, ref_tokens, ref_index)))
    if r.pos != r.size:
        raise ValueError("corrupt transfer data (bytes left over)")
    return out
