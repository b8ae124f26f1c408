/* The C fast path of the rules core: `captures()`, and playouts of the search simulator.
 *
 * `captures(card, table, params, rank_priority)` lists every legal capture of `card` on `table`
 * as the contract's answer (a `Captures`: a Set of frozensets of the 52 interned Card objects,
 * kept as card masks and made into frozensets when read), or returns
 * None when the Python path must answer: anything that is not a plain well-formed input (the
 * Python path then raises the error naming what was wrong), more than CAPTURE_LIMIT captures
 * (it raises TooManyMovesError), or a search past NODE_LIMIT steps. So the answers it gives
 * are exactly the Python path's, which `tests/games/tablic` checks against the oracle.
 *
 * It works on bit masks over the table's positions: the groups of a declared value (a card of
 * the played rank, or cards whose values sum to it) by depth-first search, then, with several
 * groups allowed, every union of disjoint groups. No cache and no memory kept between calls
 * beyond fixed static buffers: a call costs at most NODE_LIMIT steps and CAPTURE_LIMIT entries.
 *
 * `SimCore(fields, rules)` is the compiled build's `kafana_bots.sim.HandSim` position: `copy()`
 * (a struct copy), `play(card, mask)` and `playout(plies, seed, values)`, which plays on for
 * `plies` moves (all: -1) by the greedy policy of `kafana_bots.rollout` when `values` (three
 * tuples of 52 floats) is given, else uniformly at random (xorshift from `seed`); the moves
 * played, or -1 where the Python loop must play on: a capture listing past the limits above.
 * Each move is HandSim's Python `play_reference`, and the policies' choices are HandSim's
 * `legal()` and greedy_move's exactly (`tests/bots/test_bots_simcore.py`,
 * `test_bots_fast_playout.py`).
 *
 * `StateCore` is a `MatchState`'s position (`MatchState._f`, `fields.Fields`) as a struct;
 * `legal(hand, table, params)`, `moves(core, kept)`, `advance(core, legal, move, setup)`,
 * `start(core, setup)` and `permute(items, domain)` are `MatchState`'s and the deal's: its legal
 * moves (a tuple of Moves; `moves` lists a core's as a MoveList), its next position for a move
 * of its own listing, hands scored and dealt included (a new core: the C reads and writes no
 * field of MatchState), its first hand dealt, and `kafana.games.shuffle.permute` (the draws in
 * C, the digests by the standard library's SHA-256, `hashlib.sha256`); None where Python
 * answers (too many captures, anything else). tests/games/tablic/test_fast_legal.py,
 * test_fast_advance.py and test_shuffle.py check them against the Python they stand in for.
 *
 * `params` (80 bytes, `capture.fast_params`): wild jack, multiple groups, then per rank 1..13
 * the declared values a played card may take (count, two values; 0 means by rank only), then
 * per rank the values a table card may take inside a sum (count, two values).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CAPTURE_LIMIT 10000
#define NODE_LIMIT 2000000
#define SLOTS_LOG 15
#define SLOTS (1u << SLOTS_LOG) /* > 3 x (CAPTURE_LIMIT + 2): probes stay short */
#define PARAMS_SIZE 80
#define JACK 11

/* -- the 52 cards: pointer -> index -------------------------------------------------------- */

static PyTypeObject *card_type = NULL;
static PyObject *card_objects[52];
#define CARD_SLOTS 256
static PyObject *card_keys[CARD_SLOTS];
static int8_t card_values[CARD_SLOTS];

static inline unsigned card_slot(PyObject *p) { return (unsigned)(((uintptr_t)p >> 4) * 2654435761u) >> 24; }

/* The index of a card object, or -1 if it is not one of the 52. */
static inline int card_index(PyObject *p) {
    unsigned s = card_slot(p);
    for (;;) {
        PyObject *k = card_keys[s];
        if (k == p) return card_values[s];
        if (k == NULL) return -1;
        s = (s + 1) & (CARD_SLOTS - 1);
    }
}

/* -- a set of masks with O(1) clearing (generation stamps) -------------------------------- */

/* Up to LINEAR items a set is scanned; past it, hashed into the first 2**log slots of its
   table, the region doubling (items hashed again) when half full, so a small set stays in a
   few cache lines. */
#define LINEAR 8
#define FIRST_LOG 6
typedef struct {
    int log; /* 0: not hashed yet */
    uint64_t keys[SLOTS];
    uint32_t stamps[SLOTS];
    uint32_t generation;
    uint64_t items[CAPTURE_LIMIT + 2];
    int count;
    int overflow;
} MaskSet;

static MaskSet groups_set, unions_set, results_set;

/* Set while a call fills the shared static buffers (`masks_buffer`, the mask sets, `found`)
   and then allocates from them: on CPython 3.11 an allocation may run the cycle collector and
   so finalizers, which could call back in; a call made then declines (Python answers). */
static int buffers_busy = 0;

/* A new generation: every stamp of the table is stale. */
static void set_restamp(MaskSet *s) {
    s->generation++;
    if (s->generation == 0) { /* wrapped: stamps of 2**32 generations ago look current */
        memset(s->stamps, 0, sizeof s->stamps);
        s->generation = 1;
    }
}

static void set_clear(MaskSet *s) {
    s->count = 0;
    s->overflow = 0;
    s->log = 0;
}

/* Put a mask known to be absent into the table (no count check). */
static inline void set_place(MaskSet *s, uint64_t mask) {
    uint32_t size = 1u << s->log;
    uint32_t i = (uint32_t)((mask * 0x9E3779B97F4A7C15ull) >> (64 - s->log));
    while (s->stamps[i] == s->generation) i = (i + 1) & (size - 1);
    s->stamps[i] = s->generation;
    s->keys[i] = mask;
}

/* Hash the items into a region of 2**log slots. */
static void set_rehash(MaskSet *s, int log) {
    s->log = log;
    set_restamp(s);
    for (int k = 0; k < s->count; k++) set_place(s, s->items[k]);
}

/* Add a mask; 1 if new. Past CAPTURE_LIMIT + 1 items the set only records the overflow. */
static inline int set_add(MaskSet *s, uint64_t mask) {
    if (!s->log) {
        for (int k = 0; k < s->count; k++)
            if (s->items[k] == mask) return 0;
        s->items[s->count++] = mask;
        if (s->count == LINEAR) set_rehash(s, FIRST_LOG);
        return 1;
    }
    uint32_t size = 1u << s->log;
    uint32_t i = (uint32_t)((mask * 0x9E3779B97F4A7C15ull) >> (64 - s->log));
    while (s->stamps[i] == s->generation) {
        if (s->keys[i] == mask) return 0;
        i = (i + 1) & (size - 1);
    }
    if (s->count >= CAPTURE_LIMIT + 1) {
        s->overflow = 1;
        return 0;
    }
    s->items[s->count++] = mask;
    if (2u * (uint32_t)s->count > size && s->log < SLOTS_LOG) {
        set_rehash(s, s->log + 1); /* places the new item too */
    } else {
        s->stamps[i] = s->generation;
        s->keys[i] = mask;
    }
    return 1;
}

/* -- the search ---------------------------------------------------------------------------- */

typedef struct {
    int n;
    uint8_t nvalues[52];
    uint8_t values[52][2];
    uint8_t least[53]; /* least[i]: the smallest value of the cards from position i on */
    long nodes;
} Table;

/* The values the card of `rank` at position `i` may take inside a sum (`params`' table part). */
static inline int fill_values(Table *t, int i, int rank, const uint8_t *params) {
    const uint8_t *tv = params + 2 + 39 + 3 * (rank - 1);
    t->nvalues[i] = tv[0];
    t->values[i][0] = tv[1];
    t->values[i][1] = tv[2];
    return tv[0];
}

/* After the values are filled in: the suffix minima that let `sums` stop early. */
static void table_ready(Table *t) {
    t->least[t->n] = 255;
    for (int i = t->n - 1; i >= 0; i--) {
        int low = 255;
        for (int v = 0; v < t->nvalues[i]; v++)
            if (t->values[i][v] < low) low = t->values[i][v];
        t->least[i] = (uint8_t)(low < t->least[i + 1] ? low : t->least[i + 1]);
    }
}

/* Every set of positions from `start` on whose values sum to `remaining`, joined to `mask`,
   into `groups_set`; -1 past the bounds. */
static int sums(Table *t, int start, int remaining, uint64_t mask) {
    for (int i = start; i < t->n; i++) {
        if (t->least[i] > remaining) break; /* no card from here on fits */
        for (int v = 0; v < t->nvalues[i]; v++) {
            int w = t->values[i][v];
            if (++t->nodes > NODE_LIMIT) return -1;
            if (w == remaining) {
                set_add(&groups_set, mask | (1ull << i));
                if (groups_set.overflow) return -1;
            } else if (w < remaining) {
                if (sums(t, i + 1, remaining - w, mask | (1ull << i)) < 0) return -1;
            }
        }
    }
    return 0;
}

/* The captures from the groups in `groups_set` into `results_set`: the groups, or with several
   groups allowed every union of disjoint ones; -1: let Python answer. */
static int combine(int multi) {
    int count = groups_set.count;
    if (groups_set.overflow || count > CAPTURE_LIMIT) return -1; /* Python: TooManyMovesError */
    if (!multi || count <= 1) {
        for (int g = 0; g < count; g++) set_add(&results_set, groups_set.items[g]);
        return results_set.overflow ? -1 : 0;
    }
    set_clear(&unions_set);
    set_add(&unions_set, 0);
    for (int g = 0; g < count; g++) {
        uint64_t group = groups_set.items[g];
        int before = unions_set.count;
        for (int u = 0; u < before; u++) {
            uint64_t m = unions_set.items[u];
            if (!(m & group)) set_add(&unions_set, m | group);
            if (unions_set.overflow || unions_set.count > CAPTURE_LIMIT) return -1; /* with 0 */
        }
    }
    for (int u = 1; u < unions_set.count; u++) set_add(&results_set, unions_set.items[u]);
    return results_set.overflow ? -1 : 0;
}

/* The captures of one declared value into `results_set`; -1: let Python answer. */
static int list_value(Table *t, int value, uint64_t same_rank, int multi) {
    set_clear(&groups_set);
    for (int i = 0; i < t->n; i++)
        if (same_rank >> i & 1) set_add(&groups_set, 1ull << i);
    if (value > 0 && sums(t, 0, value, 0) < 0) return -1;
    return combine(multi);
}

/* The same from groups found before (`found`: the sum groups of that value). */
static int list_found(const uint64_t *found, int nfound, uint64_t same_rank, int multi) {
    set_clear(&groups_set);
    for (uint64_t m = same_rank; m; m &= m - 1) set_add(&groups_set, m & -m);
    for (int g = 0; g < nfound; g++) set_add(&groups_set, found[g]);
    return combine(multi);
}

/* -- the simulator's playout ---------------------------------------------------------------- */

#define HAND_SIZE 6
#define SIM_RULES_SIZE (PARAMS_SIZE + 52 + 4)

typedef struct {
    int n, sides, first, current, last_capturer;
    int side_of[4];
    int hands[4][52], hand_len[4];
    int table[52], table_len;
    int deck[52], deck_len;
    int cards[4], points[4], tablas[4]; /* per side */
    uint64_t piles[4]; /* per side: the captured cards by index (MatchState's; HandSim keeps none) */
} Hand;

typedef struct {
    const uint8_t *params;       /* capture switches (`fast_params`) */
    const uint8_t *points;       /* card points by index */
    int tabla_points, last_card_tabla, must_capture, rank_priority;
} SimRules;

/* The captures in `results_set` that rank priority keeps into `out` (sorted if `sort`: the
   simulator's listings are few, in HandSim's order); their count. */
static int kept_results(uint64_t same_rank, int rank_priority, int sort, uint64_t *out) {
    int count = 0;
    for (int c = 0; c < results_set.count; c++) {
        uint64_t m = results_set.items[c];
        if (!rank_priority || !same_rank || (m & same_rank)) out[count++] = m;
    }
    for (int i = 1; sort && i < count; i++) { /* insertion */
        uint64_t x = out[i];
        int j = i - 1;
        while (j >= 0 && out[j] > x) { out[j + 1] = out[j]; j--; }
        out[j + 1] = x;
    }
    return count;
}

/* One table's sum groups for every value up to `most`, found once for all the cards of a hand
   (the seat's cards differ only in the value they declare): the simulator's listings and
   `MatchState`'s. */
#define MOST_VALUE 63
#define SUM_GROUPS 256
typedef struct {
    Table *t;    /* the table searched (its values filled, `table_ready`) */
    Table table; /* the simulator's */
    int most, dual;
    int count[MOST_VALUE + 1];
    uint64_t groups[MOST_VALUE + 1][SUM_GROUPS];
    uint64_t rank_mask[14]; /* positions of each rank */
} Prepared;
static Prepared prepared;

/* `sums` for every value up to `p->most` at once: each set of positions from `start` on, joined
   to `mask` (whose values total `total`), into the group list of its sum. */
static int sums_all(Prepared *p, int start, int total, uint64_t mask) {
    Table *t = p->t;
    for (int i = start; i < t->n; i++) {
        if (total + t->least[i] > p->most) break;
        for (int v = 0; v < t->nvalues[i]; v++) {
            int s = total + t->values[i][v];
            if (s > p->most) continue;
            if (++t->nodes > NODE_LIMIT) return -1;
            uint64_t m = mask | (1ull << i);
            int c = p->count[s], known = 0;
            if (p->dual) /* two cards of two values: one set may reach a sum twice */
                for (int g = 0; g < c && !known; g++) known = p->groups[s][g] == m;
            if (!known) {
                if (c >= SUM_GROUPS) return -1;
                p->groups[s][c] = m;
                p->count[s] = c + 1;
            }
            if (s < p->most && sums_all(p, i + 1, s, m) < 0) return -1;
        }
    }
    return 0;
}

