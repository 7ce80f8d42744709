/* train.c - the --train command (see train.h): the training loop with its
 * progress and snapshots, then the model folder and the figures. */
#include "app/train.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "app/cli.h"
#include "app/compare.h"
#include "app/figures.h"
#include "app/gpt2run.h"
#include "app/term.h"
#include "base/utf8.h"
#include "io/fileio.h"
#include "io/safetensors.h"
#include "nn/attention_blas.h"
#include "nn/train.h"
#include "render/trainfig.h"

#define MAX_SNAP 16
#define N_HELDOUT 512

/* ---------------------------------------------------------------------------- the log */

typedef struct {
    int L, H, T;                 /* layers, heads, probe tokens */
    int steps;
    double *loss, *lr, *gnorm;   /* (steps + 1): index = step (0 = before training) */
    int n_snap;
    int snap_step[MAX_SNAP];
    double ho_loss[MAX_SNAP], acc[MAX_SNAP];
    double *aot;                 /* (MAX_SNAP, L·H) attention on target */
    float *att;                  /* (MAX_SNAP, L·H, T, T) the probe's attention */
    int best;                    /* layer·H + head with the most attention on target at the end */
} train_log;

/* A run whose held-out loss at its last snapshot is more than 1 % above step
 * 0's, the random weights': it diverged, though no number left float32. Warned
 * of at the end of the run and written in config.json (write_config). Any rise
 * said it: one step of batch 1, or --lr 1e-9, that moved the loss by 1e-5 was
 * "rose from 5.7053 at step 0 to 5.7053 at step 1: training diverged; try a
 * smaller --lr (now 1e-09)" (a learner's pass); a 1 % rise also shows in the
 * figures' 3 digits (diverged_words). */
static int held_out_rose(const train_log *g) {
    int last = g->n_snap - 1;
    return last > 0 && g->ho_loss[last] > 1.01 * g->ho_loss[0];
}

/* What the run's own figures add when held_out_rose(g), into out (n bytes, 96 suffice): "its training
 * diverged (held-out loss 5.66 at step 0, 66.6 at step 200)", the words --model's figures of its folder
 * use; "" for a run whose held-out loss did not rise. No errors. */
static void diverged_words(char *out, size_t n, const train_log *g) {
    int last = g->n_snap - 1;
    if (held_out_rose(g))
        snprintf(out, n, "its training diverged (held-out loss %.3g at step 0, %.3g at step %d)", g->ho_loss[0],
                 g->ho_loss[last], g->snap_step[last]);
    else if (n) out[0] = 0;
}

static void log_free(train_log *g) {
    free(g->loss); free(g->lr); free(g->gnorm); free(g->aot); free(g->att);
    memset(g, 0, sizeof *g);
}

static av_status log_alloc(train_log *g, int L, int H, int T, int steps, av_err *err) {
    memset(g, 0, sizeof *g);
    g->L = L; g->H = H; g->T = T; g->steps = steps;
    g->loss = calloc((size_t)steps + 1, sizeof(double));
    g->lr = calloc((size_t)steps + 1, sizeof(double));
    g->gnorm = calloc((size_t)steps + 1, sizeof(double));
    g->aot = calloc((size_t)MAX_SNAP * L * H, sizeof(double));
    g->att = calloc((size_t)MAX_SNAP * L * H * T * T, sizeof(float));
    if (!g->loss || !g->lr || !g->gnorm || !g->aot || !g->att) {
        log_free(g);
        return av_fail(err, AV_ERUNTIME, "out of memory for the training log");
    }
    return AV_OK;
}

/* Snapshot steps: 0, then about 10 log-spaced steps up to the last. */
static int snapshot_steps(int *out, int steps) {
    int n = 0;
    out[n++] = 0;
    for (int k = 0; k < 10 && n < MAX_SNAP; k++) {
        int s = (int)lround(pow((double)steps, k / 9.0));
        if (s > out[n - 1]) out[n++] = s;
    }
    if (out[n - 1] != steps && n < MAX_SNAP) out[n++] = steps;
    return n;
}

/* ---------------------------------------------------------------------------- names */

static const char *positions_label(av_positions p) {
    return p == AV_POS_LEARNED ? "learned" : p == AV_POS_SINUSOIDAL ? "sinusoidal" : p == AV_POS_ROPE ? "rope" : "none";
}

/* The positions as the header and figure titles write them: "learned", "sinusoidal", "RoPE" (its
 * name everywhere else in attnviz's output; positions_label is config.json's value, "rope"). */
static const char *positions_text(av_positions p) { return p == AV_POS_ROPE ? "RoPE" : positions_label(p); }

/* run (32 bytes) = "train-" + 16 hex digits of FNV-1a 64 (figures.h) of
 * every option that decides the numbers: the figures' PNG tEXt Run and SVG
 * run line. "train-" tells a later run in the folder (figures.h
 * av_figures_remove_stale) that they belong to the trained model there. */
static void train_run_id(char run[32], const av_train_opts *o) {
    char cfg[400];
    int n = snprintf(cfg, sizeof cfg, "task=%d steps=%d batch=%d lr=%.17g layers=%d heads=%d d_model=%d warmup=%d "
                     "schedule=%d positions=%d rope=%d/%.17g norm=%d scale=%d seed=%llu compare=%d", (int)o->task,
                     o->steps, o->batch, o->lr, o->layers, o->heads, o->d_model, o->warmup, (int)o->schedule,
                     (int)o->positions, (int)o->rope_style, o->rope_base, (int)o->norm, o->scale,
                     (unsigned long long)o->seed, (int)o->compare);
    if (o->weight_decay != AV_TRAIN_WEIGHT_DECAY && n > 0 && (size_t)n < sizeof cfg) /* the default keeps older ids */
        n += snprintf(cfg + n, sizeof cfg - (size_t)n, " wd=%.17g", o->weight_decay);
    /* --kernel reference sums in another order, so its weights and losses differ in their last digits: another
     * run, which had the blas run's id (the same Run in two folders whose model.safetensors differ) */
    if (o->reference && n > 0 && (size_t)n < sizeof cfg)
        n += snprintf(cfg + n, sizeof cfg - (size_t)n, " kernel=reference");
    if (n < 0 || (size_t)n >= sizeof cfg) n = (int)strlen(cfg);
    snprintf(run, 32, "train-%016llx", (unsigned long long)av_run_hash(AV_RUN_HASH_START, cfg, (size_t)n));
}

/* "learned positions, Pre-LN, ÷√d_k" for o; with vary (the header line of
 * --compare), the compared setting lists every variant: "Pre-LN vs Post-LN". */
static void variant_label(char *out, size_t n, const av_train_opts *o, int vary) {
    av_train_compare c = vary ? o->compare : AV_TRAIN_CMP_NONE; /* the --compare header: that setting varies */
    /* RoPE with --rope-style half or another --rope-base says which: "RoPE (half, base 100)"; so does
     * --compare positions' rope variant: its header and figure said "learned vs sinusoidal vs RoPE" for a
     * --rope-base 100 --rope-style half run (a learner's pass) */
    char pos[48] = "RoPE", all[80];
    if (o->rope_style != AV_ROPE_INTERLEAVED || o->rope_base != 10000.0)
        snprintf(pos, sizeof pos, "RoPE (%s, base %g)", av_rope_style_name(o->rope_style), o->rope_base);
    snprintf(all, sizeof all, "learned vs sinusoidal vs %s", pos);
    snprintf(out, n, "%s positions, %s, %s",
             c != AV_TRAIN_CMP_POSITIONS ? (o->positions == AV_POS_ROPE ? pos : positions_text(o->positions))
             : (o->d_model / o->heads) % 2 ? "learned vs sinusoidal" /* rope left out: odd d_k */
                                           : all,
             c == AV_TRAIN_CMP_NORM ? "Pre-LN vs Post-LN" : o->norm == AV_NORM_POST ? "Post-LN" : "Pre-LN",
             c == AV_TRAIN_CMP_SCALE ? "÷√d_k vs no scale" : o->scale ? "÷√d_k" : "no scale");
}

/* The header's learning rate: "lr 0.006 (cosine, warm-up 200)", "lr 0.006
 * (constant)" (constant has no warm-up: nn/optim.h av_lr_at); for noam the
 * rule with its numbers and the peak it reaches at step = warm-up, "lr = 1 ·
 * 64^-0.5 · min(step^-0.5, step · 200^-1.5) (noam; peak 0.00884 at step 200)",
 * since the factor alone says nothing about the lr the model trains with. */
static void lr_label(char *out, size_t n, const av_train_opts *o) {
    if (o->schedule == AV_SCHED_CONSTANT) {
        snprintf(out, n, "lr %g (constant)", o->lr);
        return;
    }
    if (o->schedule != AV_SCHED_NOAM) {
        if (o->warmup) snprintf(out, n, "lr %g (%s, warm-up %d)", o->lr, av_schedule_name(o->schedule), o->warmup);
        else snprintf(out, n, "lr %g (%s, no warm-up)", o->lr, av_schedule_name(o->schedule));
        return;
    }
    av_adamw a = {.schedule = AV_SCHED_NOAM, .lr_max = o->lr, .warmup = o->warmup, .d_model = o->d_model};
    snprintf(out, n, "lr = %g · %d^-0.5 · min(step^-0.5, step · %d^-1.5) (noam; peak %.3g at step %d)", o->lr,
             o->d_model, o->warmup, av_lr_at(&a, o->warmup), o->warmup);
}

/* --compare's setting as its option and figure name say it: compare_<this>.png. */
static const char *const kCompareWhat[] = {"", "scale", "norm", "positions"};

/* The training outputs --train writes beside its model, in the order it writes them. */
static const char *const kTrainOutputs[] = {"train.csv", "curves.png", "curves.svg", "filmstrip.png", "filmstrip.svg",
                                            "attention.gif"};

/* --train writes config.json, model.safetensors, vocab.json and merges.txt
 * into dir. Refuse (AV_EUSAGE) when dir already holds a model attnviz did not
 * train: a config.json without an "attnviz" object naming a "task", or model
 * files beside no config.json at all. `attnviz --train reverse -o gpt2` (the
 * folder README's huggingface-cli download fills) replaced GPT-2's 548 MB
 * checkpoint with a toy model, silently. A folder of an earlier --train run
 * (its config.json has "attnviz": {"task": ...}) is rewritten as before, and
 * earlier (n bytes) says which model that was, "reverse, step 4000", for the
 * note that this run replaces it ("" when dir holds no model). Without a
 * model, a file named as a training output (kTrainOutputs) is refused too:
 * --train writes those only after its model. A config.json that is not a
 * JSON object (cut short, empty) is refused with av_trained_task_read's
 * words for what is wrong, as --model DIR says it: "has no "attnviz" object"
 * sent a user looking for a key in a file that had lost its end (a tester's
 * report). Still refused: --train writes config.json whole (a rename), so a
 * damaged one is not its own partial output, and whose model it is cannot be
 * told. */
/* "config.json and model.safetensors": which of the four files --train writes are in dir, joined as a list, for
 * the refusal that says what it would overwrite (it named vocab.json and merges.txt in a Llama folder, which has
 * a tokenizer.json instead: a learner's pass). */
static void present_model_files(char *out, size_t n, const char *dir) {
    static const char *const written[] = {"config.json", "model.safetensors", "vocab.json", "merges.txt"};
    const char *have[4];
    int k = 0;
    char path[4200];
    for (int i = 0; i < 4; i++) {
        av_path_join(path, sizeof path, dir, written[i]);
        if (access(path, F_OK) == 0) have[k++] = written[i];
    }
    out[0] = 0;
    for (int i = 0; i < k; i++)
        snprintf(out + strlen(out), n - strlen(out), "%s%s", i == 0 ? "" : i == k - 1 ? " and " : ", ", have[i]);
}

static av_status check_not_a_foreign_model(const char *dir, char *earlier, size_t n, av_err *err) {
    static const char *const files[] = {"model.safetensors", "vocab.json", "merges.txt", "tokenizer.json",
                                        "model.safetensors.index.json"};
    char path[4200];
    earlier[0] = 0;
    const char *sd = AV_SHOWN_WORD(dir, 4200);
    av_path_join(path, sizeof path, dir, "config.json");
    if (access(path, F_OK) == 0) {
        av_err rerr;
        int ours, step = 0;
        char task[32];
        av_status rs = av_trained_task_read(dir, task, &step, &ours, NULL, &rerr);
        if (rs) snprintf(earlier, n, "task or step unreadable");
        else if (ours) snprintf(earlier, n, "%s, step %d", task, step); /* as --model names it */
        char files_there[80];
        present_model_files(files_there, sizeof files_there, dir);
        if (rs && !ours) /* rerr names the file: "DIR/config.json: not valid JSON near byte 196 of 197 ..." */
            return av_fail(err, AV_EUSAGE, "-o %s holds a model attnviz cannot identify (%s); --train would overwrite "
                           "its %s: give another folder, or "
                           "remove %s if an earlier --train wrote it (--train writes config.json whole, never in "
                           "part: something else changed this one)", sd, rerr.msg, files_there, sd);
        if (!ours)
            return av_fail(err, AV_EUSAGE, "-o %s holds a model attnviz did not train (%s has no \"attnviz\" object "
                           "naming a task); --train would overwrite its %s: give another folder", sd, AV_SHOWN_WORD(path, 4200),
                           files_there);
        return AV_OK;
    }
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        av_path_join(path, sizeof path, dir, files[i]);
        if (access(path, F_OK) == 0)
            return av_fail(err, AV_EUSAGE, "-o %s holds %s but no config.json: a model attnviz did not write, or part "
                           "of one; --train would overwrite its model files: give another folder", sd, files[i]);
    }
    /* --train writes its outputs only after its model: without one, a train.csv there is someone else's (it was
     * overwritten without a word while a foreign config.json was refused: a new user's report) */
    for (size_t i = 0; i < sizeof kTrainOutputs / sizeof kTrainOutputs[0]; i++) {
        struct stat st; /* a folder of that name gets check_names_free's message */
        av_path_join(path, sizeof path, dir, kTrainOutputs[i]);
        if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
            return av_fail(err, AV_EUSAGE, "-o %s holds %s but no model attnviz trained, so it is not this tool's "
                           "output of an earlier --train; --train would overwrite it: give another folder, or remove "
                           "it", sd, kTrainOutputs[i]);
    }
    return AV_OK;
}

/* Readable label of a toy token for figures: a leading space shows as "␣". */
static void token_label(char *out, size_t n, int id) {
    char t[16];
    if (av_toy_token_text(id, t)) t[0] = 0;
    if (t[0] == ' ') snprintf(out, n, "␣%s", t + 1);
    else snprintf(out, n, "%s", t);
}

/* The film strip's line naming its input: 'probe "3 1 4 1 5 >" and its answer " 5 1 4 1 3"', the
 * text of the prompt and of the answer tokens. */
static void probe_label(char *out, size_t n, const av_task_example *ex) {
    char text[2][128] = {"", ""};
    for (int t = 0; t < ex->T; t++) {
        char tok[16];
        if (av_toy_token_text(ex->tokens[t], tok)) continue;
        char *dst = text[t >= ex->n_prompt];
        if (strlen(dst) + strlen(tok) < sizeof text[0]) strcat(dst, tok);
    }
    if (ex->n_prompt < ex->T) snprintf(out, n, "probe \"%s\" and its answer \"%s\"", text[0], text[1]);
    else snprintf(out, n, "probe \"%s\"", text[0]);
}

/* ---------------------------------------------------------------------------- the loop */

typedef struct {
    const av_train_opts *o;
    av_trainer tr;
    av_task_example *batch, *heldout, probe;
    av_task_set heldout_set;     /* the held-out sequences, never drawn for training */
    train_log log;
    FILE *out;
    const char *dir, *others; /* run_one's: the folder, and what --compare's other variant folders hold */
    double t0;    /* av_now_seconds() when the loop started: the time estimate */
    int eta_said; /* a pipe's early line with the estimate is printed */
    const char *left; /* left_in(dir) as the Ctrl-C message says it (stop_message) */
} run_state;

/* out, x printed with "%.4f": "3.0e-05" where that hid a loss above 0 as "0.0000" (below 0.00005) */
static void small_loss_seen(char out[16], double x) {
    if (x > 0 && !strcmp(out, "0.0000")) snprintf(out, 16, "%.1e", x);
}

void av_train_loss_text(char out[16], double x) {
    int dec = x < 10 ? 4 : x < 100 ? 3 : x < 1000 ? 2 : x < 10000 ? 1 : 0;
    if (x < 1e6) snprintf(out, 16, "%.*f", dec, x);
    else snprintf(out, 16, "%.1e", x);
    small_loss_seen(out, x);
}

