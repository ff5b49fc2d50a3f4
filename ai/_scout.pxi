# The C-level mirror of SCOUT (engine/scout/, docs/rules.md section 2) for the search.
#
# Included textually into ai/_search.pyx right after _rng.pxi (it uses Rng, rng_seed,
# rng_next, rng_below). Every C-level name starts with ``scout_`` / ``Scout``; internal
# helpers with ``scout__``.
#
# Representation
# --------------
# A card in a hand, on the table or set aside is one byte: ``up | (down << 4)`` (both values
# 1..10); byte 0 means "unknown" (only inside a ScoutInfo). A card's identity is its pair id
# 0..44, the index of ``(min, max)`` in the canonical deck order (cards.DECK), so a captured
# pile is a 64-bit mask of pair ids. ``known`` is a bit mask per hand aligned with hand
# positions (bit k = hand position k is public because it was scouted).
#
# A show's strength (count, kind, value) is the int ``count << 8 | kind << 4 | value``; the
# ints compare like the engine's tuples; an empty table is strength 0.
#
# Everything below reproduces engine/scout/state.py exactly; the differential test
# tests/ai/test_scout_mirror.py checks it action for action.

from libc.stdint cimport int8_t, int32_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memmove, memset


# --- cards ---------------------------------------------------------------------------------

cdef inline int scout_up(uint8_t c) noexcept nogil:
    return c & 15


cdef inline int scout_down(uint8_t c) noexcept nogil:
    return c >> 4


cdef inline uint8_t scout_card(int up, int down) noexcept nogil:
    return <uint8_t>(up | (down << 4))


cdef inline uint8_t scout_turned(uint8_t c) noexcept nogil:
    return <uint8_t>((c >> 4) | ((c & 15) << 4))


cdef inline int scout_pair_id(uint8_t c) noexcept nogil:
    """Index of the card's pair in cards.DECK (0..44)."""
    cdef int a = c & 15
    cdef int b = c >> 4
    cdef int t
    if a > b:
        t = a
        a = b
        b = t
    return (a - 1) * (20 - a) // 2 + (b - a - 1)


cdef inline uint8_t scout_pair_card(int pid) noexcept nogil:
    """The card of pair id ``pid``, lower value up."""
    cdef int a, b
    cdef int k = pid
    for a in range(1, 10):
        if k < 10 - a:
            b = a + 1 + k
            return scout_card(a, b)
        k -= 10 - a
    return 0


cdef inline int scout_deck_in_play(int players, uint8_t* out) noexcept nogil:
    """cards.deck_in_play(players) in canonical order, lower value up; returns the count."""
    cdef int a, b, n = 0
    for a in range(1, 11):
        for b in range(a + 1, 11):
            if players == 3 and b == 10:
                continue
            if (players == 2 or players == 4) and a == 9 and b == 10:
                continue
            out[n] = scout_card(a, b)
            n += 1
    return n


cdef inline int scout_popcount(uint64_t x) noexcept nogil:
    x = x - ((x >> 1) & <uint64_t>0x5555555555555555)
    x = (x & <uint64_t>0x3333333333333333) + ((x >> 2) & <uint64_t>0x3333333333333333)
    x = (x + (x >> 4)) & <uint64_t>0x0F0F0F0F0F0F0F0F
    return <int>((x * <uint64_t>0x0101010101010101) >> 56)


# --- strengths and spans -------------------------------------------------------------------

cdef inline int scout_strength(const uint8_t* ups, int n) noexcept nogil:
    """Strength of a valid show with these up values (0 for none); assumes validity."""
    cdef int step
    if n == 0:
        return 0
    if n == 1:
        return 0x110 | ups[0]
    step = <int>ups[1] - <int>ups[0]
    if step == 0:
        return (n << 8) | 0x10 | ups[0]
    if step == 1:
        return (n << 8) | ups[0]
    return (n << 8) | ups[n - 1]


cdef inline int scout_cards_strength(const uint8_t* cards, int n) noexcept nogil:
    """Strength of a valid set of cards (up values count), as scout_strength."""
    cdef int step
    if n == 0:
        return 0
    if n == 1:
        return 0x110 | (cards[0] & 15)
    step = <int>(cards[1] & 15) - <int>(cards[0] & 15)
    if step == 0:
        return (n << 8) | 0x10 | (cards[0] & 15)
    if step == 1:
        return (n << 8) | (cards[0] & 15)
    return (n << 8) | (cards[n - 1] & 15)


cdef inline int scout_valid_strength(const uint8_t* ups, int n) noexcept nogil:
    """Strength of these up values if they are a single/set/run, else -1."""
    cdef int step, k
    if n <= 0:
        return -1
    if n == 1:
        return 0x110 | ups[0]
    step = <int>ups[1] - <int>ups[0]
    if step < -1 or step > 1:
        return -1
    for k in range(2, n):
        if <int>ups[k] - <int>ups[k - 1] != step:
            return -1
    return scout_strength(ups, n)


cdef inline int scout_active_strength(const ScoutState* s) noexcept nogil:
    return scout_cards_strength(s.active, s.active_len)


cdef inline int scout_reduced_strength(const ScoutState* s, int end) noexcept nogil:
    """Strength of the active set without its ``end`` card."""
    if end == SCOUT_END_L:
        return scout_cards_strength(&s.active[1], s.active_len - 1)
    return scout_cards_strength(s.active, s.active_len - 1)


cdef inline ScoutAction scout__action(int kind, int end, int value, int pos, int first,
                                      int last) noexcept nogil:
    cdef ScoutAction a
    a.kind = <uint8_t>kind
    a.end = <uint8_t>end
    a.value = <uint8_t>value
    a.pos = <uint8_t>pos
    a.first = <uint8_t>first
    a.last = <uint8_t>last
    return a


cdef inline int scout__emit_spans(const uint8_t* ups, int h, int target, ScoutAction tmpl,
                                  ScoutAction* out, int n) noexcept nogil:
    """Append every span of ``ups`` that is a show stronger than ``target`` (engine spans order)."""
    cdef int i, j, a, step, st
    for i in range(h):
        a = ups[i]
        if (0x110 | a) > target:
            tmpl.first = <uint8_t>i
            tmpl.last = <uint8_t>i
            out[n] = tmpl
            n += 1
        if i + 1 >= h:
            continue
        step = <int>ups[i + 1] - a
        if step < -1 or step > 1:
            continue
        j = i + 1
        while j < h and <int>ups[j] - <int>ups[j - 1] == step:
            if step == 0:
                st = ((j - i + 1) << 8) | 0x10 | a
            elif step == 1:
                st = ((j - i + 1) << 8) | a
            else:
                st = ((j - i + 1) << 8) | ups[j]
            if st > target:
                tmpl.first = <uint8_t>i
                tmpl.last = <uint8_t>j
                out[n] = tmpl
                n += 1
            j += 1
    return n


cdef inline bint scout__any_span(const uint8_t* ups, int h, int target) noexcept nogil:
    """Whether some span of ``ups`` is a show stronger than ``target``."""
    cdef int i, j, a, step, st
    for i in range(h):
        a = ups[i]
        if (0x110 | a) > target:
            return True
        if i + 1 >= h:
            continue
        step = <int>ups[i + 1] - a
        if step < -1 or step > 1:
            continue
        j = i + 1
        while j < h and <int>ups[j] - <int>ups[j - 1] == step:
            if step == 0:
                st = ((j - i + 1) << 8) | 0x10 | a
            elif step == 1:
                st = ((j - i + 1) << 8) | a
            else:
                st = ((j - i + 1) << 8) | ups[j]
            if st > target:
                return True
            j += 1
    return False


cdef inline int scout__ups(const ScoutState* s, int seat, uint8_t* ups) noexcept nogil:
    cdef int k, h = s.hand_len[seat]
    for k in range(h):
        ups[k] = s.hand[seat][k] & 15
    return h


cdef inline int scout__insert_ups(const uint8_t* ups, int h, int value, int pos,
                                  uint8_t* out) noexcept nogil:
    if pos > 0:
        memcpy(out, ups, pos)
    out[pos] = <uint8_t>value
    if h > pos:
        memcpy(&out[pos + 1], &ups[pos], h - pos)
    return h + 1


# --- queries -------------------------------------------------------------------------------

cdef int scout_to_move(const ScoutState* s) noexcept nogil:
    cdef int k, seat
    if s.phase == SCOUT_PHASE_TURN_CHOICE:
        for k in range(s.players):
            seat = (s.start + k) % s.players
            if s.flipped[seat] < 0:
                return seat
        return -1
    if s.phase == SCOUT_PHASE_PLAY:
        return s.turn
    return -1


cdef bint scout_over(const ScoutState* s) noexcept nogil:
    return s.phase == SCOUT_PHASE_OVER


cdef inline bint scout__can_scout(const ScoutState* s, int seat) noexcept nogil:
    return s.active_len > 0 and (s.players > 2 or s.chips[seat] > 0)


cdef inline bint scout__can_act(const ScoutState* s, int seat) noexcept nogil:
    """engine State._can_act: the seat to move has some legal action."""
    cdef uint8_t ups[SCOUT_MAX_HAND]
    cdef int h
    if scout__can_scout(s, seat):
        return True
    h = scout__ups(s, seat, ups)
    return scout__any_span(ups, h, scout_active_strength(s))


cdef int scout_legal(const ScoutState* s, int seat, ScoutAction* out) noexcept nogil:
    """engine legal_actions(seat), in the engine's order: shows by span, scouts (L before R,
    value ascending, position ascending), then Scout & Shows in the same order, then pass."""
    cdef int n
    if s.phase == SCOUT_PHASE_TURN_CHOICE:
        if 0 <= seat < s.players and s.flipped[seat] < 0:
            out[0] = scout__action(SCOUT_FLIP, 0, 0, 0, 0, 0)
            out[1] = scout__action(SCOUT_KEEP, 0, 0, 0, 0, 0)
            return 2
        return 0
    if s.phase != SCOUT_PHASE_PLAY or seat != s.turn:
        return 0
    n = scout__legal_moves(s, seat, out)
    if s.opt_voluntary_pass:
        out[n] = scout__action(SCOUT_PASS, 0, 0, 0, 0, 0)
        n += 1
    return n


