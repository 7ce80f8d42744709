/* main.c - the attnviz command, read as its data path:
 *
 *   argv → options (cli.h) → sentence → tokens (+ <pad>) → X, W (seeded or --weights)
 *        → Q, K, V → scores S → weights A → output Y        (nn/model.h)
 *   or, with --model DIR: sentence → GPT-2 token ids → every layer and head
 *        (nn/gpt2.h), layer L handed on as the single layer  (gpt2run.h)
 *        → sinks: the trace, --explain, --show, --generate on stdout (trace.h),
 *          --compare (compare.h), --dump (tensorio.h), the figures (figures.h),
 *          the page (page.h; a model's figures and page: gpt2run.h), the list
 *          of written files.
 *   or, with --train TASK: its own data path (train.h).
 *
 * The only file that exits: 0 success, 1 runtime failure, 2 usage error. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/assets.h"
#include "app/cli.h"
#include "app/compare.h"
#include "app/figures.h"
#include "app/gpt2run.h"
#include "app/page.h"
#include "app/teach.h"
#include "app/tensorio.h"
#include "app/term.h"
#include "app/trace.h"
#include "app/train.h"
#include "base/utf8.h"
#include "io/fileio.h"
#include "render/plot.h"
#include "render/textlayout.h"
#include "nn/attention_blas.h"
#include "nn/model.h"
#include "text/tokenize.h"

/* Everything one run holds; zeroed, so every part can be freed at any point. */
typedef struct {
    av_options o;
    av_tokens toks;
    av_model m;              /* the single layer, or layer L of a --model */
    av_gpt2run gr;           /* the --model run (zeroed without --model) */
    av_comparison cmp;
    av_written written;
    av_weights_source source; /* where X and W came from: trace header, figure titles and metadata */
    char *cmd;       /* the command line, shell-quoted, for the figures' metadata */
    char *text;      /* the sentence as read (owned), for the figures' titles */
    int n_real;      /* tokens of the sentence, before any <pad> */
    int color;
} run;

/* Close standard output (an error there fails a run that had none) and
 * end the process with the exit code. Every file the run wrote is closed
 * and main has freed its memory by now; what exit() would still do is run
 * the text layer's av_text_shutdown and the libraries' destructors (FreeType,
 * HarfBuzz, OpenBLAS's threads), which only free memory the kernel takes
 * back at once: _exit skips them (about 1 ms of the 31 ms classroom
 * command). It first waits for the font loader thread: after an early error
 * it may still be laying out its warm-up text, and exit() would run
 * HarfBuzz's own exit handler, which frees the language strings that thread
 * reads, before the one that joins it (AddressSanitizer: heap-use-after-free).
 * ASan builds leave by return, so that LeakSanitizer checks every block. And when
 * fontconfig was loaded (labels beyond the bundled faces, --model), the
 * process exits normally: fontconfig's own teardown (FcFini) is what frees
 * its font lists, part of which valgrind cannot reach from attnviz's
 * pointers. Under valgrind the rest counts as still reachable, which make
 * memcheck allows. */
static int finish(int code) {
    int unwritten = ferror(stdout), e = av_stdout_errno(); /* a write av_message's flush found failing (term.h) */
    if (fclose(stdout) != 0) unwritten = 1, e = errno;
    if (unwritten && code == 0) {
        av_message(stderr, "attnviz: error: cannot write to standard output: %s\n", strerror(e ? e : EIO)); /* the help, version or trace */
        code = 1;
    }
    int fontconfig = av_text_fontconfig_loaded(); /* joins the font loader first (see above) */
    if (!AV_ASAN && !fontconfig) _exit(code);
    return code;
}

/* The sentence (valid UTF-8) in Unicode NFC, in place: canonically
 * equivalent spellings (é as U+00E9 or as e + U+0301, 한 as one syllable or
 * as three jamo, as macOS file names and some keyboards give them) look the
 * same in every label, so they are one token with one embedding row, and the
 * title, trace and tokens.txt show one spelling. A NUL byte is left for the
 * tokenizer's error, at its offset as typed. */
