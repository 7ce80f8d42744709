/* tensorio.c - the command's tensors on disk (see tensorio.h). */
#include "app/tensorio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/assets.h"
#include "app/cli.h"
#include "app/term.h"
#include "base/utf8.h"
#include "io/fileio.h"
#include "io/npy.h"

#include <zlib.h>

void av_written_add(av_written *w, const char *path) {
    if (w->n >= AV_MAX_WRITTEN) return;
    char *copy = strdup(path);
    if (copy) w->paths[w->n++] = copy;
}

void av_written_print(FILE *f, const av_written *w) {
    if (!w->n) return;
    fprintf(f, "\nwrote %d file%s:\n", w->n, w->n == 1 ? "" : "s");
    char shown[8192]; /* every control character of -o shown, a line break too: `-o $'nl\nx'` printed "  nl" and
                       * "x/head0.png" as two lines, two files to a reader or a script (a tester's pass) */
    for (int i = 0; i < w->n; i++) {
        av_utf8_shown_name(w->paths[i], shown, sizeof shown);
        av_message(f, "  %s\n", shown);
    }
}

void av_written_free(av_written *w) {
    for (int i = 0; i < w->n; i++) free(w->paths[i]);
    w->n = 0;
}

/* The likeliest legacy encoding of text that is not UTF-8, by iconv's name
 * (GBK, BIG5, SHIFT_JIS, LATIN1), from the bytes alone: Latin-1 when no two
 * bytes past ASCII stand together (é in "café"; a CJK character is two such
 * bytes); else the first of GBK, Big5, Shift_JIS whose double-byte grammar
 * takes every byte (GBK: lead 0x81-0xFE, trail 0x40-0xFE but 0x7F; Big5: lead
 * 0xA1-0xF9, trail 0x40-0x7E or 0xA1-0xFE; Shift_JIS: 0xA1-0xDF alone, lead
 * 0x81-0x9F or 0xE0-0xFC, trail 0x40-0xFC but 0x7F), where GBK comes first
 * only when every pair is GB2312's (lead and trail 0xA1-0xFE, as Notepad's
 * Chinese is; a trail byte below 0xA1 is Big5's or Shift_JIS's). A guess, as
 * chardet's is: the message names the others too. */
static const char *likely_encoding(const unsigned char *u, size_t len) {
    int pair = 0;
    for (size_t i = 0; i + 1 < len && !pair; i++) pair = u[i] >= 0x80 && u[i + 1] >= 0x80;
    if (!pair) return "LATIN1";
    int gbk = 1, gb2312 = 1, big5 = 1, sjis = 1;
    for (size_t i = 0; i < len && gbk; i++) /* GBK; GB2312 within it */
        if (u[i] >= 0x81 && u[i] <= 0xFE && i + 1 < len && u[i + 1] >= 0x40 && u[i + 1] <= 0xFE && u[i + 1] != 0x7F) {
            gb2312 &= u[i] >= 0xA1 && u[i + 1] >= 0xA1;
            i++;
        } else gbk = u[i] < 0x80 || u[i] == 0x80; /* 0x80: CP936's euro sign */
    for (size_t i = 0; i < len && big5; i++)
        if (u[i] >= 0xA1 && u[i] <= 0xF9 && i + 1 < len &&
            ((u[i + 1] >= 0x40 && u[i + 1] <= 0x7E) || (u[i + 1] >= 0xA1 && u[i + 1] <= 0xFE)))
            i++;
        else big5 = u[i] < 0x80;
    for (size_t i = 0; i < len && sjis; i++)
        if (((u[i] >= 0x81 && u[i] <= 0x9F) || (u[i] >= 0xE0 && u[i] <= 0xFC)) && i + 1 < len && u[i + 1] >= 0x40 &&
            u[i + 1] <= 0xFC && u[i + 1] != 0x7F)
            i++;
        else sjis = u[i] < 0x80 || (u[i] >= 0xA1 && u[i] <= 0xDF);
    return gbk && gb2312 ? "GBK" : big5 ? "BIG5" : sjis ? "SHIFT_JIS" : gbk ? "GBK" : "LATIN1";
}

/* The command that converts the input from enc and runs attnviz on it, as
 * typed: "iconv -f ENC -t UTF-8 FILE | attnviz -f -" for -f FILE (file: its
 * quoted name) and for standard input redirected from a file that is still
 * there (its name from /proc/self/fd/0, quoted by av_shell_word), else iconv
 * in the pipe: "... | iconv -f ENC -t UTF-8 | attnviz -f -". "iconv -f ENC
 * -t UTF-8 | attnviz -f -" gave iconv no input: it waited at a terminal (a
 * tester's pass). */
static void iconv_command(char *buf, size_t n, const char *enc, int named, const char *file) {
    char path[4096], word[120] = "";
    struct stat st, at;
    ssize_t k;
    if (named) snprintf(word, sizeof word, "%s", file);
    else if (!fstat(STDIN_FILENO, &st) && S_ISREG(st.st_mode) &&
             (k = readlink("/proc/self/fd/0", path, sizeof path - 1)) > 0 && (path[k] = 0, path[0] == '/') &&
             !stat(path, &at) && at.st_dev == st.st_dev && at.st_ino == st.st_ino) /* not a deleted here-document */
        av_shell_word(word, sizeof word, path);
    if (*word) snprintf(buf, n, "iconv -f %s -t UTF-8 %s | attnviz -f -", enc, word);
    else snprintf(buf, n, "... | iconv -f %s -t UTF-8 | attnviz -f -", enc);
}

/* The sentence's bytes are UTF-8, or an error that says what to do: a text
 * saved in another encoding (GBK, as Windows Notepad saves Chinese; Big5;
 * Shift_JIS; Latin-1) fails at its first byte past ASCII, and a bare "invalid
 * UTF-8 at byte offset 0" told a Chinese reader nothing (a report). UTF-32
 * (FF FE 00 00, 00 00 FE FF) and UTF-16 (FF FE, FE FF: Windows' "Unicode")
 * are named by their byte-order marks; a file or standard input of only such
 * a mark (or a UTF-16 one and UTF-16 white space) holds no text, and says so.
 * The file's name is quoted cut to 120 bytes (av_shell_word), so a long path
 * leaves room for the advice. AV_EUSAGE. */