cdef int scout__legal_moves(const ScoutState* s, int seat, ScoutAction* out) noexcept nogil:
    """The shows, scouts and Scout & Shows of scout_legal (the seat to move, play phase)."""
    cdef uint8_t ups[SCOUT_MAX_HAND]
    cdef uint8_t nups[SCOUT_MAX_HAND + 1]
    cdef int h, n, e, ends, vi, v, p, lo, hi, card, rt
    h = scout__ups(s, seat, ups)
    n = scout__emit_spans(ups, h, scout_active_strength(s),
                          scout__action(SCOUT_SHOW, 0, 0, 0, 0, 0), out, 0)
    if not scout__can_scout(s, seat):
        return n
    ends = 1 if s.active_len == 1 else 2
    for e in range(ends):
        card = s.active[0] if e == SCOUT_END_L else s.active[s.active_len - 1]
        lo = card & 15
        hi = card >> 4
        if lo > hi:
            lo, hi = hi, lo
        for vi in range(2):
            v = lo if vi == 0 else hi
            for p in range(h + 1):
                out[n] = scout__action(SCOUT_SCOUT, e, v, p, 0, 0)
                n += 1
    if s.players == 2 or not s.scout_show[seat]:
        return n
    for e in range(ends):
        card = s.active[0] if e == SCOUT_END_L else s.active[s.active_len - 1]
        rt = scout_reduced_strength(s, e)
        lo = card & 15
        hi = card >> 4
        if lo > hi:
            lo, hi = hi, lo
        for vi in range(2):
            v = lo if vi == 0 else hi
            for p in range(h + 1):
                scout__insert_ups(ups, h, v, p, nups)
                n = scout__emit_spans(nups, h + 1, rt,
                                      scout__action(SCOUT_SCOUT_SHOW, e, v, p, 0, 0), out, n)
    return n


cdef void scout_points(const ScoutState* s, double* out) noexcept nogil:
    """engine round_scores() (for a finished round)."""
    cdef int seat
    for seat in range(s.players):
        out[seat] = <double>(scout_popcount(s.captured[seat]) + s.chips[seat]
                             - (0 if seat == s.exempt else s.hand_len[seat]))


cdef void scout_evaluate(const ScoutState* s, double* out) noexcept nogil:
    """Per-seat estimate of the round score: captured + chips - cards in hand (the exempt seat
    loses nothing for its hand); exactly scout_points once the round is over."""
    scout_points(s, out)


cdef unsigned long long scout_key(const ScoutAction* a) noexcept nogil:
    """The fields from the most significant down in the order scout_legal and
    scout_candidates generate moves (kind, end, value, position, first, last): their lists
    come sorted by key, as the search's merge of moves with a node's children needs."""
    return ((<unsigned long long>a.kind << 40) | (<unsigned long long>a.end << 32)
            | (<unsigned long long>a.value << 24) | (<unsigned long long>a.pos << 16)
            | (<unsigned long long>a.first << 8) | <unsigned long long>a.last)


cdef unsigned long long scout_card_key(const ScoutState* s, int seat, const ScoutAction* a) noexcept nogil:
    """A key that names what the move shows the table, not where the cards sit in the hand:
    a show by its strength and direction, a scout by the card taken (end, value up), a Scout &
    Show by both. Moves of a hidden hand that differ only in positions share it."""
    cdef uint8_t ups[SCOUT_MAX_HAND + 1]
    cdef int k, n, h = s.hand_len[seat], st, down
    if a.kind != SCOUT_SHOW and a.kind != SCOUT_SCOUT_SHOW:
        return scout_key(a) & ~(<unsigned long long>0xFFFFFF)   # pos, first, last dropped
    n = a.last - a.first + 1
    for k in range(n):
        if a.kind == SCOUT_SCOUT_SHOW:
            if a.first + k == a.pos:
                ups[k] = a.value
            else:
                ups[k] = s.hand[seat][a.first + k - (a.first + k > a.pos)] & 15
        else:
            ups[k] = s.hand[seat][a.first + k] & 15
    st = scout_strength(ups, n)
    down = n > 1 and ups[1] < ups[0]
    return ((<unsigned long long>a.kind << 40) | (<unsigned long long>a.end << 32)
            | (<unsigned long long>a.value << 24) | (<unsigned long long>down << 16)
            | <unsigned long long>st) if a.kind == SCOUT_SCOUT_SHOW else (
            (<unsigned long long>a.kind << 40) | (<unsigned long long>down << 16) | <unsigned long long>st)


# --- moves ---------------------------------------------------------------------------------

cdef inline void scout__end(ScoutState* s, int owner) noexcept nogil:
    s.phase = SCOUT_PHASE_OVER
    s.turn = -1
    s.exempt = <int8_t>owner


cdef inline void scout__pass_turn(ScoutState* s, int seat) noexcept nogil:
    cdef int nxt = (seat + 1) % s.players
    if s.players > 2 and nxt == s.owner:
        scout__end(s, nxt)
        return
    s.turn = <int8_t>nxt
    if s.players == 2 and not scout__can_act(s, nxt):
        scout__end(s, s.owner)


cdef inline void scout__turn_choice(ScoutState* s, int seat, bint flip) noexcept nogil:
    cdef uint8_t tmp[SCOUT_MAX_HAND]
    cdef int k, h
    cdef uint64_t kn, nk
    s.flipped[seat] = 1 if flip else 0
    if flip:
        h = s.hand_len[seat]
        memcpy(tmp, s.hand[seat], h)
        kn = s.known[seat]
        nk = 0
        for k in range(h):
            s.hand[seat][k] = scout_turned(tmp[h - 1 - k])
            if (kn >> (h - 1 - k)) & 1:
                nk |= (<uint64_t>1) << k
        s.known[seat] = nk
    for k in range(s.players):
        if s.flipped[k] < 0:
            return
    s.phase = SCOUT_PHASE_PLAY
    s.turn = s.start


cdef inline void scout__show(ScoutState* s, int seat, int first, int last) noexcept nogil:
    cdef int k, h = s.hand_len[seat]
    cdef int cnt = last - first + 1
    cdef uint64_t kn = s.known[seat]
    for k in range(s.active_len):
        s.captured[seat] |= (<uint64_t>1) << scout_pair_id(s.active[k])
    memcpy(s.active, &s.hand[seat][first], cnt)
    s.active_len = <uint8_t>cnt
    if h - last - 1 > 0:
        memmove(&s.hand[seat][first], &s.hand[seat][last + 1], h - last - 1)
    s.hand_len[seat] = <uint8_t>(h - cnt)
    s.known[seat] = (kn & (((<uint64_t>1) << first) - 1)) | ((kn >> (last + 1)) << first)
    s.owner = <int8_t>seat
    if h == cnt:
        s.phase = SCOUT_PHASE_OVER
        s.turn = -1
        return
    scout__pass_turn(s, seat)


cdef inline void scout__scout(ScoutState* s, int seat, int end, int value, int pos) noexcept nogil:
    cdef int owner = s.owner
    cdef int h = s.hand_len[seat]
    cdef uint8_t card
    cdef uint64_t kn = s.known[seat]
    cdef uint64_t low
    if end == SCOUT_END_L:
        card = s.active[0]
        if s.active_len > 1:
            memmove(s.active, &s.active[1], s.active_len - 1)
    else:
        card = s.active[s.active_len - 1]
    s.active_len -= 1
    if (card & 15) != value:
        card = scout_turned(card)
    if h > pos:
        memmove(&s.hand[seat][pos + 1], &s.hand[seat][pos], h - pos)
    s.hand[seat][pos] = card
    s.hand_len[seat] = <uint8_t>(h + 1)
    low = kn & (((<uint64_t>1) << pos) - 1)
    s.known[seat] = low | ((kn >> pos) << (pos + 1)) | ((<uint64_t>1) << pos)
    if s.players == 2:
        s.chips[seat] -= 1
    elif owner >= 0:
        s.chips[owner] += 1


cdef void scout_apply(ScoutState* s, int seat, const ScoutAction* a, Rng* rng) noexcept nogil:
    """Apply a legal action of ``seat`` (not checked; rng unused)."""
    cdef int kind = a.kind
    if kind == SCOUT_FLIP or kind == SCOUT_KEEP:
        scout__turn_choice(s, seat, kind == SCOUT_FLIP)
    elif kind == SCOUT_SHOW:
        scout__show(s, seat, a.first, a.last)
    elif kind == SCOUT_PASS:
        scout__end(s, s.owner)
    elif kind == SCOUT_SCOUT:
        scout__scout(s, seat, a.end, a.value, a.pos)
        if s.players == 2:
            if not scout__can_act(s, seat):
                scout__end(s, s.owner)
        else:
            scout__pass_turn(s, seat)
    else:
        s.scout_show[seat] = 0
        scout__scout(s, seat, a.end, a.value, a.pos)
        scout__show(s, seat, a.first, a.last)


# --- a uniformly random legal move without listing them all --------------------------------
# The shows of a list of up values are its single cards and the spans of two or more cards
# inside its maximal runs: stretches whose consecutive values all differ by one step (-1, 0
# or +1; two runs may share their end card). The spans of m cards of a run of L cards number
# L - m + 1 and share their count and kind; a set's share its value, and a run's lowest values
# are L - m + 1 consecutive numbers. So the spans of a run stronger than a target are counted,
# and the k-th of them found, in O(1); a hand's shows in O(hand).

ctypedef struct ScoutRun:
    uint8_t start
    uint8_t length
    int8_t step


