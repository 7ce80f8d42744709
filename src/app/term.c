/* term.c - the terminal (see term.h). */
#define _GNU_SOURCE /* fopencookie */
#include "app/term.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/utf8.h"

const char *av_bold(int color) { return color ? "\033[1m" : ""; }
const char *av_green(int color) { return color ? "\033[32m" : ""; }
const char *av_yellow(int color) { return color ? "\033[33m" : ""; }
const char *av_reset(int color) { return color ? "\033[0m" : ""; }

const char *av_fmt_var(char *buf, double v) {
    /* under 1e-3 three decimals read 0.000 (X of GPT-2's init scale, N(0, 0.02²), gave "var(Q) = 0.000" beside
     * var(Q·Kᵀ) = 3.937e-06): as var(Q·Kᵀ) too */
    snprintf(buf, 32, v == 0 || (fabs(v) >= 1e-3 && fabs(v) < 1e5) ? "%.3f" : "%.4g", v);
    return buf;
}

/* 1 if TERM is "dumb" */
static int dumb_terminal(void) {
    const char *term = getenv("TERM");
    return term && strcmp(term, "dumb") == 0;
}

int av_term_redraws(int fd) { return isatty(fd) && !dumb_terminal(); }

int av_use_color(av_color when) {
    if (when == AV_COLOR_ALWAYS) return 1;
    if (when == AV_COLOR_NEVER) return 0;
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc) return 0;
    /* TERM=dumb (Emacs's M-x shell, some IDE consoles, a serial line) shows ANSI escapes as text: git, grep and
     * ls give it no colour either (a teacher's report: the --show table read ^[[48;5;53m^[[97m0.01 ...) */
    if (dumb_terminal()) return 0;
    return isatty(STDOUT_FILENO);
}

av_term_mode av_term_mode_for(int color) {
    if (!color) return AV_TERM_PLAIN;
    const char *ct = getenv("COLORTERM");
    if (ct && (strstr(ct, "truecolor") || strstr(ct, "24bit"))) return AV_TERM_TRUECOLOR;
    return AV_TERM_256;
}

int av_term_width_of(int fd) {
    const char *cols = getenv("COLUMNS");
    if (cols && atoi(cols) > 0) return atoi(cols);
    struct winsize ws;
    if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return 80;
}

int av_term_width(void) { return av_term_width_of(STDOUT_FILENO); }

void av_term_wrapped(FILE *f, const char *text, int col, int width, int indent) {
    char word[256];
    int first = 1;
    for (const char *p = text; *p;) {
        while (*p == ' ') p++;
        size_t n = strcspn(p, " ");
        if (!n) break;
        snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1), p);
        int w = av_utf8_width(word);
        if (!first && col + 1 + w > width) fprintf(f, "\n%*s", indent, ""), col = indent, first = 1;
        fprintf(f, "%s%.*s", first ? "" : " ", (int)n, p);
        col += w + !first, first = 0, p += n;
    }
    fputc('\n', f);
}

const char *av_term_width_said(char *buf, size_t n, int width) {
    const char *cols = getenv("COLUMNS");
    if (!(cols && atoi(cols) > 0) && !isatty(STDOUT_FILENO)) /* a pipe into less -R on a 200-column terminal */
        snprintf(buf, n, "standard output is not a terminal, so %d columns are assumed; COLUMNS=N gives N, e.g. "
                 "COLUMNS=200 attnviz ... | less -R", width);
    else
        snprintf(buf, n, "the terminal is %d columns wide", width);
    return buf;
}

void av_put_width(FILE *f, const char *s, int w, int right_align) {
    char buf[256];
    size_t at = 0, len = strlen(s);
    int used = 0;
    for (size_t p = 0, n; p < len; p += n) { /* whole grapheme clusters */
        n = av_utf8_cluster_len(s + p, len - p);
        int cw = av_utf8_cluster_width(s + p, n);
        int rest = p + n < len; /* more characters follow */
        if (at + n + 4 > sizeof buf || (used + cw > w - (rest ? 1 : 0) && (rest || used + cw > w))) {
            if (used < w) { memcpy(buf + at, "…", 3); at += 3; used++; }
            break;
        }
        memcpy(buf + at, s + p, n);
        at += n;
        used += cw;
    }
    buf[at] = 0;
    if (right_align) for (int k = used; k < w; k++) fputc(' ', f);
    fputs(buf, f);
    if (!right_align) for (int k = used; k < w; k++) fputc(' ', f);
}

void av_print_quoted(FILE *f, const char *s, size_t len) {
    const unsigned char *u = (const unsigned char *)s;
    fputc('"', f);
    for (size_t i = 0; i < len;) {
        unsigned cp;
        const char *why;
        int n = u[i] >= 0x80 ? av_utf8_decode(u + i, len - i, &cp, &why) : 1;
        if (u[i] == '"' || u[i] == '\\') fprintf(f, "\\%c", u[i]);
        else if (u[i] == '\n' || u[i] == '\t' || u[i] == '\r')
            fprintf(f, "\\%c", u[i] == '\n' ? 'n' : u[i] == '\t' ? 't' : 'r');
        else if (n == 0 || u[i] < 0x20 || u[i] == 0x7f) fprintf(f, "\\x%02X", u[i]);
        else if (n > 1 && cp < 0xA0) fprintf(f, "\\u%04X", cp); /* C1 controls U+0080..U+009F */
        else fwrite(u + i, 1, (size_t)n, f);
        i += n ? (size_t)n : 1;
    }
    fputc('"', f);
}

double av_now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* seconds as tqdm's format_interval: MM:SS, or H:MM:SS from an hour */
static void format_interval(char *buf, size_t n, double seconds) {
    long long t = seconds < 1e15 ? (long long)seconds : (long long)1e15, m = t / 60, h = m / 60;
    if (h) snprintf(buf, n, "%lld:%02lld:%02lld", h, m % 60, t % 60);
    else snprintf(buf, n, "%02lld:%02lld", m, t % 60);
}

void av_format_eta_of(char *buf, size_t n, double elapsed_s, long done, long total, const char *unit) {
    if (n) buf[0] = 0;
    if (done < 1 || !(elapsed_s > 0)) return;
    double rate = (double)done / elapsed_s;
    char el[32], left[32];
    format_interval(el, sizeof el, elapsed_s);
    format_interval(left, sizeof left, total > done ? (double)(total - done) / rate : 0);
    if (rate >= 1) snprintf(buf, n, "%s<%s, %.2f %ss/s", el, left, rate, unit);
    else snprintf(buf, n, "%s<%s, %.2f s/%s", el, left, 1 / rate, unit);
}

void av_format_eta(char *buf, size_t n, double elapsed_s, long done, long total) {
    av_format_eta_of(buf, n, elapsed_s, done, total, "step");
}

void av_line_add(av_line *l, const char *fmt, ...) {
    int at = l->n ? (int)strlen(l->text + l->start[l->n - 1]) + l->start[l->n - 1] : 0;
    if (l->n == 0) l->text[0] = 0;
    if (l->n >= (int)(sizeof l->start / sizeof l->start[0]) || at >= (int)sizeof l->text - 1) return;
    char piece[sizeof l->text];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    if (len < 0) return;
    if ((size_t)len >= sizeof piece) len = (int)av_utf8_trim_cut(piece); /* cut on a whole character */
    piece[len] = 0;
    /* a path (-o) as av_utf8_shown_name shows it: a control character as an escape, as in av_message, an RLO
     * closed at the piece's end */
    av_utf8_shown_name(piece, l->text + at, sizeof l->text - (size_t)at);
    l->start[l->n++] = at;
}

