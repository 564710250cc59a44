/* kgroup.offsets._speedups: the compiled fast path beside the pure-Python codec.
 *
 * Source of truth: the same as codec.py and records.py -- Kafka's message generator
 * (`MessageDataGenerator`: classic and compact lengths, tagged fields, KIP-482) and
 * `DefaultRecord` (magic 2 record framing, zig-zag varints). OFFSETS_FORMAT.md sections 1, 6.1.
 *
 * This module knows no layout: `Reader` runs a small program that codec.py compiles from the
 * tables in schema.py, and `records_v2` frames the records of one magic-2 batch.
 *
 * Contract (what keeps it safe and equal to the interpreter):
 * - every read is bounds-checked against the end the caller gave;
 * - it never reports an error itself: on anything unusual (truncation, bad length, invalid
 *   UTF-8, record headers, a varint it does not handle) it gives up and the pure-Python code
 *   decodes the same bytes, which produces the result or the exact DecodeError/BatchError;
 * - on success its result is the one the pure-Python code returns
 *   (tests/unit/offsets/test_offsets_speedups.py checks this on every fixture and on
 *   hypothesis-generated and mutated input).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* opcodes: keep in step with codec.py (_CProgram) */
enum { OP_FIXED = 1, OP_STR = 2, OP_BYTES = 3, OP_ARRAY_FIXED = 4, OP_ARRAY = 5, OP_STRUCT = 6 };
/* fixed kinds */
enum { K_INT8 = 0, K_INT16, K_UINT16, K_INT32, K_INT64, K_BOOL, K_UUID };
static const int KIND_SIZE[] = {1, 2, 2, 4, 8, 1, 16};

#define BAIL (-1)  /* give up: no Python error is left set when a function returns BAIL */

static PyObject *EMPTY_TUPLE;
static PyObject *EMPTY_STR;
static PyObject *EMPTY_BYTES;

typedef struct {
    const uint8_t *b;
    int flexible;
    int lenient;
} Ctx;

static inline int64_t be16s(const uint8_t *p) { return (int16_t)((p[0] << 8) | p[1]); }
static inline int64_t be16u(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline int64_t be32s(const uint8_t *p)
{
    return (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) |
                     (uint32_t)p[3]);
}
static inline int64_t be64s(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return (int64_t)v;
}

/* Unsigned varint of at most 5 bytes (wire.read_uvarint). */
static inline int read_uvarint(const uint8_t *b, Py_ssize_t *pp, Py_ssize_t e, int64_t *out)
{
    Py_ssize_t p = *pp;
    uint64_t v = 0;
    for (int shift = 0; shift <= 28; shift += 7) {
        if (p >= e) return BAIL;
        uint8_t c = b[p++];
        v |= (uint64_t)(c & 0x7F) << shift;
        if (c < 0x80) {
            *pp = p;
            *out = (int64_t)v;
            return 0;
        }
    }
    return BAIL;
}

/* Zig-zag varint of at most 9 bytes (values below 2**63; longer ones go to Python). */
static inline int read_varint(const uint8_t *b, Py_ssize_t *pp, Py_ssize_t e, int64_t *out)
{
    Py_ssize_t p = *pp;
    uint64_t v = 0;
    for (int shift = 0; shift <= 56; shift += 7) {
        if (p >= e) return BAIL;
        uint8_t c = b[p++];
        v |= (uint64_t)(c & 0x7F) << shift;
        if (c < 0x80) {
            *pp = p;
            *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
            return 0;
        }
    }
    return BAIL;
}

/* A length: classic int16 (strings) / int32 (bytes, arrays), or compact uvarint N+1. */
static inline int read_length(Ctx *c, Py_ssize_t *pp, Py_ssize_t e, int wide, int64_t *out)
{
    if (c->flexible) {
        int64_t n;
        if (read_uvarint(c->b, pp, e, &n)) return BAIL;
        *out = n - 1;
        return 0;
    }
    Py_ssize_t p = *pp;
    int size = wide ? 4 : 2;
    if (e - p < size) return BAIL;
    *out = wide ? be32s(c->b + p) : be16s(c->b + p);
    *pp = p + size;
    return 0;
}

