/* kgroup.offsets._speedups: the compiled fast path beside the pure-Python codec.
 *
 * Source of truth: the same as layouts.py and records.py -- Kafka's message generator
 * (`MessageDataGenerator`: classic and compact lengths, tagged fields, KIP-482) and
 * `DefaultRecord` (magic 2 record framing, zig-zag varints). OFFSETS_FORMAT.md sections 1, 6.1.
 *
 * This module knows no layout: `Reader` runs a small program that layouts.py compiles from the
 * tables in schema.py (as strictly as Kafka's generated readers: a negative length of a
 * non-nullable field gives up, so Python raises Kafka's error), `records_v2` frames the records
 * of one magic-2 batch, `ValueDecoder` decodes whole values and writes them as JSON,
 * `LineWriter` writes DecodedRecord.to_json() lines, `CsvWriter` the rows of `decode -o csv`,
 * and `Scanner` runs the scan loop.
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
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#define EXT_MODULE "kgroup.offsets._speedups"
#include "ext_types.h"
#include "json_text.h"
#include "record_slots.h"

/* the offset-commit cells of a CSV row without them: one comma each */
#define EMPTY_COMMIT_CELLS ",,,,,,,"
_Static_assert(sizeof(EMPTY_COMMIT_CELLS) - 1 == OFFSET_COMMIT_COLUMNS, "a comma per cell");

/* opcodes, null markers and fixed kinds of the programs generated with the readers
 * (kgroup/offsets/generated/readers/, PROGRAMS): written by scripts/gen_protocol.py from the
 * table scripts/gen_offsets_codec.py builds the programs with */
#include "opcodes.h"

#define BAIL (-1)  /* give up: no Python error is left set when a function returns BAIL */

static PyObject *EMPTY_TUPLE;
static PyObject *EMPTY_STR;
static PyObject *EMPTY_BYTES;

