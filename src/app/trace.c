/* trace.c - the step-by-step trace (see trace.h). */
#include "app/trace.h"

#include "app/cli.h"
#include "app/teach.h"
#include "app/term.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/parallel.h"
#include "base/utf8.h"
#include "nn/attention_blas.h"
#include "nn/flash.h"

static const char *B(const av_trace *t) { return av_bold(t->color); }
static const char *G(const av_trace *t) { return av_green(t->color); }
static const char *Y(const av_trace *t) { return av_yellow(t->color); }
static const char *R(const av_trace *t) { return av_reset(t->color); }

/* "[n] name" in a fixed-width column, bold on colour. */
static void stage(const av_trace *t, int n, const char *name) {
    char num[16];
    snprintf(num, sizeof num, "[%d]", n);
    fprintf(t->f, "%s%4s %-13s%s ", B(t), num, name, R(t));
}

void av_mask_desc(char *buf, size_t n, const av_config *c, int has_user_mask, const char *file) {
    int pads = c->T - c->n_real;
    char pad[64] = "", user[88] = "attn_mask file"; /* with pad, within a caller's 128 bytes */
    if (pads > 0) snprintf(pad, sizeof pad, "key padding (%d <pad>)", pads);
    if (file && !strcmp(file, "-")) snprintf(user, sizeof user, "attn_mask from standard input");
    else if (file) { /* its last part, as a figure shows it: "--attn-mask m.npy" and "n.npy" drew the same title */
        char last[1024], head[32], a[34], b[34]; /* a, b: 24 bytes and their closers (av_utf8_shown_name's room) */
        av_path_split(NULL, 0, last, sizeof last, file);
        size_t len = strlen(last), h = 24, t = len > 24 ? len - 24 : 0;
        if (len <= 50) { /* whole, as av_utf8_shown_name shows it (controls escaped, bidi closed) */
            av_utf8_shown_name(last, user + 15, sizeof user - 15);
            memcpy(user, "attn_mask file ", 15);
        } else { /* its start and its end, each shown so, "…" between: a 64-byte start alone named two files
                  * "…第一版.npy" and "…第二版.npy" alike, with no mark of the cut, and cut off its bidi closers
                  * (from a review of the change) */
            while (h > 0 && ((unsigned char)last[h] & 0xC0) == 0x80) h--; /* last[h] starts the cut-out part */
            while (t < len && ((unsigned char)last[t] & 0xC0) == 0x80) t++; /* last[t] starts the kept end */
            memcpy(head, last, h);
            head[h] = 0;
            av_utf8_shown_name(head, a, sizeof a);
            av_utf8_shown_name(last + t, b, sizeof b);
            snprintf(user, sizeof user, "attn_mask file %s\u2026%s", a, b);
        }
    }
    snprintf(buf, n, "%s%s%s%s%s", c->causal ? "causal" : "", c->causal && pads ? " + " : "", pad,
             (c->causal || pads) && has_user_mask ? " + " : "", has_user_mask ? user : "");
    if (!*buf) snprintf(buf, n, "none");
}

/* Mask entry (i, j) of c's causal mask, key padding and user (T, T) attn_mask
 * (1 = masked, or NULL): 1 when query i may not see key j. */
static int masked_at(const av_config *c, const unsigned char *user, int i, int j) {
    return (c->causal && j > i) || j >= c->n_real || (user && user[(size_t)i * c->T + j]);
}

/* With --positions none, what tells word order: the masks (causal, user (T, T)
 * attn_mask with 1 = masked, or NULL) that change when the n_real words are
 * reordered, so that reordering them changes the weights instead of only
 * permuting them. Returns "the causal mask", "the --attn-mask file" or "the
 * causal mask and the --attn-mask file" (those given), or NULL when the whole
 * mask is the same under every reordering of the words: no mask, key padding
 * only, one word, or a mask whose words' block has one value on its diagonal
 * and one off it, and whose <pad> rows and columns are each constant over the
 * words (e.g. a causal mask with an --attn-mask hiding every key before the
 * query, which together hide every other word). O(T²) with a user mask. */
static const char *order_masks(const av_config *c, const unsigned char *user) {
    int T = c->T, n = c->n_real;
    if ((!c->causal && !user) || n < 2) return NULL;
    int diag = masked_at(c, user, 0, 0), off = masked_at(c, user, 0, 1), ordered = 0;
    for (int i = 0; i < T && !ordered; i++)
        for (int j = 0; j < T && !ordered; j++) {
            int m = masked_at(c, user, i, j);
            if (i < n && j < n) ordered = m != (i == j ? diag : off);
            else if (i < n) ordered = m != masked_at(c, user, 0, j); /* a <pad> column */
            else if (j < n) ordered = m != masked_at(c, user, i, 0); /* a <pad> row */
        }
    if (!ordered) return NULL;
    return c->causal && user ? "the causal mask and the --attn-mask file"
           : c->causal       ? "the causal mask"
                             : "the --attn-mask file";
}

void av_heads_phrase(char *buf, size_t n, int H) {
    if (H == 1) snprintf(buf, n, "the one head");
    else if (H == 2) snprintf(buf, n, "both heads");
    else snprintf(buf, n, "all %d heads", H);
}

void av_positions_desc(char *buf, size_t n, const av_config *c) {
    if (c->positions == AV_POS_ROPE) snprintf(buf, n, "RoPE (%s)", av_rope_style_name(c->rope_style));
    else snprintf(buf, n, "%s", av_positions_name(c->positions));
}

void av_positions_title(char *buf, size_t n, const av_config *c, int model_layer) {
    /* `--positions rope --rope-base 100` drew "RoPE (interleaved)" in every title, as base 10000 does, though the
     * weights differ (a teacher's pass) */
    if (!model_layer && c->positions == AV_POS_ROPE && c->rope_base > 1 && c->rope_base != 10000.0)
        snprintf(buf, n, "RoPE (%s, base %g)", av_rope_style_name(c->rope_style), c->rope_base);
    else av_positions_desc(buf, n, c);
}

