/* pitfalls.h - the harness of the pitfall tests (tests/test_pitfalls_*.c, one
 * file per group of the pitfalls P1-P10 listed in tests/data/pitfalls.md,
 * plus "no NaN or Inf ever"). Each test is named after the case it pins.
 *
 * Every test drives the REAL binary ($ATTNVIZ_BIN): it writes X.npy and
 * W_Q/W_K/W_V/W_O.npy for --weights (and a bool (T, T) .npy for --attn-mask),
 * runs attnviz with --dump, and reads the dumped tensors back with
 * av_npy_read. Expected values are either the numbers printed in the pitfalls
 * list (double precision, rounded to 6 places) or computed here, in double,
 * from the paper formulas by ref_forward() below. attnviz's own kernels are
 * never called. Each case covers the whole kind, not only the example: a sweep
 * over sizes, head counts, positions, RoPE styles and masks.
 *
 * Every run that dumps is followed by check_dump_dir(), which walks the dump
 * folder and fails on any non-finite value in any .npy. It reads the bytes
 * itself, so it does not depend on npy.c. check_rows() then pins the softmax
 * row rules: a masked weight is exactly 0; a fully masked row has weights,
 * context and output rows exactly 0; every other row sums to 1 within 1e-6.
 *
 * Tolerances (float32 dumps against a double reference):
 *   values pinned in the pitfalls list   2e-6 (6-place rounding 5e-7 + float32)
 *   attention weights vs reference       2e-6 absolute
 *   Q, K, V, scores, context, output     1e-5 absolute + 1e-5 relative
 *   row sums                             1e-6
 * A failure reports the worst difference, where it is, and the run's options.
 *
 * The pictures are pinned elsewhere: P2's fully masked row drawn as masked
 * by tests/test_plot.c (test_fully_masked_row_is_masked) and its figure
 * written here (test_P2_fully_masked_row_figure_written); P10's labelled
 * mean-over-heads figure (--figures mean) by tests/test_figures.c
 * (test_P10_mean_figure_is_the_mean).
 */
#ifndef AV_TEST_PITFALLS_H
#define AV_TEST_PITFALLS_H

#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "io/npy.h"

/* ------------------------------------------------------------------------- */
/* fixture: one scratch folder per test */

typedef tu_fixture fixture; /* dir, and runs: numbers the run folders inside dir */
#define setup tu_setup_tmpdir
#define teardown tu_teardown_tmpdir

/* ------------------------------------------------------------------------- */
/* deterministic inputs */

static uint64_t rng_s = 1;

static inline void rng_seed(uint64_t s) { rng_s = s * 0x9e3779b97f4a7c15ull + 1; }

/* A multiple of 1/64 in [-1, 1]: exact in float32, so inputs round-trip. */
static inline double rnd(void) {
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return (double)((int)(rng_s % 129) - 64) / 64.0;
}

static inline float *rand_mat(size_t n, double scale) {
    float *a = malloc(n * sizeof *a + 1);
    for (size_t i = 0; i < n; i++) a[i] = (float)(rnd() * scale);
    return a;
}

static inline float *zeros(size_t n) { return calloc(n + 1, sizeof(float)); }

static inline float *eye(int C) {
    float *a = zeros((size_t)C * C);
    for (int i = 0; i < C; i++) a[(size_t)i * C + i] = 1.0f;
    return a;
}

/* ------------------------------------------------------------------------- */
/* one attnviz run: inputs, options, and where its dump goes */

typedef struct {
    int T;                    /* tokens including <pad> */
    int n_real;               /* sentence tokens; 0 means T (no --pad-to) */
    int C, H;                 /* --d-model, --heads */
    const char *positions;    /* NULL = "none" */
    const char *rope_style;   /* NULL = default (interleaved) */
    double rope_base;         /* 0 = default (10000) */
    int causal, no_scale;
    const float *X;           /* (T, C), or NULL = seeded */
    const float *W_Q, *W_K, *W_V, *W_O; /* (C, C) each, or NULL = seeded */
    const unsigned char *attn_mask;     /* (T, T), 1 = masked, or NULL */
    int trace;                /* 1 = print the trace (no -q) */
    int verbose;              /* 1 = -v */
    int plot_to_outdir;       /* 1 = draw figures into run->outdir instead of --no-plot */
} job;