/* Prepare the listings of the `cards` cards of `hand` (card indexes) on `t`, whose positions
   hold cards of ranks `rank`: 0, or -1 past the bounds (then each card is searched alone). */
static int prepare(Table *t, const int *rank, const int *hand, int cards, const uint8_t *params) {
    Prepared *p = &prepared;
    int most = 0, dual = 0;
    for (int i = 0; i < cards; i++) {
        const uint8_t *pv = params + 2 + 3 * (hand[i] / 4);
        for (int v = 0; v < pv[0]; v++)
            if (pv[1 + v] > most) most = pv[1 + v];
    }
    if (most > MOST_VALUE) return -1;
    p->most = most;
    p->t = t;
    t->nodes = 0;
    memset(p->rank_mask, 0, sizeof p->rank_mask);
    for (int i = 0; i < t->n; i++) {
        dual += t->nvalues[i] > 1;
        p->rank_mask[rank[i]] |= 1ull << i;
    }
    p->dual = dual > 1;
    memset(p->count, 0, sizeof(int) * (size_t)(most + 1));
    return sums_all(p, 0, 0, 0);
}

/* The simulator's `prepare`: its seat's hand on its table. */
static int prepare_hand(const Hand *h, const SimRules *r) {
    Table *t = &prepared.table;
    int rank[52];
    t->n = h->table_len;
    for (int i = 0; i < t->n; i++) {
        rank[i] = h->table[i] / 4 + 1;
        fill_values(t, i, rank[i], r->params);
    }
    table_ready(t);
    return prepare(t, rank, h->hands[h->current], h->hand_len[h->current], r->params);
}

/* The capture masks of `card` on the prepared table (sorted if `sort`) into `out`; their count,
   or -1 (too many: Python lists, or the Python loop plays). */
static int prepared_captures(int card, const uint8_t *params, int rank_priority, int sort,
                             uint64_t *out) {
    int n = prepared.t->n, played_rank = card / 4 + 1;
    if (n == 0) return 0;
    if (params[0] && played_rank == JACK) {
        out[0] = (1ull << n) - 1;
        return 1;
    }
    uint64_t same_rank = prepared.rank_mask[played_rank];
    set_clear(&results_set);
    const uint8_t *pv = params + 2 + 3 * (played_rank - 1);
    for (int v = 0; v < pv[0]; v++) {
        int value = pv[1 + v];
        const uint64_t *found = value ? prepared.groups[value] : NULL;
        if (list_found(found, value ? prepared.count[value] : 0, same_rank, params[1]) < 0)
            return -1;
    }
    return kept_results(same_rank, rank_priority, sort, out);
}

static void sort_ints(int *a, int n) {
    for (int i = 1; i < n; i++) {
        int x = a[i], j = i - 1;
        while (j >= 0 && a[j] > x) { a[j + 1] = a[j]; j--; }
        a[j + 1] = x;
    }
}

static void deal(Hand *h) {
    int per = h->deck_len / h->n;
    if (per > HAND_SIZE) per = HAND_SIZE;
    for (int k = 0; k < h->n; k++) {
        int seat = (h->first + k) % h->n;
        memcpy(h->hands[seat], h->deck + k * per, sizeof(int) * (size_t)per);
        h->hand_len[seat] = per;
        sort_ints(h->hands[seat], per);
    }
    int used = h->n * per;
    memmove(h->deck, h->deck + used, sizeof(int) * (size_t)(h->deck_len - used));
    h->deck_len -= used;
    h->current = h->first;
}

/* HandSim.play: a legal move (not checked), then the next seat, a deal, or the hand's end; the
   one move of the C paths (the simulator's playouts and `MatchState`'s transition, `advance`).
   `mask`: the captured table positions. */
static void play(Hand *h, const SimRules *r, int card, uint64_t mask) {
    int seat = h->current, *hand = h->hands[seat], len = h->hand_len[seat];
    for (int i = 0; i < len; i++)
        if (hand[i] == card) {
            memmove(hand + i, hand + i + 1, sizeof(int) * (size_t)(len - i - 1));
            break;
        }
    h->hand_len[seat] = --len;
    int any = 0;
    for (int s = 0; s < h->n; s++) any |= h->hand_len[s];
    int last_of_hand = h->deck_len == 0 && !any;
    if (mask) {
        int side = h->side_of[seat], kept = 0;
        int pts = r->points[card], taken = 1;
        h->piles[side] |= 1ull << card;
        for (int k = 0; k < h->table_len; k++) {
            int c = h->table[k];
            if (mask >> k & 1) {
                pts += r->points[c];
                taken++;
                h->piles[side] |= 1ull << c;
            } else {
                h->table[kept++] = c;
            }
        }
        h->table_len = kept;
        h->cards[side] += taken;
        h->points[side] += pts;
        h->last_capturer = side;
        if (!kept && (r->last_card_tabla || !last_of_hand)) h->tablas[side]++;
    } else {
        int k = h->table_len++;
        while (k > 0 && h->table[k - 1] > card) { h->table[k] = h->table[k - 1]; k--; }
        h->table[k] = card;
    }
    if (!last_of_hand) {
        if (any) h->current = (seat + 1) % h->n;
        else deal(h);
        return;
    }
    if (h->last_capturer >= 0) {
        h->cards[h->last_capturer] += h->table_len;
        for (int k = 0; k < h->table_len; k++) {
            h->points[h->last_capturer] += r->points[h->table[k]];
            h->piles[h->last_capturer] |= 1ull << h->table[k];
        }
    }
    h->table_len = 0;
    h->current = -1;
}

static uint64_t masks_buffer[CAPTURE_LIMIT + 2];

/* rollout.greedy_move: the best immediate value, first on ties; 0 or -1 (listing declined). */
static int greedy(const Hand *h, const SimRules *r, const double *taken, const double *played,
                  const double *trailed, int *card_out, uint64_t *mask_out) {
    int seat = h->current, total = 0;
    for (int s = 0; s < h->n; s++) total += h->hand_len[s];
    int last = h->deck_len == 0 && total == 1;
    double tabla = (r->last_card_tabla || !last) ? r->tabla_points : 0;
    uint64_t full = (1ull << h->table_len) - 1;
    int best_card = -1, trail_card = -1;
    uint64_t best_mask = 0;
    double best_value = -1e9, trail_value = -1e9;
    if (prepare_hand(h, r) < 0) return -1;
    for (int i = 0; i < h->hand_len[seat]; i++) {
        int card = h->hands[seat][i];
        int count = prepared_captures(card, r->params, r->rank_priority, 1, masks_buffer);
        if (count < 0) return -1;
        for (int c = 0; c < count; c++) {
            uint64_t mask = masks_buffer[c];
            double v = played[card];
            for (int k = 0; k < h->table_len; k++)
                if (mask >> k & 1) v += taken[h->table[k]];
            if (mask == full) v += tabla;
            if (v > best_value) { best_card = card; best_mask = mask; best_value = v; }
        }
        if (trailed[card] > trail_value) { trail_card = card; trail_value = trailed[card]; }
    }
    if (best_card >= 0 && (best_value >= trail_value || r->must_capture)) {
        *card_out = best_card;
        *mask_out = best_mask;
    } else {
        *card_out = trail_card;
        *mask_out = 0;
    }
    return 0;
}

/* A uniformly random legal move (HandSim.legal's list); 0 or -1 (listing declined). */
static int random_move(const Hand *h, const SimRules *r, uint64_t *state, int *card_out,
                       uint64_t *mask_out) {
    int seat = h->current, count = 0, captures = 0;
    static int move_cards[CAPTURE_LIMIT + 64];
    static uint64_t move_masks[CAPTURE_LIMIT + 64];
    if (prepare_hand(h, r) < 0) return -1;
    for (int i = 0; i < h->hand_len[seat]; i++) {
        int card = h->hands[seat][i];
        int found = prepared_captures(card, r->params, r->rank_priority, 1, masks_buffer);
        if (found < 0 || count + found + 1 > CAPTURE_LIMIT + 64) return -1;
        move_cards[count] = card;
        move_masks[count++] = 0;
        for (int c = 0; c < found; c++) {
            move_cards[count] = card;
            move_masks[count++] = masks_buffer[c];
        }
        captures += found;
    }
    int pick;
    uint64_t x = *state;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    *state = x;
    uint64_t random = x * 0x2545F4914F6CDD1Dull;
    if (captures && r->must_capture) {
        int k = (int)((random >> 11) % (uint64_t)captures);
        for (pick = 0; pick < count; pick++)
            if (move_masks[pick] && k-- == 0) break;
    } else {
        pick = (int)((random >> 11) % (uint64_t)count);
    }
    *card_out = move_cards[pick];
    *mask_out = move_masks[pick];
    return 0;
}

/* -- HandSim <-> Hand ------------------------------------------------------------------------- */

static int ints_into(PyObject *list, int *out, int most, int *len) {
    if (!PyList_Check(list) || PyList_GET_SIZE(list) > most) return -1;
    Py_ssize_t n = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PyList_GET_ITEM(list, i));
        if (v == -1 && PyErr_Occurred()) return -1;
        out[i] = (int)v;
    }
    *len = (int)n;
    return 0;
}

static int optional_int(PyObject *value, int *out) {
    if (value == Py_None) { *out = -1; return 0; }
    long v = PyLong_AsLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = (int)v;
    return 0;
}

/* Read a HandSim's position from its fields (`HandSim.fields()`: n, first, side_of, hands,
   table, deck, cards, points, tablas, last_capturer, current): 0, or -1 with an error set. */
#define FIELDS 11
static int read_fields(PyObject *fields, Hand *h) {
    if (!PyTuple_Check(fields) || PyTuple_GET_SIZE(fields) != FIELDS) goto bad;
    PyObject *const *f = &PyTuple_GET_ITEM(fields, 0);
    int len;
    memset(h->piles, 0, sizeof h->piles);
    h->n = (int)PyLong_AsLong(f[0]);
    h->first = (int)PyLong_AsLong(f[1]);
    if (PyErr_Occurred()) return -1;
    if (h->n < 1 || h->n > 4 || h->first < 0 || h->first >= h->n) goto bad;
    if (!PyTuple_Check(f[2]) || PyTuple_GET_SIZE(f[2]) != h->n) goto bad;
    for (int s = 0; s < h->n; s++) {
        h->side_of[s] = (int)PyLong_AsLong(PyTuple_GET_ITEM(f[2], s));
        if (h->side_of[s] < 0 || h->side_of[s] > 3) goto bad;
    }
    if (!PyList_Check(f[3]) || PyList_GET_SIZE(f[3]) != h->n) goto bad;
    for (int s = 0; s < h->n; s++)
        if (ints_into(PyList_GET_ITEM(f[3], s), h->hands[s], 52, &h->hand_len[s]) < 0) goto bad;
    if (ints_into(f[4], h->table, 52, &h->table_len) < 0 || ints_into(f[5], h->deck, 52, &h->deck_len) < 0 ||
        ints_into(f[6], h->cards, 4, &h->sides) < 0 || ints_into(f[7], h->points, 4, &len) < 0 ||
        len != h->sides || ints_into(f[8], h->tablas, 4, &len) < 0 || len != h->sides)
        goto bad;
    if (optional_int(f[9], &h->last_capturer) < 0 || optional_int(f[10], &h->current) < 0) return -1;
    if (h->current >= h->n || h->last_capturer >= h->sides) goto bad;
    return 0;
bad:
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "not a HandSim position");
    return -1;
}

/* Objects the fast paths make hold only cards, ints, moves and tuples of them, none of which
   can refer back to what holds it: no reference cycle can pass through them, so they are left
   out of the cycle collector's walks (a playout makes several every move). */
static inline PyObject *untracked(PyObject *o) {
    if (o != NULL) PyObject_GC_UnTrack(o);
    return o;
}

static inline PyObject *card_tuple(Py_ssize_t n) { return untracked(PyTuple_New(n)); }

/* A tuple (`as_tuple`, untracked: it holds only ints) or a list of the `n` ints of `v` (NULL:
   an error is set): the simulator's lists and the state's tuples of counts and points. */
static PyObject *int_sequence(const int *v, int n, int as_tuple) {
    PyObject *out = as_tuple ? card_tuple(n) : PyList_New(n);
    if (out == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (x == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        if (as_tuple)
            PyTuple_SET_ITEM(out, i, x);
        else
            PyList_SET_ITEM(out, i, x);
    }
    return out;
}
static inline PyObject *int_list(const int *v, int n) { return int_sequence(v, n, 0); }
static inline PyObject *int_tuple(const int *v, int n) { return int_sequence(v, n, 1); }

static PyObject *optional(int v) {
    if (v < 0) Py_RETURN_NONE;
    return PyLong_FromLong(v);
}

/* The table's rank counts (`capture.count_vector`): 4 bits a rank. */
static uint64_t hand_vector(const Hand *h) {
    uint64_t vector = 0;
    for (int k = 0; k < h->table_len; k++) vector += 1ull << 4 * (h->table[k] / 4);
    return vector;
}

/* A position as the HandSim's lists (new ones): (hands, table, deck, cards, points, tablas,
   last_capturer, current, vector); NULL with an error set. */
static PyObject *fields_of(const Hand *h) {
    PyObject *hands = PyList_New(h->n);
    if (hands == NULL) return NULL;
    for (int s = 0; s < h->n; s++) {
        PyObject *hand = int_list(h->hands[s], h->hand_len[s]);
        if (hand == NULL) {
            Py_DECREF(hands);
            return NULL;
        }
        PyList_SET_ITEM(hands, s, hand);
    }
    return Py_BuildValue("(NNNNNNNNK)", hands, int_list(h->table, h->table_len),
                         int_list(h->deck, h->deck_len), int_list(h->cards, h->sides),
                         int_list(h->points, h->sides), int_list(h->tablas, h->sides),
                         optional(h->last_capturer), optional(h->current),
                         (unsigned long long)hand_vector(h));
}

static int read_floats(PyObject *tuple, double *out) {
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != 52) return -1;
    for (int i = 0; i < 52; i++) {
        out[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(tuple, i));
        if (out[i] == -1.0 && PyErr_Occurred()) return -1;
    }
    return 0;
}

