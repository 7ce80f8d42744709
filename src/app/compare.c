/* compare.c - --compare (see compare.h). */
#include "app/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/teach.h"
#include "app/term.h"
#include "app/trace.h"
#include "base/utf8.h"
#include "nn/attention.h"

/* A forward pass of base's X and weights under cfg; perm (T entries, or
 * NULL) moves row t of X to row perm[t]. */
static av_status run_variant(av_model *out, const av_model *base, const av_config *cfg, const int *perm,
                             int keep_user_mask, av_err *err) {
    av_status st = av_model_init(out, cfg, err);
    if (st) return st;
    int T = cfg->T, C = cfg->C;
    for (int t = 0; t < T; t++)
        memcpy(out->X + (size_t)(perm ? perm[t] : t) * C, base->X + (size_t)t * C, (size_t)C * sizeof(float));
    size_t CC = (size_t)C * C;
    memcpy(out->W_Q, base->W_Q, CC * sizeof(float));
    memcpy(out->W_K, base->W_K, CC * sizeof(float));
    memcpy(out->W_V, base->W_V, CC * sizeof(float));
    memcpy(out->W_O, base->W_O, CC * sizeof(float));
    const float *bias[4] = {base->b_Q, base->b_K, base->b_V, base->b_O};
    float **copy[4] = {&out->b_Q, &out->b_K, &out->b_V, &out->b_O};
    for (int i = 0; i < 4; i++) {
        if (!bias[i]) continue;
        if (!(*copy[i] = malloc((size_t)C * sizeof(float)))) return av_fail(err, AV_ERUNTIME, "out of memory");
        memcpy(*copy[i], bias[i], (size_t)C * sizeof(float));
    }
    if (base->user_mask && keep_user_mask) {
        out->user_mask = malloc((size_t)T * T);
        if (!out->user_mask) return av_fail(err, AV_ERUNTIME, "out of memory");
        memcpy(out->user_mask, base->user_mask, (size_t)T * T);
        out->user_mask_file = base->user_mask_file; /* each setting's page description names it too */
    }
    return av_model_forward(out, err);
}

/* Mean over the real query rows of every head (not fully masked) of the
 * row's max weight and entropy. */
static void summary_stats(const av_model *m, double *mean_max, double *mean_ent) {
    int T = m->cfg.T, H = m->cfg.H, rows = 0;
    double sm = 0, se = 0;
    double *mx = calloc((size_t)T, sizeof *mx), *en = calloc((size_t)T, sizeof *en);
    if (!mx || !en) { free(mx); free(en); *mean_max = *mean_ent = 0; return; }
    for (int h = 0; h < H; h++) {
        av_row_stats(m, h, mx, en);
        for (int i = 0; i < m->cfg.n_real; i++) { /* <pad> queries are not part of the sentence */
            if (mx[i] == 0) continue; /* fully masked */
            sm += mx[i];
            se += en[i];
            rows++;
        }
    }
    free(mx);
    free(en);
    *mean_max = rows ? sm / rows : 0;
    *mean_ent = rows ? se / rows : 0;
}

/* The mean entropy uniform weights would have over the rows summary_stats
 * averages (real query rows, i < n_real, not fully masked): each row spread
 * evenly over its visible keys has entropy ln(visible keys), so the reference
 * is mean_i ln(n_i) with n_i the unmasked keys of row i in m's own mask
 * (causal, key padding, user mask; nn/attention.h's mask_forward). The mask
 * is the same for every head, so the mean over heads and rows is the mean
 * over rows. *all_see_T: 1 when every such row sees all T keys (then the
 * reference is ln T). *rows: how many rows count (real rows that see a key).
 * Returns 0 when no row counts. */
static double uniform_entropy(const av_model *m, int *all_see_T, int *rows_out) {
    int T = m->cfg.T, rows = 0;
    double sum = 0;
    *all_see_T = 1;
    *rows_out = m->cfg.n_real;
    unsigned char *mask = malloc((size_t)T * T);
    if (!mask) return 0;
    mask_forward(mask, T, m->cfg.causal, m->cfg.n_real, m->user_mask);
    for (int i = 0; i < m->cfg.n_real; i++) {
        int visible = 0;
        for (int j = 0; j < T; j++) visible += !mask[(size_t)i * T + j];
        if (!visible) continue; /* fully masked: summary_stats leaves it out too */
        if (visible < T) *all_see_T = 0;
        sum += log((double)visible);
        rows++;
    }
    free(mask);
    *rows_out = rows;
    return rows ? sum / rows : 0;
}