void av_line_print(FILE *f, const av_line *l, int cols, int indent) {
    int used = 0, held = 0; /* held: a piece's trailing spaces ("loss 5.6647 "), printed once the next piece
                             * stays on the line; a break dropped none of them, so a broken line ended in one */
    char piece[sizeof l->text];
    for (int k = 0; k < l->n; k++) {
        int len = (k + 1 < l->n ? l->start[k + 1] : (int)strlen(l->text)) - l->start[k];
        memcpy(piece, l->text + l->start[k], (size_t)len);
        piece[len] = 0;
        const char *p = piece;
        int w = av_utf8_width(p);
        if (cols > 0 && used > indent && used + w > cols) {
            while (*p == ' ') p++;
            fprintf(f, "\n%*s", indent, "");
            used = indent;
            held = 0;
            w = av_utf8_width(p);
        }
        fprintf(f, "%*s", held, "");
        for (held = 0; len > 0 && piece[len - 1] == ' ' && piece + len - 1 >= p; len--) held++;
        piece[len] = 0;
        fputs(p, f);
        used += w;
    }
    if (cols <= 0) fprintf(f, "%*s", held, ""); /* a pipe's line stays as it was */
    fputc('\n', f);
}

int av_line_cols(FILE *f) {
    int fd = av_stream_fd(f);
    if (fd < 0 || !isatty(fd)) return 0;
    int cols = av_term_width_of(fd) - 1;
    return cols < 20 ? 20 : cols;
}

/* av_stdout_errno's: the first error of av_message's flush of standard output */
static int g_stdout_errno;

int av_stdout_errno(void) { return g_stdout_errno; }

/* standard output's writes (av_stdout_keep_errno): every byte to fd 1, the first failure's errno kept */
static ssize_t stdout_write(void *cookie, const char *buf, size_t n) {
    (void)cookie;
    for (size_t done = 0; done < n;) {
        ssize_t k = write(STDOUT_FILENO, buf + done, n - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (!g_stdout_errno) g_stdout_errno = k < 0 && errno ? errno : EIO;
            return -1; /* the stream's error flag, as a failed write sets it on a plain stream */
        }
        done += (size_t)k;
    }
    return (ssize_t)n;
}

static int stdout_close(void *cookie) {
    (void)cookie;
    return close(STDOUT_FILENO);
}

void av_stdout_keep_errno(void) {
    struct stat st;
    if (isatty(STDOUT_FILENO) || fstat(STDOUT_FILENO, &st) != 0) return; /* a terminal, or closed: as it is */
    FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){NULL, stdout_write, NULL, stdout_close});
    if (!f) return;
    /* the buffer a plain stream gives the file, so output reaches it in the same pieces */
    setvbuf(f, NULL, _IOFBF, st.st_blksize > 0 ? (size_t)st.st_blksize : BUFSIZ);
    stdout = f;
}

int av_stream_fd(FILE *f) { return f == stdout ? STDOUT_FILENO : fileno(f); }

void av_message(FILE *f, const char *fmt, ...) {
    char small[1024], *text = small;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (len < 0) return;
    if ((size_t)len >= sizeof small && (text = malloc((size_t)len + 1))) {
        va_start(ap, fmt);
        vsnprintf(text, (size_t)len + 1, fmt, ap);
        va_end(ap);
    }
    if (!text) text = small, len = (int)strlen(small); /* out of memory: the message cut */
    /* a byte that is not UTF-8 (a value typed in Latin-1, "--cmap $'\xff'") reached the terminal raw: U+FFFD */
    char *valid = av_utf8_check(text, (size_t)len, NULL) ? av_utf8_replace_invalid(text) : NULL;
    if (valid) {
        if (text != small) free(text);
        text = valid, len = (int)strlen(valid);
    }
    /* what stdout holds goes first: piped, it is fully buffered, and with 2>&1 a note landed inside the
     * "ids:" line of a 4 KB trace (a learner's pass) */
    if (f == stderr && fflush(stdout) != 0 && !g_stdout_errno) g_stdout_errno = errno ? errno : EIO;
    size_t n = 8 * (size_t)len + 1; /* a byte becomes at most 8 (<U+001B>) */
    char *out = malloc(n);
    if (out) {
        av_utf8_escape_controls(text, (size_t)len, out, n, 1);
        fputs(out, f);
        free(out);
    } else {
        fputs(text, f);
    }
    if (text != small) free(text);
}

const char *av_quote_token(char *buf, size_t n, const char *tok) {
    char q = strchr(tok, '"') ? '\'' : '"';
    snprintf(buf, n, "%c%s%c", q, tok, q);
    return buf;
}

/* line[0..n) without its ANSI colour escapes (ESC [ ... m) into out (cap bytes, NUL-terminated, cut to fit);
 * returns its length */
static size_t strip_escapes(const char *line, size_t n, char *out, size_t cap) {
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < cap; i++) {
        if (line[i] == '\033') {
            while (i < n && line[i] != 'm') i++;
            continue;
        }
        out[k++] = line[i];
    }
    out[k] = 0;
    return k;
}

/* The columns a terminal gives line[0..n): av_utf8_width of its text without its colour escapes */
static int line_width(const char *line, size_t n) {
    char buf[4096];
    strip_escapes(line, n, buf, sizeof buf);
    return av_utf8_width(buf);
}

/* Where a broken line's text goes on: the column after the label of "  weights    text" and "  convention row"
 * (13), " [4] project       text" and "[10] concat        text" (19) or, in the --model trace,
 * "   [1] tokenize      text" and "[1.10] ln_2          text" (21), --generate's "  generate    text" (14), else
 * the line's own indent, and 2 under a
 * title or header at column 0 (a hanging indent: "--compare order: swap token 0 "I" and token 2" then
 * "  "you" (same embeddings and weights)", where the rest at column 0 read as a line of its own). Colour
 * escapes take no column. */
static int continuation_indent(const char *text, size_t len) {
    char line[4096]; /* the line without its escapes */
    size_t n = strip_escapes(text, len, line, sizeof line);
    size_t lead = strspn(line, " "), i = lead;
    if (lead >= n) return 0;
    if (line[i] == '[') i += strcspn(line + i, "]") + 1; /* a step's number */
    else if (lead != 2) return lead ? (int)lead : 2;
    i += strspn(line + i, " ");
    while (i < n && line[i] != ' ') i++; /* the label, with its escapes; a step's may have two words */
    if (line[lead] == '[' && i + 1 < n && line[i + 1] != ' ')
        for (i++; i < n && line[i] != ' '; i++) {}
    i += strspn(line + i, " ");
    int col = line_width(line, i);
    return col == 13 || col == 14 || col == 19 || col == 21 ? col : lead ? (int)lead : 2;
}

/* Whether the word at p (up to a space or the end) is an operator a formula keeps beside its operands; a
 * label's ':' keeps its number too (break_at) */
static int operator_word(const char *p) {
    static const char *const ops[] = {"=", "~", "→", "←", "×", "+", "−", "-", "/", "·", "≤", "≥", "<", ">", "÷", "≈", "…"};
    size_t n = strcspn(p, " ");
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (strlen(ops[k]) == n && strncmp(p, ops[k], n) == 0) return 1;
    return 0;
}