static void print_row(FILE *f, const float *row, int cols, int precision, int sci, int width,
                      const unsigned char *masked) {
    int edge = cols > 8 ? 3 : cols;
    char buf[64];
    fputc('[', f);
    for (int j = 0; j < cols; j++) {
        if (cols > 8 && j == edge) { fputs(" ...", f); j = cols - edge; }
        if (j > 0) fputc(' ', f);
        if (masked && masked[j]) fprintf(f, "%*s", width, "-inf");
        else {
            av_format_number(buf, sizeof buf, row[j], precision, sci);
            fprintf(f, "%*s", width, buf);
        }
    }
    fputc(']', f);
}

/* numpy's choice for one matrix, made over the entries av_print_matrix shows (the 3 edge rows/columns of a side
 * larger than 8; masked ones left out) so every column shares one format: scientific when the largest finite
 * |value| is ≥ 1e8 (3e12 in fixed point was 3000000053248.0000, wider than its column, and a -2.5e-9 beside it
 * printed as -0.0000) or when it is below 1e-4 (av_numpy_sci: every entry would print as 0.0000), fixed point
 * otherwise with *digits digits after the point (av_numpy_digits: precision, or more when the largest would
 * print as 0, or when the largest of one shown row would: --precision 0 printed the weights 0.32 0.04 0.19 0.45
 * as "[0 0 0 0]" right under "every unmasked row sums to 1", now [0.3 0.0 0.2 0.5]); as np.set_printoptions(suppress=True), a matrix of ordinary values keeps fixed point whatever its
 * smallest entry. *width is the widest entry, at least *digits + 4 characters (what fixed point of |value| < 100
 * takes), so the columns line up. */
static void matrix_format(const float *a, int rows, int cols, int precision, const unsigned char *masked, int *sci,
                          int *digits, int *width) {
    double big = 0.0;
    int row_digits = precision; /* the most av_numpy_digits of any shown row's largest |value| */
    char buf[64];
    *sci = 0;
    *digits = precision;
    *width = precision + 4;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) *width = *digits + 4;
        for (int i = 0; i < rows; i++) {
            if (rows > 8 && i == 3) i = rows - 3;
            double row_big = 0.0;
            for (int j = 0; j < cols; j++) {
                if (cols > 8 && j == 3) j = cols - 3;
                size_t at = (size_t)i * cols + j;
                if (masked && masked[at]) continue;
                double v = fabs((double)a[at]);
                if (pass == 0 && isfinite(v) && v > big) big = v;
                if (pass == 0 && isfinite(v) && v > row_big) row_big = v;
                if (pass == 1) {
                    int len = av_format_number(buf, sizeof buf, a[at], *digits, *sci);
                    if (len > *width) *width = len;
                }
            }
            if (pass == 0 && av_numpy_digits(row_big, precision) > row_digits)
                row_digits = av_numpy_digits(row_big, precision);
        }
        *sci = av_numpy_sci(big);
        if (!*sci) *digits = av_numpy_digits(big, precision);
        if (!*sci && row_digits > *digits) *digits = row_digits;
    }
}

void av_print_matrix(FILE *f, const char *name, const float *a, int rows, int cols, int precision,
                     const unsigned char *masked) {
    int sci, digits, width;
    matrix_format(a, rows, cols, precision, masked, &sci, &digits, &width);
    fprintf(f, "      %s =\n      [", name);
    int edge = rows > 8 ? 3 : rows;
    for (int i = 0; i < rows; i++) {
        if (rows > 8 && i == edge) { fprintf(f, "\n        ..."); i = rows - edge; }
        if (i > 0) fprintf(f, "\n       ");
        print_row(f, a + (size_t)i * cols, cols, digits, sci, width, masked ? masked + (size_t)i * cols : NULL);
    }
    fprintf(f, "]\n");
}

void av_trace_print_tokens(FILE *f, const av_tokens *toks) {
    int n = toks->n, cut = n > AV_TRACE_ELIDE_PAST;
    for (int i = 0; i < n; i++) {
        if (cut && i == AV_TRACE_ELIDE_HEAD) {
            fprintf(f, " … (%d more) …", n - AV_TRACE_ELIDE_HEAD - AV_TRACE_ELIDE_TAIL);
            i = n - AV_TRACE_ELIDE_TAIL;
        }
        fprintf(f, "%s[%s]", i ? " " : "", toks->tok[i]);
    }
}

/* Which kernel runs stages 6..9, and what that means; in a file (tr->in_file) without the thread count: the
 * numbers are the same whatever the number of threads, and `taskset -c 0` or another machine's CPUs gave the
 * same command another --html page ("2 threads" / "1 thread"). */
/* why (96 bytes) = " (auto: T = 4 ≤ 64)" after the kernel's name when --kernel auto chose it (cli.c's
 * av_options_kernel: the exact loops up to AV_AUTO_REFERENCE_T tokens, then blas where the weights are needed,
 * else flash), else "": "kernel flash" on a 100-token --no-plot run and "kernel blas" on the same run with
 * figures did not say why they differed (the last note's list) */
static void kernel_why(char why[96], const av_trace *tr, av_kernel k, int T) {
    why[0] = 0;
    if (!tr->kernel_auto) return;
    const char *needs = tr->kernel_needs;
    if (k == AV_KERNEL_REFERENCE) snprintf(why, 96, " (auto: T = %d ≤ %d)", T, AV_AUTO_REFERENCE_T);
    else if (k == AV_KERNEL_BLAS && needs)
        snprintf(why, 96, " (auto: T = %d > %d, and %s need%s the attention weights)", T, AV_AUTO_REFERENCE_T,
                 needs, strcmp(needs, "figures") ? "s" : "");
    else if (k == AV_KERNEL_FLASH)
        snprintf(why, 96, " (auto: T = %d > %d, and nothing asked needs the attention weights)", T,
                 AV_AUTO_REFERENCE_T);
}

static void print_kernel(const av_trace *tr, av_kernel k, int T) {
    FILE *f = tr->f;
    char why[96];
    kernel_why(why, tr, k, T);
    char threads[32] = "";
    if (!tr->in_file)
        snprintf(threads, sizeof threads, "%d thread%s", av_get_threads(), av_get_threads() == 1 ? "" : "s");
    if (k == AV_KERNEL_FLASH)
        fprintf(f, "  kernel     flash%s: keys in tiles of %d with an online softmax (FlashAttention); never forms "
                   "(T, T); %s%ssgemm on OpenBLAS %s kernels\n",
                why, AV_FLASH_TILE, threads, threads[0] ? ", " : "", av_blas_core());
    else if (k == AV_KERNEL_BLAS)
        fprintf(f, "  kernel     blas%s: projections, Q·Kᵀ and A·V by sgemm (OpenBLAS %s kernels)%s%s;"
                   " keeps the (H, T, T) weights\n",
                why, av_blas_core(), threads[0] ? ", " : "", threads);
    else
        fprintf(f, "  kernel     reference%s: the plain loops of nn/attention.c, every sum in double\n", why);
}

