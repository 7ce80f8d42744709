/* tasks.h - the toy tasks `--train` learns, generated from a seed, and the
 * small GPT-2-style vocabulary their text is written in.
 *
 * Formats (exactly what a user types; the answer is the greedy continuation):
 *   reverse    "3 1 4 1 5 >"      continues " 5 1 4 1 3"   digits, 2..8 of them
 *   sort       "3 1 4 1 5 >"      continues " 1 1 3 4 5"
 *   induction  "k q a z m k q a"  continues " z"  lowercase letters: a segment
 *              of 6..14 distinct letters (each after the first is, with
 *              probability 1/2, the next unused letter of the alphabet, else
 *              any unused one), then a repeat of part of it (from a letter at
 *              least AV_INDUCTION_MIN_GAP = 6 before the segment's end, to
 *              the end, again and again up to 24 tokens); after the
 *              second occurrence of a letter the answer is the letter that
 *              followed its first occurrence (Olsson et al. 2022, "In-context
 *              learning and induction heads"). Every repeated position is
 *              scored: several answers per sequence. A trained model reads
 *              any such text, shorter gaps too ("a b a" continues " b").
 *
 * Tokens: the vocabulary is GPT-2's byte-level BPE (Radford et al. 2019) cut
 * down to what the tasks need: the 256 byte tokens, numbered as GPT-2 numbers
 * them (so "3" is id 18 as in GPT-2), then the merges "Ġ 0" .. "Ġ 9", "Ġ >",
 * "Ġ a" .. "Ġ z" (ids 256 ..), then "<|endoftext|>". So "3 1 4 1 5 >"
 * tokenizes as "3", " 1", " 4", " 1", " 5", " >" with any GPT-2 BPE
 * tokenizer given this vocab.json and merges.txt.
 *
 * Each example marks its answer positions: the queries q whose next token
 * tokens[q+1] is scored by the cross-entropy, and for each one the key
 * positions it should attend to (its target):
 *   reverse    query n+k (n digits) answers digit n-1-k: the target is that position;
 *   sort       the target is every prompt position holding the answer digit;
 *   induction  a repeated letter at q: the target is every position right
 *              after an earlier occurrence of the letter (each holds the
 *              token to copy; the first such is the target).
 *
 * Non-goals: tokenizing arbitrary text (text/bpe does that), other tasks.
 */
#ifndef AV_TASKS_H
#define AV_TASKS_H

#include <stdint.h>

#include "base/common.h"
#include "nn/embed.h"

#define AV_TASK_MAX_T 32 /* tokens in one example, answer included */
#define AV_INDUCTION_MIN_GAP 6 /* induction: positions from a letter's first occurrence to its second, at least */
#define AV_INDUCTION_MAX_T 24  /* induction: tokens in a sequence, at most */
#define AV_TASK_MIN_DIGITS 2   /* reverse, sort: digits in a prompt */
#define AV_TASK_MAX_DIGITS 8

typedef enum { AV_TASK_REVERSE, AV_TASK_SORT, AV_TASK_INDUCTION, AV_TASK_COUNT } av_task_kind;

typedef struct {
    int T;                              /* tokens, prompt and answer */
    int n_prompt;                       /* tokens of the prompt ("3 1 4 1 5 >") */
    int tokens[AV_TASK_MAX_T];          /* token ids */
    int n_answer;                       /* scored queries */
    int answer_q[AV_TASK_MAX_T];        /* query positions; the label is tokens[q+1] */
    uint32_t target[AV_TASK_MAX_T];     /* per scored query: bit j = key position j is a target */
} av_task_example;

/* ---------------------------------------------------------------------------- the vocabulary */

#define AV_TOY_N_MERGES 37                        /* "Ġ 0".."Ġ 9", "Ġ >", "Ġ a".."Ġ z" */
#define AV_TOY_EOT (256 + AV_TOY_N_MERGES)        /* "<|endoftext|>" */
#define AV_TOY_VOCAB (AV_TOY_EOT + 1)             /* 294 */

/* GPT-2's byte-to-unicode table (Radford et al. 2019, encoder.py bytes_to_unicode):
 * the code point that stands for byte b in vocab.json and merges.txt, and the
 * token id GPT-2 gives that byte. */
int av_toy_byte_codepoint(int b);
int av_toy_byte_id(int b);

/* The text a token id stands for ("3", " 1", "<|endoftext|>") into out (at
 * least 16 bytes), as raw bytes (a byte token >= 0x80 gives that one byte).
 * Returns 0, or -1 for an id outside 0 .. AV_TOY_VOCAB-1. */
