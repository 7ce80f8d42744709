/* testutil.h - helpers shared by the cmocka tests (header-only, static).
 *
 *   run_attnviz(&r, stdin_text, "--heads", "2", "hello", NULL)
 *       runs the real binary ($ATTNVIZ_BIN) and captures exit code, stdout and
 *       stderr (each truncated to 1 MiB).
 *   make_tmpdir()  a fresh folder under $TMPDIR, removed by rm_rf().
 *   src_path("tests/ref/...")  a path inside the source tree ($ATTNVIZ_SRCDIR).
 *   tu_gpt2_vocab_dir()  a fresh folder with GPT-2's real vocab.json and
 *       merges.txt (decompressed with zlib from tests/data/gpt2/, gzip files).
 *   tu_shim_env("shim_swap.so", preload, asan)  the environment that
 *       preloads a tests/shim_*.c library.
 *   tu_printed_size(path, &w_in, &h_in, &px_in)  a PNG's (IHDR / pHYs) or an
 *       SVG's (width, height in pt) printed size in inches.
 */
#ifndef AV_TESTUTIL_H
#define AV_TESTUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "render/pngout.h"

/* A test program started as a background job of a script (`make test > log &`, `bash -c 'test_train &'`)
 * inherits SIGINT and SIGQUIT ignored (POSIX, XCU 2.11: a shell without job control ignores them in an
 * asynchronous list), and so does every attnviz it runs. attnviz keeps a signal it was started ignoring, as
 * GNU tools do (io/fileio.c, install_handlers), so a Ctrl-C test's SIGINT did nothing: the run went on to the
 * end with an empty stderr, and test_train's four strace tests (ctrl_c_at_figures_leaves_no_old_figure, ...)
 * failed whenever the suite ran with `&`, and passed in the foreground. Every program that includes this file
 * sets SIGINT and SIGQUIT back to their default action before main, as a terminal's foreground job has them,
 * and its children inherit that. */
__attribute__((constructor)) static void tu_default_interrupt(void) {
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    if (getenv("TU_REPORT_SIGNALS")) { /* test_cli's background-job test: the dispositions, then no tests */
        struct sigaction i, q;
        sigaction(SIGINT, NULL, &i), sigaction(SIGQUIT, NULL, &q);
        printf("SIGINT %s, SIGQUIT %s\n", i.sa_handler == SIG_IGN ? "ignored" : "default",
               q.sa_handler == SIG_IGN ? "ignored" : "default");
        fflush(stdout);
        _exit(0);
    }
}

#define TU_CAP (1u << 20)

typedef struct {
    int code;   /* exit code, or 128+signal when killed */
    char *out;  /* stdout, NUL-terminated */
    char *err;  /* stderr, NUL-terminated */
} tu_result;

/* $ATTNVIZ_BIN (default ./attnviz) as an absolute path when it exists: a test that runs the binary in another
 * folder (tu_run_opts.cwd) or links to it (test_docs) failed with ATTNVIZ_BIN=./attnviz, exit 127 or "Too many
 * levels of symbolic links" (a tester's pass). */
static inline const char *tu_bin(void) {
    static char abs[4096];
    const char *b = getenv("ATTNVIZ_BIN");
    if (!b) b = "./attnviz";
    return realpath(b, abs) ? abs : b;
}

/* rel inside the source tree, $ATTNVIZ_SRCDIR (default .), made absolute when it exists, for the same reason. */
static inline const char *src_path(const char *rel) {
    static char buf[8][8192], root_abs[4096];
    static int slot;
    const char *root = getenv("ATTNVIZ_SRCDIR");
    if (!root) root = ".";
    if (realpath(root, root_abs)) root = root_abs;
    char *p = buf[slot++ % 8];
    snprintf(p, 8192, "%s/%s", root, rel);
    return p;
}

