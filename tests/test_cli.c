/* test_cli.c - option parsing (av_parse_args) and the real binary's
 * --help/--version, trace content and exit codes for the main paths. */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <pty.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/cli.h"
#include "render/plot.h"
#include "io/npy.h"
#include "base/utf8.h"
#include "testutil.h"

static char *g_parse_dir; /* parse's empty folder, removed at exit */
static void remove_parse_dir(void) {
    if (g_parse_dir && rmdir(g_parse_dir) != 0) fprintf(stderr, "parse's folder %s is not empty\n", g_parse_dir);
}

/* av_parse_args on "attnviz" and args, run in an empty folder of its own (the current folder is back after it):
 * a hint may look at the current folder (`--train induction --model m` names runs/induction, or runs/induction2
 * when runs/induction holds a model), and a learner who followed docs/train.md in the source tree, where the tests
 * run, has runs/reverse and runs/induction there, so test_train_hints_paste_as_typed and
 * test_train_warns_every_option_it_does_not_use failed in that tree. */
static av_status parse(av_options *o, av_err *err, const char *const *args) {
    char *argv[64];
    int argc = 0;
    argv[argc++] = "attnviz";
    for (int i = 0; args[i]; i++) argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    if (!g_parse_dir) {
        g_parse_dir = make_tmpdir();
        atexit(remove_parse_dir);
    }
    int here = open(".", O_RDONLY | O_DIRECTORY);
    if (here < 0 || chdir(g_parse_dir) != 0) fail_msg("cannot enter parse's folder %s", g_parse_dir);
    av_status s = av_parse_args(o, argc, argv, err);
    if (fchdir(here) != 0) fail_msg("cannot return to the test's folder");
    close(here);
    return s;
}

static void expect_usage(const char *const *args, const char *msg_part) {
    av_options o;
    av_err err = {{0}};
    assert_int_equal(parse(&o, &err, args), AV_EUSAGE);
    if (!strstr(err.msg, msg_part)) print_message("message was: %s\n", err.msg);
    assert_non_null(strstr(err.msg, msg_part));
    av_options_free(&o);
}

static void test_defaults_and_joining(void **state) {
    (void)state;
    av_options o;
    av_err err = {{0}};
    assert_int_equal(parse(&o, &err, (const char *[]){"I", "love", "deep learning", NULL}), AV_OK);
    assert_string_equal(o.sentence, "I love deep learning");
    assert_int_equal(o.d_model, 512);
    assert_int_equal(o.heads, 1);
    assert_int_equal(o.positions, AV_POS_SINUSOIDAL);
    assert_int_equal(o.rope_style, AV_ROPE_INTERLEAVED);
    assert_true(o.rope_base == 10000.0);
    av_options_free(&o);
    /* parsing twice works (getopt state is reset) */
    assert_int_equal(parse(&o, &err, (const char *[]){"--heads", "8", "-p", "rope", "--rope-style=half", "x", NULL}), AV_OK);
    assert_int_equal(o.heads, 8);
    assert_int_equal(o.positions, AV_POS_ROPE);
    assert_int_equal(o.rope_style, AV_ROPE_HALF);
    av_options_free(&o);
}

static void test_bad_numbers_name_the_value(void **state) {
    (void)state;
    expect_usage((const char *[]){"--heads", "abc", "x", NULL}, "--heads 'abc' is not a whole number");
    expect_usage((const char *[]){"--heads", "0", "x", NULL}, "--heads 0 is outside the allowed range 1..64");
    expect_usage((const char *[]){"--heads", "-1", "x", NULL}, "--heads -1 is outside");
    expect_usage((const char *[]){"--heads", "99999999999", "x", NULL}, "--heads 99999999999 is outside");
    expect_usage((const char *[]){"--d-model", "0", "x", NULL}, "--d-model 0 is outside the allowed range 1..4096");
    expect_usage((const char *[]){"--rope-base", "0", "x", NULL}, "--rope-base 0");
    expect_usage((const char *[]){"--rope-base", "-5", "x", NULL}, "--rope-base -5");
    expect_usage((const char *[]){"--rope-base", "nan", "x", NULL}, "--rope-base 'nan' is not a number"); /* was "outside" */
    /* every number option takes the same text, decimal only: --lr took hexadecimal and --steps did not, and
     * both took a leading space but not a trailing one (a new user's report) */
    expect_usage((const char *[]){"--train", "reverse", "--lr", "0x1p-8", NULL}, "--lr '0x1p-8' is not a number");
    expect_usage((const char *[]){"--train", "reverse", "--steps", "0x10", NULL}, "--steps '0x10' is not a whole number");
    expect_usage((const char *[]){"--train", "reverse", "--lr", " 1e-3", NULL}, "--lr ' 1e-3' is not a number");
    expect_usage((const char *[]){"--train", "reverse", "--steps", " 5", NULL}, "--steps ' 5' is not a whole number");
    expect_usage((const char *[]){"--train", "reverse", "--steps", "5 ", NULL}, "--steps '5 ' is not a whole number");
    expect_usage((const char *[]){"--train", "reverse", "--lr", "1e", NULL}, "--lr '1e' is not a number");
    expect_usage((const char *[]){"--vmax", "0x1p-1", "x", NULL}, "--vmax '0x1p-1' is not allowed");
    expect_usage((const char *[]){"--layer", " 1", "x", NULL}, "--layer ' 1' is not a layer number");
    expect_usage((const char *[]){"--positions", "learned", "x", NULL}, "expected none, sinusoidal or rope");
    expect_usage((const char *[]){"--color", "sometimes", "x", NULL}, "expected auto, always or never");
    /* --lr excludes 0 (a zero learning rate never trains): the message must not offer 0 as allowed ("0..10"
     * did); its range starts at float32's smallest normal number, as the too-small message says ("(0, 10]"
     * beside a refused 1e-38 read as a contradiction: a new user's report) */
    expect_usage((const char *[]){"--train", "reverse", "--lr", "0", NULL}, "--lr 0 is outside the allowed range "
                 "1.1755e-38..10");
    /* and it says why the range starts there: "1.1755e-38..10" alone read as a floor picked from nowhere (two
     * testers' reports); FLT_MIN = 2^-126 = 1.17549435e-38, 5 significant digits 1.1755e-38 */
    expect_usage((const char *[]){"--train", "reverse", "--lr", "0", NULL}, "--lr 0 is outside the allowed range "
                 "1.1755e-38..10: it must be greater than 0, and 1.1755e-38 is float32's smallest normal number");
    expect_usage((const char *[]){"--train", "reverse", "--lr", "-0.001", NULL}, "--lr -0.001 is outside the allowed "
                 "range 1.1755e-38..10: it must be greater than 0, and 1.1755e-38 is float32's smallest normal number");
    expect_usage((const char *[]){"--train", "reverse", "--lr", "11", NULL}, "--lr 11 is outside the allowed range "
                 "1.1755e-38..10");
    expect_usage((const char *[]){"--train", "reverse", "--lr", "x", NULL}, "--lr 'x' is not a number; allowed: "
                 "1.1755e-38..10");
    /* inside the range but 0 or a denormal as a float32: "is outside the allowed range (0, 10]" was false (a new
     * user's report); FLT_MIN = 2^-126 = 1.17549e-38 */
    expect_usage((const char *[]){"--train", "reverse", "--lr", "5e-324", NULL}, "--lr 5e-324 is too small: below "
                 "1.1755e-38, float32's smallest normal number");
    expect_usage((const char *[]){"--train", "reverse", "--lr", "1e-40", NULL}, "--lr 1e-40 is too small");
    /* the allowed range gives the float32 floor: "below 1.2e-38 ...; allowed: (0, 10]" for 1e-38, inside (0, 10],
     * read as a contradiction, and 1.18e-38 looked below "1.2e-38" though it runs (a tester's report) */
    expect_usage((const char *[]){"--train", "reverse", "--lr", "1e-38", NULL}, "--lr 1e-38 is too small: below "
                 "1.1755e-38, float32's smallest normal number, it computes as 0 or loses its digits; allowed: "
                 "1.1755e-38..10");
    expect_usage((const char *[]){"--train", "reverse", "--weight-decay", "1e-400", NULL}, "--weight-decay 1e-400 is too "
                 "small: below 1.1755e-38, float32's smallest normal number, it computes as 0 or loses its digits; "
                 "allowed: 0 (for none) or 1.1755e-38..1");
    expect_usage((const char *[]){"--vmax", "5e-324", "x", NULL}, "--vmax 5e-324 is too small"); /* drew 0..1 */
    expect_usage((const char *[]){"--vmax", "1e-40", "x", NULL}, "--vmax 1e-40 is too small");
    /* a range that does not reach 0 says "outside", not the float32 reason */
    expect_usage((const char *[]){"--scale", "1e-400", "x", NULL}, "--scale 1e-400 is outside the allowed range");
    av_options o;
    av_err err = {{0}};
    assert_int_equal(parse(&o, &err, (const char *[]){"--train", "reverse", "--lr", "1.2e-38", "--weight-decay", "-0",
                                                      NULL}), AV_OK);
    assert_true(o.lr == 1.2e-38);
    assert_true(o.weight_decay == 0 && !signbit(o.weight_decay)); /* "-0" printed "weight decay -0" */
    av_options_free(&o);
}

static void test_unknown_and_missing(void **state) {
    (void)state;
    expect_usage((const char *[]){"--frobnicate", "x", NULL}, "unknown option '--frobnicate'");
    expect_usage((const char *[]){"-Z", "x", NULL}, "unknown option '-Z'");
    /* a sentence that starts with '-' reads as options: say where it goes (a new user typed this) */
    expect_usage((const char *[]){"-5 degrees today", NULL}, "a sentence that starts with '-' goes after '--'");
    expect_usage((const char *[]){"--no-plot", "-1", NULL}, "goes after '--', as in attnviz -- \"-1 ...\"");
    expect_usage((const char *[]){"x", "--heads", NULL}, "needs a value");
    /* getopt takes the next word as the value, even an option: say the value is missing, not that '--steps' is
     * not a task (a new user's `--train --steps 100`); a string option may hold anything, so -o --x is a folder */
    expect_usage((const char *[]){"--train", "--steps", "3", NULL}, "option '--train' needs a task, but the word after "
                 "it is the option '--steps'; give the task right after --train");
    expect_usage((const char *[]){"-H", "--d-model=8", "x", NULL}, "option '--heads' needs a value N, but the word after "
                 "it is the option '--d-model=8'; give the value right after --heads");
    expect_usage((const char *[]){"--vmax", "--log-scale", "x", NULL}, "option '--vmax' needs a value V");
    expect_usage((const char *[]){"--heads", "--frob", "x", NULL}, "--heads '--frob' is not"); /* not an option */
    /* a short option too, and a path option's value that names an option and is no file (-o -q made a folder
     * "-q"; --model --generate said "no such folder") */
    expect_usage((const char *[]){"--train", "-o", "d", NULL}, "option '--train' needs a task, but the word after it "
                 "is the option '-o'");
    expect_usage((const char *[]){"--train", "reverse", "--steps", "-q", NULL}, "option '--steps' needs a value N, "
                 "but the word after it is the option '-q'");
    expect_usage((const char *[]){"-o", "-q", "x", NULL}, "option '--outdir' needs a value DIR, but the word after it "
                 "is the option '-q'");
    expect_usage((const char *[]){"--model", "--generate", "3", "x", NULL}, "option '--model' needs a value DIR");
    expect_usage((const char *[]){"--heads", "-5", "x", NULL}, "--heads -5 is outside"); /* a number, no option */
    /* an abbreviation, as getopt_long takes it, is an option too ('--ste' was "not a task") */
    expect_usage((const char *[]){"--train", "--ste", "3", NULL}, "option '--train' needs a task, but the word after "
                 "it is the option '--ste'");
    { /* a long option word is cut as every value is, at 64 bytes with "…" (show_value): it was cut at 40 with no
       * mark, '--d-model=888…8' (30 eights of 70) read as the whole word; worked by hand, "--d-model=" is 10 of
       * the 64 bytes, so 54 eights and "…" */
        char word[81], want[200];
        memcpy(word, "--d-model=", 10), memset(word + 10, '8', 70), word[80] = 0;
        snprintf(want, sizeof want, "attnviz: error: option '--heads' needs a value N, but the word after it is the "
                 "option '%.64s\u2026'; give the value right after --heads\n", word);
        tu_result r;
        run_attnviz(&r, NULL, "-q", "--heads", word, "hi", NULL);
        assert_int_equal(r.code, 2);
        assert_string_equal(r.err, want);
        tu_free(&r);
    }
    { /* a value attached to its option is the user's on purpose: --outdir=--heads and -o--quiet are folders
       * (--prefix=--heads would start the files' names with '-': test_output_names_that_cannot_be_seen_are_refused) */
        static const char *const attached[][4] = {{"--outdir=--heads", "x", NULL}, {"-o--quiet", "x", NULL}};
        for (int k = 0; k < 2; k++) {
            av_options o;
            av_err err = {{0}};
            if (parse(&o, &err, attached[k]) != AV_OK) fail_msg("%s: %s", attached[k][0], err.msg);
            av_options_free(&o);
        }
    }
    {
        av_options o;
        av_err err = {{0}};
        assert_int_equal(parse(&o, &err, (const char *[]){"--title", "--steps", "x", NULL}), AV_OK);
        assert_string_equal(o.title, "--steps");
        av_options_free(&o);
    }
    expect_usage((const char *[]){NULL}, "no sentence given");
    /* with --model, no text is refused once the model is loaded, with text of its kind (test_model_cli.c,
     * test_train.c): the parser leaves the sentence NULL */
    {
        av_options o;
        av_err err = {{0}};
        assert_int_equal(parse(&o, &err, (const char *[]){"--model", "m", NULL}), AV_OK);
        assert_null(o.sentence);
        assert_null(o.file);
        av_options_free(&o);
    }
    expect_usage((const char *[]){"-f", "a.txt", "x", NULL}, "not both");
}

/* A bad choice's message offers what is accepted where it was given: learned
 * positions and --compare norm need --train, --figures model needs --model,
 * --model takes neither --kernel flash nor --compare other than scale
 * ("--positions foo" offered learned, which was then refused without --train). */
static void test_bad_choice_offers_what_is_accepted(void **state) {
    (void)state;
    static const struct {
        const char *opt, *val, *says;
    } cases[] = {
        {"--positions", "foo", "expected none, sinusoidal or rope; with --train: learned, sinusoidal or rope"},
        {"--compare", "foo", "expected scale, positions, rope-style or order; with --train: scale, norm or positions; "
                             "with --model: scale"},
        {"--kernel", "foo", "expected auto, reference, blas or flash; with --model: auto, reference or blas"},
        {"--figures", "foo", "heads, grid, mean, scores, pe, mask or all; with --model: model, grid, heads, pe or all"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_result r;
        run_attnviz(&r, NULL, cases[k].opt, cases[k].val, "I love you", NULL);
        assert_int_equal(r.code, 2);
        if (!strstr(r.err, "attnviz: error: ") || !strstr(r.err, cases[k].val) || !strstr(r.err, cases[k].says))
            fail_msg("%s %s: %s", cases[k].opt, cases[k].val, r.err);
        tu_free(&r);
    }
    /* --compare norm with --model offers what --model allows, scale (it offered the single layer's scale,
     * positions, rope-style and order, which --model refuses; a new user's report) */
    expect_usage((const char *[]){"--model", "m", "--compare", "norm", "x", NULL}, "--compare norm cannot be used with "
                 "--model; allowed: scale (layer L's attention without ÷√d_k); --compare norm trains Pre-LN and Post-LN");
    /* and each value the first message offers is accepted where it says */
    const char *const ok[][6] = {{"--positions", "learned", "--train", "sort", "--steps", "1"},
                                 {"--compare", "norm", "--train", "sort", "--steps", "1"},
                                 {"--positions", "rope", "--compare", "order", "-q", "-q"}};
    for (int k = 0; k < 3; k++) {
        av_options o;
        av_err err = {{0}};
        const char *args[9] = {ok[k][0], ok[k][1], ok[k][2], ok[k][3], ok[k][4], ok[k][5], "--no-plot", "x", NULL};
        if (k < 2) args[7] = NULL; /* --train takes no input text */
        if (parse(&o, &err, args) != AV_OK) fail_msg("%s %s: %s", ok[k][0], ok[k][1], err.msg);
        av_options_free(&o);
    }
}

/* --title is drawn as one line and --prefix is printed in the trace: a control
 * character or a line break in them is refused, naming the character and its
 * byte (a newline in --title was drawn as a box, with a missing-glyph warning). */
static void test_control_characters_in_title_and_prefix(void **state) {
    (void)state;
    static const struct {
        const char *opt, *val, *says;
    } cases[] = {
        {"--title", "line1\nline2", "--title 'line1<U+000A>line2' contains a control character (U+000A at byte 5); "
                                    "a title is one line of text"},
        {"--title", "tab\there", "control character (U+0009 at byte 3)"},
        {"--title", "bell\x07", "control character (U+0007 at byte 4)"},
        {"--title", "del\x7f", "control character (U+007F at byte 3)"},
        {"--title", "\xC3\xA9 next line \xC2\x85", "control character (U+0085 at byte 13)"}, /* C1 NEL */
        {"--title", "a\xE2\x80\xA8" "b", "line break (U+2028 at byte 1)"},                 /* LINE SEPARATOR */
        {"--title", "ab\xFF", "--title 'ab\\xFF': invalid UTF-8 at byte offset 2"},
        {"--prefix", "a\tb", "--prefix 'a<U+0009>b' contains a control character (U+0009 at byte 1)"},
        /* --explain's value is echoed too: it printed the raw invalid byte into the message */
        {"--explain", "\xFF,1", "--explain '\\xFF,1': invalid UTF-8 at byte offset 0"},
        {"--explain", "I\n,you", "--explain 'I<U+000A>,you' contains a control character (U+000A at byte 1)"},
        /* too long as well: the control character is named, not printed raw across two lines */
        {"--prefix", "x\ny0123456789012345678901234567890123456789012345678901234567890123456789",
         "--prefix 'x<U+000A>y012"},
        /* too long, no control character: the shown value stops before a character, never inside one */
        {"--prefix", "a\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
                     "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
                     "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
                     "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9",
         "\xC3\xA9\xE2\x80\xA6' must be part of a file name: at most 64 bytes"}, /* "é…' must" */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "-q", "--no-plot", cases[k].opt, cases[k].val, "I love you", NULL);
        if (r.code != 2 || !strstr(r.err, "attnviz: error: ") || !strstr(r.err, cases[k].says))
            fail_msg("%s (case %zu): exit %d, %s", cases[k].opt, k, r.code, r.err);
        av_err uerr;
        assert_int_equal(av_utf8_check(r.err, strlen(r.err), &uerr), AV_OK); /* the message is valid UTF-8 */
        assert_ptr_equal(strchr(r.err, '\n'), r.err + strlen(r.err) - 1);  /* and one line */
        assert_string_equal(r.out, "");
        tu_free(&r);
    }
    /* one line of any script, with the title's own separators and quotes, is fine */
    av_options o;
    av_err err = {{0}};
    const char *args[] = {"--title", "Slide 3 \xC2\xB7 \xE2\x80\x9C我爱\xE2\x80\x9D caf\xC3\xA9", "x", NULL};
    assert_int_equal(parse(&o, &err, args), AV_OK);
    av_options_free(&o);
}

/* ---------------------------------------------------------------------------- */

static void test_help_and_version_exit_0(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--help", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "Usage: attnviz"));
    assert_non_null(strstr(r.out, "--heads"));
    assert_string_equal(r.err, "");
    tu_free(&r);
    run_attnviz(&r, NULL, "--version", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "attnviz " AV_VERSION));
    tu_free(&r);
}

/* --help and --version are acted on where getopt reaches them, as the GNU tools do: `attnviz --help --heads 99`
 * said "--heads 99 is outside the allowed range 1..64" (exit 2) in place of the help (a tester's report). What
 * follows them, a bad value, an unknown option, a one-hyphen long option, is not read; a bad value before
 * them stays an error. */
static void test_help_and_version_before_a_bad_option(void **state) {
    (void)state;
    const char *const after[][2] = {{"--heads", "99"}, {"--bogus", "x"}, {"-heads", "8"}, {"--color", "blue"}};
    /* and in a group of short options: `-qh -heads 8` said "option '-heads' has one hyphen" (a tester's pass) */
    const char *const first[] = {"--help", "-h", "--version", "-V", "-qh", "-hq", "-qV", "-Vq"};
    for (size_t i = 0; i < sizeof first / sizeof *first; i++)
        for (size_t k = 0; k < sizeof after / sizeof *after; k++) {
            tu_result r;
            run_attnviz(&r, NULL, "hi", first[i], after[k][0], after[k][1], NULL);
            const char *want = strchr(first[i], 'h') ? "Usage: attnviz" : "attnviz " AV_VERSION;
            if (r.code != 0 || !strstr(r.out, want) || r.err[0])
                fail_msg("%s %s %s: exit %d, stderr '%s'", first[i], after[k][0], after[k][1], r.code, r.err);
            tu_free(&r);
        }
    tu_result r;
    run_attnviz(&r, NULL, "--heads", "99", "--help", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--heads 99 is outside the allowed range 1..64"));
    tu_free(&r);
}

/* A choice's bad value that was the last argument is called the text only when no text is left (test_badinput's
 * choice_took_the_text rows): not after a sentence, nor for --train, which takes no text. */
static void test_choice_value_called_the_text_only_without_text(void **state) {
    (void)state;
    /* nor when the text comes from -f, or with --train, which takes none (both were told "the text goes after
     * it": a tester's pass) */
    const char *const cases[][6] = {{"hi", "--color", "I love deep", NULL}, {"--train", "3 1 4", NULL, NULL},
                                    {"--show", "--color=I love", NULL, NULL},
                                    {"--no-plot", "-f", "/dev/null", "--color", "I love", NULL},
                                    {"--train", "reverse", "--compare", "I love", NULL}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        tu_result r;
        run_attnviz(&r, NULL, cases[k][0], cases[k][1], cases[k][2], cases[k][3], cases[k][4], cases[k][5]);
        if (r.code != 2 || !strstr(r.err, "expected") || strstr(r.err, "the last argument"))
            fail_msg("%s %s: exit %d, stderr '%s'", cases[k][0], cases[k][1], r.code, r.err);
        tu_free(&r);
    }
    tu_result r;
    run_attnviz(&r, NULL, "--show", "--color", "I love deep", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "(the last argument, 'I love deep', is the value of --color: the text goes after it)"));
    tu_free(&r);
}

/* --help fits an 80-column terminal, as GNU's tools' help does (argp wraps at 79): 44 of its 72 lines were
 * 81 to 189 columns wide, and a terminal of 80 broke them mid-word (a learner's pass at a terminal). Every
 * line is at most 79 columns as a terminal counts them (av_utf8_width: the full-width '，' is 2), ends in no
 * space, and a wrapped description goes on under its own column: each line that does not start an option,
 * between the first option and the blank line after the last, is indented 29 spaces. */
static void test_help_fits_80_columns(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--help", NULL);
    assert_int_equal(r.code, 0);
    const char *opts = strstr(r.out, "\nOptions:\n");
    assert_non_null(opts);
    const char *opts_end = strstr(opts, "\n\n");
    assert_non_null(opts_end);
    int lines = 0, wrapped = 0;
    const char *see = strstr(r.out, "for the conventions used:\n");
    const char *paths = see ? see + strlen("for the conventions used:\n") : NULL;
    for (const char *p = r.out; *p; lines++) {
        size_t n = strcspn(p, "\n");
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        /* the man page's and conventions.md's paths, after it: words no width wraps ("man PATH", "PATH") */
        int path = paths && p >= paths && strncmp(line, "  ", 2) == 0 &&
                   !strchr(line + 2 + (strncmp(line, "  man ", 6) == 0 ? 4 : 0), ' ');
        if (av_utf8_width(line) > 79 && !path)
            fail_msg("--help line %d is %d columns: %s", lines + 1, av_utf8_width(line), line);
        if (n && line[n - 1] == ' ') fail_msg("--help line %d ends in a space: '%s'", lines + 1, line);
        if (p > opts + strlen("\nOptions:\n") && p < opts_end && strncmp(line, "  -", 3) != 0 &&
            strncmp(line, "      --", 8) != 0) {
            if (strspn(line, " ") != 29) fail_msg("--help line %d continues a description at column %zu: %s",
                                                  lines + 1, strspn(line, " "), line);
            wrapped++;
        }
        p += n + (p[n] == '\n');
    }
    assert_true(wrapped > 0); /* the long descriptions are wrapped, not cut */
    /* nothing is lost: joined back, --kernel's description is whole */
    tu_help_unwrap(r.out);
    assert_non_null(strstr(r.out, "auto | reference | blas | flash (default auto: reference up to 64 tokens, blas when "
                                  "weights are drawn, dumped or shown, else flash: no (T, T) matrix)\n"));
    tu_free(&r);
}

/* --help named "docs/conventions.md", a file of the source tree that make install did not install (the last
 * note's list): it names the conventions.md that goes with the data folder the binary found, an existing file
 * (here the tree's docs/conventions.md; scripts/check-install.sh checks an installation's
 * share/doc/attnviz/conventions.md) */
static void test_help_names_a_conventions_file_that_exists(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--help", NULL);
    assert_int_equal(r.code, 0);
    const char *see = strstr(r.out, "See attnviz(1), the manual, and for the conventions used:\n  man ");
    if (!see) fail_msg("--help names no conventions.md path: %s", r.out + (strlen(r.out) > 200 ? strlen(r.out) - 200 : 0));
    char path[4200];
    see = strchr(see + strlen("See attnviz(1), the manual, and for the conventions used:\n  man "), '\n') + 1;
    if (strncmp(see, "  ", 2) != 0) fail_msg("no conventions.md line after the man page's: %s", see);
    see += 2;
    snprintf(path, sizeof path, "%.*s", (int)strcspn(see, "\n"), see);
    if (access(path, R_OK) != 0) fail_msg("--help names '%s', which cannot be read", path);
    size_t n = strlen(path), tail = strlen("/docs/conventions.md");
    if (n < tail || strcmp(path + n - tail, "/docs/conventions.md") != 0) fail_msg("not the tree's file: %s", path);
    tu_free(&r);
}

/* --help said "See attnviz(1)" and nothing more, and from the source tree, as the README has a new user run
 * it (./attnviz), `man attnviz` says "No manual entry for attnviz" (a new user's pass). It names the page that
 * goes with the data folder it found as the command that reads it: here "  man SRCDIR/docs/attnviz.1", the
 * tree's page (checked apart from attnviz: the README's own path, resolved by realpath), and man reads it;
 * scripts/check-install.sh checks an installation's share/man/man1/attnviz.1. */
static void test_help_names_a_man_page_that_exists(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--help", NULL);
    assert_int_equal(r.code, 0);
    const char *see = strstr(r.out, "See attnviz(1), the manual, and for the conventions used:\n  man ");
    if (!see) fail_msg("--help gives no command to read attnviz(1): %s",
                       r.out + (strlen(r.out) > 200 ? strlen(r.out) - 200 : 0));
    see += strlen("See attnviz(1), the manual, and for the conventions used:\n  man ");
    char word[8400], want[PATH_MAX];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(see, "\n"), see); /* a shell word: quoted if need be */
    if (!realpath(src_path("docs/attnviz.1"), want)) fail_msg("no docs/attnviz.1 in the tree");
    assert_string_equal(word, tu_sh_word(want));
    if (system("command -v man >/dev/null 2>&1") == 0) { /* what the line says to type reads the page */
        char cmd[8600];
        snprintf(cmd, sizeof cmd, "MANWIDTH=80 man -P cat %s 2>/dev/null | grep -q -- '--heads'", word);
        assert_int_equal(system(cmd), 0);
    }
    tu_free(&r);
}

/* Under LANG=C man draws the page with groff -Tascii, and a character with no fallback among the page's ".if !c"
 * lines at its top was dropped with a warning: --explain's example "，,好 and 好,， on 你好，世界" (2e71ef0) read
 * "(<U+FF0C>, and ,<U+FF0C> on <U+FF0C>)", and man printed four "can't find special character" lines (a reread
 * of the change). `LANG=C man -P cat docs/attnviz.1` now writes nothing on stderr, and the example keeps every
 * character, as <U+NNNN>. Skipped without man. */
static void test_man_page_under_lang_c_drops_no_character(void **state) {
    (void)state;
    if (system("command -v man >/dev/null 2>&1") != 0) skip();
    char cmd[8600], *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    const char *page = tu_sh_word(src_path("docs/attnviz.1"));
    for (int k = 0; k < 2; k++) { /* its stderr, then its page */
        snprintf(cmd, sizeof cmd, "LANG=C LC_ALL=C MANWIDTH=80 man -P cat %s %s", page,
                 k == 0 ? "2>&1 >/dev/null" : "2>/dev/null");
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        size_t n = fread(out, 1, TU_CAP, p);
        out[n] = 0;
        pclose(p);
        if (k == 0 && n) fail_msg("man under LANG=C warned:\n%s", out);
        if (k == 1 && !strstr(out, "<U+4F60><U+597D><U+FF0C><U+4E16><U+754C>"))
            fail_msg("--explain's example lost a character under LANG=C:\n%s", strstr(out, "either side") ? strstr(out, "either side") : out);
    }
    free(out);
}

/* --help's last line, for a binary that finds no data folder (copied out of its tree, without make install),
 * was "See attnviz(1), and docs/conventions.md in attnviz's source for the conventions used.": 85 columns,
 * past the 80 test_help_fits_80_columns holds the rest to (a fixer's pass, running a copy in /tmp). A copy of
 * the binary in an empty folder: every line of its --help is at most 79 columns, and the last two name the
 * file as the found one does ("for the conventions used:", then the path indented two spaces). */
static void test_help_of_a_copied_binary_fits_80_columns(void **state) {
    (void)state;
    char *dir = make_tmpdir(), copy[4200], cmd[17000];
    snprintf(copy, sizeof copy, "%s/attnviz", dir);
    snprintf(cmd, sizeof cmd, "cp %s %s && %s --help", tu_sh_word(tu_bin()), tu_sh_word(copy), tu_sh_word(copy));
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[512], last[2][512] = {"", ""};
    int n = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        n++;
        if (av_utf8_width(line) > 79) fail_msg("--help of a copy, line %d is %d columns: %s", n, av_utf8_width(line), line);
        snprintf(last[0], sizeof last[0], "%s", last[1]);
        snprintf(last[1], sizeof last[1], "%s", line);
    }
    assert_int_equal(pclose(p), 0);
    assert_true(n > 20);
    assert_string_equal(last[0], "See attnviz(1), and for the conventions used:");
    if (strncmp(last[1], "  ", 2) != 0 || !strstr(last[1], "conventions.md"))
        fail_msg("the last line names no conventions.md: '%s'", last[1]);
    rm_rf(dir);
}

/* A sentence that an option took as its value: `attnviz --explain "the cat sat"` (the Q,K forgotten) was told
 * "no sentence given", though the sentence was typed. --explain's form (QUERY,KEY: a ',' with a part on each
 * side, README's options table) is known before the tokens, so it is refused by name; a free-text value
 * (--title, --prefix, -o, --dump) may be anything, so the error says which option took the last argument.
 * The expected messages are the rule's (exit 2, the value named, what is allowed), written out by hand. */
static void test_text_taken_as_an_options_value_is_named(void **state) {
    (void)state;
    static const struct { const char *opt, *val, *want; } cases[] = {
        {"--explain", "the cat sat", "attnviz: error: --explain 'the cat sat' must be QUERY,KEY (token indices or "
                                     "token text), e.g. 1,3 or love,learning\n"},
        {"--title", "I love you", "attnviz: error: no sentence given (the last argument, 'I love you', is the value "
                                  "of --title: the text goes after it); try: attnviz --title 'I love you' \"I "
                                  "love deep learning\" (or -f FILE, or -f - for stdin)\n"},
        {"-o", "out", "attnviz: error: no sentence given (the last argument, out, is the value of -o: the text goes "
                      "after it); try: attnviz -o out \"I love deep learning\" (or -f FILE, or -f - for stdin)\n"},
        /* a sentence with a comma has --explain's form: only the hint can say where it went */
        {"--explain", "I love, you", "attnviz: error: no sentence given (the last argument, 'I love, you', is the "
                                     "value of --explain: the text goes after it); try: attnviz --heads 8 \"I love "
                                     "deep learning\" (or -f FILE, or -f - for stdin; --explain 'I love, you' is "
                                     "left out: it names no cell of this example)\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_result r;
        run_attnviz(&r, NULL, cases[k].opt, cases[k].val, NULL);
        if (r.code != 2 || strcmp(r.err, cases[k].want) != 0)
            fail_msg("%s '%s': exit %d, stderr:\n%s\nwanted:\n%s", cases[k].opt, cases[k].val, r.code, r.err,
                     cases[k].want);
        tu_free(&r);
    }
    tu_result r; /* the last argument is a flag, no option's value: the plain message, no hint */
    run_attnviz(&r, NULL, "--title", "x", "-q", NULL);
    if (r.code != 2 || strstr(r.err, "the last argument") || !strstr(r.err, "no sentence given;"))
        fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* The command "no sentence given" suggests keeps the options typed and runs as pasted: `attnviz --heads 2` was
 * told "try: attnviz --heads 8 \"I love deep learning\"" (the typed --heads 2 changed to 8) and `-o x --heads 2
 * -q` lost -o x and -q (a new user's pass). Each option comes back as "--NAME VALUE" ("-X VALUE" and "-X" when
 * typed as its letter), the value one shell word as typed, in the order typed, flags too; --heads 8 is the
 * example only when no option was typed. --explain names
 * the user's own sentence's tokens: kept when it names a cell of the example too (love and deep are its tokens 1
 * and 2, 1,2 two indices below its 4), else left out with a word why (爱 is none of I love deep learning; 0,9 is
 * past its 4 tokens), where `attnviz --explain 1,2` was told "try: attnviz --heads 8 ..." and --explain was gone
 * without a word. The wanted commands are written out by hand, and the ones with 'a b' and --explain are run by
 * /bin/sh, in a fresh folder, as a user pastes them: exit 0, head0.png in 'a b', the cell of love → deep. */
static void test_no_sentence_suggestion_keeps_the_typed_options(void **state) {
    (void)state;
    static const struct { const char *args[8], *want; } cases[] = {
        {{"--heads", "2", NULL}, "attnviz: error: no sentence given; try: attnviz --heads 2 \"I love deep learning\" "
                                 "(or -f FILE, or -f - for stdin)\n"},
        {{"-o", "a b", "--heads", "2", "-q", "--cmap=magma", NULL},
         "attnviz: error: no sentence given; try: attnviz -o 'a b' --heads 2 -q --cmap magma \"I love deep "
         "learning\" (or -f FILE, or -f - for stdin)\n"},
        /* flags in the order typed, as typed: it said "--heads 2 --no-plot --quiet", the flags after in the
         * table's order and -q spelt out; -qv's and -qoDIR's letters each as its own word */
        {{"-q", "--no-plot", "--heads", "2", NULL}, "attnviz: error: no sentence given; try: attnviz -q --no-plot "
         "--heads 2 \"I love deep learning\" (or -f FILE, or -f - for stdin)\n"},
        {{"--no-plot", "-qox", "--heads", "2", NULL}, "attnviz: error: no sentence given; try: attnviz --no-plot -q -o "
         "x --heads 2 \"I love deep learning\" (or -f FILE, or -f - for stdin)\n"},
        {{"--explain", "love,deep", "--heads", "2", NULL},
         "attnviz: error: no sentence given; try: attnviz --explain love,deep --heads 2 \"I love deep learning\" (or "
         "-f FILE, or -f - for stdin)\n"},
        {{"--explain", "1,2", NULL},
         "attnviz: error: no sentence given (the last argument, 1,2, is the value of --explain: the text goes after "
         "it); try: attnviz --explain 1,2 \"I love deep learning\" (or -f FILE, or -f - for stdin)\n"},
        {{"--heads", "2", "--explain", "爱,我", "-o", "x", NULL},
         "attnviz: error: no sentence given (the last argument, x, is the value of -o: the text goes after it); try: "
         "attnviz --heads 2 -o x \"I love deep learning\" (or -f FILE, or -f - for stdin; --explain 爱,我 is "
         "left out: it names no cell of this example)\n"},
        {{"--explain", "0,9", "--heads", "2", NULL},
         "attnviz: error: no sentence given; try: attnviz --heads 2 \"I love deep learning\" (or -f FILE, or -f - for "
         "stdin; --explain 0,9 is left out: it names no cell of this example)\n"},
        /* --pad-to 8 pads the example to 8 tokens, as the run does: 5,6 and love,<pad> name its cells, and were
         * left out as naming none; 9,9 is past the 8 */
        {{"--pad-to", "8", "--explain", "5,6", NULL},
         "attnviz: error: no sentence given (the last argument, 5,6, is the value of --explain: the text goes after "
         "it); try: attnviz --pad-to 8 --explain 5,6 \"I love deep learning\" (or -f FILE, or -f - for stdin)\n"},
        {{"--explain", "love,<pad>", "--pad-to", "6", NULL},
         "attnviz: error: no sentence given; try: attnviz --explain 'love,<pad>' --pad-to 6 \"I love deep learning\" "
         "(or -f FILE, or -f - for stdin)\n"},
        {{"--explain", "9,9", "--pad-to", "8", NULL},
         "attnviz: error: no sentence given; try: attnviz --pad-to 8 \"I love deep learning\" (or -f FILE, or -f - "
         "for stdin; --explain 9,9 is left out: it names no cell of this example)\n"},
        {{NULL}, "attnviz: error: no sentence given; try: attnviz --heads 8 \"I love deep learning\" (or -f FILE, or "
                 "-f - for stdin)\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *argv[10] = {NULL};
        for (int i = 0; cases[k].args[i]; i++) argv[i] = cases[k].args[i];
        tu_result r;
        tu_runv(&r, NULL, NULL, argv);
        if (r.code != 2 || strcmp(r.err, cases[k].want) != 0)
            fail_msg("case %zu: exit %d, stderr:\n%s\nwanted:\n%s", k, r.code, r.err, cases[k].want);
        tu_free(&r);
    }
    /* pasted as given: "attnviz" is the binary, the rest as the message has it */
    char *dir = make_tmpdir(), cmd[9000], png[4200];
    const char *pasted = "-o 'a b' --heads 2 -q --cmap magma \"I love deep learning\"";
    snprintf(cmd, sizeof cmd, "cd %s && %s %s", tu_sh_word(dir), tu_sh_word(tu_bin()), pasted);
    assert_int_equal(system(cmd), 0);
    snprintf(png, sizeof png, "%s/a b/head0.png", dir);
    assert_int_equal(access(png, F_OK), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s --explain love,deep --heads 2 \"I love deep learning\" | grep -q "
             "'query 1 \"love\" → key 2 \"deep\"'", tu_sh_word(dir), tu_sh_word(tu_bin()));
    assert_int_equal(system(cmd), 0);
    rm_rf(dir);
}

static void test_usage_errors_exit_2_on_stderr(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--heads", "7", "I love deep learning", NULL);
    assert_int_equal(r.code, 2);
    /* multiples of 7 around 512: 511 = 73·7, 518; divisors of 512 around 7: 4, 8 */
    assert_non_null(strstr(r.err, "attnviz: error: --heads 7 does not divide d_model 512 (d_k = d_model / heads must be "
                                  "a whole number); with 7 heads give --d-model 511 or 518, or keep 512 with --heads 4 or 8\n"));
    assert_string_equal(r.out, "");
    tu_free(&r);
    run_attnviz(&r, NULL, "--d-model", "10", "--heads", "2", "--positions", "rope", "a b", NULL);
    assert_int_equal(r.code, 2);
    /* RoPE's even d_k: multiples of 2·2 = 4 around 10 are 8, 12; heads 1 (d_k 10) and 5 (d_k 2) keep 10 */
    assert_non_null(strstr(r.err, "d_k = d_model / heads = 10 / 2 = 5; with 2 heads give --d-model 8 or 12 (multiples "
                                  "of 2·heads, for an even d_k), or keep 10 with --heads 1 or 5\n"));
    tu_free(&r);
    /* with RoPE the suggestions keep d_k even: 511 = 7·73 gave d_k 73; multiples of 14 around 512 are 504 = 14·36 and
     * 518 = 14·37; 4 and 8 heads give d_k 128 and 64 */
    run_attnviz(&r, NULL, "--heads", "7", "--positions", "rope", "I love deep learning", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--heads 7 does not divide d_model 512 (d_k = d_model / heads must be a whole number); "
                                  "with 7 heads give --d-model 504 or 518 (multiples of 2·heads, for an even d_k), or "
                                  "keep 512 with --heads 4 or 8\n"));
    tu_free(&r);
    /* --weights fixes d_model: "give --d-model 6 or 9" with the identity-d8 example led to "W_Q.npy has shape
     * (8, 8); expected (6, 6)"; only other head counts are offered */
    run_attnviz(&r, NULL, "-q", "--no-plot", "-w", src_path("assets/weights/identity-d8"), "-d", "8", "-H", "3",
                "I love you", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "(d_k = d_model / heads must be a whole number); --weights fixes d_model, so keep 8 with "
                       "--heads 2 or 4\n") || strstr(r.err, "give --d-model"))
        fail_msg("--weights, --heads 3: %s", r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-w", src_path("assets/weights/identity-d8"), "-d", "8", "-H", "8", "-p",
                "rope", "I love you", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "d_k = d_model / heads = 8 / 8 = 1; --weights fixes d_model, so keep 8 with --heads 4\n"))
        fail_msg("--weights, RoPE, --heads 8: %s", r.err);
    tu_free(&r);
    /* without -d the check saw the default 512, not the files' 8: "--weights fixes d_model, so keep 512 with --heads 2
     * or 4", and --heads 2 then failed on W_Q.npy (8, 8); the hint names the files' d_model */
    run_attnviz(&r, NULL, "-q", "--no-plot", "-w", src_path("assets/weights/identity-d8"), "-H", "3", "I love you", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "--heads 3 does not divide d_model 8 (d_k = d_model / heads must be a whole number); --weights "
                       "fixes d_model, so keep 8 with --heads 2 or 4, and add --d-model 8 (W_Q.npy in --weights is for "
                       "d_model 8, not the default 512)\n") || strstr(r.err, "512 with"))
        fail_msg("--weights without -d, --heads 3: %s", r.err);
    tu_free(&r);
    /* a title of spaces (ASCII or the ideographic U+3000) is as empty as '': it drew "· head 0 of 1: ..." */
    static const char *const blank[] = {" ", "   ", "\xE3\x80\x80"};
    for (size_t k = 0; k < sizeof blank / sizeof blank[0]; k++) {
        run_attnviz(&r, NULL, "-q", "--no-plot", "--title", blank[k], "a b", NULL);
        assert_int_equal(r.code, 2);
        if (!strstr(r.err, "is white space only; give a title\n")) fail_msg("--title '%s': %s", blank[k], r.err);
        tu_free(&r);
    }
    /* a message quotes a value with invisible characters, so a space at its ends shows: the ideographic
     * space printed "--title 　 is white space only" and "--title  x has no effect" (U+00A0) unquoted, and
     * a title of any other Unicode space (U+00A0, U+2003) was taken as a title (a tester's report) */
    static const struct {
        const char *title, *says;
    } shown[] = {
        {"\xE3\x80\x80", "error: --title '\xE3\x80\x80' is white space only; give a title\n"},
        {"\xC2\xA0", "error: --title '\xC2\xA0' is white space only; give a title\n"},
        {"\xE2\x80\x83\xC2\xA0 ", "error: --title '\xE2\x80\x83\xC2\xA0 ' is white space only; give a title\n"},
        /* a title of format characters (Unicode category Cf, unicodedata.category: U+200B zero-width space,
         * U+2060 word joiner, U+FEFF, U+200E left-to-right mark), alone or among spaces, draws nothing either:
         * it drew an invisible title and exited 0; the first one is named, as it cannot be seen */
        {"\xE2\x80\x8B", "error: --title '\xE2\x80\x8B' has no visible character (U+200B is an invisible format "
                          "character); give a title\n"},
        {"\xE2\x81\xA0", "error: --title '\xE2\x81\xA0' has no visible character (U+2060 is an invisible format "
                          "character); give a title\n"},
        {"\xEF\xBB\xBF", "error: --title '\xEF\xBB\xBF' has no visible character (U+FEFF is an invisible format "
                          "character); give a title\n"},
        {" \xE2\x80\x8E\xC2\xA0\xE2\x80\x8B", "error: --title ' \xE2\x80\x8E\xC2\xA0\xE2\x80\x8B' has no visible "
                                              "character (U+200E is an invisible format character); give a title\n"},
        {"\xE3\x80\x80My title\xE3\x80\x80", "warning: --title '\xE3\x80\x80My title\xE3\x80\x80' has no effect"},
        {"\xC2\xA0x", "warning: --title '\xC2\xA0x' has no effect with --no-plot"},
        {"x\xE2\x80\x8B", "warning: --title 'x\xE2\x80\x8B' has no effect with --no-plot"}, /* zero-width space */
        {"\xE6\x88\x91\xE7\x88\xB1", "warning: --title \xE6\x88\x91\xE7\x88\xB1 has no effect"}, /* 我爱: as it is */
        /* combining marks only (category Mn, Me: U+0301 acute, U+0308 diaeresis, U+20DD enclosing circle), alone
         * or after a space: no grapheme has a base (UAX #29: " \u0301" is one cluster on the space), so the
         * figure drew an accent over nothing and exited 0; the value is shown as code points, as a lone mark
         * would sit on the quote before it */
        {"\xCC\x81", "error: --title '<U+0301>' has no visible character (U+0301 is a combining mark, which draws on "
                     "the letter, digit or symbol before it, and the value has none); give a title\n"},
        {"\xCC\x81\xCC\x88", "error: --title '<U+0301><U+0308>' has no visible character (U+0301 is a combining mark"},
        {" \xCC\x81", "error: --title ' <U+0301>' has no visible character (U+0301 is a combining mark"},
        {"\xE2\x80\x8B\xE2\x83\x9D", "error: --title '<U+200B><U+20DD>' has no visible character (U+20DD is a "
                                     "combining mark"},
        {"e\xCC\x81", "warning: --title e\xCC\x81 has no effect with --no-plot"}, /* é decomposed: a base and its mark */
    };
    for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++) {
        run_attnviz(&r, NULL, "-q", "--no-plot", "--title", shown[k].title, "a b", NULL);
        assert_int_equal(r.code, strstr(shown[k].says, "error:") ? 2 : 0);
        if (!strstr(r.err, shown[k].says)) fail_msg("--title '%s': %s", shown[k].title, r.err);
        tu_free(&r);
    }
    /* a long one is cut with "..." after it: a title of 200 spaces was shown as 74 of them in quotes, as if whole.
     * Worked by hand: the word gets 77 bytes, a piece added while 5 are left after it, so the quote and 71 spaces,
     * the closing quote, then "..."; a title of 74 spaces, whose word of 76 bytes fits the 80, is whole */
    char title[201], want[300];
    memset(title, ' ', 200), title[200] = 0;
    snprintf(want, sizeof want, "attnviz: error: --title '%.71s'... is white space only; give a title\n", title);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--title", title, "a b", NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, want);
    tu_free(&r);
    title[74] = 0;
    snprintf(want, sizeof want, "attnviz: error: --title '%s' is white space only; give a title\n", title);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--title", title, "a b", NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, want);
    tu_free(&r);
    /* the --no-plot warning cut a title of 300 x's at 79 with no mark; by hand: a plain word in 77 bytes, 76 x's,
     * then "..."; 79 x's fit the 80 bytes whole */
    memset(title, 'x', 200), title[200] = 0;
    snprintf(want, sizeof want, "--title %.76s... has no effect with --no-plot", title);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--title", title, "a b", NULL);
    if (r.code != 0 || !strstr(r.err, want)) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    title[79] = 0;
    snprintf(want, sizeof want, "--title %s has no effect with --no-plot", title);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--title", title, "a b", NULL);
    if (r.code != 0 || !strstr(r.err, want)) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* A warning that names an option with a long value cuts the value at a whole character with "..." after it: the
 * --train warnings' "%.60s" (and "%.50s") of "--NAME VALUE" cut `--dump` of 30 深 in the middle of one, shown
 * as U+FFFD, and a --title of them with no mark; "--figures %.80s" and "--figures %.24s" cut the list at any byte
 * with no mark (a pass's report). Worked by hand from the room each warning gives the whole "--NAME VALUE": 60
 * bytes for --dump and --title, so 53 and 52 for the value, 3 of them the "...", 16 深 (48 bytes) before it;
 * 50 for --weights, 40 for its value, 12 深 (36 bytes); the --no-plot warning's --figures word gets 83 bytes,
 * 80 of the list ("scores,pe," 8 times) and "..."; the --vmax warning's 24, 21 of the list and "...". */
static void test_cut_value_in_warning_says_so(void **state) {
    tu_fixture *f = *state;
    char deep[100] = "", list[220] = "", want[300];
    for (int i = 0; i < 30; i++) strcat(deep, "深");
    for (int i = 0; i < 20; i++) strcat(list, i ? ",scores,pe" : "scores,pe"); /* 199 bytes */
    tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
    tu_result r;
    tu_run_ex(&r, &ro, NULL, 0,
              (const char *[]){"-q", "--train", "reverse", "--steps", "1", "-o", "t", "--dump", deep, "--title", deep,
                               "--weights", deep, NULL});
    assert_int_equal(r.code, 0);
    const char *cut[] = {"--dump ", "--title ", "--weights "};
    const int keep[] = {16, 16, 12};
    for (int k = 0; k < 3; k++) {
        snprintf(want, sizeof want, "attnviz: warning: %s%.*s... has no effect with --train", cut[k], keep[k] * 3, deep);
        if (!strstr(r.err, want)) fail_msg("no \"%s\" in: %s", want, r.err);
    }
    if (strstr(r.err, "\xef\xbf\xbd")) fail_msg("a character cut in two (U+FFFD): %s", r.err);
    tu_free(&r);
    tu_run_ex(&r, &ro, NULL, 0, (const char *[]){"-q", "--no-plot", "--figures", list, "a b", NULL});
    snprintf(want, sizeof want, "attnviz: warning: --figures %.80s... has no effect with --no-plot", list);
    if (r.code != 0 || !strstr(r.err, want)) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    tu_run_ex(&r, &ro, NULL, 0, (const char *[]){"-q", "-o", "o", "--figures", list, "--vmax", "1", "a b", NULL});
    snprintf(want, sizeof want, "attnviz: warning: --vmax 1 has no effect with --figures %.21s...: it colours", list);
    if (r.code != 0 || !strstr(r.err, want)) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* --train's "takes no input text" quoted the sentence and the -f file with "%.100s": 40 深 (120 bytes) were cut
 * after 33 and a third of one (U+FFFD), with no "...", and `-f "a b.txt"` was pasted back as two words. Now each
 * is one shell word in 120 bytes: the prose's 'word' (av_quoted_word) keeps 117 - 2 quotes = 115 bytes, so 38 深
 * (114 bytes), then '...; the command's bare word (av_shell_word, 深 needs no quotes) the same 38 in 117 - 1 (NUL),
 * then "..."; a newline is <U+000A> in the prose and $'\n' in the command, as GNU ls --quoting-style=shell-escape. */
static void test_train_text_refusal_quotes_whole_words(void **state) {
    (void)state;
    char deep[130] = "", want[400];
    for (int i = 0; i < 40; i++) strcat(deep, "深");
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", deep, NULL);
    snprintf(want, sizeof want, "the sentence '%.114s'... is given; it trains on its task's generated data; try the "
             "trained model with: attnviz --model attnviz-out %.114s...\n", deep, deep);
    if (r.code != 2 || !strstr(r.err, want) || strstr(r.err, "\xef\xbf\xbd")) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--train", "reverse", "-f", "a b.txt", NULL);
    if (r.code != 2 || !strstr(r.err, "-f/--file 'a b.txt' is given;") || !strstr(r.err, "attnviz-out -f 'a b.txt'\n"))
        fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--train", "reverse", "a\nb", NULL);
    if (r.code != 2 || !strstr(r.err, "the sentence 'a<U+000A>b' is given;") ||
        !strstr(r.err, "attnviz --model attnviz-out 'a'$'\\n''b'\n"))
        fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* Messages that wrap another message (npy's, the config check's) or quote --weights' folder cut it with printf
 * precision: a mask in a folder of 250 x's named 30 深 + ".npy" (not a .npy file) gave "--attn-mask: " and the
 * path cut at 300 bytes inside the 16th 深 (U+FFFD), and npy's reason, "not a .npy file (bad magic; ...)", was
 * gone; a d_model 6 --weights folder named 200 x's + "深深6" with -H 3 said "--weights xxx...x (200, no mark):
 * W_Q.npy is for d_model 6". The inner message is now whole (av_fail cuts a message over 2 KB in the middle), and
 * the folder is av_shown_word's in 201 bytes, as --weights names it elsewhere: 201 - 3 = 198 bytes, NUL included,
 * so 197 x's, then "...". */
static void test_wrapped_message_and_weights_folder_whole(void **state) {
    tu_fixture *f = *state;
    char dir[260] = "", mask[400], wdir[260] = "", want[700];
    for (int i = 0; i < 250; i++) strcat(dir, "x");
    tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
    snprintf(mask, sizeof mask, "%s/%s", f->dir, dir);
    assert_int_equal(mkdir(mask, 0755), 0);
    snprintf(mask, sizeof mask, "%s/", dir);
    for (int i = 0; i < 30; i++) strcat(mask, "深");
    strcat(mask, ".npy");
    char full[700];
    snprintf(full, sizeof full, "%s/%s", f->dir, mask);
    FILE *fp = fopen(full, "w");
    assert_non_null(fp);
    fputs("hello world not npy", fp);
    fclose(fp);
    tu_result r;
    tu_run_ex(&r, &ro, NULL, 0, (const char *[]){"--no-plot", "-q", "--attn-mask", mask, "I love", NULL});
    snprintf(want, sizeof want, "attnviz: error: --attn-mask: %s: not a .npy file (bad magic; expected \\x93NUMPY at "
             "the start); the mask must be a bool (2, 2) array, True = masked", mask);
    if (r.code != 2 || !strstr(r.err, want)) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    for (int i = 0; i < 200; i++) strcat(wdir, "x");
    strcat(wdir, "深深6");
    tu_run_ex(&r, &ro, NULL, 0, (const char *[]){"--no-plot", "-q", "-d", "6", "--dump", wdir, "I love", NULL});
    assert_int_equal(r.code, 0);
    tu_free(&r);
    tu_run_ex(&r, &ro, NULL, 0, (const char *[]){"--no-plot", "-q", "-H", "3", "--weights", wdir, "I love", NULL});
    snprintf(want, sizeof want, "attnviz: error: --weights %.197s...: W_Q.npy is for d_model 6, not the default 512: "
             "add --d-model 6\n", wdir);
    if (r.code != 2 || strcmp(r.err, want)) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* The "no sentence given" hint named the word that ended the options with "%.40s": `-qqq...qo "I love"` (60 q's)
 * said "is the value of -qqq...q" (40 bytes, the o cut off, no mark). A cluster's last letter is the option that
 * took the separate value (POSIX getopt, XBD 12.2 guideline 5), so the hint names -o. */
static void test_text_hint_names_the_clustered_option(void **state) {
    (void)state;
    char cluster[70] = "-";
    for (int i = 0; i < 60; i++) strcat(cluster, "q");
    strcat(cluster, "o");
    tu_result r;
    run_attnviz(&r, NULL, cluster, "I love", NULL);
    if (r.code != 2 || !strstr(r.err, "(the last argument, 'I love', is the value of -o: the text goes after it)"))
        fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
}

static void test_trace_shows_every_stage(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    tu_result r;
    run_attnviz(&r, NULL, "--heads", "8", "--no-plot", "--color", "never", "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    const char *want[] = {"T = 4", "d_model = 512", "heads H = 8", "d_k = d_model/H = 512/8 = 64",
                          "interleaved", "§3.5", "weights    random weights (untrained, seed 42)", "(4, 512)·(512, 512) → (4, 512)",
                          "(4, 512) → (4, 8, 64) → (8, 4, 64)", "Q·Kᵀ/√64", "(8, 4, 64)·(8, 64, 4) → (8, 4, 4)",
                          "var(Q·Kᵀ) = ", "var(Q·Kᵀ/√d_k) = ", "every unmasked row sums to 1",
                          "Y = concat·W_O", "nn.Linear stores weight = W_Qᵀ"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!strstr(r.out, want[i])) print_message("missing: %s\n", want[i]);
        assert_non_null(strstr(r.out, want[i]));
    }
    assert_null(strstr(r.out, "\033[")); /* --color never */
    assert_null(strstr(r.out, "nan"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "--color", "always", "hi", NULL);
    assert_non_null(strstr(r.out, "\033["));
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "hi", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.out, "");
    tu_free(&r);
    rm_rf(dir);
}

static void test_same_word_same_row_without_positions(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    tu_result r;
    run_attnviz(&r, NULL, "--positions", "none", "--no-plot", "--d-model", "16", "--dump", dir,
                "the cat sat on the mat", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "identical rows"));
    char path[4200];
    snprintf(path, sizeof path, "%s/X.npy", dir);
    av_npy x;
    av_err err;
    assert_int_equal(av_npy_read(&x, path, &err), AV_OK);
    assert_int_equal(x.shape[0], 6);
    assert_memory_equal(x.data + 0 * 16, x.data + 4 * 16, 16 * sizeof(float)); /* "the" twice */
    assert_memory_not_equal(x.data + 0 * 16, x.data + 1 * 16, 16 * sizeof(float));
    av_npy_free(&x);
    /* and so the output rows of the two "the" are identical too */
    snprintf(path, sizeof path, "%s/output.npy", dir);
    assert_int_equal(av_npy_read(&x, path, &err), AV_OK);
    assert_memory_equal(x.data + 0 * 16, x.data + 4 * 16, 16 * sizeof(float));
    av_npy_free(&x);
    tu_free(&r);
    rm_rf(dir);
}

/* The same word typed in two canonically equivalent spellings is one token: "café" with U+00E9 and with
 * e + U+0301, 한 as one syllable and as three jamo (as macOS file names and some keyboards give them),
 * looked the same in every label but had their own embeddings, so with --positions none the figure showed two
 * "café" rows with different weights (a figure-maker's pass). The sentence is read in NFC: the tokens, their
 * X rows and output rows are the same, tokens.txt holds one spelling, and --explain finds the token whichever
 * spelling it is given. */
static void test_equivalent_spellings_are_one_token(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    tu_result r;
    run_attnviz(&r, NULL, "--positions", "none", "--no-plot", "--d-model", "16", "--dump", dir,
                "caf\xC3\xA9 cafe\xCC\x81 \xED\x95\x9C \xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "[caf\xC3\xA9] [caf\xC3\xA9] [\xED\x95\x9C] [\xED\x95\x9C]")) fail_msg("tokens: %s", r.out);
    tu_free(&r);
    char path[4200];
    snprintf(path, sizeof path, "%s/tokens.txt", dir);
    char *toks = tu_slurp_file(path, NULL);
    assert_non_null(toks);
    assert_string_equal(toks, "caf\xC3\xA9\ncaf\xC3\xA9\n\xED\x95\x9C\n\xED\x95\x9C\n");
    free(toks);
    const char *files[2] = {"X.npy", "output.npy"};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        av_npy x;
        av_err err;
        assert_int_equal(av_npy_read(&x, path, &err), AV_OK);
        assert_int_equal(x.shape[0], 4);
        assert_memory_equal(x.data + 0 * 16, x.data + 1 * 16, 16 * sizeof(float)); /* café, café */
        assert_memory_equal(x.data + 2 * 16, x.data + 3 * 16, 16 * sizeof(float)); /* 한, 한 */
        assert_memory_not_equal(x.data + 0 * 16, x.data + 2 * 16, 16 * sizeof(float));
        av_npy_free(&x);
    }
    /* --explain in the other spelling than the sentence's, both ways */
    run_attnviz(&r, NULL, "-q", "--no-plot", "--explain", "cafe\xCC\x81,x", "caf\xC3\xA9 x", NULL);
    if (r.code != 0) fail_msg("--explain e + U+0301: %s", r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--explain", "caf\xC3\xA9,x", "cafe\xCC\x81 x", NULL);
    if (r.code != 0) fail_msg("--explain U+00E9: %s", r.err);
    tu_free(&r);
    rm_rf(dir);
}

/* A keycap emoji (UTS #51 ED-14c emoji_keycap_sequence: a digit, # or *, then U+FE0F U+20E3) is an emoji as
 * 🙂 and ❤️ are (a Chinese-speaking learner's pass): `attnviz --no-plot "1️⃣2️⃣ 3️⃣x"` gave the tokens
 * [1️⃣2️⃣] [3️⃣x], the keycaps glued to each other and to the next word as digits are, while "🙂🙂" is two
 * tokens; and --show counted "1️⃣" 1 column where a terminal draws an emoji 2, so its row was padded one space
 * more than the row of 好 (2 columns) and its numbers stood one column right of the others. Expected, by hand
 * from UTS #51: one token per keycap, each 2 columns like 好; "1⃣" without U+FE0F is the digit in text
 * presentation (as ❤ without it) and stays in its word. */
static void test_keycap_emoji_is_one_token_of_two_columns(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "--d-model", "16",
                "1\xEF\xB8\x8F\xE2\x83\xA3" "2\xEF\xB8\x8F\xE2\x83\xA3 3\xEF\xB8\x8F\xE2\x83\xA3x "
                "#\xEF\xB8\x8F\xE2\x83\xA3* 1\xE2\x83\xA3x \xE5\xA5\xBD", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "  tokens     [1\xEF\xB8\x8F\xE2\x83\xA3] [2\xEF\xB8\x8F\xE2\x83\xA3] "
                       "[3\xEF\xB8\x8F\xE2\x83\xA3] [x] [#\xEF\xB8\x8F\xE2\x83\xA3] [*] [1\xE2\x83\xA3x] "
                       "[\xE5\xA5\xBD]\n"))
        fail_msg("keycap tokens: %s", r.out);
    tu_free(&r);
    /* --show: labels "1️⃣" and "好" both 2 columns, so both rows are "i label value": one space each */
    run_attnviz(&r, NULL, "-q", "--no-plot", "--d-model", "16", "--show", "1\xEF\xB8\x8F\xE2\x83\xA3 \xE5\xA5\xBD",
                NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "\n0 1\xEF\xB8\x8F\xE2\x83\xA3 0.") || !strstr(r.out, "\n1 \xE5\xA5\xBD 0."))
        fail_msg("--show rows not aligned: %s", r.out);
    tu_free(&r);
}

/* An --explain value quoted in an error is closed for bidi as a path is (utf8.h av_utf8_shown_name): an RLO
 * U+202E left open in `--explain $'abc\u202e,1'` turned the rest of the message, "' is neither a token of the
 * sentence ...", around on a terminal that applies UAX #9. By hand from UAX #9: an RLO is closed by one PDF
 * U+202C; an isolate already closed (FSI ... PDI) gets nothing. */
static void test_explain_value_in_a_message_is_closed_for_bidi(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--d-model", "16", "--explain", "abc\xE2\x80\xAE,1", "a b", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "--explain query 'abc\xE2\x80\xAE\xE2\x80\xAC' is neither a token"))
        fail_msg("RLO not closed: %s", r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--d-model", "16", "--explain", "a\xE2\x80\xAE" "b,,", "a b", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "--explain 'a\xE2\x80\xAE" "b,,\xE2\x80\xAC' has an empty part")) fail_msg("RLO not closed: %s", r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--d-model", "16", "--explain", "\xE2\x81\xA8" "ab\xE2\x81\xA9,1", "a b", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "--explain query '\xE2\x81\xA8" "ab\xE2\x81\xA9' is neither")) fail_msg("closed isolate: %s", r.err);
    tu_free(&r);
}

/* `attnviz --heads 8 “我爱深度学习”` typed with a Chinese input method's punctuation on (a Chinese-speaking
 * student's pass): the shell keeps “ and ”, so the sentence had 8 tokens, [“] first and [”] last, with no word
 * why. The run is unchanged (the quotes stay characters of the text) and a note says what the shell's quotes
 * are, with the sentence to type; “ ” around only a part of the text, or read from a file, is left alone. */
static void test_typed_curly_quotes_are_noted(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "--heads", "2", "“我爱深度学习”", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "tokens     [“] [我] [爱] [深] [度] [学] [习] [”]")) fail_msg("tokens: %s", r.out);
    if (!strstr(r.err, "attnviz: note: the text starts with '“' and ends with '”', and both are read as characters "
                       "of it: the shell's quotes are only the ASCII \", which a Chinese input method types as “ ” "
                       "with its Chinese punctuation on; to quote the text, type \"我爱深度学习\"\n"))
        fail_msg("stderr: %s", r.err);
    tu_free(&r);
    /* three words to the shell, as a Chinese input method's “I love you” gives them */
    run_attnviz(&r, NULL, "-q", "--no-plot", "“I", "love", "you”", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.err, "to quote the text, type \"I love you\"")) fail_msg("stderr: %s", r.err);
    tu_free(&r);
    /* single quotes, and the full-width ＂ of full-width mode */
    run_attnviz(&r, NULL, "-q", "--no-plot", "‘我爱你’", NULL);
    if (!strstr(r.err, "the shell's quotes are only the ASCII ', which a Chinese input method types as ‘ ’"))
        fail_msg("stderr: %s", r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "＂我爱你＂", NULL);
    if (!strstr(r.err, "which an input method's full-width mode types as ＂; to quote the text, type \"我爱你\""))
        fail_msg("stderr: %s", r.err);
    tu_free(&r);
    /* a quotation inside the text, ASCII quotes, a file: no note */
    const char *quiet[] = {"“深度学习”很有趣", "我爱深度学习", "他说“你好”"};
    for (int i = 0; i < 3; i++) {
        run_attnviz(&r, NULL, "-q", "--no-plot", quiet[i], NULL);
        assert_int_equal(r.code, 0);
        if (strstr(r.err, "note")) fail_msg("%s: %s", quiet[i], r.err);
        tu_free(&r);
    }
    char *dir = make_tmpdir(), path[4200];
    snprintf(path, sizeof path, "%s/quoted.txt", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("“我爱深度学习”\n", f);
    fclose(f);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-f", path, NULL);
    assert_int_equal(r.code, 0);
    if (strstr(r.err, "note")) fail_msg("-f: %s", r.err);
    tu_free(&r);
    rm_rf(dir);
}

/* [2] embed with --weights DIR holding X.npy: X is the file's, so the trace
 * says where it was loaded from and its shape, and not the rule of the
 * random embeddings ("one N(0,1) vector per token text", "the same token
 * text gets the same row"), which a loaded X need not follow. Without X.npy in
 * the folder the random rule is still stated. */
static void test_embed_step_names_a_loaded_x(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    char path[4400];
    snprintf(path, sizeof path, "%s/X.npy", dir);
    float x[4 * 8];
    for (int i = 0; i < 4 * 8; i++) x[i] = (float)(i % 8 == i / 8); /* identity rows: the two "the" get different rows */
    size_t shape[2] = {4, 8};
    av_err err;
    assert_int_equal(av_npy_write(path, x, 2, shape, &err), AV_OK);
    tu_result r;
    run_attnviz(&r, NULL, "-d", "8", "--weights", dir, "--no-plot", "--color", "never", "the cat sat the", NULL);
    assert_int_equal(r.code, 0);
    const char *embed = strstr(r.out, "[2] embed");
    assert_non_null(embed);
    const char *next = strstr(embed, "[3] ");
    assert_non_null(next);
    char step[1024];
    snprintf(step, sizeof step, "%.*s", (int)(next - embed), embed);
    printf("%s", step);
    char want[4500];
    snprintf(want, sizeof want, "(4, 8)   loaded from %s", path);
    assert_non_null(strstr(step, want));
    assert_null(strstr(step, "N(0,1) vector per token text"));
    assert_null(strstr(step, "same token text gets the same row"));
    tu_free(&r);
    /* [3] with --positions none: the words' order is not X's, so the claim for drawn embeddings
     * ("shuffling the words only permutes the weights") is false here; checked: the same X with the
     * words reordered gives the same weights, not permuted ones */
    char dump1[4250], dump2[4250];
    snprintf(dump1, sizeof dump1, "%s/d1", dir);
    snprintf(dump2, sizeof dump2, "%s/d2", dir);
    run_attnviz(&r, NULL, "-d", "8", "--weights", dir, "--positions", "none", "--no-plot", "--color", "never",
                "--dump", dump1, "the cat sat on", NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.out, "only permutes the weights"));
    assert_non_null(strstr(r.out, "reordering\n"));
    assert_non_null(strstr(r.out, "the words changes only the labels, not X or the weights"));
    tu_free(&r);
    run_attnviz(&r, NULL, "-d", "8", "--weights", dir, "--positions", "none", "--no-plot", "--color", "never",
                "--dump", dump2, "on sat cat the", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    av_npy a1, a2;
    snprintf(path, sizeof path, "%s/weights.npy", dump1);
    assert_int_equal(av_npy_read(&a1, path, &err), AV_OK);
    snprintf(path, sizeof path, "%s/weights.npy", dump2);
    assert_int_equal(av_npy_read(&a2, path, &err), AV_OK);
    assert_int_equal(a1.ndim, 3);
    assert_int_equal(a2.ndim, 3);
    size_t cells = a1.shape[0] * a1.shape[1] * a1.shape[2];
    assert_int_equal(cells, a2.shape[0] * a2.shape[1] * a2.shape[2]);
    assert_int_equal(cells, 1 * 4 * 4); /* (H, T, T): -d 8 runs 1 head by default, T = 4 */
    assert_memory_equal(a1.data, a2.data, cells * sizeof(float));
    av_npy_free(&a1);
    av_npy_free(&a2);
    snprintf(path, sizeof path, "%s/X.npy", dir);
    unlink(path); /* only W_Q: X is drawn again, and the trace says so */
    snprintf(path, sizeof path, "%s/W_Q.npy", dir);
    float w[8 * 8] = {0};
    size_t wshape[2] = {8, 8};
    assert_int_equal(av_npy_write(path, w, 2, wshape, &err), AV_OK);
    run_attnviz(&r, NULL, "-d", "8", "--weights", dir, "--no-plot", "--color", "never", "the cat sat the", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "(4, 8)   one N(0,1) vector per token text"));
    assert_null(strstr(r.out, "X.npy"));
    tu_free(&r);
    rm_rf(dir);
}

/* max over heads, i, j of |B[h, π(i), π(j)] − A[h, i, j]| for the (H, T, T)
 * weights.npy of two dumps, π swapping tokens 0 and 2 and keeping the others
 * ("I love you" and "you love I", <pad> after them): 0 when reordering the
 * words only permuted the weights. */
static double swapped_weights_diff(const char *dump_a, const char *dump_b) {
    char path[4500];
    av_npy a, b;
    av_err err;
    snprintf(path, sizeof path, "%s/weights.npy", dump_a);
    assert_int_equal(av_npy_read(&a, path, &err), AV_OK);
    snprintf(path, sizeof path, "%s/weights.npy", dump_b);
    assert_int_equal(av_npy_read(&b, path, &err), AV_OK);
    assert_int_equal(a.ndim, 3);
    assert_int_equal(b.ndim, 3);
    size_t H = a.shape[0], T = a.shape[1];
    assert_true(T >= 3);
    assert_int_equal(a.shape[2], T);
    assert_int_equal(b.shape[0], H);
    assert_int_equal(b.shape[1], T);
    assert_int_equal(b.shape[2], T);
    double worst = 0;
    for (size_t h = 0; h < H; h++)
        for (size_t i = 0; i < T; i++)
            for (size_t j = 0; j < T; j++) {
                size_t pi = i == 0 ? 2 : i == 2 ? 0 : i, pj = j == 0 ? 2 : j == 2 ? 0 : j;
                double d = fabs((double)b.data[(h * T + pi) * T + pj] - a.data[(h * T + i) * T + j]);
                if (d > worst) worst = d;
            }
    av_npy_free(&a);
    av_npy_free(&b);
    return worst;
}

/* --positions none with a mask that hides keys by position: the trace said
 * "attention alone cannot tell word order" and "shuffling the words only
 * permutes the weights" with --causal too, where "you love I" gives other
 * weights than "I love you" permuted (0.73 apart at -d 8). Each case runs both
 * orders with --dump and measures from the dumps whether the weights only
 * permuted; the trace must say what was measured: the claim where they
 * permute (no mask, key padding, and a causal mask with an --attn-mask hiding
 * every earlier key, which together hide every other word wherever it sits),
 * and the mask that tells the order where they do not (--causal, an
 * --attn-mask that hides a key by position). */
static void test_positions_none_names_a_mask_that_tells_order(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    char ordered[4400], symmetric[4400], dump_a[4400], dump_b[4400];
    snprintf(ordered, sizeof ordered, "%s/ordered.npy", dir);
    snprintf(symmetric, sizeof symmetric, "%s/earlier.npy", dir);
    snprintf(dump_a, sizeof dump_a, "%s/a", dir);
    snprintf(dump_b, sizeof dump_b, "%s/b", dir);
    const unsigned char m_ordered[9] = {0, 1, 0, 0, 0, 0, 0, 0, 0}; /* query 0 does not see key 1 */
    const unsigned char m_earlier[9] = {0, 0, 0, 1, 0, 0, 1, 1, 0}; /* keys j < i: with causal, every j != i */
    size_t shape[2] = {3, 3};
    av_err err;
    assert_int_equal(av_npy_write_bool(ordered, m_ordered, 2, shape, &err), AV_OK);
    assert_int_equal(av_npy_write_bool(symmetric, m_earlier, 2, shape, &err), AV_OK);
    static const struct {
        const char *opt[4];
        int tells;        /* 1: the words' order changes the weights (measured below as well) */
        const char *name; /* what the trace names as telling the order */
    } cases[] = {
        {{NULL}, 0, NULL},
        {{"--pad-to", "5", NULL}, 0, NULL},
        {{"--causal", NULL}, 1, "the causal mask"},
        {{"--causal", "--heads", "2", NULL}, 1, "the causal mask"},
        {{"--attn-mask", "ORDERED", NULL}, 1, "the --attn-mask file"},
        {{"--causal", "--attn-mask", "EARLIER", NULL}, 0, NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *opt[4] = {NULL, NULL, NULL, NULL};
        for (int i = 0; i < 4 && cases[k].opt[i]; i++)
            opt[i] = !strcmp(cases[k].opt[i], "ORDERED")   ? ordered
                     : !strcmp(cases[k].opt[i], "EARLIER") ? symmetric
                                                           : cases[k].opt[i];
        const char *sentence[2] = {"I love you", "you love I"};
        const char *dump[2] = {dump_a, dump_b};
        tu_result r[2];
        for (int s = 0; s < 2; s++) {
            const char *argv[16];
            int n = 0;
            argv[n++] = "-d";
            argv[n++] = "8";
            argv[n++] = "--positions";
            argv[n++] = "none";
            argv[n++] = "--no-plot";
            argv[n++] = "--color";
            argv[n++] = "never";
            argv[n++] = "--dump";
            argv[n++] = dump[s];
            for (int i = 0; i < 4 && opt[i]; i++) argv[n++] = opt[i];
            argv[n++] = sentence[s];
            argv[n] = NULL;
            tu_runv(&r[s], NULL, NULL, argv);
            assert_int_equal(r[s].code, 0);
        }
        double diff = swapped_weights_diff(dump_a, dump_b);
        printf("case %zu: max |A_swapped[π(i), π(j)] − A[i, j]| = %.3g\n", k, diff);
        assert_int_equal(diff > 1e-6, cases[k].tells);
        const char *out = r[0].out;
        if (cases[k].tells) {
            char want[160];
            snprintf(want, sizeof want, "positions  none: only %s tells word order", cases[k].name);
            assert_non_null(strstr(out, want));
            snprintf(want, sizeof want, "%s hides keys by position, so reordering the words changes them",
                     cases[k].name);
            assert_non_null(strstr(out, want));
            assert_null(strstr(out, "cannot tell word order"));
            assert_null(strstr(out, "only permutes the weights"));
        } else {
            assert_non_null(strstr(out, "positions  none: attention alone cannot tell word order"));
            assert_non_null(strstr(out, "none: X is used as is, so shuffling the words only permutes the weights"));
            assert_null(strstr(out, "tells word order"));
        }
        tu_free(&r[0]);
        tu_free(&r[1]);
    }
    rm_rf(dir);
}

/* A float64 --weights file of nonzero values that float32 stores as 0 (a known fault): X.npy of (3, 8) 1e-300s
 * (np.save(path, np.full((3, 8), 1e-300))) and `-d 8 -p none -w DIR --no-plot "a b c"` read as all zeros, every
 * row of A uniform, exit 0, with nothing said, where values too large for float32 are refused. numpy's
 * astype(np.float32) flushes them to 0 too, so the run goes on, with a note naming the file, the count and the
 * first. The files are written here byte by byte ('<f8', little-endian). Expected, by hand: X = 0 makes every
 * score 0, so every weight is 1/3 (--dump's weights.npy), and the note counts 24 from index 0; in the second file
 * of 0.5s, 1e-46 at [1, 2] and -3e-320 at [1, 5] are at most 2^-150 ≈ 7.0e-46 and round to 0 (2 values, the first
 * 1e-46 at index 10), while 1e-45 at [0, 3] rounds up to the smallest subnormal 2^-149 and 1e-40 at [2, 4] is a
 * subnormal, both kept (no note for them). A float32 file of 0.5s has no note. */
static void write_f8_npy(const char *path, const double *v, size_t rows, size_t cols) {
    char dict[128];
    int n = snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': False, 'shape': (%zu, %zu), }", rows, cols);
    int pad = (64 - (10 + n + 1) % 64) % 64;
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    unsigned short hl = (unsigned short)(n + pad + 1);
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hl & 0xff), (unsigned char)(hl >> 8)};
    fwrite(pre, 1, 10, f);
    fprintf(f, "%s%*s\n", dict, pad, "");
    for (size_t i = 0; i < rows * cols; i++) {
        uint64_t u;
        memcpy(&u, &v[i], 8);
        for (int b = 0; b < 8; b++) fputc((int)(u >> (8 * b)) & 0xff, f);
    }
    assert_int_equal(fclose(f), 0);
}

static void test_weights_float64_below_float32_says_they_read_as_0(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    char path[4600], dump[4400];
    double x[3 * 8];
    for (int i = 0; i < 24; i++) x[i] = 1e-300;
    snprintf(path, sizeof path, "%s/X.npy", dir);
    write_f8_npy(path, x, 3, 8);
    snprintf(dump, sizeof dump, "%s/dump", dir);
    tu_result r;
    run_attnviz(&r, NULL, "-d", "8", "-p", "none", "-w", dir, "--no-plot", "-q", "--dump", dump, "a b c", NULL);
    assert_int_equal(r.code, 0);
    char want[6000];
    snprintf(want, sizeof want, "attnviz: note: %s/X.npy: 24 nonzero float64 values are read as 0: float32 rounds "
             "|v| <= 2^-150 = 7.0e-46, half its smallest subnormal 1.4e-45, to 0, as numpy's a.astype(np.float32) "
             "does; the first is 1e-300 at index 0 (row 0, column 0)\n", dir);
    if (!strstr(r.err, want)) fail_msg("want the note\n%s\nin:\n%s", want, r.err);
    tu_free(&r);
    av_npy a;
    av_err err = {{0}};
    snprintf(path, sizeof path, "%s/weights.npy", dump);
    assert_int_equal(av_npy_read(&a, path, &err), AV_OK);
    assert_int_equal(a.ndim, 3);
    for (int i = 0; i < 9; i++) assert_float_equal(a.data[i], 1.0 / 3.0, 1e-6);
    av_npy_free(&a);
    for (int i = 0; i < 24; i++) x[i] = 0.5;
    x[3] = 1e-45, x[10] = 1e-46, x[13] = -3e-320, x[20] = 1e-40;
    snprintf(path, sizeof path, "%s/X.npy", dir);
    write_f8_npy(path, x, 3, 8);
    run_attnviz(&r, NULL, "-d", "8", "-p", "none", "-w", dir, "--no-plot", "-q", "a b c", NULL);
    assert_int_equal(r.code, 0);
    snprintf(want, sizeof want, "attnviz: note: %s/X.npy: 2 nonzero float64 values are read as 0: float32 rounds "
             "|v| <= 2^-150 = 7.0e-46, half its smallest subnormal 1.4e-45, to 0, as numpy's a.astype(np.float32) "
             "does; the first is 1e-46 at index 10 (row 1, column 2)\n", dir);
    if (strcmp(r.err, want)) fail_msg("want the note\n%s\nnot:\n%s", want, r.err);
    tu_free(&r);
    float xf[3 * 8];
    for (int i = 0; i < 24; i++) xf[i] = 0.5f;
    assert_int_equal(av_npy_write(path, xf, 2, (size_t[]){3, 8}, &err), AV_OK);
    run_attnviz(&r, NULL, "-d", "8", "-p", "none", "-w", dir, "--no-plot", "-q", "a b c", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    tu_free(&r);
    rm_rf(dir);
}

/* [4] project's measured var(Q), var(K) with loaded files: X of ±1 (mean 0,
 * variance 1, by hand) and W_Q = W_K = 3·I give Q = K = 3·X, variance 9
 * exactly with --positions none. The trace said "(of X + PE, so not exactly
 * 1)" with sinusoidal positions, as if only PE kept the files' product from 1;
 * it now names the loaded files and says when 1 holds, and random weights
 * keep their line. Files that keep the rule's scale are not told it fails:
 * W = H_8/√8 (Sylvester's Hadamard matrix, entries ±1/√8, so variance
 * 1/d_model, and orthogonal) keeps each ±1 row's length, and the rows'
 * entries sum to 0, so var(Q) = var(K) = 1 exactly, by hand. */
static void test_project_variance_of_loaded_files(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    char path[4400];
    float x[4 * 8], w[8 * 8] = {0};
    for (int i = 0; i < 4 * 8; i++) x[i] = (i / 8 + i % 8) % 2 ? 1.0f : -1.0f;
    for (int i = 0; i < 8; i++) w[i * 8 + i] = 3.0f;
    size_t xshape[2] = {4, 8}, wshape[2] = {8, 8};
    av_err err;
    snprintf(path, sizeof path, "%s/X.npy", dir);
    assert_int_equal(av_npy_write(path, x, 2, xshape, &err), AV_OK);
    snprintf(path, sizeof path, "%s/W_Q.npy", dir);
    assert_int_equal(av_npy_write(path, w, 2, wshape, &err), AV_OK);
    snprintf(path, sizeof path, "%s/W_K.npy", dir);
    assert_int_equal(av_npy_write(path, w, 2, wshape, &err), AV_OK);
    static const struct {
        const char *positions, *want;
    } cases[] = {
        {"none", "measured var(Q) = 9.000, var(K) = 9.000 (X.npy, W_Q.npy, W_K.npy loaded: near 1 only for X ~ "
                 "N(0, 1) and W ~ N(0, 1/d_model), as attnviz draws them)\n"},
        {"sinusoidal", "(X.npy, W_Q.npy, W_K.npy loaded: near 1 only for X ~ N(0, 1) and W ~ N(0, 1/d_model), as "
                       "attnviz draws them)\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "-d", "8", "--weights", dir, "--positions", cases[k].positions, "--no-plot", "--color",
                    "never", "a b c d", NULL);
        assert_int_equal(r.code, 0);
        if (!strstr(r.out, cases[k].want)) fail_msg("--positions %s: no \"%s\" in\n%s", cases[k].positions,
                                                     cases[k].want, r.out);
        assert_null(strstr(r.out, "so not exactly 1"));
        tu_free(&r);
    }
    snprintf(path, sizeof path, "%s/X.npy", dir);
    unlink(path); /* X drawn, W_Q and W_K loaded: only those two are named */
    tu_result r;
    run_attnviz(&r, NULL, "-d", "8", "--weights", dir, "--no-plot", "--color", "never", "a b c d", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, " (W_Q.npy, W_K.npy loaded: near 1 only for X ~ N(0, 1) and W ~ N(0, 1/d_model)"));
    tu_free(&r);
    run_attnviz(&r, NULL, "-d", "8", "--no-plot", "--color", "never", "a b c d", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, " (of X + PE, so not exactly 1)\n"));
    assert_null(strstr(r.out, "is not expected"));
    tu_free(&r);
    /* W_Q = W_K = H_8/√8: the rule's scale, and var(Q) = 1.000; the line said "the N(0, 1/d_model) rule
     * does not hold, so 1 is not expected" beside it */
    float h[8 * 8];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) h[i * 8 + j] = (__builtin_popcount((unsigned)(i & j)) % 2 ? -1.0f : 1.0f) / sqrtf(8.0f);
    snprintf(path, sizeof path, "%s/X.npy", dir);
    assert_int_equal(av_npy_write(path, x, 2, xshape, &err), AV_OK);
    snprintf(path, sizeof path, "%s/W_Q.npy", dir);
    assert_int_equal(av_npy_write(path, h, 2, wshape, &err), AV_OK);
    snprintf(path, sizeof path, "%s/W_K.npy", dir);
    assert_int_equal(av_npy_write(path, h, 2, wshape, &err), AV_OK);
    run_attnviz(&r, NULL, "-d", "8", "--weights", dir, "--positions", "none", "--no-plot", "--color", "never",
                "a b c d", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "measured var(Q) = 1.000, var(K) = 1.000 (X.npy, W_Q.npy, W_K.npy loaded: near 1 only for "
                       "X ~ N(0, 1) and W ~ N(0, 1/d_model), as attnviz draws them)\n"))
        fail_msg("W = H_8/sqrt(8): no var(Q) = 1.000 line that says when 1 holds in\n%s", r.out);
    assert_null(strstr(r.out, "does not hold"));
    assert_null(strstr(r.out, "is not expected"));
    tu_free(&r);
    snprintf(path, sizeof path, "%s/X.npy", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/W_Q.npy", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/W_K.npy", dir);
    unlink(path);
    /* a --dump of a run that loaded X.npy alone, read back: its X is still the file's (W_Q, W_K drawn), as its
     * source.txt says, where the trace said nothing of it; a dump of wholly random weights keeps the PE line */
    char xonly[4300], dumped[4300], drawn[4300];
    snprintf(xonly, sizeof xonly, "%s/xonly", dir);
    snprintf(dumped, sizeof dumped, "%s/dumped", dir);
    snprintf(drawn, sizeof drawn, "%s/drawn", dir);
    assert_int_equal(mkdir(xonly, 0755), 0);
    snprintf(path, sizeof path, "%s/X.npy", xonly);
    assert_int_equal(av_npy_write(path, x, 2, xshape, &err), AV_OK);
    run_attnviz(&r, NULL, "-q", "-d", "8", "--weights", xonly, "--dump", dumped, "--no-plot", "a b c d", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    run_attnviz(&r, NULL, "-d", "8", "--weights", dumped, "--no-plot", "--color", "never", "a b c d", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, " (X.npy loaded: near 1 only for X ~ N(0, 1) and W ~ N(0, 1/d_model), as attnviz draws "
                       "them)\n"))
        fail_msg("a dump of X.npy loaded, read back: no \"(X.npy loaded: ...)\" in\n%s", r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "-d", "8", "--dump", drawn, "--no-plot", "a b c d", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    run_attnviz(&r, NULL, "-d", "8", "--weights", drawn, "--no-plot", "--color", "never", "a b c d", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, " (of X + PE, so not exactly 1)\n"));
    assert_null(strstr(r.out, "is not expected"));
    tu_free(&r);
    rm_rf(dir);
}

static void test_same_command_same_numbers(void **state) {
    (void)state;
    tu_result a, b, c;
    run_attnviz(&a, NULL, "--heads", "2", "--no-plot", "-v", "--color", "never", "我爱深度学习", NULL);
    run_attnviz(&b, NULL, "--heads", "2", "--no-plot", "-v", "--color", "never", "我爱深度学习", NULL);
    run_attnviz(&c, NULL, "--heads", "2", "--no-plot", "-v", "--color", "never", "--seed", "7", "我爱深度学习", NULL);
    assert_int_equal(a.code, 0);
    assert_string_equal(a.out, b.out);
    assert_string_not_equal(a.out, c.out);
    tu_free(&a);
    tu_free(&b);
    tu_free(&c);
}

static void test_sentence_from_file_and_stdin(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/s.txt", dir);
    FILE *f = fopen(path, "w");
    fputs("我爱深度学习\n", f);
    fclose(f);
    tu_result r;
    run_attnviz(&r, NULL, "-f", path, "--no-plot", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "[我] [爱] [深] [度] [学] [习]"));
    tu_free(&r);
    run_attnviz(&r, "I love you\n", "-f", "-", "--no-plot", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "[I] [love] [you]"));
    tu_free(&r);
    rm_rf(dir);
}

/* A 2-D .npy at path: descr, fortran_order as given, then bytes of data (already in that order), with np.save's
 * header padding (a 64-byte boundary). */
static void write_npy_2d(const char *path, const char *descr, int fortran, int rows, int cols, const void *data,
                         size_t len) {
    char dict[128];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': (%d, %d), }", descr,
                     fortran ? "True" : "False", rows, cols);
    while ((10 + n + 1) % 64) dict[n++] = ' ';
    dict[n++] = '\n';
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(n & 0xff, f);
    fputc(n >> 8, f);
    fwrite(dict, 1, (size_t)n, f);
    fwrite(data, 1, len, f);
    fclose(f);
}

/* A (T, T) bool .npy at path, True = masked, from T*T bytes of 0/1. */
static void write_bool_mask(const char *path, const unsigned char *m, int T) {
    write_npy_2d(path, "|b1", 0, T, T, m, (size_t)T * T);
}

/* -v prints the first heads' scores S; "(masked entries shown as -inf)" stood there with no mask at all (a
 * teacher's pass). It is said only when something is masked, and with what -inf stands for. */
static void test_verbose_scores_name_masked_entries_only_with_a_mask(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "-v", "--no-plot", "--color", "never", "-d", "8", "a b", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "      S[head 0] =\n"));
    assert_null(strstr(r.out, "masked entries"));
    tu_free(&r);
    run_attnviz(&r, NULL, "-v", "--no-plot", "--color", "never", "-d", "8", "--causal", "a b", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "      S[head 0] (masked entries shown as -inf, as numpy prints −∞) =\n"));
    tu_free(&r);
}

/* -v printed Q[head h] but not K or V, so a learner following the shapes to S = Q·Kᵀ and O = A·V never saw the
 * matrices they are made of. With --weights holding X = [[1 2 3 4] [5 6 7 8]], W_K = 2·I and W_V the reversal
 * of the columns, --positions none and 2 heads, by hand: K = 2X, whose head 0 takes columns 0..1 and head 1
 * columns 2..3, and V = X with its columns reversed. */
static void test_verbose_prints_k_and_v_of_each_head(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    char path[4400];
    av_err err;
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, wk[16] = {0}, wv[16] = {0};
    for (int i = 0; i < 4; i++) wk[i * 4 + i] = 2, wv[i * 4 + 3 - i] = 1;
    size_t sx[2] = {2, 4}, sw[2] = {4, 4};
    snprintf(path, sizeof path, "%s/X.npy", dir);
    assert_int_equal(av_npy_write(path, x, 2, sx, &err), AV_OK);
    snprintf(path, sizeof path, "%s/W_K.npy", dir);
    assert_int_equal(av_npy_write(path, wk, 2, sw, &err), AV_OK);
    snprintf(path, sizeof path, "%s/W_V.npy", dir);
    assert_int_equal(av_npy_write(path, wv, 2, sw, &err), AV_OK);
    tu_result r;
    run_attnviz(&r, NULL, "-v", "--no-plot", "--color", "never", "-d", "4", "-H", "2", "--positions", "none",
                "--weights", dir, "a b", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    const char *want[] = {
        "      K[head 0] =\n      [[  2.0000   4.0000]\n       [ 10.0000  12.0000]]\n",
        "      K[head 1] =\n      [[  6.0000   8.0000]\n       [ 14.0000  16.0000]]\n",
        "      V[head 0] =\n      [[  4.0000   3.0000]\n       [  8.0000   7.0000]]\n",
        "      V[head 1] =\n      [[  2.0000   1.0000]\n       [  6.0000   5.0000]]\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(r.out, want[i])) fail_msg("case %zu: no\n%s\nin\n%s", i, want[i], r.out);
    /* in the split-heads step, before the scores that use them */
    assert_true(strstr(r.out, "[5] split heads") < strstr(r.out, "K[head 0]"));
    assert_true(strstr(r.out, "V[head 1]") < strstr(r.out, "[6] scores"));
    tu_free(&r);
    rm_rf(dir);
}

/* -v --precision 0 printed a row of weights whose largest rounds to 0 as all zeros, right under "every unmasked row
 * sums to 1": with X = 0 (--weights), --positions none and a causal mask every visible score is 0, so by hand the
 * weights are row i: 1/(i+1) on keys 0..i, 0 after; the base binary printed [[1 0 0] [0 0 0] [0 0 0]]. The matrix
 * now takes the fewest digits that keep each row's largest off 0 (1 here: 0.5 and 1/3 print as 0.5 and 0.3). */
static void test_verbose_weights_row_never_prints_as_all_zeros(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    char path[4400];
    av_err err;
    float x[12] = {0};
    size_t sx[2] = {3, 4};
    snprintf(path, sizeof path, "%s/X.npy", dir);
    assert_int_equal(av_npy_write(path, x, 2, sx, &err), AV_OK);
    tu_result r;
    run_attnviz(&r, NULL, "-v", "--no-plot", "--color", "never", "-d", "4", "--positions", "none", "--causal",
                "--precision", "0", "--weights", dir, "a b c", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    const char *want = "      A[head 0] =\n"
                       "      [[  1.0   0.0   0.0]\n"
                       "       [  0.5   0.5   0.0]\n"
                       "       [  0.3   0.3   0.3]]\n";
    if (!strstr(r.out, want)) fail_msg("no\n%s\nin\n%s", want, r.out);
    tu_free(&r);
    /* the default precision is unchanged: 4 digits show any weight row's largest (at least 1/T) */
    run_attnviz(&r, NULL, "-v", "--no-plot", "--color", "never", "-d", "4", "--positions", "none", "--causal",
                "--weights", dir, "a b c", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "       [  0.3333   0.3333   0.3333]]\n"));
    tu_free(&r);
    rm_rf(dir);
}

/* --explain's softmax table printed a weight that is not 0 as 0.000000 beside the line that gives it: with --weights
 * X = [[5 0] [0 0]], W_Q = W_K = W_V = I, --positions none and --no-scale, row 0 of S is [25 0] by hand, so
 * exp(S − max) = [1 e^-25] and A = [1 e^-25]/(1 + e^-25), with e^-25 = 1.388794e-11 (Python's math.exp(-25)
 * = 1.3887943864964021e-11); the base binary's table read "0.000000" for both. The table is now in scientific
 * notation, all its numbers alike, as numpy's default prints an array whose smallest nonzero value is below 1e-4. */
static void test_explain_table_never_prints_a_nonzero_weight_as_zero(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    char path[4400];
    av_err err;
    float x[4] = {5, 0, 0, 0}, eye[4] = {1, 0, 0, 1};
    size_t s2[2] = {2, 2};
    const char *files[] = {"X", "W_Q", "W_K", "W_V"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s.npy", dir, files[i]);
        assert_int_equal(av_npy_write(path, i ? eye : x, 2, s2, &err), AV_OK);
    }
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--color", "never", "-d", "2", "--positions", "none", "--no-scale",
                "--weights", dir, "--explain", "0,1", "a b", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    const char *want[] = {
        "      0    a              2.500000e+01   0.000000e+00   1.000000e+00   1.000000e+00\n",
        "    → 1    b              0.000000e+00  -2.500000e+01   1.388794e-11   1.388794e-11\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(r.out, want[i])) fail_msg("case %zu: no\n%s\nin\n%s", i, want[i], r.out);
    tu_free(&r);
    /* with X = [[1 0] [0 0]] the weights are 1/(1 + e^-1) = 0.731059 and e^-1/(1 + e^-1) = 0.268941: fixed point */
    x[0] = 1;
    snprintf(path, sizeof path, "%s/X.npy", dir);
    assert_int_equal(av_npy_write(path, x, 2, s2, &err), AV_OK);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--color", "never", "-d", "2", "--positions", "none", "--no-scale",
                "--weights", dir, "--explain", "0,1", "a b", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "    → 1    b                 0.000000     -1.000000      0.367879      0.268941\n"))
        fail_msg("%s", r.out);
    tu_free(&r);
    rm_rf(dir);
}

/* After "--" every word is text, as getopt reads it, so "-- '-1 is negative' --show" drew "- - show" as tokens
 * and printed no table, exit 0 (a teacher's pass; attnviz's own advice for a text that starts with '-' is
 * "attnviz -- TEXT"). A word there that names a long option gets a note; a text without one gets none. */
static void test_option_after_dashes_is_noted(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-q", "--", "-1 is negative", "--show", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.err, "attnviz: note: '--show' comes after '--', so it is read as words of the text, not as "
                               "an option; put options before '--'\n");
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-q", "--", "-1 is negative", "--not-an-option", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.err, "");
    tu_free(&r);
    /* a start of one option's name, as getopt_long takes it before "--" ("--sh" is --show); "--h" starts
     * several (--heads, --head, --html, --help ...) and is no option there either */
    run_attnviz(&r, NULL, "--no-plot", "-q", "--", "a", "--sh", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.err, "attnviz: note: '--sh' comes after '--', so it is read as words of the text, not as "
                               "an option; put options before '--'\n");
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-q", "--", "a", "--h", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.err, "");
    tu_free(&r);
}

/* An option typed inside the sentence's quotes, "我爱你 --causal", is words of the text: it ran without the
 * mask, with "- - causal" as tokens, and said nothing (a learner's pass). A note names it; a word that is
 * no option's name gets none, nor does a plain run. */
static void test_option_inside_quotes_is_noted(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-q", "我爱你 --causal", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.err, "attnviz: note: the text '我爱你 --causal' holds '--causal', read as words of the "
                               "text, not as an option (the quotes made one word of it); to use the option, put it "
                               "outside the quotes\n");
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-q", "x --not-an-option", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.err, "");
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-q", "--explain", "love,you", "I love you", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.err, "");
    tu_free(&r);
}

/* A big-endian float mask: npy.c's "save it little-endian, a.astype('<f4')" advice for a float array was
 * followed by "the mask must be a bool" in the same message, and one who followed the first hit the second
 * error (a reviewer's pass). A mask is told only to be bool, which has no byte order. */
static void test_big_endian_mask_is_told_bool_only(void **state) {
    tu_fixture *f = *state;
    char dict[128];
    int n = snprintf(dict, sizeof dict, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }");
    while ((10 + n + 1) % 64) dict[n++] = ' ';
    dict[n++] = '\n';
    FILE *fp = fopen(tu_in(f, "be.npy"), "wb");
    assert_non_null(fp);
    fwrite("\x93NUMPY\x01\x00", 1, 8, fp);
    fputc(n & 0xff, fp);
    fputc(n >> 8, fp);
    fwrite(dict, 1, (size_t)n, fp);
    static const unsigned char zeros[16] = {0};
    fwrite(zeros, 1, sizeof zeros, fp);
    fclose(fp);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--attn-mask", tu_in(f, "be.npy"), "a b", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "dtype '>f4' is not supported"));
    assert_non_null(strstr(r.err, "the mask must be a bool (2, 2) array, True = masked"));
    assert_null(strstr(r.err, "little-endian"));
    tu_free(&r);
}


/* np.save("W_Q.npy", w.T), the natural way to save an nn.Linear weight in attnviz's layout, writes
 * 'fortran_order': True, and `attnviz --weights DIR` (and --attn-mask) exited 2 with "W_Q.npy: fortran_order True
 * is not supported" where np.load reads the file as the same array (a maintainer's list of known faults). Such a
 * file is read as np.load reads it: the run equals the one on the same array saved in C order, byte for byte. */
static void test_fortran_order_npy_is_read_as_numpy_reads_it(void **state) {
    tu_fixture *f = *state;
    float w[8][8], wcol[64]; /* w[r][c] = r - c / 8 (not symmetric); wcol: column by column, as numpy writes w.T */
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) w[r][c] = (float)r - (float)c / 8.0f;
    for (int c = 0, k = 0; c < 8; c++)
        for (int r = 0; r < 8; r++) wcol[k++] = w[r][c];
    /* a mask that hides key 2 from query 0 and key 0 from query 1: [[0,0,1],[1,0,0],[0,0,0]] */
    unsigned char m[9] = {0, 0, 1, 1, 0, 0, 0, 0, 0}, mcol[9];
    for (int c = 0, k = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) mcol[k++] = m[r * 3 + c];
    assert_int_equal(mkdir(tu_in(f, "c"), 0755), 0);
    assert_int_equal(mkdir(tu_in(f, "fo"), 0755), 0);
    write_npy_2d(tu_in(f, "c/W_Q.npy"), "<f4", 0, 8, 8, w, sizeof w);
    write_npy_2d(tu_in(f, "fo/W_Q.npy"), "<f4", 1, 8, 8, wcol, sizeof wcol);
    write_npy_2d(tu_in(f, "c.npy"), "|b1", 0, 3, 3, m, sizeof m);
    write_npy_2d(tu_in(f, "fo.npy"), "|b1", 1, 3, 3, mcol, sizeof mcol);
    const char *dirs[] = {"c", "fo"};
    for (int k = 0; k < 2; k++) {
        char wdir[16], mask[16], out[16];
        snprintf(wdir, sizeof wdir, "%s", dirs[k]);
        snprintf(mask, sizeof mask, "%s.npy", dirs[k]);
        snprintf(out, sizeof out, "out_%s", dirs[k]);
        tu_result r;
        run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "-H", "2", "--weights", tu_in(f, wdir), "--attn-mask",
                    tu_in(f, mask), "--dump", tu_in(f, out), "a b c", NULL);
        if (r.code != 0) fail_msg("%s: exit %d: %s", dirs[k], r.code, r.err);
        tu_free(&r);
    }
    const char *files[] = {"W_Q.npy", "Q.npy", "mask.npy", "weights.npy", "output.npy"};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        char pc[64], pf[64];
        snprintf(pc, sizeof pc, "out_c/%s", files[k]);
        snprintf(pf, sizeof pf, "out_fo/%s", files[k]);
        size_t lc = 0, lf = 0;
        char *a = tu_slurp_file(tu_in(f, pc), &lc), *b = tu_slurp_file(tu_in(f, pf), &lf);
        assert_non_null(a);
        assert_non_null(b);
        if (lc != lf || memcmp(a, b, lc) != 0) fail_msg("%s differs between the C- and Fortran-order inputs", files[k]);
        free(a);
        free(b);
    }
    /* and the dumped W_Q is w itself, in C order (attnviz writes C order) */
    size_t len = 0;
    char *d = tu_slurp_file(tu_in(f, "out_fo/W_Q.npy"), &len);
    assert_non_null(d);
    assert_int_equal(len, 128 + sizeof w);
    assert_memory_equal(d + 128, w, sizeof w);
    free(d);
}

/* A missing --attn-mask file is named alone: "the mask must be a bool ... mask == 0" followed "No such file or
 * directory", advice about what a file holds for a file that is not there (a reviewer's pass). */
static void test_missing_mask_file_gets_no_mask_advice(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--attn-mask", tu_in(f, "none.npy"), "a b", NULL);
    assert_int_equal(r.code, 2);
    char want[4400];
    snprintf(want, sizeof want, "attnviz: error: --attn-mask: cannot read %s: No such file or directory\n",
             tu_sh_word(tu_in(f, "none.npy")));
    assert_string_equal(r.err, want);
    tu_free(&r);
}

/* A missing or unreadable -f file is named with its option, as --attn-mask's and --weights' are: it said
 * "cannot read 'nonexist': No such file or directory" alone (a tester's report); a folder, likewise. */
static void test_missing_text_file_names_f(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    char want[4400];
    run_attnviz(&r, NULL, "-q", "--no-plot", "-f", tu_in(f, "none.txt"), NULL);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "attnviz: error: -f: cannot read %s: No such file or directory\n",
             tu_sh_word(tu_in(f, "none.txt")));
    assert_string_equal(r.err, want);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-f", f->dir, NULL);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "attnviz: error: -f: cannot read %s: Is a directory\n", tu_sh_word(f->dir));
    assert_string_equal(r.err, want);
    tu_free(&r);
    /* the limit is -f's too; the text read from standard input as a lone "-" was typed without -f, and was told
     * "-f: cannot read 'standard input'" (a tester's pass) */
    size_t big = (1u << 20) + 10;
    char *text = malloc(big + 1);
    assert_non_null(text);
    memset(text, 'a', big);
    text[big] = 0;
    run_attnviz(&r, text, "-q", "--no-plot", "-f", "-", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "attnviz: error: -f: standard input is larger than the 1048576-byte limit; give a part"));
    tu_free(&r);
    run_attnviz(&r, text, "-q", "--no-plot", "-", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "attnviz: error: standard input is larger than the 1048576-byte limit; give a part"));
    tu_free(&r);
    free(text);
}

/* Standard input that is a folder is the wrong input, exit 2, as -f DIR and -f /dev/stdin < DIR are (the
 * README's "Errors and exit codes": a path that is the wrong kind is exit 2): `attnviz -f - < DIR` exited 1
 * with "-f: cannot read 'standard input': Is a directory", quoting "standard input" as if it were a file's
 * name, and --attn-mask - < DIR likewise, with no --attn-mask in it. Run through sh, whose < opens the folder read-only as the shell of a user does. */
static void test_stdin_that_is_a_folder_is_exit_2(void **state) {
    tu_fixture *f = *state;
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"-f -", "attnviz: error: -f: cannot read standard input: Is a directory\n"},
        {"-", "attnviz: error: cannot read standard input: Is a directory\n"},
        {"--attn-mask - word", "attnviz: error: --attn-mask: cannot read standard input: Is a directory\n"},
        {"-f /dev/stdin", NULL}, /* the named path: exit 2 before and after */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[8400], out[4096];
        snprintf(cmd, sizeof cmd, "%s -q --no-plot %s < %s 2>&1", tu_sh_word(tu_bin()), cases[i].args,
                 tu_sh_word(f->dir));
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = 0;
        int st = pclose(p);
        assert_true(WIFEXITED(st));
        if (WEXITSTATUS(st) != 2) fail_msg("%s < DIR: exit %d: %s", cases[i].args, WEXITSTATUS(st), out);
        if (cases[i].want) assert_string_equal(out, cases[i].want);
        else assert_non_null(strstr(out, ": Is a directory\n"));
    }
}

/* A "1 = keep" mask (the tutorials' masked_fill(mask == 0, -1e9), np.tril(np.ones((T, T)))) given to
 * --attn-mask, where True = masked: it hides each query's own token and those before, the keys the
 * learner meant to keep, and was taken without a word (a learner's pass). Every diagonal entry True
 * gets a note saying to save mask == 0; a causal mask saved right (np.triu(ones, 1), diagonal False)
 * gets none. By hand for T = 3: tril = 1 0 0 / 1 1 0 / 1 1 1, triu(·, 1) = 0 1 1 / 0 0 1 / 0 0 0. */
static void test_attn_mask_that_means_keep_is_noted(void **state) {
    tu_fixture *f = *state;
    static const unsigned char keep[9] = {1, 0, 0, 1, 1, 0, 1, 1, 1}, causal[9] = {0, 1, 1, 0, 0, 1, 0, 0, 0};
    char path[4200];
    snprintf(path, sizeof path, "%s", tu_in(f, "keep.npy"));
    write_bool_mask(path, keep, 3);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--attn-mask", path, "a b c", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    char want[4600];
    snprintf(want, sizeof want, "attnviz: note: --attn-mask %s masks every token from itself (its diagonal is all "
             "True, and True = masked); if 1 means keep in your code, as in masked_fill(mask == 0, -1e9), save the "
             "opposite: np.save(path, mask == 0)\n", tu_sh_word(path));
    assert_string_equal(r.err, want);
    tu_free(&r);
    snprintf(path, sizeof path, "%s", tu_in(f, "causal.npy"));
    write_bool_mask(path, causal, 3);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--attn-mask", path, "a b c", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.err, "");
    tu_free(&r);
}

/* --kernel: the trace names the kernel; flash teaches the online softmax on
 * one row with real numbers and checks it against the plain softmax; flash
 * cannot give weights; auto picks reference for short inputs. Each kernel's
 * output.npy agrees with the reference within 1e-5. */
static void test_kernel_option(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--kernel", "flash", "--no-plot", "--heads", "2", "--color", "never",
                "I love deep learning and I love attention", NULL);
    assert_int_equal(r.code, 0);
    const char *want[] = {"kernel     flash", "worked example: head 0, query row 7, keys in tiles of 2",
                          "m_old \xE2\x86\x92 m_new", "0 (first visible)", "the plain softmax (all 8 keys as one tile",
                          "no (T, T) kept"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!strstr(r.out, want[i])) print_message("missing: %s\n", want[i]);
        assert_non_null(strstr(r.out, want[i]));
    }
    /* the worked example's difference is printed and small */
    const char *d = strstr(r.out, "max |difference| = ");
    assert_non_null(d);
    assert_true(strtod(d + strlen("max |difference| = "), NULL) < 1e-6);
    tu_free(&r);
    /* a tile with no visible key (row 7 of 10 under the causal mask, padded: tiles of (10 + 3) / 4 = 3, the
     * 4th holds key 9 only, masked) has tile max −∞ as the trace writes it everywhere else ("-inf" stood there:
     * a teacher's report), in its column: right-aligned under "tile max", "seen" right-aligned over its counts */
    run_attnviz(&r, NULL, "--kernel", "flash", "--no-plot", "--causal", "--pad-to", "10", "--color", "never",
                "a b c d e f g h", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "                      4  9..9             0         \xE2\x88\x92\xE2\x88\x9E   0.7582 \xE2\x86\x92 ") ||
        strstr(r.out, "-inf"))
        fail_msg("the empty tile:\n%s", r.out);
    tu_free(&r);
    /* --attn-mask hiding every key of the last query: the worked example walked that row, "(nothing visible
     * yet)" in every tile (a tester's report); it takes the last row that sees a key */
    {
        char *md = make_tmpdir(), path[4200];
        snprintf(path, sizeof path, "%s/m.npy", md);
        static const unsigned char last_blind[9] = {0, 1, 1, 0, 0, 1, 1, 1, 1};
        write_bool_mask(path, last_blind, 3);
        run_attnviz(&r, NULL, "--kernel", "flash", "--no-plot", "--color", "never", "--attn-mask", path, "a b c", NULL);
        assert_int_equal(r.code, 0);
        if (!strstr(r.out, "worked example: head 0, query row 1, keys in tiles of 1") ||
            !strstr(r.out, "0 (first visible)"))
            fail_msg("the worked example on a row that sees no key:\n%s", r.out);
        tu_free(&r);
        rm_rf(md);
    }
    run_attnviz(&r, NULL, "--kernel", "flash", "I love deep learning", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--kernel flash keeps no (T, T) attention weights, so it cannot give figures; add "
                                  "--no-plot, or use --kernel blas\n"));
    tu_free(&r);
    /* with --no-plot given, the conflict is --dump's (T, T) weights: the message names it and not --no-plot */
    char *dump = make_tmpdir();
    run_attnviz(&r, NULL, "--kernel", "flash", "--no-plot", "--dump", dump, "I love deep learning", NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: --kernel flash keeps no (T, T) attention weights, so it cannot give "
                               "--dump; drop --dump, or use --kernel blas\n");
    tu_free(&r);
    run_attnviz(&r, NULL, "--kernel", "flash", "--dump", dump, "--show", "I love deep learning", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "cannot give figures, --dump or --show; add --no-plot and drop --dump and --show, or "
                                  "use --kernel blas\n"));
    tu_free(&r);
    rm_rf(dump);
    run_attnviz(&r, NULL, "--kernel", "fast", "hi", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "auto"));
    assert_non_null(strstr(r.err, "flash"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "hi", NULL); /* auto, 1 token: the reference loops */
    assert_non_null(strstr(r.out, "kernel     reference (auto: T = 1 ≤ 64): "));
    tu_free(&r);
    /* auto says why it chose (cli.c's rule: reference up to 64 tokens, then blas where something needs the
     * weights, else flash): 100 tokens gave "kernel flash" with --no-plot and "kernel blas" with --dump, and
     * no word why (the last note's list); a kernel the user named gets no "auto" */
    char words[400] = "";
    for (int i = 0; i < 100; i++) strcat(words, "w ");
    char *dump100 = make_tmpdir();
    struct { const char *opt, *arg, *says; } why[] = {
        {"--no-plot", NULL, "kernel     flash (auto: T = 100 > 64, and nothing asked needs the attention weights): "},
        {"--dump", dump100, "kernel     blas (auto: T = 100 > 64, and --dump needs the attention weights): "},
        {"--kernel", "blas", "kernel     blas: projections"},
    };
    for (size_t i = 0; i < sizeof why / sizeof why[0]; i++) {
        if (why[i].arg) run_attnviz(&r, NULL, "--no-plot", why[i].opt, why[i].arg, words, NULL);
        else run_attnviz(&r, NULL, why[i].opt, words, NULL);
        assert_int_equal(r.code, 0);
        if (!strstr(r.out, why[i].says)) fail_msg("%s: no '%s' in the trace", why[i].opt, why[i].says);
        tu_free(&r);
    }
    rm_rf(dump100);
    /* reference and blas outputs agree (flash keeps no dump: tests/test_kernels.c compares it) */
    const char *kern[2] = {"reference", "blas"};
    float *out[2] = {0};
    size_t n = 0;
    for (int k = 0; k < 2; k++) {
        char *dir = make_tmpdir(), path[4200];
        run_attnviz(&r, NULL, "--kernel", kern[k], "--no-plot", "--heads", "4", "--causal", "--d-model", "64", "-q",
                    "--dump", dir, "the cat sat on the mat because it was warm", NULL);
        assert_int_equal(r.code, 0);
        tu_free(&r);
        snprintf(path, sizeof path, "%s/output.npy", dir);
        av_npy x;
        av_err err;
        assert_int_equal(av_npy_read(&x, path, &err), AV_OK);
        n = x.shape[0] * x.shape[1];
        out[k] = malloc(n * sizeof(float));
        memcpy(out[k], x.data, n * sizeof(float));
        av_npy_free(&x);
        rm_rf(dir);
    }
    for (size_t i = 0; i < n; i++) assert_true(fabsf(out[1][i] - out[0][i]) <= 1e-5f);
    free(out[0]);
    free(out[1]);
}

/* --figures pe draws the (T, d_model) encoding and no weights: `--figures pe -f` a 36,000-token text was
 * refused with "need 9.7 GiB for the (heads, T, T) scores and weights ...; add --no-plot" (which drops the
 * figure asked for), and `--kernel flash --figures pe` with "cannot give figures" (a long-input learner's
 * pass). auto now runs flash for a pe-only run past 64 tokens, and flash draws it; the figures that draw
 * the weights or the mask still need them. */
static void test_pe_figure_needs_no_weights(void **state) {
    (void)state;
    tu_result r;
    char words[400] = "";
    for (int i = 0; i < 100; i++) strcat(words, "w ");
    const char *kernel[] = {NULL, "flash"};
    for (int k = 0; k < 2; k++) {
        char *out = make_tmpdir(), path[4200];
        if (kernel[k]) run_attnviz(&r, NULL, "--kernel", kernel[k], "--figures", "pe", "-o", out, words, NULL);
        else run_attnviz(&r, NULL, "--figures", "pe", "-o", out, words, NULL);
        if (r.code != 0) fail_msg("--kernel %s --figures pe: exit %d: %s", kernel[k] ? kernel[k] : "auto", r.code, r.err);
        const char *says = kernel[k] ? "kernel     flash: keys in tiles"
                                     : "kernel     flash (auto: T = 100 > 64, and nothing asked needs the attention weights): ";
        if (!strstr(r.out, says)) fail_msg("no '%s' in the trace:\n%.600s", says, r.out);
        snprintf(path, sizeof path, "%s/pe.png", out);
        assert_true(file_exists(path));
        tu_free(&r);
        rm_rf(out);
    }
    /* the mask figure draws the (T, T) mask the flash kernel never forms; the way out keeps the pe figure, which
     * it draws (the loop above): "add --no-plot" alone dropped it too. With --positions none no pe is drawn. */
    run_attnviz(&r, NULL, "--kernel", "flash", "--figures", "pe,mask", words, NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "cannot give figures other than pe; give --figures pe or add --no-plot, or use "
                                  "--kernel blas\n"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--kernel", "flash", "--positions", "none", "--figures", "pe,mask", words, NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "cannot give figures; add --no-plot, or use --kernel blas\n"));
    tu_free(&r);
    /* the same way out past the weights' 2 GiB: 2·8·5793²·4 = 2,147,766,336 bytes = 2.0003 GiB > 2^31 (by hand) */
    enum { N = 5793 };
    char *many = malloc(2 * N);
    assert_non_null(many);
    for (int i = 0; i < N; i++) many[2 * i] = 'w', many[2 * i + 1] = i + 1 < N ? ' ' : '\0';
    run_attnviz(&r, NULL, "--d-model", "8", "--heads", "8", "-q", "--figures", "pe,heads", many, NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "5793 tokens with 8 heads need 2.0003 GiB for the (heads, T, T) scores and weights, "
                                  "more than the 2 GiB allowed; give --figures pe or add --no-plot to run the flash "
                                  "kernel, which keeps none, or give at most 5792 tokens at 8 heads\n"));
    tu_free(&r);
    free(many);
}

/* --vmax and --pool: values and names checked where they are parsed. */
static void test_vmax_and_pool_options(void **state) {
    (void)state;
    av_options o;
    av_err err = {{0}};
    assert_int_equal(parse(&o, &err, (const char *[]){"--vmax", "0.05", "--pool", "mean", "--log-scale", "hi", NULL}),
                     AV_OK);
    assert_int_equal(o.vmax_mode, AV_VMAX_VALUE);
    assert_true(o.vmax == 0.05);
    assert_int_equal(o.pool, AV_POOL_MEAN);
    assert_int_equal(o.log_scale, 1);
    av_options_free(&o);
    assert_int_equal(parse(&o, &err, (const char *[]){"--vmax", "auto", "hi", NULL}), AV_OK);
    assert_int_equal(o.vmax_mode, AV_VMAX_AUTO);
    av_options_free(&o);
    expect_usage((const char *[]){"--vmax", "2", "hi", NULL}, "--vmax 2 is outside the allowed range (0, 1]");
    expect_usage((const char *[]){"--vmax", "loud", "hi", NULL}, "allowed: auto, fixed, or a number in (0, 1]");
    expect_usage((const char *[]){"--pool", "median", "hi", NULL}, "median");
}

/* -q silences the trace, never what was asked for (issue 10). */
static void test_quiet_silences_only_the_trace(void **state) {
    (void)state;
    tu_result r;
    const char *S = "I love deep learning";
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", S, NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.out, ""); /* the trace is what -q silences */
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--show", "--color", "never", S, NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "head 0 of 1: attention weights"));
    assert_null(strstr(r.out, "[1] tokenize"));
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--explain", "love,deep", "--color", "never", S, NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "--explain: head 0, query 1 \"love\" \xE2\x86\x92 key 2 \"deep\""));
    assert_null(strstr(r.out, "[1] tokenize"));
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--compare", "scale", "--color", "never", S, NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "--compare scale"));
    assert_non_null(strstr(r.out, "mean max weight"));
    tu_free(&r);
}

/* A control character in a path reaches the terminal as <U+XXXX>, as one in
 * an option's value does (test_control_characters_in_title_and_prefix): an
 * -o, --model, --weights or --train folder holding ESC [7m turned the rest
 * of the message, the trace or the list of written files inverse, and a CR
 * in --model's folder drew the message's end over its start. Checked in the
 * error, the trace, the "wrote" list and --train's own lines, and that no
 * raw ESC or CR is printed at all (--color never). */
static void test_control_characters_in_paths_are_shown(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    char model[4200], out[4200], weights[4200], trained[4200];
    snprintf(model, sizeof model, "%s/no\rpe", f->dir);
    run_attnviz(&r, NULL, "--model", model, "hi", NULL);
    assert_int_not_equal(r.code, 0);
    assert_non_null(strstr(r.err, "/no<U+000D>pe': no such folder"));
    assert_null(strchr(r.err, '\r'));
    tu_free(&r);

    snprintf(out, sizeof out, "%s/x\x1b[7mINV", f->dir);
    run_attnviz(&r, NULL, "--heads", "2", "--color", "never", "-o", out, "--dump", out, "I love you", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "/x<U+001B>[7mINV/head0.png\n"));
    assert_null(strchr(r.out, '\x1b'));
    assert_null(strchr(r.err, '\x1b'));
    tu_free(&r);

    /* a line break in -o: the list of files wrote "  .../nl" and "x/head0.png" on two lines (a tester's pass) */
    char nl[4200];
    snprintf(nl, sizeof nl, "%s/nl\nx", f->dir);
    run_attnviz(&r, NULL, "--heads", "1", "--color", "never", "-o", nl, "I love you", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "/nl<U+000A>x/head0.png\n")) fail_msg("stdout:\n%s", r.out);
    tu_free(&r);

    snprintf(weights, sizeof weights, "%s", out); /* the dump is a --weights folder */
    run_attnviz(&r, NULL, "--heads", "2", "--color", "never", "--no-plot", "--weights", weights, "I love you",
                NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "weights loaded from "));
    assert_non_null(strstr(r.out, "/x<U+001B>[7mINV, as --dump wrote them from random")); /* the weights line */
    assert_non_null(strstr(r.out, "/x<U+001B>[7mINV/X.npy\n"));                /* the embed step */
    assert_null(strchr(r.out, '\x1b'));
    tu_free(&r);

    snprintf(trained, sizeof trained, "%s/t\x1b]0;title\x07", f->dir); /* an OSC that retitles the terminal */
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "3", "-o", trained, NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "/t<U+001B>]0;title<U+0007>: config.json"));
    assert_null(strchr(r.out, '\x1b')), assert_null(strchr(r.err, '\x1b'));
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", trained, "--no-plot", "--generate", "1", "3 1 >", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "weights    model "));
    assert_non_null(strstr(r.out, "/t<U+001B>]0;title<U+0007> (trained toy model"));
    assert_null(strchr(r.out, '\x1b')), assert_null(strchr(r.err, '\x1b'));
    tu_free(&r);
}

/* The Ctrl-C tests (this one, test_train's strace tests, test_model_cli's --generate on a terminal) send SIGINT
 * and expect attnviz's message. Run as a background job of a script (`bash -c 'test_cli &'`), a test program
 * inherited SIGINT ignored (a shell without job control ignores it in an asynchronous list), attnviz kept it
 * ignored as GNU tools do, and the seven tests failed with an empty stderr, while they passed in the
 * foreground (a tester's runs with `&`). testutil.h sets SIGINT and SIGQUIT back to default before main: this
 * test starts itself that way, with TU_REPORT_SIGNALS=1, which makes it print the two dispositions it then
 * has and end before any test. */
static void test_ctrl_c_tests_hold_in_a_background_job(void **state) {
    (void)state;
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) skip(); /* no /proc */
    self[n] = 0;
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "TU_REPORT_SIGNALS=1 /bin/sh -c '\"$0\" & wait' %s", tu_sh_word(self));
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[256] = "";
    if (!fgets(line, sizeof line, p)) line[0] = 0;
    pclose(p);
    assert_string_equal(line, "SIGINT default, SIGQUIT default\n");
}

/* A Ctrl-C while the figures are written (strace plays it at the second rename: some of the new run's
 * figures are in place, the others may still be the earlier run's) ended the run without a word, the
 * folder holding two runs' figures (a new user's report). It now says so, and ends as a Ctrl-C does
 * (SIGINT). Skipped without strace or ptrace. */
static void test_ctrl_c_while_figures_are_written_says_so(void **state) {
    tu_fixture *f = *state;
    char m[4200], err_path[4200], want[9000];
    snprintf(m, sizeof m, "%s", tu_in(f, "m"));
    snprintf(err_path, sizeof err_path, "%s", tu_in(f, "err"));
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--heads", "2", "-o", m, "I love you", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    const char *args[] = {tu_bin(), "-q", "--heads", "2", "-o", m, "we love deep learning", NULL};
    int st = tu_signal_at_rename(args, "SIGINT", 2, err_path, 0);
    if (st == -1) skip(); /* no strace, or no ptrace here */
    char *err = tu_slurp_file(err_path, NULL);
    assert_non_null(err);
    snprintf(want, sizeof want, "attnviz: interrupted while the figures were written: %s holds only some of this "
             "run's, beside any of an earlier run's there that were not yet replaced or removed; run the command "
             "again to write them all\n", tu_sh_word(m));
    if (strcmp(err, want) != 0) fail_msg("status %d, stderr '%s', want '%s'", st, err, want);
    free(err);
    /* strace ends with the signal's status: 128 + SIGINT, as a shell shows a Ctrl-C */
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGINT) && !(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT))
        fail_msg("status %d: not ended by SIGINT", st);
    /* which figures the earlier run still holds depends on the order the PNG workers finish; after the
     * advice (run again) every one is the new run's */
    run_attnviz(&r, NULL, "-q", "--heads", "2", "-o", m, "we love deep learning", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    static const char *const names[] = {"m/head0.png", "m/head1.png", "m/heads.png"};
    for (int i = 0; i < 3; i++) {
        size_t n = 0;
        char *png = tu_slurp_file(tu_in(f, names[i]), &n);
        assert_non_null(png);
        assert_non_null(memmem(png, n, "we love deep learning", 21));
        free(png);
    }
}

/* `attnviz -v ARGS -o dir | head -3` (ARGS ... up to NULL) with stdout a pipe that has no reader from the start,
 * as a reader gone after the first lines: the trace's first flush raises SIGPIPE. *st = its wait status; its
 * stderr is returned (free it). */
static char *run_into_broken_pipe(tu_fixture *f, int *st, ...) {
    const char *argv[32] = {tu_bin()};
    int n = 1;
    va_list ap;
    va_start(ap, st);
    for (const char *a; n < 31 && (a = va_arg(ap, const char *)) != NULL;) argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    char *err = tu_run_into_broken_pipe(tu_in(f, "err.txt"), argv, st);
    assert_non_null(err);
    return err;
}

/* The trace is printed before any file is written, so `attnviz -v --heads 2 -o dir "..." | head -3` (or a pager
 * quit with q) ended with exit 141 and not a word: no figure written, and a -o that held an earlier run's
 * figures kept them as if they were this run's (a learner's pass). It still ends by SIGPIPE, and now says
 * that no file was written and -o is as it was, as --train says what a closed pipe left. */
static void test_broken_pipe_during_the_trace_says_no_file_was_written(void **state) {
    tu_fixture *f = *state;
    char m[4200], want[9000];
    snprintf(m, sizeof m, "%s", tu_in(f, "m"));
    int st = 0;
    char *err = run_into_broken_pipe(f, &st, "-v", "--heads", "2", "-o", m, "we love deep learning", NULL);
    snprintf(want, sizeof want, "attnviz: standard output was closed (broken pipe) before any file was written: this "
             "run wrote none, and -o %s is as it was; run the command again, and let it finish, to write them\n", tu_sh_word(m));
    if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) || strcmp(err, want) != 0)
        fail_msg("status %d (signal %d), stderr '%s', want '%s'", st, WIFSIGNALED(st) ? WTERMSIG(st) : 0, err, want);
    free(err);
    assert_false(file_exists(m)); /* not made */
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--heads", "2", "-o", m, "I love you", NULL); /* an earlier run's figures */
    assert_int_equal(r.code, 0);
    tu_free(&r);
    err = run_into_broken_pipe(f, &st, "-v", "--heads", "2", "-o", m, "we love deep learning", NULL);
    if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) || strcmp(err, want) != 0)
        fail_msg("status %d (signal %d), stderr '%s', want '%s'", st, WIFSIGNALED(st) ? WTERMSIG(st) : 0, err, want);
    free(err);
    size_t n = 0;
    char *png = tu_slurp_file(tu_in(f, "m/head0.png"), &n);
    assert_non_null(png);
    assert_non_null(memmem(png, n, "I love you", 10)); /* still the earlier run's, as the message says */
    free(png);
    /* --no-plot writes no file: nothing to say, as before */
    err = run_into_broken_pipe(f, &st, "-v", "--no-plot", "we love", NULL);
    if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) || strcmp(err, "") != 0)
        fail_msg("status %d, stderr '%s'", st, err);
    free(err);
    /* --no-plot --dump D writes only D: "-o attnviz-out is as it was" named a folder the run does not write (a
     * tester's pass); with figures, both folders */
    char d[4200];
    snprintf(d, sizeof d, "%s", tu_in(f, "d"));
    err = run_into_broken_pipe(f, &st, "-v", "--no-plot", "--dump", d, "we love", NULL);
    snprintf(want, sizeof want, "attnviz: standard output was closed (broken pipe) before any file was written: this "
             "run wrote none, and --dump %s is as it was; run the command again, and let it finish, to write them\n", tu_sh_word(d));
    if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) || strcmp(err, want) != 0)
        fail_msg("status %d, stderr '%s', want '%s'", st, err, want);
    free(err);
    err = run_into_broken_pipe(f, &st, "-v", "-o", m, "--dump", d, "we love", NULL);
    snprintf(want, sizeof want, "attnviz: standard output was closed (broken pipe) before any file was written: this "
             "run wrote none, and -o %s and --dump %s are as they were; run the command again, and let it finish, to "
             "write them\n", tu_sh_word(m), tu_sh_word(d));
    if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) || strcmp(err, want) != 0)
        fail_msg("status %d, stderr '%s', want '%s'", st, err, want);
    free(err);
    assert_false(file_exists(d)); /* not made */
}

/* A Ctrl-C while --dump's files land (all or none: one rename, played by strace) said the figures
 * were being written and that -o held some of this run's, when not one was yet: the message was set
 * before the dump. It is now set from the first figure on, so this Ctrl-C ends as any other does,
 * without that message; the dump is whole and -o holds the earlier run's figure. Skipped without
 * strace or ptrace. */
static void test_ctrl_c_while_the_dump_lands_names_no_figures(void **state) {
    tu_fixture *f = *state;
    char m[4200], d[4200], err_path[4200];
    snprintf(m, sizeof m, "%s", tu_in(f, "m"));
    snprintf(d, sizeof d, "%s", tu_in(f, "d"));
    snprintf(err_path, sizeof err_path, "%s", tu_in(f, "err"));
    tu_result r;
    run_attnviz(&r, NULL, "-q", "-o", m, "I love you", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    const char *args[] = {tu_bin(), "-q", "-o", m, "--dump", d, "we love deep learning", NULL};
    int st = tu_signal_at_rename(args, "SIGINT", 1, err_path, 0);
    if (st == -1) skip(); /* no strace, or no ptrace here */
    char *err = tu_slurp_file(err_path, NULL);
    assert_non_null(err);
    if (strstr(err, "figures")) fail_msg("status %d, stderr '%s': no figure was written yet", st, err);
    free(err);
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGINT) && !(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT))
        fail_msg("status %d: not ended by SIGINT", st);
    char *tokens = tu_slurp_file(tu_in(f, "d/tokens.txt"), NULL); /* the dump landed whole */
    assert_non_null(tokens);
    assert_non_null(strstr(tokens, "learning"));
    free(tokens);
    size_t n = 0;
    char *png = tu_slurp_file(tu_in(f, "m/head0.png"), &n);
    assert_non_null(png);
    assert_non_null(memmem(png, n, "I love you", 10)); /* still the earlier run's */
    free(png);
}

/* --weights DIR whose X.npy was dumped for another sentence of the same length ("I love you" dumped,
 * "you love I" run) used its rows by position without a word (a new user's report): the trace says
 * "row i is token i's embedding as the file gives it", but nothing said the words differ. The
 * tokens.txt --dump writes beside X.npy now tells: a note names the first token that differs
 * (whitespace tokens, worked by hand: I love you / you love I differ at token 0; a <pad> at 2). The
 * same sentence, or a folder without tokens.txt, gets no note. */
static void test_weights_dumped_for_other_tokens_are_noted(void **state) {
    tu_fixture *f = *state;
    char d[4200], want[9000];
    snprintf(d, sizeof d, "%s", tu_in(f, "d"));
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--dump", d, "I love you", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    static const struct { const char *sentence, *pad, *note; } cases[] = {
        {"I love you", NULL, NULL},
        {"you love I", NULL, "tokens.txt beside it has 'I' as token 0, this sentence 'you'"},
        {"I love", "3", "tokens.txt beside it has 'you' as token 2, this sentence '<pad>'"},
        {"I love me", NULL, "tokens.txt beside it has 'you' as token 2, this sentence 'me'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].pad) run_attnviz(&r, NULL, "-q", "--no-plot", "--weights", d, "--pad-to", cases[i].pad,
                                      cases[i].sentence, NULL);
        else run_attnviz(&r, NULL, "-q", "--no-plot", "--weights", d, cases[i].sentence, NULL);
        assert_int_equal(r.code, 0);
        if (cases[i].note) snprintf(want, sizeof want, "attnviz: note: --weights %s: X.npy was dumped with other "
                                    "tokens (%s); row i of X is used as token i's embedding, whatever the word\n", tu_sh_word(d),
                                    cases[i].note);
        else want[0] = 0;
        if (strcmp(r.err, want)) fail_msg("'%s': stderr '%s', want '%s'", cases[i].sentence, r.err, want);
        tu_free(&r);
    }
    char tokens[4400];
    snprintf(tokens, sizeof tokens, "%s/tokens.txt", d);
    assert_int_equal(unlink(tokens), 0); /* X.npy alone: nothing to compare with */
    run_attnviz(&r, NULL, "-q", "--no-plot", "--weights", d, "you love I", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    tu_free(&r);
}

/* The figures of a --weights run whose X.npy was dumped for another sentence say so in their titles, as the
 * note on stderr does: `--dump d "I love you"`, then `-w d "you love I"` drew I's row of X under the label
 * "you", and head0.png/.svg's title said only "weights loaded from d, as --dump wrote them from random
 * weights (untrained, seed 42)": a figure put on a slide or in a paper showed the rows of one sentence
 * labelled with the words of another, without a word (a figure-maker's pass). The trace's weights line
 * says it too; the same sentence gets no such words. */
static void test_weights_dumped_for_other_tokens_are_titled(void **state) {
    tu_fixture *f = *state;
    char d[4200], o[4200], svg[4400];
    snprintf(d, sizeof d, "%s", tu_in(f, "d"));
    snprintf(o, sizeof o, "%s", tu_in(f, "o"));
    snprintf(svg, sizeof svg, "%s/head0.svg", o);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--dump", d, "I love you", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    static const char *const says = "; X came from a dump of another sentence ('I' as token 0 there, 'you' here)";
    static const struct { const char *sentence; int other; } cases[] = {{"you love I", 1}, {"I love you", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_attnviz(&r, NULL, "-q", "--format", "svg", "-o", o, "--weights", d, cases[i].sentence, NULL);
        assert_int_equal(r.code, 0);
        tu_free(&r);
        char *text = tu_slurp_file(svg, NULL);
        assert_non_null(text);
        const char *t0 = strstr(text, "<title>"), *t1 = t0 ? strstr(t0, "</title>") : NULL;
        assert_non_null(t1);
        const char *at = strstr(t0, says);
        if (cases[i].other && (!at || at > t1))
            fail_msg("'%s': head0.svg's <title> lacks \"%s\": %.*s", cases[i].sentence, says, (int)(t1 - t0), t0);
        if (!cases[i].other && strstr(text, "other tokens"))
            fail_msg("'%s': head0.svg names other tokens for the dumped sentence itself", cases[i].sentence);
        free(text);
        run_attnviz(&r, NULL, "--no-plot", "--weights", d, cases[i].sentence, NULL);
        assert_int_equal(r.code, 0);
        if (cases[i].other != (strstr(r.out, says) != NULL))
            fail_msg("'%s': the trace %s \"%s\"", cases[i].sentence, cases[i].other ? "lacks" : "has", says);
        tu_free(&r);
    }
}

/* A --dump of such a run writes the titles' words into its source.txt, beside a tokens.txt of this sentence:
 * `-w d2 --dump e "we hate shallow thinking"` (d2 a dump of "I love deep learning" without its source.txt)
 * wrote e/source.txt "weights: weights loaded from d2; X.npy was dumped with other tokens ('I' as token 0,
 * here 'we')", which read as if e's own X.npy and tokens.txt disagreed; the words now name the other
 * sentence's dump, true in e too. */
static void test_dump_of_other_tokens_run_says_so_truly(void **state) {
    tu_fixture *f = *state;
    char d[4200], e[4200], path[4400], want[4600];
    snprintf(d, sizeof d, "%s", tu_in(f, "d"));
    snprintf(e, sizeof e, "%s", tu_in(f, "e"));
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--dump", d, "I love you", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    snprintf(path, sizeof path, "%s/source.txt", d);
    assert_int_equal(unlink(path), 0); /* the user's weights: not read back as random */
    run_attnviz(&r, NULL, "-q", "--no-plot", "--weights", d, "--dump", e, "you love I", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    snprintf(path, sizeof path, "%s/source.txt", e);
    char *text = tu_slurp_file(path, NULL);
    assert_non_null(text);
    snprintf(want, sizeof want, "weights: weights loaded from %s; X came from a dump of another sentence ('I' as "
             "token 0 there, 'you' here)\n", d);
    if (strncmp(text, want, strlen(want)) != 0) fail_msg("e/source.txt starts '%.300s', not '%s'", text, want);
    free(text);
}

/* A --dump folder's tokens.txt, quoted when X.npy is used for another sentence, names each token whole up to 199
 * bytes, a longer one by its start and end with " … " between (AV_SHOWN_MIDDLE): a --dump of the 45-byte word
 * "Pneumonoultramicroscopicsilicovolcanoconiosis" run with another sentence was named
 * [Pneumonoultramicroscopicsilicovolcanocon] (AV_SHOWN(t, 89) kept 40 bytes with no mark), and the note of a
 * token that differs kept 99 bytes of a longer one, also with no mark. Expected: the whole word, as written;
 * a 302-byte token "x" + 100 长 + "y" shows its end "长y" after " … ", and the message is valid UTF-8. */
static void test_dump_tokens_named_whole_or_marked(void **state) {
    tu_fixture *f = *state;
    char d[4200], path[4400];
    snprintf(d, sizeof d, "%s", tu_in(f, "d"));
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--dump", d,
                "Pneumonoultramicroscopicsilicovolcanoconiosis is long", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-d", "8", "--weights", d, "I love deep learning", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "the 3 tokens [Pneumonoultramicroscopicsilicovolcanoconiosis] [is] [long]: run that"))
        fail_msg("the dump's long word is not named whole: %s", r.err);
    tu_free(&r);
    char tok[400] = "x";
    for (int i = 0; i < 100; i++) strcat(tok, "\xE9\x95\xBF"); /* 长 */
    strcat(tok, "y");
    snprintf(path, sizeof path, "%s/tokens.txt", d);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "%s\nis\nlong\n", tok);
    assert_int_equal(fclose(fp), 0);
    av_err uerr;
    run_attnviz(&r, NULL, "--no-plot", "-d", "8", "--weights", d, "I love deep learning", NULL);
    assert_int_equal(r.code, 2);
    assert_int_equal(av_utf8_check(r.err, strlen(r.err), &uerr), AV_OK);
    if (!strstr(r.err, "the 3 tokens [x\xE9\x95\xBF") || !strstr(r.err, "\xE9\x95\xBF \xE2\x80\xA6 \xE9\x95\xBF") ||
        !strstr(r.err, "\xE9\x95\xBFy] [is] [long]: run that"))
        fail_msg("the long token is not shown by its start, \" … \" and its end: %s", r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--weights", d, "I love you", NULL);
    assert_int_equal(r.code, 0);
    assert_int_equal(av_utf8_check(r.err, strlen(r.err), &uerr), AV_OK);
    if (!strstr(r.err, "tokens.txt beside it has 'x\xE9\x95\xBF") || !strstr(r.err, " \xE2\x80\xA6 ") ||
        !strstr(r.err, "\xE9\x95\xBFy' as token 0, this sentence 'I')"))
        fail_msg("the note does not show the long token by its start, \" … \" and its end: %s", r.err);
    tu_free(&r);
}

/* A --weights folder whose files attnviz does not read: a learner saved nn.Linear layers as "w_k.npy" or
 * "W_k.npy" beside a right "W_Q.npy", and their biases as "b_Q.npy" (a tester's pass): W_K, W_V and W_O
 * were drawn at random and the biases dropped without a word under -q, and the numbers differed from the
 * learner's. A note now names each file not read, the name it stands for, that there are no biases, and
 * which weights are random for want of their file; a folder with none of the five names them in the
 * error. A --dump folder (Q.npy, weights.npy, ... beside them) gets no note. */
static void test_weights_files_not_read_are_noted(void **state) {
    tu_fixture *f = *state;
    char d[4200], path[4400], want[9000];
    snprintf(d, sizeof d, "%s", tu_in(f, "w"));
    assert_int_equal(mkdir(d, 0755), 0);
    float w[8 * 8];
    for (int i = 0; i < 8 * 8; i++) w[i] = (float)(i % 8 == i / 8);
    size_t shape[2] = {8, 8};
    av_err err;
    static const char *const names[] = {"W_Q.npy", "w_k.npy", "Wv.npy", "W_o.npy", "b_Q.npy"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", d, names[i]);
        assert_int_equal(av_npy_write(path, w, 2, shape, &err), AV_OK);
    }
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--weights", d, "I love you", NULL);
    assert_int_equal(r.code, 0);
    snprintf(want, sizeof want, "attnviz: note: --weights %s: not read: W_o.npy (W_O.npy?), Wv.npy (W_V.npy?), "
             "b_Q.npy, w_k.npy (W_K.npy?) (attnviz reads only X.npy, W_Q.npy, W_K.npy, W_V.npy, W_O.npy, so X, "
             "W_K, W_V, W_O are random here); names are case-sensitive; attnviz has no biases (Q = X·W_Q), so a "
             "layer with one gives other numbers: build it with bias=False (nn.Linear's default is True)\n", tu_sh_word(d));
    if (strcmp(r.err, want)) fail_msg("stderr '%s', want '%s'", r.err, want);
    tu_free(&r);
    snprintf(path, sizeof path, "%s/W_Q.npy", d);
    assert_int_equal(unlink(path), 0); /* none of the five: the error names what is there */
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--weights", d, "I love you", NULL);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "attnviz: error: --weights %s holds none of X.npy, W_Q.npy, W_K.npy, W_V.npy, "
             "W_O.npy; it holds W_o.npy (W_O.npy?), Wv.npy (W_V.npy?), b_Q.npy, w_k.npy (W_K.npy?); names are "
             "case-sensitive; attnviz has no biases (Q = X·W_Q), so a layer with one gives other numbers: build it "
             "with bias=False (nn.Linear's default is True)\n", tu_sh_word(d));
    if (strcmp(r.err, want)) fail_msg("stderr '%s', want '%s'", r.err, want);
    tu_free(&r);
    /* w_k.npy beside the W_K.npy that is read: named as not read, without "(W_K.npy?)" or the case hint */
    snprintf(d, sizeof d, "%s", tu_in(f, "both"));
    assert_int_equal(mkdir(d, 0755), 0);
    static const char *const both[] = {"W_Q.npy", "W_K.npy", "W_V.npy", "W_O.npy", "w_k.npy"};
    for (size_t i = 0; i < sizeof both / sizeof both[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", d, both[i]);
        assert_int_equal(av_npy_write(path, w, 2, shape, &err), AV_OK);
    }
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--weights", d, "I love you", NULL);
    assert_int_equal(r.code, 0);
    snprintf(want, sizeof want, "attnviz: note: --weights %s: not read: w_k.npy (attnviz reads only X.npy, W_Q.npy, "
             "W_K.npy, W_V.npy, W_O.npy, so X is random here)\n", tu_sh_word(d));
    if (strcmp(r.err, want)) fail_msg("stderr '%s', want '%s'", r.err, want);
    tu_free(&r);
    /* a --dump folder read back: every file is one attnviz writes, so no note */
    snprintf(d, sizeof d, "%s", tu_in(f, "dump"));
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--dump", d, "I love you", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--weights", d, "I love you", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    tu_free(&r);
}

/* A list option takes the full-width comma '，' (U+FF0C) that Chinese input
 * methods type, like ',': --figures heads，mean writes the one head's map and
 * the mean, nothing else; --help says so. */
static void test_figures_list_takes_a_full_width_comma(void **state) {
    (void)state;
    char *dir = make_tmpdir(), path[4200];
    tu_result r;
    run_attnviz(&r, NULL, "-q", "-d", "8", "-o", dir, "--figures", "heads，mean", "I love", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    snprintf(path, sizeof path, "%s/head0.png", dir);
    assert_true(file_exists(path));
    snprintf(path, sizeof path, "%s/mean.png", dir);
    assert_true(file_exists(path));
    assert_int_equal(count_entries(dir), 2);
    tu_free(&r);
    rm_rf(dir);
    run_attnviz(&r, NULL, "--help", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "Lists (--figures LIST, --explain Q,K) are separated by ',' or the full-width\n'，' (U+FF0C)."));
    tu_free(&r);
}

/* An option typed with the dashes a Chinese input method makes of "--" ("——train", U+2014 twice; "－－heads",
 * full-width) or an editor's en dash ("–-steps") is refused with exit 2, naming the option and the dash: it
 * ran the single layer on the sentence "——train reverse" with exit 0, wrote head0.png into ./attnviz-out,
 * and `—-train reverse --steps 3` said "--steps is an option of --train". A sentence's own dashes
 * ("我爱你——真的", "——好", "—a"), and every word after '--', stay text. */
static void test_option_typed_with_lookalike_dashes(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    static const struct { const char *args[6]; const char *says; } cases[] = {
        {{"\xE2\x80\x94\xE2\x80\x94train", "reverse", "-o", NULL}, "'\xE2\x80\x94\xE2\x80\x94train' is not "
         "the option --train: it starts with U+2014 U+2014, not two ASCII hyphens '--' (a Chinese input method"},
        {{"\xE2\x80\x94-train", "reverse", "--steps", "3", "-o", NULL}, "is not the option --train: it starts "
         "with U+2014 U+002D"},
        {{"\xEF\xBC\x8D\xEF\xBC\x8Dheads=2", "I love", "-o", NULL}, "is not the option --heads: it starts "
         "with U+FF0D U+FF0D"},
        {{"-q", "\xE2\x80\x93-steps", "3", "x", "-o", NULL}, "is not the option --steps: it starts with U+2013 "
         "U+002D, not two ASCII hyphens '--' (an editor or chat app"},
        /* full-width mode types the name full-width too: "－－ｈｅａｄｓ ８ 我爱" ran as a 6-token sentence at 1
         * head, and "－－ｃａｕｓａｌ" without the mask, exit 0 */
        {{"\xEF\xBC\x8D\xEF\xBC\x8D\xEF\xBD\x88\xEF\xBD\x85\xEF\xBD\x81\xEF\xBD\x84\xEF\xBD\x93",
          "\xEF\xBC\x98", "\xE6\x88\x91\xE7\x88\xB1", "-o", NULL},
         "'\xEF\xBC\x8D\xEF\xBC\x8D\xEF\xBD\x88\xEF\xBD\x85\xEF\xBD\x81\xEF\xBD\x84\xEF\xBD\x93' is "
         "not the option --heads: it starts with U+FF0D U+FF0D, not two ASCII hyphens '--', and its name is in "
         "full-width letters (a Chinese input method types"},
        {{"\xE2\x80\x94\xE2\x80\x94\xEF\xBD\x83\xEF\xBD\x81\xEF\xBD\x95\xEF\xBD\x93\xEF\xBD\x81\xEF"
          "\xBD\x8C", "\xE6\x88\x91\xE7\x88\xB1", "-o", NULL}, "is not the option --causal: it starts with "
         "U+2014 U+2014, not two ASCII hyphens '--', and its name is in full-width letters"},
        {{"\xEF\xBC\x8D\xEF\xBC\x8Dheads\xEF\xBC\x9D\xEF\xBC\x92", "I love", "-o", NULL}, "'\xEF\xBC\x8D"
         "\xEF\xBC\x8Dheads' is not the option --heads: it starts with U+FF0D U+FF0D, not two ASCII hyphens '--' ("},
        /* one look-alike dash and a short option's letter: "－c 我爱深度学习" ran as tokens [－] [c] [我] ... without
         * the mask, "－H 2 我爱" as 5 tokens at 1 head, exit 0 */
        {{"\xEF\xBC\x8D" "c", "\xE6\x88\x91\xE7\x88\xB1", "-o", NULL}, "'\xEF\xBC\x8D" "c' is not the option "
         "-c (--causal): it starts with U+FF0D, not an ASCII hyphen '-' (a Chinese input method"},
        {{"\xEF\xBC\x8D" "H", "2", "\xE6\x88\x91\xE7\x88\xB1", "-o", NULL}, "is not the option -H (--heads): it "
         "starts with U+FF0D, not an ASCII hyphen '-' ("},
        {{"\xEF\xBC\x8D\xEF\xBD\x83", "\xE6\x88\x91\xE7\x88\xB1", "-o", NULL}, "'\xEF\xBC\x8D\xEF\xBD\x83' "
         "is not the option -c (--causal): it starts with U+FF0D, not an ASCII hyphen '-', and its letter is "
         "full-width"},
        {{"\xE2\x88\x92" "v", "x", "-o", NULL}, "is not the option -v (--verbose): it starts with U+2212, not an "
         "ASCII hyphen '-' (an editor or chat app"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *args[8];
        int n = 0;
        for (; cases[k].args[n]; n++) args[n] = cases[k].args[n];
        args[n++] = dir;
        args[n] = NULL;
        tu_result r;
        tu_runv(&r, NULL, NULL, args);
        if (r.code != 2 || !strstr(r.err, "attnviz: error: ") || !strstr(r.err, cases[k].says))
            fail_msg("case %zu: exit %d, %s", k, r.code, r.err);
        assert_string_equal(r.out, "");
        assert_int_equal(count_entries(dir), 0); /* nothing drawn */
        tu_free(&r);
    }
    static const char *const text[][6] = {
        {"-q", "--no-plot", "\xE6\x88\x91\xE7\x88\xB1\xE4\xBD\xA0\xE2\x80\x94\xE2\x80\x94\xE7\x9C\x9F", NULL},
        {"-q", "--no-plot", "\xE2\x80\x94\xE2\x80\x94\xE5\xA5\xBD", NULL},
        {"-q", "--no-plot", "\xE2\x80\x94" "a", "\xE2\x80\x94\xE2\x80\x94ste", NULL},
        {"-q", "--no-plot", "--", "\xE2\x80\x94\xE2\x80\x94train", NULL},
        {"-q", "--no-plot", "\xE2\x80\x94\xE2\x80\x94\xEF\xBD\x88\xEF\xBD\x85", NULL}, /* "——ｈｅ" */
        /* one dash and a letter that is no short option, a value attached, or after '--' */
        {"-q", "--no-plot", "\xE2\x80\x94" "I", "\xEF\xBC\x8D" "H2", "\xEF\xBC\x8D\xEF\xBD\x81", NULL},
        {"-q", "--no-plot", "--", "\xEF\xBC\x8D" "c", "\xE6\x88\x91", NULL},
    };
    for (size_t k = 0; k < sizeof text / sizeof text[0]; k++) {
        tu_result r;
        tu_runv(&r, NULL, NULL, text[k]);
        if (r.code != 0) fail_msg("text case %zu: exit %d, %s", k, r.code, r.err);
        tu_free(&r);
    }
    rm_rf(dir);
}

/* A number typed in full-width characters (a Chinese input method's full-width mode: "４", "３００",
 * "１ｅ－３") is refused as before, exit 2, but the message says so and gives the half-width form: "--heads ４"
 * said only "is not a whole number", where a trained model's note says "type the half-width '3'". An index
 * in --explain's list too: "--explain 0,１" was read as 0,1 with exit 0 (a maintainer's list of known
 * faults). A value that is no number either way gets no hint. */
static void test_full_width_number_names_the_half_width_form(void **state) {
    (void)state;
    static const struct { const char *args[8]; const char *says; } cases[] = {
        {{"-q", "--no-plot", "--heads", "\xEF\xBC\x94", "I love", NULL}, "--heads '\xEF\xBC\x94' is not a whole "
         "number (it is typed in full-width characters: type the half-width 4, \xE5\x8D\x8A\xE8\xA7\x92); "
         "allowed: 1..64"},
        {{"--train", "reverse", "--steps", "\xEF\xBC\x93\xEF\xBC\x90\xEF\xBC\x90", "-o", "/nonexistent/x",
          NULL}, "type the half-width 300, "},
        {{"--train", "reverse", "--lr", "\xEF\xBC\x91\xEF\xBD\x85\xEF\xBC\x8D\xEF\xBC\x93", "-o",
          "/nonexistent/x", NULL}, "--lr '\xEF\xBC\x91\xEF\xBD\x85\xEF\xBC\x8D\xEF\xBC\x93' is not a "
         "number (it is typed in full-width characters: type the half-width 1e-3, "},
        {{"--model", "/nonexistent/m", "--generate", "\xEF\xBC\x95", "3 1 >", NULL}, "--generate "
         "'\xEF\xBC\x95' is not a whole number (it is typed in full-width characters: type the half-width 5, "},
        {{"-q", "--no-plot", "--explain", "0,\xEF\xBC\x91", "a b c", NULL}, "--explain key '\xEF\xBC\x91' is "
         "neither a token of the sentence nor an index 0..2 (it is typed in full-width characters: type the "
         "half-width 1, \xE5\x8D\x8A\xE8\xA7\x92)"},
        {{"-q", "--no-plot", "--explain", "\xEF\xBC\x92\xEF\xBC\x8C" "0", "a b c", NULL}, "--explain query "
         "'\xEF\xBC\x92' is neither a token of the sentence nor an index 0..2 (it is typed in full-width "
         "characters: type the half-width 2, "},
        /* a full-width digit or sign among half-width ones was refused without the hint: "１0" and "-１" said only
         * "is neither a token of the sentence nor an index 0..2"; the half-width forms, by hand: 10, -1, 1, +2 */
        {{"-q", "--no-plot", "--explain", "0,\xEF\xBC\x91" "0", "a b c", NULL}, "--explain key '\xEF\xBC\x91" "0' "
         "is neither a token of the sentence nor an index 0..2 (it is typed in full-width characters, and as the "
         "half-width 10 it is outside 0..2 too: T = 3 tokens)"},
        {{"-q", "--no-plot", "--explain", "0,-\xEF\xBC\x91", "a b c", NULL}, "--explain key '-\xEF\xBC\x91' is "
         "neither a token of the sentence nor an index 0..2 (it is typed in full-width characters, and as the "
         "half-width -1 it is outside 0..2 too: T = 3 tokens)"},
        {{"-q", "--no-plot", "--explain", "0" "\xEF\xBC\x91,0", "a b c", NULL}, "--explain query '0"
         "\xEF\xBC\x91' is neither a token of the sentence nor an index 0..2 (it is typed in full-width characters: "
         "type the half-width 01, \xE5\x8D\x8A\xE8\xA7\x92)"},
        {{"-q", "--no-plot", "--explain", "0,\xEF\xBC\x8B" "2", "a b c", NULL}, "--explain key '\xEF\xBC\x8B" "2' "
         "is neither a token of the sentence nor an index 0..2 (it is typed in full-width characters: type the "
         "half-width +2, \xE5\x8D\x8A\xE8\xA7\x92)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_result r;
        tu_runv(&r, NULL, NULL, cases[k].args);
        if (r.code != 2 || !strstr(r.err, "attnviz: error: ") || !strstr(r.err, cases[k].says))
            fail_msg("case %zu: exit %d, %s", k, r.code, r.err);
        assert_string_equal(r.out, "");
        tu_free(&r);
    }
    /* no number in either width: the message is as it was */
    expect_usage((const char *[]){"--heads", "\xEF\xBC\x94x", "x", NULL}, "--heads '\xEF\xBC\x94x' is not a whole "
                 "number; allowed: 1..64");
    expect_usage((const char *[]){"--heads", "abc", "x", NULL}, "--heads 'abc' is not a whole number; allowed: 1..64");
}

/* A quoted sentence that starts with '-' is one word with white space in it, and never an option: getopt read
 * its letters, so `attnviz "-only the best" love` ran with -o "nly the best" (a folder of that name, the
 * sentence "love", exit 0), "-h is help" printed the help (exit 0), "-c love you" said "unknown option '- '"
 * and "-x love you" "unknown option '-x'" with no word of '--' (a coreutils user's pass). Each is now exit 2,
 * nothing on stdout and nothing written, with the '--' to type; the expected text is the word as the shell
 * quotes it (single quotes, as ls --quoting-style=shell-escape). A value after '=' keeps its spaces. */
static void test_word_with_space_after_dash_is_text(void **state) {
    tu_fixture *f = *state;
    static const struct { const char *word, *says; } cases[] = {
        {"-only the best", "'-only the best' is one word that starts with '-' and holds white space, so it is no "
         "option: options and their values are separate words (type them without the quotes); a sentence that "
         "starts with '-' goes after '--', as in attnviz -- '-only the best'"},
        {"-h is help", "as in attnviz -- '-h is help'"},
        {"-c love you", "'-c love you' is one word that starts with '-' and holds white space"},
        {"--heads 8", "options and their values are separate words (type them without the quotes)"},
        {"-x love you", "'-x love you' is one word that starts with '-' and holds white space, so it is no option: "
         "a sentence that starts with '-' goes after '--', as in attnviz -- '-x love you'"},
        {"--hello world", "so it is no option: a sentence that starts with '-' goes after '--', as in attnviz -- "
         "'--hello world'"},
        {"-- hello", "as in attnviz -- '-- hello'"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *args[] = {"-o", f->dir, cases[k].word, "love", NULL};
        const char *in_cwd[] = {cases[k].word, "love", NULL};
        for (int w = 0; w < 2; w++) {
            tu_result r;
            tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
            tu_run_ex(&r, &ro, NULL, 0, w ? in_cwd : args);
            if (r.code != 2 || !strstr(r.err, "attnviz: error: ") || !strstr(r.err, cases[k].says))
                fail_msg("case %zu/%d: exit %d, %s", k, w, r.code, r.err);
            assert_string_equal(r.out, "");
            assert_int_equal(count_entries(f->dir), 0); /* no figure, no "nly the best" folder */
            tu_free(&r);
        }
    }
    /* the '--' it advises runs, and "--title=I love" is an option whose value holds the space */
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--", "-only the best", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    av_options o;
    av_err err = {{0}};
    assert_int_equal(parse(&o, &err, (const char *[]){"--title=I love", "--no-plot", "x", NULL}), AV_OK);
    assert_string_equal(o.title, "I love");
    assert_string_equal(o.sentence, "x");
    av_options_free(&o);
}

/* A --prefix that starts with '.' hid every file it named: `attnviz --heads 2 --prefix . "a b"` wrote
 * .head0.png, .head1.png and .heads.png into ./attnviz-out, which `ls` lists as empty, with exit 0 and no word
 * (a figure-maker's pass). Refused now with exit 2 and nothing written, with --html too (.attnviz.html);
 * a '.' after the first byte ("v1.") names visible files as before. The messages are written by hand. */
static void test_prefix_that_hides_the_files_is_refused(void **state) {
    tu_fixture *f = *state;
    static const struct { const char *prefix, *says; } cases[] = {
        {".", "attnviz: error: --prefix '.' starts with '.', so every file it names would be hidden ('.head0.png': "
              "ls and file managers do not list it); give a name such as slide1_ (a '.' after the first character "
              "is fine, as in v1.)\n"},
        {"..", "attnviz: error: --prefix '..' starts with '.', so every file it names would be hidden "
               "('..head0.png': ls and file managers do not list it); give a name such as slide1_ (a '.' after the "
               "first character is fine, as in v1.)\n"},
        {".draft_", "attnviz: error: --prefix '.draft_' starts with '.', so every file it names would be hidden "
                    "('.draft_head0.png': ls and file managers do not list it); give a name such as slide1_ (a '.' "
                    "after the first character is fine, as in v1.)\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int html = 0; html < 2; html++) {
            const char *args[] = {"--heads", "2", "--prefix", cases[k].prefix, html ? "--html" : "-q", "a b", NULL};
            tu_result r;
            tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
            tu_run_ex(&r, &ro, NULL, 0, args);
            if (r.code != 2 || strcmp(r.err, cases[k].says)) fail_msg("case %zu/%d: exit %d, %s", k, html, r.code, r.err);
            assert_string_equal(r.out, "");
            assert_int_equal(count_entries(f->dir), 0); /* no attnviz-out with hidden files in it */
            tu_free(&r);
        }
    /* a '.' later on is an ordinary name */
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--heads", "2", "--prefix", "v1.", "-o", f->dir, "a b", NULL);
    if (r.code != 0) fail_msg("--prefix v1.: exit %d, %s", r.code, r.err);
    tu_free(&r);
    char path[4200];
    static const char *const names[] = {"v1.head0.png", "v1.head1.png", "v1.heads.png"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", f->dir, names[i]);
        if (!file_exists(path)) fail_msg("--prefix v1. wrote no %s", names[i]);
    }
    assert_int_equal(count_entries(f->dir), 3);
}

/* A whole number written with a decimal point or an exponent: `attnviz --dpi 150.0 "a b"` said "--dpi '150.0' is
 * not a whole number", which is false (150.0 is 150). It stays refused, as GNU head -n 1.0 refuses it, and the
 * message says what to type; "1.5" still is not whole, and "4." keeps its hint about a mark typed after the
 * value. The e.g. values are worked by hand (150.0 = 150, 1e3 = 1000, 2.5e1 = 25, -0.0 = 0). */
static void test_whole_number_with_a_point_says_what_to_type(void **state) {
    (void)state;
    static const struct { const char *opt, *val, *says; } cases[] = {
        {"--dpi", "150.0", "attnviz: error: --dpi 150.0: write a whole number without a decimal point, e.g. 150; "
                           "allowed: 50..600\n"},
        {"--heads", "8.0", "attnviz: error: --heads 8.0: write a whole number without a decimal point, e.g. 8; "
                           "allowed: 1..64\n"},
        {"--heads", "+8.00", "attnviz: error: --heads +8.00: write a whole number without a decimal point, e.g. 8; "
                             "allowed: 1..64\n"},
        {"--seed", "1e3", "attnviz: error: --seed 1e3: write a whole number in digits, without an exponent, e.g. "
                          "1000; allowed: 0..9223372036854775807\n"},
        {"--seed", "2.5e1", "attnviz: error: --seed 2.5e1: write a whole number in digits, without a decimal point or "
                            "an exponent, e.g. 25; allowed: 0..9223372036854775807\n"},
        {"--seed", "-0.0", "attnviz: error: --seed -0.0: write a whole number without a decimal point, e.g. 0; "
                           "allowed: 0..9223372036854775807\n"},
        /* --head 1 of the one default head is refused ("outside 0..0"): no e.g. 1, the only head named */
        {"--head", "1.0", "attnviz: error: --head 1.0: write a whole number without a decimal point; heads are "
                          "numbered from 0, so the only head is --head 0; allowed: 0..H-1, H the heads in use"},
        {"--head", "0.0", "attnviz: error: --head 0.0: write a whole number without a decimal point, e.g. 0; allowed: "
                          "0..H-1, H the heads in use"},
        {"--layer", "1.0", "attnviz: error: --layer 1.0: write a whole number without a decimal point, e.g. 1; "
                           "allowed: 0..L-1, L the --model's layers\n"},
        {"--heads", "1.5", "attnviz: error: --heads '1.5' is not a whole number; allowed: 1..64\n"},
        {"--heads", "4.", "attnviz: error: --heads '4.' is not a whole number (the '.' at its end is typed after the "
                          "value: type 4); allowed: 1..64\n"},
        /* wholeness from the digits as typed (a tester's pass): strtod made 8 of the first and inf of the second */
        {"--heads", "8.00000000000000001", "attnviz: error: --heads '8.00000000000000001' is not a whole number; "
                                           "allowed: 1..64\n"},
        {"--dpi", "1e400", "attnviz: error: --dpi 1e400: write a whole number in digits, without an exponent; "
                           "allowed: 50..600\n"},
        {"--dpi", "15e-1", "attnviz: error: --dpi '15e-1' is not a whole number; allowed: 50..600\n"},
        {"--dpi", "0.0150e4", "attnviz: error: --dpi 0.0150e4: write a whole number in digits, without a decimal point "
                              "or an exponent, e.g. 150; allowed: 50..600\n"},
        /* no e.g. outside the range: "e.g. 0; allowed: 50..600" */
        {"--dpi", "0.0", "attnviz: error: --dpi 0.0: write a whole number without a decimal point; allowed: 50..600\n"},
        {"--dpi", "150e-1", "attnviz: error: --dpi 150e-1: write a whole number in digits, without an exponent; "
                            "allowed: 50..600\n"},
        /* ASCII spaces inside the quotes are named, as U+3000 is (a teacher's pass) */
        {"--heads", " 2", "attnviz: error: --heads ' 2' is not a whole number (the space at its start is not part of a "
                          "number: type 2); allowed: 1..64\n"},
        {"--dpi", "150 ", "attnviz: error: --dpi '150 ' is not a whole number (the space at its end is not part of a "
                          "number: type 150); allowed: 50..600\n"},
        {"--scale", " 1.5 ", "attnviz: error: --scale ' 1.5 ' is not a number (the spaces at its start and end are not "
                             "part of a number: type 1.5); allowed: 0.5..4\n"},
        {"--heads", " x", "attnviz: error: --heads ' x' is not a whole number; allowed: 1..64\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "-q", "--no-plot", cases[k].opt, cases[k].val, "a b", NULL);
        if (r.code != 2 || strncmp(r.err, cases[k].says, strlen(cases[k].says)))
            fail_msg("%s %s: exit %d, %s", cases[k].opt, cases[k].val, r.code, r.err);
        assert_string_equal(r.out, "");
        tu_free(&r);
    }
}

/* An option's value in a message is one shell word, and a "type ..." line pastes back into bash as typed: `-f
 * "~/it's x" hi` said "--file '~/it's x': ... type --file ~/it's x (a space, no quotes) or the full path,
 * /root/it's x", none of which bash reads (an open quote); `-o=it's` said "type -o it's (or --outdir=it's)",
 * `-f=~/x` "(or --file=~/x)", which keeps the '~' the message is about, and --prefix "-it's" "('-it'shead0.png')"
 * (a tester's pass). The messages are written by hand, each ' as '\'' (GNU ls --quoting-style=shell-escape), a
 * path by tu_sh_word; each suggested word is read back by /bin/bash -c, with HOME the test's folder, and must be
 * the value meant. */
static void test_values_in_messages_paste_back_as_one_word(void **state) {
    tu_fixture *f = *state;
    char home[4200], meant[4300], want[9000], word[4400], read[4400];
    const char *old = getenv("HOME");
    char *saved = old ? strdup(old) : NULL;
    snprintf(home, sizeof home, "%s/h", f->dir);
    setenv("HOME", home, 1); /* for the run and for bash's ~ */
    tu_result r;
    tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
    const char *tilde[] = {"-f", "~/it's x", "hi", NULL};
    tu_run_ex(&r, &ro, NULL, 0, tilde);
    snprintf(meant, sizeof meant, "%s/it's x", home);
    snprintf(want, sizeof want, "attnviz: error: --file '~/it'\\''s x': the shell did not expand '~' (it does so only "
             "at the start of a word, not after '=' or inside quotes), and there is no folder named '~' here; type "
             "--file ~/'it'\\''s x' (a space, the ~ outside the quotes) or the full path, %s\n", tu_sh_word(meant));
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, want);
    tu_word_between(word, sizeof word, r.err, "; type --file ", " (a space");
    assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
    assert_string_equal(read, meant);
    tu_word_between(word, sizeof word, r.err, "the full path, ", "\n");
    assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
    assert_string_equal(read, meant);
    tu_free(&r);
    /* a short option with '=': the value as one word, and a space, not '=', before a ~ */
    const char *eq[] = {"-o=it's", "hi", NULL};
    tu_run_ex(&r, &ro, NULL, 0, eq);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: '-o=it'\\''s': a short option takes no '=': type -o 'it'\\''s' (or "
                        "--outdir='it'\\''s') (try --help)\n");
    tu_word_between(word, sizeof word, r.err, "type -o ", " (or");
    assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
    assert_string_equal(read, "it's");
    tu_free(&r);
    const char *eq_home[] = {"-f=~/it's", "hi", NULL};
    tu_run_ex(&r, &ro, NULL, 0, eq_home);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: '-f=~/it'\\''s': a short option takes no '=': type -f ~/'it'\\''s' "
                        "(or --file ~/'it'\\''s') (try --help)\n");
    tu_word_between(word, sizeof word, r.err, "(or --file ", ")");
    assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
    snprintf(meant, sizeof meant, "%s/it's", home);
    assert_string_equal(read, meant);
    tu_free(&r);
    /* --prefix's value and the file it would name, each one word */
    const char *prefix[] = {"--prefix", "-it's", "hi", NULL};
    tu_run_ex(&r, &ro, NULL, 0, prefix);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: --prefix '-it'\\''s' starts with '-', so the files' names would too "
                        "('-it'\\''shead0.png'), and rm, ls, cp and other tools read such a name as an option; give a "
                        "name such as slide1_\n");
    tu_word_between(word, sizeof word, r.err, "would too (", "), and");
    assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
    assert_string_equal(read, "-it'shead0.png");
    tu_free(&r);
    /* a value that is no path, quoted by hand as '%s': `--steps "it's"` said "--steps 'it's' is not a whole
     * number", an open quote; the same for a choice, a real number, --vmax, --figures (and its bad name),
     * --layer, --explain (the spec and its part), a word in an option's place (an unknown option, -' among
     * them, an option taken as a value, a sentence that starts with '-', a long option with one hyphen and a
     * value), and the piece before a full-width space. Each message is written by hand; the word between after
     * and stop must read back in bash as meant, and a plain value ('z y', below) keeps its '...' as before. */
    static const struct {
        const char *argv[4], *want, *after, *stop, *meant;
    } vals[] = {
        {{"--steps", "it's", "x"}, "--steps 'it'\\''s' is not a whole number; allowed: 1..1000000", "--steps ",
         " is not", "it's"},
        {{"--lr", "it's", "x"}, "--lr 'it'\\''s' is not a number; allowed: 1.1755e-38..10", "--lr ", " is not",
         "it's"},
        {{"--cmap", "it's", "x"}, "--cmap 'it'\\''s' is not a colour map; expected viridis, magma, inferno, plasma, "
         "cividis, gray or RdBu_r", "--cmap ", " is not", "it's"},
        {{"--vmax", "it's", "x"}, "--vmax 'it'\\''s' is not allowed; allowed: auto, fixed, or a number in (0, 1]",
         "--vmax ", " is not", "it's"},
        {{"--figures", "heads,it's", "x"}, "--figures 'heads,it'\\''s': 'it'\\''s' is not a figure; expected a "
         "comma-separated list of heads, grid, mean, scores, pe, mask or all; with --model: model, grid, heads, pe or "
         "all", "--figures ", ": ", "heads,it's"},
        {{"--figures", "heads,it's", "x"}, NULL, "s': ", " is not a figure", "it's"},
        {{"--layer", "it's", "x"}, "--layer 'it'\\''s' is not a layer number; allowed: 0..L-1, L the --model's layers "
         "(its config.json's n_layer, or num_hidden_layers for Llama and Qwen2)", "--layer ", " is not", "it's"},
        {{"--explain", "a,b,it's", "a b"}, "--explain 'a,b,it'\\''s' has 3 parts; it takes one pair QUERY,KEY (token "
         "indices or token text), e.g. 1,0 or b,a: run it once for each pair", "--explain ", " has",
         "a,b,it's"},
        {{"--explain", "x,it's", "x y"}, "--explain key 'it'\\''s' is neither a token of the sentence nor an index "
         "0..1", "key ", " is neither", "it's"},
        {{"--explain", "x,z y", "x y"}, "--explain key 'z y' is neither a token of the sentence nor an index 0..1",
         "key ", " is neither", "z y"},
        {{"--it's", "x"}, "unknown option '--it'\\''s' (try --help)", "option ", " (try", "--it's"},
        {{"-'", "hi"}, "unknown option '-'\\''' (try --help)", "option ", " (try", "-'"},
        {{"--steps", "--heads=it's", "hi"}, "option '--steps' needs a value N, but the word after it is the option "
         "'--heads=it'\\''s'; give the value right after --steps", "is the option ", "; give", "--heads=it's"},
        {{"-o=it's x", "hi"}, "'-o=it'\\''s x' is one word that starts with '-' and holds white space, so it is no "
         "option: options and their values are separate words (type them without the quotes); a sentence that "
         "starts with '-' goes after '--', as in attnviz -- '-o=it'\\''s x'", "error: ",
         " is one word", "-o=it's x"},
        {{"-heads=it's", "hi"}, "option '-heads=it'\\''s' has one hyphen: type --heads='it'\\''s' (with one hyphen "
         "its letters are read as short options, -h first) (try --help)", "type ", " (with", "--heads=it's"},
        {{"--model", "runs/it's\xE3\x80\x80" "3 1"}, "--model 'runs/it'\\''s\xE3\x80\x80" "3 1': the space after "
         "'runs/it'\\''s' is U+3000 IDEOGRAPHIC SPACE (全角空格), which a Chinese or Japanese input method types in "
         "full-width mode, and the shell splits words only at the ASCII space, so --model got "
         "'runs/it'\\''s\xE3\x80\x80" "3 1' as its value, one word, which names no file or folder; type a "
         "half-width space (半角) there", "the space after ", " is U+3000", "runs/it's"},
    };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        const char *argv[5] = {vals[i].argv[0], vals[i].argv[1], vals[i].argv[2], vals[i].argv[3], NULL};
        tu_run_ex(&r, &ro, NULL, 0, argv);
        assert_int_equal(r.code, 2);
        if (vals[i].want) {
            snprintf(want, sizeof want, "attnviz: error: %s\n", vals[i].want);
            assert_string_equal(r.err, want);
        }
        tu_word_between(word, sizeof word, r.err, vals[i].after, vals[i].stop);
        assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
        assert_string_equal(read, vals[i].meant);
        tu_free(&r);
    }
    assert_int_equal(count_entries(f->dir), 0); /* nothing written */
    if (saved) setenv("HOME", saved, 1), free(saved);
    else unsetenv("HOME");
}

/* The "~ not expanded" advice gives each word whole or not at all, and fits the option: `-f "~/xxx...x"` (3000
 * x's) said "type --file ~/xxx...x" cut at 200 bytes with no sign of the cut, "(a space, the ~ outside the
 * quotes)" of a word with no quotes, and "or the full path" with no path; `-f '~'` said "type --file ~ (a space,
 * no quotes) or the full path, /root", a folder for an option that reads a file (a tester's pass). Each word a
 * message offers must read back in /bin/bash, with HOME the test's folder, as the path meant, worked out here
 * from HOME; a value whose word does not fit is named by no command, and the message says why. */
static void test_tilde_advice_whole_and_fit_for_the_option(void **state) {
    tu_fixture *f = *state;
    char home[4200], meant[4700], word[4400], read[4400];
    const char *old = getenv("HOME");
    char *saved = old ? strdup(old) : NULL;
    snprintf(home, sizeof home, "%s/h", f->dir);
    setenv("HOME", home, 1);
    tu_result r;
    tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
    /* too long to repeat, plain (3000 x's) or with quotes (150 "x'", a word of 754 bytes): no "type --file ~..." */
    static char plain[3100], quoted[400];
    strcpy(plain, "~/"), memset(plain + 2, 'x', 3000), plain[3002] = 0;
    strcpy(quoted, "~/");
    for (int k = 0; k < 150; k++) strcat(quoted, "x'");
    const char *longs[] = {plain, quoted};
    for (int k = 0; k < 2; k++) {
        const char *argv[] = {"-f", longs[k], "hi", NULL};
        tu_run_ex(&r, &ro, NULL, 0, argv);
        assert_int_equal(r.code, 2);
        const char *tail = "; type --file, a space and the path, with the ~ outside any quotes, or the full path "
                           "(the path is too long to repeat here)\n";
        size_t n = strlen(r.err), m = strlen(tail);
        if (strstr(r.err, "type --file ~") || strstr(r.err, "outside the quotes)") || n < m ||
            strcmp(r.err + n - m, tail) != 0)
            fail_msg("k %d: %s", k, r.err);
        tu_free(&r);
    }
    /* 390 x's: the word (392 bytes) is given whole, no quotes */
    char x390[400] = "~/";
    memset(x390 + 2, 'x', 390), x390[392] = 0;
    const char *mid[] = {"--file", x390, "hi", NULL};
    tu_run_ex(&r, &ro, NULL, 0, mid);
    assert_int_equal(r.code, 2);
    tu_word_between(word, sizeof word, r.err, "; type --file ", " (a space, no quotes) or the full path");
    assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
    snprintf(meant, sizeof meant, "%s/%s", home, x390 + 2);
    assert_string_equal(read, meant);
    tu_free(&r);
    /* a file option given a folder (~, ~/, a path ending in '/'): the folder's word and NAME, never "type --file ~ " */
    static const struct { const char *opt, *val, *dir; } folder[] = {
        {"-f", "~", ""}, {"--file", "~/", ""}, {"--attn-mask", "~/it's d/", "it's d/"}};
    for (size_t k = 0; k < sizeof folder / sizeof folder[0]; k++) {
        const char *name = strcmp(folder[k].opt, "--attn-mask") == 0 ? "attn-mask" : "file";
        const char *argv[] = {folder[k].opt, folder[k].val, "hi", NULL};
        tu_run_ex(&r, &ro, NULL, 0, argv);
        assert_int_equal(r.code, 2);
        snprintf(meant, sizeof meant, "%s/%s", home, folder[k].dir);
        char after[64], says[4600];
        snprintf(after, sizeof after, "): type --%s ", name);
        tu_word_between(word, sizeof word, r.err, after, "NAME, NAME the file's name in it (a space, ");
        assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
        assert_string_equal(read, meant);
        snprintf(says, sizeof says, "--%s reads a file, and %s is a folder (%s)", name, word, tu_sh_word(meant));
        if (!strstr(r.err, says)) fail_msg("%s %s: no \"%s\" in: %s", folder[k].opt, folder[k].val, says, r.err);
        tu_free(&r);
    }
    /* a folder option: the value's word and the full path, each read back as meant */
    static const struct { const char *opt, *val, *rest; } dirs[] = {
        {"--dump", "~", ""}, {"--model", "~/it's m", "/it's m"}, {"--weights", "~/w", "/w"}, {"--outdir=~/a b", NULL, "/a b"}};
    for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
        const char *argv[] = {dirs[k].opt, dirs[k].val ? dirs[k].val : "hi", dirs[k].val ? "hi" : NULL, NULL};
        tu_run_ex(&r, &ro, NULL, 0, argv);
        assert_int_equal(r.code, 2);
        char name[32], after[64];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(dirs[k].opt + 2, "="), dirs[k].opt + 2);
        snprintf(after, sizeof after, "; type --%s ", name);
        snprintf(meant, sizeof meant, "%s%s", home, dirs[k].rest);
        tu_word_between(word, sizeof word, r.err, after, " (a space, ");
        assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
        assert_string_equal(read, meant);
        tu_word_between(word, sizeof word, r.err, "or the full path, ", "\n");
        assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
        assert_string_equal(read, meant);
        tu_free(&r);
    }
    if (saved) setenv("HOME", saved, 1), free(saved);
    else unsetenv("HOME");
}

/* A value too long for its message is shown as its longest start whose shell word fits, not as nothing: `-f
 * "~/x'x'...x'"` (k times "x'") was named "--file ''" from k = 66 on, and cut far short from k = 40 (29 of its 82
 * bytes; k = 60: 13 of 122), as av_shown_word took the word's excess off the name where each ' is 4 bytes of the
 * word (a tester's pass). The message gives the value in at most 199 bytes (AV_SHOWN_WORD(arg, 200)), and a quoted word is written
 * piece by piece while 5 bytes are left after each (the closing quote and the NUL), so at most 196 when whole; a cut
 * one keeps 3 of them for the "..." written after it (the cut was shown with no mark, a tester's pass), so at most
 * 193: the expected start is worked out here from the word's length alone, 2 quotes + its bytes + 3 more per ',
 * the whole value when its word has at most 196 bytes (k = 20), else the longest start whose word has at most
 * 193 (k = 60: "~/" and 37 "x'" and "x", 77 bytes, a word of 2 + 77 + 3·37 = 190) and "...", and bash reads the
 * word shown, without the "...", back as that start of the value. */
static void test_long_value_shown_as_its_longest_start(void **state) {
    tu_fixture *f = *state;
    static const int ks[] = {20, 39, 40, 60, 66, 300};
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        char value[700] = "~/", start[700], word[4400], read[4400], want[1200];
        for (int j = 0; j < ks[t]; j++) strcat(value, "x'");
        size_t best = 0, quotes = 0, all = 0, len = strlen(value);
        for (size_t p = 0; p < len; p++) all += value[p] == '\'';
        int cut = 2 + len + 3 * all > 196;
        for (size_t p = 1; p <= len; p++) {
            quotes += value[p - 1] == '\'';
            if (2 + p + 3 * quotes <= (cut ? 193u : 196u)) best = p;
        }
        snprintf(start, sizeof start, "%.*s", (int)best, value);
        size_t w = 0; /* the start in single quotes, each ' as '\'' */
        want[w++] = '\'';
        for (size_t i = 0; i < best; i++) {
            if (value[i] == '\'') memcpy(want + w, "'\\''", 4), w += 4;
            else want[w++] = value[i];
        }
        want[w++] = '\'';
        want[w] = 0;
        if (cut) strcat(want, "...");
        tu_result r;
        tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
        const char *argv[] = {"-f", value, "hi", NULL};
        tu_run_ex(&r, &ro, NULL, 0, argv);
        assert_int_equal(r.code, 2);
        tu_word_between(word, sizeof word, r.err, "attnviz: error: --file ", ": the shell did not expand");
        if (strcmp(word, want)) fail_msg("k %d: shown %s, not %s", ks[t], word, want);
        if (cut) word[strlen(word) - 3] = 0;
        assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
        assert_string_equal(read, start);
        tu_free(&r);
    }
}

/* "cannot create folder DIR...": the "..." says the folder's word was cut, and only then. It followed a name
 * over 200 bytes while the word was cut at 249, so `-o l/aaa...a` (210 a's, l a link to nowhere) showed the
 * 212-byte name whole with "..." after it, and `-o l/b'b'...` (70 "b'", 142 bytes, each ' written '\'' in
 * the word) was cut with none (a tester's pass). The whole word must read back in bash as the name; a cut one,
 * with "..." after it, as a shorter start of it. */
static void test_cut_folder_name_says_so_and_only_then(void **state) {
    tu_fixture *f = *state;
    char link[4200], name[400], want[1000], word[1000], read[1000];
    snprintf(link, sizeof link, "%s/l", f->dir);
    assert_int_equal(symlink("nowhere", link), 0);
    tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
    tu_result r;
    memcpy(name, "l/", 2), memset(name + 2, 'a', 210), name[212] = 0; /* 212 bytes, a plain word */
    const char *whole[] = {"-q", "-o", name, "hi", NULL};
    tu_run_ex(&r, &ro, NULL, 0, whole);
    snprintf(want, sizeof want, "attnviz: error: -o: cannot create folder %s: l is a symbolic link to nowhere, which "
             "does not exist\n", name);
    assert_int_equal(r.code, 1);
    assert_string_equal(r.err, want);
    tu_free(&r);
    size_t k = 2;
    memcpy(name, "l/", 2);
    for (int i = 0; i < 70; i++) name[k++] = 'b', name[k++] = '\'';
    name[k] = 0; /* 142 bytes, a word of 2 + 2 + 70 × 5 bytes, past 249 */
    const char *cut[] = {"-q", "-o", name, "hi", NULL};
    tu_run_ex(&r, &ro, NULL, 0, cut);
    assert_int_equal(r.code, 1);
    tu_word_between(word, sizeof word, r.err, "cannot create folder ", "...: l is a symbolic link to nowhere");
    assert_true(strlen(word) < 249);
    assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
    assert_true(strlen(read) > 2 && strlen(read) < strlen(name));
    assert_memory_equal(read, name, strlen(read));
    tu_free(&r);
}

/* A link's target in "is a symbolic link to TARGET" is the link's whole target, or a start of it with "..." after
 * it: readlink into 256 bytes cut a 400-byte target at 255 with no sign, so `-o l/sub` (l a link to "/nonexist/"
 * and 400 y's) named a target of 255 bytes as if whole, and `--model m` (m/config.json such a link) too. The
 * target expected is the one symlink() was given here: --model's message (room for 1,100 bytes) holds it whole;
 * -o's (room for 305) a start of it, read back by bash, and "..." before ", which does not exist". */
static void test_long_link_target_whole_or_marked(void **state) {
    tu_fixture *f = *state;
    char target[420], link[4200], word[1000], read[1000], want[1000];
    int n = snprintf(target, sizeof target, "/nonexist/");
    memset(target + n, 'y', 400), target[n + 400] = 0; /* 410 bytes, a plain word */
    snprintf(link, sizeof link, "%s/l", f->dir);
    assert_int_equal(symlink(target, link), 0);
    snprintf(link, sizeof link, "%s/m", f->dir);
    assert_int_equal(mkdir(link, 0700), 0);
    snprintf(link, sizeof link, "%s/m/config.json", f->dir);
    assert_int_equal(symlink(target, link), 0);
    tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
    tu_result r;
    tu_run_ex(&r, &ro, NULL, 0, (const char *[]){"-q", "-o", "l/sub", "hi", NULL});
    assert_int_equal(r.code, 1);
    if (!strstr(r.err, "..., which does not exist\n")) fail_msg("no \"...\" after the cut target: %s", r.err);
    tu_word_between(word, sizeof word, r.err, "l is a symbolic link to ", "..., which does not exist");
    assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
    assert_true(strlen(read) > 255 && strlen(read) < strlen(target));
    assert_memory_equal(read, target, strlen(read));
    tu_free(&r);
    tu_run_ex(&r, &ro, NULL, 0, (const char *[]){"-q", "--model", "m", "hi", NULL});
    snprintf(want, sizeof want, " is a symbolic link to %s, which does not exist\n", target);
    if (r.code != 2 || !strstr(r.err, want)) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* A file or folder the user named that is a symbolic link to nothing is said to be one, as --model says of such a
 * config.json: `-f l` (l a link to "nowhere") said "-f: cannot read l: No such file or directory", and l is there
 * in ls; --attn-mask l the same, `--weights l` "--weights l: No such file or directory; the example folder ...",
 * --model l "no such folder", and a --weights folder's W_Q.npy linked to nowhere "cannot read w/W_Q.npy: No such
 * file or directory (a broken link?)". The targets expected are the ones symlink() was given here; a loop of
 * links (loop -> loop, which ELOOP reports) is named as one; a name that is not there keeps its message. */
static void test_link_to_nothing_named_as_one(void **state) {
    tu_fixture *f = *state;
    assert_int_equal(symlink("nowhere", tu_in(f, "l")), 0);
    assert_int_equal(symlink("loop", tu_in(f, "loop")), 0);
    assert_int_equal(mkdir(tu_in(f, "w"), 0700), 0);
    assert_int_equal(symlink("nowhere", tu_in(f, "w/W_Q.npy")), 0);
    static const struct {
        const char *opt, *path, *want;
    } cases[] = {
        {"-f", "l", "attnviz: error: -f: l is a symbolic link to nowhere, which does not exist\n"},
        {"-f", "loop", "attnviz: error: -f: loop is a symbolic link to loop, which leads back to itself (a loop of "
                       "links)\n"},
        {"--attn-mask", "l", "attnviz: error: --attn-mask: l is a symbolic link to nowhere, which does not exist\n"},
        {"--weights", "l", "attnviz: error: --weights l is a symbolic link to nowhere, which does not exist\n"},
        {"--weights", "w", "attnviz: error: w/W_Q.npy is a symbolic link to nowhere, which does not exist\n"},
        {"--model", "l", "attnviz: error: --model l is a symbolic link to nowhere, which does not exist\n"},
        {"-f", "none", "attnviz: error: -f: cannot read none: No such file or directory\n"},
    };
    tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_result r;
        int is_file = !strcmp(cases[i].opt, "-f");
        tu_run_ex(&r, &ro, NULL, 0, (const char *[]){"-q", cases[i].opt, cases[i].path, is_file ? NULL : "a b", NULL});
        if (r.code != 2 || strcmp(r.err, cases[i].want))
            fail_msg("%s %s: exit %d, stderr %s", cases[i].opt, cases[i].path, r.code, r.err);
        tu_free(&r);
    }
}

/* `attnviz -q -o -x hi` made a folder "-x" and exited 0, where --prefix -x is refused because rm, ls and cp read a
 * name that starts with '-' as an option (GNU sort -o -x and gcc -o -x take "-x" as the file, as getopt gives them
 * the next word; attnviz refuses it as it refuses --prefix -x and -o -). A separate -o or --dump value starting
 * with '-' is refused (exit 2, nothing made) unless its first folder is there; the ./NAME the message offers reads
 * back in bash as ./ and the name; the attached --outdir=-x and -o-x are the user's on purpose and run. The
 * messages are written by hand. */
static void test_folder_starting_with_dash_is_refused_when_separate(void **state) {
    tu_fixture *f = *state;
    tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
    tu_result r;
    char path[4400], word[400], read[400];
    static const struct { const char *opt, *val, *says; } cases[] = {
        {"-o", "-x", "attnviz: error: --outdir '-x' starts with '-', so the folder's name would too, and rm, ls, cp "
                     "and other tools read such a name as an option; give a folder name such as figs, or ./-x if a "
                     "folder of that name is meant\n"},
        {"--dump", "-5", "attnviz: error: --dump '-5' starts with '-', so the folder's name would too, and rm, ls, cp "
                         "and other tools read such a name as an option; give a folder name such as dump, or ./-5 if "
                         "a folder of that name is meant\n"},
        {"--outdir", "-x/figs", "attnviz: error: --outdir '-x/figs' starts with '-', so the folder's name would too, "
                                "and rm, ls, cp and other tools read such a name as an option; give a folder name such "
                                "as figs, or ./-x/figs if a folder of that name is meant\n"},
        {"-o", "-it's x", "attnviz: error: --outdir '-it'\\''s x' starts with '-', so the folder's name would too, and "
                          "rm, ls, cp and other tools read such a name as an option; give a folder name such as figs, "
                          "or './-it'\\''s x' if a folder of that name is meant\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_run_ex(&r, &ro, NULL, 0, (const char *[]){"-q", cases[k].opt, cases[k].val, "hi", NULL});
        assert_int_equal(r.code, 2);
        assert_string_equal(r.err, cases[k].says);
        snprintf(path, sizeof path, "%s/%.2s", f->dir, cases[k].val);
        if (access(path, F_OK) == 0) fail_msg("%s %s made %s", cases[k].opt, cases[k].val, path);
        tu_free(&r);
    }
    tu_run_ex(&r, &ro, NULL, 0, (const char *[]){"-q", "-o", "-it's x", "hi", NULL});
    tu_word_between(word, sizeof word, r.err, "such as figs, or ", " if a folder");
    assert_int_equal(tu_bash_reads(read, sizeof read, word), 0);
    assert_string_equal(read, "./-it's x");
    tu_free(&r);
    static const char *const ok[][5] = {{"-q", "--outdir=-a", "hi", NULL}, {"-q", "-o-b", "hi", NULL},
                                        {"-q", "-o", "-a/figs", "hi", NULL}}; /* -a is there by then */
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        tu_run_ex(&r, &ro, NULL, 0, ok[k]);
        if (r.code != 0) fail_msg("%s %s: exit %d: %s", ok[k][1], ok[k][2], r.code, r.err);
        tu_free(&r);
    }
    snprintf(path, sizeof path, "%s/-a/figs/head0.png", f->dir);
    assert_int_equal(access(path, F_OK), 0);
}

/* Names of files or folders that cannot be seen or typed ran with exit 0 (a figure-maker's pass): --prefix " "
 * wrote " head0.png", --prefix - "-head0.png" (rm and ls read it as an option), --prefix $'v1\u200b' files that
 * ls shows as v1head0.png, and -o $'\u200b' a folder whose name shows as nothing. Each is refused now with exit 2
 * and nothing written, the value shown with the invisible code point as <U+XXXX>; ordinary names, Chinese ones,
 * a space between words and Persian's zero-width non-joiner between letters run as before. The code points'
 * categories are Python's unicodedata.category (U+200B, U+FEFF, U+200C: Cf; U+00A0, U+3000: Zs); the messages
 * are written by hand. */
static void test_output_names_that_cannot_be_seen_are_refused(void **state) {
    tu_fixture *f = *state;
    static const struct { const char *opt, *val, *says; } cases[] = {
        {"--prefix", " ", "attnviz: error: --prefix ' ' is white space only; give a name such as slide1_ (a prefix "
                          "starts every file's name)\n"},
        {"--prefix", "\xC2\xA0", "attnviz: error: --prefix '<U+00A0>' is white space only; give a name such as "
                                 "slide1_ (a prefix starts every file's name)\n"},
        {"--prefix", "\xE2\x80\x8B", "attnviz: error: --prefix '<U+200B>' has no visible character (U+200B is an "
                                     "invisible format character); give a name such as slide1_ (a prefix starts "
                                     "every file's name)\n"},
        {"--prefix", "-", "attnviz: error: --prefix '-' starts with '-', so the files' names would too "
                          "('-head0.png'), and rm, ls, cp and other tools read such a name as an option; give a name "
                          "such as slide1_\n"},
        {"--prefix=--heads", NULL, "attnviz: error: --prefix '--heads' starts with '-', so the files' names would "
                                   "too ('--headshead0.png'), and rm, ls, cp and other tools read such a name as an "
                                   "option; give a name such as slide1_\n"},
        {"--prefix", "v1\xE2\x80\x8B", "attnviz: error: --prefix 'v1<U+200B>' holds U+200B (byte 2), an invisible "
                                       "format character, which shows as nothing: the files' names would not be the "
                                       "name a listing seems to show, and could not be typed from it; give a name "
                                       "such as slide1_ (a space between words is fine)\n"},
        {"--prefix", "\xE3\x80\x80x", "attnviz: error: --prefix '<U+3000>x' holds U+3000 (byte 0), a space at its "
                                      "start, which shows as nothing: the files' names would not be the name a "
                                      "listing seems to show, and could not be typed from it; give a name such as "
                                      "slide1_ (a space between words is fine)\n"},
        {"-o", "\xE2\x80\x8B", "attnviz: error: --outdir '<U+200B>' has no visible character (U+200B is an "
                               "invisible format character); give a folder name such as figs\n"},
        /* a combining mark (Mn) alone: a folder whose name draws on nothing, shown as its code point */
        {"-o", "\xCC\x81", "attnviz: error: --outdir '<U+0301>' has no visible character (U+0301 is a combining "
                           "mark, which draws on the letter, digit or symbol before it, and the name has none); give "
                           "a folder name such as figs\n"},
        {"-o", "figs\xEF\xBB\xBF", "attnviz: error: --outdir 'figs<U+FEFF>' holds U+FEFF (byte 4), an invisible "
                                   "format character, which shows as nothing: the folder's name would not be the "
                                   "name a listing seems to show, and could not be typed from it; give a folder "
                                   "name such as figs (a space between words is fine)\n"},
        {"-o", "figs ", "attnviz: error: --outdir 'figs ' holds U+0020 (byte 4), a space at its end, which shows as "
                        "nothing: the folder's name would not be the name a listing seems to show, and could not be "
                        "typed from it; give a folder name such as figs (a space between words is fine)\n"},
        {"-o", "./\xE2\x80\x8B", "attnviz: error: --outdir './<U+200B>' has no visible character (U+200B is an "
                                 "invisible format character); give a folder name such as figs\n"}, /* in '.' */
        {"-o", "d/\xE2\x80\xAEgnp.txt", "attnviz: error: --outdir 'd/<U+202E>gnp.txt' holds U+202E (byte 2), an "
                                       "invisible format character, which shows as nothing: the folder's name would "
                                       "not be the name a listing seems to show, and could not be typed from it; give "
                                       "a folder name such as figs (a space between words is fine)\n"},
        {"--dump", "   ", "attnviz: error: --dump '   ' is white space only; give a folder name such as dump\n"},
        /* each folder it would make, not only the path's ends: "figs /" and "figs /x" made "figs ", "new/ x" made
         * " x" (exit 0); the bytes counted by hand, U+3000 is Zs as unicodedata.category says */
        {"-o", "figs /", "attnviz: error: --outdir 'figs /' holds U+0020 (byte 4), a space at the end of a folder it "
                         "would make, which shows as nothing: the folder's name would not be the name a listing "
                         "seems to show, and could not be typed from it; give a folder name such as figs (a space "
                         "between words is fine)\n"},
        {"-o", "figs /x", "attnviz: error: --outdir 'figs /x' holds U+0020 (byte 4), a space at the end of a folder "
                          "it would make, which shows as nothing: the folder's name would not be the name a listing "
                          "seems to show, and could not be typed from it; give a folder name such as figs (a space "
                          "between words is fine)\n"},
        {"-o", "new/ x", "attnviz: error: --outdir 'new/ x' holds U+0020 (byte 4), a space at the start of a folder "
                         "it would make, which shows as nothing: the folder's name would not be the name a listing "
                         "seems to show, and could not be typed from it; give a folder name such as figs (a space "
                         "between words is fine)\n"},
        /* a flag's tags without the flag show as nothing (U+E0067 U+E007F after 'a') */
        {"-o", "a\xF3\xA0\x81\xA7\xF3\xA0\x81\xBF", "attnviz: error: --outdir 'a<U+E0067><U+E007F>' holds U+E0067 "
                                                   "(byte 1), an invisible format character, which shows as nothing: "
                                                   "the folder's name would not be the name a listing seems to show, "
                                                   "and could not be typed from it; give a folder name such as figs "
                                                   "(a space between words is fine)\n"},
        {"--dump", "d\xE3\x80\x80/x", "attnviz: error: --dump 'd<U+3000>/x' holds U+3000 (byte 1), a space at the end "
                                       "of a folder it would make, which shows as nothing: the folder's name would "
                                       "not be the name a listing seems to show, and could not be typed from it; give "
                                       "a folder name such as dump (a space between words is fine)\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *args[] = {"--heads", "2", cases[k].opt, cases[k].val, "a b", NULL};
        if (!cases[k].val) args[3] = "a b", args[4] = NULL; /* --prefix=--heads: the value attached */
        tu_result r;
        tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
        tu_run_ex(&r, &ro, NULL, 0, args);
        if (r.code != 2 || strcmp(r.err, cases[k].says)) fail_msg("case %zu (%s): exit %d, %s", k, cases[k].opt, r.code, r.err);
        assert_string_equal(r.out, "");
        assert_int_equal(count_entries(f->dir), 0); /* no folder, no file */
        tu_free(&r);
    }
    /* ordinary names run: a space between words, Chinese, a '.' later on, Persian's ZWNJ (U+200C) between two
     * letters (می‌روم's), a folder already there with a space at its end, or a new one inside it (the user's) */
    static const struct { const char *prefix, *outdir; } fine[] = {
        {"a b_", "o1"}, {"\xE5\x9B\xBE_", "\xE6\x88\x91\xE7\x9A\x84 \xE5\x9B\xBE"}, {"v1.", "o 2"},
        {"\xD9\x85\xDB\x8C\xE2\x80\x8C\xD8\xB1", "o3"}, {"x ", "old "}, {"y", "old /new"},
        {"z", "o 4/a b/c"}, {"w", "old /n2/"},
        /* the RGI flags of Scotland and England (emoji-test.txt: 1F3F4 E0067 E0062 E0073 E0063 E0074 E007F and
         * ... E0065 E006E E0067 E007F): their tags are Cf (unicodedata.category), but they show as the flag */
        {"\xF0\x9F\x8F\xB4\xF3\xA0\x81\xA7\xF3\xA0\x81\xA2\xF3\xA0\x81\xB3\xF3\xA0\x81\xA3\xF3\xA0\x81\xB4"
         "\xF3\xA0\x81\xBF_",
         "\xF0\x9F\x8F\xB4\xF3\xA0\x81\xA7\xF3\xA0\x81\xA2\xF3\xA0\x81\xA5\xF3\xA0\x81\xAE\xF3\xA0\x81\xA7"
         "\xF3\xA0\x81\xBF"},
    };
    char path[4200];
    snprintf(path, sizeof path, "%s/old ", f->dir);
    assert_int_equal(mkdir(path, 0755), 0);
    for (size_t k = 0; k < sizeof fine / sizeof fine[0]; k++) {
        const char *args[] = {"-q", "--heads", "2", "--prefix", fine[k].prefix, "-o", fine[k].outdir, "a b", NULL};
        tu_result r;
        tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
        tu_run_ex(&r, &ro, NULL, 0, args);
        if (r.code != 0) fail_msg("--prefix '%s' -o '%s': exit %d, %s", fine[k].prefix, fine[k].outdir, r.code, r.err);
        tu_free(&r);
        snprintf(path, sizeof path, "%s/%s/%shead1.png", f->dir, fine[k].outdir, fine[k].prefix);
        if (!file_exists(path)) fail_msg("no %s", path);
    }
}

/* Text on the standard input with no sentence and no -f: `echo "I love you" | attnviz` and `attnviz < s.txt`
 * said only "no sentence given ... (or -f FILE, or -f - for stdin)", as with nothing to read (a coreutils
 * user's pass: cat and sort read a pipe by themselves). The message now says the input is a pipe or a file
 * and what reads it; an empty standard input (a terminal's or /dev/null's case) keeps the message as it was.
 * Exit 2 and nothing on stdout either way. */
static void test_no_sentence_names_the_unread_stdin(void **state) {
    (void)state;
    static const char says[] = "no sentence given (the standard input is %s, which attnviz reads only when told: "
                               "add a lone - or -f - to read the text from it); try: attnviz -q --no-plot "
                               "\"I love deep learning\"";
    char want[300];
    tu_result r;
    run_attnviz(&r, "I love you\n", "-q", "--no-plot", NULL); /* stdin: a regular file of 11 bytes */
    snprintf(want, sizeof want, says, "a file");
    if (r.code != 2 || !strstr(r.err, want)) fail_msg("file: exit %d, %s", r.code, r.err);
    assert_string_equal(r.out, "");
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", NULL); /* an empty file: nothing to read, no hint */
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "no sentence given; try: attnviz -q --no-plot \"I love deep learning\""));
    tu_free(&r);
    char cmd[4400], err[1024] = "";
    snprintf(cmd, sizeof cmd, "printf 'I love you\\n' | %s -q --no-plot 2>&1 >/dev/null; echo \"exit $?\"",
             tu_sh_word(tu_bin()));
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t got = fread(err, 1, sizeof err - 1, p);
    err[got] = 0;
    pclose(p);
    snprintf(want, sizeof want, says, "a pipe");
    if (!strstr(err, want) || !strstr(err, "exit 2")) fail_msg("pipe: %s", err);
    /* what it advises runs */
    run_attnviz(&r, "I love you\n", "-q", "--no-plot", "-", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
}

/* A short option typed with a letter outside ASCII is named whole: "-Ｈ 4" (full-width H, a Chinese input
 * method's full-width mode) said "unknown option '-\357'", half a character (a Chinese-speaking tester's
 * report). Now the whole word, the character's code point and, for a full-width form, the half-width
 * option it stands for, when there is one. Exit 2, nothing on stdout. */
static void test_non_ascii_short_option_is_named_whole(void **state) {
    (void)state;
    /* Ｈ = U+FF28 = EF BC A8, ｑ = U+FF51 = EF BD 91, Ｑ = U+FF31 = EF BC B1 (RFC 3629) */
    expect_usage((const char *[]){"-\xEF\xBC\xA8", "4", "x", NULL},
                 "unknown option '-\xEF\xBC\xA8': '\xEF\xBC\xA8' (U+FF28) is the full-width form of 'H': type the "
                 "half-width -H (\xE5\x8D\x8A\xE8\xA7\x92), which is --heads");
    expect_usage((const char *[]){"-\xEF\xBD\x91", "x", NULL},
                 "'\xEF\xBD\x91' (U+FF51) is the full-width form of 'q': type the half-width -q");
    expect_usage((const char *[]){"-\xEF\xBC\xB1", "x", NULL},
                 "unknown option '-\xEF\xBC\xB1': '\xEF\xBC\xB1' (U+FF31) is the full-width form of 'Q', and -Q is no "
                 "option either (try --help)");
    /* getopt has moved past the word when the letter is its last byte's character, and is still in it
     * when more follows: both name the same word */
    expect_usage((const char *[]){"-q", "-\xEF\xBC\xA8\xEF\xBC\xA8", "x", NULL},
                 "unknown option '-\xEF\xBC\xA8\xEF\xBC\xA8': '\xEF\xBC\xA8' (U+FF28)");
    expect_usage((const char *[]){"-\xC3\xA9", "x", NULL},
                 "unknown option '-\xC3\xA9': options are ASCII letters after '-' (try --help)");
    tu_result r;
    const char *args[] = {"-\xEF\xBC\xA8", "4", "x", NULL};
    tu_runv(&r, NULL, NULL, args);
    assert_null(strstr(r.err, "'-\xEF'")); /* not half a character */
    tu_free(&r);
}

/* --precision sets the digits of -v and of --explain (its warning names both):
 * --help said "with -v" only. */
static void test_help_precision_names_explain(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--help", NULL);
    assert_int_equal(r.code, 0);
    tu_help_unwrap(r.out);
    assert_non_null(strstr(r.out, "digits after the point with -v, --explain and in the --html page (default 4; 0..10)"));
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--precision", "2", "--explain", "0,1", "I love", NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.err, "warning"));
    tu_free(&r);
}

/* The --html page opens on --head (its head view draws that head's lines), and the "has no effect"
 * warning names --html among --head's users, but --help said "head for --explain, --show and --compare
 * figures" and the man page's --head item named --explain, --show and --compare only (a reader's pass). */
static void test_help_head_names_html(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--help", NULL);
    assert_int_equal(r.code, 0);
    tu_help_unwrap(r.out);
    assert_non_null(strstr(r.out, "head for --explain, --show, the --html page and --compare figures; with --model also "
                                  "drawn alone (default 0)"));
    tu_free(&r);
    char *man = tu_slurp_file(src_path("docs/attnviz.1"), NULL);
    assert_non_null(man);
    assert_non_null(strstr(man, "for the \\-\\-html page (which opens on it: its head view draws that head's lines)"));
    free(man);
    char *dir = make_tmpdir(), page[4200];
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "-H", "4", "--head", "2", "--html", "-o", dir, "I love you",
                NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.err, "warning")); /* --head is used */
    tu_free(&r);
    snprintf(page, sizeof page, "%s/attnviz.html", dir);
    char *html = tu_slurp_file(page, NULL);
    assert_non_null(html);
    assert_non_null(strstr(html, "\"head\":2")); /* the page opens on head 2 */
    free(html);
    rm_rf(dir);
}

/* --help said "default heads,grid", but the default run of one head writes head0.png alone, while
 * --figures heads,grid given explicitly also writes heads.png (the grid is drawn by default only for
 * 2+ heads, as the man page's grid item says). --help now says so; the two runs below show the rule. */
static void test_help_figures_default_says_grid_needs_two_heads(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--help", NULL);
    assert_int_equal(r.code, 0);
    tu_help_unwrap(r.out);
    assert_non_null(strstr(r.out, "(default heads, and grid with 2+ heads; with --model: model,grid)"));
    tu_free(&r);
    static const struct { const char *heads, *figures; int files; } cases[] = {
        {"1", NULL, 1}, {"1", "heads,grid", 2}, {"2", NULL, 3}, {"2", "heads,grid", 3}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *dir = make_tmpdir(), path[4200];
        if (cases[i].figures)
            run_attnviz(&r, NULL, "-q", "-d", "8", "-H", cases[i].heads, "--figures", cases[i].figures, "-o", dir,
                        "I love", NULL);
        else run_attnviz(&r, NULL, "-q", "-d", "8", "-H", cases[i].heads, "-o", dir, "I love", NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        snprintf(path, sizeof path, "%s/heads.png", dir);
        assert_int_equal(file_exists(path), cases[i].files > 1);
        assert_int_equal(count_entries(dir), cases[i].files);
        tu_free(&r);
        rm_rf(dir);
    }
}

/* -q prints what was asked for, and --model's --generate continuation is printed with -q too; --help and
 * the man page named only --show, --explain and --compare (a tester's report). */
static void test_help_quiet_names_generate(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--help", NULL);
    assert_int_equal(r.code, 0);
    tu_help_unwrap(r.out);
    assert_non_null(strstr(r.out, "no trace (--show, --explain, --compare, --generate still print)"));
    tu_free(&r);
    char *man = tu_slurp_file(src_path("docs/attnviz.1"), NULL);
    assert_non_null(man);
    assert_non_null(strstr(man, "the \\-\\-compare table, the \\-\\-generate continuation) is still printed"));
    /* the man page said -q drops "the notes": the notes on how --explain read its query and key, or what
     * --compare leaves out, are printed with -q (the code's rule: they qualify what was asked for), the
     * notes about the folder are not (a tester's report) */
    assert_null(strstr(man, "trace, the notes or the list of written files"));
    assert_non_null(strstr(man, "warnings and the notes on how it was read or what it leaves out: \\-\\-explain reading a "
                                "number as an\nindex"));
    free(man);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--explain", "1,1", "1 1 2", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.err, "attnviz: note: --explain query 1 is read as an index"));
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "6", "-H", "2", "--compare", "positions", "a b", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.err, "attnviz: note: --compare positions leaves out rope"));
    tu_free(&r);
    char *dir = make_tmpdir();
    char out[4200];
    snprintf(out, sizeof out, "%s/o", dir);
    run_attnviz(&r, NULL, "-q", "-H", "4", "-o", out, "a b", NULL);
    tu_free(&r);
    /* removes head2, head3, and says so with -q too: a teacher's prepared page went without a word (a
     * teacher's pass; the man page said -q hides this note) */
    run_attnviz(&r, NULL, "-q", "-H", "2", "-o", out, "a b", NULL);
    assert_int_equal(r.code, 0);
    char want[4400];
    snprintf(want, sizeof want, "attnviz: note: removed 2 files of an earlier run from %s, so the folder holds one run: "
             "head2.png head3.png\n", tu_sh_word(out));
    assert_string_equal(r.err, want);
    assert_string_equal(r.out, "");
    tu_free(&r);
    rm_rf(dir);
}

/* --warmup's help said "0..--steps, 0 = none", but --schedule noam refuses 0 ("needs a warm-up of 1 or more
 * (allowed: 1..5)", its step · warmup^-1.5): a teacher's pass. The help names noam's range, as the error does
 * and attnviz(1) ("noam needs 1 or more"). */
/* The line of text that starts at its first "start" (to the newline, cut to n bytes) into line; NULL when text
 * has no "start". For the help and README lines the tests below read. */
static const char *line_from(const char *text, const char *start, char *line, size_t n) {
    const char *at = strstr(text, start);
    if (!at) return NULL;
    snprintf(line, n, "%.*s", (int)strcspn(at, "\n"), at);
    return line;
}

static void test_help_warmup_names_noams_range(void **state) {
    (void)state;
    tu_result r;
    char *dir = make_tmpdir(), out[4200];
    snprintf(out, sizeof out, "%s/out", dir);
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "5", "--schedule", "noam", "--warmup", "0", "-o", out, NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "(allowed: 1..5)"));
    tu_free(&r);
    rm_rf(dir);
    run_attnviz(&r, NULL, "--help", NULL);
    assert_int_equal(r.code, 0);
    tu_help_unwrap(r.out);
    char line[512];
    assert_non_null(line_from(r.out, "      --warmup N ", line, sizeof line));
    if (!strstr(line, "1..--steps with --schedule noam")) fail_msg("--warmup's help names no noam range: %s", line);
    tu_free(&r);
}

/* --help's --train line read as if -o were required: "train a small GPT-2-layout model from scratch into -o DIR",
 * and attnviz(1)'s "write -o DIR", where `attnviz --train reverse` without -o trains into ./attnviz-out, as -o's
 * own entry says ("default attnviz-out in the current folder"). Both now say the default in those words (written
 * here by hand), and a run without -o in an empty folder writes the model there. */
static void test_help_train_names_the_default_folder(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--help", NULL);
    assert_int_equal(r.code, 0);
    tu_help_unwrap(r.out);
    char line[512];
    assert_non_null(line_from(r.out, "      --train TASK ", line, sizeof line));
    if (!strstr(line, "into -o DIR (default attnviz-out in the current folder)"))
        fail_msg("--train's help names no default folder: %s", line);
    tu_free(&r);
    char *man = tu_slurp_file(src_path("docs/attnviz.1"), NULL);
    assert_non_null(man);
    assert_non_null(strstr(man, "Folder for the figures (default \\fIattnviz\\-out\\fR in the current folder"));
    assert_non_null(strstr(man, "write \\fB\\-o\\fR \\fIDIR\\fR (default \\fIattnviz\\-out\\fR in the current folder)"));
    free(man);
    char *dir = make_tmpdir();
    tu_run_opts ro = {.cwd = dir, .stdout_fd = -1};
    tu_run_ex(&r, &ro, NULL, 0, (const char *const[]){"-q", "--train", "reverse", "--steps", "2", NULL});
    assert_int_equal(r.code, 0);
    tu_free(&r);
    char cfg[4200];
    snprintf(cfg, sizeof cfg, "%s/attnviz-out/config.json", dir);
    if (access(cfg, F_OK) != 0) fail_msg("no %s", cfg);
    rm_rf(dir);
}

/* --dpi's --help line and README's options row said "more pixels, same printed size" and nothing of the
 * 6000-pixel side that every figure keeps to (a figure-maker's pass: --heads 16 --dpi 600 on 64 tokens wrote
 * heads.png at 5925 x 5999 px and pHYs 436 dpi, said only in a note on stderr). Both now name the limit; the grid
 * figure (heads.png) here shows it is the one the code keeps: no side above 6000 px, and the largest side within 2 % of it
 * (the dpi was lowered to fit, not left at a smaller figure). */
static void test_help_and_readme_name_the_dpi_pixel_limit(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "--help", NULL);
    assert_int_equal(r.code, 0);
    tu_help_unwrap(r.out);
    char line[400];
    assert_non_null(line_from(r.out, "--dpi N", line, sizeof line));
    if (!strstr(line, "6000 px")) fail_msg("--help's --dpi line does not name the 6000 px limit: %s", line);
    tu_free(&r);
    char *readme = tu_slurp_file(src_path("README.md"), NULL);
    assert_non_null(readme);
    assert_non_null(line_from(readme, "| `--dpi N`", line, sizeof line));
    if (!strstr(line, "6000 px")) fail_msg("README's --dpi row does not name the 6000 px limit: %s", line);
    free(readme);
    char text[64 * 4 + 1] = "";
    for (int i = 0; i < 64; i++) strcat(text, i ? " w" : "w"); /* 64 tokens */
    run_attnviz(&r, NULL, "-q", "--heads", "16", "--dpi", "600", "--figures", "grid", "-o", tu_in(f, "d"), text, NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    av_png_image img;
    av_err err = {{0}};
    if (av_png_read(tu_in(f, "d/heads.png"), &img, &err)) fail_msg("%s", err.msg);
    int side = img.width > img.height ? img.width : img.height;
    if (side > 6000 || side < 5880) fail_msg("heads.png is %d x %d px; expected its larger side at 6000 px or just under",
                                             img.width, img.height);
    av_png_image_free(&img);
}

/* The range a whole-number option enforces is the one --help and the man page state: --pad-to and
 * --generate were refused outside 1..65536 while neither named a range (a reviewer's pass). */
static void test_help_and_man_state_the_enforced_ranges(void **state) {
    (void)state;
    /* each option with a value it refuses, so that the error names the range */
    static const struct { const char *name, *bad; } opts[] = {
        {"d-model", "99999999"}, {"heads", "99999999"}, {"pad-to", "99999999"}, {"html-limit", "99999999"},
        {"dpi", "99999999"}, {"precision", "99999999"}, {"layers", "99999999"}, {"steps", "99999999"},
        {"batch", "99999999"}, {"generate", "99999999"}, {"seed", "-1"}};
    tu_result help;
    run_attnviz(&help, NULL, "--help", NULL);
    assert_int_equal(help.code, 0);
    tu_help_unwrap(help.out);
    char *man = tu_slurp_file(src_path("docs/attnviz.1"), NULL);
    assert_non_null(man);
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        char opt[64], range[64], line[512], entry[4096];
        snprintf(opt, sizeof opt, "--%s", opts[i].name);
        tu_result r;
        run_attnviz(&r, NULL, opt, opts[i].bad, "a", NULL);
        assert_int_equal(r.code, 2);
        const char *at = strstr(r.err, "outside the allowed range ");
        if (!at) fail_msg("%s %s: no range in: %s", opt, opts[i].bad, r.err);
        at += strlen("outside the allowed range ");
        size_t n = strcspn(at, " \n;,");
        snprintf(range, sizeof range, "%.*s", (int)n, at);
        tu_free(&r);
        /* the --help line of the option: "  -x, --opt ARG   text" or "      --opt ARG   text" */
        char key[80];
        snprintf(key, sizeof key, "%s ", opt);
        const char *h = help.out, *hl = NULL;
        while ((h = strstr(h, key)) != NULL) {
            const char *ls = h;
            while (ls > help.out && ls[-1] != '\n') ls--;
            while (*ls == ' ') ls++;
            if (ls[0] == '-' && ls[1] != '-') ls += 4; /* "-d, " */
            if (ls == h) { hl = h; break; }
            h++;
        }
        if (!hl) fail_msg("--help has no line for %s", opt);
        snprintf(line, sizeof line, "%.*s", (int)strcspn(hl, "\n"), hl);
        const char *m = strstr(line, range);
        if (!m || (m[strlen(range)] >= '0' && m[strlen(range)] <= '9'))
            fail_msg("%s is refused outside %s; its --help line does not say so: %s", opt, range, line);
        /* the man page's entry: from its .BI or .BR line to the next .TP */
        char manopt[80] = "\\-\\-";
        for (const char *c = opts[i].name; *c; c++) {
            size_t k = strlen(manopt);
            if (*c == '-') snprintf(manopt + k, sizeof manopt - k, "\\-");
            else snprintf(manopt + k, sizeof manopt - k, "%c", *c);
        }
        strncat(manopt, " ", sizeof manopt - strlen(manopt) - 1);
        const char *e = strstr(man, manopt);
        while (e) { /* on a .BI or .BR line, the entry's head */
            const char *ls = e;
            while (ls > man && ls[-1] != '\n') ls--;
            if (strncmp(ls, ".B", 2) == 0) break;
            e = strstr(e + 1, manopt);
        }
        if (!e) fail_msg("the man page has no entry for %s", opt);
        const char *end = strstr(e, "\n.TP");
        snprintf(entry, sizeof entry, "%.*s", end ? (int)(end - e) : (int)strlen(e), e);
        if (!strstr(entry, range)) fail_msg("%s is refused outside %s; its man page entry does not say so", opt, range);
    }
    tu_free(&help);
    free(man);
}

/* README's Limits gave the (H, T, T) limit, "about 5,800 tokens at 8 heads", for --compare too, and said
 * --compare "runs the layer two or three more times", while `--heads 8 --compare scale` on 4000 tokens is
 * refused ("give at most 3344 tokens at 8 heads under --compare scale"), order keeps 4.5 runs' worth and
 * with --html 8.5 (a documentation reader's pass). Each kind's "at most N tokens", rounded to hundreds, is
 * in README's --compare row. */
static void test_readme_states_the_compare_limits(void **state) {
    (void)state;
    static const struct { const char *what; int html; } kinds[] = {
        {"scale", 0}, {"rope-style", 0}, {"positions", 0}, {"order", 0}, {"order", 1}};
    char *words = malloc(8001);
    assert_non_null(words);
    for (int i = 0; i < 4000; i++) memcpy(words + 2 * i, "w ", 2);
    words[8000] = '\0';
    char *readme = tu_slurp_file(src_path("README.md"), NULL);
    assert_non_null(readme);
    const char *row = strstr(readme, "\n| `--compare`: ");
    if (!row) fail_msg("README's Limits table has no --compare row");
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(row + 1, "\n"), row + 1);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        tu_result r;
        if (kinds[i].html)
            run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "64", "-H", "8", "--compare", kinds[i].what, "--html", words,
                        NULL);
        else run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "64", "-H", "8", "--compare", kinds[i].what, words, NULL);
        assert_int_equal(r.code, 2);
        const char *at = strstr(r.err, "give at most ");
        if (!at) fail_msg("--compare %s on 4000 tokens: no limit in: %s", kinds[i].what, r.err);
        int n = atoi(at + strlen("give at most "));
        int hundreds = (n + 50) / 100 * 100;
        char about[32];
        snprintf(about, sizeof about, "about %d,%03d", hundreds / 1000, hundreds % 1000);
        if (!strstr(line, about))
            fail_msg("--compare %s%s fits %d tokens at 8 heads; README's row does not say %s: %s", kinds[i].what,
                     kinds[i].html ? " --html" : "", n, about, line);
        tu_free(&r);
    }
    assert_null(strstr(readme, "two or three more times"));
    free(readme);
    free(words);
}

/* Under -q what was asked for starts at its own title: `attnviz -q --no-plot -d 8 --show "我爱你" | head -1`
 * printed an empty line, the blank line that sets a part off from the trace (a teacher's pass); --explain and
 * --compare did the same. One blank line still separates two parts, and without -q each part from the trace. */
static void test_quiet_output_starts_with_its_title(void **state) {
    (void)state;
    static const char show[] = "head 0 of 1: attention weights (rows = queries, columns = keys)\n",
                      explain[] = "--explain: head 0, query 0 \"我\" → key 1 \"爱\"   (d_k = 8)\n",
                      scale[] = "--compare scale: same sentence, same X and weights, the one head\n",
                      order[] = "--compare order: swap token 0 \"我\" and token 2 \"你\" (same embeddings and weights)\n";
    static const struct {
        const char *args[8], *first, *then[2]; /* the first line, then the titles after a blank line */
    } cases[] = {
        {{"--show"}, show, {NULL}},
        {{"--explain", "0,1"}, explain, {NULL}},
        {{"--compare", "scale"}, scale, {NULL}},
        {{"--compare", "order"}, order, {NULL}},
        {{"--explain", "0,1", "--show", "--compare", "order"}, explain, {show, order}},
        {{"--show", "--compare", "scale"}, show, {scale}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *args[16] = {"-q", "--no-plot", "--color", "never", "-d", "8"};
        int n = 6;
        for (int i = 0; cases[c].args[i]; i++) args[n++] = cases[c].args[i];
        args[n++] = "我爱你";
        tu_result r;
        tu_runv(&r, NULL, NULL, args);
        if (r.code != 0) fail_msg("case %zu: exit %d: %s", c, r.code, r.err);
        /* --show, --explain and --compare say first where their weights come from (-q hides the trace that
         * says it) */
        char first[300];
        snprintf(first, sizeof first, "weights: random weights (untrained, seed 42)\n%s", cases[c].first);
        if (strncmp(r.out, first, strlen(first)))
            fail_msg("case %zu: -q %s should start with\n%s\nnot:\n%s", c, cases[c].args[0], first, r.out);
        for (int t = 0; t < 2 && cases[c].then[t]; t++) {
            char want[200];
            snprintf(want, sizeof want, "\n\n%s", cases[c].then[t]);
            const char *at = strstr(r.out, want);
            if (!at || at[-1] == '\n') fail_msg("case %zu: want one blank line before\n%s\nin:\n%s", c, cases[c].then[t], r.out);
        }
        tu_free(&r);
        args[0] = "--no-plot"; /* without -q: the trace, a blank line, the part */
        tu_runv(&r, NULL, NULL, args);
        char want[200];
        snprintf(want, sizeof want, "\n\n%s", cases[c].first);
        const char *at = strstr(r.out, want);
        if (r.code != 0 || !at || at[-1] == '\n') fail_msg("case %zu without -q: want a blank line before\n%s\nin:\n%s", c, cases[c].first, r.out);
        tu_free(&r);
    }
}

/* --show --head H prints head H alone, as with --model: `--heads 8 --no-plot --show --head 2` warned "--head 2
 * has no effect ... (figures and --show draw every head)" and printed all 8 heads, 73 lines for a 24-line
 * projector. Its title says which head of how many; without --show (or --html, whose page opens on it) the
 * warning stays. */
static void test_show_prints_the_head_given(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--heads", "8", "-q", "--no-plot", "--show", "--head", "2", "--color", "never",
                "I love deep learning", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (r.err[0]) fail_msg("stderr was:\n%s", r.err);
    static const char first[] = "weights: random weights (untrained, seed 42)\n"
                                "head 2 of 8: attention weights (rows = queries, columns = keys)\n";
    if (strncmp(r.out, first, strlen(first))) fail_msg("-q --show should start with the weights and the title:\n%s", r.out);
    assert_null(strstr(r.out, "head 0 of 8"));
    int lines = 0; /* the weights line (-q), the title, the key header, 4 rows, keys and legend */
    for (const char *c = r.out; *c; c++) lines += *c == '\n';
    assert_int_equal(lines, 9);
    tu_free(&r);
    /* the page opens on --head: no warning either */
    char *dir = make_tmpdir();
    run_attnviz(&r, NULL, "--heads", "8", "-q", "--no-plot", "--html", "--head", "2", "-o", dir,
                "I love deep learning", NULL);
    if (r.code != 0 || strstr(r.err, "has no effect")) fail_msg("--html --head 2: exit %d: %s", r.code, r.err);
    tu_free(&r);
    rm_rf(dir);
    /* nothing takes --head: warned */
    run_attnviz(&r, NULL, "--heads", "8", "-q", "--no-plot", "--head", "2", "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "attnviz: warning: --head 2 has no effect: only --explain, --show, --html and the "
                               "--compare figure use one head (figures draw every head)\n");
    tu_free(&r);
    /* --compare's figure takes --head, but --no-plot writes none: the warning named the figure the run asked for
     * as what --head is for, not --no-plot, the cause (a maintainer's list of known faults) */
    static const char *const what[] = {"scale", "order"};
    for (int k = 0; k < 2; k++) {
        run_attnviz(&r, NULL, "--heads", "8", "-q", "--no-plot", "--compare", what[k], "--head", "2",
                    "I love deep learning", NULL);
        assert_int_equal(r.code, 0);
        assert_string_equal(r.err, "attnviz: warning: --head 2 has no effect with --no-plot (no figures are written); "
                                   "it also picks the head of --explain, --show and the --html page\n");
        tu_free(&r);
    }
    /* with figures, --compare draws head 2: no warning */
    dir = make_tmpdir();
    run_attnviz(&r, NULL, "--heads", "8", "-q", "--compare", "scale", "--head", "2", "-o", dir, "I love deep learning",
                NULL);
    if (r.code != 0 || strstr(r.err, "has no effect")) fail_msg("--compare scale --head 2: exit %d: %s", r.code, r.err);
    tu_free(&r);
    rm_rf(dir);
}

/* A run refused with exit 2 prints its error alone: "--dpi 200 has no effect with --no-plot" came first and
 * then the error that refused the run it called harmless (a learner's pass: `--model DIR --no-plot --figures
 * mean`). By hand: 2 heads do not divide d_model 7, query 5 is past T = 2 tokens, 5 heads do not divide
 * --train sort's d_model 64, and --dpi 200 (--causal with --train) would each warn. A run that goes on (exit 0)
 * or fails at run time (exit 1: a --dump path under a file) still warns, before its trace or its error. */
static void test_refused_run_does_not_warn(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    char train_out[4200], file[4200], dump[4300];
    snprintf(train_out, sizeof train_out, "%s/t", dir);
    snprintf(file, sizeof file, "%s/f", dir);
    snprintf(dump, sizeof dump, "%s/f/d", dir);
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    fclose(fp);
    const struct { const char *args[12]; const char *err; } c[] = {
        {{"--no-plot", "--dpi", "200", "-d", "7", "-H", "2", "a b"}, "attnviz: error: --heads 2 does not divide d_model 7"},
        {{"--no-plot", "--dpi", "200", "--explain", "5,0", "a b"},
         "attnviz: error: --explain query index 5 is outside 0..1 (T = 2 tokens)\n"},
        {{"--train", "sort", "--causal", "--heads", "5", "-o", train_out},
         "attnviz: error: --heads 5 does not divide --d-model 64"},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        tu_result r;
        tu_runv(&r, NULL, NULL, c[k].args);
        if (r.code != 2 || strncmp(r.err, c[k].err, strlen(c[k].err)) != 0 || strchr(r.err, '\n') - r.err + 1 != (long)strlen(r.err))
            fail_msg("case %zu: exit %d, stderr '%s'; want 2 and the one line '%s...'", k, r.code, r.err, c[k].err);
        tu_free(&r);
    }
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "--dpi", "200", "--dump", dump, "a b", NULL);
    assert_int_equal(r.code, 1);
    assert_true(strncmp(r.err, "attnviz: warning: --dpi 200 has no effect with --no-plot", 56) == 0);
    assert_non_null(strstr(r.err, "\nattnviz: error: "));
    tu_free(&r);
    /* --seed beside a --weights folder that gives X and all four W is known to have no effect only once the
     * folder is read: that warning came before the usage error of an --attn-mask that is no .npy file (by
     * hand: "x" has not its magic), and stays when the run goes on */
    char weights[4200], mask[4200];
    snprintf(weights, sizeof weights, "%s/w", dir);
    snprintf(mask, sizeof mask, "%s/mask.npy", dir);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--dump", weights, "a b", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    fp = fopen(mask, "w");
    assert_non_null(fp);
    fputs("x", fp);
    fclose(fp);
    const char *refused[][14] = {
        {"-q", "--no-plot", "-d", "8", "-w", weights, "--seed", "3", "--attn-mask", mask, "a b"},
        {"-q", "--no-plot", "-d", "8", "-w", weights, "--seed", "3", "--attn-mask", mask, "--dpi", "200", "a b"},
    };
    for (int k = 0; k < 2; k++) {
        tu_runv(&r, NULL, NULL, refused[k]);
        if (r.code != 2 || strncmp(r.err, "attnviz: error: --attn-mask: ", 29) != 0 ||
            strchr(r.err, '\n') - r.err + 1 != (long)strlen(r.err))
            fail_msg("--seed 3 -w DIR --attn-mask x%s: exit %d, stderr '%s'; want 2 and the one error line",
                     k ? " --dpi 200" : "", r.code, r.err);
        tu_free(&r);
    }
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "-w", weights, "--seed", "3", "--dpi", "200", "a b", NULL);
    assert_int_equal(r.code, 0);
    static const char dpi_warning[] = "attnviz: warning: --dpi 200 has no effect with --no-plot (no figures are "
                                      "written)\nattnviz: warning: --seed 3 has no effect: --weights ";
    if (strncmp(r.err, dpi_warning, strlen(dpi_warning)) != 0) fail_msg("stderr was '%s'", r.err);
    tu_free(&r);
    rm_rf(dir);
}

/* An option without effect in this run: one warning line, exit 0. */
static void test_options_without_effect_warn(void **state) {
    (void)state;
    const struct { const char *args[6]; const char *warning; } c[] = {
        {{"--rope-style", "half"}, "attnviz: warning: --rope-style half has no effect without --positions rope\n"},
        {{"--figures", "all", "--no-plot"}, "attnviz: warning: --figures all has no effect with --no-plot"},
        {{"--heads", "4", "--head", "3"}, "attnviz: warning: --head 3 has no effect: only --explain, --show, "
                                          "--html and the --compare figure use one head"},
        {{"--dpi", "200", "--no-plot"}, "attnviz: warning: --dpi 200 has no effect with --no-plot"},
        {{"--rope-base", "500", "--positions", "sinusoidal"}, "--rope-base 500 has no effect without --positions rope"},
        {{"--precision", "2"}, "--precision 2 has no effect without -v/--verbose, --explain or --html"},
        /* every number as typed, as --head and --layer name it ("--precision 010" said "--precision 10") */
        {{"--precision", "010"}, "--precision 010 has no effect without -v/--verbose, --explain or --html"},
        {{"--html-limit", "08", "--no-plot"}, "attnviz: warning: --html-limit 08 has no effect without --html"},
        {{"--log-scale", "--no-plot"}, "attnviz: warning: --log-scale has no effect with --no-plot"},
        {{"--compare", "order", "--positions", "none", "--no-plot"}, "attnviz: warning: --positions none has no effect with "
                                                         "--compare order: it runs none, sinusoidal and RoPE\n"},
        {{"--compare", "rope-style", "--rope-style", "half"}, "attnviz: warning: --rope-style half has no effect with "
                                                               "--compare rope-style: it runs RoPE interleaved and RoPE half\n"},
        /* only scores, pe or mask drawn: no weight is coloured (no pixel changed, and nothing said so) */
        {{"--figures", "scores", "--log-scale"}, "attnviz: warning: --log-scale has no effect with --figures scores: it "
                                                 "colours attention weights (heads, grid, mean, model), not scores, pe, mask\n"},
        {{"--figures", "pe,mask", "--vmax", "0.3"}, "attnviz: warning: --vmax 0.3 has no effect with --figures pe,mask: "},
        {{"--pool", "mean", "--no-plot"}, "attnviz: warning: --pool mean has no effect with --no-plot"},
        {{"--vmax", "0.5", "--no-plot"}, "attnviz: warning: --vmax 0.5 has no effect with --no-plot"},
        {{"--vmax", "auto", "--no-plot"}, "attnviz: warning: --vmax auto has no effect with --no-plot"},
        /* a value the shell would split or drop is quoted as a shell would take it back (GNU ls's shell-escape) */
        {{"--title", "My fig", "--no-plot"}, "attnviz: warning: --title 'My fig' has no effect with --no-plot (no"},
        {{"--title", "it's", "--no-plot"}, "attnviz: warning: --title 'it'\\''s' has no effect with --no-plot (no"},
        {{"--title", "注意力", "--no-plot"}, "attnviz: warning: --title 注意力 has no effect with --no-plot (no"},
        /* cut short inside the quotes at a whole character (3-byte 注), then closed, and "..." says so: the word
         * gets 77 bytes, a piece added while 5 are left, so the quote and 70 bytes (seven 注意力 and their spaces) */
        {{"--title", "注意力 注意力 注意力 注意力 注意力 注意力 注意力 注意力 注意力", "--no-plot"},
         "attnviz: warning: --title '注意力 注意力 注意力 注意力 注意力 注意力 注意力 '... has no effect"},
        {{"--prefix", "a b", "--no-plot"}, "attnviz: warning: --prefix 'a b' has no effect with --no-plot (no"},
        /* scores and pe are always RdBu_r: --cmap changed no pixel, and nothing said so */
        {{"--figures", "scores,pe", "--cmap", "magma"}, "attnviz: warning: --cmap magma has no effect with --figures "
                                                       "scores,pe: scores and pe are always drawn in RdBu_r"},
        {{"--figures", "pe", "--cmap", "gray"}, "attnviz: warning: --cmap gray has no effect with --figures pe"},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        const char *args[16] = {"-q", "-d", "8"};
        char *dir = make_tmpdir();
        int n = 3, no_plot = 0;
        for (int i = 0; c[k].args[i]; i++) no_plot |= strcmp(c[k].args[i], "--no-plot") == 0;
        if (!no_plot) { args[n++] = "-o"; args[n++] = dir; } /* -o with --no-plot would warn too */
        for (int i = 0; c[k].args[i]; i++) args[n++] = c[k].args[i];
        args[n++] = "I love deep learning";
        tu_result r;
        tu_runv(&r, NULL, NULL, args);
        if (!strstr(r.err, c[k].warning)) print_message("case %zu: stderr was: %s\n", k, r.err);
        assert_int_equal(r.code, 0);
        assert_non_null(strstr(r.err, c[k].warning));
        assert_int_equal(strchr(r.err, '\n') - r.err + 1, (long)strlen(r.err)); /* one line */
        tu_free(&r);
        rm_rf(dir);
    }
    /* used options never warn */
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "-H", "2", "--positions", "rope", "--rope-style", "half",
                "--head", "1", "--explain", "0,1", "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    tu_free(&r);
    char *dir = make_tmpdir();
    run_attnviz(&r, NULL, "-q", "-d", "8", "-o", dir, "--figures", "scores,mean", "--log-scale", "--vmax", "0.5",
                "I love deep learning", NULL); /* the mean figure takes them */
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.err, "no effect"));
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "-d", "8", "-o", dir, "--figures", "scores,mask", "--cmap", "magma",
                "I love deep learning", NULL); /* the mask figure takes --cmap */
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.err, "no effect"));
    tu_free(&r);
    /* --seed when --weights gives X and all four W: nothing is drawn at random, so no number changed (a --model
     * refuses --seed for that reason); with a folder that leaves X random (identity-d8) the seed is used */
    char dump[4200];
    snprintf(dump, sizeof dump, "%s/d", dir);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--dump", dump, "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "-w", dump, "--seed", "7", "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.err, "warning: --seed 7 has no effect: --weights ")) fail_msg("stderr was: %s", r.err);
    assert_int_equal(strchr(r.err, '\n') - r.err + 1, (long)strlen(r.err)); /* one line */
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "-w", src_path("assets/weights/identity-d8"), "--seed", "7",
                "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    tu_free(&r);
    rm_rf(dir);
}

/* --compare runs its settings itself, but the sentence's own run (its trace, figures, --dump, --html, --show,
 * --explain) still takes --positions, --rope-style and --no-scale: they were called 'no effect' while
 * head0.png and weights.npy changed with them (a tester's report; `-p rope -d 6 -H 2 --compare order` was
 * then refused for the odd d_k of the option just called 'no effect'). Only a run that shows none of those
 * (-q --no-plot) is warned. */
static void test_compare_keeps_the_sentences_own_settings(void **state) {
    (void)state;
    const struct { const char *what, *a[3], *b[3]; } c[] = {
        {"order", {"--positions", "none", NULL}, {"--positions", "rope", NULL}},
        {"positions", {"--positions", "none", NULL}, {"--positions", "sinusoidal", NULL}},
        {"scale", {"-s", "42", NULL}, {"--no-scale", NULL, NULL}},
        {"rope-style", {"-p", "rope", "--rope-style=interleaved"}, {"-p", "rope", "--rope-style=half"}},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        char *dir = make_tmpdir(), out[2][4200], dump[2][4200], path[4400];
        char *weights[2];
        size_t len[2];
        for (int v = 0; v < 2; v++) {
            const char *const *opt = v ? c[k].b : c[k].a;
            snprintf(out[v], sizeof out[v], "%s/o%d", dir, v);
            snprintf(dump[v], sizeof dump[v], "%s/d%d", dir, v);
            const char *args[16] = {"-q", "-d", "8", "-H", "2", "-o", out[v], "--dump", dump[v], "--compare", c[k].what};
            int n = 11;
            for (int i = 0; i < 3 && opt[i]; i++) args[n++] = opt[i];
            args[n++] = "the cat sat on the mat";
            tu_result r;
            tu_runv(&r, NULL, NULL, args);
            if (r.code != 0 || strstr(r.err, "no effect"))
                fail_msg("--compare %s %s: exit %d: %s", c[k].what, opt[0], r.code, r.err);
            tu_free(&r);
            snprintf(path, sizeof path, "%s/weights.npy", dump[v]);
            weights[v] = tu_slurp_file(path, &len[v]);
            assert_non_null(weights[v]);
            snprintf(path, sizeof path, "%s/head0.png", out[v]);
            assert_int_equal(access(path, F_OK), 0);
        }
        if (len[0] == len[1] && memcmp(weights[0], weights[1], len[0]) == 0) /* the option changed the run */
            fail_msg("--compare %s: %s and %s gave the same weights.npy", c[k].what, c[k].a[0], c[k].b[0]);
        free(weights[0]);
        free(weights[1]);
        rm_rf(dir);
    }
    /* with nothing of the sentence's run shown, the warning stays */
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--compare", "order", "--positions", "rope", "a b c", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.err, "--positions rope has no effect with --compare order")) fail_msg("-q --no-plot: %s", r.err);
    tu_free(&r);
}

/* --train writes a model folder with fixed figures: every option it does not
 * use gets a warning (none was said before: --title, --prefix, --show,
 * --weights, ... were silently dropped, and --no-plot was told it made -o
 * useless), --model with --train is refused, and with --html the page is
 * named with --prefix, so --prefix has an effect there. */
/* --head, --layer, --generate and --figures model with --train warn as every option --train does not use;
 * they were usage errors meant for the single layer: "--head 3 is outside 0..0 (there is 1 head)" though the
 * model trains 4 heads, "add --model DIR", which --train refuses (a new user's report). */
static void test_train_warns_for_model_only_options(void **state) {
    (void)state;
    av_options o;
    av_err err = {{0}};
    const char *const args[] = {"--train", "reverse", "--head", "3", "--layer", "1", "--generate", "3", "--figures",
                                "model", NULL};
    if (parse(&o, &err, args) != AV_OK) fail_msg("%s", err.msg);
    char msgs[AV_MAX_WARNINGS][AV_WARNING_MAX];
    int n = av_unused_options(&o, msgs);
    const char *const want[] = {"--figures model", "--head 3", "--layer 1", "--generate 3"};
    assert_int_equal(n, 4);
    for (int k = 0; k < 4; k++) {
        char line[300]; /* --layer 1 may be --layers 1 mistyped: the warning asks (test_train.c) */
        snprintf(line, sizeof line, k == 2 ? "%s has no effect with --train: did you mean --layers 1? (--layer picks "
                 "a layer of attnviz --model attnviz-out)" : "%s has no effect with --train; use it on a run of the "
                 "trained folder: attnviz --model attnviz-out %s \"3 1 4 1 5 >\"", want[k], want[k]); /* -o's default */
        if (strcmp(msgs[k], line) != 0) fail_msg("warning %d: %s\nwant: %s", k, msgs[k], line);
    }
    av_options_free(&o);
    /* a number as typed, as --head and --layer are named: "--warmup 0100" was told "--warmup 100" */
    const char *const warmup[] = {"--train", "reverse", "--schedule", "constant", "--warmup", "0100", NULL};
    if (parse(&o, &err, warmup) != AV_OK) fail_msg("%s", err.msg);
    assert_int_equal(av_unused_options(&o, msgs), 1);
    assert_string_equal(msgs[0], "--warmup 0100 has no effect with --schedule constant: the lr is --lr from step 1 "
                                 "(cosine and noam warm up)");
    av_options_free(&o);
    /* --warmup 0 asks for no warm-up, which constant has: no warning (it said "--warmup 0 has no effect", a
     * learner's pass) */
    const char *const none[] = {"--train", "reverse", "--schedule", "constant", "--warmup", "0", NULL};
    if (parse(&o, &err, none) != AV_OK) fail_msg("%s", err.msg);
    if (av_unused_options(&o, msgs) != 0) fail_msg("warned: %s", msgs[0]);
    av_options_free(&o);
}

/* --format and --cmap with --train: the warning said "use it on a run of the trained folder: attnviz --model
 * DIR ...", which a figure-maker read as the way to redraw the film strip; --model draws the model's maps,
 * and the film strip, curves and GIF are drawn once, PNG and SVG, viridis. The warning says so. --dpi and
 * --scale apply to the training figures (test_trainfig's test_dpi_and_scale_multiply_training_figures),
 * so they get no warning. */
static void test_train_warns_its_figures_are_fixed(void **state) {
    (void)state;
    av_options o;
    av_err err = {{0}};
    const char *const args[] = {"--train", "reverse", "--format", "svg", "--cmap", "magma", "--dpi", "300", "--scale",
                                "2", NULL};
    if (parse(&o, &err, args) != AV_OK) fail_msg("%s", err.msg);
    char msgs[AV_MAX_WARNINGS][AV_WARNING_MAX];
    const char *const want[] = {"--format svg", "--cmap magma"}; /* in --help's order */
    assert_int_equal(av_unused_options(&o, msgs), 2);
    for (int k = 0; k < 2; k++) {
        char line[300];
        snprintf(line, sizeof line, "%s has no effect with --train: its figures are fixed (PNG + SVG, "
                 "viridis); the trained model's maps take it: attnviz --model attnviz-out %s \"3 1 4 1 5 >\"", want[k],
                 want[k]);
        if (strcmp(msgs[k], line) != 0) fail_msg("warning %d: %s\nwant: %s", k, msgs[k], line);
    }
    av_options_free(&o);
}

static void test_train_warns_every_option_it_does_not_use(void **state) {
    (void)state;
    av_options o;
    av_err err = {{0}};
    const char *const args[] = {"--train", "reverse", "--steps", "3", "-d", "16", "--title", "x", "--prefix", "p_",
                                "--no-plot", "--show", "--weights", "w", "--color", "always", "-o", "out", NULL};
    assert_int_equal(parse(&o, &err, args), AV_OK);
    char msgs[AV_MAX_WARNINGS][AV_WARNING_MAX];
    assert_int_equal(av_unused_options(&o, msgs), 6); /* in the order of --help */
    const char *const want[] = {"--title x", "--prefix p_", "--no-plot", "--weights w", "--color always", "--show"};
    for (int k = 0; k < 6; k++) {
        char line[300];
        /* --weights is for the single attention layer, and --model refuses it: the warning said to use it on
         * the trained folder, and doing so was an error (a new user's report) */
        if (!strcmp(want[k], "--weights w"))
            snprintf(line, sizeof line, "%s has no effect with --train: it is for one attention layer, not a model "
                     "(--model refuses it too)", want[k]);
        else
            snprintf(line, sizeof line, "%s has no effect with --train; use it on a run of the trained folder: "
                     "attnviz --model out %s \"3 1 4 1 5 >\"", want[k], want[k]); /* -o out */
        assert_string_equal(msgs[k], line);
    }
    av_options_free(&o);
    /* -v prints matrices of the single layer only; --precision then has nothing to format */
    assert_int_equal(parse(&o, &err, (const char *[]){"--model", "m", "-v", "--precision", "2", "hi", NULL}), AV_OK);
    assert_int_equal(av_unused_options(&o, msgs), 2);
    assert_string_equal(msgs[0], "-v has no effect with --model: its trace prints no matrices (--dump DIR writes them; "
                                 "--explain Q,K shows one cell's numbers)");
    assert_string_equal(msgs[1], "--precision 2 has no effect without -v/--verbose, --explain or --html (-v prints "
                                 "nothing more with --model)");
    av_options_free(&o);
    assert_int_equal(parse(&o, &err, (const char *[]){"--model", "m", "--explain", "1,0", "--precision", "2", "hi",
                                                      NULL}), AV_OK);
    assert_int_equal(av_unused_options(&o, msgs), 0);
    av_options_free(&o);
    /* --kernel reference trains with the readable loops: used; flash is not */
    assert_int_equal(parse(&o, &err, (const char *[]){"--train", "sort", "--kernel", "reference", NULL}), AV_OK);
    assert_int_equal(av_unused_options(&o, msgs), 0);
    av_options_free(&o);
    assert_int_equal(parse(&o, &err, (const char *[]){"--train", "sort", "--kernel", "flash", NULL}), AV_OK);
    assert_int_equal(av_unused_options(&o, msgs), 1);
    assert_string_equal(msgs[0], "--kernel flash has no effect with --train: it trains with blas (or --kernel reference)");
    av_options_free(&o);
    expect_usage((const char *[]){"--train", "reverse", "--model", "m", NULL},
                 "--train makes a model folder and --model runs one; give one of them: attnviz --train reverse -o "
                 "runs/reverse, then attnviz --model runs/reverse \"3 1 4 1 5 >\", or run m: attnviz --model m "
                 "\"3 1 4 1 5 >\"");
    assert_int_equal(parse(&o, &err, (const char *[]){"--html", "--no-plot", "--prefix", "p_", "hi", NULL}), AV_OK);
    assert_int_equal(av_unused_options(&o, msgs), 0);
    av_options_free(&o);
}

/* A --train warning gives a command to paste only when --model runs it with the trained model: `--train reverse
 * --figures mean` said "use it on a run of the trained folder: attnviz --model out --figures mean \"3 1 4 1 5 >\"",
 * which --model refuses ("mean, scores and mask are for the single layer"), as it refused --head 7 of the 4 heads
 * trained ("outside 0..3"), --layer 3 of 2 layers and --explain 0,9 or 爱,我 beside the prompt's 6 tokens (a
 * review). Those now say why instead; each command still given is trained for and run here, and must exit 0. The
 * reverse task trains 4 heads (docs/train.md) and its prompt "3 1 4 1 5 >" is 6 tokens, 0..5. */
static void test_train_warnings_paste_only_what_model_runs(void **state) {
    tu_fixture *f = *state;
    static const struct {
        const char *opt[4];
        const char *why; /* after "--NAME VALUE has no effect with --train", or NULL: the command, run below */
    } cases[] = {
        {{"--figures", "mean"}, ", and --model draws mean, scores and mask only for the single layer"},
        {{"--figures", "scores"}, ", and --model draws mean, scores and mask only for the single layer"},
        {{"--figures", "heads,mask"}, ", and --model draws mean, scores and mask only for the single layer"},
        {{"--figures", "mean,model"}, ", and --model draws mean, scores and mask only for the single layer"},
        {{"--figures", "all,mean"}, NULL}, /* "all" runs with --model */
        {{"--figures", "heads"}, NULL},
        {{"--head", "7"}, ", and the trained model has 4 heads (0..3)"},
        {{"--heads", "2", "--head", "3"}, ", and the trained model has 2 heads (0..1)"},
        {{"--head", "3"}, NULL}, /* 3 of 0..3; --heads 3 does not divide d_model 16, so no "did you mean" */
        {{"--layers", "2", "--layer", "3"}, ", and the trained model has 2 layers (0..1)"},
        {{"--explain", "爱,我"}, "; pick a query,key pair of the trained model's input with --model DIR --explain"},
        {{"--explain", "0,9"}, "; pick a query,key pair of the trained model's input with --model DIR --explain"},
        {{"--explain", "0,6"}, "; pick a query,key pair of the trained model's input with --model DIR --explain"},
        {{"--explain", "3,1,2"}, "; pick a query,key pair of the trained model's input with --model DIR --explain"},
        {{"--explain", "0,5"}, NULL},
        {{"--explain", "3,>"}, NULL}, /* index 3 and the prompt's word ">" */
        {{"--explain", "0，5"}, NULL},  /* the full-width comma U+FF0C */
    };
    char model[4200], out[4200];
    snprintf(model, sizeof model, "%s", tu_in(f, "m"));
    snprintf(out, sizeof out, "%s", tu_in(f, "o"));
    tu_result r;
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "-d", "16", "-q", "-o", model, NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[16] = {"--train", "reverse", "--steps", "2", "-d", "16", "-o", "out"};
        int n = 8, last = 0;
        for (int k = 0; k < 4 && cases[i].opt[k]; k++) args[n++] = cases[i].opt[k], last = k;
        args[n] = NULL;
        av_options o;
        av_err err = {{0}};
        assert_int_equal(parse(&o, &err, args), AV_OK);
        char msgs[AV_MAX_WARNINGS][AV_WARNING_MAX], given[80], want[600];
        assert_int_equal(av_unused_options(&o, msgs), 1);
        av_options_free(&o);
        const char *name = cases[i].opt[last - 1], *value = cases[i].opt[last];
        snprintf(given, sizeof given, strchr(value, '>') ? "%s '%s'" : "%s %s", name, value);
        if (cases[i].why) snprintf(want, sizeof want, "%s has no effect with --train%s", given, cases[i].why);
        else
            snprintf(want, sizeof want, "%s has no effect with --train; use it on a run of the trained folder: "
                     "attnviz --model out %s \"3 1 4 1 5 >\"", given, given);
        if (strcmp(msgs[0], want) != 0) fail_msg("case %zu: '%s', want '%s'", i, msgs[0], want);
        if (cases[i].why) continue;
        run_attnviz(&r, NULL, "--model", model, name, value, "3 1 4 1 5 >", "-q", "-o", out, NULL);
        if (r.code != 0) fail_msg("case %zu: the pasted command exits %d: %s", i, r.code, r.err);
        tu_free(&r);
    }
}

/* A --train refusal or warning that gives a command to paste gives one that runs as typed: it ended in "..."
 * ("try: attnviz --train reverse --steps ... -o DIR", "attnviz --train TASK -o DIR, then attnviz --model DIR
 * \"...\"", "attnviz --model out --dump ..."), which the shell passed on as --steps's value, a task, a folder
 * or --dump's folder (a learner's pass). Each command below is written by hand from what was typed, and is
 * parsed again here: it must be accepted (AV_OK), with the prompt of the task docs/train.md gives. */
static void test_train_hints_paste_as_typed(void **state) {
    (void)state;
    av_options o;
    av_err err = {{0}};
    static const struct {
        const char *args[10];
        const char *want;
        const char *paste[12]; /* the command the message gives, as the shell splits it, without "attnviz" */
    } cases[] = {
        {{"--steps", "100", "hi", NULL}, "--steps is an option of --train; try: attnviz --train reverse --steps 100 "
         "-o runs/reverse", {"--train", "reverse", "--steps", "100", "-o", "runs/reverse", NULL}},
        /* every --train option given goes into the command, not only the first, in the order typed, each value as
         * typed ("--batch 8 --lr 0.001" before; %g wrote 1.23456789e-4 as 0.000123457) */
        {{"--lr", "1e-3", "--batch", "8", "hi", NULL}, "--lr is an option of --train; try: attnviz --train reverse "
         "--lr 1e-3 --batch 8 -o runs/reverse", {"--train", "reverse", "--lr", "1e-3", "--batch", "8", "-o",
         "runs/reverse", NULL}},
        {{"--norm=post", "--lr", "1.23456789e-4", "--steps", "5", "hi", NULL}, "--norm is an option of --train; try: "
         "attnviz --train reverse --norm post --lr 1.23456789e-4 --steps 5 -o runs/reverse", {"--train", "reverse",
         "--norm", "post", "--lr", "1.23456789e-4", "--steps", "5", "-o", "runs/reverse", NULL}},
        /* without -o, not "-o m": pasted, that retrained into the --model folder m and replaced its model */
        {{"--train", "induction", "--model", "m", NULL}, "--train makes a model folder and --model runs one; give one "
         "of them: attnviz --train induction -o runs/induction, then attnviz --model runs/induction \"k q a z m k q "
         "a\", or run m: attnviz --model m \"k q a z m k q a\"", {"--model", "m", "k q a z m k q a", NULL}},
        {{"--train", "reverse", "--model", "r1", "9", "8", "7", ">", NULL}, "--train makes a model folder and --model "
         "runs one; give one of them: attnviz --train reverse -o runs/reverse, then attnviz --model runs/reverse "
         "\"3 1 4 1 5 >\", or run r1: attnviz --model r1 \"9 8 7 >\"", {"--model", "r1", "9 8 7 >", NULL}},
        /* a sentence that starts with '-' after "--", where the parser wants it ("attnviz --model trx \"-3 1 >\""
         * is refused) */
        {{"--train", "reverse", "--model", "trx", "--", "-3 1 >", NULL}, "--train makes a model folder and --model "
         "runs one; give one of them: attnviz --train reverse -o runs/reverse, then attnviz --model runs/reverse "
         "\"3 1 4 1 5 >\", or run trx: attnviz --model trx -- \"-3 1 >\"", {"--model", "trx", "--", "-3 1 >", NULL}},
        {{"--train", "reverse", "--model", "r1", "-o", "out", NULL}, "--train makes a model folder and --model runs "
         "one; give one of them: attnviz --train reverse -o out, then attnviz --model out \"3 1 4 1 5 >\"",
         {"--train", "reverse", "-o", "out", NULL}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(parse(&o, &err, cases[i].args), AV_EUSAGE);
        if (strcmp(err.msg, cases[i].want) != 0) fail_msg("case %zu: '%s', want '%s'", i, err.msg, cases[i].want);
        av_options_free(&o);
        if (parse(&o, &err, cases[i].paste) != AV_OK) fail_msg("case %zu: the pasted command fails: %s", i, err.msg);
        if (i == 2 && (o.lr != 1.23456789e-4 || o.steps != 5 || o.norm != 1 /* post */)) fail_msg("lr %g", o.lr);
        av_options_free(&o);
    }
    /* a value too long to cut is given whole ("--steps 000...000" of 62 bytes, the 72-digit 10 cut, is --steps
     * 0), and one too long for the message is left out and named, not cut */
    char steps[600], want[700];
    memset(steps, '0', 70), strcpy(steps + 70, "10");
    assert_int_equal(parse(&o, &err, (const char *[]){"--steps", steps, "hi", NULL}), AV_EUSAGE);
    snprintf(want, sizeof want, "--steps is an option of --train; try: attnviz --train reverse --steps %s -o "
             "runs/reverse", steps);
    assert_string_equal(err.msg, want);
    av_options_free(&o);
    assert_int_equal(parse(&o, &err, (const char *[]){"--train", "reverse", "--steps", steps, "-o", "runs/reverse",
                                                      NULL}), AV_OK);
    assert_int_equal(o.steps, 10);
    av_options_free(&o);
    memset(steps, '0', 500), strcpy(steps + 500, "10");
    assert_int_equal(parse(&o, &err, (const char *[]){"--steps", steps, "--lr", "1e-3", "hi", NULL}), AV_EUSAGE);
    assert_string_equal(err.msg, "--steps is an option of --train; try: attnviz --train reverse --lr 1e-3 -o "
                                 "runs/reverse (add your --steps: too long to repeat here)");
    av_options_free(&o);
    /* the --model folder and the sentence, each one word that bash reads back as typed */
    assert_int_equal(parse(&o, &err, (const char *[]){"--train", "induction", "--model", "/tmp/a b", "it's", "$x",
                                                      NULL}), AV_EUSAGE);
    assert_string_equal(err.msg, "--train makes a model folder and --model runs one; give one of them: attnviz --train "
                                 "induction -o runs/induction, then attnviz --model runs/induction \"k q a z m k q a\", "
                                 "or run '/tmp/a b': attnviz --model '/tmp/a b' 'it'\\''s $x'");
    char back[64];
    assert_int_equal(tu_bash_reads(back, sizeof back, "'it'\\''s $x'"), 0);
    assert_string_equal(back, "it's $x");
    assert_int_equal(tu_bash_reads(back, sizeof back, "'/tmp/a b'"), 0);
    assert_string_equal(back, "/tmp/a b");
    av_options_free(&o);
    /* the warnings' commands: --dump's folder as typed, and a prompt, where they said "--dump ..." */
    assert_int_equal(parse(&o, &err, (const char *[]){"--train", "sort", "--dump", "d", "--title", "t", "-o", "out",
                                                      NULL}), AV_OK);
    char msgs[AV_MAX_WARNINGS][AV_WARNING_MAX];
    assert_int_equal(av_unused_options(&o, msgs), 2);
    assert_string_equal(msgs[0], "--dump d has no effect with --train; dump a run of the trained folder: attnviz "
                                 "--model out --dump d \"3 1 4 1 5 >\"");
    assert_string_equal(msgs[1], "--title t has no effect with --train; use it on a run of the trained folder: "
                                 "attnviz --model out --title t \"3 1 4 1 5 >\"");
    av_options_free(&o);
    assert_int_equal(parse(&o, &err, (const char *[]){"--model", "out", "--dump", "d", "3 1 4 1 5 >", NULL}), AV_OK);
    av_options_free(&o);
    /* a --dump folder of 80 d's whole in the command (cut to 50 and "...", pasted it made another folder), a
     * --title of 300 x's left out of it and named (the prose keeps its cut with the mark) */
    char dump[81], title[301], x49[50];
    memset(dump, 'd', 80), dump[80] = 0, memset(title, 'x', 300), title[300] = 0, memset(x49, 'x', 49), x49[49] = 0;
    assert_int_equal(parse(&o, &err, (const char *[]){"--train", "sort", "--dump", dump, "--title", title, "-o",
                                                      "out", NULL}), AV_OK);
    assert_int_equal(av_unused_options(&o, msgs), 2);
    snprintf(want, sizeof want, "--dump %.50s... has no effect with --train; dump a run of the trained folder: "
             "attnviz --model out --dump %s \"3 1 4 1 5 >\"", dump, dump);
    assert_string_equal(msgs[0], want);
    snprintf(want, sizeof want, "--title %s... has no effect with --train; use it on a run of the trained folder: "
             "attnviz --model out \"3 1 4 1 5 >\" (add your --title: too long to repeat here)", x49);
    assert_string_equal(msgs[1], want);
    av_options_free(&o);
    assert_int_equal(parse(&o, &err, (const char *[]){"--model", "out", "--dump", dump, "3 1 4 1 5 >", NULL}), AV_OK);
    assert_string_equal(o.dump_dir, dump);
    av_options_free(&o);
}

/* `--train reverse --model runs/reverse "3 1 4 1 5 >"`, runs/reverse a trained folder, suggested "attnviz --train
 * reverse -o runs/reverse, then ...": pasted, that retrained into the --model folder and replaced its model, what
 * the refusal is there to prevent. It now suggests the first of runs/reverse, runs/reverse2, ... that holds no
 * config.json and is not the --model folder however it is written (./runs/reverse, runs/reverse/, a link to it).
 * Each suggested folder is checked here with stat as well: no config.json, another inode than --model's. */
static void test_train_model_suggests_a_folder_that_is_not_the_model(void **state) {
    (void)state;
    char *dir = make_tmpdir(), path[4300];
    static const char *const mk[] = {"runs", "runs/reverse", "runs/reverse2", "other"};
    for (size_t i = 0; i < sizeof mk / sizeof mk[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, mk[i]);
        assert_int_equal(mkdir(path, 0755), 0);
    }
    snprintf(path, sizeof path, "%s/lnk", dir);
    assert_int_equal(symlink("runs/reverse", path), 0);
    static const struct {
        const char *cfg;   /* a config.json to write first ("" for none), relative to the run's folder */
        const char *model; /* --model as typed */
        const char *fresh; /* the folder the message must suggest */
    } cases[] = {
        {"", "other", "runs/reverse"},                   /* runs/reverse holds no model and is not --model */
        {"", "runs/reverse/", "runs/reverse2"},          /* no model yet, but the --model folder itself */
        {"", "lnk", "runs/reverse2"},                    /* a link to it */
        {"runs/reverse/config.json", "runs/reverse", "runs/reverse2"},
        {"", "./runs/reverse", "runs/reverse2"},
        {"", "other", "runs/reverse2"},                  /* runs/reverse holds a model: not replaced either */
        {"runs/reverse2/config.json", "runs/reverse", "runs/reverse3"},
        {"", "runs/reverse/", "runs/reverse3"},
    };
    tu_run_opts ro = {.cwd = dir, .stdout_fd = -1};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].cfg[0]) {
            snprintf(path, sizeof path, "%s/%s", dir, cases[i].cfg);
            FILE *fp = fopen(path, "w");
            assert_non_null(fp);
            fputs("{}\n", fp);
            fclose(fp);
        }
        tu_result r;
        tu_run_ex(&r, &ro, NULL, 0, (const char *const[]){"--train", "reverse", "--model", cases[i].model,
                                                          "3 1 4 1 5 >", NULL});
        char want[600];
        snprintf(want, sizeof want, "attnviz: error: --train makes a model folder and --model runs one; give one of "
                 "them: attnviz --train reverse -o %s, then attnviz --model %s \"3 1 4 1 5 >\", or run %s: attnviz "
                 "--model %s \"3 1 4 1 5 >\"\n", cases[i].fresh, cases[i].fresh, cases[i].model, cases[i].model);
        assert_int_equal(r.code, 2);
        if (strcmp(r.err, want) != 0) fail_msg("case %zu: '%s', want '%s'", i, r.err, want);
        tu_free(&r);
        struct stat ms, fs;
        snprintf(path, sizeof path, "%s/%s/config.json", dir, cases[i].fresh);
        if (stat(path, &fs) == 0) fail_msg("case %zu: %s holds a model", i, cases[i].fresh);
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].model);
        assert_int_equal(stat(path, &ms), 0);
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].fresh);
        if (stat(path, &fs) == 0 && fs.st_dev == ms.st_dev && fs.st_ino == ms.st_ino)
            fail_msg("case %zu: %s is the --model folder %s", i, cases[i].fresh, cases[i].model);
    }
    rm_rf(dir);
}

/* One head, one token: counted in the singular ("all 1 heads", "T = 1 tokens" before). */
static void test_one_head_and_one_token_in_the_singular(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--compare", "scale", "--color", "never", "I love you", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "--compare scale: same sentence, same X and weights, the one head\n"));
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "-H", "2", "--compare", "scale", "--color", "never", "I love you",
                NULL);
    assert_non_null(strstr(r.out, "--compare scale: same sentence, same X and weights, both heads\n"));
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--explain", "1,0", "hi", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--explain query index 1 is outside 0..0 (T = 1 token)\n"));
    tu_free(&r);
}

/* An --explain cell that names no token is refused before the (H, T, T) maps are computed: `--explain zzz,When
 * --heads 8 -f` a 5000-token text ran 6 s and took 1.7 GiB (25 s on --kernel reference) before its usage error,
 * and under a memory limit said "out of memory" (exit 1) instead (a long-input learner's pass). Here 3000 tokens
 * at 8 heads (576 MB of weights and scores) under a 400 MB address-space limit (tu_run_opts.as_limit_kib, as
 * `ulimit -v 400000`): the --explain error, exit 2, as for an index out of range. A spec that resolves prints its
 * notes once. Skipped under AddressSanitizer, which cannot start under such a limit. */
static void test_explain_refused_before_the_maps(void **state) {
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip();
#else
    tu_result r;
    static char words[3000 * 3 + 1];
    for (int i = 0; i < 3000; i++) memcpy(words + 3 * i, "ab ", 3);
    words[3000 * 3 - 1] = 0;
    const char *bad[][2] = {
        {"zz,ab", "attnviz: error: --explain query 'zz' is neither a token of the sentence nor an index 0..2999\n"},
        {"0,3000", "attnviz: error: --explain key index 3000 is outside 0..2999 (T = 3000 tokens)\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[] = {"-q", "--no-plot", "--heads", "8", "-d", "8", "--explain", bad[i][0], words, NULL};
        tu_run_ex(&r, &(tu_run_opts){.stdout_fd = -1, .as_limit_kib = 400000}, NULL, 0, args);
        if (r.code != 2 || strcmp(r.err, bad[i][1])) fail_msg("--explain %s: exit %d: %s", bad[i][0], r.code, r.err);
        assert_string_equal(r.out, "");
        tu_free(&r);
    }
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--explain", "love,you", "I love you I love", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "attnviz: note: --explain query 'love' occurs 2 times; using the first (index 1); give "
                               "an index to pick another\n");
    tu_free(&r);
#endif
}

/* Out of memory for the (H, T, T) weights, the message's way on must run: it said "(the (heads, T, T) weights;
 * the flash kernel needs none)", and `--kernel flash` with figures is refused (a long-input learner's pass).
 * 4000 tokens at 8 heads (1 GB of weights and scores) under a 900 MB address-space limit: exit 1 naming what
 * needs the weights and --no-plot; the same run with --no-plot (flash, auto's choice then; one OpenBLAS thread,
 * whose buffers take address space per thread) runs under it. Skipped under AddressSanitizer, which cannot start
 * under such a limit. */
static void test_weights_out_of_memory_says_a_way_that_runs(void **state) {
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip();
#else
    tu_result r;
    static char words[4000 * 3 + 1];
    for (int i = 0; i < 4000; i++) memcpy(words + 3 * i, "ab ", 3);
    words[4000 * 3 - 1] = 0;
    char *dir = make_tmpdir(), out[4200];
    snprintf(out, sizeof out, "%s/o", dir);
    const char *one[] = {"OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", NULL};
    tu_run_opts ro = {.stdout_fd = -1, .env_extra = one, .as_limit_kib = 900000};
    const char *figs[] = {"-q", "--heads", "8", "-d", "8", "-o", out, words, NULL};
    tu_run_ex(&r, &ro, NULL, 0, figs);
    if (r.code != 1 || !strstr(r.err, "out of memory allocating tensors for T=4000, d_model=8, heads=8 (the (heads, "
                                      "T, T) weights, which the figures, --dump, --show, --explain, --compare and "
                                      "--html need: give fewer tokens or heads, or leave those out (--no-plot for the "
                                      "figures) and the flash kernel, auto's choice then, keeps none)"))
        fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    const char *plain[] = {"-q", "--heads", "8", "-d", "8", "--no-plot", words, NULL};
    tu_run_ex(&r, &ro, NULL, 0, plain);
    if (r.code != 0) fail_msg("--no-plot under the same limit: exit %d: %s", r.code, r.err);
    tu_free(&r);
    rm_rf(dir);
#endif
}

/* --compare scale with d_k = 1 (--d-model 8 --heads 8): √1 = 1, so the two rows are the same and max |ΔA| is 0;
 * the table says why, and only then (a teacher's pass: a class saw two equal rows and no reason). */
static void test_compare_scale_says_when_d_k_is_one(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "-H", "8", "--compare", "scale", "--color", "never",
                "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    const char *no = strstr(r.out, "  no scale ");
    assert_non_null(no);
    if (!strstr(no, " 0.0000\n")) fail_msg("max |ΔA| is not 0 with d_k = 1:\n%s", r.out);
    if (!strstr(r.out, "(d_k = d_model / H = 8 / 8 = 1, and √1 = 1: the scale divides by 1, so the rows are the same;"))
        fail_msg("no note that d_k = 1:\n%s", r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "-H", "4", "--compare", "scale", "--color", "never",
                "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.out, "d_k = d_model / H"));
    tu_free(&r);
}

/* --compare scale's uniform reference follows the mask the runs use: a
 * masked key gets no weight, so row i spread evenly over its n_i visible
 * keys has entropy ln(n_i), and the reference is the mean of ln(n_i) over
 * the real query rows. It printed ln(T) over all T keys, padding included. */
static void test_compare_uniform_entropy_follows_the_mask(void **state) {
    (void)state;
    double ln1234 = (log(1.0) + log(2.0) + log(3.0) + log(4.0)) / 4; /* causal, 4 real tokens: 0.795 */
    static const struct {
        const char *opt[4]; /* NULL-terminated */
        int causal, all;    /* all: every real row sees all T = 4 keys */
        double want;        /* ln(4) otherwise */
    } cases[] = {
        {{"--causal", NULL}, 1, 0, 0},
        {{"--causal", "--pad-to", "6", NULL}, 1, 0, 0}, /* <pad> keys 4, 5 masked: rows see 1..4 keys */
        {{"--pad-to", "6", NULL}, 0, 0, 0},             /* every real row sees the 4 real keys of 6 */
        {{NULL}, 0, 1, 0},                              /* no mask: ln(T) = ln 4 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[16] = {"-q", "--no-plot", "--heads", "2", "--compare", "scale", "--color", "never"};
        int n = 8;
        for (int k = 0; cases[i].opt[k]; k++) argv[n++] = cases[i].opt[k];
        argv[n++] = "I love deep learning";
        argv[n] = NULL;
        tu_result r;
        tu_runv(&r, NULL, NULL, argv);
        assert_int_equal(r.code, 0);
        char want[160];
        double u = cases[i].causal ? ln1234 : log(4.0);
        if (cases[i].all)
            snprintf(want, sizeof want, "uniform over all 4 keys would be ln(4) = %.3f)", u);
        else
            snprintf(want, sizeof want, "uniform over each row's visible keys would be %.3f, the mean over those rows", u);
        if (!strstr(r.out, want)) fail_msg("case %zu: want '%s' in:\n%s", i, want, r.out);
        assert_null(strstr(r.out, "ln(6)"));
        tu_free(&r);
    }
}

/* --compare scale with --attn-mask rows that see no key: their weights are all 0 and the table's means leave
 * them out, but the note said "over the 3 real query rows" and, with every row masked, printed 0.0000 for both
 * settings above "uniform over all 3 keys would be ln(3) = 1.099" (a tester's report). The note counts the
 * rows it averages and names the ones left out; with none left it says the 0s measure nothing. */
static void test_compare_leaves_out_rows_with_every_key_masked(void **state) {
    (void)state;
    char *dir = make_tmpdir(), path[4200];
    snprintf(path, sizeof path, "%s/m.npy", dir);
    static const unsigned char one_row[9] = {0, 1, 1, 0, 0, 1, 1, 1, 1}; /* row 2 sees nothing */
    write_bool_mask(path, one_row, 3);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--color", "never", "--attn-mask", path, "--compare", "scale", "a b c", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "(over the 2 real query rows of every head that see a key;") ||
        !strstr(r.out, "(1 real query row sees no key (every key masked): weights all 0, left out)") ||
        !strstr(r.out, "uniform over each row's visible keys would be 0.347,")) /* (ln 1 + ln 2) / 2 */
        fail_msg("one masked row:\n%s", r.out);
    tu_free(&r);
    static const unsigned char all[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    write_bool_mask(path, all, 3);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--color", "never", "--attn-mask", path, "--compare", "scale", "a b c", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "(all 3 real query rows see no key (every key masked): the weights are all 0, so there is no "
                       "row\n  to average, and the 0s above measure nothing)") || strstr(r.out, "ln(3)") ||
        strstr(r.out, "uniform over"))
        fail_msg("every row masked:\n%s", r.out);
    tu_free(&r);
    rm_rf(dir);
}

/* "--head 8" with one head was meant as --heads 8; with --heads given it is not. */
static void test_head_out_of_range_suggests_heads(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--head", "8", "I love deep learning", NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: --head 8 is outside 0..0 (there is 1 head); did you mean --heads 8?\n");
    tu_free(&r);
    run_attnviz(&r, NULL, "--heads", "2", "--head", "5", "I love deep learning", NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: --head 5 is outside 0..1 (there are 2 heads)\n");
    tu_free(&r);
    /* --head 1 with one head said "did you mean --heads 1?", the one head it had, and --head 3 offered
     * --heads 3, which d_model 512 does not divide (a tester's report); --head H is heads counted from 1 */
    static const struct {
        const char *args[6], *says;
    } rows[] = {
        {{"--head", "1"}, "--head 1 is outside 0..0 (there is 1 head); heads are numbered from 0, so the only head is 0\n"},
        {{"-H", "1", "--head", "1"}, "--head 1 is outside 0..0 (there is 1 head); heads are numbered from 0, so the only "
                                     "head is 0\n"},
        {{"-H", "8", "--head", "8"}, "--head 8 is outside 0..7 (there are 8 heads); heads are numbered from 0, so the last "
                                     "is 7\n"},
        {{"--head", "3"}, "--head 3 is outside 0..0 (there is 1 head)\n"}, /* 512 / 3 is no d_k */
        {{"-p", "rope", "-d", "8", "--head", "8"}, "--head 8 is outside 0..0 (there is 1 head)\n"}, /* d_k 1: odd */
        {{"-d", "8", "--head", "4"}, "--head 4 is outside 0..0 (there is 1 head); did you mean --heads 4?\n"},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        const char *argv[8] = {0};
        int n = 0;
        for (int i = 0; i < 6 && rows[k].args[i]; i++) argv[n++] = rows[k].args[i];
        argv[n++] = "a b";
        tu_runv(&r, NULL, NULL, argv);
        char want[200];
        snprintf(want, sizeof want, "attnviz: error: %s", rows[k].says);
        if (r.code != 2 || strcmp(r.err, want) != 0) fail_msg("row %zu: exit %d: %s", k, r.code, r.err);
        tu_free(&r);
    }
}

/* The trace's width follows stdout's terminal only: redirected to a file it
 * is the same whatever terminal stderr is on (a 40-column one here, through a
 * pseudo-terminal), as when nothing is a terminal. It once took stderr's width. */
static void test_redirected_trace_ignores_stderrs_terminal(void **state) {
    (void)state;
    const char *S = "the quick brown fox jumps over the lazy dog again and again";
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--show", "--color", "never", S, NULL);
    assert_int_equal(r.code, 0);
    char path[] = "/tmp/attnviz_show_XXXXXX";
    int out = mkstemp(path);
    assert_true(out >= 0);
    struct winsize ws = {.ws_row = 24, .ws_col = 40};
    int fd;
    pid_t pid = forkpty(&fd, NULL, NULL, &ws);
    assert_true(pid >= 0);
    if (pid == 0) {
        unsetenv("COLUMNS");
        dup2(out, STDOUT_FILENO);
        execl(tu_bin(), tu_bin(), "-q", "--no-plot", "-d", "8", "--show", "--color", "never", S, (char *)NULL);
        _exit(127);
    }
    char sink[4096];
    while (read(fd, sink, sizeof sink) > 0) {}
    close(fd);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    size_t n = 0;
    char *file = tu_slurp_file(path, &n);
    unlink(path);
    close(out);
    assert_non_null(file);
    assert_string_equal(file, r.out);
    free(file);
    tu_free(&r);
}

/* The columns a terminal gives s: 2 for East Asian wide characters (U+1100..115F, U+2E80..A4CF, U+AC00..D7A3,
 * U+F900..FAFF, U+FE30..FE4F, U+FF00..FF60, U+FFE0..FFE6), 0 for combining marks (U+0300..036F), else 1;
 * counted here from the bytes, apart from the tool's av_utf8_width */
static int columns_of(const char *s, size_t n) {
    int w = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        unsigned cp = c;
        int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (len > 1) cp = c & (0x3F >> (len - 1));
        for (int k = 1; k < len && i + (size_t)k < n; k++) cp = cp << 6 | ((unsigned char)s[i + k] & 0x3F);
        i += (size_t)len;
        if (cp >= 0x300 && cp <= 0x36F) continue;
        w += (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
                     (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                     (cp >= 0xFFE0 && cp <= 0xFFE6)
                 ? 2
                 : 1;
    }
    return w;
}

/* A learner's 80-column terminal: the trace's lines ran up to 190 columns (step [4]'s "measured var(Q) = …
 * (X.npy, W_Q.npy, W_K.npy loaded: the N(0, 1/d_model) rule does not hold, …)" with --weights, 115 the mask
 * line of --causal --pad-to, 111 --compare's "(over the 2 real query rows of every head that see a key; …"),
 * and the terminal broke them at column 80 into column 0, while lines such as the weights line were broken by
 * hand. On a pseudo-terminal of 80 columns, every line of the trace, --explain and --compare of these runs
 * is at most 80 columns (counted by columns_of) and holds the same words in the same order as the same run
 * into a pipe, which keeps its lines whole (the README's and the pages' text). The rows of tables (-v's
 * matrices, the online softmax's tiles) are not broken and are left out of these runs. */
static void test_trace_fits_an_80_column_terminal(void **state) {
    (void)state;
    char *dir = make_tmpdir(), wdir[4200], path[4300], mask[4300];
    av_err err;
    snprintf(wdir, sizeof wdir, "%s/w", dir);
    assert_int_equal(mkdir(wdir, 0755), 0);
    float x[3 * 8], w[8 * 8];
    for (int i = 0; i < 3 * 8; i++) x[i] = (float)((i * 7) % 11) - 5.0f;
    for (int i = 0; i < 8 * 8; i++) w[i] = (float)((i * 5) % 13) / 4.0f - 1.5f;
    snprintf(path, sizeof path, "%s/X.npy", wdir);
    assert_int_equal(av_npy_write(path, x, 2, (size_t[]){3, 8}, &err), AV_OK);
    snprintf(path, sizeof path, "%s/W_Q.npy", wdir);
    assert_int_equal(av_npy_write(path, w, 2, (size_t[]){8, 8}, &err), AV_OK);
    snprintf(path, sizeof path, "%s/W_K.npy", wdir);
    assert_int_equal(av_npy_write(path, w, 2, (size_t[]){8, 8}, &err), AV_OK);
    /* a bool (3, 3) mask hiding every key of row 0 */
    snprintf(mask, sizeof mask, "%s/m.npy", dir);
    FILE *mf = fopen(mask, "wb");
    assert_non_null(mf);
    char head[119]; /* 10 bytes before it and these 118: 128, a multiple of 64, ending in '\n' */
    int hl = snprintf(head, sizeof head, "{'descr': '|b1', 'fortran_order': False, 'shape': (3, 3), }");
    memset(head + hl, ' ', sizeof head - 1 - (size_t)hl);
    head[sizeof head - 2] = '\n';
    fwrite("\x93NUMPY\x01\x00\x76\x00", 1, 10, mf);
    fwrite(head, 1, sizeof head - 1, mf);
    fwrite("\1\1\1\0\1\1\0\0\1", 1, 9, mf);
    assert_int_equal(fclose(mf), 0);
    const char *const runs[][16] = {
        {"I love deep learning"},
        {"-w", wdir, "-d", "8", "-H", "2", "a b c"},
        {"--compare", "scale", "-d", "8", "-H", "2", "--attn-mask", mask, "a b c"},
        {"-d", "8", "-H", "2", "--attn-mask", mask, "--causal", "a b c"},
        {"--causal", "--pad-to", "7", "我 爱 你"},
        {"--positions", "rope", "--rope-style", "half", "--rope-base", "100", "--explain", "1,3", "I love deep learning"},
        {"--positions", "none", "--no-scale", "-H", "8", "--compare", "positions", "I love deep learning"},
        {"-d", "8", "-H", "8", "--compare", "scale", "the cat sat"},
        {"--compare", "order", "我爱深度学习"},
        {"-d", "6", "-H", "3", "--causal", "--pad-to", "5", "--explain", "4,0", "a b"},
        {"-d", "16", "--precision", "0", "--explain", "0,1", "a b c"},
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        const char *argv[24] = {tu_bin(), "--no-plot", "--color", "never"};
        int argc = 4;
        for (int a = 0; a < 16 && runs[k][a]; a++) argv[argc++] = runs[k][a];
        argv[argc] = NULL;
        tu_result piped;
        tu_runv(&piped, NULL, NULL, argv + 1);
        if (piped.code != 0) fail_msg("run %zu: exit %d: %s", k, piped.code, piped.err);
        struct winsize ws = {.ws_row = 24, .ws_col = 80};
        int fd;
        pid_t pid = forkpty(&fd, NULL, NULL, &ws);
        assert_true(pid >= 0);
        if (pid == 0) {
            unsetenv("COLUMNS");
            int null = open("/dev/null", O_WRONLY);
            dup2(null, STDERR_FILENO); /* notes: one line each, the terminal's to break */
            execv(tu_bin(), (char *const *)argv);
            _exit(127);
        }
        char *out = malloc(TU_CAP + 1);
        assert_non_null(out);
        int status = tu_pty_collect(fd, pid, out, TU_CAP + 1, NULL, 0);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        char *wr = out; /* the terminal's \r\n back to \n */
        for (const char *rd = out; *rd; rd++)
            if (*rd != '\r') *wr++ = *rd;
        *wr = 0;
        for (const char *line = out; *line;) {
            size_t n = strcspn(line, "\n");
            if (columns_of(line, n) > 80)
                fail_msg("run %zu: a line of %d columns on an 80-column terminal:\n%.*s\nin:\n%s", k,
                         columns_of(line, n), (int)n, line, out);
            line += n + (line[n] == '\n');
        }
        if (!tu_same_words(out, piped.out))
            fail_msg("run %zu: the terminal's text is not the pipe's:\n%s\n---\n%s", k, out, piped.out);
        free(out);
        tu_free(&piped);
    }
    rm_rf(dir);
}

/* Whether the word s[0..n) is a piece of a shape cut at its ", ": "(4," or "(2, 4," ends a line, "512)" or
 * "4, 512)" begins one (a shape is letters, digits and '_' between "(", ", " and ")"; a piece that begins a
 * line is a number or has a ", ") */
static int shape_piece(const char *s, size_t n, int at_end) {
    if (n < 2) return 0;
    if (at_end ? s[0] != '(' || s[n - 1] != ',' : s[n - 1] != ')' || memchr(s, '(', n) != NULL) return 0;
    if (!at_end && !memchr(s, ',', n) && strspn(s, "0123456789") != n - 1) return 0; /* "character)" is a word */
    for (size_t i = at_end; i < n - 1; i++)
        if ((!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != ',' && s[i] != ' ') ||
            (s[i] == ' ' && (i == 0 || s[i - 1] != ','))) /* "applied by rank)" is prose */
            return 0;
    return 1;
}

/* At a narrow terminal, step "[3] positions" of `attnviz --no-plot "I love deep learning"` broke inside a
 * shape, "X ← X + PE                        (4," then "512) + (4, 512) → (4, 512)" at 60 columns (a teacher's
 * projector), and "(2, 4, 4)·(2, 4," with --heads 2 at 50: a shape "(4, 512)", "(H, T, T)" is never broken at
 * a terminal of 40 to 80 columns; the words are the pipe's. */
static void test_trace_keeps_shapes_whole_at_a_narrow_terminal(void **state) {
    (void)state;
    const char *const runs[][8] = {
        {"I love deep learning"},
        {"--heads", "2", "I love deep learning"},
        {"--heads", "2", "--causal", "-p", "rope", "the cat sat on the mat"},
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++)
        for (int cols = 40; cols <= 80; cols += 4) {
            const char *argv[16] = {tu_bin(), "--no-plot", "--color", "never"};
            int argc = 4;
            for (int a = 0; a < 8 && runs[k][a]; a++) argv[argc++] = runs[k][a];
            argv[argc] = NULL;
            char *out = malloc(TU_CAP + 1);
            assert_non_null(out);
            int status = tu_run_pty(argv, cols, out, TU_CAP + 1);
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            for (const char *line = out; *line;) {
                size_t n = strcspn(line, "\n"), lead = strspn(line, " ");
                /* the last piece: "(4," or "(2, 4," back to its '(' */
                size_t open = n;
                while (open > lead && line[open - 1] != '(' && n - open < 16) open--;
                /* (a line's first "256)" may end "(= 200.7 / 256)": the '(' piece is a broken shape's sign) */
                if (open > lead && line[n - 1] == ',' && shape_piece(line + open - 1, n - open + 1, 1))
                    fail_msg("run %zu at %d columns: a shape broken at\n%.*s\nin:\n%s", k, cols, (int)n, line, out);
                line += n + (line[n] == '\n');
            }
            free(out);
        }
}

/* A line whose first word at the break is wider than the room was printed whole: at a 43-column terminal step
 * [3]'s "PE(pos,2i) = sin(pos/10000^(2i/d_model)),  PE(pos,2i+1) = cos(pos/10000^(2i/d_model))" broke after
 * "PE(pos,2i) =" and then printed the rest, 72 columns from column 19 (to 91), where only its first word
 * "sin(pos/10000^(2i/d_model))," (28 columns, to 47) cannot fit. The three pieces under the step's text, worked by
 * hand from the pipe's line (breaks at its spaces): "PE(pos,2i) =" and "PE(pos,2i+1) =" at column 19, the two
 * words too wide for the room under it moved left to end at column 43, "sin(…)," (28) after 43 - 28 = 15 spaces
 * and "cos(…)" (27) after 16 (under column 19 they ran to 47 and 46, which the terminal wrapped): */
static void test_trace_breaks_after_a_word_too_wide(void **state) {
    (void)state;
    const char *argv[] = {tu_bin(), "--no-plot", "--color", "never", "I love deep learning", NULL};
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    int status = tu_run_pty(argv, 43, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\n                   PE(pos,2i) =\n"
                     "               sin(pos/10000^(2i/d_model)),\n"
                     "                   PE(pos,2i+1) =\n"
                     "                cos(pos/10000^(2i/d_model))\n"))
        fail_msg("at 43 columns:\n%s", out);
    free(out);
}

/* A formula's name went alone on a line: at 48 to 60 columns step [3] printed "PE(pos,2i) =" then "sin(…),", but
 * "PE(pos,2i+1)" alone then "= cos(pos/10000^(2i/d_model))" (a teacher's narrow projector). Worked by hand, as
 * the first formula breaks: "PE(pos,2i+1) =" is 14 columns from column 19 (to 33) and "cos(pos/10000^(2i/
 * d_model))" 27 (to 46), so from 46 columns to 60 both go under column 19, the "=" with its name; from 61 the
 * formula (42 columns) fits whole on one line. */
static void test_trace_keeps_a_formula_name_with_its_equals_sign(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1), want[256];
    assert_non_null(out);
    const char *argv[] = {tu_bin(), "--no-plot", "--color", "never", "I love deep learning", NULL};
    for (int cols = 46; cols <= 62; cols++) {
        int status = tu_run_pty(argv, cols, out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (cols <= 60)
            snprintf(want, sizeof want, "\n%19sPE(pos,2i+1) =\n%19scos(pos/10000^(2i/d_model))\n", "", "");
        else
            snprintf(want, sizeof want, "\n%19sPE(pos,2i+1) = cos(pos/10000^(2i/d_model))\n", "");
        if (!strstr(out, want)) fail_msg("at %d columns, no\n%s\nin:\n%s", cols, want, out);
    }
    free(out);
}

/* A chain of shapes broke before its result where the whole chain fits on the next line: at an 80-column
 * terminal `attnviz --no-plot "I love deep learning"` printed " [3] positions     X ← X + PE" and 24 spaces,
 * then "(4, 512) + (4, 512) →" (to column 74) and "(4, 512)" alone on the next line, and steps [9] and [11]
 * the same. Worked by hand: the pipe's line is 19 + 10 ("X ← X + PE") + 24 + 31 = 84 columns, and the chain
 * "(4, 512) + (4, 512) → (4, 512)" is 31, so from column 19 it ends at 50: it goes whole onto the next line.
 * The widest chain at --heads 1 and 8 is 35 columns ("(1, 4, 512)·(1, 512, 4) → (1, 4, 4)"), so from 54
 * columns on no line ends with "→" or starts with it. */
static void test_trace_keeps_a_chain_of_shapes_whole(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    const char *argv[] = {tu_bin(), "--no-plot", "--color", "never", "I love deep learning", NULL};
    int status = tu_run_pty(argv, 80, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\n [3] positions     X ← X + PE\n                   (4, 512) + (4, 512) → (4, 512)\n") ||
        !strstr(out, "\n [9] weighted sum  O_h = A_h·V_h\n                   (1, 4, 4)·(1, 4, 512) → (1, 4, 512)\n") ||
        !strstr(out, "\n[11] output        Y = concat·W_O\n                   (4, 512)·(512, 512) → (4, 512)\n"))
        fail_msg("at 80 columns:\n%s", out);
    for (int heads = 1; heads <= 8; heads += 7)
        for (int cols = 56; cols <= 100; cols += 4) {
            char h[12]; /* an int's 11 characters and its NUL */
            snprintf(h, sizeof h, "%d", heads);
            const char *run[] = {tu_bin(), "--no-plot", "--color", "never", "--heads", h, "I love deep learning", NULL};
            status = tu_run_pty(run, cols, out, TU_CAP + 1);
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            for (const char *line = out; *line;) {
                size_t n = strcspn(line, "\n"), lead = strspn(line, " ");
                if ((n >= 3 && strncmp(line + n - 3, "→", 3) == 0) || strncmp(line + lead, "→", 3) == 0)
                    fail_msg("--heads %d at %d columns: a chain of shapes broken at\n%.*s\nin:\n%s", heads, cols,
                             (int)n, line, out);
                line += n + (line[n] == '\n');
            }
        }
    free(out);
}

/* --explain's table of row i of S ran past a narrow terminal whole: at 60 columns `attnviz --no-plot --explain
 * love,deep "I love deep learning"` printed its five rows 75 columns wide, "      j    key                S[i,j]
 * S − max exp(S − max)       A[i,j]", which the terminal wrapped to column 0. Worked by hand from the pipe's
 * rows: 15 columns must go; the indent every row shares is 4 ("    → 2" marks the key), then one column of
 * each gap of 3 or more spaces in every row, from the left, round after round: the gaps after "j" (4 columns),
 * after the keys (8: "learning" ends at 18, "-0.832716" starts at 27), after S (4) and before A (5) lose 4, 4, 2
 * and 3 (4 + 4 + 4 + 3 = 15; "S − max exp(S − max)" has one space and loses none). Every row is then 60
 * columns, the right-aligned numbers still under their headers. Since the table puts 2 spaces between its
 * columns (test_teach's test_explain_table_columns_have_a_clear_gap) the pipe's rows are 79 columns and 19 go:
 * the indent of 4, then from the gaps after "j" (4), after the keys (9), after S (5) and before A (6): 2, 7, 3
 * and 4 (rounds of 4, 4, 3, 2, 1, 1), so "S − max  exp(S − max)" keeps its 2 spaces. */
static void test_explain_table_narrows_to_the_terminal(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    const char *argv[] = {tu_bin(), "--no-plot", "--color", "never", "--explain", "love,deep", "I love deep learning", NULL};
    int status = tu_run_pty(argv, 60, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    const char *header = strstr(out, "\n  j  key           S[i,j]    S − max  exp(S − max)    A[i,j]\n");
    if (!header) fail_msg("no table header of 60 columns at 60 columns:\n%s", out);
    const char *row = header + 1;
    for (int r = 0; r < 5; r++) {
        size_t n = strcspn(row, "\n");
        int w = 0;
        for (size_t i = 0; i < n; i++) w += ((unsigned char)row[i] & 0xC0) != 0x80;
        if (w != 60) fail_msg("row %d is %d columns, not 60:\n%.*s\nin:\n%s", r, w, (int)n, row, out);
        if (r == 3 && strncmp(row, "→ 2  deep      ", strlen("→ 2  deep      ")) != 0)
            fail_msg("the marked row is not \"→ 2  deep\" at column 0:\n%s", out);
        row += n + 1;
    }
    free(out);
}

/* At a teacher's projector terminal (40 to 60 columns) --explain broke its formulas and vectors inside: at 50
 * `attnviz --no-plot --explain love,deep "I love deep learning"` printed "  q_1 = Q[0, 1, :] = [ 0.3613 -1.3682
 * 0.0580" then "  -2.4518 … -0.6109]   (512 numbers)", at 60 "row max = 0.43821761   row sum Σ_j" then
 * "exp(S − max) = 2.07762304", and step [6] of the trace left "0.0441942" alone under "S = … = Q·Kᵀ ×". A
 * formula or a vector is broken only at a space outside it when it fits on the next line, and a chain of "="
 * at its next "=". Worked by hand from the pipe's lines:
 * the vector "[ 0.3613 -1.3682  0.0580 -2.4518 … -0.6109]" is 43 columns, so from column 2 it fits whole from
 * 45 columns on, as "[ 0.4326 -1.2884  0.4849 -0.6150 …  2.8909]" does; "row sum Σ_j exp(S − max) =
 * 2.07762304" is 37 columns, whole under column 6 from 43; step [6]'s formula "S = Q·Kᵀ/√d_k = Q·Kᵀ/√512 =
 * Q·Kᵀ × 0.0441942" is 44 columns, 19 + 44 = 63 > 60, and its last "=" leaves "= Q·Kᵀ × 0.0441942" (18),
 * which fits at 19 from 37 columns on. */
static void test_explain_keeps_formulas_whole_at_a_narrow_terminal(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    static const char *const alone[] = {"-0.6109]", "2.8909]", "2.07762304", "0.204173729"};
    for (int cols = 40; cols <= 60; cols++) {
        const char *trace[] = {tu_bin(), "--no-plot", "--color", "never", "I love deep learning", NULL};
        int status = tu_run_pty(trace, cols, out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (strstr(out, "\n                   0.0441942\n")) fail_msg("at %d columns, step [6]:\n%s", cols, out);
        const char *argv[] = {tu_bin(), "--no-plot", "-q", "--color", "never", "--explain", "love,deep",
                              "I love deep learning", NULL};
        status = tu_run_pty(argv, cols, out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        for (const char *line = out; *line;) {
            size_t n = strcspn(line, "\n"), lead = strspn(line, " ");
            for (size_t k = 0; k < sizeof alone / sizeof alone[0]; k++)
                if (n - lead == strlen(alone[k]) && strncmp(line + lead, alone[k], n - lead) == 0)
                    fail_msg("at %d columns, \"%s\" alone on a line in:\n%s", cols, alone[k], out);
            line += n + (line[n] == '\n');
        }
        if (cols >= 45 && (!strstr(out, "[ 0.3613 -1.3682  0.0580 -2.4518 … -0.6109]\n") ||
                           !strstr(out, "[ 0.4326 -1.2884  0.4849 -0.6150 …  2.8909]\n")))
            fail_msg("at %d columns, a vector broken:\n%s", cols, out);
        if (cols >= 43 && !strstr(out, "\n      row sum Σ_j exp(S − max) = 2.07762304\n"))
            fail_msg("at %d columns, the row sum broken:\n%s", cols, out);
    }
    const char *trace[] = {tu_bin(), "--no-plot", "--color", "never", "I love deep learning", NULL};
    int status = tu_run_pty(trace, 60, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\n [6] scores        S = Q·Kᵀ/√d_k = Q·Kᵀ/√512\n                   = Q·Kᵀ × 0.0441942\n"))
        fail_msg("step [6] at 60 columns:\n%s", out);
    free(out);
}

/* At a teacher's projector terminal of 40 to 46 columns --explain's last vector kept its deep indent: `attnviz
 * --no-plot --explain love,deep "I love deep learning"` printed "= [ 0.0883 -0.2631  0.0990 -0.1256 …  0.5902]"
 * from column 40 (to 85) at 40 to 44 columns, which the terminal wrapped to column 0, and at 45 and 46 "=" and
 * "[" each alone at column 40, then the numbers from there (to 81 and 74). A line too wide to move left whole
 * now goes on at the indent of the line it hangs under and breaks there. Worked by hand from the pipe's lines: the
 * vector's line is 40 + 45 columns ("= " and the 43 of a vector, as "[ 0.3613 … -0.6109]"); the line above,
 * "  contribution to o_1 = …", has an indent of 2; from column 2 the line ends at 47, so up to 46 columns it
 * breaks: "= [ 0.0883 -0.2631  0.0990 -0.1256" ends at 36 and "  …  0.5902]" goes on (not "=" alone, then the
 * vector whole, nor "0.5902]" alone, a widow: test_a_last_word_does_not_go_on_alone); at 48 it moves left whole,
 * 45 ≤ 48 - 2, ending at column 48. Every line of --explain (for key
 * 2 of "love" and key 0 of "learning") then fits the terminal from 40 to 60 columns. */
static void test_explain_vector_under_a_deep_indent_fits_a_narrow_terminal(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    static const char *const cells[] = {"love,deep", "3,0"};
    for (size_t k = 0; k < 2; k++)
        for (int cols = 40; cols <= 60; cols++) {
            const char *argv[] = {tu_bin(), "--no-plot", "--color", "never", "--explain", cells[k],
                                  "I love deep learning", NULL};
            int status = tu_run_pty(argv, cols, out, TU_CAP + 1);
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            const char *from = strstr(out, "\n--explain:");
            if (!from) fail_msg("no --explain at %d columns:\n%s", cols, out);
            for (const char *line = from + 1; *line;) {
                size_t n = strcspn(line, "\n");
                int w = 0; /* every character of --explain here takes one column */
                for (size_t i = 0; i < n; i++) w += ((unsigned char)line[i] & 0xC0) != 0x80;
                if (w > cols)
                    fail_msg("--explain %s at %d columns: a line of %d columns:\n%.*s\nin:\n%s", cells[k], cols, w,
                             (int)n, line, out);
                line += n + (line[n] == '\n');
            }
            if (k == 0 && cols <= 46 && !strstr(out, "\n  = [ 0.0883 -0.2631  0.0990 -0.1256\n  …  0.5902]\n"))
                fail_msg("the vector at %d columns:\n%s", cols, out);
            if (k == 0 && cols == 48 && !strstr(out, "\n   = [ 0.0883 -0.2631  0.0990 -0.1256 …  0.5902]\n"))
                fail_msg("the vector at 48 columns:\n%s", out);
        }
    free(out);
}

/* At a teacher's projector terminal (40 to 60 columns) a line ended with an operator whose operand went on: at 40
 * `attnviz --no-plot --explain love,deep "I love deep learning"` printed "  A[0, 1, 2] = exp(-0.857559562) /"
 * then "  2.07762304 = 0.204173729", step [4] "measured var(Q) =" then "1.608, var(K) = 1.435" (a name apart
 * from its value, as "scores: var(Q·Kᵀ) =" then "113.6,"), at 44 "worst |Σ_j A[i,j] −" then "1| = …", at 46
 * "q·k = Σ_d q[d]·k[d] = (0.3613)(-0.8107) +", and at 80 "  contribution to o_1 = Σ_j A[i,j]·v_j:  A·v_2 =
 * 0.2042 ×" then the vector. Worked by hand from the pipe's lines: "A[0, 1, 2] = exp(-0.857559562)" is 30
 * columns and "/ 2.07762304 = 0.204173729" 26, each fits from column 2 at 40; under step [4]'s column 19 (21
 * columns left at 40) "measured var(Q) = 1.608," is 24, so "measured" goes alone and "var(Q) = 1.608," (15)
 * keeps its value; at 80 "A·v_2 = 0.2042 × " (17) and the vector (43) end at 2 + 60 = 62. From 40 to 60
 * columns no line of the trace or --explain ends with "/", "×", "+", "−", "-", "·" or "÷" (but before a vector
 * that the next line holds whole: "A·v_2 = 0.2042 ×" at 46, where "× [ 0.4326 … 2.8909]" is 45), nor with
 * "var(Q) =", "var(Q·Kᵀ) =" or "var(q·k) =", the trace's words are the pipe's, and --explain's vectors stay
 * whole where they fit (test_explain_keeps_formulas_whole_at_a_narrow_terminal). */
static void test_lines_do_not_end_with_an_operator_at_a_narrow_terminal(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    static const char *const runs[][4] = {
        {"--explain", "love,deep", "I love deep learning"},
        {"--explain", "3,0", "I love deep learning"},
        {"--heads", "8", "I love deep learning"},
    };
    static const char *const ends[] = {" /", " ×", " +", " −", " -", " ·", " ÷", "var(Q) =", "var(Q·Kᵀ) =",
                                       "var(q·k) ="};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        tu_result r; /* the same run into a pipe */
        run_attnviz(&r, NULL, "--no-plot", runs[k][0], runs[k][1], runs[k][2], NULL);
        assert_int_equal(r.code, 0);
        for (int cols = 40; cols <= 60; cols += 2) {
            const char *argv[] = {tu_bin(), "--no-plot", "--color", "never", runs[k][0], runs[k][1], runs[k][2], NULL};
            int status = tu_run_pty(argv, cols, out, TU_CAP + 1);
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            if (k == 2 && !tu_same_words(out, r.out)) /* (--explain's table goes in blocks of its columns) */
                fail_msg("run %zu at %d columns: not the pipe's words:\n%s", k, cols, out);
            for (const char *line = out; *line;) {
                size_t n = strcspn(line, "\n");
                for (size_t e = 0; e < sizeof ends / sizeof ends[0]; e++) {
                    size_t m = strlen(ends[e]);
                    const char *next = line + n + (line[n] == '\n');
                    if (n >= m && memcmp(line + n - m, ends[e], m) == 0 && next[strspn(next, " ")] != '[')
                        fail_msg("run %zu at %d columns: a line ends with \"%s\":\n%.*s\nin:\n%s", k, cols, ends[e],
                                 (int)n, line, out);
                }
                line += n + (line[n] == '\n');
            }
        }
        tu_free(&r);
    }
    const char *explain[] = {tu_bin(), "--no-plot", "-q", "--color", "never", "--explain", "love,deep",
                             "I love deep learning", NULL};
    int status = tu_run_pty(explain, 40, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\n  A[0, 1, 2] = exp(-0.857559562)\n  / 2.07762304 = 0.204173729\n"))
        fail_msg("A[0, 1, 2] at 40 columns:\n%s", out);
    status = tu_run_pty(explain, 80, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\n  contribution to o_1 = Σ_j A[i,j]·v_j:\n"
                     "  A·v_2 = 0.2042 × [ 0.4326 -1.2884  0.4849 -0.6150 …  2.8909]\n"))
        fail_msg("the contribution at 80 columns:\n%s", out);
    const char *trace[] = {tu_bin(), "--no-plot", "--color", "never", "I love deep learning", NULL};
    status = tu_run_pty(trace, 40, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\n                   measured\n                   var(Q) = 1.608,\n"))
        fail_msg("step [4] at 40 columns:\n%s", out);
    free(out);
}

/* -q's "weights:" line, the first of --explain's, --show's and --compare's output, was printed whole at a
 * narrow terminal: at 40 columns `attnviz --no-plot -q --explain love,deep "I love deep learning"` printed
 * "weights: random weights (untrained, seed 42)", 44 columns, which the terminal wrapped to column 0, while
 * every line after it fits; -q --show and -q --compare order the same. Worked by hand: the line's spaces
 * outside brackets are after "weights:", "random" and "weights" ("weights: random weights" is 23 columns), and
 * "(untrained, seed 42)" (20) fits whole at the continuation indent of 2, so it goes on there; at 44 columns
 * the line fits and stays whole, and a pipe gets it whole. */
static void test_quiet_weights_line_fits_a_narrow_terminal(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    static const char *const parts[][2] = {{"--explain", "love,deep"}, {"--show", NULL}, {"--compare", "order"}};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        const char *argv[] = {tu_bin(), "--no-plot", "-q", "--color", "never", parts[k][0], "I love deep learning",
                              NULL, NULL};
        if (parts[k][1]) argv[6] = parts[k][1], argv[7] = "I love deep learning";
        int status = tu_run_pty(argv, 40, out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (strncmp(out, "weights: random weights\n  (untrained, seed 42)\n", 47) != 0)
            fail_msg("%s at 40 columns:\n%s", parts[k][0], out);
        status = tu_run_pty(argv, 44, out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (strncmp(out, "weights: random weights (untrained, seed 42)\n", 45) != 0)
            fail_msg("%s at 44 columns:\n%s", parts[k][0], out);
        tu_result r;
        tu_runv(&r, NULL, NULL, argv + 1);
        assert_int_equal(r.code, 0);
        if (strncmp(r.out, "weights: random weights (untrained, seed 42)\n", 45) != 0)
            fail_msg("%s into a pipe:\n%s", parts[k][0], r.out);
        tu_free(&r);
    }
    free(out);
}

/* s[0..n) with each run of spaces as one, without its indent, into buf (cap bytes): a line as it reads */
static const char *words_of(const char *s, size_t n, char *buf, size_t cap) {
    size_t k = 0, i = strspn(s, " ");
    for (; i < n && k + 1 < cap; i++)
        if (s[i] != ' ' || (i + 1 < n && s[i + 1] != ' ')) buf[k++] = s[i];
    buf[k] = 0;
    return buf;
}

/* At a teacher's projector terminal (40 to 60 columns) a title's or header's rest went on at column 0, where it
 * read as a line of its own: at 50 `attnviz --no-plot --explain love,deep "I love deep learning"` printed its
 * header "--explain: head 0, query 1 "love" → key 2 "deep"" then "(d_k = 512)" at column 0, `--compare order
 * "I love you"` '"you" (same embeddings and weights)', the trace's title "softmax(Q·Kᵀ/√d_k)·V, step by step";
 * and at 40 the header broke after its arrow's first word, "... query 1 "love" → key" then "2 "deep"   (d_k =
 * 512)", a key apart from its number, as the trace's "(4, 512) → (4, 1, 512) →" then "(1, 4, 512)". Worked by
 * hand from the pipe's lines: a line at column 0 goes on at column 2; "--explain: head 0, query 1 "love"" is 33
 * columns, and the rest from the arrow, "→ key 2 "deep"   (d_k = 512)" (28), fits from column 2 at 40; at 50
 * the header up to "deep"" is 48 and breaks at its gap. Step [5]'s chain "(4, 512) → (4, 1, 512) → (1, 4,
 * 512)" is 38 columns, 19 + 38 = 57 > 50: it breaks before its last "→", 19 + 22 = 41, and "→ (1, 4, 512)" (13)
 * goes on under column 19. From 40 to 60 columns every line at column 0 of --explain, the trace and --compare
 * begins one of the pipe's lines (a table's rows, narrowed, keep 2 spaces between cells and are not counted),
 * and the header keeps "key 2 "deep"" together. */
static void test_titles_go_on_under_an_indent_at_a_narrow_terminal(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    const char *const runs[][10] = {
        {"--explain", "love,deep", "-q", "I love deep learning"},
        {"I love deep learning"},
        {"-q", "--compare", "order", "I love you"},
        {"-q", "--compare", "scale", "--heads", "8", "I love deep learning"},
        {"-q", "--compare", "positions", "I love you"},
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        const char *argv[16] = {tu_bin(), "--no-plot", "--color", "never"};
        int argc = 4;
        for (int a = 0; a < 10 && runs[k][a]; a++) argv[argc++] = runs[k][a];
        argv[argc] = NULL;
        tu_result r; /* the same run into a pipe */
        run_attnviz(&r, NULL, "--no-plot", runs[k][0], runs[k][1], runs[k][2], runs[k][3], runs[k][4], runs[k][5],
                    NULL);
        assert_int_equal(r.code, 0);
        for (int cols = 40; cols <= 60; cols += 2) {
            int status = tu_run_pty(argv, cols, out, TU_CAP + 1);
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            for (const char *line = out; *line;) {
                size_t n = strcspn(line, "\n");
                char want[1024], got[1024];
                int begins = 0;
                if (n && line[0] != ' ' && !memmem(line, n, "  ", 2)) {
                    words_of(line, n, got, sizeof got);
                    for (const char *p = r.out; *p && !begins;) {
                        size_t m = strcspn(p, "\n");
                        words_of(p, m, want, sizeof want);
                        begins = strncmp(want, got, strlen(got)) == 0 && strchr(" ", want[strlen(got)]);
                        p += m + (p[m] == '\n');
                    }
                    if (!begins)
                        fail_msg("run %zu at %d columns: a line's rest at column 0:\n%.*s\nin:\n%s", k, cols, (int)n,
                                 line, out);
                }
                line += n + (line[n] == '\n');
            }
            if (k == 0 && !strstr(out, "key 2 \"deep\"")) fail_msg("at %d columns, \"key 2\" apart:\n%s", cols, out);
        }
        tu_free(&r);
    }
    const char *explain[] = {tu_bin(), "--no-plot", "-q", "--color", "never", "--explain", "love,deep",
                             "I love deep learning", NULL};
    int status = tu_run_pty(explain, 40, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\n--explain: head 0, query 1 \"love\"\n  → key 2 \"deep\"   (d_k = 512)\n"))
        fail_msg("the header at 40 columns:\n%s", out);
    status = tu_run_pty(explain, 50, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\n--explain: head 0, query 1 \"love\" → key 2 \"deep\"\n  (d_k = 512)\n"))
        fail_msg("the header at 50 columns:\n%s", out);
    const char *order[] = {tu_bin(), "--no-plot", "-q", "--color", "never", "--compare", "order", "I love you", NULL};
    status = tu_run_pty(order, 60, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\n--compare order: swap token 0 \"I\" and token 2 \"you\"\n  (same embeddings and weights)\n"))
        fail_msg("--compare order's title at 60 columns:\n%s", out);
    const char *trace[] = {tu_bin(), "--no-plot", "--color", "never", "I love deep learning", NULL};
    status = tu_run_pty(trace, 50, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\n  softmax(Q·Kᵀ/√d_k)·V, step by step\n") ||
        !strstr(out, "\n [5] split heads   (4, 512) → (4, 1, 512)\n                   → (1, 4, 512)   head h takes\n"))
        fail_msg("the trace at 50 columns:\n%s", out);
    free(out);
}

/* An arrow ended a line apart from its operand at a narrow terminal: at 40 columns `attnviz --no-plot --heads 8 "I
 * love deep learning"` printed step [10] as "(8, 4, 64) →" then "(4, 8, 64) → (4, 512)", and at 56 columns
 * `attnviz --no-plot --causal ...` the mask line as "(masked = −∞ added before softmax →" then "weight 0; ...".
 * The chain "(4, 8, 64) → (4, 512)" (21 columns) was kept whole as fitting under column 19 of 40, forgetting the
 * "→ " (2) it starts with on its line, 19 + 2 + 21 = 42; and a line could end with an arrow, in brackets or where
 * nothing else fit. Worked by hand: "[10] concat        (8, 4, 64)" is 29 columns; "→ (4, 8, 64)" (12) and
 * "→ (4, 512)   heads" go on under column 19, as step [5]'s "(4, 512) → (4, 8, 64)" then "→ (8, 4, 64)". From 40 to
 * 60 columns no line of the trace with --heads 8, with --causal, or of --explain with --heads 8 ends with "→". */
static void test_an_arrow_goes_on_with_its_operand(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    const char *const runs[][6] = {
        {"--heads", "8", "I love deep learning"},
        {"--causal", "I love deep learning"},
        {"--heads", "8", "--explain", "love,deep", "I love deep learning"},
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++)
        for (int cols = 40; cols <= 60; cols += 2) {
            const char *argv[16] = {tu_bin(), "--no-plot", "--color", "never"};
            int argc = 4;
            for (int a = 0; a < 6 && runs[k][a]; a++) argv[argc++] = runs[k][a];
            argv[argc] = NULL;
            int status = tu_run_pty(argv, cols, out, TU_CAP + 1);
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            for (const char *line = out; *line;) {
                size_t n = strcspn(line, "\n");
                if (n >= 4 && memcmp(line + n - 4, " →", 4) == 0)
                    fail_msg("run %zu at %d columns: a line ends with its arrow:\n%.*s\nin:\n%s", k, cols, (int)n,
                             line, out);
                line += n + (line[n] == '\n');
            }
            if (k == 0 && cols == 40 && !strstr(out, "\n[10] concat        (8, 4, 64)\n"
                                                     "                   → (4, 8, 64)\n"
                                                     "                   → (4, 512)   heads\n"))
                fail_msg("step [10] at 40 columns:\n%s", out);
        }
    free(out);
}

/* A chain of shapes kept whole left its last word alone on a line: at 50 and 52 columns `attnviz --no-plot "I love
 * deep learning"` printed step [4]'s "(4, 512)·(512, 512) → (4, 512)" then "each" alone under column 19. Worked
 * by hand: "(4, 512)·(512, 512) → (4, 512) each" is 35 columns and 19 + 35 = 54, so from 40 to 52 it breaks at
 * its arrow, "→ (4, 512) each" (15) going on under column 19 (at 50 after "V = X·W_V  (4, 512)·(512, 512)", 19 +
 * 30 = 49), and from 54 to 60 it fits whole. No line from 40 to 60 columns is "each" alone. */
static void test_a_shapes_last_word_goes_on_with_it(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    const char *argv[] = {tu_bin(), "--no-plot", "--color", "never", "I love deep learning", NULL};
    for (int cols = 40; cols <= 60; cols++) {
        int status = tu_run_pty(argv, cols, out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (strstr(out, "\n                   each\n")) fail_msg("\"each\" alone at %d columns:\n%s", cols, out);
        const char *want = cols < 54 ? "\n                   → (4, 512) each\n"
                                     : "\n                   (4, 512)·(512, 512) → (4, 512) each\n";
        if (!strstr(out, want)) fail_msg("step [4] at %d columns:\n%s", cols, out);
    }
    free(out);
}

/* A line broke between a noun and its number: at 44 columns `attnviz --no-plot -q --compare order "I love you"`
 * printed its title as "--compare order: swap token 0 "I" and token" then "  2 "you" (same embeddings and
 * weights)", a token apart from its index, at 45 to 50 "... and token 2" then "  "you" (same ...)", an index
 * apart from the token it names, and at 56 `attnviz --no-plot -q --compare scale --heads 8 "I love deep
 * learning"` "... same X and weights, all" then "  8 heads". Worked by hand at 44: "--compare order: swap token 0
 * "I" and" is 37 columns and the last break outside "token 2"; the rest, "token 2 "you" (same embeddings and
 * weights)" (45), does not fit after the indent of 2, and breaks before its bracketed remark (29), which does. At
 * 56, "--compare scale: same sentence, same X and weights," is 51 and "all 8 heads" goes on. From 40 to 60 columns
 * "token 0 "I"", "token 2 "you"", "all 8 heads" and the note's "all 4 keys" (a count and a plural noun: at 50
 * columns "uniform over all 4" then "keys would be ...") each stay on one line. */
static void test_a_noun_keeps_its_number(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    const char *order[] = {tu_bin(), "--no-plot", "-q", "--color", "never", "--compare", "order", "I love you", NULL};
    const char *scale[] = {tu_bin(), "--no-plot", "-q", "--color", "never", "--compare", "scale", "--heads", "8",
                           "I love deep learning", NULL};
    for (int cols = 40; cols <= 60; cols++) {
        int status = tu_run_pty(order, cols, out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (!strstr(out, "token 0 \"I\"") || !strstr(out, "token 2 \"you\""))
            fail_msg("--compare order at %d columns, a token apart from its index:\n%s", cols, out);
        if (cols == 44 && !strstr(out, "\n--compare order: swap token 0 \"I\" and\n  token 2 \"you\"\n"
                                       "  (same embeddings and weights)\n"))
            fail_msg("--compare order's title at 44 columns:\n%s", out);
        status = tu_run_pty(scale, cols, out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (!strstr(out, "all 8 heads")) fail_msg("--compare scale at %d columns, \"all\" apart:\n%s", cols, out);
        if (!strstr(out, "all 4 keys")) fail_msg("--compare scale at %d columns, \"4\" apart:\n%s", cols, out);
        if (cols == 56 && !strstr(out, "\n--compare scale: same sentence, same X and weights,\n  all 8 heads\n"))
            fail_msg("--compare scale's title at 56 columns:\n%s", out);
    }
    free(out);
}

/* A line's last word went on alone (a widow): at 56 columns `attnviz --no-plot "I love deep learning"` printed the
 * kernel's note as "... every sum in" then "double" alone under column 13, at 60 `attnviz --no-plot -q --compare
 * order "I love deep learning"` "  exactly a permutation: attention alone is blind to word" then "  order", and at
 * 80 the trace's note "... here means nothing about the" then "words". Worked by hand at 56: "  kernel
 * reference (auto: T = 4 ≤ 64): the plain" is 52 columns; the rest, "loops of nn/attention.c, every sum in double"
 * (44), does not fit after column 13, and the last space that fits leaves "double" alone, so the line breaks one
 * word earlier and "in double" (9) goes on. At 60 "  exactly a permutation: attention alone is blind to" (52) and
 * "  word order"; at 80 "... means nothing about" (75) and "the words". From 40 to 80 columns none of "double",
 * "order" and "words" stands alone on a line. */
static void test_a_last_word_does_not_go_on_alone(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    const char *trace[] = {tu_bin(), "--no-plot", "--color", "never", "I love deep learning", NULL};
    const char *order[] = {tu_bin(), "--no-plot", "-q", "--color", "never", "--compare", "order",
                           "I love deep learning", NULL};
    for (int cols = 40; cols <= 80; cols += 2) {
        int status = tu_run_pty(trace, cols, out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (strstr(out, "\n             double\n") || strstr(out, "\n             words\n"))
            fail_msg("a word alone at %d columns:\n%s", cols, out);
        if (cols == 56 && !strstr(out, "\n  kernel     reference (auto: T = 4 ≤ 64): the plain\n"
                                       "             loops of nn/attention.c, every sum\n"
                                       "             in double\n"))
            fail_msg("the kernel's note at 56 columns:\n%s", out);
        if (cols == 80 && !strstr(out, " here means nothing about\n             the words\n"))
            fail_msg("the weights' note at 80 columns:\n%s", out);
        status = tu_run_pty(order, cols, out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (strstr(out, "\n  order\n")) fail_msg("\"order\" alone at %d columns:\n%s", cols, out);
        if (cols == 60 && !strstr(out, "\n  exactly a permutation: attention alone is blind to\n  word order\n"))
            fail_msg("--compare order at 60 columns:\n%s", out);
    }
    free(out);
}

/* A word went on alone mid-text: at 50 columns step [8] of `attnviz --no-plot "I love deep learning"` printed
 * "✓ every unmasked row sums to 1:", then "worst" alone, then "|Σ_j A[i,j] − 1| = 2.24e-08" and "over 4 rows",
 * as a line that would end with "=" went back to its last plain space. Worked by hand from the pipe's line under
 * column 19 of 50 (a room of 31): "✓ every unmasked row sums to 1:" is 1 + 1 + 5 + 1 + 8 + 1 + 3 + 1 + 4 + 1 + 2
 * + 1 + 2 = 31 and fits; the rest, "worst |Σ_j A[i,j] − 1| = 2.24e-08 over 4 rows" (45), does not, nor does
 * "worst |Σ_j A[i,j] − 1| = 2.24e-08" (33); "worst |Σ_j A[i,j] − 1|" (22) ends before its "=", and "= 2.24e-08
 * over 4 rows" (22) goes on whole. From 40 to 60 columns "worst" is never alone on a line. */
static void test_a_word_does_not_stand_alone_before_an_equals(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    const char *argv[] = {tu_bin(), "--no-plot", "--color", "never", "I love deep learning", NULL};
    for (int cols = 40; cols <= 60; cols++) {
        int status = tu_run_pty(argv, cols, out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (strstr(out, "\n                   worst\n")) fail_msg("\"worst\" alone at %d columns:\n%s", cols, out);
        if (cols == 50 && !strstr(out, "\n                   ✓ every unmasked row sums to 1:\n"
                                       "                   worst |Σ_j A[i,j] − 1|\n"
                                       "                   = 2.24e-08 over 4 rows\n"))
            fail_msg("step [8] at 50 columns:\n%s", out);
    }
    free(out);
}

/* Text that breaks its own lines left a stub when the terminal broke them again: at 50 columns `attnviz --no-plot
 * -q --compare scale "I love deep learning"` (and --compare positions) printed its note as "  (over the 4 real
 * query rows of every head; a", "  higher max weight and lower entropy", "  mean sharper," and then "  more one-hot
 * rows; ...", the end of its first written line alone, and at 80 "  entropy mean sharper," then "  more one-hot
 * rows; ...". A line to be broken now goes on with the next line of its sentence (the first ends with ',' and
 * the next, at its indent, begins with a lower-case word), and they break as one. Worked by hand at 50, the two
 * written lines as one, filled greedily after an indent of 2: "(over the 4 real query rows of every head; a" (2 +
 * 44 = 46; " higher" would end at 53), "higher max weight and lower entropy mean" (42; " sharper," 51), "sharper,
 * more one-hot rows; uniform over" (42; " all 4 keys", one count and its noun, 53) and "all 4 keys would be ln(4)
 * = 1.386)". From 40 to 80
 * columns no line of either note is "  sharper," alone, and a line ending "sharper," before "  more" leaves no
 * room for " more". */
static void test_a_written_line_goes_on_with_its_sentence(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    const char *kinds[] = {"scale", "positions"};
    for (size_t k = 0; k < 2; k++)
        for (int cols = 40; cols <= 80; cols += 2) {
            const char *argv[] = {tu_bin(), "--no-plot", "-q", "--color", "never", "--compare", kinds[k],
                                  "I love deep learning", NULL};
            int status = tu_run_pty(argv, cols, out, TU_CAP + 1);
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            const char *sharp = strstr(out, "sharper,\n  more one-hot"), *start = sharp;
            while (start && start > out && start[-1] != '\n') start--;
            int w = 0; /* the columns of the line ending "sharper,": every character here takes one */
            for (const char *c = start; sharp && c < sharp + 8; c++) w += ((unsigned char)*c & 0xC0) != 0x80;
            if (strstr(out, "\n  sharper,\n") || (sharp && w + 5 <= cols)) /* " more" would have fit */
                fail_msg("--compare %s at %d columns, a stub:\n%s", kinds[k], cols, out);
            if (cols == 50 && !strstr(out, "\n  (over the 4 real query rows of every head; a\n"
                                           "  higher max weight and lower entropy mean\n"
                                           "  sharper, more one-hot rows; uniform over\n"
                                           "  all 4 keys would be ln(4) = 1.386)\n"))
                fail_msg("--compare %s's note at 50 columns:\n%s", kinds[k], out);
        }
    free(out);
}

/* The --show heat map's title broke inside its bracketed remark and left a word alone: at 60 columns `attnviz
 * --no-plot --heads 8 --show "I love deep learning"` printed "head 0 of 8: attention weights (rows = queries,
 * columns =" then "  keys)" for each of the 8 heads (a line ending with "=", "keys" apart from its name), and the
 * --color never legend at 80 ended "... weight 0); .64 =" then "  0.64". Worked by hand: the title is 63 columns;
 * "(rows = queries, columns = keys)" (32) fits after the indent of 2, so the title breaks before it, as the trace's
 * lines keep a bracketed group whole: "head 0 of 8: attention weights" then "  (rows = queries, columns = keys)"
 * from 40 to 62 columns and whole at 63 and over; the legend (81 columns with "; .64 = 0.64") breaks at the space
 * before ".64 = 0.64". */
static void test_show_title_keeps_its_remark_whole(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    const char *argv[] = {tu_bin(), "--no-plot", "--heads", "8", "--show", "I love deep learning", NULL};
    for (int cols = 40; cols <= 70; cols += 2) {
        int status = tu_run_pty(argv, cols, out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        tu_strip_sgr(out);
        const char *want = cols < 63 ? "\nhead 7 of 8: attention weights\n  (rows = queries, columns = keys)\n"
                                     : "\nhead 7 of 8: attention weights (rows = queries, columns = keys)\n";
        if (!strstr(out, want)) fail_msg("--show's title at %d columns:\n%s", cols, out);
        if (strstr(out, "\n  keys)\n")) fail_msg("\"keys)\" alone at %d columns:\n%s", cols, out);
    }
    char mid[256] = "";
    for (int k = 0; k < 30; k++) snprintf(mid + strlen(mid), sizeof mid - strlen(mid), "%sw%d", k ? " " : "", k);
    const char *legend[] = {tu_bin(), "--no-plot", "--color", "never", "--show", mid, NULL};
    int status = tu_run_pty(legend, 80, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\nlegend: weights (unmasked rows sum to 1); · = masked (score −∞, weight 0);\n  .64 = 0.64\n"))
        fail_msg("the legend at 80 columns:\n%s", out);
    free(out);
}

/* --compare's table broke its rows at a 60-column terminal: `attnviz --no-plot -q --compare positions "I love deep
 * learning"` printed "  none                        0.4868               1.2013" then "  —" alone on the next
 * line, and "0.4967" likewise, since its rows have too few gaps of 3+ spaces to count as a table's; its last
 * heading also stood a column left of its numbers (%22s counted Δ's 2 bytes). The rows are now a table's (their
 * cells end at the same columns), narrowed and, still 69 columns, written in two blocks as pandas prints a wide
 * frame. Expected by hand: the names in 10 columns ("sinusoidal"), then 2 spaces and each column right-aligned
 * to its heading's width (15, 19; in the second block 17, "max |ΔA| vs first"). */
static void test_compare_table_keeps_its_rows_at_a_narrow_terminal(void **state) {
    (void)state;
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    const char *argv[] = {tu_bin(), "--no-plot", "-q", "--color", "never", "--compare", "positions",
                          "I love deep learning", NULL};
    int status = tu_run_pty(argv, 60, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    static const char *const want[] = {
        "\nsetting     mean max weight  mean entropy (nats)\n"
        "none                 0.4868               1.2013\n"
        "sinusoidal           0.5279               1.1290\n"
        "RoPE                 0.4406               1.2375\n"
        "setting     max |ΔA| vs first\n"
        "none                        —\n"
        "sinusoidal             0.4967\n"
        "RoPE                   0.2967\n",
    };
    if (!strstr(out, want[0])) fail_msg("the table in two blocks at 60 columns:\n%s\nin:\n%s", want[0], out);
    free(out);
    /* the pipe's header ends where its rows do */
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-q", "--compare", "positions", "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "   max |ΔA| vs first\n  none                        0.4868               1.2013"
                       "                      —\n"))
        fail_msg("the last heading should end at column 80, as its numbers:\n%s", r.out);
    tu_free(&r);
}

/* -v prints the small matrices, but past 64 tokens auto runs flash, which forms no S or A: -v printed Q, K, V
 * and Y and left S and A out without a word (a long-input learner's pass). It says so, once, and what prints
 * them; --kernel blas prints S and gets no such line. */
static void test_verbose_flash_says_it_has_no_scores_to_print(void **state) {
    (void)state;
    size_t cap = 100 * 4 + 1, n = 0;
    char *words = malloc(cap);
    assert_non_null(words);
    for (int i = 0; i < 100; i++) n += (size_t)snprintf(words + n, cap - n, "%s%c", i ? " " : "", 'a' + i % 26);
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "-v", "-d", "16", "--color", "never", words, NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "kernel     flash"));
    const char *line = "-v: the flash kernel forms no S or A to print; --kernel blas prints them\n";
    const char *at = strstr(r.out, line);
    if (!at || strstr(at + 1, line)) fail_msg("the line, once:\n%s", r.out);
    assert_null(strstr(r.out, "S[head 0] ="));
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-v", "-d", "16", "--color", "never", "--kernel", "blas", words, NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "S[head 0] ="));
    assert_non_null(strstr(r.out, "A[head 0] ="));
    assert_null(strstr(r.out, "forms no S or A"));
    tu_free(&r);
    free(words);
}

/* The flash trace's worked example cuts the keys into 4 tiles so that the online softmax rescales; the
 * kernel's own tiles hold 512 keys, as the header line says. It said "kernel flash: keys in tiles of 512"
 * and then "keys in tiles of 50" without a word (attnviz --no-plot on docs/paragraph.txt, 200 tokens),
 * though on these 200 keys the kernel makes one tile and never rescales (a teacher's report): it now
 * says the example's tiles are smaller, and how many tiles the kernel makes. */
static void test_flash_example_says_its_tiles_are_smaller(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--kernel", "flash", "--no-plot", "--color", "never", "a b c d e f g h", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "kernel     flash: keys in tiles of 512 "));
    if (!strstr(r.out, "worked example: head 0, query row 7, keys in tiles of 2, smaller than the kernel's 512\n"
                       "                   (which take all 8 keys in one tile) so that the rescaling shows:\n"
                       "                   tile  keys"))
        fail_msg("the worked example's tiles:\n%s", r.out);
    tu_free(&r);
    /* 800 tokens: the kernel's 2 tiles, the example's 4 of 200 */
    size_t cap = 800 * 4 + 1, n = 0;
    char *words = malloc(cap);
    assert_non_null(words);
    for (int i = 0; i < 800; i++) n += (size_t)snprintf(words + n, cap - n, "%s%c", i ? " " : "", 'a' + i % 26);
    run_attnviz(&r, NULL, "--kernel", "flash", "--no-plot", "--color", "never", "-d", "8", words, NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "keys in tiles of 200, smaller than the kernel's 512\n"
                       "                   (which take these 800 keys in 2 tiles) so that the rescaling shows:\n"))
        fail_msg("800 keys:\n%s", r.out);
    tu_free(&r);
    free(words);
    /* one key: one tile, nothing to explain */
    run_attnviz(&r, NULL, "--kernel", "flash", "--no-plot", "--color", "never", "a", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "worked example: head 0, query row 0, keys in tiles of 1:\n"));
    tu_free(&r);
}

/* A new folder for -w with X (T, 2) = x (T·2 floats, row-major) and identity W_Q, W_K, W_V, W_O (2, 2), so that
 * with -d 2 -p none the scores are x_i·x_j/√2, by hand; the caller removes it (rm_rf). */
static char *identity_weights_dir(const float *x, int T) {
    char *dir = make_tmpdir(), path[4200];
    const float eye[4] = {1, 0, 0, 1};
    snprintf(path, sizeof path, "%s/X.npy", dir);
    write_npy_2d(path, "<f4", 0, T, 2, x, (size_t)T * 2 * sizeof *x);
    for (const char *w = "QKVO"; *w; w++) {
        snprintf(path, sizeof path, "%s/W_%c.npy", dir, *w);
        write_npy_2d(path, "<f4", 0, 2, 2, eye, sizeof eye);
    }
    return dir;
}

/* The flash worked example's maxima m come from the scores as they are: X = (j + 1)·a on the first of 2
 * dimensions, identity weights, no positions, so query 3's score with key j is 4a·(j + 1)a/√2, by hand
 * (and numpy in float64): 2.8284e36, 5.6569e36, 8.4853e36, 1.1314e37 for a = 1e18, each in a tile of its
 * own (4 tokens, tiles of 1). "%.4f" in a 24-byte buffer printed 2.8284e36 as its first 23 digits,
 * 28284270208255335427631, and 1.1314e37 as 11313708083302134171052, smaller than the m it "rose" from;
 * for a = 1e-20 (scores 2.8284e-40 …) it printed every m as 0.0000. The maxima now take numpy's
 * notation for the table (scientific when the largest is ≥ 1e8 or below 1e-4), as --explain's does. */
static void test_flash_example_prints_huge_and_tiny_maxima_whole(void **state) {
    (void)state;
    static const double scale[] = {1e18, 1e-20};
    static const char *const want[][4] = {
        {"   2.8284e+36           \xE2\x88\x92\xE2\x88\x9E \xE2\x86\x92 2.8284e+36 ",
         "   5.6569e+36   2.8284e+36 \xE2\x86\x92 5.6569e+36 ", "   8.4853e+36   5.6569e+36 \xE2\x86\x92 8.4853e+36 ",
         "   1.1314e+37   8.4853e+36 \xE2\x86\x92 1.1314e+37 "},
        {"   2.8284e-40           \xE2\x88\x92\xE2\x88\x9E \xE2\x86\x92 2.8284e-40 ",
         "   5.6569e-40   2.8284e-40 \xE2\x86\x92 5.6569e-40 ", "   8.4853e-40   5.6569e-40 \xE2\x86\x92 8.4853e-40 ",
         "   1.1314e-39   8.4853e-40 \xE2\x86\x92 1.1314e-39 "}};
    for (int c = 0; c < 2; c++) {
        float x[8] = {0};
        for (int j = 0; j < 4; j++) x[2 * j] = (float)scale[c] * (float)(j + 1);
        char *dir = identity_weights_dir(x, 4);
        tu_result r;
        run_attnviz(&r, NULL, "--kernel", "flash", "--no-plot", "--color", "never", "-d", "2", "-p", "none", "-w",
                    dir, "a b c d", NULL);
        assert_int_equal(r.code, 0);
        for (int k = 0; k < 4; k++)
            if (!strstr(r.out, want[c][k])) fail_msg("a = %g, tile %d: missing \"%s\" in\n%s", scale[c], k + 1, want[c][k], r.out);
        assert_null(strstr(r.out, "0.0000 \xE2\x86\x92"));
        tu_free(&r);
        rm_rf(dir);
    }
}

/* The terminal columns of the first n bytes of UTF-8 text s. */
static int utf8_cols(const char *s, size_t n) {
    int c = 0;
    for (size_t i = 0; i < n && s[i]; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* The flash worked example's table keeps its columns for maxima of any size and sign: X rows (a_j, 0),
 * identity weights, no positions, so the row-3 scores are a_3·a_j/√2, by hand: for a = -1e18, 2e18,
 * -3e18, 1e19 the tile maxima -7.0711e+36, 1.4142e+37, -2.1213e+37, 7.0711e+37 (ASCII '-', as the
 * trace's matrices print negatives), whose sign made the column 12 wide in an 11-wide field; for a = 1e3,
 * 2e3, 5e3, 1e4 the maxima 7071067.8 … 70710678 in fixed point (below numpy's 1e8), "14142136.0000" 13
 * wide in a 9-wide field. The header and the 4 rows now have their "→" in one column and end in one
 * column. For a = 0, -4, 2, 4 tile 2's sum is e^(−11.3137 − 0) = e^(−8√2) = 1.2205e-05, which printed
 * 0.0000 as a zero does. */
static void test_flash_example_columns_hold_any_maximum(void **state) {
    (void)state;
    static const float a[][4] = {{-1e18f, 2e18f, -3e18f, 1e19f}, {1e3f, 2e3f, 5e3f, 1e4f}, {0, -4, 2, 4}};
    static const char *const whole[][2] = {{" -7.0711e+36 ", " -2.1213e+37 "}, {" 14142136.0000 ", " 70710680.0000"},
                                           {"  -11.3137 ", " 11.3137"}};
    for (int c = 0; c < 3; c++) {
        float x[8] = {0};
        for (int j = 0; j < 4; j++) x[2 * j] = a[c][j];
        char *dir = identity_weights_dir(x, 4);
        tu_result r;
        run_attnviz(&r, NULL, "--kernel", "flash", "--no-plot", "--color", "never", "-d", "2", "-p", "none", "-w",
                    dir, "a b c d", NULL);
        assert_int_equal(r.code, 0);
        for (int k = 0; k < 2; k++)
            if (!strstr(r.out, whole[c][k])) fail_msg("a_3 = %g: missing \"%s\" in\n%s", a[c][3], whole[c][k], r.out);
        const char *line = strstr(r.out, "tile  keys");
        assert_non_null(line);
        while (line[-1] != '\n') line--;
        int arrow = -1, end = -1;
        for (int k = 0; k < 5; k++) {
            const char *nl = strchr(line, '\n'), *to = strstr(line, "\xE2\x86\x92");
            assert_non_null(nl);
            if (!to || to > nl) fail_msg("a_3 = %g: table line %d has no arrow:\n%s", a[c][3], k, r.out);
            int at = utf8_cols(line, (size_t)(to - line)), cols = utf8_cols(line, (size_t)(nl - line));
            if (k == 0) arrow = at, end = cols;
            else if (at != arrow || cols != end)
                fail_msg("a_3 = %g: line %d has its arrow at column %d and ends at %d, the header at %d and %d:\n%s",
                         a[c][3], k, at, cols, arrow, end, r.out);
            line = nl + 1;
        }
        if (c == 2) { /* tile 2 is the second row: its sum is the second number from the line's end */
            const char *row2 = strstr(r.out, "   2  1..1");
            assert_non_null(row2);
            const char *nl = strchr(row2, '\n'), *p = nl;
            while (p[-1] != ' ') p--; /* l */
            while (p[-1] == ' ') p--;
            while (p[-1] != ' ') p--; /* the tile sum */
            double sum = strtod(p, NULL), want = exp(-8 * sqrt(2.0));
            if (fabs(sum - want) > 1e-3 * want) fail_msg("tile 2's sum is %g, not e^(-8√2) = %g:\n%s", sum, want, r.out);
        }
        tu_free(&r);
        rm_rf(dir);
    }
}

/* A scores figure's cells print numbers that tell its cells apart: X = [[a, 0], [a, a]], identity weights, no
 * positions, so S = X·Xᵀ/√2 = a²/√2·[[1, 1], [1, 2]], by hand: for a = 0.05, 0.0017678 three times and
 * 0.0035355, the colour range ±0.0035355. Every cell printed "0.00" (2 decimals below 10) over colours from
 * the middle to the top of the map; they now print 0.0018 and 0.0035 (two significant digits of the range's
 * end). For a = 1e-20 (S ≈ 7e-41) the digits would not fit: the cells print none, as for 1e36, and the colour
 * bar's ticks give the scale. */
static void test_scores_figure_cells_resolve_tiny_scores(void **state) {
    (void)state;
    static const double scale[] = {0.05, 1e-20};
    for (int c = 0; c < 2; c++) {
        const float x[4] = {(float)scale[c], 0, (float)scale[c], (float)scale[c]};
        char *dir = identity_weights_dir(x, 2), *out = make_tmpdir(), path[4200];
        tu_result r;
        run_attnviz(&r, NULL, "-q", "-d", "2", "-p", "none", "-w", dir, "--figures", "scores", "--format", "svg", "-o",
                    out, "a b", NULL);
        assert_int_equal(r.code, 0);
        tu_free(&r);
        snprintf(path, sizeof path, "%s/scores_head0.svg", out);
        char *svg = tu_slurp_file(path, NULL);
        assert_non_null(svg);
        if (strstr(svg, ">0.00</text>")) fail_msg("a = %g: a cell prints 0.00:\n%s", scale[c], svg);
        if (c == 0) {
            int n18 = 0;
            for (const char *p = svg; (p = strstr(p, ">0.0018</text>")); p++) n18++;
            if (n18 != 3 || !strstr(svg, ">0.0035</text>")) fail_msg("a = 0.05: want 0.0018 ×3 and 0.0035:\n%s", svg);
        }
        free(svg);
        rm_rf(dir);
        rm_rf(out);
    }
}

/* What `--show` writes to a pseudo-terminal (80 columns) with TERM set to term (NULL: unset), --color
 * auto: NUL-terminated, malloc'ed. */
static char *show_on_a_tty(const char *term) {
    struct winsize ws = {.ws_row = 24, .ws_col = 80};
    int fd;
    pid_t pid = forkpty(&fd, NULL, NULL, &ws);
    assert_true(pid >= 0);
    if (pid == 0) {
        unsetenv("COLUMNS");
        unsetenv("NO_COLOR");
        if (term) setenv("TERM", term, 1);
        else unsetenv("TERM");
        execl(tu_bin(), tu_bin(), "--no-plot", "--show", "--heads", "2", "I love deep learning", (char *)NULL);
        _exit(127);
    }
    size_t cap = 1 << 16;
    char *buf = malloc(cap);
    assert_non_null(buf);
    int status = tu_pty_collect(fd, pid, buf, cap, NULL, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return buf;
}

/* What attnviz writes to a pseudo-terminal that is also its standard input, when it is run with argv (NULL
 * ended) and the terminal gets typed first: NUL-terminated, malloc'ed; *status is waitpid's. */
static char *typed_on_a_tty(const char *const *argv, const char *typed, int *status) {
    struct winsize ws = {.ws_row = 24, .ws_col = 80};
    int fd;
    pid_t pid = forkpty(&fd, NULL, NULL, &ws);
    assert_true(pid >= 0);
    if (pid == 0) {
        execv(tu_bin(), (char *const *)argv);
        _exit(127);
    }
    /* canonical mode keeps the line until attnviz reads it; Ctrl-D at a line's start is the end */
    assert_int_equal(write(fd, typed, strlen(typed)), (ssize_t)strlen(typed));
    size_t cap = 1 << 16;
    char *buf = malloc(cap);
    assert_non_null(buf);
    *status = tu_pty_collect(fd, pid, buf, cap, NULL, 0);
    return buf;
}

/* `attnviz --no-plot -` at a terminal waited for the sentence without a word, as if it had hung (a tester's
 * report): a line on stderr now says where the text is read from and how to end it, for "-" and for -f -,
 * and --attn-mask - says a binary .npy is not typed; a pipe or a file gets no such line. */
static void test_sentence_from_a_terminal_is_asked_for(void **state) {
    (void)state;
    const char *prompt = "attnviz: reading the sentence from the terminal; end it with Ctrl-D on a line of its own";
    const char *const dash[] = {tu_bin(), "-q", "--no-plot", "--show", "--color", "never", "-", NULL};
    const char *const f_dash[] = {tu_bin(), "-q", "--no-plot", "--show", "--color", "never", "-f", "-", NULL};
    const char *const *runs[] = {dash, f_dash};
    for (size_t i = 0; i < 2; i++) {
        int status;
        char *out = typed_on_a_tty(runs[i], "I love\n\x04", &status);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !strstr(out, prompt) ||
            !strstr(out, "keys: 0=I 1=love"))
            fail_msg("%s at a terminal: status %d:\n%s", runs[i][6], status, out);
        free(out);
    }
    const char *const mask[] = {tu_bin(), "-q", "--no-plot", "--attn-mask", "-", "I love", NULL};
    int status;
    char *out = typed_on_a_tty(mask, "\x04", &status);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 2 ||
        !strstr(out, "attnviz: reading the --attn-mask array from the terminal; it is a binary .npy file"))
        fail_msg("--attn-mask - at a terminal: status %d:\n%s", status, out);
    free(out);
    /* a pipe and a file: no prompt */
    tu_result r;
    run_attnviz(&r, "I love\n", "-q", "--no-plot", "--show", "--color", "never", "-", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    assert_non_null(strstr(r.out, "keys: 0=I 1=love"));
    tu_free(&r);
    run_attnviz(&r, "I love\n", "-q", "--no-plot", "--show", "--color", "never", "-f", "-", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    tu_free(&r);
}

/* --color auto gives no colour where TERM=dumb (Emacs's M-x shell, some IDE consoles), as git, grep and
 * ls do: on such a terminal the trace's bold steps and the --show cells came out as text, "^[[1m [1]
 * tokenize ^[[0m" and "^[[48;5;53m^[[97m0.01 ^[[0m" for every cell (a teacher's report). Other terminals
 * keep their colour; --color always still colours. */
static void test_dumb_terminal_gets_no_colour(void **state) {
    (void)state;
    char *out = show_on_a_tty("xterm-256color");
    if (!strstr(out, "\033[48;5;")) fail_msg("a TTY with TERM=xterm-256color lost its colour:\n%s", out);
    free(out);
    out = show_on_a_tty("dumb");
    if (strchr(out, '\033')) fail_msg("TERM=dumb got escape sequences:\n%s", out);
    assert_non_null(strstr(out, "legend: weights (unmasked rows sum to 1)")); /* the numbers' table instead */
    free(out);
    const char *dumb[] = {"TERM=dumb", NULL};
    tu_result r;
    tu_runv(&r, NULL, dumb, (const char *[]){"--no-plot", "--show", "--color", "always", "a b", NULL});
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "\033[48;5;"));
    tu_free(&r);
}

/* The font thread (render/textlayout.h av_text_prepare_for) reads the
 * environment while fontconfig starts (getenv of HOME, XDG_*, FONTCONFIG_*);
 * nn/attention_blas.c sets and removes OPENBLAS_CORETYPE when OpenBLAS picked
 * its generic kernels. glibc's setenv/unsetenv are not safe while another
 * thread reads the environment, and OpenBLAS is loaded (dlopen) only when a
 * kernel needs it, after the font thread has started: the change must wait
 * for that thread (av_blas_set_env_wait). The LD_PRELOAD shim
 * (tests/shim_env.c) reports OpenBLAS's generic core, makes the font
 * start-up take 0.3 s and exits 70 on a setenv during it; the trace naming
 * the "Prescott" kernels shows the shim's report reached attnviz. */
static void test_environment_not_changed_while_fonts_load(void **state) {
    tu_fixture *f = *state;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    int selects = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    int selects = 0;
#endif
    if (!selects) {
        print_message("[ SKIPROW  ] no AVX2+FMA: attnviz keeps OpenBLAS's kernels and never sets OPENBLAS_CORETYPE\n");
        return;
    }
    char shim[4200], self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = 0;
    snprintf(shim, sizeof shim, "%.*s/shim_env.so", (int)(strrchr(self, '/') - self), self);
    if (access(shim, R_OK) != 0) {
        print_message("[ SKIPROW  ] %s not built (make test builds it)\n", shim);
        return;
    }
    char preload[4300], asan[4300];
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", shim);
    /* a sanitized binary wants its runtime first in the library list */
    const char *old_asan = getenv("ASAN_OPTIONS");
    snprintf(asan, sizeof asan, "ASAN_OPTIONS=%s%sverify_asan_link_order=0", old_asan ? old_asan : "",
             old_asan && *old_asan ? ":" : "");
    const char *env[] = {preload, asan, NULL};
    char *coretype = getenv("OPENBLAS_CORETYPE") ? strdup(getenv("OPENBLAS_CORETYPE")) : NULL;
    unsetenv("OPENBLAS_CORETYPE"); /* set, attnviz leaves OpenBLAS's choice alone */
    const char *kinds[] = {"blas", "reference"};
    /* fontconfig starts on the thread only for a sentence that needs it
     * (av_text_prepare_for): Chinese does, the Latin one draws without it */
    const char *sentences[] = {"I love deep learning", "我爱深度学习"};
    for (int k = 0; k < 4; k++) {
        tu_result r;
        const char *args[] = {"--heads", "8", "--kernel", kinds[k % 2], "-o", tu_in(f, kinds[k % 2]), sentences[k / 2],
                              NULL};
        tu_runv(&r, NULL, env, args);
        if (r.code != 0) print_message("--kernel %s '%s': exit %d, stderr: %s\n", kinds[k % 2], sentences[k / 2], r.code, r.err);
        assert_int_equal(r.code, 0);
        assert_string_equal(r.err, "");
        if (k == 0) assert_non_null(strstr(r.out, "OpenBLAS Prescott kernels"));
        tu_free(&r);
    }
    if (coretype) setenv("OPENBLAS_CORETYPE", coretype, 1);
    free(coretype);
}

/* The path of BUILD/tests/NAME, next to this test binary; NULL (and a
 * SKIPROW line) when it was not built. */
static const char *shim_path(char *buf, size_t size, const char *name) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = 0;
    snprintf(buf, size, "%.*s/%s", (int)(strrchr(self, '/') - self), self, name);
    if (access(buf, R_OK) == 0) return buf;
    print_message("[ SKIPROW  ] %s not built (make test builds it)\n", buf);
    return NULL;
}

/* OpenBLAS is opened with dlopen when a kernel first needs sgemm (issue 13:
 * loading it took about 5 of the 12 ms of `attnviz --version`). The dynamic
 * loader's own log (LD_DEBUG=libs, on stderr) names every library it loads:
 * --version, --help and the classroom command (T = 4 runs the reference
 * kernel; with its figures) never load libopenblas, --kernel blas and
 * --kernel flash on the same sentence do. */
static void test_openblas_loads_only_for_sgemm(void **state) {
    tu_fixture *f = *state;
    const char *env[] = {"LD_DEBUG=libs", NULL};
    struct {
        const char *args[12];
        int loads;
    } cases[] = {
        {{"--version", NULL}, 0},
        {{"--help", NULL}, 0},
        {{"--heads", "8", "-o", tu_in(f, "classroom"), "I love deep learning", NULL}, 0},
        {{"--no-plot", "--heads", "8", "I love deep learning", NULL}, 0},
        {{"--no-plot", "--heads", "8", "--kernel", "blas", "I love deep learning", NULL}, 1},
        {{"--no-plot", "--heads", "8", "--kernel", "flash", "I love deep learning", NULL}, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_result r;
        tu_runv(&r, NULL, env, cases[i].args);
        int loaded = strstr(r.err, "libopenblas") != NULL;
        if (r.code != 0 || loaded != cases[i].loads)
            print_message("case %zu (%s ...): exit %d, libopenblas %s\n", i, cases[i].args[0], r.code,
                          loaded ? "loaded" : "not loaded");
        assert_int_equal(r.code, 0);
        assert_int_equal(loaded, cases[i].loads);
        tu_free(&r);
    }
}

/* Without OpenBLAS (tests/shim_noblas.c makes its dlopen fail as on a
 * machine without the library), what needs sgemm exits 1 with a message
 * naming libopenblas.so.0, dlerror()'s reason and the two ways out, before
 * writing anything; the reference kernel (the classroom command, figures
 * included) still works. */
static void test_missing_openblas_is_an_error_not_a_crash(void **state) {
    tu_fixture *f = *state;
    char shim[4200], preload[4300], asan[4300];
    if (!shim_path(shim, sizeof shim, "shim_noblas.so")) return;
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", shim);
    const char *old_asan = getenv("ASAN_OPTIONS"); /* a sanitized binary wants its runtime first */
    snprintf(asan, sizeof asan, "ASAN_OPTIONS=%s%sverify_asan_link_order=0", old_asan ? old_asan : "",
             old_asan && *old_asan ? ":" : "");
    const char *env[] = {preload, asan, NULL};
    const char *fails[][12] = {
        {"--no-plot", "--heads", "8", "--kernel", "blas", "I love deep learning", NULL},
        {"--no-plot", "--heads", "8", "--kernel", "flash", "I love deep learning", NULL},
        {"--heads", "8", "--kernel", "blas", "-o", tu_in(f, "blas"), "I love deep learning", NULL},
        {"--train", "reverse", "--steps", "2", "-o", tu_in(f, "train"), NULL},
    };
    for (size_t i = 0; i < sizeof fails / sizeof fails[0]; i++) {
        tu_result r;
        tu_runv(&r, NULL, env, fails[i]);
        if (r.code != 1) print_message("case %zu: exit %d, stderr: %s\n", i, r.code, r.err);
        assert_int_equal(r.code, 1);
        assert_true(strncmp(r.err, "attnviz: error: ", 16) == 0);
        assert_non_null(strstr(r.err, "libopenblas.so.0"));
        assert_non_null(strstr(r.err, "/nonexistent/shim_noblas-hides-the-blas.so: cannot open shared object file"));
        assert_non_null(strstr(r.err, "libopenblas0"));
        assert_non_null(strstr(r.err, "--kernel reference"));
        assert_string_equal(r.out, "");
        tu_free(&r);
    }
    assert_int_equal(access(tu_in(f, "blas"), F_OK), -1); /* nothing written */
    assert_int_equal(access(tu_in(f, "train"), F_OK), -1);
    const char *works[] = {"--heads", "8", "--kernel", "reference", "-o", tu_in(f, "ref"), "I love deep learning", NULL};
    tu_result r;
    tu_runv(&r, NULL, env, works);
    if (r.code != 0) print_message("--kernel reference: exit %d, stderr: %s\n", r.code, r.err);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    assert_int_equal(access(tu_in(f, "ref/heads.png"), F_OK), 0);
    tu_free(&r);
}

#ifndef __SANITIZE_ADDRESS__ /* only the shim_nomem tests use it, and they skip under ASan */
/* tu_runv with the binary bin in place of $ATTNVIZ_BIN. */
static void run_binary(tu_result *r, const char *bin, const char *const *env, const char *const *args) {
    char *old = getenv("ATTNVIZ_BIN") ? strdup(getenv("ATTNVIZ_BIN")) : NULL;
    setenv("ATTNVIZ_BIN", bin, 1);
    tu_runv(r, NULL, env, args);
    if (old) setenv("ATTNVIZ_BIN", old, 1);
    else unsetenv("ATTNVIZ_BIN");
    free(old);
}

/* A copy of the binary in f's inst/ beside a link to assets/, so that it finds the bundled fonts; its path in
 * bin (cap bytes). */
static void copy_beside_assets(tu_fixture *f, char *bin, size_t cap) {
    char link_to[4096], assets[4200];
    assert_int_equal(mkdir(tu_in(f, "inst"), 0755), 0);
    snprintf(bin, cap, "%s", tu_in(f, "inst/attnviz"));
    size_t n = 0;
    char *image = tu_slurp_file(tu_bin(), &n);
    assert_non_null(image);
    int fd = open(bin, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, image, n), (ssize_t)n);
    close(fd);
    free(image);
    assert_non_null(realpath(src_path("assets"), link_to));
    snprintf(assets, sizeof assets, "%s", tu_in(f, "inst/assets"));
    assert_int_equal(symlink(link_to, assets), 0);
}
#endif

/* Memory that runs out while the bundled fonts load is attnviz's out-of-memory
 * error, not a crash: `(ulimit -v 90000; attnviz -q -o out --kernel reference
 * --heads 2 --format both --dpi 600 $(seq 1 1500))` exited 139 in about half
 * the runs, because the font loader, finding the bundled face not loaded,
 * started fontconfig, which crashes when an allocation fails. Here
 * tests/shim_nomem.c runs the memory out on the thread that maps a bundled
 * font, every time, and plays fontconfig's crash; the binary is copied
 * beside a link to assets/ so that it finds the bundled fonts. A regular and
 * a bold face, PNG and SVG: exit 1, "out of memory", no folder. The same
 * copy with the shim idle writes the figures. */
static void test_fonts_out_of_memory_is_an_error_not_a_crash(void **state) {
#ifdef __SANITIZE_ADDRESS__
    print_message("[ SKIPROW  ] shim_nomem replaces malloc, which a sanitized binary owns\n");
    (void)state;
#else
    tu_fixture *f = *state;
    char preload[4300], asan[4300], bin[4200];
    if (!tu_shim_env("shim_nomem.so", preload, asan)) return;
    copy_beside_assets(f, bin, sizeof bin);
    const struct {
        const char *font, *format, *out;
    } cases[] = {
        {"DejaVuSans.ttf", "png", "regular"},
        {"DejaVuSans-Bold.ttf", "svg", "bold"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char nomem[256];
        snprintf(nomem, sizeof nomem, "SHIM_NOMEM=%s", cases[i].font);
        const char *env[] = {preload, asan, nomem, NULL};
        const char *args[] = {"-q", "-o", tu_in(f, cases[i].out), "--heads", "2", "--format", cases[i].format,
                              "I love deep learning", NULL};
        tu_result r;
        run_binary(&r, bin, env, args);
        if (r.code != 1) print_message("case %zu (%s): exit %d, stderr: %s\n", i, cases[i].font, r.code, r.err);
        assert_int_equal(r.code, 1);
        assert_true(strncmp(r.err, "attnviz: error: ", 16) == 0);
        assert_non_null(strstr(r.err, "out of memory"));
        assert_int_equal(access(tu_in(f, cases[i].out), F_OK), -1); /* nothing written */
        tu_free(&r);
    }
    const char *env[] = {preload, asan, NULL}; /* the shim idle */
    const char *args[] = {"-q", "-o", tu_in(f, "idle"), "--heads", "2", "I love deep learning", NULL};
    tu_result r;
    run_binary(&r, bin, env, args);
    if (r.code != 0) print_message("shim idle: exit %d, stderr: %s\n", r.code, r.err);
    assert_int_equal(r.code, 0);
    assert_int_equal(access(tu_in(f, "idle/heads.png"), F_OK), 0);
    tu_free(&r);
#endif
}

/* A font file that cannot be mapped for another reason than memory (ENODEV: a file system without mmap) is
 * read into memory, as FreeType's FT_New_Face did before attnviz mapped the fonts itself: every label of
 * 'attnviz --format svg "我爱 love"' was drawn as a box ("42 characters in the labels have no glyph in any
 * installed font"). tests/shim_nomem.c's SHIM_NOMAP fails the mapping of every .ttf and .otf file (the bundled
 * fonts and fontconfig's); the figure is byte for byte the one of a run without the shim. */
static void test_fonts_on_a_file_system_without_mmap(void **state) {
#ifdef __SANITIZE_ADDRESS__
    print_message("[ SKIPROW  ] shim_nomem replaces malloc, which a sanitized binary owns\n");
    (void)state;
#else
    tu_fixture *f = *state;
    char preload[4300], asan[4300], bin[4200];
    if (!tu_shim_env("shim_nomem.so", preload, asan)) return;
    copy_beside_assets(f, bin, sizeof bin);
    const char *args[] = {"-q", "-o", tu_in(f, "out"), "--heads", "1", "--format", "svg", "我爱 love", NULL};
    const char *nomap[] = {"SHIM_IDLE=1", "SHIM_NOMAP=.ttf", "SHIM_NOMAP=.otf"}; /* .otf: CJK faces on some systems */
    char *svg[3];
    for (int i = 0; i < 3; i++) {
        const char *env[] = {preload, asan, nomap[i], NULL};
        tu_result r;
        run_binary(&r, bin, env, args);
        if (r.code != 0 || strstr(r.err, "no glyph")) fail_msg("%s: exit %d: %s", nomap[i], r.code, r.err);
        tu_free(&r);
        svg[i] = tu_slurp_file(tu_in(f, "out/head0.svg"), NULL);
        assert_non_null(svg[i]);
        if (i && strcmp(svg[i], svg[0]) != 0) fail_msg("%s: the figure differs from the one without the shim", nomap[i]);
    }
    free(svg[0]);
    free(svg[2]);
    free(svg[1]);
#endif
}

#ifndef __SANITIZE_ADDRESS__ /* its two tests are skipped under AddressSanitizer */
/* "FONTCONFIG_FILE=<f's empty.conf>" into env (cap bytes): a fontconfig configuration that lists no font, as a
 * container without system fonts has, with its cache in f's folder. */
static void no_system_fonts(tu_fixture *f, char *env, size_t cap) {
    FILE *c = fopen(tu_in(f, "empty.conf"), "w");
    assert_non_null(c);
    fprintf(c, "<?xml version=\"1.0\"?>\n<fontconfig><cachedir>%s</cachedir></fontconfig>\n", tu_in(f, "fc"));
    fclose(c);
    snprintf(env, cap, "FONTCONFIG_FILE=%s", tu_in(f, "empty.conf"));
}
#endif

/* --train's figures take their labels from the bundled DejaVu Sans, as the attention figures do: it never loaded
 * them, so on a machine without system fonts (a container; here an empty fontconfig configuration) the installed
 * binary wrote curves.png, filmstrip.png and attention.gif with every title, tick and legend a box, exit 0 and
 * not a word (a packager's pass), and elsewhere with whatever font fontconfig picked. The copy beside assets/
 * trains once with no system font visible and once with them all: the same bytes. */
static void test_train_figures_use_the_bundled_fonts(void **state) {
#ifdef __SANITIZE_ADDRESS__
    print_message("[ SKIPROW  ] run_binary and copy_beside_assets are not built under AddressSanitizer\n");
    (void)state;
#else
    tu_fixture *f = *state;
    char bin[4200], conf[4400];
    copy_beside_assets(f, bin, sizeof bin);
    no_system_fonts(f, conf, sizeof conf);
    const char *args[] = {"--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-q", "-o",
                          tu_in(f, "tr"), NULL};
    static const char *const files[] = {"curves.png", "filmstrip.png", "attention.gif"};
    char *bytes[3];
    size_t len[3];
    for (int run = 0; run < 2; run++) {
        const char *no_fonts[] = {conf, NULL};
        tu_result r;
        run_binary(&r, bin, run == 0 ? no_fonts : NULL, args);
        if (r.code != 0 || r.err[0]) fail_msg("%s: exit %d: %s", run ? "system fonts" : "no system font", r.code, r.err);
        tu_free(&r);
        for (int k = 0; k < 3; k++) {
            char path[4400];
            snprintf(path, sizeof path, "%s/%s", tu_in(f, "tr"), files[k]);
            size_t n = 0;
            char *b = tu_slurp_file(path, &n);
            assert_non_null(b);
            if (run == 0) bytes[k] = b, len[k] = n;
            else {
                if (n != len[k] || memcmp(b, bytes[k], n) != 0)
                    fail_msg("%s differs between no system font and the system fonts (labels not in the bundled "
                             "DejaVu Sans)", files[k]);
                free(b);
                free(bytes[k]);
            }
        }
    }
#endif
}

/* A binary copied without its data folder, on a machine without system fonts: --train's figures were all boxes
 * with exit 0 and no warning, and the attention figures' warning ("40 characters in the labels have no glyph in any
 * installed font; drawn as boxes") did not say that attnviz's own fonts were missing, the cause (a packager's
 * pass: `cp attnviz` alone into a container). Both now warn, naming the missing DejaVu Sans and make install. */
static void test_missing_bundled_fonts_are_named(void **state) {
#ifdef __SANITIZE_ADDRESS__
    print_message("[ SKIPROW  ] run_binary and copy_beside_assets are not built under AddressSanitizer\n");
    (void)state;
#else
    tu_fixture *f = *state;
    char bin[4200], conf[4400];
    copy_beside_assets(f, bin, sizeof bin);
    assert_int_equal(unlink(tu_in(f, "inst/assets")), 0); /* the binary alone */
    no_system_fonts(f, conf, sizeof conf);
    const char *env[] = {conf, NULL};
    const char *fwd[] = {"-q", "-o", tu_in(f, "fwd"), "I love you", NULL};
    const char *train[] = {"--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-q", "-o",
                           tu_in(f, "tr"), NULL};
    const char *const *runs[] = {fwd, train};
    for (int i = 0; i < 2; i++) {
        tu_result r;
        run_binary(&r, bin, env, runs[i]);
        assert_int_equal(r.code, 0);
        if (i == 0 && !strstr(r.err, "no glyph")) { /* an installed data folder (AV_DATADIR) found: nothing to see */
            print_message("[ SKIPROW  ] the copy found a data folder installed on this machine\n");
            tu_free(&r);
            return;
        }
        if (!strstr(r.err, "no glyph in any installed font; drawn as boxes") ||
            !strstr(r.err, "attnviz's own DejaVu Sans was not found") || !strstr(r.err, "make install"))
            fail_msg("%s: no warning naming the missing bundled fonts: '%s'", i ? "--train" : "attention figures", r.err);
        tu_free(&r);
    }
#endif
}

/* A run that writes no file (--figures pe with --positions none: a warning, nothing to draw) leaves no
 * folder it made behind: -o new/deeper/out made all three, empty (a new user's report, on a --model folder
 * with sinusoidal positions). A folder that was there before stays, and a run that writes keeps its folder. */
static void test_run_that_writes_nothing_leaves_no_folder(void **state) {
    (void)state;
    char *dir = make_tmpdir();
    char out[4200], keep[4200], path[4300];
    struct stat sb;
    snprintf(out, sizeof out, "%s/new/deeper/out", dir);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--positions", "none", "--figures", "pe", "-o", out, "hi there", NULL);
    if (r.code != 0 || !strstr(r.err, "no pe figure")) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    snprintf(path, sizeof path, "%s/new", dir);
    if (stat(path, &sb) == 0) fail_msg("%s was left behind", path);
    snprintf(keep, sizeof keep, "%s/keep", dir);
    assert_int_equal(mkdir(keep, 0755), 0);
    run_attnviz(&r, NULL, "-q", "--positions", "none", "--figures", "pe", "-o", keep, "hi there", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    assert_int_equal(stat(keep, &sb), 0);
    run_attnviz(&r, NULL, "-q", "--figures", "pe", "-o", out, "hi there", NULL); /* sinusoidal: pe.png */
    assert_int_equal(r.code, 0);
    tu_free(&r);
    snprintf(path, sizeof path, "%s/pe.png", out);
    assert_int_equal(stat(path, &sb), 0);
    /* a run that fails after making -o: a --dump folder that cannot be made (under a file) left -o NEW/a and
     * NEW empty (a new user's report); the earlier run's folder, which holds pe.png, stays */
    char file[4200], dump[4300], fresh[4200];
    snprintf(file, sizeof file, "%s/afile", dir);
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    fclose(fp);
    snprintf(dump, sizeof dump, "%s/x", file);
    snprintf(fresh, sizeof fresh, "%s/fresh/a", dir);
    const char *outs[] = {fresh, out};
    for (int i = 0; i < 2; i++) {
        run_attnviz(&r, NULL, "-q", "-o", outs[i], "--dump", dump, "hi there", NULL);
        if (r.code != 1 || !strstr(r.err, "is not a folder")) fail_msg("-o %s: exit %d: %s", outs[i], r.code, r.err);
        tu_free(&r);
    }
    snprintf(path, sizeof path, "%s/fresh", dir);
    if (stat(path, &sb) == 0) fail_msg("%s was left behind by a failed run", path);
    snprintf(path, sizeof path, "%s/pe.png", out);
    assert_int_equal(stat(path, &sb), 0);
    rm_rf(dir);
}

/* pe.png draws every dimension the model added: an odd d_model has one more sin dimension (2i) than cos
 * (2i+1), and the figure took d_model / 2 columns for both, so --d-model 7 lost sin at dimension 6 and
 * --d-model 1 wrote no pe figure at all, without a word and with exit 0 (a teacher's pass). Now the sin
 * panel has columns 0..3 (tick "3") and the cos panel 0..2; d_model 1 draws the sin panel alone. */
static void test_pe_figure_draws_every_dimension_of_an_odd_d_model(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--d-model", "7", "--figures", "pe", "--format", "svg", "-o", tu_in(f, "d7"),
                "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    char *svg = tu_slurp_file(tu_in(f, "d7/pe.svg"), NULL);
    assert_non_null(svg);
    const char *sin = strstr(svg, ">sin: even dimensions 2i</text>"), *cos = strstr(svg, ">cos: odd dimensions 2i+1</text>");
    assert_non_null(sin);
    assert_non_null(cos);
    const char *three = strstr(svg, ">3</text>"); /* the sin panel's last tick, i = 3 (dimension 6) */
    if (!three || three > sin) fail_msg("--d-model 7: no column i = 3 in the sin panel (dimension 6 left out)");
    if (strstr(sin, ">3</text>") && strstr(sin, ">3</text>") < cos)
        fail_msg("--d-model 7: the cos panel has a column i = 3 (dimension 7 does not exist)");
    free(svg);
    run_attnviz(&r, NULL, "-q", "--d-model", "1", "--figures", "pe", "--format", "svg", "-o", tu_in(f, "d1"),
                "I love deep learning", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    svg = tu_slurp_file(tu_in(f, "d1/pe.svg"), NULL);
    if (!svg) fail_msg("--d-model 1 --figures pe wrote no pe.svg");
    assert_non_null(strstr(svg, ">sin: even dimensions 2i</text>"));
    assert_null(strstr(svg, ">cos: odd dimensions 2i+1</text>"));
    free(svg);
}

/* A lone "-" as the sentence reads standard input, as -f - does and as cat and the GNU tools read it: `echo
 * 我爱你 | attnviz -` ran the one-token sentence "-" (a Chinese-speaking student's pass). A "-" among other
 * words stays text. */
static void test_lone_dash_reads_standard_input(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, "我爱你\n", "--no-plot", "-", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "  tokens     [我] [爱] [你]\n"));
    tu_free(&r);
    run_attnviz(&r, "ignored", "--no-plot", "a", "-", "b", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "  tokens     [a] [-] [b]\n"));
    tu_free(&r);
}

/* A short Thai sentence without spaces ran as one token, a 1×1 map, without a word (a figure-maker's pass):
 * a note says why (9 Thai code points: ฉ ั น ร ั ก ค ุ ณ), and none with the spaces or with -q. */
static void test_unspaced_script_sentence_notes_one_token(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "ฉันรักคุณ", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.err, "attnviz: note: token 0 \"ฉันรักคุณ\" holds 9 Thai characters: Thai is written "
                                  "without spaces between words, and attnviz splits words at spaces"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "ฉัน รัก คุณ", NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.err, "Thai"));
    assert_non_null(strstr(r.out, "tokens     [ฉัน] [รัก] [คุณ]"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-q", "ฉันรักคุณ", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    tu_free(&r);
}

/* A scores figure pooled past the pixels keeps each block's score of the largest magnitude with its sign:
 * the plain max drew a long sentence's scores almost all red (positive) on their diverging −max..max map,
 * though about half the scores are negative (a learner's pass, 2000 tokens: every block red, no blue).
 * 800 tokens > 768 cells: 2×2 blocks. The title says how. Blue (negative) pixels: 202,078 against 559,840 red
 * (these scores lean positive); the plain max left 9,163 blue, the colour bar's, against 615,001. */
static void test_pooled_scores_keep_their_sign(void **state) {
    tu_fixture *f = *state;
    enum { T = 800 };
    char *text = malloc((size_t)T * 8);
    assert_non_null(text);
    text[0] = 0;
    for (int i = 0; i < T; i++) sprintf(text + strlen(text), "%sw%d", i ? " " : "", i);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--heads", "1", "--figures", "scores", "--format", "both", "-o", tu_in(f, "s"), text,
                NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    free(text);
    char *svg = tu_slurp_file(tu_in(f, "s/scores_head0.svg"), NULL);
    assert_non_null(svg);
    if (!strstr(svg, "largest |score| over 2\xC3\x97" "2 tokens per cell, sign kept"))
        fail_msg("the pooled scores' title does not say they keep the sign (%s)",
                 strstr(svg, "max over 2\xC3\x97" "2") ? "it says max over 2\xC3\x97" "2" : "no pooling note");
    /* the file's own title says it too: the SVG's <title> and the PNG's tEXt Title had the title without
     * the note, as if every token had a cell of its own (a learner's pass) */
    const char *t0 = strstr(svg, "<title>"), *t1 = t0 ? strstr(t0, "</title>") : NULL, *note = strstr(svg, "sign kept");
    assert_non_null(t1);
    if (!note || note > t1) fail_msg("scores_head0.svg's <title> lacks the pooling note: %.*s", (int)(t1 - t0), t0);
    free(svg);
    av_png_image img;
    av_err err = {{0}};
    if (av_png_read_texts(tu_in(f, "s/scores_head0.png"), &img, &err)) fail_msg("%s", err.msg);
    const char *title = av_png_image_text(&img, "Title");
    if (!title || !strstr(title, " \xC2\xB7 largest |score| over 2\xC3\x97" "2 tokens per cell, sign kept"))
        fail_msg("scores_head0.png's Title lacks the pooling note: %s", title ? title : "(none)");
    av_png_image_free(&img);
    if (av_png_read(tu_in(f, "s/scores_head0.png"), &img, &err)) fail_msg("%s", err.msg);
    size_t red = 0, blue = 0;
    for (size_t k = 0; k < (size_t)img.width * img.height; k++) {
        int R = img.rgb[3 * k], B = img.rgb[3 * k + 2];
        red += R > B + 60;
        blue += B > R + 60;
    }
    printf("    pooled scores: %zu red, %zu blue pixels\n", red, blue);
    av_png_image_free(&img);
    if (blue * 10 < red) fail_msg("%zu blue (negative) pixels against %zu red: the negative scores are hidden", blue, red);
}

/* The mask figure pooled past the pixels has two colours, "query sees key" and hatched: a block is hatched
 * only when every pair in it is masked, so a mask hiding pairs here and there draws as if it hid none. Its
 * title said "max over 2×2 tokens per cell" ("mean" with --pool mean, though no mean is drawn), and a
 * 2100-token --attn-mask hiding 30 % of the pairs at random drew only the causal triangle (a long-input
 * learner's pass). Here 800 tokens, 2×2 blocks, and a mask hiding key 2k+1 from query 2k: no block is all
 * masked, no cell hatched; the title, PNG Title and SVG <title> say when a cell is hatched. */
static void test_pooled_mask_figure_says_when_hatched(void **state) {
    tu_fixture *f = *state;
    enum { T = 800 };
    char *text = malloc((size_t)T * 8);
    unsigned char *m = calloc((size_t)T * T, 1);
    assert_non_null(text);
    assert_non_null(m);
    text[0] = 0;
    for (int i = 0; i < T; i++) sprintf(text + strlen(text), "%sw%d", i ? " " : "", i);
    for (int i = 0; i < T; i += 2) m[(size_t)i * T + i + 1] = 1;
    write_bool_mask(tu_in(f, "m.npy"), m, T);
    free(m);
    const char *pool[] = {"max", "mean"};
    for (int k = 0; k < 2; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "-q", "--figures", "mask", "--format", "both", "--pool", pool[k], "--attn-mask",
                    tu_in(f, "m.npy"), "-o", tu_in(f, "o"), text, NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        tu_free(&r);
        const char *want = "2\xC3\x97" "2 tokens per cell, hatched only when all 4 of its (query, key) pairs are masked";
        char *svg = tu_slurp_file(tu_in(f, "o/mask.svg"), NULL);
        assert_non_null(svg);
        const char *t0 = strstr(svg, "<title>"), *t1 = t0 ? strstr(t0, "</title>") : NULL, *note = strstr(svg, want);
        assert_non_null(t1);
        if (!note || note > t1)
            fail_msg("--pool %s: mask.svg's <title> does not say when a cell is hatched: %.*s", pool[k], (int)(t1 - t0), t0);
        if (strstr(svg, "max over 2\xC3\x97") || strstr(svg, "mean over 2\xC3\x97"))
            fail_msg("--pool %s: the mask figure names a max or mean of values it does not draw", pool[k]);
        free(svg);
        av_png_image img;
        av_err err = {{0}};
        if (av_png_read_texts(tu_in(f, "o/mask.png"), &img, &err)) fail_msg("%s", err.msg);
        const char *title = av_png_image_text(&img, "Title");
        if (!title || !strstr(title, want)) fail_msg("--pool %s: mask.png's Title: %s", pool[k], title ? title : "(none)");
        av_png_image_free(&img);
    }
    free(text);
}

/* --figures reads its names as --explain reads QUERY and KEY: the separators around each are left out, so
 * "heads, grid" (a space after the comma) and "heads，　mean" (the full-width comma and the ideographic
 * space a Chinese input method types) draw those figures; they said "' grid' is not a figure", exit 2,
 * where --explain took "爱，　习" (a teacher's pass). A part of separators only is still an empty name. */
static void test_figures_list_ignores_spaces_around_names(void **state) {
    tu_fixture *f = *state;
    static const struct {
        const char *list, *dir, *files[2];
    } cases[] = {
        {"heads, grid", "a", {"head0.png", "heads.png"}},
        {"heads\xEF\xBC\x8C\xE3\x80\x80mean", "b", {"head0.png", "mean.png"}},
        {" pe ,\tmask", "c", {"pe.png", "mask.png"}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tu_result r;
        run_attnviz(&r, NULL, "-q", "--heads", "2", "--figures", cases[c].list, "-o", tu_in(f, cases[c].dir),
                    "我爱你", NULL);
        if (r.code != 0 || r.err[0]) fail_msg("--figures '%s': exit %d: %s", cases[c].list, r.code, r.err);
        tu_free(&r);
        for (int k = 0; k < 2; k++) {
            char rel[64];
            snprintf(rel, sizeof rel, "%s/%s", cases[c].dir, cases[c].files[k]);
            if (access(tu_in(f, rel), F_OK) != 0) fail_msg("--figures '%s' wrote no %s", cases[c].list, rel);
        }
    }
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--figures", "heads, ,grid", "-o", tu_in(f, "d"), "hi there", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "attnviz: error: --figures 'heads, ,grid' has an empty name"));
    tu_free(&r);
}

/* An empty file named name in folder dir. */
static void make_file_in(const char *dir, const char *name) {
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fclose(fp);
}

/* Every message that names a path the user gave names it as one shell word (av_shown_word), as GNU ls
 * --quoting-style=shell-escape writes it: the lower layers wrote '%s' by hand, so `attnviz -f "/tmp/it's/none.txt"
 * x` said "-f: cannot read '/tmp/it's/none.txt': ...", three quotes no shell reads back, and --model's PyTorch
 * and truncated-weights messages named the folder bare ("--model pt dir has no model.safetensors", two words),
 * and a file of a --model folder ("from DIR/config.json", generation_config.json's messages) was the folder's
 * word with the name after it or the path bare. Here under a folder named with a space and an apostrophe, each
 * expected name from tu_sh_word. */
static void test_paths_in_messages_are_one_shell_word(void **state) {
    tu_fixture *f = *state;
    char dir[4200], path[4400], other[4600], want[9400];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "it's a dir"));
    assert_int_equal(mkdir(dir, 0755), 0);
    tu_result r;
    /* -f: a file that is not there, and a folder */
    snprintf(path, sizeof path, "%s/none.txt", dir);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-f", path, NULL);
    snprintf(want, sizeof want, "attnviz: error: -f: cannot read %s: No such file or directory\n", tu_sh_word(path));
    if (r.code != 2 || strcmp(r.err, want)) fail_msg("-f none.txt: exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-f", dir, NULL);
    snprintf(want, sizeof want, "attnviz: error: -f: cannot read %s: Is a directory\n", tu_sh_word(dir));
    if (r.code != 2 || strcmp(r.err, want)) fail_msg("-f DIR: exit %d: %s", r.code, r.err);
    tu_free(&r);
    /* --attn-mask and --weights */
    snprintf(path, sizeof path, "%s/none.npy", dir);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--attn-mask", path, "a b", NULL);
    snprintf(want, sizeof want, "attnviz: error: --attn-mask: cannot read %s: No such file or directory\n",
             tu_sh_word(path));
    if (r.code != 2 || strcmp(r.err, want)) fail_msg("--attn-mask: exit %d: %s", r.code, r.err);
    tu_free(&r);
    snprintf(path, sizeof path, "%s/nowhere", dir);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--weights", path, "a b", NULL);
    snprintf(want, sizeof want, "attnviz: error: --weights %s: No such file or directory", tu_sh_word(path));
    if (r.code != 2 || strncmp(r.err, want, strlen(want))) fail_msg("--weights: exit %d: %s", r.code, r.err);
    tu_free(&r);
    /* -o under a file: both names */
    make_file_in(dir, "a file");
    snprintf(other, sizeof other, "%s/a file", dir);
    snprintf(path, sizeof path, "%s/a file/out", dir);
    run_attnviz(&r, NULL, "-q", "-o", path, "a b", NULL);
    snprintf(want, sizeof want, "attnviz: error: -o: cannot create folder %s: %s exists and is not a folder\n",
             tu_sh_word(path), tu_sh_word(other));
    if (r.code != 1 || strcmp(r.err, want)) fail_msg("-o under a file: exit %d: %s", r.code, r.err);
    tu_free(&r);
    /* --model: only PyTorch's pytorch_model.bin (nn/llama.c named the folder bare), then a model.safetensors of
     * 4 bytes (io/safetensors.c named the file bare) */
    snprintf(path, sizeof path, "%s/pt dir", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(other, sizeof other, "%s/config.json", path);
    FILE *fp = fopen(other, "w");
    assert_non_null(fp);
    fputs("{\"model_type\": \"gpt2\", \"n_layer\": 1, \"n_head\": 1, \"n_embd\": 8, \"n_positions\": 8, "
          "\"vocab_size\": 10}", fp);
    fclose(fp);
    make_file_in(path, "pytorch_model.bin");
    run_attnviz(&r, NULL, "-q", "--no-plot", "--model", path, "1 >", NULL);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no model.safetensors, only pytorch_model.bin ",
             tu_sh_word(path));
    if (r.code != 2 || strncmp(r.err, want, strlen(want))) fail_msg("--model pytorch: exit %d: %s", r.code, r.err);
    tu_free(&r);
    snprintf(other, sizeof other, "%s/pytorch_model.bin", path);
    assert_int_equal(unlink(other), 0);
    snprintf(other, sizeof other, "%s/model.safetensors", path);
    fp = fopen(other, "w");
    assert_non_null(fp);
    fputs("abcd", fp);
    fclose(fp);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--model", path, "1 >", NULL);
    snprintf(want, sizeof want, "attnviz: error: %s: truncated: 4 bytes, fewer than the 8-byte header length\n",
             tu_sh_word(other));
    if (r.code != 2 || strcmp(r.err, want)) fail_msg("--model truncated: exit %d: %s", r.code, r.err);
    tu_free(&r);
    /* a file of a --model folder is one word, the folder and the file's name together (app/gpt2run.c named
     * '.../toy m'/config.json, a folder's word with the name outside, or the path bare): --layer's range, a
     * wrong attnviz.task in config.json, a generation_config.json whose eos_token_id is not an id */
    snprintf(path, sizeof path, "%s/toy m", dir);
    run_attnviz(&r, NULL, "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "--layers", "1", "-q",
                "-o", path, NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    snprintf(other, sizeof other, "%s/config.json", path);
    run_attnviz(&r, NULL, "--model", path, "--layer", "9", "--no-plot", "3 1 >", NULL);
    snprintf(want, sizeof want, "attnviz: error: --layer 9 is outside 0..0: --layer must be 0..L-1 for this model (L = "
             "n_layer = 1 from %s); leave --layer out for the last layer\n", tu_sh_word(other));
    if (r.code != 2 || strcmp(r.err, want)) fail_msg("--layer 9: exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *cfg = tu_slurp_file(other, NULL);
    assert_non_null(cfg);
    assert_int_equal(tu_write_replaced(other, cfg, "\"task\":\t\"reverse\"", "\"task\":\t\"nope\""), 0);
    run_attnviz(&r, NULL, "--model", path, "--no-plot", "-q", "3 1 >", NULL);
    snprintf(want, sizeof want, "attnviz: error: %s: attnviz.task \"nope\": expected \"reverse\", \"sort\" or "
             "\"induction\" (the task --train trained)\n", tu_sh_word(other));
    if (r.code != 2 || strcmp(r.err, want)) fail_msg("attnviz.task: exit %d: %s", r.code, r.err);
    tu_free(&r);
    assert_int_equal(tu_write_replaced(other, cfg, "{", "{"), 0);
    free(cfg);
    snprintf(other, sizeof other, "%s/generation_config.json", path);
    fp = fopen(other, "w");
    assert_non_null(fp);
    fputs("{\"eos_token_id\": \"x\"}", fp);
    fclose(fp);
    run_attnviz(&r, NULL, "--model", path, "--no-plot", "-q", "3 1 >", NULL);
    snprintf(want, sizeof want, "attnviz: error: %s: \"eos_token_id\" is \"x\"; it must be a token id, a list of them, "
             "or null\n", tu_sh_word(other));
    if (r.code != 2 || strcmp(r.err, want)) fail_msg("generation_config.json: exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* An -o or --dump folder that cannot be made is refused before the (H, T, T) maps are computed: `-o out.txt`
 * (a file) said "-o: cannot create folder ..." only after them (5000 tokens at 8 heads: 6 s and 1.7 GiB), and
 * under a memory limit "out of memory" instead (a long-input learner's pass). 3000 tokens at 8 heads (576 MB)
 * under a 400 MB address-space limit (as `ulimit -v 400000`): the folder's error, at once. A folder made for a
 * run that then fails is removed again. Skipped under AddressSanitizer, which cannot start under such a limit. */
static void test_unusable_folders_refused_before_the_maps(void **state) {
#if defined(__SANITIZE_ADDRESS__)
    (void)state;
    skip();
#else
    tu_fixture *f = *state;
    make_file_in(f->dir, "file");
    static char words[3000 * 3 + 1];
    for (int i = 0; i < 3000; i++) memcpy(words + 3 * i, "ab ", 3);
    words[3000 * 3 - 1] = 0;
    char o_dir[4300], dump_dir[4300], want[9000];
    snprintf(o_dir, sizeof o_dir, "%s", tu_in(f, "file"));
    snprintf(dump_dir, sizeof dump_dir, "%s", tu_in(f, "file/d"));
    const char *o_args[] = {"-q", "-o", o_dir, "--heads", "8", "-d", "8", words, NULL};
    const char *dump_args[] = {"-q", "--no-plot", "--dump", dump_dir, "--heads", "8", "-d", "8", words, NULL};
    tu_result r;
    tu_run_ex(&r, &(tu_run_opts){.stdout_fd = -1, .as_limit_kib = 400000}, NULL, 0, o_args);
    snprintf(want, sizeof want, "attnviz: error: -o: cannot create folder %s: %s exists and is not a folder\n",
             tu_sh_word(o_dir), tu_sh_word(o_dir));
    if (r.code != 1 || strcmp(r.err, want)) fail_msg("-o a file: exit %d: %s", r.code, r.err);
    tu_free(&r);
    tu_run_ex(&r, &(tu_run_opts){.stdout_fd = -1, .as_limit_kib = 400000}, NULL, 0, dump_args);
    snprintf(want, sizeof want, "attnviz: error: --dump: cannot create folder %s: %s exists and is not a "
             "folder\n", tu_sh_word(dump_dir), tu_sh_word(o_dir));
    if (r.code != 1 || strcmp(r.err, want)) fail_msg("--dump under a file: exit %d: %s", r.code, r.err);
    tu_free(&r);
    /* made before the run, removed when the run fails after it (an --attn-mask that is not there) */
    run_attnviz(&r, NULL, "-q", "-o", tu_in(f, "new"), "--dump", tu_in(f, "newdump"), "--attn-mask",
                tu_in(f, "none.npy"), "a b", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "none.npy"));
    tu_free(&r);
    assert_int_not_equal(access(tu_in(f, "new"), F_OK), 0);
    assert_int_not_equal(access(tu_in(f, "newdump"), F_OK), 0);
#endif
}

/* 1 when folder dir holds name. */
static int holds(const char *dir, const char *name) {
    char path[4600];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &sb) == 0;
}

/* A figure run killed by SIGKILL (the OOM killer, a power cut; strace sends it at the first rename, head0.png's)
 * leaves .head0.png.tmpXXXXXX in -o, which no handler can remove, and every later run kept it (a tester's
 * pass). The next run, holding the folder's lock, removes the temporaries of names a locked run writes there
 * (figures, the --html page, --train's files) and says so in a note, with -q too; a --dump folder is not
 * locked, so its temporaries (tokens.txt, .npy) are named, not removed, as one may be a live run's. A file of
 * the user's that merely looks like one stays, and so does everything while another process holds the
 * folder's lock (the run is refused). */
static void test_run_removes_the_temporaries_a_killed_run_left(void **state) {
    tu_fixture *f = *state;
    char out[4200], dump[4200], want[12000];
    snprintf(out, sizeof out, "%s", tu_in(f, "out"));
    snprintf(dump, sizeof dump, "%s", tu_in(f, "dump"));
    const char *args[] = {tu_bin(), "-q", "-o", out, "a killed run", NULL};
    char killed[300] = "";
    int st = tu_signal_at_rename(args, "SIGKILL", 1, tu_in(f, "err"), 0);
    if (st != -1) { /* else no strace or ptrace here: the made-up temporaries below still show it */
        if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) fail_msg("status %d: not killed at the first rename", st);
        DIR *d = opendir(out);
        assert_non_null(d);
        for (struct dirent *e; (e = readdir(d));)
            if (strncmp(e->d_name, ".head0.png.tmp", 14) == 0) snprintf(killed, sizeof killed, " %s", e->d_name);
        closedir(d);
        if (!killed[0]) fail_msg("the killed run left no .head0.png.tmpXXXXXX");
    } else assert_int_equal(mkdir(out, 0755), 0);
    assert_int_equal(mkdir(dump, 0755), 0);
    static const char *const kOurs[] = {".attention.gif.tmpQw12Er", ".attnviz.html.tmpXy34Zw", ".heads.png.tmpAb12Cd"};
    static const char *const kUsers[] = {".notes.tmp", "head0.png.tmpAb12Cd", ".head0.png.tmp1", ".notes.txt.tmpABCDEF",
                                         ".head0.png.tmpAb_12C", ".tokens.txt.tmpAb12Cd", ".x_head0.png.tmpAb12Cd"};
    for (size_t i = 0; i < 3; i++) make_file_in(out, kOurs[i]);
    for (size_t i = 0; i < sizeof kUsers / sizeof kUsers[0]; i++) make_file_in(out, kUsers[i]);
    make_file_in(dump, ".X.npy.tmpZz99aa");
    make_file_in(dump, ".tokens.txt.tmpAb12Cd");
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--html", "--dump", dump, "-o", out, "a b", NULL);
    snprintf(want, sizeof want, "attnviz: note: removed %d temporary files an attnviz left in %s when it was killed "
             "while writing: %s %s%s %s\n"
             "attnviz: note: --dump %s holds 2 temporary files of attnviz's, which an attnviz killed while writing "
             "there left, or one writing there now made (--dump folders are not locked, so they are kept; remove them "
             "when no attnviz writes there): .X.npy.tmpZz99aa .tokens.txt.tmpAb12Cd\n",
             killed[0] ? 4 : 3, tu_sh_word(out), kOurs[0], kOurs[1], killed, kOurs[2], tu_sh_word(dump));
    if (r.code != 0 || strcmp(r.err, want) != 0) fail_msg("exit %d, stderr '%s', want '%s'", r.code, r.err, want);
    tu_free(&r);
    for (size_t i = 0; i < 3; i++)
        if (holds(out, kOurs[i])) fail_msg("%s stayed", kOurs[i]);
    if (killed[0] && holds(out, killed + 1)) fail_msg("%s stayed", killed + 1);
    for (size_t i = 0; i < sizeof kUsers / sizeof kUsers[0]; i++)
        if (!holds(out, kUsers[i])) fail_msg("the user's %s was removed", kUsers[i]);
    assert_true(holds(dump, ".X.npy.tmpZz99aa") && holds(dump, ".tokens.txt.tmpAb12Cd"));
    /* another process holds the folder's lock: refused, and its temporary stays */
    make_file_in(out, ".head0.png.tmpLive01");
    int fd = open(out, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    run_attnviz(&r, NULL, "-q", "-o", out, "a b", NULL);
    close(fd);
    if (r.code != 1 || !strstr(r.err, "another attnviz is writing that folder now")) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    assert_true(holds(out, ".head0.png.tmpLive01"));
}

/* The thread count follows the CPUs the process may run on (its affinity mask, as nproc counts them), not
 * every online CPU: `taskset -c 0 attnviz --kernel blas ...` said "2 threads" (a pass's report). The child
 * inherits this test's mask, cut to one CPU; skipped where only one CPU is usable (nothing to tell apart). */
static void test_threads_follow_the_affinity_mask(void **state) {
    (void)state;
    cpu_set_t all, one;
    CPU_ZERO(&all);
    if (sched_getaffinity(0, sizeof all, &all) != 0 || CPU_COUNT(&all) < 2) skip();
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all)) {
            CPU_SET(c, &one);
            break;
        }
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    tu_result r;
    run_attnviz(&r, NULL, "--kernel", "blas", "--no-plot", "I love you", NULL);
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "(OpenBLAS ") || !strstr(r.out, " kernels), 1 thread;"))
        fail_msg("one usable CPU, but the kernel line says otherwise: %s", r.out);
    tu_free(&r);
}

/* A message longer than av_err's 2 KB keeps its end, where it says what is wrong: with a 3,800-byte folder
 * of 好 (15 parts of 84, 252 bytes each, under NAME_MAX and PATH_MAX), `--model DIR/m` said "--model 好好…"
 * and 2 KB of the folder, no "no such folder", and `-f DIR/x.txt` ended "好好\xE5\xA5" (-f's "%.2000s"
 * cut a character in half, shown as U+FFFD), no "No such file or directory" (a tester's pass). Each message
 * now holds its start, " … " and its end, whole UTF-8 (checked here byte by byte, RFC 3629), at most 2047
 * bytes after "attnviz: error: ", the name's last part after the " … "; the RLOs (U+202E) that start each
 * part of the folder and are kept in the message's start are closed by a PDF (U+202C) before the " … ", as
 * UAX #9 needs (the name's own closers are at its end, past the cut-out middle). */
static void test_long_message_keeps_its_end(void **state) {
    tu_fixture *f = *state;
    char dir[4096], part[256] = "\u202e", path[4200];
    for (int i = 1; i < 84; i++) strcat(part, "\u597d"); /* RLO (3 bytes) and 83 好: 252 bytes */
    snprintf(dir, sizeof dir, "%s", f->dir);
    for (int i = 0; i < 15; i++) {
        strcat(dir, "/");
        strcat(dir, part);
    }
    assert_true(strlen(dir) > 3780 && strlen(dir) < 4000);
    static const char *const opts[] = {"--model", "-f"};
    static const char *const names[] = {"m", "x.txt"};
    static const char *const ends[] = {": no such folder; ", "': No such file or directory\n"};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        tu_result r;
        if (k == 0) run_attnviz(&r, NULL, "--model", path, "--no-plot", "-q", "a b", NULL);
        else run_attnviz(&r, NULL, "-f", path, "--no-plot", "-q", NULL);
        size_t n = strlen(r.err);
        const char *tail = strstr(r.err, ends[k]);
        if (r.code != 2 || strncmp(r.err, "attnviz: error: ", 16) != 0 || n > 16 + 2047 + 1 || !tail ||
            (k == 1 && strcmp(tail, ends[k]) != 0))
            fail_msg("%s: exit %d, stderr (%zu bytes):\n%s", opts[k], r.code, n, r.err);
        const unsigned char *u = (const unsigned char *)r.err;
        for (size_t i = 0; i < n;) { /* whole UTF-8 sequences, no U+FFFD */
            size_t len = u[i] < 0x80 ? 1 : (u[i] & 0xE0) == 0xC0 ? 2 : (u[i] & 0xF0) == 0xE0 ? 3 : 4;
            for (size_t j = 1; j < len; j++)
                if (i + j >= n || (u[i + j] & 0xC0) != 0x80) fail_msg("%s: half a character at byte %zu", opts[k], i);
            if (len == 3 && !memcmp(u + i, "\xEF\xBF\xBD", 3)) fail_msg("%s: U+FFFD at byte %zu", opts[k], i);
            i += len;
        }
        const char *gap = strstr(r.err, " \u2026 ");
        char last[16]; /* the name's last part, then the closers of its 15 RLOs */
        snprintf(last, sizeof last, "/%s\u202c", names[k]);
        const char *name_end = gap ? strstr(gap, last) : NULL;
        if (!gap || strncmp(gap - 3, "\u202c", 3) != 0 || !name_end || name_end > tail)
            fail_msg("%s: no PDF, \" \u2026 \" and the name's end before the words:\n%s", opts[k], r.err);
        tu_free(&r);
    }
}

/* s in single quotes, each ' written '\'' (POSIX XCU 2.2.3), as attnviz writes a name it must quote: one with an
 * invisible character such as U+202E is quoted whatever the rest, where tu_sh_word quotes only for the rest
 * (TMPDIR="/tmp/it's" gave '/tmp/it'\''s/...'). In one of 4 rotating buffers. */
static const char *quoted_always(const char *s) {
    static char buf[4][8400];
    static int slot;
    char *p = buf[slot++ % 4], *w = p;
    *w++ = '\'';
    for (; *s && w + 6 < p + sizeof buf[0]; s++)
        if (*s == '\'') memcpy(w, "'\\''", 4), w += 4;
        else *w++ = *s;
    *w++ = '\'';
    *w = 0;
    return p;
}

/* The notes on what a run removed or found in its folders show the folder as every other line does
 * (av_utf8_shown_name): with -o and --dump named x<RLO>ab, 'removed 1 temporary file an attnviz left in
 * x<RLO>ab when it was killed while writing: .head0.png.tmpAb12Cd' left the override open, so the rest of
 * the line read backwards on the terminal; the --dump note and the earlier run's note did the same. Each
 * now closes it (U+202C) right after the name, inside the quotes that make the name one shell word
 * (av_shown_word). */
static void test_folder_notes_close_a_bidi_override(void **state) {
    tu_fixture *f = *state;
    char dir[4200], want[4300];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "x\xE2\x80\xAE" "ab"));
    assert_int_equal(mkdir(dir, 0755), 0);
    make_file_in(dir, ".head0.png.tmpAb12Cd");
    make_file_in(dir, ".tokens.txt.tmpAb12Cd");
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--format", "svg", "--dump", dir, "-o", dir, "a b", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    char closed[4300];
    snprintf(closed, sizeof closed, "%s\xE2\x80\xAC", dir);
    snprintf(want, sizeof want, "left in %s when it was killed", quoted_always(closed)); /* quoted: the RLO is invisible */
    if (!strstr(r.err, want)) fail_msg("no '%s' in '%s'", want, r.err);
    snprintf(want, sizeof want, "--dump %s holds 1 temporary file", quoted_always(closed));
    if (!strstr(r.err, want)) fail_msg("no '%s' in '%s'", want, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "-o", dir, "c d", NULL); /* another run: head0.svg is the earlier run's */
    snprintf(want, sizeof want, "of an earlier run from %s, so the folder holds one run", quoted_always(closed));
    if (r.code != 0 || !strstr(r.err, want)) fail_msg("exit %d, no '%s' in '%s'", r.code, want, r.err);
    tu_free(&r);
}

/* The -o and --dump folders are shown in errors and notes as the trace and the "wrote" list show them
 * (base/utf8.h av_utf8_shown_name): `-o $'m\u202eq'` printed "removed 1 file of an earlier run from m<RLO>q, so
 * the folder holds one run: ..." and "-o: cannot create folder 'm<RLO>q/f/x': 'm<RLO>q/f' exists and is not a
 * folder" with nothing closing the override, so the rest of the line read backwards, and a newline in the
 * name broke the error in two lines. */
static void test_output_folder_names_shown_as_in_the_trace(void **state) {
    tu_fixture *f = *state;
    char dir[4200], in[4300];
    snprintf(dir, sizeof dir, "%s/m\u202Eq", f->dir);
    /* attnviz makes no such folder (test_output_names_that_cannot_be_seen_are_refused): it is the user's */
    assert_int_equal(mkdir(dir, 0755), 0);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--heads", "2", "-o", dir, "hello there", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "-o", dir, "hello there", NULL);
    assert_int_equal(r.code, 0);
    tu_expect_unturned("a run's removed files", r.err, ", so the folder holds one run: ");
    tu_free(&r);
    snprintf(in, sizeof in, "%s/f", dir);
    FILE *fp = fopen(in, "w");
    assert_non_null(fp);
    fclose(fp);
    snprintf(in, sizeof in, "%s/f/x", dir);
    run_attnviz(&r, NULL, "-q", "-o", in, "hello there", NULL);
    assert_int_equal(r.code, 1);
    tu_expect_unturned("-o under a file", r.err, "' exists and is not a folder");
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--dump", in, "hello there", NULL);
    assert_int_equal(r.code, 1);
    tu_expect_unturned("--dump under a file", r.err, "' exists and is not a folder");
    tu_free(&r);
    snprintf(dir, sizeof dir, "%s/a\nb", f->dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(in, sizeof in, "%s/f", dir);
    fp = fopen(in, "w");
    assert_non_null(fp);
    fclose(fp);
    snprintf(in, sizeof in, "%s/f/x", dir);
    run_attnviz(&r, NULL, "-q", "-o", in, "hello there", NULL);
    const char *nl = strchr(r.err, '\n');
    if (r.code != 1 || !strstr(r.err, "a<U+000A>b/f/x': '") || !nl || nl[1])
        fail_msg("a newline in -o: exit %d, not one line naming a<U+000A>b: %s", r.code, r.err);
    tu_free(&r);
}


/* Input paths are shown in errors as output folders are (av_utf8_shown_name): an RLO in a name given to -f,
 * --attn-mask, -w or -m was left open ("cannot read '/x<RLO>q': ...", "--model /x<RLO>q: no such folder"), so
 * the rest of the line read backwards on the terminal. Each message now closes it (U+202C) right after the
 * name; a newline in it is <U+000A>, the message one line. */
static void test_input_paths_shown_as_in_the_trace(void **state) {
    tu_fixture *f = *state;
    char rlo[4200], nl[4200], npy[4300], want[4400];
    snprintf(rlo, sizeof rlo, "%s", tu_in(f, "x\xE2\x80\xAE" "q"));
    snprintf(nl, sizeof nl, "%s", tu_in(f, "a\nb"));
    snprintf(npy, sizeof npy, "%s.npy", rlo);
    const struct { const char *opt, *arg, *want; } cases[] = {
        {"-f", rlo, "cannot read %s: No such file"}, /* each quoted: the RLO is invisible */
        {"--attn-mask", npy, "cannot read %s: No such file"},
        {"-w", rlo, "--weights %s: No such file"},
        {"-m", rlo, "--model %s: no such folder"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_result r;
        if (!strcmp(cases[k].opt, "-f")) run_attnviz(&r, NULL, "-f", cases[k].arg, NULL);
        else run_attnviz(&r, NULL, cases[k].opt, cases[k].arg, "a b", NULL);
        char closed[8800]; /* the path as one shell word (av_shown_word), the RLO closed inside */
        snprintf(closed, sizeof closed, "%s\xE2\x80\xAC", strcmp(cases[k].opt, "--attn-mask") ? rlo : npy);
        snprintf(want, sizeof want, cases[k].want, quoted_always(closed));
        if (r.code != 2 || !strstr(r.err, want)) fail_msg("%s: exit %d, no '%s' in '%s'", cases[k].opt, r.code, want, r.err);
        tu_free(&r);
    }
    /* a W_Q.npy that is not a .npy file (here an empty one, said so since 91a7fce), in such a folder: the reader
     * names it the same way */
    assert_int_equal(mkdir(rlo, 0755), 0);
    make_file_in(rlo, "W_Q.npy");
    tu_result r;
    run_attnviz(&r, NULL, "-d", "8", "-w", rlo, "a b", NULL);
    char wq[4300]; /* one shell word, the RLO closed inside */
    snprintf(wq, sizeof wq, "%s/W_Q.npy\xE2\x80\xAC", rlo);
    snprintf(want, sizeof want, "%s: empty (0 bytes)", quoted_always(wq));
    if (r.code != 2 || !strstr(r.err, want)) fail_msg("W_Q.npy: exit %d, no '%s' in '%s'", r.code, want, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-f", nl, NULL);
    const char *end = strchr(r.err, '\n');
    if (r.code != 2 || !strstr(r.err, "a<U+000A>b': No such file") || !end || end[1])
        fail_msg("-f a<LF>b: exit %d, not one line naming a<U+000A>b: %s", r.code, r.err);
    tu_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_joining),
        cmocka_unit_test(test_bad_numbers_name_the_value),
        cmocka_unit_test(test_unknown_and_missing),
        cmocka_unit_test(test_no_sentence_names_the_unread_stdin),
        cmocka_unit_test_setup_teardown(test_word_with_space_after_dash_is_text, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_prefix_that_hides_the_files_is_refused, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_values_in_messages_paste_back_as_one_word, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_tilde_advice_whole_and_fit_for_the_option, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_long_value_shown_as_its_longest_start, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_long_link_target_whole_or_marked, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_link_to_nothing_named_as_one, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cut_value_in_warning_says_so, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_folder_starting_with_dash_is_refused_when_separate, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_cut_folder_name_says_so_and_only_then, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_output_names_that_cannot_be_seen_are_refused, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test(test_whole_number_with_a_point_says_what_to_type),
        cmocka_unit_test(test_bad_choice_offers_what_is_accepted),
        cmocka_unit_test(test_control_characters_in_title_and_prefix),
        cmocka_unit_test(test_help_and_version_exit_0),
        cmocka_unit_test(test_help_and_version_before_a_bad_option),
        cmocka_unit_test(test_choice_value_called_the_text_only_without_text),
        cmocka_unit_test(test_train_text_refusal_quotes_whole_words),
        cmocka_unit_test(test_text_hint_names_the_clustered_option),
        cmocka_unit_test_setup_teardown(test_wrapped_message_and_weights_folder_whole, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test(test_help_fits_80_columns),
        cmocka_unit_test(test_help_names_a_conventions_file_that_exists),
        cmocka_unit_test(test_help_names_a_man_page_that_exists),
        cmocka_unit_test(test_man_page_under_lang_c_drops_no_character),
        cmocka_unit_test(test_help_of_a_copied_binary_fits_80_columns),
        cmocka_unit_test(test_help_precision_names_explain),
        cmocka_unit_test(test_explain_refused_before_the_maps),
        cmocka_unit_test(test_weights_out_of_memory_says_a_way_that_runs),
        cmocka_unit_test(test_help_quiet_names_generate),
        cmocka_unit_test(test_help_and_man_state_the_enforced_ranges),
        cmocka_unit_test_setup_teardown(test_help_and_readme_name_the_dpi_pixel_limit, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test(test_readme_states_the_compare_limits),
        cmocka_unit_test(test_help_warmup_names_noams_range),
        cmocka_unit_test(test_help_train_names_the_default_folder),
        cmocka_unit_test(test_help_head_names_html),
        cmocka_unit_test(test_help_figures_default_says_grid_needs_two_heads),
        cmocka_unit_test(test_usage_errors_exit_2_on_stderr),
        cmocka_unit_test(test_text_taken_as_an_options_value_is_named),
        cmocka_unit_test(test_no_sentence_suggestion_keeps_the_typed_options),
        cmocka_unit_test(test_trace_shows_every_stage),
        cmocka_unit_test(test_same_word_same_row_without_positions),
        cmocka_unit_test(test_equivalent_spellings_are_one_token),
        cmocka_unit_test(test_keycap_emoji_is_one_token_of_two_columns),
        cmocka_unit_test(test_explain_value_in_a_message_is_closed_for_bidi),
        cmocka_unit_test(test_typed_curly_quotes_are_noted),
        cmocka_unit_test(test_embed_step_names_a_loaded_x),
        cmocka_unit_test(test_positions_none_names_a_mask_that_tells_order),
        cmocka_unit_test(test_project_variance_of_loaded_files),
        cmocka_unit_test(test_weights_float64_below_float32_says_they_read_as_0),
        cmocka_unit_test(test_same_command_same_numbers),
        cmocka_unit_test(test_sentence_from_file_and_stdin),
        cmocka_unit_test(test_kernel_option),
        cmocka_unit_test(test_pe_figure_needs_no_weights),
        cmocka_unit_test(test_vmax_and_pool_options),
        cmocka_unit_test(test_quiet_silences_only_the_trace),
        cmocka_unit_test(test_options_without_effect_warn),
        cmocka_unit_test(test_refused_run_does_not_warn),
        cmocka_unit_test(test_compare_keeps_the_sentences_own_settings),
        cmocka_unit_test(test_train_warns_for_model_only_options),
        cmocka_unit_test(test_train_warns_its_figures_are_fixed),
        cmocka_unit_test(test_train_warns_every_option_it_does_not_use),
        cmocka_unit_test(test_train_hints_paste_as_typed),
        cmocka_unit_test_setup_teardown(test_train_warnings_paste_only_what_model_runs, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test(test_train_model_suggests_a_folder_that_is_not_the_model),
        cmocka_unit_test(test_one_head_and_one_token_in_the_singular),
        cmocka_unit_test(test_compare_scale_says_when_d_k_is_one),
        cmocka_unit_test(test_head_out_of_range_suggests_heads),
        cmocka_unit_test(test_redirected_trace_ignores_stderrs_terminal),
        cmocka_unit_test(test_trace_fits_an_80_column_terminal),
        cmocka_unit_test(test_trace_keeps_shapes_whole_at_a_narrow_terminal),
        cmocka_unit_test(test_trace_keeps_a_chain_of_shapes_whole),
        cmocka_unit_test(test_explain_table_narrows_to_the_terminal),
        cmocka_unit_test(test_explain_keeps_formulas_whole_at_a_narrow_terminal),
        cmocka_unit_test(test_explain_vector_under_a_deep_indent_fits_a_narrow_terminal),
        cmocka_unit_test(test_lines_do_not_end_with_an_operator_at_a_narrow_terminal),
        cmocka_unit_test(test_quiet_weights_line_fits_a_narrow_terminal),
        cmocka_unit_test(test_titles_go_on_under_an_indent_at_a_narrow_terminal),
        cmocka_unit_test(test_an_arrow_goes_on_with_its_operand),
        cmocka_unit_test(test_a_shapes_last_word_goes_on_with_it),
        cmocka_unit_test(test_a_noun_keeps_its_number),
        cmocka_unit_test(test_show_title_keeps_its_remark_whole),
        cmocka_unit_test(test_a_last_word_does_not_go_on_alone),
        cmocka_unit_test(test_a_word_does_not_stand_alone_before_an_equals),
        cmocka_unit_test(test_a_written_line_goes_on_with_its_sentence),
        cmocka_unit_test(test_compare_table_keeps_its_rows_at_a_narrow_terminal),
        cmocka_unit_test(test_trace_breaks_after_a_word_too_wide),
        cmocka_unit_test(test_trace_keeps_a_formula_name_with_its_equals_sign),
        cmocka_unit_test(test_dumb_terminal_gets_no_colour),
        cmocka_unit_test(test_sentence_from_a_terminal_is_asked_for),
        cmocka_unit_test(test_flash_example_says_its_tiles_are_smaller),
        cmocka_unit_test(test_flash_example_prints_huge_and_tiny_maxima_whole),
        cmocka_unit_test(test_flash_example_columns_hold_any_maximum),
        cmocka_unit_test(test_scores_figure_cells_resolve_tiny_scores),
        cmocka_unit_test(test_verbose_flash_says_it_has_no_scores_to_print),
        cmocka_unit_test(test_compare_uniform_entropy_follows_the_mask),
        cmocka_unit_test(test_compare_leaves_out_rows_with_every_key_masked),
        cmocka_unit_test(test_figures_list_takes_a_full_width_comma),
        cmocka_unit_test(test_option_typed_with_lookalike_dashes),
        cmocka_unit_test(test_full_width_number_names_the_half_width_form),
        cmocka_unit_test(test_non_ascii_short_option_is_named_whole),
        cmocka_unit_test(test_ctrl_c_tests_hold_in_a_background_job),
        cmocka_unit_test_setup_teardown(test_ctrl_c_while_figures_are_written_says_so, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_ctrl_c_while_the_dump_lands_names_no_figures, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_broken_pipe_during_the_trace_says_no_file_was_written, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_weights_dumped_for_other_tokens_are_noted, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_weights_dumped_for_other_tokens_are_titled, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_dump_of_other_tokens_run_says_so_truly, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_dump_tokens_named_whole_or_marked, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_weights_files_not_read_are_noted, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_unusable_folders_refused_before_the_maps, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_missing_text_file_names_f, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_stdin_that_is_a_folder_is_exit_2, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_paths_in_messages_are_one_shell_word, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_control_characters_in_paths_are_shown, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_environment_not_changed_while_fonts_load, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_openblas_loads_only_for_sgemm, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test(test_run_that_writes_nothing_leaves_no_folder),
        cmocka_unit_test(test_unspaced_script_sentence_notes_one_token),
        cmocka_unit_test(test_lone_dash_reads_standard_input),
        cmocka_unit_test_setup_teardown(test_pooled_scores_keep_their_sign, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_pooled_mask_figure_says_when_hatched, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_pe_figure_draws_every_dimension_of_an_odd_d_model, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_figures_list_ignores_spaces_around_names, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test(test_option_after_dashes_is_noted),
        cmocka_unit_test(test_option_inside_quotes_is_noted),
        cmocka_unit_test_setup_teardown(test_big_endian_mask_is_told_bool_only, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_fortran_order_npy_is_read_as_numpy_reads_it, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_missing_mask_file_gets_no_mask_advice, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test(test_verbose_scores_name_masked_entries_only_with_a_mask),
        cmocka_unit_test(test_verbose_prints_k_and_v_of_each_head),
        cmocka_unit_test(test_verbose_weights_row_never_prints_as_all_zeros),
        cmocka_unit_test(test_explain_table_never_prints_a_nonzero_weight_as_zero),
        cmocka_unit_test_setup_teardown(test_attn_mask_that_means_keep_is_noted, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_missing_openblas_is_an_error_not_a_crash, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_fonts_out_of_memory_is_an_error_not_a_crash, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_fonts_on_a_file_system_without_mmap, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_train_figures_use_the_bundled_fonts, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_missing_bundled_fonts_are_named, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test(test_threads_follow_the_affinity_mask),
        cmocka_unit_test_setup_teardown(test_input_paths_shown_as_in_the_trace, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_output_folder_names_shown_as_in_the_trace, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_run_removes_the_temporaries_a_killed_run_left, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_folder_notes_close_a_bidi_override, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_long_message_keeps_its_end, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test(test_show_prints_the_head_given),
        cmocka_unit_test(test_quiet_output_starts_with_its_title),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
