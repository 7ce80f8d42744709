/* test_html.c - render/html.h (the interactive page) and --html.
 *
 * The page's views are tested in a real browser by tests/browser/test_html.js;
 * this file pins what can be read without one: the data block decodes (with
 * this file's own base64 decoder) to exactly the float32 values given, text
 * cannot close the <script> element, the page refers to nothing outside
 * itself, the size limit switches to 8 bits and then cuts panels (and the page
 * says so), the documented sizes (hand-computed), and the command-line
 * behaviour of --html.
 */
#include <math.h>
#include <sys/resource.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "app/page.h"
#include "base/utf8.h"
#include "gpt2_fixture.h"
#include "io/npy.h"
#include "render/html.h"
#include "testutil.h"

/* ---------------------------------------------------------------- helpers */

static int b64val(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decode the base64 string value of "key":"..." in page into out (at most
 * cap bytes); returns the byte count, or -1 when the key is absent. */
static long b64_field(const char *page, const char *key, unsigned char *out, size_t cap) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(page, pat);
    if (!p) return -1;
    p += strlen(pat);
    size_t n = 0;
    unsigned acc = 0;
    int bits = 0;
    for (; *p && *p != '"'; p++) {
        int v = b64val(*p);
        if (v < 0) continue; /* '=' padding */
        acc = acc << 6 | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (n < cap) out[n] = (unsigned char)(acc >> bits);
            n++;
        }
    }
    return (long)n;
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* A run of L layers, H heads, T tokens, D = d_k with recognisable values:
 * x[i] = (i % 97) / 8 − 6 (exact in float32), weights i / (size) in [0, 1). */
typedef struct {
    float *w, *s, *q, *k, *v;
    unsigned char mask[16];
    const char *tok[4];
} run_data;

static av_html_run make_run(run_data *d, int L, int H, int T, int D) {
    size_t tt = (size_t)L * H * T * T, td = (size_t)L * H * T * D;
    d->w = malloc(tt * 4); d->s = malloc(tt * 4);
    d->q = malloc(td * 4); d->k = malloc(td * 4); d->v = malloc(td * 4);
    for (size_t i = 0; i < tt; i++) { d->w[i] = (float)i / (float)tt; d->s[i] = (float)(i % 97) / 8.0f - 6.0f; }
    for (size_t i = 0; i < td; i++) { d->q[i] = (float)(i % 13) - 6.0f; d->k[i] = 0.5f; d->v[i] = -0.25f; }
    for (int i = 0; i < T * T && i < 16; i++) d->mask[i] = (i % T) > (i / T);
    static const char *tok[4] = {"I", "love", "</script><b>", "\"q\"\\"};
    for (int i = 0; i < 4; i++) d->tok[i] = tok[i];
    return (av_html_run){.name = "", .desc = "positions: none · mask: causal", .L = L, .H = H, .T = T, .D = D,
                         .tokens = d->tok, .weights = d->w, .scores = d->s, .q = d->q, .k = d->k, .v = d->v,
                         .mask = d->mask, .scale = 1.0 / sqrt((double)D)};
}

static void free_run(run_data *d) { free(d->w); free(d->s); free(d->q); free(d->k); free(d->v); }

static char *write_page(const char *path, const av_html_run *runs, int n, size_t max_bytes) {
    av_html_page p = {.title = "I love </script>", .command = "attnviz --html 'I love'", .source = "random, seed 42",
                      .trace = "trace <b>&</b>", .precision = 4, .runs = runs, .n_runs = n, .max_bytes = max_bytes};
    av_err err = {{0}};
    av_status s = av_html_write(path, &p, &err);
    if (s) fail_msg("av_html_write: %s", err.msg);
    return tu_slurp_file(path, NULL);
}

/* ---------------------------------------------------------------- tests */

static void html_data_decodes_to_the_exact_float32_values(void **state) {
    tu_fixture *f = *state;
    run_data d;
    av_html_run r = make_run(&d, 2, 3, 4, 5);
    char *page = write_page(tu_in(f, "a.html"), &r, 1, 0);
    assert_non_null(page);
    static unsigned char buf[4 * 2 * 3 * 4 * 5];
    struct { const char *key; const float *x; size_t n; } t[] = {
        {"weights", d.w, 96}, {"scores", d.s, 96}, {"q", d.q, 120}, {"k", d.k, 120}, {"v", d.v, 120}};
    for (int i = 0; i < 5; i++) {
        long n = b64_field(page, t[i].key, buf, sizeof buf);
        assert_int_equal(n, (long)(4 * t[i].n));
        for (size_t j = 0; j < t[i].n; j++) {
            uint32_t u = (uint32_t)buf[4 * j] | (uint32_t)buf[4 * j + 1] << 8 | (uint32_t)buf[4 * j + 2] << 16 |
                         (uint32_t)buf[4 * j + 3] << 24;
            float x;
            memcpy(&x, &u, 4);
            assert_true(x == t[i].x[j]);
        }
    }
    long n = b64_field(page, "mask", buf, sizeof buf);
    assert_int_equal(n, 16);
    assert_int_equal(buf[1], 1);  /* query 0 does not see key 1 (causal) */
    assert_int_equal(buf[4], 0);
    assert_non_null(strstr(page, "\"encoding\":\"float32\""));
    assert_non_null(strstr(page, "\"L\":2,\"H\":3,\"T\":4,\"D\":5"));
    free(page);
    free_run(&d);
}

static void html_qkv_layer_stride_reads_gpt2_layout(void **state) {
    /* gpt2.h keeps q, k, v as (L, 3, H, T, D): layer l's q is 3·H·T·D floats after layer l−1's */
    tu_fixture *f = *state;
    run_data d;
    av_html_run r = make_run(&d, 2, 1, 2, 2);
    float qkvh[2 * 3 * 1 * 2 * 2];
    for (int i = 0; i < 24; i++) qkvh[i] = (float)i;
    r.q = qkvh; r.k = qkvh + 4; r.v = qkvh + 8;
    r.qkv_layer_stride = 12;
    char *page = write_page(tu_in(f, "g.html"), &r, 1, 0);
    unsigned char buf[64];
    assert_int_equal(b64_field(page, "k", buf, sizeof buf), 32);
    float k[8];
    memcpy(k, buf, 32); /* little-endian host (x86-64, arm64) */
    const float want[8] = {4, 5, 6, 7, 16, 17, 18, 19};
    for (int i = 0; i < 8; i++) assert_true(k[i] == want[i]);
    free(page);
    free_run(&d);
}

static void html_text_cannot_close_the_script_element(void **state) {
    tu_fixture *f = *state;
    run_data d;
    av_html_run r = make_run(&d, 1, 1, 4, 2);
    char *page = write_page(tu_in(f, "e.html"), &r, 1, 0);
    /* one </script> closes the data block, one the JavaScript; the token,
     * title and trace text are escaped */
    assert_int_equal(count(page, "</script>"), 2);
    assert_non_null(strstr(page, "\\u003c/script\\u003e\\u003cb\\u003e"));
    assert_non_null(strstr(page, "\"\\\"q\\\"\\\\\""));
    assert_non_null(strstr(page, "<title>attnviz: I love &lt;/script&gt;</title>"));
    free(page);
    free_run(&d);
}

