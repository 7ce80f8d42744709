/* term.h - the terminal: ANSI styles, whether to use colour, the width in
 * columns, and text padded to a number of columns (CJK and emoji count 2).
 * Shared by the trace, teaching mode and --compare.
 */
#ifndef AV_TERM_H
#define AV_TERM_H

#include <stddef.h>
#include <stdio.h>

#include "app/cli.h"

/* ANSI SGR sequences when color is set, "" otherwise. */
const char *av_bold(int color);
const char *av_green(int color);
const char *av_yellow(int color);
const char *av_reset(int color);

/* A measured variance as the trace prints it, into buf (32 bytes): "1.608"
 * (three decimals) from 1e-3 up to 1e5 and for 0, else "7.891e+58" or
 * "3.937e-06" as var(Q·Kᵀ) is printed, so loaded weights of large values do
 * not print sixty digits and small ones do not print 0.000. Returns buf. */
const char *av_fmt_var(char *buf, double v);

/* Colour for --color WHEN on standard output: always, never, or auto = a
 * TTY, NO_COLOR unset or empty (https://no-color.org) and TERM not "dumb". */
int av_use_color(av_color when);

/* 1 if a progress line on file descriptor fd may be redrawn in place ('\r' and the escape ESC [K that
 * clears to the end of the line): fd is a TTY and TERM is not "dumb". A dumb terminal (Emacs's M-x shell,
 * some IDE consoles) shows ESC [K as text, so it gets the plain lines a pipe gets. */
int av_term_redraws(int fd);

/* Colour modes for the terminal heat-map. */
typedef enum { AV_TERM_PLAIN, AV_TERM_256, AV_TERM_TRUECOLOR } av_term_mode;

/* Plain without colour; truecolour when COLORTERM says truecolor or 24bit;
 * else the xterm 256-colour palette. */
av_term_mode av_term_mode_for(int color);

/* Columns: $COLUMNS if a positive number, else the width of the TTY on file
 * descriptor fd, else 80. av_term_width is that for stdout, where the trace goes
 * (output redirected to a file does not depend on the terminal's width). */
int av_term_width_of(int fd);
int av_term_width(void);
/* text, after col columns already printed on the line, broken at spaces into lines of at most width columns
 * (as a terminal counts them, av_utf8_width: '，' is 2), each further line indented by indent spaces; runs of
 * spaces print as one; ends with a newline. A word wider than the line is printed whole on a line of its own.
 * For --help (app/cli.c, GNU's 79 columns) and the lines around a --show table (app/teach.c). */
void av_term_wrapped(FILE *f, const char *text, int col, int width, int indent);
/* text (lines ending in '\n') to f, each line wider than width columns (av_utf8_width, colour escapes taking
 * none) broken at spaces, its further lines indented to where its text begins after a trace label ("  weights
 * ": 13, " [4] project       ": 19, the --model trace's "   [1] tokenize      ": 21) or to its own indent, 2
 * under a title or header at column 0 ("--compare order: swap token 0 "I" and token 2" then "  "you" (same …)").
 * Breaks fall outside brackets and beside no operator when they can (a shape "(4, 512)·(512, 512)" and
 * "var(Q) = 1.608" stay whole; so does a chain of shapes "(4, 512) + (4, 512) → (4, 512)" that fits at the
 * continuation indent; a sum keeps its term, "Σ_d q[d]·k[d]"). A line ends with an operator outside brackets,
 * "→" and "…" aside, only when no earlier space takes it: at the last plain space that leaves text past the
 * indent ("measured" then "var(Q) = 1.608,", not "measured var(Q) =" then "1.608,"; but not a word alone when the line can
 * end before that "=" and the rest from it goes on whole: "worst |Σ_j A[i,j] − 1|" then "= 2.24e-08 over 4 rows"), else before an operator
 * other than "=" that goes on with its next word ("exp(-0.857559562)" then "/ 2.07762304"). What fits whole at the continuation indent goes there whole: a bracketed group with its
 * word ("[ 0.3613 … -0.6109]", "exp(S − max)"), the piece after a gap of 3+ spaces ("row sum Σ_j exp(S − max) =
 * 2.07762304"), and the rest of a chain of "=" from its next "=" ("= Q·Kᵀ × 0.0441942"; so a value that would end
 * the line alone: "= 2.07762304"); so does the rest from a "→" outside brackets, before a plain space after it
 * ("--explain: head 0, query 1 "love"" then "→ key 2 "deep"", not "→ key" then "2 "deep""; "(4, 512) → (4, 1,
 * 512)" then "→ (1, 4, 512)"), when it fits to its next "→" and with a chain of shapes after it;
 * and from any later "→" that fits on the line when the line's text would else be one word ("   [1] tokenize
 * UTF-8 text" then "→ 6 token ids", not "UTF-8" alone). A line whose indent is past a third of width (and 22
 * columns) and whose text fits is moved left whole; one whose text does
 * not fit goes on at the indent of the line before it, broken there (--explain's "= [ 0.0883 … 0.5902]" under
 * column 40 at a 40-column terminal). A further line's piece too wide for the room at its indent (a word, or a
 * formula with no break outside its brackets) that fits in width - 2 is moved left to end at the last column:
 * "(x − mean)/√(var + ε)·γ", 23 columns, under column 21 at 40 columns starts at column 17. A table's rows
 * (4 or more gaps of 3+ spaces, 3 or more under a step's text at an indent of 19 or more) are never broken:
 * wider than width, a run of them is narrowed together by dropping columns that are a space in every row, of
 * their shared indent first and then of the gaps between cells (each keeps 2), so the cells stay aligned (--explain's S/A table, 75 columns, is
 * 60 at a 60-column terminal). A matrix's row ('[' then ' ', '-' or '[') and, with width ≤ 0, every line are
 * written as they are. A word that would stand alone on a line between two of text (an orphan: "head h takes",
 * "columns", "h·16 … h·16+15" at 40 columns) takes the last word of the line before when that line is then no
 * word alone and the next one ends where it did ("head h", "takes columns"). Colour escapes move no break: a line
 * breaks where it does without them, each escape
 * written with the piece it is in, one among the spaces a break takes at the start of the next line's text
 * (after its indent) and one after the line's last text at its end. No errors (f's own; out of memory, a line
 * that needs breaking is written as it is). */