/* Evaluate the held-out set and the probe, store snapshot k, print its line. */
static av_status snapshot(run_state *r, int k, int step, av_err *err) {
    train_log *g = &r->log;
    int LH = g->L * g->H, T = g->T;
    av_status s = av_trainer_eval(&r->tr, r->heldout, N_HELDOUT, &g->ho_loss[k], &g->acc[k], g->aot + (size_t)k * LH, err);
    const av_gpt2_acts *a;
    if (s || (s = av_trainer_forward(&r->tr, r->probe.tokens, T, &a, err))) return s;
    memcpy(g->att + (size_t)k * LH * T * T, a->att, (size_t)LH * T * T * sizeof(float));
    g->snap_step[k] = step;
    g->n_snap = k + 1;
    const double *aot = g->aot + (size_t)k * LH;
    int best = 0;
    for (int i = 1; i < LH; i++) if (aot[i] > aot[best]) best = i;
    if (r->o->quiet) return AV_OK;
    char loss[16], ho[16];
    av_train_loss_text(loss, step ? g->loss[step] : g->ho_loss[k]);
    av_train_loss_text(ho, g->ho_loss[k]);
    av_line line = {.n = 0}; /* on a narrow terminal it breaks between these pieces */
    av_line_add(&line, "step %-6d", step);
    av_line_add(&line, " loss %-7s", loss);
    av_line_add(&line, " held-out loss %-7s", ho);
    av_line_add(&line, " accuracy %5.1f %%", 100 * g->acc[k]);
    av_line_add(&line, "  attention on target:");
    for (int l = 0; l < g->L; l++) {
        char heads[1024];
        int at = 0;
        for (int h = 0; h < g->H && at < (int)sizeof heads - 8; h++)
            at += snprintf(heads + at, sizeof heads - (size_t)at, "%s%.2f", h ? " " : "", aot[l * g->H + h]);
        av_line_add(&line, " L%d [%s]", l, heads);
    }
    av_line_add(&line, "  best L%d H%d %.2f", best / g->H, best % g->H, aot[best]);
    av_line_print(r->out, &line, av_line_cols(r->out), 2);
    fflush(r->out);
    return AV_OK;
}

/* The TTY's progress line, redrawn in place with '\r': the bar, step, time
 * estimate, loss and held-out accuracy, fitted to the terminal's width. A line
 * wider than the terminal would wrap, and every '\r' would then scroll a new
 * one; so the words shorten (tqdm's "100/300 [00:01<00:02, 75.26 steps/s]"
 * form keeps the estimate at 80 columns), then the bar goes (30 columns at
 * most, 8 at least), then the estimate, then the line is cut. The form and the bar
 * are chosen for the run's widest line (its last step, an estimate of ETA_W
 * columns), so neither changes as the estimate appears at step 3 or the
 * numbers grow. */
static void progress_line(int step, int steps, const char *eta, double loss, double acc_pct, int acc_step) {
    enum { ETA_W = 30 }; /* "  00:01<00:02, 100.00 steps/s" (29) and a column to spare */
    static const char *const form[3] = {" step %d/%d%s%s%s  loss %s  held-out accuracy %.1f %% (step %d)",
                                        " %d/%d%s%s%s  loss %s  acc %.1f %%", " step %d/%d%s%s%s  loss %s  acc %.1f %%"};
    int cols = av_term_width_of(STDERR_FILENO) - 1; /* the last column would wrap on some terminals */
    char text[256], lt[16], wide[ETA_W + 1];
    av_train_loss_text(lt, loss);
    memset(wide, '0', ETA_W);
    wide[ETA_W] = 0;
    /* the widest each form gets in this run: the last step, 100.0 %, a 7-character loss and an ETA_W estimate */
    int f = 0, longest = 0, bar = 1;
    for (; f < 3; f++) {
        longest = snprintf(text, sizeof text, form[f], steps, steps, f == 1 ? " [" : "", f < 2 ? wide + 2 : "",
                           f == 1 ? "]" : "", "00.0000", 100.0, steps);
        if (longest + 10 <= cols || f == 2) break;
        if (f == 1 && longest <= cols) { bar = 0; break; } /* the estimate before the bar, as tqdm drops its bar */
    }
    const char *e = f < 2 && eta[0] ? eta + 2 : ""; /* eta is "  MM:SS<MM:SS, R steps/s" or "" */
    snprintf(text, sizeof text, form[f], step, steps, f == 1 && e[0] ? " [" : f == 0 && e[0] ? "  " : "", e,
             f == 1 && e[0] ? "]" : "", lt, acc_pct, acc_step);
    int w = !bar ? 0 : cols - longest - 2 < 30 ? cols - longest - 2 : 30;
    fputc('\r', stderr);
    if (w >= 8) {
        int fill = (int)((double)step / steps * w);
        fputc('[', stderr);
        for (int i = 0; i < w; i++) fputc(i < fill ? '#' : '.', stderr);
        fputc(']', stderr);
    }
    int room = cols - (w >= 8 ? w + 2 : 0);
    fprintf(stderr, "%.*s\x1b[K", room > 0 ? room : 0, w >= 8 ? text : text + 1);
    if (step == steps) fputc('\n', stderr);
    fflush(stderr);
}

/* The progress bar (TTY, on stderr, redrawn in place) or, in a pipe, a plain
 * line at every tenth of the run on r->out: the step, loss, lr and |grad|, which
 * the options alone decide, so two runs of one command print the same stdout.
 * Both give tqdm's "elapsed<remaining, rate" from the third step on (before that
 * the mean rate says little); in a pipe it goes to stderr, as "step N/STEPS
 * estimate" after each tenth's line and once more when 3 s have passed (a long
 * run's first tenth may be hours away): it changes from run to run. With the
 * bar on a terminal and stdout a file or a pipe, stdout gets the tenths' lines
 * too (the bar has the estimate). */
static void progress(run_state *r, int step, int last_snap, int just_snapped) {
    const av_train_opts *o = r->o;
    train_log *g = &r->log;
    if (o->quiet) return;
    double acc = g->acc[last_snap], elapsed = av_now_seconds() - r->t0;
    char eta[96] = "", tail[100] = "";
    if (step >= 3) av_format_eta(eta, sizeof eta, elapsed, step, o->steps);
    if (eta[0]) snprintf(tail, sizeof tail, "  %s", eta);
    int tenth = o->steps >= 10 && step % (o->steps / 10) == 0 && !just_snapped;
    if (o->tty) {
        progress_line(step, o->steps, tail, g->loss[step], 100 * acc, g->snap_step[last_snap]);
        /* stdout a file or a pipe under a bar on the terminal (`attnviz --train reverse -o d > log`): the log
         * gets the tenth's line as a script's does, so it is the same wherever stderr goes (it had the
         * snapshot lines only, a tester's pass) */
        if (!tenth || isatty(fileno(r->out))) return;
    }
    int early = !o->tty && !r->eta_said && eta[0] && elapsed >= 3 && o->steps >= 10 && step < o->steps / 10;
    if (tenth) {
        char lt[16];
        av_train_loss_text(lt, g->loss[step]);
        fprintf(r->out, "step %-6d loss %s  lr %.3g  |grad| %.3g\n", step, lt, g->lr[step], g->gnorm[step]);
        fflush(r->out);
    }
    if ((tenth || early) && eta[0] && !o->tty) { /* after the line it times, when stdout and stderr are one pipe */
        fprintf(stderr, "step %d/%d  %s\n", step, o->steps, eta);
        fflush(stderr);
        r->eta_said |= early;
    }
}

static const char *left_in(const char *dir);

/* "--lr X" as a hint to lower it names what --lr is: under --schedule noam the factor of the paper's rule, whose
 * peak (at step --warmup) is the learning rate a user reads ("try a smaller --lr (now 1)" read as a rate of 1) */
static void lr_now(char *out, size_t n, const av_train_opts *o) {
    if (o->schedule != AV_SCHED_NOAM) {
        snprintf(out, n, "%g", o->lr);
        return;
    }
    av_adamw a = {.schedule = AV_SCHED_NOAM, .lr_max = o->lr, .warmup = o->warmup, .d_model = o->d_model};
    snprintf(out, n, "%g, the noam factor: its peak lr was %.3g at step %d", o->lr, av_lr_at(&a, o->warmup),
             o->warmup);
}
static void compare_not_written(char *out, size_t n, const av_train_opts *o);

/* A run that diverged at `step`: `what` (the loss, the gradient norm, or an activation of the forward pass)
 * left float32, as inf or NaN. Valid options gave it, so it is a runtime outcome, exit 1, whichever number
 * went first: a NaN loss said exit 2, a usage error, a NaN gradient norm exit 1, and an overflowed
 * activation exit 2 without the step or the lr to lower (a new user's report). What DIR keeps is said as a
 * Ctrl-C says it. Step 0 is the untrained model: no lr has acted on it yet. */
static av_status diverged(const run_state *r, int step, const char *what, av_err *err) {
    char cmp[400], at[64], hint[160] = "", lr[128];
    compare_not_written(cmp, sizeof cmp, r->o);
    if (step) {
        snprintf(at, sizeof at, "training diverged at step %d", step);
        lr_now(lr, sizeof lr, r->o);
        snprintf(hint, sizeof hint, "; try a smaller --lr (now %s)", lr);
    } else snprintf(at, sizeof at, "the untrained model (step 0) failed");
    return av_fail(err, AV_ERUNTIME, "%s: %s; training stopped and %s was not saved (%s %s%s%s)%s", at, what,
                   r->others[0] ? "this variant's model" : "the model", AV_SHOWN_WORD(r->dir, 249), left_in(r->dir), r->others, cmp, hint);
}

/* s and err from a forward pass of the trainer: an activation that left float32 (err->overflowed, set by
 * attention.h av_overflow_fail, a usage error where the weights come from a checkpoint) is a divergence here.
 * What overflowed is named without the error's reason, which speaks of a checkpoint's weights. */
static av_status forward_failed(const run_state *r, int step, av_status s, av_err *err) {
    if (s != AV_EUSAGE || !err->overflowed) return s;
    char what[sizeof err->msg];
    snprintf(what, sizeof what, "%.*s (a value became infinite)", err->overflowed, err->msg);
    return diverged(r, step, what, err);
}

/* What a Ctrl-C during the steps says: a folder made for this run is empty ("keeps what it held" said it held
 * something); with --compare, "this variant's model", beside the variants that hold theirs, and the
 * comparison not written (a tester's report: "the model was not saved" read as nothing saved, and
 * compare_positions.png was not named). Set again whenever what dir holds changes (left_in): a file put into
 * the folder made for this run while it trained kept the folder, and the message said "was made for this run
 * and is removed" (a learner's pass). */
static void stop_message(run_state *r) {
    const char *left = left_in(r->dir);
    if (left == r->left) return;
    r->left = left;
    char msg[AV_INTERRUPT_MSG_MAX], cmp[400];
    compare_not_written(cmp, sizeof cmp, r->o);
    snprintf(msg, sizeof msg, "%sattnviz: interrupted: training stopped; %s was not saved (%s %s%s%s)\n",
             r->o->tty ? "\n" : "", r->others[0] ? "this variant's model" : "the model", AV_SHOWN_WORD(r->dir, 349), left, r->others,
             cmp);
    av_interrupt_message(msg);
}

static av_status train_steps(run_state *r, av_err *err) {
    const av_train_opts *o = r->o;
    int snaps[MAX_SNAP], n_snaps = snapshot_steps(snaps, o->steps), k = 0;
    av_rng rng;
    av_rng_seed(&rng, o->seed);
    r->t0 = av_now_seconds();
    av_status s = snapshot(r, k++, 0, err);
    if (s) return forward_failed(r, 0, s, err);
    for (int step = 1; !s && step <= o->steps; step++) {
        for (int b = 0; b < o->batch; b++) av_task_sample_unseen(&r->batch[b], o->task, &rng, &r->heldout_set);
        s = av_trainer_step(&r->tr, r->batch, o->batch, &r->log.loss[step], err);
        if (s && isfinite(r->tr.last_grad_norm)) return forward_failed(r, step, s, err); /* not the gradient's */
        char what[160], lt[16];
        if (!isfinite(r->log.loss[step])) {
            snprintf(what, sizeof what, "the loss became %s", isnan(r->log.loss[step]) ? "NaN" : "inf");
            return diverged(r, step, what, err);
        }
        if (s) { /* a gradient NaN or inf under a finite loss: clipping has no factor for it (nn/optim.h
                  * clip_factor), so av_trainer_step refused the step before AdamW touched a parameter */
            av_train_loss_text(lt, r->log.loss[step]);
            snprintf(what, sizeof what, "the gradient norm |grad| became %s (the loss was %s): a gradient "
                     "overflowed float32 or is NaN", isnan(r->tr.last_grad_norm) ? "NaN" : "inf", lt);
            return diverged(r, step, what, err);
        }
        r->log.lr[step] = r->tr.last_lr;
        r->log.gnorm[step] = r->tr.last_grad_norm;
        int snap = k < n_snaps && step == snaps[k];
        if (snap) {
            if (o->tty && !o->quiet) fprintf(stderr, "\r\x1b[K");
            if ((s = snapshot(r, k++, step, err))) return forward_failed(r, step, s, err);
        }
        progress(r, step, k - 1, snap);
        stop_message(r);
    }
    if (!s) r->log.loss[0] = r->log.ho_loss[0];
    return s;
}

/* The steps; on a terminal a failure first clears the progress line, which ends in no newline before the
 * last step: "[##....] 4/20 ... acc 0.2 %attnviz: error: training diverged at step 5: ..." was one line (a
 * new user's report). On a line of its own "\r\x1b[K" changes nothing. */
static av_status train_loop(run_state *r, av_err *err) {
    av_status s = train_steps(r, err);
    if (s && r->o->tty && !r->o->quiet) {
        fputs("\r\x1b[K", stderr);
        fflush(stderr);
    }
    return s;
}

/* ---------------------------------------------------------------------------- the model folder */

static av_status write_text(const char *dir, const char *name, const char *text, av_err *err) {
    char path[4096];
    av_path_join(path, sizeof path, dir, name);
    av_afile f;
    av_status s = av_afile_open(&f, path, err);
    if (s) return s;
    av_afile_write(&f, text, strlen(text));
    return av_afile_commit(&f, err);
}

/* UTF-8 of code point cp (< 0x800) into out; returns its length. */
static int utf8_small(char *out, int cp) {
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
}

/* vocab.json and merges.txt of the toy vocabulary (nn/tasks.h), in GPT-2's
 * byte-level form: byte b is the character bytes_to_unicode(b), a space "Ġ". */
static av_status write_vocab(const char *dir, av_err *err) {
    cJSON *v = cJSON_CreateObject();
    char tok[8], merges[1024] = "#version: 0.2\n";
    for (int b = 0; v && b < 256; b++) {
        tok[utf8_small(tok, av_toy_byte_codepoint(b))] = 0;
        cJSON_AddNumberToObject(v, tok, av_toy_byte_id(b));
    }
    int sp = utf8_small(tok, av_toy_byte_codepoint(' '));
    for (int r = 0; v && r < AV_TOY_N_MERGES; r++) {
        tok[sp + utf8_small(tok + sp, av_toy_byte_codepoint(av_toy_merge_byte(r)))] = 0;
        cJSON_AddNumberToObject(v, tok, 256 + r);
        size_t m = strlen(merges);
        snprintf(merges + m, sizeof merges - m, "%.*s %s\n", sp, tok, tok + sp);
    }
    if (v) cJSON_AddNumberToObject(v, "<|endoftext|>", AV_TOY_EOT);
    char *json = v ? cJSON_PrintUnformatted(v) : NULL;
    cJSON_Delete(v);
    if (!json) return av_fail(err, AV_ERUNTIME, "out of memory writing vocab.json");
    av_status s = write_text(dir, "vocab.json", json, err);
    free(json);
    return s ? s : write_text(dir, "merges.txt", merges, err);
}

/* config.json: GPT2Config's keys (av_gpt2_config_json), bos_token_id and
 * eos_token_id the toy vocabulary's <|endoftext|>, with the "attnviz"
 * object always present and saying the task and the step it was saved at,
 * "diverged": true for a model whose held-out loss ended more than 1 % above
 * step 0's (held_out_rose), so that --model's figures of it say so, and "training":
 * the settings o trained it with, as in effect after the task's defaults
 * (--seed, --steps, --batch, --lr (noam: its factor), --schedule, --warmup
 * (not with constant, which has none), --weight-decay, --kernel), so the
 * folder says how to train it again. --model's readers pass over keys of
 * the object they do not know (nn/gpt2.c parse_attnviz, gpt2run.c), and
 * transformers' PretrainedConfig keeps unknown keys as attributes. */