/* Continuation indent under the formula column. */
static const char ind[] = "                   ";

/* The header: tokens, sizes, positions, mask, scale, seed, convention. */
static void print_header(const av_trace *tr, const av_model *m, const av_tokens *toks, const av_weights_source *ws,
                         const char *mask) {
    FILE *f = tr->f;
    const av_config *c = &m->cfg;
    int T = c->T, C = c->C, H = c->H, Dk = m->D;
    fprintf(f, "%sattnviz %s%s: scaled dot-product attention, softmax(Q·Kᵀ/√d_k)·V, step by step\n",
            B(tr), AV_VERSION, R(tr));
    fprintf(f, "  tokens     ");
    av_trace_print_tokens(f, toks);
    fprintf(f, "\n  T = %d", T);
    if (T != c->n_real) fprintf(f, " (%d real + %d <pad>)", c->n_real, T - c->n_real);
    fprintf(f, "   d_model = %d   heads H = %d   d_k = d_model/H = %d/%d = %d\n", C, H, C, H, Dk);
    if (c->positions == AV_POS_SINUSOIDAL)
        fprintf(f, "  positions  sinusoidal, added to X; sin/cos interleaved (dims 2i, 2i+1), Vaswani et al. 2017 §3.5\n");
    else if (c->positions == AV_POS_ROPE)
        fprintf(f, "  positions  RoPE, %s pairs %s, base θ = %.10g; rotates Q and K per head (RoFormer eq. 34%s)\n",
                av_rope_style_name(c->rope_style), c->rope_style == AV_ROPE_HALF ? "(i, i+d_k/2)" : "(2i, 2i+1)",
                c->rope_base, c->rope_style == AV_ROPE_HALF ? "; rotate-half as in GPT-NeoX" : "");
    else if (order_masks(c, m->user_mask)) /* `-p none --causal "I love you"` said attention could not tell word
                                             * order, but "you love I" gives other weights, not permuted ones */
        fprintf(f, "  positions  none: only %s tells word order (it hides keys by position)\n",
                order_masks(c, m->user_mask));
    else
        fprintf(f, "  positions  none: attention alone cannot tell word order\n");
    fprintf(f, "  mask       %s", mask);
    if (strcmp(mask, "none")) {
        fprintf(f, "  (masked = −∞ added before softmax → weight 0%s)\n", c->causal ? "; causal hides keys j > i" : "");
        fprintf(f, "             rule: a query whose keys are all masked gets all-zero weights and a zero output (never NaN)");
    }
    fprintf(f, "\n  scale      %s\n", c->scale ? "1/√d_k" : "OFF (--no-scale): scores are raw Q·Kᵀ");
    if (H > 1) fprintf(f, "  heads      each head is computed and drawn on its own; nothing is averaged over heads\n");
    fprintf(f, "  weights    %s", ws->text);
    if (ws->kind == AV_WEIGHTS_RANDOM) fprintf(f, ": X ~ N(0, 1) per token text, W ~ N(0, 1/d_model)");
    if (av_weights_are_random(ws))
        fprintf(f, "\n             random weights show how attention computes, not what a trained model attends to:\n"
                   "             a strong weight between two words here means nothing about the words");
    fputc('\n', f);
    print_kernel(tr, c->kernel, T);
    fprintf(f, "  convention row vectors, Q = X·W_Q with W_Q (d_model, d_model); PyTorch nn.Linear stores weight = W_Qᵀ\n\n");
}

/* [1] tokenize, [2] embed, [3] positions; [2] says where X came from (drawn
 * per token text, or a --weights folder's X.npy). Returns the next stage number. */
static int stages_input(const av_trace *tr, const av_model *m, const av_weights_source *ws, int n) {
    FILE *f = tr->f;
    const av_config *c = &m->cfg;
    int T = c->T, C = c->C, P = tr->precision;
    stage(tr, n++, "tokenize");
    fprintf(f, "UTF-8 text → %d token%s (spaces and punctuation split; one per Han or kana character)\n", c->n_real,
            c->n_real == 1 ? "" : "s");
    if (T != c->n_real) fprintf(f, "%s+ %d <pad> tokens up to --pad-to %d → T = %d\n", ind, T - c->n_real, T, T);

    stage(tr, n++, "embed");
    if (ws && ws->x_file[0]) { /* --weights DIR/X.npy: row i is token i's, whatever the word */
        char shown[sizeof ws->x_file + 64], homed[sizeof ws->x_file]; /* a control character in the folder's name
                                                                        * as <U+001B>, an RLO closed; a file in
                                                                        * $HOME from "~/", as the titles name it */
        av_path_from_home(homed, sizeof homed, ws->x_file);
        av_utf8_shown_name(homed, shown, sizeof shown);
        fprintf(f, "X = X.npy                         (%d, %d)   loaded from %s\n", T, C, shown);
        fprintf(f, "%srow i is token i's embedding as the file gives it (not drawn: no N(0,1) rule)\n", ind);
    } else {
        fprintf(f, "X = E[token]                      (%d, %d)   one N(0,1) vector per token text\n", T, C);
        /* the same token text, not word: 学习 is two tokens, 学 and 习, each with its own row */
        fprintf(f, "%sthe same token text gets the same row wherever it appears%s\n", ind,
                c->positions == AV_POS_NONE ? " (positions are off, so repeated tokens have identical rows)" : "");
    }
    if (tr->verbose) av_print_matrix(f, "X", m->X, T, C, P, NULL);

    if (c->positions == AV_POS_SINUSOIDAL) {
        stage(tr, n++, "positions");
        fprintf(f, "X ← X + PE                        (%d, %d) + (%d, %d) → (%d, %d)\n", T, C, T, C, T, C);
        fprintf(f, "%sPE(pos,2i) = sin(pos/10000^(2i/d_model)),  PE(pos,2i+1) = cos(pos/10000^(2i/d_model))\n", ind);
        if (tr->verbose) av_print_matrix(f, "PE", m->PE, T, C, P, NULL);
    } else if (c->positions == AV_POS_ROPE) {
        stage(tr, n, "positions");
        fprintf(f, "nothing added to X; RoPE rotates Q and K after the head split (step %d)\n", n + 3);
        n++;
    } else {
        stage(tr, n++, "positions");
        if (ws && ws->x_file[0]) /* X.npy's row i belongs to position i, not to a word */
            fprintf(f, "none: X is used as is; X.npy gives row i to token i whatever the word, so reordering\n"
                       "%sthe words changes only the labels, not X or the weights\n", ind);
        else if (order_masks(c, m->user_mask))
            fprintf(f, "none: X is used as is; shuffling the words would only permute the weights, but\n"
                       "%s%s hides keys by position, so reordering the words changes them\n", ind,
                    order_masks(c, m->user_mask));
        else
            fprintf(f, "none: X is used as is, so shuffling the words only permutes the weights\n");
    }
    return n;
}

