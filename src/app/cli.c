/* cli.c - getopt_long parsing and the --help text, from one table. */
#include "app/cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    OPT_ROPE_STYLE = 256, OPT_ROPE_BASE, OPT_NO_SCALE, OPT_PAD_TO, OPT_ATTN_MASK, OPT_NO_PLOT,
    OPT_DUMP, OPT_PRECISION, OPT_COLOR, OPT_EXPLAIN, OPT_HEAD, OPT_SHOW, OPT_COMPARE,
    OPT_FIGURES, OPT_CMAP, OPT_DPI, OPT_SCALE, OPT_FORMAT,
};

typedef struct {
    const char *name;
    int has_arg;
    int val;
    const char *arg;   /* metavariable for --help, or NULL */
    const char *help;
} av_optdef;

/* The one usage table: parser and --help both come from here. */
static const av_optdef kOpts[] = {
    {"d-model", 1, 'd', "N", "model width d_model (default 512, the paper's base model; 1..4096)"},
    {"heads", 1, 'H', "N", "number of heads H; must divide d_model, d_k = d_model/H (default 1; 1..64)"},
    {"seed", 1, 's', "N", "seed for embeddings and weights (default 42); same seed, same numbers"},
    {"positions", 1, 'p', "KIND", "none | sinusoidal | rope (default sinusoidal)"},
    {"rope-style", 1, OPT_ROPE_STYLE, "S", "interleaved (RoFormer, LLaMA; default) | half (GPT-NeoX, HF)"},
    {"rope-base", 1, OPT_ROPE_BASE, "THETA", "RoPE base θ (default 10000; > 1)"},
    {"causal", 0, 'c', NULL, "causal mask: query i sees keys j <= i"},
    {"pad-to", 1, OPT_PAD_TO, "N", "append <pad> tokens up to N and mask them as keys (key padding mask)"},
    {"attn-mask", 1, OPT_ATTN_MASK, "FILE", "extra (T, T) bool .npy mask, True = masked (PyTorch attn_mask)"},
    {"no-scale", 0, OPT_NO_SCALE, NULL, "skip the ÷√d_k (see softmax saturate)"},
    {"outdir", 1, 'o', "DIR", "folder for the figures (default ./attnviz-out, created if missing)"},
    {"no-plot", 0, OPT_NO_PLOT, NULL, "write no figures"},
    {"figures", 1, OPT_FIGURES, "LIST", "heads,grid,mean,scores,pe,mask or all, comma-separated (default heads,grid)"},
    {"format", 1, OPT_FORMAT, "FMT", "png | svg | both (default png); SVG from the same layout"},
    {"cmap", 1, OPT_CMAP, "NAME", "viridis (default) | magma | inferno | plasma | cividis | gray | RdBu_r"},
    {"dpi", 1, OPT_DPI, "N", "PNG resolution 50..600 (default 100): more pixels, same printed size"},
    {"scale", 1, OPT_SCALE, "F", "multiply every size by F, 0.5..4 (default 1), for slides"},
    {"dump", 1, OPT_DUMP, "DIR", "write every tensor as .npy (float32, C order) into DIR"},
    {"weights", 1, 'w', "DIR", "load X.npy, W_Q.npy, W_K.npy, W_V.npy, W_O.npy found in DIR"},
    {"file", 1, 'f', "FILE", "read the sentence from FILE ('-' = standard input)"},
    {"verbose", 0, 'v', NULL, "also print the small matrices (numpy-style, truncated)"},
    {"quiet", 0, 'q', NULL, "print only errors"},
    {"precision", 1, OPT_PRECISION, "N", "digits after the point with -v (default 4; 0..10)"},
    {"color", 1, OPT_COLOR, "WHEN", "auto (TTY and NO_COLOR unset; default) | always | never"},
    {"explain", 1, OPT_EXPLAIN, "Q,K", "walk through one cell: query Q, key K (indices or token text)"},
    {"head", 1, OPT_HEAD, "N", "head for --explain and --compare figures (default 0)"},
    {"show", 0, OPT_SHOW, NULL, "draw each head's weights in the terminal (colour on a TTY)"},
    {"compare", 1, OPT_COMPARE, "WHAT", "scale | positions | rope-style | order: rerun under each setting"},
    {"help", 0, 'h', NULL, "show this help and exit"},
    {"version", 0, 'V', NULL, "show the version and exit"},
};
#define N_OPTS ((int)(sizeof kOpts / sizeof kOpts[0]))

