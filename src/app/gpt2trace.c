/* gpt2trace.c - the trace of a --model run (gpt2run.h): the header, one
 * compact line per layer, layer L step by step with LayerNorm, residual and
 * MLP, then ln_f, the logits and the top-5 next tokens. Shapes are printed
 * with this model's real T, d_model, heads, d_k and vocabulary. */
#include "app/gpt2run.h"

#include <math.h>
#include <string.h>

#include "app/cli.h"
#include "app/term.h"
#include "app/trace.h"
#include "base/utf8.h"

typedef struct {
    FILE *f;
    int color;
    const av_gpt2run *r;
    const av_gpt2_config *c;
    int T, C, H, D, V, L;
} tctx;

static const char *ind = "                     "; /* continuation indent under the formula column */

static void stage(const tctx *t, const char *num, const char *name) {
    fprintf(t->f, "%s%6s %-13s%s ", av_bold(t->color), num, name, av_reset(t->color));
}

/* The positions line of a GPT-2-layout folder, into buf (n bytes); returns buf. A RoPE toy model names
 * its pairs and θ (config.json's attnviz.rope_style, rope_base), as its figures' titles and the single
 * layer's trace do: `--train --positions rope --rope-style half --rope-base 50` and the defaults'
 * interleaved θ = 10000 printed the same line, so the trace did not say what it rotated by. */
static const char *pos_text(char *buf, size_t n, const av_gpt2_config *c) {
    switch (c->positions) {
    case AV_POS_LEARNED: snprintf(buf, n, "learned: x = wte[token] + wpe[position] (GPT-2)"); break;
    case AV_POS_SINUSOIDAL: snprintf(buf, n, "sinusoidal: x = wte[token] + PE (Vaswani et al. 2017 §3.5)"); break;
    case AV_POS_ROPE:
        snprintf(buf, n, "RoPE, %s pairs %s, base θ = %.10g: x = wte[token]; q and k rotated per head in every "
                 "layer (RoFormer eq. 34)", av_rope_style_name(c->rope_style),
                 c->rope_style == AV_ROPE_HALF ? "(i, i+d_k/2)" : "(2i, 2i+1)", c->rope_base);
        break;
    default: snprintf(buf, n, "none: x = wte[token]"); break;
    }
    return buf;
}

/* How the weights line says the tensors were read: dtypes as av_st_dtypes_name
 * gives them, in_place as av_gpt2 / av_llama set it (an F32 file whose data
 * is not 4-byte aligned is copied, a file that mixes F32 and F16 converted). */
static const char *how_read(const char *dtypes, int in_place) {
    if (in_place) return "read in place from the mmapped file";
    return strcmp(dtypes, "F32") == 0 ? "copied to aligned memory (its data is not 4-byte aligned in the file)"
                                      : "converted to float32";
}

/* Tokens that each hold only part of a character: byte-level BPE (GPT-2, and the byte-level
 * tokenizer.json) falls back to UTF-8 bytes where its vocabulary has no token for a character, so
 * "我" (E6 88 91) runs as [<0xE6>] [<0x88>] [<0x91>] in a vocabulary without it (a learner's pass: a
 * Chinese sentence on a toy model showed 18 byte tokens with no word why). The first such run of
 * tokens whose texts together decode, shown with its character and code point, and how many
 * characters are split so (those a token boundary falls inside: a whole character that shares a
 * token with another's last byte, as 士 in [<0x91>士], is not); nothing when every token's text is
 * whole UTF-8 on its own. */
static void print_byte_hint(FILE *f, const av_tokens *labels) {
    if (!labels->text) return;
    int split = 0, shown = 0, first_i = 0, first_j = 0;
    unsigned first_cp = 0;
    for (int i = 0; i < labels->n; i++) {
        const char *s = labels->text[i];
        if (!s || av_utf8_check(s, strlen(s), NULL) == AV_OK) continue;
        char joined[64] = "";
        size_t len = 0, ends[8]; /* ends[k]: where token i + k ends in joined */
        int j = i;
        for (; j < labels->n && j < i + 8 && labels->text[j]; j++) { /* a character is at most 4 bytes */
            size_t l = strlen(labels->text[j]);
            if (len + l >= sizeof joined) break;
            memcpy(joined + len, labels->text[j], l + 1), len += l;
            ends[j - i] = len;
            if (av_utf8_check(joined, len, NULL) == AV_OK) break;
        }
        if (j >= labels->n || j >= i + 8 || !labels->text[j] || av_utf8_check(joined, len, NULL) != AV_OK)
            continue; /* the first token of a run that does not close: count it where it does */
        /* a character is split when a token ends inside it: "剑士" is [<0xE5><0x89>] [<0x91>士], one; the
         * first one is shown ("龍啊" is [龍<0xE5>] [<0x95>] [<0x8A>]: 啊, not 龍) */
        for (const unsigned char *p = (const unsigned char *)joined; *p;) {
            size_t from = (size_t)(p - (const unsigned char *)joined);
            unsigned cp = av_utf8_next(&p);
            size_t to = (size_t)(p - (const unsigned char *)joined);
            for (int k = 0; k < j - i; k++)
                if (ends[k] > from && ends[k] < to) {
                    if (!shown) first_cp = cp, first_i = i, first_j = j, shown = 1;
                    split++;
                    break;
                }
        }
        i = j;
    }
    if (!shown) return;
    char c[16]; /* as a label shows it alone: <U+0085>, ◌́ (tokenize.h av_label_char_alone) */
    av_label_char_alone(c, first_cp);
    fprintf(f, "             ");
    for (int k = first_i; k <= first_j; k++) fprintf(f, "%s[%s]", k > first_i ? " " : "", labels->tok[k]);
    fprintf(f, " = '%s' (U+%04X) in UTF-8 bytes", c, first_cp);
    if (split > 1) fprintf(f, "; %d characters here are split so", split);
    fprintf(f, ":\n             its vocabulary has no token for the whole character, so the tokenizer keeps its bytes as tokens");
    char **pieces = NULL; /* as the figures and the page label them (tokenize.h av_tokens_piece_labels) */
    av_err oom;
    if (av_tokens_piece_labels(labels, &pieces, &oom) == AV_OK && pieces) {
        fprintf(f, ";\n             figures and the page label them");
        for (int k = first_i; k <= first_j; k++) fprintf(f, " [%s]", pieces[k]);
    }
    av_labels_free(pieces, labels->n);
    fprintf(f, "\n");
}