/* The page is UTF-8 (RFC 8259 §8.1 for its JSON), but a --model or -o
 * folder name in the command, the source and the trace need not be (bytes
 * 0xFF 0xFE, as a Latin-1 file system allows): each byte that is not UTF-8
 * becomes U+FFFD, Python's b"bad\xff\xfe".decode("utf-8", "replace"). */
static void html_text_that_is_not_utf8_is_written_as_utf8(void **state) {
    tu_fixture *f = *state;
    run_data d;
    av_html_run r = make_run(&d, 1, 1, 4, 2);
    av_html_page p = {.title = "3 1 \xFF", .command = "attnviz --model bad\xFF\xFE '3 1'",
                      .source = "model bad\xFF\xFE (F32)", .trace = "weights    model bad\xFF\xFE", .precision = 4,
                      .runs = &r, .n_runs = 1};
    av_err err = {{0}};
    const char *path = tu_in(f, "u.html");
    if (av_html_write(path, &p, &err)) fail_msg("av_html_write: %s", err.msg);
    size_t n = 0;
    char *page = tu_slurp_file(path, &n);
    assert_non_null(page);
    assert_null(memchr(page, 0xFF, n));
    assert_null(memchr(page, 0xFE, n));
    assert_int_equal(count(page, "bad\xEF\xBF\xBD\xEF\xBF\xBD"), 3);
    assert_non_null(strstr(page, "<title>attnviz: 3 1 \xEF\xBF\xBD</title>"));
    free(page);
    free_run(&d);
}

static void html_refers_to_nothing_outside_itself(void **state) {
    tu_fixture *f = *state;
    run_data d;
    av_html_run r = make_run(&d, 1, 2, 4, 2);
    char *page = write_page(tu_in(f, "n.html"), &r, 1, 0);
    assert_null(strstr(page, " src="));
    assert_null(strstr(page, "href=\"http"));
    assert_null(strstr(page, "url("));
    assert_null(strstr(page, "@import"));
    assert_null(strstr(page, "fetch("));
    assert_null(strstr(page, "XMLHttpRequest"));
    assert_non_null(strstr(page, "default-src 'none'"));
    free(page);
    free_run(&d);
}

static void html_over_the_limit_is_8_bit_then_cut(void **state) {
    tu_fixture *f = *state;
    run_data d;
    /* 6 panels: float32 6·4·(2·16 + 3·20) = 2208 B, 8-bit 6·2·16 = 192 B; the causal mask's 16 B count too */
    av_html_run r = make_run(&d, 2, 3, 4, 5);
    int mode;
    assert_int_equal(av_html_data_bytes(&(av_html_page){.runs = &r, .n_runs = 1}, &mode), 2208 + 16);
    assert_int_equal(mode, 0);
    char *page = write_page(tu_in(f, "q.html"), &r, 1, 2000);
    assert_non_null(strstr(page, "\"encoding\":\"uint8\",\"mode\":1"));
    assert_null(strstr(page, "\"q\":\""));
    assert_non_null(strstr(page, "\"kept\":6"));
    /* 8-bit weights: round(x·255); scores over each panel's [min, max] */
    unsigned char buf[128];
    assert_int_equal(b64_field(page, "weights", buf, sizeof buf), 96);
    for (int i = 0; i < 96; i++) assert_int_equal(buf[i], (int)lrintf(d.w[i] * 255.0f));
    assert_non_null(strstr(page, "\"scores_range\":[-6,-4.125,-4,-2.125,"));
    free(page);
    page = write_page(tu_in(f, "c.html"), &r, 1, 100); /* 32 B per panel beside the 16-byte mask: 2 panels fit */
    assert_non_null(strstr(page, "\"mode\":2"));
    assert_non_null(strstr(page, "\"kept\":2"));
    assert_int_equal(b64_field(page, "weights", buf, sizeof buf), 32);
    free(page);
    free_run(&d);
}

/* A --compare page over its limit keeps the first heads of every setting, in turn: with 3 panels' room it
 * kept heads 0..2 of "scaled ÷√d_k" and none of "no scale" ("kept":3 then "kept":0), so no head could be
 * compared (a tester's report); now 2 and 1. 400 tokens: a panel is 2·400² B = 312.5 KiB at 8 bits, 3 fit
 * in 1 MiB. */
static void html_compare_over_the_limit_keeps_every_setting(void **state) {
    tu_fixture *f = *state;
    static char words[400 * 5 + 1];
    words[0] = 0;
    for (int i = 0; i < 400; i++) snprintf(words + strlen(words), sizeof words - strlen(words), "%sw%d", i ? " " : "", i);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "-H", "4", "-d", "16", "--compare", "scale", "--html", "--html-limit", "1",
                "-o", f->dir, words, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "\"mode\":2"));
    const char *first = strstr(page, "\"kept\":"), *second = first ? strstr(first + 1, "\"kept\":") : NULL;
    assert_non_null(second);
    if (strncmp(first, "\"kept\":2,", 9) || strncmp(second, "\"kept\":1,", 9))
        fail_msg("kept %.10s and %.10s, want 2 and 1", first, second);
    free(page);
}

/* The terminal says what the page cut, as the page does: `--heads 8 --html` on 1500 tokens printed "wrote 10
 * files" while the page kept 3 of its 8 heads (a learner's pass). With d_model 512 and --html-limit 1: 100
 * tokens need 8 · 4 B · (2·100² + 3·100·64) = 1 254 400 B at float32, over 1 MiB, and 8 · 2·100² = 160 000 B
 * at 8 bits (mode 1: every head); 300 tokens need 2·300² = 180 000 B a head at 8 bits, 5 of which fit in
 * 1 048 576 B (mode 2). By hand. -q keeps the note out, as every note. The note says the limit is of numbers
 * and that the file is larger (a new user's pass: "the page's limit is 16 MiB" beside a 22 MB page). */
