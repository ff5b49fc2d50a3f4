# Inference in SOLO: a seat that drew at its turn held no card that fitted (ai/solo_clues.py).
#
# The heuristic plays whenever any play fits (drawing scores below every play but a Swap or
# Pass hands that would bring a bigger hand), so a seat that drew with no penalty on it is
# modelled as holding, then, no card that could be played on that top card and colour, a Swap
# or a Pass hands aside (it may have kept those). Since
# then it gained some unseen cards (the draw itself and any later draw, penalty or Gift), and
# any card it played since that would have fitted must have been one of those: a clue's
# ``budget`` is how many of the cards it holds now may fit. A determinization in which the
# seat holds ``f`` fitting cards is weighed INFER_NOISE ** (f - budget) when f exceeds the
# budget (the model's share of moves unlike the heuristic), 1 otherwise.

ctypedef struct SoloClue:
    signed char seat
    signed char colour      # the colour in force at the draw (-1: any)
    unsigned char top       # the top card's face at the draw
    signed char budget      # how many of the seat's cards now may fit


ctypedef struct SoloBelief:
    int nclues
    SoloClue clues[CLUE_MAX]


cdef double solo_clues_logweight(const SoloState* det, const SoloBelief* b, SoloAction* acts) noexcept nogil:
    """log of the probability of the clues' draws in the determinization ``det``."""
    cdef SoloState st
    cdef const SoloClue* c
    cdef double logw = 0.0
    cdef unsigned long long fit
    cdef int i, k, n, f, x
    for i in range(b.nclues):
        c = &b.clues[i]
        x = c.seat
        if x < 0 or x >= det.n or det.ndiscard == 0:
            continue
        st = det[0]
        st.turn = <signed char>x
        st.penalty = 0
        st.penalty_kind = -1
        st.drawn = -1
        st.jump = 0
        st.has_react = 0
        st.nsolo = 0  # no SOLO window open
        st.discard[st.ndiscard - 1] = c.top
        st.colour = c.colour
        n = solo_legal(&st, x, acts)
        fit = 0
        for k in range(n):
            if acts[k].kind == SOLO_A_PLAY:
                fit |= (<unsigned long long>1) << acts[k].cards[0]
        f = 0
        for k in range(SOLO_NFACES):
            if (fit >> k) & 1 and solo_frank[k] != SOLO_RK_SWAP and solo_frank[k] != SOLO_RK_PASS:
                f += st.cnt[x][k]
        if f > c.budget:
            logw += (f - c.budget) * log(INFER_NOISE)
    return logw


cdef class SoloClueSet:
    """The draw clues of a SOLO observation's history (ai/solo_clues.py makes them) in C."""
    cdef SoloBelief b

    def __init__(self, list clues):
        cdef SoloClue* c
        memset(&self.b, 0, sizeof(SoloBelief))
        for clue in clues[-CLUE_MAX:]:
            c = &self.b.clues[self.b.nclues]
            self.b.nclues += 1
            c.seat = clue["seat"]
            c.top = _solo_face(clue["top"])
            c.colour = _solo_colour(clue.get("colour"))
            c.budget = max(0, min(100, clue["budget"]))

    def __len__(self):
        return self.b.nclues

    def logweight(self, SoloMirror mirror):
        """Test hook: the log-probability of the clues' draws in ``mirror``'s position."""
        cdef SoloAction* acts = <SoloAction*>malloc(SOLO_MAX_ACTIONS * sizeof(SoloAction))
        if acts == NULL:
            raise MemoryError()
        try:
            return solo_clues_logweight(&mirror.s, &self.b, acts)
        finally:
            free(acts)