/* max |a − b| over the real query rows (i < n_real) of (H, T, T) weights:
 * a <pad> query row sees the real keys from its own position, so counting it
 * made max |ΔA| grow with --pad-to (RoPE's 0.12 became 0.46 at --pad-to 16
 * on 'I love you') while the table says it reads the real rows. */
static double max_abs_diff(const float *a, const float *b, int H, int T, int n_real) {
    double w = 0;
    for (int h = 0; h < H; h++)
        for (size_t k = (size_t)h * T * T, end = k + (size_t)n_real * T; k < end; k++) {
            double d = fabs((double)a[k] - (double)b[k]);
            if (d > w) w = d;
        }
    return w;
}

int av_compare_rope_left_out(char *out, size_t n, int d_model, int heads) {
    int d_k = d_model / heads;
    if (d_k % 2 == 0) return out[0] = 0, 0;
    snprintf(out, n, "RoPE needs an even d_k; d_k = d_model / heads = %d / %d = %d", d_model, heads, d_k);
    return 1;
}

/* With an odd d_k, positions and order leave RoPE out, and c->left_out says
 * why (the note, the table, the figure). */
static int rope_left_out(av_comparison *c, const av_model *m) {
    return av_compare_rope_left_out(c->left_out, sizeof c->left_out, m->cfg.C, m->cfg.H);
}

/* order: one permuted and one plain run per positions kind, without the
 * position-dependent masks; keeps the difference, and the runs with keep
 * (what this holds at once is av_compare_arrays_held's count: change both). */
static av_status run_order(av_comparison *c, const av_model *m, int keep, av_err *err) {
    int T = m->cfg.T, H = m->cfg.H, last = m->cfg.n_real - 1;
    if (last < 1)
        return av_fail(err, AV_EUSAGE, "--compare order swaps the first and last words, so it needs at least 2 tokens");
    int *perm = malloc((size_t)T * sizeof *perm);
    if (!perm) return av_fail(err, AV_ERUNTIME, "out of memory");
    for (int t = 0; t < T; t++) perm[t] = t;
    perm[0] = last;
    perm[last] = 0;
    c->last = last;
    c->order_dropped_mask = m->cfg.causal || m->user_mask;
    c->order_kernel = m->cfg.kernel;
    av_status st = AV_OK;
    const av_positions all[3] = {AV_POS_NONE, AV_POS_SINUSOIDAL, AV_POS_ROPE};
    for (int p = 0; p < 3 && !st; p++) {
        av_config cfg = m->cfg;
        cfg.positions = all[p];
        if (all[p] == AV_POS_ROPE && rope_left_out(c, m)) continue;
        cfg.causal = 0; /* the causal mask depends on position: compare without it (padding stays at the end) */
        av_model a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        float *delta = NULL;
        if (!(st = run_variant(&a, m, &cfg, NULL, 0, err)) && !(st = run_variant(&b, m, &cfg, perm, 0, err)) &&
            !(delta = malloc((size_t)H * T * T * sizeof *delta)))
            st = av_fail(err, AV_ERUNTIME, "out of memory");
        if (!st) {
            double worst = 0;
            for (int h = 0; h < H; h++)
                for (int i = 0; i < T; i++)
                    for (int j = 0; j < T; j++) {
                        double d = fabs((double)b.att[((size_t)h * T + perm[i]) * T + perm[j]] -
                                        (double)a.att[((size_t)h * T + i) * T + j]);
                        delta[((size_t)h * T + i) * T + j] = (float)d;
                        if (i < m->cfg.n_real && d > worst) worst = d; /* <pad> query rows are not the sentence's */
                    }
            c->order_pos[c->n] = all[p];
            c->order_delta[c->n] = delta;
            if (keep) { /* the page's panels: the runs themselves, theirs to free now */
                c->runs[c->n] = a;
                c->order_swapped[c->n] = b;
                memset(&a, 0, sizeof a);
                memset(&b, 0, sizeof b);
            }
            c->order_diff[c->n++] = worst;
        }
        av_model_free(&a);
        av_model_free(&b);
    }
    free(perm);
    return st;
}