typedef struct {
    const uint8_t *b;
    int flexible;
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

/* The 7-bit groups of a varint of at most max_bytes bytes, least significant first. */
static inline int read_varint_bits(const uint8_t *b, Py_ssize_t *pp, Py_ssize_t e, int max_bytes,
                                   uint64_t *out)
{
    Py_ssize_t p = *pp;
    uint64_t v = 0;
    for (int shift = 0; shift < 7 * max_bytes; shift += 7) {
        if (p >= e) return BAIL;
        uint8_t c = b[p++];
        v |= (uint64_t)(c & 0x7F) << shift;
        if (c < 0x80) {
            *pp = p;
            *out = v;
            return 0;
        }
    }
    return BAIL;
}

/* Unsigned varint of at most 5 bytes (wire.read_uvarint). */
static inline int read_uvarint(const uint8_t *b, Py_ssize_t *pp, Py_ssize_t e, int64_t *out)
{
    uint64_t v;
    if (read_varint_bits(b, pp, e, 5, &v)) return BAIL;
    *out = (int64_t)v;
    return 0;
}

/* Zig-zag varint of at most 9 bytes (values below 2**63; longer ones go to Python). */
static inline int read_varint(const uint8_t *b, Py_ssize_t *pp, Py_ssize_t e, int64_t *out)
{
    uint64_t v;
    if (read_varint_bits(b, pp, e, 9, &v)) return BAIL;
    *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
    return 0;
}

/* A length: classic int16 (strings) / int32 (bytes, arrays), or compact uvarint N+1 read as
 * Kafka's Java int `readUnsignedVarint() - 1` (codec.read_uvarint32: 32 bits, wrapping). */
static inline int read_length(Ctx *c, Py_ssize_t *pp, Py_ssize_t e, int wide, int64_t *out)
{
    if (c->flexible) {
        int64_t n;
        if (read_uvarint(c->b, pp, e, &n)) return BAIL;
        *out = (int32_t)((uint32_t)n - 1u);
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

/* Whether a negative length/count of this op is null (else Kafka rejects it: the C code gives
 * up and the Python reader raises "non-nullable field ... was serialized as null"). */
static inline int op_nullable(PyObject *op)
{
    return PyTuple_GET_SIZE(op) > 3 && PyTuple_GET_ITEM(op, 3) == Py_True;
}

/* Kafka's generated readers reject a string longer than 0x7fff ("had invalid length"). */
#define MAX_STRING 0x7FFF

static int run_struct(Ctx *c, PyObject *prog, Py_ssize_t *pp, Py_ssize_t e, PyObject **out);
static int run_struct_into(Ctx *c, PyObject *prog, Py_ssize_t *pp, Py_ssize_t e, PyObject *d);

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
            if (!op_nullable(op)) return BAIL;
            Py_INCREF(Py_None);
            *out = Py_None;
            *pp = p;
            return 0;
        }
        if (n > e - p || (code == OP_STR && n > MAX_STRING)) return BAIL;
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
            if (!op_nullable(op)) return BAIL;
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
        /* A list of ints, strings, bytes or None holds no reference the garbage collector
         * could need (as CPython does for such tuples): keep it out of its generations.
         * Decoded values are not extended afterwards. */
        long elem = code == OP_ARRAY_FIXED ? OP_FIXED : PyLong_AsLong(PyTuple_GET_ITEM(arg, 0));
        if (elem == OP_FIXED || elem == OP_STR || elem == OP_BYTES) PyObject_GC_UnTrack(list);
        *pp = p;
        *out = list;
        return 0;
    }
    case OP_STRUCT: {
        /* arg = (null marker, program) */
        long nullable = PyLong_AsLong(PyTuple_GET_ITEM(arg, 0));
        PyObject *sub = PyTuple_GET_ITEM(arg, 1);
        if (nullable == NULL_VARINT) {
            int64_t m;
            if (read_uvarint(b, &p, e, &m)) return BAIL;
            if (m == 0) {
                Py_INCREF(Py_None);
                *out = Py_None;
                *pp = p;
                return 0;
            }
        } else if (nullable == NULL_BYTE) {
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

/* prog = (plain ops, tagged ((tag, op), ...)); adds the fields to the dict d (borrowed). */
static int run_struct_into(Ctx *c, PyObject *prog, Py_ssize_t *pp, Py_ssize_t e, PyObject *d)
{
    PyObject *plain = PyTuple_GET_ITEM(prog, 0);
    PyObject *tagged = PyTuple_GET_ITEM(prog, 1);
    Py_ssize_t p = *pp;
    Py_ssize_t nops = PyTuple_GET_SIZE(plain);
    for (Py_ssize_t i = 0; i < nops; i++) {
        PyObject *op = PyTuple_GET_ITEM(plain, i);
        PyObject *v;
        if (read_value(c, op, &p, e, &v)) goto bail;
        if (set_item(d, PyTuple_GET_ITEM(op, 1), v)) goto bail;
    }
    if (c->flexible) {
        int64_t nt, tag, size;
        if (read_uvarint(c->b, &p, e, &nt)) goto bail;
        nt = (int32_t)(uint32_t)nt; /* a Java int: negative reads no field (layouts.py) */
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
    *pp = p;
    return 0;
bail:
    return BAIL;
}

/* A dict sized for n entries (no resizing while the fields go in). */
static inline PyObject *new_dict(Py_ssize_t n)
{
#if PY_VERSION_HEX < 0x030E0000
    return _PyDict_NewPresized(n);
#else
    (void)n;
    return PyDict_New();
#endif
}

/* prog run into a new dict (*out). */
static int run_struct(Ctx *c, PyObject *prog, Py_ssize_t *pp, Py_ssize_t e, PyObject **out)
{
    PyObject *d = new_dict(PyTuple_GET_SIZE(PyTuple_GET_ITEM(prog, 0)));
    if (d == NULL) {
        PyErr_Clear();
        return BAIL;
    }
    if (run_struct_into(c, prog, pp, e, d)) {
        Py_DECREF(d);
        return BAIL;
    }
    *out = d;
    return 0;
}

/* ------------------------------------------------------------------ Reader */

typedef struct {
    PyObject_HEAD
    PyObject *prog;     /* the struct program */
    PyObject *fallback; /* the pure-Python reader: fallback(b, p, e) -> (dict, p) */
    int flexible;
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
        Ctx c = {(const uint8_t *)view.buf, self->flexible};
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
    int flexible;
    static char *kw[] = {"program", "fallback", "flexible", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!Op", kw, &PyTuple_Type, &prog, &fallback,
                                     &flexible))
        return -1;
    if (PyTuple_GET_SIZE(prog) != 2) {
        PyErr_SetString(PyExc_ValueError, "program must be (plain ops, tagged ops)");
        return -1;
    }
    Py_XSETREF(self->prog, Py_NewRef(prog));
    Py_XSETREF(self->fallback, Py_NewRef(fallback));
    self->flexible = flexible;
    return 0;
}

static PyMethodDef Reader_methods[] = {
    {"try_read", (PyCFunction)Reader_try_read, METH_VARARGS,
     "try_read(b, p, e) -> (dict, p) or None when the compiled path gives up (tests)."},
    {NULL, NULL, 0, NULL},
};

static const Py_ssize_t Reader_refs[] = {offsetof(Reader, prog), offsetof(Reader, fallback), 0};

static ExtType ReaderType = {
    {EXT_TYPE(Reader, "Reader(program, fallback, flexible): call as reader(b, p, e)."),
     .tp_call = (ternaryfunc)Reader_call, .tp_methods = Reader_methods},
    Reader_refs,
    NULL,
};

/* ------------------------------------------------------------------ record framing */

/* What the records of a batch take from its header: offsets and timestamps are deltas from
 * base_offset and base_ts, or every timestamp is log_time (a LogAppendTime batch). */
typedef struct {
    long long base_offset, base_ts, log_time;
    int has_log_time;
} BatchBase;

/* One record of a magic-2 batch (DefaultRecord), as frame_record finds it. */
typedef struct {
    long long offset, timestamp;
    Py_ssize_t kpos, vpos; /* where the key and the value start */
    int64_t klen, vlen;    /* their lengths; -1: null */
} RecordFrame;

/* A field of `len` bytes at *pp (-1: null, no bytes), within `end`: *start gets where it
 * starts, *pp moves past it. */
static inline int skip_field(Py_ssize_t *pp, Py_ssize_t end, int64_t len, Py_ssize_t *start)
{
    *start = *pp;
    if (len < 0) return 0;
    if (len > end - *pp) return BAIL;
    *pp += (Py_ssize_t)len;
    return 0;
}

/* The record at *pp, within `end`: length, attributes (unused), timestamp and offset deltas,
 * key, value, and headers -- only a zero count here; records with headers go to Python.
 * *pp moves past it. */
static int frame_record(const uint8_t *b, Py_ssize_t *pp, Py_ssize_t end, const BatchBase *batch,
                        RecordFrame *r)
{
    Py_ssize_t pos = *pp;
    int64_t length, ts_delta, off_delta;
    if (read_varint(b, &pos, end, &length)) return BAIL;
    if (length < 6 || length > end - pos) return BAIL;
    Py_ssize_t rec_end = pos + (Py_ssize_t)length;
    pos += 1;
    if (read_varint(b, &pos, rec_end, &ts_delta) || read_varint(b, &pos, rec_end, &off_delta) ||
        read_varint(b, &pos, rec_end, &r->klen) || skip_field(&pos, rec_end, r->klen, &r->kpos) ||
        read_varint(b, &pos, rec_end, &r->vlen) || skip_field(&pos, rec_end, r->vlen, &r->vpos))
        return BAIL;
    if (pos >= rec_end || b[pos] != 0 || pos + 1 != rec_end) return BAIL;
    if (__builtin_add_overflow(batch->base_offset, (long long)off_delta, &r->offset)) return BAIL;
    if (batch->has_log_time) {
        r->timestamp = batch->log_time;
    } else if (__builtin_add_overflow(batch->base_ts, (long long)ts_delta, &r->timestamp)) {
        return BAIL;
    }
    *pp = rec_end;
    return 0;
}

/* b[pos:pos+len] as bytes, or None for a null field (len -1); a new reference. */
static PyObject *bytes_or_none(const uint8_t *b, Py_ssize_t pos, int64_t len)
{
    if (len < 0) {
        Py_INCREF(Py_None);
        return Py_None;
    }
    return PyBytes_FromStringAndSize((const char *)b + pos, (Py_ssize_t)len);
}

/* records_v2(buf, pos, count, base_offset, base_ts, log_time) -> list of
 * (offset, timestamp, key, value, ()) or None (let records._records_v2 decide). */
static PyObject *records_v2(PyObject *mod, PyObject *args)
{
    PyObject *buf, *log_time_obj;
    Py_ssize_t pos;
    long long count;
    BatchBase batch = {0, 0, 0, 0};
    if (!PyArg_ParseTuple(args, "O!nLLLO", &PyBytes_Type, &buf, &pos, &count, &batch.base_offset,
                          &batch.base_ts, &log_time_obj))
        return NULL;
    const uint8_t *b = (const uint8_t *)PyBytes_AS_STRING(buf);
    Py_ssize_t end = PyBytes_GET_SIZE(buf);
    if (pos < 0 || pos > end || count < 0 || count > end - pos) Py_RETURN_NONE;
    batch.has_log_time = log_time_obj != Py_None;
    if (batch.has_log_time) {
        batch.log_time = PyLong_AsLongLong(log_time_obj);
        if (batch.log_time == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
    }
    PyObject *out = PyList_New((Py_ssize_t)count);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < (Py_ssize_t)count; i++) {
        RecordFrame frame;
        if (frame_record(b, &pos, end, &batch, &frame)) goto bail;
        PyObject *key = bytes_or_none(b, frame.kpos, frame.klen);
        PyObject *value = bytes_or_none(b, frame.vpos, frame.vlen);
        PyObject *o = PyLong_FromLongLong(frame.offset);
        PyObject *t = PyLong_FromLongLong(frame.timestamp);
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

/* ------------------------------------------------------------------ ValueDecoder */

/* decode.decode_value for values that need nothing but the tables: the value program of
 * (record type, version), read strictly to the end, plus -- for GroupMetadataValue -- the
 * expansion of members' ConsumerProtocol subscription/assignment bytes (embedded.expand_members).
 * Anything else (unknown version, trailing bytes, other protocol types, assignor user data to
 * decode, a bad embedded message) gives up: decode.py then decodes the same bytes itself. */

#define MAX_TYPES 64
#define MAX_VERSIONS 16
#define EMB_VERSIONS 16
#define GROUP_METADATA 2

static PyObject *K_MEMBERS, *K_PROTOCOL_TYPE, *K_PROTOCOL, *K_SUBSCRIPTION, *K_ASSIGNMENT,
    *K_USER_DATA, *K_VERSION;

typedef struct {
    PyObject_HEAD
    PyObject *tables;                          /* keeps the programs below alive */
    PyObject *prog[MAX_TYPES][MAX_VERSIONS];   /* borrowed from tables; NULL = none */
    char flex[MAX_TYPES][MAX_VERSIONS];
    PyObject *sub[EMB_VERSIONS];               /* ConsumerProtocolSubscription v0.. */
    PyObject *asg[EMB_VERSIONS];               /* ConsumerProtocolAssignment v0.. */
    int nsub, nasg;
} ValueDecoder;

/* {"version": v, **fields} of an int16-versioned embedded message (embedded._versioned). */
static int read_versioned(PyObject **progs, int nprogs, const uint8_t *b, Py_ssize_t len,
                          PyObject **out)
{
    if (len < 2) return BAIL;
    int version = (int)be16s(b);
    if (version < 0 || nprogs == 0) return BAIL;
    int read_version = version < nprogs ? version : nprogs - 1;
    PyObject *prog = progs[read_version];
    if (prog == NULL) return BAIL;
    PyObject *d = new_dict(1 + PyTuple_GET_SIZE(PyTuple_GET_ITEM(prog, 0)));
    PyObject *v = PyLong_FromLong(version);
    if (d == NULL || v == NULL || PyDict_SetItem(d, K_VERSION, v)) {
        Py_XDECREF(d);
        Py_XDECREF(v);
        PyErr_Clear();
        return BAIL;
    }
    Py_DECREF(v);
    Ctx c = {b, 0};
    Py_ssize_t p = 2;
    if (run_struct_into(&c, prog, &p, len, d)) {
        Py_DECREF(d);
        return BAIL;
    }
    *out = d;
    return 0;
}

/* One member's subscription or assignment bytes for protocol type "consumer". */
static int consumer_bytes(ValueDecoder *vd, PyObject *data, int is_sub, int sticky, PyObject **out)
{
    if (data == NULL || data == Py_None) {
        Py_INCREF(Py_None);
        *out = Py_None;
        return 0;
    }
    if (!PyBytes_CheckExact(data)) return BAIL;
    Py_ssize_t len = PyBytes_GET_SIZE(data);
    if (len == 0) {
        *out = PyDict_New();
        if (*out == NULL) {
            PyErr_Clear();
            return BAIL;
        }
        return 0;
    }
    const uint8_t *b = (const uint8_t *)PyBytes_AS_STRING(data);
    PyObject *d;
    if (read_versioned(is_sub ? vd->sub : vd->asg, is_sub ? vd->nsub : vd->nasg, b, len, &d))
        return BAIL;
    if (is_sub && sticky) {
        /* embedded.decode_user_data would decode non-empty user data: leave that to Python */
        PyObject *ud = PyDict_GetItemWithError(d, K_USER_DATA);
        if (ud == NULL && PyErr_Occurred()) PyErr_Clear();
        if (ud != NULL && PyObject_IsTrue(ud) != 0) {
            PyErr_Clear();
            Py_DECREF(d);
            return BAIL;
        }
    }
    *out = d;
    return 0;
}

static int is_ascii(PyObject *s, const char *text)
{
    return s != NULL && PyUnicode_CheckExact(s) && PyUnicode_CompareWithASCIIString(s, text) == 0;
}

/* embedded.expand_members for protocol type "consumer"; any other gives up. All members are
 * decoded before any is replaced, so giving up leaves `value` as the table reader made it. */
static int expand_members(ValueDecoder *vd, PyObject *value)
{
    PyObject *members = PyDict_GetItemWithError(value, K_MEMBERS);
    if (members == NULL) {
        if (PyErr_Occurred()) PyErr_Clear();
        return 0;
    }
    if (members == Py_None) return 0;
    if (!PyList_CheckExact(members)) return BAIL;
    Py_ssize_t n = PyList_GET_SIZE(members);
    if (n == 0) return 0;
    PyObject *ptype = PyDict_GetItemWithError(value, K_PROTOCOL_TYPE);
    if (!is_ascii(ptype, "consumer")) {
        PyErr_Clear();
        return BAIL;
    }
    PyObject *protocol = PyDict_GetItemWithError(value, K_PROTOCOL);
    PyErr_Clear();
    int sticky = is_ascii(protocol, "sticky") || is_ascii(protocol, "cooperative-sticky");
    PyObject *made = PyList_New(2 * n);
    if (made == NULL) {
        PyErr_Clear();
        return BAIL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *m = PyList_GET_ITEM(members, i);
        PyObject *s, *a;
        if (!PyDict_CheckExact(m)) goto bail;
        if (consumer_bytes(vd, PyDict_GetItemWithError(m, K_SUBSCRIPTION), 1, sticky, &s))
            goto bail;
        PyList_SET_ITEM(made, 2 * i, s);
        if (consumer_bytes(vd, PyDict_GetItemWithError(m, K_ASSIGNMENT), 0, sticky, &a))
            goto bail;
        PyList_SET_ITEM(made, 2 * i + 1, a);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *m = PyList_GET_ITEM(members, i);
        if (PyDict_SetItem(m, K_SUBSCRIPTION, PyList_GET_ITEM(made, 2 * i)) ||
            PyDict_SetItem(m, K_ASSIGNMENT, PyList_GET_ITEM(made, 2 * i + 1)))
            goto bail; /* only on memory errors; the caller drops `value` */
    }
    Py_DECREF(made);
    return 0;
bail:
    PyErr_Clear();
    Py_DECREF(made);
    return BAIL;
}

/* The fields of a value of record type `type_id` in b[0:len] (starting with its int16
 * version), or BAIL. *version gets the version read. */
static int vd_decode(ValueDecoder *vd, long type_id, const uint8_t *b, Py_ssize_t len,
                     int *version, PyObject **out)
{
    if (type_id < 0 || type_id >= MAX_TYPES || len < 2) return BAIL;
    int v = (int)be16s(b);
    if (v < 0 || v >= MAX_VERSIONS) return BAIL;
    PyObject *prog = vd->prog[type_id][v];
    if (prog == NULL) return BAIL;
    Ctx c = {b, vd->flex[type_id][v]};
    Py_ssize_t p = 2;
    PyObject *d;
    if (run_struct(&c, prog, &p, len, &d)) return BAIL;
    if (p != len || (type_id == GROUP_METADATA && expand_members(vd, d))) {
        Py_DECREF(d);
        return BAIL;
    }
    *version = v;
    *out = d;
    return 0;
}

/* vd(type_id, value_bytes) -> (version, fields) or None (decode.py decodes it itself). */
static PyObject *ValueDecoder_call(ValueDecoder *self, PyObject *args, PyObject *kwargs)
{
    long type_id;
    PyObject *raw;
    if (kwargs != NULL || !PyArg_ParseTuple(args, "lO!", &type_id, &PyBytes_Type, &raw))
        return NULL;
    int version;
    PyObject *d;
    if (vd_decode(self, type_id, (const uint8_t *)PyBytes_AS_STRING(raw), PyBytes_GET_SIZE(raw),
                  &version, &d))
        Py_RETURN_NONE;
    PyObject *v = PyLong_FromLong(version);
    if (v == NULL) {
        Py_DECREF(d);
        return NULL;
    }
    PyObject *r = PyTuple_Pack(2, v, d);
    Py_DECREF(v);
    Py_DECREF(d);
    return r;
}

/* ------------------------------------------------------------------ values as JSON */

/* ValueDecoder.json(type_id, raw): the compact JSON text of what vd(type_id, raw) returns,
 * written straight from the bytes (no dicts): the text `json.dumps(fields,
 * separators=(",", ":"), ensure_ascii=False)` gives, bytes as standard base64 -- what
 * decode._dumps writes. It gives up (None) wherever vd would, and also on any tagged field,
 * so its text is always that of the decoded fields (tests/unit/offsets/test_offsets_speedups.py
 * compares them on fixtures and generated values). */

enum { ROLE_PLAIN, ROLE_MEMBERS, ROLE_MEMBER, ROLE_STICKY_SUBSCRIPTION };

typedef struct {
    Ctx c;
    JBuf *j;
    ValueDecoder *vd;
    int group_top;             /* the top level of a GroupMetadataValue */
    const uint8_t *ptype, *proto; /* its protocol_type / protocol bytes (NULL: null / unseen) */
    Py_ssize_t ptype_n, proto_n;
} JCtx;

static int jb_fixed(JBuf *j, const uint8_t *p, long kind)
{
    switch (kind) {
    case K_INT8: return jb_int(j, (int8_t)p[0]);
    case K_INT16: return jb_int(j, be16s(p));
    case K_UINT16: return jb_int(j, be16u(p));
    case K_INT32: return jb_int(j, be32s(p));
    case K_INT64: return jb_int(j, be64s(p));
    case K_BOOL: return p[0] ? jb_put(j, "true", 4) : jb_put(j, "false", 5);
    case K_UUID: {
        PyObject *u = uuid_str(p);
        if (u == NULL) {
            PyErr_Clear();
            return BAIL;
        }
        int r = jb_ch(j, '"') || jb_put(j, PyUnicode_AsUTF8(u), 22) || jb_ch(j, '"');
        Py_DECREF(u);
        return r ? BAIL : 0;
    }
    }
    return BAIL;
}

static int json_fields(JCtx *x, PyObject *prog, Py_ssize_t *pp, Py_ssize_t e, int role, int first);
static int json_consumer(JCtx *x, const uint8_t *b, Py_ssize_t n, int is_sub);

static int is_text(const uint8_t *s, Py_ssize_t n, const char *text)
{
    return s != NULL && (size_t)n == strlen(text) && memcmp(s, text, (size_t)n) == 0;
}

/* One value described by `op`; `role` says what it is inside a group's metadata. */
static int json_value(JCtx *x, PyObject *op, Py_ssize_t *pp, Py_ssize_t e, int role)
{
    long code = PyLong_AsLong(PyTuple_GET_ITEM(op, 0));
    PyObject *arg = PyTuple_GET_ITEM(op, 2);
    const uint8_t *b = x->c.b;
    JBuf *j = x->j;
    Py_ssize_t p = *pp;
    int64_t n;

    switch (code) {
    case OP_FIXED: {
        long kind = PyLong_AsLong(arg);
        if (kind < 0 || kind > K_UUID || e - p < KIND_SIZE[kind]) return BAIL;
        if (jb_fixed(j, b + p, kind)) return BAIL;
        *pp = p + KIND_SIZE[kind];
        return 0;
    }
    case OP_STR:
    case OP_BYTES:
        if (read_length(&x->c, &p, e, code == OP_BYTES, &n)) return BAIL;
        if (n < 0) {
            if (!op_nullable(op)) return BAIL;
            *pp = p;
            return jb_put(j, "null", 4);
        }
        if (n > e - p || (code == OP_STR && n > MAX_STRING)) return BAIL;
        if (code == OP_STR ? jb_str(j, b + p, (Py_ssize_t)n) : jb_b64(j, b + p, (Py_ssize_t)n))
            return BAIL;
        *pp = p + (Py_ssize_t)n;
        return 0;
    case OP_ARRAY_FIXED:
    case OP_ARRAY: {
        if (read_length(&x->c, &p, e, 1, &n)) return BAIL;
        if (n < 0) {
            if (!op_nullable(op)) return BAIL;
            *pp = p;
            return jb_put(j, "null", 4);
        }
        if (n > e - p) return BAIL;
        long kind = 0;
        if (code == OP_ARRAY_FIXED) {
            kind = PyLong_AsLong(arg);
            if (kind < 0 || kind >= K_UUID || n * KIND_SIZE[kind] > e - p) return BAIL;
        }
        int elem_role = ROLE_PLAIN;
        if (role == ROLE_MEMBERS) {
            /* embedded.expand_members: consumer members only (else the Python path) */
            if (n > 0 && !is_text(x->ptype, x->ptype_n, "consumer")) return BAIL;
            if (code != OP_ARRAY) return BAIL;
            elem_role = ROLE_MEMBER;
        }
        if (jb_ch(j, '[')) return BAIL;
        for (Py_ssize_t i = 0; i < (Py_ssize_t)n; i++) {
            if (i && jb_ch(j, ',')) return BAIL;
            if (code == OP_ARRAY_FIXED) {
                if (jb_fixed(j, b + p, kind)) return BAIL;
                p += KIND_SIZE[kind];
            } else if (json_value(x, arg, &p, e, elem_role)) {
                return BAIL;
            }
        }
        *pp = p;
        return jb_ch(j, ']');
    }
    case OP_STRUCT: {
        long nullable = PyLong_AsLong(PyTuple_GET_ITEM(arg, 0));
        PyObject *sub = PyTuple_GET_ITEM(arg, 1);
        if (nullable == NULL_VARINT) return BAIL; /* only in tagged fields: the Python path */
        if (nullable == NULL_BYTE) {
            if (p >= e) return BAIL;
            if (b[p] >= 128) {
                if (role == ROLE_MEMBER) return BAIL; /* a null member: the Python path */
                *pp = p + 1;
                return jb_put(j, "null", 4);
            }
            p += 1;
        }
        if (jb_ch(j, '{') || json_fields(x, sub, &p, e, role, 1) || jb_ch(j, '}')) return BAIL;
        *pp = p;
        return 0;
    }
    }
    return BAIL;
}

/* The fields of a struct (no braces); `first`: no comma before the first one. */
static int json_fields(JCtx *x, PyObject *prog, Py_ssize_t *pp, Py_ssize_t e, int role, int first)
{
    PyObject *plain = PyTuple_GET_ITEM(prog, 0);
    JBuf *j = x->j;
    Py_ssize_t p = *pp;
    Py_ssize_t nops = PyTuple_GET_SIZE(plain);
    int group_top = x->group_top;
    x->group_top = 0; /* nested structs are not the top level */
    int seen_sub = 0, seen_asg = 0;
    for (Py_ssize_t i = 0; i < nops; i++) {
        PyObject *op = PyTuple_GET_ITEM(plain, i);
        PyObject *key = PyTuple_GET_ITEM(op, 1);
        long code = PyLong_AsLong(PyTuple_GET_ITEM(op, 0));
        if (!first && jb_ch(j, ',')) return BAIL;
        first = 0;
        if (jb_key(j, key)) return BAIL;
        int child = ROLE_PLAIN;
        if (group_top && code == OP_STR &&
            (is_ascii(key, "protocol_type") || is_ascii(key, "protocol"))) {
            /* remember the text: members are expanded by protocol type, sticky user data */
            Py_ssize_t q = p;
            int64_t n;
            if (read_length(&x->c, &q, e, 0, &n) || n > e - q) return BAIL;
            const uint8_t *s = n < 0 ? NULL : x->c.b + q;
            if (is_ascii(key, "protocol_type")) {
                x->ptype = s;
                x->ptype_n = (Py_ssize_t)n;
            } else {
                x->proto = s;
                x->proto_n = (Py_ssize_t)n;
            }
        } else if (group_top && is_ascii(key, "members")) {
            child = ROLE_MEMBERS;
        } else if (role == ROLE_MEMBER && code == OP_BYTES &&
                   (is_ascii(key, "subscription") || is_ascii(key, "assignment"))) {
            int is_sub = is_ascii(key, "subscription");
            int64_t n;
            if (read_length(&x->c, &p, e, 1, &n)) return BAIL;
            if (n < 0) {
                if (!op_nullable(op) || jb_put(j, "null", 4)) return BAIL;
            } else {
                if (n > e - p || json_consumer(x, x->c.b + p, (Py_ssize_t)n, is_sub)) return BAIL;
                p += (Py_ssize_t)n;
            }
            seen_sub |= is_sub;
            seen_asg |= !is_sub;
            continue;
        } else if (role == ROLE_STICKY_SUBSCRIPTION && code == OP_BYTES &&
                   is_ascii(key, "user_data")) {
            /* embedded.decode_user_data reads non-empty sticky user data: the Python path */
            Py_ssize_t q = p;
            int64_t n;
            if (read_length(&x->c, &q, e, 1, &n) || n > 0) return BAIL;
        }
        if (json_value(x, op, &p, e, child)) return BAIL;
    }
    if (role == ROLE_MEMBER && !(seen_sub && seen_asg)) return BAIL;
    if (x->c.flexible) {
        int64_t nt;
        if (read_uvarint(x->c.b, &p, e, &nt) || nt != 0) return BAIL; /* tags: Python */
    }
    *pp = p;
    return 0;
}

/* A member's subscription/assignment bytes for protocol type "consumer" (consumer_bytes). */
static int json_consumer(JCtx *x, const uint8_t *b, Py_ssize_t n, int is_sub)
{
    if (n == 0) return jb_put(x->j, "{}", 2);
    if (n < 2) return BAIL;
    int version = (int)be16s(b);
    int nprogs = is_sub ? x->vd->nsub : x->vd->nasg;
    if (version < 0 || nprogs == 0) return BAIL;
    PyObject *prog = (is_sub ? x->vd->sub : x->vd->asg)[version < nprogs ? version : nprogs - 1];
    if (prog == NULL) return BAIL;
    int sticky = is_text(x->proto, x->proto_n, "sticky") ||
                 is_text(x->proto, x->proto_n, "cooperative-sticky");
    JCtx inner = *x;
    inner.c.b = b;
    inner.c.flexible = 0;
    inner.group_top = 0;
    Py_ssize_t p = 2;
    if (jb_put(x->j, "{\"version\":", 11) || jb_int(x->j, version)) return BAIL;
    if (json_fields(&inner, prog, &p, n, is_sub && sticky ? ROLE_STICKY_SUBSCRIPTION : ROLE_PLAIN,
                    0))
        return BAIL;
    return jb_ch(x->j, '}');
}

/* The JSON text of a value of record type `type_id` (b[0:len], int16 version first) appended
 * to j; *version gets its version. BAIL (j->len unchanged) wherever vd would give up. */
static int vd_json_into(ValueDecoder *vd, long type_id, const uint8_t *b, Py_ssize_t len,
                        JBuf *j, int *version)
{
    if (type_id < 0 || type_id >= MAX_TYPES || len < 2) return BAIL;
    int v = (int)be16s(b);
    if (v < 0 || v >= MAX_VERSIONS || vd->prog[type_id][v] == NULL) return BAIL;
    Py_ssize_t start = j->len;
    JCtx x = {{b, vd->flex[type_id][v]}, j, vd, type_id == GROUP_METADATA, NULL, NULL, 0, 0};
    Py_ssize_t p = 2;
    if (jb_ch(j, '{') == 0 && json_fields(&x, vd->prog[type_id][v], &p, len, ROLE_PLAIN, 1) == 0 &&
        p == len && jb_ch(j, '}') == 0) {
        *version = v;
        return 0;
    }
    PyErr_Clear();
    j->len = start;
    return BAIL;
}

/* vd.json(type_id, raw) -> (version, JSON bytes) or None */
static PyObject *ValueDecoder_json(ValueDecoder *self, PyObject *args)
{
    long type_id;
    PyObject *raw;
    if (!PyArg_ParseTuple(args, "lO!", &type_id, &PyBytes_Type, &raw)) return NULL;
    JBuf j = {NULL, 0, 0};
    int v;
    PyObject *out;
    if (vd_json_into(self, type_id, (const uint8_t *)PyBytes_AS_STRING(raw),
                     PyBytes_GET_SIZE(raw), &j, &v) == 0) {
        PyObject *text = PyBytes_FromStringAndSize(j.p, j.len);
        out = text == NULL ? NULL : Py_BuildValue("iN", v, text);
    } else {
        out = Py_None;
        Py_INCREF(out);
    }
    PyMem_Free(j.p);
    return out;
}

static PyMethodDef ValueDecoder_methods[] = {
    {"json", (PyCFunction)ValueDecoder_json, METH_VARARGS,
     "json(type_id, raw) -> (version, compact JSON bytes of the fields) or None."},
    {NULL, NULL, 0, NULL},
};

static int check_program(PyObject *prog)
{
    return PyTuple_Check(prog) && PyTuple_GET_SIZE(prog) == 2;
}

/* progs[v] = programs[v] (borrowed) for every version; -1 (no error set) on a bad program. */
static int take_programs(PyObject *programs, PyObject **progs)
{
    for (Py_ssize_t v = 0; v < PyTuple_GET_SIZE(programs); v++) {
        if (!check_program(PyTuple_GET_ITEM(programs, v))) return -1;
        progs[v] = PyTuple_GET_ITEM(programs, v);
    }
    return 0;
}

/* ValueDecoder(values, subscription, assignment):
 *   values: tuple indexed by record type id of tuples indexed by version of
 *           (program, flexible) or None;
 *   subscription, assignment: tuples of non-flexible programs by version. */
static int ValueDecoder_init(ValueDecoder *self, PyObject *args, PyObject *kwargs)
{
    PyObject *values, *sub, *asg;
    static char *kw[] = {"values", "subscription", "assignment", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!O!", kw, &PyTuple_Type, &values,
                                     &PyTuple_Type, &sub, &PyTuple_Type, &asg))
        return -1;
    if (PyTuple_GET_SIZE(values) > MAX_TYPES || PyTuple_GET_SIZE(sub) > EMB_VERSIONS ||
        PyTuple_GET_SIZE(asg) > EMB_VERSIONS)
        goto invalid;
    memset(self->prog, 0, sizeof(self->prog));
    memset(self->sub, 0, sizeof(self->sub));
    memset(self->asg, 0, sizeof(self->asg));
    for (Py_ssize_t t = 0; t < PyTuple_GET_SIZE(values); t++) {
        PyObject *versions = PyTuple_GET_ITEM(values, t);
        if (versions == Py_None) continue;
        if (!PyTuple_Check(versions) || PyTuple_GET_SIZE(versions) > MAX_VERSIONS) goto invalid;
        for (Py_ssize_t v = 0; v < PyTuple_GET_SIZE(versions); v++) {
            PyObject *entry = PyTuple_GET_ITEM(versions, v);
            if (entry == Py_None) continue;
            if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2 ||
                !check_program(PyTuple_GET_ITEM(entry, 0)))
                goto invalid;
            self->prog[t][v] = PyTuple_GET_ITEM(entry, 0);
            self->flex[t][v] = (char)PyObject_IsTrue(PyTuple_GET_ITEM(entry, 1));
        }
    }
    if (take_programs(sub, self->sub) || take_programs(asg, self->asg)) goto invalid;
    self->nsub = (int)PyTuple_GET_SIZE(sub);
    self->nasg = (int)PyTuple_GET_SIZE(asg);
    PyObject *tables = PyTuple_Pack(3, values, sub, asg);
    if (tables == NULL) return -1;
    Py_XSETREF(self->tables, tables);
    return 0;
invalid:
    PyErr_SetString(PyExc_ValueError, "bad ValueDecoder tables");
    return -1;
}

static const Py_ssize_t ValueDecoder_refs[] = {offsetof(ValueDecoder, tables), 0};

static ExtType ValueDecoderType = {
    {EXT_TYPE(ValueDecoder, "ValueDecoder(values, subscription, assignment): vd(type_id, raw) -> "
                            "(version, fields) or None."),
     .tp_call = (ternaryfunc)ValueDecoder_call, .tp_methods = ValueDecoder_methods},
    ValueDecoder_refs,
    NULL,
};

/* ------------------------------------------------------------------ record writers */

static int fatal_error(void);

/* What LineWriter and CsvWriter share: Writer(cls, slots, values) -- DecodedRecord, its slot
 * names in the S_* order (decode._SCANNER_SLOTS) and the ValueDecoder whose JSON text they
 * write for a value still pending. */
typedef struct {
    PyObject_HEAD
    PyTypeObject *cls;      /* DecodedRecord */
    Py_ssize_t off[NSLOTS]; /* byte offsets of its slots */
    ValueDecoder *values;
} RecordWriter;

static int record_writer_init(RecordWriter *self, PyObject *args, PyObject *kwargs,
                              const char *who)
{
    PyObject *cls, *slots, *values;
    static char *kw[] = {"cls", "slots", "values", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!O!", kw, &PyType_Type, &cls,
                                     &PyTuple_Type, &slots, &ValueDecoderType.type, &values))
        return -1;
    if (record_slot_offsets((PyTypeObject *)cls, slots, self->off, who)) return -1;
    Py_XSETREF(self->cls, (PyTypeObject *)Py_NewRef(cls));
    Py_XSETREF(self->values, (ValueDecoder *)Py_NewRef(values));
    return 0;
}

/* The slots of `rec` (borrowed) for a writer, BAIL if it is not a `cls` or has a slot unset.
 * *type_id: the key type when it is an int (of 64 bits, else BAIL), else -1. *raw: NULL when
 * no value is pending; else its bytes -- in the form decode.DecodedRecord.to_json writes
 * straight from them, (record type, raw bytes) with an int key type and at least the int16
 * version, else BAIL. */
static int writer_slots(RecordWriter *w, PyObject *rec, PyObject **slot, long *type_id,
                        PyObject **raw)
{
    if (Py_TYPE(rec) != w->cls || record_slots_read(rec, w->off, slot)) return BAIL;
    PyObject *kt = slot[S_KEY_TYPE];
    *type_id = -1;
    if (PyLong_CheckExact(kt)) {
        *type_id = PyLong_AsLong(kt);
        if (*type_id == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return BAIL;
        }
    }
    *raw = NULL;
    if (slot[S_PENDING] == Py_None) return 0;
    *raw = pending_raw(slot[S_PENDING]);
    return *raw == NULL || !PyLong_CheckExact(kt) || PyBytes_GET_SIZE(*raw) < 2 ? BAIL : 0;
}

/* The JSON text of a pending value's raw bytes (ValueDecoder.json) appended to j. */
static int writer_pending_json(RecordWriter *w, long type_id, PyObject *raw, JBuf *j)
{
    int version;
    return vd_json_into(w->values, type_id, (const uint8_t *)PyBytes_AS_STRING(raw),
                        PyBytes_GET_SIZE(raw), j, &version);
}

/* The int16 version that starts a pending value's raw bytes. */
static inline long long pending_version(PyObject *raw)
{
    return be16s((const uint8_t *)PyBytes_AS_STRING(raw));
}

/* ------------------------------------------------------------------ JSON lines */

/* LineWriter(cls, slots, values)(rec): DecodedRecord.to_json() written here from the record's
 * slots -- the same keys in the same order as DecodedRecord._fields, the same text as
 * decode._dumps (orjson) gives -- with a value still pending written straight from its bytes
 * (ValueDecoder.json). None wherever it would differ or cannot tell (a pending value the
 * tables leave to Python, an object of another type, an int beyond 64 bits): the Python code
 * then writes that line. tests/unit/offsets/test_offsets_json_lines.py compares the two. */

typedef struct {
    RecordWriter w;
    JBuf j; /* reused between lines */
} LineWriter;

/* `,"name":` then the object */
static inline int jb_field(JBuf *j, const char *name, PyObject *o)
{
    return jb_put(j, name, (Py_ssize_t)strlen(name)) || jb_obj(j, o, JSON_MAX_DEPTH);
}

static int line_of(LineWriter *self, PyObject *rec)
{
    JBuf *j = &self->j;
    PyObject *slot[NSLOTS], *raw;
    long type_id;
    if (writer_slots(&self->w, rec, slot, &type_id, &raw)) return BAIL;
    j->len = 0;
    if (jb_field(j, "{\"source\":", slot[S_SOURCE])) return BAIL;
    if (slot[S_PARTITION] != Py_None && jb_field(j, ",\"partition\":", slot[S_PARTITION]))
        return BAIL;
    if (jb_field(j, ",\"position\":", slot[S_POSITION]) ||
        jb_field(j, ",\"offset\":", slot[S_OFFSET]) ||
        jb_field(j, ",\"timestamp\":", slot[S_TIMESTAMP]) ||
        jb_field(j, ",\"producer_id\":", slot[S_PRODUCER_ID]) ||
        jb_field(j, ",\"transactional\":", slot[S_TRANSACTIONAL]) ||
        jb_field(j, ",\"control\":", slot[S_CONTROL]) ||
        jb_field(j, ",\"key_type\":", slot[S_KEY_TYPE]) ||
        jb_field(j, ",\"record_type\":", slot[S_RECORD_TYPE]))
        return BAIL;
    if (slot[S_KEY] != Py_None && jb_field(j, ",\"key\":", slot[S_KEY])) return BAIL;
    if (slot[S_KEY_RAW] != Py_None) {
        if (!PyBytes_CheckExact(slot[S_KEY_RAW])) return BAIL;
        if (jb_field(j, ",\"key_raw_base64\":", slot[S_KEY_RAW])) return BAIL;
    }
    if (raw != NULL) { /* decode.DecodedRecord.to_json's direct path */
        static const char VV[] = ",\"value_version\":", VAL[] = ",\"value\":";
        if (jb_put(j, VV, sizeof(VV) - 1) || jb_int(j, pending_version(raw)) ||
            jb_put(j, VAL, sizeof(VAL) - 1) || writer_pending_json(&self->w, type_id, raw, j))
            return BAIL;
        return jb_ch(j, '}');
    }
    if (jb_field(j, ",\"value_version\":", slot[S_VALUE_VERSION]) ||
        jb_field(j, ",\"value\":", slot[S_VALUE]))
        return BAIL;
    if (slot[S_VALUE_RAW] != Py_None) {
        if (!PyBytes_CheckExact(slot[S_VALUE_RAW])) return BAIL;
        if (jb_field(j, ",\"value_raw_base64\":", slot[S_VALUE_RAW])) return BAIL;
    }
    if (slot[S_LAYOUT] != Py_None && jb_field(j, ",\"layout\":", slot[S_LAYOUT])) return BAIL;
    if (slot[S_ERROR] != Py_None && jb_field(j, ",\"error\":", slot[S_ERROR])) return BAIL;
    return jb_ch(j, '}');
}

/* writer(rec) -> the JSON line (str, no newline) or None */
static PyObject *LineWriter_call(LineWriter *self, PyObject *args, PyObject *kwargs)
{
    PyObject *rec;
    if (kwargs != NULL || !PyArg_ParseTuple(args, "O", &rec)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "writer(rec)");
        return NULL;
    }
    if (line_of(self, rec)) {
        if (fatal_error()) return NULL;
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return PyUnicode_DecodeUTF8(self->j.p, self->j.len, NULL);
}

static int LineWriter_init(LineWriter *self, PyObject *args, PyObject *kwargs)
{
    return record_writer_init(&self->w, args, kwargs, "LineWriter");
}

static void LineWriter_release(PyObject *self)
{
    PyMem_Free(((LineWriter *)self)->j.p);
}

static const Py_ssize_t LineWriter_refs[] = {offsetof(LineWriter, w.cls),
                                             offsetof(LineWriter, w.values), 0};

static ExtType LineWriterType = {
    {EXT_TYPE(LineWriter,
              "LineWriter(cls, slots, values): writer(rec) -> rec.to_json() text or None."),
     .tp_call = (ternaryfunc)LineWriter_call},
    LineWriter_refs,
    LineWriter_release,
};

/* ------------------------------------------------------------------ CSV rows */

/* CsvWriter(cls, slots, values).fill(it, limit): the CSV rows of `kgroup decode -o csv`
 * (kgroup/render/records_stream.py write_csv) written here from the records' slots, pulled
 * from the iterator `it` until the rows hold `limit` bytes. Source of truth: the Python
 * writer there (columns of kgroup/scan/rows.py without file_index, cells as
 * RowBuilder(native=False).add builds them, `_csv_cell`): RFC 4180, every text cell quoted,
 * null empty, booleans true/false; text cells escaped as render/safe.py's csv_safe does
 * (C0/C1 controls, DEL and bidi controls as \xNN / \uNNNN, a leading `= + - @` defused with
 * `'`), the key_json/value_json cells as json_text_safe does (DEL, C1, bidi as \uNNNN; the
 * JSON text is LineWriter's). A record it cannot write as the Python code would (a pending
 * value the tables leave to Python, an object of another type, an int beyond 64 bits, a str
 * with lone surrogates) is handed back, unwritten, for the Python writer. The formula rule is
 * OWASP's "CSV injection" advice, as in safe.py.
 * tests/unit/render/test_records_stream.py compares the two byte for byte. */

typedef struct {
    RecordWriter w;
    JBuf out;      /* the rows of one fill() */
    JBuf cell;     /* one JSON text before it becomes a cell */
    PyObject *exc; /* what the iterator raised, raised by the next fill() */
} CsvWriter;

/* The character at s[i] (UTF-8, s[0:n]) if safe.py escapes it, else -1; *len its bytes. */
static inline long csv_unsafe_at(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, int *len)
{
    uint8_t ch = s[i];
    if (ch < 0x20 || ch == 0x7f) {
        *len = 1;
        return ch;
    }
    if (ch == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f) { /* U+0080-009F */
        *len = 2;
        return s[i + 1];
    }
    if (ch == 0xd8 && i + 1 < n && s[i + 1] == 0x9c) { /* U+061C */
        *len = 2;
        return 0x061c;
    }
    if (ch == 0xe2 && i + 2 < n) {
        uint8_t b1 = s[i + 1], b2 = s[i + 2];
        if ((b1 == 0x80 && (b2 == 0x8e || b2 == 0x8f || (b2 >= 0xaa && b2 <= 0xae))) ||
            (b1 == 0x81 && b2 >= 0xa6 && b2 <= 0xa9)) { /* U+200E-F, 202A-E, 2066-9 */
            *len = 3;
            return ((long)(b1 & 0x0f) << 6 | (b2 & 0x3f)) | 0x2000;
        }
    }
    return -1;
}

static inline char *put_hex(char *o, long code, int digits)
{
    static const char HEX[] = "0123456789abcdef";
    for (int k = digits - 1; k >= 0; k--) *o++ = HEX[(code >> (4 * k)) & 15];
    return o;
}

/* A quoted cell of s[0:n] (valid UTF-8), `"` doubled, with what safe.py escapes escaped: for a
 * text cell as csv_safe does (C0/C1 controls, DEL and bidi controls as \xNN below U+0100, else
 * \uNNNN; a leading `= + - @` defused with `'`), for JSON text as json_text_safe does (DEL, C1
 * and bidi controls as \uNNNN; C0 controls cannot be in JSON text). */
static inline int csv_quoted(JBuf *j, const uint8_t *s, Py_ssize_t n, int json)
{
    if (n > (PY_SSIZE_T_MAX - 3) / 6 || jb_reserve(j, 6 * n + 3)) return BAIL;
    char *o = j->p + j->len;
    *o++ = '"';
    if (!json && n > 0 && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@')) *o++ = '\'';
    for (Py_ssize_t i = 0; i < n;) {
        uint8_t ch = s[i];
        if (ch >= 0x20 && ch < 0x7f) {
            if (ch == '"') *o++ = '"';
            *o++ = (char)ch;
            i++;
            continue;
        }
        int len = 1;
        long code = ch < 0x80 || ch == 0xc2 || ch == 0xd8 || ch == 0xe2 ? csv_unsafe_at(s, i, n, &len)
                                                                        : -1;
        if (json && code < 0x7f) code = -1; /* not in json_text_safe's set */
        if (code < 0) {
            *o++ = (char)ch;
            i++;
            continue;
        }
        *o++ = '\\';
        if (code < 0x100 && !json) {
            *o++ = 'x';
            o = put_hex(o, code, 2);
        } else {
            *o++ = 'u';
            o = put_hex(o, code, 4);
        }
        i += len;
    }
    *o++ = '"';
    j->len = o - j->p;
    return 0;
}

/* A text cell: `"` + csv_safe(text) with `"` doubled + `"`. */
static int csv_text(JBuf *j, const uint8_t *s, Py_ssize_t n)
{
    return csv_quoted(j, s, n, 0);
}

/* A JSON text as a cell: json_text_safe, `"` doubled. */
static int csv_json(JBuf *j, const uint8_t *s, Py_ssize_t n)
{
    return csv_quoted(j, s, n, 1);
}

/* A cell of any slot value as `_csv_cell` writes it: None empty, bools, 64-bit ints, str. */
static int csv_cell(JBuf *j, PyObject *o)
{
    if (o == Py_None) return 0;
    if (PyUnicode_CheckExact(o)) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(o, &n);
        if (s == NULL) return BAIL; /* lone surrogates: the Python writer */
        return csv_text(j, (const uint8_t *)s, n);
    }
    return jb_bool_or_int(j, o);
}

/* `,` then the cell */
static inline int csv_next(JBuf *j, PyObject *o)
{
    return jb_ch(j, ',') || csv_cell(j, o);
}

/* base64 of bytes as a text cell (csv_safe: a leading `+` gets `'`) */
static int csv_b64(CsvWriter *self, PyObject *raw)
{
    JBuf *c = &self->cell;
    if (raw == Py_None) return 0;
    if (!PyBytes_CheckExact(raw)) return BAIL;
    c->len = 0;
    if (jb_b64(c, (const uint8_t *)PyBytes_AS_STRING(raw), PyBytes_GET_SIZE(raw))) return BAIL;
    /* jb_b64 quotes: the text is c->p[1 : len-1] */
    return csv_text(&self->out, (const uint8_t *)c->p + 1, c->len - 2);
}

/* A key_json / value_json cell (json_text_safe): the decode._dumps text of `o` as LineWriter
 * writes it, or that of a pending value's raw bytes when `raw` is not NULL; None empty. */
static int csv_json_cell(CsvWriter *self, PyObject *o, long type_id, PyObject *raw)
{
    JBuf *c = &self->cell;
    if (raw == NULL && o == Py_None) return 0;
    c->len = 0;
    if (raw != NULL ? writer_pending_json(&self->w, type_id, raw, c) : jb_obj(c, o, JSON_MAX_DEPTH))
        return BAIL;
    return csv_json(&self->out, (const uint8_t *)c->p, c->len);
}

static int csv_row(CsvWriter *self, PyObject *rec)
{
    JBuf *j = &self->out;
    PyObject *slot[NSLOTS], *raw;
    long type_id;
    if (writer_slots(&self->w, rec, slot, &type_id, &raw)) return BAIL;
    PyObject *key = slot[S_KEY], *control = slot[S_CONTROL], *kt = slot[S_KEY_TYPE];
    PyObject *value = slot[S_VALUE];
    if (key != Py_None && !PyDict_CheckExact(key)) return BAIL;
    if (control != Py_True && control != Py_False) return BAIL;
    if (kt != Py_None && !PyLong_CheckExact(kt)) return BAIL;
    int is_control = control == Py_True;
    int offsets = is_offset_commit(type_id) && key != Py_None && !is_control;
    /* an offset commit's columns need its decoded value: the Python writer */
    if (raw != NULL && offsets) return BAIL;
    if (raw == NULL && value != Py_None && !PyDict_CheckExact(value)) return BAIL;

    /* source, log_partition, position, offset, timestamp, key_type, record_type */
    if (csv_cell(j, slot[S_SOURCE]) || csv_next(j, slot[S_PARTITION]) ||
        csv_next(j, slot[S_POSITION]) || csv_next(j, slot[S_OFFSET]) ||
        csv_next(j, slot[S_TIMESTAMP]) || csv_next(j, kt) || csv_next(j, slot[S_RECORD_TYPE]))
        return BAIL;
    /* group (DecodedRecord.group); none for control records */
    PyObject *group = key != Py_None && !is_control ? key_group(key) : Py_None;
    if (group == NULL || csv_next(j, group)) return BAIL;
    /* topic, partition, committed_offset, leader_epoch, metadata, commit/expire timestamps */
    if (offsets) {
        PyObject *cells[OFFSET_COMMIT_COLUMNS];
        if (offset_commit_columns(key, value, cells)) return BAIL;
        for (int i = 0; i < OFFSET_COMMIT_COLUMNS; i++) {
            if (csv_next(j, cells[i])) return BAIL;
        }
    } else if (jb_put(j, EMPTY_COMMIT_CELLS, OFFSET_COMMIT_COLUMNS)) {
        return BAIL;
    }
    /* value_version, tombstone, producer_id, transactional, control */
    if (jb_ch(j, ',')) return BAIL;
    if (raw != NULL ? jb_int(j, pending_version(raw)) : csv_cell(j, slot[S_VALUE_VERSION]))
        return BAIL;
    int tombstone = record_tombstone(slot);
    if (jb_put(j, tombstone ? ",true" : ",false", tombstone ? 5 : 6) ||
        csv_next(j, slot[S_PRODUCER_ID]) || csv_next(j, slot[S_TRANSACTIONAL]) ||
        csv_next(j, control))
        return BAIL;
    /* key_json, value_json; key_raw_base64, value_raw_base64 */
    if (jb_ch(j, ',') || csv_json_cell(self, key, -1, NULL) || jb_ch(j, ',') ||
        csv_json_cell(self, value, type_id, raw) || jb_ch(j, ',') ||
        csv_b64(self, slot[S_KEY_RAW]) || jb_ch(j, ',') || csv_b64(self, slot[S_VALUE_RAW]))
        return BAIL;
    /* layout, error (none for a value decoded here) */
    if (raw != NULL) return jb_put(j, ",,\n", 3);
    if (csv_next(j, slot[S_LAYOUT]) || csv_next(j, slot[S_ERROR])) return BAIL;
    return jb_ch(j, '\n');
}

/* writer.fill(it, limit) -> (rows as UTF-8 bytes, rows written, record left or None) */
static PyObject *CsvWriter_fill(CsvWriter *self, PyObject *args)
{
    PyObject *it;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "On", &it, &limit)) return NULL;
    if (!PyIter_Check(it)) {
        PyErr_SetString(PyExc_TypeError, "fill(iterator, limit)");
        return NULL;
    }
    if (self->exc != NULL) { /* raised by the iterator after the rows of the last call */
        PyObject *exc = self->exc;
        self->exc = NULL;
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
        return NULL;
    }
    JBuf *j = &self->out;
    j->len = 0;
    Py_ssize_t rows = 0;
    PyObject *left = Py_None;
    while (j->len < limit) {
        PyObject *rec = PyIter_Next(it);
        if (rec == NULL) {
            if (!PyErr_Occurred()) break;
            if (rows == 0) return NULL;
            /* keep it for the next call: the rows read before it are written first */
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            PyErr_NormalizeException(&type, &value, &tb);
            if (tb != NULL && value != NULL) PyException_SetTraceback(value, tb);
            Py_XDECREF(type);
            Py_XDECREF(tb);
            self->exc = value;
            break;
        }
        Py_ssize_t start = j->len;
        if (csv_row(self, rec) == 0) {
            rows++;
            Py_DECREF(rec);
            continue;
        }
        j->len = start;
        if (fatal_error()) {
            Py_DECREF(rec);
            return NULL;
        }
        PyErr_Clear();
        left = rec; /* the Python writer writes it */
        break;
    }
    PyObject *data = PyBytes_FromStringAndSize(j->p, j->len);
    if (left != Py_None) {
        if (data == NULL) {
            Py_DECREF(left);
            return NULL;
        }
        return Py_BuildValue("NnN", data, rows, left);
    }
    return data == NULL ? NULL : Py_BuildValue("NnO", data, rows, Py_None);
}