cdef inline int scout__scan(const uint8_t* cards, int h, int target, uint8_t* ups,
                            ScoutRun* runs, int* nruns) noexcept nogil:
    """In one pass: ``ups`` = the up values of ``cards``, ``runs`` = their maximal runs of two
    or more cards, in order (``nruns`` of them); returns how many single cards beat target."""
    # Branch-free (hands are random, so branches mispredict): the open run is kept in
    # registers and written out at every break, counted only if it has two cards or more.
    cdef int i, d, u, prev, n = 0, singles = 0, brk, ok
    cdef int start = 0, length = 1, step = 99
    nruns[0] = 0
    if h <= 0:
        return 0
    prev = cards[0] & 15
    ups[0] = <uint8_t>prev
    for i in range(1, h):
        u = cards[i] & 15
        ups[i] = <uint8_t>u
        d = u - prev
        prev = u
        brk = d != step
        ok = <unsigned int>(d + 1) <= 2
        runs[n].start = <uint8_t>start
        runs[n].length = <uint8_t>length
        runs[n].step = <int8_t>step
        n += brk & (length >= 2)
        start = i - 1 if brk else start
        length = 1 + ok if brk else length + 1
        step = (d if ok else 99) if brk else step
    runs[n].start = <uint8_t>start
    runs[n].length = <uint8_t>length
    runs[n].step = <int8_t>step
    n += length >= 2
    nruns[0] = n
    if target == 0:   # an empty table: every card
        return h
    if (target >> 8) == 1:   # a single: the higher cards
        for i in range(h):
            singles += (0x110 | ups[i]) > target
    return singles


cdef inline int scout__run_equal(const uint8_t* ups, const ScoutRun* r, int target,
                                 int* first) noexcept nogil:
    """The run's spans as long as ``target`` (2+ cards) that beat it: how many; they are the
    consecutive offsets from ``first[0]``."""
    cdef int tl = target >> 8, tlow = target & 255, n, low, over
    first[0] = 0
    if tl < 2 or tl > r.length:
        return 0
    n = r.length - tl + 1
    if r.step == 0:
        return n if (0x10 | ups[r.start]) > tlow else 0
    if tlow >= 0x10:   # a set beats every run as long
        return 0
    low = ups[r.start] if r.step > 0 else ups[r.start + r.length - 1]
    over = low + r.length - tl - tlow   # lowest values low .. low + L - tl, one per offset
    if over <= 0:
        return 0
    if over > n:
        over = n
    if r.step > 0:   # the lowest value rises with the offset: the last offsets beat
        first[0] = n - over
    return over


cdef inline int scout__run_longer(const ScoutRun* r, int target) noexcept nogil:
    """The run's spans of two or more cards longer than ``target``: they all beat it."""
    cdef int lo = (target >> 8) + 1, k
    if lo < 2:
        lo = 2
    k = r.length - lo + 1
    return k * (k + 1) // 2 if k > 0 else 0


cdef inline int scout__count_runs(const uint8_t* ups, const ScoutRun* runs, int nruns,
                                  int target) noexcept nogil:
    """The spans of two or more cards of these runs stronger than ``target``."""
    cdef int i, n = 0, first
    for i in range(nruns):
        n += scout__run_equal(ups, &runs[i], target, &first) + scout__run_longer(&runs[i], target)
    return n


cdef inline void scout__nth_show(const uint8_t* ups, int h, const ScoutRun* runs, int nruns,
                                 int target, int k, int* first, int* last) noexcept nogil:
    """The k-th show of ``ups`` stronger than target: singles in hand order, then each run's
    spans as long as the target, then its longer spans by length and offset."""
    cdef int i, c, off, m, tl = target >> 8
    if tl < 2:
        for i in range(h):
            if (0x110 | ups[i]) > target:
                if k == 0:
                    first[0] = i
                    last[0] = i
                    return
                k -= 1
    for i in range(nruns):
        c = scout__run_equal(ups, &runs[i], target, &off)
        if k < c:
            first[0] = runs[i].start + off + k
            last[0] = first[0] + tl - 1
            return
        k -= c
        m = tl + 1 if tl >= 2 else 2
        while m <= runs[i].length:
            c = runs[i].length - m + 1
            if k < c:
                first[0] = runs[i].start + k
                last[0] = first[0] + m - 1
                return
            k -= c
            m += 1


cdef inline void scout__span_ends(const uint8_t* ups, int h, const ScoutRun* runs, int nruns,
                                 int target, int* startc, int* endc) noexcept nogil:
    """startc[i] / endc[i] = the shows stronger than target that start / end at index i."""
    cdef int i, o, m, c, off, tl = target >> 8
    memset(startc, 0, h * sizeof(int))
    memset(endc, 0, h * sizeof(int))
    if tl < 2:
        for i in range(h):
            if (0x110 | ups[i]) > target:
                startc[i] += 1
                endc[i] += 1
    for i in range(nruns):
        c = scout__run_equal(ups, &runs[i], target, &off)
        for o in range(off, off + c):
            startc[runs[i].start + o] += 1
            endc[runs[i].start + o + tl - 1] += 1
        m = tl + 1 if tl >= 2 else 2
        while m <= runs[i].length:
            for o in range(runs[i].length - m + 1):
                startc[runs[i].start + o] += 1
                endc[runs[i].start + o + m - 1] += 1
            m += 1


cdef inline int scout__kept_weight(const uint8_t* ups, int h, const ScoutRun* runs, int nruns,
                                   int target) noexcept nogil:
    """Over every insertion point p of a new card, the shows stronger than target that do not
    contain it: a show of m cards survives at h + 2 - m of the h + 1 points (those not
    inside it)."""
    cdef int i, m, first, tl = target >> 8, n = 0
    if tl < 2:
        for i in range(h):
            n += (0x110 | ups[i]) > target
        n *= h + 1
    for i in range(nruns):
        n += scout__run_equal(ups, &runs[i], target, &first) * (h + 2 - tl)
        m = tl + 1 if tl >= 2 else 2
        while m <= runs[i].length:
            n += (runs[i].length - m + 1) * (h + 2 - m)
            m += 1
    return n


cdef inline bint scout__near(const uint8_t* ups, int h, int v, int p) noexcept nogil:
    """Inserting v at p puts it next to a card it forms a set or a run with."""
    cdef int d
    if p > 0:
        d = <int>ups[p - 1] - v
        if -1 <= d <= 1:
            return True
    if p < h:
        d = <int>ups[p] - v
        if -1 <= d <= 1:
            return True
    return False


cdef inline int scout__reach(const uint8_t* ups, int h, int v, int p, int step,
                             int* right) noexcept nogil:
    """How many cards left of insertion point p (returned) and right of it (``right``)
    continue ``step`` through v."""
    cdef int a = 0, b = 0
    while p - 1 - a >= 0 and <int>ups[p - 1 - a] == v - (a + 1) * step:
        a += 1
    while p + b < h and <int>ups[p + b] == v + (b + 1) * step:
        b += 1
    right[0] = b
    return a


cdef inline int scout__through_pairs(int v, int step, int a, int b, int target) noexcept nogil:
    """The spans of x <= a cards left, v, and y <= b right (x + y >= 1), ``step`` apart, that
    beat target: per x, the y making it longer than the target, and the one as long if
    stronger."""
    cdef int tl = target >> 8, tlow = target & 255, n = 0, x, y0, y, low
    for x in range(a + 1):
        y0 = tl - x   # y >= y0: longer than the target
        if y0 < 1 - (x > 0):
            y0 = 1 - (x > 0)
        if y0 <= b:
            n += b - y0 + 1
        y = tl - 1 - x   # as long as the target
        if tl >= 2 and 0 <= y <= b and x + y >= 1:
            low = v - x if step == 1 else (v - y if step == -1 else 0x10 | v)
            if low > tlow:
                n += 1
    return n


cdef inline int scout__count_through(const uint8_t* ups, int h, int v, int p,
                                     int target) noexcept nogil:
    """Spans of two or more cards of the hand with v inserted at p that contain the new card
    and beat target: x cards left and y right continuing one step through v (the left
    neighbour fixes the step of any x >= 1, the right one that of any y >= 1)."""
    cdef int n = 0, sl = 9, sr = 9, a, b
    if p > 0:
        sl = v - <int>ups[p - 1]
    if p < h:
        sr = <int>ups[p] - v
    if -1 <= sl <= 1:
        a = scout__reach(ups, h, v, p, sl, &b)
        n += scout__through_pairs(v, sl, a, b, target)
    if -1 <= sr <= 1 and sr != sl:
        a = scout__reach(ups, h, v, p, sr, &b)
        n += scout__through_pairs(v, sr, a, b, target)
    return n


ctypedef struct ScoutDraw:   # the waiting seat's legal moves, counted by scout__draw_count
    uint8_t ups[SCOUT_MAX_HAND]
    ScoutRun runs[SCOUT_MAX_HAND]
    int h, nruns, target, n_show, n_scout, n_ss, total, ends
    int vals[2][2]           # [end][0: lower, 1: higher value of the card]
    int rts[2]               # the active set's strength without that end's card
    int tot[2][2]            # Scout & Shows per (end, value)


cdef int scout__draw_count(const ScoutState* s, int seat, ScoutDraw* d) noexcept nogil:
    """Count the play-phase legal moves of ``seat`` (the seat in turn) into d; returns the total.

    Shows by runs (above); scouts 2 * (hand + 1) per end; the Scout & Shows of (end, value)
    are the kept shows of every insertion point (scout__kept_weight) plus, at the points where
    the card joins a neighbour, the spans through it (and its single at every point).
    scout__draw_decode then makes the k-th of them, in a fixed order."""
    cdef int h, e, vi, v, p, card, lo, hi, kept, t
    h = s.hand_len[seat]
    d.h = h
    d.target = scout_active_strength(s)
    d.n_show = scout__scan(s.hand[seat], h, d.target, d.ups, d.runs, &d.nruns)
    d.n_show += scout__count_runs(d.ups, d.runs, d.nruns, d.target)
    d.n_scout = 0
    d.n_ss = 0
    d.ends = 0
    if scout__can_scout(s, seat):
        d.ends = 1 if s.active_len == 1 else 2
        d.n_scout = d.ends * 2 * (h + 1)
        for e in range(d.ends):
            card = s.active[0] if e == SCOUT_END_L else s.active[s.active_len - 1]
            lo = card & 15
            hi = card >> 4
            if lo > hi:
                lo, hi = hi, lo
            d.vals[e][0] = lo
            d.vals[e][1] = hi
        if s.players > 2 and s.scout_show[seat]:
            for e in range(d.ends):
                d.rts[e] = scout_reduced_strength(s, e)
                kept = scout__kept_weight(d.ups, h, d.runs, d.nruns, d.rts[e])
                for vi in range(2):
                    v = d.vals[e][vi]
                    t = kept + ((h + 1) if (0x110 | v) > d.rts[e] else 0)
                    for p in range(h + 1):
                        if scout__near(d.ups, h, v, p):
                            t += scout__count_through(d.ups, h, v, p, d.rts[e])
                    d.tot[e][vi] = t
                    d.n_ss += t
    d.total = d.n_show + d.n_scout + d.n_ss + (1 if s.opt_voluntary_pass else 0)
    return d.total