typedef struct {
    tu_result r;
    char in[4096], dump[4096], outdir[4096], mask[4200];
    char desc[512]; /* the options, for failure messages */
    int verbose;    /* the run used -v */
    char nums[6][48];
    char sentence[4096];
} run_t;

static const char *pos_name(const job *j) { return j->positions ? j->positions : "none"; }

static inline void write_f32(const char *dir, const char *name, const float *data, size_t rows, size_t cols) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t shape[2] = {rows, cols};
    av_err err = {{0}};
    if (av_npy_write(path, data, 2, shape, &err)) fail_msg("writing test input %s: %s", path, err.msg);
}

static inline void run_job(fixture *f, const job *j, run_t *run) {
    memset(run, 0, sizeof *run);
    int id = ++f->runs, T = j->T, C = j->C;
    int n_real = j->n_real ? j->n_real : T;
    snprintf(run->in, sizeof run->in, "%s/run%d_in", f->dir, id);
    snprintf(run->dump, sizeof run->dump, "%s/run%d_dump", f->dir, id);
    snprintf(run->outdir, sizeof run->outdir, "%s/run%d_png", f->dir, id);
    if (mkdir(run->in, 0700) != 0) fail_msg("mkdir %s failed", run->in);

    int any = 0;
    if (j->X) { write_f32(run->in, "X.npy", j->X, (size_t)T, (size_t)C); any = 1; }
    const float *w[4] = {j->W_Q, j->W_K, j->W_V, j->W_O};
    const char *wn[4] = {"W_Q.npy", "W_K.npy", "W_V.npy", "W_O.npy"};
    for (int i = 0; i < 4; i++)
        if (w[i]) { write_f32(run->in, wn[i], w[i], (size_t)C, (size_t)C); any = 1; }
    if (j->attn_mask) {
        snprintf(run->mask, sizeof run->mask, "%s/mask_in.npy", run->in);
        size_t shape[2] = {(size_t)T, (size_t)T};
        av_err err = {{0}};
        if (av_npy_write_bool(run->mask, j->attn_mask, 2, shape, &err)) fail_msg("writing mask: %s", err.msg);
    }
    for (int i = 0; i < n_real; i++) {
        size_t at = strlen(run->sentence);
        snprintf(run->sentence + at, sizeof run->sentence - at, "%s%c", i ? " " : "", 'a' + i % 26);
    }

    const char *args[64];
    int n = 0;
    snprintf(run->nums[0], 48, "%d", C);
    snprintf(run->nums[1], 48, "%d", j->H);
    args[n++] = "--d-model"; args[n++] = run->nums[0];
    args[n++] = "--heads";   args[n++] = run->nums[1];
    args[n++] = "--positions"; args[n++] = pos_name(j);
    if (j->rope_style) { args[n++] = "--rope-style"; args[n++] = j->rope_style; }
    if (j->rope_base > 0) {
        snprintf(run->nums[2], 48, "%.17g", j->rope_base);
        args[n++] = "--rope-base"; args[n++] = run->nums[2];
    }
    if (j->causal) args[n++] = "--causal";
    if (j->no_scale) args[n++] = "--no-scale";
    if (n_real < T) {
        snprintf(run->nums[3], 48, "%d", T);
        args[n++] = "--pad-to"; args[n++] = run->nums[3];
    }
    if (any) { args[n++] = "--weights"; args[n++] = run->in; }
    if (j->attn_mask) { args[n++] = "--attn-mask"; args[n++] = run->mask; }
    args[n++] = "--dump"; args[n++] = run->dump;
    if (j->plot_to_outdir) { args[n++] = "-o"; args[n++] = run->outdir; }
    else args[n++] = "--no-plot";
    if (!j->trace) args[n++] = "-q";
    if (j->verbose) args[n++] = "-v";
    args[n++] = run->sentence;
    args[n] = NULL;
    snprintf(run->desc, sizeof run->desc, "d_model=%d heads=%d T=%d%s positions=%s%s%s%s%s%s", C, j->H, T,
             n_real < T ? " (padded)" : "", pos_name(j), j->rope_style ? " style=" : "",
             j->rope_style ? j->rope_style : "", j->causal ? " causal" : "", j->no_scale ? " no-scale" : "",
             j->attn_mask ? " attn-mask" : "");
    run->verbose = j->verbose;
    tu_runv(&run->r, NULL, NULL, args);
}

