/* hftok.c - tokenizer.json: parsing, the byte-level kind on bpe.h's core
 * (after the Split pre-tokenizer, cut here), the sentencepiece-style kind
 * (characters merged by rank, byte fallback), added tokens and the BOS rule.
 * See hftok.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "text/hftok.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/utf8.h"
#include "io/fileio.h"
#include "io/jsonval.h"
#include "text/bpe.h"

#define SP_SPACE "\xe2\x96\x81" /* "▁" U+2581, sentencepiece's space */

/* The pattern bpe.h's core gets after a ByteLevel with use_regex false: the
 * whole piece is one (HF's ByteLevel then splits nothing). */
#define WHOLE_PIECE "(?s).+"

/* A Split pre-tokenizer's behavior (tokenizers' SplitDelimiterBehavior). */
typedef enum { SPLIT_ISOLATED, SPLIT_REMOVED, SPLIT_MERGED_PREV, SPLIT_MERGED_NEXT, SPLIT_CONTIGUOUS } split_behavior;
static const char *const split_names[] = {"Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous"};

/* An added token as tokenizers' added_vocabulary.rs reads it: s the content;
 * pat[0..len) what is looked for (the content, NFC'd when normalized and the
 * normalizer is NFC); the flags of its JSON entry. */
typedef struct {
    char *s, *pat;
    size_t len;
    int32_t id;
    unsigned char lstrip, rstrip, single_word, normalized;
} added_token;

struct av_hftok {
    av_hftok_kind kind;
    int32_t V;
    av_bpe *bpe;                       /* byte-level: the core */
    int digits;                        /* byte-level: Digits(individual_digits) splits first */
    pcre2_code *split;                 /* byte-level: a Split's pattern, or NULL */
    split_behavior split_how;          /* its behavior */
    int split_invert;                  /* and invert */
    int nfc;                           /* normalizer NFC */
    char **tok;                        /* sentencepiece: token text by id (NULL for unused ids) */
    size_t *tok_len;
    int32_t *map;                      /* sentencepiece: open-addressed text -> id, cap slots */
    uint64_t *pair_key;                /* sentencepiece: (left << 32 | right) + 1, 0 = empty */
    int32_t *pair_rank, *pair_out;     /* its rank and merged id */
    size_t cap, pair_cap;
    int32_t byte_id[256];              /* "<0xNN>" ids, -1 if absent */
    int32_t unk_id;
    char *unk_missing;                 /* model.unk_token when model.vocab lacks it (unk_id -1), else NULL */
    int fuse_unk;                      /* model.fuse_unk: a run of unknown characters is one unk_token */
    int prepend;                       /* 0 none, 1 every segment, 2 the text's first segment only */
    int metaspace_split;               /* Metaspace split: each "▁" starts a piece of its own */
    int prepend_unless_space;          /* Metaspace's prepend: not to a segment that starts with a space */
    added_token *added;                /* longest pattern first */
    int n_added;
    int sp_norm;                       /* a Prepend or Replace "▁" normalizer (Llama 2's) */
    int prepend_norm;                  /* the Prepend one */
    pcre2_code *word_re, *space_re;    /* one \w, one \s character as Rust's regex reads them (single_word, lstrip, rstrip) */
    int32_t bos;
    int ignore_merges;                 /* model.ignore_merges: a piece that is a token is that token */
    int n_moved;                       /* added tokens that took their text's earlier id (moved_note) */
    char moved_note[480];              /* the first of them, for av_hftok_note */
    char *bos_note;                    /* av_hftok_bos_note's, or NULL */
};

/* ----------------------------------------------------------------------------
 * sentencepiece tables */

static int32_t sp_find(const av_hftok *t, const char *s, size_t n) {
    for (size_t i = av_fnv1a64(AV_FNV1A64_BASIS, s, n) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        int32_t id = t->map[i];
        if (id < 0) return -1;
        if (t->tok_len[id] == n && memcmp(t->tok[id], s, n) == 0) return id;
    }
}

static av_status sp_add(av_hftok *t, const char *s, size_t n, int32_t id, const char *name, av_err *err) {
    if (id < 0 || id >= t->V || t->tok[id])
        return av_fail(err, AV_EUSAGE, "%s: token %s has id %d, outside 0..%d or given twice", name, AV_JSON_STRING_SHOWN(s), id, t->V - 1);
    if (sp_find(t, s, n) >= 0) return av_fail(err, AV_EUSAGE, "%s: token %s appears twice", name, AV_JSON_STRING_SHOWN(s));
    if (!(t->tok[id] = malloc(n + 1))) return av_fail(err, AV_ERUNTIME, "out of memory reading %s", name);
    memcpy(t->tok[id], s, n);
    t->tok[id][n] = 0;
    t->tok_len[id] = n;
    size_t i = av_fnv1a64(AV_FNV1A64_BASIS, s, n) & (t->cap - 1);
    while (t->map[i] >= 0) i = (i + 1) & (t->cap - 1);
    t->map[i] = id;
    unsigned b;
    if (n == 6 && sscanf(s, "<0x%2X>", &b) == 1) t->byte_id[b & 255] = id;
    return AV_OK;
}

static size_t pair_slot(const av_hftok *t, int32_t l, int32_t r) {
    uint64_t key = ((uint64_t)(uint32_t)l << 32 | (uint32_t)r) + 1;
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (t->pair_cap - 1);
    while (t->pair_key[i] && t->pair_key[i] != key) i = (i + 1) & (t->pair_cap - 1);
    return i;
}

/* Rank of merging (l, r), or -1; *out gets the merged id. */
static int32_t pair_rank(const av_hftok *t, int32_t l, int32_t r, int32_t *out) {
    size_t i = pair_slot(t, l, r);
    if (!t->pair_key[i]) return -1;
    *out = t->pair_out[i];
    return t->pair_rank[i];
}

/* ----------------------------------------------------------------------------
 * parsing */

/* Merge rank of name's model.merges, m, as "left right" or ["left", "right"] (both formats exist); else
 * AV_EUSAGE naming the file and the entry. */
static av_status merge_parts(const cJSON *m, const char **l, size_t *ll, const char **r, size_t *rl, const char *name,
                             int rank, av_err *err) {
    if (cJSON_IsString(m)) {
        const char *sp = strchr(m->valuestring, ' ');
        if (sp && !strchr(sp + 1, ' ')) {
            *l = m->valuestring, *ll = (size_t)(sp - m->valuestring), *r = sp + 1, *rl = strlen(sp + 1);
            return AV_OK;
        }
    } else if (cJSON_GetArraySize(m) == 2 && cJSON_IsString(m->child) && cJSON_IsString(m->child->next)) {
        *l = m->child->valuestring, *ll = strlen(*l), *r = m->child->next->valuestring, *rl = strlen(*r);
        return AV_OK;
    }
    return av_fail(err, AV_EUSAGE, "%s: model.merges[%d] is not \"left right\" (one space) or [\"left\", \"right\"]",
                   name, rank);
}

/* An added token whose id the file already gives another token (holder[0..hlen), as the file spells it):
 * AV_EUSAGE naming both. Read on, the text typed as the added token would be the holder's id, and its label
 * the holder's ("<b>" shown as [<a>]). */
static av_status id_taken(const char *name, const char *s, int32_t id, const char *holder, av_err *err) {
    /* each whole to 199 bytes, bidi closed (av_utf8_shown_middle): 60 bytes cut a token inside a character, with
     * no mark */
    const char *a = AV_SHOWN_MIDDLE(s), *b = AV_SHOWN_MIDDLE(holder);
    return av_fail(err, AV_EUSAGE, "%s: added token \"%s\" has id %d, already the id of the token \"%s\"; each id "
                   "is one token's (read on, \"%s\" would be taken as \"%s\"): is the file damaged?", name, a, (int)id,
                   b, a, b);
}

/* An added token whose text (content, as tokenizers looks it up) is already the token of the id have, an earlier
 * one (model.vocab's, or an added token's), where the file gives it id k: it takes have, as tokenizers'
 * AddedVocabulary::add_tokens gives an added token token_to_id(content) when there is one (added_vocabulary.rs;
 * serialization.rs warns "Token 'cat' was expected to have ID '50260' but was given ID '9246'"), and k keeps no
 * token (tokenizers' id_to_token(k) is None: its decode skips it). Counted and the first kept for av_hftok_note. */
static void move_added(av_hftok *t, const char *content, int32_t k, int32_t have) {
    for (int i = 0; i < t->n_added; i++)
        if (t->added[i].id == k && !strcmp(t->added[i].s, content)) t->added[i].id = have;
    if (t->n_moved++ == 0) {
        char a[80];
        size_t n = strlen(content);
        av_utf8_escape_controls(content, n < 60 ? n : 60, a, sizeof a, 0);
        snprintf(t->moved_note, sizeof t->moved_note, "added token \"%s\" has id %d, but \"%s\" is already token %d, "
                 "so \"%s\" in the text is %d and no text is %d, as Hugging Face's tokenizers read it", a, (int)k, a,
                 (int)have, a, (int)have, (int)k);
    }
}