void av_put_lines_wrapped(FILE *f, const char *text, int width);

/* Printing to a terminal at its width (the trace, --explain, --compare: lines of up to 190 columns ran past an
 * 80-column terminal, which wrapped them to column 0). av_term_wrap_begin returns the stream to print into:
 * f itself when f is no terminal (a file or a pipe gets the lines whole, the same on every machine), else a
 * memory stream; av_term_wrap_end writes what it holds to f by av_put_lines_wrapped at av_term_width_of(f)
 * columns, AV_WRAP_MIN at least (f itself when out of memory). */
enum { AV_WRAP_MIN = 40 };
typedef struct {
    FILE *to, *mem;
    char *text;
    size_t len;
    int width;
} av_term_wrap;
FILE *av_term_wrap_begin(av_term_wrap *w, FILE *f);
void av_term_wrap_end(av_term_wrap *w);

/* Where a width of `width` columns (av_term_width's) came from, for a note
 * that gives it, into buf (n bytes, cut to fit) and returned: "the terminal
 * is 60 columns wide" ($COLUMNS, or standard output's TTY), or, when standard
 * output is no terminal and $COLUMNS is unset, that 80 columns were assumed
 * and how to give more (`attnviz --show ... | less -R` has no terminal
 * width to read: bash does not export COLUMNS). No errors. */
const char *av_term_width_said(char *buf, size_t n, int width);

/* Print s padded (or cut with "…") to exactly w terminal columns, counting
 * columns as base/utf8.h does and never splitting a grapheme cluster. */
void av_put_width(FILE *f, const char *s, int w, int right_align);

/* Print len bytes of s in double quotes, so a leading or trailing space
 * shows (--generate's text). Escaped: the quote and the backslash (\" and
 * \\), newline, tab and carriage return (\n \t \r), other C0 controls and DEL
 * (\xHH), C1 controls U+0080..U+009F (\uHHHH), and bytes that are not valid
 * UTF-8 (\xHH: a token can end inside a character); the rest of UTF-8 as is.
 * E.g. the 5 bytes ' a"b<newline>' print as " a\"b\n" in quotes. */
void av_print_quoted(FILE *f, const char *s, size_t len);

/* Seconds on the monotonic clock (POSIX CLOCK_MONOTONIC), for durations. */
double av_now_seconds(void);

/* The time estimate of a run of `total` steps of which `done` took elapsed_s
 * seconds, as tqdm prints it: "elapsed<remaining, rate", e.g. "00:10<27:46:30,
 * 10.00 steps/s". The rate is the mean so far, done / elapsed_s (below one
 * step a second its inverse, "25.17 s/step"); remaining = (total - done) /
 * rate; times are whole seconds (cut, not rounded), MM:SS or H:MM:SS from an
 * hour (tqdm's format_interval). buf is "" when done < 1 or elapsed_s <= 0. */