/* Whether a space between the word a[0..an) and the word at b (b[0..bn) the rest of the line) is inside a list of
 * one-letter names, "K, V" or "Q, K, V": a capital letter and ',' then a capital letter that ends its word or is
 * followed by ','; such a list is one name to the reader (step [1.3] of the Llama trace broke "so K," then
 * "V become (4, 2, 16)" at 80 columns) */
static int name_list(const char *a, size_t an, const char *b, size_t bn) {
    return an == 2 && isupper((unsigned char)a[0]) && a[1] == ',' && bn >= 1 && isupper((unsigned char)b[0]) &&
           (bn == 1 || b[1] == ' ' || b[1] == ',');
}

/* Whether the word a[0..an) and the word at b are a noun and its index or count, "token 2", "head 0,", "layer 1",
 * "all 8": a noun of the things the tool numbers then an integer (digits, then at most punctuation), an integer
 * then such a noun, "8 heads", or an index and the quoted token it names, "2 "you""; the number names or counts
 * the thing, so the space between them is no break of choice (--compare order's title broke "... and token" then
 * "2 "you"" at 44 columns, and "... token 2" then ""you"" at 45). A value is none: "stores as" then "1.41690254"
 * may break. Plurals count too: "all 4" then "keys would be ..." left a count apart from its noun at 50 columns. */
static int noun_number(const char *a, size_t an, const char *b) {
    static const char *const nouns[] = {"token", "tokens", "head", "heads", "query", "queries", "key", "keys",
                                        "layer", "layers", "row", "rows", "column", "columns", "position",
                                        "positions", "step", "steps", "all"};
    int count = an && strspn(a, "0123456789") == an;
    if (count && (b[0] == '"' || b[0] == '\'')) return 1; /* 2 "you" */
    size_t bn = strcspn(b, " ,;:)");
    for (size_t k = 0; count && k < sizeof nouns / sizeof nouns[0]; k++) /* 8 heads */
        if (strlen(nouns[k]) == bn && strncmp(nouns[k], b, bn) == 0) return 1;
    size_t d = strspn(b, "0123456789");
    if (!d || (b[d] && b[d] != ' ' && !strchr(",;:)\"'", b[d]))) return 0;
    for (size_t k = 0; k < sizeof nouns / sizeof nouns[0]; k++)
        if (strlen(nouns[k]) == an && strncmp(nouns[k], a, an) == 0) return 1;
    return 0;
}

/* Whether a line is a row of a table, whose columns would not survive a break, so it is left whole: 4 or more
 * gaps of 3+ spaces after its indent (--explain's softmax table, the online softmax's tiles), 3 or more under
 * a step's text (an indent of 19 or more: the --model trace's table of layers), or a row of numbers, '[' then
 * a space, '-' or '[' (-v's matrices; a step's "[4]" is none); the partial sums' 2-space gaps make no table,
 * nor do gaps between sizes "name = value" (the --model trace's "  T = 4   layers L = 2   d_model = 64 ...",
 * which breaks at a gap, break_at).
 * Colour escapes are no part of it (a bold "   [2] embed" label once counted its indent as a gap). 1 for a
 * table's row, 2 for a matrix's, else 0 */
static int table_row(const char *text, size_t len) {
    char line[4096];
    size_t n = strip_escapes(text, len, line, sizeof line), lead = strspn(line, " "), i = lead;
    if (i + 1 < n && line[i] == '[' && strchr(" -[", line[i + 1])) return 2;
    int gaps = 0, sizes = 1; /* sizes: every cell is a "name = value" */
    size_t cell = i;
    for (; i + 2 < n; i++)
        if (line[i] == ' ' && line[i + 1] == ' ' && line[i + 2] == ' ') {
            gaps++;
            line[i] = 0, sizes = sizes && strstr(line + cell, " = ");
            i += strspn(line + i + 1, " ");
            cell = i + 1;
        }
    sizes = sizes && strstr(line + cell, " = ");
    return gaps >= (lead >= 19 ? 3 : 4) && !sizes;
}

/* The display columns where the cells of a line end, cells being split at runs of 2 or more spaces after the
 * indent, into ends[0..max); *lead gets the indent; returns the number of cells (colour escapes no part) */
static int cell_ends(const char *text, size_t len, int *ends, int max, int *lead) {
    char line[4096];
    size_t n = strip_escapes(text, len, line, sizeof line), i = strspn(line, " ");
    int cells = 0;
    *lead = (int)i;
    while (i < n && cells < max) {
        size_t e = i;
        while (e < n && !(line[e] == ' ' && (e + 1 >= n || line[e + 1] == ' '))) e++;
        ends[cells++] = line_width(line, e);
        i = e + strspn(line + e, " ");
    }
    return cells;
}

/* Whether two lines are rows of one table that table_row does not see, having fewer gaps of 3+ spaces (--compare's
 * "  none        0.4868        1.2013        —" and its header "  setting   mean max weight  mean entropy (nats)
 * max |ΔA| vs first"): the same indent, 3 cells or more each (split at 2+ spaces) and 2 or more of their cells
 * ending at the same columns, as right-aligned numbers do; the trace's steps share at most the start of their
 * formula column, and a line of sizes "T = 4   d_model = 512" has no neighbour like it */
static int aligned_rows(const char *a, size_t an, const char *b, size_t bn) {
    int ea[64], eb[64], la, lb;
    int na = cell_ends(a, an, ea, 64, &la), nb = cell_ends(b, bn, eb, 64, &lb), shared = 0;
    if (la != lb || na < 3 || nb < 3 || table_row(a, an) || table_row(b, bn)) return 0;
    for (int x = 1; x < na; x++)
        for (int y = 1; y < nb; y++) shared += ea[x] == eb[y];
    return shared >= 2;
}

/* The length of the shape p[0..n) begins with, "(4, 512)", "(H, T, T)" or "(2, 4, 256)": '(' then words of
 * letters, digits and '_' each after ", ", then ')'; 0 when p begins with none ("(in, out)" is one too) */
static size_t shape_at(const char *p, size_t n) {
    size_t i = 1, parts = 0;
    for (;;) {
        size_t w = 0;
        while (i + w < n && (isalnum((unsigned char)p[i + w]) || p[i + w] == '_')) w++;
        if (!w) return 0;
        i += w, parts++;
        if (i < n && p[i] == ')') return parts >= 2 ? i + 1 : 0;
        if (i + 1 >= n || p[i] != ',' || p[i + 1] != ' ') return 0;
        i += 2;
    }
}

/* The length of the chain of shapes p[0..n) begins with: shapes (shape_at) joined by "·" or by " op " with op an
 * operator word ("(4, 512) + (4, 512) → (4, 512)", "(1, 4, 4)·(1, 4, 512) → (1, 4, 512)"); 0 when p begins with
 * no shape; the one shape's length when nothing joins it to another */
static size_t shape_chain_at(const char *p, size_t n) {
    size_t end = shape_at(p, n);
    if (!end) return 0;
    for (;;) {
        size_t next = end;
        if (n - end >= 2 && strncmp(p + end, "·", 2) == 0) next = end + 2; /* "(4, 512)·(512, 512)" */
        else if (end + 1 < n && p[end] == ' ' && operator_word(p + end + 1)) {
            next = end + 1 + strcspn(p + end + 1, " ");
            if (next >= n || p[next] != ' ') return end;
            next++;
        }
        size_t s = next > end && next < n && p[next] == '(' ? shape_at(p + next, n - next) : 0;
        if (!s) return end;
        end = next + s;
    }
}