static const char B64URL[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* 16 bytes as Kafka prints a Uuid: base64url without padding (wire.uuid_to_str). */
static PyObject *uuid_str(const uint8_t *s)
{
    char out[22];
    int o = 0;
    for (int i = 0; i < 15; i += 3) {
        uint32_t v = ((uint32_t)s[i] << 16) | ((uint32_t)s[i + 1] << 8) | s[i + 2];
        out[o++] = B64URL[(v >> 18) & 63];
        out[o++] = B64URL[(v >> 12) & 63];
        out[o++] = B64URL[(v >> 6) & 63];
        out[o++] = B64URL[v & 63];
    }
    uint32_t v = (uint32_t)s[15] << 16;
    out[o++] = B64URL[(v >> 18) & 63];
    out[o++] = B64URL[(v >> 12) & 63];
    return PyUnicode_FromStringAndSize(out, 22);
}

static PyObject *read_fixed(const uint8_t *p, long kind)
{
    switch (kind) {
    case K_INT8: return PyLong_FromLong((int8_t)p[0]);
    case K_INT16: return PyLong_FromLongLong(be16s(p));
    case K_UINT16: return PyLong_FromLongLong(be16u(p));
    case K_INT32: return PyLong_FromLongLong(be32s(p));
    case K_INT64: return PyLong_FromLongLong(be64s(p));
    case K_BOOL: return PyBool_FromLong(p[0] != 0);
    case K_UUID: return uuid_str(p);
    }
    return NULL;
}

static int run_struct(Ctx *c, PyObject *prog, Py_ssize_t *pp, Py_ssize_t e, PyObject **out);

/* Read one value described by `op` (opcode, key, arg); *out gets a new reference. */
static int read_value(Ctx *c, PyObject *op, Py_ssize_t *pp, Py_ssize_t e, PyObject **out)
{
    long code = PyLong_AsLong(PyTuple_GET_ITEM(op, 0));
    PyObject *arg = PyTuple_GET_ITEM(op, 2);
    const uint8_t *b = c->b;
    Py_ssize_t p = *pp;
    int64_t n;
    PyObject *v;

    switch (code) {
    case OP_FIXED: {
        long kind = PyLong_AsLong(arg);
        if (kind < 0 || kind > K_UUID || e - p < KIND_SIZE[kind]) return BAIL;
        v = read_fixed(b + p, kind);
        if (v == NULL) goto fail;
        *pp = p + KIND_SIZE[kind];
        *out = v;
        return 0;
    }
    case OP_STR:
    case OP_BYTES:
        if (read_length(c, &p, e, code == OP_BYTES, &n)) return BAIL;
        if (n < 0) {
            if (n != -1) return BAIL;
            Py_INCREF(Py_None);
            *out = Py_None;
            *pp = p;
            return 0;
        }
        if (n > e - p) return BAIL;
        if (n == 0) {
            v = code == OP_STR ? EMPTY_STR : EMPTY_BYTES;
            Py_INCREF(v);
        } else if (code == OP_STR) {
            v = PyUnicode_DecodeUTF8((const char *)b + p, (Py_ssize_t)n, NULL);
        } else {
            v = PyBytes_FromStringAndSize((const char *)b + p, (Py_ssize_t)n);
        }
        if (v == NULL) goto fail;
        *pp = p + (Py_ssize_t)n;
        *out = v;
        return 0;
    case OP_ARRAY_FIXED:
    case OP_ARRAY: {
        if (read_length(c, &p, e, 1, &n)) return BAIL;
        if (n < 0) {
            if (n != -1) return BAIL;
            Py_INCREF(Py_None);
            *out = Py_None;
            *pp = p;
            return 0;
        }
        if (n > e - p) return BAIL; /* every element takes at least one byte */
        long kind = 0;
        if (code == OP_ARRAY_FIXED) {
            kind = PyLong_AsLong(arg);
            if (kind < 0 || kind >= K_UUID || n * KIND_SIZE[kind] > e - p) return BAIL;
        }
        PyObject *list = PyList_New((Py_ssize_t)n);
        if (list == NULL) goto fail;
        for (Py_ssize_t i = 0; i < (Py_ssize_t)n; i++) {
            PyObject *x;
            if (code == OP_ARRAY_FIXED) {
                x = read_fixed(b + p, kind);
                if (x == NULL) {
                    Py_DECREF(list);
                    goto fail;
                }
                p += KIND_SIZE[kind];
            } else if (read_value(c, arg, &p, e, &x)) {
                Py_DECREF(list);
                return BAIL;
            }
            PyList_SET_ITEM(list, i, x);
        }
        *pp = p;
        *out = list;
        return 0;
    }
    case OP_STRUCT: {
        /* arg = (nullable, program) */
        int nullable = PyObject_IsTrue(PyTuple_GET_ITEM(arg, 0));
        PyObject *sub = PyTuple_GET_ITEM(arg, 1);
        if (nullable) {
            if (p >= e) return BAIL;
            if (b[p] >= 128) {
                Py_INCREF(Py_None);
                *out = Py_None;
                *pp = p + 1;
                return 0;
            }
            p += 1;
        }
        if (run_struct(c, sub, &p, e, out)) return BAIL;
        *pp = p;
        return 0;
    }
    }
    return BAIL;
fail:
    PyErr_Clear();
    return BAIL;
}

static int set_item(PyObject *d, PyObject *key, PyObject *v)
{
    int r = PyDict_SetItem(d, key, v);
    Py_DECREF(v);
    if (r) {
        PyErr_Clear();
        return BAIL;
    }
    return 0;
}

/* prog = (plain ops, tagged ((tag, op), ...)); returns a new dict in *out. */
static int run_struct(Ctx *c, PyObject *prog, Py_ssize_t *pp, Py_ssize_t e, PyObject **out)
{
    PyObject *plain = PyTuple_GET_ITEM(prog, 0);
    PyObject *tagged = PyTuple_GET_ITEM(prog, 1);
    Py_ssize_t p = *pp;
    PyObject *d = PyDict_New();
    if (d == NULL) {
        PyErr_Clear();
        return BAIL;
    }
    Py_ssize_t nops = PyTuple_GET_SIZE(plain);
    for (Py_ssize_t i = 0; i < nops; i++) {
        if (c->lenient && p == e) goto done;
        PyObject *op = PyTuple_GET_ITEM(plain, i);
        PyObject *v;
        if (read_value(c, op, &p, e, &v)) goto bail;
        if (set_item(d, PyTuple_GET_ITEM(op, 1), v)) goto bail;
    }
    if (c->flexible) {
        int64_t nt, tag, size;
        if (read_uvarint(c->b, &p, e, &nt)) goto bail;
        Py_ssize_t ntagged = PyTuple_GET_SIZE(tagged);
        for (int64_t t = 0; t < nt; t++) {
            if (read_uvarint(c->b, &p, e, &tag)) goto bail;
            if (read_uvarint(c->b, &p, e, &size)) goto bail;
            if (size > e - p) goto bail;
            Py_ssize_t qt = p + (Py_ssize_t)size;
            PyObject *op = NULL;
            for (Py_ssize_t j = 0; j < ntagged; j++) {
                PyObject *pair = PyTuple_GET_ITEM(tagged, j);
                if (PyLong_AsLongLong(PyTuple_GET_ITEM(pair, 0)) == tag) {
                    op = PyTuple_GET_ITEM(pair, 1);
                    break;
                }
            }
            PyObject *v, *key;
            if (op != NULL) {
                if (read_value(c, op, &p, qt, &v)) goto bail;
                if (p != qt) {
                    Py_DECREF(v);
                    goto bail;
                }
                key = PyTuple_GET_ITEM(op, 1);
                Py_INCREF(key);
            } else {
                v = PyBytes_FromStringAndSize((const char *)c->b + p, qt - p);
                key = PyUnicode_FromFormat("_tag%lld", (long long)tag);
                if (v == NULL || key == NULL) {
                    Py_XDECREF(v);
                    Py_XDECREF(key);
                    PyErr_Clear();
                    goto bail;
                }
            }
            int r = set_item(d, key, v);
            Py_DECREF(key);
            if (r) goto bail;
            p = qt;
        }
    }
done:
    *pp = p;
    *out = d;
    return 0;
bail:
    Py_DECREF(d);
    return BAIL;
}

/* ------------------------------------------------------------------ Reader */

typedef struct {
    PyObject_HEAD
    PyObject *prog;     /* the struct program */
    PyObject *fallback; /* the pure-Python reader: fallback(b, p, e) -> (dict, p) */
    int flexible;
    int lenient;
} Reader;

/* (dict, position) or NULL with no error set when the C path gives up. */
static PyObject *reader_try(Reader *self, PyObject *buf, Py_ssize_t p, Py_ssize_t e)
{
    Py_buffer view;
    if (PyObject_GetBuffer(buf, &view, PyBUF_SIMPLE)) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *result = NULL;
    if (p >= 0 && p <= e && e <= view.len) {
        Ctx c = {(const uint8_t *)view.buf, self->flexible, self->lenient};
        PyObject *d;
        if (run_struct(&c, self->prog, &p, e, &d) == 0) {
            PyObject *pos = PyLong_FromSsize_t(p);
            if (pos == NULL) {
                Py_DECREF(d);
                PyErr_Clear();
            } else {
                result = PyTuple_Pack(2, d, pos);
                Py_DECREF(d);
                Py_DECREF(pos);
                if (result == NULL) PyErr_Clear();
            }
        }
    }
    PyBuffer_Release(&view);
    return result;
}

static int parse_bpe(PyObject *args, PyObject **buf, Py_ssize_t *p, Py_ssize_t *e)
{
    return PyArg_ParseTuple(args, "Onn", buf, p, e);
}

static PyObject *Reader_call(Reader *self, PyObject *args, PyObject *kwargs)
{
    PyObject *buf;
    Py_ssize_t p, e;
    if (kwargs != NULL || !parse_bpe(args, &buf, &p, &e)) {
        PyErr_Clear();
        return PyObject_Call(self->fallback, args, kwargs);
    }
    PyObject *r = reader_try(self, buf, p, e);
    if (r != NULL) return r;
    return PyObject_Call(self->fallback, args, NULL);
}

static PyObject *Reader_try_read(Reader *self, PyObject *args)
{
    PyObject *buf;
    Py_ssize_t p, e;
    if (!parse_bpe(args, &buf, &p, &e)) return NULL;
    PyObject *r = reader_try(self, buf, p, e);
    if (r != NULL) return r;
    Py_RETURN_NONE;
}

static int Reader_init(Reader *self, PyObject *args, PyObject *kwargs)
{
    PyObject *prog, *fallback;
    int flexible, lenient;
    static char *kw[] = {"program", "fallback", "flexible", "lenient", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!Opp", kw, &PyTuple_Type, &prog, &fallback,
                                     &flexible, &lenient))
        return -1;
    if (PyTuple_GET_SIZE(prog) != 2) {
        PyErr_SetString(PyExc_ValueError, "program must be (plain ops, tagged ops)");
        return -1;
    }
    Py_INCREF(prog);
    Py_INCREF(fallback);
    Py_XSETREF(self->prog, prog);
    Py_XSETREF(self->fallback, fallback);
    self->flexible = flexible;
    self->lenient = lenient;
    return 0;
}

