/* JSON text shared by the compiled paths (_speedups.c, scan/_arrow_rows.c): the growable
 * buffer they write into and the JSON of decoded objects.
 *
 * Source of truth: RFC 8259 strings and numbers as orjson and
 * json.dumps(separators=(",", ":"), ensure_ascii=False) write them -- decode._dumps: only '"',
 * '\\' and control characters are escaped (\b \f \n \r \t, else \u00xx in lowercase hex);
 * UTF-8 is copied as it is; integers in plain decimal; bytes as standard base64 with padding
 * (decode._bytes_default). json_put_* write into room reserved first; the jb_* functions
 * reserve it themselves and return 0, or -1 with no Python error left set (the buffer cannot
 * grow, or the object is not one they write: the caller then leaves it to Python).
 */
#ifndef KGROUP_JSON_TEXT_H
#define KGROUP_JSON_TEXT_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Bytes needed at most for the quoted text of n input bytes. */
#define JSON_STR_MAX(n) ((n) * 6 + 2)
/* Bytes needed at most for a long long in decimal. */
#define JSON_INT_MAX 21

/* The quoted, escaped text of s[0:n] at o; returns the end. *high gets the OR of all
 * bytes, so the caller can tell ASCII (high < 0x80) from text it must check is UTF-8. */
static inline char *json_put_str(char *o, const uint8_t *s, Py_ssize_t n, uint8_t *high)
{
    static const char HEX[] = "0123456789abcdef";
    uint8_t seen = 0;
    *o++ = '"';
    for (Py_ssize_t i = 0; i < n; i++) {
        uint8_t ch = s[i];
        seen |= ch;
        if (ch >= 0x20 && ch != '"' && ch != '\\') {
            *o++ = (char)ch;
            continue;
        }
        *o++ = '\\';
        switch (ch) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '\b': *o++ = 'b'; break;
        case '\f': *o++ = 'f'; break;
        case '\n': *o++ = 'n'; break;
        case '\r': *o++ = 'r'; break;
        case '\t': *o++ = 't'; break;
        default:
            *o++ = 'u';
            *o++ = '0';
            *o++ = '0';
            *o++ = HEX[ch >> 4];
            *o++ = HEX[ch & 15];
        }
    }
    *o++ = '"';
    *high = seen;
    return o;
}

/* v in decimal at o; returns the end. */
static inline char *json_put_int(char *o, long long v)
{
    char tmp[JSON_INT_MAX];
    char *e = tmp + sizeof(tmp), *t = e;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        *--t = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) *--t = '-';
    memcpy(o, t, (size_t)(e - t));
    return o + (e - t);
}

/* A growable byte buffer (PyMem); reused by setting len to 0. */
typedef struct {
    char *p;
    Py_ssize_t len, cap;
} JBuf;

static int jb_grow(JBuf *j, Py_ssize_t n)
{
    if (n > PY_SSIZE_T_MAX - j->len) return -1;
    Py_ssize_t cap = j->cap ? j->cap : 256;
    while (cap < j->len + n) {
        if (cap > PY_SSIZE_T_MAX / 2) return -1;
        cap *= 2;
    }
    char *p = PyMem_Realloc(j->p, (size_t)cap);
    if (p == NULL) return -1;
    j->p = p;
    j->cap = cap;
    return 0;
}

/* Room for n more bytes. */
static inline int jb_reserve(JBuf *j, Py_ssize_t n)
{
    return j->len + n <= j->cap ? 0 : jb_grow(j, n);
}

static inline int jb_put(JBuf *j, const void *s, Py_ssize_t n)
{
    if (jb_reserve(j, n)) return -1;
    if (n) memcpy(j->p + j->len, s, (size_t)n);
    j->len += n;
    return 0;
}

static inline int jb_ch(JBuf *j, char ch)
{
    if (jb_reserve(j, 1)) return -1;
    j->p[j->len++] = ch;
    return 0;
}

static inline int jb_int(JBuf *j, long long v)
{
    if (jb_reserve(j, JSON_INT_MAX)) return -1;
    j->len = json_put_int(j->p + j->len, v) - j->p;
    return 0;
}

/* A JSON string of UTF-8 bytes: invalid UTF-8 gives up (as PyUnicode_DecodeUTF8 would fail). */
static inline int jb_str(JBuf *j, const uint8_t *s, Py_ssize_t n)
{
    uint8_t high;
    if (n > (PY_SSIZE_T_MAX - 2) / 6 || jb_reserve(j, JSON_STR_MAX(n))) return -1;
    char *end = json_put_str(j->p + j->len, s, n, &high);
    if (high & 0x80) { /* not ASCII: valid UTF-8 only, as PyUnicode_DecodeUTF8 decides */
        PyObject *check = PyUnicode_DecodeUTF8((const char *)s, n, NULL);
        if (check == NULL) {
            PyErr_Clear();
            return -1;
        }
        Py_DECREF(check);
    }
    j->len = end - j->p;
    return 0;
}