static void html_note_says_what_the_page_cut(void **state) {
    tu_fixture *f = *state;
    static char words[300 * 5 + 1];
    const struct { int T; const char *want; } cases[] = {
        {100, "attnviz: note: attnviz.html holds the weights and scores, at 8 bits (each to 1/255 of its map's range), "
              "and no q, k, v: the page's limit is 1 MiB of numbers (the file is larger: base64 takes 4/3 as many bytes, "
              "beside its script); --html-limit (up to 1024 MiB) raises it\n"},
        {300, "attnviz: note: attnviz.html holds the weights and scores of 5 of its 8 heads only, at 8 bits (each to "
              "1/255 of its map's range), and no q, k, v: the page's limit is 1 MiB of numbers (the file is larger: "
              "base64 takes 4/3 as many bytes, beside its script); --html-limit (up to 1024 MiB) raises it\n"}};
    for (int k = 0; k < 2; k++) {
        words[0] = 0;
        for (int i = 0; i < cases[k].T; i++)
            snprintf(words + strlen(words), sizeof words - strlen(words), "%sw%d", i ? " " : "", i);
        tu_result r;
        run_attnviz(&r, NULL, "--no-plot", "-H", "8", "--html", "--html-limit", "1", "-o", f->dir, words, NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        if (!strstr(r.err, cases[k].want)) fail_msg("%d tokens: want\n%s\nin stderr:\n%s", cases[k].T, cases[k].want, r.err);
        tu_free(&r);
        /* the limit counts numbers, not the file, as the note says: 300 tokens keep 5 · 180 000 = 900 000 B,
         * 1 200 000 B of base64, so the page is over the 1 048 576 B it names ("the page's limit is 1 MiB"
         * read as the file's size, beside a larger file). By hand */
        struct stat st;
        assert_int_equal(stat(tu_in(f, "attnviz.html"), &st), 0);
        if (k == 1 && st.st_size < 1200000) fail_msg("page of %lld bytes", (long long)st.st_size);
        run_attnviz(&r, NULL, "-q", "--no-plot", "-H", "8", "--html", "--html-limit", "1", "-o", f->dir, words, NULL);
        assert_int_equal(r.code, 0);
        assert_string_equal(r.err, "");
        tu_free(&r);
    }
    /* under the limit, no note */
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-H", "8", "--html", "-o", f->dir, "I love you", NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.err, "8 bits"));
    tu_free(&r);
}

/* The (T, T) mask a page stores (--causal, --pad-to, --attn-mask: T² bytes) counts in --html-limit: a
 * 5000-token --causal page held 25 MB of mask (33 MB of base64) outside the limit's count. 320 tokens at 8
 * heads, --html-limit 1: 2·320² = 204 800 B a head at 8 bits, 5 fit in 1 048 576 B alone, 4 beside the
 * 102 400-byte mask (4·204 800 + 102 400 = 921 600); 600 tokens: one head's 720 000 B and the mask's
 * 360 000 B are over 1 MiB, refused before any file. By hand. */
static void html_limit_counts_the_mask(void **state) {
    tu_fixture *f = *state;
    static char words[600 * 5 + 1];
    words[0] = 0;
    for (int i = 0; i < 320; i++) snprintf(words + strlen(words), sizeof words - strlen(words), "%sw%d", i ? " " : "", i);
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-H", "8", "--causal", "--html", "--html-limit", "1", "-o", f->dir, words, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.err, "attnviz: note: attnviz.html holds the weights and scores of 4 of its 8 heads only, "
                                  "at 8 bits (each to 1/255 of its map's range), and no q, k, v: the page's limit is 1 "
                                  "MiB of numbers, the (T, T) mask it stores (0.1 MiB) included (the file is larger: "
                                  "base64 takes 4/3 as many bytes, beside its script); --html-limit (up to 1024 MiB) "
                                  "raises it\n"));
    tu_free(&r);
    char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "\"data_bytes\":921600,\"max_bytes\":1048576,"));
    assert_non_null(strstr(page, "\"kept\":4,"));
    assert_null(strstr(page, "\"mask\":\"\"")); /* the mask is stored */
    free(page);
    for (int i = 320; i < 600; i++) snprintf(words + strlen(words), sizeof words - strlen(words), " w%d", i);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--causal", "--html", "--html-limit", "1", "-o", tu_in(f, "big"), words,
                NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "attnviz: error: --html: one head's weights and scores for 600 tokens take 0.7 MiB at "
                                  "8 bits, with the (T, T) mask it stores (0.34 MiB) 1.03 MiB in all, over the page's 1 "
                                  "MiB; raise --html-limit (up to 1024) or use fewer tokens\n"));
    assert_false(file_exists(tu_in(f, "big")));
    tu_free(&r);
}

/* An --attn-mask that hides no cell is not stored (html.c), so it is not counted: a 600-token page of an
 * all-False mask at --html-limit 1 (720,000 bytes) was refused "with the (T, T) mask it stores (0.34 MiB)
 * 1.03 MiB in all", a mask it does not store; one True cell and it is stored, counted and refused. */
static void html_limit_counts_an_attn_mask_that_hides_a_cell(void **state) {
    tu_fixture *f = *state;
    static char words[600 * 5 + 1];
    static unsigned char mask[600 * 600];
    size_t shape[2] = {600, 600};
    av_err err = {{0}};
    words[0] = 0;
    for (int i = 0; i < 600; i++) snprintf(words + strlen(words), sizeof words - strlen(words), "%sw%d", i ? " " : "", i);
    if (av_npy_write_bool(tu_in(f, "none.npy"), mask, 2, shape, &err)) fail_msg("%s", err.msg);
    mask[1] = 1; /* query 0 does not see key 1 */
    if (av_npy_write_bool(tu_in(f, "one.npy"), mask, 2, shape, &err)) fail_msg("%s", err.msg);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--attn-mask", tu_in(f, "none.npy"), "--html", "--html-limit", "1", "-o",
                tu_in(f, "none"), words, NULL);
    if (r.code != 0) fail_msg("all-False mask: exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *page = tu_slurp_file(tu_in(f, "none/attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "\"mask\":\"\"")); /* not stored */
    assert_non_null(strstr(page, "\"data_bytes\":720000,"));
    free(page);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--attn-mask", tu_in(f, "one.npy"), "--html", "--html-limit", "1", "-o",
                tu_in(f, "one"), words, NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "attnviz: error: --html: one head's weights and scores for 600 tokens take 0.7 MiB at "
                                  "8 bits, with the (T, T) mask it stores (0.34 MiB) 1.03 MiB in all, over the page's 1 "
                                  "MiB; raise --html-limit (up to 1024) or use fewer tokens\n"));
    assert_false(file_exists(tu_in(f, "one")));
    tu_free(&r);
}

static void html_size_of_gpt2_small_on_20_tokens(void **state) {
    (void)state;
    /* L = 12, H = 12, T = 20, D = 64: per panel 2·20·20 + 3·20·64 = 4640
     * floats, 144 panels · 4640 · 4 B = 2 672 640 B, under the 16 MiB limit */
    av_html_run r = {.L = 12, .H = 12, .T = 20, .D = 64, .q = (float *)1, .k = (float *)1, .v = (float *)1};
    int mode;
    assert_int_equal(av_html_data_bytes(&(av_html_page){.runs = &r, .n_runs = 1}, &mode), 2672640);
    assert_int_equal(mode, 0);
    /* the largest single layer (H 64, T 512): 64 panels, 8-bit 2·512² B each = 32 MiB > 16 MiB: cut to 32 */
    r = (av_html_run){.L = 1, .H = 64, .T = 512, .D = 64};
    assert_int_equal(av_html_data_bytes(&(av_html_page){.runs = &r, .n_runs = 1}, &mode), (size_t)16 << 20);
    assert_int_equal(mode, 2);
}

static void html_rejects_an_empty_description(void **state) {
    tu_fixture *f = *state;
    av_err err = {{0}};
    av_html_page p = {.n_runs = 0};
    assert_int_equal(av_html_write(tu_in(f, "x.html"), &p, &err), AV_EUSAGE);
    av_html_run r = {.L = 1, .H = 0, .T = 2, .D = 2};
    p = (av_html_page){.runs = &r, .n_runs = 1};
    assert_int_equal(av_html_write(tu_in(f, "x.html"), &p, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "got 1, 0, 2, 2"));
    assert_false(file_exists(tu_in(f, "x.html")));
}