/* Run attnviz's argv (tu_bin() and its options) under strace, which sends it
 * signal sig ("SIGINT") at its when-th rename(2) or renameat2(2), the way a
 * Ctrl-C comes at one moment of a run every time; stdout to /dev/null,
 * stderr into err_path; SIGHUP ignored when ignore_hup (as nohup starts a
 * command; kept across exec). LeakSanitizer cannot run under ptrace, so it is
 * off in the child. Returns the wait status, or -1 when strace is missing or
 * could not run (no ptrace here): the caller skips. */
static inline int tu_signal_at_rename(const char *const *args, const char *sig, int when, const char *err_path,
                                      int ignore_hup) {
    if (access("/usr/bin/strace", X_OK) != 0) return -1;
    char inject[80];
    snprintf(inject, sizeof inject, "inject=renameat2,rename:signal=%s:when=%d", sig, when);
    const char *argv[64] = {"/usr/bin/strace", "-f", "-o", "/dev/null", "-e", "trace=renameat2,rename", "-e", inject};
    int n = 8;
    for (int i = 0; args[i] && n < 63; i++) argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY), e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(devnull, 1), dup2(e, 2);
        if (ignore_hup) signal(SIGHUP, SIG_IGN);
        const char *asan = getenv("ASAN_OPTIONS");
        char opts[1024];
        snprintf(opts, sizeof opts, "%s%sdetect_leaks=0", asan ? asan : "", asan && *asan ? ":" : "");
        setenv("ASAN_OPTIONS", opts, 1);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 127 ? -1 : st;
}

static inline void tu_free(tu_result *r) {
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* --help's text (s, in place) with each option's wrapped description joined back into one line: a newline
 * followed by the 29-space continuation indent becomes one space (cli.c wraps the descriptions at 79
 * columns), so a test can look for a phrase wherever the line breaks. */
static inline void tu_help_unwrap(char *s) {
    static const char cont[] = "\n                             "; /* newline and 29 spaces */
    char *w = s;
    for (const char *r = s; *r;)
        if (strncmp(r, cont, sizeof cont - 1) == 0) *w++ = ' ', r += sizeof cont - 1;
        else *w++ = *r++;
    *w = 0;
}

/* Everything the child pid (of forkpty) writes to its pseudo-terminal, whose master is fd, into buf (cap
 * bytes, NUL-terminated), until it has ended and nothing more comes; closes fd and returns its waitpid
 * status. kill_at (or NULL): once that text has come, the child gets sig, once. The slave side is held open
 * here meanwhile, so that a read never fails with EIO: Linux gave EIO with the child's last output still in
 * the terminal's buffer when the child ended first, and the tail was lost (test_cli's --show on TERM=dumb
 * failed so once in CI, on a loaded machine). A buffer that fills up stops the reading: the child then gets
 * EIO at its next write. */
static inline int tu_pty_collect(int fd, pid_t pid, char *buf, size_t cap, const char *kill_at, int sig) {
    unsigned num = 0;
    char name[64];
    int slave = -1;
    if (ioctl(fd, TIOCGPTN, &num) == 0) {
        snprintf(name, sizeof name, "/dev/pts/%u", num);
        slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    }
    size_t n = 0;
    int status = 0, ended = 0, sent = 0;
    buf[0] = 0;
    while (n + 1 < cap) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, ended ? 300 : 100);
        if (r > 0) {
            ssize_t k = read(fd, buf + n, cap - 1 - n);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) break; /* EIO: no slave open (it could not be opened), the child's gone */
            n += (size_t)k;
            buf[n] = 0;
            if (kill_at && !sent && strstr(buf, kill_at)) kill(pid, sig), sent = 1;
        } else if (ended) break; /* ended, and nothing more came */
        else if (waitpid(pid, &status, WNOHANG) == pid) ended = 1;
    }
    close(fd);
    if (slave >= 0) close(slave);
    if (!ended) waitpid(pid, &status, 0);
    return status;
}

/* s (in place) without its colour escapes (ESC [ ... m, SGR) and carriage returns, as a terminal shows it; returns
 * its new length. For a pseudo-terminal's output (tu_run_pty) or a pipe's under --color always. */