/* The length of the bracketed group p[0..n) begins with, '(' or '[' to its matching ')' or ']' ("[ 0.3613 …
 * -0.6109]", "exp(S − max)"'s "(S − max)", "Q[0, 1, :]"), when it holds a space; else 0 (none, no space or no
 * close) */
static size_t group_at(const char *p, size_t n) {
    int depth = 0, space = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '(' || p[i] == '[') depth++;
        else if ((p[i] == ')' || p[i] == ']') && --depth == 0) return space ? i + 1 : 0;
        else if (p[i] == ' ') space = 1;
    }
    return 0;
}

/* The end of the piece of line[from..n) that a gap of 3+ spaces outside brackets ends ("row max = 0.43821761"
 * of "row max = 0.43821761   row sum Σ_j exp(S − max) = 2.07762304"), else n */
static size_t piece_end(const char *line, size_t from, size_t n) {
    int depth = 0;
    for (size_t i = from; i < n; i++) {
        if (line[i] == '(' || line[i] == '[') depth++;
        else if ((line[i] == ')' || line[i] == ']') && depth > 0) depth--;
        else if (!depth && i + 2 < n && line[i] == ' ' && line[i + 1] == ' ' && line[i + 2] == ' ') return i;
    }
    return n;
}

/* The depth of brackets '(' and '[' at line[to] counted from line[at] (0 outside them) */
static int depth_at(const char *line, size_t at, size_t to) {
    int depth = 0;
    for (size_t i = at; i < to; i++)
        if (line[i] == '(' || line[i] == '[') depth++;
        else if ((line[i] == ')' || line[i] == ']') && depth > 0) depth--;
    return depth;
}

/* Whether the chain of shapes of chain bytes at line[i] (shape_chain_at) fits whole on a line of its own at indent,
 * width columns wide, with the operator word before it when one is (the line starts at line[at]) and the one word
 * after it when that word ends its piece (piece_end; line[0..n)): a break comes before the operator, not after
 * it, so "→ (4, 8, 64) → (4, 512)" is the line the chain would start (at 40 columns the chain, 21 columns under
 * column 19, was kept whole, and its "→ " took the line to 42); and a lone last word would go on alone ("(4, 512)·
 * (512, 512) → (4, 512)" whole under column 19 at 50 left "each" alone on the next line) */
static int chain_fits(const char *line, size_t at, size_t i, size_t chain, size_t n, int indent, int width) {
    size_t w = i > at && line[i - 1] == ' ' ? i - 1 : i; /* the word before the chain */
    while (w > at && line[w - 1] != ' ') w--;
    int op = w < i && operator_word(line + w) ? line_width(line + w, i - w) : 0;
    size_t end = i + chain;
    if (end + 1 < n && line[end] == ' ' && line[end + 1] != ' ') {
        size_t last = piece_end(line, end + 1, n);
        if (!memchr(line + end + 1, ' ', last - end - 1)) end = last;
    }
    return indent + op + line_width(line + i, end - i) <= width;
}

/* Whether the text of the line line[at..cut), after col columns, is one word: no space in it after its indent
 * (indent columns, a step's label before it). The trace breaks so that such a line is rare mid-text: "worst"
 * alone, or "columns" between "head h takes" and "h·16 … h·16+15" */
static int one_word(const char *line, size_t at, size_t cut, int col, int indent) {
    while (cut > at && line[cut - 1] == ' ') cut--;
    size_t w = cut; /* the last word */
    while (w > at && line[w - 1] != ' ') w--;
    if (w == cut) return 0;
    size_t s = w; /* the end of the text before it */
    while (s > at && line[s - 1] == ' ') s--;
    return col + line_width(line + at, s - at) <= indent;
}

/* Where line[at..n) breaks so that its first piece, after col columns, takes at most width: the last gap of 3+
 * spaces outside brackets and |…| (between the sizes "T = 4   d_model = 512", a formula and its shape), else
 * the last space outside brackets and |…| and not beside an operator (a formula and a shape stay whole:
 * "var(Q) = 1.608", "(4, 512)·(512, 512)"), else the last space outside brackets, else the last space, the
 * first of these that leaves at most half the room empty, else the latest; never inside a shape "(4, 512)"
 * (shape_at), nor inside a chain of them "(4, 512) + (4, 512) → (4, 512)" that fits at indent (shape_chain_at);
 * n when it fits or has no space; when no space fits, the first space, so that only the first word is wider
 * than the room ("sin(pos/10000^(2i/d_model)),", not the rest of the line after it; av_put_lines_wrapped moves
 * it left), under a deep continuation indent too (at 40 columns "(x − mean)/√(var + ε)·γ + β per row      (4,
 * 64) → (4, 64)" under column 21, half the width, was kept whole to column 79) */