/* A playout's arguments read once: its bound, its generator's state and its policy (random, or
   greedy with these values). */
typedef struct {
    long plies;
    uint64_t state;
    int greedy;
    double taken[52], played[52], trailed[52];
} Playout;

static int read_playout(PyObject *plies, PyObject *seed, PyObject *values, Playout *p) {
    p->plies = PyLong_AsLong(plies);
    if (p->plies == -1 && PyErr_Occurred()) return -1;
    uint64_t s = PyLong_AsUnsignedLongLongMask(seed);
    if (s == (uint64_t)-1 && PyErr_Occurred()) return -1;
    p->state = s * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    if (p->state == 0) p->state = 1;
    p->greedy = values != Py_None;
    if (p->greedy) {
        if (!PyTuple_Check(values) || PyTuple_GET_SIZE(values) != 3 ||
            read_floats(PyTuple_GET_ITEM(values, 0), p->taken) < 0 ||
            read_floats(PyTuple_GET_ITEM(values, 1), p->played) < 0 ||
            read_floats(PyTuple_GET_ITEM(values, 2), p->trailed) < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "values: three tuples of 52");
            return -1;
        }
    }
    return 0;
}

/* Plays `h` out (or `plies` moves): moves played, or -1 at a listing past the capture limit
   (the moves before it stay played in `h`). */
static long run_playout(Hand *h, const SimRules *r, Playout *p) {
    long moves = 0;
    while (h->current >= 0 && (p->plies < 0 || moves < p->plies)) {
        int card;
        uint64_t mask;
        int declined = p->greedy ? greedy(h, r, p->taken, p->played, p->trailed, &card, &mask)
                                 : random_move(h, r, &p->state, &card, &mask);
        if (declined < 0) return -1;
        play(h, r, card, mask);
        moves++;
    }
    return moves;
}

static SimRules sim_rules(PyObject *rules_obj) {
    const uint8_t *raw = (const uint8_t *)PyBytes_AS_STRING(rules_obj);
    SimRules r = {raw, raw + PARAMS_SIZE, raw[PARAMS_SIZE + 52], raw[PARAMS_SIZE + 53],
                  raw[PARAMS_SIZE + 54], raw[PARAMS_SIZE + 55]};
    return r;
}

/* -- SimCore: the simulator's position owned by C ---------------------------------------------- */

/* A HandSim's position held as the C's own `Hand` (hands, table and deck as card indexes, piles
   as masks, counts as C ints): the compiled build's `HandSim` holds one (`kafana_bots.sim`).
   Made from a HandSim's lists once, then copied (a struct copy), played and played out without
   reading or writing Python objects; its lists are made again only when read (`fields()`). */
typedef struct {
    PyObject_HEAD
    Hand h;
    SimRules r;
    PyObject *rules; /* the fast_rules bytes `r` points into */
} SimCore;

static PyTypeObject SimCoreType;

static PyObject *simcore_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *fields, *rules_obj;
    static char *names[] = {"fields", "rules", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO!", names, &fields, &PyBytes_Type, &rules_obj))
        return NULL;
    if (PyBytes_GET_SIZE(rules_obj) != SIM_RULES_SIZE) {
        PyErr_SetString(PyExc_ValueError, "rules: the simulator's fast_rules bytes");
        return NULL;
    }
    SimCore *self = (SimCore *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    if (read_fields(fields, &self->h) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    if (self->h.table_len > 16 || self->h.deck_len + self->h.table_len > 52) {
        Py_DECREF(self);
        PyErr_SetString(PyExc_ValueError, "a position past the C paths' bounds");
        return NULL;
    }
    self->rules = Py_NewRef(rules_obj);
    self->r = sim_rules(rules_obj);
    return (PyObject *)self;
}

static void simcore_dealloc(SimCore *self) {
    Py_XDECREF(self->rules);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *simcore_copy(SimCore *self, PyObject *unused) {
    (void)unused;
    SimCore *out = (SimCore *)SimCoreType.tp_alloc(&SimCoreType, 0);
    if (out == NULL) return NULL;
    out->h = self->h;
    out->rules = Py_NewRef(self->rules);
    out->r = self->r;
    return (PyObject *)out;
}

/* play(card, mask): HandSim.play (a legal move; checked only as far as memory needs: the card
   held by the seat to move, the mask cut to the table's positions). */
static PyObject *simcore_play(SimCore *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "play(card, mask)");
        return NULL;
    }
    long card = PyLong_AsLong(args[0]);
    if (card == -1 && PyErr_Occurred()) return NULL;
    uint64_t mask = PyLong_AsUnsignedLongLongMask(args[1]);
    if (mask == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    int held = 0;
    for (int i = 0; self->h.current >= 0 && i < self->h.hand_len[self->h.current]; i++)
        held |= self->h.hands[self->h.current][i] == card;
    if (!held) {
        PyErr_SetString(PyExc_ValueError, "no move: the hand is over, or the card is not held");
        return NULL;
    }
    play(&self->h, &self->r, (int)card, mask & ((1ull << self->h.table_len) - 1));
    Py_RETURN_NONE;
}

/* playout(plies, seed, values): plays on for `plies` moves (all: -1) in place, by the greedy
   policy of `kafana_bots.rollout` given `values` (three tuples of 52 floats: taken, played,
   trailed), else uniformly at random (xorshift from `seed`); the moves played, or -1 where
   the Python loop must play on: a table past 16 cards (nothing played) or a listing past the
   capture limit (the moves before it stay played). */
static PyObject *simcore_playout(SimCore *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "playout(plies, seed, values)");
        return NULL;
    }
    if (buffers_busy) return PyLong_FromLong(-1);
    Playout p;
    if (read_playout(args[0], args[1], args[2], &p) < 0) return NULL;
    if (self->h.table_len > 16) return PyLong_FromLong(-1);
    return PyLong_FromLong(run_playout(&self->h, &self->r, &p));
}

static PyObject *simcore_fields(SimCore *self, PyObject *unused) {
    (void)unused;
    return fields_of(&self->h);
}

static PyObject *simcore_last_capturer(SimCore *self, void *unused) {
    (void)unused;
    return optional(self->h.last_capturer);
}

static PyObject *simcore_vector(SimCore *self, void *unused) {
    (void)unused;
    return PyLong_FromUnsignedLongLong(hand_vector(&self->h));
}

static PyObject *simcore_current(SimCore *self, void *unused) {
    (void)unused;
    return optional(self->h.current);
}

static PyObject *simcore_points(SimCore *self, void *unused) {
    (void)unused;
    return int_tuple(self->h.points, self->h.sides);
}