static void print_ids(FILE *f, const int32_t *ids, int n) {
    int cut = n > AV_TRACE_ELIDE_PAST; /* as the tokens line (trace.h) */
    fprintf(f, "%sids [", ind);
    for (int i = 0; i < n; i++) {
        if (cut && i == AV_TRACE_ELIDE_HEAD) {
            fprintf(f, ", … (%d more) …", n - AV_TRACE_ELIDE_HEAD - AV_TRACE_ELIDE_TAIL);
            i = n - AV_TRACE_ELIDE_TAIL;
        }
        fprintf(f, "%s%d", i ? ", " : "", (int)ids[i]);
    }
    fprintf(f, "]\n");
}

/* the model folder as the trace names it (av_utf8_shown_name): a control character in its name as <U+001B>,
 * an RLO closed after it; a folder in $HOME from "~/", as the figures' titles name it (av_path_from_home) */
static const char *shown_dir(const tctx *t, char *buf, size_t n) {
    char homed[4200];
    av_path_from_home(homed, sizeof homed, t->r->dir);
    av_utf8_shown_name(homed, buf, n);
    return buf;
}

static void header(const tctx *t, const av_tokens *labels) {
    const av_gpt2 *g = &t->r->g;
    FILE *f = t->f;
    fprintf(f, "%sattnviz %s%s: a GPT-2 forward pass, every layer and head, step by step\n", av_bold(t->color),
            AV_VERSION, av_reset(t->color));
    char trained[128] = ""; /* a folder --train wrote says so, as its figures' titles do */
    if (t->r->task[0])
        snprintf(trained, sizeof trained, " (trained toy model: attnviz --train %s, step %d%s)", t->r->task,
                 t->r->step, t->r->diverged ? "; its training diverged" : "");
    char dir[4096];
    fprintf(f, "  weights    model %s%s: %s, %zu parameters, %s%s\n", shown_dir(t, dir, sizeof dir), trained, g->dtype,
            av_gpt2_num_params(t->c), how_read(g->dtype, g->in_place),
            g->transformer_prefix ? ", names with \"transformer.\"" : "");
    fprintf(f, "  tokens     ");
    av_trace_print_tokens(f, labels);
    if (t->r->hftok && t->r->added_tokens) /* added_tokens.json adds tokens vocab.json lacks (gpt2run.c) */
        fprintf(f, "\n             (tokenizer.json, %s: it holds the %d token%s added_tokens.json adds, which "
                "vocab.json and merges.txt do not; ␣ marks a space that belongs to the token)\n",
                av_hftok_kind_name(t->r->hftok), t->r->added_tokens, t->r->added_tokens == 1 ? "" : "s");
    else if (t->r->hftok) /* a folder with tokenizer.json instead of vocab.json and merges.txt (gpt2run.c) */
        fprintf(f, "\n             (tokenizer.json, %s: the folder has no vocab.json and merges.txt; ␣ marks a space that "
                "belongs to the token)\n", av_hftok_kind_name(t->r->hftok));
    else
        fprintf(f, "\n             (GPT-2 byte-level BPE%s; ␣ marks a space that belongs to the token)\n",
                av_gpt2run_bos(t->r) >= 0 ? ", BOS put first: tokenizer_config.json's add_bos_token" : "");
    print_byte_hint(f, labels);
    fprintf(f, "  T = %d   layers L = %d   d_model = %d   heads H = %d   d_k = %d/%d = %d   vocab V = %d\n", t->T, t->L,
            t->C, t->H, t->C, t->H, t->D, t->V);
    char pos[192];
    fprintf(f, "  positions  %s\n", pos_text(pos, sizeof pos, t->c));
    /* a default ε is marked, as the Llama trace marks its own: "LayerNorm ε = 1e-05" alone read as config.json's */
    fprintf(f, "  block      %s; LayerNorm ε = %g%s; MLP d_ff = 4·d_model = %d, GELU (tanh)\n",
            t->c->norm == AV_NORM_PRE ? "pre-LN (GPT-2): x ← x + attn(ln_1(x)), x ← x + mlp(ln_2(x))"
                                      : "post-LN (Vaswani et al. 2017): x ← ln_1(x + attn(x)), x ← ln_2(x + mlp(x))",
            t->c->layer_norm_epsilon,
            t->c->layer_norm_epsilon_default ? " (config.json has no layer_norm_epsilon: transformers' default)" : "",
            4 * t->C);
    fprintf(f, "  mask       causal: query i sees keys j <= i (−∞ above the diagonal, weight 0)\n");
    if (t->c->scale_value[0]) /* read by its truth, as transformers reads it: the value said */
        fprintf(f, "  scale      %s (config.json's scale_attn_weights is %s, which transformers reads as %s%s)\n",
                t->c->scale ? "1/√d_k" : "OFF", t->c->scale_value, t->c->scale ? "true" : "false",
                t->c->scale ? "" : ": no ÷√d_k");
    else
        fprintf(f, "  scale      %s\n", t->c->scale ? "1/√d_k" : "OFF (the model was trained without ÷√d_k)");
    fprintf(f, "  heads      every head of every layer is kept; nothing is averaged over heads\n");
    fprintf(f, "  kernel     %s\n\n", av_kernel_name(t->c->kernel));
}

