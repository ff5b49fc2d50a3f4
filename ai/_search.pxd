# The C contract of ai/_search.pyx: the structs of the two game mirrors and of the search
# tree, and the cdef API the search calls on each mirror. The implementations live in the
# .pxi files that _search.pyx includes (_rng, _solo, _scout, _ismcts).
#
# Each game G (solo, scout) provides, all GIL-free and allocation-free:
#   G_legal(s, seat, out)     every legal action of seat, exactly the engine's legal_actions
#   G_candidates(s, seat, out) the search's moves for seat (legal minus pointless meta-moves)
#   G_to_move(s), G_over(s)   the seat the round waits for (-1 when over); the round's end
#   G_apply(s, seat, a, rng)  apply a legal action (rng only for SOLO reshuffles)
#   G_points(s, out)          a finished round's scores, as the engine's round_scores()
#   G_evaluate(s, out)        a cheap estimate of them at any state (= points when over)
#   G_key(a)                  an injective 64-bit label of an action (tree edges)
#   G_rollout_step(s, rng)    one move of the rollout policy: the heuristic bots, in C
#   G_values(s, seat, acts, n, out) the heuristic bot's value of each candidate (the prior)
#   G_determinize(out, info, rng) a full state consistent with one seat's information set
from libc.stdint cimport uint64_t, uint8_t, int8_t, int32_t


ctypedef struct Rng:
    uint64_t state


# --- SOLO -------------------------------------------------------------------------
cdef enum:
    SOLO_NFACES = 63
    SOLO_MAX_SEATS = 10
    SOLO_MAX_CARDS = 120
    SOLO_MAX_MULTI = 8
    # The largest legal-action list a real deck allows is about 74,700: one hand of 110+
    # cards at a 10-player table after a Pass hands (any card fits): 4 Gift faces x 1,942
    # gift pairs x 9 targets, plus 4,716 multiples and ~110 other moves. A caller's buffer
    # of SOLO_MAX_ACTIONS SoloActions is 1.2 MB: put it on the heap, not on a thread stack.
    SOLO_MAX_ACTIONS = 76000
    # Open SOLO windows (docs/rules.md 1.8.17): the acting seat's own, and the one a Gift, Swap or
    # Pass hands opens when that seat's Protection settles it; every other closes on the action.
    SOLO_MAX_WINDOWS = 2

# Faces: colour c (R, G, B, Y = 0..3) times 14 plus 0..8 for the numbers 1..9, then
# 9 skip, 10 rev, 11 d2, 12 swap, 13 gift; then wild, wd4, pass, protR..protY.
cdef enum:
    SOLO_F_WILD = 56
    SOLO_F_WD4 = 57
    SOLO_F_PASS = 58
    SOLO_F_PROT = 59

# Ranks: 0..8 numbers 1..9, then the actions; a face's rank is solo_frank[face].
cdef enum:
    SOLO_RK_SKIP = 9
    SOLO_RK_REV = 10
    SOLO_RK_D2 = 11
    SOLO_RK_SWAP = 12
    SOLO_RK_GIFT = 13
    SOLO_RK_WILD = 14
    SOLO_RK_WD4 = 15
    SOLO_RK_PASS = 16
    SOLO_RK_PROT = 17

# Action kinds.
cdef enum:
    SOLO_A_PLAY = 0
    SOLO_A_DRAW = 1
    SOLO_A_KEEP = 2
    SOLO_A_CALL = 3
    SOLO_A_DECLINE = 4
    SOLO_A_CATCH = 5


ctypedef struct SoloState:
    unsigned char cnt[SOLO_MAX_SEATS][SOLO_NFACES]   # hands: count of each face
    unsigned char hsize[SOLO_MAX_SEATS]              # hand sizes
    unsigned long long held[SOLO_MAX_SEATS]          # hands: bit f set when face f is held
    unsigned char draw[SOLO_MAX_CARDS]               # draw pile, top last
    unsigned char discard[SOLO_MAX_CARDS]            # discard pile, top last (never empty)
    unsigned char ndraw
    unsigned char ndiscard
    signed char n               # players
    signed char turn            # -1: None
    signed char direction       # 1 or -1
    signed char colour          # colour in force 0..3, -1: None (any card fits)
    signed char penalty_kind    # SOLO_RK_D2, SOLO_RK_WD4 or -1
    signed char drawn           # face just drawn by the seat in turn, -1: None
    signed char laid_by         # -1: None
    signed char solo_seat[SOLO_MAX_WINDOWS]   # open SOLO windows' seats, in closing order
    signed char winner          # -1: round not over
    unsigned char jump          # jump-in window open
    unsigned char solo_called[SOLO_MAX_WINDOWS]  # their calls made
    unsigned char nsolo         # open SOLO windows (engine State.windows)
    # the open Protection window (engine React), when has_react
    unsigned char has_react
    unsigned char react_kind    # SOLO_RK_SKIP, _GIFT, _SWAP or _PASS
    signed char react_by
    signed char react_target    # -1: None
    unsigned char react_ngift
    unsigned char react_gift[2]
    unsigned char react_npending
    unsigned char react_pending[SOLO_MAX_SEATS]     # in order; to_move is the first
    unsigned char react_nprotected
    unsigned char react_protected[SOLO_MAX_SEATS]
    unsigned char react_call    # the Gift / Swap / Pass hands was played with "!" (judged when settled)
    # the rule set (engine Config) as far as the round needs it
    unsigned char opt_gifts
    unsigned char opt_protection
    unsigned char opt_multiples
    unsigned char opt_call_window      # call == "window"
    unsigned char opt_scoring_pool     # scoring == "pool"
    unsigned char opt_self_jump_in
    unsigned char opt_mixed_stacking
    unsigned char opt_false_catch_penalty
    int penalty
    int reshuffles


