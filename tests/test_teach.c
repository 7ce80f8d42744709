/* test_teach.c - teaching mode through the real binary: --explain agrees with
 * --dump, word order blindness is an exact permutation, RoPE's shift evidence,
 * the terminal heat-map's colour rules and width, the saturation verdict.
 * Sentences come from assets/sentences.txt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <utf8proc.h>
#include <sys/stat.h>

#include "app/teach.h"
#include "base/utf8.h"
#include "io/npy.h"
#include "testutil.h"
#include "text/tokenize.h"

/* Sentences from assets/sentences.txt (comments skipped). */
static int load_sentences(char lines[][256], int max) {
    FILE *f = fopen(src_path("assets/sentences.txt"), "r");
    assert_non_null(f);
    int n = 0;
    char buf[256];
    while (n < max && fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = 0;
        if (!buf[0] || buf[0] == '#') continue;
        strcpy(lines[n++], buf);
    }
    fclose(f);
    return n;
}

static av_npy load(const char *dir, const char *name) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    av_npy a;
    av_err err;
    if (av_npy_read(&a, path, &err) != AV_OK) {
        print_message("%s\n", err.msg);
        fail();
    }
    return a;
}

/* np.save(path, np.array(m, bool)) of an (n, n) mask, as numpy 1.x writes it: the 10-byte magic and version 1.0
 * with a header length of 118, the dict padded with spaces to 127 bytes and a newline, then n·n bytes of 0 or 1. */
static void write_bool_mask(const char *path, int n, const unsigned char *m) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fwrite("\x93NUMPY\x01\x00\x76\x00", 1, 10, fp);
    int len = 10 + fprintf(fp, "{'descr': '|b1', 'fortran_order': False, 'shape': (%d, %d), }", n, n);
    for (int k = len; k < 127; k++) fputc(' ', fp);
    fputc('\n', fp);
    fwrite(m, 1, (size_t)n * n, fp);
    assert_int_equal(fclose(fp), 0);
}

/* The number printed right before "(= NAME[" on the line containing it. */
static double value_before(const char *out, const char *tag) {
    const char *p = strstr(out, tag);
    if (!p) { print_message("missing %s in:\n%s\n", tag, out); fail(); }
    const char *q = p;
    while (q > out && q[-1] == ' ') q--;
    while (q > out && q[-1] != ' ') q--;
    return strtod(q, NULL);
}

/* The contribution line A·v_j is v_j's line times the weight, entry for entry, cut as v_j's line is: with d_k 8
 * it printed v_j's first four entries and its last, "[-0.4918 0.1230 -0.7207 0.5481 … 0.5381]", and then only
 * the first four products, "= [-0.1020 0.0255 -0.1495 0.1137] …" (a teacher's pass). Each printed product is
 * checked against the weight times the printed entry (4 decimals each, so within 1.5e-4). */
static void test_explain_contribution_has_every_shown_entry(void **state) {
    (void)state;
    static const char *const dk[] = {"16", "8"}; /* d_k 8 (cut) and 4 (whole) */
    for (int c = 0; c < 2; c++) {
        tu_result r;
        run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "-d", dk[c], "-H", "2", "--explain", "1,0",
                    "a b c", NULL);
        assert_int_equal(r.code, 0);
        const char *at = strstr(r.out, "A·v_0 = ");
        if (!at) fail_msg("%s", r.out);
        double w = strtod(at + strlen("A·v_0 = "), NULL);
        const char *vs = strstr(at, "× [");
        const char *cs = strstr(at, "\n                                        = [");
        assert_non_null(vs);
        assert_non_null(cs);
        vs += strlen("× ["), cs += strlen("\n                                        = [");
        int n = 0;
        for (;;) {
            while (*vs == ' ') vs++;
            while (*cs == ' ') cs++;
            int vcut = !strncmp(vs, "…", 3), ccut = !strncmp(cs, "…", 3);
            if (vcut != ccut) fail_msg("d_k %s: the cut differs after %d entries:\n%s", dk[c], n, r.out);
            if (vcut) vs += 3, cs += 3;
            if (*vs == ']' || *cs == ']') {
                if (*vs != *cs) fail_msg("d_k %s: %d entries of v, not of the contribution:\n%s", dk[c], n, r.out);
                break;
            }
            char *ve, *ce;
            double v = strtod(vs, &ve), p = strtod(cs, &ce);
            if (ve == vs || ce == cs) fail_msg("d_k %s: entry %d unread:\n%s", dk[c], n, r.out);
            if (fabs(p - w * v) > 1.5e-4) fail_msg("d_k %s: entry %d: %g × %g is not %g", dk[c], n, w, v, p);
            vs = ve, cs = ce, n++;
        }
        assert_int_equal(n, c == 0 ? 5 : 4);
        tu_free(&r);
    }
}

/* The weight of the contribution line follows --precision as the vectors beside it do: `--explain 1,0 --precision 3
 * "I love deep learning"` printed "A·v_0 = 0.481319 × [ 0.133  2.291 …]", the table's 6 digits, and a weight
 * below 1e-4 took "%.6g" at any precision (a learner's pass). The expected weights are the A line's
 * 0.481319268 (float32 0.481319278) rounded by hand: 0.48 at --precision 0 (2 significant digits at least,
 * test_explain_weight_is_never_a_whole_number), 0.481, 0.4813, 0.48131928; then at every precision 2..9 the
 * weight has the digits after the point that v_0's entries have, and at 1 both its 2 (v_0 takes the weight's
 * digits, so that the line multiplies the numbers it shows: test_explain_weight_is_never_a_whole_number). */
static void test_explain_weight_follows_precision(void **state) {
    (void)state;
    static const struct { const char *precision, *want; } cell[] = {
        {"0", "A·v_0 = 0.48 × ["},
        {"3", "A·v_0 = 0.481 × ["},
        {"4", "A·v_0 = 0.4813 × ["},
        {"8", "A·v_0 = 0.48131928 × ["},
    };
    for (size_t c = 0; c < sizeof cell / sizeof cell[0]; c++) {
        tu_result r;
        run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "--precision", cell[c].precision, "--explain",
                    "1,0", "I love deep learning", NULL);
        assert_int_equal(r.code, 0);
        if (!strstr(r.out, "A[0, 1, 0] = exp(0) / 2.07762304 = 0.481319268, which float32 stores as 0.481319278"))
            fail_msg("the cell's weight is not the one worked by hand:\n%s", r.out);
        if (!strstr(r.out, cell[c].want))
            fail_msg("--precision %s: want \"%s\" in\n%s", cell[c].precision, cell[c].want, r.out);
        tu_free(&r);
    }
    for (int p = 1; p <= 9; p++) {
        char prec[16];
        snprintf(prec, sizeof prec, "%d", p);
        tu_result r;
        run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "--precision", prec, "--explain", "1,0",
                    "I love deep learning", NULL);
        assert_int_equal(r.code, 0);
        const char *w = strstr(r.out, "A·v_0 = "), *v = w ? strstr(w, "× [") : NULL;
        if (!v) fail_msg("no A·v line:\n%s", r.out);
        w += strlen("A·v_0 = "), v += strlen("× [");
        while (*v == ' ') v++;
        const char *wp = strchr(w, '.'), *vp = strchr(v, '.');
        int wd = (int)strspn(wp + 1, "0123456789"), vd = (int)strspn(vp + 1, "0123456789");
        if (wd != (p < 2 ? 2 : p) || vd != wd) fail_msg("--precision %d: the weight has %d digits, v_0 %d:\n%.200s", p, wd, vd, w);
        tu_free(&r);
    }
}

/* A <pad> query's walk-through says that its row is padding: `--pad-to 7 --causal --explain 6,0 "我爱深度学习"` ended
 * "key 我 has weight 38.4% in query <pad>'s weighted average" with no word that the key padding mask hides <pad>
 * keys only and that a <pad> row's output is ignored (a teacher's pass); the tutorial says "The <pad> rows
 * themselves still see the real words, as in PyTorch, and are simply ignored later". A masked cell of that row
 * says it too; a real query's walk-through does not. */
static void test_explain_pad_query_is_ignored_later(void **state) {
    (void)state;
    static const char note[] = "  (query 6 is <pad>: the key padding mask hides <pad> keys, not <pad> queries; a <pad> "
                               "row still sees\n  the real words, as in PyTorch, and its output o_6 is simply ignored "
                               "later)\n";
    static const char *const spec[] = {"6,0", "6,6", "5,0"};
    for (int c = 0; c < 3; c++) {
        tu_result r;
        run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "--pad-to", "7", "--causal", "--explain", spec[c],
                    "我爱深度学习", NULL);
        assert_int_equal(r.code, 0);
        size_t n = strlen(r.out), k = strlen(note);
        if (c < 2 && (n < k || strcmp(r.out + n - k, note)))
            fail_msg("--explain %s should end with\n%s\nnot:\n%s", spec[c], note, r.out);
        if (c == 2 && strstr(r.out, "is <pad>")) fail_msg("--explain 5,0 (a real query):\n%s", r.out);
        tu_free(&r);
    }
}

/* A tiny weight's contribution A·v_j switches to scientific notation as the weight does: --no-scale's weight of
 * 2.4e-13 printed "A·v_1 = 2.41602e-13 × [ 0.3662 -0.5018 …]" and then "= [ 0.0000 -0.0000  0.0000 …]", and one
 * of 6.7e-7 "A·v_2 = 0.000001 × […]" and, with --precision 6, "= [-0.000001 -0.000000 …]" (a learner's pass;
 * --model printed the same). A vector whose largest entry is below 1e-4 is printed as numpy without suppress=True
 * prints it, and so is the weight: the A lines' 2.41601986e-13 and 6.65417303e-07 rounded by hand to P digits. Each product must be nonzero and the weight times v's entry, within the rounding of the digits
 * printed: v's entry ±0.5·10^-P, the product's P digits after its leading one. */
static void test_explain_tiny_contribution_in_scientific(void **state) {
    (void)state;
    static const struct { const char *spec, *precision, *w; } cell[] = {
        {"0,1", "4", "A·v_1 = 2.4160e-13 × ["}, /* --heads 2 --head 0, the report's cell */
        {"0,2", "4", "A·v_2 = 6.6542e-07 × ["}, /* one head */
        {"0,2", "6", "A·v_2 = 6.654173e-07 × ["},
    };
    for (size_t c = 0; c < sizeof cell / sizeof cell[0]; c++) {
        tu_result r;
        run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "--no-scale", "--heads", c == 0 ? "2" : "1",
                    "--precision", cell[c].precision, "--explain", cell[c].spec, "I love deep learning", NULL);
        assert_int_equal(r.code, 0);
        const char *at = strstr(r.out, cell[c].w);
        if (!at) fail_msg("%s --precision %s: want \"%s\" in\n%s", cell[c].spec, cell[c].precision, cell[c].w, r.out);
        double w = strtod(strstr(at, "= ") + 2, NULL), tol = 0.5 * pow(10.0, -atoi(cell[c].precision));
        const char *vs = strstr(at, "× [") + strlen("× [");
        const char *cs = strstr(at, "\n                                        = [");
        assert_non_null(cs);
        cs += strlen("\n                                        = [");
        int n = 0;
        for (;;) {
            while (*vs == ' ') vs++;
            while (*cs == ' ') cs++;
            if (!strncmp(vs, "…", 3) && !strncmp(cs, "…", 3)) vs += 3, cs += 3;
            if (*vs == ']' && *cs == ']') break;
            char *ve, *ce;
            double v = strtod(vs, &ve), p = strtod(cs, &ce);
            if (ve == vs || ce == cs) fail_msg("%s: entry %d unread:\n%s", cell[c].spec, n, r.out);
            if (p == 0 || fabs(p - w * v) > w * tol + 2.0 * tol * fabs(p))
                fail_msg("%s --precision %s: entry %d: %g × %g printed as %.20s", cell[c].spec, cell[c].precision, n,
                         w, v, cs);
            vs = ve, cs = ce, n++;
        }
        assert_int_equal(n, 5);
        tu_free(&r);
    }
}

/* ---------------------------------------------------------------------------- */

/* The sentence's "has weight P%" for weight w: P within the rounding of its digits (0.05 for one decimal, 5 %
 * of it for two significant digits below 0.05 %), and 0 % or 100 % only for a weight of exactly 0 or 1. */
static void check_weight_percent(const char *text, double w) {
    char *end;
    double p = strtod(text, &end);
    if (end == text || *end != '%') fail_msg("no percentage at %.40s", text);
    double tol = 100.0 * w < 0.05 ? 0.05 * 100.0 * w : 0.05;
    if (!(fabs(p - 100.0 * w) <= tol + 1e-12) || (p > 0) != (w > 0) || (p < 100) != (w < 1))
        fail_msg("weight %.9g printed as %.40s", w, text);
}

/* [2] embed names what gets the same row: the same token text, not word, since 学习 is two tokens (one per Han
 * character, as [1] says), 学 and 习, each with its own row. The trace said "the same word gets the same row
 * wherever it appears" (a Chinese-speaking learner's pass). Checked on "学习学" (--dump's X, before positions with
 * --positions none): rows 0 and 2, both 学, are equal, and row 1, 习, is another. */
static void test_embed_step_says_token_text_not_word(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "--color", "never", "-d", "8", "--positions", "none", "--dump", dir, "学习学",
                NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "\n                   the same token text gets the same row wherever it appears (positions "
                "are off, so repeated tokens have identical rows)\n") || strstr(r.out, "same word"))
        fail_msg("[2] embed:\n%s", r.out);
    av_npy x = load(dir, "X.npy");
    assert_int_equal(x.ndim, 2);
    assert_int_equal(x.shape[0], 3);
    assert_memory_equal(x.data, x.data + 2 * 8, 8 * sizeof(float));            /* 学 and 学 */
    assert_memory_not_equal(x.data, x.data + 1 * 8, 8 * sizeof(float));        /* 学 and 习 */
    av_npy_free(&x);
    tu_free(&r);
    rm_rf(dir);
    run_attnviz(&r, NULL, "--no-plot", "--color", "never", "-d", "8", "学习", NULL);
    if (!strstr(r.out, "\n                   the same token text gets the same row wherever it appears\n"))
        fail_msg("[2] embed:\n%s", r.out);
    tu_free(&r);
}

static void test_explain_matches_dump(void **state) {
    (void)state;
    char sent[16][256];
    int n = load_sentences(sent, 16);
    assert_true(n >= 8);
    const char *configs[][6] = {
        {"--heads", "8", "--positions", "sinusoidal", "--head", "3"},
        {"--heads", "2", "--positions", "rope", "--head", "1"},
        {"--heads", "4", "--positions", "none", "--causal", "--no-scale"},
    };
    for (int s = 0; s < n; s++) {
        for (int c = 0; c < 3; c++) {
            char *dir = make_tmpdir();
            av_tokens toks;
            av_err err;
            assert_int_equal(av_tokenize(&toks, sent[s], strlen(sent[s]), 512, &err), AV_OK);
            int T = toks.n, qi = T - 1, kj = T > 1 ? 1 : 0;
            av_tokens_free(&toks);
            char spec[64];
            snprintf(spec, sizeof spec, "%d,%d", qi, kj);
            const char *args[20] = {"--no-plot", "--color", "never", "--dump", dir, "--explain", spec};
            int k = 7;
            for (int i = 0; i < 6; i++) args[k++] = configs[c][i];
            args[k++] = sent[s];
            args[k] = NULL;
            tu_result r;
            tu_runv(&r, NULL, NULL, args);
            assert_int_equal(r.code, 0);
            int h = c == 0 ? 3 : c == 1 ? 1 : 0;
            av_npy sc = load(dir, "scores.npy"), w = load(dir, "weights.npy");
            size_t at = ((size_t)h * T + qi) * T + kj;
            char tag[64];
            snprintf(tag, sizeof tag, "(= scores.npy[%d, %d, %d])", h, qi, kj);
            /* %.9g round-trips float32 exactly */
            assert_true((float)value_before(r.out, tag) == sc.data[at]);
            snprintf(tag, sizeof tag, "(= weights.npy[%d, %d, %d])", h, qi, kj);
            if (strstr(r.out, tag)) {
                assert_true((float)value_before(r.out, tag) == w.data[at]);
                /* the last line names a weight, not a share of the output ("supplies 62.2% of query's output":
                 * the v_j differ in length and can cancel; a teacher's report), at the dump's value */
                const char *line = strstr(r.out, "\" has weight ");
                if (!line || !strstr(line, "% in query \"") ||
                    !strstr(r.out, "'s weighted average of the value vectors in head "))
                    fail_msg("no '\" has weight ...%% in query \"' in:\n%s", r.out);
                check_weight_percent(line + strlen("\" has weight "), w.data[at]);
            } else { /* masked cell: says why, and the weight is 0 */
                assert_non_null(strstr(r.out, "this cell is masked"));
                assert_true(w.data[at] == 0.0f);
            }
            av_npy_free(&sc);
            av_npy_free(&w);
            tu_free(&r);
            rm_rf(dir);
        }
    }
}

static void test_explain_by_token_text_and_masked_cell(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "--causal", "--explain", "love,learning", "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "query 1 \"love\" → key 3 \"learning\""));
    assert_non_null(strstr(r.out, "causal mask hides keys after the query"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "--explain", "love,nothing", "I love deep learning", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "'nothing' is neither a token"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "--explain", "9,0", "I love deep learning", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "outside 0..3"));
    tu_free(&r);
}

/* A spec that fails prints its error alone, not the notes on how it read a part it then refused:
 * `--explain 3,1,2 "3 1 4 >"` printed "note: --explain query 3 is read as an index; the token '3' is
 * index 0" before "has 3 parts", and "love,xyz" on a text with "love" twice "note: --explain query 'love'
 * occurs 2 times" before the key's error. A spec that resolves still gets its note. */
static void test_explain_failed_spec_prints_no_notes(void **state) {
    (void)state;
    static const struct { const char *spec, *says; } bad[] = {
        /* the e.g. from the sentence: its tokens 1 and 3 are "1" and ">", the first a number, so indices alone */
        {"3,1,2", "attnviz: error: --explain '3,1,2' has 3 parts; it takes one pair QUERY,KEY (token indices or token "
         "text), e.g. 1,3: run it once for each pair\n"},
        {"3,9", "attnviz: error: --explain key index 9 is outside 0..5 (T = 6 tokens)\n"},
        {"love,xyz", "attnviz: error: --explain key 'xyz' is neither a token of the sentence nor an index 0..5\n"},
        {"love,1,2", "attnviz: error: --explain 'love,1,2' has 3 parts; it takes one pair QUERY,KEY (token indices or "
         "token text), e.g. 1,3: run it once for each pair\n"},
    };
    tu_result r;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run_attnviz(&r, NULL, "--no-plot", "-q", "-d", "16", "--explain", bad[i].spec, "3 1 4 > love love", NULL);
        if (r.code != 2 || strcmp(r.err, bad[i].says) != 0)
            fail_msg("--explain '%s': exit %d: %s\nwant: %s", bad[i].spec, r.code, r.err, bad[i].says);
        tu_free(&r);
    }
    run_attnviz(&r, NULL, "--no-plot", "-q", "-d", "16", "--explain", "3,love", "3 1 4 > love love", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "attnviz: note: --explain query 3 is read as an index; the token '3' is index 0\n"
                               "attnviz: note: --explain key 'love' occurs 2 times; using the first (index 4); "
                               "give an index to pick another\n");
    tu_free(&r);
}

/* With --html the page (app/page.c) resolves the spec again to open on its cell: each note was printed twice
 * ("'love' occurs 2 times" twice for `--explain 3,love --html`, a pass over the model folders). Once now, as
 * without --html. */