/* 1 when name ("X", "W_Q") is one of the first n bytes of list, names
 * separated by ", " ("X, W_K, W_V, W_O"). */
static int in_name_list(const char *list, size_t n, const char *name) {
    size_t len = strlen(name);
    for (size_t at = 0; at < n; at += strspn(list + at, ", ")) {
        size_t k = strcspn(list + at, ",");
        if (k > n - at) k = n - at;
        if (k == len && !strncmp(list + at, name, len)) return 1;
        at += k;
    }
    return 0;
}

/* 1 when the tensor name ("X", "W_Q", "W_K") was drawn at random, so the
 * N(0, 1) embedding and N(0, 1/d_model) weight rule holds for it: no --weights
 * (ws NULL or random), a --dump of random weights read back unchanged (of a
 * run that loaded some files itself, only the tensors its source.txt calls
 * random: "X loaded from w; W_Q, W_K, W_V, W_O random (untrained, seed 42)"),
 * or a name in the drawn list ("X, W_K, W_V, W_O") of a folder holding only
 * some of the five files. 0 for a tensor a --weights folder gave. */
static int drawn_at_random(const av_weights_source *ws, const char *name) {
    if (!ws || ws->kind == AV_WEIGHTS_RANDOM) return 1;
    if (ws->random_origin) {
        /* `--weights x --dump d` with only X.npy in x, then `--weights d`: the dump's X is the user's, and
         * [4] said nothing of var(Q) = 6.5 (source.txt names the loaded ones first, before " loaded from ") */
        const char *at = strstr(ws->random_text, " loaded from ");
        return !at || !in_name_list(ws->random_text, (size_t)(at - ws->random_text), name);
    }
    if (ws->kind != AV_WEIGHTS_MIXED) return 0;
    return in_name_list(ws->drawn, strlen(ws->drawn), name);
}


/* After -v's matrices of heads 0 and 1, the heads it leaves out, where there are more: with --heads 4 -v printed
 * Q, K, V and S of heads 0 and 1 and A of all four with no word why (a learner's pass reading "我爱深度学习"). */
static void print_heads_left_out(const av_trace *tr, const av_model *m, const char *what, int H) {
    if (H <= 2) return;
    /* --kernel flash, typed, refuses --dump ("keeps no (T, T) attention weights"): the line sent the learner to a
     * command that fails (a review of the change); auto switches to blas for --dump, so the plain advice holds */
    const char *dump = m->cfg.kernel == AV_KERNEL_FLASH && !tr->kernel_auto ? "--kernel blas --dump DIR" : "--dump DIR";
    if (H == 3)
        fprintf(tr->f, "      (%s of head 2 not printed: -v prints heads 0 and 1; %s writes all 3)\n", what, dump);
    else
        fprintf(tr->f, "      (%s of heads 2..%d not printed: -v prints heads 0 and 1; %s writes all %d)\n", what, H - 1,
                dump, H);
}
/* project, split heads, RoPE. */
static int stages_project(const av_trace *tr, const av_model *m, const av_weights_source *ws, int n) {
    FILE *f = tr->f;
    const av_config *c = &m->cfg;
    int T = c->T, C = c->C, H = c->H, Dk = m->D, P = tr->precision;
    stage(tr, n++, "project");
    fprintf(f, "Q = X·W_Q,  K = X·W_K,  V = X·W_V  (%d, %d)·(%d, %d) → (%d, %d) each\n", T, C, C, C, T, C);
    char vq[32], vk[32], loaded[64] = "", why[200];
    /* `--weights w` with W_Q = W_K = 3·I said "measured var(Q) = 9.4 ... (of X + PE, so not exactly 1)": what
     * puts it near 1 is the random draw's rule, which a loaded file need not follow; nor need it break it (W_Q.npy
     * saved as np.random.randn(d, d) / np.sqrt(d) was told "the rule does not hold, so 1 is not expected" beside
     * var(Q) = 0.98), so the note says when 1 holds, not that it fails */
    static const char *const qk[3] = {"X", "W_Q", "W_K"};
    for (int i = 0; i < 3; i++)
        if (!drawn_at_random(ws, qk[i]))
            snprintf(loaded + strlen(loaded), sizeof loaded - strlen(loaded), "%s%s.npy", *loaded ? ", " : "",
                     qk[i]);
    if (*loaded)
        snprintf(why, sizeof why, " (%s loaded: near 1 only for X ~ N(0, 1) and W ~ N(0, 1/d_model), as attnviz "
                 "draws them)", loaded);
    else
        snprintf(why, sizeof why, "%s", c->positions == AV_POS_SINUSOIDAL ? " (of X + PE, so not exactly 1)" : "");
    fprintf(f, "%sW ~ N(0, 1/d_model) unless loaded; measured var(Q) = %s, var(K) = %s%s\n", ind,
            av_fmt_var(vq, m->var_q), av_fmt_var(vk, m->var_k), why);
    if (tr->verbose) {
        av_print_matrix(f, "W_Q", m->W_Q, C, C, P, NULL);
        av_print_matrix(f, "Q = X·W_Q", m->q_proj, T, C, P, NULL);
    }

    stage(tr, n++, "split heads");
    fprintf(f, "(%d, %d) → (%d, %d, %d) → (%d, %d, %d)   head h takes columns h·%d … h·%d+%d\n", T, C, T, H, Dk, H, T,
            Dk, Dk, Dk, Dk - 1);
    if (c->positions == AV_POS_ROPE) {
        stage(tr, n++, "RoPE");
        fprintf(f, "rotate Q_h, K_h: pair i at position m turns by m·θ^(−2i/d_k)   (%d, %d, %d)\n", H, T, Dk);
        fprintf(f, "%s%s pairs; rotation keeps norms, and q_m·k_n depends only on m − n\n", ind,
                c->rope_style == AV_ROPE_HALF ? "rotate-half (i, i+d_k/2)" : "interleaved (2i, 2i+1)");
        double d_rope = 0, d_sin = 0;
        av_err e;
        if (av_shift_check(m, AV_SHIFT_K, &d_rope, &d_sin, &e) == AV_OK) {
            fprintf(f, "%sevidence: shift every position by +%d and the scores move by at most %.2e with RoPE,\n", ind,
                    AV_SHIFT_K, d_rope);
            fprintf(f, "%sbut by up to %.3g with sinusoidal PE added to the same X (absolute positions)", ind, d_sin);
            if (c->T > AV_SHIFT_TOKENS) fprintf(f, "; over the first %d tokens", AV_SHIFT_TOKENS);
            fputc('\n', f);
        }
    }
    if (tr->verbose)
        for (int h = 0; h < H && h < 2; h++) {
            char name[64];
            snprintf(name, sizeof name, "Q[head %d]", h);
            av_print_matrix(f, name, m->Q + (size_t)h * T * Dk, T, Dk, P, NULL);
            /* K and V too: -v showed Q alone, and a learner following the shapes to S = Q·Kᵀ and O = A·V never saw
             * the K and V they are made of (a learner's pass) */
            if (m->K) {
                snprintf(name, sizeof name, "K[head %d]", h);
                av_print_matrix(f, name, m->K + (size_t)h * T * Dk, T, Dk, P, NULL);
            }
            if (m->V) {
                snprintf(name, sizeof name, "V[head %d]", h);
                av_print_matrix(f, name, m->V + (size_t)h * T * Dk, T, Dk, P, NULL);
            }
        }
    if (tr->verbose) print_heads_left_out(tr, m, "Q, K and V", H);
    return n;
}

