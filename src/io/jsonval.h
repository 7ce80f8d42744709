/* Layer io/ (file formats): includes only base/ and io/ headers.
 * (src/README.md; scripts/check-layers.sh checks it on every make test) */
/* jsonval.h - checked values of a parsed JSON object (cJSON), for the keys of
 * a model's config.json: one place says what a whole-number key may be, so
 * the GPT-2 (nn/gpt2.c) and Llama/Qwen2 (nn/llama.c) loaders refuse a bad
 * value in the same words.
 *
 * Usage:
 *   int n_layer;
 *   if (av_json_int(&n_layer, root, "n_layer", 1, "attnviz needs n_layer, ...", path, &err)) return ...;
 *   // then the caller checks its own range: "n_layer 0 is outside 1..128"
 *
 * Data contract: root is any cJSON node (NULL or a non-object finds no key);
 * key is matched case-sensitively, as Hugging Face's from_pretrained does.
 * Nothing is allocated; out is written only on success.
 *
 * Non-goals: parsing (cJSON does it), numbers other than whole ones, keys
 * nested below root.
 */
#ifndef AV_JSONVAL_H
#define AV_JSONVAL_H

#include <cjson/cJSON.h>

#include "base/common.h"

/* The largest magnitude av_json_int accepts: no size of a model is larger,
 * and it keeps every accepted value exact in an int. */
#define AV_JSON_INT_MAX 1000000000

/* *out = root[key] as an int, when it is a JSON number with no fractional
 * part and |value| <= AV_JSON_INT_MAX (1e9). A key that is absent or null is
 * left alone (*out untouched, AV_OK) unless required. Callers then check the
 * range their field allows. name starts every message (the file's path);
 * missing_why ends the "missing key" one (which keys the format needs).
 * Errors, all AV_EUSAGE:
 *   "NAME: missing key \"KEY\" (MISSING_WHY)"                 absent, required
 *   "NAME: \"KEY\" is null; it must be a whole number"        null, required
 *   "NAME: \"KEY\" is \"12\"; it must be a whole number"      any non-number, shown as
 *                                                            av_json_shown spells it
 *   "NAME: \"KEY\" 2.5 must be a whole number"
 *   "NAME: \"KEY\" 1099511627776 is too large (a whole number of at most 1e9)"
 *   "NAME: \"KEY\" -1099511627776 is too small (a whole number of at least -1e9)"
 *   "NAME: \"KEY\" is too large: a number past 1.797e308, out of a double's range (a whole number of at most 1e9)"
 *                                                            a number cJSON reads as infinity (1e400;
 *                                                            "too small ... -1.797e308 ... -1e9" for -1e400)
 * allowed, when not NULL, is the range the caller then checks, in its words
 * ("1..64"); a number past 1e9 either way (infinity too) is then named against
 * it, as the caller names a smaller one, in place of the last three lines:
 *   "NAME: KEY 1099511627776 is outside ALLOWED"   (av_num_exact: "1e+300"; "(a
 *                                                  number past 1.797e308)" for 1e400)
 * so that one field has one limit in its messages ("n_head 0 is outside 1..64"
 * but "at most 1e9" for 1e12 said two).
 * Source: the whole-number checks nn/gpt2.c's json_int and nn/llama.c's
 * cfg_int each made before this helper. */
av_status av_json_int(int *out, const cJSON *root, const char *key, int required, const char *missing_why,
                      const char *allowed, const char *name, av_err *err);


/* The token ids config.json's root[key] names (eos_token_id: an id, a list
 * of ids as Llama 3.1 and generation_config.json give it, or null), as
 * Hugging Face's generate reads them: ids[0..*n), at most max, in the order
 * given, each once. Absent, null or an empty list gives *n = 0. An id
 * outside 0..vocab_size-1 is left out (no token can have it, so it stops
 * nothing; transformers loads such a config); a list may be of any length.
 * *n_left = how many different ids of root[key] were left out so (an id
 * given twice counted once, 0 if none) and *left = the first of them
 * (unchanged if none),
 * for the caller's note that --generate cannot stop on it. Errors,
 * AV_EUSAGE: "NAME: \"KEY\" is SHOWN; it must be a token id, a list of
 * them, or null" (a string, a fraction, or a list holding one); "... it
 * must be a token id or a list of at most MAX different ids of the
 * vocabulary, or null" (more than max). */