static void test_explain_notes_once_with_html(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-q", "-d", "16", "--html", "-o", dir, "--explain", "3,love",
                "3 1 4 > love love", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "attnviz: note: --explain query 3 is read as an index; the token '3' is index 0\n"
                               "attnviz: note: --explain key 'love' occurs 2 times; using the first (index 4); "
                               "give an index to pick another\n");
    tu_free(&r);
    rm_rf(dir);
}

/* --precision N gives --explain's softmax table N digits when N is above its 6: --precision 9 printed the
 * vectors with 9 and the table's weights with 6 (0.333333), though the man page says N digits with
 * --explain (a new user's report). With W_Q = 0 every score is 0 (q = 0), so under --causal row 2 of
 * "a b c" is uniform over its 3 keys: S = S − max = 0, exp = 1, sum 3, and A = float32(1/3) =
 * 0.3333333432674407958984375 (IEEE 754 binary32 nearest to 1/3), 0.333333343 to 9 digits. The
 * default keeps 6 digits. */
static void test_explain_precision_reaches_the_softmax_table(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    char path[4400];
    snprintf(path, sizeof path, "%s/W_Q.npy", dir);
    float zero[8 * 8] = {0};
    size_t shape[2] = {8, 8};
    av_err err;
    assert_int_equal(av_npy_write(path, zero, 2, shape, &err), AV_OK);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--causal", "--weights", dir, "--precision", "9", "--explain",
                "2,2", "a b c", NULL);
    assert_int_equal(r.code, 0);
    const char *row = strstr(r.out, "→ 2    c");
    if (!row || !strstr(row, " 0.000000000      0.000000000      1.000000000      0.333333343\n"))
        fail_msg("row 2 should read S 0, S − max 0, exp 1, A 0.333333343 to 9 digits:\n%s", r.out);
    /* the weight's line holds to its digits: 1/3, then what float32 keeps of it (test_explain_a_line_holds) */
    if (!strstr(r.out, "A[0, 2, 2] = exp(0) / 3 = 0.333333333, which float32 stores as 0.333333343"))
        fail_msg("the weight's line should have 9 digits:\n%s", r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--causal", "--weights", dir, "--explain", "2,2", "a b c", NULL);
    assert_int_equal(r.code, 0);
    row = strstr(r.out, "→ 2    c");
    if (!row || !strstr(row, "    0.000000      0.000000      1.000000      0.333333\n"))
        fail_msg("the default table keeps 6 digits:\n%s", r.out);
    tu_free(&r);
    rm_rf(dir);
}

/* A new -w folder (free with rm_rf) of X (3, 4) holding 3e12 and -2.5e-9 and W_Q (4, 4) holding -12345.5 and
 * 250.25: values whose fixed-point print is wider than its column or reads as -0.0000 (numpy's printing
 * switches such arrays to scientific notation). */
static char *big_and_tiny_weights(void) {
    char *dir = make_tmpdir();
    char path[4400];
    av_err err;
    float x[3 * 4] = {3e12f, -2.5e-9f, 1, 2, 0.5f, -1, 0.25f, 0, 1, 1, 1, 1};
    float wq[4 * 4] = {-12345.5f, 0, 0, 0, 0, 1, 250.25f, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    snprintf(path, sizeof path, "%s/X.npy", dir);
    assert_int_equal(av_npy_write(path, x, 2, (size_t[]){3, 4}, &err), AV_OK);
    snprintf(path, sizeof path, "%s/W_Q.npy", dir);
    assert_int_equal(av_npy_write(path, wq, 2, (size_t[]){4, 4}, &err), AV_OK);
    return dir;
}

/* -v printed every matrix in fixed point whatever its size: an X.npy holding 3e12 and -2.5e-9 printed
 * "[[ 3000000053248.0000  -0.0000   1.0000   2.0000]", its column past the others and a nonzero value as
 * -0.0000, and a -12345.5 in W_Q pushed its row's columns out of line. A matrix now follows numpy: scientific
 * for all its entries when the largest |value| is ≥ 1e8, every entry right-aligned to the widest. The
 * expected blocks are numpy 1.24's np.set_printoptions(precision=4, floatmode='fixed', suppress=True) print
 * of the same float32 arrays (precision=2 for the last); the ordinary trace keeps its fixed point. */
static void test_verbose_matrices_follow_numpy_format(void **state) {
    (void)state;
    char *dir = big_and_tiny_weights();
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-v", "--color", "never", "-d", "4", "-H", "1", "-w", dir, "-p", "none",
                "a b c", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "      X =\n"
                       "      [[ 3.0000e+12 -2.5000e-09  1.0000e+00  2.0000e+00]\n"
                       "       [ 5.0000e-01 -1.0000e+00  2.5000e-01  0.0000e+00]\n"
                       "       [ 1.0000e+00  1.0000e+00  1.0000e+00  1.0000e+00]]\n"))
        fail_msg("X should switch to scientific notation as numpy does:\n%s", r.out);
    if (!strstr(r.out, "      W_Q =\n"
                       "      [[-12345.5000      0.0000      0.0000      0.0000]\n"
                       "       [     0.0000      1.0000    250.2500      0.0000]\n"
                       "       [     0.0000      0.0000      1.0000      0.0000]\n"
                       "       [     0.0000      0.0000      0.0000      1.0000]]\n"))
        fail_msg("W_Q should stay in fixed point with its columns aligned:\n%s", r.out);
    assert_null(strstr(r.out, "-0.0000"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-v", "--color", "never", "-d", "4", "-H", "1", "-w", dir, "-p", "none",
                "--precision", "2", "a b c", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "      [[ 3.00e+12 -2.50e-09  1.00e+00  2.00e+00]\n"))
        fail_msg("--precision 2 keeps its digits in scientific notation:\n%s", r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-v", "--color", "never", "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "      X =\n      [[  0.9586  -0.4155  -0.6552 ...   0.1968  -0.0825  -1.2525]\n"))
        fail_msg("the ordinary trace keeps its fixed point:\n%s", r.out);
    tu_free(&r);
    rm_rf(dir);
}

/* --explain's S/A table ran its columns together: one space between them, so the header read "S − max
 * exp(S − max)" (a 12-column heading in a 12-column field), a row in numpy's notation "-2.583591e+15
 * -1.972901e+28", and from key 1000 on the index touched its word ("1234 w34"). Every column is now 2 spaces
 * from the next, as pandas prints a table. Expected rows built by hand: 6 spaces, "j" in 4, a space, "key" in 12,
 * then each heading right-aligned in 12 after 2 spaces; a row is "    → " or 6 spaces, the index, the word, and
 * each number %12.6f after 2 spaces (the numbers are those the base binary prints, only the spaces moved). */
static void test_explain_table_columns_have_a_clear_gap(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "--explain", "love,deep", "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    char want[512];
    snprintf(want, sizeof want, "\n      %-4s %-12s  %12s  %14s  %14s  %12s\n", "j", "key", "S[i,j]", "S − max",
             "exp(S − max)", "A[i,j]"); /* "−" is 3 bytes and 1 column: %14s pads the two headings to 12 columns */
    if (!strstr(r.out, want)) fail_msg("the header should be\n%s\nin:\n%s", want, r.out);
    snprintf(want, sizeof want, "\n    → %-4d %-12s  %12.6f  %12.6f  %12.6f  %12.6f\n", 2, "deep", -0.419342, -0.857560,
             0.424196, 0.204174);
    if (!strstr(r.out, want)) fail_msg("the key's row should be\n%s\nin:\n%s", want, r.out);
    assert_null(strstr(r.out, "max exp("));
    tu_free(&r);
    /* 1500 tokens: indices of 4 digits get a column of 5 */
    size_t cap = 1500 * 4 + 1, n = 0;
    char *words = malloc(cap);
    assert_non_null(words);
    for (int i = 0; i < 1500; i++) n += (size_t)snprintf(words + n, cap - n, "%sw%d", i ? " " : "", i % 50);
    run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "-d", "16", "--explain", "1234,1233", words, NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "\n      j     key  ") || !strstr(r.out, "\n    → 1233  w33  ") ||
        !strstr(r.out, "\n      1234  w34  "))
        fail_msg("the index column should be 5 wide with 4-digit keys:\n%s", r.out);
    tu_free(&r);
    free(words);
}

/* --explain's vectors, partial sums and softmax table follow the same numpy rule as -v's matrices (the X and W_Q
 * of test_verbose_matrices_follow_numpy_format): it printed q_0 as [-37036499425820672.0000 -0.0000 ...], partial
 * sums as d<1: -5167181345546240.0000 and a table row 19729008244803146380874874880.000000 that broke its columns */
static void test_explain_follows_numpy_format(void **state) {
    (void)state;
    char *dir = big_and_tiny_weights();
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "-d", "4", "-H", "1", "-w", dir, "-p", "none",
                "--explain", "0,1", "a b c", NULL);
    assert_int_equal(r.code, 0);
    static const char *const want[] = {
        "  q_0 = Q[0, 0, :] = [-3.7036e+16 -2.5000e-09  1.0000e+00  2.0000e+00]   (4 numbers)\n",
        "  k_1 = K[0, 1, :] = [ 0.1395  0.0115 -0.4949  0.2653]\n",
        " = (-3.7036e+16)(0.1395) + (-2.5000e-09)(0.0115) + (1.0000e+00)(-0.4949) + …\n",
        "        partial sums:  d<1: -5.1672e+15  d<2: -5.1672e+15  d<4: -5.1672e+15\n",
        "      j    key                  S[i,j]        S − max   exp(S − max)         A[i,j]\n"
        "      0    a              1.972901e+28   0.000000e+00   1.000000e+00   1.000000e+00\n"
        "    → 1    b             -2.583591e+15  -1.972901e+28   0.000000e+00   0.000000e+00\n"
        "      2    c              2.213230e+15  -1.972901e+28   0.000000e+00   0.000000e+00\n",
        "  A[0, 0, 1] = exp(-1.97290082e+28) / 1 = 0\n", /* 9 digits, as the row sum's line */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(r.out, want[i])) fail_msg("--explain should print\n%s\nin numpy's notation:\n%s", want[i], r.out);
    assert_null(strstr(r.out, "0000000.0"));
    tu_free(&r);
    /* ordinary numbers keep their fixed point */
    run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "--explain", "1,3", "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.out, "e+0"));
    assert_null(strstr(r.out, "e-0"));
    tu_free(&r);
    rm_rf(dir);
}

/* Whether text has a number that prints as zero with a minus sign ("-0", "-0.0", "-0.0000", not "-0.03" or
 * "-0.0e+00" in scientific notation, which has its own check) */
static int has_minus_zero(const char *text) {
    for (const char *p = strstr(text, "-0"); p; p = strstr(p + 1, "-0")) {
        const char *e = p + 2;
        if (*e == '.') { e++; while (*e == '0') e++; }
        if (!((*e >= '0' && *e <= '9') || *e == 'e' || *e == '.')) return 1;
    }
    return 0;
}

/* --precision 0 (a learner's pass): `-d 8 -H 2 --precision 0 --explain 1,0 "a b c"` printed k_0 = [ 3 -0 -0  0],
 * terms "(1)(-0)" and "A·v_0 = 0.073240 × [-0 -2 -0 -1]\n = [-2e-02 -1e-01 -2e-02 -5e-02]", a scientific line
 * under a fixed-point one where numpy's suppress=True keeps fixed point. The expected lines are the default
 * precision's k_0 = [2.6855 -0.0378 -0.2759 0.4675], v_0 = [-0.3371 -1.9128 -0.2959 -0.6406] and A·v_0 =
 * [-0.0247 -0.1401 -0.0217 -0.0469] rounded by hand: to 0 digits, and the weight 0.073240 to its 2 significant
 * digits, 0.073, and v_0 and A·v_0 to the weight's 3 digits (test_explain_weight_is_never_a_whole_number); a
 * zero takes no minus sign; the terms of q·k to 1 digit, so that they add up to "d<1: 1"
 * (test_explain_terms_add_up_to_the_partial_sums: q_1 = [0.3538 0.9917 1.3969 …] and k_0 to 1 digit). Then no --explain
 * or -v line at precisions 0..2 prints a minus zero or turns to scientific notation. */
static void test_explain_precision_0_keeps_fixed_point(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "-d", "8", "-H", "2", "--precision", "0",
                "--explain", "1,0", "a b c", NULL);
    assert_int_equal(r.code, 0);
    static const char *const want[] = {
        "  k_0 = K[0, 0, :] = [ 3  0  0  0]\n",
        "  q·k = Σ_d q[d]·k[d] = (0.4)(2.7) + (1.0)(0.0) + (1.4)(-0.3) + …\n",
        "A·v_0 = 0.073 × [-0.337 -1.913 -0.296 -0.641]\n",
        "= [-0.025 -0.140 -0.022 -0.047]\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(r.out, want[i])) fail_msg("--precision 0 should print\n%s\nin:\n%s", want[i], r.out);
    tu_free(&r);
    static const char *const runs[][3] = {{"1,0", "a b c", "8"}, {"2,1", "I love deep learning", "16"},
                                          {"0,3", "the cat sat on the mat", "32"}, {"1,1", "我爱深度学习", "8"}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        for (int p = 0; p <= 2; p++) {
            char prec[16];
            snprintf(prec, sizeof prec, "%d", p);
            run_attnviz(&r, NULL, "--no-plot", "-v", "--color", "never", "-d", runs[i][2], "-H", "2", "--precision",
                        prec, "--explain", runs[i][0], runs[i][1], NULL);
            assert_int_equal(r.code, 0);
            if (has_minus_zero(r.out)) fail_msg("--precision %d %s: a minus zero in:\n%s", p, runs[i][1], r.out);
            for (const char *line = r.out; *line;) { /* the softmax check's "worst … = 2.98e-08" is no vector */
                const char *end = strchr(line, '\n');
                size_t len = end ? (size_t)(end - line) : strlen(line);
                char text[4096];
                snprintf(text, sizeof text, "%.*s", (int)(len < sizeof text ? len : sizeof text - 1), line);
                if (!strstr(text, "worst |") && (strstr(text, "e-0") || strstr(text, "e+0")))
                    fail_msg("--precision %d %s: scientific notation for ordinary numbers:\n%s", p, runs[i][1], text);
                line += len + (end != NULL);
            }
            tu_free(&r);
        }
}

/* Half a unit in the last place of the number printed at s (fixed point): 0.5 for "3", 0.005 for "-1.73". */
static double half_ulp(const char *s) {
    const char *dot = strchr(s, '.');
    size_t d = 0;
    if (dot) d = strspn(dot + 1, "0123456789");
    return 0.5 * pow(10.0, -(double)d);
}

/* The contribution line "A·v_j = w × [v…] \n … = [p…]" from end (just past w) multiplies what it shows: each p is
 * w × v within the roundings of the three printed numbers (worked from the printed text, not attnviz's values). */
static void check_products_shown(const char *w_at, const char *end, int p, const char *text, const char *out) {
    double w = strtod(w_at, NULL), uw = half_ulp(w_at);
    const char *v = strstr(end, "× [");
    const char *pr = v ? strstr(v, "\n") : NULL;
    pr = pr ? strstr(pr, "= [") : NULL;
    if (!v || !pr) fail_msg("--precision %d %s: no v_j and product lines:\n%s", p, text, out);
    v += strlen("× ["), pr += strlen("= [");
    for (int k = 0; k < 5; k++) {
        char *ve, *pe;
        v += strspn(v, " …"), pr += strspn(pr, " …"); /* the spaces and the bytes of "…" */
        if (*v == ']' || *pr == ']') break;
        double vv = strtod(v, &ve), pp = strtod(pr, &pe);
        if (ve == v || pe == pr) fail_msg("--precision %d %s: unreadable numbers at %.20s / %.20s", p, text, v, pr);
        double bound = fabs(vv) * uw + w * half_ulp(v) + uw * half_ulp(v) + half_ulp(pr) + 1e-12;
        if (fabs(w * vv - pp) > bound)
            fail_msg("--precision %d %s: %g × %.*s is not %.*s (|difference| %g > %g):\n%s", p, text, w,
                     (int)(ve - v), v, (int)(pe - pr), pr, fabs(w * vv - pp), bound, out);
        v = ve, pr = pe;
    }
}

/* A weight between 0 and 1 never prints as a whole number (a known fault): `-q -d 8 --precision 0 --explain love,you
 * "I love you"` printed "A·v_2 = 1 × [ 1 -2  1  1 …  1]" and "= [ 1 -1  0  1 …  0]" for the weight 0.5615, so that
 * 1 × v was not the result, and `--no-scale -d 64 --precision 0 --explain 2,0 "I love deep learning"` printed its
 * 0.9975 as "1". A weight now takes 2 significant digits at least, and more while it would read 1; the products
 * take its digits, and so does v_j beside them: "0.56 × [ 1 -2  1  1 …  1] = [ 0.58 -0.97 …]" multiplied numbers
 * the line did not show (0.56 × -2 is not -0.97). Expected, by hand: the A lines' 0.561508119 is 0.56, times the
 * default precision's v_2 = [1.0246 -1.7281 0.8317 1.4226 … 0.7563] (1.02 -1.73 0.83 1.42 0.76 to 2 digits) is
 * [0.5753 -0.9703 0.4670 0.7988 … 0.4247], so 0.58 -0.97 0.47 0.80 0.42; 0.997496486 is 1.00 to 2 digits, 0.997
 * to 3. Then on other cells at --precision 0..2 every weight reads strictly between 0 and 1 with at least 2
 * significant digits, and each product printed is the printed weight times the printed v_j entry within the
 * three roundings: |w·v − p| <= |v|·ulp_w/2 + |w|·ulp_v/2 + ulp_p/2 (+ the rounding of the ulps' own products). */
static void test_explain_weight_is_never_a_whole_number(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "-d", "8", "--precision", "4", "--explain", "love,you",
                "I love you", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "A·v_2 = 0.5615 × [ 1.0246 -1.7281  0.8317  1.4226 …  0.7563]\n"))
        fail_msg("v_2 is not the one the products were worked from:\n%s", r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "-d", "8", "--precision", "0", "--explain", "love,you",
                "I love you", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "A[0, 1, 2] = exp(0) / 1.7809181 = 0.561508134, which float32 stores as 0.561508119\n"))
        fail_msg("the cell's weight is not the one worked by hand:\n%s", r.out);
    if (!strstr(r.out, "A·v_2 = 0.56 × [ 1.02 -1.73  0.83  1.42 …  0.76]\n"
                       "                                        = [ 0.58 -0.97  0.47  0.80 …  0.42]\n"))
        fail_msg("--precision 0 should print the weight 0.56 and its products:\n%s", r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "--no-scale", "-d", "64", "--precision", "0",
                "--explain", "2,0", "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "= 0.997496503, which float32 stores as 0.997496486\n") || !strstr(r.out, "A·v_0 = 0.997 × ["))
        fail_msg("--precision 0 should print the weight 0.997496486 as 0.997:\n%s", r.out);
    tu_free(&r);
    static const char *const runs[][3] = {{"1,0", "a b c", "8"}, {"2,1", "I love deep learning", "16"},
                                          {"0,3", "the cat sat on the mat", "32"}, {"1,1", "我爱深度学习", "8"}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        for (int p = 0; p <= 2; p++) {
            char prec[16];
            snprintf(prec, sizeof prec, "%d", p);
            for (int ns = 0; ns < 2; ns++) {
                run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "-d", runs[i][2], "--precision", prec,
                            "--explain", runs[i][0], ns ? "--no-scale" : "-q", runs[i][1], NULL);
                assert_int_equal(r.code, 0);
                const char *at = strstr(r.out, "A·v_");
                if (!at) fail_msg("no A·v line:\n%s", r.out);
                at = strstr(at, " = ") + 3;
                char *end;
                double w = strtod(at, &end);
                size_t sig = strspn(at + strspn(at, "0."), "0123456789");
                int sci = memchr(at, 'e', (size_t)(end - at)) != NULL; /* 2.4e-13: its digits are --precision's */
                if (!(w > 0 && w < 1) || (!sci && sig < 2))
                    fail_msg("--precision %d %s %s: the weight reads %.*s", p, runs[i][0], runs[i][1],
                             (int)(end - at), at);
                if (!sci) check_products_shown(at, end, p, runs[i][1], r.out);
                tu_free(&r);
            }
        }
}

/* A partial sum that is not 0 printed as 0 (a known fault): `-d 8 -H 2 --precision 0 --explain 1,0 "a b c"` printed
 * "partial sums:  d<1: 1  d<2: 1  d<4: 0" and then "= 0.000488368465", the sums taking the digits of their largest,
 * and a loaded X whose two rows cancel to 2^-17 printed "d<2: 0.0000  d<4: 0.0000" over "= 7.62939453e-06". Such a
 * sum now takes the digits that show its first significant digit, or scientific notation below 1e-4, as the
 * weight's line does. Expected, by hand: the default precision's sums 0.9501, 0.9126 and the "=" line's
 * 0.000488368465 rounded to 0 digits, and to 4 (0.0005); for X = [[1, 1, 0, 0], [1, -(1 - 2^-17), 0, 0]] with
 * W_Q = W_K = I and no positions, q_1·k_0 = 1 - (1 - 2^-17) = 2^-17 = 7.62939453125e-06 after d = 1 and
 * after d = 3, printed to 4 digits (7.6294e-06) and to 0 (8e-06); d<1 is 1·1 = 1. */
static void test_explain_partial_sums_that_are_not_0_do_not_print_0(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "-d", "8", "-H", "2", "--precision", "0",
                "--explain", "1,0", "a b c", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "        partial sums:  d<1: 1  d<2: 1  d<4: 0.0005\n        = 0.000488368465\n"))
        fail_msg("the last partial sum should print as 0.0005:\n%s", r.out);
    tu_free(&r);
    char *dir = make_tmpdir();
    char path[4400];
    av_err err;
    float x[2 * 4] = {1, 1, 0, 0, 1, -(1.0f - 0x1p-17f), 0, 0};
    float eye[4 * 4] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    snprintf(path, sizeof path, "%s/X.npy", dir);
    assert_int_equal(av_npy_write(path, x, 2, (size_t[]){2, 4}, &err), AV_OK);
    snprintf(path, sizeof path, "%s/W_Q.npy", dir);
    assert_int_equal(av_npy_write(path, eye, 2, (size_t[]){4, 4}, &err), AV_OK);
    snprintf(path, sizeof path, "%s/W_K.npy", dir);
    assert_int_equal(av_npy_write(path, eye, 2, (size_t[]){4, 4}, &err), AV_OK);
    static const struct { const char *precision, *sums; } runs[] = {
        {"4", "        partial sums:  d<1: 1.0000  d<2: 7.6294e-06  d<4: 7.6294e-06\n        = 7.62939453e-06\n"},
        {"0", "        partial sums:  d<1: 1  d<2: 8e-06  d<4: 8e-06\n        = 7.62939453e-06\n"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "-d", "4", "-H", "1", "-w", dir, "-p", "none",
                    "--precision", runs[i].precision, "--explain", "1,0", "a b", NULL);
        assert_int_equal(r.code, 0);
        if (!strstr(r.out, runs[i].sums))
            fail_msg("--precision %s should print\n%s\nin:\n%s", runs[i].precision, runs[i].sums, r.out);
        tu_free(&r);
    }
    rm_rf(dir);
}