static av_status sp_build(av_hftok *t, const cJSON *model, const char *name, av_err *err) {
    /* the pair table holds every merge at half load, sized by the merges, not the tokens: a tokenizer.json
     * converted from sentencepiece lists each pair whose concatenation is a token, so a token made two ways
     * has two merges and the merges can outnumber the tokens */
    const cJSON *merges = cJSON_GetObjectItemCaseSensitive(model, "merges");
    size_t n_merges = (size_t)cJSON_GetArraySize(merges);
    for (t->cap = 16; t->cap < 2 * (size_t)t->V; t->cap *= 2) {}
    for (t->pair_cap = 16; t->pair_cap < 2 * n_merges; t->pair_cap *= 2) {}
    t->tok = calloc((size_t)t->V, sizeof *t->tok), t->tok_len = calloc((size_t)t->V, sizeof *t->tok_len);
    t->map = malloc(t->cap * sizeof *t->map), t->pair_key = calloc(t->pair_cap, sizeof *t->pair_key);
    t->pair_rank = malloc(t->pair_cap * sizeof(int32_t)), t->pair_out = malloc(t->pair_cap * sizeof(int32_t));
    if (!t->tok || !t->tok_len || !t->map || !t->pair_key || !t->pair_rank || !t->pair_out)
        return av_fail(err, AV_ERUNTIME, "out of memory reading %s", name);
    memset(t->map, 0xff, t->cap * sizeof *t->map);
    av_status s = AV_OK;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(model, "vocab")) {
        if (!s) s = sp_add(t, e->string, strlen(e->string), cJSON_IsNumber(e) ? (int32_t)e->valuedouble : -1, name, err);
    }
    int32_t rank = 0;
    cJSON_ArrayForEach(e, merges) {
        const char *l, *r;
        size_t ll, rl;
        char both[2 * AV_BPE_MAX_TOKEN_BYTES];
        if (s || (s = merge_parts(e, &l, &ll, &r, &rl, name, rank, err))) break;
        int32_t a = -1, b = -1, ab = -1;
        if (ll + rl < sizeof both) {
            memcpy(both, l, ll), memcpy(both + ll, r, rl);
            a = sp_find(t, l, ll), b = sp_find(t, r, rl), ab = sp_find(t, both, ll + rl);
        }
        if (a < 0 || b < 0 || ab < 0) { /* named as the byte-level merges' errors are: the file, the entry, the token */
            char piece[200], shown[1700]; /* whole to 199 bytes, bidi closed: 60 bytes cut inside a character */
            const char *what = a < 0 ? l : b < 0 ? r : both;
            size_t wl = a < 0 ? ll : b < 0 ? rl : ll + rl;
            av_utf8_cut_middle(what, wl, piece, sizeof piece);
            av_utf8_shown_name(piece, shown, sizeof shown);
            s = av_fail(err, AV_EUSAGE, "%s: model.merges[%d]: \"%s\"%s is not a token of the vocabulary", name, rank,
                        shown, a >= 0 && b >= 0 ? " (what the merge makes)" : "");
            break;
        }
        size_t i = pair_slot(t, a, b);
        if (!t->pair_key[i])
            t->pair_key[i] = ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) + 1, t->pair_rank[i] = rank, t->pair_out[i] = ab;
        rank++;
    }
    const cJSON *unk = cJSON_GetObjectItemCaseSensitive(model, "unk_token");
    t->unk_id = cJSON_IsString(unk) ? sp_find(t, unk->valuestring, strlen(unk->valuestring)) : -1;
    /* named but not a token: tokenizers loads it and fails when a character needs it (sp_encode_piece) */
    if (!s && t->unk_id < 0 && cJSON_IsString(unk) && !(t->unk_missing = strdup(unk->valuestring)))
        s = av_fail(err, AV_ERUNTIME, "out of memory reading %s", name);
    t->fuse_unk = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(model, "fuse_unk"));
    /* added tokens model.vocab does not hold (a fine-tune's "<pad>" 32000 after Llama 2's 0..31999), after the
     * merges and unk_token, which name model.vocab's tokens only: their text decodes and labels them, as bl_build
     * gives them to bpe.h (before, decoding such an id failed: "token id 32000 has no token"); a text that is
     * also another id's token stays that token's in the text -> id map */
    for (int i = 0; !s && i < t->n_added; i++) {
        const added_token *a = &t->added[i];
        size_t n = strlen(a->s);
        int32_t have;
        if (t->tok[a->id]) {
            if (t->tok_len[a->id] != n || memcmp(t->tok[a->id], a->s, n))
                s = id_taken(name, a->s, a->id, t->tok[a->id], err);
            continue;
        }
        /* a text model.vocab (or an added token before) already gives another id keeps that id, and a->id none
         * (before, the text was encoded as a->id and a->id decoded as the text) */
        if ((have = sp_find(t, a->s, n)) < 0) s = sp_add(t, a->s, n, a->id, name, err);
        else move_added(t, a->s, a->id, have);
    }
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(model, "byte_fallback"))) memset(t->byte_id, 0xff, sizeof t->byte_id);
    return s;
}

/* err's message (bpe.h's, which knows no file: "\"zq\" is not a token of the vocabulary") prefixed with the
 * file and where in it: "tokenizer.json: model.merges[7]: ...", or "...: model.vocab: ..." when i < 0. */
static void named(av_err *err, av_status s, const char *name, const char *where, int i) {
    av_err inner = *err;
    if (i < 0) av_fail(err, s, "%s: %s: %s", name, where, inner.msg);
    else av_fail(err, s, "%s: %s[%d]: %s", name, where, i, inner.msg);
}

/* raw[0..n) in the byte-level alphabet (bytes_to_unicode of openai/gpt-2 encoder.py: printable Latin-1 bytes
 * stand for themselves, the other 68 for U+0100..U+0143 in byte order) into out (cap >= 2·n + 1), as
 * model.vocab spells a token: an added token's content is the text itself (tokenizers' AddedToken), so
 * DeepSeek-R1-Distill-Qwen's "<｜begin▁of▁sentence｜>" (U+FF5C, U+2581) or "<x y>" are its UTF-8 bytes. */
static int bytelevel_printable(unsigned b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE; }

static void bytelevel_spell(const char *raw, size_t n, char *out) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned b = (unsigned char)raw[i], cp = 256;
        if (bytelevel_printable(b)) cp = b;
        else
            for (unsigned c = 0; c < b; c++) cp += !bytelevel_printable(c);
        if (cp < 0x80) out[w++] = (char)cp;
        else out[w++] = (char)(0xC0 | cp >> 6), out[w++] = (char)(0x80 | (cp & 0x3F));
    }
    out[w] = 0;
}

static av_status bl_build(av_hftok *t, const cJSON *model, const cJSON *added, const char *pattern, const char *name,
                          av_err *err) {
    av_status s = av_bpe_new(&t->bpe, t->V, err);
    const char **given = calloc((size_t)t->V, sizeof *given); /* the token of each id, as the file spells it */
    if (!s && !given) s = av_fail(err, AV_ERUNTIME, "out of memory reading %s", name);
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(model, "vocab")) {
        int32_t id = cJSON_IsNumber(e) ? (int32_t)e->valuedouble : -1;
        if (!s && (s = av_bpe_add_token(t->bpe, e->string, strlen(e->string), id, err))) named(err, s, name, "model.vocab", -1);
        if (!s) given[id] = e->string;
    }
    int i_added = 0;
    cJSON_ArrayForEach(e, added) { /* added tokens the vocabulary does not hold (Qwen2's <|im_start|> ...) */
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(e, "content"), *id = cJSON_GetObjectItemCaseSensitive(e, "id");
        int32_t k = cJSON_IsNumber(id) ? (int32_t)id->valuedouble : -1;
        int32_t have = -1;
        if (!s && cJSON_IsString(c) && k >= 0 && k < t->V && !given[k] &&
            (have = av_bpe_find(t->bpe, c->valuestring, strlen(c->valuestring))) >= 0) {
            /* its text is already a token (model.vocab's "cat", or an added token's): that id, and k none */
            if (!(s = av_bpe_leave_unused(t->bpe, k, err))) move_added(t, c->valuestring, k, have);
            given[k] = c->valuestring;
        } else if (!s && cJSON_IsString(c) && k >= 0 && k < t->V && !given[k]) {
            size_t n = strlen(c->valuestring);
            char *spelt = malloc(2 * n + 1);
            if (!spelt) s = av_fail(err, AV_ERUNTIME, "out of memory reading %s", name);
            else bytelevel_spell(c->valuestring, n, spelt);
            if (!s && (s = av_bpe_add_token(t->bpe, spelt, strlen(spelt), k, err)))
                named(err, s, name, "added_tokens", i_added);
            free(spelt);
            given[k] = c->valuestring;
        } else if (!s && cJSON_IsString(c) && k >= 0 && k < t->V && strcmp(given[k], c->valuestring) &&
                   av_bpe_find(t->bpe, c->valuestring, strlen(c->valuestring)) != k) /* its raw bytes, or as spelt */
            s = id_taken(name, c->valuestring, k, given[k], err);
        i_added++;
    }
    int32_t n = 0, gap = -1; /* the tokens; the first id none has (bpe.h needs ids 0..V-1, each once) */
    for (int32_t i = 0; !s && i < t->V; i++)
        if (given[i]) n++;
        else if (gap < 0) gap = i;
    const added_token *past = NULL; /* an added token past model.vocab's ids and the gap: it, not the gap, is named */
    for (int i = 0; !s && gap >= 0 && i < t->n_added; i++)
        if (t->added[i].id > gap && (!past || t->added[i].id > past->id)) past = &t->added[i];
    if (past && past->id == t->V - 1)
        s = av_fail(err, AV_EUSAGE, "%s: added token %s has id %d, outside 0..%d: the file has %d tokens "
                    "(model.vocab and added_tokens), so the ids must be 0..%d, each once (no token has id %d)", name,
                    AV_JSON_STRING_SHOWN(past->s), (int)past->id, (int)n - 1, (int)n, (int)n - 1, (int)gap);
    free(given);
    int rank = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(model, "merges")) {
        const char *l, *r;
        size_t ll, rl;
        if (!s) s = merge_parts(e, &l, &ll, &r, &rl, name, rank, err);
        if (!s && (s = av_bpe_add_merge(t->bpe, l, ll, r, rl, err))) named(err, s, name, "model.merges", rank);
        rank++;
    }
    if (!s && (s = av_bpe_finish(t->bpe, pattern, err))) { /* "no token has id 7 ...": say which file */
        av_err inner = *err;
        s = av_fail(err, s, "%s: %s", name, inner.msg);
    }
    if (!s) av_bpe_set_ignore_merges(t->bpe, t->ignore_merges);
    return s;
}

