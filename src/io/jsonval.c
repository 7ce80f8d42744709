/* jsonval.c - checked values of a parsed JSON object (see jsonval.h). */
#include "io/jsonval.h"

#include "base/utf8.h"
#include "io/fileio.h"
#include <unistd.h>

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

av_status av_json_int(int *out, const cJSON *root, const char *key, int required, const char *missing_why,
                      const char *allowed, const char *name, av_err *err) {
    const cJSON *j = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, key) : NULL;
    if (!j || (cJSON_IsNull(j) && !required))
        return required ? av_fail(err, AV_EUSAGE, "%s: missing key \"%s\" (%s)", name, key, missing_why) : AV_OK;
    if (!cJSON_IsNumber(j)) {
        char quoted[160];
        snprintf(quoted, sizeof quoted, "\"%s\"", key);
        return av_json_wrong_kind(name, quoted, j, "a whole number", err);
    }
    double v = j->valuedouble;
    if (allowed && (isinf(v) || fabs(v) > AV_JSON_INT_MAX)) { /* one limit, the field's own, in every message */
        char shown[32];
        return av_fail(err, AV_EUSAGE, "%s: %s %s is outside %s", name, key, av_num_exact(shown, v), allowed);
    }
    if (isinf(v)) /* cJSON's strtod reads 1e400 as infinity: say out of range, never "inf" */
        return av_fail(err, AV_EUSAGE, "%s: \"%s\" is too %s: %s, out of a double's range (a whole number of at %s)",
                       name, key, v > 0 ? "large" : "small", v > 0 ? "a number past 1.797e308" : "a number past -1.797e308",
                       v > 0 ? "most 1e9" : "least -1e9");
    if (v != floor(v)) /* also NaN, which cJSON never gives */
        return av_fail(err, AV_EUSAGE, "%s: \"%s\" %.17g must be a whole number", name, key, v);
    if (v > AV_JSON_INT_MAX) /* whole, but no size of a model: say the value, not "not a whole number" */
        return av_fail(err, AV_EUSAGE, "%s: \"%s\" %.17g is too large (a whole number of at most 1e9)", name, key, v);
    if (v < -AV_JSON_INT_MAX)
        return av_fail(err, AV_EUSAGE, "%s: \"%s\" %.17g is too small (a whole number of at least -1e9)", name, key, v);
    *out = (int)v;
    return AV_OK;
}

int av_json_falsy(const cJSON *j) {
    return cJSON_IsFalse(j) || cJSON_IsNull(j) || (cJSON_IsNumber(j) && j->valuedouble == 0) ||
           (cJSON_IsString(j) && !j->valuestring[0]) || ((cJSON_IsArray(j) || cJSON_IsObject(j)) && !j->child);
}

av_status av_json_wrong_kind(const char *name, const char *key, const cJSON *j, const char *must, av_err *err) {
    char shown[64];
    av_json_shown(shown, sizeof shown, j);
    return av_fail(err, AV_EUSAGE, "%s: %s is %s; it must be %s", name, key, shown, must);
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* How many different ids of the list j, each a whole number (checked), fall
 * outside 0..vocab_size-1; count = how many entries do. Sorted, so a long
 * list costs n log n; count itself if memory runs out. */
static int different_left(const cJSON *j, int vocab_size, int count) {
    int *v = malloc((size_t)count * sizeof *v), k = 0, diff = 0;
    if (!v) return count;
    for (const cJSON *e = j->child; e && k < count; e = e->next)
        if (e->valuedouble < 0 || e->valuedouble >= vocab_size) v[k++] = (int)e->valuedouble;
    qsort(v, (size_t)k, sizeof *v, cmp_int);
    for (int i = 0; i < k; i++) diff += !i || v[i] != v[i - 1];
    free(v);
    return diff;
}

av_status av_json_token_ids(int *ids, int *n, int *left, int *n_left, int max, const cJSON *root, const char *key,
                            int vocab_size, const char *name, av_err *err) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, key), *e;
    *n = 0, *n_left = 0;
    if (!j || cJSON_IsNull(j)) return AV_OK;
    /* the ids kept count against max, not the list's length: a list of 10 ids, a token id each, was refused as
     * "it must be ... a list of them" (a reviewer's pass) */
    int k = 0, ok = cJSON_IsNumber(j) || cJSON_IsArray(j), many = 0;
    for (e = cJSON_IsArray(j) ? j->child : j; ok && e; e = cJSON_IsArray(j) ? e->next : NULL) {
        ok = cJSON_IsNumber(e) && e->valuedouble == floor(e->valuedouble) && fabs(e->valuedouble) <= AV_JSON_INT_MAX;
        int dup = !ok || e->valuedouble < 0 || e->valuedouble >= vocab_size; /* no token: it stops nothing */
        if (ok && dup && !(*n_left)++) *left = (int)e->valuedouble; /* for the caller's note: an eos_token_id
                                                                     * 9999 of 294 ids went unsaid */
        for (int i = 0; i < k && !dup; i++) dup = ids[i] == (int)e->valuedouble;
        if (!dup && k == max) many++;
        else if (!dup) ids[k++] = (int)e->valuedouble;
    }
    if (ok && many) {
        char key_shown[80];
        snprintf(key_shown, sizeof key_shown, "\"%s\"", key);
        char must[96];
        snprintf(must, sizeof must, "a token id or a list of at most %d different ids of the vocabulary, or null", max);
        return av_json_wrong_kind(name, key_shown, j, must, err);
    }
    if (!ok) {
        char key_shown[80];
        snprintf(key_shown, sizeof key_shown, "\"%s\"", key);
        return av_json_wrong_kind(name, key_shown, j, "a token id, a list of them, or null", err);
    }
    /* [9999, 9999] was noted as "ids 9999 and 1 more" (a maintainer's list of known faults): one id */
    if (*n_left > 1) *n_left = different_left(j, vocab_size, *n_left);
    *n = k;
    return AV_OK;
}

