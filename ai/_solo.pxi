# The C-level mirror of the SOLO rules (engine/solo/, docs/rules.md section 1) for the search.
#
# Included textually into ai/_search.pyx right after _rng.pxi. Every C-level name starts with
# solo_ / Solo (Python-level helpers with _solo_) so that the SCOUT mirror can live beside it.
#
# It reproduces engine/solo/state.py action for action: solo_legal(s, seat) is exactly the set
# State.legal_actions(seat), solo_apply is State.apply, except that reshuffles of the discard
# pile use the caller's Rng (the engine's SHA-256 streams are not reproduced: a determinized
# draw pile is random anyway). tests/ai/test_solo_mirror.py checks it step by step.
#
# Representation: a hand is a count per face (63 faces, in the engine's canonical order, so
# the engine's sorted hand is the faces in index order with their counts), its size, and a
# 64-bit mask of the faces held (bit f; kept in step by solo_add / solo_sub: code that fills
# counts directly must call solo_sync_held afterwards). The draw and discard piles are arrays
# of face indices with the top last, as in the engine. A SoloState (1,024 bytes) holds no
# pointers: copying one is a plain struct assignment. All nogil functions are reentrant
# (the face tables are written once, at import).
#
# Not mirrored: the engine's ``known`` table (which seat saw which cards change hands); it
# only feeds observation(), whose information reaches the search through SoloInfo. The seed
# and round number only name the engine's reshuffle streams; SoloMirror keeps them as Python
# data for snapshot() only.
#
# Exactness limits, only for positions no real deck can produce: multiples of more than 8
# cards are not generated, and legal-action lists are cut at SOLO_MAX_ACTIONS.

from libc.string cimport memcpy, memset
from libc.stdlib cimport malloc, free


cdef extern from *:
    int solo_ctz "__builtin_ctzll"(unsigned long long x) noexcept nogil


cdef inline int solo_popcount(unsigned long long x) noexcept nogil:
    """Bits set in x (portable SWAR: builds without -mpopcnt would call a slow helper)."""
    x = x - ((x >> 1) & 0x5555555555555555ULL)
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL
    return <int>((x * 0x0101010101010101ULL) >> 56)


# --- face tables ------------------------------------------------------------------------
cdef unsigned long long solo_mask_colour[4]   # the coloured faces of each colour
cdef unsigned long long solo_mask_rank[18]    # the faces of each rank
cdef unsigned long long solo_mask_number[10]  # the faces showing number v (1..9)
cdef unsigned long long solo_mask_black
cdef unsigned long long solo_mask_all
cdef signed char solo_fcolour[SOLO_NFACES]    # -1 for wild, wd4, pass
cdef unsigned char solo_frank[SOLO_NFACES]
cdef unsigned char solo_fnumber[SOLO_NFACES]  # 1..9, 0 for action cards
cdef unsigned char solo_fpoints[SOLO_NFACES]
cdef unsigned char solo_fblack[SOLO_NFACES]

_SOLO_COLOURS = "RGBY"
_SOLO_RANK_TEXT = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "skip", "rev", "d2", "swap", "gift",
                   "wild", "wd4", "pass", "prot")
_SOLO_POINTS = {"skip": 20, "rev": 10, "d2": 30, "swap": 30, "gift": 30, "wild": 40, "wd4": 50,
                "pass": 40, "prot": 40}
_SOLO_TEXT = []
_SOLO_FACE = {}


cdef void _solo_init_tables():
    global solo_mask_black, solo_mask_all
    cdef int f, c, r
    for f in range(18):
        solo_mask_rank[f] = 0
    for f in range(10):
        solo_mask_number[f] = 0
    for f in range(4):
        solo_mask_colour[f] = 0
    solo_mask_black = 0
    solo_mask_all = 0
    for f in range(SOLO_NFACES):
        if f < 56:
            c = f // 14
            r = f % 14
            text = _SOLO_COLOURS[c] + _SOLO_RANK_TEXT[r]
        elif f < SOLO_F_PROT:
            c = -1
            r = SOLO_RK_WILD + (f - SOLO_F_WILD)
            text = _SOLO_RANK_TEXT[r]
        else:
            c = f - SOLO_F_PROT
            r = SOLO_RK_PROT
            text = "prot" + _SOLO_COLOURS[c]
        solo_fcolour[f] = c
        solo_frank[f] = r
        solo_fnumber[f] = r + 1 if r < 9 else 0
        solo_fpoints[f] = r + 1 if r < 9 else _SOLO_POINTS[_SOLO_RANK_TEXT[r]]
        solo_fblack[f] = 1 if f >= 56 else 0
        if f < 56:
            solo_mask_colour[c] |= 1ULL << f
        else:
            solo_mask_black |= 1ULL << f
        solo_mask_rank[r] |= 1ULL << f
        if r < 9:
            solo_mask_number[r + 1] |= 1ULL << f
        solo_mask_all |= 1ULL << f
        _SOLO_TEXT.append(text)
        _SOLO_FACE[text] = f


_solo_init_tables()


# --- queries ------------------------------------------------------------------------------
cdef inline int solo_next(const SoloState* s, int seat, int steps) noexcept nogil:
    """(seat + steps * direction) mod n, for 0 <= seat < n and |steps| <= n (no division)."""
    cdef int r = seat + steps * s.direction
    if r >= s.n:
        r -= s.n
    elif r < 0:
        r += s.n
    return r


cdef inline int solo_top(const SoloState* s) noexcept nogil:
    return s.discard[s.ndiscard - 1]


cdef inline void solo_add(SoloState* s, int seat, int f) noexcept nogil:
    s.cnt[seat][f] += 1
    s.hsize[seat] += 1
    s.held[seat] |= 1ULL << f


cdef inline void solo_sub(SoloState* s, int seat, int f) noexcept nogil:
    s.cnt[seat][f] -= 1
    s.hsize[seat] -= 1
    if s.cnt[seat][f] == 0:
        s.held[seat] &= ~(1ULL << f)


cdef inline void solo_sync_held(SoloState* s) noexcept nogil:
    """Recompute the held masks from the counts (after filling hands by hand)."""
    cdef int seat, f
    cdef unsigned long long m
    for seat in range(SOLO_MAX_SEATS):
        m = 0
        if seat < s.n:
            for f in range(SOLO_NFACES):
                if s.cnt[seat][f]:
                    m |= 1ULL << f
        s.held[seat] = m


cdef inline unsigned long long solo_fit_mask(const SoloState* s) noexcept nogil:
    """The faces that fit on the top card (solo_fits for every face at once)."""
    cdef int top
    if s.colour < 0:
        return solo_mask_all
    top = s.discard[s.ndiscard - 1]
    if solo_fblack[top]:
        return solo_mask_black | solo_mask_colour[s.colour]
    return solo_mask_black | solo_mask_colour[s.colour] | solo_mask_rank[solo_frank[top]]


cdef bint solo_over(const SoloState* s) noexcept nogil:
    return s.winner >= 0


cdef int solo_to_move(const SoloState* s) noexcept nogil:
    if s.winner >= 0:
        return -1
    if s.has_react:
        return s.react_pending[0]
    return s.turn


cdef inline bint solo_fits(const SoloState* s, int f) noexcept nogil:
    """Engine fits(): whether face f may be laid on the top card."""
    cdef int top
    if solo_fblack[f] or s.colour < 0 or solo_fcolour[f] == s.colour:
        return True
    top = s.discard[s.ndiscard - 1]
    return not solo_fblack[top] and solo_frank[f] == solo_frank[top]


cdef inline bint solo_needs_call_mask(unsigned long long m, int size, bint multiples) noexcept nogil:
    """solo_needs_call for a hand given by its held mask m and its size."""
    cdef int v
    if size == 1:
        return True
    if size <= 0:
        return False
    if multiples and size >= 3:
        v = solo_fnumber[solo_ctz(m)]
        if v and not (m & ~solo_mask_number[v]):
            return True
    return size <= 3 and (m & solo_mask_rank[SOLO_RK_GIFT]) != 0


cdef inline unsigned long long solo_mask_less(const SoloState* s, int seat, int f0, int f1,
                                             int f2) noexcept nogil:
    """The held mask of seat's hand less one card of each face f0, f1, f2 (-1: none)."""
    cdef unsigned long long m = s.held[seat]
    if f0 >= 0 and s.cnt[seat][f0] <= 1 + (f1 == f0) + (f2 == f0):
        m &= ~(1ULL << f0)
    if f1 >= 0 and s.cnt[seat][f1] <= 1 + (f0 == f1) + (f2 == f1):
        m &= ~(1ULL << f1)
    if f2 >= 0 and s.cnt[seat][f2] <= 1 + (f0 == f2) + (f1 == f2):
        m &= ~(1ULL << f2)
    return m


cdef inline bint solo_needs_call_less(const SoloState* s, int seat, int size, int ex) noexcept nogil:
    """solo_needs_call for seat's hand less one card of face ex (size: the size without it)."""
    cdef unsigned long long m = s.held[seat]
    if s.cnt[seat][ex] == 1:
        m &= ~(1ULL << ex)
    return solo_needs_call_mask(m, size, s.opt_multiples)


cdef inline bint solo_holds_protection(const SoloState* s, int seat) noexcept nogil:
    return s.opt_protection and (s.held[seat] & solo_mask_rank[SOLO_RK_PROT]) != 0


cdef inline int solo_window_of(const SoloState* s, int seat) noexcept nogil:
    """The index of seat's open SOLO window (engine window_of), -1 if none."""
    cdef int i
    for i in range(s.nsolo):
        if s.solo_seat[i] == seat:
            return i
    return -1


cdef inline bint solo_in_pending(const SoloState* s, int seat) noexcept nogil:
    cdef int i
    for i in range(s.react_npending):
        if s.react_pending[i] == seat:
            return True
    return False