cdef void scout__draw_decode(const ScoutDraw* d, int k, ScoutAction* out) noexcept nogil:
    """The k-th (0 <= k < d.total) of the moves scout__draw_count counted: shows, scouts,
    Scout & Shows by (end, value, insertion point, show), the pass."""
    cdef uint8_t nups[SCOUT_MAX_HAND + 1]
    cdef ScoutRun nruns[SCOUT_MAX_HAND + 1]
    cdef int startc[SCOUT_MAX_HAND]
    cdef int endc[SCOUT_MAX_HAND]
    cdef int e, vi, p, c, nr, left, right, single, i = 0, j = 0, h = d.h
    if k == d.n_show + d.n_scout + d.n_ss:
        out[0] = scout__action(SCOUT_PASS, 0, 0, 0, 0, 0)
        return
    if k < d.n_show:
        scout__nth_show(d.ups, h, d.runs, d.nruns, d.target, k, &i, &j)
        out[0] = scout__action(SCOUT_SHOW, 0, 0, 0, i, j)
        return
    k -= d.n_show
    if k < d.n_scout:
        e = k >= 2 * (h + 1)   # (an end has 2 * (h + 1) scouts; no division)
        k -= e * 2 * (h + 1)
        vi = k >= h + 1
        p = k - vi * (h + 1)
        out[0] = scout__action(SCOUT_SCOUT, e, d.vals[e][vi], p, 0, 0)
        return
    k -= d.n_scout
    for e in range(d.ends):
        for vi in range(2):
            if k >= d.tot[e][vi]:
                k -= d.tot[e][vi]
                continue
            # the insertion point: the hand's shows stronger than the reduced set left of p,
            # those right of it, the single and the spans through the new card
            scout__span_ends(d.ups, h, d.runs, d.nruns, d.rts[e], startc, endc)
            right = 0
            for p in range(h):
                right += startc[p]
            left = 0
            single = (0x110 | d.vals[e][vi]) > d.rts[e]
            for p in range(h + 1):
                c = left + right + single
                if scout__near(d.ups, h, d.vals[e][vi], p):
                    c += scout__count_through(d.ups, h, d.vals[e][vi], p, d.rts[e])
                if k < c:
                    break
                k -= c
                if p < h:
                    left += endc[p]
                    right -= startc[p]
            scout__insert_ups(d.ups, h, d.vals[e][vi], p, nups)
            c = scout__scan(nups, h + 1, d.rts[e], nups, nruns, &nr)
            scout__nth_show(nups, h + 1, nruns, nr, d.rts[e], k, &i, &j)
            out[0] = scout__action(SCOUT_SCOUT_SHOW, e, d.vals[e][vi], p, i, j)
            return


cdef int scout__random_choice(const ScoutState* s, Rng* rng, ScoutAction* out) noexcept nogil:
    """A uniformly random legal action of the waiting seat (into out); returns the seat or -1."""
    cdef ScoutDraw d
    cdef int seat = scout_to_move(s)
    if seat < 0:
        return -1
    if s.phase == SCOUT_PHASE_TURN_CHOICE:
        out[0] = scout__action(SCOUT_FLIP if rng_below(rng, 2) == 0 else SCOUT_KEEP, 0, 0, 0, 0, 0)
        return seat
    if scout__draw_count(s, seat, &d) == 0:
        return -1
    scout__draw_decode(&d, <int>rng_below(rng, <unsigned int>d.total), out)
    return seat


cdef int scout__legal_count(const ScoutState* s, int seat) noexcept nogil:
    """len(legal) by the counting method of scout__random_choice (for the tests)."""
    cdef ScoutDraw d
    if s.phase == SCOUT_PHASE_TURN_CHOICE:
        return 2 if 0 <= seat < s.players and s.flipped[seat] < 0 else 0
    if s.phase != SCOUT_PHASE_PLAY or seat != s.turn:
        return 0
    return scout__draw_count(s, seat, &d)


# --- candidates: legal moves minus obviously dominated ones --------------------------------

cdef int scout_candidates(const ScoutState* s, int seat, ScoutAction* out) noexcept nogil:
    """The moves the search considers: every turn choice, show and pass; scouts inserted only
    at either end of the hand or next to a card they form a set/run with; Scout & Shows with
    such insertions whose show either uses the scouted card or is one that only the smaller
    set lets through (a show that beats the full set anyway is better played without the
    scout). A subset of scout_legal, never empty when it is not."""
    cdef int n
    if s.phase != SCOUT_PHASE_PLAY:
        return scout_legal(s, seat, out)
    if seat != s.turn:
        return 0
    n = scout__candidate_moves(s, seat, out)
    if s.opt_voluntary_pass:
        out[n] = scout__action(SCOUT_PASS, 0, 0, 0, 0, 0)
        n += 1
    return n


cdef inline int scout__emit_through(const uint8_t* ups, int h, int v, int p, int target,
                                    int lo_first, int hi_first, ScoutAction tmpl,
                                    ScoutAction* out, int n) noexcept nogil:
    """Append the spans of two or more cards through v inserted at p (indices of the new hand)
    that beat target and start in lo_first..hi_first, by first then last index: x cards left
    and y right of the new card continuing one step (the left neighbour fixes the step of any
    x >= 1, the right one that of any y >= 1; spans with x >= 1 come first)."""
    cdef int sl = 9, sr = 9, a, b, x, y, cnt, low, step
    if p > 0:
        sl = v - <int>ups[p - 1]
    if p < h:
        sr = <int>ups[p] - v
    if -1 <= sl <= 1 and lo_first < p:
        step = sl
        a = scout__reach(ups, h, v, p, step, &b)
        for x in range(a, 0, -1):
            if p - x < lo_first or p - x > hi_first:
                continue
            for y in range(b + 1):
                low = v - x if step == 1 else (v - y if step == -1 else 0x10 | v)
                if (((x + y + 1) << 8) | low) > target:
                    tmpl.first = <uint8_t>(p - x)
                    tmpl.last = <uint8_t>(p + y)
                    out[n] = tmpl
                    n += 1
    if -1 <= sr <= 1 and lo_first <= p <= hi_first:
        step = sr
        a = scout__reach(ups, h, v, p, step, &b)
        for y in range(1, b + 1):
            cnt = y + 1
            low = v if step == 1 else (v - y if step == -1 else 0x10 | v)
            if ((cnt << 8) | low) > target:
                tmpl.first = <uint8_t>p
                tmpl.last = <uint8_t>(p + y)
                out[n] = tmpl
                n += 1
    return n


cdef int scout__candidate_moves(const ScoutState* s, int seat, ScoutAction* out) noexcept nogil:
    """The shows, scouts and Scout & Shows of scout_candidates, in key order. A Scout & Show's
    shows are those through the new card (scout__emit_through) and the hand's own shows
    stronger than the reduced set but not the full one that the insertion does not cut."""
    cdef uint8_t ups[SCOUT_MAX_HAND]
    cdef uint8_t kf[SCOUT_MAX_SPANS]   # the hand's shows only the reduced set lets through
    cdef uint8_t kl[SCOUT_MAX_SPANS]
    cdef ScoutAction spans[SCOUT_MAX_SPANS]
    cdef ScoutAction thr[SCOUT_MAX_SPANS]
    cdef int h, n, e, ends, vi, v, p, lo, hi, target, card, rt, nk, k, i, j, m
    cdef ScoutAction tmpl
    h = scout__ups(s, seat, ups)
    target = scout_active_strength(s)
    n = scout__emit_spans(ups, h, target, scout__action(SCOUT_SHOW, 0, 0, 0, 0, 0), out, 0)
    if not scout__can_scout(s, seat):
        return n
    ends = 1 if s.active_len == 1 else 2
    for e in range(ends):
        card = s.active[0] if e == SCOUT_END_L else s.active[s.active_len - 1]
        lo = card & 15
        hi = card >> 4
        if lo > hi:
            lo, hi = hi, lo
        for vi in range(2):
            v = lo if vi == 0 else hi
            for p in range(h + 1):
                if p == 0 or p == h or scout__near(ups, h, v, p):
                    out[n] = scout__action(SCOUT_SCOUT, e, v, p, 0, 0)
                    n += 1
    if s.players == 2 or not s.scout_show[seat]:
        return n
    for e in range(ends):
        card = s.active[0] if e == SCOUT_END_L else s.active[s.active_len - 1]
        rt = scout_reduced_strength(s, e)
        nk = 0
        for k in range(scout__emit_spans(ups, h, rt, scout__action(SCOUT_SHOW, 0, 0, 0, 0, 0), spans, 0)):
            if not scout_strength(&ups[spans[k].first], spans[k].last - spans[k].first + 1) > target:
                kf[nk] = spans[k].first
                kl[nk] = spans[k].last
                nk += 1
        lo = card & 15
        hi = card >> 4
        if lo > hi:
            lo, hi = hi, lo
        for vi in range(2):
            v = lo if vi == 0 else hi
            for p in range(h + 1):
                if not (p == 0 or p == h or scout__near(ups, h, v, p)):
                    continue
                tmpl = scout__action(SCOUT_SCOUT_SHOW, e, v, p, 0, 0)
                # by first index: the spans through the new card that start left of it, merged
                # with the kept shows left of p (first at equal firsts: they end sooner); the
                # single and the spans from p; the kept shows right of p (moved up by one)
                m = scout__emit_through(ups, h, v, p, rt, 0, p - 1, tmpl, thr, 0)
                i = 0
                j = 0
                while i < nk and kf[i] < p:
                    if kl[i] < p:   # (a show across p is cut by the insertion)
                        while j < m and thr[j].first < kf[i]:
                            out[n] = thr[j]
                            n += 1
                            j += 1
                        tmpl.first = kf[i]
                        tmpl.last = kl[i]
                        out[n] = tmpl
                        n += 1
                    i += 1
                while j < m:
                    out[n] = thr[j]
                    n += 1
                    j += 1
                if (0x110 | v) > rt:
                    tmpl.first = <uint8_t>p
                    tmpl.last = <uint8_t>p
                    out[n] = tmpl
                    n += 1
                n = scout__emit_through(ups, h, v, p, rt, p, p, tmpl, out, n)
                while i < nk:
                    tmpl.first = kf[i] + 1
                    tmpl.last = kl[i] + 1
                    out[n] = tmpl
                    n += 1
                    i += 1
    return n