/* Root mean square of the rows of x (T, C), averaged over rows. */
static double rms(const float *x, int T, int C) {
    double acc = 0.0;
    for (size_t i = 0; i < (size_t)T * C; i++) acc += (double)x[i] * x[i];
    return sqrt(acc / ((double)T * C));
}

/* io (64 bytes) = "rms in → rms out" of layer l's residual stream, 3 significant digits each. */
static void rms_in_out(char io[64], const tctx *t, int l) {
    int T = t->T, C = t->C;
    char in[32], out[32];
    snprintf(io, 64, "%s → %s", av_sig_text(in, rms(t->r->a.hidden + (size_t)l * T * C, T, C), 3),
             av_sig_text(out, rms(t->r->a.hidden + (size_t)(l + 1) * T * C, T, C), 3));
}

/* Layer l: mean weight on the first token (queries i >= 1), and the head
 * with the largest mean weight on the previous token. */
static void layer_marks(const tctx *t, int l, double *first, int *prev_head, double *prev_w) {
    int T = t->T, H = t->H;
    const float *att = t->r->a.att + (size_t)l * H * T * T;
    double f0 = 0.0;
    *prev_head = 0, *prev_w = 0.0;
    for (int h = 0; h < H; h++) {
        double pv = 0.0;
        for (int i = 1; i < T; i++) {
            f0 += att[((size_t)h * T + i) * T];
            pv += att[((size_t)h * T + i) * T + i - 1];
        }
        pv = T > 1 ? pv / (T - 1) : 0.0;
        if (pv > *prev_w) *prev_w = pv, *prev_head = h;
    }
    *first = T > 1 ? f0 / ((double)H * (T - 1)) : 1.0;
}

/* The table of layers under step [3] of the GPT-2 and the Llama/Qwen2 trace, at a step's indent of 21: for each
 * layer l < t->L, its rms "in → out" (rms_in_out), its mean weight of queries 1..T−1 on token 0 and its
 * previous-token head with that mean weight (layer_marks), "—" for both with one token; layer t->r->layer in bold;
 * then one line of note for each column, broken at a terminal's width (av_term_wrap), not by hand. The rms column
 * is as wide as its widest "in → out" (its "→" is 3 bytes, 1 column) and the columns are 3 spaces apart, so that
 * the table fits an 80-column terminal while that is at most 16 columns ("rms(x): in → out" in 22 and
 * "on 1st token" in 15 took 85, the Llama trace's with a fifth column "RoPE shift: worst |ΔS|" 111). Writes t->f. */
static void layers_table(const tctx *t) {
    FILE *f = t->f;
    int T = t->T;
    int io_w = 13; /* "rms: in → out" */
    for (int l = 0; l < t->L; l++) {
        char io[64];
        rms_in_out(io, t, l);
        if ((int)strlen(io) - 2 > io_w) io_w = (int)strlen(io) - 2;
    }
    fprintf(f, "%s%-7s %-*s   %-12s %s\n", ind, "layer", io_w + 2, "rms: in → out", "on token 0", "previous-token head");
    for (int l = 0; l < t->L; l++) {
        double first, pw;
        int ph;
        layer_marks(t, l, &first, &ph, &pw);
        char io[64];
        rms_in_out(io, t, l);
        if (T == 1) /* no query 1..T−1: the means were of nothing ("1.00", "head 0 (0.00)"); "—" is 3 bytes, 1 column */
            fprintf(f, "%s%s%-7d%s %-*s   %-14s —\n", ind, l == t->r->layer ? av_bold(t->color) : "", l,
                    l == t->r->layer ? av_reset(t->color) : "", io_w + 2, io, "—");
        else
            fprintf(f, "%s%s%-7d%s %-*s   %-12.2f head %d (%.2f)\n", ind, l == t->r->layer ? av_bold(t->color) : "", l,
                    l == t->r->layer ? av_reset(t->color) : "", io_w + 2, io, first, ph, pw);
    }
    if (T == 1) fprintf(f, "%s(one token: no query has a token before it, so both marks are —)\n", ind);
    fprintf(f, "%s(rms: root mean square of the residual stream x, into and out of the layer;\n", ind);
    fprintf(f, "%s on token 0: mean weight of queries 1..T−1 on key 0, the first token;\n", ind);
    fprintf(f, "%s previous-token head: the head whose queries put the most weight on the token just before them, with "
            "that mean weight)\n", ind);
}

