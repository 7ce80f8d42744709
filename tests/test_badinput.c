/* test_badinput.c - the bad-input table (issue 5): hostile input never
 * crashes attnviz and never creates or clobbers an output file.
 *
 * Every row runs the real binary ($ATTNVIZ_BIN) inside a fresh folder that
 * already holds the outputs of "an earlier run":
 *
 *   attnviz-out/head0.png   sentinel at the default -o folder
 *   out/head0.png, out/heads.png          sentinels at -o out (prepended to every row)
 *   dump/X.npy, dump/tokens.txt           sentinels at --dump dump (prepended too)
 *   in/...                  the row's input files (sentences, weights, masks)
 *
 * and pins: the exit code (2 usage / bad input, 1 runtime or I/O), a piece
 * of stderr that names the problem after "attnviz: error: ", nothing on
 * stdout for usage errors, no "nan" on stdout ever, and that the folder tree
 * is byte-for-byte what it was (no new file or folder, no temporary left,
 * every sentinel unchanged). Then a few cases outside the table: a real
 * figure from a successful run survives later failed runs; a full disk
 * (RLIMIT_FSIZE: writes fail with EFBIG, the same path as ENOSPC) and a full
 * standard output (/dev/full); the 65,536-token boundary.
 *
 * The child runs with its own runner (run_ex) rather than testutil's
 * tu_runv because rows need a working folder, a chosen stdout and a file
 * size limit; it captures output the same way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>

#include "testutil.h"

/* ------------------------------------------------------------------------- */
/* runner */

typedef tu_run_opts run_opts; /* cwd, stdout_fd, fsize_limit (testutil.h) */
#define run_ex tu_run_ex

/* ------------------------------------------------------------------------- */
/* folder snapshots: one line per entry, "path mode size fnv1a", sorted */

typedef struct {
    char *buf;
    size_t len, cap;
} strbuf;

static void sb_add(strbuf *s, const char *line) {
    size_t n = strlen(line);
    if (s->len + n + 1 > s->cap) {
        s->cap = (s->len + n + 1) * 2 + 256;
        s->buf = realloc(s->buf, s->cap);
        if (!s->buf) abort();
    }
    memcpy(s->buf + s->len, line, n + 1);
    s->len += n;
}

static uint64_t fnv_file(const char *path) {
    uint64_t h = 0xcbf29ce484222325ull;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    int c;
    while ((c = getc(f)) != EOF) h = (h ^ (unsigned char)c) * 0x100000001b3ull;
    fclose(f);
    return h;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void walk(const char *root, const char *rel, char ***lines, size_t *n, size_t *cap) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char r2[4200], full[8400], line[8600];
        snprintf(r2, sizeof r2, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, r2);
        struct stat st;
        if (lstat(full, &st) != 0) continue;
        int reg = S_ISREG(st.st_mode); /* a folder's own size varies by file system: not compared */
        unsigned long long h = reg ? (unsigned long long)fnv_file(full) : 0;
        snprintf(line, sizeof line, "%s %o %lld %016llx\n", r2, (unsigned)st.st_mode, reg ? (long long)st.st_size : 0LL, h);
        if (*n == *cap) {
            *cap = *cap * 2 + 16;
            *lines = realloc(*lines, *cap * sizeof **lines);
            if (!*lines) abort();
        }
        (*lines)[(*n)++] = strdup(line);
        if (S_ISDIR(st.st_mode)) walk(root, r2, lines, n, cap);
    }
    closedir(d);
}

/* The whole tree under root as text (caller frees). */
static char *snapshot(const char *root) {
    char **lines = NULL;
    size_t n = 0, cap = 0;
    walk(root, "", &lines, &n, &cap);
    qsort(lines, n, sizeof *lines, cmp_str);
    strbuf s = {NULL, 0, 0};
    sb_add(&s, "");
    for (size_t i = 0; i < n; i++) {
        sb_add(&s, lines[i]);
        free(lines[i]);
    }
    free(lines);
    return s.buf;
}

/* 0 if the tree under root is still `before` and holds no temporary;
 * otherwise print both listings and return 1. */
static int tree_changed(const char *before, const char *root, const char *row) {
    char *after = snapshot(root);
    int bad = 0;
    if (strcmp(before, after) != 0) {
        print_message("row %s: the folder tree changed (created, changed or removed a file)\n--- before\n%s--- after\n%s",
                      row, before, after);
        bad = 1;
    } else if (strstr(after, ".tmp")) {
        print_message("row %s: a temporary file was left behind\n%s", row, after);
        bad = 1;
    }
    free(after);
    return bad;
}

static void assert_tree_unchanged(const char *before, const char *root, const char *row) {
    if (tree_changed(before, root, row)) fail_msg("row %s: outputs not left as they were", row);
}

/* ------------------------------------------------------------------------- */
/* fixture */

typedef struct {
    char *root;     /* fresh folder, the child's working folder */
    char path[8][4200];
    int slot;
} fixture;

static const char kPngSentinel[] = "\x89PNG\r\n\x1a\nsentinel: a figure from an earlier run\n";
static const char kNpySentinel[] = "\x93NUMPY sentinel: a tensor from an earlier run\n";

/* root/rel (a few live at once) */
static const char *at(fixture *fx, const char *rel) {
    char *p = fx->path[fx->slot++ % 8];
    snprintf(p, 4200, "%s/%s", fx->root, rel);
    return p;
}

static void put_bytes(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) fail_msg("cannot create %s: %s", path, strerror(errno));
    if (n && fwrite(data, 1, n, f) != n) abort();
    if (fclose(f) != 0) abort();
}

static void put_text(const char *path, const char *text) { put_bytes(path, text, strlen(text)); }

static int setup(void **state) {
    fixture *fx = calloc(1, sizeof *fx);
    fx->root = make_tmpdir();
    mkdir(at(fx, "attnviz-out"), 0755);
    mkdir(at(fx, "out"), 0755);
    mkdir(at(fx, "dump"), 0755);
    mkdir(at(fx, "in"), 0755);
    put_bytes(at(fx, "attnviz-out/head0.png"), kPngSentinel, sizeof kPngSentinel - 1);
    put_bytes(at(fx, "out/head0.png"), kPngSentinel, sizeof kPngSentinel - 1);
    put_bytes(at(fx, "out/heads.png"), kPngSentinel, sizeof kPngSentinel - 1);
    put_bytes(at(fx, "dump/X.npy"), kNpySentinel, sizeof kNpySentinel - 1);
    put_text(at(fx, "dump/tokens.txt"), "sentinel\n");
    put_text(at(fx, "in/afile"), "a regular file, not a folder\n");
    *state = fx;
    return 0;
}

static int teardown(void **state) {
    fixture *fx = *state;
    chmod(at(fx, "out"), 0755); /* the unwritable-folder row */
    rm_rf(fx->root);
    free(fx);
    return 0;
}

/* ------------------------------------------------------------------------- */
/* .npy writers for the --weights and --attn-mask rows */

/* A format 1.0 file: magic, version, header length, dict padded with spaces
 * to a 64-byte boundary and ended by '\n' (as np.save), then data. */
static void put_npy(const char *path, const char *dict, const void *data, size_t n) {
    unsigned char head[512];
    size_t dl = strlen(dict);
    size_t total = 10 + dl + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = dl + pad + 1;
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    head[8] = (unsigned char)(hlen & 0xff);
    head[9] = (unsigned char)(hlen >> 8);
    memcpy(head + 10, dict, dl);
    memset(head + 10 + dl, ' ', pad);
    head[10 + dl + pad] = '\n';
    FILE *f = fopen(path, "wb");
    if (!f) fail_msg("cannot create %s", path);
    fwrite(head, 1, 10 + hlen, f);
    if (n) fwrite(data, 1, n, f);
    fclose(f);
}

static float g_f[64 * 64];
static unsigned char g_b[64 * 64];

static void fill_floats(size_t n, float v) {
    for (size_t i = 0; i < n; i++) g_f[i] = v == 0 ? 0.01f * (float)(i % 13) - 0.05f : v;
}

/* in/w/ with one weight file; the folder is --weights in/w. */
static const char *weights_dir(fixture *fx) {
    mkdir(at(fx, "in/w"), 0755);
    return at(fx, "in/w");
}

#define DICT(descr, fortran, shape) "{'descr': '" descr "', 'fortran_order': " fortran ", 'shape': " shape ", }"

static void prep_w_file_for_folder(fixture *fx) {
    weights_dir(fx);
    fill_floats(64, 0);
    put_npy(at(fx, "in/w/W_Q.npy"), DICT("<f4", "False", "(8, 8)"), g_f, 256);
}
static void prep_w_truncated(fixture *fx) {
    weights_dir(fx);
    fill_floats(64, 0);
    put_npy(at(fx, "in/w/W_Q.npy"), DICT("<f4", "False", "(8, 8)"), g_f, 100);
}
static void prep_w_hlen_past_eof(fixture *fx) {
    weights_dir(fx);
    unsigned char b[] = "\x93NUMPY\x01\x00\xe8\x03{'descr': '<f4', 'fortran_order': False, 'shape': (8, 8), }";
    put_bytes(at(fx, "in/w/W_Q.npy"), b, sizeof b - 1);
}
static void prep_w_lying_shape(fixture *fx) { /* says (8, 8), holds (4, 8) */
    weights_dir(fx);
    fill_floats(32, 0);
    put_npy(at(fx, "in/w/W_K.npy"), DICT("<f4", "False", "(8, 8)"), g_f, 32 * 4);
}
static void prep_w_huge_claim(fixture *fx) { /* claims 2^48 floats, holds 64: no huge allocation */
    weights_dir(fx);
    fill_floats(64, 0);
    put_npy(at(fx, "in/w/W_Q.npy"), DICT("<f4", "False", "(16777216, 16777216)"), g_f, 64 * 4);
}
static void prep_w_trailing(fixture *fx) {
    weights_dir(fx);
    fill_floats(65, 0);
    put_npy(at(fx, "in/w/W_Q.npy"), DICT("<f4", "False", "(8, 8)"), g_f, 65 * 4);
}
static void prep_w_i8(fixture *fx) {
    weights_dir(fx);
    memset(g_f, 0, sizeof g_f);
    put_npy(at(fx, "in/w/W_Q.npy"), DICT("<i8", "False", "(8, 8)"), g_f, 64 * 8);
}
/* torch's .half() weights, saved as numpy has them */
static void prep_w_f2(fixture *fx) {
    weights_dir(fx);
    memset(g_f, 0, sizeof g_f);
    put_npy(at(fx, "in/w/W_Q.npy"), DICT("<f2", "False", "(8, 8)"), g_f, 64 * 2);
}
static void prep_mask_f2(fixture *fx) {
    memset(g_f, 0, sizeof g_f);
    put_npy(at(fx, "in/m.npy"), DICT("<f2", "False", "(4, 4)"), g_f, 16 * 2);
}
static void prep_w_big_endian(fixture *fx) {
    weights_dir(fx);
    fill_floats(64, 0);
    put_npy(at(fx, "in/w/W_V.npy"), DICT(">f4", "False", "(8, 8)"), g_f, 64 * 4);
}
static void prep_w_bool(fixture *fx) {
    weights_dir(fx);
    memset(g_b, 1, 64);
    put_npy(at(fx, "in/w/W_Q.npy"), DICT("|b1", "False", "(8, 8)"), g_b, 64);
}
static void prep_w_shape(fixture *fx) {
    weights_dir(fx);
    fill_floats(9, 0);
    put_npy(at(fx, "in/w/W_O.npy"), DICT("<f4", "False", "(3, 3)"), g_f, 9 * 4);
}
static void prep_x_width(fixture *fx) { /* T = 4 tokens, but X is 16 wide: a d_model 16 folder */
    weights_dir(fx);
    fill_floats(64, 0);
    put_npy(at(fx, "in/w/X.npy"), DICT("<f4", "False", "(4, 16)"), g_f, 64 * 4);
}
static void prep_x_shape(fixture *fx) { /* T = 4 tokens, but X has 5 rows */
    weights_dir(fx);
    fill_floats(40, 0);
    put_npy(at(fx, "in/w/X.npy"), DICT("<f4", "False", "(5, 8)"), g_f, 40 * 4);
}
/* X of 5 rows beside the tokens.txt of the --dump it came from (5 tokens, one a wide character): the message
 * names them and two ways on; with a tokens.txt of another length (not that X's dump) it says nothing more */
static void prep_x_shape_dumped(fixture *fx) {
    prep_x_shape(fx);
    put_text(at(fx, "in/w/tokens.txt"), "the\ncat\n\xE7\x8C\xAB\nsat\ndown\n");
}
static void prep_x_shape_other_tokens(fixture *fx) {
    prep_x_shape(fx);
    put_text(at(fx, "in/w/tokens.txt"), "a\nb\n");
}
static void prep_w_nan(fixture *fx) {
    weights_dir(fx);
    fill_floats(64, 0);
    g_f[5] = NAN;
    put_npy(at(fx, "in/w/W_Q.npy"), DICT("<f4", "False", "(8, 8)"), g_f, 64 * 4);
}
static void prep_w_inf(fixture *fx) {
    weights_dir(fx);
    fill_floats(64, 0);
    g_f[9] = -INFINITY;
    put_npy(at(fx, "in/w/W_K.npy"), DICT("<f4", "False", "(8, 8)"), g_f, 64 * 4);
}
static void prep_w_huge_values(fixture *fx) { /* finite, but Q·Kᵀ overflows float32 */
    weights_dir(fx);
    fill_floats(64, 1e30f);
    put_npy(at(fx, "in/w/W_Q.npy"), DICT("<f4", "False", "(8, 8)"), g_f, 64 * 4);
    put_npy(at(fx, "in/w/W_K.npy"), DICT("<f4", "False", "(8, 8)"), g_f, 64 * 4);
}
static void prep_w_not_npy(fixture *fx) {
    weights_dir(fx);
    put_text(at(fx, "in/w/W_Q.npy"), "this is not a numpy file\n");
}
static void prep_w_empty(fixture *fx) { weights_dir(fx); }
/* the folder `attnviz --train reverse -o w` writes (its files' content is not read before the message) */
static void prep_w_model_folder(fixture *fx) {
    weights_dir(fx);
    put_text(at(fx, "in/w/config.json"), "{\"model_type\": \"gpt2\"}\n");
    put_text(at(fx, "in/w/model.safetensors"), "not read\n");
}

static void prep_mask_shape(fixture *fx) {
    memset(g_b, 0, 9);
    put_npy(at(fx, "in/m.npy"), DICT("|b1", "False", "(3, 3)"), g_b, 9);
}
static void prep_mask_float(fixture *fx) {
    fill_floats(16, 0);
    put_npy(at(fx, "in/m.npy"), DICT("<f4", "False", "(4, 4)"), g_f, 16 * 4);
}
/* PyTorch's additive attn_mask, np.triu(np.full((4, 4), -np.inf), 1): 0 keeps, -inf masks */
static void prep_mask_additive(fixture *fx) {
    fill_floats(16, 0);
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) g_f[i * 4 + j] = -INFINITY;
    put_npy(at(fx, "in/m.npy"), DICT("<f4", "False", "(4, 4)"), g_f, 16 * 4);
}
/* the tutorials' np.tril(np.ones((4, 4))), float, 1 = keep; and masked_fill(mask, -1e9)'s additive 0/-1e9 */
static void prep_mask_tril_float(fixture *fx) {
    for (int i = 0; i < 16; i++) g_f[i] = i % 4 <= i / 4 ? 1.0f : 0.0f;
    put_npy(at(fx, "in/m.npy"), DICT("<f4", "False", "(4, 4)"), g_f, 16 * 4);
}
static void prep_mask_additive_1e9(fixture *fx) {
    for (int i = 0; i < 16; i++) g_f[i] = i % 4 > i / 4 ? -1e9f : 0.0f;
    put_npy(at(fx, "in/m.npy"), DICT("<f4", "False", "(4, 4)"), g_f, 16 * 4);
}
/* issue 10: an int64 mask got "use float32 ...; the mask must be a bool" */
static void prep_mask_int64(fixture *fx) {
    memset(g_f, 0, sizeof g_f);
    put_npy(at(fx, "in/m.npy"), DICT("<i8", "False", "(4, 4)"), g_f, 16 * 8);
}
static void prep_mask_1d(fixture *fx) {
    memset(g_b, 0, 16);
    put_npy(at(fx, "in/m.npy"), DICT("|b1", "False", "(16,)"), g_b, 16);
}
static void prep_mask_value(fixture *fx) {
    memset(g_b, 0, 16);
    g_b[6] = 2;
    put_npy(at(fx, "in/m.npy"), DICT("|b1", "False", "(4, 4)"), g_b, 16);
}
static void prep_mask_truncated(fixture *fx) {
    memset(g_b, 0, 16);
    put_npy(at(fx, "in/m.npy"), DICT("|b1", "False", "(4, 4)"), g_b, 10);
}

/* ------------------------------------------------------------------------- */
/* sentence files */

static void prep_f_overlong(fixture *fx) { put_text(at(fx, "in/s.txt"), "bad \xc0\xaf slash\n"); }
static void prep_f_lone(fixture *fx) { put_text(at(fx, "in/s.txt"), "x \x80 y\n"); }
static void prep_f_truncated(fixture *fx) { put_text(at(fx, "in/s.txt"), "end \xe4\xbd\n"); }
static void prep_f_nul(fixture *fx) { put_bytes(at(fx, "in/s.txt"), "abc\0def\n", 8); }
/* "x \x80 y" saved with Notepad's "UTF-8 with BOM" and CR LF: the 0x80 is the file's byte 5 (od -c) */
static void prep_f_bom_lone(fixture *fx) { put_text(at(fx, "in/s.txt"), "\xEF\xBB\xBFx \x80 y\r\n"); }
/* 我爱深度学习 as Windows Notepad saves Chinese (GBK), and "hi" as its "Unicode" (UTF-16LE with a BOM) */
static void prep_f_gbk(fixture *fx) { put_text(at(fx, "in/s.txt"), "\xce\xd2\xb0\xae\xc9\xee\xb6\xc8\xd1\xa7\xcf\xb0\r\n"); }
/* "I love you" as Python's encode("utf-16-le") saves it: no byte-order mark */
static void prep_f_utf16le_no_bom(fixture *fx) { put_bytes(at(fx, "in/s.txt"), "I\0 \0l\0o\0v\0e\0 \0y\0o\0u\0", 20); }
static void prep_f_utf16(fixture *fx) { put_bytes(at(fx, "in/s.txt"), "\xff\xfeh\0i\0", 6); }
static void prep_f_utf32le(fixture *fx) { put_bytes(at(fx, "in/s.txt"), "\xff\xfe\0\0h\0\0\0", 8); }
static void prep_f_utf32be(fixture *fx) { put_bytes(at(fx, "in/s.txt"), "\0\0\xfe\xff\0\0\0h", 8); }
static void prep_f_latin1(fixture *fx) { put_text(at(fx, "in/s.txt"), "caf\xe9 au lait\n"); }
static void prep_f_big5(fixture *fx) { put_text(at(fx, "in/s.txt"), "\xbe\xc7\xb2\xdf\xa4\x40\n"); }
static void prep_f_sjis(fixture *fx) { put_text(at(fx, "in/s.txt"), "\x93\xfa\x96\x7b\x8c\xea\n"); }
/* a Chinese file name long enough that "-f PATH is" passed 64 bytes: the message was cut inside its name */
#define LONG_CJK_NAME "第三课注意力机制练习第三课注意力.txt" /* 16 characters, 48 bytes, then .txt */
static void prep_f_nul_long_name(fixture *fx) { put_bytes(at(fx, "in/" LONG_CJK_NAME), "abc\0def\n", 8); }
static void prep_f_empty(fixture *fx) { put_text(at(fx, "in/s.txt"), ""); }
static void prep_f_newlines(fixture *fx) { put_text(at(fx, "in/s.txt"), "\n\r\n\n"); }
/* a byte-order mark and no text: Notepad's empty "UTF-8 with BOM" and "Unicode" files */
static void prep_f_only_bom(fixture *fx) { put_bytes(at(fx, "in/s.txt"), "\xef\xbb\xbf", 3); }
static void prep_f_bom_newline(fixture *fx) { put_bytes(at(fx, "in/s.txt"), "\xef\xbb\xbf\r\n", 5); }
static void prep_f_only_utf16_bom(fixture *fx) { put_bytes(at(fx, "in/s.txt"), "\xff\xfe", 2); }
static void prep_f_utf16_bom_newline(fixture *fx) { put_bytes(at(fx, "in/s.txt"), "\xfe\xff\0\r\0\n", 6); }
static void prep_f_blanks(fixture *fx) { put_text(at(fx, "in/s.txt"), " \t\xE3\x80\x80 \n \n"); } /* U+3000 too */

#define MIB (1u << 20)

static void put_big_line(const char *path, size_t n, const char *unit) {
    size_t u = strlen(unit);
    char *b = malloc(n);
    for (size_t i = 0; i < n; i++) b[i] = unit[i % u];
    b[n - 1] = '\n';
    put_bytes(path, b, n);
    free(b);
}
static void prep_f_1mib_words(fixture *fx) { put_big_line(at(fx, "in/s.txt"), MIB, "a "); }
static void prep_f_1mib_token(fixture *fx) { put_big_line(at(fx, "in/s.txt"), MIB, "x"); }
static void prep_f_over_limit(fixture *fx) { put_big_line(at(fx, "in/s.txt"), MIB + 2, "w "); }
static void prep_f_dir(fixture *fx) { mkdir(at(fx, "in/adir"), 0755); }
/* a sentence file that exists but may not be read (mode 000): the machine refuses, exit 1 */
static void prep_f_unreadable(fixture *fx) {
    put_bytes(at(fx, "in/s.txt"), "hi\n", 3);
    if (chmod(at(fx, "in/s.txt"), 0) != 0) abort();
}

/* the unwritable -o folder: mode 0555 (only when permissions are enforced) */
static void prep_out_readonly(fixture *fx) {
    if (chmod(at(fx, "out"), 0555) != 0) abort();
}

/* ------------------------------------------------------------------------- */
/* the table */

enum {
    F_NO_AUTO_OUT = 1,   /* do not prepend "-o out" (the row's own -o, or the default) */
    F_NO_AUTO_DUMP = 2,  /* do not prepend "--dump dump" */
    F_TRACE_OK = 4,      /* stdout may hold the trace (the error comes after it) */
    F_NEEDS_NONROOT = 8, /* file permissions must be enforced (not root) */
};

typedef struct {
    const char *name;
    int code;
    const char *msg;       /* must appear in stderr after "attnviz: error: "; "@/x" (to the next space) is
                            * <root>/x as attnviz quotes it (tu_sh_word) */
    const char *args[16];  /* "@/x" is replaced by <root>/x */
    void (*prep)(fixture *);
    unsigned flags;
    const char *in;        /* stdin bytes (for -f -), or NULL */
    size_t in_len;
} bad_case;

#define A600 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" /* a value longer than a message */
#define S4 "I love deep learning" /* T = 4 */
#define W8 "--d-model", "8", "--heads", "2"
#define C50 "cccccccccccccccccccccccccccccccccccccccccccccccccc"
#define C300 C50 C50 C50 C50 C50 C50                              /* one folder name past NAME_MAX (255) */
#define D200 C50 C50 C50 C50 "/"
#define D4200 D200 D200 D200 D200 D200 D200 D200 D200 D200 D200 D200 D200 D200 D200 D200 D200 D200 D200 D200 D200 D200