static av_status write_config(const char *dir, const av_gpt2_config *cfg, const av_train_opts *o, const char *task,
                              int step, int diverged, av_err *err) {
    char *text = NULL;
    av_status s = av_gpt2_config_json(&text, cfg, err);
    if (s) return s;
    cJSON *root = cJSON_Parse(text);
    free(text);
    cJSON *a = root ? cJSON_CreateObject() : NULL;
    if (a) {
        cJSON_DeleteItemFromObjectCaseSensitive(root, "attnviz");
        /* GPT2Config's end-of-text ids: without them transformers takes GPT-2's 50256, outside this 294-token
         * vocabulary, whose <|endoftext|> is AV_TOY_EOT (vocab.json; a researcher's pass) */
        cJSON_AddNumberToObject(root, "bos_token_id", AV_TOY_EOT);
        cJSON_AddNumberToObject(root, "eos_token_id", AV_TOY_EOT);
        cJSON_AddStringToObject(a, "positions", positions_label(cfg->positions));
        cJSON_AddStringToObject(a, "norm", cfg->norm == AV_NORM_POST ? "post" : "pre");
        cJSON_AddBoolToObject(a, "scale", cfg->scale);
        cJSON_AddNumberToObject(a, "rope_base", cfg->rope_base);
        cJSON_AddStringToObject(a, "rope_style", av_rope_style_name(cfg->rope_style));
        cJSON_AddStringToObject(a, "task", task);
        cJSON_AddNumberToObject(a, "step", step);
        if (diverged) cJSON_AddBoolToObject(a, "diverged", 1);
        /* the training settings: the folder said its task and step but not its seed, lr or batch, so the
         * model could not be trained again from it */
        cJSON *t = cJSON_AddObjectToObject(a, "training");
        char seed[24]; /* --seed goes up to 2^63 − 1, past a double's 2^53: its digits, not a rounded number */
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
        if (!t || !cJSON_AddRawToObject(t, "seed", seed)) { cJSON_Delete(a); a = NULL; }
        else {
            cJSON_AddNumberToObject(t, "steps", o->steps);
            cJSON_AddNumberToObject(t, "batch", o->batch);
            cJSON_AddNumberToObject(t, "lr", o->lr);
            cJSON_AddStringToObject(t, "schedule", av_schedule_name(o->schedule));
            if (o->schedule != AV_SCHED_CONSTANT) cJSON_AddNumberToObject(t, "warmup", o->warmup);
            cJSON_AddNumberToObject(t, "weight_decay", o->weight_decay);
            cJSON_AddStringToObject(t, "kernel", o->reference ? "reference" : "blas");
            cJSON_AddItemToObject(root, "attnviz", a);
        }
    }
    char *out = a ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!out) return av_fail(err, AV_ERUNTIME, "out of memory writing config.json");
    size_t n = strlen(out);
    char *withnl = realloc(out, n + 2);
    if (withnl) { withnl[n] = '\n'; withnl[n + 1] = 0; out = withnl; }
    s = write_text(dir, "config.json", out, err);
    free(out);
    return s;
}

/* The trained model into dir: model.safetensors, config.json, vocab.json and
 * merges.txt, as one set (io/fileio.h av_afile_set): on a failure (a full
 * disk) none of the four changes, and the error adds that the model was not
 * saved. saved_msg becomes the Ctrl-C message once the four are in place
 * (av_afile_set.renamed_msg). Errors: AV_ERUNTIME, naming the file. */
static av_status write_model(const char *dir, const av_trainer *tr, const av_train_opts *o, const char *task,
                             int diverged, const char *saved_msg, av_err *err) {
    av_st_write_tensor *t = calloc((size_t)tr->n_tensors, sizeof *t);
    if (!t) return av_fail(err, AV_ERUNTIME, "out of memory writing the model");
    for (int i = 0; i < tr->n_tensors; i++) {
        const av_gpt2_tensor *row = &tr->table[i];
        t[i] = (av_st_write_tensor){.name = row->name, .dtype = AV_ST_F32, .ndim = row->ndim, .data = *row->slot};
        for (int d = 0; d < row->ndim; d++) t[i].shape[d] = row->shape[d];
    }
    char path[4096];
    av_path_join(path, sizeof path, dir, "model.safetensors");
    static av_afile_set set; /* the four appear together or not at all (io/fileio.h); 130 KB, not on the stack */
    av_afile_set_begin(&set);
    set.renamed_msg = saved_msg; /* what a Ctrl-C is told from the moment they are in place */
    av_status s = av_safetensors_write(path, t, tr->n_tensors, err);
    free(t);
    if (!s) s = write_config(dir, &tr->cfg, o, task, tr->step, diverged, err);
    if (!s) s = write_vocab(dir, err);
    if (!s) return av_afile_set_end(&set, 1, err);
    av_afile_set_end(&set, 0, NULL);
    /* a full disk: say that nothing of the model changed */
    av_fail_append(err, "; the model was not saved (%s keeps the model files it held "
             "before, if any)", AV_SHOWN_WORD(dir, 149));
    return s;
}

/* ---------------------------------------------------------------------------- CSV */

/* train.csv: one row per step (0 = before training): lr, loss, gradient
 * norm; at snapshot steps also the held-out loss and accuracy and the
 * attention on target of every layer and head (empty elsewhere). Step 0 has
 * no batch, so no lr and no gradient: those cells are empty (they said 0),
 * and its loss is the held-out loss. */
static av_status write_csv(const char *dir, const train_log *g, av_err *err) {
    char path[4096];
    av_path_join(path, sizeof path, dir, "train.csv");
    av_afile f;
    av_status s = av_afile_open(&f, path, err);
    if (s) return s;
    fprintf(f.fp, "step,lr,loss,grad_norm,heldout_loss,heldout_accuracy");
    for (int l = 0; l < g->L; l++)
        for (int h = 0; h < g->H; h++) fprintf(f.fp, ",attn_on_target_L%d_H%d", l, h);
    fprintf(f.fp, "\n");
    for (int step = 0, k = 0; step <= g->steps; step++) {
        if (step) fprintf(f.fp, "%d,%.9g,%.9g,%.9g", step, g->lr[step], g->loss[step], g->gnorm[step]);
        else fprintf(f.fp, "0,,%.9g,", g->loss[0]);
        int snap = k < g->n_snap && g->snap_step[k] == step;
        if (snap) fprintf(f.fp, ",%.9g,%.9g", g->ho_loss[k], g->acc[k]);
        else fprintf(f.fp, ",,");
        for (int i = 0; i < g->L * g->H; i++) {
            if (snap) fprintf(f.fp, ",%.9g", g->aot[(size_t)k * g->L * g->H + i]);
            else fprintf(f.fp, ",");
        }
        fprintf(f.fp, "\n");
        k += snap;
    }
    return av_afile_commit(&f, err);
}

/* ---------------------------------------------------------------------------- figures */

/* Both formats of one figure: name.png and name.svg. done (may be NULL) counts the files written, so that an
 * error part-way can name those that are not; with r (may be NULL), a Ctrl-C is told each file is written from
 * the moment it is (output_begin). told (may be NULL, for a figure without r): told[0] and told[1], what a Ctrl-C
 * is told from the moment name.png and name.svg are in place. */
typedef av_status (*fig_fn)(const char *path, const void *ctx, const av_plot_meta *meta, av_err *err);
static void output_begin(av_afile_set *set, char *msg, const run_state *r, const int *done);
static av_status output_end(av_afile_set *set, av_status s, int *done, av_err *err);

static av_status png_and_svg(const char *dir, const char *name, fig_fn fn, const void *ctx, const av_plot_meta *meta,
                             const run_state *r, int *done, const char *const *told, av_err *err) {
    char file[256], path[4096];
    const char *ext[2] = {"png", "svg"};
    static av_afile_set set; /* 130 KB, not on the stack */
    static char said[AV_INTERRUPT_MSG_MAX];
    for (int i = 0; i < 2; i++) {
        snprintf(file, sizeof file, "%s.%s", name, ext[i]);
        av_path_join(path, sizeof path, dir, file);
        output_begin(&set, said, r, done);
        if (told) set.renamed_msg = told[i];
        av_status s = output_end(&set, fn(path, ctx, meta, err), done, err);
        if (s) return s;
    }
    return AV_OK;
}

typedef struct {
    const train_log *g;
    const char *title;
} log_fig;

/* Series of one snapshot quantity: x = snapshot steps, a marker at each (the
 * line between them is not measured). */
static void snap_series(av_series *s, double *x, double *y, const train_log *g, const double *src, size_t stride,
                        const char *label) {
    for (int k = 0; k < g->n_snap; k++) { x[k] = g->snap_step[k]; y[k] = src[(size_t)k * stride]; }
    *s = (av_series){.label = label, .x = x, .y = y, .n = g->n_snap, .markers = 1};
}

/* The held-out accuracy at the snapshots as snap_series gives it, in percent: the log, the film strip
 * and the GIF say "accuracy 61.7 %", the curves' axis said 0.617 (a figure-maker's report); train.csv
 * keeps the fraction. */
static void snap_accuracy(av_series *s, double *x, double *y, const train_log *g, const char *label) {
    snap_series(s, x, y, g, g->acc, 1, label);
    for (int k = 0; k < g->n_snap; k++) y[k] *= 100;
}

/* The heads to draw when more than `shown` of LH do not fit: order[0..shown-1] = the layer·H + head
 * indices with the most attention on target (last: (LH) at the last snapshot), the best first (ties:
 * the lower index, as the trace's "best L H"); with shown >= LH, every head in layer/head order. */
static void heads_by_target_of(int *order, const double *last, int LH, int shown) {
    for (int i = 0; i < LH; i++) order[i] = i;
    for (int i = 0; LH > shown && i < shown; i++) /* selection: order[0..shown-1] the best, in order */
        for (int j = i + 1; j < LH; j++)
            if (last[order[j]] > last[order[i]] || (last[order[j]] == last[order[i]] && order[j] < order[i])) {
                int t = order[i]; order[i] = order[j]; order[j] = t;
            }
}

static void heads_by_target(int *order, const train_log *g, int shown) {
    int LH = g->L * g->H;
    heads_by_target_of(order, g->aot + (size_t)(g->n_snap - 1) * LH, LH, shown);
}

int av_train_gif_heads(int *order, char *note, size_t note_size, const double *aot_last, int L, int H) {
    int LH = L * H, shown = LH < AV_TRAIN_GIF_MAX_HEADS ? LH : AV_TRAIN_GIF_MAX_HEADS;
    heads_by_target_of(order, aot_last, LH, shown);
    if (note_size) note[0] = 0;
    if (LH > shown && note_size)
        snprintf(note, note_size, "%d of %d heads (a GIF frame has at most %d panels): the %d with the most "
                 "attention on target at the end, the best first", shown, LH, AV_TRAIN_GIF_MAX_HEADS, shown);
    return shown;
}

static av_status curves_fig(const char *path, const void *ctx, const av_plot_meta *meta, av_err *err) {
    const log_fig *lf = ctx;
    const train_log *g = lf->g;
    int LH = g->L * g->H;
    double *steps = malloc(((size_t)g->steps + 1) * sizeof(double));
    double *buf = malloc((size_t)(2 + 2 * (LH + 2)) * MAX_SNAP * sizeof(double));
    av_series *ser = calloc((size_t)LH + 3, sizeof *ser);
    char (*names)[32] = calloc((size_t)LH, sizeof *names);
    if (!steps || !buf || !ser || !names) {
        free(steps); free(buf); free(ser); free(names);
        return av_fail(err, AV_ERUNTIME, "out of memory drawing the curves");
    }
    for (int i = 0; i <= g->steps; i++) steps[i] = i;
    ser[0] = (av_series){.label = "training batch", .x = steps + 1, .y = g->loss + 1, .n = g->steps};
    snap_series(&ser[1], buf, buf + MAX_SNAP, g, g->ho_loss, 1, "held-out, at snapshots");
    snap_accuracy(&ser[2], buf + 2 * MAX_SNAP, buf + 3 * MAX_SNAP, g, NULL);
    /* at most 10 heads (tab10's colours, the legend's room): with more, the 10 with the most attention on
     * target at the last snapshot, the best first (ties: the lower index, as the trace's "best L H"), and a
     * note under the legend says so; never a silent cut at layer 0's first heads */
    int shown = LH < 10 ? LH : 10, *order = calloc((size_t)LH, sizeof *order);
    if (!order) {
        free(steps); free(buf); free(ser); free(names);
        return av_fail(err, AV_ERUNTIME, "out of memory drawing the curves");
    }
    heads_by_target(order, g, shown);
    char note[128] = "";
    if (LH > shown)
        snprintf(note, sizeof note, "%d of %d heads: the best at the end, L%d H%d, and the %d next", shown, LH,
                 order[0] / g->H, order[0] % g->H, shown - 1);
    for (int i = 0; i < shown; i++) {
        int h = order[i];
        snprintf(names[i], sizeof names[i], "layer %d head %d", h / g->H, h % g->H);
        snap_series(&ser[3 + i], buf + (4 + 2 * i) * MAX_SNAP, buf + (5 + 2 * i) * MAX_SNAP, g, g->aot + h, (size_t)LH,
                    names[i]);
    }
    free(order);
    /* steps on a symlog axis, as the snapshots are log-spaced: linear, 7 of 11 sat in the first 100 of 4000 */
    av_curve_panel p[3] = {
        {.title = "loss (cross-entropy on answers)", .y_label = "loss (nats)", .s = ser, .n_series = 2, .x_symlog = 1},
        {.title = "held-out sequence accuracy, at snapshots", .y_label = "accuracy (%)", .s = ser + 2, .n_series = 1,
         .ymin = 0, .ymax = 100, .x_symlog = 1},
        {.title = "attention on the target, at snapshots", .y_label = "attention weight", .s = ser + 3, .n_series = shown, .ymin = 0,
         .ymax = 1, .note = note[0] ? note : NULL, .x_symlog = 1},
    };
    av_status s = av_plot_curves(path, p, 3, lf->title, "training step (log scale from 0)", meta, err);
    free(steps); free(buf); free(ser); free(names);
    return s;
}

typedef struct {
    const train_log *g;
    const char *title;
    const char *model;           /* "2 layers, 4 heads, d_model 64 · learned positions, Pre-LN, ÷√d_k" */
    const char *probe;           /* the probe's line: probe "3 1 4 1 5 >" and its answer " 5 1 4 1 3" */
    const char *diverged;        /* diverged_words, "" for a run that did not diverge */
    const char *const *tokens;   /* T labels */
    const unsigned char *mask;   /* (T, T) causal */
} strip_fig;

/* The film strip: every head up to AV_FILMSTRIP_MAX_COLS (16) columns, in layer/head order; with more
 * (a 12 x 16 model drew 192 columns, 9642 px wide), the 16 with the most attention on target at the
 * last snapshot, the best first as in the curves' legend, and a line under the legend says so. */
static av_status strip_fig_fn(const char *path, const void *ctx, const av_plot_meta *meta, av_err *err) {
    const strip_fig *sf = ctx;
    const train_log *g = sf->g;
    int LH = g->L * g->H, T = g->T, shown = LH < AV_FILMSTRIP_MAX_COLS ? LH : AV_FILMSTRIP_MAX_COLS;
    char rows[MAX_SNAP][48], cols[AV_FILMSTRIP_MAX_COLS][24], note[160] = "";
    const char *rp[MAX_SNAP], *cp[AV_FILMSTRIP_MAX_COLS];
    for (int k = 0; k < g->n_snap; k++) {
        /* one decimal as the printed log: 510 of 512 is 99.6 %, never "100 %" */
        snprintf(rows[k], sizeof rows[k], "step %d%s · acc %.1f %%", g->snap_step[k],
                 g->snap_step[k] ? "" : " (untrained)", 100 * g->acc[k]); /* as the GIF's frame 0 says it */
        rp[k] = rows[k];
    }
    int *order = malloc((size_t)LH * sizeof *order);
    float *att = LH > shown ? malloc((size_t)g->n_snap * shown * T * T * sizeof *att) : NULL;
    if (!order || (LH > shown && !att)) {
        free(order); free(att);
        return av_fail(err, AV_ERUNTIME, "out of memory drawing the film strip");
    }
    heads_by_target(order, g, shown);
    for (int i = 0; i < shown; i++) {
        snprintf(cols[i], sizeof cols[i], "L%d H%d", order[i] / g->H, order[i] % g->H);
        cp[i] = cols[i];
    }
    if (att) { /* (n_snap, shown, T, T): the shown heads' maps, in column order */
        for (int k = 0; k < g->n_snap; k++)
            for (int i = 0; i < shown; i++)
                memcpy(att + ((size_t)k * shown + i) * T * T, g->att + ((size_t)k * LH + order[i]) * T * T,
                       (size_t)T * T * sizeof *att);
        snprintf(note, sizeof note, "%d of %d heads (a film strip has at most %d columns): the %d with the most "
                 "attention on target at the end, the best first", shown, LH, AV_FILMSTRIP_MAX_COLS, shown);
    }
    av_filmstrip fs = {.title = sf->title, .probe = sf->probe, .note = note[0] ? note : NULL, .rows = g->n_snap,
                       .cols = shown, .T = T, .att = att ? att : g->att, .masked = sf->mask, .row_labels = rp,
                       .col_labels = cp, .tokens = sf->tokens};
    av_status s = av_plot_filmstrip(path, &fs, meta, err);
    free(order); free(att);
    return s;
}

