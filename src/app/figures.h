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

/* fc->run = 16 hex digits of a 64-bit FNV-1a hash of everything that decides
 * the numbers: the tokens, T, d_model, heads, positions, RoPE style and base,
 * causal, scale, seed, --attn-mask contents and the weights' source. Two
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
 * --format. Errors: those of av_compare_plot. */
av_status av_figures_compare(const av_comparison *c, const av_tokens *toks, const av_options *o,
                             const av_figure_context *fc, av_written *w, av_err *err);

/* A folder never mixes two runs: after a run wrote its figures, remove the
 * figures of an earlier run in o->outdir that this run did not rewrite.
 * Removed are only files that (1) are named --prefix + an attnviz figure stem
 * (head<h>, heads, mean, scores, scores_head<h>, pe, mask, compare_<what>)
 * + .png or .svg, (2) carry attnviz's metadata (PNG tEXt Software "attnviz
 * ...", SVG <desc> starting "attnviz "), (3) come from another run (their
 * run id differs from run_id: another sentence, setting or weights; figures
 * of the same run in another --format or --figures selection stay), and
 * (4) are not in w. Other files,
 * and figures with another prefix, are never touched. A note lists what was
 * removed unless o->quiet. Errors: AV_ERUNTIME when a stale figure cannot be
 * removed (the message names it). */
av_status av_figures_remove_stale(const av_options *o, const char *run_id, const av_written *w, av_err *err);

/* The --model figures of a finished forward pass, in every --format:
 *   model             every layer (rows) × head (columns), att (L, H, T, T)   --figures model
 *   layer<L>          layer L's heads in one grid (view = layer L)            grid
 *   layer<L>_head<h>  single heads of layer L (only --head h if given)        heads
 * Default without --figures: model and layer<L>, plus layer<L>_head<h> with
 * --head. Titles and metadata name the weights' source ("model DIR (F32)").
 * Errors: AV_ERUNTIME on I/O or out of memory. */
av_status av_figures_model(const av_model *view, const av_tokens *toks, const float *att, int L, int layer,
                           const char *source, const av_options *o, const char *cmdline, av_written *w, av_err *err);

#endif