cdef inline unsigned long long solo_stack_mask(const SoloState* s) noexcept nogil:
    """The faces that answer the pending penalty (engine _stacks): a Draw 2 on a Draw 2, a Wild
    Draw 4 on a Wild Draw 4, either on either with mixed_stacking."""
    cdef unsigned long long m = 0
    if s.opt_mixed_stacking or s.penalty_kind == SOLO_RK_D2:
        m |= solo_mask_rank[SOLO_RK_D2]
    if s.opt_mixed_stacking or s.penalty_kind == SOLO_RK_WD4:
        m |= solo_mask_rank[SOLO_RK_WD4]
    return m


cdef inline int solo_hand_points(const SoloState* s, int seat) noexcept nogil:
    cdef int f, t = 0
    cdef const unsigned char* c = s.cnt[seat]
    for f in range(SOLO_NFACES):
        if c[f]:
            t += c[f] * solo_fpoints[f]
    return t


# --- action generation ------------------------------------------------------------------
cdef inline void solo_set_simple(SoloAction* a, int kind, int target) noexcept nogil:
    a.kind = kind
    a.ncards = 0
    a.colour = -1
    a.target = target
    a.ngift = 0
    a.call = 0


cdef inline int solo_push1(SoloAction* out, int k, int f, int colour, int target, int ngift,
                           int g0, int g1, bint call) noexcept nogil:
    """Append the one-card play (and its call variant right after it when ``call``)."""
    cdef SoloAction* a
    if k >= SOLO_MAX_ACTIONS:
        return k
    a = &out[k]
    a.kind = SOLO_A_PLAY
    a.ncards = 1
    a.cards[0] = f
    a.colour = colour
    a.target = target
    a.ngift = ngift
    a.gift[0] = g0
    a.gift[1] = g1
    a.call = 0
    k += 1
    if call and k < SOLO_MAX_ACTIONS:
        out[k] = a[0]
        out[k].call = 1
        k += 1
    return k


cdef inline int solo_push_simple(SoloAction* out, int k, int kind, int target) noexcept nogil:
    if k < SOLO_MAX_ACTIONS:
        solo_set_simple(&out[k], kind, target)
        k += 1
    return k


cdef int solo_gen_plays(const SoloState* s, int seat, int f, SoloAction* out, int k) noexcept nogil:
    """Engine _plays(seat, card): every way to play face f, each followed by its call variant."""
    cdef unsigned char rest[SOLO_NFACES]
    cdef int rsize = s.hsize[seat] - 1, rank = solo_frank[f], n = s.n, col, t, a, b, na, g0, g1, ng
    cdef bint multiples = s.opt_multiples
    cdef bint call, kept
    cdef unsigned long long mrest, ma
    if rank == SOLO_RK_WILD or rank == SOLO_RK_WD4:
        call = solo_needs_call_less(s, seat, rsize, f)
        for col in range(4):
            k = solo_push1(out, k, f, col, -1, 0, 0, 0, call)
    elif rank == SOLO_RK_SWAP:
        # "!" only for the hand kept if a Protection cancels the Swap (docs/rules.md 1.8.14)
        call = s.opt_protection and solo_needs_call_less(s, seat, rsize, f)
        for t in range(n):
            if t != seat:
                k = solo_push1(out, k, f, -1, t, 0, 0, 0, call)
    elif rank == SOLO_RK_GIFT:
        memcpy(rest, s.cnt[seat], SOLO_NFACES)
        rest[f] -= 1
        kept = s.opt_protection and solo_needs_call_less(s, seat, rsize, f)
        if rsize <= 2:
            # the whole rest is given: a call only for the hand kept if it is cancelled
            ng = 0
            g0 = g1 = 0
            for a in range(SOLO_NFACES):
                na = rest[a]
                while na > 0 and ng < 2:
                    if ng == 0:
                        g0 = a
                    else:
                        g1 = a
                    ng += 1
                    na -= 1
            for t in range(n):
                if t != seat:
                    k = solo_push1(out, k, f, -1, t, ng, g0, g1, kept)
        else:
            # held masks of the rest, less the gift pair (a, a) or (a, b)
            mrest = s.held[seat]
            if not rest[f]:
                mrest &= ~(1ULL << f)
            for a in range(SOLO_NFACES):
                if not rest[a]:
                    continue
                if rest[a] >= 2:
                    ma = mrest & ~(1ULL << a) if rest[a] == 2 else mrest
                    call = kept or solo_needs_call_mask(ma, rsize - 2, multiples)
                    for t in range(n):
                        if t != seat:
                            k = solo_push1(out, k, f, -1, t, 2, a, a, call)
                ma = mrest & ~(1ULL << a) if rest[a] == 1 else mrest
                for b in range(a + 1, SOLO_NFACES):
                    if not rest[b]:
                        continue
                    call = kept or solo_needs_call_mask(ma & ~(1ULL << b) if rest[b] == 1 else ma,
                                                        rsize - 2, multiples)
                    for t in range(n):
                        if t != seat:
                            k = solo_push1(out, k, f, -1, t, 2, a, b, call)
    else:
        call = (rank != SOLO_RK_PASS or s.opt_protection) and solo_needs_call_less(s, seat, rsize, f)
        k = solo_push1(out, k, f, -1, -1, 0, 0, 0, call)
    return k


cdef int solo_gen_multiples(const SoloState* s, int seat, int drawn, SoloAction* out, int k) noexcept nogil:
    """Engine _multiples(seat, drawn): 3+ equal numbers, first fits, last is the new top."""
    cdef unsigned long long mrest
    cdef int v, c, total, p0, p1, p2, p3, size, first, last, i, j, m
    cdef int face[4]
    cdef int cnt[4]
    cdef int pick[4]
    cdef bint call_ok
    cdef SoloAction* a
    for v in range(9):
        if drawn >= 0 and solo_fnumber[drawn] != v + 1:
            continue
        total = 0
        for c in range(4):
            face[c] = c * 14 + v
            cnt[c] = s.cnt[seat][face[c]]
            total += cnt[c]
        if total < 3:
            continue
        for p0 in range(cnt[0] + 1):
            for p1 in range(cnt[1] + 1):
                for p2 in range(cnt[2] + 1):
                    for p3 in range(cnt[3] + 1):
                        size = p0 + p1 + p2 + p3
                        if size < 3 or size > SOLO_MAX_MULTI:
                            continue
                        pick[0] = p0
                        pick[1] = p1
                        pick[2] = p2
                        pick[3] = p3
                        if drawn >= 0 and pick[solo_fcolour[drawn]] == 0:
                            continue
                        mrest = s.held[seat]
                        for c in range(4):
                            if pick[c] and pick[c] >= cnt[c]:
                                mrest &= ~(1ULL << face[c])
                        call_ok = solo_needs_call_mask(mrest, s.hsize[seat] - size, s.opt_multiples)
                        for first in range(4):
                            if not pick[first] or not solo_fits(s, face[first]):
                                continue
                            pick[first] -= 1
                            for last in range(4):
                                if not pick[last]:
                                    continue
                                pick[last] -= 1
                                for j in range(2 if call_ok else 1):
                                    if k >= SOLO_MAX_ACTIONS:
                                        break
                                    a = &out[k]
                                    a.kind = SOLO_A_PLAY
                                    a.ncards = size
                                    a.colour = -1
                                    a.target = -1
                                    a.ngift = 0
                                    a.call = j
                                    a.cards[0] = face[first]
                                    m = 1
                                    for c in range(4):
                                        for i in range(pick[c]):
                                            if m < SOLO_MAX_MULTI - 1:   # (size <= 8: always)
                                                a.cards[m] = face[c]
                                            m += 1
                                    a.cards[size - 1] = face[last]
                                    k += 1
                                pick[last] += 1
                            pick[first] += 1
    return k


cdef inline int solo_gen_jump_ins(const SoloState* s, int seat, SoloAction* out, int k) noexcept nogil:
    cdef int top
    if not s.jump or (seat == s.laid_by and not s.opt_self_jump_in):
        return k
    top = s.discard[s.ndiscard - 1]
    if solo_fblack[top] or not s.cnt[seat][top]:
        return k
    return solo_gen_plays(s, seat, top, out, k)


cdef int solo_gen_turn(const SoloState* s, int seat, SoloAction* out, int k) noexcept nogil:
    cdef unsigned long long m
    if s.drawn >= 0:
        k = solo_gen_plays(s, seat, s.drawn, out, k)
        if s.opt_multiples:
            k = solo_gen_multiples(s, seat, s.drawn, out, k)
        return solo_push_simple(out, k, SOLO_A_KEEP, -1)
    if s.penalty:
        m = s.held[seat] & (solo_mask_rank[SOLO_RK_PROT] | solo_stack_mask(s))
    else:
        m = s.held[seat] & solo_fit_mask(s)
    while m:
        k = solo_gen_plays(s, seat, solo_ctz(m), out, k)
        m &= m - 1
    if s.penalty:
        return solo_push_simple(out, k, SOLO_A_DRAW, -1)
    if s.opt_multiples:
        k = solo_gen_multiples(s, seat, -1, out, k)
    return solo_push_simple(out, k, SOLO_A_DRAW, -1)