/* The terms of q·k add up to the partial sums printed under them (a known fault): `--no-plot -q -d 4 --precision 0
 * --explain 0,1 "I love deep"` printed "(0)(1) + (0)(0) + (-1)(-1) + …" above "d<1: -0.4  d<2: -0.5", the terms
 * with q's and k's 0 digits, the sums with 1 (q_0[0] = -0.47), and `-d 8 -H 2 --precision 0 --explain 1,0 "a b c"`
 * "(0)(3) + (1)(0) …" above "d<1: 1" (0.354 × 2.686 = 0.95). Expected, by hand, from the --precision 6 run's
 * q_0 = [-0.472960 0.186630 -0.826795 …] and k_1 = [0.839083 -0.449558 -0.761301 …]: to 1 digit -0.5 × 0.8 =
 * -0.40 (d<1: -0.397 prints -0.4) and + 0.2 × -0.4 = -0.48 (d<2: -0.481 prints -0.5); so the first term reads
 * "(-0.5)(0.8)". Then on other runs at --precision 0 and 1: the running total of the products of the printed
 * factors is each printed sum d<1, d<2 (and d<3's absent, d<D for D <= 3) within one unit of its last digit, half a
 * unit for a whole number, worked from the printed text alone. */
static void check_terms_add_up(const char *out, const char *what) {
    const char *t = strstr(out, "q·k = Σ_d q[d]·k[d] = "), *ps = strstr(out, "partial sums:");
    if (!t || !ps) fail_msg("%s: no q·k line:\n%s", what, out);
    t += strlen("q·k = Σ_d q[d]·k[d] = ");
    double acc = 0.0;
    for (int d = 1; d <= 3; d++) {
        char *e;
        if (*t != '(') break;
        double q = strtod(t + 1, &e);
        if (strncmp(e, ")(", 2)) fail_msg("%s: unreadable term at %.20s", what, t);
        double k = strtod(e + 2, &e);
        if (*e != ')') fail_msg("%s: unreadable term at %.20s", what, t);
        acc += q * k;
        t = e + 1 + strspn(e + 1, " +");
        char tag[16];
        snprintf(tag, sizeof tag, "d<%d: ", d);
        const char *at = strstr(ps, tag), *nl = strchr(ps, '\n');
        if (!at || (nl && at > nl)) continue; /* no sum after d terms */
        at += strlen(tag);
        char num[32];
        snprintf(num, sizeof num, "%.*s", (int)strcspn(at, " \n"), at);
        if (strpbrk(num, "eE")) continue; /* scientific: test_explain_partial_sums_that_are_not_0_do_not_print_0 */
        double sum = strtod(num, NULL), unit = 2.0 * half_ulp(num), tol = unit >= 1.0 ? 0.5 : unit;
        if (fabs(acc - sum) > tol + 1e-12)
            fail_msg("%s: the first %d terms add up to %g, the line says d<%d: %.10s (off by more than %g):\n%s", what,
                     d, acc, d, at, tol, out);
    }
}

static void test_explain_terms_add_up_to_the_partial_sums(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "-d", "4", "--precision", "0", "--explain", "0,1",
                "I love deep", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "q·k = Σ_d q[d]·k[d] = (-0.5)(0.8) + (0.2)(-0.4) + ")
        || !strstr(r.out, "partial sums:  d<1: -0.4  d<2: -0.5"))
        fail_msg("the terms should read (-0.5)(0.8) + (0.2)(-0.4) over d<1: -0.4  d<2: -0.5:\n%s", r.out);
    tu_free(&r);
    static const char *const runs[][4] = {
        {"4", "1", "0,1", "I love deep"}, {"8", "2", "1,0", "a b c"},   {"16", "1", "1,2", "I love deep"},
        {"2", "1", "0,1", "I love deep"}, {"2", "1", "1,2", "I love deep"}, {"32", "1", "2,0", "I love deep"},
        {"64", "1", "2,1", "I love deep learning"}, {"3", "1", "1,1", "a b c"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        for (int p = 0; p <= 1; p++) {
            char prec[16], what[160];
            snprintf(prec, sizeof prec, "%d", p);
            snprintf(what, sizeof what, "-d %s -H %s --precision %d --explain %s \"%s\"", runs[i][0], runs[i][1], p,
                     runs[i][2], runs[i][3]);
            run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "-d", runs[i][0], "-H", runs[i][1],
                        "--precision", prec, "--explain", runs[i][2], runs[i][3], NULL);
            assert_int_equal(r.code, 0);
            check_terms_add_up(r.out, what);
            tu_free(&r);
        }
}

/* Chinese input methods type the full-width comma '，' (U+FF0C): --explain
 * takes it as the separator, the same cell as with ','. In 我爱深度学习 the
 * tokens are 我 0, 爱 1, 深 2, 度 3, 学 4, 习 5. */
/* A span of many tokens: the hint's list of labels was cut by bytes, not by labels, with no ")" after it. Worked by
 * hand: 我爱学习 16 times is 64 tokens of one character, each " [X]" 6 bytes, so the list (384 bytes) and the words
 * around it do not fit the hint's 400 bytes; `--explain` of all 64 as text (or in traditional characters, 我愛學習)
 * said "... [学] [" and stopped, or cut 习 after its first byte (a %.190s). Now the list stops at a whole label,
 * then " …" and "; name one of them)", and the message is valid UTF-8. */
static void test_explain_long_span_hint_ends_whole(void **state) {
    (void)state;
    char text[256] = "", simp[256] = "", trad[256] = "", spec[300];
    for (int i = 0; i < 16; i++) strcat(text, "我爱学习"), strcat(trad, "我愛學習");
    snprintf(simp, sizeof simp, "%s", text);
    const char *keys[] = {simp, trad};
    for (int k = 0; k < 2; k++) {
        tu_result a;
        snprintf(spec, sizeof spec, "爱,%s", keys[k]);
        run_attnviz(&a, NULL, "--no-plot", "-q", "--explain", spec, text, NULL);
        av_err err;
        size_t n = strlen(a.err);
        if (a.code != 2 || !strstr(a.err, " spans tokens 0..63: [我] [爱] [学] [习] [我]") ||
            n < 30 || strcmp(a.err + n - strlen(" \xE2\x80\xA6; name one of them)\n"), " \xE2\x80\xA6; name one of them)\n") ||
            av_utf8_check(a.err, n, &err) != AV_OK || strstr(a.err, "[\xE2\x80\xA6"))
            fail_msg("--explain %s: exit %d: %s", k ? "in traditional characters" : "as text", a.code, a.err);
        tu_free(&a);
    }
}

static void test_explain_takes_a_full_width_comma(void **state) {
    (void)state;
    tu_result a, b;
    run_attnviz(&a, NULL, "--no-plot", "-q", "--explain", "爱，习", "我爱深度学习", NULL);
    run_attnviz(&b, NULL, "--no-plot", "-q", "--explain", "1,5", "我爱深度学习", NULL);
    if (a.code != 0) fail_msg("--explain 爱，习: exit %d: %s", a.code, a.err);
    assert_int_equal(b.code, 0);
    assert_non_null(strstr(a.out, "query 1 \"爱\" → key 5 \"习\""));
    assert_string_equal(a.out, b.out);
    tu_free(&a);
    tu_free(&b);
    run_attnviz(&a, NULL, "--no-plot", "-q", "--explain", "1，", "我爱深度学习", NULL);
    assert_int_equal(a.code, 2);
    assert_non_null(strstr(a.err, "--explain '1，' must be QUERY,KEY"));
    tu_free(&a);
    /* a comma token is named by its text on either side: the pair splits at the first ',' or '，' after the
     * query. On 你好，世界 (你 0, 好 1, ， 2, 世 3, 界 4, by hand) "好,，" was the cell 1,2 while "，,好" was refused
     * with "must be QUERY,KEY ... a comma token is named by its index" (a Chinese-speaking learner's pass);
     * a spec that splits where no token is says how the comma is named */
    static const struct { const char *spec, *index; } named[] = {
        {"，,好", "2,1"}, {"，，好", "2,1"}, {"好,，", "1,2"}, {"好，，", "1,2"}, {"，,，", "2,2"}, {"，,1", "2,1"}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        run_attnviz(&a, NULL, "--no-plot", "-q", "--explain", named[i].spec, "你好，世界", NULL);
        run_attnviz(&b, NULL, "--no-plot", "-q", "--explain", named[i].index, "你好，世界", NULL);
        assert_int_equal(b.code, 0);
        if (a.code != 0 || strcmp(a.out, b.out) != 0)
            fail_msg("--explain '%s' should be --explain %s: exit %d: %s", named[i].spec, named[i].index, a.code,
                     a.err);
        tu_free(&a);
        tu_free(&b);
    }
    static const struct { const char *spec, *text, *says; } commas[] = {
        {"a,,b", "a , b", "--explain key ',b' is neither a token of the sentence nor an index 0..2; QUERY,KEY splits "
         "at the first ',' or '，' after QUERY, so a comma token is the whole of its part or its index: the "
         "sentence's , is token 1 (e.g. --explain ,,KEY or --explain 1,KEY)\n"},
        /* a half-width comma for the sentence's full-width one (你好，世界: ， is token 2): one sentence naming
         * it, not "letters" and then token 2 again in a second sentence */
        {",,好", "你好，世界", "--explain query ',' is neither a token of the sentence nor an index 0..4; full-width "
         "and half-width forms are different characters: '，' is token 2 (e.g. --explain ，,KEY or --explain "
         "2,KEY)\n"},
        {",,,", "你好，世界", "--explain query ',' is neither a token of the sentence nor an index 0..4; full-width "
         "and half-width forms are different characters: '，' is token 2 (e.g. --explain ，,KEY or --explain "
         "2,KEY)\n"},
        /* no comma token: an empty part, a comma too many (it said "key ',b' is neither a token", as if the pair
         * were a and ,b) */
        {"a,,b", "a b", "--explain 'a,,b' has an empty part (a comma too many?); it takes one pair QUERY,KEY (token "
         "indices or token text), e.g. 1,0 or b,a\n"},
        /* what a Chinese reader typed (a report): a word of two characters, each its own token (it said only
         * "is neither a token") */
        {"学习,深", "我爱深度学习", "--explain query '学习' is neither a token of the sentence nor an index 0..5 (the "
         "text spans tokens 4..5: [学] [习]; name one of them)\n"},
        {"deep learning,love", "I love deep learning", "--explain query 'deep learning' is neither a token of the "
         "sentence nor an index 0..3 (the text spans tokens 2..3: [deep] [learning]; name one of them)\n"},
        /* the enumeration comma: it said only "must be QUERY,KEY" */
        {"爱、习", "我爱深度学习", "--explain '爱、习' must be QUERY,KEY (token indices or token text), e.g. 1,3 or "
         "爱,度; the enumeration comma '、' does not separate them: type ',' or '，'\n"},
        /* an index in full-width digits: refused with the half-width form, as --heads ８ is (it was read as the
         * index), and past the end in either width; by hand: ６ tokens, ９ is 9 */
        {"１，５", "我爱深度学习", "--explain query '１' is neither a token of the sentence nor an index 0..5 (it is "
         "typed in full-width characters: type the half-width 1, 半角)\n"},
        {"1, ５", "我爱深度学习", "--explain key '５' is neither a token of the sentence nor an index 0..5 (it is "
         "typed in full-width characters: type the half-width 5, 半角)\n"},
        {"1，９", "我爱深度学习", "--explain key '９' is neither a token of the sentence nor an index 0..5 (it is "
         "typed in full-width characters, and as the half-width 9 it is outside 0..5 too: T = 6 tokens)\n"},
        /* a character's part label as a --model's figures write it, "爱(1/3)", on the built-in tokenizer, where 爱 is
         * token 1 whole (我爱深度学习: 我 爱 深 度 学 习): it said only "is neither a token" */
        {"爱(1/3),5", "我爱深度学习", "--explain query '爱(1/3)' is neither a token of the sentence nor an index 0..5 "
         "(the text '爱' is token 1, a whole token: name it without the '(1/3)')\n"},
        /* text of two whole tokens with a part label, as "学习" above is told (it said only "is neither a token"),
         * and a space before the bracket (我爱深度学习: 学 is token 4, 习 token 5; 爱 token 1) */
        {"学习(1/3),5", "我爱深度学习", "--explain query '学习(1/3)' is neither a token of the sentence nor an index "
         "0..5 (the text '学习' spans tokens 4..5: [学] [习]; name one of them)\n"},
        {"爱 (1/3),5", "我爱深度学习", "--explain query '爱 (1/3)' is neither a token of the sentence nor an index "
         "0..5 (the text '爱' is token 1, a whole token: name it without the '(1/3)')\n"},
    };
    for (size_t i = 0; i < sizeof commas / sizeof commas[0]; i++) {
        run_attnviz(&a, NULL, "--no-plot", "-q", "--explain", commas[i].spec, commas[i].text, NULL);
        const char *msg = strstr(a.err, "--explain ");
        if (a.code != 2 || !msg || strcmp(msg, commas[i].says) != 0)
            fail_msg("--explain %s on %s: exit %d: %s", commas[i].spec, commas[i].text, a.code, a.err);
        tu_free(&a);
    }
    /* what a Chinese reader typed (a report) that gives the cell of --explain 1,5 (爱 → 习) */
    static const char *const same[] = {"爱, 习", "爱 ， 习", "1，5", "1, 5"};
    run_attnviz(&b, NULL, "--no-plot", "-q", "--explain", "1,5", "我爱深度学习", NULL);
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        run_attnviz(&a, NULL, "--no-plot", "-q", "--explain", same[i], "我爱深度学习", NULL);
        if (a.code != 0 || strcmp(a.out, b.out) != 0) fail_msg("--explain '%s': exit %d: %s", same[i], a.code, a.err);
        tu_free(&a);
    }
    tu_free(&b);
    /* the ideographic space U+3000 (a Chinese input method types it after '，') and the no-break space U+00A0
     * around a part are left out as ' ' is (a tester's report: "爱，　习" said "key '　习' is neither a token");
     * in 我 爱 深 度 学 习 了, 爱 is token 1 and 习 token 5 */
    static const char *const blanks[] = {"爱，\u3000习", "\u3000爱\u3000,\u3000习\u3000", "爱,\u00A0习",
                                         "\u00A0爱 \u3000，\u00A0 习\u00A0", "1，\u30005", "\u30001，5\u00A0"};
    run_attnviz(&b, NULL, "--no-plot", "-q", "--explain", "1,5", "我 爱 深 度 学 习 了", NULL);
    assert_int_equal(b.code, 0);
    for (size_t i = 0; i < sizeof blanks / sizeof blanks[0]; i++) {
        run_attnviz(&a, NULL, "--no-plot", "-q", "--explain", blanks[i], "我 爱 深 度 学 习 了", NULL);
        if (a.code != 0 || strcmp(a.out, b.out) != 0) fail_msg("--explain '%s': exit %d: %s", blanks[i], a.code, a.err);
        tu_free(&a);
    }
    tu_free(&b);
    /* a part of blanks only is still named as typed */
    run_attnviz(&a, NULL, "--no-plot", "-q", "--explain", "1,\u3000", "我 爱 深 度 学 习 了", NULL);
    if (a.code != 2 || !strstr(a.err, "attnviz: error: --explain key '\u3000' is neither a token of the sentence nor "
                                      "an index 0..6\n"))
        fail_msg("1,U+3000: exit %d: %s", a.code, a.err);
    tu_free(&a);
    /* a token that is a double quote is shown in single quotes, as Python's repr does: key """ read as an
     * empty string and a quote (a tester's report); 'He said "hi"' is He 0, said 1, " 2, hi 3, " 4 */
    run_attnviz(&a, NULL, "--no-plot", "-q", "--explain", "0,2", "He said \"hi\"", NULL);
    if (a.code != 0 || !strstr(a.out, "query 0 \"He\" → key 2 '\"'") || !strstr(a.out, "so key '\"' has weight "))
        fail_msg("a quote token: exit %d: %s%s", a.code, a.out, a.err);
    tu_free(&a);
    run_attnviz(&a, NULL, "--no-plot", "-q", "--compare", "order", "\" hi \"", NULL);
    if (a.code != 0 || !strstr(a.out, "swap token 0 '\"' and token 2 '\"'") || !strstr(a.out, "(both are '\"', so"))
        fail_msg("order of quotes: exit %d: %s%s", a.code, a.out, a.err);
    tu_free(&a);
    run_attnviz(&a, NULL, "--no-plot", "-q", "--explain", "2,好", "你好，世界", NULL);
    if (a.code != 0 || !strstr(a.out, "query 2 \"，\" → key 1 \"好\"")) fail_msg("2,好: exit %d: %s%s", a.code, a.out, a.err);
    tu_free(&a);
}