static PyMethodDef CsvWriter_methods[] = {
    {"fill", (PyCFunction)CsvWriter_fill, METH_VARARGS,
     "fill(it, limit) -> (CSV rows as bytes, rows, a record left to Python or None); "
     "(b'', 0, None) once `it` is done."},
    {NULL, NULL, 0, NULL},
};

static int CsvWriter_init(CsvWriter *self, PyObject *args, PyObject *kwargs)
{
    return record_writer_init(&self->w, args, kwargs, "CsvWriter");
}

static void CsvWriter_release(PyObject *self)
{
    PyMem_Free(((CsvWriter *)self)->out.p);
    PyMem_Free(((CsvWriter *)self)->cell.p);
}

static const Py_ssize_t CsvWriter_refs[] = {offsetof(CsvWriter, w.cls),
                                            offsetof(CsvWriter, w.values),
                                            offsetof(CsvWriter, exc), 0};

static ExtType CsvWriterType = {
    {EXT_TYPE(CsvWriter,
              "CsvWriter(cls, slots, values): writer.fill(it, limit) -> CSV rows of records."),
     .tp_methods = CsvWriter_methods},
    CsvWriter_refs,
    CsvWriter_release,
};

/* ------------------------------------------------------------------ Scanner */

/* The scan engine's inner loop (scan/local.py LocalEngine._batch_records) over a run of
 * complete magic-2 batches in one buffer: header, CRC-32C (through the crc32c package's
 * function), record framing, keys (decode.decode_key's cache, or decode_key itself), the
 * filters, and the DecodedRecord objects, created here with their slots filled exactly as
 * the Python loop fills them. Offset-commit values are decoded at once (cheap); others are
 * left pending, as the Python loop leaves them.
 *
 * It stops before the first batch it does not take whole -- not magic 2, bad length, not
 * complete in the buffer, CRC mismatch, compressed, control, a record with headers, a key it
 * does not know, a key type other than 0-2 -- and the Python code reads that batch. Nothing
 * of a batch it stops on is kept. */

