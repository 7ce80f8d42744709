/* tensorio.h - the command's tensors on disk: X and W loaded from a
 * --weights folder, the --attn-mask file, the --dump folder, and the list of
 * files a run wrote. Shapes: X (T, C), W_Q, W_K, W_V, W_O (C, C) in the
 * row-vector layout Q = X·W_Q; masks (T, T) bool, True = masked (PyTorch's
 * attn_mask); Q, K, V (H, T, D); scores, weights (H, T, T). Files are .npy
 * (io/npy.h), written atomically (io/fileio.h).
 */
#ifndef AV_TENSORIO_H
#define AV_TENSORIO_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "app/cli.h"
#include "base/common.h"
#include "io/fileio.h"
#include "nn/model.h"
#include "text/tokenize.h"

/* The files a run wrote, in order, for the closing "wrote N files:" list ("wrote 1 file:"). */
#define AV_MAX_WRITTEN 1024
typedef struct {
    char *paths[AV_MAX_WRITTEN];
    int n;
} av_written;

/* Remember path (copied; beyond AV_MAX_WRITTEN or out of memory it is left
 * out of the list, the file itself is written). */
void av_written_add(av_written *w, const char *path);
/* The closing list on f: "\nwrote N files:\n" ("wrote 1 file:") and one indented path a line; nothing when w is empty. */
void av_written_print(FILE *f, const av_written *w);
void av_written_free(av_written *w);

/* Where a run's X and weights come from. The trace header prints it, and
 * every figure names it in its title and metadata (av_plot_meta.weights), so
 * a slide never passes random weights off as learned ones. attnviz's own
 * single layer fills RANDOM, LOADED or MIXED; a driver that runs a named
 * model or trains one fills MODEL ("model gpt2 (124M) from DIR") or TRAINED
 * ("trained on copy, step 500") into text itself. */
typedef enum {
    AV_WEIGHTS_RANDOM,  /* seeded random draws, never trained */
    AV_WEIGHTS_LOADED,  /* X and all four W from a --weights folder */
    AV_WEIGHTS_MIXED,   /* some from a folder, the rest random */
    AV_WEIGHTS_MODEL,   /* a published model's checkpoint */
    AV_WEIGHTS_TRAINED, /* trained by attnviz on a task */
} av_weights_kind;

typedef struct {
    av_weights_kind kind;
    int random_origin; /* LOADED from a --dump folder whose source.txt says the dumped weights were drawn at
                        * random (or partly), and whose five files still hold the data it was written with */
    char text[1024]; /* short, for titles: "random weights (untrained, seed 42)"; at most 587 bytes, and
                      * av_weights_note_other_tokens's "; X came from a dump of another sentence (...)" after it,
                      * its two tokens as AV_SHOWN_MIDDLE shows them (at most 372 bytes for tokens of 64 bytes,
                      * as --dump writes them; cut at a whole character where longer ones do not fit) */
    char random_text[600]; /* with random_origin: what source.txt says of them */
    char drawn[64];   /* MIXED: the tensors drawn at random for want of their file, "X, W_K, W_V, W_O" */
    char x_file[512]; /* the X.npy a --weights folder gave ("w/X.npy"), or "" when X is
                       * drawn (random N(0, 1) per token text) or a model's embedding */
} av_weights_source;

/* The sentence: the joined arguments (o->sentence) or the file of -f, at most
 * AV_MAX_INPUT_BYTES; from -f its one final line end (LF, CR LF or CR: the end
 * of the last line, as GNU tools read it; any before it is text, "hello\n\n" is
 * "hello\n"), one leading UTF-8 byte-order mark (EF BB BF, as Notepad saves
 * UTF-8 and Python's 'utf-8-sig' drops it) dropped and every CR LF or lone CR
 * read as LF (Python's universal newlines); *text is an owned NUL-terminated
 * copy of *len bytes. A NUL byte from -f is refused, but a --model's
 * byte-level tokenizer takes it (unless the text looks like UTF-16).
 * Errors: av_read_file's, "cannot read" ones led by "-f: " (io/fileio.h: a missing -f file is AV_EUSAGE, an
 * unreadable one AV_ERUNTIME, too large AV_EUSAGE); bytes that are not UTF-8
 * (RFC 3629) AV_EUSAGE, naming the first bad byte and a command that converts
 * the text from its likeliest encoding and runs as typed ("iconv -f GBK -t
 * UTF-8 FILE | attnviz -f -", FILE also where standard input is redirected from
 * it, else "... | iconv -f GBK -t UTF-8 | attnviz -f -"), or a UTF-32 or UTF-16
 * byte-order mark; out of
 * memory AV_ERUNTIME. -f - with standard input a terminal first prints one
 * line to stderr: "attnviz: reading the sentence from the terminal; end it
 * with Ctrl-D on a line of its own" (nothing for a pipe or a file). */