static PyMethodDef simcore_methods[] = {
    {"copy", (PyCFunction)simcore_copy, METH_NOARGS, "An independent copy (a struct copy)."},
    {"play", (PyCFunction)(void (*)(void))simcore_play, METH_FASTCALL,
     "play(card, mask): HandSim.play on this position."},
    {"playout", (PyCFunction)(void (*)(void))simcore_playout, METH_FASTCALL,
     "playout(plies, seed, values): played on in place; moves played, or -1 (Python plays)."},
    {"fields", (PyCFunction)simcore_fields, METH_NOARGS,
     "(hands, table, deck, cards, points, tablas, last_capturer, current, vector), new lists."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef simcore_getset[] = {
    {"current", (getter)simcore_current, NULL, "The seat to move, or None once scored.", NULL},
    {"points", (getter)simcore_points, NULL, "Card points taken per side (a tuple).", NULL},
    {"last_capturer", (getter)simcore_last_capturer, NULL, "The side that captured last.", NULL},
    {"vector", (getter)simcore_vector, NULL, "The table's rank counts (count_vector).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SimCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kafana.games.tablic._ccore.SimCore",
    .tp_basicsize = sizeof(SimCore),
    .tp_dealloc = (destructor)simcore_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "SimCore(fields, rules): a HandSim's position owned by C (see _ccore.c).",
    .tp_methods = simcore_methods,
    .tp_getset = simcore_getset,
    .tp_new = simcore_new,
};

/* -- captures() ------------------------------------------------------------------------------ */

/* Frozensets of cards are made with the public set API only: a new frozenset filled by
   PySet_Add before anything else sees it (as the API allows for a brand new frozenset). They
   hold only cards, which refer to nothing, so they are not tracked by the garbage collector
   (like tuples of atoms). */

/* A new reference to the frozenset of the cards at `mask`'s positions (`index`: their card
   indexes). The cards are the interned ones, not the caller's table: allocating may run Python
   code (a finalizer), which could change a table given as a list. */
static PyObject *capture_of(const int *index, uint64_t mask) {
    PyObject *capture = PyFrozenSet_New(NULL);
    if (capture == NULL) return NULL;
    for (uint64_t m = mask; m; m &= m - 1) {
        if (PySet_Add(capture, card_objects[index[__builtin_ctzll(m)]]) < 0) {
            Py_DECREF(capture);
            return NULL;
        }
    }
    PyObject_GC_UnTrack(capture);
    return capture;
}

/* -- the answer: captures kept as card masks, frozensets made when read (issue 33) ------------ */

/* `captures()`' answer in the compiled build: an immutable `collections.abc.Set` of frozensets
   of cards (registered in `capture.py`) that holds the search's output as card masks (bit i:
   the card of index i) and makes a capture's frozenset only when it is read (iteration). `len`,
   `in` and `==`/`!=` against sets of sets of cards work on the masks; anything else (ordering,
   `&`, `|`, `-`, `^`, the set methods, a lookup of something that is not a set of the 52 cards,
   `repr`, pickling) asks the answer as a set, made once and kept: so every answer is the one
   the set of frozensets the Python path returns would give. Unhashable, as that set is. */
typedef struct {
    PyObject_VAR_HEAD
    PyObject *set;    /* the answer as a set of frozensets, once asked; or NULL */
    uint64_t *sorted; /* the masks ascending, once a lookup of a large answer needs them */
    uint64_t masks[1];
} Captures;

typedef struct {
    PyObject_HEAD
    Captures *of;
    Py_ssize_t next;
} CapturesIter;

static PyTypeObject CapturesType, CapturesIterType;
#define LOOKUP_LINEAR 16 /* answers up to this many captures are scanned, larger ones searched */

/* A new frozenset of the cards of `cards` (a mask of card indexes), untracked. */
static PyObject *frozenset_of(uint64_t cards) {
    PyObject *capture = PyFrozenSet_New(NULL);
    if (capture == NULL) return NULL;
    for (uint64_t m = cards; m; m &= m - 1)
        if (PySet_Add(capture, card_objects[__builtin_ctzll(m)]) < 0) {
            Py_DECREF(capture);
            return NULL;
        }
    PyObject_GC_UnTrack(capture);
    return capture;
}

/* The answer of `count` captures given as masks of table positions (`index`: the card index
   at each position). */
static PyObject *captures_new(const int *index, const uint64_t *masks, int count) {
    Captures *self = PyObject_NewVar(Captures, &CapturesType, count);
    if (self == NULL) return NULL;
    self->set = NULL;
    self->sorted = NULL;
    for (int c = 0; c < count; c++) {
        uint64_t cards = 0;
        for (uint64_t m = masks[c]; m; m &= m - 1) cards |= 1ull << index[__builtin_ctzll(m)];
        self->masks[c] = cards;
    }
    return (PyObject *)self;
}

static void captures_dealloc(Captures *self) {
    Py_XDECREF(self->set);
    PyMem_Free(self->sorted);
    PyObject_Free(self);
}

/* The answer as a set of frozensets (a borrowed reference, kept), or NULL with an error set. */
static PyObject *captures_set(Captures *self) {
    if (self->set != NULL) return self->set;
    PyObject *out = PySet_New(NULL);
    if (out == NULL) return NULL;
    for (Py_ssize_t c = 0; c < Py_SIZE(self); c++) {
        PyObject *capture = frozenset_of(self->masks[c]);
        int added = capture == NULL ? -1 : PySet_Add(out, capture);
        Py_XDECREF(capture);
        if (added < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    if (self->set == NULL) self->set = out; /* (building may have run code that asked it too) */
    else Py_DECREF(out);
    return self->set;
}

static int mask_order(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Whether the answer holds the capture of card mask `cards`: 1, 0, or -1 with an error set. */
static int captures_has(Captures *self, uint64_t cards) {
    Py_ssize_t n = Py_SIZE(self);
    if (n <= LOOKUP_LINEAR) {
        for (Py_ssize_t c = 0; c < n; c++)
            if (self->masks[c] == cards) return 1;
        return 0;
    }
    if (self->sorted == NULL) {
        uint64_t *sorted = PyMem_Malloc(sizeof(uint64_t) * (size_t)n);
        if (sorted == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(sorted, self->masks, sizeof(uint64_t) * (size_t)n);
        qsort(sorted, (size_t)n, sizeof(uint64_t), mask_order);
        self->sorted = sorted;
    }
    Py_ssize_t low = 0, high = n;
    while (low < high) {
        Py_ssize_t middle = (low + high) / 2;
        if (self->sorted[middle] < cards) low = middle + 1;
        else high = middle;
    }
    return low < n && self->sorted[low] == cards;
}

/* The card mask of `x` if it is a set or frozenset of the 52 interned cards: 1; 0 if it is
   anything else (only the answer as a set can tell whether it equals a capture); -1 with an
   error set. */
static int mask_of_cards(PyObject *x, uint64_t *out) {
    if (!PyAnySet_Check(x) || card_type == NULL) return 0;
    PyObject *items = PyObject_GetIter(x), *item;
    if (items == NULL) return -1;
    uint64_t cards = 0;
    int clean = 1;
    while (clean && (item = PyIter_Next(items)) != NULL) {
        int index = Py_TYPE(item) == card_type ? card_index(item) : -1;
        Py_DECREF(item);
        if (index < 0) clean = 0;
        else cards |= 1ull << index;
    }
    Py_DECREF(items);
    if (PyErr_Occurred()) return -1;
    *out = cards;
    return clean;
}

static Py_ssize_t captures_length(Captures *self) { return Py_SIZE(self); }

static int captures_contains(Captures *self, PyObject *x) {
    uint64_t cards;
    int clean = mask_of_cards(x, &cards);
    if (clean != 0) return clean < 0 ? -1 : captures_has(self, cards);
    PyObject *set = captures_set(self); /* `in` of a set: a set looked up as a frozenset */
    return set == NULL ? -1 : PySequence_Contains(set, x);
}

/* `self == other` for a set or frozenset `other`: 1, 0, 2 (only the answer as a set can
   tell), or -1 with an error set. */
static int captures_equal_set(Captures *self, PyObject *other) {
    if (PySet_GET_SIZE(other) != Py_SIZE(self)) return 0;
    PyObject *items = PyObject_GetIter(other), *item;
    if (items == NULL) return -1;
    int equal = 1;
    while (equal == 1 && (item = PyIter_Next(items)) != NULL) {
        uint64_t cards;
        int clean = mask_of_cards(item, &cards);
        Py_DECREF(item);
        equal = clean < 0 ? -1 : clean == 0 ? 2 : captures_has(self, cards);
    }
    Py_DECREF(items);
    return PyErr_Occurred() ? -1 : equal; /* the sizes are equal and a set's items distinct */
}

/* `self == other` for another answer: 1, 0, or -1 with an error set. */
static int captures_equal(Captures *self, Captures *other) {
    if (Py_SIZE(self) != Py_SIZE(other)) return 0;
    for (Py_ssize_t c = 0; c < Py_SIZE(other); c++) {
        int has = captures_has(self, other->masks[c]);
        if (has <= 0) return has;
    }
    return 1;
}

/* `x` as a set if it is an answer (a borrowed reference; NULL with an error set), else `x`. */
static PyObject *as_set(PyObject *x) {
    return Py_TYPE(x) == &CapturesType ? captures_set((Captures *)x) : x;
}

static PyObject *captures_richcompare(PyObject *self, PyObject *other, int op) {
    if (op == Py_EQ || op == Py_NE) {
        int equal = 2;
        if (Py_TYPE(other) == &CapturesType)
            equal = captures_equal((Captures *)self, (Captures *)other);
        else if (PyAnySet_Check(other))
            equal = captures_equal_set((Captures *)self, other);
        if (equal < 0) return NULL;
        if (equal < 2) return PyBool_FromLong(equal == (op == Py_EQ));
    }
    PyObject *set = as_set(self), *with = set == NULL ? NULL : as_set(other);
    return with == NULL ? NULL : PyObject_RichCompare(set, with, op);
}

/* `&`, `|`, `-` and `^` as the answer as a set answers them (a new set, or NotImplemented). */
#define SET_OPERATOR(name, number)                                                         \
    static PyObject *name(PyObject *a, PyObject *b) {                                      \
        PyObject *x = as_set(a), *y = x == NULL ? NULL : as_set(b);                        \
        return y == NULL ? NULL : number(x, y);                                            \
    }
SET_OPERATOR(captures_and, PyNumber_And)
SET_OPERATOR(captures_or, PyNumber_Or)
SET_OPERATOR(captures_sub, PyNumber_Subtract)
SET_OPERATOR(captures_xor, PyNumber_Xor)

/* The set's methods that make no change, as the answer as a set answers them. */
#define SET_METHOD(name, method)                                                           \
    static PyObject *name(Captures *self, PyObject *args) {                                \
        PyObject *set = captures_set(self), *bound;                                        \
        if (set == NULL || (bound = PyObject_GetAttrString(set, method)) == NULL) return NULL; \
        PyObject *out = PyObject_Call(bound, args, NULL);                                  \
        Py_DECREF(bound);                                                                  \
        return out;                                                                        \
    }
SET_METHOD(captures_isdisjoint, "isdisjoint")
SET_METHOD(captures_issubset, "issubset")
SET_METHOD(captures_issuperset, "issuperset")
SET_METHOD(captures_union, "union")
SET_METHOD(captures_intersection, "intersection")
SET_METHOD(captures_difference, "difference")
SET_METHOD(captures_symmetric_difference, "symmetric_difference")
SET_METHOD(captures_copy, "copy")

static PyObject *captures_reduce(Captures *self, PyObject *unused) {
    (void)unused;
    PyObject *set = captures_set(self); /* pickled and copied as the set it is */
    return set == NULL ? NULL : Py_BuildValue("O(O)", (PyObject *)&PySet_Type, set);
}

static PyObject *captures_repr(Captures *self) {
    PyObject *set = captures_set(self);
    return set == NULL ? NULL : PyObject_Repr(set);
}

static PyObject *captures_iter(Captures *self) {
    CapturesIter *it = PyObject_New(CapturesIter, &CapturesIterType);
    if (it == NULL) return NULL;
    it->of = (Captures *)Py_NewRef(self);
    it->next = 0;
    return (PyObject *)it;
}

static void capturesiter_dealloc(CapturesIter *self) {
    Py_DECREF(self->of);
    PyObject_Free(self);
}

static PyObject *capturesiter_next(CapturesIter *self) {
    if (self->next >= Py_SIZE(self->of)) return NULL;
    return frozenset_of(self->of->masks[self->next++]);
}

static PyObject *capturesiter_length_hint(CapturesIter *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromSsize_t(Py_SIZE(self->of) - self->next);
}

static PyMethodDef capturesiter_methods[] = {
    {"__length_hint__", (PyCFunction)capturesiter_length_hint, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CapturesIterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kafana.games.tablic._ccore.CapturesIterator",
    .tp_basicsize = sizeof(CapturesIter),
    .tp_dealloc = (destructor)capturesiter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)capturesiter_next,
    .tp_methods = capturesiter_methods,
};

static PyMethodDef captures_methods[] = {
    {"isdisjoint", (PyCFunction)captures_isdisjoint, METH_VARARGS, "As set.isdisjoint."},
    {"issubset", (PyCFunction)captures_issubset, METH_VARARGS, "As set.issubset."},
    {"issuperset", (PyCFunction)captures_issuperset, METH_VARARGS, "As set.issuperset."},
    {"union", (PyCFunction)captures_union, METH_VARARGS, "As set.union: a new set."},
    {"intersection", (PyCFunction)captures_intersection, METH_VARARGS, "As set.intersection."},
    {"difference", (PyCFunction)captures_difference, METH_VARARGS, "As set.difference."},
    {"symmetric_difference", (PyCFunction)captures_symmetric_difference, METH_VARARGS,
     "As set.symmetric_difference."},
    {"copy", (PyCFunction)captures_copy, METH_VARARGS, "The answer as a new (mutable) set."},
    {"__reduce__", (PyCFunction)captures_reduce, METH_NOARGS, "Pickled as a set."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods captures_sequence = {
    .sq_length = (lenfunc)captures_length,
    .sq_contains = (objobjproc)captures_contains,
};

static PyNumberMethods captures_number = {
    .nb_subtract = captures_sub,
    .nb_and = captures_and,
    .nb_xor = captures_xor,
    .nb_or = captures_or,
};

static PyTypeObject CapturesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kafana.games.tablic._ccore.Captures",
    .tp_basicsize = offsetof(Captures, masks),
    .tp_itemsize = sizeof(uint64_t),
    .tp_dealloc = (destructor)captures_dealloc,
    .tp_repr = (reprfunc)captures_repr,
    .tp_as_number = &captures_number,
    .tp_as_sequence = &captures_sequence,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "captures()' answer: a Set of frozensets of cards, kept as card masks (_ccore.c).",
    .tp_richcompare = captures_richcompare,
    .tp_iter = (getiterfunc)captures_iter,
    .tp_methods = captures_methods,
};

/* The answer's types ready and in the module `m`: 0, or -1 with an error set. */
static int add_captures_types(PyObject *m) {
    if (PyType_Ready(&CapturesType) < 0 || PyType_Ready(&CapturesIterType) < 0) return -1;
    return PyModule_AddObjectRef(m, "Captures", (PyObject *)&CapturesType);
}

/* A table of cards read for the search: its cards' indexes and ranks by position. */
typedef struct {
    Table t;
    int index[52], rank[52];
} CardTable;

/* Read `n` items (n <= 51) as a table; -1 if one is not a card or is already `seen`. */
static int read_table(CardTable *c, PyObject **items, Py_ssize_t n, const uint8_t *params,
                      uint64_t seen) {
    c->t.n = (int)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = items[i];
        int index = Py_TYPE(item) == card_type ? card_index(item) : -1;
        if (index < 0 || (seen >> index & 1)) return -1; /* Python names the error */
        seen |= 1ull << index;
        c->index[i] = index;
        c->rank[i] = index / 4 + 1;
        fill_values(&c->t, (int)i, c->rank[i], params);
    }
    table_ready(&c->t);
    return 0;
}

/* The captures of the card of index `played` on `c` into `out` (sorted if `sort`); their
   count, or -1 where Python must answer (past the bounds). */
static int card_captures(CardTable *c, int played, const uint8_t *params, int rank_priority,
                         int sort, uint64_t *out) {
    int n = c->t.n, played_rank = played / 4 + 1;
    uint64_t same_rank = 0;
    for (int i = 0; i < n; i++)
        if (c->rank[i] == played_rank) same_rank |= 1ull << i;
    c->t.nodes = 0;
    set_clear(&results_set);
    if (n > 0) {
        if (params[0] && played_rank == JACK) {
            set_add(&results_set, (1ull << n) - 1); /* the whole table (n < 52) */
        } else {
            const uint8_t *pv = params + 2 + 3 * (played_rank - 1);
            for (int v = 0; v < pv[0]; v++)
                if (list_value(&c->t, pv[1 + v], same_rank, params[1]) < 0) return -1;
        }
    }
    return kept_results(same_rank, rank_priority, sort, out);
}

/* The items of a tuple or a list (the list's must not change while they are read). */
static PyObject **items_of(PyObject *sequence, Py_ssize_t *n) {
    if (PyTuple_CheckExact(sequence)) {
        *n = PyTuple_GET_SIZE(sequence);
        return &PyTuple_GET_ITEM(sequence, 0);
    }
    if (PyList_CheckExact(sequence)) {
        *n = PyList_GET_SIZE(sequence);
        return PySequence_Fast_ITEMS(sequence);
    }
    return NULL;
}

static const uint8_t *params_of(PyObject *params) {
    if (!PyBytes_CheckExact(params) || PyBytes_GET_SIZE(params) != PARAMS_SIZE) return NULL;
    return (const uint8_t *)PyBytes_AS_STRING(params);
}

static PyObject *fast_captures(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4 || card_type == NULL || buffers_busy) Py_RETURN_NONE;
    PyObject *card = args[0];
    int rank_priority = PyObject_IsTrue(args[3]);
    if (rank_priority < 0) return NULL;
    const uint8_t *params = params_of(args[2]);
    if (Py_TYPE(card) != card_type || params == NULL) Py_RETURN_NONE;
    Py_ssize_t n = 0;
    PyObject **items = items_of(args[1], &n);
    int played = card_index(card);
    CardTable c;
    if (items == NULL || n > 51 || played < 0 || read_table(&c, items, n, params, 1ull << played) < 0)
        Py_RETURN_NONE;
    /* From here on the table is read from `c` (indexes), not from `items`. */
    buffers_busy = 1;
    int count = card_captures(&c, played, params, rank_priority, 0, masks_buffer);
    PyObject *result = count < 0 ? Py_NewRef(Py_None) : captures_new(c.index, masks_buffer, count);
    buffers_busy = 0;
    return result;
}


/* -- MatchState's moves: listed and applied ---------------------------------------------- */

static PyTypeObject *move_type = NULL;
static PyObject *trail_moves[52];

static const int card_numbers[52] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17,
    18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,
    36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51,
}; /* card index -> itself: `capture_of` over masks of card indexes */

/* The Move of the card of index `card` taking the cards of `taken` (a mask of card indexes; 0:
   its trail), a new reference, made anew: a cache of moves by their cards does not pay in play
   (measured: random playouts ran 10-15% faster without the 65,536-slot one, whose hits were
   rare and misses cost an eviction). */
static PyObject *move_of(int card, uint64_t taken) {
    if (taken == 0) return Py_NewRef(trail_moves[card]);
    PyObject *captured = capture_of(card_numbers, taken);
    if (captured == NULL) return NULL;
    PyObject *move = move_type->tp_alloc(move_type, 2); /* tuple.__new__(Move, (card, taken)) */
    if (move == NULL) {
        Py_DECREF(captured);
        return NULL;
    }
    PyTuple_SET_ITEM(move, 0, Py_NewRef(card_objects[card]));
    PyTuple_SET_ITEM(move, 1, captured);
    return untracked(move);
}

/* -- MoveList: a state's legal moves, kept as cards and made into Moves when asked ----------- */

/* One listed move: the played card's index, the captured cards' mask of indexes (0: a trail)
   and the Move once made (kept: asked twice, the same object). */
typedef struct {
    uint64_t taken;
    PyObject *move;
    int card;
} Listed;

typedef struct {
    PyObject_VAR_HEAD Py_ssize_t kept; /* Moves made at positions below it are kept */
    Listed entries[1];
} MoveList;

static PyTypeObject MoveListType;

/* The Move at `i` (in range), made on first use (and kept below `kept`): a new reference. */
static PyObject *listed_move(MoveList *self, Py_ssize_t i) {
    Listed *entry = &self->entries[i];
    if (entry->move != NULL) return Py_NewRef(entry->move);
    PyObject *move = move_of(entry->card, entry->taken);
    if (move == NULL || i >= self->kept) return move;
    if (entry->move == NULL) { /* (a finalizer the allocation ran may have made it meanwhile) */
        entry->move = Py_NewRef(move);
        return move;
    }
    Py_DECREF(move);
    return Py_NewRef(entry->move);
}

/* Whether `x` is a (card, frozenset of cards) pair of interned cards: its card index and the
   captured cards' mask. 0 where it is not (or not one this can read without calling Python). */
static int pair_cards(PyObject *x, int *card, uint64_t *taken) {
    if (!PyTuple_Check(x) || PyTuple_GET_SIZE(x) != 2) return 0;
    PyObject *first = PyTuple_GET_ITEM(x, 0), *second = PyTuple_GET_ITEM(x, 1);
    if (Py_TYPE(first) != card_type || (*card = card_index(first)) < 0) return 0;
    if (!PyFrozenSet_CheckExact(second)) return 0; /* (a set may hold deleted entries) */
    uint64_t mask = 0;
    if (PySet_GET_SIZE(second) > 0) { /* its keys by the set's own iterator: no Python code */
        PyObject *keys = PyObject_GetIter(second), *key;
        if (keys == NULL) {
            PyErr_Clear();
            return 0;
        }
        int index = 0;
        while (index >= 0 && (key = PyIter_Next(keys)) != NULL) {
            index = Py_TYPE(key) == card_type ? card_index(key) : -1;
            if (index >= 0) mask |= 1ull << index;
            Py_DECREF(key);
        }
        Py_DECREF(keys);
        if (index < 0 || PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
    }
    *taken = mask;
    return 1;
}

/* The position of `move` in the listing: by identity, else (a pair of cards) by its cards;
   -1 where it is not listed, -2 where only Python's comparison can tell. */
static Py_ssize_t listed_at(MoveList *self, PyObject *move) {
    for (Py_ssize_t i = 0; i < Py_SIZE(self); i++)
        if (self->entries[i].move == move) return i;
    int card;
    uint64_t taken;
    if (!pair_cards(move, &card, &taken)) return -2;
    for (Py_ssize_t i = 0; i < Py_SIZE(self); i++)
        if (self->entries[i].card == card && self->entries[i].taken == taken) return i;
    return -1;
}

static void movelist_dealloc(MoveList *self) {
    for (Py_ssize_t i = 0; i < Py_SIZE(self); i++) Py_XDECREF(self->entries[i].move);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t movelist_length(MoveList *self) { return Py_SIZE(self); }

static PyObject *movelist_item(MoveList *self, Py_ssize_t i) {
    if (i < 0 || i >= Py_SIZE(self)) {
        PyErr_SetString(PyExc_IndexError, "move index out of range");
        return NULL;
    }
    return listed_move(self, i);
}

/* A list of the moves from `start`, `step` by `step`, `count` of them. */
static PyObject *movelist_slice(MoveList *self, Py_ssize_t start, Py_ssize_t step,
                                Py_ssize_t count) {
    PyObject *out = PyList_New(count);
    if (out == NULL) return NULL;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *move = listed_move(self, start + k * step);
        if (move == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k, move);
    }
    return out;
}

static PyObject *movelist_subscript(MoveList *self, PyObject *key) {
    if (PySlice_Check(key)) {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(key, &start, &stop, &step) < 0) return NULL;
        Py_ssize_t count = PySlice_AdjustIndices(Py_SIZE(self), &start, &stop, step);
        return movelist_slice(self, start, step, count);
    }
    if (!PyIndex_Check(key)) {
        PyErr_Format(PyExc_TypeError, "move indices must be integers or slices, not %.200s",
                     Py_TYPE(key)->tp_name);
        return NULL;
    }
    Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred()) return NULL;
    return movelist_item(self, i < 0 ? i + Py_SIZE(self) : i);
}

/* How many listed moves equal `x` (1 at most: a listing holds each move once), or, with
   `first`, its position (-1: none); -2 with an error set. */
static Py_ssize_t movelist_find(MoveList *self, PyObject *x, int first) {
    Py_ssize_t at = listed_at(self, x);
    if (at != -2) return first ? at : at >= 0;
    for (Py_ssize_t i = 0; i < Py_SIZE(self); i++) { /* something else: Python compares */
        PyObject *move = listed_move(self, i);
        int same = move == NULL ? -1 : PyObject_RichCompareBool(move, x, Py_EQ);
        Py_XDECREF(move);
        if (same < 0) return -2;
        if (same) return first ? i : 1;
    }
    return first ? -1 : 0;
}

static int movelist_contains(MoveList *self, PyObject *x) {
    Py_ssize_t found = movelist_find(self, x, 0);
    return found == -2 ? -1 : found > 0;
}

static PyObject *movelist_index(MoveList *self, PyObject *x) {
    Py_ssize_t at = movelist_find(self, x, 1);
    if (at == -2) return NULL;
    if (at == -1) {
        PyErr_SetString(PyExc_ValueError, "the move is not listed");
        return NULL;
    }
    return PyLong_FromSsize_t(at);
}

static PyObject *movelist_count(MoveList *self, PyObject *x) {
    Py_ssize_t found = movelist_find(self, x, 0);
    return found == -2 ? NULL : PyLong_FromSsize_t(found);
}

static PyObject *movelist_list(MoveList *self) {
    return movelist_slice(self, 0, 1, Py_SIZE(self));
}

static PyObject *movelist_reduce(MoveList *self, PyObject *unused) {
    (void)unused;
    PyObject *moves = movelist_list(self);
    if (moves == NULL) return NULL;
    return Py_BuildValue("O(N)", (PyObject *)&PyList_Type, moves); /* pickled as a list */
}

/* Equal to a list or a MoveList of equal moves in the same order, as a list is. */
static PyObject *movelist_richcompare(PyObject *self, PyObject *other, int op) {
    if ((op != Py_EQ && op != Py_NE) ||
        (!PyList_Check(other) && Py_TYPE(other) != &MoveListType))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *mine = movelist_list((MoveList *)self), *theirs = NULL, *result = NULL;
    if (mine == NULL) return NULL;
    theirs = PyList_Check(other) ? Py_NewRef(other) : movelist_list((MoveList *)other);
    if (theirs != NULL) result = PyObject_RichCompare(mine, theirs, op);
    Py_DECREF(mine);
    Py_XDECREF(theirs);
    return result;
}

static PyObject *movelist_repr(MoveList *self) {
    PyObject *moves = movelist_list(self);
    if (moves == NULL) return NULL;
    PyObject *text = PyObject_Repr(moves);
    Py_DECREF(moves);
    return text;
}

static PySequenceMethods movelist_as_sequence = {
    .sq_length = (lenfunc)movelist_length,
    .sq_item = (ssizeargfunc)movelist_item,
    .sq_contains = (objobjproc)movelist_contains,
};

static PyMappingMethods movelist_as_mapping = {
    .mp_length = (lenfunc)movelist_length,
    .mp_subscript = (binaryfunc)movelist_subscript,
};

static PyMethodDef movelist_methods[] = {
    {"index", (PyCFunction)movelist_index, METH_O, "The position of a move (ValueError: none)."},
    {"count", (PyCFunction)movelist_count, METH_O, "How many times a move is listed (0 or 1)."},
    {"__reduce__", (PyCFunction)movelist_reduce, METH_NOARGS, "Pickled as a list."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject MoveListType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kafana.games.tablic._ccore.MoveList",
    .tp_doc = "A state's legal moves: an immutable sequence of Moves (a list's order, "
              "equality and repr), each Move made when first asked for.",
    .tp_basicsize = offsetof(MoveList, entries),
    .tp_itemsize = sizeof(Listed),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_SEQUENCE,
    .tp_dealloc = (destructor)movelist_dealloc,
    .tp_repr = (reprfunc)movelist_repr,
    .tp_as_sequence = &movelist_as_sequence,
    .tp_as_mapping = &movelist_as_mapping,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_richcompare = movelist_richcompare,
    .tp_methods = movelist_methods,
};

/* `params` of a state (`state_params`, 146 bytes): the 80 of `fast_params`, then players,
   partnerships, last_card_tabla, rank_priority, must_capture; whether `advance` may end a hand
   (the card points fit a byte), most_cards_points, most_cards_tie_to_last, tabla_points,
   jack_off_opening_table, the target (4 bytes, little-endian), the points of the 52 cards. */
#define STATE_PARAMS_SIZE (PARAMS_SIZE + 66)
enum {
    SP_PLAYERS = PARAMS_SIZE, SP_PARTNERS, SP_LAST_TABLA, SP_PRIORITY, SP_MUST, SP_ENDS,
    SP_MOST_POINTS, SP_MOST_TIE_TO_LAST, SP_TABLA_POINTS, SP_JACK_OFF, SP_TARGET,
    SP_POINTS = SP_TARGET + 4,
};

static const uint8_t *state_params_of(PyObject *params) {
    if (!PyBytes_CheckExact(params) || PyBytes_GET_SIZE(params) != STATE_PARAMS_SIZE) return NULL;
    return (const uint8_t *)PyBytes_AS_STRING(params);
}

/* The indexes of a hand's cards into `played`; their mask, or 0 where it is not a tuple of
   distinct cards (a hand is never empty while its seat is to move). */
static uint64_t read_hand_cards(PyObject *hand, int *played, Py_ssize_t *cards) {
    if (!PyTuple_CheckExact(hand) || PyTuple_GET_SIZE(hand) > 52) return 0;
    *cards = PyTuple_GET_SIZE(hand);
    uint64_t seen = 0;
    for (Py_ssize_t k = 0; k < *cards; k++) {
        PyObject *card = PyTuple_GET_ITEM(hand, k);
        played[k] = Py_TYPE(card) == card_type ? card_index(card) : -1;
        if (played[k] < 0 || (seen >> played[k] & 1)) return 0;
        seen |= 1ull << played[k];
    }
    return seen;
}

/* A table read from card indexes (`n` < 52 distinct ones) for the search. */
static void table_of_indexes(CardTable *c, const int *index, int n, const uint8_t *params) {
    c->t.n = n;
    for (int i = 0; i < n; i++) {
        c->index[i] = index[i];
        c->rank[i] = index[i] / 4 + 1;
        fill_values(&c->t, i, c->rank[i], params);
    }
    table_ready(&c->t);
}

/* The legal moves of the `cards` cards of `played` (card indexes, a seat's hand) on `c` as
   `MatchState._list_moves` lists them (per card its trail, then its captures in the order of
   their masks; only the captures when one is possible and required), a new MoveList keeping
   the first `kept` Moves once made; or None where Python must list (past the bounds). */
static PyObject *listed_moves(const int *played, Py_ssize_t cards, CardTable *c,
                              const uint8_t *params, Py_ssize_t kept) {
    if (move_type == NULL || buffers_busy) Py_RETURN_NONE;
    static Listed found[CAPTURE_LIMIT + 52]; /* `buffers_busy` while in use */
    int total = 0, captures = 0;
    buffers_busy = 1;
    int shared = prepare(&c->t, c->rank, played, (int)cards, params) == 0;
    for (Py_ssize_t k = 0; k < cards; k++) {
        int count = shared ? prepared_captures(played[k], params, params[SP_PRIORITY], 1, masks_buffer)
                           : card_captures(c, played[k], params, params[SP_PRIORITY], 1, masks_buffer);
        if (count < 0 || captures + count > CAPTURE_LIMIT) { /* past the bounds: Python lists */
            buffers_busy = 0;
            Py_RETURN_NONE;
        }
        found[total++] = (Listed){0, NULL, played[k]};
        for (int m = 0; m < count; m++) {
            uint64_t taken = 0;
            for (uint64_t at = masks_buffer[m]; at; at &= at - 1)
                taken |= 1ull << c->index[__builtin_ctzll(at)];
            found[total++] = (Listed){taken, NULL, played[k]};
        }
        captures += count;
    }
    int drop_trails = captures > 0 && params[SP_MUST];
    MoveList *out = PyObject_NewVar(MoveList, &MoveListType, drop_trails ? captures : total);
    if (out != NULL) {
        out->kept = kept;
        Py_ssize_t at = 0;
        for (int i = 0; i < total; i++)
            if (!drop_trails || found[i].taken != 0) out->entries[at++] = found[i];
    }
    buffers_busy = 0;
    return (PyObject *)out;
}

/* `listed_moves` of `hand` on `table` (tuples of cards), or None where Python must list. */
static PyObject *list_moves(PyObject *hand, PyObject *table, PyObject *params_obj,
                            Py_ssize_t kept) {
    if (card_type == NULL || move_type == NULL || buffers_busy) Py_RETURN_NONE;
    const uint8_t *params = state_params_of(params_obj);
    Py_ssize_t n, cards = 0;
    PyObject **items = items_of(table, &n);
    int played[52];
    if (params == NULL || items == NULL || !PyTuple_CheckExact(table) || n > 51) Py_RETURN_NONE;
    uint64_t seen = read_hand_cards(hand, played, &cards);
    CardTable c;
    if (seen == 0 || read_table(&c, items, n, params, seen) < 0) Py_RETURN_NONE;
    return listed_moves(played, cards, &c, params, kept);
}

/* legal(hand, table, params): `list_moves` as a tuple of Moves, or None. */
static PyObject *fast_legal(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) Py_RETURN_NONE;
    PyObject *listed = list_moves(args[0], args[1], args[2], 0);
    if (listed == NULL || listed == Py_None) return listed;
    PyObject *moves = movelist_list((MoveList *)listed), *out = NULL;
    if (moves != NULL) out = PyList_AsTuple(moves);
    Py_XDECREF(moves);
    Py_DECREF(listed);
    return out;
}

/* -- MatchState's position: a C struct of its own (StateCore) ------------------------------ */

/* `MatchState._f`, the fields a move changes (`kafana.games.tablic.fields.Fields`), as the
   simulator's `Hand` (hands, table and deck as card indexes, piles as masks, the seat to move:
   -1 for None) plus the counters and scores. Its attributes read as Python's `PyFields` do:
   tuples made on first read and kept (`kept`), until the field changes; set from Python (the
   Python paths: a move not listed, `building`'s, `determinize`), a field is read into the
   struct and the value given kept. It also holds the match's history, the log of moves and
   the hands' results, which the transition extends. It holds only cards, ints, Moves,
   HandResults and tuples of them, none of which can refer back to it: no cycle can pass
   through it, so the cycle collector does not walk it. */
enum { K_HANDS, K_TABLE, K_DECK, K_PILES, K_TABLAS, K_SCORES, K_COUNT };

/* The position as the core keeps it: the simulator's `Hand` in bytes (a core stays under
   the small-object allocator's 512 bytes: 503), read into a `Hand` for `play` and back. */
typedef struct {
    uint64_t piles[4];
    uint8_t hands[4][52], table[52], deck[52];
    uint8_t hand_len[4], table_len, deck_len, n, sides, first, tablas[4];
    int8_t current, last_capturer; /* -1: None */
} Pos;

typedef struct {
    PyObject_HEAD
    uint64_t hand_no, move_count, vector;
    long long scores[4];
    Pos h;             /* first: the seat dealt first this hand (hand_no % players) */
    PyObject *params;  /* the rules (`state_params`, bytes of STATE_PARAMS_SIZE) */
    PyObject *log;     /* the moves so far: None, or (seat, move, the log before) */
    PyObject *results; /* the finished hands' scores: a tuple of HandResults */
    PyObject *kept[K_COUNT];
} StateCore;

static PyTypeObject StateCoreType;

/* A tuple of the `n` cards of `indexes` (card indexes). */
static PyObject *cards_of(const int *indexes, int n) {
    PyObject *out = card_tuple(n);
    if (out == NULL) return NULL;
    for (int i = 0; i < n; i++) PyTuple_SET_ITEM(out, i, Py_NewRef(card_objects[indexes[i]]));
    return out;
}

/* `cards_of` of a core's bytes. */
static PyObject *cards_of8(const uint8_t *indexes, int n) {
    int cards[52];
    for (int i = 0; i < n; i++) cards[i] = indexes[i];
    return cards_of(cards, n);
}

/* A core's position read into a `Hand` (what `play`, `deal` and the scoring read), and back:
   every hand and the deck where `seat` < 0, else only that seat's hand (a move that neither
   deals nor ends the hand reads and changes no other; `deck_len` stays right). */
static void pos_to_hand(const Pos *p, Hand *h, int seat) {
    h->n = p->n, h->sides = p->sides, h->first = p->first;
    h->current = p->current, h->last_capturer = p->last_capturer;
    for (int s = 0; s < p->n; s++) {
        h->side_of[s] = s % p->sides;
        h->hand_len[s] = p->hand_len[s];
        if (seat < 0 || s == seat)
            for (int k = 0; k < p->hand_len[s]; k++) h->hands[s][k] = p->hands[s][k];
    }
    h->table_len = p->table_len, h->deck_len = p->deck_len;
    for (int k = 0; k < p->table_len; k++) h->table[k] = p->table[k];
    if (seat < 0)
        for (int k = 0; k < p->deck_len; k++) h->deck[k] = p->deck[k];
    for (int s = 0; s < 4; s++) {
        h->piles[s] = p->piles[s];
        h->tablas[s] = p->tablas[s];
        h->cards[s] = h->points[s] = 0;
    }
}

static void pos_from_hand(Pos *p, const Hand *h, int seat) {
    p->first = (uint8_t)h->first;
    p->current = (int8_t)h->current, p->last_capturer = (int8_t)h->last_capturer;
    for (int s = 0; s < p->n; s++) {
        p->hand_len[s] = (uint8_t)h->hand_len[s];
        if (seat < 0 || s == seat)
            for (int k = 0; k < h->hand_len[s]; k++) p->hands[s][k] = (uint8_t)h->hands[s][k];
    }
    p->table_len = (uint8_t)h->table_len, p->deck_len = (uint8_t)h->deck_len;
    for (int k = 0; k < h->table_len; k++) p->table[k] = (uint8_t)h->table[k];
    if (seat < 0)
        for (int k = 0; k < h->deck_len; k++) p->deck[k] = (uint8_t)h->deck[k];
    for (int s = 0; s < 4; s++) {
        p->piles[s] = h->piles[s];
        p->tablas[s] = (uint8_t)h->tablas[s];
    }
}

/* StateCore(params): an empty position of the rules `params` (every field zero, no seat to
   move), whose fields Python or `start` then set. */
static PyObject *core_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *params_obj;
    if (kwds != NULL && PyDict_GET_SIZE(kwds) > 0) {
        PyErr_SetString(PyExc_TypeError, "StateCore(params) takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O:StateCore", &params_obj)) return NULL;
    const uint8_t *params = state_params_of(params_obj);
    if (params == NULL || params[SP_PLAYERS] < 2 || params[SP_PLAYERS] > 4) {
        PyErr_SetString(PyExc_ValueError, "StateCore needs a state's parameters (state_params)");
        return NULL;
    }
    StateCore *c = (StateCore *)type->tp_alloc(type, 0); /* zeroed */
    if (c == NULL) return NULL;
    Pos *h = &c->h;
    h->n = params[SP_PLAYERS];
    h->sides = params[SP_PARTNERS] ? 2 : h->n;
    h->current = h->last_capturer = -1;
    c->params = Py_NewRef(params_obj);
    c->log = Py_NewRef(Py_None);
    if ((c->results = PyTuple_New(0)) == NULL) Py_CLEAR(c);
    return (PyObject *)c;
}

static void core_forget(StateCore *c, int k) { Py_CLEAR(c->kept[k]); }

static void core_dealloc(StateCore *c) {
    for (int k = 0; k < K_COUNT; k++) Py_XDECREF(c->kept[k]);
    Py_XDECREF(c->params);
    Py_XDECREF(c->log);
    Py_XDECREF(c->results);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

/* A new core holding the values of `c`: its struct copied, its tuples shared. */
static StateCore *core_copy(StateCore *c) {
    StateCore *out = PyObject_New(StateCore, &StateCoreType);
    if (out == NULL) return NULL;
    memcpy((char *)out + sizeof(PyObject), (char *)c + sizeof(PyObject), sizeof(StateCore) - sizeof(PyObject));
    Py_INCREF(out->params);
    Py_INCREF(out->log);
    Py_INCREF(out->results);
    for (int k = 0; k < K_COUNT; k++) Py_XINCREF(out->kept[k]);
    return out;
}

static PyObject *core_copy_method(StateCore *self, PyObject *unused) {
    (void)unused;
    return (PyObject *)core_copy(self);
}

/* The kept tuple `k`, made by `make` on first read. */
static PyObject *core_kept(StateCore *c, int k, PyObject *(*make)(StateCore *)) {
    if (c->kept[k] == NULL && (c->kept[k] = make(c)) == NULL) return NULL;
    return Py_NewRef(c->kept[k]);
}

static PyObject *make_hands(StateCore *c) {
    PyObject *out = card_tuple(c->h.n);
    for (int s = 0; out != NULL && s < c->h.n; s++) {
        PyObject *cards = cards_of8(c->h.hands[s], c->h.hand_len[s]);
        if (cards == NULL) Py_CLEAR(out);
        else PyTuple_SET_ITEM(out, s, cards);
    }
    return out;
}
static PyObject *make_table(StateCore *c) { return cards_of8(c->h.table, c->h.table_len); }
static PyObject *make_deck(StateCore *c) { return cards_of8(c->h.deck, c->h.deck_len); }
static PyObject *make_tablas(StateCore *c) {
    int tablas[4];
    for (int s = 0; s < c->h.sides; s++) tablas[s] = c->h.tablas[s];
    return int_tuple(tablas, c->h.sides);
}

/* A tuple of the first `n` of `v` (u64 if `wide`, else long long). */
static PyObject *numbers(const void *v, int n, int wide) {
    PyObject *out = card_tuple(n);
    for (int s = 0; out != NULL && s < n; s++) {
        PyObject *x = wide ? PyLong_FromUnsignedLongLong(((const uint64_t *)v)[s])
                           : PyLong_FromLongLong(((const long long *)v)[s]);
        if (x == NULL) Py_CLEAR(out);
        else PyTuple_SET_ITEM(out, s, x);
    }
    return out;
}
static PyObject *make_piles(StateCore *c) { return numbers(c->h.piles, c->h.sides, 1); }
static PyObject *make_scores(StateCore *c) { return numbers(c->scores, c->h.sides, 0); }

static PyObject *get_hands(StateCore *c, void *u) { (void)u; return core_kept(c, K_HANDS, make_hands); }
static PyObject *get_table(StateCore *c, void *u) { (void)u; return core_kept(c, K_TABLE, make_table); }
static PyObject *get_deck(StateCore *c, void *u) { (void)u; return core_kept(c, K_DECK, make_deck); }
static PyObject *get_piles(StateCore *c, void *u) { (void)u; return core_kept(c, K_PILES, make_piles); }
static PyObject *get_tablas(StateCore *c, void *u) { (void)u; return core_kept(c, K_TABLAS, make_tablas); }
static PyObject *get_scores(StateCore *c, void *u) { (void)u; return core_kept(c, K_SCORES, make_scores); }
static PyObject *get_hand_no(StateCore *c, void *u) { (void)u; return PyLong_FromUnsignedLongLong(c->hand_no); }
static PyObject *get_move_count(StateCore *c, void *u) { (void)u; return PyLong_FromUnsignedLongLong(c->move_count); }
static PyObject *get_vector(StateCore *c, void *u) { (void)u; return PyLong_FromUnsignedLongLong(c->vector); }
static PyObject *get_current(StateCore *c, void *u) { (void)u; return optional(c->h.current); }
static PyObject *get_last_capturer(StateCore *c, void *u) { (void)u; return optional(c->h.last_capturer); }
static PyObject *get_log(StateCore *c, void *u) { (void)u; return Py_NewRef(c->log); }
static PyObject *get_results(StateCore *c, void *u) { (void)u; return Py_NewRef(c->results); }

static int no_delete(PyObject *value) {
    if (value != NULL) return 0;
    PyErr_SetString(PyExc_AttributeError, "a StateCore field cannot be deleted");
    return -1;
}

/* The cards of a tuple (at most `most`) into `out` by index; their count, or -1 with an
   error set. */
static int cards_into(PyObject *value, int *out, int most) {
    if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) > most) {
        PyErr_Format(PyExc_TypeError, "expected a tuple of at most %d cards", most);
        return -1;
    }
    int n = (int)PyTuple_GET_SIZE(value);
    for (int i = 0; i < n; i++) {
        PyObject *card = PyTuple_GET_ITEM(value, i);
        if ((out[i] = Py_TYPE(card) == card_type ? card_index(card) : -1) < 0) {
            PyErr_SetString(PyExc_TypeError, "expected cards");
            return -1;
        }
    }
    return n;
}

/* A tuple field set: `value` kept as its tuple. */
static void keep(StateCore *c, int k, PyObject *value) { Py_XSETREF(c->kept[k], Py_NewRef(value)); }

static int set_hands(StateCore *c, PyObject *value, void *u) {
    (void)u;
    int hands[4][52], lens[4];
    if (no_delete(value) < 0) return -1;
    if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) != c->h.n) {
        PyErr_SetString(PyExc_TypeError, "expected a hand (a tuple of cards) per seat");
        return -1;
    }
    for (int s = 0; s < c->h.n; s++)
        if ((lens[s] = cards_into(PyTuple_GET_ITEM(value, s), hands[s], 52)) < 0) return -1;
    for (int s = 0; s < c->h.n; s++) {
        for (int k = 0; k < lens[s]; k++) c->h.hands[s][k] = (uint8_t)hands[s][k];
        c->h.hand_len[s] = (uint8_t)lens[s];
    }
    keep(c, K_HANDS, value);
    return 0;
}

