# The learned policy (docs/ai.md, "Expert iteration"): a network with one hidden layer that
# scores each candidate move of the seat to move from what that seat knows (its own hand and the
# public table: no other seat's hidden cards), the heuristic's value of the move among its
# inputs. Its softmax is the search's PUCT prior (search(policy=)) and its best move is the
# ``learned`` level. Trained by ai/expert.py on the visit counts of searches in self-play.
#
# A row of inputs is [the position (POLICY_STATE) | the move (POLICY_MOVE)]; the position's part
# of the hidden layer is computed once per position and shared by its moves.

cdef enum:
    POLICY_STATE = 16
    POLICY_MOVE = 24
    POLICY_IN = POLICY_STATE + POLICY_MOVE
    POLICY_MAX_HIDDEN = 64
    POLICY_REL_CAP = 10    # a move's heuristic value below the best, in prior_temp units, capped


cdef void scout_policy_state(const ScoutState* s, int seat, float* x) noexcept nogil:
    """SCOUT from ``seat``'s side, public and own cards only."""
    cdef uint8_t ups[SCOUT_MAX_HAND]
    cdef double F[SCOUT_HV_MAX]
    cdef double G[SCOUT_HV_MAX]
    cdef int h, p, n = s.players, strength = scout_active_strength(s), shortest = 99, total = 0
    memset(x, 0, POLICY_STATE * sizeof(float))
    h = scout__ups(s, seat, ups)
    scout__hv_tables(ups, h, F, G)
    for p in range(n):
        if p != seat:
            total += s.hand_len[p]
            if s.hand_len[p] < shortest:
                shortest = s.hand_len[p]
    x[0] = h / 10.0
    x[1] = F[h] / 5.0
    x[2] = s.active_len / 5.0
    x[3] = (strength & 15) / 10.0 if s.active_len else 0.0
    x[4] = 1.0 if (strength & 0x10) and s.active_len > 1 else 0.0
    x[5] = 1.0 if s.phase == SCOUT_PHASE_TURN_CHOICE else 0.0
    x[6] = n / 5.0
    x[7] = (scout_popcount(s.captured[seat]) + s.chips[seat]) / 10.0
    x[8] = s.scout_show[seat]
    x[9] = 1.0 if s.owner == seat else 0.0
    x[10] = shortest / 10.0 if n > 1 else 0.0
    x[11] = total / (10.0 * (n - 1)) if n > 1 else 0.0
    x[12] = s.hand_len[(seat + 1) % n] / 10.0
    x[13] = 1.0 if n == 2 else 0.0
    x[14] = s.chips[seat] / 5.0
    x[15] = 1.0 if s.active_len == 0 or scout__any_span(ups, h, strength) else 0.0


cdef void scout_policy_move(const ScoutState* s, int seat, const ScoutAction* a, double rel, bint best,
                            float* x) noexcept nogil:
    """A SCOUT move (NULL: none) of ``seat``: its kind, the cards it shows and leaves, what it
    scouts, and the heuristic's value of it (``rel``: below its best, >= 0; ``best``)."""
    cdef uint8_t ups[SCOUT_MAX_HAND]
    cdef int h, length
    memset(x, 0, POLICY_MOVE * sizeof(float))
    x[22] = (rel if rel < POLICY_REL_CAP else POLICY_REL_CAP) / 5.0
    x[23] = 1.0 if best else 0.0
    if a == NULL:
        x[6] = 1.0
        return
    x[a.kind] = 1.0
    h = scout__ups(s, seat, ups)
    if a.kind == SCOUT_SHOW or a.kind == SCOUT_SCOUT_SHOW:
        length = a.last - a.first + 1
        x[7] = length / 5.0
        x[8 + (length if length < 6 else 6) - 1] = 1.0       # 8..13
        x[14] = (h + (1 if a.kind == SCOUT_SCOUT_SHOW else 0) - length) / 10.0
        if a.kind == SCOUT_SHOW:
            x[15] = (scout_strength(&ups[a.first], length) & 15) / 10.0
            x[16] = 1.0 if (scout_strength(&ups[a.first], length) & 0x10) and length > 1 else 0.0
        x[17] = 1.0 if a.first == 0 or a.last == h - (0 if a.kind == SCOUT_SCOUT_SHOW else 1) else 0.0
    if a.kind == SCOUT_SCOUT or a.kind == SCOUT_SCOUT_SHOW:
        x[18] = a.value / 10.0
        x[19] = a.pos / (h + 1.0)
        x[20] = 1.0 if a.end == SCOUT_END_R else 0.0
        x[21] = 1.0 if (a.pos > 0 and abs(ups[a.pos - 1] - a.value) <= 1) or \
            (a.pos < h and abs(ups[a.pos] - a.value) <= 1) else 0.0