av_status av_json_token_ids(int *ids, int *n, int *left, int *n_left, int max, const cJSON *root, const char *key,
                            int vocab_size, const char *name, av_err *err);

/* buf (n bytes, n >= 8) = the JSON value j as config.json spells it, for a
 * message that names the value found: "relu" with its quotes, 1, null,
 * {"a":1}; cut to 40 bytes with "…" (the cut backs up to the start of a
 * UTF-8 character). A control character is escaped as JSON escapes it
 * (\u001b), and so is a bidirectional control (U+202E as \u202e), which
 * would reorder the terminal line. j NULL or unprintable gives "(unreadable)";
 * a number past a double's range (1e400, which cJSON reads as infinity and
 * prints as null; its text is not kept) "(a number past 1.797e308)", or
 * "(a number past -1.797e308)". */
void av_json_shown(char *buf, size_t n, const cJSON *j);
/* av_json_shown of the JSON string s (a key of the file: a token of vocab.json), quotes and all, as the file
 * spells it: "\"a\\nb\"", cut to 40 bytes with "…" at a whole character. "(unreadable)" out of memory.
 * Returns buf. */
const char *av_json_shown_string(char *buf, size_t n, const char *s);
/* av_json_shown_string(s) held in a char[48] that lasts to the end of the enclosing block, for a message's
 * argument: av_fail(err, AV_EUSAGE, "token %s has id %d", AV_JSON_STRING_SHOWN(key), id). */
#define AV_JSON_STRING_SHOWN(s) av_json_shown_string((char[48]){0}, 48, (s))

/* 1 when the JSON value j is one Python reads as false (bool(x) is False):
 * false, null, 0, "", [] or {}; 0 for any other value and for NULL (an absent
 * key, which the caller treats as it must). For config flags transformers
 * tests by truth (`if config.attention_bias:`, `if self.scale_attn_by_
 * inverse_layer_idx:`), where 1 or "no" are true. Source: Python's truth
 * value testing (docs.python.org/3/library/stdtypes.html#truth-value-testing);
 * -0 and 0.0 are false as Python's 0.0 is. */
int av_json_falsy(const cJSON *j);

/* The error for a value of the wrong kind, naming what was found:
 * AV_EUSAGE "NAME: KEY is SHOWN; it must be MUST", SHOWN as av_json_shown
 * spells j. key is printed as given, so the caller writes it as the message
 * should show it ("\"layer_norm_epsilon\"", "attnviz.scale"). Always
 * returns AV_EUSAGE. */
av_status av_json_wrong_kind(const char *name, const char *key, const cJSON *j, const char *must, av_err *err);

/* AV_OK unless the JSON text (len bytes) is not UTF-8 or one of its strings
 * holds what cJSON would cut or take silently: the escape \u0000 or a raw NUL
 * byte (cJSON ends its C string there, so "reverse\u0000x" would be read as
 * "reverse" and a vocabulary key "a\u0000b" as "a", where Python's json and
 * Hugging Face keep the whole string; no key, value or token of a model's
 * files holds a NUL: GPT-2's byte-level BPE writes byte 0 as "Ā",
 * SentencePiece as "<0x00>"), or another raw control byte (below 0x20), which
 * JSON requires escaped and Python's json refuses, in a string or between
 * values. Errors, AV_EUSAGE (N from
 * 0; name NULL leaves out "NAME: ", for a caller that prefixes the path):
 *   "NAME: not UTF-8: invalid UTF-8 at byte offset N (byte 0xFF): ..."
 *   "NAME: byte N: a string holds \u0000 (a NUL character), which no model
 *    file has; is the file damaged?"  (N the backslash, or the raw NUL)
 *   "NAME: byte N: a string holds the control byte 0x0A unescaped, which JSON
 *    does not allow; is the file damaged?"
 *   "NAME: byte N: the control byte 0x00 between values, where JSON allows
 *    only spaces, tabs and line breaks; is the file damaged?"  (cJSON skips
 *    every byte up to 0x20 there as white space; Python's json refuses it)
 * A text that is not JSON may pass: the parser reports it. Source: RFC 8259
 * §2 (white space), §7 (strings, escapes) and §8.1 (UTF-8). */