/* scores, mask. */
static int stages_scores(const av_trace *tr, const av_model *m, int n, const char *mask) {
    FILE *f = tr->f;
    const av_config *c = &m->cfg;
    int T = c->T, H = c->H, Dk = m->D, P = tr->precision;
    stage(tr, n++, "scores");
    if (c->scale)
        fprintf(f, "S = Q·Kᵀ/√d_k = Q·Kᵀ/√%d = Q·Kᵀ × %.6g   (%d, %d, %d)·(%d, %d, %d) → (%d, %d, %d)\n", Dk,
                1.0 / sqrt((double)Dk), H, T, Dk, H, Dk, T, H, T, T);
    else
        fprintf(f, "S = Q·Kᵀ  %s(scale OFF, --no-scale: no ÷√d_k)%s   (%d, %d, %d)·(%d, %d, %d) → (%d, %d, %d)\n",
                Y(tr), R(tr), H, T, Dk, H, Dk, T, H, T, T);
    size_t n_scores = (size_t)H * T * T;
    if (n_scores < 2) {
        fprintf(f, "%sonly %zu score: too few to measure a variance (use more tokens or heads)\n", ind, n_scores);
    } else {
        char over[96];
        if (m->stats_rows < T)
            snprintf(over, sizeof over, "the %zu scores of the first %d query rows", (size_t)H * m->stats_rows * T,
                     m->stats_rows);
        else
            snprintf(over, sizeof over, "all %zu scores", n_scores);
        fprintf(f, "%smeasured over %s: var(Q·Kᵀ) = %.4g,  var(Q·Kᵀ/√d_k) = %.4g (= %.4g / %d)%s\n", ind, over,
                m->var_raw, m->var_scaled, m->var_raw, Dk, c->scale ? "" : " ← what scaling would give");
        fprintf(f, "%stheory for independent zero-mean q, k of unit variance: var(q·k) = d_k = %d, and 1 after ÷√d_k\n",
                ind, Dk);
    }
    if (tr->verbose && m->scores) {
        for (int h = 0; h < H && h < 2; h++) {
            char name[96]; /* the masked note only where something is masked (-v said it with no mask: a teacher's pass) */
            if (m->masked_count)
                snprintf(name, sizeof name, "S[head %d] (masked entries shown as -inf, as numpy prints −∞)", h);
            else
                snprintf(name, sizeof name, "S[head %d]", h);
            av_print_matrix(f, name, m->scores + (size_t)h * T * T, T, T, P, m->mask);
        }
        print_heads_left_out(tr, m, "S", H);
    } else if (tr->verbose) /* -v printed S and A without a word for them past 64 tokens, where auto runs flash (a
                           * long-input learner's pass: "-v prints the small matrices") */
        fprintf(f, "%s-v: the flash kernel forms no S or A to print; --kernel blas prints them\n", ind);

    size_t TT = (size_t)T * T;
    stage(tr, n++, "mask");
    if (m->masked_count == 0)
        fprintf(f, "none: every query sees every key\n");
    else
        fprintf(f, "%s: S[i,j] = −∞ where masked; %zu of %zu (query, key) pairs masked\n", mask, m->masked_count, TT);
    if (m->fully_masked_rows) {
        char rows[96];
        fprintf(f, "%s%s%s %s every key masked: weights all 0, output row 0 (no NaN)%s\n", ind, Y(tr),
                av_rows_phrase(rows, sizeof rows, m->fully_masked_rows, c->H, ""),
                m->fully_masked_rows == 1 ? "has" : "have", R(tr));
    }
    return n;
}

static void print_concat_output(const av_trace *tr, const av_model *m, int n);

