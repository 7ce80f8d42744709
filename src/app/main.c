/* main.c - the attnviz command, read as its data path:
 *
 *   argv → options → sentence → tokens (+ <pad>) → X, W (seeded or --weights)
 *        → Q, K, V → scores S → weights A → output Y        (nn/model.h)
 *   or, with --model DIR: sentence → GPT-2 token ids → every layer and head
 *        (nn/gpt2.h), layer L handed on as the single layer  (gpt2run.h)
 *        → sinks: the trace on stdout (trace.h, teach.h), --compare (compare.h),
 *          --dump (tensorio.h), the figures (figures.h), the page (page.h), the list
 *          of written files.
 *
 * The only file that exits: 0 success, 1 runtime failure, 2 usage error. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
#include "io/fileio.h"
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

static int finish(int code) {
    if (fclose(stdout) != 0 && code == 0) {
        fprintf(stderr, "attnviz: error: cannot write the trace to standard output: %s\n", strerror(errno));
        return 1;
    }
    return code;
}

/* argv as one shell-quoted line, "attnviz --heads 2 'I love you'". */
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

/* options → the model's configuration, checked before any input is read. */
static av_status configure(av_config *cfg, const av_options *o, av_err *err) {
    *cfg = (av_config){.T = 1, .n_real = 1, .C = o->d_model, .H = o->heads, .positions = o->positions,
                       .rope_style = o->rope_style, .rope_base = o->rope_base, .causal = o->causal,
                       .scale = !o->no_scale, .seed = o->seed};
    av_status st = av_config_check(cfg, err);
    if (!st && o->compare == AV_CMP_ROPE_STYLE && (o->d_model / o->heads) % 2)
        st = av_fail(err, AV_EUSAGE, "--compare rope-style needs RoPE, which needs an even d_k; d_k = %d / %d = %d",
                     o->d_model, o->heads, o->d_model / o->heads);
    return st;
}

/* sentence (arguments or -f) → tokens, then <pad> up to --pad-to. */
static av_status read_tokens(run *r, av_err *err) {
    const av_options *o = &r->o;
    char *text = o->sentence;
    size_t len = text ? strlen(text) : 0;
    av_status st;
    if (o->file) {
        if ((st = av_read_file(o->file, AV_MAX_INPUT_BYTES, &text, &len, err))) return st;
        while (len && (text[len - 1] == '\n' || text[len - 1] == '\r')) len--; /* a file's final newline */
    }
    st = av_tokenize(&r->toks, text, len, AV_MAX_TOKENS, err);
    if (!st && (r->text = malloc(len + 1)) != NULL) {
        memcpy(r->text, text, len);
        r->text[len] = 0;
    }
    if (text != o->sentence) free(text);
    r->n_real = r->toks.n;
    if (st || !o->pad_to) return st;
    if (o->pad_to < r->toks.n)
        return av_fail(err, AV_EUSAGE, "--pad-to %d is smaller than the sentence's %d tokens; use at least %d",
                       o->pad_to, r->toks.n, r->toks.n);
    while (r->toks.n < o->pad_to && !st) st = av_tokens_push(&r->toks, "<pad>", err);
    return st;
}

/* What needs the (H, T, T) weights, or NULL: the flash kernel never forms them. */
static const char *weights_needed_by(const av_options *o) {
    return !o->no_plot ? "figures" : o->dump_dir ? "--dump" : o->show ? "--show" : o->explain ? "--explain"
           : o->compare ? "--compare" : o->html ? "--html" : NULL;
}

/* --kernel, or auto: the fastest kernel that gives what was asked for. Short
 * inputs get the exact reference loops (a few ms at most); the weights need
 * reference or blas; anything else runs flash. */
static av_status choose_kernel(av_config *cfg, const av_options *o, av_err *err) {
    const char *needs = weights_needed_by(o);
    if (o->kernel != AV_KERNEL_AUTO) {
        cfg->kernel = (av_kernel)(o->kernel - 1);
        if (cfg->kernel == AV_KERNEL_FLASH && needs)
            return av_fail(err, AV_EUSAGE,
                           "--kernel flash keeps no (T, T) attention weights, so it cannot give %s; add --no-plot "
                           "(and drop --dump, --show, --explain, --compare, --html) or use --kernel blas",
                           needs);
        return AV_OK;
    }
    cfg->kernel = cfg->T <= AV_AUTO_REFERENCE_T ? AV_KERNEL_REFERENCE : needs ? AV_KERNEL_BLAS : AV_KERNEL_FLASH;
    return AV_OK;
}