#define SCAN_TYPES 3 /* key types the scanner takes: 0, 1 (offset commits), 2 (group metadata) */

typedef struct {
    PyObject_HEAD
    PyTypeObject *cls;         /* DecodedRecord */
    Py_ssize_t off[NSLOTS];    /* byte offsets of its slots */
    PyObject *key_cache;       /* decode._KEY_CACHE */
    PyObject *decode_key;      /* decode.decode_key */
    PyObject *crc32c;          /* crc32c.crc32c */
    PyObject *names;           /* record type names by type id (0-2) */
    ValueDecoder *values;
    char eager[SCAN_TYPES];    /* decode these values at once */
} Scanner;

static inline void put(PyObject *o, Py_ssize_t off, PyObject *v) /* steals v */
{
    *(PyObject **)((char *)o + off) = v;
}
static inline void put_ref(PyObject *o, Py_ssize_t off, PyObject *v)
{
    Py_INCREF(v);
    *(PyObject **)((char *)o + off) = v;
}

/* A Python exception that must not be swallowed (KeyboardInterrupt, SystemExit...). */
static int fatal_error(void)
{
    return PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_Exception);
}

typedef struct {
    int has_since, has_until;
    long long since, until;
    PyObject *type_ids, *groups, *topics; /* NULL = no restriction */
} Filter;