const char *av_positions_name(av_positions p) {
    return p == AV_POS_NONE ? "none" : p == AV_POS_ROPE ? "rope" : p == AV_POS_LEARNED ? "learned" : "sinusoidal";
}

/* --cmap names in av_cmap order (colormap.h; cli.c stays free of the
 * colour tables so the option fuzz target links without them). */
static const char *const kCmap[] = {"viridis", "magma", "inferno", "plasma", "cividis", "gray", "RdBu_r"};
#define N_CMAP ((int)(sizeof kCmap / sizeof kCmap[0]))

const char *av_cli_cmap_name(int cmap) {
    return cmap >= 0 && cmap < N_CMAP ? kCmap[cmap] : "?";
}

const char *av_rope_style_name(av_rope_style s) {
    return s == AV_ROPE_HALF ? "half" : "interleaved";
}

void av_print_help(FILE *f) {
    fprintf(f,
            "Usage: attnviz [OPTION]... SENTENCE...\n"
            "       attnviz [OPTION]... -f FILE\n"
            "Show scaled dot-product attention, softmax(Q·Kᵀ/√d_k)·V, step by step on a\n"
            "sentence, and draw each head's attention weights as a heat-map PNG.\n\n"
            "Example: attnviz --heads 8 \"I love deep learning\"\n\n"
            "Options:\n");
    for (int i = 0; i < N_OPTS; i++) {
        char left[64];
        char shortf[8] = "    ";
        if (kOpts[i].val < 256) snprintf(shortf, sizeof shortf, "-%c, ", kOpts[i].val);
        snprintf(left, sizeof left, "%s--%s%s%s", shortf, kOpts[i].name, kOpts[i].arg ? " " : "",
                 kOpts[i].arg ? kOpts[i].arg : "");
        fprintf(f, "  %-26s %s\n", left, kOpts[i].help);
    }
    fprintf(f,
            "\nLimits: at most %d tokens, d_model <= %d, heads <= %d, %d-byte tokens.\n"
            "Exit status: 0 success, 1 runtime failure (I/O), 2 usage error.\n"
            "See attnviz(1) and docs/conventions.md for the conventions used.\n",
            AV_MAX_TOKENS, AV_MAX_D_MODEL, AV_MAX_HEADS, AV_MAX_TOKEN_BYTES);
}

/* Parse a whole decimal integer in [lo, hi]. */
static av_status parse_int(const char *opt, const char *s, long long lo, long long hi, long long *out,
                           av_err *err) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != 0)
        return av_fail(err, AV_EUSAGE, "--%s '%s' is not a whole number; allowed: %lld..%lld", opt, s, lo, hi);
    if (errno == ERANGE || v < lo || v > hi)
        return av_fail(err, AV_EUSAGE, "--%s %s is outside the allowed range %lld..%lld", opt, s, lo, hi);
    *out = v;
    return AV_OK;
}

static av_status parse_choice(const char *opt, const char *s, const char *const *names, int n, int *out,
                              av_err *err) {
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) { *out = i; return AV_OK; }
    char allowed[128] = "";
    for (int i = 0; i < n; i++) {
        strncat(allowed, names[i], sizeof allowed - strlen(allowed) - 1);
        if (i + 1 < n) strncat(allowed, i + 2 == n ? " or " : ", ", sizeof allowed - strlen(allowed) - 1);
    }
    return av_fail(err, AV_EUSAGE, "--%s '%s' is not allowed; expected %s", opt, s, allowed);
}

/* --figures LIST: comma-separated names, each one of kFig; "all" selects
 * every figure. */
