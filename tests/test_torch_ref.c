/* test_torch_ref.c - the real attnviz binary against PyTorch, tensor by tensor.
 *
 * Every folder tests/ref/<cfg>/ written by tests/gen_reference.py (PyTorch
 * 1.13, float64, nn.MultiheadAttention where it can express the case, the
 * papers' RoPE formulas where it cannot) is one cmocka test named <cfg>. The
 * test runs
 *
 *     attnviz --weights <cfg>/in [--attn-mask <cfg>/in/attn_mask.npy]
 *             --dump TMP --no-plot -q $(cat <cfg>/args.txt)
 *
 * and checks, in TMP:
 *   tokens.txt, mask.npy             equal to expect/ exactly;
 *   X.npy, W_Q/W_K/W_V/W_O.npy       equal to the inputs bit for bit;
 *   PE.npy (sinusoidal only; absent otherwise), Q, K, V, scores, weights,
 *   context, output                  |a - b| <= 1e-5 * max(1, |b|) elementwise,
 *                                    same shape, every value finite.
 * It prints one line per configuration with each tensor's worst absolute
 * difference, and fails on a mismatch, a missing file or NaN/Inf.
 *
 * Tolerance: the reference is float64 rounded once to float32; attnviz keeps
 * float32 tensors and accumulates in double, so each stage adds a few float32
 * roundings (~1e-7 relative). 1e-5 leaves room for that and still catches a
 * wrong scale (√d_model vs √d_k changes scores by a factor), a transposed mask
 * or a swapped RoPE pairing by orders of magnitude.
 *
 * h8_sin_d512_en4 stores no W_*.npy (4 MiB): in/synth.txt names them and this
 * file rebuilds them bit for bit with synth_weight(), the formula of
 * gen_reference.py, checking the probes listed there first.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "io/fileio.h"
#include "io/npy.h"

#define REL_TOL 1e-5
#define MAX_CONFIGS 256
#define MAX_ARGS 64

typedef struct {
    char name[256];
} ref_case;

/* What one configuration found: a failure count and the summary line. */
typedef struct {
    const char *cfg;
    int failures;
    char line[4096];
} report;

/* ------------------------------------------------------------------------- */
/* small helpers */