void av_train_frame_title(char *out, size_t n, const char *task, int step, double accuracy, const char *model,
                          const char *probe, const char *note) {
    char what[96]; /* step 0 is the random initialisation: "trained on reverse, step 0" said it was trained */
    if (step == 0) snprintf(what, sizeof what, "%s, step 0: untrained (random initialisation)", task);
    else snprintf(what, sizeof what, "trained on %s, step %d", task, step);
    /* the model, as the film strip names it: post-ln/attention.gif's frames read as pre-ln's (a learner's
     * report); the note is one more " · " piece, which wraps there when too wide for the frame */
    snprintf(out, n, "%s · held-out accuracy %.1f %% · %s · %s%s%s", what, 100 * accuracy, model, probe,
             note[0] ? " · " : "", note);
}

/* One GIF frame laid out into dl at 100 dpi and scale 1 (write_gif scales every frame by one factor): the
 * attention grid of snapshot k, the shown heads order[0..shown-1] (av_train_gif_heads), and the note saying
 * which when not every head is shown ("" when all are). */
static av_status gif_frame_layout(av_dlist *dl, const strip_fig *sf, int k, const char *task, const int *order,
                                  int shown, const char *note, const av_plot_meta *meta, av_err *err) {
    const train_log *g = sf->g;
    int LH = g->L * g->H, T = g->T;
    av_heatmap hms[AV_TRAIN_GIF_MAX_HEADS];
    char names[AV_TRAIN_GIF_MAX_HEADS][32], title[800];
    for (int i = 0; i < shown; i++) {
        int hd = order[i];
        snprintf(names[i], sizeof names[i], "layer %d head %d", hd / g->H, hd % g->H);
        hms[i] = (av_heatmap){.n_q = T, .n_k = T, .q_labels = sf->tokens, .k_labels = sf->tokens,
                              .w = g->att + ((size_t)k * LH + hd) * T * T, .masked = sf->mask, .panel_title = names[i]};
    }
    av_train_frame_title(title, sizeof title, task, g->snap_step[k], g->acc[k], sf->model, sf->probe, note);
    /* every head, in layer/head order, of several heads a layer: one layer a row (its heads left to
     * right), as model.png of the trained folder has them; the automatic grid put 4 columns for 5..16
     * panels and ceil(√n) beyond, so a 2 x 3 model's first row held L0 H0..H2 and L1 H0, and a 4 x 8
     * one's 6 columns mixed layers in most rows (a figure-maker's report). One head a layer keeps the
     * automatic grid (its panels are the layers in order, side by side); the best-first selection of
     * more than 64 heads has no layer rows. */
    av_plot_meta gm = *meta;
    gm.grid_cols = shown == LH && g->L > 1 && g->H > 1 ? g->H : 0;
    gm.dpi = 100, gm.scale = 1;
    gm.mask_legend = AV_TRAIN_MASK_TEXT; /* the film strip's words: it said "masked (−∞)" beside the strip's
                                          * "hatched = causal mask" (a learner's report) */
    return av_plot_layout_grid(dl, hms, shown, title, &gm, err);
}

static av_status write_gif(const char *dir, const strip_fig *sf, const char *task, const av_plot_meta *meta,
                           av_err *err) {
    const train_log *g = sf->g;
    unsigned char *raw[MAX_SNAP] = {0}, *frames[MAX_SNAP] = {0};
    int w[MAX_SNAP], h[MAX_SNAP], W = 0, H = 0, LH = g->L * g->H;
    int *order = malloc((size_t)LH * sizeof *order);
    if (!order) return av_fail(err, AV_ERUNTIME, "out of memory for the GIF");
    char heads[200], note[320];
    int shown = av_train_gif_heads(order, heads, sizeof heads, g->aot + (size_t)(g->n_snap - 1) * LH, g->L, g->H);
    /* a diverged run's frames say it, as its film strip does: each frame alone, on a slide, read as a model
     * that learnt */
    snprintf(note, sizeof note, "%s%s%s", sf->diverged, sf->diverged[0] && heads[0] ? " · " : "", heads);
    av_status s = AV_OK;
    av_dlist dl[MAX_SNAP];
    int laid = 0;
    for (; !s && laid < g->n_snap; laid++) {
        s = gif_frame_layout(&dl[laid], sf, laid, task, order, shown, note, meta, err);
        if (!s) { W = dl[laid].width > W ? dl[laid].width : W; H = dl[laid].height > H ? dl[laid].height : H; }
    }
    free(order);
    /* every frame at one factor, --dpi and --scale's, or the lower one that keeps the largest frame within
     * AV_PLOT_MAX_PX: each frame lowered on its own drew the maps of a taller frame (step 0's title wraps to
     * one more line) smaller, and they jumped from frame to frame */
    av_plot_meta fm = *meta;
    fm.dpi = av_plot_fit_dpi(W, H, meta);
    W = H = 0;
    for (int k = 0; k < laid; k++) {
        if (!s) av_plot_scale_laid_out(&dl[k], &fm);
        size_t stride;
        if (!s) s = av_raster_render(&dl[k], &raw[k], &stride, err);
        if (!s) { w[k] = dl[k].width, h[k] = dl[k].height; W = w[k] > W ? w[k] : W; H = h[k] > H ? h[k] : H; }
        av_dl_free(&dl[k]);
    }
    /* same size for every frame, padded with its background above and on the right: a title that
     * wraps to one more line (step 0's "untrained (random initialisation)") adds height above the
     * grid, and one wider than the grid (one head) widens the frame on the right of the grid, which
     * the layout puts at the left margin; so the heat-maps stay still from frame to frame, as a
     * FuncAnimation's axes do (they jumped 25 px after frame 0: a learner's report) */
    for (int k = 0; !s && k < g->n_snap; k++) {
        frames[k] = malloc((size_t)W * H * 3);
        if (!frames[k]) { s = av_fail(err, AV_ERUNTIME, "out of memory for the GIF"); break; }
        for (size_t p = 0; p < (size_t)W * H; p++) memcpy(frames[k] + p * 3, raw[k], 3); /* the corner's colour */
        size_t y0 = (size_t)(H - h[k]);
        for (int y = 0; y < h[k]; y++)
            memcpy(frames[k] + (y0 + (size_t)y) * W * 3, raw[k] + (size_t)y * w[k] * 3, (size_t)w[k] * 3);
    }
    char path[4096];
    av_path_join(path, sizeof path, dir, "attention.gif");
    /* the film strip PNG's Software, Description, Weights and Run, one "Key: value" line each: the GIF said
     * nothing of how it was made (command, trained weights, task, seed), while the PNG and SVG beside it did */
    const char *software = meta->software ? meta->software : "attnviz " AV_VERSION;
    const char *desc = meta->description ? meta->description : "", *wts = meta->weights ? meta->weights : "";
    const char *run = meta->run ? meta->run : "";
    size_t clen = strlen(software) + strlen(desc) + strlen(wts) + strlen(run) + 64;
    char *comment = s ? NULL : malloc(clen);
    if (!s && !comment) s = av_fail(err, AV_ERUNTIME, "out of memory for the GIF");
    if (!s) snprintf(comment, clen, "Software: %s\nDescription: %s\nWeights: %s\nRun: %s", software, desc, wts, run);
    if (!s) s = av_gif_write(path, (const unsigned char *const *)frames, g->n_snap, W, H, 80, meta->cmap, comment, err);
    free(comment);
    if (!s && fm.dpi < (meta->dpi > 0 ? meta->dpi : 100)) av_plot_note_fewer_pixels(path);
    for (int k = 0; k < g->n_snap; k++) { av_big_free(raw[k]); free(frames[k]); }
    return s;
}

/* ---------------------------------------------------------------------------- one run */

/* Load DIR back with --model's loader and compare the probe's logits with the
 * trainer's: *max_diff = max |Δ logit| (0 when the round trip is exact). */
static av_status check_checkpoint(const char *dir, run_state *r, double *max_diff, av_err *err) {
    av_gpt2 m;
    av_status s = av_gpt2_load(&m, dir, err);
    if (s) return s;
    av_gpt2_acts a;
    int T = r->probe.T;
    if (!(s = av_gpt2_acts_alloc(&a, &m.cfg, T, err))) {
        const av_gpt2_acts *mine;
        if (!(s = av_gpt2_forward(&a, &m.params, &m.cfg, r->probe.tokens, T, err)) &&
            !(s = av_trainer_forward(&r->tr, r->probe.tokens, T, &mine, err))) {
            *max_diff = 0;
            for (size_t i = 0; i < (size_t)T * m.cfg.vocab_size; i++)
                *max_diff = fmax(*max_diff, fabs((double)a.logits[i] - mine->logits[i]));
        }
        av_gpt2_acts_free(&a);
    }
    av_gpt2_free(&m);
    return s;
}

/* The figures' "Weights" text (PNG tEXt, SVG <desc>), as --model's and the random-weight figures have:
 * trained in this run, on which task, how many steps, from which seed, and diverged (diverged_words, ""
 * for none; --compare's figure passes "" and marks each diverged variant in its legend). */
static void train_weights_note(char *buf, size_t n, const av_train_opts *o, const char *diverged) {
    snprintf(buf, n, "trained in this run: toy model on %s, %d step%s from random initialisation (seed %llu)%s%s",
             av_task_name(o->task), o->steps, o->steps == 1 ? "" : "s", (unsigned long long)o->seed,
             diverged[0] ? "; " : "", diverged);
}

/* Remove the n files names[] from dir before this run writes its own of
 * those names: they show the models this run replaces (whose: the message's
 * words for them), so a Ctrl-C or a full disk never leaves them beside the
 * new ones. A missing one is fine. Error: AV_ERUNTIME naming the file that
 * cannot be removed. */
static av_status remove_outputs(const char *dir, const char *const *names, size_t n, const char *whose, av_err *err) {
    char path[4200];
    for (size_t i = 0; i < n; i++) {
        av_path_join(path, sizeof path, dir, names[i]);
        if (unlink(path) != 0 && errno != ENOENT)
            return av_fail(err, AV_ERUNTIME, "cannot remove %s, %s: %s", AV_SHOWN_WORD(path, 4200), whose, strerror(errno));
    }
    return AV_OK;
}

/* The files of a --model --dump (gpt2run.c av_gpt2run_dump) in dir, source.txt last so that a removal cut
 * short still says whose the rest are. */
static const char *const kModelDumpFiles[] = {"token_ids.npy", "attn.npy", "scores.npy", "hidden.npy", "logits.npy",
                                              "tokens.txt", "source.txt"};

/* Whose --dump dir holds, before this run replaces the model there: 1 a --model --dump of the model dir holds now
 * (dir/source.txt is a --model dump's, tensorio.h av_dump_earlier_kind 2, and its "model.safetensors crc32" line,
 * gpt2run.h av_gpt2run_dump, is the CRC-32 of dir/model.safetensors, tensorio.h av_file_crc32: the same weights
 * file, byte for byte, wherever it was dumped from); 2 a dump of another model (a single layer's, or a --model
 * dump whose weights file has another CRC-32); 3 a --model dump whose source.txt gives no CRC-32 (an older
 * attnviz's, which cannot be tied to a model); with 2 and 3 its weights line in other (n bytes); 0 no model or
 * no dump. `--model r2 --dump r2 ...` and then `--train reverse -o r2` left attn.npy, logits.npy, ... of the
 * replaced model beside the new one, while the figures of the same run were removed (a tester's report); a dump
 * of another model there stayed without a word (a learner's pass); and one of another reverse model trained to
 * the same step (`--model r3 --dump r2`) was removed as r2's, by its weights line's task and step (a learner's
 * pass). source.txt is read once, by av_dump_earlier_kind. */
static int holds_dump_of_model(const char *dir, char *other, size_t n) {
    char task[32], weights[1024], path[4200];
    int step = 0, present = 0;
    int64_t crc[5], model_crc = -1;
    av_err e = {{0}};
    other[0] = 0;
    if (av_trained_task_read(dir, task, &step, &present, NULL, &e) || !present) return 0;
    int kind = av_dump_earlier_kind(dir, crc, weights, sizeof weights, &model_crc);
    if (!kind) return 0;
    av_path_join(path, sizeof path, dir, "model.safetensors");
    if (kind == 2 && model_crc >= 0 && model_crc == av_file_crc32(path)) return 1;
    snprintf(other, n, "%s", weights);
    return kind == 2 && model_crc < 0 ? 3 : 2;
}

/* The note that dir keeps a --dump beside the model this run saved, with -q too: for kind 2 (holds_dump_of_model,
 * whose weights line is other) one of another model, not the new one's nor the one replaced; for kind 3 one whose
 * source.txt gives no CRC-32 of its model's weights file (an older attnviz's), which may be of either and is kept
 * rather than deleted on a guess. A weights line longer than 300 bytes is its start and end with " … " between, at
 * whole characters: "%.300s" cut a long line inside a character, which showed as U+FFFD and no sign of the cut (a
 * tester's pass). */
static void note_kept_dump(const char *dir, const char *other, int kind) {
    char shown[301];
    av_utf8_cut_middle(other, strlen(other), shown, sizeof shown);
    av_message(stderr, "attnviz: note: %s also holds a --dump %s (its source.txt: weights: %s); kept beside the "
               "new model, whose attention its .npy files do not show; give dumps a --dump folder of their own\n",
               AV_SHOWN_WORD(dir, 349), kind == 3 ? "by an older attnviz, with no \"model.safetensors crc32\" line "
               "in its source.txt to tie it to the model this run replaced" : "of another model than the one this "
               "run replaced", shown);
}

/* Remove the n files names[] from dir, once this run's model is saved there, and name those removed in a note
 * (with -q too: a file is never deleted without a word): "attnviz: note: removed 2 <noun>s<after_noun> from
 * DIR<after_dir>: a b". A missing one is fine, and with skip_folders so is a folder of such a name (left);
 * names[] lists at most 256 bytes of names. Error: AV_ERUNTIME "cannot remove PATH, <whose>: ..." for the first
 * file that cannot be removed (an immutable file, a folder the user may not write), after the note on those
 * removed before it. One loop for the replaced model's --dump and the tokenizer files --train did not write. */
static av_status remove_noted(const char *dir, const char *const *names, size_t n, int skip_folders,
                              const char *noun, const char *after_noun, const char *after_dir, const char *whose,
                              av_err *err) {
    char path[4200], removed_names[256] = "";
    int removed = 0, failed = 0;
    for (size_t i = 0; i < n && !failed; i++) {
        struct stat st;
        av_path_join(path, sizeof path, dir, names[i]);
        if (skip_folders && (lstat(path, &st) != 0 || S_ISDIR(st.st_mode))) continue;
        if (unlink(path) != 0) {
            if (errno != ENOENT) failed = errno;
            continue;
        }
        snprintf(removed_names + strlen(removed_names), sizeof removed_names - strlen(removed_names), " %s", names[i]);
        removed++;
    }
    if (removed) /* before the error of a removal cut short too: a file is never deleted without a word */
        av_message(stderr, "attnviz: note: removed %d %s%s%s from %s%s:%s\n", removed, noun, removed == 1 ? "" : "s",
                   after_noun, AV_SHOWN_WORD(dir, 349), after_dir, removed_names);
    if (failed)
        return av_fail(err, AV_ERUNTIME, "cannot remove %s, %s: %s", AV_SHOWN_WORD(path, 4200), whose,
                       strerror(failed));
    return AV_OK;
}

/* Remove the --model --dump files (kModelDumpFiles) of the model this run replaced from dir, with a note
 * (remove_noted; a folder of such a name is an error, as before). Error: AV_ERUNTIME naming the file that
 * cannot be removed. */
static av_status remove_replaced_dump(const char *dir, av_err *err) {
    return remove_noted(dir, kModelDumpFiles, sizeof kModelDumpFiles / sizeof kModelDumpFiles[0], 0, "file",
                        " of a --dump of the model this run replaced", ", so the folder holds one run",
                        "written by a --dump of the model this run replaced", err);
}

/* The tokenizer files a Hugging Face save_pretrained writes beside vocab.json and merges.txt, which --train does not
 * write. transformers' AutoTokenizer reads tokenizer.json before vocab.json and merges.txt (and takes the special
 * tokens and the class from the other three), while attnviz --model reads vocab.json: one left from the model a
 * --train replaced, or copied in (GPT-2's tokenizer.json beside a toy model), gave other tokens in Python than
 * attnviz's trace of the new model (a learner's report). */
static const char *const kForeignTokenizerFiles[] = {"tokenizer.json", "tokenizer_config.json",
                                                     "special_tokens_map.json", "added_tokens.json"};

int av_train_foreign_tokenizer(const char *dir, char *out, size_t n) {
    char path[4200];
    int found = 0;
    if (n) out[0] = 0;
    for (size_t i = 0; i < sizeof kForeignTokenizerFiles / sizeof kForeignTokenizerFiles[0]; i++) {
        struct stat st;
        av_path_join(path, sizeof path, dir, kForeignTokenizerFiles[i]);
        if (lstat(path, &st) != 0 || S_ISDIR(st.st_mode)) continue; /* as remove_foreign_tokenizer skips it */
        if (n) snprintf(out + strlen(out), n - strlen(out), " %s", kForeignTokenizerFiles[i]);
        found++;
    }
    return found;
}