/* Whether `item` is in a filter's set: 1 yes, 0 no, BAIL on an error (item NULL: a lookup
 * failed). */
static int in_set(PyObject *set, PyObject *item)
{
    int r = item == NULL ? -1 : PySet_Contains(set, item);
    return r < 0 ? BAIL : r;
}

/* LocalEngine's DecodeFilter.key_ok: 1 keep, 0 drop, BAIL give up. */
static int key_ok(Filter *f, PyObject *key_type_obj, long key_type, PyObject *key)
{
    int r = f->type_ids == NULL ? 1 : in_set(f->type_ids, key_type_obj);
    if (r == 1 && f->groups != NULL) r = in_set(f->groups, key_group(key));
    if (r == 1 && f->topics != NULL)
        r = is_offset_commit(key_type) ? in_set(f->topics, field_get(key, F_TOPIC)) : 0;
    return r;
}

typedef struct {
    PyObject *source, *partition, *position, *producer_id, *producer_epoch, *transactional;
} BatchInfo;

/* The records of one batch appended to `out`; BAIL (nothing appended) to give up. Returns a
 * negative value other than BAIL with a Python error set for errors to pass on. */
#define FATAL (-2)

static int scan_records(Scanner *s, const uint8_t *b, Py_ssize_t pos, Py_ssize_t end,
                        long long count, const BatchBase *batch, BatchInfo *bi, Filter *f,
                        PyObject *out, Py_ssize_t *nread)
{
    Py_ssize_t start_len = PyList_GET_SIZE(out);
    PyObject *rec = NULL;
    if (count < 0 || count > end - pos) return BAIL;
    for (long long i = 0; i < count; i++) {
        RecordFrame frame;
        if (frame_record(b, &pos, end, batch, &frame)) goto bail;
        if (frame.klen < 0) goto bail; /* null keys: Python */
        long long ts = frame.timestamp;
        if ((f->has_since && ts < f->since) || (f->has_until && ts > f->until)) continue;

        /* key: decode_key's cache, else decode_key (which fills the cache) */
        PyObject *kbytes = bytes_or_none(b, frame.kpos, frame.klen);
        if (kbytes == NULL) goto error;
        PyObject *hit = PyDict_GetItemWithError(s->key_cache, kbytes);
        if (hit != NULL) {
            Py_INCREF(hit);
        } else if (!PyErr_Occurred()) {
            hit = PyObject_CallOneArg(s->decode_key, kbytes);
        }
        Py_DECREF(kbytes);
        if (hit == NULL) goto error;
        if (!PyTuple_CheckExact(hit) || PyTuple_GET_SIZE(hit) != 4) {
            Py_DECREF(hit);
            goto bail;
        }
        PyObject *key_type_obj = PyTuple_GET_ITEM(hit, 0);
        PyObject *rt = PyTuple_GET_ITEM(hit, 1);
        PyObject *key = PyTuple_GET_ITEM(hit, 2);
        long key_type = PyLong_CheckExact(key_type_obj) ? PyLong_AsLong(key_type_obj) : -1;
        if (key_type < 0 || key_type >= SCAN_TYPES || rt == Py_None || !PyDict_CheckExact(key)) {
            PyErr_Clear();
            Py_DECREF(hit);
            goto bail; /* unknown keys, other record types: the Python loop */
        }
        int keep = key_ok(f, key_type_obj, key_type, key);
        if (keep != 1) {
            Py_DECREF(hit);
            if (keep == BAIL) {
                if (fatal_error()) goto error;
                PyErr_Clear();
                goto bail;
            }
            continue;
        }

        rec = s->cls->tp_alloc(s->cls, 0);
        if (rec == NULL) {
            Py_DECREF(hit);
            goto error;
        }
        Py_ssize_t *o = s->off;
        put_ref(rec, o[S_SOURCE], bi->source);
        put_ref(rec, o[S_PARTITION], bi->partition);
        put_ref(rec, o[S_POSITION], bi->position);
        put_ref(rec, o[S_PRODUCER_ID], bi->producer_id);
        put_ref(rec, o[S_PRODUCER_EPOCH], bi->producer_epoch);
        put_ref(rec, o[S_TRANSACTIONAL], bi->transactional);
        put_ref(rec, o[S_CONTROL], Py_False);
        put_ref(rec, o[S_KEY_TYPE], key_type_obj);
        put_ref(rec, o[S_RECORD_TYPE], PyTuple_GET_ITEM(s->names, key_type));
        put_ref(rec, o[S_KEY], key);
        put_ref(rec, o[S_ERROR], Py_None);
        put_ref(rec, o[S_KEY_RAW], Py_None);
        put_ref(rec, o[S_VALUE_RAW], Py_None);
        put_ref(rec, o[S_LAYOUT], Py_None);
        PyObject *version = Py_None, *value = Py_None, *pending = Py_None;
        Py_INCREF(Py_None);
        Py_INCREF(Py_None);
        Py_INCREF(Py_None);
        if (frame.vlen >= 0) {
            const uint8_t *raw_value = b + frame.vpos;
            int v;
            PyObject *d;
            if (s->eager[key_type] &&
                vd_decode(s->values, key_type, raw_value, (Py_ssize_t)frame.vlen, &v, &d) == 0) {
                Py_DECREF(value);
                value = d;
                Py_DECREF(version);
                version = PyLong_FromLong(v);
            } else {
                PyObject *raw = bytes_or_none(b, frame.vpos, frame.vlen);
                Py_DECREF(pending);
                pending = raw == NULL ? NULL : PyTuple_Pack(2, rt, raw);
                Py_XDECREF(raw);
            }
        }
        Py_DECREF(hit);
        put(rec, o[S_VALUE_VERSION], version);
        put(rec, o[S_VALUE], value);
        put(rec, o[S_PENDING], pending);
        PyObject *po = PyLong_FromLongLong(frame.offset);
        PyObject *pt = PyLong_FromLongLong(ts);
        put(rec, o[S_OFFSET], po);
        put(rec, o[S_TIMESTAMP], pt);
        if (version == NULL || pending == NULL || po == NULL || pt == NULL) goto error;
        int r = PyList_Append(out, rec);
        Py_CLEAR(rec);
        if (r) goto error;
    }
    if (pos != end) goto bail;
    *nread = (Py_ssize_t)count;
    return 0;
bail:
    PyErr_Clear();
    Py_XDECREF(rec);
    PyList_SetSlice(out, start_len, PyList_GET_SIZE(out), NULL);
    return BAIL;
error:
    /* a NULL slot is left unset (the record is dropped unseen) */
    Py_XDECREF(rec);
    PyList_SetSlice(out, start_len, PyList_GET_SIZE(out), NULL);
    if (fatal_error()) return FATAL;
    PyErr_Clear();
    return BAIL;
}