/* 1 if s prints a non-finite number: "nan" or "NAN" (as printf writes it) as
 * a word of its own, and, unless allow_inf, "inf" or "INF" likewise. Prose
 * such as "(no NaN)" is fine, and -v prints "-inf" for a masked score on
 * purpose, so inf is allowed there. */
static inline int word_at(const char *s, const char *p, const char *w) {
    size_t l = strlen(w);
    int before = p > s && ((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z');
    int after = (p[l] | 32) >= 'a' && (p[l] | 32) <= 'z';
    return !before && !after;
}

static inline int prints_nonfinite(const char *s, int allow_inf) {
    const char *words[4] = {"nan", "NAN", "inf", "INF"};
    for (int w = 0; w < (allow_inf ? 2 : 4); w++)
        for (const char *p = strstr(s, words[w]); p; p = strstr(p + 1, words[w]))
            if (word_at(s, p, words[w])) return 1;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* "no NaN/Inf ever": an independent byte-level scan of every .npy in a folder */

static inline uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Scan one .npy file; returns NULL if every value is finite, else a message
 * in msg. */
static const char *scan_npy(const char *path, char *msg, size_t n) {
    FILE *fp = fopen(path, "rb");
    if (!fp) { snprintf(msg, n, "cannot open %s", path); return msg; }
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    size_t got = fread(b, 1, (size_t)len, fp);
    fclose(fp);
    const char *bad = NULL;
    if (got != (size_t)len || len < 12 || memcmp(b, "\x93NUMPY", 6) != 0) {
        snprintf(msg, n, "%s is not a .npy file", path);
        free(b);
        return msg;
    }
    size_t off = b[6] == 1 ? 10 : 12;
    size_t hl = b[6] == 1 ? (size_t)(b[8] | b[9] << 8) : (size_t)le32(b + 8);
    if (off + hl > (size_t)len) {
        snprintf(msg, n, "%s: header longer than the file", path);
        free(b);
        return msg;
    }
    char head[1024] = "";
    memcpy(head, b + off, hl < sizeof head - 1 ? hl : sizeof head - 1);
    size_t start = off + hl, ndata = (size_t)len - start;
    if (strstr(head, "'<f4'")) {
        for (size_t k = 0; k + 4 <= ndata && !bad; k += 4) {
            uint32_t u = le32(b + start + k);
            float v;
            memcpy(&v, &u, 4);
            if (!isfinite(v)) {
                snprintf(msg, n, "%s: value %g at flat index %zu is not finite", path, (double)v, k / 4);
                bad = msg;
            }
        }
    } else if (strstr(head, "'|b1'")) {
        for (size_t k = 0; k < ndata && !bad; k++)
            if (b[start + k] > 1) {
                snprintf(msg, n, "%s: bool byte %u at %zu", path, b[start + k], k);
                bad = msg;
            }
    } else {
        snprintf(msg, n, "%s: unexpected dtype in header %s", path, head);
        bad = msg;
    }
    free(b);
    return bad;
}

/* Walk dir and check every .npy in it; there must be at least min_files. */
static inline void check_dump_dir(const char *dir, int min_files) {
    DIR *dp = opendir(dir);
    if (!dp) fail_msg("dump folder %s missing", dir);
    int n = 0;
    struct dirent *e;
    char path[4400];
    while ((e = readdir(dp)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 4, ".npy") != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char msg[6144];
        if (scan_npy(path, msg, sizeof msg)) {
            closedir(dp);
            fail_msg("%s", msg);
        }
        n++;
    }
    closedir(dp);
    if (n < min_files) fail_msg("%s holds %d .npy files, expected at least %d", dir, n, min_files);
}

/* Exit 0, no NaN in the trace or messages, every dumped value finite. */
static inline void expect_ok(const run_t *run) {
    if (run->r.code != 0)
        fail_msg("[%s] attnviz exited %d; stderr: %s", run->desc, run->r.code, run->r.err);
    if (prints_nonfinite(run->r.out, run->verbose) || prints_nonfinite(run->r.err, 0))
        fail_msg("[%s] a non-finite number was printed:\n%s%s", run->desc, run->r.out, run->r.err);
    check_dump_dir(run->dump, 13);
}

/* ------------------------------------------------------------------------- */
/* reading a dump back */

enum { D_X, D_PE, D_WQ, D_WK, D_WV, D_WO, D_Q, D_K, D_V, D_S, D_A, D_CTX, D_OUT, D_MASK, D_N };

typedef struct {
    int T, C, H, D;
    av_npy a[D_N];
    const float *X, *PE, *W_Q, *W_K, *W_V, *W_O; /* PE NULL unless sinusoidal */
    const float *Q, *K, *V;                      /* (H, T, D) */
    const float *S, *A;                          /* (H, T, T) scores, weights */
    const float *ctx, *out;                      /* (T, C) */
    const unsigned char *mask;                   /* (T, T) */
} dump_t;

static inline void load_one(dump_t *d, int slot, const char *dir, const char *name, int ndim, size_t s0, size_t s1,
                     size_t s2) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    av_err err = {{0}};
    if (av_npy_read(&d->a[slot], path, &err)) fail_msg("reading the dump %s: %s", path, err.msg);
    size_t shape[3] = {s0, s1, s2};
    if (slot == D_MASK) {
        if (!d->a[slot].bytes || d->a[slot].ndim != 2 || d->a[slot].shape[0] != s0 || d->a[slot].shape[1] != s1)
            fail_msg("%s is not a bool (%zu, %zu) array", path, s0, s1);
        return;
    }
    if (av_npy_expect_shape(&d->a[slot], name, ndim, shape, &err)) fail_msg("%s", err.msg);
}

static inline void load_dump(dump_t *d, const run_t *run, const job *j) {
    memset(d, 0, sizeof *d);
    size_t T = (size_t)j->T, C = (size_t)j->C, H = (size_t)j->H, D = C / H;
    d->T = j->T; d->C = j->C; d->H = j->H; d->D = (int)D;
    const char *dir = run->dump;
    load_one(d, D_X, dir, "X.npy", 2, T, C, 0);
    if (strcmp(pos_name(j), "sinusoidal") == 0) load_one(d, D_PE, dir, "PE.npy", 2, T, C, 0);
    load_one(d, D_WQ, dir, "W_Q.npy", 2, C, C, 0);
    load_one(d, D_WK, dir, "W_K.npy", 2, C, C, 0);
    load_one(d, D_WV, dir, "W_V.npy", 2, C, C, 0);
    load_one(d, D_WO, dir, "W_O.npy", 2, C, C, 0);
    load_one(d, D_Q, dir, "Q.npy", 3, H, T, D);
    load_one(d, D_K, dir, "K.npy", 3, H, T, D);
    load_one(d, D_V, dir, "V.npy", 3, H, T, D);
    load_one(d, D_S, dir, "scores.npy", 3, H, T, T);
    load_one(d, D_A, dir, "weights.npy", 3, H, T, T);
    load_one(d, D_CTX, dir, "context.npy", 2, T, C, 0);
    load_one(d, D_OUT, dir, "output.npy", 2, T, C, 0);
    load_one(d, D_MASK, dir, "mask.npy", 2, T, T, 0);
    d->X = d->a[D_X].data; d->PE = d->a[D_PE].data;
    d->W_Q = d->a[D_WQ].data; d->W_K = d->a[D_WK].data; d->W_V = d->a[D_WV].data; d->W_O = d->a[D_WO].data;
    d->Q = d->a[D_Q].data; d->K = d->a[D_K].data; d->V = d->a[D_V].data;
    d->S = d->a[D_S].data; d->A = d->a[D_A].data;
    d->ctx = d->a[D_CTX].data; d->out = d->a[D_OUT].data;
    d->mask = d->a[D_MASK].bytes;
}

static inline void free_dump(dump_t *d) {
    for (int i = 0; i < D_N; i++)
        if (d->a[i].data || d->a[i].bytes) av_npy_free(&d->a[i]);
    memset(d, 0, sizeof *d);
}

/* ------------------------------------------------------------------------- */
/* the reference: the paper formulas in double, written from the math, not
 * from attnviz's kernels. Row vectors: Q = (X + PE)·W_Q (Vaswani et al. 2017
 * eq. 1 and §3.2.2); head h takes columns h·D..h·D+D-1; RoPE (Su et al. 2021
 * eq. 34) rotates pair i at position m by m·base^(-2i/D), pairs (2i, 2i+1)
 * (interleaved) or (i, i+D/2) (rotate-half); mask True = masked. */

typedef struct {
    int T, C, H, D;
    double *PE;                 /* (T, C), zeros unless sinusoidal */
    double *Q, *K, *V;          /* (H, T, D), Q and K after RoPE */
    double *S, *A;              /* (H, T, T) */
    double *ctx, *out;          /* (T, C) */
    unsigned char *mask;        /* (T, T) */
} ref_t;

static inline double pe_formula(int pos, int c, int C) {
    int i = c / 2; /* dims 2i and 2i+1 share the frequency */
    double angle = pos / pow(10000.0, 2.0 * i / C);
    return c % 2 == 0 ? sin(angle) : cos(angle);
}

/* Rotate one head row x (D values) at position pos, in place. */
static inline void rope_formula(double *x, int D, int pos, int half_style, double base) {
    for (int i = 0; i < D / 2; i++) {
        double angle = pos * pow(base, -2.0 * i / D);
        int a = half_style ? i : 2 * i, b = half_style ? i + D / 2 : 2 * i + 1;
        double xa = x[a], xb = x[b];
        x[a] = xa * cos(angle) - xb * sin(angle);
        x[b] = xa * sin(angle) + xb * cos(angle);
    }
}

/* Softmax of one row of T scores with mask m (1 = masked) into a; the scores
 * are taken as stored (float32), max subtracted; a fully masked row is 0. */
static inline void softmax_formula(double *a, const double *s, const unsigned char *m, int T) {
    double mx = -INFINITY;
    for (int j = 0; j < T; j++)
        if (!m[j] && (double)(float)s[j] > mx) mx = (double)(float)s[j];
    double sum = 0;
    for (int j = 0; j < T; j++) {
        a[j] = m[j] || mx == -INFINITY ? 0.0 : exp((double)(float)s[j] - mx);
        sum += a[j];
    }
    for (int j = 0; j < T; j++) a[j] = sum > 0 ? a[j] / sum : 0.0;
}

static inline void ref_forward(ref_t *r, const job *j, const float *X, const float *W_Q, const float *W_K,
                        const float *W_V, const float *W_O) {
    int T = j->T, C = j->C, H = j->H, D = C / H;
    int n_real = j->n_real ? j->n_real : T;
    const char *pos = pos_name(j);
    int rope = strcmp(pos, "rope") == 0, sinus = strcmp(pos, "sinusoidal") == 0;
    int half_style = j->rope_style && strcmp(j->rope_style, "half") == 0;
    double base = j->rope_base > 0 ? j->rope_base : 10000.0;
    double scale = j->no_scale ? 1.0 : 1.0 / sqrt((double)D);
    size_t TC = (size_t)T * C, HTT = (size_t)H * T * T;
    r->T = T; r->C = C; r->H = H; r->D = D;
    r->PE = calloc(TC, sizeof(double));
    r->Q = calloc(TC, sizeof(double)); r->K = calloc(TC, sizeof(double)); r->V = calloc(TC, sizeof(double));
    r->S = calloc(HTT, sizeof(double)); r->A = calloc(HTT, sizeof(double));
    r->ctx = calloc(TC, sizeof(double)); r->out = calloc(TC, sizeof(double));
    r->mask = calloc((size_t)T * T, 1);
    double *xp = calloc(TC, sizeof(double));
    for (int t = 0; t < T; t++)
        for (int c = 0; c < C; c++) {
            if (sinus) r->PE[(size_t)t * C + c] = pe_formula(t, c, C);
            xp[(size_t)t * C + c] = X[(size_t)t * C + c] + r->PE[(size_t)t * C + c];
        }
    const float *W[3] = {W_Q, W_K, W_V};
    double *dst[3] = {r->Q, r->K, r->V};
    for (int w = 0; w < 3; w++)
        for (int t = 0; t < T; t++)
            for (int o = 0; o < C; o++) {
                double acc = 0;
                for (int c = 0; c < C; c++) acc += xp[(size_t)t * C + c] * W[w][(size_t)c * C + o];
                dst[w][((size_t)(o / D) * T + t) * D + o % D] = acc; /* column o is head o/D, dim o%D */
            }
    if (rope)
        for (int h = 0; h < H; h++)
            for (int t = 0; t < T; t++) {
                rope_formula(r->Q + ((size_t)h * T + t) * D, D, t, half_style, base);
                rope_formula(r->K + ((size_t)h * T + t) * D, D, t, half_style, base);
            }
    for (int q = 0; q < T; q++)
        for (int k = 0; k < T; k++)
            r->mask[(size_t)q * T + k] = (unsigned char)((j->causal && k > q) || k >= n_real ||
                                                         (j->attn_mask && j->attn_mask[(size_t)q * T + k]));
    for (int h = 0; h < H; h++)
        for (int q = 0; q < T; q++) {
            double *s = r->S + ((size_t)h * T + q) * T;
            for (int k = 0; k < T; k++) {
                double dot = 0;
                for (int d = 0; d < D; d++)
                    dot += r->Q[((size_t)h * T + q) * D + d] * r->K[((size_t)h * T + k) * D + d];
                s[k] = dot * scale;
            }
            softmax_formula(r->A + ((size_t)h * T + q) * T, s, r->mask + (size_t)q * T, T);
            for (int d = 0; d < D; d++) {
                double acc = 0;
                for (int k = 0; k < T; k++)
                    acc += r->A[((size_t)h * T + q) * T + k] * r->V[((size_t)h * T + k) * D + d];
                r->ctx[(size_t)q * C + h * D + d] = acc;
            }
        }
    for (int t = 0; t < T; t++)
        for (int o = 0; o < C; o++) {
            double acc = 0;
            for (int c = 0; c < C; c++) acc += r->ctx[(size_t)t * C + c] * W_O[(size_t)c * C + o];
            r->out[(size_t)t * C + o] = acc;
        }
    free(xp);
}

static inline void free_ref(ref_t *r) {
    free(r->PE); free(r->Q); free(r->K); free(r->V); free(r->S); free(r->A);
    free(r->ctx); free(r->out); free(r->mask);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------------------- */
/* comparisons that report the worst difference and where it is */

static inline void cmp_arr(const char *ctx, const char *what, const float *got, const double *want, int ndim,
                    size_t s0, size_t s1, size_t s2, double atol, double rtol) {
    size_t n = s0 * (ndim > 1 ? s1 : 1) * (ndim > 2 ? s2 : 1);
    size_t bad = 0, worst_at = 0;
    double worst_ratio = 0;
    for (size_t i = 0; i < n; i++) {
        double diff = fabs((double)got[i] - want[i]), lim = atol + rtol * fabs(want[i]);
        double ratio = isnan(diff) ? INFINITY : diff / lim;
        if (!(diff <= lim)) bad++;
        if (ratio > worst_ratio || (isnan(diff) && worst_ratio != INFINITY)) { worst_ratio = ratio; worst_at = i; }
    }
    if (bad) {
        char where[96];
        size_t i = worst_at;
        if (ndim == 3) snprintf(where, sizeof where, "[%zu][%zu][%zu]", i / (s1 * s2), i / s2 % s1, i % s2);
        else if (ndim == 2) snprintf(where, sizeof where, "[%zu][%zu]", i / s1, i % s1);
        else snprintf(where, sizeof where, "[%zu]", i);
        fail_msg("[%s] %s: %zu of %zu values off; worst at %s: got %.9g, want %.9g (|diff| %.3g, tol %.3g)", ctx,
                 what, bad, n, where, (double)got[worst_at], want[worst_at], fabs((double)got[worst_at] - want[worst_at]),
                 atol + rtol * fabs(want[worst_at]));
    }
}

static inline void cmp_f32(const char *ctx, const char *what, const float *got, const float *want, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0)
            fail_msg("[%s] %s[%zu] = %.9g, expected exactly %.9g", ctx, what, i, (double)got[i], (double)want[i]);
}

/* Compare a whole dump with the reference computed from the dumped inputs.
 * The caller has already checked the dumped inputs equal what it supplied. */
static inline void check_against_ref(const dump_t *d, const job *j, const char *ctx) {
    ref_t r;
    ref_forward(&r, j, d->X, d->W_Q, d->W_K, d->W_V, d->W_O);
    size_t T = (size_t)d->T, C = (size_t)d->C, H = (size_t)d->H, D = (size_t)d->D;
    for (size_t i = 0; i < T * T; i++)
        if (d->mask[i] != r.mask[i])
            fail_msg("[%s] mask.npy[%zu][%zu] = %d, expected %d (1 = masked)", ctx, i / T, i % T, d->mask[i],
                     r.mask[i]);
    if (d->PE) cmp_arr(ctx, "PE.npy", d->PE, r.PE, 2, T, C, 0, 1e-6, 0);
    cmp_arr(ctx, "Q.npy", d->Q, r.Q, 3, H, T, D, 1e-5, 1e-5);
    cmp_arr(ctx, "K.npy", d->K, r.K, 3, H, T, D, 1e-5, 1e-5);
    cmp_arr(ctx, "V.npy", d->V, r.V, 3, H, T, D, 1e-5, 1e-5);
    cmp_arr(ctx, "scores.npy", d->S, r.S, 3, H, T, T, 1e-5, 1e-5);
    cmp_arr(ctx, "weights.npy", d->A, r.A, 3, H, T, T, 2e-6, 0);
    cmp_arr(ctx, "context.npy", d->ctx, r.ctx, 2, T, C, 0, 1e-5, 1e-5);
    cmp_arr(ctx, "output.npy", d->out, r.out, 2, T, C, 0, 1e-5, 1e-5);
    free_ref(&r);
}

/* The softmax row rules on the dumped weights and the dumped mask. Returns
 * the number of fully masked query rows (per query, shared by all heads). */
static inline int check_rows(const dump_t *d, const char *ctx) {
    int T = d->T, C = d->C, H = d->H, full = 0;
    for (int i = 0; i < T; i++) {
        const unsigned char *m = d->mask + (size_t)i * T;
        int open = 0;
        for (int k = 0; k < T; k++) open += !m[k];
        if (!open) {
            full++;
            for (int c = 0; c < C; c++)
                if (d->ctx[(size_t)i * C + c] != 0.0f || d->out[(size_t)i * C + c] != 0.0f)
                    fail_msg("[%s] query %d has every key masked but context/output[%d][%d] = %g / %g, expected 0",
                             ctx, i, i, c, (double)d->ctx[(size_t)i * C + c], (double)d->out[(size_t)i * C + c]);
        }
        for (int h = 0; h < H; h++) {
            const float *a = d->A + ((size_t)h * T + i) * T;
            double sum = 0;
            for (int k = 0; k < T; k++) {
                if (!(a[k] >= 0.0f && a[k] <= 1.0f))
                    fail_msg("[%s] weights[%d][%d][%d] = %g is outside [0, 1]", ctx, h, i, k, (double)a[k]);
                if (m[k] && a[k] != 0.0f)
                    fail_msg("[%s] weights[%d][%d][%d] = %g but the key is masked (want exactly 0)", ctx, h, i, k,
                             (double)a[k]);
                sum += a[k];
            }
            if (!open && sum != 0.0)
                fail_msg("[%s] head %d query %d is fully masked but its weights sum to %g (want all 0)", ctx, h, i, sum);
            if (open && fabs(sum - 1.0) > 1e-6)
                fail_msg("[%s] head %d query %d: weights sum to %.9f, want 1 within 1e-6", ctx, h, i, sum);
        }
    }
    return full;
}

/* Run j, expect success, load the dump, check the inputs came through
 * unchanged, the row rules, and (with_ref) every tensor against the reference. */
static inline void run_and_check(fixture *f, const job *j, run_t *run, dump_t *d, int with_ref) {
    run_job(f, j, run);
    expect_ok(run);
    load_dump(d, run, j);
    size_t TC = (size_t)j->T * j->C, CC = (size_t)j->C * j->C;
    if (j->X) cmp_f32(run->desc, "dumped X.npy", d->X, j->X, TC);
    if (j->W_Q) cmp_f32(run->desc, "dumped W_Q.npy", d->W_Q, j->W_Q, CC);
    if (j->W_K) cmp_f32(run->desc, "dumped W_K.npy", d->W_K, j->W_K, CC);
    if (j->W_V) cmp_f32(run->desc, "dumped W_V.npy", d->W_V, j->W_V, CC);
    if (j->W_O) cmp_f32(run->desc, "dumped W_O.npy", d->W_O, j->W_O, CC);
    check_rows(d, run->desc);
    if (with_ref) check_against_ref(d, j, run->desc);
}

static const float *A_row(const dump_t *d, int h, int i) { return d->A + ((size_t)h * d->T + i) * d->T; }

static inline void expect_row(const dump_t *d, int h, int i, const double *want, double tol, const char *ctx) {
    const float *a = A_row(d, h, i);
    for (int k = 0; k < d->T; k++)
        if (!(fabs((double)a[k] - want[k]) <= tol))
            fail_msg("[%s] weights[%d][%d][%d] = %.9f, want %.6f (tol %g)", ctx, h, i, k, (double)a[k], want[k], tol);
}

/* ========================================================================= */

#endif