/* Remove kForeignTokenizerFiles from dir once this run's model is saved there, with a note (remove_noted): they
 * describe a tokenizer this run did not write, which Hugging Face would read in place of its vocab.json and
 * merges.txt. Only regular files and links go (a folder of that name is left). Error: AV_ERUNTIME naming the
 * file that cannot be removed. */
static av_status remove_foreign_tokenizer(const char *dir, av_err *err) {
    return remove_noted(dir, kForeignTokenizerFiles, sizeof kForeignTokenizerFiles / sizeof kForeignTokenizerFiles[0],
                        1, "tokenizer file", " that this run did not write",
                        ", which Hugging Face's AutoTokenizer would read in place of the new model's vocab.json and "
                        "merges.txt", "a tokenizer file this run did not write, which Hugging Face would read in "
                        "place of the new vocab.json and merges.txt", err);
}

static void keep_other_runs_figures(const char *dir, int compare, av_written *keep); /* --compare's section */
static void free_kept(av_written *keep);

/* "; DIR/compare_scale.png and .svg not written" into out (n bytes) for a --compare run's Ctrl-C
 * messages, "" for a plain run. */
static void compare_not_written(char *out, size_t n, const av_train_opts *o) {
    char name[64], path[4200];
    out[0] = 0;
    if (o->compare == AV_TRAIN_CMP_NONE) return;
    snprintf(name, sizeof name, "compare_%s.png", kCompareWhat[o->compare]); /* the .png one shell word */
    av_path_join(path, sizeof path, o->outdir, name);
    snprintf(out, n, "; %s and .svg not written", AV_SHOWN_WORD(path, 349));
}

/* kTrainOutputs[from] to [to - 1] as a list into out (n bytes): "train.csv, curves.png and curves.svg". */
static void output_names(char *out, size_t n, size_t from, size_t to) {
    out[0] = 0;
    for (size_t i = from; i < to; i++) {
        size_t k = strlen(out);
        snprintf(out + k, n - k, "%s%s", i == from ? "" : i + 1 == to ? " and " : ", ", kTrainOutputs[i]);
    }
}

/* What a Ctrl-C is told into msg (AV_INTERRUPT_MSG_MAX bytes) once r's model is saved in r->dir and the first
 * `done` of kTrainOutputs are written, each by name: "the trained model in m was saved with train.csv, curves.png
 * and curves.svg, but filmstrip.png, filmstrip.svg and attention.gif are not written: rerun ...". It said "its
 * training figures and train.csv are not all written" whichever were, unlike the error of a failure there (a
 * learner's pass: what is in DIR?). With --compare, in parentheses, what the other variant folders hold and that
 * the comparison is not written. stale (with done 0): see saved_message. */
static void saved_message_of(char *msg, const run_state *r, int done, int stale) {
    size_t n_out = sizeof kTrainOutputs / sizeof kTrainOutputs[0];
    char cmp[400], with[160], missing[160];
    compare_not_written(cmp, sizeof cmp, r->o);
    output_names(with, sizeof with, 0, (size_t)done);
    output_names(missing, sizeof missing, (size_t)done, n_out);
    const char *others = r->others, *rest = others[0] ? others + 2 : cmp[0] ? cmp + 2 : ""; /* others begins "; " */
    if ((size_t)done == n_out) { /* all six: as write_outputs's message once the run is complete */
        snprintf(msg, AV_INTERRUPT_MSG_MAX, "%sattnviz: interrupted: the trained model in %s was saved with its "
                 "training figures and train.csv%s%s%s%s\n", r->o->tty ? "\n" : "", AV_SHOWN_WORD(r->dir, 349),
                 rest[0] ? " (" : "", rest, others[0] ? cmp : "", rest[0] ? ")" : "");
        return;
    }
    snprintf(msg, AV_INTERRUPT_MSG_MAX, "%sattnviz: interrupted: the trained model in %s was saved%s%s, but %s %s not "
             "written%s%s%s%s%s: rerun the same command (the same seed gives the same model) to write them\n",
             r->o->tty ? "\n" : "", AV_SHOWN_WORD(r->dir, 349), done ? " with " : "", with, missing,
             n_out - (size_t)done == 1 ? "is" : "are", stale ? " (those there are the replaced model's)" : "",
             rest[0] ? " (" : "", rest, others[0] ? cmp : "", rest[0] ? ")" : "");
}

/* saved_message_of with stale 0. With stale 1 (done 0) it adds that the files of kTrainOutputs's names in r->dir
 * are the replaced model's (" (those there are the replaced model's)"): from the model's rename to remove_outputs
 * an earlier run's train.csv and figures are still there, and a Ctrl-C said they were "not written" beside them
 * (a review of the change). */
static void saved_message(char *msg, const run_state *r, int done) {
    saved_message_of(msg, r, done, 0);
}

/* 1 if dir holds any of kTrainOutputs (an earlier run's), else 0. */
static int outputs_present(const char *dir) {
    char path[4200];
    struct stat st;
    for (size_t i = 0; i < sizeof kTrainOutputs / sizeof kTrainOutputs[0]; i++) {
        av_path_join(path, sizeof path, dir, kTrainOutputs[i]);
        if (lstat(path, &st) == 0) return 1;
    }
    return 0;
}

/* Begin writing kTrainOutputs[*done] (a one-file av_afile_set, io/fileio.h): from the moment it is renamed into
 * place a Ctrl-C is told it is written (saved_message, into msg, which must live until output_end). NULL r: no
 * message (--compare's own figure). */
static void output_begin(av_afile_set *set, char *msg, const run_state *r, const int *done) {
    av_afile_set_begin(set);
    if (!r || !done) return;
    saved_message(msg, r, *done + 1);
    set->renamed_msg = msg;
}

/* End output_begin's set: s (the writer's status) nonzero removes the file's temporary; else it is renamed in and
 * *done counts it. Errors: s, or av_afile_set_end's rename error. */
static av_status output_end(av_afile_set *set, av_status s, int *done, av_err *err) {
    if (s) {
        av_afile_set_end(set, 0, NULL);
        return s;
    }
    s = av_afile_set_end(set, 1, err);
    if (!s && done) (*done)++;
    return s;
}

/* The model and its outputs into dir. others: as run_one's, what --compare's other variant folders hold
 * ("" for none), for the Ctrl-C message once the model is saved. */
static av_status write_outputs(run_state *r, const char *dir, const char *others, av_err *err) {
    const av_train_opts *o = r->o;
    const char *task = av_task_name(o->task);
    int T = r->probe.T;
    char labels[AV_TASK_MAX_T][24], title[400], vlabel[96], diverged[128];
    const char *lp[AV_TASK_MAX_T];
    unsigned char mask[AV_TASK_MAX_T * AV_TASK_MAX_T];
    for (int t = 0; t < T; t++) { token_label(labels[t], sizeof labels[t], r->probe.tokens[t]); lp[t] = labels[t]; }
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++) mask[i * T + j] = j > i;
    variant_label(vlabel, sizeof vlabel, o, 0);
    char run[32], weights[300];
    train_run_id(run, o);
    /* a run whose held-out loss rose says so in its own figures too: its film strip, curves and GIF were titled
     * "trained on reverse for 200 steps" like a run that learnt, while the warning and --model's figures of the
     * folder said it diverged (a new user's report) */
    diverged_words(diverged, sizeof diverged, &r->log);
    train_weights_note(weights, sizeof weights, o, diverged);
    av_plot_meta meta = {.description = o->command_line, .weights = weights, .run = run, .dpi = o->dpi,
                         .scale = o->fig_scale};
    /* from the moment the model's files are renamed in, a Ctrl-C leaves the new model with some of its figures:
     * say so, and leave none of the model's predecessor (its attention.gif said "trained on sort" beside a reverse
     * model: a new user's report); with --compare, in parentheses, what the other variant folders hold and that
     * the comparison is not written, as the message during training says (it named only this variant's folder
     * while the others were still empty: a tester's report) */
    char msg[AV_INTERRUPT_MSG_MAX], cmp[400];
    compare_not_written(cmp, sizeof cmp, o);
    const char *sd = AV_SHOWN_WORD(dir, 349);
    const char *rest = others[0] ? others + 2 : cmp[0] ? cmp + 2 : ""; /* others begins "; " */
    int stale = outputs_present(dir);
    saved_message_of(msg, r, 0, stale);
    char other_dump[1024]; /* holds_dump_of_model's weights line, whole */
    int dumped = holds_dump_of_model(dir, other_dump, sizeof other_dump); /* before the model it names is replaced */
    av_status s = write_model(dir, &r->tr, o, task, held_out_rose(&r->log), msg, err);
    int written = !s; /* the model's files are in: an error from here on says so */
    if (!s) s = remove_outputs(dir, kTrainOutputs, sizeof kTrainOutputs / sizeof kTrainOutputs[0],
                               "written for the model this run replaced", err);
    if (!s && stale) { /* they are gone: "not written" is now the whole truth */
        saved_message(msg, r, 0);
        av_interrupt_message(msg);
    }
    if (!s && dumped == 1) s = remove_replaced_dump(dir, err);
    if (!s && dumped >= 2) note_kept_dump(dir, other_dump, dumped);
    if (!s) s = remove_foreign_tokenizer(dir, err);
    double diff = 0;
    if (!s) s = check_checkpoint(dir, r, &diff, err); /* first: a later failure can say the model is whole */
    int saved = !s, done = 0; /* of kTrainOutputs, written in its order */
    static av_afile_set set; /* output_begin's; 130 KB, not on the stack */
    char said[AV_INTERRUPT_MSG_MAX];
    if (!s) {
        output_begin(&set, said, r, &done);
        s = output_end(&set, write_csv(dir, &r->log, err), &done, err);
    }
    char model[160];
    snprintf(model, sizeof model, "%d layer%s, %d head%s, d_model %d · %s", o->layers, o->layers == 1 ? "" : "s",
             o->heads, o->heads == 1 ? "" : "s", o->d_model, vlabel);
    /* "for N steps from random initialisation": the rows and curves run from step 0, the random weights, and
     * "trained on reverse, step 4000" read as one snapshot (a figure-maker's report) */
    snprintf(title, sizeof title, "trained on %s for %d step%s from random initialisation (seed %llu) · %s%s%s",
             task, o->steps, o->steps == 1 ? "" : "s", (unsigned long long)o->seed, model, diverged[0] ? " · " : "",
             diverged);
    log_fig lf = {.g = &r->log, .title = title};
    if (!s) s = png_and_svg(dir, "curves", curves_fig, &lf, &meta, r, &done, NULL, err);
    char probe[300]; /* probe_label: 26 bytes of words and two texts of up to 127 */
    probe_label(probe, sizeof probe, &r->probe);
    strip_fig sf = {.g = &r->log, .title = title, .model = model, .probe = probe, .diverged = diverged, .tokens = lp,
                    .mask = mask};
    if (!s) s = png_and_svg(dir, "filmstrip", strip_fig_fn, &sf, &meta, r, &done, NULL, err);
    if (!s) {
        output_begin(&set, said, r, &done);
        s = output_end(&set, write_gif(dir, &sf, task, &meta, err), &done, err);
    }
    char word[149]; /* the folder as a command names it, to paste (av_shell_word) */
    av_shell_word(word, sizeof word, dir);
    /* a full disk at curves.svg: the user may keep the trained model; a file of the replaced model that cannot be
     * removed (an immutable tokenizer.json): the model is saved too, and the figures of the one it replaced are
     * gone (the error said neither: a tester's report) */
    if (s && written) {
        /* the files this run did not write, by name: "the training figures and train.csv are not all written"
         * named train.csv, written whole before curves.png failed; and "rerun the same command" alone failed again
         * on the disk that was full, where the new model.safetensors is written beside the old one before it
         * replaces it (a tester's pass: a 520 KiB tmpfs) */
        size_t n_out = sizeof kTrainOutputs / sizeof kTrainOutputs[0];
        char missing[160], path[4200], room[64] = "";
        output_names(missing, sizeof missing, (size_t)done, n_out);
        struct stat st;
        av_path_join(path, sizeof path, dir, "model.safetensors");
        if (stat(path, &st) == 0 && st.st_size >= 1024 * 1024) /* "99723 KiB" at d_model 1024 */
            snprintf(room, sizeof room, ", %.0f MiB,", ceil((double)st.st_size / (1024 * 1024)));
        else if (stat(path, &st) == 0)
            snprintf(room, sizeof room, ", %.0f KiB,", ceil((double)st.st_size / 1024));
        av_fail_append(err, "; the trained model was saved%s before this error "
                 "(attnviz --model %s runs it), but %s %s not written: to write them, fix the cause and rerun the "
                 "same command (the same seed gives the same model; it writes the new model.safetensors%s beside "
                 "this one before replacing it, so a full disk needs that much room more) or rerun it with another "
                 "-o", saved ? " and checked" : "", word, missing,
                 n_out - (size_t)done == 1 ? "is" : "are", room);
    }
    av_written keep; /* a plain run's folder: another --compare's figures stay with its variant folders */
    keep_other_runs_figures(dir, o->compare, &keep);
    if (!s) s = av_figures_remove_stale(dir, "", run, &keep, err); /* e.g. head0.png of a run before */
    free_kept(&keep);
    if (!s) { /* all written: a Ctrl-C from here to the exit ended the run with 130 and not a word (a new user's
               * report: was the folder whole?); run_one keeps this message to the exit */
        snprintf(msg, sizeof msg, "%sattnviz: interrupted %s: the trained model in %s was saved with its "
                 "training figures and train.csv%s%s%s%s\n", o->tty ? "\n" : "",
                 others[0] ? "between --compare's variants" : "after the run was complete", sd, rest[0] ? " (" : "",
                 rest, others[0] ? cmp : "", rest[0] ? ")" : "");
        av_interrupt_message(msg);
    }
    if (!s && !o->quiet) { /* a narrow terminal breaks the lines between the pieces */
        av_line line = {.n = 0};
        static const char *const files[] = {" config.json", " model.safetensors", " vocab.json", " merges.txt,",
                                            " filmstrip.png/.svg,", " attention.gif,", " curves.png/.svg,", " train.csv"};
        av_line_add(&line, "wrote"); /* a long path may go to the next line whole */
        av_line_add(&line, " %s:", dir);
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) av_line_add(&line, "%s", files[i]);
        av_line_print(r->out, &line, av_line_cols(r->out), 2);
        line.n = 0;
        av_line_add(&line, "reloaded");
        av_line_add(&line, " %s", dir);
        av_line_add(&line, " with --model's loader:");
        av_line_add(&line, " probe logits differ by at most %.3g", diff);
        av_line_print(r->out, &line, av_line_cols(r->out), 2);
    }
    return s;
}

/* The model o trains: GPT-2's layout at o's sizes, over the toy vocabulary. */
static void train_config(av_gpt2_config *cfg, const av_train_opts *o) {
    av_gpt2_config_defaults(cfg);
    cfg->n_layer = o->layers; cfg->n_head = o->heads; cfg->n_embd = o->d_model;
    cfg->n_positions = AV_TASK_MAX_T; cfg->vocab_size = AV_TOY_VOCAB; cfg->layer_norm_epsilon = 1e-5;
    cfg->positions = o->positions; cfg->norm = o->norm; cfg->scale = o->scale;
    if (o->positions == AV_POS_ROPE && o->rope_base > 0) cfg->rope_base = o->rope_base;
    if (o->positions == AV_POS_ROPE) cfg->rope_style = o->rope_style; /* else GPT-2's: another layout would
         * write them into config.json, and a learned-positions folder would no longer be a Hugging Face GPT-2 */
    cfg->kernel = o->reference ? AV_KERNEL_REFERENCE : AV_KERNEL_BLAS;
}

/* AV_EUSAGE when o's trainer (nn/train.h av_trainer_bytes) needs more than AV_MAX_TRAIN_BYTES. */
static av_status check_train_size(const av_train_opts *o, av_err *err) {
    av_gpt2_config cfg;
    train_config(&cfg, o);
    size_t need = av_trainer_bytes(&cfg, o->batch);
    char gib[32];
    if (need > AV_MAX_TRAIN_BYTES)
        return av_fail(err, AV_EUSAGE, "--train with d_model %d, %d layer%s, %d head%s and batch %d needs at least %s "
                       "GiB (parameters, gradients, AdamW moments, activations), more than the %zu GiB allowed; try a "
                       "smaller --d-model, --layers, --heads (each keeps (batch, T, T) attention weights a layer) or "
                       "--batch", o->d_model, o->layers, o->layers == 1 ? "" : "s", o->heads, o->heads == 1 ? "" : "s",
                       o->batch, av_gib_over(gib, (double)need, (double)AV_MAX_TRAIN_BYTES), AV_MAX_TRAIN_BYTES >> 30);
    return AV_OK;
}

/* An "out of memory ..." error from the trainer's allocations (nn/train.c: "for the parameters", "for the
 * gradients", ...) gets what the model needs and what to lower, as check_train_size's refusal over
 * AV_MAX_TRAIN_BYTES says it: `ulimit -v 300000; attnviz --train reverse -d 1024` said only "out of memory for
 * the parameters" (a tester's pass). The size is av_trainer_bytes's lower bound, in MiB or GiB; a process
 * memory limit (RLIMIT_AS, as ulimit -v sets it) is named when there is one. Other errors are left alone. */