static size_t break_in(const char *line, size_t at, size_t n, int col, int width, int indent, int keep) {
    if (col + line_width(line + at, n - at) <= width) return n;
    size_t best[5] = {0, 0, 0, 0, 0}; /* a gap, a space, one before " = ", one outside brackets, any */
    size_t arrow = 0; /* the last space before a "→" outside brackets that fits */
    size_t any_arrow = 0; /* the same whatever follows the arrow (arrow is only one whose operand fits) */
    size_t before_op = 0; /* the last space outside brackets before an operator after a word that is none */
    int depth = 0, bars = 0, eqs = 0; /* eqs: the "=" passed in this clause */
    size_t shape_end = 0; /* past the ')' of the shape the scan is in, else 0 */
    size_t chain_end = 0; /* past the last chain of shapes seen (shape_chain_at), whose later shapes start none */
    for (size_t i = at; i < n; i++) {
        char ch = line[i];
        if (ch == '\033') { /* a colour escape: ESC [ … m */
            while (i + 1 < n && line[i] != 'm') i++;
            continue;
        }
        if (ch == '(' && !shape_end) {
            /* a chain of shapes that fits at the continuation indent is one shape: "X ← X + PE   (4, 512) +
             * (4, 512) → (4, 512)" broke before its result, "(4, 512) + (4, 512) →" then "(4, 512)", at 80
             * columns, where the whole chain fits on the next line */
            size_t chain = i >= chain_end ? shape_chain_at(line + i, n - i) : 0; /* not from inside one */
            if (chain) chain_end = i + chain;
            shape_end = chain && chain_fits(line, at, i, chain, n, indent, width) ? chain : shape_at(line + i, n - i);
            shape_end += shape_end ? i : 0;
        }
        if (keep && (ch == '(' || ch == '[') && !shape_end && !depth) {
            /* a bracketed vector or a formula's group that fits at the continuation indent with the word it
             * is part of ("0.5·u·(1 + tanh(…))") is one word:
             * "q_1 = Q[0, 1, :] = [ 0.3613 … -0.6109]" broke inside the vector, "-0.6109]" going on alone */
            size_t g = group_at(line + i, n - i), w = i, e = i + g; /* w..e: the word the group is part of */
            while (w > at && line[w - 1] != ' ') w--;
            while (g && e < n && line[e] != ' ') e++;
            /* or, a function's or product's group (a word around it: not a remark in brackets), that fits the
             * terminal moved left, as av_put_lines_wrapped moves a piece too wide for the room at the indent:
             * "GELU(h·W_fc + b_fc)·W_proj" (26 columns) under column 21 at 40 broke inside its brackets,
             * "GELU(h·W_fc +" then "b_fc)·W_proj" */
            size_t tail = e; /* the word's end without its punctuation: "(trained …, step 20):" is a remark */
            while (tail > i + g && strchr(",;:.", line[tail - 1])) tail--;
            int ww = g ? line_width(line + w, e - w) : 0;
            if (g && (indent + ww <= width || ((w < i || tail > i + g) && ww <= width - 2))) shape_end = i + g;
        }
        if (ch == '(' || ch == '[') depth++;
        else if ((ch == ')' || ch == ']') && depth > 0) depth--;
        else if (ch == '|') bars = !bars; /* |Σ_j A[i,j] − 1| */
        if (shape_end && i >= shape_end) shape_end = 0;
        if (shape_end) continue; /* "(4, 512)" is never broken: "(4," and "512)" say no shape */
        if (ch != ' ' || i == at || line[i - 1] == ' ') continue;
        int over = col + line_width(line + at, i - at) > width;
        if (over && best[4]) break;
        size_t prev = i; /* the word before the space */
        while (prev > at && line[prev - 1] != ' ') prev--;
        size_t next = i + strspn(line + i, " ");
        if (next >= n) break;
        int op = operator_word(line + prev) || operator_word(line + next) ||
                 strncmp(line + prev, "Σ", 2) == 0 || /* a sum keeps its term: "Σ_d q[d]·k[d]" */
                 (line[i - 1] == ':' && strchr("-0123456789", line[next])) || /* "d<256: -17.1063" */
                 name_list(line + prev, i - prev, line + next, n - next) ||
                 (next - i == 1 && noun_number(line + prev, i - prev, line + next)); /* a gap is none */
        if (!depth && !bars && !op && next - i >= 3) best[0] = i;
        if (!depth && !bars && !op) best[1] = i;
        /* a formula goes on at its next "=", not with its last number alone: "S = Q·Kᵀ/√d_k = Q·Kᵀ/√512" then
         * "= Q·Kᵀ × 0.0441942", where "0.0441942" went on alone; the first "=" of a clause (after ',', ':' or
         * a gap) keeps its name ("var(Q·Kᵀ/√d_k) = 1.134", "PE(pos,2i) = sin(…)") unless its value is the
         * piece's last word: "row sum Σ_j exp(S − max)" then "= 2.07762304", not "2.07762304" alone */
        if (keep && !depth && !bars && line[next] == '=' && line[next + 1] == ' ' &&
            (eqs || !memchr(line + next + 2, ' ', piece_end(line, next + 2, n) - (next + 2))))
            best[2] = i;
        if (keep && !depth && !bars && !over && strncmp(line + next, "→ ", 4) == 0) arrow = any_arrow = i;
        if (i - prev == 1 && line[prev] == '=') eqs++; /* past "a = b": an "=" from here goes on a chain */
        else if (!depth && (line[i - 1] == ',' || line[i - 1] == ':' || next - i >= 3)) eqs = 0;
        if (!depth && !bars) best[3] = i;
        if (!depth && !bars && operator_word(line + next) && !operator_word(line + prev)) before_op = i;
        best[4] = i;
        if (over) break; /* no space fits: the first after the word too wide for the room, which alone runs past */
    }
    /* a gap whose next piece fits whole at the continuation indent: "row max = 0.43821761   row sum Σ_j exp(S −
     * max) = 2.07762304" broke after "Σ_j" to leave no more than half the room empty */
    if (keep && best[0] && col + line_width(line + at, best[0] - at) > indent) {
        size_t from = best[0] + strspn(line + best[0], " ");
        if (indent + line_width(line + from, piece_end(line, from, n) - from) <= width) return best[0];
    }
    /* the first kind that breaks in the second half of the room (a formula at its "=" anywhere), else the
     * latest break of any kind */
    size_t last = 0;
    if (best[2]) { /* "= …" goes on only when it ends on the next line or breaks at an "=" of its own there */
        size_t from = best[2] + strspn(line + best[2], " "), end = piece_end(line, from, n), eq = end;
        for (size_t j = from + 2; j + 2 < end && eq == end; j++)
            if (line[j] == ' ' && line[j + 1] == '=' && line[j + 2] == ' ') eq = j;
        if (indent + line_width(line + from, (eq < end ? eq : end) - from) > width) best[2] = 0;
        /* a name that would be the line's one word keeps its "=", as "PE(pos,2i) =" does before "sin(…),": at 48
         * to 60 columns "PE(pos,2i+1)" went alone, then "= cos(pos/10000^(2i/d_model))" */
        else if (one_word(line, at, best[2], col, indent) && col + line_width(line + at, from + 1 - at) <= width &&
                 indent + line_width(line + from + 2, (eq < end ? eq : end) - from - 2) <= width)
            best[2] = from + 1;
    }
    if (arrow) {
        /* "→ …" goes on when it fits at the indent up to its next "→" outside brackets ("bytes → symbols" in
         * "(pre-tokenize, bytes → symbols, …)" is none), gap or end, and with the whole chain of shapes after
         * it that the next line keeps whole ("→ (4, 256) → (4, 64)": else "→" went on alone) */
        size_t from = arrow + strspn(line + arrow, " "), end = piece_end(line, from, n), to = end;
        int d = 0;
        for (size_t j = from + 4; j + 4 < end && to == end; j++) {
            if (line[j] == '(' || line[j] == '[') d++;
            else if ((line[j] == ')' || line[j] == ']') && d > 0) d--;
            else if (!d && line[j] == ' ' && strncmp(line + j + 1, "→ ", 4) == 0) to = j;
        }
        size_t chain = end > from + 4 && line[from + 4] == '(' ? shape_chain_at(line + from + 4, end - from - 4) : 0;
        if (chain && chain_fits(line, from, from + 4, chain, end, indent, width) && from + 4 + chain > to)
            to = from + 4 + chain;
        if (indent + line_width(line + from, to - from) > width) arrow = 0;
    }
    size_t cut = 0;
    for (int k = 0; k < 5 && !cut; k++) {
        /* before a plain space: the arrow of "X → Y" ("--explain: head 0, query 1 "love"" then "→ key 2
         * "deep"", where "→ key" ended the line and "2 "deep"" went on, a key from its number) */
        if (k == 1 && arrow && line_width(line + at, arrow - at) * 2 >= width - col) cut = arrow;
        else if (best[k] && (k == 2 || line_width(line + at, best[k] - at) * 2 >= width - col)) cut = best[k];
        if (best[k] > last) last = best[k];
    }
    if (!cut) cut = last ? last : n;
    /* a line ends with an operator outside brackets (but an arrow, break_in's own, and "…") only when no earlier
     * space takes it: "measured var(Q) =" then "1.608, var(K) = 1.435" (a name apart from its value) and "A·v_2
     * = 0.2042 ×" then the vector break at the last plain space instead, leaving text past the indent ("measured"
     * then "var(Q) = 1.608,"); "A[0, 1, 2] = exp(-0.857559562) /" then "2.07762304 = 0.204173729" (a quotient
     * apart from its divisor) at the space before an operator other than "=", when it goes on with its next word
     * at the indent ("/ 2.07762304 = 0.204173729", as "= 2.07762304" goes on at its "="); an "=" that no plain
     * space comes before stays ("keys =", "PE(pos,2i) =" before "sin(…)") */
    if (cut < n && cut > at) {
        size_t w = cut; /* the word the line would end with */
        while (w > at && line[w - 1] != ' ') w--;
        int opw = w > at && operator_word(line + w) && strncmp(line + w, "→ ", 4) != 0 &&
                  strncmp(line + w, "← ", 4) != 0 && strncmp(line + w, "… ", 4) != 0 && depth_at(line, at, w) == 0;
        size_t s = w; /* the space before the operator */
        while (s > at && line[s - 1] == ' ') s--;
        if (opw && best[1] && best[1] < w && col + line_width(line + at, best[1] - at) > indent) {
            cut = best[1];
            /* but not one word alone when the line can end before its "=" and the rest of the piece from the "="
             * goes on whole: at 50 columns step [8]'s "✓ every unmasked row sums to 1:" then "worst" alone, then
             * "|Σ_j A[i,j] − 1| = 2.24e-08", where "worst |Σ_j A[i,j] − 1|" and "= 2.24e-08 over 4 rows" fit */
            if (line[w] == '=' && one_word(line, at, cut, col, indent) && s > best[1] &&
                indent + line_width(line + w, piece_end(line, w, n) - w) <= width)
                cut = s;
        } else if (opw && line[w] != '=' && before_op && before_op < w &&
                 col + line_width(line + at, before_op - at) > indent) {
            /* the operator and its next word, a bracketed group in it whole ("× [ 0.4326 … 2.8909]") */
            size_t from = before_op + strspn(line + before_op, " "), to = cut + strspn(line + cut, " ");
            while (to < n && line[to] != ' ') {
                size_t g = line[to] == '(' || line[to] == '[' ? group_at(line + to, n - to) : 0;
                to += g ? g : 1;
            }
            if (indent + line_width(line + from, to - from) <= width) cut = before_op;
        } else if (strncmp(line + w, "→ ", 4) == 0 && w > at) {
            /* an arrow goes on with its operand, in brackets too: at 46 columns "(pre-tokenize, bytes →" then
             * "symbols, …" and, at 44, the --model trace's "→" alone then "(4, 10, 16) → (10, 64)" */
            if (s > at && col + line_width(line + at, s - at) > indent) cut = s;
        }
    }
    /* a line whose text would be one word goes on to the space before a later arrow that fits, the arrow starting
     * the next line: at 40 columns the --model trace's "   [1] tokenize      UTF-8" then "text → 6 token ids" */
    if (cut < n && any_arrow > cut && one_word(line, at, cut, col, indent)) cut = any_arrow;
    return cut;
}