int av_toy_token_text(int id, char *out);

/* The merge of rank r (0 .. AV_TOY_N_MERGES-1): the second symbol's byte ('0',
 * '>', 'a', ...); the first symbol is always "Ġ" (the space byte). */
int av_toy_merge_byte(int r);

/* ---------------------------------------------------------------------------- the tasks */

/* "reverse", "sort", "induction". */
const char *av_task_name(av_task_kind kind);

/* A prompt of the task's own text, for a command to paste (attnviz --model DIR "3 1 4 1 5 >"): "3 1 4 1 5 >"
 * for reverse and sort, "k q a z m k q a" for induction (docs/train.md's examples). No errors. */
const char *av_task_prompt_text(av_task_kind kind);

/* One example drawn from r. */
void av_task_sample(av_task_example *ex, av_task_kind kind, av_rng *r);

/* ---------------------------------------------------------------------------- held out */

/* The held-out examples, kept out of training: a set of the token sequences
 * (FNV-1a 64-bit hashes of T and the tokens, open addressing). The trainer
 * draws its batches with av_task_sample_unseen, so no example equal to a
 * held-out one is ever trained on and the held-out accuracy measures
 * generalisation (short prompts repeat: reverse has only 100 two-digit ones). */
typedef struct {
    uint64_t *slot; /* cap hashes, 0 = empty */
    size_t cap;     /* a power of two, at least twice the examples */
} av_task_set;

/* The set of ex[0..n-1]. Errors: AV_ERUNTIME on OOM. */
av_status av_task_set_init(av_task_set *set, const av_task_example *ex, int n, av_err *err);
void av_task_set_free(av_task_set *set);
/* 1 if an example with ex's tokens is in the set (a 64-bit hash collision,
 * about n·2^-64, would only make training skip an unseen example). */
int av_task_set_has(const av_task_set *set, const av_task_example *ex);

/* av_task_sample, drawing again while the example is in `exclude` (NULL =
 * none). It ends: every task has far more examples (reverse and sort 10^8
 * of length 8 alone) than a held-out set holds. */
void av_task_sample_unseen(av_task_example *ex, av_task_kind kind, av_rng *r, const av_task_set *exclude);

/* The fixed probe the film strip shows: "3 1 4 1 5 >" (reverse, sort) or
 * "k q a z m k q a" (induction), with its answer. */
void av_task_probe(av_task_example *ex, av_task_kind kind);

/* Longest example of the task (the model's n_positions must cover it). */
int av_task_max_T(av_task_kind kind);

/* The task called name ("reverse", ...), or -1. */
int av_task_find(const char *name);

/* A trained toy model continues any text, as surely as its task's own, so a
 * run of it can say when its input is text the task never generates. ids
 * (T of them) are the input's token ids in the toy vocabulary above, as
 * --model's tokenizer gave them. 1 if they are outside the formats above
 * (reverse, sort: AV_TASK_MIN_DIGITS to AV_TASK_MAX_DIGITS digits, " >", then
 * fewer answer digits than prompt digits, each the task's: the reverse or the
 * sort of the digits so far; induction: lowercase letters, at most
 * AV_INDUCTION_MAX_T, a letter seen before followed by the letter that
 * followed its first occurrence; one space between tokens, none at either
 * end), else 0.
 * When 1: *bad = the index (from 0, as the trace's tokens) of the token at
 * fault, or -1 when the sequence as a whole is ("9 digits before >; its
 * prompts have 2 to 8", "9 digits and no >; ..."), and why (n bytes) says
 * what: for a token, the predicate after its name ("is whitespace on its
 * own: ...", "is not a digit or >", "is the first of 3 bytes of '３'
 * (U+FF13), the full-width form of '3': type the half-width '3' (半角)" for a
 * character outside ASCII, held as byte tokens, the advice only when the task
 * takes the half-width twin ("... of 'Ｋ' (U+FF2B), the full-width form of
 * 'K', and the half-width 'K' is not a lowercase letter either"), a combining
 * mark unquoted ("... of U+0301, a combining mark, not a digit or >"); a space
 * token before one is not blamed, the character is, and so for an ASCII
 * character the task does not take ("5 <": "<" "is not a digit or >", not the
 * space the tokenizer left alone before it), "has no space before it: ...", "is not
 * the task's answer: reverse of \"3 1 4\" is \"4 1 3\"", "comes after the
 * whole answer: reverse of \"3 1 4\" is \"4 1 3\", which ends before it" (a
 * digit past the answer's end), "is not the task's
 * answer: after a comes z, the letter after the first a (token 2)"). */