/* A Split pre-tokenizer e: its pattern ({"Regex": ...} or {"String": ...},
 * compiled as bpe.h compiles one: PCRE2, UTF + UCP), behavior and invert. */
static av_status split_settings(av_hftok *t, const cJSON *e, const char *name, av_err *err) {
    const cJSON *pat = cJSON_GetObjectItemCaseSensitive(e, "pattern");
    const cJSON *re = cJSON_GetObjectItemCaseSensitive(pat, "Regex"), *str = cJSON_GetObjectItemCaseSensitive(pat, "String");
    const cJSON *how = cJSON_GetObjectItemCaseSensitive(e, "behavior"), *inv = cJSON_GetObjectItemCaseSensitive(e, "invert");
    if (t->split) return av_fail(err, AV_EUSAGE, "%s: two Split pre-tokenizers are not supported (allowed: one)", name);
    if (!cJSON_IsString(re) && !cJSON_IsString(str))
        return av_fail(err, AV_EUSAGE, "%s: a Split pre-tokenizer needs a pattern {\"Regex\": ...} or {\"String\": ...}", name);
    int k = 0;
    while (k < 5 && !(cJSON_IsString(how) && !strcmp(how->valuestring, split_names[k]))) k++;
    if (k == 5) {
        char shown[64];
        av_json_shown(shown, sizeof shown, how);
        return av_fail(err, AV_EUSAGE, "%s: Split behavior %s is not supported (allowed: \"Isolated\", \"Removed\", "
                       "\"MergedWithPrevious\", \"MergedWithNext\", \"Contiguous\")", name, how ? shown : "(missing)");
    }
    if (inv && !cJSON_IsBool(inv)) {
        char shown[64];
        av_json_shown(shown, sizeof shown, inv);
        return av_fail(err, AV_EUSAGE, "%s: Split invert %s is not supported (allowed: true, false)", name, shown);
    }
    t->split_how = (split_behavior)k, t->split_invert = cJSON_IsTrue(inv);
    int code;
    size_t at;
    PCRE2_SIZE lat;
    /* a Regex as Hugging Face's Oniguruma reads it (\s is White_Space, see bpe.h); PCRE2_LITERAL refuses
     * PCRE2_UCP ("invalid option bits"): a String pattern has no classes to need it */
    if (cJSON_IsString(re))
        t->split = av_bpe_compile_pattern(re->valuestring, &code, &at);
    else
        t->split = pcre2_compile((PCRE2_SPTR)str->valuestring, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_LITERAL,
                                 &code, &lat, NULL), at = lat;
    if (!t->split) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return av_fail(err, AV_EUSAGE, "%s: the Split pattern does not compile at offset %zu: %s", name, (size_t)at,
                       (const char *)msg);
    }
    return AV_OK;
}

/* The kind and its settings from normalizer and pre_tokenizer. *pattern
 * gets what bpe.h's core splits each piece with: NULL (GPT-2's pattern,
 * ByteLevel's use_regex true, the default) or WHOLE_PIECE (use_regex false). */
static av_status classify(av_hftok *t, const cJSON *root, const char **pattern, const char *name, av_err *err) {
    const cJSON *norm = cJSON_GetObjectItemCaseSensitive(root, "normalizer");
    const cJSON *pre = cJSON_GetObjectItemCaseSensitive(root, "pre_tokenizer"), *e;
    int byte_level = 0, metaspace = 0, sp_norm = 0, prepend_norm = 0, bad = 0;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(pre, "pretokenizers");
    const cJSON *one = list ? list->child : (cJSON_IsObject(pre) ? pre : NULL);
    for (e = one; e; e = list ? e->next : NULL) {
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(e, "type");
        const char *type = cJSON_IsString(ty) ? ty->valuestring : "?";
        if (!strcmp(type, "ByteLevel")) {
            byte_level = 1;
            static const char *const flag[] = {"add_prefix_space", "trim_offsets", "use_regex"};
            for (int f = 0; f < 3; f++) { /* "false" (a string) was read as use_regex true, the default */
                const cJSON *b = cJSON_GetObjectItemCaseSensitive(e, flag[f]);
                char key[48];
                snprintf(key, sizeof key, "ByteLevel %s", flag[f]);
                if (b && !cJSON_IsBool(b)) return av_json_wrong_kind(name, key, b, "true or false", err);
            }
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "add_prefix_space")))
                return av_fail(err, AV_EUSAGE, "%s: ByteLevel add_prefix_space true is not supported (allowed: false)", name);
            if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e, "use_regex"))) *pattern = WHOLE_PIECE;
        } else if (!strcmp(type, "Split")) {
            av_status s = split_settings(t, e, name, err);
            if (s) return s;
        } else if (!strcmp(type, "Digits")) {
            /* individual_digits false (or absent: tokenizers' default) keeps a run of digits as one piece, which
             * is not implemented: it was refused as "pre_tokenizer Digits is not supported (allowed: ..., Digits,
             * ...)", naming Digits among the allowed ones (a user's report) */
            const cJSON *ind = cJSON_GetObjectItemCaseSensitive(e, "individual_digits");
            if (!cJSON_IsTrue(ind)) {
                char shown[64] = "absent (false, tokenizers' default)";
                if (ind) av_json_shown(shown, sizeof shown, ind);
                return av_fail(err, AV_EUSAGE, "%s: pre_tokenizer Digits with individual_digits %s is not supported "
                               "(allowed: true, each digit its own piece; false, a run of digits as one piece, is not "
                               "implemented)", name, shown);
            }
            t->digits = 1;
        } else if (!strcmp(type, "Metaspace")) {
            /* as tokenizers' Metaspace deserializes: prepend_scheme, else the older add_prefix_space (false:
             * never, true or absent: always); split absent is true (a piece starts at every "▁") */
            const cJSON *ps = cJSON_GetObjectItemCaseSensitive(e, "prepend_scheme");
            const cJSON *aps = cJSON_GetObjectItemCaseSensitive(e, "add_prefix_space");
            const cJSON *split = cJSON_GetObjectItemCaseSensitive(e, "split");
            const char *scheme = cJSON_IsString(ps) ? ps->valuestring : "";
            int known = !ps || !strcmp(scheme, "always") || !strcmp(scheme, "first") || !strcmp(scheme, "never");
            const cJSON *odd = !known ? ps : split && !cJSON_IsBool(split) ? split : aps && !cJSON_IsBool(aps) ? aps : NULL;
            if (odd) {
                char shown[64];
                av_json_shown(shown, sizeof shown, odd);
                return av_fail(err, AV_EUSAGE, "%s: Metaspace %s %s is not supported (allowed: %s)", name,
                               odd == ps ? "prepend_scheme" : odd == split ? "split" : "add_prefix_space", shown,
                               odd == ps ? "\"always\", \"first\", \"never\"" : "true, false");
            }
            const cJSON *rep = cJSON_GetObjectItemCaseSensitive(e, "replacement");
            if (rep && !(cJSON_IsString(rep) && !strcmp(rep->valuestring, SP_SPACE))) {
                char shown[64]; /* attnviz's merges and tokens read "▁": another one would be cut without a word */
                av_json_shown(shown, sizeof shown, rep);
                return av_fail(err, AV_EUSAGE, "%s: Metaspace replacement %s is not supported (allowed: \"▁\", U+2581)",
                               name, shown);
            }
            metaspace = 1;
            t->prepend = !strcmp(scheme, "never") ? 0 : !strcmp(scheme, "first") ? 2 : ps || !cJSON_IsFalse(aps) ? 1 : 0;
            t->metaspace_split = !cJSON_IsFalse(split);
        } else {
            return av_fail(err, AV_EUSAGE, "%s: pre_tokenizer %s is not supported (allowed: ByteLevel, Split with ByteLevel, Digits, Metaspace)", name, AV_SHOWN_MIDDLE(type));
        }
    }
    list = cJSON_GetObjectItemCaseSensitive(norm, "normalizers");
    for (e = list ? list->child : (cJSON_IsObject(norm) ? norm : NULL); e; e = list ? e->next : NULL) {
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(e, "type");
        const char *type = cJSON_IsString(ty) ? ty->valuestring : "?";
        const char *what = NULL; /* a Prepend or Replace other than Llama 2's would change the text without a word */
        if (!strcmp(type, "NFC")) t->nfc = 1;
        else if (!strcmp(type, "Prepend")) {
            const cJSON *pp = cJSON_GetObjectItemCaseSensitive(e, "prepend");
            if (!(cJSON_IsString(pp) && !strcmp(pp->valuestring, SP_SPACE))) what = "prepend";
            sp_norm = prepend_norm = 1, t->prepend = 1;
        } else if (!strcmp(type, "Replace")) {
            const cJSON *pat = cJSON_GetObjectItemCaseSensitive(e, "pattern");
            const cJSON *str = cJSON_GetObjectItemCaseSensitive(pat, "String");
            const cJSON *content = cJSON_GetObjectItemCaseSensitive(e, "content");
            if (!(cJSON_IsString(str) && !strcmp(str->valuestring, " ")))
                what = "pattern";
            else if (!(cJSON_IsString(content) && !strcmp(content->valuestring, SP_SPACE)))
                what = "content";
            sp_norm = 1;
        } else bad = 1;
        if (bad) return av_fail(err, AV_EUSAGE, "%s: normalizer %s is not supported (allowed: NFC; Prepend and Replace \"▁\")", name, AV_SHOWN_MIDDLE(type));
        if (what) {
            char shown[64];
            av_json_shown(shown, sizeof shown, cJSON_GetObjectItemCaseSensitive(e, what));
            return av_fail(err, AV_EUSAGE, "%s: normalizer %s with %s %s is not supported (allowed: Prepend \"▁\"; Replace "
                           "{\"String\": \" \"} with \"▁\", as Llama 2's tokenizer.json has them)", name, type, what, shown);
        }
    }
    t->sp_norm = sp_norm, t->prepend_norm = prepend_norm;
    if (byte_level == (metaspace || sp_norm))
        return av_fail(err, AV_EUSAGE, "%s: neither byte-level BPE (a ByteLevel pre-tokenizer) nor sentencepiece-style BPE (Metaspace or a \"▁\" normalizer)", name);
    if (t->split && !byte_level)
        return av_fail(err, AV_EUSAGE, "%s: a Split pre-tokenizer is supported with ByteLevel only (byte-level BPE), not "
                       "with sentencepiece-style BPE", name);
    t->prepend_unless_space = metaspace && !prepend_norm; /* Prepend puts "▁" first always, then Metaspace adds none */
    t->kind = byte_level ? AV_HFTOK_BYTE_LEVEL : AV_HFTOK_SENTENCEPIECE;
    return AV_OK;
}