/* The configurations of scale, positions and rope-style, with their names. */
static av_status settings(av_comparison *c, av_config *cfgs, const av_model *m, av_err *err) {
    const av_config *c0 = &m->cfg;
    if (c->kind == AV_CMP_SCALE) {
        cfgs[0] = *c0; cfgs[0].scale = 1; snprintf(c->names[0], 64, "scaled ÷√d_k");
        cfgs[1] = *c0; cfgs[1].scale = 0; snprintf(c->names[1], 64, "no scale");
        c->n = 2;
        if (m->model_layer) c->own = c0->scale ? 0 : 1; /* as the model runs: a --no-scale toy's config.json */
    } else if (c->kind == AV_CMP_POSITIONS) {
        const av_positions all[3] = {AV_POS_NONE, AV_POS_SINUSOIDAL, AV_POS_ROPE};
        for (int p = 0; p < 3; p++) {
            if (all[p] == AV_POS_ROPE && rope_left_out(c, m)) continue;
            cfgs[c->n] = *c0;
            cfgs[c->n].positions = all[p];
            snprintf(c->names[c->n], 64, "%s", all[p] == AV_POS_ROPE ? "RoPE" : av_positions_name(all[p]));
            c->n++;
        }
    } else {
        av_err e = {{0}};
        if (av_rope_dk_check(m->cfg.C, m->cfg.H, m->cfg.d_model_from, &e))
            return av_fail(err, AV_EUSAGE, "--compare rope-style: %s", e.msg);
        for (int s = 0; s < 2; s++) {
            cfgs[c->n] = *c0;
            cfgs[c->n].positions = AV_POS_ROPE;
            cfgs[c->n].rope_style = s ? AV_ROPE_HALF : AV_ROPE_INTERLEAVED;
            if (!(cfgs[c->n].rope_base > 1)) cfgs[c->n].rope_base = 10000;
            snprintf(c->names[c->n], 64, "RoPE %s", s ? "half" : "interleaved");
            c->n++;
        }
    }
    return AV_OK;
}

/* c->shared: the positions (scale; RoPE only for a --model layer, whose other
 * encodings are in its input), or the kinds compared with RoPE's style
 * (positions, order; rope-style's panels name theirs), the mask the runs use
 * (order's: without the causal mask and --attn-mask) and "no scale" unless
 * scale is compared. */
static void describe_shared(av_comparison *c, const av_model *m) {
    av_config cfg = m->cfg;
    int user_mask = m->user_mask != NULL;
    if (c->kind == AV_CMP_ORDER) { cfg.causal = 0; user_mask = 0; }
    char desc[96], pos[160] = "", mask[128];
    /* a --model layer's view (gpt2run.c make_view) says "learned" for every encoding added to the model's
     * input, sinusoidal or none too: "positions: learned" stood under "positions: sinusoidal" in the title
     * of a sinusoidal toy model's compare_scale.png (a figure-maker's report). The model's description
     * before it names its positions when they are not GPT-2's learned ones, so the piece is left out, as
     * in the title of the model's layer figures; RoPE, applied in the layer, is the view's own. */
    if (c->kind == AV_CMP_SCALE && !(m->model_layer && cfg.positions == AV_POS_LEARNED)) {
        av_positions_title(desc, sizeof desc, &cfg, m->model_layer);
        snprintf(pos, sizeof pos, "positions: %s · ", desc);
    } else if (c->kind == AV_CMP_POSITIONS || c->kind == AV_CMP_ORDER) { /* RoPE's style is not compared */
        cfg.positions = AV_POS_ROPE;
        av_positions_title(desc, sizeof desc, &cfg, m->model_layer);
        snprintf(pos, sizeof pos, "positions: none vs sinusoidal%s%s · ", m->D % 2 ? "" : " vs ", m->D % 2 ? "" : desc);
    } else if (c->kind == AV_CMP_ROPE_STYLE && cfg.rope_base > 1 && cfg.rope_base != 10000.0) {
        snprintf(pos, sizeof pos, "RoPE base %g · ", cfg.rope_base); /* the panels name the styles, not the base */
    }
    av_mask_desc(mask, sizeof mask, &cfg, user_mask, m->user_mask_file);
    snprintf(c->shared, sizeof c->shared, "%smask: %s%s", pos, mask,
             c->kind != AV_CMP_SCALE && !cfg.scale ? " · no scale" : "");
}