cdef int solo_legal(const SoloState* s, int seat, SoloAction* out) noexcept nogil:
    """Exactly engine State.legal_actions(seat) (as a set; the order may differ)."""
    cdef int k = 0, f, t
    if s.winner >= 0 or seat < 0 or seat >= s.n:
        return 0
    if s.has_react:
        if solo_in_pending(s, seat):
            for f in range(SOLO_F_PROT, SOLO_NFACES):
                if s.cnt[seat][f]:
                    k = solo_gen_plays(s, seat, f, out, k)
            k = solo_push_simple(out, k, SOLO_A_DECLINE, -1)
        if s.react_kind == SOLO_RK_SKIP:
            k = solo_gen_jump_ins(s, seat, out, k)
    elif seat == s.turn:
        k = solo_gen_turn(s, seat, out, k)
    else:
        k = solo_gen_jump_ins(s, seat, out, k)
    if s.opt_call_window:
        t = solo_window_of(s, seat)
        if t >= 0 and not s.solo_called[t]:
            k = solo_push_simple(out, k, SOLO_A_CALL, -1)
        for t in range(s.n):
            if t != seat:
                k = solo_push_simple(out, k, SOLO_A_CATCH, t)
    return k


cdef enum:
    SOLO_GIFT_CHOICES = 4   # Gift candidates give two of the rest's 4 cards most worth giving


cdef int solo_gift_top(const SoloState* s, int seat, int f, unsigned char* top) noexcept nogil:
    """The SOLO_GIFT_CHOICES cards of seat's hand less one card of face f that
    solo_gift_card_value ranks highest (faces in order on ties), best first; their count."""
    cdef int k = 0, i, j, g, c
    cdef double v
    for g in range(SOLO_NFACES):
        c = s.cnt[seat][g] - (1 if g == f else 0)
        if c <= 0:
            continue
        v = solo_gift_card_value(g)
        for _ in range(c):
            i = k
            while i > 0 and solo_gift_card_value(top[i - 1]) < v:
                i -= 1
            if i >= SOLO_GIFT_CHOICES:
                break
            j = k if k < SOLO_GIFT_CHOICES else SOLO_GIFT_CHOICES - 1
            while j > i:
                top[j] = top[j - 1]
                j -= 1
            top[i] = g
            if k < SOLO_GIFT_CHOICES:
                k += 1
    return k


cdef inline bint solo_gift_among(const SoloAction* a, const unsigned char* top, int k) noexcept nogil:
    """Whether the Gift's two cards are among top[0..k) (as a multiset)."""
    cdef int i, j, used = 0
    for j in range(2):
        for i in range(k):
            if not (used >> i) & 1 and top[i] == a.gift[j]:
                used |= 1 << i
                break
        else:
            return False
    return True


cdef int solo_candidates(const SoloState* s, int seat, SoloAction* out) noexcept nogil:
    """The moves the search considers for ``seat``: legal minus catches and late calls; of a
    play with a call variant only the variant ("!"); of the Gifts only those giving two of the
    rest's SOLO_GIFT_CHOICES cards most worth giving (solo_gift_top); for a seat that
    is not the one waited for, only its out-of-turn plays (jump-ins, Protections). May
    return 0 (only when legal is empty or holds only catches and calls)."""
    cdef int n, i, k = 0, gift_face = -1, ntop = 0
    cdef unsigned char top[SOLO_GIFT_CHOICES]
    cdef bint waiting = seat == solo_to_move(s)
    n = solo_legal(s, seat, out)
    for i in range(n):
        if out[i].kind == SOLO_A_CATCH or out[i].kind == SOLO_A_CALL:
            continue
        if not waiting and out[i].kind != SOLO_A_PLAY:
            continue
        # the generator writes a call variant right after its plain play
        if (out[i].kind == SOLO_A_PLAY and not out[i].call and i + 1 < n
                and out[i + 1].kind == SOLO_A_PLAY and out[i + 1].call):
            continue
        if out[i].kind == SOLO_A_PLAY and out[i].ngift == 2 and s.hsize[seat] > 3:
            if out[i].cards[0] != gift_face:
                gift_face = out[i].cards[0]
                ntop = solo_gift_top(s, seat, gift_face, top)
            if not solo_gift_among(&out[i], top, ntop):
                continue
        if k != i:
            out[k] = out[i]
        k += 1
    return k


cdef unsigned long long solo_key(const SoloAction* a) noexcept nogil:
    """An injective 64-bit label of an action (tree edges)."""
    cdef unsigned long long k = a.kind | (<unsigned long long>a.call << 3) | (<unsigned long long>a.ncards << 4)
    cdef int i
    if a.ncards > 1:
        for i in range(a.ncards):
            k |= <unsigned long long>a.cards[i] << (8 + 6 * i)
        return k
    if a.ncards == 1:
        k |= <unsigned long long>a.cards[0] << 8
    k |= <unsigned long long>(a.colour + 1) << 14
    k |= <unsigned long long>(a.target + 1) << 18
    k |= <unsigned long long>a.ngift << 22
    if a.ngift > 0:
        k |= <unsigned long long>a.gift[0] << 24
    if a.ngift > 1:
        k |= <unsigned long long>a.gift[1] << 30
    return k


# --- applying actions ----------------------------------------------------------------------
cdef inline void solo_clear_react(SoloState* s) noexcept nogil:
    s.has_react = 0
    s.react_kind = 0
    s.react_by = -1
    s.react_target = -1
    s.react_ngift = 0
    s.react_gift[0] = 0
    s.react_gift[1] = 0
    s.react_npending = 0
    s.react_nprotected = 0
    s.react_call = 0


cdef inline void solo_reshuffle(SoloState* s, Rng* rng) noexcept nogil:
    cdef int m = s.ndiscard - 1, i, j
    cdef unsigned char x
    memcpy(s.draw, s.discard, m)
    s.discard[0] = s.discard[m]
    s.ndiscard = 1
    s.ndraw = m
    s.reshuffles += 1
    for i in range(m - 1, 0, -1):
        j = rng_below(rng, i + 1)
        x = s.draw[i]
        s.draw[i] = s.draw[j]
        s.draw[j] = x


cdef inline int solo_take(SoloState* s, int seat, int count, Rng* rng) noexcept nogil:
    """Engine _take: draw up to count cards, reshuffling when needed; the last face drawn or -1."""
    cdef int i, f = -1
    for i in range(count):
        if s.ndraw == 0:
            if s.ndiscard <= 1:
                break
            solo_reshuffle(s, rng)
        s.ndraw -= 1
        f = s.draw[s.ndraw]
        solo_add(s, seat, f)
    return f


cdef inline void solo_win(SoloState* s, int seat) noexcept nogil:
    s.winner = seat
    s.turn = -1
    solo_clear_react(s)
    s.jump = 0


cdef inline void solo_close_windows(SoloState* s, int seat, Rng* rng) noexcept nogil:
    """Engine _close_windows: every SOLO window of another seat closes, in order (1.8.17)."""
    cdef int i, m = 0
    s.jump = 0
    for i in range(s.nsolo):
        if s.solo_seat[i] == seat:
            s.solo_seat[m] = seat
            s.solo_called[m] = s.solo_called[i]
            m += 1
        elif not s.opt_call_window and not s.solo_called[i]:
            solo_take(s, s.solo_seat[i], 2, rng)
    s.nsolo = m


cdef inline void solo_catch(SoloState* s, int seat, int target, Rng* rng) noexcept nogil:
    cdef int i = solo_window_of(s, target)
    if i >= 0 and not s.solo_called[i]:
        solo_take(s, target, 2, rng)
        s.nsolo -= 1
        for i in range(i, s.nsolo):
            s.solo_seat[i] = s.solo_seat[i + 1]
            s.solo_called[i] = s.solo_called[i + 1]
        return
    solo_take(s, seat, s.opt_false_catch_penalty, rng)


cdef inline void solo_draw_action(SoloState* s, int seat, Rng* rng) noexcept nogil:
    cdef int f
    if s.penalty:
        solo_take(s, seat, s.penalty, rng)
        s.penalty = 0
        s.penalty_kind = -1
        return
    f = solo_take(s, seat, 1, rng)
    if f >= 0 and solo_fits(s, f):
        s.drawn = f
    else:
        s.drawn = -1
        s.turn = solo_next(s, seat, 1)


cdef void solo_swap_rows(SoloState* s, int a, int b) noexcept nogil:
    cdef unsigned char tmp[SOLO_NFACES]
    cdef unsigned char z
    cdef unsigned long long h
    memcpy(tmp, s.cnt[a], SOLO_NFACES)
    memcpy(s.cnt[a], s.cnt[b], SOLO_NFACES)
    memcpy(s.cnt[b], tmp, SOLO_NFACES)
    z = s.hsize[a]
    s.hsize[a] = s.hsize[b]
    s.hsize[b] = z
    h = s.held[a]
    s.held[a] = s.held[b]
    s.held[b] = h


cdef inline void solo_judge_call(SoloState* s, int seat, bint due, bint call) noexcept nogil:
    """Engine _judge_call: own later plays never close the seat's window nor make up a miss;
    a new window goes after the one still open (at most the acting seat's: 1.8.17)."""
    cdef int i = solo_window_of(s, seat)
    if i >= 0:
        if s.solo_called[i] and due:
            s.solo_called[i] = call
        return
    if due and s.nsolo < SOLO_MAX_WINDOWS:
        s.solo_seat[s.nsolo] = seat
        s.solo_called[s.nsolo] = call
        s.nsolo += 1


cdef inline void solo_settle_call(SoloState* s, int by, bint kept, bint call) noexcept nogil:
    """Engine _settle_call: the call of a settled Gift, Swap or Pass hands (docs/rules.md 1.8.14)."""
    solo_judge_call(s, by, kept and solo_needs_call_mask(s.held[by], s.hsize[by], s.opt_multiples), call)