static inline size_t tu_strip_sgr(char *s) {
    char *w = s;
    for (const char *r = s; *r; r++) {
        if (*r == '\033') {
            while (*r && *r != 'm') r++;
            if (!*r) break;
            continue;
        }
        if (*r != '\r') *w++ = *r;
    }
    *w = 0;
    return (size_t)(w - s);
}

/* argv (argv[0] the binary, NULL-ended) run on a pseudo-terminal of cols columns and 24 rows, with COLUMNS unset
 * so that the width is the terminal's and stderr to /dev/null (a note is one line, the terminal's to break): its
 * output into buf (cap bytes, NUL-terminated; tu_pty_collect), the terminal's \r\n back to \n. Returns the
 * waitpid status, or -1 when forkpty fails. */
static inline int tu_run_pty(const char *const *argv, int cols, char *buf, size_t cap) {
    struct winsize ws = {.ws_row = 24, .ws_col = (unsigned short)cols};
    int fd;
    buf[0] = 0;
    pid_t pid = forkpty(&fd, NULL, NULL, &ws);
    if (pid < 0) return -1;
    if (pid == 0) {
        unsetenv("COLUMNS");
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDERR_FILENO);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = tu_pty_collect(fd, pid, buf, cap, NULL, 0);
    char *w = buf;
    for (const char *r = buf; *r; r++)
        if (*r != '\r') *w++ = *r;
    *w = 0;
    return status;
}

/* Whether a and b hold the same words (runs of bytes other than space and newline) in the same order: a
 * trace broken at a terminal's width against the same run into a pipe. */
static inline int tu_same_words(const char *a, const char *b) {
    for (;;) {
        a += strspn(a, " \n"), b += strspn(b, " \n");
        size_t na = strcspn(a, " \n"), nb = strcspn(b, " \n");
        if (na != nb || strncmp(a, b, na) != 0) return 0;
        if (!na) return 1;
        a += na, b += nb;
    }
}

static inline char *tu_slurp_fd(int fd) {
    char *buf = malloc(TU_CAP + 1);
    size_t n = 0;
    for (;;) {
        char tmp[8192];
        ssize_t k = read(fd, tmp, sizeof tmp);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        size_t take = (size_t)k;
        if (n + take > TU_CAP) take = TU_CAP - n;
        memcpy(buf + n, tmp, take);
        n += take;
    }
    buf[n] = 0;
    return buf;
}

/* How to start the binary: all fields may be zero/NULL/-1 for "as usual". */
typedef struct {
    const char *cwd;               /* chdir here in the child, or NULL */
    int stdout_fd;                 /* -1: capture into r->out; else this fd becomes stdout */
    long fsize_limit;              /* > 0: RLIMIT_FSIZE in bytes, SIGXFSZ ignored (writes fail with EFBIG) */
    const char *const *env_extra;  /* "NAME=VALUE" strings (NULL-terminated), or NULL */
    long as_limit_kib;             /* > 0: RLIMIT_AS soft limit in KiB, as `ulimit -v` sets it (the child only),
                                    * and SIGALRM after 120 s: OpenBLAS retries a buffer it cannot map for ever, and
                                    * such a run stalled the suite (exit 128 + SIGALRM, 142, fails the test) */
} tu_run_opts;

/* Run the binary with args (NULL-terminated, argv[0] excluded), in_len bytes
 * of stdin from in (may hold NULs), and the options in ro (may be NULL). */
