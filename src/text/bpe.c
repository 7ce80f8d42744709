/* bpe.c - GPT-2 byte-level BPE over a vocabulary + ranked merge table (see
 * bpe.h). Reading vocab.json / merges.txt lives in bpe_files.c.
 *
 * Data: every token id has its raw bytes in one arena; a hash map finds a
 * token id from raw bytes, another the rank of a pair (left id, right id).
 * Encoding works on token ids from the first byte on, never on the "Ġ"
 * strings: merging (left, right) gives the id of the concatenated bytes,
 * exactly the string GPT-2's bpe() builds.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "text/bpe.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "text/tokenize.h"

#define CACHE_SLOTS 8192          /* word cache: power of two */
#define CACHE_MAX_PIECE 64        /* longer pieces are not cached */
#define CACHE_ARENA (1u << 20)    /* bytes and ids kept before the cache is cleared */
#define UNUSED_ID (UINT32_MAX - 1) /* tok_off of an id av_bpe_leave_unused left without a token */

typedef struct {          /* one cached piece: its bytes and ids in the arenas */
    uint64_t h;
    uint32_t boff, blen;  /* bytes at cache_bytes[boff..boff+blen) */
    uint32_t ioff, nid;   /* ids at cache_ids[ioff..ioff+nid) */
} cache_slot;

struct av_bpe {
    int32_t V;               /* vocabulary size */
    uint32_t *tok_off;       /* (V,) start of token id's bytes in arena, UINT32_MAX: not given */
    uint16_t *tok_len;       /* (V,) byte length */
    unsigned char *arena;    /* all token bytes */
    size_t arena_len, arena_cap;
    int32_t *str_map;        /* (str_cap,) open addressing: token id or -1; key = its bytes */
    size_t str_cap;
    int32_t n_merges, merge_cap;
    int32_t *m_left, *m_right, *m_result; /* (n_merges,) by rank */
    uint64_t *pair_key;      /* (pair_cap,) open addressing: left<<32|right, 0 = empty (+1 bias) */
    int32_t *pair_rank;      /* (pair_cap,) rank of that pair */
    size_t pair_cap;
    int32_t byte_id[256];    /* id of the one-byte token for byte b, or -1 */
    int32_t eot;             /* "<|endoftext|>" or -1 */
    int ignore_merges;       /* a piece that is a token is that token (tokenizer.json's model.ignore_merges) */
    pcre2_code *re;          /* pre-tokenization pattern, NULL until av_bpe_finish */
    cache_slot *cache;       /* (CACHE_SLOTS,) h == 0: empty */
    unsigned char *cache_bytes;
    int32_t *cache_ids;
    uint32_t cache_blen, cache_ilen, cache_count;
};

/* ---------------------------------------------------------------- hashing */

static uint64_t hash_bytes(const unsigned char *s, size_t n) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a 64 */
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
    return h | 1; /* never 0: 0 marks an empty cache slot */
}

static uint64_t mix64(uint64_t x) { /* splitmix64 finaliser */
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27; x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* ---------------------------------------------------------------- byte-level alphabet */

/* bytes_to_unicode() of openai/gpt-2 encoder.py: printable Latin-1 bytes map
 * to themselves, the other 68 bytes to U+0100..U+0143 in byte order.
 * Fills cp_of[256] and its inverse byte_of[0x144] (-1: not in the alphabet). */
static void byte_level_tables(unsigned cp_of[256], int byte_of[0x144]) {
    unsigned n = 0;
    for (unsigned c = 0; c < 0x144; c++) byte_of[c] = -1;
    for (unsigned i = 0; i < 256; i++) {
        int printable = (i >= '!' && i <= '~') || (i >= 0xA1 && i <= 0xAC) || (i >= 0xAE && i <= 0xFF);
        cp_of[i] = printable ? i : 256 + n++;
        byte_of[cp_of[i]] = (int)i;
    }
}

/* The byte that code point cp stands for in byte-level text, or -1. */
static int cp_to_byte(unsigned cp) {
    static unsigned cp_of[256];
    static int byte_of[0x144], ready;
    if (!ready) {
        byte_level_tables(cp_of, byte_of);
        ready = 1;
    }
    return cp < 0x144 ? byte_of[cp] : -1;
}

/* Decode byte-level text ("Ġlove") to raw bytes (" love") in out (cap bytes).
 * Returns the byte count, or -1 with a message in err. */
static long bytelevel_decode(unsigned char *out, size_t cap, const char *s, size_t len, av_err *err) {
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        unsigned cp;
        const char *why = NULL;
        int k = av_utf8_decode((const unsigned char *)s + i, len - i, &cp, &why);
        if (k == 0) return av_fail(err, AV_EUSAGE, "invalid UTF-8 at byte %zu: %s", i, why), -1;
        int b = cp_to_byte(cp);
        if (b < 0)
            return av_fail(err, AV_EUSAGE, "character U+%04X is not in the byte-level alphabet", cp), -1;
        if (n >= cap) return av_fail(err, AV_EUSAGE, "longer than %d bytes", AV_BPE_MAX_TOKEN_BYTES), -1;
        out[n++] = (unsigned char)b;
        i += (size_t)k;
    }
    return (long)n;
}

