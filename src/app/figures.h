/* figures.h - which figures a run writes, their titles and file names: the
 * figure orchestration between the model (nn/) and the drawing (render/).
 *
 *   head<h>           attention weights A of head h (T, T)       --figures heads
 *   heads             every head in one grid (H > 1)             grid
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

/* Write every figure selected by o->figures for a finished forward pass.
 * cmdline is the shell-quoted command for the metadata. Notes (no pe figure
 * without positions, no grid for one head) and the missing-glyph warning go
 * to stderr unless o->quiet. Errors: AV_ERUNTIME on I/O or out of memory. */
av_status av_figures_write(const av_model *m, const av_tokens *toks, const av_options *o, const char *cmdline,
                           av_written *w, av_err *err);

/* Write the --compare figure compare_<what> of head o->head in every
 * --format (nothing for order). Errors: those of av_compare_plot. */
av_status av_figures_compare(const av_comparison *c, const av_tokens *toks, const av_options *o,
                             const char *cmdline, av_written *w, av_err *err);

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