/* 1 if the 3 bytes at p are UTF-8 for a bidirectional control (U+200E,
 * U+200F, U+202A..U+202E, U+2066..U+2069): printed as they are, they
 * reorder the rest of the terminal line ("Trojan Source", CVE-2021-42574). */
static int bidi_control(const unsigned char *p) {
    if (p[0] != 0xE2 || (p[1] != 0x80 && p[1] != 0x81)) return 0;
    unsigned cp = 0x2000u | ((unsigned)(p[1] & 0x3F) << 6) | (p[2] & 0x3Fu);
    return (p[2] & 0xC0) == 0x80 &&
           (cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069));
}

/* text (cJSON_PrintUnformatted's, which writes these raw) with each
 * bidi_control as the JSON escape \uXXXX: a new cJSON_malloc'd string
 * (text is freed), or text itself when it has none or memory runs out. */
static char *escape_bidi(char *text) {
    size_t len = strlen(text), extra = 0;
    for (size_t i = 0; i + 2 < len; i++) extra += bidi_control((const unsigned char *)text + i) ? 3 : 0;
    if (!extra) return text;
    char *out = cJSON_malloc(len + extra + 1), *o = out;
    if (!out) return text;
    for (size_t i = 0; i < len;) {
        const unsigned char *p = (const unsigned char *)text + i;
        if (i + 2 < len && bidi_control(p)) {
            o += sprintf(o, "\\u%04x", 0x2000u | ((unsigned)(p[1] & 0x3F) << 6) | (p[2] & 0x3Fu));
            i += 3;
        } else *o++ = text[i++];
    }
    *o = 0;
    cJSON_free(text);
    return out;
}

void av_json_shown(char *buf, size_t n, const cJSON *j) {
    if (cJSON_IsNumber(j) && isinf(j->valuedouble)) { /* cJSON prints infinity as null; the text (1e400) is gone */
        char v[32];
        snprintf(buf, n, "%s", av_num_shown(v, j->valuedouble));
        return;
    }
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    if (text) text = escape_bidi(text);
    const char *s = text ? text : "(unreadable)";
    size_t len = strlen(s), keep = len;
    if (keep > 40 || keep >= n) {
        keep = n - 4 < 40 ? n - 4 : 40; /* room for "…" (3 bytes) and the NUL */
        while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80) keep--; /* not inside a character */
    }
    snprintf(buf, n, "%.*s%s", (int)keep, s, keep < len ? "\xE2\x80\xA6" : "");
    cJSON_free(text);
}

const char *av_json_shown_string(char *buf, size_t n, const char *s) {
    cJSON *j = cJSON_CreateString(s);
    av_json_shown(buf, n, j);
    cJSON_Delete(j);
    return buf;
}