static av_status check_encoding(const av_options *o, const char *text, size_t len, av_err *err) {
    char file[120] = "";
    if (o->file) av_shell_word(file, sizeof file, o->file);
    const unsigned char *u = (const unsigned char *)text;
    int named = o->file && strcmp(o->file, "-"), in = o->file && !named; /* -f FILE; -f - */
    int utf32 = len >= 4 && ((u[0] == 0xFF && u[1] == 0xFE && !u[2] && !u[3]) ||
                             (!u[0] && !u[1] && u[2] == 0xFE && u[3] == 0xFF));
    if (utf32 || (len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF)))) {
        const char *enc = utf32 ? "UTF-32" : "UTF-16";
        /* only the mark, or the mark and UTF-16 line breaks or spaces (an empty file saved as "Unicode"): "convert
         * it first" gave an empty file (a Chinese-speaking learner's pass) */
        size_t mark_len = utf32 ? 4 : 2, at = mark_len;
        for (int le = u[0] == 0xFF; !utf32 && at + 1 < len; at += 2) {
            unsigned unit = le ? u[at] | (unsigned)u[at + 1] << 8 : (unsigned)u[at] << 8 | u[at + 1];
            if (unit != '\n' && unit != '\r' && unit != '\t' && unit != ' ' && unit != 0x3000) break;
        }
        if ((named || in) && (at == len || (at + 1 == len && !u[at]))) /* "\0\n" is UTF-16BE's '\n' less the
                                                                          * '\n' byte the final newline took */
            return av_fail(err, AV_EUSAGE, "%s%s holds no text (only a %s byte-order mark (0x%02X 0x%02X%s)%s); give at "
                           "least one word", named ? "-f " : "the standard input", named ? file : "", enc, u[0], u[1],
                           utf32 ? (u[0] ? " 0x00 0x00" : " 0xFE 0xFF") : "",
                           len > mark_len ? " and white space or line breaks" : "");
        char how[300], mark[32];
        iconv_command(how, sizeof how, enc, named, file);
        if (utf32) snprintf(mark, sizeof mark, "0x%02X 0x%02X 0x%02X 0x%02X", u[0], u[1], u[2], u[3]);
        else snprintf(mark, sizeof mark, "0x%02X 0x%02X", u[0], u[1]);
        return av_fail(err, AV_EUSAGE, "%s%s starts with a %s byte-order mark (%s); attnviz reads UTF-8: convert it "
                       "first, e.g. %s", named ? "-f " : in ? "the standard input" : "the text", named ? file : "", enc,
                       mark, how);
    }
    /* A NUL byte in a file: "the input contains a NUL byte at byte offset 1" named neither the file nor why, for
     * UTF-16 text saved without a byte-order mark (Python's encode("utf-16-le"), some Windows tools), whose
     * every other byte is 0 in English, and for a .docx or other binary file (a tester's pass). A --model's
     * byte-level tokenizer takes a NUL byte (GPT-2's <0x00>, id 188), as it did before this check: there only
     * text that looks like UTF-16 is refused */
    const char *nul = (named || in) ? memchr(text, 0, len) : NULL, *enc = NULL;
    if (nul) {
        size_t n = (len < 256 ? len : 256) & ~(size_t)1, zero[2] = {0, 0};
        for (size_t i = 0; i < n; i++) zero[i & 1] += !u[i];
        /* UTF-16 of Latin text: 3 in 4 bytes or more of one parity are 0, none of the other */
        enc = n >= 4 && !zero[0] && zero[1] * 8 >= n * 3 ? "UTF-16LE" /* "I\0 \0l\0" */
              : n >= 4 && !zero[1] && zero[0] * 8 >= n * 3 ? "UTF-16BE"
                                                      : NULL;
    }
    if (nul && (enc || !o->model_dir)) { /* --model "a\0b" gave [a] [<0x00>] [b] */
        char what[sizeof file + 8], how[400] = "", cmd[300]; /* "-f " FILE " is": FILE is up to 119 bytes (it was cut
                                                                 * at 60) */
        if (named) snprintf(what, sizeof what, "-f %s is", file);
        else snprintf(what, sizeof what, "the standard input is");
        if (enc) {
            iconv_command(cmd, sizeof cmd, enc, named, file);
            snprintf(how, sizeof how, "; it looks like %s text without a byte-order mark: convert it first, e.g. %s",
                     enc, cmd);
        }
        else snprintf(how, sizeof how, "; a word-processor or other binary file (.docx, .pdf) holds NUL bytes: save "
                      "the text as plain UTF-8 text first");
        return av_fail(err, AV_EUSAGE, "%s not plain UTF-8 text: the input contains a NUL byte at byte offset %zu%s",
                       what, (size_t)(nul - text), how);
    }
    av_err u8 = {{0}};
    if (!av_utf8_check(text, len, &u8)) return AV_OK;
    /* the likeliest encoding's command, runnable as typed, and the others' names: "e.g. iconv -f GBK" alone was
     * followed for a Big5 file (學習 became 厩策) and a Shift_JIS one, with no error (a Chinese-speaking learner's
     * pass), and "iconv -f ENC ... | attnviz -f -" ran nothing as typed (a tester's pass) */
    if (named || in) {
        static const char *const kEnc[][2] = {{"GBK", "Simplified Chinese"}, {"BIG5", "Traditional Chinese"},
                                              {"SHIFT_JIS", "Japanese"}, {"LATIN1", "Western European"}};
        const char *guess = likely_encoding(u, len), *name = "";
        char cmd[300], others[160] = "";
        for (int i = 0; i < 4; i++) {
            if (!strcmp(kEnc[i][0], guess)) name = kEnc[i][1];
            else snprintf(others + strlen(others), sizeof others - strlen(others), "%s%s (%s)", *others ? ", " : "",
                          kEnc[i][0], kEnc[i][1]);
        }
        iconv_command(cmd, sizeof cmd, guess, named, file);
        return av_fail(err, AV_EUSAGE, "%s%s is not UTF-8: %s; if it is %s (%s), convert it with: %s (another "
                       "encoding: put its name for %s: %s)", named ? "-f " : "the standard input", named ? file : "",
                       u8.msg, guess, name, cmd, guess, others); /* the file (119 bytes) twice fits msg's 2048 */
    }
    return av_fail(err, AV_EUSAGE, "the text is not UTF-8: %s; a terminal in another encoding (GBK, Big5) sends such "
                   "bytes: switch it to UTF-8 (e.g. LANG=zh_CN.UTF-8), or save the text as UTF-8 and use -f FILE", u8.msg);
}

av_status av_read_sentence(const av_options *o, char **text, size_t *len, av_err *err) {
    *text = NULL;
    *len = 0;
    if (o->file) {
        /* `attnviz --no-plot -` at a terminal waited for the text without a word, as if it had hung (a tester's
         * report); a pipe or a file needs no prompt */
        if (!strcmp(o->file, "-") && isatty(STDIN_FILENO))
            fprintf(stderr, "attnviz: reading the sentence from the terminal; end it with Ctrl-D on a line of its own\n");
        av_status st = av_read_file(o->file, AV_MAX_INPUT_BYTES, text, len, err);
        /* "cannot read 'nonexist': No such file or directory" named no option, while --attn-mask's and --weights'
         * do (a tester's report): av_read_file's errors are -f's, when -f was typed (a lone "-" is the text read
         * from standard input, and `attnviz - < /` was told "-f: cannot read 'standard input'": a tester's pass) */
        const char *opt = av_option_given(o, "file") ? "-f: " : "";
        /* "input file 'big.txt' (1200001 bytes) is larger than the 1048576-byte limit": and then? */
        if (st == AV_EUSAGE && err->too_large) {
            av_err inner = *err;
            return av_fail(err, st, "%s%s; " AV_TEXT_PART_HINT, opt, inner.msg, AV_MAX_TOKENS);
        }
        if (st) {
            av_err inner = *err;
            return av_fail(err, st, "%s%s", opt, inner.msg); /* av_fail cuts at whole characters */
        }
        /* the file's final line end (LF, CR LF or a lone CR) ends its last line and is not text, as GNU tools
         * read it; any line end before it is text. Every final newline was dropped: a file "hello\n\n" gave a
         * --model the ids [31373] where the same text typed as an argument, and Hugging Face's tokenizer of
         * what Python's open() reads less its final "\n", give [31373, 198] (a tester's pass) */
        size_t raw = *len;
        if (*len >= 2 && !memcmp(*text + *len - 2, "\r\n", 2)) *len -= 2;
        else if (*len && ((*text)[*len - 1] == '\n' || (*text)[*len - 1] == '\r')) (*len)--;
        int breaks = *len < raw; /* "\n" */
        (*text)[*len] = 0;
        /* checked with its byte-order mark, so that a byte offset is the file's: "\xEF\xBB\xBFab\xFF" was told
         * "invalid UTF-8 at byte offset 2", 3 bytes before the 0xFF that od -c and cmp show at offset 5 */
        if ((st = check_encoding(o, *text, *len, err))) return st;
        int bom = *len >= 3 && !memcmp(*text, "\xEF\xBB\xBF", 3);
        if (bom) { /* one UTF-8 BOM (Notepad: "UTF-8 with BOM") */
            memmove(*text, *text + 3, *len - 3);
            *len -= 3;
            (*text)[*len] = 0;
        }
        /* then line ends as Python's open() reads a text file (universal newlines): "\r\n" and a lone "\r" are
         * "\n", after the check, whose byte offsets are the file's. A Notepad file "我爱深度学习。\r\n第二行！" gave
         * a --model the tokens [。] [<0x0D>] [↵], one more than Hugging Face's tokenizer gives the text a Python
         * program reads from that file (a Chinese-speaking learner's pass) */
        size_t w = 0;
        for (size_t r = 0; r < *len; r++) {
            if ((*text)[r] != '\r') (*text)[w++] = (*text)[r];
            else if (r + 1 == *len || (*text)[r + 1] != '\n') (*text)[w++] = '\n';
        }
        *len = w;
        (*text)[*len] = 0;
        /* a file of no text: "the sentence is empty" named neither the file nor what it held (a tester's pass); a
         * --model's tokenizer takes white space as tokens (GPT-2's " "), so there only an empty file is none */
        const char *p = *text, *end = *text + *len;
        unsigned cp;
        const char *why;
        int k, blanks = 0;
        while (p < end && !o->model_dir && (k = av_utf8_decode((const unsigned char *)p, (size_t)(end - p), &cp, &why)) > 0 &&
               (cp == '\n' || cp == '\r' || cp == '\t' || cp == '\v' || cp == '\f' ||
                av_utf8_category(cp) == AV_UC_ZS || av_utf8_category(cp) == AV_UC_ZL ||
                av_utf8_category(cp) == AV_UC_ZP)) {
            if (cp == '\n' || cp == '\r') breaks = 1;
            else blanks = 1;
            p += k;
        }
        if (p < end) return AV_OK;
        char file[120];
        av_shell_word(file, sizeof file, o->file);
        /* a file of only a byte-order mark (Notepad's empty "UTF-8 with BOM" file) was called "empty" (a
         * Chinese-speaking learner's pass) */
        return av_fail(err, AV_EUSAGE, "%s%s holds no text (%s%s); give at least one word",
                       strcmp(o->file, "-") ? "-f " : "the standard input", strcmp(o->file, "-") ? file : "",
                       bom ? "only a UTF-8 byte-order mark (0xEF 0xBB 0xBF)" : "",
                       !breaks && !blanks ? (bom ? "" : "it is empty")
                       : !blanks          ? (bom ? " and line breaks" : "only line breaks")
                       : breaks           ? (bom ? ", line breaks and white space" : "only line breaks and white space")
                                          : (bom ? " and white space" : "only white space"));
    }
    *len = o->sentence ? strlen(o->sentence) : 0;
    if (!(*text = malloc(*len + 1))) return av_fail(err, AV_ERUNTIME, "out of memory");
    if (*len) memcpy(*text, o->sentence, *len);
    (*text)[*len] = 0;
    return check_encoding(o, *text, *len, err);
}

