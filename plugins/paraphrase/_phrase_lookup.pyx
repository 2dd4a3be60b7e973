# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The paraphrase matcher's per-segment work in C (optional twin of the plain Python
in ``meteorx_plugins.paraphrase.matcher``, which defines the results). The plugin gets
this module only through ``meteorx.engine.compiled``; it imports nothing from meteorx.

One :class:`NativeTable` per loaded :class:`~meteorx_plugins.paraphrase.table.ParaphraseTable`
(shared by every scorer of the process) reads the compiled table straight from its
buffer (the cache file's bytes), and touches as little of it, and of fresh memory, as it can
(a fresh process pays for every page and cache line it touches first):

* a sentence's tokens are kept as their UTF-8 bytes (held by the ``str`` objects),
  an FNV-1a hash of each, and a word id (words interned into an open-addressing hash
  over an arena; no Python objects per word);
* its table phrases are found by Meteor 1.5's trie walk: the value of a word's own
  key comes from the directory; the first time a word is met, where each key of its
  run (lines of the keys section, sorted) starts is noted, with the first 7 bytes
  after the word (``mx_prefix``); a longer key is then found by binary search over
  those (the full bytes only on a tie), and each step (key, next word id) -> longer
  key is remembered in a hash table (bounded);
* a phrase's paraphrase group is decoded once into a record of an arena: per
  paraphrase line, the hashes of its first two words and where its text is (the
  words are not interned); records are kept up to a bound;
* :meth:`NativeTable.candidates` looks each paraphrase line's first word up by hash
  in the other sentence (a small hash of its tokens, then the next position with the
  same hash), checks the second word's hash, then compares the line's bytes with the
  tokens' (so hash collisions cost time, never a wrong link), and emits the links in
  the order of the Python definition (tests compare the two lists, also with hashes
  cut to a few bits: :attr:`NativeTable.hash_bits`).

The interned words are forgotten (and prepared sentences re-prepared on their next
use) past :data:`MAX_WORDS` distinct words, decoded groups past :data:`MAX_GROUP_INTS`
ints, remembered trie steps past :data:`MAX_STEPS` (limits settable per table).
"""

from cpython.ref cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memchr, memcmp, memcpy, memset


cdef extern from "Python.h":
    const char* PyUnicode_AsUTF8AndSize(object text, Py_ssize_t* size)
    list PyList_New(Py_ssize_t size)
    void PyList_SET_ITEM(list items, Py_ssize_t at, PyObject* item)
    PyObject* PyDict_GetItemWithError(object mapping, object key) except? NULL
    void PyErr_Clear()


#: Distinct words interned before everything is forgotten (checked between sentences).
MAX_WORDS = 500_000
#: Ints of decoded paraphrase groups kept (about 4 bytes each) before they are dropped.
MAX_GROUP_INTS = 8_000_000

#: Trie steps (key, next word) -> longer key remembered before they are forgotten.
MAX_STEPS = 1_000_000
cdef Py_ssize_t _serial = 0  # numbers the tables (a sentence knows which prepared it)

# the stand-in for a token with a space, or an empty one (as in the Python definition)
cdef str _SAFE = "\x00"
# the ints of the links (mx_span)
cdef tuple _INTS = tuple(range(4096))


ctypedef struct Word:
    Py_ssize_t off      # in the arena
    int32_t length
    uint32_t hash
    int32_t known       # the directory was consulted for this word
    int32_t run_at      # its runs of keys: runs[run_at : run_at + run_count]
    int32_t run_count
    uint64_t own        # value of the word's one-word key (0: no phrase starts with it)


ctypedef struct Step:
    uint64_t key        # ~((key number << 32) | next word id); 0: a free slot
    int64_t child       # number of the longer key, or -1: there is none


ctypedef struct Run:
    Py_ssize_t first    # key number of the word's own key (the run's first) ...
    Py_ssize_t count    # ... keys in the run ...
    Py_ssize_t at       # ... and where their starts are in ``koff`` (count + 1 of them)


# The search for paraphrase lines in a sentence, in C (plain C keeps the loop's
# variables in registers): for each line of a group, the positions of its first word
# (by hash), the hash of its second word there, then its bytes.
cdef extern from *:
    """
    typedef struct {
        uint32_t hash;    /* of a token's bytes */
        int32_t first;    /* first position of a token with this hash; -1: a free slot */
    } mx_TokenSlot;

    typedef struct {
        uint32_t hash;    /* of the paraphrase's first word ... */
        uint32_t second;  /* ... and of its second (0 if it has one word) */
        uint32_t start;   /* its first word, from the group's text start, | MX_MORE if
                             it has more than one word */
        int32_t end;      /* the line end (exclusive; it may end in gap bytes) */
    } mx_Line;
    #define MX_MORE 0x80000000u

    static const unsigned char* mx_class;  /* byte classes (set by the module) */

    /* FNV-1a: a token's hash (mx_token) and a table word's (mx_hash_word) must agree. */
    #define MX_FNV_OFFSET 2166136261u
    #define MX_FNV_PRIME 16777619u

    /* The hash of the table word starting at p[*i] (up to a gap byte or e); *i is
       moved to where it ends. */
    static inline uint32_t mx_hash_word(const unsigned char* p, Py_ssize_t* i,
                                        Py_ssize_t e) {
        uint32_t h = MX_FNV_OFFSET;
        Py_ssize_t k = *i;
        while (k < e && !mx_class[p[k]]) {
            h = (h ^ p[k]) * MX_FNV_PRIME;
            k++;
        }
        *i = k;
        return h;
    }

    /* The tuple of 4 ints at v (ints below 4096 taken from ints, a tuple of them);
       NULL with an exception set if out of memory. */
    static PyObject* mx_span(PyObject* ints, const int32_t* v) {
        PyObject* span = PyTuple_New(4);
        int i;
        if (span == NULL)
            return NULL;
        for (i = 0; i < 4; i++) {
            PyObject* item;
            if (v[i] >= 0 && v[i] < 4096) {
                item = PyTuple_GET_ITEM(ints, v[i]);
                Py_INCREF(item);
            } else {
                item = PyLong_FromLong(v[i]);
                if (item == NULL) {
                    Py_DECREF(span);
                    return NULL;
                }
            }
            PyTuple_SET_ITEM(span, i, item);
        }
        return span;
    }

    /* A token's UTF-8 bytes (held by the str) and their hash. Returns 0, or with
       MX_SPACE: it is empty or holds a space (it stands for no word: "\\x00"), with
       MX_GAP: it holds a byte that separates table words (no table word equals it),
       -1: not encodable (a lone surrogate; no exception set), -2: not a str. */
    #define MX_SPACE 1
    #define MX_GAP 2
    static inline int mx_token(PyObject* token, const char** text, Py_ssize_t* size,
                               uint32_t* hash) {
        const unsigned char* s;
        Py_ssize_t n, i;
        uint32_t h = MX_FNV_OFFSET;
        int flags = 0;
        if (!PyUnicode_Check(token))
            return -2;
        if (PyUnicode_IS_COMPACT_ASCII(token)) {
            s = (const unsigned char*)PyUnicode_DATA(token);
            n = PyUnicode_GET_LENGTH(token);
        } else {
            s = (const unsigned char*)PyUnicode_AsUTF8AndSize(token, &n);
            if (s == NULL) {
                PyErr_Clear();
                return -1;
            }
        }
        for (i = 0; i < n; i++) {
            unsigned char c = s[i];
            h = (h ^ c) * MX_FNV_PRIME;
            if (mx_class[c])
                flags |= c == 32 ? MX_SPACE : MX_GAP;
        }
        *text = (const char*)s;
        *size = n;
        *hash = h;
        return n ? flags : MX_SPACE;
    }


    /* How many words the line has (p[start:end], split at gaps) if they are the
       tokens from m on (text / mlen: the bytes of the n tokens; mlen -1: a token no
       table word can equal), else 0. */
    static __attribute__((noinline)) int32_t mx_words_at(
            const unsigned char* p, const mx_Line* line, const char** text,
            const int32_t* mlen, Py_ssize_t m, Py_ssize_t n) {
        Py_ssize_t pos = line->start & ~MX_MORE, end = line->end, t = m, i;
        for (;;) {
            Py_ssize_t size;
            const unsigned char* a = p + pos;
            const unsigned char* b;
            if (t == n)
                return 0;
            size = mlen[t];
            b = (const unsigned char*)text[t];
            if (size < 0 || pos + size > end)
                return 0;
            if (size <= 16) {
                for (i = 0; i < size; i++)
                    if (a[i] != b[i])
                        return 0;
            } else if (memcmp(a, b, (size_t)size)) {
                return 0;
            }
            pos += size;
            t += 1;
            if (pos == end)
                return (int32_t)(t - m);
            if (mx_class[p[pos]] != 1)
                return 0;  /* the table word goes on */
            while (pos < end && mx_class[p[pos]] == 1)
                pos++;
            if (pos == end)
                return (int32_t)(t - m);
        }
    }

    /* The 8 bytes at p as a big-endian number (zeros past end). */
    static inline uint64_t mx_load_be(const unsigned char* p, const unsigned char* end) {
        uint64_t v = 0;
        int i;
        if (p + 8 <= end) {
            memcpy(&v, p, 8);
            return __builtin_bswap64(v);
        }
        for (i = 0; i < 8; i++)
            v = (v << 8) | (p + i < end ? p[i] : 0);
        return v;
    }

    /* Byte order of a[:na] and b[:nb] (a before end_a, b before end_b). */
    static inline int mx_order(const unsigned char* a, Py_ssize_t na, const unsigned char* end_a,
                               const unsigned char* b, Py_ssize_t nb, const unsigned char* end_b) {
        if (na < 0)  /* (not in a well-formed table) */
            na = 0;
        for (;;) {
            Py_ssize_t common = na < nb ? na : nb;
            uint64_t va, vb;
            if (common == 0)
                return (na > nb) - (na < nb);
            va = mx_load_be(a, end_a);
            vb = mx_load_be(b, end_b);
            if (common < 8) {
                int shift = (int)(64 - 8 * common);
                va >>= shift;
                vb >>= shift;
                if (va == vb)
                    return (na > nb) - (na < nb);
            }
            if (va != vb)
                return va < vb ? -1 : 1;
            a += 8; b += 8; na -= 8; nb -= 8;
        }
    }

    /* The sort key of a key's text after its first word and space (rest, n bytes,
       8 readable): its first 7 bytes (zero-padded), then min(n, 7). Two such keys
       compare as their texts do, except that equal ones with 7 mean: compare the rest. */
    static inline uint64_t mx_prefix(const unsigned char* rest, Py_ssize_t n,
                                     const unsigned char* end) {
        uint64_t v;
        if (n <= 0)
            return 0;
        v = mx_load_be(rest, end) & ~(uint64_t)0xFF;
        if (n < 7)
            return (v & (~(uint64_t)0 << (64 - 8 * n))) | (uint64_t)n;
        return v | 7;
    }

    /* Where key (n bytes, 8 readable past them) is among keys lo .. count - 1 (sorted;
       key i is keys[koff[i] : koff[i + 1] - 1], its mx_prefix after skip bytes is
       prefix[i]; all from lo on start with the same skip bytes as key), or -1. Nothing
       is read at or past end. */
    static Py_ssize_t mx_search(
            const unsigned char* keys, const unsigned char* end, const int32_t* koff,
            const uint64_t* prefix, Py_ssize_t lo, Py_ssize_t count,
            const unsigned char* key, Py_ssize_t n, Py_ssize_t skip) {
        Py_ssize_t hi = count;
        uint64_t target = mx_prefix(key + skip, n - skip, key + n + 8);
        while (lo < hi) {
            Py_ssize_t mid = (lo + hi) >> 1;
            uint64_t v = prefix[mid];
            int c;
            if (v != target) {
                c = v < target ? -1 : 1;
            } else if ((v & 0xFF) < 7) {
                return mid;
            } else {
                c = mx_order(keys + koff[mid] + skip + 7, koff[mid + 1] - 1 - koff[mid] - skip - 7,
                             end, key + skip + 7, n - skip - 7, key + n + 8);
                if (c == 0)
                    return mid;
            }
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        return -1;
    }

    /* The links of the phrases of a sentence (phrase i: start found[3i], found[3i + 1]
       words, its group's record at arena + groups[i]: [lines, owned, low, high], then
       the mx_Line of each paraphrase line; its text is the mapped file (data) at byte
       high << 32 | low, or owned[owned]) with the other sentence (indexed in tslots /
       next_at; hashes, text, mlen: its n tokens): written to out, 4 ints each (out has
       room for 4 n ints per line); returns how many ints. */
    static Py_ssize_t mx_links(
            Py_ssize_t phrases, const int32_t* found, const Py_ssize_t* groups,
            const int32_t* arena, const unsigned char* data, char* const* owned,
            const mx_TokenSlot* tslots, Py_ssize_t mask, const int32_t* next_at,
            const uint32_t* hashes, const char** text, const int32_t* mlen,
            Py_ssize_t n, int flip, int32_t* out) {
        int32_t* o = out;
        Py_ssize_t i;
        for (i = 0; i < phrases; i++) {
            const int32_t* record = arena + groups[i];
            const mx_Line* line = (const mx_Line*)(record + 4);
            const mx_Line* stop = line + record[0];
            int32_t k = found[3 * i], length = found[3 * i + 1];
            for (; line < stop; line++) {
                uint32_t h = line->hash;
                Py_ssize_t j = (Py_ssize_t)(h & (uint32_t)mask);
                int32_t m, size, more;
                uint32_t second;
                for (;;) {
                    if (tslots[j].hash == h) {
                        m = tslots[j].first;
                        break;
                    }
                    if (tslots[j].first < 0) {
                        m = -1;
                        break;
                    }
                    j = (j + 1) & mask;
                }
                if (m < 0)
                    continue;
                more = (line->start & MX_MORE) != 0;
                second = line->second;
                for (; m >= 0 && m + more < n; m = next_at[m]) {  /* (later ones do not fit) */
                    if (more && hashes[m + 1] != second)
                        continue;
                    {  /* the bytes (no hash collision), and the words */
                        const unsigned char* p = record[1] >= 0
                            ? (const unsigned char*)owned[record[1]]
                            : data + (((uint64_t)(uint32_t)record[3] << 32) | (uint32_t)record[2]);
                        size = mx_words_at(p, line, text, mlen, m, n);
                        if (!size)
                            continue;
                    }
                    if (flip) {
                        o[0] = k; o[1] = length; o[2] = m; o[3] = size;
                    } else {
                        o[0] = m; o[1] = size; o[2] = k; o[3] = length;
                    }
                    o += 4;
                }
            }
        }
        return o - out;
    }
    """
    ctypedef struct TokenSlot "mx_TokenSlot":
        uint32_t hash
        int32_t first

    ctypedef struct Line "mx_Line":
        uint32_t hash
        uint32_t second
        uint32_t start
        int32_t end

    const unsigned char* mx_class
    uint32_t mx_hash_word(const unsigned char* p, Py_ssize_t* i, Py_ssize_t e) noexcept nogil
    PyObject* mx_span(object ints, const int32_t* v) except NULL
    int MX_SPACE, MX_GAP
    uint32_t MX_MORE
    int mx_token(object token, const char** text, Py_ssize_t* size, uint32_t* hash) noexcept
    uint64_t mx_prefix(const unsigned char* rest, Py_ssize_t n, const unsigned char* end) noexcept nogil
    Py_ssize_t mx_search(
        const unsigned char* keys, const unsigned char* end, const int32_t* koff,
        const uint64_t* prefix, Py_ssize_t lo, Py_ssize_t count, const unsigned char* key,
        Py_ssize_t n, Py_ssize_t skip) noexcept nogil
    Py_ssize_t mx_links(
        Py_ssize_t phrases, const int32_t* found, const Py_ssize_t* groups,
        const int32_t* arena, const unsigned char* data, char* const* owned,
        const TokenSlot* tslots, Py_ssize_t mask, const int32_t* next_at,
        const uint32_t* hashes, const char** text, const int32_t* mlen,
        Py_ssize_t n, int flip, int32_t* out) noexcept nogil


cdef enum:
    LINE_INTS = 4  # sizeof(Line) // 4



# byte classes in paraphrase lines: 2 a line end, 1 a gap between words (what Java's
# StringTokenizer splits on, line ends aside), 0 part of a word
cdef unsigned char _CLASS[256]
memset(_CLASS, 0, 256)
_CLASS[10] = 2
_CLASS[32] = 1
_CLASS[9] = 1
_CLASS[12] = 1
mx_class = _CLASS


cdef inline bint _is_ascii(const unsigned char* p, Py_ssize_t n) noexcept nogil:
    cdef uint64_t v, acc = 0
    cdef Py_ssize_t i = 0
    while i + 8 <= n:
        memcpy(&v, p + i, 8)
        acc |= v
        i += 8
    while i < n:
        acc |= p[i]
        i += 1
    return (acc & 0x8080808080808080ULL) == 0


cdef class Sentence:
    """A sentence prepared by :meth:`NativeTable.prepare`: its tokens' bytes, hashes and
    word ids, and the table phrases in it."""

    cdef readonly tuple tokens
    cdef Py_ssize_t n
    cdef void* block            # the per-token arrays below, in one allocation
    cdef const char** text      # UTF-8 bytes of each token (held by ``tokens``) ...
    cdef int32_t* size          # ... and their length
    cdef int32_t* mlen          # the length, or -1: no table word can equal the token
    cdef uint32_t* hashes       # their FNV-1a hash (cut to the table's hash_bits)
    cdef int32_t* ids           # word ids (-1: not encodable)
    cdef Py_ssize_t phrases
    cdef int32_t* found         # per phrase: start, words, group number
    cdef Py_ssize_t cap
    cdef Py_ssize_t serial      # of the table that prepared it ...
    cdef Py_ssize_t generation  # ... and of its words

    def __cinit__(self):
        self.block = NULL
        self.text = NULL
        self.size = NULL
        self.mlen = NULL
        self.hashes = NULL
        self.ids = NULL
        self.found = NULL
        self.cap = 0
        self.n = 0
        self.phrases = 0
        self.serial = -1
        self.generation = -1

    def __dealloc__(self):
        free(self.block)
        free(self.found)

    cdef int _grow(self) except -1:
        cdef Py_ssize_t cap = 2 * self.cap + 16
        cdef void* grown = realloc(self.found, 3 * cap * sizeof(int32_t))
        if grown == NULL:
            raise MemoryError()
        self.found = <int32_t*>grown
        self.cap = cap
        return 0

    cdef inline int _add(self, Py_ssize_t start, Py_ssize_t length, uint64_t group) except -1:
        cdef int32_t* at
        if self.phrases == self.cap:
            self._grow()
        at = self.found + 3 * self.phrases
        at[0] = <int32_t>start
        at[1] = <int32_t>length
        at[2] = <int32_t>group
        self.phrases += 1
        return 0

    def __len__(self):
        return self.n

    def phrase_spans(self):
        """The table phrases found: ``(start, words, group number)``, in walk order."""
        return [
            (self.found[3 * i], self.found[3 * i + 1], self.found[3 * i + 2])
            for i in range(self.phrases)
        ]


cdef class NativeTable:
    """Shared C state of one compiled paraphrase table (see the module docstring).

    ``data``: the compiled file's buffer; ``layout``: its sections ``(offset, length)``
    x 6 (targets, group offsets, keys, values, directory, metadata); ``directory``:
    first word -> ``(start, end, first key)`` or a list of those.
    """

    cdef object _view           # holds the buffer export
    cdef const unsigned char* data
    cdef const unsigned char* data_end
    cdef Py_ssize_t targets_at
    cdef const uint64_t* offsets
    cdef Py_ssize_t ngroups
    cdef const unsigned char* keys
    cdef Py_ssize_t keys_len
    cdef const uint64_t* values
    cdef Py_ssize_t nkeys
    cdef int32_t* koff          # where the keys of the runs read start (see Run) ...
    cdef uint64_t* kprefix      # ... and their mx_prefix after the first word
    cdef Py_ssize_t koff_len, koff_cap
    cdef Run* read              # the runs read, hashed by first key (-1: a free slot)
    cdef Py_ssize_t read_slots, nread
    cdef object directory

    cdef char* arena
    cdef Py_ssize_t arena_len, arena_cap
    cdef Word* words
    cdef Py_ssize_t nwords, words_cap
    cdef int32_t* slots
    cdef Py_ssize_t nslots
    cdef Run* runs
    cdef Py_ssize_t nruns, runs_cap
    cdef Step* steps
    cdef Py_ssize_t step_slots, nsteps

    # decoded paraphrase groups: records in one arena (see _group), found by number
    cdef int32_t* garena
    cdef Py_ssize_t garena_len, garena_cap
    cdef int32_t* gat           # by group number: 1 + where its record is (0: none)
    cdef Py_ssize_t ngroups_held
    cdef char** owned           # texts of groups that are not valid UTF-8 (repaired)
    cdef Py_ssize_t nowned, owned_cap
    cdef Py_ssize_t serial
    cdef readonly Py_ssize_t generation
    cdef readonly Py_ssize_t decoded
    cdef public Py_ssize_t max_words
    cdef public Py_ssize_t max_group_ints
    cdef public Py_ssize_t max_steps
    cdef uint32_t hmask         # applied to every word hash (fewer bits: for tests)

    cdef TokenSlot* tslots      # the sentence indexed last: token hash -> first position
    cdef Py_ssize_t tslot_count, tslot_used
    cdef int32_t* next_at       # next position of a token with the same hash
    cdef Py_ssize_t next_cap
    cdef char* keybuf
    cdef Py_ssize_t keybuf_cap
    cdef int32_t* spans
    cdef Py_ssize_t spans_cap
    cdef int32_t* sorted_spans
    cdef Py_ssize_t sorted_cap
    cdef Py_ssize_t* bucket
    cdef Py_ssize_t bucket_cap
    cdef Py_ssize_t* work_groups
    cdef Py_ssize_t work_cap

    def __cinit__(self):
        self.koff = NULL
        self.kprefix = NULL
        self.read = NULL
        self.arena = NULL
        self.words = NULL
        self.slots = NULL
        self.runs = NULL
        self.steps = NULL
        self.garena = NULL
        self.gat = NULL
        self.owned = NULL
        self.tslots = NULL
        self.next_at = NULL
        self.keybuf = NULL
        self.spans = NULL
        self.sorted_spans = NULL
        self.bucket = NULL
        self.work_groups = NULL

    def __init__(self, data, tuple layout, dict directory):
        cdef object buffer = memoryview(data).cast("B")
        cdef const unsigned char[::1] view = buffer
        cdef Py_ssize_t size = view.shape[0]
        cdef Py_ssize_t i
        cdef Py_ssize_t lay[12]
        if len(layout) != 12 or size == 0:
            raise ValueError("bad paraphrase table layout")
        for i in range(12):
            lay[i] = layout[i]
        for i in range(6):
            if lay[2 * i] < 0 or lay[2 * i + 1] < 0 or lay[2 * i] + lay[2 * i + 1] > size:
                raise ValueError("bad paraphrase table layout")
        if lay[2] % 8 or lay[6] % 8 or lay[3] % 8 or lay[7] % 8 or lay[3] < 8:
            raise ValueError("bad paraphrase table layout")
        self._view = buffer
        self.data = &view[0]
        self.data_end = self.data + size
        self.targets_at = lay[0]
        self.offsets = <const uint64_t*>(self.data + lay[2])
        self.ngroups = lay[3] // 8 - 1
        self.keys = self.data + lay[4]
        self.keys_len = lay[5]
        self.values = <const uint64_t*>(self.data + lay[6])
        self.nkeys = lay[7] // 8
        self.directory = directory
        if self.nkeys >= 0x7FFFFFFF or self.ngroups >= 0x7FFFFFFF or self.keys_len >= 0x7FFFFFFF:
            raise ValueError("paraphrase table too large for the compiled matcher")
        if self.offsets[self.ngroups] > <uint64_t>lay[1]:
            raise ValueError("bad paraphrase table layout")
        # the keys section is one "\n"-terminated key per line, sorted within a run;
        # a run's line starts are noted the first time its word is met (see _add_run)
        self.koff_len = 0
        self.koff_cap = 0
        self.nread = 0
        self.read_slots = 256
        self.read = <Run*>malloc(self.read_slots * sizeof(Run))
        if self.read == NULL:
            raise MemoryError()
        memset(self.read, 0xFF, self.read_slots * sizeof(Run))
        self.garena_len = 0
        self.garena_cap = 0
        self.ngroups_held = 0
        self.nowned = 0
        self.owned_cap = 0
        self.tslot_count = 0
        # (zeroed pages cost nothing until a group of theirs is decoded)
        self.gat = <int32_t*>calloc(self.ngroups + 1, sizeof(int32_t))
        if self.gat == NULL:
            raise MemoryError()
        global _serial
        _serial += 1
        self.serial = _serial
        self.generation = 0
        self.decoded = 0
        self.max_words = MAX_WORDS
        self.max_group_ints = MAX_GROUP_INTS
        self.max_steps = MAX_STEPS
        self.hmask = 0xFFFFFFFFu
        self._reset_words(64)

    def __dealloc__(self):
        self._free_groups()
        free(self.garena)
        free(self.gat)
        free(self.owned)
        free(self.tslots)
        free(self.koff)
        free(self.kprefix)
        free(self.read)
        free(self.arena)
        free(self.words)
        free(self.slots)
        free(self.runs)
        free(self.steps)
        free(self.next_at)
        free(self.keybuf)
        free(self.spans)
        free(self.sorted_spans)
        free(self.bucket)
        free(self.work_groups)

    @property
    def words_known(self):
        """Distinct words (sentence tokens) interned so far."""
        return self.nwords

    @property
    def hash_bits(self):
        """Bits of the word hashes used (32; fewer make collisions common, for tests:
        set it before the first use)."""
        cdef int bits = 0
        while bits < 32 and (self.hmask >> bits) & 1:
            bits += 1
        return bits

    @hash_bits.setter
    def hash_bits(self, int bits):
        if self.nwords or self.ngroups_held:
            raise ValueError("set hash_bits before the first use")
        if not 0 <= bits <= 32:
            raise ValueError("hash_bits: 0 to 32")
        self.hmask = 0xFFFFFFFFu if bits == 32 else (1u << bits) - 1

    @property
    def group_memory(self):
        """Ints held by decoded paraphrase groups."""
        return self.garena_len

    # -- interning -------------------------------------------------------------------

    cdef int _reset_words(self, Py_ssize_t capacity) except -1:
        free(self.arena)
        free(self.words)
        free(self.slots)
        free(self.runs)
        self.arena_cap = 16 * capacity
        self.arena = <char*>malloc(self.arena_cap)
        self.arena_len = 0
        self.words_cap = capacity
        self.words = <Word*>malloc(capacity * sizeof(Word))
        self.nwords = 0
        self.nslots = 2 * capacity
        self.slots = <int32_t*>malloc(self.nslots * sizeof(int32_t))
        self.runs_cap = 64
        self.runs = <Run*>malloc(self.runs_cap * sizeof(Run))
        self.nruns = 0
        if self.arena == NULL or self.words == NULL or self.slots == NULL or self.runs == NULL:
            raise MemoryError()
        memset(self.slots, 0xFF, self.nslots * sizeof(int32_t))
        # they name word ids; sized for ~130k steps (zeroed pages cost nothing until used,
        # and a table grown step by step would touch twice the memory)
        self._reset_steps(1 << 18)
        return 0

    cdef int _grow_slots(self) except -1:
        cdef Py_ssize_t size = 2 * self.nslots
        cdef int32_t* slots = <int32_t*>malloc(size * sizeof(int32_t))
        cdef Py_ssize_t mask = size - 1
        cdef Py_ssize_t i, j
        if slots == NULL:
            raise MemoryError()
        memset(slots, 0xFF, size * sizeof(int32_t))
        for i in range(self.nwords):
            j = self.words[i].hash & mask
            while slots[j] >= 0:
                j = (j + 1) & mask
            slots[j] = <int32_t>i
        free(self.slots)
        self.slots = slots
        self.nslots = size
        return 0

    cdef int32_t _intern_hashed(self, const char* s, Py_ssize_t n, uint32_t h) except -2:
        """The id of the word with UTF-8 bytes ``s[:n]`` (a new id if it is new), given
        their FNV-1a hash ``h``."""
        cdef Py_ssize_t mask = self.nslots - 1
        cdef Py_ssize_t j = h & mask
        cdef int32_t w
        cdef Word* word
        while True:
            w = self.slots[j]
            if w < 0:
                break
            word = &self.words[w]
            if word.hash == h and word.length == n and memcmp(self.arena + word.off, s, n) == 0:
                return w
            j = (j + 1) & mask
        # new word
        cdef Py_ssize_t cap
        cdef void* grown
        if self.nwords == self.words_cap:
            cap = 2 * self.words_cap
            grown = realloc(self.words, cap * sizeof(Word))
            if grown == NULL:
                raise MemoryError()
            self.words = <Word*>grown
            self.words_cap = cap
        if self.arena_len + n > self.arena_cap:
            cap = 2 * self.arena_cap + n
            grown = realloc(self.arena, cap)
            if grown == NULL:
                raise MemoryError()
            self.arena = <char*>grown
            self.arena_cap = cap
        w = <int32_t>self.nwords
        word = &self.words[w]
        word.off = self.arena_len
        word.length = <int32_t>n
        word.hash = h
        word.known = 0
        word.run_at = 0
        word.run_count = 0
        word.own = 0
        memcpy(self.arena + self.arena_len, s, n)
        self.arena_len += n
        self.slots[j] = w
        self.nwords += 1
        if 2 * self.nwords > self.nslots:
            self._grow_slots()
        return w

    cdef inline Py_ssize_t _read_slot(self, Py_ssize_t first) noexcept nogil:
        cdef Py_ssize_t mask = self.read_slots - 1
        cdef Py_ssize_t j = <Py_ssize_t>((<uint64_t>first * 0x9E3779B97F4A7C15ULL) >> 32) & mask
        while self.read[j].first != first and self.read[j].first != -1:
            j = (j + 1) & mask
        return j

    cdef int _add_run(self, Word* word, object entry) except -1:
        """Record one directory entry ``(start, end, first key)`` of ``word``."""
        cdef Py_ssize_t start = entry[0]
        cdef Py_ssize_t end = entry[1]
        cdef Py_ssize_t first = entry[2]
        cdef Py_ssize_t j
        cdef Run run
        cdef void* grown
        if first < 0 or first >= self.nkeys or end < start or end > self.keys_len:
            raise ValueError("corrupt paraphrase table directory")
        j = self._read_slot(first)
        if self.read[j].first == first:
            run = self.read[j]
            if self.koff[run.at] != start or self.koff[run.at + run.count] != end + 1:
                raise ValueError("corrupt paraphrase table directory")
        else:  # first time: note where its keys start
            run = self._read_run(first, start, end)
        if self.nruns == self.runs_cap:
            grown = realloc(self.runs, 2 * self.runs_cap * sizeof(Run))
            if grown == NULL:
                raise MemoryError()
            self.runs = <Run*>grown
            self.runs_cap *= 2
        self.runs[self.nruns] = run
        self.nruns += 1
        word.run_count += 1
        word.own |= self.values[first]
        return 0

    cdef Run _read_run(self, Py_ssize_t first, Py_ssize_t start, Py_ssize_t end) except *:
        """Note where the keys of a run start (the lines of ``keys[start:end]``, numbered
        from ``first``), and the run among those read."""
        cdef const unsigned char* p = self.keys + start
        cdef const unsigned char* stop = self.keys + end
        cdef const unsigned char* nl
        cdef Py_ssize_t count = 0, at, cap, i, skip = 0
        cdef Run run
        cdef Run* old
        cdef void* grown
        # at most one key per two bytes (a byte and its line end), plus a last one
        if self.koff_len + (end - start) // 2 + 2 > self.koff_cap:
            cap = 2 * self.koff_cap + (end - start) // 2 + 4096
            grown = realloc(self.koff, cap * sizeof(int32_t))
            if grown == NULL:
                raise MemoryError()
            self.koff = <int32_t*>grown
            grown = realloc(self.kprefix, cap * sizeof(uint64_t))
            if grown == NULL:
                raise MemoryError()
            self.kprefix = <uint64_t*>grown
            self.koff_cap = cap
        at = self.koff_len
        while True:
            # (more keys than that: empty ones, which the compiler does not write)
            if first + count >= self.nkeys or at + count + 1 >= self.koff_cap:
                raise ValueError("corrupt paraphrase table directory")
            self.koff[at + count] = <int32_t>(p - self.keys)
            nl = <const unsigned char*>memchr(p, 10, stop - p)
            if count == 0:  # the word: the others start with it and a space
                skip = ((nl if nl != NULL else stop) - p) + 1
                self.kprefix[at] = 0
            else:
                self.kprefix[at + count] = mx_prefix(
                    p + skip, (nl if nl != NULL else stop) - p - skip, self.data_end)
            count += 1
            if nl == NULL:
                break
            p = nl + 1
        self.koff[at + count] = <int32_t>(end + 1)
        self.koff_len = at + count + 1
        run.first = first
        run.count = count
        run.at = at
        if 2 * (self.nread + 1) > self.read_slots:
            old = self.read
            cap = self.read_slots
            self.read = <Run*>malloc(2 * cap * sizeof(Run))
            if self.read == NULL:
                self.read = old
                raise MemoryError()
            memset(self.read, 0xFF, 2 * cap * sizeof(Run))
            self.read_slots = 2 * cap
            for i in range(cap):
                if old[i].first != -1:
                    self.read[self._read_slot(old[i].first)] = old[i]
            free(old)
        self.read[self._read_slot(first)] = run
        self.nread += 1
        return run

    cdef int _consult(self, int32_t w, object token) except -1:
        """Read the directory entry of word ``w`` (``token`` is its text)."""
        cdef PyObject* found = PyDict_GetItemWithError(self.directory, token)
        cdef object entry
        cdef Word* word = &self.words[w]
        word.known = 1
        word.run_at = <int32_t>self.nruns
        word.run_count = 0
        word.own = 0
        if found == NULL:
            return 0
        entry = <object>found
        if isinstance(entry, list):
            for item in entry:
                self._add_run(&self.words[w], item)
        else:
            self._add_run(word, entry)
        return 0

    cdef inline Py_ssize_t _search(self, const Run* run, Py_ssize_t lo, const char* key,
                                   Py_ssize_t n) noexcept nogil:
        """The number of ``key`` among the keys ``lo ..`` of ``run`` (sorted), or -1.
        ``key`` starts with the run's first key and a space, as its keys after the
        first do (``lo`` > the run's first)."""
        cdef const int32_t* koff = self.koff + run.at
        cdef Py_ssize_t found = mx_search(
            self.keys, self.data_end, koff, self.kprefix + run.at, lo - run.first, run.count,
            <const unsigned char*>key, n, koff[1] - koff[0])
        return found + run.first if found >= 0 else -1

    cdef inline Py_ssize_t _step_slot(self, uint64_t key) noexcept nogil:
        cdef Py_ssize_t mask = self.step_slots - 1
        cdef Py_ssize_t j = <Py_ssize_t>((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask
        while self.steps[j].key != ~key and self.steps[j].key != 0:
            j = (j + 1) & mask
        return j

    cdef int _reset_steps(self, Py_ssize_t slots) except -1:
        free(self.steps)
        self.steps = <Step*>calloc(slots, sizeof(Step))
        if self.steps == NULL:
            raise MemoryError()
        self.step_slots = slots
        self.nsteps = 0
        return 0

    cdef int _step_put(self, uint64_t key, int64_t child) except -1:
        cdef Step* old
        cdef Py_ssize_t n, i, j
        if self.nsteps >= self.max_steps:
            self._reset_steps(self.step_slots)  # forget them all
        elif 2 * (self.nsteps + 1) > self.step_slots:
            old = self.steps
            n = self.step_slots
            self.steps = <Step*>calloc(2 * n, sizeof(Step))
            if self.steps == NULL:
                self.steps = old
                raise MemoryError()
            self.step_slots = 2 * n
            for i in range(n):
                if old[i].key != 0:
                    self.steps[self._step_slot(~old[i].key)] = old[i]
            free(old)
        j = self._step_slot(key)
        if self.steps[j].key == 0:
            self.nsteps += 1
        self.steps[j].key = ~key
        self.steps[j].child = child
        return 0

    cdef Py_ssize_t _key_text(self, Sentence s, Py_ssize_t k, Py_ssize_t j,
                              Py_ssize_t at) except -1:
        """Words ``k ..= j`` of ``s`` joined by spaces, put in ``keybuf`` from ``at`` (after
        a space if ``at``); returns the length of the text there."""
        cdef Py_ssize_t i, need = at
        for i in range(k, j + 1):
            need += s.size[i] + 1
        self._key_reserve(need + 8)  # (mx_search reads 8 bytes at a time)
        for i in range(k, j + 1):
            if at:
                self.keybuf[at] = 32
                at += 1
            memcpy(self.keybuf + at, s.text[i], s.size[i])
            at += s.size[i]
        return at

    # -- sentences -------------------------------------------------------------------

    cdef int _fill(self, Sentence s) except -1:
        """Tokens' bytes, word ids and table phrases of ``s.tokens`` (Meteor 1.5's trie
        walk)."""
        cdef tuple tokens = s.tokens
        cdef Py_ssize_t n = len(tokens)
        cdef Py_ssize_t k, length, j, r, cur, found, keylen = 0
        cdef const char* utf8 = NULL
        cdef Py_ssize_t nbytes = 0
        cdef object token
        cdef int32_t w
        cdef Word* word
        cdef uint64_t value, step
        cdef Run* run
        cdef Py_ssize_t slot
        cdef uint32_t h = 0
        cdef int flags
        cdef Py_ssize_t built, start = -1
        cdef char* block
        free(s.block)
        s.block = NULL
        s.n = 0
        s.phrases = 0
        s.serial = -1
        s.generation = -1
        if n == 0:
            s.serial = self.serial
            s.generation = self.generation
            return 0
        block = <char*>malloc(n * (sizeof(char*) + 4 * sizeof(int32_t)))
        if block == NULL:
            raise MemoryError()
        s.block = block
        s.text = <const char**>block
        s.size = <int32_t*>(block + n * sizeof(char*))
        s.mlen = s.size + n
        s.hashes = <uint32_t*>(s.mlen + n)
        s.ids = <int32_t*>(s.hashes + n)
        if s.cap < n + 16:  # phrases: about one per token
            free(s.found)
            s.found = NULL
            s.cap = 0
            s.found = <int32_t*>malloc(3 * (n + 16) * sizeof(int32_t))
            if s.found == NULL:
                raise MemoryError()
            s.cap = n + 16
        s.n = n
        try:
            for k in range(n):
                token = tokens[k]
                flags = mx_token(token, &utf8, &nbytes, &h)
                if flags < 0:
                    if flags == -2:
                        raise TypeError(f"tokens must be strings, not {type(token).__name__}")
                    if " " not in <str>token:  # not encodable: matches nothing
                        s.ids[k] = -1
                        s.text[k] = NULL
                        s.size[k] = 0
                        s.mlen[k] = -1
                        s.hashes[k] = 0
                        continue
                    flags = MX_SPACE
                if flags & MX_SPACE:
                    token = _SAFE
                    flags = mx_token(token, &utf8, &nbytes, &h)
                if nbytes >= 0x7FFFFFFF:
                    raise ValueError("token too long")
                s.text[k] = utf8
                s.size[k] = <int32_t>nbytes
                s.mlen[k] = -1 if flags & MX_GAP else <int32_t>nbytes
                s.hashes[k] = h & self.hmask
                w = self._intern_hashed(utf8, nbytes, h)
                s.ids[k] = w
                if not self.words[w].known:
                    self._consult(w, token)
            # the walk: at each start, longer keys while a longer phrase can follow
            built = -1  # keybuf holds the tokens from start ... to built (joined)
            for k in range(n):
                w = s.ids[k]
                if w < 0:
                    continue
                word = &self.words[w]
                value = word.own
                if value == 0:
                    continue
                length = 1
                cur = self.runs[word.run_at].first
                while True:
                    if value > 1:
                        s._add(k, length, value >> 1)
                    if not (value & 1) or k + length == n:
                        break
                    j = k + length
                    if s.ids[j] < 0:
                        break  # no key has this word
                    length += 1
                    if word.run_count == 1:
                        # the key number of (key so far, next word): remembered, else
                        # looked up among the keys of the word's run
                        step = (<uint64_t>cur << 32) | <uint32_t>s.ids[j]
                        slot = self._step_slot(step)
                        if self.steps[slot].key == ~step:
                            found = self.steps[slot].child
                        else:
                            if built < k or start != k:
                                start = k
                                built = k
                                keylen = self._key_text(s, k, k, 0)
                            keylen = self._key_text(s, built + 1, j, keylen)
                            built = j
                            found = self._search(&self.runs[word.run_at], cur + 1,
                                                 self.keybuf, keylen)
                            self._step_put(step, found)
                        if found < 0:
                            break
                        cur = found
                        value = self.values[found]
                    else:  # a word with several runs of keys (not made by the compiler)
                        keylen = self._key_text(s, k, j, 0)
                        built = -1
                        value = 0
                        for r in range(word.run_count):
                            run = &self.runs[word.run_at + r]
                            found = self._search(run, run.first + 1, self.keybuf, keylen)
                            if found >= 0:
                                value |= self.values[found]
        except BaseException:
            s.phrases = 0
            s.n = 0
            raise
        s.serial = self.serial
        s.generation = self.generation
        return 0

    cdef int _key_reserve(self, Py_ssize_t n) except -1:
        cdef void* grown
        if n > self.keybuf_cap:
            grown = realloc(self.keybuf, 2 * n + 64)
            if grown == NULL:
                raise MemoryError()
            self.keybuf = <char*>grown
            self.keybuf_cap = 2 * n + 64
        return 0

    def prepare(self, tokens):
        """A :class:`Sentence` of ``tokens`` (a sequence of strings)."""
        cdef Sentence s = Sentence.__new__(Sentence)
        s.tokens = tokens if type(tokens) is tuple else tuple(tokens)
        if self.nwords > self.max_words:  # between sentences: forget the words
            self._reset_words(64)
            self.generation += 1
        self._fill(s)
        return s

    # -- paraphrase groups -----------------------------------------------------------
    #
    # A decoded group is a record in ``garena``: ``[lines, owned, low, high]`` then a
    # Line (hash, start, end) per non-blank paraphrase line, in table order. Its text is
    # the mapped file from byte ``high << 32 | low`` when ``owned`` is -1, else
    # ``owned[owned]`` (a group that is not valid UTF-8, repaired with U+FFFD).
    # Paraphrase words are not interned: a line is found in a sentence by the hash of
    # its first word, and compared with the tokens' bytes.

    cdef void _free_groups(self) noexcept:
        cdef Py_ssize_t i
        if self.gat != NULL and self.ngroups_held:
            memset(self.gat, 0, (self.ngroups + 1) * sizeof(int32_t))
        self.ngroups_held = 0
        self.garena_len = 0
        for i in range(self.nowned):
            free(self.owned[i])
        self.nowned = 0

    cdef int _garena_reserve(self, Py_ssize_t n) except -1:
        cdef Py_ssize_t cap
        cdef void* grown
        if self.garena_len + n >= 0x7FFFFFFF:  # (candidates keeps it far smaller)
            raise MemoryError("paraphrase groups")
        if self.garena_len + n > self.garena_cap:
            cap = 2 * self.garena_cap + n + 4096
            grown = realloc(self.garena, cap * sizeof(int32_t))
            if grown == NULL:
                raise MemoryError()
            self.garena = <int32_t*>grown
            self.garena_cap = cap
        return 0

    cdef inline Py_ssize_t _group(self, int32_t g) except -1:
        """Group ``g`` (numbered from 1) decoded: where its record is in ``garena``."""
        if 0 < g <= self.ngroups and self.gat[g]:
            return self.gat[g] - 1
        return self._decode(g)

    cdef Py_ssize_t _decode(self, int32_t g) except -1:
        """Decode group ``g`` into ``garena`` (see :meth:`_group`)."""
        cdef Py_ssize_t i, e = 0, a, count, at
        if g <= 0 or g > self.ngroups:
            raise ValueError(f"no paraphrase group {g}")
        cdef Py_ssize_t start = self.targets_at + <Py_ssize_t>self.offsets[g - 1]
        cdef Py_ssize_t stop = self.targets_at + <Py_ssize_t>self.offsets[g]
        cdef const unsigned char* p = self.data + start
        cdef Py_ssize_t n = stop - start
        cdef const unsigned char* nl
        cdef object text
        cdef const char* utf8
        cdef char* copy
        cdef int32_t owned = -1
        cdef Line* line
        cdef void* grown
        if stop < start or n >= 0x7FFFFFFF:
            raise ValueError("corrupt paraphrase table")
        if not _is_ascii(p, n):  # decoded like the Python definition: bad bytes -> U+FFFD
            text = (<const char*>p)[:n].decode("utf-8", "replace")
            utf8 = PyUnicode_AsUTF8AndSize(text, &e)
            if utf8 == NULL:
                raise ValueError("paraphrase group cannot be decoded")
            if e != n or memcmp(utf8, p, n) != 0:  # not valid UTF-8: keep the repaired text
                if e >= 0x7FFFFFFF:
                    raise ValueError("corrupt paraphrase table")
                if self.nowned == self.owned_cap:
                    grown = realloc(self.owned, (2 * self.owned_cap + 8) * sizeof(char*))
                    if grown == NULL:
                        raise MemoryError()
                    self.owned = <char**>grown
                    self.owned_cap = 2 * self.owned_cap + 8
                copy = <char*>malloc(e + 1)
                if copy == NULL:
                    raise MemoryError()
                memcpy(copy, utf8, e)
                owned = <int32_t>self.nowned
                self.owned[self.nowned] = copy
                self.nowned += 1
                p = <const unsigned char*>copy
                n = e
        # at most one line per two bytes (a word and its line end), plus a last one
        self._garena_reserve(4 + LINE_INTS * (n // 2 + 1))
        at = self.garena_len
        line = <Line*>(self.garena + at + 4)
        count = 0
        i = 0
        while i < n:
            nl = <const unsigned char*>memchr(p + i, 10, n - i)
            e = (nl - p) if nl != NULL else n
            a = i
            while a < e and _CLASS[p[a]] == 1:
                a += 1
            if a < e:  # not blank: the hashes of its first two words
                line[count].start = <uint32_t>a
                line[count].end = <int32_t>e
                i = a
                line[count].hash = mx_hash_word(p, &i, e) & self.hmask
                while i < e and _CLASS[p[i]] == 1:
                    i += 1
                if i < e:
                    line[count].start |= MX_MORE
                    line[count].second = mx_hash_word(p, &i, e) & self.hmask
                else:
                    line[count].second = 0
                count += 1
            i = e + 1
        self.garena[at] = <int32_t>count
        self.garena[at + 1] = owned
        self.garena[at + 2] = <int32_t>(<uint32_t>(<uint64_t>start & 0xFFFFFFFFu))
        self.garena[at + 3] = <int32_t>(<uint32_t>(<uint64_t>start >> 32))
        self.garena_len = at + 4 + LINE_INTS * count
        self.gat[g] = <int32_t>(at + 1)
        self.ngroups_held += 1
        self.decoded += 1
        return at

    cdef inline const unsigned char* _group_text(self, const int32_t* record) noexcept nogil:
        if record[1] >= 0:
            return <const unsigned char*>self.owned[record[1]]
        return self.data + ((<uint64_t><uint32_t>record[3] << 32) | <uint32_t>record[2])

    def paraphrases(self, int32_t group):
        """Group ``group`` decoded, as tuples of words (for tests)."""
        cdef Py_ssize_t at = self._group(group)
        cdef const int32_t* record = self.garena + at
        cdef const unsigned char* p = self._group_text(record)
        cdef const Line* line = <const Line*>(record + 4)
        cdef Py_ssize_t i, a, b, e
        result = []
        for i in range(record[0]):
            words = []
            a = line[i].start & ~MX_MORE
            e = line[i].end
            while a < e:
                b = a
                while b < e and _CLASS[p[b]] == 0:
                    b += 1
                words.append((<const char*>p)[a:b].decode("utf-8"))
                a = b
                while a < e and _CLASS[p[a]] == 1:
                    a += 1
            result.append(tuple(words))
        return result

    # -- links -----------------------------------------------------------------------

    cdef int _index(self, Sentence s) except -1:
        """Index ``s``: token hash -> its first position (``tslots``), and ``next_at``:
        the next position of a token with the same hash."""
        cdef Py_ssize_t p, j, mask, size = 16
        cdef uint32_t h
        cdef void* grown
        if s.n > self.next_cap:
            grown = realloc(self.next_at, (s.n + 64) * sizeof(int32_t))
            if grown == NULL:
                raise MemoryError()
            self.next_at = <int32_t*>grown
            self.next_cap = s.n + 64
        while size < 4 * s.n:  # mostly free slots: a line's first word is mostly absent
            size *= 2
        if size > self.tslot_count:
            grown = realloc(self.tslots, size * sizeof(TokenSlot))
            if grown == NULL:
                raise MemoryError()
            self.tslots = <TokenSlot*>grown
            self.tslot_count = size
        self.tslot_used = size
        mask = size - 1
        memset(self.tslots, 0xFF, size * sizeof(TokenSlot))  # first -1: free
        for p in range(s.n - 1, -1, -1):
            if s.mlen[p] < 0:
                continue
            h = s.hashes[p]
            j = h & mask
            while self.tslots[j].first >= 0 and self.tslots[j].hash != h:
                j = (j + 1) & mask
            self.next_at[p] = self.tslots[j].first
            self.tslots[j].hash = h
            self.tslots[j].first = <int32_t>p
        return 0

    cdef int _span_reserve(self, Py_ssize_t n) except -1:
        cdef void* grown
        if n > self.spans_cap:
            grown = realloc(self.spans, (2 * n + 256) * sizeof(int32_t))
            if grown == NULL:
                raise MemoryError()
            self.spans = <int32_t*>grown
            self.spans_cap = 2 * n + 256
        return 0

    cdef Py_ssize_t _links(self, Sentence s, const Py_ssize_t* groups, Sentence other,
                           bint flip, Py_ssize_t used) except -1:
        """Append to ``spans`` (4 ints each, from int ``used``) every phrase of ``s``,
        paraphrase, occurrence in ``other`` (indexed last): ``(position, words, start,
        length)``, or ``(start, length, position, words)`` when ``flip``."""
        cdef Py_ssize_t i, lines = 0
        for i in range(s.phrases):
            lines += self.garena[groups[i]]
        if used + 4 * lines * other.n > self.spans_cap:  # room for any outcome
            self._span_reserve(used + 4 * lines * other.n)
        return used + mx_links(
            s.phrases, s.found, groups, self.garena, self.data, self.owned, self.tslots,
            self.tslot_used - 1, self.next_at, other.hashes, other.text, other.mlen,
            other.n, flip, self.spans + used)

    def candidates(self, Sentence hyp, Sentence ref):
        """The links of ``hyp`` and ``ref`` (prepared by this table): ``(hyp start, hyp
        words, ref start, ref words)`` in the order of the Python definition."""
        cdef Py_ssize_t i, first, total, k, need
        cdef Py_ssize_t* groups
        cdef void* grown
        # prepared before the words were forgotten (or by another table): again
        if hyp.generation != self.generation or hyp.serial != self.serial:
            self._fill(hyp)
        if ref.generation != self.generation or ref.serial != self.serial:
            self._fill(ref)
        if self.garena_len > min(self.max_group_ints, 0x40000000):
            self._free_groups()
        need = ref.phrases + hyp.phrases
        if need > self.work_cap:
            grown = realloc(self.work_groups, (need + 64) * sizeof(Py_ssize_t))
            if grown == NULL:
                raise MemoryError()
            self.work_groups = <Py_ssize_t*>grown
            self.work_cap = need + 64
        groups = self.work_groups
        for i in range(ref.phrases):
            groups[i] = self._group(ref.found[3 * i + 2])
        for i in range(hyp.phrases):
            groups[ref.phrases + i] = self._group(hyp.found[3 * i + 2])
        # 1. phrases of the reference, their paraphrases found in the hypothesis
        self._index(hyp)
        first = self._links(ref, groups, hyp, False, 0)
        # 2. phrases of the hypothesis, their paraphrases found in the reference
        self._index(ref)
        total = self._links(hyp, groups + ref.phrases, ref, True, first)
        if total == first:
            return self._spans_list(self.spans, total)
        # stable by reference position, step 1 first (it is already in that order)
        if ref.n + 1 > self.bucket_cap:
            grown = realloc(self.bucket, (ref.n + 64) * sizeof(Py_ssize_t))
            if grown == NULL:
                raise MemoryError()
            self.bucket = <Py_ssize_t*>grown
            self.bucket_cap = ref.n + 64
        if total > self.sorted_cap:
            grown = realloc(self.sorted_spans, (total + 256) * sizeof(int32_t))
            if grown == NULL:
                raise MemoryError()
            self.sorted_spans = <int32_t*>grown
            self.sorted_cap = total + 256
        memset(self.bucket, 0, (ref.n + 1) * sizeof(Py_ssize_t))
        for i in range(0, total, 4):
            self.bucket[self.spans[i + 2] + 1] += 4
        for k in range(ref.n):
            self.bucket[k + 1] += self.bucket[k]
        for i in range(0, total, 4):
            k = self.bucket[self.spans[i + 2]]
            memcpy(self.sorted_spans + k, self.spans + i, 4 * sizeof(int32_t))
            self.bucket[self.spans[i + 2]] = k + 4
        return self._spans_list(self.sorted_spans, total)

    cdef list _spans_list(self, const int32_t* spans, Py_ssize_t total):
        # A copy first: making Python objects can run a collection, whose finalizers
        # could let another thread use this table's scratch arrays meanwhile.
        cdef int32_t* mine = <int32_t*>malloc((total + 1) * sizeof(int32_t))
        cdef list out
        cdef Py_ssize_t i
        if mine == NULL:
            raise MemoryError()
        memcpy(mine, spans, total * sizeof(int32_t))
        try:
            out = PyList_New(total // 4)
            for i in range(0, total, 4):
                PyList_SET_ITEM(out, i // 4, mx_span(_INTS, mine + i))
        finally:
            free(mine)
        return out