# --- the rollout policy: ai/heuristic_scout.py in C ----------------------------------------
# The same rules of thumb as the ``heuristic`` bot (docs/ai.md), so that rollouts play the
# way a sensible player does. The hand value is the same dynamic programme; a move's value
# is computed from a prefix table F (best value of ups[0..k)) and a suffix table G (of
# ups[k..h)): removing a span or inserting a card only needs the groups that cross the
# join, so each candidate costs a few table look-ups instead of a new programme.

cdef double scout_gv[2][17][11]   # a group's value: [is a set][cards, capped at 16][value]


cdef void _scout_init_values():
    cdef int is_set, k, v
    cdef double p
    for is_set in range(2):
        for k in range(17):
            for v in range(11):
                if k == 0:
                    scout_gv[is_set][k][v] = 0.0
                    continue
                if k == 1:
                    p = 0.10 + 0.05 * v
                elif k == 2:
                    p = (0.55 if is_set else 0.45) + 0.03 * v
                elif k == 3:
                    p = (0.85 if is_set else 0.80) + 0.01 * v
                else:
                    p = 0.95
                scout_gv[is_set][k][v] = -k * (1.0 - p) - 0.35


_scout_init_values()

cdef enum:
    SCOUT_HV_MAX = SCOUT_MAX_HAND + 2


cdef inline double scout__gval(int step, int n, int low) noexcept nogil:
    """The value of a group of n cards with this step (0: a set), valued by ``low``."""
    return scout_gv[1 if step == 0 else 0][n if n < 16 else 16][low]


cdef inline void scout__hv_forward(const uint8_t* ups, int h, double* F, int j0) noexcept nogil:
    """The forward programme from start j0 on: every group ups[j..i] with j >= j0 offers
    F[j] + its value to F[i + 1] (F[0..j0] must be final; the later entries rise to their best)."""
    cdef int i, j, step
    cdef double base, v
    for j in range(j0, h):
        base = F[j]
        v = base + scout_gv[1][1][ups[j]]
        if v > F[j + 1]:
            F[j + 1] = v
        if j + 1 == h:
            continue
        step = <int>ups[j + 1] - <int>ups[j]
        if step < -1 or step > 1:
            continue
        i = j + 1
        while i < h and <int>ups[i] - <int>ups[i - 1] == step:
            v = base + scout__gval(step, i - j + 1, ups[j] if step >= 0 else ups[i])
            if v > F[i + 1]:
                F[i + 1] = v
            i += 1


cdef inline void scout__hv_backward(const uint8_t* ups, int h, double* G, int i0) noexcept nogil:
    """The backward programme: G[i] for i = i0 down to 0, from G[i + 1..h]."""
    cdef int i, j, step
    cdef double base, v
    for i in range(i0, -1, -1):
        base = scout_gv[1][1][ups[i]] + G[i + 1]
        if i + 1 < h:
            step = <int>ups[i + 1] - <int>ups[i]
            if -1 <= step <= 1:
                j = i + 1
                while j < h and <int>ups[j] - <int>ups[j - 1] == step:
                    v = scout__gval(step, j - i + 1, ups[i] if step >= 0 else ups[j]) + G[j + 1]
                    if v > base:
                        base = v
                    j += 1
        G[i] = base


cdef inline void scout__hv_tables(const uint8_t* ups, int h, double* F, double* G) noexcept nogil:
    """F[k]: the best value of ups[0..k); G[k]: of ups[k..h) (F[h] = G[0] = hand_value)."""
    cdef int i
    F[0] = 0.0
    for i in range(1, h + 1):
        F[i] = -1e300
    scout__hv_forward(ups, h, F, 0)
    G[h] = 0.0
    scout__hv_backward(ups, h, G, h - 1)


cdef inline void scout__hv_tables_insert(const uint8_t* ups, int h, const double* F, const double* G,
                                         int v, int p, uint8_t* nups, double* F2,
                                         double* G2) noexcept nogil:
    """nups: ups with v inserted at p; F2, G2: its tables, the very numbers scout__hv_tables
    would give, from the hand's own F, G. A prefix's best value depends on the prefix alone and
    a suffix's on the suffix, so F2[0..p] = F[0..p] and G2[p+1..h+1] = G[p..h]; the forward
    programme only needs the starts whose groups can run through the new card."""
    cdef int n = h + 1, i, r = p, step
    scout__insert_ups(ups, h, v, p, nups)
    memcpy(F2, F, (p + 1) * sizeof(double))
    for i in range(p + 1, n + 1):
        F2[i] = -1e300
    if p > 0:
        step = <int>nups[p] - <int>nups[p - 1]
        if -1 <= step <= 1:
            r = p - 1
            while r > 0 and <int>nups[r] - <int>nups[r - 1] == step:
                r -= 1
    scout__hv_forward(nups, n, F2, r)
    memcpy(&G2[p + 1], &G[p], (h - p + 1) * sizeof(double))
    scout__hv_backward(nups, n, G2, p)


cdef inline double scout__hv_cut(const uint8_t* ups, int h, const double* F, const double* G,
                                 int i, int j) noexcept nogil:
    """hand_value of ups without ups[i..j]: a cut at the join, or a group across it."""
    cdef double best = F[i] + G[j + 1], v
    cdef int step, a, b
    if i == 0 or j + 1 >= h:
        return best
    step = <int>ups[j + 1] - <int>ups[i - 1]
    if step < -1 or step > 1:
        return best
    a = i - 1
    while True:
        b = j + 1
        while True:
            v = F[a] + scout__gval(step, (i - a) + (b - j), ups[a] if step >= 0 else ups[b]) + G[b + 1]
            if v > best:
                best = v
            if b + 1 < h and <int>ups[b + 1] - <int>ups[b] == step:
                b += 1
            else:
                break
        if a > 0 and <int>ups[a] - <int>ups[a - 1] == step:
            a -= 1
        else:
            break
    return best


cdef inline double scout__hv_insert(const uint8_t* ups, int h, const double* F, const double* G,
                                    int v, int p) noexcept nogil:
    """hand_value of ups with the value v inserted at index p."""
    cdef double best = F[p] + scout_gv[1][1][v] + G[p], val
    cdef int t, step, A, B, x, y, low
    for t in range(3):
        step = 0 if t == 0 else (1 if t == 1 else -1)
        A = 0
        if p > 0 and <int>ups[p - 1] == v - step:
            A = 1
            while p - A - 1 >= 0 and <int>ups[p - A] - <int>ups[p - A - 1] == step:
                A += 1
        B = 0
        if p < h and <int>ups[p] == v + step:
            B = 1
            while p + B < h and <int>ups[p + B] - <int>ups[p + B - 1] == step:
                B += 1
        for x in range(A + 1):
            for y in range(B + 1):
                if x + y == 0:
                    continue
                low = v - x if step == 1 else (v - y if step == -1 else v)
                val = F[p - x] + scout__gval(step, x + y + 1, low) + G[p + y]
                if val > best:
                    best = val
    return best


cdef inline double scout__show_value(const uint8_t* ups, int h, const double* F, const double* G,
                                     int i, int j, int captured) noexcept nogil:
    """heuristic_scout._show_value: captured + the hand left + a bonus for the set owned."""
    cdef double value = captured + scout__hv_cut(ups, h, F, G, i, j)
    cdef int st = scout_strength(&ups[i], j - i + 1)
    if j - i + 1 == h:
        value += 8.0
    value += 0.0 * (st >> 8) + 0.1 * ((st >> 4) & 1) + 0.02 * (st & 15)
    return value


ctypedef struct ScoutPick:
    double best
    int ties
    ScoutAction a


cdef inline void scout__consider(ScoutPick* pk, double value, ScoutAction a, Rng* rng) noexcept nogil:
    """Keep the best value; equal values (within 1e-9) share the choice uniformly."""
    if value > pk.best + 1e-9:
        pk.best = value
        pk.ties = 1
        pk.a = a
    elif value >= pk.best - 1e-9:
        pk.ties += 1
        if rng_below(rng, <unsigned int>pk.ties) == 0:
            pk.a = a


cdef inline double scout__best_show(const uint8_t* ups, int h, const double* F, const double* G,
                                    int target, int captured, bint* found) noexcept nogil:
    """The best show value of ups against target (found: whether any show beats it)."""
    cdef int i, j, step, st
    cdef double best = -1e300, v
    found[0] = False
    for i in range(h):
        if (0x110 | ups[i]) > target:
            v = scout__show_value(ups, h, F, G, i, i, captured)
            found[0] = True
            if v > best:
                best = v
        if i + 1 >= h:
            continue
        step = <int>ups[i + 1] - <int>ups[i]
        if step < -1 or step > 1:
            continue
        j = i + 1
        while j < h and <int>ups[j] - <int>ups[j - 1] == step:
            st = scout_strength(&ups[i], j - i + 1)
            if st > target:
                v = scout__show_value(ups, h, F, G, i, j, captured)
                found[0] = True
                if v > best:
                    best = v
            j += 1
    return best