void av_weights_random(av_weights_source *src, uint64_t seed) {
    src->kind = AV_WEIGHTS_RANDOM;
    src->random_origin = 0;
    src->x_file[0] = 0;
    snprintf(src->text, sizeof src->text, "random weights (untrained, seed %llu)", (unsigned long long)seed);
}

int av_weights_are_random(const av_weights_source *src) {
    return src->kind == AV_WEIGHTS_RANDOM || src->kind == AV_WEIGHTS_MIXED || src->random_origin;
}

/* For an X.npy of another T in a --dump folder: "; DIR/tokens.txt says X.npy is the --dump of the 3 tokens [I]
 * [love] [you]: run that sentence, or move X.npy out of DIR to run this one with its W_*.npy" (at most 8 tokens
 * named, then "..."). `--dump rt "I love you"` then `--weights rt "I love deep learning"` said only "X.npy has
 * shape (3, 512); expected (4, 512)" (a new user's pass). Nothing when DIR has no tokens.txt or it does not hold
 * rows lines (not that dump's). */
static void dumped_sentence_hint(char *out, size_t n, const char *dir, size_t rows) {
    char path[4096], *text = NULL;
    size_t len = 0;
    av_err e = {{0}};
    av_path_join(path, sizeof path, dir, "tokens.txt");
    if (access(path, F_OK) != 0 || av_read_file(path, 1 << 20, &text, &len, &e) != AV_OK) return;
    size_t lines = 0;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    if (len && text[len - 1] != '\n') lines++;
    if (lines != rows || av_utf8_check(text, len, &e) != AV_OK) { free(text); return; }
    /* each token as a message quotes a value from a file (AV_SHOWN_MIDDLE: whole up to 199 bytes, else its start
     * and end with " … "); AV_SHOWN(t, 89) kept 40 bytes with no mark, so a --dump of "Pneumonoultramicroscopic
     * silicovolcanoconiosis" (45 bytes) was named [Pneumonoultramicroscopicsilicovolcanocon]. Tokens are named
     * while they fit, then "..." */
    char toks[700] = "";
    size_t shown = 0;
    for (char *t = text; *t && shown < 8; shown++) {
        char *nl = strchr(t, '\n');
        if (nl) *nl = 0;
        size_t at = strlen(toks);
        const char *q = AV_SHOWN_MIDDLE(t);
        if (at + strlen(q) + 3 >= sizeof toks) break;
        snprintf(toks + at, sizeof toks - at, "%s[%s]", shown ? " " : "", q);
        t = nl ? nl + 1 : t + strlen(t);
    }
    free(text);
    char d[249], file[4200], f[249]; /* the folder and its tokens.txt, each one shell word (av_shown_word) */
    av_shown_word(d, sizeof d, dir);
    av_path_join(file, sizeof file, dir, "tokens.txt");
    av_shown_word(f, sizeof f, file);
    if (snprintf(out, n, "; %s says X.npy is the --dump of the %zu token%s %s%s: run that sentence, or "
                 "move X.npy out of %s to run this one with its W_*.npy", f, rows, rows == 1 ? "" : "s", toks,
                 rows > shown ? " ..." : "", d) >= (int)n)
        av_utf8_trim_cut(out); /* two long folder names: cut at a whole character, never inside one */
}

/* One of the --weights files into dst (rows, cols); a missing file keeps the
 * seeded tensor, a found one counts in *found. A float64 file with nonzero
 * values float32 stores as 0 is read, with a note on stderr
 * (av_npy_flushed_note). */