/* ---------------------------------------------------------------- the command */

static void html_option_writes_the_page_and_lists_it(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--heads", "2", "-d", "16", "--html", "--no-plot", "-o", f->dir, "I love you", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "attnviz.html"));
    char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "\"source\":\"random weights (untrained, seed 42)"));
    assert_non_null(strstr(page, "\"command\":\"attnviz --heads 2 -d 16 --html --no-plot -o "));
    assert_non_null(strstr(page, "[6] scores")); /* the trace */
    assert_non_null(strstr(page, "\"tokens\":[\"I\",\"love\",\"you\"]"));
    assert_false(file_exists(tu_in(f, "head0.png")));
    /* without --dump the cell view names no file: "(= scores.npy[0, 0, 0])" named one never written (a
     * figure-maker's report); with it, the files --dump wrote */
    assert_non_null(strstr(page, "\"weights_file\":\"\",\"scores_file\":\"\""));
    free(page);
    tu_free(&r);
    run_attnviz(&r, NULL, "--heads", "2", "-d", "16", "--html", "--no-plot", "--dump", tu_in(f, "d"), "-o", f->dir,
                "I love you", NULL);
    assert_int_equal(r.code, 0);
    page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "\"weights_file\":\"weights.npy\",\"scores_file\":\"scores.npy\""));
    assert_true(file_exists(tu_in(f, "d/scores.npy")));
    free(page);
    tu_free(&r);
}

/* The page's trace leaves out the kernel's thread count, which the terminal's trace keeps: the numbers are
 * the same whatever the number of threads, but `attnviz --kernel blas --html ...` wrote "(OpenBLAS Haswell
 * kernels), 2 threads; keeps the (H, T, T) weights" into attnviz.html, and the same command under `taskset
 * -c 0` (or on a machine with other CPUs) "1 thread", another page. */
static void html_trace_has_no_thread_count(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "-d", "16", "--kernel", "blas", "--html", "--no-plot", "-o", f->dir, "I love you", NULL);
    assert_int_equal(r.code, 0);
    const char *line = strstr(r.out, "  kernel     blas: ");
    assert_non_null(line);
    if (!strstr(line, " thread")) fail_msg("the terminal's trace lost its thread count: %.160s", line);
    char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
    assert_non_null(page);
    line = strstr(page, "  kernel     blas: ");
    assert_non_null(line);
    const char *end = strstr(line, "\\n");
    assert_non_null(end);
    if (!strstr(line, "kernels); keeps the (H, T, T) weights") || (strstr(line, " thread") && strstr(line, " thread") < end))
        fail_msg("the page's kernel line holds the machine's thread count: %.*s", (int)(end - line), line);
    free(page);
    tu_free(&r);
}

/* A run without a mask stores none: the page held T·T zero bytes as "mask", outside --html-limit's count
 * (`--heads 8 --html-limit 64 --no-plot -f 5000-words.txt` wrote 100 MB, 33 MB of them "AAAA..."); "" is no
 * mask to page.js. --causal and --pad-to still store theirs, 1 = masked. */
static void html_without_a_mask_stores_none(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "-d", "16", "--html", "--no-plot", "-o", f->dir, "I love you", NULL);
    assert_int_equal(r.code, 0);
    char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "\"tokens\":[\"I\",\"love\",\"you\"],\"mask\":\"\""));
    free(page);
    tu_free(&r);
    /* causal (3, 3): rows 0 1 1 / 0 0 1 / 0 0 0, base64 of those 9 bytes */
    run_attnviz(&r, NULL, "-d", "16", "--html", "--no-plot", "--causal", "-o", f->dir, "I love you", NULL);
    assert_int_equal(r.code, 0);
    page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "\"mask\":\"AAEBAAABAAAA\""));
    free(page);
    tu_free(&r);
}

/* Each run says whether its mask is causal and how many tokens precede --pad-to's <pad>s, so the cell view can
 * give --explain's reason for a masked cell and its <pad>-query note: the page held the (T, T) mask alone, and
 * a clicked masked cell read "A[0, 0, 1, 5] = exp(−∞) / 1.1705 = 0.0000" with no reason. "I love you" is 3
 * tokens: --pad-to 5 adds 2 <pad>s (n_real 3 of T 5); without it n_real is T; --causal is the run's flag. */
static void html_run_says_causal_and_real_tokens(void **state) {
    tu_fixture *f = *state;
    static const struct {
        const char *a, *b, *want;
    } runs[] = {
        {"--causal", "--pad-to", "\"causal\":true,\"n_real\":3,\"L\":1,\"H\":1,\"T\":5,"},
        {"--pad-to", "5", "\"causal\":false,\"n_real\":3,\"L\":1,\"H\":1,\"T\":5,"},
        {"--causal", NULL, "\"causal\":true,\"n_real\":3,\"L\":1,\"H\":1,\"T\":3,"},
        {NULL, NULL, "\"causal\":false,\"n_real\":3,\"L\":1,\"H\":1,\"T\":3,"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        const char *args[16] = {"-q", "--heads", "1", "-d", "8", "--html", "--no-plot", "-o", f->dir};
        int n = 9;
        if (runs[i].a) args[n++] = runs[i].a;
        if (runs[i].b) args[n++] = runs[i].b;
        if (runs[i].b && !strcmp(runs[i].b, "--pad-to")) args[n++] = "5";
        args[n++] = "I love you";
        tu_result r;
        tu_runv(&r, NULL, NULL, args);
        assert_int_equal(r.code, 0);
        char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
        assert_non_null(page);
        if (!strstr(page, runs[i].want)) {
            const char *at = strstr(page, "\"files_have_layers\"");
            fail_msg("run %zu: no %s in the page's data: %.160s", i, runs[i].want, at ? at : "(no run)");
        }
        free(page);
        tu_free(&r);
    }
}

/* The page holds the trace as printed, and the trace reads W_Q and W_K again
 * after the figures: RoPE's shift check projects X anew, and -v prints the
 * matrices. Both once crashed (exit 139) because the weights were freed before
 * the page; the page's trace is the terminal's, RoPE evidence and W_Q included. */
static void html_trace_of_rope_and_verbose_runs(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--heads", "2", "-d", "16", "--positions", "rope", "--html", "-o", f->dir, "I love you",
                NULL);
    assert_int_equal(r.code, 0);
    char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(r.out, "evidence: shift every position"));
    assert_non_null(strstr(page, "evidence: shift every position"));
    free(page);
    tu_free(&r);
    run_attnviz(&r, NULL, "-v", "-d", "8", "--html", "-o", f->dir, "I love you", NULL);
    assert_int_equal(r.code, 0);
    page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(r.out, "      W_Q ="));
    assert_non_null(strstr(page, "      W_Q ="));
    free(page);
    tu_free(&r);
}

/* --precision N sets the digits of the page's views, every N the option
 * allows (0..10), as -v's printout takes them, and is no "no effect" option
 * with --html (a new user's report: 0 gave 4 digits, 10 gave 9, and the
 * warning said --precision did nothing while the page used it). */