static void embed_and_layers(const tctx *t) {
    FILE *f = t->f;
    int T = t->T, C = t->C;
    stage(t, "[1]", "tokenize");
    fprintf(f, "UTF-8 text → %d token id%s (pre-tokenize, bytes → symbols, merges applied by rank)\n", T, T == 1 ? "" : "s");
    print_ids(f, t->r->ids, T);
    stage(t, "[2]", "embed");
    if (t->c->positions == AV_POS_LEARNED)
        fprintf(f, "x = wte[token] + wpe[position]    (%d, %d) + (%d, %d) → (%d, %d)   wte (%d, %d), wpe (%d, %d)\n", T,
                C, T, C, T, C, t->V, C, t->c->n_positions, C);
    else
        fprintf(f, "x = wte[token]%s          (%d, %d)   wte (%d, %d)\n",
                t->c->positions == AV_POS_SINUSOIDAL ? " + PE" : "", T, C, t->V, C);
    stage(t, "[3]", "layers");
    fprintf(f, "%d block%s, each (%d, %d) → (%d, %d); attention weights (H, T, T) = (%d, %d, %d) per layer\n", t->L,
            t->L == 1 ? "" : "s", T, C, T, C, t->H, T, T);
    layers_table(t);
}

/* Layer L, step by step: LayerNorm, the attention stages, residual, MLP. */
static void layer_detail(const tctx *t, const av_model *v) {
    FILE *f = t->f;
    int T = t->T, C = t->C, H = t->H, D = t->D, l = t->r->layer, pre = t->c->norm == AV_NORM_PRE;
    char n[16];
    fprintf(f, "\n      layer %d of %d, step by step%s\n", l, t->L, l == t->L - 1 ? " (the last; --layer L picks another)" : "");
    snprintf(n, sizeof n, "[%d.1]", l);
    stage(t, n, pre ? "ln_1" : "input");
    if (pre) fprintf(f, "h = (x − mean)/√(var + ε)·γ + β per row      (%d, %d) → (%d, %d)\n", T, C, T, C);
    else fprintf(f, "h = x (post-LN: the attention reads the residual stream)   (%d, %d)\n", T, C);
    snprintf(n, sizeof n, "[%d.2]", l);
    stage(t, n, "project");
    fprintf(f, "[Q | K | V] = h·W_attn + b_attn   (%d, %d)·(%d, %d) → (%d, %d)   attn.c_attn, Conv1D (in, out)\n", T, C, C,
            3 * C, T, 3 * C);
    char vq[32], vk[32];
    fprintf(f, "%sQ, K, V = columns 0…%d, %d…%d, %d…%d; measured var(Q) = %s, var(K) = %s\n", ind, C - 1, C,
            2 * C - 1, 2 * C, 3 * C - 1, av_fmt_var(vq, v->var_q), av_fmt_var(vk, v->var_k));
    snprintf(n, sizeof n, "[%d.3]", l);
    stage(t, n, "split heads");
    fprintf(f, "(%d, %d) → (%d, %d, %d) → (%d, %d, %d)   head h takes columns h·%d … h·%d+%d%s\n", T, C, T, H, D, H, T, D,
            D, D, D - 1, t->c->positions == AV_POS_ROPE ? "; then RoPE on Q, K" : "");
    snprintf(n, sizeof n, "[%d.4]", l);
    stage(t, n, "scores");
    fprintf(f, "S = Q·Kᵀ%s   (%d, %d, %d)·(%d, %d, %d) → (%d, %d, %d)\n", t->c->scale ? "/√d_k" : " (no scale)", H, T, D,
            H, D, T, H, T, T);
    char raw[32], scaled[32];
    fprintf(f, "%smeasured: var(Q·Kᵀ) = %s, var(Q·Kᵀ/√d_k) = %s (theory for independent unit-variance q, k: d_k and 1)\n", ind,
            av_sig_text(raw, v->var_raw, 4), av_sig_text(scaled, v->var_scaled, 4));
    snprintf(n, sizeof n, "[%d.5]", l);
    stage(t, n, "mask");
    fprintf(f, "causal: S[i, j] = −∞ for j > i; %zu of %d (query, key) pair%s masked\n", v->masked_count, T * T,
            T == 1 ? "" : "s"); /* one token: "0 of 1 (query, key) pairs" */
    snprintf(n, sizeof n, "[%d.6]", l);
    stage(t, n, "softmax");
    fprintf(f, "A = softmax(S) along keys       (%d, %d, %d)   %s✓%s rows sum to 1: worst |Σ_j A[i,j] − 1| = %.2e\n",
            H, T, T, av_green(t->color), av_reset(t->color), v->worst_row_dev);
    snprintf(n, sizeof n, "[%d.7]", l);
    stage(t, n, "weighted sum");
    fprintf(f, "O_h = A_h·V_h, concat           (%d, %d, %d)·(%d, %d, %d) → (%d, %d, %d) → (%d, %d)\n", H, T, T, H, T, D,
            H, T, D, T, C);
    snprintf(n, sizeof n, "[%d.8]", l);
    stage(t, n, "output");
    fprintf(f, "y = concat·W_O + b_O            (%d, %d)·(%d, %d) → (%d, %d)   attn.c_proj\n", T, C, C, C, T, C);
    snprintf(n, sizeof n, "[%d.9]", l);
    stage(t, n, "residual");
    fprintf(f, "x ← x + y%s                     (%d, %d) + (%d, %d) → (%d, %d)\n", pre ? "" : ", then ln_1", T, C, T, C,
            T, C);
    snprintf(n, sizeof n, "[%d.10]", l);
    stage(t, n, pre ? "ln_2" : "MLP input");
    if (pre) fprintf(f, "h = LayerNorm_2(x)   (%d, %d) → (%d, %d)\n", T, C, T, C);
    else fprintf(f, "h = x (post-LN)   (%d, %d)\n", T, C);
    snprintf(n, sizeof n, "[%d.11]", l);
    stage(t, n, "MLP");
    fprintf(f, "m = GELU(h·W_fc + b_fc)·W_proj + b_proj   (%d, %d)·(%d, %d) → (%d, %d) → (%d, %d)\n", T, C, C, 4 * C, T,
            4 * C, T, C);
    fprintf(f, "%sGELU(u) = 0.5·u·(1 + tanh(√(2/π)·(u + 0.044715·u³)))   mlp.c_fc, mlp.c_proj\n", ind);
    snprintf(n, sizeof n, "[%d.12]", l);
    stage(t, n, "residual");
    char r3[32];
    fprintf(f, "x ← x + m%s                     (%d, %d) + (%d, %d) → (%d, %d)   rms(x) = %s\n", pre ? "" : ", then ln_2",
            T, C, T, C, T, C, av_sig_text(r3, rms(t->r->a.hidden + (size_t)(l + 1) * T * C, T, C), 3));
}