static av_status load_one(const char *dir, const char *name, float *dst, size_t rows, size_t cols,
                          int *found, av_err *err) {
    char path[4096];
    av_path_join(path, sizeof path, dir, name);
    struct stat st;
    char shown[4200]; /* path in messages as a user's path is shown, one shell word (av_shown_word) */
    if (lstat(path, &st) != 0) {
        int e = errno;
        if (e == ENOENT) return AV_OK; /* not there: keep the seeded tensor */
        av_shown_word(shown, sizeof shown, path);
        return av_fail(err, av_input_path_status(e), "cannot read %s: %s", shown, strerror(e));
    }
    if (S_ISLNK(st.st_mode) && stat(path, &st) != 0) {
        int e = errno;
        av_status dl = av_dangling_link(path, err); /* "(a broken link?)" guessed what the link says */
        if (dl) return dl;
        av_shown_word(shown, sizeof shown, path);
        return av_fail(err, av_input_path_status(e), "cannot read %s: %s (a broken link?)", shown, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        av_shown_word(shown, sizeof shown, path);
        return av_fail(err, AV_EUSAGE, "%s is not a regular file", shown);
    }
    av_npy a;
    av_status s = av_npy_read(&a, path, err);
    if (s) return s;
    size_t shape[2] = {rows, cols};
    if ((s = av_npy_expect_shape(&a, name, 2, shape, err))) {
        char inner[sizeof err->msg], hint[1240] = "";
        snprintf(inner, sizeof inner, "%s", err->msg);
        /* a file whose width is another d_model (e.g. the (8, 8) identity-d8 example run without
         * --d-model 8) says which --d-model it was made for */
        int is_x = strcmp(name, "X.npy") == 0;
        size_t width = a.ndim == 2 ? a.shape[1] : 0;
        if (width != cols && width >= 1 && width <= AV_MAX_D_MODEL && (is_x || a.shape[0] == width))
            snprintf(hint, sizeof hint, "; this file is for d_model %zu: add --d-model %zu", width, width);
        else if (is_x && width == cols && a.ndim == 2)
            dumped_sentence_hint(hint, sizeof hint, dir, a.shape[0]);
        av_shown_word(shown, 201, dir); /* one shell word of at most 200 bytes, its closers kept */
        av_fail(err, s, "--weights %s: %s (%s)%s", shown, inner,
                is_x ? "X is (T, d_model); T counts every token, <pad> included"
                     : "W_Q, W_K, W_V, W_O are (d_model, d_model), row-vector layout Q = X·W_Q",
                hint);
        av_npy_free(&a);
        return s;
    }
    memcpy(dst, a.data, rows * cols * sizeof(float));
    if (a.flushed) { /* a file of 1e-300s read as all zeros, every row of A uniform, and nothing said so */
        char note[4600];
        av_utf8_shown_name(path, shown, sizeof shown);
        av_npy_flushed_note(&a, shown, note, sizeof note);
        av_message(stderr, "attnviz: note: %s\n", note);
    }
    av_npy_free(&a);
    (*found)++;
    return AV_OK;
}

/* The five tensors --weights reads, in its order, with their sizes in floats. */
static void weight_tensors(const av_model *m, const float *data[5], size_t n[5]) {
    size_t T = (size_t)m->cfg.T, C = (size_t)m->cfg.C;
    const float *d[5] = {m->X, m->W_Q, m->W_K, m->W_V, m->W_O};
    for (int i = 0; i < 5; i++) data[i] = d[i], n[i] = i ? C * C : T * C;
}

static const char *const kWeightFiles[5] = {"X.npy", "W_Q.npy", "W_K.npy", "W_V.npy", "W_O.npy"};

/* zlib's CRC-32 of n floats as bytes (little-endian on every machine attnviz builds for, as npy's '<f4'). */
static unsigned long crc_of(const float *x, size_t n) {
    unsigned long c = crc32(0L, Z_NULL, 0);
    const unsigned char *b = (const unsigned char *)x;
    for (size_t left = n * sizeof(float); left;) { /* crc32 takes a uInt length */
        uInt k = left > (1u << 30) ? (1u << 30) : (uInt)left;
        c = crc32(c, b, k), b += k, left -= k;
    }
    return c;
}

/* why (n bytes) = source.txt's text (s) as the trace, the titles and the next --dump's source.txt show it:
 * it went to all of them as the file held it, so an ESC in it recoloured the terminal, a byte that is not
 * UTF-8 reached stdout and the PNG's tEXt, and an RLO turned the rest of the title around (a tester's pass).
 * Each invalid byte becomes U+FFFD, each control character <U+XXXX> (av_utf8_escape_controls, as a folder
 * name is shown), and the embeddings and isolates it leaves open are closed at its end, all within n - 1
 * bytes. 0 on out of memory. */
static int tidy_source_text(const char *s, char *why, size_t n) {
    char *valid = av_utf8_replace_invalid(s);
    if (!valid) return 0;
    size_t len = strlen(valid), limit = n;
    char closers[512];
    for (;;) { /* shorter until the text and its closers fit */
        size_t cut = av_utf8_escape_controls(valid, len, why, limit, 0);
        size_t c = av_utf8_bidi_closers(why, cut, closers, sizeof closers);
        if (cut + c < n || limit <= 1) {
            snprintf(why + cut, n - cut, "%s", cut + c < n ? closers : "");
            break;
        }
        limit = cut > 8 ? cut - 8 : 1; /* cut + c >= n: fewer bytes of text, so fewer to close too */
    }
    free(valid);
    return 1;
}

/* 1 when dir/source.txt (av_dump_all) says the weights it was written with were drawn at random, wholly or
 * in part, and each of the five tensors loaded into m has the CRC-32 it lists, so they are still those
 * weights: a --dump of random weights read back was titled only "weights loaded from DIR", as if learned (a
 * figure-maker's pass). why gets what the file says ("random weights (untrained, seed 42)"). A missing or
 * other source.txt, or any changed file, gives 0: the weights are then the user's. */
static int dumped_from_random(const av_model *m, const char *dir, char *why, size_t n) {
    char path[4200], line[700];
    av_path_join(path, sizeof path, dir, "source.txt");
    /* a regular file only, opened without blocking: a FIFO named source.txt (or a link to one, or to a
     * terminal) held --weights DIR forever in fopen, waiting for a writer (a tester's pass); anything else
     * is not a --dump's, so the weights are the user's */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
    if (!f) {
        close(fd);
        return 0;
    }
    int ok = fgets(line, sizeof line, f) && strncmp(line, "weights: ", 9) == 0 &&
             (strstr(line, "random weights (untrained, seed ") || strstr(line, " random (untrained, seed "));
    if (ok) {
        line[strcspn(line, "\r\n")] = 0; /* a CRLF from an editor too */
        ok = tidy_source_text(line + 9, why, n > 141 ? 141 : n); /* a title's worth: "X loaded from DIR; W_Q,
                                                                   * ... random (untrained, seed 42)" */
    }
    const float *data[5];
    size_t sizes[5];
    weight_tensors(m, data, sizes);
    for (int i = 0; ok && i < 5; i++) {
        char name[16];
        unsigned long crc;
        ok = fgets(line, sizeof line, f) && sscanf(line, "%15s crc32 %lx", name, &crc) == 2 &&
             strcmp(name, kWeightFiles[i]) == 0 && crc == crc_of(data[i], sizes[i]);
    }
    fclose(f);
    return ok;
}

/* A file in a --weights folder that attnviz reads or --dump writes: nothing to say about it. */
static int weights_dir_known(const char *name) {
    static const char *const kKnown[] = {"X.npy", "W_Q.npy", "W_K.npy", "W_V.npy", "W_O.npy", "PE.npy", "Q.npy",
                                         "K.npy", "V.npy", "scores.npy", "weights.npy", "context.npy", "output.npy",
                                         "mask.npy", "token_ids.npy", "attn.npy", "hidden.npy", "logits.npy"};
    for (size_t i = 0; i < sizeof kKnown / sizeof kKnown[0]; i++)
        if (strcmp(name, kKnown[i]) == 0) return 1;
    return 0;
}

/* The weight file a learner's name stands for, ignoring case, '_' and '-' ("w_k.npy", "Wk.npy", "W_q.npy",
 * "x.npy"), or NULL. */
static const char *weights_dir_meant(const char *name) {
    static const char *const kKey[] = {"x", "wq", "wk", "wv", "wo"}; /* kWeightFiles' names, folded */
    size_t len = strlen(name);
    if (len < 5 || strcasecmp(name + len - 4, ".npy") != 0) return NULL;
    char key[16];
    size_t k = 0;
    for (size_t i = 0; i + 4 < len; i++) {
        if (name[i] == '_' || name[i] == '-') continue;
        if (k + 1 >= sizeof key) return NULL;
        key[k++] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    }
    key[k] = 0;
    for (int i = 0; i < 5; i++)
        if (strcmp(key, kKey[i]) == 0) return kWeightFiles[i];
    return NULL;
}

/* A name that holds a bias: anything with "bias" in it ("in_proj_bias.npy", "W_q_bias.npy"), or b, then
 * an optional '_' or '-', then q, k, v or o, then ".npy" ("b_Q.npy", "bq.npy"), in any case. */
static int weights_dir_bias(const char *name) {
    char low[256];
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof low; n++) low[n] = (char)(name[n] >= 'A' && name[n] <= 'Z' ? name[n] + 32 : name[n]);
    low[n] = 0;
    if (strstr(low, "bias")) return 1;
    if (low[0] != 'b') return 0;
    const char *p = low + 1;
    if (*p == '_' || *p == '-') p++;
    return *p && strchr("qkvo", *p) && strcmp(p + 1, ".npy") == 0;
}

/* byte order, whatever the locale, so the note reads the same everywhere */
static int by_bytes(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

/* The .npy, .npz, .pt, .pth and .safetensors files of a --weights folder that attnviz does not read, said
 * so a learner whose "w_k.npy" or "b_q.npy" was passed over silently knows why the numbers differ:
 * "b_q.npy, w_k.npy (W_K.npy?); names are case-sensitive; attnviz has no biases ...". Empty when there
 * are none. At most 6 are named, then "and N more". */
static void weights_dir_unread(const char *dir, char *out, size_t cap, char *hints, size_t hcap) {
    out[0] = hints[0] = 0;
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, by_bytes);
    if (n < 0) return;
    int named = 0, more = 0, misnamed = 0, bias = 0, other = 0;
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name, *dot = strrchr(name, '.');
        int ours = dot && (strcasecmp(dot, ".npy") == 0 || strcasecmp(dot, ".npz") == 0 ||
                           strcasecmp(dot, ".pt") == 0 || strcasecmp(dot, ".pth") == 0 ||
                           strcasecmp(dot, ".safetensors") == 0);
        if (ours && !weights_dir_known(name)) {
            const char *meant = weights_dir_meant(name);
            if (meant) { /* "w_k.npy" beside the W_K.npy that was read: no "(W_K.npy?)", no case hint */
                char path[4200];
                struct stat mst;
                av_path_join(path, sizeof path, dir, meant);
                if (stat(path, &mst) == 0) meant = NULL;
            }
            misnamed += meant != NULL;
            bias += !meant && weights_dir_bias(name);
            other += strcasecmp(dot, ".npy") != 0;
            if (named == 6) more++;
            else {
                char q[160];
                av_utf8_shown_name(name, q, 148); /* 100 bytes, and its closers */
                size_t used = strlen(out);
                snprintf(out + used, cap - used, "%s%s%s%s%s", named ? ", " : "", q, meant ? " (" : "",
                         meant ? meant : "", meant ? "?)" : "");
                named++;
            }
        }
        free(list[i]);
    }
    free(list);
    size_t used = strlen(out);
    if (more) snprintf(out + used, cap - used, " and %d more", more);
    used = 0;
    if (misnamed) used += (size_t)snprintf(hints + used, hcap - used, "; names are case-sensitive");
    if (bias && used < hcap)
        used += (size_t)snprintf(hints + used, hcap - used, "; attnviz has no biases (Q = X·W_Q), so a layer with "
                                 "one gives other numbers: build it with bias=False (nn.Linear's default is True)");
    if (other && used < hcap) snprintf(hints + used, hcap - used, "; only .npy files are read");
}