/* V = 1 + the largest id of model.vocab and added_tokens; the added tokens, longest first. */
static av_status read_added(av_hftok *t, const cJSON *model, const cJSON *added, const char *name, av_err *err) {
    const cJSON *e;
    t->V = 0;
    /* an array of tokens ("vocab": ["a", "b"]) was read as keys "(null)"; an id 256.5 was taken as 256, where
     * vocab.json refuses it (files that lie: a damaged download) */
    const cJSON *vocab = cJSON_GetObjectItemCaseSensitive(model, "vocab");
    if (cJSON_IsArray(vocab)) /* shown whole, a list of 150000 tokens would be cut mid-token */
        return av_fail(err, AV_EUSAGE, "%s: model.vocab is an array of %d entries; it must be an object of each "
                       "token's id (\"token\": id)", name, cJSON_GetArraySize(vocab));
    if (vocab && !cJSON_IsObject(vocab))
        return av_json_wrong_kind(name, "model.vocab", vocab, "an object of each token's id (\"token\": id)", err);
    cJSON_ArrayForEach(e, vocab) {
        if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble >= (1 << 24) ||
            e->valuedouble != floor(e->valuedouble)) {
            char shown[64];
            av_json_shown(shown, sizeof shown, e);
            return av_fail(err, AV_EUSAGE, "%s: model.vocab[%s] is %s; it must be a whole-number id in "
                           "0..16777215", name, AV_JSON_STRING_SHOWN(e->string), shown); /* marked where cut */
        }
        if ((int32_t)e->valuedouble >= t->V) t->V = (int32_t)e->valuedouble + 1;
    }
    int n = cJSON_GetArraySize(added);
    if (n && !(t->added = calloc((size_t)n, sizeof *t->added))) return av_fail(err, AV_ERUNTIME, "out of memory reading %s", name);
    cJSON_ArrayForEach(e, added) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(e, "content"), *id = cJSON_GetObjectItemCaseSensitive(e, "id");
        if (!cJSON_IsString(c) || !c->valuestring[0] || !cJSON_IsNumber(id) || id->valuedouble < 0 ||
            id->valuedouble >= (1 << 24) || id->valuedouble != floor(id->valuedouble))
            return av_fail(err, AV_EUSAGE, "%s: added_tokens[%d] needs a non-empty \"content\" and an \"id\" in 0..16777215", name, t->n_added);
        /* the flags (tokenizers' AddedToken): absent is false, and "normalized" absent is not "special", as
         * AddedToken::from sets it (tokenizers itself refuses an entry without them) */
        static const char *const flag[] = {"lstrip", "rstrip", "single_word", "normalized", "special"};
        int on[5];
        for (int f = 0; f < 5; f++) {
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(e, flag[f]);
            char key[64];
            snprintf(key, sizeof key, "added_tokens[%d].%s", t->n_added, flag[f]);
            if (b && !cJSON_IsBool(b)) return av_json_wrong_kind(name, key, b, "true or false", err);
            on[f] = b ? cJSON_IsTrue(b) : f == 3 ? -1 : 0;
        }
        if (on[3] < 0) on[3] = !on[4];
        added_token a = {strdup(c->valuestring), NULL, strlen(c->valuestring), (int32_t)id->valuedouble,
                         (unsigned char)on[0], (unsigned char)on[1], (unsigned char)on[2], (unsigned char)on[3]};
        if (!a.s) return av_fail(err, AV_ERUNTIME, "out of memory reading %s", name);
        if (a.normalized && t->sp_norm && (strchr(a.s, ' ') || strstr(a.s, SP_SPACE))) {
            av_status st = av_fail(err, AV_EUSAGE, "%s: added token %s has \"normalized\": true and a space or "
                                   "\"▁\" in it: Hugging Face's tokenizers match it as the \"▁\" normalizer "
                                   "rewrites it, which attnviz does not do (allowed: \"normalized\": false for it)",
                                   name, AV_JSON_STRING_SHOWN(a.s));
            return free(a.s), st;
        }
        av_err bad;
        if (av_utf8_check(a.s, a.len, &bad))
            return free(a.s), av_fail(err, AV_EUSAGE, "%s: added_tokens[%d].content: %s", name, t->n_added, bad.msg);
        a.pat = a.normalized && t->nfc ? av_utf8_nfc(a.s, a.len, &a.len) : strdup(a.s); /* as tokenizers' normalized_cache */
        if (!a.pat) return free(a.s), av_fail(err, AV_ERUNTIME, "out of memory reading %s", name);
        if ((a.lstrip || a.rstrip || a.single_word) && !t->word_re) {
            int code;
            PCRE2_SIZE at; /* Rust regex's Unicode \w (UTS #18 Annex C) and \s (White_Space) */
            t->word_re = pcre2_compile((PCRE2_SPTR) "[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}]",
                                       PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_ANCHORED, &code, &at, NULL);
            t->space_re = pcre2_compile((PCRE2_SPTR) "\\p{White_Space}", PCRE2_ZERO_TERMINATED,
                                        PCRE2_UTF | PCRE2_ANCHORED, &code, &at, NULL);
            if (!t->word_re || !t->space_re)
                return free(a.s), free(a.pat), av_fail(err, AV_ERUNTIME, "%s: this PCRE2 (before 10.40) lacks the "
                                                       "Unicode properties added tokens' lstrip, rstrip and "
                                                       "single_word need", name);
        }
        int k = t->n_added++;
        for (; k > 0 && t->added[k - 1].len < a.len; k--) t->added[k] = t->added[k - 1];
        t->added[k] = a;
        if (a.id >= t->V) t->V = a.id + 1;
    }
    return t->V ? AV_OK : av_fail(err, AV_EUSAGE, "%s: model.vocab is empty", name);
}

/* The id of a TemplateProcessing's SpecialToken named s (tokenizers' processors/template.rs): its
 * "special_tokens" entry's "ids" when it has one (a single id, 0..V-1), else the added token or the
 * vocabulary token s. Errors: AV_EUSAGE naming where, the token and what is allowed. */
static av_status template_token(int32_t *id, const av_hftok *t, const cJSON *pp, const char *s, const char *where,
                                const char *name, av_err *err) {
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pp, "special_tokens"), s), "ids");
    if (ids) {
        const cJSON *v = cJSON_GetArrayItem(ids, 0);
        if (!cJSON_IsArray(ids) || cJSON_GetArraySize(ids) != 1 || !cJSON_IsNumber(v) || v->valuedouble < 0 ||
            v->valuedouble >= t->V || v->valuedouble != (double)(int32_t)v->valuedouble) {
            char shown[48];
            av_json_shown(shown, sizeof shown, ids);
            return av_fail(err, AV_EUSAGE, "%s: %s.special_tokens[%s].ids is %s; attnviz needs one token id, 0..%d",
                           name, where, AV_SHOWN_MIDDLE(s), shown, (int)t->V - 1);
        }
        *id = (int32_t)v->valuedouble;
        return AV_OK;
    }
    for (int i = 0; i < t->n_added; i++)
        if (!strcmp(t->added[i].s, s)) return *id = t->added[i].id, AV_OK;
    *id = av_hftok_find(t, s, strlen(s));
    return *id >= 0 ? AV_OK
                    : av_fail(err, AV_EUSAGE, "%s: %s puts the special token %s first, which is no token of the "
                              "file (added_tokens, model.vocab) and has no special_tokens entry", name, where,
                              AV_JSON_STRING_SHOWN(s));
}