/* The top-k list's probabilities, p = softmax(z[T-1]) (r->top_p, largest first; -1 past the last): "%.4f"
 * (0.0512), or every one in scientific notation with 4 digits after the point, as numpy and PyTorch print small
 * probabilities (1.1400e-04), when "%.4f" would print two different p's alike or a p that is not 0 as 0.0000, so
 * the ranking can be read: a random tiny GPT-2 or Llama printed "p = 0.0001" five times, and a trained toy model
 * "1. p = 1.0000" over four "p = 0.0000". Writes the text of rank k into buf (32 bytes); returns buf. */
static const char *top_p_text(char buf[32], const av_gpt2run *r, int k) {
    int sci = 0;
    char a[32], b[32];
    for (int i = 0; i < AV_GPT2RUN_TOPK && r->top_id[i] >= 0 && !sci; i++) {
        snprintf(a, sizeof a, "%.4f", r->top_p[i]);
        if (r->top_p[i] > 0 && !strcmp(a, "0.0000")) sci = 1;
        for (int j = 0; j < i && !sci; j++) {
            snprintf(b, sizeof b, "%.4f", r->top_p[j]);
            if (r->top_p[j] != r->top_p[i] && !strcmp(a, b)) sci = 1;
        }
    }
    snprintf(buf, 32, sci ? "%.4e" : "%.4f", r->top_p[k]);
    return buf;
}

static void head_out(const tctx *t, const av_tokens *labels) {
    FILE *f = t->f;
    int T = t->T, C = t->C, V = t->V;
    fprintf(f, "\n");
    stage(t, "[4]", "ln_f");
    fprintf(f, "h = LayerNorm_f(x)                (%d, %d) → (%d, %d)\n", T, C, T, C);
    stage(t, "[5]", "logits");
    fprintf(f, "z = h·wteᵀ                        (%d, %d)·(%d, %d) → (%d, %d)   tied to the token embedding\n", T, C, C,
            V, T, V);
    stage(t, "[6]", "next token");
    fprintf(f, "p = softmax(z[%d]) after \"%s\": the top %d of %d\n", T - 1, labels->tok[T - 1], AV_GPT2RUN_TOPK, V);
    for (int k = 0; k < AV_GPT2RUN_TOPK && t->r->top_id[k] >= 0; k++) {
        char label[AV_BPE_LABEL_MAX];
        int id = t->r->top_id[k];
        av_gpt2run_label(label, sizeof label, t->r, id); /* "<id N>" past the tokenizer's ids */
        char p[32];
        fprintf(f, "%s%d. p = %s   %s   (id %d)\n", ind, k + 1, top_p_text(p, t->r, k), label, id);
    }
}