static const bad_case kCases[] = {
    /* the sentence */
    {"empty_sentence", 2, "the sentence is empty", {""}, NULL, 0, NULL, 0},
    {"whitespace_only", 2, "the sentence has no tokens (only whitespace or invisible characters)", {"  \t \n "}, NULL, 0, NULL, 0},
    {"argv_utf8_overlong", 2, "invalid UTF-8 at byte offset 4 (byte 0xC0): overlong encoding", {"bad \xc0\xaf slash"}, NULL, 0, NULL, 0},
    {"argv_utf8_lone_continuation", 2, "invalid UTF-8 at byte offset 2 (byte 0x80): unexpected continuation byte", {"x \x80 y"}, NULL, 0, NULL, 0},
    {"argv_utf8_truncated", 2, "invalid UTF-8 at byte offset 4 (byte 0xE4): truncated multi-byte sequence", {"end \xe4\xbd"}, NULL, 0, NULL, 0},
    {"argv_utf8_surrogate", 2, "invalid UTF-8 at byte offset 0 (byte 0xED): UTF-16 surrogate", {"\xed\xa0\x80"}, NULL, 0, NULL, 0},
    {"argv_utf8_above_max", 2, "invalid UTF-8 at byte offset 2 (byte 0xF4): code point above U+10FFFF", {"a \xf4\x90\x80\x80"}, NULL, 0, NULL, 0},
    {"file_utf8_overlong", 2, "invalid UTF-8 at byte offset 4 (byte 0xC0): overlong encoding", {"-f", "@/in/s.txt"}, prep_f_overlong, 0, NULL, 0},
    {"file_utf8_lone_continuation", 2, "invalid UTF-8 at byte offset 2 (byte 0x80): unexpected continuation byte", {"-f", "@/in/s.txt"}, prep_f_lone, 0, NULL, 0},
    {"file_utf8_truncated", 2, "invalid UTF-8 at byte offset 4 (byte 0xE4): truncated multi-byte sequence", {"-f", "@/in/s.txt"}, prep_f_truncated, 0, NULL, 0},
    /* text in another encoding says how to convert it (a Chinese reader's report: a GBK file got only
     * "invalid UTF-8 at byte offset 0") */
    /* each encoding with its iconv name: "e.g. iconv -f GBK" was followed for a Big5 file, which it turned into
     * other characters with no error (a Chinese-speaking learner's pass) */
    {"file_gbk", 2, "is not UTF-8: invalid UTF-8 at byte offset 0 (byte 0xCE): invalid continuation byte; if it is "
     "GBK (Simplified Chinese), convert it with: iconv -f GBK -t UTF-8 ", {"-f", "@/in/s.txt"}, prep_f_gbk, 0, NULL, 0},
    {"file_gbk_others_named", 2, "@/in/s.txt | attnviz -f - (another encoding: put its name for GBK: BIG5 (Traditional "
     "Chinese), SHIFT_JIS (Japanese), LATIN1 (Western European))", {"-f", "@/in/s.txt"}, prep_f_gbk, 0, NULL, 0},
    /* a Latin-1 file (é is 0xE9) was told only GBK, Big5, Shift_JIS (a tester's report); é stands alone among ASCII
     * bytes, where a CJK character is two bytes past ASCII */
    {"file_latin1", 2, "is not UTF-8: invalid UTF-8 at byte offset 3 (byte 0xE9): invalid continuation byte; ",
     {"-f", "@/in/s.txt"}, prep_f_latin1, 0, NULL, 0},
    {"file_latin1_named", 2, "; if it is LATIN1 (Western European), convert it with: iconv -f LATIN1 -t UTF-8 ",
     {"-f", "@/in/s.txt"}, prep_f_latin1, 0, NULL, 0},
    /* 學習 in Big5 (BE C7 B2 DF) and 一 (A4 40): the trail byte 0x40 is no GB2312 one */
    {"file_big5", 2, "; if it is BIG5 (Traditional Chinese), convert it with: iconv -f BIG5 -t UTF-8 ",
     {"-f", "@/in/s.txt"}, prep_f_big5, 0, NULL, 0},
    /* 日本語 in Shift_JIS (93 FA 96 7B 8C EA): leads 0x81-0x9F are not Big5's */
    {"file_shift_jis", 2, "; if it is SHIFT_JIS (Japanese), convert it with: iconv -f SHIFT_JIS -t UTF-8 ",
     {"-f", "@/in/s.txt"}, prep_f_sjis, 0, NULL, 0},
    {"file_utf16", 2, "starts with a UTF-16 byte-order mark (0xFF 0xFE); attnviz reads UTF-8: convert it first, e.g. "
     "iconv -f UTF-16 -t UTF-8 ", {"-f", "@/in/s.txt"}, prep_f_utf16, 0, NULL, 0},
    {"file_utf16_piped", 2, "@/in/s.txt | attnviz -f -", {"-f", "@/in/s.txt"}, prep_f_utf16, 0, NULL, 0},
    /* UTF-32's marks (FF FE 00 00 little-endian, 00 00 FE FF big-endian): FF FE 00 00 was named UTF-16 (a tester's
     * report), and iconv -f UTF-16 makes U+0000s of it */
    {"file_utf32le", 2, "starts with a UTF-32 byte-order mark (0xFF 0xFE 0x00 0x00); attnviz reads UTF-8: convert it "
     "first, e.g. iconv -f UTF-32 -t UTF-8 ", {"-f", "@/in/s.txt"}, prep_f_utf32le, 0, NULL, 0},
    {"file_utf32be", 2, "starts with a UTF-32 byte-order mark (0x00 0x00 0xFE 0xFF); attnviz reads UTF-8: convert it "
     "first, e.g. iconv -f UTF-32 -t UTF-8 ", {"-f", "@/in/s.txt"}, prep_f_utf32be, 0, NULL, 0},
    {"stdin_utf32le", 2, "the standard input starts with a UTF-32 byte-order mark (0xFF 0xFE 0x00 0x00); attnviz reads "
     "UTF-8: convert it first, e.g. ", {"-f", "-"}, NULL, 0,
     "\xff\xfe\0\0h\0\0\0", 8},
    /* the command (iconv reading the file this runner redirects, or in a pipe) is test_teach's
     * test_stdin_encoding_advice_runs_as_typed */
    {"stdin_gbk", 2, "the standard input is not UTF-8: invalid UTF-8 at byte offset 0 (byte 0xCE): invalid continuation "
     "byte; if it is GBK (Simplified Chinese), convert it with: ",
     {"-f", "-"}, NULL, 0, "\xce\xd2\xb0\xae\n", 5},
    {"argv_gbk", 2, "the text is not UTF-8: invalid UTF-8 at byte offset 0 (byte 0xCE): invalid continuation byte; a "
     "terminal in another encoding (GBK, Big5) sends such bytes: switch it to UTF-8", {"\xce\xd2\xb0\xae"}, NULL, 0, NULL,
     0},
    /* a NUL byte names the file and says what to do: it named neither, and UTF-16 without a byte-order mark
     * (every other byte 0 in English) got no word of UTF-16 */
    {"file_nul_byte", 2, "-f @/in/s.txt is not plain UTF-8 text: the input contains a NUL byte at byte offset 3; a "
     "word-processor or other binary file (.docx, .pdf) holds NUL bytes: save the text as plain UTF-8 text first",
     {"-f", "@/in/s.txt"}, prep_f_nul, 0, NULL, 0},
    {"file_nul_byte_long_name", 2, "-f @/in/" LONG_CJK_NAME " is not plain UTF-8 text: the input contains a NUL "
     "byte at byte offset 3", {"-f", "@/in/" LONG_CJK_NAME}, prep_f_nul_long_name, 0, NULL, 0},
    {"stdin_nul_byte", 2, "the standard input is not plain UTF-8 text: the input contains a NUL byte at byte offset 2",
     {"-f", "-"}, NULL, 0, "hi\0there\n", 9},
    {"file_utf16le_without_bom", 2, "-f @/in/s.txt is not plain UTF-8 text: the input contains a NUL byte at byte "
     "offset 1; it looks like UTF-16LE text without a byte-order mark: convert it first, e.g. iconv -f UTF-16LE -t UTF-8 ",
     {"-f", "@/in/s.txt"}, prep_f_utf16le_no_bom, 0, NULL, 0},
    {"stdin_utf16be_without_bom", 2, "the standard input is not plain UTF-8 text: the input contains a NUL byte at byte "
     "offset 0; it looks like UTF-16BE text without a byte-order mark: convert it first, e.g. ", {"-f", "-"}, NULL, 0, "\0I\0 \0l\0o\0v\0e", 12},
    /* after a UTF-8 byte-order mark, the offset counts it, as od -c and cmp do: it was told 3 bytes too early
     * ("byte offset 2" for the 0x80 at the file's byte 5; hand-counted: EF BB BF x ' ' 0x80) */
    {"file_utf8_lone_continuation_after_bom", 2, "invalid UTF-8 at byte offset 5 (byte 0x80): unexpected continuation byte", {"-f", "@/in/s.txt"}, prep_f_bom_lone, 0, NULL, 0},
    {"stdin_nul_byte_after_bom", 2, "the standard input is not plain UTF-8 text: the input contains a NUL byte at byte offset 5;",
     {"-f", "-"}, NULL, 0, "\xEF\xBB\xBFhi\0there\n", 12},
    {"stdin_utf8_truncated", 2, "invalid UTF-8 at byte offset 3 (byte 0xE6): truncated multi-byte sequence", {"-f", "-"}, NULL, 0, "ok \xe6\x88", 5},
    /* the file named, and what it held: "the sentence is empty" named neither (a tester's pass) */
    {"file_empty", 2, "-f @/in/s.txt holds no text (it is empty); give at least one word", {"-f", "@/in/s.txt"}, prep_f_empty, 0, NULL, 0},
    /* only a byte-order mark was called "empty" (a Chinese-speaking learner's pass), and a UTF-16 one got "convert
     * it first", which gives an empty file */
    {"file_only_utf8_bom", 2, "-f @/in/s.txt holds no text (only a UTF-8 byte-order mark (0xEF 0xBB 0xBF)); give at least one word", {"-f", "@/in/s.txt"}, prep_f_only_bom, 0, NULL, 0},
    {"file_utf8_bom_and_newline", 2, "-f @/in/s.txt holds no text (only a UTF-8 byte-order mark (0xEF 0xBB 0xBF) and line breaks); give at least one word", {"-f", "@/in/s.txt"}, prep_f_bom_newline, 0, NULL, 0},
    {"file_only_utf16_bom", 2, "-f @/in/s.txt holds no text (only a UTF-16 byte-order mark (0xFF 0xFE)); give at least one word", {"-f", "@/in/s.txt"}, prep_f_only_utf16_bom, 0, NULL, 0},
    {"file_utf16_bom_and_newline", 2, "-f @/in/s.txt holds no text (only a UTF-16 byte-order mark (0xFE 0xFF) and white space or line breaks); give at least one word", {"-f", "@/in/s.txt"}, prep_f_utf16_bom_newline, 0, NULL, 0},
    {"stdin_only_utf8_bom", 2, "the standard input holds no text (only a UTF-8 byte-order mark (0xEF 0xBB 0xBF)); give at least one word", {"-f", "-"}, NULL, 0, "\xef\xbb\xbf", 3},
    {"stdin_only_utf16_bom", 2, "the standard input holds no text (only a UTF-16 byte-order mark (0xFF 0xFE)); give at least one word", {"-"}, NULL, 0, "\xff\xfe", 2},
    {"file_only_newlines", 2, "-f @/in/s.txt holds no text (only line breaks); give at least one word", {"-f", "@/in/s.txt"}, prep_f_newlines, 0, NULL, 0},
    {"file_only_white_space", 2, "-f @/in/s.txt holds no text (only line breaks and white space); give at least one word", {"-f", "@/in/s.txt"}, prep_f_blanks, 0, NULL, 0},
    {"file_1mib_line_of_words", 2, "the sentence has 524288 tokens, more than the maximum 65536; shorten it", {"-f", "@/in/s.txt"}, prep_f_1mib_words, 0, NULL, 0},
    {"file_1mib_single_token", 2, "token 0 (\"xxxxxxxxxxxxxxxx…\") is 1048575 bytes long; the maximum is 64 bytes", {"-f", "@/in/s.txt"}, prep_f_1mib_token, 0, NULL, 0},
    /* the file's size is named (MIB + 2 bytes), as the limit is */
    {"file_over_1mib", 2, "@/in/s.txt (1048578 bytes) is larger than the 1048576-byte limit; give a part of it: a run takes at most 65536 tokens", {"-f", "@/in/s.txt"}, prep_f_over_limit, 0, NULL, 0},
    {"file_missing", 2, "cannot read", {"-f", "@/in/none.txt"}, NULL, 0, NULL, 0},
    {"file_unreadable", 1, "Permission denied", {"-f", "@/in/s.txt"}, prep_f_unreadable, F_NEEDS_NONROOT, NULL, 0},
    {"file_is_a_folder", 2, "Is a directory", {"-f", "@/in/adir"}, prep_f_dir, 0, NULL, 0},
    {"token_65_bytes", 2, "token 1 (\"xxxxxxxxxxxxxxxx…\") is 65 bytes long; the maximum is 64 bytes",
     {"a", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}, NULL, 0, NULL, 0},
    /* one grapheme longer than the preview's 16 bytes, or only marks: the first code points show which token
     * (x, as x + U+0301 has no composed form: the sentence is read in NFC, where e + U+0301 is é, a byte less) */
    {"token_one_grapheme_65_bytes", 2, "token 0 (U+0078 U+0301 U+0301 U+0301 U+0301 U+0301 …) is 65 bytes long",
     {"x\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81"}, NULL, 0, NULL, 0},
    {"token_only_marks", 2, "token 0 (U+0301 U+0301 U+0301 U+0301 U+0301 U+0301 …) is 66 bytes long",
     {"\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81\xCC\x81"}, NULL, 0, NULL, 0},
    /* options */
    {"heads_0", 2, "--heads 0 is outside the allowed range 1..64", {"--heads", "0", S4}, NULL, 0, NULL, 0},
    {"heads_minus_1", 2, "--heads -1 is outside the allowed range 1..64", {"--heads", "-1", S4}, NULL, 0, NULL, 0},
    {"heads_7_d512", 2, "--heads 7 does not divide d_model 512", {"--heads", "7", "--d-model", "512", S4}, NULL, 0, NULL, 0},
    {"heads_abc", 2, "--heads 'abc' is not a whole number", {"--heads", "abc", S4}, NULL, 0, NULL, 0},
    {"heads_99999999999", 2, "--heads 99999999999 is outside the allowed range 1..64", {"--heads", "99999999999", S4}, NULL, 0, NULL, 0},
    {"heads_65", 2, "--heads 65 is outside the allowed range 1..64", {"--heads", "65", "--d-model", "4095", S4}, NULL, 0, NULL, 0},
    {"d_model_0", 2, "--d-model 0 is outside the allowed range 1..4096", {"--d-model", "0", S4}, NULL, 0, NULL, 0},
    {"d_model_4097", 2, "--d-model 4097 is outside the allowed range 1..4096", {"--d-model", "4097", S4}, NULL, 0, NULL, 0},
    /* one head, one: "with 1 heads give" (a tester's report) */
    {"odd_d_k_with_rope_one_head", 2, "d_k = d_model / heads = 63 / 1 = 63; with 1 head give --d-model 62 or 64 "
     "(multiples of 2·heads, for an even d_k); no head count keeps 63: RoPE needs an even d_model", {"--d-model", "63", "--heads", "1",
     "--positions", "rope", S4}, NULL, 0, NULL, 0},
    {"odd_d_k_with_rope", 2, "d_k must be even; d_k = d_model / heads = 10 / 2 = 5", {"--d-model", "10", "--heads", "2", "--positions", "rope", S4}, NULL, 0, NULL, 0},
    {"rope_base_0", 2, "--rope-base 0 is not allowed", {"-p", "rope", "--rope-base", "0", S4}, NULL, 0, NULL, 0},
    {"rope_base_minus_1", 2, "--rope-base -1 is not allowed", {"-p", "rope", "--rope-base", "-1", S4}, NULL, 0, NULL, 0},
    {"rope_base_nan", 2, "--rope-base 'nan' is not a number", {"-p", "rope", "--rope-base", "nan", S4}, NULL, 0, NULL, 0},
    {"rope_base_inf", 2, "--rope-base inf is not allowed", {"-p", "rope", "--rope-base", "inf", S4}, NULL, 0, NULL, 0},
    {"rope_base_abc", 2, "--rope-base 'abc' is not a number", {"-p", "rope", "--rope-base", "abc", S4}, NULL, 0, NULL, 0},
    {"pad_to_below_T", 2, "--pad-to 2 is smaller than the sentence's 4 tokens; use at least 4", {"--pad-to", "2", S4}, NULL, 0, NULL, 0},
    /* the value as typed: it said "--pad-to 2", a value not given (a teacher's report) */
    {"pad_to_below_T_as_typed", 2, "--pad-to 02 is smaller than the sentence's 4 tokens", {"--pad-to", "02", S4}, NULL, 0, NULL, 0},
    {"pad_to_0", 2, "--pad-to 0 is outside the allowed range 1..65536", {"--pad-to", "0", S4}, NULL, 0, NULL, 0},
    {"pad_to_65537", 2, "--pad-to 65537 is outside the allowed range 1..65536", {"--pad-to", "65537", S4}, NULL, 0, NULL, 0},
    {"unknown_long_option", 2, "unknown option '--frobnicate'", {"--frobnicate", S4}, NULL, 0, NULL, 0},
    {"unknown_short_option", 2, "unknown option '-Z'", {"-Z", S4}, NULL, 0, NULL, 0},
    {"missing_sentence", 2, "no sentence given", {NULL}, NULL, 0, NULL, 0},
    {"option_missing_value", 2, "option '--heads' needs a value N: a whole number in 1..64", {S4, "--heads"}, NULL, 0, NULL, 0},
    /* a cluster of short options names the one that needs the value: it said "option '-qo' needs a value DIR" */
    {"short_cluster_missing_value", 2, "option '-o' needs a value DIR", {S4, "-qo"}, NULL, 0, NULL, 0},
    /* the last word, with no value after it, as a learner types it to see the choices */
    {"train_missing_task", 2, "option '--train' needs a task: reverse, sort or induction", {"--train"}, NULL, 0, NULL, 0},
    {"norm_missing_value", 2, "option '--norm' needs a value WHERE: pre or post", {"--train", "reverse", "--norm"}, NULL, 0, NULL, 0},
    {"lr_missing_value", 2, "option '--lr' needs a value LR: a number in 1.1755e-38..10", {"--train", "reverse", "--lr"}, NULL, 0, NULL, 0},
    {"verbose_and_quiet", 2, "-v/--verbose and -q/--quiet cannot be used together", {"-v", "-q", S4}, NULL, 0, NULL, 0},
    {"file_and_words", 2, "not both", {"-f", "@/in/afile", S4}, NULL, 0, NULL, 0},
    {"precision_11", 2, "--precision 11 is outside the allowed range 0..10", {"--precision", "11", S4}, NULL, 0, NULL, 0},
    {"positions_learned", 2, "--positions 'learned' is not allowed; expected none, sinusoidal or rope", {"--positions", "learned", S4}, NULL, 0, NULL, 0},
    {"color_sometimes", 2, "--color 'sometimes' is not allowed", {"--color", "sometimes", S4}, NULL, 0, NULL, 0},
    {"seed_negative", 2, "--seed -1 is outside the allowed range", {"--seed", "-1", S4}, NULL, 0, NULL, 0},
    {"head_not_below_heads", 2, "--head 2 is outside 0..1 (there are 2 heads)", {W8, "--head", "2", "--explain", "0,1", S4}, NULL, 0, NULL, 0},
    /* named the parser's 0..63, not the layer's heads as --head 2 does (a tester's report, with --model) */
    {"head_minus_1", 2, "--head -1 is outside 0..1 (there are 2 heads)", {W8, "--head", "-1", "--explain", "0,1", S4}, NULL, 0, NULL, 0},
    /* past the parser's 0..63 too: the heads in use, as for 9 (it said "outside the allowed range 0..63"), and
     * no "did you mean --heads 65?" (--heads allows at most 64) */
    {"head_64", 2, "--head 64 is outside 0..1 (there are 2 heads)", {W8, "--head", "64", "--explain", "0,1", S4}, NULL, 0, NULL, 0},
    {"head_65_no_hint", 2, "--head 65 is outside 0..0 (there is 1 head)\n", {"--head", "65", S4}, NULL, 0, NULL, 0},
    /* as typed, as the parser's range errors echo it: "--head 02" was told "--head 2 is outside 0..1" */
    {"head_as_typed", 2, "--head 02 is outside 0..1 (there are 2 heads)", {W8, "--head", "02", "--explain", "0,1", S4}, NULL, 0, NULL, 0},
    /* past an int: "--head 99999999999999999999 is outside the allowed range 0..63" and "--head 'x' ...; allowed:
     * 0..63", the parser's, where --head 64 names the heads in use */
    {"head_past_an_int", 2, "--head 99999999999999999999 is outside 0..1 (there are 2 heads)", {W8, "--head", "99999999999999999999", "--explain", "0,1", S4}, NULL, 0, NULL, 0},
    {"head_past_an_int_negative", 2, "--head -99999999999999999999 is outside 0..1 (there are 2 heads)", {W8, "--head", "-99999999999999999999", "--explain", "0,1", S4}, NULL, 0, NULL, 0},
    {"head_not_a_number", 2, "--head 'x' is not a whole number; allowed: 0..H-1, H the heads in use (--heads, or the --model's n_head, num_attention_heads for Llama and Qwen2)", {W8, "--head", "x", "--explain", "0,1", S4}, NULL, 0, NULL, 0},
    {"head_as_typed_train", 2, "--head 064 is outside the allowed range 0..63", {"--train", "reverse", "--head", "064", "-o", "@/out"}, NULL, 0, NULL, 0},
    /* the help's 0..--steps, not the parser's 0..1000000: with --steps 5, 6..1000000 are refused too */
    /* and the --steps in use: "0..--steps" did not say what --steps is (4000 by default for reverse); a value past
     * an int is echoed as typed, not as INT_MAX */
    {"warmup_minus_1", 2, "--warmup -1 is outside the allowed range 0..5 (0 = no warm-up, at most --steps 5)", {"--train", "reverse", "--steps", "5", "--warmup", "-1", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"warmup_minus_1_default_steps", 2, "--warmup -1 is outside the allowed range 0..4000 (0 = no warm-up, at most --steps, the task's default 4000)", {"--train", "reverse", "--warmup", "-1", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"warmup_minus_1_constant", 2, "--warmup -1 is outside the allowed range 0..5", {"--train", "reverse", "--steps", "5", "--schedule", "constant", "--warmup", "-1", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"warmup_past_an_int", 2, "--warmup 99999999999999 is more than --steps 5 (allowed: 0..5, 0 = no warm-up)", {"--train", "reverse", "--steps", "5", "--warmup", "99999999999999", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"warmup_minus_1_noam", 2, "--warmup -1 is outside the allowed range 1..5 (--schedule noam needs a warm-up of 1 or more, at most --steps 5)", {"--train", "reverse", "--steps", "5", "--schedule", "noam", "--warmup", "-1", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"warmup_past_steps_noam", 2, "--warmup 6 is more than --steps 5 (allowed: 1..5, --schedule noam needs a warm-up of 1 or more)", {"--train", "reverse", "--steps", "5", "--schedule", "noam", "--warmup", "6", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"warmup_not_a_number", 2, "--warmup 'x' is not a whole number; allowed: 0..--steps, 0 = no warm-up", {"--train", "reverse", "--steps", "5", "--warmup", "x", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"explain_index_out_of_range", 2, "--explain query index 9 is outside 0..3", {W8, "--explain", "9,0", S4}, NULL, 0, NULL, 0},
    {"explain_unknown_token", 2, "--explain key 'cat' is neither a token", {W8, "--explain", "love,cat", S4}, NULL, 0, NULL, 0},
    /* a token typed in another case: it said only "is neither a token" (a teacher's pass) */
    /* the start of a word, or a typo: said only "neither a token" (a learner's pass) */
    {"explain_token_start_named", 2, "--explain query 'lov' is neither a token of the sentence nor an index 0..2; did you mean 'love' (token 1)?\n", {"--explain", "lov,you", "I love you"}, NULL, 0, NULL, 0},
    {"explain_token_typo_named", 2, "--explain key 'yuo' is neither a token of the sentence nor an index 0..2; did you mean 'you' (token 2)?\n", {"--explain", "love,yuo", "I love you"}, NULL, 0, NULL, 0},
    /* edits are counted in characters: "你" (E4 BD A0) is one byte from "习" (E4 B9 A0), and "请" from "读", and
     * got "did you mean '习' (token 5)?" (a Chinese-speaking learner's pass); a character is never near another */
    {"explain_cjk_not_near_by_bytes", 2, "--explain query '你' is neither a token of the sentence nor an index 0..5\n", {"--explain", "你,我", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_cjk_not_near_by_bytes_2", 2, "--explain key '请' is neither a token of the sentence nor an index 0..3\n", {"--explain", "我,请", "我爱读书"}, NULL, 0, NULL, 0},
    {"explain_full_width_typo_named", 2, "--explain query 'Ｈｅｌｏｌ' is neither a token of the sentence nor an index 0..1; did you mean 'Ｈｅｌｌｏ' (token 0)?\n", {"--explain", "Ｈｅｌｏｌ,0", "Ｈｅｌｌｏ　ｗｏｒｌｄ"}, NULL, 0, NULL, 0},
    /* a non-ASCII character inside a token is named, but a token that starts with it comes first: "café été"
     * named café for 'é', where été (its start) was named before */
    {"explain_token_part_named", 2, "--explain query 'é' is neither a token of the sentence nor an index 0..0; did you mean 'café' (token 0)?\n", {"--explain", "é,0", "café"}, NULL, 0, NULL, 0},
    {"explain_token_start_before_part", 2, "--explain query 'é' is neither a token of the sentence nor an index 0..1; did you mean 'été' (token 1)?\n", {"--explain", "é,0", "café été"}, NULL, 0, NULL, 0},
    {"explain_token_other_case", 2, "--explain query 'Deep' is neither a token of the sentence nor an index 0..3; tokens are case-sensitive: 'deep' is token 2", {W8, "--explain", "Deep,I", S4}, NULL, 0, NULL, 0},
    /* a typo of a long option: it said only "unknown option" (a teacher's pass); a swap counts one edit */
    {"option_typo_casual", 2, "unknown option '--casual'; did you mean --causal? (try --help)", {"--casual", S4}, NULL, 0, NULL, 0},
    {"option_typo_hlep", 2, "unknown option '--hlep'; did you mean --help? (try --help)", {"--hlep", S4}, NULL, 0, NULL, 0},
    {"option_typo_value", 2, "unknown option '--modle'; did you mean --model? (try --help)", {"--modle=x", S4}, NULL, 0, NULL, 0},
    {"option_far_from_all", 2, "unknown option '--xyz' (try --help)", {"--xyz", S4}, NULL, 0, NULL, 0},
    /* PyTorch's names (a learner's pass from PyTorch tutorials): "--num_heads 8" said only "unknown option",
     * "--nhead 8" "did you mean --head?", "--rope" "ambiguous; possibilities: --rope-style --rope-base" */
    {"option_torch_num_heads", 2, "unknown option '--num_heads'; did you mean --heads? (nn.MultiheadAttention's num_heads)", {"--num_heads", "8", S4}, NULL, 0, NULL, 0},
    {"option_torch_nhead", 2, "unknown option '--nhead'; did you mean --heads? (nn.Transformer's nhead)", {"--nhead=8", S4}, NULL, 0, NULL, 0},
    {"option_torch_embed_dim", 2, "unknown option '--embed-dim'; did you mean --d-model?", {"--embed-dim", "512", S4}, NULL, 0, NULL, 0},
    {"option_torch_is_causal", 2, "unknown option '--is_causal'; did you mean --causal?", {"--is_causal", S4}, NULL, 0, NULL, 0},
    /* a choice's value that was the last argument, with no text left: the sentence, typed without the value?
     * "--show --color 'I love deep'" said only "is not allowed; expected auto, always or never" (a tester's
     * report); with a sentence before it, or for --train, which takes none, no such hint */
    {"choice_took_the_text", 2, "--color 'I love deep' is not allowed; expected auto, always or never (the last argument, 'I love deep', is the value of --color: the text goes after it)", {"--show", "--color", "I love deep"}, NULL, 0, NULL, 0},
    {"choice_took_the_text_cmap", 2, "(did you mean viridis?); expected viridis, magma, inferno, plasma, cividis, gray or RdBu_r (the last argument, virdis, is the value of --cmap: the text goes after it)", {"--cmap", "virdis"}, NULL, 0, NULL, 0},
    {"choice_took_the_text_figures", 2, "with --model: model, grid, heads, pe or all (the last argument, 'I love', is the value of --figures: the text goes after it)", {"--figures", "I love"}, NULL, 0, NULL, 0},
    {"choice_took_the_text_short", 2, "expected none, sinusoidal or rope; with --train: learned, sinusoidal or rope (the last argument, 'I love', is the value of -p: the text goes after it)", {"-p", "I love"}, NULL, 0, NULL, 0},
    /* "--mask causal hi" said only "unknown option '--mask'" (a tester's report) */
    {"option_mask", 2, "unknown option '--mask'; did you mean --causal or --attn-mask FILE? (--causal hides later keys; --attn-mask reads a bool (T, T) .npy) (try --help)", {"--mask", "causal", S4}, NULL, 0, NULL, 0},
    {"option_mask_value", 2, "unknown option '--mask'; did you mean --causal or --attn-mask FILE?", {"--mask=causal", S4}, NULL, 0, NULL, 0},
    {"option_torch_src_key_padding_mask", 2, "unknown option '--src_key_padding_mask'; did you mean --pad-to N? (nn.Transformer's src_key_padding_mask)", {"--src_key_padding_mask", "x", S4}, NULL, 0, NULL, 0},
    {"option_torch_tgt_mask", 2, "unknown option '--tgt_mask'; did you mean --causal or --attn-mask FILE? (nn.Transformer's tgt_mask", {"--tgt_mask", S4}, NULL, 0, NULL, 0},
    {"option_rope_alone", 2, "unknown option '--rope'; did you mean --positions rope? (RoPE; --rope-style and --rope-base only tune it)", {"--rope", S4}, NULL, 0, NULL, 0},
    /* a Thai sentence without the spaces Thai does not write is one 72-byte token: the error said only the
     * limit (a figure-maker's pass) */
    {"thai_sentence_without_spaces", 2, "is 72 bytes long; the maximum is 64 bytes; Thai is written without spaces between words, and attnviz splits words at spaces: type a space between words", {"ฉันรักการเรียนรู้เชิงลึก"}, NULL, 0, NULL, 0},
    /* 22 letters typed in an input method's full-width mode, U+FF21..U+FF36, 3 bytes each (EF BC A1 ..): 66 bytes,
     * and the error named only bytes (a teacher's pass); half-width they are 22 bytes. Mixed: 10 ASCII letters and
     * 19 full-width ones, 10 + 19·3 = 67 bytes, 10 + 19 = 29 half-width */
    {"token_full_width_letters", 2, "token 1 (\"ＡＢＣＤＥ…\") is 66 bytes long; the maximum is 64 bytes; 22 of its characters are full-width forms (3 bytes each, as an input method's full-width mode types them): typed half-width (半角) the token is 22 bytes\n", {"我", "ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴＵＶ", "爱"}, NULL, 0, NULL, 0},
    {"token_half_and_full_width_letters", 2, "token 0 (\"abcdefghijＡＢ…\") is 67 bytes long; the maximum is 64 bytes; 19 of its characters are full-width forms (3 bytes each, as an input method's full-width mode types them): typed half-width (半角) the token is 29 bytes\n", {"abcdefghijＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳ"}, NULL, 0, NULL, 0},
    /* 52 full-width letters (156 bytes) and 30 ASCII: typed half-width still 52 + 30 = 82 bytes > 64 */
    {"token_full_width_still_too_long_half_width", 2, "token 0 (\"ＡＢＣＤＥ…\") is 186 bytes long; the maximum is 64 bytes; 52 of its characters are full-width forms (3 bytes each, as an input method's full-width mode types them): typed half-width (半角) the token is 82 bytes, still over the maximum\n", {"ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴＵＶＷＸＹＺＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴＵＶＷＸＹＺaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, NULL, 0, NULL, 0},
    /* a Chinese-speaking student's and a tester's pass: '--heads＝8' (full-width '=') and '--HTML' said only
     * "unknown option", '--pdf' too; '--figures e' guessed pe; 'heads、grid' and '爱；习' did not name the
     * separator typed; 'GPT' against the sentence's 'ＧＰＴ' said only "neither a token" */
    {"option_full_width_equals", 2, "unknown option '--heads＝8': it is typed with full-width characters; type the half-width --heads=8 (半角)", {"--heads＝8", S4}, NULL, 0, NULL, 0},
    {"option_in_capitals", 2, "unknown option '--HTML'; did you mean --html?", {"--HTML", S4}, NULL, 0, NULL, 0},
    /* a choice typed in full-width mode: "--positions ｒｏｐｅ" said only "is not allowed", where "--heads ８" names
     * the half-width 8 (a Chinese-speaking learner's pass) */
    {"choice_full_width_letters", 2, "--positions 'ｒｏｐｅ' is not allowed (it is typed in full-width characters: type the half-width rope, 半角); expected none, sinusoidal or rope", {"--positions", "ｒｏｐｅ", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"choice_full_width_colour_map", 2, "--cmap 'ｍａｇｍａ' is not a colour map (it is typed in full-width characters: type the half-width magma, 半角); expected", {"--cmap", "ｍａｇｍａ", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"figures_full_width_letters", 2, "'ｇｒｉｄ' is not a figure (it is typed in full-width characters: type the half-width grid, 半角); expected", {"--figures", "heads，ｇｒｉｄ", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"vmax_full_width_number", 2, "--vmax '０.５' is not allowed (it is typed in full-width characters: type the half-width 0.5, 半角); allowed: auto", {"--vmax", "０.５", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"vmax_full_width_word", 2, "--vmax 'ａｕｔｏ' is not allowed (it is typed in full-width characters: type the half-width auto, 半角)", {"--vmax", "ａｕｔｏ", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"layer_full_width_number", 2, "--layer '１' is not a layer number (it is typed in full-width characters: type the half-width 1, 半角)", {"--layer", "１", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a number in Chinese numerals: "--heads 八" said only "is not a whole number" (a Chinese-speaking learner's
     * pass); the error names the digits to type, worked by hand: 八 8, 五一二 (digits read one by one) 512,
     * 四十二 4·10 + 2 = 42, 二百五 (read aloud: 2·100 + 5·10) 250, 二〇二四 2024, 零点零零一 0.001, 一百零五 105 */
    {"heads_chinese_numeral", 2, "--heads '八' is not a whole number (it is written in Chinese numerals: type the digits 8, 阿拉伯数字); allowed: 1..64", {"--heads", "八", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"d_model_chinese_digits", 2, "--d-model '五一二' is not a whole number (it is written in Chinese numerals: type the digits 512, 阿拉伯数字); allowed: 1..4096", {"-d", "五一二", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"seed_chinese_numeral", 2, "--seed '四十二' is not a whole number (it is written in Chinese numerals: type the digits 42, 阿拉伯数字)", {"--seed", "四十二", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"seed_chinese_year_digits", 2, "--seed '二〇二四' is not a whole number (it is written in Chinese numerals: type the digits 2024, 阿拉伯数字)", {"--seed", "二〇二四", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"steps_chinese_numeral", 2, "--steps '二百五' is not a whole number (it is written in Chinese numerals: type the digits 250, 阿拉伯数字); allowed: 1..1000000", {"--train", "reverse", "--steps", "二百五"}, NULL, 0, NULL, 0},
    {"lr_chinese_numeral", 2, "--lr '零点零零一' is not a number (it is written in Chinese numerals: type the digits 0.001, 阿拉伯数字)", {"--train", "reverse", "--lr", "零点零零一"}, NULL, 0, NULL, 0},
    /* the traditional forms of 两 万 (兩 萬, Unihan kSimplifiedVariant), as a learner in Taiwan or Hong Kong types
     * them: 兩 is 2, 兩萬 2·10000 (they said only "is not a whole number") */
    {"heads_traditional_liang", 2, "--heads '兩' is not a whole number (it is written in Chinese numerals: type the digits 2, 阿拉伯数字); allowed: 1..64", {"--heads", "兩", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"steps_traditional_wan", 2, "--steps '兩萬' is not a whole number (it is written in Chinese numerals: type the digits 20000, 阿拉伯数字); allowed: 1..1000000", {"--train", "reverse", "--steps", "兩萬"}, NULL, 0, NULL, 0},
    {"seed_traditional_negative", 2, "--seed '負三' is not a whole number (it is written in Chinese numerals, and as the digits -3 it is outside the allowed range too)", {"--seed", "負三", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* ASCII digits with a Chinese unit, as Chinese writes a round count (GB/T 15835-2011 allows "1万"): 1万 is
     * 1·10^4, 1.5万 1.5·10^4 = 15000, 3千 3·10^3; 1.23456万 is 12345.6, no whole number, so no guess */
    {"steps_digits_wan", 2, "--steps '1万' is not a whole number (the 万 after the number is ten thousand: type the digits 10000); allowed: 1..1000000", {"--train", "reverse", "--steps", "1万"}, NULL, 0, NULL, 0},
    {"steps_digits_point_wan", 2, "--steps '1.5万' is not a whole number (the 万 after the number is ten thousand: type the digits 15000); allowed: 1..1000000", {"--train", "reverse", "--steps", "1.5万"}, NULL, 0, NULL, 0},
    {"heads_digits_qian_out_of_range", 2, "--heads '3千' is not a whole number (the 千 after the number is a thousand: as the digits 3000 it is outside the allowed range too); allowed: 1..64", {"--heads", "3千", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"steps_digits_wan_not_whole", 2, "--steps '1.23456万' is not a whole number; allowed: 1..1000000", {"--train", "reverse", "--steps", "1.23456万"}, NULL, 0, NULL, 0},
    /* the unit with a measure word after it, as "4000步" and "一万步" already had theirs (1万步 said only "is not a
     * whole number"): 1万 is 1·10^4 = 10000, 3千 3·10^3 = 3000, the 步 or 个 not part of it; and full-width digits
     * before the unit (U+FF11 is 1, UnicodeData.txt's <wide> 0031): ４千 is 4·10^3 = 4000 */
    {"steps_digits_wan_measure_word", 2, "--steps '1万步' is not a whole number (the 万 after the number is ten thousand, and the 步 after it is not part of it: type the digits 10000); allowed: 1..1000000", {"--train", "reverse", "--steps", "1万步"}, NULL, 0, NULL, 0},
    {"heads_digits_qian_measure_word_out_of_range", 2, "--heads '3千个' is not a whole number (the 千 after the number is a thousand, and the 个 after it is not part of it: as the digits 3000 it is outside the allowed range too); allowed: 1..64", {"--heads", "3千个", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"steps_fullwidth_digits_qian", 2, "--steps '４千' is not a whole number (the 千 after the number is a thousand, and it is typed in full-width characters: type the half-width digits 4000, 半角); allowed: 1..1000000", {"--train", "reverse", "--steps", "４千"}, NULL, 0, NULL, 0},
    {"steps_fullwidth_digits_wan_measure_word", 2, "--steps '１万步' is not a whole number (the 万 after the number is ten thousand, and the 步 after it is not part of it, and it is typed in full-width characters: type the half-width digits 10000, 半角)", {"--train", "reverse", "--steps", "１万步"}, NULL, 0, NULL, 0},
    /* 万亿 is a numeral's own (10^12), not a measure word: no guess */
    {"steps_digits_wan_yi_no_guess", 2, "--steps '1万亿' is not a whole number; allowed: 1..1000000", {"--train", "reverse", "--steps", "1万亿"}, NULL, 0, NULL, 0},
    /* thousands separators, as English writes 4,000 and a Chinese input method types the full-width '，' (U+FF0C):
     * the digits without them are 4000 and 1000 (past --heads' 1..64); "1,00" and "1,0000" are no groups of three,
     * so no guess (it said only "is not a whole number" for all of them) */
    {"steps_thousands_separator", 2, "--steps '4,000' is not a whole number (the ',' between its digits groups thousands, which a number here does not take: type 4000); allowed: 1..1000000", {"--train", "reverse", "--steps", "4,000"}, NULL, 0, NULL, 0},
    {"steps_fullwidth_thousands_separator", 2, "--steps '4，000' is not a whole number (the '，' between its digits groups thousands, which a number here does not take: type 4000); allowed: 1..1000000", {"--train", "reverse", "--steps", "4，000"}, NULL, 0, NULL, 0},
    /* the SI prefixes k (10^3) and M (10^6), SI Brochure 9th ed. table 7, and K for k, after digits as 千 and 万 are:
     * 4k is 4000, 1.5k 1500, 2M 2000000 (past --steps' 1..1000000), 1k 1000 (past --dpi's 50..600); split by the
     * shell ("4 k") as "4 千" is told */
    {"steps_si_kilo", 2, "--steps '4k' is not a whole number (the k after the number is a thousand: type the digits 4000); allowed: 1..1000000", {"--train", "reverse", "--steps", "4k"}, NULL, 0, NULL, 0},
    {"steps_kilo_capital", 2, "--steps '4K' is not a whole number (the K after the number is a thousand: type the digits 4000); allowed: 1..1000000", {"--train", "reverse", "--steps", "4K"}, NULL, 0, NULL, 0},
    {"steps_si_kilo_fraction", 2, "--steps '1.5k' is not a whole number (the k after the number is a thousand: type the digits 1500); allowed: 1..1000000", {"--train", "reverse", "--steps", "1.5k"}, NULL, 0, NULL, 0},
    {"steps_si_mega_out_of_range", 2, "--steps '2M' is not a whole number (the M after the number is a million: as the digits 2000000 it is outside the allowed range too); allowed: 1..1000000", {"--train", "reverse", "--steps", "2M"}, NULL, 0, NULL, 0},
    {"dpi_si_kilo_out_of_range", 2, "--dpi '1k' is not a whole number (the k after the number is a thousand: as the digits 1000 it is outside the allowed range too); allowed: 50..600", {"--dpi", "1k", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"steps_si_kilo_split", 2, "--steps '4 k': the shell split it at its space, so --steps got 4 and the next word, k, went into the sentence; the k after the number is a thousand: type the digits 4000", {"--train", "reverse", "--steps", "4", "k"}, NULL, 0, NULL, 0},
    {"heads_thousands_separator_out_of_range", 2, "--heads '1,000' is not a whole number (the ',' between its digits groups thousands, which a number here does not take, and as 1000 it is outside the allowed range too); allowed: 1..64", {"--heads", "1,000", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a first group starting with 0 is no thousands: "0,008" is more likely a decimal comma (0.008), and "type
     * 0008" ran 8 heads (from a review of the change) */
    {"heads_comma_leading_zero_no_guess", 2, "--heads '0,008' is not a whole number; allowed: 1..64", {"--heads", "0,008", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* the digits full-width too, as an input method's full-width mode types them with its '，': U+FF14 U+FF10
     * (UnicodeData.txt's <wide> 0034, 0030) are 4 and 0, so ４，０００ is 4000 and １，０００ is 1000, past 1..64;
     * ４，００ is no group of three (it said only "is not a whole number") */
    {"steps_fullwidth_digits_thousands_separator", 2, "--steps '４，０００' is not a whole number (the '，' between its digits groups thousands, which a number here does not take, and it is typed in full-width characters: type the half-width 4000, 半角); allowed: 1..1000000", {"--train", "reverse", "--steps", "４，０００"}, NULL, 0, NULL, 0},
    {"heads_fullwidth_digits_thousands_separator_out_of_range", 2, "--heads '１，０００' is not a whole number (the '，' between its digits groups thousands, which a number here does not take, and it is typed in full-width characters, and as 1000 it is outside the allowed range too); allowed: 1..64", {"--heads", "１，０００", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* the SI's digit groups (SI Brochure, 9th ed., §5.4.4: "4 000"): quoted, one word that is 4000; unquoted, the
     * shell gives --steps 4 and puts 000 in the sentence, which --train refuses ("takes no input text, but the
     * sentence '000' is given") and which without --train was "--steps is an option of --train"; 1 000 000 is
     * 1000000, past --steps' 1..1000000 when it is 2 000 000; --dpi 1 200 is 1200, past 50..600 */
    {"steps_space_grouped", 2, "--steps '4 000' is not a whole number (the ' ' between its digits groups thousands, which a number here does not take: type 4000); allowed: 1..1000000", {"--train", "reverse", "--steps", "4 000"}, NULL, 0, NULL, 0},
    {"steps_space_grouped_split_by_shell", 2, "--steps '4 000': the shell split it at its space, so --steps got 4 and the next word, 000, went into the sentence; the ' ' between its digits groups thousands, which a number here does not take: type 4000", {"--train", "reverse", "--steps", "4", "000"}, NULL, 0, NULL, 0},
    /* without --train, a --train option's split value is told, and that the option needs --train: left to the
     * "option of --train" refusal, its command to try held the value the shell cut ("--lr 5", which runs at lr 5;
     * "--steps 4"; "--steps 1": a review of the change) */
    {"steps_space_grouped_split_without_train", 2, "--steps '4 000': the shell split it at its space, so --steps got 4 and the next word, 000, went into the sentence; the ' ' between its digits groups thousands, which a number here does not take: type 4000 (and --steps is an option of --train, which this command lacks)", {"--steps", "4", "000", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"lr_percent_split_without_train", 2, "--lr '5 %': the shell split it at its space, so --lr got 5 and the next word, %, went into the sentence; the '%' after the number is per cent: type 0.05 (and --lr is an option of --train, which this command lacks)", {"--lr", "5", "%", "hi"}, NULL, 0, NULL, 0},
    {"steps_unit_split_without_train", 2, "--steps '1 万': the shell split it at its space, so --steps got 1 and the next word, 万, went into the sentence; the 万 after the number is ten thousand: type the digits 10000 (and --steps is an option of --train, which this command lacks)", {"--steps", "1", "万", "hi"}, NULL, 0, NULL, 0},
    {"steps_two_groups_split_out_of_range", 2, "--steps '2 000 000': the shell split it at its spaces, so --steps got 2 and the next words, 000 000, went into the sentence; the ' ' between its digits groups thousands, which a number here does not take, and as 2000000 it is outside the allowed range too", {"--train", "reverse", "--steps", "2", "000", "000"}, NULL, 0, NULL, 0},
    /* a value of 80 digits then seven groups of three: no group fits the 96 bytes the groups are joined in, so
     * none is read as part of it (they wrote past it: ASan's stack-buffer-overflow in split_number under
     * SANITIZE=1) and the words are the sentence that --train refuses, as any other words are */
    {"steps_long_value_then_groups", 2, "--train takes no input text, but the sentence '000 000 000 000 000 000 000' is given", {"--train", "reverse", "--steps", "00000000000000000000000000000000000000000000000000000000000000000000000000000004", "000", "000", "000", "000", "000", "000", "000"}, NULL, 0, NULL, 0},
    {"dpi_space_grouped_split_refused", 2, "--dpi 1 is outside the allowed range 50..600 (the shell split '1 200' at its space, and the next word, 200, went into the sentence; the ' ' between its digits groups thousands, which a number here does not take, and as 1200 it is outside the allowed range too)", {"--dpi", "1", "200", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a per cent or a unit split from its number by the shell: 百分之 5 is 百分之5, 5/100 = 0.05 (where --lr 百分之5
     * and 5% are told so); --lr 5 % ran as --lr 5 and the sentence '%'; 1 万 is 1万, 10000 */
    {"lr_percent_words_split_by_shell", 2, "--lr '百分之' is not a number (the shell split '百分之 5' at its space, and the next word, 5, went into the sentence; 百分之5 is 5 per cent: type 0.05); allowed: ", {"--train", "reverse", "--lr", "百分之", "5"}, NULL, 0, NULL, 0},
    {"lr_percent_sign_split_by_shell", 2, "--lr '5 %': the shell split it at its space, so --lr got 5 and the next word, %, went into the sentence; the '%' after the number is per cent: type 0.05", {"--train", "reverse", "--lr", "5", "%"}, NULL, 0, NULL, 0},
    {"steps_wan_split_by_shell", 2, "--steps '1 万': the shell split it at its space, so --steps got 1 and the next word, 万, went into the sentence; the 万 after the number is ten thousand: type the digits 10000", {"--train", "reverse", "--steps", "1", "万"}, NULL, 0, NULL, 0},
    /* any other word after a number is the sentence, not a part of the number: the number's value is the same
     * ("type 100" was what had been typed), so the message is the one for that sentence (from a review of the
     * change: "the 我爱 after the number is not part of it: type 10") */
    {"warmup_then_sentence_without_train", 2, "--warmup is an option of --train; try: attnviz --train reverse --warmup 10 -o runs/reverse", {"--warmup", "10", "我爱"}, NULL, 0, NULL, 0},
    {"batch_then_sentence_without_train", 2, "--batch is an option of --train; try: attnviz --train reverse --batch 32 -o runs/reverse", {"--batch", "32", "我爱"}, NULL, 0, NULL, 0},
    {"steps_then_sentence_with_train", 2, "--train takes no input text, but the sentence '我爱' is given", {"--train", "reverse", "--steps", "100", "我爱"}, NULL, 0, NULL, 0},
    {"lr_then_sentence_with_train", 2, "--train takes no input text, but the sentence '我爱' is given", {"--train", "reverse", "--lr", "0.01", "我爱"}, NULL, 0, NULL, 0},
    /* one counting word after the number is no sentence but the number's unit, as "--steps 100步" and "--heads 2个"
     * are told "the 步 after the number is not part of it": Chinese writes 100步 (100 steps), 2个 (2 of them), 2层
     * (2 layers, 層 traditional), 10步 warm-up steps, and --train takes no sentence; they said "--train takes no
     * input text, but the sentence '步' is given" (a Chinese-speaking learner's pass); two characters (我爱 above,
     * 个头) stay a sentence */
    {"heads_then_measure_word_with_train", 2, "--heads '2 个': the shell split it at its space, so --heads got 2 and the next word, 个, went into the sentence; the 个 after the number is not part of it: type --heads 2, without the 个", {"--train", "reverse", "--heads", "2", "个"}, NULL, 0, NULL, 0},
    {"steps_then_counting_word_with_train", 2, "--steps '100 步': the shell split it at its space, so --steps got 100 and the next word, 步, went into the sentence; the 步 after the number is not part of it: type --steps 100, without the 步", {"--train", "reverse", "--steps", "100", "步"}, NULL, 0, NULL, 0},
    {"layers_then_traditional_counting_word", 2, "--layers '2 層': the shell split it at its space, so --layers got 2 and the next word, 層, went into the sentence; the 層 after the number is not part of it: type --layers 2, without the 層", {"--train", "reverse", "--layers", "2", "層"}, NULL, 0, NULL, 0},
    {"warmup_then_counting_word_without_train", 2, "--warmup '10 步': the shell split it at its space, so --warmup got 10 and the next word, 步, went into the sentence; the 步 after the number is not part of it: type --warmup 10, without the 步 (and --warmup is an option of --train, which this command lacks)", {"--warmup", "10", "步", "hi"}, NULL, 0, NULL, 0},
    /* the English words, split by the shell as 步 is: "--steps 100 steps" said "--train takes no input text, but the
     * sentence 'steps' is given"; batches is batch's plural; another English word stays a sentence */
    {"steps_then_english_counting_word_with_train", 2, "--steps '100 steps': the shell split it at its space, so --steps got 100 and the next word, steps, went into the sentence; the word steps after the number is not part of it: type --steps 100, without steps", {"--train", "reverse", "--steps", "100", "steps"}, NULL, 0, NULL, 0},
    {"batch_then_english_plural_es", 2, "--batch '8 batches': the shell split it at its space, so --batch got 8 and the next word, batches, went into the sentence; the word batches after the number is not part of it: type --batch 8, without batches", {"--train", "reverse", "--batch", "8", "batches"}, NULL, 0, NULL, 0},
    {"steps_then_english_sentence_with_train", 2, "--train takes no input text, but the sentence 'hello' is given", {"--train", "reverse", "--steps", "100", "hello"}, NULL, 0, NULL, 0},
    /* the placeholder of docs/train.md's tables, `attnviz --train reverse OPTIONS -o DIR` (选项 in docs/train.zh.md),
     * typed as written: it was told to try the trained model on the sentence "选项", which is no prompt of the task */
    {"train_chapter_placeholder_zh", 2, "--train takes no input text, but the sentence '选项' is given; 选项 stands for the options of a row of docs/train.md's tables (`attnviz --train reverse OPTIONS -o DIR`; 选项 in docs/train.zh.md): type the row's options in its place, e.g. attnviz --train reverse --heads 1 -o DIR", {"--train", "reverse", "选项", "-o", "DIR"}, NULL, 0, NULL, 0},
    {"train_chapter_placeholder_induction", 2, "OPTIONS stands for the options of a row of docs/train.md's tables (`attnviz --train reverse OPTIONS -o DIR`; 选项 in docs/train.zh.md): type the row's options in its place, e.g. attnviz --train induction --seed 1 -o DIR", {"--train", "induction", "OPTIONS", "-o", "DIR"}, NULL, 0, NULL, 0},
    {"train_chapter_placeholder_en", 2, "OPTIONS stands for the options of a row of docs/train.md's tables (`attnviz --train sort OPTIONS -o DIR`; 选项 in docs/train.zh.md): type the row's options in its place, e.g. attnviz --train sort --heads 1 -o DIR", {"--train", "sort", "OPTIONS", "-o", "DIR"}, NULL, 0, NULL, 0},
    {"steps_then_two_counting_characters_is_a_sentence", 2, "--train takes no input text, but the sentence '个头' is given", {"--train", "reverse", "--steps", "100", "个头"}, NULL, 0, NULL, 0},
    {"steps_fullwidth_comma_not_groups_no_guess", 2, "--steps '４，００' is not a whole number; allowed: 1..1000000", {"--train", "reverse", "--steps", "４，００"}, NULL, 0, NULL, 0},
    {"steps_comma_not_groups_no_guess", 2, "--steps '1,00' is not a whole number; allowed: 1..1000000", {"--train", "reverse", "--steps", "1,00"}, NULL, 0, NULL, 0},
    /* a fraction written as a per cent or per mille: 5% = 5/100 = 0.05, ５％ the same in full-width forms (U+FF15,
     * U+FF05), 千分之三 = 3/1000 = 0.003, 百分之五十 = 50/100 = 0.5, 200% = 2, past --vmax's (0, 1] (the man page);
     * a whole-number option takes no fraction, so --steps 5% gets no guess */
    {"lr_per_cent", 2, "--lr '5%' is not a number (the '%' after the number is per cent: type 0.05); allowed: 1.1755e-38..10", {"--train", "reverse", "--lr", "5%"}, NULL, 0, NULL, 0},
    {"lr_fullwidth_per_cent", 2, "--lr '５％' is not a number (the '％' after the number is per cent: type 0.05)", {"--train", "reverse", "--lr", "５％"}, NULL, 0, NULL, 0},
    {"lr_chinese_per_mille", 2, "--lr '千分之三' is not a number (千分之三 is 3 per mille: type 0.003)", {"--train", "reverse", "--lr", "千分之三"}, NULL, 0, NULL, 0},
    {"vmax_chinese_per_cent", 2, "--vmax '百分之五十' is not allowed (百分之五十 is 50 per cent: type 0.5)", {"--vmax", "百分之五十", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"vmax_per_cent_out_of_range", 2, "--vmax '200%' is not allowed (the '%' after the number is per cent: as 2 it is outside the allowed range too)", {"--vmax", "200%", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"steps_per_cent_no_guess", 2, "--steps '5%' is not a whole number; allowed: 1..1000000", {"--train", "reverse", "--steps", "5%"}, NULL, 0, NULL, 0},
    {"heads_chinese_numeral_out_of_range", 2, "--heads '一百零五' is not a whole number (it is written in Chinese numerals, and as the digits 105 it is outside the allowed range too); allowed: 1..64", {"--heads", "一百零五", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a number that ends in its decimal point 点 (as float("15.") is 15.0): 十五 is 15, 一 is 1 and inside (0, 1];
     * the 点 was called "the 点 after the number", a word that is not part of it */
    {"lr_chinese_numeral_trailing_point", 2, "--lr '十五点' is not a number (it is written in Chinese numerals, with no digit after its decimal point 点: as the digits 15 it is outside the allowed range too); allowed:", {"--train", "reverse", "--lr", "十五点"}, NULL, 0, NULL, 0},
    {"vmax_chinese_numeral_trailing_point", 2, "--vmax '一点' is not allowed (it is written in Chinese numerals, with no digit after its decimal point 点: type the digits 1, 阿拉伯数字); allowed:", {"--vmax", "一点", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"vmax_chinese_numeral", 2, "--vmax '零点五' is not allowed (it is written in Chinese numerals: type the digits 0.5, 阿拉伯数字); allowed: auto, fixed, or a number in (0, 1]", {"--vmax", "零点五", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* an --explain index in Chinese numerals, as --explain 0,１ gets its half-width form: 我爱深度学习 is 6 tokens */
    {"explain_chinese_numeral_index", 2, "--explain key '五' is neither a token of the sentence nor an index 0..5 (it is written in Chinese numerals: type the digits 5, 阿拉伯数字)", {"--explain", "爱,五", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_chinese_numeral_index_out_of_range", 2, "--explain key '十' is neither a token of the sentence nor an index 0..5 (it is written in Chinese numerals, and as the digits 10 it is outside 0..5 too: T = 6 tokens)", {"--explain", "爱，十", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"layer_chinese_numeral", 2, "--layer '一' is not a layer number (it is written in Chinese numerals: type the digits 1, 阿拉伯数字)", {"--layer", "一", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a choice typed in the Chinese docs' own word for it ("--compare 缩放" said only "is not allowed; expected
     * scale, ..."): each word as docs/tutorial.zh.md, train.zh.md or reading-heads.zh.md writes it for that value
     * (缩放 of --compare scale, "行和列换了顺序" of --compare order, 正弦/旋转位置编码, 可学习位置编码 of --train's
     * default, 归纳头, reverse（反转）, 层归一化放在每个子层之前, 余弦调度, 热力图 of a head's figure), by hand */
    {"compare_chinese_scale", 2, "--compare '缩放' is not allowed (缩放 is scale: type --compare scale); expected scale, positions, rope-style or order", {"--compare", "缩放", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"compare_chinese_positions", 2, "--compare '位置' is not allowed (位置 is positions: type --compare positions); expected", {"--compare", "位置", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"compare_chinese_order", 2, "--compare '顺序' is not allowed (顺序 is order: type --compare order); expected", {"--compare", "顺序", "我爱你"}, NULL, 0, NULL, 0},
    {"compare_chinese_norm_train_only", 2, "--compare '层归一化' is not allowed (层归一化 is norm: type --compare norm, with --train); expected", {"--train", "reverse", "--compare", "层归一化"}, NULL, 0, NULL, 0},
    {"positions_chinese_sinusoidal", 2, "--positions '正弦' is not allowed (正弦 is sinusoidal: type --positions sinusoidal); expected none, sinusoidal or rope", {"--positions", "正弦", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"positions_chinese_rope", 2, "--positions '旋转位置编码' is not allowed (旋转位置编码 is rope: type --positions rope); expected", {"--positions", "旋转位置编码", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"positions_chinese_learned_train_only", 2, "--positions '可学习' is not allowed (可学习 is learned: type --positions learned, with --train); expected", {"--positions", "可学习", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"train_chinese_reverse", 2, "--train '反转' is not a task (反转 is reverse: type --train reverse); expected reverse, sort or induction", {"--train", "反转"}, NULL, 0, NULL, 0},
    {"train_chinese_sort", 2, "--train '排序' is not a task (排序 is sort: type --train sort); expected", {"--train", "排序"}, NULL, 0, NULL, 0},
    /* the everyday words for reversing a sequence (倒序, 逆序, 翻转: "reverse order", "flip"), 升序 (ascending, what
     * sort writes: 1 1 3 4 5), and the 复制 ("copy") of train.zh.md's "`induction` 从前文复制": "is not a task" alone */
    {"train_chinese_reverse_order", 2, "--train '倒序' is not a task (倒序 is reverse: type --train reverse); expected reverse, sort or induction", {"--train", "倒序", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"train_chinese_reverse_inverse_order", 2, "--train '逆序' is not a task (逆序 is reverse: type --train reverse); expected", {"--train", "逆序", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"train_chinese_reverse_flip", 2, "--train '翻转' is not a task (翻转 is reverse: type --train reverse); expected", {"--train", "翻转", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"train_chinese_sort_ascending", 2, "--train '升序' is not a task (升序 is sort: type --train sort); expected", {"--train", "升序", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"train_chinese_copy", 2, "--train '复制' is not a task (复制 is induction: type --train induction); expected", {"--train", "复制", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"train_chinese_two_everyday_words", 2, "--train '倒序/升序' is not a task (--train takes one value, not a list: run attnviz once for each, e.g. --train reverse); expected", {"--train", "倒序/升序", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"train_chinese_induction", 2, "--train '归纳' is not a task (归纳 is induction: type --train induction); expected", {"--train", "归纳"}, NULL, 0, NULL, 0},
    {"norm_chinese_pre", 2, "--norm '之前' is not allowed (之前 is pre: type --norm pre); expected pre or post", {"--train", "reverse", "--norm", "之前"}, NULL, 0, NULL, 0},
    {"norm_chinese_post_short", 2, "--norm '后' is not allowed (后 is post: type --norm post); expected pre or post", {"--train", "reverse", "--norm", "后"}, NULL, 0, NULL, 0},
    {"schedule_chinese_cosine", 2, "--schedule '余弦' is not allowed (余弦 is cosine: type --schedule cosine); expected", {"--train", "reverse", "--schedule", "余弦"}, NULL, 0, NULL, 0},
    {"figures_chinese_heads", 2, "--figures '热力图': '热力图' is not a figure (热力图 is heads: type --figures heads); expected", {"--figures", "热力图", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* two Chinese words in a list: both in English in the command to type (网格 is grid; it said "type --figures
     * heads，网格", refused again) */
    /* the list to type is one --figures takes: each other name that is no figure read as the one it stands for
     * and said so (modle is model with its l and e swapped, one edit; ｇｒｉｄ is U+FF47 U+FF52 U+FF49 U+FF44, the
     * <wide> forms of g r i d), and no list when a name stands for none ("xyz") or is empty; they said "type
     * --figures heads,modle", "heads,ｇｒｉｄ", "heads,xyz", "heads,,", each refused again (a learner's pass) */
    {"figures_chinese_and_a_typo", 2, "'热力图' is not a figure (热力图 is heads, and modle is a typo of model: type --figures heads,model, with --model); expected", {"--figures", "热力图,modle", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"figures_chinese_and_full_width", 2, "'热力图' is not a figure (热力图 is heads, and ｇｒｉｄ is grid typed in full-width letters: type --figures heads,grid); expected", {"--figures", "热力图,ｇｒｉｄ", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* ｍｏｄｌｅ (U+FF4D U+FF4F U+FF44 U+FF4C U+FF45, <wide> of m o d l e) is modle typed in full-width letters:
     * it said "'ｍｏｄｌｅ' is not a figure either", no list, where modle got "type --figures heads,model" */
    {"figures_chinese_and_full_width_typo", 2, "'热力图' is not a figure (热力图 is heads, and ｍｏｄｌｅ is a typo of model typed in full-width letters: type --figures heads,model, with --model); expected", {"--figures", "热力图,ｍｏｄｌｅ", "我爱"}, NULL, 0, NULL, 0},
    {"figures_chinese_and_no_figure", 2, "'热力图' is not a figure (热力图 is heads, and 'xyz' is not a figure either); expected", {"--figures", "热力图,xyz", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"figures_chinese_and_empty_names", 2, "'热力图' is not a figure (热力图 is heads, and the list has an empty name too); expected", {"--figures", "热力图,,", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"figures_chinese_two_in_a_list", 2, "--figures '热力图，网格': '热力图' is not a figure (热力图 is heads: type --figures heads，grid); expected", {"--figures", "热力图，网格", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"figures_chinese_in_a_list", 2, "--figures 'grid,平均图': '平均图' is not a figure (平均图 is mean: type --figures grid,mean); expected", {"--figures", "grid,平均图", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* two values given to a one-value choice (--compare WHAT, --positions KIND: the man page's synopsis), joined by
     * a full-width comma, '、' or ','; "scale,foo" is a list too, of one value and a word that is none */
    {"compare_two_values_fullwidth_comma", 2, "--compare '缩放，位置' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare scale); expected scale, positions", {"--compare", "缩放，位置", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"compare_two_values_enumeration_comma", 2, "--compare '位置、顺序' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare positions); expected", {"--compare", "位置、顺序", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"positions_two_values", 2, "--positions 'rope,sinusoidal' is not allowed (--positions takes one value, not a list: run attnviz once for each, e.g. --positions rope); expected", {"--positions", "rope,sinusoidal", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* the e.g. is a command that runs as typed: norm (--compare) and learned (--positions) need --train (the man
     * page's --compare and --positions), so "层归一化,缩放" said "e.g. --compare norm", refused without --train */
    {"compare_two_values_train_only_first", 2, "--compare '层归一化,缩放' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare scale); expected", {"--compare", "层归一化,缩放", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"compare_two_values_norm_first", 2, "--compare 'norm,positions' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare positions); expected", {"--compare", "norm,positions", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"positions_two_values_learned_first", 2, "--positions '可学习,旋转' is not allowed (--positions takes one value, not a list: run attnviz once for each, e.g. --positions rope); expected", {"--positions", "可学习,旋转", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"compare_two_values_each_train_only", 2, "--compare 'norm,层归一化' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare norm, with --train); expected", {"--compare", "norm,层归一化", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* with --train on the command line, before or after, the e.g. is a value --train takes (the man page's --compare:
     * scale, norm or positions with --train; --positions none is refused with it): `--train reverse --compare
     * order,norm` said "e.g. --compare order", which --train refuses ("not a --train comparison") */
    {"compare_two_values_with_train", 2, "--compare 'order,norm' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare norm); expected", {"--train", "reverse", "--compare", "order,norm"}, NULL, 0, NULL, 0},
    {"compare_two_values_train_after", 2, "--compare 'order,norm' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare norm); expected", {"--compare", "order,norm", "--train", "reverse"}, NULL, 0, NULL, 0},
    {"compare_two_values_none_with_train", 2, "--compare 'order,rope-style' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare order, without --train); expected", {"--train", "reverse", "--compare", "order,rope-style"}, NULL, 0, NULL, 0},
    /* the synopsis as README and --help write it, "--compare scale|norm|positions", "--train reverse|sort|induction",
     * typed quoted, or with a '/': a list as "scale,norm" is (they said only "is not allowed" / "is not a task"); a
     * list with a typo in it ("positoins" is read_choice's "did you mean positions?") or of no value at all */
    {"compare_two_values_bar", 2, "--compare 'scale|norm' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare scale); expected", {"--compare", "scale|norm", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"train_two_values_slash", 2, "--train 'sort/reverse' is not a task (--train takes one value, not a list: run attnviz once for each, e.g. --train sort); expected reverse, sort or induction", {"--train", "sort/reverse", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"train_synopsis_as_typed", 2, "--train 'reverse|sort|induction' is not a task (--train takes one value, not a list: run attnviz once for each, e.g. --train reverse); expected", {"--train", "reverse|sort|induction", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"compare_two_values_one_typo", 2, "--compare 'scale,positoins' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare scale); expected", {"--compare", "scale,positoins", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"compare_two_values_typos_only", 2, "--compare 'scael,positoins' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare scale); expected", {"--compare", "scael,positoins", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"compare_two_names_of_no_value", 2, "--compare 'foo,bar' is not allowed (--compare takes one value, not a list: run attnviz once for each); expected", {"--compare", "foo,bar", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* with --model, which takes --compare scale alone ("--compare positions cannot be used with --model", and the
     * man page's "with --model: scale") and no --positions (kNotForModel): scale of order,scale, and the others
     * named ", without --model" (`--model DIR --compare positions,order` said "e.g. --compare positions", 位置
     * "type --compare positions", 旋转 "type --positions rope", each refused by --model); the option's value is
     * read before the folder, so a folder that is not there gives the same message */
    {"compare_two_values_with_model", 2, "--compare 'positions,order' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare positions, without --model); expected", {"--model", "no-such-model", "--compare", "positions,order", "3 1 >"}, NULL, 0, NULL, 0},
    {"compare_two_values_with_model_scale", 2, "--compare 'order,scale' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare scale); expected", {"--compare", "order,scale", "-m", "no-such-model", "3 1 >"}, NULL, 0, NULL, 0},
    /* --model keeps every layer's weights and refuses --kernel flash (gpt2run.c): the list's first value that
     * runs with --model is blas (from a review of the change: it said "e.g. --kernel flash") */
    {"kernel_two_values_with_model", 2, "--kernel 'flash,blas' is not allowed (--kernel takes one value, not a list: run attnviz once for each, e.g. --kernel blas); expected", {"--model", "no-such-model", "--kernel", "flash,blas", "3 1 >"}, NULL, 0, NULL, 0},
    /* with --model, when no value of the list runs there, one that runs without it (--compare order and --positions
     * none need neither --train nor --model), not --compare norm "with --train", which --model and --train together
     * refuse; a list of norm alone needs --train in the place of --model */
    {"compare_two_values_none_with_model", 2, "--compare 'norm,order' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare order, without --model); expected", {"--model", "no-such-model", "--compare", "norm,order", "3 1 >"}, NULL, 0, NULL, 0},
    {"positions_two_values_none_with_model", 2, "--positions 'learned,none' is not allowed (--positions takes one value, not a list: run attnviz once for each, e.g. --positions none, without --model); expected", {"-m", "no-such-model", "--positions", "learned,none", "3 1 >"}, NULL, 0, NULL, 0},
    {"compare_norm_twice_with_model", 2, "--compare 'norm,归一化' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare norm, with --train in place of --model); expected", {"--compare", "norm,归一化", "--model", "no-such-model", "3 1 >"}, NULL, 0, NULL, 0},
    {"compare_chinese_with_model", 2, "--compare '位置' is not allowed (位置 is positions: type --compare positions, without --model); expected", {"-m", "no-such-model", "--compare", "位置", "3 1 >"}, NULL, 0, NULL, 0},
    {"positions_chinese_with_model", 2, "--positions '旋转' is not allowed (旋转 is rope: type --positions rope, without --model); expected", {"--positions", "旋转", "--model", "no-such-model", "3 1 >"}, NULL, 0, NULL, 0},
    /* --figures with --model: model, grid, heads, pe or all (parse_figures' allowed; gpt2run.c: "mean, scores and
     * mask are for the single layer"), so 平均图 (mean) and a list holding mean are "without --model"; without
     * --model the figure model needs one (check_combinations: "add --model DIR"), so model,热力图 is "with --model" */
    {"figures_chinese_mean_with_model", 2, "'平均图' is not a figure (平均图 is mean: type --figures mean, without --model); expected", {"--model", "no-such-model", "--figures", "平均图", "3 1 >"}, NULL, 0, NULL, 0},
    {"figures_chinese_list_with_model", 2, "'热力图' is not a figure (热力图 is heads: type --figures mean,heads, without --model); expected", {"--figures", "mean,热力图", "-m", "no-such-model", "3 1 >"}, NULL, 0, NULL, 0},
    {"figures_chinese_grid_with_model", 2, "'网格' is not a figure (网格 is grid: type --figures grid); expected", {"--model", "no-such-model", "--figures", "网格", "3 1 >"}, NULL, 0, NULL, 0},
    {"figures_chinese_model_list_without_model", 2, "'热力图' is not a figure (热力图 is heads: type --figures model,heads, with --model); expected", {"--figures", "model,热力图", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a space after the comma, which read_figures takes ("heads, model" runs with --model): each name is read
     * without it, so " model" needs --model, " mean" is refused by it and " 平均图" is mean (from a review of the
     * change: no ", with --model", no ", without --model", and "type --figures 'heads, 平均图'"); the command has
     * the names without the spaces typed around them, which read_figures drops: no quotes needed */
    {"figures_chinese_space_model_without_model", 2, "'热力图' is not a figure (热力图 is heads: type --figures heads,model, with --model); expected", {"--figures", "热力图, model", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"figures_chinese_space_mean_with_model", 2, "'热力图' is not a figure (热力图 is heads: type --figures heads,mean, without --model); expected", {"-m", "no-such-model", "--figures", "热力图, mean", "3 1 >"}, NULL, 0, NULL, 0},
    {"figures_chinese_two_with_a_space", 2, "'热力图' is not a figure (热力图 is heads: type --figures heads,mean); expected", {"--figures", "热力图, 平均图", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a space before the full-width comma (U+FF0C), typed in an input method's full-width mode: "热力图 ，网格" said
     * "type --figures 'heads ，grid'", the space kept */
    {"figures_chinese_space_before_fullwidth_comma", 2, "'热力图' is not a figure (热力图 is heads: type --figures heads，grid); expected", {"--figures", "热力图 ，网格", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"figures_chinese_spaces_around_the_names", 2, "'网格' is not a figure (网格 is grid: type --figures grid,heads); expected", {"--figures", " 网格 , heads ", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* mean with model: refused with --model (gpt2run.c: "mean, scores and mask are for the single layer") and
     * without it (check_combinations: "--figures model draws every layer of a --model"), so no ", with --model"
     * nor ", without --model" runs it (from a review of the change) */
    {"figures_chinese_mean_and_model_without_model", 2, "'平均图' is not a figure (平均图 is mean; mean is for the single layer and model draws every layer of a --model: they cannot be drawn in one run, so run attnviz once for each); expected", {"--figures", "平均图,model", "我爱"}, NULL, 0, NULL, 0},
    {"figures_chinese_mean_and_model_with_model", 2, "'平均图' is not a figure (平均图 is mean; mean is for the single layer and model draws every layer of a --model: they cannot be drawn in one run, so run attnviz once for each); expected", {"-m", "no-such-model", "--figures", "平均图,model", "3 1 >"}, NULL, 0, NULL, 0},
    /* with all in the list, both run it (`--figures mean,all,model` runs with and without --model): it was told
     * "cannot be drawn in one run" (a review of the change) */
    /* a typo or full-width letters of a figure get the check 平均图 gets (read_choice_list): --model draws model,
     * grid, heads and pe ("mean, scores and mask are for the single layer"), model needs a --model, and with all
     * in the list both run; `-m DIR --figures maen` said "did you mean mean?" and --figures ｍｏｄｅｌ "type the
     * half-width model", each then refused. ｍｅａｎ is U+FF4D U+FF45 U+FF41 U+FF4E, <wide> of m e a n. */
    {"figures_typo_mean_with_model", 2, "'maen' is not a figure (did you mean mean, without --model?); expected", {"-m", "no-such-model", "--figures", "maen", "3 1 >"}, NULL, 0, NULL, 0},
    {"figures_typo_scores_in_a_list_with_model", 2, "'scoers' is not a figure (did you mean scores, without --model?); expected", {"-m", "no-such-model", "--figures", "grid,scoers", "3 1 >"}, NULL, 0, NULL, 0},
    {"figures_fullwidth_mean_with_model", 2, "'ｍｅａｎ' is not a figure (it is typed in full-width characters: type the half-width mean, 半角, without --model); expected", {"-m", "no-such-model", "--figures", "ｍｅａｎ", "3 1 >"}, NULL, 0, NULL, 0},
    {"figures_typo_model_without_model", 2, "'modle' is not a figure (did you mean model, with --model?); expected", {"--figures", "modle", "我爱"}, NULL, 0, NULL, 0},
    {"figures_fullwidth_model_without_model", 2, "'ｍｏｄｅｌ' is not a figure (it is typed in full-width characters: type the half-width model, 半角, with --model); expected", {"--figures", "ｍｏｄｅｌ", "我爱"}, NULL, 0, NULL, 0},
    {"figures_typo_mean_and_model", 2, "'maen' is not a figure (did you mean mean? mean is for the single layer and model draws every layer of a --model: they cannot be drawn in one run, so run attnviz once for each); expected", {"--figures", "maen,model", "我爱"}, NULL, 0, NULL, 0},
    /* every name of the list that is no figure is named with the one it stands for, and the list to type fixes
     * them all (maen and modle are one swap from mean and model, hedas from heads, grdi from grid; ｍａｅｎ is
     * U+FF4D U+FF41 U+FF45 U+FF4E, <wide> of m a e n): `--figures maen,modle` named maen alone, and `--figures
     * hedas,model` said "did you mean heads, with --model?", though heads runs without --model and model needs it
     * (--figures model: "add --model DIR"); the command to type now carries the ", with --model", as 热力图's does */
    {"figures_two_typos_both_named", 2, "--figures 'maen,modle': 'maen' is not a figure (maen is a typo of mean, and modle is a typo of model; mean is for the single layer and model draws every layer of a --model: they cannot be drawn in one run, so run attnviz once for each); expected", {"--figures", "maen,modle", "hi"}, NULL, 0, NULL, 0},
    {"figures_two_typos_one_list", 2, "'hedas' is not a figure (hedas is a typo of heads, and grdi is a typo of grid: type --figures heads,grid); expected", {"--figures", "hedas,grdi", "hi"}, NULL, 0, NULL, 0},
    {"figures_typo_and_model_without_model", 2, "'hedas' is not a figure (hedas is a typo of heads: type --figures heads,model, with --model); expected", {"--figures", "hedas,model", "hi"}, NULL, 0, NULL, 0},
    {"figures_typo_and_mean_with_model", 2, "'hedas' is not a figure (hedas is a typo of heads: type --figures heads,mean, without --model); expected", {"-m", "no-such-model", "--figures", "hedas,mean", "3 1 >"}, NULL, 0, NULL, 0},
    {"figures_typo_and_no_figure", 2, "'hedas' is not a figure (hedas is a typo of heads, and 'xyz' is not a figure either); expected", {"--figures", "hedas,xyz", "hi"}, NULL, 0, NULL, 0},
    {"figures_full_width_and_model_without_model", 2, "'ｈｅａｄｓ' is not a figure (ｈｅａｄｓ is heads typed in full-width letters: type --figures heads,model, with --model); expected", {"--figures", "ｈｅａｄｓ,model", "hi"}, NULL, 0, NULL, 0},
    {"figures_full_width_typo", 2, "'ｍａｅｎ' is not a figure (ｍａｅｎ is a typo of mean typed in full-width letters: type --figures mean); expected", {"--figures", "ｍａｅｎ", "hi"}, NULL, 0, NULL, 0},
    {"figures_typo_mean_all_with_model", 2, "'maen' is not a figure (did you mean mean?); expected", {"-m", "no-such-model", "--figures", "maen,all", "3 1 >"}, NULL, 0, NULL, 0},
    {"figures_typo_grid_with_model", 2, "'grdi' is not a figure (did you mean grid?); expected", {"-m", "no-such-model", "--figures", "grdi", "3 1 >"}, NULL, 0, NULL, 0},
    {"figures_typo_mean_without_model", 2, "'maen' is not a figure (did you mean mean?); expected", {"--figures", "maen", "我爱"}, NULL, 0, NULL, 0},
    {"figures_chinese_mean_all_and_model", 2, "'平均图' is not a figure (平均图 is mean: type --figures mean,all,model); expected", {"--figures", "平均图,all,model", "我爱"}, NULL, 0, NULL, 0},
    {"figures_chinese_mean_all_and_model_with_model", 2, "'平均图' is not a figure (平均图 is mean: type --figures mean,all,model); expected", {"-m", "no-such-model", "--figures", "平均图,all,model", "3 1 >"}, NULL, 0, NULL, 0},
    {"figures_chinese_scores_and_model", 2, "'热力图' is not a figure (热力图 is heads; scores is for the single layer and model draws every layer of a --model: they cannot be drawn in one run, so run attnviz once for each); expected", {"--figures", "热力图,scores, model", "我爱"}, NULL, 0, NULL, 0},
    {"positions_two_values_with_train", 2, "--positions 'none,learned' is not allowed (--positions takes one value, not a list: run attnviz once for each, e.g. --positions learned); expected", {"--train", "reverse", "--positions", "none,learned"}, NULL, 0, NULL, 0},
    {"compare_chinese_order_with_train", 2, "--compare '顺序' is not allowed (顺序 is order: type --compare order, without --train); expected", {"--train", "reverse", "--compare", "顺序"}, NULL, 0, NULL, 0},
    {"compare_two_values_without_train", 2, "--compare 'order,norm' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare order); expected", {"--compare", "order,norm", "我爱你"}, NULL, 0, NULL, 0},
    {"compare_value_and_unknown_is_a_list", 2, "--compare 'scale,foo' is not allowed (--compare takes one value, not a list: run attnviz once for each, e.g. --compare scale); expected", {"--compare", "scale,foo", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a word the docs do not use for any value gets no guess */
    {"color_chinese_no_word", 2, "--color '总是' is not allowed; expected auto, always or never", {"--color", "总是", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a number with a measure word or unit after it ("--heads 8个" said only "is not a whole number"): the
     * number part, worked by hand (八 is 8, 一百 100), and no guess for an ordinal (第一层 is --layer 0) */
    {"heads_measure_word", 2, "--heads '8个' is not a whole number (the 个 after the number is not part of it: type 8); allowed: 1..64", {"--heads", "8个", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* full-width digits with a measure word after them, as an input method's full-width mode types "8个": ８ is
     * U+FF18, <wide> 8 in UnicodeData.txt, １００ is 100 (they said only "is not a whole number", where ８ alone
     * and 8个 alone each got a hint) */
    {"heads_fullwidth_measure_word", 2, "--heads '８个' is not a whole number (the 个 after the number is not part of it, and it is typed in full-width characters: type the half-width 8, 半角); allowed: 1..64", {"--heads", "８个", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"heads_fullwidth_measure_word_out_of_range", 2, "--heads '１００个' is not a whole number (the 个 after the number is not part of it, and it is typed in full-width characters: as the half-width 100 it is outside the allowed range too); allowed: 1..64", {"--heads", "１００个", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_fullwidth_measure_word", 2, "--explain key '５个' is neither a token of the sentence nor an index 0..5 (the 个 after the number is not part of it, and it is typed in full-width characters: type the half-width 5, 半角)", {"--explain", "爱,５个", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_fullwidth_ordinal", 2, "--head '第１个' is not a whole number (the 第 and 个 around the number are not part of it, and it is typed in full-width characters: type --head 1, 半角; --head counts from 0 (the docs' 第 0 层 is layer 0): for the 1st, type --head 0)", {"--heads", "4", "--head", "第１个", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* 半 after the measure word is "and a half": 2个半 is 2.5 and 两个半 2.5, no whole number, so no "type 2" (it said
     * "the 个半 after the number is not part of it: type 2") */
    {"heads_measure_word_and_a_half", 2, "--heads '2个半' is not a whole number; allowed: 1..64", {"--heads", "2个半", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_measure_word_and_a_half", 2, "--explain key '两个半' is neither a token of the sentence nor an index 0..5\n", {"--explain", "爱,两个半", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"heads_chinese_numeral_measure_word", 2, "--heads '八个' is not a whole number (the 个 after the number is not part of it, and it is written in Chinese numerals: type the digits 8, 阿拉伯数字); allowed: 1..64", {"--heads", "八个", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"heads_measure_words_out_of_range", 2, "--heads '一百个头' is not a whole number (the 个头 after the number is not part of it, and it is written in Chinese numerals: as the digits 100 it is outside the allowed range too); allowed: 1..64", {"--heads", "一百个头", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"heads_digits_measure_word_out_of_range", 2, "--heads '100个' is not a whole number (the 个 after the number is not part of it, and 100 is outside the allowed range too); allowed: 1..64", {"--heads", "100个", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"d_model_unit", 2, "--d-model '512维' is not a whole number (the 维 after the number is not part of it: type 512); allowed: 1..4096", {"-d", "512维", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"steps_unit", 2, "--steps '100步' is not a whole number (the 步 after the number is not part of it: type 100); allowed: 1..1000000", {"--train", "reverse", "--steps", "100步"}, NULL, 0, NULL, 0},
    /* an English word for what the number counts, or its unit, glued or quoted with a space, as 100步 above: it
     * said only "is not a whole number"; 700 is past --dpi's 50..600; 4kb and 1st stay unguessed (a kilobyte is
     * no thousand steps, an ordinal no count) */
    {"steps_english_unit", 2, "--steps '100steps' is not a whole number (the word steps after the number is not part of it: type 100); allowed: 1..1000000", {"--train", "reverse", "--steps", "100steps"}, NULL, 0, NULL, 0},
    {"heads_english_unit_space", 2, "--heads '8 heads' is not a whole number (the word heads after the number is not part of it: type 8); allowed: 1..64", {"--heads", "8 heads", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"dpi_english_unit_out_of_range", 2, "--dpi '700dpi' is not a whole number (the word dpi after the number is not part of it, and 700 is outside the allowed range too); allowed: 50..600", {"--dpi", "700dpi", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"scale_english_times", 2, "--scale '1.5x' is not a number (the word x after the number is not part of it: type 1.5)", {"--scale", "1.5x", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"steps_kilobytes_no_guess", 2, "--steps '4kb' is not a whole number; allowed: 1..1000000", {"--train", "reverse", "--steps", "4kb"}, NULL, 0, NULL, 0},
    {"steps_ordinal_suffix_no_guess", 2, "--steps '1st' is not a whole number; allowed: 1..1000000", {"--train", "reverse", "--steps", "1st"}, NULL, 0, NULL, 0},
    {"scale_unit", 2, "--scale '1.5倍' is not a number (the 倍 after the number is not part of it: type 1.5)", {"--scale", "1.5倍", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"seed_chinese_numeral_unit", 2, "--seed '四十二号' is not a whole number (the 号 after the number is not part of it, and it is written in Chinese numerals: type the digits 42, 阿拉伯数字)", {"--seed", "四十二号", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a numeral the reader took a wrong number from, worked by hand: 一千零十 is 1000 + 10 (the bare 十 after
     * 零, as 一千零一十) and 一万亿 is 10^4·10^8, where the 十 and the 亿 were called words after 1000 and 10000;
     * 两百两 is no number (两 is not said in the ones place: 两百二 is 220) and was read as 220; 一亿二亿 has two
     * 亿 places and got "the 亿 after the number" of 100000000 */
    {"heads_chinese_ling_shi", 2, "--heads '一千零十' is not a whole number (it is written in Chinese numerals, and as the digits 1010 it is outside the allowed range too); allowed: 1..64", {"--heads", "一千零十", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"heads_chinese_wan_yi", 2, "--heads '一万亿' is not a whole number (it is written in Chinese numerals, and as the digits 1000000000000 it is outside the allowed range too); allowed: 1..64", {"--heads", "一万亿", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"heads_chinese_yi_yi_past_int64", 2, "--heads '一千亿亿' is not a whole number (it is written in Chinese numerals, and as the digits 10000000000000000000 it is outside the allowed range too); allowed: 1..64", {"--heads", "一千亿亿", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"heads_chinese_liang_in_ones_no_guess", 2, "--heads '两百两' is not a whole number; allowed: 1..64", {"--heads", "两百两", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"heads_chinese_two_yi_no_guess", 2, "--heads '一亿二亿' is not a whole number; allowed: 1..64", {"--heads", "一亿二亿", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_chinese_ling_shi", 2, "--explain key '一百零十' is neither a token of the sentence nor an index 0..5 (it is written in Chinese numerals, and as the digits 110 it is outside 0..5 too: T = 6 tokens)", {"--explain", "爱,一百零十", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* an ordinal of an index option: 第一层 is the first layer, index 0 (docs/train.zh.md's 第一层的几个头 are layer
     * 0's), 第十二层 the 12th, index 11; 第 0 层 is how the Chinese docs write --layer 0 (第 1 层 --layer 1); 第零
     * is no ordinal, so no guess */
    {"layer_ordinal", 2, "--layer '第一层' is not a layer number (第一层 is the 1st, and --layer counts from 0: type --layer 0); allowed: 0..L-1", {"--layer", "第一层", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"layer_ordinal_twelfth", 2, "--layer '第十二层' is not a layer number (第十二层 is the 12th, and --layer counts from 0: type --layer 11); allowed: 0..L-1", {"--layer", "第十二层", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* an ordinal given to a count or a number, not an index: 第八 is the 8th, so --heads 8 (no count from 0); 第
     * 8 and 第８个 (U+FF18 is 8, UnicodeData.txt's <wide> 0038) the same; 第八十 is 80, past --heads' 1..64; 第零 is
     * no ordinal (it said only "is not a whole number" for all of them) */
    {"heads_ordinal_count", 2, "--heads '第八' is not a whole number (第八 is the 8th: --heads takes the number itself, type --heads 8); allowed: 1..64", {"--heads", "第八", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"heads_ordinal_fullwidth_count", 2, "--heads '第８个' is not a whole number (第８个 is the 8th: --heads takes the number itself, type --heads 8, 半角); allowed: 1..64", {"--heads", "第８个", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"heads_ordinal_count_out_of_range", 2, "--heads '第八十' is not a whole number (第八十 is the 80th: --heads takes the number itself, and as 80 it is outside the allowed range too); allowed: 1..64", {"--heads", "第八十", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"steps_ordinal_count", 2, "--steps '第 100' is not a whole number (第 100 is the 100th: --steps takes the number itself, type --steps 100); allowed: 1..1000000", {"--train", "reverse", "--steps", "第 100"}, NULL, 0, NULL, 0},
    {"heads_ordinal_zero_no_guess", 2, "--heads '第零' is not a whole number; allowed: 1..64", {"--heads", "第零", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_ordinal", 2, "--head '第一个' is not a whole number (第一个 is the 1st, and --head counts from 0: type --head 0); allowed: 0..H-1", {"--head", "第一个", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"layer_docs_index", 2, "--layer '第 1 层' is not a layer number (the 第 and 层 around the number are not part of it: type --layer 1; --layer counts from 0 (the docs' 第 0 层 is layer 0): for the 1st, type --layer 0); allowed: 0..L-1", {"--layer", "第 1 层", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* 第1个 in digits is the docs' index (docs/train.zh.md's 第 0 层 and 第 1 层 are layers 0 and 1, reading-heads.zh.md's
     * 第 0 行 row 0) and, in everyday Chinese, the 1st, as 第一个 is (reading-heads.zh.md's 第一个词元 is token 0):
     * --head 第1个 named index 1 alone where --head 第一个 said index 0, so it names both, 1 and 1 − 1 = 0; 第0个 is
     * index 0 only; 我爱深度学习's tokens are 0..5, so 第6个 is index 5 counted from 1 and 第7个 neither (the --head
     * rows with --heads 4: with the one default head index 1 is past it, as head_ordinal_past_the_one_head says) */
    {"head_digits_ordinal_both_indexes", 2, "--head '第1个' is not a whole number (the 第 and 个 around the number are not part of it: type --head 1; --head counts from 0 (the docs' 第 0 层 is layer 0): for the 1st, type --head 0); allowed: 0..H-1", {"--heads", "4", "--head", "第1个", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_digits_ordinal_zero", 2, "--head '第0个' is not a whole number (the 第 and 个 around the number are not part of it: type --head 0); allowed: 0..H-1", {"--head", "第0个", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_digits_ordinal_past_end", 2, "--explain query '第6个' is neither a token of the sentence nor an index 0..5 (the 第 and 个 around the number are not part of it: as 6 it is outside 0..5 too; token indices count from 0 (the docs' 第 0 层 is layer 0): for the 6th, type 5)", {"--explain", "第6个,爱", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_digits_ordinal_past_both", 2, "--explain query '第7个' is neither a token of the sentence nor an index 0..5 (the 第 and 个 around the number are not part of it: as 7 it is outside 0..5 too)", {"--explain", "第7个,爱", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a head or layer as --train's log names it (src/app/train.c: "best L0 H3 0.60", docs/train.zh.md's table) or
     * as the Chinese docs write it (train.zh.md's 头 3, 第 0 层的头 3): H3 and 头 3 are head 3, L1 layer 1; L1 is no
     * head, so no guess for --head L1 (they said only "is not a whole number") */
    {"head_log_name", 2, "--head 'H3' is not a whole number (the H before the number is not part of it, as in the training log's L0 H3: type --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "H3", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_docs_word", 2, "--head '头 3' is not a whole number (the 头 before the number is not part of it: type --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "头 3", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* the same names typed without quotes: the shell splits 头 3 (docs/train.zh.md's words) into two words, so
     * --head gets 头 and 3 joins the sentence; 头 3 is head 3, 层 1 layer 1, and 第 八 given to --heads 8 (they
     * said only "--head '头' is not a whole number") */
    {"head_name_split_by_shell", 2, "--head '头' is not a whole number (the shell split '头 3' at its space, and the next word, 3, went into the sentence; the 头 before the number is not part of it: type --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "头", "3", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"layer_name_split_by_shell", 2, "--layer '层' is not a layer number (the shell split '层 1' at its space, and the next word, 1, went into the sentence; the 层 before the number is not part of it: type --layer 1); allowed: 0..L-1", {"--layer", "层", "1", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* the digits (and H) full-width, as an input method's full-width mode types them: U+FF13 is <wide> 0033 (3) and
     * U+FF28 <wide> 0048 (H) in UnicodeData.txt; 头３ said only "is not a whole number" where 头3 gets the hint */
    {"head_name_fullwidth_digit", 2, "--head '头３' is not a whole number (the 头 before the number is not part of it, and it is typed in full-width characters: type --head 3, 半角); allowed: 0..H-1", {"--heads", "4", "--head", "头３", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_name_fullwidth_letter", 2, "--head 'Ｈ3' is not a whole number (the H before the number is not part of it, as in the training log's L0 H3, and it is typed in full-width characters: type --head 3, 半角); allowed: 0..H-1", {"--heads", "4", "--head", "Ｈ3", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"layer_name_fullwidth_digit", 2, "--layer '层３' is not a layer number (the 层 before the number is not part of it, and it is typed in full-width characters: type --layer 3, 半角); allowed: 0..L-1", {"--layer", "层３", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_name_fullwidth_digit_split_by_shell", 2, "--head '头' is not a whole number (the shell split '头 ３' at its space, and the next word, ３, went into the sentence; the 头 before the number is not part of it, and it is typed in full-width characters: type --head 3, 半角); allowed: 0..H-1", {"--heads", "4", "--head", "头", "３", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* heads are numbered from 0 (--train's log names 4 heads L0 H0..L0 H3): H4 of --heads 4, 头1 of the one default
     * head (AV_DEFAULT_HEADS) and the split H 4 are past them, where "type --head 4" named a refused value;
     * H3 of 4 heads and H4 with a --model (its n_head not yet known) keep "type --head N" */
    {"head_name_past_the_heads", 2, "--head 'H4' is not a whole number (the H before the number is not part of it, as in the training log's L0 H3, and heads are numbered from 0: 4 is outside 0..3, so the last head is --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "H4", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_name_past_the_heads_given_later", 2, "--head 'H4' is not a whole number (the H before the number is not part of it, as in the training log's L0 H3, and heads are numbered from 0: 4 is outside 0..3, so the last head is --head 3); allowed: 0..H-1", {"--head", "H4", "--heads=4", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_name_past_the_default_head", 2, "--head '头1' is not a whole number (the 头 before the number is not part of it, and heads are numbered from 0: 1 is outside 0..0, so the only head is --head 0); allowed: 0..H-1", {"--head", "头1", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_name_past_the_heads_split_by_shell", 2, "--head 'H' is not a whole number (the shell split 'H 4' at its space, and the next word, 4, went into the sentence; the H before the number is not part of it, as in the training log's L0 H3, and heads are numbered from 0: 4 is outside 0..3, so the last head is --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "H", "4", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* an ordinal, a Chinese numeral or a number with a word after it past the heads in use (the one default head,
     * or --heads 4: H0..H3) is named as H4 is, not "type --head 4" or "type the digits 5", each refused (from a
     * review of the change); 第五 is the 5th, index 4; 第4 index 4; 五 5; within the heads 第四 stays "type --head 3" */
    {"head_ordinal_past_the_one_head", 2, "--head '第五' is not a whole number (第五 is the 5th, and heads are numbered from 0: 4 is outside 0..0, so the only head is --head 0); allowed: 0..H-1", {"--head", "第五", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_ordinal_past_the_heads", 2, "--head '第五' is not a whole number (第五 is the 5th, and heads are numbered from 0: 4 is outside 0..3, so the last head is --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "第五", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_ordinal_digits_past_the_heads", 2, "--head '第4' is not a whole number (the 第 before the number is not part of it, and heads are numbered from 0: 4 is outside 0..3, so the last head is --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "第4", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_ordinal_split_past_the_heads", 2, "--head '第' is not a whole number (the shell split '第 五' at its space, and the next word, 五, went into the sentence; 第 五 is the 5th, and heads are numbered from 0: 4 is outside 0..3, so the last head is --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "第", "五", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_chinese_numeral_past_the_heads", 2, "--head '五' is not a whole number (it is written in Chinese numerals, and as the digits 5 it is outside the allowed range too; heads are numbered from 0, so the last head is --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "五", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_number_with_word_past_the_heads", 2, "--head '4个' is not a whole number (the 个 after the number is not part of it, and 4 is outside the allowed range too; heads are numbered from 0, so the last head is --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "4个", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a full-width digit (U+FF15 is <wide> 0035 in UnicodeData.txt: 5), spaces at its ends, a mark after it, digits
     * grouped or a ".0" past the heads in use (the one default head, --heads 1, --heads 4: H0..H3) or the layers
     * --train trains (--layers 2, or reverse's default 2, app/train_defaults.c) are named as 第五 is, not "type the
     * half-width 5" or "type 5", each then refused ("--head 5 is outside 0..0"); within them the value to type stays,
     * and numbers past their options' ranges (--heads 1..64, --lr up to 10, --vmax (0, 1], --scale 0.5..4) are told
     * so as "--heads 一百零五" is */
    {"head_fullwidth_digit_past_the_one_head", 2, "--head '５' is not a whole number (it is typed in full-width characters, and as the half-width 5 it is outside the allowed range too; heads are numbered from 0, so the only head is --head 0); allowed: 0..H-1", {"--heads", "1", "--head", "５", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_fullwidth_digit_past_the_default_head", 2, "--head '５' is not a whole number (it is typed in full-width characters, and as the half-width 5 it is outside the allowed range too; heads are numbered from 0, so the only head is --head 0); allowed: 0..H-1", {"--head", "５", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_edge_space_past_the_one_head", 2, "--head ' 5' is not a whole number (the space at its start is not part of a number, and as 5 it is outside the allowed range too; heads are numbered from 0, so the only head is --head 0); allowed: 0..H-1", {"--heads", "1", "--head", " 5", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_trailing_point_past_the_one_head", 2, "--head '5.' is not a whole number (the '.' at its end is typed after the value, and as 5 it is outside the allowed range too; heads are numbered from 0, so the only head is --head 0); allowed: 0..H-1", {"--heads", "1", "--head", "5.", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_fullwidth_digit_past_the_heads", 2, "--head '５' is not a whole number (it is typed in full-width characters, and as the half-width 5 it is outside the allowed range too; heads are numbered from 0, so the last head is --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "５", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_grouped_past_the_heads", 2, "--head '4，000' is not a whole number (the '，' between its digits groups thousands, which a number here does not take, and as 4000 it is outside the allowed range too; heads are numbered from 0, so the last head is --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "4，000", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_point_zero_past_the_heads", 2, "--head 5.0: write a whole number without a decimal point; heads are numbered from 0, so the last head is --head 3; allowed: 0..H-1", {"--heads", "4", "--head", "5.0", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_fullwidth_digit_within_the_heads", 2, "--head '３' is not a whole number (it is typed in full-width characters: type the half-width 3, 半角); allowed: 0..H-1", {"--heads", "4", "--head", "３", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a negative value (U+FF0D FULLWIDTH HYPHEN-MINUS, 负一 = -1; -１ is - then <wide> 0031) is below 0, not past the
     * last head: no "so the last head is" (as 5 of 2 heads is told), and no negative indexing, as Python's -1 is the
     * last (it said "heads are numbered from 0, so the last head is --head 1"); with a --model, whose heads are not
     * known here, and for --layer, no "type the half-width -1" (refused by every model: app/gpt2run.c's 0..L-1), and
     * --layer says what gpt2run.c says of --layer -1, leave it out for the last */
    {"head_fullwidth_negative", 2, "--head '-１' is not a whole number (it is typed in full-width characters, and as the half-width -1 it is outside the allowed range too; heads are numbered from 0, with no negative indexing: the last head is --head 1); allowed: 0..H-1", {"--heads", "2", "--head", "-１", "I love"}, NULL, 0, NULL, 0},
    {"head_fullwidth_minus_sign", 2, "--head '－１' is not a whole number (it is typed in full-width characters, and as the half-width -1 it is outside the allowed range too; heads are numbered from 0, with no negative indexing: the last head is --head 1)", {"--heads", "2", "--head", "－１", "I love"}, NULL, 0, NULL, 0},
    {"head_chinese_negative", 2, "--head '负一' is not a whole number (it is written in Chinese numerals, and as the digits -1 it is outside the allowed range too; heads are numbered from 0, with no negative indexing: the only head is --head 0)", {"--head", "负一", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_point_zero_negative", 2, "--head -1.0: write a whole number without a decimal point; heads are numbered from 0, with no negative indexing: the last head is --head 3; allowed: 0..H-1", {"--heads", "4", "--head", "-1.0", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_fullwidth_negative_with_model", 2, "--head '-１' is not a whole number (it is typed in full-width characters, and as the half-width -1 it is outside the allowed range too; heads are numbered from 0, with no negative indexing); allowed: 0..H-1", {"--model", "@/nomodel", "--head", "-１", "hi"}, NULL, 0, NULL, 0},
    {"layer_fullwidth_negative", 2, "--layer '-１' is not a layer number (it is typed in full-width characters, and as the half-width -1 it is outside the allowed range too; layers are numbered from 0, with no negative indexing: leave --layer out for the last layer); allowed: 0..L-1", {"--layer", "-１", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"layer_chinese_negative", 2, "--layer '负一' is not a layer number (it is written in Chinese numerals, and as the digits -1 it is outside the allowed range too; layers are numbered from 0, with no negative indexing: leave --layer out for the last layer)", {"--layer", "负一", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"warmup_fullwidth_negative", 2, "--warmup '-１' is not a whole number (it is typed in full-width characters, and as the half-width -1 it is outside the allowed range too); allowed: 0..--steps", {"--train", "reverse", "--warmup", "-１", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"head_point_zero_within_the_heads", 2, "--head 2.0: write a whole number without a decimal point, e.g. 2; allowed: 0..H-1", {"--heads", "4", "--head", "2.0", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"heads_fullwidth_digits_out_of_range", 2, "--heads '９９' is not a whole number (it is typed in full-width characters, and as the half-width 99 it is outside the allowed range too); allowed: 1..64", {"--heads", "９９", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"heads_edge_space_out_of_range", 2, "--heads ' 99' is not a whole number (the space at its start is not part of a number, and as 99 it is outside the allowed range too); allowed: 1..64", {"--heads", " 99", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a typographic minus sign, as the figures' colour bars print it (U+2212, render/plot.c true_minus) and the docs
     * write it, or a word processor's en dash (U+2013), copied into a number option: it said only "is not a number"
     * where '－' (U+FF0D) is named. Python's float('6e\u22123') refuses it too; float('6e-3') is 0.006 */
    {"lr_typeset_minus_sign", 2, "--lr '6e−3' is not a number ('−' (U+2212) is the minus sign of typeset text: type the ASCII hyphen-minus: 6e-3); allowed: 1.1755e-38..10", {"--train", "reverse", "--lr", "6e−3", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"lr_en_dash", 2, "--lr '6e–3' is not a number ('–' (U+2013) is an en dash: type the ASCII hyphen-minus: 6e-3); allowed:", {"--train", "reverse", "--lr", "6e–3", "-o", "@/out"}, NULL, 0, NULL, 0},
    {"vmax_typeset_minus_sign", 2, "--vmax '−0.5' is not allowed ('−' (U+2212) is the minus sign of typeset text, not the ASCII hyphen-minus, and as -0.5 it is outside the allowed range too); allowed: auto, fixed, or a number in (0, 1]", {"--vmax", "−0.5", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"seed_typeset_minus_sign", 2, "--seed '−1' is not a whole number ('−' (U+2212) is the minus sign of typeset text, not the ASCII hyphen-minus, and as -1 it is outside the allowed range too); allowed: 0..", {"--seed", "−1", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_typeset_minus_sign", 2, "--head '−1' is not a whole number ('−' (U+2212) is the minus sign of typeset text, not the ASCII hyphen-minus, and as -1 it is outside the allowed range too; heads are numbered from 0, with no negative indexing: the last head is --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "−1", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_en_dash_with_model", 2, "--head '–1' is not a whole number ('–' (U+2013) is an en dash, not the ASCII hyphen-minus, and as -1 it is outside the allowed range too; heads are numbered from 0, with no negative indexing); allowed: 0..H-1", {"--model", "@/nomodel", "--head", "–1", "hi"}, NULL, 0, NULL, 0},
    {"layer_typeset_minus_sign", 2, "--layer '−1' is not a layer number ('−' (U+2212) is the minus sign of typeset text, not the ASCII hyphen-minus, and as -1 it is outside the allowed range too; layers are numbered from 0, with no negative indexing: leave --layer out for the last layer); allowed: 0..L-1", {"--layer", "−1", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"scale_typeset_minus_and_full_stop", 2, "--scale '−1。5' is not a number ('−' (U+2212) is the minus sign of typeset text, not the ASCII hyphen-minus, and '。' (U+3002) is the ideographic full stop that a Chinese input method types for '.', not a decimal point, and as -1.5 it is outside the allowed range too); allowed: 0.5..4", {"--scale", "−1。5", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"weight_decay_typeset_minus_in_range", 2, "--weight-decay '1e−2' is not a number ('−' (U+2212) is the minus sign of typeset text: type the ASCII hyphen-minus: 1e-2); allowed:", {"--train", "reverse", "--weight-decay", "1e−2", "-o", "@/out"}, NULL, 0, NULL, 0},
    /* and an --explain index: "−1" said only "is neither a token of the sentence nor an index 0..3", where "-1" is
     * told it is outside 0..3; "−0" is int("-0") = 0, a cell of it (a token "−1" of the sentence stays a token) */
    {"explain_typeset_minus_sign", 2, "--explain query '−1' is neither a token of the sentence nor an index 0..3 ('−' (U+2212) is the minus sign of typeset text, not the ASCII hyphen-minus, and as -1 it is outside 0..3 too: T = 4 tokens)", {"--explain", "−1,0", S4}, NULL, 0, NULL, 0},
    {"explain_en_dash_key", 2, "--explain key '–2' is neither a token of the sentence nor an index 0..3 ('–' (U+2013) is an en dash, not the ASCII hyphen-minus, and as -2 it is outside 0..3 too: T = 4 tokens)", {"--explain", "0, –2", S4}, NULL, 0, NULL, 0},
    {"explain_typeset_minus_zero", 2, "--explain query '−0' is neither a token of the sentence nor an index 0..3 ('−' (U+2212) is the minus sign of typeset text: type the ASCII hyphen-minus: -0)", {"--explain", "−0,1", S4}, NULL, 0, NULL, 0},
    {"lr_fullwidth_digits_out_of_range", 2, "--lr '２０' is not a number (it is typed in full-width characters, and as the half-width 20 it is outside the allowed range too); allowed:", {"--train", "reverse", "--lr", "２０"}, NULL, 0, NULL, 0},
    {"vmax_fullwidth_digit_out_of_range", 2, "--vmax '２' is not allowed (it is typed in full-width characters, and as the half-width 2 it is outside the allowed range too); allowed:", {"--vmax", "２", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"scale_decimal_comma_out_of_range", 2, "--scale '99,5' is not a number (',' is not a decimal point, and as 99.5 it is outside the allowed range too); allowed: 0.5..4", {"--scale", "99,5", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* with --train, --layer has no effect (its warning asks "did you mean --layers 5?"): a hint naming the trained
     * model's last layer ("so the last layer is --layer 1") led to "did you mean --layers 1?" where 5 was meant (a
     * review of the change); it says what the value is, as without --train */
    {"layer_fullwidth_digit_with_train", 2, "--layer '５' is not a layer number (it is typed in full-width characters: type the half-width 5, 半角); allowed: 0..L-1", {"--train", "reverse", "--layers", "2", "--layer", "５"}, NULL, 0, NULL, 0},
    {"layer_fullwidth_digit_before_train", 2, "--layer '５' is not a layer number (it is typed in full-width characters: type the half-width 5, 半角); allowed: 0..L-1", {"--layer", "５", "--train", "reverse"}, NULL, 0, NULL, 0},
    {"layer_ordinal_with_train", 2, "--layer '第五' is not a layer number (第五 is the 5th, and --layer counts from 0: type --layer 4); allowed: 0..L-1", {"--train", "reverse", "--layers", "2", "--layer", "第五"}, NULL, 0, NULL, 0},
    {"layer_point_zero_with_train", 2, "--layer 5.0: write a whole number without a decimal point, e.g. 5; allowed: 0..L-1", {"--train", "reverse", "--layers", "2", "--layer", "5.0"}, NULL, 0, NULL, 0},
    {"layer_fullwidth_digit_within_the_trained_layers", 2, "--layer '２' is not a layer number (it is typed in full-width characters: type the half-width 2, 半角); allowed: 0..L-1", {"--train", "reverse", "--layers", "3", "--layer", "２"}, NULL, 0, NULL, 0},
    {"layer_fullwidth_digit_without_train", 2, "--layer '５' is not a layer number (it is typed in full-width characters: type the half-width 5, 半角); allowed: 0..L-1", {"--layer", "５", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_ordinal_within_the_heads", 2, "--head '第四' is not a whole number (第四 is the 4th, and --head counts from 0: type --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "第四", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_name_last_head", 2, "--head 'H3' is not a whole number (the H before the number is not part of it, as in the training log's L0 H3: type --head 3); allowed: 0..H-1", {"--heads", "4", "--head", "H3", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_name_with_model_not_known", 2, "--head 'H4' is not a whole number (the H before the number is not part of it, as in the training log's L0 H3: type --head 4); allowed: 0..H-1", {"--model", "no-such-model", "--head", "H4", "3 1 >"}, NULL, 0, NULL, 0},
    {"heads_ordinal_split_by_shell", 2, "--heads '第' is not a whole number (the shell split '第 八' at its space, and the next word, 八, went into the sentence; 第 八 is the 8th: --heads takes the number itself, type --heads 8); allowed: 1..64", {"--heads", "第", "八", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_name_next_word_not_a_number", 2, "--head '头' is not a whole number; allowed: 0..H-1", {"--head", "头", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"layer_log_name", 2, "--layer 'L1' is not a layer number (the L before the number is not part of it, as in the training log's L0 H3: type --layer 1); allowed: 0..L-1", {"--layer", "L1", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"head_layer_name_no_guess", 2, "--head 'L1' is not a whole number; allowed: 0..H-1", {"--head", "L1", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"layer_ordinal_zero_no_guess", 2, "--layer '第零层' is not a layer number; allowed: 0..L-1", {"--layer", "第零层", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"heads_measure_word_alone_no_guess", 2, "--heads '个' is not a whole number; allowed: 1..64", {"--heads", "个", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* an --explain index with a measure word after it, as --heads 8个 (爱,5个 had no hint): 我爱深度学习 is 6
     * tokens, so 3 is an index and 十 (10) is not */
    {"explain_measure_word", 2, "--explain key '3个' is neither a token of the sentence nor an index 0..5 (the 个 after the number is not part of it: type 3)", {"--explain", "爱,3个", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_chinese_measure_word_out_of_range", 2, "--explain query '十个' is neither a token of the sentence nor an index 0..5 (the 个 after the number is not part of it, and it is written in Chinese numerals: as the digits 10 it is outside 0..5 too: T = 6 tokens)", {"--explain", "十个,爱", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a character typed in its other form (Unihan: 習 U+7FD2 is the traditional variant of 习 U+4E60, 愛 U+611B
     * of 爱 U+7231): 我爱深度学习's 习 is token 5, 我愛學習's 愛 token 1 */
    {"explain_traditional_for_simplified", 2, "--explain key '習' is neither a token of the sentence nor an index 0..5 (it is written in traditional characters, the sentence in simplified: '习' is token 5)", {"--explain", "爱,習", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a word of two tokens in the other form: 學習 is 学习 (Unihan kSimplifiedVariant), tokens 4 and 5 of 我爱深度学习
     * (one token a character); 學习 mixes both forms, and 学习 on 我愛學習 is 學習 there, tokens 2 and 3 */
    {"explain_traditional_word_spans_tokens", 2, "--explain key '學習' is neither a token of the sentence nor an index 0..5 (it is written in traditional characters, the sentence in simplified: '学习' spans tokens 4..5: [学] [习]; name one of them)", {"--explain", "爱,學習", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_mixed_forms_word_spans_tokens", 2, "--explain key '學习' is neither a token of the sentence nor an index 0..5 (it mixes traditional and simplified characters, the sentence is in simplified: '学习' spans tokens 4..5: [学] [习]; name one of them)", {"--explain", "爱,學习", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_simplified_word_on_traditional", 2, "--explain key '学习' is neither a token of the sentence nor an index 0..3 (it is written in simplified characters, the sentence in traditional: '學習' spans tokens 2..3: [學] [習]; name one of them)", {"--explain", "愛,学习", "我愛學習"}, NULL, 0, NULL, 0},
    {"explain_simplified_for_traditional", 2, "--explain query '爱' is neither a token of the sentence nor an index 0..3 (it is written in simplified characters, the sentence in traditional: '愛' is token 1)", {"--explain", "爱,習", "我愛學習"}, NULL, 0, NULL, 0},
    /* an ordinal for a token, as docs/reading-heads.zh.md's 第一个词元 (token 0): 第一个 is index 0, 第十个 index
     * 9, past 我爱深度学习's 0..5 */
    {"explain_ordinal", 2, "--explain query '第一个' is neither a token of the sentence nor an index 0..5 (第一个 is the 1st, and token indices count from 0: type 0)", {"--explain", "第一个,第二个", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_ordinal_out_of_range", 2, "--explain key '第十个' is neither a token of the sentence nor an index 0..5 (第十个 is the 10th, and token indices count from 0: as 9 it is outside 0..5 too)", {"--explain", "爱,第十个", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* the e.g. of a malformed --explain names the user's own tokens, which can be pasted: 我爱深度学习 is one token
     * per Han character, 我 爱 深 度 学 习, so query 1 and key 3 are 爱 and 度; "3 1" has two, 1 and 0, numbers that
     * would be read as indices; one token gives 0,0; "I love I love" repeats its words, so indices alone; with the
     * text from stdin no sentence is known yet, so the English example stays ("1,3 or love,learning" was given on
     * every sentence: a Chinese-speaking learner's pass) */
    {"explain_example_from_the_sentence", 2, "--explain '爱' must be QUERY,KEY (token indices or token text), e.g. 1,3 or 爱,度\n", {"--explain", "爱", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_example_english", 2, "--explain 'love' must be QUERY,KEY (token indices or token text), e.g. 1,3 or love,learning\n", {"--explain", "love", "I love deep learning"}, NULL, 0, NULL, 0},
    {"explain_example_number_tokens", 2, "--explain '3' must be QUERY,KEY (token indices or token text), e.g. 1,0\n", {"--explain", "3", "3 1"}, NULL, 0, NULL, 0},
    {"explain_example_one_token", 2, "--explain '我' must be QUERY,KEY (token indices or token text), e.g. 0,0\n", {"--explain", "我", "我"}, NULL, 0, NULL, 0},
    {"explain_example_repeated_tokens", 2, "--explain 'love' must be QUERY,KEY (token indices or token text), e.g. 1,3\n", {"--explain", "love", "I love I love"}, NULL, 0, NULL, 0},
    {"explain_example_three_parts", 2, "--explain '1,2,3' has 3 parts; it takes one pair QUERY,KEY (token indices or token text), e.g. 1,3 or 爱,度: run it once for each pair\n", {"--explain", "1,2,3", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_example_empty_part", 2, "--explain '1,,2' has an empty part (a comma too many?); it takes one pair QUERY,KEY (token indices or token text), e.g. 1,0 or 爱,我\n", {"--explain", "1,,2", "我爱你"}, NULL, 0, NULL, 0},
    /* the arrow that --explain's own trace prints between them ('query 1 "爱" → key 5 "习"', U+2192 RIGHTWARDS ARROW)
     * or its ASCII "->", typed for the comma: named as '、' and '：' are (they said only "must be QUERY,KEY") */
    {"explain_arrow_for_comma", 2, "--explain '爱→习' must be QUERY,KEY (token indices or token text), e.g. 1,3 or 爱,度; the arrow '→' does not separate them: type ',' or '，'", {"--explain", "爱→习", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_ascii_arrow_for_comma", 2, "--explain '1->5' must be QUERY,KEY (token indices or token text), e.g. 1,3 or 爱,度; the arrow '->' does not separate them: type ',' or '，'", {"--explain", "1->5", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_three_parts", 2, "--explain '爱,习,深' has 3 parts; it takes one pair QUERY,KEY", {"--explain", "爱,习,深", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_three_indices", 2, "--explain '1,5,2' has 3 parts; it takes one pair QUERY,KEY", {"--explain", "1,5,2", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* a comma too many is an empty part, not three parts */
    {"explain_empty_part", 2, "--explain '1,2,' has an empty part (a comma too many?); it takes one pair QUERY,KEY", {"--explain", "1,2,", "a b c"}, NULL, 0, NULL, 0},
    {"explain_empty_middle_part", 2, "--explain '1, ,2' has an empty part (a comma too many?)", {"--explain", "1, ,2", "a b c"}, NULL, 0, NULL, 0},
    /* a long name is cut at 64 bytes between characters: it showed ...ｇ\xEF' (half of a ｇ) */
    {"figures_long_name_cut_between_characters", 2, "ｇｇ' is not a figure", {"--figures", "ｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇｇ", "a b"}, NULL, 0, NULL, 0},
    {"option_pdf", 2, "unknown option '--pdf'; attnviz writes figures as PNG and SVG (--format png, svg or both)", {"--pdf", S4}, NULL, 0, NULL, 0},
    {"figures_one_letter_no_guess", 2, "--figures 'e': 'e' is not a figure; expected", {"--figures", "e", S4}, NULL, 0, NULL, 0},
    /* the '|' of --help's "--kernel K  auto | reference | blas | flash" and a '/' typed between names or indices: said
     * only "is not a figure" and "must be QUERY,KEY ... e.g. 1,3 or 爱,度"; a part label's "(1/3)" is none */
    {"figures_vertical_bar", 2, "--figures 'heads|grid': 'heads|grid' is not a figure (the vertical bar '|' does not separate names: type ',' or '，'); expected", {"--figures", "heads|grid", S4}, NULL, 0, NULL, 0},
    {"figures_slash", 2, "'heads/grid' is not a figure (the slash '/' does not separate names: type ',' or '，')", {"--figures", "heads/grid", S4}, NULL, 0, NULL, 0},
    {"explain_slash_for_comma", 2, "--explain '1/5' must be QUERY,KEY (token indices or token text), e.g. 1,3 or 爱,度; the slash '/' does not separate them: type ',' or '，'\n", {"--explain", "1/5", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_vertical_bar_for_comma", 2, "--explain '爱|习' must be QUERY,KEY (token indices or token text), e.g. 1,3 or 爱,度; the vertical bar '|' does not separate them: type ',' or '，'\n", {"--explain", "爱|习", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_part_label_alone", 2, "--explain '爱(1/3)' must be QUERY,KEY (token indices or token text), e.g. 1,3 or 爱,度\n", {"--explain", "爱(1/3)", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"figures_enumeration_comma", 2, "is not a figure (the enumeration comma '、' does not separate names: type ',' or '，')", {"--figures", "heads、grid", S4}, NULL, 0, NULL, 0},
    /* the space bar typed for the comma: "爱　习" (U+3000, full-width mode) or "爱 习" got only "must be QUERY,KEY",
     * where '、' or '；' got the hint */
    {"explain_ideographic_space", 2, "--explain '爱　习' must be QUERY,KEY (token indices or token text), e.g. 1,3 or 爱,度; the ideographic space '　' (U+3000) does not separate them: type ',' or '，'\n", {"--explain", "爱　习", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_space", 2, "--explain '爱 习' must be QUERY,KEY (token indices or token text), e.g. 1,3 or 爱,度; the space ' ' does not separate them: type ',' or '，'\n", {"--explain", "爱 习", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_space_at_end_no_hint", 2, "--explain '1 ' must be QUERY,KEY (token indices or token text), e.g. 1,3 or 爱,度\n", {"--explain", "1 ", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"explain_three_words_no_space_hint", 2, "--explain '1 2 3' must be QUERY,KEY (token indices or token text), e.g. 1,3 or 爱,度\n", {"--explain", "1 2 3", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* the last argument may be the sentence itself (the pair forgotten): no advice to type a comma in it */
    {"explain_sentence_as_value_no_space_hint", 2, "--explain '我爱　学习' must be QUERY,KEY (token indices or token text), e.g. 1,3 or love,learning\n", {"--explain", "我爱　学习"}, NULL, 0, NULL, 0},
    {"explain_full_width_semicolon", 2, "the full-width semicolon '；' does not separate them: type ',' or '，'", {"--explain", "爱；习", "我爱深度学习"}, NULL, 0, NULL, 0},
    /* '。' (U+3002), which a Chinese input method types for '.' with its Chinese punctuation on: "--scale 1。5" said
     * only "is not a number", where "１．５" got the full-width hint; in --explain it said only "must be
     * QUERY,KEY"; and typed quotes around a token said only "is neither a token" (a Chinese-speaking learner's pass) */
    {"scale_ideographic_full_stop", 2, "--scale '1。5' is not a number ('。' (U+3002) is the ideographic full stop that a Chinese input method types for '.', not a decimal point: type 1.5); allowed: 0.5..4", {"--scale", "1。5", "我爱你"}, NULL, 0, NULL, 0},
    {"vmax_ideographic_full_stop", 2, "--vmax '0。5' is not allowed ('。' (U+3002) is the ideographic full stop that a Chinese input method types for '.', not a decimal point: type 0.5); allowed: auto", {"--vmax", "0。5", "我爱你"}, NULL, 0, NULL, 0},
    {"lr_ideographic_full_stop_full_width", 2, "--lr '１。５ｅ－３' is not a number ('。' (U+3002) is the ideographic full stop that a Chinese input method types for '.', not a decimal point, and the rest is typed in full-width characters: type 1.5e-3, 半角)", {"--train", "reverse", "--lr", "１。５ｅ－３"}, NULL, 0, NULL, 0},
    /* a '。' after a whole number (the sentence's full stop) and a decimal comma got no hint (a learner's pass) */
    {"heads_trailing_ideographic_full_stop", 2, "--heads '4。' is not a whole number (the '。' (U+3002) at its end is an ideographic full stop, typed after the value: type 4); allowed: 1..64", {"--heads", "4。", "我爱你"}, NULL, 0, NULL, 0},
    {"scale_full_width_comma", 2, "--scale '1，5' is not a number ('，' is a full-width comma (U+FF0C), not a decimal point: type 1.5); allowed: 0.5..4", {"--scale", "1，5", "我爱你"}, NULL, 0, NULL, 0},
    {"scale_decimal_comma", 2, "--scale '1,5' is not a number (',' is not a decimal point: type 1.5); allowed: 0.5..4", {"--scale", "1,5", "我爱你"}, NULL, 0, NULL, 0},
    /* '、' or '，' typed after a whole number, '。' after a name picked from a list (a learner's pass) */
    {"heads_trailing_ideographic_comma", 2, "--heads '4、' is not a whole number (the '、' (U+3001) at its end is an ideographic comma, typed after the value: type 4); allowed: 1..64", {"--heads", "4、", "我爱你"}, NULL, 0, NULL, 0},
    {"heads_trailing_full_width_comma", 2, "--heads '4，' is not a whole number (the '，' (U+FF0C) at its end is a full-width comma, typed after the value: type 4); allowed: 1..64", {"--heads", "4，", "我爱你"}, NULL, 0, NULL, 0},
    {"cmap_trailing_ideographic_full_stop", 2, "--cmap 'viridis。' is not a colour map (the '。' (U+3002) at its end is an ideographic full stop, typed after the value: type viridis); expected", {"--cmap", "viridis。", "我爱你"}, NULL, 0, NULL, 0},
    {"figures_trailing_ideographic_full_stop", 2, "--figures 'heads。': 'heads。' is not a figure (the '。' (U+3002) at its end is an ideographic full stop, typed after the value: type heads); expected", {"--figures", "heads。", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_ideographic_full_stop", 2, "--explain '爱。我' must be QUERY,KEY (token indices or token text), e.g. 1,0 or 爱,我; the ideographic full stop '。' does not separate them: type ',' or '，'", {"--explain", "爱。我", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_chinese_quotes", 2, "--explain query '“爱”' is neither a token of the sentence nor an index 0..2; its '“' and '”' are typed quotes, read as part of the text (the shell's quotes are only the ASCII \" and ', which a Chinese input method types as “ ” and ‘ ’ with its Chinese punctuation on): did you mean '爱' (token 1)?", {"--explain", "“爱”,我", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_one_chinese_quote", 2, "--explain key '我’' is neither a token of the sentence nor an index 0..2; its '’' is a typed quote", {"--explain", "爱,我’", "我爱你"}, NULL, 0, NULL, 0},
    /* a sentence's '。' typed after a token, corner brackets and title marks around one (a learner's pass) */
    {"explain_token_ideographic_full_stop", 2, "--explain query '爱。' is neither a token of the sentence nor an index 0..2; its '。' (U+3002) at the end is an ideographic full stop, typed as part of the value: did you mean '爱' (token 1)?", {"--explain", "爱。,我", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_key_ideographic_full_stop", 2, "--explain key '我。' is neither a token of the sentence nor an index 0..2; its '。' (U+3002) at the end is an ideographic full stop, typed as part of the value: did you mean '我' (token 0)?", {"--explain", "爱,我。", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_corner_brackets", 2, "--explain query '「爱」' is neither a token of the sentence nor an index 0..2; its '「' and '」' are typed quotes, read as part of the text (the shell's quotes are only the ASCII \" and '): did you mean '爱' (token 1)?", {"--explain", "「爱」,我", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_title_marks", 2, "--explain query '《爱》' is neither a token of the sentence nor an index 0..2; its '《' and '》' are typed title marks, read as part of the text (the shell's quotes are only the ASCII \" and '): did you mean '爱' (token 1)?", {"--explain", "《爱》,我", "我爱你"}, NULL, 0, NULL, 0},
    /* a '。' typed after an index, lenticular brackets around a token (a learner's pass) */
    {"explain_index_ideographic_full_stop", 2, "--explain query '1。' is neither a token of the sentence nor an index 0..2; its '。' (U+3002) at the end is an ideographic full stop, typed as part of the value: type 1 (token '爱')", {"--explain", "1。,2", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_wide_index_ideographic_full_stop", 2, "--explain query '１。' is neither a token of the sentence nor an index 0..2; its '。' (U+3002) at the end is an ideographic full stop, typed as part of the value: type 1 (token '爱')", {"--explain", "１。,２", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_lenticular_brackets", 2, "--explain query '【爱】' is neither a token of the sentence nor an index 0..2; its '【' and '】' are typed brackets, read as part of the text (the shell's quotes are only the ASCII \" and '): did you mean '爱' (token 1)?", {"--explain", "【爱】,我", "我爱你"}, NULL, 0, NULL, 0},
    /* the kind's tail: '、' after an index or a token, '。' after an index out of range, full-width brackets and
     * parentheses around a token, '：' or ':' between the parts, '；' or '！' or an ASCII ',' '.' after a whole
     * number (a learner's pass: each said only "is neither a token", "must be QUERY,KEY" or "is not a whole number") */
    {"explain_index_ideographic_comma", 2, "--explain query '1、' is neither a token of the sentence nor an index 0..2; its '、' (U+3001) at the end is an ideographic comma, typed as part of the value: type 1 (token '爱')", {"--explain", "1、,2", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_token_ideographic_comma", 2, "--explain query '爱、' is neither a token of the sentence nor an index 0..2; its '、' (U+3001) at the end is an ideographic comma, typed as part of the value: did you mean '爱' (token 1)?", {"--explain", "爱、,我", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_index_out_of_range_full_stop", 2, "--explain query '5。' is neither a token of the sentence nor an index 0..2; its '。' (U+3002) at the end is an ideographic full stop, typed as part of the value, and without it 5 is still outside 0..2", {"--explain", "5。,2", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_full_width_square_brackets", 2, "--explain query '［爱］' is neither a token of the sentence nor an index 0..2; its '［' and '］' are typed brackets, read as part of the text (the shell's quotes are only the ASCII \" and '): did you mean '爱' (token 1)?", {"--explain", "［爱］,我", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_full_width_parentheses", 2, "--explain key '（我）' is neither a token of the sentence nor an index 0..2; its '（' and '）' are typed brackets", {"--explain", "爱,（我）", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_full_width_colon", 2, "--explain '爱：我' must be QUERY,KEY (token indices or token text), e.g. 1,0 or 爱,我; the full-width colon '：' does not separate them: type ',' or '，'", {"--explain", "爱：我", "我爱你"}, NULL, 0, NULL, 0},
    {"explain_colon", 2, "; the colon ':' does not separate them: type ',' or '，'", {"--explain", "1:2", "我爱你"}, NULL, 0, NULL, 0},
    {"heads_trailing_full_width_semicolon", 2, "--heads '4；' is not a whole number (the '；' (U+FF1B) at its end is a full-width semicolon, typed after the value: type 4); allowed: 1..64", {"--heads", "4；", "我爱你"}, NULL, 0, NULL, 0},
    {"heads_trailing_full_width_exclamation", 2, "(the '！' (U+FF01) at its end is a full-width exclamation mark, typed after the value: type 4)", {"--heads", "4！", "我爱你"}, NULL, 0, NULL, 0},
    {"heads_trailing_ascii_comma", 2, "--heads '4,' is not a whole number (the ',' at its end is typed after the value: type 4); allowed: 1..64", {"--heads", "4,", "I love you"}, NULL, 0, NULL, 0},
    /* the keys a Llama or Qwen2 config.json names the sizes by, as the range error after loading does (a Llama user's pass) */
    {"layer_not_a_number_names_both_keys", 2, "--layer 'x' is not a layer number; allowed: 0..L-1, L the --model's layers (its config.json's n_layer, or num_hidden_layers for Llama and Qwen2)", {"--layer", "x", "I love you"}, NULL, 0, NULL, 0},
    {"layer_trailing_ascii_full_stop", 2, "--layer '1.' is not a layer number (the '.' at its end is typed after the value: type 1)", {"--layer", "1.", "I love you"}, NULL, 0, NULL, 0},
    {"explain_full_width_letters", 2, "--explain query 'GPT' is neither a token of the sentence nor an index 0..2; full-width and half-width letters are different characters: 'ＧＰＴ' is token 0", {"--explain", "GPT,头", "ＧＰＴ有头"}, NULL, 0, NULL, 0},
    /* a start of a long name after one hyphen ("-out slides" was -o ut: ./ut written, exit 0) and a short
     * option with '=' ("-o=x" wrote ./=x; "-c=1" said "unknown option '-='") (a tester's pass) */
    {"one_hyphen_abbreviation", 2, "option '-out' has one hyphen: type --out, which is --outdir", {"-out", "slides", S4}, NULL, F_NO_AUTO_OUT, NULL, 0},
    {"short_option_with_equals", 2, "'-o=x': a short option takes no '=': type -o x (or --outdir=x)", {"-o=x", S4}, NULL, F_NO_AUTO_OUT, NULL, 0},
    {"short_flag_with_equals", 2, "'-c=1': -c (--causal) takes no value: type -c alone", {"-c=1", S4}, NULL, 0, NULL, 0},
    /* a value that is not UTF-8 (Latin-1 é, a lone 0xFF) was echoed raw to stderr (a tester's pass): every
     * message is valid UTF-8, each bad byte U+FFFD */
    /* matplotlib's "RdBu" (attnviz has the reversed RdBu_r only), a typo, and the start of a name: each named the
     * allowed values but not the one meant (a learner's pass) */
    {"choice_matplotlib_name_gets_the_near_one", 2, "--cmap 'RdBu' is not a colour map (did you mean RdBu_r?); expected", {"--cmap", "RdBu", S4}, NULL, 0, NULL, 0},
    {"choice_typo_gets_the_near_one", 2, "--cmap 'virdis' is not a colour map (did you mean viridis?); expected", {"--cmap", "virdis", S4}, NULL, 0, NULL, 0},
    {"choice_start_gets_the_whole_name", 2, "--positions 'sin' is not allowed (did you mean sinusoidal?); expected", {"--positions", "sin", S4}, NULL, 0, NULL, 0},
    {"invalid_utf8_in_a_choice", 2, "--cmap '\\xFF' is not a colour map", {"--cmap", "\xff", S4}, NULL, 0, NULL, 0},
    /* a 600-byte value filled av_err's 512 bytes before the reason ("--cmap 'aaaa…"): values are shown at most
     * 64 bytes long, so the message ends with what is allowed (a tester's pass) */
    {"long_choice_keeps_the_reason", 2, "…' is not a colour map; expected", {"--cmap", A600, S4}, NULL, 0, NULL, 0},
    {"long_number_keeps_the_reason", 2, "…' is not a whole number; allowed: 1..64", {"--heads", A600, S4}, NULL, 0, NULL, 0},
    {"long_real_keeps_the_reason", 2, "…' is not allowed; allowed: auto, fixed, or a number in (0, 1]", {"--vmax", A600, S4}, NULL, 0, NULL, 0},
    {"invalid_utf8_in_a_figure_name", 2, "--figures 'h\\xE9" "ads': 'h\\xE9" "ads' is not a figure (did you mean heads?)", {"--figures", "h\xe9" "ads", S4}, NULL, 0, NULL, 0},
    /* "--outdir=~/figs": the shell leaves ~ after '=', and attnviz made a folder named "~" and said "wrote
     * ~/figs/head0.png" (a figure-maker's pass); any path option, when no folder "~" is here */
    {"outdir_tilde_after_equals", 2, "--outdir '~/figs': the shell did not expand '~' (it does so only at the start of a word, not after '=' or inside quotes), and there is no folder named '~' here; type --outdir ~/figs (a space, no quotes) or the full path", {"--outdir=~/figs", S4}, NULL, F_NO_AUTO_OUT, NULL, 0},
    /* "-o fig.png", as savefig takes a file: attnviz made a folder fig.png holding head0.png, exit 0 */
    {"outdir_named_like_a_file", 2, "--outdir fig.png names a file, but -o is the folder the figures go in (they would be fig.png/head0.png, ...); give a folder, e.g. -o figs, and --prefix NAME", {"-o", "fig.png", S4}, NULL, F_NO_AUTO_OUT, NULL, 0},
    /* "-o -" and "--dump -", standard output to curl and tar: attnviz made a folder named '-' holding head0.png
     * (or the .npy files), exit 0 */
    {"outdir_dash_is_no_stdout", 2, "--outdir '-' is not standard output: the figures go into a folder, and '-' would make one named '-' (only -f - and --attn-mask - read standard input); give a folder, e.g. -o figs, or ./- if a folder named '-' is meant", {"-o", "-", S4}, NULL, F_NO_AUTO_OUT, NULL, 0},
    {"dump_dash_is_no_stdout", 2, "--dump '-' is not standard output: the .npy files go into a folder", {"--dump", "-", S4}, NULL, F_NO_AUTO_DUMP, NULL, 0},
    /* "--dump d.npz", as np.savez takes a file: attnviz made a folder d.npz of .npy files, exit 0, and
     * np.load('d.npz') failed on it (a learner's pass); any letter case, and the other tensor files' endings */
    {"dump_named_like_an_npz", 2, "--dump d.npz names a file, but --dump is the folder the .npy files go in, one a tensor (they would be d.npz/tokens.txt, d.npz/scores.npy, ...), and np.load cannot open a folder; give a folder, e.g. --dump dump, and load each file, np.load('dump/scores.npy') (or end the folder's name in '/' if it is meant)\n", {"--dump", "d.npz", S4}, NULL, F_NO_AUTO_DUMP, NULL, 0},
    {"dump_named_like_an_npy_upper_case", 2, "--dump runs/Attn.NPY names a file, but --dump is the folder", {"--dump", "runs/Attn.NPY", S4}, NULL, F_NO_AUTO_DUMP, NULL, 0},
    {"dump_named_like_a_torch_file_with_model", 2, "--dump w.pt names a file", {"--model", "runs/reverse", "--dump", "w.pt", S4}, NULL, F_NO_AUTO_DUMP, NULL, 0},
    /* the other files a checkpoint is saved as (pytorch_model.bin, Lightning's .ckpt, ONNX, llama.cpp's GGUF) made a
     * folder too, exit 0 (a tester's pass) */
    {"dump_named_like_a_bin_file", 2, "--dump attn.bin names a file, but --dump is the folder", {"--dump", "attn.bin", S4}, NULL, F_NO_AUTO_DUMP, NULL, 0},
    {"dump_named_like_a_checkpoint", 2, "--dump w.ckpt names a file, but --dump is the folder", {"--dump", "w.ckpt", S4}, NULL, F_NO_AUTO_DUMP, NULL, 0},
    {"dump_named_like_a_gguf_upper_case", 2, "--dump m.GGUF names a file, but --dump is the folder", {"--dump", "m.GGUF", S4}, NULL, F_NO_AUTO_DUMP, NULL, 0},
    /* A name with a quote or a space: "--dump 'it's.npz' names a file ... np.load('it's.npz')" and "-o 'a
     * b.png'" were quoted by hand, '%s', which no shell reads back as the name; now each is one shell word, the
     * word sh -c "printf %s 'it'\''s.npz'" prints as it's.npz, and np.load is named without the name */
    {"dump_named_like_an_npz_with_a_quote", 2, "--dump 'it'\\''s.npz' names a file, but --dump is the folder the .npy files go in, one a tensor (they would be 'it'\\''s.npz/tokens.txt', 'it'\\''s.npz/scores.npy', ...), and np.load cannot open a folder;", {"--dump", "it's.npz", S4}, NULL, F_NO_AUTO_DUMP, NULL, 0},
    {"outdir_named_like_a_file_with_a_space", 2, "--outdir 'a b.png' names a file, but -o is the folder the figures go in (they would be 'a b.png/head0.png', ...)", {"-o", "a b.png", S4}, NULL, F_NO_AUTO_OUT, NULL, 0},
    {"dump_tilde_quoted", 2, "--dump '~/d': the shell did not expand '~'", {"--dump", "~/d", S4}, NULL, 0, NULL, 0},
    {"model_tilde_alone", 2, "--model '~': the shell did not expand '~'", {"--model=~", S4}, NULL, 0, NULL, 0},
    /* "--html page.html": the file name became the sentence's first word and the page went to DIR/attnviz.html,
     * exit 0 (a learner's pass) */
    {"html_given_a_file_name", 2, "--html takes no value, so 'page.html' would be read as the sentence's first word; the page is written as attnviz.html in the output folder", {"--html", "page.html", S4}, NULL, 0, NULL, 0},
    {"html_given_a_file_name_htm", 2, "--html takes no value, so 'out/Page.HTM' would be read", {"--html", "out/Page.HTM", S4}, NULL, 0, NULL, 0},
    /* a file name as the sentence's first word, with an option between (a tester's pass: only the word right
     * after --html was looked at) */
    {"html_file_name_after_another_option", 2, "--html takes no value, so 'page.htm' would be read", {"--html", "-q", "page.htm", S4}, NULL, 0, NULL, 0},
    /* a figure-maker's pass: "--svg" said only "unknown option", "--figures head" only "is not a figure" */
    {"option_format_value_as_option", 2, "unknown option '--svg'; did you mean --format svg? (try --help)", {"--svg", S4}, NULL, 0, NULL, 0},
    {"figures_typo_head", 2, "--figures 'head,grid': 'head' is not a figure (did you mean heads?); expected", {"--figures", "head,grid", S4}, NULL, 0, NULL, 0},
    {"figures_typo_other_case", 2, "'Grids' is not a figure (did you mean grid?)", {"--figures", "Grids", S4}, NULL, 0, NULL, 0},
    {"figures_far_from_all", 2, "--figures 'xyz': 'xyz' is not a figure; expected", {"--figures", "xyz", S4}, NULL, 0, NULL, 0},
    /* a learner's pass: "--figures hed,grid" named no figure where "--cmap virdis" and "--train revers" named
     * theirs; every named value now takes one rule (a name it starts, else within a third of its length of edits
     * of a name or of a name cut near its length). By hand: "hed" is 1 edit from "hea" (heads cut to 3), "sco"
     * starts scores, "infrn" 1 from "infern" (inferno cut to 6), "atuo" a swap from auto, "fixd" 1 from fixed;
     * "jpg" is 2 from png and "au" starts auto with only 2 bytes, so neither guesses */
    {"figures_cut_short_typo", 2, "--figures 'hed,grid': 'hed' is not a figure (did you mean heads?); expected", {"--figures", "hed,grid", S4}, NULL, 0, NULL, 0},
    {"figures_start_of_a_name", 2, "--figures 'sco': 'sco' is not a figure (did you mean scores?); expected", {"--figures", "sco", S4}, NULL, 0, NULL, 0},
    {"cmap_cut_short_typo", 2, "--cmap 'infrn' is not a colour map (did you mean inferno?); expected", {"--cmap", "infrn", S4}, NULL, 0, NULL, 0},
    {"vmax_word_swap", 2, "--vmax 'atuo' is not allowed (did you mean auto?); allowed: auto, fixed, or a number in (0, 1]", {"--vmax", "atuo", S4}, NULL, 0, NULL, 0},
    {"vmax_word_typo", 2, "--vmax 'fixd' is not allowed (did you mean fixed?); allowed:", {"--vmax", "fixd", S4}, NULL, 0, NULL, 0},
    {"format_far_no_guess", 2, "--format 'jpg' is not allowed; expected png, svg or both", {"--format", "jpg", S4}, NULL, 0, NULL, 0},
    {"vmax_two_bytes_no_guess", 2, "--vmax 'au' is not allowed; allowed:", {"--vmax", "au", S4}, NULL, 0, NULL, 0},
    /* a longer word that starts with a name got no guess: "sorting" is 3 edits from sort, more than a third of its
     * 7 bytes, "grayscale" 5 from gray, "automatic" 5 from auto, "meanmap" 3 from mean (a learner's pass). By
     * hand: each starts with the name (4 bytes or more), the longest such name; one rule for every named option */
    {"train_longer_word_gets_the_name", 2, "--train 'sorting' is not a task (did you mean sort?); expected", {"--train", "sorting", "-o", "x"}, NULL, F_NO_AUTO_OUT, NULL, 0},
    {"cmap_longer_word_gets_the_name", 2, "--cmap 'grayscale' is not a colour map (did you mean gray?); expected", {"--cmap", "grayscale", S4}, NULL, 0, NULL, 0},
    {"vmax_longer_word_gets_the_name", 2, "--vmax 'automatic' is not allowed (did you mean auto?); allowed:", {"--vmax", "automatic", S4}, NULL, 0, NULL, 0},
    {"figures_longer_word_gets_the_name", 2, "--figures 'grid,meanmap': 'meanmap' is not a figure (did you mean mean?); expected", {"--figures", "grid,meanmap", S4}, NULL, 0, NULL, 0},
    /* one hyphen before a long option's name: getopt read "-outdir slides" as -o utdir, wrote ./utdir and
     * joined "slides" to the sentence (exit 0); "-compare scale" as -c -o mpare; "-html" said "unknown option
     * '-t'" (a teacher's pass). Every long name, with or without =VALUE, and nothing else is written. */
    {"one_hyphen_outdir", 2, "option '-outdir' has one hyphen: type --outdir (", {"-outdir", "slides", S4}, NULL,
     F_NO_AUTO_OUT, NULL, 0},
    {"one_hyphen_compare", 2, "option '-compare' has one hyphen: type --compare (", {"-compare", "scale", S4}, NULL,
     F_NO_AUTO_OUT, NULL, 0},
    {"one_hyphen_html", 2, "option '-html' has one hyphen: type --html (", {"-html", S4}, NULL, 0, NULL, 0},
    /* "-svg" was -s vg: "--seed 'vg' is not a whole number" (a figure-maker's pass); the format is --format's */
    {"one_hyphen_svg", 2, "option '-svg' has one hyphen, so its letters are read as short options: for SVG figures "
     "type --format svg", {"-svg", S4}, NULL, 0, NULL, 0},
    {"one_hyphen_upper_svg", 2, "option '-SVG' has one hyphen, so its letters are read as short options: for SVG "
     "figures type --format svg", {"-SVG", S4}, NULL, 0, NULL, 0},
    {"one_hyphen_pdf", 2, "option '-pdf' has one hyphen, so its letters are read as short options; attnviz writes "
     "figures as PNG and SVG (--format png, svg or both): convert one with another tool, e.g. rsvg-convert -f pdf "
     "FIG.svg > FIG.pdf for a PDF", {"-pdf", S4}, NULL, 0, NULL, 0},
    /* a value for an option that takes none: "--causal=1" said "unknown option '-c'", "--html=yes" "unknown
     * option: a letter outside ASCII" (a teacher's pass); the option is named whole, abbreviated or not */
    {"flag_given_a_value", 2, "option --html takes no value, but '--html=yes' gives one: type --html alone",
     {"--html=yes", S4}, NULL, 0, NULL, 0},
    {"flag_with_short_name_given_a_value", 2, "option --causal takes no value, but '--causal=1' gives one",
     {"--causal=1", S4}, NULL, 0, NULL, 0},
    {"flag_abbreviated_given_a_value", 2, "option --causal takes no value, but '--caus=1' gives one",
     {"--caus=1", S4}, NULL, 0, NULL, 0},
    {"flag_given_an_empty_value", 2, "option --no-plot takes no value, but '--no-plot=' gives one",
     {"--no-plot=", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"one_hyphen_with_value", 2, "option '-heads=8' has one hyphen: type --heads=8 (", {"-heads=8", S4}, NULL, 0,
     NULL, 0},
    /* a full-width space (U+3000, a Chinese input method's space bar in full-width mode) or a no-break space
     * (U+00A0, copied from a web page) where an ASCII space belongs: the shell made one word of the option, its
     * value and the sentence, and the messages ("unknown option '--heads　2'", "--heads '8　我爱深度学习' is not a
     * whole number", "no sentence given ... the text goes after it", "no such folder") never named the space,
     * which looks like any other (a Chinese-speaking student's pass) */
    {"wide_space_after_long_option", 2, "unknown option '--heads　2': the space after '--heads' is U+3000 "
     "IDEOGRAPHIC SPACE (全角空格)", {"--heads　2", S4}, NULL, 0, NULL, 0},
    {"wide_space_after_flag", 2, "so '--causal　我爱深度学习' reached attnviz as one word, which is no option; type "
     "a half-width space (半角) there", {"--causal　我爱深度学习"}, NULL, 0, NULL, 0},
    {"wide_space_after_short_option", 2, "unknown option '-H　2': the space after '-H' is U+3000",
     {"-H　2", "我爱深度学习"}, NULL, 0, NULL, 0},
    {"wide_space_in_a_number", 2, "--heads '8　我爱深度学习': the space after '8' is U+3000 IDEOGRAPHIC SPACE (全角空格), "
     "which a Chinese or Japanese input method types in full-width mode, and the shell splits words only at the "
     "ASCII space, so --heads got '8　我爱深度学习' as its value, one word", {"--heads", "8　我爱深度学习"}, NULL, 0,
     NULL, 0},
    {"wide_space_in_a_choice", 2, "--positions 'rope　我爱深度学习': the space after 'rope' is U+3000",
     {"--positions", "rope　我爱深度学习"}, NULL, 0, NULL, 0},
    {"no_break_space_in_a_number", 2, "--heads '2\xC2\xA0I': the space after '2' is U+00A0 NO-BREAK SPACE, which text "
     "copied from a web page or PDF carries", {"--heads", "2\xC2\xA0I", "love"}, NULL, 0, NULL, 0},
    {"wide_space_in_the_explain_value", 2, "no sentence given (the last argument, '爱,习　我爱深度学习', is the value "
     "of --explain: the space after '爱,习' is U+3000", {W8, "--explain", "爱,习　我爱深度学习"}, NULL, 0, NULL, 0},
    {"wide_space_in_a_model_folder", 2, "--model 'runs　3 1 4 1 5 >': the space after 'runs' is U+3000 IDEOGRAPHIC "
     "SPACE (全角空格)", {"--model", "runs　3 1 4 1 5 >"}, NULL, 0, NULL, 0},
    /* after the quoted sentence: `"我爱你"　--causal` is one word of the text, and it ran without the mask, with
     * "- - causal" as tokens, exit 0 and nothing said (a learner's pass) */
    {"wide_space_before_an_option_in_the_text", 2, "the text '我爱你　--causal' holds the option --causal: the space "
     "after '我爱你' is U+3000 IDEOGRAPHIC SPACE (全角空格)", {"我爱你　--causal"}, NULL, 0, NULL, 0},
    {"wide_space_before_a_second_option_in_the_text", 2, "the text '我爱你 --x　--heads　2' holds the option --heads: "
     "the space after '我爱你 --x' is U+3000", {"我爱你 --x　--heads　2"}, NULL, 0, NULL, 0},
    /* a sentence about the option, pasted with a no-break space, is refused too; the message says how to keep it */
    {"no_break_space_before_an_option_in_the_text", 2, "would be read as words of it, not as an option; type a "
     "half-width space (半角) there; to keep it as text, put -- before the text (try --help)",
     {"Run it with\xc2\xa0--causal to mask"}, NULL, 0, NULL, 0},
    {"explain_no_comma", 2, "--explain 'love' must be QUERY,KEY", {W8, "--explain", "love", S4}, NULL, 0, NULL, 0},
    {"empty_outdir_name", 2, "--outdir '' is empty", {"-o", "", S4}, NULL, F_NO_AUTO_OUT, NULL, 0},
    /* --weights */
    /* a file of the folder, given for the folder: name the folder (a learner's pass) */
    {"weights_file_for_folder", 2, "@/in/w/W_Q.npy is a file; --weights takes the folder that holds X.npy, W_Q.npy, "
     "W_K.npy, W_V.npy and W_O.npy: --weights @/in/w", {W8, "--weights", "@/in/w/W_Q.npy", S4}, prep_w_file_for_folder, 0, NULL, 0},
    {"weights_truncated", 2, "@/in/w/W_Q.npy: truncated: header says shape (8, 8) = 256 bytes of data, file has 100", {W8, "--weights", "@/in/w", S4}, prep_w_truncated, 0, NULL, 0},
    {"weights_header_length_past_eof", 2, "@/in/w/W_Q.npy: truncated header: header length 1000 points past the end of the file", {W8, "--weights", "@/in/w", S4}, prep_w_hlen_past_eof, 0, NULL, 0},
    {"weights_lying_shape", 2, "@/in/w/W_K.npy: truncated: header says shape (8, 8) = 256 bytes of data, file has 128", {W8, "--weights", "@/in/w", S4}, prep_w_lying_shape, 0, NULL, 0},
    {"weights_claims_2_48_floats", 2, "@/in/w/W_Q.npy: truncated: header says shape (16777216, 16777216)", {W8, "--weights", "@/in/w", S4}, prep_w_huge_claim, 0, NULL, 0},
    {"weights_trailing_bytes", 2, "@/in/w/W_Q.npy: 4 trailing bytes", {W8, "--weights", "@/in/w", S4}, prep_w_trailing, 0, NULL, 0},
    /* an integer or float16 array says how to save it as float32 (a maintainer's list of known faults) */
    {"weights_dtype_i8", 2, "@/in/w/W_Q.npy: dtype '<i8' is not supported (this reader takes float32 '<f4', float64 '<f8', bool '|b1', uint8 '|u1'); it is int64: save it as float32, np.save(path, a.astype(np.float32))", {W8, "--weights", "@/in/w", S4}, prep_w_i8, 0, NULL, 0},
    {"weights_dtype_f2", 2, "@/in/w/W_Q.npy: dtype '<f2' is not supported (this reader takes float32 '<f4', float64 '<f8', bool '|b1', uint8 '|u1'); it is float16: save it as float32, np.save(path, a.astype(np.float32))", {W8, "--weights", "@/in/w", S4}, prep_w_f2, 0, NULL, 0},
    {"weights_dtype_big_endian", 2, "@/in/w/W_V.npy: dtype '>f4' is not supported", {W8, "--weights", "@/in/w", S4}, prep_w_big_endian, 0, NULL, 0},
    {"weights_dtype_bool", 2, "W_Q.npy has dtype '|b1'; expected float32 ('<f4')", {W8, "--weights", "@/in/w", S4}, prep_w_bool, 0, NULL, 0},
    /* the (3, 3) W_O was made for d_model 3 (its width): the message says so */
    {"weights_wrong_shape", 2, "W_O.npy has shape (3, 3); expected (8, 8) (W_Q, W_K, W_V, W_O are (d_model, d_model), row-vector layout Q = X·W_Q); this file is for d_model 3: add --d-model 3", {W8, "--weights", "@/in/w", S4}, prep_w_shape, 0, NULL, 0},
    /* the (5, 8) X was made for T = 5, not another d_model; a (4, 16) X for d_model 16 */
    {"weights_X_wrong_T", 2, "X.npy has shape (5, 8); expected (4, 8)", {W8, "--weights", "@/in/w", S4}, prep_x_shape, 0, NULL, 0},
    {"weights_X_of_a_dump", 2, "@/in/w/tokens.txt says X.npy is the --dump of the 5 tokens [the] [cat] [\xE7\x8C\xAB] [sat] [down]: run that sentence, or move X.npy out of ", {W8, "--weights", "@/in/w", S4}, prep_x_shape_dumped, 0, NULL, 0},
    {"weights_X_not_of_that_dump", 2, "X.npy has shape (5, 8); expected (4, 8) (X is (T, d_model); T counts every token, <pad> included)\n", {W8, "--weights", "@/in/w", S4}, prep_x_shape_other_tokens, 0, NULL, 0},
    {"weights_X_other_d_model_hint", 2, "X.npy has shape (4, 16); expected (4, 8) (X is (T, d_model); T counts every token, <pad> included); this file is for d_model 16: add --d-model 16", {W8, "--weights", "@/in/w", S4}, prep_x_width, 0, NULL, 0},
    {"weights_nan", 2, "@/in/w/W_Q.npy contains NaN at index 5 (row 0, column 5); every value must be finite", {W8, "--weights", "@/in/w", S4}, prep_w_nan, 0, NULL, 0},
    {"weights_inf", 2, "@/in/w/W_K.npy contains -Inf at index 9 (row 1, column 1)", {W8, "--weights", "@/in/w", S4}, prep_w_inf, 0, NULL, 0},
    /* the message names the folder, as --model's does: it named none, "attnviz: error: the scores Q·Kᵀ/√d_k
     * overflowed ..."; by hand, X ~ N(0, 1) and W_Q = W_K = 1e30 everywhere make each q·k about (8 · 1e30)² · x, past
     * float32's 3.4e38 */
    {"weights_overflow_float32", 2, "attnviz: error: --weights @/in/w: the scores Q·Kᵀ/√d_k overflowed float32", {W8, "--weights", "@/in/w", S4}, prep_w_huge_values, 0, NULL, 0},
    {"weights_not_npy", 2, "@/in/w/W_Q.npy: not a .npy file (bad magic", {W8, "--weights", "@/in/w", S4}, prep_w_not_npy, 0, NULL, 0},
    {"weights_folder_empty", 2, "holds none of X.npy, W_Q.npy, W_K.npy, W_V.npy, W_O.npy", {W8, "--weights", "@/in/w", S4}, prep_w_empty, 0, NULL, 0},
    /* a --train or Hugging Face model folder: the way on is --model, not "only .npy files are read" */
    {"weights_model_folder", 2, "holds none of X.npy, W_Q.npy, W_K.npy, W_V.npy, W_O.npy; it is a model folder (it has config.json): run it with --model ", {W8, "--weights", "@/in/w", S4}, prep_w_model_folder, 0, NULL, 0},
    {"weights_is_a_file", 2, "is not a folder", {W8, "--weights", "@/in/afile", S4}, NULL, 0, NULL, 0},
    {"weights_missing", 2, "No such file or directory; the example folder that comes with attnviz is ", {W8, "--weights", "@/in/nowhere", S4}, NULL, 0, NULL, 0},
    /* --attn-mask */
    {"mask_wrong_shape", 2, "shape (3, 3); it must be bool, or uint8 with any value but 0 masked, with shape (T, T) = (4, 4)", {W8, "--attn-mask", "@/in/m.npy", S4}, prep_mask_shape, 0, NULL, 0},
    {"mask_wrong_dtype", 2, "--attn-mask @/in/m.npy has dtype <f4 and shape (4, 4); it must be bool", {W8, "--attn-mask", "@/in/m.npy", S4}, prep_mask_float, 0, NULL, 0},
    /* the advice to save a float16 array as float32 is not for a mask */
    {"mask_float16_one_story", 2, "@/in/m.npy: dtype '<f2' is not supported; the mask must be a bool (4, 4) array, True = masked (dtype bool, ", {W8, "--attn-mask", "@/in/m.npy", S4}, prep_mask_f2, 0, NULL, 0},
    {"mask_int64_one_story", 2, "@/in/m.npy: dtype '<i8' is not supported; the mask must be a bool (4, 4) array, True = masked (dtype bool, or uint8 with any value but 0 masked: np.save(path, mask.astype(bool)); ", {W8, "--attn-mask", "@/in/m.npy", S4}, prep_mask_int64, 0, NULL, 0},
    /* an additive 0/-inf mask: how to save it as a bool one (a learner's pass: the advice was astype(bool)) */
    {"mask_additive_inf", 2, "@/in/m.npy contains -Inf at index 1 (row 0, column 1); every value must be finite; the mask "
     "must be a bool (4, 4) array, True = masked: an additive mask of 0 and -inf (PyTorch's float attn_mask) is saved "
     "as np.save(path, m == -np.inf)", {W8, "--attn-mask", "@/in/m.npy", S4}, prep_mask_additive, 0, NULL, 0},
    /* a float mask of the right shape: how to make it bool, not only "it must be bool" (a reviewer's pass) */
    {"mask_tril_float_keep", 2, "has dtype <f4 and shape (4, 4); it must be bool, or uint8 with any value but 0 masked, with shape (T, T) = (4, 4); a float "
     "mask of 0 and 1 is saved as np.save(path, mask == 0) where 1 means keep (np.tril(np.ones((T, T))), "
     "masked_fill(mask == 0, ...)), as np.save(path, mask == 1) where 1 means masked", {W8, "--attn-mask", "@/in/m.npy", S4},
     prep_mask_tril_float, 0, NULL, 0},
    {"mask_additive_1e9", 2, "has dtype <f4 and shape (4, 4); it must be bool, or uint8 with any value but 0 masked, with shape (T, T) = (4, 4); an additive "
     "mask of 0 (keep) and negative numbers (masked_fill(mask, -1e9), PyTorch's float attn_mask) is saved as "
     "np.save(path, m < 0)", {W8, "--attn-mask", "@/in/m.npy", S4}, prep_mask_additive_1e9, 0, NULL, 0},
    {"mask_1d", 2, "shape (16,); it must be bool, or uint8 with any value but 0 masked, with shape (T, T) = (4, 4)", {W8, "--attn-mask", "@/in/m.npy", S4}, prep_mask_1d, 0, NULL, 0},
    {"mask_bool_value_2", 2, "bool value 2 at index 6 (row 1, column 2) is not 0 or 1", {W8, "--attn-mask", "@/in/m.npy", S4}, prep_mask_value, 0, NULL, 0},
    {"mask_truncated", 2, "truncated: header says shape (4, 4) = 16 bytes of data, file has 10", {W8, "--attn-mask", "@/in/m.npy", S4}, prep_mask_truncated, 0, NULL, 0},
    {"mask_missing", 2, "No such file or directory", {W8, "--attn-mask", "@/in/none.npy", S4}, NULL, 0, NULL, 0},
    /* the standard input holds one of them: the mask's read found it empty, "-: not a .npy file (bad magic ...)" */
    {"mask_and_text_both_stdin", 2, "-f - and --attn-mask - both read the standard input, which can hold only one of "
     "them; give the mask as a file (--attn-mask m.npy)", {W8, "--attn-mask", "-", "-f", "-"}, NULL, 0, "I love deep learning", 20},
    {"mask_and_lone_dash_both_stdin", 2, "-f - and --attn-mask - both read the standard input", {W8, "--attn-mask", "-",
     "-"}, NULL, 0, "I love deep learning", 20},
    /* past 16385 tokens no bool (T, T) mask fits npy's file limit: "-f 20000-words.txt --attn-mask m.npy --no-plot"
     * read the right 400000128-byte file and said it "is larger than the 268501008-byte limit; the mask must be a
     * bool (20000, 20000) array"; now the most tokens are said first, and no file is read (a 4 x 4 one here) */
    {"mask_past_the_npy_limit", 2, "--attn-mask takes at most 16385 tokens: a bool (20000, 20000) mask for these 20000 "
     "tokens (the sentence's 4 and 19996 <pad> of --pad-to 20000) is a 400000128-byte .npy file, larger than the "
     "268501008-byte limit of an .npy file; give at most 16385 tokens, <pad> included: --pad-to 16385 at most, or drop "
     "--attn-mask (--causal and --pad-to need no file)", {W8, "--no-plot", "--pad-to", "20000", "--attn-mask",
     "@/in/m.npy", S4}, prep_mask_value, F_NO_AUTO_DUMP, NULL, 0},
    /* output folders; the dump sentinel stays at stake: main makes every folder before writing any file.
     * (An existing but unwritable figure folder is only found when the first figure is written, after
     * the dump, so that row leaves --dump out.) */
    {"outdir_parent_is_a_file", 1, "error: -o: cannot create folder", {W8, "-o", "@/in/afile/out", S4}, NULL, F_NO_AUTO_OUT | F_TRACE_OK, NULL, 0},
    /* names too long are bad input (exit 2) however long: a 300-byte folder name was exit 1 ("File name
     * too long") and a 4080-byte path lost the reason off the end of the message (a new user's report) */
    {"outdir_name_past_name_max", 2, "...: a name in it is too long (at most", {W8, "-o", "@/" C300, S4}, NULL, F_NO_AUTO_OUT | F_TRACE_OK, NULL, 0},
    {"outdir_path_past_path_max", 2, "...: the name is ", {W8, "-o", "@/" D4200, S4}, NULL, F_NO_AUTO_OUT | F_TRACE_OK, NULL, 0},
    {"outdir_is_a_file", 1, "exists and is not a folder", {W8, "-o", "@/in/afile", S4}, NULL, F_NO_AUTO_OUT | F_TRACE_OK, NULL, 0},
    {"outdir_unwritable", 1, "Permission denied", {W8, S4}, prep_out_readonly, F_NO_AUTO_DUMP | F_TRACE_OK | F_NEEDS_NONROOT, NULL, 0},
    {"dump_parent_is_a_file", 1, "error: --dump: cannot create folder", {W8, "--dump", "@/in/afile/d", S4}, NULL, F_NO_AUTO_DUMP | F_TRACE_OK, NULL, 0},
    {"dump_is_a_file", 1, "exists and is not a folder", {W8, "--dump", "@/in/afile", S4}, NULL, F_NO_AUTO_DUMP | F_TRACE_OK, NULL, 0},
    {"dump_is_a_device_dev_full", 1, "exists and is not a folder", {W8, "--dump", "/dev/full", S4}, NULL, F_NO_AUTO_DUMP | F_TRACE_OK, NULL, 0},
};
#define N_CASES (sizeof kCases / sizeof kCases[0])

/* Build argv for row c: "-o <root>/out --dump <root>/dump" (unless the row
 * says otherwise), then the row's arguments with "@/" expanded. */
static int build_args(const fixture *fx, const bad_case *c, const char **args, char (*store)[4200]) {
    int n = 0, s = 0;
    if (!(c->flags & F_NO_AUTO_OUT)) {
        snprintf(store[s], 4200, "%s/out", fx->root);
        args[n++] = "-o";
        args[n++] = store[s++];
    }
    if (!(c->flags & F_NO_AUTO_DUMP)) {
        snprintf(store[s], 4200, "%s/dump", fx->root);
        args[n++] = "--dump";
        args[n++] = store[s++];
    }
    for (int i = 0; i < 16 && c->args[i]; i++) {
        if (strncmp(c->args[i], "@/", 2) == 0) {
            snprintf(store[s], 4200, "%s/%s", fx->root, c->args[i] + 2);
            args[n++] = store[s++];
        } else {
            args[n++] = c->args[i];
        }
    }
    args[n] = NULL;
    return n;
}

/* c->msg into buf (n bytes) with each "@/x", x up to the next space, ':' or ',' (no relative part holds them), replaced by <root>/x as attnviz quotes a
 * path it names (tu_sh_word): '/tmp/a b/attnviz_testX/in/s.txt' when TMPDIR holds a space, where a row that
 * wrote the path's end (".../in/s.txt holds no text") failed on the closing quote. */
static const char *expand_msg(const fixture *fx, const char *msg, char *buf, size_t n) {
    size_t k = 0;
    buf[0] = 0;
    while (*msg && k + 1 < n) {
        if (strncmp(msg, "@/", 2) != 0) {
            buf[k++] = *msg++;
            buf[k] = 0;
            continue;
        }
        size_t len = strcspn(msg + 2, " :,");
        char path[4400];
        snprintf(path, sizeof path, "%s/%.*s", fx->root, (int)len, msg + 2);
        k += (size_t)snprintf(buf + k, n - k, "%s", tu_sh_word(path));
        if (k >= n) k = n - 1;
        msg += 2 + len;
    }
    return buf;
}

static char *lower(const char *s) {
    char *d = strdup(s);
    for (char *p = d; *p; p++)
        if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    return d;
}

/* Run one row in a fresh fixture and check every promise; print what went
 * wrong and return the number of broken promises (0 = the row passes). */
static int run_case(const bad_case *c) {
    void *state = NULL;
    setup(&state);
    fixture *fx = state;
    if (c->prep) c->prep(fx);
    char *before = snapshot(fx->root);
    const char *args[40];
    char store[8][4200];
    build_args(fx, c, args, store);
    run_opts ro = {fx->root, -1, 0, NULL, 0};
    tu_result r;
    run_ex(&r, &ro, c->in, c->in_len, args);

    int bad = 0;
    const char *e = strstr(r.err, "attnviz: error: ");
    char msg[9000];
    expand_msg(fx, c->msg, msg, sizeof msg);
    if (r.code != c->code || !e || !strstr(e, msg)) {
        print_message("row %s: exit %d (want %d)\nstderr: %s\nwant in stderr: attnviz: error: ...%s\n", c->name,
                      r.code, c->code, r.err, msg);
        bad++;
    } else if (strchr(e, '\n') != e + strlen(e) - 1) {
        print_message("row %s: the error is not one line ending in a newline: %s\n", c->name, e);
        bad++;
    }
    if (c->code == 2 && !(c->flags & F_TRACE_OK) && r.out[0]) {
        print_message("row %s: a usage error printed to stdout:\n%s\n", c->name, r.out);
        bad++;
    }
    char *lo = lower(r.out);
    if (strstr(lo, "nan")) {
        print_message("row %s: NaN on stdout:\n%s\n", c->name, r.out);
        bad++;
    }
    free(lo);
    bad += tree_changed(before, fx->root, c->name);
    free(before);
    tu_free(&r);
    teardown(&state);
    return bad;
}

static void test_bad_input_table(void **state) {
    (void)state;
    int root = geteuid() == 0, failed = 0, run = 0;
    for (size_t i = 0; i < N_CASES; i++) {
        if ((kCases[i].flags & F_NEEDS_NONROOT) && root) {
            print_message("[ SKIPROW  ] %s (running as root: permissions are not enforced; "
                          "outdir_parent_is_a_file covers the unwritable folder)\n", kCases[i].name);
            continue;
        }
        run++;
        if (run_case(&kCases[i])) {
            print_message("[ BADROW   ] %s\n", kCases[i].name);
            failed++;
        }
    }
    print_message("[ TABLE    ] %d of %d bad-input rows hold every promise\n", run - failed, run);
    if (failed) fail_msg("%d bad-input row(s) failed; see [ BADROW ] above", failed);
}

/* ------------------------------------------------------------------------- */
/* beyond the table */

/* A sentence given as arguments longer than 1 MiB in total. */
static void test_argv_longer_than_1mib(void **state) {
    fixture *fx = *state;
    static char word[9][120001];
    const char *args[16] = {"-o", at(fx, "out"), "--dump", at(fx, "dump")};
    int n = 4;
    for (int i = 0; i < 9; i++) { /* 9 x 120000 bytes: each below the kernel's 128 KiB per argument */
        memset(word[i], 'a' + i, 120000);
        word[i][120000] = 0;
        args[n++] = word[i];
    }
    args[n] = NULL;
    char *before = snapshot(fx->root);
    run_opts ro = {fx->root, -1, 0, NULL, 0};
    tu_result r;
    run_ex(&r, &ro, NULL, 0, args);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "attnviz: error: the sentence is longer than the 1048576-byte limit; give a part of "
                                  "it: a run takes at most 65536 tokens"));
    assert_string_equal(r.out, "");
    assert_tree_unchanged(before, fx->root, "argv_longer_than_1mib");
    free(before);
    tu_free(&r);
}

/* The token limit is 65,536: 65,537 tokens (on standard input: too long for
 * one argv string) are refused with the number found. 2,048 tokens without
 * figures run on the flash kernel (no (T, T)); 8,192 with weight figures hit
 * the (heads, T, T) memory limit, and the message names it and the way out.
 * (A full 65,536-token run takes minutes on the T² flash kernel: the
 * tokenizer test pins that boundary, make bench times 16,384.) */
static void test_token_limit_boundary(void **state) {
    fixture *fx = *state;
    static char words[65537 * 2 + 1];
    for (int i = 0; i < 65537; i++) { words[2 * i] = 'a' + (char)(i % 26); words[2 * i + 1] = ' '; }
    run_opts ro = {fx->root, -1, 0, NULL, 0};
    tu_result r;
    const char *from_stdin[] = {"--d-model", "8", "--heads", "2", "--no-plot", "-q", "-f", "-", NULL};
    run_ex(&r, &ro, words, sizeof words - 1, from_stdin);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "the sentence has 65537 tokens, more than the maximum 65536"));
    tu_free(&r);
    words[2048 * 2 - 1] = 0;
    const char *ok[] = {"--d-model", "8", "--heads", "2", "--no-plot", "-q", words, NULL};
    run_ex(&r, &ro, NULL, 0, ok);
    if (r.code != 0) print_message("stderr: %s\n", r.err);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    words[2048 * 2 - 1] = ' ';
    words[8192 * 2 - 1] = 0; /* 8192 tokens with figures: the weights would need 4 GiB */
    const char *figs[] = {"--d-model", "8", "--heads", "8", "-q", words, NULL};
    run_ex(&r, &ro, NULL, 0, figs);
    assert_int_equal(r.code, 2);
    /* 2·8·8192²·4 bytes = 2^32 = 4.0 GiB; the way out is named: ⌊√(2^31 / (8·8))⌋ = 5792 tokens fit
     * (5792² = 33,547,264 ≤ 2^25 = 33,554,432 < 5793² = 33,558,849) */
    assert_non_null(strstr(r.err, "8192 tokens with 8 heads need 4.0 GiB for the (heads, T, T) scores and weights, "
                                  "more than the 2 GiB allowed; add --no-plot to run the flash kernel, which keeps "
                                  "none, or give at most 5792 tokens at 8 heads\n"));
    tu_free(&r);
    /* everything that keeps flash from running is named; 1 head: ⌊√(2^31 / 8)⌋ = 16384 */
    const char *kept[] = {"--d-model", "8", "--kernel", "blas", "--no-plot", "--show", "--html", "-q", words, NULL};
    words[8192 * 2 - 1] = ' ';
    words[16385 * 2 - 1] = 0;
    run_ex(&r, &ro, NULL, 0, kept);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "16385 tokens with 1 head need 2.0002 GiB for the (heads, T, T) scores and weights, "
                                  "more than the 2 GiB allowed; drop --kernel blas, --show and --html to run the "
                                  "flash kernel, which keeps none, or give at most 16384 tokens at 1 head\n"));
    tu_free(&r);
    /* --pad-to takes T past the sentence: 4 tokens + pad-to 1000, flash */
    const char *pad[] = {"--d-model", "8", "--no-plot", "-q", "--pad-to", "1000", S4, NULL};
    run_ex(&r, &ro, NULL, 0, pad);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    /* with figures, --pad-to past the limit is named as what to lower: "-f text.txt --pad-to 20000" on 1998
     * tokens said "20000 tokens with 1 head need 3.0 GiB ... give at most 16384 tokens", tokens the sentence
     * never had */
    const char *padfig[] = {"--d-model", "8", "--heads", "8", "-q", "--pad-to", "6000", S4, NULL};
    run_ex(&r, &ro, NULL, 0, padfig);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "6000 tokens (the sentence's 4 and 5996 <pad> of --pad-to 6000) with 8 heads need "
                                  "2.1 GiB for the (heads, T, T) scores and weights, more than the 2 GiB allowed; add "
                                  "--no-plot to run the flash kernel, which keeps none, or give at most 5792 tokens "
                                  "at 8 heads, <pad> included: --pad-to 5792 at most\n"));
    tu_free(&r);
}

/* --compare holds the run's (H, T, T) scores and weights and one set per
 * setting at once: `--compare positions -f` 12,000 words passed the one-run
 * check (1.1 GiB) and peaked at 5.7 GiB. The check counts them, and the most
 * tokens it names are under --compare: ⌊√(2^31 / (8·3))⌋ = 9459 for scale,
 * ⌊√(2^31 / (8·4))⌋ = 8192 for positions; order, in (H, T, T) arrays of
 * 4·T² bytes, ⌊√(2^31 / (4·9))⌋ = 7723, ⌊√(2^31 / (4·17))⌋ = 5619 with
 * --html, ⌊√(2^31 / (4·8))⌋ = 8192 with an odd d_k. The child runs under a 400 MB
 * address-space limit, so a binary that does not refuse fails fast; skipped under AddressSanitizer, which cannot
 * start under such a limit. */
static void test_compare_counts_its_runs(void **state) {
#if defined(__SANITIZE_ADDRESS__)
    (void)state;
    skip();
#else
    fixture *fx = *state;
    run_opts ro = {.cwd = fx->root, .stdout_fd = -1, .as_limit_kib = 400000};
    tu_result r;
    const char *scale[] = {"--d-model", "8", "--no-plot", "-q", "--compare", "scale", "--pad-to", "10000", S4, NULL};
    run_ex(&r, &ro, NULL, 0, scale);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "10000 tokens (the sentence's 4 and 9996 <pad> of --pad-to 10000) with 1 head need "
                                  "2.2 GiB for the (heads, T, T) scores and weights of the 3 runs --compare scale holds "
                                  "at once (this one and one per setting), more than the 2 GiB allowed; drop --compare "
                                  "to run the flash kernel, which keeps none, or give at most 9459 tokens at 1 head "
                                  "under --compare scale (16384 without it), <pad> included: --pad-to 9459 at most\n"));
    tu_free(&r);
    const char *positions[] = {"--d-model", "8", "--no-plot", "-q", "--compare", "positions", "--pad-to", "8193", S4, NULL};
    run_ex(&r, &ro, NULL, 0, positions);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "with 1 head need 2.0005 GiB for the (heads, T, T) scores and weights of the 4 runs "
                                  "--compare positions holds at once"));
    assert_non_null(strstr(r.err, "give at most 8192 tokens at 1 head under --compare positions (16384 without it)"));
    tu_free(&r);
    /* order runs, per positions kind, the sentence as given and swapped and keeps their (H, T, T) difference:
     * `--compare order --pad-to 12000` passed the one-run check and ran out of memory (exit 1) after 12 s. Without
     * --html one kind's two runs are held at a time beside the three differences, 4.5 runs' worth; --html keeps
     * every kind's runs, 8.5; with an odd d_k (RoPE left out) 4 */
    const char *order[] = {"--d-model", "8", "--no-plot", "-q", "--compare", "order", "--pad-to", "7724", S4, NULL};
    run_ex(&r, &ro, NULL, 0, order);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "7724 tokens (the sentence's 4 and 7720 <pad> of --pad-to 7724) with 1 head need "
                                  "2.0003 GiB for the (heads, T, T) scores and weights of the 3 runs and 3 differences "
                                  "--compare order holds at once, more than the 2 GiB allowed; drop --compare to run the "
                                  "flash kernel, which keeps none, or give at most 7723 tokens at 1 head under --compare "
                                  "order (16384 without it), <pad> included: --pad-to 7723 at most\n"));
    tu_free(&r);
    const char *order_html[] = {"--d-model", "8", "--no-plot", "-q", "--compare", "order", "--html", "--html-limit",
                                "1024", "--pad-to", "5620", S4, NULL};
    run_ex(&r, &ro, NULL, 0, order_html);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "of the 7 runs and 3 differences --compare order keeps for --html, more than"));
    assert_non_null(strstr(r.err, "give at most 5619 tokens at 1 head under --compare order with --html (7723 "
                                  "without --html)"));
    tu_free(&r);
    const char *order_odd[] = {"--d-model", "9", "--no-plot", "-q", "--compare", "order", "--pad-to", "8193", S4, NULL};
    run_ex(&r, &ro, NULL, 0, order_odd);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "of the 3 runs and 2 differences --compare order holds at once"));
    assert_non_null(strstr(r.err, "give at most 8192 tokens at 1 head under --compare order (16384 without it)"));
    tu_free(&r);
#endif
}

/* Standard output on a full disk: the trace cannot be written, so the run
 * fails with exit 1 and says why (main checks fclose(stdout)). */
static void test_stdout_on_full_disk(void **state) {
    fixture *fx = *state;
    int full = open("/dev/full", O_WRONLY);
    if (full < 0) skip();
    char *before = snapshot(fx->root);
    run_opts ro = {fx->root, full, 0, NULL, 0};
    tu_result r;
    const char *args[] = {"--d-model", "8", "--heads", "2", "--no-plot", S4, NULL};
    run_ex(&r, &ro, NULL, 0, args);
    close(full);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "attnviz: error: cannot write the trace to standard output: No space left on device"));
    assert_tree_unchanged(before, fx->root, "stdout_on_full_disk");
    free(before);
    tu_free(&r);
}

/* A full disk named as one, whatever the output's length: `attnviz --no-plot --show --explain 0,1 "我爱你"
 * >/dev/full` (4120 bytes, the legend line crossing the 4096-byte buffer) said "cannot write the trace, the
 * --explain walk-through and the --show heat maps to standard output: Input/output error": glibc's failed
 * write dropped the rest of the buffer, so the last fflush succeeded and the ENOSPC was gone (a teacher's
 * pass writing the output into a file). Every sentence "w0 w1 ... w(n-1)" for n = 1..120 under --show
 * (a trace and table of 3 to 7 KB) must name ENOSPC; on the old binary n = 17 blamed EIO. */
static void test_stdout_on_full_disk_at_any_length(void **state) {
    fixture *fx = *state;
    char sentence[1024];
    for (int n = 1; n <= 120; n++) {
        size_t at = 0;
        for (int i = 0; i < n; i++) at += (size_t)snprintf(sentence + at, sizeof sentence - at, "%sw%d", i ? " " : "", i);
        int full = open("/dev/full", O_WRONLY);
        if (full < 0) skip();
        run_opts ro = {fx->root, full, 0, NULL, 0};
        tu_result r;
        const char *args[] = {"--d-model", "8", "--no-plot", "--show", "--color", "never", sentence, NULL};
        run_ex(&r, &ro, NULL, 0, args);
        close(full);
        if (r.code != 1 || !strstr(r.err, "to standard output: No space left on device\n"))
            fail_msg("%d words: exit %d: %s", n, r.code, r.err);
        tu_free(&r);
    }
}

/* -q --compare on a full disk: the table, the one thing asked for on standard output, was lost, the
 * figures were written (replacing an earlier run's) and the run said only "cannot write to standard
 * output: No space left on device", where attnviz(1) says the message names what it held, as it does for
 * the trace, --explain and --show (a documentation reader's pass). It names the table now, and stops
 * before the figures, as a trace that cannot be written does: the folder tree stays as it was. */
static void test_compare_table_on_full_disk(void **state) {
    fixture *fx = *state;
    char *before = snapshot(fx->root);
    const char *const what[] = {"scale", "order"};
    for (int k = 0; k < 2; k++) {
        int full = open("/dev/full", O_WRONLY);
        if (full < 0) skip();
        run_opts ro = {fx->root, full, 0, NULL, 0};
        tu_result r;
        const char *args[] = {"-q", "-o", "out", "--d-model", "8", "--heads", "2", "--compare", what[k], S4, NULL};
        run_ex(&r, &ro, NULL, 0, args);
        close(full);
        assert_int_equal(r.code, 1);
        assert_string_equal(r.err, "attnviz: error: cannot write the --compare table to standard output: No space "
                                   "left on device\n");
        assert_tree_unchanged(before, fx->root, "compare_table_on_full_disk"); /* no out/ and no figures */
        tu_free(&r);
    }
    free(before);
}

/* A closed standard output (`attnviz -q -o out ... >&-`): the run wrote
 * every figure, replacing the earlier run's in out/, and only then failed,
 * exit 1 "cannot write to standard output: Bad file descriptor" (and with
 * --compare its table was lost). Now it is refused before anything is
 * written, as --train refuses it: exit 1, the folder tree as it was. */
static void test_stdout_closed(void **state) {
    fixture *fx = *state;
    char *before = snapshot(fx->root);
    char err_path[4200];
    snprintf(err_path, sizeof err_path, "%s.err", fx->root);
    const char *const extra[] = {NULL, "--compare"};
    for (int k = 0; k < 2; k++) {
        pid_t pid = fork();
        if (pid == 0) {
            int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (e < 0 || dup2(e, 2) < 0 || chdir(fx->root) != 0) _exit(126);
            close(1);
            if (extra[k]) execl(tu_bin(), tu_bin(), "-q", "-o", "out", "--d-model", "8", "--heads", "2", extra[k],
                                "scale", S4, (char *)NULL);
            else execl(tu_bin(), tu_bin(), "-q", "-o", "out", "--d-model", "8", "--heads", "2", S4, (char *)NULL);
            _exit(127);
        }
        int st = 0;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
        char *err = tu_slurp_file(err_path, NULL);
        unlink(err_path);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 1) fail_msg("%s: status %d, stderr %s", extra[k] ? extra[k] : "-q", st,
                                                            err ? err : "");
        assert_tree_unchanged(before, fx->root, "stdout_closed"); /* out/ was the earlier run's */
        assert_non_null(err);
        assert_string_equal(err, "attnviz: error: cannot write to standard output: Bad file descriptor; nothing was "
                                 "written\n");
        free(err);
    }
    free(before);
}

/* --help and --version on a full disk: exit 1, and the message names
 * standard output, not "the trace" (there is none). */
static void test_help_and_version_on_full_disk(void **state) {
    fixture *fx = *state;
    const char *const opts[] = {"--help", "--version"};
    for (int k = 0; k < 2; k++) {
        int full = open("/dev/full", O_WRONLY);
        if (full < 0) skip();
        run_opts ro = {fx->root, full, 0, NULL, 0};
        tu_result r;
        const char *args[] = {opts[k], NULL};
        run_ex(&r, &ro, NULL, 0, args);
        close(full);
        assert_int_equal(r.code, 1);
        assert_non_null(strstr(r.err, "attnviz: error: cannot write to standard output: No space left on device"));
        assert_null(strstr(r.err, "trace"));
        tu_free(&r);
    }
}

/* A full disk while writing a figure: RLIMIT_FSIZE makes every write past
 * 4 KiB fail with EFBIG (SIGXFSZ ignored), which attnviz must catch like
 * ENOSPC: exit 1 naming the file, the earlier figure untouched, no temporary
 * left. (A real ENOSPC needs a small file system, which a test cannot mount.) */
static void test_figure_on_full_disk(void **state) {
    fixture *fx = *state;
    char *before = snapshot(fx->root);
    run_opts ro = {fx->root, -1, 4096, NULL, 0};
    tu_result r;
    const char *args[] = {"-o", at(fx, "out"), "--d-model", "8", "--heads", "2", "-q", S4, NULL};
    run_ex(&r, &ro, NULL, 0, args);
    if (r.code != 1) print_message("stderr: %s\n", r.err);
    assert_int_equal(r.code, 1);
    /* the first figure written: the grid is drawn and written before the heads (figures.c); as one shell word */
    char want[4400], path[4200];
    snprintf(path, sizeof path, "%s/heads.png", at(fx, "out"));
    snprintf(want, sizeof want, "attnviz: error: cannot write %s: ", tu_sh_word(path));
    assert_non_null(strstr(r.err, want));
    assert_tree_unchanged(before, fx->root, "figure_on_full_disk");
    free(before);
    tu_free(&r);
    /* and a dump on a full disk: the first tensor that does not fit fails */
    before = snapshot(fx->root);
    const char *dargs[] = {"--dump", at(fx, "fresh-dump"), "--no-plot", "-q", S4, NULL};
    run_ex(&r, &ro, NULL, 0, dargs);
    assert_int_equal(r.code, 1);
    snprintf(want, sizeof want, "attnviz: error: cannot write %s: ", tu_sh_word(at(fx, "fresh-dump/X.npy")));
    assert_non_null(strstr(r.err, want));
    char *after = snapshot(fx->root);
    assert_null(strstr(after, ".tmp"));
    free(after);
    free(before);
    tu_free(&r);
}

/* A full disk half-way through a --dump into a folder that holds an earlier
 * run's dump: each file was renamed into place as soon as it was written, so
 * the new tokens.txt, X.npy and PE.npy (a few hundred bytes) went in and
 * W_Q.npy (64·64 floats, over the 4 KiB limit) failed, leaving the folder
 * with tensors of two runs: X of "we love deep learning too" beside W_Q of
 * "I love deep learning". Now the dump's files are one set (io/fileio.h
 * av_afile_set): exit 1 naming W_Q.npy, and the earlier dump byte-for-byte. */
static void test_dump_on_full_disk_keeps_the_earlier_dump(void **state) {
    fixture *fx = *state;
    run_opts ro = {fx->root, -1, 0, NULL, 0}, full = {fx->root, -1, 4096, NULL, 0};
    tu_result r;
    const char *first[] = {"--dump", at(fx, "d"), "--d-model", "64", "--heads", "2", "--no-plot", "-q", S4, NULL};
    run_ex(&r, &ro, NULL, 0, first);
    if (r.code != 0) print_message("exit %d, stderr: %s\n", r.code, r.err);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    char *before = snapshot(fx->root);
    const char *second[] = {"--dump", at(fx, "d"), "--d-model", "64", "--heads", "2", "--no-plot", "-q",
                            "we love deep learning too", NULL};
    run_ex(&r, &full, NULL, 0, second);
    if (r.code != 1) print_message("exit %d, stderr: %s\n", r.code, r.err);
    assert_int_equal(r.code, 1);
    char want[4400];
    snprintf(want, sizeof want, "attnviz: error: cannot write %s: ", tu_sh_word(at(fx, "d/W_Q.npy")));
    assert_non_null(strstr(r.err, want));
    tu_free(&r);
    assert_tree_unchanged(before, fx->root, "dump_on_full_disk_keeps_the_earlier_dump");
    free(before);
}

/* A low address-space limit (ulimit -v 300000) leaves no room for the work
 * buffers OpenBLAS takes (128 MiB of address space per thread), and OpenBLAS
 * retries a failed allocation for ever: attnviz spun at full CPU and never
 * ended (here a 30 s CPU limit ends it, SIGXCPU). Now: exit 1 naming the
 * limit and --kernel reference, which runs under the same limit. The child
 * inherits both limits from this process, which sets them as soft limits
 * around the runs and puts them back. Skipped under AddressSanitizer, which
 * cannot start under such a limit. */
static void test_blas_under_memory_limit(void **state) {
#if defined(__SANITIZE_ADDRESS__)
    (void)state;
    skip();
#else
    fixture *fx = *state;
    char *before = snapshot(fx->root);
    run_opts ro = {fx->root, -1, 0, NULL, 0};
    struct rlimit old_as, old_cpu, as, cpu;
    assert_int_equal(getrlimit(RLIMIT_AS, &old_as), 0);
    assert_int_equal(getrlimit(RLIMIT_CPU, &old_cpu), 0);
    as = old_as, cpu = old_cpu;
    as.rlim_cur = (rlim_t)300000 * 1024;
    cpu.rlim_cur = 30;
    tu_result r, rr;
    const char *args[] = {"--kernel", "blas", "--no-plot", "-q", "a b c d e f g h i j", NULL};
    const char *ref[] = {"--kernel", "reference", "--no-plot", "-q", "a b c d e f g h i j", NULL};
    assert_int_equal(setrlimit(RLIMIT_AS, &as), 0);
    assert_int_equal(setrlimit(RLIMIT_CPU, &cpu), 0);
    run_ex(&r, &ro, NULL, 0, args);
    run_ex(&rr, &ro, NULL, 0, ref);
    setrlimit(RLIMIT_AS, &old_as);
    setrlimit(RLIMIT_CPU, &old_cpu);
    if (r.code != 1) print_message("exit %d, stderr: %s\n", r.code, r.err);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "attnviz: error: cannot use OpenBLAS"));
    assert_non_null(strstr(r.err, "do not fit under the process's memory limit (ulimit -v or -d)"));
    assert_non_null(strstr(r.err, "--kernel reference"));
    tu_free(&r);
    if (rr.code != 0) print_message("--kernel reference: exit %d, stderr: %s\n", rr.code, rr.err);
    assert_int_equal(rr.code, 0);
    tu_free(&rr);
    assert_tree_unchanged(before, fx->root, "blas_under_memory_limit");
    free(before);
#endif
}

/* The same error from a thread's own check, before its first sgemm (one buffer): `ulimit -v 400000; attnviz --train
 * reverse --steps 3 -q -o NEW` loads OpenBLAS, takes the model's memory, and then finds no room for the thread's
 * buffer; it said "its work buffers (about 128 MiB of address space for each of 1 thread)". Now "for a thread"; a
 * machine with more CPUs fails the check at load first, which names them ("for each of N threads", N >= 2). Either
 * way exit 1 and never "each of 1". Skipped under AddressSanitizer, as above.
 * The same command spun in OpenBLAS about once in 150 runs until the CPU limit killed it (SIGXCPU, exit 152: a CI
 * run; gdb: a worker in blas_memory_alloc, asking for a buffer after its check); it runs 400 times here, each
 * under a 10 s CPU limit (a run takes some 0.05 s). */
static void test_blas_under_memory_limit_thread_buffer(void **state) {
#if defined(__SANITIZE_ADDRESS__)
    (void)state;
    skip();
#else
    fixture *fx = *state;
    char *before = snapshot(fx->root);
    run_opts ro = {fx->root, -1, 0, NULL, 0};
    struct rlimit old_as, old_cpu, as, cpu;
    assert_int_equal(getrlimit(RLIMIT_AS, &old_as), 0);
    assert_int_equal(getrlimit(RLIMIT_CPU, &old_cpu), 0);
    as = old_as, cpu = old_cpu;
    as.rlim_cur = (rlim_t)400000 * 1024;
    cpu.rlim_cur = 10;
    const char *args[] = {"--train", "reverse", "--steps", "3", "-q", "-o", at(fx, "new"), NULL};
    for (int k = 0; k < 400; k++) {
        tu_result r;
        assert_int_equal(setrlimit(RLIMIT_AS, &as), 0);
        assert_int_equal(setrlimit(RLIMIT_CPU, &cpu), 0);
        run_ex(&r, &ro, NULL, 0, args);
        setrlimit(RLIMIT_AS, &old_as);
        setrlimit(RLIMIT_CPU, &old_cpu);
        const char *each = strstr(r.err, "MiB of address space for each of ");
        int n = each ? atoi(each + strlen("MiB of address space for each of ")) : 0;
        if (r.code != 1 || !strstr(r.err, "do not fit under the process's memory limit (ulimit -v or -d)") ||
            (each ? n < 2 || !strstr(each, " threads)") : !strstr(r.err, "(about 128 MiB of address space for a thread)")))
            fail_msg("run %d: exit %d, stderr: %s", k + 1, r.code, r.err);
        tu_free(&r);
    }
    assert_tree_unchanged(before, fx->root, "blas_under_memory_limit_thread_buffer");
    free(before);
#endif
}

/* The same limit on a text too long for the reference kernel: `ulimit -v 300000; attnviz --no-plot --heads 8 -f`
 * 5793 words (auto: flash) said "raise the limit, or use --kernel reference", and --kernel reference is refused
 * there: it keeps the (8, T, T) scores and weights, 2·8·T²·4 bytes, 2,147,766,336 at T = 5793 (5793² = 33,558,849,
 * × 64) against 2 GiB = 2,147,483,648, while T = 5792 takes 2,147,024,896 (worked by hand). Now the error says so
 * and offers only raising the limit. Skipped under AddressSanitizer, as above. */
static void test_blas_under_memory_limit_long_input(void **state) {
#if defined(__SANITIZE_ADDRESS__)
    (void)state;
    skip();
#else
    fixture *fx = *state;
    char *before = snapshot(fx->root);
    run_opts ro = {fx->root, -1, 0, NULL, 0};
    enum { N = 5793 };
    static char text[2 * N];
    for (int i = 0; i < N; i++) text[2 * i] = 'a', text[2 * i + 1] = i + 1 < N ? ' ' : '\0';
    struct rlimit old_as, old_cpu, as, cpu;
    assert_int_equal(getrlimit(RLIMIT_AS, &old_as), 0);
    assert_int_equal(getrlimit(RLIMIT_CPU, &old_cpu), 0);
    as = old_as, cpu = old_cpu;
    as.rlim_cur = (rlim_t)300000 * 1024;
    cpu.rlim_cur = 30;
    tu_result r, rr;
    const char *args[] = {"--no-plot", "-q", "--heads", "8", "-f", "-", NULL};
    const char *ref[] = {"--kernel", "reference", "--no-plot", "-q", "--heads", "8", "-f", "-", NULL};
    assert_int_equal(setrlimit(RLIMIT_AS, &as), 0);
    assert_int_equal(setrlimit(RLIMIT_CPU, &cpu), 0);
    run_ex(&r, &ro, text, strlen(text), args);
    setrlimit(RLIMIT_AS, &old_as);
    setrlimit(RLIMIT_CPU, &old_cpu);
    if (r.code != 1) print_message("exit %d, stderr: %s\n", r.code, r.err);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "do not fit under the process's memory limit (ulimit -v or -d); raise the limit "
                                  "(--kernel reference needs no OpenBLAS, but 5793 tokens with 8 heads are too many "
                                  "for it: at most 5792)\n"));
    assert_null(strstr(r.err, "or use --kernel reference"));
    tu_free(&r);
    run_ex(&rr, &ro, text, strlen(text), ref); /* what the old advice led to, without the limit: refused at once */
    assert_int_equal(rr.code, 2);
    assert_non_null(strstr(rr.err, "give at most 5792 tokens at 8 heads"));
    tu_free(&rr);
    assert_tree_unchanged(before, fx->root, "blas_under_memory_limit_long_input");
    free(before);
#endif
}

/* An --attn-mask that never ends: /dev/zero, or a pipe whose writer sends a
 * mask's header and then zeros and never closes it (`--attn-mask <(cmd)`).
 * A valid (T, T) mask is at most T·T·8 bytes of data after a header of at
 * most 12 + 65536 bytes; attnviz read up to npy's 256 MiB limit before it
 * refused ("larger than the 268501008-byte limit"). Now it stops after
 * 12 + 65536 + 4·4·8 = 65676 bytes: exit 2 naming that limit, and the
 * writer, which counts what the pipe took until attnviz left (EPIPE), got
 * rid of less than 1 MiB (the pipe's own buffer holds 64 KiB more). The
 * writer stops at 512 MiB and at 60 s (alarm) in case nothing reads it. */
/* Loaded weights of large (finite) values: the trace printed var(Q) with three decimals, sixty digits
 * long ("measured var(Q) = 78914116243987352313327961651698956727537362332624181264384.000"), beside
 * var(Q·Kᵀ) = 1.743e+59 in %.4g; a large variance is printed as that one. */
static void test_large_loaded_weights_print_short_variances(void **state) {
    fixture *fx = *state;
    weights_dir(fx);
    fill_floats(64, 1e20f);
    put_npy(at(fx, "in/w/W_Q.npy"), DICT("<f4", "False", "(8, 8)"), g_f, 64 * 4);
    run_opts ro = {fx->root, -1, 0, NULL, 0};
    tu_result r;
    const char *args[] = {W8, "--weights", at(fx, "in/w"), "--no-plot", S4, NULL};
    run_ex(&r, &ro, NULL, 0, args);
    if (r.code != 0) fail_msg("exit %d, stderr: %s", r.code, r.err);
    const char *v = strstr(r.out, "measured var(Q) = ");
    assert_non_null(v);
    v += strlen("measured var(Q) = ");
    size_t len = strcspn(v, ",");
    if (len > 12 || !memchr(v, 'e', len)) fail_msg("var(Q) printed as %.*s", (int)(len < 200 ? len : 200), v);
    assert_null(strstr(r.out, "nan"));
    tu_free(&r);
}

/* Loaded embeddings of small values, as GPT-2's init scale N(0, 0.02²): the trace printed "measured var(Q) =
 * 0.000, var(K) = 0.000", as if Q were all zero, beside var(Q·Kᵀ) = 3.937e-06; a small variance is printed in
 * %.4g too, and an exact 0 still as 0.000. */
static void test_small_loaded_embeddings_print_nonzero_variances(void **state) {
    fixture *fx = *state;
    weights_dir(fx);
    fill_floats(32, 0);
    for (int i = 0; i < 32; i++) g_f[i] *= 0.1f; /* |x| <= 0.007: var(Q) about 1e-5 */
    put_npy(at(fx, "in/w/X.npy"), DICT("<f4", "False", "(4, 8)"), g_f, 32 * 4);
    run_opts ro = {fx->root, -1, 0, NULL, 0};
    tu_result r;
    const char *args[] = {W8, "--weights", at(fx, "in/w"), "--positions", "none", "--no-plot", S4, NULL};
    run_ex(&r, &ro, NULL, 0, args);
    if (r.code != 0) fail_msg("exit %d, stderr: %s", r.code, r.err);
    const char *names[] = {"measured var(Q) = ", ", var(K) = "};
    for (int k = 0; k < 2; k++) {
        const char *v = strstr(r.out, names[k]);
        assert_non_null(v);
        v += strlen(names[k]);
        double got = strtod(v, NULL);
        if (!(got > 1e-7 && got < 1e-3)) fail_msg("%sprinted as %.12s", names[k], v);
    }
    tu_free(&r);
}

static void test_mask_from_endless_input(void **state) {
    fixture *fx = *state;
    char *before = snapshot(fx->root);
    run_opts ro = {fx->root, -1, 0, NULL, 0};
    tu_result r;
    const char *zero[] = {W8, "--attn-mask", "/dev/zero", "-q", S4, NULL};
    run_ex(&r, &ro, NULL, 0, zero);
    if (r.code != 2) print_message("exit %d, stderr: %s\n", r.code, r.err);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "attnviz: error: --attn-mask: input file /dev/zero is larger than the "
                                  "65676-byte limit; the mask must be a bool (4, 4) array"));
    tu_free(&r);
    assert_tree_unchanged(before, fx->root, "mask_from_endless_input (/dev/zero)");

    char fifo[4200];
    snprintf(fifo, sizeof fifo, "%s", at(fx, "in/mask.npy"));
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int report[2];
    assert_int_equal(pipe(report), 0);
    pid_t writer = fork();
    assert_true(writer >= 0);
    if (writer == 0) {
        close(report[0]);
        signal(SIGPIPE, SIG_IGN);
        alarm(60);
        int fd = open(fifo, O_WRONLY);
        unsigned long long sent = 0;
        static const char head[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '|b1', 'fortran_order': False, 'shape': (4, 4), }";
        static char chunk[65536];
        memset(chunk, ' ', sizeof chunk);
        memcpy(chunk, head, sizeof head - 1); /* the header's padding, then zeros (False) */
        chunk[127] = '\n';
        memset(chunk + 128, 0, sizeof chunk - 128);
        while (fd >= 0 && sent < 512ull << 20) {
            ssize_t k = write(fd, chunk, sizeof chunk);
            if (k <= 0) break;
            sent += (unsigned long long)k;
            memset(chunk, 0, 128);
        }
        if (write(report[1], &sent, sizeof sent) != (ssize_t)sizeof sent) _exit(1);
        _exit(0);
    }
    close(report[1]);
    const char *piped[] = {W8, "--attn-mask", fifo, "-q", S4, NULL};
    run_ex(&r, &ro, NULL, 0, piped);
    unsigned long long sent = 0;
    ssize_t got = read(report[0], &sent, sizeof sent);
    close(report[0]);
    int wst = 0;
    waitpid(writer, &wst, 0);
    unlink(fifo);
    if (r.code != 2) print_message("exit %d, stderr: %s\n", r.code, r.err);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "is larger than the 65676-byte limit; the mask must be a bool (4, 4) array"));
    assert_int_equal(got, (ssize_t)sizeof sent);
    if (sent >= 1u << 20) print_message("the pipe's writer sent %llu bytes before attnviz stopped reading\n", sent);
    assert_true(sent < 1u << 20);
    tu_free(&r);
    assert_tree_unchanged(before, fx->root, "mask_from_endless_input (pipe)");
    free(before);
}

/* Outputs of an earlier successful run survive later failed runs
 * byte-for-byte: a usage error, bad weights, a dump folder that cannot be
 * made, and a full disk half-way through the figures. */
static void test_earlier_figures_survive_failed_runs(void **state) {
    fixture *fx = *state;
    const char *fig = at(fx, "fig");
    run_opts ro = {fx->root, -1, 0, NULL, 0};
    tu_result r;
    const char *good[] = {"-o", fig, "--d-model", "16", "--heads", "2", "-q", S4, NULL};
    run_ex(&r, &ro, NULL, 0, good);
    if (r.code != 0) print_message("stderr: %s\n", r.err);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    char png[4200];
    snprintf(png, sizeof png, "%s/head0.png", fig);
    assert_true(file_exists(png));
    prep_w_nan(fx);
    char *before = snapshot(fx->root);

    const char *usage[] = {"-o", fig, "--d-model", "16", "--heads", "3", "-q", S4, NULL};
    const char *badw[] = {"-o", fig, "--d-model", "8", "--heads", "2", "--weights", at(fx, "in/w"), S4, NULL};
    const char *baddump[] = {"-o", fig, "--d-model", "16", "--heads", "2", "--dump", at(fx, "in/afile/d"), S4, NULL};
    const char *const *runs[] = {usage, badw, baddump};
    const int codes[] = {2, 2, 1};
    for (int i = 0; i < 3; i++) {
        run_ex(&r, &ro, NULL, 0, runs[i]);
        assert_int_equal(r.code, codes[i]);
        assert_non_null(strstr(r.err, "attnviz: error: "));
        tu_free(&r);
        assert_tree_unchanged(before, fx->root, "earlier_figures_survive");
    }
    /* a full disk while re-drawing the same figures with another seed */
    run_opts full = {fx->root, -1, 2048, NULL, 0};
    const char *reseed[] = {"-o", fig, "--d-model", "16", "--heads", "2", "--seed", "7", "-q", S4, NULL};
    run_ex(&r, &full, NULL, 0, reseed);
    assert_int_equal(r.code, 1);
    tu_free(&r);
    assert_tree_unchanged(before, fx->root, "earlier_figures_survive (full disk)");
    free(before);
}

/* When the figure folder cannot be made, a --dump given in the same run must
 * not have replaced the tensors of an earlier run either: main makes (or
 * checks) every output folder before it writes any file. */
static void test_failed_plot_leaves_dump_untouched(void **state) {
    fixture *fx = *state;
    char *before = snapshot(fx->root);
    run_opts ro = {fx->root, -1, 0, NULL, 0};
    tu_result r;
    const char *args[] = {"--dump", at(fx, "dump"), "-o", at(fx, "in/afile"), "--d-model", "8", "--heads", "2", "-q",
                          S4, NULL};
    run_ex(&r, &ro, NULL, 0, args);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "in/afile"));
    tu_free(&r);
    assert_tree_unchanged(before, fx->root, "failed_plot_leaves_dump_untouched");
    free(before);
}

/* Every Chinese word the table's rows above give a hint for is one the Chinese docs themselves use (tutorial,
 * train and reading-heads .zh.md): a learner who types a choice as they name it gets the option's value, and no
 * hint rests on a word of attnviz's own. */
static void test_chinese_choice_words_are_the_docs_own(void **state) {
    (void)state;
    static const char *const words[] = {"缩放", "位置", "顺序", "层归一化", "正弦", "旋转位置编码", "可学习",
                                        "反转", "排序", "归纳", "复制", "从前文复制", "之前", "后", "余弦", "热力图",
                                        "平均图"};
    static const char *const docs[] = {"docs/tutorial.zh.md", "docs/train.zh.md", "docs/reading-heads.zh.md"};
    char *text[3];
    for (int d = 0; d < 3; d++) {
        size_t len = 0;
        text[d] = tu_slurp_file(src_path(docs[d]), &len);
        assert_non_null(text[d]);
    }
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        int found = 0;
        for (int d = 0; d < 3 && !found; d++) found = strstr(text[d], words[w]) != NULL;
        if (!found) fprintf(stderr, "'%s' is in no docs/*.zh.md\n", words[w]);
        assert_true(found);
    }
    for (int d = 0; d < 3; d++) free(text[d]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input_table),
        cmocka_unit_test(test_chinese_choice_words_are_the_docs_own),
        cmocka_unit_test_setup_teardown(test_argv_longer_than_1mib, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_loaded_weights_print_short_variances, setup, teardown),
        cmocka_unit_test_setup_teardown(test_small_loaded_embeddings_print_nonzero_variances, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_limit_boundary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare_counts_its_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stdout_on_full_disk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stdout_on_full_disk_at_any_length, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare_table_on_full_disk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_help_and_version_on_full_disk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stdout_closed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_figure_on_full_disk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dump_on_full_disk_keeps_the_earlier_dump, setup, teardown),
        cmocka_unit_test_setup_teardown(test_blas_under_memory_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_blas_under_memory_limit_thread_buffer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_blas_under_memory_limit_long_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mask_from_endless_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_earlier_figures_survive_failed_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_plot_leaves_dump_untouched, setup, teardown),
    };
    return cmocka_run_group_tests_name("badinput", tests, NULL, NULL);
}
