/* test_train.c - the tasks, the optimiser and the trainer:
 *   - task formats and targets, worked by hand from the issue's examples;
 *   - the toy vocabulary's byte ids equal GPT-2's (encoder.json: "!" 0,
 *     "3" 18, "a" 64, "Ġ" 220);
 *   - AdamW, clipping and both schedules, worked by hand (the paper's noam
 *     peak for d_model 512, warm-up 4000 is 512^-0.5 · 4000^-0.5 ≈ 6.99e-4);
 *   - the same loss curve, bit for bit, on 1 and 2 threads;
 *   - the induction data's gaps and alphabet rule (a count against the rate worked by hand);
 *   - short schedules on reverse and induction that still learn: held-out loss, accuracy
 *     and the best head's attention on target rise from their step-0 values; on a small
 *     model through the command, induction's layer-1 head ends >= 0.9 on the target.
 * The full defaults (>= 99 % etc.) are measured by `make bench`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <dirent.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gif_lib.h>

#include "app/train.h"
#include "base/parallel.h"
#include "io/fileio.h"
#include "io/safetensors.h"
#include "nn/optim.h"
#include "text/bpe.h"
#include "nn/tasks.h"
#include "nn/train.h"
#include "render/pngout.h"
#include "render/trainfig.h"
#include "testutil.h"

/* The text of tokens[from..to-1]. */
static void text_of(char *out, const av_task_example *ex, int from, int to) {
    out[0] = 0;
    for (int t = from; t < to; t++) {
        char tok[16];
        assert_int_equal(av_toy_token_text(ex->tokens[t], tok), 0);
        strcat(out, tok);
    }
}

static void test_task_formats_from_the_issue(void **state) {
    (void)state;
    av_task_example ex;
    char prompt[128], answer[128];
    av_task_probe(&ex, AV_TASK_REVERSE);
    text_of(prompt, &ex, 0, ex.n_prompt);
    text_of(answer, &ex, ex.n_prompt, ex.T);
    assert_string_equal(prompt, "3 1 4 1 5 >");
    assert_string_equal(answer, " 5 1 4 1 3");
    assert_int_equal(ex.n_answer, 5);
    for (int k = 0; k < 5; k++) { /* query 5+k answers digit 4-k */
        assert_int_equal(ex.answer_q[k], 5 + k);
        assert_int_equal(ex.target[k], 1u << (4 - k));
    }
    av_task_probe(&ex, AV_TASK_SORT);
    text_of(answer, &ex, ex.n_prompt, ex.T);
    assert_string_equal(answer, " 1 1 3 4 5");
    assert_int_equal(ex.target[0], (1u << 1) | (1u << 3)); /* both 1s */
    assert_int_equal(ex.target[4], 1u << 4);               /* the 5 */
    av_task_probe(&ex, AV_TASK_INDUCTION);
    text_of(prompt, &ex, 0, ex.n_prompt);
    text_of(answer, &ex, ex.n_prompt, ex.T);
    assert_string_equal(prompt, "k q a z m k q a");
    assert_string_equal(answer, " z");
    assert_int_equal(ex.answer_q[ex.n_answer - 1], 7);           /* the second "a" */
    assert_int_equal(ex.target[ex.n_answer - 1], 1u << 3);       /* "z", after the first "a" */
}

/* The character a toy token stands for, without its space (" k" and "k"
 * are both 'k', " 3" is '3'). */
static char char_of(int id) {
    char t[16];
    av_toy_token_text(id, t);
    return t[strlen(t) - 1];
}

/* The induction data as tasks.c's comment describes it, checked on 20000
 * draws: 6..14 distinct letters, then a repeat whose first letter occurred
 * at least AV_INDUCTION_MIN_GAP = 6 positions earlier (so no fixed 1- or
 * 2-back head can copy answers); each letter of the segment after the first
 * is the next unused letter of the alphabet (z wraps to a) with probability
 * 1/2, plus the chance that the uniform pick among the 26 - i unused letters
 * lands on it: worked by hand, 1/2 + 1/2 · E[1/(26 - i)] over the segment's
 * positions, about 0.53 (measured 0.5256 over 179857 letters). The bounds
 * 0.48 .. 0.57 tell the rule from uniform letters (about 0.05) and from
 * always taking the next letter (1). */
static void test_induction_data_gaps_and_alphabet_rule(void **state) {
    (void)state;
    av_rng r;
    av_rng_seed(&r, 11);
    long next = 0, letters = 0;
    int seen_gap[15] = {0};
    for (int i = 0; i < 20000; i++) {
        av_task_example ex;
        av_task_sample(&ex, AV_TASK_INDUCTION, &r);
        int n1 = ex.answer_q[0]; /* the first repeated letter */
        assert_true(n1 >= 6 && n1 <= 14);
        int used[26] = {0};
        for (int t = 0; t < n1; t++) { /* the segment: distinct letters */
            int c = char_of(ex.tokens[t]) - 'a';
            assert_false(used[c]);
            if (t > 0) {
                int succ = (char_of(ex.tokens[t - 1]) - 'a' + 1) % 26;
                while (used[succ]) succ = (succ + 1) % 26;
                next += c == succ;
                letters++;
            }
            used[c] = 1;
        }
        int first = -1;
        for (int t = 0; t < n1; t++)
            if (char_of(ex.tokens[t]) == char_of(ex.tokens[n1])) first = t;
        assert_true(first >= 0);
        assert_true(n1 - first >= AV_INDUCTION_MIN_GAP);
        seen_gap[n1 - first]++;
    }
    for (int g = AV_INDUCTION_MIN_GAP; g <= 14; g++) assert_true(seen_gap[g] > 0); /* every gap occurs */
    double rate = (double)next / (double)letters;
    print_message("induction: %ld segment letters, %.4f of them the next unused letter\n", letters, rate);
    assert_true(rate > 0.48 && rate < 0.57);
}

static void test_sampled_tasks_are_well_formed(void **state) {
    (void)state;
    av_rng r;
    av_rng_seed(&r, 5);
    for (int kind = 0; kind < AV_TASK_COUNT; kind++)
        for (int i = 0; i < 2000; i++) {
            av_task_example ex;
            av_task_sample(&ex, (av_task_kind)kind, &r);
            assert_true(ex.T <= av_task_max_T((av_task_kind)kind));
            for (int k = 0; k < ex.n_answer; k++) {
                int q = ex.answer_q[k], label = ex.tokens[q + 1];
                assert_true(ex.target[k] != 0 && ex.target[k] < (1u << (q + 1))); /* earlier keys only */
                for (int j = 0; j <= q; j++) /* a target holds the answer's character */
                    if (ex.target[k] >> j & 1u) assert_int_equal(char_of(ex.tokens[j]), char_of(label));
            }
            if (kind != AV_TASK_INDUCTION) assert_true(ex.n_answer >= 2 && ex.n_answer <= 8);
            for (int k = 0; kind == AV_TASK_INDUCTION && k < ex.n_answer; k++) {
                /* the issue's rule: the answer is the letter after the first occurrence of the query's letter */
                int q = ex.answer_q[k], first = -1;
                for (int j = 0; j < q && first < 0; j++)
                    if (char_of(ex.tokens[j]) == char_of(ex.tokens[q])) first = j;
                assert_true(first >= 0);
                assert_int_equal(char_of(ex.tokens[first + 1]), char_of(ex.tokens[q + 1]));
                assert_true(ex.target[k] >> (first + 1) & 1u);
            }
        }
}

/* The held-out set is kept out of training: drawing from a second stream
 * with av_task_sample_unseen never gives a sequence equal (token by token)
 * to a held-out one, while plain av_task_sample from the same stream does
 * (reverse has only 100 two-digit examples, so repeats are common). */
static void test_heldout_examples_are_never_trained_on(void **state) {
    (void)state;
    enum { N = 300, DRAWS = 3000 };
    static av_task_example held[N];
    av_rng hr, r1, r2;
    av_rng_seed(&hr, 1);
    for (int i = 0; i < N; i++) av_task_sample(&held[i], AV_TASK_REVERSE, &hr);
    av_task_set set;
    av_err err;
    assert_int_equal(av_task_set_init(&set, held, N, &err), 0);
    av_rng_seed(&r1, 2);
    av_rng_seed(&r2, 2);
    int seen_plain = 0, seen_unseen = 0;
    for (int d = 0; d < DRAWS; d++) {
        av_task_example a, b;
        av_task_sample(&a, AV_TASK_REVERSE, &r1);
        av_task_sample_unseen(&b, AV_TASK_REVERSE, &r2, &set);
        for (int i = 0; i < N; i++) {
            seen_plain += a.T == held[i].T && !memcmp(a.tokens, held[i].tokens, sizeof(int) * (size_t)a.T);
            seen_unseen += b.T == held[i].T && !memcmp(b.tokens, held[i].tokens, sizeof(int) * (size_t)b.T);
        }
    }
    print_message("reverse: %d of %d plain draws equal a held-out example; 0 expected with the set: %d\n",
                  seen_plain, DRAWS, seen_unseen);
    assert_true(seen_plain > 10);
    assert_int_equal(seen_unseen, 0);
    av_task_example probe;
    av_task_probe(&probe, AV_TASK_REVERSE);
    assert_int_equal(av_task_set_has(&set, &probe), 0); /* "3 1 4 1 5 > 5 1 4 1 3": 1 in 10^5 of length 5 */
    av_task_set_free(&set);
    assert_int_equal(av_task_set_init(&set, &probe, 1, &err), 0);
    assert_int_equal(av_task_set_has(&set, &probe), 1);
    av_task_set_free(&set);
}

static void test_toy_vocab_ids_are_gpt2s(void **state) {
    (void)state;
    assert_int_equal(av_toy_byte_id('!'), 0);
    assert_int_equal(av_toy_byte_id('3'), 18);
    assert_int_equal(av_toy_byte_id('a'), 64);
    assert_int_equal(av_toy_byte_id(' '), 220);
    assert_int_equal(av_toy_byte_codepoint(' '), 0x120); /* "Ġ" */
    char t[16];
    assert_int_equal(av_toy_token_text(AV_TOY_EOT, t), 0);
    assert_string_equal(t, "<|endoftext|>");
    assert_int_equal(av_toy_token_text(AV_TOY_VOCAB, t), -1);
}

static void test_adamw_one_step_by_hand(void **state) {
    (void)state;
    av_adamw o = {.beta1 = 0.9, .beta2 = 0.999, .eps = 0, .weight_decay = 0.01};
    float p[2] = {1.0f, 1.0f}, g[2] = {0.5f, 0.5f}, m[2] = {0}, v[2] = {0};
    adamw_update(p, g, m, v, 1, &o, 0.1, 1, 1);     /* decays */
    adamw_update(p + 1, g, m + 1, v + 1, 1, &o, 0.1, 1, 0); /* does not */
    /* m = 0.05, v = 0.00025, m̂ = 0.5, v̂ = 0.25: step = 1; p = 1·(1 − 0.1·0.01) − 0.1 */
    assert_true(fabs(m[0] - 0.05) < 1e-8 && fabs(v[0] - 0.00025) < 1e-10);
    assert_true(fabs(p[0] - 0.899) < 1e-6);
    assert_true(fabs(p[1] - 0.9) < 1e-6);
    assert_true(fabs(clip_factor(5.0, 1.0) - 1.0 / (5.0 + 1e-6)) < 1e-12);
    assert_true(clip_factor(0.5, 1.0) == 1.0 && clip_factor(5.0, 0.0) == 1.0);
    /* torch's clip_coef = max_norm / (norm + 1e-6), clamped to 1, also scales a norm just under max_norm:
     * 1 / (1 − 5e-7 + 1e-6) = 1 / (1 + 5e-7) (a reviewer's report: it returned 1 there) */
    assert_true(fabs(clip_factor(1.0 - 5e-7, 1.0) - 1.0 / (1.0 + 5e-7)) < 1e-15);
    assert_true(clip_factor(1.0 - 2e-6, 1.0) == 1.0);
}

static void test_schedules_by_hand(void **state) {
    (void)state;
    av_adamw o = {.schedule = AV_SCHED_NOAM, .lr_max = 1.0, .warmup = 4000, .d_model = 512};
    assert_true(fabs(av_lr_at(&o, 4000) - pow(512, -0.5) * pow(4000, -0.5)) < 1e-12);
    assert_true(fabs(av_lr_at(&o, 4000) - 6.988e-4) < 1e-6);
    assert_true(fabs(av_lr_at(&o, 100) - pow(512, -0.5) * 100 * pow(4000, -1.5)) < 1e-12); /* warm-up: linear */
    assert_true(fabs(av_lr_at(&o, 16000) - pow(512, -0.5) / sqrt(16000)) < 1e-12);        /* then t^-0.5 */
    o = (av_adamw){.schedule = AV_SCHED_COSINE, .lr_max = 1e-3, .lr_min = 1e-4, .warmup = 10, .steps = 110};
    assert_true(fabs(av_lr_at(&o, 5) - 5e-4) < 1e-15);
    assert_true(fabs(av_lr_at(&o, 10) - 1e-3) < 1e-15);
    assert_true(fabs(av_lr_at(&o, 60) - 5.5e-4) < 1e-15); /* half way: the mean of max and min */
    assert_true(fabs(av_lr_at(&o, 110) - 1e-4) < 1e-15);
}

/* The paper's rule (Vaswani et al. 2017, §5.3, eq. 3) written out here, in double, apart from optim.c. */
static double noam_by_hand(double factor, int d_model, int warmup, int step) {
    return factor * (1.0 / sqrt((double)d_model)) * fmin(1.0 / sqrt((double)step), step / (warmup * sqrt((double)warmup)));
}

/* Cosine from lr down to lr/10 over `steps` steps with no warm-up, written out here apart from optim.c:
 * lr/10 + (lr − lr/10)·(1 + cos(π t / steps))/2. */
static double cosine_by_hand(double lr, int steps, int step) {
    return lr / 10 + (lr - lr / 10) * 0.5 * (1 + cos(M_PI * step / (double)steps));
}

/* Every step row (step > 0) of train.csv at path: its lr column against the lr the test expects,
 * noam_by_hand(factor, 16, 5, step) when noam is 1, cosine_by_hand(factor, 8, step) when 2, else
 * factor at every step. Returns the rows checked. */
static int csv_lr_rows_follow(const char *path, int noam, double factor) {
    char *csv = tu_slurp_file(path, NULL);
    assert_non_null(csv);
    int rows = 0;
    for (char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        int step;
        double lr;
        assert_int_equal(sscanf(line + 1, "%d,", &step), 1);
        if (step == 0) continue; /* no batch, no lr: the cell is empty */
        assert_int_equal(sscanf(line + 1, "%d,%lf,", &step, &lr), 2);
        double want = noam == 1 ? noam_by_hand(factor, 16, 5, step) : noam == 2 ? cosine_by_hand(factor, 8, step) : factor;
        if (fabs(lr - want) > 1e-8 * want) fail_msg("%s step %d: lr %.9g, expected %.9g", path, step, lr, want);
        rows++;
    }
    free(csv);
    return rows;
}

/* --schedule noam without --lr: the factor is 1, the paper's, so the peak lr (at step = warm-up) is
 * d_model^-0.5 · warmup^-0.5. It used the task's peak --lr 6e-3 as the factor, so d_model 64 with
 * warm-up 200 peaked at 5.3e-5 and the model barely learned. An explicit --lr is the factor. */
static void test_noam_factor_is_1_unless_lr_is_given(void **state) {
    (void)state;
    av_train_opts o = {.task = AV_TASK_REVERSE, .schedule = AV_SCHED_NOAM};
    av_train_fill_defaults(&o);
    assert_true(o.lr == 1.0);
    av_adamw a = {.schedule = AV_SCHED_NOAM, .lr_max = o.lr, .warmup = o.warmup, .d_model = o.d_model};
    static const int steps[] = {1, 7, 100, 200, 201, 1000, 4000};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        double want = noam_by_hand(1.0, 64, 200, steps[i]);
        if (fabs(av_lr_at(&a, steps[i]) - want) > 1e-12 * want)
            fail_msg("noam at step %d: %.17g, the rule gives %.17g", steps[i], av_lr_at(&a, steps[i]), want);
    }
    assert_true(fabs(noam_by_hand(1.0, 64, 200, 200) - 8.8388e-3) < 1e-7); /* 1/(8·√200) */
    av_train_opts given = {.task = AV_TASK_REVERSE, .schedule = AV_SCHED_NOAM, .lr = 2.0};
    av_train_fill_defaults(&given);
    assert_true(given.lr == 2.0);
    av_train_opts cosine = {.task = AV_TASK_REVERSE}; /* the other schedules keep the task's peak lr */
    av_train_fill_defaults(&cosine);
    assert_true(cosine.lr == 6e-3);
}

/* The same through the command: the header prints the rule and its real peak, and train.csv's lr
 * column follows the rule with factor 1 (then with --lr 2, factor 2). */
static void test_cli_train_noam_header_and_trace(void **state) {
    tu_fixture *f = *state;
    for (int k = 0; k < 2; k++) {
        double factor = k ? 2.0 : 1.0;
        tu_result r;
        const char *dir = tu_in(f, k ? "two" : "one");
        if (k) run_attnviz(&r, NULL, "--train", "reverse", "--schedule", "noam", "--lr", "2", "--steps", "12",
                           "--warmup", "5", "--d-model", "16", "--batch", "4", "-o", dir, NULL);
        else run_attnviz(&r, NULL, "--train", "reverse", "--schedule", "noam", "--steps", "12", "--warmup", "5",
                         "--d-model", "16", "--batch", "4", "-o", dir, NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        char want[200];
        snprintf(want, sizeof want, "AdamW lr = %g · 16^-0.5 · min(step^-0.5, step · 5^-1.5) (noam; peak %.3g at step 5)",
                 factor, noam_by_hand(factor, 16, 5, 5)); /* 0.112 with factor 1: 1/(4·√5) */
        if (!strstr(r.out, want)) fail_msg("the header does not say '%s':\n%s", want, r.out);
        tu_free(&r);
        char csv_path[4200];
        snprintf(csv_path, sizeof csv_path, "%s/train.csv", dir);
        assert_int_equal(csv_lr_rows_follow(csv_path, 1, factor), 12);
    }
}

/* --compare sets what it compares in each variant itself, so the same option given by hand is ignored:
 * `--train reverse --compare scale --no-scale` trained both variants without a word. Now each such
 * option warns as every other unused option does, with --train (scale, norm, positions) and without
 * (the single-layer --compare scale); the run goes on (exit 0). The warnings name the variants that
 * app/train.c compare_variants and app/compare.c settings really run. */
static void test_cli_compare_warns_about_the_option_it_compares(void **state) {
    tu_fixture *f = *state;
    static const struct { const char *what, *opt, *val, *warning; } cases[] = {
        {"scale", "--no-scale", NULL, "--no-scale has no effect with --compare scale: it trains both, scale and no-scale"},
        {"norm", "--norm", "post", "--norm post has no effect with --compare norm: it trains both, pre-ln and post-ln"},
        {"positions", "--positions", "rope",
         "--positions rope has no effect with --compare positions: it trains learned, sinusoidal and rope"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_result r;
        char dir[16];
        snprintf(dir, sizeof dir, "c%zu", i);
        if (cases[i].val)
            run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "-q",
                        "--compare", cases[i].what, cases[i].opt, cases[i].val, "-o", tu_in(f, dir), NULL);
        else
            run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "-q",
                        "--compare", cases[i].what, cases[i].opt, "-o", tu_in(f, dir), NULL);
        if (r.code != 0) fail_msg("--compare %s %s: exit %d: %s", cases[i].what, cases[i].opt, r.code, r.err);
        if (!strstr(r.err, cases[i].warning)) fail_msg("--compare %s: no warning '%s' in:\n%s", cases[i].what,
                                                       cases[i].warning, r.err);
        tu_free(&r);
    }
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "-q", "--compare",
                "scale", "-o", tu_in(f, "c9"), NULL); /* nothing given by hand: no warning */
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.err, "warning"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--compare", "scale", "--no-scale", "--no-plot", "-q", "I love you", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.err, "--no-scale has no effect with --compare scale: it runs both, scaled ÷√d_k and no scale"))
        fail_msg("single-layer --compare scale --no-scale: %s", r.err);
    tu_free(&r);
}

/* "A folder holds one run" (README): a --compare into a folder where a plain --train had written its
 * model left that model beside the variant folders, and a plain --train into a --compare folder left
 * its variant folders, without a note (a new user's report). They are trained models, not figures, so
 * they are named, not deleted: the note lists exactly what an earlier run left, and nothing after a
 * run into a fresh folder or into a folder of the same kind of run. */
static void test_cli_train_notes_what_an_earlier_run_left(void **state) {
    tu_fixture *f = *state;
    /* stays: figures of the runs whose models stay, which the note names; they were removed ("removed 2 files
     * of an earlier run ... so the folder holds one run: compare_norm.png ...") while the note named the
     * models they show (a new user's report) */
    static const struct { const char *compare, *want, *stays[3]; } steps[] = {
        {NULL, NULL, {NULL}},                 /* fresh folder: no note */
        {NULL, NULL, {NULL}},                 /* the same kind of run again: it replaces everything */
        {"scale", "the model of a plain --train (config.json, model.safetensors, its figures)",
         {"curves.png", "filmstrip.svg", NULL}},
        {NULL, "scale/, no-scale/, compare_scale.png/.svg", {"compare_scale.png", "compare_scale.svg", NULL}},
        {"norm", "scale/, no-scale/, compare_scale.png/.svg, the model of a plain --train",
         {"compare_scale.png", "curves.png", NULL}},
    };
    const char *dir = tu_in(f, "runs");
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        tu_result r;
        if (steps[i].compare)
            run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "--compare",
                        steps[i].compare, "-o", dir, NULL);
        else
            run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "-o", dir,
                        NULL);
        if (r.code != 0) fail_msg("step %zu: exit %d: %s", i, r.code, r.err);
        const char *note = strstr(r.err, "still holds what an earlier run wrote and this one did not replace: ");
        if (!steps[i].want && note) fail_msg("step %zu: a note after a run that left nothing behind:\n%s", i, r.err);
        if (steps[i].want && (!note || !strstr(note, steps[i].want)))
            fail_msg("step %zu: the note should name '%s':\n%s", i, steps[i].want, r.err);
        for (int k = 0; steps[i].stays[k]; k++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", dir, steps[i].stays[k]);
            if (access(path, F_OK) != 0) fail_msg("step %zu: %s was removed:\n%s", i, steps[i].stays[k], r.err);
        }
        tu_free(&r);
    }
    tu_result r; /* -q: no note */
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "-q", "-o", dir,
                NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.err, "still holds"));
    tu_free(&r);
}

/* --help (and the README's and man page's option tables) gave --d-model's and --heads' defaults as
 * 512 and 1, the single-layer tool's, while --train uses 64 and 4 (a new user's report). The numbers
 * the help states for --train must be the ones the training run's first line prints. */
static void test_cli_help_states_the_train_defaults_it_uses(void **state) {
    tu_fixture *f = *state;
    tu_result h, r;
    run_attnviz(&h, NULL, "--help", NULL);
    assert_int_equal(h.code, 0);
    tu_help_unwrap(h.out);
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--batch", "2", "-o", tu_in(f, "t"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    int d_model = 0, heads = 0;
    const char *d = strstr(h.out, "--d-model N"), *hd = strstr(h.out, "--heads N");
    assert_non_null(d);
    assert_non_null(hd);
    const char *dt = strstr(d, "with --train "), *ht = strstr(hd, "with --train ");
    if (!dt || dt > hd || sscanf(dt, "with --train %d", &d_model) != 1) fail_msg("--d-model's help has no --train default");
    if (!ht || sscanf(ht, "with --train %d", &heads) != 1 || strchr(hd, '\n') < ht)
        fail_msg("--heads' help has no --train default");
    char want[64];
    snprintf(want, sizeof want, "%d heads, d_model %d", heads, d_model);
    if (!strstr(r.out, want)) fail_msg("help says '%s' with --train; the run says:\n%s", want, r.out);
    tu_free(&h);
    tu_free(&r);
}

/* The curves' x axis counts training steps, yet a one-step run was drawn with ticks 0, 0.2, ... 1 (and
 * --steps 3 with 0, 0.5, ... 3): steps that do not exist (a new user's report). Every x tick label of
 * curves.svg (the numbers centred under the axes; the y ticks are right-aligned) must be a whole
 * number, and the last step must be one of them. */
static void test_cli_train_curves_tick_whole_steps(void **state) {
    tu_fixture *f = *state;
    static const char *const steps[] = {"1", "3"};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        tu_result r;
        char dir[16], svg[32];
        snprintf(dir, sizeof dir, "s%s", steps[i]);
        snprintf(svg, sizeof svg, "s%s/curves.svg", steps[i]);
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", steps[i], "--d-model", "16", "--batch", "4", "-q", "-o",
                    tu_in(f, dir), NULL);
        if (r.code != 0) fail_msg("--steps %s: exit %d: %s", steps[i], r.code, r.err);
        tu_free(&r);
        char *text = tu_slurp_file(tu_in(f, svg), NULL);
        assert_non_null(text);
        int ticks = 0, last_seen = 0;
        for (const char *p = text; (p = strstr(p, "text-anchor=\"middle\"")) != NULL; p++) {
            const char *gt = strchr(p, '>'), *end = gt ? strstr(gt, "</text>") : NULL;
            if (!end) break;
            char label[64];
            size_t n = (size_t)(end - gt - 1);
            if (n == 0 || n >= sizeof label) continue;
            memcpy(label, gt + 1, n);
            label[n] = 0;
            if (strspn(label, "0123456789.-") != n) continue; /* a title, not a tick */
            ticks++;
            if (strchr(label, '.')) fail_msg("--steps %s: an x tick at step %s", steps[i], label);
            last_seen |= strcmp(label, steps[i]) == 0;
        }
        free(text);
        if (ticks < 6) fail_msg("--steps %s: only %d x tick labels found in %s", steps[i], ticks, svg);
        if (!last_seen) fail_msg("--steps %s: the last step is not a tick", steps[i]);
    }
}

/* --weight-decay λ is AdamW's decoupled decay (Loshchilov and Hutter 2019, Algorithm 2; torch.optim.AdamW):
 * each step multiplies the 2-D tensors by 1 − lr·λ before the Adam update, and leaves biases and
 * LayerNorm alone. After one step from the same start, the Adam update is the same whatever λ, so
 * p(λ=0) − p(λ) = lr·λ·p0 for every 2-D tensor: twice as large for λ 0.5 as for 0.25, and p0 =
 * that difference / (lr·λ) has wte's init spread, N(0, 0.02²) (GPT-2); for a 1-D tensor it is 0. */
static void test_cli_train_weight_decay_is_decoupled(void **state) {
    tu_fixture *f = *state;
    static const char *const wd[3] = {"0", "0.25", "0.5"};
    const double lr = 0.01;
    av_safetensors st[3];
    memset(st, 0, sizeof st);
    av_err err;
    for (int k = 0; k < 3; k++) {
        tu_result r;
        char dir[16], path[32];
        snprintf(dir, sizeof dir, "wd%d", k);
        snprintf(path, sizeof path, "wd%d/model.safetensors", k);
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--schedule", "constant", "--lr", "0.01",
                    "--weight-decay", wd[k], "--d-model", "16", "--batch", "4", "-o", tu_in(f, dir), NULL);
        if (r.code != 0) fail_msg("--weight-decay %s: exit %d: %s", wd[k], r.code, r.err);
        char want[48];
        snprintf(want, sizeof want, "weight decay %s, clip 1.0", wd[k]);
        if (!strstr(r.out, want)) fail_msg("the header does not say '%s':\n%s", want, r.out);
        tu_free(&r);
        if (av_safetensors_open(&st[k], tu_in(f, path), &err)) fail_msg("%s", err.msg);
    }
    int n2 = 0, n1 = 0;
    for (int i = 0; i < st[0].n; i++) {
        const av_st_tensor *t[3] = {&st[0].tensors[i]};
        for (int k = 1; k < 3; k++) assert_non_null(t[k] = av_safetensors_find(&st[k], t[0]->name));
        const float *p[3];
        float *owned[3];
        for (int k = 0; k < 3; k++) assert_int_equal(av_safetensors_f32(&p[k], &owned[k], &st[k], t[k], &err), AV_OK);
        double worst = 0, sumsq = 0;
        for (size_t j = 0; j < t[0]->numel; j++) {
            double d1 = (double)p[0][j] - p[1][j], d2 = (double)p[0][j] - p[2][j];
            if (t[0]->ndim == 1 && (d1 != 0 || d2 != 0))
                fail_msg("%s (1-D) changed with the weight decay: %g", t[0]->name, d2);
            worst = fmax(worst, fabs(d2 - 2 * d1));
            double p0 = d2 / (lr * 0.5);
            sumsq += p0 * p0;
        }
        if (t[0]->ndim == 2) {
            n2++;
            if (worst > 1e-8) fail_msg("%s: p(0) - p(0.5) is not twice p(0) - p(0.25): off by %g", t[0]->name, worst);
            if (!(sumsq > 0)) fail_msg("%s: the weight decay changed nothing", t[0]->name);
            if (!strcmp(t[0]->name, "wte.weight")) {
                double sd = sqrt(sumsq / (double)t[0]->numel); /* 294 x 16 draws of N(0, 0.02^2) */
                if (fabs(sd - 0.02) > 0.002) fail_msg("wte's p0 recovered from the decay has sd %g, not 0.02", sd);
            }
        } else n1++;
        for (int k = 0; k < 3; k++) free(owned[k]);
    }
    for (int k = 0; k < 3; k++) av_safetensors_close(&st[k]);
    assert_true(n2 >= 5); /* wte, wpe, and per layer c_attn, c_proj, c_fc, mlp c_proj */
    assert_true(n1 >= 8); /* biases and LayerNorm */
}

/* A reverse model trained for 1 step (d_model 16, batch 2) in f/reverse: a model folder to point
 * --model at, in a second. */
static void train_tiny_reverse(tu_fixture *f) {
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-q", "-o",
                tu_in(f, "reverse"), NULL);
    if (r.code != 0) fail_msg("--train reverse: exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* With stdout and stderr one pipe (2>&1, as `| less` users type), a note starts a line of its own: stdout was
 * fully buffered there, so a note on stderr landed inside the "ids:" line of a trace over 4 KB (a learner's
 * pass: --generate 30). Both are one file here; every "attnviz: note:" begins a line. */
static void test_cli_notes_do_not_land_inside_piped_lines(void **state) {
    tu_fixture *f = *state;
    train_tiny_reverse(f);
    const char *out = tu_in(f, "both.txt");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1), dup2(fd, 2);
        execl(tu_bin(), tu_bin(), "--model", tu_in(f, "reverse"), "--no-plot", "--generate", "30", "3 1 4 1 5 >",
              (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    size_t n = 0;
    char *text = tu_slurp_file(out, &n);
    assert_non_null(text);
    if (n < 4096) fail_msg("the output is %zu bytes, not past stdio's 4 KB buffer", n);
    int notes = 0;
    for (const char *p = strstr(text, "attnviz: note:"); p; p = strstr(p + 1, "attnviz: note:")) {
        notes++;
        if (p != text && p[-1] != '\n') fail_msg("a note inside a line: ...%.60s", p - 40 > text ? p - 40 : text);
    }
    assert_true(notes > 0);
    free(text);
}

/* In a pipe, --train's stdout is the same for two runs of one command: it carried tqdm's time estimate
 * on every tenth's line ("step 10     loss 2.4894  lr 0.00596  |grad| 1.01  00:01<00:10, 8.44 steps/s"),
 * and one more line once 3 s had passed, so `attnviz --train reverse --steps 100 -o d > log` twice gave
 * two logs that differed on 9 lines (a researcher's pass, scripting runs and diffing their logs). The
 * estimate now goes to stderr, "step N/STEPS elapsed<remaining, rate", after the line it times. By hand:
 * 20 steps print a tenth every 2 steps, so step 6 (a tenth, and not a log-spaced snapshot step: those
 * are 0 to 5, 7, ...) has its line on stdout without an estimate and "step 6/20" on stderr. */
static void test_cli_piped_train_stdout_has_no_timing(void **state) {
    tu_fixture *f = *state;
    char *out[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "20", "--d-model", "16", "--batch", "2", "-o",
                    tu_in(f, "reverse"), NULL);
        if (r.code != 0) fail_msg("--train reverse: exit %d: %s", r.code, r.err);
        if (strstr(r.out, "steps/s") || strstr(r.out, "s/step") || strchr(r.out, '<'))
            fail_msg("run %d: a time estimate on stdout:\n%s", k + 1, r.out);
        const char *line = strstr(r.out, "\nstep 6      loss ");
        if (!line) {
            fail_msg("run %d: no progress line for step 6 on stdout:\n%s", k + 1, r.out);
            return; /* not reached: for the compiler, which read strchr(NULL + 1) below (-Wstringop-overread) */
        }
        const char *end = strchr(line + 1, '\n');
        assert_non_null(end);
        if (!strstr(line, "|grad| ") || strstr(line, "|grad| ") > end) fail_msg("step 6's line: %.*s", (int)(end - line), line);
        const char *est = strstr(r.err, "step 6/20  ");
        if (!est || (est != r.err && est[-1] != '\n')) fail_msg("run %d: no estimate line for step 6 on stderr:\n%s", k + 1, r.err);
        if (!strstr(est, "steps/s") && !strstr(est, "s/step")) fail_msg("run %d: step 6's estimate: %.60s", k + 1, est);
        out[k] = strdup(r.out);
        tu_free(&r);
    }
    assert_string_equal(out[0], out[1]);
    free(out[0]), free(out[1]);
}

/* The PNG at path has a Title text holding want (fails naming the title otherwise). */
static void expect_png_title_has(const char *path, const char *want) {
    av_png_image img;
    av_err err;
    assert_int_equal(av_png_read_texts(path, &img, &err), AV_OK);
    const char *title = av_png_image_text(&img, "Title");
    if (!title || !strstr(title, want)) fail_msg("%s's title: %s", path, title ? title : "(none)");
    av_png_image_free(&img);
}

/* "--model ." from inside a trained folder names the folder in every title: it said "trained toy model ."
 * (a teacher's pass: slides from two models could not be told apart). Now "reverse (.)", realpath's last
 * part with what was typed; "--model DIR" keeps DIR as typed. */
static void test_cli_model_dot_names_the_folder(void **state) {
    tu_fixture *f = *state;
    train_tiny_reverse(f);
    tu_result r;
    char *bin = realpath(tu_bin(), NULL), *old_bin = getenv("ATTNVIZ_BIN") ? strdup(getenv("ATTNVIZ_BIN")) : NULL;
    char old_cwd[4096];
    assert_non_null(bin);
    assert_non_null(getcwd(old_cwd, sizeof old_cwd));
    assert_int_equal(setenv("ATTNVIZ_BIN", bin, 1), 0); /* the child runs from the model's folder */
    assert_int_equal(chdir(tu_in(f, "reverse")), 0);
    run_attnviz(&r, NULL, "--model", ".", "--figures", "model", "-q", "-o", tu_in(f, "out"), "3 1 >", NULL);
    assert_int_equal(chdir(old_cwd), 0);
    if (old_bin) setenv("ATTNVIZ_BIN", old_bin, 1);
    else unsetenv("ATTNVIZ_BIN");
    free(old_bin);
    free(bin);
    if (r.code != 0) fail_msg("--model .: exit %d: %s", r.code, r.err);
    tu_free(&r);
    expect_png_title_has(tu_in(f, "out/model.png"), "trained toy model reverse (.) (attnviz --train reverse");
}

/* --model with a folder name one or two letters off a trained folder beside it names that folder:
 * "--model runs/revers" said only "no such folder" (a Chinese-speaking tester's pass). Only a sibling
 * that holds config.json, within 2 edits and a third of the name, not one that differs in digits only;
 * the hint replaces the download advice, so the message fits (it was cut). Still exit 2. */
static void test_cli_model_folder_typo_names_the_near_folder(void **state) {
    tu_fixture *f = *state;
    train_tiny_reverse(f);
    tu_result r;
    assert_int_equal(mkdir(tu_in(f, "reverie"), 0755), 0); /* as near, but no model in it */
    static const struct { const char *name, *says; } cases[] = {
        {"revers", "no such folder (did you mean --model %s, which holds a model?)\n"},
        {"revrse/", "no such folder (did you mean --model %s, which holds a model?)"},
        {"rev", "no such folder; a GPT-2"},   /* 4 edits: no guess */
        {"xyzzyq", "no such folder; a GPT-2"},
        {"reverse2", "no such folder; a GPT-2"}, /* numbered folders are no typos of each other */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char want[4200];
        snprintf(want, sizeof want, cases[k].says, tu_sh_word(tu_in(f, "reverse")));
        run_attnviz(&r, NULL, "--model", tu_in(f, cases[k].name), "--no-plot", "3 1 >", NULL);
        if (r.code != 2 || !strstr(r.err, want)) fail_msg("--model %s: exit %d, want '%s' in: %s", cases[k].name,
                                                          r.code, want, r.err);
        tu_free(&r);
    }
}

/* A trained toy model continues any text, and as surely as its task's own: "1 2 3 4 5 6 7 8 9 >" (one
 * digit more than reverse's 2..8) got p 0.9999 for a wrong answer, and letters typed to the reverse
 * model got digits, without a word (a new user's report). Now --model on a folder --train wrote notes
 * an input outside the task's text (the issue's formats: reverse and sort 2-8 digits then ">",
 * induction lowercase letters, sequences of at most 24), naming why, and says nothing for inputs
 * inside it; the run goes on (exit 0). */
static void test_cli_trained_model_notes_input_outside_its_task(void **state) {
    tu_fixture *f = *state;
    static const char *const tasks[2] = {"reverse", "induction"};
    for (int k = 0; k < 2; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "--train", tasks[k], "--steps", "1", "--d-model", "16", "--batch", "2", "-q", "-o",
                    tu_in(f, tasks[k]), NULL);
        if (r.code != 0) fail_msg("--train %s: exit %d: %s", tasks[k], r.code, r.err);
        tu_free(&r);
    }
    static const struct { int task; const char *text, *why; } cases[] = {
        {0, "3 1 4 1 5 >", NULL},
        {0, "3 1 4 1 5 > 5 1 4 1", NULL},                 /* the answer so far: inside */
        {0, "1 2 >", NULL},
        {0, "1 2 3 4 5 6 7 8 >", NULL},
        {0, "1 2 3 4 5 6 7 8 9 >", "9 digits before >; its prompts have 2 to 8"},
        {0, "7 >", "1 digit before >; its prompts have 2 to 8"},
        {0, "k q a", "token 0 [k] is not a digit or >"},
        {0, "3 1 4", "no > after the digits"},
        /* no > at all: the count was said to be "before >" (a new user's report) */
        {0, "1 2 3 4 5 6 7 8 9", "9 digits and no >; its prompts have 2 to 8 digits, then >"},
        /* answer digits that are not the answer so far went without a note (a new user's report) */
        {0, "3 1 4 > 7", "token 4 [␣7] is not the task's answer: reverse of \"3 1 4\" is \"4 1 3\""},
        {0, "3 1 4 > 4 1 2", "token 6 [␣2] is not the task's answer"}, /* was "the answer is complete" */
        {0, "3 1 4 > 4 2 3", "token 5 [␣2] is not the task's answer"},
        /* one digit too many: it said "4 answer digits after > for 3 digits: the answer is complete" (a tester's
         * report: as if the input were a whole example) */
        {0, "3 1 4 > 4 1 3 9", "token 7 [␣9] comes after the whole answer: reverse of \"3 1 4\" is \"4 1 3\", which "
         "ends before it"},
        {0, "3 1 > 1 3 5 5", "token 5 [␣5] comes after the whole answer: reverse of \"3 1\" is \"1 3\", which ends "
         "before it"},
        {0, "3 1 4 1 5 > 5 1 4 2", "token 9 [␣2] is not the task's answer: reverse of \"3 1 4 1 5\" is \"5 1 4 1 3\""},
        /* a whole example, prompt and answer, as training saw it (the film strip's probe is one): inside for its
         * attention; test_cli_whole_example_is_not_outside_its_task checks its own note */
        {0, "3 1 > 1 3", NULL},
        /* a number of two digits is two tokens: the note says so (it said only "has no space before it") */
        {0, "10 2 >", "token 1 [0] has no space before it: '10' is two digits (its numbers are 0 to 9), and the "
         "task's text has one space between tokens"},
        {0, "3 1 4>", "token 3 [>] has no space before it: '4>' is two tokens, and"},
        {0, "3 1 > 1 >", "token 4 [␣>] is a second >"},
        {0, "我 爱 你", "token 0 [<0xE6>] is the first of 3 bytes of '我' (U+6211), not a digit or >"},
        /* a full-width form, as a Chinese input method types it, is named with its half-width twin (a Chinese
         * reader's report): "３" was "token 0 [<0xEF>] is not a digit or >", and the space before a "＞" was
         * blamed ("token 5 [␣] is whitespace on its own") though the text had one space there */
        {0, "３ １ ４ >", "token 0 [<0xEF>] is the first of 3 bytes of '３' (U+FF13), the full-width form of '3': type "
         "the half-width '3' (半角). Its"},
        {0, "3 1 4 1 5 ＞", "token 6 [<0xEF>] is the first of 3 bytes of '＞' (U+FF1E), the full-width form of '>'"},
        {0, "3 1 4 1 5 > 5 1 ４", "token 9 [<0xEF>] is the first of 3 bytes of '４' (U+FF14)"},
        {0, "3\u30001 >", "token 1 [<0xE3>] is the first of 3 bytes of U+3000, the full-width (ideographic) space: "
         "type a half-width space (半角)"},
        {0, "3，1 >", "token 1 [<0xEF>] is the first of 3 bytes of '，' (U+FF0C), the full-width form of ','"},
        /* a list separator gets what to type instead: "3,1,4 >" and "3、1、4 >" were told only that ',' or '、' "is not
         * a digit or >" (a learner's pass); the task's text (docs/train.md) is tokens with one space between them */
        {0, "3,1,4 >", "token 1 [,] is not a digit or >; separate the tokens with one space instead. Its"},
        {0, "3;1;4 >", "token 1 [;] is not a digit or >; separate the tokens with one space instead. Its"},
        {0, "3、1、4 >", "token 1 [<0xE3>] is the first of 3 bytes of '、' (U+3001), not a digit or >; "
         "separate the tokens with one space instead. Its"},
        {0, "3，1 >", "the half-width ',' is not a digit or > either; separate the tokens with one space instead. Its"},
        {1, "k,q,a", "token 1 [,] is not a lowercase letter; separate the tokens with one space instead. Its"},
        {0, "3.1 >", "token 1 [.] is not a digit or >. Its"}, /* not a separator: no such advice */
        /* a '>' look-alike gets what to type instead: "3 1 4 》" (a Chinese input method's '>' in full-width
         * punctuation mode) and "3 1 4 →" were told only "not a digit or >" (a tester's pass); '-' alone is not */
        {0, "3 1 4 》", "token 4 [<0xE3>] is the first of 3 bytes of '》' (U+300B), not a digit or >; the task's "
         "separator is > alone (the ASCII greater-than sign, 半角): type that instead. Its"},
        {0, "3 1 4 →", "token 4 [<0xE2>] is the first of 3 bytes of '→' (U+2192), not a digit or >; the task's "
         "separator is > alone (the ASCII greater-than sign, 半角): type that instead. Its"},
        {0, "3 1 4 ->", "token 4 [-] is not a digit or >; the task's separator is > alone (the ASCII greater-than "
         "sign, 半角): type that instead. Its"},
        {0, "3 1 4 - 1 >", "token 4 [-] is not a digit or >. Its"},
        {1, "k q →", "token 3 [<0xE2>] is the first of 3 bytes of '→' (U+2192), not a lowercase letter. Its"},
        {1, "ｋ ｑ ａ", "token 0 [<0xEF>] is the first of 3 bytes of 'ｋ' (U+FF4B), the full-width form of 'k': type "
         "the half-width 'k' (半角). Its"},
        {1, "k qa z", "token 2 [a] has no space before it: 'qa' is two letters, and the task's text has one space"},
        {1, "k q é", "token 3 [<0xC3>] is the first of 2 bytes of 'é' (U+00E9), not a lowercase letter"},
        /* the half-width twin is suggested only when the task takes it (a tester's report: 'Ｋ' for induction and
         * 'ａ' for reverse said "type the half-width 'K'" / "'a'", which the task refuses too) */
        {1, "Ｋ q a", "token 0 [<0xEF>] is the first of 3 bytes of 'Ｋ' (U+FF2B), the full-width form of 'K', and the "
         "half-width 'K' is not a lowercase letter either. Its"},
        {0, "3 ａ 4 >", "token 2 [<0xEF>] is the first of 3 bytes of 'ａ' (U+FF41), the full-width form of 'a', and the "
         "half-width 'a' is not a digit or > either. Its"},
        /* a combining mark is named by code point: quoted, U+0301 attached itself to the quote ("of '\u0301'") */
        {0, "3 \u0301 4 >", "token 2 [<0xCC>] is the first of 2 bytes of U+0301, a combining mark, not a digit or >. Its"},
        {1, "k q a\u0301", "token 3 [<0xCC>] is the first of 2 bytes of U+0301, a combining mark, not a lowercase "
         "letter. Its"},
        {1, "k q \u20DD", "is the first of 3 bytes of U+20DD, a combining mark, not a lowercase letter. Its"}, /* Me */
        /* whitespace, named as the trace's tokens line names it (from 0, ␣ for a space): a new user's
         * "3 1 4 1 5 > " was "token 7 is \"\"", the tab's token was "3<TAB>1" */
        /* a space before an ASCII character the toy vocabulary merges no space with is left alone by the
         * tokenizer (3, ␣1, ␣4, ␣1, ␣5, ␣, <): the space was blamed ("token 5 [␣] is whitespace on its own")
         * though the text had one space there, as for a full-width character above (a new user's report) */
        {0, "3 1 4 1 5 <", "token 6 [<] is not a digit or >. Its"},
        {0, "3 1 > 1 A", "token 5 [A] is not a digit or >. Its"},
        {1, "k q A", "token 3 [A] is not a lowercase letter. Its"},
        {1, "a < b", "token 2 [<] is not a lowercase letter. Its"},
        {0, "3 1 4 1 5 > ", "token 6 [␣] is whitespace on its own"},
        {0, " 3 1 >", "token 0 [␣3] starts with a space"},
        {0, "3\t1 >", "token 1 [⇥] is whitespace on its own"},
        {0, "3  1   4 >", "token 1 [␣] is whitespace on its own"},
        {1, "k q  a", "token 2 [␣] is whitespace on its own"},
        {1, "k q a z m k q a", NULL},
        {1, "a b a", NULL},
        {1, "a b a b a b", NULL},
        /* a letter seen before must be followed by what followed its first occurrence (the task's rule):
         * after the second q comes a, as after the first; a wrong letter went without a note */
        {1, "k q a z m k q b", "token 7 [␣b] is not the task's answer: after q comes a, the letter after the first q "
         "(token 1)"},
        {1, "a b a c", "token 3 [␣c] is not the task's answer: after a comes b, the letter after the first a (token 0)"},
        {1, "k q a z m k q a z m k q a y", "token 13 [␣y] is not the task's answer: after a comes z"},
        {1, "3 1 >", "token 0 [3] is not a lowercase letter"},
        {1, "a b c d e f g h i j k l m n o p q r s t u v w x", NULL},   /* 24 letters */
        {1, "a b c d e f g h i j k l m n o p q r s t u v w x y", "25 letters; its sequences have at most 24"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_result r;
        run_attnviz(&r, NULL, "--model", tu_in(f, tasks[cases[i].task]), "--no-plot", cases[i].text, NULL);
        if (r.code != 0) fail_msg("\"%s\": exit %d: %s", cases[i].text, r.code, r.err);
        const char *note = strstr(r.err, "this input is outside that: ");
        if (!cases[i].why && note) fail_msg("\"%s\" is inside %s's text, yet:\n%s", cases[i].text,
                                           tasks[cases[i].task], r.err);
        if (cases[i].why && (!note || !strstr(note, cases[i].why)))
            fail_msg("\"%s\": the note should say '%s':\n%s", cases[i].text, cases[i].why, r.err);
        if (cases[i].why && !strstr(r.err, tasks[cases[i].task][0] == 'r' ? "was trained on reverse only (2 to 8 digits"
                                                                          : "was trained on induction only (lowercase"))
            fail_msg("\"%s\": the note does not name the task's text:\n%s", cases[i].text, r.err);
        tu_free(&r);
    }
    for (int k = 0; k < 2; k++) { /* no text: the hint is the task's own text ("--heads 8 ..." was hinted) */
        tu_result r;
        run_attnviz(&r, NULL, "--model", tu_in(f, tasks[k]), NULL);
        char want[4400];
        snprintf(want, sizeof want, "attnviz: error: no input text given; try: attnviz --model %s \"%s\" (the text of "
                 "its task, %s), or -f FILE, or -f - for stdin\n", tu_sh_word(tu_in(f, tasks[k])),
                 k ? "k q a z m k q a" : "3 1 4 1 5 >",
                 tasks[k]);
        if (r.code != 2 || strcmp(r.err, want) != 0) fail_msg("exit %d: '%s'", r.code, r.err);
        tu_free(&r);
    }
    { /* the task's text taken as an option's value (a new user's `--explain "3 1 4 1 5 >"`, the Q,K forgotten)
       * was told "no input text given": --explain's own form (QUERY,KEY) is refused by name, and a free-text
       * option that took the last argument is named; messages by hand from the rule (the value, what is allowed) */
        tu_result r;
        run_attnviz(&r, NULL, "--model", tu_in(f, "reverse"), "--explain", "3 1 4 1 5 >", NULL);
        static const char explain[] = "attnviz: error: --explain '3 1 4 1 5 >' must be QUERY,KEY (token indices or "
                                      "token text), e.g. 1,3 or love,learning\n";
        if (r.code != 2 || strcmp(r.err, explain) != 0) fail_msg("--explain: exit %d: '%s'", r.code, r.err);
        tu_free(&r);
        run_attnviz(&r, NULL, "--model", tu_in(f, "reverse"), "--dump", "3 1 4 1 5 >", NULL);
        char want[4400];
        snprintf(want, sizeof want, "attnviz: error: no input text given (the last argument, '3 1 4 1 5 >', is the "
                 "value of --dump: the text goes after it); try: attnviz --model %s --dump '3 1 4 1 5 >' \"3 1 4 1 5 >\" "
                 "(the text of its task, reverse), or -f FILE, or -f - for stdin\n", tu_sh_word(tu_in(f, "reverse")));
        if (r.code != 2 || strcmp(r.err, want) != 0) fail_msg("--dump: exit %d: '%s'", r.code, r.err);
        tu_free(&r);
    }
    { /* a continuation past the answer gets a note where it leaves the task: 2 digits have 2 answer digits, so
       * generated token 3 at the latest is past it, or an earlier one that is no digit (--generate 10 printed 5
       * more digits without a word); by hand, on a model whose answers are known, test_generate_note_positions */
        tu_result g;
        run_attnviz(&g, NULL, "--model", tu_in(f, "reverse"), "--no-plot", "-q", "--generate", "12", "3 1 >", NULL);
        /* this 1-step model's digits may be wrong ones: "is wrong at" names the first */
        static const char lead[] = "was trained on reverse only; the continuation leaves its task at generated token ",
                          wrong[] = "was trained on reverse only; the continuation is wrong at generated token ";
        const char *note = strstr(g.err, lead), *bad = strstr(g.err, wrong);
        int at = note ? atoi(note + strlen(lead)) : bad ? atoi(bad + strlen(wrong)) : 0;
        note = note ? note : bad;
        char tail[320], some[320]; /* all of them, or (a right digit after a wrong one) "N of the 12 tokens" */
        snprintf(tail, sizeof tail, "The %d tokens from there on are not the task's answer\n", 12 - at + 1);
        snprintf(some, sizeof some, " of the %d tokens from there on are not the task's answer\n", 12 - at + 1);
        if (bad && at <= 2) { /* a wrong digit in the 2-digit answer: the 10 tokens after its end are said apart */
            snprintf(tail, sizeof tail, "The %d token%s from there to the answer's end %s not the task's answer; the "
                     "answer is complete after generated token 2 (2 answer digits for 2 digits), and the 10 tokens "
                     "after it are past the task's text, where it was never trained\n", 3 - at, at == 2 ? "" : "s",
                     at == 2 ? "is" : "are");
            snprintf(some, sizeof some, "1 of the 2 tokens from there to the answer's end is not the task's answer; "
                     "the answer is complete after generated token 2 (2 answer digits for 2 digits), and the 10 "
                     "tokens after it are past the task's text, where it was never trained\n");
        }
        if (g.code != 0 || !note || at < 1 || at > 3 || (!strstr(g.err, tail) && !strstr(g.err, some)))
            fail_msg("exit %d: %s", g.code, g.err);
        tu_free(&g);
        run_attnviz(&g, NULL, "--model", tu_in(f, "reverse"), "--no-plot", "-q", "--generate", "1", "3 1 >", NULL);
        /* the answer's first token: it does not leave the task, though it may be a wrong digit */
        if (g.code != 0 || (g.err[0] && !strstr(g.err, "the continuation is wrong at generated token 1 ")))
            fail_msg("one token: exit %d: %s", g.code, g.err);
        tu_free(&g);
    }
    tu_result r; /* -q prints the continuation, so the note that qualifies it stays (-q hid it) */
    run_attnviz(&r, NULL, "--model", tu_in(f, "reverse"), "--no-plot", "-q", "--generate", "2", "k q a", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "generate") || !strstr(r.err, "this input is outside that: token 0 [k] is not a digit or >"))
        fail_msg("stdout:\n%s\nstderr:\n%s", r.out, r.err);
    tu_free(&r);
    /* An input refused (41 tokens, past n_positions 32) gets its error only: the note came first, then
     * the error, as if the run had gone on. */
    char longer[128] = "";
    for (int k = 0; k < 40; k++) strcat(longer, "3 ");
    strcat(longer, ">");
    run_attnviz(&r, NULL, "--model", tu_in(f, "reverse"), "--no-plot", longer, NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "41 tokens is more than the model's 32 positions")) fail_msg("no error:\n%s", r.err);
    if (strstr(r.err, "note:")) fail_msg("a note about an input that is refused:\n%s", r.err);
    tu_free(&r);
}

/* A --compare whose variant folder is taken by a file (DIR/no-scale, or DIR/rope) is refused before
 * training (exit 1, as -o naming a file), and leaves DIR as it was: it made DIR/scale first and left it
 * empty beside the error (a new user's report). */
static void test_cli_train_compare_refused_leaves_no_empty_folder(void **state) {
    tu_fixture *f = *state;
    static const struct { const char *file, *compare, *made; } cases[] = {
        {"d/no-scale", "scale", "d/scale"},
        {"e/rope", "positions", "e/learned"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char top[8] = {cases[k].file[0], 0};
        mkdir(tu_in(f, top), 0755);
        FILE *fp = fopen(tu_in(f, cases[k].file), "w");
        assert_non_null(fp);
        fputs("notes\n", fp);
        fclose(fp);
        tu_result r;
        run_attnviz(&r, NULL, "--train", "reverse", "--compare", cases[k].compare, "--steps", "2", "--d-model", "16",
                    "--batch", "2", "-q", "-o", tu_in(f, top), NULL);
        if (r.code != 1 || !strstr(r.err, "exists and is not a folder") || r.out[0])
            fail_msg("case %zu: exit %d: %s", k, r.code, r.err);
        tu_free(&r);
        if (access(tu_in(f, cases[k].made), F_OK) == 0) fail_msg("case %zu: %s was left behind", k, cases[k].made);
        assert_int_equal(count_entries(tu_in(f, top)), 1); /* the file, nothing else */
    }
}

/* `mkdir DIR/curves.png` then --train -o DIR: the run trained to its end, then stopped at "cannot write
 * 'DIR/curves.png': Is a directory" with the model written and the figures not (a new user's report).
 * Now a name the run writes, taken by a folder, is refused before training (exit 1, as an unwritable
 * -o), naming it; with --compare, in each variant's folder and compare_WHAT.png/.svg at the top. A
 * folder named config.json was called "a model attnviz did not train" (exit 2): it is a taken name too. */
static void test_cli_train_refuses_output_names_taken_by_folders(void **state) {
    tu_fixture *f = *state;
    static const char *const taken[] = {"a/curves.png", "a/filmstrip.svg", "a/train.csv", "a/attention.gif",
                                        "b/compare_scale.svg", "c/no-scale/filmstrip.png", "a/config.json",
                                        "c/no-scale/config.json"};
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        char dir[8] = {taken[i][0], 0}, made[4200];
        snprintf(made, sizeof made, "%s", tu_in(f, taken[i]));
        for (char *p = made + strlen(tu_in(f, "")) + 1; (p = strchr(p, '/')); p++) { /* mkdir -p */
            *p = 0;
            mkdir(made, 0755);
            *p = '/';
        }
        if (mkdir(made, 0755) != 0) fail_msg("mkdir %s", made);
        tu_result r;
        if (dir[0] == 'a')
            run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "-q", "-o",
                        tu_in(f, dir), NULL);
        else
            run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "-q",
                        "--compare", "scale", "-o", tu_in(f, dir), NULL);
        if (r.code != 1) fail_msg("%s taken: exit %d: %s", taken[i], r.code, r.err);
        char want[4400];
        snprintf(want, sizeof want, "%s is a folder, and the run writes a file of that name there when it ends",
                 tu_sh_word(made));
        if (!strstr(r.err, want)) fail_msg("%s taken:\n%s", taken[i], r.err);
        tu_free(&r);
        char model[4200];
        snprintf(model, sizeof model, "%s/%s", tu_in(f, dir), dir[0] == 'c' ? "no-scale/config.json" : "config.json");
        if (access(model, F_OK) == 0 && strcmp(model, made) != 0) /* the taken config.json is the folder made */
            fail_msg("%s taken, yet it trained and wrote %s", taken[i], model);
        /* nor made the other variant's folder, or the --compare top folder's (c/scale was left empty) */
        if (dir[0] != 'a' && access(tu_in(f, dir[0] == 'c' ? "c/scale" : "b/scale"), F_OK) == 0)
            fail_msg("%s taken, yet it made the folder of variant scale", taken[i]);
        rmdir(made);
    }
}

/* --compare's summary names its best head, as each variant's snapshot lines do ("best L0 H3 0.58"), so a
 * learner can find it in the film strip: it printed only "best head on target 0.58" (last note). For each
 * variant, the summary's value and head are those of the "best" on the variant's last snapshot line. */
static void test_cli_train_compare_names_best_head(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "30", "--d-model", "16", "--batch", "4", "--compare",
                "scale", "-o", tu_in(f, "c"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    static const char *const variants[] = {"scale", "no-scale"};
    for (int v = 0; v < 2; v++) {
        char head[64], want[128];
        snprintf(head, sizeof head, "== --compare scale: %s -> ", variants[v]);
        const char *at = strstr(r.out, head), *last = NULL;
        assert_non_null(at);
        const char *end = strstr(at + 1, "\n== "); /* the next variant's, or the summary after the last */
        if (!end) end = strstr(at, "\nscale       held-out loss");
        assert_non_null(end);
        for (const char *p = at; (p = strstr(p, "\nstep ")) && p < end; p++) last = p;
        assert_non_null(last);
        int l = -1, h = -1;
        double val = -1;
        const char *b = strstr(last, "  best L");
        if (!b || sscanf(b, "  best L%d H%d %lf", &l, &h, &val) != 3) fail_msg("%s: no best on %.200s", variants[v], last);
        snprintf(want, sizeof want, "\n%-11s held-out loss", variants[v]);
        const char *sum = strstr(r.out, want);
        assert_non_null(sum);
        snprintf(want, sizeof want, "best head on target %.2f (L%d H%d)  first snapshot", val, l, h);
        const char *eol = strchr(sum + 1, '\n');
        const char *got = strstr(sum, want);
        if (!got || (eol && got > eol)) fail_msg("%s: want '%s' in %.200s", variants[v], want, sum + 1);
    }
    tu_free(&r);
}

/* A run whose held-out loss ends above where it started (ln V, about 5.68, at initialisation) has
 * diverged: --lr 10 ended at a held-out loss near 110000 with exit 0 and not a word (a new user's
 * report). It still writes its folder (a learner may want to look), exit 0, and warns with the numbers
 * and what to change; a run that learns does not warn. */
static void test_cli_train_warns_when_it_diverges(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--lr", "10", "--steps", "30", "--d-model", "16", "--batch", "4",
                "-q", "-o", tu_in(f, "a"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    const char *w = strstr(r.err, "attnviz: warning: ");
    if (!w || !strstr(w, ": the held-out loss rose from 5.6") || !strstr(w, "at step 30: training diverged; "
                                                                          "try a smaller --lr (now 10)"))
        fail_msg("no warning:\n%s", r.err);
    double from, to;
    const char *p = strstr(w, "rose from ");
    assert_int_equal(sscanf(p, "rose from %lf at step 0 to %lf", &from, &to), 2);
    assert_true(to > from);
    tu_free(&r);
    assert_int_equal(access(tu_in(f, "a/model.safetensors"), F_OK), 0);
    /* the saved model's figures and trace say it diverged, as the warning did: they showed its attention (every
     * weight 0.00 or 1.00) titled "trained toy model ... step 30" like a model that learnt (a new user's report) */
    char *cfg = tu_slurp_file(tu_in(f, "a/config.json"), NULL);
    assert_non_null(cfg);
    if (!strstr(cfg, "\"diverged\":\ttrue")) fail_msg("%s", cfg);
    free(cfg);
    run_attnviz(&r, NULL, "--model", tu_in(f, "a"), "--format", "svg", "-o", tu_in(f, "afig"), "3 1 4 >", NULL);
    if (r.code != 0 || !strstr(r.out, "(trained toy model: attnviz --train reverse, step 30; its training diverged)"))
        fail_msg("exit %d\n%s%s", r.code, r.out, r.err);
    tu_free(&r);
    char *svg = tu_slurp_file(tu_in(f, "afig/model.svg"), NULL);
    assert_non_null(svg);
    if (!strstr(svg, "its training diverged")) fail_msg("model.svg's title does not say it diverged");
    free(svg);
    /* its losses of 100 and more kept the columns: "loss 98.5289 held-out loss 75.6277 accuracy" had lost a
     * space; every loss now takes at most 6 characters ("5.6647", "98.529", "110068", "1.2e+07") */
    run_attnviz(&r, NULL, "--train", "reverse", "--lr", "10", "--steps", "30", "--d-model", "16", "--batch", "4",
                "-o", tu_in(f, "c"), NULL);
    assert_int_equal(r.code, 0);
    int snaps = 0, big = 0;
    for (const char *line = r.out; (line = strstr(line, "\nstep ")); line++) {
        double loss, ho;
        if (!strstr(line, "held-out loss") || strstr(line, "held-out loss") > strchr(line + 1, '\n')) continue;
        const char *l = strstr(line, " loss "), *h = strstr(line, "held-out loss ");
        assert_int_equal(sscanf(l, " loss %lf", &loss), 1);
        assert_int_equal(sscanf(h, "held-out loss %lf", &ho), 1);
        if (h - l != 14 || strncmp(h + 20, "  accuracy", 10) != 0)
            fail_msg("columns moved (loss %g, held-out %g):\n%.*s", loss, ho, (int)strcspn(line + 1, "\n"), line + 1);
        big += ho >= 100;
        snaps++;
    }
    if (snaps < 5 || !big) fail_msg("%d snapshot lines, %d with a held-out loss of 100 or more:\n%s", snaps, big, r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "30", "--d-model", "16", "--batch", "4", "-q", "-o",
                tu_in(f, "b"), NULL); /* the default lr: the loss falls */
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.err, "diverged"));
    tu_free(&r);
    cfg = tu_slurp_file(tu_in(f, "b/config.json"), NULL);
    assert_non_null(cfg);
    assert_null(strstr(cfg, "diverged"));
    free(cfg);
    run_attnviz(&r, NULL, "--model", tu_in(f, "b"), "--no-plot", "3 1 4 >", NULL);
    if (r.code != 0 || !strstr(r.out, "(trained toy model: attnviz --train reverse, step 30)"))
        fail_msg("exit %d\n%s%s", r.code, r.out, r.err);
    tu_free(&r);
}

/* A held-out loss that barely moved is not a divergence: one step of batch 1 at --lr 1e-9 (Post-LN, RoPE,
 * no scale) moved it below train.csv's 9 digits, and the run said "the held-out loss rose from 5.6976 at
 * step 0 to 5.6976 at step 1: training diverged; try a smaller --lr (now 1e-09)", with "diverged": true in
 * config.json, so every --model figure of the folder said so too (a learner's pass). A rise of more than
 * 1 % is one (the test above: --lr 10 ends near 110000). */
static void test_cli_train_tiny_rise_is_not_divergence(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "induction", "--steps", "1", "--batch", "1", "--norm", "post", "--positions",
                "rope", "--no-scale", "--lr", "1e-9", "--d-model", "16", "-q", "-o", tu_in(f, "a"), NULL);
    if (r.code != 0 || strstr(r.err, "diverged")) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *cfg = tu_slurp_file(tu_in(f, "a/config.json"), NULL);
    assert_non_null(cfg);
    if (strstr(cfg, "diverged")) fail_msg("%s", cfg);
    free(cfg);
    run_attnviz(&r, NULL, "--model", tu_in(f, "a"), "--no-plot", "k q a z m k q a", NULL);
    if (r.code != 0 || !strstr(r.out, "(trained toy model: attnviz --train induction, step 1)"))
        fail_msg("exit %d\n%s%s", r.code, r.out, r.err);
    tu_free(&r);
}

/* config.json names the end-of-text token as GPT2Config does, bos_token_id and eos_token_id: without them
 * transformers' GPT2Config takes GPT-2's 50256, outside the toy vocabulary (294 tokens), so a folder loaded there
 * would never stop generating (a researcher's pass). Both must be the id vocab.json gives "<|endoftext|>". */
static void test_cli_train_config_names_end_of_text(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "-q", "-o",
                tu_in(f, "m"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *vocab = tu_slurp_file(tu_in(f, "m/vocab.json"), NULL), *cfg = tu_slurp_file(tu_in(f, "m/config.json"), NULL);
    assert_non_null(vocab);
    assert_non_null(cfg);
    cJSON *v = cJSON_Parse(vocab), *c = cJSON_Parse(cfg);
    assert_non_null(v);
    assert_non_null(c);
    const cJSON *eot = cJSON_GetObjectItemCaseSensitive(v, "<|endoftext|>");
    const cJSON *bos = cJSON_GetObjectItemCaseSensitive(c, "bos_token_id");
    const cJSON *eos = cJSON_GetObjectItemCaseSensitive(c, "eos_token_id");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "vocab_size");
    if (!cJSON_IsNumber(eot) || !cJSON_IsNumber(bos) || !cJSON_IsNumber(eos) || !cJSON_IsNumber(n))
        fail_msg("vocab.json's <|endoftext|>, or config.json's bos_token_id, eos_token_id or vocab_size, missing:\n%s",
                 cfg);
    assert_int_equal(bos->valueint, eot->valueint);
    assert_int_equal(eos->valueint, eot->valueint);
    assert_true(eot->valueint >= 0 && eot->valueint < n->valueint);
    cJSON_Delete(v);
    cJSON_Delete(c);
    free(vocab);
    free(cfg);
}

/* config.json records the settings the model was trained with, in attnviz.training: it said the task and the
 * step but not the seed, lr or batch, so `attnviz --train reverse --seed 12345 --lr 0.002 --batch 4 ...`'s folder
 * could not be trained again from what it holds. The values are those in effect (the 5 % warm-up of 2 steps
 * is 1), the seed in full digits past a double's 2^53, no warm-up with --schedule constant (it has none);
 * --model still runs the folder. */
static void test_cli_train_config_records_its_settings(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "--seed", "12345",
                "--lr", "0.002", "-q", "-o", tu_in(f, "m"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *cfg = tu_slurp_file(tu_in(f, "m/config.json"), NULL);
    assert_non_null(cfg);
    cJSON *c = cJSON_Parse(cfg);
    assert_non_null(c);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "attnviz"), "training");
    if (!cJSON_IsObject(t)) fail_msg("no attnviz.training object:\n%s", cfg);
    static const struct { const char *key; double value; } want[] = {
        {"seed", 12345}, {"steps", 2}, {"batch", 4}, {"lr", 0.002}, {"warmup", 1}, {"weight_decay", 0.01}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const cJSON *j = cJSON_GetObjectItemCaseSensitive(t, want[i].key);
        if (!cJSON_IsNumber(j) || j->valuedouble != want[i].value)
            fail_msg("attnviz.training.%s is not %g:\n%s", want[i].key, want[i].value, cfg);
    }
    const cJSON *sched = cJSON_GetObjectItemCaseSensitive(t, "schedule");
    if (!cJSON_IsString(sched) || strcmp(sched->valuestring, "cosine") != 0) fail_msg("schedule:\n%s", cfg);
    cJSON_Delete(c);
    free(cfg);
    run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--no-plot", "3 1 4 >", NULL);
    if (r.code != 0 || !strstr(r.out, "(trained toy model: attnviz --train reverse, step 2)"))
        fail_msg("exit %d\n%s%s", r.code, r.out, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "--seed",
                "9223372036854775807", "--schedule", "constant", "-q", "-o", tu_in(f, "k"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    cfg = tu_slurp_file(tu_in(f, "k/config.json"), NULL);
    assert_non_null(cfg);
    if (!strstr(cfg, "\"seed\":\t9223372036854775807,") || !strstr(cfg, "\"schedule\":\t\"constant\"") ||
        strstr(cfg, "\"warmup\""))
        fail_msg("%s", cfg);
    free(cfg);
}

/* A run whose held-out loss rose says so in its own figures, as its warning and --model's figures of its
 * folder do: curves.png, filmstrip.png (and .svg) were titled "trained on reverse for 30 steps from random
 * initialisation" like a run that learnt, their Weights text too, and --compare's figure drew a diverged
 * variant's curves as the result of its setting (a new user's report: --lr 10, held-out loss 5.66 at step
 * 0, 66.6 at step 200, on a slide as "trained"). A run that learns has no such words. */
static void test_cli_train_diverged_run_figures_say_so(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--lr", "10", "--steps", "30", "--d-model", "16", "--batch", "4",
                "-q", "-o", tu_in(f, "a"), NULL);
    if (r.code != 0 || !strstr(r.err, "training diverged")) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    const char *figs[] = {"a/curves.png", "a/filmstrip.png"};
    for (int i = 0; i < 2; i++) {
        av_png_image img;
        av_err err;
        assert_int_equal(av_png_read_texts(tu_in(f, figs[i]), &img, &err), AV_OK);
        const char *title = av_png_image_text(&img, "Title"), *weights = av_png_image_text(&img, "Weights");
        if (!title || !strstr(title, "trained on reverse for 30 steps") || !strstr(title, "its training diverged"))
            fail_msg("%s's title: %s", figs[i], title ? title : "(none)");
        if (!weights || !strstr(weights, "its training diverged"))
            fail_msg("%s's Weights: %s", figs[i], weights ? weights : "(none)");
        av_png_image_free(&img);
    }
    char *svg = tu_slurp_file(tu_in(f, "a/filmstrip.svg"), NULL);
    assert_non_null(svg);
    if (!strstr(svg, "its training diverged")) fail_msg("filmstrip.svg does not say it diverged");
    free(svg);
    run_attnviz(&r, NULL, "--train", "reverse", "--lr", "10", "--steps", "30", "--d-model", "16", "--batch", "4",
                "--compare", "scale", "-q", "-o", tu_in(f, "c"), NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    expect_png_title_has(tu_in(f, "c/compare_scale.png"), "training diverged (held-out loss rose): ");
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "30", "--d-model", "16", "--batch", "4", "-q", "-o",
                tu_in(f, "b"), NULL); /* the default lr: the loss falls */
    assert_int_equal(r.code, 0);
    tu_free(&r);
    av_png_image img;
    av_err err;
    assert_int_equal(av_png_read_texts(tu_in(f, "b/curves.png"), &img, &err), AV_OK);
    const char *title = av_png_image_text(&img, "Title");
    assert_non_null(title);
    assert_null(strstr(title, "diverged"));
    assert_null(strstr(av_png_image_text(&img, "Weights"), "diverged"));
    av_png_image_free(&img);
}

/* A run whose numbers leave float32 has diverged, whichever number goes first, and valid options gave it:
 * exit 1 (a runtime outcome, README's "Errors and exit codes"), with the step, what went, what DIR keeps and
 * the lr to lower. An activation that overflowed said exit 2, a usage error, with neither the step nor the
 * lr ("layer 1: the residual stream overflowed float32 (a value became infinite) during training"), a NaN
 * loss exit 2 too, while a NaN gradient norm said exit 1 (a new user's report). The shim
 * (tests/shim_sgemm.c) puts inf or NaN into one sgemm result: call 1500 is in step 2's forward pass,
 * call 3000 in step 5's backward pass. */
static void test_cli_train_diverged_is_a_runtime_error(void **state) {
    tu_fixture *f = *state;
    char preload[4300], asan[4300];
    if (!tu_shim_env("shim_sgemm.so", preload, asan)) return;
    /* under --schedule noam --lr is the paper's rule's factor: "(now 1)" read as a learning rate of 1, so the
     * hint names the factor and the peak lr it gave, d_model^-0.5 · warmup^-0.5 = 16^-0.5 · 1^-0.5 = 0.25 */
    const struct { const char *at, *value, *want, *lr, *sched; } rows[] = {
        {"1500", "inf", "training diverged at step 2: ", "0.006", "cosine"},
        {"1500", "nan", "training diverged at step 2: ", "0.006", "cosine"},
        {"3000", "nan", "training diverged at step 5: the gradient norm |grad| became NaN (the loss was ", "0.006",
         "cosine"},
        {"3000", "nan", "training diverged at step 5: ", "1, the noam factor: its peak lr was 0.25 at step 1", "noam"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char at[64], value[64], dir[4200];
        snprintf(at, sizeof at, "SHIM_SGEMM_AT=%s", rows[i].at);
        snprintf(value, sizeof value, "SHIM_SGEMM_VALUE=%s", rows[i].value);
        snprintf(dir, sizeof dir, "%s/run%zu", f->dir, i);
        const char *env[] = {preload, asan, at, value, NULL};
        const char *args[] = {"--train", "reverse", "--steps", "20", "--d-model", "16", "--batch", "4", "-q", "-o", dir,
                              "--schedule", rows[i].sched, NULL};
        tu_result r;
        tu_runv(&r, NULL, env, args);
        char not_saved[4400];
        snprintf(not_saved, sizeof not_saved, "; training stopped and the model was not saved (%s was made for this "
                 "run and is removed); try a smaller --lr (now %s)\n", tu_sh_word(dir), rows[i].lr);
        if (r.code != 1 || !strstr(r.err, rows[i].want) || !strstr(r.err, not_saved) || strstr(r.err, "during training"))
            fail_msg("at sgemm %s = %s: exit %d, stderr: %s", rows[i].at, rows[i].value, r.code, r.err);
        tu_free(&r);
        char model[4300];
        snprintf(model, sizeof model, "%s/model.safetensors", dir);
        assert_int_equal(access(model, F_OK), -1);
        if (access(dir, F_OK) == 0) fail_msg("the folder %s, made for the failed run, was left behind", dir);
    }
}

/* A --compare variant that diverges names every other variant's folder, whole: the message cut what the others
 * hold at 300 bytes ("%.300s"), so with an -o of about 200 bytes of 深 it ended the first at "not trained", with
 * no "yet", no word of rope/ and no mark. The text is the message's own rule (diverged, run_compare's others):
 * each folder as one shell word, what it holds, and the comparison not written. Shim as above. */
static void test_cli_train_diverged_names_every_variant(void **state) {
    tu_fixture *f = *state;
    char preload[4300], asan[4300];
    if (!tu_shim_env("shim_sgemm.so", preload, asan)) return;
    char dir[4200], sub[3][4300], want[9000];
    int at = snprintf(dir, sizeof dir, "%s/", f->dir);
    while (at + 3 <= 200) at += snprintf(dir + at, sizeof dir - (size_t)at, "\xE6\xB7\xB1"); /* 深 to 200 bytes */
    const char *names[3] = {"learned", "sinusoidal", "rope"};
    for (int i = 0; i < 3; i++) snprintf(sub[i], sizeof sub[i], "%s/%s", dir, names[i]);
    const char *env[] = {preload, asan, "SHIM_SGEMM_AT=1500", "SHIM_SGEMM_VALUE=nan", NULL};
    const char *args[] = {"--train", "reverse", "--compare", "positions", "--steps", "20", "--d-model", "16",
                          "--batch", "4", "-q", "-o", dir, NULL};
    tu_result r;
    tu_runv(&r, NULL, env, args);
    snprintf(want, sizeof want, "; training stopped and this variant's model was not saved (%s was made for this run "
             "and is removed; %s was made for this run and is removed, not trained yet; %s was made for this run and "
             "is removed, not trained yet; %s and .svg not written); try a smaller --lr (now 0.006)\n",
             tu_sh_word(sub[0]), tu_sh_word(sub[1]), tu_sh_word(sub[2]), tu_sh_file_word(dir, "compare_positions.png"));
    if (r.code != 1 || !strstr(r.err, "training diverged at step 2: ") || !strstr(r.err, want))
        fail_msg("exit %d, stderr: %s\nwant: %s", r.code, r.err, want);
    tu_free(&r);
}

/* A Ctrl-C after the run is complete, on the way out: it ended with 130 and not a word, as if the run had
 * been cut anywhere (a new user's report: was the folder whole?). It now says that the run was complete and
 * what was saved, with --compare too. The shim (tests/shim_signal.c) raises SIGINT when attnviz closes its
 * standard output (main.c finish), the last thing a run does. */
static void test_cli_train_ctrl_c_after_the_run_is_complete(void **state) {
    tu_fixture *f = *state;
    char preload[4300], asan[4300];
    if (!tu_shim_env("shim_signal.so", preload, asan)) return;
    const char *env[] = {preload, asan, "SHIM_SIGNAL_AT_EXIT=1", NULL};
    char dir[4200], want[9000];
    for (int cmp = 0; cmp < 2; cmp++) {
        snprintf(dir, sizeof dir, "%s/run%d", f->dir, cmp);
        const char *plain[] = {"--train", "reverse", "--steps", "3", "--d-model", "16", "--batch", "4", "-o", dir, NULL};
        const char *compare[] = {"--train", "reverse", "--steps", "3", "--d-model", "16", "--batch", "4", "--compare",
                                 "scale", "-q", "-o", dir, NULL};
        tu_result r;
        tu_runv(&r, NULL, env, cmp ? compare : plain);
        if (cmp)
            snprintf(want, sizeof want, "attnviz: interrupted after the run was complete: every variant's trained model "
                     "was saved with its figures and train.csv under %s, and %s and .svg were "
                     "written\n", tu_sh_word(dir), tu_sh_word(tu_in(f, cmp ? "run1/compare_scale.png" : "")));
        else
            snprintf(want, sizeof want, "attnviz: interrupted after the run was complete: the trained model in %s was "
                     "saved with its training figures and train.csv\n", tu_sh_word(dir));
        if (r.code != 130 || strcmp(r.err, want) != 0)
            fail_msg("%s: exit %d, stderr '%s'", cmp ? "--compare" : "plain", r.code, r.err);
        assert_non_null(strstr(r.out, cmp ? "no-scale    held-out loss" : "probe logits differ by at most"));
        tu_free(&r);
    }
}

/* --train's errors and notes show -o as every other message shows a folder (base/utf8.h av_utf8_shown_name):
 * `-o $'f\u202eq'` holding another tool's config.json printed "-o f<RLO>q holds a model attnviz did not train
 * (...)" with nothing closing the override, so the rest of the line read backwards, and the note that the run
 * replaces an earlier model, the one naming what an earlier run left, and the Ctrl-C message did the same;
 * -o $'a\nb' broke the error in two lines. */
static void test_cli_train_shows_the_folder_name_as_other_messages(void **state) {
    tu_fixture *f = *state;
    char dir[4200], cfg[4300], preload[4300], asan[4300];
    snprintf(dir, sizeof dir, "%s/m\u202Eq", f->dir);
    snprintf(cfg, sizeof cfg, "%s/config.json", dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    FILE *fp = fopen(cfg, "w");
    assert_non_null(fp);
    fputs("{\"model_type\": \"gpt2\"}\n", fp);
    fclose(fp);
    const char *train[] = {"--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "-o", dir, NULL};
    tu_result r;
    tu_runv(&r, NULL, NULL, train);
    assert_int_equal(r.code, 2);
    tu_expect_unturned("a foreign model", r.err, " holds a model attnviz did not train (");
    tu_expect_unturned("a foreign model", r.err, " has no \"attnviz\" object naming a task");
    tu_free(&r);
    assert_int_equal(unlink(cfg), 0);
    if (tu_shim_env("shim_signal.so", preload, asan)) { /* a Ctrl-C as the run ends */
        const char *env[] = {preload, asan, "SHIM_SIGNAL_AT_EXIT=1", NULL};
        tu_runv(&r, NULL, env, train);
        assert_int_equal(r.code, 130);
        tu_expect_unturned("Ctrl-C", r.err, " was saved with its training figures and train.csv");
        tu_free(&r);
    } else {
        tu_runv(&r, NULL, NULL, train);
        assert_int_equal(r.code, 0);
        tu_free(&r);
    }
    const char *cmp[] = {"--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "--compare", "scale",
                         "-o", dir, NULL};
    tu_runv(&r, NULL, NULL, cmp);
    assert_int_equal(r.code, 0);
    tu_expect_unturned("an earlier run's model", r.err, " still holds what an earlier run wrote");
    tu_free(&r);
    tu_runv(&r, NULL, NULL, train);
    assert_int_equal(r.code, 0);
    tu_expect_unturned("a replaced model", r.err, " holds the model of an earlier --train (reverse, step 2)");
    tu_expect_unturned("a replaced model", r.err, " still holds what an earlier run wrote");
    tu_free(&r);
    /* a newline in the name: one line, the newline as <U+000A> */
    snprintf(dir, sizeof dir, "%s/a\nb", f->dir);
    snprintf(cfg, sizeof cfg, "%s/config.json", dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    fp = fopen(cfg, "w");
    assert_non_null(fp);
    fputs("{\"model_type\": \"gpt2\"}\n", fp);
    fclose(fp);
    tu_runv(&r, NULL, NULL, train);
    assert_int_equal(r.code, 2);
    const char *nl = strchr(r.err, '\n');
    if (!strstr(r.err, "a<U+000A>b' holds a model attnviz did not train (") /* one shell word */ || !strstr(r.err, "a<U+000A>b/config.json")
        || !nl || nl[1])
        fail_msg("a newline in -o: not one line naming a<U+000A>b: %s", r.err);
    tu_free(&r);
}

/* -o DIR on --train's lines is the folder as --model names it (io/fileio.h av_path_shown): `-o ts/` printed
 * "wrote ts/: ..." and "reloaded ts/ with --model's loader", `-o ./ts//` "wrote ./ts//: ..." and "./ts// holds
 * the model of an earlier --train", and --compare's "./tc//scale", where `--model ts/` calls the folder "ts" (a
 * maintainer's list of known faults). The expected lines are written by hand: trailing and doubled '/' and "."
 * parts dropped, as `--model` shows "runs/x/" as "runs/x". */
static void test_cli_train_names_the_folder_as_model_does(void **state) {
    tu_fixture *f = *state;
    static const char *const typed[] = {"ts/", "./ts//", "ts/./"};
    for (int k = 0; k < 3; k++) {
        const char *args[] = {"--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "-o",
                              typed[k], NULL};
        tu_run_opts ro = {.cwd = f->dir, .stdout_fd = -1};
        tu_result r;
        tu_run_ex(&r, &ro, NULL, 0, args);
        if (r.code != 0) fail_msg("-o %s: exit %d: %s", typed[k], r.code, r.err);
        if (!strstr(r.out, "\nwrote ts: config.json model.safetensors ")
            || !strstr(r.out, "\nreloaded ts with --model's loader: "))
            fail_msg("-o %s: the folder is not named \"ts\": %s", typed[k], r.out);
        if (k > 0 && !strstr(r.err, "attnviz: note: ts holds the model of an earlier --train (reverse, step 2); "))
            fail_msg("-o %s: the replaced model's note does not name \"ts\": %s", typed[k], r.err);
        tu_free(&r);
    }
    const char *cmp[] = {"--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "--compare",
                         "scale", "-o", "./tc//", NULL};
    for (int k = 0; k < 2; k++) { /* the second run replaces the first's variants */
        tu_run_opts ro = {.cwd = f->dir, .stdout_fd = -1};
        tu_result r;
        tu_run_ex(&r, &ro, NULL, 0, cmp);
        if (r.code != 0) fail_msg("--compare -o ./tc//: exit %d: %s", r.code, r.err);
        static const char *const want[] = {"== --compare scale: scale -> tc/scale\n", "\nwrote tc/scale: config.json ",
                                           "\nreloaded tc/no-scale with --model's loader: ",
                                           "\nwrote tc/compare_scale.png and .svg\n"};
        for (int i = 0; i < 4; i++)
            if (!strstr(r.out, want[i])) fail_msg("--compare -o ./tc//: no \"%s\" in: %s", want[i], r.out);
        if (k > 0 && !strstr(r.err, "attnviz: note: tc/no-scale holds the model of an earlier --train"))
            fail_msg("--compare -o ./tc//: the replaced model's note does not name \"tc/no-scale\": %s", r.err);
        tu_free(&r);
    }
}

/* --rope-style and --rope-base: with learned positions --train ignored them without a word (every other
 * option it does not use warns), and with --positions rope the header said only "RoPE" while
 * config.json said "half" (a new user's report). */
static void test_cli_train_names_rope_style_or_warns(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--rope-style", "half", "--steps", "2", "--d-model", "16", "--batch",
                "2", "-o", tu_in(f, "a"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.err, "attnviz: warning: --rope-style half has no effect with --train without --positions rope"))
        fail_msg("no warning:\n%s", r.err);
    if (!strstr(r.out, ", learned positions,")) fail_msg("header:\n%s", r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "--train", "reverse", "--positions", "rope", "--rope-style", "half", "--rope-base", "100",
                "--steps", "2", "--d-model", "16", "--batch", "2", "-o", tu_in(f, "b"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_null(strstr(r.err, "warning"));
    if (!strstr(r.out, ", RoPE (half, base 100) positions,")) fail_msg("header:\n%s", r.out);
    tu_free(&r);
    char *cfg = tu_slurp_file(tu_in(f, "b/config.json"), NULL);
    assert_non_null(cfg);
    assert_non_null(strstr(cfg, "\"rope_style\":\t\"half\""));
    free(cfg);
    run_attnviz(&r, NULL, "--train", "reverse", "--positions", "rope", "--steps", "2", "--d-model", "16", "--batch",
                "2", "-o", tu_in(f, "c"), NULL); /* the defaults (interleaved, 10000): the header as before */
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, ", RoPE positions,")) fail_msg("header:\n%s", r.out);
    tu_free(&r);
    /* --compare positions trains its rope variant with them too: the header and compare_positions.png said
     * "learned vs sinusoidal vs RoPE" (a learner's pass) */
    run_attnviz(&r, NULL, "--train", "reverse", "--compare", "positions", "--rope-style", "half", "--rope-base",
                "100", "--steps", "1", "--d-model", "16", "--batch", "2", "-o", tu_in(f, "d"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, ", learned vs sinusoidal vs RoPE (half, base 100) positions,")) fail_msg("header:\n%s", r.out);
    tu_free(&r);
    expect_png_title_has(tu_in(f, "d/compare_positions.png"), "learned vs sinusoidal vs RoPE (half, base 100) positions");
    /* the variants without RoPE keep GPT-2's rope settings in config.json: the learned and sinusoidal folders
     * said "rope_base": 100, "rope_style": "half", which they never used (a learner's pass); so does a run that
     * warned them of no effect */
    static const char *const cfgs[] = {"d/learned/config.json", "d/sinusoidal/config.json", "a/config.json",
                                       "d/rope/config.json"};
    for (int k = 0; k < 4; k++) {
        char *text = tu_slurp_file(tu_in(f, cfgs[k]), NULL);
        assert_non_null(text);
        int rope = k == 3;
        if (!strstr(text, rope ? "\"rope_base\":\t100," : "\"rope_base\":\t10000,") ||
            !strstr(text, rope ? "\"rope_style\":\t\"half\"" : "\"rope_style\":\t\"interleaved\""))
            fail_msg("%s:\n%s", cfgs[k], text);
        free(text);
    }
}

/* --model's trace of a RoPE folder names its pairs and θ, as the figures' titles and the single layer's trace
 * do: `--model DIR` on a --positions rope --rope-style half --rope-base 100 folder printed "positions  RoPE:
 * x = wte[token]; q and k rotated ..." exactly as on the defaults' folder (interleaved, θ = 10000), so the
 * trace did not say what it rotated by (a learner's pass). */
static void test_cli_model_trace_names_rope_style_and_base(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--positions", "rope", "--rope-style", "half", "--rope-base", "100",
                "--steps", "1", "--d-model", "16", "--batch", "2", "-q", "-o", tu_in(f, "h"), NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    run_attnviz(&r, NULL, "--train", "reverse", "--positions", "rope", "--steps", "1", "--d-model", "16", "--batch",
                "2", "-q", "-o", tu_in(f, "i"), NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", tu_in(f, "h"), "--no-plot", "3 1 4 >", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "\n  positions  RoPE, half pairs (i, i+d_k/2), base θ = 100: x = wte[token]; q and k rotated"))
        fail_msg("half, θ = 100 not in the trace:\n%s", r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", tu_in(f, "i"), "--no-plot", "3 1 4 >", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "\n  positions  RoPE, interleaved pairs (2i, 2i+1), base θ = 10000: x = wte[token]; q and k"))
        fail_msg("interleaved, θ = 10000 not in the trace:\n%s", r.out);
    tu_free(&r);
}

/* A small model of task in f's folder dir, quietly (--d-model 16, --batch 2, steps steps; with --compare compare
 * unless NULL): a folder for a test of what a later run does with it. Fails the test on a nonzero exit or any
 * message on stderr. train_small: no --compare. */
static void train_small_compare(tu_fixture *f, const char *task, const char *steps, const char *compare,
                                const char *dir) {
    tu_result r;
    run_attnviz(&r, NULL, "--train", task, "--steps", steps, "--d-model", "16", "--batch", "2", "-q", "-o",
                tu_in(f, dir), compare ? "--compare" : NULL, compare, NULL);
    if (r.code != 0 || r.err[0]) fail_msg("--train %s -o %s: exit %d: %s", task, dir, r.code, r.err);
    tu_free(&r);
}

static void train_small(tu_fixture *f, const char *task, const char *steps, const char *dir) {
    train_small_compare(f, task, steps, NULL, dir);
}

/* A --compare figure with --schedule noam names the rule and its peak, not "lr 1": noam's --lr is the
 * rule's factor, and "lr 1" read as a learning rate of 1 (a new user's report). The peak by hand:
 * 1 · 16^-0.5 · min(2^-0.5, 2 · 2^-1.5) = 0.25 · 0.7071 = 0.177 at step 2. */
static void test_cli_train_compare_title_names_noam(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "3", "--d-model", "16", "--batch", "2", "--schedule", "noam",
                "--warmup", "2", "--compare", "scale", "-q", "-o", f->dir, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *svg = tu_slurp_file(tu_in(f, "compare_scale.svg"), NULL);
    assert_non_null(svg);
    if (!strstr(svg, "<title>trained on reverse for 3 steps from random initialisation · 2 layers, 4 heads, d_model "
                     "16, noam lr, peak 0.177 at step 2 · "))
        fail_msg("compare_scale.svg's title: %.300s", strstr(svg, "<title>") ? strstr(svg, "<title>") : svg);
    free(svg);
}

/* A figure or page of a toy model on an input outside its task says so, as the note on stderr does:
 * model.png and the --html page of "1 2 3 4 5 6 7 8 9 >" on a reverse model carried nothing of it, so
 * a reader of the figure took the map for the trained behaviour (a figure-maker's report). An input
 * inside the task gets no such words. */
static void test_cli_toy_model_figures_say_the_input_is_outside_its_task(void **state) {
    tu_fixture *f = *state;
    train_small(f, "reverse", "2", "m");
    static const struct { const char *text, *says, *page_says; } runs[] = { /* the page writes > as \u003e */
        {"1 2 3 4 5 6 7 8 9 >", "; F32; positions: learned) · this input is outside its task: 9 digits before >; its prompts have 2 to 8",
         "; F32; positions: learned) · this input is outside its task: 9 digits before \\u003e; its prompts have 2 to 8"},
        {"3 1 4 > 7", "; F32; positions: learned) · this input is outside its task: token 4 [␣7] is not the task's answer: reverse of",
         "; F32; positions: learned) · this input is outside its task: token 4 [␣7] is not the task's answer: reverse of"},
        {"3 1 4 >", NULL, NULL},
        /* the film strip's probe with its answer, a whole training example: "outside its task: 5 answer digits
         * after > for 5 digits: the answer is complete" was in every title (a figure-maker's report) */
        {"3 1 4 1 5 > 5 1 4 1 3", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        tu_result r;
        run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--figures", "model", "--html", "-q", "-o", tu_in(f, "o"),
                    runs[i].text, NULL);
        if (r.code != 0) fail_msg("\"%s\": exit %d: %s", runs[i].text, r.code, r.err);
        tu_free(&r);
        av_png_image img;
        av_err err;
        assert_int_equal(av_png_read_texts(tu_in(f, "o/model.png"), &img, &err), AV_OK);
        const char *title = av_png_image_text(&img, "Title");
        char *page = tu_slurp_file(tu_in(f, "o/attnviz.html"), NULL);
        assert_non_null(title);
        assert_non_null(page);
        if (runs[i].says && (!strstr(title, runs[i].says) || !strstr(page, runs[i].page_says)))
            fail_msg("\"%s\": the figure or page does not say '%s'; title: %s", runs[i].text, runs[i].says, title);
        if (!runs[i].says && (strstr(title, "outside its task") || strstr(page, "outside its task")))
            fail_msg("\"%s\" is the task's text, yet: %s", runs[i].text, title);
        free(page);
        av_png_image_free(&img);
    }
}

/* The --html page's trace is "what attnviz printed", and with --generate that ends with the continuation:
 * `--model runs/reverse --generate 5 --html` wrote a page whose trace stopped at the top-5 next tokens,
 * though its command line showed --generate 5 (a teacher's report). The page holds the generate lines as
 * standard output has them, with -q (stdout the continuation alone) and without. */
static void test_cli_model_page_holds_the_continuation(void **state) {
    tu_fixture *f = *state;
    train_small(f, "reverse", "2", "m");
    for (int quiet = 0; quiet < 2; quiet++) {
        tu_result r;
        run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--no-plot", "--html", "-o", tu_in(f, "o"), "--generate", "3",
                    quiet ? "-q" : "--kernel", quiet ? "-q" : "blas", "3 1 4 >", NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        const char *gen = strstr(r.out, "  generate    greedy, 3 tokens after the input:");
        const char *ids = gen ? strstr(gen, "\n              ids:") : NULL;
        if (!ids) fail_msg("no generate block on stdout: %s", r.out);
        char line[256];
        size_t n = strcspn(ids + 1, "\n");
        assert_true(n > 20 && n < sizeof line);
        memcpy(line, ids + 1, n), line[n] = 0; /* "              ids: 261 257 259" */
        char *page = tu_slurp_file(tu_in(f, "o/attnviz.html"), NULL);
        assert_non_null(page);
        if (!strstr(page, "  generate    greedy, 3 tokens after the input:") || !strstr(page, line))
            fail_msg("%s: the page's trace has no '%s'", quiet ? "-q" : "without -q", line);
        free(page);
        tu_free(&r);
    }
}

/* The toy token whose text is t ("3", " 1", " >"), by searching the vocabulary. */
static int32_t toy_id(const char *t) {
    char text[16];
    for (int id = 0; id < AV_TOY_VOCAB; id++)
        if (av_toy_token_text(id, text) == 0 && strcmp(text, t) == 0) return id;
    fail_msg("no toy token \"%s\"", t);
    return -1;
}

/* A whole example of the task, prompt and complete answer, is what training saw: its attention is the
 * model's trained behaviour, and only what follows it is outside the task. The note said "this input is
 * outside that: 5 answer digits after > for 5 digits: the answer is complete" and every figure's title
 * "this input is outside its task" for the film strip's own probe (a figure-maker's report). By the
 * task's rule (nn/tasks.h): "3 1 > 1 3" and "3 1 4 1 5 > 5 1 4 1 3" are whole examples of reverse,
 * "3 1 > 1 3 3" is past one, "3 1 > 1" is not yet one, sort's "3 1 > 1 3" is whole, and induction has none. */
static void test_cli_whole_example_is_not_outside_its_task(void **state) {
    tu_fixture *f = *state;
    static const struct { av_task_kind k; const char *text; int whole; } cases[] = {
        {AV_TASK_REVERSE, "3 1 > 1 3", 1}, {AV_TASK_REVERSE, "3 1 4 1 5 > 5 1 4 1 3", 1},
        {AV_TASK_REVERSE, "3 1 > 1 3 3", 0}, {AV_TASK_REVERSE, "3 1 > 1", 0}, {AV_TASK_REVERSE, "3 1 > 3 1", 0},
        {AV_TASK_SORT, "3 1 > 1 3", 1}, {AV_TASK_SORT, "3 1 > 3 1", 0}, {AV_TASK_INDUCTION, "a b a b", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int32_t ids[32];
        int T = 0;
        char buf[64];
        snprintf(buf, sizeof buf, "%s", cases[i].text);
        for (char *w = strtok(buf, " "); w; w = strtok(NULL, " ")) {
            char t[8];
            snprintf(t, sizeof t, T ? " %s" : "%s", w);
            ids[T++] = toy_id(t);
        }
        if (av_task_ids_whole_example(cases[i].k, ids, T) != cases[i].whole)
            fail_msg("\"%s\" (task %d): whole example %d, want %d", cases[i].text, (int)cases[i].k, !cases[i].whole,
                     cases[i].whole);
    }
    train_small(f, "reverse", "2", "m");
    tu_result r;
    run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--no-plot", "3 1 > 1 3", NULL);
    char want[4400];
    snprintf(want, sizeof want, "attnviz: note: this input is a whole example of the task %s was trained on, reverse (2 "
             "to 8 digits, then >, like \"3 1 4 1 5 >\"), its answer complete, as training saw it; what comes after it is outside "
             "the task, so a continuation means nothing, however probable it looks\n", tu_sh_word(tu_in(f, "m")));
    if (r.code != 0 || strcmp(r.err, want) != 0) fail_msg("exit %d, stderr '%s'\nwant '%s'", r.code, r.err, want);
    tu_free(&r);
}


/* A wrong answer digit does not make the right ones after it wrong: `--model runs/reverse --generate 5
 * "3 1 4 1 5 >"` wrote " 5 1 3 1 3" and the note said "The 3 tokens from there on are not the task's
 * answer", though " 1 3" are its 4th and 5th digits (a teacher's report). The count by hand from the
 * printed continuation, place by place against the reversed prompt; a 2-step model writes about one
 * digit everywhere, so prompts of one digit with another first or last give right digits after a wrong one. */
static void test_cli_generate_note_counts_only_wrong_digits(void **state) {
    tu_fixture *f = *state;
    train_small(f, "reverse", "2", "m");
    static const char *const prompts[] = {"1 1 1 1 2 >", "2 2 2 2 3 >", "3 3 3 3 4 >", "4 4 4 4 5 >", "5 5 5 5 6 >",
                                          "6 6 6 6 7 >", "7 7 7 7 8 >", "8 8 8 8 9 >", "9 9 9 9 0 >", "0 0 0 0 1 >"};
    for (size_t k = 0; k < sizeof prompts / sizeof prompts[0]; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--no-plot", "-q", "--generate", "5", prompts[k], NULL);
        const char *text = strstr(r.out, "text: \"");
        if (r.code != 0 || !text) fail_msg("%s: exit %d: %s", prompts[k], r.code, r.err);
        text += strlen("text: \"");
        int first = -1, off = 0; /* the answer is the prompt's 5 digits reversed: digit i is prompts[k][8 - 2 i] */
        for (int i = 0; i < 5; i++) {
            int right = text[2 * i] == ' ' && text[2 * i + 1] == prompts[k][8 - 2 * i];
            if (!right && first < 0) first = i;
            off += !right && first >= 0;
        }
        char want[128] = "";
        int rest = 5 - first;
        if (first >= 0 && off == rest)
            snprintf(want, sizeof want, ". The %d token%s from there on %s not the task's answer\n", rest,
                     rest == 1 ? "" : "s", rest == 1 ? "is" : "are");
        else if (first >= 0)
            snprintf(want, sizeof want, ". %d of the %d tokens from there on %s not the task's answer\n", off, rest,
                     off == 1 ? "is" : "are");
        size_t n = strlen(r.err), w = strlen(want);
        if (first >= 0 && (n < w || strcmp(r.err + n - w, want) != 0 || !strstr(r.err, "is wrong at generated token")))
            fail_msg("%s: continued \"%.10s\": stderr '%s', want it to end '%s'", prompts[k], text, r.err, want);
        if (first < 0 && strstr(r.err, "note")) fail_msg("%s: the answer, and a note: %s", prompts[k], r.err);
        tu_free(&r);
    }
}


/* A wrong digit inside the answer and tokens past the answer's end were counted as one: `--model DIR
 * --generate 10 "3 1 4 1 5 >"` wrote " 5 1 3 1 3 1 3 1 3 1" and the note said "6 of the 8 tokens from there on
 * are not the task's answer", 1 wrong digit of the 3 up to the answer's end and the 5 tokens after it (a
 * learner's pass). The note now counts the wrong ones up to the answer's end, and says apart that the answer is
 * complete after generated token 5 and how many came after. By hand from the printed continuation, place by
 * place against the reversed prompt; --generate 8 gives 3 tokens past the 5-digit answer. */
static void test_cli_generate_note_counts_the_answer_apart_from_what_follows(void **state) {
    tu_fixture *f = *state;
    train_small(f, "reverse", "2", "m");
    static const char *const prompts[] = {"1 1 1 1 2 >", "2 2 2 2 3 >", "3 3 3 3 4 >", "4 4 4 4 5 >", "5 5 5 5 6 >",
                                          "6 6 6 6 7 >", "7 7 7 7 8 >", "8 8 8 8 9 >", "9 9 9 9 0 >", "0 0 0 0 1 >"};
    int checked = 0;
    for (size_t k = 0; k < sizeof prompts / sizeof prompts[0]; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--no-plot", "-q", "--generate", "8", prompts[k], NULL);
        const char *text = strstr(r.out, "text: \"");
        if (r.code != 0 || !text) fail_msg("%s: exit %d: %s", prompts[k], r.code, r.err);
        text += strlen("text: \"");
        int first = -1, off = 0, digits = 1; /* answer digit i is prompts[k][8 - 2 i] */
        for (int i = 0; i < 5; i++) {
            digits = digits && text[2 * i] == ' ' && text[2 * i + 1] >= '0' && text[2 * i + 1] <= '9';
            int right = text[2 * i] == ' ' && text[2 * i + 1] == prompts[k][8 - 2 * i];
            if (!right && first < 0) first = i;
            off += !right && first >= 0;
        }
        if (first < 0 || !digits) { /* no wrong digit in the answer: another test's case */
            tu_free(&r);
            continue;
        }
        char want[400], count[32] = "The";
        int in = 5 - first;
        if (off < in) snprintf(count, sizeof count, "%d of the", off);
        snprintf(want, sizeof want, ". %s %d token%s from there to the answer's end %s not the task's answer; the "
                 "answer is complete after generated token 5 (5 answer digits for 5 digits), and the 3 tokens after "
                 "it are past the task's text, where it was never trained\n", count, in, in == 1 ? "" : "s",
                 off == 1 ? "is" : "are");
        size_t n = strlen(r.err), w = strlen(want);
        if (n < w || strcmp(r.err + n - w, want) != 0 || !strstr(r.err, "is wrong at generated token"))
            fail_msg("%s: continued \"%.16s\": stderr '%s', want it to end '%s'", prompts[k], text, r.err, want);
        checked++;
        tu_free(&r);
    }
    if (!checked) skip(); /* the 2-step model's digits are this machine's float32 sums */
}

/* Where a continuation leaves the task, by hand (nn/tasks.h): input "3 1 >" (n = 2) then generated
 * tokens. The note was one token late for a bad token and for induction's length (a new user's report):
 * it named the token after the one at fault. */
static void test_generate_note_positions(void **state) {
    (void)state;
    static const struct { av_task_kind kind; const char *in[12]; int T, steps, want, token; const char *why; } cases[] = {
        /* " 1 3" is the whole answer: generated token 3 (j = 2) is past it */
        {AV_TASK_REVERSE, {"3", " 1", " >", " 1", " 3", " 1", " 1"}, 3, 4, 2, 0, "2 answer digits after > for 2 digits"},
        {AV_TASK_REVERSE, {"3", " 1", " >", " 1", " 3"}, 3, 2, -1, 0, NULL}, /* exactly the answer: no note */
        {AV_TASK_SORT, {"3", " 1", " >", " q", " 1"}, 3, 2, 0, 1, "is not a digit or >"}, /* token 1 itself */
        {AV_TASK_REVERSE, {"3", " 1", " >", " 1", " >"}, 3, 2, 1, 1, "is a second >"},
        {AV_TASK_REVERSE, {"3", " >", " 1"}, 2, 1, -1, 0, NULL}, /* the input is outside: its own note says so */
        /* a wrong answer digit is the token at fault: sort of "3 1" is "1 3", the model wrote " 3" */
        {AV_TASK_SORT, {"3", " 1", " >", " 3", " 1"}, 3, 2, 0, 1, "is not the task's answer: sort of \"3 1\" is \"1 3\""},
        {AV_TASK_SORT, {"3", " 1", " >", " 1", " 3"}, 3, 2, -1, 0, NULL},
        {AV_TASK_REVERSE, {"5", " 2", " 9", " >", " 9", " 5"}, 4, 2, 1, 1, "reverse of \"5 2 9\" is \"9 2 5\""},
        /* induction: "k q a z m k q a" goes on with " z"; a model that wrote " b" was wrong without a note */
        {AV_TASK_INDUCTION, {"k", " q", " a", " z", " m", " k", " q", " a", " b", " c"}, 8, 2, 0, 1,
         "is not the task's answer: after a comes z, the letter after the first a (token 2)"},
        {AV_TASK_INDUCTION, {"k", " q", " a", " z", " m", " k", " q", " a", " z", " m"}, 8, 2, -1, 0, NULL},
        /* after a new letter (m) any letter is the task's; then the rule holds again: after k comes q, after
         * q comes a, not b */
        {AV_TASK_INDUCTION, {"k", " q", " a", " z", " m", " k", " q", " b"}, 5, 3, 2, 1, "after q comes a, the letter "
         "after the first q (token 1)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int32_t ids[16];
        int n = cases[k].T + cases[k].steps, token = -1;
        for (int i = 0; i < n; i++) ids[i] = toy_id(cases[k].in[i]);
        char why[160] = "";
        int j = av_task_continuation_leaves(cases[k].kind, ids, cases[k].T, cases[k].steps, &token, why, sizeof why);
        if (j != cases[k].want || (j >= 0 && (token != cases[k].token || !strstr(why, cases[k].why))))
            fail_msg("case %zu: j %d token %d why '%s'", k, j, token, why);
    }
    /* induction: 8 letters then 17 generated make 25, past its 24; the 17th (j = 16) is the first outside */
    int32_t ids[25];
    for (int i = 0; i < 25; i++) {
        char t[3] = {' ', (char)('a' + i % 26), 0};
        ids[i] = toy_id(i ? t : t + 1);
    }
    int token;
    char why[160];
    assert_int_equal(av_task_continuation_leaves(AV_TASK_INDUCTION, ids, 8, 17, &token, why, sizeof why), 16);
    assert_int_equal(token, 0);
    assert_string_equal(why, "25 letters; its sequences have at most 24");
    assert_int_equal(av_task_continuation_leaves(AV_TASK_INDUCTION, ids, 8, 16, &token, why, sizeof why), -1);
    /* how many are wrong from the first wrong one on: " 5 1 3 1 3" for "3 1 4 1 5 >" has 1 (generated token 3),
     * and 5 more past the answer's end; induction "k q a z m k q" then " b a z": after q comes a (b is wrong),
     * after b (new) any letter, after a comes z */
    static const char *const rev[] = {"3", " 1", " 4", " 1", " 5", " >", " 5", " 1", " 3", " 1", " 3", " 1", " 1"};
    static const char *const ind[] = {"k", " q", " a", " z", " m", " k", " q", " b", " a", " z"};
    int32_t r[13], d[10];
    for (int i = 0; i < 13; i++) r[i] = toy_id(rev[i]);
    for (int i = 0; i < 10; i++) d[i] = toy_id(ind[i]);
    assert_int_equal(av_task_tokens_off(AV_TASK_REVERSE, r, 11, 8), 1);
    assert_int_equal(av_task_tokens_off(AV_TASK_REVERSE, r, 13, 8), 3);
    assert_int_equal(av_task_tokens_off(AV_TASK_SORT, r, 11, 6), 3); /* sort: " 1 1 3 4 5" */
    assert_int_equal(av_task_tokens_off(AV_TASK_INDUCTION, d, 10, 7), 1);
    /* where the task's sequence ends: "3 1 4 1 5 >" and its 5 answer digits are 11 tokens, "3 1 >" 5; induction
     * has no answer's end, only its longest sequence, 24 letters */
    assert_int_equal(av_task_sequence_end(AV_TASK_REVERSE, r, 6), 11);
    assert_int_equal(av_task_sequence_end(AV_TASK_SORT, r, 13), 11);
    assert_int_equal(av_task_sequence_end(AV_TASK_INDUCTION, d, 10), 24);
    /* past a token that is not the task's letter, no letter is its answer: "a b c" continued " c / / a" has 3
     * from the "/" on, not 2 (the " a" was counted as the task's) */
    static const char *const cut[] = {"a", " b", " c", " c", "/", "/", " a"};
    int32_t c[7];
    for (int i = 0; i < 7; i++) c[i] = toy_id(cut[i]);
    assert_int_equal(av_task_tokens_off(AV_TASK_INDUCTION, c, 7, 4), 3);
    assert_int_equal(av_task_tokens_off(AV_TASK_INDUCTION, c, 7, 3), 3);
    static const char *const slash[] = {"3", " 1", " 4", " >", " 4", "/", " 3"}; /* reverse: " 4 1 3" */
    for (int i = 0; i < 7; i++) c[i] = toy_id(slash[i]);
    assert_int_equal(av_task_tokens_off(AV_TASK_REVERSE, c, 7, 5), 2);
    assert_int_equal(av_task_tokens_off(AV_TASK_REVERSE, c, 6, 4), 1);
}

/* A continuation that leaves induction's text at a token that is not a letter (a byte, "/") has no task
 * answer after it: `--model DIR --generate 6 "a b c"` on a 2-step model wrote " c//// a" and the note said
 * "4 of the 5 tokens from there on are not the task's answer", counting the " a" after "////" as the task's
 * (a learner's pass). Wherever the note names such a token, every token from it on is off: "The N tokens". */
static void test_cli_generate_note_counts_all_past_a_non_letter(void **state) {
    tu_fixture *f = *state;
    train_small(f, "induction", "2", "m");
    static const char *const prompts[] = {"a b c", "e b c", "f b c", "a b", "a c", "d b c", "a"};
    int checked = 0;
    for (size_t k = 0; k < sizeof prompts / sizeof prompts[0]; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--no-plot", "-q", "--generate", "6", prompts[k], NULL);
        if (r.code != 0) fail_msg("%s: exit %d: %s", prompts[k], r.code, r.err);
        static const char leaves[] = "leaves its task at generated token ";
        const char *at = strstr(r.err, leaves);
        int j = 0;
        if (at && strstr(r.err, "(it is not a lowercase letter)") && sscanf(at + strlen(leaves), "%d", &j) == 1) {
            char want[128];
            int rest = 6 - j + 1;
            snprintf(want, sizeof want, ". The %d token%s from there on %s not the task's answer\n", rest,
                     rest == 1 ? "" : "s", rest == 1 ? "is" : "are");
            size_t n = strlen(r.err), w = strlen(want);
            if (n < w || strcmp(r.err + n - w, want) != 0)
                fail_msg("%s: stderr '%s', want it to end '%s'", prompts[k], r.err, want);
            checked++;
        }
        tu_free(&r);
    }
    /* the 2-step model's continuations are this machine's float32 sums: where none of the prompts leaves the task
     * at a non-letter, nothing was checked here (the hand-counted cases of test_generate_note_positions still are) */
    if (!checked) skip();
}

/* A plain --train into a variant folder of an earlier --compare: `--train reverse --compare scale -o cmp`, then
 * `--train sort -o cmp/scale` said only "cmp/scale holds the model of an earlier --train (reverse, step 2); this
 * run replaces it", while cmp/compare_scale.png and .svg went on drawing that replaced model as "scale" (a
 * learner's pass). Now a note names that figure, which stays byte for byte; none for a folder named scale without
 * one beside it, and none with -q. */
static void test_cli_train_into_a_variant_names_its_comparison(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    train_small_compare(f, "reverse", "2", "scale", "cmp");
    size_t png_n = 0, png2_n = 0;
    char *png = tu_slurp_file(tu_in(f, "cmp/compare_scale.png"), &png_n);
    assert_non_null(png);
    char want[4400];
    snprintf(want, sizeof want, "attnviz: note: %s and .svg, of an earlier --compare scale, draw the model this run "
             "replaces as scale; they stay as they are: rerun that --compare to draw the new one\n",
             tu_sh_word(tu_in(f, "cmp/compare_scale.png")));
    run_attnviz(&r, NULL, "--train", "sort", "--steps", "1", "--d-model", "16", "--batch", "2", "-o",
                tu_in(f, "cmp/scale"), NULL);
    if (r.code != 0 || !strstr(r.err, want)) fail_msg("exit %d, want '%s': %s", r.code, want, r.err);
    tu_free(&r);
    char *png2 = tu_slurp_file(tu_in(f, "cmp/compare_scale.png"), &png2_n);
    assert_non_null(png2);
    assert_true(png_n == png2_n && memcmp(png, png2, png_n) == 0); /* the earlier run's figure, as it was */
    free(png), free(png2);
    run_attnviz(&r, NULL, "--train", "sort", "--steps", "1", "--d-model", "16", "--batch", "2", "-q", "-o",
                tu_in(f, "cmp/no-scale"), NULL);
    if (r.code != 0 || r.err[0]) fail_msg("-q: exit %d: %s", r.code, r.err);
    tu_free(&r);
    train_small(f, "reverse", "2", "other/scale"); /* no compare_scale.png beside it */
    run_attnviz(&r, NULL, "--train", "sort", "--steps", "1", "--d-model", "16", "--batch", "2", "-o",
                tu_in(f, "other/scale"), NULL);
    if (r.code != 0 || strstr(r.err, "--compare")) fail_msg("other/scale: exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* A --train into a folder holding an earlier --train's model says, before its first step, which model
 * it replaces: `--train sort` over a trained reverse model said only "removed 2 files of an earlier run"
 * at its end (a new user's report). With --compare, each variant folder. -q keeps it quiet, as every note. */
static void test_cli_train_names_the_model_it_replaces(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    train_small(f, "reverse", "2", "m");
    char want[4400];
    snprintf(want, sizeof want, "attnviz: note: %s holds the model of an earlier --train (reverse, step 2); this run "
             "replaces it\n", tu_sh_word(tu_in(f, "m")));
    run_attnviz(&r, NULL, "--train", "sort", "--steps", "1", "--d-model", "16", "--batch", "2", "-o", tu_in(f, "m"), NULL);
    if (r.code != 0 || strncmp(r.err, want, strlen(want)) != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--train", "sort", "--steps", "1", "--d-model", "16", "--batch", "2", "-q", "-o",
                tu_in(f, "m"), NULL);
    if (r.code != 0 || strstr(r.err, "replaces")) fail_msg("-q: exit %d: %s", r.code, r.err);
    tu_free(&r);
    for (int k = 0; k < 2; k++) { /* the second run replaces both variants, each named */
        run_attnviz(&r, NULL, "--train", "induction", "--steps", "1", "--d-model", "16", "--batch", "2", "--compare",
                    "norm", "-o", tu_in(f, "c"), NULL);
        if (r.code != 0) fail_msg("--compare: exit %d: %s", r.code, r.err);
        char pre_s[4400], post_s[4400]; /* each folder one shell word */
        snprintf(pre_s, sizeof pre_s, "%s holds the model of an earlier --train (induction, step 1)",
                 tu_sh_word(tu_in(f, "c/pre-ln")));
        snprintf(post_s, sizeof post_s, "%s holds the model of an earlier --train (induction, step 1)",
                 tu_sh_word(tu_in(f, "c/post-ln")));
        const char *pre = strstr(r.err, pre_s), *post = strstr(r.err, post_s);
        if (k ? !pre || !post : pre || post) fail_msg("--compare run %d: %s", k, r.err);
        tu_free(&r);
    }
}

/* A --train that replaces a model also removes a --dump of that model in its folder, as it removes the model's
 * figures there: `--model m --dump m "3 1 4 >"` and then `--train reverse -o m` left the seven files of the old
 * model's dump (README's --dump: tokens.txt, source.txt, token_ids.npy, attn.npy, scores.npy, hidden.npy,
 * logits.npy) beside the new model, read as its attention (a tester's report). The note names them, with -q
 * too (a file is never deleted without a word). A dump of another model there (its source.txt names sort,
 * step 1) is not of the replaced model and stays, as does a dump of m in another folder; the --dump that wrote it
 * into m's folder, and the --train that keeps it, each say so in a note naming that model, with -q too (the dump of
 * s sat beside the model m without a word: a learner's pass); the dump of m itself, in m, gets no such note. */
static void test_cli_train_removes_the_dump_of_the_model_it_replaces(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    static const char *const dumped[] = {"tokens.txt", "source.txt", "token_ids.npy", "attn.npy", "scores.npy",
                                         "hidden.npy", "logits.npy"};
    train_small(f, "reverse", "2", "m");
    train_small(f, "sort", "1", "s");
    for (int k = 0; k < 3; k++) {
        /* k 0: a dump of m in m; k 1: the same with -q; k 2: a dump of s in m, kept */
        run_attnviz(&r, NULL, "-q", "--no-plot", "--model", tu_in(f, k == 2 ? "s" : "m"), "--dump", tu_in(f, "m"),
                    "3 1 4 >", NULL);
        char note[4400];
        snprintf(note, sizeof note, "attnviz: note: --dump %s holds the model an earlier --train trained (reverse, "
                 "step %d); this run's dump, of %s, goes beside it, and its .npy files are not that model's; use "
                 "another --dump to keep them apart\n", tu_sh_word(tu_in(f, "m")), 2,
                 tu_sh_word(tu_in(f, "s")));
        if (r.code != 0 || (k == 2) != (strstr(r.err, note) != NULL) || (k < 2 && r.err[0]))
            fail_msg("--dump %d: exit %d: %s", k, r.code, r.err);
        tu_free(&r);
        char weights[600] = ""; /* the dump's own words for its model: source.txt's first line */
        char *src = tu_slurp_file(tu_in(f, "m/source.txt"), NULL);
        assert_non_null(src);
        if (strncmp(src, "weights: ", 9)) fail_msg("run %d: source.txt: %s", k, src);
        snprintf(weights, sizeof weights, "%.*s", (int)strcspn(src + 9, "\n"), src + 9);
        free(src);
        run_attnviz(&r, NULL, "-q", "--no-plot", "--model", tu_in(f, "m"), "--dump", tu_in(f, "elsewhere"),
                    "3 1 4 >", NULL);
        if (r.code != 0) fail_msg("--dump elsewhere: exit %d: %s", r.code, r.err);
        tu_free(&r);
        char rel[64];
        for (size_t i = 0; i < sizeof dumped / sizeof dumped[0]; i++) {
            snprintf(rel, sizeof rel, "m/%s", dumped[i]);
            if (!file_exists(tu_in(f, rel))) fail_msg("run %d: no %s", k, rel);
        }
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "-o",
                    tu_in(f, "m"), k == 1 ? "-q" : NULL, NULL);
        char want[4400];
        snprintf(want, sizeof want, "attnviz: note: removed 7 files of a --dump of the model this run replaced from "
                 "%s, so the folder holds one run: token_ids.npy attn.npy scores.npy hidden.npy logits.npy "
                 "tokens.txt source.txt\n", tu_sh_word(tu_in(f, "m")));
        char kept[4400];
        snprintf(kept, sizeof kept, "attnviz: note: %s also holds a --dump of another model than the one this run "
                 "replaced (its source.txt: weights: %s); kept beside the new model, whose attention its .npy files "
                 "do not show; give dumps a --dump folder of their own\n", tu_sh_word(tu_in(f, "m")), weights);
        if (r.code != 0 || (k < 2) != (strstr(r.err, want) != NULL) || (k == 2) != (strstr(r.err, kept) != NULL))
            fail_msg("run %d: exit %d: %s", k, r.code, r.err);
        tu_free(&r);
        for (size_t i = 0; i < sizeof dumped / sizeof dumped[0]; i++) {
            snprintf(rel, sizeof rel, "m/%s", dumped[i]);
            if (file_exists(tu_in(f, rel)) != (k == 2)) fail_msg("run %d: %s %s", k, rel, k == 2 ? "removed" : "left");
            snprintf(rel, sizeof rel, "elsewhere/%s", dumped[i]);
            if (!file_exists(tu_in(f, rel))) fail_msg("run %d: %s removed", k, rel);
        }
        if (!file_exists(tu_in(f, "m/model.safetensors"))) fail_msg("run %d: no model", k);
    }
}

/* CRC-32 (ISO-HDLC: reflected polynomial 0xEDB88320, initial and final 0xFFFFFFFF, what zlib.crc32 and crc32(1)
 * give) of the whole file at path, bit by bit from the definition rather than zlib's tables. */
static unsigned long crc32_by_hand(const char *path) {
    size_t n = 0;
    unsigned char *b = (unsigned char *)tu_slurp_file(path, &n);
    if (!b) fail_msg("cannot read %s", path);
    unsigned long c = 0xFFFFFFFFul;
    for (size_t i = 0; i < n; i++) {
        c ^= b[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320ul & (0ul - (c & 1)));
    }
    free(b);
    return c ^ 0xFFFFFFFFul;
}

/* A --train that replaces a model removes a --dump in its folder only when it is of that model, byte for byte: with
 * r2 and r3 two reverse models trained to step 2 from other seeds, `attnviz --model r3 --dump r2 "3 1 >"` and then
 * `attnviz --train reverse ... -o r2` deleted the dump of r3 ("removed 7 files of a --dump of the model this run
 * replaced"), taken for r2's own by its source.txt's task and step (a learner's pass). The dump's source.txt now
 * gives "model.safetensors crc32 HHHHHHHH", the CRC-32 of the whole weights file it was computed from (here checked
 * against a bitwise CRC-32 of r3/model.safetensors), and --train removes the dump only when that is the CRC-32 of
 * the model it replaces: r3's dump stays, with the note of a dump of another model, while a dump into r2 of c, a
 * byte-for-byte copy of the model r2 holds, is of that model and goes with it. The --dump (and -o) of c into r2
 * says nothing, as one of r2 itself: it said "this run's dump, of c, goes beside it, and its .npy files are not
 * that model's", comparing folder paths where --train compares the weights file's CRC-32 (a tester's pass). */
static void test_cli_train_keeps_a_dump_of_another_model_of_the_same_step(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    static const char *const dumped[] = {"tokens.txt", "source.txt", "token_ids.npy", "attn.npy", "scores.npy",
                                         "hidden.npy", "logits.npy"};
    static const char *const model[] = {"model.safetensors", "config.json", "vocab.json", "merges.txt"};
    train_small(f, "reverse", "2", "r2");
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "--seed", "7", "-q",
                "-o", tu_in(f, "r3"), NULL);
    if (r.code != 0) fail_msg("--train r3: exit %d: %s", r.code, r.err);
    tu_free(&r);
    char rel[64], want[4400];
    for (int k = 0; k < 2; k++) { /* k 0: a dump of r3 in r2, kept; k 1: a dump of c, r2's model copied, removed */
        if (k == 1) {
            assert_int_equal(mkdir(tu_in(f, "c"), 0755), 0);
            for (size_t i = 0; i < sizeof model / sizeof model[0]; i++) {
                size_t n = 0;
                snprintf(rel, sizeof rel, "r2/%s", model[i]);
                char *b = tu_slurp_file(tu_in(f, rel), &n);
                assert_non_null(b);
                snprintf(rel, sizeof rel, "c/%s", model[i]);
                FILE *fp = fopen(tu_in(f, rel), "wb");
                assert_non_null(fp);
                assert_int_equal(fwrite(b, 1, n, fp), n);
                fclose(fp);
                free(b);
            }
        }
        const char *from = k ? "c" : "r3";
        run_attnviz(&r, NULL, "-q", "--no-plot", "--model", tu_in(f, from), "--dump", tu_in(f, "r2"), "3 1 >", NULL);
        char other[4400]; /* said of r3's dump; c's is of the model r2 holds, byte for byte, as r2's own gets none */
        snprintf(other, sizeof other, "attnviz: note: --dump %s holds the model an earlier --train trained (reverse, "
                 "step 2); this run's dump, of %s, goes beside it, and its .npy files are not that model's; use "
                 "another --dump to keep them apart\n", tu_sh_word(tu_in(f, "r2")), tu_sh_word(tu_in(f, "r3")));
        if (r.code != 0 || (k == 0) != (strstr(r.err, other) != NULL) || (k == 1 && r.err[0]))
            fail_msg("--dump %d: exit %d: %s", k, r.code, r.err);
        tu_free(&r);
        if (k == 1) { /* c's figures into r2 show the model r2 holds: no "go beside them" either */
            run_attnviz(&r, NULL, "-q", "--model", tu_in(f, "c"), "-o", tu_in(f, "r2"), "3 1 >", NULL);
            if (r.code != 0 || r.err[0]) fail_msg("-o: exit %d: %s", r.code, r.err);
            tu_free(&r);
        }
        char *src = tu_slurp_file(tu_in(f, "r2/source.txt"), NULL), weights[600];
        assert_non_null(src);
        if (strncmp(src, "weights: ", 9)) fail_msg("run %d: source.txt: %s", k, src);
        snprintf(weights, sizeof weights, "%.*s", (int)strcspn(src + 9, "\n"), src + 9);
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "-q", "-o",
                    tu_in(f, "r2"), NULL);
        char removed[4400], kept[4400];
        snprintf(removed, sizeof removed, "attnviz: note: removed 7 files of a --dump of the model this run replaced "
                 "from %s, so the folder holds one run: token_ids.npy attn.npy scores.npy hidden.npy logits.npy "
                 "tokens.txt source.txt\n", tu_sh_word(tu_in(f, "r2")));
        snprintf(kept, sizeof kept, "attnviz: note: %s also holds a --dump of another model than the one this run "
                 "replaced (its source.txt: weights: %s); kept beside the new model, whose attention its .npy files "
                 "do not show; give dumps a --dump folder of their own\n", tu_sh_word(tu_in(f, "r2")), weights);
        if (r.code != 0 || (k == 1) != (strstr(r.err, removed) != NULL) || (k == 0) != (strstr(r.err, kept) != NULL))
            fail_msg("run %d: exit %d: %s", k, r.code, r.err);
        tu_free(&r);
        for (size_t i = 0; i < sizeof dumped / sizeof dumped[0]; i++) {
            snprintf(rel, sizeof rel, "r2/%s", dumped[i]);
            if (file_exists(tu_in(f, rel)) != (k == 0)) fail_msg("run %d: %s %s", k, rel, k ? "left" : "removed");
        }
        snprintf(rel, sizeof rel, "%s/model.safetensors", from); /* checked after: the dump is kept or removed */
        snprintf(want, sizeof want, "\nmodel.safetensors crc32 %08lx (the CRC-32 of the whole weights file these "
                 "tensors were computed from)\n", crc32_by_hand(tu_in(f, rel)));
        if (!strstr(src, want)) fail_msg("run %d: source.txt: %s", k, src);
        free(src);
        if (k == 0) /* r3's dump goes, so the next is r2's copy's alone */
            for (size_t i = 0; i < sizeof dumped / sizeof dumped[0]; i++) {
                snprintf(rel, sizeof rel, "r2/%s", dumped[i]);
                assert_int_equal(unlink(tu_in(f, rel)), 0);
            }
    }
}

/* A --train that replaces a model leaves no tokenizer file of another tokenizer beside its vocab.json and
 * merges.txt: Hugging Face's AutoTokenizer reads tokenizer.json (and the special tokens and class from
 * tokenizer_config.json, special_tokens_map.json, added_tokens.json) before them, while attnviz reads vocab.json,
 * so a tokenizer.json copied in or left from the model replaced gave other tokens in Python (a learner's report).
 * The four go once the new model is saved, with a note naming them, with -q too; a folder named tokenizer.json is
 * not a file and stays; a retrain with none of them says nothing of tokenizers. The new vocab.json is the one a
 * --train into a fresh folder writes, byte for byte, and --model reads "3 1 >" with it as three tokens. */
static void test_cli_train_removes_a_tokenizer_it_did_not_write(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    static const char *const tok[] = {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                                      "added_tokens.json"};
    train_small(f, "reverse", "2", "m");
    train_small(f, "sort", "1", "fresh");
    for (int k = 0; k < 3; k++) { /* k 0: all four, then -q; k 1: tokenizer.json alone; k 2: none */
        for (size_t i = 0; i < (k == 0 ? 4u : k == 1 ? 1u : 0u); i++) {
            char rel[64];
            snprintf(rel, sizeof rel, "m/%s", tok[i]);
            FILE *fp = fopen(tu_in(f, rel), "w"); /* GPT-2's kind of tokenizer, another vocabulary */
            assert_non_null(fp);
            fputs("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"!\": 0, \"3\": 1}, \"merges\": []}}\n", fp);
            fclose(fp);
        }
        run_attnviz(&r, NULL, "--train", "sort", "--steps", "1", "--d-model", "16", "--batch", "2", "-o",
                    tu_in(f, "m"), k == 0 ? "-q" : NULL, NULL);
        char want[4400];
        snprintf(want, sizeof want, "attnviz: note: removed %d tokenizer file%s that this run did not write from %s, "
                 "which Hugging Face's AutoTokenizer would read in place of the new model's vocab.json and "
                 "merges.txt:%s\n", k == 0 ? 4 : 1, k == 0 ? "s" : "", tu_sh_word(tu_in(f, "m")),
                 k == 0 ? " tokenizer.json tokenizer_config.json special_tokens_map.json added_tokens.json"
                        : " tokenizer.json");
        if (r.code != 0 || (k < 2) != (strstr(r.err, want) != NULL) || (k == 2 && strstr(r.err, "tokenizer")))
            fail_msg("run %d: exit %d: %s", k, r.code, r.err);
        tu_free(&r);
        for (size_t i = 0; i < 4; i++) {
            char rel[64];
            snprintf(rel, sizeof rel, "m/%s", tok[i]);
            if (file_exists(tu_in(f, rel))) fail_msg("run %d: %s left", k, rel);
        }
        size_t na = 0, nb = 0;
        char *a = tu_slurp_file(tu_in(f, "m/vocab.json"), &na), *b = tu_slurp_file(tu_in(f, "fresh/vocab.json"), &nb);
        if (!a || !b || na != nb || memcmp(a, b, na)) fail_msg("run %d: m/vocab.json is not a fresh --train's", k);
        free(a);
        free(b);
    }
    assert_int_equal(mkdir(tu_in(f, "m/tokenizer.json"), 0755), 0); /* not a file: kept, no note */
    run_attnviz(&r, NULL, "--train", "sort", "--steps", "1", "--d-model", "16", "--batch", "2", "-q", "-o",
                tu_in(f, "m"), NULL);
    if (r.code != 0 || strstr(r.err, "tokenizer file")) fail_msg("folder tokenizer.json: exit %d: %s", r.code, r.err);
    tu_free(&r);
    assert_int_equal(rmdir(tu_in(f, "m/tokenizer.json")), 0);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--model", tu_in(f, "m"), "--dump", tu_in(f, "d"), "3 1 >", NULL);
    if (r.code != 0) fail_msg("--model m: exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *toks = tu_slurp_file(tu_in(f, "d/tokens.txt"), NULL);
    assert_non_null(toks);
    assert_string_equal(toks, "3\n\xE2\x90\xA3" "1\n\xE2\x90\xA3>\n");
    free(toks);
}

/* --model of a trained folder that holds a tokenizer file --train never writes says so: with m a trained reverse
 * folder and GPT-2's kind of tokenizer.json copied in, `attnviz --model m -q --no-plot "3 1 >"` read the trained
 * vocab.json and merges.txt without a word, while Hugging Face's AutoTokenizer reads tokenizer.json first and gives
 * other ids for the same text (a learner's pass). The note, with -q too, names the files in
 * kForeignTokenizerFiles' order (tokenizer.json alone; then with added_tokens.json, "them"); a folder named
 * tokenizer.json is no file and gets none, and the trained tokens are read either way (three, as README's
 * example). Expected by hand. */
static void test_cli_model_notes_a_tokenizer_train_did_not_write(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    train_small(f, "reverse", "2", "m");
    for (int k = 0; k < 3; k++) { /* k 0: tokenizer.json; k 1: and added_tokens.json; k 2: a folder of that name */
        if (k < 2) {
            FILE *fp = fopen(tu_in(f, k ? "m/added_tokens.json" : "m/tokenizer.json"), "w");
            assert_non_null(fp);
            fputs("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"!\": 0, \"3\": 1}, \"merges\": []}}\n", fp);
            fclose(fp);
        } else {
            assert_int_equal(unlink(tu_in(f, "m/tokenizer.json")), 0);
            assert_int_equal(unlink(tu_in(f, "m/added_tokens.json")), 0);
            assert_int_equal(mkdir(tu_in(f, "m/tokenizer.json"), 0755), 0);
        }
        run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "-q", "--no-plot", "--dump", tu_in(f, "d"), "3 1 >", NULL);
        char want[4400];
        const char *it = k ? "them" : "it";
        snprintf(want, sizeof want, "attnviz: note: %s holds %s, which attnviz --train did not write: this run reads "
                 "the trained model's vocab.json and merges.txt, while Hugging Face's AutoTokenizer reads %s first and "
                 "may give other token ids; remove %s (a --train into the folder removes %s too)\n",
                 tu_sh_word(tu_in(f, "m")), k ? "tokenizer.json added_tokens.json" : "tokenizer.json", it, it, it);
        if (r.code != 0 || (k < 2 ? strcmp(r.err, want) != 0 : r.err[0] != 0))
            fail_msg("run %d: exit %d: '%s', not '%s'", k, r.code, r.err, k < 2 ? want : "");
        tu_free(&r);
        char *toks = tu_slurp_file(tu_in(f, "d/tokens.txt"), NULL);
        assert_non_null(toks);
        assert_string_equal(toks, "3\n\xE2\x90\xA3" "1\n\xE2\x90\xA3>\n");
        free(toks);
    }
}

/* Set (on 1) or clear (on 0) the immutable flag of path (chattr +i): unlink(2) of it then fails with EPERM, for
 * root too. 0 when done; -1 when this user or file system cannot (the caller skips). */
static int set_immutable(const char *path, int on) {
    int fd = open(path, O_RDONLY | O_NONBLOCK), flags = 0, rc = -1;
    if (fd < 0) return -1;
    if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
        flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
        rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
    }
    close(fd);
    return rc ? -1 : 0;
}

/* A removal that a --train replacing a model cannot finish (an immutable file) says what it removed before it
 * and that the new model was saved: with m a trained folder holding tokenizer.json and an immutable
 * added_tokens.json, `--train sort ... -q -o m` removed tokenizer.json without a word and ended with "attnviz:
 * error: cannot remove 'm/added_tokens.json', ...: Operation not permitted" alone, exit 1, the new model saved
 * and the replaced model's figures gone (a tester's pass); a --dump of the model replaced (remove_replaced_dump)
 * the same. Expected by hand: the note of the files removed in their order, then the error naming the immutable
 * file and "the trained model was saved before this error (attnviz --model m runs it)", exit 1, m/config.json of
 * the new task, the immutable file kept and the others gone. */
static void test_cli_train_says_what_it_removed_when_a_removal_fails(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    train_small(f, "reverse", "2", "m");
    for (int k = 0; k < 2; k++) { /* k 0: tokenizer files; k 1: a --dump of the model m holds */
        const char *task = k ? "reverse" : "sort", *stuck = k ? "m/tokens.txt" : "m/added_tokens.json";
        if (k == 0) {
            static const char *const tok[] = {"m/tokenizer.json", "m/added_tokens.json"};
            for (int i = 0; i < 2; i++) {
                FILE *fp = fopen(tu_in(f, tok[i]), "w");
                assert_non_null(fp);
                fputs("{}\n", fp);
                fclose(fp);
            }
        } else {
            train_small(f, "sort", "2", "m"); /* the dump is of the model the next --train replaces */
            run_attnviz(&r, NULL, "-q", "--no-plot", "--model", tu_in(f, "m"), "--dump", tu_in(f, "m"), "3 1 >", NULL);
            if (r.code != 0) fail_msg("--dump m: exit %d: %s", r.code, r.err);
            tu_free(&r);
        }
        if (set_immutable(tu_in(f, stuck), 1)) skip(); /* not root, or no chattr on this file system */
        run_attnviz(&r, NULL, "--train", task, "--steps", "1", "--d-model", "16", "--batch", "2", "-q", "-o",
                    tu_in(f, "m"), NULL);
        set_immutable(tu_in(f, stuck), 0);
        char note[4400], error[4400], saved[4400];
        if (k == 0)
            snprintf(note, sizeof note, "attnviz: note: removed 1 tokenizer file that this run did not write from %s, "
                     "which Hugging Face's AutoTokenizer would read in place of the new model's vocab.json and "
                     "merges.txt: tokenizer.json\n", tu_sh_word(tu_in(f, "m")));
        else
            snprintf(note, sizeof note, "attnviz: note: removed 5 files of a --dump of the model this run replaced from "
                     "%s, so the folder holds one run: token_ids.npy attn.npy scores.npy hidden.npy logits.npy\n",
                     tu_sh_word(tu_in(f, "m")));
        snprintf(error, sizeof error, "attnviz: error: cannot remove %s, ", tu_sh_word(tu_in(f, stuck)));
        snprintf(saved, sizeof saved, ": Operation not permitted; the trained model was saved before this error "
                 "(attnviz --model %s runs it), but train.csv, curves.png, curves.svg, filmstrip.png, filmstrip.svg "
                 "and attention.gif are not written",
                 tu_sh_word(tu_in(f, "m")));
        const char *at = strstr(r.err, note);
        if (r.code != 1 || !at || !strstr(at, error) || !strstr(r.err, saved))
            fail_msg("run %d: exit %d: %s", k, r.code, r.err);
        tu_free(&r);
        if (!file_exists(tu_in(f, stuck))) fail_msg("run %d: %s removed", k, stuck);
        if (file_exists(tu_in(f, k ? "m/attn.npy" : "m/tokenizer.json"))) fail_msg("run %d: not removed", k);
        char *cfg = tu_slurp_file(tu_in(f, "m/config.json"), NULL), want[64];
        snprintf(want, sizeof want, "\"task\":\t\"%s\"", task);
        if (!cfg || !strstr(cfg, want)) fail_msg("run %d: m/config.json is not the new %s model", k, task);
        free(cfg);
        assert_int_equal(unlink(tu_in(f, stuck)), 0);
    }
}

/* The note on a kept dump of another model quotes its source.txt weights line; one of more than 300 bytes was cut
 * with "%.300s", inside a character when the line is Chinese, which showed as U+FFFD and no sign of the cut (a
 * tester's pass). A weights line of 200 × 深 (600 bytes) then " (end)" is shown as its start and its end with
 * " … " between: valid UTF-8 (checked here byte by byte, RFC 3629), at most 300 bytes, its end " (end)" kept. */
static void test_cli_train_kept_dump_note_cuts_at_a_character(void **state) {
    tu_fixture *f = *state;
    train_small(f, "reverse", "2", "m");
    FILE *fp = fopen(tu_in(f, "m/source.txt"), "w"); /* a --model dump's source.txt (its "layers: all" line) */
    assert_non_null(fp);
    fputs("weights: ", fp);
    for (int i = 0; i < 200; i++) fputs("\xE6\xB7\xB1", fp); /* 深 */
    fputs(" (end)\nlayers: all 2\n", fp);
    fclose(fp);
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "-q", "-o",
                tu_in(f, "m"), NULL);
    const char *at = r.err ? strstr(r.err, "(its source.txt: weights: ") : NULL;
    const char *end = at ? strstr(at, "); kept beside the new model") : NULL;
    if (r.code != 0 || !end) fail_msg("exit %d: %s", r.code, r.err ? r.err : "");
    at += strlen("(its source.txt: weights: ");
    size_t n = (size_t)(end - at);
    if (n > 300) fail_msg("%zu bytes shown: %.*s", n, (int)n, at);
    for (size_t i = 0; i < n;) { /* a lead byte and its continuation bytes, none cut */
        unsigned char c = (unsigned char)at[i];
        size_t k = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (!k || i + k > n) fail_msg("not UTF-8 at byte %zu of %.*s", i, (int)n, at);
        for (size_t j = 1; j < k; j++)
            if (((unsigned char)at[i + j] & 0xC0) != 0x80) fail_msg("not UTF-8 at byte %zu", i + j);
        i += k;
    }
    char shown[512];
    snprintf(shown, sizeof shown, "%.*s", (int)n, at);
    if (!strstr(shown, " \xE2\x80\xA6 ") || n < 6 || strcmp(shown + n - 6, " (end)"))
        fail_msg("no \" … \" or no end: %s", shown);
    tu_free(&r);
}

/* An option --train does not use, and input text given to it, name the command for the trained folder with
 * the -o folder in it, one shell word to paste, then the option and a prompt of the task: `--train reverse --steps 20
 * -o r2 --generate 3` warned "use it on a run of the trained folder: attnviz --model DIR ...", and --explain, --head, --layer, --format,
 * --dump and "--train takes no input text" the same, leaving the learner to find the folder (a tester's
 * report). With --compare the models are in -o's variant folders: the first one is named (norm: pre-ln).
 * Each word read back by /bin/bash must be the folder, which then holds the model's config.json. */
static void test_cli_train_names_the_trained_folder_to_paste(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    char word[4600], read[4600];
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-q", "--generate",
                "3", "--layer", "7", "-o", tu_in(f, "it's run"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_word_between(word, sizeof word, r.err, "--generate 3 has no effect with --train; use it on a run of the trained "
                 "folder: attnviz --model ", " --generate 3 \"3 1 4 1 5 >\"\n");
    assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
    assert_string_equal(read, tu_in(f, "it's run"));
    tu_word_between(word, sizeof word, r.err, "(--layer picks a layer of attnviz --model ", ")\n");
    assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
    assert_string_equal(read, tu_in(f, "it's run"));
    assert_true(file_exists(tu_in(f, "it's run/config.json")));
    tu_free(&r);
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-q", "--compare",
                "norm", "--explain", "1,2", "-o", tu_in(f, "c"), NULL);
    if (r.code != 0) fail_msg("--compare: exit %d: %s", r.code, r.err);
    tu_word_between(word, sizeof word, r.err, "--explain 1,2 has no effect with --train; use it on a run of the trained "
                 "folder: attnviz --model ", " --explain 1,2 \"3 1 4 1 5 >\"\n");
    assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
    assert_string_equal(read, tu_in(f, "c/pre-ln"));
    assert_true(file_exists(tu_in(f, "c/pre-ln/config.json")));
    tu_free(&r);
    run_attnviz(&r, NULL, "--train", "sort", "-o", tu_in(f, "x y"), "3 1 >", NULL);
    if (r.code != 2) fail_msg("text: exit %d: %s", r.code, r.err);
    tu_word_between(word, sizeof word, r.err, "try the trained model with: attnviz --model ", " \"3 1 >\"\n");
    assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
    assert_string_equal(read, tu_in(f, "x y"));
    tu_free(&r);
}

/* A run that fails after the model is saved (a full disk at curves.png: RLIMIT_FSIZE between the
 * checkpoint's size and the first figure's, writes failing with EFBIG as with ENOSPC) says that the model
 * was saved and checked, and that the figures are not all written. It said only "cannot write", beside a
 * loadable model.safetensors (a new user's report). The model it names runs with --model. */
static void test_cli_train_failing_after_the_model_says_it_is_saved(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    train_small(f, "reverse", "2", "m");
    struct stat model, curves;
    assert_int_equal(stat(tu_in(f, "m/model.safetensors"), &model), 0);
    assert_int_equal(stat(tu_in(f, "m/curves.png"), &curves), 0);
    assert_true(model.st_size + 1024 < curves.st_size); /* room for the limit between them */
    tu_run_opts ro = {NULL, -1, (long)model.st_size + 512, NULL, 0};
    tu_run_ex(&r, &ro, NULL, 0, (const char *[]){"--train", "reverse", "--steps", "2", "--d-model", "16", "--batch",
                                                  "2", "--seed", "7", "-q", "-o", tu_in(f, "n"), NULL});
    char want[4400];
    snprintf(want, sizeof want, "attnviz: error: cannot write %s: ", tu_sh_word(tu_in(f, "n/curves.png")));
    if (r.code != 1 || !strstr(r.err, want) ||
        !strstr(r.err, "; the trained model was saved and checked before this error (attnviz --model ") ||
        !strstr(r.err, "but curves.png, curves.svg, filmstrip.png, filmstrip.svg and attention.gif are not "
                "written: to write them, fix the cause and rerun the same command (the same seed gives the same "
                "model; it writes the new model.safetensors, ") ||
        !strstr(r.err, " KiB, beside this one before replacing it, so a full disk needs that much room more) or "
                "rerun it with another -o") || strstr(r.err, "train.csv"))
        fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    /* the message names the files the folder lacks, no more: train.csv, written whole before curves.png, is
     * there (it was named among the files "not all written", a tester's pass on a full tmpfs) */
    assert_true(file_exists(tu_in(f, "n/train.csv")));
    static const char *const lack[] = {"n/curves.png", "n/curves.svg", "n/filmstrip.png", "n/filmstrip.svg",
                                       "n/attention.gif"};
    for (size_t k = 0; k < sizeof lack / sizeof lack[0]; k++)
        if (file_exists(tu_in(f, lack[k]))) fail_msg("%s was written, and the message names it", lack[k]);
    run_attnviz(&r, NULL, "--model", tu_in(f, "n"), "--no-plot", "-q", "3 1 >", NULL);
    if (r.code != 0) fail_msg("--model: exit %d: %s", r.code, r.err);
    tu_free(&r);
    /* a failure before the model is whole says it was not saved, and leaves the folder's earlier model as it
     * was: the four files appear together (a new model.safetensors beside the old config.json claimed the old
     * task and step, and a fresh folder kept only model.safetensors, which a rerun then refused) */
    char *before = tu_slurp_file(tu_in(f, "m/config.json"), NULL);
    assert_non_null(before);
    ro.fsize_limit = 1024;
    tu_run_ex(&r, &ro, NULL, 0, (const char *[]){"--train", "sort", "--steps", "3", "--d-model", "16", "--batch",
                                                  "2", "-q", "-o", tu_in(f, "m"), NULL});
    snprintf(want, sizeof want, "cannot write %s: ", tu_sh_word(tu_in(f, "m/model.safetensors")));
    if (r.code != 1 || !strstr(r.err, want) || strstr(r.err, "was saved") ||
        !strstr(r.err, "; the model was not saved ("))
        fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *after = tu_slurp_file(tu_in(f, "m/config.json"), NULL);
    assert_non_null(after);
    assert_string_equal(after, before);
    free(before);
    free(after);
    tu_run_ex(&r, &ro, NULL, 0, (const char *[]){"--train", "reverse", "--steps", "2", "--d-model", "16", "--batch",
                                                  "2", "-q", "-o", tu_in(f, "p"), NULL});
    if (r.code != 1 || !strstr(r.err, "; the model was not saved (")) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    static const char *const none[] = {"p/model.safetensors", "p/config.json", "p/vocab.json", "p/merges.txt"};
    for (int k = 0; k < 4; k++)
        if (access(tu_in(f, none[k]), F_OK) == 0) fail_msg("a failed run left %s", none[k]);
    train_small(f, "reverse", "2", "p"); /* and the same command, with room, finishes the job */
}

/* A Ctrl-C while the model's four files are renamed into place comes after all four or none: strace
 * injects SIGINT right after the first rename. A signal there used to let the handler remove the other
 * temporaries, leaving a step-31 model.safetensors of d_model 32 beside the step-30 config.json of d_model
 * 16 (a new user's report). strace comes with `install-deps.sh test`; skipped without it or ptrace. */
/* `attnviz --train reverse --steps 31 -d 32 --batch 2 -q -o f/m` (with `--compare compare` unless NULL) under
 * strace, which sends it signal sig ("SIGINT") at its when-th rename (the model's four files are renames
 * 1..4, train.csv 5), started with SIGHUP ignored when ignore_hup (as nohup starts it; kept across exec);
 * stderr into f/err. Returns the wait status. Skips the test without strace or ptrace. */
static int train_signalled_at_rename(tu_fixture *f, int when, const char *compare, const char *sig, int ignore_hup) {
    const char *args[] = {tu_bin(), "--train", "reverse", "--steps", "31", "-d", "32", "--batch", "2", "-q", "-o",
                          tu_in(f, "m"), compare ? "--compare" : NULL, compare, NULL};
    char err_path[4096];
    snprintf(err_path, sizeof err_path, "%s", tu_in(f, "err"));
    int st = tu_signal_at_rename(args, sig, when, err_path, ignore_hup);
    if (st == -1) skip(); /* no strace, or no ptrace here */
    return st;
}

/* The same with SIGINT (a Ctrl-C), SIGHUP not ignored. */
static void train_interrupted_at_rename(tu_fixture *f, int when, const char *compare) {
    train_signalled_at_rename(f, when, compare, "SIGINT", 0);
}

/* `nohup attnviz --train ... &` then closing the terminal: nohup starts it with SIGHUP ignored, and the
 * Ctrl-C handler, installed over that, ended the run at the hang-up with the model lost. A signal ignored at
 * the start now stays ignored, as GNU tools leave it: strace sends SIGHUP at the first rename, and the run
 * goes on to write its whole folder and exit 0. Skipped without strace or ptrace. */
static void test_cli_train_under_nohup_ignores_the_hang_up(void **state) {
    tu_fixture *f = *state;
    int st = train_signalled_at_rename(f, 1, NULL, "SIGHUP", 1);
    char *err = tu_slurp_file(tu_in(f, "err"), NULL), shown[1024];
    snprintf(shown, sizeof shown, "%s", err ? err : "");
    free(err); /* before a failure, which leaves the function */
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail_msg("status %d: the ignored SIGHUP ended the run; stderr: %s", st, shown);
    assert_int_equal(count_entries(tu_in(f, "m")), 10); /* kRunFiles: the model, tokenizer, figures, train.csv */
}

/* A file in folder dir named name (made empty), or a folder there when folder. */
static void make_entry(const char *dir, const char *name, int folder) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (folder) assert_int_equal(mkdir(path, 0755), 0);
    else {
        FILE *fp = fopen(path, "w");
        assert_non_null(fp);
        fclose(fp);
    }
}

/* The name in dir that begins with start, into out (n bytes); 0 when none does. */
static int entry_starting(const char *dir, const char *start, char *out, size_t n) {
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *e; d && !found && (e = readdir(d));)
        if (strncmp(e->d_name, start, strlen(start)) == 0) found = 1, snprintf(out, n, "%s", e->d_name);
    if (d) closedir(d);
    return found;
}

/* A run killed by SIGKILL (the OOM killer; strace sends it at the 10th rename, attention.gif's) leaves
 * .attention.gif.tmpXXXXXX, which no handler can remove, and every later run into the folder kept it (a
 * tester's pass). The next run, which holds the folder's lock, removes the temporaries of attnviz's own
 * writer there and says so in a note, with -q too; a file of the user's that merely looks like one (no dot in
 * front, a name attnviz does not write, not six letters or digits, a folder) stays. */
static void test_cli_train_removes_the_temporaries_a_killed_run_left(void **state) {
    tu_fixture *f = *state;
    int st = train_signalled_at_rename(f, 10, NULL, "SIGKILL", 0);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) fail_msg("status %d: not killed at the 10th rename", st);
    char dir[4096], gif[256], want[9000];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "m"));
    if (!entry_starting(dir, ".attention.gif.tmp", gif, sizeof gif)) fail_msg("the killed run left no temporary");
    make_entry(dir, ".config.json.tmpAb3dE9", 0); /* the model's, as a power cut leaves it */
    static const char *const kLookAlikes[] = {".notes.tmp", "attention.gif.tmp1", ".attention.gif.tmp1",
                                              ".attention.gif.tmpAB-12C", ".notes.txt.tmpABCDEF", "curves.png.tmpABCDEF",
                                              ".attention.gif.tmpABCDEFG"};
    for (size_t i = 0; i < sizeof kLookAlikes / sizeof kLookAlikes[0]; i++) make_entry(dir, kLookAlikes[i], 0);
    make_entry(dir, ".curves.png.tmpABCDEF", 1);
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "-d", "32", "--batch", "2", "-q", "-o", dir, NULL);
    snprintf(want, sizeof want, "attnviz: note: removed 2 temporary files an attnviz left in %s when it was killed "
             "while writing: %s .config.json.tmpAb3dE9\n", tu_sh_word(dir), gif);
    if (r.code != 0 || strcmp(r.err, want) != 0) fail_msg("exit %d, stderr '%s', want '%s'", r.code, r.err, want);
    tu_free(&r);
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, gif);
    if (file_exists(path)) fail_msg("%s stayed", gif);
    snprintf(path, sizeof path, "%s/.config.json.tmpAb3dE9", dir);
    assert_false(file_exists(path));
    for (size_t i = 0; i < sizeof kLookAlikes / sizeof kLookAlikes[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, kLookAlikes[i]);
        if (!file_exists(path)) fail_msg("the user's %s was removed", kLookAlikes[i]);
    }
    snprintf(path, sizeof path, "%s/.curves.png.tmpABCDEF", dir);
    assert_true(file_exists(path));
    assert_int_equal(count_entries(dir), 10 + 8); /* kRunFiles and the look-alikes */
}

static void test_cli_train_ctrl_c_between_renames_keeps_one_model(void **state) {
    tu_fixture *f = *state;
    train_small(f, "reverse", "30", "m");
    tu_result r;
    train_interrupted_at_rename(f, 1, NULL);
    char *cfg = tu_slurp_file(tu_in(f, "m/config.json"), NULL);
    assert_non_null(cfg);
    int old = strstr(cfg, "\"step\":\t30") != NULL, now = strstr(cfg, "\"step\":\t31") != NULL;
    free(cfg);
    if (old == now) fail_msg("config.json says neither step 30 nor 31 alone");
    run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--no-plot", "-q", "3 1 >", NULL);
    if (r.code != 0) fail_msg("a mixed model folder (config.json of step %d): %s", old ? 30 : 31, r.err);
    tu_free(&r);
    DIR *d = opendir(tu_in(f, "m"));
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        if (strstr(e->d_name, ".tmp")) fail_msg("a temporary stayed: %s", e->d_name);
    closedir(d);
}

/* A Ctrl-C once the new model is saved, while its figures are written (at train.csv's rename), says so, and
 * leaves none of the replaced model's figures: the folder kept the earlier sort model's attention.gif
 * ("trained on sort") beside the new reverse model, and the run ended without a word (a new user's
 * report). */
static void test_cli_train_ctrl_c_at_figures_leaves_no_old_figure(void **state) {
    tu_fixture *f = *state;
    train_small(f, "sort", "30", "m");
    const char *outs[] = {"train.csv", "curves.png", "curves.svg", "filmstrip.png", "filmstrip.svg", "attention.gif"};
    char *old[6];
    size_t old_len[6];
    char path[4096];
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "m/%s", outs[i]);
        old[i] = tu_slurp_file(tu_in(f, path), &old_len[i]);
        assert_non_null(old[i]);
    }
    /* at the last of the model's renames (4; the signal waits for the set's end) and at train.csv's (5): the
     * message said "not saved" in the moment after the renames, while the sort figures still stood; then it
     * said the six files were "not written" while the sort run's stood there (a review of the change): the
     * folder, read here, must hold the sort run's train.csv, and the message say whose they are */
    train_interrupted_at_rename(f, 4, NULL);
    char *err = tu_slurp_file(tu_in(f, "err"), NULL);
    assert_non_null(err);
    size_t csv_len;
    char *csv = tu_slurp_file(tu_in(f, "m/train.csv"), &csv_len);
    if (!csv || csv_len != old_len[0] || memcmp(csv, old[0], csv_len)) fail_msg("m/train.csv is not the sort run's");
    free(csv);
    if (!strstr(err, "attnviz: interrupted: the trained model in ") || !strstr(err, "was saved, but train.csv, "
        "curves.png, curves.svg, filmstrip.png, filmstrip.svg and attention.gif are not written (those there are the "
        "replaced model's): rerun the same command"))
        fail_msg("at the model's last rename, stderr: %s", err);
    free(err);
    train_interrupted_at_rename(f, 5, NULL);
    err = tu_slurp_file(tu_in(f, "err"), NULL);
    char *cfg = tu_slurp_file(tu_in(f, "m/config.json"), NULL);
    assert_true(err && cfg);
    /* strace counts rename(2) apart from renameat2(2), which replaced the model's 4 files here: its 5th rename
     * is filmstrip.svg's, and the message names the files in place from each one's rename on; it named none,
     * "its training figures and train.csv are not all written" (a learner's pass: what is in DIR?) */
    if (!strstr(err, "attnviz: interrupted: the trained model in ") || !strstr(err, "was saved with train.csv, "
        "curves.png, curves.svg, filmstrip.png and filmstrip.svg, but attention.gif is not written: rerun the same "
        "command"))
        fail_msg("stderr: %s", err);
    if (access(tu_in(f, "m/attention.gif"), F_OK) == 0 || access(tu_in(f, "m/filmstrip.svg"), F_OK) != 0)
        fail_msg("attention.gif is there, or filmstrip.svg is not");
    assert_non_null(strstr(cfg, "\"task\":\t\"reverse\""));
    for (int i = 0; i < 6; i++) {
        size_t len;
        snprintf(path, sizeof path, "m/%s", outs[i]);
        char *now = tu_slurp_file(tu_in(f, path), &len);
        if (now && len == old_len[i] && memcmp(now, old[i], len) == 0) fail_msg("%s is the sort model's", outs[i]);
        free(now);
        free(old[i]);
    }
    free(err);
    free(cfg);
}

/* A Ctrl-C while the figures are written names, file by file, what the folder holds: strace sends it at the
 * rename of curves.svg (7: the model's 4, train.csv, curves.png, curves.svg) and of attention.gif (10); the
 * names said to be written must be in the folder and the others not (the folder is the independent check). It
 * said "its training figures and train.csv are not all written" at both (a learner's pass: what is in DIR?). */
static void test_cli_train_ctrl_c_names_the_files_written(void **state) {
    tu_fixture *f = *state;
    static const char *const outs[] = {"train.csv", "curves.png", "curves.svg", "filmstrip.png", "filmstrip.svg",
                                       "attention.gif"};
    char want[8192], path[64];
    train_interrupted_at_rename(f, 7, NULL);
    char *err = tu_slurp_file(tu_in(f, "err"), NULL);
    assert_non_null(err);
    snprintf(want, sizeof want, "attnviz: interrupted: the trained model in %s was saved with train.csv, curves.png "
             "and curves.svg, but filmstrip.png, filmstrip.svg and attention.gif are not written: rerun the same "
             "command (the same seed gives the same model) to write them\n", tu_sh_word(tu_in(f, "m")));
    if (strcmp(err, want) != 0) fail_msg("stderr '%s', want '%s'", err, want);
    free(err);
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "m/%s", outs[i]);
        if ((access(tu_in(f, path), F_OK) == 0) != (i < 3)) fail_msg("%s %s", outs[i], i < 3 ? "is missing" : "is there");
    }
    assert_int_equal(rename(tu_in(f, "m"), tu_in(f, "m1")), 0);
    train_interrupted_at_rename(f, 10, NULL);
    err = tu_slurp_file(tu_in(f, "err"), NULL);
    assert_non_null(err);
    snprintf(want, sizeof want, "attnviz: interrupted: the trained model in %s was saved with its training figures "
             "and train.csv\n", tu_sh_word(tu_in(f, "m")));
    if (strcmp(err, want) != 0) fail_msg("stderr '%s', want '%s'", err, want);
    free(err);
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "m/%s", outs[i]);
        if (access(tu_in(f, path), F_OK) != 0) fail_msg("%s is missing", outs[i]);
    }
}

/* A run of another model into a folder --train wrote puts its figures beside the training figures, which
 * stay: a note says so (a reverse model's model.png went into an induction folder without a word: a new
 * user's report). A run of the trained folder itself has no note; -q keeps it, as it keeps the other notes (it
 * had none: a lecturer scripting slides with -q got two models' figures in one folder without a word, a tester's
 * report), and so does --no-plot --html, whose page goes there too. The folder has a space ("my ind"): the note
 * named it bare, "-o /tmp/x/my ind holds the model ...", two words to the eye where --model's messages give one
 * shell word (a maintainer's list); the expected text quotes it by tu_sh_word. */
static void test_cli_other_model_into_training_folder_notes_it(void **state) {
    tu_fixture *f = *state;
    train_small(f, "induction", "2", "my ind"); /* a space: -o one shell word in the note */
    train_small(f, "reverse", "2", "rev");
    tu_result r;
    run_attnviz(&r, NULL, "--model", tu_in(f, "rev"), "-o", tu_in(f, "my ind"), "3 1 4 >", NULL);
    char want[4400];
    snprintf(want, sizeof want, "attnviz: note: -o %s holds the model an earlier --train trained (induction, step 2) "
             "and its training figures; this run's figures, of %s, go beside them", tu_sh_word(tu_in(f, "my ind")), tu_sh_word(tu_in(f, "rev")));
    if (r.code != 0 || !strstr(r.err, want)) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char same[4400];
    snprintf(same, sizeof same, "%s/", tu_in(f, "my ind")); /* the same folder, named otherwise */
    run_attnviz(&r, NULL, "--model", tu_in(f, "my ind"), "-o", same, "k q a", NULL);
    if (r.code != 0 || strstr(r.err, "holds the model an earlier --train")) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "-o", tu_in(f, "my ind"), "I love you", NULL);
    snprintf(want, sizeof want, "attnviz: note: -o %s holds the model an earlier --train trained (induction, step 2) "
             "and its training figures; this run's figures, of the sentence's random-weight model, go beside them",
             tu_sh_word(tu_in(f, "my ind")));
    if (r.code != 0 || !strstr(r.err, want)) fail_msg("-q: exit %d: %s", r.code, r.err);
    tu_free(&r);
    /* --weights: the figures are of the folder's weights, not of a random-weight model */
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--dump", tu_in(f, "w"), "I love you", NULL);
    if (r.code != 0) fail_msg("--dump: exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "-d", "8", "--weights", tu_in(f, "w"), "-o", tu_in(f, "my ind"), "I love you", NULL);
    snprintf(want, sizeof want, "attnviz: note: -o %s holds the model an earlier --train trained (induction, step 2) "
             "and its training figures; this run's figures, of the sentence's model with --weights %s, go beside them",
             tu_sh_word(tu_in(f, "my ind")), tu_sh_word(tu_in(f, "w")));
    if (r.code != 0 || !strstr(r.err, want) || strstr(r.err, "random-weight"))
        fail_msg("--weights: exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", tu_in(f, "rev"), "--no-plot", "--html", "-o", tu_in(f, "my ind"), "3 1 4 >", NULL);
    if (r.code != 0 || !strstr(r.err, "holds the model an earlier --train trained (induction, step 2)"))
        fail_msg("--no-plot --html: exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", tu_in(f, "rev"), "--no-plot", "-o", tu_in(f, "my ind"), "3 1 4 >", NULL);
    if (r.code != 0 || strstr(r.err, "holds the model")) fail_msg("--no-plot writes nothing there: exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* n_positions (32 for a trained toy model) is the longest sequence for every kind of positions: --generate
 * 1000 on a RoPE model went on to 1006 tokens, where a learned one stopped at 32 (a new user's report). A
 * longer input still runs (RoPE has no table to run out of), with a note that says so. */
static void test_cli_rope_model_generates_up_to_n_positions(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--positions", "rope", "--steps", "1", "--d-model", "16", "--batch",
                "2", "-q", "-o", tu_in(f, "rope"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", tu_in(f, "rope"), "--no-plot", "--generate", "1000", "3 1 4 1 5 >", NULL);
    /* 6 tokens of input, 26 generated: 32 */
    if (r.code != 0 || !strstr(r.out, "stopped after 26 of 1000: at most 32 tokens (the model's n_positions)"))
        fail_msg("exit %d\n%s\n%s", r.code, r.out, r.err);
    tu_free(&r);
    char text[200] = "1 2";
    for (int i = 0; i < 31; i++) strcat(text, " 3"); /* 33 tokens */
    run_attnviz(&r, NULL, "--model", tu_in(f, "rope"), "--no-plot", text, NULL);
    char want[4400];
    snprintf(want, sizeof want, "attnviz: note: the input is 33 tokens, more than n_positions 32 in %s: "
             "RoPE is computed for any position, but the model was made for at most 32\n",
             tu_sh_file_word(tu_in(f, "rope"), "config.json"));
    if (r.code != 0 || !strstr(r.err, want)) fail_msg("exit %d\n%s", r.code, r.err);
    tu_free(&r);
    /* --generate on it: past the length, not "already the maximum length" (33 > 32) */
    run_attnviz(&r, NULL, "--model", tu_in(f, "rope"), "--no-plot", "--generate", "1", text, NULL);
    if (r.code != 0 || !strstr(r.err, "the input is 33 tokens, past the maximum length of 32 positions (the model's "
                                      "n_positions), so --generate 1 can generate no tokens"))
        fail_msg("exit %d\n%s", r.code, r.err);
    tu_free(&r);
}

/* --model --html on an input whose page cannot hold one head is refused before the forward pass, as the
 * single layer refuses it: 3200 tokens ran about 7 s and took (L, H, T, T) = 2 × 4 × 3200² × 2 floats,
 * 655 MB, before "over the page's 16 MiB" (a learner's pass). Under a 400 MB address-space limit the old
 * binary failed with "out of memory allocating activations" (exit 1); the refusal needs none of it. A RoPE
 * toy model has no position limit to meet first. The child alone runs under the limit (as_limit_kib);
 * skipped under AddressSanitizer, which cannot start under it. */
static void test_cli_model_html_too_large_is_refused_before_the_forward_pass(void **state) {
#if defined(__SANITIZE_ADDRESS__)
    (void)state;
    skip();
#else
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--positions", "rope", "--steps", "1", "-q", "-o", tu_in(f, "m"), NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    const char *in = tu_in(f, "long.txt"); /* "1 1 … 1": 3200 tokens */
    FILE *fp = fopen(in, "w");
    assert_non_null(fp);
    fputc('1', fp);
    for (int i = 1; i < 3200; i++) fputs(" 1", fp);
    fclose(fp);
    const char *args[] = {"--model", tu_in(f, "m"), "-q", "--kernel", "reference", "--html", "-f", in, "-o",
                          tu_in(f, "page"), NULL};
    tu_run_ex(&r, &(tu_run_opts){.stdout_fd = -1, .as_limit_kib = 400000}, NULL, 0, args);
    if (r.code != 2 || !strstr(r.err, "attnviz: error: --html: one head's weights and scores for 3200 tokens take "
                                      "19.5 MiB at 8 bits, with the (T, T) mask it stores (9.77 MiB) 29.30 MiB in "
                                      "all, over the page's 16 MiB"))
        fail_msg("exit %d: %s", r.code, r.err);
    assert_false(file_exists(tu_in(f, "page")));
    tu_free(&r);
#endif
}

/* OpenBLAS's work buffers under an address-space limit: `ulimit -v 400000; attnviz --train reverse -o NEW`
 * loaded OpenBLAS (its buffers for the CPUs fitted then), made NEW/, and a thread's first sgemm, with the
 * model's memory taken, found no room and ended the process at once (exit 1): NEW/ was left behind, empty,
 * where a Ctrl-C or any other failure before the model is saved takes the run's folder away (a tester's
 * pass). Now that exit removes it too. With more CPUs the check at load fails first: the same exit 1, the
 * same words, no folder. The child alone runs under the limit (as_limit_kib);
 * skipped under AddressSanitizer. */
static void test_cli_train_no_blas_room_leaves_no_empty_folder(void **state) {
#if defined(__SANITIZE_ADDRESS__)
    (void)state;
    skip();
#else
    tu_fixture *f = *state;
    tu_result r;
    const char *args[] = {"--train", "reverse", "--steps", "3", "-q", "-o", tu_in(f, "new/sub"), NULL};
    tu_run_ex(&r, &(tu_run_opts){.stdout_fd = -1, .as_limit_kib = 400000}, NULL, 0, args);
    if (r.code != 1 || !strstr(r.err, "do not fit under the process's memory limit") || file_exists(tu_in(f, "new")))
        fail_msg("exit %d, new/ %s: %s", r.code, file_exists(tu_in(f, "new")) ? "left behind" : "not there", r.err);
    tu_free(&r);
#endif
}

/* The trainer's memory under an address-space limit: `ulimit -v 300000; attnviz --train reverse --steps 1 -d 1024
 * --kernel reference` said only "out of memory for the parameters" (at 500000 "... for the gradients"), where
 * the 2 GiB refusal says what the model needs and what to lower (a tester's pass). It says the size now, at
 * least the parameters, AdamW's m and v and one gradient per chunk of 8 sequences (nn/train.h: 4·(3 + G)·P
 * bytes, G = 32 / 8 = 4), P hand-counted for GPT-2's layout (wte V·C, wpe T·C, per layer two LayerNorms 4C,
 * c_attn 3C² + 3C, c_proj C² + C, c_fc 4C² + 4C, mlp c_proj 4C² + C; ln_f 2C), and the options that lower it.
 * Skipped under AddressSanitizer (its shadow memory needs the address space). */
static void test_cli_train_out_of_memory_says_size_and_options(void **state) {
#if defined(__SANITIZE_ADDRESS__)
    (void)state;
    skip();
#else
    tu_fixture *f = *state;
    tu_result r;
    const double C = 1024, V = 294, T = 32, L = 2;
    double P = V * C + T * C + L * (4 * C + 3 * C * C + 3 * C + C * C + C + 4 * C * C + 4 * C + 4 * C * C + C) + 2 * C;
    double least_gib = 4 * (3 + 4) * P / (1024.0 * 1024 * 1024); /* about 0.67 */
    static const long limits[] = {300000, 500000};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        const char *args[] = {"--train", "reverse", "--steps", "1", "-d", "1024", "--kernel", "reference", "-q", "-o",
                              tu_in(f, "m"), NULL};
        tu_run_ex(&r, &(tu_run_opts){.stdout_fd = -1, .as_limit_kib = limits[k]}, NULL, 0, args);
        const char *at = strstr(r.err, "needs at least ");
        double gib = at ? strtod(at + 15, NULL) : 0;
        char want[64];
        snprintf(want, sizeof want, "(ulimit -v %ld)", limits[k]);
        if (r.code != 1 || !strstr(r.err, "attnviz: error: out of memory for the ") ||
            !strstr(r.err, ": --train with d_model 1024, 2 layers, 4 heads and batch 32 needs at least ") ||
            !at || !strstr(at, " GiB (parameters, gradients, AdamW moments, activations)") || gib < least_gib ||
            !strstr(r.err, want) || !strstr(r.err, "; try a smaller --d-model, --batch or --layers\n"))
            fail_msg("ulimit -v %ld: exit %d, %.3f GiB (at least %.3f): %s", limits[k], r.code, gib, least_gib, r.err);
        tu_free(&r);
    }
#endif
}

/* A FIFO in place of a model folder's file (`mkfifo DIR/config.json`) is refused at once, exit 2: opening it
 * waited for a writer forever (a new user's report; /dev/zero there was refused already). A folder in its
 * place is refused with the same words for each of the four files: config.json, vocab.json and merges.txt
 * said "Is a directory" where model.safetensors said "it is a folder, not a regular file" (a learner's
 * pass). Each of the folder's four files in turn, as a FIFO then as a folder; the child is killed by
 * SIGALRM after 60 s, so a hang fails the test instead of stopping the suite. */
static void test_cli_model_folder_fifo_is_refused(void **state) {
    tu_fixture *f = *state;
    train_small(f, "reverse", "2", "m");
    static const char *const files[] = {"config.json", "vocab.json", "merges.txt", "model.safetensors"};
    for (size_t k = 0; k < 2 * sizeof files / sizeof files[0]; k++) {
        size_t i = k / 2;
        int folder = (int)(k % 2);
        char rel[64], path[4200], saved[4200], err_path[4200];
        snprintf(rel, sizeof rel, "m/%s", files[i]);
        snprintf(path, sizeof path, "%s", tu_in(f, rel));
        snprintf(saved, sizeof saved, "%s", tu_in(f, "saved"));
        snprintf(err_path, sizeof err_path, "%s", tu_in(f, "err"));
        assert_int_equal(rename(path, saved), 0);
        assert_int_equal(folder ? mkdir(path, 0755) : mkfifo(path, 0644), 0);
        pid_t pid = fork();
        if (pid == 0) {
            int devnull = open("/dev/null", O_WRONLY), e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(devnull, 1), dup2(e, 2);
            alarm(60);
            execl(tu_bin(), tu_bin(), "--model", tu_in(f, "m"), "--no-plot", "-q", "3 1 >", (char *)NULL);
            _exit(127);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        char *err = tu_slurp_file(err_path, NULL), want[4400];
        snprintf(want, sizeof want, "attnviz: error: cannot read %s: it is %s, not a regular file\n", tu_sh_word(path),
                 folder ? "a folder" : "a FIFO");
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 2 || !err || strcmp(err, want) != 0)
            fail_msg("%s %s: status %d (signal %d), stderr '%s'", files[i], folder ? "a folder" : "a FIFO", st,
                     WIFSIGNALED(st) ? WTERMSIG(st) : 0, err ? err : "");
        free(err);
        assert_int_equal(folder ? rmdir(path) : unlink(path), 0);
        assert_int_equal(rename(saved, path), 0);
    }
}

/* A file put into the folder made for the run while it trains keeps the folder at a Ctrl-C (rmdir takes only
 * an empty one), and the message, set before the first step, said "D was made for this run and is removed"
 * of a folder still there (a learner's pass: notes.txt copied into runs/reverse during training). It now
 * says the folder is kept, and why. The file goes in once step 0's line is out, the signal 0.5 s later. */
static void test_cli_train_ctrl_c_keeps_a_made_folder_holding_a_file(void **state) {
    tu_fixture *f = *state;
    char dir[4200], notes[4300], errpath[4200];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "runs"));
    snprintf(notes, sizeof notes, "%s/notes.txt", dir);
    snprintf(errpath, sizeof errpath, "%s", tu_in(f, "err.txt"));
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        close(fds[0]);
        dup2(fds[1], 1);
        dup2(e, 2);
        alarm(60);
        execl(tu_bin(), tu_bin(), "--train", "reverse", "--steps", "1000000", "--d-model", "16", "--batch", "2", "-o",
              dir, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    FILE *out = fdopen(fds[0], "r");
    assert_non_null(out);
    char line[1024];
    int started = 0;
    while (!started && fgets(line, sizeof line, out)) started = strncmp(line, "step 0 ", 7) == 0;
    FILE *n = started ? fopen(notes, "w") : NULL;
    if (n) fputs("my notes\n", n), fclose(n);
    usleep(500000);
    kill(pid, SIGINT);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    fclose(out);
    char *err = tu_slurp_file(errpath, NULL), want[9000];
    snprintf(want, sizeof want, "attnviz: interrupted: training stopped; the model was not saved (%s was made for this "
             "run and is kept: it holds files this run did not write)\n", tu_sh_word(dir));
    int ok = started && WIFSIGNALED(st) && WTERMSIG(st) == SIGINT && err && strcmp(err, want) == 0;
    char shown[4096];
    snprintf(shown, sizeof shown, "%s", err ? err : "");
    free(err);
    if (!ok) fail_msg("started %d, status %d, stderr '%s', want '%s'", started, st, shown, want);
    assert_true(file_exists(notes));
}

/* `attnviz --train reverse ARGS -o dir` (ARGS: --compare compare unless NULL) with stdout a pipe that has no
 * reader from the start, so the first line flushed (step 0's) raises SIGPIPE; *st = its wait status, and
 * its stderr is returned (free it). */
static char *train_into_broken_pipe(tu_fixture *f, const char *dir, const char *compare, int *st) {
    const char *argv[] = {tu_bin(), "--train", "reverse", "--steps", "50", "--d-model", "16", "--batch", "4", "-o", dir,
                          compare ? "--compare" : NULL, compare, NULL};
    char *err = tu_run_into_broken_pipe(tu_in(f, "err.txt"), argv, st);
    assert_non_null(err);
    return err;
}

/* `attnviz --train reverse -o D | head -1`: the reader goes, the next line raises SIGPIPE, and the run
 * ended with exit 141 and not a word, the model thrown away (a new user's report). Now it says so, as
 * for Ctrl-C, and the folder made for the run, still empty, is removed and the message says so ("keeps
 * what it held" said it held something; then "is empty" left an empty folder the run had made, and
 * `timeout -s INT 3 attnviz --train reverse -o X` left X: a new user's report). With --compare every
 * variant's folder is made before the first step, and the message named only the one in training: it
 * names the others too; -o and both variant folders go. A folder that was there before stays. It says
 * the pipe was closed, not "interrupted" (a learner took that for something they had done). */
static void test_cli_train_broken_pipe_says_what_it_leaves(void **state) {
    tu_fixture *f = *state;
    int st = 0;
    const char *dir = tu_in(f, "d");
    char *err = train_into_broken_pipe(f, dir, NULL, &st);
    char want[9000];
    snprintf(want, sizeof want, "attnviz: standard output was closed (broken pipe): training stopped; the model was not saved (%s "
             "was made for this run and is removed)\n", tu_sh_word(dir));
    if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) || strcmp(err, want) != 0)
        fail_msg("status %d (signal %d), stderr '%s', want '%s'", st, WIFSIGNALED(st) ? WTERMSIG(st) : 0, err, want);
    if (access(dir, F_OK) == 0) fail_msg("%s, made for the run, was left behind", dir);
    free(err);
    dir = tu_in(f, "made/deeper");
    err = train_into_broken_pipe(f, dir, NULL, &st);
    if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) || access(tu_in(f, "made"), F_OK) == 0)
        fail_msg("-o made/deeper: status %d, %s left behind: %s", st, tu_in(f, "made"), err);
    free(err);
    dir = tu_in(f, "there");
    assert_int_equal(mkdir(dir, 0755), 0);
    err = train_into_broken_pipe(f, dir, NULL, &st); /* not made by the run: it stays, empty */
    snprintf(want, sizeof want, "attnviz: standard output was closed (broken pipe): training stopped; the model was not saved (%s "
             "is empty)\n", tu_sh_word(dir));
    if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) || strcmp(err, want) != 0)
        fail_msg("status %d (signal %d), stderr '%s', want '%s'", st, WIFSIGNALED(st) ? WTERMSIG(st) : 0, err, want);
    assert_int_equal(count_entries(dir), 0);
    assert_int_equal(access(dir, F_OK), 0);
    free(err);
    dir = tu_in(f, "c");
    err = train_into_broken_pipe(f, dir, "scale", &st);
    /* "this variant's model", and the comparison named as not written (a tester's report) */
    snprintf(want, sizeof want, "attnviz: standard output was closed (broken pipe): training stopped; this variant's "
             "model was not saved (%s "
             "was made for this run and is removed; %s was made for this run and is removed, not trained yet; "
             "%s and .svg not written)\n", tu_sh_word(tu_in(f, "c/scale")), tu_sh_word(tu_in(f, "c/no-scale")),
             tu_sh_word(tu_in(f, "c/compare_scale.png")));
    if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) || strcmp(err, want) != 0)
        fail_msg("--compare: status %d (signal %d), stderr '%s', want '%s'", st, WIFSIGNALED(st) ? WTERMSIG(st) : 0,
                 err, want);
    if (access(dir, F_OK) == 0) fail_msg("--compare: %s, made for the run, was left behind", dir);
    free(err);
}

/* A --compare interrupted after its first variant is replaced leaves no comparison of the variants it
 * replaced: compare_scale.png of an earlier sort comparison stood beside a new reverse scale/ (a new user's
 * report). */
static void test_cli_train_compare_interrupted_leaves_no_old_comparison(void **state) {
    tu_fixture *f = *state;
    train_small_compare(f, "sort", "2", "scale", "m");
    assert_int_equal(access(tu_in(f, "m/compare_scale.png"), F_OK), 0);
    train_interrupted_at_rename(f, 5, "scale"); /* scale/'s train.csv: scale/ is replaced, no-scale/ not yet */
    char *cfg = tu_slurp_file(tu_in(f, "m/scale/config.json"), NULL);
    assert_non_null(cfg);
    assert_non_null(strstr(cfg, "\"task\":\t\"reverse\""));
    free(cfg);
    if (access(tu_in(f, "m/compare_scale.png"), F_OK) == 0 || access(tu_in(f, "m/compare_scale.svg"), F_OK) == 0)
        fail_msg("the sort comparison stayed beside the new reverse scale/");
}

/* A Ctrl-C while a --compare variant's figures are written names every variant's folder, as during
 * training: it said only "the trained model in csig/learned was saved, but its training figures ... are not
 * all written", not that sinusoidal/ and rope/ were empty and the comparison not written (a tester's report).
 * While the comparison is drawn (rename 31: 3 variants of 10 files, then compare_positions.png), it says
 * every variant is whole, compare_positions.png written and compare_positions.svg not: it said
 * "compare_positions.png and .svg are not all written" beside the .png (a review of the Ctrl-C messages). From
 * the .svg's rename (32) it says both are written, and not yet that the run is complete: an earlier run's figures
 * are removed after it (a review of the change). */
static void test_cli_train_compare_interrupted_at_figures_names_every_variant(void **state) {
    tu_fixture *f = *state;
    char m[4096], want[20000];
    snprintf(m, sizeof m, "%s", tu_in(f, "m"));
    train_interrupted_at_rename(f, 5, "positions"); /* learned/'s train.csv: its model is saved */
    char *err = tu_slurp_file(tu_in(f, "err"), NULL);
    assert_non_null(err);
    snprintf(want, sizeof want, "attnviz: interrupted: the trained model in %s was saved with train.csv, but "
             "curves.png, curves.svg, filmstrip.png, filmstrip.svg and attention.gif are not written (%s was made for "
             "this run and is removed, not trained yet; %s was made for this run and is removed, not trained yet; %s "
             "and .svg not written): rerun the same command (the same seed gives the same model) to write them\n",
             tu_sh_word(tu_in(f, "m/learned")), tu_sh_word(tu_in(f, "m/sinusoidal")), tu_sh_word(tu_in(f, "m/rope")),
             tu_sh_word(tu_in(f, "m/compare_positions.png")));
    if (strcmp(err, want) != 0) fail_msg("stderr '%s', want '%s'", err, want);
    if (access(tu_in(f, "m/rope"), F_OK) == 0 || access(tu_in(f, "m/learned/config.json"), F_OK) != 0)
        fail_msg("the empty rope/ stayed, or learned/'s saved model went");
    free(err);
    assert_int_equal(rename(m, tu_in(f, "m1")), 0); /* a fresh folder: strace counts rename and renameat2 apart */
    train_interrupted_at_rename(f, 31, "positions");
    err = tu_slurp_file(tu_in(f, "err"), NULL);
    assert_non_null(err);
    snprintf(want, sizeof want, "attnviz: interrupted: every variant's trained model was saved with its figures and "
             "train.csv (%s, %s, %s), and %s was written, but %s is not: rerun the same command (the same "
             "seed gives the same models) to write it\n", tu_sh_word(tu_in(f, "m/learned")),
             tu_sh_word(tu_in(f, "m/sinusoidal")), tu_sh_word(tu_in(f, "m/rope")),
             tu_sh_word(tu_in(f, "m/compare_positions.png")), tu_sh_word(tu_in(f, "m/compare_positions.svg")));
    if (strcmp(err, want) != 0) fail_msg("at the comparison: stderr '%s', want '%s'", err, want);
    free(err);
    assert_int_equal(access(tu_in(f, "m/compare_positions.png"), F_OK), 0);
    assert_int_equal(access(tu_in(f, "m/compare_positions.svg"), F_OK), -1);
    assert_int_equal(rename(m, tu_in(f, "m2")), 0);
    train_interrupted_at_rename(f, 32, "positions"); /* compare_positions.svg */
    err = tu_slurp_file(tu_in(f, "err"), NULL);
    assert_non_null(err);
    snprintf(want, sizeof want, "attnviz: interrupted: every variant's trained model was saved with its figures and "
             "train.csv (%s, %s, %s), and %s and .svg were written\n", tu_sh_word(tu_in(f, "m/learned")),
             tu_sh_word(tu_in(f, "m/sinusoidal")), tu_sh_word(tu_in(f, "m/rope")),
             tu_sh_word(tu_in(f, "m/compare_positions.png")));
    if (strcmp(err, want) != 0) fail_msg("at the comparison's .svg: stderr '%s', want '%s'", err, want);
    free(err);
    assert_int_equal(access(tu_in(f, "m/compare_positions.svg"), F_OK), 0);
}

/* `attnviz --train reverse --steps 20000 -o dir` started in the background, stdout a pipe and stderr
 * /dev/null; returns its pid once it has printed its step-0 line, so it has begun training (and, with the
 * folder lock, holds dir's lock: it is taken before the header line). *out_fd: the pipe's read end, for
 * the caller to close after ending it: closed here, the run's next line (step 1's snapshot) raised
 * SIGPIPE and ended it, with its lock, while the test still counted on it (the test failed once under
 * load). Unread, the run blocks once the pipe is full, still holding the lock. Fails the test if it
 * ends first. */
static pid_t start_long_training(const char *dir, int *out_fd) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(fds[1], 1), dup2(devnull, 2);
        close(fds[0]);
        execl(tu_bin(), tu_bin(), "--train", "reverse", "--steps", "20000", "-o", dir, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[4096];
    size_t n = 0;
    for (ssize_t k; n + 1 < sizeof buf && (k = read(fds[0], buf + n, sizeof buf - 1 - n)) > 0;) {
        n += (size_t)k;
        buf[n] = 0;
        if (strstr(buf, "\nstep 0 ")) break;
    }
    buf[n] = 0;
    if (!strstr(buf, "\nstep 0 ")) {
        close(fds[0]);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        fail_msg("the training into %s ended before step 0: %s", dir, buf);
    }
    *out_fd = fds[0];
    return pid;
}

/* Two trainings into one folder at once both exited 0, leaving the second's config.json and
 * model.safetensors beside the first's train.csv and figures (a tester's report). The second is refused at
 * once, exit 1 naming the folder, and writes nothing there; with --compare too. Trainings into different
 * folders still run at once, and --model reading the folder under training is not blocked. */
static void test_cli_train_refuses_a_folder_another_training_writes(void **state) {
    tu_fixture *f = *state;
    train_small(f, "sort", "2", "m"); /* a model for --model to read while m trains again */
    char dir[4096], want[4400];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "m"));
    snprintf(want, sizeof want, "attnviz: error: cannot train into %s: another attnviz --train is writing it",
             tu_sh_word(dir));
    char *cfg_before = tu_slurp_file(tu_in(f, "m/config.json"), NULL);
    assert_non_null(cfg_before);
    int first_out;
    pid_t first = start_long_training(dir, &first_out);
    tu_result same, cmp, other, model;
    run_attnviz(&same, NULL, "--train", "reverse", "--steps", "3", "--d-model", "16", "--batch", "2", "-o", dir, NULL);
    char *cfg_after = tu_slurp_file(tu_in(f, "m/config.json"), NULL);
    run_attnviz(&cmp, NULL, "--train", "reverse", "--steps", "3", "--d-model", "16", "--batch", "2", "--compare",
                "norm", "-o", dir, NULL);
    int variants = access(tu_in(f, "m/pre-ln"), F_OK) == 0 || access(tu_in(f, "m/post-ln"), F_OK) == 0;
    run_attnviz(&other, NULL, "--train", "reverse", "--steps", "3", "--d-model", "16", "--batch", "2", "-q", "-o",
                tu_in(f, "other"), NULL);
    run_attnviz(&model, NULL, "--model", dir, "--no-plot", "-q", "3 1 >", NULL);
    int alive = kill(first, 0) == 0 && waitpid(first, NULL, WNOHANG) == 0; /* held the lock throughout */
    kill(first, SIGTERM);
    waitpid(first, NULL, 0);
    close(first_out);
    if (!alive) fail_msg("the first training ended before the checks did");
    int same_ok = same.code == 1 && strstr(same.err, want) && !same.out[0] && cfg_after &&
                  !strcmp(cfg_before, cfg_after);
    if (!same_ok) fail_msg("the same folder: exit %d\nstdout: %s\nstderr: %s", same.code, same.out, same.err);
    if (cmp.code != 1 || !strstr(cmp.err, want) || variants)
        fail_msg("--compare into it: exit %d, variant folders %d\nstderr: %s", cmp.code, variants, cmp.err);
    if (other.code != 0) fail_msg("another folder: exit %d: %s", other.code, other.err);
    if (model.code != 0) fail_msg("--model of the folder in training: exit %d: %s", model.code, model.err);
    tu_free(&same), tu_free(&cmp), tu_free(&other), tu_free(&model);
    free(cfg_before), free(cfg_after);
    /* once the first is gone, its lock is too (no lock file stays behind) */
    run_attnviz(&same, NULL, "--train", "reverse", "--steps", "3", "--d-model", "16", "--batch", "2", "-q", "-o", dir,
                NULL);
    if (same.code != 0) fail_msg("after the first ended: exit %d: %s", same.code, same.err);
    tu_free(&same);
    assert_int_equal(count_entries(dir), 10); /* kRunFiles, nothing else */
    /* a plain run into a variant's folder refuses a --compare before it makes the other variant's folder (an
     * empty v/post-ln stayed behind: a tester's report) */
    char vdir[4096];
    snprintf(vdir, sizeof vdir, "%s", tu_in(f, "v/pre-ln"));
    av_err merr;
    assert_int_equal(av_mkdir_p(vdir, &merr), AV_OK);
    first = start_long_training(vdir, &first_out);
    run_attnviz(&cmp, NULL, "--train", "reverse", "--steps", "3", "--d-model", "16", "--batch", "2", "--compare",
                "norm", "-o", tu_in(f, "v"), NULL);
    kill(first, SIGTERM);
    waitpid(first, NULL, 0);
    close(first_out);
    snprintf(want, sizeof want, "cannot train into %s: another attnviz --train is writing it", tu_sh_word(vdir));
    if (cmp.code != 1 || !strstr(cmp.err, want))
        fail_msg("--compare beside a run in its pre-ln/: exit %d: %s", cmp.code, cmp.err);
    tu_free(&cmp);
    assert_int_equal(access(tu_in(f, "v/post-ln"), F_OK), -1);
}

/* config.json's attnviz.task and attnviz.step are printed in the header, trace and figures: a lying value
 * is exit 2, shown as JSON. An ESC sequence in "task" reached the terminal as it was, and "step": -7 was
 * printed as "step -7" (a new user's report). A NUL (\u0000) inside the task name is refused too. */
static void test_cli_trained_model_checks_task_and_step(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    train_small(f, "reverse", "1", "m");
    char *cfg = tu_slurp_file(tu_in(f, "m/config.json"), NULL);
    assert_non_null(cfg);
    static const struct { const char *from, *to, *says; } cases[] = {
        {"\"task\":\t\"reverse\"", "\"task\": \"\\u001b[31mred\"", "attnviz.task \"\\u001b[31mred\": expected "
         "\"reverse\", \"sort\" or \"induction\" (the task --train trained)"},
        {"\"task\":\t\"reverse\"", "\"task\": 3", "attnviz.task 3: expected \"reverse\""},
        /* a right-to-left override would reorder the terminal line: escaped as JSON escapes it */
        {"\"task\":\t\"reverse\"", "\"task\": \"ab\u202ecd\"", "attnviz.task \"ab\\u202ecd\": expected"},
        {"\"step\":\t1", "\"step\": -7", "attnviz.step -7 is not a whole number in 0..1000000 (the step --train "
         "saved the model at)"},
        {"\"step\":\t1", "\"step\": 1.5", "attnviz.step 1.5 is not a whole number in 0..1000000"},
        /* one limit, one name for the key: 1e300 said "too large (a whole number of at most 1e9)" */
        {"\"step\":\t1", "\"step\": 1e300", "attnviz.step 1e+300 is not a whole number in 0..1000000"},
        /* cJSON reads 1e400 as infinity: it said "attnviz.step inf" */
        {"\"step\":\t1", "\"step\": 1e400", "attnviz.step (a number past 1.797e308) is not a whole number in 0..1000000"},
        {"\"step\":\t1", "\"step\": \"1\"", "attnviz.step is \"1\"; it must be a whole number in 0..1000000"},
        {",\n\t\t\"step\":\t1", "", "attnviz.step is missing; --train writes it beside attnviz.task"},
        /* cJSON ends a string at \u0000: "reverse\u0000x" ran as a reverse model without a word */
        {"\"task\":\t\"reverse\"", "\"task\": \"reverse\\u0000x\"", "m/config.json: byte "},
        {"\"task\":\t\"reverse\"", "\"task\": \"reverse\\u0000x\"", ": a string holds \\u0000 (a NUL character), "
         "which no model file has; is the file damaged?"},
        /* "diverged" is printed in titles and the trace: only true or false */
        {"\"step\":\t1", "\"step\": 1, \"diverged\": \"yes\"", "attnviz.diverged is \"yes\"; it must be true or false"},
        {"\"step\":\t1", "\"step\": 1, \"diverged\": 1", "attnviz.diverged is 1; it must be true or false"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(tu_write_replaced(tu_in(f, "m/config.json"), cfg, cases[k].from, cases[k].to), 0);
        run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--no-plot", "3 1 >", NULL);
        char says[4600]; /* "m/config.json..." as the message names it: the whole path one shell word */
        if (strncmp(cases[k].says, "m/config.json", 13) == 0)
            snprintf(says, sizeof says, "%s%s", tu_sh_word(tu_in(f, "m/config.json")), cases[k].says + 13);
        else snprintf(says, sizeof says, "%s", cases[k].says);
        if (r.code != 2 || !strstr(r.err, says) || strchr(r.err, 0x1b) || strstr(r.err, "\u202e") || r.out[0])
            fail_msg("case %zu: exit %d\nstdout: %s\nstderr: %s", k, r.code, r.out, r.err);
        tu_free(&r);
    }
    assert_int_equal(tu_write_replaced(tu_in(f, "m/config.json"), cfg, "\"step\":\t1", "\"step\": 1000000"), 0);
    run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--no-plot", "3 1 >", NULL);
    if (r.code != 0 || !strstr(r.out, "attnviz --train reverse, step 1000000")) fail_msg("%s%s", r.out, r.err);
    tu_free(&r);
    free(cfg);
}

/* A folder whose config.json names a --train task is read by the toy vocabulary's ids (the notes that an
 * input is outside the task or a continuation wrong), so a vocab.json that is not --train's is exit 2,
 * naming the file and the id. With the ids of "3" and "4" swapped, "3 1 4 1 5 >" ran as "4 1 4 1 5 >":
 * --generate 5 printed " 5 1 4 1 4" (reverse of 3 1 4 1 5 is 5 1 4 1 3, by hand) and no note said it
 * was wrong (a new user's report); a vocab.json without <|endoftext|> was taken too. Merges in another
 * order are the same tokenizer (no two toy merges compete) and still run. */
static void test_cli_trained_model_checks_its_tokenizer(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    train_small(f, "reverse", "1", "m");
    char *vocab = tu_slurp_file(tu_in(f, "m/vocab.json"), NULL), *merges = tu_slurp_file(tu_in(f, "m/merges.txt"), NULL);
    assert_non_null(vocab);
    assert_non_null(merges);
    static const struct { const char *from, *to, *says; } cases[] = {
        {"\"3\":18,\"4\":19", "\"3\":19,\"4\":18", "m/vocab.json: token id 18 is '4' where --train writes '3': "
         "config.json's attnviz.task says attnviz --train wrote this folder"},
        {",\"<|endoftext|>\":293", "", "m/vocab.json has 293 tokens where --train writes 294: "},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(tu_write_replaced(tu_in(f, "m/vocab.json"), vocab, cases[k].from, cases[k].to), 0);
        run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--no-plot", "--generate", "5", "3 1 4 1 5 >", NULL);
        if (r.code != 2 || !strstr(r.err, cases[k].says) || r.out[0])
            fail_msg("case %zu: exit %d\nstdout: %s\nstderr: %s", k, r.code, r.out, r.err);
        tu_free(&r);
    }
    assert_int_equal(tu_write_replaced(tu_in(f, "m/vocab.json"), vocab, "", ""), 0);
    assert_int_equal(tu_write_replaced(tu_in(f, "m/merges.txt"), merges, "\xC4\xA0 0\n\xC4\xA0 1\n",
                                       "\xC4\xA0 1\n\xC4\xA0 0\n"), 0); /* "Ġ 0", "Ġ 1" the other way round */
    run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--no-plot", "-q", "3 1 >", NULL);
    if (r.code != 0) fail_msg("merges in another order: exit %d: %s", r.code, r.err);
    tu_free(&r);
    free(vocab);
    free(merges);
}

/* --model on the top folder of --train --compare said only "has no config.json; a GPT-2 model folder
 * holds ..." (a new user's report): the models are one folder down. Now it names the variant folders
 * that hold a model and how to run one; a folder with none keeps the plain message. The folder has a space
 * ("my cmp"), one shell word in the prose and in the command: the command said `attnviz --model
 * /tmp/x/my cmp/pre-ln TEXT`, which a shell splits in two (a maintainer's list). */
static void test_cli_model_on_compare_folder_points_to_variants(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--compare", "norm", "--steps", "2", "--d-model", "16", "--batch", "2",
                "-q", "-o", tu_in(f, "my cmp"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", tu_in(f, "my cmp"), "3 1 >", NULL);
    assert_int_equal(r.code, 2);
    char want[4400];
    snprintf(want, sizeof want, "attnviz: error: --model %s has no config.json: it is a --train --compare folder, with "
             "a model in each of its folders pre-ln, post-ln; run one of them: attnviz --model %s '3 1 >'\n",
             tu_sh_word(tu_in(f, "my cmp")), tu_sh_word(tu_in(f, "my cmp/pre-ln")));
    if (strcmp(r.err, want) != 0) fail_msg("stderr '%s', want '%s'", r.err, want);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", tu_in(f, "my cmp/post-ln"), "--no-plot", "-q", "3 1 >", NULL); /* as it says */
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    mkdir(tu_in(f, "empty"), 0755);
    run_attnviz(&r, NULL, "--model", tu_in(f, "empty"), "3 1 >", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "has no config.json; a GPT-2 model folder holds")) fail_msg("%s", r.err);
    tu_free(&r);
}

/* --warmup 0 was refused ("outside the allowed range 1..1000000", though the real limit is --steps),
 * so cosine could not start without a warm-up as torch's CosineAnnealingLR does (a new user's
 * report). Now 0 means none: the header says "no warm-up" and every step's lr in train.csv is the
 * cosine from lr to lr/10 over all the steps, lr/10 + (lr − lr/10)·(1 + cos(π t / steps))/2, computed
 * here; noam, whose rule divides by the warm-up, refuses 0 (exit 2). */
static void test_cli_train_warmup_0_is_none(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--warmup", "0", "--lr", "0.004", "--steps", "8", "--d-model", "16",
                "--batch", "2", "-o", tu_in(f, "a"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "AdamW lr 0.004 (cosine, no warm-up)")) fail_msg("header:\n%s", r.out);
    tu_free(&r);
    assert_int_equal(csv_lr_rows_follow(tu_in(f, "a/train.csv"), 2, 0.004), 8);
    run_attnviz(&r, NULL, "--train", "reverse", "--warmup", "0", "--schedule", "noam", "--steps", "8", "--d-model",
                "16", "--batch", "2", "-o", tu_in(f, "b"), NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "--warmup 0 with --schedule noam") || !strstr(r.err, "allowed: 1..8"))
        fail_msg("noam:\n%s", r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--train", "reverse", "--warmup", "9", "--steps", "8", "--d-model", "16", "--batch", "2",
                "-o", tu_in(f, "c"), NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "--warmup 9 is more than --steps 8 (allowed: 0..8, 0 = no warm-up)")) fail_msg("%s", r.err);
    tu_free(&r);
}

/* --schedule constant is --lr at every step (nn/optim.h), no warm-up. The header said "AdamW lr 0.004
 * (constant, warm-up 10)" while train.csv showed 0.004 from step 1, and --warmup passed without a word.
 * Now the header names no warm-up, --warmup warns "has no effect" as other unused options do, and even
 * a --warmup beyond --steps (an error with cosine and noam) only warns. */
static void test_cli_train_constant_schedule_has_no_warmup(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--schedule", "constant", "--lr", "0.004", "--warmup", "10", "--steps",
                "12", "--d-model", "16", "--batch", "4", "-o", tu_in(f, "c"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "AdamW lr 0.004 (constant), weight decay 0.01, clip 1.0")) fail_msg("header:\n%s", r.out);
    assert_null(strstr(r.out, "warm-up"));
    if (!strstr(r.err, "attnviz: warning: --warmup 10 has no effect with --schedule constant"))
        fail_msg("no warning:\n%s", r.err);
    tu_free(&r);
    assert_int_equal(csv_lr_rows_follow(tu_in(f, "c/train.csv"), 0, 0.004), 12); /* constant: 0.004 at every step */
    run_attnviz(&r, NULL, "--train", "reverse", "--schedule", "constant", "--warmup", "50", "--steps", "2",
                "--d-model", "16", "--batch", "4", "-q", "-o", tu_in(f, "d"), NULL);
    if (r.code != 0) fail_msg("--warmup 50 --steps 2 with constant: exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.err, "--warmup 50 has no effect with --schedule constant"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--train", "reverse", "--schedule", "constant", "--steps", "2", "--d-model", "16", "--batch",
                "4", "-o", tu_in(f, "e"), NULL); /* no --warmup: no warning */
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.err, "warning"));
    tu_free(&r);
}

/* The default warm-up is 5 % of --steps (av_train_fill_defaults): 200 only at 4000 steps. docs/train.md
 * and its Chinese version said "the default warm-up of 200 steps"; they now give the rule, with its
 * numbers for the tasks' default steps (worked by hand: 4000 / 20 = 200). */
static void test_docs_state_the_default_warmup_rule(void **state) {
    (void)state;
    static const struct { av_task_kind task; int steps, warmup; } cases[] = {
        {AV_TASK_REVERSE, 0, 200}, {AV_TASK_SORT, 0, 200}, {AV_TASK_INDUCTION, 0, 200}, {AV_TASK_REVERSE, 100, 5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        av_train_opts o = {.task = cases[i].task, .steps = cases[i].steps};
        av_train_fill_defaults(&o);
        assert_int_equal(o.warmup, cases[i].warmup);
    }
    static const struct { const char *path, *wrong, *right; } docs[] = {
        {"docs/train.md", "default warm-up of 200", "The default warm-up is 5 % of `--steps`: 200 steps for\n"
                                                    "the tasks' 4000."},
        {"docs/train.zh.md", "\xE9\xBB\x98\xE8\xAE\xA4\n\xE9\xA2\x84\xE7\x83\xAD 200", /* 默认\n预热 200 */
         "\xE9\xBB\x98\xE8\xAE\xA4\xE9\xA2\x84\xE7\x83\xAD\xE6\x98\xAF `--steps`\n\xE7\x9A\x84 5 %"},
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char *text = tu_slurp_file(src_path(docs[i].path), NULL);
        assert_non_null(text);
        if (strstr(text, docs[i].wrong)) fail_msg("%s still says the default warm-up is 200 steps", docs[i].path);
        if (!strstr(text, docs[i].right)) fail_msg("%s does not state the 5 %% rule", docs[i].path);
        free(text);
    }
}

/* The chapter's patch rows say "git apply docs/experiments/NAME.patch" from a clean checkout
 * (docs/experiments/README.md). Three of the patches had stopped applying once tasks.c took its
 * constants (AV_TASK_MAX_DIGITS, AV_INDUCTION_MAX_T), and nothing said so. Every patch there must
 * be named in that README's table and apply to this tree (git apply --check: it reads the files,
 * in a repository or not); every patch the table names must be there. */
static void test_docs_experiment_patches_apply(void **state) {
    (void)state;
    char dir[4200], cmd[9000];
    snprintf(dir, sizeof dir, "%s", src_path("docs/experiments"));
    char *readme = tu_slurp_file(src_path("docs/experiments/README.md"), NULL);
    assert_non_null(readme);
    int git = system("git --version >/dev/null 2>&1") == 0, n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 6, ".patch")) continue;
        n++;
        char named[300];
        snprintf(named, sizeof named, "| `%s` |", e->d_name);
        if (!strstr(readme, named)) fail_msg("docs/experiments/README.md's table does not name %s", e->d_name);
        if (!git) {
            printf("[ SKIPROW  ] git apply --check %s: no git on this machine\n", e->d_name);
            continue;
        }
        snprintf(cmd, sizeof cmd, "cd %s/../.. && git apply --check docs/experiments/%s 2>&1", tu_sh_word(dir),
                 tu_sh_word(e->d_name));
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        char why[2000] = "";
        size_t got = fread(why, 1, sizeof why - 1, p);
        why[got] = 0;
        if (pclose(p) != 0) fail_msg("docs/experiments/%s does not apply to this tree:\n%s", e->d_name, why);
    }
    closedir(d);
    assert_true(n >= 6); /* the six the chapter's rows name */
    for (const char *c = strstr(readme, "| `"); c; c = strstr(c + 3, "| `")) {
        char name[300], path[600];
        if (sscanf(c, "| `%299[^`]`", name) != 1 || !strstr(name, ".patch")) continue;
        snprintf(path, sizeof path, "docs/experiments/%s", name);
        if (access(src_path(path), R_OK) != 0) fail_msg("README.md names %s, which is not there", path);
    }
    free(readme);
}

/* No side of a --train figure passes 6000 px (docs/train.md): at --dpi 600 a 2 x 64-head model's
 * attention.gif was 6000 x 6114, as its frame title (the model, the probe and "64 of 128 heads ...")
 * wraps to three lines and the grid had counted two (a new user's report). Now the GIF's height is
 * within the bound too, and so is --model's layer figure with a --title of three lines. */
static void test_cli_train_gif_within_the_pixel_bound_at_600_dpi(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "3", "--heads", "64", "--batch", "2", "--dpi", "600", "-q",
                "-o", f->dir, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    size_t n = 0;
    unsigned char *gif = (unsigned char *)tu_slurp_file(tu_in(f, "attention.gif"), &n);
    assert_true(gif && n > 10 && memcmp(gif, "GIF89a", 6) == 0);
    int w = gif[6] | gif[7] << 8, h = gif[8] | gif[9] << 8;
    free(gif);
    if (w > 6000 || h > 6000 || (w < 5400 && h < 5400)) fail_msg("attention.gif is %d x %d px", w, h);
    /* the same grid layout draws --model's layer figure, whose --title may wrap to three lines: layer1.png of
     * that model was 5424 x 6264 */
    char title[700] = "";
    for (int i = 0; i < 30; i++) strcat(title, "very long title words ");
    run_attnviz(&r, NULL, "--model", f->dir, "--dpi", "600", "--title", title, "-q", "-o", tu_in(f, "m"),
                "3 1 4 1 5 > 5 1 4 1 3", NULL);
    if (r.code != 0) fail_msg("--model: exit %d: %s", r.code, r.err);
    tu_free(&r);
    const char *figs[] = {"m/layer1.png", "m/model.png"};
    for (int i = 0; i < 2; i++) {
        av_png_image img;
        av_err err;
        assert_int_equal(av_png_read(tu_in(f, figs[i]), &img, &err), AV_OK);
        if (img.width > 6000 || img.height > 6000) fail_msg("%s is %d x %d px", figs[i], img.width, img.height);
        av_png_image_free(&img);
    }
}

/* The film strip section reads "The same grids as an animation (...) ... [the GIF] and the curves
 * (`curves.png`): ...", one sentence around the GIF; the --dpi/--scale paragraph stood between its two
 * halves, and said only a film strip is drawn smaller past 6000 px, where at --dpi 600 the curves
 * (1280 px at 100 dpi, 7680 at 600) and the GIF (1343, 8058) are lowered too (measured: 6000 x 2109 and
 * 5802 x 3486). The paragraph now follows the curves' image and names every figure; and it says such a figure
 * keeps its printed size at a lower dpi (it said "drawn smaller", and the PNGs printed smaller: test_cli_train_
 * dpi_600_keeps_the_printed_size). */
static void test_docs_dpi_paragraph_follows_the_curves(void **state) {
    (void)state;
    static const struct { const char *path, *sentence, *curves_image, *paragraph, *bound, *film_only; } docs[] = {
        {"docs/train.md", "(figures/train/reverse_attention.gif)\n\nand the curves (`curves.png`)",
         "![reverse curves](figures/train/reverse_curves.png)", "The pixel sizes above are at 100 dpi.",
         "a figure that would (at `--dpi 600`, all three) is drawn\nwith fewer pixels at a lower dpi",
         "a film strip that would is drawn"},
        {"docs/train.zh.md",
         "(figures/train/reverse_attention.gif)\n\n\xE4\xBB\xA5\xE5\x8F\x8A\xE6\x9B\xB2\xE7\xBA\xBF", /* 以及曲线 */
         "![reverse \xE6\x9B\xB2\xE7\xBA\xBF](figures/train/reverse_curves.png)", /* 曲线 */
         "\xE4\xB8\x8A\xE9\x9D\xA2\xE7\x9A\x84\xE5\x83\x8F\xE7\xB4\xA0\xE5\xB0\xBA\xE5\xAF\xB8", /* 上面的像素尺寸 */
         "\xE6\x9B\xB4\xE5\xB0\x91\xE7\x9A\x84\xE5\x83\x8F\xE7\xB4\xA0\xE3\x80\x81\xE6\x9B\xB4\xE4\xBD\x8E"
         "\xE7\x9A\x84 dpi", /* 更少的像素、更低的 dpi */
         "\xE8\xB6\x85\xE8\xBF\x87\xE7\x9A\x84\xE8\x83\xB6\xE7\x89\x87\xE6\x9D\xA1"}, /* 超过的胶片条 */
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char *text = tu_slurp_file(src_path(docs[i].path), NULL);
        assert_non_null(text);
        if (!strstr(text, docs[i].sentence))
            fail_msg("%s: the GIF's sentence does not go on with the curves", docs[i].path);
        const char *img = strstr(text, docs[i].curves_image), *par = strstr(text, docs[i].paragraph);
        if (!img || !par || par < img) fail_msg("%s: the --dpi paragraph is not after the curves' image", docs[i].path);
        if (!strstr(text, docs[i].bound) || strstr(text, docs[i].film_only))
            fail_msg("%s: the 6000 px bound is said of the film strip only, or not as a lower dpi", docs[i].path);
        free(text);
    }
}

/* ---------------------------------------------------------------------------- training */

static void small_config(av_gpt2_config *cfg, av_adamw *opt, int steps, av_kernel kernel) {
    av_gpt2_config_defaults(cfg);
    cfg->kernel = kernel; /* reference: sequence by sequence; blas: packed chunks (gpt2_batch.h) */
    cfg->n_layer = 2; cfg->n_head = 2; cfg->n_embd = 32; cfg->n_positions = AV_TASK_MAX_T;
    cfg->vocab_size = AV_TOY_VOCAB; cfg->layer_norm_epsilon = 1e-5;
    *opt = (av_adamw){.beta1 = 0.9, .beta2 = 0.98, .eps = 1e-9, .weight_decay = 0.01, .max_norm = 1.0,
                      .schedule = AV_SCHED_COSINE, .lr_max = 3e-3, .lr_min = 3e-4, .warmup = 10, .steps = steps,
                      .d_model = 32};
}

/* Train `steps` steps of batch 16 on a task; the parameters' bytes and the losses. */
static void train_task(av_trainer *tr, av_task_kind kind, int steps, av_kernel kernel, double *losses) {
    av_gpt2_config cfg;
    av_adamw opt;
    av_err err;
    small_config(&cfg, &opt, steps, kernel);
    assert_int_equal(av_trainer_init(tr, &cfg, &opt, 42, &err), 0);
    av_rng r;
    av_rng_seed(&r, 42);
    av_task_example batch[16];
    for (int s = 0; s < steps; s++) {
        for (int b = 0; b < 16; b++) av_task_sample(&batch[b], kind, &r);
        assert_int_equal(av_trainer_step(tr, batch, 16, &losses[s], &err), 0);
    }
}

/* Both paths: the same losses and parameters, bit for bit, on 1 and 2 threads
 * (batch 16 = two chunks of AV_TRAIN_CHUNK, which the two threads share). */
static void test_same_bits_on_1_and_2_threads(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        av_kernel kernel = k ? AV_KERNEL_BLAS : AV_KERNEL_REFERENCE;
        av_trainer a, b;
        double la[6], lb[6];
        av_set_threads(1);
        train_task(&a, AV_TASK_REVERSE, 6, kernel, la);
        av_set_threads(2);
        train_task(&b, AV_TASK_REVERSE, 6, kernel, lb);
        assert_memory_equal(la, lb, sizeof la);
        assert_memory_equal(a.mem, b.mem, a.n_params * sizeof(float));
        assert_true(la[5] < la[0]); /* and it trained */
        av_task_example held[40]; /* the held-out evaluation too (5 chunks over the lanes) */
        av_rng hr;
        av_rng_seed(&hr, 3);
        for (int i = 0; i < 40; i++) av_task_sample(&held[i], AV_TASK_REVERSE, &hr);
        double ea[6], eb[6];
        av_err err;
        av_set_threads(1);
        assert_int_equal(av_trainer_eval(&a, held, 40, &ea[0], &ea[1], ea + 2, &err), 0);
        av_set_threads(2);
        assert_int_equal(av_trainer_eval(&b, held, 40, &eb[0], &eb[1], eb + 2, &err), 0);
        assert_memory_equal(ea, eb, sizeof ea);
        av_trainer_free(&a);
        av_trainer_free(&b);
    }
}

/* A short schedule of TASK from seed 42 (small_config, 2 threads), measured on
 * 200 held-out examples drawn from seed 777 before and after training: the
 * held-out loss, sequence accuracy and the best head's attention on target. */
typedef struct { double loss0, loss1, acc0, acc1, best0, best1, acc_packed; } short_run;

/* The packed held-out evaluation (what --train uses) against the reference
 * one, sequence by sequence, on the same trained parameters: the same
 * accuracy, loss and attention on target within float rounding. n is not a
 * multiple of the chunk, so the last chunk is short. */
static void check_packed_eval(av_trainer *tr, const av_task_example *held, int n, short_run *m) {
    av_err err;
    av_kernel kernel = tr->cfg.kernel;
    double lp, ap, aotp[4], lr, ar, aotr[4];
    assert_int_equal(av_trainer_eval(tr, held, n, &lp, &ap, aotp, &err), 0);
    tr->cfg.kernel = AV_KERNEL_REFERENCE;
    assert_int_equal(av_trainer_eval(tr, held, n, &lr, &ar, aotr, &err), 0);
    tr->cfg.kernel = kernel;
    double worst = fabs(lp - lr) / lr;
    for (int i = 0; i < 4; i++) worst = fmax(worst, fabs(aotp[i] - aotr[i]) / aotr[i]);
    print_message("packed vs reference evaluation: loss %.6f / %.6f, accuracy %.3f / %.3f, worst relative diff %.1e\n",
                  lp, lr, ap, ar, worst);
    assert_true(ap == ar);
    assert_true(worst < 1e-4);
    m->acc_packed = ap;
}

static short_run run_short_schedule(av_task_kind kind, int steps) {
    enum { N = 200 };
    static double losses[4000];
    static av_task_example held[N];
    assert_true(steps <= 4000);
    av_rng hr;
    av_rng_seed(&hr, 777);
    for (int i = 0; i < N; i++) av_task_sample(&held[i], kind, &hr);
    av_gpt2_config cfg;
    av_adamw opt;
    av_err err;
    small_config(&cfg, &opt, steps, AV_KERNEL_BLAS);
    av_trainer tr;
    assert_int_equal(av_trainer_init(&tr, &cfg, &opt, 42, &err), 0);
    short_run m = {0};
    double aot0[4], aot1[4];
    assert_int_equal(av_trainer_eval(&tr, held, N, &m.loss0, &m.acc0, aot0, &err), 0);
    av_trainer_free(&tr);
    av_set_threads(2);
    train_task(&tr, kind, steps, AV_KERNEL_BLAS, losses);
    assert_int_equal(av_trainer_eval(&tr, held, N, &m.loss1, &m.acc1, aot1, &err), 0);
    check_packed_eval(&tr, held, N - 5, &m);
    av_trainer_free(&tr);
    for (int i = 0; i < 4; i++) { m.best0 = fmax(m.best0, aot0[i]); m.best1 = fmax(m.best1, aot1[i]); }
    print_message("%s, %d steps: held-out loss %.3f -> %.3f, accuracy %.3f -> %.3f, best head on target %.3f -> %.3f\n",
                  av_task_name(kind), steps, m.loss0, m.loss1, m.acc0, m.acc1, m.best0, m.best1);
    return m;
}

static void test_short_schedule_learns_reverse(void **state) {
    (void)state;
    short_run m = run_short_schedule(AV_TASK_REVERSE, 300);
    assert_true(fabs(m.loss0 - log(AV_TOY_VOCAB)) < 0.1); /* uniform at init */
    assert_true(m.best0 < 0.2);                            /* spread out: about 1/T */
    assert_true(m.loss1 < 0.5 * m.loss0);  /* past guessing a digit: ln 10 = 2.30 */
    assert_true(m.acc1 > m.acc0);          /* from 0: some whole sequences right */
    assert_true(m.best1 > 2 * m.best0);    /* a head has found the target */
    assert_true(m.acc_packed > 0);         /* so the packed = reference accuracy check compared something */
}

/* A small blas trainer of 2 steps (small_config, seed 42) in tr, and B reverse examples drawn with seed 3 in
 * batch. */
static void reverse_trainer(av_trainer *tr, av_task_example *batch, int B) {
    av_gpt2_config cfg;
    av_adamw opt;
    av_err err;
    small_config(&cfg, &opt, 2, AV_KERNEL_BLAS);
    assert_int_equal(av_trainer_init(tr, &cfg, &opt, 42, &err), 0);
    av_rng r;
    av_rng_seed(&r, 3);
    for (int b = 0; b < B; b++) av_task_sample(&batch[b], AV_TASK_REVERSE, &r);
}

/* A batch of more chunks than the held-out evaluation's lanes, after an
 * evaluation (as --train does: the step-0 snapshot comes first): the
 * gradient buffers grow and the optimiser still finds chunk 0's (batch 33+
 * crashed in AdamW once: a use after realloc that make test SANITIZE=1
 * reports; the plain build may not crash). */
static void test_batch_with_more_chunks_than_eval_lanes(void **state) {
    (void)state;
    enum { B = 40 };
    static av_task_example batch[B];
    av_err err;
    av_trainer tr;
    reverse_trainer(&tr, batch, B);
    double loss0, acc, aot[4], l1, l2;
    assert_int_equal(av_trainer_eval(&tr, batch, 8, &loss0, &acc, aot, &err), 0);
    assert_int_equal(av_trainer_step(&tr, batch, B, &l1, &err), 0);
    assert_int_equal(av_trainer_step(&tr, batch, B, &l2, &err), 0);
    assert_true(isfinite(l1) && l2 < l1);
    av_trainer_free(&tr);
}

/* A gradient that is NaN or inf under a finite loss: the packed path's GELU backward (gpt2_batch.c
 * gelu_fast_backward) makes 2·x·σ·(1 − σ)·du = x·0·inf = NaN of a pre-GELU value x = 1e20 (x² overflows
 * float32), whose forward, x·σ = 1e20, is finite, and so are the loss and every checked activation.
 * clip_factor(NaN) was 1, "no clipping", and AdamW wrote NaN into every parameter with status 0; the next
 * step's forward then failed, or the run saved them. Now clip_factor has no factor for a norm that is NaN
 * or inf, and av_trainer_step refuses the step naming it, the parameters, moments and step count as they
 * were. */
static void test_nonfinite_gradient_norm_stops_the_step(void **state) {
    (void)state;
    assert_true(isnan(clip_factor(NAN, 1.0)) && isnan(clip_factor(INFINITY, 1.0)) && isnan(clip_factor(NAN, 0.0)));
    assert_true(clip_factor(0.5, 1.0) == 1.0 && clip_factor(5.0, 0.0) == 1.0); /* finite norms as before */
    enum { B = 4 };
    static av_task_example batch[B];
    av_err err = {{0}};
    av_trainer tr;
    reverse_trainer(&tr, batch, B);
    tr.params.h[0].mlp_c_fc_b[0] = 1e20f;
    size_t bytes = 3 * tr.n_params * sizeof(float); /* params | m | v */
    float *was = malloc(bytes);
    assert_non_null(was);
    memcpy(was, tr.mem, bytes);
    double loss = 0;
    av_status st = av_trainer_step(&tr, batch, B, &loss, &err);
    if (st != AV_ERUNTIME) fail_msg("step: status %d, '%s', loss %g", (int)st, err.msg, loss);
    assert_string_equal(err.msg, "the gradient norm ‖g‖₂ is NaN at step 1 (a gradient overflowed float32 or is "
                                 "NaN); the step was not taken");
    assert_true(isfinite(loss) && isnan(tr.last_grad_norm));
    assert_int_equal(tr.step, 0);
    assert_memory_equal(tr.mem, was, bytes);
    free(was);
    av_trainer_free(&tr);
}

/* An example whose lengths lie outside it is refused before they index anything, on both paths, in
 * av_trainer_step and av_trainer_eval: example_targets filled targets[AV_TASK_MAX_T] from answer_q
 * before any check, so answer position 31 of a 6-token example wrote a label past the example and
 * trained on (status 0), and T = 40 wrote past the array. A reviewer's report; the limits are the
 * example's own (av_task_example: the label of query q is tokens[q + 1]). */
static void test_examples_with_lengths_outside_them_are_refused(void **state) {
    (void)state;
    enum { B = 2 };
    static const struct { int T, n_answer, q; const char *says; } bad[] = {
        {6, 1, 31, "a training example of 6 tokens has answer position 31 (0..4: its label is the next token)"},
        {6, 1, 5, "a training example of 6 tokens has answer position 5 (0..4"},
        {6, 1, -1, "a training example of 6 tokens has answer position -1 (0..4"},
        {6, 6, 0, "a training example of 6 tokens has 6 answer positions (0..5)"},
        {40, 1, 2, "a training example has 40 tokens (1..32)"},
        {0, 0, 0, "a training example has 0 tokens (1..32)"},
    };
    for (int kernel = 0; kernel < 2; kernel++) {
        av_gpt2_config cfg;
        av_adamw opt;
        av_err err;
        small_config(&cfg, &opt, 1, kernel ? AV_KERNEL_BLAS : AV_KERNEL_REFERENCE);
        av_trainer tr;
        assert_int_equal(av_trainer_init(&tr, &cfg, &opt, 1, &err), 0);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            static av_task_example batch[B];
            av_rng r;
            av_rng_seed(&r, 9);
            for (int b = 0; b < B; b++) av_task_sample(&batch[b], AV_TASK_REVERSE, &r);
            batch[1].T = bad[i].T; /* tokens[] holds AV_TASK_MAX_T ids whatever T says */
            batch[1].n_answer = bad[i].n_answer;
            for (int k = 0; k < bad[i].n_answer && k < AV_TASK_MAX_T; k++) batch[1].answer_q[k] = k;
            batch[1].answer_q[0] = bad[i].q;
            double loss = 0, acc;
            memset(&err, 0, sizeof err);
            av_status st = av_trainer_step(&tr, batch, B, &loss, &err);
            if (st != AV_EUSAGE || !strstr(err.msg, bad[i].says))
                fail_msg("kernel %d, case %zu: step gave %d '%s', want '%s'", kernel, i, (int)st, err.msg, bad[i].says);
            memset(&err, 0, sizeof err);
            st = av_trainer_eval(&tr, batch, B, &loss, &acc, NULL, &err);
            if (st != AV_EUSAGE || !strstr(err.msg, bad[i].says))
                fail_msg("kernel %d, case %zu: eval gave %d '%s', want '%s'", kernel, i, (int)st, err.msg, bad[i].says);
        }
        av_trainer_free(&tr);
    }
}

/* The trainer at the largest model av_gpt2_config_check allows: 128 layers
 * with learned positions have 3 + 12·128 + 1 = 1540 tensors
 * (av_gpt2_num_tensors); the stack table that binds the gradient views of
 * chunks 1, 2, ... had 12·128 + 3 = 1539 rows, one short, so binding a
 * second chunk wrote a row past its end. */
static void test_128_layers_with_learned_positions_bind_a_second_chunk(void **state) {
    (void)state;
    enum { B = AV_TRAIN_CHUNK + 1, C = 4 }; /* two chunks: chunk 1 is bound through that table */
    static av_task_example batch[B];
    av_gpt2_config cfg;
    av_adamw opt;
    av_err err;
    small_config(&cfg, &opt, 1, AV_KERNEL_REFERENCE);
    cfg.n_layer = AV_GPT2_MAX_LAYERS; cfg.n_head = 1; cfg.n_embd = C; opt.d_model = C;
    assert_int_equal(cfg.positions, AV_POS_LEARNED);
    assert_int_equal(av_gpt2_num_tensors(&cfg), 3 + 12 * AV_GPT2_MAX_LAYERS + 1);
    av_trainer tr;
    assert_int_equal(av_trainer_init(&tr, &cfg, &opt, 1, &err), 0);
    av_rng r;
    av_rng_seed(&r, 5);
    for (int b = 0; b < B; b++) av_task_sample(&batch[b], AV_TASK_REVERSE, &r);
    double loss;
    assert_int_equal(av_trainer_step(&tr, batch, B, &loss, &err), 0);
    assert_true(isfinite(loss));
    /* chunk 1's views cover its whole buffer: ln_f.bias, the last tensor, ends where it ends */
    assert_true(tr.chunk_views[1].ln_f_b + C == tr.chunk_grads[1] + tr.n_params);
    av_trainer_free(&tr);
}

/* av_trainer_bytes bounds what the reference path holds. Each worker keeps
 * one av_gpt2_acts per example length it meets (acts[T]), and induction's
 * lengths run from 8 to 24; the bound counted one set of T = AV_TASK_MAX_T
 * per chunk, about a ninth of what 17 lengths take. Held here: the
 * parameters, m and v and one gradient per chunk (4·(3 + G)·P bytes), each
 * worker's backward scratch (4·Ag at T = AV_TASK_MAX_T, nn/train.h) and each
 * activations set it allocated, 4·A(T) with A(T) = 23·L·T·C + 3·T·C +
 * 2·L·H·T² + T·V (av_gpt2_acts_alloc's buffers, gpt2.h; means, rstd and mask
 * left out as there). */
static void test_trainer_bytes_bound_the_reference_path(void **state) {
    (void)state;
    enum { B = 16, G = 2, STEPS = 3 };
    static av_task_example batch[B];
    av_gpt2_config cfg;
    av_adamw opt;
    av_err err;
    small_config(&cfg, &opt, STEPS, AV_KERNEL_REFERENCE);
    av_trainer tr;
    assert_int_equal(av_trainer_init(&tr, &cfg, &opt, 42, &err), 0);
    av_rng r;
    av_rng_seed(&r, 7);
    double loss;
    for (int s = 0; s < STEPS; s++) {
        for (int b = 0; b < B; b++) av_task_sample(&batch[b], AV_TASK_INDUCTION, &r);
        assert_int_equal(av_trainer_step(&tr, batch, B, &loss, &err), 0);
    }
    size_t L = (size_t)cfg.n_layer, C = (size_t)cfg.n_embd, H = (size_t)cfg.n_head, V = (size_t)cfg.vocab_size;
    size_t Tm = AV_TASK_MAX_T, held = 4 * (3 + G) * av_gpt2_num_params(&cfg);
    int sets = 0;
    for (int w = 0; w < G; w++) {
        held += 4 * (Tm * V + 19 * Tm * C + H * Tm * Tm);
        for (size_t T = 1; T <= AV_TASK_MAX_T; T++)
            if (tr.workers[w].acts[T].T) {
                held += 4 * (23 * L * T * C + 3 * T * C + 2 * L * H * T * T + T * V);
                sets++;
            }
    }
    print_message("reference path: %d activation sets held, %zu bytes; av_trainer_bytes %zu\n", sets, held,
                  av_trainer_bytes(&cfg, B));
    assert_true(sets > G); /* several lengths per worker: the case the bound missed */
    assert_true(av_trainer_bytes(&cfg, B) >= held);
    av_trainer_free(&tr);
}

/* Induction on a short schedule: the loss must get past guessing a letter
 * (ln 26 = 3.26, where the old one-answer induction data stalled for 1500
 * steps) and the best head must move towards the earlier occurrences.
 * test_cli_induction_head_forms trains longer, through the command. */
static void test_short_schedule_learns_induction(void **state) {
    (void)state;
    short_run m = run_short_schedule(AV_TASK_INDUCTION, 800);
    assert_true(fabs(m.loss0 - log(AV_TOY_VOCAB)) < 0.1);
    assert_true(m.loss1 < log(26) - 0.6); /* measured 1.76 */
    assert_true(m.acc1 > m.acc0);         /* measured 0 -> 16.5 % */
    assert_true(m.best1 > 1.4 * m.best0); /* measured 0.086 -> 0.196 */
}

/* The line of --train's output that starts "step STEP " and holds the
 * held-out numbers (the snapshot), or NULL. */
static const char *snapshot_line(const char *out, int step) {
    char head[32];
    snprintf(head, sizeof head, "step %d ", step);
    for (const char *p = out; (p = strstr(p, head)) != NULL; p++) {
        if (p != out && p[-1] != '\n') continue;
        const char *eol = strchr(p, '\n'), *h = strstr(p, "held-out");
        if (h && (!eol || h < eol)) return p;
    }
    return NULL;
}

/* The issue's evidence for induction, through the command on a small model
 * (d_model 32, 2 heads, batch 16, 3000 steps; about 3 s): the attention on
 * target starts at about 1/T (the sequences have 8 to 24 tokens) and a
 * layer-1 head ends with >= 0.9 of its weight on the target, the letter after
 * the earlier occurrence: an induction head (Olsson et al. 2022; docs/train.md
 * shows the default model's, and the previous-token heads under them).
 * Measured: 0.09 -> 0.97; held-out accuracy 98.8 % to 99.8 % by machine.
 * With the first version of the data (3..10 letters, repeats at any gap) the
 * default model's best head ended in layer 0 at 0.33, and its layer-1 heads
 * looked one position past the target. */
static void test_cli_induction_head_forms(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "induction", "--d-model", "32", "--heads", "2", "--batch", "16", "--steps",
                "3000", "-o", f->dir, NULL);
    assert_int_equal(r.code, 0);
    /* the snapshot lines (a progress line for the same step has no "held-out") */
    const char *first = snapshot_line(r.out, 0), *last = snapshot_line(r.out, 3000);
    assert_non_null(first);
    assert_non_null(last);
    double best0 = 0, acc = 0, best = 0;
    int layer = -1, head = -1;
    const char *b0 = strstr(first, " best L");
    assert_non_null(b0);
    assert_int_equal(sscanf(b0, " best L%*d H%*d %lf", &best0), 1);
    const char *a = strstr(last, "accuracy"), *b = strstr(last, " best L");
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(sscanf(a, "accuracy %lf", &acc), 1);
    assert_int_equal(sscanf(b, " best L%d H%d %lf", &layer, &head, &best), 3);
    print_message("induction, small model, 3000 steps: accuracy %.1f %%, best head L%d H%d %.2f (step 0: %.2f)\n", acc,
                  layer, head, best, best0);
    assert_true(best0 < 0.15);
    assert_true(acc >= 95.0);
    assert_int_equal(layer, 1);
    assert_true(best >= 0.9);
    tu_free(&r);
}

/* ---------------------------------------------------------------------------- the command */

static void test_cli_train_writes_a_model_folder(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "sort", "--steps", "12", "--d-model", "32", "--batch", "8", "-o", f->dir, NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "training sort: 2 layers, 4 heads, d_model 32"));
    assert_non_null(strstr(r.out, "step 0 "));
    assert_non_null(strstr(r.out, "step 12 "));
    assert_non_null(strstr(r.out, "probe logits differ by at most 0\n")); /* the checkpoint round trip is exact */
    const char *files[] = {"config.json", "model.safetensors", "vocab.json", "merges.txt", "filmstrip.png",
                           "filmstrip.svg", "attention.gif", "curves.png", "curves.svg", "train.csv"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) assert_true(file_exists(tu_in(f, files[i])));
    size_t n = 0;
    char *cfg = tu_slurp_file(tu_in(f, "config.json"), &n);
    assert_non_null(strstr(cfg, "\"task\":\t\"sort\""));
    assert_non_null(strstr(cfg, "\"step\":\t12"));
    free(cfg);
    char *csv = tu_slurp_file(tu_in(f, "train.csv"), &n);
    int lines = 0;
    for (size_t i = 0; i < n; i++) lines += csv[i] == '\n';
    assert_int_equal(lines, 1 + 13); /* header, steps 0..12 */
    /* step 0 drew no batch: no lr, no gradient norm (they said 0, a measurement no step made) */
    const char *row0 = strchr(csv, '\n') + 1;
    if (strncmp(row0, "0,,", 3) != 0 || strncmp(strchr(row0 + 3, ','), ",,", 2) != 0)
        fail_msg("step 0's row: %.*s", (int)strcspn(row0, "\n"), row0);
    free(csv);
    /* the folder's tokenizer is GPT-2's BPE: text/bpe.c splits the issue's input as the tasks do */
    av_bpe *bpe = NULL;
    av_err err;
    int32_t *ids = NULL;
    size_t n_ids = 0;
    assert_int_equal(av_bpe_load(&bpe, tu_in(f, "vocab.json"), tu_in(f, "merges.txt"), &err), 0);
    assert_int_equal(av_bpe_encode(bpe, "3 1 4 1 5 >", 11, &ids, &n_ids, &err), 0);
    av_task_example probe;
    av_task_probe(&probe, AV_TASK_REVERSE);
    assert_int_equal(n_ids, 6);
    for (int i = 0; i < 6; i++) assert_int_equal(ids[i], probe.tokens[i]);
    assert_int_equal(av_bpe_eot_id(bpe), AV_TOY_EOT);
    free(ids);
    av_bpe_free(bpe);
    char *gif = tu_slurp_file(tu_in(f, "attention.gif"), &n);
    assert_true(n > 6 && memcmp(gif, "GIF89a", 6) == 0);
    free(gif);
    tu_free(&r);
}

/* One layer, one head, one step: the header line and the figure titles count them in the singular
 * ("1 layers, 1 heads", "1 steps" before). */
static void test_cli_train_counts_in_the_singular(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--layers", "1", "--heads", "1", "--d-model", "16",
                "--batch", "4", "-o", f->dir, NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "training reverse: 1 layer, 1 head, d_model 16, "));
    assert_non_null(strstr(r.out, "; batch 4, 1 step, AdamW"));
    const char *figs[] = {"curves.png", "filmstrip.png"};
    for (int i = 0; i < 2; i++) {
        av_png_image img;
        av_err err;
        assert_int_equal(av_png_read_texts(tu_in(f, figs[i]), &img, &err), AV_OK);
        const char *title = av_png_image_text(&img, "Title");
        assert_non_null(title);
        /* "for 1 step from random initialisation": "step 1" read as a snapshot of a longer run (a
         * figure-maker's report) */
        assert_non_null(strstr(title, "trained on reverse for 1 step from random initialisation (seed 42) · 1 layer, "
                                      "1 head, d_model 16 · "));
        /* where the weights come from, in the metadata as every other figure says it (head*.png: "random
         * weights (untrained, seed 42)", model.png: "trained toy model DIR (...)") */
        const char *weights = av_png_image_text(&img, "Weights");
        assert_non_null(weights);
        assert_string_equal(weights, "trained in this run: toy model on reverse, 1 step from random initialisation "
                                     "(seed 42)");
        av_png_image_free(&img);
    }
    tu_free(&r);
}

/* Rows of train.csv with a held-out loss (the snapshot steps), read apart
 * from the figures. */
static int csv_snapshots(const char *path) {
    char *csv = tu_slurp_file(path, NULL);
    assert_non_null(csv);
    int n = 0;
    for (char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        char *c = line + 1;
        for (int k = 0; k < 4 && c; k++) c = strchr(c + 1, ','); /* step,lr,loss,grad_norm, */
        n += c && c[1] != ',';
    }
    free(csv);
    return n;
}

/* <rect>s of a 6-px marker square in fill colour `fill` in an SVG file. */
static int svg_markers_of(const char *path, const char *fill, int px) {
    char *svg = tu_slurp_file(path, NULL), pat[64];
    assert_non_null(svg);
    snprintf(pat, sizeof pat, "width=\"%d\" height=\"%d\" fill=\"%s\"", px, px, fill);
    int n = 0;
    for (const char *p = strstr(svg, pat); p; p = strstr(p + 1, pat)) n++;
    free(svg);
    return n;
}

/* The 6-px markers of colour fill in the SVG at path. */
static int svg_markers(const char *path, const char *fill) { return svg_markers_of(path, fill, 6); }

/* The curves measured at snapshots only (held-out loss and accuracy,
 * attention on target; a few log-spaced steps) draw a marker at every
 * snapshot and say "at snapshots", so the joining lines do not read as
 * measured between them; the compare overlays too. They had lines alone. */
static void test_cli_train_snapshot_curves_have_markers(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "20", "--layers", "1", "--heads", "1", "--d-model", "16",
                "--batch", "4", "-o", tu_in(f, "one"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    int n = csv_snapshots(tu_in(f, "one/train.csv"));
    assert_true(n > 3 && n < 21);
    /* tab10 orange: the held-out loss (series 1 of the loss panel) and its legend entry; blue: the accuracy
     * (no legend entry) and the attention on target (one head, in the legend) */
    assert_int_equal(svg_markers(tu_in(f, "one/curves.svg"), "#ff7f0e"), n + 1);
    assert_int_equal(svg_markers(tu_in(f, "one/curves.svg"), "#1f77b4"), 2 * n + 1);
    char *svg = tu_slurp_file(tu_in(f, "one/curves.svg"), NULL);
    assert_non_null(strstr(svg, ">held-out, at snapshots</text>"));
    assert_non_null(strstr(svg, ">held-out sequence accuracy, at snapshots</text>"));
    free(svg);
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "20", "--layers", "1", "--heads", "1", "--d-model", "16",
                "--batch", "4", "--compare", "scale", "-o", tu_in(f, "cmp"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    /* per setting: accuracy and best head's attention at every snapshot, and both legend entries (6 px); the
     * first setting's markers in the plots are 8 px, a band around the second's where they coincide */
    assert_int_equal(svg_markers_of(tu_in(f, "cmp/compare_scale.svg"), "#1f77b4", 8), 2 * n);
    assert_int_equal(svg_markers(tu_in(f, "cmp/compare_scale.svg"), "#1f77b4"), 2);
    assert_int_equal(svg_markers(tu_in(f, "cmp/compare_scale.svg"), "#ff7f0e"), 2 * n + 2);
    svg = tu_slurp_file(tu_in(f, "cmp/compare_scale.svg"), NULL);
    assert_non_null(strstr(svg, ">held-out sequence accuracy, at snapshots</text>"));
    /* the title says the model and lr the result depends on, the legend what each run is and which head the
     * last panel follows (a new user's report: "scale" and "no-scale" only, no shape, no lr, no head); and the
     * settings held fixed (a figure-maker's report: which positions and norm both had); whole in <title>, as
     * the drawn title breaks between its pieces; and that the weights are trained ones, as every figure's title
     * says whether its weights are random, loaded or trained ("reverse, 20 steps" did not) */
    const char *const want[] = {"<title>trained on reverse for 20 steps from random initialisation \xC2\xB7 1 layer, 1 head, d_model 16, lr 0.006 \xC2\xB7 learned "
                                "positions, Pre-LN, \xC3\xB7\xE2\x88\x9A" "d_k vs no scale \xC2\xB7 --compare scale, same data, "
                                "seed 42</title>", ">scale: \xC3\xB7\xE2\x88\x9A" "d_k</text>",
                                ">no-scale: no \xC3\xB7\xE2\x88\x9A" "d_k</text>", ">scale: L0 H0</text>",
                                ">no-scale: L0 H0</text>", ">on target: best head at the end</text>"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        if (!strstr(svg, want[k])) fail_msg("compare_scale.svg has no %s", want[k]);
    free(svg);
}

/* `attnviz --train reverse` of a given shape for a few steps, batch 4, into dir (with -q when quiet); fails
 * the test unless it exits 0. The caller frees r (its trace is in r->out). */
static void train_shape(tu_result *r, const char *dir, const char *steps, const char *layers, const char *heads,
                        const char *d_model, int quiet) {
    if (quiet)
        run_attnviz(r, NULL, "--train", "reverse", "--steps", steps, "--layers", layers, "--heads", heads,
                    "--d-model", d_model, "--batch", "4", "-q", "-o", dir, NULL);
    else
        run_attnviz(r, NULL, "--train", "reverse", "--steps", steps, "--layers", layers, "--heads", heads,
                    "--d-model", d_model, "--batch", "4", "-o", dir, NULL);
    if (r->code != 0) fail_msg("exit %d: %s", r->code, r->err);
}

/* The "attention on the target" panel holds 10 curves (tab10, the legend's room). With 16 heads it drew
 * layer 0's heads 0..9 and nothing said so, so the head the trace names best ("best L1 H5") could be
 * missing. Now: 10 heads, the trace's best among them, and a note saying which 10 of how many; with
 * few heads, every head and no note. */
static void test_cli_train_curves_draw_the_best_head_of_many(void **state) {
    tu_fixture *f = *state;
    static const struct { const char *layers, *heads; int lh; } cases[] = {{"2", "8", 16}, {"2", "2", 4}};
    for (int c = 0; c < 2; c++) {
        tu_result r;
        const char *dir = tu_in(f, c ? "few" : "many");
        train_shape(&r, dir, "20", cases[c].layers, cases[c].heads, "32", 0);
        const char *b = NULL;
        for (const char *p = strstr(r.out, " best L"); p; p = strstr(p + 1, " best L")) b = p; /* the last snapshot */
        int bl = -1, bh = -1;
        assert_true(b && sscanf(b, " best L%d H%d", &bl, &bh) == 2);
        tu_free(&r);
        char path[4200], want[160];
        snprintf(path, sizeof path, "%s/curves.svg", dir);
        char *svg = tu_slurp_file(path, NULL);
        assert_non_null(svg);
        int entries = 0, seen[64] = {0};
        for (const char *p = strstr(svg, ">layer "); p; p = strstr(p + 1, ">layer ")) {
            int l, h;
            if (sscanf(p, ">layer %d head %d</text>", &l, &h) != 2) continue;
            assert_true(l >= 0 && h >= 0 && l * 8 + h < 64);
            assert_int_equal(seen[l * 8 + h]++, 0); /* no head twice */
            entries++;
        }
        snprintf(want, sizeof want, ">layer %d head %d</text>", bl, bh);
        if (!strstr(svg, want)) fail_msg("curves.svg does not draw the best head L%d H%d", bl, bh);
        if (c == 0) {
            assert_int_equal(entries, 10);
            snprintf(want, sizeof want, ">10 of 16 heads: the best at the end, L%d H%d, and the 9 next</text>", bl, bh);
            if (!strstr(svg, want)) fail_msg("curves.svg has no note '%s'", want);
        } else {
            assert_int_equal(entries, cases[c].lh);
            assert_null(strstr(svg, " heads: the best at the end"));
        }
        free(svg);
    }
}

/* The film strip's width and height (from the PNG's IHDR: bytes 16..23, big-endian). */
/* A PNG's width and height in pixels, from its IHDR (render/pngout.h's av_png_read_texts: libpng, the
 * image never decoded). */
static void png_size(const char *path, unsigned *w, unsigned *h) {
    av_png_image img = {0};
    av_err e = {{0}};
    if (av_png_read_texts(path, &img, &e) != AV_OK) fail_msg("%s: %s", path, e.msg);
    *w = (unsigned)img.width, *h = (unsigned)img.height;
    av_png_image_free(&img);
}

/* The film strip drew one column per head: a 12 x 16 model gave a 9642 x 1650 px strip of 192 columns
 * (every other figure stays within 2400 px). Now at most 16 columns: with more heads, the 16 with the
 * most attention on target at the last snapshot (train.csv's last attn_on_target_* row), the best
 * first, named "L<l> H<h>", a note saying 16 of 192 and why, and within 2400 x 2400 px. A 2 x 4 model
 * keeps its 8 columns in layer/head order, no note, 12 px a token (11 tokens) + 16 px between maps. */
static void test_cli_train_filmstrip_of_many_heads_stays_within_2400_px(void **state) {
    tu_fixture *f = *state;
    static const struct { const char *layers, *heads; int lh; } cases[] = {{"12", "16", 192}, {"2", "4", 8}};
    for (int c = 0; c < 2; c++) {
        tu_result r;
        const char *dir = tu_in(f, c ? "few" : "many");
        train_shape(&r, dir, "20", cases[c].layers, cases[c].heads, "64", 1);
        tu_free(&r);
        char path[4200];
        unsigned w, h;
        snprintf(path, sizeof path, "%s/filmstrip.png", dir);
        png_size(path, &w, &h);
        if (w > 2400 || h > 2400) fail_msg("%s x %s: filmstrip.png is %u x %u px", cases[c].layers, cases[c].heads, w, h);
        /* attention on target per head at the last snapshot, from train.csv */
        snprintf(path, sizeof path, "%s/train.csv", dir);
        char *csv = tu_slurp_file(path, NULL);
        assert_non_null(csv);
        double aot[192];
        int snaps = 0;
        for (char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
            char *p = line + 1;
            for (int k = 0; k < 6 && p; k++) p = strchr(p + 1, ','); /* past step,lr,loss,grad_norm,ho_loss,acc */
            if (!p || p[-1] == ',' || p[1] == '\n' || p[1] == 0) continue; /* not a snapshot */
            for (int i = 0; i < cases[c].lh; i++) { aot[i] = strtod(p + 1, &p); }
            snaps++;
        }
        assert_true(snaps > 3);
        free(csv);
        snprintf(path, sizeof path, "%s/filmstrip.svg", dir);
        char *svg = tu_slurp_file(path, NULL);
        assert_non_null(svg);
        int col[192], n = 0, seen[192] = {0};
        double x[192];
        for (const char *p = strstr(svg, ">L"); p; p = strstr(p + 1, ">L")) {
            int l, hd;
            char end[8] = "";
            if (sscanf(p, ">L%d H%d%7[^0-9]", &l, &hd, end) != 3 || strncmp(end, "</text", 6) != 0) continue;
            int H = atoi(cases[c].heads), i = l * H + hd;
            assert_true(n < 192 && hd < H && i >= 0 && i < cases[c].lh);
            assert_int_equal(seen[i]++, 0); /* no head twice */
            const char *open = p;
            while (open > svg && strncmp(open, "<text ", 6) != 0) open--;
            x[n] = atof(open + 9); /* <text x=" */
            col[n++] = i;
        }
        if (c == 0) {
            assert_int_equal(n, 16);
            for (int k = 0; k < 16; k++) { /* the best first; every head left out has no more on target */
                if (k) assert_true(aot[col[k]] <= aot[col[k - 1]] + 1e-8);
                for (int i = 0; i < 192; i++)
                    if (!seen[i] && aot[i] > aot[col[k]] + 1e-8)
                        fail_msg("L%d H%d (%.9g on target) left out for L%d H%d (%.9g)", i / 16, i % 16, aot[i],
                                 col[k] / 16, col[k] % 16, aot[col[k]]);
            }
            assert_non_null(strstr(svg, ">16 of 192 heads (a film strip has at most 16 columns): the 16 with the most "
                                        "attention on target at the end, the best first</text>"));
        } else {
            assert_int_equal(n, 8);
            for (int k = 0; k < 8; k++) assert_int_equal(col[k], k);
            for (int k = 1; k < 8; k++) assert_true(fabs(x[k] - x[k - 1] - (12 * 11 + 16)) < 1e-6);
            assert_null(strstr(svg, " heads (a film strip has at most"));
        }
        free(svg);
    }
}

/* The log's losses, worked by hand from C's "%.4f" and "%.1e": a loss above 0 that "%.4f" prints as "0.0000"
 * (below 0.00005) is printed as "%.1e" does, as numpy's repr switches to scientific notation for small values
 * (np.float64(3e-05) is 3e-05, not 0.0000); the rest as before. The reverse run of docs/train.md ended at
 * train.csv's 6.08752712e-07 and printed "loss 0.0000" (a learner's pass: 0 or small?). */
static void test_small_loss_is_not_shown_as_zero(void **state) {
    (void)state;
    static const struct {
        double x;
        const char *want;
    } cases[] = {
        {3e-05, "3.0e-05"},          {6.08752712e-07, "6.1e-07"}, {4.99e-05, "5.0e-05"},
        {6e-05, "0.0001"},           /* "%.4f" shows it: not hidden, unchanged */
        {0.0, "0.0000"},             /* exactly 0 stays 0 */
        {5.6647, "5.6647"},          {98.5289, "98.529"},         {1.2e7, "1.2e+07"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[16];
        av_train_loss_text(out, cases[i].x);
        if (strcmp(out, cases[i].want) != 0) fail_msg("%g: got '%s', want '%s'", cases[i].x, out, cases[i].want);
    }
}

/* attention.gif passed only the first 64 heads to its grid (layers 0..7 of a 12 x 8 model), silently.
 * Now, as the film strip, the 64 with the most attention on target at the end, the best first, and a
 * note says so; with at most 64 heads every head in layer/head order and no note (byte-identical GIF).
 * Hand-worked: head i has (37 i mod 96) / 100 on target; 37 · 13 = 481 = 5 · 96 + 1, so the head with
 * value v/100 is 13 v mod 96, and the k-th best (k = 0..63) is the one with v = 95 − k. */
static void test_gif_shows_the_heads_with_most_attention_on_target(void **state) {
    (void)state;
    double aot[96];
    int order[96];
    char note[200];
    for (int i = 0; i < 96; i++) aot[i] = (double)((37 * i) % 96) / 100.0;
    assert_int_equal(av_train_gif_heads(order, note, sizeof note, aot, 12, 8), 64);
    for (int k = 0; k < 64; k++)
        if (order[k] != (13 * (95 - k)) % 96) fail_msg("panel %d: head %d, expected %d", k, order[k], (13 * (95 - k)) % 96);
    assert_string_equal(note, "64 of 96 heads (a GIF frame has at most 64 panels): the 64 with the most attention "
                              "on target at the end, the best first");
    /* ties: the lower index first (heads 5 and 2 both 1.0, the rest 0 → 2, 5, then 0, 1, 3, ...) */
    double tie[72] = {0};
    tie[5] = tie[2] = 1.0;
    assert_int_equal(av_train_gif_heads(order, note, sizeof note, tie, 9, 8), 64);
    static const int want[6] = {2, 5, 0, 1, 3, 4};
    for (int k = 0; k < 6; k++) assert_int_equal(order[k], want[k]);
    assert_int_equal(order[63], 63); /* the 62nd zero: 0..71 without 2 and 5 */
    /* 8 x 8 = 64 heads: all of them, in layer/head order, no note (as before) */
    strcpy(note, "stale");
    assert_int_equal(av_train_gif_heads(order, note, sizeof note, aot, 8, 8), 64);
    for (int k = 0; k < 64; k++) assert_int_equal(order[k], k);
    assert_string_equal(note, "");
}

/* The GIF at path, read whole, and its frame k with that frame's colour map (its own, or the
 * file's); the caller closes it with DGifCloseFile. */
static GifFileType *gif_frame(const char *path, int k, const SavedImage **si, const ColorMapObject **cm) {
    int e;
    GifFileType *g = DGifOpenFileName(path, &e);
    if (!g || DGifSlurp(g) != GIF_OK) fail_msg("cannot read %s", path);
    assert_true(k < g->ImageCount);
    *si = &g->SavedImages[k];
    *cm = (*si)->ImageDesc.ColorMap ? (*si)->ImageDesc.ColorMap : g->SColorMap;
    return g;
}

/* The first line of ink from the top of frame k of a GIF (its title): the ink's left and right
 * x, and the frame's size. "Ink": a pixel with every channel below 128 (the title is black text). */
static void gif_title_extent(const char *path, int k, int *left, int *right, int *w, int *h) {
    int e;
    const SavedImage *si;
    const ColorMapObject *cm;
    GifFileType *g = gif_frame(path, k, &si, &cm);
    *w = si->ImageDesc.Width;
    *h = si->ImageDesc.Height;
    *left = *w;
    *right = -1;
    for (int y = 0, started = 0; y < *h; y++) {
        int ink = 0;
        for (int x = 0; x < *w; x++) {
            GifColorType c = cm->Colors[si->RasterBits[(size_t)y * *w + x]];
            if (c.Red < 128 && c.Green < 128 && c.Blue < 128) {
                ink = 1;
                if (x < *left) *left = x;
                if (x > *right) *right = x;
            }
        }
        if (ink) started = 1;
        else if (started) break;
    }
    DGifCloseFile(g, &e);
}

/* The same end to end: a 12 x 8 model's GIF frames stay within 2400 px (64 panels, as before) and
 * their title carries the note, so its line spans most of the frame; the old title ("trained on
 * reverse, step 2 · held-out accuracy 0.0 %") spans about a quarter of it. */
static void test_cli_train_gif_of_many_heads_says_which(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    const char *dir = tu_in(f, "many");
    train_shape(&r, dir, "2", "12", "8", "32", 1);
    tu_free(&r);
    char path[4200];
    snprintf(path, sizeof path, "%s/attention.gif", dir);
    int left, right, w, h;
    gif_title_extent(path, 0, &left, &right, &w, &h);
    if (w > 2400 || h > 2400) fail_msg("attention.gif is %d x %d px", w, h);
    if (right - left < w * 6 / 10) fail_msg("the title spans x %d..%d of %d px: no note line", left, right, w);
}

/* Where frame k of a GIF has its first run of 60 side-by-side pixels that are not near white (a
 * heat-map panel's top edge; title text never has such a run): the run's first x and its y, or -1. */
static void gif_panel_corner(const char *path, int k, int *n_frames, int *x, int *y) {
    int e;
    const SavedImage *si;
    const ColorMapObject *cm;
    GifFileType *g = gif_frame(path, k, &si, &cm);
    *n_frames = g->ImageCount;
    int w = si->ImageDesc.Width, h = si->ImageDesc.Height;
    *x = *y = -1;
    for (int r = 0; r < h && *y < 0; r++)
        for (int c = 0, run = 0; c < w && *y < 0; c++) {
            GifColorType p = cm->Colors[si->RasterBits[(size_t)r * w + c]];
            run = p.Red < 200 || p.Green < 200 || p.Blue < 200 ? run + 1 : 0;
            if (run >= 60) *y = r, *x = c - 59;
        }
    DGifCloseFile(g, &e);
}

/* The heat-maps stand still from frame to frame: step 0's title ("reverse, step 0: untrained
 * (random initialisation) · ...") wraps to one more line than the later ones', and every panel sat
 * 25 px lower in frame 0 than in frames 1-9 (104 vs 79 px with the defaults): a learner's report.
 * Frames are now padded above, and on the right, where a title wider than one head's panel widens
 * frame 0 (centred, the panel moved 18 px sideways: a figure-maker's report); the first panel's
 * top-left corner has one place in every frame, with 2 layers of 4 heads and with 1 head. */
static void test_cli_train_gif_panels_stay_still(void **state) {
    tu_fixture *f = *state;
    static const struct { const char *steps, *layers, *heads; int frames; } runs[] = {
        {"20", "2", "4", 10},  /* steps 0, 1, 2, 3, 4, 6, 8, 11, 15, 20: the 25 px jump down */
        {"300", "1", "1", 11}, /* step 0 and 10 log-spaced steps to 300: the 18 px jump sideways */
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        tu_result r;
        const char *dir = tu_in(f, runs[i].heads);
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", runs[i].steps, "--layers", runs[i].layers, "--heads",
                    runs[i].heads, "-q", "-o", dir, NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        tu_free(&r);
        char path[4200];
        snprintf(path, sizeof path, "%s/attention.gif", dir);
        int n = 0, x0, y0, x, y;
        gif_panel_corner(path, 0, &n, &x0, &y0);
        assert_int_equal(n, runs[i].frames);
        assert_true(x0 > 0 && y0 > 0);
        for (int k = 1; k < n; k++) {
            gif_panel_corner(path, k, &n, &x, &y);
            if (x != x0 || y != y0)
                fail_msg("%s x %s heads: frame %d's panel starts at (%d, %d), frame 0's at (%d, %d)", runs[i].layers,
                         runs[i].heads, k, x, y, x0, y0);
        }
    }
}

/* The ink right of frame k's colour bar and below its bottom (the masked-cell legend's text): its
 * left and right x, or right = -1. The colour bar's top is the colour map's 1 (viridis #FDE725), its
 * rightmost pixel of that colour in the frame (a panel's yellow cells lie left of it); its bottom, the
 * last coloured (not grey) pixel down the bar's column; "ink" as gif_title_extent's (the legend's swatch
 * has a dark frame, so left is the swatch's left edge). */
static void gif_legend_extent(const char *path, int k, int *left, int *right) {
    int e;
    const SavedImage *si;
    const ColorMapObject *cm;
    GifFileType *g = gif_frame(path, k, &si, &cm);
    int w = si->ImageDesc.Width, h = si->ImageDesc.Height, bx = -1, by = -1;
#define PX(x, y) (cm->Colors[si->RasterBits[(size_t)(y) * w + (x)]])
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            GifColorType c = PX(x, y);
            if (abs(c.Red - 0xFD) + abs(c.Green - 0xE7) + abs(c.Blue - 0x25) < 30 && x > bx) bx = x, by = y;
        }
    assert_true(bx > 0);
    bx -= 4; /* inside the bar */
    int bottom = by;
    for (int y = by; y < h; y++) {
        GifColorType c = PX(bx, y);
        if (abs(c.Red - c.Green) + abs(c.Green - c.Blue) > 20) bottom = y;
    }
    *left = w;
    *right = -1;
    for (int y = bottom + 14; y < h; y++)
        for (int x = bx + 5; x < w; x++) {
            GifColorType c = PX(x, y);
            if (c.Red < 128 && c.Green < 128 && c.Blue < 128) {
                if (x < *left) *left = x;
                if (x > *right) *right = x;
            }
        }
#undef PX
    DGifCloseFile(g, &e);
}

/* One run's training figures named the hatching in two ways: `attnviz --train reverse --steps 200 -o rev`
 * wrote rev/attention.gif with the legend "masked (−∞)" and rev/filmstrip.png with "hatched = causal mask"
 * (a learner's report). Both now say what the hatched cells are in one phrase, written here by hand: the
 * causal mask, −∞ before the softmax, 0 after. The film strip's SVG holds it; the GIF's legend, pixels
 * only, is as wide as it: the hatched swatch (22 px) and its 8-px gap, then 40 characters at the legend's
 * 14 px, at least 0.32 em each (DejaVu Sans's narrowest, the space): >= 30 + 179 px, where the swatch and
 * "masked (−∞)" spanned 100 px. */
static void test_cli_train_figures_name_the_mask_alike(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    const char *dir = tu_in(f, "rev");
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "-q", "-o", dir, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    static const char phrase[] = "causal mask (\xE2\x88\x92\xE2\x88\x9E before softmax, 0 after)";
    char path[4200];
    snprintf(path, sizeof path, "%s/filmstrip.svg", dir);
    char *svg = tu_slurp_file(path, NULL);
    assert_non_null(svg);
    if (!strstr(svg, "hatched = causal mask (\xE2\x88\x92\xE2\x88\x9E before softmax, 0 after)</text>"))
        fail_msg("filmstrip.svg does not say \"hatched = %s\"", phrase);
    free(svg);
    assert_string_equal(AV_TRAIN_MASK_TEXT, phrase);
    snprintf(path, sizeof path, "%s/attention.gif", dir);
    int left, right;
    gif_legend_extent(path, 0, &left, &right);
    if (right < 0 || right - left + 1 < 30 + 179)
        fail_msg("attention.gif's legend text spans x %d..%d: not \"%s\"", left, right, phrase);
}

/* The panels of frame k of a GIF in the first row of panels: the runs of at least 60 side-by-side
 * pixels that are not near white on the row gif_panel_corner finds (the panels' top edges; the colour
 * bar, about 20 px wide, and the title are shorter). */
static int gif_first_row_panels(const char *path, int k) {
    int n = 0, x, y, e;
    gif_panel_corner(path, k, &n, &x, &y);
    assert_true(y >= 0);
    const SavedImage *si;
    const ColorMapObject *cm;
    GifFileType *g = gif_frame(path, k, &si, &cm);
    int w = si->ImageDesc.Width, panels = 0;
    for (int c = 0, run = 0; c <= w; c++) {
        int ink = 0;
        if (c < w) {
            GifColorType p = cm->Colors[si->RasterBits[(size_t)y * w + c]];
            ink = p.Red < 200 || p.Green < 200 || p.Blue < 200;
        }
        if (ink) run++;
        else panels += run >= 60, run = 0;
    }
    DGifCloseFile(g, &e);
    return panels;
}

/* A GIF frame puts one layer a row, its heads left to right, as model.png of the trained folder does:
 * the automatic grid had 4 columns for 5..16 panels, so a 2 x 3 model's first row held layer 0's
 * three heads and layer 1's head 0 (a figure-maker's report). The heads a layer come from the command
 * (--heads 3, --heads 5); one head a layer keeps the layers side by side (--layers 3 --heads 1). */
static void test_cli_train_gif_one_layer_a_row(void **state) {
    tu_fixture *f = *state;
    static const struct { const char *layers, *heads, *d_model; int row; } runs[] = {
        {"2", "3", "12", 3}, {"2", "5", "10", 5}, {"3", "1", "8", 3}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        tu_result r;
        char dir[32], path[4200];
        snprintf(dir, sizeof dir, "g%zu", i);
        train_shape(&r, tu_in(f, dir), "1", runs[i].layers, runs[i].heads, runs[i].d_model, 1);
        tu_free(&r);
        snprintf(path, sizeof path, "%s/attention.gif", tu_in(f, dir));
        int row = gif_first_row_panels(path, 1);
        if (row != runs[i].row)
            fail_msg("--layers %s --heads %s: %d panels in the GIF's first row, want %d", runs[i].layers,
                     runs[i].heads, row, runs[i].row);
    }
}

/* The text of the GIF's Comment Extensions, sub-blocks joined (giflib's DGifSlurp keeps a comment's first
 * sub-block as COMMENT_EXT_FUNC_CODE, the rest as CONTINUE_EXT_FUNC_CODE, with the image after them or, past
 * the last image, with the file); malloc'd, "" for none. */
static char *gif_comment(const char *path) {
    int e;
    GifFileType *g = DGifOpenFileName(path, &e);
    if (!g || DGifSlurp(g) != GIF_OK) fail_msg("cannot read %s", path);
    size_t n = 0;
    char *out = calloc(1, 1);
    for (int k = 0; k <= g->ImageCount; k++) {
        const ExtensionBlock *b = k < g->ImageCount ? g->SavedImages[k].ExtensionBlocks : g->ExtensionBlocks;
        int count = k < g->ImageCount ? g->SavedImages[k].ExtensionBlockCount : g->ExtensionBlockCount;
        for (int i = 0, in = 0; i < count; i++) {
            in = b[i].Function == COMMENT_EXT_FUNC_CODE || (in && b[i].Function == CONTINUE_EXT_FUNC_CODE);
            if (!in) continue;
            assert_true(b[i].ByteCount <= 255);
            out = realloc(out, n + (size_t)b[i].ByteCount + 1);
            assert_non_null(out);
            memcpy(out + n, b[i].Bytes, (size_t)b[i].ByteCount);
            out[n += (size_t)b[i].ByteCount] = 0;
        }
    }
    DGifCloseFile(g, &e);
    return out;
}

/* attention.gif records how it was made as the film strip beside it does (PNG tEXt Description, Weights, Run):
 * it recorded nothing, so a GIF put on a slide or a web page could not say whether its weights were trained, on
 * which task, from which seed. Its Comment Extension holds the film strip's Description, Weights and Run
 * texts, one "Key: value" line each. */
static void test_cli_train_gif_says_how_it_was_made(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    const char *dir = tu_in(f, "g");
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "--seed", "7",
                "-q", "-o", dir, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char path[4200];
    snprintf(path, sizeof path, "%s/attention.gif", dir);
    char *comment = gif_comment(path);
    av_png_image img;
    av_err err;
    snprintf(path, sizeof path, "%s/filmstrip.png", dir);
    assert_int_equal(av_png_read_texts(path, &img, &err), AV_OK);
    const char *keys[3] = {"Description", "Weights", "Run"};
    for (int i = 0; i < 3; i++) {
        const char *v = av_png_image_text(&img, keys[i]);
        assert_non_null(v);
        char line[4400];
        snprintf(line, sizeof line, "%s: %s", keys[i], v);
        if (!strstr(comment, line)) fail_msg("attention.gif's comment lacks the film strip's %s:\n%s", line, comment);
    }
    av_png_image_free(&img);
    if (!strstr(comment, "Description: attnviz --train reverse --steps 2 --d-model 16 --batch 4 --seed 7 -q -o ") ||
        !strstr(comment, "Weights: trained in this run: toy model on reverse, 2 steps from random initialisation "
                         "(seed 7)"))
        fail_msg("attention.gif's comment:\n%s", comment);
    free(comment);
}

/* The Run of a --train's figures names every option that decides the numbers: `--train reverse --steps 30
 * --batch 8 --kernel reference` and the same command without --kernel gave both film strips (and curves, GIF)
 * Run train-406a201c22d21c8d, though their model.safetensors and train.csv differ (the reference kernel sums in
 * another order). The same command twice keeps its Run; --kernel reference gets another. */
static void test_cli_train_run_names_the_kernel(void **state) {
    tu_fixture *f = *state;
    static const char *const dirs[3] = {"blas1", "blas2", "ref"};
    char runs[3][64];
    for (int k = 0; k < 3; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "-q",
                    "--kernel", k == 2 ? "reference" : "auto", "-o", tu_in(f, dirs[k]), NULL);
        if (r.code != 0) fail_msg("%s: exit %d: %s", dirs[k], r.code, r.err);
        tu_free(&r);
        char path[4200];
        snprintf(path, sizeof path, "%s/filmstrip.png", tu_in(f, dirs[k]));
        av_png_image img;
        av_err err;
        assert_int_equal(av_png_read_texts(path, &img, &err), AV_OK);
        const char *run = av_png_image_text(&img, "Run");
        assert_non_null(run);
        snprintf(runs[k], sizeof runs[k], "%s", run);
        av_png_image_free(&img);
    }
    assert_string_equal(runs[0], runs[1]);
    if (!strcmp(runs[0], runs[2])) fail_msg("--kernel reference's film strip has the blas run's Run %s", runs[2]);
}

/* `attnviz --train reverse --dpi 200` (and --scale) reach the training figures: they were drawn at 100 dpi
 * whatever the options (a figure-maker's report). By plot.h's rule (f = scale × dpi / 100) the film strip
 * and the curves have 2 × the 100-dpi run's pixels and pHYs 200 dpi, and the GIF's frames 2 × its size;
 * at --scale 1.5 the curves have 1.5 × and their SVG's width too. No warning names --dpi or --scale. */
static void test_cli_train_dpi_and_scale_reach_its_figures(void **state) {
    tu_fixture *f = *state;
    static const char *const dirs[3] = {"d100", "d200", "s15"};
    static const char *const opt[3][2] = {{"--dpi", "100"}, {"--dpi", "200"}, {"--scale", "1.5"}};
    int w[3][3], h[3][3]; /* run, figure (film strip, curves, GIF) */
    double dpi[3] = {0};
    for (int k = 0; k < 3; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "-q",
                    opt[k][0], opt[k][1], "-o", tu_in(f, dirs[k]), NULL);
        if (r.code != 0 || strstr(r.err, "dpi") || strstr(r.err, "scale"))
            fail_msg("%s %s: exit %d, stderr '%s'", opt[k][0], opt[k][1], r.code, r.err);
        tu_free(&r);
        static const char *const pngs[2] = {"filmstrip.png", "curves.png"};
        for (int i = 0; i < 2; i++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", tu_in(f, dirs[k]), pngs[i]);
            av_png_image img;
            av_err e = {{0}};
            if (av_png_read(path, &img, &e) != AV_OK) fail_msg("%s", e.msg);
            w[k][i] = img.width, h[k][i] = img.height;
            if (i == 0) dpi[k] = img.dpi;
            av_png_image_free(&img);
        }
        char path[4200];
        snprintf(path, sizeof path, "%s/attention.gif", tu_in(f, dirs[k]));
        int e;
        GifFileType *g = DGifOpenFileName(path, &e);
        if (!g) fail_msg("cannot read %s", path);
        w[k][2] = g->SWidth, h[k][2] = g->SHeight;
        DGifCloseFile(g, &e);
    }
    for (int i = 0; i < 3; i++)
        if (w[1][i] != 2 * w[0][i] || h[1][i] != 2 * h[0][i])
            fail_msg("figure %d at --dpi 200: %d x %d, at 100: %d x %d", i, w[1][i], h[1][i], w[0][i], h[0][i]);
    assert_true(fabs(dpi[0] - 100) < 0.1 && fabs(dpi[1] - 200) < 0.1);
    if (w[2][1] != (int)lrint(1.5 * w[0][1]) || h[2][1] != (int)lrint(1.5 * h[0][1]))
        fail_msg("curves at --scale 1.5: %d x %d, at 1: %d x %d", w[2][1], h[2][1], w[0][1], h[0][1]);
}

/* At --dpi 600 the training figures and a --model run's print at their --dpi 100 size, within a pixel: past
 * 6000 px a side (AV_PLOT_MAX_PX) a figure gets fewer pixels and states a lower dpi. The layout was shrunk to
 * 6000 px with pHYs 600, so the default reverse run's curves printed 10.00 in wide against 12.80 at --dpi 100,
 * its film strip 8.85 against 14.25, and its --model figures 9.67..10.00 against 13.43 (a figure-maker's
 * report); their SVGs too. The GIF has no dpi: its frames are the 100-dpi frames at one factor (width and height
 * grow alike; 5802 x 3486 against 1343 x 734 was a squeezed layout). One note on stderr per command names the
 * lowered files. Fails on the binary before the fix. The note counted a figure's PNG and SVG as two files and
 * did not name the GIF: it fails on 6ff8fb8's binary too. */
static void test_cli_train_dpi_600_keeps_the_printed_size(void **state) {
    tu_fixture *f = *state;
    static const char *const dpis[2] = {"100", "600"};
    static char err[4][2048]; /* stderr of each command; fixed buffers, so a failure leaks nothing */
    for (int k = 0; k < 2; k++) {
        char dir[16], mdir[16];
        snprintf(dir, sizeof dir, "t%s", dpis[k]);
        snprintf(mdir, sizeof mdir, "m%s", dpis[k]);
        tu_result r;
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "-q", "--dpi",
                    dpis[k], "-o", tu_in(f, dir), NULL);
        if (r.code != 0) fail_msg("--train --dpi %s: exit %d, stderr '%s'", dpis[k], r.code, r.err);
        snprintf(err[k], sizeof err[k], "%s", r.err);
        tu_free(&r);
        run_attnviz(&r, NULL, "--model", tu_in(f, "t100"), "--figures", "all", "--format", "both", "-q", "--dpi",
                    dpis[k], "-o", tu_in(f, mdir), "3 1 4 1 5 > 5 1 4 1 3", NULL);
        if (r.code != 0) fail_msg("--model --dpi %s: exit %d, stderr '%s'", dpis[k], r.code, r.err);
        snprintf(err[2 + k], sizeof err[2 + k], "%s", r.err);
        tu_free(&r);
    }
    static const char *const figs[] = {"t%s/filmstrip.png", "t%s/filmstrip.svg", "t%s/curves.png", "t%s/curves.svg",
                                       "m%s/model.png", "m%s/model.svg", "m%s/layer1.png", "m%s/layer1.svg",
                                       "m%s/layer1_head0.png", "m%s/layer1_head0.svg", "m%s/layer1_head3.png",
                                       "m%s/layer1_head3.svg"};
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++) {
        char a[64], b[64], pa[4300], why[9000];
        snprintf(a, sizeof a, figs[i], "100");
        snprintf(b, sizeof b, figs[i], "600");
        snprintf(pa, sizeof pa, "%s", tu_in(f, a));
        if (!tu_same_printed_size(pa, tu_in(f, b), why, sizeof why)) fail_msg("%s", why);
    }
    int gw[2], gh[2];
    for (int k = 0; k < 2; k++) {
        char rel[32];
        snprintf(rel, sizeof rel, "t%s/attention.gif", dpis[k]);
        size_t n = 0;
        unsigned char *gif = (unsigned char *)tu_slurp_file(tu_in(f, rel), &n);
        assert_true(gif && n > 10 && memcmp(gif, "GIF89a", 6) == 0);
        gw[k] = gif[6] | gif[7] << 8, gh[k] = gif[8] | gif[9] << 8;
        free(gif);
    }
    /* gw[1] / gw[0] = gh[1] / gh[0], within a pixel of each side */
    if (abs(gw[1] * gh[0] - gh[1] * gw[0]) > gw[0] + gh[0] || (gw[1] > 6000 || gh[1] > 6000) ||
        (gw[1] < 5900 && gh[1] < 5900))
        fail_msg("attention.gif: %d x %d at --dpi 600, %d x %d at 100", gw[1], gh[1], gw[0], gh[0]);
    /* a figure's PNG and SVG are named once ("curves.png/.svg"), and counted once: 2 figures, not 4 files; the
     * GIF, which has no dpi to state, is named too */
    static const char *const first[4] = {NULL,
                                         "2 figures would pass 6000 px a side at --dpi 600 (curves.png/.svg, "
                                         "filmstrip.png/.svg): ",
                                         NULL, "(model.png/.svg, "};
    if (!strstr(err[1], "; attention.gif has fewer pixels too")) fail_msg("--train at --dpi 600: stderr '%s'", err[1]);
    for (int k = 0; k < 4; k++) {
        int notes = 0;
        for (const char *p = err[k]; (p = strstr(p, "px a side")) != NULL; p++) notes++;
        if (notes != (first[k] != NULL) || (first[k] && !strstr(err[k], first[k])) ||
            (first[k] && !strstr(err[k], "instead, with fewer pixels and the same printed size")))
            fail_msg("%s at --dpi %s: stderr '%s'", k < 2 ? "--train" : "--model", dpis[k % 2], err[k]);
    }
}

/* A frame's title names the model as the film strip does, so the frames of two --compare variants
 * (pre-ln/ and post-ln/attention.gif) can be told apart on a slide; they named only the task, step,
 * accuracy and probe. Hand-written expected strings. */
static void test_gif_frame_title_names_the_model(void **state) {
    (void)state;
    char t[800];
    const char *model = "2 layers, 4 heads, d_model 64 · learned positions, Post-LN, ÷√d_k";
    const char *probe = "probe \"3 1 4 1 5 >\" and its answer \" 5 1 4 1 3\"";
    av_train_frame_title(t, sizeof t, "reverse", 600, 1.0, model, probe, "");
    assert_string_equal(t, "trained on reverse, step 600 · held-out accuracy 100.0 % · 2 layers, 4 heads, "
                           "d_model 64 · learned positions, Post-LN, ÷√d_k · probe \"3 1 4 1 5 >\" "
                           "and its answer \" 5 1 4 1 3\"");
    av_train_frame_title(t, sizeof t, "sort", 0, 1.0 / 512, model, probe, "8 of 96 heads");
    assert_string_equal(t, "sort, step 0: untrained (random initialisation) · held-out accuracy 0.2 % · 2 layers, "
                           "4 heads, d_model 64 · learned positions, Post-LN, ÷√d_k · probe \"3 1 4 "
                           "1 5 >\" and its answer \" 5 1 4 1 3\" · 8 of 96 heads");
}

/* The film strip's row labels and the GIF's titles give the held-out accuracy as the log and
 * train.csv measure it (a count of 512 held-out sequences), to one decimal: 1 of 512 right is
 * 0.2 %, 510 of 512 is 99.6 %. They rounded to whole percent, so a film strip said "acc 100 %"
 * beside a printed "accuracy  99.6 %", and "acc 0 %" when some sequences were right. */
static void test_cli_train_filmstrip_accuracy_is_not_rounded_away(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "40", "-q", "-o", f->dir, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *csv = tu_slurp_file(tu_in(f, "train.csv"), NULL), *svg = tu_slurp_file(tu_in(f, "filmstrip.svg"), NULL);
    assert_non_null(csv);
    assert_non_null(svg);
    int rows = 0, fractional = 0;
    for (char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        int step = atoi(line + 1);
        char *c = line + 1;
        for (int k = 0; k < 5 && c; k++) c = strchr(c + 1, ','); /* step,lr,loss,grad_norm,heldout_loss, */
        if (!c || c[-1] == ',') continue;                           /* not a snapshot: no held-out loss */
        double acc = 100 * strtod(c + 1, NULL);                     /* heldout_accuracy, a fraction */
        char key[64]; /* step 0 is named untrained, as the GIF's frame 0 (a figure-maker's report) */
        snprintf(key, sizeof key, ">step %d%s \xC2\xB7 acc ", step, step ? "" : " (untrained)");
        const char *label = strstr(svg, key);
        if (!label) fail_msg("filmstrip.svg has no row label for step %d", step);
        double shown = strtod(label + strlen(key), NULL);
        if (fabs(shown - acc) > 0.05 + 1e-9)
            fail_msg("step %d: the film strip says acc %g %%, train.csv measured %.4f %%", step, shown, acc);
        fractional += fabs(acc - floor(acc + 0.5)) > 0.05;
        rows++;
    }
    assert_true(rows > 3);
    assert_true(fractional > 0); /* 1/512 = 0.195 % at several snapshots of this run: the case that matters */
    free(csv);
    free(svg);
    /* the curves' accuracy axis in percent too, 0 to 100: it said 0.617 where the rest said 61.7 % (a
     * figure-maker's report) */
    svg = tu_slurp_file(tu_in(f, "curves.svg"), NULL);
    assert_non_null(svg);
    assert_non_null(strstr(svg, ">accuracy (%)</text>"));
    assert_non_null(strstr(svg, "text-anchor=\"end\" fill=\"#222222\">100</text>")); /* a y tick: right-aligned */
    free(svg);
}

/* --compare trains each setting of what it compares: the header line names
 * them all as varying ("Pre-LN vs Post-LN"), not the first one alone ("Pre-LN"). */
static void test_cli_train_compare_header_names_the_settings(void **state) {
    tu_fixture *f = *state;
    static const struct { const char *what, *label; } cases[] = {
        {"norm", "d_model 16, learned positions, Pre-LN vs Post-LN, ÷√d_k; batch 2"},
        {"scale", "d_model 16, learned positions, Pre-LN, ÷√d_k vs no scale; batch 2"},
        /* RoPE as everywhere else in the output (it said "rope positions") */
        {"positions", "d_model 16, learned vs sinusoidal vs RoPE positions, Pre-LN, ÷√d_k; batch 2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_result r;
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "--compare",
                    cases[i].what, "-o", tu_in(f, cases[i].what), NULL);
        if (r.code != 0) fail_msg("--compare %s: exit %d: %s", cases[i].what, r.code, r.err);
        if (strncmp(r.out, "training reverse: 2 layers, 4 heads, ", 37) != 0 || !strstr(r.out, cases[i].label) ||
            strstr(r.out, cases[i].label) > strchr(r.out, '\n'))
            fail_msg("--compare %s: the header line lacks '%s':\n%.300s", cases[i].what, cases[i].label, r.out);
        tu_free(&r);
    }
}

/* --compare positions with an odd d_k (d_model 10, 2 heads: d_k = 5) leaves
 * out rope, which rotates pairs of dimensions, and says so on stderr, in the
 * header and the summary; it used to train rope anyway, fail, and free the
 * failed run's uninitialized log (a segfault). */
static void test_cli_train_compare_positions_odd_d_k_leaves_out_rope(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--d-model", "10", "--heads", "2", "--layers", "1", "--steps", "1",
                "--batch", "2", "--compare", "positions", "-o", f->dir, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    const char *why = "RoPE needs an even d_k; d_k = d_model / heads = 10 / 2 = 5";
    char line[400];
    /* on stderr, --positions rope's refusal with its choices (by hand: multiples of 4 around 10 are 8 and 12; the
     * head counts h around 2 with 10 / h even are 1 and 5) */
    snprintf(line, sizeof line, "attnviz: note: --compare positions leaves out rope: RoPE rotates pairs of dimensions, "
             "so d_k must be even; d_k = d_model / heads = 10 / 2 = 5; with 2 heads give --d-model 8 or 12 (multiples of "
             "2·heads, for an even d_k), or keep 10 with --heads 1 or 5\n");
    if (!strstr(r.err, line)) fail_msg("stderr lacks '%s':\n%s", line, r.err);
    snprintf(line, sizeof line, "\nrope        left out: %s\n", why);
    if (!strstr(r.out, line)) fail_msg("the summary lacks '%s':\n%s", line, r.out);
    assert_non_null(strstr(r.out, "d_model 10, learned vs sinusoidal positions, Pre-LN"));
    assert_false(file_exists(tu_in(f, "rope")));
    av_png_image img;
    av_err err;
    assert_int_equal(av_png_read_texts(tu_in(f, "compare_positions.png"), &img, &err), AV_OK);
    const char *title = av_png_image_text(&img, "Title");
    assert_non_null(title);
    assert_non_null(strstr(title, " · no rope: d_k 5 is odd"));
    const char *weights = av_png_image_text(&img, "Weights");
    assert_non_null(weights);
    assert_non_null(strstr(weights, "trained in this run: toy model on "));
    av_png_image_free(&img);
    tu_free(&r);
}

/* -q silences the training log, not the comparison asked for: the README's -q is "no trace
 * (--show, --explain, --compare still print)" and the single layer's --compare table prints with
 * -q. --train --compare -q printed nothing, so the run's only result was the figure. */
static void test_cli_train_compare_summary_prints_with_quiet(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--d-model", "10", "--heads", "2", "--layers", "1", "--steps", "1",
                "--batch", "2", "--compare", "positions", "-q", "-o", f->dir, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    static const char *const rows[] = {"learned     held-out loss ", "\nsinusoidal  held-out loss ",
                                       "\nrope        left out: RoPE needs an even d_k"};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strstr(r.out, rows[i])) fail_msg("-q lost the summary row '%s':\n%s", rows[i], r.out);
    assert_null(strstr(r.out, "step 0 ")); /* the training log stays quiet */
    assert_null(strstr(r.out, "== --compare"));
    tu_free(&r);
}

static void test_cli_train_bad_input(void **state) {
    (void)state;
    static const struct { const char *args[16]; const char *msg; } cases[] = {
        {{"--train", "copy"}, "--train 'copy' is not a task; expected reverse, sort or induction"},
        {{"--layers", "2", "hi"}, "--layers is an option of --train"},
        {{"--train", "reverse", "3 1 >"}, "--train takes no input text, but the sentence '3 1 >' is given; it trains on "
                                          "its task's generated data"},
        /* the hint is the learner's own sentence, all its words: it named only the first word ('3') and suggested
         * "3 1 4 1 5 >" whatever the task, a reverse prompt that --model calls outside induction */
        {{"--train", "induction", "-o", "runs/induction", "k q a z m k q a"}, "the sentence 'k q a z m k q a' is given; it "
         "trains on its task's generated data; try the trained model with: attnviz --model runs/induction \"k q a z m k q a\"\n"},
        {{"--train", "reverse", "3", "1", "4", ">"}, "the sentence '3 1 4 >' is given; it trains on its task's generated "
         "data; try the trained model with: attnviz --model attnviz-out \"3 1 4 >\"\n"},
        {{"--train", "sort", "say \"hi\""}, "try the trained model with: attnviz --model attnviz-out 'say \"hi\"'\n"},
        /* -f was only warned about ("has no effect"): input text either way is the same usage error */
        {{"--train", "reverse", "-f", "in.txt"}, "--train takes no input text, but -f/--file in.txt is given; it "
                                                 "trains on its task's generated data; try the trained model with: "
                                                 "attnviz --model attnviz-out -f in.txt"},
        {{"--file=-", "--train", "sort"}, "--train takes no input text, but -f/--file - is given"},
        /* both numbers and the nearest valid ones: multiples of 3 around 32 are 30, 33; divisors of 32 around 3 are 2, 4 */
        {{"--train", "reverse", "--d-model", "32", "--heads", "3"}, "--heads 3 does not divide --d-model 32 (d_k = d_model / "
         "heads must be a whole number); with 3 heads give --d-model 30 or 33, or keep 32 with --heads 2 or 4"},
        /* RoPE wants an even d_k too: multiples of 2·3 = 6 around 64 are 60, 66 (63 gave d_k 21); the head counts h
         * around 3 with 64 % (2·h) == 0 are 2 (d_k 32) and 4 (d_k 16) */
        {{"--train", "reverse", "--heads", "3", "--positions", "rope"}, "--heads 3 does not divide --d-model 64 (d_k = "
         "d_model / heads must be a whole number); with 3 heads give --d-model 60 or 66 (multiples of 2·heads, for an "
         "even d_k), or keep 64 with --heads 2 or 4"},
        /* 42 / 2 = 21 is odd: multiples of 4 around 42 are 40, 44; heads 1 (d_k 42) and 3 (d_k 14) keep 42 */
        {{"--train", "reverse", "-d", "42", "-H", "2", "--positions", "rope"}, "RoPE rotates pairs of dimensions, so d_k "
         "must be even; d_k = d_model / heads = 42 / 2 = 21; with 2 heads give --d-model 40 or 44 (multiples of 2·heads, for an even d_k), or keep 42 "
         "with --heads 1 or 3"},
        /* an odd d_model has an odd d_k with every head count */
        {{"--train", "reverse", "-d", "63", "-H", "3", "--positions", "rope"}, "d_k = d_model / heads = 63 / 3 = 21; with "
         "3 heads give --d-model 60 or 66 (multiples of 2·heads, for an even d_k); no head count keeps 63: RoPE needs an "
         "even d_model"},
        {{"--train", "reverse", "--d-model", "63", "--heads", "4"}, "with 4 heads give --d-model 60 or 64, or keep 63 with "
         "--heads 3 or 7"},
        {{"--train", "reverse", "--compare", "order"}, "--compare order is not a --train comparison"},
        {{"--compare", "norm", "hi"}, "--compare norm needs --train"},
        {{"--positions", "learned", "hi"}, "(learned position embeddings need --train)"},
        /* what attnviz offers, not a false law: a causal model without positions can still learn them (it said
         * "--positions none cannot learn reverse, sort or induction": a tester's report) */
        {{"--train", "reverse", "--positions", "none"}, "--positions none is not offered with --train (allowed with "
         "--train: learned, sinusoidal, rope); a model without a positional encoding can still learn positions from "
         "the causal mask (Haviv et al. 2022), but attnviz trains only with one of these three"},
        /* a warm-up longer than the run never reaches the peak --lr: refused, not clamped */
        {{"--train", "reverse", "--steps", "100", "--warmup", "200"}, "--warmup 200 is more than --steps 100 (allowed: 0..100, 0 = no warm-up)"},
        {{"--weight-decay", "0.1", "hi"}, "--weight-decay is an option of --train"},
        {{"--train", "reverse", "--weight-decay", "-0.1"}, "--weight-decay -0.1 is outside the allowed range 0..1"},
        {{"--train", "reverse", "--weight-decay", "1.5"}, "--weight-decay 1.5 is outside the allowed range 0..1"},
        {{"--train", "reverse", "--weight-decay", "nan"}, "--weight-decay 'nan' is not a number; allowed: 0..1"},
        /* 1 − lr·λ at or below 0 flips the weights' sign every step: 10 · 0.5 = 5 */
        {{"--train", "reverse", "--lr", "10", "--weight-decay", "0.5"}, "--weight-decay 0.5 with a peak lr of 10: lr · "
         "weight decay = 5 must be below 1 (each step multiplies the weights by 1 − lr · weight decay); lower "
         "--weight-decay or --lr"},
        /* noam's peak, not its factor: 10 · 4^-0.5 · min(1, 1 · 1^-1.5) = 5 at step 1; · 0.3 = 1.5 */
        {{"--train", "reverse", "--schedule", "noam", "--lr", "10", "-d", "4", "-H", "1", "--warmup", "1",
          "--weight-decay", "0.3"}, "--weight-decay 0.3 with a peak lr of 5: lr · weight decay = 1.5 must be below 1"},
        /* nn/train.h's rule by hand for --train's packed path: reverse's 2 layers, batch 32 (G = 4 chunks of 8),
         * V = 294, T = 32, C = 4096, H = 64; P = 294·4096 + 2·4096 + 2·(12·4096² + 13·4096) + 32·4096 (learned
         * wpe) = 404,103,168; per chunk (gpt2_batch.h) N = 8·32 = 256 rows, A = 64·8·32² = 524,288:
         * 4·(73·N·C + 10·N + 3·A + 2·N·294 + 32·4096) + 12·N + 16·9 = 313,615,504;
         * 4·7·P + 4·313,615,504 = 12,569,350,720 bytes = 11.7 GiB */
        {{"--train", "reverse", "-d", "4096", "-H", "64"},
         "--train with d_model 4096, 2 layers, 64 heads and batch 32 needs at least 11.7 GiB (parameters, gradients, "
         "AdamW moments, activations), more than the 2 GiB allowed"},
        /* the lr the schedule reaches, not only --lr, must be a normal float32 (FLT_MIN = 1.1755e-38): cosine ends at
         * --lr / 10 = 2e-39 at step 3 of 3 (warm-up 1: 5 % of 3, at least 1); noam's step 1 is 2e-38 · 256^-0.5 ·
         * min(1, 1 · 3^-1.5) = 2e-38 / 16 / 5.196 = 2.41e-40. Both ran (a tester's report) */
        {{"--train", "reverse", "--steps", "3", "--lr", "2e-38"}, "--lr 2e-38 with --schedule cosine: the lr at step 3 "
         "is 2e-39, below 1.1755e-38, float32's smallest normal number, so it computes as 0 or loses its digits; raise --lr "
         "by 5.88 times or more"},
        {{"--train", "reverse", "--steps", "3", "--schedule", "noam", "--lr", "2e-38", "--warmup", "3", "-d", "256"},
         "--lr 2e-38 with --schedule noam: the lr at step 1 is 2.41e-40"},
        /* one layer is "1 layer", as the header says it (a new user read "1 layers") */
        {{"--train", "reverse", "-d", "4096", "-H", "64", "--layers", "1"}, "--train with d_model 4096, 1 layer, 64 heads"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[18] = {NULL};
        int n = 0;
        for (int k = 0; k < 16 && cases[i].args[k]; k++) argv[n++] = cases[i].args[k];
        tu_result r;
        tu_runv(&r, NULL, NULL, argv);
        if (r.code != 2 || !strstr(r.err, cases[i].msg)) print_message("case %zu: exit %d, stderr: %s\n", i, r.code, r.err);
        assert_int_equal(r.code, 2);
        assert_non_null(strstr(r.err, cases[i].msg));
        tu_free(&r);
    }
}

/* A model too big to train is a usage error: exit 2, the message, and nothing on stdout. The check ran
 * after the "training reverse: ..." header, so stdout had a header for a run that never started (and -o
 * was made). Alone and with --compare. */
static void test_cli_train_too_big_prints_no_header(void **state) {
    tu_fixture *f = *state;
    for (int c = 0; c < 2; c++) {
        tu_result r;
        const char *dir = tu_in(f, "big");
        if (c) run_attnviz(&r, NULL, "--train", "reverse", "--d-model", "2048", "--compare", "positions", "-o", dir, NULL);
        else run_attnviz(&r, NULL, "--train", "reverse", "--d-model", "2048", "-o", dir, NULL);
        if (r.code != 2 || r.out[0]) fail_msg("case %d: exit %d, stdout:\n%s\nstderr:\n%s", c, r.code, r.out, r.err);
        assert_non_null(strstr(r.err, "attnviz: error: --train with d_model 2048, 2 layers, 4 heads and batch 32 needs "
                                      "at least "));
        assert_non_null(strstr(r.err, "more than the 2 GiB allowed; try a smaller --d-model, --layers, --heads (each "
                                      "keeps (batch, T, T) attention weights a layer) or --batch"));
        struct stat sb;
        assert_int_not_equal(stat(dir, &sb), 0); /* no folder made for it */
        tu_free(&r);
    }
    /* the heads alone make it too big (64 heads x 12 layers of (1024, T, T) weights: 6.0 GiB at d_model 64),
     * and the message named every other size but --heads (a new user's report) */
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--d-model", "64", "--layers", "12", "--batch", "1024", "--heads", "64",
                "-o", tu_in(f, "heads"), NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "64 heads and batch 1024 needs at least") || !strstr(r.err, "--heads (each keeps"))
        fail_msg("%s", r.err);
    tu_free(&r);
}

/* -o is made before the first step: a bad one fails with no "step 0" line (exit 1, I/O). */
static void test_cli_train_checks_outdir_first(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "-o", "/dev/null", NULL);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "attnviz: error: -o: cannot create folder /dev/null"));
    assert_null(strstr(r.out, "step 0 "));
    tu_free(&r);
}

/* A failed -o check: exit 1, the message names the folder and the cause, and nothing had started
 * (no header line, no step line). */
static void check_outdir_refused(const tu_result *r, const char *what, const char *msg) {
    if (r->code != 1 || !strstr(r->err, msg) || strstr(r->out, "step 0 ") || strstr(r->out, "training reverse:"))
        fail_msg("%s: exit %d, expected 1 with '%s' before any training\nstdout: %s\nstderr: %s", what, r->code, msg,
                 r->out, r->err);
}

/* -o DIR that can be made but not written was found only after every step had run ("cannot write
 * '/proc/model.safetensors'"): now a probe file is made and removed in DIR before the header line.
 * Cases that fail for root too: DIR's parent is a regular file, DIR is /proc (no files can be made
 * there), and --compare's folders under /proc; then, as "nobody", a read-only DIR and a DIR under a
 * read-only folder. --steps is small so the old code, which trained first, ends quickly. */
static void test_cli_train_unwritable_outdir_fails_before_step_1(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    FILE *fp = fopen(tu_in(f, "afile"), "wb");
    assert_non_null(fp);
    fclose(fp);
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "3", "--d-model", "16", "--batch", "4", "-o",
                tu_in(f, "afile/out"), NULL);
    char want[4400];
    snprintf(want, sizeof want, "attnviz: error: -o: cannot create folder %s: %s exists and is not a folder",
             tu_sh_word(tu_in(f, "afile/out")), tu_sh_word(tu_in(f, "afile")));
    check_outdir_refused(&r, "parent is a file", want);
    tu_free(&r);
    struct stat sb;
    if (stat("/proc", &sb) == 0 && S_ISDIR(sb.st_mode)) {
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "3", "--d-model", "16", "--batch", "4", "-o", "/proc", NULL);
        check_outdir_refused(&r, "-o /proc", "attnviz: error: -o: cannot write in folder /proc: ");
        tu_free(&r);
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "3", "--d-model", "16", "--batch", "4", "--compare",
                    "scale", "-o", "/proc", NULL);
        check_outdir_refused(&r, "--compare -o /proc", "attnviz: error: -o: cannot write in folder /proc: ");
        tu_free(&r);
    } else {
        print_message("[ SKIPROW  ] no /proc folder: the case of a folder no one can write in\n");
    }
    assert_int_equal(mkdir(tu_in(f, "ro"), 0555), 0);
    assert_int_equal(chmod(tu_in(f, "ro"), 0555), 0);
    assert_int_equal(chmod(f->dir, 0755), 0); /* let uid 65534 reach ro/ */
    static const struct { const char *sub, *msg; } ro_cases[] = {
        {"ro", "attnviz: error: -o: cannot write in folder %s: Permission denied"},
        {"ro/out", "attnviz: error: -o: cannot create folder %s: Permission denied"},
    };
    for (size_t i = 0; i < sizeof ro_cases / sizeof ro_cases[0]; i++) {
        char dir[4200], msg[4300];
        snprintf(dir, sizeof dir, "%s", tu_in(f, ro_cases[i].sub));
        snprintf(msg, sizeof msg, ro_cases[i].msg, tu_sh_word(dir));
        const char *args[] = {"--train", "reverse", "--steps", "3", "--d-model", "16", "--batch", "4", "-o", dir, NULL};
        if (tu_run_as_nobody(&r, args) != 0) {
            print_message("[ SKIPROW  ] -o %s: cannot run attnviz as uid 65534 here (exit %d)\n", ro_cases[i].sub, r.code);
            tu_free(&r);
            continue;
        }
        check_outdir_refused(&r, ro_cases[i].sub, msg);
        tu_free(&r);
    }
    assert_int_equal(count_entries(tu_in(f, "ro")), 0);
    av_err err; /* a folder that can be written: made, and the probe file is not left behind */
    assert_int_equal(av_dir_writable(tu_in(f, "ok/sub"), &err), AV_OK);
    assert_int_equal(count_entries(tu_in(f, "ok/sub")), 0);
}

/* Run argv (argv[0] the program, NULL-terminated) on a pseudo-terminal of `cols` columns, without COLUMNS, with
 * TERM=xterm and with env's NAME=VALUE strings (NULL-terminated, or NULL) put in its environment; what it wrote to the
 * terminal goes into buf (cap bytes, NUL-terminated). Returns its waitpid status. */
static int run_on_pty(int cols, char *const *env, const char *const *argv, char *buf, size_t cap) {
    struct winsize ws = {.ws_row = 24, .ws_col = (unsigned short)cols};
    int fd;
    pid_t pid = forkpty(&fd, NULL, NULL, &ws);
    assert_true(pid >= 0);
    if (pid == 0) {
        unsetenv("COLUMNS");
        setenv("TERM", "xterm", 1); /* a terminal that redraws, whatever TERM the tests run under (env may change it) */
        for (int k = 0; env && env[k]; k++) putenv(env[k]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return tu_pty_collect(fd, pid, buf, cap, NULL, 0);
}

/* `attnviz --train reverse -o out > log` typed at a terminal (stderr the terminal, its progress bar there)
 * wrote only the header, the snapshot lines and the end into log, where the same command in a script (stderr
 * a file too) also writes a line at every tenth of the run: the log depended on where stderr went (a tester's
 * pass). Both runs here, from folders of their own with the same relative -o, must give stdout byte for byte
 * alike (training is deterministic), and the terminal's must have had the bar (a '\r' redraw of "step N/20"). */
static void test_cli_train_log_is_the_same_when_stderr_is_a_terminal(void **state) {
    tu_fixture *f = *state;
    const char *args[] = {"--train", "reverse", "--steps", "20", "--d-model", "16", "--batch", "2", "-o", "out", NULL};
    assert_int_equal(mkdir(tu_in(f, "pipe"), 0755), 0);
    assert_int_equal(mkdir(tu_in(f, "tty"), 0755), 0);
    tu_result r;
    tu_run_opts ro = {tu_in(f, "pipe"), -1, 0, NULL, 0};
    tu_run_ex(&r, &ro, NULL, 0, args);
    if (r.code != 0) fail_msg("in a pipe: exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "\nstep 6      loss ")); /* a tenth's line (20 steps: every 2; 6 is no snapshot) */
    char log[4200], dir[4200];
    snprintf(log, sizeof log, "%s", tu_in(f, "tty.log"));
    snprintf(dir, sizeof dir, "%s", tu_in(f, "tty"));
    const char *argv[16] = {tu_bin()};
    for (int k = 0; args[k]; k++) argv[k + 1] = args[k];
    struct winsize ws = {.ws_row = 24, .ws_col = 200};
    int fd;
    pid_t pid = forkpty(&fd, NULL, NULL, &ws);
    assert_true(pid >= 0);
    if (pid == 0) {
        int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || dup2(out, 1) < 0 || chdir(dir) != 0) _exit(126);
        unsetenv("COLUMNS");
        setenv("TERM", "xterm", 1);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    static char term[1 << 16];
    int status = tu_pty_collect(fd, pid, term, sizeof term, NULL, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail_msg("at a terminal: status %d: %s", status, term);
    if (!strstr(term, "\r") || !strstr(term, "/20")) fail_msg("no progress bar on the terminal: %s", term);
    size_t n = 0;
    char *got = tu_slurp_file(log, &n);
    assert_non_null(got);
    if (strcmp(got, r.out) != 0) fail_msg("stdout differs with stderr a terminal:\n%s\n--- in a pipe:\n%s", got, r.out);
    free(got);
    tu_free(&r);
}

/* On a terminal the progress line is redrawn in place with '\r', so it must fit
 * the terminal: a line wider than the terminal wraps, and each redraw then
 * scrolls a new line. Runs --train on a pseudo-terminal of 80 and of 40 columns
 * and checks that every piece of output between '\r' and '\n' (escape
 * sequences removed) is at most columns - 1 wide, that the last redraw
 * says the last step, and that the bar keeps its width. At 80 columns the
 * time estimate stays (it went, and the bar grew from 19 to 30 columns when
 * it came at step 3: a new user's report; the man page promises it).
 * The lines printed once fit too: the header (170 columns) and each snapshot
 * line (152) were left to the terminal, which cut them through a number
 * ("0.1" / "3"); now they break between their pieces, each piece whole, the
 * next line indented (the notes on stderr stay one line, as GNU tools' do).
 * Only a line that starts with the folder's path may be wider (a path is
 * never cut); what comes before it on its line fits. With
 * more options (extra, NULL-terminated: --compare, --schedule noam) the
 * variant banner "== --compare scale: scale -> DIR" put the path after 29
 * columns, "learned vs sinusoidal vs RoPE positions," was one 42-column part
 * and noam's lr one of 89; they break at their commas, " vs " and " (". */
static void check_progress_fits(tu_fixture *f, int cols, const char *const *extra) {
    const char *argv[24] = {tu_bin(), "--train", "reverse", "--steps", "40", "--d-model", "16", "--batch", "4",
                            "-o", tu_in(f, "out")};
    for (int k = 0; extra && extra[k] && k < 12; k++) argv[11 + k] = extra[k];
    static char buf[1 << 16];
    int status = run_on_pty(cols, NULL, argv, buf, sizeof buf);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* the redrawn pieces: text after a '\r' up to the next '\r' or '\n' that
     * holds "step N/40" (the snapshot lines above are printed once and may wrap) */
    int widest = 0, bar = -2;
    int snap_pieces = 0; /* continuation lines that start with the snapshot's attention on target */
    for (char *p = buf; (p = strpbrk(p, "\r\n")) != NULL;) {
        char *end = p + 1 + strcspn(p + 1, "\r\n");
        int width = 0, progress = 0, this_bar = p[1] == '[' ? (int)strcspn(p + 2, "]") : -1;
        for (char *c = p + 1; c < end; c++) {
            if (*c == '\x1b') { /* CSI: ESC [ parameters, then a final byte in @..~ */
                for (c += 2; c < end && !(*c >= '@' && *c <= '~'); c++) {}
                continue;
            }
            width += ((unsigned char)*c & 0xC0) != 0x80; /* one column per code point: the line is ASCII */
            progress |= c[0] == '/' && c[1] == '4' && c[2] == '0';
        }
        if (progress && width > widest) widest = width;
        char saved = *end;
        *end = 0;
        const char *text = p + 1 + strspn(p + 1, " "); /* a path piece that did not fit starts its line */
        int path = strncmp(text, tu_in(f, "out"), strlen(tu_in(f, "out"))) == 0;
        int note = strncmp(p + 1, "attnviz: ", 9) == 0; /* stderr's notes stay one line, as GNU tools' do */
        if (!progress && !note && !path && width > cols - 1)
            fail_msg("%d columns: a line of %d columns: '%s'", cols, width, p + 1);
        if (!progress && strstr(p + 1, "  attention on target:") == p + 1) snap_pieces++;
        *end = saved;
        if (progress && bar != -2 && this_bar != bar) fail_msg("%d columns: the bar went from %d to %d", cols, bar, this_bar);
        if (progress) bar = this_bar;
        p = end;
    }
    int saw_last = strstr(buf, " 40/40") != NULL;
    if (snap_pieces < 5) fail_msg("%d columns: %d snapshot lines broken before \"attention on target\":\n%s", cols, snap_pieces, buf);
    if (cols >= 80 && !strstr(buf, "steps/s") && !strstr(buf, "s/step"))
        fail_msg("no time estimate at %d columns:\n%s", cols, buf);
    if (widest > cols - 1) fprintf(stderr, "widest line %d columns on a %d-column terminal:\n%s\n", widest, cols, buf);
    assert_true(widest <= cols - 1);
    assert_true(saw_last);
}

/* A run that fails mid-training on a terminal starts its error on a line of its own: the progress line
 * ends in no newline before the last step, and "[##....] 4/20 [...]  loss 4.2995  acc 0.2 %attnviz: error:
 * training diverged at step 5: ..." was one line (a new user's report). The shim (tests/shim_sgemm.c) makes
 * step 5's gradient NaN. */
static void test_cli_train_error_on_a_terminal_starts_its_line(void **state) {
    tu_fixture *f = *state;
    char preload[4300], asan[4300];
    if (!tu_shim_env("shim_sgemm.so", preload, asan)) return;
    char *env[] = {preload, asan, "SHIM_SGEMM_AT=3000", "SHIM_SGEMM_VALUE=nan", NULL};
    const char *argv[] = {tu_bin(), "--train", "reverse", "--steps", "20", "--d-model", "16", "--batch", "4",
                          "-o", tu_in(f, "out"), NULL};
    static char buf[1 << 16];
    int status = run_on_pty(100, env, argv, buf, sizeof buf);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    char *e = strstr(buf, "attnviz: error: ");
    if (!e) fail_msg("no error:\n%s", buf);
    /* what the terminal shows before it on its line: from the last '\r' or '\n', escape sequences removed */
    char *start = e;
    while (start > buf && start[-1] != '\r' && start[-1] != '\n') start--;
    for (char *c = start; c < e; c++) {
        if (*c == '\x1b') {
            for (c += 2; c < e && !(*c >= '@' && *c <= '~'); c++) {}
            continue;
        }
        fail_msg("the error shares its line with '%.*s'", (int)(e - start), start);
    }
    /* and the progress line it ended is cleared: a '\r' then erase-line just before */
    assert_true(start - buf >= 4 && memcmp(start - 1, "\r\x1b[K", 4) == 0);
}

/* On a dumb terminal (TERM=dumb: Emacs's M-x shell, some IDE consoles) the progress line is not redrawn:
 * it showed "^[[K" as text at every redraw, since only the colour had learnt TERM=dumb (a reviewer's pass).
 * It gets the plain lines a pipe gets: no escape sequence, no '\r' redraw, the log lines whole. */
static void test_cli_train_dumb_terminal_gets_plain_lines(void **state) {
    tu_fixture *f = *state;
    char *env[] = {"TERM=dumb", NULL};
    const char *argv[] = {tu_bin(), "--train", "reverse", "--steps", "20", "--d-model", "16", "--batch", "4",
                          "-o", tu_in(f, "out"), NULL};
    static char buf[1 << 16];
    int status = run_on_pty(80, env, argv, buf, sizeof buf);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (strchr(buf, '\x1b')) fail_msg("escape sequences on a dumb terminal:\n%s", buf);
    if (!strstr(buf, "step 20 ")) fail_msg("no plain line for the last step:\n%s", buf);
    for (const char *p = strchr(buf, '\r'); p; p = strchr(p + 1, '\r')) /* a pty turns "\n" into "\r\n" */
        if (p[1] != '\n') fail_msg("a '\\r' redraw on a dumb terminal:\n%s", buf);
}

static void test_cli_train_progress_fits_the_terminal(void **state) {
    check_progress_fits(*state, 80, NULL);
    check_progress_fits(*state, 40, NULL);
    check_progress_fits(*state, 40, (const char *const[]){"--compare", "scale", NULL});
    check_progress_fits(*state, 40, (const char *const[]){"--compare", "positions", NULL});
    check_progress_fits(*state, 80, (const char *const[]){"--compare", "norm", "--positions", "rope", "--schedule",
                                                           "noam", "--warmup", "10", NULL});
}

/* --dump and --causal do nothing with --train: one warning each, no dump folder, exit 0. */
static void test_cli_train_warns_unused_options(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "4", "-q", "--causal",
                "--dump", tu_in(f, "dd"), "-o", tu_in(f, "out"), NULL);
    assert_int_equal(r.code, 0);
    char dd_want[4600];
    snprintf(dd_want, sizeof dd_want, "attnviz: warning: --dump %s has no effect with --train; dump a run of the "
             "trained folder", tu_sh_word(tu_in(f, "dd")));
    if (!strstr(r.err, dd_want)) fail_msg("no '%s' in '%s'", dd_want, r.err);
    assert_non_null(strstr(r.err, "attnviz: warning: --causal has no effect with --train: the trained model is always causal"));
    struct stat sb;
    assert_int_not_equal(stat(tu_in(f, "dd"), &sb), 0);
    tu_free(&r);
    /* "--layer 3", --layers' neighbour: it trained the default 2 layers, warned only "use it on a run of the
     * trained folder"; the warning names --layers, as typed ("03"), when --layers is not given */
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "4", "-q", "--layer", "03",
                "-o", tu_in(f, "out"), NULL);
    assert_int_equal(r.code, 0);
    char layer_want[4600]; /* the -o folder, to paste */
    snprintf(layer_want, sizeof layer_want, "attnviz: warning: --layer 03 has no effect with --train: did you mean "
             "--layers 03? (--layer picks a layer of attnviz --model %s)\n", tu_sh_word(tu_in(f, "out")));
    if (!strstr(r.err, layer_want)) fail_msg("stderr: %s", r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "4", "-q", "--layer", "1",
                "--layers", "1", "-o", tu_in(f, "out"), NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.err, "did you mean")); /* --layers given: no guess */
    /* layer 1 of a 1-layer model: --model refuses it, so no command to paste (23ff042) */
    assert_non_null(strstr(r.err, "attnviz: warning: --layer 1 has no effect with --train, and the trained model has 1 "
                                  "layer (0..0)\n"));
    tu_free(&r);
    /* "--head 2", --heads' neighbour, likewise (a tester's report): named as typed when --heads is not given and
     * --heads N would train, N dividing d_model (16 here; the task's 64 without -d) into a d_k that RoPE can
     * take; --head 3 (16 / 3), --head 8 with RoPE (d_k 2 is even: named; 16 / 16 = 1 with --head 16: not). A head
     * past the heads trained (--head 2 of --heads 2; --head 16 of the task's 4) gets no command, which --model
     * refuses, but the heads there are (23ff042) */
    const struct { const char *head, *extra, *extra_val; int hint, trained; } heads[] = {
        {"02", NULL, NULL, 1, 0}, {"3", NULL, NULL, 0, 0}, {"2", "--heads", "2", 0, 2}, {"8", "-p", "rope", 1, 0},
        {"16", "-p", "rope", 0, 4}, {"16", NULL, NULL, 1, 0},
    };
    for (size_t k = 0; k < sizeof heads / sizeof *heads; k++) {
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "4", "-q", "--head",
                    heads[k].head, "-o", tu_in(f, "out"), heads[k].extra, heads[k].extra_val, NULL);
        char want[4600];
        if (heads[k].hint)
            snprintf(want, sizeof want, "attnviz: warning: --head %s has no effect with --train: did you mean --heads "
                     "%s? (--head picks a head of attnviz --model %s)\n", heads[k].head, heads[k].head,
                     tu_sh_word(tu_in(f, "out")));
        else if (heads[k].trained)
            snprintf(want, sizeof want, "attnviz: warning: --head %s has no effect with --train, and the trained model "
                     "has %d heads (0..%d)\n", heads[k].head, heads[k].trained, heads[k].trained - 1);
        else
            snprintf(want, sizeof want, "attnviz: warning: --head %s has no effect with --train; use it on a run of "
                     "the trained folder: attnviz --model %s --head %s \"3 1 4 1 5 >\"\n", heads[k].head,
                     tu_sh_word(tu_in(f, "out")), heads[k].head);
        if (r.code != 0 || !strstr(r.err, want))
            fail_msg("--head %s %s %s: exit %d, stderr: %s\nwant: %s", heads[k].head, heads[k].extra ? heads[k].extra : "",
                     heads[k].extra_val ? heads[k].extra_val : "", r.code, r.err, want);
        tu_free(&r);
    }
}

/* --rope-style and --rope-base reach the trained model: the folder's config.json
 * says what was typed, with no "has no effect" warning, and the model the folder
 * loads with is the trained one (the round trip of the probe's logits is exact). */
static void test_cli_train_rope_style_and_base_reach_the_model(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "--positions", "rope",
                "--rope-style", "half", "--rope-base", "500", "-o", f->dir, NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.err, "no effect"));
    assert_non_null(strstr(r.out, "probe logits differ by at most 0\n"));
    /* the header and the figures' titles write RoPE as the rest of the output does (they said "rope positions"),
     * with the style and base when they are not the defaults; config.json keeps its value "rope" */
    assert_non_null(strstr(r.out, "d_model 16, RoPE (half, base 500) positions, Pre-LN, ÷√d_k; batch 4"));
    char *svg = tu_slurp_file(tu_in(f, "curves.svg"), NULL);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "d_model 16 · RoPE (half, base 500) positions, Pre-LN, ÷√d_k</title>"));
    free(svg);
    size_t n = 0;
    char *cfg = tu_slurp_file(tu_in(f, "config.json"), &n);
    assert_non_null(strstr(cfg, "\"positions\":\t\"rope\""));
    assert_non_null(strstr(cfg, "\"rope_style\":\t\"half\""));
    assert_non_null(strstr(cfg, "\"rope_base\":\t500"));
    free(cfg);
    tu_free(&r);
}

/* A trained folder run with --model: every figure title names what its heads were computed with
 * when it is not GPT-2's layout, as the single layer's titles do ("positions: ...", "no scale").
 * The titles said "trained toy model DIR (attnviz --train reverse, step 2; F32)" alone, so an
 * unscaled Post-LN model's heads looked like GPT-2's. The settings are the --train options. */
static void test_cli_trained_model_titles_name_its_layout(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "--positions",
                "sinusoidal", "--norm", "post", "--no-scale", "-q", "-o", tu_in(f, "m"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "-q", "-o", tu_in(f, "out"), "3 1 4 1 5 >", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    const char *const figs[] = {"out/model.png", "out/layer1.png"};
    for (int i = 0; i < 2; i++) {
        av_png_image img;
        av_err err;
        assert_int_equal(av_png_read_texts(tu_in(f, figs[i]), &img, &err), AV_OK);
        const char *title = av_png_image_text(&img, "Title");
        assert_non_null(title);
        if (!strstr(title, ", step 2; F32; positions: sinusoidal; Post-LN; no scale) · "))
            fail_msg("%s: the Title does not name the model's layout:\n%s", figs[i], title);
        av_png_image_free(&img);
    }
}

/* A continuation that leaves its task, written to a full disk: `attnviz --model DIR --generate 3 "3 1 >"
 * >/dev/full` exited 0 with nothing on standard output and no error (a tester's pass). The note on stderr
 * ("the continuation leaves its task ...") flushed standard output first, that write failed and emptied the
 * buffer, so the closing fflush had nothing left to fail on. Now exit 1, the continuation named as lost,
 * with -q and without, the note still said first; on a writable standard output the same run exits 0. */
static void test_cli_generate_note_on_full_stdout_fails(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-q", "-o",
                tu_in(f, "reverse"), NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    /* 3 tokens after "3 1 >" (2 digits, 2 answer digits): the third is past the answer, so the note is printed */
    run_attnviz(&r, NULL, "--model", tu_in(f, "reverse"), "--no-plot", "-q", "--generate", "3", "3 1 >", NULL);
    if (r.code != 0 || !strstr(r.out, "generate") || !strstr(r.err, "attnviz: note: "))
        fail_msg("writable stdout: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.err);
    tu_free(&r);
    static const struct {
        const char *q, *want;
    } cases[] = {
        {"-q", "attnviz: error: cannot write the continuation to standard output: No space left on device\n"},
        {"--no-plot", "attnviz: error: cannot write the trace and the continuation to standard output: No space left "
                      "on device\n"},
    };
    for (int k = 0; k < 2; k++) {
        int full = open("/dev/full", O_WRONLY);
        if (full < 0) skip();
        tu_run_opts ro = {NULL, full, 0, NULL, 0};
        const char *args[] = {"--model", tu_in(f, "reverse"), "--no-plot", cases[k].q, "--generate", "3", "3 1 >",
                              NULL};
        tu_run_ex(&r, &ro, NULL, 0, args);
        close(full);
        const char *note = strstr(r.err, "attnviz: note: "), *error = strstr(r.err, cases[k].want);
        if (r.code != 1 || !note || !error || error < note)
            fail_msg("%s, stdout on /dev/full: exit %d: %s", cases[k].q, r.code, r.err);
        tu_free(&r);
    }
}

/* Standard output that cannot be written: `--train ... -o fullout >/dev/full` (or `>&-`) trained every step
 * and wrote every file, then said only "cannot write to standard output: No space left on device" (a
 * tester's report). The header line finds it now: exit 1 before the first step, the folders it made taken
 * away (an existing one stays, empty). With -q --compare only the closing table goes to standard output:
 * that failure says every variant was saved. */
static void test_cli_train_unwritable_stdout_fails_before_training(void **state) {
    tu_fixture *f = *state;
    int full = open("/dev/full", O_WRONLY);
    if (full < 0) skip();
    tu_run_opts ro = {NULL, full, 0, NULL, 0};
    tu_result r;
    const char *small[14] = {"--train", "reverse", "--steps", "5", "--d-model", "16", "--batch", "2", "-o", NULL, NULL,
                           NULL, NULL};
    small[9] = tu_in(f, "new/sub");
    tu_run_ex(&r, &ro, NULL, 0, small);
    if (r.code != 1 || !strstr(r.err, "attnviz: error: cannot write to standard output: No space left on device; "
                                      "stopped before training: nothing was written (-o ") ||
        strstr(r.err, "step ") || file_exists(tu_in(f, "new")))
        fail_msg("/dev/full: exit %d, new/ %s: %s", r.code, file_exists(tu_in(f, "new")) ? "made" : "not made", r.err);
    tu_free(&r);
    assert_int_equal(mkdir(tu_in(f, "old"), 0755), 0);
    small[9] = tu_in(f, "old"), small[10] = "--compare", small[11] = "norm";
    tu_run_ex(&r, &ro, NULL, 0, small);
    if (r.code != 1 || !strstr(r.err, "stopped before training: nothing was written") ||
        !file_exists(tu_in(f, "old")) || count_entries(tu_in(f, "old")) != 0)
        fail_msg("--compare into an empty folder: exit %d, %d entries left: %s", r.code, count_entries(tu_in(f, "old")),
                 r.err);
    tu_free(&r);
    small[9] = tu_in(f, "q"), small[12] = "-q"; /* the table is printed at the end, even with -q */
    tu_run_ex(&r, &ro, NULL, 0, small);
    if (r.code != 1 || !strstr(r.err, "cannot write to standard output: No space left on device; every variant's "
                                      "trained model was saved and checked before this error") ||
        !file_exists(tu_in(f, "q/pre-ln/model.safetensors")) || !file_exists(tu_in(f, "q/compare_norm.svg")))
        fail_msg("-q --compare: exit %d: %s", r.code, r.err);
    tu_free(&r);
    close(full);
    /* `>&-`: standard output closed */
    char err_path[4096];
    snprintf(err_path, sizeof err_path, "%s", tu_in(f, "err"));
    pid_t pid = fork();
    if (pid == 0) {
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(e, 2);
        close(1);
        execl(tu_bin(), tu_bin(), "--train", "reverse", "--steps", "5", "--d-model", "16", "--batch", "2", "-o",
              tu_in(f, "closed"), (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    char *err = tu_slurp_file(err_path, NULL);
    int ok = WIFEXITED(st) && WEXITSTATUS(st) == 1 && err &&
             !strcmp(err, "attnviz: error: cannot write to standard output: Bad file descriptor; nothing was trained "
                          "or written\n") && !file_exists(tu_in(f, "closed"));
    if (!ok) fail_msg(">&-: status %d, stderr %s", st, err ? err : "");
    free(err);
}

/* A damaged config.json (cut to half, emptied, an array) in a folder an earlier --train wrote: --train said
 * "has no "attnviz" object naming a task", where --model said what is wrong, "not valid JSON near byte 196 of
 * 197 ... (truncated?)" (a tester's report). --train says it in --model's words, and still refuses (exit 2,
 * nothing on stdout, the folder as it was): whose model it is cannot be told. */
static void put_text(const char *path, const char *text); /* below */

static void test_cli_train_names_what_is_wrong_with_a_damaged_config(void **state) {
    tu_fixture *f = *state;
    train_small(f, "reverse", "2", "m");
    size_t len = 0;
    char *cfg = tu_slurp_file(tu_in(f, "m/config.json"), &len);
    assert_non_null(cfg);
    char half[8192];
    snprintf(half, sizeof half, "%.*s", (int)(len / 2), cfg);
    free(cfg);
    const char *const damaged[] = {half, "", "[1]\n"};
    const char *const says[] = {"(truncated?)", "empty file; expected a JSON object",
                                "not a JSON object (it is an array)"};
    for (int k = 0; k < 3; k++) {
        put_text(tu_in(f, "m/config.json"), damaged[k]);
        tu_result model, r;
        run_attnviz(&model, NULL, "--model", tu_in(f, "m"), "--no-plot", "3 1 >", NULL);
        char why[4400] = ""; /* --model's message, without "attnviz: error: " and its newline */
        const char *e = strstr(model.err, "attnviz: error: ");
        if (e) snprintf(why, sizeof why, "%.*s", (int)strcspn(e + 16, "\n"), e + 16);
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "-o",
                    tu_in(f, "m"), NULL);
        char *now = tu_slurp_file(tu_in(f, "m/config.json"), NULL);
        int ok = model.code == 2 && strstr(why, says[k]) && r.code == 2 && strstr(r.err, why) &&
                 strstr(r.err, "holds a model attnviz cannot identify (") && !strstr(r.err, "no \"attnviz\" object") &&
                 !r.out[0] && now && !strcmp(now, damaged[k]);
        if (!ok) fail_msg("case %d: --model exit %d: %s--train exit %d: %s", k, model.code, model.err, r.code, r.err);
        free(now);
        tu_free(&model), tu_free(&r);
    }
}

/* --train -o DIR over a model folder attnviz did not write (the gpt2/ folder the README's
 * huggingface-cli download fills: config.json without an "attnviz" task, model.safetensors,
 * vocab.json, merges.txt) is refused before training and leaves every file as it was; it replaced
 * them with a toy model, silently. --compare checks each DIR/VARIANT before the first trains. A
 * folder of an earlier --train run is trained into again. */
static void test_cli_train_never_overwrites_a_downloaded_model(void **state) {
    tu_fixture *f = *state;
    static const char *const files[4][2] = {
        {"gpt2/config.json", "{\"model_type\": \"gpt2\", \"n_layer\": 12, \"n_head\": 12, \"n_embd\": 768}"},
        {"gpt2/model.safetensors", "not really 548 MB"},
        {"gpt2/vocab.json", "{\"!\": 0}"},
        {"gpt2/merges.txt", "#version: 0.2\n"}};
    assert_int_equal(mkdir(tu_in(f, "gpt2"), 0700), 0);
    for (int i = 0; i < 4; i++) {
        FILE *fp = fopen(tu_in(f, files[i][0]), "wb");
        assert_non_null(fp);
        fputs(files[i][1], fp);
        fclose(fp);
    }
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-o",
                tu_in(f, "gpt2"), NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "holds a model attnviz did not train"));
    assert_non_null(strstr(r.err, "--train would overwrite its config.json, model.safetensors, vocab.json and "
                                  "merges.txt: give another folder"));
    assert_null(strstr(r.out, "step 0 "));
    tu_free(&r);
    /* a Llama folder has a tokenizer.json, not vocab.json and merges.txt: the refusal names what is there (it
     * named all four, a learner's pass) */
    assert_int_equal(mkdir(tu_in(f, "llama"), 0700), 0);
    static const char *const llama[3][2] = {
        {"llama/config.json", "{\"model_type\": \"llama\", \"hidden_size\": 64}"},
        {"llama/model.safetensors", "not really"},
        {"llama/tokenizer.json", "{}"}};
    for (int i = 0; i < 3; i++) {
        FILE *fp = fopen(tu_in(f, llama[i][0]), "wb");
        assert_non_null(fp);
        fputs(llama[i][1], fp);
        fclose(fp);
    }
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-o",
                tu_in(f, "llama"), NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "--train would overwrite its config.json and model.safetensors: give another folder"))
        fail_msg("%s", r.err);
    tu_free(&r);
    for (int i = 0; i < 4; i++) {
        char *got = tu_slurp_file(tu_in(f, files[i][0]), NULL);
        assert_non_null(got);
        assert_string_equal(got, files[i][1]);
        free(got);
    }
    /* --compare scale writes DIR/scale and DIR/no-scale: model files there without a config.json */
    assert_int_equal(mkdir(tu_in(f, "cmp"), 0700), 0);
    assert_int_equal(mkdir(tu_in(f, "cmp/no-scale"), 0700), 0);
    FILE *fp = fopen(tu_in(f, "cmp/no-scale/merges.txt"), "wb");
    assert_non_null(fp);
    fputs(files[3][1], fp);
    fclose(fp);
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "--compare", "scale",
                "-o", tu_in(f, "cmp"), NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "holds merges.txt but no config.json"));
    assert_false(file_exists(tu_in(f, "cmp/scale"))); /* the first variant did not train either */
    tu_free(&r);
    /* a train.csv (or curves.png, attention.gif, ...) without a model beside it is not --train's: it was
     * overwritten without a word, while a foreign config.json was refused (a new user's report) */
    assert_int_equal(mkdir(tu_in(f, "own"), 0700), 0);
    fp = fopen(tu_in(f, "own/train.csv"), "wb");
    assert_non_null(fp);
    fputs("my,data\n", fp);
    fclose(fp);
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-o", tu_in(f, "own"),
                NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "holds train.csv but no model attnviz trained, so it is not this tool's output of an earlier "
                "--train; --train would overwrite it")) fail_msg("%s", r.err);
    char *kept = tu_slurp_file(tu_in(f, "own/train.csv"), NULL);
    assert_non_null(kept);
    assert_string_equal(kept, "my,data\n");
    free(kept);
    tu_free(&r);
    /* --compare writes compare_WHAT.png/.svg into -o itself: the user's own file of that name, beside no variant
     * folder holding a model, was removed without a word and replaced (a learner's pass) */
    static const char *const own_cmp[2][3] = {{"scale", "own/compare_scale.png", "scale/ or no-scale/"},
                                              {"positions", "own/compare_positions.svg",
                                               "learned/, sinusoidal/ or rope/"}};
    for (int k = 0; k < 2; k++) {
        fp = fopen(tu_in(f, own_cmp[k][1]), "wb");
        assert_non_null(fp);
        fputs("my figure\n", fp);
        fclose(fp);
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "--compare",
                    own_cmp[k][0], "-o", tu_in(f, "own"), NULL);
        assert_int_equal(r.code, 2);
        char want[200];
        snprintf(want, sizeof want, "holds %s but no model attnviz trained in %s, so it is not", own_cmp[k][1] + 4,
                 own_cmp[k][2]);
        if (!strstr(r.err, want)) fail_msg("--compare %s: wanted '%s' in:\n%s", own_cmp[k][0], want, r.err);
        assert_null(strstr(r.out, "step 0 "));
        kept = tu_slurp_file(tu_in(f, own_cmp[k][1]), NULL);
        assert_non_null(kept);
        assert_string_equal(kept, "my figure\n");
        free(kept);
        assert_false(file_exists(tu_in(f, "own/scale"))); /* refused before any variant folder is made */
        assert_false(file_exists(tu_in(f, "own/learned")));
        tu_free(&r);
    }
    /* an earlier --compare's figure beside its models is this tool's: the same --compare runs into it again */
    for (int k = 0; k < 2; k++) {
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-q",
                    "--compare", "scale", "-o", tu_in(f, "cmp2"), NULL);
        if (r.code != 0) fail_msg("--compare run %d: exit %d: %s", k, r.code, r.err);
        assert_true(file_exists(tu_in(f, "cmp2/compare_scale.png")));
        tu_free(&r);
    }
    for (int k = 0; k < 2; k++) {
        run_attnviz(&r, NULL, "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-q", "-o",
                    tu_in(f, "toy"), NULL);
        if (r.code != 0) fail_msg("run %d: exit %d: %s", k, r.code, r.err);
        tu_free(&r);
    }
}

/* text with SVG's escapes (& < > "), as a <text> holds it. */
static void svg_escaped(char *out, size_t n, const char *text) {
    size_t k = 0;
    for (const char *c = text; *c && k + 7 < n; c++) {
        const char *e = *c == '&' ? "&amp;" : *c == '<' ? "&lt;" : *c == '>' ? "&gt;" : *c == '"' ? "&quot;" : NULL;
        if (e) k += (size_t)snprintf(out + k, n - k, "%s", e);
        else out[k++] = *c;
    }
    out[k] = 0;
}

/* The film strip names the input its maps show: the line under the title gives the probe and its
 * answer (the issue's formats: sort's probe "3 1 4 1 5 >" continues " 1 1 3 4 5", induction's
 * "k q a z m k q a" continues " z"). It said only "rows: snapshots over training · ...". */
static void test_cli_train_filmstrip_names_the_probe(void **state) {
    tu_fixture *f = *state;
    static const char *const cases[2][2] = {
        {"sort", "probe \"3 1 4 1 5 >\" and its answer \" 1 1 3 4 5\""},
        {"induction", "probe \"k q a z m k q a\" and its answer \" z\""},
    };
    for (int i = 0; i < 2; i++) {
        tu_result r;
        run_attnviz(&r, NULL, "--train", cases[i][0], "--steps", "1", "--d-model", "16", "--batch", "4", "-q", "-o",
                    tu_in(f, cases[i][0]), NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        tu_free(&r);
        char path[4200], want[300];
        snprintf(path, sizeof path, "%s/filmstrip.svg", tu_in(f, cases[i][0]));
        char *svg = tu_slurp_file(path, NULL);
        assert_non_null(svg);
        char esc[256];
        svg_escaped(esc, sizeof esc, cases[i][1]);
        snprintf(want, sizeof want, ">%s</text>", esc);
        if (!strstr(svg, want)) fail_msg("%s: the film strip does not say %s", cases[i][0], want);
        free(svg);
    }
}

/* Write text to path (the test fails if it cannot). */
static void put_text(const char *path, const char *text) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fputs(text, fp) >= 0, 1);
    assert_int_equal(fclose(fp), 0);
}

/* The reverse probe's logits (T, V) through --model's loader on dir, into logits; -1 and err when it
 * does not load. */
static int probe_logits(float *logits, const char *dir, av_err *err) {
    av_gpt2 m;
    if (av_gpt2_load(&m, dir, err)) return -1;
    av_task_example probe;
    av_task_probe(&probe, AV_TASK_REVERSE);
    av_gpt2_acts a;
    assert_int_equal(av_gpt2_acts_alloc(&a, &m.cfg, probe.T, err), AV_OK);
    assert_int_equal(av_gpt2_forward(&a, &m.params, &m.cfg, probe.tokens, probe.T, err), AV_OK);
    memcpy(logits, a.logits, sizeof(float) * (size_t)probe.T * AV_TOY_VOCAB);
    av_gpt2_acts_free(&a);
    av_gpt2_free(&m);
    return 0;
}

/* config.json of the variants says what Hugging Face transformers would compute. --no-scale writes
 * GPT2Config's own "scale_attn_weights": false (transformers computes that, so GPT2LMHeadModel
 * stays), and a hand-written GPT-2 config.json with only that key loads as the same unscaled model:
 * the same logits as attnviz.scale false, other logits than with the scale. The variants
 * transformers cannot compute (Post-LN here) claimed model_type gpt2 and GPT2LMHeadModel; now they
 * name neither, say why in "attnviz_note", and still load with --model. Both keys disagreeing is an
 * error naming both. */
static void test_cli_train_config_json_tells_hf_the_truth(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "--no-scale", "-q",
                "-o", tu_in(f, "noscale"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *cfg = tu_slurp_file(tu_in(f, "noscale/config.json"), NULL);
    assert_non_null(cfg);
    if (!strstr(cfg, "\"scale_attn_weights\":\tfalse") || !strstr(cfg, "\"model_type\":\t\"gpt2\"") ||
        !strstr(cfg, "[\"GPT2LMHeadModel\"]"))
        fail_msg("--no-scale's config.json:\n%s", cfg);
    free(cfg);
    /* the same weights under hand-written GPT-2 config.json files */
    static const char *const hand[3][2] = {
        {"hf_noscale", ", \"scale_attn_weights\": false}"},
        {"hf_scaled", "}"},
        {"conflict", ", \"scale_attn_weights\": false, \"attnviz\": {\"scale\": true}}"},
    };
    char *st = NULL;
    size_t st_len = 0;
    assert_non_null(st = tu_slurp_file(tu_in(f, "noscale/model.safetensors"), &st_len));
    for (int i = 0; i < 3; i++) {
        char path[4200], json[400];
        assert_int_equal(mkdir(tu_in(f, hand[i][0]), 0755), 0);
        snprintf(path, sizeof path, "%s/model.safetensors", tu_in(f, hand[i][0]));
        FILE *fp = fopen(path, "wb");
        assert_non_null(fp);
        assert_int_equal(fwrite(st, 1, st_len, fp), st_len);
        assert_int_equal(fclose(fp), 0);
        snprintf(json, sizeof json, "{\"model_type\": \"gpt2\", \"architectures\": [\"GPT2LMHeadModel\"], \"n_layer\": 2, "
                 "\"n_head\": 4, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": %d%s\n", AV_TOY_VOCAB, hand[i][1]);
        snprintf(path, sizeof path, "%s/config.json", tu_in(f, hand[i][0]));
        put_text(path, json);
    }
    free(st);
    enum { N = 11 * AV_TOY_VOCAB }; /* the probe "3 1 4 1 5 > 5 1 4 1 3" is 11 tokens */
    av_task_example probe;
    av_task_probe(&probe, AV_TASK_REVERSE);
    assert_int_equal(probe.T, 11);
    static float mine[N], hf[N], scaled[N];
    av_err err;
    if (probe_logits(mine, tu_in(f, "noscale"), &err)) fail_msg("%s", err.msg);
    if (probe_logits(hf, tu_in(f, "hf_noscale"), &err)) fail_msg("scale_attn_weights false: %s", err.msg);
    if (probe_logits(scaled, tu_in(f, "hf_scaled"), &err)) fail_msg("%s", err.msg);
    assert_memory_equal(hf, mine, sizeof mine);
    double moved = 0;
    for (int i = 0; i < N; i++) moved = fmax(moved, fabs((double)scaled[i] - mine[i]));
    print_message("no scale vs ÷√d_k on the same weights: logits differ by up to %.3g\n", moved);
    assert_true(moved > 1e-6); /* so the equality above says something */
    assert_int_equal(probe_logits(hf, tu_in(f, "conflict"), &err), -1);
    if (!strstr(err.msg, "\"scale_attn_weights\": false contradicts attnviz.scale true"))
        fail_msg("conflict: %s", err.msg);
    run_attnviz(&r, NULL, "--model", tu_in(f, "conflict"), "--no-plot", "3 1 >", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "contradicts attnviz.scale true"));
    tu_free(&r);
    /* Post-LN: transformers' GPT2LMHeadModel is Pre-LN */
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "4", "--norm", "post",
                "-o", tu_in(f, "post"), NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "probe logits differ by at most 0\n")); /* it loads with --model's loader */
    tu_free(&r);
    cfg = tu_slurp_file(tu_in(f, "post/config.json"), NULL);
    assert_non_null(cfg);
    if (strstr(cfg, "GPT2LMHeadModel") || strstr(cfg, "\"model_type\":\t\"gpt2\"") ||
        !strstr(cfg, "\"architectures\":\t[\"AttnvizGPT2\"]") ||
        !strstr(cfg, "\"attnviz_note\":\t\"not a Hugging Face GPT-2: Post-LN"))
        fail_msg("--norm post's config.json:\n%s", cfg);
    free(cfg);
    run_attnviz(&r, NULL, "--model", tu_in(f, "post"), "--no-plot", "-q", "3 1 >", NULL);
    if (r.code != 0) fail_msg("--model on the Post-LN folder: exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* An overflow met only by a generated token says which: a Post-LN model whose learned position 7 is 1e30
 * runs a 4-token input (positions 0..3), and --generate 6 reaches position 7 with its 4th generated token,
 * where the scores overflow. The error named only "layer 0: the scores q·kᵀ overflowed float32", as if the
 * input had (a new user's report); now it adds the generated token and its position. */
static void test_cli_generate_overflow_names_the_generated_token(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--norm", "post", "--steps", "1", "--d-model", "16", "--batch", "4",
                "-q", "-o", tu_in(f, "m"), NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    char path[4200];
    snprintf(path, sizeof path, "%s", tu_in(f, "m/model.safetensors"));
    av_safetensors st;
    av_err err = {{0}};
    if (av_safetensors_open(&st, path, &err)) fail_msg("%s", err.msg);
    const av_st_tensor *wpe = av_safetensors_find(&st, "wpe.weight");
    assert_non_null(wpe);
    assert_int_equal(wpe->dtype, AV_ST_F32);
    assert_true(wpe->shape[0] > 7 && wpe->shape[1] == 16);
    off_t at = (off_t)(wpe->data - st.buf) + 7 * 16 * (off_t)sizeof(float);
    av_safetensors_close(&st);
    float row[16];
    for (int i = 0; i < 16; i++) row[i] = i % 2 ? 1e30f : -1e30f;
    int fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, row, sizeof row, at), (ssize_t)sizeof row);
    assert_int_equal(close(fd), 0);
    run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--no-plot", "3 1 4 >", NULL); /* the input runs */
    if (r.code != 0) fail_msg("the input alone: exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", tu_in(f, "m"), "--no-plot", "--generate", "6", "3 1 4 >", NULL);
    if (r.code != 2 || !strstr(r.err, "overflowed float32") ||
        !strstr(r.err, "(in --generate: generated token 4, at position 7; the input itself ran)"))
        fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_task_formats_from_the_issue),
        cmocka_unit_test(test_sampled_tasks_are_well_formed),
        cmocka_unit_test(test_induction_data_gaps_and_alphabet_rule),
        cmocka_unit_test(test_heldout_examples_are_never_trained_on),
        cmocka_unit_test(test_toy_vocab_ids_are_gpt2s),
        cmocka_unit_test(test_adamw_one_step_by_hand),
        cmocka_unit_test(test_schedules_by_hand),
        cmocka_unit_test(test_small_loss_is_not_shown_as_zero),
        cmocka_unit_test(test_gif_shows_the_heads_with_most_attention_on_target),
        cmocka_unit_test(test_gif_frame_title_names_the_model),
        cmocka_unit_test(test_noam_factor_is_1_unless_lr_is_given),
        cmocka_unit_test(test_docs_state_the_default_warmup_rule),
        cmocka_unit_test(test_docs_experiment_patches_apply),
        cmocka_unit_test(test_docs_dpi_paragraph_follows_the_curves),
        cmocka_unit_test_setup_teardown(test_cli_train_noam_header_and_trace, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_compare_warns_about_the_option_it_compares, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_notes_what_an_earlier_run_left, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_help_states_the_train_defaults_it_uses, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_curves_tick_whole_steps, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_weight_decay_is_decoupled, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_refuses_output_names_taken_by_folders, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_compare_refused_leaves_no_empty_folder, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_names_the_model_it_replaces, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_removes_the_dump_of_the_model_it_replaces, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_removes_a_tokenizer_it_did_not_write, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_kept_dump_note_cuts_at_a_character, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_keeps_a_dump_of_another_model_of_the_same_step,
                                        tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_model_notes_a_tokenizer_train_did_not_write, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_says_what_it_removed_when_a_removal_fails, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_names_the_trained_folder_to_paste, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_failing_after_the_model_says_it_is_saved, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_ctrl_c_between_renames_keeps_one_model, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_ctrl_c_at_figures_leaves_no_old_figure, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_ctrl_c_names_the_files_written, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_broken_pipe_says_what_it_leaves, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_notes_do_not_land_inside_piped_lines, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_piped_train_stdout_has_no_timing, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_log_is_the_same_when_stderr_is_a_terminal, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_model_html_too_large_is_refused_before_the_forward_pass,
                                        tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_model_folder_fifo_is_refused, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_under_nohup_ignores_the_hang_up, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_removes_the_temporaries_a_killed_run_left, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_rope_model_generates_up_to_n_positions, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_compare_interrupted_leaves_no_old_comparison, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_compare_interrupted_at_figures_names_every_variant,
                                        tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_refuses_a_folder_another_training_writes, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_other_model_into_training_folder_notes_it, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test(test_generate_note_positions),
        cmocka_unit_test_setup_teardown(test_cli_trained_model_checks_task_and_step, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_trained_model_checks_its_tokenizer, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_generate_overflow_names_the_generated_token, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_model_on_compare_folder_points_to_variants, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_warmup_0_is_none, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_compare_names_best_head, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_warns_when_it_diverges, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_tiny_rise_is_not_divergence, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_config_names_end_of_text, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_config_records_its_settings, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_diverged_run_figures_say_so, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_diverged_is_a_runtime_error, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_diverged_names_every_variant, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_error_on_a_terminal_starts_its_line, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_gif_within_the_pixel_bound_at_600_dpi, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_ctrl_c_after_the_run_is_complete, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_names_rope_style_or_warns, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_model_trace_names_rope_style_and_base, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_model_dot_names_the_folder, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_model_folder_typo_names_the_near_folder, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_trained_model_notes_input_outside_its_task, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_constant_schedule_has_no_warmup, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test(test_same_bits_on_1_and_2_threads),
        cmocka_unit_test(test_short_schedule_learns_reverse),
        cmocka_unit_test(test_short_schedule_learns_induction),
        cmocka_unit_test_setup_teardown(test_cli_induction_head_forms, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test(test_batch_with_more_chunks_than_eval_lanes),
        cmocka_unit_test(test_examples_with_lengths_outside_them_are_refused),
        cmocka_unit_test(test_nonfinite_gradient_norm_stops_the_step),
        cmocka_unit_test(test_128_layers_with_learned_positions_bind_a_second_chunk),
        cmocka_unit_test(test_trainer_bytes_bound_the_reference_path),
        cmocka_unit_test_setup_teardown(test_cli_train_writes_a_model_folder, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_counts_in_the_singular, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_compare_summary_prints_with_quiet, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test(test_cli_train_bad_input),
        cmocka_unit_test_setup_teardown(test_cli_train_compare_positions_odd_d_k_leaves_out_rope, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_filmstrip_accuracy_is_not_rounded_away, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_snapshot_curves_have_markers, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_curves_draw_the_best_head_of_many, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_compare_header_names_the_settings, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test(test_cli_train_checks_outdir_first),
        cmocka_unit_test_setup_teardown(test_cli_train_too_big_prints_no_header, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_unwritable_outdir_fails_before_step_1, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_dumb_terminal_gets_plain_lines, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_progress_fits_the_terminal, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_warns_unused_options, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_rope_style_and_base_reach_the_model, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_trained_model_titles_name_its_layout, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_never_overwrites_a_downloaded_model, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_names_what_is_wrong_with_a_damaged_config, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_unwritable_stdout_fails_before_training, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_generate_note_on_full_stdout_fails, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_no_blas_room_leaves_no_empty_folder, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_out_of_memory_says_size_and_options, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_config_json_tells_hf_the_truth, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_filmstrip_names_the_probe, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_gif_of_many_heads_says_which, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_gif_panels_stay_still, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_figures_name_the_mask_alike, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_gif_says_how_it_was_made, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_run_names_the_kernel, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_dpi_and_scale_reach_its_figures, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_dpi_600_keeps_the_printed_size, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_gif_one_layer_a_row, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_whole_example_is_not_outside_its_task, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_generate_note_counts_only_wrong_digits, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_generate_note_counts_all_past_a_non_letter, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_generate_note_counts_the_answer_apart_from_what_follows,
                                        tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_toy_model_figures_say_the_input_is_outside_its_task, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_model_page_holds_the_continuation, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_compare_title_names_noam, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_into_a_variant_names_its_comparison, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_names_the_folder_as_model_does, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_shows_the_folder_name_as_other_messages, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_ctrl_c_keeps_a_made_folder_holding_a_file, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cli_train_filmstrip_of_many_heads_stays_within_2400_px, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