av_status av_json_check_strings(const char *text, size_t len, const char *name, av_err *err) {
    const char *sep = name ? ": " : "";
    name = name ? name : "";
    av_err u;
    if (av_utf8_check(text, len, &u)) return av_fail(err, AV_EUSAGE, "%s%snot UTF-8: %s", name, sep, u.msg);
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"') in_string = !in_string;
        else if (in_string && (c == 0 || (c == '\\' && i + 6 <= len && text[i + 1] == 'u' &&
                                          memcmp(text + i + 2, "0000", 4) == 0)))
            return av_fail(err, AV_EUSAGE, "%s%sbyte %zu: a string holds \\u0000 (a NUL character), which no model "
                           "file has; is the file damaged?", name, sep, i);
        else if (in_string && c < 0x20)
            return av_fail(err, AV_EUSAGE, "%s%sbyte %zu: a string holds the control byte 0x%02X unescaped, which "
                           "JSON does not allow; is the file damaged?", name, sep, i, c);
        else if (in_string && c == '\\') i++; /* the escaped character: \" does not end the string */
        else if (!in_string && c < 0x20 && c != '\t' && c != '\n' && c != '\r') /* cJSON skips any as white space */
            return av_fail(err, AV_EUSAGE, "%s%sbyte %zu: the control byte 0x%02X between values, where JSON allows "
                           "only spaces, tabs and line breaks; is the file damaged?", name, sep, i, c);
    }
    return AV_OK;
}

static int key_cmp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first key found twice in one object of j, at any depth, or NULL:
 * each object's keys sorted (tokenizer.json's vocabulary has 150k). An
 * object whose keys cannot be sorted for want of memory is not checked. */
static const char *duplicate_key(const cJSON *j) {
    int n = 0;
    for (const cJSON *c = j ? j->child : NULL; c; c = c->next) {
        n++;
        const char *d = cJSON_IsObject(c) || cJSON_IsArray(c) ? duplicate_key(c) : NULL;
        if (d) return d;
    }
    if (!cJSON_IsObject(j) || n < 2) return NULL;
    const char **keys = malloc((size_t)n * sizeof *keys);
    if (!keys) return NULL;
    int k = 0;
    for (const cJSON *c = j->child; c; c = c->next) keys[k++] = c->string ? c->string : "";
    qsort(keys, (size_t)n, sizeof *keys, key_cmp);
    const char *dup = NULL;
    for (int i = 1; i < n && !dup; i++)
        if (strcmp(keys[i - 1], keys[i]) == 0) dup = keys[i];
    free(keys);
    return dup;
}

/* 1 when byte *i of text is outside strings and no quote, for the scans below; inside a string it steps *i
 * over a backslash's escaped byte, and *in_str follows the quotes. */
static int outside_strings(const char *text, size_t *i, int *in_str) {
    char c = text[*i];
    if (*in_str) {
        if (c == '\\') (*i)++;
        else if (c == '"') *in_str = 0;
        return 0;
    }
    if (c == '"') *in_str = 1;
    return c != '"';
}

/* How many arrays and objects are open at byte off of text (brackets inside
 * strings not counted), to tell "nested past cJSON's limit" from a typo. */
static size_t open_depth(const char *text, size_t off) {
    size_t depth = 0;
    int in_str = 0;
    for (size_t i = 0; i < off; i++) {
        if (!outside_strings(text, &i, &in_str)) continue;
        char c = text[i];
        if (c == '[' || c == '{') depth++;
        else if ((c == ']' || c == '}') && depth) depth--;
    }
    return depth;
}

