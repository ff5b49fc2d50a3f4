# Inference: determinizations weighted by what the other seats did (SCOUT).
#
# A clue is one public move of another seat, with what the table looked like when it was
# made (the active set, its owner, the hand sizes, the seat's Scout & Show chip) and how the
# seat's hand changed: the card it scouted, the cards it showed and the hand positions the
# shown block may have come from (a hidden hand's positions are not in the observation; the
# tracker in ai/scout_clues.py keeps the ones its known cards allow). Every card a seat ever
# held is either still in its hand or public, so a seat's hand before each of its moves is
# its sampled hand now with its later moves undone, newest first: a scout undone takes the
# scouted card out, a show undone puts the block back, the whole-hand turn undone turns the
# hand back. The seat is modelled as the heuristic playing softmax(value / temp) over the
# search's candidates (the move made is always among them); a determinization's weight is
# the product of its clues' probabilities, a shown block's position being marginalized (the
# chain goes on from a position drawn in proportion to its probability). The model plays a
# uniformly random candidate a twentieth of the time (INFER_NOISE), so one misread move or one
# surprising player cannot rule a sample out.
#
# The search draws ``particles`` uniform determinizations, weights each once, and then takes
# every iteration's determinization from them in proportion to the weights (importance
# resampling). With no clue it samples afresh every iteration, exactly as before.

cdef enum:
    CLUE_MAX = 256      # clues a belief holds (a 5-player round has fewer than 150 moves)
    CLUE_TURN = 6       # kind of a whole-hand turn clue (flip or keep: ``end`` 1 = flipped)
    CLUE_BREAK = 7      # the seat's earlier moves could not be read: its chain stops here

cdef double INFER_NOISE = 0.05   # the model's share of moves made uniformly at random (a misread
                                 # move or a player unlike the heuristic costs a sample little)


ctypedef struct ScoutClue:
    int8_t seat
    uint8_t kind            # SCOUT_SHOW, SCOUT_SCOUT, SCOUT_SCOUT_SHOW or CLUE_TURN
    uint8_t end             # scouts: SCOUT_END_L / _R; CLUE_TURN: 1 flipped, 0 kept
    uint8_t card            # scouts: the card as it went into the hand
    int8_t owner            # the owner of the active set before the move (-1 none)
    uint8_t scout_show      # the seat still had its Scout & Show chip
    uint8_t before_len
    uint8_t show_len
    uint8_t sizes[SCOUT_MAX_PLAYERS]   # the hand sizes before the move
    uint8_t before[SCOUT_MAX_HAND]     # the active set before the move
    uint8_t show[SCOUT_MAX_HAND]       # shows: the cards shown, left to right
    uint64_t qmask          # shows: bit q = the block may have been hand positions q.. (after the move's scout)


ctypedef struct ScoutBelief:
    int nclues
    double temp             # the softmax temperature of the model of the other seats
    int depth               # clues per seat evaluated, newest first (0: all)
    int positions           # a shown block's positions weighed at most (more: that many drawn at random)
    ScoutClue clues[CLUE_MAX]   # in the order the moves were made


cdef inline int infer__find(const uint8_t* hand, int h, uint8_t card) noexcept nogil:
    cdef int k, pid = scout_pair_id(card)
    for k in range(h):
        if scout_pair_id(hand[k]) == pid:
            return k
    return -1


cdef double infer__move_prob(ScoutState* st, int seat, ScoutAction a, double temp,
                             ScoutAction* acts, double* values) noexcept nogil:
    """softmax(value / temp) of ``a`` among the search's candidates for ``seat`` at ``st``
    (``a`` joins them when they lack it)."""
    cdef int n, k, at = -1
    cdef double top, total = 0.0
    n = scout_candidates(st, seat, acts)
    for k in range(n):
        if (acts[k].kind == a.kind and acts[k].end == a.end and acts[k].value == a.value
                and acts[k].pos == a.pos and acts[k].first == a.first and acts[k].last == a.last):
            at = k
            break
    if at < 0:
        acts[n] = a
        at = n
        n += 1
    scout_values(st, seat, acts, n, values)
    top = values[0]
    for k in range(1, n):
        if values[k] > top:
            top = values[k]
    for k in range(n):
        total += exp((values[k] - top) / temp)
    return (1.0 - INFER_NOISE) * exp((values[at] - top) / temp) / total + INFER_NOISE / n