cdef void solo_resolve(SoloState* s, Rng* rng) noexcept nogil:
    """Engine _resolve: carry out the Gift, Swap or Pass hands of the closed window."""
    cdef int kind = s.react_kind, by = s.react_by, target = s.react_target
    cdef bint call = s.react_call
    cdef int ngift = s.react_ngift, i, j, m, seat, nprot = s.react_nprotected
    cdef unsigned char gift[2]
    cdef unsigned char prot[SOLO_MAX_SEATS]
    cdef int ring[SOLO_MAX_SEATS]
    cdef unsigned char old[SOLO_MAX_SEATS][SOLO_NFACES]
    cdef unsigned char oldsize[SOLO_MAX_SEATS]
    cdef unsigned long long oldheld[SOLO_MAX_SEATS]
    cdef bint skip
    gift[0] = s.react_gift[0]
    gift[1] = s.react_gift[1]
    memcpy(prot, s.react_protected, SOLO_MAX_SEATS)
    solo_clear_react(s)
    if kind == SOLO_RK_SWAP:
        solo_swap_rows(s, by, target)
        s.turn = target
        solo_settle_call(s, by, False, call)
    elif kind == SOLO_RK_GIFT:
        for i in range(ngift):
            solo_sub(s, by, gift[i])
            solo_add(s, target, gift[i])
        s.turn = solo_next(s, by, 1)
        if s.hsize[by] == 0:
            solo_win(s, by)
        else:
            solo_settle_call(s, by, True, call)
    else:
        m = 0
        for i in range(s.n):
            seat = solo_next(s, by, i)
            skip = False
            for j in range(nprot):
                if prot[j] == seat:
                    skip = True
            if not skip:
                ring[m] = seat
                m += 1
        if m >= 2:
            for i in range(m):
                memcpy(old[i], s.cnt[ring[i]], SOLO_NFACES)
                oldsize[i] = s.hsize[ring[i]]
                oldheld[i] = s.held[ring[i]]
            for i in range(m):
                j = ring[(i + 1) % m]
                memcpy(s.cnt[j], old[i], SOLO_NFACES)
                s.hsize[j] = oldsize[i]
                s.held[j] = oldheld[i]
        s.turn = solo_next(s, by, 1)
        solo_settle_call(s, by, m < 2, call)


cdef inline void solo_remove_pending(SoloState* s, int seat) noexcept nogil:
    cdef int i, m = 0
    for i in range(s.react_npending):
        if s.react_pending[i] != seat:
            s.react_pending[m] = s.react_pending[i]
            m += 1
    s.react_npending = m


cdef inline void solo_decline(SoloState* s, int seat, Rng* rng) noexcept nogil:
    solo_remove_pending(s, seat)
    if s.react_kind == SOLO_RK_SKIP:
        solo_clear_react(s)
        s.turn = solo_next(s, seat, 1)
    elif s.react_npending == 0:
        solo_resolve(s, rng)


cdef inline void solo_protect(SoloState* s, int seat, int top, Rng* rng) noexcept nogil:
    """Engine _protect: a Protection played against a Gift, Swap or Pass hands."""
    cdef int by = s.react_by
    cdef bint call = s.react_call
    s.colour = solo_fcolour[top]
    solo_remove_pending(s, seat)
    s.react_protected[s.react_nprotected] = seat
    s.react_nprotected += 1
    if s.react_kind == SOLO_RK_PASS:
        if s.react_npending == 0:
            solo_resolve(s, rng)
        return
    solo_clear_react(s)
    s.turn = solo_next(s, by, 1)
    solo_settle_call(s, by, True, call)


cdef inline void solo_effect(SoloState* s, int seat, const SoloAction* a, Rng* rng) noexcept nogil:
    cdef int top = a.cards[a.ncards - 1], rank = solo_frank[top], target, i, o
    s.colour = a.colour if a.colour >= 0 else solo_fcolour[top]
    if rank == SOLO_RK_PASS:
        s.colour = -1
    if rank == SOLO_RK_PROT:
        s.penalty = 0
        s.penalty_kind = -1
    if rank == SOLO_RK_D2 or rank == SOLO_RK_WD4:
        s.penalty += 2 if rank == SOLO_RK_D2 else 4
        s.penalty_kind = rank
    if rank == SOLO_RK_SKIP:
        target = solo_next(s, seat, 1)
        if solo_holds_protection(s, target):
            s.turn = -1
            s.has_react = 1
            s.react_kind = SOLO_RK_SKIP
            s.react_by = seat
            s.react_target = target
            s.react_ngift = 0
            s.react_npending = 1
            s.react_pending[0] = target
            s.react_nprotected = 0
        else:
            s.turn = solo_next(s, target, 1)
    elif rank == SOLO_RK_REV:
        s.direction = -s.direction
        s.turn = seat if s.n == 2 else solo_next(s, seat, 1)
    elif rank == SOLO_RK_SWAP or rank == SOLO_RK_GIFT:
        target = a.target
        s.turn = -1
        s.has_react = 1
        s.react_kind = rank
        s.react_by = seat
        s.react_target = target
        s.react_ngift = a.ngift
        s.react_gift[0] = a.gift[0] if a.ngift > 0 else 0
        s.react_gift[1] = a.gift[1] if a.ngift > 1 else 0
        s.react_call = a.call
        s.react_nprotected = 0
        s.react_npending = 0
        if solo_holds_protection(s, target):
            s.react_pending[0] = target
            s.react_npending = 1
        else:
            solo_resolve(s, rng)
    elif rank == SOLO_RK_PASS:
        s.turn = -1
        s.has_react = 1
        s.react_kind = SOLO_RK_PASS
        s.react_by = seat
        s.react_target = -1
        s.react_ngift = 0
        s.react_call = a.call
        s.react_nprotected = 0
        s.react_npending = 0
        for i in range(s.n):
            o = solo_next(s, seat, i)
            if o != seat and solo_holds_protection(s, o):
                s.react_pending[s.react_npending] = o
                s.react_npending += 1
        if s.react_npending == 0:
            solo_resolve(s, rng)
    else:
        s.turn = solo_next(s, seat, 1)


cdef inline void solo_play(SoloState* s, int seat, const SoloAction* a, Rng* rng) noexcept nogil:
    cdef int i, f, top, rank = solo_frank[a.cards[0]]
    cdef bint protecting = (s.has_react and solo_in_pending(s, seat)
                            and solo_frank[a.cards[0]] == SOLO_RK_PROT)
    for i in range(a.ncards):
        f = a.cards[i]
        solo_sub(s, seat, f)
        s.discard[s.ndiscard] = f
        s.ndiscard += 1
    s.laid_by = seat
    s.drawn = -1
    top = a.cards[a.ncards - 1]
    s.jump = not solo_fblack[top]
    if s.hsize[seat] == 0:
        solo_win(s, seat)
        return
    if rank != SOLO_RK_GIFT and rank != SOLO_RK_SWAP and rank != SOLO_RK_PASS:
        solo_judge_call(s, seat, solo_needs_call_mask(s.held[seat], s.hsize[seat], s.opt_multiples),
                        a.call)
    if protecting and s.react_kind != SOLO_RK_SKIP:
        solo_protect(s, seat, top, rng)
        return
    solo_clear_react(s)
    solo_effect(s, seat, a, rng)


cdef void solo_apply(SoloState* s, int seat, const SoloAction* a, Rng* rng) noexcept nogil:
    """Engine State.apply for a legal action (not checked); rng only shuffles reshuffles."""
    if a.kind == SOLO_A_CATCH:
        solo_catch(s, seat, a.target, rng)
        return
    if a.kind == SOLO_A_CALL:
        s.solo_called[solo_window_of(s, seat)] = 1
        return
    if a.kind == SOLO_A_DECLINE:   # closes no window (docs/rules.md 1.8.18)
        solo_decline(s, seat, rng)
        return
    solo_close_windows(s, seat, rng)
    if a.kind == SOLO_A_PLAY:
        solo_play(s, seat, a, rng)
    elif a.kind == SOLO_A_DRAW:
        solo_draw_action(s, seat, rng)
    else:   # keep
        s.drawn = -1
        s.turn = solo_next(s, seat, 1)


# --- results -----------------------------------------------------------------------------
cdef void solo_points(const SoloState* s, double* out) noexcept nogil:
    """Engine round_scores(): config.round_delta(hand points) per seat (finished round)."""
    cdef int i
    cdef double p
    for i in range(s.n):
        p = solo_hand_points(s, i)
        out[i] = -p if s.opt_scoring_pool else p


cdef void solo_evaluate(const SoloState* s, double* out) noexcept nogil:
    """A cheap estimate of solo_points at any state: each seat's hand points times the
    chance it does not go out first, that chance taken as proportional to 1/size^2 (an open
    SOLO window counts as size 1). Exactly solo_points at a finished round."""
    cdef int i, size
    cdef double w[SOLO_MAX_SEATS]
    cdef double total = 0.0, p
    if s.winner >= 0:
        solo_points(s, out)
        return
    for i in range(s.n):
        size = s.hsize[i]
        if size < 1:
            size = 1
        w[i] = 1.0 / (size * size)
        total += w[i]
    for i in range(s.n):
        p = solo_hand_points(s, i) * (1.0 - w[i] / total)
        out[i] = -p if s.opt_scoring_pool else p


# --- the rollout policy: ai/heuristic_solo.py in C -----------------------------------------
# The ``heuristic`` bot's rules (docs/ai.md): solo_score is its score of one play, exactly;
# solo_heuristic_pick plays what the heuristic bots would, seat for seat in the order the
# match driver asks them (jump-ins after the waiting seat first), building for each card
# only its best-scoring variant (colour, target, gift cards, multiples) instead of every
# legal action; solo_values turns the bot's rules into values over a candidate list (its
# choice is the highest), the search's prior.

cdef inline int solo_threat(int size) noexcept nogil:
    """How close a seat with ``size`` cards is to going out: 3 for one card, 0 for 4+."""
    return 4 - size if size < 4 else 0