static inline void tu_run_ex(tu_result *r, const tu_run_opts *ro, const char *in, size_t in_len,
                             const char *const *args) {
    char outf[] = "/tmp/tu_outXXXXXX", errf[] = "/tmp/tu_errXXXXXX", inf[] = "/tmp/tu_inXXXXXX";
    int fo = mkstemp(outf), fe = mkstemp(errf), fi = mkstemp(inf);
    if (fo < 0 || fe < 0 || fi < 0) abort();
    for (size_t done = 0; in && done < in_len;) {
        ssize_t k = write(fi, in + done, in_len - done);
        if (k <= 0) abort();
        done += (size_t)k;
    }
    lseek(fi, 0, SEEK_SET);
    const char *argv[256];
    int n = 0;
    argv[n++] = tu_bin();
    for (int i = 0; args[i] && n < 255; i++) argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fi, 0);
        dup2(ro && ro->stdout_fd >= 0 ? ro->stdout_fd : fo, 1);
        dup2(fe, 2);
        unsetenv("NO_COLOR");
        if (ro && ro->env_extra)
            for (int i = 0; ro->env_extra[i]; i++) putenv((char *)ro->env_extra[i]);
        if (ro && ro->cwd && chdir(ro->cwd) != 0) _exit(126);
        if (ro && ro->fsize_limit > 0) {
            signal(SIGXFSZ, SIG_IGN); /* stays ignored across exec */
            struct rlimit rl = {(rlim_t)ro->fsize_limit, (rlim_t)ro->fsize_limit};
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(125);
        }
        if (ro && ro->as_limit_kib > 0) {
            struct rlimit rl;
            if (getrlimit(RLIMIT_AS, &rl) != 0) _exit(125);
            rl.rlim_cur = (rlim_t)ro->as_limit_kib * 1024;
            if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(125);
            alarm(120); /* kept across exec */
        }
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    r->code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    lseek(fo, 0, SEEK_SET);
    lseek(fe, 0, SEEK_SET);
    r->out = tu_slurp_fd(fo);
    r->err = tu_slurp_fd(fe);
    close(fo); close(fe); close(fi);
    unlink(outf); unlink(errf); unlink(inf);
}

/* Run attnviz with args (NULL-terminated, at most 18) as uid/gid 65534 ("nobody") when root, which
 * ignores permission bits (a read-only or write-only folder); stdout and stderr both into r->err, r->out
 * empty (free with tu_free). Returns 0, or -1 when this machine cannot drop to nobody or nobody cannot
 * run the binary (the caller skips the case). Aborts if the pipe or the fork fails. */
static inline int tu_run_as_nobody(tu_result *r, const char *const *args) {
    int fds[2];
    if (pipe(fds) != 0) abort();
    pid_t pid = fork();
    if (pid < 0) abort();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(126);
        const char *argv[20] = {tu_bin()};
        for (int i = 0; args[i] && i < 18; i++) argv[i + 1] = args[i];
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    static char buf[1 << 16];
    size_t n = 0;
    for (ssize_t k; n < sizeof buf - 1 && (k = read(fds[0], buf + n, sizeof buf - 1 - n)) > 0;) n += (size_t)k;
    buf[n] = 0;
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    r->code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r->err = strdup(buf);
    r->out = strdup("");
    return r->code == 126 || r->code == 127 ? -1 : 0;
}

/* Run argv (NULL-terminated, argv[0] excluded) with optional stdin text and
 * extra environment "NAME=VALUE" strings in env_extra (NULL-terminated or NULL). */
static inline void tu_runv(tu_result *r, const char *stdin_text, const char *const *env_extra,
                           const char *const *args) {
    tu_run_opts ro = {NULL, -1, 0, env_extra, 0};
    tu_run_ex(r, &ro, stdin_text, stdin_text ? strlen(stdin_text) : 0, args);
}

/* Variadic form: run_attnviz(&r, stdin_or_NULL, arg1, arg2, ..., NULL). */
static inline void run_attnviz(tu_result *r, const char *stdin_text, ...) {
    const char *args[250];
    int n = 0;
    va_list ap;
    va_start(ap, stdin_text);
    const char *a;
    while ((a = va_arg(ap, const char *)) != NULL && n < 249) args[n++] = a;
    va_end(ap);
    args[n] = NULL;
    tu_runv(r, stdin_text, NULL, args);
}

/* The environment that preloads the test shim `name` (built beside this test
 * binary by make test): preload = "LD_PRELOAD=...", asan = ASAN_OPTIONS with
 * verify_asan_link_order=0 (a sanitized binary wants its runtime first).
 * 0, after a SKIPROW line, when the shim is not built. */