/* One TemplateProcessing's "single" template: [$A] adds nothing, [SpecialToken, $A] puts that token first
 * (t->bos); a special token after the text or a second one is refused, as encoding puts at most one id before
 * the text and none after (tokenizers would add them, so the ids would differ from Hugging Face's). */
static av_status template_bos(av_hftok *t, const cJSON *pp, const char *where, const char *name, av_err *err) {
    const cJSON *single = cJSON_GetObjectItemCaseSensitive(pp, "single");
    if (!cJSON_IsArray(single)) {
        char key[80];
        snprintf(key, sizeof key, "%s.single", where);
        return av_json_wrong_kind(name, key, single, "a template array such as [{\"SpecialToken\": ...}, "
                                  "{\"Sequence\": {\"id\": \"A\"}}]", err);
    }
    int text = 0, n = 0;
    for (const cJSON *e = single->child; e; e = e->next, n++) {
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "SpecialToken"), "id");
        if (cJSON_GetObjectItemCaseSensitive(e, "Sequence")) {
            text = 1;
        } else if (!cJSON_IsString(sp)) {
            char shown[48];
            av_json_shown(shown, sizeof shown, e);
            return av_fail(err, AV_EUSAGE, "%s: %s.single[%d] is %s; allowed: {\"SpecialToken\": {\"id\": ...}} or "
                           "{\"Sequence\": ...}", name, where, n, shown);
        } else if (text || t->bos >= 0) {
            return av_fail(err, AV_EUSAGE, "%s: %s adds the special token %s %s; attnviz puts at most one special "
                           "token before the text and none after it (allowed: \"single\" [$A] or [SPECIAL, $A])",
                           name, where, AV_JSON_STRING_SHOWN(sp->valuestring),
                           text ? "after the text" : "as a second token before it");
        } else {
            av_status s = template_token(&t->bos, t, pp, sp->valuestring, where, name, err);
            if (s) return s;
        }
    }
    return AV_OK;
}

/* post_processor: null or ByteLevel (offsets only) add no token; TemplateProcessing as template_bos; a
 * Sequence of those (Llama 3's [ByteLevel, TemplateProcessing "<|begin_of_text|>" $A]) applies each in turn.
 * Sets t->bos (-1: none). Errors: AV_EUSAGE for another type (RobertaProcessing, BertProcessing add tokens
 * around the text) or a template refused above, naming it and what is allowed. */
static av_status bos_rule(av_hftok *t, const cJSON *root, const char *name, av_err *err) {
    const cJSON *pp = cJSON_GetObjectItemCaseSensitive(root, "post_processor");
    t->bos = -1;
    if (!pp || cJSON_IsNull(pp)) return AV_OK;
    const cJSON *procs = pp, *one = pp;
    int seq = 0, n = 0;
    const cJSON *ty = cJSON_GetObjectItemCaseSensitive(pp, "type");
    if (cJSON_IsString(ty) && !strcmp(ty->valuestring, "Sequence")) {
        seq = 1;
        procs = cJSON_GetObjectItemCaseSensitive(pp, "processors");
        if (!cJSON_IsArray(procs))
            return av_json_wrong_kind(name, "post_processor.processors", procs, "an array of post-processors", err);
        one = procs->child;
    }
    for (; one; one = seq ? one->next : NULL, n++) {
        char where[48];
        if (seq) snprintf(where, sizeof where, "post_processor.processors[%d]", n);
        else snprintf(where, sizeof where, "post_processor");
        ty = cJSON_GetObjectItemCaseSensitive(one, "type");
        if (cJSON_IsString(ty) && !strcmp(ty->valuestring, "ByteLevel")) continue;
        if (cJSON_IsString(ty) && !strcmp(ty->valuestring, "TemplateProcessing")) {
            av_status s = template_bos(t, one, where, name, err);
            if (s) return s;
            continue;
        }
        char shown[48];
        av_json_shown(shown, sizeof shown, ty ? ty : one);
        return av_fail(err, AV_EUSAGE, "%s: %s %s is not supported (allowed: null, ByteLevel, TemplateProcessing, "
                       "or a Sequence of them)", name, where, shown);
    }
    return AV_OK;
}

/* model's settings that change the ids and that attnviz does not apply: a non-empty
 * continuing_subword_prefix ("##": tokenizers' BPE looks every symbol after a word's first up with it in front)
 * or end_of_word_suffix ("</w>", CLIP's: the last symbol with it behind), and a dropout other than null or 0
 * (merges skipped at random, so the ids change from run to run). Read as tokenizers' models/bpe/model.rs
 * (merge_word, BpeBuilder). GPT-2's and Qwen2's files write "" for both strings and null for dropout, Llama's
 * null: those run. byte_fallback and fuse_unk must be true, false, null or absent (tokenizers' serde refuses a
 * string; "true" was read here as false). Errors: AV_EUSAGE naming the setting, its value and what is allowed. */
static av_status model_options(const cJSON *model, const char *name, av_err *err) {
    static const char *const affix[] = {"continuing_subword_prefix", "end_of_word_suffix"};
    static const char *const does[] = {"puts it in front of every symbol of a word but the first",
                                       "puts it behind the last symbol of every word"};
    char key[64], shown[48];
    for (int i = 0; i < 2; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(model, affix[i]);
        snprintf(key, sizeof key, "model.%s", affix[i]);
        if (v && !cJSON_IsNull(v) && !cJSON_IsString(v)) return av_json_wrong_kind(name, key, v, "a string or null", err);
        if (cJSON_IsString(v) && v->valuestring[0]) {
            av_json_shown(shown, sizeof shown, v);
            return av_fail(err, AV_EUSAGE, "%s: %s is %s: Hugging Face's tokenizers then %s before looking it up, "
                           "which attnviz does not, so the ids would differ (allowed: null or \"\", as GPT-2's, "
                           "Llama's and Qwen2's tokenizer.json have)", name, key, shown, does[i]);
        }
    }
    static const char *const flag[] = {"byte_fallback", "fuse_unk"}; /* "true" (a string) was read as false */
    for (int i = 0; i < 2; i++) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(model, flag[i]);
        snprintf(key, sizeof key, "model.%s", flag[i]);
        if (b && !cJSON_IsNull(b) && !cJSON_IsBool(b)) return av_json_wrong_kind(name, key, b, "true or false", err);
    }
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(model, "dropout");
    if (d && !cJSON_IsNull(d) && !cJSON_IsNumber(d)) return av_json_wrong_kind(name, "model.dropout", d, "null or 0", err);
    if (cJSON_IsNumber(d) && d->valuedouble != 0) {
        av_json_shown(shown, sizeof shown, d);
        return av_fail(err, AV_EUSAGE, "%s: model.dropout is %s: Hugging Face's tokenizers then skips merges at random, "
                       "so the ids change from run to run (BPE-dropout, a training-time augmentation); attnviz applies "
                       "every merge (allowed: null or 0; set it to null to run)", name, shown);
    }
    return AV_OK;
}

av_status av_hftok_load_mem(av_hftok **out, const char *json, size_t len, const char *name, av_err *err) {
    *out = NULL;
    cJSON *root;
    av_status s = av_json_parse_object(&root, json, len, NULL, name, err);
    if (s) return s;
    av_hftok *t = calloc(1, sizeof *t);
    s = t ? AV_OK : av_fail(err, AV_ERUNTIME, "out of memory reading %s", name);
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(model, "type");
    const char *pattern = NULL;
    /* no "type": tokenizers' ModelWrapper reads such a model (a file written before the tag) as each kind in
     * turn, BPE first (models/mod.rs, ModelUntagged), and its BPE needs "vocab" and "merges": one with both is a
     * BPE there, and here; one without "merges" is its WordPiece, WordLevel or Unigram */
    int untagged_bpe = !mt && cJSON_GetObjectItemCaseSensitive(model, "vocab") &&
                       cJSON_GetObjectItemCaseSensitive(model, "merges");
    char shown[64] = "(missing)"; /* a type that is no string is shown as the file has it: 5, not "(missing)" */
    if (mt && !cJSON_IsString(mt)) av_json_shown(shown, sizeof shown, mt);
    if (!s && !cJSON_IsObject(model))
        s = model ? av_json_wrong_kind(name, "model", model, "an object (\"type\": \"BPE\", \"vocab\", \"merges\")", err)
                  : av_fail(err, AV_EUSAGE, "%s: has no \"model\"; it must be an object (\"type\": \"BPE\", \"vocab\", "
                            "\"merges\")", name);
    else if (!s && !untagged_bpe && !(cJSON_IsString(mt) && !strcmp(mt->valuestring, "BPE")))
        s = av_fail(err, AV_EUSAGE, "%s: model type %s is not supported (allowed: BPE%s)", name,
                    cJSON_IsString(mt) ? AV_SHOWN_MIDDLE(mt->valuestring) : shown,
                    mt ? "" : ", or no type with \"vocab\" and \"merges\", which Hugging Face's tokenizers reads as BPE");
    if (!s) memset(t->byte_id, 0xff, sizeof t->byte_id), t->bos = -1;
    if (!s) s = classify(t, root, &pattern, name, err);
    const cJSON *added = cJSON_GetObjectItemCaseSensitive(root, "added_tokens");
    if (!s) s = read_added(t, model, added, name, err);
    const cJSON *im = cJSON_GetObjectItemCaseSensitive(model, "ignore_merges");
    if (!s && im && !cJSON_IsBool(im)) s = av_json_wrong_kind(name, "model.ignore_merges", im, "true or false", err);
    if (!s) t->ignore_merges = cJSON_IsTrue(im);
    if (!s) s = model_options(model, name, err);
    if (!s && t->kind == AV_HFTOK_BYTE_LEVEL) s = bl_build(t, model, added, pattern, name, err);
    if (!s && t->kind == AV_HFTOK_SENTENCEPIECE) s = sp_build(t, model, name, err);
    if (!s) s = bos_rule(t, root, name, err);
    cJSON_Delete(root);
    if (s) av_hftok_free(t);
    else *out = t;
    return s;
}