static void train_oom_advice(const av_train_opts *o, av_err *err) {
    if (strncmp(err->msg, "out of memory", 13) != 0) return;
    av_gpt2_config cfg;
    train_config(&cfg, o);
    double need = (double)av_trainer_bytes(&cfg, o->batch);
    char size[32], limit[96] = "";
    if (need >= 1024.0 * 1024 * 1024) snprintf(size, sizeof size, "%.1f GiB", need / (1024.0 * 1024 * 1024));
    else snprintf(size, sizeof size, "%.0f MiB", ceil(need / (1024.0 * 1024)));
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        snprintf(limit, sizeof limit, " under the process's memory limit (ulimit -v %llu)",
                 (unsigned long long)(rl.rlim_cur / 1024));
    av_fail_append(err, ": --train with d_model %d, %d layer%s, %d head%s and batch %d needs at least %s (parameters, "
                   "gradients, AdamW moments, activations), more than there is room for%s; try a smaller --d-model, "
                   "--batch or --layers", o->d_model, o->layers, o->layers == 1 ? "" : "s", o->heads,
                   o->heads == 1 ? "" : "s", o->batch, size, limit);
}

/* What an interrupted run leaves in dir: "was made for this run and is
 * removed" (an empty folder av_mkdir_p made: the signal handler and main's
 * exit take it away, io/fileio.h av_remove_empty_made_folders), "... is
 * kept" (one it made, that something else put files in), "is empty" (one
 * that was there, empty) or "keeps what it held". */
static const char *left_in(const char *dir) {
    DIR *d = opendir(dir);
    int empty = d != NULL;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) { empty = 0; break; }
    if (d) closedir(d);
    if (!empty) /* a folder made for this run holds only what was put in it while it trained: it stays */
        return av_folder_made_here(dir) ? "was made for this run and is kept: it holds files this run did not write"
                                        : "keeps what it held";
    return av_folder_made_here(dir) ? "was made for this run and is removed" : "is empty";
}

/* Train o's model into dir. others ("" for none) ends the Ctrl-C message's
 * parenthesis: what --compare's other variant folders hold. */
static av_status run_one(const av_train_opts *o, const char *dir, const char *others, train_log *out_log, FILE *out,
                         av_err *err) {
    run_state r = {.o = o, .out = out, .dir = dir, .others = others};
    av_gpt2_config cfg;
    train_config(&cfg, o);
    av_adamw opt = {.beta1 = 0.9, .beta2 = 0.98, .eps = 1e-9, .weight_decay = o->weight_decay, .max_norm = 1.0,
                    .schedule = o->schedule, .lr_max = o->lr, .lr_min = o->lr / 10, .warmup = o->warmup,
                    .steps = o->steps, .d_model = o->d_model};
    av_task_probe(&r.probe, o->task);
    /* size, foreign model files and a writable dir: av_train_run checked them all before its header */
    av_status s = av_trainer_init(&r.tr, &cfg, &opt, o->seed, err);
    if (s) train_oom_advice(o, err);
    if (s) return s;
    r.batch = calloc((size_t)o->batch, sizeof *r.batch);
    r.heldout = calloc(N_HELDOUT, sizeof *r.heldout);
    if (!r.batch || !r.heldout) s = av_fail(err, AV_ERUNTIME, "out of memory for the training data");
    av_rng hr;
    av_rng_seed(&hr, o->seed ^ 0x48454C444F5554ull); /* "HELDOUT": a stream apart from the training batches */
    for (int i = 0; !s && i < N_HELDOUT; i++) av_task_sample(&r.heldout[i], o->task, &hr);
    if (!s) s = av_task_set_init(&r.heldout_set, r.heldout, N_HELDOUT, err);
    if (!s) s = log_alloc(&r.log, o->layers, o->heads, r.probe.T, o->steps, err);
    stop_message(&r); /* a Ctrl-C until the model is written (write_outputs says what after) and none once the
                       * run is over */
    if (!s) s = train_loop(&r, err);
    if (s) train_oom_advice(o, err); /* write_outputs's own say what was saved */
    if (!s) s = write_outputs(&r, dir, others, err);
    if (s) av_interrupt_message(NULL); /* the error says what is left; else write_outputs's "complete" stays */
    int last = r.log.n_snap - 1;
    if (!s && held_out_rose(&r.log)) {
        char lr[128];
        lr_now(lr, sizeof lr, o);
        av_message(stderr, "attnviz: warning: %s: the held-out loss rose from %.4f at step 0 to %.4f at step %d: "
                "training diverged; try a smaller --lr (now %s)\n", AV_SHOWN_WORD(dir, 4200), r.log.ho_loss[0], r.log.ho_loss[last],
                r.log.snap_step[last], lr);
    }
    free(r.batch);
    free(r.heldout);
    av_task_set_free(&r.heldout_set);
    av_trainer_free(&r.tr);
    if (!s && out_log) *out_log = r.log;
    else log_free(&r.log);
    return s;
}

/* ---------------------------------------------------------------------------- --compare */

typedef struct {
    const train_log *logs;
    const char *const *names;
    int n;
    const char *title;
} cmp_fig;

/* What a --compare variant folder's name means, for the figure's legend. */
static const char *variant_meaning(const char *name) {
    static const char *const kMeaning[][2] = {{"scale", "÷√d_k"},    {"no-scale", "no ÷√d_k"}, {"pre-ln", "Pre-LN"},
                                              {"post-ln", "Post-LN"}, {"learned", "GPT-2 wpe"},  {"sinusoidal", "sin/cos"},
                                              {"rope", "rotary"}}; /* short: a legend entry has 1/3 of a panel */
    for (size_t k = 0; k < sizeof kMeaning / sizeof kMeaning[0]; k++)
        if (strcmp(name, kMeaning[k][0]) == 0) return kMeaning[k][1];
    return "";
}

static av_status compare_fig(const char *path, const void *ctx, const av_plot_meta *meta, av_err *err) {
    const cmp_fig *c = ctx;
    av_series s[3][4];
    char label[4][2][64]; /* what each variant is ("scale: ÷√d_k"), and which head the last panel follows */
    double x[4][MAX_SNAP], ya[4][MAX_SNAP], xb[4][MAX_SNAP], yb[4][MAX_SNAP];
    double *steps = malloc(((size_t)c->logs[0].steps + 1) * sizeof(double));
    if (!steps) return av_fail(err, AV_ERUNTIME, "out of memory drawing the comparison");
    for (int i = 0; i <= c->logs[0].steps; i++) steps[i] = i;
    for (int v = 0; v < c->n; v++) {
        const train_log *g = &c->logs[v];
        int LH = g->L * g->H, best = 0;
        for (int i = 1; i < LH; i++)
            if (g->aot[(size_t)(g->n_snap - 1) * LH + i] > g->aot[(size_t)(g->n_snap - 1) * LH + best]) best = i;
        snprintf(label[v][0], sizeof label[v][0], "%s: %s", c->names[v], variant_meaning(c->names[v]));
        snprintf(label[v][1], sizeof label[v][1], "%s: L%d H%d", c->names[v], best / g->H, best % g->H);
        s[0][v] = (av_series){.label = label[v][0], .x = steps + 1, .y = g->loss + 1, .n = g->steps};
        snap_accuracy(&s[1][v], x[v], ya[v], g, label[v][0]);
        snap_series(&s[2][v], xb[v], yb[v], g, g->aot + best, (size_t)LH, label[v][1]);
    }
    av_curve_panel p[3] = { /* symlog steps, as curves.png */
        /* underlay: the variants share their first steps, where the last drawn hid the others */
        {.title = "training loss (every step)", .y_label = "loss (nats)", .s = s[0], .n_series = c->n, .x_symlog = 1,
         .underlay = 1},
        {.title = "held-out sequence accuracy, at snapshots", .y_label = "accuracy (%)", .s = s[1], .n_series = c->n,
         .ymin = 0, .ymax = 100, .x_symlog = 1, .underlay = 1},
        {.title = "on target: best head at the end", .y_label = "attention weight", .s = s[2], .n_series = c->n,
         .ymin = 0, .ymax = 1, .x_symlog = 1, .underlay = 1},
    };
    av_status st = av_plot_curves(path, p, 3, c->title, "training step (log scale from 0)", meta, err);
    free(steps);
    return st;
}

/* Each --compare's variant folders under -o, in training order (the rope
 * folder is left out when d_k is odd). */
static const char *const kVariantDirs[][3] = {
    [AV_TRAIN_CMP_SCALE] = {"scale", "no-scale"},
    [AV_TRAIN_CMP_NORM] = {"pre-ln", "post-ln"},
    [AV_TRAIN_CMP_POSITIONS] = {"learned", "sinusoidal", "rope"},
};

const char *av_train_variant_dir(int compare, int i) {
    int n = sizeof kVariantDirs / sizeof kVariantDirs[0];
    return compare > AV_TRAIN_CMP_NONE && compare < n && i >= 0 && i < 3 ? kVariantDirs[compare][i] : NULL;
}

/* The variants of --compare WHAT, applied to o; returns how many (2 or 3).
 * positions leaves out rope with an odd d_k (RoPE rotates pairs of
 * dimensions) and writes why into left_out (n bytes), else "". */
static int compare_variants(av_train_opts *v, const char **names, const av_train_opts *o, char *left_out, size_t n) {
    left_out[0] = 0;
    for (int i = 0; i < 3; i++) v[i] = *o;
    switch (o->compare) {
    case AV_TRAIN_CMP_SCALE:
        v[0].scale = 1; v[1].scale = 0;
        names[0] = kVariantDirs[o->compare][0]; names[1] = kVariantDirs[o->compare][1];
        return 2;
    case AV_TRAIN_CMP_NORM:
        v[0].norm = AV_NORM_PRE; v[1].norm = AV_NORM_POST;
        names[0] = kVariantDirs[o->compare][0]; names[1] = kVariantDirs[o->compare][1];
        return 2;
    default:
        v[0].positions = AV_POS_LEARNED; v[1].positions = AV_POS_SINUSOIDAL; v[2].positions = AV_POS_ROPE;
        for (int i = 0; i < 3; i++) names[i] = kVariantDirs[AV_TRAIN_CMP_POSITIONS][i];
        return av_compare_rope_left_out(left_out, n, o->d_model, o->heads) ? 2 : 3;
    }
}

/* 1 if dir/sub holds a model (its config.json), e.g. a --compare variant folder. */
static int holds_model(const char *dir, const char *sub) {
    char d[4096], path[4200];
    av_path_join(d, sizeof d, dir, sub);
    av_path_join(path, sizeof path, d, "config.json");
    return access(path, F_OK) == 0;
}

/* The figures in dir of the earlier runs whose models dir still holds and
 * this run (compare: its --compare, or AV_TRAIN_CMP_NONE) does not replace:
 * compare_WHAT.png/.svg of another --compare whose variant folders hold a
 * config.json, and, for a --compare run, the curves and film strip of a plain
 * --train's model at the top. They describe models that stay, so
 * av_figures_remove_stale keeps them (it removed compare_norm.png while
 * pre-ln/ and post-ln/ stayed and were named: a new user's report). Adds
 * strdup'ed paths to keep (free them with free_kept); an allocation failure
 * keeps fewer. */
static void keep_other_runs_figures(const char *dir, int compare, av_written *keep) {
    char path[4200], name[64];
    keep->n = 0;
    for (int c = AV_TRAIN_CMP_SCALE; c <= AV_TRAIN_CMP_POSITIONS; c++) {
        int held = 0;
        for (int k = 0; k < 3 && kVariantDirs[c][k] && c != compare; k++) held |= holds_model(dir, kVariantDirs[c][k]);
        for (int e = 0; held && e < 2; e++) {
            snprintf(name, sizeof name, "compare_%s.%s", kCompareWhat[c], e ? "svg" : "png");
            av_path_join(path, sizeof path, dir, name);
            if ((keep->paths[keep->n] = strdup(path))) keep->n++;
        }
    }
    av_path_join(path, sizeof path, dir, "config.json");
    if (compare != AV_TRAIN_CMP_NONE && access(path, F_OK) == 0)
        for (size_t i = 1; i < sizeof kTrainOutputs / sizeof kTrainOutputs[0]; i++) { /* its figures, not train.csv */
            av_path_join(path, sizeof path, dir, kTrainOutputs[i]);
            if ((keep->paths[keep->n] = strdup(path))) keep->n++;
        }
}

static void free_kept(av_written *keep) {
    for (int i = 0; i < keep->n; i++) free(keep->paths[i]);
    keep->n = 0;
}

/* After a run into o->outdir: a note naming what an earlier run left there
 * that this one neither wrote nor removed, so "a folder holds one run" is
 * kept in what the user is told. Those are model folders, not figures, so
 * they are named, not deleted (av_figures_remove_stale removes only figures
 * attnviz recognises by their run id): the variant folders of another
 * --compare (any folder of kVariantDirs not in names[0..n-1], holding a
 * config.json) with its compare_WHAT figure, which stays with them, and with
 * --compare (n > 0) a model trained at the top of the folder by a plain
 * --train. */
static void note_other_runs(const av_train_opts *o, const char *const *names, int n) {
    char list[512] = "", path[4200];
    size_t len = 0;
    if (o->quiet) return;
    for (int c = AV_TRAIN_CMP_SCALE; c <= AV_TRAIN_CMP_POSITIONS; c++)
        for (int k = 0; k < 3 && kVariantDirs[c][k]; k++) {
            const char *d = kVariantDirs[c][k];
            int ours = 0;
            for (int i = 0; i < n; i++) ours |= !strcmp(names[i], d);
            if (!ours && holds_model(o->outdir, d) && len < sizeof list)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s/", len ? ", " : "", d);
        }
    for (int c = AV_TRAIN_CMP_SCALE; c <= AV_TRAIN_CMP_POSITIONS; c++) { /* their figures, which stay with them */
        char name[64];
        snprintf(name, sizeof name, "compare_%s.png", kCompareWhat[c]);
        av_path_join(path, sizeof path, o->outdir, name);
        if ((int)o->compare != c && access(path, F_OK) == 0 && len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%scompare_%s.png/.svg", len ? ", " : "",
                                    kCompareWhat[c]);
    }
    av_path_join(path, sizeof path, o->outdir, "config.json");
    if (n > 0 && access(path, F_OK) == 0 && len < sizeof list)
        len += (size_t)snprintf(list + len, sizeof list - len, "%sthe model of a plain --train (config.json, "
                                "model.safetensors, its figures)", len ? ", " : "");
    if (len)
        av_message(stderr, "attnviz: note: %s still holds what an earlier run wrote and this one did not replace: %s; "
                "remove it, or use another -o\n", AV_SHOWN_WORD(o->outdir, 4200), list);
}

/* A plain --train into a variant folder of an earlier --compare (`--train sort -o cmp/scale` after `--train
 * reverse --compare scale -o cmp`) replaces the model that cmp/compare_scale.png/.svg still draws as "scale",
 * and was told only that cmp/scale's model is replaced: a note names that figure, which the run leaves as it is
 * (it is the earlier run's, beside its other variants). dir: the run's -o, as typed. */
static void note_parent_comparison(const char *dir) {
    char parent[4096], name[256], path[4200];
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--; /* "cmp/scale/" */
    size_t b = len;
    while (b > 0 && dir[b - 1] != '/') b--;
    if (len - b >= sizeof name || b >= sizeof parent) return;
    memcpy(name, dir + b, len - b);
    name[len - b] = 0;
    if (b == 0) snprintf(parent, sizeof parent, ".");
    else snprintf(parent, sizeof parent, "%.*s", (int)(b > 1 ? b - 1 : 1), dir); /* "/scale": the root */
    for (int c = AV_TRAIN_CMP_SCALE; c <= AV_TRAIN_CMP_POSITIONS; c++)
        for (int k = 0; k < 3 && kVariantDirs[c][k]; k++) {
            if (strcmp(name, kVariantDirs[c][k]) != 0) continue;
            char file[64];
            snprintf(file, sizeof file, "compare_%s.png", kCompareWhat[c]);
            av_path_join(path, sizeof path, parent, file);
            if (access(path, F_OK) != 0) continue;
            av_message(stderr, "attnviz: note: %s and .svg, of an earlier --compare %s, draw the model this run "
                       "replaces as %s; they stay as they are: rerun that --compare to draw the new one\n",
                       AV_SHOWN_WORD(path, 349), kCompareWhat[c], name);
        }
}

/* Before the first step (so Ctrl-C can still keep it): a note for each
 * folder whose model of an earlier --train this run replaces, naming its task
 * and step. "removed 2 files of an earlier run" at the end was all a user was
 * told when `--train sort` replaced a trained reverse model. earlier: as
 * check_before_start gives it. Nothing with -q, as every note. */