static int set_card_field(StateCore *c, PyObject *value, uint8_t *into, uint8_t *len, int k) {
    int cards[52], n;
    if (no_delete(value) < 0 || (n = cards_into(value, cards, 52)) < 0) return -1;
    for (int i = 0; i < n; i++) into[i] = (uint8_t)cards[i];
    *len = (uint8_t)n;
    keep(c, k, value);
    return 0;
}
static int set_table(StateCore *c, PyObject *v, void *u) { (void)u; return set_card_field(c, v, c->h.table, &c->h.table_len, K_TABLE); }
static int set_deck(StateCore *c, PyObject *v, void *u) { (void)u; return set_card_field(c, v, c->h.deck, &c->h.deck_len, K_DECK); }

/* A tuple of one int a side into `out` (kind 1: u64; 2: a byte, a hand's tablas; else long
   long). */
static int side_numbers(StateCore *c, PyObject *value, int k, void *out, int kind) {
    long long got[4];
    uint64_t wide[4];
    if (no_delete(value) < 0) return -1;
    if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) != c->h.sides) {
        PyErr_SetString(PyExc_TypeError, "expected a tuple of one int a side");
        return -1;
    }
    for (int s = 0; s < c->h.sides; s++) {
        PyObject *x = PyTuple_GET_ITEM(value, s);
        if (!PyLong_Check(x)) {
            PyErr_SetString(PyExc_TypeError, "expected ints");
            return -1;
        }
        if (kind == 1) wide[s] = PyLong_AsUnsignedLongLong(x);
        else got[s] = PyLong_AsLongLong(x);
        if (PyErr_Occurred()) return -1;
        if (kind == 2 && (got[s] < 0 || got[s] > 255)) {
            PyErr_SetString(PyExc_OverflowError, "a hand's tablas from 0 to 255");
            return -1;
        }
    }
    for (int s = 0; s < c->h.sides; s++) {
        if (kind == 1) ((uint64_t *)out)[s] = wide[s];
        else if (kind == 2) ((uint8_t *)out)[s] = (uint8_t)got[s];
        else ((long long *)out)[s] = got[s];
    }
    keep(c, k, value);
    return 0;
}
static int set_piles(StateCore *c, PyObject *v, void *u) { (void)u; return side_numbers(c, v, K_PILES, c->h.piles, 1); }
static int set_tablas(StateCore *c, PyObject *v, void *u) { (void)u; return side_numbers(c, v, K_TABLAS, c->h.tablas, 2); }
static int set_scores(StateCore *c, PyObject *v, void *u) { (void)u; return side_numbers(c, v, K_SCORES, c->scores, 0); }