/* break_in keeping whole what fits at the continuation indent (keep), unless that leaves the line no text past
 * the indent (" [1] tokenize" then the rest under column 19) or only an operator ("=" alone, then the vector "[
 * 0.0883 … 0.5902]" it gives at 46 columns): then as before */
static size_t break_at(const char *line, size_t at, size_t n, int col, int width, int indent) {
    size_t cut = break_in(line, at, n, col, width, indent, 1);
    if (cut < n && (col + line_width(line + at, cut - at) <= indent ||
                    (operator_word(line + at) && !memchr(line + at, ' ', cut - at))))
        cut = break_in(line, at, n, col, width, indent, 0);
    return cut;
}

/* Calls fn(row, byte, column, bytes) for each character of row[0..n) (whole grapheme clusters, colour escapes
 * as one piece of no column) with the display column it starts at; stops when fn returns nonzero */
static void each_column(const char *row, size_t n, int (*fn)(void *, size_t, int, size_t), void *ctx) {
    int c = 0;
    for (size_t i = 0, k; i < n; i += k) {
        if (row[i] == '\033') { /* ESC [ … m */
            for (k = 1; i + k < n && row[i + k - 1] != 'm'; k++) {}
            if (fn(ctx, i, -1, k)) return;
            continue;
        }
        k = av_utf8_cluster_len(row + i, n - i);
        if (!k) k = 1;
        if (fn(ctx, i, c, k)) return;
        c += av_utf8_cluster_width(row + i, k);
    }
}

/* A table's columns as its rows print them: blank[c] is 1 while column c is a space (or past the row's end)
 * in every row seen so far, AV_TABLE_COLS columns at most */
enum { AV_TABLE_COLS = 1024 };
typedef struct {
    const char *row;
    unsigned char *blank; /* AV_TABLE_COLS */
    int width;            /* columns of the widest row */
} table_scan;

static int scan_column(void *ctx, size_t i, int c, size_t k) {
    table_scan *t = ctx;
    if (c < 0) return 0;
    int w = av_utf8_cluster_width(t->row + i, k);
    if (!(k == 1 && t->row[i] == ' '))
        for (int d = 0; d < (w ? w : 1) && c + d < AV_TABLE_COLS; d++) t->blank[c + d] = 0;
    if (c + w > t->width) t->width = c + w;
    return 0;
}

/* One row written with only the columns show[] marks (those not dropped, of this block), into a buffer whose
 * trailing spaces go; a full buffer is written to f first (a row of more bytes than it holds lost its end) */
typedef struct {
    FILE *f;
    const char *row;
    const unsigned char *show;
    char *buf;
    size_t n, cap;
} table_put;

static int put_column(void *ctx, size_t i, int c, size_t k) {
    table_put *t = ctx;
    if (!(c < 0 || c >= AV_TABLE_COLS || t->show[c])) return 0;
    if (t->n + k > t->cap) fwrite(t->buf, 1, t->n, t->f), t->n = 0;
    if (k > t->cap) fwrite(t->row + i, 1, k, t->f); /* one piece larger than the buffer: as it is */
    else memcpy(t->buf + t->n, t->row + i, k), t->n += k;
    return 0;
}

/* The rows of a table, rows lines from first on, each ending at its '\n' or the text's end, to f at width columns: as
 * they are when they fit; else narrowed by dropping columns that are a space in every row, first of the
 * indent they share (the --model trace's table of layers under column 21 moves left) and then, one column
 * of each gap at a time from the left, of the gaps between cells where 3 or more spaces run in every row
 * (each gap keeps 2), until the widest row fits or no such column is left: the cells stay aligned, as
 * --explain's S/A table and the table of layers ran 75 and 77 columns wide at a 60-column terminal, which
 * wrapped each row to column 0. A table still too wide is written in blocks of its columns, as pandas prints
 * a wide frame: the first block as many whole columns as fit, each next block the first column (the rows'
 * names) and, 2 spaces on, the next columns that fit (--compare's table was 80 columns, 69 narrowed, and at
 * 60 its rows broke with "—" alone on a line). Each row ends in '\n' but the text's last, as given. Returns 0,
 * writing nothing, when strict and a block's row cannot fit (then the caller breaks each line), else 1. */