static void html_precision_is_the_options(void **state) {
    tu_fixture *f = *state;
    static const char *const ns[] = {"0", "1", "6", "10"};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "-q", "--no-plot", "--html", "--precision", ns[k], "-o", f->dir, "I love you", NULL);
        assert_int_equal(r.code, 0);
        if (strstr(r.err, "no effect")) fail_msg("--precision %s --html: %s", ns[k], r.err);
        char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL), want[32];
        assert_non_null(page);
        snprintf(want, sizeof want, "\"precision\":%s,", ns[k]);
        if (!strstr(page, want)) fail_msg("--precision %s: the page lacks %s", ns[k], want);
        free(page);
        tu_free(&r);
    }
}

/* --cmap colours the page's weights as the figures' (its "cmap"), so with --no-plot --html it is no
 * "no effect" option (a tester's report: `--no-plot --html --cmap magma` warned '--cmap magma has no
 * effect with --no-plot' while the page drew magma); the figure-only options still warn. */
static void html_cmap_with_no_plot_is_the_pages(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--html", "--cmap", "magma", "-o", f->dir, "I love you", NULL);
    assert_int_equal(r.code, 0);
    if (strstr(r.err, "no effect")) fail_msg("--cmap magma --no-plot --html: %s", r.err);
    char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
    assert_non_null(page);
    if (!strstr(page, "\"cmap\":\"magma\"")) fail_msg("the page lacks \"cmap\":\"magma\"");
    free(page);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--html", "--dpi", "200", "-o", f->dir, "I love you", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.err, "--dpi 200 has no effect with --no-plot")) fail_msg("--dpi 200 --no-plot --html: %s", r.err);
    tu_free(&r);
}

/* A long sentence: the title is cut before a character, never inside one,
 * so the page stays valid UTF-8 (700 × 我 = 2,100 bytes was once cut after the
 * first byte of a 我), and as the figures' titles cut it: 20 我 are 40
 * columns (each is 2 wide), the 21st would pass 40, so "…" follows. */
static void html_long_sentence_title_is_valid_utf8(void **state) {
    tu_fixture *f = *state;
    char sentence[2101];
    for (int i = 0; i < 700; i++) memcpy(sentence + 3 * i, "\xE6\x88\x91", 3); /* 我 */
    sentence[2100] = 0;
    tu_result r;
    run_attnviz(&r, NULL, "-q", "-d", "8", "--html", "--no-plot", "-o", f->dir, sentence, NULL);
    assert_int_equal(r.code, 0);
    size_t n = 0;
    char *page = tu_slurp_file(tu_in(f, "attnviz.html"), &n);
    assert_non_null(page);
    av_err err;
    if (av_utf8_check(page, n, &err)) fail_msg("%s", err.msg);
    char want[128] = "<title>attnviz: ";
    for (int i = 0; i < 20; i++) strcat(want, "\xE6\x88\x91");
    strcat(want, "\xE2\x80\xA6</title>"); /* … */
    if (!strstr(page, want)) fail_msg("no '%s'", want);
    free(page);
    tu_free(&r);
}

/* "--title --html page.html x": --html is the title there, not the option, so nothing is refused and no
 * page is written (a tester's pass: the check for "--html page.html" refused it). */
static void html_as_a_title_is_no_page(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "-q", "-d", "8", "--figures", "heads", "--title", "--html", "page.html", "x", "-o", f->dir, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_false(file_exists(tu_in(f, "attnviz.html")));
    assert_true(file_exists(tu_in(f, "head0.png")));
    tu_free(&r);
}

/* --title titles the page as it titles the figures: "--title 'Lesson 3: 注意力'" left the page's <title> and
 * heading the sentence, and with --no-plot a warning said --title had no effect (a teacher's pass); the
 * title's '<' is text. Without --title the sentence stays (the test below). */