/* v as the worked example prints a maximum: "−∞" (as the rest of the trace
 * writes it; "-inf" stood in a tile with no visible key), else with 4 digits
 * in the table's notation sci (av_numpy_sci, as numpy prints one array):
 * "%.4f", or "%.4e" (1.1860e+36). Fixed point alone wrote a tile max of
 * 1.186e36 (scores of --weights with X ~ 1e18) as its first 23 digits,
 * "11859874393672516637515", in this 24-byte buffer: a number 1e14 times too
 * small; and a row of scores ~1e-40 as 0.0000. */
static const char *max_text(char buf[24], double v, int sci) {
    if (v == -INFINITY) snprintf(buf, 24, "−∞");
    else snprintf(buf, 24, sci ? "%.4e" : "%.4f", v);
    return buf;
}

/* A sum or factor of the worked example, v ≥ 0, with digits places: "%.*f", or "%.4e" when v is at least
 * 1e-35 but would print as zero (the tile Σ e^(s−m) of a key 11.3 below the maximum, 1.2204e-05, printed
 * 0.0000 as an exact 0 does). Below 1e-35 the kernel's float32 exp is at its floor (about 1.2e-38 a key,
 * up to 512 keys a tile: fastexp.h), not e^(s−m), which is then 0 in float32: those print as zero. */
static const char *small_text(char buf[32], double v, int digits) {
    if (v >= 1e-35 && v < 0.5 * pow(10, -digits)) snprintf(buf, 32, "%.4e", v);
    else snprintf(buf, 32, "%.*f", digits, v);
    return buf;
}