static int put_table(FILE *f, const char *first, long rows, int width, int strict) {
    unsigned char blank[AV_TABLE_COLS], drop[AV_TABLE_COLS] = {0}, show[AV_TABLE_COLS];
    memset(blank, 1, sizeof blank);
    table_scan scan = {NULL, blank, 0};
    const char *row = first;
    for (long r = 0; r < rows; r++, row += strcspn(row, "\n") + 1)
        scan.row = row, each_column(row, strcspn(row, "\n"), scan_column, &scan);
    int over = scan.width - width, cols = scan.width < AV_TABLE_COLS ? scan.width : AV_TABLE_COLS;
    if (scan.width > AV_TABLE_COLS) over = 0; /* past what blank[] holds: as it is */
    for (int c = 0; c < cols && blank[c] && over > 0; c++) drop[c] = 1, over--;
    int lead = 0; /* the indent every row shares */
    while (lead < cols && blank[lead]) lead++;
    for (int dropped = 1; over > 0 && dropped;) { /* a round: one column of each gap that keeps 3 or more */
        dropped = 0;
        for (int c = lead; c < cols && over > 0; c++) {
            if (!blank[c]) continue;
            int end = c, kept = 0; /* the gap c..end-1 and its columns not yet dropped */
            while (end < cols && blank[end]) kept += !drop[end++];
            if (kept >= 3) {
                int d = end - 1;
                while (drop[d]) d--;
                drop[d] = 1, dropped = 1, over--;
            }
            c = end;
        }
    }
    /* the columns' spans: runs of columns split at gaps of 2 or more spaces in every row */
    int start[64], stop[64], spans = 0;
    for (int c = lead; c < cols && spans < 64;) {
        int e = c;
        while (e < cols && !(blank[e] && (e + 1 >= cols || blank[e + 1]))) e++;
        start[spans] = c, stop[spans++] = e;
        c = e;
        while (c < cols && blank[c]) c++;
    }
    int block_from[64], blocks = 0; /* the first span of each block */
    if (over <= 0 || spans < 2) block_from[blocks++] = 0;
    else
        for (int sp = 0; sp < spans;) {
            int from = sp, used = 0, head = 0; /* columns taken: the first span's and 2 spaces on a later block */
            if (blocks) {
                for (int c = start[0]; c < stop[0]; c++) head += !drop[c];
                head += 2;
            }
            for (; sp < spans; sp++) {
                int w = 0;
                for (int c = sp == from ? start[sp] : stop[sp - 1]; c < stop[sp]; c++) w += !drop[c];
                if (head + used + w > width && sp > from) break;
                if (head + used + w > width && strict) return 0;
                used += w;
            }
            if (blocks == 0 && sp == 1 && spans > 1 && used + 0 > width && strict) return 0;
            block_from[blocks++] = from;
            if (blocks == 1 && from == 0 && sp == from) sp++;
        }
    char buf[4096];
    for (int b = 0; b < blocks; b++) {
        int from = block_from[b], to = b + 1 < blocks ? block_from[b + 1] : spans;
        memset(show, 0, sizeof show);
        for (int c = 0; c < cols; c++) {
            int in = blocks == 1 || (c < stop[to - 1] && (b == 0 ? c < stop[to - 1] : c >= start[from]));
            if (b > 0 && c >= lead && c < stop[0]) in = 1;
            show[c] = in && !drop[c];
        }
        if (b > 0) /* 2 spaces between the first column and this block's */
            for (int c = start[from] - 1, two = 0; c >= stop[0] && two < 2; c--)
                if (!drop[c]) show[c] = 1, two++;
        row = first;
        for (long r = 0; r < rows; r++) {
            size_t n = strcspn(row, "\n");
            table_put put = {f, row, show, buf, 0, sizeof buf};
            each_column(row, n, put_column, &put);
            while (blocks > 1 && put.n && buf[put.n - 1] == ' ') put.n--;
            fwrite(buf, 1, put.n, f);
            if (row[n] == '\n' || b + 1 < blocks) fputc('\n', f);
            row += n + (row[n] == '\n');
        }
    }
    return 1;
}

/* The colour escapes (ESC [ … m) of s[0..n) to f, without its other bytes */
static void put_escapes(FILE *f, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\033') {
            size_t e = i;
            while (e + 1 < n && s[e] != 'm') e++;
            fwrite(s + i, 1, e + 1 - i, f);
            i = e;
        }
}

/* Whether the line text[0..len) is prose from its column from on: its text (colour escapes no part) has no gap of
 * 2 or more spaces past that column (a label's gap before it, "  heads      each head ...", is no part) */
static int prose_from(const char *text, size_t len, int from) {
    char line[4096];
    size_t n = strip_escapes(text, len, line, sizeof line), i = 0;
    while (i < n && (line[i] == ' ' || line_width(line, i) < from)) i++;
    return !strstr(line + i, "  ");
}

/* The line at line[0..*n) joined with the lines after it that go on its sentence, when it is wider than width
 * and would be broken: a line that ends with ',', ';' or a lower-case letter, of prose past its indent, and a
 * next line of prose at that indent that begins with a lower-case letter ("  (over the 4 real query rows of
 * every head; a higher max weight and lower entropy mean sharper," then "  more one-hot rows; ...", broken as
 * they were written at 50 columns, left "sharper," alone on a line); each joined line's leading spaces become
 * one space. Returns the joined text (malloc'ed, NUL-terminated; *n its length, *end the newline after its last
 * line or NULL), or NULL when no line goes on it (or out of memory). */
static char *joined_lines(const char *line, size_t *n, const char **end, int indent, int width) {
    char *out = NULL, last[4096];
    size_t len = *n;
    const char *cur = line; /* the line last joined */
    size_t cn = *n;
    int lead = (int)strspn(line, " ");
    if (line_width(line, *n) <= width || !prose_from(line, *n, indent > lead ? indent : lead)) return NULL;
    while (*end) {
        size_t k = strip_escapes(cur, cn, last, sizeof last);
        if (!k || !(last[k - 1] == ',' || last[k - 1] == ';' || islower((unsigned char)last[k - 1]))) break;
        const char *nx = *end + 1;
        size_t nn = strcspn(nx, "\n"), nl = strspn(nx, " ");
        if ((int)nl != indent || nl >= nn || !islower((unsigned char)nx[nl]) || !prose_from(nx, nn, indent) ||
            table_row(nx, nn))
            break;
        char *grown = realloc(out, len + 1 + (nn - nl) + 1);
        if (!grown) {
            free(out);
            return NULL;
        }
        if (!out) memcpy(grown, line, len);
        out = grown;
        out[len++] = ' ';
        memcpy(out + len, nx + nl, nn - nl);
        len += nn - nl;
        out[len] = 0;
        cur = nx, cn = nn;
        *end = nx[nn] == '\n' ? nx + nn : NULL;
    }
    if (out) *n = len;
    return out;
}

/* Where the line plain[a..m) breaks, after col columns (break_at), unless that leaves a widow: the rest is one
 * word, which a typesetter does not leave alone on the last line when the line before can give it a companion
 * ("every sum in" then "double" at 56 columns, "... blind to word" then "order" at 60): then the line breaks
 * where break_at would in a room one column shorter than its piece, when the rest from there fits at the indent
 * and the line keeps text past it */