av_status av_compare_run(av_comparison *c, const av_model *m, av_compare_kind kind, int keep_runs, av_err *err) {
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->H = m->cfg.H;
    c->model_layer = m->model_layer;
    c->n_real = m->cfg.n_real;
    c->own = -1;
    describe_shared(c, m);
    if (kind == AV_CMP_ORDER) return run_order(c, m, keep_runs, err);
    av_config cfgs[AV_CMP_MAX_SETTINGS];
    av_status st = settings(c, cfgs, m, err);
    for (int i = 0; i < c->n && !st; i++) st = run_variant(&c->runs[i], m, &cfgs[i], NULL, 1, err);
    return st;
}

static void print_order(FILE *f, const av_comparison *c, const av_tokens *toks, int color) {
    char first[AV_MAX_TOKEN_BYTES + 8], last[AV_MAX_TOKEN_BYTES + 8]; /* '"' for a quote token */
    av_quote_token(first, sizeof first, toks->tok[0]);
    av_quote_token(last, sizeof last, toks->tok[c->last]);
    fprintf(f, "%s--compare order%s: swap token 0 %s and token %d %s (same embeddings and weights)\n",
            av_bold(color), av_reset(color), first, c->last, last);
    fprintf(f, "  check: max over heads, i, j of |A_swapped[π(i), π(j)] − A[i, j]|  (0 = the weights only permute)\n");
    for (int p = 0; p < c->n; p++) {
        /* past 64 tokens auto runs blas, whose float32 sums in another row order gave 7e-8 for positions none,
         * read as "order matters" (a tester's report) */
        double d = c->order_diff[p];
        int rounding = d > 0 && d <= AV_CMP_ROUNDING && c->order_kernel != AV_KERNEL_REFERENCE;
        /* 3 significant digits, trailing zeros kept ("0.1" read as exact for 0.10018566: a learner's pass); an
         * exact permutation stays "0" */
        fprintf(f, d == 0 ? "  positions %-11s max difference = %-10.0f %s\n"
                          : "  positions %-11s max difference = %#-10.3g %s\n", av_positions_name(c->order_pos[p]), d,
                d == 0     ? "exactly a permutation: attention alone is blind to word order"
                : rounding ? "a permutation up to float32 rounding: attention alone is blind to word order"
                           : "order matters: positions make the weights depend on where a word is");
    }
    int rounded = 0;
    for (int p = 0; p < c->n; p++) rounded |= c->order_diff[p] > 0 && c->order_diff[p] <= AV_CMP_ROUNDING;
    if (rounded && c->order_kernel != AV_KERNEL_REFERENCE)
        fprintf(f, "  (the %s kernel's sums run in another order once the words move, so a permutation differs in the\n"
                   "  last float32 bits, up to %g; --kernel reference sums in double and gives exactly 0)\n",
                av_kernel_name(c->order_kernel), AV_CMP_ROUNDING);
    if (strcmp(toks->tok[0], toks->tok[c->last]) == 0) /* "the cat the": the swap leaves the sentence as it was */
        fprintf(f, "  (both are %s, so the swapped sentence is the same sentence: the check compares the weights of "
                "one copy of the word with the other's, which differ only by position)\n", first);
    if (c->n_real < toks->n)
        fprintf(f, "  (i runs over the %d real query rows: the <pad> rows see the words from their own positions and are\n"
                   "  ignored later)\n", c->n_real);
    if (c->order_dropped_mask)
        fprintf(f, "  (the causal mask and --attn-mask depend on position, so this comparison runs without them)\n");
    if (c->left_out[0]) fprintf(f, "  (positions rope is left out: %s)\n", c->left_out);
}