/* The terminal columns of UTF-8 text s (its characters: "−∞" and "Σ" are one column each). */
static int text_cols(const char *s) {
    int n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* s in w terminal columns, padded with spaces on the left (right != 0: the text ends the field) or
 * the right; printf's %*s counts bytes, so "−∞" (6 bytes) went 4 columns short. */
static void put_field(FILE *f, const char *s, int w, int right) {
    int pad = w - text_cols(s);
    if (!right) fputs(s, f);
    for (; pad > 0; pad--) fputc(' ', f);
    if (right) fputs(s, f);
}

/* The texts of one tile of the worked example: keys, tile max, m_old, m_new, rescale, tile sum, l. */
typedef struct {
    char keys[32], tmax[24], mold[24], mnew[24], alpha[32], sum[32], l[32];
} flash_row_text;

static void flash_step_text(flash_row_text *t, const av_flash_step *st, int sci) {
    snprintf(t->keys, sizeof t->keys, "%d..%d", st->j0, st->j1 - 1);
    if (st->m_new == -INFINITY) snprintf(t->alpha, sizeof t->alpha, "(nothing visible yet)");
    else if (st->m_old == -INFINITY) snprintf(t->alpha, sizeof t->alpha, "0 (first visible)");
    else small_text(t->alpha, st->alpha, 6);
    max_text(t->tmax, st->tile_max, sci);
    max_text(t->mold, st->m_old, sci);
    max_text(t->mnew, st->m_new, sci);
    small_text(t->sum, st->tile_sum, 4);
    small_text(t->l, st->l, 4);
}

/* The worked example's table: a header, then the n tiles steps[idx[0..n−1]] (their tile numbers
 * idx + 1), "…   (gap more tiles)" before the row at gap_at (−1: none); the maxima in notation sci
 * (max_text). Each column is as wide as its widest text or its header, so that a maximum of any
 * size keeps the columns: fixed widths of 9 or 11 let -7.0711e+36 and 14142136.0000 push the arrow
 * and the columns after them to the right. */
static void print_flash_table(FILE *f, const av_flash_step *steps, const int *idx, int n, int gap_at, int gap,
                              int sci) {
    static const char *const head[] = {"tile max", "m_old", "m_new", "rescale e^(m_old−m_new)", "tile Σ e^(s−m)", "l"};
    flash_row_text *t = malloc((size_t)(n ? n : 1) * sizeof *t);
    if (!t) {
        fprintf(f, "%s(out of memory for the worked example)\n", ind);
        return;
    }
    int w[6];
    for (int c = 0; c < 6; c++) w[c] = text_cols(head[c]);
    for (int r = 0; r < n; r++) {
        flash_step_text(&t[r], &steps[idx[r]], sci);
        const char *cell[6] = {t[r].tmax, t[r].mold, t[r].mnew, t[r].alpha, t[r].sum, t[r].l};
        for (int c = 0; c < 6; c++)
            if (text_cols(cell[c]) > w[c]) w[c] = text_cols(cell[c]);
    }
    fprintf(f, "%stile  keys          seen   ", ind);
    put_field(f, head[0], w[0], 0), fputs("   ", f), put_field(f, head[1], w[1], 1), fputs(" → ", f);
    put_field(f, head[2], w[2], 0), fputs("  ", f), put_field(f, head[3], w[3], 0), fputs("  ", f);
    put_field(f, head[4], w[4], 1), fputs("  ", f), put_field(f, head[5], w[5], 1), fputc('\n', f);
    for (int r = 0; r < n; r++) {
        if (r == gap_at) fprintf(f, "%s  …   (%d more tiles)\n", ind, gap);
        fprintf(f, "%s%4d  %-13s %4d   ", ind, idx[r] + 1, t[r].keys, steps[idx[r]].visible);
        put_field(f, t[r].tmax, w[0], 1), fputs("   ", f), put_field(f, t[r].mold, w[1], 1), fputs(" → ", f);
        put_field(f, t[r].mnew, w[2], 0), fputs("  ", f), put_field(f, t[r].alpha, w[3], 0), fputs("  ", f);
        put_field(f, t[r].sum, w[4], 1), fputs("  ", f), put_field(f, t[r].l, w[5], 1), fputc('\n', f);
    }
    free(t);
}

/* The last real query row that sees a key (mask_forward's rules: causal, key padding, the user's
 * mask), found without a (T, T) mask; n_real − 1 when none does. */
static int last_row_with_a_key(const av_config *c, const unsigned char *user) {
    int T = c->T;
    for (int i = c->n_real - 1; i >= 0; i--)
        for (int j = 0; j < c->n_real && (!c->causal || j <= i); j++)
            if (!user || !user[(size_t)i * T + j]) return i;
    return c->n_real - 1;
}

/* The online softmax on one query row, with its real numbers: the last real
 * token of head 0 that sees a key (--attn-mask can hide every key of it: the
 * example then walked a row with nothing visible, a tester's report), keys in
 * about 4 tiles (the kernel's own AV_FLASH_TILE = 512 past 1024 tokens), then
 * the same row as one tile (the plain softmax). */
static void print_online_softmax(const av_trace *tr, const av_model *m) {
    FILE *f = tr->f;
    const av_config *c = &m->cfg;
    int T = c->T, D = m->D, i = last_row_with_a_key(c, m->user_mask), tile = T > 1024 ? AV_FLASH_TILE : (T + 3) / 4;
    if (tile < 1) tile = 1;
    fprintf(f, "online softmax: no (H, T, T) weights; per query row a running max m and sum l over key tiles\n");
    int n_tiles = (T + tile - 1) / tile;
    av_flash_step *steps = malloc((size_t)n_tiles * sizeof *steps);
    float *row = malloc(2 * (size_t)D * sizeof *row);
    av_mask_spec mk = {c->causal, c->n_real, m->user_mask};
    double scale = c->scale ? 1.0 / sqrt((double)D) : 1.0;
    if (!steps || !row ||
        flash_row_forward(row, steps, m->Q, m->K, m->V, &mk, 0, i, c->H, T, D, scale, tile) < 0 ||
        flash_row_forward(row + D, NULL, m->Q, m->K, m->V, &mk, 0, i, c->H, T, D, scale, T) < 0) {
        fprintf(f, "%s(out of memory for the worked example)\n", ind);
        free(steps), free(row);
        return;
    }
    if (tile == AV_FLASH_TILE || n_tiles == 1)
        fprintf(f, "%sworked example: head 0, query row %d, keys in tiles of %d:\n", ind, i, tile);
    else { /* "kernel flash: keys in tiles of 512" above and "tiles of 50" here, unexplained, read as a
            * contradiction; and up to 512 keys the kernel makes one tile, never rescaling (a teacher's report) */
        int kernel_tiles = (T + AV_FLASH_TILE - 1) / AV_FLASH_TILE;
        fprintf(f, "%sworked example: head 0, query row %d, keys in tiles of %d, smaller than the kernel's %d\n", ind, i,
                tile, AV_FLASH_TILE);
        if (kernel_tiles == 1)
            fprintf(f, "%s(which take all %d keys in one tile) so that the rescaling shows:\n", ind, T);
        else
            fprintf(f, "%s(which take these %d keys in %d tiles) so that the rescaling shows:\n", ind, T, kernel_tiles);
    }
    /* one notation for the maxima, as numpy prints one array: the largest finite |m| of the tiles shown
     * (the first 4 and the last 2 of more than 8) */
    int idx[8], n_shown = 0, gap_at = -1;
    for (int k = 0; k < n_tiles; k++) {
        if (n_tiles > 8 && k == 4) {
            gap_at = n_shown;
            k = n_tiles - 2;
        }
        idx[n_shown++] = k;
    }
    double big = 0;
    for (int r = 0; r < n_shown; r++)
        if (isfinite(steps[idx[r]].tile_max)) big = fmax(big, fabs(steps[idx[r]].tile_max));
    print_flash_table(f, steps, idx, n_shown, gap_at, n_tiles - 6, av_numpy_sci(big));
    double worst = 0;
    for (int d = 0; d < D; d++) worst = fmax(worst, fabs((double)row[d] - (double)row[D + d]));
    fprintf(f, "%seach tile that raises m rescales l and the partial output o by e^(m_old−m_new); out = o / l\n", ind);
    fprintf(f, "%s%s✓%s the plain softmax (all %d key%s as one tile, no rescaling) gives the same output row:"
               " max |difference| = %.2e\n", ind, G(tr), R(tr), T, T == 1 ? "" : "s", worst);
    if (m->fully_masked_rows) {
        char rows[96];
        fprintf(f, "%s%s saw no key at all: l = 0, output row 0 (never NaN)\n", ind,
                av_rows_phrase(rows, sizeof rows, m->fully_masked_rows, m->cfg.H, ""));
    }
    free(steps);
    free(row);
}

/* softmax, weighted sum, concat, output. */
static void stages_output(const av_trace *tr, const av_model *m, int n) {
    FILE *f = tr->f;
    const av_config *c = &m->cfg;
    int T = c->T, H = c->H, Dk = m->D, P = tr->precision;
    size_t TT = (size_t)T * T;
    stage(tr, n++, "softmax");
    if (c->kernel == AV_KERNEL_FLASH) {
        print_online_softmax(tr, m);
        stage(tr, n++, "weighted sum");
        fprintf(f, "O_h = Σ_tiles rescaled exp(S − m)·V_h / l, tile by tile   (%d, %d, %d), no (T, T) kept\n", H, T, Dk);
        print_concat_output(tr, m, n);
        return;
    }
    fprintf(f, "A = softmax(S) along keys = exp(S − row max) / Σ   (%d, %d, %d)\n", H, T, T);
    int rows = H * T - m->fully_masked_rows;
    if (rows == 0)
        fprintf(f, "%s%sno row sums to 1: every query has every key masked, so %s %d row%s %s 0%s\n", ind, Y(tr),
                H * T == 1 ? "its" : "all", H * T, H * T == 1 ? "" : "s", H * T == 1 ? "is" : "are", R(tr));
    else
        fprintf(f, "%s%s✓%s every unmasked row sums to 1: worst |Σ_j A[i,j] − 1| = %.2e over %d row%s\n", ind,
                G(tr), R(tr), m->worst_row_dev, rows, rows == 1 ? "" : "s");
    if (!c->scale || tr->verbose) av_print_saturation(f, m, tr->color);
    if (tr->verbose)
        for (int h = 0; h < H; h++) {
            char name[64];
            snprintf(name, sizeof name, "A[head %d]", h);
            av_print_matrix(f, name, m->att + (size_t)h * TT, T, T, P, NULL);
        }

    stage(tr, n++, "weighted sum");
    fprintf(f, "O_h = A_h·V_h                     (%d, %d, %d)·(%d, %d, %d) → (%d, %d, %d)\n", H, T, T, H, T, Dk, H, T, Dk);
    print_concat_output(tr, m, n);
}

/* concat, output. */
static void print_concat_output(const av_trace *tr, const av_model *m, int n) {
    FILE *f = tr->f;
    const av_config *c = &m->cfg;
    int T = c->T, C = c->C, H = c->H, Dk = m->D, P = tr->precision;
    stage(tr, n++, "concat");
    fprintf(f, "(%d, %d, %d) → (%d, %d, %d) → (%d, %d)   heads side by side again\n", H, T, Dk, T, H, Dk, T, C);
    stage(tr, n++, "output");
    fprintf(f, "Y = concat·W_O                    (%d, %d)·(%d, %d) → (%d, %d)\n", T, C, C, C, T, C);
    if (tr->verbose) av_print_matrix(f, "Y", m->out, T, C, P, NULL);
}

void av_trace_print(const av_trace *tr, const av_model *m, const av_tokens *toks, const av_weights_source *ws) {
    char mask[128];
    av_mask_desc(mask, sizeof mask, &m->cfg, m->user_mask != NULL, NULL);
    print_header(tr, m, toks, ws, mask);
    int n = stages_input(tr, m, ws, 1);
    n = stages_project(tr, m, ws, n);
    n = stages_scores(tr, m, n, mask);
    stages_output(tr, m, n);
}

int av_trace_sinks_print(const av_options *o) {
    return !o->quiet || o->explain || o->show || (o->model_dir && o->generate);
}

/* What av_trace_sinks prints on standard output for o, for its write error:
 * "the trace", "the continuation", "the trace, the --explain walk-through
 * and the continuation" (the trace unless -q, then --explain, --show,
 * --generate with --model), into out (n bytes). */
static void stdout_parts(char *out, size_t n, const av_options *o) {
    const char *part[4];
    int k = 0;
    if (!o->quiet) part[k++] = "the trace";
    if (o->explain) part[k++] = "the --explain walk-through";
    if (o->show) part[k++] = "the --show heat maps";
    if (o->model_dir && o->generate) part[k++] = "the continuation";
    if (!k) part[k++] = "the output"; /* -q with nothing asked for prints nothing, so cannot fail here */
    size_t at = 0;
    out[0] = 0;
    for (int i = 0; i < k && at < n; i++) {
        int w = snprintf(out + at, n - at, "%s%s", i == 0 ? "" : i + 1 == k ? " and " : ", ", part[i]);
        if (w < 0) break;
        at += (size_t)w;
    }
}

av_status av_explain_parse_input(const av_options *o, const av_tokens *toks, int *qi, int *kj, av_err *err) {
    av_status st = av_explain_parse(o->explain, toks, qi, kj, err);
    if (st == AV_EUSAGE && o->model_dir && o->generate && strstr(err->msg, " is outside 0..")) {
        /* an index into the continuation (--generate 5 --explain 5,0 on 4 tokens) read as a plain range error */
        av_fail_append(err, "; --explain reads the input's forward pass, not the --generate "
                 "tokens (run the continued text as the input to explain them)");
    }
    return st;
}

av_status av_trace_sinks(FILE *f, const av_options *o, av_gpt2run *gr, const av_model *m, const av_tokens *toks,
                         const av_weights_source *ws, int color, av_err *err) {
    int qi = 0, kj = 0;
    av_status st = o->explain ? av_explain_parse_input(o, toks, &qi, &kj, err) : AV_OK;
    if (!st && !o->quiet) { /* -q silences the trace, never what was asked for */
        av_trace tr = {f, color, o->verbose, o->precision, 0, o->kernel == AV_KERNEL_AUTO,
                       av_options_weights_needed_by(o)};
        /* at a terminal's width (app/term.h), the --model trace too: its weights line ran to 200 columns */
        av_term_wrap w;
        tr.f = av_term_wrap_begin(&w, f);
        if (o->model_dir) av_gpt2run_trace(tr.f, gr, m, toks, color);
        else av_trace_print(&tr, m, toks, ws);
        av_term_wrap_end(&w);
    }
    /* -q hid the trace's weights line, and nothing else said where --show's and --explain's numbers came from:
     * `-q --show "I love"` showed random weights as a teacher would project a trained model's (a teacher's pass).
     * One line, in the figures' words (ws->text), the first: the parts follow it without a blank line; at a
     * terminal's width (app/term.h) as they are ("weights: random weights (untrained, seed 42)", 44 columns, ran
     * past a 40-column terminal) */
    if (!st && o->quiet && (o->explain || o->show)) {
        av_term_wrap w;
        fprintf(av_term_wrap_begin(&w, f), "weights: %s\n", ws->text);
        av_term_wrap_end(&w);
    }
    /* a blank line between the parts, none before the first: under -q, `--show | head -1` was an empty line */
    int said = !o->quiet;
    if (!st && o->explain) {
        if (said++) fputc('\n', f);
        av_term_wrap w;
        av_explain(av_term_wrap_begin(&w, f), m, toks, o->head, qi, kj, o->precision, color, o->dump_dir != NULL);
        av_term_wrap_end(&w);
    }
    int only = av_option_given(o, "head") ? o->head : -1; /* --show --head H: that head only (its title says "of H") */
    for (int h = 0; !st && o->show && h < m->cfg.H; h++)
        if (only < 0 || h == only) {
            if (said++) fputc('\n', f);
            av_term_heatmap(f, m, toks, h, av_term_mode_for(color), (av_cmap)o->cmap, av_term_width());
        }
    if (!st && o->model_dir && o->generate && said++) fputc('\n', f);
    if (!st && o->model_dir && o->generate)
        st = av_gpt2run_generate(f, gr, o->generate, !o->quiet && av_term_redraws(STDERR_FILENO),
                                 o->html ? &gr->generated : NULL, err); /* the page's trace ends with it too */
    /* name what was written: under -q --generate only the continuation. ferror too: a note on stderr (the
     * continuation leaving its task) flushed stdout first, and that failed write left fflush nothing to fail
     * on: `--generate 3 "3 1 >" >/dev/full` lost the continuation and exited 0 */
    int flush_failed = fflush(f) != 0, e = flush_failed ? errno : f == stdout ? av_stdout_errno() : 0;
    if (!st && (flush_failed || ferror(f))) {
        if (!e) e = EIO;
        char what[128];
        stdout_parts(what, sizeof what, o);
        st = av_fail(err, AV_ERUNTIME, "cannot write %s to standard output: %s", what, strerror(e));
    }
    return st;
}
