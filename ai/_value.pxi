# The learned leaf value (docs/ai.md, "A learned leaf value"): a full state described from one
# seat's side by a few dozen numbers, and a network with one hidden layer that maps them to that
# seat's expected reward, tanh(margin / scale), as a rollout by the heuristic bots would end.
# Trained by ai/value_train.py on rounds the heuristic bots play in the C mirror (value_data).
from libc.math cimport tanh
from posix.time cimport CLOCK_PROCESS_CPUTIME_ID, clock_gettime, timespec


cdef double cpu_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9

cdef enum:
    VALUE_SEAT_IN = 8
    SCOUT_VALUE_IN = 5 + VALUE_SEAT_IN * SCOUT_MAX_PLAYERS    # 45
    SOLO_VALUE_IN = 6 + VALUE_SEAT_IN * SOLO_MAX_SEATS        # 86
    VALUE_TRAJECTORY = 1024   # the longest heuristic round value_data keeps (longer: cut there)


cdef void points_rewards(const double* points, int n, double scale, bint higher_better,
                         double* out) noexcept nogil:
    """Each seat's reward tanh(margin / scale), the margin its points minus the others' mean
    (negated when fewer points are better)."""
    cdef int s
    cdef double total = 0.0, sign = 1.0 if higher_better else -1.0
    for s in range(n):
        total += points[s]
    for s in range(n):
        out[s] = tanh(sign * (points[s] - (total - points[s]) / (n - 1)) / scale)


cdef int scout_value_features(const ScoutState* s, int seat, float* x) noexcept nogil:
    """SCOUT from ``seat``'s side: the active set (cards, top value, a set?), the turn-choice
    phase, the players; then for each seat from ``seat`` on in seat order (absent seats 0): there,
    cards in hand, the hand's value to the heuristic (its best split into groups), captured
    cards and chips, the Scout & Show chip unused, owns the active set, to move, can beat it."""
    cdef int r, p, h, n = s.players, strength = scout_active_strength(s)
    cdef uint8_t ups[SCOUT_MAX_HAND]
    cdef double F[SCOUT_HV_MAX]
    cdef double G[SCOUT_HV_MAX]
    cdef float* y
    memset(x, 0, SCOUT_VALUE_IN * sizeof(float))
    x[0] = s.active_len / 5.0
    x[1] = (strength & 15) / 10.0 if s.active_len else 0.0
    x[2] = 1.0 if (strength & 0x10) and s.active_len > 1 else 0.0
    x[3] = 1.0 if s.phase == SCOUT_PHASE_TURN_CHOICE else 0.0
    x[4] = n / 5.0
    for r in range(n):
        p = (seat + r) % n
        y = &x[5 + VALUE_SEAT_IN * r]
        h = scout__ups(s, p, ups)
        scout__hv_tables(ups, h, F, G)
        y[0] = 1.0
        y[1] = h / 10.0
        y[2] = F[h] / 5.0
        y[3] = (scout_popcount(s.captured[p]) + s.chips[p]) / 10.0
        y[4] = s.scout_show[p]
        y[5] = 1.0 if s.owner == p else 0.0
        y[6] = 1.0 if scout_to_move(s) == p else 0.0
        y[7] = 1.0 if s.active_len == 0 or scout__any_span(ups, h, strength) else 0.0
    return SCOUT_VALUE_IN


cdef int solo_value_features(const SoloState* s, int seat, float* x) noexcept nogil:
    """SOLO from ``seat``'s side: the draw pile, the penalty waiting, a Protection window open,
    the players, the scoring, the direction; then for each seat from ``seat`` on in seat order
    (absent seats 0): there, cards, their points, cards that fit the top card now, black cards,
    action cards, to move, how many turns until its turn."""
    cdef int r, p, f, k, c, n = s.n, mover = solo_to_move(s)
    cdef float* y
    cdef unsigned long long m
    memset(x, 0, SOLO_VALUE_IN * sizeof(float))
    x[0] = s.ndraw / 50.0
    x[1] = s.penalty / 8.0
    x[2] = s.has_react
    x[3] = n / 10.0
    x[4] = s.opt_scoring_pool
    x[5] = s.direction
    for r in range(n):
        p = (seat + r) % n
        y = &x[6 + VALUE_SEAT_IN * r]
        y[0] = 1.0
        y[1] = s.hsize[p] / 10.0
        m = s.held[p]
        while m:
            f = solo_ctz(m)
            m &= m - 1
            c = s.cnt[p][f]
            y[2] += c * solo_fpoints[f] / 100.0
            if solo_fits(s, f):
                y[3] += c / 5.0
            if solo_fblack[f]:
                y[4] += c / 3.0
            elif solo_frank[f] >= SOLO_RK_SKIP:
                y[5] += c / 3.0
        y[6] = 1.0 if mover == p else 0.0
        if s.turn >= 0:
            k = ((p - s.turn) * s.direction) % n
            y[7] = (k + n if k < 0 else k) / <float>n
    return SOLO_VALUE_IN


