# Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012) over the mirrors.
#
# One tree per search. Each iteration samples a determinization of the searcher's information
# set and descends the tree choosing only among the moves legal in that sample (availability):
# PUCT with a prior from the heuristic bot's values of the candidates (G_values; the move it
# would play gets most of the weight), or plain UCB1 with random expansion when cpuct is 0. It
# expands one move, plays the round out with the heuristic bots' policy (G_rollout_step, capped,
# then G_evaluate), and backs up every seat's reward, tanh of its score margin. Edges are
# labelled by action keys; a node remembers the seat that chose the action leading to it. The
# answer is the most visited root move. Nodes live in one preallocated pool; the loop runs
# without the GIL and touches no Python object.
from libc.math cimport exp, log, sqrt, tanh
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memmove, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

cdef unsigned long long WAIT_KEY = 0xFFFFFFFFFFFFFFFFULL  # the root's "let the waiting seat act"


ctypedef fused GameState:
    SoloState
    ScoutState

cdef double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


def clock():
    """The search's clock (CLOCK_MONOTONIC, seconds): what search()'s ``deadline`` is read on."""
    return now_seconds()


cdef struct Deadline:
    double at          # the monotonic time to stop at (0: none)
    double last        # when the clock was last read
    int stride         # calls between two reads
    int countdown      # calls until the next read


cdef inline void deadline_start(Deadline* d, double at) noexcept nogil:
    d.at = at
    d.last = now_seconds()
    d.stride = 1
    d.countdown = 1


cdef inline bint deadline_passed(Deadline* d) noexcept nogil:
    """Whether the deadline has passed, asked once an iteration. The clock is read every
    ``stride`` calls, the stride doubled while reads come less than 20 µs apart and halved
    once they come more than 80 µs apart (at most 64): so a search stops within about 80 µs or
    one slow iteration of its deadline, and a slow clock (a VM without a vDSO clock) costs
    little."""
    cdef double t
    if d.at <= 0:
        return False
    d.countdown -= 1
    if d.countdown > 0:
        return False
    t = now_seconds()
    if t >= d.at:
        d.countdown = 1
        return True
    if t - d.last < 20e-6:
        if d.stride < 64:
            d.stride *= 2
    elif t - d.last > 80e-6 and d.stride > 1:
        d.stride //= 2
    d.last = t
    d.countdown = d.stride
    return False


cdef enum:
    LOG_TABLE = 8192

cdef double log_table[LOG_TABLE]   # log(i): UCB1's availability counts are small integers


cdef void _init_log_table():
    cdef int i
    log_table[0] = 0.0
    for i in range(1, LOG_TABLE):
        log_table[i] = log(<double>i)


_init_log_table()


cdef inline double log_count(unsigned int n) noexcept nogil:
    return log_table[n] if n < LOG_TABLE else log(<double>n)


cdef inline void node_init(Tree* t, int i, unsigned long long key, int seat) noexcept nogil:
    cdef Node* node = &t.nodes[i]
    node.key = key
    node.reward = 0.0
    node.visits = 0
    node.avail = 0
    node.kids = NO_NODE
    node.nkids = 0
    node.kshift = 0
    node.seat = <signed char>seat
    node.born = t.born
    t.born += 1


cdef inline int block_alloc(Tree* t, int shift) noexcept nogil:
    """A block of 1 << shift nodes from the pool (a freed one of that size first), or NO_NODE."""
    cdef int b = t.free_blocks[shift]
    if b != NO_NODE:
        t.free_blocks[shift] = t.nodes[b].kids
        return b
    if t.size > t.capacity - (1 << shift):
        return NO_NODE
    b = t.size
    t.size += 1 << shift
    return b


cdef inline int kid_position(const Tree* t, int parent, unsigned long long key) noexcept nogil:
    """Where ``key`` goes among the parent's children (sorted by key): the first not below it."""
    cdef const Node* kids = &t.nodes[t.nodes[parent].kids]
    cdef int lo = 0, hi = t.nodes[parent].nkids, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if kids[mid].key < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline int kid_room(int kshift) noexcept nogil:
    """How many children a block of 1 << kshift nodes holds (big blocks keep an index)."""
    return (1 << kshift) if kshift < HASH_SHIFT else 7 << (kshift - 3)


cdef inline unsigned short* kid_index(const Tree* t, int parent) noexcept nogil:
    """The hash index of a big block's children: its last eighth, 2 << kshift entries."""
    cdef const Node* p = &t.nodes[parent]
    return <unsigned short*>&t.nodes[p.kids + kid_room(p.kshift)]


cdef inline unsigned int kid_slot(unsigned long long key, int kshift) noexcept nogil:
    """Where ``key``'s probe starts in an index of 2 << kshift entries (Fibonacci hashing)."""
    return <unsigned int>((key * 0x9E3779B97F4A7C15ULL) >> (63 - kshift))


cdef void index_build(Tree* t, int parent) noexcept nogil:
    """Index every child of a big block afresh."""
    cdef const Node* p = &t.nodes[parent]
    cdef const Node* kids = &t.nodes[p.kids]
    cdef unsigned short* index = kid_index(t, parent)
    cdef unsigned int mask = (2u << p.kshift) - 1, h
    cdef int i
    memset(index, 0, (mask + 1) * sizeof(unsigned short))
    for i in range(p.nkids):
        h = kid_slot(kids[i].key, p.kshift)
        while index[h]:
            h = (h + 1) & mask
        index[h] = <unsigned short>(i + 1)


cdef inline void index_insert(Tree* t, int parent, int pos) noexcept nogil:
    """The children from ``pos`` on moved one place up and a new one came at ``pos``."""
    cdef const Node* p = &t.nodes[parent]
    cdef unsigned short* index = kid_index(t, parent)
    cdef unsigned int mask = (2u << p.kshift) - 1, h, e
    for e in range(mask + 1):
        index[e] += index[e] > pos
    h = kid_slot(t.nodes[p.kids + pos].key, p.kshift)
    while index[h]:
        h = (h + 1) & mask
    index[h] = <unsigned short>(pos + 1)


cdef int add_child(Tree* t, int parent, unsigned long long key, int seat) noexcept nogil:
    """A new child of ``parent`` (not the root) for ``key``, kept in key order in the parent's
    block; the block doubles (into a new block, the old one freed) when full, and a big one
    keeps its hash index up to date. The parent's other children may move: only the parent
    and its ancestors keep their places. Returns the child, or NO_NODE when the pool (or the
    node) is full."""
    cdef Node* p = &t.nodes[parent]
    cdef int n = p.nkids, pos = 0, b
    cdef bint grown = False
    if p.kids == NO_NODE:
        b = block_alloc(t, 0)
        if b == NO_NODE:
            return NO_NODE
        p.kids = b
        p.kshift = 0
    else:
        pos = kid_position(t, parent, key)
        if n == kid_room(p.kshift):
            if p.kshift + 1 >= KID_SHIFTS:
                return NO_NODE
            b = block_alloc(t, p.kshift + 1)
            if b == NO_NODE:
                return NO_NODE
            memcpy(&t.nodes[b], &t.nodes[p.kids], pos * sizeof(Node))
            memcpy(&t.nodes[b + pos + 1], &t.nodes[p.kids + pos], (n - pos) * sizeof(Node))
            t.nodes[p.kids].kids = t.free_blocks[p.kshift]
            t.free_blocks[p.kshift] = p.kids
            p.kids = b
            p.kshift += 1
            grown = True
        elif pos < n:
            memmove(&t.nodes[p.kids + pos + 1], &t.nodes[p.kids + pos], (n - pos) * sizeof(Node))
    p.nkids = <unsigned short>(n + 1)
    node_init(t, p.kids + pos, key, seat)
    if p.kshift >= HASH_SHIFT:
        if grown:
            index_build(t, parent)
        else:
            index_insert(t, parent, pos)
    return p.kids + pos


