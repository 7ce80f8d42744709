/* hftok.h - Hugging Face tokenizer.json for the BPE models that Llama-family
 * checkpoints ship (the `tokenizers` library's serialisation: "model",
 * "pre_tokenizer", "normalizer", "added_tokens", "post_processor";
 * https://huggingface.co/docs/tokenizers/api/models). Parsed with cJSON.
 *
 * Two kinds, chosen from the file:
 *   - byte-level BPE (GPT-2, SmolLM, Qwen2, Llama 3): pre_tokenizer
 *     ByteLevel, or Sequence [Split, ByteLevel] (Qwen2's, Llama 3's),
 *     optionally with Digits {individual_digits: true} (SmolLM; false is
 *     refused naming the setting); normalizer null or
 *     NFC. The text is cut in that order: the Split (below), then Digits
 *     (every ASCII digit its own piece), then ByteLevel: with use_regex true
 *     (the default) each piece is split again with GPT-2's pattern, with
 *     use_regex false not at all. The vocabulary, merges and pattern go into
 *     bpe.h's core (av_bpe_new ... av_bpe_finish), which encodes each piece.
 *     Split {pattern {"Regex"} or {"String"}, behavior, invert}, as
 *     tokenizers' SplitDelimiterBehavior (tokenizers/src/tokenizer/
 *     normalizer.rs, NormalizedString::split): the text is cut into the
 *     pattern's matches and the gaps between them (PCRE2, UTF + UCP, where
 *     tokenizers uses Oniguruma; matches found as its find_iter does: the next
 *     search starts where the last match ended, an empty match there is
 *     skipped by one character); invert true swaps matches and gaps; behavior
 *     "Isolated" keeps each as its own piece, "Removed" drops the matches,
 *     "MergedWithPrevious"/"MergedWithNext" glue each match to the span
 *     before/after it, "Contiguous" joins neighbouring matches and
 *     neighbouring gaps; empty pieces are dropped. Qwen2's and Llama 3's
 *     Isolated patterns match every character, so their pieces are the
 *     matches.
 *   - sentencepiece-style BPE with byte fallback (Llama 2, TinyLlama): the
 *     normalizer Sequence [Prepend "▁", Replace " " → "▁"], or the
 *     pre_tokenizer Metaspace (replacement "▁"; prepend_scheme always, first
 *     or never, or the older add_prefix_space true/false; it prepends "▁"
 *     only to a segment that does not start with a space; split, true when
 *     absent, starts a piece at every "▁", each merged on its own, as
 *     tokenizers' pre_tokenizers/metaspace.rs does);
 *     then characters merged by rank; a character the vocabulary lacks
 *     becomes its UTF-8 bytes as "<0xNN>" tokens (model.byte_fallback), or
 *     model.unk_token if there is no byte fallback.
 * In both, model.ignore_merges true (Llama 3's tokenizer.json) encodes a
 * piece that is itself a token as that token before any merge, as tokenizers
 * (0.19) does; a value other than true or false is refused.
 * In both, added_tokens (e.g. "<s>", "<|endoftext|>") are matched in the text
 * first, leftmost-longest, and become their ids; the text between them is
 * encoded as above. As tokenizers' added_vocabulary.rs: "normalized": false
 * tokens are found in the raw text first, then "normalized": true ones in
 * each piece between them after the NFC normalizer (as their NFC form);
 * "lstrip"/"rstrip" take the White_Space before/after a token into it,
 * "single_word" drops a match with a \w character (Alphabetic, marks, Nd,
 * Pc, Join_Control) right before or after it. An absent flag is false, an
 * absent "normalized" is the opposite of "special". Refused (AV_EUSAGE): a
 * flag that is no boolean; with a "▁" normalizer (Llama 2's Prepend or
 * Replace), a "normalized": true token holding a space or "▁", and (when
 * encoding) a text holding a "normalized": true token under the Prepend
 * normalizer (tokenizers looks for it as "▁<s>", which is not done here). BOS: post_processor
 * null or ByteLevel (offsets only) adds nothing; TemplateProcessing whose "single" is
 * [SpecialToken, $A] puts that token's id first (its "special_tokens" entry's
 * one id, else the added token or vocabulary token of that text; Llama 2/TinyLlama's
 * "<s>"); a Sequence applies each of its processors (Llama 3's [ByteLevel,
 * TemplateProcessing "<|begin_of_text|>" $A]), as tokenizers' processors do.
 * av_hftok_load_dir lets tokenizer_config.json's add_bos_token override it with
 * config.json's bos_token_id.
 *
 * Refused with AV_EUSAGE and a message naming what was found and what is
 * allowed: model types other than BPE (WordPiece, Unigram, WordLevel; a type
 * that is no string is shown: "model type 5 is not supported"; no type is BPE
 * when the model has "vocab" and "merges", as tokenizers reads a file written
 * before the tag), a "model" that is no object or is missing, a
 * post_processor that adds tokens attnviz does not (RobertaProcessing,
 * BertProcessing; a template with a special token after the text or two before
 * it; a template token with no id),
 * other pre-tokenizers or normalizers, ByteLevel add_prefix_space true, a
 * Split behavior or invert other than the above, a Split pattern that does
 * not compile, two Splits, a Split without ByteLevel, merges naming unknown
 * tokens; model settings that change the ids and are not applied here: a
 * continuing_subword_prefix or end_of_word_suffix other than null or ""
 * ("##", CLIP's "</w>"), a dropout other than null or 0 (BPE-dropout: merges
 * skipped at random); a model.byte_fallback or model.fuse_unk, or a ByteLevel
 * add_prefix_space, trim_offsets or use_regex, that is not a boolean (a
 * string "true" or "false" was read as false or as the default); for byte-level BPE an id no token has (bpe.h needs ids 0..N-1 for
 * N tokens, each once: an added token whose id is past them is named, with
 * its id and the allowed 0..N-1); an added token at an id the file gives
 * another token ("added token \"<b>\" has id 260, already the id of the
 * token \"<a>\"; ..."; the same token in model.vocab and added_tokens, as
 * GPT-2's "<|endoftext|>" 50256, is one token).
 * Non-goals: training, decoding of sentencepiece text, offsets, pair inputs.
 */