av_status av_weights_of_folder(const char *dir, av_status st, av_err *err) {
    if (!dir || st != AV_EUSAGE || !err->overflowed) return st;
    av_err inner = *err;
    return av_fail(err, st, "--weights %s: %s", AV_SHOWN_WORD(dir, 201), inner.msg);
}

av_status av_load_weights(av_model *m, const char *dir, av_weights_source *src, av_err *err) {
    struct stat st;
    char named[4200]; /* the folder in messages, as a user's path is shown, one shell word (av_shown_word): -w $'x\u202eq'
                       * turned the rest of "--weights 'x<RLO>q': No such file or directory" around */
    av_shown_word(named, sizeof named, dir);
    if (stat(dir, &st) != 0) { /* say where the example folder that comes with attnviz is */
        int e = errno;
        /* -w l2, l2 a link to a missing folder: "--weights l2: No such file or directory", and l2 is there */
        if ((e == ENOENT || e == ELOOP) && av_dangling_link(dir, err)) {
            av_err inner = *err;
            return av_fail(err, AV_EUSAGE, "--weights %s", inner.msg);
        }
        const char *data = av_assets_dir();
        char hint[4300] = "", example[4200];
        if (e == ENOENT && data) {
            av_path_join(example, sizeof example, data, "weights/identity-d8");
            snprintf(hint, sizeof hint, "; the example folder that comes with attnviz is %s (with --d-model 8)",
                     AV_SHOWN_WORD(example, 4200));
        }
        return av_fail(err, av_input_path_status(e), "--weights %s: %s%s", named, strerror(e), hint);
    }
    if (!S_ISDIR(st.st_mode)) { /* "--weights out/W_Q.npy": the folder that holds it is what is meant */
        const char *slash = strrchr(dir, '/');
        size_t n = strlen(dir);
        if (S_ISREG(st.st_mode) && n > 4 && strcmp(dir + n - 4, ".npy") == 0) {
            char parent[4200], pshown[4200];
            snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash == dir ? 1 : slash - dir) : 1, slash ? dir : ".");
            av_shell_word(pshown, sizeof pshown, parent);
            return av_fail(err, AV_EUSAGE, "--weights %s is a file; --weights takes the folder that holds X.npy, "
                           "W_Q.npy, W_K.npy, W_V.npy and W_O.npy: --weights %s", named, pshown);
        }
        return av_fail(err, AV_EUSAGE, "--weights %s is not a folder", named);
    }
    size_t T = (size_t)m->cfg.T, C = (size_t)m->cfg.C;
    int found = 0;
    av_status s;
    const char *const *names = kWeightFiles;
    float *dst[] = {m->X, m->W_Q, m->W_K, m->W_V, m->W_O};
    char which[2][64] = {"", ""}; /* [0] loaded, [1] left random */
    src->x_file[0] = 0;
    for (int i = 0; i < 5; i++) {
        int before = found;
        if ((s = load_one(dir, names[i], dst[i], i ? C : T, C, &found, err))) return s;
        if (i == 0 && found) av_path_join(src->x_file, sizeof src->x_file, dir, names[0]);
        char *list = which[found > before ? 0 : 1];
        snprintf(list + strlen(list), 64 - strlen(list), "%s%.*s", *list ? ", " : "", (int)strcspn(names[i], "."),
                 names[i]);
    }
    if (!found) {
        char unread[800], hints[400], path[4200];
        /* `--weights runs/reverse`, the folder --train (or Hugging Face) wrote, said "it holds
         * model.safetensors; only .npy files are read" and no way on (a Chinese-speaking learner's pass: the
         * tutorial says --weights loads trained weights); the hint comes first, so a long list never cuts it */
        struct stat cst;
        av_path_join(path, sizeof path, dir, "config.json");
        if (stat(path, &cst) == 0 && S_ISREG(cst.st_mode)) {
            char word[300];
            av_shell_word(word, sizeof word, dir);
            return av_fail(err, AV_EUSAGE, "--weights %s holds none of X.npy, W_Q.npy, W_K.npy, W_V.npy, W_O.npy; "
                           "it is a model folder (it has config.json): run it with --model %s (--weights reads one "
                           "attention layer's .npy matrices)", named, word);
        }
        weights_dir_unread(dir, unread, sizeof unread, hints, sizeof hints);
        return av_fail(err, AV_EUSAGE, "--weights %s holds none of X.npy, W_Q.npy, W_K.npy, W_V.npy, W_O.npy%s%s%s",
                       named, unread[0] ? "; it holds " : "", unread, hints);
    }
    src->kind = found == 5 ? AV_WEIGHTS_LOADED : AV_WEIGHTS_MIXED;
    snprintf(src->drawn, sizeof src->drawn, "%s", which[1]);
    unsigned long long seed = (unsigned long long)m->cfg.seed;
    char shown[449]; /* the folder as the title and the trace show it (av_utf8_shown_name): at most 400 bytes
                      * (300 beside a list), a control character as <U+001B>, and an RLO or other bidi control
                      * in its name closed after it; and without a trailing '/', '.' parts or a doubled '/'
                      * (av_path_shown), as --model shows its folder: `-w w/` (the shell's completion) titled the
                      * figures "loaded from w/", and its run id, not that of `-w w`, removed the other's files */
    char typed[4200], homed[4200]; /* and a folder in $HOME from "~/" (av_path_from_home), as the command is */
    av_path_shown(typed, sizeof typed, dir);
    av_path_from_home(homed, sizeof homed, typed);
    src->random_origin = found == 5 && dumped_from_random(m, dir, src->random_text, sizeof src->random_text);
    av_utf8_shown_name(homed, shown, found < 5 ? 349 : src->random_origin ? 400 : 449);
    if (src->random_origin)
        snprintf(src->text, sizeof src->text, "weights loaded from %.399s, as --dump wrote them from %.140s", shown,
                 src->random_text);
    else if (found == 5) snprintf(src->text, sizeof src->text, "weights loaded from %s", shown);
    else snprintf(src->text, sizeof src->text, "%s loaded from %.349s; %s random (untrained, seed %llu)", which[0],
                  shown, which[1], seed);
    return AV_OK;
}

void av_weights_note_unread(FILE *f, const char *dir, const av_weights_source *src) {
    char unread[800], hints[400];
    weights_dir_unread(dir, unread, sizeof unread, hints, sizeof hints);
    if (!unread[0]) return;
    const char *random = src->kind == AV_WEIGHTS_MIXED ? src->drawn : ""; /* "X, W_K, W_V, W_O" */
    char shown[420]; /* the folder as the trace shows it, one shell word (av_shown_word) */
    av_shown_word(shown, sizeof shown, dir);
    av_message(f, "attnviz: note: --weights %s: not read: %s (attnviz reads only X.npy, W_Q.npy, W_K.npy, W_V.npy, "
               "W_O.npy%s%s%s)%s\n", shown, unread, random[0] ? ", so " : "", random,
               random[0] ? (strchr(random, ',') ? " are random here" : " is random here") : "", hints);
}