/* ---------------------------------------------------------------- token table */

av_status av_bpe_new(av_bpe **out, int32_t V, av_err *err) {
    *out = NULL;
    if (V < 1 || V > (1 << 24))
        return av_fail(err, AV_EUSAGE, "vocabulary size %d out of range (allowed: 1..%d)", (int)V, 1 << 24);
    av_bpe *b = calloc(1, sizeof *b);
    if (!b) return av_fail(err, AV_ERUNTIME, "out of memory");
    b->V = V;
    b->eot = -1;
    b->str_cap = 16;
    while (b->str_cap < 2 * (size_t)V) b->str_cap *= 2;
    b->tok_off = malloc((size_t)V * sizeof *b->tok_off);
    b->tok_len = calloc((size_t)V, sizeof *b->tok_len);
    b->str_map = malloc(b->str_cap * sizeof *b->str_map);
    if (!b->tok_off || !b->tok_len || !b->str_map) {
        av_bpe_free(b);
        return av_fail(err, AV_ERUNTIME, "out of memory");
    }
    for (int32_t i = 0; i < V; i++) b->tok_off[i] = UINT32_MAX;
    for (size_t i = 0; i < b->str_cap; i++) b->str_map[i] = -1;
    for (int i = 0; i < 256; i++) b->byte_id[i] = -1;
    *out = b;
    return AV_OK;
}

const unsigned char *av_bpe_token_bytes(const av_bpe *b, int32_t id, size_t *len) {
    if (id < 0 || id >= b->V || b->tok_off[id] >= UNUSED_ID) {
        *len = 0;
        return NULL;
    }
    *len = b->tok_len[id];
    return b->arena + b->tok_off[id];
}

/* Slot of the string map where bytes s[0..n) are, or the empty slot where they go. */
static size_t str_slot(const av_bpe *b, const unsigned char *s, size_t n) {
    size_t mask = b->str_cap - 1, i = (size_t)hash_bytes(s, n) & mask;
    for (;; i = (i + 1) & mask) {
        int32_t id = b->str_map[i];
        if (id < 0) return i;
        if (b->tok_len[id] == n && memcmp(b->arena + b->tok_off[id], s, n) == 0) return i;
    }
}

int32_t av_bpe_find(const av_bpe *b, const char *s, size_t len) {
    if (len == 0 || len > AV_BPE_MAX_TOKEN_BYTES) return -1;
    return b->str_map[str_slot(b, (const unsigned char *)s, len)];
}

/* Append n bytes to the arena; returns their offset or UINT32_MAX on OOM. */
static uint32_t arena_push(av_bpe *b, const unsigned char *s, size_t n) {
    if (b->arena_len + n > b->arena_cap) {
        size_t cap = b->arena_cap ? b->arena_cap * 2 : 4096;
        while (cap < b->arena_len + n) cap *= 2;
        if (cap >= UINT32_MAX) return UINT32_MAX;
        unsigned char *p = realloc(b->arena, cap);
        if (!p) return UINT32_MAX;
        b->arena = p;
        b->arena_cap = cap;
    }
    memcpy(b->arena + b->arena_len, s, n);
    b->arena_len += n;
    return (uint32_t)(b->arena_len - n);
}

/* A printable excerpt of s for messages: at most 40 bytes, control bytes
 * and bytes that are not valid UTF-8 as \xNN, "..." if cut. */
