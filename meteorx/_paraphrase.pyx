# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The paraphrase matcher's per-segment work in C (optional twin of the plain Python
in ``meteorx_plugins.paraphrase``, which defines the results).

One :class:`NativeTable` per loaded :class:`meteorx.paraphrase_table.ParaphraseTable`
(shared by every scorer of the process) reads the compiled table straight from its
buffer (the ``mmap``):

* words are interned as their UTF-8 bytes into ids (an open-addressing hash over an
  arena; no Python objects per word);
* a sentence's table phrases are found by Meteor 1.5's trie walk: the value of a
  word's own key comes from the directory; the first time a word is met, its run of
  keys (lines of the keys section) is put in a hash of key bytes -> key number, where
  longer keys are then looked up; each step (key, next word) -> longer key is also
  remembered in a hash table over word ids (bounded);
* a phrase's paraphrase group is decoded once, from the buffer, into arrays of word
  ids, kept in a bounded cache;
* :meth:`NativeTable.candidates` finds where each paraphrase occurs in the other
  sentence with first-occurrence / next-occurrence arrays over word ids, and emits
  the links in the order of the Python definition (tests compare the two lists).

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
    PyObject* PyDict_GetItemWithError(object mapping, object key) except? NULL
    void PyErr_Clear()


#: Distinct words interned before everything is forgotten (checked between sentences).
MAX_WORDS = 500_000
#: Ints of decoded paraphrase groups kept (about 4 bytes each) before they are dropped.
MAX_GROUP_INTS = 8_000_000

#: Trie steps (key, next word) -> longer key remembered before they are forgotten.
MAX_STEPS = 1_000_000
cdef uint64_t _EMPTY = 0xFFFFFFFFFFFFFFFFULL
cdef Py_ssize_t _serial = 0  # numbers the tables (a sentence knows which prepared it)

# the stand-in for a token with a space, or an empty one (as in the Python definition)
cdef str _SAFE = "\x00"


ctypedef struct Word:
    Py_ssize_t off      # in the arena
    int32_t length
    uint32_t hash
    int32_t known       # the directory was consulted for this word
    int32_t run_at      # its runs of keys: runs[run_at : run_at + run_count]
    int32_t run_count
    int32_t stamp       # occurrence index: the sentence indexed last holds the word ...
    int32_t first       # ... first at this position
    uint64_t own        # value of the word's one-word key (0: no phrase starts with it)


ctypedef struct Step:
    uint64_t key        # (key number << 32) | next word id; _EMPTY: a free slot
    int64_t child       # number of the longer key, or -1: there is none


ctypedef struct KeySlot:
    uint32_t hash
    int32_t key         # key number + 1; 0: a free slot


ctypedef struct Run:
    Py_ssize_t first    # key number of the word's own key (the run's first)
    Py_ssize_t count    # keys in the run


cdef uint32_t _FNV_OFFSET = 2166136261u
cdef uint32_t _FNV_PRIME = 16777619u


cdef inline uint32_t _hash(const char* s, Py_ssize_t n) noexcept nogil:
    cdef uint32_t h = _FNV_OFFSET
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ <unsigned char>s[i]) * _FNV_PRIME
    return h


# byte classes in paraphrase lines: 2 a line end, 1 a gap between words (what Java's
# StringTokenizer splits on, line ends aside), 0 part of a word
cdef unsigned char _CLASS[256]
memset(_CLASS, 0, 256)
_CLASS[10] = 2
_CLASS[32] = 1
_CLASS[9] = 1
_CLASS[12] = 1


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


cdef inline uint32_t _hash_bytes(const char* s, Py_ssize_t n) noexcept nogil:
    """A hash of a key's bytes, 8 at a time."""
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL ^ <uint64_t>n
    cdef uint64_t v
    cdef Py_ssize_t i
    while n >= 8:
        memcpy(&v, s, 8)
        h = (h ^ v) * 0xBF58476D1CE4E5B9ULL
        h ^= h >> 31
        s += 8
        n -= 8
    v = 0
    for i in range(n):
        v = (v << 8) | <unsigned char>s[i]
    h = (h ^ v) * 0x94D049BB133111EBULL
    h ^= h >> 29
    return <uint32_t>(h ^ (h >> 32))