cdef void solo_policy_state(const SoloState* s, int seat, float* x) noexcept nogil:
    """SOLO from ``seat``'s side, public and own cards only."""
    cdef int p, f, c, n = s.n, shortest = 999
    cdef unsigned long long m = s.held[seat]
    memset(x, 0, POLICY_STATE * sizeof(float))
    x[0] = s.hsize[seat] / 10.0
    while m:
        f = solo_ctz(m)
        m &= m - 1
        c = s.cnt[seat][f]
        x[1] += c * solo_fpoints[f] / 100.0
        if solo_fits(s, f):
            x[2] += c / 5.0
        if solo_fblack[f]:
            x[3] += c / 3.0
        elif solo_frank[f] >= SOLO_RK_SKIP:
            x[4] += c / 3.0
    for p in range(n):
        if p != seat and s.hsize[p] < shortest:
            shortest = s.hsize[p]
    x[5] = s.ndraw / 50.0
    x[6] = s.penalty / 8.0
    x[7] = s.has_react
    x[8] = n / 10.0
    x[9] = s.opt_scoring_pool
    x[10] = s.direction
    x[11] = shortest / 10.0 if n > 1 else 0.0
    x[12] = s.hsize[solo_next(s, seat, 1)] / 10.0
    x[13] = 1.0 if solo_to_move(s) == seat else 0.0
    x[14] = 1.0 if s.drawn >= 0 else 0.0
    x[15] = 1.0 if n == 2 else 0.0


cdef void solo_policy_move(const SoloState* s, int seat, const SoloAction* a, double rel, bint best,
                           float* x) noexcept nogil:
    """A SOLO move (NULL: "not now") of ``seat``: its kind, the card's rank, count, points and
    colour, the call, and the heuristic's value of it (``rel``: below its best, >= 0; ``best``)."""
    cdef int f, rank
    memset(x, 0, POLICY_MOVE * sizeof(float))
    x[22] = (rel if rel < POLICY_REL_CAP else POLICY_REL_CAP) / 5.0
    x[23] = 1.0 if best else 0.0
    if a == NULL:
        x[4] = 1.0
        return
    if a.kind != SOLO_A_PLAY:
        x[1 if a.kind == SOLO_A_DRAW else 2 if a.kind == SOLO_A_KEEP else 3] = 1.0
        return
    x[0] = 1.0
    f = a.cards[a.ncards - 1]
    rank = solo_frank[f]
    x[5 + (0 if rank < SOLO_RK_SKIP else rank - SOLO_RK_SKIP + 1)] = 1.0   # 5..14
    x[15] = a.ncards / 8.0
    x[16] = (solo_fpoints[f] * a.ncards) / 100.0
    x[17] = 1.0 if solo_fcolour[f] >= 0 and solo_fcolour[f] != s.colour else 0.0
    x[18] = 1.0 if a.colour >= 0 else 0.0
    x[19] = a.call
    x[20] = a.ngift / 2.0
    x[21] = 1.0 if a.target >= 0 and a.target == solo_next(s, seat, 1) else 0.0


cdef inline float fast_tanh(float x) noexcept nogil:
    """tanh(x) within 4e-7: a rational function of x (Eigen's float tanh), no library call,
    so that a loop over the hidden units is vectorised."""
    cdef float c = 7.90531110763549805, x2, p, q
    cdef float a1 = 4.89352455891786e-03, a3 = 6.37261928875436e-04, a5 = 1.48572235717979e-05
    cdef float a7 = 5.12229709037114e-08, a9 = -8.60467152213735e-11, a11 = 2.00018790482477e-13
    cdef float a13 = -2.76076847742355e-16
    cdef float b0 = 4.89352518554385e-03, b2 = 2.26843463243900e-03, b4 = 1.18534705686654e-04
    cdef float b6 = 1.19825839466702e-06
    x = c if x > c else (-c if x < -c else x)
    x2 = x * x
    p = x * (a1 + x2 * (a3 + x2 * (a5 + x2 * (a7 + x2 * (a9 + x2 * (a11 + x2 * a13))))))
    q = b0 + x2 * (b2 + x2 * (b4 + x2 * b6))
    return p / q