ctypedef struct SoloAction:
    unsigned char kind          # SOLO_A_*
    unsigned char ncards        # plays: 1, or 3..8 for multiples (cards[0] fits, last is the top)
    unsigned char cards[SOLO_MAX_MULTI]
    signed char colour          # Wild / Wild Draw 4: the colour named, else -1
    signed char target          # Swap / Gift target, or the seat caught; else -1
    unsigned char ngift         # Gift: 0..2 cards, sorted by face
    unsigned char gift[2]
    unsigned char call          # "!": the SOLO call made with the play


ctypedef struct SoloInfo:
    # What one seat knows. base is a SoloState with every public field, the seat's own hand,
    # and in each other hand the cards this seat knows are there (``known``, and the cards of
    # an open Gift it saw chosen); hsize holds the full hand sizes; the draw pile is empty.
    SoloState base
    unsigned char pool[SOLO_NFACES]          # the unseen cards, by face
    unsigned char unknown[SOLO_MAX_SEATS]    # unknown slots per hand (0 for the seat itself)
    int draw_size
    signed char seat
    unsigned char drawn_hidden   # the seat in turn holds a drawn card this seat did not see
    unsigned char gift_hidden    # an open Gift whose cards this seat did not see


cdef int solo_legal(const SoloState* s, int seat, SoloAction* out) noexcept nogil
cdef int solo_candidates(const SoloState* s, int seat, SoloAction* out) noexcept nogil
cdef int solo_to_move(const SoloState* s) noexcept nogil
cdef bint solo_over(const SoloState* s) noexcept nogil
cdef void solo_apply(SoloState* s, int seat, const SoloAction* a, Rng* rng) noexcept nogil
cdef void solo_points(const SoloState* s, double* out) noexcept nogil
cdef void solo_evaluate(const SoloState* s, double* out) noexcept nogil
cdef unsigned long long solo_key(const SoloAction* a) noexcept nogil
cdef void solo_rollout_step(SoloState* s, Rng* rng) noexcept nogil
cdef void solo_values(const SoloState* s, int seat, const SoloAction* acts, int n, double* out) noexcept nogil
cdef void solo_determinize(SoloState* out, const SoloInfo* info, Rng* rng) noexcept nogil


# --- SCOUT ------------------------------------------------------------------------
cdef enum:
    SCOUT_MAX_PLAYERS = 5
    # A hand never holds more than 45 cards (the deck); 48 keeps bit masks and indices small.
    SCOUT_MAX_HAND = 48
    SCOUT_DECK = 45
    # Worst case of any legal list (rigorous): a sequence of m cards has at most
    # m + 9 * (m - 9) + 36 show spans (one single plus at most 9 longer spans per start: runs
    # have at most 10 values, sets at most 9 cards). With hand h and a 2+ card active set,
    # h <= 43: shows <= 385, scouts 4 * 44 = 176, Scout & Shows 176 * spans(44) = 176 * 395
    # = 69520; total 70081. (A 1-card set: h <= 44, 2 * 45 * 405 = 36450.) Real lists are
    # tiny (a few hundred at most), but a buffer must be this large: 70144 * 6 bytes = 421 KB.
    SCOUT_MAX_ACTIONS = 70144
    SCOUT_MAX_SPANS = 448      # the show spans of one hand, by the bound above (h <= 48: 435)

cdef enum:
    SCOUT_PHASE_TURN_CHOICE = 0
    SCOUT_PHASE_PLAY = 1
    SCOUT_PHASE_OVER = 2

cdef enum:
    SCOUT_FLIP = 0
    SCOUT_KEEP = 1
    SCOUT_SHOW = 2
    SCOUT_SCOUT = 3
    SCOUT_SCOUT_SHOW = 4
    SCOUT_PASS = 5          # two players, option voluntary_pass: ends the round