cdef inline int g_candidates(GameState* s, int seat, void* acts) noexcept nogil:
    if GameState is SoloState:
        return solo_candidates(s, seat, <SoloAction*>acts)
    else:
        return scout_candidates(s, seat, <ScoutAction*>acts)


cdef inline unsigned long long g_key(GameState* s, void* acts, int i) noexcept nogil:
    if GameState is SoloState:
        return solo_key(&(<SoloAction*>acts)[i])
    else:
        return scout_key(&(<ScoutAction*>acts)[i])


cdef inline unsigned long long g_edge_key(GameState* s, void* acts, int i) noexcept nogil:
    """The key of a move below the root, as the tree tells them apart: a SOLO Gift leaves
    out the cards given (a third seat never sees them; the giver's hand below the root
    differs from sample to sample, so its pairs would only scatter the visits), and
    multiples keep only their number, count and top card; every other move is its own
    key. SCOUT (search option ``keys="cards"``): another seat's move is keyed by the cards
    it shows the table (scout_card_key)."""
    cdef SoloAction a
    cdef int k
    if GameState is SoloState:
        a = (<SoloAction*>acts)[i]
        if a.ngift > 0:
            a.gift[0] = 0
            a.gift[1] = 0
        if a.ncards > 2:   # multiples: only the number, the count and the top card
            for k in range(a.ncards - 1):
                a.cards[k] = a.cards[0] % 14
        return solo_key(&a)
    else:
        return scout_card_key(s, scout_to_move(s), &(<ScoutAction*>acts)[i])


cdef inline void g_apply(GameState* s, int seat, void* acts, int i, Rng* rng) noexcept nogil:
    if GameState is SoloState:
        solo_apply(s, seat, &(<SoloAction*>acts)[i], rng)
    else:
        scout_apply(s, seat, &(<ScoutAction*>acts)[i], rng)


cdef inline int g_to_move(GameState* s) noexcept nogil:
    if GameState is SoloState:
        return solo_to_move(s)
    else:
        return scout_to_move(s)


cdef inline bint g_over(GameState* s) noexcept nogil:
    if GameState is SoloState:
        return solo_over(s)
    else:
        return scout_over(s)


cdef inline void g_rollout_step(GameState* s, Rng* rng) noexcept nogil:
    if GameState is SoloState:
        solo_rollout_step(s, rng)
    else:
        scout_rollout_step(s, rng)


cdef inline bint g_random_step(GameState* s, void* acts, Rng* rng) noexcept nogil:
    """One uniformly random legal move of the waiting seat (SOLO: never a catch or a late
    call); False when there is none. ``acts`` is scratch space."""
    cdef int seat, n, i, k = 0
    cdef SoloAction* sa
    cdef ScoutAction a
    if GameState is SoloState:
        seat = solo_to_move(s)
        if seat < 0:
            return False
        sa = <SoloAction*>acts
        n = solo_legal(s, seat, sa)
        for i in range(n):
            if sa[i].kind != SOLO_A_CATCH and sa[i].kind != SOLO_A_CALL:
                if k != i:
                    sa[k] = sa[i]
                k += 1
        if k == 0:
            return False
        solo_apply(s, seat, &sa[rng_below(rng, k)], rng)
        return True
    else:
        seat = scout__random_choice(s, rng, &a)
        if seat < 0:
            return False
        scout_apply(s, seat, &a, rng)
        return True


cdef inline void g_values(GameState* s, int seat, void* acts, int n, double* out) noexcept nogil:
    if GameState is SoloState:
        solo_values(s, seat, <SoloAction*>acts, n, out)
    else:
        scout_values(s, seat, <ScoutAction*>acts, n, out)


cdef inline void g_evaluate(GameState* s, double* out) noexcept nogil:
    if GameState is SoloState:
        solo_evaluate(s, out)
    else:
        scout_evaluate(s, out)


cdef inline void g_net_rewards(const ValueNet* net, GameState* s, double* out) noexcept nogil:
    if GameState is SoloState:
        solo_net_rewards(net, s, out)
    else:
        scout_net_rewards(net, s, out)


cdef void g_policy_logits(const PolicyNet* net, GameState* s, int seat, void* acts, const KeyIdx* ki,
                          int n, const double* values, double temp, double* out) noexcept nogil:
    """``out[i]``: the network's logit of the move ``ki[i]`` (idx -1: "not now", valued 0 by
    the heuristic), ``values`` the heuristic's values of the moves (by idx), ``temp`` their
    unit (the game's prior_temp)."""
    cdef float xs[POLICY_STATE]
    cdef float xm[POLICY_MOVE]
    cdef float zs[POLICY_MAX_HIDDEN]
    cdef double top = -1e300, v
    cdef int i
    if GameState is SoloState:
        solo_policy_state(s, seat, xs)
    else:
        scout_policy_state(s, seat, xs)
    policy_hidden_state(net, xs, zs)
    for i in range(n):
        v = values[ki[i].idx] if ki[i].idx >= 0 else 0.0
        if v > top:
            top = v
    for i in range(n):
        v = values[ki[i].idx] if ki[i].idx >= 0 else 0.0
        if GameState is SoloState:
            solo_policy_move(s, seat, &(<SoloAction*>acts)[ki[i].idx] if ki[i].idx >= 0 else NULL,
                             (top - v) / temp, v >= top - 1e-9, xm)
        else:
            scout_policy_move(s, seat, &(<ScoutAction*>acts)[ki[i].idx] if ki[i].idx >= 0 else NULL,
                              (top - v) / temp, v >= top - 1e-9, xm)
        out[i] = policy_logit(net, zs, xm)


cdef void margins(Tree* t, const double* points, double* out) noexcept nogil:
    """Each seat's reward in (-1, 1): tanh(margin / scale). reward_mode 0: the margin is its
    round points minus the others' mean; 1: its match total after the round minus the best
    other total; 2: the mean of both rewards."""
    cdef int s, o
    cdef double best, mine, r0, r1
    cdef double sign = 1.0 if t.higher_better else -1.0
    points_rewards(points, t.players, t.scale, t.higher_better, out)
    if t.reward_mode == 0:
        return
    for s in range(t.players):
        r0 = out[s]
        mine = sign * (t.totals[s] + points[s])
        best = -1e300
        for o in range(t.players):
            if o != s and sign * (t.totals[o] + points[o]) > best:
                best = sign * (t.totals[o] + points[o])
        r1 = tanh((mine - best) / t.scale2)
        out[s] = r1 if t.reward_mode == 1 else 0.5 * (r0 + r1)