static inline int tu_shim_env(const char *name, char preload[4300], char asan[4300]) {
    char self[4096], shim[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) self[n] = 0;
    if (n > 0) snprintf(shim, sizeof shim, "%.*s/%s", (int)(strrchr(self, '/') - self), self, name);
    if (n <= 0 || access(shim, R_OK) != 0) {
        printf("[ SKIPROW  ] %s not built (make test builds it)\n", n > 0 ? shim : name);
        return 0;
    }
    snprintf(preload, 4300, "LD_PRELOAD=%s", shim);
    const char *old_asan = getenv("ASAN_OPTIONS");
    snprintf(asan, 4300, "ASAN_OPTIONS=%s%sverify_asan_link_order=0", old_asan ? old_asan : "",
             old_asan && *old_asan ? ":" : "");
    return 1;
}

/* s as attnviz quotes a word of a command it prints (a hint's command, the figures' recorded command line), for
 * an expected message: as it is when every byte is a letter, a digit, one of _-./:=,+@%^ or part of a UTF-8
 * character (test folders hold no invisible one), else in single quotes with each ' written '\'' (POSIX XCU
 * 2.2.3: nothing is special inside single quotes), '' for "". A test folder under TMPDIR="/tmp/a b" needs it:
 * attnviz prints '/tmp/a b/attnviz_testX/in.txt', where an expected text built with a bare %s said /tmp/a b/...
 * (s without control characters, which attnviz writes as $'\x1b'). It is also how a test names a path in a
 * command it runs by system() or popen(): '%s' broke on TMPDIR="/tmp/it's". In one of 8 rotating buffers. */
static inline const char *tu_sh_word(const char *s) {
    static char buf[8][8400];
    static int slot;
    char *p = buf[slot++ % 8], *w = p;
    int plain = *s != 0;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (!(*c >= 0x80 || (*c >= '0' && *c <= '9') || ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'z') ||
              strchr("_-./:=,+@%^", *c)))
            plain = 0;
    if (plain) {
        snprintf(p, sizeof buf[0], "%s", s);
        return p;
    }
    *w++ = '\'';
    for (; *s && w + 6 < p + sizeof buf[0]; s++)
        if (*s == '\'') memcpy(w, "'\\''", 4), w += 4;
        else *w++ = *s;
    *w++ = '\'', *w = 0;
    return p;
}

/* tu_sh_word of dir/name: a file of a folder as a message names it, the whole path one shell word
 * ("'/tmp/a b/m/config.json'", not the folder's word with /config.json after it). In tu_sh_word's buffers. */
static inline const char *tu_sh_file_word(const char *dir, const char *name) {
    char path[8400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return tu_sh_word(path);
}

/* How bash reads word, a word of a command attnviz tells the user to type ('runs/a'$'\r''b'): `printf %s WORD`
 * run by /bin/bash -c, its output into out (n bytes, NUL-terminated). Returns 0, or -1 when popen fails or
 * bash exits non-zero (a word that does not parse). */
static inline int tu_bash_reads(char *out, size_t n, const char *word) {
    char script[8300], cmd[8500]; /* a word of up to 8000 bytes */
    snprintf(script, sizeof script, "printf %%s %.8000s", word);
    snprintf(cmd, sizeof cmd, "/bin/bash -c %s", tu_sh_word(script));
    out[0] = 0;
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t k = fread(out, 1, n - 1, p);
    out[k] = 0;
    return pclose(p) == 0 ? 0 : -1;
}

static inline char *make_tmpdir(void) {
    const char *base = getenv("TMPDIR");
    char *p = malloc(4096);
    snprintf(p, 4096, "%s/attnviz_testXXXXXX", base ? base : "/tmp");
    if (!mkdtemp(p)) abort();
    return p;
}

static inline void rm_rf(char *dir) {
    if (!dir) return;
    char cmd[8500];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tu_sh_word(dir));
    if (system(cmd) != 0) {}
    free(dir);
}