static PyObject *opt_set(PyObject *o) { return o == Py_None ? NULL : o; }

/* scan(buf, p, base, limit, source, partition, since, until, type_ids, groups, topics) ->
 *   (p after the batches taken, batches, records read, [DecodedRecord, ...])
 * buf: bytes of a segment from file position `base`; p: where a batch starts; no batch is
 * started once `limit` records are kept (short lists let records die young, which keeps the
 * garbage collector's full collections rare). */
static PyObject *Scanner_scan(Scanner *self, PyObject *args)
{
    PyObject *buf, *source, *partition, *since, *until, *type_ids, *groups, *topics;
    Py_ssize_t p, limit;
    long long base;
    if (!PyArg_ParseTuple(args, "O!nLnOOOOOOO", &PyBytes_Type, &buf, &p, &base, &limit,
                          &source, &partition, &since, &until, &type_ids, &groups, &topics))
        return NULL;
    Filter f = {0, 0, 0, 0, opt_set(type_ids), opt_set(groups), opt_set(topics)};
    if (since != Py_None) {
        f.has_since = 1;
        f.since = PyLong_AsLongLong(since);
    }
    if (until != Py_None) {
        f.has_until = 1;
        f.until = PyLong_AsLongLong(until);
    }
    if (PyErr_Occurred()) return NULL;
    if ((f.type_ids && !PyAnySet_Check(f.type_ids)) || (f.groups && !PyAnySet_Check(f.groups)) ||
        (f.topics && !PyAnySet_Check(f.topics))) {
        PyErr_SetString(PyExc_TypeError, "filters must be sets or None");
        return NULL;
    }
    const uint8_t *b = (const uint8_t *)PyBytes_AS_STRING(buf);
    Py_ssize_t end = PyBytes_GET_SIZE(buf);
    if (p < 0 || p > end) {
        PyErr_SetString(PyExc_ValueError, "position outside the buffer");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    Py_ssize_t batches = 0, nrecords = 0;
    while (end - p >= 61 && PyList_GET_SIZE(out) < limit) {
        const uint8_t *h = b + p;
        int64_t length = be32s(h + 8);
        if (h[16] != 2 || length < 49 || length > end - p - 12) break;
        Py_ssize_t total = (Py_ssize_t)length + 12;
        int attributes = (int)be16s(h + 21);
        if (attributes & (0x07 | 0x20)) break; /* compressed or control: Python */
        uint32_t stored = (uint32_t)be32s(h + 17);
        PyObject *view = PyMemoryView_FromMemory((char *)h + 21, total - 21, PyBUF_READ);
        if (view == NULL) goto error;
        PyObject *crc = PyObject_CallOneArg(self->crc32c, view);
        Py_DECREF(view);
        if (crc == NULL) goto error;
        unsigned long computed = PyLong_AsUnsignedLong(crc);
        Py_DECREF(crc);
        if (PyErr_Occurred()) goto error;
        if (computed != stored) break; /* Python reports the mismatch */
        BatchBase batch = {be64s(h), be64s(h + 27), be64s(h + 35), (attributes & 0x08) != 0};
        BatchInfo bi = {source, partition, NULL, NULL, NULL,
                        (attributes & 0x10) ? Py_True : Py_False};
        bi.position = PyLong_FromLongLong(base + p);
        bi.producer_id = PyLong_FromLongLong(be64s(h + 43));
        bi.producer_epoch = PyLong_FromLong((long)be16s(h + 51));
        Py_ssize_t nread = 0;
        int r = BAIL;
        if (bi.position && bi.producer_id && bi.producer_epoch) {
            r = scan_records(self, b, p + 61, p + total, be32s(h + 57), &batch, &bi, &f, out,
                             &nread);
        }
        Py_XDECREF(bi.position);
        Py_XDECREF(bi.producer_id);
        Py_XDECREF(bi.producer_epoch);
        if (r == FATAL) goto fatal;
        if (r != 0) {
            if (fatal_error()) goto fatal;
            PyErr_Clear();
            break;
        }
        batches += 1;
        nrecords += nread;
        p += total;
    }
    return Py_BuildValue("nnnN", p, batches, nrecords, out);
error:
    if (fatal_error()) goto fatal;
    PyErr_Clear();
    return Py_BuildValue("nnnN", p, batches, nrecords, out);
fatal:
    Py_DECREF(out);
    return NULL;
}

/* Scanner(cls, slot_names, key_cache, decode_key, crc32c, names, values, eager) */
static int Scanner_init(Scanner *self, PyObject *args, PyObject *kwargs)
{
    PyObject *cls, *slots, *key_cache, *decode_key, *crc, *names, *values, *eager;
    static char *kw[] = {"cls", "slots", "key_cache", "decode_key", "crc32c", "names", "values",
                         "eager", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!O!OOO!O!O!", kw, &PyType_Type, &cls,
                                     &PyTuple_Type, &slots, &PyDict_Type, &key_cache, &decode_key,
                                     &crc, &PyTuple_Type, &names, &ValueDecoderType.type, &values,
                                     &PyTuple_Type, &eager))
        return -1;
    PyTypeObject *type = (PyTypeObject *)cls;
    if (PyTuple_GET_SIZE(slots) != NSLOTS || PyTuple_GET_SIZE(names) != SCAN_TYPES ||
        PyTuple_GET_SIZE(eager) != SCAN_TYPES) {
        PyErr_SetString(PyExc_ValueError, "Scanner: wrong number of slots, names or flags");
        return -1;
    }
    if (record_slot_offsets(type, slots, self->off, "Scanner")) return -1;
    for (int i = 0; i < SCAN_TYPES; i++) {
        self->eager[i] = (char)PyObject_IsTrue(PyTuple_GET_ITEM(eager, i));
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(names, i))) {
            PyErr_SetString(PyExc_TypeError, "Scanner: names must be str");
            return -1;
        }
    }
    Py_XSETREF(self->cls, (PyTypeObject *)Py_NewRef(type));
    Py_XSETREF(self->key_cache, Py_NewRef(key_cache));
    Py_XSETREF(self->decode_key, Py_NewRef(decode_key));
    Py_XSETREF(self->crc32c, Py_NewRef(crc));
    Py_XSETREF(self->names, Py_NewRef(names));
    Py_XSETREF(self->values, (ValueDecoder *)Py_NewRef(values));
    return 0;
}