cdef inline int solo_followers(const SoloState* s, int seat, const SoloAction* a, int colour,
                               int top) noexcept nogil:
    """Cards of the hand less the cards laid (gift cards count as kept) that fit on ``top``
    with ``colour`` in force: heuristic_solo._followers."""
    cdef unsigned long long mask = solo_mask_black, m
    cdef int count = 0, i
    if colour >= 0:
        mask |= solo_mask_colour[colour]
    if not solo_fblack[top]:
        mask |= solo_mask_rank[solo_frank[top]]
    m = s.held[seat] & mask
    while m:
        count += s.cnt[seat][solo_ctz(m)]
        m &= m - 1
    for i in range(a.ncards):
        if (mask >> a.cards[i]) & 1:
            count -= 1
    return count


cdef inline double solo_target_bonus(const SoloState* s, int target) noexcept nogil:
    return 15.0 * solo_threat(s.hsize[target]) - 0.1 * s.hsize[target]


cdef inline double solo_gift_card_value(int g) noexcept nogil:
    """What giving away a card of face g adds to a Gift's score."""
    cdef double v = 0.3 * solo_fpoints[g]
    if solo_fblack[g]:
        v -= 40.0
    elif solo_frank[g] == SOLO_RK_D2 or solo_frank[g] == SOLO_RK_SKIP:
        v -= 10.0
    return v


cdef double solo_score(const SoloState* s, int seat, const SoloAction* a) noexcept nogil:
    """heuristic_solo._score of the play ``a`` by ``seat`` (higher is better)."""
    cdef int hand = s.hsize[seat], nrest = hand - a.ncards - a.ngift, f = a.cards[0]
    cdef int top = a.cards[a.ncards - 1], rank = solo_frank[f], after, pts = 0, i, tn, colour
    cdef int nxt = solo_next(s, seat, 1), prv = solo_next(s, seat, -1)
    cdef bint two = s.n == 2
    cdef double bonus = 1.0 if a.call else 0.0, score, g
    if nrest <= 0:
        return 1000000.0 + bonus
    if rank == SOLO_RK_SWAP and a.target >= 0:
        after = s.hsize[a.target]
    elif rank == SOLO_RK_PASS:
        after = s.hsize[prv]
    else:
        after = nrest
    score = 100.0 * (hand - after) + bonus
    for i in range(a.ncards):
        pts += solo_fpoints[a.cards[i]]
    score += 0.3 * pts
    if solo_fblack[f] and nrest >= 3:
        score -= 30.0 + (20.0 if rank == SOLO_RK_PROT else 0.0)
    tn = solo_threat(s.hsize[nxt])
    if rank == SOLO_RK_SKIP:
        score += 25.0 if two else 5.0 + 15.0 * tn
    elif rank == SOLO_RK_REV:
        score += 25.0 if two else 15.0 * (tn - solo_threat(s.hsize[prv]))
    elif rank == SOLO_RK_D2:
        score += 8.0 + 20.0 * tn
    elif rank == SOLO_RK_WD4:
        score += 10.0 + 25.0 * tn
    elif rank == SOLO_RK_GIFT and a.target >= 0:
        g = solo_target_bonus(s, a.target)
        for i in range(a.ngift):
            g += solo_gift_card_value(a.gift[i])
        score += g
    elif rank == SOLO_RK_SWAP and a.target >= 0:
        score += solo_target_bonus(s, a.target) - 30.0 * solo_threat(nrest)
    elif rank == SOLO_RK_PASS:
        score += 10.0 * tn + 3.0 * (nrest - s.hsize[nxt])
        score -= 30.0 * solo_threat(nrest)
    if rank != SOLO_RK_SWAP and rank != SOLO_RK_PASS:
        colour = a.colour if a.colour >= 0 else solo_fcolour[top]
        score += 4.0 * solo_followers(s, seat, a, colour, top)
    return score


ctypedef struct SoloPick:
    double best
    int ties
    int seat
    SoloAction a


cdef inline void solo_consider(SoloPick* pk, double value, const SoloAction* a, Rng* rng) noexcept nogil:
    """Keep the best value; equal values (within 1e-9) share the choice uniformly."""
    if value > pk.best + 1e-9:
        pk.best = value
        pk.ties = 1
        pk.a = a[0]
    elif value >= pk.best - 1e-9:
        pk.ties += 1
        if rng_below(rng, <unsigned int>pk.ties) == 0:
            pk.a = a[0]


cdef void solo_best_single(const SoloState* s, int seat, int f, SoloPick* pk, Rng* rng) noexcept nogil:
    """Consider playing one card of face f, in its best variants: each colour of a Wild, each
    Swap target, the best two cards to give to each Gift target; the call always made."""
    cdef SoloAction a
    cdef unsigned char rest[SOLO_NFACES]
    cdef int rank = solo_frank[f], rsize = s.hsize[seat] - 1, col, t, g, b0, b1, ng, k
    cdef double v0, v1, v
    cdef unsigned long long m
    a.kind = SOLO_A_PLAY
    a.ncards = 1
    a.cards[0] = f
    a.colour = -1
    a.target = -1
    a.ngift = 0
    a.gift[0] = 0
    a.gift[1] = 0
    a.call = 0
    if rank == SOLO_RK_WILD or rank == SOLO_RK_WD4:
        a.call = solo_needs_call_less(s, seat, rsize, f)
        for col in range(4):
            a.colour = col
            solo_consider(pk, solo_score(s, seat, &a), &a, rng)
        return
    if rank == SOLO_RK_SWAP:
        a.call = s.opt_protection and solo_needs_call_less(s, seat, rsize, f)
        for t in range(s.n):
            if t != seat:
                a.target = t
                solo_consider(pk, solo_score(s, seat, &a), &a, rng)
        return
    if rank == SOLO_RK_GIFT:
        memcpy(rest, s.cnt[seat], SOLO_NFACES)
        rest[f] -= 1
        a.call = s.opt_protection and solo_needs_call_less(s, seat, rsize, f)  # if cancelled
        if rsize <= 2:   # the whole rest is given (in face order)
            ng = 0
            for g in range(SOLO_NFACES):
                for k in range(rest[g]):
                    if ng < 2:
                        a.gift[ng] = g
                        ng += 1
            a.ngift = ng
        else:            # the two cards worth giving most
            b0 = b1 = -1
            v0 = v1 = -1e300
            m = s.held[seat]
            while m:
                g = solo_ctz(m)
                m &= m - 1
                if not rest[g]:
                    continue
                v = solo_gift_card_value(g)
                for k in range(2 if rest[g] >= 2 else 1):
                    if v > v0:
                        b1 = b0
                        v1 = v0
                        b0 = g
                        v0 = v
                    elif v > v1:
                        b1 = g
                        v1 = v
            a.ngift = 2
            a.gift[0] = b0 if b0 <= b1 else b1
            a.gift[1] = b1 if b0 <= b1 else b0
            a.call = a.call or solo_needs_call_mask(solo_mask_less(s, seat, f, a.gift[0], a.gift[1]),
                                                    rsize - 2, s.opt_multiples)
        for t in range(s.n):
            if t != seat:
                a.target = t
                solo_consider(pk, solo_score(s, seat, &a), &a, rng)
        return
    a.call = (rank != SOLO_RK_PASS or s.opt_protection) and solo_needs_call_less(s, seat, rsize, f)
    solo_consider(pk, solo_score(s, seat, &a), &a, rng)


cdef void solo_best_multiples(const SoloState* s, int seat, int drawn, SoloPick* pk, Rng* rng) noexcept nogil:
    """Consider multiples: every card of a number (3 to 8, one of them fitting; with a drawn
    card, its number), ending on each colour it holds."""
    cdef SoloAction a
    cdef unsigned long long held = s.held[seat], fit = solo_fit_mask(s), rest
    cdef int v, c, cf, cl, total, m, i
    cdef int cnt[4]
    if not s.opt_multiples or s.hsize[seat] < 3:
        return
    for v in range(9):
        if drawn >= 0 and solo_fnumber[drawn] != v + 1:
            continue
        total = 0
        for c in range(4):
            cnt[c] = s.cnt[seat][c * 14 + v]
            total += cnt[c]
        if total < 3 or total > SOLO_MAX_MULTI or not (held & fit & solo_mask_number[v + 1]):
            continue
        rest = held & ~solo_mask_number[v + 1]
        a.kind = SOLO_A_PLAY
        a.ncards = total
        a.colour = -1
        a.target = -1
        a.ngift = 0
        a.gift[0] = 0
        a.gift[1] = 0
        a.call = solo_needs_call_mask(rest, s.hsize[seat] - total, s.opt_multiples)
        for cl in range(4):
            if not cnt[cl]:
                continue
            cf = -1
            for c in range(4):
                if cnt[c] > (1 if c == cl else 0) and (fit >> (c * 14 + v)) & 1:
                    cf = c
                    break
            if cf < 0:
                continue
            a.cards[0] = cf * 14 + v
            m = 1
            for c in range(4):
                for i in range(cnt[c] - (1 if c == cf else 0) - (1 if c == cl else 0)):
                    a.cards[m] = c * 14 + v
                    m += 1
            a.cards[total - 1] = cl * 14 + v
            solo_consider(pk, solo_score(s, seat, &a), &a, rng)


cdef bint solo_hurts(const SoloState* s, int seat) noexcept nogil:
    """heuristic_solo._hurts: whether the open window's Skip, Swap, Gift or Pass hands hurts."""
    cdef int mine = s.hsize[seat] - 1, kind = s.react_kind, o, j
    cdef bint protected
    if kind == SOLO_RK_SKIP:
        return s.hsize[seat] <= 3
    if kind == SOLO_RK_GIFT:
        return True
    if kind == SOLO_RK_SWAP:
        return s.hsize[s.react_by] > mine
    o = solo_next(s, seat, -1)
    while o != seat:
        protected = False
        for j in range(s.react_nprotected):
            if s.react_protected[j] == o:
                protected = True
        if not protected:
            break
        o = solo_next(s, o, -1)
    return s.hsize[o] > mine