cdef inline void infer__table(ScoutState* st, const ScoutClue* c, const uint8_t* hand, int h) noexcept nogil:
    """``st`` (a determinization) turned into the table the clue's move was made at."""
    cdef int k, x = c.seat
    memcpy(st.hand[x], hand, h)
    st.hand_len[x] = <uint8_t>h
    for k in range(st.players):
        if k != x:
            st.hand_len[k] = c.sizes[k]
    memcpy(st.active, c.before, c.before_len)
    st.active_len = c.before_len
    st.owner = c.owner
    st.scout_show[x] = c.scout_show
    st.turn = x
    st.phase = SCOUT_PHASE_PLAY


cdef double scout_clues_logweight(const ScoutState* det, const ScoutBelief* b, Rng* rng,
                                  ScoutAction* acts, double* values) noexcept nogil:
    """log of the probability of the clues' moves in the determinization ``det``."""
    cdef ScoutState st
    cdef uint8_t hand[SCOUT_MAX_HAND + 1]
    cdef uint8_t inter[SCOUT_MAX_HAND + 1]
    cdef double probs[SCOUT_MAX_HAND + 1]
    cdef double logw = 0.0, p, total, u
    cdef int x, i, h, k, q, m, pos, used, chosen, npos
    cdef uint64_t mask
    cdef const ScoutClue* c
    cdef ScoutAction a
    for x in range(det.players):
        h = det.hand_len[x]
        memcpy(hand, det.hand[x], h)
        used = 0
        i = b.nclues - 1
        while i >= 0 and (b.depth == 0 or used < b.depth):
            c = &b.clues[i]
            i -= 1
            if c.seat != x:
                continue
            if c.kind == CLUE_BREAK:
                break
            used += 1
            st = det[0]
            if c.kind == CLUE_TURN:
                # the hand as dealt is the hand at the start of play, turned back if flipped
                infer__table(&st, c, hand, h)
                if c.end:
                    for k in range(h):
                        st.hand[x][k] = scout_turned(hand[h - 1 - k])
                st.phase = SCOUT_PHASE_TURN_CHOICE
                st.turn = -1
                st.flipped[x] = -1
                a = scout__action(SCOUT_FLIP if c.end else SCOUT_KEEP, 0, 0, 0, 0, 0)
                logw += log(infer__move_prob(&st, x, a, b.temp, acts, values) + 1e-300)
                break   # nothing happened to the hand before it
            if c.kind == SCOUT_SCOUT:
                pos = infer__find(hand, h, c.card)
                if pos < 0:   # a misread: the seat's story stops here
                    break
                a = scout__action(SCOUT_SCOUT, c.end, c.card & 15, pos, 0, 0)
                memmove(&hand[pos], &hand[pos + 1], h - pos - 1)
                h -= 1
                infer__table(&st, c, hand, h)
                logw += log(infer__move_prob(&st, x, a, b.temp, acts, values) + 1e-300)
                continue
            # a show (after a scout for a Scout & Show): every position the block may have had
            m = c.show_len
            if h + m > SCOUT_DECK:   # no hand was ever that long: a clue that cannot be read
                break
            total = 0.0
            mask = c.qmask & ((<uint64_t>2 << h) - 1)
            npos = scout_popcount(mask)
            while npos > b.positions:   # a few of the positions, drawn uniformly
                k = <int>rng_below(rng, <unsigned int>npos)
                for q in range(h + 1):
                    if (mask >> q) & 1:
                        if k == 0:
                            mask &= ~((<uint64_t>1) << q)
                            break
                        k -= 1
                npos -= 1
            for q in range(h + 1):
                probs[q] = 0.0
                if not (mask >> q) & 1:
                    continue
                memcpy(inter, hand, q)
                memcpy(&inter[q], c.show, m)
                memcpy(&inter[q + m], &hand[q], h - q)
                if c.kind == SCOUT_SHOW:
                    infer__table(&st, c, inter, h + m)
                    a = scout__action(SCOUT_SHOW, 0, 0, 0, q, q + m - 1)
                else:
                    pos = infer__find(inter, h + m, c.card)
                    if pos < 0:
                        continue
                    a = scout__action(SCOUT_SCOUT_SHOW, c.end, c.card & 15, pos, q, q + m - 1)
                    memmove(&inter[pos], &inter[pos + 1], h + m - pos - 1)
                    infer__table(&st, c, inter, h + m - 1)
                probs[q] = infer__move_prob(&st, x, a, b.temp, acts, values)
                total += probs[q]
            if total <= 0.0:
                break
            logw += log(total / npos)
            u = rng_unit(rng) * total   # the position the chain goes on from
            chosen = -1
            for q in range(h + 1):
                if probs[q] > 0.0:
                    chosen = q
                    u -= probs[q]
                    if u < 0.0:
                        break
            memcpy(inter, hand, chosen)
            memcpy(&inter[chosen], c.show, m)
            memcpy(&inter[chosen + m], &hand[chosen], h - chosen)
            h += m
            if c.kind == SCOUT_SCOUT_SHOW:
                pos = infer__find(inter, h, c.card)
                memmove(&inter[pos], &inter[pos + 1], h - pos - 1)
                h -= 1
            memcpy(hand, inter, h)
    return logw