static void note_replaced(const av_train_opts *o, char earlier[3][64]) {
    av_train_opts v[3];
    const char *names[3] = {""};
    char left_out[96];
    int n = o->compare == AV_TRAIN_CMP_NONE ? 1 : compare_variants(v, names, o, left_out, sizeof left_out);
    for (int i = 0; i < n && !o->quiet; i++) {
        if (!earlier[i][0]) continue;
        char dir[4096];
        if (names[i][0]) av_path_join(dir, sizeof dir, o->outdir, names[i]);
        else snprintf(dir, sizeof dir, "%s", o->outdir);
        av_message(stderr, "attnviz: note: %s holds the model of an earlier --train (%s); this run replaces it\n",
                AV_SHOWN_WORD(dir, 349), earlier[i]);
        if (!names[i][0]) note_parent_comparison(o->outdir);
    }
}

static av_status run_compare(const av_train_opts *o, FILE *out, av_err *err) {
    const char *const *what = kCompareWhat;
    av_train_opts v[3];
    const char *names[3];
    train_log logs[3];
    memset(logs, 0, sizeof logs); /* a failed run's log is freed too */
    char left_out[96];
    int n = compare_variants(v, names, o, left_out, sizeof left_out), done = 0;
    av_err why = {{0}}; /* the refusal --positions rope gives, with its choices (av_rope_dk_check) */
    if (left_out[0] && av_rope_dk_check(o->d_model, o->heads, NULL, &why))
        av_message(stderr, "attnviz: note: --compare %s leaves out rope: %s\n", what[o->compare], why.msg);
    char file[64], path[4200], png[80], svg[80];
    snprintf(file, sizeof file, "compare_%s", what[o->compare]);
    snprintf(png, sizeof png, "%s.png", file);
    snprintf(svg, sizeof svg, "%s.svg", file);
    /* an earlier compare_WHAT shows the variants this run replaces: it went stale beside a replaced scale/
     * when no-scale/ was interrupted */
    av_status s = remove_outputs(o->outdir, (const char *const[]){png, svg}, 2, "the comparison of the models this run replaces",
                       err);
    for (int i = 0; !s && i < n; i++, done++) {
        /* others: two folders of at most 249 bytes as shown, each with ~100 bytes of what it holds, whole: 640
         * bytes cut the second at any byte, and the messages' "%.300s" dropped it ("; /tmp/深…/s... was made for
         * this run and is removed, not trained" of a 243-byte -o, with no word of rope/); the messages are within
         * their 2 KB with it */
        char dir[4096], others[768] = "";
        av_path_join(dir, sizeof dir, o->outdir, names[i]);
        /* a Ctrl-C names every variant's folder: they are all made before the first step, and "scale/ is empty"
         * said nothing of the empty no-scale/ beside it */
        for (int j = 0; j < n; j++) {
            char dj[4096];
            size_t k = strlen(others);
            if (j == i) continue;
            av_path_join(dj, sizeof dj, o->outdir, names[j]);
            snprintf(others + k, sizeof others - k, "; %s %s%s", AV_SHOWN_WORD(dj, 249), j < i ? "holds its trained model" : left_in(dj),
                     j < i ? "" : ", not trained yet");
        }
        if (!o->quiet) { /* a long DIR goes to the next line whole on a narrow terminal */
            av_line line = {.n = 0};
            av_line_add(&line, "== --compare %s: %s ->", what[o->compare], names[i]);
            av_line_add(&line, " %s", dir);
            fputc('\n', out);
            av_line_print(out, &line, av_line_cols(out), 2);
        }
        s = run_one(&v[i], dir, others, &logs[i], out, err);
    }
    char title[480], odd[48] = "", held[128], rose[96] = "";
    if (left_out[0]) snprintf(odd, sizeof odd, " · no rope: d_k %d is odd", o->d_model / o->heads);
    /* the variants whose held-out loss rose, as their own folders' figures say it (diverged_words): the
     * comparison's curves of a diverged variant read as a result of the setting */
    for (int i = 0; !s && i < n; i++)
        if (held_out_rose(&logs[i])) {
            size_t k = strlen(rose);
            snprintf(rose + k, sizeof rose - k, "%s%s", k ? ", " : " · training diverged (held-out loss rose): ",
                     names[i]);
        }
    /* the model and lr too: the scale result turns over between lr 6e-3 and 3e-3 (docs/train.md); and the
     * settings held fixed, as the header says them ("learned positions, Pre-LN, ÷√d_k vs no scale"): the
     * figure on a slide did not say which positions or norm both variants had (a figure-maker's report) */
    variant_label(held, sizeof held, o, 1);
    char lr[64]; /* noam's --lr is the rule's factor: "lr 1" read as a learning rate of 1 (a new user's report) */
    av_adamw a = {.schedule = o->schedule, .lr_max = o->lr, .warmup = o->warmup, .d_model = o->d_model};
    if (o->schedule == AV_SCHED_NOAM) snprintf(lr, sizeof lr, "noam lr, peak %.3g at step %d", av_lr_at(&a, o->warmup),
                                               o->warmup);
    else snprintf(lr, sizeof lr, "%slr %g", o->schedule == AV_SCHED_CONSTANT ? "constant " : "", o->lr);
    /* "trained on": "reverse, 20 steps · ..." did not say whether the curves were of trained weights, random
     * ones or loaded ones, as every other figure's title does (a new user's report) */
    snprintf(title, sizeof title, "trained on %s for %d step%s from random initialisation · %d layer%s, %d head%s, "
             "d_model %d, %s · %s · --compare %s, same data, seed %llu%s%s", av_task_name(o->task), o->steps,
             o->steps == 1 ? "" : "s", o->layers, o->layers == 1 ? "" : "s", o->heads,
             o->heads == 1 ? "" : "s", o->d_model, lr, held, what[o->compare], (unsigned long long)o->seed, odd, rose);
    cmp_fig c = {.logs = logs, .names = names, .n = n, .title = title};
    char run[32], weights[160];
    train_run_id(run, o);
    train_weights_note(weights, sizeof weights, o, "");
    av_plot_meta meta = {.description = o->command_line, .weights = weights, .run = run, .dpi = o->dpi,
                         .scale = o->fig_scale};
    /* all written and the earlier run's files removed: from there to the exit a Ctrl-C said nothing (as
     * write_outputs) */
    char complete[AV_INTERRUPT_MSG_MAX];
    av_path_join(path, sizeof path, o->outdir, file);
    strncat(path, ".png", sizeof path - strlen(path) - 1); /* the .png one shell word, as the folder */
    snprintf(complete, sizeof complete, "%sattnviz: interrupted after the run was complete: every variant's trained "
             "model was saved with its figures and train.csv under %s, and %s and .svg were written\n",
             o->tty ? "\n" : "", AV_SHOWN_WORD(o->outdir, 349), AV_SHOWN_WORD(path, 349));
    if (!s) { /* a Ctrl-C now: every variant is whole, only the comparison is missing (it had no message) */
        char msg[AV_INTERRUPT_MSG_MAX], png_in[AV_INTERRUPT_MSG_MAX], svg_in[AV_INTERRUPT_MSG_MAX], list[850] = "",
            svg_path[4300];
        for (int i = 0; i < n; i++) {
            size_t k = strlen(list);
            av_path_join(path, sizeof path, o->outdir, names[i]);
            snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", AV_SHOWN_WORD(path, 249));
        }
        av_path_join(path, sizeof path, o->outdir, file);
        av_path_join(svg_path, sizeof svg_path, o->outdir, svg);
        strncat(path, ".png", sizeof path - strlen(path) - 1); /* the .png one shell word, as the folder */
        snprintf(msg, sizeof msg, "%sattnviz: interrupted: every variant's trained model was saved with its figures "
                 "and train.csv (%s), but %s and .svg are not written: rerun the same command (the same "
                 "seed gives the same models) to write them\n", o->tty ? "\n" : "", list, AV_SHOWN_WORD(path, 349));
        /* from the .png's rename: it said "compare_X.png and .svg are not all written" beside the .png (a
         * review of the Ctrl-C messages) */
        snprintf(png_in, sizeof png_in, "%sattnviz: interrupted: every variant's trained model was saved with its "
                 "figures and train.csv (%s), and %s was written, but %s is not: rerun the same command (the same "
                 "seed gives the same models) to write it\n", o->tty ? "\n" : "", list, AV_SHOWN_WORD(path, 349),
                 AV_SHOWN_WORD(svg_path, 349));
        /* from the .svg's rename, before an earlier run's figures are removed: "complete" there was said while they
         * stood (a review of the change; write_outputs says it only after the removal) */
        snprintf(svg_in, sizeof svg_in, "%sattnviz: interrupted: every variant's trained model was saved with its "
                 "figures and train.csv (%s), and %s and .svg were written\n", o->tty ? "\n" : "", list,
                 AV_SHOWN_WORD(path, 349));
        av_interrupt_message(msg);
        const char *const told[2] = {png_in, svg_in};
        s = png_and_svg(o->outdir, file, compare_fig, &c, &meta, NULL, NULL, told, err);
    }
    av_written keep;
    keep_other_runs_figures(o->outdir, o->compare, &keep);
    if (!s) s = av_figures_remove_stale(o->outdir, "", run, &keep, err);
    if (s) av_interrupt_message(NULL);
    else av_interrupt_message(complete);
    free_kept(&keep);
    for (int i = 0; !s && i < n; i++) { /* the comparison was asked for: printed even with -q, as --compare's table */
        const train_log *g = &logs[i];
        int last = g->n_snap - 1, first90 = -1, LH = g->L * g->H;
        double best = -1;
        int best_j = 0; /* named as the log's snapshot lines name it, "L0 H3", so it can be found in the film strip */
        for (int k = 0; k < g->n_snap; k++)
            if (first90 < 0 && g->acc[k] >= 0.9) first90 = g->snap_step[k];
        for (int j = 0; j < LH; j++)
            if (g->aot[(size_t)last * LH + j] > best) best = g->aot[(size_t)last * LH + j], best_j = j;
        char when[32] = "never";
        if (first90 >= 0) snprintf(when, sizeof when, "step %d", first90);
        av_line line = {.n = 0}; /* a narrow terminal breaks the line between the pieces */
        av_line_add(&line, "%-11s", names[i]);
        char ho[16]; /* "0.0000" hid a held-out loss of 3e-05, as in the log (av_train_loss_text) */
        snprintf(ho, sizeof ho, "%.4f", g->ho_loss[last]);
        small_loss_seen(ho, g->ho_loss[last]);
        av_line_add(&line, " held-out loss %s", ho);
        av_line_add(&line, "  accuracy %5.1f %%", 100 * g->acc[last]);
        av_line_add(&line, "  best head on target %.2f (L%d H%d)", best, best_j / g->H, best_j % g->H);
        av_line_add(&line, "  first snapshot >= 90 %%: %s", when);
        av_line_print(out, &line, av_line_cols(out), 2);
    }
    if (!s && left_out[0]) fprintf(out, "%-11s left out: %s\n", "rope", left_out);
    if (!s) note_other_runs(o, names, n);
    if (!s && !o->quiet) {
        av_path_join(path, sizeof path, o->outdir, file);
        av_line line = {.n = 0}; /* a long path goes to the next line whole, as in the variants' "wrote" */
        av_line_add(&line, "wrote");
        av_line_add(&line, " %s.png", path);
        av_line_add(&line, " and .svg");
        av_line_print(out, &line, av_line_cols(out), 2);
    }
    for (int i = 0; i < done; i++) log_free(&logs[i]);
    return s;
}

/* ---------------------------------------------------------------------------- entry */

/* The files a run writes into its folder, at its end (write_outputs). */
static const char *const kRunFiles[] = {"config.json", "model.safetensors", "vocab.json", "merges.txt", "filmstrip.png",
                                        "filmstrip.svg", "attention.gif", "curves.png", "curves.svg", "train.csv"};

const char *const *av_train_file_names(size_t *n) {
    *n = sizeof kRunFiles / sizeof kRunFiles[0];
    return kRunFiles;
}

/* A name the run writes at its end, taken by a folder (or anything but a
 * file: the atomic rename cannot replace it), stopped the run there, after
 * all its training, with half its files written (a new user's `mkdir
 * DIR/curves.png`): refused before training, AV_ERUNTIME as an unwritable -o. */
static av_status check_names_free(const char *dir, const char *const *names, size_t n, av_err *err) {
    for (size_t i = 0; i < n; i++) {
        char path[4200];
        struct stat sb;
        av_path_join(path, sizeof path, dir, names[i]);
        if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode))
            return av_fail(err, AV_ERUNTIME, "%s is %s, and the run writes a file of that name there when it ends; "
                           "move or remove it first", AV_SHOWN_WORD(path, 4200), S_ISDIR(sb.st_mode) ? "a folder" : "not a regular file");
    }
    return AV_OK;
}

/* --compare's figure is written into dir itself, beside the variant folders
 * names[0..n-1] ("scale", "no-scale"): compare_WHAT.png and .svg (png, svg;
 * WHAT = compare, an av_train_compare). An earlier --compare WHAT into dir
 * left them beside a model in at least one of its folders
 * (kVariantDirs[compare], rope/ too when an odd d_k leaves it out now): it
 * writes them only after its models, and a Ctrl-C that kept none removes the
 * folders it made. Without any such model a file of either name is someone
 * else's, or another kind of run's (a sentence's --compare scale), and
 * run_compare removed it at its start without a word (`--train reverse
 * --compare scale -o DIR` over a user's DIR/compare_scale.png: a learner's
 * pass). Errors: AV_EUSAGE for such a file, naming it and names, as
 * check_not_a_foreign_model refuses a train.csv without a model. Call after
 * every variant folder passed that check. */
static av_status check_not_a_foreign_comparison(const char *dir, int compare, const char *const *names, int n,
                                                const char *png, const char *svg, av_err *err) {
    for (int k = 0; k < 3 && kVariantDirs[compare][k]; k++) /* rope/ too when this run leaves it out (odd d_k) */
        if (holds_model(dir, kVariantDirs[compare][k])) return AV_OK;
    const char *figs[2] = {png, svg};
    char list[96] = ""; /* "scale/ or no-scale/", "learned/, sinusoidal/ or rope/" */
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s/", i == 0 ? "" : i == n - 1 ? " or " : ", ",
                 names[i]);
    for (int k = 0; k < 2; k++) {
        char path[4200];
        struct stat st;
        av_path_join(path, sizeof path, dir, figs[k]);
        if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
            return av_fail(err, AV_EUSAGE, "-o %s holds %s but no model attnviz trained in %s, so it is not this "
                           "tool's output of an earlier --train --compare; --train would overwrite it: give another "
                           "folder, or remove it", AV_SHOWN_WORD(dir, 4200), figs[k], list);
    }
    return AV_OK;
}

/* The folders a run holds locked: -o DIR, and with --compare each variant
 * folder too (a plain --train into DIR/learned while a --compare writes DIR
 * mixed the two the same way). */
typedef struct {
    int fd[4];
    int n;
} folder_locks;

/* Lock dir (it exists) for this run: flock(LOCK_EX | LOCK_NB) on an fd of
 * the folder itself, so no lock file is left behind; the kernel lets go when
 * the fd is closed (unlock_folders) or the process ends, by a signal too. Two
 * runs into one folder at once both exited 0 and left the second's
 * config.json and model.safetensors beside the first's train.csv and figures
 * (a tester's report): the second is now refused before it trains.
 * Advisory: --model DIR reading the folder takes no lock and is never
 * blocked. A folder that cannot be opened for reading (mode 0300) or a file
 * system without flock (EINVAL, ENOLCK, EBADF on NFS) runs unlocked, as every
 * run did before. Errors: AV_ERUNTIME when another process holds the lock,
 * naming dir. Source: flock(2). */
static av_status lock_folder(folder_locks *lk, const char *dir, av_err *err) {
    if (lk->n == (int)(sizeof lk->fd / sizeof lk->fd[0])) return AV_OK;
    int fd;
    if (!av_lock_folder(dir, &fd)) { /* locked, or a folder that cannot be (io/fileio.h) */
        if (fd >= 0) lk->fd[lk->n++] = fd;
        /* held: no other attnviz writes here now, so a temporary there is a killed run's (a SIGKILL left
         * .attention.gif.tmpXXXXXX, and every later run into the folder kept it) */
        if (fd >= 0) av_figures_remove_leftovers(dir, "", kRunFiles, sizeof kRunFiles / sizeof kRunFiles[0]);
        return AV_OK;
    }
    char path[4096];
    av_path_shown(path, sizeof path, dir);
    return av_fail(err, AV_ERUNTIME, "cannot train into %s: another attnviz --train is writing it (it holds "
                   "the folder's lock until it ends), and two runs into one folder leave one's model beside the "
                   "other's figures: wait for it to end, or give another -o", AV_SHOWN_WORD(path, 349));
}

int av_train_folder_busy(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    int busy = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd); /* lets go of the shared lock too */
    return busy;
}

static void unlock_folders(folder_locks *lk) {
    for (int i = 0; i < lk->n; i++) close(lk->fd[i]);
    lk->n = 0;
}