/* JSON's white space (RFC 8259 §2); strchr(" \t\r\n", c) also matched a NUL byte */
static int json_ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* The byte of the first ',' of text (outside strings) that only white space
 * parts from a closing '}' or ']', or len if there is none; *closer = that
 * bracket. JSON allows no comma after an object's last member or an array's
 * last element (RFC 8259 §4, §5), a common slip of a hand-edited config.json
 * that cJSON (and Python's json) refuses. */
static size_t trailing_comma(const char *text, size_t len, char *closer) {
    int in_str = 0;
    for (size_t i = 0; i < len; i++) {
        if (!outside_strings(text, &i, &in_str) || text[i] != ',') continue;
        size_t j = i + 1;
        while (j < len && json_ws(text[j])) j++;
        if (j < len && (text[j] == '}' || text[j] == ']')) {
            *closer = text[j];
            return i;
        }
    }
    return len;
}

/* "NaN", "Infinity" or "-Infinity" when text[off..len) starts with it, else
 * NULL: the words Python's json.dumps writes for a float nan or inf
 * (allow_nan=True, its default), which are not JSON (RFC 8259 §6: "Numeric
 * values that cannot be represented ... (such as Infinity and NaN) are not
 * permitted"); cJSON stops at them. */
static const char *python_nonfinite(const char *text, size_t off, size_t len) {
    static const char *const words[] = {"NaN", "Infinity", "-Infinity"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if (off + n <= len && memcmp(text + off, words[i], n) == 0) return words[i];
    }
    return NULL;
}

av_status av_json_parse_object(cJSON **root, const char *text, size_t len, const char **end, const char *name,
                               av_err *err) {
    *root = NULL;
    av_status s = av_json_check_strings(text, len, name, err);
    if (s) return s;
    const char *sep = name ? ": " : "";
    name = name ? name : "";
    size_t first = 0;
    while (first < len && json_ws(text[first])) first++;
    if (first == len) return av_fail(err, AV_EUSAGE, "%s%sempty file; expected a JSON object", name, sep);
    const char *stop = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(text, len, &stop, 0);
    if (!j) {
        const char *at = cJSON_GetErrorPtr();
        size_t off = at && at >= text && at <= text + len ? (size_t)(at - text) : len, last = len;
        while (last > 0 && json_ws(text[last - 1])) last--;
        int cut = first < last && text[first] == '{' && text[last - 1] != '}'; /* an object begun, not ended */
        if (off < len && (text[off] == '[' || text[off] == '{') && open_depth(text, off) >= CJSON_NESTING_LIMIT)
            return av_fail(err, AV_EUSAGE, "%s%sarrays and objects nested more than %d deep at byte %zu of %zu; the "
                           "parser stops there (a model file nests a few levels)", name, sep, CJSON_NESTING_LIMIT, off,
                           len);
        const char *word = python_nonfinite(text, off, len);
        if (word)
            return av_fail(err, AV_EUSAGE, "%s%snot valid JSON at byte %zu of %zu: %s is not a JSON number (JSON has "
                           "no NaN or Infinity; Python's json.dumps writes them unless allow_nan=False); write a "
                           "finite number", name, sep, off, len, word);
        char closer = 0;
        size_t comma = trailing_comma(text, len, &closer);
        if (comma < len && comma <= off) /* cJSON stops at the first error: a trailing comma before it is it */
            return av_fail(err, AV_EUSAGE, "%s%snot valid JSON near byte %zu of %zu: a ',' at byte %zu before the "
                           "closing '%c' (JSON allows no comma after the last %s; remove it)", name, sep, off, len,
                           comma, closer, closer == '}' ? "member of an object" : "element of an array");
        return av_fail(err, AV_EUSAGE, "%s%snot valid JSON near byte %zu of %zu%s", name, sep, off, len,
                       cut ? "; it ends before its closing '}' (truncated?)" : "");
    }
    if (!cJSON_IsObject(j)) {
        const char *kind = cJSON_IsArray(j) ? "an array" : cJSON_IsString(j) ? "a string" : cJSON_IsNumber(j) ? "a number"
                         : cJSON_IsBool(j) ? "true or false" : "null";
        cJSON_Delete(j);
        return av_fail(err, AV_EUSAGE, "%s%snot a JSON object (it is %s)", name, sep, kind);
    }
    if (end) *end = stop;
    else
        for (const char *p = stop; p < text + len; p++)
            if (!json_ws(*p)) {
                cJSON_Delete(j);
                return av_fail(err, AV_EUSAGE, "%s%snot valid JSON at byte %zu of %zu: text follows the object", name,
                               sep, (size_t)(p - text), len);
            }
    const char *dup = duplicate_key(j);
    if (dup) {
        char key[48]; /* as JSON spells it (av_json_shown): "%.80s" printed a \n in it raw and cut inside a character */
        av_json_shown_string(key, sizeof key, dup);
        av_status st = av_fail(err, AV_EUSAGE, "%s%skey %s appears twice in one object (Python's json keeps the "
                               "last, cJSON the first; is the file damaged?)", name, sep, key);
        cJSON_Delete(j);
        return st;
    }
    *root = j;
    return AV_OK;
}

av_status av_json_read_optional_object(cJSON **root, const char *path, size_t max, char *named, size_t n, av_err *err) {
    char *text = NULL;
    size_t len = 0;
    *root = NULL;
    av_shown_word(named, n, path);
    if (access(path, F_OK) != 0) return av_dangling_link(path, err); /* AV_OK: no file, nothing read */
    av_status st = av_read_regular_file(path, max, &text, &len, err);
    if (!st) st = av_json_parse_object(root, text, len, NULL, named, err);
    free(text);
    if (st) cJSON_Delete(*root), *root = NULL;
    return st;
}