/* tokens → X, W (seeded, then --weights) and masks → the forward pass. */
static av_status run_model(run *r, av_config *cfg, av_err *err) {
    const av_options *o = &r->o;
    cfg->T = r->toks.n;
    av_status kst = choose_kernel(cfg, o, err);
    if (kst) return kst;
    if (o->compare == AV_CMP_ORDER && cfg->n_real < 2)
        return av_fail(err, AV_EUSAGE, "--compare order swaps the first and last words, so it needs at least 2 tokens; got 1");
    av_status st = av_model_init(&r->m, cfg, err);
    if (st) return st;
    av_model_seed(&r->m, (const char *const *)r->toks.tok);
    av_weights_random(&r->source, cfg->seed);
    if (o->weights_dir && (st = av_load_weights(&r->m, o->weights_dir, &r->source, err))) return st;
    if (o->attn_mask && (st = av_load_attn_mask(&r->m, o->attn_mask, err))) return st;
    return av_model_forward(&r->m, err);
}

/* sink 1: the trace, --explain and --show on stdout, flushed before any file. */
static av_status print_trace(run *r, av_err *err) {
    const av_options *o = &r->o;
    int qi = 0, kj = 0;
    av_status st = o->explain ? av_explain_parse(o->explain, &r->toks, &qi, &kj, err) : AV_OK;
    if (!st && !o->quiet) { /* -q silences the trace, never what was asked for */
        av_trace tr = {stdout, r->color, o->verbose, o->precision};
        if (o->model_dir) av_gpt2run_trace(stdout, &r->gr, &r->m, &r->toks, r->color);
        else av_trace_print(&tr, &r->m, &r->toks, &r->source);
    }
    if (!st && o->explain) av_explain(stdout, &r->m, &r->toks, o->head, qi, kj, o->precision, r->color);
    int only = o->model_dir && av_option_given(o, "head") ? o->head : -1; /* a model's --show: --head only */
    for (int h = 0; !st && o->show && h < r->m.cfg.H; h++)
        if (only < 0 || h == only)
            av_term_heatmap(stdout, &r->m, &r->toks, h, av_term_mode_for(r->color), av_term_width());
    if (!st && o->model_dir && o->generate) st = av_gpt2run_generate(stdout, &r->gr, o->generate, err);
    if (!st && fflush(stdout) != 0)
        st = av_fail(err, AV_ERUNTIME, "cannot write the trace to standard output: %s", strerror(errno));
    return st;
}

/* The closing list of written files. */
static void list_written(const run *r) {
    if (r->o.quiet || !r->written.n) return;
    printf("\nwrote %d file(s):\n", r->written.n);
    for (int i = 0; i < r->written.n; i++) printf("  %s\n", r->written.paths[i]);
}

/* A --model's figures and page (figures.h, page.h); the page's trace is the
 * printed one, without colour. */
static av_status model_sinks(run *r, const char *cmd, av_err *err) {
    const av_options *o = &r->o;
    char source[4300];
    av_gpt2run_source(source, sizeof source, &r->gr);
    av_status st = AV_OK;
    if (!o->no_plot)
        st = av_figures_model(&r->m, &r->toks, r->gr.a.att, r->gr.g.cfg.n_layer, r->gr.layer, source, o, cmd,
                              &r->written, err);
    if (!st && o->html) {
        char *trace = NULL;
        size_t len = 0;
        FILE *ms = open_memstream(&trace, &len);
        if (!ms) return av_fail(err, AV_ERUNTIME, "out of memory");
        av_gpt2run_trace(ms, &r->gr, &r->m, &r->toks, 0);
        fclose(ms);
        av_page_info page = {.command = cmd, .note = source, .trace = trace, .sentence = o->sentence, .n_real = r->gr.T};
        st = av_page_model(&r->gr.g.cfg, &r->gr.a, (const char *const *)r->toks.tok, r->gr.T, o, &page, &r->written,
                           err);
        free(trace);
    }
    if (!st) list_written(r);
    return st;
}