av_status av_read_sentence(const av_options *o, char **text, size_t *len, av_err *err);

/* src = random weights (untrained, seed seed), X drawn (x_file ""). */
void av_weights_random(av_weights_source *src, uint64_t seed);

/* 1 if some of the weights are untrained random draws (RANDOM or MIXED). */
int av_weights_are_random(const av_weights_source *src);

/* Replace m's seeded X (T, C) and W_Q, W_K, W_V, W_O (C, C) by those of
 * X.npy, W_Q.npy, ... found in folder dir (each optional, at least one
 * required); src->x_file names X.npy when it was loaded; src becomes LOADED ("weights loaded from DIR") or MIXED
 * ("W_Q, W_K loaded from DIR; X, W_V, W_O random (untrained, seed 42)"). Errors:
 * AV_EUSAGE for a missing folder or a path of the wrong kind (io/fileio.h
 * av_input_path_status), a folder with none of the files, a file that is not
 * regular, or a bad or wrongly shaped .npy (the message says the expected
 * layout); AV_ERUNTIME for a folder or file that exists but cannot be read. */
av_status av_load_weights(av_model *m, const char *dir, av_weights_source *src, av_err *err);

/* st from a forward pass of weights loaded from folder dir (--weights DIR): a value that left float32
 * (err->overflowed, set by nn/model.c's check) is said of the folder, "--weights DIR: the scores Q·Kᵀ/√d_k
 * overflowed float32 ...", dir quoted as av_shown_word quotes it, as --model's is (app/gpt2run.c), where it named
 * no folder and a user of several could not tell which one it meant; dir NULL (random weights) or any other error
 * is left as it is. Returns st. */
av_status av_weights_of_folder(const char *dir, av_status st, av_err *err);

/* When --weights gave X.npy (src->x_file) and dir also holds the tokens.txt
 * that --dump writes beside it, compare its lines with toks (T labels, <pad>
 * included): if they differ, print a note to f naming the first token that
 * differs there and here, since X's row i is used as token i's embedding
 * whatever the word ("I love you" dumped, "you love I" run: row 0 is I's),
 * and append "; X came from a dump of another sentence ('I' as token 0
 * there, 'you' here)" to src->text, so the figures' titles, the trace, the
 * page and a --dump's source.txt say it too (their rows are labelled with
 * this sentence's words; the words stay true in the new dump folder, whose
 * tokens.txt holds this sentence). Silent when
 * the tokens agree, without tokens.txt, or when it cannot be read (nothing
 * in the run depends on it). */
void av_weights_note_other_tokens(FILE *f, const char *dir, av_weights_source *src, const av_tokens *toks);

/* When folder dir holds .npy (or .npz, .pt, .pth, .safetensors) files that
 * --weights does not read and --dump does not write ("w_k.npy", "b_Q.npy",
 * "weights.pt"), print a note to f naming them, with the file a misnamed one
 * stands for (case, '_' and '-' ignored: "w_k.npy (W_K.npy? names are
 * case-sensitive)") or that a bias has no place (Q = X·W_Q), and which of X
 * and the four W are random for want of their file. Without it a misnamed
 * W_K was drawn at random without a word under -q, and a learner's biases
 * were dropped unsaid. Silent when there are none. */
void av_weights_note_unread(FILE *f, const char *dir, const av_weights_source *src);

/* Set m->user_mask (T, T) from the bool .npy at path, True = masked; a
 * uint8 ('|u1') array is read with any value but 0 masked, as PyTorch's old
 * uint8 masks (the man page's --attn-mask).
 * At most 12 + 65536 + 8·T·T bytes of path are read (a (T, T) '<f8' array
 * with the longest header npy takes), so /dev/zero or a pipe that is never
 * closed is refused after them. Errors: AV_ERUNTIME when it cannot be read;
 * AV_EUSAGE for bad content, another dtype or another shape, or a longer
 * file ("input file 'x' is larger than the 65620-byte limit" for T = 3),
 * saying the mask must be bool (T, T); AV_EUSAGE before reading anything
 * when T is past the 16385 tokens whose bool (T, T) mask an .npy file may
 * hold (AV_NPY_MAX_FILE), naming that most (and --pad-to's share of T).
 * path "-" with standard input a terminal first prints one line to stderr
 * saying the array is read from there and how to give it instead. */
av_status av_load_attn_mask(av_model *m, const char *path, av_err *err);

/* Write dir/tokens.txt (dir must exist): the n tokens of toks, one per line,
 * UTF-8, written atomically; the path goes into w. Used by the single layer's
 * and a model's --dump. Errors: AV_ERUNTIME on I/O. */
av_status av_dump_tokens(const av_tokens *toks, const char *dir, av_written *w, av_err *err);