cdef inline void sort_keys(KeyIdx* a, int n) noexcept nogil:
    """Shell sort by key: small n, no allocation, no callbacks."""
    cdef int gap = 1, i, j
    cdef KeyIdx x
    while gap < n // 3:
        gap = gap * 3 + 1
    while gap >= 1:
        for i in range(gap, n):
            x = a[i]
            j = i
            while j >= gap and a[j - gap].key > x.key:
                a[j] = a[j - gap]
                j -= gap
            a[j] = x
        gap //= 3


cdef inline void sort_if_needed(KeyIdx* ki, int n) noexcept nogil:
    """choose and choose_puct take the moves sorted by key (SCOUT's come that way)."""
    cdef int i
    for i in range(1, n):
        if ki[i - 1].key >= ki[i].key:
            sort_keys(ki, n)
            return


cdef inline int match_kids(Tree* t, int node, const KeyIdx* ki, int n, int* found) noexcept nogil:
    """found[j] = 1 + the position among the node's children of the child for move ki[j] (0:
    untried); each matched child's avail count rises. Returns the number of moves matched.
    A big block (one where samples of the hidden hands keep bringing new moves) is searched
    through its hash index, so the cost follows the moves, not the children; a small one by
    merging the two key-sorted lists."""
    cdef Node* kids = &t.nodes[t.nodes[node].kids]
    cdef int c = t.nodes[node].nkids, i = 0, j, matched = 0, kshift = t.nodes[node].kshift
    cdef unsigned long long key
    cdef unsigned short* index
    cdef unsigned int mask, h, e
    if kshift >= HASH_SHIFT and c > n:
        index = kid_index(t, node)
        mask = (2u << kshift) - 1
        for j in range(n):
            key = ki[j].key
            h = kid_slot(key, kshift)
            found[j] = 0
            e = index[h]
            while e:
                if kids[e - 1].key == key:
                    found[j] = e
                    kids[e - 1].avail += 1
                    matched += 1
                    break
                h = (h + 1) & mask
                e = index[h]
        return matched
    j = 0
    for i in range(c):
        key = kids[i].key
        while j < n and ki[j].key < key:
            found[j] = 0
            j += 1
        if j == n:
            break
        if ki[j].key == key:
            found[j] = i + 1
            kids[i].avail += 1
            matched += 1
            j += 1
    while j < n:
        found[j] = 0
        j += 1
    return matched


cdef int choose(Tree* t, int node, KeyIdx* ki, int n, int* found, Rng* rng,
                int* child_out) noexcept nogil:
    """Pick the move at ``node`` among the ``n`` available ones (sorted by key): a random
    untried one if any (``*child_out`` = NO_NODE: expand it), else the UCB1-best child
    (availability counts; equal scores go to the newest child). Returns a position in ``ki``.
    Every available child's avail count rises."""
    cdef int best = NO_NODE, j, count = 0, pick = -1, base
    cdef double score, best_score = -1e300, inv
    cdef Node* c
    child_out[0] = NO_NODE
    if t.nodes[node].nkids == 0:
        return <int>rng_below(rng, n)
    count = n - match_kids(t, node, ki, n, found)
    if count > 0:   # a uniformly random untried move: the pick-th of them
        pick = <int>rng_below(rng, count)
        for j in range(n):
            if not found[j]:
                if pick == 0:
                    return j
                pick -= 1
    base = t.nodes[node].kids
    for j in range(n):
        c = &t.nodes[base + found[j] - 1]
        inv = 1.0 / c.visits
        score = c.reward * inv + t.explore * sqrt(log_count(c.avail) * inv)
        if score > best_score or (score == best_score and best != NO_NODE and c.born > t.nodes[best].born):
            best_score = score
            best = base + found[j] - 1
            pick = j
    child_out[0] = best
    return pick


cdef int choose_puct(Tree* t, int node, KeyIdx* ki, int n, int* found, Rng* rng,
                     int* child_out) noexcept nogil:
    """PUCT: the move maximising Q + cpuct * prior * sqrt(N) / (1 + visits), where an untried
    move's Q is the mean of the tried ones minus fpu. ``ki`` is sorted by key. ``*child_out``
    = NO_NODE: expand it."""
    cdef int best = NO_NODE, j, pick = -1, ties = 0, base = t.nodes[node].kids
    cdef double score, best_score = -1e300, sq, sum_r = 0.0, sum_v = 0.0, fpu
    cdef Node* c
    sq = sqrt(<double>t.nodes[node].visits + 1.0)
    child_out[0] = NO_NODE
    if t.nodes[node].nkids == 0:
        memset(found, 0, n * sizeof(int))
    else:
        match_kids(t, node, ki, n, found)
    for j in range(n):
        if not found[j]:
            continue
        c = &t.nodes[base + found[j] - 1]
        sum_r += c.reward
        sum_v += c.visits
        score = c.reward / c.visits + t.cpuct * ki[j].prior * sq / (1.0 + c.visits)
        if score > best_score or (score == best_score and best != NO_NODE and c.born > t.nodes[best].born):
            best_score = score
            best = base + found[j] - 1
            pick = j
    fpu = sum_r / sum_v - t.fpu if sum_v > 0 else 0.0
    for j in range(n):
        if found[j]:
            continue
        score = fpu + t.cpuct * ki[j].prior * sq
        if score > best_score + 1e-12:
            best_score = score
            best = NO_NODE
            pick = j
            ties = 1
        elif best == NO_NODE and score >= best_score - 1e-12:
            ties += 1
            if rng_below(rng, ties) == 0:
                pick = j
    child_out[0] = best
    return pick


cdef int choose_policy(Tree* t, int node, const KeyIdx* ki, int n, const double* values, Rng* rng,
                       int* child_out) noexcept nogil:
    """The other seats' model: the move the heuristic values most (ties at random), as their
    rollout policy plays, or with ``opp_sample`` a move drawn in proportion to its prior (set
    by set_priors); ``*child_out`` = its child, or NO_NODE: expand it."""
    cdef int j, pick = 0, ties = 1, pos
    cdef double u
    cdef const Node* kids
    if t.opp_sample:
        u = rng_unit(rng)
        pick = n - 1
        for j in range(n):
            u -= ki[j].prior
            if u < 0:
                pick = j
                break
    else:
        for j in range(1, n):
            if values[ki[j].idx] > values[ki[pick].idx]:
                pick, ties = j, 1
            elif values[ki[j].idx] == values[ki[pick].idx]:
                ties += 1
                if rng_below(rng, ties) == 0:
                    pick = j
    child_out[0] = NO_NODE
    if t.nodes[node].nkids > 0:
        pos = kid_position(t, node, ki[pick].key)
        kids = &t.nodes[t.nodes[node].kids]
        if pos < t.nodes[node].nkids and kids[pos].key == ki[pick].key:
            child_out[0] = t.nodes[node].kids + pos
    return pick


cdef inline bint is_best(const KeyIdx* ki, int n, const double* values, int j) noexcept nogil:
    """Whether move j is one the heuristic values most (to within rounding: 1e-9)."""
    cdef int i
    for i in range(n):
        if values[ki[i].idx] > values[ki[j].idx] + 1e-9:
            return False
    return True


