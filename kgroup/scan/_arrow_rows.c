/* kgroup.scan._arrow_rows: decoded records straight into Arrow column buffers.
 *
 * Source of truth: kgroup/scan/rows.py (RowBuilder.add: which record field goes to which
 * column) and the Arrow columnar format (validity bitmaps LSB first, int32 offsets + UTF-8
 * data for strings, bit-packed booleans).
 *
 * The Spark engine's readers build one Arrow record batch per 8192 records. In Python that is
 * ~27 list appends per record and a Python object per cell; here a record costs a few slot
 * reads and memcpys. What is not plain data is still Python's: a pending value is resolved
 * by `DecodedRecord._resolve` -- or written as JSON straight from its bytes by `value_json`
 * (the codec's `ValueDecoder.json`) when given --, other JSON comes from the `dumps` the
 * caller gives (the one rows.py uses), base64 from `b64`. So the cells are the ones RowBuilder.add would append
 * (tests/unit/scan/test_arrow_rows.py compares whole batches on fixtures and generated
 * records).
 *
 * A row is all or nothing: its cells are gathered and checked first, then appended.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#include "../offsets/json_text.h"
#include "../offsets/record_slots.h"

enum { COL_STR = 0, COL_I32 = 1, COL_I64 = 2, COL_BOOL = 3 };
#define MAX_COLS 64

/* the columns of rows.COLUMNS, in order (checked against the names given at construction) */
static const char *RECORD_COLUMNS[] = {
    "source", "log_partition", "file_index", "position", "offset", "timestamp", "key_type",
    "record_type", "group", "topic", "partition", "committed_offset", "leader_epoch",
    "metadata", "commit_timestamp", "expire_timestamp", "value_version", "tombstone",
    "producer_id", "transactional", "control", "key_json", "value_json", "key_raw_base64",
    "value_raw_base64", "layout", "error"};
enum {
    R_SOURCE, R_LOG_PARTITION, R_FILE_INDEX, R_POSITION, R_OFFSET, R_TIMESTAMP, R_KEY_TYPE,
    R_RECORD_TYPE, R_GROUP, R_TOPIC, R_PARTITION, R_COMMITTED, R_LEADER_EPOCH, R_METADATA,
    R_COMMIT_TS, R_EXPIRE_TS, R_VALUE_VERSION, R_TOMBSTONE, R_PRODUCER_ID, R_TRANSACTIONAL,
    R_CONTROL, R_KEY_JSON, R_VALUE_JSON, R_KEY_RAW, R_VALUE_RAW, R_LAYOUT, R_ERROR, NRECCOLS
};


#define KEY_JSON_CACHE 100000

typedef struct {
    char *p;
    Py_ssize_t len, cap;
} Buf;

typedef struct {
    int kind;
    Buf valid; /* one bit per row */
    Buf data;  /* values; for strings the UTF-8 bytes; for booleans one bit per row */
    Buf offs;  /* strings: int32 offsets, one more than rows */
    Py_ssize_t nulls;
} Column;

/* one cell before it is appended: null, an integer, or bytes owned by `owner` */
typedef struct {
    int null;
    long long i;
    const char *s;
    Py_ssize_t n;
    PyObject *owner; /* a reference held until the row is appended */
} Cell;

typedef struct {
    PyObject_HEAD
    int ncols;
    Column col[MAX_COLS];
    Py_ssize_t nrows;
    int broken; /* an allocation failed half-way through a row: the batch is lost */
    PyObject *names; /* the column names (str), for messages */
    /* add_records only */
    PyTypeObject *cls;
    Py_ssize_t off[NSLOTS];
    PyObject *dumps;    /* obj -> str | bytes (compact JSON) */
    PyObject *b64;      /* bytes -> str */
    PyObject *key_json; /* {id(key dict): (key dict, JSON)} */
    PyObject *value_json; /* (type id, raw value) -> (version, JSON) | None, or NULL */
    Buf scratch;          /* the JSON of a flat value dict, until its row is appended */
} Columns;

static PyObject *S_RESOLVE, *K_GROUP, *K_GROUP_ID, *K_TOPIC, *K_PARTITION, *K_OFFSET,
    *K_LEADER_EPOCH, *K_METADATA, *K_COMMIT_TS, *K_EXPIRE_TS;

