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

#define EXT_MODULE "kgroup.scan._arrow_rows"
#include "../offsets/ext_types.h"
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
    int kind;
    JBuf valid; /* one bit per row */
    JBuf data;  /* values; for strings the UTF-8 bytes; for booleans one bit per row */
    JBuf offs;  /* strings: int32 offsets, one more than rows */
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
    JBuf scratch;         /* the JSON of a flat value dict, until its row is appended */
} Columns;

static PyObject *S_RESOLVE;

/* ------------------------------------------------------------------ buffers */

/* jb_put, with a MemoryError when the buffer cannot grow */
static int buf_put(JBuf *b, const void *src, Py_ssize_t n)
{
    if (jb_put(b, src, n) == 0) return 0;
    PyErr_NoMemory();
    return -1;
}

/* bit `row` of a bitmap set to `on` (the bitmap grows a zeroed byte at a time) */
static int bit_put(JBuf *b, Py_ssize_t row, int on)
{
    Py_ssize_t byte = row >> 3;
    while (b->len <= byte) {
        if (jb_ch(b, 0)) {
            PyErr_NoMemory();
            return -1;
        }
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

/* The compact JSON of a flat value dict (no dict or list inside) written into `out` -- the
 * text `dumps` gives -- or 1 (nothing written) for anything else, which `dumps` then
 * serialises. Offset commit values are such dicts; this spares a call into Python per record. */
static int flat_json(PyObject *d, JBuf *out)
{
    out->len = 0;
    return jb_obj(out, d, 1) == 0 ? 0 : 1;
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

/* The slots of `rec` into slot[] (borrowed); -1 with AttributeError when one is unset. */
static int read_slots(Columns *self, PyObject *rec, PyObject **slot)
{
    if (record_slots_read(rec, self->off, slot) == 0) return 0;
    PyErr_SetString(PyExc_AttributeError, "a DecodedRecord slot is not set");
    return -1;
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

    PyObject *slot[NSLOTS];
    if (read_slots(self, rec, slot)) return -1;
    PyObject *kt = slot[S_KEY_TYPE];
    int offset_type = 0;
    if (PyLong_CheckExact(kt)) {
        long t = PyLong_AsLong(kt);
        if (t == -1 && PyErr_Occurred()) PyErr_Clear();
        offset_type = is_offset_commit(t);
    }
    /* A pending value (group metadata and the like): its JSON straight from the bytes when
     * the codec can write it (then the record reads as resolved: no error, no layout note);
     * else DecodedRecord._resolve decodes it as everywhere else. */
    PyObject *direct = NULL; /* (version, JSON) */
    if (slot[S_PENDING] != Py_None) {
        PyObject *raw = pending_raw(slot[S_PENDING]);
        if (self->value_json != NULL && PyLong_CheckExact(kt) && !offset_type && raw != NULL) {
            direct = PyObject_CallFunctionObjArgs(self->value_json, kt, raw, NULL);
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
        }
        /* read again: Python code ran */
        if (read_slots(self, rec, slot)) {
            Py_XDECREF(direct);
            return -1;
        }
    }
    kt = slot[S_KEY_TYPE];
    PyObject *key = slot[S_KEY];
    PyObject *value = slot[S_VALUE];
    int control = slot[S_CONTROL] == Py_True;
    if (key != Py_None && !PyDict_Check(key)) {
        PyErr_SetString(PyExc_TypeError, "record key is not a dict");
        goto fail;
    }
    if (value != Py_None && !PyDict_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "record value is not a dict");
        goto fail;
    }

    CELL(R_SOURCE, slot[S_SOURCE]);
    CELL(R_LOG_PARTITION, slot[S_PARTITION]);
    CELL(R_FILE_INDEX, file_index);
    CELL(R_POSITION, slot[S_POSITION]);
    CELL(R_OFFSET, slot[S_OFFSET]);
    CELL(R_TIMESTAMP, slot[S_TIMESTAMP]);
    CELL(R_KEY_TYPE, kt);
    CELL(R_RECORD_TYPE, slot[S_RECORD_TYPE]);
    /* DecodedRecord.group (None for control records) */
    PyObject *group = !control && key != Py_None ? key_group(key) : Py_None;
    if (group == NULL) goto fail;
    CELL(R_GROUP, group);
    /* offset commits (key types 0 and 1): the key's topic/partition and the value's fields */
    PyObject *commit[OFFSET_COMMIT_COLUMNS];
    for (int i = 0; i < OFFSET_COMMIT_COLUMNS; i++) commit[i] = Py_None;
    if (offset_type && key != Py_None && !control && offset_commit_columns(key, value, commit))
        goto fail;
    for (int i = 0; i < OFFSET_COMMIT_COLUMNS; i++) CELL(R_TOPIC + i, commit[i]);
    CELL(R_VALUE_VERSION, direct ? PyTuple_GET_ITEM(direct, 0) : slot[S_VALUE_VERSION]);
    /* DecodedRecord.tombstone (the value is resolved: nothing is pending now) */
    CELL(R_TOMBSTONE, record_tombstone(slot) ? Py_True : Py_False);
    CELL(R_PRODUCER_ID, slot[S_PRODUCER_ID]);
    CELL(R_TRANSACTIONAL, slot[S_TRANSACTIONAL]);
    CELL(R_CONTROL, slot[S_CONTROL]);
    if (key == Py_None)
        CELL(R_KEY_JSON, Py_None);
    else
        CELL_NEW(R_KEY_JSON, key_json(self, key));
    if (direct)
        CELL(R_VALUE_JSON, PyTuple_GET_ITEM(direct, 1));
    else if (value == Py_None)
        CELL(R_VALUE_JSON, Py_None);
    else if (flat_json(value, &self->scratch) == 0) {
        /* the cell points into the scratch buffer until the row is appended */
        memset(&cells[R_VALUE_JSON], 0, sizeof(Cell));
        cells[R_VALUE_JSON].s = self->scratch.p;
        cells[R_VALUE_JSON].n = self->scratch.len;
        n = R_VALUE_JSON + 1;
    } else
        CELL_NEW(R_VALUE_JSON, PyObject_CallOneArg(self->dumps, value));
    PyObject *kraw = slot[S_KEY_RAW], *vraw = slot[S_VALUE_RAW];
    if (kraw == Py_None)
        CELL(R_KEY_RAW, Py_None);
    else
        CELL_NEW(R_KEY_RAW, PyObject_CallOneArg(self->b64, kraw));
    if (vraw == Py_None)
        CELL(R_VALUE_RAW, Py_None);
    else
        CELL_NEW(R_VALUE_RAW, PyObject_CallOneArg(self->b64, vraw));
    CELL(R_LAYOUT, direct ? Py_None : slot[S_LAYOUT]);
    CELL(R_ERROR, direct ? Py_None : slot[S_ERROR]);
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
    Py_XSETREF(self->cls, (PyTypeObject *)Py_NewRef(type));
    Py_XSETREF(self->dumps, Py_NewRef(dumps));
    Py_XSETREF(self->b64, Py_NewRef(b64));
    Py_XSETREF(self->key_json, cache);
    if (value_json != Py_None) Py_XSETREF(self->value_json, Py_NewRef(value_json));
    return 0;
}

static const Py_ssize_t Columns_refs[] = {
    offsetof(Columns, cls),      offsetof(Columns, dumps),      offsetof(Columns, b64),
    offsetof(Columns, key_json), offsetof(Columns, value_json), offsetof(Columns, names),
    0,
};

static void Columns_release(PyObject *self)
{
    Columns *c = (Columns *)self;
    for (int i = 0; i < MAX_COLS; i++) column_free(&c->col[i]);
    PyMem_Free(c->scratch.p);
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

static ExtType ColumnsType = {
    {EXT_TYPE(Columns,
              "Columns(kinds, names, cls=None, slots=None, dumps=None, b64=None, value_json=None)."),
     .tp_clear = ext_clear, .tp_methods = Columns_methods, .tp_as_sequence = &Columns_as_sequence},
    Columns_refs,
    Columns_release,
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, EXT_MODULE,
    "Decoded records straight into Arrow column buffers (see kgroup/scan/rows.py).", -1, NULL,
};

PyMODINIT_FUNC PyInit__arrow_rows(void)
{
    static const InternedName names[] = {{&S_RESOLVE, "_resolve"}, {NULL, NULL}};
    static ExtType *const types[] = {&ColumnsType};
    if (intern_names(names) || record_fields_init()) return NULL;
    return ext_module(&module_def, types, 1);
}