cdef inline void set_priors(KeyIdx* ki, int n, const double* values, double temp) noexcept nogil:
    """ki[i].prior = softmax(values[ki[i].idx] / temp); the root's WAIT counts as 0."""
    cdef int i
    cdef double top = -1e300, total = 0.0, v, p
    for i in range(n):
        v = values[ki[i].idx] if ki[i].idx >= 0 else 0.0
        if v > top:
            top = v
    for i in range(n):
        v = (values[ki[i].idx] if ki[i].idx >= 0 else 0.0) - top
        p = exp(v / temp) if v > -30.0 * temp else 0.0  # below e^-30: nothing
        ki[i].prior = <float>p
        total += p
    for i in range(n):
        ki[i].prior = <float>(ki[i].prior / total)


cdef int merge_edges(Tree* t, GameState* det, void* acts, KeyIdx* ki, int n,
                      const double* values) noexcept nogil:
    """Below the root, moves that share an edge key (g_edge_key) are one edge: of each such
    group only the move the heuristic values most stays (the first without values).
    Returns the new count; ki ends up sorted by key."""
    cdef int i, m = 0
    for i in range(n):
        ki[i].key = g_edge_key(det, acts, ki[i].idx)
    sort_keys(ki, n)
    for i in range(n):
        if m > 0 and ki[m - 1].key == ki[i].key:
            if t.cpuct > 0 and values[ki[i].idx] > values[ki[m - 1].idx]:
                ki[m - 1] = ki[i]
            continue
        ki[m] = ki[i]
        m += 1
    return m


cdef void root_setup(Tree* t, GameState* det, double* values) noexcept nogil:
    """Generate, key and value the root's moves once (from any determinization: they depend
    only on what the searcher sees); no root move has a child yet."""
    cdef int n, i
    n = g_candidates(det, t.searcher, t.root_acts)
    for i in range(n):
        t.root_ki[i].key = g_key(det, t.root_acts, i)
        t.root_ki[i].idx = i
        t.root_ki[i].prior = 0.0
    if t.cpuct > 0 and n > 0:
        g_values(det, t.searcher, t.root_acts, n, values)
    if t.root_wait:
        t.root_ki[n].key = WAIT_KEY
        t.root_ki[n].idx = -1
        n += 1
    if t.cpuct > 0 and n > 0:
        if t.policy != NULL:
            g_policy_logits(t.policy, det, t.searcher, t.root_acts, t.root_ki, n, values, t.value_unit,
                            t.logits)
            set_priors_logits(t.root_ki, n, t.logits, t.policy_temp)
        else:
            set_priors(t.root_ki, n, values, t.prior_temp)
    for i in range(n):
        t.root_child[i] = NO_NODE
    t.root_n = n
    t.root_tried = 0
    t.root_base = t.size   # the root's children, one slot per move (search() leaves room)
    t.size += n


cdef int root_below_floor(Tree* t) noexcept nogil:
    """The first root move with the fewest visits, if that is below ``root_floor``; else -1
    (so that every root move is valued, as a review asks, not only those PUCT favours)."""
    cdef int j, c, pick = -1
    cdef unsigned int visits, fewest = <unsigned int>t.root_floor
    for j in range(t.root_n):
        c = t.root_child[j]
        visits = 0 if c == NO_NODE else t.nodes[c].visits
        if visits < fewest:
            fewest = visits
            pick = j
    return pick


cdef int choose_root(Tree* t, Rng* rng, int* child_out) noexcept nogil:
    """choose_puct (or choose, when cpuct is 0) at the root, whose moves are always the same:
    each move's child is found directly, without an index. Returns a position in root_ki."""
    cdef int n = t.root_n, j, c, best = NO_NODE, pick = -1, ties = 0, count = 0
    cdef double score, best_score = -1e300, sq, sum_r = 0.0, sum_v = 0.0, fpu, inv
    cdef Node* node
    sq = sqrt(<double>t.nodes[0].visits + 1.0)
    for j in range(n):
        c = t.root_child[j]
        if c == NO_NODE:
            continue
        node = &t.nodes[c]
        node.avail += 1
        if t.cpuct > 0:
            sum_r += node.reward
            sum_v += node.visits
            score = node.reward / node.visits + t.cpuct * t.root_ki[j].prior * sq / (1.0 + node.visits)
        else:
            inv = 1.0 / node.visits
            score = node.reward * inv + t.explore * sqrt(log_count(node.avail) * inv)
        if score > best_score:
            best_score = score
            best = c
            pick = j
    if t.root_floor > 0:
        j = root_below_floor(t)
        if j >= 0:
            child_out[0] = t.root_child[j]
            return j
    if t.cpuct > 0:
        fpu = sum_r / sum_v - t.fpu if sum_v > 0 else 0.0
        for j in range(n):
            if t.root_child[j] != NO_NODE:
                continue
            score = fpu + t.cpuct * t.root_ki[j].prior * sq
            if score > best_score + 1e-12:
                best_score = score
                best = NO_NODE
                pick = j
                ties = 1
            elif best == NO_NODE and score >= best_score - 1e-12:
                ties += 1
                if rng_below(rng, ties) == 0:
                    pick = j
        child_out[0] = best
        return pick
    count = n - t.root_tried
    if count == 0:
        child_out[0] = best
        return pick
    child_out[0] = NO_NODE
    pick = <int>rng_below(rng, count)   # a uniformly random untried move: the pick-th of them
    for j in range(n):
        if t.root_child[j] == NO_NODE:
            if pick == 0:
                return j
            pick -= 1
    return -1


