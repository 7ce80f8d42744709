/* test_pitfalls.c - regression tests for the attention pitfalls P1-P10 listed
 * in tests/data/pitfalls.md, plus "no NaN or Inf ever". Each test is named
 * after the case it pins.
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

static void rng_seed(uint64_t s) { rng_s = s * 0x9e3779b97f4a7c15ull + 1; }

/* A multiple of 1/64 in [-1, 1]: exact in float32, so inputs round-trip. */
static double rnd(void) {
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return (double)((int)(rng_s % 129) - 64) / 64.0;
}

static float *rand_mat(size_t n, double scale) {
    float *a = malloc(n * sizeof *a + 1);
    for (size_t i = 0; i < n; i++) a[i] = (float)(rnd() * scale);
    return a;
}

static float *zeros(size_t n) { return calloc(n + 1, sizeof(float)); }

static float *eye(int C) {
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

static void write_f32(const char *dir, const char *name, const float *data, size_t rows, size_t cols) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t shape[2] = {rows, cols};
    av_err err = {{0}};
    if (av_npy_write(path, data, 2, shape, &err)) fail_msg("writing test input %s: %s", path, err.msg);
}

static void run_job(fixture *f, const job *j, run_t *run) {
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
static int word_at(const char *s, const char *p, const char *w) {
    size_t l = strlen(w);
    int before = p > s && ((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z');
    int after = (p[l] | 32) >= 'a' && (p[l] | 32) <= 'z';
    return !before && !after;
}

static int prints_nonfinite(const char *s, int allow_inf) {
    const char *words[4] = {"nan", "NAN", "inf", "INF"};
    for (int w = 0; w < (allow_inf ? 2 : 4); w++)
        for (const char *p = strstr(s, words[w]); p; p = strstr(p + 1, words[w]))
            if (word_at(s, p, words[w])) return 1;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* "no NaN/Inf ever": an independent byte-level scan of every .npy in a folder */

static uint32_t le32(const unsigned char *p) {
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
static void check_dump_dir(const char *dir, int min_files) {
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
static void expect_ok(const run_t *run) {
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

static void load_one(dump_t *d, int slot, const char *dir, const char *name, int ndim, size_t s0, size_t s1,
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

static void load_dump(dump_t *d, const run_t *run, const job *j) {
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

static void free_dump(dump_t *d) {
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

static double pe_formula(int pos, int c, int C) {
    int i = c / 2; /* dims 2i and 2i+1 share the frequency */
    double angle = pos / pow(10000.0, 2.0 * i / C);
    return c % 2 == 0 ? sin(angle) : cos(angle);
}

/* Rotate one head row x (D values) at position pos, in place. */
static void rope_formula(double *x, int D, int pos, int half_style, double base) {
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
static void softmax_formula(double *a, const double *s, const unsigned char *m, int T) {
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

static void ref_forward(ref_t *r, const job *j, const float *X, const float *W_Q, const float *W_K,
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

static void free_ref(ref_t *r) {
    free(r->PE); free(r->Q); free(r->K); free(r->V); free(r->S); free(r->A);
    free(r->ctx); free(r->out); free(r->mask);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------------------- */
/* comparisons that report the worst difference and where it is */

static void cmp_arr(const char *ctx, const char *what, const float *got, const double *want, int ndim,
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
        char where[64];
        size_t i = worst_at;
        if (ndim == 3) snprintf(where, sizeof where, "[%zu][%zu][%zu]", i / (s1 * s2), i / s2 % s1, i % s2);
        else if (ndim == 2) snprintf(where, sizeof where, "[%zu][%zu]", i / s1, i % s1);
        else snprintf(where, sizeof where, "[%zu]", i);
        fail_msg("[%s] %s: %zu of %zu values off; worst at %s: got %.9g, want %.9g (|diff| %.3g, tol %.3g)", ctx,
                 what, bad, n, where, (double)got[worst_at], want[worst_at], fabs((double)got[worst_at] - want[worst_at]),
                 atol + rtol * fabs(want[worst_at]));
    }
}

static void cmp_f32(const char *ctx, const char *what, const float *got, const float *want, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0)
            fail_msg("[%s] %s[%zu] = %.9g, expected exactly %.9g", ctx, what, i, (double)got[i], (double)want[i]);
}

/* Compare a whole dump with the reference computed from the dumped inputs.
 * The caller has already checked the dumped inputs equal what it supplied. */
static void check_against_ref(const dump_t *d, const job *j, const char *ctx) {
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
static int check_rows(const dump_t *d, const char *ctx) {
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
static void run_and_check(fixture *f, const job *j, run_t *run, dump_t *d, int with_ref) {
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

static void expect_row(const dump_t *d, int h, int i, const double *want, double tol, const char *ctx) {
    const float *a = A_row(d, h, i);
    for (int k = 0; k < d->T; k++)
        if (!(fabs((double)a[k] - want[k]) <= tol))
            fail_msg("[%s] weights[%d][%d][%d] = %.9f, want %.6f (tol %g)", ctx, h, i, k, (double)a[k], want[k], tol);
}

/* ========================================================================= */
/* P1. The scale is 1/sqrt(d_k), not 1/sqrt(d_model), not missing. */

static void test_P1_scale_is_sqrt_dk_example(void **state) {
    fixture *f = *state;
    /* d_model 8, heads 2, d_k 4. Head 0 (columns 0..3): q = k0 = [1,1,1,1], k1 = 0.
     * Head 1 (columns 4..7) gets other values so the heads differ. */
    const float X[2 * 8] = {1, 1, 1, 1, 0.5f, -1, 2, 0,
                            0, 0, 0, 0, 1, 2, 3, 4};
    float *I = eye(8);
    job j = {.T = 2, .C = 8, .H = 2, .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    const double want[2] = {0.880797, 0.119203}; /* not [0.804430, 0.195570] (sqrt 8) */
    assert_true(d.S[0] == 2.0f && d.S[1] == 0.0f);  /* 4 / sqrt(4) */
    expect_row(&d, 0, 0, want, 2e-6, run.desc);
    free_dump(&d);
    tu_free(&run.r);

    j.no_scale = 1; /* --no-scale keeps Q·Kᵀ: [0.982014, 0.017986] */
    run_and_check(f, &j, &run, &d, 1);
    const double want_raw[2] = {0.982014, 0.017986};
    assert_true(d.S[0] == 4.0f && d.S[1] == 0.0f);
    expect_row(&d, 0, 0, want_raw, 2e-6, run.desc);
    free_dump(&d);
    tu_free(&run.r);
    free(I);
}

static void test_P1_scale_is_sqrt_dk_grid(void **state) {
    fixture *f = *state;
    const int Cs[] = {4, 8, 12, 16, 24, 32, 64};
    int runs = 0;
    for (size_t ci = 0; ci < sizeof Cs / sizeof Cs[0]; ci++) {
        int C = Cs[ci], T = 5;
        for (int H = 1; H <= C && H <= 64; H++) {
            if (C % H) continue;
            for (int no_scale = 0; no_scale < 2; no_scale++) {
                rng_seed((uint64_t)(C * 100 + H));
                float *X = rand_mat((size_t)T * C, 1.0);
                float *WQ = rand_mat((size_t)C * C, 1.0 / sqrt(C)), *WK = rand_mat((size_t)C * C, 1.0 / sqrt(C));
                float *WV = rand_mat((size_t)C * C, 1.0 / sqrt(C)), *WO = rand_mat((size_t)C * C, 1.0 / sqrt(C));
                job j = {.T = T, .C = C, .H = H, .no_scale = no_scale, .X = X, .W_Q = WQ, .W_K = WK, .W_V = WV,
                         .W_O = WO};
                run_t run;
                dump_t d;
                run_and_check(f, &j, &run, &d, 1);
                /* scores.npy against the dumped Q, K: Q·Kᵀ/sqrt(d_k) (or Q·Kᵀ), in double */
                int D = C / H;
                double scale = no_scale ? 1.0 : 1.0 / sqrt((double)D);
                double *S = malloc(sizeof(double) * (size_t)H * T * T), *A = malloc(sizeof(double) * (size_t)H * T * T);
                unsigned char none[64] = {0};
                for (int h = 0; h < H; h++)
                    for (int q = 0; q < T; q++) {
                        for (int k = 0; k < T; k++) {
                            double dot = 0;
                            for (int e = 0; e < D; e++)
                                dot += (double)d.Q[((size_t)h * T + q) * D + e] * d.K[((size_t)h * T + k) * D + e];
                            S[((size_t)h * T + q) * T + k] = dot * scale;
                        }
                        softmax_formula(A + ((size_t)h * T + q) * T, S + ((size_t)h * T + q) * T, none, T);
                    }
                cmp_arr(run.desc, "scores.npy vs dumped Q·Kᵀ/sqrt(d_k)", d.S, S, 3, (size_t)H, (size_t)T, (size_t)T,
                        1e-5, 1e-5);
                cmp_arr(run.desc, "weights.npy vs softmax(scores)", d.A, A, 3, (size_t)H, (size_t)T, (size_t)T, 2e-6, 0);
                free(S); free(A);
                free_dump(&d);
                tu_free(&run.r);
                free(X); free(WQ); free(WK); free(WV); free(WO);
                runs++;
            }
        }
    }
    assert_int_equal(runs, 2 * (3 + 4 + 6 + 5 + 8 + 6 + 7));
}

/* ========================================================================= */
/* P2. A query whose keys are all masked: weights 0, output row 0, no NaN,
 * and the trace says so. The picture ("the figure shows the row as masked",
 * "no NaN in any PNG") cannot be checked here: these runs use --no-plot so
 * they do not depend on the figure module. */

static int count_full_rows(const unsigned char *m, int T) {
    int n = 0;
    for (int i = 0; i < T; i++) {
        int open = 0;
        for (int k = 0; k < T; k++) open += !m[(size_t)i * T + k];
        n += open == 0;
    }
    return n;
}

static void expect_trace_says_fully_masked(const run_t *run, int yes) {
    int says = strstr(run->r.out, "every key masked") != NULL;
    if (says != yes)
        fail_msg("[%s] the trace %s 'every key masked':\n%s", run->desc, yes ? "does not say" : "wrongly says",
                 run->r.out);
}

static void test_P2_fully_masked_row_attn_mask(void **state) {
    fixture *f = *state;
    int T = 4, C = 8, H = 2;
    rng_seed(21);
    float *X = rand_mat((size_t)T * C, 1.0), *WQ = rand_mat((size_t)C * C, 0.5), *WK = rand_mat((size_t)C * C, 0.5);
    float *WV = rand_mat((size_t)C * C, 0.5), *WO = rand_mat((size_t)C * C, 0.5);
    unsigned char M[16] = {0, 0, 0, 1,
                           1, 1, 1, 1,   /* query 1: every key masked */
                           0, 0, 0, 0,
                           1, 1, 0, 0};
    for (int verbose = 0; verbose < 2; verbose++) {
        job j = {.T = T, .C = C, .H = H, .X = X, .W_Q = WQ, .W_K = WK, .W_V = WV, .W_O = WO, .attn_mask = M,
                 .trace = 1, .verbose = verbose};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        assert_int_equal(check_rows(&d, run.desc), 1);
        for (int h = 0; h < H; h++)
            for (int k = 0; k < T; k++) assert_true(A_row(&d, h, 1)[k] == 0.0f);
        expect_trace_says_fully_masked(&run, 1);
        free_dump(&d);
        tu_free(&run.r);
    }
    /* the same input without the fully masked row: the trace must not say it */
    M[4] = 0;
    job j = {.T = T, .C = C, .H = H, .X = X, .W_Q = WQ, .W_K = WK, .W_V = WV, .W_O = WO, .attn_mask = M, .trace = 1};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    assert_int_equal(check_rows(&d, run.desc), 0);
    expect_trace_says_fully_masked(&run, 0);
    free_dump(&d);
    tu_free(&run.r);
    free(X); free(WQ); free(WK); free(WV); free(WO);
}

static void test_P2_fully_masked_row_with_causal(void **state) {
    fixture *f = *state;
    int T = 5, C = 8, H = 2;
    rng_seed(22);
    float *X = rand_mat((size_t)T * C, 1.0), *WQ = rand_mat((size_t)C * C, 0.5), *WK = rand_mat((size_t)C * C, 0.5);
    float *WV = rand_mat((size_t)C * C, 0.5), *WO = rand_mat((size_t)C * C, 0.5);
    /* With causal, query 0 sees only key 0 and query 3 sees keys 0..3: this
     * mask hides exactly those, so rows 0 and 3 are fully masked; row 2 keeps
     * only its own key. */
    unsigned char M[25] = {1, 0, 0, 0, 0,
                           0, 0, 0, 0, 0,
                           1, 1, 0, 0, 0,
                           1, 1, 1, 1, 0,
                           0, 0, 0, 0, 0};
    const char *pos[] = {"none", "sinusoidal", "rope"};
    for (int p = 0; p < 3; p++) {
        job j = {.T = T, .C = C, .H = H, .positions = pos[p], .causal = 1, .X = X, .W_Q = WQ, .W_K = WK, .W_V = WV,
                 .W_O = WO, .attn_mask = M, .trace = 1};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        assert_int_equal(check_rows(&d, run.desc), 2);
        for (int h = 0; h < H; h++) {
            const double one_hot[5] = {0, 0, 1, 0, 0};
            expect_row(&d, h, 2, one_hot, 0, run.desc);
        }
        expect_trace_says_fully_masked(&run, 1);
        free_dump(&d);
        tu_free(&run.r);
    }
    free(X); free(WQ); free(WK); free(WV); free(WO);
}

static void test_P2_fully_masked_row_with_padding(void **state) {
    fixture *f = *state;
    int T = 5, n_real = 3, C = 8, H = 2;
    rng_seed(23);
    float *X = rand_mat((size_t)T * C, 1.0), *WQ = rand_mat((size_t)C * C, 0.5), *WK = rand_mat((size_t)C * C, 0.5);
    float *WV = rand_mat((size_t)C * C, 0.5), *WO = rand_mat((size_t)C * C, 0.5);
    run_t run;
    dump_t d;

    /* (a) --pad-to alone: a <pad> query still sees the real keys (key padding
     * masks keys, not queries), so no row is fully masked; pad keys get 0. */
    for (int causal = 0; causal < 2; causal++) {
        job j = {.T = T, .n_real = n_real, .C = C, .H = H, .causal = causal, .X = X, .W_Q = WQ, .W_K = WK,
                 .W_V = WV, .W_O = WO, .trace = 1};
        run_and_check(f, &j, &run, &d, 1);
        assert_int_equal(check_rows(&d, run.desc), 0);
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++)
                for (int k = n_real; k < T; k++) assert_true(A_row(&d, h, i)[k] == 0.0f);
        expect_trace_says_fully_masked(&run, 0);
        free_dump(&d);
        tu_free(&run.r);
    }

    /* (b) padding + --attn-mask hiding the real keys of a <pad> query (4) and
     * of a real query (1): both rows fully masked. */
    unsigned char M[25] = {0};
    for (int k = 0; k < n_real; k++) M[1 * T + k] = M[4 * T + k] = 1;
    job j = {.T = T, .n_real = n_real, .C = C, .H = H, .X = X, .W_Q = WQ, .W_K = WK, .W_V = WV, .W_O = WO,
             .attn_mask = M, .trace = 1};
    run_and_check(f, &j, &run, &d, 1);
    assert_int_equal(check_rows(&d, run.desc), 2);
    expect_trace_says_fully_masked(&run, 1);
    free_dump(&d);
    tu_free(&run.r);

    /* (c) padding + causal + --attn-mask: query 0 loses key 0, <pad> query 3
     * loses keys 0..2 (key 3 is <pad>, key 4 is in its future). */
    unsigned char M2[25] = {0};
    M2[0] = 1;
    for (int k = 0; k < n_real; k++) M2[3 * T + k] = 1;
    j.causal = 1;
    j.attn_mask = M2;
    run_and_check(f, &j, &run, &d, 1);
    assert_int_equal(check_rows(&d, run.desc), 2);
    for (int h = 0; h < H; h++)
        for (int k = 0; k < T; k++) assert_true(A_row(&d, h, 0)[k] == 0.0f && A_row(&d, h, 3)[k] == 0.0f);
    expect_trace_says_fully_masked(&run, 1);
    free_dump(&d);
    tu_free(&run.r);
    free(X); free(WQ); free(WK); free(WV); free(WO);
}

static void test_P2_every_row_masked(void **state) {
    fixture *f = *state;
    int T = 3, C = 4, H = 2;
    rng_seed(24);
    float *X = rand_mat((size_t)T * C, 1.0);
    unsigned char M[9];
    memset(M, 1, sizeof M);
    for (int causal = 0; causal < 2; causal++) {
        job j = {.T = T, .C = C, .H = H, .positions = causal ? "rope" : "sinusoidal", .causal = causal, .X = X,
                 .attn_mask = M, .trace = 1, .verbose = 1};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        assert_int_equal(check_rows(&d, run.desc), T);
        assert_int_equal(count_full_rows(d.mask, T), T);
        for (size_t i = 0; i < (size_t)H * T * T; i++) assert_true(d.A[i] == 0.0f);
        for (size_t i = 0; i < (size_t)T * C; i++) assert_true(d.out[i] == 0.0f && d.ctx[i] == 0.0f);
        expect_trace_says_fully_masked(&run, 1);
        free_dump(&d);
        tu_free(&run.r);
    }
    free(X);
}

/* The same fully masked row with figures on: every figure is still written.
 * Whether the row is DRAWN as masked (not as weight 0) and whether any pixel
 * came from a NaN cannot be read back through the CLI; that belongs to the
 * figure module's own tests (it is given the mask with each heat-map). */
static int is_png(const char *path) {
    unsigned char sig[8] = {0};
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    size_t n = fread(sig, 1, 8, fp);
    fclose(fp);
    return n == 8 && memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0;
}

static void test_P2_fully_masked_row_figure_written(void **state) {
    fixture *f = *state;
    int T = 3, C = 4, H = 2;
    rng_seed(25);
    float *X = rand_mat((size_t)T * C, 1.0);
    unsigned char M[9] = {0, 0, 0, 1, 1, 1, 0, 1, 0}; /* query 1 fully masked */
    job j = {.T = T, .C = C, .H = H, .causal = 1, .X = X, .attn_mask = M, .trace = 1, .plot_to_outdir = 1};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    assert_int_equal(check_rows(&d, run.desc), 1);
    expect_trace_says_fully_masked(&run, 1);
    const char *names[3] = {"head0.png", "head1.png", "heads.png"};
    for (int i = 0; i < 3; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", run.outdir, names[i]);
        if (!is_png(path)) fail_msg("[%s] %s was not written as a PNG", run.desc, path);
    }
    free_dump(&d);
    tu_free(&run.r);
    free(X);
}

/* ========================================================================= */
/* P3 / P4. Mask polarity and the causal mask's orientation. Scores are made
 * all 0 by W_Q = 0 (so Q = 0), so each visible key gets the same weight. */

static void test_P3_mask_polarity_causal_example(void **state) {
    fixture *f = *state;
    int T = 3, C = 4, H = 1;
    rng_seed(31);
    float *X = rand_mat((size_t)T * C, 1.0), *Z = zeros((size_t)C * C);
    job j = {.T = T, .C = C, .H = H, .causal = 1, .X = X, .W_Q = Z};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    const double rows[3][3] = {{1, 0, 0}, {0.5, 0.5, 0}, {1.0 / 3, 1.0 / 3, 1.0 / 3}};
    for (int i = 0; i < T; i++) expect_row(&d, 0, i, rows[i], 1e-6, run.desc);
    const unsigned char want_mask[9] = {0, 1, 1, 0, 0, 1, 0, 0, 0};
    assert_memory_equal(d.mask, want_mask, 9);
    free_dump(&d);
    tu_free(&run.r);
    free(X); free(Z);
}

/* --attn-mask follows PyTorch's bool attn_mask: True = masked (not "keep").
 * A non-symmetric mask also catches a transposed read (row = query). */
static void test_P3_attn_mask_polarity_true_is_masked(void **state) {
    fixture *f = *state;
    int T = 4, C = 8;
    rng_seed(32);
    float *X = rand_mat((size_t)T * C, 1.0), *Z = zeros((size_t)C * C);
    const unsigned char M[16] = {0, 1, 1, 0,
                                 1, 0, 0, 0,
                                 0, 0, 0, 1,
                                 1, 1, 0, 1};
    for (int H = 1; H <= 2; H++)
        for (int causal = 0; causal < 2; causal++) {
            job j = {.T = T, .C = C, .H = H, .causal = causal, .X = X, .W_Q = Z, .attn_mask = M};
            run_t run;
            dump_t d;
            run_and_check(f, &j, &run, &d, 1);
            for (int i = 0; i < T; i++) {
                double want[4];
                int open = 0;
                for (int k = 0; k < T; k++) open += !(M[i * T + k] || (causal && k > i));
                for (int k = 0; k < T; k++) want[k] = (M[i * T + k] || (causal && k > i)) ? 0.0 : 1.0 / open;
                for (int h = 0; h < H; h++) expect_row(&d, h, i, want, 1e-6, run.desc);
                for (int k = 0; k < T; k++)
                    if (d.mask[i * T + k] != (M[i * T + k] || (causal && k > i)))
                        fail_msg("[%s] mask.npy[%d][%d] = %d", run.desc, i, k, d.mask[i * T + k]);
            }
            free_dump(&d);
            tu_free(&run.r);
        }
    free(X); free(Z);
}

static void test_P4_causal_uniform_T1_to_16(void **state) {
    fixture *f = *state;
    int C = 8, H = 2;
    for (int T = 1; T <= 16; T++) {
        rng_seed((uint64_t)(40 + T));
        float *X = rand_mat((size_t)T * C, 1.0), *Z = zeros((size_t)C * C);
        float *WK = rand_mat((size_t)C * C, 0.5), *WV = rand_mat((size_t)C * C, 0.5);
        job j = {.T = T, .C = C, .H = H, .causal = 1, .X = X, .W_Q = Z, .W_K = WK, .W_V = WV};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        int D = C / H;
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++) {
                const float *a = A_row(&d, h, i);
                for (int k = 0; k < T; k++) {
                    if (k <= i && !(fabs(a[k] - 1.0 / (i + 1)) <= 1e-6))
                        fail_msg("[%s] weights[%d][%d][%d] = %.9f, want 1/%d (key j <= i is visible)", run.desc, h,
                                 i, k, (double)a[k], i + 1);
                    if (k > i && a[k] != 0.0f)
                        fail_msg("[%s] weights[%d][%d][%d] = %.9f, want exactly 0 (key after the query)", run.desc,
                                 h, i, k, (double)a[k]);
                    if (d.mask[i * T + k] != (k > i))
                        fail_msg("[%s] mask.npy[%d][%d] = %d, want %d", run.desc, i, k, d.mask[i * T + k], k > i);
                }
                assert_true(a[i] > 0.0f); /* a token always sees itself */
                /* the context row is the mean of V rows 0..i */
                for (int e = 0; e < D; e++) {
                    double mean = 0;
                    for (int k = 0; k <= i; k++) mean += d.V[((size_t)h * T + k) * D + e];
                    mean /= (i + 1);
                    double got = d.ctx[(size_t)i * C + h * D + e];
                    if (!(fabs(got - mean) <= 1e-5 + 1e-5 * fabs(mean)))
                        fail_msg("[%s] context[%d][%d] = %.9g, want mean of V rows 0..%d = %.9g", run.desc, i,
                                 h * D + e, got, i, mean);
                }
            }
        free_dump(&d);
        tu_free(&run.r);
        free(X); free(Z); free(WK); free(WV);
    }
}

static void test_P4_causal_example_4_tokens(void **state) {
    fixture *f = *state;
    int T = 4, C = 4;
    float *X = zeros((size_t)T * C); /* X = 0 rows: every score is 0 */
    for (int H = 1; H <= 2; H++) {
        job j = {.T = T, .C = C, .H = H, .causal = 1, .X = X};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        const double rows[4][4] = {{1, 0, 0, 0}, {.5, .5, 0, 0}, {1.0 / 3, 1.0 / 3, 1.0 / 3, 0}, {.25, .25, .25, .25}};
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++) expect_row(&d, h, i, rows[i], 1e-6, run.desc);
        free_dump(&d);
        tu_free(&run.r);
    }
    free(X);
}

/* ========================================================================= */
/* P5. Split heads = reshape (T, H, D) then transpose to (H, T, D); merge is
 * the inverse. */

static void test_P5_split_heads_example(void **state) {
    fixture *f = *state;
    const float X[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    float *I = eye(4);
    job j = {.T = 2, .C = 4, .H = 2, .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    const float want[8] = {1, 2, 5, 6, /* head 0 */ 3, 4, 7, 8 /* head 1 */};
    cmp_f32(run.desc, "Q.npy", d.Q, want, 8);
    cmp_f32(run.desc, "K.npy", d.K, want, 8);
    cmp_f32(run.desc, "V.npy", d.V, want, 8);
    free_dump(&d);
    tu_free(&run.r);
    free(I);
}

/* With a mask that lets each token see only itself and identity weights, the
 * output must be X exactly: any token/head mix-up moves a value. */
static void test_P5_diagonal_mask_output_equals_X(void **state) {
    fixture *f = *state;
    const struct { int C, H, T; } cases[] = {{4, 2, 2}, {12, 3, 5}, {12, 4, 5}, {12, 2, 5}, {12, 6, 7}, {16, 4, 3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int C = cases[c].C, H = cases[c].H, T = cases[c].T;
        float *X;
        if (c == 0) {
            X = zeros(8);
            for (int i = 0; i < 8; i++) X[i] = (float)(i + 1); /* the listed example */
        } else {
            rng_seed((uint64_t)(50 + c));
            X = rand_mat((size_t)T * C, 1.0);
        }
        float *I = eye(C);
        unsigned char *M = malloc((size_t)T * T);
        for (int i = 0; i < T; i++)
            for (int k = 0; k < T; k++) M[i * T + k] = i != k;
        job j = {.T = T, .C = C, .H = H, .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I, .attn_mask = M};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        cmp_f32(run.desc, "context.npy (want X)", d.ctx, X, (size_t)T * C);
        cmp_f32(run.desc, "output.npy (want X)", d.out, X, (size_t)T * C);
        free_dump(&d);
        tu_free(&run.r);
        free(X); free(I); free(M);
    }
}

static void test_P5_split_merge_bigger(void **state) {
    fixture *f = *state;
    int C = 12, T = 5;
    for (int H = 3; H <= 4; H++) {
        int D = C / H;
        rng_seed((uint64_t)(55 + H));
        float *X = rand_mat((size_t)T * C, 1.0), *I = eye(C);
        /* identity weights: Q[h] must be X[:, h·D:(h+1)·D] exactly */
        job j = {.T = T, .C = C, .H = H, .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        for (int h = 0; h < H; h++)
            for (int t = 0; t < T; t++)
                for (int e = 0; e < D; e++) {
                    float want = X[(size_t)t * C + h * D + e];
                    if (d.Q[((size_t)h * T + t) * D + e] != want || d.K[((size_t)h * T + t) * D + e] != want ||
                        d.V[((size_t)h * T + t) * D + e] != want)
                        fail_msg("[%s] Q/K/V.npy[%d][%d][%d] != X[%d][%d] = %g", run.desc, h, t, e, t, h * D + e,
                                 (double)want);
                }
        /* context row t = concat over heads of sum_k A[h][t][k]·V[h][k] */
        double *want_ctx = calloc((size_t)T * C, sizeof(double));
        for (int t = 0; t < T; t++)
            for (int h = 0; h < H; h++)
                for (int e = 0; e < D; e++)
                    for (int k = 0; k < T; k++)
                        want_ctx[(size_t)t * C + h * D + e] +=
                            (double)A_row(&d, h, t)[k] * d.V[((size_t)h * T + k) * D + e];
        cmp_arr(run.desc, "context.npy vs concat_h(A_h·V_h)", d.ctx, want_ctx, 2, (size_t)T, (size_t)C, 0, 1e-6, 1e-6);
        cmp_arr(run.desc, "output.npy vs context·I", d.out, want_ctx, 2, (size_t)T, (size_t)C, 0, 1e-6, 1e-6);
        free_dump(&d);
        tu_free(&run.r);

        /* non-symmetric random weights: row-vector convention Q = X·W_Q
         * (not W_Qᵀ), output = context·W_O; checked against the reference */
        float *WQ = rand_mat((size_t)C * C, 0.5), *WK = rand_mat((size_t)C * C, 0.5);
        float *WV = rand_mat((size_t)C * C, 0.5), *WO = rand_mat((size_t)C * C, 0.5);
        job j2 = {.T = T, .C = C, .H = H, .X = X, .W_Q = WQ, .W_K = WK, .W_V = WV, .W_O = WO};
        run_and_check(f, &j2, &run, &d, 1);
        for (int t = 0; t < T; t++)
            for (int o = 0; o < C; o++) {
                double acc = 0;
                for (int c = 0; c < C; c++) acc += (double)d.ctx[(size_t)t * C + c] * WO[(size_t)c * C + o];
                want_ctx[(size_t)t * C + o] = acc;
            }
        cmp_arr(run.desc, "output.npy vs context·W_O", d.out, want_ctx, 2, (size_t)T, (size_t)C, 0, 1e-5, 1e-5);
        free_dump(&d);
        tu_free(&run.r);
        free(want_ctx);
        free(X); free(I); free(WQ); free(WK); free(WV); free(WO);
    }
}

/* ========================================================================= */
/* P6. Sinusoidal encoding interleaves sin and cos (paper §3.5), not [sin | cos]. */

static void test_P6_sinusoidal_example_d8(void **state) {
    fixture *f = *state;
    int T = 2, C = 8;
    float *X = zeros((size_t)T * C), *I = eye(C);
    job j = {.T = T, .C = C, .H = 1, .positions = "sinusoidal", .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I,
             .trace = 1};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    const float row0[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    cmp_f32(run.desc, "PE.npy row 0", d.PE, row0, 8);
    const double row1[8] = {0.841471, 0.540302, 0.099833, 0.995004, 0.010000, 0.999950, 0.001000, 1.000000};
    cmp_arr(run.desc, "PE.npy row 1 (paper values)", d.PE + 8, row1, 1, 8, 0, 0, 1e-6, 0);
    /* X = 0 and W_Q = I, so Q = X + PE: the encoding really is added */
    cmp_arr(run.desc, "Q.npy row 1 = PE row 1", d.Q + 8, row1, 1, 8, 0, 0, 1e-6, 0);
    if (!strstr(run.r.out, "interleaved"))
        fail_msg("the trace does not name the sinusoidal layout ('interleaved'):\n%s", run.r.out);
    free_dump(&d);
    tu_free(&run.r);
    free(X); free(I);
}

static void test_P6_sinusoidal_grid(void **state) {
    fixture *f = *state;
    const int Cs[] = {8, 16, 512, 5}; /* 5: odd d_model, last column is a sin column */
    int T = 50;
    for (size_t ci = 0; ci < sizeof Cs / sizeof Cs[0]; ci++) {
        int C = Cs[ci];
        float *X = zeros((size_t)T * C);
        job j = {.T = T, .C = C, .H = 1, .positions = "sinusoidal", .X = X};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, C <= 16);
        double *want = malloc(sizeof(double) * (size_t)T * C);
        for (int t = 0; t < T; t++)
            for (int c = 0; c < C; c++) want[(size_t)t * C + c] = pe_formula(t, c, C);
        cmp_arr(run.desc, "PE.npy vs sin/cos(pos/10000^(2i/d_model)) interleaved", d.PE, want, 2, (size_t)T,
                (size_t)C, 0, 1e-6, 0);
        free(want);
        free_dump(&d);
        tu_free(&run.r);
        free(X);
    }
}

/* PE is added to X (not replacing it), before the projections, and the
 * trace names the layout. */
static void test_P6_pe_added_and_trace_names_layout(void **state) {
    fixture *f = *state;
    int T = 7, C = 16, H = 2;
    rng_seed(61);
    float *X = rand_mat((size_t)T * C, 1.0), *I = eye(C);
    job j = {.T = T, .C = C, .H = H, .positions = "sinusoidal", .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I,
             .trace = 1};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    if (!strstr(run.r.out, "interleaved"))
        fail_msg("the trace does not name the sinusoidal layout ('interleaved'):\n%s", run.r.out);
    free_dump(&d);
    tu_free(&run.r);
    free(X); free(I);
}

/* ========================================================================= */
/* P7. RoPE pairing: interleaved (2i, 2i+1) vs rotate-half (i, i+D/2). */

static double row_norm_f(const float *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += (double)x[i] * x[i];
    return sqrt(s);
}

static void test_P7_rope_example_interleaved_and_half(void **state) {
    fixture *f = *state;
    int T = 2, C = 4;
    const float X[8] = {1, 2, 3, 4, 1, 2, 3, 4};
    float *I = eye(C);
    const char *styles[2] = {"interleaved", "half"};
    const double want[2][4] = {{-1.142640, 1.922076, 2.959851, 4.029800}, {-1.984111, 1.959901, 2.462378, 4.019800}};
    const char *trace_name[2] = {"interleaved", "rotate-half"};
    for (int s = 0; s < 2; s++) {
        job j = {.T = T, .C = C, .H = 1, .positions = "rope", .rope_style = styles[s], .X = X, .W_Q = I, .W_K = I,
                 .W_V = I, .W_O = I, .trace = 1};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        cmp_f32(run.desc, "Q.npy position 0 (identity)", d.Q, X, 4);
        cmp_f32(run.desc, "K.npy position 0 (identity)", d.K, X, 4);
        cmp_arr(run.desc, "Q.npy position 1", d.Q + 4, want[s], 1, 4, 0, 0, 2e-6, 0);
        cmp_arr(run.desc, "K.npy position 1", d.K + 4, want[s], 1, 4, 0, 0, 2e-6, 0);
        cmp_f32(run.desc, "V.npy (RoPE leaves V alone)", d.V, X, 8);
        for (int t = 0; t < T; t++)
            if (fabs(row_norm_f(d.Q + t * 4, 4) - 5.477226) > 2e-6)
                fail_msg("[%s] |Q[%d]| = %.9f, want sqrt(30) = 5.477226", run.desc, t, row_norm_f(d.Q + t * 4, 4));
        if (!strstr(run.r.out, trace_name[s]))
            fail_msg("[%s] the trace does not name the RoPE pairing '%s':\n%s", run.desc, trace_name[s], run.r.out);
        free_dump(&d);
        tu_free(&run.r);
    }
    free(I);
}

/* Over sizes, heads and both styles, T = 32: Q and K equal the RoPE formula
 * applied per head after the split; every row keeps its norm; position 0 is
 * the identity. */
static void test_P7_rope_formula_norm_position0(void **state) {
    fixture *f = *state;
    const struct { int C, H; } cases[] = {{4, 1}, {8, 2}, {16, 2}, {24, 3}, {32, 4}, {12, 2}};
    const char *styles[2] = {"interleaved", "half"};
    int T = 32;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int s = 0; s < 2; s++) {
            int C = cases[c].C, H = cases[c].H, D = C / H;
            rng_seed((uint64_t)(70 + c));
            float *X = rand_mat((size_t)T * C, 1.0), *I = eye(C);
            /* identity weights: the unrotated head rows are X's columns, exactly */
            job j = {.T = T, .C = C, .H = H, .positions = "rope", .rope_style = styles[s], .X = X, .W_Q = I,
                     .W_K = I, .W_V = I, .W_O = I};
            run_t run;
            dump_t d;
            run_and_check(f, &j, &run, &d, 1);
            for (int h = 0; h < H; h++)
                for (int t = 0; t < T; t++) {
                    const float *x = X + (size_t)t * C + h * D;
                    const float *q = d.Q + ((size_t)h * T + t) * D, *k = d.K + ((size_t)h * T + t) * D;
                    double n0 = row_norm_f(x, D);
                    if (fabs(row_norm_f(q, D) - n0) > 1e-5 * (1 + n0) || fabs(row_norm_f(k, D) - n0) > 1e-5 * (1 + n0))
                        fail_msg("[%s] head %d position %d: |Q| = %.9f, |K| = %.9f, want the unrotated norm %.9f",
                                 run.desc, h, t, row_norm_f(q, D), row_norm_f(k, D), n0);
                    if (t == 0) {
                        cmp_f32(run.desc, "Q.npy at position 0 (identity)", q, x, (size_t)D);
                        cmp_f32(run.desc, "K.npy at position 0 (identity)", k, x, (size_t)D);
                    }
                }
            free_dump(&d);
            tu_free(&run.r);
            /* random weights: the rotation comes after the projection */
            float *WQ = rand_mat((size_t)C * C, 0.5), *WK = rand_mat((size_t)C * C, 0.5);
            j.W_Q = WQ;
            j.W_K = WK;
            run_and_check(f, &j, &run, &d, 1);
            free_dump(&d);
            tu_free(&run.r);
            free(X); free(I); free(WQ); free(WK);
        }
}

/* The score q_m·k_n depends only on m - n. */
static void test_P7_rope_relative_property(void **state) {
    fixture *f = *state;
    /* (a) the listed example: q = [1,2,3,4], k = [.5,-1,2,0], interleaved.
     * Every X row is q; W_Q = I; W_K's row 0 is k and the rest 0, so
     * x·W_K = 1·k. --no-scale makes scores[m][n] = <R(m)q, R(n)k>. */
    {
        int T = 8, C = 4;
        float *X = zeros((size_t)T * C), *I = eye(C), *WK = zeros((size_t)C * C);
        for (int t = 0; t < T; t++)
            for (int c = 0; c < C; c++) X[t * C + c] = (float)(c + 1);
        const float k[4] = {0.5f, -1, 2, 0};
        memcpy(WK, k, sizeof k);
        job j = {.T = T, .C = C, .H = 1, .positions = "rope", .no_scale = 1, .X = X, .W_Q = I, .W_K = WK};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        const int mn[3][2] = {{3, 1}, {7, 5}, {2, 0}};
        for (int p = 0; p < 3; p++) {
            double got = d.S[mn[p][0] * T + mn[p][1]];
            if (fabs(got - 4.644436) > 5e-6)
                fail_msg("[%s] <R(%d)q, R(%d)k> = scores[0][%d][%d] = %.9f, want 4.644436", run.desc, mn[p][0],
                         mn[p][1], mn[p][0], mn[p][1], got);
        }
        free_dump(&d);
        tu_free(&run.r);
        free(X); free(I); free(WK);
    }
    /* (b) many positions, both styles, several head sizes: every X row is the
     * same vector v, so without positions all scores in a head would be equal;
     * with RoPE, scores[h][m][n] must equal scores[h][m+k][n+k]. */
    const struct { int C, H; } cases[] = {{4, 1}, {8, 1}, {16, 2}, {32, 4}};
    const char *styles[2] = {"interleaved", "half"};
    int T = 32;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int s = 0; s < 2; s++) {
            int C = cases[c].C, H = cases[c].H;
            rng_seed((uint64_t)(80 + c));
            float *X = malloc(sizeof(float) * (size_t)T * C);
            for (int e = 0; e < C; e++) {
                float v = (float)rnd();
                for (int t = 0; t < T; t++) X[(size_t)t * C + e] = v;
            }
            float *WQ = rand_mat((size_t)C * C, 1.0 / sqrt(C)), *WK = rand_mat((size_t)C * C, 1.0 / sqrt(C));
            job j = {.T = T, .C = C, .H = H, .positions = "rope", .rope_style = styles[s], .X = X, .W_Q = WQ,
                     .W_K = WK};
            run_t run;
            dump_t d;
            run_and_check(f, &j, &run, &d, 1);
            for (int h = 0; h < H; h++) {
                const float *S = d.S + (size_t)h * T * T;
                double spread = 0, lo = INFINITY, hi = -INFINITY;
                for (int m = 0; m < T; m++)
                    for (int n = 0; n < T; n++) {
                        /* the representative of offset m - n: on row 0 or column 0 */
                        int m0 = m >= n ? m - n : 0, n0 = m >= n ? 0 : n - m;
                        double ref = S[m0 * T + n0], got = S[m * T + n];
                        if (fabs(got - ref) > 1e-5 + 1e-5 * fabs(ref))
                            fail_msg("[%s] head %d: scores[%d][%d] = %.9g but scores[%d][%d] = %.9g (same m-n = %d)",
                                     run.desc, h, m, n, got, m0, n0, ref, m - n);
                        if (got < lo) lo = got;
                        if (got > hi) hi = got;
                    }
                spread = hi - lo;
                if (!(spread > 1e-3)) /* RoPE must actually make the score depend on m - n */
                    fail_msg("[%s] head %d: every score is %.6g; RoPE did not act", run.desc, h, lo);
            }
            free_dump(&d);
            tu_free(&run.r);
            free(X); free(WQ); free(WK);
        }
}

static void test_P7_rope_base(void **state) {
    fixture *f = *state;
    int T = 16, C = 8;
    const char *styles[2] = {"interleaved", "half"};
    for (int s = 0; s < 2; s++) {
        rng_seed(90);
        float *X = rand_mat((size_t)T * C, 1.0), *I = eye(C);
        job j = {.T = T, .C = C, .H = 1, .positions = "rope", .rope_style = styles[s], .rope_base = 500, .X = X,
                 .W_Q = I, .W_K = I, .trace = 1};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1); /* reference at base 500 */
        /* the test can tell the bases apart: base 10000 differs somewhere */
        double worst = 0;
        for (int t = 0; t < T; t++) {
            double x[8];
            for (int e = 0; e < C; e++) x[e] = X[t * C + e];
            rope_formula(x, C, t, s, 10000.0);
            for (int e = 0; e < C; e++) worst = fmax(worst, fabs(x[e] - d.Q[t * C + e]));
        }
        if (!(worst > 1e-2)) fail_msg("[%s] Q.npy matches base 10000 (worst diff %g): --rope-base ignored", run.desc, worst);
        if (!strstr(run.r.out, "500")) fail_msg("[%s] the trace does not show base 500:\n%s", run.desc, run.r.out);
        free_dump(&d);
        tu_free(&run.r);
        free(X); free(I);
    }
}

/* ========================================================================= */
/* P8. Odd d_k with RoPE is a usage error naming d_k; nothing is written. */

/* 1 if the decimal number v appears in s as a whole number. */
static int has_number(const char *s, int v) {
    char num[16];
    snprintf(num, sizeof num, "%d", v);
    size_t l = strlen(num);
    for (const char *p = strstr(s, num); p; p = strstr(p + 1, num)) {
        int before = p > s && p[-1] >= '0' && p[-1] <= '9';
        int after = p[l] >= '0' && p[l] <= '9';
        if (!before && !after) return 1;
    }
    return 0;
}

static void test_P8_odd_dk_rope_is_usage_error(void **state) {
    fixture *f = *state;
    const struct { int C, H, D; } cases[] = {{10, 2, 5}, {6, 2, 3}, {9, 3, 3}, {5, 1, 5}, {14, 2, 7}};
    const char *styles[2] = {"interleaved", "half"};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int s = 0; s < 2; s++) {
            int C = cases[c].C, H = cases[c].H, T = 3;
            rng_seed((uint64_t)(100 + c));
            float *X = rand_mat((size_t)T * C, 1.0);
            job j = {.T = T, .C = C, .H = H, .positions = "rope", .rope_style = styles[s], .X = s ? X : NULL,
                     .plot_to_outdir = 1, .trace = 1};
            run_t run;
            run_job(f, &j, &run);
            if (run.r.code != 2)
                fail_msg("[%s] exit %d, want 2 (usage error); stderr: %s", run.desc, run.r.code, run.r.err);
            if (!strstr(run.r.err, "attnviz: error:") || !strstr(run.r.err, "d_k") || !has_number(run.r.err, cases[c].D))
                fail_msg("[%s] the message must name d_k = %d: %s", run.desc, cases[c].D, run.r.err);
            if (count_entries(run.dump) > 0 || count_entries(run.outdir) > 0)
                fail_msg("[%s] files were written despite the usage error", run.desc);
            tu_free(&run.r);
            /* control: the same sizes without RoPE run fine */
            job ok = {.T = T, .C = C, .H = H, .positions = "none", .X = X};
            run_t run2;
            dump_t d;
            run_and_check(f, &ok, &run2, &d, 1);
            free_dump(&d);
            tu_free(&run2.r);
            free(X);
        }
}

/* ========================================================================= */
/* P9. Stable softmax: subtract the row max. The harness makes the scores
 * any T x T matrix S exactly: X = I (T = d_model), W_K = I, W_Q = S, so
 * Q = S, K = I and Q·Kᵀ = S; --no-scale keeps it; W_V = W_O = I makes the
 * output equal the weights. */

static void run_scores_harness(fixture *f, const float *S, int T, int no_scale, const unsigned char *M, int causal,
                               run_t *run, dump_t *d) {
    float *I = eye(T);
    job j = {.T = T, .C = T, .H = 1, .no_scale = no_scale, .causal = causal, .X = I, .W_Q = S, .W_K = I, .W_V = I,
             .W_O = I, .attn_mask = M, .trace = 1, .verbose = 1};
    run_and_check(f, &j, run, d, 1);
    if (no_scale) cmp_f32(run->desc, "scores.npy (harness)", d->S, S, (size_t)T * T);
    free(I);
}

static void test_P9_stable_softmax_example(void **state) {
    fixture *f = *state;
    const float S[9] = {1000, 999, 998,
                        -1000, -999, -998,
                        998, 1000, 999};
    run_t run;
    dump_t d;
    run_scores_harness(f, S, 3, 1, NULL, 0, &run, &d);
    const double r0[3] = {0.665241, 0.244728, 0.090031}, r1[3] = {0.090031, 0.244728, 0.665241},
                 r2[3] = {0.090031, 0.665241, 0.244728};
    expect_row(&d, 0, 0, r0, 1e-6, run.desc);
    expect_row(&d, 0, 1, r1, 1e-6, run.desc);
    expect_row(&d, 0, 2, r2, 1e-6, run.desc);
    free_dump(&d);
    tu_free(&run.r);
}

static void test_P9_large_scores_no_nan(void **state) {
    fixture *f = *state;
    int T = 6;
    const float S[36] = {
        1e4f, -1e4f, 0, 1e4f, 5e3f, -5e3f,
        -1e4f, -1e4f, -1e4f, -1e4f, -1e4f, -1e4f,     /* all equal: uniform */
        1e30f, -1e30f, 1e30f, 0, 1e29f, -1e29f,
        -1e30f, -1e30f, -3e38f, -1e30f, -1e30f, -2e30f,
        3e38f, 3e38f, -3e38f, 0, 1, -1,
        88.8f, 89, 100, 1e3f, 999, -1e3f,             /* around float32's exp overflow (88.72) */
    };
    run_t run;
    dump_t d;
    for (int no_scale = 1; no_scale >= 0; no_scale--) {
        run_scores_harness(f, S, T, no_scale, NULL, 0, &run, &d);
        const double uni[6] = {1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6};
        expect_row(&d, 0, 1, uni, 1e-6, run.desc);
        const double half[6] = {0.5, 0.5, 0, 0, 0, 0};
        expect_row(&d, 0, 4, half, 1e-6, run.desc);
        free_dump(&d);
        tu_free(&run.r);
    }
    /* the same magnitudes with causal and a fully masked row */
    unsigned char M[36] = {0};
    for (int k = 0; k < T; k++) M[2 * T + k] = 1;
    run_scores_harness(f, S, T, 1, M, 1, &run, &d);
    assert_int_equal(check_rows(&d, run.desc), 1);
    free_dump(&d);
    tu_free(&run.r);

    /* scores of 1e30 made by Q·Kᵀ itself (d_model = 1): q, k = ±1e15 */
    const float X[3] = {1e15f, -1e15f, 1e14f}, one[1] = {1};
    job j = {.T = 3, .C = 1, .H = 1, .X = X, .W_Q = one, .W_K = one, .W_V = one, .W_O = one, .trace = 1};
    run_and_check(f, &j, &run, &d, 1);
    free_dump(&d);
    tu_free(&run.r);
}

/* Scaled scores just under FLT_MAX must work: X row 0 = [1e19] x 4, identity
 * weights, d_k = 4, so Q·Kᵀ = 4e38 (not a float32) but Q·Kᵀ/sqrt(d_k) = 2e38
 * (a float32), and scores.npy holds the scaled value.
 * Regression: av_model_forward used to check the UNSCALED Q·Kᵀ (kept only for
 * the trace's variance line) and exit 1 with "the scores Q·Kᵀ overflowed". */
static void test_P9_scaled_scores_near_float_max(void **state) {
    fixture *f = *state;
    int T = 2, C = 4;
    float *X = zeros((size_t)T * C), *I = eye(C);
    for (int c = 0; c < C; c++) X[c] = 1e19f;
    job j = {.T = T, .C = C, .H = 1, .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    const double want[2] = {1.0, 0.0};
    expect_row(&d, 0, 0, want, 1e-6, run.desc);
    free_dump(&d);
    tu_free(&run.r);
    free(X); free(I);
}

/* ========================================================================= */
/* P10. Per-head weights are kept per head, never averaged.
 * The mean-over-heads figure (--figures mean) is pinned by
 * tests/test_figures.c test_P10_mean_figure_is_the_mean: titled as the mean,
 * [0.5, 0.5] for query 0 of this input. */

static void test_P10_per_head_weights_not_averaged(void **state) {
    fixture *f = *state;
    const int Hs[] = {2, 4};
    for (size_t hi = 0; hi < 2; hi++)
        for (int no_scale = 0; no_scale < 2; no_scale++) {
            int H = Hs[hi], T = H, D = T, C = H * D;
            /* In every head, token t's slice of X is e_t, so K_h = I (W_K = I).
             * W_Q's row 0 is 50·e_h in head h's columns, so query 0 in head h
             * is 50·e_h: it attends key h (one-hot within 1e-6), and the heads
             * disagree completely. Other queries are 0 (uniform rows). */
            float *X = zeros((size_t)T * C), *WQ = zeros((size_t)C * C), *I = eye(C);
            rng_seed(110);
            float *WV = rand_mat((size_t)C * C, 1.0);
            for (int t = 0; t < T; t++)
                for (int h = 0; h < H; h++) X[(size_t)t * C + h * D + t] = 1;
            for (int h = 0; h < H; h++) WQ[h * D + h] = 50;
            job j = {.T = T, .C = C, .H = H, .no_scale = no_scale, .X = X, .W_Q = WQ, .W_K = I, .W_V = WV, .W_O = I};
            run_t run;
            dump_t d;
            run_and_check(f, &j, &run, &d, 1);
            for (int h = 0; h < H; h++) {
                double want[4] = {0};
                want[h] = 1;
                expect_row(&d, h, 0, want, 1e-6, run.desc);
                /* and head h's output slice for query 0 is V_h's row h */
                for (int e = 0; e < D; e++) {
                    double v = d.V[((size_t)h * T + h) * D + e], got = d.ctx[h * D + e];
                    if (fabs(got - v) > 1e-5 * (1 + fabs(v)))
                        fail_msg("[%s] context[0][%d] = %.9g, want V[%d][%d][%d] = %.9g", run.desc, h * D + e, got, h,
                                 h, e, v);
                }
            }
            free_dump(&d);
            tu_free(&run.r);
            free(X); free(WQ); free(I); free(WV);
        }
}

/* ========================================================================= */
/* No NaN or Inf ever: a sweep over every option that touches the numbers,
 * each run checked against the reference; then magnitudes and bad input. */

static void test_no_nan_inf_sweep(void **state) {
    fixture *f = *state;
    const char *pos[4] = {"none", "sinusoidal", "rope", "rope"};
    const char *style[4] = {NULL, NULL, "interleaved", "half"};
    int C = 8, H = 2, runs = 0;
    for (int p = 0; p < 4; p++)
        for (int causal = 0; causal < 2; causal++)
            for (int pad = 0; pad < 2; pad++)
                for (int um = 0; um < 2; um++)
                    for (int no_scale = 0; no_scale < 2; no_scale++) {
                        int T = 6;
                        rng_seed((uint64_t)(runs + 1000));
                        float *X = rand_mat((size_t)T * C, 1.0);
                        unsigned char M[36];
                        for (int i = 0; i < 36; i++) M[i] = (rnd() > 0.5);
                        for (int k = 0; k < T; k++) M[1 * T + k] = 1; /* query 1 fully masked */
                        job j = {.T = T, .n_real = pad ? 4 : 0, .C = C, .H = H, .positions = pos[p],
                                 .rope_style = style[p], .causal = causal, .no_scale = no_scale, .X = X,
                                 .attn_mask = um ? M : NULL};
                        run_t run;
                        dump_t d;
                        run_and_check(f, &j, &run, &d, 1); /* seeded W, dumped and used by the reference */
                        free_dump(&d);
                        tu_free(&run.r);
                        /* the same with X at 1e3 and 1e-30: finite, row rules hold */
                        const double mags[2] = {1e3, 1e-30};
                        for (int m = 0; m < 2; m++) {
                            float *Xm = malloc(sizeof(float) * (size_t)T * C);
                            for (int i = 0; i < T * C; i++) Xm[i] = (float)(X[i] * mags[m]);
                            j.X = Xm;
                            run_and_check(f, &j, &run, &d, 0);
                            free_dump(&d);
                            tu_free(&run.r);
                            free(Xm);
                        }
                        free(X);
                        runs++;
                    }
    assert_int_equal(runs, 64);
}

/* Values too large for float32 end in a clear error, never a NaN; non-finite
 * input is refused. */
static void test_no_nan_inf_overflow_is_error(void **state) {
    fixture *f = *state;
    int T = 2, C = 4;
    float *I = eye(C), *X = zeros((size_t)T * C);
    for (int i = 0; i < T * C; i++) X[i] = (i % 2 ? -1e20f : 1e20f); /* Q·Kᵀ ~ 4e40 > FLT_MAX */
    job j = {.T = T, .C = C, .H = 1, .X = X, .W_Q = I, .W_K = I, .trace = 1};
    run_t run;
    run_job(f, &j, &run);
    /* overflow caused by the supplied values is bad input: exit 2 */
    if (run.r.code != 2 || !strstr(run.r.err, "overflow") || prints_nonfinite(run.r.out, 0) || prints_nonfinite(run.r.err, 0))
        fail_msg("[%s] want exit 2 and an overflow message, got exit %d: %s", run.desc, run.r.code, run.r.err);
    if (file_exists(run.dump)) check_dump_dir(run.dump, 0);
    tu_free(&run.r);

    const float bad[3] = {NAN, INFINITY, -INFINITY};
    for (int b = 0; b < 3; b++) {
        float *Xb = zeros((size_t)T * C);
        Xb[5] = bad[b];
        job jb = {.T = T, .C = C, .H = 1, .X = b == 0 ? Xb : NULL, .W_Q = b == 0 ? NULL : Xb, .trace = 1};
        if (b) {  /* a non-finite weight: W_Q (C, C) with one bad value */
            free(Xb);
            Xb = zeros((size_t)C * C);
            Xb[5] = bad[b];
            jb.W_Q = Xb;
        }
        run_job(f, &jb, &run);
        if (run.r.code != 2 || file_exists(run.dump))
            fail_msg("[%s] a non-finite input value must be refused (exit 2, no dump); got exit %d: %s", run.desc,
                     run.r.code, run.r.err);
        tu_free(&run.r);
        free(Xb);
    }
    free(I); free(X);
}

/* ------------------------------------------------------------------------- */

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_P1_scale_is_sqrt_dk_example, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P1_scale_is_sqrt_dk_grid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P2_fully_masked_row_attn_mask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P2_fully_masked_row_with_causal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P2_fully_masked_row_with_padding, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P2_every_row_masked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P2_fully_masked_row_figure_written, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P3_mask_polarity_causal_example, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P3_attn_mask_polarity_true_is_masked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P4_causal_uniform_T1_to_16, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P4_causal_example_4_tokens, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P5_split_heads_example, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P5_diagonal_mask_output_equals_X, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P5_split_merge_bigger, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P6_sinusoidal_example_d8, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P6_sinusoidal_grid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P6_pe_added_and_trace_names_layout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P7_rope_example_interleaved_and_half, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P7_rope_formula_norm_position0, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P7_rope_relative_property, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P7_rope_base, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P8_odd_dk_rope_is_usage_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P9_stable_softmax_example, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P9_large_scores_no_nan, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P9_scaled_scores_near_float_max, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P10_per_head_weights_not_averaged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_nan_inf_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_nan_inf_overflow_is_error, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
