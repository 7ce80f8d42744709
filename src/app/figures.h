/* figures.h - which figures a run writes, their titles and file names: the
 * figure orchestration between the model (nn/) and the drawing (render/).
 *
 *   head<h>           attention weights A of head h (T, T)       --figures heads
 *   heads             every head in one grid (H > 1, or asked for by name)  grid
 *   mean              the mean over heads, titled as not a head  mean
 *   scores_head<h>, scores   S = Q·Kᵀ/√d_k before the softmax    scores
 *   pe                the positional encoding (sinusoidal PE, or RoPE's angles)   pe
 *   mask              which query sees which key                 mask
 *   compare_<what>    head h under each --compare setting
 *
 * Each figure is written in every --format (<stem>.png, <stem>.svg) into
 * --outdir, and each path goes into the run's av_written list. Titles say
 * the head, positions, mask and scale, and the file's Description the
 * command line and seed (PNG tEXt / SVG <desc>).
 */
#ifndef AV_FIGURES_H
#define AV_FIGURES_H

#include "app/cli.h"
#include "app/compare.h"
#include "app/tensorio.h"
#include "nn/model.h"
#include "text/tokenize.h"

/* What every figure of a run says about the run besides its own content. */
typedef struct {
    const char *cmdline;           /* shell-quoted command, for the Description metadata */
    const char *sentence;          /* the input text: quoted (shortened past 40 columns)
                                    * at the start of every title, unless --title */
    const av_weights_source *ws;   /* in every title and in the metadata */
    char run[24];                  /* run identity (av_figures_run_id), PNG tEXt Run */
} av_figure_context;

/* out (n bytes, n >= 32) = text as every figure's title quotes it (without
 * the quotes): separator runs (tabs, newlines, ...) folded to one space, none
 * at either end, cut past 40 columns (East Asian wide characters count 2)
 * after the last whole word that fits (a separator, or next to a wide
 * character; inside a longer first word at whole grapheme clusters), as
 * Python's textwrap.shorten(text, 41, placeholder="…"), and then ending in
 * "…"; bytes are kept for the "…" and 16 more. text NULL is "". No errors. */
void av_figures_short_sentence(char *out, size_t n, const char *text);

/* The language the figures set Han characters in for text (UTF-8 or NULL):
 * "ja" when it holds kana (Hiragana U+3040..309F, Katakana U+30A0..30FF and
 * U+31F0..31FF, half-width Katakana U+FF66..FF9F), as the --html page decides;
 * else NULL, Chinese forms (render/textlayout.h av_text_use_cjk_language).
 * "私は深層学習が好きです" drew 直-like characters in their Chinese forms. */
const char *av_figures_cjk_language(const char *text);

/* fc->run = 16 hex digits of a 64-bit FNV-1a hash of everything that decides
 * the numbers: the tokens, T, d_model, heads, positions, RoPE style and base,
 * causal, scale, seed (only when it drew something: not when X and all four
 * W came from --weights), --attn-mask contents and the weights' source. Two
 * runs with the same run id draw the same matrices. */
void av_figures_run_id(av_figure_context *fc, const av_model *m, const av_tokens *toks);

/* Write every figure selected by o->figures for a finished forward pass.
 * Every title reads "<“sentence” or --title> · <what> · <weights> ·
 * positions: … · mask: …"; file names are --prefix + stem + .png/.svg. Notes (no pe figure
 * without positions) and the missing-glyph warning go
 * to stderr unless o->quiet. Errors: AV_ERUNTIME on I/O or out of memory. */
av_status av_figures_write(const av_model *m, const av_tokens *toks, const av_options *o,
                           const av_figure_context *fc, av_written *w, av_err *err);

/* Write the --compare figure compare_<what> of head o->head in every
 * --format, a token that holds part of a character labelled as the other
 * figures label it (tokenize.h av_tokens_piece_labels: "爱(1/2)"). With
 * --vmax F below more than half of the visible weights it draws (head
 * o->head under each setting; not order's |ΔA| map) it warns on stderr as
 * the head figures do, once per run (also with -q). Errors:
 * those of av_compare_plot; AV_ERUNTIME on out of memory. */