static av_status nfc_sentence(char **text, size_t *len, av_err *err) {
    if (memchr(*text, 0, *len)) return AV_OK;
    size_t n;
    char *nfc = av_utf8_nfc(*text, *len, &n);
    if (!nfc) return av_fail(err, AV_ERUNTIME, "out of memory");
    free(*text);
    *text = nfc;
    *len = n;
    return AV_OK;
}

/* sentence (arguments or -f) → NFC → tokens, then <pad> up to --pad-to. */
static av_status read_tokens(run *r, av_err *err) {
    const av_options *o = &r->o;
    size_t len;
    av_status st = av_read_sentence(o, &r->text, &len, err);
    if (!st) st = nfc_sentence(&r->text, &len, err);
    if (!st) st = av_tokenize(&r->toks, r->text, len, AV_MAX_TOKENS, err);
    r->n_real = r->toks.n;
    for (int i = 0; !st && !o->quiet && i < r->toks.n; i++) { /* "ฉันรักคุณ" was one token, a 1×1 map, silently */
        int n = 0;
        const char *script = av_utf8_unspaced_script(r->toks.tok[i], strlen(r->toks.tok[i]), &n);
        if (script && (n >= 13 || (r->toks.n == 1 && n >= 4))) {
            av_message(stderr, "attnviz: note: token %d \"%s\" holds %d %s characters: %s is written without spaces "
                       "between words, and attnviz splits words at spaces, so a phrase may be one token; type a space "
                       "between words to see one token per word\n", i, r->toks.tok[i], n, script, script);
            break;
        }
    }
    if (st || !o->pad_to) return st;
    char typed[80]; /* as typed: "--pad-to 02" was told "--pad-to 2 is smaller" */
    if (o->pad_to < r->toks.n)
        return av_fail(err, AV_EUSAGE, "--pad-to %s is smaller than the sentence's %d tokens; use at least %d",
                       av_option_shown(typed, sizeof typed, o, "pad-to", o->pad_to), r->toks.n, r->toks.n);
    while (r->toks.n < o->pad_to && !st) st = av_tokens_push(&r->toks, "<pad>", err);
    return st;
}