static int u64_into(PyObject *value, uint64_t *out) {
    if (no_delete(value) < 0) return -1;
    if (!PyLong_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "expected an int");
        return -1;
    }
    uint64_t v = PyLong_AsUnsignedLongLong(value);
    if (v == (uint64_t)-1 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
}
static int set_hand_no(StateCore *c, PyObject *v, void *u) {
    (void)u;
    if (u64_into(v, &c->hand_no) < 0) return -1;
    c->h.first = (uint8_t)(c->hand_no % (uint64_t)c->h.n);
    return 0;
}
static int set_move_count(StateCore *c, PyObject *v, void *u) { (void)u; return u64_into(v, &c->move_count); }
static int set_vector(StateCore *c, PyObject *v, void *u) { (void)u; return u64_into(v, &c->vector); }

/* None, or an int from 0 to `most` - 1, into `out` (-1 for None). */
static int seat_into(PyObject *value, int most, int8_t *out) {
    if (no_delete(value) < 0) return -1;
    if (value == Py_None) {
        *out = -1;
        return 0;
    }
    long v = PyLong_Check(value) ? PyLong_AsLong(value) : -1;
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v >= most) {
        PyErr_Format(PyExc_ValueError, "expected None or an int from 0 to %d", most - 1);
        return -1;
    }
    *out = (int8_t)v;
    return 0;
}
static int set_current(StateCore *c, PyObject *v, void *u) { (void)u; return seat_into(v, c->h.n, &c->h.current); }
static int set_last_capturer(StateCore *c, PyObject *v, void *u) { (void)u; return seat_into(v, c->h.sides, &c->h.last_capturer); }