/* A fresh temporary folder per test, for cmocka_unit_test_setup_teardown:
 *   cmocka_unit_test_setup_teardown(test_x, tu_setup_tmpdir, tu_teardown_tmpdir)
 * and in the test: tu_fixture *f = *state; tu_in(f, "a.npy") is f->dir/a.npy. */
typedef struct {
    char *dir;
    int runs; /* free for the test file's own numbering */
} tu_fixture;

static inline int tu_setup_tmpdir(void **state) {
    tu_fixture *f = calloc(1, sizeof *f);
    f->dir = make_tmpdir();
    *state = f;
    return 0;
}

static inline int tu_teardown_tmpdir(void **state) {
    tu_fixture *f = *state;
    rm_rf(f->dir);
    free(f);
    return 0;
}

/* f->dir/rel, in one of 8 rotating buffers. */
static inline const char *tu_in(const tu_fixture *f, const char *rel) {
    static char buf[8][4200];
    static int slot;
    char *p = buf[slot++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", f->dir, rel);
    return p;
}

/* Whole file as a NUL-terminated buffer (caller frees), or NULL if it cannot
 * be opened; *len (may be NULL) gets the byte count. */
static inline char *tu_slurp_file(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)(n > 0 ? n : 0) + 1);
    if (n < 0 || fread(buf, 1, (size_t)n, fp) != (size_t)n) n = 0;
    buf[n] = 0;
    fclose(fp);
    if (len) *len = (size_t)n;
    return buf;
}

/* Run argv (argv[0] the program, NULL-terminated) with stdout a pipe that has no reader from the start, as a
 * reader gone (`| head -1`, a pager quit with q): its first flush raises SIGPIPE, with the default action a
 * shell's pipeline gives. Its stderr goes to errpath and is returned (free it); *st = its wait status. */
static inline char *tu_run_into_broken_pipe(const char *errpath, const char *const *argv, int *st) {
    int fds[2];
    if (pipe(fds) != 0) return NULL;
    close(fds[0]); /* no reader */
    pid_t pid = fork();
    if (pid == 0) {
        int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fds[1], 1);
        dup2(e, 2);
        signal(SIGPIPE, SIG_DFL); /* as a shell's pipeline gives it */
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    if (pid < 0 || waitpid(pid, st, 0) != pid) return NULL;
    return tu_slurp_file(errpath, NULL);
}

/* The printed size of a figure, in inches: a PNG's IHDR width and height
 * over its pHYs dpi (render/pngout.h av_png_read_texts: libpng, the image
 * never decoded), an
 * SVG's <svg> width and height in points over 72. *px_in = one pixel, in
 * inches (an SVG's viewBox pixel). 0, or -1 when the file is neither, has no
 * pHYs in metres or no width/height in pt. */
static inline int tu_printed_size(const char *path, double *w_in, double *h_in, double *px_in) {
    size_t n = strlen(path);
    if (n > 4 && strcmp(path + n - 4, ".svg") == 0) {
        char *svg = tu_slurp_file(path, NULL);
        const char *at = svg ? strstr(svg, "<svg ") : NULL;
        double w = 0, h = 0, vw = 0;
        int ok = at && strstr(at, " width=\"") && strstr(at, " height=\"") && strstr(at, " viewBox=\"") &&
                 sscanf(strstr(at, " width=\""), " width=\"%lfpt\"", &w) == 1 &&
                 sscanf(strstr(at, " height=\""), " height=\"%lfpt\"", &h) == 1 &&
                 sscanf(strstr(at, " viewBox=\""), " viewBox=\"0 0 %lf", &vw) == 1 && w > 0 && vw > 0;
        free(svg);
        if (!ok) return -1;
        *w_in = w / 72, *h_in = h / 72, *px_in = w / 72 / vw;
        return 0;
    }
    av_png_image img = {0};
    av_err e = {{0}};
    int ok = av_png_read_texts(path, &img, &e) == AV_OK && img.width > 0 && img.height > 0 && img.dpi > 0;
    if (ok) *w_in = img.width / img.dpi, *h_in = img.height / img.dpi, *px_in = 1 / img.dpi;
    av_png_image_free(&img);
    return ok ? 0 : -1;
}