av_status av_json_check_strings(const char *text, size_t len, const char *name, av_err *err);

/* *root = the JSON object that text (len bytes, need not be NUL-terminated)
 * holds, parsed by cJSON; free it with cJSON_Delete. With end NULL the object
 * must be the whole text (white space may follow); else *end = the byte after
 * it, for a caller that allows what follows (a safetensors header's padding).
 * Errors, AV_EUSAGE, *root NULL; name starts each message (NULL leaves out
 * "NAME: ", for a caller that prefixes its path):
 *   "NAME: empty file; expected a JSON object" (only white space);
 *   av_json_check_strings', first;
 *   "NAME: not valid JSON near byte 12 of 13; it ends before its closing '}'
 *    (truncated?)"  (where cJSON stopped, from 0: the start of the value it
 *    could not finish, so a byte or so before Python's json; the hint when the
 *    text, less white space, begins with '{' and does not end with '}');
 *   "NAME: not valid JSON near byte 19 of 20: a ',' at byte 18 before the
 *    closing '}' (JSON allows no comma after the last member of an object;
 *    remove it)"  (or ']' and "element of an array": a trailing comma, RFC
 *    8259 §4, §5, found outside strings before where cJSON stopped; said in
 *    place of the "(truncated?)" hint);
 *   "NAME: not valid JSON at byte 7 of 11: NaN is not a JSON number (JSON has
 *    no NaN or Infinity; Python's json.dumps writes them unless
 *    allow_nan=False); write a finite number"  (or Infinity, -Infinity: where
 *    cJSON stopped, at the word; RFC 8259 §6);
 *   "NAME: arrays and objects nested more than 1000 deep at byte 1000 of
 *    2000; the parser stops there (...)"  (CJSON_NESTING_LIMIT; Python's json
 *    stops near there too, with a RecursionError);
 *   "NAME: not a JSON object (it is an array)"  (or a string, a number, ...);
 *   "NAME: key \"n_head\" appears twice in one object (Python's json keeps
 *    the last, cJSON the first; is the file damaged?)"  (at any depth);
 *   "NAME: not valid JSON at byte 16 of 17: text follows the object" (end NULL).
 * AV_ERUNTIME if cJSON runs out of memory (it says so only as a parse
 * failure, reported as above). Source: RFC 8259 §2 (a JSON text) and §4. */
av_status av_json_parse_object(cJSON **root, const char *text, size_t len, const char **end, const char *name,
                               av_err *err);

/* The JSON object in the optional file at path (at most max bytes) into *root
 * (cJSON_Delete it), or NULL with AV_OK when there is no file there, as a
 * model folder's tokenizer_config.json may be absent; named (n bytes) gets
 * path as messages name it, one shell word (av_shown_word). Not fopen: a FIFO
 * there waited for a writer forever. Errors (*root NULL): av_dangling_link's
 * for a link to nothing (not "no file"), av_read_regular_file's, and
 * av_json_parse_object's, named. The reading that text/hftok.c and
 * app/gpt2run.c each wrote for tokenizer_config.json. */
av_status av_json_read_optional_object(cJSON **root, const char *path, size_t max, char *named, size_t n, av_err *err);
#endif