/* ---------------------------------------------------------------------------- Llama / Qwen2 folders */

static void llama_header(const tctx *t, const av_tokens *labels) {
    const av_llama *m = t->r->llama;
    const av_llama_config *c = &m->cfg;
    FILE *f = t->f;
    int KVH = c->n_kv_head, G = c->n_head / KVH;
    fprintf(f, "%sattnviz %s%s: a %s forward pass, every layer and head, step by step\n", av_bold(t->color), AV_VERSION,
            av_reset(t->color), c->type == AV_LLAMA_QWEN2 ? "Qwen2" : "Llama");
    char dir[4096];
    fprintf(f, "  weights    model %s: %s in %d safetensors file%s, %s\n", shown_dir(t, dir, sizeof dir), m->dtype,
            m->n_shards,
            m->n_shards == 1 ? "" : "s", how_read(m->dtype, m->in_place));
    fprintf(f, "  tokens     ");
    av_trace_print_tokens(f, labels);
    fprintf(f, "\n             (tokenizer.json, %s%s; ␣ marks a space that belongs to the token)\n",
            av_hftok_kind_name(t->r->hftok), av_gpt2run_bos(t->r) >= 0 ? ", BOS put first" : "");
    print_byte_hint(f, labels);
    fprintf(f, "  T = %d   layers L = %d   d_model = %d   heads H = %d   K/V heads = %d   d_k = %d   d_ff = %d   vocab V = %d\n",
            t->T, t->L, t->C, t->H, KVH, t->D, c->n_inter, t->V);
    if (c->rope_theta_from)
        fprintf(f, "  positions  RoPE, rotate-half pairs (i, i + d_k/2), θ = %s = %.10g: attnviz's --rope-style half.\n",
                c->rope_theta_from, c->rope_theta);
    else /* transformers' LlamaConfig and Qwen2Config default */
        fprintf(f, "  positions  RoPE, rotate-half pairs (i, i + d_k/2), θ = %.10g (config.json has no rope_theta: "
                "transformers' default): attnviz's --rope-style half.\n", c->rope_theta);
    /* one line for each sentence, broken at a terminal's width (av_term_wrap), not by hand: broken after "Hugging"
     * and "gives the" as well, the sentence went on raggedly at 80 columns, "(--rope-style interleaved); Hugging"
     * then "Face's conversion ... gives the" then "cheaper rotate_half gives the" */
    fprintf(f, "             Meta's LLaMA code rotates interleaved pairs (2i, 2i+1) (--rope-style interleaved); Hugging "
               "Face's conversion permuted the rows of W_Q and W_K so that the cheaper rotate_half gives the same scores, "
               "so every Hugging Face Llama/Qwen2 checkpoint is stored for the half layout\n");
    if (G == 1) /* Llama 2 7B's num_key_value_heads 32 = num_attention_heads: "1 query heads share each of the 32 K/V
                 * heads (query 0–0 → K/V 0, ...)" called plain multi-head attention grouped (a numbers pass) */
        fprintf(f, "  heads      multi-head attention: each of the %d query heads has its own K/V head\n"
                   "             (num_key_value_heads = num_attention_heads = %d: no grouped-query sharing)\n", t->H, KVH);
    else if (KVH == 1) /* "6 query heads share each of the 1 K/V heads" (a numbers pass): Shazeer (2019) named it */
        fprintf(f, "  MQA        multi-query attention (Shazeer 2019): all %d query heads share the one K/V head\n"
                   "             (num_key_value_heads = 1: grouped-query attention with a single group)\n", t->H);
    else {
        fprintf(f, "  GQA        grouped-query attention: %d query heads share each of the %d K/V heads (", G, KVH);
        for (int k = 0; k < KVH && k < 4; k++) fprintf(f, "%squery %d–%d → K/V %d", k ? ", " : "", k * G, k * G + G - 1, k);
        fprintf(f, "%s)\n", KVH > 4 ? ", …" : "");
    }
    /* a default ε is marked as a default θ is: "RMSNorm ε = 1e-06" alone read as config.json's (a Llama user's pass) */
    fprintf(f, "  block      pre-norm: x ← x + attn(RMSNorm(x)), x ← x + SwiGLU(RMSNorm(x)); RMSNorm ε = %g%s%s\n",
            c->rms_norm_eps, c->rms_norm_eps_default ? " (config.json has no rms_norm_eps: transformers' default)" : "",
            c->qkv_bias ? "; q, k, v have biases (Qwen2)" : "");
    fprintf(f, "  mask       causal: query i sees keys j <= i (−∞ above the diagonal, weight 0)\n");
    fprintf(f, "  scale      1/√d_k;  kernel %s\n\n", av_kernel_name(t->c->kernel));
}

/* The worst |ΔS| of layer l over its heads, and which head. */
static double rope_worst(const tctx *t, int l, int *head) {
    double w = -1;
    for (int h = 0; h < t->H; h++)
        if (t->r->rope_dS[(size_t)l * t->H + h] > w) w = t->r->rope_dS[(size_t)l * t->H + h], *head = h;
    return w;
}

