# A batched environment over the C mirrors of SOLO and SCOUT (cardtable.envs.vector).
#
# Included textually into ai/_search.pyx after the two mirrors (it uses their structs and
# functions; nothing here changes a rule). N games are stepped one token at a time, with the
# GIL released: the seat asked, the token paths of its actions, the observation vector and
# the action mask are those of the PettingZoo environments (envs/asking.py, envs/tokens.py,
# envs/solo_codec.py, envs/scout_codec.py), written straight into numpy arrays.
#
# Every C-level name starts with ``vec_`` / ``Vec``.

from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset


cdef enum:
    VEC_TRACK = 1024          # observation entries remembered for clearing (a row has < 300 set)
    VEC_MAX_PATH = 8          # the longest token path: multiples of 8 cards
    VEC_PASS_KIND = 255       # a cached "pass" entry (an out-of-turn chance declined)
    VEC_KNOWN = SOLO_MAX_SEATS * SOLO_MAX_SEATS * SOLO_NFACES   # SOLO: one game's known counts

# SOLO tokens (envs/solo_codec.py)
cdef enum:
    VS_PLAY = 0
    VS_PLAY_CALL = 63
    VS_MULTI = 126
    VS_MULTI_CALL = 162
    VS_WITH = 198
    VS_TOP = 234
    VS_COLOUR = 270
    VS_TARGET = 274
    VS_GIFT = 283
    VS_DRAW = 346
    VS_KEEP = 347
    VS_CALL = 348
    VS_DECLINE = 349
    VS_CATCH = 350
    VS_PASS = 359
    VS_NUM_TOKENS = 360

# SOLO observation offsets (solo_codec.LAYOUT; tests/envs/test_vector.py checks them)
cdef enum:
    VSO_HAND = 0
    VSO_TOP = 63
    VSO_COLOUR = 126
    VSO_CLOCKWISE = 131
    VSO_PENALTY = 132
    VSO_PENALTY_KIND = 133
    VSO_DRAWN = 135
    VSO_HOLDING = 198
    VSO_JUMP = 199
    VSO_LAID_BY = 200
    VSO_TURN = 210
    VSO_TO_MOVE = 220
    VSO_SEATED = 230
    VSO_HAND_SIZES = 240
    VSO_TOTALS = 250
    VSO_SOLO = 260
    VSO_SOLO_CALLED = 270
    VSO_REACT_KIND = 271
    VSO_REACT_BY = 275
    VSO_REACT_TARGET = 285
    VSO_REACT_PENDING = 295
    VSO_REACT_PROTECTED = 305
    VSO_REACT_GIFT = 315
    VSO_REACT_GIFT_SIZE = 378
    VSO_KNOWN = 379
    VSO_DISCARD = 1009
    VSO_DRAW_SIZE = 1072
    VSO_ROUND = 1073
    VSO_RULES = 1074
    VSO_ASKED = 1081
    VSO_PATH = 1084
    VSO_SIZE = 1444

# SCOUT tokens (envs/scout_codec.py)
cdef enum:
    VC_FLIP = 0
    VC_KEEP = 1
    VC_SHOW_FROM = 2
    VC_SHOW_TO = 47
    VC_SCOUT = 92
    VC_SCOUT_SHOW = 112
    VC_INSERT = 132
    VC_NUM_TOKENS = 178
    VC_MAX_HAND = 45

# SCOUT observation offsets (scout_codec.LAYOUT)
cdef enum:
    VCO_HANDS = 0
    VCO_HAND_SIZES = 4500
    VCO_ACTIVE = 4505
    VCO_OWNER = 4705
    VCO_CAPTURED = 4710
    VCO_CHIPS = 4715
    VCO_SCOUT_SHOW = 4720
    VCO_TURN = 4725
    VCO_START = 4730
    VCO_DECIDED = 4735
    VCO_PHASE = 4736
    VCO_SET_ASIDE = 4739
    VCO_SEATED = 4740
    VCO_TOTALS = 4745
    VCO_ROUND = 4750
    VCO_ASKED = 4751
    VCO_PATH = 4754
    VCO_SIZE = 4932


ctypedef struct VecSlot:
    Rng rng
    int asked            # the seat asked (-1: none)
    int may_pass         # asked out of turn (the pass token is offered)
    unsigned int passed  # seats that passed at this position (bit per seat)
    int npath
    unsigned short path[VEC_MAX_PATH]
    int nacts            # cached actions whose paths extend the path said so far
    int cap
    void* acts           # SoloAction or ScoutAction, cap of them
    unsigned short* paths  # VEC_MAX_PATH tokens per cached action
    unsigned char* plen
    int actions          # engine actions applied in this episode
    double pot[SOLO_MAX_SEATS]   # each seat's potential (envs/shaping.py), when shaping
    int opening          # dealt again at once in this step: moves until the next step pay no
                         # shaping (the C opponents' opening moves; the engine env drops them)
    const float* inv     # per observation entry: 1 / scale, and the range values are clipped to
    const float* lo      # (envs.layout.Norm; all ones, -inf, +inf for raw observations)
    const float* hi
    unsigned short* written  # the observation entries set last time (to clear them)
    int nwritten         # how many; -1: unknown, clear the whole row


cdef inline int vec_rel(int seat, int me, int n) noexcept nogil:
    cdef int r = seat - me
    return r + n if r < 0 else r