#ifndef AV_HFTOK_H
#define AV_HFTOK_H

#include <stddef.h>
#include <stdint.h>

#include "base/common.h"

typedef struct av_hftok av_hftok;

typedef enum { AV_HFTOK_BYTE_LEVEL, AV_HFTOK_SENTENCEPIECE } av_hftok_kind;

/* Parse tokenizer.json text json[0..len). `name` starts every message.
 * *out is set only on success; free with av_hftok_free. Errors: AV_EUSAGE
 * for bad JSON or an unsupported type (above); AV_ERUNTIME on OOM. */
av_status av_hftok_load_mem(av_hftok **out, const char *json, size_t len, const char *name, av_err *err);

/* DIR/tokenizer.json, then DIR/tokenizer_config.json if present: its
 * "add_bos_token" true/false sets whether bos_id (config.json's
 * bos_token_id, INT32_MIN if it has none, AV_HFTOK_BOS_NULL if it is null)
 * is put first (AV_HFTOK_BOS_GPT2_FAST: neither key is read); null or absent
 * leaves tokenizer.json's rule. With add_bos_token true, bos_id must be a
 * token id of the model, 0..vocab_size-1 (config.json's vocab_size), as
 * Hugging Face's tokenizers refuse add_bos_token without a bos_token. Errors: AV_ERUNTIME when either file cannot be
 * read; those of av_hftok_load_mem; for tokenizer_config.json, AV_EUSAGE
 * naming its path: those of jsonval.h's av_json_parse_object (empty, not
 * JSON, not an object, a key twice), and
 *   "PATH: \"add_bos_token\" is \"yes\"; it must be true or false (null or
 *    absent: tokenizer.json decides)"  (av_json_wrong_kind);
 *   "PATH: \"add_eos_token\" is true: Hugging Face's Llama tokenizer then
 *    ends every text with eos_token, and attnviz puts no token after the
 *    text; allowed: false, null or absent (...)" (a value neither boolean
 *    nor null: av_json_wrong_kind);
 *   "DIR/config.json: bos_token_id 100000 is outside the vocabulary 0..293
 *    (add_bos_token true in PATH puts it first)"  (-1 too);
 *   "PATH: add_bos_token is true, but DIR/config.json has no bos_token_id
 *    (the id to put first) and this file no bos_token; give one, or make
 *    add_bos_token false" ("has bos_token_id null (no id to put first)" for
 *    AV_HFTOK_BOS_NULL, here and below). Without config.json's bos_token_id, the file's
 *    own "bos_token" ("<s>", or an object whose "content" is) is looked up
 *    in tokenizer.json's vocabulary, as Hugging Face's tokenizers do; one
 *    that is no token is AV_EUSAGE naming it. */