int av_task_ids_outside(av_task_kind kind, const int32_t *ids, int T, int *bad, char *why, size_t n);

/* 1 if token k of ids (T tokens, toy vocabulary ids) is, or starts the bytes
 * of, a list separator: ',' ';' or the full-width '，' (U+FF0C), '；'
 * (U+FF1B) or the ideographic comma '、' (U+3001) that a Chinese input method
 * types; 0 otherwise, and for k outside 0..T-1. The tasks' text separates
 * its tokens with one space instead ("3 1 4 1 5 >"). */
int av_task_separator_at(const int32_t *ids, int T, int k);

/* 1 if token k of ids (T tokens, toy vocabulary ids) is, or starts the bytes
 * of, a character typed for the digit tasks' '>' that is not it: '》'
 * (U+300B, as a Chinese input method types '>' in its full-width mode), '〉'
 * (U+3009, U+232A), '⟩', '›', '»', '→', '⇒', '➔', '➜', '➡', '▶', '▸', '≫', '˃',
 * '❯', '﹥' (U+FE65), or the '-' or '=' of "->" or "=>"; 0 otherwise, and for
 * k outside 0..T-1. The full-width '＞' (U+FF1E) is told apart by
 * av_task_ids_outside itself. */
int av_task_arrow_at(const int32_t *ids, int T, int k);

/* 1 if ids (T tokens) are a whole example of the task, prompt and complete
 * answer, as training saw them ("3 1 4 1 5 > 5 1 4 1 3" for reverse): the
 * first T − 1 tokens are inside the task (av_task_ids_outside 0) and the last
 * completes the answer. Such a sequence is outside the task only for what
 * comes after it (av_task_ids_outside says "the answer is complete"); its
 * attention is the trained model's own. 0 otherwise, and always for induction
 * (its sequences have no end). */
int av_task_ids_whole_example(av_task_kind kind, const int32_t *ids, int T);

/* Where a continuation leaves the task: ids holds an input of T tokens
 * inside the task (av_task_ids_outside 0), then `steps` generated ones.
 * Generated token j (from 0) is the task's while the sequence up to and with
 * it is inside, or the prefix before it is and j is a well-formed token that
 * completes the answer (reverse, sort: the n-th answer digit). Returns the
 * first j that is not, or -1 (all are, or the input itself is outside); then
 * why (n bytes) says why, as av_task_ids_outside does, and *token is 1 when it
 * is about token j itself (why is then a predicate: "is not a digit or >"),
 * 0 when about the sequence ("5 answer digits after > for 5 digits: the
 * answer is complete", "25 letters; its sequences have at most 24"). */
int av_task_continuation_leaves(av_task_kind kind, const int32_t *ids, int T, int steps, int *token, char *why,
                                size_t n);

/* How many of ids[from..T-1] (generated tokens after an input inside the
 * task, ids[0..from-1]) are not the task's token at their place: reverse and
 * sort compare each with the answer's token at that position (every token
 * past the answer's end counts), induction each letter with the letter after
 * the first occurrence of the letter before it (any letter after a new one;
 * every token past 24 counts). Every token from the first one that is not of
 * the task's text on counts too (a byte, a ">" or a letter in reverse and
 * sort, a digit in induction, a digit or letter without its space). A wrong
 * digit or letter does not make the right ones
 * after it wrong: "3 1 4 1 5 >" continued " 5 1 3 1 3" has 1 such token from
 * generated token 3 on, not 3. Returns 0..T − from. */
int av_task_tokens_off(av_task_kind kind, const int32_t *ids, int T, int from);

/* How many tokens the task's whole sequence has, given the input ids[0..T-1]
 * inside the task (av_task_ids_outside 0): reverse and sort 2 n + 1 for the
 * n digits before > (the prompt, >, the n-digit answer: "3 1 4 1 5 >" makes
 * 11), induction AV_INDUCTION_MAX_T (its sequences have no answer's end, only
 * a longest length). A continuation's tokens from this place on are past the
 * task's text, where the model was never trained. Source: the examples
 * av_task_sample makes. */
int av_task_sequence_end(av_task_kind kind, const int32_t *ids, int T);

/* The task's text in words for messages, into out (n bytes): "2 to 8
 * digits, then >, like \"3 1 4 1 5 >\"". */
void av_task_describe(char *out, size_t n, av_task_kind kind);

#endif
