/* main.c - the attnviz command: parse options, read and tokenize the sentence,
 * run the attention layer, print the trace, write figures and dumps.
 * The only file that exits: 0 success, 1 runtime failure, 2 usage error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fileio.h"
#include "model.h"
#include "npy.h"
#include "plot.h"
#include "teach.h"
#include "tokenize.h"
#include "trace.h"

#define MAX_WRITTEN 256

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
    if (stat(path, &st) != 0) return AV_OK; /* not there: keep the seeded tensor */
    av_npy a;
    av_status s = av_npy_read(&a, path, err);
    if (s) return s;
    size_t shape[2] = {rows, cols};
    if ((s = av_npy_expect_shape(&a, name, 2, shape, err))) {
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
    if (!S_ISDIR(st.st_mode)) return av_fail(err, AV_EUSAGE, "--weights '%s' is not a folder", dir);
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
    snprintf(note, note_n, "%d file(s) loaded from %s, the rest seeded", found, dir);
    return AV_OK;
}

static av_status load_attn_mask(av_model *m, const char *path, av_err *err) {
    av_npy a;
    av_status s = av_npy_read(&a, path, err);
    if (s) return s;
    size_t T = (size_t)m->cfg.T;
    if (!a.bytes || a.ndim != 2 || a.shape[0] != T || a.shape[1] != T) {
        av_fail(err, AV_EUSAGE, "--attn-mask '%s' must be a bool (T, T) = (%zu, %zu) array (True = masked); got dtype %s, %d dims",
                path, T, T, a.descr, a.ndim);
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
        if (!items[i].data) continue; /* PE only with sinusoidal */
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

static av_status plot_all(const av_model *m, const av_tokens *toks, const av_options *o, const char *cmdline,
                          written_list *w, av_err *err) {
    av_status s;
    if ((s = av_mkdir_p(o->outdir, err))) return s;
    int H = m->cfg.H, T = m->cfg.T;
    char mask[128], pos[96], path[4096], desc[8192];
    av_mask_desc(mask, sizeof mask, &m->cfg, m->user_mask != NULL);
    if (m->cfg.positions == AV_POS_ROPE)
        snprintf(pos, sizeof pos, "RoPE (%s)", av_rope_style_name(m->cfg.rope_style));
    else
        snprintf(pos, sizeof pos, "%s", av_positions_name(m->cfg.positions));
    snprintf(desc, sizeof desc, "%s (seed %llu)", cmdline, (unsigned long long)m->cfg.seed);
    av_plot_meta meta = {.software = "attnviz " AV_VERSION, .description = desc};

    av_heatmap *hms = calloc((size_t)H, sizeof *hms);
    char (*titles)[512] = calloc((size_t)H, sizeof *titles);
    if (!hms || !titles) { free(hms); free(titles); return av_fail(err, AV_ERUNTIME, "out of memory"); }
    for (int h = 0; h < H; h++) {
        snprintf(titles[h], sizeof titles[h], "head %d of %d · positions: %s · mask: %s%s", h, H, pos, mask,
                 m->cfg.scale ? "" : " · no scale");
        hms[h] = (av_heatmap){titles[h], T, T, (const char *const *)toks->tok, (const char *const *)toks->tok,
                              m->att + (size_t)h * T * T, m->mask};
    }
    av_plot_reset_missing();
    for (int h = 0; h < H && !s; h++) {
        char name[64];
        snprintf(name, sizeof name, "head%d.png", h);
        join_path(path, sizeof path, o->outdir, name);
        if (!(s = av_plot_head(path, &hms[h], &meta, err))) note_written(w, path);
    }
    if (!s && H > 1) {
        char title[512];
        snprintf(title, sizeof title, "attention weights, all %d heads · positions: %s · mask: %s", H, pos, mask);
        join_path(path, sizeof path, o->outdir, "heads.png");
        if (!(s = av_plot_grid(path, hms, H, title, &meta, err))) note_written(w, path);
    }
    free(hms);
    free(titles);
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
    if (!st) cmd = command_line(argc, argv);
    if (!st && o.compare) {
        char path[4096], name[64], desc[8192];
        const char *what[] = {"", "scale", "positions", "rope-style", "order"};
        snprintf(name, sizeof name, "compare_%s.png", what[o.compare]);
        join_path(path, sizeof path, o.outdir, name);
        snprintf(desc, sizeof desc, "%s (seed %llu)", cmd ? cmd : "attnviz", (unsigned long long)m.cfg.seed);
        av_plot_meta meta = {.software = "attnviz " AV_VERSION, .description = desc};
        int fig = !o.no_plot && o.compare != AV_CMP_ORDER;
        if (fig) st = av_mkdir_p(o.outdir, &err);
        FILE *out = o.quiet ? fopen("/dev/null", "w") : stdout;
        if (!out) out = stdout;
        if (!st) st = av_compare(out, &m, &toks, (av_compare_kind)o.compare, o.head, fig ? path : NULL, &meta, color, &err);
        if (out != stdout) fclose(out);
        if (!st && fig) note_written(&w, path);
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