cdef class Sentence:
    """A sentence prepared by :meth:`NativeTable.prepare`: word ids and table phrases."""

    cdef readonly tuple tokens
    cdef Py_ssize_t n
    cdef int32_t* ids
    cdef Py_ssize_t phrases
    cdef int32_t* starts
    cdef int32_t* lengths
    cdef int32_t* groups
    cdef Py_ssize_t cap
    cdef Py_ssize_t serial      # of the table that prepared it ...
    cdef Py_ssize_t generation  # ... and of its words

    def __cinit__(self):
        self.ids = NULL
        self.starts = NULL
        self.lengths = NULL
        self.groups = NULL
        self.cap = 0
        self.n = 0
        self.phrases = 0
        self.serial = -1
        self.generation = -1

    def __dealloc__(self):
        free(self.ids)
        free(self.starts)
        free(self.lengths)
        free(self.groups)

    cdef int _add(self, Py_ssize_t start, Py_ssize_t length, uint64_t group) except -1:
        cdef Py_ssize_t cap
        cdef void* a
        cdef void* b
        cdef void* c
        if self.phrases == self.cap:
            cap = 2 * self.cap + 16
            a = realloc(self.starts, cap * sizeof(int32_t))
            if a != NULL:
                self.starts = <int32_t*>a
            b = realloc(self.lengths, cap * sizeof(int32_t))
            if b != NULL:
                self.lengths = <int32_t*>b
            c = realloc(self.groups, cap * sizeof(int32_t))
            if c != NULL:
                self.groups = <int32_t*>c
            if a == NULL or b == NULL or c == NULL:
                raise MemoryError()
            self.cap = cap
        self.starts[self.phrases] = <int32_t>start
        self.lengths[self.phrases] = <int32_t>length
        self.groups[self.phrases] = <int32_t>group
        self.phrases += 1
        return 0

    def __len__(self):
        return self.n

    def phrase_spans(self):
        """The table phrases found: ``(start, words, group number)``, in walk order."""
        return [(self.starts[i], self.lengths[i], self.groups[i]) for i in range(self.phrases)]