cdef inline double net_forward(const ValueNet* net, const float* x) noexcept nogil:
    """The network's reward for the seat ``x`` describes, in (-1, 1)."""
    cdef int h, i
    cdef float z[VALUE_MAX_IN]
    cdef double a, out = net.b2
    cdef const float* w
    for i in range(net.n_in):
        z[i] = (x[i] - net.shift[i]) * net.gain[i]
    for h in range(net.n_hidden):
        w = &net.w1[h * VALUE_MAX_IN]
        a = net.b1[h]
        for i in range(net.n_in):
            a += w[i] * z[i]
        out += net.w2[h] * tanh(a)
    return tanh(out)


cdef void scout_net_rewards(const ValueNet* net, const ScoutState* s, double* out) noexcept nogil:
    cdef float x[VALUE_MAX_IN]
    cdef int p
    for p in range(s.players):
        scout_value_features(s, p, x)
        out[p] = net_forward(net, x)


cdef void solo_net_rewards(const ValueNet* net, const SoloState* s, double* out) noexcept nogil:
    cdef float x[VALUE_MAX_IN]
    cdef int p
    for p in range(s.n):
        solo_value_features(s, p, x)
        out[p] = net_forward(net, x)


cdef class ValueModel:
    """A trained network (ai/value_net.py loads it from its JSON file): ``game`` (solo or
    scout), ``shift`` and ``gain`` (one each per input), ``w1`` (hidden x inputs), ``b1``,
    ``w2`` (one per hidden unit) and ``b2``."""
    cdef ValueNet net
    cdef readonly str game
    cdef int game_id

    def __init__(self, str game, list shift, list gain, list w1, list b1, list w2, double b2):
        cdef int h, i, n_in = SOLO_VALUE_IN if game == "solo" else SCOUT_VALUE_IN
        if game not in ("solo", "scout"):
            raise ValueError(f"unknown game {game!r}")
        if len(shift) != n_in or len(gain) != n_in:
            raise ValueError(f"a {game} network takes {n_in} inputs, not {len(shift)}")
        if not 1 <= len(b1) <= VALUE_MAX_HIDDEN or len(w1) != len(b1) or len(w2) != len(b1):
            raise ValueError(f"a network has 1 to {VALUE_MAX_HIDDEN} hidden units, one row of w1 and "
                             "one w2 each")
        memset(&self.net, 0, sizeof(ValueNet))
        self.game = game
        self.net.game = self.game_id = 0 if game == "solo" else 1
        self.net.n_in = n_in
        self.net.n_hidden = len(b1)
        for i in range(n_in):
            self.net.shift[i] = shift[i]
            self.net.gain[i] = gain[i]
        for h in range(len(b1)):
            if len(w1[h]) != n_in:
                raise ValueError(f"row {h} of w1 has {len(w1[h])} weights, not {n_in}")
            for i in range(n_in):
                self.net.w1[h * VALUE_MAX_IN + i] = w1[h][i]
            self.net.b1[h] = b1[h]
            self.net.w2[h] = w2[h]
        self.net.b2 = b2

    def rewards(self, dict snapshot):
        """Each seat's reward by the network at an engine position (``State.snapshot()``)."""
        cdef double out[SOLO_MAX_SEATS]
        cdef SoloMirror solo
        cdef ScoutMirror scout
        if snapshot["config"].get("game", "solo") != self.game:
            raise ValueError(f"a {self.game} network cannot value a {snapshot['config'].get('game')} position")
        if self.game == "solo":
            solo = SoloMirror.from_snapshot(snapshot)
            solo_net_rewards(&self.net, &solo.s, out)
            return [out[p] for p in range(solo.s.n)]
        scout = ScoutMirror.from_snapshot(snapshot)
        scout_net_rewards(&self.net, &scout.s, out)
        return [out[p] for p in range(scout.s.players)]


def value_features(dict snapshot, int seat):
    """The network's inputs at an engine position, from ``seat``'s side (a list of floats)."""
    cdef float x[VALUE_MAX_IN]
    cdef SoloMirror solo
    cdef ScoutMirror scout
    cdef int n
    if snapshot["config"].get("game", "solo") == "scout":
        scout = ScoutMirror.from_snapshot(snapshot)
        n = scout_value_features(&scout.s, seat % scout.s.players, x)
    else:
        solo = SoloMirror.from_snapshot(snapshot)
        n = solo_value_features(&solo.s, seat % solo.s.n, x)
    return [x[i] for i in range(n)]