cdef class ScoutClueSet:
    """The clues of a SCOUT observation's history (ai/scout_clues.py makes them) in C."""
    cdef ScoutBelief b

    def __init__(self, list clues, double temp=1.0, int depth=0, int positions=3):
        cdef ScoutClue* c
        cdef int k
        if temp <= 0:
            raise ValueError("the inference temperature must be positive")
        memset(&self.b, 0, sizeof(ScoutBelief))
        self.b.temp = temp
        self.b.depth = max(depth, 0)
        self.b.positions = max(positions, 1)
        for clue in clues[-CLUE_MAX:]:
            c = &self.b.clues[self.b.nclues]
            self.b.nclues += 1
            kind = clue["kind"]
            c.seat = clue["seat"]
            c.kind = {"show": SCOUT_SHOW, "scout": SCOUT_SCOUT, "scout_show": SCOUT_SCOUT_SHOW,
                      "flip": CLUE_TURN, "keep": CLUE_TURN, "break": CLUE_BREAK}[kind]
            c.end = 1 if kind == "flip" else (SCOUT_END_R if clue.get("end") == "R" else SCOUT_END_L)
            c.card = scout__parse_card(clue["card"]) if clue.get("card") else 0
            c.owner = -1 if clue.get("owner") is None else clue["owner"]
            c.scout_show = 1 if clue.get("scout_show") else 0
            sizes = clue.get("sizes") or []
            for k in range(min(len(sizes), SCOUT_MAX_PLAYERS)):
                c.sizes[k] = sizes[k]
            c.before_len = scout__load_cards(clue.get("before") or [], c.before, SCOUT_MAX_HAND, "before")
            c.show_len = scout__load_cards(clue.get("show") or [], c.show, SCOUT_MAX_HAND, "show")
            c.qmask = 0
            for k in clue.get("q") or []:
                if 0 <= k < SCOUT_MAX_HAND:
                    c.qmask |= (<uint64_t>1) << k
            if c.kind in (SCOUT_SHOW, SCOUT_SCOUT_SHOW) and (c.show_len == 0 or c.qmask == 0):
                raise ValueError("a show clue needs its cards and positions")

    def __len__(self):
        return self.b.nclues

    def logweight(self, ScoutMirror mirror):
        """Test hook: the log-probability of the clues' moves in ``mirror``'s position."""
        cdef Rng rng
        cdef ScoutAction* acts = <ScoutAction*>malloc(SCOUT_MAX_ACTIONS * sizeof(ScoutAction))
        cdef double* values = <double*>malloc(SCOUT_MAX_ACTIONS * sizeof(double))
        if acts == NULL or values == NULL:
            free(acts); free(values)
            raise MemoryError()
        rng_seed(&rng, 1)
        try:
            return scout_clues_logweight(&mirror.s, &self.b, &rng, acts, values)
        finally:
            free(acts)
            free(values)