void av_weights_note_other_tokens(FILE *f, const char *dir, av_weights_source *src, const av_tokens *toks) {
    if (!src->x_file[0]) return;
    char path[4200];
    av_path_join(path, sizeof path, dir, "tokens.txt");
    FILE *in = fopen(path, "rb");
    if (!in) return;
    char line[AV_MAX_TOKEN_BYTES * 8 + 2];
    int i = 0, differs = -1;
    for (; differs < 0 && fgets(line, sizeof line, in); i++) {
        line[strcspn(line, "\n")] = 0;
        if (i >= toks->n || strcmp(line, toks->tok[i])) differs = i;
    }
    int unread = ferror(in); /* a folder named tokens.txt, an I/O error: nothing to compare */
    fclose(in);
    if (unread || (differs < 0 && i == toks->n)) return;
    if (differs < 0) differs = i; /* tokens.txt ends first */
    /* each token as a message quotes a value from a file (AV_SHOWN_MIDDLE: whole up to 199 bytes, else its start
     * and end with " … "): a cut at 99 bytes had no mark */
    char there[1710] = "no token", here[1710] = "no token";
    if (differs < i) snprintf(there, sizeof there, "'%s'", AV_SHOWN_MIDDLE(line)); /* the line read last is token `differs` there */
    if (differs < toks->n) snprintf(here, sizeof here, "'%s'", AV_SHOWN_MIDDLE(toks->tok[differs]));
    char shown[420]; /* the folder as the trace shows it (av_utf8_shown_name) */
    av_shown_word(shown, sizeof shown, dir); /* one shell word, as every note names a folder */
    av_message(f, "attnviz: note: --weights %s: X.npy was dumped with other tokens (tokens.txt beside it has %s as "
               "token %d, this sentence %s); row i of X is used as token i's embedding, whatever the word\n", shown,
               there, differs, here);
    /* and the titles say so: the figures label X's rows with this sentence's words, and a figure of "you love I"
     * drawn from a dump of "I love you" showed I's attention under the label "you" without a word. The words
     * stay true in a --dump's source.txt of this run, whose tokens.txt holds this sentence: "X.npy was dumped
     * with other tokens ('I' as token 0, here 'we')" read there as if that folder's X.npy and tokens.txt
     * disagreed */
    size_t used = strlen(src->text);
    if (snprintf(src->text + used, sizeof src->text - used, "; X came from a dump of another sentence (%s as token %d "
                 "there, %s here)", there, differs, here) >= (int)(sizeof src->text - used))
        av_utf8_trim_cut(src->text); /* two long tokens after a long folder: cut at a whole character */
}

/* The dtypes --attn-mask takes, as its messages name them. */
#define MASK_DTYPES "bool, or uint8 with any value but 0 masked"

av_status av_load_attn_mask(av_model *m, const char *path, av_err *err) {
    av_npy a;
    size_t T = (size_t)m->cfg.T, widest = T * T * 8;
    /* a bool (T, T) mask, np.save's 128-byte header and T·T bytes, that npy would refuse whole: "--attn-mask
     * m.npy -f 20000-words.txt --no-plot" read the right 400000128-byte file and said it "is larger than the
     * 268501008-byte limit; the mask must be a bool (20000, 20000) array", the very array it was given */
    if (T * T + 128 > AV_NPY_MAX_FILE) {
        size_t most = 1, n_real = (size_t)m->cfg.n_real;
        while ((most + 1) * (most + 1) + 128 <= AV_NPY_MAX_FILE) most++;
        char padded[128] = "", pad_most[64] = "";
        if (n_real > 0 && n_real < T) {
            snprintf(padded, sizeof padded, " (the sentence's %zu and %zu <pad> of --pad-to %zu)", n_real, T - n_real, T);
            if (n_real <= most) snprintf(pad_most, sizeof pad_most, ", <pad> included: --pad-to %zu at most", most);
        }
        return av_fail(err, AV_EUSAGE, "--attn-mask takes at most %zu tokens: a bool (%zu, %zu) mask for these %zu "
                       "tokens%s is a %zu-byte .npy file, larger than the %zu-byte limit of an .npy file; give at most "
                       "%zu tokens%s, or drop --attn-mask (--causal and --pad-to need no file)", most, T, T, T, padded,
                       T * T + 128, AV_NPY_MAX_FILE, most, pad_most);
    }
    /* read no more than a (T, T) array of the widest dtype npy takes ('<f8'),
     * so a float mask of the right shape is still named by its dtype below,
     * and an endless file (/dev/zero, a pipe left open) stops there */
    if (!strcmp(path, "-") && isatty(STDIN_FILENO)) /* as the sentence's "-": no silent wait at a terminal */
        fprintf(stderr, "attnviz: reading the --attn-mask array from the terminal; it is a binary .npy file: end "
                "with Ctrl-D and redirect it instead (--attn-mask - < mask.npy) or give its path\n");
    av_status s = av_npy_read_max(&a, path, widest, err);
    if (s == AV_EUSAGE) {
        /* a content error (every one starts with the file name): say what a
         * mask must be, since npy's generic advice is about float32 arrays */
        char inner[sizeof err->msg];
        snprintf(inner, sizeof inner, "%s", err->msg);
        /* npy.c's list of what it reads names float32 and float64, which a mask is refused for below: "dtype '<i8'
         * is not supported (this reader takes float32 '<f4', ..., uint8 '|u1'); the mask must be a bool" told two
         * stories; the mask's own dtypes are said after it. Its advice after the list goes too ("; it is
         * big-endian: save it little-endian", "; it is int64: save it as float32"): it is for a float array, and a
         * mask is saved as bool, which has no byte order, as said below */
        char *reads = strstr(inner, " (this reader takes ");
        if (reads && strchr(reads, ')')) *reads = 0;
        /* no file (a link to nothing too: "l2 is a symbolic link to ..."), or stdin a folder: nothing about a mask
         * helps */
        if (strncmp(inner, "cannot read ", 12) == 0 || (strcmp(path, "-") && access(path, F_OK) != 0))
            return av_fail(err, AV_EUSAGE, "--attn-mask: %s", inner);
        if (strstr(inner, " contains -Inf at index ")) /* PyTorch's additive float attn_mask: 0 keeps, −∞ masks */
            return av_fail(err, AV_EUSAGE, "--attn-mask: %s; the mask must be a bool (%zu, %zu) array, True = "
                           "masked: an additive mask of 0 and -inf (PyTorch's float attn_mask) is saved as "
                           "np.save(path, m == -np.inf)", inner, T, T);
        return av_fail(err, AV_EUSAGE, "--attn-mask: %s; the mask must be a bool (%zu, %zu) array, True = masked "
                       "(dtype " MASK_DTYPES ": np.save(path, mask.astype(bool)); a mask where 1 means keep, as "
                       "masked_fill(mask == 0, ...) reads it, is saved as np.save(path, mask == 0))", inner, T, T);
    }
    if (s) return s;
    if (!a.bytes || a.ndim != 2 || a.shape[0] != T || a.shape[1] != T) {
        char got[64] = "(";
        for (int d = 0; d < a.ndim; d++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%zu", d ? ", " : "", a.shape[d]);
        strncat(got, a.ndim == 1 ? ",)" : ")", sizeof got - strlen(got) - 1);
        /* a float mask: the tutorials' np.tril(np.ones((T, T))) is float64 and means 1 = keep, and an additive
         * one (masked_fill(mask, -1e9), PyTorch's float attn_mask) is 0 where kept; say how each becomes a bool
         * one, True = masked, as the -inf and the other dtypes' errors do (a float mask was told only "it must
         * be bool", and mask.astype(bool) would turn both the wrong way: a reviewer's pass) */
        const char *how = "";
        if (a.data) {
            size_t n = 1, ones = 0, negative = 0, other = 0;
            for (int d = 0; d < a.ndim; d++) n *= a.shape[d];
            for (size_t i = 0; i < n; i++) {
                float v = a.data[i];
                if (v == 1.0f) ones++;
                else if (v < 0.0f) negative++;
                else if (v != 0.0f) other++;
            }
            if (!other && ones && !negative)
                how = "; a float mask of 0 and 1 is saved as np.save(path, mask == 0) where 1 means keep (np.tril(np."
                      "ones((T, T))), masked_fill(mask == 0, ...)), as np.save(path, mask == 1) where 1 means masked";
            else if (!other && !ones && negative)
                how = "; an additive mask of 0 (keep) and negative numbers (masked_fill(mask, -1e9), PyTorch's float "
                      "attn_mask) is saved as np.save(path, m < 0)";
        }
        av_fail(err, AV_EUSAGE, "--attn-mask %s has dtype %s and shape %s; it must be " MASK_DTYPES ", with shape "
                "(T, T) = (%zu, %zu)%s%s",
                AV_SHOWN_WORD(path, 1100), a.descr, got, T, T, T != (size_t)m->cfg.n_real ? " (T counts the <pad> tokens)" : "", how);
        av_npy_free(&a);
        return AV_EUSAGE;
    }
    m->user_mask = malloc(T * T);
    if (!m->user_mask) { av_npy_free(&a); return av_fail(err, AV_ERUNTIME, "out of memory"); }
    for (size_t i = 0; i < T * T; i++) m->user_mask[i] = a.bytes[i] != 0;
    m->user_mask_file = path;
    av_npy_free(&a);
    /* every query masked from its own token: what a "1 = keep" mask (the tutorials' masked_fill(mask == 0, -1e9),
     * np.tril(np.ones((T, T)))) does here, where True = masked; it was taken silently and hid the keys the learner
     * meant to keep (a learner's pass: 21 of 36 pairs) */
    size_t diag = 0;
    for (size_t i = 0; i < T; i++) diag += m->user_mask[i * T + i];
    if (T > 1 && diag == T) {
        char shown[420];
        av_shown_word(shown, sizeof shown, path);
        av_message(stderr, "attnviz: note: --attn-mask %s masks every token from itself (its diagonal is all True, "
                   "and True = masked); if 1 means keep in your code, as in masked_fill(mask == 0, -1e9), save the "
                   "opposite: np.save(path, mask == 0)\n", shown);
    }
    return AV_OK;
}



av_status av_dump_tokens(const av_tokens *toks, const char *dir, av_written *w, av_err *err) {
    char path[4096];
    av_path_join(path, sizeof path, dir, "tokens.txt");
    av_afile f;
    av_status s = av_afile_open(&f, path, err);
    if (s) return s;
    for (int i = 0; i < toks->n; i++) fprintf(f.fp, "%s\n", toks->tok[i]);
    if ((s = av_afile_commit(&f, err))) return s;
    av_written_add(w, path);
    return AV_OK;
}

void av_dump_note_leftovers(const char *dir) {
    struct dirent **list = NULL;
    int count = scandir(dir, &list, NULL, alphasort), found = 0;
    char target[256], names[512] = "";
    for (int i = 0; i < count; i++) {
        const char *name = list[i]->d_name;
        if (av_afile_leftover_name(name, target, sizeof target) == 1 &&
            (weights_dir_known(target) || !strcmp(target, "tokens.txt") || !strcmp(target, "source.txt")) &&
            found++ < 8)
            snprintf(names + strlen(names), sizeof names - strlen(names), " %s", name);
        free(list[i]);
    }
    free(list);
    char shown[4200]; /* the folder as every note shows it (av_shown_word): an RLO in it closed, one shell word */
    av_shown_word(shown, sizeof shown, dir);
    if (found)
        av_message(stderr, "attnviz: note: --dump %s holds %d temporary file%s of attnviz's, which an attnviz killed "
                   "while writing there left, or one writing there now made (--dump folders are not locked, so they "
                   "are kept; remove them when no attnviz writes there):%s%s\n", shown, found, found == 1 ? "" : "s",
                   names, found > 8 ? " ..." : "");
}

int64_t av_file_crc32(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    unsigned char buf[65536];
    unsigned long c = crc32(0L, Z_NULL, 0);
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, fp)) > 0) c = crc32(c, buf, (uInt)got);
    int bad = ferror(fp);
    fclose(fp);
    return bad ? -1 : (int64_t)c;
}