cdef class NativeTable:
    """Shared C state of one compiled paraphrase table (see the module docstring).

    ``data``: the compiled file's buffer; ``layout``: its sections ``(offset, length)``
    x 6 (targets, group offsets, keys, values, directory, metadata); ``directory``:
    first word -> ``(start, end, first key)`` or a list of those.
    """

    cdef object _view           # holds the buffer export
    cdef const unsigned char* data
    cdef Py_ssize_t targets_at
    cdef const uint64_t* offsets
    cdef Py_ssize_t ngroups
    cdef const unsigned char* keys
    cdef Py_ssize_t keys_len
    cdef const uint64_t* values
    cdef Py_ssize_t nkeys
    cdef Py_ssize_t* key_off    # nkeys + 1: where each key (line) starts
    cdef int32_t* run_keys      # by a run's first key number: its keys (0: not read yet)
    cdef KeySlot* kslots        # hash of the keys of the runs read: bytes -> key number
    cdef Py_ssize_t kslot_count, nkeyed
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

    cdef int32_t** group_ids    # by group number (1-based): decoded group, or NULL
    cdef Py_ssize_t group_ints
    cdef Py_ssize_t serial
    cdef readonly Py_ssize_t generation
    cdef readonly Py_ssize_t decoded
    cdef public Py_ssize_t max_words
    cdef public Py_ssize_t max_group_ints
    cdef public Py_ssize_t max_steps

    cdef int32_t stamp
    cdef int32_t* next_at       # next occurrence of the word at a position
    cdef Py_ssize_t next_cap
    cdef char* keybuf
    cdef Py_ssize_t keybuf_cap
    cdef int32_t* spans
    cdef Py_ssize_t spans_cap
    cdef int32_t* sorted_spans
    cdef Py_ssize_t sorted_cap
    cdef Py_ssize_t* bucket
    cdef Py_ssize_t bucket_cap
    cdef int32_t** work_groups
    cdef Py_ssize_t work_cap

    def __cinit__(self):
        self.key_off = NULL
        self.run_keys = NULL
        self.kslots = NULL
        self.arena = NULL
        self.words = NULL
        self.slots = NULL
        self.runs = NULL
        self.steps = NULL
        self.group_ids = NULL
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
        cdef Py_ssize_t i, at
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
        self.targets_at = lay[0]
        self.offsets = <const uint64_t*>(self.data + lay[2])
        self.ngroups = lay[3] // 8 - 1
        self.keys = self.data + lay[4]
        self.keys_len = lay[5]
        self.values = <const uint64_t*>(self.data + lay[6])
        self.nkeys = lay[7] // 8
        self.directory = directory
        if self.nkeys >= 0x7FFFFFFF or self.ngroups >= 0x7FFFFFFF:
            raise ValueError("paraphrase table too large for the compiled matcher")
        if self.offsets[self.ngroups] > <uint64_t>lay[1]:
            raise ValueError("bad paraphrase table layout")
        # where each key starts (the keys section is one "\n"-terminated key per line):
        # filled a run at a time, when its first word is met (see _add_run)
        self.key_off = <Py_ssize_t*>malloc((self.nkeys + 1) * sizeof(Py_ssize_t))
        self.run_keys = <int32_t*>calloc(self.nkeys + 1, sizeof(int32_t))
        # room for every key at half load, never grown (zeroed pages cost nothing until
        # keys are put there)
        self.kslot_count = 1024
        while self.kslot_count < 2 * self.nkeys:
            self.kslot_count *= 2
        self.nkeyed = 0
        self.kslots = <KeySlot*>calloc(self.kslot_count, sizeof(KeySlot))
        if self.key_off == NULL or self.run_keys == NULL or self.kslots == NULL:
            raise MemoryError()
        self.group_ids = <int32_t**>calloc(self.ngroups + 2, sizeof(int32_t*))
        if self.group_ids == NULL:
            raise MemoryError()
        global _serial
        _serial += 1
        self.serial = _serial
        self.generation = 0
        self.decoded = 0
        self.group_ints = 0
        self.stamp = 0
        self.max_words = MAX_WORDS
        self.max_group_ints = MAX_GROUP_INTS
        self.max_steps = MAX_STEPS
        self._reset_words(64)

    def __dealloc__(self):
        self._free_groups()
        free(self.group_ids)
        free(self.key_off)
        free(self.run_keys)
        free(self.kslots)
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
        """Distinct words interned (table words and sentence tokens) so far."""
        return self.nwords

    @property
    def group_memory(self):
        """Ints held by decoded paraphrase groups."""
        return self.group_ints

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
        self._reset_steps(4096)  # they name word ids
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

    cdef inline int32_t _intern(self, const char* s, Py_ssize_t n) except -2:
        """The id of the word with UTF-8 bytes ``s[:n]`` (a new id if it is new)."""
        return self._intern_hashed(s, n, _hash(s, n))

    cdef int32_t _intern_hashed(self, const char* s, Py_ssize_t n, uint32_t h) except -2:
        """:meth:`_intern` given the word's :func:`_hash`."""
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
        word.stamp = 0
        word.first = -1
        word.own = 0
        memcpy(self.arena + self.arena_len, s, n)
        self.arena_len += n
        self.slots[j] = w
        self.nwords += 1
        if 2 * self.nwords > self.nslots:
            self._grow_slots()
        return w

    cdef int _add_run(self, Word* word, object entry) except -1:
        """Record one directory entry ``(start, end, first key)`` of ``word``."""
        cdef Py_ssize_t start = entry[0]
        cdef Py_ssize_t end = entry[1]
        cdef Py_ssize_t first = entry[2]
        cdef Py_ssize_t count
        cdef const unsigned char* p
        cdef const unsigned char* stop
        cdef const unsigned char* nl
        cdef void* grown
        if first < 0 or first >= self.nkeys or end < start or end > self.keys_len:
            raise ValueError("corrupt paraphrase table directory")
        count = self.run_keys[first]
        if count == 0:  # first time: note where its keys start, and hash them
            count = self._read_run(first, start, end)
        elif self.key_off[first] != start or self.key_off[first + count] != end + 1:
            raise ValueError("corrupt paraphrase table directory")
        if self.nruns == self.runs_cap:
            grown = realloc(self.runs, 2 * self.runs_cap * sizeof(Run))
            if grown == NULL:
                raise MemoryError()
            self.runs = <Run*>grown
            self.runs_cap *= 2
        self.runs[self.nruns].first = first
        self.runs[self.nruns].count = count
        self.nruns += 1
        word.run_count += 1
        word.own |= self.values[first]
        return 0

    cdef Py_ssize_t _read_run(self, Py_ssize_t first, Py_ssize_t start,
                              Py_ssize_t end) except -1:
        """Index the keys of a run (the lines of ``keys[start:end]``, numbered from
        ``first``): where each starts, and each in the key hash. Returns how many."""
        cdef const unsigned char* p = self.keys + start
        cdef const unsigned char* stop = self.keys + end
        cdef const unsigned char* nl
        cdef Py_ssize_t count = 0, size
        while True:
            if first + count >= self.nkeys:
                raise ValueError("corrupt paraphrase table directory")
            nl = <const unsigned char*>memchr(p, 10, stop - p)
            size = (nl if nl != NULL else stop) - p
            self.key_off[first + count] = p - self.keys
            self._key_put(_hash_bytes(<const char*>p, size), first + count)
            count += 1
            if nl == NULL:
                break
            p = nl + 1
        self.key_off[first + count] = end + 1
        self.run_keys[first] = <int32_t>count
        return count

    cdef int _key_put(self, uint32_t h, Py_ssize_t key) except -1:
        cdef Py_ssize_t mask = self.kslot_count - 1
        cdef Py_ssize_t j = h & mask
        if self.nkeyed >= self.nkeys:
            raise ValueError("corrupt paraphrase table directory")
        while self.kslots[j].key:
            j = (j + 1) & mask
        self.kslots[j].hash = h
        self.kslots[j].key = <int32_t>(key + 1)
        self.nkeyed += 1
        return 0

    cdef Py_ssize_t _key_find(self, const char* key, Py_ssize_t n) noexcept nogil:
        """The number of the key with bytes ``key[:n]`` among the runs read, or -1."""
        cdef uint32_t h = _hash_bytes(key, n)
        cdef Py_ssize_t mask = self.kslot_count - 1
        cdef Py_ssize_t j = h & mask
        cdef int32_t k
        while True:
            k = self.kslots[j].key - 1
            if k < 0:
                return -1
            if (self.kslots[j].hash == h and self.key_off[k + 1] - 1 - self.key_off[k] == n
                    and memcmp(self.keys + self.key_off[k], key, n) == 0):
                return k
            j = (j + 1) & mask

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

    cdef Py_ssize_t _search(self, const Run* run, Py_ssize_t lo, const char* key,
                            Py_ssize_t n) noexcept nogil:
        """The number of ``key`` among the keys ``lo ..`` of ``run`` (sorted), or -1."""
        cdef Py_ssize_t hi = run.first + run.count
        cdef Py_ssize_t mid, size, common
        cdef int c
        while lo < hi:
            mid = (lo + hi) // 2
            size = self.key_off[mid + 1] - 1 - self.key_off[mid]
            common = size if size < n else n
            c = memcmp(self.keys + self.key_off[mid], key, common)
            if c == 0:
                c = (size > n) - (size < n)
            if c == 0:
                return mid
            if c < 0:
                lo = mid + 1
            else:
                hi = mid
        return -1

    cdef inline Py_ssize_t _step_slot(self, uint64_t key) noexcept nogil:
        cdef Py_ssize_t mask = self.step_slots - 1
        cdef Py_ssize_t j = <Py_ssize_t>((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask
        while self.steps[j].key != key and self.steps[j].key != _EMPTY:
            j = (j + 1) & mask
        return j

    cdef int _reset_steps(self, Py_ssize_t slots) except -1:
        free(self.steps)
        self.steps = <Step*>malloc(slots * sizeof(Step))
        if self.steps == NULL:
            raise MemoryError()
        memset(self.steps, 0xFF, slots * sizeof(Step))
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
            self.steps = NULL
            self._reset_steps(2 * n)
            for i in range(n):
                if old[i].key != _EMPTY:
                    j = self._step_slot(old[i].key)
                    self.steps[j] = old[i]
                    self.nsteps += 1
            free(old)
        j = self._step_slot(key)
        if self.steps[j].key == _EMPTY:
            self.nsteps += 1
        self.steps[j].key = key
        self.steps[j].child = child
        return 0

    cdef Py_ssize_t _key_text(self, const char** text, const Py_ssize_t* size, Py_ssize_t k,
                              Py_ssize_t j) except -1:
        """Words ``k ..= j`` joined by spaces into ``keybuf``; returns the length."""
        cdef Py_ssize_t i, at = 0, need = 0
        for i in range(k, j + 1):
            need += size[i] + 1
        self._key_reserve(need)
        for i in range(k, j + 1):
            if i > k:
                self.keybuf[at] = 32
                at += 1
            memcpy(self.keybuf + at, text[i], size[i])
            at += size[i]
        return at

    # -- sentences -------------------------------------------------------------------

    cdef int _fill(self, Sentence s) except -1:
        """Word ids and table phrases of ``s.tokens`` (Meteor 1.5's trie walk)."""
        cdef tuple tokens = s.tokens
        cdef Py_ssize_t n = len(tokens)
        cdef Py_ssize_t k, length, j, r, cur, found, keylen
        cdef const char** text = NULL
        cdef Py_ssize_t* size = NULL
        cdef const char* utf8
        cdef Py_ssize_t nbytes
        cdef object token
        cdef int32_t w
        cdef Word* word
        cdef uint64_t value, step
        cdef Run* run
        cdef Py_ssize_t slot
        free(s.ids)
        s.ids = NULL
        s.n = 0
        s.phrases = 0
        s.serial = -1
        s.generation = -1
        if n == 0:
            s.serial = self.serial
            s.generation = self.generation
            return 0
        s.ids = <int32_t*>malloc(n * sizeof(int32_t))
        text = <const char**>malloc(n * sizeof(char*))
        size = <Py_ssize_t*>malloc(n * sizeof(Py_ssize_t))
        if s.ids == NULL or text == NULL or size == NULL:
            free(text)
            free(size)
            raise MemoryError()
        s.n = n
        try:
            for k in range(n):
                token = tokens[k]
                if not isinstance(token, str):
                    raise TypeError(f"tokens must be strings, not {type(token).__name__}")
                if not token or " " in <str>token:
                    token = _SAFE
                utf8 = PyUnicode_AsUTF8AndSize(token, &nbytes)
                if utf8 == NULL:  # not encodable (a lone surrogate): matches nothing
                    PyErr_Clear()
                    s.ids[k] = -1
                    text[k] = NULL
                    size[k] = 0
                    continue
                text[k] = utf8
                size[k] = nbytes
                w = self._intern(utf8, nbytes)
                s.ids[k] = w
                if not self.words[w].known:
                    self._consult(w, token)
            # the walk: at each start, longer keys while a longer phrase can follow
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
                        # looked up in the key hash
                        step = (<uint64_t>cur << 32) | <uint32_t>s.ids[j]
                        slot = self._step_slot(step)
                        if self.steps[slot].key == step:
                            found = self.steps[slot].child
                        else:
                            keylen = self._key_text(text, size, k, j)
                            found = self._key_find(self.keybuf, keylen)
                            self._step_put(step, found)
                        if found < 0:
                            break
                        cur = found
                        value = self.values[found]
                    else:  # a word with several runs of keys (not made by the compiler)
                        keylen = self._key_text(text, size, k, j)
                        value = 0
                        for r in range(word.run_count):
                            run = &self.runs[word.run_at + r]
                            found = self._search(run, run.first + 1, self.keybuf, keylen)
                            if found >= 0:
                                value |= self.values[found]
        except BaseException:
            s.phrases = 0
            raise
        finally:
            free(text)
            free(size)
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
            self._free_groups()
            self._reset_words(64)
            self.generation += 1
        self._fill(s)
        return s

    # -- paraphrase groups -----------------------------------------------------------

    cdef void _free_groups(self) noexcept:
        cdef Py_ssize_t g
        if self.group_ids == NULL:
            return
        if self.group_ints:
            for g in range(self.ngroups + 2):
                if self.group_ids[g] != NULL:
                    free(self.group_ids[g])
                    self.group_ids[g] = NULL
        self.group_ints = 0

    cdef int32_t* _group(self, int32_t g) except NULL:
        """Group ``g`` (numbered from 1) decoded: ``[count, (words, id...)...]``."""
        cdef int32_t* out = self.group_ids[g] if 0 < g <= self.ngroups else NULL
        if out != NULL:
            return out
        if g <= 0 or g > self.ngroups:
            raise ValueError(f"no paraphrase group {g}")
        cdef Py_ssize_t start = self.targets_at + <Py_ssize_t>self.offsets[g - 1]
        cdef Py_ssize_t stop = self.targets_at + <Py_ssize_t>self.offsets[g]
        cdef const unsigned char* p = self.data + start
        cdef Py_ssize_t n = stop - start
        cdef Py_ssize_t i, at, count_at, a
        cdef int32_t here
        cdef unsigned char c
        cdef uint32_t h
        cdef object text = None
        cdef const char* utf8
        cdef void* shrunk
        if not _is_ascii(p, n):  # decoded like the Python definition: bad bytes -> U+FFFD
            text = (<const char*>p)[:n].decode("utf-8", "replace")
            utf8 = PyUnicode_AsUTF8AndSize(text, &n)
            if utf8 == NULL:
                raise ValueError("paraphrase group cannot be decoded")
            p = <const unsigned char*>utf8
        # each word, and each line's size, stands for at least one byte
        out = <int32_t*>malloc((n + 2) * sizeof(int32_t))
        if out == NULL:
            raise MemoryError()
        out[0] = 0
        at = 1
        i = 0
        try:
            while i < n:  # a line: its words (runs of non-gap bytes), hashed as read
                count_at = at
                at += 1
                here = 0
                while i < n:
                    c = p[i]
                    if _CLASS[c] == 2:
                        break
                    if _CLASS[c] == 1:
                        i += 1
                        continue
                    a = i
                    h = _FNV_OFFSET
                    while True:
                        h = (h ^ c) * _FNV_PRIME
                        i += 1
                        if i == n:
                            break
                        c = p[i]
                        if _CLASS[c]:
                            break
                    out[at] = self._intern_hashed(<const char*>(p + a), i - a, h)
                    at += 1
                    here += 1
                i += 1  # past the line end
                if here:
                    out[count_at] = here
                    out[0] += 1
                else:
                    at = count_at  # a blank line: dropped
        except BaseException:
            free(out)
            raise
        shrunk = realloc(out, at * sizeof(int32_t))
        if shrunk != NULL:
            out = <int32_t*>shrunk
        self.group_ids[g] = out
        self.group_ints += at
        self.decoded += 1
        return out

    def paraphrases(self, int32_t group):
        """Group ``group`` decoded, as tuples of words (for tests)."""
        cdef int32_t* out = self._group(group)
        cdef Py_ssize_t at = 1
        cdef int32_t i, j, size
        cdef Word* word
        result = []
        for i in range(out[0]):
            size = out[at]
            line = []
            for j in range(size):
                word = &self.words[out[at + 1 + j]]
                line.append(self.arena[word.off : word.off + word.length].decode("utf-8"))
            result.append(tuple(line))
            at += 1 + size
        return result

    # -- links -----------------------------------------------------------------------

    cdef int _index(self, Sentence s) except -1:
        """Occurrence index of ``s``: each word's first position, and ``next_at``."""
        cdef Py_ssize_t p
        cdef int32_t w
        cdef Word* word
        cdef void* grown
        if s.n > self.next_cap:
            grown = realloc(self.next_at, (s.n + 64) * sizeof(int32_t))
            if grown == NULL:
                raise MemoryError()
            self.next_at = <int32_t*>grown
            self.next_cap = s.n + 64
        if self.stamp >= 0x7FFFFFF0:
            for p in range(self.nwords):
                self.words[p].stamp = 0
            self.stamp = 0
        self.stamp += 1
        for p in range(s.n - 1, -1, -1):
            w = s.ids[p]
            if w < 0:
                continue
            word = &self.words[w]
            self.next_at[p] = word.first if word.stamp == self.stamp else -1
            word.stamp = self.stamp
            word.first = <int32_t>p
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

    cdef Py_ssize_t _links(self, Sentence s, int32_t** groups, Sentence other, bint flip,
                           Py_ssize_t used) except -1:
        """Append to ``spans`` (4 ints each, from int ``used``) every phrase of ``s``,
        paraphrase, occurrence in ``other`` (indexed last): ``(position, words, start,
        length)``, or ``(start, length, position, words)`` when ``flip``."""
        cdef Py_ssize_t i, at, j, m
        cdef int32_t count, c, size, k, length
        cdef const int32_t* g
        cdef const int32_t* line
        cdef const int32_t* ids = other.ids
        cdef Py_ssize_t n = other.n
        cdef Word* word
        cdef int32_t stamp = self.stamp
        for i in range(s.phrases):
            g = groups[i]
            k = s.starts[i]
            length = s.lengths[i]
            count = g[0]
            at = 1
            for c in range(count):
                size = g[at]
                line = g + at + 1
                at += 1 + size
                word = &self.words[line[0]]
                if word.stamp != stamp:
                    continue
                m = word.first
                while m >= 0:
                    if m + size > n:
                        break  # later occurrences do not fit either
                    j = 1
                    while j < size and ids[m + j] == line[j]:
                        j += 1
                    if j == size:
                        if used + 4 > self.spans_cap:
                            self._span_reserve(used + 4)
                        if flip:
                            self.spans[used] = k
                            self.spans[used + 1] = length
                            self.spans[used + 2] = <int32_t>m
                            self.spans[used + 3] = size
                        else:
                            self.spans[used] = <int32_t>m
                            self.spans[used + 1] = size
                            self.spans[used + 2] = k
                            self.spans[used + 3] = length
                        used += 4
                    m = self.next_at[m]
        return used

    def candidates(self, Sentence hyp, Sentence ref):
        """The links of ``hyp`` and ``ref`` (prepared by this table): ``(hyp start, hyp
        words, ref start, ref words)`` in the order of the Python definition."""
        cdef Py_ssize_t i, first, total, k, need
        cdef int32_t** groups
        cdef void* grown
        # prepared before the words were forgotten (or by another table): again
        if hyp.generation != self.generation or hyp.serial != self.serial:
            self._fill(hyp)
        if ref.generation != self.generation or ref.serial != self.serial:
            self._fill(ref)
        if self.group_ints > self.max_group_ints:
            self._free_groups()
        need = ref.phrases + hyp.phrases
        if need > self.work_cap:
            grown = realloc(self.work_groups, (need + 64) * sizeof(int32_t*))
            if grown == NULL:
                raise MemoryError()
            self.work_groups = <int32_t**>grown
            self.work_cap = need + 64
        groups = self.work_groups
        for i in range(ref.phrases):
            groups[i] = self._group(ref.groups[i])
        for i in range(hyp.phrases):
            groups[ref.phrases + i] = self._group(hyp.groups[i])
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
            out = [None] * (total // 4)
            for i in range(0, total, 4):
                out[i // 4] = (mine[i], mine[i + 1], mine[i + 2], mine[i + 3])
        finally:
            free(mine)
        return out