static void llama_layers(const tctx *t) {
    FILE *f = t->f;
    int T = t->T, C = t->C, Ts = T < 64 ? T : 64;
    stage(t, "[1]", "tokenize");
    fprintf(f, "UTF-8 text → %d token id%s (%s)\n", T, T == 1 ? "" : "s", av_hftok_kind_name(t->r->hftok));
    print_ids(f, t->r->ids, T);
    stage(t, "[2]", "embed");
    fprintf(f, "x = embed_tokens[token]          (%d, %d)   embed_tokens (%d, %d); no position vector: RoPE acts in every layer\n",
            T, C, t->V, C);
    stage(t, "[3]", "layers");
    fprintf(f, "%d block%s, each (%d, %d) → (%d, %d); attention weights (H, T, T) = (%d, %d, %d) per layer\n", t->L,
            t->L == 1 ? "" : "s", T, C, T, C, t->H, T, T);
    layers_table(t);
    /* The RoPE shift of each layer, a table of its own: as a fifth column of the table of layers it took the
     * header to 111 columns with its indent of 21 */
    double all = 0;
    for (int l = 0; l < t->L; l++) {
        int wh = 0;
        all = fmax(all, rope_worst(t, l, &wh));
    }
    /* one token is one position: "the first 1 token run again at positions 1000…1000" (a teacher's pass) */
    if (Ts == 1)
        fprintf(f, "%sRoPE evidence on the model's own heads: the first token runs again at position %d:\n", ind,
                AV_LLAMARUN_SHIFT);
    else
        fprintf(f, "%sRoPE evidence on the model's own heads: the first %d tokens run again at positions %d…%d:\n", ind,
                Ts, AV_LLAMARUN_SHIFT, AV_LLAMARUN_SHIFT + Ts - 1);
    fprintf(f, "%s%-7s %s\n", ind, "layer", "RoPE shift: worst |ΔS|");
    for (int l = 0; l < t->L; l++) {
        int wh = 0;
        double dS = rope_worst(t, l, &wh);
        fprintf(f, "%s%s%-7d%s %.1e (head %d)\n", ind, l == t->r->layer ? av_bold(t->color) : "", l,
                l == t->r->layer ? av_reset(t->color) : "", dS, wh);
    }
    fprintf(f, "%severy layer's and head's scores S = q·kᵀ/√d_k stay the same: worst |ΔS| = %.1e (float32 rounding),\n", ind, all);
    fprintf(f, "%sbecause a rotation by angle m·θ_i on q and n·θ_i on k leaves only (m − n)·θ_i in q·k (RoFormer §3.2, eq. 16)\n", ind);
}