void av_compare_print(FILE *f, const av_comparison *c, const av_tokens *toks, int color) {
    if (c->kind == AV_CMP_ORDER) {
        print_order(f, c, toks, color);
        return;
    }
    const av_config *c0 = &c->runs[0].cfg;
    int T = c0->T;
    char heads[32];
    av_heads_phrase(heads, sizeof heads, c0->H);
    char what[64] = "same X and weights"; /* a --model's: layer L's input (after its norm) and weights */
    if (c->model_layer) snprintf(what, sizeof what, "layer %d, same input and weights", c->model_layer - 1);
    fprintf(f, "%s--compare %s%s: same sentence, %s, %s\n", av_bold(color), av_compare_name(c->kind),
            av_reset(color), what, heads);
    /* the names' column: 18, or a name's width and a space, so that 2 spaces at least part it from the first
     * number's column ("scaled ÷√d_k (own)", 18, left one: at a 40-column terminal the table's narrowing took
     * the name and the heading "mean max weight" for one cell); the last column gives up what it takes, so a row
     * stays 80 wide */
    char name[AV_CMP_MAX_SETTINGS][48]; /* the setting a --model runs with, as its figure's panel and page say
                                         * it: with -q this table is all the terminal shows, and a --no-scale
                                         * toy's rows stood as equals */
    int name_w = 18;
    for (int i = 0; i < c->n; i++) {
        snprintf(name[i], sizeof name[i], "%s%s", c->names[i], i == c->own ? " (own)" : "");
        int w = av_utf8_width(name[i]) + 1;
        if (w > name_w) name_w = w < 22 ? w : 22; /* the last column keeps its heading's 17 and a space */
    }
    int diff_w = 22 - (name_w - 18);
    /* the last heading by its columns: %22s counted Δ's 2 bytes and stood it one column left of its numbers */
    fprintf(f, "  %-*s %15s %20s ", name_w, "setting", "mean max weight", "mean entropy (nats)");
    av_put_width(f, "max |ΔA| vs first", diff_w, 1);
    fputc('\n', f);
    for (int i = 0; i < c->n; i++) {
        double mm, me;
        summary_stats(&c->runs[i], &mm, &me);
        char diff[32] = "—";
        if (i) snprintf(diff, sizeof diff, "%.4f", max_abs_diff(c->runs[i].att, c->runs[0].att, c0->H, T, c->n_real));
        fputs("  ", f);
        av_put_width(f, name[i], name_w, 0);
        fprintf(f, " %15.4f %20.4f ", mm, me);
        av_put_width(f, diff, diff_w, 1);
        fputc('\n', f);
    }
    if (c->own >= 0) fprintf(f, "  (own: the setting the model runs with, from its config.json)\n");
    int all_see_T, rows;
    double uniform = uniform_entropy(&c->runs[0], &all_see_T, &rows);
    if (rows == 0) { /* --attn-mask hiding every key of every real row: summary_stats averaged nothing */
        char who[48] = "the one real query row sees";
        if (c0->n_real > 1) snprintf(who, sizeof who, "all %d real query rows see", c0->n_real);
        fprintf(f, "  (%s no key (every key masked): the weights are all 0, so there is no row\n"
                   "  to average, and the 0s above measure nothing)\n", who);
        if (c->left_out[0]) fprintf(f, "  (RoPE is left out: %s)\n", c->left_out);
        return;
    }
    fprintf(f, "  (over the %d real query row%s of every head%s; a higher max weight and lower entropy mean sharper,\n",
            rows, rows == 1 ? "" : "s", rows < c0->n_real ? " that see a key" : "");
    if (all_see_T)
        fprintf(f, "  more one-hot rows; uniform over all %d key%s would be ln(%d) = %.3f)\n", T, T == 1 ? "" : "s", T,
                log((double)T));
    else /* masked keys get no weight: each row's uniform spreads over the keys it sees */
        fprintf(f, "  more one-hot rows; uniform over each row's visible keys would be %.3f, the mean over those rows\n"
                   "  of ln(number of keys the row sees), as the mask hides the others)\n", uniform);
    if (rows < c0->n_real) /* a row with every key masked has all-zero weights: summary_stats leaves it out */
        fprintf(f, "  (%d real query row%s see%s no key (every key masked): weights all 0, left out)\n", c0->n_real - rows,
                c0->n_real - rows == 1 ? "" : "s", c0->n_real - rows == 1 ? "s" : "");
    if (c->left_out[0]) fprintf(f, "  (RoPE is left out: %s)\n", c->left_out);
    /* --d-model 8 --heads 8: two equal rows and a max |ΔA| of 0, with nothing saying why (a teacher's pass) */
    if (c->kind == AV_CMP_SCALE && c0->C == c0->H)
        fprintf(f, "  (d_k = d_model / H = %d / %d = 1, and √1 = 1: the scale divides by 1, so the rows are the same;\n"
                   "  the scale matters when d_k is larger: fewer --heads or a larger --d-model)\n",
                c0->C, c0->H);
}