/* tokens → X, W (seeded, then --weights) and masks → the forward pass. */
static av_status run_model(run *r, av_config *cfg, av_err *err) {
    const av_options *o = &r->o;
    cfg->T = r->toks.n;
    av_status kst = av_options_kernel(cfg, o, err);
    if (kst) return kst;
    /* OpenBLAS's errors offered --kernel reference where it keeps (H, T, T) weights past the limit: `ulimit -v
     * 400000; attnviz --no-plot --heads 8 -f` 6000 words said "raise the limit, or use --kernel reference", and
     * that said "drop --kernel reference to run the flash kernel" (a long-input learner's pass) */
    int t_ref = av_most_tokens_held(cfg->H, 2, (double)AV_MAX_WEIGHT_BYTES);
    if (cfg->kernel == AV_KERNEL_FLASH && cfg->T > t_ref) {
        char why[160];
        snprintf(why, sizeof why, "%d tokens with %d head%s are too many for it: at most %d", cfg->T, cfg->H,
                 cfg->H == 1 ? "" : "s", t_ref);
        av_blas_set_no_reference(why);
    }
    if (o->compare == AV_CMP_ORDER && cfg->n_real < 2)
        return av_fail(err, AV_EUSAGE, "--compare order swaps the first and last words, so it needs at least 2 tokens; got 1");
    /* an --explain cell that names no token or index of the input is refused before the (H, T, T) maps are
     * computed: `--explain zzz,When --heads 8 -f` a 5000-token text took 1.7 GiB and 6 s (25 s on --kernel
     * reference) before its usage error (a long-input learner's pass). Quietly here (the notes of a spec that
     * resolves are printed with the walk-through, av_trace_sinks); a spec that does not gets its error now */
    int qi, kj;
    if (o->explain && av_explain_locate(o->explain, &r->toks, &qi, &kj))
        return av_explain_parse(o->explain, &r->toks, &qi, &kj, err);
    /* a page that cannot hold one head is refused before the (H, T, T) maps are allocated and computed:
     * `--heads 8 --html -f` a 5715-token text took 2.1 GiB and 11 s before this error (a learner's pass) */
    av_status st = o->html ? av_page_check_size(cfg->T, cfg->n_real, av_page_runs(o, cfg->C, cfg->H), o, 0, err)
                           : AV_OK; /* --attn-mask's file is not read yet: main's check after the run counts it */
    /* -o and --dump before the forward pass, so a folder that cannot be made or written fails before the work:
     * `-o out.txt` (a file) or `--dump out.txt/d` said "-o: cannot create folder 'out.txt': 'out.txt' exists and
     * is not a folder" only after the (H, T, T) maps (5000 tokens at 8 heads: 6 s and 1.7 GiB; a long-input
     * learner's pass). A folder made then that the run leaves empty is removed at its end
     * (av_remove_empty_made_folders). */
    if (!st) st = av_output_folders_writable(o, err);
    if (!st) st = av_model_init(&r->m, cfg, err);
    if (st) return st;
    av_model_seed(&r->m, (const char *const *)r->toks.tok);
    av_weights_random(&r->source, cfg->seed);
    if (o->weights_dir && (st = av_load_weights(&r->m, o->weights_dir, &r->source, err))) return st;
    if (o->weights_dir) av_weights_note_other_tokens(stderr, o->weights_dir, &r->source, &r->toks);
    if (o->weights_dir) av_weights_note_unread(stderr, o->weights_dir, &r->source);
    /* X and all four W came from --weights: nothing is drawn at random, so a --seed changed no number
     * (with --model it is refused for the same reason; here only the folder's contents tell). Kept as the other
     * "has no effect" warnings are (cli.h): printed here, it came before --attn-mask's usage error */
    if (r->source.kind == AV_WEIGHTS_LOADED && av_option_given(o, "seed"))
        av_warn_later("--seed %llu has no effect: --weights %s gave X.npy and all four W (nothing is drawn at random)",
                      (unsigned long long)o->seed, o->weights_dir);
    if (o->attn_mask && (st = av_load_attn_mask(&r->m, o->attn_mask, err))) return st;
    return av_weights_of_folder(o->weights_dir, av_model_forward(&r->m, err), err);
}

/* 1 when folders a and b each hold a model.safetensors of the same size and the same CRC-32 of every byte
 * (tensorio.h av_file_crc32, the test train.c's holds_dump_of_model makes of a dump's "model.safetensors crc32"
 * line, so this and --train's removal agree on which model a folder holds): the same weights, wherever they were
 * copied; 0 otherwise, or when either cannot be read (no message). The size is compared first, so a large model
 * beside a small trained one is not read. */
static int same_weights_file(const char *a, const char *b) {
    char pa[PATH_MAX + 32], pb[PATH_MAX + 32];
    struct stat sa, sb;
    av_path_join(pa, sizeof pa, a, "model.safetensors");
    av_path_join(pb, sizeof pb, b, "model.safetensors");
    if (stat(pa, &sa) || stat(pb, &sb) || !S_ISREG(sa.st_mode) || !S_ISREG(sb.st_mode) || sa.st_size != sb.st_size)
        return 0;
    int64_t ca = av_file_crc32(pa);
    return ca >= 0 && ca == av_file_crc32(pb);
}