static int set_log(StateCore *c, PyObject *v, void *u) {
    (void)u;
    if (no_delete(v) < 0) return -1;
    if (v != Py_None && !PyTuple_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "expected None or a (seat, move, log) tuple");
        return -1;
    }
    Py_SETREF(c->log, Py_NewRef(v));
    return 0;
}
static int set_results(StateCore *c, PyObject *v, void *u) {
    (void)u;
    if (no_delete(v) < 0) return -1;
    if (!PyTuple_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "expected a tuple of HandResults");
        return -1;
    }
    Py_SETREF(c->results, Py_NewRef(v));
    return 0;
}

#define FIELD(name, doc) {#name, (getter)get_##name, (setter)set_##name, doc, NULL}
static PyGetSetDef core_getset[] = { /* the fields Python reads most first (`core_getattro`) */
    FIELD(current, "The seat to move, or None once the match is over."),
    FIELD(hand_no, "The hand being played, 0 first."),
    FIELD(hands, "Each seat's cards, sorted by index."),
    FIELD(table, "The cards face up, sorted by index."),
    FIELD(deck, "The cards not dealt yet, in deal order."),
    FIELD(piles, "Each side's captured cards this hand, a mask of card indexes."),
    FIELD(tablas, "Each side's tablas this hand."),
    FIELD(scores, "Each side's match points."),
    FIELD(move_count, "Moves played in the match."),
    FIELD(vector, "The table's rank counts (count_vector)."),
    FIELD(last_capturer, "The side that captured last this hand, or None."),
    FIELD(log, "The moves so far: None, or (seat, move, the log before)."),
    FIELD(results, "The finished hands' scores (HandResults)."),
    {NULL, NULL, NULL, NULL, NULL},
};

#define CORE_FIELDS (sizeof core_getset / sizeof *core_getset - 1)
static PyObject *core_names[CORE_FIELDS]; /* the fields' names, interned (`PyInit__ccore`) */

/* Attribute reads: a field named by an interned string (what compiled code and the
   interpreter pass) answered by its getter directly, without the type's attribute lookup
   (PyObject_GenericGetAttr's cost three times the getter's: 4% of a playout); any other name
   by PyObject_GenericGetAttr. */
static PyObject *core_getattro(PyObject *self, PyObject *name) {
    for (size_t i = 0; i < CORE_FIELDS; i++)
        if (name == core_names[i]) return core_getset[i].get(self, NULL);
    return PyObject_GenericGetAttr(self, name);
}

static PyMethodDef core_methods[] = {
    {"copy", (PyCFunction)core_copy_method, METH_NOARGS, "A new StateCore of the same values."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject StateCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kafana.games.tablic._ccore.StateCore",
    .tp_basicsize = sizeof(StateCore),
    .tp_dealloc = (destructor)core_dealloc,
    .tp_getattro = core_getattro,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A MatchState's position (fields.Fields) as a C struct: StateCore(params).",
    .tp_methods = core_methods,
    .tp_getset = core_getset,
    .tp_new = core_new,
};

/* The class of a finished hand's score (`set_result`), and its fields in the order of its
   constructor's arguments, interned (NULL: not set up). */
static PyObject *hand_result = NULL;
static const char *const result_fields[] = {"hand",   "cards",  "card_points", "most_cards",
                                            "tablas", "points", "last_capturer"};
#define RESULT_FIELDS 7
static PyObject *result_names[RESULT_FIELDS];
static PyObject *deck_name = NULL; /* "deck", interned: `MatchSetup.deck` */
static PyObject *no_args = NULL;

/* set_result(HandResult): the class of a finished hand's score, which `advance` makes. */
static PyObject *set_result(PyObject *self, PyObject *result_type) {
    (void)self;
    if (!PyType_Check(result_type)) {
        PyErr_SetString(PyExc_TypeError, "set_result(HandResult) takes the class");
        return NULL;
    }
    if (no_args == NULL && (no_args = PyTuple_New(0)) == NULL) return NULL;
    if (deck_name == NULL && (deck_name = PyUnicode_InternFromString("deck")) == NULL) return NULL;
    for (int i = 0; i < RESULT_FIELDS; i++)
        if (result_names[i] == NULL && (result_names[i] = PyUnicode_InternFromString(result_fields[i])) == NULL)
            return NULL;
    Py_INCREF(result_type);
    Py_XSETREF(hand_result, result_type);
    Py_RETURN_NONE;
}

/* A new HandResult of `values` (its fields in order), made as its frozen dataclass `__init__`
   makes it, `object.__new__` then `object.__setattr__` for each field, without the Python
   frame of that `__init__` (1% of a playout); a class with a `__new__` of its own is called. */
static PyObject *new_result(PyObject *const *values) {
    PyTypeObject *type = (PyTypeObject *)hand_result;
    if (type->tp_new != PyBaseObject_Type.tp_new) return PyObject_Vectorcall(hand_result, values, RESULT_FIELDS, NULL);
    PyObject *record = type->tp_new(type, no_args, NULL);
    for (int i = 0; record != NULL && i < RESULT_FIELDS; i++)
        if (PyObject_GenericSetAttr(record, result_names[i], values[i]) < 0) Py_CLEAR(record);
    return record;
}

/* -- MatchState's transition on its StateCore ----------------------------------------------- */

/* `MatchState._start_hand` on `c`, whose position is read into `h`: hand `hand_no` from
   `setup.deck(hand_no)`, the table opened (a jack under the deck with
   `jack_off_opening_table`) and the first round dealt, into `h` (the caller writes it back). */
static int core_start(StateCore *c, Hand *h, PyObject *setup, uint64_t hand_no,
                      const uint8_t *params) {
    PyObject *number = PyLong_FromUnsignedLongLong(hand_no);
    PyObject *call[2] = {setup, number};
    PyObject *deck = number == NULL ? NULL : PyObject_VectorcallMethod(deck_name, call, 2, NULL);
    Py_XDECREF(number);
    if (deck == NULL) return -1;
    int cards[2 * 52], table[4], result = -1;
    Py_ssize_t n = PyTuple_CheckExact(deck) ? PyTuple_GET_SIZE(deck) : -1;
    if (n < 4 || n > 52) {
        PyErr_SetString(PyExc_ValueError, "a hand's deck must be a tuple of up to 52 cards");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *card = PyTuple_GET_ITEM(deck, i);
        if ((cards[i] = Py_TYPE(card) == card_type ? card_index(card) : -1) < 0) {
            PyErr_SetString(PyExc_TypeError, "a deck holds only cards");
            goto done;
        }
    }
    int head = 0, tail = (int)n, opened = 0;
    while (opened < 4 && head < tail && tail < 2 * 52) { /* a J may go under the deck */
        int index = cards[head++];
        if (params[SP_JACK_OFF] && index / 4 + 1 == JACK) cards[tail++] = index;
        else table[opened++] = index;
    }
    if (opened < 4 || tail - head > 52) {
        PyErr_SetString(PyExc_ValueError, "a hand's deck must open four cards");
        goto done;
    }
    sort_ints(table, 4);
    memcpy(h->table, table, sizeof table);
    h->table_len = 4;
    h->deck_len = tail - head;
    memcpy(h->deck, cards + head, sizeof(int) * (size_t)h->deck_len);
    for (int s = 0; s < 4; s++) h->piles[s] = 0, h->tablas[s] = h->cards[s] = h->points[s] = 0;
    h->last_capturer = -1;
    c->hand_no = hand_no;
    c->vector = hand_vector(h);
    h->first = (int)(hand_no % (uint64_t)h->n);
    deal(h);
    for (int k = 0; k < K_COUNT; k++)
        if (k != K_SCORES) core_forget(c, k);
    result = 0;
done:
    Py_DECREF(deck);
    return result;
}

/* `MatchState._finish_hand` on `c`, whose hand `play` just ended on `h` (the leftovers already
   in the last capturer's pile, the table empty): the hand scored (its result added to the
   core's), then the match over or the next hand dealt, into `h`. */
static int core_finish(StateCore *c, Hand *h, PyObject *setup, const uint8_t *params) {
    int sides = h->sides, last = h->last_capturer;
    int counts[4], card_points[4], most[4] = {0, 0, 0, 0}, points[4];
    long best = -1, leaders = 0, last_leads = 0;
    for (int s = 0; s < sides; s++) {
        counts[s] = __builtin_popcountll(h->piles[s]);
        card_points[s] = 0;
        for (uint64_t m = h->piles[s]; m; m &= m - 1)
            card_points[s] += params[SP_POINTS + __builtin_ctzll(m)];
        if (counts[s] > best) best = counts[s];
    }
    for (int s = 0; s < sides; s++)
        if (counts[s] == best) {
            leaders++;
            last_leads |= s == last;
        }
    for (int s = 0; s < sides; s++)
        if (counts[s] == best && (leaders == 1 || (params[SP_MOST_TIE_TO_LAST] && last_leads && s == last)))
            most[s] = params[SP_MOST_POINTS];
    long long target = (long long)params[SP_TARGET] | (long long)params[SP_TARGET + 1] << 8 |
                       (long long)params[SP_TARGET + 2] << 16 | (long long)params[SP_TARGET + 3] << 24;
    long long top = LLONG_MIN;
    int at_top = 0;
    for (int s = 0; s < sides; s++) {
        points[s] = card_points[s] + most[s] + h->tablas[s] * params[SP_TABLA_POINTS];
        c->scores[s] += points[s];
        if (c->scores[s] > top) top = c->scores[s], at_top = 0;
        at_top += c->scores[s] == top;
    }
    core_forget(c, K_SCORES);
    PyObject *args[RESULT_FIELDS];
    args[0] = PyLong_FromUnsignedLongLong(c->hand_no);
    args[1] = int_tuple(counts, sides);
    args[2] = int_tuple(card_points, sides);
    args[3] = int_tuple(most, sides);
    args[4] = int_tuple(h->tablas, sides);
    args[5] = int_tuple(points, sides);
    args[6] = optional(last);
    int made = 1;
    for (int i = 0; i < RESULT_FIELDS; i++) made &= args[i] != NULL;
    PyObject *record = made ? new_result(args) : NULL;
    for (int i = 0; i < RESULT_FIELDS; i++) Py_XDECREF(args[i]);
    if (record == NULL) return -1;
    Py_ssize_t before = PyTuple_GET_SIZE(c->results);
    PyObject *more = PyTuple_New(before + 1);
    if (more == NULL) {
        Py_DECREF(record);
        return -1;
    }
    for (Py_ssize_t i = 0; i < before; i++) PyTuple_SET_ITEM(more, i, Py_NewRef(PyTuple_GET_ITEM(c->results, i)));
    PyTuple_SET_ITEM(more, before, record);
    Py_SETREF(c->results, more);
    if (top >= target && at_top == 1) { /* the match is over: the hand's piles stay */
        h->current = -1;
        for (int s = 0; s < h->n; s++) h->hand_len[s] = 0;
        core_forget(c, K_HANDS);
        return 0;
    }
    return core_start(c, h, setup, c->hand_no + 1, params);
}

/* Whether the listed move of `card` taking `taken` (a mask of card indexes) plays a card of
   the hand of the seat to move and takes only cards on the table: what the state's own
   listing guarantees, checked before the next state is built from it (a state whose listing
   no longer fits its position is left to Python). `taken_at`: the taken table positions. */
static int core_move_fits(const Pos *h, int card, uint64_t taken, uint64_t *taken_at) {
    int seat = h->current, held = 0;
    for (int k = 0; k < h->hand_len[seat] && !held; k++) held = h->hands[seat][k] == card;
    if (!held) return 0;
    uint64_t on_table = 0, at = 0;
    for (int k = 0; k < h->table_len; k++) {
        on_table |= 1ull << h->table[k];
        if (taken >> h->table[k] & 1) at |= 1ull << k;
    }
    *taken_at = at;
    return (taken & ~on_table) == 0;
}

/* advance(core, legal, move, setup): the position after `move` (`MatchState._advance`'s), a
   new StateCore, where `core` is a StateCore, `legal` its position's C listing (a MoveList) and
   `move` one of its Moves (the same object, or one of the same cards), `setup` the match's
   MatchSetup (whose `deck` deals a next hand); else None (the Python path checks the move, or
   ends a hand whose card points do not fit the parameters). The next position is a copy of the
   struct that `play` plays on, its log extended: no tuple is made for the position until
   Python reads one, and no MatchState field is touched (mypyc's code wraps the new core). */
static PyObject *fast_advance(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "advance(core, legal, move, setup) takes four arguments");
        return NULL;
    }
    PyObject *legal = args[1], *move = args[2], *setup = args[3];
    if (Py_TYPE(args[0]) != &StateCoreType || card_type == NULL || hand_result == NULL ||
        Py_TYPE(legal) != &MoveListType || Py_TYPE(move) != move_type)
        Py_RETURN_NONE;
    Py_ssize_t at = listed_at((MoveList *)legal, move);
    if (at < 0) Py_RETURN_NONE;
    Listed entry = ((MoveList *)legal)->entries[at];
    StateCore *core = (StateCore *)args[0];
    const uint8_t *params = (const uint8_t *)PyBytes_AS_STRING(core->params);
    const Pos *h = &core->h;
    uint64_t taken_at = 0;
    int holding = 0;
    for (int s = 0; s < h->n; s++) holding += h->hand_len[s];
    if (h->current < 0 || !core_move_fits(h, entry.card, entry.taken, &taken_at) ||
        (holding == 1 && h->deck_len == 0 && !params[SP_ENDS])) /* Python scores it */
        Py_RETURN_NONE;
    PyObject *seat = PyLong_FromLong(h->current);
    if (seat == NULL) return NULL;
    PyObject *log = untracked(PyTuple_Pack(3, seat, move, core->log));
    Py_DECREF(seat);
    if (log == NULL) return NULL;
    StateCore *next = core_copy(core);
    if (next == NULL) {
        Py_DECREF(log);
        return NULL;
    }
    Py_SETREF(next->log, log);
    Hand g;
    int only = holding == 1 ? -1 : h->current; /* the round's last card: a deal, or the hand's end */
    pos_to_hand(h, &g, only);
    next->move_count++;
    SimRules rules = {params, params + SP_POINTS, 0, params[SP_LAST_TABLA], 0, 0};
    play(&g, &rules, entry.card, taken_at);
    /* what the move changed is forgotten (the copy shares the tuples of what it did not) */
    core_forget(next, K_HANDS);
    core_forget(next, K_TABLE);
    if (taken_at || g.current < 0) {
        core_forget(next, K_PILES);
        core_forget(next, K_TABLAS);
    }
    if (g.deck_len != h->deck_len) core_forget(next, K_DECK);
    /* the hand over: scored as `_finish_hand` scores it, then the next one dealt */
    if (g.current < 0 && core_finish(next, &g, setup, params) < 0) {
        Py_DECREF(next);
        return NULL;
    }
    next->vector = hand_vector(&g);
    pos_from_hand(&next->h, &g, only);
    return (PyObject *)next;
}

