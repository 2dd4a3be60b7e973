# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, infer_types=False
"""C versions of the two alignment searches.

Each function here is the twin of a pure-Python function (``meteor15.beam_search`` and
``optimal.optimal_search``) and must return exactly what that function returns; the
module docstrings of ``meteor15.py`` and ``optimal.py`` explain the algorithms. Sets of
hypothesis words are bitsets of ``W`` 64-bit words over the words that can conflict,
so sentence length is not limited. Both functions return None for input they cannot
read (a span out of range, a stage without a weight, a field that is not a C int); the
caller then runs the pure-Python twin, which copes with any well-formed input, and
raises ``meteorx.align.common.bad_candidates`` for the rest.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from libc.stdint cimport uint64_t
from libc.string cimport memcpy, memmove, memset

ctypedef long long i64

# Work budget of the exact search per allowed state (twin of optimal_dp.WORK_PER_STATE).
cdef enum:
    _WORK_PER_STATE = 1000


# -- memory -----------------------------------------------------------------------------


cdef enum:
    _CHUNK = 65536  # arena chunk; bigger requests get their own block


cdef class _Mem:
    """Owns every buffer of one call and frees them all when the call drops it.

    Small buffers are carved from 64 KB chunks (a typical sentence needs one chunk, so
    one malloc per call instead of dozens); each carries its size just before it, so
    ``grow`` can copy it. Buffers are 16-byte aligned and zeroed.
    """

    cdef void** blocks
    cdef int n, cap
    cdef char* top      # free space of the current chunk
    cdef size_t left

    def __cinit__(self):
        self.blocks = NULL
        self.n = 0
        self.cap = 0
        self.top = NULL
        self.left = 0

    def __dealloc__(self):
        cdef int k
        for k in range(self.n):
            PyMem_Free(self.blocks[k])
        PyMem_Free(self.blocks)

    cdef char* block(self, size_t size) except NULL:
        cdef void** grown
        cdef void* p
        if self.n == self.cap:
            grown = <void**>PyMem_Realloc(self.blocks, (2 * self.cap + 8) * sizeof(void*))
            if grown == NULL:
                raise MemoryError()
            self.blocks = grown
            self.cap = 2 * self.cap + 8
        p = PyMem_Malloc(size)
        if p == NULL:
            raise MemoryError()
        self.blocks[self.n] = p
        self.n += 1
        return <char*>p

    cdef void* alloc(self, size_t size) except NULL:
        """Zeroed buffer of ``size`` bytes."""
        cdef size_t need = ((size + 15) & ~(<size_t>15)) + 16  # + size header
        cdef char* p
        if need > _CHUNK // 4:
            p = self.block(need)
        else:
            if need > self.left:
                self.top = self.block(_CHUNK)
                self.left = _CHUNK
            p = self.top
            self.top += need
            self.left -= need
        memset(p, 0, need)
        (<size_t*>p)[0] = size
        return p + 16

    cdef void* grow(self, void* old, size_t size) except NULL:
        """A copy of buffer ``old`` resized to ``size`` bytes (the rest zeroed)."""
        cdef size_t old_size = (<size_t*>(<char*>old - 16))[0]
        cdef void* p = self.alloc(size)
        memcpy(p, old, old_size if old_size < size else size)
        return p


# -- bitsets ----------------------------------------------------------------------------


cdef inline bint _any_set(const uint64_t* u, int b0, int length) noexcept nogil:
    cdef int b
    for b in range(b0, b0 + length):
        if (u[b >> 6] >> (b & 63)) & 1:
            return True
    return False


cdef inline void _set_bits(uint64_t* u, int b0, int length) noexcept nogil:
    cdef int b
    for b in range(b0, b0 + length):
        u[b >> 6] |= (<uint64_t>1) << (b & 63)


# -- reading the candidates -------------------------------------------------------------


cdef int _read(list cands, int n, int* rs, int* rl, int* hs, int* hl, int* st,
               Py_ssize_t hyp_len, Py_ssize_t ref_len) except -2:
    """Copy the Match fields into C arrays; 0 if well formed, -1 otherwise."""
    cdef int i
    cdef object m
    cdef tuple t
    cdef i64 a, b, c, d, e
    for i in range(n):
        m = cands[i]
        if not isinstance(m, tuple) or len(<tuple>m) != 5:
            return -1
        t = <tuple>m
        try:
            a = t[0]
            b = t[1]
            c = t[2]
            d = t[3]
            e = t[4]
        except (TypeError, OverflowError):
            return -1
        if b < 1 or d < 1 or a < 0 or c < 0 or a + b > ref_len or c + d > hyp_len:
            return -1
        if e < -2147483647 or e > 2147483647:
            return -1
        rs[i] = <int>a
        rl[i] = <int>b
        hs[i] = <int>c
        hl[i] = <int>d
        st[i] = <int>e
    return 0


cdef int _isolated(int n, const int* rs, const int* rl, const int* hs, const int* hl,
                   int hyp_len, int ref_len, char* out, _Mem mem) except -1:
    """out[i] = 1 when candidate i shares no word with any other (the twins' "fixed")."""
    cdef int* rc = <int*>mem.alloc(ref_len * sizeof(int))
    cdef int* hc = <int*>mem.alloc(hyp_len * sizeof(int))
    cdef int* bs = <int*>mem.alloc(ref_len * sizeof(int))
    cdef int i, k
    cdef bint ok
    for i in range(n):
        bs[rs[i]] += 1
        for k in range(rs[i], rs[i] + rl[i]):
            rc[k] += 1
        for k in range(hs[i], hs[i] + hl[i]):
            hc[k] += 1
    for i in range(n):
        ok = bs[rs[i]] == 1
        if ok:
            for k in range(rs[i], rs[i] + rl[i]):
                if rc[k] != 1:
                    ok = False
                    break
        if ok:
            for k in range(hs[i], hs[i] + hl[i]):
                if hc[k] != 1:
                    ok = False
                    break
        out[i] = ok
    return 0


cdef list _in_ref_order(int n_chosen, const int* chosen, const int* rs, int ref_len,
                        int* chunks_out, const int* rl, const int* hs, const int* hl,
                        _Mem mem):
    """Chosen indices sorted by reference start, and their chunk count."""
    cdef int* at = <int*>mem.alloc(ref_len * sizeof(int))
    cdef int k, j, i
    cdef int chunks = 0
    cdef i64 last_ref_end = -1
    cdef i64 last_hyp_end = -1
    cdef list out = []
    for j in range(ref_len):
        at[j] = -1
    for k in range(n_chosen):
        at[rs[chosen[k]]] = chosen[k]
    for j in range(ref_len):
        i = at[j]
        if i < 0:
            continue
        out.append(i)
        if rs[i] != last_ref_end or hs[i] != last_hyp_end:
            chunks += 1
        last_ref_end = rs[i] + rl[i]
        last_hyp_end = hs[i] + hl[i]
    chunks_out[0] = chunks
    return out


# -- Meteor 1.5 beam search -------------------------------------------------------------


# Ranks are packed so that comparing two is one or two integer comparisons: ``hi`` is
# ((negcov + _COV_BIAS) << 32) | chunks, so "fewer uncovered words, then fewer chunks"
# is ``hi`` ascending, and a match's gain or a new chunk is plain arithmetic on ``hi``
# (negcov stays within 32 bits as long as hyp_len + ref_len < 2**30, checked).
cdef enum:
    _COV_BIAS = 1 << 31


cdef struct Item:
    uint64_t hi
    i64 dist
    i64 seq  # generation order within the step: equal ranks keep it (a stable sort)


cdef inline bint _item_lt(const Item* a, const Item* b) noexcept nogil:
    if a.hi != b.hi:
        return a.hi < b.hi
    if a.dist != b.dist:
        return a.dist < b.dist
    return a.seq < b.seq


cdef inline void _offer(Item* a, Py_ssize_t* n, Py_ssize_t cap, Item* it) noexcept nogil:
    """Keep the ``cap`` smallest items seen in ``a[0:n]``, sorted (ranks are distinct:
    ``seq`` breaks ties, as a stable sort's order does). The worst kept is a[n - 1]."""
    cdef Py_ssize_t lo = 0, hi = n[0], mid, last
    if n[0] == cap:
        if not _item_lt(it, &a[cap - 1]):
            return
        hi = cap - 1  # the worst item drops out
        last = cap - 1
    else:
        last = n[0]
        n[0] += 1
    while lo < hi:  # the first position whose item ranks after ``it``
        mid = (lo + hi) >> 1
        if _item_lt(&a[mid], it):
            lo = mid + 1
        else:
            hi = mid
    if last > lo:
        memmove(&a[lo + 1], &a[lo], (last - lo) * sizeof(Item))
    a[lo] = it[0]


cdef inline void _keep(Item* a, Py_ssize_t* n, Py_ssize_t cap, bint bounded,
                       Item* it) noexcept nogil:
    """Add a successor: among the ``cap`` best (:func:`_offer`) when there may be more
    than ``cap``, else at the end (they are sorted once all are in)."""
    if bounded:
        _offer(a, n, cap, it)
    else:
        a[n[0]] = it[0]
        n[0] += 1


cdef struct Path:
    uint64_t hi
    i64 dist
    i64 idx
    i64 last
    int node
    int slot


cdef inline bint _path_lt(const Path* a, const Path* b) noexcept nogil:
    if a.hi != b.hi:
        return a.hi < b.hi
    return a.dist < b.dist


cdef inline void _spread(Path* paths, Py_ssize_t npaths, i64 idx, i64 last) noexcept nogil:
    """End a "uniform" stretch: every path takes the shared (idx, last) again."""
    cdef Py_ssize_t p
    for p in range(npaths):
        paths[p].idx = idx
        paths[p].last = last


cdef uint64_t* _grow_pool(_Mem mem, uint64_t* pool, Path* paths, Py_ssize_t npaths, int half,
                          Py_ssize_t pcap, Py_ssize_t newcap, int W) except NULL:
    """A pool with room for ``newcap`` paths per half; live paths move to half 0."""
    cdef uint64_t* grown = <uint64_t*>mem.alloc(2 * newcap * W * sizeof(uint64_t))
    cdef Py_ssize_t p
    for p in range(npaths):
        memcpy(grown + p * W, pool + paths[p].slot * W, W * sizeof(uint64_t))
        paths[p].slot = <int>p
    return grown


def meteor15(candidates, Py_ssize_t hyp_len, Py_ssize_t ref_len, exact_stages, Py_ssize_t beam):
    """Twin of ``meteor15.beam_search``: (chosen indices by reference start, chunks)."""
    cdef list cands = candidates if type(candidates) is list else list(candidates)
    cdef int n = len(cands)
    cdef _Mem mem = _Mem()
    if beam < 1 or hyp_len + ref_len >= (1 << 30):
        return None
    if n == 0:
        return [], 0
    cdef int* rs = <int*>mem.alloc(n * sizeof(int))
    cdef int* rl = <int*>mem.alloc(n * sizeof(int))
    cdef int* hs = <int*>mem.alloc(n * sizeof(int))
    cdef int* hl = <int*>mem.alloc(n * sizeof(int))
    cdef int* st = <int*>mem.alloc(n * sizeof(int))
    if _read(cands, n, rs, rl, hs, hl, st, hyp_len, ref_len) < 0:
        return None
    cdef int H = <int>hyp_len
    cdef int R = <int>ref_len
    cdef i64* gain = <i64*>mem.alloc(n * sizeof(i64))
    cdef i64* absd = <i64*>mem.alloc(n * sizeof(i64))
    cdef char exact_cache[64]
    cdef int i, j, k, p, s
    memset(exact_cache, 2, 64)
    for i in range(n):
        s = st[i]
        if 0 <= s < 64:
            if exact_cache[s] == 2:
                exact_cache[s] = 1 if s in exact_stages else 0
            j = exact_cache[s]
        else:
            j = 1 if s in exact_stages else 0
        gain[i] = hl[i] + rl[i] if j else hl[i] // 2 + rl[i] // 2
        absd[i] = rs[i] - hs[i] if rs[i] >= hs[i] else hs[i] - rs[i]

    cdef char* fixed = <char*>mem.alloc(n)
    _isolated(n, rs, rl, hs, hl, H, R, fixed, mem)
    cdef int* fixed_at = <int*>mem.alloc(R * sizeof(int))
    cdef char* fixed_cov = <char*>mem.alloc(R)
    cdef int* bstart = <int*>mem.alloc((R + 1) * sizeof(int))
    cdef int* bl = <int*>mem.alloc(n * sizeof(int))
    cdef int* hbit = <int*>mem.alloc(H * sizeof(int))
    cdef int* bit0 = <int*>mem.alloc(n * sizeof(int))
    cdef int n_fixed = 0
    cdef int chunks = 0
    for j in range(R):
        fixed_at[j] = -1
    for i in range(n):
        if fixed[i]:
            n_fixed += 1
            fixed_at[rs[i]] = i
            for k in range(rs[i], rs[i] + rl[i]):
                fixed_cov[k] = 1
        else:
            bstart[rs[i] + 1] += 1
            for k in range(hs[i], hs[i] + hl[i]):
                hbit[k] = 1
    if n_fixed == n:
        for i in range(n):
            bl[i] = i
        out = _in_ref_order(n, bl, rs, R, &chunks, rl, hs, hl, mem)
        return out, chunks
    # Buckets of the non-fixed candidates by reference start, in the given order.
    cdef i64* gmax = <i64*>mem.alloc(R * sizeof(i64))
    for i in range(n):
        if not fixed[i] and gain[i] > gmax[rs[i]]:
            gmax[rs[i]] = gain[i]
    for j in range(R):
        bstart[j + 1] += bstart[j]
    cdef int* fill = <int*>mem.alloc((R + 1) * sizeof(int))
    memcpy(fill, bstart, (R + 1) * sizeof(int))
    for i in range(n):
        if not fixed[i]:
            bl[fill[rs[i]]] = i
            fill[rs[i]] += 1
    # Dense bit numbers for the hypothesis words that non-fixed candidates cover.
    cdef int nbits = 0
    for k in range(H):
        if hbit[k]:
            hbit[k] = nbits
            nbits += 1
        else:
            hbit[k] = -1
    for i in range(n):
        if not fixed[i]:
            bit0[i] = hbit[hs[i]]
    cdef int W = (nbits + 63) >> 6

    # The beam: Path structs in rank order; each path's used words live in slot
    # ``path.slot`` of a pool with two halves (successors are written to the other half).
    cdef Py_ssize_t pcap = 8
    cdef Py_ssize_t hcap = 8
    cdef Py_ssize_t npaths = 1
    cdef Py_ssize_t nh, need, r, q
    cdef int half = 0
    cdef Path* paths = <Path*>mem.alloc(pcap * sizeof(Path))
    cdef Path* nxt = <Path*>mem.alloc(pcap * sizeof(Path))
    cdef uint64_t* pool = <uint64_t*>mem.alloc(2 * pcap * W * sizeof(uint64_t))
    cdef Item* heap = <Item*>mem.alloc(hcap * sizeof(Item))
    # What each generated item (by its seq) becomes: its parent path and the candidate
    # it takes (>= 0), or -1 (the parent skips to j + 1), or -2 (the parent, unchanged).
    cdef Py_ssize_t scap = 64
    cdef int* item_parent = <int*>mem.alloc(scap * sizeof(int))
    cdef int* item_cand = <int*>mem.alloc(scap * sizeof(int))
    cdef Path* swap
    cdef Item it, tmp, lb
    cdef Path pt, pp
    cdef int ncap = 64
    cdef int nnodes = 0
    cdef int* node_cand = <int*>mem.alloc(ncap * sizeof(int))
    cdef int* node_prev = <int*>mem.alloc(ncap * sizeof(int))
    cdef i64 dist
    cdef i64 seq
    cdef bint as_heap, children, skip_dead
    cdef int ext
    cdef int* starts_at = <int*>mem.alloc(H * sizeof(int))
    cdef int* starts_n = <int*>mem.alloc(H * sizeof(int))
    cdef int ext_left
    cdef const uint64_t* pu
    for k in range(H):
        starts_at[k] = -1
    paths[0].hi = (<uint64_t>_COV_BIAS) << 32
    paths[0].dist = 0
    paths[0].idx = 0
    paths[0].last = -1
    paths[0].node = -1
    paths[0].slot = 0
    # Every path takes every fixed candidate (a fixed span overlaps no other candidate,
    # so no path is ever inside another match there), so fixed matches are not recorded
    # per path but added at the end. While all paths share (idx, last) ("uniform"), a
    # step without branching changes every path's rank alike, which leaves the ranking
    # and the stable order as they are: only the shared (idx, last) is tracked then.
    cdef bint uniform = True
    cdef i64 u_idx = 0
    cdef i64 u_last = -1
    for j in range(R + 1):
        if j == R or fixed_cov[j] or bstart[j] == bstart[j + 1]:
            if uniform and not (j < R and fixed_cov[j] and fixed_at[j] < 0 and j >= u_idx):
                if j == R or j < u_idx:
                    pass
                elif fixed_cov[j]:
                    i = fixed_at[j]
                    u_idx = rs[i] + rl[i]
                    u_last = hs[i] + hl[i]
                else:
                    u_last = -1
                    u_idx = j + 1
                continue
            if uniform:
                _spread(paths, npaths, u_idx, u_last)
                uniform = False
            # Each path moves (or dies) in place, then a stable re-sort.
            q = 0
            for p in range(npaths):
                pt = paths[p]
                if j == R:
                    if pt.last != -1:
                        pt.hi += 1  # one more chunk
                elif j < pt.idx:
                    pass
                elif fixed_cov[j]:
                    i = fixed_at[j]
                    if i < 0:
                        continue  # the path dies (as in the reference; never happens)
                    pt.hi -= (<uint64_t>gain[i]) << 32
                    if pt.last != -1 and hs[i] != pt.last:
                        pt.hi += 1
                    pt.dist += absd[i]
                    pt.idx = rs[i] + rl[i]
                    pt.last = hs[i] + hl[i]
                else:  # nothing starts here: close the chunk
                    if pt.last != -1:
                        pt.hi += 1
                    pt.last = -1
                    pt.idx = j + 1
                # stable insertion into paths[0:q]
                r = q
                while r > 0 and _path_lt(&pt, &paths[r - 1]):
                    paths[r] = paths[r - 1]
                    r -= 1
                paths[r] = pt
                q += 1
            # If every path died (unchanged), keep the first, as the reference does.
            npaths = q if q > 0 else 1
            uniform = True
            for p in range(1, npaths):
                if paths[p].idx != paths[0].idx or paths[p].last != paths[0].last:
                    uniform = False
                    break
            if uniform:
                u_idx = paths[0].idx
                u_last = paths[0].last
            continue
        if uniform:
            _spread(paths, npaths, u_idx, u_last)
            uniform = False
        # Successors, at most npaths * (bucket + 1); keep the best ``beam``.
        need = npaths * (bstart[j + 1] - bstart[j] + 1)
        as_heap = need > beam
        if as_heap:
            need = beam
        if need > hcap:
            hcap = need
            heap = <Item*>mem.grow(heap, hcap * sizeof(Item))
        if npaths * (bstart[j + 1] - bstart[j] + 1) > scap:
            scap = 2 * npaths * (bstart[j + 1] - bstart[j] + 1)
            item_parent = <int*>mem.grow(item_parent, scap * sizeof(int))
            item_cand = <int*>mem.grow(item_cand, scap * sizeof(int))
        nh = 0
        seq = 0
        for k in range(bstart[j], bstart[j + 1]):
            i = hs[bl[k]]
            if starts_at[i] != j:
                starts_at[i] = j
                starts_n[i] = 0
            starts_n[i] += 1
        for p in range(npaths):
            pt = paths[p]
            if as_heap and nh == need:
                # Every item of this path ranks at best (negcov - the bucket's best gain,
                # chunks, dist), and later paths rank no better: once that cannot beat
                # the worst kept item, no remaining item can (equal ranks lose to the
                # earlier item, as in a stable sort).
                lb.hi = pt.hi - ((<uint64_t>gmax[j]) << 32)
                lb.dist = pt.dist
                lb.seq = seq
                if not _item_lt(&lb, &heap[nh - 1]):
                    break
                # Tighter, for this path alone: a child adds a chunk unless it extends.
                if pt.last != -1 and j >= pt.idx and not (pt.last < H and starts_at[pt.last] == j):
                    lb.hi += 1
                    if not _item_lt(&lb, &heap[nh - 1]):
                        continue
            if j < pt.idx:
                it.hi = pt.hi
                it.dist = pt.dist
                it.seq = seq
                item_parent[seq] = <int>p
                item_cand[seq] = -2
                seq += 1
                _keep(heap, &nh, need, as_heap, &it)
                continue
            pu = pool + pt.slot * W
            dist = pt.dist
            # Once the heap is full, the best rank a remaining child of this path can
            # have is (negcov - best gain, chunks + 0/1, dist so far); dist only grows, so
            # when that loses, so does every later child; and when the skipping path's
            # own (negcov, chunks) already loses, its distance is not needed either.
            # ext_left: candidates still ahead that start where this path's match ends
            ext_left = 0
            if pt.last != -1 and pt.last < H and starts_at[pt.last] == j:
                ext_left = starts_n[pt.last]
            children = True
            skip_dead = False
            for k in range(bstart[j], bstart[j + 1]):
                i = bl[k]
                if _any_set(pu, bit0[i], hl[i]):
                    if hs[i] == pt.last:
                        ext_left -= 1
                    continue
                ext = 1 if pt.last != -1 and ext_left <= 0 else 0  # counts this one too
                if hs[i] == pt.last:
                    ext_left -= 1
                if children and as_heap and nh == need:
                    lb.hi = pt.hi - ((<uint64_t>gmax[j]) << 32) + <uint64_t>ext
                    lb.dist = dist
                    lb.seq = seq
                    if not _item_lt(&lb, &heap[nh - 1]):
                        children = False
                        lb.hi = pt.hi + 1 if pt.last != -1 else pt.hi
                        if not _item_lt(&lb, &heap[nh - 1]):
                            skip_dead = True
                            break
                if not children:
                    dist += absd[i]
                    continue
                it.hi = pt.hi - ((<uint64_t>gain[i]) << 32)
                if pt.last != -1 and hs[i] != pt.last:
                    it.hi += 1
                it.dist = dist
                it.seq = seq
                seq += 1
                dist += absd[i]  # the slip: the skipping path pays
                if as_heap and nh == need and not _item_lt(&it, &heap[nh - 1]):
                    continue  # would not be kept
                item_parent[it.seq] = <int>p
                item_cand[it.seq] = i
                _keep(heap, &nh, need, as_heap, &it)
            if skip_dead:
                continue
            it.hi = pt.hi + 1 if pt.last != -1 else pt.hi
            it.dist = dist
            it.seq = seq
            item_parent[seq] = <int>p
            item_cand[seq] = -1
            seq += 1
            _keep(heap, &nh, need, as_heap, &it)
        if not as_heap:  # stable insertion sort: the items are nearly in order already
            # (with as_heap, _offer kept them sorted)
            for r in range(1, nh):
                tmp = heap[r]
                q = r
                while q > 0 and _item_lt(&tmp, &heap[q - 1]):
                    heap[q] = heap[q - 1]
                    q -= 1
                heap[q] = tmp
        if nh > pcap:  # room for nh paths in each half of the pool
            pool = _grow_pool(mem, pool, paths, npaths, half, pcap, nh, W)
            half = 0
            pcap = nh
            paths = <Path*>mem.grow(paths, pcap * sizeof(Path))
            nxt = <Path*>mem.grow(nxt, pcap * sizeof(Path))
        if nnodes + nh > ncap:
            ncap = 2 * (nnodes + nh)
            node_cand = <int*>mem.grow(node_cand, ncap * sizeof(int))
            node_prev = <int*>mem.grow(node_prev, ncap * sizeof(int))
        half = 1 - half
        for r in range(nh):
            q = heap[r].seq
            pp = paths[item_parent[q]]
            i = item_cand[q]
            nxt[r].hi = heap[r].hi
            nxt[r].dist = heap[r].dist
            if i >= 0:
                nxt[r].idx = rs[i] + rl[i]
                nxt[r].last = hs[i] + hl[i]
            elif i == -1:
                nxt[r].idx = j + 1
                nxt[r].last = -1
            else:
                nxt[r].idx = pp.idx
                nxt[r].last = pp.last
            nxt[r].slot = <int>(half * pcap + r)
            for k in range(W):  # (usually one word: a call to memcpy costs more)
                pool[nxt[r].slot * W + k] = pool[pp.slot * W + k]
            if i >= 0:
                _set_bits(pool + nxt[r].slot * W, bit0[i], hl[i])
                node_cand[nnodes] = i
                node_prev[nnodes] = pp.node
                nxt[r].node = nnodes
                nnodes += 1
            else:
                nxt[r].node = pp.node
        swap = paths
        paths = nxt
        nxt = swap
        npaths = nh
    # The best path is first; collect its matches.
    cdef int* chosen = <int*>mem.alloc(R * sizeof(int))
    cdef int nch = 0
    cdef int node = paths[0].node
    while node >= 0:
        chosen[nch] = node_cand[node]
        nch += 1
        node = node_prev[node]
    for i in range(n):
        if fixed[i]:
            chosen[nch] = i
            nch += 1
    out = _in_ref_order(nch, chosen, rs, R, &chunks, rl, hs, hl, mem)
    return out, chunks


# -- exact search (optimal.py, optimal_dp.py) -------------------------------------------


cdef struct Val:
    i64 c  # coverage
    i64 k  # -chunks
    i64 d  # -distance


cdef inline bint _val_lt(Val a, Val b) noexcept nogil:
    if a.c != b.c:
        return a.c < b.c
    if a.k != b.k:
        return a.k < b.k
    return a.d < b.d


cdef inline uint64_t _mix(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= <uint64_t>0xff51afd7ed558ccd
    h ^= h >> 33
    h *= <uint64_t>0xc4ceb9fe1a85ec53
    h ^= h >> 33
    return h


cdef class _Seg:
    """Per-call data shared by all walks: candidates, gains, bit numbers, state budget."""

    cdef _Mem mem
    cdef int n, H, R
    cdef int* rs
    cdef int* rl
    cdef int* hs
    cdef int* hl
    cdef int* st
    cdef Val* gain      # coverage, saved chunks - 1, -distance (non-fixed candidates)
    cdef int* bit0      # bit of the first hypothesis word, within the candidate's group
    cdef int* comp      # component number within the group
    cdef int W          # words per bitset in the group being solved
    cdef i64 states
    cdef i64 max_states
    cdef i64 work       # bitset words handled so far (twin of optimal_dp.Info.spend)
    cdef i64 max_work
    cdef int* stamp     # [H] scratch for _Walk.setup, never reset (see stamp_gen)
    cdef i64 stamp_gen

    def __cinit__(self):
        self.mem = _Mem()


cdef class _Walk:
    """One left-to-right walk (twin of ``optimal_dp._Walk`` + ``_forward``/``_backward``).

    States live in flat arrays, in creation order; a hash table finds a state by
    (position, used words, last); each layer is a linked list in creation order, which
    is the order the Python twin's dicts iterate in.
    """

    cdef _Mem mem       # the segment's arena
    cdef _Seg seg
    cdef int T, W, m
    cdef int* pos       # [T] reference positions
    cdef int* bstart    # [T+1] bucket offsets into cl
    cdef int* cl        # [m] candidates, by position then given order
    cdef int* nt        # [m] position index after taking cl[k]
    cdef int* nl        # [m] "last" carried there
    cdef uint64_t* rel  # [(T+1)*W] words later candidates can use
    cdef int ns, cap
    cdef uint64_t* used
    cdef int* last
    cdef int* layer
    cdef Val* val
    cdef Val* h         # best value to go (after backward)
    cdef int* bcand
    cdef int* bpar
    cdef int* nxt
    cdef int* head
    cdef int* tail
    cdef int* table
    cdef uint64_t tmask
    cdef uint64_t* tmp  # scratch bitsets
    cdef uint64_t* tmp2

    cdef int setup(self, _Seg seg, const int* members, int m) except -1:
        self.mem = seg.mem
        cdef _Mem mem = self.mem
        cdef int W = seg.W
        cdef int i, k, t, lo, hi, mid, end, hyp_end
        cdef int T = 0
        self.seg = seg
        self.W = W
        self.m = m
        # Sorted distinct reference starts (members are few; insertion sort).
        cdef int* pos = <int*>mem.alloc(m * sizeof(int))
        for k in range(m):
            i = seg.rs[members[k]]
            lo = 0
            hi = T
            while lo < hi:
                mid = (lo + hi) >> 1
                if pos[mid] < i:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < T and pos[lo] == i:
                continue
            for t in range(T, lo, -1):
                pos[t] = pos[t - 1]
            pos[lo] = i
            T += 1
        self.T = T
        self.pos = pos
        self.bstart = <int*>mem.alloc((T + 1) * sizeof(int))
        self.cl = <int*>mem.alloc(m * sizeof(int))
        self.nt = <int*>mem.alloc(m * sizeof(int))
        self.nl = <int*>mem.alloc(m * sizeof(int))
        cdef int* tpos = <int*>mem.alloc(m * sizeof(int))
        for k in range(m):
            tpos[k] = self.index(seg.rs[members[k]])
            self.bstart[tpos[k] + 1] += 1
        for t in range(T):
            self.bstart[t + 1] += self.bstart[t]
        cdef int* fill = <int*>mem.alloc((T + 1) * sizeof(int))
        memcpy(fill, self.bstart, (T + 1) * sizeof(int))
        for k in range(m):
            self.cl[fill[tpos[k]]] = members[k]
            fill[tpos[k]] += 1
        self.rel = <uint64_t*>mem.alloc((T + 1) * W * sizeof(uint64_t))
        for t in range(T - 1, -1, -1):
            memcpy(self.rel + t * W, self.rel + (t + 1) * W, W * sizeof(uint64_t))
            for k in range(self.bstart[t], self.bstart[t + 1]):
                i = self.cl[k]
                _set_bits(self.rel + t * W, seg.bit0[i], seg.hl[i])
        # nl: the walk carries "last" to position nt only if a candidate there starts
        # at that hypothesis position; candidates are visited grouped by nt, with the
        # starts at each position stamped in a hypothesis-indexed array.
        cdef int* by_nt = <int*>mem.alloc((T + 2) * sizeof(int))
        cdef int* order = <int*>mem.alloc(m * sizeof(int))
        cdef int* stamp = seg.stamp
        for k in range(m):
            i = self.cl[k]
            end = seg.rs[i] + seg.rl[i]
            t = self.index(end)  # first position >= end
            self.nt[k] = t
            self.nl[k] = -1
            by_nt[t + 1] += 1
        for t in range(T + 1):
            by_nt[t + 1] += by_nt[t]
        memcpy(fill, by_nt, (T + 1) * sizeof(int))
        for k in range(m):
            order[fill[self.nt[k]]] = k
            fill[self.nt[k]] += 1
        for t in range(T):
            seg.stamp_gen += 1
            for mid in range(self.bstart[t], self.bstart[t + 1]):
                stamp[seg.hs[self.cl[mid]]] = seg.stamp_gen
            for mid in range(by_nt[t], by_nt[t + 1]):
                k = order[mid]
                i = self.cl[k]
                hyp_end = seg.hs[i] + seg.hl[i]
                if (pos[t] == seg.rs[i] + seg.rl[i] and hyp_end < seg.H
                        and stamp[hyp_end] == seg.stamp_gen):
                    self.nl[k] = hyp_end
        self.head = <int*>mem.alloc((T + 1) * sizeof(int))
        self.tail = <int*>mem.alloc((T + 1) * sizeof(int))
        for t in range(T + 1):
            self.head[t] = -1
            self.tail[t] = -1
        self.tmp = <uint64_t*>mem.alloc(W * sizeof(uint64_t))
        self.tmp2 = <uint64_t*>mem.alloc(W * sizeof(uint64_t))
        self.cap = 0
        self.ns = 0
        self.grow_states(16)
        return 0

    cdef int index(self, int ref) noexcept:
        """First position index whose reference position is >= ref."""
        cdef int lo = 0
        cdef int hi = self.T
        cdef int mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.pos[mid] < ref:
                lo = mid + 1
            else:
                hi = mid
        return lo

    cdef int grow_states(self, int cap) except -1:
        cdef _Mem mem = self.mem
        cdef int W = self.W
        cdef int s, tcap
        if self.cap == 0:
            self.used = <uint64_t*>mem.alloc(cap * W * sizeof(uint64_t))
            self.last = <int*>mem.alloc(cap * sizeof(int))
            self.layer = <int*>mem.alloc(cap * sizeof(int))
            self.val = <Val*>mem.alloc(cap * sizeof(Val))
            self.h = <Val*>mem.alloc(cap * sizeof(Val))
            self.bcand = <int*>mem.alloc(cap * sizeof(int))
            self.bpar = <int*>mem.alloc(cap * sizeof(int))
            self.nxt = <int*>mem.alloc(cap * sizeof(int))
            self.table = NULL
        else:
            self.used = <uint64_t*>mem.grow(self.used, cap * W * sizeof(uint64_t))
            self.last = <int*>mem.grow(self.last, cap * sizeof(int))
            self.layer = <int*>mem.grow(self.layer, cap * sizeof(int))
            self.val = <Val*>mem.grow(self.val, cap * sizeof(Val))
            self.h = <Val*>mem.grow(self.h, cap * sizeof(Val))
            self.bcand = <int*>mem.grow(self.bcand, cap * sizeof(int))
            self.bpar = <int*>mem.grow(self.bpar, cap * sizeof(int))
            self.nxt = <int*>mem.grow(self.nxt, cap * sizeof(int))
        self.cap = cap
        # Hash table at most half full.
        tcap = 32
        while tcap < 2 * cap:
            tcap *= 2
        if self.table == NULL:
            self.table = <int*>mem.alloc(tcap * sizeof(int))
        else:
            self.table = <int*>mem.grow(self.table, tcap * sizeof(int))
        self.tmask = tcap - 1
        for s in range(tcap):
            self.table[s] = -1
        for s in range(self.ns):
            self.table[self.slot(self.layer[s], self.used + s * self.W, self.last[s])] = s
        return 0

    cdef inline uint64_t hash(self, int t, const uint64_t* u, int last) noexcept:
        cdef uint64_t h = (<uint64_t>t) * <uint64_t>0x9E3779B97F4A7C15 + <uint64_t>(last + 1)
        cdef int w
        for w in range(self.W):
            h = _mix(h ^ u[w]) + <uint64_t>w
        return _mix(h)

    cdef inline int slot(self, int t, const uint64_t* u, int last) noexcept:
        """Table slot holding state (t, u, last), or the empty slot where it would go."""
        cdef uint64_t j = self.hash(t, u, last) & self.tmask
        cdef int s, w
        cdef bint same
        while True:
            s = self.table[j]
            if s < 0:
                return <int>j
            if self.layer[s] == t and self.last[s] == last:
                same = True
                for w in range(self.W):
                    if self.used[s * self.W + w] != u[w]:
                        same = False
                        break
                if same:
                    return <int>j
            j = (j + 1) & self.tmask

    cdef inline int find(self, int t, const uint64_t* u, int last) noexcept:
        return self.table[self.slot(t, u, last)]

    cdef int add(self, int t, const uint64_t* u, int last, Val v, int cand, int par) except -2:
        """Create a state (counted against the budget); -1 when the budget is exhausted."""
        cdef _Seg seg = self.seg
        cdef int s
        seg.states += 1
        if seg.states > seg.max_states:
            return -1
        if self.ns == self.cap:
            self.grow_states(2 * self.cap)
        s = self.ns
        self.ns += 1
        memcpy(self.used + s * self.W, u, self.W * sizeof(uint64_t))
        self.last[s] = last
        self.layer[s] = t
        self.val[s] = v
        self.bcand[s] = cand
        self.bpar[s] = par
        self.nxt[s] = -1
        if self.tail[t] < 0:
            self.head[t] = s
        else:
            self.nxt[self.tail[t]] = s
        self.tail[t] = s
        self.table[self.slot(t, u, last)] = s
        return s

    cdef int forward(self, _Heur heur) except -2:
        """Fill the layers (twin of ``optimal_dp._forward``); -1 past the state budget."""
        cdef _Seg seg = self.seg
        cdef int W = self.W
        cdef int T = self.T
        cdef int t, s, k, i, t2, last2, w, found, taken
        cdef Val v, nv
        cdef int last
        cdef uint64_t* u = self.tmp
        cdef uint64_t* u2 = self.tmp2
        memset(u, 0, W * sizeof(uint64_t))
        v.c = 0
        v.k = 0
        v.d = 0
        if self.add(0, u, -1, v, -1, -1) < 0:
            return -1
        for t in range(T):
            s = self.head[t]
            while s >= 0:
                memcpy(u, self.used + s * W, W * sizeof(uint64_t))
                last = self.last[s]
                v = self.val[s]
                # k == -1: skip this reference word; then each free candidate.
                for k in range(self.bstart[t] - 1, self.bstart[t + 1]):
                    if k < self.bstart[t]:
                        i = -1
                        t2 = t + 1
                        last2 = -1
                        memcpy(u2, u, W * sizeof(uint64_t))
                        nv = v
                    else:
                        i = self.cl[k]
                        if _any_set(u, seg.bit0[i], seg.hl[i]):
                            continue
                        t2 = self.nt[k]
                        last2 = self.nl[k]
                        memcpy(u2, u, W * sizeof(uint64_t))
                        _set_bits(u2, seg.bit0[i], seg.hl[i])
                        nv.c = v.c + seg.gain[i].c
                        nv.k = v.k + seg.gain[i].k + (1 if seg.hs[i] == last else 0)
                        nv.d = v.d + seg.gain[i].d
                    seg.work += W
                    if seg.work > seg.max_work:
                        return -1
                    for w in range(W):
                        u2[w] &= self.rel[t2 * W + w]
                    found = self.find(t2, u2, last2)
                    if found >= 0 and not _val_lt(self.val[found], nv):
                        continue
                    if heur is not None:
                        seg.work += W * heur.nc
                        if seg.work > seg.max_work:
                            return -1
                        # the heuristic needs the unmasked words: rebuild them
                        memcpy(u2, u, W * sizeof(uint64_t))
                        if i >= 0:
                            _set_bits(u2, seg.bit0[i], seg.hl[i])
                        taken = i if last2 != -1 else -1
                        if heur.prunes(t2, u2, last2, taken, nv):
                            continue
                        for w in range(W):
                            u2[w] &= self.rel[t2 * W + w]
                    if found < 0:
                        if self.add(t2, u2, last2, nv, i, s) < 0:
                            return -1
                    else:
                        self.val[found] = nv
                        self.bcand[found] = i
                        self.bpar[found] = s
                s = self.nxt[s]
        return 0

    cdef int backward(self) except -2:
        """Best value to go for every state (twin of ``optimal_dp._backward``); -1 past the
        work budget."""
        cdef _Seg seg = self.seg
        cdef int W = self.W
        cdef int t, s, k, i, t2, w, f
        cdef int last
        cdef Val best, cand_v
        cdef uint64_t* u2 = self.tmp2
        cdef const uint64_t* u
        s = self.head[self.T]
        while s >= 0:
            self.h[s].c = 0
            self.h[s].k = 0
            self.h[s].d = 0
            s = self.nxt[s]
        for t in range(self.T - 1, -1, -1):
            s = self.head[t]
            while s >= 0:
                seg.work += W
                if seg.work > seg.max_work:
                    return -1
                u = self.used + s * W
                last = self.last[s]
                for w in range(W):
                    u2[w] = u[w] & self.rel[(t + 1) * W + w]
                f = self.find(t + 1, u2, -1)
                if f < 0:
                    raise RuntimeError("meteorx._fast: missing successor state")
                best = self.h[f]
                for k in range(self.bstart[t], self.bstart[t + 1]):
                    i = self.cl[k]
                    if _any_set(u, seg.bit0[i], seg.hl[i]):
                        continue
                    seg.work += W
                    if seg.work > seg.max_work:
                        return -1
                    t2 = self.nt[k]
                    memcpy(u2, u, W * sizeof(uint64_t))
                    _set_bits(u2, seg.bit0[i], seg.hl[i])
                    for w in range(W):
                        u2[w] &= self.rel[t2 * W + w]
                    f = self.find(t2, u2, self.nl[k])
                    if f < 0:
                        raise RuntimeError("meteorx._fast: missing successor state")
                    cand_v.c = self.h[f].c + seg.gain[i].c
                    cand_v.k = self.h[f].k + seg.gain[i].k + (1 if seg.hs[i] == last else 0)
                    cand_v.d = self.h[f].d + seg.gain[i].d
                    if _val_lt(best, cand_v):
                        best = cand_v
                self.h[s] = best
                s = self.nxt[s]
        return 0

    cdef int best_path(self, int* out, int n_out) noexcept:
        """Append the best final state's candidates to out[n_out:]; the new length."""
        cdef int s = self.head[self.T]
        while s >= 0:
            if self.bcand[s] >= 0:
                out[n_out] = self.bcand[s]
                n_out += 1
            s = self.bpar[s]
        return n_out


cdef class _Heur:
    """Branch-and-bound test for a group walk (twin of ``optimal_dp._Heuristic``)."""

    cdef _Mem mem       # the segment's arena
    cdef _Seg seg
    cdef _Walk walk
    cdef list cws        # component walks, in component order
    cdef int nc
    cdef int* next_in    # [(T+1)*nc]
    cdef int nb
    cdef int* bpos       # [nb] boundary reference positions, ascending
    cdef int* bfirst     # [nb+1] offsets into pi/pk
    cdef int* pi
    cdef int* pk
    cdef Val bound
    cdef uint64_t* tmp

    cdef bint prunes(self, int t, const uint64_t* u, int last, int taken, Val nv) except -1:
        """True when even the best completion of this state falls short of the bound."""
        cdef _Seg seg = self.seg
        cdef _Walk walk = self.walk
        cdef _Walk cw
        cdef int W = seg.W
        cdef int T = walk.T
        cdef int p = walk.pos[t] if t < T else -1
        cdef int taken_comp = seg.comp[taken] if taken >= 0 else -1
        cdef int c, s, lc, w, f, b, q, i, k
        cdef Val tot
        cdef bint ok
        tot = nv
        for c in range(self.nc):
            s = self.next_in[t * self.nc + c]
            cw = <_Walk>self.cws[c]
            if s == cw.T:
                continue
            lc = last if cw.pos[s] == p and taken_comp == c else -1
            for w in range(W):
                self.tmp[w] = u[w] & cw.rel[s * W + w]
            f = cw.find(s, self.tmp, lc)
            if f < 0:
                return False
            tot.c += cw.h[f].c
            tot.k += cw.h[f].k
            tot.d += cw.h[f].d
        if t < T:
            for b in range(self.nb):
                q = self.bpos[b]
                if q < p:
                    continue
                ok = False
                for k in range(self.bfirst[b], self.bfirst[b + 1]):
                    i = self.pi[k]
                    f = self.pk[k]
                    if q == p:
                        if last != -1 and seg.hs[f] == last and not _any_set(u, seg.bit0[f], seg.hl[f]):
                            ok = True
                            break
                    elif not _any_set(u, seg.bit0[i], seg.hl[i]) and not _any_set(u, seg.bit0[f], seg.hl[f]):
                        ok = True
                        break
                if ok:
                    tot.k += 1
        return _val_lt(tot, self.bound)


cdef int _uf_find(int* parent, int x) noexcept:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


cdef void _uf_union(int* parent, int a, int b) noexcept:
    a = _uf_find(parent, a)
    b = _uf_find(parent, b)
    if a < b:
        parent[b] = a
    elif b < a:
        parent[a] = b


cdef Val _value(_Seg seg, const int* chosen, int n, int* end_at) noexcept:
    """Objective value of non-fixed candidates (twin of ``optimal_dp._value``)."""
    cdef Val v
    cdef int k, i, e
    v.c = 0
    v.k = 0
    v.d = 0
    for k in range(n):
        i = chosen[k]
        e = seg.rs[i] + seg.rl[i]
        if e < seg.R:
            end_at[e] = seg.hs[i] + seg.hl[i]
    for k in range(n):
        i = chosen[k]
        v.c += seg.gain[i].c
        v.k += seg.gain[i].k
        v.d += seg.gain[i].d
        if end_at[seg.rs[i]] == seg.hs[i]:
            v.k += 1
    for k in range(n):
        i = chosen[k]
        e = seg.rs[i] + seg.rl[i]
        if e < seg.R:
            end_at[e] = -1
    return v


cdef int _greedy(_Seg seg, const char* fixed, const i64* w, int* chosen) except -1:
    """Twin of ``optimal._greedy``; returns the number of chosen candidates."""
    cdef _Mem mem = seg.mem
    cdef int n = seg.n
    cdef int R = seg.R
    cdef int* fixed_at = <int*>mem.alloc(R * sizeof(int))
    cdef int* bstart = <int*>mem.alloc((R + 1) * sizeof(int))
    cdef int* bl = <int*>mem.alloc(n * sizeof(int))
    cdef char* used = <char*>mem.alloc(seg.H)
    cdef int i, j, k, best, nch, last
    cdef i64 kc, kx, kd, bc, bx, bd, dist
    cdef bint have
    for j in range(R):
        fixed_at[j] = -1
    for i in range(n):
        bstart[seg.rs[i] + 1] += 1
        if fixed[i]:
            fixed_at[seg.rs[i]] = i
    for j in range(R):
        bstart[j + 1] += bstart[j]
    cdef int* fill = <int*>mem.alloc((R + 1) * sizeof(int))
    memcpy(fill, bstart, (R + 1) * sizeof(int))
    for i in range(n):
        bl[fill[seg.rs[i]]] = i
        fill[seg.rs[i]] += 1
    nch = 0
    last = -1
    j = 0
    bc = bx = bd = 0
    while j < R:
        best = fixed_at[j]
        if best < 0:
            have = False
            for k in range(bstart[j], bstart[j + 1]):
                i = bl[k]
                if _any_used(used, seg.hs[i], seg.hl[i]):
                    continue
                kc = w[seg.st[i]] * (seg.hl[i] + seg.rl[i])
                kx = 1 if seg.hs[i] == last else 0
                dist = seg.rs[i] - seg.hs[i]
                kd = -dist if dist >= 0 else dist
                if not have or kc > bc or (kc == bc and (kx > bx or (kx == bx and kd > bd))):
                    best = i
                    bc = kc
                    bx = kx
                    bd = kd
                    have = True
        if best < 0 or _any_used(used, seg.hs[best], seg.hl[best]):
            last = -1
            j += 1
            continue
        chosen[nch] = best
        nch += 1
        for k in range(seg.hs[best], seg.hs[best] + seg.hl[best]):
            used[k] = 1
        last = seg.hs[best] + seg.hl[best]
        j += seg.rl[best]
    return nch


cdef inline bint _any_used(const char* used, int start, int length) noexcept:
    cdef int k
    for k in range(start, start + length):
        if used[k]:
            return True
    return False


def optimal(candidates, Py_ssize_t hyp_len, Py_ssize_t ref_len, weights, max_states):
    """Twin of ``optimal.optimal_search``: (chosen indices by reference start, chunks,
    optimal)."""
    cdef list cands = candidates if type(candidates) is list else list(candidates)
    cdef int n = len(cands)
    cdef _Seg seg = _Seg()
    cdef _Mem mem = seg.mem
    cdef int nw = len(weights)
    if hyp_len > 2000000000 or ref_len > 2000000000:
        return None
    if n == 0:
        return [], 0, True
    seg.n = n
    seg.H = <int>hyp_len
    seg.R = <int>ref_len
    seg.rs = <int*>mem.alloc(n * sizeof(int))
    seg.rl = <int*>mem.alloc(n * sizeof(int))
    seg.hs = <int*>mem.alloc(n * sizeof(int))
    seg.hl = <int*>mem.alloc(n * sizeof(int))
    seg.st = <int*>mem.alloc(n * sizeof(int))
    if _read(cands, n, seg.rs, seg.rl, seg.hs, seg.hl, seg.st, hyp_len, ref_len) < 0:
        return None
    seg.stamp = <int*>mem.alloc(seg.H * sizeof(int))  # zero: below every stamp_gen
    seg.stamp_gen = 0
    cdef i64* w = <i64*>mem.alloc(nw * sizeof(i64))
    cdef int i, j, k, g, c, t, q, e
    try:
        for k in range(nw):
            w[k] = weights[k]
    except (TypeError, OverflowError):
        return None
    for i in range(n):
        if seg.st[i] < 0 or seg.st[i] >= nw:
            return None
    try:
        seg.max_states = max_states
    except OverflowError:
        seg.max_states = 9223372036854775807
    seg.states = 0
    seg.work = 0
    seg.max_work = (seg.max_states * _WORK_PER_STATE
                    if seg.max_states < 9223372036854775807 // _WORK_PER_STATE
                    else 9223372036854775807)
    cdef int R = seg.R
    cdef int H = seg.H
    cdef char* fixed = <char*>mem.alloc(n)
    _isolated(n, seg.rs, seg.rl, seg.hs, seg.hl, H, R, fixed, mem)
    cdef int n_amb = 0
    for i in range(n):
        if fixed[i] and w[seg.st[i]] <= 0:
            fixed[i] = 0
        if not fixed[i]:
            n_amb += 1
    cdef int* chosen = <int*>mem.alloc(n * sizeof(int))
    cdef int nch = 0
    cdef int chunks = 0
    for i in range(n):
        if fixed[i]:
            chosen[nch] = i
            nch += 1
    if n_amb == 0:
        out = _in_ref_order(nch, chosen, seg.rs, R, &chunks, seg.rl, seg.hs, seg.hl, mem)
        return out, chunks, True
    # Gains, with the chunk a fixed neighbour saves credited to the candidate.
    cdef int* fixed_at = <int*>mem.alloc(R * sizeof(int))
    cdef int* fixed_end = <int*>mem.alloc((R + 1) * sizeof(int))
    for j in range(R):
        fixed_at[j] = -1
    for j in range(R + 1):
        fixed_end[j] = -1
    for i in range(n):
        if fixed[i]:
            fixed_at[seg.rs[i]] = i
            fixed_end[seg.rs[i] + seg.rl[i]] = i
    seg.gain = <Val*>mem.alloc(n * sizeof(Val))
    cdef int* amb = <int*>mem.alloc(n_amb * sizeof(int))
    cdef int saved
    k = 0
    for i in range(n):
        if fixed[i]:
            continue
        amb[k] = i
        k += 1
        saved = -1
        e = fixed_end[seg.rs[i]]
        if e >= 0 and seg.hs[e] + seg.hl[e] == seg.hs[i]:
            saved += 1
        e = seg.rs[i] + seg.rl[i]
        if e < R and fixed_at[e] >= 0 and seg.hs[fixed_at[e]] == seg.hs[i] + seg.hl[i]:
            saved += 1
        seg.gain[i].c = w[seg.st[i]] * (seg.hl[i] + seg.rl[i])
        seg.gain[i].k = saved
        seg.gain[i].d = -(seg.rs[i] - seg.hs[i]) if seg.rs[i] >= seg.hs[i] else -(seg.hs[i] - seg.rs[i])
    # Components: union by shared hypothesis / reference word (roots: smallest index).
    cdef int* parent = <int*>mem.alloc(n * sizeof(int))
    cdef int* first_h = <int*>mem.alloc(H * sizeof(int))
    cdef int* first_r = <int*>mem.alloc(R * sizeof(int))
    for j in range(H):
        first_h[j] = -1
    for j in range(R):
        first_r[j] = -1
    for k in range(n_amb):
        i = amb[k]
        parent[i] = i
    for k in range(n_amb):
        i = amb[k]
        for j in range(seg.hs[i], seg.hs[i] + seg.hl[i]):
            if first_h[j] < 0:
                first_h[j] = i
            _uf_union(parent, first_h[j], i)
        for j in range(seg.rs[i], seg.rs[i] + seg.rl[i]):
            if first_r[j] < 0:
                first_r[j] = i
            _uf_union(parent, first_r[j], i)
    cdef int* comp = <int*>mem.alloc(n * sizeof(int))    # component root
    for k in range(n_amb):
        comp[amb[k]] = _uf_find(parent, amb[k])
    # Interactions: amb candidate ending where one of another component starts.
    # Non-fixed candidates sorted by (reference end, hypothesis end): two stable
    # counting sorts; estart[e] opens the run of reference end e.
    cdef int* hstart = <int*>mem.alloc((H + 2) * sizeof(int))
    cdef int* by_h = <int*>mem.alloc(n_amb * sizeof(int))
    for k in range(n_amb):
        hstart[seg.hs[amb[k]] + seg.hl[amb[k]] + 1] += 1
    for j in range(H + 1):
        hstart[j + 1] += hstart[j]
    for k in range(n_amb):
        e = seg.hs[amb[k]] + seg.hl[amb[k]]
        by_h[hstart[e]] = amb[k]
        hstart[e] += 1
    cdef int* estart = <int*>mem.alloc((R + 2) * sizeof(int))
    cdef int* elist = <int*>mem.alloc(n_amb * sizeof(int))
    for k in range(n_amb):
        estart[seg.rs[amb[k]] + seg.rl[amb[k]] + 1] += 1
    for j in range(R + 1):
        estart[j + 1] += estart[j]
    cdef int* fill = <int*>mem.alloc((R + 2) * sizeof(int))
    memcpy(fill, estart, (R + 2) * sizeof(int))
    for k in range(n_amb):
        i = by_h[k]
        e = seg.rs[i] + seg.rl[i]
        elist[fill[e]] = i
        fill[e] += 1
    cdef int lo, hi, mid
    cdef int* gparent = <int*>mem.alloc(n * sizeof(int))
    for k in range(n_amb):
        gparent[amb[k]] = amb[k]
    cdef int ncross = 0
    cdef int* cross_i = NULL
    cdef int* cross_k = NULL
    cdef int crosscap = 0
    cdef int kk
    for k in range(n_amb):
        kk = amb[k]
        j = seg.rs[kk]
        lo = estart[j]
        hi = estart[j + 1]
        while lo < hi:  # first candidate ending at reference j with hypothesis end >= hs
            mid = (lo + hi) >> 1
            i = elist[mid]
            if seg.hs[i] + seg.hl[i] < seg.hs[kk]:
                lo = mid + 1
            else:
                hi = mid
        for q in range(lo, estart[j + 1]):
            i = elist[q]
            if seg.hs[i] + seg.hl[i] != seg.hs[kk]:
                break
            if comp[i] == comp[kk]:
                continue
            if ncross == crosscap:
                crosscap = 2 * crosscap + 16
                if cross_i == NULL:
                    cross_i = <int*>mem.alloc(crosscap * sizeof(int))
                    cross_k = <int*>mem.alloc(crosscap * sizeof(int))
                else:
                    cross_i = <int*>mem.grow(cross_i, crosscap * sizeof(int))
                    cross_k = <int*>mem.grow(cross_k, crosscap * sizeof(int))
            cross_i[ncross] = i
            cross_k[ncross] = kk
            ncross += 1
            _uf_union(gparent, comp[i], comp[kk])
    # Groups in order of their first candidate; members in the given order.
    cdef int m, nbits, ncomp, nlow, gi
    cdef int* group = <int*>mem.alloc(n * sizeof(int))
    cdef int* gcount = <int*>mem.alloc(n * sizeof(int))
    cdef int* gorder = <int*>mem.alloc(n_amb * sizeof(int))
    cdef int ngroups = 0
    for k in range(n_amb):
        i = amb[k]
        g = _uf_find(gparent, comp[i])
        group[i] = g
        if gcount[g] == 0:
            gorder[ngroups] = g
            ngroups += 1
        gcount[g] += 1
    cdef int* gslot = <int*>mem.alloc(n * sizeof(int))       # group root -> ordinal
    cdef int* gstart = <int*>mem.alloc((ngroups + 1) * sizeof(int))
    cdef int* gmembers = <int*>mem.alloc(n_amb * sizeof(int))
    for gi in range(ngroups):
        gslot[gorder[gi]] = gi
        gstart[gi + 1] = gstart[gi] + gcount[gorder[gi]]
    cdef int* gfill = <int*>mem.alloc((ngroups + 1) * sizeof(int))
    memcpy(gfill, gstart, (ngroups + 1) * sizeof(int))
    for k in range(n_amb):
        i = amb[k]
        gmembers[gfill[gslot[group[i]]]] = i
        gfill[gslot[group[i]]] += 1
    cdef int* members
    cdef int* cstart = <int*>mem.alloc((n_amb + 1) * sizeof(int))
    cdef int* cfill = <int*>mem.alloc((n_amb + 1) * sizeof(int))
    cdef int* cmembers = <int*>mem.alloc(n_amb * sizeof(int))
    cdef int* lower = <int*>mem.alloc(n_amb * sizeof(int))
    cdef int* hyp_bit = <int*>mem.alloc(H * sizeof(int))
    cdef int* end_at = <int*>mem.alloc((R + 1) * sizeof(int))
    cdef int* comp_idx = <int*>mem.alloc(n * sizeof(int))
    cdef int* cfirst = <int*>mem.alloc(n_amb * sizeof(int))   # component roots in order
    seg.comp = <int*>mem.alloc(n * sizeof(int))
    seg.bit0 = <int*>mem.alloc(n * sizeof(int))
    for j in range(R + 1):
        end_at[j] = -1
    for j in range(H):
        hyp_bit[j] = -1
    cdef _Walk walk
    cdef _Walk cw
    cdef _Heur heur
    cdef list cws
    for gi in range(ngroups):
        g = gorder[gi]
        members = gmembers + gstart[gi]
        m = gstart[gi + 1] - gstart[gi]
        # Dense bit numbers over this group's hypothesis words (ascending).
        for k in range(m):
            i = members[k]
            for j in range(seg.hs[i], seg.hs[i] + seg.hl[i]):
                hyp_bit[j] = -2  # numbered below in ascending order
        nbits = _number_bits(seg, members, m, hyp_bit, mem)
        seg.W = (nbits + 63) >> 6
        for k in range(m):
            i = members[k]
            seg.bit0[i] = hyp_bit[seg.hs[i]]
        for k in range(m):
            i = members[k]
            for j in range(seg.hs[i], seg.hs[i] + seg.hl[i]):
                hyp_bit[j] = -1
        # Components of the group, in order of first member.
        ncomp = 0
        for k in range(m):
            i = members[k]
            c = comp[i]
            if comp_idx[c] == 0:
                cfirst[ncomp] = c
                ncomp += 1
                comp_idx[c] = ncomp  # 1-based while collecting
        for k in range(m):
            seg.comp[members[k]] = comp_idx[comp[members[k]]] - 1
        for c in range(ncomp):
            comp_idx[cfirst[c]] = 0
        if ncomp == 1:
            walk = _Walk()
            walk.setup(seg, members, m)
            if walk.forward(None) < 0:
                nch = _greedy(seg, fixed, w, chosen)
                out = _in_ref_order(nch, chosen, seg.rs, R, &chunks, seg.rl, seg.hs, seg.hl, mem)
                return out, chunks, False
            nch = walk.best_path(chosen, nch)
            continue
        # Several interacting components: solve each alone, then branch and bound.
        cws = []
        nlow = 0
        for c in range(ncomp + 1):
            cstart[c] = 0
        for k in range(m):
            cstart[seg.comp[members[k]] + 1] += 1
        for c in range(ncomp):
            cstart[c + 1] += cstart[c]
        memcpy(cfill, cstart, (ncomp + 1) * sizeof(int))
        for k in range(m):
            c = seg.comp[members[k]]
            cmembers[cfill[c]] = members[k]
            cfill[c] += 1
        for c in range(ncomp):
            cw = _Walk()
            cw.setup(seg, cmembers + cstart[c], cstart[c + 1] - cstart[c])
            if cw.forward(None) < 0:
                nch = _greedy(seg, fixed, w, chosen)
                out = _in_ref_order(nch, chosen, seg.rs, R, &chunks, seg.rl, seg.hs, seg.hl, mem)
                return out, chunks, False
            if cw.backward() < 0:
                nch = _greedy(seg, fixed, w, chosen)
                out = _in_ref_order(nch, chosen, seg.rs, R, &chunks, seg.rl, seg.hs, seg.hl, mem)
                return out, chunks, False
            nlow = cw.best_path(lower, nlow)
            cws.append(cw)
        walk = _Walk()
        walk.setup(seg, members, m)
        heur = _Heur()
        heur.mem = mem
        heur.seg = seg
        heur.walk = walk
        heur.cws = cws
        heur.nc = ncomp
        heur.bound = _value(seg, lower, nlow, end_at)
        heur.tmp = <uint64_t*>heur.mem.alloc(seg.W * sizeof(uint64_t))
        heur.next_in = <int*>heur.mem.alloc((walk.T + 1) * ncomp * sizeof(int))
        for t in range(walk.T + 1):
            for c in range(ncomp):
                cw = <_Walk>cws[c]
                heur.next_in[t * ncomp + c] = cw.index(walk.pos[t]) if t < walk.T else cw.T
        _boundaries(heur, seg, cross_i, cross_k, ncross, g, group)
        if walk.forward(heur) < 0:
            nch = _greedy(seg, fixed, w, chosen)
            out = _in_ref_order(nch, chosen, seg.rs, R, &chunks, seg.rl, seg.hs, seg.hl, mem)
            return out, chunks, False
        nch = walk.best_path(chosen, nch)
    out = _in_ref_order(nch, chosen, seg.rs, R, &chunks, seg.rl, seg.hs, seg.hl, mem)
    return out, chunks, True


cdef int _number_bits(_Seg seg, const int* members, int m, int* hyp_bit, _Mem mem) except -1:
    """Number the marked (-2) hypothesis words of a group in ascending order."""
    cdef int* words
    cdef int k, i, j, nw
    # Collect marked words (each once), then sort them (insertion sort: groups are small).
    nw = 0
    for k in range(m):
        i = members[k]
        nw += seg.hl[i]
    words = <int*>mem.alloc(nw * sizeof(int))
    nw = 0
    for k in range(m):
        i = members[k]
        for j in range(seg.hs[i], seg.hs[i] + seg.hl[i]):
            if hyp_bit[j] == -2:
                hyp_bit[j] = -3
                words[nw] = j
                nw += 1
    _sort_ints(words, nw)
    for k in range(nw):
        hyp_bit[words[k]] = k
    return nw


cdef inline void _sift_down(int* a, int root, int n) noexcept:
    """Move ``a[root]`` down the max-heap ``a[0:n]`` to its place."""
    cdef int child, tmp
    while 2 * root + 1 < n:
        child = 2 * root + 1
        if child + 1 < n and a[child] < a[child + 1]:
            child += 1
        if a[root] < a[child]:
            tmp = a[root]
            a[root] = a[child]
            a[child] = tmp
            root = child
        else:
            break


cdef void _sort_ints(int* a, int n) noexcept:
    """Ascending heap sort (no recursion, no allocation)."""
    cdef int start, end, tmp
    if n < 2:
        return
    for start in range((n - 2) // 2, -1, -1):
        _sift_down(a, start, n)
    for end in range(n - 1, 0, -1):
        tmp = a[end]
        a[end] = a[0]
        a[0] = tmp
        _sift_down(a, 0, end)


cdef int _boundaries(_Heur heur, _Seg seg, const int* cross_i, const int* cross_k, int ncross,
                     int g, const int* group) except -1:
    """The group's interaction pairs, grouped by the reference position where they meet."""
    cdef _Mem mem = heur.mem
    cdef int k, n, b, q, j
    n = 0
    for k in range(ncross):
        if group[cross_i[k]] == g:
            n += 1
    heur.pi = <int*>mem.alloc(n * sizeof(int))
    heur.pk = <int*>mem.alloc(n * sizeof(int))
    heur.bpos = <int*>mem.alloc(n * sizeof(int))
    heur.bfirst = <int*>mem.alloc((n + 1) * sizeof(int))
    cdef int* order = <int*>mem.alloc(n * sizeof(int))
    # Stable sort of the pairs by meeting position (insertion sort; pairs are few).
    q = 0
    for k in range(ncross):
        if group[cross_i[k]] != g:
            continue
        j = q
        while j > 0 and seg.rs[cross_k[order[j - 1]]] > seg.rs[cross_k[k]]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = k
        q += 1
    b = -1
    for q in range(n):
        k = order[q]
        if b < 0 or heur.bpos[b] != seg.rs[cross_k[k]]:
            b += 1
            heur.bpos[b] = seg.rs[cross_k[k]]
            heur.bfirst[b] = q
        heur.pi[q] = cross_i[k]
        heur.pk[q] = cross_k[k]
    heur.nb = b + 1
    heur.bfirst[heur.nb] = n
    return 0