static void add(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(report *r, const char *fmt, ...) {
    size_t n = strlen(r->line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->line + n, sizeof r->line - n, fmt, ap);
    va_end(ap);
}

static void bad(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(report *r, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    print_error("%s: %s\n", r->cfg, msg);
    r->failures++;
}

/* out = "a/b"; a path longer than n fails the test (no silent truncation). */
static char *path2(char *out, size_t n, const char *a, const char *b) {
    if (snprintf(out, n, "%s/%s", a, b) >= (int)n) fail_msg("path too long: %s/%s", a, b);
    return out;
}

static const char *join(const char *dir, const char *name) {
    static char buf[8][4096];
    static int slot;
    return path2(buf[slot++ % 8], 4096, dir, name);
}

static char *read_text(const char *path) {
    char *buf = NULL;
    size_t len = 0;
    av_err err = {{0}};
    if (av_read_file(path, 1u << 20, &buf, &len, &err)) return NULL;
    return buf;
}

/* Read a .npy; a failure (missing, malformed, NaN/Inf: av_npy_read rejects
 * non-finite values) is reported and returns 0. */
static int load(report *r, av_npy *a, const char *path, const char *what) {
    av_err err = {{0}};
    memset(a, 0, sizeof *a);
    if (av_npy_read(a, path, &err)) {
        bad(r, "%s: %s", what, err.msg);
        return 0;
    }
    return 1;
}

static size_t count(const av_npy *a) {
    size_t n = 1;
    for (int i = 0; i < a->ndim; i++) n *= a->shape[i];
    return n;
}

static int same_shape(report *r, const av_npy *got, const av_npy *want, const char *what) {
    int same = got->ndim == want->ndim;
    for (int i = 0; same && i < got->ndim; i++) same = got->shape[i] == want->shape[i];
    if (!same) {
        char g[128] = "", w[128] = "";
        for (int i = 0; i < got->ndim; i++)
            snprintf(g + strlen(g), sizeof g - strlen(g), "%s%zu", i ? ", " : "", got->shape[i]);
        for (int i = 0; i < want->ndim; i++)
            snprintf(w + strlen(w), sizeof w - strlen(w), "%s%zu", i ? ", " : "", want->shape[i]);
        bad(r, "%s has shape (%s), the reference has (%s)", what, g, w);
    }
    return same;
}

/* "[h, i, j]" for flat index k of a C-order array. */
static const char *where(const av_npy *a, size_t k) {
    static char buf[2][96];
    static int slot;
    char *p = buf[slot++ % 2];
    size_t idx[AV_NPY_MAX_NDIM];
    for (int d = a->ndim - 1; d >= 0; d--) {
        idx[d] = a->shape[d] ? k % a->shape[d] : 0;
        k = a->shape[d] ? k / a->shape[d] : 0;
    }
    p[0] = 0;
    for (int d = 0; d < a->ndim; d++)
        snprintf(p + strlen(p), 96 - strlen(p), "%s%zu%s", d ? ", " : "[", idx[d], d + 1 == a->ndim ? "]" : "");
    return p;
}

/* ------------------------------------------------------------------------- */
/* the checks */

/* A float tensor against the reference with the stated tolerance. */
static void check_close(report *r, const char *dump, const char *expect, const char *name) {
    char file[64];
    snprintf(file, sizeof file, "%s.npy", name);
    av_npy got, want;
    int ok = load(r, &got, join(dump, file), file) & load(r, &want, join(expect, file), file);
    if (ok && (!got.data || !want.data)) {
        bad(r, "%s is not a float array (dtype %s)", file, got.data ? want.descr : got.descr);
        ok = 0;
    }
    if (ok && same_shape(r, &got, &want, file)) {
        size_t n = count(&want), worst_at = 0, nbad = 0, first_bad = 0;
        double worst = 0.0;
        for (size_t k = 0; k < n; k++) {
            double a = got.data[k], b = want.data[k], d = fabs(a - b);
            if (!isfinite(a)) d = INFINITY;
            if (d > worst) { worst = d; worst_at = k; }
            if (!(d <= REL_TOL * fmax(1.0, fabs(b)))) {
                if (!nbad) first_bad = k;
                nbad++;
            }
        }
        add(r, " %s %.1e", name, worst);
        if (nbad)
            bad(r, "%s: %zu of %zu values differ by more than %g*max(1,|ref|); first at %s "
                   "(attnviz %.9g, torch %.9g); worst |diff| %.3g at %s",
                file, nbad, n, REL_TOL, where(&want, first_bad), (double)got.data[first_bad],
                (double)want.data[first_bad], worst, where(&want, worst_at));
    } else {
        add(r, " %s FAIL", name);
    }
    av_npy_free(&got);
    av_npy_free(&want);
}

/* A dumped input (X, W_*) against the file that was loaded: bit for bit. */
static void check_input(report *r, const char *dump, const char *in, const char *file) {
    av_npy got, want;
    if (load(r, &got, join(dump, file), file) & load(r, &want, join(in, file), file) &&
        same_shape(r, &got, &want, file) && got.data && want.data &&
        memcmp(got.data, want.data, count(&want) * sizeof(float)) != 0)
        bad(r, "dumped %s differs from the %s given to --weights", file, join(in, file));
    av_npy_free(&got);
    av_npy_free(&want);
}

static void check_mask(report *r, const char *dump, const char *expect) {
    av_npy got, want;
    if (load(r, &got, join(dump, "mask.npy"), "mask.npy") & load(r, &want, join(expect, "mask.npy"), "mask.npy") &&
        same_shape(r, &got, &want, "mask.npy")) {
        if (!got.bytes || !want.bytes) {
            bad(r, "mask.npy is not a bool array (dtype %s)", got.descr);
        } else {
            size_t T = want.shape[1];
            for (size_t k = 0; k < count(&want); k++)
                if ((got.bytes[k] != 0) != (want.bytes[k] != 0)) {
                    bad(r, "mask.npy[%zu, %zu] (query %zu, key %zu) is %s, the reference has %s", k / T, k % T,
                        k / T, k % T, got.bytes[k] ? "True" : "False", want.bytes[k] ? "True" : "False");
                    break;
                }
        }
    }
    av_npy_free(&got);
    av_npy_free(&want);
}

static void check_tokens(report *r, const char *dump, const char *expect) {
    char *got = read_text(join(dump, "tokens.txt")), *want = read_text(join(expect, "tokens.txt"));
    if (!got || !want)
        bad(r, "tokens.txt is missing (%s)", got ? "reference" : "dump");
    else if (strcmp(got, want) != 0)
        bad(r, "the tokenizer gave\n%sthe reference expects\n%s", got, want);
    free(got);
    free(want);
}

/* ------------------------------------------------------------------------- */
/* synthesised weights (see synth_weight() in gen_reference.py) */

static uint64_t splitmix64(uint64_t x) {
    uint64_t z = x + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* w (C, C): w[k] = float32((u_k / 2^24 - 0.5) * sqrt(12 / C)), u_k = splitmix64((salt << 32) | k) >> 40. */
static void synth_weight(float *w, uint64_t salt, size_t C) {
    double s = sqrt(12.0 / (double)C);
    for (size_t k = 0; k < C * C; k++) {
        uint64_t u = splitmix64((salt << 32) | (uint64_t)k) >> 40;
        w[k] = (float)(((double)u / 16777216.0 - 0.5) * s);
    }
}

/* Build tmp_in: a copy of in/X.npy plus the W_*.npy listed in in/synth.txt,
 * after checking each against the probes written by the generator. */
static int synth_inputs(report *r, const char *in, const char *tmp_in) {
    av_err err = {{0}};
    av_npy x;
    if (!load(r, &x, join(in, "X.npy"), "X.npy")) return 0;
    size_t C = x.shape[1];
    int ok = av_npy_write(join(tmp_in, "X.npy"), x.data, 2, x.shape, &err) == AV_OK;
    av_npy_free(&x);
    char *text = read_text(join(in, "synth.txt"));
    float *w = malloc(C * C * sizeof *w);
    int made = 0;
    char *save = NULL;
    for (char *line = text ? strtok_r(text, "\n", &save) : NULL; ok && line; line = strtok_r(NULL, "\n", &save)) {
        char name[32];
        unsigned long long salt;
        double first, last, sum_want;
        if (line[0] == '#') continue;
        if (sscanf(line, "%31s %llu %lf %lf %lf", name, &salt, &first, &last, &sum_want) != 5) {
            bad(r, "in/synth.txt: cannot parse '%s'", line);
            ok = 0;
            break;
        }
        synth_weight(w, salt, C);
        double sum = 0.0;
        for (size_t k = 0; k < C * C; k++) sum += w[k];
        if (w[0] != (float)first || w[C * C - 1] != (float)last || fabs(sum - sum_want) > 1e-9 * C) {
            bad(r, "synthesised %s disagrees with in/synth.txt: W[0,0] %.9g vs %.9g, last %.9g vs %.9g, sum %.17g vs %.17g",
                name, (double)w[0], first, (double)w[C * C - 1], last, sum, sum_want);
            ok = 0;
            break;
        }
        char file[48];
        snprintf(file, sizeof file, "%s.npy", name);
        size_t shape[2] = {C, C};
        if (av_npy_write(join(tmp_in, file), w, 2, shape, &err)) ok = 0;
        made++;
    }
    if (ok && made != 4) {
        bad(r, "in/synth.txt lists %d weight matrices, expected 4", made);
        ok = 0;
    }
    if (err.msg[0]) bad(r, "%s", err.msg);
    free(w);
    free(text);
    return ok;
}

/* ------------------------------------------------------------------------- */
/* one configuration */

static void test_config(void **state) {
    const ref_case *rc = *state;
    report r = {rc->name, 0, ""};
    char cfg[4096], in[4096], expect[4096];
    path2(cfg, sizeof cfg, src_path("tests/ref"), rc->name);
    path2(in, sizeof in, cfg, "in");
    path2(expect, sizeof expect, cfg, "expect");
    char *args_text = read_text(join(cfg, "args.txt"));
    if (!args_text) fail_msg("%s: cannot read %s", rc->name, join(cfg, "args.txt"));
    char *tmp = make_tmpdir();
    char dump[4096], weights[4096], mask_arg[4096];
    path2(dump, sizeof dump, tmp, "dump");
    memcpy(weights, in, sizeof weights);
    const char *argv[2 * MAX_ARGS];
    int n = 0;
    if (file_exists(join(in, "synth.txt"))) {
        path2(weights, sizeof weights, tmp, "in");
        if (mkdir(weights, 0755) != 0 || !synth_inputs(&r, in, weights)) {
            rm_rf(tmp);
            free(args_text);
            fail_msg("%s: could not build the synthesised inputs", rc->name);
        }
    }
    argv[n++] = "--weights";
    argv[n++] = weights;
    if (file_exists(join(in, "attn_mask.npy"))) {
        path2(mask_arg, sizeof mask_arg, in, "attn_mask.npy");
        argv[n++] = "--attn-mask";
        argv[n++] = mask_arg;
    }
    argv[n++] = "--dump";
    argv[n++] = dump;
    argv[n++] = "--no-plot";
    argv[n++] = "-q";
    char *save = NULL;
    for (char *line = strtok_r(args_text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r') line[len - 1] = 0;
        if (n == 2 * MAX_ARGS - 1) {
            rm_rf(tmp);
            free(args_text);
            fail_msg("%s: args.txt has more than %d lines", rc->name, MAX_ARGS);
        }
        argv[n++] = line;
    }
    argv[n] = NULL;

    tu_result res;
    tu_runv(&res, NULL, NULL, argv);
    if (res.code != 0) {
        print_error("%s: attnviz exited %d\nstderr: %s\n", rc->name, res.code, res.err);
        tu_free(&res);
        rm_rf(tmp);
        free(args_text);
        fail_msg("%s: attnviz failed", rc->name);
    }
    tu_free(&res);

    check_tokens(&r, dump, expect);
    check_mask(&r, dump, expect);
    static const char *const inputs[] = {"X.npy", "W_Q.npy", "W_K.npy", "W_V.npy", "W_O.npy"};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) check_input(&r, dump, weights, inputs[i]);

    if (file_exists(join(expect, "PE.npy")))
        check_close(&r, dump, expect, "PE");
    else if (file_exists(join(dump, "PE.npy")))
        bad(&r, "PE.npy was dumped, but these positions have no sinusoidal encoding");
    static const char *const tensors[] = {"Q", "K", "V", "scores", "weights", "context", "output"};
    for (size_t i = 0; i < sizeof tensors / sizeof tensors[0]; i++) check_close(&r, dump, expect, tensors[i]);

    print_message("[ torch_ref] %-29s%s\n", rc->name, r.line);
    rm_rf(tmp);
    free(args_text);
    if (r.failures) fail_msg("%s: %d check(s) failed against the PyTorch reference", rc->name, r.failures);
}

/* ------------------------------------------------------------------------- */
/* the folder list */

static ref_case cases[MAX_CONFIGS];
static int n_cases;

static int is_config(const struct dirent *e) {
    if (e->d_name[0] == '.') return 0;
    char p[4096];
    if (snprintf(p, sizeof p, "%s/%s/args.txt", src_path("tests/ref"), e->d_name) >= (int)sizeof p) return 0;
    return file_exists(p);
}

/* The folders found must be exactly the ones in tests/ref/configs.txt, so a
 * deleted or half-written reference cannot pass by running fewer tests. */
static void test_configs_match_index(void **state) {
    (void)state;
    char *text = read_text(src_path("tests/ref/configs.txt"));
    if (!text) fail_msg("cannot read %s", src_path("tests/ref/configs.txt"));
    int listed = 0, missing = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int found = 0;
        for (int i = 0; i < n_cases; i++) found |= strcmp(cases[i].name, line) == 0;
        if (!found) { print_error("tests/ref/%s is listed in configs.txt but has no args.txt\n", line); missing++; }
        listed++;
    }
    free(text);
    if (listed != n_cases) print_error("configs.txt lists %d configurations, tests/ref holds %d\n", listed, n_cases);
    assert_int_equal(missing, 0);
    assert_int_equal(listed, n_cases);
    assert_true(n_cases > 0);
}

int main(void) {
    struct dirent **list = NULL;
    int n = scandir(src_path("tests/ref"), &list, is_config, alphasort);
    if (n < 0) {
        fprintf(stderr, "test_torch_ref: cannot open %s (set ATTNVIZ_SRCDIR)\n", src_path("tests/ref"));
        return 1;
    }
    struct CMUnitTest tests[MAX_CONFIGS + 1];
    tests[0] = (struct CMUnitTest){"configs_match_index", test_configs_match_index, NULL, NULL, NULL};
    for (int i = 0; i < n; i++) {
        if (n_cases < MAX_CONFIGS) {
            snprintf(cases[n_cases].name, sizeof cases[n_cases].name, "%s", list[i]->d_name);
            tests[n_cases + 1] = (struct CMUnitTest){cases[n_cases].name, test_config, NULL, NULL, &cases[n_cases]};
            n_cases++;
        }
        free(list[i]);
    }
    free(list);
    return _cmocka_run_group_tests("torch_ref", tests, (size_t)n_cases + 1, NULL, NULL);
}