av_status av_hftok_load_dir(av_hftok **out, const char *dir, int32_t bos_id, int32_t vocab_size, av_err *err);
/* av_hftok_load_dir's bos_id when config.json has "bos_token_id": null: no id, as INT32_MIN, but the messages say
 * it is null rather than missing. */
#define AV_HFTOK_BOS_NULL (INT32_MIN + 1)
/* av_hftok_load_dir's bos_id for a GPT-2 folder: transformers loads its tokenizer.json as GPT2TokenizerFast, which
 * keeps add_bos_token as an attribute it never uses and reads no add_eos_token (tokenization_gpt2_fast.py), so
 * tokenizer_config.json's two keys are not read and tokenizer.json's post_processor alone decides; a true
 * add_bos_token gets av_hftok_bos_note. config.json's bos_token_id is no tokenizer's. */
#define AV_HFTOK_BOS_GPT2_FAST (INT32_MIN + 2)
/* The note for add_bos_token true under AV_HFTOK_BOS_GPT2_FAST ("PATH: add_bos_token is true, but transformers'
 * GPT2TokenizerFast ... puts no token first for it (...)"), or NULL. Owned by t. No errors. */
const char *av_hftok_bos_note(const av_hftok *t);

/* Encode UTF-8 text[0..len) into *n ids (*ids malloc'd, caller frees), BOS
 * first when the rule above says so. *n may be 0 (and *ids NULL) for
 * non-empty text: a Split with behavior Removed can drop every character.
 * Errors: AV_EUSAGE for invalid UTF-8, a character
 * with neither a token nor byte tokens; AV_ERUNTIME on OOM or a PCRE2
 * matching failure. */
av_status av_hftok_encode(av_hftok *t, const char *text, size_t len, int32_t **ids, size_t *n, av_err *err);

/* A readable label of id, as bpe.h's av_bpe_label: a space (or "▁") is "␣",
 * a newline "↵"; other byte tokens stay "<0xNN>". Returns its length, 0 for
 * a bad id. cap >= AV_BPE_LABEL_MAX always suffices. */
size_t av_hftok_label(char *out, size_t cap, const av_hftok *t, int32_t id);

/* Decode n ids to UTF-8 (*text malloc'd, NUL-terminated, caller frees):
 * byte-level through bpe.h's av_bpe_decode; sentencepiece: token texts (an
 * added token model.vocab lacks: its "content") with "▁" as a space and
 * "<0xNN>" as the byte (the first space of the text, the
 * one Prepend/Metaspace added, is kept). Errors: AV_EUSAGE for an id without
 * a token; AV_ERUNTIME on OOM. */
av_status av_hftok_decode(const av_hftok *t, const int32_t *ids, size_t n, char **text, size_t *len, av_err *err);

av_hftok_kind av_hftok_get_kind(const av_hftok *t);
/* "byte-level BPE", "sentencepiece BPE, byte fallback", or, without model.byte_fallback, "sentencepiece BPE, no
 * byte fallback" (": an unknown character is unk_token" when it has one): how the trace names the tokenizer. */
const char *av_hftok_kind_name(const av_hftok *t);
int32_t av_hftok_vocab_size(const av_hftok *t);    /* 1 + the largest id of the vocabulary and added tokens */
/* What loading read differently from the file, for a note (out: "" when nothing, else e.g. 'added token "cat"
 * has id 50260, but "cat" is already token 9246, so "cat" in the text is 9246 and no text is 50260, as Hugging
 * Face's tokenizers read it'; "; and 2 more added tokens" after the first): an added token whose text is an
 * earlier token's takes that token's id (tokenizers' added_vocabulary.rs add_tokens, which warns in
 * serialization.rs). Writes at most cap bytes with the NUL; returns the length written. No errors. */
size_t av_hftok_note(char *out, size_t cap, const av_hftok *t);
int32_t av_hftok_bos(const av_hftok *t);           /* id put first, or -1 */
int32_t av_hftok_find(const av_hftok *t, const char *s, size_t len); /* id of a token's file text, or -1 */

void av_hftok_free(av_hftok *t);

#endif