av_status av_hftok_load_dir(av_hftok **out, const char *dir, int32_t bos_id, int32_t vocab_size, av_err *err) {
    char path[4200], *text = NULL;
    size_t len = 0;
    av_path_join(path, sizeof path, dir, "tokenizer.json");
    av_status s = av_read_regular_file(path, 256u << 20, &text, &len, err);
    if (!s) s = av_hftok_load_mem(out, text, len, AV_SHOWN_WORD(path, 4200), err); /* as messages name it */
    free(text);
    if (s) return s;
    av_path_join(path, sizeof path, dir, "tokenizer_config.json");
    cJSON *root = NULL; /* config.json's checks: an empty, truncated or duplicated-key file is refused, not skipped */
    char named[4200]; /* tokenizer_config.json as messages name it, one shell word (av_shown_word) */
    if ((s = av_json_read_optional_object(&root, path, 64u << 20, named, sizeof named, err)))
        return av_hftok_free(*out), *out = NULL, s;
    if (!root) return AV_OK; /* no file */
    const cJSON *add = cJSON_GetObjectItemCaseSensitive(root, "add_bos_token");
    /* GPT-2 (AV_HFTOK_BOS_GPT2_FAST): add_bos_token true with config.json's "bos_token_id": 50256 was refused as
     * "config.json has no bos_token_id", though GPT2TokenizerFast reads neither and puts no token first for it */
    if (!s && bos_id == AV_HFTOK_BOS_GPT2_FAST) {
        char note[4800];
        snprintf(note, sizeof note, "%s: add_bos_token is true, but transformers' GPT2TokenizerFast, which reads "
                 "this folder's tokenizer.json, keeps it unused and puts no token first for it (tokenizer.json's "
                 "post_processor decides, and it puts %s)", named, (*out)->bos >= 0 ? "its own token first" : "none");
        if (cJSON_IsTrue(add) && !((*out)->bos_note = strdup(note))) s = av_fail(err, AV_ERUNTIME, "out of memory");
        cJSON_Delete(root);
        if (s) av_hftok_free(*out), *out = NULL;
        return s;
    }
    if (!s && add && !cJSON_IsNull(add) && !cJSON_IsBool(add))
        s = av_json_wrong_kind(named, "\"add_bos_token\"", add, "true or false (null or absent: tokenizer.json decides)",
                               err);
    /* add_eos_token true: transformers' Llama tokenizers rebuild the template as "<s> $A </s>", one id after
     * the text, which encoding never adds (bos_rule refuses that template in tokenizer.json too) */
    const cJSON *add_eos = cJSON_GetObjectItemCaseSensitive(root, "add_eos_token");
    if (!s && add_eos && !cJSON_IsNull(add_eos) && !cJSON_IsBool(add_eos))
        s = av_json_wrong_kind(named, "\"add_eos_token\"", add_eos, "true or false (null or absent: no token after "
                               "the text)", err);
    else if (!s && cJSON_IsTrue(add_eos))
        s = av_fail(err, AV_EUSAGE, "%s: \"add_eos_token\" is true: Hugging Face's Llama tokenizer then ends every "
                    "text with eos_token, and attnviz puts no token after the text; allowed: false, null or absent "
                    "(false runs the text as typed)", named);
    char cfg[4200];
    av_path_join(cfg, sizeof cfg, dir, "config.json");
    /* "bos_token_id": null is no id either, but it was called missing ("has no bos_token_id") in a file that has
     * the key (a Llama user's pass): the messages say which */
    int id_null = bos_id == AV_HFTOK_BOS_NULL;
    const char *no_id = id_null ? "bos_token_id null" : "no bos_token_id";
    if (id_null) bos_id = INT32_MIN;
    /* no bos_token_id in config.json: the tokenizer's own bos_token, "<s>" or {"content": "<s>", ...}, as
     * Hugging Face's tokenizers take it (a folder that ran there was refused: a reviewer's pass) */
    const cJSON *bt = cJSON_GetObjectItemCaseSensitive(root, "bos_token");
    if (cJSON_IsObject(bt)) bt = cJSON_GetObjectItemCaseSensitive(bt, "content");
    if (!s && cJSON_IsTrue(add) && bos_id == INT32_MIN && cJSON_IsString(bt)) {
        int32_t id = av_hftok_find(*out, bt->valuestring, strlen(bt->valuestring));
        if (id < 0) {
            char shown[80];
            av_json_shown(shown, sizeof shown, bt);
            s = av_fail(err, AV_EUSAGE, "%s: bos_token %s is not a token of tokenizer.json's vocabulary (add_bos_token "
                        "true puts it first, and %s has %s)", named, shown, AV_SHOWN_WORD(cfg, 4200), no_id);
        } else {
            bos_id = id;
        }
    }
    if (!s && cJSON_IsTrue(add) && bos_id == INT32_MIN)
        s = av_fail(err, AV_EUSAGE, "%s: add_bos_token is true, but %s has %s (%s id to put first) and this file no "
                    "bos_token; give one, or make add_bos_token false", named, AV_SHOWN_WORD(cfg, 4200), no_id,
                    id_null ? "no" : "the");
    else if (!s && cJSON_IsTrue(add) && (bos_id < 0 || bos_id >= vocab_size))
        s = av_fail(err, AV_EUSAGE, "%s: bos_token_id %d is outside the vocabulary 0..%d (add_bos_token true in %s puts "
                    "it first)", AV_SHOWN_WORD(cfg, 4200), (int)bos_id, (int)vocab_size - 1, named);
    if (!s && cJSON_IsBool(add)) (*out)->bos = cJSON_IsTrue(add) ? bos_id : -1;
    cJSON_Delete(root);
    if (s) av_hftok_free(*out), *out = NULL;
    return s;
}

/* ----------------------------------------------------------------------------
 * encoding */

typedef struct {
    int32_t *ids;
    size_t n, cap;
} idvec;

static int push(idvec *v, int32_t id) {
    if (v->n == v->cap) {
        size_t c = v->cap ? 2 * v->cap : 64;
        int32_t *p = realloc(v->ids, c * sizeof *p);
        if (!p) return -1;
        v->ids = p, v->cap = c;
    }
    v->ids[v->n++] = id;
    return 0;
}

/* Sentencepiece-style: s[0..n) already has "▁" for spaces. Each character is
 * a symbol (or its "<0xNN>" bytes); the adjacent pair of lowest rank is merged,
 * leftmost first, until no pair has a rank (Sennrich et al. 2016, §3.2). */