static const Py_ssize_t Scanner_refs[] = {
    offsetof(Scanner, cls),    offsetof(Scanner, key_cache), offsetof(Scanner, decode_key),
    offsetof(Scanner, crc32c), offsetof(Scanner, names),     offsetof(Scanner, values),
    0,
};

static PyMethodDef Scanner_methods[] = {
    {"scan", (PyCFunction)Scanner_scan, METH_VARARGS,
     "scan(buf, p, base, limit, source, partition, since, until, type_ids, groups, topics) "
     "-> "
     "(p, batches, records read, records)."},
    {NULL, NULL, 0, NULL},
};

static ExtType ScannerType = {
    {EXT_TYPE(Scanner, "Scanner(cls, slots, key_cache, decode_key, crc32c, names, values, eager)."),
     .tp_methods = Scanner_methods},
    Scanner_refs,
    NULL,
};

static PyMethodDef module_methods[] = {
    {"records_v2", records_v2, METH_VARARGS,
     "records_v2(buf, pos, count, base_offset, base_ts, log_time) -> list of records or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, EXT_MODULE,
    "Compiled fast path of the __consumer_offsets codec (see layouts.py, records.py).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__speedups(void)
{
    static const InternedName names[] = {
        {&K_MEMBERS, "members"},
        {&K_PROTOCOL_TYPE, "protocol_type"},
        {&K_PROTOCOL, "protocol"},
        {&K_SUBSCRIPTION, "subscription"},
        {&K_ASSIGNMENT, "assignment"},
        {&K_USER_DATA, "user_data"},
        {&K_VERSION, "version"},
        {NULL, NULL},
    };
    static ExtType *const types[] = {&ReaderType, &ValueDecoderType, &ScannerType, &LineWriterType,
                                     &CsvWriterType};
    if (intern_names(names) || record_fields_init()) return NULL;
    EMPTY_TUPLE = PyTuple_New(0);
    EMPTY_STR = PyUnicode_FromStringAndSize("", 0);
    EMPTY_BYTES = PyBytes_FromStringAndSize("", 0);
    if (EMPTY_TUPLE == NULL || EMPTY_STR == NULL || EMPTY_BYTES == NULL) return NULL;
    return ext_module(&module_def, types, (int)(sizeof(types) / sizeof(types[0])));
}