static void Reader_dealloc(Reader *self)
{
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->prog);
    Py_CLEAR(self->fallback);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Reader_traverse(Reader *self, visitproc visit, void *arg)
{
    Py_VISIT(self->prog);
    Py_VISIT(self->fallback);
    return 0;
}

static PyMethodDef Reader_methods[] = {
    {"try_read", (PyCFunction)Reader_try_read, METH_VARARGS,
     "try_read(b, p, e) -> (dict, p) or None when the compiled path gives up (tests)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ReaderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kgroup.offsets._speedups.Reader",
    .tp_basicsize = sizeof(Reader),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Reader(program, fallback, flexible, lenient): call as reader(b, p, e).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Reader_init,
    .tp_dealloc = (destructor)Reader_dealloc,
    .tp_traverse = (traverseproc)Reader_traverse,
    .tp_call = (ternaryfunc)Reader_call,
    .tp_methods = Reader_methods,
};

/* ------------------------------------------------------------------ record framing */

/* records_v2(buf, pos, count, base_offset, base_ts, log_time) -> list of
 * (offset, timestamp, key, value, ()) or None (let records._records_v2 decide). */
static PyObject *records_v2(PyObject *mod, PyObject *args)
{
    PyObject *buf, *log_time_obj;
    Py_ssize_t pos;
    long long count, base_offset, base_ts;
    if (!PyArg_ParseTuple(args, "O!nLLLO", &PyBytes_Type, &buf, &pos, &count, &base_offset,
                          &base_ts, &log_time_obj))
        return NULL;
    const uint8_t *b = (const uint8_t *)PyBytes_AS_STRING(buf);
    Py_ssize_t end = PyBytes_GET_SIZE(buf);
    if (pos < 0 || pos > end || count < 0 || count > end - pos) Py_RETURN_NONE;
    int has_log_time = log_time_obj != Py_None;
    long long log_time = 0;
    if (has_log_time) {
        log_time = PyLong_AsLongLong(log_time_obj);
        if (log_time == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
    }
    PyObject *out = PyList_New((Py_ssize_t)count);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < (Py_ssize_t)count; i++) {
        int64_t length, ts_delta, off_delta, klen, vlen;
        long long offset, ts;
        if (read_varint(b, &pos, end, &length)) goto bail;
        if (length < 6 || length > end - pos) goto bail;
        Py_ssize_t rec_end = pos + (Py_ssize_t)length;
        pos += 1; /* attributes (unused) */
        if (read_varint(b, &pos, rec_end, &ts_delta)) goto bail;
        if (read_varint(b, &pos, rec_end, &off_delta)) goto bail;
        if (read_varint(b, &pos, rec_end, &klen)) goto bail;
        PyObject *key = NULL, *value = NULL;
        Py_ssize_t kpos = pos;
        if (klen >= 0) {
            if (klen > rec_end - pos) goto bail;
            pos += (Py_ssize_t)klen;
        }
        if (read_varint(b, &pos, rec_end, &vlen)) goto bail;
        Py_ssize_t vpos = pos;
        if (vlen >= 0) {
            if (vlen > rec_end - pos) goto bail;
            pos += (Py_ssize_t)vlen;
        }
        /* headers: only a zero count here; records with headers go to Python */
        if (pos >= rec_end || b[pos] != 0) goto bail;
        pos += 1;
        if (pos != rec_end) goto bail;
        if (__builtin_add_overflow(base_offset, (long long)off_delta, &offset)) goto bail;
        if (has_log_time) {
            ts = log_time;
        } else if (__builtin_add_overflow(base_ts, (long long)ts_delta, &ts)) {
            goto bail;
        }
        if (klen >= 0) {
            key = PyBytes_FromStringAndSize((const char *)b + kpos, (Py_ssize_t)klen);
        } else {
            key = Py_None;
            Py_INCREF(key);
        }
        if (vlen >= 0) {
            value = PyBytes_FromStringAndSize((const char *)b + vpos, (Py_ssize_t)vlen);
        } else {
            value = Py_None;
            Py_INCREF(value);
        }
        PyObject *o = PyLong_FromLongLong(offset);
        PyObject *t = PyLong_FromLongLong(ts);
        if (key == NULL || value == NULL || o == NULL || t == NULL) {
            Py_XDECREF(key);
            Py_XDECREF(value);
            Py_XDECREF(o);
            Py_XDECREF(t);
            Py_DECREF(out);
            return NULL;
        }
        PyObject *rec = PyTuple_New(5);
        if (rec == NULL) {
            Py_DECREF(key);
            Py_DECREF(value);
            Py_DECREF(o);
            Py_DECREF(t);
            Py_DECREF(out);
            return NULL;
        }
        Py_INCREF(EMPTY_TUPLE);
        PyTuple_SET_ITEM(rec, 0, o);
        PyTuple_SET_ITEM(rec, 1, t);
        PyTuple_SET_ITEM(rec, 2, key);
        PyTuple_SET_ITEM(rec, 3, value);
        PyTuple_SET_ITEM(rec, 4, EMPTY_TUPLE);
        PyList_SET_ITEM(out, i, rec);
    }
    if (pos != end) goto bail;
    return out;
bail:
    Py_DECREF(out);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"records_v2", records_v2, METH_VARARGS,
     "records_v2(buf, pos, count, base_offset, base_ts, log_time) -> list of records or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "kgroup.offsets._speedups",
    "Compiled fast path of the __consumer_offsets codec (see codec.py, records.py).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__speedups(void)
{
    if (PyType_Ready(&ReaderType) < 0) return NULL;
    EMPTY_TUPLE = PyTuple_New(0);
    EMPTY_STR = PyUnicode_FromStringAndSize("", 0);
    EMPTY_BYTES = PyBytes_FromStringAndSize("", 0);
    if (EMPTY_TUPLE == NULL || EMPTY_STR == NULL || EMPTY_BYTES == NULL) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    Py_INCREF(&ReaderType);
    if (PyModule_AddObject(m, "Reader", (PyObject *)&ReaderType) < 0) {
        Py_DECREF(&ReaderType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