cdef inline int vec_slot36(int f) noexcept nogil:
    """The number slot of a number face (R1..R9, G1.., as solo_codec's NUMBER_FACES)."""
    return (f // 14) * 9 + f % 14


cdef int vec_solo_encode(const SoloAction* a, int seat, int n, unsigned short* out) noexcept nogil:
    """solo_codec.encode: the token path of an action of ``seat``; returns its length."""
    cdef int k = 0, i
    if a.kind == SOLO_A_DRAW:
        out[0] = VS_DRAW
        return 1
    if a.kind == SOLO_A_KEEP:
        out[0] = VS_KEEP
        return 1
    if a.kind == SOLO_A_CALL:
        out[0] = VS_CALL
        return 1
    if a.kind == SOLO_A_DECLINE:
        out[0] = VS_DECLINE
        return 1
    if a.kind == SOLO_A_CATCH:
        out[0] = VS_CATCH + vec_rel(a.target, seat, n) - 1
        return 1
    if a.ncards > 1:
        out[0] = (VS_MULTI_CALL if a.call else VS_MULTI) + vec_slot36(a.cards[0])
        for i in range(1, a.ncards - 1):
            out[i] = VS_WITH + vec_slot36(a.cards[i])
        out[a.ncards - 1] = VS_TOP + vec_slot36(a.cards[a.ncards - 1])
        return a.ncards
    out[k] = (VS_PLAY_CALL if a.call else VS_PLAY) + a.cards[0]
    k += 1
    if a.colour >= 0:
        out[k] = VS_COLOUR + a.colour
        k += 1
    if a.target >= 0:
        out[k] = VS_TARGET + vec_rel(a.target, seat, n) - 1
        k += 1
        for i in range(a.ngift):
            out[k] = VS_GIFT + a.gift[i]
            k += 1
    return k


cdef int vec_scout_encode(const ScoutAction* a, unsigned short* out) noexcept nogil:
    """scout_codec.encode (the voluntary pass has no token: the option is off here)."""
    if a.kind == SCOUT_FLIP:
        out[0] = VC_FLIP
        return 1
    if a.kind == SCOUT_KEEP:
        out[0] = VC_KEEP
        return 1
    if a.kind == SCOUT_SHOW:
        out[0] = VC_SHOW_FROM + a.first
        out[1] = VC_SHOW_TO + a.last
        return 2
    out[0] = (VC_SCOUT if a.kind == SCOUT_SCOUT else VC_SCOUT_SHOW) + a.end * 10 + a.value - 1
    out[1] = VC_INSERT + a.pos
    if a.kind == SCOUT_SCOUT:
        return 2
    out[2] = VC_SHOW_FROM + a.first
    out[3] = VC_SHOW_TO + a.last
    return 4


# --- SOLO: what each seat knows of the other hands (the engine's State.known) ---------------
# known[observer][holder][face], counts: cards the observer saw go into the holder's hand
# (a Swap, a Gift, a Pass hands). The mirror does not keep it; the env follows the engine.

cdef inline unsigned char* vec_kcol(unsigned char* K, int r, int h) noexcept nogil:
    return K + (r * SOLO_MAX_SEATS + h) * SOLO_NFACES


cdef inline void vec_known_remove(unsigned char* K, int n, int seat, int f) noexcept nogil:
    """Engine _remove: a card leaves ``seat``'s hand; every observer forgets one copy it knew."""
    cdef int r
    cdef unsigned char* p
    for r in range(n):
        p = vec_kcol(K, r, seat) + f
        if p[0]:
            p[0] -= 1


cdef void vec_known_swap(unsigned char* K, const SoloState* s, int a, int b) noexcept nogil:
    """Engine _swap (after the mirror swapped the hands)."""
    cdef unsigned char tmp[SOLO_NFACES]
    cdef int r
    for r in range(s.n):
        memcpy(tmp, vec_kcol(K, r, a), SOLO_NFACES)
        memcpy(vec_kcol(K, r, a), vec_kcol(K, r, b), SOLO_NFACES)
        memcpy(vec_kcol(K, r, b), tmp, SOLO_NFACES)
    memset(vec_kcol(K, a, a), 0, SOLO_NFACES)
    memset(vec_kcol(K, b, b), 0, SOLO_NFACES)
    memcpy(vec_kcol(K, a, b), s.cnt[b], SOLO_NFACES)
    memcpy(vec_kcol(K, b, a), s.cnt[a], SOLO_NFACES)


cdef void vec_known_pass(unsigned char* K, const SoloState* s, int by, const unsigned char* prot,
                         int nprot) noexcept nogil:
    """Engine _pass (after the mirror passed the hands round the ring)."""
    cdef int ring[SOLO_MAX_SEATS]
    cdef unsigned char old[SOLO_MAX_SEATS][SOLO_NFACES]
    cdef int m = 0, i, j, r, seat
    cdef bint skip
    for i in range(s.n):
        seat = solo_next(s, by, i)
        skip = False
        for j in range(nprot):
            if prot[j] == seat:
                skip = True
        if not skip:
            ring[m] = seat
            m += 1
    if m < 2:
        return
    for r in range(s.n):
        for i in range(m):
            memcpy(old[i], vec_kcol(K, r, ring[i]), SOLO_NFACES)
        for i in range(m):
            memcpy(vec_kcol(K, r, ring[(i + 1) % m]), old[i], SOLO_NFACES)
    for i in range(m):
        j = ring[(i + 1) % m]
        memset(vec_kcol(K, ring[i], ring[i]), 0, SOLO_NFACES)
        memcpy(vec_kcol(K, ring[i], j), s.cnt[j], SOLO_NFACES)


cdef void vec_solo_apply(SoloState* s, unsigned char* K, int seat, const SoloAction* a,
                         Rng* rng) noexcept nogil:
    """solo_apply, and the engine's ``known`` bookkeeping of what it did: plays forget the
    cards laid; a Swap, Gift or Pass hands carried out now (at once, or when the last seat of
    its Protection window declines or protects) moves what the seats know."""
    cdef int n = s.n, k, kind = -1, by = -1, target = -1, ngift = 0, nprot = 0, rank
    cdef bint had = s.has_react
    cdef bint pending = had and solo_in_pending(s, seat)
    cdef int pkind = s.react_kind, pnpending = s.react_npending
    cdef int left = s.hsize[seat] - (a.ncards if a.kind == SOLO_A_PLAY else 0)
    cdef unsigned char gift[2]
    cdef unsigned char prot[SOLO_MAX_SEATS]
    cdef int pby = s.react_by, ptarget = s.react_target, pngift = s.react_ngift, pnprot = s.react_nprotected
    gift[0] = s.react_gift[0]
    gift[1] = s.react_gift[1]
    memcpy(prot, s.react_protected, SOLO_MAX_SEATS)
    solo_apply(s, seat, a, rng)
    if a.kind == SOLO_A_PLAY:
        for k in range(a.ncards):
            vec_known_remove(K, n, seat, a.cards[k])
        if left <= 0:
            return
        rank = solo_frank[a.cards[a.ncards - 1]]
        if pending and solo_frank[a.cards[0]] == SOLO_RK_PROT and pkind != SOLO_RK_SKIP:
            if pkind == SOLO_RK_PASS and pnpending == 1:
                kind, by, nprot = SOLO_RK_PASS, pby, pnprot + 1
                prot[pnprot] = seat
        elif (rank == SOLO_RK_SWAP or rank == SOLO_RK_GIFT or rank == SOLO_RK_PASS) and not s.has_react:
            kind, by, target, ngift, nprot = rank, seat, a.target, a.ngift, 0
            gift[0] = a.gift[0]
            gift[1] = a.gift[1]
    elif a.kind == SOLO_A_DECLINE and had and pkind != SOLO_RK_SKIP and pnpending == 1:
        kind, by, target, ngift, nprot = pkind, pby, ptarget, pngift, pnprot
    if kind == SOLO_RK_SWAP:
        vec_known_swap(K, s, by, target)
    elif kind == SOLO_RK_GIFT:
        for k in range(ngift):
            vec_known_remove(K, n, by, gift[k])
            vec_kcol(K, by, target)[gift[k]] += 1
    elif kind == SOLO_RK_PASS:
        vec_known_pass(K, s, by, prot, nprot)


cdef inline void vec_clear(VecSlot* slot, float* v, int size) noexcept nogil:
    """Zero the entries the last observation set (the whole row when unknown): the large,
    mostly zero rows are not swept at every step."""
    cdef int k
    if slot.nwritten < 0:
        memset(v, 0, size * sizeof(float))
    else:
        for k in range(slot.nwritten):
            v[slot.written[k]] = 0
    slot.nwritten = 0 if slot.written != NULL else -1   # no list: an untracked (dense) row


cdef inline void vec_note(VecSlot* slot, int i) noexcept nogil:
    if slot.nwritten >= 0:
        if slot.nwritten < VEC_TRACK:
            slot.written[slot.nwritten] = i
            slot.nwritten += 1
        else:
            slot.nwritten = -1


cdef inline void vec_put(VecSlot* slot, float* v, int i, float x) noexcept nogil:
    """v[i] = x, scaled and clipped, on a cleared row (nothing to do for 0)."""
    cdef float y
    if x != 0:
        y = x * slot.inv[i]
        if y > slot.hi[i]:
            y = slot.hi[i]
        elif y < slot.lo[i]:
            y = slot.lo[i]
        v[i] = y
        vec_note(slot, i)


cdef inline void vec_add(VecSlot* slot, float* v, int i, float x) noexcept nogil:
    """v[i] += x (x > 0), scaled and clipped."""
    cdef float y = v[i] + x * slot.inv[i]
    v[i] = slot.hi[i] if y > slot.hi[i] else y
    vec_note(slot, i)


cdef void vec_solo_features(const SoloState* s, const unsigned char* K, VecSlot* slot, int me,
                            float* v) noexcept nogil:
    """solo_codec.features of seat ``me``."""
    cdef int n = s.n, f, i, top, h
    cdef const unsigned char* row
    vec_clear(slot, v, VSO_SIZE)
    for f in range(SOLO_NFACES):
        vec_put(slot, v, VSO_HAND + f, s.cnt[me][f])
    top = s.discard[s.ndiscard - 1]
    vec_put(slot, v, VSO_TOP + top, 1)
    vec_put(slot, v, VSO_COLOUR + (4 if s.colour < 0 else s.colour), 1)
    vec_put(slot, v, VSO_CLOCKWISE, s.direction == 1)
    vec_put(slot, v, VSO_PENALTY, s.penalty)
    if s.penalty_kind == SOLO_RK_D2:
        vec_put(slot, v, VSO_PENALTY_KIND, 1)
    elif s.penalty_kind == SOLO_RK_WD4:
        vec_put(slot, v, VSO_PENALTY_KIND + 1, 1)
    if s.drawn >= 0:
        vec_put(slot, v, VSO_HOLDING, 1)
        if me == s.turn:
            vec_put(slot, v, VSO_DRAWN + s.drawn, 1)
    vec_put(slot, v, VSO_JUMP, s.jump)
    if s.laid_by >= 0:
        vec_put(slot, v, VSO_LAID_BY + vec_rel(s.laid_by, me, n), 1)
    if s.turn >= 0:
        vec_put(slot, v, VSO_TURN + vec_rel(s.turn, me, n), 1)
    i = solo_to_move(s)
    if i >= 0:
        vec_put(slot, v, VSO_TO_MOVE + vec_rel(i, me, n), 1)
    for i in range(n):
        vec_put(slot, v, VSO_SEATED + i, 1)
        vec_put(slot, v, VSO_HAND_SIZES + vec_rel(i, me, n), s.hsize[i])
    if s.nsolo:  # the first open window, as the observation's "solo" (envs/solo_codec.py)
        vec_put(slot, v, VSO_SOLO + vec_rel(s.solo_seat[0], me, n), 1)
        vec_put(slot, v, VSO_SOLO_CALLED, s.solo_called[0])
    if s.has_react:
        if s.react_kind == SOLO_RK_SKIP:
            vec_put(slot, v, VSO_REACT_KIND, 1)
        elif s.react_kind == SOLO_RK_GIFT:
            vec_put(slot, v, VSO_REACT_KIND + 1, 1)
        elif s.react_kind == SOLO_RK_SWAP:
            vec_put(slot, v, VSO_REACT_KIND + 2, 1)
        else:
            vec_put(slot, v, VSO_REACT_KIND + 3, 1)
        vec_put(slot, v, VSO_REACT_BY + vec_rel(s.react_by, me, n), 1)
        if s.react_target >= 0:
            vec_put(slot, v, VSO_REACT_TARGET + vec_rel(s.react_target, me, n), 1)
        for i in range(s.react_npending):
            vec_put(slot, v, VSO_REACT_PENDING + vec_rel(s.react_pending[i], me, n), 1)
        for i in range(s.react_nprotected):
            vec_put(slot, v, VSO_REACT_PROTECTED + vec_rel(s.react_protected[i], me, n), 1)
        if me == s.react_by or me == s.react_target:
            for i in range(s.react_ngift):
                vec_add(slot, v, VSO_REACT_GIFT + s.react_gift[i], 1)
        vec_put(slot, v, VSO_REACT_GIFT_SIZE, s.react_ngift)
    for h in range(n):
        if h != me:
            row = K + (me * SOLO_MAX_SEATS + h) * SOLO_NFACES
            for f in range(SOLO_NFACES):
                vec_put(slot, v, VSO_KNOWN + vec_rel(h, me, n) * SOLO_NFACES + f, row[f])
    for i in range(s.ndiscard):
        vec_add(slot, v, VSO_DISCARD + s.discard[i], 1)
    vec_put(slot, v, VSO_DRAW_SIZE, s.ndraw)
    vec_put(slot, v, VSO_RULES, s.opt_gifts)
    vec_put(slot, v, VSO_RULES + 1, s.opt_protection)
    vec_put(slot, v, VSO_RULES + 2, s.opt_multiples)
    vec_put(slot, v, VSO_RULES + 3, s.opt_call_window)
    vec_put(slot, v, VSO_RULES + 4, s.opt_scoring_pool)
    vec_put(slot, v, VSO_RULES + 5, s.opt_self_jump_in)
    vec_put(slot, v, VSO_RULES + 6, s.opt_mixed_stacking)
    if slot.asked == me:
        vec_put(slot, v, VSO_ASKED + (1 if slot.may_pass else 0), 1)
        vec_put(slot, v, VSO_ASKED + 2, slot.npath > 0)
        for i in range(slot.npath):
            vec_add(slot, v, VSO_PATH + slot.path[i], 1)


cdef inline void vec_scout_card(VecSlot* slot, float* v, int at, uint8_t c) noexcept nogil:
    vec_put(slot, v, at + scout_up(c) - 1, 1)
    vec_put(slot, v, at + 10 + scout_down(c) - 1, 1)


cdef void vec_scout_features(const ScoutState* s, VecSlot* slot, int me, float* v) noexcept nogil:
    """scout_codec.features of seat ``me``."""
    cdef int n = s.players, seat, r, k, h, t
    vec_clear(slot, v, VCO_SIZE)
    for seat in range(n):
        r = vec_rel(seat, me, n)
        h = s.hand_len[seat]
        if h > VC_MAX_HAND:
            h = VC_MAX_HAND
        for k in range(h):
            if seat == me or (s.known[seat] >> k) & 1:
                vec_scout_card(slot, v, VCO_HANDS + (r * VC_MAX_HAND + k) * 20, s.hand[seat][k])
        vec_put(slot, v, VCO_HAND_SIZES + r, s.hand_len[seat])
        vec_put(slot, v, VCO_CAPTURED + r, scout_popcount(s.captured[seat]))
        vec_put(slot, v, VCO_CHIPS + r, s.chips[seat])
        vec_put(slot, v, VCO_SCOUT_SHOW + r, s.scout_show[seat])
        vec_put(slot, v, VCO_SEATED + seat, 1)
    for k in range(s.active_len if s.active_len < 10 else 10):
        vec_scout_card(slot, v, VCO_ACTIVE + k * 20, s.active[k])
    if s.owner >= 0:
        vec_put(slot, v, VCO_OWNER + vec_rel(s.owner, me, n), 1)
    t = scout_to_move(s)
    if s.phase == SCOUT_PHASE_PLAY and t >= 0:
        vec_put(slot, v, VCO_TURN + vec_rel(t, me, n), 1)
    vec_put(slot, v, VCO_START + vec_rel(s.start, me, n), 1)
    vec_put(slot, v, VCO_DECIDED, s.flipped[me] >= 0)
    vec_put(slot, v, VCO_PHASE + s.phase, 1)
    vec_put(slot, v, VCO_SET_ASIDE, s.set_aside_len)
    if slot.asked == me:
        vec_put(slot, v, VCO_ASKED + (1 if slot.may_pass else 0), 1)
        vec_put(slot, v, VCO_ASKED + 2, slot.npath > 0)
        for k in range(slot.npath):
            vec_add(slot, v, VCO_PATH + slot.path[k], 1)


cdef class VectorCore:
    """N games of one kind stepped in C (the engine of cardtable.envs.vector.VectorEnv).

    The arrays are the caller's (numpy, C-contiguous): observations (N, size) float32,
    masks (N, tokens) int8, rewards (N, players) float32, dones and truncations (N,) uint8,
    seats (N,) int32 (the seat asked, whose observation and mask are written)."""

    cdef int game            # 0 SOLO, 1 SCOUT
    cdef int num, players, size, ntok, max_actions
    cdef double sign         # SOLO: rewards are -hand points (pool and penalty scoring alike)
    cdef SoloState solo_tmpl
    cdef ScoutState scout_tmpl
    cdef SoloState* solo
    cdef unsigned char* known   # SOLO: VEC_KNOWN counts per game
    cdef ScoutState* scout
    cdef VecSlot* slots
    cdef SoloAction* solo_buf
    cdef ScoutAction* scout_buf
    cdef unsigned char deck[SOLO_MAX_CARDS]
    cdef int ndeck
    cdef int hand_size       # SOLO: cards dealt to each seat (the template deal's: the engine's)
    cdef float[:, ::1] obs
    cdef signed char[:, ::1] mask
    cdef float[:, ::1] rew
    cdef unsigned char[::1] done
    cdef unsigned char[::1] trunc
    cdef int[::1] seat
    cdef float[:, ::1] final    # with an agent seat: its last observation of each finished game
    cdef bint has_final
    cdef long long episodes
    cdef float* norm         # inv, lo, hi: 3 x size floats
    cdef double shaping      # the weight of the potential-based shaped reward (0: off)
    cdef int agent           # the agent's seat when the other seats are computer opponents, else -1
    cdef int opponents       # 0 random, 1 heuristic
    cdef double* values      # scratch for the heuristic's values (one per legal action)
    cdef dict config         # SOLO: the engine Config.to_dict() (for snapshot())
    cdef bint autoreset      # deal a finished game again at once (else hold it until reset)

    def __cinit__(self):
        self.solo = NULL
        self.norm = NULL
        self.values = NULL
        self.known = NULL
        self.scout = NULL
        self.slots = NULL
        self.solo_buf = NULL
        self.scout_buf = NULL

    def __init__(self, dict template, int num, unsigned long long seed, int max_actions,
                 float[:, ::1] obs, signed char[:, ::1] mask, float[:, ::1] rew,
                 unsigned char[::1] done, unsigned char[::1] trunc, int[::1] seat,
                 const float[::1] inv, const float[::1] lo, const float[::1] hi,
                 int agent=-1, int opponents=0, double shaping=0.0, float[:, ::1] final=None,
                 bint autoreset=True):
        """``template``: the engine snapshot of a freshly dealt round 0 (its rules, its deck);
        ``inv``, ``lo``, ``hi``: per observation entry, 1 / scale and the clipping range;
        ``agent`` >= 0: only that seat is asked, ``opponents`` (0 random, 1 heuristic) play
        the others inside the C loop; ``autoreset`` off: a finished game stays as it ended,
        nobody asked, until ``reset``."""
        cdef int i, k, j
        cdef SoloMirror sm
        cdef ScoutMirror cm
        if num < 1:
            raise ValueError("num_envs must be at least 1")
        if template["config"]["game"] == "solo":
            self.game = 0
            sm = SoloMirror.from_snapshot(template)
            memcpy(&self.solo_tmpl, &sm.s, sizeof(SoloState))
            self.config = sm.config
            self.players = sm.s.n
            self.hand_size = sm.s.hsize[0]
            self.size, self.ntok = VSO_SIZE, VS_NUM_TOKENS
            self.sign = 1.0
            self.ndeck = 0
            for k in range(sm.s.ndraw):
                self.deck[self.ndeck] = sm.s.draw[k]
                self.ndeck += 1
            for k in range(sm.s.ndiscard):
                self.deck[self.ndeck] = sm.s.discard[k]
                self.ndeck += 1
            for i in range(sm.s.n):
                for k in range(SOLO_NFACES):
                    for j in range(sm.s.cnt[i][k]):
                        self.deck[self.ndeck] = k
                        self.ndeck += 1
            self.solo = <SoloState*>malloc(num * sizeof(SoloState))
            self.solo_buf = <SoloAction*>malloc(SOLO_MAX_ACTIONS * sizeof(SoloAction))
            self.known = <unsigned char*>malloc(num * VEC_KNOWN)
            if self.solo == NULL or self.solo_buf == NULL or self.known == NULL:
                raise MemoryError()
        else:
            self.game = 1
            cm = ScoutMirror.from_snapshot(template)
            if cm.s.opt_voluntary_pass:
                raise ValueError("the vector environment does not offer SCOUT's voluntary_pass")
            memcpy(&self.scout_tmpl, &cm.s, sizeof(ScoutState))
            self.players = cm.s.players
            self.size, self.ntok = VCO_SIZE, VC_NUM_TOKENS
            self.scout = <ScoutState*>malloc(num * sizeof(ScoutState))
            self.scout_buf = <ScoutAction*>malloc(SCOUT_MAX_ACTIONS * sizeof(ScoutAction))
            if self.scout == NULL or self.scout_buf == NULL:
                raise MemoryError()
        if (obs.shape[0] != num or obs.shape[1] != self.size or mask.shape[0] != num
                or mask.shape[1] != self.ntok or rew.shape[0] != num or rew.shape[1] != self.players
                or done.shape[0] != num or trunc.shape[0] != num or seat.shape[0] != num):
            raise ValueError("array shapes do not fit the environment")
        if inv.shape[0] != self.size or lo.shape[0] != self.size or hi.shape[0] != self.size:
            raise ValueError("normalisation vectors do not fit the observation")
        self.norm = <float*>malloc(3 * self.size * sizeof(float))
        if self.norm == NULL:
            raise MemoryError()
        for k in range(self.size):
            self.norm[k] = inv[k]
            self.norm[self.size + k] = lo[k]
            self.norm[2 * self.size + k] = hi[k]
        if agent >= self.players:
            raise ValueError(f"agent seat {agent} is not a seat at a {self.players}-player table")
        self.agent, self.opponents, self.shaping = agent, opponents, shaping
        self.autoreset = autoreset
        self.has_final = final is not None
        if self.has_final:
            if agent < 0 or final.shape[0] != num or final.shape[1] != self.size:
                raise ValueError("final observations need an agent seat and an (N, size) array")
            self.final = final
        self.values = <double*>malloc((SOLO_MAX_ACTIONS if self.game == 0 else SCOUT_MAX_ACTIONS)
                                      * sizeof(double))
        if self.values == NULL:
            raise MemoryError()
        self.num = num
        self.max_actions = max_actions
        self.obs, self.mask, self.rew, self.done, self.trunc, self.seat = obs, mask, rew, done, trunc, seat
        self.slots = <VecSlot*>malloc(num * sizeof(VecSlot))
        if self.slots == NULL:
            raise MemoryError()
        memset(self.slots, 0, num * sizeof(VecSlot))
        for i in range(num):
            self.slots[i].inv = self.norm
            self.slots[i].lo = self.norm + self.size
            self.slots[i].hi = self.norm + 2 * self.size
            self.slots[i].nwritten = -1
            self.slots[i].written = <unsigned short*>malloc(VEC_TRACK * sizeof(unsigned short))
            if self.slots[i].written == NULL:
                raise MemoryError()
        self.reset(seed)

    def __dealloc__(self):
        cdef int i
        if self.slots != NULL:
            for i in range(self.num):
                free(self.slots[i].acts)
                free(self.slots[i].paths)
                free(self.slots[i].plen)
                free(self.slots[i].written)
            free(self.slots)
        free(self.solo)
        free(self.norm)
        free(self.values)
        free(self.known)
        free(self.scout)
        free(self.solo_buf)
        free(self.scout_buf)

    def reset(self, unsigned long long seed):
        """Deal every game afresh; game i's stream is seeded from (seed, i)."""
        cdef int i, k
        with nogil:
            for i in range(self.num):
                rng_seed(&self.slots[i].rng, seed * <unsigned long long>0x100000001B3 + <unsigned long long>i)
                for k in range(self.players):
                    self.rew[i, k] = 0
                self.done[i] = 0
                self.trunc[i] = 0
                self._new_episode(i)
        self.episodes = 0

    # --- dealing -------------------------------------------------------------------------
    cdef void _deal_solo(self, int i) noexcept nogil:
        """engine new_round for round 0: the engine's hand size (8) a seat, then cards turned up
        until a number shows."""
        cdef SoloState* s = &self.solo[i]
        cdef Rng* rng = &self.slots[i].rng
        cdef unsigned char cards[SOLO_MAX_CARDS]
        cdef int n = self.solo_tmpl.n, k, j, t, top
        memcpy(s, &self.solo_tmpl, sizeof(SoloState))
        memcpy(cards, self.deck, self.ndeck)
        for k in range(self.ndeck - 1, 0, -1):
            j = rng_below(rng, k + 1)
            t = cards[k]
            cards[k] = cards[j]
            cards[j] = t
        memset(s.cnt, 0, sizeof(s.cnt))
        memset(s.hsize, 0, sizeof(s.hsize))
        memset(s.held, 0, sizeof(s.held))
        for k in range(self.hand_size * n):
            solo_add(s, (1 + k) % n, cards[k])
        s.ndraw = 0
        for k in range(self.hand_size * n, self.ndeck):
            s.draw[s.ndraw] = cards[k]
            s.ndraw += 1
        s.ndiscard = 0
        while s.ndraw:
            s.ndraw -= 1
            s.discard[s.ndiscard] = s.draw[s.ndraw]
            s.ndiscard += 1
            if solo_fnumber[s.draw[s.ndraw]]:
                break
        top = s.discard[s.ndiscard - 1]
        s.turn = 1 % n
        s.colour = solo_fcolour[top] if solo_fnumber[top] else -1
        s.jump = not solo_fblack[top]

    cdef void _deal_scout(self, int i) noexcept nogil:
        """engine new_round for round 0: the cards in play shuffled, each turned either way."""
        cdef ScoutState* s = &self.scout[i]
        cdef Rng* rng = &self.slots[i].rng
        cdef uint8_t cards[SCOUT_DECK]
        cdef int n = self.scout_tmpl.players, nd, k, j, seat, half
        cdef uint8_t t
        memcpy(s, &self.scout_tmpl, sizeof(ScoutState))
        nd = scout_deck_in_play(n, cards)
        for k in range(nd - 1, 0, -1):
            j = rng_below(rng, k + 1)
            t = cards[k]
            cards[k] = cards[j]
            cards[j] = t
        for k in range(nd):
            if rng_below(rng, 2):
                cards[k] = scout_turned(cards[k])
        half = nd // 2 if n == 2 else nd
        memset(s.hand_len, 0, sizeof(s.hand_len))
        for k in range(half):
            seat = (s.start + k) % n
            s.hand[seat][s.hand_len[seat]] = cards[k]
            s.hand_len[seat] += 1
        s.set_aside_len = nd - half
        for k in range(half, nd):
            s.set_aside[k - half] = cards[k]

    cdef void _potentials(self, int i, double* out) noexcept nogil:
        """envs.shaping.potentials: each seat's round score if the round ended now."""
        cdef int p
        cdef const ScoutState* c
        if self.game == 0:
            for p in range(self.players):
                out[p] = -solo_hand_points(&self.solo[i], p)
        else:
            c = &self.scout[i]
            for p in range(self.players):
                out[p] = scout_popcount(c.captured[p]) + c.chips[p] - c.hand_len[p]

    cdef void _deal(self, int i) noexcept nogil:
        """A new round in game i, and who is asked first (nothing written yet)."""
        if self.game == 0:
            self._deal_solo(i)
            memset(self.known + i * VEC_KNOWN, 0, VEC_KNOWN)
        else:
            self._deal_scout(i)
        self.slots[i].passed = 0
        self.slots[i].actions = 0
        self.slots[i].opening = 0
        self._potentials(i, self.slots[i].pot)
        self._decide(i)

    cdef void _new_episode(self, int i) noexcept nogil:
        self._deal(i)
        self._opponents(i)
        self._write(i)

    # --- who is asked, with which token paths ------------------------------------------------
    cdef int _reserve(self, VecSlot* slot, int need) noexcept nogil:
        cdef int cap = slot.cap
        cdef size_t elem = sizeof(SoloAction) if self.game == 0 else sizeof(ScoutAction)
        cdef void* a
        cdef void* p
        cdef void* q
        if need <= cap:
            return 0
        while cap < need:
            cap = cap * 2 if cap else 64
        a = realloc(slot.acts, cap * elem)
        if a != NULL:
            slot.acts = a
        p = realloc(slot.paths, cap * VEC_MAX_PATH * sizeof(unsigned short))
        if p != NULL:
            slot.paths = <unsigned short*>p
        q = realloc(slot.plen, cap)
        if q != NULL:
            slot.plen = <unsigned char*>q
        if a == NULL or p == NULL or q == NULL:
            return -1
        slot.cap = cap
        return 0

    cdef int _gather(self, int i, int seat, bint may_pass) noexcept nogil:
        """Cache seat's actions (catches that cannot succeed left out, as envs.asking does) and
        their token paths, plus ``pass`` when out of turn; returns the count of real actions."""
        cdef VecSlot* slot = &self.slots[i]
        cdef const SoloState* s
        cdef SoloAction* sa
        cdef ScoutAction* ca
        cdef int n, k, w, m = 0, genuine
        if self.game == 0:
            s = &self.solo[i]
            n = solo_legal(s, seat, self.solo_buf)
            if self._reserve(slot, n + 1) < 0:
                return 0
            sa = <SoloAction*>slot.acts
            for k in range(n):
                if self.solo_buf[k].kind == SOLO_A_CATCH:  # kept only at an open, uncalled window
                    genuine = 0
                    for w in range(s.nsolo):
                        if s.solo_seat[w] == self.solo_buf[k].target and not s.solo_called[w]:
                            genuine = 1
                    if not genuine:
                        continue
                sa[m] = self.solo_buf[k]
                slot.plen[m] = vec_solo_encode(&sa[m], seat, s.n, slot.paths + m * VEC_MAX_PATH)
                m += 1
            if may_pass and m:
                sa[m].kind = VEC_PASS_KIND
                slot.paths[m * VEC_MAX_PATH] = VS_PASS
                slot.plen[m] = 1
                slot.nacts = m + 1
            else:
                slot.nacts = m
            return m
        n = scout_legal(&self.scout[i], seat, self.scout_buf)
        if self._reserve(slot, n) < 0:
            return 0
        ca = <ScoutAction*>slot.acts
        for k in range(n):
            ca[k] = self.scout_buf[k]
            slot.plen[k] = vec_scout_encode(&ca[k], slot.paths + k * VEC_MAX_PATH)
        slot.nacts = n
        return n

    cdef void _decide(self, int i) noexcept nogil:
        """envs.asking.Asking: out-of-turn chances round the table first, then the waiting seat."""
        cdef VecSlot* slot = &self.slots[i]
        cdef int w, k, seat, n = self.players
        slot.npath = 0
        slot.may_pass = 0
        w = solo_to_move(&self.solo[i]) if self.game == 0 else scout_to_move(&self.scout[i])
        slot.asked = w
        if w < 0:
            slot.nacts = 0
            return
        if self.game == 0:
            for k in range(1, n):
                seat = (w + k) % n
                if (slot.passed >> seat) & 1:
                    continue
                if self._gather(i, seat, True):
                    slot.asked = seat
                    slot.may_pass = 1
                    return
        self._gather(i, w, False)

    cdef void _write(self, int i) noexcept nogil:
        """The asked seat's observation and mask into row i."""
        cdef VecSlot* slot = &self.slots[i]
        cdef int k, depth = slot.npath
        cdef signed char* m = &self.mask[i, 0]
        memset(m, 0, self.ntok)
        self.seat[i] = slot.asked
        if slot.asked < 0:
            return
        if self.game == 0:
            vec_solo_features(&self.solo[i], self.known + i * VEC_KNOWN, slot, slot.asked,
                              &self.obs[i, 0])
        else:
            vec_scout_features(&self.scout[i], slot, slot.asked, &self.obs[i, 0])
        for k in range(slot.nacts):
            if slot.plen[k] > depth:
                m[slot.paths[k * VEC_MAX_PATH + depth]] = 1

    # --- a step ------------------------------------------------------------------------------
    cdef void _say(self, int i, int token) noexcept nogil:
        """The asked seat says a token it may say (the caller checked the mask)."""
        cdef VecSlot* slot = &self.slots[i]
        cdef int depth = slot.npath, k, kept = 0, complete = -1
        cdef size_t elem = sizeof(SoloAction) if self.game == 0 else sizeof(ScoutAction)
        cdef char* acts = <char*>slot.acts
        cdef double pts[SOLO_MAX_SEATS]
        cdef SoloAction sa
        cdef ScoutAction ca
        cdef bint over
        for k in range(self.players):
            self.rew[i, k] = 0
        self.done[i] = 0
        self.trunc[i] = 0
        slot.opening = 0
        for k in range(slot.nacts):
            if slot.plen[k] > depth and slot.paths[k * VEC_MAX_PATH + depth] == token:
                if kept != k:
                    memcpy(acts + kept * elem, acts + k * elem, elem)
                    memcpy(slot.paths + kept * VEC_MAX_PATH, slot.paths + k * VEC_MAX_PATH,
                           VEC_MAX_PATH * sizeof(unsigned short))
                    slot.plen[kept] = slot.plen[k]
                if slot.plen[kept] == depth + 1:
                    complete = kept
                kept += 1
        slot.nacts = kept
        slot.path[depth] = token
        slot.npath = depth + 1
        if complete >= 0:
            self._complete(i, complete)
            self._opponents(i)
        self._write(i)

    cdef void _complete(self, int i, int k) noexcept nogil:
        """Apply cached action k of the seat asked (or its pass); at a round's end pay the
        rewards, mark the game done and deal again; then decide who is asked."""
        cdef VecSlot* slot = &self.slots[i]
        cdef double pts[SOLO_MAX_SEATS]
        cdef SoloAction sa
        cdef ScoutAction ca
        cdef bint over
        cdef int p
        if self.game == 0:
            sa = (<SoloAction*>slot.acts)[k]
            if sa.kind == VEC_PASS_KIND:
                slot.passed |= 1u << slot.asked
                self._decide(i)
                return
            vec_solo_apply(&self.solo[i], self.known + i * VEC_KNOWN, slot.asked, &sa, &slot.rng)
            over = solo_over(&self.solo[i])
        else:
            ca = (<ScoutAction*>slot.acts)[k]
            scout_apply(&self.scout[i], slot.asked, &ca, &slot.rng)
            over = scout_over(&self.scout[i])
        slot.passed = 0
        slot.actions += 1
        if over:
            if self.game == 0:
                solo_points(&self.solo[i], pts)
                for p in range(self.players):
                    self.rew[i, p] += -pts[p] if not self.solo[i].opt_scoring_pool else pts[p]
            else:
                scout_points(&self.scout[i], pts)
                for p in range(self.players):
                    self.rew[i, p] += pts[p]
            self.done[i] = 1
        elif slot.actions >= self.max_actions:
            self.trunc[i] = 1
        if self.shaping != 0:
            if over:
                for p in range(self.players):
                    pts[p] = 0
            else:
                self._potentials(i, pts)
            for p in range(self.players):
                if not slot.opening:
                    self.rew[i, p] += self.shaping * (pts[p] - slot.pot[p])
                slot.pot[p] = pts[p]
        if over or self.trunc[i]:
            self.episodes += 1
            if self.has_final:
                self._view(i, self.agent, &self.final[i, 0], False)
            if self.autoreset:
                # this step pays the finished game's rewards alone: the opponents' moves in
                # the new deal before the agent is asked move the potentials, paying nothing
                self._deal(i)
                slot.opening = 1
            else:                # held as it ended: nobody is asked until reset
                slot.asked = -1
                slot.nacts = 0
                slot.npath = 0
            return
        self._decide(i)

    cdef void _view(self, int i, int seat, float* out, bint asked) noexcept nogil:
        """Seat's view of game i into ``out`` (a dense write); with ``asked``, as the asked
        seat sees it (how it is asked, its path so far) when it is the one asked."""
        cdef VecSlot view = self.slots[i]
        if not asked:
            view.asked = -1
            view.npath = 0
        view.nwritten = -1       # a dense write: the row is not tracked
        view.written = NULL
        if self.game == 0:
            vec_solo_features(&self.solo[i], self.known + i * VEC_KNOWN, &view, seat, out)
        else:
            vec_scout_features(&self.scout[i], &view, seat, out)

    def view(self, int i, int seat, float[::1] out):
        """Seat's observation of game i (asked or not; a held finished game too) into ``out``."""
        if not 0 <= i < self.num:
            raise ValueError(f"no game {i}")
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} is not a seat at a {self.players}-player table")
        if out.shape[0] != self.size:
            raise ValueError(f"the view needs {self.size} values, not {out.shape[0]}")
        self._view(i, seat, &out[0], True)

    # --- computer opponents --------------------------------------------------------------
    cdef void _opponents(self, int i) noexcept nogil:
        """With an agent seat: the other seats act (whole actions) until it is asked."""
        cdef VecSlot* slot = &self.slots[i]
        cdef int guard = 0
        while self.agent >= 0 and slot.asked >= 0 and slot.asked != self.agent and guard < 1000000:
            self._complete(i, self._opponent_choice(i))
            guard += 1

    cdef int _opponent_choice(self, int i) noexcept nogil:
        """The cached entry the opponent picks: at random, or the C heuristic's choice (the
        search's rollout policy: ai/_solo.pxi solo_values, ai/_scout.pxi scout_values)."""
        cdef VecSlot* slot = &self.slots[i]
        cdef int n = slot.nacts, m = slot.nacts, k, best = 0
        cdef SoloAction* sa
        if self.opponents == 0:
            return rng_below(&slot.rng, n)
        if self.game == 1:
            scout_values(&self.scout[i], slot.asked, <ScoutAction*>slot.acts, n, self.values)
        else:
            sa = <SoloAction*>slot.acts
            if slot.may_pass:
                m = n - 1          # the last entry is the pass
            for k in range(m):     # a late call, else a catch of the uncalled seat, first
                if sa[k].kind == SOLO_A_CALL:
                    return k
            for k in range(m):
                if sa[k].kind == SOLO_A_CATCH:
                    return k
            solo_values(&self.solo[i], slot.asked, sa, m, self.values)
        for k in range(1, m):
            if self.values[k] > self.values[best]:
                best = k
        if m < n and self.values[best] <= 0:
            return m               # let the out-of-turn chance go
        return best

    cdef int _random_token(self, int i) noexcept nogil:
        cdef signed char* m = &self.mask[i, 0]
        cdef int k, count = 0, pick
        for k in range(self.ntok):
            count += m[k]
        pick = rng_below(&self.slots[i].rng, count)
        for k in range(self.ntok):
            if m[k]:
                if pick == 0:
                    return k
                pick -= 1
        return -1

    def step(self, const int[::1] tokens):
        """Each game's asked seat says tokens[i] (ValueError, nothing applied, if one is not in
        its mask). Finished games are dealt again at once (dones/truncations say so)."""
        cdef int i, t, bad = -1
        if tokens.shape[0] != self.num:
            raise ValueError(f"step needs {self.num} tokens, got {tokens.shape[0]}")
        with nogil:
            for i in range(self.num):
                t = tokens[i]
                if t < 0 or t >= self.ntok or not self.mask[i, t]:
                    bad = i
                    break
            if bad < 0:
                for i in range(self.num):
                    self._say(i, tokens[i])
        if bad >= 0:
            raise ValueError(f"token {tokens[bad]} is not legal in game {bad} now")

    def step_random(self, int steps):
        """``steps`` uniformly random legal tokens in every game (a benchmark, a random opponent);
        the arrays hold the last step's results. Returns the episodes finished so far."""
        cdef int i, k
        with nogil:
            for i in range(self.num):
                for k in range(steps):
                    self._say(i, self._random_token(i))
        return self.episodes

    def load(self, int i, dict snapshot):
        """Put an engine position (``State.snapshot()``, same rules) into game i (tests)."""
        cdef int r, h
        cdef SoloMirror sm
        cdef ScoutMirror cm
        if not 0 <= i < self.num:
            raise ValueError(f"no game {i}")
        if self.game == 0:
            sm = SoloMirror.from_snapshot(snapshot)
            memcpy(&self.solo[i], &sm.s, sizeof(SoloState))
            memset(self.known + i * VEC_KNOWN, 0, VEC_KNOWN)
            for r, row in enumerate(snapshot.get("known") or []):
                for h, texts in enumerate(row):
                    for text in texts:
                        self.known[i * VEC_KNOWN + (r * SOLO_MAX_SEATS + h) * SOLO_NFACES
                                   + _solo_face(text)] += 1
        else:
            cm = ScoutMirror.from_snapshot(snapshot)
            memcpy(&self.scout[i], &cm.s, sizeof(ScoutState))
        for r in range(self.players):   # what the opponents' moves earn from here (shaping)
            self.rew[i, r] = 0
        self.done[i] = 0
        self.trunc[i] = 0
        self.slots[i].passed = 0
        self.slots[i].actions = 0
        self.slots[i].opening = 0
        self._potentials(i, self.slots[i].pot)
        self._decide(i)
        self._opponents(i)
        self._write(i)

    def snapshot(self, int i):
        """Game i as an engine snapshot (without ``known``, which the mirrors do not keep)."""
        cdef SoloMirror sm
        cdef ScoutMirror cm
        if not 0 <= i < self.num:
            raise ValueError(f"no game {i}")
        if self.game == 0:
            sm = SoloMirror.__new__(SoloMirror)
            memcpy(&sm.s, &self.solo[i], sizeof(SoloState))
            sm.config = dict(self.config)
            sm.seed = ""
            sm.round_no = 0
            return sm.snapshot()
        cm = ScoutMirror.__new__(ScoutMirror)
        memcpy(&cm.s, &self.scout[i], sizeof(ScoutState))
        cm.seed_hex = ""
        return cm.snapshot()

    def reshuffles(self, int i):
        """SOLO: how often game i reshuffled its discard pile (0 for SCOUT)."""
        return self.solo[i].reshuffles if self.game == 0 else 0