void av_format_eta(char *buf, size_t n, double elapsed_s, long done, long total);
/* The same in another unit (singular): "token" gives "12.50 tokens/s" and
 * "2.10 s/token" (--generate's progress line). */
void av_format_eta_of(char *buf, size_t n, double elapsed_s, long done, long total, const char *unit);

/* A line of output built in pieces, which a terminal narrower than the line
 * breaks between, never inside: --train's header ("2 layers,", "d_model 64,")
 * and snapshot lines ("loss 5.6647", "L0 [0.13 0.13 0.13 0.13]"), a path.
 * A terminal that wraps the line itself cuts it at the last column, through
 * a number or a word. text holds at most 8191 bytes and 64 pieces; what does
 * not fit is cut (no line attnviz prints comes near: paths are < 4096). */
typedef struct {
    char text[8192];
    int start[64]; /* byte offset in text where piece k begins */
    int n;         /* pieces so far */
} av_line;

/* Append one piece, printf-formatted, as base/utf8.h av_utf8_shown_name shows
 * it: a control character as an escape (<U+001B>; a newline too), an RLO or
 * other bidi control left open closed at its end. A piece that starts with
 * spaces keeps them when it stays on its line and drops them when it starts
 * a new one. */
void av_line_add(av_line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print l's pieces to f, then '\n'. With cols > 0, a piece that would end past
 * column cols (columns as av_utf8_width counts them: CJK 2) starts a new line
 * of indent spaces; a piece wider than a line is printed whole on its own.
 * cols <= 0 prints one line whatever its width. E.g. pieces "step 60    ",
 * " loss 2.26", "  acc 4 %" at cols 20 and indent 2 print "step 60     loss
 * 2.26\n  acc 4 %\n". With cols > 0 no line ends in a space: a piece's
 * trailing spaces ("loss 2.26 ", a padded column) are printed only when the
 * next piece follows on the same line. */
void av_line_print(FILE *f, const av_line *l, int cols, int indent);

/* The columns a line printed to f may use: on a TTY its width less one (the
 * last column wraps on some terminals), at least 20; else 0, so a pipe or a
 * file keeps each line whole for logs, grep and diff. */
int av_line_cols(FILE *f);

/* printf(fmt, ...) on f, each control character of the result other than a
 * newline shown as <U+XXXX> (base/utf8.h av_utf8_escape_controls: an ESC
 * as <U+001B>, a CR as <U+000D>): for "attnviz: error|warning|note: ..." lines, which name
 * paths and values a user or a file gave, where a raw ESC or CR would redraw
 * the terminal. A newline in such a value cannot be told from the message's
 * own and stays one. */
void av_message(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The errno (ENOSPC, EIO, ...) of the first write to standard output that
 * failed, else 0: when av_message flushed it before a message on stderr,
 * and, after av_stdout_keep_errno, any write. A failed write empties the
 * stream's buffer and leaves only stdout's error flag (glibc drops the rest
 * of the buffer), so a later fflush(stdout) succeeds: a caller that checks
 * standard output tests ferror(stdout) too and takes the reason from here.
 * No errors. */
int av_stdout_errno(void);

/* Point stdout at a stream of the same buffer size (the file's st_blksize)
 * whose writes to fd 1 keep the first failure's errno for av_stdout_errno
 * (glibc's fopencookie): `attnviz --no-plot --show --explain 0,1 "我爱你" >
 * /dev/full` printed 4120 bytes whose last line crossed the 4096-byte
 * buffer, the failed write dropped the rest, and the run blamed "Input/output
 * error" for a full disk. A terminal (line-buffered, isatty) and a closed fd 1
 * keep stdout as it is. Called first in main, before anything is printed.
 * No errors: without the stream, stdout stays. */
void av_stdout_keep_errno(void);

/* The file descriptor under stream f: fileno(f), except that stdout is fd 1
 * (STDOUT_FILENO) after av_stdout_keep_errno, whose fopencookie stream has
 * no fd of its own (fileno -1): `--train ... | head -1` took standard output
 * for no pipe, and its check of the header line died of SIGPIPE before the
 * handler that names what the run leaves was set (test_train's broken-pipe
 * test). -1 for a stream without one. No errors. */
int av_stream_fd(FILE *f);

/* buf (n bytes) = tok in quotes for a line of the trace: "love", or 'tok'
 * when tok holds a double quote, as Python's repr picks (key """ read as an
 * empty string and a quote). Returns buf. */
const char *av_quote_token(char *buf, size_t n, const char *tok);

#endif