/* Layer L of a Llama-family model, step by step. */
static void llama_detail(const tctx *t, const av_model *v) {
    FILE *f = t->f;
    const av_llama_config *c = &t->r->llama->cfg;
    int T = t->T, C = t->C, H = t->H, D = t->D, KVH = c->n_kv_head, I = c->n_inter, l = t->r->layer;
    char n[16];
    fprintf(f, "\n      layer %d of %d, step by step%s\n", l, t->L, l == t->L - 1 ? " (the last; --layer L picks another)" : "");
    snprintf(n, sizeof n, "[%d.1]", l), stage(t, n, "RMSNorm");
    fprintf(f, "h = x/√(mean(x²) + ε)·γ per row   (%d, %d) → (%d, %d)   input_layernorm\n", T, C, T, C);
    snprintf(n, sizeof n, "[%d.2]", l), stage(t, n, "project");
    fprintf(f, "Q = h·W_Qᵀ%s (%d, %d)·(%d, %d) → (%d, %d);  K, V = h·W_Kᵀ, h·W_Vᵀ → (%d, %d) each\n", c->qkv_bias ? " + b" : "",
            T, C, C, C, T, C, T, KVH * D);
    char vq[32], vk[32];
    fprintf(f, "%sq_proj, k_proj, v_proj are nn.Linear (out, in); measured var(Q) = %s, var(K) = %s\n", ind,
            av_fmt_var(vq, v->var_q), av_fmt_var(vk, v->var_k));
    snprintf(n, sizeof n, "[%d.3]", l), stage(t, n, "heads, RoPE");
    if (KVH == H)
        fprintf(f, "Q, K, V → (%d, %d, %d) each; RoPE (half, θ = %.10g) on Q and K; query head h reads K/V head h\n", H, T,
                D, c->rope_theta);
    else {
        /* the line breaks between the sentences, not after "query head h" */
        fprintf(f, "Q → (%d, %d, %d), K, V → (%d, %d, %d); RoPE (half, θ = %.10g) on Q and K\n", H, T, D, KVH, T, D,
                c->rope_theta);
        if (KVH == 1)
            fprintf(f, "%sK, V repeated: query head h reads K/V head 0 (MQA: h/%d = 0), so K, V become (%d, %d, %d)\n", ind,
                    H, H, T, D);
        else
            fprintf(f, "%sK, V repeated: query head h reads K/V head h/%d (GQA), so K, V become (%d, %d, %d)\n", ind,
                    H / KVH, H, T, D);
    }
    snprintf(n, sizeof n, "[%d.4]", l), stage(t, n, "scores");
    char vs[32];
    fprintf(f, "S = Q·Kᵀ/√d_k   (%d, %d, %d)·(%d, %d, %d) → (%d, %d, %d); var(Q·Kᵀ/√d_k) = %s\n", H, T, D, H, D, T, H, T, T,
            av_sig_text(vs, v->var_scaled, 4));
    snprintf(n, sizeof n, "[%d.5]", l), stage(t, n, "mask");
    fprintf(f, "causal: S[i, j] = −∞ for j > i; %zu of %d (query, key) pair%s masked\n", v->masked_count, T * T,
            T == 1 ? "" : "s"); /* one token: "0 of 1 (query, key) pairs" */
    snprintf(n, sizeof n, "[%d.6]", l), stage(t, n, "softmax");
    fprintf(f, "A = softmax(S) along keys       (%d, %d, %d)   %s✓%s rows sum to 1: worst |Σ_j A[i,j] − 1| = %.2e\n", H, T,
            T, av_green(t->color), av_reset(t->color), v->worst_row_dev);
    snprintf(n, sizeof n, "[%d.7]", l), stage(t, n, "weighted sum");
    fprintf(f, "O_h = A_h·V_h, concat           (%d, %d, %d)·(%d, %d, %d) → (%d, %d)\n", H, T, T, H, T, D, T, C);
    snprintf(n, sizeof n, "[%d.8]", l), stage(t, n, "output");
    fprintf(f, "y = concat·W_Oᵀ                 (%d, %d)·(%d, %d) → (%d, %d)   o_proj, no bias\n", T, C, C, C, T, C);
    snprintf(n, sizeof n, "[%d.9]", l), stage(t, n, "residual");
    fprintf(f, "x ← x + y                       (%d, %d) + (%d, %d) → (%d, %d)\n", T, C, T, C, T, C);
    snprintf(n, sizeof n, "[%d.10]", l), stage(t, n, "RMSNorm");
    fprintf(f, "h = RMSNorm(x)·γ                (%d, %d) → (%d, %d)   post_attention_layernorm\n", T, C, T, C);
    snprintf(n, sizeof n, "[%d.11]", l), stage(t, n, "SwiGLU MLP");
    fprintf(f, "m = (SiLU(h·W_gateᵀ) ⊙ h·W_upᵀ)·W_downᵀ   (%d, %d) → (%d, %d) → (%d, %d);  SiLU(u) = u/(1 + e^−u)\n", T, C,
            T, I, T, C);
    snprintf(n, sizeof n, "[%d.12]", l), stage(t, n, "residual");
    char r3[32];
    fprintf(f, "x ← x + m                       (%d, %d) + (%d, %d) → (%d, %d)   rms(x) = %s\n", T, C, T, C, T, C,
            av_sig_text(r3, rms(t->r->a.hidden + (size_t)(l + 1) * T * C, T, C), 3));
    fprintf(f, "%sRoPE shift, this layer's heads: worst |ΔS| =", ind);
    for (int h = 0; h < H; h++) fprintf(f, " %.0e", t->r->rope_dS[(size_t)l * H + h]);
    fprintf(f, "\n");
}

static void llama_out(const tctx *t, const av_tokens *labels) {
    FILE *f = t->f;
    int T = t->T, C = t->C, V = t->V;
    fprintf(f, "\n");
    stage(t, "[4]", "norm");
    fprintf(f, "h = RMSNorm(x)·γ                  (%d, %d)   model.norm\n", T, C);
    stage(t, "[5]", "logits");
    fprintf(f, "z = h·W_lmᵀ                       (%d, %d)·(%d, %d) → (%d, %d)   %s\n", T, C, C, V, T, V,
            t->r->llama->cfg.tie_word_embeddings ? "tied to embed_tokens" : "lm_head");
    stage(t, "[6]", "next token");
    fprintf(f, "p = softmax(z[%d]) after \"%s\": the top %d of %d\n", T - 1, labels->tok[T - 1], AV_GPT2RUN_TOPK, V);
    for (int k = 0; k < AV_GPT2RUN_TOPK && t->r->top_id[k] >= 0; k++) {
        char label[AV_BPE_LABEL_MAX];
        int id = t->r->top_id[k];
        av_gpt2run_label(label, sizeof label, t->r, id); /* "<id N>" past the tokenizer's ids */
        char p[32];
        fprintf(f, "%s%d. p = %s   %s   (id %d)\n", ind, k + 1, top_p_text(p, t->r, k), label, id);
    }
}

void av_gpt2run_trace(FILE *f, const av_gpt2run *r, const av_model *view, const av_tokens *labels, int color) {
    const av_gpt2_config *c = &r->g.cfg;
    tctx t = {f, color, r, c, r->T, c->n_embd, c->n_head, c->n_embd / c->n_head, c->vocab_size, c->n_layer};
    if (r->llama) {
        llama_header(&t, labels);
        llama_layers(&t);
        llama_detail(&t, view);
        llama_out(&t, labels);
        return;
    }
    header(&t, labels);
    embed_and_layers(&t);
    layer_detail(&t, view);
    head_out(&t, labels);
}