cdef inline void scout__consider_shows(ScoutPick* pk, const uint8_t* ups, int h, const double* F,
                                       const double* G, int target, int captured, double extra,
                                       ScoutAction tmpl, Rng* rng) noexcept nogil:
    """Consider every show of ups beating target, valued show_value + extra."""
    cdef int i, j, step, st
    for i in range(h):
        if (0x110 | ups[i]) > target:
            tmpl.first = <uint8_t>i
            tmpl.last = <uint8_t>i
            scout__consider(pk, scout__show_value(ups, h, F, G, i, i, captured) + extra, tmpl, rng)
        if i + 1 >= h:
            continue
        step = <int>ups[i + 1] - <int>ups[i]
        if step < -1 or step > 1:
            continue
        j = i + 1
        while j < h and <int>ups[j] - <int>ups[j - 1] == step:
            st = scout_strength(&ups[i], j - i + 1)
            if st > target:
                tmpl.first = <uint8_t>i
                tmpl.last = <uint8_t>j
                scout__consider(pk, scout__show_value(ups, h, F, G, i, j, captured) + extra, tmpl, rng)
            j += 1


cdef inline double scout__pass_value(const ScoutState* s, int seat) noexcept nogil:
    """heuristic_scout's value of a voluntary pass: the hand counted, the owner's spared."""
    cdef int spared = s.hand_len[s.owner] if s.owner >= 0 and s.owner != seat else 0
    return -<double>s.hand_len[seat] - 0.5 * spared


cdef int scout__heuristic_choice(const ScoutState* s, Rng* rng, ScoutAction* out) noexcept nogil:
    """The heuristic bot's move for the waiting seat (into out); the seat, or -1 if none.

    Exactly heuristic_scout.choose's values, except that Scout & Show only inserts the card
    at an end of the hand or next to a card it makes a set or a run with (the other places
    never give a higher value), and that ties are broken by this stream."""
    cdef uint8_t ups[SCOUT_MAX_HAND]
    cdef uint8_t nups[SCOUT_MAX_HAND + 1]
    cdef double F[SCOUT_HV_MAX]
    cdef double G[SCOUT_HV_MAX]
    cdef double F2[SCOUT_HV_MAX]
    cdef double G2[SCOUT_HV_MAX]
    cdef ScoutPick pk
    cdef int seat, h, k, target, ends, e, vi, v, p, card, lo, hi, rt, other, shortest
    cdef double chip, stuck, after, hv_flip
    cdef bint found
    seat = scout_to_move(s)
    if seat < 0:
        return -1
    h = scout__ups(s, seat, ups)
    if s.phase == SCOUT_PHASE_TURN_CHOICE:
        for k in range(h):
            nups[k] = s.hand[seat][h - 1 - k] >> 4
        scout__hv_tables(nups, h, F2, G2)
        hv_flip = F2[h]
        scout__hv_tables(ups, h, F, G)
        out[0] = scout__action(SCOUT_FLIP if hv_flip > F[h] + 1e-9 else SCOUT_KEEP, 0, 0, 0, 0, 0)
        return seat
    scout__hv_tables(ups, h, F, G)
    target = scout_active_strength(s)
    pk.best = -1e300
    pk.ties = 0
    scout__consider_shows(&pk, ups, h, F, G, target, s.active_len, 0.0,
                          scout__action(SCOUT_SHOW, 0, 0, 0, 0, 0), rng)
    if scout__can_scout(s, seat):
        ends = 1 if s.active_len == 1 else 2
        shortest = 1 << 30
        for other in range(s.players):
            if other != seat and s.hand_len[other] < shortest:
                shortest = s.hand_len[other]
        chip = 1.0 * (1.0 if shortest / 5.0 > 1.0 else shortest / 5.0)
        for e in range(ends):
            card = s.active[0] if e == SCOUT_END_L else s.active[s.active_len - 1]
            rt = scout_reduced_strength(s, e)
            lo = card & 15
            hi = card >> 4
            if lo > hi:
                lo, hi = hi, lo
            for vi in range(2):
                v = lo if vi == 0 else hi
                for p in range(h + 1):
                    if s.players == 2:
                        # the chip is spent and we move again: the best show we could then make
                        scout__hv_tables_insert(ups, h, F, G, v, p, nups, F2, G2)
                        stuck = F2[h + 1] - (1.0 if s.chips[seat] <= 1 else 1.0 / 2)
                        after = scout__best_show(nups, h + 1, F2, G2, rt, s.active_len - 1, &found)
                        scout__consider(&pk, -1.0 + (after if found and after > stuck else stuck),
                                        scout__action(SCOUT_SCOUT, e, v, p, 0, 0), rng)
                        continue
                    scout__consider(&pk, scout__hv_insert(ups, h, F, G, v, p) - 0.2,
                                    scout__action(SCOUT_SCOUT, e, v, p, 0, 0), rng)
                    if not s.scout_show[seat] or not (p == 0 or p == h or scout__near(ups, h, v, p)):
                        continue
                    scout__hv_tables_insert(ups, h, F, G, v, p, nups, F2, G2)
                    scout__consider_shows(&pk, nups, h + 1, F2, G2, rt, s.active_len - 1, -0.2 - chip,
                                          scout__action(SCOUT_SCOUT_SHOW, e, v, p, 0, 0), rng)
    if s.opt_voluntary_pass:
        scout__consider(&pk, scout__pass_value(s, seat), scout__action(SCOUT_PASS, 0, 0, 0, 0, 0), rng)
    if pk.ties == 0:
        return -1
    out[0] = pk.a
    return seat


cdef void scout_values(const ScoutState* s, int seat, const ScoutAction* acts, int n,
                       double* out) noexcept nogil:
    """The heuristic bot's value of each of ``acts`` (legal moves of ``seat``, the seat to
    move): its choice is the highest. The search's prior."""
    cdef uint8_t ups[SCOUT_MAX_HAND]
    cdef uint8_t nups[SCOUT_MAX_HAND + 1]
    cdef double F[SCOUT_HV_MAX]
    cdef double G[SCOUT_HV_MAX]
    cdef double F2[SCOUT_HV_MAX]
    cdef double G2[SCOUT_HV_MAX]
    cdef int h, k, other, shortest, last_v = -1, last_p = -1, rt
    cdef double chip = 0.0, stuck, after, keep, flip
    cdef bint found
    cdef ScoutAction a
    if n <= 0:
        return
    h = scout__ups(s, seat, ups)
    scout__hv_tables(ups, h, F, G)
    if s.phase == SCOUT_PHASE_TURN_CHOICE:
        keep = F[h]
        for k in range(h):
            nups[k] = s.hand[seat][h - 1 - k] >> 4
        scout__hv_tables(nups, h, F2, G2)
        flip = F2[h]
        for k in range(n):
            out[k] = flip if acts[k].kind == SCOUT_FLIP else keep
        return
    shortest = 1 << 30
    for other in range(s.players):
        if other != seat and s.hand_len[other] < shortest:
            shortest = s.hand_len[other]
    chip = 1.0 * (1.0 if shortest / 5.0 > 1.0 else shortest / 5.0)
    for k in range(n):
        a = acts[k]
        if a.kind == SCOUT_SHOW:
            out[k] = scout__show_value(ups, h, F, G, a.first, a.last, s.active_len)
            continue
        if a.kind == SCOUT_PASS:
            out[k] = scout__pass_value(s, seat)
            continue
        if a.kind == SCOUT_SCOUT and s.players > 2:
            out[k] = scout__hv_insert(ups, h, F, G, a.value, a.pos) - 0.2
            continue
        if a.value != last_v or a.pos != last_p:
            scout__hv_tables_insert(ups, h, F, G, a.value, a.pos, nups, F2, G2)
            last_v = a.value
            last_p = a.pos
        if a.kind == SCOUT_SCOUT:  # two players
            rt = scout_reduced_strength(s, a.end)
            stuck = F2[h + 1] - (1.0 if s.chips[seat] <= 1 else 1.0 / 2)
            after = scout__best_show(nups, h + 1, F2, G2, rt, s.active_len - 1, &found)
            out[k] = -1.0 + (after if found and after > stuck else stuck)
        else:
            out[k] = scout__show_value(nups, h + 1, F2, G2, a.first, a.last, s.active_len - 1) - 0.2 - chip


cdef void scout_rollout_step(ScoutState* s, Rng* rng) noexcept nogil:
    """Apply one move of the heuristic rollout policy (nothing if the round is over)."""
    cdef ScoutAction a
    cdef int seat = scout__heuristic_choice(s, rng, &a)
    if seat >= 0:
        scout_apply(s, seat, &a, rng)


# --- determinization -----------------------------------------------------------------------

cdef void scout_determinize(ScoutState* out, const ScoutInfo* info, Rng* rng) noexcept nogil:
    """A full state consistent with ``info``: the unseen cards, shuffled and randomly turned,
    fill the unknown positions of the other hands (left to right, seat by seat) and then the
    set-aside pile."""
    cdef uint8_t pool[SCOUT_DECK]
    cdef int n = info.pool_len
    cdef int i, j, seat, k, used = 0
    cdef uint8_t c
    out[0] = info.base
    memcpy(pool, info.pool, n)
    for i in range(n - 1, 0, -1):
        j = <int>rng_below(rng, <unsigned int>(i + 1))
        c = pool[i]
        pool[i] = pool[j]
        pool[j] = c
    for seat in range(out.players):
        if seat == info.seat:
            continue
        for k in range(out.hand_len[seat]):
            if out.hand[seat][k] == 0 and used < n:
                c = pool[used]
                used += 1
                out.hand[seat][k] = scout_turned(c) if rng_next(rng) & 1 else c
    for k in range(out.set_aside_len):
        if out.set_aside[k] == 0 and used < n:
            c = pool[used]
            used += 1
            out.set_aside[k] = scout_turned(c) if rng_next(rng) & 1 else c