cdef enum:
    SCOUT_END_L = 0
    SCOUT_END_R = 1
    SCOUT_TWO_PLAYER_CHIPS = 3


ctypedef struct ScoutState:
    uint8_t hand[SCOUT_MAX_PLAYERS][SCOUT_MAX_HAND]  # left to right, card bytes
    uint64_t known[SCOUT_MAX_PLAYERS]      # bit k: hand position k is public (scouted)
    uint64_t captured[SCOUT_MAX_PLAYERS]   # pair-id masks of the captured cards
    int32_t chips[SCOUT_MAX_PLAYERS]       # Scout chips received (3-5p) / still held (2p)
    int32_t round_no
    uint8_t active[SCOUT_MAX_HAND]         # the active set, left to right
    uint8_t set_aside[SCOUT_DECK]          # 2 players: the other round's 22 cards, in order
    uint8_t hand_len[SCOUT_MAX_PLAYERS]
    int8_t flipped[SCOUT_MAX_PLAYERS]      # -1 undecided, 0 kept, 1 flipped
    uint8_t scout_show[SCOUT_MAX_PLAYERS]  # Scout & Show chip still unused
    uint8_t active_len
    uint8_t set_aside_len
    int8_t players
    int8_t start
    int8_t phase                           # SCOUT_PHASE_*
    int8_t turn                            # the seat to play in the play phase, else -1
    int8_t owner                           # who showed the active set (kept when scouted empty), -1 before any show
    int8_t exempt                          # the seat exempt from the hand penalty, or -1
    uint8_t opt_voluntary_pass             # the two-player option voluntary_pass (docs/rules.md 2.7.4)


ctypedef struct ScoutAction:
    uint8_t kind    # SCOUT_FLIP .. SCOUT_PASS
    uint8_t end     # scouts: SCOUT_END_L / SCOUT_END_R
    uint8_t value   # scouts: the value turned up
    uint8_t pos     # scouts: insertion index
    uint8_t first   # shows: first hand index (after the insertion for Scout & Show)
    uint8_t last    # shows: last hand index
    # unused fields are always 0 (scout_key relies on it)


ctypedef struct ScoutInfo:
    ScoutState base        # the seat's view; unknown cards are byte 0 (other hands, set aside)
    uint8_t pool[SCOUT_DECK]   # the unseen cards (lower value up), to fill the unknown slots
    int32_t pool_len
    int32_t seat


cdef int scout_legal(const ScoutState* s, int seat, ScoutAction* out) noexcept nogil
cdef int scout_candidates(const ScoutState* s, int seat, ScoutAction* out) noexcept nogil
cdef int scout_to_move(const ScoutState* s) noexcept nogil
cdef bint scout_over(const ScoutState* s) noexcept nogil
cdef void scout_apply(ScoutState* s, int seat, const ScoutAction* a, Rng* rng) noexcept nogil
cdef void scout_points(const ScoutState* s, double* out) noexcept nogil
cdef void scout_evaluate(const ScoutState* s, double* out) noexcept nogil
cdef unsigned long long scout_key(const ScoutAction* a) noexcept nogil
cdef unsigned long long scout_card_key(const ScoutState* s, int seat, const ScoutAction* a) noexcept nogil
cdef void scout_rollout_step(ScoutState* s, Rng* rng) noexcept nogil
cdef void scout_values(const ScoutState* s, int seat, const ScoutAction* acts, int n, double* out) noexcept nogil
cdef void scout_determinize(ScoutState* out, const ScoutInfo* info, Rng* rng) noexcept nogil


# --- the search tree --------------------------------------------------------------
cdef enum:
    NO_NODE = -1
    MAX_SEATS = 10
    MAX_DEPTH = 512
    KID_SHIFTS = 17      # block sizes 1, 2, 4 .. 65536 nodes
    # A block of 1 << HASH_SHIFT nodes or more keeps its last eighth for a hash index of its
    # children (open addressing, 16-bit entries: child position + 1, 0 empty): with 32-byte
    # nodes that is 2 entries per slot of the block, so the index is never half full.
    HASH_SHIFT = 6


ctypedef struct Node:
    unsigned long long key   # the action leading here (WAIT_KEY: the root's "not now")
    float reward             # sum of rewards for `seat`
    unsigned int visits
    unsigned int avail       # times this node's action was legal when its parent was visited
    int kids                 # this node's children: one block of the pool, sorted by key (NO_NODE: none)
    int born                 # creation order (ties between children go to the newest)
    unsigned short nkids     # children in the block (at most kid_room(kshift); a full node stops growing)
    unsigned char kshift     # the block holds 1 << kshift nodes
    signed char seat         # the seat that chose the action leading here (-1 at the root)