/* 1 when figures a and b (PNG or SVG) print at the same width and height
 * within one pixel of the finer of the two, else 0 with why (n bytes) saying
 * the sizes. */
static inline int tu_same_printed_size(const char *a, const char *b, char *why, size_t n) {
    double wa, ha, pa, wb, hb, pb;
    if (tu_printed_size(a, &wa, &ha, &pa) != 0 || tu_printed_size(b, &wb, &hb, &pb) != 0) {
        snprintf(why, n, "cannot read the printed size of %s or %s", a, b);
        return 0;
    }
    double px = pa < pb ? pa : pb;
    if (fabs(wa - wb) <= px && fabs(ha - hb) <= px) return 1;
    snprintf(why, n, "%s prints %.4f x %.4f in (%.0f dpi), %s %.4f x %.4f in (%.0f dpi)", a, wa, ha, 1 / pa, b, wb, hb,
             1 / pb);
    return 0;
}

/* Write text to path with its first `from` replaced by `to` (a lying
 * config.json from a good one). 0, or -1 when text has no `from` or the
 * file cannot be written. */
static inline int tu_write_replaced(const char *path, const char *text, const char *from, const char *to) {
    const char *at = strstr(text, from);
    FILE *fp = at ? fopen(path, "wb") : NULL;
    if (!fp) return -1;
    int ok = fprintf(fp, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)) >= 0;
    return fclose(fp) == 0 && ok ? 0 : -1;
}

/* The file at path written again with the first `from` after its 8th byte replaced by `to`, of the same length:
 * a safetensors header's tensor name spelt another way ("h.0.attn.masked_bias" as x\nxxxxxxxxxxxxxxxxx, the
 * JSON escape of a newline), its offsets unchanged. 0, or -1 when the file cannot be read or written, the lengths
 * differ, or there is no `from` before the first NUL byte after byte 8 (the header is JSON text, the data follows). */
static inline int tu_patch_header(const char *path, const char *from, const char *to) {
    size_t len;
    char *buf = tu_slurp_file(path, &len), *at = buf && len > 8 ? strstr(buf + 8, from) : NULL;
    FILE *fp = at && strlen(from) == strlen(to) ? fopen(path, "wb") : NULL;
    if (fp) memcpy(at, to, strlen(to));
    int ok = fp && fwrite(buf, 1, len, fp) == len;
    if (fp && fclose(fp) != 0) ok = 0;
    free(buf);
    return ok ? 0 : -1;
}

/* How many lines of a --model trace's step-by-step layer are the stage
 * `stage` ("[l.k] stage  formula   shapes"), and how many of those lack
 * `want` (the result's shape, e.g. "→ (10, 64)"); *first_bad = the first
 * such line, or NULL. So a test can ask that every stage names its output. */
static inline int tu_stage_lines_lacking(const char *out, const char *stage, const char *want, int *n_lines,
                                         const char **first_bad) {
    int bad = 0;
    char name[64];
    snprintf(name, sizeof name, "] %s ", stage);
    *n_lines = 0;
    *first_bad = NULL;
    for (const char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *end = strchr(line, '\n'), *lb = line + strspn(line, " ");
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        if (*lb != '[' || !strstr(buf, name)) continue;
        ++*n_lines;
        if (!strstr(buf, want)) {
            if (!bad) *first_bad = line;
            bad++;
        }
    }
    return bad;
}

static inline int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Number of entries in dir (excluding . and ..), -1 if it cannot be opened. */
static inline int count_entries(const char *dir) {
    char cmd[8500];
    snprintf(cmd, sizeof cmd, "ls -A %s 2>/dev/null | wc -l", tu_sh_word(dir));
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1) n = -1;
        pclose(p);
    }
    return n;
}