static const char *excerpt(char buf[200], const char *s, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n && i < 40;) {
        unsigned cp;
        const char *why;
        int k = av_utf8_decode((const unsigned char *)s + i, n - i, &cp, &why);
        if (k == 0 || cp < 0x20 || cp == 0x7F) {
            w += (size_t)snprintf(buf + w, 8, "\\x%02X", (unsigned char)s[i]);
            k = 1;
        } else {
            memcpy(buf + w, s + i, (size_t)k);
            w += (size_t)k;
        }
        i += (size_t)k;
    }
    strcpy(buf + w, n > 40 ? "..." : "");
    return buf;
}

av_status av_bpe_add_token(av_bpe *b, const char *tok, size_t len, int32_t id, av_err *err) {
    char show[200];
    if (b->n_merges > 0 || b->re) return av_fail(err, AV_EUSAGE, "tokens must be added before merges");
    if (id < 0 || id >= b->V)
        return av_fail(err, AV_EUSAGE, "token \"%s\" has id %d outside 0..%d", excerpt(show, tok, len),
                       (int)id, (int)b->V - 1);
    if (b->tok_off[id] != UINT32_MAX)
        return av_fail(err, AV_EUSAGE, "token \"%s\" has id %d, already the id of another token",
                       excerpt(show, tok, len), (int)id);
    unsigned char raw[AV_BPE_MAX_TOKEN_BYTES];
    av_err why;
    long n = bytelevel_decode(raw, sizeof raw, tok, len, &why);
    if (n < 0) return av_fail(err, AV_EUSAGE, "token \"%s\" (id %d): %s", excerpt(show, tok, len), (int)id, why.msg);
    if (n == 0) return av_fail(err, AV_EUSAGE, "token id %d is the empty string", (int)id);
    size_t slot = str_slot(b, raw, (size_t)n);
    if (b->str_map[slot] >= 0)
        return av_fail(err, AV_EUSAGE, "token \"%s\" appears twice (ids %d and %d)", excerpt(show, tok, len),
                       (int)b->str_map[slot], (int)id);
    uint32_t off = arena_push(b, raw, (size_t)n);
    if (off == UINT32_MAX) return av_fail(err, AV_ERUNTIME, "out of memory");
    b->tok_off[id] = off;
    b->tok_len[id] = (uint16_t)n;
    b->str_map[slot] = id;
    if (n == 1) b->byte_id[raw[0]] = id;
    return AV_OK;
}

av_status av_bpe_leave_unused(av_bpe *b, int32_t id, av_err *err) {
    if (b->n_merges > 0 || b->re) return av_fail(err, AV_EUSAGE, "tokens must be added before merges");
    if (id < 0 || id >= b->V) return av_fail(err, AV_EUSAGE, "token id %d is outside 0..%d", (int)id, (int)b->V - 1);
    if (b->tok_off[id] != UINT32_MAX)
        return av_fail(err, AV_EUSAGE, "token id %d is already the id of a token", (int)id);
    b->tok_off[id] = UNUSED_ID; /* tok_len stays 0; str_map never holds it */
    return AV_OK;
}

/* ---------------------------------------------------------------- merge table */

static uint64_t pair_of(int32_t l, int32_t r) { return ((uint64_t)(uint32_t)l << 32 | (uint32_t)r) + 1; }

/* Rank of the pair (l, r), or -1 if it is not a merge. */
static int32_t pair_rank(const av_bpe *b, int32_t l, int32_t r) {
    if (b->pair_cap == 0) return -1;
    uint64_t key = pair_of(l, r);
    size_t mask = b->pair_cap - 1;
    for (size_t i = (size_t)mix64(key) & mask;; i = (i + 1) & mask) {
        if (b->pair_key[i] == key) return b->pair_rank[i];
        if (b->pair_key[i] == 0) return -1;
    }
}

static void pair_put(av_bpe *b, uint64_t key, int32_t rank) {
    size_t mask = b->pair_cap - 1, i = (size_t)mix64(key) & mask;
    while (b->pair_key[i] != 0) i = (i + 1) & mask;
    b->pair_key[i] = key;
    b->pair_rank[i] = rank;
}