int av_compare_has_figure(av_compare_kind kind) { return kind != AV_CMP_NONE; }

/* A max |ΔA| of --compare order as print_order writes it: "0" for an exact
 * permutation, else 3 significant digits with trailing zeros kept ("0.170"). */
static void order_diff_text(char *out, size_t n, double d) {
    if (d == 0) snprintf(out, n, "0");
    else snprintf(out, n, "%#.3g", d);
}

/* order: per positions kind, head h's |A'[π(i), π(j)] − A[i, j]| on one
 * 0..max scale (0 = the weights only permute). Each panel names head h's
 * max ("head 0 max 0.0924" with several heads), and with several heads the
 * title gives the max over all heads that the terminal's check prints. */
static av_status plot_order(const char *path, const av_comparison *c, const av_tokens *toks, int h,
                            const char *context, const av_plot_meta *meta, av_err *err) {
    int T = toks->n;
    av_heatmap hms[AV_CMP_MAX_SETTINGS];
    char names[AV_CMP_MAX_SETTINGS][160], title[2048], head[24] = "";
    const char *const *tok = (const char *const *)toks->tok;
    float top = 0, worst[AV_CMP_MAX_SETTINGS] = {0}, pad_top[AV_CMP_MAX_SETTINGS] = {0};
    for (int i = 0; i < c->n; i++) /* the panel's max reads the real query rows, as the table; the scale all rows */
        for (size_t k = 0; k < (size_t)T * T; k++) {
            float d = c->order_delta[i][(size_t)h * T * T + k];
            if (k < (size_t)c->n_real * T) worst[i] = fmaxf(worst[i], d);
            else pad_top[i] = fmaxf(pad_top[i], d);
            top = fmaxf(top, d);
        }
    /* the runs keep only --pad-to's key padding (run_order drops the causal and --attn-mask masks), and π leaves
     * the <pad> at the end: key j >= n_real is masked in A and A′ alike, so its cell is hatched, not a |ΔA| of 0
     * that read as "the weights only permute" (a figure-maker's report) */
    unsigned char *masked = NULL;
    if (c->n_real < T) {
        if (!(masked = malloc((size_t)T * T))) return av_fail(err, AV_ERUNTIME, "out of memory");
        for (size_t k = 0; k < (size_t)T * T; k++) masked[k] = (int)(k % (size_t)T) >= c->n_real;
    }
    for (int i = 0; i < c->n; i++) {
        /* the terminal's check reads every head: head 0's "max 0.092" under its "rope max difference = 0.276"
         * read as a contradiction (a tester's report), so with several heads the panel says whose max it is,
         * the title gives the terminal's, and both are written as the terminal writes them */
        char here[32];
        order_diff_text(here, sizeof here, c->H > 1 ? worst[i] : c->order_diff[i]);
        if (c->H > 1) snprintf(head, sizeof head, "head %d ", h);
        snprintf(names[i], sizeof names[i], "positions %s: %smax %s%s", av_positions_name(c->order_pos[i]),
                 c->H > 1 ? head : "", here, c->n_real < T ? " (real rows)" : "");
        hms[i] = (av_heatmap){.title = names[i], .n_q = T, .n_k = T, .q_labels = tok, .k_labels = tok,
                              .w = c->order_delta[i] + (size_t)h * T * T, .masked = masked, .panel_title = names[i]};
    }
    char all[400] = ""; /* with several heads: " · max over all H heads: none 0, sinusoidal 0.170, rope 0.276" */
    if (c->H > 1)
        snprintf(all, sizeof all, " · max over all %d heads%s: ", c->H, c->n_real < T ? " (real rows)" : "");
    for (int i = 0; c->H > 1 && i < c->n; i++) {
        char d[32];
        size_t len = strlen(all);
        order_diff_text(d, sizeof d, c->order_diff[i]);
        snprintf(all + len, sizeof all - len, "%s%s %s", i ? ", " : "", av_positions_name(c->order_pos[i]), d);
    }
    /* the <pad> query rows are drawn (torch's key_padding_mask masks keys only: their rows are computed, their output
     * ignored) but not in the max: `--compare order --pad-to 8 --seed 42 "hello world"` drew rope's <pad> rows up to
     * 0.24 under a panel "max 0.0824 (real rows)", with nothing saying why (a figure-maker's report); the title gives
     * their own max, last: " · <pad> query rows, not in the max (their output is ignored): none 0, ..., rope 0.241" */
    char pads[400] = "";
    if (c->n_real < T) {
        char whose[32] = "";
        if (c->H > 1) snprintf(whose, sizeof whose, "head %d's ", h);
        snprintf(pads, sizeof pads, " · %s<pad> query rows, not in the max (their output is ignored): ", whose);
        for (int i = 0; i < c->n; i++) {
            char d[32];
            size_t len = strlen(pads);
            order_diff_text(d, sizeof d, pad_top[i]);
            snprintf(pads + len, sizeof pads - len, "%s%s %s", i ? ", " : "", av_positions_name(c->order_pos[i]), d);
        }
    }
    char first[AV_MAX_TOKEN_BYTES + 8], last[AV_MAX_TOKEN_BYTES + 8]; /* '"' for a quote token */
    snprintf(title, sizeof title, "%s%s--compare order: swap %s and %s, then |A′[π(i), π(j)] − A[i, j]| "
             "of head %d of %d%s · 0 everywhere = the weights only permute%s · %s%s%s%s", context ? context : "",
             context ? " · " : "", av_quote_token(first, sizeof first, tok[0]),
             av_quote_token(last, sizeof last, tok[c->last]), h, c->H, all,
             c->order_dropped_mask ? " · run without the causal / --attn-mask mask" : "", c->shared,
             c->left_out[0] ? " · RoPE left out: " : "", c->left_out, pads);
    av_plot_meta mm = meta ? *meta : (av_plot_meta){0};
    mm.vmin = 0;
    mm.vmax = top > 0 ? top : 1;
    mm.value_label = "|A′[π(i), π(j)] − A[i, j]|";
    mm.mask_legend = "masked (score −∞, weight 0 in both)"; /* the <pad> keys: a difference of two 0 weights */
    av_status st = av_plot_grid(path, hms, c->n, title, &mm, err);
    free(masked);
    return st;
}