/* Decompress the gzip file gz into path. Returns 0, or -1 on any error. */
static inline int tu_gunzip(const char *gz, const char *path) {
    gzFile in = gzopen(gz, "rb");
    if (!in) return -1;
    FILE *out = fopen(path, "wb");
    int rc = out ? 0 : -1;
    char buf[65536];
    for (int k; rc == 0 && (k = gzread(in, buf, sizeof buf)) != 0;)
        if (k < 0 || fwrite(buf, 1, (size_t)k, out) != (size_t)k) rc = -1;
    if (out && fclose(out) != 0) rc = -1;
    gzclose(in);
    return rc;
}

/* A fresh folder (free with rm_rf) holding GPT-2's real vocab.json and
 * merges.txt, decompressed from tests/data/gpt2/{vocab.json,merges.txt}.gz
 * (see tests/data/gpt2/README.md). NULL if that fails. No network, no node. */
static inline char *tu_gpt2_vocab_dir(void) {
    char *dir = make_tmpdir();
    char dst[4200];
    snprintf(dst, sizeof dst, "%s/vocab.json", dir);
    int rc = tu_gunzip(src_path("tests/data/gpt2/vocab.json.gz"), dst);
    snprintf(dst, sizeof dst, "%s/merges.txt", dir);
    if (rc == 0) rc = tu_gunzip(src_path("tests/data/gpt2/merges.txt.gz"), dst);
    if (rc != 0) {
        rm_rf(dir);
        return NULL;
    }
    return dir;
}

#ifdef fail_msg /* cmocka's: the bidi checks fail a test */
/* UAX #9 X1-X8 by hand: the embeddings and overrides (LRE, RLE, LRO, RLO) and
 * isolates (LRI, RLI, FSI) open at byte `at` of s, not closed before it by
 * their PDF or PDI. 0 means the text there reads in its own order. Shared by
 * the tests that check a user's text never turns attnviz's own words around
 * (test_figures, test_cli, test_train). */
static inline int tu_bidi_open_at(const char *s, size_t at) {
    char stack[128];
    int depth = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c && c < (const unsigned char *)s + at; c++) {
        if (c[0] != 0xE2 || !c[1] || !c[2]) continue;
        unsigned cp = 0x2000 | (unsigned)(c[1] & 0x3F) << 6 | (c[2] & 0x3F);
        if (c[1] != 0x80 && c[1] != 0x81) continue;
        if (((cp >= 0x202A && cp <= 0x202E && cp != 0x202C) || (cp >= 0x2066 && cp <= 0x2068)) && depth < 128)
            stack[depth++] = cp >= 0x2066 ? 'I' : 'E';
        else if (cp == 0x202C && depth && stack[depth - 1] == 'E') depth--;
        else if (cp == 0x2069) {
            int k = depth;
            while (k > 0 && stack[k - 1] != 'I') k--;
            if (k) depth = k - 1;
        }
    }
    return depth;
}

/* The text between after and the first stop that follows it in s, into out (n bytes): the word of a message
 * that a test reads back with tu_bash_reads ("type --file " ... " (a space"). Fails the test when absent. */
static inline void tu_word_between(char *out, size_t n, const char *s, const char *after, const char *stop) {
    const char *a = strstr(s, after), *b = a ? strstr(a + strlen(after), stop) : NULL;
    if (!b) fail_msg("no '%s...%s' in: %s", after, stop, s);
    a += strlen(after);
    snprintf(out, n, "%.*s", (int)(b - a), a);
}

/* Fail unless `what` is in s and reads in its own order there. */
static inline void tu_expect_unturned(const char *where, const char *s, const char *what) {
    const char *at = s ? strstr(s, what) : NULL;
    if (!at) fail_msg("%s: no '%s' in: %s", where, what, s ? s : "(null)");
    if (tu_bidi_open_at(s, (size_t)(at - s)))
        fail_msg("%s: '%s' follows %d unclosed bidi embedding(s), override(s) or isolate(s): drawn turned around: %s",
                 where, what, tu_bidi_open_at(s, (size_t)(at - s)), s);
}
#endif

#endif