static av_status parse_figures(const char *s, av_options *o, av_err *err) {
    static const char *const kFig[] = {"heads", "grid", "mean", "scores", "pe", "mask", "all"};
    static const char allowed[] = "heads, grid, mean, scores, pe, mask or all";
    unsigned bits = 0;
    o->figures_all = 0;
    const char *p = s;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0)
            return av_fail(err, AV_EUSAGE, "--figures '%s' has an empty name; expected a comma-separated list of %s",
                           s, allowed);
        int k = 0;
        while (k < 7 && !(strlen(kFig[k]) == len && strncmp(p, kFig[k], len) == 0)) k++;
        if (k == 7)
            return av_fail(err, AV_EUSAGE, "--figures '%s': '%.*s' is not a figure; expected a comma-separated list of %s",
                           s, (int)(len > 64 ? 64 : len), p, allowed);
        if (k == 6) {
            bits |= AV_FIG_ALL;
            o->figures_all = 1;
        } else {
            bits |= 1u << k;
        }
        if (!end) break;
        p = end + 1;
    }
    o->figures = bits;
    return AV_OK;
}

void av_options_free(av_options *o) {
    free(o->sentence);
    o->sentence = NULL;
}

av_status av_parse_args(av_options *o, int argc, char **argv, av_err *err) {
    memset(o, 0, sizeof *o);
    o->d_model = AV_DEFAULT_D_MODEL;
    o->heads = AV_DEFAULT_HEADS;
    o->seed = AV_DEFAULT_SEED;
    o->positions = AV_POS_SINUSOIDAL;
    o->rope_style = AV_ROPE_INTERLEAVED;
    o->rope_base = 10000.0;
    o->outdir = AV_DEFAULT_OUTDIR;
    o->precision = AV_DEFAULT_PRECISION;
    o->color = AV_COLOR_AUTO;
    o->figures = AV_FIG_DEFAULT;
    o->dpi = AV_DEFAULT_DPI;
    o->scale = 1.0;
    o->format = AV_FMT_PNG;

    struct option longopts[N_OPTS + 1];
    char shortopts[2 * N_OPTS + 2];
    int ns = 0;
    shortopts[ns++] = ':'; /* report a missing argument as ':' */
    for (int i = 0; i < N_OPTS; i++) {
        longopts[i] = (struct option){kOpts[i].name, kOpts[i].has_arg, NULL, kOpts[i].val};
        if (kOpts[i].val < 256) {
            shortopts[ns++] = (char)kOpts[i].val;
            if (kOpts[i].has_arg) shortopts[ns++] = ':';
        }
    }
    shortopts[ns] = 0;
    memset(&longopts[N_OPTS], 0, sizeof longopts[N_OPTS]);

    static const char *const kPos[] = {"none", "sinusoidal", "rope"};
    static const av_positions kPosVal[] = {AV_POS_NONE, AV_POS_SINUSOIDAL, AV_POS_ROPE};
    static const char *const kStyle[] = {"interleaved", "half"};
    static const char *const kColor[] = {"auto", "always", "never"};
    static const char *const kCompare[] = {"scale", "positions", "rope-style", "order"};
    static const char *const kFormat[] = {"png", "svg", "both"};

    optind = 0; /* GNU: full re-initialisation, so the parser can run again */
    opterr = 0;
    av_status st = AV_OK;
    long long v;
    int ch, idx = 0, choice;
    while ((ch = getopt_long(argc, argv, shortopts, longopts, &idx)) != -1) {
        switch (ch) {
        case 'd':
            if ((st = parse_int("d-model", optarg, 1, AV_MAX_D_MODEL, &v, err))) return st;
            o->d_model = (int)v;
            break;
        case 'H':
            if ((st = parse_int("heads", optarg, 1, AV_MAX_HEADS, &v, err))) return st;
            o->heads = (int)v;
            break;
        case 's':
            if ((st = parse_int("seed", optarg, 0, INT64_MAX, &v, err))) return st;
            o->seed = (uint64_t)v;
            break;
        case 'p':
            if ((st = parse_choice("positions", optarg, kPos, 3, &choice, err))) return st;
            o->positions = kPosVal[choice];
            break;
        case OPT_ROPE_STYLE:
            if ((st = parse_choice("rope-style", optarg, kStyle, 2, &choice, err))) return st;
            o->rope_style = choice ? AV_ROPE_HALF : AV_ROPE_INTERLEAVED;
            break;
        case OPT_ROPE_BASE: {
            char *end = NULL;
            errno = 0;
            double b = strtod(optarg, &end);
            if (end == optarg || *end != 0)
                return av_fail(err, AV_EUSAGE, "--rope-base '%s' is not a number; allowed: a finite number > 1", optarg);
            if (!isfinite(b) || !(b > 1.0) || errno == ERANGE)
                return av_fail(err, AV_EUSAGE, "--rope-base %s is not allowed; it must be a finite number > 1 (default 10000)", optarg);
            o->rope_base = b;
            break;
        }
        case 'c': o->causal = 1; break;
        case OPT_PAD_TO:
            if ((st = parse_int("pad-to", optarg, 1, AV_MAX_TOKENS, &v, err))) return st;
            o->pad_to = (int)v;
            break;
        case OPT_ATTN_MASK: o->attn_mask = optarg; break;
        case OPT_NO_SCALE: o->no_scale = 1; break;
        case 'o':
            if (!*optarg) return av_fail(err, AV_EUSAGE, "--outdir '' is empty; give a folder name");
            o->outdir = optarg;
            break;
        case OPT_NO_PLOT: o->no_plot = 1; break;
        case OPT_DUMP:
            if (!*optarg) return av_fail(err, AV_EUSAGE, "--dump '' is empty; give a folder name");
            o->dump_dir = optarg;
            break;
        case 'w':
            if (!*optarg) return av_fail(err, AV_EUSAGE, "--weights '' is empty; give a folder name");
            o->weights_dir = optarg;
            break;
        case 'f':
            if (!*optarg) return av_fail(err, AV_EUSAGE, "--file '' is empty; give a file name or '-'");
            o->file = optarg;
            break;
        case 'v': o->verbose = 1; break;
        case 'q': o->quiet = 1; break;
        case OPT_PRECISION:
            if ((st = parse_int("precision", optarg, 0, 10, &v, err))) return st;
            o->precision = (int)v;
            break;
        case OPT_COLOR:
            if ((st = parse_choice("color", optarg, kColor, 3, &choice, err))) return st;
            o->color = (av_color)choice;
            break;
        case OPT_EXPLAIN: o->explain = optarg; break;
        case OPT_HEAD:
            if ((st = parse_int("head", optarg, 0, AV_MAX_HEADS - 1, &v, err))) return st;
            o->head = (int)v;
            break;
        case OPT_SHOW: o->show = 1; break;
        case OPT_COMPARE:
            if ((st = parse_choice("compare", optarg, kCompare, 4, &choice, err))) return st;
            o->compare = choice + 1; /* av_compare_kind: AV_CMP_SCALE = 1, ... */
            break;
        case OPT_FIGURES:
            if ((st = parse_figures(optarg, o, err))) return st;
            break;
        case OPT_FORMAT:
            if ((st = parse_choice("format", optarg, kFormat, 3, &choice, err))) return st;
            o->format = (av_format)(choice + 1);
            break;
        case OPT_CMAP: {
            int k = 0;
            while (k < N_CMAP && strcasecmp(optarg, kCmap[k]) != 0) k++;
            if (k == N_CMAP)
                return av_fail(err, AV_EUSAGE, "--cmap '%s' is not a colour map; expected viridis, magma, inferno, plasma, "
                               "cividis, gray or RdBu_r", optarg);
            o->cmap = k;
            break;
        }
        case OPT_DPI:
            if ((st = parse_int("dpi", optarg, AV_MIN_DPI, AV_MAX_DPI, &v, err))) return st;
            o->dpi = (int)v;
            break;
        case OPT_SCALE: {
            char *end = NULL;
            errno = 0;
            double f = strtod(optarg, &end);
            if (end == optarg || *end != 0)
                return av_fail(err, AV_EUSAGE, "--scale '%s' is not a number; allowed: %g..%g", optarg, AV_MIN_SCALE,
                               AV_MAX_SCALE);
            if (!isfinite(f) || errno == ERANGE || f < AV_MIN_SCALE || f > AV_MAX_SCALE)
                return av_fail(err, AV_EUSAGE, "--scale %s is outside the allowed range %g..%g", optarg, AV_MIN_SCALE,
                               AV_MAX_SCALE);
            o->scale = f;
            break;
        }
        case 'h': o->help = 1; break;
        case 'V': o->version = 1; break;
        case ':': {
            const char *name = argv[optind - 1];
            return av_fail(err, AV_EUSAGE, "option '%s' needs a value (try --help)", name ? name : "?");
        }
        default: {
            const char *name = argv[optind - 1];
            if (optopt && optopt < 256 && optopt != '?')
                return av_fail(err, AV_EUSAGE, "unknown option '-%c' (try --help)", optopt);
            if (name && name[0] == '-' && name[1] == '-') {
                /* an abbreviation that fits several long options */
                size_t len = strcspn(name + 2, "=");
                char which[256] = "";
                int hits = 0;
                for (int i = 0; i < N_OPTS; i++)
                    if (len && strncmp(kOpts[i].name, name + 2, len) == 0) {
                        hits++;
                        snprintf(which + strlen(which), sizeof which - strlen(which), " --%s", kOpts[i].name);
                    }
                if (hits > 1)
                    return av_fail(err, AV_EUSAGE, "option '%.*s' is ambiguous; possibilities:%s", (int)len + 2, name,
                                   which);
            }
            return av_fail(err, AV_EUSAGE, "unknown option '%s' (try --help)", name ? name : "?");
        }
        }
    }
    if (o->help || o->version) return AV_OK;
    if (o->head >= o->heads)
        return av_fail(err, AV_EUSAGE, "--head %d is outside 0..%d (there are %d heads)", o->head, o->heads - 1, o->heads);
    if (o->verbose && o->quiet) return av_fail(err, AV_EUSAGE, "-v/--verbose and -q/--quiet cannot be used together");
    if (o->scale * o->dpi / 100.0 > AV_MAX_SIZE_FACTOR + 1e-9)
        return av_fail(err, AV_EUSAGE,
                       "--scale %g with --dpi %d draws figures %g times their 100-dpi size; scale x dpi / 100 must be "
                       "at most %g",
                       o->scale, o->dpi, o->scale * o->dpi / 100.0, AV_MAX_SIZE_FACTOR);

    /* positional words form the sentence, joined by single spaces */
    if (optind < argc) {
        if (o->file)
            return av_fail(err, AV_EUSAGE, "give the sentence either as arguments or with -f FILE, not both");
        size_t total = 1;
        for (int i = optind; i < argc; i++) {
            total += strlen(argv[i]) + 1;
            if (total > AV_MAX_INPUT_BYTES + 1)
                return av_fail(err, AV_EUSAGE, "the sentence is longer than the %u-byte limit", AV_MAX_INPUT_BYTES);
        }
        o->sentence = malloc(total);
        if (!o->sentence) return av_fail(err, AV_ERUNTIME, "out of memory");
        o->sentence[0] = 0;
        size_t at = 0;
        for (int i = optind; i < argc; i++) {
            size_t n = strlen(argv[i]);
            memcpy(o->sentence + at, argv[i], n);
            at += n;
            if (i + 1 < argc) o->sentence[at++] = ' ';
        }
        o->sentence[at] = 0;
    } else if (!o->file) {
        return av_fail(err, AV_EUSAGE,
                       "no sentence given; try: attnviz --heads 8 \"I love deep learning\" (or -f FILE, or -f - for stdin)");
    }
    return AV_OK;
}