/* A str as a JSON string (its UTF-8 is valid; a str with lone surrogates has none). */
static inline int jb_text(JBuf *j, PyObject *o)
{
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(o, &n);
    uint8_t high;
    if (s == NULL || n > (PY_SSIZE_T_MAX - 2) / 6 || jb_reserve(j, JSON_STR_MAX(n))) {
        PyErr_Clear();
        return -1;
    }
    j->len = json_put_str(j->p + j->len, (const uint8_t *)s, n, &high) - j->p;
    return 0;
}

/* bytes as a JSON string of standard base64 with padding (decode._b64) */
static inline int jb_b64(JBuf *j, const uint8_t *s, Py_ssize_t n)
{
    static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (n > (PY_SSIZE_T_MAX - 8) / 4 * 3 || jb_reserve(j, (n + 2) / 3 * 4 + 2)) return -1;
    char *o = j->p + j->len;
    *o++ = '"';
    Py_ssize_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = ((uint32_t)s[i] << 16) | ((uint32_t)s[i + 1] << 8) | s[i + 2];
        *o++ = B64[(v >> 18) & 63];
        *o++ = B64[(v >> 12) & 63];
        *o++ = B64[(v >> 6) & 63];
        *o++ = B64[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)s[i] << 16;
        *o++ = B64[(v >> 18) & 63];
        *o++ = B64[(v >> 12) & 63];
        *o++ = '=';
        *o++ = '=';
    } else if (n - i == 2) {
        uint32_t v = ((uint32_t)s[i] << 16) | ((uint32_t)s[i + 1] << 8);
        *o++ = B64[(v >> 18) & 63];
        *o++ = B64[(v >> 12) & 63];
        *o++ = B64[(v >> 6) & 63];
        *o++ = '=';
    }
    *o++ = '"';
    j->len = o - j->p;
    return 0;
}

/* `"key":` -- field names are plain ASCII identifiers (schema.py), written as they are;
 * anything else goes through jb_str. */
static inline int jb_key(JBuf *j, PyObject *key)
{
    if (PyUnicode_IS_COMPACT_ASCII(key)) {
        Py_ssize_t n = PyUnicode_GET_LENGTH(key);
        const char *s = (const char *)PyUnicode_DATA(key);
        int plain = 1;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (s[i] < 0x20 || s[i] == '"' || s[i] == '\\') {
                plain = 0;
                break;
            }
        }
        if (plain) {
            if (jb_reserve(j, n + 3)) return -1;
            char *o = j->p + j->len;
            *o++ = '"';
            memcpy(o, s, (size_t)n);
            o += n;
            *o++ = '"';
            *o++ = ':';
            j->len = o - j->p;
            return 0;
        }
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(key, &n);
    if (s == NULL) {
        PyErr_Clear();
        return -1;
    }
    if (jb_str(j, (const uint8_t *)s, n)) return -1;
    return jb_ch(j, ':');
}

/* true, false or an int of 64 bits; -1 for anything else. */
static inline int jb_bool_or_int(JBuf *j, PyObject *o)
{
    if (o == Py_True) return jb_put(j, "true", 4);
    if (o == Py_False) return jb_put(j, "false", 5);
    if (!PyLong_CheckExact(o)) return -1;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return -1;
    }
    return jb_int(j, v);
}

/* Containers nested deeper than this are left to Python. */
#define JSON_MAX_DEPTH 64

/* A decoded object as decode._dumps writes it: None, bool, int (64 bits), str, bytes, and
 * dicts with str keys and lists of them, nested at most `levels` deep (1: a flat dict). */
static inline int jb_obj(JBuf *j, PyObject *o, int levels)
{
    if (o == Py_None) return jb_put(j, "null", 4);
    if (o == Py_True || o == Py_False || PyLong_CheckExact(o)) return jb_bool_or_int(j, o);
    if (PyUnicode_CheckExact(o)) return jb_text(j, o);
    if (PyBytes_CheckExact(o))
        return jb_b64(j, (const uint8_t *)PyBytes_AS_STRING(o), PyBytes_GET_SIZE(o));
    if (PyDict_CheckExact(o)) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        if (levels <= 0 || jb_ch(j, '{')) return -1;
        int first = 1;
        while (PyDict_Next(o, &pos, &k, &v)) {
            if (!PyUnicode_CheckExact(k)) return -1;
            if (!first && jb_ch(j, ',')) return -1;
            first = 0;
            if (jb_key(j, k) || jb_obj(j, v, levels - 1)) return -1;
        }
        return jb_ch(j, '}');
    }
    if (PyList_CheckExact(o)) {
        if (levels <= 0 || jb_ch(j, '[')) return -1;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); i++) {
            if (i && jb_ch(j, ',')) return -1;
            if (jb_obj(j, PyList_GET_ITEM(o, i), levels - 1)) return -1;
        }
        return jb_ch(j, ']');
    }
    return -1;
}

#endif