av_status av_figures_compare(const av_comparison *c, const av_tokens *toks, const av_options *o,
                             const av_figure_context *fc, av_written *w, av_err *err);

/* A folder never mixes two runs: after a run wrote its files into dir,
 * remove the files of an earlier run there that this run did not rewrite.
 * Removed are only files that (1) are named prefix + a figure stem attnviz
 * writes (head<h>, heads, mean, scores, scores_head<h>, pe, mask,
 * compare_<what>; a --model's model, layer<L>, layer<L>_head<h>) + .png or
 * .svg, or prefix + attnviz.html (the --html page), (2) carry attnviz's
 * metadata (PNG tEXt Software "attnviz ...", SVG <desc> starting "attnviz
 * ", the page's <meta name="generator" content="attnviz ...">), (3) come
 * from another run (their run id differs from run_id: another sentence,
 * setting, weights or model; files of the same run in another --format or
 * --figures selection stay), (4) are not in w (NULL: none) and (5) are not
 * --train's (run ids "train-..."), unless run_id is a --train run's too: a
 * trained model folder keeps its curves and comparisons beside the figures
 * of a run of it. Other files, and files with another prefix, are never
 * touched. A note lists what was removed, with -q too: -q hides the trace,
 * and a file deleted without a word was a teacher's prepared page gone (a
 * teacher's pass). A folder that cannot be listed (write but no read
 * permission) gets a warning that an earlier run's files may stay. Errors:
 * AV_ERUNTIME when a stale file cannot be removed (the message names it). */
av_status av_figures_remove_stale(const char *dir, const char *prefix, const char *run_id, const av_written *w,
                                  av_err *err);

/* Remove from folder dir the temporary files of attnviz's atomic writer
 * (io/fileio.h av_afile_leftover_name: ".head0.png.tmpAB12cd") that a run
 * killed by SIGKILL, the OOM killer or a power cut left there, where no
 * handler could remove them; a later run into dir kept them for ever. Call
 * only while this process holds dir's lock (av_lock_folder gave an fd): then
 * no other attnviz writes there now, so none of them is a live run's.
 * Removed are only regular files (lstat) named "." + TARGET + ".tmp" + six
 * letters or digits where TARGET is a name only a run holding the lock
 * writes there: prefix + a figure name or the page (as
 * av_figures_remove_stale), or one of the n names in also (--train's model
 * files and figures, app/train.h av_train_file_names), and --train's write
 * probe ".attnviz-write-check.XXXXXX". A --dump's temporaries (tokens.txt,
 * .npy: --dump folders are not locked, so one may be live) and every other
 * name stay (".notes.tmp", "attention.gif.tmp1", ".head0.png.tmp1"). A note
 * on stderr, with -q too (as av_figures_remove_stale's), names what was
 * removed. No errors: a file that cannot be removed stays. */
void av_figures_remove_leftovers(const char *dir, const char *prefix, const char *const *also, size_t n);

/* 1 if folder dir holds a figure or page of attnviz's under prefix (the
 * names av_figures_remove_stale knows) whose run id is run_id: a run that
 * failed part-way (a full disk) says so. 0 otherwise, and when dir cannot be
 * read. No errors. */
int av_figures_holds_run(const char *dir, const char *prefix, const char *run_id);

/* The hash behind every run id: FNV-1a 64 (base/common.h) of n bytes at
 * data, continuing from h (AV_RUN_HASH_START to begin). */
#define AV_RUN_HASH_START AV_FNV1A64_BASIS
#define av_run_hash av_fnv1a64

/* run (24 bytes) = a --model run's id, 16 hex digits: FNV-1a 64 of "model",
 * the model's source (av_gpt2run_source: folder, dtype, training) and the
 * token labels. Another --layer or --head draws from the same numbers, so
 * keeps the id. */
void av_figures_model_run_id(char run[24], const char *source, const av_tokens *toks);