# --- Python level --------------------------------------------------------------------------

import re as _scout_re

_SCOUT_IDX = r"(0|[1-9][0-9]{0,2})"
_SCOUT_SHOW_RE = _scout_re.compile(rf"show:{_SCOUT_IDX}(?:-{_SCOUT_IDX})?")
_SCOUT_SCOUT_RE = _scout_re.compile(
    rf"scout:([LR]):(10|[1-9])@{_SCOUT_IDX}(?:\+show:{_SCOUT_IDX}(?:-{_SCOUT_IDX})?)?")
_SCOUT_CARD_RE = _scout_re.compile(r"(10|[1-9])/(10|[1-9])")
_SCOUT_PHASES = ("turn_choice", "play", "over")


cdef str scout_card_text(uint8_t c):
    return f"{c & 15}/{c >> 4}"


cdef uint8_t scout__parse_card(object text) except 0:
    m = _SCOUT_CARD_RE.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise ValueError(f"bad card {text!r}")
    up = int(m.group(1))
    down = int(m.group(2))
    if up == down:
        raise ValueError(f"bad card {text!r}: the two values of a card differ")
    return scout_card(up, down)


cdef object scout_action_text(const ScoutAction* a):
    """The engine's text of an action."""
    cdef str show
    if a.kind == SCOUT_FLIP:
        return "flip"
    if a.kind == SCOUT_KEEP:
        return "keep"
    if a.kind == SCOUT_PASS:
        return "pass"
    show = f"show:{a.first}" if a.first == a.last else f"show:{a.first}-{a.last}"
    if a.kind == SCOUT_SHOW:
        return show
    scout = f"scout:{'L' if a.end == SCOUT_END_L else 'R'}:{a.value}@{a.pos}"
    if a.kind == SCOUT_SCOUT:
        return scout
    return f"{scout}+{show}"


cdef class _ScoutBuffer:
    """A heap buffer of SCOUT_MAX_ACTIONS actions for the Python-level methods."""
    cdef ScoutAction* a

    def __cinit__(self):
        self.a = <ScoutAction*>malloc(SCOUT_MAX_ACTIONS * sizeof(ScoutAction))
        if self.a == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.a)


cdef int scout_parse(const ScoutState* s, int seat, str text, ScoutAction* out) except -1:
    """The action written as ``text`` if it is legal for ``seat`` now, else ValueError."""
    cdef ScoutAction a
    cdef _ScoutBuffer buf
    cdef int k, n
    cdef unsigned long long key
    if text == "flip":
        a = scout__action(SCOUT_FLIP, 0, 0, 0, 0, 0)
    elif text == "keep":
        a = scout__action(SCOUT_KEEP, 0, 0, 0, 0, 0)
    elif text == "pass":
        a = scout__action(SCOUT_PASS, 0, 0, 0, 0, 0)
    else:
        m = _SCOUT_SHOW_RE.fullmatch(text)
        if m is not None:
            first = int(m.group(1))
            last = first if m.group(2) is None else int(m.group(2))
            if m.group(2) is not None and first >= last:
                raise ValueError(f"bad action {text!r}: show:I-J needs I < J")
            if last >= SCOUT_MAX_HAND:
                raise ValueError(f"seat {seat}: {text}: not legal now")
            a = scout__action(SCOUT_SHOW, 0, 0, 0, first, last)
        else:
            m = _SCOUT_SCOUT_RE.fullmatch(text)
            if m is None:
                raise ValueError(f"bad action {text!r}")
            end = SCOUT_END_L if m.group(1) == "L" else SCOUT_END_R
            value = int(m.group(2))
            pos = int(m.group(3))
            if pos > SCOUT_MAX_HAND:
                raise ValueError(f"seat {seat}: {text}: not legal now")
            if m.group(4) is None:
                a = scout__action(SCOUT_SCOUT, end, value, pos, 0, 0)
            else:
                first = int(m.group(4))
                last = first if m.group(5) is None else int(m.group(5))
                if m.group(5) is not None and first >= last:
                    raise ValueError(f"bad action {text!r}: show:I-J needs I < J")
                if last >= SCOUT_MAX_HAND:
                    raise ValueError(f"seat {seat}: {text}: not legal now")
                a = scout__action(SCOUT_SCOUT_SHOW, end, value, pos, first, last)
    buf = _ScoutBuffer()
    key = scout_key(&a)
    n = scout_legal(s, seat, buf.a)
    for k in range(n):
        if scout_key(&buf.a[k]) == key:
            out[0] = a
            return 0
    raise ValueError(f"seat {seat}: {text}: not legal now")


cdef bint scout__opt_voluntary_pass(dict config, int n) except -1:
    """The option voluntary_pass of a SCOUT config dict (engine Config.to_dict())."""
    v = config.get("voluntary_pass", False)
    if type(v) is not bool or (v and n != 2):
        raise ValueError("bad SCOUT config: voluntary_pass is a two-player option, true or false")
    return v


cdef dict scout__config_dict(const ScoutState* s):
    """engine Config.to_dict(): the options that are on, only."""
    d = {"game": "scout", "players": s.players}
    if s.opt_voluntary_pass:
        d["voluntary_pass"] = True
    return d


cdef object scout__opt_seat(int v):
    return None if v < 0 else v


cdef int scout__seat_or_none(object v, int n, str name) except -2:
    if v is None:
        return -1
    if type(v) is not int or not 0 <= v < n:
        raise ValueError(f"bad SCOUT snapshot: {name} {v!r}")
    return v


cdef int scout__load_cards(object texts, uint8_t* out, int cap, str name) except -1:
    if type(texts) is not list or len(texts) > cap:
        raise ValueError(f"bad SCOUT snapshot: {name}")
    for k, t in enumerate(texts):
        out[k] = scout__parse_card(t)
    return len(texts)