/* A run whose -o (flag "-o", dir o->outdir) or --dump (flag "--dump", dir
 * o->dump_dir) is a folder --train wrote, of another model than the trained
 * one (a sentence, or --model OTHER): its figures go beside the training
 * figures, which stay (av_figures_remove_stale keeps --train's), so a note
 * says the folder now shows two models. --model of the trained folder
 * itself (the same folder, however named) is what the folder is for: no
 * note. A run of another reverse model wrote model.png into an induction
 * folder without a word (a new user's report). -q keeps it, as it keeps the
 * other notes (the files removed, an input outside the task): -q is no trace,
 * and a lecturer scripting slides with -q got the two models' figures in one
 * folder without a word (a tester's report); so does --no-plot --html, whose
 * page goes there too. --dump gets the same note for its files: `--model s1
 * --dump r2 "3 1 >"` put s1's attn.npy and logits.npy beside the model r2
 * without a word, read as r2's, and a --train replacing r2 keeps them (they
 * are not of the model it replaces; a learner's pass). A dump of the trained
 * model itself is removed with that model (train.c), so it gets no note, as
 * its figures get none, and nor do a dump or figures of a byte copy of
 * that folder (same_weights_file): `cp -r r2 c; attnviz --model c --dump r2
 * "3 1 >"` said the dump of c was "not that model's", and --train then
 * removed it as the replaced model's, rightly (a tester's pass). */
static void note_training_folder(const av_options *o, const char *flag, const char *dir) {
    char task[32], real_out[PATH_MAX], real_model[PATH_MAX];
    int step = 0, trained = 0, dump = !strcmp(flag, "--dump");
    av_err ignored;
    if (!dir || (!dump && o->no_plot && !o->html) || av_trained_task_read(dir, task, &step, &trained, NULL, &ignored) ||
        !trained)
        return;
    if (o->model_dir && realpath(dir, real_out) && realpath(o->model_dir, real_model) &&
        strcmp(real_out, real_model) == 0)
        return;
    if (o->model_dir && same_weights_file(dir, o->model_dir)) return;
    /* with --weights the model's weights are the folder's, not random: "of the sentence's random-weight model"
     * was false there (a reviewer's pass) */
    char what[PATH_MAX + 64], out[PATH_MAX], named[PATH_MAX]; /* folders as av_shown_word shows them: one shell word */
    if (o->model_dir) av_shown_word(what, sizeof what, o->model_dir);
    else if (o->weights_dir) {
        av_shown_word(named, sizeof named, o->weights_dir);
        snprintf(what, sizeof what, "the sentence's model with --weights %s", named);
    } else snprintf(what, sizeof what, "the sentence's random-weight model");
    av_shown_word(out, sizeof out, dir);
    if (dump)
        av_message(stderr, "attnviz: note: --dump %s holds the model an earlier --train trained (%s, step %d); this "
                   "run's dump, of %s, goes beside it, and its .npy files are not that model's; use another --dump "
                   "to keep them apart\n", out, task, step, what);
    else
        av_message(stderr, "attnviz: note: -o %s holds the model an earlier --train trained (%s, step %d) and its "
                   "training figures; this run's figures, of %s, go beside them; use another -o to keep them "
                   "apart\n", out, task, step, what);
}

/* From here until av_interrupt_message(NULL), a Ctrl-C says what the -o folder holds. It ended the
 * run without a word, the folder holding this run's new figures beside an earlier run's not yet replaced
 * (a new user's report); one set of renames, as --dump's, would take a second copy of every figure on
 * disk, so it says so instead. */
static void say_when_interrupted(const av_options *o) {
    char msg[AV_INTERRUPT_MSG_MAX], out[1049]; /* -o as av_shown_word shows it: 1000 bytes and closers */
    av_shown_word(out, sizeof out, o->outdir);
    /* a folder made for this run holds no earlier run's figures, and the handler removes it while it holds
     * none of this run's yet: "holds only some of this run's, beside any of an earlier run's" named a folder
     * that was gone (a learner's pass: `timeout -s INT 1 attnviz -f long.txt --heads 8 -o new`); --no-plot
     * --html writes the page alone, whole or not at all, and "only some of its figures" named figures the run
     * never makes */
    int made = av_folder_made_here(o->outdir);
    if (o->no_plot)
        snprintf(msg, sizeof msg, "attnviz: interrupted while the page was written: %s %s this run's page only if "
                 "it was complete%s; run the command again to write it\n", out, made ? "was made for this run and holds"
                 : "holds", made ? " (it is removed if it holds nothing)" : ", beside an earlier run's files not yet "
                 "removed");
    else if (made)
        snprintf(msg, sizeof msg, "attnviz: interrupted while the figures were written: %s was made for this run "
                 "and holds only some of its figures (it is removed if it holds none yet); run the command again "
                 "to write them all\n", out);
    else
        snprintf(msg, sizeof msg, "attnviz: interrupted while the figures were written: %s holds only some of "
                 "this run's, beside any of an earlier run's there that were not yet replaced or removed; run the "
                 "command again to write them all\n", out);
    av_interrupt_message(msg);
}