cdef inline void policy_hidden_state(const PolicyNet* net, const float* x, float* zs) noexcept nogil:
    """The position's part of each hidden unit (bias included) into ``zs``."""
    cdef int h, i, nh = net.n_hidden
    cdef const float* w
    cdef float xi
    for h in range(nh):
        zs[h] = net.bias[h]
    for i in range(POLICY_STATE):
        xi = x[i]
        if xi != 0:
            w = &net.wt[i * POLICY_MAX_HIDDEN]
            for h in range(nh):
                zs[h] += xi * w[h]


cdef inline double policy_logit(const PolicyNet* net, const float* zs, const float* xm) noexcept nogil:
    """One move's logit given the position's part ``zs`` and the move's inputs ``xm``."""
    cdef int h, i, nh = net.n_hidden
    cdef const float* w
    cdef float xi
    cdef float a[POLICY_MAX_HIDDEN]
    cdef double out = net.b2
    memcpy(a, zs, nh * sizeof(float))
    for i in range(POLICY_MOVE):
        xi = xm[i]
        if xi != 0:
            w = &net.wt[(POLICY_STATE + i) * POLICY_MAX_HIDDEN]
            for h in range(nh):
                a[h] += xi * w[h]
    for h in range(nh):
        a[h] = fast_tanh(a[h])
    for h in range(nh):
        out += net.w2[h] * a[h]
    return out


cdef inline void set_priors_logits(KeyIdx* ki, int n, const double* logits, double temp) noexcept nogil:
    """ki[i].prior = softmax(logits[i] / temp)."""
    cdef int i
    cdef double top = -1e300, total = 0.0, p
    for i in range(n):
        if logits[i] > top:
            top = logits[i]
    for i in range(n):
        p = exp((logits[i] - top) / temp)
        ki[i].prior = <float>p
        total += p
    for i in range(n):
        ki[i].prior = <float>(ki[i].prior / total)


cdef class PolicyModel:
    """A trained policy (ai/policy_net.py loads it from its JSON file): ``game``, ``shift`` and
    ``gain`` (one each per input), ``w1`` (hidden x inputs), ``b1``, ``w2``, ``b2``."""
    cdef PolicyNet net
    cdef readonly str game

    def __init__(self, str game, list shift, list gain, list w1, list b1, list w2, double b2):
        cdef int h, i
        if game not in ("solo", "scout"):
            raise ValueError(f"unknown game {game!r}")
        if len(shift) != POLICY_IN or len(gain) != POLICY_IN:
            raise ValueError(f"a policy takes {POLICY_IN} inputs, not {len(shift)}")
        if not 1 <= len(b1) <= POLICY_MAX_HIDDEN or len(w1) != len(b1) or len(w2) != len(b1):
            raise ValueError(f"a policy has 1 to {POLICY_MAX_HIDDEN} hidden units, one row of w1 and "
                             "one w2 each")
        memset(&self.net, 0, sizeof(PolicyNet))
        self.game = game
        self.net.n_hidden = len(b1)
        for i in range(POLICY_IN):
            self.net.shift[i] = shift[i]
            self.net.gain[i] = gain[i]
        for h in range(len(b1)):
            if len(w1[h]) != POLICY_IN:
                raise ValueError(f"row {h} of w1 has {len(w1[h])} weights, not {POLICY_IN}")
            for i in range(POLICY_IN):
                self.net.w1[h * POLICY_IN + i] = w1[h][i]
            self.net.b1[h] = b1[h]
            self.net.w2[h] = w2[h]
        self.net.b2 = b2
        for h in range(len(b1)):
            folded = float(b1[h])
            for i in range(POLICY_IN):
                self.net.wt[i * POLICY_MAX_HIDDEN + h] = w1[h][i] * gain[i]
                folded -= w1[h][i] * gain[i] * shift[i]
            self.net.bias[h] = folded

    def logits(self, float[:, ::1] rows):
        """The logit of each row of inputs (policy_inputs' rows)."""
        cdef float zs[POLICY_MAX_HIDDEN]
        cdef int r
        out = [0.0] * rows.shape[0]
        if rows.shape[1] != POLICY_IN:
            raise ValueError(f"a policy takes {POLICY_IN} inputs, not {rows.shape[1]}")
        for r in range(rows.shape[0]):
            policy_hidden_state(&self.net, &rows[r, 0], zs)
            out[r] = policy_logit(&self.net, zs, &rows[r, POLICY_STATE])
        return out