/* Make room for one more merge: grow the rank arrays and keep the pair map
 * at most half full. Returns 0, or -1 on OOM. */
static int merges_reserve(av_bpe *b) {
    if (b->n_merges == b->merge_cap) {
        int32_t cap = b->merge_cap ? b->merge_cap * 2 : 1024;
        int32_t *l = realloc(b->m_left, (size_t)cap * sizeof *l);
        if (l) b->m_left = l;
        int32_t *r = realloc(b->m_right, (size_t)cap * sizeof *r);
        if (r) b->m_right = r;
        int32_t *m = realloc(b->m_result, (size_t)cap * sizeof *m);
        if (m) b->m_result = m;
        if (!l || !r || !m) return -1;
        b->merge_cap = cap;
    }
    if (2 * ((size_t)b->n_merges + 1) <= b->pair_cap) return 0;
    size_t old_cap = b->pair_cap, cap = old_cap ? old_cap * 2 : 2048;
    uint64_t *old_key = b->pair_key;
    int32_t *old_rank = b->pair_rank;
    b->pair_key = calloc(cap, sizeof *b->pair_key);
    b->pair_rank = malloc(cap * sizeof *b->pair_rank);
    if (!b->pair_key || !b->pair_rank) {
        free(b->pair_key); free(b->pair_rank);
        b->pair_key = old_key; b->pair_rank = old_rank;
        return -1;
    }
    b->pair_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old_key[i]) pair_put(b, old_key[i], old_rank[i]);
    free(old_key);
    free(old_rank);
    return 0;
}

/* The id of byte-level text s[0..n), or -1 with the reason in err. */
static int32_t id_of_text(const av_bpe *b, const char *s, size_t n, av_err *err) {
    unsigned char raw[AV_BPE_MAX_TOKEN_BYTES];
    char show[200];
    long k = bytelevel_decode(raw, sizeof raw, s, n, err);
    if (k < 0) return -1;
    int32_t id = k > 0 ? b->str_map[str_slot(b, raw, (size_t)k)] : -1;
    if (id < 0) av_fail(err, AV_EUSAGE, "\"%s\" is not a token of the vocabulary", excerpt(show, s, n));
    return id;
}

int32_t av_bpe_find_text(const av_bpe *b, const char *s, size_t len) {
    av_err scratch = {{0}};
    return id_of_text(b, s, len, &scratch);
}

av_status av_bpe_add_merge(av_bpe *b, const char *left, size_t llen, const char *right, size_t rlen,
                           av_err *err) {
    if (b->re) return av_fail(err, AV_EUSAGE, "merges must be added before av_bpe_finish");
    int32_t l = id_of_text(b, left, llen, err);
    if (l < 0) return AV_EUSAGE;
    int32_t r = id_of_text(b, right, rlen, err);
    if (r < 0) return AV_EUSAGE;
    unsigned char cat[2 * AV_BPE_MAX_TOKEN_BYTES];
    size_t nl = b->tok_len[l], nr = b->tok_len[r];
    memcpy(cat, b->arena + b->tok_off[l], nl);
    memcpy(cat + nl, b->arena + b->tok_off[r], nr);
    int32_t m = nl + nr <= AV_BPE_MAX_TOKEN_BYTES ? b->str_map[str_slot(b, cat, nl + nr)] : -1;
    char s1[200], s2[200];
    if (m < 0)
        return av_fail(err, AV_EUSAGE, "merging \"%s\" and \"%s\" makes a string that is not a token",
                       excerpt(s1, left, llen), excerpt(s2, right, rlen));
    int32_t prev = pair_rank(b, l, r);
    if (prev >= 0)
        return av_fail(err, AV_EUSAGE, "the merge \"%s\" \"%s\" appears twice (ranks %d and %d)",
                       excerpt(s1, left, llen), excerpt(s2, right, rlen), (int)prev, (int)b->n_merges);
    if (merges_reserve(b) != 0) return av_fail(err, AV_ERUNTIME, "out of memory");
    b->m_left[b->n_merges] = l;
    b->m_right[b->n_merges] = r;
    b->m_result[b->n_merges] = m;
    pair_put(b, pair_of(l, r), b->n_merges);
    b->n_merges++;
    return AV_OK;
}