static void html_title_is_the_title_option(void **state) {
    tu_fixture *f = *state;
    for (int no_plot = 0; no_plot < 2; no_plot++) {
        tu_result r;
        run_attnviz(&r, NULL, "-q", "-d", "8", "--html", no_plot ? "--no-plot" : "-q", "--title",
                    "Lesson 3: \xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B <b>", "-o", f->dir, "I love you", NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        assert_string_equal(r.err, "");
        char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
        assert_non_null(page);
        if (!strstr(page, "<title>attnviz: Lesson 3: \xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B &lt;b&gt;</title>"))
            fail_msg("--no-plot %d: the page's <title> is not --title's", no_plot);
        assert_null(strstr(page, "<title>attnviz: I love you</title>"));
        free(page);
        tu_free(&r);
    }
}

/* A --title holding an override or isolate it does not close (an RLO, U+202E; an LRI, U+2067) ends with it
 * on the page, as in the figures' titles (test_figures.c): `--title $'Slide \u202eevil' --html` headed the
 * page “Slide ”live, its closing quote, which page.js writes after the data's "title", drawn turned
 * around (a lecture-notes author's pass). Checked by the bidi rules (UAX #9 X1-X8, tu_bidi_open_at) at the
 * end of the <title> text and of the data's "title": nothing may be left open there. */
static void html_title_closes_its_bidi_controls(void **state) {
    tu_fixture *f = *state;
    static const char *const titles[] = {"Slide \xE2\x80\xAE" "evil", "Slide \xE2\x81\xA7" "abc \xE2\x80\xAB" "x"};
    for (size_t i = 0; i < sizeof titles / sizeof *titles; i++) {
        tu_result r;
        run_attnviz(&r, NULL, "-q", "-d", "8", "--html", "--no-plot", "--title", titles[i], "-o", f->dir, "I love",
                    NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
        assert_non_null(page);
        static const char *const starts[][2] = {{"<title>attnviz: ", "</title>"}, {"\"title\":\"", "\""}};
        for (int k = 0; k < 2; k++) {
            const char *a = strstr(page, starts[k][0]);
            assert_non_null(a);
            a += strlen(starts[k][0]);
            const char *b = strstr(a, starts[k][1]);
            assert_non_null(b);
            char text[512];
            snprintf(text, sizeof text, "%.*s", (int)(b - a), a);
            if (!strstr(text, "Slide ")) fail_msg("title %zu: no --title in '%s'", i, text);
            if (tu_bidi_open_at(text, strlen(text)))
                fail_msg("title %zu: %s leaves %d bidi control(s) open: '%s'", i, k ? "the data's title" : "<title>",
                         tu_bidi_open_at(text, strlen(text)), text);
        }
        free(page);
        tu_free(&r);
    }
}

/* -f: the page's <title> and heading (the data's "title") are the text as
 * read, as in the figures' titles, not the tokens joined by spaces ("Hello
 * , world ! I ' m fine ."); a 300-word file is cut as the figures' titles
 * are: 8 × "word" and 7 spaces are 39 columns, a space and a "w" would pass 40, so
 * "…" follows; the file's newlines are spaces. */
static void html_title_from_a_file_is_the_text_shortened(void **state) {
    tu_fixture *f = *state;
    static const struct {
        const char *text, *title;
    } cases[] = {
        {"Hello, world! I'm fine.\n", "Hello, world! I'm fine."},
        {NULL, "word word word word word word word word\xE2\x80\xA6"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[2000] = "";
        if (cases[i].text) snprintf(text, sizeof text, "%s", cases[i].text);
        else
            for (int w = 0; w < 300; w++) strcat(text, w % 10 == 9 ? "word\n" : "word ");
        FILE *fp = fopen(tu_in(f, "in.txt"), "w");
        assert_non_null(fp);
        fputs(text, fp);
        assert_int_equal(fclose(fp), 0);
        tu_result r;
        run_attnviz(&r, NULL, "-q", "-d", "8", "--html", "--no-plot", "-o", f->dir, "-f", tu_in(f, "in.txt"), NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
        assert_non_null(page);
        char want[256];
        snprintf(want, sizeof want, "<title>attnviz: %s</title>", cases[i].title);
        if (!strstr(page, want)) fail_msg("no '%s'", want);
        snprintf(want, sizeof want, "\"title\":\"%s\"", cases[i].title);
        if (!strstr(page, want)) fail_msg("no '%s'", want);
        free(page);
        tu_free(&r);
    }
}

static void html_compare_has_one_panel_per_setting(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "-d", "16", "--compare", "positions", "--html", "--no-plot", "-q", "-o", f->dir,
                "I love you", NULL);
    assert_int_equal(r.code, 0);
    char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
    assert_non_null(page);
    assert_int_equal(count(page, "{\"name\":"), 3); /* none, sinusoidal, RoPE */
    assert_non_null(strstr(page, "positions: RoPE (interleaved)"));
    assert_non_null(strstr(page, "mean max weight")); /* the comparison table is in the trace */
    free(page);
    tu_free(&r);
}

/* --compare order --html: the page held the base run alone, without a word (a reviewer's note), where
 * every other kind puts each setting on it; now each positions kind's two runs, the input as given and the
 * one with tokens 0 and 2 swapped, labelled in their new places. What they must show is attention's own
 * property, not attnviz's table: without positions the weights only permute, A'[π(i), π(j)] = A[i, j]
 * (exactly: the reference kernel sums each row in the same order), and with positions they do not. */
static void html_compare_order_has_both_runs_of_each_positions_kind(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "-d", "16", "-H", "2", "--compare", "order", "--html", "-q", "-o", f->dir, "I love you", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
    assert_non_null(page);
    assert_int_equal(count(page, "{\"name\":"), 6);
    static const char *const names[6] = {"positions none", "positions none, tokens 0 \xE2\x86\x94 2 swapped",
                                         "positions sinusoidal", "positions sinusoidal, tokens 0 \xE2\x86\x94 2 swapped",
                                         "positions RoPE", "positions RoPE, tokens 0 \xE2\x86\x94 2 swapped"};
    const int pi[3] = {2, 1, 0}; /* π: tokens 0 and 2 swapped */
    float w[6][2 * 9];
    const char *at = page;
    for (int k = 0; k < 6; k++) {
        char want[128];
        snprintf(want, sizeof want, "{\"name\":\"%s\"", names[k]);
        const char *run = strstr(at, want);
        if (!run) fail_msg("no run %s after the %d-th", names[k], k);
        const char *tokens = strstr(run, "\"tokens\":[");
        assert_non_null(tokens);
        const char *want_tok = k % 2 ? "\"tokens\":[\"you\",\"love\",\"I\"]" : "\"tokens\":[\"I\",\"love\",\"you\"]";
        if (strncmp(tokens, want_tok, strlen(want_tok)) != 0) fail_msg("%s: %.40s", names[k], tokens);
        assert_int_equal(b64_field(run, "weights", (unsigned char *)w[k], sizeof w[k]), (long)sizeof w[k]);
        at = run + 1;
    }
    for (int p = 0; p < 3; p++) {
        double worst = 0;
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    worst = fmax(worst, fabs((double)w[2 * p + 1][h * 9 + pi[i] * 3 + pi[j]] - w[2 * p][h * 9 + i * 3 + j]));
        if (p == 0 && worst != 0) fail_msg("positions none: the swapped run differs by %g, not a permutation", worst);
        if (p > 0 && worst < 1e-3) fail_msg("%s: the swapped run is a permutation (%g)", names[2 * p], worst);
    }
    free(page);
}

static void html_model_page_has_every_layer_and_its_q_k_v(void **state) {
    /* a 2-layer, 2-head GPT-2 (tests/gpt2_fixture.h weights) on 3 tokens: the
     * page holds (L, H, T, T) = (2, 2, 3, 3) weights in layer-major order and
     * q, k, v of head h in layer l from qkvh (L, 3, H, T, D) */
    tu_fixture *f = *state;
    av_gpt2_config c;
    av_gpt2_config_defaults(&c);
    c.n_layer = 2, c.n_head = 2, c.n_embd = 8, c.n_positions = 4, c.vocab_size = 10;
    av_gpt2_params p = {0};
    float *block;
    assert_int_equal(gf_params(&p, &block, &c), 0);
    av_gpt2_acts a;
    av_err err = {{0}};
    assert_int_equal(av_gpt2_acts_alloc(&a, &c, 3, &err), AV_OK);
    int ids[3] = {1, 9, 2};
    assert_int_equal(av_gpt2_forward(&a, &p, &c, ids, 3, &err), AV_OK);
    char *labels[3] = {"a", " b", " c"};
    av_tokens toks = {.n = 3, .tok = labels};
    av_options o = {.outdir = f->dir, .precision = 4};
    av_written w = {0};
    av_page_info info = {.command = "attnviz --model m --html", .note = "model m/ (2 layers)", .trace = "layers...",
                         .n_real = 3};
    assert_int_equal(av_page_model(&c, &a, &toks, 3, &o, &info, &w, &err), AV_OK);
    assert_int_equal(w.n, 1);
    char *page = tu_slurp_file(tu_in(f, "attnviz.html"), NULL);
    assert_non_null(strstr(page, "\"L\":2,\"H\":2,\"T\":3,\"D\":4"));
    assert_non_null(strstr(page, "\"source\":\"model m/ (2 layers)\""));
    assert_non_null(strstr(page, "mask: causal · pre-LN"));
    assert_non_null(strstr(page, "\"weights_file\":\"\",\"scores_file\":\"\"")); /* o has no --dump */
    assert_non_null(strstr(page, "\"first_layer\":0")); /* info.layer, as --layer 0 gives it */
    float got[2 * 2 * 3 * 4];
    assert_int_equal(b64_field(page, "weights", (unsigned char *)got, sizeof got), 4 * 36);
    for (int i = 0; i < 36; i++) assert_true(got[i] == a.att[i]);
    assert_int_equal(b64_field(page, "v", (unsigned char *)got, sizeof got), 4 * 48);
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < 24; i++) /* layer l's v: qkvh + (3l + 2)·H·T·D */
            assert_true(got[l * 24 + i] == a.qkvh[(3 * l + 2) * 24 + i]);
    free(page);
    av_written_free(&w);
    av_gpt2_acts_free(&a);
    free(block);
    free(p.h);
}

static void html_limit_without_html_warns_and_train_needs_model(void **state) {
    (void)state;
    tu_result r;
    /* without --html it has no effect: a warning, as for every such option (README), and the run goes on */
    run_attnviz(&r, NULL, "--html-limit", "4", "--no-plot", "I love you", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "attnviz: warning: --html-limit 4 has no effect without --html (it sets the size of "
                               "the --html page)\n");
    assert_non_null(strstr(r.out, "[I] [love] [you]"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--html", "--html-limit", "0", "I love you", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--html-limit"));
    tu_free(&r);
    /* 800 tokens: one head's 8-bit weights and scores are 2·800² B = 1.2 MiB, over a 1 MiB page */
    static char words[800 * 3 + 1];
    for (int i = 0; i < 800; i++) memcpy(words + 3 * i, "ab ", 3);
    words[800 * 3 - 1] = 0;
    run_attnviz(&r, NULL, "--html", "--html-limit", "1", "--no-plot", "-d", "8", words, NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--html: one head's weights and scores for 800 tokens take 1.2 MiB at 8 bits, "
                                  "over the page's 1 MiB; raise --html-limit"));
    tu_free(&r);
}

/* A page too small for one head is refused before any file is written: `-o D --heads 8` then `-o D --heads 2
 * --html --html-limit 1` on 800 tokens replaced head0.png, head1.png and heads.png of the first run, left its
 * head2..7.png, and then failed (a new user's report: two runs mixed in D). Now D keeps the first run's 9
 * PNGs byte for byte, stdout is empty (no trace before a usage error), and no --dump folder is made. */
static void html_too_large_writes_nothing(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "-q", "-o", tu_in(f, "D"), "--heads", "8", "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    const char *names[] = {"head0.png", "head1.png", "head7.png", "heads.png"};
    char *before[4];
    size_t len[4];
    for (int i = 0; i < 4; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "D/%s", names[i]);
        before[i] = tu_slurp_file(tu_in(f, rel), &len[i]);
        assert_non_null(before[i]);
    }
    static char words[800 * 3 + 1];
    for (int i = 0; i < 800; i++) memcpy(words + 3 * i, "ab ", 3);
    words[800 * 3 - 1] = 0;
    run_attnviz(&r, NULL, "-o", tu_in(f, "D"), "--heads", "2", "-d", "8", "--html", "--html-limit", "1", "--dump",
                tu_in(f, "dump"), words, NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "attnviz: error: --html: one head's weights and scores for 800 tokens take 1.2 MiB at "
                               "8 bits, over the page's 1 MiB; raise --html-limit (up to 1024) or use fewer tokens\n");
    tu_free(&r);
    for (int i = 0; i < 4; i++) {
        char rel[64];
        size_t n = 0;
        snprintf(rel, sizeof rel, "D/%s", names[i]);
        char *now = tu_slurp_file(tu_in(f, rel), &n);
        if (!now || n != len[i] || memcmp(now, before[i], n) != 0) fail_msg("%s was rewritten by the failed run", names[i]);
        free(now);
        free(before[i]);
    }
    assert_int_not_equal(access(tu_in(f, "dump"), F_OK), 0);
}