/* ------------------------------------------------------------------ buffers */

static int buf_reserve(Buf *b, Py_ssize_t extra)
{
    if (extra > PY_SSIZE_T_MAX - b->len) {
        PyErr_NoMemory();
        return -1;
    }
    if (b->len + extra <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra) cap *= 2;
    char *p = PyMem_Realloc(b->p, (size_t)cap);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

static int buf_put(Buf *b, const void *src, Py_ssize_t n)
{
    if (buf_reserve(b, n)) return -1;
    if (n) memcpy(b->p + b->len, src, (size_t)n);
    b->len += n;
    return 0;
}

/* bit `row` of a bitmap set to `on` (the bitmap grows a zeroed byte at a time) */
static int bit_put(Buf *b, Py_ssize_t row, int on)
{
    Py_ssize_t byte = row >> 3;
    while (b->len <= byte) {
        if (buf_reserve(b, 1)) return -1;
        b->p[b->len++] = 0;
    }
    if (on) b->p[byte] |= (char)(1 << (row & 7));
    return 0;
}

static void column_reset(Column *c)
{
    c->valid.len = 0;
    c->data.len = 0;
    c->offs.len = 0;
    c->nulls = 0;
}

static void column_free(Column *c)
{
    PyMem_Free(c->valid.p);
    PyMem_Free(c->data.p);
    PyMem_Free(c->offs.p);
    memset(c, 0, sizeof(*c));
}

/* ------------------------------------------------------------------ cells */

static void cells_release(Cell *cells, int n)
{
    for (int i = 0; i < n; i++) Py_CLEAR(cells[i].owner);
}

/* A Python value checked and converted for a column of `kind`; `v` is borrowed. */
static int cell_from(Cell *cell, int kind, PyObject *v, const char *column)
{
    memset(cell, 0, sizeof(*cell));
    if (v == NULL || v == Py_None) {
        cell->null = 1;
        return 0;
    }
    switch (kind) {
    case COL_STR:
        if (PyUnicode_Check(v)) {
            cell->s = PyUnicode_AsUTF8AndSize(v, &cell->n);
            if (cell->s == NULL) return -1;
        } else if (PyBytes_Check(v)) {
            cell->s = PyBytes_AS_STRING(v);
            cell->n = PyBytes_GET_SIZE(v);
        } else {
            PyErr_Format(PyExc_TypeError, "column %s: expected str, got %.80s", column,
                         Py_TYPE(v)->tp_name);
            return -1;
        }
        Py_INCREF(v);
        cell->owner = v;
        return 0;
    case COL_I32:
    case COL_I64: {
        if (!PyLong_Check(v)) {
            PyErr_Format(PyExc_TypeError, "column %s: expected int, got %.80s", column,
                         Py_TYPE(v)->tp_name);
            return -1;
        }
        long long x = PyLong_AsLongLong(v);
        if (x == -1 && PyErr_Occurred()) return -1;
        if (kind == COL_I32 && (x < INT32_MIN || x > INT32_MAX)) {
            PyErr_Format(PyExc_OverflowError, "column %s: %lld is not an int32", column, x);
            return -1;
        }
        cell->i = x;
        return 0;
    }
    case COL_BOOL:
        if (!PyBool_Check(v)) {
            PyErr_Format(PyExc_TypeError, "column %s: expected bool, got %.80s", column,
                         Py_TYPE(v)->tp_name);
            return -1;
        }
        cell->i = v == Py_True;
        return 0;
    }
    PyErr_SetString(PyExc_SystemError, "unknown column kind");
    return -1;
}

/* The gathered cells appended as one row; cannot fail but for memory. */
static int append_row(Columns *self, Cell *cells)
{
    Py_ssize_t row = self->nrows;
    for (int i = 0; i < self->ncols; i++) {
        Column *c = &self->col[i];
        Cell *cell = &cells[i];
        if (bit_put(&c->valid, row, !cell->null)) goto nomem;
        if (cell->null) c->nulls++;
        switch (c->kind) {
        case COL_STR: {
            if (c->offs.len == 0) {
                int32_t zero = 0;
                if (buf_put(&c->offs, &zero, 4)) goto nomem;
            }
            if (!cell->null) {
                if (cell->n > INT32_MAX - c->data.len) {
                    PyErr_SetString(PyExc_OverflowError, "over 2 GiB of text in one batch");
                    goto nomem;
                }
                if (buf_put(&c->data, cell->s, cell->n)) goto nomem;
            }
            int32_t end = (int32_t)c->data.len;
            if (buf_put(&c->offs, &end, 4)) goto nomem;
            break;
        }
        case COL_I32: {
            int32_t x = cell->null ? 0 : (int32_t)cell->i;
            if (buf_put(&c->data, &x, 4)) goto nomem;
            break;
        }
        case COL_I64: {
            int64_t x = cell->null ? 0 : (int64_t)cell->i;
            if (buf_put(&c->data, &x, 8)) goto nomem;
            break;
        }
        case COL_BOOL:
            if (bit_put(&c->data, row, !cell->null && cell->i)) goto nomem;
            break;
        }
    }
    self->nrows++;
    return 0;
nomem:
    self->broken = 1;
    return -1;
}

/* ------------------------------------------------------------------ records */

#define SLOT(o, i) (*(PyObject **)((char *)(o) + self->off[i]))

static PyObject *dict_get(PyObject *d, PyObject *k) /* borrowed; NULL (no error) if absent */
{
    return PyDict_GetItemWithError(d, k);
}

/* The compact JSON of a flat dict (str keys; None, bool, int or str values) written into
 * `out` -- the text orjson and json.dumps(separators=(",", ":"), ensure_ascii=False) give --
 * or 1 (nothing written) for anything else, which `dumps` then serialises. Offset commit
 * values are such dicts; this spares a call into Python per record. */
static int put_json_str(Buf *out, const char *s, Py_ssize_t n)
{
    uint8_t high;
    if (n > (PY_SSIZE_T_MAX - 2) / 6 || buf_reserve(out, JSON_STR_MAX(n))) return -1;
    out->len = json_put_str(out->p + out->len, (const uint8_t *)s, n, &high) - out->p;
    return 0;
}

static int flat_json(PyObject *d, Buf *out)
{
    out->len = 0;
    if (buf_put(out, "{", 1)) return -1;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    int first = 1;
    while (PyDict_Next(d, &pos, &k, &v)) {
        Py_ssize_t n;
        const char *ks;
        if (!PyUnicode_CheckExact(k)) return 1;
        ks = PyUnicode_AsUTF8AndSize(k, &n);
        if (ks == NULL) {
            PyErr_Clear();
            return 1;
        }
        if ((!first && buf_put(out, ",", 1)) || put_json_str(out, ks, n) || buf_put(out, ":", 1))
            return -1;
        first = 0;
        if (v == Py_None) {
            if (buf_put(out, "null", 4)) return -1;
        } else if (v == Py_True || v == Py_False) {
            if (v == Py_True ? buf_put(out, "true", 4) : buf_put(out, "false", 5)) return -1;
        } else if (PyLong_CheckExact(v)) {
            int overflow;
            long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
            if (overflow || (x == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                return 1;
            }
            if (buf_reserve(out, JSON_INT_MAX)) return -1;
            out->len = json_put_int(out->p + out->len, x) - out->p;
        } else if (PyUnicode_CheckExact(v)) {
            const char *vs = PyUnicode_AsUTF8AndSize(v, &n);
            if (vs == NULL) {
                PyErr_Clear();
                return 1;
            }
            if (put_json_str(out, vs, n)) return -1;
        } else {
            return 1;
        }
    }
    return buf_put(out, "}", 1);
}

/* JSON text of a key dict, shared by every record holding that same (cached) dict. */
static PyObject *key_json(Columns *self, PyObject *key)
{
    PyObject *id = PyLong_FromVoidPtr(key);
    if (id == NULL) return NULL;
    PyObject *hit = PyDict_GetItemWithError(self->key_json, id);
    if (hit != NULL && PyTuple_GET_ITEM(hit, 0) == key) {
        Py_DECREF(id);
        PyObject *text = PyTuple_GET_ITEM(hit, 1);
        Py_INCREF(text);
        return text;
    }
    if (PyErr_Occurred()) {
        Py_DECREF(id);
        return NULL;
    }
    PyObject *text = PyObject_CallOneArg(self->dumps, key);
    if (text == NULL) {
        Py_DECREF(id);
        return NULL;
    }
    if (PyDict_GET_SIZE(self->key_json) >= KEY_JSON_CACHE) PyDict_Clear(self->key_json);
    PyObject *entry = PyTuple_Pack(2, key, text);
    if (entry == NULL || PyDict_SetItem(self->key_json, id, entry)) {
        Py_XDECREF(entry);
        Py_DECREF(id);
        Py_DECREF(text);
        return NULL;
    }
    Py_DECREF(entry);
    Py_DECREF(id);
    return text;
}

/* A cell from a new reference (stolen), e.g. a call's result. */
static int cell_take(Cell *cell, int kind, PyObject *v, const char *column)
{
    if (v == NULL) return -1;
    int r = cell_from(cell, kind, v, column);
    Py_DECREF(v);
    return r;
}

static int gather_record(Columns *self, PyObject *rec, PyObject *file_index, Cell *cells)
{
    int n = 0;
#define CELL(idx, v)                                                                        \
    do {                                                                                    \
        if (cell_from(&cells[idx], self->col[idx].kind, (v), RECORD_COLUMNS[idx])) goto fail; \
        n = idx + 1;                                                                        \
    } while (0)
#define CELL_NEW(idx, v)                                                                    \
    do {                                                                                    \
        if (cell_take(&cells[idx], self->col[idx].kind, (v), RECORD_COLUMNS[idx])) goto fail; \
        n = idx + 1;                                                                        \
    } while (0)

    for (int i = 0; i < NSLOTS; i++) {
        if (SLOT(rec, i) == NULL) {
            PyErr_SetString(PyExc_AttributeError, "a DecodedRecord slot is not set");
            return -1;
        }
    }
    PyObject *kt = SLOT(rec, S_KEY_TYPE);
    int offset_type = 0;
    if (PyLong_CheckExact(kt)) {
        long t = PyLong_AsLong(kt);
        if (t == -1 && PyErr_Occurred()) PyErr_Clear();
        offset_type = t == 0 || t == 1;
    }
    /* A pending value (group metadata and the like): its JSON straight from the bytes when
     * the codec can write it (then the record reads as resolved: no error, no layout note);
     * else DecodedRecord._resolve decodes it as everywhere else. */
    PyObject *pending = SLOT(rec, S_PENDING);
    PyObject *direct = NULL; /* (version, JSON) */
    if (pending != Py_None) {
        if (self->value_json != NULL && PyLong_CheckExact(kt) && !offset_type &&
            PyTuple_CheckExact(pending) &&
            PyTuple_GET_SIZE(pending) == 2 && PyBytes_CheckExact(PyTuple_GET_ITEM(pending, 1))) {
            direct = PyObject_CallFunctionObjArgs(self->value_json, kt,
                                                  PyTuple_GET_ITEM(pending, 1), NULL);
            if (direct == NULL) return -1;
            if (direct == Py_None) Py_CLEAR(direct);
            else if (!PyTuple_CheckExact(direct) || PyTuple_GET_SIZE(direct) != 2) {
                Py_DECREF(direct);
                PyErr_SetString(PyExc_TypeError, "value_json: (version, JSON) expected");
                return -1;
            }
        }
        if (direct == NULL) {
            PyObject *r = PyObject_CallMethodNoArgs(rec, S_RESOLVE);
            if (r == NULL) return -1;
            Py_DECREF(r);
            for (int i = 0; i < NSLOTS; i++) {
                if (SLOT(rec, i) == NULL) {
                    PyErr_SetString(PyExc_AttributeError, "a DecodedRecord slot is not set");
                    return -1;
                }
            }
        }
    }
    kt = SLOT(rec, S_KEY_TYPE); /* read again: _resolve ran Python code */
    PyObject *key = SLOT(rec, S_KEY);
    PyObject *value = SLOT(rec, S_VALUE);
    int control = SLOT(rec, S_CONTROL) == Py_True;
    if (key != Py_None && !PyDict_Check(key)) {
        PyErr_SetString(PyExc_TypeError, "record key is not a dict");
        goto fail;
    }
    if (value != Py_None && !PyDict_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "record value is not a dict");
        goto fail;
    }

    CELL(R_SOURCE, SLOT(rec, S_SOURCE));
    CELL(R_LOG_PARTITION, SLOT(rec, S_PARTITION));
    CELL(R_FILE_INDEX, file_index);
    CELL(R_POSITION, SLOT(rec, S_POSITION));
    CELL(R_OFFSET, SLOT(rec, S_OFFSET));
    CELL(R_TIMESTAMP, SLOT(rec, S_TIMESTAMP));
    CELL(R_KEY_TYPE, kt);
    CELL(R_RECORD_TYPE, SLOT(rec, S_RECORD_TYPE));

    /* DecodedRecord.group (None for control records) */
    PyObject *group = NULL;
    if (!control && key != Py_None) {
        group = dict_get(key, K_GROUP);
        if ((group == NULL || group == Py_None) && !PyErr_Occurred())
            group = dict_get(key, K_GROUP_ID);
        if (PyErr_Occurred()) goto fail;
    }
    CELL(R_GROUP, group);

    /* offset commits (key types 0 and 1): the key's topic/partition and the value's fields */
    if (offset_type && key != Py_None && !control) {
        PyObject *topic = dict_get(key, K_TOPIC);
        PyObject *partition = topic == NULL && PyErr_Occurred() ? NULL : dict_get(key, K_PARTITION);
        if (PyErr_Occurred()) goto fail;
        CELL(R_TOPIC, topic);
        CELL(R_PARTITION, partition);
        PyObject *const names[] = {K_OFFSET, K_LEADER_EPOCH, K_METADATA, K_COMMIT_TS, K_EXPIRE_TS};
        for (int i = 0; i < 5; i++) {
            PyObject *v = NULL;
            if (value != Py_None) {
                v = dict_get(value, names[i]);
                if (v == NULL && PyErr_Occurred()) goto fail;
            }
            CELL(R_COMMITTED + i, v);
        }
    } else {
        for (int idx = R_TOPIC; idx <= R_EXPIRE_TS; idx++) CELL(idx, Py_None);
    }
    CELL(R_VALUE_VERSION, direct ? PyTuple_GET_ITEM(direct, 0) : SLOT(rec, S_VALUE_VERSION));
    /* DecodedRecord.tombstone (the value is resolved: nothing is pending now) */
    int tombstone = !control && direct == NULL && SLOT(rec, S_PENDING) == Py_None &&
                    value == Py_None && SLOT(rec, S_VALUE_RAW) == Py_None;
    CELL(R_TOMBSTONE, tombstone ? Py_True : Py_False);
    CELL(R_PRODUCER_ID, SLOT(rec, S_PRODUCER_ID));
    CELL(R_TRANSACTIONAL, SLOT(rec, S_TRANSACTIONAL));
    CELL(R_CONTROL, SLOT(rec, S_CONTROL));
    if (key == Py_None)
        CELL(R_KEY_JSON, Py_None);
    else
        CELL_NEW(R_KEY_JSON, key_json(self, key));
    if (direct)
        CELL(R_VALUE_JSON, PyTuple_GET_ITEM(direct, 1));
    else if (value == Py_None)
        CELL(R_VALUE_JSON, Py_None);
    else
    {
        int r = flat_json(value, &self->scratch);
        if (r < 0) goto fail;
        if (r == 0) { /* the cell points into the scratch buffer until the row is appended */
            memset(&cells[R_VALUE_JSON], 0, sizeof(Cell));
            cells[R_VALUE_JSON].s = self->scratch.p;
            cells[R_VALUE_JSON].n = self->scratch.len;
            n = R_VALUE_JSON + 1;
        } else {
            CELL_NEW(R_VALUE_JSON, PyObject_CallOneArg(self->dumps, value));
        }
    }
    PyObject *kraw = SLOT(rec, S_KEY_RAW), *vraw = SLOT(rec, S_VALUE_RAW);
    if (kraw == Py_None)
        CELL(R_KEY_RAW, Py_None);
    else
        CELL_NEW(R_KEY_RAW, PyObject_CallOneArg(self->b64, kraw));
    if (vraw == Py_None)
        CELL(R_VALUE_RAW, Py_None);
    else
        CELL_NEW(R_VALUE_RAW, PyObject_CallOneArg(self->b64, vraw));
    CELL(R_LAYOUT, direct ? Py_None : SLOT(rec, S_LAYOUT));
    CELL(R_ERROR, direct ? Py_None : SLOT(rec, S_ERROR));
    Py_XDECREF(direct);
    return 0;
fail:
    Py_XDECREF(direct);
    cells_release(cells, n);
    return -1;
#undef CELL
#undef CELL_NEW
}

/* ------------------------------------------------------------------ the type */

static int check_usable(Columns *self)
{
    if (self->ncols == 0) {
        PyErr_SetString(PyExc_ValueError, "Columns: not initialised");
        return -1;
    }
    if (self->broken) {
        PyErr_SetString(PyExc_MemoryError, "Columns: an earlier append ran out of memory");
        return -1;
    }
    return 0;
}

/* add_records(records, file_index, skip_control) -> rows added */
static PyObject *Columns_add_records(Columns *self, PyObject *args)
{
    PyObject *recs, *file_index;
    int skip_control;
    if (!PyArg_ParseTuple(args, "OOp", &recs, &file_index, &skip_control)) return NULL;
    if (check_usable(self)) return NULL;
    if (self->cls == NULL || self->ncols != NRECCOLS) {
        PyErr_SetString(PyExc_ValueError, "Columns: built without the record mapping");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(recs, "records must be a sequence");
    if (seq == NULL) return NULL;
    Py_ssize_t added = 0;
    Cell cells[NRECCOLS];
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *rec = PySequence_Fast_GET_ITEM(seq, i);
        if (Py_TYPE(rec) != self->cls) {
            PyErr_Format(PyExc_TypeError, "expected %.80s, got %.80s", self->cls->tp_name,
                         Py_TYPE(rec)->tp_name);
            goto error;
        }
        Py_INCREF(rec);
        if (skip_control && SLOT(rec, S_CONTROL) == Py_True) {
            Py_DECREF(rec);
            continue;
        }
        int r = gather_record(self, rec, file_index, cells);
        Py_DECREF(rec);
        if (r) goto error;
        r = append_row(self, cells);
        cells_release(cells, NRECCOLS);
        if (r) goto error;
        added++;
    }
    Py_DECREF(seq);
    return PyLong_FromSsize_t(added);
error:
    Py_DECREF(seq);
    return NULL;
}

/* add_row(values) -- one row of plain values, a value per column (None = null) */
static PyObject *Columns_add_row(Columns *self, PyObject *args)
{
    PyObject *values;
    if (!PyArg_ParseTuple(args, "O!", &PyTuple_Type, &values)) return NULL;
    if (check_usable(self)) return NULL;
    if (PyTuple_GET_SIZE(values) != self->ncols) {
        PyErr_Format(PyExc_ValueError, "add_row: %d values expected", self->ncols);
        return NULL;
    }
    Cell cells[MAX_COLS];
    for (int i = 0; i < self->ncols; i++) {
        const char *name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(self->names, i));
        if (name == NULL) {
            cells_release(cells, i);
            return NULL;
        }
        if (cell_from(&cells[i], self->col[i].kind, PyTuple_GET_ITEM(values, i), name)) {
            cells_release(cells, i);
            return NULL;
        }
    }
    int r = append_row(self, cells);
    cells_release(cells, self->ncols);
    if (r) return NULL;
    Py_RETURN_NONE;
}