/* Write tokens.txt and every tensor of a finished forward pass as float32
 * .npy into folder dir (created): X, PE (sinusoidal only; a stale PE.npy is
 * removed), W_Q, W_K, W_V, W_O, Q, K, V, scores, weights, context, output,
 * and mask.npy (bool), and source.txt: "weights: " + src->text (where X and
 * the W came from), then one line "NAME crc32 HHHHHHHH" for each of X.npy,
 * W_Q.npy ... W_O.npy (zlib's CRC-32 of its float32 data as written), so that
 * --weights DIR can tell random weights read back from learned ones, then
 * the settings the tensors were computed with, one "key: value" line each
 * (tokens, d_model, heads, d_k, positions, rope_style and rope_base with
 * RoPE, scale, causal, padding, attn_mask, mask.npy; README "Checking your
 * own implementation"). They appear together or not at all (one
 * av_afile_set, io/fileio.h): a full disk or a Ctrl-C half-way leaves dir's
 * files of an earlier run as they were, never some of each run. Each path
 * goes into w. Once they are in place, a --model dump's own files there
 * (token_ids, attn, hidden, logits) are removed (av_dump_remove_other).
 * Errors: AV_ERUNTIME on I/O. */
av_status av_dump_all(const av_model *m, const av_tokens *toks, const av_weights_source *src, const char *dir,
                      av_written *w, av_err *err);

/* End the set a --dump's files were kept in (av_afile_set_begin): when st is
 * AV_OK they are renamed into place (set_end's error, naming the file, is
 * returned), otherwise removed, and st is returned. */
av_status av_dump_set_end(av_afile_set *set, av_status st, av_err *err);

/* Before a --dump writes into folder dir: a note on stderr (with -q too)
 * naming the temporaries of its files there (io/fileio.h
 * av_afile_leftover_name: ".tokens.txt.tmpAB12cd", ".X.npy.tmp..." of a
 * name --dump writes), which a run killed by SIGKILL or a power cut left.
 * They are not removed: --dump folders are not locked, so one may be a live
 * run's. No errors. */
void av_dump_note_leftovers(const char *dir);

/* Which kind of --dump wrote folder dir's source.txt, read before a new
 * dump (or a --train replacing the model it names) replaces it: 1 the single
 * layer's (its "X.npy crc32 ..." lines), 2 a --model's (its "layers: all
 * ..." line), 0 none or not attnviz's (no source.txt, or one that does not
 * start "weights: "). crc[i] (5 entries) is the CRC-32 of the float32 data
 * that source.txt gives for X.npy, W_Q.npy, W_K.npy, W_V.npy, W_O.npy in
 * that order, -1 where it gives none. weights (n bytes, may be NULL) gets
 * its first line after "weights: ", which model made the dump ("trained toy
 * model r2 (attnviz --train reverse, step 20; F32)", gpt2run.h
 * av_gpt2run_source), "" when the kind is 0; one read of the file serves
 * both (train.c read it a second time for that line). model_crc (may be
 * NULL) gets the CRC-32 of the whole model.safetensors file that a --model
 * dump of a folder --train wrote gives on its "model.safetensors crc32
 * HHHHHHHH" line (gpt2run.h av_gpt2run_dump), -1 where it gives none (an
 * older attnviz's dump, another kind). No errors. */
int av_dump_earlier_kind(const char *dir, int64_t crc[5], char *weights, size_t n, int64_t *model_crc);

/* zlib's CRC-32 of the whole file at path, every byte (what `crc32 FILE`
 * and Python's zlib.crc32(open(FILE, 'rb').read()) print), 0 to
 * 0xFFFFFFFF; -1 when it cannot be opened or read (no message). Which model
 * a --model dump was computed from, and whether the model a --train
 * replaces is that one (train.c). */
int64_t av_file_crc32(const char *path);

/* Remove from folder dir the --dump files only the other kind of run writes,
 * so a dump folder never mixes two runs: for a --model dump (model = 1) the
 * single layer's X, PE, W_Q, W_K, W_V, W_O, Q, K, V, weights, context,
 * output and mask .npy; for the single layer's (model = 0) a model's
 * token_ids, attn, hidden and logits .npy, and PE.npy when stale_pe (this
 * run has no sinusoidal encoding). tokens.txt, source.txt and scores.npy
 * both write. Only files an earlier dump of that kind wrote are removed:
 * earlier is av_dump_earlier_kind(dir, earlier_crc, ...) from before this run's
 * files (1 for the single layer's, which also wrote a stale PE.npy; 2 for a
 * --model's), and X.npy and the four W_*.npy go only while their float32
 * data has the CRC-32 earlier_crc gives (README: "any changed file makes
 * them yours"). A note on stderr (with -q too) names the files removed,
 * another the files of those names kept because no such dump wrote them (a
 * learner's own weights), another those kept because they changed since.
 * Missing files are fine. Errors: AV_ERUNTIME when one cannot be removed. */
av_status av_dump_remove_other(const char *dir, int model, int earlier, const int64_t earlier_crc[5], int stale_pe,
                               av_err *err);

#endif