cdef inline bint solo_may_jump(const SoloState* s, int seat) noexcept nogil:
    """Whether seat may jump in now (solo_gen_jump_ins would offer something)."""
    cdef int top
    if not s.jump or (seat == s.laid_by and not s.opt_self_jump_in):
        return False
    top = s.discard[s.ndiscard - 1]
    return not solo_fblack[top] and s.cnt[seat][top] > 0


cdef int solo_heuristic_pick(const SoloState* s, Rng* rng, SoloAction* out) noexcept nogil:
    """The heuristic bots' next action: the seat acting (-1 at the end) and its action."""
    cdef SoloPick pk
    cdef int waiting, seat, k, f, top, hand
    cdef unsigned long long m
    cdef double keep
    if s.winner >= 0:
        return -1
    waiting = solo_to_move(s)
    # 1. an uncalled SOLO window (window mode): the first seat asked calls its own, else
    #    catches the first other uncalled one (heuristic_solo._meta)
    if s.opt_call_window:
        seat = waiting + 1 if waiting + 1 < s.n else 0
        k = solo_window_of(s, seat)
        if k >= 0 and not s.solo_called[k]:
            solo_set_simple(out, SOLO_A_CALL, -1)
            return seat
        for k in range(s.nsolo):
            if not s.solo_called[k]:
                solo_set_simple(out, SOLO_A_CATCH, s.solo_seat[k])
                return seat
    pk.best = -1e300
    pk.ties = 0
    # 2. jump-ins, asked in order after the waiting seat: the first with a positive score
    if s.jump and (not s.has_react or s.react_kind == SOLO_RK_SKIP):
        top = s.discard[s.ndiscard - 1]
        seat = waiting
        for k in range(1, s.n):
            seat = seat + 1 if seat + 1 < s.n else 0
            if not solo_may_jump(s, seat) or (s.has_react and solo_in_pending(s, seat)):
                continue
            pk.best = -1e300
            pk.ties = 0
            solo_best_single(s, seat, top, &pk, rng)
            if pk.ties and pk.best > 0:
                out[0] = pk.a
                return seat
        pk.best = -1e300
        pk.ties = 0
    seat = waiting
    hand = s.hsize[seat]
    # 3. a Protection window waiting for this seat
    if s.has_react:
        if s.react_kind == SOLO_RK_SKIP and solo_may_jump(s, seat):
            solo_best_single(s, seat, s.discard[s.ndiscard - 1], &pk, rng)
            out[0] = pk.a
            return seat
        m = s.held[seat] & solo_mask_rank[SOLO_RK_PROT]
        if m and solo_hurts(s, seat):
            while m:
                solo_best_single(s, seat, solo_ctz(m), &pk, rng)
                m &= m - 1
            out[0] = pk.a
            return seat
        solo_set_simple(out, SOLO_A_DECLINE, -1)
        return seat
    # 4. the card just drawn fits: play it unless keeping it scores more
    if s.drawn >= 0:
        keep = 500000.0 if solo_frank[s.drawn] == SOLO_RK_PROT and hand > 3 else 0.0
        solo_set_simple(&pk.a, SOLO_A_KEEP, -1)
        pk.best = keep
        pk.ties = 1
        solo_best_single(s, seat, s.drawn, &pk, rng)
        solo_best_multiples(s, seat, s.drawn, &pk, rng)
        out[0] = pk.a
        return seat
    # 5. a pending penalty: stack, else protect (large penalty or short hand), else draw
    if s.penalty:
        m = s.held[seat] & solo_stack_mask(s)
        if not m and (s.penalty >= 4 or hand <= 3):
            m = s.held[seat] & solo_mask_rank[SOLO_RK_PROT]
        if m:
            while m:
                solo_best_single(s, seat, solo_ctz(m), &pk, rng)
                m &= m - 1
            out[0] = pk.a
        else:
            solo_set_simple(out, SOLO_A_DRAW, -1)
        return seat
    # 6. an ordinary turn: the best-scoring play, or draw (-100)
    solo_set_simple(&pk.a, SOLO_A_DRAW, -1)
    pk.best = -100.0
    pk.ties = 1
    m = s.held[seat] & solo_fit_mask(s)
    while m:
        solo_best_single(s, seat, solo_ctz(m), &pk, rng)
        m &= m - 1
    solo_best_multiples(s, seat, -1, &pk, rng)
    out[0] = pk.a
    return seat


cdef void solo_values(const SoloState* s, int seat, const SoloAction* acts, int n,
                      double* out) noexcept nogil:
    """The heuristic bot's preference over ``acts`` (candidates of ``seat``) as values, its
    choice the highest: play scores where it compares scores (own turn, drawn card,
    jump-ins, against 0 for letting the chance pass), and where it follows a rule
    (penalties, Protection windows) the rule's choice 100-300 above the rest, ordered
    within by 0.01 x score."""
    cdef int k, waiting = solo_to_move(s), hand = s.hsize[seat], rank
    cdef double sc, keep
    cdef bint hurts = False, cond
    cdef const SoloAction* a
    if s.has_react and waiting == seat:
        hurts = solo_hurts(s, seat)
    keep = 500000.0 if s.drawn >= 0 and solo_frank[s.drawn] == SOLO_RK_PROT and hand > 3 else 0.0
    cond = s.penalty >= 4 or hand <= 3
    for k in range(n):
        a = &acts[k]
        if a.kind != SOLO_A_PLAY:
            if a.kind == SOLO_A_DRAW:
                out[k] = 0.0 if s.penalty else -100.0
            elif a.kind == SOLO_A_KEEP:
                out[k] = keep
            else:   # decline (catches and calls are never candidates)
                out[k] = 0.0
            continue
        sc = solo_score(s, seat, a)
        rank = solo_frank[a.cards[0]]
        if seat != waiting:          # out of turn: jump-ins against waiting (0)
            out[k] = -1000.0 + 0.01 * sc if rank == SOLO_RK_PROT else sc
        elif s.has_react:            # the Protection window waits for us
            if rank != SOLO_RK_PROT:
                out[k] = 200.0 + 0.01 * sc
            else:
                out[k] = (100.0 if hurts else -100.0) + 0.01 * sc
        elif s.penalty and s.drawn < 0:
            if rank != SOLO_RK_PROT:
                out[k] = 300.0 + 0.01 * sc
            else:
                out[k] = (100.0 if cond else -100.0) + 0.01 * sc
        else:
            out[k] = sc


cdef void solo_rollout_step(SoloState* s, Rng* rng) noexcept nogil:
    """Apply one move of the heuristic rollout policy (nothing at a finished round)."""
    cdef SoloAction a
    cdef int seat = solo_heuristic_pick(s, rng, &a)
    if seat >= 0:
        solo_apply(s, seat, &a, rng)


# --- determinization ---------------------------------------------------------------------
cdef void solo_determinize(SoloState* out, const SoloInfo* info, Rng* rng) noexcept nogil:
    """A full state consistent with info: the unseen cards shuffled into the other hands'
    unknown slots and the draw pile; a hidden drawn card is one unseen card that fits; the
    hidden cards of an open Gift are drawn from the giver's sampled hand."""
    cdef unsigned char cards[SOLO_MAX_CARDS]
    cdef unsigned char gh[SOLO_MAX_CARDS]
    cdef int unknown[SOLO_MAX_SEATS]
    cdef int m = 0, f, i, j, p, seat, nfit, r, turn
    cdef unsigned char x
    out[0] = info.base
    for seat in range(info.base.n):
        unknown[seat] = info.unknown[seat]
    for f in range(SOLO_NFACES):
        for i in range(info.pool[f]):
            cards[m] = f
            m += 1
    turn = out.turn
    if info.drawn_hidden and turn >= 0 and unknown[turn] > 0:
        nfit = 0
        for i in range(m):
            if solo_fits(out, cards[i]):
                nfit += 1
        if nfit > 0:
            r = rng_below(rng, nfit)
            for i in range(m):
                if solo_fits(out, cards[i]):
                    if r == 0:
                        f = cards[i]
                        cards[i] = cards[m - 1]
                        m -= 1
                        out.cnt[turn][f] += 1   # (hsize already counts it; held: synced below)
                        out.drawn = f
                        unknown[turn] -= 1
                        break
                    r -= 1
    for i in range(m - 1, 0, -1):
        j = rng_below(rng, i + 1)
        x = cards[i]
        cards[i] = cards[j]
        cards[j] = x
    p = 0
    for seat in range(out.n):
        for i in range(unknown[seat]):
            if p < m:
                out.cnt[seat][cards[p]] += 1
                p += 1
    out.ndraw = m - p
    memcpy(out.draw, &cards[p], m - p)
    solo_sync_held(out)
    if info.gift_hidden and out.has_react and out.react_kind == SOLO_RK_GIFT and out.react_ngift > 0:
        seat = out.react_by
        m = 0
        for f in range(SOLO_NFACES):
            for i in range(out.cnt[seat][f]):
                gh[m] = f
                m += 1
        for i in range(out.react_ngift):
            if i >= m:
                break
            j = i + rng_below(rng, m - i)
            x = gh[i]
            gh[i] = gh[j]
            gh[j] = x
            out.react_gift[i] = gh[i]
        if out.react_ngift == 2 and out.react_gift[1] < out.react_gift[0]:
            x = out.react_gift[0]
            out.react_gift[0] = out.react_gift[1]
            out.react_gift[1] = x


# --- Python level ----------------------------------------------------------------------------
SOLO_STATE_BYTES = sizeof(SoloState)
SOLO_ACTION_BYTES = sizeof(SoloAction)
SOLO_INFO_BYTES = sizeof(SoloInfo)
SOLO_ACTIONS_CAP = SOLO_MAX_ACTIONS
cdef SoloAction solo_pybuf[SOLO_MAX_ACTIONS]   # scratch for the GIL-holding methods only