/* From here until av_interrupt_message(NULL): the trace, --show, --explain and --generate are printed before any
 * file is written, so a Ctrl-C there, or a reader that is gone (`attnviz -v ... | head -3`, a pager quit with
 * q: SIGPIPE, whose message says "standard output was closed (broken pipe)" for "interrupted"), ended the run
 * with exit 141 and not a word, no figure written and -o holding an earlier run's figures as if this run's (a
 * learner's pass). It now says so. */
static void say_before_any_file(const av_options *o) {
    char msg[AV_INTERRUPT_MSG_MAX], out[1049], dump[749]; /* as av_shown_word shows them: 1000 and 700 bytes
                                                            * and closers, so both fit the message */
    /* the folders this run would write: `--no-plot --dump d` named -o, which it does not write (a tester's pass) */
    int figures = !o->no_plot || o->html;
    av_shown_word(out, sizeof out, o->outdir);
    if (o->dump_dir) av_shown_word(dump, sizeof dump, o->dump_dir);
    if (figures && o->dump_dir)
        snprintf(msg, sizeof msg, "attnviz: interrupted before any file was written: this run wrote none, and -o %s "
                 "and --dump %s are as they were; run the command again, and let it finish, to write them\n", out,
                 dump);
    else
        snprintf(msg, sizeof msg, "attnviz: interrupted before any file was written: this run wrote none, and %s %s "
                 "is as it was; run the command again, and let it finish, to write them\n", figures ? "-o" : "--dump",
                 figures ? out : dump);
    av_interrupt_message(msg);
}

/* Lock the -o folder (it exists) for this run's figures and page: flock(LOCK_EX | LOCK_NB) on an fd of the
 * folder, held until the process ends (by a signal too), as --train locks its folder (train.c lock_folder).
 * Two runs into one -o at once (`xargs -P4`) both exited 0 and left one's head0.png and heads.png beside the
 * other's head5.png, each saying the folder "holds one run" (a researcher's pass); the second is now refused
 * before it writes there. Held until the folder holds this run (write_outputs lets go, unlock_outdir, before
 * the trace, which a pager may hold up) or the process ends. Advisory; a folder that cannot be opened or a
 * file system without flock runs unlocked, as before. Errors: AV_ERUNTIME when another process holds the
 * lock. */
static int outdir_lock_fd = -1;

static void unlock_outdir(void) {
    if (outdir_lock_fd >= 0) close(outdir_lock_fd);
    outdir_lock_fd = -1;
}

static av_status lock_outdir(const char *dir, av_err *err) {
    if (!av_lock_folder(dir, &outdir_lock_fd)) return AV_OK; /* locked, or a folder that cannot be */
    char path[4096], shown[349]; /* as av_utf8_shown_name shows it: 300 bytes and closers */
    av_path_shown(path, sizeof path, dir);
    av_shown_word(shown, sizeof shown, path);
    return av_fail(err, AV_ERUNTIME, "cannot write the figures into %s: another attnviz is writing that "
                   "folder now (it holds the folder's lock until it ends), and two runs into one folder at once "
                   "leave one's figures beside the other's: wait for it to end, or give each run its own -o",
                   shown);
}

/* sinks 2-5: --compare, --dump, the figures, the page. Every output folder is made (or
 * checked) before any file is written, so a bad -o leaves no dump from this
 * run next to figures from an older one. */
