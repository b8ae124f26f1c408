/* The fast path of `kafana.games.tablic.capture.captures()`, in C.
 *
 * `captures(card, table, params, rank_priority)` lists every legal capture of `card` on `table`
 * as the contract's answer (a set of frozensets of the 52 interned Card objects), or returns
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
 * `params` (80 bytes, `capture.fast_params`): wild jack, multiple groups, then per rank 1..13
 * the declared values a played card may take (count, two values; 0 means by rank only), then
 * per rank the values a table card may take inside a sum (count, two values).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
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

typedef struct {
    uint64_t keys[SLOTS];
    uint32_t stamps[SLOTS];
    uint32_t generation;
    uint64_t items[CAPTURE_LIMIT + 2];
    int count;
    int overflow;
} MaskSet;

static MaskSet groups_set, unions_set, results_set;

static void set_clear(MaskSet *s) {
    s->generation++;
    if (s->generation == 0) { /* wrapped: stamps of 2**32 generations ago look current */
        memset(s->stamps, 0, sizeof s->stamps);
        s->generation = 1;
    }
    s->count = 0;
    s->overflow = 0;
}

/* Add a mask; 1 if new. Past CAPTURE_LIMIT + 1 items the set only records the overflow. */
static inline int set_add(MaskSet *s, uint64_t mask) {
    uint64_t h = mask * 0x9E3779B97F4A7C15ull;
    uint32_t i = (uint32_t)(h >> (64 - SLOTS_LOG));
    for (;;) {
        if (s->stamps[i] != s->generation) break;
        if (s->keys[i] == mask) return 0;
        i = (i + 1) & (SLOTS - 1);
    }
    if (s->count >= CAPTURE_LIMIT + 1) {
        s->overflow = 1;
        return 0;
    }
    s->stamps[i] = s->generation;
    s->keys[i] = mask;
    s->items[s->count++] = mask;
    return 1;
}

/* -- the search ---------------------------------------------------------------------------- */

typedef struct {
    int n;
    uint8_t nvalues[52];
    uint8_t values[52][2];
    long nodes;
} Table;

/* Every set of positions from `start` on whose values sum to `remaining`, joined to `mask`. */
static int sums(Table *t, int start, int remaining, uint64_t mask) {
    for (int i = start; i < t->n; i++) {
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

/* The captures of one declared value into `results_set`; -1: let Python answer. */
static int list_value(Table *t, int value, uint64_t same_rank, int multi) {
    set_clear(&groups_set);
    for (int i = 0; i < t->n; i++)
        if (same_rank >> i & 1) set_add(&groups_set, 1ull << i);
    if (value > 0 && sums(t, 0, value, 0) < 0) return -1;
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

/* -- the Python function --------------------------------------------------------------------- */

/* A new reference to the frozenset of the cards at `mask`'s positions. */
static PyObject *capture_of(PyObject **items, uint64_t mask) {
    PyObject *capture = PyFrozenSet_New(NULL);
    if (capture == NULL) return NULL;
    for (uint64_t m = mask; m; m &= m - 1) {
        if (PySet_Add(capture, items[__builtin_ctzll(m)]) < 0) {
            Py_DECREF(capture);
            return NULL;
        }
    }
    return capture;
}

static PyObject *answer(PyObject **items, const uint64_t *masks, int count) {
    PyObject *out = PySet_New(NULL);
    if (out == NULL) return NULL;
    for (int c = 0; c < count; c++) {
        PyObject *capture = capture_of(items, masks[c]);
        if (capture == NULL) goto fail;
        int added = PySet_Add(out, capture);
        Py_DECREF(capture);
        if (added < 0) goto fail;
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *fast_captures(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4 || card_type == NULL) Py_RETURN_NONE;
    PyObject *card = args[0], *table = args[1], *params_obj = args[2];
    int rank_priority = PyObject_IsTrue(args[3]);
    if (rank_priority < 0) return NULL;
    if (Py_TYPE(card) != card_type || !PyBytes_CheckExact(params_obj) ||
        PyBytes_GET_SIZE(params_obj) != PARAMS_SIZE)
        Py_RETURN_NONE;
    const uint8_t *params = (const uint8_t *)PyBytes_AS_STRING(params_obj);
    PyObject **items;
    Py_ssize_t n;
    if (PyTuple_CheckExact(table)) {
        items = &PyTuple_GET_ITEM(table, 0);
        n = PyTuple_GET_SIZE(table);
    } else if (PyList_CheckExact(table)) {
        items = PySequence_Fast_ITEMS(table);
        n = PyList_GET_SIZE(table);
    } else {
        Py_RETURN_NONE;
    }
    if (n > 51) Py_RETURN_NONE;
    int played = card_index(card);
    if (played < 0) Py_RETURN_NONE;
    int played_rank = played / 4 + 1;
    uint64_t seen = 1ull << played, same_rank = 0;
    Table t;
    t.n = (int)n;
    t.nodes = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = items[i];
        int index = Py_TYPE(item) == card_type ? card_index(item) : -1;
        if (index < 0 || (seen >> index & 1)) Py_RETURN_NONE; /* Python names the error */
        seen |= 1ull << index;
        int rank = index / 4 + 1;
        const uint8_t *tv = params + 2 + 39 + 3 * (rank - 1);
        t.nvalues[i] = tv[0];
        t.values[i][0] = tv[1];
        t.values[i][1] = tv[2];
        if (rank == played_rank) same_rank |= 1ull << i;
    }
    /* The table (a list) holds only cards, whose references the table keeps: no Python code
       runs from here on until the answer is built, so `items` stays valid. */
    set_clear(&results_set);
    if (n > 0) {
        if (params[0] && played_rank == JACK) {
            set_add(&results_set, (1ull << n) - 1); /* the whole table (n < 52) */
        } else {
            const uint8_t *pv = params + 2 + 3 * (played_rank - 1);
            for (int v = 0; v < pv[0]; v++)
                if (list_value(&t, pv[1 + v], same_rank, params[1]) < 0) Py_RETURN_NONE;
        }
    }
    uint64_t *masks = results_set.items;
    int count = results_set.count;
    if (rank_priority && same_rank) {
        int kept = 0;
        for (int c = 0; c < count; c++)
            if (masks[c] & same_rank) masks[kept++] = masks[c];
        count = kept;
    }
    return answer(items, masks, count);
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

static PyMethodDef methods[] = {
    {"captures", (PyCFunction)(void (*)(void))fast_captures, METH_FASTCALL,
     "captures(card, table, params, rank_priority): the answer, or None (the Python path)."},
    {"set_cards", set_cards, METH_VARARGS, "set_cards(Card, CARDS): the 52 interned cards."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ccapture", "The C fast path of captures().", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__ccapture(void) { return PyModule_Create(&module); }