static av_status sp_encode_piece(const av_hftok *t, const char *s, size_t n, idvec *out, av_err *err) {
    int32_t whole = t->ignore_merges ? sp_find(t, s, n) : -1;
    if (whole >= 0) return push(out, whole) ? av_fail(err, AV_ERUNTIME, "out of memory encoding text") : AV_OK;
    idvec sym = {0};
    int last_unk = 0; /* the previous character became unk_token */
    for (size_t i = 0; i < n;) {
        size_t k = 1;
        while (i + k < n && ((unsigned char)s[i + k] & 0xC0) == 0x80) k++; /* one code point */
        int32_t id = sp_find(t, s + i, k);
        size_t have = 0; /* as tokenizers' BPE::merge_word: the character, else all of its "<0xNN>" bytes, else one
                          * unk for the character (one for a run of them with fuse_unk), never an unk per byte */
        while (id < 0 && have < k && t->byte_id[(unsigned char)s[i + have]] >= 0) have++;
        if (id >= 0) {
            if (push(&sym, id)) goto oom;
        } else if (have == k) {
            for (size_t b = 0; b < k; b++)
                if (push(&sym, t->byte_id[(unsigned char)s[i + b]])) goto oom;
        } else if (t->unk_id < 0 && t->unk_missing) { /* as tokenizers' BPE::merge_word: UnkTokenOutOfVocabulary */
            char c[16], u[80];
            size_t un = strlen(t->unk_missing);
            av_utf8_escape_controls(s + i, k, c, sizeof c, 0);
            av_utf8_escape_controls(t->unk_missing, un < 60 ? un : 60, u, sizeof u, 0);
            return free(sym.ids), av_fail(err, AV_EUSAGE, "the character \"%s\" has no token and no byte fallback, and "
                                          "its unknown token, model.unk_token \"%s\", is not a token of model.vocab "
                                          "(Hugging Face's tokenizers fails too: \"Unk token `%s` not found in the "
                                          "vocabulary\")", c, u, u);
        } else if (t->unk_id < 0) { /* tokenizers' merge_word then adds nothing for it: the character is dropped */
            char c[16];
            av_utf8_escape_controls(s + i, k, c, sizeof c, 0);
            return free(sym.ids), av_fail(err, AV_EUSAGE, "the character \"%s\" has no token and no byte fallback, and "
                                          "model.unk_token is null: Hugging Face's tokenizers leaves such a character "
                                          "out of the ids without a word, which attnviz does not do (allowed: text "
                                          "whose characters are tokens of model.vocab)", c);
        } else if (!(t->fuse_unk && last_unk)) {
            if (push(&sym, t->unk_id)) goto oom;
        }
        last_unk = id < 0 && have < k;
        i += k;
    }
    for (;;) {
        int32_t best = -1, best_out = -1, o;
        size_t at = 0;
        for (size_t i = 0; i + 1 < sym.n; i++) {
            int32_t r = pair_rank(t, sym.ids[i], sym.ids[i + 1], &o);
            if (r >= 0 && (best < 0 || r < best)) best = r, best_out = o, at = i;
        }
        if (best < 0) break;
        sym.ids[at] = best_out;
        memmove(sym.ids + at + 1, sym.ids + at + 2, (sym.n - at - 2) * sizeof(int32_t));
        sym.n--;
    }
    for (size_t i = 0; i < sym.n; i++)
        if (push(out, sym.ids[i])) goto oom;
    free(sym.ids);
    return AV_OK;
oom:
    free(sym.ids);
    return av_fail(err, AV_ERUNTIME, "out of memory encoding text");
}

/* Byte-level text s[0..n) after the Split: Digits, then bpe.h's core (which
 * splits with GPT-2's pattern, or not at all, as ByteLevel's use_regex says). */
static av_status encode_piece(av_hftok *t, const char *s, size_t n, idvec *out, av_err *err) {
    for (size_t i = 0; i < n;) { /* Digits(individual_digits): every ASCII digit is its own piece */
        size_t j = i + 1;
        int digit = s[i] >= '0' && s[i] <= '9';
        while (j < n && !(t->digits && (digit || (s[j] >= '0' && s[j] <= '9')))) j++;
        if (!t->digits) j = n;
        int32_t *ids = NULL;
        size_t m = 0;
        av_status st = av_bpe_encode(t->bpe, s + i, j - i, &ids, &m, err);
        for (size_t q = 0; !st && q < m; q++)
            if (push(out, ids[q])) st = av_fail(err, AV_ERUNTIME, "out of memory encoding text");
        free(ids);
        if (st) return st;
        i = j;
    }
    return AV_OK;
}

typedef struct {
    size_t a, b; /* s[a..b) */
    int hit;     /* a match of the pattern (1) or the text between matches (0); after the behavior: removed (1) */
} span;

/* The Split pre-tokenizer, as tokenizers' NormalizedString::split does:
 * s[0..n) is cut into the pattern's matches and the gaps between them
 * (Pattern::find_matches; matches found as the onig crate's find_iter finds
 * them: the next search starts where the last match ended, and an empty match
 * right there is skipped by one character); invert swaps matches and gaps;
 * then behavior: Isolated keeps every span as its own piece, Removed drops the
 * matches, MergedWithPrevious glues a match to the span before it,
 * MergedWithNext to the span after it, Contiguous joins runs of matches and
 * runs of gaps. Empty pieces are dropped (PreTokenizedString::split). Each
 * piece is then encoded on its own. */
static av_status split_and_encode(av_hftok *t, const char *s, size_t n, idvec *out, av_err *err) {
    span *sp = malloc((2 * n + 2) * sizeof *sp); /* at most n + 1 matches (empty ones) and n gaps */
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(t->split, NULL);
    size_t k = 0, prev = 0, from = 0, last_end = (size_t)-1;
    av_status st = sp && md ? AV_OK : av_fail(err, AV_ERUNTIME, "out of memory encoding text");
    while (!st && from <= n) {
        int rc = pcre2_match(t->split, (PCRE2_SPTR)s, n, from, PCRE2_NO_UTF_CHECK, md, NULL);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) {
            st = av_fail(err, AV_ERUNTIME, "the Split pattern failed at byte %zu (PCRE2 error %d)", from, rc);
            break;
        }
        const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        if (ov[0] == ov[1] && ov[1] == last_end) { /* an empty match where the last one ended: one character on */
            from++;
            while (from < n && ((unsigned char)s[from] & 0xC0) == 0x80) from++;
            continue;
        }
        if (prev != ov[0]) sp[k++] = (span){prev, ov[0], 0};
        sp[k++] = (span){ov[0], ov[1], 1};
        prev = from = last_end = ov[1];
    }
    if (!st && prev != n) sp[k++] = (span){prev, n, 0};
    pcre2_match_data_free(md);
    size_t m = 0;
    int hit = 0, last;
    for (size_t i = 0; !st && i < k; i++) {
        /* the behavior, in place (m <= i): sp[0..m) the pieces, their hit = removed; sp[i] is read before it is written */
        last = hit, hit = sp[i].hit != t->split_invert; /* last: the span before was a match (after invert) */
        switch (t->split_how) {
        case SPLIT_ISOLATED: sp[m++] = (span){sp[i].a, sp[i].b, 0}; break;
        case SPLIT_REMOVED: sp[m++] = (span){sp[i].a, sp[i].b, hit}; break;
        case SPLIT_CONTIGUOUS:
            if (m > 0 && hit == last) sp[m - 1].b = sp[i].b;
            else sp[m++] = (span){sp[i].a, sp[i].b, 0};
            break;
        case SPLIT_MERGED_PREV:
            if (m > 0 && hit && !last) sp[m - 1].b = sp[i].b;
            else sp[m++] = (span){sp[i].a, sp[i].b, 0};
            break;
        case SPLIT_MERGED_NEXT: /* a match glued to the span after it: a pending match waits for it */
            if (m > 0 && last && !hit) sp[m - 1].b = sp[i].b;
            else sp[m++] = (span){sp[i].a, sp[i].b, 0};
            break;
        }
    }
    for (size_t i = 0; !st && i < m; i++)
        if (!sp[i].hit && sp[i].b > sp[i].a) st = encode_piece(t, s + sp[i].a, sp[i].b - sp[i].a, out, err);
    free(sp);
    return st;
}

/* The text between added tokens: sentencepiece (spaces to "▁", prepended
 * "▁") or byte-level (the Split, Digits, then bpe.h). */
static av_status encode_segment(av_hftok *t, const char *s, size_t n, int first, idvec *out, av_err *err) {
    if (t->kind == AV_HFTOK_SENTENCEPIECE) {
        char *buf = malloc(3 * n + 4);
        size_t k = 0;
        if (!buf) return av_fail(err, AV_ERUNTIME, "out of memory encoding text");
        int starts_with_space = s[0] == ' ' || (n >= 3 && !memcmp(s, SP_SPACE, 3)); /* "▁" typed counts too */
        if ((t->prepend == 1 || (t->prepend == 2 && first)) && !(t->prepend_unless_space && starts_with_space))
            memcpy(buf, SP_SPACE, 3), k = 3;
        for (size_t i = 0; i < n; i++) {
            if (s[i] == ' ') memcpy(buf + k, SP_SPACE, 3), k += 3;
            else buf[k++] = s[i];
        }
        av_status st = AV_OK; /* Metaspace split: "▁a▁▁b" is "▁a" "▁" "▁b", each merged on its own */
        for (size_t a = 0, i = 1; !st && i <= k; i++)
            if (i == k || (t->metaspace_split && i + 3 <= k && !memcmp(buf + i, SP_SPACE, 3)))
                st = sp_encode_piece(t, buf + a, i - a, out, err), a = i;
        free(buf);
        return st;
    }
    return t->split ? split_and_encode(t, s, n, out, err) : encode_piece(t, s, n, out, err);
}

static av_status extract_normalized(av_hftok *t, const char *s, size_t n, int first, idvec *v, av_err *err);

/* The code point of s[0..n) at byte i is one of re's (word_re, space_re); 0 past the end. */
static int char_is(const pcre2_code *re, const char *s, size_t n, size_t i, pcre2_match_data *md) {
    return i < n && pcre2_match(re, (PCRE2_SPTR)s, n, i, PCRE2_NO_UTF_CHECK, md, NULL) >= 0;
}

/* The byte where the code point before s[i] starts. */
static size_t char_before(const char *s, size_t i) {
    while (i > 0 && ((unsigned char)s[--i] & 0xC0) == 0x80) {}
    return i;
}