/* ---------------------------------------------------------------------------- */

/* The line "A[h, i, j] = exp(x) / sum = value" must be a true equation. The blas and flash kernels and
 * --model's forward take exp in float32 (fastexp.h), which stops at exp(−87.34) ≈ 1.18e-38, so a weight
 * far below that was printed as "exp(-100.209705) / 1.000000 = 1.17549968e-38" when exp(-100.21) is
 * 3.1e-44 (a learner's report, on a --no-scale run whose saturated rows are the point of the lesson).
 * The reference kernel's expf goes on into the subnormals, which keep a few bits: 3.08e-44 for 3.02e-44.
 * Each kernel's line must hold, with what the file holds said beside it. */
static void test_explain_weight_line_is_a_true_equation(void **state) {
    (void)state;
    const char *kernels[] = {"reference", "blas"};
    /* with -d 512 and no scale, row 9's score for key 6 is 100.2 below the row's largest */
    for (int k = 0; k < 2; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "-q", "--no-plot", "--color", "never", "--no-scale", "-d", "512", "--kernel", kernels[k],
                    "--explain", "9,6", "the cat sat on the mat and the dog ate my homework", NULL);
        if (r.code != 0) fail_msg("--kernel %s: exit %d: %s", kernels[k], r.code, r.err);
        const char *line = strstr(r.out, "  A[0, 9, 6] = exp(");
        if (!line) fail_msg("--kernel %s: no A line:\n%s", kernels[k], r.out);
        double x = 0, sum = 0, value = 0;
        if (sscanf(line, "  A[0, 9, 6] = exp(%lf) / %lf = %lf", &x, &sum, &value) != 3)
            fail_msg("--kernel %s: cannot read %.120s", kernels[k], line);
        if (!(x < -88.0)) fail_msg("--kernel %s: the cell is not past float32 exp's floor (exp(%g))", kernels[k], x);
        double want = exp(x) / sum; /* x and sum are printed to 6 decimals: 1e-6 relative on exp(x) */
        if (!(fabs(value - want) <= 1e-5 * want))
            fail_msg("--kernel %s: printed exp(%.6f) / %.6f = %.9g, but that is %.9g", kernels[k], x, sum, value, want);
        if (!strstr(line, "(the stored weight holds ")) /* no --dump: weights.npy was never written */
            fail_msg("--kernel %s: no word on the stored weight:\n%s", kernels[k], line);
        tu_free(&r);
    }
}

/* The weight's line holds to the digits it prints, as the ÷√d_k line does: the tutorial's cell printed
 * "A[0, 1, 3] = exp(0.000000) / 1.607459 = 0.622099698", the row sum cut to the table's 6 decimals and the
 * weight float32's, though 1 / 1.607459 is 0.622099848 and the row sum line above it says 1.60745939 (a
 * learner's pass with a calculator). Now exp(S − max) / row sum, both to 9 digits, is the value printed, and
 * float32's stored weight follows where its 9 digits differ. */
static void test_explain_a_line_holds_to_its_digits(void **state) {
    (void)state;
    const char *runs[][6] = {{"--heads", "8", "--explain", "love,learning", "I love deep learning", NULL},
                             {"-H", "2", "-d", "16", "--explain", "1,0"}};
    for (size_t k = 0; k < 2; k++) {
        tu_result r;
        const char **a = runs[k];
        if (k == 0) run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", a[0], a[1], a[2], a[3], a[4], NULL);
        else run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", a[0], a[1], a[2], a[3], a[4], a[5],
                         "a b c", NULL);
        if (r.code != 0) fail_msg("run %zu: exit %d: %s", k, r.code, r.err);
        const char *sum_line = strstr(r.out, "row sum Σ_j exp(S − max) = ");
        const char *line = strstr(r.out, "\n  A[");
        if (!sum_line || !line) fail_msg("run %zu: no row sum or A line:\n%s", k, r.out);
        line++;
        double x = 0, sum = 0, value = 0, row_sum = strtod(sum_line + strlen("row sum Σ_j exp(S − max) = "), NULL);
        const char *e = strstr(line, " = exp(");
        if (!e || sscanf(e, " = exp(%lf) / %lf = %lf", &x, &sum, &value) != 3) fail_msg("run %zu: %.160s", k, line);
        if (sum != row_sum) fail_msg("run %zu: the A line divides by %.9g, the row sum line says %.9g", k, sum, row_sum);
        if (!(fabs(value - exp(x) / sum) <= 4e-9 * fabs(value)))
            fail_msg("run %zu: exp(%.9g) / %.9g is %.9g: %.160s", k, x, sum, exp(x) / sum, line);
        const char *stored = strstr(line, "which float32 stores as "), *eol = strchr(line, '\n');
        if (stored && stored < eol) {
            double kept = strtod(stored + strlen("which float32 stores as "), NULL);
            if (!(fabs(kept - value) <= 1e-6 * fabs(value)) || kept == value)
                fail_msg("run %zu: float32's weight %.9g for %.9g: %.160s", k, kept, value, line);
        }
        tu_free(&r);
    }
}

/* A score below float32's range: with an X.npy of 1e-25 values, q·k = 4e-50 and --explain printed
 * "÷√d_k: 4e-50 / √4 = 4e-50 / 2 = 0", an equation that does not hold (a teacher's pass), because the stored
 * score rounded to 0 in float32. The line gives the quotient, and then what float32 stores. */
static void test_explain_scale_line_holds_below_float32(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    char path[4400];
    av_err err;
    float x[2 * 4] = {1e-25f, 1e-25f, 1e-25f, 1e-25f, 1e-25f, 1e-25f, 1e-25f, 1e-25f};
    float eye[4 * 4] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    snprintf(path, sizeof path, "%s/X.npy", dir);
    assert_int_equal(av_npy_write(path, x, 2, (size_t[]){2, 4}, &err), AV_OK);
    const char *names[] = {"W_Q", "W_K"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s.npy", dir, names[i]);
        assert_int_equal(av_npy_write(path, eye, 2, (size_t[]){4, 4}, &err), AV_OK);
    }
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "-d", "4", "-H", "1", "-w", dir, "-p", "none",
                "--explain", "0,1", "a b", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    const char *line = strstr(r.out, "  ÷√d_k: ");
    if (!line) fail_msg("no ÷√d_k line:\n%s", r.out);
    double dot = 0, dot2 = 0, root = 0, value = 0;
    if (sscanf(line, "  ÷√d_k: %lf / √4 = %lf / %lf = %lf", &dot, &dot2, &root, &value) != 4)
        fail_msg("cannot read %.160s", line);
    if (!(dot > 3.9e-50 && dot < 4.1e-50)) fail_msg("q·k printed as %g, not 4e-50", dot);
    if (!(fabs(value - dot / root) <= 1e-6 * dot / root)) fail_msg("the line does not hold: %.200s", line);
    if (!strstr(line, "which float32 stores as 0")) fail_msg("no word on the stored score: %.200s", line);
    tu_free(&r);
    rm_rf(dir);
}

/* The ÷√d_k line must hold to the digits it prints. The tutorial's cell printed "-6.66172941 / √64 =
 * -6.66172941 / 8 = -0.832716167" (a calculator says -0.832716176: that was float32's score) and d_k 8
 * "1.35565685 / 2.82843 = 0.479297072" (√8 to 6 digits, the quotient to 9); -d 1 gave "x / 1 = y" with y ≠ x
 * (a learner's pass). The quotient is now the division of what is printed, and what float32 keeps follows. */
static void test_explain_scale_line_holds_to_its_digits(void **state) {
    (void)state;
    const char *runs[][8] = {{"--heads", "8", "--explain", "love,learning", "I love deep learning", NULL},
                             {"-H", "2", "-d", "16", "--explain", "0,1", "a b c", NULL},
                             {"-d", "1", "--explain", "0,1", "a b c", NULL}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        tu_result r;
        const char **a = runs[k];
        run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL);
        if (r.code != 0) fail_msg("run %zu: exit %d: %s", k, r.code, r.err);
        const char *line = strstr(r.out, "  ÷√d_k: ");
        if (!line) fail_msg("run %zu: no ÷√d_k line:\n%s", k, r.out);
        double dot = 0, dot2 = 0, root = 0, value = 0, kept = 0;
        int D = 0;
        if (sscanf(line, "  ÷√d_k: %lf / √%d = %lf / %lf = %lf", &dot, &D, &dot2, &root, &value) != 5)
            fail_msg("run %zu: cannot read %.160s", k, line);
        if (!(fabs(root - sqrt((double)D)) <= 5e-9 * root)) fail_msg("run %zu: √%d printed as %.9g", k, D, root);
        /* 9 significant digits each: the quotient of the printed numbers, to a few units of the 9th digit */
        if (!(fabs(value - dot / root) <= 4e-9 * fabs(value)))
            fail_msg("run %zu: the line does not hold (%.9g / %.9g is %.9g): %.160s", k, dot, root, dot / root, line);
        const char *stored = strstr(line, "which float32 stores as ");
        const char *eol = strchr(line, '\n');
        if (stored && stored < eol) { /* what the row below uses: float32's score, within its rounding */
            if (sscanf(stored, "which float32 stores as %lf", &kept) != 1) fail_msg("run %zu: %.160s", k, line);
            if (!(fabs(kept - value) <= 2e-7 * fabs(value)) || kept == value)
                fail_msg("run %zu: float32's score %.9g for %.9g: %.160s", k, kept, value, line);
        }
        tu_free(&r);
    }
}

/* "which float32 stores as X" must be float32's rounding of the number before it (to one unit in its last
 * place). The blas kernel sums q·k in float32 (sgemm), so at d_model 512 the ÷√d_k line read "-1.41944476,
 * which float32 stores as -1.41944432", four units of float32's last place away (a numbers pass): such a
 * stored number is now said to be the kernel's float32 arithmetic. Four seeds, as any one cell's sgemm sum
 * may happen to round as the double one does. */
static void test_explain_stored_number_is_float32_rounding(void **state) {
    (void)state;
    const char *seeds[] = {"1", "2", "3", "6"};
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "-d", "512", "-s", seeds[k], "--kernel", "blas",
                    "--explain", "3,1", "a b c d e", NULL);
        if (r.code != 0) fail_msg("seed %s: exit %d: %s", seeds[k], r.code, r.err);
        const char *lines[2] = {strstr(r.out, "  ÷√d_k: "), strstr(r.out, "\n  A[")};
        for (int i = 0; i < 2; i++) {
            const char *line = lines[i], *eq = line ? strstr(line, i ? ") / " : " / √") : NULL, *eol;
            double value = 0, kept = 0;
            if (!eq || !(eq = strstr(eq + 4, " = ")) || (i == 0 && !(eq = strstr(eq + 3, " = "))) ||
                sscanf(eq, " = %lf", &value) != 1)
                fail_msg("seed %s: no %s line:\n%s", seeds[k], i ? "A" : "÷√d_k", r.out);
            eol = strchr(line + 1, '\n');
            const char *stored = strstr(line, "which float32 stores as ");
            if (!stored || stored > eol) continue;
            if (sscanf(stored, "which float32 stores as %lf", &kept) != 1) fail_msg("seed %s: %.200s", seeds[k], line);
            float rounded = (float)value, s = (float)kept;
            if (s != rounded && s != nextafterf(rounded, INFINITY) && s != nextafterf(rounded, -INFINITY))
                fail_msg("seed %s: %.9g is no float32 rounding of %.9g: %.*s", seeds[k], kept, value,
                         (int)(eol - line), line);
        }
        tu_free(&r);
    }
}

/* A weight that rounds to 0 or 1 is not 0 % or 100 %: on the tutorial's --no-scale run (section 2, saturated
 * rows), `--explain 0,1` printed "A[0, 0, 1] = ... = 2.41601986e-13", then "A·v_1 = 0.000000 × [...]" and
 * "has weight 0.0%", and head 1's `--explain 3,0` (0.999998808) "has weight 100.0%" (a learner's pass). */
static void test_explain_tiny_weight_is_not_zero(void **state) {
    (void)state;
    const char *cells[][3] = {{"0", "0,1", "A[0, 0, 1] = exp("}, {"1", "3,0", "A[1, 3, 0] = exp("}};
    for (int k = 0; k < 2; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "--no-plot", "-q", "--color", "never", "--heads", "2", "--no-scale", "--head",
                    cells[k][0], "--explain", cells[k][1], "I love deep learning", NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        const char *a = strstr(r.out, cells[k][2]), *eq = a ? strstr(a, ") / ") : NULL;
        double w = 0, shown = 0;
        if (!eq || !(eq = strstr(eq, " = ")) || sscanf(eq, " = %lf", &w) != 1) fail_msg("no A line:\n%s", r.out);
        if (k == 0 ? !(w > 0 && w < 1e-9) : !(w > 0.99999 && w < 1)) fail_msg("weight %.9g is not the case", w);
        const char *c = strstr(r.out, "  A·v_");
        if (!c || !(c = strstr(c, " = ")) || sscanf(c, " = %lf ×", &shown) != 1) fail_msg("no A·v line:\n%s", r.out);
        if (!(fabs(shown - w) <= 1e-5 * w)) fail_msg("A·v line gives the weight %.9g as %.9g", w, shown);
        const char *line = strstr(r.out, "\" has weight ");
        if (!line) fail_msg("no sentence:\n%s", r.out);
        check_weight_percent(line + strlen("\" has weight "), w);
        tu_free(&r);
    }
}

/* --explain names the files the score and the weight are kept in only when --dump wrote them:
 * `attnviz --heads 4 --explain 1,2 --no-plot "I love deep learning"` printed "(= scores.npy[0, 1, 2])" and
 * "(= weights.npy[0, 1, 2])" for files that were never written (a teacher's pass); with --dump it still
 * names them, and the tiny-weight line names weights.npy then. */
static void test_explain_names_files_only_when_dumped(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--heads", "4", "--explain", "1,2", "--no-plot", "--color", "never", "I love deep learning",
                NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "  A[0, 1, 2] = exp("));
    if (strstr(r.out, ".npy")) fail_msg("a file named without --dump:\n%s", r.out);
    tu_free(&r);
    char *dir = make_tmpdir();
    run_attnviz(&r, NULL, "--heads", "4", "--explain", "1,2", "--no-plot", "--color", "never", "--dump", dir,
                "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "   (= scores.npy[0, 1, 2])\n"));
    assert_non_null(strstr(r.out, "   (= weights.npy[0, 1, 2])\n"));
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--color", "never", "--no-scale", "-d", "512", "--dump", dir, "--explain",
                "9,6", "the cat sat on the mat and the dog ate my homework", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "(weights.npy[0, 9, 6] holds "));
    tu_free(&r);
    rm_rf(dir);
}

/* "I love you" vs "you love I" with positions off: the swapped run's weights are
 * the original's with rows and columns permuted, bit for bit, in every head. */
static void test_order_blindness_is_an_exact_permutation(void **state) {
    (void)state;
    const char *pos[] = {"none", "sinusoidal"};
    for (int p = 0; p < 2; p++) {
        char *d1 = make_tmpdir(), *d2 = make_tmpdir();
        tu_result r;
        run_attnviz(&r, NULL, "--no-plot", "-q", "--heads", "8", "--positions", pos[p], "--dump", d1, "I love you", NULL);
        assert_int_equal(r.code, 0);
        tu_free(&r);
        run_attnviz(&r, NULL, "--no-plot", "-q", "--heads", "8", "--positions", pos[p], "--dump", d2, "you love I", NULL);
        assert_int_equal(r.code, 0);
        tu_free(&r);
        av_npy a = load(d1, "weights.npy"), b = load(d2, "weights.npy");
        const int perm[3] = {2, 1, 0}, T = 3;
        double worst = 0;
        for (int h = 0; h < 8; h++)
            for (int i = 0; i < T; i++)
                for (int j = 0; j < T; j++) {
                    double d = fabs((double)b.data[(h * T + perm[i]) * T + perm[j]] - a.data[(h * T + i) * T + j]);
                    if (d > worst) worst = d;
                }
        print_message("positions %s: max |A'[π(i),π(j)] - A[i,j]| = %g\n", pos[p], worst);
        if (p == 0) assert_true(worst == 0.0); /* exact */
        else assert_true(worst > 1e-3);        /* positions break the symmetry */
        av_npy_free(&a);
        av_npy_free(&b);
        rm_rf(d1);
        rm_rf(d2);
    }
    /* the command that shows it */
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "--compare", "order", "I love you", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "positions none        max difference = 0 "));
    assert_non_null(strstr(r.out, "exactly a permutation"));
    assert_non_null(strstr(r.out, "order matters"));
    assert_null(strstr(r.out, "the same sentence"));
    tu_free(&r);
    /* "the cat the": the swap gives the same sentence, and "order matters" with nothing said read as if the
     * swapped sentence were another (a teacher's report); a note says what the check then compares */
    run_attnviz(&r, NULL, "--no-plot", "-q", "--compare", "order", "the cat the", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "  (both are \"the\", so the swapped sentence is the same sentence: the check "
                                  "compares the weights of one copy of the word with the other's, which differ only "
                                  "by position)\n"));
    tu_free(&r);
}

/* Past 64 tokens --kernel auto runs blas, whose float32 sums change with the row order: the swapped run with
 * positions none differed by 7e-8 and the table said "order matters: positions make the weights depend on
 * where a word is" (a tester's report). A difference within the kernels' agreement (1e-5) with blas is a
 * permutation up to rounding, and a line says why; --kernel reference stays exactly 0. */