/* Before the header line and the first step, so a usage error prints nothing
 * on stdout and a bad folder fails before the work, not after every step:
 * each model trained (with --compare, each variant: learned positions add
 * wpe) fits AV_MAX_TRAIN_BYTES; then -o DIR (with --compare, each
 * DIR/VARIANT) holds no model attnviz did not train, and can be made and
 * written (io/fileio.h av_dir_writable; its message starts "-o: ", as the
 * single layer's and --model's do: cli.h av_option_folder). The
 * foreign-model checks all come before any folder is made, so a refused
 * folder leaves no variant folder.
 * Each folder is locked (lock_folder) as soon as it is made, so a second run
 * into it is refused before it makes anything there; locks holds them.
 * earlier[i] says which model of an earlier --train folder i holds, which
 * this run replaces ("" for none; folder i is -o, or its i-th variant). */
static av_status check_before_start(const av_train_opts *o, char earlier[3][64], folder_locks *locks, av_err *err) {
    av_train_opts v[3] = {*o};
    const char *names[3] = {""};
    char left_out[96], dir[3][4096];
    int n = o->compare == AV_TRAIN_CMP_NONE ? 1 : compare_variants(v, names, o, left_out, sizeof left_out);
    av_status s = o->reference ? AV_OK : av_blas_require(err); /* loads OpenBLAS */
    for (int i = 0; !s && i < n; i++) s = check_train_size(&v[i], err);
    size_t nf = sizeof kRunFiles / sizeof kRunFiles[0];
    if (o->compare == AV_TRAIN_CMP_NONE) {
        /* names first: a folder named config.json was "a model attnviz did not train" */
        if (!s) s = check_names_free(o->outdir, kRunFiles, nf, err);
        if (!s) s = check_not_a_foreign_model(o->outdir, earlier[0], 64, err);
        if (!s) s = av_option_folder("-o", o->outdir, av_dir_writable, err);
        return s ? s : lock_folder(locks, o->outdir, err);
    }
    for (int i = 0; i < n; i++) av_path_join(dir[i], sizeof dir[i], o->outdir, names[i]);
    /* every name before any folder is made: a taken name in the second variant left the first one's empty folder */
    for (int i = 0; !s && i < n; i++) s = check_names_free(dir[i], kRunFiles, nf, err);
    for (int i = 0; !s && i < n; i++) s = check_not_a_foreign_model(dir[i], earlier[i], 64, err);
    char png[64], svg[64];
    snprintf(png, sizeof png, "compare_%s.png", kCompareWhat[o->compare]);
    snprintf(svg, sizeof svg, "compare_%s.svg", kCompareWhat[o->compare]);
    if (!s) s = check_names_free(o->outdir, (const char *const[]){png, svg}, 2, err);
    if (!s) s = check_not_a_foreign_comparison(o->outdir, (int)o->compare, names, n, png, svg, err);
    if (!s) s = av_option_folder("-o", o->outdir, av_dir_writable, err); /* compare_WHAT.png goes here */
    if (!s) s = lock_folder(locks, o->outdir, err); /* before the variant folders: a refused run makes none */
    /* the variant folders that exist first, so one another run holds refuses this one before it makes any
     * (a plain --train into DIR/pre-ln left an empty DIR/post-ln behind a refused --compare norm: a
     * tester's report); then the ones made now, which no other run can hold yet */
    struct stat vst;
    int existed[3] = {0, 0, 0};
    for (int i = 0; !s && i < n; i++)
        if ((existed[i] = stat(dir[i], &vst) == 0)) s = lock_folder(locks, dir[i], err);
    for (int i = 0; !s && i < n; i++) s = av_option_folder("-o", dir[i], av_dir_writable, err);
    for (int i = 0; !s && i < n; i++)
        if (!existed[i]) s = lock_folder(locks, dir[i], err);
    return s;
}

/* text as pieces of line, each with a space in front, end after the last:
 * cut after each ", " and " vs " and before each " (", so that a narrow
 * terminal breaks there ("learned vs sinusoidal vs RoPE positions" was one
 * 42-column piece, noam's "lr = 1 · 16^-0.5 · min(...) (noam; peak ...)" one
 * of 89). Joined, the pieces are text as it was: a pipe's line is unchanged. */
static void add_parts(av_line *line, const char *text, const char *end) {
    while (*text) {
        const char *cut = NULL, *next = NULL;
        static const char *const after[] = {", ", " vs "};
        for (int k = 0; k < 2; k++) { /* the piece keeps "," or " vs"; the next starts after the space */
            const char *c = strstr(text, after[k]);
            if (c && (!cut || c + strlen(after[k]) - 1 < cut)) cut = c + strlen(after[k]) - 1, next = cut + 1;
        }
        const char *paren = strstr(text, " (");
        if (paren && paren != text && (!cut || paren < cut)) cut = paren, next = paren + 1;
        int len = cut ? (int)(cut - text) : (int)strlen(text);
        av_line_add(line, " %.*s%s", len, text, cut ? "" : end);
        text = cut ? next : text + len;
    }
}

/* 0 if everything printed on out so far has reached it (fflush, then its error flag), else the errno of
 * the failure, or -1 when only the flag says an earlier write failed (its errno is gone). A file on a full
 * disk, /dev/full, a pipe whose reader is gone with SIGPIPE ignored. */
static int out_failed(FILE *out) {
    if (fflush(out) != 0) return errno ? errno : -1;
    return ferror(out) ? -1 : 0;
}

av_status av_train_run(const av_train_opts *opts, FILE *out, av_err *err) {
    av_train_opts o = *opts;
    av_train_fill_defaults(&o);
    /* -o DIR as --model shows the same folder (io/fileio.h av_path_shown), for every line that names it and the
     * variant folders joined to it: `-o ts/` printed "wrote ts/: ..." and "reloaded ts/ with --model's loader",
     * `-o ./ts//` "wrote ./ts//: ...", where `--model ts/` calls it "ts" (a maintainer's list of known faults).
     * Lexical, as --model's own: "." parts and doubled or trailing '/' name the same folder; ".." stays */
    char outdir[4096];
    if (o.outdir && strlen(o.outdir) < sizeof outdir) {
        av_path_shown(outdir, sizeof outdir, o.outdir);
        o.outdir = outdir;
    }
    /* --warmup's 0..--steps (torch's LambdaLR would take more and never reach the peak --lr) is checked by
     * av_train_command, with the value as typed; noam's 0 here */
    if (o.warmup == 0 && o.schedule == AV_SCHED_NOAM) /* its step · warmup^-1.5 */
        return av_fail(err, AV_EUSAGE, "--warmup 0 with --schedule noam: the rule d_model^-0.5 · min(step^-0.5, "
                       "step · warmup^-1.5) needs a warm-up of 1 or more (allowed: 1..%d); cosine can start without "
                       "one", o.steps);
    if (o.d_model % o.heads) {
        char hint[256];
        av_heads_hint(hint, sizeof hint, o.d_model, o.heads, o.positions == AV_POS_ROPE);
        return av_fail(err, AV_EUSAGE, "--heads %d does not divide --d-model %d (d_k = d_model / heads must be a whole "
                       "number); %s", o.heads, o.d_model, hint);
    }
    if (o.positions == AV_POS_ROPE) {
        av_status st = av_rope_dk_check(o.d_model, o.heads, NULL, err);
        if (st) return st;
    }
    if (o.positions == AV_POS_NONE)
        return av_fail(err, AV_EUSAGE, "%s", AV_TRAIN_NO_POSITIONS_MSG);
    /* decoupled decay multiplies the 2-D tensors by 1 − lr·λ each step: at 1 or more they flip sign and grow */
    double peak = o.lr;
    if (o.schedule == AV_SCHED_NOAM) {
        av_adamw a = {.schedule = AV_SCHED_NOAM, .lr_max = o.lr, .warmup = o.warmup, .d_model = o.d_model};
        peak = av_lr_at(&a, o.warmup);
    }
    /* the smallest lr the schedule reaches (cosine's last step is --lr / 10, noam's first step is tiny): below
     * float32's smallest normal number it computes as 0 or loses its digits, as --lr itself is refused there
     * (--lr 2e-38 ran at 2e-39: a tester's report); 1e6 steps at most, so the scan is cheap */
    av_adamw sched = {.schedule = o.schedule, .lr_max = o.lr, .lr_min = o.lr / 10, .warmup = o.warmup,
                      .steps = o.steps, .d_model = o.d_model};
    double low = o.lr;
    int low_at = 1;
    for (int t = 1; t <= o.steps; t++)
        if (av_lr_at(&sched, t) < low) low = av_lr_at(&sched, t), low_at = t;
    if (low < FLT_MIN)
        return av_fail(err, AV_EUSAGE, "--lr %g with --schedule %s: the lr at step %d is %.3g, below %.5g, float32's "
                       "smallest normal number, so it computes as 0 or loses its digits; raise --lr by %.3g times or more",
                       o.lr, av_schedule_name(o.schedule), low_at, low, (double)FLT_MIN, (double)FLT_MIN / low);
    if (peak * o.weight_decay >= 1)
        return av_fail(err, AV_EUSAGE, "--weight-decay %g with a peak lr of %g: lr · weight decay = %g must be below 1 "
                       "(each step multiplies the weights by 1 − lr · weight decay); lower --weight-decay or --lr",
                       o.weight_decay, peak, peak * o.weight_decay);
    /* a closed standard output (`>&-`) failed only at exit, after the whole run; its fd would also be the next
     * file opened, where the progress lines then went */
    int out_fd = av_stream_fd(out);
    if (out_fd >= 0 && fcntl(out_fd, F_GETFD) < 0)
        return av_fail(err, AV_ERUNTIME, "cannot write to standard output: %s; nothing was trained or written",
                       strerror(errno));
    char earlier[3][64] = {"", "", ""};
    folder_locks locks = {.n = 0}; /* held until the run ends: a second run into a folder is refused */
    av_status fs = check_before_start(&o, earlier, &locks, err);
    if (fs) { /* before the header line: nothing has started; the folders made for the run go again at the
               * exit (main.c, av_remove_empty_made_folders: with DIR/no-scale a file, --compare scale made
               * DIR/scale, then failed on no-scale and left it empty: a new user's report) */
        unlock_folders(&locks);
        return fs;
    }
    av_warn_unused_now(stderr); /* the options are checked: the run goes on (cli.h) */
    char vlabel[128], lr_text[200];
    variant_label(vlabel, sizeof vlabel, &o, 1);
    lr_label(lr_text, sizeof lr_text, &o);
    if (!o.quiet) { /* a narrow terminal breaks the line between the pieces */
        av_line line = {.n = 0};
        av_line_add(&line, "training %s:", av_task_name(o.task));
        av_line_add(&line, " %d layer%s,", o.layers, o.layers == 1 ? "" : "s");
        av_line_add(&line, " %d head%s,", o.heads, o.heads == 1 ? "" : "s");
        av_line_add(&line, " d_model %d,", o.d_model);
        add_parts(&line, vlabel, ";");
        av_line_add(&line, " batch %d,", o.batch);
        av_line_add(&line, " %d step%s,", o.steps, o.steps == 1 ? "" : "s");
        av_line_add(&line, " AdamW");
        add_parts(&line, lr_text, ",");
        av_line_add(&line, " weight decay %g,", o.weight_decay);
        av_line_add(&line, " clip 1.0,");
        av_line_add(&line, " seed %llu", (unsigned long long)o.seed);
        av_line_print(out, &line, av_line_cols(out), 2);
    }
    /* standard output that cannot be written (`>/dev/full`) said so only after every step, with every file
     * written (a tester's report): found at the header line, before the first step, the run stops there and
     * takes away the folders it made, as GNU tools that check their output fail before their work. Not on a
     * pipe or socket: a reader that is gone raises SIGPIPE there, whose handler says what the run leaves once
     * the run's message is set (run_one), and `| head -1` reads this line before it goes */
    struct stat ost;
    int piped = out_fd >= 0 && fstat(out_fd, &ost) == 0 && (S_ISFIFO(ost.st_mode) || S_ISSOCK(ost.st_mode));
    int e = o.quiet || piped ? 0 : out_failed(out);
    if (e) { /* the folders made for the run go again at the exit, as above */
        unlock_folders(&locks);
        return av_fail(err, AV_ERUNTIME, "cannot write to standard output: %s; stopped before training: nothing was "
                       "written (-o %s is as it was)", e > 0 ? strerror(e) : "a write failed", AV_SHOWN_WORD(o.outdir, 349));
    }
    note_replaced(&o, earlier);
    av_status s;
    if (o.compare != AV_TRAIN_CMP_NONE) s = run_compare(&o, out, err);
    else if (!(s = run_one(&o, o.outdir, "", NULL, out, err))) note_other_runs(&o, NULL, 0);
    /* later (a disk that fills while the progress goes to a file on it, -q --compare's table): the run went
     * on, so say what it saved, as the other failures after the model do */
    if (!s && (e = out_failed(out)) != 0) {
        const char *sd = AV_SHOWN_WORD(o.outdir, 349); /* one shell word, as the command gives it */
        if (o.compare == AV_TRAIN_CMP_NONE)
            s = av_fail(err, AV_ERUNTIME, "cannot write to standard output: %s; the trained model was saved and "
                        "checked before this error, with its training figures and train.csv, in %s (attnviz "
                        "--model %s runs it): only lines printed on standard output are lost",
                        e > 0 ? strerror(e) : "an earlier write failed", sd, sd);
        else {
            char name[64], cmp[4200];
            snprintf(name, sizeof name, "compare_%s.png", kCompareWhat[o.compare]); /* one shell word, .png too */
            av_path_join(cmp, sizeof cmp, o.outdir, name);
            s = av_fail(err, AV_ERUNTIME, "cannot write to standard output: %s; every variant's trained model was "
                        "saved and checked before this error, with its figures and train.csv, in the variant folders "
                        "under %s, and %s and .svg were written: only lines printed on standard output "
                        "are lost", e > 0 ? strerror(e) : "an earlier write failed", sd, AV_SHOWN_WORD(cmp, 349));
        }
    }
    unlock_folders(&locks);
    return s;
}

av_status av_train_command(const av_options *op, const char *command_line, av_err *err) {
    /* --warmup's range is 0..--steps (cli.c leaves it to this rule): "--warmup -1 is outside the allowed range
     * 0..--steps" did not say what --steps was (4000 by default for reverse), and 99999999999999 was shown as
     * INT_MAX: the value as typed, the steps in use */
    av_train_opts d = {.task = (av_task_kind)op->train, .steps = op->steps};
    av_train_fill_defaults(&d);
    /* --schedule noam has no "0 = no warm-up" (its step · warmup^-1.5): "--warmup -1 --schedule noam" was told
     * "allowed range 0..10 (0 = no warm-up, ...)", and 0 was then refused */
    int noam = op->schedule == AV_SCHED_NOAM;
    const char *none = noam ? "--schedule noam needs a warm-up of 1 or more" : "0 = no warm-up";
    if (op->warmup < 0 || (op->warmup > d.steps && op->schedule != AV_SCHED_CONSTANT)) {
        char typed[80];
        av_option_shown(typed, sizeof typed, op, "warmup", op->warmup);
        char steps[48];
        snprintf(steps, sizeof steps, av_option_given(op, "steps") ? "--steps %d" : "--steps, the task's default %d",
                 d.steps);
        if (op->warmup < 0)
            return av_fail(err, AV_EUSAGE, "--warmup %s is outside the allowed range %d..%d (%s, at most %s)", typed,
                           noam, d.steps, none, steps);
        return av_fail(err, AV_EUSAGE, "--warmup %s is more than %s (allowed: %d..%d, %s)", typed, steps, noam,
                       d.steps, none);
    }
    av_train_opts o = {
        .task = (av_task_kind)op->train, .outdir = op->outdir, .steps = op->steps, .batch = op->batch, .lr = op->lr,
        .weight_decay = op->weight_decay, .weight_decay_set = av_option_given(op, "weight-decay"),
        .warmup_set = av_option_given(op, "warmup"),
        .layers = op->layers, .warmup = op->warmup, .schedule = (av_schedule)op->schedule, .norm = (av_norm)op->norm,
        .scale = !op->no_scale, .seed = op->seed, .quiet = op->quiet, .command_line = command_line,
        .dpi = op->dpi, .fig_scale = (float)op->scale,
        .positions = av_option_given(op, "positions") ? op->positions : AV_POS_LEARNED,
        .rope_style = op->rope_style, .rope_base = op->rope_base,
        .reference = op->kernel == AV_KERNEL_REFERENCE + 1, /* op->kernel counts auto as 0 */
        .d_model = av_option_given(op, "d-model") ? op->d_model : 0,
        .heads = av_option_given(op, "heads") ? op->heads : 0,
        .tty = av_term_redraws(STDERR_FILENO), /* a dumb terminal gets a pipe's plain lines (term.h) */
    };
    o.compare = op->compare == AV_CMP_SCALE ? AV_TRAIN_CMP_SCALE : op->compare == AV_CMP_NORM ? AV_TRAIN_CMP_NORM
              : op->compare == AV_CMP_POSITIONS ? AV_TRAIN_CMP_POSITIONS : AV_TRAIN_CMP_NONE;
    return av_train_run(&o, stdout, err);
}