pcre2_code *av_bpe_compile_pattern(const char *pattern, int *errcode, size_t *erroffset) {
    size_t n = strlen(pattern), o = 0;
    char *w = malloc(8 * n + 1); /* "\s" (2 bytes) becomes "\p{White_Space}" (15) */
    PCRE2_SIZE at = 0;
    pcre2_code *re = NULL;
    if (w) {
        int quoted = 0; /* inside \Q ... \E, where a backslash is literal */
        for (size_t i = 0; i < n; i++) {
            if (pattern[i] != '\\' || i + 1 == n || (quoted && pattern[i + 1] != 'E')) {
                w[o++] = pattern[i];
                continue;
            }
            char c = pattern[++i];
            if (!quoted && (c == 's' || c == 'S')) {
                memcpy(w + o, c == 's' ? "\\p{White_Space}" : "\\P{White_Space}", 15);
                o += 15;
                continue;
            }
            quoted = c == 'Q' ? 1 : c == 'E' ? 0 : quoted;
            w[o++] = '\\', w[o++] = c;
        }
        w[o] = '\0';
        re = pcre2_compile((PCRE2_SPTR)w, o, PCRE2_UTF | PCRE2_UCP, errcode, &at, NULL);
        free(w);
    }
    if (!re) /* the pattern as written: its own error and offset, or a PCRE2 without White_Space */
        re = pcre2_compile((PCRE2_SPTR)pattern, n, PCRE2_UTF | PCRE2_UCP, errcode, &at, NULL);
    *erroffset = at;
    return re;
}

av_status av_bpe_finish(av_bpe *b, const char *pattern, av_err *err) {
    if (b->re) return av_fail(err, AV_EUSAGE, "av_bpe_finish called twice");
    for (int32_t i = 0; i < b->V; i++)
        if (b->tok_off[i] == UINT32_MAX)
            return av_fail(err, AV_EUSAGE, "no token has id %d (ids must be 0..%d)", (int)i, (int)b->V - 1);
    const char *pat = pattern ? pattern : AV_BPE_GPT2_PATTERN;
    int code;
    size_t at;
    b->re = av_bpe_compile_pattern(pat, &code, &at);
    if (!b->re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return av_fail(err, AV_EUSAGE, "pre-tokenization pattern does not compile at offset %zu: %s",
                       (size_t)at, (const char *)msg);
    }
    b->eot = av_bpe_find(b, "<|endoftext|>", 13);
    b->cache = calloc(CACHE_SLOTS, sizeof *b->cache);
    b->cache_bytes = malloc(CACHE_ARENA);
    b->cache_ids = malloc(CACHE_ARENA * sizeof *b->cache_ids);
    if (!b->cache || !b->cache_bytes || !b->cache_ids) return av_fail(err, AV_ERUNTIME, "out of memory");
    return AV_OK;
}

int32_t av_bpe_vocab_size(const av_bpe *b) { return b->V; }
void av_bpe_set_ignore_merges(av_bpe *b, int on) { b->ignore_merges = on != 0; }
int32_t av_bpe_eot_id(const av_bpe *b) { return b->eot; }
int32_t av_bpe_n_merges(const av_bpe *b) { return b->n_merges; }

int32_t av_bpe_merge_at(const av_bpe *b, int32_t rank, int32_t *left, int32_t *right) {
    if (rank < 0 || rank >= b->n_merges) return -1;
    if (left) *left = b->m_left[rank];
    if (right) *right = b->m_right[rank];
    return b->m_result[rank];
}

void av_bpe_free(av_bpe *b) {
    if (!b) return;
    free(b->tok_off); free(b->tok_len); free(b->arena); free(b->str_map);
    free(b->m_left); free(b->m_right); free(b->m_result);
    free(b->pair_key); free(b->pair_rank);
    pcre2_code_free(b->re);
    free(b->cache); free(b->cache_bytes); free(b->cache_ids);
    free(b);
}

/* ---------------------------------------------------------------- merging one piece */