/* finish() -> (rows, [(null count, validity | None, data, offsets | None), ...]); starts over */
static PyObject *Columns_finish(Columns *self, PyObject *Py_UNUSED(ignored))
{
    if (check_usable(self)) return NULL;
    Py_ssize_t rows = self->nrows;
    PyObject *out = PyList_New(self->ncols);
    if (out == NULL) return NULL;
    for (int i = 0; i < self->ncols; i++) {
        Column *c = &self->col[i];
        PyObject *valid, *data, *offs;
        if (c->nulls) {
            valid = PyBytes_FromStringAndSize(c->valid.p, c->valid.len);
        } else {
            valid = Py_None;
            Py_INCREF(valid);
        }
        if (c->kind == COL_STR && c->offs.len == 0) { /* no rows: offsets are [0] */
            int32_t zero = 0;
            offs = PyBytes_FromStringAndSize((const char *)&zero, 4);
        } else if (c->kind == COL_STR) {
            offs = PyBytes_FromStringAndSize(c->offs.p, c->offs.len);
        } else {
            offs = Py_None;
            Py_INCREF(offs);
        }
        data = PyBytes_FromStringAndSize(c->data.p, c->data.len);
        if (valid == NULL || offs == NULL || data == NULL) {
            Py_XDECREF(valid);
            Py_XDECREF(offs);
            Py_XDECREF(data);
            Py_DECREF(out);
            return NULL;
        }
        PyObject *item = Py_BuildValue("nNNN", c->nulls, valid, data, offs); /* steals all */
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    for (int i = 0; i < self->ncols; i++) column_reset(&self->col[i]);
    self->nrows = 0;
    return Py_BuildValue("nN", rows, out);
}

static Py_ssize_t Columns_len(Columns *self) { return self->nrows; }

/* Columns(kinds, names, cls=None, slots=None, dumps=None, b64=None, value_json=None)
 * kinds: a COL_* per column; names: the column names. With cls (DecodedRecord), its slot
 * names (in the S_* order), dumps and b64, the names must be RECORD_COLUMNS and add_records
 * works. */
static int Columns_init(Columns *self, PyObject *args, PyObject *kwargs)
{
    PyObject *kinds, *names, *cls = Py_None, *slots = Py_None, *dumps = Py_None, *b64 = Py_None,
             *value_json = Py_None;
    static char *kw[] = {"kinds", "names", "cls", "slots", "dumps", "b64", "value_json", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!|OOOOO", kw, &PyTuple_Type, &kinds,
                                     &PyTuple_Type, &names, &cls, &slots, &dumps, &b64,
                                     &value_json))
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(kinds);
    if (n < 1 || n > MAX_COLS || PyTuple_GET_SIZE(names) != n) {
        PyErr_SetString(PyExc_ValueError, "Columns: 1-64 kinds, one name each");
        return -1;
    }
    for (int i = 0; i < self->ncols; i++) column_free(&self->col[i]);
    self->ncols = 0;
    self->nrows = 0;
    self->broken = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(names, i))) {
            PyErr_SetString(PyExc_TypeError, "Columns: names must be str");
            return -1;
        }
    }
    Py_INCREF(names);
    Py_XSETREF(self->names, names);
    for (Py_ssize_t i = 0; i < n; i++) {
        long k = PyLong_AsLong(PyTuple_GET_ITEM(kinds, i));
        if (k < COL_STR || k > COL_BOOL) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "Columns: unknown kind");
            return -1;
        }
        memset(&self->col[i], 0, sizeof(Column));
        self->col[i].kind = (int)k;
    }
    self->ncols = (int)n;
    if (cls == Py_None) return 0;

    if (n != NRECCOLS) {
        PyErr_SetString(PyExc_ValueError, "Columns: the record columns are not rows.COLUMNS");
        return -1;
    }
    for (int i = 0; i < NRECCOLS; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        if (!PyUnicode_Check(name) || PyUnicode_CompareWithASCIIString(name, RECORD_COLUMNS[i])) {
            PyErr_Format(PyExc_ValueError, "Columns: column %d is %R, expected %s", i, name,
                         RECORD_COLUMNS[i]);
            return -1;
        }
    }
    if (!PyType_Check(cls) || !PyTuple_Check(slots) || PyTuple_GET_SIZE(slots) != NSLOTS ||
        !PyCallable_Check(dumps) || !PyCallable_Check(b64)) {
        PyErr_SetString(PyExc_TypeError, "Columns: cls, slots (tuple), dumps, b64 expected");
        return -1;
    }
    PyTypeObject *type = (PyTypeObject *)cls;
    if (record_slot_offsets(type, slots, self->off, "Columns")) return -1;
    PyObject *cache = PyDict_New();
    if (cache == NULL) return -1;
    Py_INCREF(cls);
    Py_XSETREF(self->cls, type);
    Py_INCREF(dumps);
    Py_XSETREF(self->dumps, dumps);
    Py_INCREF(b64);
    Py_XSETREF(self->b64, b64);
    Py_XSETREF(self->key_json, cache);
    if (value_json != Py_None) {
        Py_INCREF(value_json);
        Py_XSETREF(self->value_json, value_json);
    }
    return 0;
}