cdef void iterate(Tree* t, GameState* det, void* acts, KeyIdx* ki, int* found,
                  double* values, Rng* rng, int forced) noexcept nogil:
    """One iteration from the root in ``det``: the root move ``forced`` (a position in root_ki),
    or, if it is -1, the one choose_root picks."""
    cdef int node = 0, seat, n, i, j, child, steps
    cdef int path[MAX_DEPTH]
    cdef int depth = 1
    cdef double points[MAX_SEATS]
    cdef double reward[MAX_SEATS]
    cdef int decided[MAX_SEATS]   # each seat's decisions on the path so far (policy_depth)
    memset(decided, 0, sizeof(decided))
    decided[t.searcher] = 1       # the root
    path[0] = 0
    if not g_over(det) and t.root_n > 0:
        if forced >= 0:
            j = forced
            child = t.root_child[j]
        else:
            j = choose_root(t, rng, &child)
        if child == NO_NODE:
            child = t.root_base + j
            node_init(t, child, t.root_ki[j].key, t.searcher)
            t.root_child[j] = child
            t.root_tried += 1
            t.nodes[child].avail = 1
        if child != NO_NODE:
            if t.root_ki[j].idx >= 0:
                g_apply(det, t.searcher, t.root_acts, t.root_ki[j].idx, rng)
            path[depth] = child
            depth += 1
            if t.nodes[child].visits > 0:
                node = child
    while node != 0 and not g_over(det) and depth < MAX_DEPTH and (t.max_depth == 0 or depth <= t.max_depth):
        seat = g_to_move(det)
        n = g_candidates(det, seat, acts)
        if n == 0:
            break
        decided[seat] += 1
        if GameState is ScoutState and t.cpuct == 0 and t.nodes[node].nkids == 0:
            # UCB1 at a node without children: choose's random move, only its key needed
            j = <int>rng_below(rng, n)
            ki[j].key = g_key(det, acts, j)
            ki[j].idx = j
            child = NO_NODE
        else:
            for i in range(n):
                ki[i].key = g_key(det, acts, i)
                ki[i].idx = i
            if t.cpuct > 0:
                g_values(det, seat, acts, n, values)
            if GameState is SoloState or (t.card_keys and seat != t.searcher):
                n = merge_edges(t, det, acts, ki, n, values)
            else:   # (SCOUT's positional keys come sorted)
                sort_if_needed(ki, n)
            if t.cpuct > 0 and t.opp_policy and seat != t.searcher:
                if t.opp_sample:
                    set_priors(ki, n, values, t.opp_temp)
                j = choose_policy(t, node, ki, n, values, rng, &child)
            elif t.cpuct > 0:
                if t.policy != NULL and (seat == t.searcher or t.policy_all) and (
                        t.policy_depth == 0 or decided[seat] <= t.policy_depth):
                    g_policy_logits(t.policy, det, seat, acts, ki, n, values, t.value_unit, t.logits)
                    set_priors_logits(ki, n, t.logits, t.policy_temp)
                else:
                    set_priors(ki, n, values, t.prior_temp)
                j = choose_puct(t, node, ki, n, found, rng, &child)
            else:
                j = choose(t, node, ki, n, found, rng, &child)
        if t.cpuct > 0 and seat != t.searcher and not is_best(ki, n, values, j):
            t.off_policy += 1
        if child == NO_NODE:
            child = add_child(t, node, ki[j].key, seat)
            if child == NO_NODE:  # the pool is full: stop growing, roll out from here
                break
            t.nodes[child].avail = 1
            if ki[j].idx >= 0:
                g_apply(det, seat, acts, ki[j].idx, rng)
            path[depth] = child
            depth += 1
            break
        if ki[j].idx >= 0:
            g_apply(det, seat, acts, ki[j].idx, rng)
        node = child
        path[depth] = node
        depth += 1
    steps = 0
    if t.random_rollout:
        while not g_over(det) and steps < t.rollout_cap and g_random_step(det, acts, rng):
            steps += 1
    else:
        while not g_over(det) and steps < t.rollout_cap:
            g_rollout_step(det, rng)
            steps += 1
    t.depth_sum += depth - 1
    if t.net != NULL and not g_over(det):
        g_net_rewards(t.net, det, reward)
    else:
        g_evaluate(det, points)
        margins(t, points, reward)
    for i in range(depth):
        node = path[i]
        t.nodes[node].visits += 1
        if t.nodes[node].seat >= 0:
            t.nodes[node].reward += reward[t.nodes[node].seat]


cdef void tree_reset(Tree* t) noexcept nogil:
    """An empty tree: the root alone, no freed blocks."""
    cdef int i
    for i in range(KID_SHIFTS):
        t.free_blocks[i] = NO_NODE
    t.size = 1
    node_init(t, 0, 0, -1)


cdef inline void determinize(GameState* det, void* info, Rng* rng) noexcept nogil:
    if GameState is SoloState:
        solo_determinize(det, <SoloInfo*>info, rng)
    else:
        scout_determinize(det, <ScoutInfo*>info, rng)


cdef double ess_at(const double* logw, int n, double top, double beta) noexcept nogil:
    """The effective sample size of the weights exp(beta * (logw - top))."""
    cdef double s1 = 0.0, s2 = 0.0, w
    cdef int k
    for k in range(n):
        if logw[k] > -1e299:
            w = exp(beta * (logw[k] - top))
            s1 += w
            s2 += w * w
    return s1 * s1 / s2 if s2 > 0 else 0.0


cdef int weigh_particles(GameState* pool, double* cum, int* particles, void* info,
                         const void* belief, Rng* rng, void* acts, double* values,
                         double deadline, double min_ess) noexcept nogil:
    """Draw ``particles`` determinizations into ``pool`` and weigh each by the clues
    (_infer.pxi); ``cum`` gets the running sums of the weights (each over the largest, so the
    largest is 1). Past the ``deadline`` (0: none) no more are drawn once there are 8 (the
    clock is read before each; ``particles`` then says how many). With ``min_ess`` > 0 the
    weights are tempered, w ** beta with the largest beta <= 1 that keeps the effective sample
    size at least that share of the particles (so that the search never sees only a handful of
    worlds).
    Returns how many particles carry weight (0: the clues fit no sample)."""
    cdef int k, alive = 0, n = particles[0], step
    cdef double top = -1e300, total = 0.0, beta = 1.0, lo = 0.0, hi = 1.0
    for k in range(n):
        if deadline > 0 and k >= 8 and now_seconds() >= deadline:
            particles[0] = k
            break
        determinize(&pool[k], info, rng)
        if GameState is ScoutState:
            cum[k] = scout_clues_logweight(&pool[k], <const ScoutBelief*>belief, rng, <ScoutAction*>acts, values)
        else:
            cum[k] = solo_clues_logweight(&pool[k], <const SoloBelief*>belief, <SoloAction*>acts)
        if cum[k] > top:
            top = cum[k]
    n = particles[0]
    if min_ess > 0 and ess_at(cum, n, top, 1.0) < min_ess * n:
        for step in range(30):
            beta = 0.5 * (lo + hi)
            if ess_at(cum, n, top, beta) < min_ess * n:
                hi = beta
            else:
                lo = beta
        beta = lo
    for k in range(n):
        if cum[k] > -1e299 and beta * (cum[k] - top) > -700.0:
            total += exp(beta * (cum[k] - top))
            alive += 1
        cum[k] = total
    return alive