/* One pass of tokenizers' AddedVocabulary::find_matches over the piece
 * s[0..n): the added tokens whose normalized flag is pass, leftmost-longest,
 * not overlapping (the search goes on where a match ended, also where one was
 * dropped or its rstrip took spaces). single_word drops a match with a \w
 * character (Rust regex: Alphabetic, marks, Nd, Pc, Join_Control) right
 * before or after it within the piece; lstrip takes the White_Space before it
 * back to where the last kept match ended, rstrip the White_Space after it;
 * the spaces taken vanish into the token. Pass 0 runs on the raw text and
 * hands each piece between its tokens to pass 1, NFC'd if the normalizer is
 * NFC; pass 1 encodes the pieces between its tokens (encode_segment). first:
 * s starts the text. With a "▁" normalizer (Llama 2's), spaces are "▁" for
 * pass 1 (not White_Space), and a normalized token it would match as
 * "▁<s>" is refused. */
static av_status extract(av_hftok *t, const char *s, size_t n, int pass, int first, idvec *v, av_err *err) {
    pcre2_match_data *md = t->word_re ? pcre2_match_data_create(4, NULL) : NULL;
    av_status st = !t->word_re || md ? AV_OK : av_fail(err, AV_ERUNTIME, "out of memory encoding text");
    size_t done = 0; /* tokenizers' start_offset: the text before it is encoded or taken */
    for (size_t i = 0; !st && i < n;) {
        const added_token *a = NULL;
        for (int k = 0; k < t->n_added && !a; k++)
            if (t->added[k].normalized == pass && t->added[k].len <= n - i && !memcmp(s + i, t->added[k].pat, t->added[k].len))
                a = &t->added[k];
        if (!a) {
            i++;
            continue;
        }
        size_t start = i, stop = i + a->len;
        i = stop;
        if (pass && t->prepend_norm) {
            st = av_fail(err, AV_EUSAGE, "added token \"%s\" has \"normalized\": true: Hugging Face's tokenizers "
                         "look for it as \"▁%s\" in the text after the Prepend \"▁\" normalizer, which attnviz does "
                         "not do (allowed: \"normalized\": false for it in tokenizer.json, or a text without it)",
                         AV_SHOWN_MIDDLE(a->s), AV_SHOWN_MIDDLE(a->s));
            break;
        }
        if (a->single_word && ((start > 0 && char_is(t->word_re, s, n, char_before(s, start), md)) ||
                               char_is(t->word_re, s, n, stop, md)))
            continue;
        int sp_space = pass && t->sp_norm; /* ' ' is "▁" there */
        while (a->lstrip && start > done) {
            size_t b = char_before(s, start);
            if (!char_is(t->space_re, s, n, b, md) || (sp_space && s[b] == ' ')) break;
            start = b;
        }
        while (a->rstrip && char_is(t->space_re, s, n, stop, md) && !(sp_space && s[stop] == ' ')) {
            unsigned cp; /* s[0..n) is a piece of the text, with no NUL after it: av_utf8_char_len read past it */
            const char *why;
            int k = av_utf8_decode((const unsigned char *)s + stop, n - stop, &cp, &why);
            stop += k > 0 ? (size_t)k : 1;
        }
        if (done < start) st = pass ? encode_segment(t, s + done, start - done, first && done == 0, v, err)
                                    : extract_normalized(t, s + done, start - done, first && done == 0, v, err);
        if (!st && push(v, a->id)) st = av_fail(err, AV_ERUNTIME, "out of memory encoding text");
        done = stop;
    }
    if (!st && done < n) st = pass ? encode_segment(t, s + done, n - done, first && done == 0, v, err)
                                   : extract_normalized(t, s + done, n - done, first && done == 0, v, err);
    pcre2_match_data_free(md);
    return st;
}

/* A piece between pass 0's tokens: NFC'd (the normalizer NFC), then pass 1. */
static av_status extract_normalized(av_hftok *t, const char *s, size_t n, int first, idvec *v, av_err *err) {
    if (!t->nfc) return extract(t, s, n, 1, first, v, err);
    size_t len;
    char *norm = av_utf8_nfc(s, n, &len);
    av_status st = norm ? extract(t, norm, len, 1, first, v, err) : av_fail(err, AV_ERUNTIME, "out of memory encoding text");
    free(norm);
    return st;
}

av_status av_hftok_encode(av_hftok *t, const char *text, size_t len, int32_t **ids, size_t *n, av_err *err) {
    *ids = NULL, *n = 0;
    av_status s = av_utf8_check(text, len, err);
    idvec v = {0};
    if (!s && t->bos >= 0 && push(&v, t->bos)) s = av_fail(err, AV_ERUNTIME, "out of memory encoding text");
    if (!s) s = extract(t, text, len, 0, 1, &v, err);
    if (s) return free(v.ids), s;
    *ids = v.ids, *n = v.n;
    return AV_OK;
}

/* ----------------------------------------------------------------------------
 * labels and queries */

size_t av_hftok_label(char *out, size_t cap, const av_hftok *t, int32_t id) {
    if (t->kind == AV_HFTOK_BYTE_LEVEL) return av_bpe_label(out, cap, t->bpe, id);
    if (cap) out[0] = 0;
    if (id < 0 || id >= t->V || !t->tok[id] || cap < 8) return 0;
    const char *s = t->tok[id];
    size_t k = 0, n = t->tok_len[id];
    static const struct { const char *from, *to; } sub[] = {
        {SP_SPACE, "\xe2\x90\xa3"}, {"<0x20>", "\xe2\x90\xa3"}, {"<0x0A>", "\xe2\x86\xb5"}, {"<0x09>", "\xe2\x87\xa5"}};
    for (size_t i = 0; i < n && k + 4 < cap;) {
        size_t j = 0;
        while (j < 4 && strncmp(s + i, sub[j].from, strlen(sub[j].from))) j++;
        if (j < 4) memcpy(out + k, sub[j].to, 3), k += 3, i += strlen(sub[j].from);
        else out[k++] = s[i++];
    }
    while (k > 0 && ((unsigned char)out[k - 1] & 0xC0) == 0x80 && k + 4 >= cap) k--; /* never cut a character */
    out[k] = 0;
    return k;
}

av_status av_hftok_decode(const av_hftok *t, const int32_t *ids, size_t n, char **text, size_t *len, av_err *err) {
    if (t->kind == AV_HFTOK_BYTE_LEVEL) return av_bpe_decode(t->bpe, ids, n, text, len, err);
    size_t cap = 1, k = 0;
    for (size_t i = 0; i < n; i++) cap += ids[i] >= 0 && ids[i] < t->V && t->tok[ids[i]] ? t->tok_len[ids[i]] : 0;
    char *out = malloc(cap);
    if (!out) return av_fail(err, AV_ERUNTIME, "out of memory decoding tokens");
    for (size_t i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= t->V || !t->tok[ids[i]])
            return free(out), av_fail(err, AV_EUSAGE, "token id %d has no token in tokenizer.json", (int)ids[i]);
        const char *s = t->tok[ids[i]];
        unsigned b;
        if (t->tok_len[ids[i]] == 6 && sscanf(s, "<0x%2X>", &b) == 1) {
            out[k++] = (char)b;
            continue;
        }
        for (size_t j = 0; j < t->tok_len[ids[i]];)
            if (!strncmp(s + j, SP_SPACE, 3)) out[k++] = ' ', j += 3;
            else out[k++] = s[j++];
    }
    out[k] = 0;
    *text = out, *len = k;
    return AV_OK;
}

av_hftok_kind av_hftok_get_kind(const av_hftok *t) { return t->kind; }

const char *av_hftok_kind_name(const av_hftok *t) {
    if (t->kind == AV_HFTOK_BYTE_LEVEL) return "byte-level BPE";
    for (int b = 0; b < 256; b++) /* model.byte_fallback true and the "<0xNN>" tokens there (see sp_build) */
        if (t->byte_id[b] >= 0) return "sentencepiece BPE, byte fallback";
    return t->unk_id >= 0 ? "sentencepiece BPE, no byte fallback: an unknown character is unk_token"
                          : "sentencepiece BPE, no byte fallback";
}

int32_t av_hftok_vocab_size(const av_hftok *t) { return t->V; }

size_t av_hftok_note(char *out, size_t cap, const av_hftok *t) {
    int more = t->n_moved - 1, n = 0;
    if (cap) out[0] = 0;
    if (more > 0) n = snprintf(out, cap, "%s; and %d more added token%s", t->moved_note, more, more == 1 ? "" : "s");
    else if (!more) n = snprintf(out, cap, "%s", t->moved_note);
    return n <= 0 || !cap ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

int32_t av_hftok_bos(const av_hftok *t) { return t->bos; }

const char *av_hftok_bos_note(const av_hftok *t) { return t->bos_note; }

int32_t av_hftok_find(const av_hftok *t, const char *s, size_t len) {
    return t->kind == AV_HFTOK_BYTE_LEVEL ? av_bpe_find(t->bpe, s, len) : sp_find(t, s, len);
}

void av_hftok_free(av_hftok *t) {
    if (!t) return;
    av_bpe_free(t->bpe);
    pcre2_code_free(t->split);
    for (int32_t i = 0; t->tok && i < t->V; i++) free(t->tok[i]);
    for (int i = 0; i < t->n_added; i++) free(t->added[i].s), free(t->added[i].pat);
    free(t->unk_missing);
    free(t->bos_note);
    pcre2_code_free(t->word_re);
    pcre2_code_free(t->space_re);
    free(t->added);
    free(t->tok);
    free(t->tok_len);
    free(t->map);
    free(t->pair_key);
    free(t->pair_rank);
    free(t->pair_out);
    free(t);
}