static void test_order_blindness_past_64_tokens(void **state) {
    (void)state;
    char words[70 * 4 + 1] = "";
    for (int i = 0; i < 70; i++) snprintf(words + strlen(words), sizeof words - strlen(words), "%sw%d", i ? " " : "", i);
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-q", "-H", "2", "--compare", "order", words, NULL);
    assert_int_equal(r.code, 0);
    const char *none = strstr(r.out, "  positions none ");
    assert_non_null(none);
    const char *eol = strchr(none, '\n');
    if (!strstr(none, "attention alone is blind to word order") || strstr(none, "attention alone is blind") > eol)
        fail_msg("positions none past 64 tokens:\n%s", r.out);
    if (!strstr(r.out, "exactly a permutation") && !strstr(r.out, "(the blas kernel's sums run in another order"))
        fail_msg("no word on the rounding:\n%s", r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-q", "-H", "2", "--kernel", "reference", "--compare", "order", words, NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "positions none        max difference = 0 "));
    assert_null(strstr(r.out, "float32 rounding"));
    tu_free(&r);
}

/* --compare order's max difference keeps 3 significant digits with their trailing zeros: "the the" printed
 * "positions sinusoidal  max difference = 0.1", which reads as exact, for 0.10018566 (a learner's pass, numpy
 * on the two runs' weights); an exact permutation stays "0". */
static void test_compare_order_difference_keeps_its_digits(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-q", "--compare", "order", "the the", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "  positions sinusoidal  max difference = 0.100 "))
        fail_msg("no 'max difference = 0.100' for positions sinusoidal:\n%s", r.out);
    assert_non_null(strstr(r.out, "  positions none        max difference = 0          exactly a permutation"));
    tu_free(&r);
}

static void test_rope_shift_evidence(void **state) {
    (void)state;
    char sent[16][256];
    int n = load_sentences(sent, 16);
    const char *styles[] = {"interleaved", "half"};
    for (int s = 0; s < n; s++)
        for (int st = 0; st < 2; st++) {
            tu_result r;
            run_attnviz(&r, NULL, "--no-plot", "--color", "never", "--heads", "4", "--positions", "rope", "--rope-style",
                        styles[st], sent[s], NULL);
            assert_int_equal(r.code, 0);
            const char *p = strstr(r.out, "move by at most ");
            assert_non_null(p);
            double d_rope = strtod(p + strlen("move by at most "), NULL);
            const char *q = strstr(r.out, "but by up to ");
            assert_non_null(q);
            double d_sin = strtod(q + strlen("but by up to "), NULL);
            if (s == 0) print_message("%s (%s): RoPE %g, sinusoidal %g\n", sent[s], styles[st], d_rope, d_sin);
            assert_true(d_rope < 1e-4);
            /* a single token has one position: nothing to compare but itself */
            if (strchr(sent[s], ' ')) assert_true(d_sin > 1e-2);
            tu_free(&r);
        }
}

/* With --no-scale the trace's scores are raw Q·Kᵀ, so the RoPE evidence's
 * "the scores move by up to X with sinusoidal PE" must be X for raw scores.
 * Expected value by hand from the dump: X, W_Q, W_K, PE(pos) of Vaswani et al.
 * §3.5 at pos and pos + 100, max |ΔS| with S = (X+PE)·W_Q·((X+PE)·W_K)ᵀ per
 * head, in double. Before the fix the evidence was always ÷√d_k (√8 too small). */
static double sin_shift_worst(const av_npy *x, const av_npy *wq, const av_npy *wk, int H, int shift, int scale) {
    int T = (int)x->shape[0], C = (int)x->shape[1], D = C / H;
    double *q[2], *k[2];
    for (int s = 0; s < 2; s++) {
        q[s] = calloc((size_t)T * C, sizeof(double));
        k[s] = calloc((size_t)T * C, sizeof(double));
        for (int t = 0; t < T; t++) {
            double xin[4096];
            for (int c = 0; c < C; c++) {
                int i2 = c - c % 2; /* 2i */
                double ang = (t + s * shift) / pow(10000.0, (double)i2 / C);
                xin[c] = x->data[(size_t)t * C + c] + (c % 2 ? cos(ang) : sin(ang));
            }
            for (int o = 0; o < C; o++) {
                double aq = 0, ak = 0;
                for (int c = 0; c < C; c++) {
                    aq += xin[c] * wq->data[(size_t)c * C + o];
                    ak += xin[c] * wk->data[(size_t)c * C + o];
                }
                q[s][(size_t)t * C + o] = aq;
                k[s][(size_t)t * C + o] = ak;
            }
        }
    }
    double worst = 0;
    for (int h = 0; h < H; h++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++) {
                double sc[2];
                for (int s = 0; s < 2; s++) {
                    double d = 0;
                    for (int e = 0; e < D; e++) d += q[s][(size_t)i * C + h * D + e] * k[s][(size_t)j * C + h * D + e];
                    sc[s] = scale ? d / sqrt((double)D) : d;
                }
                if (fabs(sc[1] - sc[0]) > worst) worst = fabs(sc[1] - sc[0]);
            }
    for (int s = 0; s < 2; s++) free(q[s]), free(k[s]);
    return worst;
}

static void test_rope_evidence_follows_no_scale(void **state) {
    (void)state;
    for (int scale = 0; scale < 2; scale++) {
        char *dir = make_tmpdir();
        tu_result r;
        const char *args[] = {"--no-plot", "--color", "never", "--d-model", "16", "--heads", "2", "--positions", "rope",
                              "--dump", dir, "I love deep learning", scale ? NULL : "--no-scale", NULL};
        tu_runv(&r, NULL, NULL, args);
        assert_int_equal(r.code, 0);
        av_npy x = load(dir, "X.npy"), wq = load(dir, "W_Q.npy"), wk = load(dir, "W_K.npy");
        double want = sin_shift_worst(&x, &wq, &wk, 2, 100, scale);
        const char *p = strstr(r.out, "but by up to ");
        assert_non_null(p);
        double got = strtod(p + strlen("but by up to "), NULL);
        print_message("%s: sinusoidal shift by 100 moves the scores by up to %g (printed %g)\n",
                      scale ? "÷√d_k" : "--no-scale", want, got);
        if (fabs(got - want) > 5e-3 * want) fail_msg("evidence says %g, the formula gives %g:\n%s", got, want, r.out);
        p = strstr(r.out, "move by at most ");
        assert_non_null(p);
        assert_true(strtod(p + strlen("move by at most "), NULL) < 1e-4 * want);
        av_npy_free(&x);
        av_npy_free(&wq);
        av_npy_free(&wk);
        tu_free(&r);
        rm_rf(dir);
    }
}

/* ---------------------------------------------------------------------------- */

static int has_escape(const char *s) { return strstr(s, "\033[") != NULL; }

/* Display width of the widest line of s, ANSI escapes removed. */
static int widest_line(const char *s) {
    int widest = 0;
    char line[8192];
    while (*s) {
        size_t n = strcspn(s, "\n"), k = 0;
        for (size_t i = 0; i < n && k + 1 < sizeof line; i++) {
            if (s[i] == '\033') {
                while (i < n && s[i] != 'm') i++;
                continue;
            }
            line[k++] = s[i];
        }
        line[k] = 0;
        int w = av_utf8_width(line);
        if (w > widest) widest = w;
        s += n + (s[n] == '\n');
    }
    return widest;
}

/* s with every "\n  " (a line broken at a space, then its two-space indent) read back as " ": the text as one line.
 * Owned. --show breaks its notes at spaces to fit the terminal. */
static char *unwrapped(const char *s) {
    char *u = strdup(s), *w = u;
    for (const char *p = s; *p; p++) {
        if (p[0] == '\n' && p[1] == ' ' && p[2] == ' ' && p[3] != ' ') *w++ = ' ', p += 2;
        else *w++ = *p;
    }
    *w = 0;
    return u;
}

/* r->out read back as one line per text (unwrapped), in place. */
static void unwrap_out(tu_result *r) {
    char *u = unwrapped(r->out);
    free(r->out);
    r->out = u;
}


/* Columns of a line by utf8proc_charwidth per code point (the library,
 * not attnviz's cluster rule: the tokens below are single code points). */
static int library_width(const char *s, size_t n) {
    int w = 0;
    for (size_t at = 0; at < n;) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + at, (utf8proc_ssize_t)(n - at), &cp);
        assert_true(k > 0);
        w += utf8proc_charwidth(cp);
        at += (size_t)k;
    }
    return w;
}

/* The nrows lines after the line holding header all have the same library
 * width (trailing spaces aside); returns it. */
static int rows_same_width(const char *out, const char *header, int nrows) {
    const char *p = strstr(out, header);
    assert_non_null(p);
    p += strcspn(p, "\n") + 1; /* the rows start on the line after the header */
    int w0 = -1;
    for (int i = 0; i < nrows; i++) {
        size_t n = strcspn(p, "\n");
        while (n > 0 && p[n - 1] == ' ') n--; /* trailing padding */
        int w = library_width(p, n);
        if (w0 < 0) w0 = w;
        if (w != w0) print_message("row %d is %d columns, row 0 is %d:\n%.*s\n", i, w, w0, (int)n, p);
        assert_int_equal(w, w0);
        p += strcspn(p, "\n") + 1;
    }
    return w0;
}

/* → and ✓ are one column (wcwidth, utf8proc); the rows of --show and of the
 * --explain table line up when measured by the library. Wide, fullwidth,
 * halfwidth, ambiguous and combining-free letters from several scripts. */
static void test_show_and_explain_columns_agree_with_the_library(void **state) {
    (void)state;
    const char *sentences[] = {"go → up ✓ ok", "我 ✓ → é ∑ ① ｗ ｱ ሰላም ✅ ꙮ 𝔸"};
    const int ntok[] = {5, 12};
    for (int k = 0; k < 2; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "-d", "8", "--no-plot", "--show", "--color", "never", "--explain", "1,0",
                    sentences[k], NULL);
        assert_int_equal(r.code, 0);
        rows_same_width(r.out, "     0    1    2", ntok[k]);  /* --show's column numbers */
        rows_same_width(r.out, "      j    key", ntok[k]); /* --explain's row table */
        tu_free(&r);
    }
}

/* --show on a long input: from T = 200 on an even row's 1/T prints as .00, and at 300 tokens nearly every cell
 * did, with nothing saying those weights are not 0 (the long-input tester's pass). A line under the legend says
 * so, with the count of such cells among those shown, counted here from --dump's weights.npy; at 199 tokens
 * there is no such line. */
static void test_show_says_what_prints_as_zero(void **state) {
    tu_fixture *f = *state;
    for (int T = 199; T <= 300; T += 101) {
        char text[4000] = "", dump[4200], tag[128];
        for (int i = 0; i < T; i++) snprintf(text + strlen(text), sizeof text - strlen(text), "%sw%d", i ? " " : "", i);
        snprintf(dump, sizeof dump, "%s/dump%d", f->dir, T);
        const char *env[] = {"COLUMNS=100", NULL};
        const char *args[] = {"-d", "8", "--no-plot", "--show", "--color", "never", "--dump", dump, "-f", "-", NULL};
        tu_result r;
        tu_runv(&r, text, env, args);
        if (r.code != 0) fail_msg("T = %d: exit %d: %s", T, r.code, r.err);
        unwrap_out(&r); /* the note is broken at spaces to fit the 100 columns */
        const char *note = strstr(r.out, "(.00: a weight above 0 but under 0.005, ");
        if (T < 200) {
            if (note) fail_msg("T = %d: a note for .00 cells: %s", T, note);
            tu_free(&r);
            continue;
        }
        int ncols = T;
        const char *cut = strstr(r.out, "(keys ");
        if (cut) ncols = atoi(cut + 6);
        assert_true(ncols > 0 && ncols < T);
        av_npy w = load(dump, "weights.npy");
        assert_true(w.ndim == 3 && w.shape[0] == 1 && w.shape[1] == (size_t)T && w.shape[2] == (size_t)T);
        long tiny = 0;
        for (int i = 0; i < 48; i++)
            for (int j = 0; j < ncols; j++) tiny += w.data[(size_t)i * T + j] > 0 && w.data[(size_t)i * T + j] < 0.005f;
        av_npy_free(&w);
        assert_true(tiny > 0);
        snprintf(tag, sizeof tag, "0.005, %ld of the cells shown; an even row over %d keys is 1/%d = 0.0033)\n", tiny,
                 T, T);
        if (!note || strncmp(note + strlen("(.00: a weight above 0 but under "), tag, strlen(tag)) != 0)
            fail_msg("T = %d: want ...%s in:\n%s", T, tag, note ? note : r.out);
        tu_free(&r);
        /* under the causal mask row i sees i + 1 keys: "an even row over 300 keys is 1/T" held for the last row
         * only (a learner's pass, --causal --show on 242 tokens) */
        const char *causal[] = {"-d", "8", "--no-plot", "--show", "--causal", "--color", "never", "-f", "-", NULL};
        tu_runv(&r, text, env, causal);
        if (r.code != 0) fail_msg("T = %d --causal: exit %d: %s", T, r.code, r.err);
        unwrap_out(&r);
        note = strstr(r.out, "(.00: a weight above 0 but under 0.005, ");
        if (!note || !strstr(note, "; under the causal mask row i sees i + 1 keys, and an even row puts 1/(i + 1) on "
                                   "each: 0.0033 on the last real row, over 300 keys)\n"))
            fail_msg("T = %d --causal: no word on the causal rows in:\n%s", T, note ? note : r.out);
        tu_free(&r);
    }
}

/* The man page names the glyph --show prints for a masked cell (groff \(pc
 * is U+00B7 ·); the tool's rows and legend use that glyph. */
static void test_man_page_names_the_masked_glyph(void **state) {
    (void)state;
    size_t n;
    char *man = tu_slurp_file(src_path("docs/attnviz.1"), &n);
    assert_non_null(man);
    const char *p = strstr(man, "Masked cells are ");
    assert_non_null(p);
    p += strlen("Masked cells are ");
    const char *glyph = strncmp(p, "\\(pc", 4) == 0 ? "\xC2\xB7" : strncmp(p, "\\(bu", 4) == 0 ? "\xE2\x80\xA2" : NULL;
    if (!glyph) fail_msg("man page: unknown glyph after 'Masked cells are ': %.10s", p);
    free(man);
    tu_result r;
    run_attnviz(&r, NULL, "-d", "8", "--no-plot", "--show", "--causal", "--color", "never", "a b c", NULL);
    assert_int_equal(r.code, 0);
    char row[32], legend[64];
    snprintf(row, sizeof row, "0 a 1.00 %s", glyph);
    snprintf(legend, sizeof legend, "; %s = masked", glyph);
    assert_non_null(strstr(r.out, row));
    assert_non_null(strstr(r.out, legend));
    tu_free(&r);
}

/* The man page's --kernel entry: its formulas use a dot and a superscript T
 * (groff \(md and \[u1D40]; it had \(mu and \(ua, shown as "A×.V" and
 * "Q×.K↑"), and the flash tile size it states is the one the trace prints (it
 * said 256, the code uses 512). */
static void test_man_page_kernel_formulas_and_tile_size(void **state) {
    (void)state;
    size_t n;
    char *man = tu_slurp_file(src_path("docs/attnviz.1"), &n);
    assert_non_null(man);
    assert_null(strstr(man, "\\(ua"));  /* an up arrow has no place in this page */
    assert_null(strstr(man, "\\(mu.")); /* "×." was meant as a product dot */
    const char *entry = strstr(man, ".BI \\-\\-kernel");
    assert_non_null(entry);
    const char *end = strstr(entry, "\n.TP");
    assert_non_null(end);
    assert_non_null(strstr(entry, "A\\(mdV"));
    assert_non_null(strstr(entry, "Q\\(mdK\\[u1D40]"));
    const char *tiles = strstr(entry, "keys in tiles of");
    assert_true(tiles && tiles < end);
    int man_tile = atoi(tiles + strlen("keys in tiles of"));
    free(man);
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "--kernel", "flash", "-d", "8", "a b", NULL);
    assert_int_equal(r.code, 0);
    const char *said = strstr(r.out, "kernel     flash: keys in tiles of ");
    assert_non_null(said);
    int trace_tile = atoi(said + strlen("kernel     flash: keys in tiles of "));
    if (man_tile != trace_tile) fail_msg("man page: keys in tiles of %d; the trace: %d", man_tile, trace_tile);
    tu_free(&r);
}

/* --dump's X.npy is the embedding before the positional encoding: Q is
 * (X + PE)·W_Q, split into heads, and X·W_Q alone is off (by 1.17 here;
 * worked with numpy on the same dump). The docs say so. */
static void test_dump_x_is_before_positional_encoding(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "16", "-H", "2", "--dump", dir, "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    av_npy X = load(dir, "X.npy"), PE = load(dir, "PE.npy"), W = load(dir, "W_Q.npy"), Q = load(dir, "Q.npy");
    const int T = 4, C = 16, D = 8; /* H = 2 heads of d_k = 8 */
    double with_pe = 0, without = 0; /* worst |difference| */
    for (int t = 0; t < T; t++)
        for (int c = 0; c < C; c++) {
            double a = 0, b = 0;
            for (int k = 0; k < C; k++) {
                a += (double)(X.data[t * C + k] + PE.data[t * C + k]) * W.data[k * C + c];
                b += (double)X.data[t * C + k] * W.data[k * C + c];
            }
            double q = Q.data[(c / D) * T * D + t * D + c % D]; /* Q is (H, T, D) */
            with_pe = fmax(with_pe, fabs(a - q));
            without = fmax(without, fabs(b - q));
        }
    print_message("Q vs (X + PE)·W_Q: %.3g; vs X·W_Q: %.3g\n", with_pe, without);
    assert_true(with_pe < 1e-4);
    assert_true(without > 0.1);
    av_npy_free(&X), av_npy_free(&PE), av_npy_free(&W), av_npy_free(&Q);
    rm_rf(dir);
    size_t n;
    char *readme = tu_slurp_file(src_path("README.md"), &n), *man = tu_slurp_file(src_path("docs/attnviz.1"), &n);
    assert_non_null(strstr(readme, "`X.npy` (T, d_model; the token embeddings **before** the positional"));
    assert_non_null(strstr(man, "X (T, d_model; the embeddings before the positional encoding)"));
    free(readme);
    free(man);
}

static void test_terminal_heatmap_colour_rules(void **state) {
    (void)state;
    const char *sentence = "I love deep learning";
    tu_result r;
    /* a pipe with --color auto: plain numbers */
    run_attnviz(&r, NULL, "--no-plot", "--show", "--heads", "2", sentence, NULL);
    assert_int_equal(r.code, 0);
    assert_false(has_escape(r.out));
    assert_non_null(strstr(r.out, "head 1 of 2: attention weights"));
    assert_non_null(strstr(r.out, "keys: 0=I 1=love 2=deep 3=learning"));
    tu_free(&r);
    /* --color always: colour blocks (256 colours, or truecolour with COLORTERM) */
    run_attnviz(&r, NULL, "--no-plot", "--show", "--color", "always", sentence, NULL);
    assert_non_null(strstr(r.out, "\033[48;5;"));
    tu_free(&r);
    const char *truecolor[] = {"COLORTERM=truecolor", NULL};
    tu_runv(&r, NULL, truecolor, (const char *[]){"--no-plot", "--show", "--color", "always", sentence, NULL});
    assert_non_null(strstr(r.out, "\033[48;2;"));
    tu_free(&r);
    /* NO_COLOR with auto: none; --color always overrides NO_COLOR; never wins over a TTY */
    const char *nocolor[] = {"NO_COLOR=1", NULL};
    tu_runv(&r, NULL, nocolor, (const char *[]){"--no-plot", "--show", sentence, NULL});
    assert_false(has_escape(r.out));
    tu_free(&r);
    tu_runv(&r, NULL, nocolor, (const char *[]){"--no-plot", "--show", "--color", "always", sentence, NULL});
    assert_true(has_escape(r.out));
    tu_free(&r);
    tu_runv(&r, NULL, nocolor, (const char *[]){"--no-plot", "--show", "--color", "never", "--causal", sentence, NULL});
    assert_false(has_escape(r.out));
    assert_non_null(strstr(r.out, "· = masked (score −∞, weight 0)"));
    assert_non_null(strstr(r.out, "·")); /* the masked cells themselves */
    tu_free(&r);
}

/* --show's colour cells follow --cmap, as the figures and --html do: they were always viridis, whatever
 * --cmap said, and with --no-plot a warning said --cmap had no effect (a tester's report). The legend's
 * first block is the map at 0: gray's black, viridis's (68, 1, 84). */
static void test_terminal_heatmap_follows_cmap(void **state) {
    (void)state;
    const char *truecolor[] = {"COLORTERM=truecolor", NULL};
    tu_result r;
    tu_runv(&r, NULL, truecolor,
            (const char *[]){"-q", "--no-plot", "--show", "--color", "always", "--cmap", "gray", "a b", NULL});
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "legend: 0 \033[48;2;0;0;0m"));
    assert_null(strstr(r.out, "\033[48;2;68;1;84m"));
    assert_null(strstr(r.err, "has no effect")); /* --cmap colours --show, even with --no-plot */
    tu_free(&r);
    tu_runv(&r, NULL, truecolor, (const char *[]){"-q", "--no-plot", "--show", "--color", "always", "a b", NULL});
    assert_non_null(strstr(r.out, "legend: 0 \033[48;2;68;1;84m")); /* viridis by default */
    tu_free(&r);
    /* without colour --show prints numbers: there --cmap has no effect, and says so */
    run_attnviz(&r, NULL, "-q", "--no-plot", "--show", "--color", "never", "--cmap", "gray", "a b", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.err, "--cmap gray has no effect with --no-plot and --color never"));
    tu_free(&r);
}