int av_dump_earlier_kind(const char *dir, int64_t crc[5], char *weights, size_t n_weights, int64_t *model_crc) {
    char path[4096], buf[8192];
    for (int i = 0; i < 5; i++) crc[i] = -1;
    if (model_crc) *model_crc = -1;
    if (weights && n_weights) weights[0] = 0;
    av_path_join(path, sizeof path, dir, "source.txt");
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = 0;
    if (strncmp(buf, "weights: ", 9) != 0) return 0; /* not a source.txt of attnviz's */
    if (weights && n_weights) snprintf(weights, n_weights, "%.*s", (int)strcspn(buf + 9, "\n"), buf + 9);
    int kind = 0;
    if (strstr(buf, "\nX.npy crc32 ")) { /* the single layer's (dump_source below) */
        for (int i = 0; i < 5; i++) {
            char key[24];
            unsigned long c;
            snprintf(key, sizeof key, "\n%s crc32 ", kWeightFiles[i]);
            const char *at = strstr(buf, key);
            if (at && sscanf(at + strlen(key), "%8lx", &c) == 1) crc[i] = (int64_t)c;
        }
        kind = 1;
    } else if (strstr(buf, "\nlayers: all ")) { /* a --model's (gpt2run.c dump_source) */
        static const char key[] = "\nmodel.safetensors crc32 "; /* a trained folder's (its weights file, whole) */
        const char *at = strstr(buf, key);
        unsigned long c;
        if (model_crc && at && sscanf(at + sizeof key - 1, "%8lx", &c) == 1) *model_crc = (int64_t)c;
        kind = 2;
    }
    if (!kind && weights && n_weights) weights[0] = 0;
    return kind;
}

/* 1 when the .npy at path holds float32 data whose CRC-32 (crc_of) is want: the file as a --dump wrote it. */
static int npy_has_crc(const char *path, int64_t want) {
    av_npy a = {0};
    av_err e = {{0}};
    int same = 0;
    if (want >= 0 && av_npy_read(&a, path, &e) == AV_OK && a.data) {
        size_t n = 1;
        for (int d = 0; d < a.ndim; d++) n *= a.shape[d];
        same = (int64_t)crc_of(a.data, n) == want;
    }
    av_npy_free(&a);
    return same;
}

av_status av_dump_remove_other(const char *dir, int model, int earlier, const int64_t earlier_crc[5], int stale_pe,
                               av_err *err) {
    /* a --model dump after a single layer's left weights.npy, Q.npy, ... of the other sentence beside the
     * model's attn.npy, and the other way round (a tester's report). Only files that an earlier dump of the
     * other kind wrote go, and a note names them: `--model DIR --dump mine` into a folder holding a learner's
     * own X.npy and W_Q.npy (the --weights folder of "Checking your own implementation", no source.txt)
     * deleted them without a word (a new user's pass) */
    static const char *const kLayerOnly[] = {"X.npy", "PE.npy", "W_Q.npy", "W_K.npy", "W_V.npy", "W_O.npy", "Q.npy",
                                             "K.npy", "V.npy", "weights.npy", "context.npy", "output.npy", "mask.npy"};
    static const char *const kModelOnly[] = {"token_ids.npy", "attn.npy", "hidden.npy", "logits.npy", "PE.npy"};
    const char *const *names = model ? kLayerOnly : kModelOnly;
    size_t n = model ? sizeof kLayerOnly / sizeof kLayerOnly[0] : sizeof kModelOnly / sizeof kModelOnly[0];
    if (!model && !stale_pe) n--; /* PE.npy: this single layer's run wrote its own */
    char path[4096], removed[256] = "", kept[256] = "", changed[256] = "";
    int n_removed = 0, n_kept = 0, n_changed = 0;
    for (size_t i = 0; i < n; i++) {
        av_path_join(path, sizeof path, dir, names[i]);
        if (access(path, F_OK) != 0) continue;
        /* a stale PE.npy is the single layer's own file: an earlier single layer's dump wrote it */
        int ours = earlier == ((model || !strcmp(names[i], "PE.npy")) ? 1 : 2);
        if (!ours) {
            snprintf(kept + strlen(kept), sizeof kept - strlen(kept), " %s", names[i]);
            n_kept++;
            continue;
        }
        /* X.npy and the W a learner edited after the dump ("any changed file makes them yours", README), which
         * --weights DIR reads as theirs: a --model dump there deleted them with the rest (a tester's pass) */
        for (int k = 0; model && k < 5; k++)
            if (!strcmp(names[i], kWeightFiles[k]) && !npy_has_crc(path, earlier_crc ? earlier_crc[k] : -1))
                ours = 0;
        if (!ours) {
            snprintf(changed + strlen(changed), sizeof changed - strlen(changed), " %s", names[i]);
            n_changed++;
            continue;
        }
        if (unlink(path) != 0 && errno != ENOENT) {
            int e = errno;
            char shown[4200]; /* as av_shown_word shows it: one shell word */
            av_shown_word(shown, sizeof shown, path);
            return av_fail(err, AV_ERUNTIME, "cannot remove the stale %s: %s", shown, strerror(e));
        }
        snprintf(removed + strlen(removed), sizeof removed - strlen(removed), " %s", names[i]);
        n_removed++;
    }
    char shown[4200]; /* the folder as every note shows it: one shell word (av_shown_word) */
    av_shown_word(shown, sizeof shown, dir);
    /* with -q too, as the figures' note: a file is never deleted without a word */
    if (n_removed)
        av_message(stderr, "attnviz: note: removed %d file%s of an earlier --dump from %s, so the folder holds one "
                   "run:%s\n", n_removed, n_removed == 1 ? "" : "s", shown, removed);
    if (n_kept)
        av_message(stderr, "attnviz: note: --dump %s also holds%s, which this run does not write and no source.txt of "
                   "an earlier attnviz --dump there accounts for; kept beside this run's files: remove %s, or use "
                   "another --dump folder\n", shown, kept, n_kept == 1 ? "it" : "them");
    if (n_changed)
        av_message(stderr, "attnviz: note: --dump %s also holds%s, which this run does not write and which changed "
                   "since the earlier attnviz --dump there wrote %s (%s float32 data's CRC-32 is not the one its "
                   "source.txt gave); kept beside this run's files: remove %s, or use another --dump folder\n", shown,
                   changed, n_changed == 1 ? "it" : "them", n_changed == 1 ? "its" : "their",
                   n_changed == 1 ? "it" : "them");
    return AV_OK;
}