cdef object solo_action_text(const SoloAction* a):
    """The engine's text of an action (engine.solo.actions notation)."""
    cdef int i
    if a.kind == SOLO_A_DRAW:
        return "draw"
    if a.kind == SOLO_A_KEEP:
        return "keep"
    if a.kind == SOLO_A_CALL:
        return "solo"
    if a.kind == SOLO_A_DECLINE:
        return "decline"
    if a.kind == SOLO_A_CATCH:
        return f"catch:{a.target}"
    text = "+".join([_SOLO_TEXT[a.cards[i]] for i in range(a.ncards)])
    if a.colour >= 0:
        text += ":" + _SOLO_COLOURS[a.colour]
    if a.target >= 0:
        text += f":{a.target}"
        if a.ngift:
            text += ":" + ",".join([_SOLO_TEXT[a.gift[i]] for i in range(a.ngift)])
    if a.call:
        text += "!"
    return text


cdef int solo_parse(const SoloState* s, int seat, str text, SoloAction* out) except -1:
    """The legal action of ``seat`` written ``text`` (ValueError if there is none)."""
    cdef int n, i
    cdef SoloAction* buf = <SoloAction*>malloc(SOLO_MAX_ACTIONS * sizeof(SoloAction))
    if buf == NULL:
        raise MemoryError()
    try:
        n = solo_legal(s, seat, buf)
        wanted = text.strip()
        for i in range(n):
            if solo_action_text(&buf[i]) == wanted:
                out[0] = buf[i]
                return 0
    finally:
        free(buf)
    raise ValueError(f"{text!r} is not a legal SOLO action for seat {seat} now")


def _solo_config(config):
    from cardtable.engine.solo.config import Config

    if isinstance(config, Config):
        return config
    return Config.from_dict(config)


cdef void _solo_set_config(SoloState* s, object cfg):
    s.n = cfg.players
    s.opt_gifts = cfg.gifts
    s.opt_protection = cfg.protection
    s.opt_multiples = cfg.multiples
    s.opt_call_window = cfg.call == "window"
    s.opt_scoring_pool = cfg.scoring == "pool"
    s.opt_self_jump_in = cfg.self_jump_in
    s.opt_mixed_stacking = cfg.mixed_stacking
    s.opt_false_catch_penalty = cfg.false_catch_penalty


cdef int _solo_face(object text) except -1:
    try:
        return _SOLO_FACE[text]
    except KeyError:
        raise ValueError(f"{text!r} is not a SOLO card") from None


cdef int _solo_colour(object text) except -2:
    if text is None:
        return -1
    i = _SOLO_COLOURS.find(text) if isinstance(text, str) and len(text) == 1 else -1
    if i < 0:
        raise ValueError(f"bad SOLO colour {text!r}")
    return i


cdef int _solo_seat(object value, int n) except -2:
    if value is None:
        return -1
    if not isinstance(value, int) or not 0 <= value < n:
        raise ValueError(f"{value!r} is not a seat")
    return value


cdef int _solo_penalty_kind(object value) except -2:
    if value is None:
        return -1
    if value == "d2":
        return SOLO_RK_D2
    if value == "wd4":
        return SOLO_RK_WD4
    raise ValueError(f"bad SOLO penalty kind {value!r}")


_SOLO_REACT_KINDS = {"skip": SOLO_RK_SKIP, "gift": SOLO_RK_GIFT, "swap": SOLO_RK_SWAP,
                     "pass": SOLO_RK_PASS}
_SOLO_REACT_NAMES = {v: k for k, v in _SOLO_REACT_KINDS.items()}


cdef void _solo_set_public(SoloState* s, dict d) except *:
    """The fields after the piles, as in engine State.from_snapshot (defaults included)."""
    cdef int n = s.n, i, top
    s.turn = _solo_seat(d.get("turn", 0), n)
    s.direction = int(d.get("direction", 1))
    if s.direction not in (1, -1):
        raise ValueError("direction must be 1 or -1")
    top = s.discard[s.ndiscard - 1]
    s.colour = _solo_colour(d.get("colour", None if solo_fblack[top] else _SOLO_COLOURS[solo_fcolour[top]]))
    s.penalty = int(d.get("penalty", 0))
    s.penalty_kind = _solo_penalty_kind(d.get("penalty_kind"))
    s.jump = bool(d.get("jump", False))
    s.laid_by = _solo_seat(d.get("laid_by"), n)
    solo = d.get("solo")
    also = d.get("solo_also", [])
    windows = ([] if solo is None else [solo]) + list(also)
    if len(windows) > SOLO_MAX_WINDOWS or (also and solo is None):
        raise ValueError("bad SOLO windows")
    s.nsolo = len(windows)
    for i in range(s.nsolo):
        s.solo_seat[i] = _solo_seat(windows[i]["seat"], n)
        s.solo_called[i] = bool(windows[i]["called"])
        if s.solo_seat[i] < 0 or (i and s.solo_seat[i] == s.solo_seat[0]):
            raise ValueError("bad SOLO windows")
    solo_clear_react(s)
    react = d.get("react")
    if react is not None:
        s.has_react = 1
        s.react_kind = _SOLO_REACT_KINDS[react["kind"]]
        s.react_by = _solo_seat(int(react["by"]), n)
        s.react_target = _solo_seat(react.get("target"), n)
        pending = [int(x) for x in react["pending"]]
        protected = [int(x) for x in react.get("protected", [])]
        if not pending or len(pending) > n or len(protected) > n:
            raise ValueError("bad Protection window")
        s.react_npending = len(pending)
        for i in range(len(pending)):
            s.react_pending[i] = _solo_seat(pending[i], n)
        s.react_call = bool(react.get("call", False))
        s.react_nprotected = len(protected)
        for i in range(len(protected)):
            s.react_protected[i] = _solo_seat(protected[i], n)
        gift = react.get("gift", [])
        if isinstance(gift, list):
            if len(gift) > 2:
                raise ValueError("a Gift gives at most 2 cards")
            s.react_ngift = len(gift)
            for i in range(len(gift)):
                s.react_gift[i] = _solo_face(gift[i])
        else:
            s.react_ngift = int(gift)   # a count: the cards are sampled (SoloInfoSet)
    s.winner = _solo_seat(d.get("winner"), n)


cdef void _solo_fill_hand(SoloState* s, int seat, object texts) except *:
    for t in texts:
        s.cnt[seat][_solo_face(t)] += 1
        s.hsize[seat] += 1


cdef void _solo_fill_pile(unsigned char* pile, unsigned char* size, object texts) except *:
    if len(texts) > SOLO_MAX_CARDS:
        raise ValueError("a pile of more than 120 cards")
    size[0] = len(texts)
    for i, t in enumerate(texts):
        pile[i] = _solo_face(t)


cdef list _solo_hand_texts(const SoloState* s, int seat):
    cdef int f, i
    out = []
    for f in range(SOLO_NFACES):
        for i in range(s.cnt[seat][f]):
            out.append(_SOLO_TEXT[f])
    return out


