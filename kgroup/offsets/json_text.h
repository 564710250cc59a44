/* JSON text pieces shared by the compiled paths (_speedups.c, scan/_arrow_rows.c).
 *
 * Source of truth: RFC 8259 strings and numbers as orjson and
 * json.dumps(separators=(",", ":"), ensure_ascii=False) write them: only '"', '\\' and
 * control characters are escaped (\b \f \n \r \t, else \u00xx in lowercase hex); UTF-8 is
 * copied as it is; integers in plain decimal. Both callers reserve room first.
 */
#ifndef KGROUP_JSON_TEXT_H
#define KGROUP_JSON_TEXT_H

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

#endif