av_status av_bpe_merge_piece_ref(const av_bpe *b, int32_t *sym, size_t *n, av_err *err) {
    (void)err;
    size_t len = *n;
    while (len > 1) {
        int32_t best = -1; /* lowest rank of any adjacent pair */
        for (size_t i = 0; i + 1 < len; i++) {
            int32_t r = pair_rank(b, sym[i], sym[i + 1]);
            if (r >= 0 && (best < 0 || r < best)) best = r;
        }
        if (best < 0) break;
        int32_t L = b->m_left[best], R = b->m_right[best], M = b->m_result[best];
        size_t j = 0;
        for (size_t i = 0; i < len;) { /* every occurrence, left to right */
            if (i + 1 < len && sym[i] == L && sym[i + 1] == R) { sym[j++] = M; i += 2; }
            else sym[j++] = sym[i++];
        }
        len = j;
    }
    *n = len;
    return AV_OK;
}

typedef struct { int32_t rank, pos; } heap_item; /* a pair starting at node pos */

static int heap_less(heap_item a, heap_item b) { return a.rank < b.rank || (a.rank == b.rank && a.pos < b.pos); }

static void heap_push(heap_item *h, size_t *n, heap_item it) {
    size_t i = (*n)++;
    while (i > 0 && heap_less(it, h[(i - 1) / 2])) { h[i] = h[(i - 1) / 2]; i = (i - 1) / 2; }
    h[i] = it;
}

static heap_item heap_pop(heap_item *h, size_t *n) {
    heap_item top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && heap_less(h[c + 1], h[c])) c++;
        if (!heap_less(h[c], last)) break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0) h[i] = last;
    return top;
}

/* Push the pair starting at node p (if it has a right neighbour and a rank). */
static void push_pair(const av_bpe *b, heap_item *h, size_t *nh, const int32_t *sym, const int32_t *next, int32_t p) {
    if (p < 0 || next[p] < 0) return;
    int32_t r = pair_rank(b, sym[p], sym[next[p]]);
    if (r >= 0) heap_push(h, nh, (heap_item){r, p});
}

/* Nodes are the original byte positions in a linked list (next/prev); a merge
 * keeps the left node and unlinks the right one (its sym becomes -1). All
 * occurrences of one rank are merged before any pair they create is queued,
 * which is GPT-2's "merge every occurrence of the best pair" step. */
av_status av_bpe_merge_piece(const av_bpe *b, int32_t *sym, size_t *n, av_err *err) {
    size_t len = *n;
    if (len < 2) return AV_OK;
    int32_t *next = malloc(len * sizeof *next), *prev = malloc(len * sizeof *prev);
    int32_t *fresh = malloc(len * sizeof *fresh);
    heap_item *h = malloc(3 * len * sizeof *h); /* len-1 initial pairs + 2 per merge */
    if (!next || !prev || !fresh || !h) {
        free(next); free(prev); free(fresh); free(h);
        return av_fail(err, AV_ERUNTIME, "out of memory");
    }
    size_t nh = 0;
    for (size_t i = 0; i < len; i++) {
        next[i] = i + 1 < len ? (int32_t)i + 1 : -1;
        prev[i] = (int32_t)i - 1;
    }
    for (size_t i = 0; i + 1 < len; i++) push_pair(b, h, &nh, sym, next, (int32_t)i);
    while (nh > 0) {
        int32_t rank = h[0].rank, L = b->m_left[rank], R = b->m_right[rank], M = b->m_result[rank];
        size_t nf = 0;
        while (nh > 0 && h[0].rank == rank) {
            int32_t p = heap_pop(h, &nh).pos, q = next[p];
            if (sym[p] != L || q < 0 || sym[q] != R) continue; /* stale: changed since queued */
            sym[p] = M;
            sym[q] = -1;
            next[p] = next[q];
            if (next[q] >= 0) prev[next[q]] = p;
            fresh[nf++] = p;
        }
        for (size_t k = 0; k < nf; k++) {
            push_pair(b, h, &nh, sym, next, prev[fresh[k]]);
            push_pair(b, h, &nh, sym, next, fresh[k]);
        }
    }
    size_t j = 0;
    for (int32_t p = 0; p >= 0; p = next[p]) sym[j++] = sym[p];
    *n = j;
    free(next); free(prev); free(fresh); free(h);
    return AV_OK;
}

/* ---------------------------------------------------------------- word cache */

/* Look piece s[0..n) up; returns its slot (ids found when slot->h == h). */
static cache_slot *cache_find(const av_bpe *b, const unsigned char *s, size_t n, uint64_t h) {
    size_t mask = CACHE_SLOTS - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        cache_slot *c = &b->cache[i];
        if (c->h == 0) return c;
        if (c->h == h && c->blen == n && memcmp(b->cache_bytes + c->boff, s, n) == 0) return c;
    }
}