static int Columns_traverse(Columns *self, visitproc visit, void *arg)
{
    Py_VISIT(self->cls);
    Py_VISIT(self->dumps);
    Py_VISIT(self->b64);
    Py_VISIT(self->key_json);
    Py_VISIT(self->value_json);
    Py_VISIT(self->names);
    return 0;
}

static int Columns_clear(Columns *self)
{
    Py_CLEAR(self->cls);
    Py_CLEAR(self->dumps);
    Py_CLEAR(self->b64);
    Py_CLEAR(self->key_json);
    Py_CLEAR(self->value_json);
    Py_CLEAR(self->names);
    return 0;
}

static void Columns_dealloc(Columns *self)
{
    PyObject_GC_UnTrack(self);
    Columns_clear(self);
    for (int i = 0; i < MAX_COLS; i++) column_free(&self->col[i]);
    PyMem_Free(self->scratch.p);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Columns_methods[] = {
    {"add_records", (PyCFunction)Columns_add_records, METH_VARARGS,
     "add_records(records, file_index, skip_control) -> rows added (RowBuilder.add each)."},
    {"add_row", (PyCFunction)Columns_add_row, METH_VARARGS,
     "add_row(values): one row, a plain value per column (None = null)."},
    {"finish", (PyCFunction)Columns_finish, METH_NOARGS,
     "finish() -> (rows, [(null count, validity, data, offsets), ...]); starts empty again."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods Columns_as_sequence = {.sq_length = (lenfunc)Columns_len};

static PyTypeObject ColumnsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kgroup.scan._arrow_rows.Columns",
    .tp_basicsize = sizeof(Columns),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Columns(kinds, names, cls=None, slots=None, dumps=None, b64=None, value_json=None).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Columns_init,
    .tp_dealloc = (destructor)Columns_dealloc,
    .tp_traverse = (traverseproc)Columns_traverse,
    .tp_clear = (inquiry)Columns_clear,
    .tp_methods = Columns_methods,
    .tp_as_sequence = &Columns_as_sequence,
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "kgroup.scan._arrow_rows",
    "Decoded records straight into Arrow column buffers (see kgroup/scan/rows.py).", -1, NULL,
};

PyMODINIT_FUNC PyInit__arrow_rows(void)
{
    if (PyType_Ready(&ColumnsType) < 0) return NULL;
    S_RESOLVE = PyUnicode_InternFromString("_resolve");
    K_GROUP = PyUnicode_InternFromString("group");
    K_GROUP_ID = PyUnicode_InternFromString("group_id");
    K_TOPIC = PyUnicode_InternFromString("topic");
    K_PARTITION = PyUnicode_InternFromString("partition");
    K_OFFSET = PyUnicode_InternFromString("offset");
    K_LEADER_EPOCH = PyUnicode_InternFromString("leader_epoch");
    K_METADATA = PyUnicode_InternFromString("metadata");
    K_COMMIT_TS = PyUnicode_InternFromString("commit_timestamp");
    K_EXPIRE_TS = PyUnicode_InternFromString("expire_timestamp");
    if (!S_RESOLVE || !K_GROUP || !K_GROUP_ID || !K_TOPIC || !K_PARTITION || !K_OFFSET ||
        !K_LEADER_EPOCH || !K_METADATA || !K_COMMIT_TS || !K_EXPIRE_TS)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    Py_INCREF(&ColumnsType);
    if (PyModule_AddObject(m, "Columns", (PyObject *)&ColumnsType) < 0) {
        Py_DECREF(&ColumnsType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