def policy_inputs(str game, dict observation, dict config, int seat, bint wait=False,
                  unsigned long long seed=0):
    """The inputs of the policy for each of ``seat``'s candidate moves (the search's root
    moves; with ``wait``, "not now" last) from its observation: (rows, a float32 array with one
    row of POLICY_IN per move, and the moves' texts, None for "not now")."""
    import numpy as np

    cdef SoloMirror solo
    cdef ScoutMirror scout
    cdef void* acts
    cdef KeyIdx* ki
    cdef double* values
    cdef int n, i, k
    cdef float[:, ::1] view
    cdef double temp = SEARCH_DEFAULTS[game]["prior_temp"]
    if game == "solo":
        solo = SoloInfoSet(observation, config).sample(seed)
        acts = malloc(SOLO_MAX_ACTIONS * sizeof(SoloAction))
        n = SOLO_MAX_ACTIONS
    elif game == "scout":
        scout = ScoutInfoSet(observation, config).sample(seed)
        acts = malloc(SCOUT_MAX_ACTIONS * sizeof(ScoutAction))
        n = SCOUT_MAX_ACTIONS
    else:
        raise ValueError(f"unknown game {game!r}")
    ki = <KeyIdx*>malloc((n + 1) * sizeof(KeyIdx))
    values = <double*>malloc((n + 1) * sizeof(double))
    try:
        if acts == NULL or ki == NULL or values == NULL:
            raise MemoryError("no memory for the moves")
        n = solo_candidates(&solo.s, seat, <SoloAction*>acts) if game == "solo" else \
            scout_candidates(&scout.s, seat, <ScoutAction*>acts)
        if n > 0:
            if game == "solo":
                solo_values(&solo.s, seat, <SoloAction*>acts, n, values)
            else:
                scout_values(&scout.s, seat, <ScoutAction*>acts, n, values)
        for i in range(n):
            ki[i].idx = i
        if wait:
            ki[n].idx = -1
        k = n + (1 if wait else 0)
        out = np.zeros((k, POLICY_IN), np.float32)
        view = out
        texts = []
        for i in range(k):
            if game == "solo":
                solo_policy_state(&solo.s, seat, &view[i, 0])
                texts.append(solo_action_text(&(<SoloAction*>acts)[i]) if i < n else None)
            else:
                scout_policy_state(&scout.s, seat, &view[i, 0])
                texts.append(scout_action_text(&(<ScoutAction*>acts)[i]) if i < n else None)
        _policy_move_rows(game, &solo.s if game == "solo" else NULL, &scout.s if game == "scout" else NULL,
                          seat, acts, ki, k, values, temp, view)
        return out, texts
    finally:
        free(acts)
        free(ki)
        free(values)


cdef void _policy_move_rows(str game, SoloState* solo, ScoutState* scout, int seat, void* acts,
                            const KeyIdx* ki, int n, const double* values, double temp,
                            float[:, ::1] view):
    cdef double top = -1e300, v
    cdef int i
    for i in range(n):
        v = values[ki[i].idx] if ki[i].idx >= 0 else 0.0
        if v > top:
            top = v
    for i in range(n):
        v = values[ki[i].idx] if ki[i].idx >= 0 else 0.0
        if game == "solo":
            solo_policy_move(solo, seat, &(<SoloAction*>acts)[ki[i].idx] if ki[i].idx >= 0 else NULL,
                             (top - v) / temp, v >= top - 1e-9, &view[i, POLICY_STATE])
        else:
            scout_policy_move(scout, seat, &(<ScoutAction*>acts)[ki[i].idx] if ki[i].idx >= 0 else NULL,
                              (top - v) / temp, v >= top - 1e-9, &view[i, POLICY_STATE])


POLICY_INPUTS = POLICY_IN
"""The policy's inputs per move (policy_inputs' columns)."""


def policy_move(PolicyModel model, str game, dict observation, dict config, int seat, bint wait=False,
                unsigned long long seed=0):
    """The network's move from ``seat``'s observation, no search: the candidate with the
    highest logit (the first of equals); None for "not now" (``wait``) or no move."""
    if model.game != game:
        raise ValueError(f"a {model.game} policy cannot play {game}")
    rows, texts = policy_inputs(game, observation, config, seat, wait, seed)
    if not texts:
        return None
    logits = model.logits(rows)
    return texts[max(range(len(texts)), key=logits.__getitem__)]