/* A page too small for one head is refused before the (H, T, T) maps are computed: `--heads 8 --html -f`
 * a 5715-token text ran 11 s and took 2.1 GiB before this error (a learner's pass), and under a memory
 * limit such a run said "out of memory allocating tensors" (exit 1) instead. Here 3000 tokens at 8 heads
 * (576 MB of weights and scores) under a 400 MB address-space limit: the page's error, exit 2. The child
 * alone runs under the limit (tu_run_opts.as_limit_kib, as `ulimit -v 400000`). Skipped under
 * AddressSanitizer, which cannot start under such a limit. */
static void html_too_large_refused_before_the_maps(void **state) {
#if defined(__SANITIZE_ADDRESS__)
    (void)state;
    skip();
#else
    tu_fixture *f = *state;
    tu_result r;
    static char words[3000 * 3 + 1];
    for (int i = 0; i < 3000; i++) memcpy(words + 3 * i, "ab ", 3);
    words[3000 * 3 - 1] = 0;
    const char *args[] = {"-q", "-o", tu_in(f, "D"), "--heads", "8", "-d", "8", "--html", "--no-plot", words, NULL};
    tu_run_ex(&r, &(tu_run_opts){.stdout_fd = -1, .as_limit_kib = 400000}, NULL, 0, args);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "attnviz: error: --html: one head's weights and scores for 3000 tokens take 17.2 MiB "
                               "at 8 bits, over the page's 16 MiB; raise --html-limit (up to 1024) or use fewer "
                               "tokens\n");
    tu_free(&r);
    assert_int_not_equal(access(tu_in(f, "D"), F_OK), 0);
#endif
}

/* --compare positions over 560 tokens with --html-limit 1: one head of one setting (0.6 MiB at 8 bits)
 * fits, one of each of the three (1.8 MiB) does not. The page kept the first setting's head and none of
 * the others' ("1 of 1, 0 of 1, 0 of 1": it compared nothing); now the run is refused before any file,
 * as a page that cannot hold one head. With --html-limit 2 the page holds every setting. */