cdef class ScoutMirror:
    """A SCOUT round position in C, mirroring engine.scout.State.

    The seed (bytes, snapshot only) is kept on the Python object, not in the C struct;
    samples from ScoutInfoSet have the seed "" (unknown to a seat).
    """
    cdef ScoutState s
    cdef str seed_hex

    @staticmethod
    def from_snapshot(dict d):
        """The position of an engine ``State.snapshot()`` dict."""
        cdef ScoutMirror m = ScoutMirror.__new__(ScoutMirror)
        cdef ScoutState* s = &m.s
        cdef uint64_t seen = 0
        cdef uint64_t bit
        cdef uint8_t deck[SCOUT_DECK]
        cdef uint64_t in_play = 0
        cdef int n, seat, k, nd
        memset(s, 0, sizeof(ScoutState))
        cfg = d["config"]
        if cfg.get("game") != "scout":
            raise ValueError("bad SCOUT snapshot: config")
        n = cfg["players"]
        if type(n) is not int or not 2 <= n <= SCOUT_MAX_PLAYERS:
            raise ValueError(f"bad SCOUT snapshot: players {n!r}")
        s.players = n
        s.opt_voluntary_pass = scout__opt_voluntary_pass(cfg, n)
        nd = scout_deck_in_play(n, deck)
        for k in range(nd):
            in_play |= (<uint64_t>1) << scout_pair_id(deck[k])
        m.seed_hex = d["seed"]
        s.round_no = d["round"]
        s.start = s.round_no % n
        s.phase = _SCOUT_PHASES.index(d["phase"])
        s.turn = scout__seat_or_none(d["turn"], n, "turn")
        s.owner = scout__seat_or_none(d["owner"], n, "owner")
        s.exempt = scout__seat_or_none(d["exempt"], n, "exempt")
        hands = d["hands"]
        known = d["known"]
        if len(hands) != n or len(known) != n or len(d["flipped"]) != n:
            raise ValueError("bad SCOUT snapshot: per-seat lists")
        for seat in range(n):
            s.hand_len[seat] = scout__load_cards(hands[seat], s.hand[seat], SCOUT_DECK, "hands")
            if len(known[seat]) != s.hand_len[seat]:
                raise ValueError("bad SCOUT snapshot: known")
            for k, flag in enumerate(known[seat]):
                if flag:
                    s.known[seat] |= (<uint64_t>1) << k
            f = d["flipped"][seat]
            s.flipped[seat] = -1 if f is None else (1 if f else 0)
            s.chips[seat] = d["chips"][seat]
            s.scout_show[seat] = 1 if d["scout_show"][seat] else 0
            for t in d["captured"][seat]:
                bit = (<uint64_t>1) << scout_pair_id(scout__parse_card(t))
                if seen & bit:
                    raise ValueError("bad SCOUT snapshot: a card appears twice")
                seen |= bit
                s.captured[seat] |= bit
            for k in range(s.hand_len[seat]):
                bit = (<uint64_t>1) << scout_pair_id(s.hand[seat][k])
                if seen & bit:
                    raise ValueError("bad SCOUT snapshot: a card appears twice")
                seen |= bit
        s.active_len = scout__load_cards(d["active"], s.active, SCOUT_DECK, "active")
        s.set_aside_len = scout__load_cards(d["set_aside"], s.set_aside, SCOUT_DECK, "set_aside")
        for k in range(s.active_len):
            bit = (<uint64_t>1) << scout_pair_id(s.active[k])
            if seen & bit:
                raise ValueError("bad SCOUT snapshot: a card appears twice")
            seen |= bit
        for k in range(s.set_aside_len):
            bit = (<uint64_t>1) << scout_pair_id(s.set_aside[k])
            if seen & bit:
                raise ValueError("bad SCOUT snapshot: a card appears twice")
            seen |= bit
        if seen & ~in_play:
            raise ValueError(f"bad SCOUT snapshot: cards not in play with {n} players")
        for k in range(s.active_len):
            deck[k] = s.active[k] & 15
        if s.active_len and scout_valid_strength(deck, s.active_len) < 0:
            raise ValueError("bad SCOUT snapshot: the active set is neither a set nor a run")
        return m

    def snapshot(self):
        """Exactly engine State.snapshot() (the seed as given to from_snapshot)."""
        cdef ScoutState* s = &self.s
        cdef int n = s.players
        cdef int seat, k, pid
        captured = []
        for seat in range(n):
            pile = []
            for pid in range(SCOUT_DECK):
                if (s.captured[seat] >> pid) & 1:
                    pile.append(scout_card_text(scout_pair_card(pid)))
            pile.sort()
            captured.append(pile)
        return {
            "config": scout__config_dict(s),
            "seed": self.seed_hex,
            "round": s.round_no,
            "phase": _SCOUT_PHASES[s.phase],
            "turn": scout__opt_seat(s.turn),
            "flipped": [None if s.flipped[seat] < 0 else bool(s.flipped[seat])
                        for seat in range(n)],
            "hands": [[scout_card_text(s.hand[seat][k]) for k in range(s.hand_len[seat])]
                      for seat in range(n)],
            "known": [[bool((s.known[seat] >> k) & 1) for k in range(s.hand_len[seat])]
                      for seat in range(n)],
            "active": [scout_card_text(s.active[k]) for k in range(s.active_len)],
            "owner": scout__opt_seat(s.owner),
            "captured": captured,
            "chips": [s.chips[seat] for seat in range(n)],
            "scout_show": [bool(s.scout_show[seat]) for seat in range(n)],
            "set_aside": [scout_card_text(s.set_aside[k]) for k in range(s.set_aside_len)],
            "exempt": scout__opt_seat(s.exempt),
        }

    @property
    def players(self):
        return self.s.players

    def legal(self, int seat):
        """The texts of engine legal_actions(seat), in the engine's order."""
        cdef _ScoutBuffer buf = _ScoutBuffer()
        cdef int k, n = scout_legal(&self.s, seat, buf.a)
        return [scout_action_text(&buf.a[k]) for k in range(n)]

    def legal_keys(self, int seat):
        """scout_key of each legal action, in the order of legal()."""
        cdef _ScoutBuffer buf = _ScoutBuffer()
        cdef int k, n = scout_legal(&self.s, seat, buf.a)
        return [scout_key(&buf.a[k]) for k in range(n)]

    def legal_count(self, int seat):
        """len(legal(seat)) by the counting method of random_playout (for tests)."""
        return scout__legal_count(&self.s, seat)

    def candidates(self, int seat):
        cdef _ScoutBuffer buf = _ScoutBuffer()
        cdef int k, n = scout_candidates(&self.s, seat, buf.a)
        return [scout_action_text(&buf.a[k]) for k in range(n)]

    def apply(self, int seat, str text):
        """Apply the action written ``text``; ValueError (state unchanged) if not legal."""
        cdef ScoutAction a
        cdef Rng rng
        rng_seed(&rng, 0)
        scout_parse(&self.s, seat, text, &a)
        scout_apply(&self.s, seat, &a, &rng)

    def to_move(self):
        return scout__opt_seat(scout_to_move(&self.s))

    def is_over(self):
        return bool(scout_over(&self.s))

    def points(self):
        """engine round_scores() of the finished round; ValueError before the end."""
        cdef double out[SCOUT_MAX_PLAYERS]
        if not scout_over(&self.s):
            raise ValueError("the round is not over yet")
        scout_points(&self.s, out)
        return [out[k] for k in range(self.s.players)]

    def evaluate(self):
        cdef double out[SCOUT_MAX_PLAYERS]
        scout_evaluate(&self.s, out)
        return [out[k] for k in range(self.s.players)]

    def copy(self):
        cdef ScoutMirror m = ScoutMirror.__new__(ScoutMirror)
        m.s = self.s
        m.seed_hex = self.seed_hex
        return m

    def rollout(self, unsigned long long seed, int max_steps=100000):
        """Play on with scout_rollout_step until the round ends or max_steps; the steps taken."""
        cdef Rng rng
        cdef int steps = 0
        rng_seed(&rng, seed)
        with nogil:
            while steps < max_steps and not scout_over(&self.s):
                scout_rollout_step(&self.s, &rng)
                steps += 1
        return steps

    def random_playout(self, unsigned long long seed, int max_steps=10000000):
        """Uniformly random legal moves of the waiting seat to the end (or max_steps); steps."""
        cdef Rng rng
        cdef ScoutAction a
        cdef int seat, steps = 0
        rng_seed(&rng, seed)
        with nogil:
            while steps < max_steps:
                seat = scout__random_choice(&self.s, &rng, &a)
                if seat < 0:
                    break
                scout_apply(&self.s, seat, &a, &rng)
                steps += 1
        return steps

    def random_moves(self, int seat):
        """The move random_playout draws for each index (play phase, the seat in turn): a
        uniform draw needs each legal move exactly once (for the tests)."""
        cdef ScoutDraw d
        cdef ScoutAction a
        cdef int k, n
        if self.s.phase != SCOUT_PHASE_PLAY or seat != self.s.turn:
            return []
        n = scout__draw_count(&self.s, seat, &d)
        out = []
        for k in range(n):
            scout__draw_decode(&d, k, &a)
            out.append(scout_action_text(&a))
        return out

    def random_action(self, unsigned long long seed):
        """(seat, text) that random_playout would play next, or None (for tests)."""
        cdef Rng rng
        cdef ScoutAction a
        rng_seed(&rng, seed)
        seat = scout__random_choice(&self.s, &rng, &a)
        return None if seat < 0 else (seat, scout_action_text(&a))

    def values(self, int seat):
        """{action text: the heuristic value scout_values gives it} over the candidates."""
        cdef _ScoutBuffer buf = _ScoutBuffer()
        cdef int k, n = scout_candidates(&self.s, seat, buf.a)
        cdef double* v = <double*>malloc(max(n, 1) * sizeof(double))
        try:
            scout_values(&self.s, seat, buf.a, n, v)
            return {scout_action_text(&buf.a[k]): v[k] for k in range(n)}
        finally:
            free(v)

    def rollout_action(self, unsigned long long seed):
        """(seat, text) that scout_rollout_step would play next, or None (for tests)."""
        cdef Rng rng
        cdef ScoutAction a
        rng_seed(&rng, seed)
        seat = scout__heuristic_choice(&self.s, &rng, &a)
        return None if seat < 0 else (seat, scout_action_text(&a))


cdef class ScoutInfoSet:
    """What one seat knows (engine State.observation(seat)), for determinization."""
    cdef ScoutInfo info

    def __init__(self, dict observation, dict config):
        cdef ScoutState* s = &self.info.base
        cdef uint8_t deck[SCOUT_DECK]
        cdef uint64_t seen = 0
        cdef uint64_t bit
        cdef int n, seat, me, k, nd, unknown = 0
        o = observation
        memset(&self.info, 0, sizeof(ScoutInfo))
        n = config["players"]
        if config.get("game", "scout") != "scout" or o["players"] != n or not 2 <= n <= 5:
            raise ValueError("observation and config disagree")
        me = o["seat"]
        self.info.seat = me
        s.players = n
        s.opt_voluntary_pass = scout__opt_voluntary_pass(config, n)
        s.round_no = o["round"]
        s.start = o["start"]
        s.phase = _SCOUT_PHASES.index(o["phase"])
        s.turn = scout__seat_or_none(o["turn"], n, "turn") if s.phase == SCOUT_PHASE_PLAY else -1
        s.owner = scout__seat_or_none(o["owner"], n, "owner")
        s.exempt = scout__seat_or_none(o["exempt"], n, "exempt")
        for seat in range(n):
            f = o["flipped"][seat]
            s.flipped[seat] = -1 if f is None else (1 if f else 0)
            s.chips[seat] = o["chips"][seat]
            s.scout_show[seat] = 1 if o["scout_show"][seat] else 0
            for t in o["captured_cards"][seat]:
                bit = (<uint64_t>1) << scout_pair_id(scout__parse_card(t))
                seen |= bit
                s.captured[seat] |= bit
            if seat == me:
                s.hand_len[seat] = scout__load_cards(o["hand"], s.hand[seat], SCOUT_DECK, "hand")
                # which own cards are public is not in the observation: left False
            else:
                row = o["known"][seat]
                if len(row) != o["hand_sizes"][seat] or len(row) > SCOUT_DECK:
                    raise ValueError("known must align with hand_sizes")
                s.hand_len[seat] = len(row)
                for k, t in enumerate(row):
                    if t is None:
                        s.hand[seat][k] = 0
                        unknown += 1
                    else:
                        s.hand[seat][k] = scout__parse_card(t)
                        s.known[seat] |= (<uint64_t>1) << k
            for k in range(s.hand_len[seat]):
                if s.hand[seat][k]:
                    seen |= (<uint64_t>1) << scout_pair_id(s.hand[seat][k])
        s.active_len = scout__load_cards(o["active"], s.active, SCOUT_DECK, "active")
        for k in range(s.active_len):
            seen |= (<uint64_t>1) << scout_pair_id(s.active[k])
        s.set_aside_len = o["set_aside"]
        unknown += s.set_aside_len
        nd = scout_deck_in_play(n, deck)
        self.info.pool_len = 0
        for k in range(nd):
            if not (seen >> scout_pair_id(deck[k])) & 1:
                self.info.pool[self.info.pool_len] = deck[k]
                self.info.pool_len += 1
        if self.info.pool_len != unknown:
            raise ValueError(f"{self.info.pool_len} unseen cards for {unknown} unknown places")

    @property
    def pool(self):
        """The unseen cards (lower value up)."""
        return [scout_card_text(self.info.pool[k]) for k in range(self.info.pool_len)]

    def sample(self, unsigned long long seed):
        """A ScoutMirror of a full position consistent with this information."""
        cdef Rng rng
        cdef ScoutMirror m = ScoutMirror.__new__(ScoutMirror)
        rng_seed(&rng, seed)
        scout_determinize(&m.s, &self.info, &rng)
        m.seed_hex = ""
        return m