static av_status write_outputs(run *r, av_err *err) {
    const av_options *o = &r->o;
    av_figure_context fc = {r->cmd ? r->cmd : "attnviz", o->model_dir ? r->gr.text : r->text, &r->source, ""};
    if (!o->no_plot) av_text_use_cjk_language(av_figures_cjk_language(fc.sentence)); /* a --model's text is known now */
    if (o->model_dir) av_gpt2run_run_id(fc.run, &r->gr, &r->toks);
    else av_figures_run_id(&fc, &r->m, &r->toks);
    av_status st = AV_OK;
    if (!o->no_plot) av_assets_use_fonts(); /* the list main() set up: nothing changes */
    if (!o->no_plot || o->html) st = av_option_folder("-o", o->outdir, av_mkdir_p, err);
    if (!st && (!o->no_plot || o->html)) st = lock_outdir(o->outdir, err);
    if (!st && outdir_lock_fd >= 0) { /* held: a temporary there is a killed run's, never a live one's */
        size_t n_train;
        const char *const *train_files = av_train_file_names(&n_train);
        av_figures_remove_leftovers(o->outdir, o->prefix, train_files, n_train);
    }
    if (!st) note_training_folder(o, "-o", o->outdir);
    int figures = !st && (!o->no_plot || o->html);
    if (!st && o->dump_dir) st = av_option_folder("--dump", o->dump_dir, av_mkdir_p, err);
    if (!st && o->dump_dir) av_dump_note_leftovers(o->dump_dir); /* before its own temporaries are there */
    if (!st) note_training_folder(o, "--dump", o->dump_dir);
    if (!st && o->compare) {
        st = av_weights_of_folder(o->weights_dir, av_compare_run(&r->cmp, &r->m, (av_compare_kind)o->compare,
                                                                 o->html, err), err);
        av_err why = {{0}}; /* the refusal --positions rope gives, with its choices (av_rope_dk_check) */
        if (!st && r->cmp.left_out[0] && av_rope_dk_check(r->m.cfg.C, r->m.cfg.H, r->m.cfg.d_model_from, &why))
            av_message(stderr, "attnviz: note: --compare %s leaves out rope: %s\n", av_compare_name(o->compare),
                       why.msg);
        if (!st && av_trace_sinks_print(o)) putchar('\n'); /* a blank line after them; none first (-q) */
        /* under -q the table is all there is, and nothing said its weights were random and untrained (as
         * --show's and --explain's "weights:" line does, trace.c): said once, before the first part asked for,
         * at a terminal's width as the table is */
        if (!st && o->quiet && !o->explain && !o->show) {
            av_term_wrap w;
            fprintf(av_term_wrap_begin(&w, stdout), "weights: %s\n", r->source.text);
            av_term_wrap_end(&w);
        }
        if (!st) { /* asked for: printed even with -q; at a terminal's width (app/term.h) */
            av_term_wrap w;
            av_compare_print(av_term_wrap_begin(&w, stdout), &r->cmp, &r->toks, r->color);
            av_term_wrap_end(&w);
        }
        int flush_failed = !st && fflush(stdout) != 0, e = flush_failed ? errno : av_stdout_errno();
        if (!st && (flush_failed || ferror(stdout))) /* named, as the trace and --explain are (trace.c), and before
                                                       * the figures: `-q --compare scale >/dev/full` lost the table,
                                                       * wrote them and said only "cannot write to standard output" */
            st = av_fail(err, AV_ERUNTIME, "cannot write the --compare table to standard output: %s",
                         strerror(e ? e : EIO));
        if (!st && !o->no_plot) {
            say_when_interrupted(o);
            st = av_figures_compare(&r->cmp, &r->toks, o, &fc, &r->written, err);
        }
    }
    int dumped = r->written.n; /* the files before --dump's: its own are counted out below */
    if (!st && o->dump_dir)
        st = o->model_dir ? av_gpt2run_dump(&r->gr, &r->toks, o->dump_dir, &r->written, err)
                          : av_dump_all(&r->m, &r->toks, &r->source, o->dump_dir, &r->written, err);
    dumped = r->written.n - dumped;
    if (figures) say_when_interrupted(o); /* not during --dump's own files, which land all or none */
    if (!st && o->model_dir) {
        st = av_gpt2run_sinks(&r->gr, &r->m, o->compare ? &r->cmp : NULL, &r->toks, o, fc.cmdline, fc.run, &r->written,
                              err);
    } else {
        if (!o->html) /* the page prints the trace again: RoPE's shift check and -v read W_Q, W_K */
            av_model_release_weights(&r->m); /* nothing reads W_* from here on; the first canvas reuses their pages */
        if (!st && !o->no_plot) st = av_figures_write(&r->m, &r->toks, o, &fc, &r->written, err);
        av_page_info page = {.command = fc.cmdline, .note = r->source.text, .ws = &r->source,
                             .sentence = fc.sentence, .n_real = r->n_real, .run = fc.run};
        if (!st && o->html) av_figures_warn_vmax_page(&r->m, o); /* a page-only run: no figure said it */
        if (!st && o->html)
            st = av_page_write(o->compare ? &r->cmp : NULL, &r->m, &r->toks, o, &page, &r->written, err);
    }
    /* the -o folder holds this run only; a run that drew nothing there leaves it as it was: `--model M --figures
     * pe` of a model with learned positions (or --positions none --figures pe) wrote no figure and still removed
     * an earlier run's model.png and layer1.png, leaving the folder empty (a new user's pass) */
    if (!st && (!o->no_plot || o->html) && r->written.n > dumped)
        st = av_figures_remove_stale(o->outdir, o->prefix, fc.run, &r->written, err);
    if (st && figures && av_figures_holds_run(o->outdir, o->prefix, fc.run)) {
        /* a full disk or a file in the way (`cannot write 'out/head1.png': No space left on device`) stopped the
         * figures part-way: the folder kept this run's first ones beside the earlier run's rest, and the error
         * named only the file (a tester's pass); it says what the folder holds, as a Ctrl-C there does */
        char out[249]; /* -o as av_shown_word shows it: 200 bytes and closers */
        av_shown_word(out, sizeof out, o->outdir);
        av_fail_append(err, "; %s holds some of this run's figures, beside any "
                 "of an earlier run's not yet replaced: fix that and run the command again, or use another -o",
                 out);
    }
    if (figures) av_interrupt_message(NULL); /* the folder holds this run's figures only, or the error says why */
    unlock_outdir(); /* the folder holds this run, or the error says what it holds */
    if (!st) av_figures_note_lowered_dpi(stderr, o); /* past 6000 px a side */
    if (!st) av_figures_warn_cut_titles(stderr, o);  /* a --title longer than its 3 lines */
    if (!st && !o->quiet) av_written_print(stdout, &r->written);
    return st;
}