cdef inline int pick_particle(const double* cum, int particles, Rng* rng) noexcept nogil:
    """A particle drawn in proportion to its weight (binary search of the running sums)."""
    cdef double u = rng_unit(rng) * cum[particles - 1]
    cdef int lo = 0, hi = particles - 1, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if cum[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef int run_search(Tree* t, GameState* det, void* info, int max_iterations, double deadline,
                    unsigned long long seed, void* acts, KeyIdx* ki, int* found,
                    double* values, const void* belief, GameState* pool, double* cum,
                    int particles, double min_ess, int* alive) noexcept nogil:
    """Iterate until ``max_iterations`` are done or the monotonic clock passes ``deadline``
    (0: none; at least one iteration is done); ``det`` is scratch space for the
    determinizations. With a ``belief`` (and a ``pool`` of ``particles`` states, ``cum`` as
    many doubles), each iteration's determinization is drawn from weighted particles, else
    afresh and uniformly; ``alive`` gets the particles that carry weight."""
    cdef Rng rng
    cdef int done = 0
    cdef Deadline clock
    rng_seed(&rng, seed)
    tree_reset(t)
    alive[0] = 0
    if belief != NULL and pool != NULL:
        alive[0] = weigh_particles(pool, cum, &particles, info, belief, &rng, acts, values,
                                   deadline, min_ess)
        if alive[0] == 0:   # no sample fits the clues (a model too sure of itself): uniform
            pool = NULL
    if belief == NULL:
        pool = NULL
    if t.halving:
        return run_halving(t, det, info, max_iterations, deadline, &rng, acts, ki, found, values,
                           pool, cum, particles)
    deadline_start(&clock, deadline)
    while done < max_iterations:
        draw(det, info, pool, cum, particles, &rng)
        if done == 0:
            root_setup(t, det, values)
        iterate(t, det, acts, ki, found, values, &rng, -1)
        done += 1
        if deadline_passed(&clock):
            break
    return done


cdef inline void draw(GameState* det, void* info, const GameState* pool, const double* cum,
                      int particles, Rng* rng) noexcept nogil:
    """A determinization: a weighted particle of ``pool``, or (no pool) a uniform sample."""
    if pool != NULL:
        det[0] = pool[pick_particle(cum, particles, rng)]
    else:
        determinize(det, info, rng)


cdef inline double root_mean(const Tree* t, int j) noexcept nogil:
    cdef int c = t.root_child[j]
    if c == NO_NODE or t.nodes[c].visits == 0:
        return -1e300
    return t.nodes[c].reward / t.nodes[c].visits


cdef int run_halving(Tree* t, GameState* det, void* info, int max_iterations,
                     double deadline, Rng* rng, void* acts, KeyIdx* ki, int* found, double* values,
                     const GameState* pool, const double* cum, int particles) noexcept nogil:
    """Sequential halving at the root with common random numbers: ceil(log2 n) rounds, each
    with an equal share of the budget; in a round every surviving root move is tried in the same
    determinizations, each with the same random stream below it (so two moves are compared in
    the same worlds, and the comparison's noise is that of their difference), and the better
    half by mean reward survives. ``t.chosen`` gets the last survivor. The tree below each root
    move grows as in ``iterate``. With a ``deadline`` (0: none) each round gets an equal share
    of the time left; past the deadline itself the rounds stop at once (even within a
    determinization) and the best survivor so far by mean reward is the answer. Returns the
    iterations (one per move and determinization)."""
    cdef int done = 0, n, rounds, r, alive, i, j, a, b, share
    cdef int* survivors
    cdef double round_deadline
    cdef bint late = False
    cdef Deadline clock, round_clock
    cdef GameState base
    cdef Rng below, stream
    draw(&base, info, pool, cum, particles, rng)
    root_setup(t, &base, values)
    n = t.root_n
    t.chosen = -1
    survivors = <int*>malloc((n + 1) * sizeof(int))
    if n == 0 or survivors == NULL:
        free(survivors)
        return 0
    for j in range(n):
        survivors[j] = j
    alive = n
    rounds = 1   # ceil(log2 n), at least one
    while (1 << rounds) < n:
        rounds += 1
    deadline_start(&clock, deadline)
    for r in range(rounds):
        share = (max_iterations - done) // (rounds - r)
        if deadline > 0:
            round_deadline = now_seconds()
            round_deadline += (deadline - round_deadline) / (rounds - r)
        else:
            round_deadline = 0.0
        deadline_start(&round_clock, round_deadline)
        i = 0
        while not late:
            if i > 0:
                if (i + 1) * alive > share:
                    break
            if not (done == 0 and i == 0):
                draw(&base, info, pool, cum, particles, rng)
            below.state = rng_next(rng)
            for a in range(alive):
                det[0] = base
                stream = below
                iterate(t, det, acts, ki, found, values, &stream, survivors[a])
                done += 1
                if deadline_passed(&clock):
                    late = True
                    break
            i += 1
            if deadline_passed(&round_clock):
                break
        # keep the better half (insertion sort by mean reward, best first; a stable order)
        for a in range(1, alive):
            j = survivors[a]
            b = a
            while b > 0 and root_mean(t, survivors[b - 1]) < root_mean(t, j):
                survivors[b] = survivors[b - 1]
                b -= 1
            survivors[b] = j
        alive = (alive + 1) // 2
        if alive <= 1 or late:
            break
    t.chosen = survivors[0]
    free(survivors)
    return done


# Node pools kept between searches: a search takes a spare pool big enough (else it allocates
# one) and keeps its own when it ends instead of freeing it, so that nothing after a timed
# search's deadline takes time that grows with its tree (freeing a pool of many MB does, and
# a reused pool's pages are already mapped). The spares beyond SPARE_POOLS or SPARE_BYTES,
# oldest first, are freed when a search takes its pool, before its deadline. Only touched
# with the GIL held.
cdef list _spare_pools = []   # (address, nodes) of each spare pool
SPARE_POOLS = 8
SPARE_BYTES = 512 << 20


cdef Node* take_pool(int capacity, int* got):
    """A node pool of at least ``capacity`` nodes (``got``: how many it holds), or NULL."""
    cdef size_t address = 0
    cdef int k, best = -1
    for k in range(len(_spare_pools)):
        if _spare_pools[k][1] >= capacity and (best < 0 or _spare_pools[k][1] < _spare_pools[best][1]):
            best = k
    if best >= 0:
        address, got[0] = _spare_pools.pop(best)
    while _spare_pools and (len(_spare_pools) >= SPARE_POOLS
                            or sum(n for _, n in _spare_pools) * sizeof(Node) > SPARE_BYTES):
        free(<void*><size_t>_spare_pools.pop(0)[0])
    if address:
        return <Node*>address
    got[0] = capacity
    return <Node*>malloc(capacity * sizeof(Node))


cdef void keep_pool(Node* nodes, int size):
    """Keep a search's pool of ``size`` nodes for a later search (NULL: nothing to keep)."""
    if nodes != NULL:
        _spare_pools.append((<size_t>nodes, size))


def _spare_pool_sizes():
    """Test hook: the nodes of each spare pool kept, oldest first."""
    return [n for _, n in _spare_pools]


NODE_BYTES = sizeof(Node)
if NODE_BYTES != 32:   # kid_index fits two 16-bit entries per block slot in a big block's last eighth
    raise ImportError(f"the search tree's Node is {NODE_BYTES} bytes, not 32")


def _kids_check(keys, queries):
    """Test hook: add children with ``keys`` (in that order) under one node, then look up
    ``queries`` (sorted, distinct) the way a tree step does. Returns the children's keys in
    block order and, for each query, the key of the child found (None: no child)."""
    cdef Tree t
    cdef int i, n = len(queries), capacity = 8 * len(keys) + 64
    cdef KeyIdx* ki = <KeyIdx*>malloc((n + 1) * sizeof(KeyIdx))
    cdef int* found = <int*>malloc((n + 1) * sizeof(int))
    memset(&t, 0, sizeof(Tree))
    t.capacity = capacity
    t.nodes = <Node*>malloc(capacity * sizeof(Node))
    if ki == NULL or found == NULL or t.nodes == NULL:
        free(ki); free(found); free(t.nodes)
        raise MemoryError("no memory for the check")
    try:
        tree_reset(&t)
        for key in keys:
            if add_child(&t, 0, key, 0) == NO_NODE:
                raise ValueError(f"the node is full at {t.nodes[0].nkids} children")
        for i, key in enumerate(queries):
            ki[i].key = key
            ki[i].idx = i
        match_kids(&t, 0, ki, n, found)
        base = t.nodes[0].kids
        kids = [t.nodes[base + i].key for i in range(t.nodes[0].nkids)]
        return kids, [kids[found[i] - 1] if found[i] else None for i in range(n)]
    finally:
        free(ki)
        free(found)
        free(t.nodes)


# The search's settings per game (measured in docs/ai.md, "The search"): the reward's tanh
# scale, the PUCT weight of the prior and the prior's softmax temperature (in the heuristic's
# value units: SOLO scores a card at 100, SCOUT's values are about cards).
SEARCH_DEFAULTS = {
    "solo": {"scale": 60.0, "cpuct": 2.0, "prior_temp": 30.0},
    "scout": {"scale": 6.0, "cpuct": 2.0, "prior_temp": 1.0},
}


def search(str game, dict observation, dict config, int seat, int iterations=0, double seconds=0.0,
           unsigned long long seed=0, bint wait=False, double scale=0.0, double cpuct=-1.0,
           double prior_temp=0.0, double fpu=0.1, double explore=0.7, int rollout_cap=400,
           int reward_mode=0, double scale2=0.0, str rollout="heuristic", int max_depth=0,
           str keys="positions", list clues=None, int particles=256, double infer_temp=1.0,
           int infer_depth=0, double infer_ess=0.0, int infer_positions=3, int root_floor=0,
           ValueModel value=None, str opponents="search", double opp_temp=0.0, str root="puct",
           double deadline=0.0, PolicyModel policy=None, double policy_temp=1.0, bint policy_all=False,
           int policy_depth=0):
    """Search from ``seat``'s observation; return the chosen action text (None: wait) and stats.

    Budget: ``iterations``, ``seconds`` (from the call) and/or ``deadline`` (a time on
    ``clock()``, the monotonic clock: several searches, on several threads or one after another,
    can share one decision's end) — whichever ends first; at least one > 0. The clock is read
    about every 80 µs, so a timed search returns within a few hundred µs of its end on an idle
    machine (at least one iteration is done, however late it is called); the stats' ``stopped``
    is the ``clock()`` time the search loop stopped (before the GIL was taken back).
    ``wait``: the seat is not the one the game waits for; the root then also offers "not now".
    The rest tune the search; 0 (``cpuct`` -1) takes the game's SEARCH_DEFAULTS:
    ``scale``: the score margin that counts as a clear win (rewards are tanh(margin / scale));
    ``cpuct``: the weight of the heuristic prior in PUCT selection (0: plain UCB1 with
    ``explore`` and random expansion); ``prior_temp``: the prior is softmax(heuristic value /
    prior_temp); ``fpu``: an untried move is valued at the mean of the tried ones minus fpu;
    ``rollout_cap``: rollout moves before G_evaluate estimates the round's points;
    ``reward_mode``: 0 the round's margin over the others' mean, 1 the match total's margin
    over the best other (tanh scale ``scale2``), 2 the mean of both; ``rollout``: "heuristic"
    (the heuristic bots' policy) or "random" (uniformly random legal moves, for comparing like
    with like against other searches); ``max_depth``: how many tree levels below the root an
    iteration may add to (0: no limit; 1: only the root's moves get statistics); ``keys``
    (SCOUT): "positions" names every move below the root by hand positions, "cards" names the
    other seats' moves by the cards they show the table (scout_card_key).
    ``clues``: SCOUT, the other seats' moves this round (ai/scout_clues.py); with some, the
    determinizations are ``particles`` uniform samples weighted by how likely the heuristic,
    playing softmax(value / ``infer_temp``), was to make those moves in each (the newest
    ``infer_depth`` clues of each seat, 0: all; _infer.pxi); SOLO, the draws of seats that
    had no card to play (ai/solo_clues.py, _infer_solo.pxi); drawn in proportion to it
    (tempered so that the effective sample size is at least ``infer_ess`` of the particles);
    a shown block's possible positions are weighed, at most ``infer_positions`` of them (drawn).
    ``root_floor``: every root move is visited at least this many times before the selection
    rule chooses (the budget should allow it), so that each gets a value (ai/review.py).
    ``opponents``: "search" (the other seats' moves in the tree are searched like the searcher's),
    "policy" (they play the heuristic's move, as in the rollouts: a best response to it) or
    "sample" (they play a move drawn from softmax(value / ``opp_temp``), 0: ``prior_temp``).
    ``value``: a learned leaf value (ai/value_net.py) for this game: a rollout stops after
    ``rollout_cap`` moves and, unless the round is over, the network values the position.
    ``root``: "puct" (the root's moves chosen like any node's) or "halving" (sequential halving
    over the root's moves, each round's survivors tried in the same determinizations:
    run_halving; the answer is the last survivor).
    ``policy``: a learned prior (ai/policy_net.py) for this game: PUCT's prior over the
    searcher's moves (with ``policy_all``, every searched seat's) is softmax(logit /
    ``policy_temp``) instead of softmax(heuristic value / prior_temp); with ``policy_depth``
    K > 0 only at a seat's first K decisions on an iteration's path (the root is the
    searcher's first), the heuristic's prior below them, where the network would cost most.
    """
    cdef Tree t
    cdef SoloInfoSet solo_info
    cdef ScoutInfoSet scout_info
    cdef SoloState solo_det
    cdef ScoutState scout_det
    cdef void* acts = NULL
    cdef KeyIdx* ki = NULL
    cdef int* found = NULL
    cdef double* values = NULL
    cdef int done = 0, max_actions, child, best = NO_NODE, i
    cdef ScoutClueSet belief = None
    cdef SoloClueSet solo_belief = None
    cdef ScoutState* pool = NULL
    cdef SoloState* solo_pool = NULL
    cdef double* cum = NULL
    cdef int alive = 0, pool_size = 0
    cdef double started = now_seconds(), stop = 0.0, stopped = 0.0
    if iterations <= 0 and seconds <= 0 and deadline <= 0:
        raise ValueError("give the search a budget: iterations, seconds or a deadline > 0")
    if seconds > 0:
        stop = started + seconds
    if deadline > 0 and (stop == 0 or deadline < stop):
        stop = deadline
    if game not in ("solo", "scout"):
        raise ValueError(f"unknown game {game!r}")
    if rollout not in ("heuristic", "random"):
        raise ValueError(f"unknown rollout {rollout!r}: choose heuristic or random")
    if keys not in ("positions", "cards"):
        raise ValueError(f"unknown keys {keys!r}: choose positions or cards")
    if policy is not None and policy.game != game:
        raise ValueError(f"a {policy.game} policy cannot play {game}")
    if policy_temp <= 0:
        raise ValueError("policy_temp must be positive")
    if policy_depth < 0:
        raise ValueError("policy_depth must be at least 0")
    if value is not None and value.game != game:
        raise ValueError(f"a {value.game} value network cannot value {game}")
    if opponents not in ("search", "policy", "sample"):
        raise ValueError(f"unknown opponents {opponents!r}: choose search, policy or sample")
    if root not in ("puct", "halving"):
        raise ValueError(f"unknown root {root!r}: choose puct or halving")
    if rollout_cap < 0:
        raise ValueError("rollout_cap must be at least 0")
    if clues:
        if particles < 1:
            raise ValueError("particles must be at least 1")
        if game == "scout":
            belief = ScoutClueSet(clues, infer_temp, infer_depth, infer_positions)
            pool = <ScoutState*>malloc(particles * sizeof(ScoutState))
        else:
            solo_belief = SoloClueSet(clues)
            solo_pool = <SoloState*>malloc(particles * sizeof(SoloState))
        cum = <double*>malloc(particles * sizeof(double))
        if (pool == NULL and solo_pool == NULL) or cum == NULL:
            free(pool); free(solo_pool); free(cum)
            raise MemoryError("not enough memory for the particles")
    if iterations <= 0:
        iterations = 1 << 30
    # Nodes the search may create (one an iteration at most); the pool holds three times as
    # many (child blocks are allocated by doubling) plus one slot per root move.
    capacity = min(iterations, int(max(stop - started, 0.0) * 400_000) if stop > 0 else iterations,
                   4_000_000) + 2
    memset(&t, 0, sizeof(Tree))
    t.searcher = seat
    t.players = len(observation["hand_sizes"])
    t.explore = explore
    t.rollout_cap = rollout_cap
    t.root_wait = wait
    t.random_rollout = rollout == "random"
    t.max_depth = max(max_depth, 0)
    t.card_keys = keys == "cards" and game == "scout"
    t.root_floor = max(root_floor, 0)
    t.net = NULL if value is None else &value.net
    t.opp_policy = opponents in ("policy", "sample")
    t.opp_sample = opponents == "sample"
    t.halving = root == "halving"
    t.chosen = -1
    defaults = SEARCH_DEFAULTS[game]
    t.cpuct = cpuct if cpuct >= 0 else defaults["cpuct"]
    t.prior_temp = prior_temp or defaults["prior_temp"]
    t.opp_temp = opp_temp if opp_temp > 0 else t.prior_temp
    t.fpu = fpu
    t.policy = NULL if policy is None else &policy.net
    t.policy_all = policy_all
    t.policy_temp = policy_temp
    t.policy_depth = policy_depth
    t.value_unit = defaults["prior_temp"]
    t.reward_mode = reward_mode
    totals = observation.get("totals") or [0] * t.players
    for i in range(t.players):
        t.totals[i] = totals[i]
    if game == "solo":
        solo_info = SoloInfoSet(observation, config)
        max_actions = SOLO_MAX_ACTIONS
        t.scale = scale or defaults["scale"]
        t.scale2 = scale2 or t.scale
        t.higher_better = config.get("scoring", "pool") == "pool"
        acts = malloc(max_actions * sizeof(SoloAction))
        t.root_acts = malloc(max_actions * sizeof(SoloAction))
    else:
        scout_info = ScoutInfoSet(observation, config)
        max_actions = SCOUT_MAX_ACTIONS
        t.scale = scale or defaults["scale"]
        t.scale2 = scale2 or t.scale
        t.higher_better = True
        acts = malloc(max_actions * sizeof(ScoutAction))
        t.root_acts = malloc(max_actions * sizeof(ScoutAction))
    t.root_ki = <KeyIdx*>malloc((max_actions + 1) * sizeof(KeyIdx))
    t.root_child = <int*>malloc((max_actions + 1) * sizeof(int))
    ki = <KeyIdx*>malloc((max_actions + 1) * sizeof(KeyIdx))
    found = <int*>malloc((max_actions + 1) * sizeof(int))
    values = <double*>malloc((max_actions + 1) * sizeof(double))
    t.logits = <double*>malloc((max_actions + 1) * sizeof(double))
    t.capacity = 3 * capacity + max_actions + 1
    t.nodes = take_pool(t.capacity, &pool_size)
    if (acts == NULL or ki == NULL or found == NULL or values == NULL or t.nodes == NULL
            or t.root_acts == NULL or t.root_ki == NULL or t.root_child == NULL or t.logits == NULL):
        free(acts); free(ki); free(found); free(values); free(t.nodes); free(t.logits)
        free(t.root_acts); free(t.root_ki); free(t.root_child); free(pool); free(solo_pool); free(cum)
        raise MemoryError("not enough memory for the search tree")
    try:
        # the root's move texts before the search: after a timed one's deadline, little is left
        texts = _root_texts(game, solo_info if game == "solo" else scout_info, seat, seed)
        if game == "solo":
            with nogil:
                done = run_search(&t, &solo_det, &solo_info.info, iterations, stop, seed, acts, ki, found,
                                  values, NULL if solo_belief is None else &solo_belief.b, solo_pool, cum,
                                  particles, infer_ess, &alive)
                stopped = now_seconds()
        else:
            with nogil:
                done = run_search(&t, &scout_det, &scout_info.info, iterations, stop, seed, acts, ki,
                                  found, values, NULL if belief is None else &belief.b, pool, cum,
                                  particles, infer_ess, &alive)
                stopped = now_seconds()
        elapsed = now_seconds() - started
        # the root's children newest first (the order ties are broken in), then the most visited
        made = sorted((t.nodes[t.root_child[i]].born, t.root_child[i]) for i in range(t.root_n)
                      if t.root_child[i] != NO_NODE)[::-1]
        children = []
        for _, child in made:
            children.append((t.nodes[child].key, t.nodes[child].visits,
                             t.nodes[child].reward / max(t.nodes[child].visits, 1)))
            if best == NO_NODE or t.nodes[child].visits > t.nodes[best].visits:
                best = child
        if t.chosen >= 0:
            best = t.root_child[t.chosen]
        action = None if best == NO_NODE else texts.get(t.nodes[best].key)
        ranked = sorted(((texts.get(k), v, r) for k, v, r in children), key=lambda c: (-c[1], c[0] != action))
        if best == NO_NODE and not wait:
            raise RuntimeError("the search found no move")
        return action, {"iterations": done, "nodes": t.born, "seconds": elapsed, "stopped": stopped,
                        "children": ranked,
                        "mean_depth": <double>t.depth_sum / max(done, 1), "off_policy": t.off_policy,
                        "clues": len(belief) if belief is not None else len(solo_belief) if solo_belief is not None
                        else 0, "particles_alive": alive}
    finally:
        free(pool)
        free(solo_pool)
        free(cum)
        free(acts)
        free(ki)
        free(found)
        free(values)
        free(t.logits)
        keep_pool(t.nodes, pool_size)
        free(t.root_acts)
        free(t.root_ki)
        free(t.root_child)


cdef dict _root_texts(str game, object info, int seat, unsigned long long seed):
    """Action key -> text for the searcher's root moves (they depend only on what it sees)."""
    cdef SoloMirror solo
    cdef ScoutMirror scout
    cdef SoloAction* sa
    cdef ScoutAction* ca
    cdef int n, i
    texts = {WAIT_KEY: None}
    if game == "solo":
        solo = info.sample(seed)
        sa = <SoloAction*>malloc(SOLO_MAX_ACTIONS * sizeof(SoloAction))
        try:
            n = solo_candidates(&solo.s, seat, sa)
            for i in range(n):
                texts[solo_key(&sa[i])] = solo_action_text(&sa[i])
        finally:
            free(sa)
    else:
        scout = info.sample(seed)
        ca = <ScoutAction*>malloc(SCOUT_MAX_ACTIONS * sizeof(ScoutAction))
        try:
            n = scout_candidates(&scout.s, seat, ca)
            for i in range(n):
                texts[scout_key(&ca[i])] = scout_action_text(&ca[i])
        finally:
            free(ca)
    return texts