/* Remember piece s[0..n) -> ids[0..nid); clears the cache first when full. */
static void cache_put(av_bpe *b, const unsigned char *s, size_t n, uint64_t h, const int32_t *ids, size_t nid) {
    if (n > CACHE_MAX_PIECE) return;
    if (2 * (b->cache_count + 1) > CACHE_SLOTS || b->cache_blen + n > CACHE_ARENA ||
        b->cache_ilen + nid > CACHE_ARENA) {
        memset(b->cache, 0, CACHE_SLOTS * sizeof *b->cache);
        b->cache_blen = b->cache_ilen = b->cache_count = 0;
    }
    cache_slot *c = cache_find(b, s, n, h);
    *c = (cache_slot){h, b->cache_blen, (uint32_t)n, b->cache_ilen, (uint32_t)nid};
    memcpy(b->cache_bytes + b->cache_blen, s, n);
    memcpy(b->cache_ids + b->cache_ilen, ids, nid * sizeof *ids);
    b->cache_blen += (uint32_t)n;
    b->cache_ilen += (uint32_t)nid;
    b->cache_count++;
}

/* ---------------------------------------------------------------- encode */

typedef struct { int32_t *v; size_t n, cap; } id_vec;

static int vec_reserve(id_vec *v, size_t extra) {
    if (v->n + extra <= v->cap) return 0;
    size_t cap = v->cap ? v->cap : 64;
    while (cap < v->n + extra) cap *= 2;
    int32_t *p = realloc(v->v, cap * sizeof *p);
    if (!p) return -1;
    v->v = p;
    v->cap = cap;
    return 0;
}

/* BPE of one pre-tokenized piece s[0..n), appended to out. */
static av_status encode_piece(av_bpe *b, const unsigned char *s, size_t n, id_vec *out, av_err *err) {
    int32_t whole = b->ignore_merges ? av_bpe_find(b, (const char *)s, n) : -1;
    if (whole >= 0) { /* tokenizers' Bpe::tokenize: vocab.get(sequence) before any merge */
        if (vec_reserve(out, 1) != 0) return av_fail(err, AV_ERUNTIME, "out of memory");
        out->v[out->n++] = whole;
        return AV_OK;
    }
    uint64_t h = hash_bytes(s, n);
    if (n <= CACHE_MAX_PIECE) {
        const cache_slot *c = cache_find(b, s, n, h);
        if (c->h == h) {
            if (vec_reserve(out, c->nid) != 0) return av_fail(err, AV_ERUNTIME, "out of memory");
            memcpy(out->v + out->n, b->cache_ids + c->ioff, c->nid * sizeof *out->v);
            out->n += c->nid;
            return AV_OK;
        }
    }
    if (vec_reserve(out, n) != 0) return av_fail(err, AV_ERUNTIME, "out of memory");
    int32_t *sym = out->v + out->n;
    for (size_t i = 0; i < n; i++) {
        sym[i] = b->byte_id[s[i]];
        if (sym[i] < 0)
            return av_fail(err, AV_EUSAGE, "byte 0x%02X ('%c') has no token in this vocabulary (allowed: "
                           "the bytes of its one-byte tokens)", s[i], s[i] >= 0x20 && s[i] < 0x7F ? s[i] : '?');
    }
    size_t k = n;
    av_status st = av_bpe_merge_piece(b, sym, &k, err);
    if (st != AV_OK) return st;
    cache_put(b, s, n, h, sym, k);
    out->n += k;
    return AV_OK;
}