ctypedef struct KeyIdx:
    unsigned long long key
    int idx                  # index into the action buffer (-1: the root's WAIT choice)
    float prior              # the rollout policy's probability of this move (PUCT)

# --- the learned leaf value (_value.pxi) ---------------------------------------------
cdef enum:
    VALUE_MAX_IN = 96
    VALUE_MAX_HIDDEN = 64

ctypedef struct ValueNet:
    # One hidden layer: reward = tanh(w2 . tanh(W1 (x - mean) / std + b1) + b2), for the
    # seat whose side the features x describe (value_features). The scaling is folded in.
    int game           # 0 SOLO, 1 SCOUT
    int n_in
    int n_hidden
    float shift[VALUE_MAX_IN]      # x is used as (x - shift) * gain
    float gain[VALUE_MAX_IN]
    float w1[VALUE_MAX_HIDDEN * VALUE_MAX_IN]   # row h: the weights of hidden unit h
    float b1[VALUE_MAX_HIDDEN]
    float w2[VALUE_MAX_HIDDEN]
    float b2


# --- the learned policy (_policy.pxi) --------------------------------------------------
ctypedef struct PolicyNet:
    # One hidden layer: a move's logit = w2 . tanh(W1 (x - shift) * gain + b1) + b2, x the
    # position's inputs then the move's (40 in all: _policy.pxi's POLICY_IN).
    int n_hidden
    float shift[40]
    float gain[40]
    float w1[64 * 40]   # row h: the weights of hidden unit h
    float b1[64]
    float w2[64]
    float b2
    # The same layer folded for the forward pass: a hidden unit's input is bias[h] + the sum
    # over the inputs x[i] != 0 of x[i] * wt[i * 64 + h] (wt: w1 * gain, transposed; bias: b1
    # less w1 * gain * shift), so that the many inputs that are 0 cost nothing.
    float wt[40 * 64]
    float bias[64]


ctypedef struct Tree:
    Node* nodes
    int size
    int capacity
    int searcher
    int players
    double explore
    double scale       # score margin that counts as a clear win (tanh scale)
    bint higher_better # SOLO "pool" and SCOUT: higher points are better
    int rollout_cap
    double cpuct       # weight of the prior in PUCT selection (0: UCB1, random expansion)
    double prior_temp  # the prior is softmax(heuristic value / prior_temp)
    double fpu         # an untried move counts as the mean of the tried ones minus this
    int reward_mode    # 0: round margin vs the others' mean; 1: match total vs the best other; 2: both
    double scale2      # tanh scale of the reward_mode 1 margin
    double totals[MAX_SEATS]   # the match totals before this round
    bint root_wait     # the root offers WAIT_KEY (the searcher may act out of turn or not)
    int free_blocks[KID_SHIFTS]  # freed child blocks by size (linked through their first node's kids)
    int born           # nodes created so far
    bint random_rollout  # roll out with uniformly random legal moves instead of the heuristic
    # The root's moves are the same in every determinization (they depend only on what the
    # searcher sees): generated, valued and indexed once, each with its child (or NO_NODE).
    int root_n
    int root_tried           # root moves with a child so far
    KeyIdx* root_ki
    int* root_child    # NO_NODE until the move's child exists, then root_base + its position
    int root_base
    void* root_acts
    int max_depth      # tree nodes an iteration may pass below the root (0: no limit; 1: flat)
    bint card_keys     # SCOUT: the other seats' moves below the root keyed by the cards, not positions
    long long depth_sum  # the tree nodes passed by all iterations (the root excluded)
    int root_floor     # every root move is visited this many times before PUCT/UCB1 chooses (0: none)
    long long off_policy  # the other seats' tree moves that were not the heuristic's best (stats)
    bint opp_policy    # the other seats' tree moves are the heuristic's (its best by value), not searched
    bint opp_sample    # ... drawn from softmax(heuristic value / opp_temp) instead of its best
    double opp_temp
    const ValueNet* net  # the learned leaf value after rollout_cap rollout moves (NULL: roll out to the end)
    bint halving       # the root's moves by sequential halving over shared determinizations (run_halving)
    int chosen         # the root move halving settled on (a position in root_ki; -1: the most visited)
    const PolicyNet* policy  # the learned prior (NULL: softmax of the heuristic's values)
    bint policy_all    # ... for every seat's searched moves, not only the searcher's
    double policy_temp # the learned prior is softmax(logit / policy_temp)
    int policy_depth   # ... for a seat's first policy_depth decisions on the path (the root the searcher's first; 0: all)
    double value_unit  # the game's heuristic value unit (its default prior_temp): a policy input
    double* logits     # scratch: one logit per move