/* The 256 colours of the legend's 11 steps (t = 0, 0.1, ..., 1), as "N N ..." from each "\033[48;5;Nm". */
static void legend_256_codes(const char *out, char *codes, size_t cap) {
    const char *p = strstr(out, "legend: 0 "), *end = p ? strstr(p, "\033[0m") : NULL;
    size_t n = 0;
    codes[0] = 0;
    for (int c; p && end && (p = strstr(p, "\033[48;5;")) && p < end && n + 5 < cap; p++)
        if (sscanf(p, "\033[48;5;%dm", &c) == 1) n += (size_t)snprintf(codes + n, cap - n, n ? " %d" : "%d", c);
}

/* Without truecolour --show picks each cell's colour among xterm's 256: the 6x6x6 cube alone has 6 greys, so
 * --cmap gray's legend of 11 steps showed 6 levels (16 16 59 59 59 102 102 145 188 188 231), the steps 0.2,
 * 0.3 and 0.4 one grey (a new user's pass). The nearer, by squared RGB distance, of the cube colour and the
 * grey ramp's 232 + k (grey 8 + 10k), as tmux's colour_find_rgb chooses. Expected, by hand: gray at t is
 * k = ⌊256·t⌋ (matplotlib's lookup; 255 at 1): 0 25 51 76 102 128 153 179 204 230 255. 0 and 255 are cube
 * colours, 16 and 231; 25 is 3 from ramp grey 28 (234), 25 from the cube's 0; 51 → 48 (236) against 95;
 * 76 → 78 (239) against 95; 102 → 98 (241) against 95 (7 away); 128 → 128 (244) against 135; 153 → 158
 * (247) against 135; 179 → 178 (249) against 175; 204 → 208 (252) against 215; 230 → 228 (254) against
 * 215. Viridis at 0, (68, 1, 84), stays the cube's 53, (95, 0, 95), 27² + 1² + 11² = 851 away, where the
 * ramp's nearest grey, 48, is 20² + 47² + 36² = 3905 away. */
static void test_terminal_heatmap_256_colours_use_the_grey_ramp(void **state) {
    (void)state;
    const char *env[] = {"COLORTERM=", "NO_COLOR=", NULL};
    char codes[256];
    tu_result r;
    tu_runv(&r, NULL, env, (const char *[]){"-q", "--no-plot", "--show", "--color", "always", "--cmap", "gray", "a b", NULL});
    assert_int_equal(r.code, 0);
    legend_256_codes(r.out, codes, sizeof codes);
    assert_string_equal(codes, "16 234 236 239 241 244 247 249 252 254 231");
    tu_free(&r);
    tu_runv(&r, NULL, env, (const char *[]){"-q", "--no-plot", "--show", "--color", "always", "a b", NULL});
    assert_int_equal(r.code, 0);
    legend_256_codes(r.out, codes, sizeof codes);
    assert_int_equal(strncmp(codes, "53 ", 3), 0);
    tu_free(&r);
}

static void test_terminal_heatmap_fits_80_columns(void **state) {
    (void)state;
    char sent[16][256];
    int n = load_sentences(sent, 16);
    const char *modes[] = {"never", "always"};
    for (int s = 0; s < n; s++)
        for (int m = 0; m < 2; m++) {
            const char *env[] = {"COLUMNS=80", NULL};
            tu_result r;
            tu_runv(&r, NULL, env, (const char *[]){"--no-plot", "-q", "--show", "--color", modes[m], sent[s], NULL});
            assert_int_equal(r.code, 0);
            /* -q prints only errors, so --show prints nothing there; use the trace-free path instead */
            tu_free(&r);
            tu_runv(&r, NULL, env,
                    (const char *[]){"--no-plot", "--show", "--color", modes[m], "--d-model", "8", sent[s], NULL});
            assert_int_equal(r.code, 0);
            const char *heat = strstr(r.out, "head 0 of 1: attention weights");
            assert_non_null(heat);
            int w = widest_line(heat);
            if (w > 80) print_message("%s (%s): %d columns\n", sent[s], modes[m], w);
            assert_true(w <= 80);
            tu_free(&r);
        }
    /* a long paragraph degrades: still within 80 columns, and says what it left out */
    char para[4096] = "";
    for (int i = 0; i < 120; i++) strcat(para, i % 2 ? "attention " : "is ");
    const char *env[] = {"COLUMNS=80", NULL};
    tu_result r;
    tu_runv(&r, NULL, env, (const char *[]){"--no-plot", "--show", "--color", "never", "--d-model", "8", para, NULL});
    assert_int_equal(r.code, 0);
    assert_true(widest_line(strstr(r.out, "head 0 of 1")) <= 80);
    assert_non_null(strstr(r.out, "(--dump DIR writes every weight)"));
    tu_free(&r);
}

/* --show in a narrow terminal: the table fits COLUMNS (it was drawn 39+
 * columns wide at COLUMNS=20 and 10), a line under it names the keys left
 * out (key 7 of 8 was dropped without one at COLUMNS=40), and when not even
 * one key fits, a note replaces the table. Worked by hand for 9 tokens,
 * --color never: labels 5 wide ("quick"), so rows start at 1 + 1 + 5 + 1 = 8
 * columns and 9 cells of 5 ("0.08 ") need 53, so cells are 4 (".08 "):
 * 40 columns hold (40 − 8) / 4 = 8 keys, 20 hold 3, 10 hold none. */
/* One query past --show's row limit is named in the singular ("queries 48..48" before). */
static void test_show_one_query_left_out(void **state) {
    (void)state;
    char sentence[512] = "";
    for (int t = 0; t < 49; t++) snprintf(sentence + strlen(sentence), sizeof sentence - strlen(sentence), "%sw%d",
                                          t ? " " : "", t);
    const char *env[] = {"COLUMNS=400", NULL};
    tu_result r;
    tu_runv(&r, NULL, env, (const char *[]){"-q", "--no-plot", "--show", "--color", "never", "-d", "8", sentence, NULL});
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "(query 48 not shown: at most 48 rows)\n")) fail_msg("no singular note in:\n%s", r.out);
    assert_null(strstr(r.out, "queries 48..48"));
    /* --no-plot writes no figures: the note names --dump alone (it said "the figures and --dump have all of them") */
    if (!strstr(r.out, "(--dump DIR writes every weight)\n")) fail_msg("no --dump note in:\n%s", r.out);
    assert_null(strstr(r.out, "the figures"));
    tu_free(&r);
}

/* --show's key legend breaks only where the next entry does not fit: " 7=h" is 4 columns (a space, the
 * index, '=', the token), so "keys:" and 8 one-letter keys are 5 + 8 × 4 = 37 columns (by hand), one line at
 * COLUMNS=40. Each entry was counted one column wider, and "7=h" went to a line of its own (a teacher's
 * pass: "8=learning" wrapped at 48 of 60 columns). */
static void test_show_key_legend_wraps_only_when_full(void **state) {
    (void)state;
    const char *env[] = {"COLUMNS=40", NULL};
    tu_result r;
    tu_runv(&r, NULL, env, (const char *[]){"-q", "--no-plot", "--show", "--color", "never", "-d", "8",
                                            "a b c d e f g h", NULL});
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "\nkeys: 0=a 1=b 2=c 3=d 4=e 5=f 6=g 7=h\nlegend: ")) fail_msg("the key legend:\n%s", r.out);
    tu_free(&r);
}

/* No line of --show ends in spaces: its column header and every row ended in the padding of their last cell
 * ("           0    1    2    3    " for --show -q -H 2 -d 8 --causal --no-plot "I love deep learning"), which
 * diffs flag and the docs' excerpts kept (a maintainer's list of known faults). The expected lines are worked by
 * hand: labels 8 wide ("learning"), so rows start at 1 + 1 + 8 + 1 = 11 columns; row 0 under the causal mask
 * sees key 0 alone (weight 1) and "·" for the masked rest. At COLUMNS=40 the 12 words' rows start at
 * 2 + 1 + 8 + 1 = 12 and 7 keys of 4 fit; in colour at COLUMNS=20, 12 cells of 2 do not fit 8 columns, so cells
 * are 1 and key 0's index heads them alone. At COLUMNS=26 the 18-letter Hangul key gets 26 - 5 - 3 = 18
 * columns after "keys:" and " 1=": 8 letters of 2 and "…" (17), with no pad to 18. */
static void test_show_lines_end_without_spaces(void **state) {
    (void)state;
    static const char words[] = "I love deep learning and many more words here to see it";
    struct {
        const char *columns, *color, *sentence, *line; /* a line the output holds, worked by hand */
        int causal;
    } runs[] = {
        {"COLUMNS=80", "never", "I love deep learning", "\n           0    1    2    3\n0 I        1.00 ·    ·    ·\n", 1},
        {"COLUMNS=80", "never", "I love deep learning", "\n           0    1    2    3\n", 0},
        {"COLUMNS=40", "never", words, "\n            0   1   2   3   4   5   6\n", 0},
        {"COLUMNS=40", "never", words, "\n 0 I        1.0 ·   ·   ·   ·   ·   ·\n", 1},
        {"COLUMNS=80", "always", "I love deep learning", "\n           0    1    2    3\n", 0},
        {"COLUMNS=20", "always", words, "\n            0\n", 0},
        {"COLUMNS=26", "never", "a 가나다라마바사아자차카타파하거너더러 b", "\n      1=가나다라마바사아…\n", 0},
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        const char *env[] = {runs[k].columns, NULL};
        tu_result r;
        tu_runv(&r, NULL, env, (const char *[]){"-q", "--no-plot", "--show", "--color", runs[k].color, "-H", "2",
                                                "-d", "8", "--positions", "sinusoidal", /* the default */
                                                runs[k].causal ? "--causal" : runs[k].sentence,
                                                runs[k].causal ? runs[k].sentence : NULL, NULL});
        assert_int_equal(r.code, 0);
        for (const char *p = r.out; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n')) {
            size_t n = strcspn(p, "\n");
            if (n > 0 && p[n - 1] == ' ')
                fail_msg("run %zu (%s --color %s): a line ends in a space: \"%.*s\" in:\n%s", k, runs[k].columns,
                         runs[k].color, (int)n, p, r.out);
        }
        if (!strstr(r.out, runs[k].line)) fail_msg("run %zu: no line \"%s\" in:\n%s", k, runs[k].line, r.out);
        tu_free(&r);
    }
}

/* --show's colour legend said "masked (−∞)" under a map of weights, which read as a weight of −∞ (the figures
 * say "masked (score −∞, weight 0)" there since 46130bb): `attnviz --no-plot --show --color always --causal "I love
 * you"`. It says the figures' words now, on the legend's line when "legend: 0 ", 11 blocks of 2, " 1" (34
 * columns) and "   ", " · ", " masked (score −∞, weight 0)" (3 + 3 + 28) fit, 68 columns by hand, else on its
 * own line: no line past the terminal at 67 columns. */
static void test_show_colour_legend_says_score_and_weight(void **state) {
    (void)state;
    static const struct { const char *columns; int width, one_line; } runs[] = {
        {"COLUMNS=80", 80, 1}, {"COLUMNS=68", 68, 1}, {"COLUMNS=67", 67, 0}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        const char *env[] = {runs[k].columns, NULL};
        tu_result r;
        tu_runv(&r, NULL, env, (const char *[]){"-q", "--no-plot", "--show", "--color", "always", "--causal",
                                                "I love you", NULL});
        assert_int_equal(r.code, 0);
        assert_true(has_escape(r.out));
        const char *legend = strstr(r.out, "legend: 0 ");
        assert_non_null(legend);
        const char *words = strstr(legend, " masked (score −∞, weight 0)\n");
        if (!words) fail_msg("%s: no \" masked (score −∞, weight 0)\" after the legend:\n%s", runs[k].columns, r.out);
        assert_null(strstr(r.out, "masked (−∞)"));
        int newline_before = memchr(legend, '\n', (size_t)(words - legend)) != NULL;
        if (newline_before == runs[k].one_line)
            fail_msg("%s: the words are %s the legend's line:\n%s", runs[k].columns,
                     runs[k].one_line ? "not on" : "on", r.out);
        if (widest_line(r.out) > runs[k].width)
            fail_msg("%s: a line wider than %d columns:\n%s", runs[k].columns, runs[k].width, r.out);
        tu_free(&r);
    }
}

/* --show's lines over and under the table fit the terminal as the table does: at COLUMNS=40 the brief's 12 words
 * (labels 8 wide: rows start at 2 + 1 + 8 + 1 = 12 columns, cells of 4, (40 - 12) / 4 = 7 keys, by hand) gave a
 * 63-column title, a 55-column "(keys 7..11 not shown ...)" and a 75-column legend, which the terminal wrapped
 * through words (a tester's pass); a key of 45 letters made a 50-column entry. Every line is now at most 40
 * columns, each text broken at spaces and whole when read back, and the long key cut with "…" to the 40 - 5 - 3
 * = 32 columns a line leaves it after "keys:" and " 1=" (31 letters and "…"). */
static void test_show_lines_fit_a_narrow_terminal(void **state) {
    (void)state;
    const char *env[] = {"COLUMNS=40", NULL};
    const char *color[] = {"never", "always"};
    for (int c = 0; c < 2; c++) {
        tu_result r;
        tu_runv(&r, NULL, env, (const char *[]){"-q", "--no-plot", "--show", "--color", color[c], "-d", "8",
                                                "I love deep learning and many more words here to see it", NULL});
        assert_int_equal(r.code, 0);
        if (widest_line(strchr(r.out, '\n') + 1) > 40) /* after "weights: ...", the trace's line, not the table's */
            fail_msg("--color %s: a line wider than 40 columns:\n%s", color[c], r.out);
        char *joined = unwrapped(r.out);
        if (!strstr(joined, "\nhead 0 of 1: attention weights (rows = queries, columns = keys)\n") ||
            (c == 0 && !strstr(joined, "\n(keys 7..11 not shown: the terminal is 40 columns wide)\n")) ||
            (c == 0 && !strstr(joined, "\nlegend: weights (unmasked rows sum to 1); · = masked (score −∞, weight 0); .64 = 0.64\n")))
            fail_msg("--color %s: a text not whole:\n%s", color[c], r.out);
        free(joined);
        tu_free(&r);
    }
    tu_result r;
    tu_runv(&r, NULL, env, (const char *[]){"-q", "--no-plot", "--show", "--color", "never", "-d", "8",
                                            "I abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrs x", NULL});
    assert_int_equal(r.code, 0);
    if (widest_line(strchr(r.out, '\n') + 1) > 40 ||
        !strstr(r.out, "\nkeys: 0=I\n      1=abcdefghijklmnopqrstuvwxyzabcde…\n      2=x\n"))
        fail_msg("the long key:\n%s", r.out);
    tu_free(&r);
}

static void test_show_in_a_narrow_terminal(void **state) {
    (void)state;
    static const struct {
        const char *columns, *note;
        int keys; /* columns of keys drawn */
    } cases[] = {
        {"COLUMNS=40", "(key 8 not shown: the terminal is 40 columns wide)\n", 8},
        {"COLUMNS=20", "(keys 3..8 not shown: the terminal is 20 columns wide)\n", 3},
        {"COLUMNS=10", "(not drawn: the terminal is 10 columns wide; the labels and one key need 12;", 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *env[] = {cases[k].columns, NULL};
        tu_result r;
        tu_runv(&r, NULL, env, (const char *[]){"-q", "--no-plot", "--show", "--color", "never", "-d", "8",
                                                "The quick brown fox jumps over the lazy dog", NULL});
        assert_int_equal(r.code, 0);
        char *joined = unwrapped(r.out); /* the note is broken at spaces to fit the width */
        if (!strstr(joined, cases[k].note)) fail_msg("%s: no note %s in:\n%s", cases[k].columns, cases[k].note, r.out);
        free(joined);
        if (cases[k].keys) /* every line but the trace's "weights: ..." (10 columns leave "(not drawn:" 11) */
            assert_true(widest_line(strchr(r.out, '\n') + 1) <= atoi(cases[k].columns + 8));
        const char *row = strstr(r.out, "\n8 dog ");
        if (cases[k].keys == 0) {
            assert_null(row);
        } else {
            assert_non_null(row);
            const char *end = strchr(row + 1, '\n');
            int cells = 0;
            for (const char *p = row + 7; p < end; p++) cells += *p == '.';
            assert_int_equal(cells, cases[k].keys);
            char table[4096];
            const char *top = strstr(r.out, "head 0 of 1");
            const char *top_end = strchr(strstr(top, "keys)"), '\n') + 1, *bottom = strstr(r.out, "\n(key") + 1;
            snprintf(table, sizeof table, "%.*s", (int)(bottom - top_end), top_end); /* header and rows */
            assert_true(widest_line(table) <= atoi(cases[k].columns + 8));
        }
        tu_free(&r);
    }
}

/* --show into a pipe or a file with no $COLUMNS (bash does not export it): the table is drawn 80 columns wide,
 * and the note under it said "the terminal is 80 columns wide", which is no terminal's width: a teacher piping
 * `attnviz --show ... | less -R` on a 200-column projector terminal read it as a fact and had no way to more
 * keys. It now says the 80 columns were assumed and names COLUMNS. By hand, 20 one-letter tokens
 * (--color never): rows start at 2 + 1 + 1 + 1 = 5 columns, 20 cells of 5 need 105 > 80, so cells are 4
 * (".08 "): (80 - 5) / 4 = 18 keys, keys 18..19 left out. */
static void test_show_into_a_pipe_says_the_width_is_assumed(void **state) {
    (void)state;
    const char *env[] = {"COLUMNS=", NULL}; /* unset for attnviz: an empty value is no width */
    tu_result r;
    tu_runv(&r, NULL, env, (const char *[]){"-q", "--no-plot", "--show", "--color", "never", "-d", "8",
                                            "a b c d e f g h i j k l m n o p q r s t", NULL});
    assert_int_equal(r.code, 0);
    unwrap_out(&r); /* the note is broken at spaces to fit the 80 columns */
    const char *note = "(keys 18..19 not shown: standard output is not a terminal, so 80 columns are assumed; "
                       "COLUMNS=N gives N, e.g. COLUMNS=200 attnviz ... | less -R)\n";
    if (!strstr(r.out, note)) fail_msg("no note %s in:\n%s", note, r.out);
    assert_null(strstr(r.out, "the terminal is"));
    tu_free(&r);
}

/* A label's width counts every wide character a terminal gives cells of its own: `attnviz --no-plot -d 8 --show
 * "ab ᄀᄀ"` padded the old Hangul cluster of two leading jamo U+1100 U+1100 (4 columns in a terminal, wcwidth 2 +
 * 2) as 2, the width of "ab", so its row's cells stood two columns right of the others. 가 stays 2. */
static void test_show_pads_a_cluster_of_wide_jamo_by_its_width(void **state) {
    (void)state;
    const char *env[] = {"COLUMNS=80", NULL};
    tu_result r;
    tu_runv(&r, NULL, env, (const char *[]){"-q", "--no-plot", "--show", "--color", "never", "-d", "8",
                                            "ab \xE1\x84\x80\xE1\x84\x80 \xEA\xB0\x80", NULL});
    assert_int_equal(r.code, 0);
    static const char *const rows[] = {"\n       0    1    2\n", "\n0 ab   0.", "\n1 \xE1\x84\x80\xE1\x84\x80 0.",
                                       "\n2 \xEA\xB0\x80   0."};
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++)
        if (!strstr(r.out, rows[k])) fail_msg("no row starting %s in:\n%s", rows[k], r.out);
    tu_free(&r);
}

/* --show's narrow cells (".64") round as its wide ones ("0.64 ") and the figures: an exact tie to the even digit,
 * as printf. 8 copies of "the" without positions give a uniform row, 1/8 = 0.125 in every cell: 0.12 at 80
 * columns, but .13 at 40 (lround took the tie up). */