/* start(core, setup): `MatchState._start_hand(0)` on the position of a match `new_match` is
   making (its scores set): the first hand of `setup` dealt in C, True; False where `core` is
   not a StateCore (Python deals). */
static PyObject *fast_start(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "start(core, setup) takes two arguments");
        return NULL;
    }
    if (Py_TYPE(args[0]) != &StateCoreType || card_type == NULL || deck_name == NULL)
        Py_RETURN_FALSE;
    StateCore *core = (StateCore *)args[0];
    Hand h;
    pos_to_hand(&core->h, &h, -1);
    if (core_start(core, &h, args[1], 0, (const uint8_t *)PyBytes_AS_STRING(core->params)) < 0)
        return NULL;
    core->vector = hand_vector(&h);
    pos_from_hand(&core->h, &h, -1);
    Py_RETURN_TRUE;
}

/* moves(core, kept_moves): the legal moves of the seat to move of a StateCore as
   `MatchState._list_moves` lists them (`_ccore.legal`'s listing, a MoveList keeping its first
   `kept_moves` Moves once made); None where Python lists (the match over, `core` not a
   StateCore, or past the bounds). */
static PyObject *fast_moves(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "moves(core, kept_moves) takes two arguments");
        return NULL;
    }
    Py_ssize_t moves_kept = PyLong_AsSsize_t(args[1]);
    if (moves_kept == -1 && PyErr_Occurred()) return NULL;
    if (Py_TYPE(args[0]) != &StateCoreType || card_type == NULL) Py_RETURN_NONE;
    const Pos *h = &((StateCore *)args[0])->h;
    if (h->current < 0 || h->hand_len[h->current] == 0 || h->table_len > 51) Py_RETURN_NONE;
    const uint8_t *params = (const uint8_t *)PyBytes_AS_STRING(((StateCore *)args[0])->params);
    int hand[52], table[52], cards = h->hand_len[h->current];
    for (int k = 0; k < cards; k++) hand[k] = h->hands[h->current][k];
    for (int k = 0; k < h->table_len; k++) table[k] = h->table[k];
    CardTable c;
    table_of_indexes(&c, table, h->table_len, params);
    return listed_moves(hand, cards, &c, params, moves_kept);
}

/* set_moves(Move, TRAILS): the type and the 52 trails by index. */
static PyObject *set_moves(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *trails;
    PyTypeObject *type;
    if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &type, &PyTuple_Type, &trails)) return NULL;
    if (PyTuple_GET_SIZE(trails) != 52 || type->tp_base != &PyTuple_Type ||
        type->tp_itemsize != PyTuple_Type.tp_itemsize) {
        PyErr_SetString(PyExc_ValueError, "expected Move (a tuple) and the 52 trails by index");
        return NULL;
    }
    for (int i = 0; i < 52; i++) {
        PyObject *trail = PyTuple_GET_ITEM(trails, i);
        Py_INCREF(trail);
        Py_XSETREF(trail_moves[i], trail);
    }
    Py_INCREF(type);
    Py_XSETREF(move_type, type);
    Py_RETURN_NONE;
}

static PyObject *set_cards(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *cards;
    PyTypeObject *type;
    if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &type, &PyTuple_Type, &cards)) return NULL;
    if (PyTuple_GET_SIZE(cards) != 52) {
        PyErr_SetString(PyExc_ValueError, "expected the 52 cards in index order");
        return NULL;
    }
    memset(card_keys, 0, sizeof card_keys);
    for (int i = 0; i < 52; i++) {
        PyObject *c = PyTuple_GET_ITEM(cards, i);
        Py_INCREF(c);
        Py_XDECREF(card_objects[i]);
        card_objects[i] = c;
        unsigned s = card_slot(c);
        while (card_keys[s] != NULL) s = (s + 1) & (CARD_SLOTS - 1);
        card_keys[s] = c;
        card_values[s] = (int8_t)i;
    }
    Py_INCREF(type);
    Py_XSETREF(card_type, type);
    Py_RETURN_NONE;
}

/* -- the documented shuffle (kafana.games.shuffle.permute) ---------------------------------- */

#define DOMAIN_MOST 200

/* The word stream of a domain: SHA-256(`<domain>:<block>`) for block = 0, 1, ..., each digest
   made by the standard library's SHA-256 (`hash`: `hashlib.sha256`, called through the Python
   API once per block of eight words: seven for a deck of 52). */
typedef struct {
    uint8_t text[DOMAIN_MOST + 24];
    size_t length; /* of the domain and its ':' */
    uint64_t block;
    uint32_t words[8];
    int next; /* 8: the block's words are used up */
    PyObject *hash;
} Words;

static PyObject *digest_name = NULL; /* "digest", interned */

/* `value` in decimal at `out` (no terminator): its length. */
static size_t decimal(uint64_t value, uint8_t *out) {
    uint8_t digits[20];
    size_t n = 0;
    do digits[n++] = (uint8_t)('0' + value % 10);
    while ((value /= 10) != 0);
    for (size_t i = 0; i < n; i++) out[i] = digits[n - 1 - i];
    return n;
}

/* The next word of the stream (0 with an error set where the hash failed or did not answer a
   32-byte digest: `*failed` is then 1). */
static uint32_t next_word(Words *w, int *failed) {
    if (w->next == 8) {
        size_t digits = decimal(w->block++, w->text + w->length);
        PyObject *message = PyBytes_FromStringAndSize((const char *)w->text, (Py_ssize_t)(w->length + digits));
        PyObject *hashed = message == NULL ? NULL : PyObject_CallOneArg(w->hash, message);
        Py_XDECREF(message);
        PyObject *digest = hashed == NULL ? NULL : PyObject_CallMethodNoArgs(hashed, digest_name);
        Py_XDECREF(hashed);
        if (digest != NULL && (!PyBytes_Check(digest) || PyBytes_GET_SIZE(digest) != 32)) {
            PyErr_SetString(PyExc_ValueError, "the shuffle's hash must answer 32-byte digests");
            Py_CLEAR(digest);
        }
        if (digest == NULL) {
            *failed = 1;
            return 0;
        }
        const uint8_t *d = (const uint8_t *)PyBytes_AS_STRING(digest);
        for (int i = 0; i < 8; i++)
            w->words[i] = (uint32_t)d[4 * i] << 24 | (uint32_t)d[4 * i + 1] << 16 |
                          (uint32_t)d[4 * i + 2] << 8 | d[4 * i + 3];
        Py_DECREF(digest);
        w->next = 0;
    }
    return w->words[w->next++];
}

/* permute(items, domain, sha256): `kafana.games.shuffle.permute` of a tuple (Fisher-Yates from
   the top, draws without bias by rejection), a new tuple, the digests made by `sha256` (the
   standard library's constructor); None where Python must answer (not a tuple, or a domain
   that is not ASCII text of at most DOMAIN_MOST characters). */
static PyObject *fast_permute(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "permute(items, domain, sha256) takes three arguments");
        return NULL;
    }
    if (!PyTuple_CheckExact(args[0]) || !PyUnicode_CheckExact(args[1]) ||
        !PyUnicode_IS_ASCII(args[1]) || PyUnicode_GET_LENGTH(args[1]) > DOMAIN_MOST)
        Py_RETURN_NONE;
    if (digest_name == NULL && (digest_name = PyUnicode_InternFromString("digest")) == NULL)
        return NULL;
    Words w;
    w.length = (size_t)PyUnicode_GET_LENGTH(args[1]);
    memcpy(w.text, PyUnicode_DATA(args[1]), w.length);
    w.text[w.length++] = ':';
    w.block = 0;
    w.next = 8;
    w.hash = args[2];
    Py_ssize_t n = PyTuple_GET_SIZE(args[0]);
    PyObject *out = PyTuple_New(n);
    if (out == NULL) return NULL;
    PyObject **items = &PyTuple_GET_ITEM(out, 0);
    for (Py_ssize_t i = 0; i < n; i++) items[i] = Py_NewRef(PyTuple_GET_ITEM(args[0], i));
    int failed = 0;
    for (Py_ssize_t i = n - 1; i >= 1; i--) {
        uint64_t bound = (uint64_t)i + 1, limit = (1ull << 32) - (1ull << 32) % bound, u;
        do u = next_word(&w, &failed); while (!failed && u >= limit);
        if (failed) {
            Py_DECREF(out);
            return NULL;
        }
        Py_ssize_t j = (Py_ssize_t)(u % bound);
        PyObject *swap = items[i];
        items[i] = items[j];
        items[j] = swap;
    }
    return out;
}

static PyMethodDef methods[] = {
    {"captures", (PyCFunction)(void (*)(void))fast_captures, METH_FASTCALL,
     "captures(card, table, params, rank_priority): the answer, or None (the Python path)."},
    {"legal", (PyCFunction)(void (*)(void))fast_legal, METH_FASTCALL,
     "legal(hand, table, params): the legal moves as MatchState lists them (a tuple), or None "
     "(the Python path)."},
    {"advance", (PyCFunction)(void (*)(void))fast_advance, METH_FASTCALL,
     "advance(core, legal, move, setup): the next StateCore, or None (the Python path)."},
    {"start", (PyCFunction)(void (*)(void))fast_start, METH_FASTCALL,
     "start(core, setup): the first hand of a StateCore dealt (True), or False (Python deals)."},
    {"permute", (PyCFunction)(void (*)(void))fast_permute, METH_FASTCALL,
     "permute(items, domain, sha256): kafana.games.shuffle.permute of a tuple, its digests by "
     "sha256 (the standard library's), or None (Python)."},
    {"set_cards", set_cards, METH_VARARGS, "set_cards(Card, CARDS): the 52 interned cards."},
    {"set_moves", set_moves, METH_VARARGS, "set_moves(Move, TRAILS): the type and the trails."},
    {"moves", (PyCFunction)(void (*)(void))fast_moves, METH_FASTCALL,
     "moves(core, kept_moves): the legal moves of a StateCore (a MoveList keeping its first "
     "kept_moves Moves), or None."},
    {"set_result", set_result, METH_O, "set_result(HandResult): the class of a hand's score."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ccore", "The C fast path of the rules core.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__ccore(void) {
    if (PyType_Ready(&MoveListType) < 0 || PyType_Ready(&SimCoreType) < 0 ||
        PyType_Ready(&StateCoreType) < 0)
        return NULL;
    for (size_t i = 0; i < CORE_FIELDS; i++)
        if ((core_names[i] = PyUnicode_InternFromString(core_getset[i].name)) == NULL) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && (PyModule_AddObjectRef(m, "MoveList", (PyObject *)&MoveListType) < 0 ||
                      PyModule_AddObjectRef(m, "SimCore", (PyObject *)&SimCoreType) < 0 ||
                      PyModule_AddObjectRef(m, "StateCore", (PyObject *)&StateCoreType) < 0))
        Py_CLEAR(m);
    if (m != NULL && add_captures_types(m) < 0) Py_CLEAR(m);
    return m;
}