/* source.txt's lines after the CRC-32s (tensorio.h av_dump_all): how the dumped tensors were computed, one
 * "key: value" line each, the value's first word what a script reads. A folder named the weights and their
 * CRC-32s only, so its positions, scale and masks could not be re-checked from it (a maintainer's list of
 * known faults). They come after the lines dumped_from_random and av_dump_earlier_kind read, which stop
 * before them, so older and newer dumps read back alike. */
static void dump_settings(FILE *fp, const av_model *m) {
    const av_config *c = &m->cfg;
    fprintf(fp, "tokens: %d (T; %d of the sentence, %d <pad>)\n", c->T, c->n_real, c->T - c->n_real);
    fprintf(fp, "d_model: %d\n", c->C);
    fprintf(fp, "heads: %d\n", c->H);
    fprintf(fp, "d_k: %d\n", m->D);
    if (c->positions == AV_POS_SINUSOIDAL)
        fprintf(fp, "positions: sinusoidal (PE.npy, base 10000, added to X before the projections)\n");
    else if (c->positions == AV_POS_ROPE)
        fprintf(fp, "positions: rope (Q.npy and K.npy are after the rotation)\n");
    else
        fprintf(fp, "positions: %s\n", av_positions_name(c->positions));
    if (c->positions == AV_POS_ROPE) {
        fprintf(fp, "rope_style: %s\n", av_rope_style_name(c->rope_style));
        fprintf(fp, "rope_base: %.17g\n", c->rope_base);
    }
    if (c->scale)
        fprintf(fp, "scale: %.17g (1/sqrt(d_k); scores.npy = Q·Kᵀ·scale)\n", 1.0 / sqrt((double)m->D));
    else
        fprintf(fp, "scale: 1 (--no-scale; scores.npy = Q·Kᵀ)\n");
    fprintf(fp, "causal: %s\n", c->causal ? "yes (key j > query i masked)" : "no");
    if (c->n_real < c->T)
        fprintf(fp, "padding: yes (keys %d..%d are <pad>, masked)\n", c->n_real, c->T - 1);
    else
        fprintf(fp, "padding: no\n");
    fprintf(fp, "attn_mask: %s\n", m->user_mask ? "yes (--attn-mask, True = masked)" : "no");
    fprintf(fp, "mask.npy: %zu masked of %zu (the masks above together, True = masked)\n", m->masked_count,
            (size_t)c->T * (size_t)c->T);
}

/* DIR/source.txt (tensorio.h av_dump_all). */
static av_status dump_source(const av_model *m, const av_weights_source *src, const char *dir, av_written *w,
                             av_err *err) {
    char path[4096];
    av_path_join(path, sizeof path, dir, "source.txt");
    av_afile f;
    av_status s = av_afile_open(&f, path, err);
    if (s) return s;
    const float *data[5];
    size_t n[5];
    weight_tensors(m, data, n);
    fprintf(f.fp, "weights: %s\n", src->random_origin ? src->random_text : src->text); /* the first origin */
    /* the CRC of the float32 data only, which is what dumped_from_random compares: the line says so, since
     * "X.npy crc32 ca5f1dbb" read as the file's CRC-32 (zlib.crc32 of the file, crc32(1)) and never matched (a
     * researcher's pass); sscanf stops before the words, so older and newer dumps read back alike */
    for (int i = 0; i < 5; i++)
        fprintf(f.fp, "%s crc32 %08lx of the float32 data after the .npy header (not of the whole file)\n",
                kWeightFiles[i], crc_of(data[i], n[i]));
    dump_settings(f.fp, m);
    if ((s = av_afile_commit(&f, err))) return s;
    av_written_add(w, path);
    return AV_OK;
}

/* av_dump_all's files, each kept in the caller's set; *stale_pe = 1 when PE.npy is not among them. */
static av_status dump_files(const av_model *m, const av_tokens *toks, const av_weights_source *src, const char *dir,
                            av_written *w, int *stale_pe, av_err *err) {
    av_status s;
    char path[4096];
    size_t T = (size_t)m->cfg.T, C = (size_t)m->cfg.C, H = (size_t)m->cfg.H, D = (size_t)m->D;

    if ((s = av_dump_tokens(toks, dir, w, err))) return s;
    if ((s = dump_source(m, src, dir, w, err))) return s;

    struct {
        const char *name;
        const float *data;
        int ndim;
        size_t shape[3];
    } items[] = {
        {"X.npy", m->X, 2, {T, C, 0}},
        {"PE.npy", m->PE, 2, {T, C, 0}},
        {"W_Q.npy", m->W_Q, 2, {C, C, 0}},
        {"W_K.npy", m->W_K, 2, {C, C, 0}},
        {"W_V.npy", m->W_V, 2, {C, C, 0}},
        {"W_O.npy", m->W_O, 2, {C, C, 0}},
        {"Q.npy", m->Q, 3, {H, T, D}},
        {"K.npy", m->K, 3, {H, T, D}},
        {"V.npy", m->V, 3, {H, T, D}},
        {"scores.npy", m->scores, 3, {H, T, T}},
        {"weights.npy", m->att, 3, {H, T, T}},
        {"context.npy", m->context, 2, {T, C, 0}},
        {"output.npy", m->out, 2, {T, C, 0}},
    };
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        if (!items[i].data) { /* PE only with sinusoidal */
            *stale_pe = 1;
            continue;
        }
        av_path_join(path, sizeof path, dir, items[i].name);
        if ((s = av_npy_write(path, items[i].data, items[i].ndim, items[i].shape, err))) return s;
        av_written_add(w, path);
    }
    av_path_join(path, sizeof path, dir, "mask.npy");
    size_t tt[2] = {T, T};
    if ((s = av_npy_write_bool(path, m->mask, 2, tt, err))) return s;
    av_written_add(w, path);
    return AV_OK;
}

av_status av_dump_all(const av_model *m, const av_tokens *toks, const av_weights_source *src, const char *dir,
                      av_written *w, av_err *err) {
    av_status s = av_mkdir_p(dir, err);
    if (s) return s;
    static av_afile_set set; /* 16 files (io/fileio.h), 160 KB: not on the stack */
    int64_t crc[5];
    int stale_pe = 0, earlier = av_dump_earlier_kind(dir, crc, NULL, 0, NULL); /* before this run's source.txt replaces it */
    av_afile_set_begin(&set);
    s = dump_files(m, toks, src, dir, w, &stale_pe, err);
    if ((s = av_dump_set_end(&set, s, err))) return s;
    /* a PE.npy left by an earlier sinusoidal dump, or a --model dump's files, would describe another run, so
     * they go, once this run's files are in place */
    return av_dump_remove_other(dir, 0, earlier, crc, stale_pe, err);
}

av_status av_dump_set_end(av_afile_set *set, av_status st, av_err *err) {
    if (st) {
        av_afile_set_end(set, 0, NULL);
        return st;
    }
    return av_afile_set_end(set, 1, err);
}