cdef class SoloMirror:
    """A SOLO round in the C mirror (tests, benchmarks, and the search's Python side)."""

    cdef SoloState s
    cdef Rng rng            # reshuffles made by apply()
    cdef dict config        # Config.to_dict(), for snapshot()
    cdef str seed           # the engine's seed (hex) and round: snapshot() data only
    cdef int round_no

    @staticmethod
    def from_snapshot(dict d):
        """A mirror of engine ``State.snapshot()`` data (its ``known`` is ignored)."""
        cdef SoloMirror m = SoloMirror.__new__(SoloMirror)
        cdef SoloState* s = &m.s
        cdef int seat
        cfg = _solo_config(d["config"])
        memset(s, 0, sizeof(SoloState))
        _solo_set_config(s, cfg)
        m.config = cfg.to_dict()
        m.seed = d.get("seed", "")
        m.round_no = int(d.get("round", 0))
        rng_seed(&m.rng, <uint64_t>(0x5EED0 + m.round_no))
        hands = d["hands"]
        if len(hands) != s.n:
            raise ValueError(f"{len(hands)} hands for {s.n} players")
        for seat in range(s.n):
            _solo_fill_hand(s, seat, hands[seat])
        _solo_fill_pile(s.draw, &s.ndraw, d["draw"])
        _solo_fill_pile(s.discard, &s.ndiscard, d["discard"])
        if s.ndiscard == 0:
            raise ValueError("the discard pile is empty")
        s.reshuffles = int(d.get("reshuffles", 0))
        s.drawn = _solo_face(d["drawn"]) if d.get("drawn") else -1
        _solo_set_public(s, d)
        solo_sync_held(s)
        return m

    def snapshot(self):
        """The engine's snapshot() of this position, without ``known`` (not mirrored)."""
        cdef SoloState* s = &self.s
        cdef int i
        react = None
        if s.has_react:
            react = {
                "kind": _SOLO_REACT_NAMES[s.react_kind], "by": s.react_by,
                "target": None if s.react_target < 0 else s.react_target,
                "gift": [_SOLO_TEXT[s.react_gift[i]] for i in range(s.react_ngift)],
                "pending": [s.react_pending[i] for i in range(s.react_npending)],
                "protected": [s.react_protected[i] for i in range(s.react_nprotected)],
                "call": bool(s.react_call),
            }
        data = {
            "game": "solo",
            "config": dict(self.config),
            "seed": self.seed,
            "round": self.round_no,
            "hands": [_solo_hand_texts(s, i) for i in range(s.n)],
            "draw": [_SOLO_TEXT[s.draw[i]] for i in range(s.ndraw)],
            "discard": [_SOLO_TEXT[s.discard[i]] for i in range(s.ndiscard)],
            "reshuffles": s.reshuffles,
            "turn": None if s.turn < 0 else s.turn,
            "direction": s.direction,
            "colour": None if s.colour < 0 else _SOLO_COLOURS[s.colour],
            "penalty": s.penalty,
            "penalty_kind": None if s.penalty_kind < 0 else ("d2" if s.penalty_kind == SOLO_RK_D2 else "wd4"),
            "drawn": None if s.drawn < 0 else _SOLO_TEXT[s.drawn],
            "jump": bool(s.jump),
            "laid_by": None if s.laid_by < 0 else s.laid_by,
            "solo": None if s.nsolo == 0 else {"seat": s.solo_seat[0], "called": bool(s.solo_called[0])},
            "react": react,
            "winner": None if s.winner < 0 else s.winner,
        }
        if s.nsolo > 1:
            data["solo_also"] = [{"seat": s.solo_seat[i], "called": bool(s.solo_called[i])}
                                 for i in range(1, s.nsolo)]
        return data

    def legal(self, int seat):
        """The texts of solo_legal (the engine's legal_actions(seat) as a set)."""
        cdef int n = solo_legal(&self.s, seat, solo_pybuf), i
        return [solo_action_text(&solo_pybuf[i]) for i in range(n)]

    def legal_keys(self, int seat):
        """solo_key of each action of legal(seat), in the same order."""
        cdef int n = solo_legal(&self.s, seat, solo_pybuf), i
        return [solo_key(&solo_pybuf[i]) for i in range(n)]

    def candidates(self, int seat):
        cdef int n = solo_candidates(&self.s, seat, solo_pybuf), i
        return [solo_action_text(&solo_pybuf[i]) for i in range(n)]

    def apply(self, int seat, str text):
        """Apply the legal action written ``text`` (ValueError if it is not legal)."""
        cdef SoloAction a
        if self.s.winner >= 0:
            raise ValueError("the round is over")
        solo_parse(&self.s, seat, text, &a)
        solo_apply(&self.s, seat, &a, &self.rng)

    def to_move(self):
        cdef int m = solo_to_move(&self.s)
        return None if m < 0 else m

    def is_over(self):
        return solo_over(&self.s)

    def points(self):
        cdef double out[SOLO_MAX_SEATS]
        cdef int i
        if self.s.winner < 0:
            raise ValueError("the round is not over")
        solo_points(&self.s, out)
        return [out[i] for i in range(self.s.n)]

    def evaluate(self):
        cdef double out[SOLO_MAX_SEATS]
        cdef int i
        solo_evaluate(&self.s, out)
        return [out[i] for i in range(self.s.n)]

    def copy(self):
        cdef SoloMirror m = SoloMirror.__new__(SoloMirror)
        m.s = self.s
        m.rng = self.rng
        m.config = dict(self.config)
        m.seed = self.seed
        m.round_no = self.round_no
        return m

    def values(self, int seat):
        """{action text: the heuristic value solo_values gives it} over the candidates."""
        cdef int k, n = solo_candidates(&self.s, seat, solo_pybuf)
        cdef double* v = <double*>malloc(max(n, 1) * sizeof(double))
        try:
            solo_values(&self.s, seat, solo_pybuf, n, v)
            return {solo_action_text(&solo_pybuf[k]): v[k] for k in range(n)}
        finally:
            free(v)

    def rollout_action(self, unsigned long long seed):
        """(seat, text) that solo_rollout_step would play next, or None (for tests)."""
        cdef Rng rng
        cdef SoloAction a
        rng_seed(&rng, seed)
        seat = solo_heuristic_pick(&self.s, &rng, &a)
        return None if seat < 0 else (seat, solo_action_text(&a))

    def rollout(self, unsigned long long seed, int max_steps=100000):
        """Play on (in place) with solo_rollout_step until the round ends or max_steps;
        the number of steps taken."""
        cdef Rng rng
        cdef int steps = 0
        rng_seed(&rng, seed)
        with nogil:
            while self.s.winner < 0 and steps < max_steps:
                solo_rollout_step(&self.s, &rng)
                steps += 1
        return steps

    def rollout_checked(self, unsigned long long seed, int max_steps=100000):
        """rollout(), but checking that every policy move is in solo_legal (tests)."""
        cdef Rng rng
        cdef SoloAction a
        cdef int steps = 0, seat, n, i
        cdef unsigned long long key
        cdef bint found
        rng_seed(&rng, seed)
        while self.s.winner < 0 and steps < max_steps:
            seat = solo_heuristic_pick(&self.s, &rng, &a)
            n = solo_legal(&self.s, seat, solo_pybuf)
            key = solo_key(&a)
            found = False
            for i in range(n):
                if solo_key(&solo_pybuf[i]) == key:
                    found = True
                    break
            if not found:
                raise AssertionError(f"rollout move {solo_action_text(&a)!r} of seat {seat} is not legal")
            solo_apply(&self.s, seat, &a, &rng)
            steps += 1
        return steps

    def random_playout(self, unsigned long long seed):
        """Play on (in place) to the end, the waiting seat choosing uniformly among its legal
        actions other than catches and late calls (as bench/engine.py); the number of steps.
        Stops after 1,000,000 steps (a position where no one can ever play again)."""
        cdef Rng rng
        cdef int steps = 0, seat, n, i, k
        cdef SoloAction* buf = <SoloAction*>malloc(SOLO_MAX_ACTIONS * sizeof(SoloAction))
        if buf == NULL:
            raise MemoryError()
        rng_seed(&rng, seed)
        with nogil:
            while self.s.winner < 0 and steps < 1000000:
                seat = solo_to_move(&self.s)
                n = solo_legal(&self.s, seat, buf)
                k = 0
                for i in range(n):
                    if buf[i].kind != SOLO_A_CATCH and buf[i].kind != SOLO_A_CALL:
                        if k != i:
                            buf[k] = buf[i]
                        k += 1
                solo_apply(&self.s, seat, &buf[rng_below(&rng, k)], &rng)
                steps += 1
        free(buf)
        return steps


cdef class SoloInfoSet:
    """What one seat knows (from engine State.observation(seat) and the config), to sample
    full positions from. sample() leaves the seed empty, the round 0 and reshuffles 0."""

    cdef SoloInfo info
    cdef dict config

    def __init__(self, dict observation, config):
        cdef SoloState* s = &self.info.base
        cdef int n, seat, h, f, total, slots
        cdef int need[SOLO_NFACES]
        cfg = _solo_config(config)
        self.config = cfg.to_dict()
        memset(&self.info, 0, sizeof(SoloInfo))
        _solo_set_config(s, cfg)
        o = observation
        n = s.n
        if int(o["players"]) != n:
            raise ValueError("the observation and the config disagree on the players")
        seat = _solo_seat(o["seat"], n)
        self.info.seat = seat
        sizes = o["hand_sizes"]
        if len(sizes) != n:
            raise ValueError("hand_sizes")
        _solo_fill_hand(s, seat, o["hand"])
        if s.hsize[seat] != sizes[seat]:
            raise ValueError("the hand and hand_sizes disagree")
        _solo_fill_pile(s.discard, &s.ndiscard, o["discard"])
        if s.ndiscard == 0:
            raise ValueError("the discard pile is empty")
        self.info.draw_size = int(o["draw_size"])
        drawn = o.get("drawn")
        s.drawn = -1
        if isinstance(drawn, str):
            s.drawn = _solo_face(drawn)
        elif drawn is True:
            self.info.drawn_hidden = 1
        _solo_set_public(s, o)
        react = o.get("react")
        if react is not None and not isinstance(react.get("gift", []), list):
            self.info.gift_hidden = 1
        # the cards this seat knows are in other hands
        known = {int(k): v for k, v in (o.get("known") or {}).items()}
        for h in range(n):
            if h == seat:
                continue
            memset(need, 0, sizeof(need))
            for t in known.get(h, []):
                need[_solo_face(t)] += 1
            if s.has_react and s.react_kind == SOLO_RK_GIFT and h == s.react_by and not self.info.gift_hidden:
                for i in range(s.react_ngift):
                    f = s.react_gift[i]
                    if need[f] < sum(1 for g in range(s.react_ngift) if s.react_gift[g] == f):
                        need[f] += 1
            total = 0
            for f in range(SOLO_NFACES):
                s.cnt[h][f] = need[f]
                total += need[f]
            slots = int(sizes[h]) - total
            if slots < 0:
                raise ValueError(f"seat {h} is known to hold more cards than it has")
            s.hsize[h] = sizes[h]
            self.info.unknown[h] = slots
        # the unseen cards: the deck less this hand, the discard pile and the known cards
        total = 0
        for f in range(SOLO_NFACES):
            rank = solo_frank[f]
            if rank == SOLO_RK_SWAP:
                c = 1
            elif rank == SOLO_RK_GIFT:
                c = 1 if cfg.gifts else 0
            elif rank == SOLO_RK_PROT:
                c = 1 if cfg.protection else 0
            elif rank >= SOLO_RK_WILD:
                c = 4
            else:
                c = 2
            for h in range(n):
                c -= s.cnt[h][f]
            for i in range(s.ndiscard):
                if s.discard[i] == f:
                    c -= 1
            if c < 0:
                raise ValueError(f"more {_SOLO_TEXT[f]} seen than the deck holds")
            self.info.pool[f] = c
            total += c
        slots = self.info.draw_size
        for h in range(n):
            slots += self.info.unknown[h]
        if total != slots:
            raise ValueError(f"{total} unseen cards for {slots} unknown places")
        solo_sync_held(s)

    def sample(self, unsigned long long seed):
        """One determinization, as a SoloMirror."""
        cdef SoloMirror m = SoloMirror.__new__(SoloMirror)
        cdef Rng rng
        rng_seed(&rng, seed)
        solo_determinize(&m.s, &self.info, &rng)
        m.rng = rng
        m.config = dict(self.config)
        m.seed = ""
        m.round_no = 0
        return m