av_status av_bpe_encode(av_bpe *b, const char *utf8, size_t len, int32_t **ids, size_t *n, av_err *err) {
    *ids = NULL;
    *n = 0;
    if (!b->re) return av_fail(err, AV_EUSAGE, "tokenizer not finished (call av_bpe_finish)");
    if (len > AV_MAX_INPUT_BYTES)
        return av_fail(err, AV_EUSAGE, "text of %zu bytes is too long (allowed: up to %u)", len, AV_MAX_INPUT_BYTES);
    const unsigned char *s = (const unsigned char *)utf8;
    av_status st = av_utf8_check(utf8, len, err);
    if (st != AV_OK) return st;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(b->re, NULL);
    if (!md) return av_fail(err, AV_ERUNTIME, "out of memory");
    id_vec out = {0};
    size_t off = 0;
    while (off < len && st == AV_OK) {
        int rc = pcre2_match(b->re, (PCRE2_SPTR)s, len, off, PCRE2_NO_UTF_CHECK, md, NULL);
        if (rc == PCRE2_ERROR_NOMATCH) break; /* like re.findall: the rest matches nothing */
        if (rc < 0) {
            st = av_fail(err, AV_ERUNTIME, "pre-tokenization failed at byte %zu (PCRE2 error %d)", off, rc);
            break;
        }
        const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        if (ov[1] > ov[0]) {
            st = encode_piece(b, s + ov[0], ov[1] - ov[0], &out, err);
            off = ov[1];
        } else { /* an empty match (only a custom pattern can make one): step one character */
            unsigned cp;
            const char *why;
            int k = ov[0] < len ? av_utf8_decode(s + ov[0], len - ov[0], &cp, &why) : 1;
            off = ov[0] + (size_t)(k > 0 ? k : 1);
        }
    }
    pcre2_match_data_free(md);
    if (st != AV_OK) {
        free(out.v);
        return st;
    }
    *ids = out.v;
    *n = out.n;
    if (out.n == 0) { free(out.v); *ids = NULL; }
    return AV_OK;
}

/* ---------------------------------------------------------------- decode and labels */

av_status av_bpe_decode(const av_bpe *b, const int32_t *ids, size_t n, char **text, size_t *len, av_err *err) {
    *text = NULL;
    *len = 0;
    size_t total = 0, k;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] >= 0 && ids[i] < b->V && b->tok_off[ids[i]] == UNUSED_ID)
            return av_fail(err, AV_EUSAGE, "token id %d at position %zu has no token", (int)ids[i], i);
        if (!av_bpe_token_bytes(b, ids[i], &k))
            return av_fail(err, AV_EUSAGE, "token id %d at position %zu is outside 0..%d", (int)ids[i], i,
                           (int)b->V - 1);
        total += k;
    }
    char *t = malloc(total + 1);
    if (!t) return av_fail(err, AV_ERUNTIME, "out of memory");
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = av_bpe_token_bytes(b, ids[i], &k);
        memcpy(t + pos, p, k);
        pos += k;
    }
    t[pos] = 0;
    *text = t;
    *len = pos;
    return AV_OK;
}

/* 1 if s[0..n) is whole UTF-8 of default-ignorable code points only (U+FE0F, U+034F, ...): a label
 * drawn as itself would show nothing */
static int all_ignorable(const unsigned char *s, size_t n) {
    if (n == 0) return 0;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        const char *why;
        int k = av_utf8_decode(s + i, n - i, &cp, &why);
        if (k == 0 || !av_utf8_is_ignorable(cp)) return 0;
        i += (size_t)k;
    }
    return 1;
}

size_t av_bpe_label(char *out, size_t cap, const av_bpe *b, int32_t id) {
    size_t n, w = 0;
    const unsigned char *s = av_bpe_token_bytes(b, id, &n);
    if (cap > 0) out[0] = 0;
    if (!s) return 0;
    /* a token of invisible characters only (GPT-2's U+FE0F, the emoji variation selector) had a blank
     * row and column label: each is drawn <U+NNNN> (a figure-maker's pass) */
    int invisible = all_ignorable(s, n);
    for (size_t i = 0; i < n;) {
        unsigned cp;
        const char *why;
        char piece[16];
        int k = av_utf8_decode(s + i, n - i, &cp, &why);
        if (k == 0) { /* not a whole character: a partial UTF-8 sequence */
            snprintf(piece, sizeof piece, "<0x%02X>", s[i]);
            k = 1;
        } else if (invisible) {
            snprintf(piece, sizeof piece, "<U+%04X>", cp);
        } else {
            av_label_char(piece, cp, s + i, k);
        }
        size_t pl = strlen(piece);
        if (w + pl + 1 > cap) break;
        memcpy(out + w, piece, pl + 1);
        w += pl;
        i += (size_t)k;
    }
    return w;
}