av_status av_compare_plot(const char *path, const av_comparison *c, const av_tokens *toks, int h,
                          const char *context, const av_plot_meta *meta, av_err *err) {
    if (!av_compare_has_figure(c->kind)) return AV_OK;
    if (c->kind == AV_CMP_ORDER) return plot_order(path, c, toks, h, context, meta, err);
    int T = c->runs[0].cfg.T;
    av_heatmap hms[AV_CMP_MAX_SETTINGS];
    char names[AV_CMP_MAX_SETTINGS][96], titles[AV_CMP_MAX_SETTINGS][256], title[2048];
    const char *const *tok = (const char *const *)toks->tok;
    for (int i = 0; i < c->n; i++) {
        /* the panel of the model as trained says so: a --no-scale toy's "scaled ÷√d_k" and "no scale" stood
         * side by side as equals, and only the terminal's trace said which the model runs with (a
         * figure-maker's report) */
        snprintf(names[i], sizeof names[i], "%s%s", c->names[i], i == c->own ? " (the model's own)" : "");
        snprintf(titles[i], sizeof titles[i], "%s (head %d)", names[i], h);
        hms[i] = (av_heatmap){.title = titles[i], .n_q = T, .n_k = T, .q_labels = tok, .k_labels = tok,
                              .w = c->runs[i].att + (size_t)h * T * T, .masked = c->runs[i].mask,
                              .panel_title = names[i]};
    }
    char layer[32] = ""; /* a --model's figure names the layer it compares */
    if (c->model_layer) snprintf(layer, sizeof layer, "layer %d, ", c->model_layer - 1);
    snprintf(title, sizeof title, "%s%s--compare %s: %shead %d of %d under each setting · %s%s%s",
             context ? context : "", context ? " · " : "", av_compare_name(c->kind), layer, h, c->H, c->shared,
             c->left_out[0] ? " · RoPE left out: " : "", c->left_out);
    return av_plot_grid(path, hms, c->n, title, meta, err);
}

void av_compare_free(av_comparison *c) {
    for (int i = 0; i < AV_CMP_MAX_SETTINGS; i++) {
        av_model_free(&c->runs[i]);
        av_model_free(&c->order_swapped[i]);
        free(c->order_delta[i]);
        c->order_delta[i] = NULL;
    }
    c->n = 0;
}