/* The --model figures of a finished forward pass, in every --format:
 *   model             every layer × head (layers top to bottom), att (L, H, T, T)   --figures model
 *   layer<L>          layer L's heads in one grid (view = layer L)            grid
 *   layer<L>_head<h>  single heads of layer L (only --head h if given)        heads
 * Default without --figures: model and layer<L>, plus layer<L>_head<h> with
 * --head. Titles start with the sentence in quotes (or --title), as the
 * single layer's, then name the weights' source ("model DIR (F32)");
 * a grouped-query view (view->kv_heads between 1 and H) labels layer<L>'s
 * panels "head h (K/V g)" and titles layer<L>_head<h> "head h of H (K/V
 * head g, shared by query heads a–b)", g = h / (H / kv_heads) (multi-query,
 * kv_heads 1: "the one K/V head, shared by all H query heads");
 * run (av_figures_model_run_id) is the PNG tEXt Run and the SVG's run line.
 * Errors: AV_ERUNTIME on I/O or out of memory. */
av_status av_figures_model(const av_model *view, const av_tokens *toks, const float *att, int L, int layer,
                           const char *source, const char *sentence, const char *run, const av_options *o,
                           const char *cmdline, av_written *w, av_err *err);

/* For the --html page, which colours the weights over --vmax F as the weight
 * figures do: warn on stderr, as those figures do, when F lies below more
 * than half of the visible (unmasked) weights of m->att (H, T, T; a --model's
 * layer L, as its figures), "--vmax 0.01 is below 95% of the visible weights
 * (19 of 20): they all show the top colour; ...". Only when o->html is set
 * and no weight figure (heads, grid, mean, model) is drawn, which would have
 * warned already (--no-plot, --figures scores), and the run has not warned yet
 * (the --compare figure). Printed with -q too. */
void av_figures_warn_vmax_page(const av_model *m, const av_options *o);

/* Say once on fp (stderr) that figures written so far would have passed
 * AV_PLOT_MAX_PX pixels at o's --dpi and --scale and were written at a lower
 * dpi instead, keeping their printed size (render/plot.h
 * av_plot_lowered_dpi): which files and the dpi they state. Nothing when no
 * figure was; printed with -q too, since the run gave less than the --dpi
 * asked for. Resets the count. */
void av_figures_note_lowered_dpi(FILE *fp, const av_options *o);

/* Warn once on fp (stderr) when figures written so far had their title cut
 * with "…" to fit (render/plot.h av_plot_cut_titles): a --title too long for
 * the 3 lines it may wrap over in a figure's width, or without --title a
 * generated piece (a long --weights folder) that did not fit. Names the
 * first 3 files ("head0.png/.svg") and how many; printed with -q too, since
 * the figures do not show the whole title the user gave. Nothing when no
 * title was cut. Resets the count. */
void av_figures_warn_cut_titles(FILE *fp, const av_options *o);

/* Warn on stderr when the labels drawn since av_plot_reset_missing (render/plot.h) had characters no installed
 * font has (av_plot_missing_glyphs distinct code points; the first 6, av_plot_missing_glyph, named as U+1FA77),
 * adding that attnviz's own fonts were not found when no data folder was (app/assets.h: the folder searched),
 * and what o->format's figures show for them: boxes in a PNG; in an SVG U+FFFD for U+FFFE and U+FFFF, which
 * XML 1.0 does not allow (render/svgout.c).
 * Printed with -q too: the man page's -q keeps errors and warnings, as for the unused-option warnings. Nothing
 * when every character had a glyph. Then one note for the emoji sequences those figures drew as several things
 * side by side (av_plot_split_sequences: a flag as its two letters, a skin tone as a swatch after its base, a ZWJ
 * sequence as its emoji) or as their base alone (a tag sequence: the flag of England as a black flag); up to 4
 * named with their code points), also with -q, since a figure-maker otherwise
 * learns it only by looking closely; nothing when there were none. */
void av_figures_warn_missing_glyphs(const av_options *o);

#endif