static void html_compare_too_large_for_every_setting_writes_nothing(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    static char words[560 * 3 + 1];
    for (int i = 0; i < 560; i++) memcpy(words + 3 * i, "ab ", 3);
    words[560 * 3 - 1] = 0;
    run_attnviz(&r, NULL, "-o", tu_in(f, "D"), "--heads", "1", "-d", "16", "--compare", "positions", "--html",
                "--html-limit", "1", "--no-plot", "-q", words, NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "attnviz: error: --html: one head of each of the 3 --compare settings (weights and "
                               "scores for 560 tokens, 0.6 MiB at 8 bits each) takes 1.8 MiB, over the page's 1 MiB; "
                               "raise --html-limit (up to 1024) or use fewer tokens\n");
    tu_free(&r);
    assert_int_not_equal(access(tu_in(f, "D/attnviz.html"), F_OK), 0);
    run_attnviz(&r, NULL, "-o", tu_in(f, "D"), "--heads", "1", "-d", "16", "--compare", "positions", "--html",
                "--html-limit", "2", "--no-plot", "-q", words, NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    char *page = tu_slurp_file(tu_in(f, "D/attnviz.html"), NULL);
    assert_non_null(page);
    assert_int_equal(count(page, "\"kept\":1,"), 3);
    free(page);
}

/* --compare order --html: the page's trace ("what attnviz printed") holds the order table that was
 * printed; it held the trace without the table, the one thing the run was for. */
static void html_compare_order_page_trace_has_the_table(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "-o", tu_in(f, "D"), "--heads", "2", "-d", "16", "--compare", "order", "--html", "--no-plot",
                "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "--compare order: swap token 0"));
    tu_free(&r);
    char *page = tu_slurp_file(tu_in(f, "D/attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "--compare order: swap token 0 \\\"I\\\" and token 3 \\\"learning\\\""));
    assert_non_null(strstr(page, "positions sinusoidal  max difference = "));
    assert_int_equal(count(page, "\"kept\":"), 6); /* none, sinusoidal, RoPE; each as given and swapped */
    free(page);
}

/* --model with --compare scale --html: the page's trace holds the --compare scale table printed after the
 * model's trace (it stopped before it). A 2-step toy model keeps the run short. */
static void html_model_compare_scale_page_trace_has_the_table(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--layers", "1", "--heads", "2", "--d-model", "16",
                "-q", "-o", tu_in(f, "toy"), NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", tu_in(f, "toy"), "--compare", "scale", "--html", "--no-plot", "-o", tu_in(f, "D"),
                "3 1 4 >", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "--compare scale: same sentence, layer 0"));
    tu_free(&r);
    char *page = tu_slurp_file(tu_in(f, "D/attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "--compare scale: same sentence, layer 0"));
    free(page);
}

/* --html with --train warns, as every other option --train does not use (it was the one usage error among
 * them, exit 2; a new user's report), and writes no page. */
static void html_with_train_warns(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "-d", "16", "-H", "2", "--html", "--html-limit", "4",
                "-o", tu_in(f, "t"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    char want[4600]; /* the -o folder to paste, one shell word */
    snprintf(want, sizeof want, "attnviz: warning: --html has no effect with --train; use it on a run of the trained "
             "folder: attnviz --model %s --html \"3 1 4 1 5 >\"", tu_sh_word(tu_in(f, "t")));
    if (!strstr(r.err, want)) fail_msg("no '%s' in '%s'", want, r.err);
    assert_non_null(strstr(r.err, "attnviz: warning: --html-limit 4 has no effect with --train"));
    assert_int_equal(access(tu_in(f, "t/attnviz.html"), F_OK), -1);
    assert_int_equal(access(tu_in(f, "t/model.safetensors"), F_OK), 0);
    tu_free(&r);
}

static void html_into_an_unwritable_folder_is_exit_1(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    FILE *fp = fopen(tu_in(f, "file"), "w");
    fclose(fp);
    run_attnviz(&r, NULL, "--html", "--no-plot", "-o", tu_in(f, "file/out"), "hi there", NULL);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "attnviz: error:"));
    tu_free(&r);
}

/* docs/figures/html holds the pages README and docs/tutorial*.md link and show, written by scripts/figures.sh
 * with the commands below. They went stale twice (page.js changed, the committed pages kept the old script)
 * and nothing saw it. The three single-layer pages come from seeded random weights and the reference kernel
 * (every sum in double), so the same command gives the same bytes: each is written again here, in a folder
 * where its -o path is the script's (the page quotes its own command), and must equal the committed file byte
 * for byte. The toy page's model was trained (OpenBLAS adds in another order on another CPU), so of it only
 * the embedded page.js and page.css are checked, as they are for the other three. */
static void html_docs_pages_are_what_this_build_writes(void **state) {
    tu_fixture *f = *state;
    static const struct {
        const char *out;
        const char *args[12];
    } pages[] = {
        {"docs/figures/html", {"-q", "--heads", "4", "--no-plot", "--html", "-o", "docs/figures/html",
                               "I love deep learning", NULL}},
        {"docs/figures/html/compare", {"-q", "--heads", "2", "--compare", "scale", "--no-plot", "--html", "-o",
                                       "docs/figures/html/compare", "I love deep learning", NULL}},
        {"docs/figures/html/zh", {"-q", "--heads", "4", "--no-plot", "--html", "-o", "docs/figures/html/zh",
                                  "我爱深度学习", NULL}},
        {"docs/figures/html/toy", {NULL}},
    };
    char *js = tu_slurp_file(src_path("src/render/html/page.js"), NULL);
    char *css = tu_slurp_file(src_path("src/render/html/page.css"), NULL);
    assert_non_null(js);
    assert_non_null(css);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "mkdir -p %s %s", tu_sh_word(tu_in(f, "docs/figures/html/compare")),
             tu_sh_word(tu_in(f, "docs/figures/html/zh")));
    assert_int_equal(system(cmd), 0);
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "%s/attnviz.html", pages[i].out);
        size_t n_doc = 0;
        char *doc = tu_slurp_file(src_path(rel), &n_doc);
        if (!doc) fail_msg("%s is missing (scripts/figures.sh writes it)", rel);
        if (!strstr(doc, js) || !strstr(doc, css))
            fail_msg("%s does not embed this tree's src/render/html/page.js and page.css: run the \"interactive "
                     "page\" commands of scripts/figures.sh again (or make figures) and commit the pages",
                     rel);
        if (pages[i].args[0]) {
            tu_result r;
            tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
            tu_run_ex(&r, &ro, NULL, 0, pages[i].args);
            assert_int_equal(r.code, 0);
            size_t n_new = 0;
            char *fresh = tu_slurp_file(tu_in(f, rel), &n_new);
            assert_non_null(fresh);
            size_t k = 0, line = 1;
            while (k < n_new && k < n_doc && fresh[k] == doc[k]) line += fresh[k++] == '\n';
            if (k < n_new || k < n_doc)
                fail_msg("%s differs from what this build writes (byte %zu, line %zu): run the \"interactive "
                         "page\" commands of scripts/figures.sh again (or make figures) and commit the pages",
                         rel, k + 1, line);
            free(fresh);
            tu_free(&r);
        }
        free(doc);
    }
    free(js);
    free(css);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(html_data_decodes_to_the_exact_float32_values, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_qkv_layer_stride_reads_gpt2_layout, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_text_cannot_close_the_script_element, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_refers_to_nothing_outside_itself, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_text_that_is_not_utf8_is_written_as_utf8, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_long_sentence_title_is_valid_utf8, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_as_a_title_is_no_page, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_title_is_the_title_option, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_title_closes_its_bidi_controls, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_title_from_a_file_is_the_text_shortened, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_over_the_limit_is_8_bit_then_cut, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_compare_over_the_limit_keeps_every_setting, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_note_says_what_the_page_cut, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_limit_counts_the_mask, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_limit_counts_an_attn_mask_that_hides_a_cell, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test(html_size_of_gpt2_small_on_20_tokens),
        cmocka_unit_test_setup_teardown(html_rejects_an_empty_description, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_option_writes_the_page_and_lists_it, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_trace_of_rope_and_verbose_runs, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_precision_is_the_options, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_cmap_with_no_plot_is_the_pages, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_too_large_writes_nothing, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_too_large_refused_before_the_maps, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_compare_too_large_for_every_setting_writes_nothing, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_compare_has_one_panel_per_setting, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_compare_order_page_trace_has_the_table, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_compare_order_has_both_runs_of_each_positions_kind, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_model_compare_scale_page_trace_has_the_table, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_model_page_has_every_layer_and_its_q_k_v, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test(html_limit_without_html_warns_and_train_needs_model),
        cmocka_unit_test_setup_teardown(html_with_train_warns, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_without_a_mask_stores_none, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_run_says_causal_and_real_tokens, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_trace_has_no_thread_count, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_into_an_unwritable_folder_is_exit_1, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(html_docs_pages_are_what_this_build_writes, tu_setup_tmpdir, tu_teardown_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