static void test_show_narrow_cells_round_as_wide_ones(void **state) {
    (void)state;
    static const struct {
        const char *columns, *row;
    } cases[] = {
        {"COLUMNS=80", "\n0 the 0.12 0.12 0.12 0.12 0.12 0.12 0.12 0.12\n"},
        {"COLUMNS=40", "\n0 the .12 .12 .12 .12 .12 .12 .12 .12\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *env[] = {cases[k].columns, NULL};
        tu_result r;
        tu_runv(&r, NULL, env, (const char *[]){"-q", "--no-plot", "--show", "--color", "never", "-p", "none", "-d", "8",
                                                "the the the the the the the the", NULL});
        assert_int_equal(r.code, 0);
        if (!strstr(r.out, cases[k].row)) fail_msg("%s: no row%s in:\n%s", cases[k].columns, cases[k].row, r.out);
        tu_free(&r);
    }
}

static void test_no_scale_saturation_verdict(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "--heads", "2", "--no-scale", "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "scale OFF"));
    assert_non_null(strstr(r.out, "var(Q·Kᵀ) = "));
    assert_non_null(strstr(r.out, "max weight / entropy"));
    assert_non_null(strstr(r.out, "verdict: softmax is saturated"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "--heads", "2", "-v", "I love deep learning", NULL);
    assert_non_null(strstr(r.out, "verdict: not saturated"));
    tu_free(&r);
    /* only rows with a choice are judged: under a causal mask query 0 sees one key and is 1.00 whatever the
     * scores, and counting it said "saturated: 7 of 12 rows" (a teacher's report). numpy on this run's
     * --dump weights.npy (4 heads, T 3): 3 of the 8 rows with 2 or 3 visible keys have a max > 0.9 */
    run_attnviz(&r, NULL, "--no-plot", "--no-scale", "--causal", "--heads", "4", "-d", "16", "I love you", NULL);
    if (!strstr(r.out, "verdict: not saturated: 3 of 8 rows are nearly one-hot (max weight > 0.9); 4 rows (1 query × "
                       "4 heads) with one visible key left out\n"))
        fail_msg("causal verdict:\n%s", r.out);
    tu_free(&r);
    /* <pad> query rows are left out, as --compare's tables average the real rows only: they had been counted
     * ("3 of 10 rows", a teacher's pass). Here 2 heads, 3 real tokens padded to 6, causal: the real rows with a
     * choice are 1 and 2 of each head, 4 rows; which are near one-hot is read from --dump's weights.npy */
    {
        char *d = make_tmpdir();
        run_attnviz(&r, NULL, "--no-plot", "--no-scale", "--causal", "--pad-to", "6", "--heads", "2", "-d", "16",
                    "--dump", d, "I love you", NULL);
        assert_int_equal(r.code, 0);
        av_npy w = load(d, "weights.npy");
        int peaked = 0;
        for (int h = 0; h < 2; h++)
            for (int i = 1; i < 3; i++) {
                float mx = 0;
                for (int j = 0; j < 6; j++) mx = fmaxf(mx, w.data[((size_t)h * 6 + i) * 6 + j]);
                peaked += mx > 0.9f;
            }
        av_npy_free(&w);
        char want[200];
        snprintf(want, sizeof want, "%d of 4 rows %s nearly one-hot (max weight > 0.9); 2 rows (1 query × 2 heads) with "
                 "one visible key left out; 6 <pad> query rows (3 queries × 2 heads) left out\n", peaked, peaked == 1 ? "is" : "are");
        if (!strstr(r.out, want)) fail_msg("--pad-to verdict, want ...%s in:\n%s", want, r.out);
        tu_free(&r);
        rm_rf(d);
    }
    run_attnviz(&r, NULL, "--no-plot", "--no-scale", "Hello", NULL); /* one token: nothing to judge */
    if (!strstr(r.out, "verdict: none: every row sees one key, so its weight is 1 whatever the scores\n"))
        fail_msg("one token:\n%s", r.out);
    tu_free(&r);
    /* --attn-mask hiding every key: it said "every row sees one key" when no row saw any (a tester's report);
     * rows with no key are named as left out, as rows with one are */
    char *dir = make_tmpdir(), path[4200];
    snprintf(path, sizeof path, "%s/m.npy", dir);
    for (int all = 1; all >= 0; all--) {
        /* numpy: np.save(path, np.array(m, bool)), m = ones (3, 3), or rows [0 1 1] [0 0 1] [1 1 1] */
        unsigned char m[9] = {0, 1, 1, 0, 0, 1, 1, 1, 1};
        if (all) memset(m, 1, sizeof m);
        write_bool_mask(path, 3, m);
        run_attnviz(&r, NULL, "--no-plot", "--no-scale", "--attn-mask", path, "a b c", NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        const char *want = all ? "verdict: none: every row has every key masked, so its weights are all 0\n"
                               : "; 1 row with one visible key left out; 1 row with no visible key left out\n";
        if (!strstr(r.out, want)) fail_msg("--attn-mask (%s):\n%s", all ? "all" : "row 2", r.out);
        tu_free(&r);
    }
    rm_rf(dir);
}

/* A row with every key masked keeps its place in the per-row list as "—": it was left out, so with --attn-mask
 * hiding row 0, `attnviz --no-plot --no-scale --attn-mask m.npy "a b c"` printed "head 0: 1.00/0.00 0.62/0.66",
 * row 1's and row 2's numbers where a reader takes rows 0 and 1 (an auditor's pass). Here the mask rows are
 * [1 1 1] [0 1 1] [0 0 1]: row 0 sees no key, row 1 one (1.00/0.00), row 2 two; row 2's numbers from --dump. */
static void test_saturation_rows_keep_their_places(void **state) {
    (void)state;
    char *dir = make_tmpdir(), path[4200], dump[4200];
    snprintf(path, sizeof path, "%s/m.npy", dir);
    snprintf(dump, sizeof dump, "%s/dump", dir);
    const unsigned char m[9] = {1, 1, 1, 0, 1, 1, 0, 0, 1};
    write_bool_mask(path, 3, m);
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "--no-scale", "--color", "never", "--heads", "2", "-d", "16", "--attn-mask", path,
                "--dump", dump, "a b c", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    av_npy w = load(dump, "weights.npy");
    for (int h = 0; h < 2; h++) {
        const float *a = w.data + ((size_t)h * 3 + 2) * 3;
        double mx = 0, e = 0;
        for (int j = 0; j < 3; j++) {
            if (a[j] > mx) mx = a[j];
            if (a[j] > 0) e -= (double)a[j] * log((double)a[j]);
        }
        char want[120];
        snprintf(want, sizeof want, "head %d: — 1.00/0.00 %.2f/%.2f\n", h, mx, e);
        if (!strstr(r.out, want)) fail_msg("want ...%s in:\n%s", want, r.out);
    }
    av_npy_free(&w);
    assert_non_null(strstr(r.out, "one-hot = 0); — = every key masked\n"));
    assert_non_null(strstr(r.out, "; 2 rows (1 query × 2 heads) with one visible key left out; 2 rows (1 query × 2 heads)"
                                  " with no visible key left out\n"));
    tu_free(&r);
    /* no such row, no such legend */
    run_attnviz(&r, NULL, "--no-plot", "--no-scale", "--causal", "a b c", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "(uniform over n keys = ln n; one-hot = 0)\n"));
    assert_null(strstr(r.out, "—"));
    tu_free(&r);
    rm_rf(dir);
}

/* -v prints Q, K, V and S of heads 0 and 1 only (and A of every head); with --heads 4 it printed those of heads 0 and
 * 1 and went on with no word for heads 2 and 3, which a learner looked for. Now a line names the heads left out and
 * where they are; checked here: --dump's Q.npy and scores.npy do hold all 4 heads (shape (4, 6, 128) and (4, 6, 6)
 * for 6 tokens, d_model 512), and with 2 heads there is no such line. */
static void test_verbose_names_the_heads_it_leaves_out(void **state) {
    (void)state;
    char *d = make_tmpdir();
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-v", "--color", "never", "--heads", "4", "--dump", d, "我爱深度学习", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    const char *qkv = "      (Q, K and V of heads 2..3 not printed: -v prints heads 0 and 1; --dump DIR writes all 4)\n";
    const char *sc = "      (S of heads 2..3 not printed: -v prints heads 0 and 1; --dump DIR writes all 4)\n";
    if (!strstr(r.out, qkv) || !strstr(r.out, sc)) fail_msg("4 heads:\n%s", r.out);
    assert_true(strstr(r.out, "V[head 1]") < strstr(r.out, qkv) && strstr(r.out, qkv) < strstr(r.out, "[6] scores"));
    assert_null(strstr(r.out, "Q[head 2]"));
    tu_free(&r);
    av_npy q = load(d, "Q.npy"), s = load(d, "scores.npy");
    assert_int_equal(q.ndim, 3);
    assert_int_equal(q.shape[0], 4);
    assert_int_equal(s.shape[0], 4);
    av_npy_free(&q);
    av_npy_free(&s);
    rm_rf(d);
    run_attnviz(&r, NULL, "--no-plot", "-v", "--color", "never", "-d", "6", "--heads", "3", "我爱深", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "      (S of head 2 not printed: -v prints heads 0 and 1; --dump DIR writes all 3)\n"))
        fail_msg("3 heads:\n%s", r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-v", "--color", "never", "--heads", "2", "我爱深", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "V[head 1]"));
    assert_null(strstr(r.out, "not printed"));
    tu_free(&r);
    /* a typed --kernel flash refuses --dump ("keeps no (T, T) attention weights"): the line said "--dump DIR" to a
     * learner whose command then failed (a review of the change); it names --kernel blas, and that command runs */
    run_attnviz(&r, NULL, "--no-plot", "-v", "--color", "never", "--kernel", "flash", "--heads", "4", "我爱深度学习",
                NULL);
    assert_int_equal(r.code, 0);
    const char *fl = "      (Q, K and V of heads 2..3 not printed: -v prints heads 0 and 1; --kernel blas --dump DIR "
                     "writes all 4)\n";
    if (!strstr(r.out, fl)) fail_msg("--kernel flash:\n%s", r.out);
    tu_free(&r);
    d = make_tmpdir();
    run_attnviz(&r, NULL, "--no-plot", "-q", "--kernel", "flash", "--heads", "4", "--kernel", "blas", "--dump", d,
                "我爱深度学习", NULL);
    if (r.code != 0) fail_msg("the command the line gives: exit %d: %s", r.code, r.err);
    tu_free(&r);
    q = load(d, "Q.npy");
    assert_int_equal(q.shape[0], 4);
    av_npy_free(&q);
    rm_rf(d);
}

/* A fully masked query was counted once per head and called rows "counted over all heads": with 8 heads, --causal
 * and an --attn-mask whose row 0 is [1 1 1 1], query 0 alone sees no key, in each of the 8 heads, and the trace
 * said "8 rows, counted over all heads, have every key masked" and "8 rows with no visible key left out", which a
 * learner read as 8 queries of a 4-token sentence. By hand: 1 query × 8 heads = 8 rows of the (8, 4, 4) weights. */
static void test_fully_masked_count_names_queries_and_heads(void **state) {
    (void)state;
    char *dir = make_tmpdir(), path[4200];
    snprintf(path, sizeof path, "%s/m.npy", dir);
    const unsigned char m[16] = {1, 1, 1, 1};
    write_bool_mask(path, 4, m);
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-v", "--color", "never", "--heads", "8", "--causal", "--attn-mask", path,
                "I love deep learning", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "  8 rows (1 query × 8 heads) have every key masked: weights all 0, output row 0 (no NaN)\n") ||
        !strstr(r.out, "; 8 rows (1 query × 8 heads) with no visible key left out\n") || strstr(r.out, "counted over"))
        fail_msg("8 heads:\n%s", r.out);
    tu_free(&r);
    /* the flash kernel's line */
    run_attnviz(&r, NULL, "--no-plot", "--color", "never", "--heads", "8", "--causal", "--kernel", "flash",
                "--attn-mask", path, "I love deep learning", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "  8 rows (1 query × 8 heads) saw no key at all: l = 0, output row 0 (never NaN)\n"))
        fail_msg("flash:\n%s", r.out);
    tu_free(&r);
    /* one head: one row, said as before without the heads */
    run_attnviz(&r, NULL, "--no-plot", "--color", "never", "--causal", "--attn-mask", path, "I love deep learning", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "  1 row has every key masked: weights all 0, output row 0 (no NaN)\n"))
        fail_msg("1 head:\n%s", r.out);
    tu_free(&r);
    rm_rf(dir);
}

static void test_compare_writes_summary_and_figure(void **state) {
    (void)state;
    const char *kinds[] = {"scale", "positions", "rope-style"};
    for (int k = 0; k < 3; k++) {
        char *dir = make_tmpdir();
        tu_result r;
        run_attnviz(&r, NULL, "-o", dir, "--heads", "2", "--compare", kinds[k], "我爱深度学习", NULL);
        assert_int_equal(r.code, 0);
        assert_non_null(strstr(r.out, "mean max weight"));
        assert_non_null(strstr(r.out, "max |ΔA| vs first"));
        char path[4200];
        snprintf(path, sizeof path, "%s/compare_%s.png", dir, kinds[k]);
        assert_true(file_exists(path));
        tu_free(&r);
        rm_rf(dir);
    }
}

/* The rows of --compare's tables, from the line after start up to the first line starting with "  (". */
static void compare_rows(char *out, size_t n, const char *trace, const char *start) {
    const char *a = strstr(trace, start), *b;
    out[0] = 0;
    if (!a || !(a = strchr(a, '\n'))) return;
    b = strstr(a, "\n  (");
    size_t len = b ? (size_t)(b - a) : strlen(a);
    while (len && a[len - 1] == '\n') len--;
    if (len >= n) len = n - 1;
    memcpy(out, a, len);
    out[len] = 0;
}

/* <pad> tokens are masked as keys, so the real rows' weights do not depend on how many there are; but max
 * |ΔA| and order's check read the <pad> query rows too, which see the words from their own positions: on
 * 'I love you' --compare positions gave RoPE 0.1159 with --pad-to 3 and 0.4586 with --pad-to 16, and order's
 * rope 0.119 and 0.288, under a footnote saying the table reads the 3 real rows (a learner's pass). Every
 * number of the tables is now the same whatever the padding. */
static void test_compare_tables_do_not_depend_on_padding(void **state) {
    (void)state;
    const char *kinds[] = {"scale", "positions", "rope-style", "order"};
    for (int k = 0; k < 4; k++) {
        const char *start = k == 3 ? "  check: " : "  setting ";
        char rows[2][2048];
        for (int p = 0; p < 2; p++) {
            tu_result r;
            run_attnviz(&r, NULL, "--no-plot", "-q", "-H", "2", "--pad-to", p ? "16" : "3", "--compare", kinds[k],
                        "I love you", NULL);
            assert_int_equal(r.code, 0);
            compare_rows(rows[p], sizeof rows[p], r.out, start);
            if (!rows[p][0]) fail_msg("--compare %s: no table in:\n%s", kinds[k], r.out);
            tu_free(&r);
        }
        if (strcmp(rows[0], rows[1]))
            fail_msg("--compare %s, --pad-to 3:%s\n--pad-to 16:%s", kinds[k], rows[0], rows[1]);
    }
}

/* --positions rope's refusal of d_model 10 with 2 heads, worked by hand: d_k = 10 / 2 = 5 is odd; the multiples of
 * 2·2 = 4 around 10 are 8 and 12, and the head counts h around 2 with 10 / h even are 1 (d_k 10) and 5 (d_k 2). */
#define ROPE_10_2                                                                                                   \
    "RoPE rotates pairs of dimensions, so d_k must be even; d_k = d_model / heads = 10 / 2 = 5; with 2 heads give " \
    "--d-model 8 or 12 (multiples of 2·heads, for an even d_k), or keep 10 with --heads 1 or 5"

/* RoPE rotates pairs of dimensions, so d_model 10 with 2 heads (d_k = 5)
 * cannot run it: positions and order leave it out and say so on stderr (with
 * --positions rope's choices, ROPE_10_2), in the table and in the figure's
 * title, instead of dropping it silently. */
static void test_compare_says_rope_is_left_out_for_an_odd_d_k(void **state) {
    (void)state;
    const char *why = "RoPE needs an even d_k; d_k = d_model / heads = 10 / 2 = 5";
    const char *kinds[] = {"positions", "order"};
    for (int k = 0; k < 2; k++) {
        char *dir = make_tmpdir(), note[400], path[4200];
        tu_result r;
        run_attnviz(&r, NULL, "-o", dir, "--format", "svg", "--d-model", "10", "--heads", "2", "--compare", kinds[k],
                    "a b c", NULL);
        assert_int_equal(r.code, 0);
        snprintf(note, sizeof note, "attnviz: note: --compare %s leaves out rope: %s\n", kinds[k], ROPE_10_2);
        if (!strstr(r.err, note)) fail_msg("--compare %s: stderr lacks '%s':\n%s", kinds[k], note, r.err);
        snprintf(note, sizeof note, "%s left out: %s)\n", k ? "(positions rope is" : "(RoPE is", why);
        if (!strstr(r.out, note)) fail_msg("--compare %s: the table lacks '%s'", kinds[k], note);
        snprintf(path, sizeof path, "%s/compare_%s.svg", dir, kinds[k]);
        char *svg = tu_slurp_file(path, NULL);
        assert_non_null(svg);
        if (!strstr(svg, why)) fail_msg("%s: the title does not say why RoPE is left out", path);
        free(svg);
        tu_free(&r);
        rm_rf(dir);
    }
}

/* --compare rope-style refused an odd d_k without the choices --positions rope gives (a known fault): `--no-plot -d 10
 * --heads 2 --compare rope-style "I love you"` said only "--compare rope-style needs RoPE, which needs an even d_k;
 * d_k = 10 / 2 = 5". Every refusal of an odd d_k for RoPE now shares av_rope_dk_check: the same line as --positions
 * rope (ROPE_10_2, by hand), and with --weights fixing d_model 8 and 8 heads (d_k 1) only the head counts: of those
 * with 8 / h even (1, 2, 4) the nearest below 8 is 4, and none above 8 divides it. */
static void test_every_odd_d_k_refusal_for_rope_gives_the_choices(void **state) {
    (void)state;
    static const struct { const char *args[10], *says; } runs[] = {
        {{"-d", "10", "--heads", "2", "--compare", "rope-style", "I love you"}, "--compare rope-style: " ROPE_10_2},
        {{"-d", "10", "--heads", "2", "--positions", "rope", "I love you"}, ROPE_10_2},
        {{"-d", "10", "--heads", "2", "--positions", "rope", "--compare", "scale", "I love you"}, ROPE_10_2},
        {{"--train", "reverse", "-d", "10", "--heads", "2", "--positions", "rope"}, ROPE_10_2},
        {{"-w", "assets/weights/identity-d8", "-d", "8", "-H", "8", "--compare", "rope-style", "a b"},
         "--compare rope-style: RoPE rotates pairs of dimensions, so d_k must be even; d_k = d_model / heads = 8 / 8 = "
         "1; --weights fixes d_model, so keep 8 with --heads 4"},
    };
    const char *src = getenv("ATTNVIZ_SRCDIR");
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        const char *a[10];
        char weights[4200];
        for (int k = 0; k < 10; k++) {
            a[k] = runs[i].args[k];
            if (a[k] && !strcmp(a[k], "assets/weights/identity-d8") && src) {
                snprintf(weights, sizeof weights, "%s/%s", src, a[k]);
                a[k] = weights;
            }
        }
        tu_result r;
        char *dir = make_tmpdir();
        run_attnviz(&r, NULL, "--no-plot", "-o", dir, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], NULL);
        char want[600];
        snprintf(want, sizeof want, "attnviz: error: %s\n", runs[i].says);
        if (r.code != 2 || strcmp(r.err, want) != 0)
            fail_msg("run %zu: want exit 2 and\n%s\ngot exit %d and\n%s", i, want, r.code, r.err);
        tu_free(&r);
        rm_rf(dir);
    }
}