/* sinks 2-5: --compare, --dump, the figures, the page. Every output folder is made (or
 * checked) before any file is written, so a bad -o leaves no dump from this
 * run next to figures from an older one. */
static av_status write_outputs(run *r, av_err *err) {
    const av_options *o = &r->o;
    av_figure_context fc = {r->cmd ? r->cmd : "attnviz", r->text, &r->source, ""};
    av_figures_run_id(&fc, &r->m, &r->toks);
    av_status st = AV_OK;
    if (!o->no_plot) av_assets_use_fonts(); /* Latin labels in the bundled DejaVu Sans */
    if (!o->no_plot || o->html) st = av_mkdir_p(o->outdir, err);
    if (!st && o->dump_dir) st = av_mkdir_p(o->dump_dir, err);
    if (!st && o->compare) {
        st = av_compare_run(&r->cmp, &r->m, (av_compare_kind)o->compare, err);
        if (!st) av_compare_print(stdout, &r->cmp, &r->toks, r->color); /* asked for: printed even with -q */
        if (!st && !o->no_plot) st = av_figures_compare(&r->cmp, &r->toks, o, &fc, &r->written, err);
    }
    if (!st && o->dump_dir)
        st = o->model_dir ? av_gpt2run_dump(&r->gr, &r->toks, o->dump_dir, &r->written, err)
                          : av_dump_all(&r->m, &r->toks, o->dump_dir, &r->written, err);
    if (!st && o->model_dir) return model_sinks(r, fc.cmdline, err);
    if (!st && !o->no_plot) st = av_figures_write(&r->m, &r->toks, o, &fc, &r->written, err);
    if (!st && !o->no_plot) st = av_figures_remove_stale(o, fc.run, &r->written, err);
    av_page_info page = {.command = fc.cmdline, .note = r->source.text, .ws = &r->source, .sentence = o->sentence,
                         .n_real = r->n_real};
    if (!st && o->html && o->compare)
        st = av_page_compare(&r->cmp, &r->m, &r->toks, o, &page, &r->written, err);
    else if (!st && o->html)
        st = av_page_single(&r->m, &r->toks, o, &page, &r->written, err);
    if (!st) list_written(r);
    return st;
}

int main(int argc, char **argv) {
    static run r; /* zeroed: every part can be freed whatever failed */
    av_err err = {{0}};
    av_config cfg;
    av_status st = av_parse_args(&r.o, argc, argv, &err);
    if (!st && r.o.help) av_print_help(stdout);
    if (!st && r.o.version) printf("attnviz %s\n", AV_VERSION);
    if (!st && !r.o.help && !r.o.version && r.o.train >= 0) {
        signal(SIGXFSZ, SIG_IGN);
        r.cmd = command_line(argc, argv);
        st = av_train_command(&r.o, r.cmd, &err);
    } else if (!st && !r.o.help && !r.o.version) {
        /* a file size limit (ulimit -f) must fail a write, not kill the
         * process and leave a temporary file behind */
        signal(SIGXFSZ, SIG_IGN);
        r.color = av_use_color(r.o.color);
        char unused[AV_MAX_WARNINGS][160];
        for (int i = 0, n = av_unused_options(&r.o, unused); i < n; i++)
            fprintf(stderr, "attnviz: warning: %s\n", unused[i]);
        if (r.o.model_dir) {
            st = av_gpt2run_open(&r.gr, &r.m, &r.toks, &r.o, &err);
        } else if (!(st = configure(&cfg, &r.o, &err)) && !(st = read_tokens(&r, &err))) {
            cfg.n_real = r.n_real;
            st = run_model(&r, &cfg, &err);
        }
        if (!st) st = print_trace(&r, &err);
        if (!st) r.cmd = command_line(argc, argv);
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
    if (st) fprintf(stderr, "attnviz: error: %s\n", err.msg);
    return finish(st == AV_EUSAGE ? 2 : st ? 1 : 0);
}