static size_t line_cut(const char *plain, size_t a, size_t m, int col, int width, int indent) {
    size_t cut = break_at(plain, a, m, col, width, indent);
    if (cut < m && cut > a) {
        size_t r = cut + strspn(plain + cut, " ");
        int lw = line_width(plain + a, cut - a);
        if (r < m && !memchr(plain + r, ' ', m - r) && lw > 1) {
            size_t c2 = break_at(plain, a, m, col, col + lw - 1, indent), r2 = c2;
            while (r2 < m && plain[r2] == ' ') r2++;
            /* but not a name alone before its "= …" ("PE(pos,2i+1)" then "= cos(…)": break_in keeps the "=" with
             * a name that would be a line's one word); a word alone before other text the orphan rule of
             * av_put_lines_wrapped mends, giving it the line before's last word */
            if (c2 > a && c2 < cut && col + line_width(plain + a, c2 - a) > indent &&
                !(one_word(plain, a, c2, col, indent) && plain[r2] == '=' && plain[r2 + 1] == ' ') &&
                indent + line_width(plain + r2, m - r2) <= width)
                cut = c2;
        }
    }
    return cut;
}

void av_put_lines_wrapped(FILE *f, const char *text, int width) {
    int above = 2; /* the indent of the line before (of a table's, 2) */
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line), at = 0;
        int indent = continuation_indent(line, n), col = 0, lead = (int)strspn(line, " ");
        int text_w = line_width(line + lead, n - lead);
        if (width > 0 && table_row(line, n) == 1) { /* the rows of a table together (a matrix's stay whole) */
            long rows = 0;
            const char *r = line;
            while (*r && table_row(r, strcspn(r, "\n")) == 1) {
                r += strcspn(r, "\n");
                r += *r == '\n', rows++;
            }
            put_table(f, line, rows, width, 0);
            line = r;
            continue;
        }
        if (width > 0 && end && table_row(line, n) == 0) { /* rows aligned as a table's with fewer gaps */
            long rows = 1;
            const char *r = end + 1, *prev = line;
            while (*r && aligned_rows(prev, strcspn(prev, "\n"), r, strcspn(r, "\n"))) {
                prev = r, rows++;
                r += strcspn(r, "\n");
                r += *r == '\n';
            }
            if (rows >= 3 && put_table(f, line, rows, width, 1)) {
                line = r;
                continue;
            }
        }
        const char *src = line; /* the text to write: the line, or it and the lines that go on its sentence */
        const char *next = end ? end + 1 : line + n;
        char *joined = width > 0 ? joined_lines(line, &n, &end, indent, width) : NULL;
        if (joined) src = joined, next = end ? end + 1 : next + strlen(next), text_w = line_width(src + lead, n - lead);
        if (width <= 0 || table_row(src, n)) at = n, fwrite(src, 1, n, f);
        else if (lead > width / 3 && lead > 22 && lead + text_w > width && text_w <= width - 2) {
            /* --explain's "= [ 0.1531 … 0.5147]" under "A·v_3 = …" at column 40: moved left whole, not broken; a
             * line under a step's text (columns 19 to 22, the --model trace's notes) goes on under it instead */
            fprintf(f, "%*s", width - text_w, "");
            fwrite(src + lead, 1, n - lead, f);
            at = n;
        } else if (lead > width / 3 && lead > 22 && lead + text_w > width) {
            /* too wide for the room even moved left: at the indent of the line it hangs under, and broken there
             * (at 40 columns "= [ 0.0883 … 0.5902]", 47 columns, kept its indent of 40 and ran to column 87,
             * which the terminal wrapped to column 0) */
            indent = above < lead ? above : 2;
            fprintf(f, "%*s", indent, "");
            at = (size_t)lead, col = indent;
        }
        /* the breaks are found in the line without its colour escapes (plain[], pos[k] the byte of line that
         * plain[k] is), so that colour moves no break: " [1.1] ln_1" and its bold's end, then " h =", counted the
         * space after the escape as a break of its own and at 40 columns put the label alone on its line, where
         * --color never gives " [1.1] ln_1          h =" */
        char *plain = at < n ? malloc(n + 1) : NULL;
        size_t *pos = plain ? malloc((n + 1) * sizeof *pos) : NULL, m = 0;
        if (at < n && !pos) { /* out of memory: the line as it is */
            fwrite(src + at, 1, n - at, f);
            at = n;
        }
        for (size_t i = 0; pos && i < n; i++) {
            if (src[i] == '\033') { /* ESC [ … m */
                while (i + 1 < n && src[i] != 'm') i++;
                continue;
            }
            pos[m] = i, plain[m++] = src[i];
        }
        if (pos) plain[m] = 0, pos[m] = n;
        /* at is 0 or the line's leading spaces, which hold no escape: the same byte in plain */
        for (size_t a = at, from = at; pos && a < m; ) { /* from: the byte of line the next piece starts at */
            size_t cut = line_cut(plain, a, m, col, width, indent);
            if (cut < m && cut > a) {
                /* an orphan: the next line would be one word between two of text ("head h takes", "columns",
                 * "h·16 … h·16+15" at 40 columns, the widow's break of the next line leaving it): the line
                 * gives it its last word, breaking where break_at would in a room one column shorter, when it
                 * is then no word alone itself and the next line ends where it did, so that the lines after it
                 * stay as they were ("(pre-tokenize," starting a line is a remark's start, no orphan) */
                size_t r = cut + strspn(plain + cut, " "), c3 = line_cut(plain, r, m, indent, width, indent);
                int lw = line_width(plain + a, cut - a);
                if (c3 < m && one_word(plain, r, c3, indent, indent) && !strchr("([", plain[r]) && lw > 1) {
                    size_t c2 = break_at(plain, a, m, col, col + lw - 1, indent), r2 = c2;
                    while (r2 < m && plain[r2] == ' ') r2++;
                    if (c2 > a && c2 < cut && !one_word(plain, a, c2, col, indent) &&
                        col + line_width(plain + a, c2 - a) > indent &&
                        line_cut(plain, r2, m, indent, width, indent) == c3)
                        cut = c2;
                }
            }
            if (a > at) {
                /* a piece too wide for the room at the indent but not for the terminal moves left to end at its
                 * last column, as a line under a deep indent does ("(x − mean)/√(var + ε)·γ", 23 columns, under
                 * column 21 of a 40-column terminal ran to column 44, where the terminal wrapped it) */
                int w = line_width(plain + a, cut - a);
                fprintf(f, "%*s", indent + w > width && w <= width - 2 ? width - w : indent, "");
                put_escapes(f, src + from, pos[a] - from); /* those among the spaces the break took */
                from = pos[a];
            }
            fwrite(src + from, 1, pos[cut] - from, f);
            from = pos[cut];
            a = cut + strspn(plain + cut, " ");
            if (a > m) a = m;
            if (a < m) fputc('\n', f), col = indent;
            else put_escapes(f, src + from, n - from); /* those after the line's last text: its colour's end */
        }
        free(plain);
        free(pos);
        if (end) fputc('\n', f);
        above = lead;
        line = next;
        free(joined);
    }
}

FILE *av_term_wrap_begin(av_term_wrap *w, FILE *f) {
    int fd = fileno(f);
    *w = (av_term_wrap){f, NULL, NULL, 0, 0};
    if (fd < 0 || !isatty(fd)) return f;
    w->width = av_term_width_of(fd);
    if (w->width < AV_WRAP_MIN) w->width = AV_WRAP_MIN;
    fflush(f);
    w->mem = open_memstream(&w->text, &w->len);
    return w->mem ? w->mem : f;
}

void av_term_wrap_end(av_term_wrap *w) {
    if (!w->mem) return;
    if (fclose(w->mem) == 0 && w->text) av_put_lines_wrapped(w->to, w->text, w->width);
    else if (w->text) fputs(w->text, w->to);
    free(w->text);
    w->mem = NULL, w->text = NULL;
}