/* 1 if s is valid UTF-8 (the whole of it). */
static int valid_utf8(const char *s) { return av_utf8_check(s, strlen(s), &(av_err){{0}}) == AV_OK; }

/* A pasted spec of 3000 characters is quoted shortened (80 columns, cut at a whole character, then "…"), so the
 * error keeps its hint: it was cut at av_err's 512 bytes in the middle of a '、' and lost the hint (a tester's
 * report). '、' is 2 columns: 39 of them and "…" are 79 columns. The same for a long -f path's iconv advice. */
static void test_explain_long_spec_keeps_its_hint(void **state) {
    (void)state;
    char *spec = malloc(3 * 3000 + 1), *p = spec;
    for (int i = 0; i < 3000; i++, p += 3) memcpy(p, "\xE3\x80\x81", 3); /* 、 */
    *p = 0;
    char want[512] = "attnviz: error: --explain '";
    for (int i = 0; i < 39; i++) strcat(want, "、");
    strcat(want, "…' must be QUERY,KEY (token indices or token text), e.g. 1,0 or 爱,我; the enumeration comma "
                 "'、' does not separate them: type ',' or '，'\n");
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--explain", spec, "我 爱", NULL);
    assert_int_equal(r.code, 2);
    if (strcmp(r.err, want) != 0 || !valid_utf8(r.err)) fail_msg("got:\n%s\nwant:\n%s", r.err, want);
    tu_free(&r);
    /* a key of 3000 letters: 80 columns would not leave room for "…", so 79 letters and "…" */
    spec[0] = '1', spec[1] = ',';
    memset(spec + 2, 'x', 3000);
    spec[3002] = 0;
    char *key = strstr(strcpy(want, "attnviz: error: --explain key '"), "'") + 1;
    memset(key, 'x', 79);
    strcpy(key + 79, "…' is neither a token of the sentence nor an index 0..1\n");
    run_attnviz(&r, NULL, "-q", "--no-plot", "--explain", spec, "我 爱", NULL);
    assert_int_equal(r.code, 2);
    if (strcmp(r.err, want) != 0) fail_msg("got:\n%s\nwant:\n%s", r.err, want);
    tu_free(&r);
    free(spec);
    /* -f with a long path (3 folders of 80 '目', 240 bytes each) of GBK bytes: the path is quoted cut to 120 bytes
     * at a whole character, and the message ends with the iconv advice */
    char *dir = make_tmpdir(), path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (int d = 0; d < 3; d++) {
        strcat(path, "/");
        for (int i = 0; i < 80; i++) strcat(path, "目");
        assert_int_equal(mkdir(path, 0700), 0);
    }
    strcat(path, "/s.txt");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("\xCE\xD2\xB0\xAE\n", f); /* 我爱 in GBK */
    fclose(f);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-f", path, NULL);
    assert_int_equal(r.code, 2);
    /* the advice is a command that runs as typed: iconv reads the file and attnviz its output ("iconv -f ENC -t UTF-8
     * FILE > text.txt" named no encoding) */
    const char *tail = " | attnviz -f - (another encoding: put its name for GBK: BIG5 (Traditional Chinese), SHIFT_JIS "
                       "(Japanese), LATIN1 (Western European))\n";
    size_t n = strlen(r.err), nt = strlen(tail);
    if (!valid_utf8(r.err) || n < nt || strcmp(r.err + n - nt, tail) != 0 ||
        !strstr(r.err, "; if it is GBK (Simplified Chinese), convert it with: iconv -f GBK -t UTF-8 "))
        fail_msg("got:\n%s", r.err);
    tu_free(&r);
    rm_rf(dir);
}

/* Standard input that is not UTF-8 gets a command that runs as typed: "iconv -f ENC -t UTF-8 | attnviz -f -" gave
 * iconv no input, so it waited at the terminal (a tester's pass). Redirected from a file (`attnviz -f - < FILE`),
 * iconv reads that file; through a pipe, iconv goes in the pipe. The same for a UTF-16 byte-order mark. The
 * encodings by hand: 我爱 is GBK CE D2 B0 AE (GB2312 rows 0xB0-0xF7); 學習 is Big5 BE C7 B2 DF and 一 A4 40. */
static void test_stdin_encoding_advice_runs_as_typed(void **state) {
    (void)state;
    char *dir = make_tmpdir(), path[4200], cmd[13000], errf[4300];
    struct {
        const char *bytes, *want;
        size_t n;
    } cases[] = {
        {"\xCE\xD2\xB0\xAE\n", "; if it is GBK (Simplified Chinese), convert it with: iconv -f GBK -t UTF-8 %s | "
                                "attnviz -f - (another encoding: put its name for GBK: BIG5 (Traditional Chinese), "
                                "SHIFT_JIS (Japanese), LATIN1 (Western European))\n", 5},
        {"\xBE\xC7\xB2\xDF\xA4\x40", "; if it is BIG5 (Traditional Chinese), convert it with: iconv -f BIG5 -t UTF-8 %s "
                                       "| attnviz -f - (another encoding: put its name for BIG5: GBK (Simplified "
                                       "Chinese), SHIFT_JIS (Japanese), LATIN1 (Western European))\n", 6},
        {"\xFF\xFEh\0i\0", "; attnviz reads UTF-8: convert it first, e.g. iconv -f UTF-16 -t UTF-8 %s | attnviz -f -\n", 6},
    };
    snprintf(path, sizeof path, "%s/s.txt", dir);
    snprintf(errf, sizeof errf, "%s/err.txt", dir);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fwrite(cases[c].bytes, 1, cases[c].n, f);
        fclose(f);
        char want[1024], *got;
        size_t len;
        snprintf(want, sizeof want, cases[c].want, tu_sh_word(path));
        snprintf(cmd, sizeof cmd, "%s -q --no-plot -f - < %s 2> %s", tu_sh_word(tu_bin()), tu_sh_word(path),
                 tu_sh_word(errf));
        assert_int_equal(WEXITSTATUS(system(cmd)), 2);
        got = tu_slurp_file(errf, &len);
        if (!got || !strstr(got, want)) fail_msg("case %zu, redirected: got:\n%s\nwant (in it):\n%s", c, got, want);
        free(got);
        snprintf(cmd, sizeof cmd, "cat %s | %s -q --no-plot -f - 2> %s", tu_sh_word(path), tu_sh_word(tu_bin()),
                 tu_sh_word(errf));
        assert_int_equal(WEXITSTATUS(system(cmd)), 2);
        snprintf(want, sizeof want, cases[c].want, "");
        char *cut = strstr(want, " -t UTF-8 ") + 9; /* through a pipe: "... | iconv -f ENC -t UTF-8 | attnviz -f -" */
        memmove(cut, cut + 1, strlen(cut));
        char *iconv = strstr(want, "iconv -f ");
        memmove(iconv + 6, iconv, strlen(iconv) + 1);
        memcpy(iconv, "... | ", 6);
        got = tu_slurp_file(errf, &len);
        if (!got || !strstr(got, want)) fail_msg("case %zu, piped: got:\n%s\nwant (in it):\n%s", c, got, want);
        free(got);
    }
    rm_rf(dir);
}

/* --explain's hint for a part that is no token but spans several reads the
 * tokens' own texts (av_tokens.text, as a --model tokenizer gives them), and
 * names the tokens by their labels. 我 is UTF-8 E6 88 91 (RFC 3629), so on
 * byte tokens labelled [<0xE6>] [<0x88>] [<0x91>] "我,3" names tokens 0..2.
 * Tokens whose own text is the six characters "<0xE6>" (a byte-level
 * tokenizer.json without GPT-2's pattern can have them) hold no 我: the hint
 * used to turn the labels back into bytes and said they did. Tokens that
 * hold parts of a character are named as the figures label them too
 * (我(1/3), tokenize.h av_tokens_piece_labels). Without texts
 * (the built-in tokenizer, whose labels are its tokens) no byte is read. */
static void test_explain_span_hint_reads_the_tokens_texts(void **state) {
    (void)state;
    char *labels[] = {"<0xE6>", "<0x88>", "<0x91>", "\xE2\x90\xA3>"};
    char *bytes[] = {"\xE6", "\x88", "\x91", " >"}, *literal[] = {"<0xE6>", "<0x88>", "<0x91>", " >"};
    static const char base[] = "--explain query '我' is neither a token of the sentence nor an index 0..3";
    struct { char **text; const char *hint; } cases[] = {
        {bytes, " (the text spans tokens 0..2: [<0xE6>] [<0x88>] [<0x91>], which the figures and the page label "
                "[我(1/3)] [我(2/3)] [我(3/3)]; name one of them)"},
        {literal, ""},
        {NULL, ""},
    };
    for (int c = 0; c < 3; c++) {
        av_tokens toks = {.n = 4, .tok = labels, .text = cases[c].text};
        av_err err = {{0}};
        int qi = -1, kj = -1;
        assert_int_equal(av_explain_parse("我,3", &toks, &qi, &kj, &err), AV_EUSAGE);
        char want[400];
        snprintf(want, sizeof want, "%s%s", base, cases[c].hint);
        if (strcmp(err.msg, want)) fail_msg("case %d: '%s', want '%s'", c, err.msg, want);
    }
    /* typed after a space: "1 我" on a toy model's [␣1] [␣] [<0xE6>] [<0x88>] [<0x91>] */
    char *labels2[] = {"\xE2\x90\xA3" "1", "\xE2\x90\xA3", "<0xE6>", "<0x88>", "<0x91>"};
    char *bytes2[] = {" 1", " ", "\xE6", "\x88", "\x91"};
    av_tokens toks = {.n = 5, .tok = labels2, .text = bytes2};
    av_err err = {{0}};
    int qi = -1, kj = -1;
    assert_int_equal(av_explain_parse("0,1 我", &toks, &qi, &kj, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "--explain key '1 我' is neither a token of the sentence nor an index 0..4 (the text "
                                 "spans tokens 0..4: [␣1] [␣] [<0xE6>] [<0x88>] [<0x91>], which the figures and the "
                                 "page label [␣1] [␣] [我(1/3)] [我(2/3)] [我(3/3)]; name one of them)");
}

/* --explain on a long input prints the keys worth reading, not the whole row: on a 4,000-token file it printed
 * 4,000 table lines, burying the cell's own (a tester's pass). Past 48 keys the table keeps the keys around the
 * key and the query and the 8 largest weights, says which keys it leaves out, and the row max, the row sum
 * and the cell's weight stay those of the whole row (the dump's). */
static void test_explain_long_row_is_cut_to_the_keys_worth_reading(void **state) {
    (void)state;
    enum { T = 200 };
    char text[T * 8] = "", *p = text;
    for (int t = 0; t < T; t++) p += sprintf(p, "%sw%d", t ? " " : "", (t * 7) % 23);
    char *dir = make_tmpdir();
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--color", "never", "--dump", dir, "--explain", "150,3", text, NULL);
    assert_int_equal(r.code, 0);
    av_npy w = load(dir, "weights.npy");
    const float *row = w.data + (size_t)150 * T;
    int lines = 0;
    for (const char *q = strstr(r.out, "      j    key"); q && (q = strchr(q, '\n')) && strncmp(q + 1, "      row max", 13);
         q++)
        lines++;
    if (lines > 40) fail_msg("%d table lines for a %d-key row:\n%s", lines, T, r.out);
    if (!strstr(r.out, "16 of its 200 keys") && !strstr(r.out, " of its 200 keys (around key 3 and query 150"))
        fail_msg("no note of the keys shown:\n%s", r.out);
    if (!strstr(r.out, "not shown)")) fail_msg("no '… (keys A..B not shown)' line:\n%s", r.out);
    /* the largest weight's key is printed, and the cell's line and weight are the whole row's */
    int best = 0;
    for (int j = 1; j < T; j++)
        if (row[j] > row[best]) best = j;
    char line[32];
    snprintf(line, sizeof line, "\n      %-4d ", best);
    if (best != 3 && !strstr(r.out, line)) fail_msg("key %d (largest weight) not printed:\n%s", best, r.out);
    assert_non_null(strstr(r.out, "    → 3    "));
    assert_true((float)value_before(r.out, "(= weights.npy[0, 150, 3])") == row[3]);
    av_npy_free(&w);
    tu_free(&r);
    /* 48 keys or fewer: the whole row, as before */
    run_attnviz(&r, NULL, "-q", "--no-plot", "--explain", "1,3", "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "the whole row 1 of S"));
    assert_null(strstr(r.out, "not shown"));
    tu_free(&r);
    rm_rf(dir);
}

/* Display columns (UTF-8 lead bytes) of s[0..n). */
static int cols_of(const char *s, size_t n) {
    int c = 0;
    for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* --explain's table on an input of 10,005 tokens: a key index of 5 digits (10004) pushed its row's token one
 * column right of the header's "key" (the index column was 4 wide; the long-input tester's pass). Every row's
 * token starts under "key". */
static void test_explain_table_aligned_past_key_9999(void **state) {
    (void)state;
    enum { T = 10005 };
    char *text = malloc((size_t)T * 8), *p = text;
    assert_non_null(text);
    for (int t = 0; t < T; t++) p += sprintf(p, "%sw%d", t ? " " : "", t);
    const char *args[] = {"-q", "--no-plot", "-d", "8", "--color", "never", "--explain", "10004,9998", "-f", "-", NULL};
    tu_result r;
    tu_runv(&r, text, NULL, args);
    free(text);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    const char *head = strstr(r.out, "\n      j ");
    assert_non_null(head);
    head++;
    int key_col = cols_of(head, (size_t)(strstr(head, "key") - head)), rows = 0;
    for (const char *l = strchr(head, '\n') + 1; strncmp(l, "      row max", 13) != 0; l = strchr(l, '\n') + 1) {
        const char *end = strchr(l, '\n');
        assert_non_null(end);
        if (strstr(l, "not shown)") && strstr(l, "not shown)") < end) continue;
        const char *tok = strstr(l, " w");
        assert_true(tok && tok < end);
        if (cols_of(l, (size_t)(tok + 1 - l)) != key_col)
            fail_msg("token at column %d, \"key\" at %d: %.*s", cols_of(l, (size_t)(tok + 1 - l)), key_col,
                     (int)(end - l), l);
        rows++;
    }
    assert_true(rows >= 8);
    assert_non_null(strstr(r.out, "  10004 "));
    tu_free(&r);
}

/* --explain with RoPE says that k is rotated as well as q: only q's line said "after RoPE" (a teacher's pass),
 * and K.npy, which the line prints, holds the rotated keys. Without RoPE neither line says so. */
static void test_explain_says_k_is_rotated_too(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--positions", "rope", "--explain", "1,0", "I love you", NULL);
    assert_int_equal(r.code, 0);
    const char *k = strstr(r.out, "  k_0 = K[0, 0, :] = ");
    assert_non_null(k);
    const char *end = strchr(k, '\n');
    assert_non_null(end);
    if (end - k < 15 || strncmp(end - 15, "   (after RoPE)", 15) != 0) fail_msg("k's line: %.*s", (int)(end - k), k);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--explain", "1,0", "I love you", NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.out, "after RoPE"));
    tu_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_explain_matches_dump),
        cmocka_unit_test(test_explain_long_span_hint_ends_whole),
        cmocka_unit_test(test_explain_by_token_text_and_masked_cell),
        cmocka_unit_test(test_explain_contribution_has_every_shown_entry),
        cmocka_unit_test(test_explain_weight_follows_precision),
        cmocka_unit_test(test_explain_tiny_contribution_in_scientific),
        cmocka_unit_test(test_explain_pad_query_is_ignored_later),
        cmocka_unit_test(test_explain_failed_spec_prints_no_notes),
        cmocka_unit_test(test_explain_notes_once_with_html),
        cmocka_unit_test(test_explain_takes_a_full_width_comma),
        cmocka_unit_test(test_explain_precision_reaches_the_softmax_table),
        cmocka_unit_test(test_explain_span_hint_reads_the_tokens_texts),
        cmocka_unit_test(test_explain_weight_line_is_a_true_equation),
        cmocka_unit_test(test_explain_scale_line_holds_below_float32),
        cmocka_unit_test(test_explain_scale_line_holds_to_its_digits),
        cmocka_unit_test(test_explain_stored_number_is_float32_rounding),
        cmocka_unit_test(test_explain_a_line_holds_to_its_digits),
        cmocka_unit_test(test_explain_tiny_weight_is_not_zero),
        cmocka_unit_test(test_explain_names_files_only_when_dumped),
        cmocka_unit_test(test_order_blindness_is_an_exact_permutation),
        cmocka_unit_test(test_order_blindness_past_64_tokens),
        cmocka_unit_test(test_rope_shift_evidence),
        cmocka_unit_test(test_compare_order_difference_keeps_its_digits),
        cmocka_unit_test(test_terminal_heatmap_colour_rules),
        cmocka_unit_test(test_terminal_heatmap_fits_80_columns),
        cmocka_unit_test(test_show_key_legend_wraps_only_when_full),
        cmocka_unit_test(test_show_lines_end_without_spaces),
        cmocka_unit_test(test_show_narrow_cells_round_as_wide_ones),
        cmocka_unit_test(test_show_in_a_narrow_terminal),
        cmocka_unit_test(test_show_colour_legend_says_score_and_weight),
        cmocka_unit_test(test_show_lines_fit_a_narrow_terminal),
        cmocka_unit_test(test_show_into_a_pipe_says_the_width_is_assumed),
        cmocka_unit_test(test_show_pads_a_cluster_of_wide_jamo_by_its_width),
        cmocka_unit_test(test_show_one_query_left_out),
        cmocka_unit_test(test_show_and_explain_columns_agree_with_the_library),
        cmocka_unit_test(test_man_page_names_the_masked_glyph),
        cmocka_unit_test(test_man_page_kernel_formulas_and_tile_size),
        cmocka_unit_test(test_dump_x_is_before_positional_encoding),
        cmocka_unit_test(test_no_scale_saturation_verdict),
        cmocka_unit_test(test_saturation_rows_keep_their_places),
        cmocka_unit_test(test_fully_masked_count_names_queries_and_heads),
        cmocka_unit_test(test_verbose_names_the_heads_it_leaves_out),
        cmocka_unit_test(test_compare_writes_summary_and_figure),
        cmocka_unit_test(test_compare_says_rope_is_left_out_for_an_odd_d_k),
        cmocka_unit_test(test_compare_tables_do_not_depend_on_padding),
        cmocka_unit_test(test_explain_long_spec_keeps_its_hint),
        cmocka_unit_test(test_stdin_encoding_advice_runs_as_typed),
        cmocka_unit_test(test_explain_long_row_is_cut_to_the_keys_worth_reading),
        cmocka_unit_test(test_terminal_heatmap_follows_cmap),
        cmocka_unit_test(test_terminal_heatmap_256_colours_use_the_grey_ramp),
        cmocka_unit_test_setup_teardown(test_show_says_what_prints_as_zero, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test(test_explain_table_aligned_past_key_9999),
        cmocka_unit_test(test_explain_says_k_is_rotated_too),
        cmocka_unit_test(test_rope_evidence_follows_no_scale),
        cmocka_unit_test(test_verbose_matrices_follow_numpy_format),
        cmocka_unit_test(test_explain_table_columns_have_a_clear_gap),
        cmocka_unit_test(test_explain_follows_numpy_format),
        cmocka_unit_test(test_explain_precision_0_keeps_fixed_point),
        cmocka_unit_test(test_explain_weight_is_never_a_whole_number),
        cmocka_unit_test(test_explain_partial_sums_that_are_not_0_do_not_print_0),
        cmocka_unit_test(test_explain_terms_add_up_to_the_partial_sums),
        cmocka_unit_test(test_every_odd_d_k_refusal_for_rope_gives_the_choices),
        cmocka_unit_test(test_embed_step_says_token_text_not_word),
    };
    return cmocka_run_group_tests_name("teaching mode", tests, NULL, NULL);
}