int main(int argc, char **argv) {
    static run r; /* zeroed: every part can be freed whatever failed */
    av_err err = {{0}};
    av_config cfg;
    /* a file size limit (ulimit -f) must fail a write, not kill the process
     * and leave a temporary file behind */
    signal(SIGXFSZ, SIG_IGN);
    av_stdout_keep_errno(); /* a full disk is named, not "Input/output error" (term.h) */
    av_blas_set_env_wait(av_text_prepare_wait); /* OpenBLAS, loaded when needed, may setenv: not while fonts load */
    av_blas_set_exit_cleanup(av_remove_unfinished); /* its exit under a memory limit leaves no empty -o folder */
    av_status st = av_parse_args(&r.o, argc, argv, &err);
    int run_it = !st && !r.o.help && !r.o.version;
    if (!st && r.o.help) av_print_help(stdout, av_assets_doc("conventions.md"), av_assets_man());
    if (!st && r.o.version) printf("attnviz %s\n", AV_VERSION);
    if (run_it) av_warn_unused_later(&r.o); /* --train's --dump and --causal too: printed once the run goes on */
    if (run_it) av_note_typed_quotes(stderr, &r.o);
    if (run_it && r.o.train >= 0) {
        r.cmd = av_command_line(argc, argv);
        /* its figures' labels in the bundled DejaVu Sans too: --train drew them with whatever fontconfig had, and
         * with no system font (a container) every title, tick and legend of its figures was a box, without a word */
        av_assets_use_fonts();
        av_plot_reset_missing();
        st = av_train_command(&r.o, r.cmd, &err); /* train.h: its own data path, into -o DIR */
        if (!st) av_figures_warn_missing_glyphs(&r.o); /* its figures' boxes were not reported */
        if (!st) av_figures_note_lowered_dpi(stderr, &r.o);
    } else if (run_it && fcntl(STDOUT_FILENO, F_GETFD) < 0) {
        /* a closed standard output (`>&-`): a -q run wrote every file, replacing the earlier run's, and failed
         * only at exit; the first file opened took its fd. Refused first, as --train does (train.c) */
        st = av_fail(&err, AV_ERUNTIME, "cannot write to standard output: %s; nothing was written", strerror(errno));
    } else if (run_it) {
        r.color = av_use_color(r.o.color);
        /* Latin labels in the bundled DejaVu Sans; the fonts load while the
         * model runs (render/textlayout.h), fontconfig only if the sentence needs it */
        int fonts = !r.o.no_plot && !av_assets_use_fonts();
        if (r.o.model_dir) {
            if (fonts) av_text_prepare(); /* the sentence is read after the weights: load everything */
            st = av_gpt2run_open(&r.gr, &r.m, &r.toks, &r.o, &err);
            if (!st) av_gpt2run_weights(&r.source, &r.gr);
        } else if (!(st = av_options_config(&cfg, &r.o, &err)) && !(st = read_tokens(&r, &err))) {
            if (fonts) av_text_use_cjk_language(av_figures_cjk_language(r.text)); /* before the fonts load */
            if (fonts) av_text_prepare_for(r.text); /* before the model: its threads start there */
            cfg.n_real = r.n_real;
            st = run_model(&r, &cfg, &err);
        }
        /* a page that cannot hold one head is refused before the trace and before any file is written; a
         * --model's page is its one run, or with --compare scale its layer L under both settings, both
         * counted (av_page_runs), else write_page refused it only after the figures were written
         * (run_model and gpt2run.c check it before the forward pass already; kept for any other path) */
        if (!st && r.o.html)
            st = av_page_check_size(r.o.model_dir ? r.gr.T : r.toks.n, r.o.model_dir ? r.gr.T : r.n_real,
                                    av_page_runs(&r.o, r.m.cfg.C, r.m.cfg.H), &r.o,
                                    !r.o.model_dir && r.m.masked_count > 0, &err);
        if (!st) av_warn_unused_now(stderr); /* its options are checked: the run goes on */
        if (!st && (!r.o.no_plot || r.o.html || r.o.dump_dir)) say_before_any_file(&r.o);
        if (!st) st = av_trace_sinks(stdout, &r.o, &r.gr, &r.m, &r.toks, &r.source, r.color, &err);
        av_interrupt_message(NULL); /* from here the figures' own message, or none while --dump's files land */
        if (!st) r.cmd = av_command_line(argc, argv);
        if (!st) st = write_outputs(&r, &err);
    }
    av_written_free(&r.written);
    av_compare_free(&r.cmp);
    free(r.cmd);
    free(r.text);
    av_model_free(&r.m);
    av_gpt2run_free(&r.gr);
    av_tokens_free(&r.toks);
    av_options_free(&r.o);
    /* a failed run (a --dump folder that cannot be made beside a new -o, a --train whose loss became NaN, a
     * --train refused before its first step) left the folders it had made empty; a run that wrote nothing
     * (--figures pe of a model without one) in one too: they go again, as if never asked for */
    av_remove_empty_made_folders();
    if (st != AV_EUSAGE) av_warn_unused_now(stderr); /* a run that failed later was not refused for them */
    if (st) av_message(stderr, "attnviz: error: %s\n", err.msg);
    return finish(st == AV_EUSAGE ? 2 : st ? 1 : 0);
}
