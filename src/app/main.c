/* main.c - the attnviz command: parse options, read and tokenize the sentence,
 * run the attention layer, print the trace, write figures and dumps.
 * The only file that exits: 0 success, 1 runtime failure, 2 usage error. */
#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/cli.h"
#include "io/fileio.h"
#include "nn/model.h"
#include "io/npy.h"
#include "render/plot.h"
#include "app/teach.h"
#include "text/tokenize.h"
#include "app/trace.h"

#define MAX_WRITTEN 1024

typedef struct {
    char *paths[MAX_WRITTEN];
    int n;
} written_list;

static void note_written(written_list *w, const char *path) {
    if (w->n < MAX_WRITTEN) w->paths[w->n++] = strdup(path);
}

static void join_path(char *out, size_t n, const char *dir, const char *name) {
    size_t len = strlen(dir);
    snprintf(out, n, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" : "/", name);
}

/* ---------------------------------------------------------------------------- */

static av_status load_one(const char *dir, const char *name, float *dst, size_t rows, size_t cols,
                          int *found, av_err *err) {
    char path[4096];
    join_path(path, sizeof path, dir, name);
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return AV_OK; /* not there: keep the seeded tensor */
        return av_fail(err, AV_ERUNTIME, "cannot read '%s': %s", path, strerror(errno));
    }
    if (S_ISLNK(st.st_mode) && stat(path, &st) != 0)
        return av_fail(err, AV_ERUNTIME, "cannot read '%s': %s (a broken link?)", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return av_fail(err, AV_EUSAGE, "'%s' is not a regular file", path);
    av_npy a;
    av_status s = av_npy_read(&a, path, err);
    if (s) return s;
    size_t shape[2] = {rows, cols};
    if ((s = av_npy_expect_shape(&a, name, 2, shape, err))) {
        char inner[sizeof err->msg];
        snprintf(inner, sizeof inner, "%s", err->msg);
        av_fail(err, s, "--weights %.200s: %.200s (%s)", dir, inner,
                strcmp(name, "X.npy") == 0 ? "X is (T, d_model); T counts every token, <pad> included"
                                           : "W_Q, W_K, W_V, W_O are (d_model, d_model), row-vector layout Q = X·W_Q");
        av_npy_free(&a);
        return s;
    }
    memcpy(dst, a.data, rows * cols * sizeof(float));
    av_npy_free(&a);
    (*found)++;
    return AV_OK;
}

static av_status load_weights(av_model *m, const char *dir, char *note, size_t note_n, av_err *err) {
    struct stat st;
    if (stat(dir, &st) != 0)
        return av_fail(err, AV_ERUNTIME, "--weights '%s': %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return av_fail(err, AV_ERUNTIME, "--weights '%s' is not a folder", dir);
    size_t T = (size_t)m->cfg.T, C = (size_t)m->cfg.C;
    int found = 0;
    av_status s;
    const char *names[] = {"W_Q.npy", "W_K.npy", "W_V.npy", "W_O.npy"};
    float *dst[] = {m->W_Q, m->W_K, m->W_V, m->W_O};
    if ((s = load_one(dir, "X.npy", m->X, T, C, &found, err))) return s;
    for (int i = 0; i < 4; i++)
        if ((s = load_one(dir, names[i], dst[i], C, C, &found, err))) return s;
    if (!found)
        return av_fail(err, AV_EUSAGE, "--weights '%s' holds none of X.npy, W_Q.npy, W_K.npy, W_V.npy, W_O.npy",
                       dir);
    if (found == 5) snprintf(note, note_n, "all loaded from %s", dir);
    else snprintf(note, note_n, "%d of 5 loaded from %s (X, W_Q, W_K, W_V, W_O), the rest seeded", found, dir);
    return AV_OK;
}

static av_status load_attn_mask(av_model *m, const char *path, av_err *err) {
    av_npy a;
    size_t T = (size_t)m->cfg.T;
    av_status s = av_npy_read(&a, path, err);
    if (s == AV_EUSAGE && (strstr(err->msg, "dtype") || strstr(err->msg, "finite"))) {
        /* the generic float32 advice is wrong here: the mask is a bool array */
        char inner[sizeof err->msg];
        snprintf(inner, sizeof inner, "%s", err->msg);
        return av_fail(err, AV_EUSAGE, "--attn-mask: %.300s; the mask must be a bool (%zu, %zu) array, True = masked "
                       "(np.save(path, mask.astype(bool)))", inner, T, T);
    }
    if (s) return s;
    if (!a.bytes || a.ndim != 2 || a.shape[0] != T || a.shape[1] != T) {
        char got[64] = "(";
        for (int d = 0; d < a.ndim; d++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%zu", d ? ", " : "", a.shape[d]);
        strncat(got, a.ndim == 1 ? ",)" : ")", sizeof got - strlen(got) - 1);
        av_fail(err, AV_EUSAGE, "--attn-mask '%s' has dtype %s and shape %s; it must be bool with shape (T, T) = (%zu, %zu)%s",
                path, a.descr, got, T, T, T != (size_t)m->cfg.n_real ? " (T counts the <pad> tokens)" : "");
        av_npy_free(&a);
        return AV_EUSAGE;
    }
    m->user_mask = malloc(T * T);
    if (!m->user_mask) { av_npy_free(&a); return av_fail(err, AV_ERUNTIME, "out of memory"); }
    for (size_t i = 0; i < T * T; i++) m->user_mask[i] = a.bytes[i] != 0;
    av_npy_free(&a);
    return AV_OK;
}

/* ---------------------------------------------------------------------------- */

static av_status dump_all(const av_model *m, const av_tokens *toks, const char *dir, written_list *w,
                          av_err *err) {
    av_status s;
    if ((s = av_mkdir_p(dir, err))) return s;
    char path[4096];
    size_t T = (size_t)m->cfg.T, C = (size_t)m->cfg.C, H = (size_t)m->cfg.H, D = (size_t)m->D;

    join_path(path, sizeof path, dir, "tokens.txt");
    av_afile f;
    if ((s = av_afile_open(&f, path, err))) return s;
    for (int i = 0; i < toks->n; i++) fprintf(f.fp, "%s\n", toks->tok[i]);
    if ((s = av_afile_commit(&f, err))) return s;
    note_written(w, path);

    struct {
        const char *name;
        const float *data;
        int ndim;
        size_t shape[3];
    } items[] = {
        {"X.npy", m->X, 2, {T, C, 0}},
        {"PE.npy", m->PE, 2, {T, C, 0}},
        {"W_Q.npy", m->W_Q, 2, {C, C, 0}},
        {"W_K.npy", m->W_K, 2, {C, C, 0}},
        {"W_V.npy", m->W_V, 2, {C, C, 0}},
        {"W_O.npy", m->W_O, 2, {C, C, 0}},
        {"Q.npy", m->Q, 3, {H, T, D}},
        {"K.npy", m->K, 3, {H, T, D}},
        {"V.npy", m->V, 3, {H, T, D}},
        {"scores.npy", m->scores, 3, {H, T, T}},
        {"weights.npy", m->att, 3, {H, T, T}},
        {"context.npy", m->context, 2, {T, C, 0}},
        {"output.npy", m->out, 2, {T, C, 0}},
    };
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        if (!items[i].data) {
            /* PE only with sinusoidal: a PE.npy left by an earlier sinusoidal
             * dump would describe another run, so it goes */
            join_path(path, sizeof path, dir, items[i].name);
            if (unlink(path) != 0 && errno != ENOENT)
                return av_fail(err, AV_ERUNTIME, "cannot remove the stale '%s': %s", path, strerror(errno));
            continue;
        }
        join_path(path, sizeof path, dir, items[i].name);
        if ((s = av_npy_write(path, items[i].data, items[i].ndim, items[i].shape, err))) return s;
        note_written(w, path);
    }
    join_path(path, sizeof path, dir, "mask.npy");
    size_t tt[2] = {T, T};
    if ((s = av_npy_write_bool(path, m->mask, 2, tt, err))) return s;
    note_written(w, path);
    return AV_OK;
}

/* Figures: every selected figure (o->figures) in every selected format
 * (o->format), named <stem>.png / <stem>.svg in o->outdir. */
typedef enum { FIG_HEAD, FIG_GRID, FIG_MATRIX, FIG_MASK } fig_kind;

typedef struct {
    const av_options *o;
    written_list *w;
} fig_out;

static av_status write_fig(const fig_out *fo, const char *stem, fig_kind kind, const av_heatmap *hm, int n,
                           const char *title, const av_plot_meta *meta, av_err *err) {
    static const char *const ext[2] = {"png", "svg"};
    for (int e = 0; e < 2; e++) {
        if (!(fo->o->format & (e ? AV_FMT_SVG : AV_FMT_PNG))) continue;
        char name[128], path[4096];
        snprintf(name, sizeof name, "%s.%s", stem, ext[e]);
        join_path(path, sizeof path, fo->o->outdir, name);
        av_status s;
        switch (kind) {
        case FIG_HEAD: s = av_plot_head(path, hm, meta, err); break;
        case FIG_GRID: s = av_plot_grid(path, hm, n, title, meta, err); break;
        case FIG_MATRIX: s = av_plot_matrix(path, hm, n, title, meta, err); break;
        default: s = av_plot_mask(path, hm, meta, err); break;
        }
        if (s) return s;
        note_written(fo->w, path);
    }
    return AV_OK;
}

/* The positional-encoding figure, two panels sharing the position axis and
 * x = i: sinusoidal PE's sin (dims 2i) and cos (dims 2i+1) values, or RoPE's
 * rotation of pair i at position m as cos(m·θ_i) and sin(m·θ_i) (the
 * entries of the 2x2 rotation). Nothing for positions none. */
static av_status plot_pe(const fig_out *fo, const av_model *m, const av_tokens *toks, const av_plot_meta *base,
                         av_err *err) {
    int T = m->cfg.T, C = m->cfg.C, D = m->D;
    int rope = m->cfg.positions == AV_POS_ROPE;
    int P = rope ? D / 2 : C / 2; /* pairs: frequencies i = 0 .. P-1 */
    if (P < 1) return AV_OK;      /* d_model 1: no pair to draw */
    av_plot_meta meta = *base;
    meta.cmap = AV_CMAP_RDBU_R;
    meta.vmin = -1.0f;
    meta.vmax = 1.0f;
    float *v = malloc(sizeof(float) * 2 * (size_t)T * (size_t)P);
    if (!v) return av_fail(err, AV_ERUNTIME, "out of memory");
    float *a = v, *b = v + (size_t)T * P;
    char title[512], kt[2][96];
    const char *const *tok = (const char *const *)toks->tok;
    av_heatmap hm[2] = {{.n_q = T, .n_k = P, .q_labels = tok, .w = a, .k_title = kt[0]},
                        {.n_q = T, .n_k = P, .q_labels = tok, .w = b, .k_title = kt[1]}};
    if (!rope) {
        /* PE(pos, 2i) = sin(pos·ω_i), PE(pos, 2i+1) = cos(pos·ω_i), read from m->PE as the model added it. */
        for (int pos = 0; pos < T; pos++)
            for (int i = 0; i < P; i++) {
                a[(size_t)pos * P + i] = m->PE[(size_t)pos * C + 2 * i];
                b[(size_t)pos * P + i] = m->PE[(size_t)pos * C + 2 * i + 1];
            }
        snprintf(title, sizeof title,
                 "sinusoidal positional encoding PE, (T, d_model) = (%d, %d), added to X · PE(pos, 2i) = "
                 "sin(pos / 10000^(2i/d_model)) · PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))",
                 T, C);
        hm[0].panel_title = "sin: even dimensions 2i";
        hm[1].panel_title = "cos: odd dimensions 2i+1";
        snprintf(kt[0], sizeof kt[0], "i (dimension 2i)");
        snprintf(kt[1], sizeof kt[1], "i (dimension 2i+1)");
        meta.value_label = "PE value";
    } else {
        /* pair i of every head turns by m·θ_i, θ_i = base^(−2i/d_k) */
        for (int pos = 0; pos < T; pos++)
            for (int i = 0; i < P; i++) {
                double ang = pos * pow(m->cfg.rope_base, -2.0 * i / D);
                a[(size_t)pos * P + i] = (float)cos(ang);
                b[(size_t)pos * P + i] = (float)sin(ang);
            }
        snprintf(title, sizeof title,
                 "RoPE: pair i of q and k at position m turns by the angle m·θ_i · θ_i = %g^(−2i/d_k), d_k = %d, "
                 "the same in every head · %s pairs %s",
                 m->cfg.rope_base, D, av_rope_style_name(m->cfg.rope_style),
                 m->cfg.rope_style == AV_ROPE_HALF ? "(i, i + d_k/2)" : "(2i, 2i+1)");
        hm[0].panel_title = "cos(m·θ_i)";
        hm[1].panel_title = "sin(m·θ_i)";
        snprintf(kt[0], sizeof kt[0], "pair i (fast → slow)");
        snprintf(kt[1], sizeof kt[1], "pair i (fast → slow)");
        meta.value_label = "cos, sin of the angle m·θ_i";
    }
    hm[0].q_title = rope ? "position m" : "position pos";
    hm[0].title = hm[1].title = title;
    av_status s = write_fig(fo, "pe", FIG_MATRIX, hm, 2, title, &meta, err);
    free(v);
    return s;
}

static av_status plot_all(const av_model *m, const av_tokens *toks, const av_options *o, const char *cmdline,
                          written_list *w, av_err *err) {
    av_status s;
    if ((s = av_mkdir_p(o->outdir, err))) return s;
    int H = m->cfg.H, T = m->cfg.T;
    size_t TT = (size_t)T * (size_t)T;
    unsigned figs = o->figures;
    fig_out fo = {o, w};
    char mask[128], pos[96], desc[8192], title[512], stem[64];
    av_mask_desc(mask, sizeof mask, &m->cfg, m->user_mask != NULL);
    if (m->cfg.positions == AV_POS_ROPE)
        snprintf(pos, sizeof pos, "RoPE (%s)", av_rope_style_name(m->cfg.rope_style));
    else
        snprintf(pos, sizeof pos, "%s", av_positions_name(m->cfg.positions));
    const char *noscale = m->cfg.scale ? "" : " · no scale";
    snprintf(desc, sizeof desc, "%s (seed %llu)", cmdline, (unsigned long long)m->cfg.seed);
    av_plot_meta meta = {.software = "attnviz " AV_VERSION, .description = desc, .dpi = o->dpi,
                         .cmap = (av_cmap)o->cmap, .scale = (float)o->scale};

    av_heatmap *hms = calloc((size_t)H, sizeof *hms);
    char (*titles)[512] = calloc((size_t)H, sizeof *titles);
    float *mean = (figs & AV_FIG_MEAN) ? malloc(TT * sizeof *mean) : NULL;
    if (!hms || !titles || ((figs & AV_FIG_MEAN) && !mean)) {
        free(hms); free(titles); free(mean);
        return av_fail(err, AV_ERUNTIME, "out of memory");
    }
    const char *const *tok = (const char *const *)toks->tok;
    av_plot_reset_missing();

    /* heads: one map per head; grid: all heads in one figure */
    for (int h = 0; h < H; h++) {
        snprintf(titles[h], sizeof titles[h], "head %d of %d · positions: %s · mask: %s%s", h, H, pos, mask, noscale);
        hms[h] = (av_heatmap){.title = titles[h], .n_q = T, .n_k = T, .q_labels = tok, .k_labels = tok,
                              .w = m->att + (size_t)h * TT, .masked = m->mask};
    }
    for (int h = 0; h < H && !s && (figs & AV_FIG_HEADS); h++) {
        snprintf(stem, sizeof stem, "head%d", h);
        s = write_fig(&fo, stem, FIG_HEAD, &hms[h], 1, NULL, &meta, err);
    }
    if (!s && (figs & AV_FIG_GRID) && H > 1) {
        snprintf(title, sizeof title, "attention weights, all %d heads · positions: %s · mask: %s%s", H, pos, mask,
                 noscale);
        s = write_fig(&fo, "heads", FIG_GRID, hms, H, title, &meta, err);
    }

    /* mean: the mean over heads, titled as such (pitfall P10) */
    if (!s && (figs & AV_FIG_MEAN)) {
        av_plot_mean_heads(mean, m->att, H, T, T);
        snprintf(title, sizeof title, "mean over %d head%s · not a head: averaging hides each head's pattern"
                 " · positions: %s · mask: %s%s", H, H == 1 ? "" : "s", pos, mask, noscale);
        av_heatmap hm = {.title = title, .n_q = T, .n_k = T, .q_labels = tok, .k_labels = tok, .w = mean,
                         .masked = m->mask};
        av_plot_meta mm = meta;
        mm.value_label = "mean attention weight";
        s = write_fig(&fo, "mean", FIG_HEAD, &hm, 1, NULL, &mm, err);
    }

    /* scores: S before the softmax, diverging map centred on 0, masked = −∞ */
    if (!s && (figs & AV_FIG_SCORES)) {
        float a = av_plot_abs_max(m->scores, m->mask, H, T, T);
        av_plot_meta sm = meta;
        sm.cmap = AV_CMAP_RDBU_R;
        sm.vmin = -a;
        sm.vmax = a;
        sm.value_label = "score";
        const char *what = m->cfg.scale ? "scores S = Q·Kᵀ/√d_k" : "scores S = Q·Kᵀ (no ÷√d_k)";
        const char *neg = m->masked_count ? " · masked keys get −∞" : "";
        for (int h = 0; h < H; h++) {
            snprintf(titles[h], sizeof titles[h], "%s before the softmax · head %d of %d%s · positions: %s · mask: %s",
                     what, h, H, neg, pos, mask);
            hms[h].title = titles[h];
            hms[h].w = m->scores + (size_t)h * TT;
            hms[h].neg_inf_cells = 1;
        }
        for (int h = 0; h < H && !s; h++) {
            snprintf(stem, sizeof stem, "scores_head%d", h);
            s = write_fig(&fo, stem, FIG_HEAD, &hms[h], 1, NULL, &sm, err);
        }
        if (!s && H > 1) {
            snprintf(title, sizeof title, "%s before the softmax · all %d heads%s · positions: %s · mask: %s", what,
                     H, neg, pos, mask);
            s = write_fig(&fo, "scores", FIG_GRID, hms, H, title, &sm, err);
        }
    }

    /* pe: the positional encoding */
    if (!s && (figs & AV_FIG_PE)) {
        if (m->cfg.positions == AV_POS_NONE) {
            if (!o->quiet)
                fprintf(stderr, "attnviz: note: no pe figure: --positions none adds no positional encoding\n");
        } else {
            s = plot_pe(&fo, m, toks, &meta, err);
        }
    }

    /* mask: which query sees which key */
    if (!s && (figs & AV_FIG_MASK)) {
        snprintf(title, sizeof title, "which keys each query sees · mask: %s", mask);
        av_heatmap hm = {.title = title, .n_q = T, .n_k = T, .q_labels = tok, .k_labels = tok, .masked = m->mask};
        s = write_fig(&fo, "mask", FIG_MASK, &hm, 1, NULL, &meta, err);
    }
    if (!s && (figs & AV_FIG_GRID) && H == 1 && !o->figures_all && o->figures != AV_FIG_DEFAULT && !o->quiet)
        fprintf(stderr, "attnviz: note: no grid figure: there is one head (head0 shows it)\n");

    free(hms);
    free(titles);
    free(mean);
    if (!s && av_plot_missing_glyphs() > 0)
        fprintf(stderr, "attnviz: warning: %d character(s) in the labels have no glyph in any installed font; drawn as boxes\n",
                av_plot_missing_glyphs());
    return s;
}

/* ---------------------------------------------------------------------------- */

static int use_color(av_color c) {
    if (c == AV_COLOR_ALWAYS) return 1;
    if (c == AV_COLOR_NEVER) return 0;
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc) return 0;
    return isatty(STDOUT_FILENO);
}

static int term_width(void) {
    const char *cols = getenv("COLUMNS");
    if (cols && atoi(cols) > 0) return atoi(cols);
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return 80;
}

static av_term_mode term_mode(int color) {
    if (!color) return AV_TERM_PLAIN;
    const char *ct = getenv("COLORTERM");
    if (ct && (strstr(ct, "truecolor") || strstr(ct, "24bit"))) return AV_TERM_TRUECOLOR;
    return AV_TERM_256;
}

static int finish(int code) {
    if (fclose(stdout) != 0 && code == 0) {
        fprintf(stderr, "attnviz: error: cannot write the trace to standard output: %s\n", strerror(errno));
        return 1;
    }
    return code;
}

static int fail(av_status st, const av_err *err) {
    fprintf(stderr, "attnviz: error: %s\n", err->msg);
    return finish(st == AV_EUSAGE ? 2 : 1);
}

static char *command_line(int argc, char **argv) {
    size_t n = 1;
    for (int i = 0; i < argc; i++) n += strlen(argv[i]) * 4 + 3;
    char *s = malloc(n), *p = s;
    if (!s) return NULL;
    p += sprintf(p, "attnviz");
    for (int i = 1; i < argc; i++) {
        int plain = argv[i][0] != 0 && strpbrk(argv[i], " \t\n'\"\\$`!*?;&|<>()[]{}#~") == NULL;
        if (plain) p += sprintf(p, " %s", argv[i]);
        else {
            p += sprintf(p, " '");
            for (const char *c = argv[i]; *c; c++) p += (*c == '\'') ? sprintf(p, "'\\''") : sprintf(p, "%c", *c);
            p += sprintf(p, "'");
        }
    }
    return s;
}

int main(int argc, char **argv) {
    av_options o;
    av_err err = {{0}};
    av_status st = av_parse_args(&o, argc, argv, &err);
    if (st) { av_options_free(&o); return fail(st, &err); }
    if (o.help) { av_print_help(stdout); av_options_free(&o); return finish(0); }
    if (o.version) { printf("attnviz %s\n", AV_VERSION); av_options_free(&o); return finish(0); }

    av_config cfg = {.T = 1, .n_real = 1, .C = o.d_model, .H = o.heads, .positions = o.positions,
                     .rope_style = o.rope_style, .rope_base = o.rope_base, .causal = o.causal,
                     .scale = !o.no_scale, .seed = o.seed};
    if ((st = av_config_check(&cfg, &err))) { av_options_free(&o); return fail(st, &err); }
    if (o.compare == AV_CMP_ROPE_STYLE && (o.d_model / o.heads) % 2) {
        av_fail(&err, AV_EUSAGE, "--compare rope-style needs RoPE, which needs an even d_k; d_k = %d / %d = %d",
                o.d_model, o.heads, o.d_model / o.heads);
        av_options_free(&o);
        return fail(AV_EUSAGE, &err);
    }
    /* a file size limit (ulimit -f) must fail a write, not kill the process
     * and leave a temporary file behind */
    signal(SIGXFSZ, SIG_IGN);

    /* read the sentence */
    char *text = o.sentence;
    size_t len = text ? strlen(text) : 0;
    if (o.file) {
        if ((st = av_read_file(o.file, AV_MAX_INPUT_BYTES, &text, &len, &err))) { av_options_free(&o); return fail(st, &err); }
        while (len && (text[len - 1] == '\n' || text[len - 1] == '\r')) len--; /* a file's final newline */
    }
    av_tokens toks;
    st = av_tokenize(&toks, text, len, AV_MAX_TOKENS, &err);
    if (text != o.sentence) free(text);
    if (st) { av_tokens_free(&toks); av_options_free(&o); return fail(st, &err); }
    cfg.n_real = toks.n;
    if (o.pad_to) {
        if (o.pad_to < toks.n) {
            av_fail(&err, AV_EUSAGE, "--pad-to %d is smaller than the sentence's %d tokens; use at least %d", o.pad_to,
                    toks.n, toks.n);
            av_tokens_free(&toks); av_options_free(&o);
            return fail(AV_EUSAGE, &err);
        }
        while (toks.n < o.pad_to && !st) st = av_tokens_push(&toks, "<pad>", &err);
    }
    cfg.T = toks.n;
    if (!st && o.compare == AV_CMP_ORDER && cfg.n_real < 2)
        st = av_fail(&err, AV_EUSAGE, "--compare order swaps the first and last words, so it needs at least 2 tokens; got 1");

    av_model m;
    char note[4200] = "seeded (embedding by token text, W ~ N(0, 1/d_model))";
    written_list w = {{0}, 0};
    char *cmd = NULL;
    if (!st) st = av_model_init(&m, &cfg, &err);
    else memset(&m, 0, sizeof m);
    if (!st) av_model_seed(&m, (const char *const *)toks.tok);
    if (!st && o.weights_dir) st = load_weights(&m, o.weights_dir, note, sizeof note, &err);
    if (!st && o.attn_mask) st = load_attn_mask(&m, o.attn_mask, &err);
    if (!st) st = av_model_forward(&m, &err);
    int qi = 0, kj = 0;
    if (!st && o.explain) st = av_explain_parse(o.explain, &toks, &qi, &kj, &err);
    int color = use_color(o.color);
    if (!st && !o.quiet) {
        av_trace tr = {stdout, color, o.verbose, o.precision};
        av_trace_print(&tr, &m, &toks, &o, note);
        if (o.explain) av_explain(stdout, &m, &toks, o.head, qi, kj, o.precision, color);
        if (o.show)
            for (int h = 0; h < m.cfg.H; h++) av_term_heatmap(stdout, &m, &toks, h, term_mode(color), term_width());
    }
    /* the trace must have reached stdout before any file is written */
    if (!st && fflush(stdout) != 0)
        st = av_fail(&err, AV_ERUNTIME, "cannot write the trace to standard output: %s", strerror(errno));
    if (!st) cmd = command_line(argc, argv);
    /* Make (or check) every output folder before writing any file, so a bad
     * -o does not leave a dump from this run next to figures from an older one. */
    if (!st && !o.no_plot) st = av_mkdir_p(o.outdir, &err);
    if (!st && o.dump_dir) st = av_mkdir_p(o.dump_dir, &err);
    if (!st && o.compare) {
        char path[4096], name[64], desc[8192];
        const char *what[] = {"", "scale", "positions", "rope-style", "order"};
        snprintf(desc, sizeof desc, "%s (seed %llu)", cmd ? cmd : "attnviz", (unsigned long long)m.cfg.seed);
        av_plot_meta meta = {.software = "attnviz " AV_VERSION, .description = desc, .dpi = o.dpi,
                             .cmap = (av_cmap)o.cmap, .scale = (float)o.scale};
        int fig = !o.no_plot && o.compare != AV_CMP_ORDER;
        if (fig) st = av_mkdir_p(o.outdir, &err);
        FILE *out = o.quiet ? fopen("/dev/null", "w") : stdout;
        if (!out) out = stdout;
        /* The table is printed once; with --format both the figure is drawn
         * a second time as SVG with the table going to /dev/null. */
        FILE *null = NULL;
        for (int e = 0; e < 2 && !st; e++) {
            int want = !fig ? e == 0 : (o.format & (e ? AV_FMT_SVG : AV_FMT_PNG)) != 0;
            if (!want) continue;
            FILE *to = out;
            if (fig && e == 1 && (o.format & AV_FMT_PNG)) {
                if (!null) null = fopen("/dev/null", "w");
                to = null ? null : out;
            }
            snprintf(name, sizeof name, "compare_%s.%s", what[o.compare], e ? "svg" : "png");
            join_path(path, sizeof path, o.outdir, name);
            st = av_compare(to, &m, &toks, (av_compare_kind)o.compare, o.head, fig ? path : NULL, &meta, color, &err);
            if (!st && fig) note_written(&w, path);
        }
        if (null) fclose(null);
        if (out != stdout) fclose(out);
    }
    if (!st && o.dump_dir) st = dump_all(&m, &toks, o.dump_dir, &w, &err);
    if (!st && !o.no_plot) st = plot_all(&m, &toks, &o, cmd ? cmd : "attnviz", &w, &err);
    if (!st && !o.quiet && w.n) {
        printf("\nwrote %d file(s):\n", w.n);
        for (int i = 0; i < w.n; i++) printf("  %s\n", w.paths[i]);
    }
    for (int i = 0; i < w.n; i++) free(w.paths[i]);
    free(cmd);
    av_model_free(&m);
    av_tokens_free(&toks);
    av_options_free(&o);
    if (st) return fail(st, &err);
    return finish(0);
}