def value_data(list snapshots, unsigned long long seed, int per_round, double scale,
               float[:, ::1] features, float[::1] rewards):
    """Training rows: from each engine position in ``snapshots`` (a freshly dealt round) the
    heuristic bots play the round to its end in C; ``per_round`` positions of it, drawn
    uniformly, give one row per seat: the position from that seat's side (``features``) and the
    seat's reward at the end, tanh(margin / ``scale``) (``rewards``). Returns the rows written
    (the arrays must hold len(snapshots) * per_round * seats rows)."""
    cdef Rng rng
    cdef int k, steps, row = 0, p, n, pick, columns
    cdef bint is_scout, higher
    cdef double points[SOLO_MAX_SEATS]
    cdef double reward[SOLO_MAX_SEATS]
    cdef SoloMirror solo
    cdef ScoutMirror scout
    cdef SoloState* solo_path = <SoloState*>malloc(VALUE_TRAJECTORY * sizeof(SoloState))
    cdef ScoutState* scout_path = <ScoutState*>malloc(VALUE_TRAJECTORY * sizeof(ScoutState))
    if solo_path == NULL or scout_path == NULL:
        free(solo_path); free(scout_path)
        raise MemoryError("no memory for the rounds")
    rng_seed(&rng, seed)
    try:
        for d in snapshots:
            is_scout = d["config"].get("game", "solo") == "scout"
            if is_scout:
                scout = ScoutMirror.from_snapshot(d)
                n, higher, columns = scout.s.players, True, SCOUT_VALUE_IN
            else:
                solo = SoloMirror.from_snapshot(d)
                n, higher, columns = solo.s.n, solo.s.opt_scoring_pool, SOLO_VALUE_IN
            if features.shape[1] != columns:
                raise ValueError(f"features has {features.shape[1]} columns, not {columns}")
            if row + per_round * n > features.shape[0] or row + per_round * n > rewards.shape[0]:
                raise ValueError("the arrays hold too few rows")
            with nogil:
                steps = 0
                if is_scout:
                    while steps < VALUE_TRAJECTORY and not scout_over(&scout.s):
                        scout_path[steps] = scout.s
                        scout_rollout_step(&scout.s, &rng)
                        steps += 1
                    while not scout_over(&scout.s):
                        scout_rollout_step(&scout.s, &rng)
                    scout_points(&scout.s, points)
                else:
                    while steps < VALUE_TRAJECTORY and not solo_over(&solo.s):
                        solo_path[steps] = solo.s
                        solo_rollout_step(&solo.s, &rng)
                        steps += 1
                    while not solo_over(&solo.s):
                        solo_rollout_step(&solo.s, &rng)
                    solo_points(&solo.s, points)
                points_rewards(points, n, scale, higher, reward)
                for k in range(per_round if steps > 0 else 0):
                    pick = <int>rng_below(&rng, steps)
                    for p in range(n):
                        if is_scout:
                            scout_value_features(&scout_path[pick], p, &features[row, 0])
                        else:
                            solo_value_features(&solo_path[pick], p, &features[row, 0])
                        rewards[row] = reward[p]
                        row += 1
        return row
    finally:
        free(solo_path)
        free(scout_path)


def value_speed(ValueModel model, dict snapshot, int calls, unsigned long long seed=1):
    """Bench hook: CPU seconds for ``calls`` network valuations of every seat at an engine
    position, and for ``calls`` heuristic rollouts from it to the round's end."""
    cdef double out[SOLO_MAX_SEATS]
    cdef SoloMirror solo
    cdef ScoutMirror scout
    cdef SoloState ss
    cdef ScoutState cs
    cdef Rng rng
    cdef int k
    cdef double t0, t1, t2
    rng_seed(&rng, seed)
    if model.game == "solo":
        solo = SoloMirror.from_snapshot(snapshot)
    else:
        scout = ScoutMirror.from_snapshot(snapshot)
    with nogil:
        t0 = cpu_seconds()
        for k in range(calls):
            if model.game_id == 0:
                solo_net_rewards(&model.net, &solo.s, out)
            else:
                scout_net_rewards(&model.net, &scout.s, out)
        t1 = cpu_seconds()
        for k in range(calls):
            if model.game_id == 0:
                ss = solo.s
                while not solo_over(&ss):
                    solo_rollout_step(&ss, &rng)
            else:
                cs = scout.s
                while not scout_over(&cs):
                    scout_rollout_step(&cs, &rng)
        t2 = cpu_seconds()
    return t1 - t0, t2 - t1


VALUE_INPUTS = {"solo": SOLO_VALUE_IN, "scout": SCOUT_VALUE_IN}
"""The network's inputs per game (value_features' length)."""
