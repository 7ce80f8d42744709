/* fileio.c - atomic file output (temporary + rename or exchange), mkdir -p, whole-file read.
 *
 * Every error message names the path the user gave and the reason (strerror,
 * or a plainer sentence for the common cases: missing folder, folder that is
 * a file). Nothing here exits or prints.
 *
 * Non-goals: fsync of the file or its folder, cross-filesystem moves, Windows.
 */
#define _GNU_SOURCE /* renameat2 and RENAME_EXCHANGE (glibc 2.28) */
#include "io/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h> /* AT_FDCWD */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h> /* flock */
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "base/utf8.h"

/* ------------------------------------------------------------------------- */
/* helpers */

/* Copy the folder part of path ("out" for "out/a.png", "." for "a.png", "/"
 * for "/a.png") into buf. */
static void folder_of(char *buf, size_t cap, const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(buf, cap, ".");
    } else if (slash == path) {
        snprintf(buf, cap, "/");
    } else {
        snprintf(buf, cap, "%.*s", (int)(slash - path), path);
    }
}

/* Explain why a file could not be created inside path's folder. e is errno
 * from mkstemp/open. */
static av_status create_error(av_err *err, const char *path, int e) {
    char dir[4096];
    folder_of(dir, sizeof dir, path);
    struct stat st;
    if (e == ENOENT && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) /* there, but it makes no files: /proc/self */
        return av_fail(err, AV_ERUNTIME, "cannot write %s: folder %s does not take new files (%s)", AV_SHOWN_WORD(path, 4200), AV_SHOWN_WORD(dir, 4200),
                       strerror(e));
    if (e == ENOENT)
        return av_fail(err, AV_ERUNTIME, "cannot write %s: folder %s does not exist", AV_SHOWN_WORD(path, 4200), AV_SHOWN_WORD(dir, 4200));
    if (e == ENOTDIR)
        return av_fail(err, AV_ERUNTIME, "cannot write %s: %s is not a folder", AV_SHOWN_WORD(path, 4200), AV_SHOWN_WORD(dir, 4200));
    return av_fail(err, AV_ERUNTIME, "cannot write %s: %s", AV_SHOWN_WORD(path, 4200), strerror(e));
}

/* ------------------------------------------------------------------------- */
/* atomic writer */

/* The temporary files being written, so that Ctrl-C (SIGINT), SIGTERM,
 * SIGHUP or SIGPIPE (stdout's reader gone: `| head`) does not leave one
 * behind: the handler unlinks them (unlink is async-signal-safe), restores
 * the default action and re-raises. Two can be
 * open at once, on two threads: render/pngbatch.c writes each PNG on its
 * worker while the caller writes the next figure's SVG (--format both). So
 * each open file holds one of TMP_SLOTS slots (av_afile.slot). A slot is
 * FREE, BUSY (its name is being written) or LIVE (the handler may unlink it);
 * the state changes atomically, so the handler never reads a half-written
 * name. Were more files open at once than there are slots, the extra ones
 * would not be removed on a signal (as before the handler existed). A set's
 * kept temporaries hold their slots until set_end (a --dump's 15), so there
 * is room for a full set and the PNG batch's two beside it. */
#define TMP_SLOTS (AV_AFILE_SET_MAX + 4)
enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };
static atomic_int g_slot[TMP_SLOTS];
static char g_tmp[TMP_SLOTS][sizeof ((av_afile *)0)->tmp];
static pthread_once_t g_handlers_once = PTHREAD_ONCE_INIT;

/* av_interrupt_message's text; its length is 0 while it changes, so the
 * handler never writes a half-copied one. */
static char g_msg[AV_INTERRUPT_MSG_MAX];
static atomic_int g_msg_len;
static atomic_int g_clear_line; /* 1 while a progress line is on stderr's terminal (av_interrupt_clear_line) */

static atomic_int g_handling; /* a second signal (timeout signals the process and its group) waits for the first */

/* The folders av_mkdir_p made in this process, in the order made (a parent
 * before its children), without a trailing '/'; g_made_n counts the whole
 * names, each written before the count grows, so the handler reads none
 * half-written. */
#define MADE_SLOTS 32
static char g_made[MADE_SLOTS][4096];
static atomic_int g_made_n;

/* rmdir every folder this process made, the last made first (a child before
 * its parent); one holding anything stays (async-signal-safe: rmdir). */
static void remove_empty_made_folders(void) {
    for (int i = atomic_load(&g_made_n) - 1; i >= 0; i--) rmdir(g_made[i]);
}

/* Unlink every temporary still being written (async-signal-safe): the
 * signal handlers' first step, so no half-written file is left. */
static void remove_live_temporaries(void) {
    for (int i = 0; i < TMP_SLOTS; i++)
        if (atomic_load(&g_slot[i]) == SLOT_LIVE) unlink(g_tmp[i]);
}

void av_remove_unfinished(void) {
    remove_live_temporaries();
    remove_empty_made_folders();
}

int av_lock_folder(const char *dir, int *fd_out) {
    *fd_out = -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
        *fd_out = fd;
        return 0;
    }
    int busy = errno == EWOULDBLOCK;
    close(fd);
    return busy;
}

static void on_signal(int sig) {
    if (atomic_exchange(&g_handling, 1)) return; /* the first one's raise() ends the process */
    remove_live_temporaries();
    remove_empty_made_folders(); /* the run's folders it had not yet written in: a Ctrl-C left them empty */
    int n = atomic_load(&g_msg_len);
    static const char clear[] = "\r\x1b[K"; /* the progress line goes first, so the message starts a line */
    if (atomic_load(&g_clear_line) && write(STDERR_FILENO, clear, sizeof clear - 1) < 0) { /* on the way out */ }
    /* SIGPIPE is no interruption by the user: `| head -1` closed the pipe. Its message says so in place of
     * the message's first "interrupted" (a learner read "interrupted" as something they had done) */
    static const char word[] = "interrupted", pipe_closed[] = "standard output was closed (broken pipe)";
    int at = -1;
    for (int i = 0; sig == SIGPIPE && at < 0 && i + (int)sizeof word - 1 <= n && i < 16; i++)
        if (memcmp(g_msg + i, word, sizeof word - 1) == 0) at = i;
    if (at >= 0) {
        if (write(STDERR_FILENO, g_msg, (size_t)at) < 0 ||
            write(STDERR_FILENO, pipe_closed, sizeof pipe_closed - 1) < 0 ||
            write(STDERR_FILENO, g_msg + at + sizeof word - 1, (size_t)(n - at) - (sizeof word - 1)) < 0) {
            /* nothing more to do on the way out */
        }
    } else if (n > 0 && write(STDERR_FILENO, g_msg, (size_t)n) < 0) { /* nothing more to do on the way out */ }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A signal the process was started ignoring stays ignored, as GNU tools
 * leave it (coreutils' sort): `nohup attnviz --train ...` sets SIGHUP to
 * SIG_IGN, and the handler, installed over it, ended the training when the
 * terminal closed; a `cmd &` of a script ignores SIGINT. */
static void install_handlers(void) {
    /* SIGPIPE: `attnviz --train ... | head -1`: the reader is gone at the next line */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        signal(sigs[i], on_signal);
    }
}

/* g_msg = the n bytes at msg, cut to fit */
static void set_interrupt_message(const char *msg, size_t n) {
    pthread_once(&g_handlers_once, install_handlers);
    atomic_store(&g_msg_len, 0);
    if (n > sizeof g_msg) n = sizeof g_msg;
    if (n) memcpy(g_msg, msg, n);
    atomic_store(&g_msg_len, (int)n);
}

void av_interrupt_message(const char *msg) {
    char shown[AV_INTERRUPT_MSG_MAX + 1];
    size_t n = msg ? av_utf8_escape_controls(msg, strlen(msg), shown, sizeof shown, 1) : 0;
    set_interrupt_message(shown, n);
}

void av_interrupt_clear_line(int on) {
    pthread_once(&g_handlers_once, install_handlers);
    atomic_store(&g_clear_line, on);
}

/* Files mapped into memory (av_mapped_note): where, how long, and the name for
 * the SIGBUS handler's message. A slot is free while its len is 0; the name
 * is written before len is set, so the handler never reads a half-written one; the name as one shell word
 * (av_shown_word). */
#define MAP_SLOTS 64
static struct {
    atomic_uintptr_t addr;
    atomic_size_t len;
    char path[1024];
} g_maps[MAP_SLOTS];
static pthread_once_t g_sigbus_once = PTHREAD_ONCE_INIT;

static void put_str(const char *s) {
    if (write(STDERR_FILENO, s, strlen(s)) < 0) { /* nothing more to do on the way out */ }
}

/* A read of a mapped file past its end, after another program made it
 * shorter: remove the temporaries (as on_signal does), name the file, exit 1. */
static void on_sigbus(int sig, siginfo_t *info, void *ctx) {
    (void)sig, (void)ctx;
    remove_live_temporaries();
    uintptr_t at = (uintptr_t)info->si_addr;
    const char *path = NULL;
    for (int i = 0; i < MAP_SLOTS && !path; i++) {
        size_t len = atomic_load(&g_maps[i].len);
        uintptr_t a = atomic_load(&g_maps[i].addr);
        if (len && at >= a && at - a < len) path = g_maps[i].path;
    }
    put_str("attnviz: error: ");
    if (path) {
        put_str("cannot read ");
        put_str(path); /* one shell word (av_shown_word), as every message names a path */
        put_str(": it became shorter while it was being read (another program truncated or rewrote it in place); "
                "run again once it is complete\n");
    } else {
        put_str("a file mapped into memory became shorter while it was being read (bus error)\n");
    }
    _exit(1);
}

static void install_sigbus(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

void av_mapped_note(const void *addr, size_t len, const char *path) {
    pthread_once(&g_sigbus_once, install_sigbus);
    for (int i = 0; i < MAP_SLOTS && len; i++) {
        uintptr_t none = 0;
        if (!atomic_compare_exchange_strong(&g_maps[i].addr, &none, (uintptr_t)addr)) continue;
        av_shown_word(g_maps[i].path, sizeof g_maps[i].path, path);
        atomic_store(&g_maps[i].len, len);
        return;
    }
}

void av_mapped_forget(const void *addr) {
    for (int i = 0; i < MAP_SLOTS; i++)
        if (atomic_load(&g_maps[i].addr) == (uintptr_t)addr && atomic_load(&g_maps[i].len)) {
            atomic_store(&g_maps[i].len, 0);
            atomic_store(&g_maps[i].addr, 0);
            return;
        }
}

/* Let the handler remove f->tmp: f->slot = its slot + 1, or 0 when every slot
 * is taken. */
static void track_tmp(av_afile *f) {
    pthread_once(&g_handlers_once, install_handlers);
    f->slot = 0;
    for (int i = 0; i < TMP_SLOTS; i++) {
        int expect = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&g_slot[i], &expect, SLOT_BUSY)) continue;
        memcpy(g_tmp[i], f->tmp, sizeof g_tmp[i]);
        atomic_store(&g_slot[i], SLOT_LIVE);
        f->slot = i + 1;
        return;
    }
}

/* The handler no longer removes f's temporary (it is gone, renamed or never
 * tracked). */
static void untrack_tmp(av_afile *f) {
    if (f->slot > 0 && f->slot <= TMP_SLOTS) atomic_store(&g_slot[f->slot - 1], SLOT_FREE);
    f->slot = 0;
}

/* mkstemp(f->tmp) with the name tracked before the file exists: a signal that came between mkstemp's
 * creating it and track_tmp left a hidden .NAME.tmpXXXXXX behind (a teacher's pass: 1 SIGTERM in 40; the
 * first file of a run even before the handler was installed). The six X become letters and digits from a
 * counter, the pid and the clock; the name is tracked, then created with O_EXCL (another's name: untracked,
 * another try). A signal before the open finds no file to remove. Returns the fd, or -1 with errno. */
static int open_tracked_tmp(av_afile *f) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static _Atomic unsigned long long counter;
    size_t n = strlen(f->tmp);
    char *x = f->tmp + n - 6;
    for (int tries = 0; tries < 1000; tries++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long v = (atomic_fetch_add(&counter, 1) + 1) * 0x9E3779B97F4A7C15ull;
        v ^= ((unsigned long long)getpid() << 32) ^ (unsigned long long)ts.tv_nsec ^ ((unsigned long long)ts.tv_sec << 20);
        v ^= v >> 29, v *= 0xBF58476D1CE4E5B9ull, v ^= v >> 32; /* splitmix64's finish */
        for (int i = 0; i < 6; i++, v /= 62) x[i] = digits[v % 62];
        track_tmp(f);
        int fd = open(f->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666); /* av_afile_open: fopen's mode */
        if (fd >= 0) return fd;
        int e = errno;
        untrack_tmp(f);
        if (e != EEXIST) return errno = e, -1;
    }
    return errno = EEXIST, -1;
}

size_t av_afile_write(av_afile *f, const void *buf, size_t n) {
    size_t k = fwrite(buf, 1, n, f->fp);
    if (k != n && !f->werr) f->werr = errno ? errno : EIO;
    return k;
}

av_status av_afile_open(av_afile *f, const char *path, av_err *err) {
    memset(f, 0, sizeof *f);
    if (!path || !path[0]) return av_fail(err, AV_EUSAGE, "cannot write '': empty file name");
    size_t n = strlen(path);
    if (path[n - 1] == '/') return av_fail(err, AV_EUSAGE, "cannot write %s: name ends in '/'", AV_SHOWN_WORD(path, 4200));

    /* tmp = "<dir>/.<base>.tmpXXXXXX" (or ".<base>.tmpXXXXXX" with no dir),
     * in the same folder so that rename(2) stays on one filesystem. */
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0; /* includes the '/' */
    const char *base = path + dirlen;
    int k = snprintf(f->tmp, sizeof f->tmp, "%.*s.%s.tmpXXXXXX", (int)dirlen, path, base);
    if (n >= sizeof f->path || k < 0 || (size_t)k >= sizeof f->tmp) {
        f->tmp[0] = 0;
        return av_fail(err, AV_EUSAGE, "cannot write %s: path is longer than %zu bytes", AV_SHOWN_WORD(path, 249),
                       sizeof f->tmp - 20);
    }
    memcpy(f->path, path, n + 1);

    int fd = open_tracked_tmp(f);
    if (fd < 0) {
        int e = errno;
        f->tmp[0] = 0;
        return create_error(err, path, e);
    }
    /* Created 0666 as fopen creates a file, so the kernel gives it the mode a plain fopen would: 0666 less the
     * umask, or, in a folder with a default ACL (setfacl -d -m g:class:rwx, a class's shared folder), that ACL
     * in place of the umask. (It was made 0600 and then fchmod'ed to 0666 & ~umask, which under such an ACL
     * made 0644 figures the group could not rewrite, where `touch` gave 0664.) Source: open(2), acl(5). */
    f->fp = fdopen(fd, "wb");
    if (!f->fp) {
        int e = errno;
        close(fd);
        unlink(f->tmp);
        untrack_tmp(f);
        f->tmp[0] = 0;
        return av_fail(err, AV_ERUNTIME, "cannot write %s: %s", AV_SHOWN_WORD(path, 4200), strerror(e));
    }
    return AV_OK;
}

/* Put f->tmp in place of an existing regular file or symbolic link at
 * f->path by swapping the two names (renameat2 RENAME_EXCHANGE, Linux 3.15;
 * atomic like rename: a reader of path sees the old file or the new one),
 * then unlink the old file, which now has the temporary's name (the Ctrl-C
 * handler still removes it if the process dies in between). Returns 1 if
 * done, 0 when the caller should rename(2) instead: nothing at path, a folder
 * or other non-file there (rename then gives its own error, "Is a
 * directory"), no renameat2, or a file system without RENAME_EXCHANGE.
 *
 * Why: ext4 (mount option auto_da_alloc, the default) starts writing the new
 * file's data to disk when rename(2) replaces an existing file, and rename
 * waits for that to be submitted. A figure run that replaces its 9 PNGs paid
 * 2.2-3.8 ms for it on these VMs against 0.6-0.8 ms this way (medians of 10,
 * 9 files of 50-150 KB). The price: after a power cut the new file may be
 * empty, which rename alone also allows for a new name; nothing here ever
 * promised durability (no fsync). Source: rename(2), ext4(5). */
static int replace_by_exchange(av_afile *f) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    struct stat st;
    if (lstat(f->path, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) return 0;
    if (renameat2(AT_FDCWD, f->tmp, AT_FDCWD, f->path, RENAME_EXCHANGE) != 0) return 0;
    unlink(f->tmp); /* the old file; if this fails it stays under the hidden temporary name */
    return 1;
#else
    (void)f;
    return 0;
#endif
}

/* 1 if s is exactly six of the characters a temporary's name ends in (open_tracked_tmp, mkstemp). */
static int six_random_chars(const char *s) {
    static const char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    return strlen(s) == 6 && strspn(s, kChars) == 6;
}

int av_afile_leftover_name(const char *name, char *target, size_t n) {
    static const char kProbe[] = ".attnviz-write-check.";
    if (n) target[0] = 0;
    if (strncmp(name, kProbe, sizeof kProbe - 1) == 0 && six_random_chars(name + sizeof kProbe - 1)) return 2;
    size_t len = strlen(name);
    /* "." + at least one byte + ".tmp" + 6 */
    if (len < 1 + 1 + 4 + 6 || name[0] != '.' || strncmp(name + len - 10, ".tmp", 4) != 0 ||
        !six_random_chars(name + len - 6) || strchr(name, '/'))
        return 0;
    size_t k = len - 11; /* the target's length */
    if (k + 1 > n) return 0;
    memcpy(target, name + 1, k);
    target[k] = 0;
    return 1;
}

static _Thread_local av_afile_set *g_set; /* av_afile_set_begin's set on this thread, or NULL */

/* Hold SIGINT, SIGTERM, SIGHUP and SIGPIPE (the Ctrl-C handler's) on this thread until
 * unhold_signals: for a few system calls that must not be cut in two, as the
 * renames of a set (a signal after the first one, whose handler then removed
 * the other temporaries, left a new model.safetensors beside the old
 * config.json). A signal that came meanwhile is delivered at unhold. */
static void hold_signals(sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

static void unhold_signals(const sigset_t *old) { pthread_sigmask(SIG_SETMASK, old, NULL); }

/* Rename f->tmp over f->path (replace_by_exchange first); on failure the
 * temporary is removed and the error names f->path. */
static av_status put_in_place(av_afile *f, av_err *err) {
    if (!replace_by_exchange(f) && rename(f->tmp, f->path) != 0) {
        int e = errno;
        unlink(f->tmp);
        f->tmp[0] = 0;
        untrack_tmp(f);
        return av_fail(err, AV_ERUNTIME, "cannot write %s: %s", AV_SHOWN_WORD(f->path, 4200), strerror(e));
    }
    f->tmp[0] = 0;
    untrack_tmp(f);
    return AV_OK;
}

void av_afile_set_begin(av_afile_set *set) {
    set->n = 0;
    set->renamed_msg = NULL;
    g_set = set;
}

av_status av_afile_set_end(av_afile_set *set, int commit, av_err *err) {
    g_set = NULL;
    av_status st = AV_OK;
    sigset_t old;
    hold_signals(&old); /* all renamed or none, even on Ctrl-C */
    for (int i = 0; i < set->n; i++) {
        if (commit && !st) st = put_in_place(&set->kept[i], err);
        else av_afile_abort(&set->kept[i]);
    }
    if (commit && !st && set->renamed_msg) av_interrupt_message(set->renamed_msg);
    unhold_signals(&old);
    set->n = 0;
    return st;
}

av_status av_afile_commit(av_afile *f, av_err *err) {
    if (!f->fp || !f->tmp[0]) {
        av_afile_abort(f);
        return av_fail(err, AV_ERUNTIME, "cannot write %s: file is not open", AV_SHOWN_WORD(f->path, 4200));
    }
    /* Collect the first error: fflush pushes the buffered tail (ENOSPC/EFBIG
     * usually shows here), ferror catches an earlier failed fwrite whose errno
     * is gone, and fclose reports what the kernel says on the final write. */
    int e = 0;
    const char *why = NULL;
    if (fflush(f->fp) != 0) e = errno;
    if (!e && f->werr) e = f->werr; /* a failed av_afile_write kept its errno */
    if (!e && ferror(f->fp)) why = "an earlier write failed";
    if (fclose(f->fp) != 0 && !e && !why) e = errno;
    f->fp = NULL;
    if (e || why) {
        unlink(f->tmp);
        f->tmp[0] = 0;
        untrack_tmp(f);
        return av_fail(err, AV_ERUNTIME, "cannot write %s: %s", AV_SHOWN_WORD(f->path, 4200), why ? why : strerror(e));
    }
    if (g_set) { /* kept, complete, for av_afile_set_end: f gives up its temporary */
        if (g_set->n == AV_AFILE_SET_MAX) {
            unlink(f->tmp);
            f->tmp[0] = 0;
            untrack_tmp(f);
            return av_fail(err, AV_ERUNTIME, "cannot write %s: more than %d files in one set", AV_SHOWN_WORD(f->path, 4200),
                           AV_AFILE_SET_MAX);
        }
        g_set->kept[g_set->n++] = *f;
        f->tmp[0] = 0;
        f->slot = 0;
        return AV_OK;
    }
    return put_in_place(f, err);
}

void av_afile_abort(av_afile *f) {
    if (!f) return;
    if (f->fp) fclose(f->fp);
    f->fp = NULL;
    if (f->tmp[0]) unlink(f->tmp);
    f->tmp[0] = 0;
    untrack_tmp(f);
}

/* ------------------------------------------------------------------------- */
/* mkdir -p */

/* Make one component; an existing folder is fine. */
static av_status mkdir_one(const char *dir, const char *part, av_err *err) {
    pthread_once(&g_handlers_once, install_handlers); /* before the folder: a signal from now on takes it away */
    if (mkdir(part, 0777) == 0) { /* & ~umask, as mkdir -p */
        int n = atomic_load(&g_made_n);
        size_t len = strlen(part);
        while (len > 1 && part[len - 1] == '/') len--;
        if (n < MADE_SLOTS && len < sizeof g_made[0]) {
            memcpy(g_made[n], part, len);
            g_made[n][len] = 0;
            atomic_store(&g_made_n, n + 1);
        }
        return AV_OK;
    }
    int e = errno;
    struct stat st;
    if (stat(part, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return AV_OK;
        return av_fail(err, AV_ERUNTIME, "cannot create folder %s: %s exists and is not a folder",
                       AV_SHOWN_WORD(dir, 4200), AV_SHOWN_WORD(part, 4200));
    }
    char target[4096]; /* a link's whole target (PATH_MAX): 256 bytes cut a longer one, with no sign of the cut */
    ssize_t tn;
    int why = stat(part, &st) == 0 ? 0 : errno; /* ENOENT: the link's target is missing; ELOOP: a loop */
    if (e == EEXIST && lstat(part, &st) == 0 && S_ISLNK(st.st_mode) &&
        (tn = readlink(part, target, sizeof target - 1)) >= 0) { /* mkdir's "File exists" said nothing of the link */
        target[tn] = 0;
        return av_fail(err, AV_ERUNTIME, "cannot create folder %s: %s is a symbolic link to %s, %s",
                       AV_SHOWN_WORD(dir, 252), AV_SHOWN_WORD(part, 252), AV_SHOWN_WORD(target, 305), why == ELOOP ? "which leads back to itself (a loop of links)"
                                                             : "which does not exist");
    }
    if (e == ENAMETOOLONG) /* bad input like the whole name past 4095 bytes below (exit 2), not a failure */
        return av_fail(err, AV_EUSAGE, "cannot create folder %s: a name in it is too long (at most %ld bytes "
                       "a name)", AV_SHOWN_WORD(dir, 252), (long)pathconf(".", _PC_NAME_MAX));
    if (strcmp(dir, part) == 0) return av_fail(err, AV_ERUNTIME, "cannot create folder %s: %s", AV_SHOWN_WORD(dir, 252), strerror(e));
    return av_fail(err, AV_ERUNTIME, "cannot create folder %s: %s: %s", AV_SHOWN_WORD(dir, 252), AV_SHOWN_WORD(part, 252), strerror(e));
}

av_status av_mkdir_p(const char *dir, av_err *err) {
    if (!dir || !dir[0]) return av_fail(err, AV_EUSAGE, "cannot create folder '': empty name");
    char buf[4096];
    size_t n = strlen(dir);
    if (n + 32 >= sizeof buf) /* room for the files written in it ("/.attnviz-write-check.XXXXXX") */
        return av_fail(err, AV_EUSAGE, "cannot create folder %s: the name is %zu bytes long; at most %zu",
                       AV_SHOWN_WORD(dir, 249), n, sizeof buf - 33);
    memcpy(buf, dir, n + 1);
    /* Create each prefix ending before a '/', then the whole name. */
    for (size_t i = 1; i < n; i++) {
        if (buf[i] != '/' || buf[i - 1] == '/') continue;
        buf[i] = 0;
        av_status s = mkdir_one(dir, buf, err);
        buf[i] = '/';
        if (s) return s;
    }
    return mkdir_one(dir, buf, err);
}

void av_remove_empty_made_folders(void) {
    sigset_t old;
    hold_signals(&old); /* the handler's own pass cannot meet this one half-way */
    remove_empty_made_folders();
    unhold_signals(&old);
}

int av_folder_made_here(const char *dir) {
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--;
    for (int i = 0, n = atomic_load(&g_made_n); i < n; i++)
        if (strlen(g_made[i]) == len && memcmp(g_made[i], dir, len) == 0) return 1;
    return 0;
}

av_status av_dir_writable(const char *dir, av_err *err) {
    av_status s = av_mkdir_p(dir, err);
    if (s) return s;
    char probe[4200];
    av_path_join(probe, sizeof probe, dir, ".attnviz-write-check.XXXXXX");
    sigset_t old;
    hold_signals(&old); /* made and removed before a Ctrl-C is handled: it left the probe file behind */
    int fd = mkstemp(probe), e = fd < 0 ? errno : 0;
    if (fd < 0) {
        unhold_signals(&old);
        return av_fail(err, AV_ERUNTIME, "cannot write in folder %s: %s", AV_SHOWN_WORD(dir, 252), strerror(e));
    }
    e = write(fd, "x", 1) == 1 ? 0 : errno ? errno : EIO;
    if (close(fd) != 0 && !e) e = errno;
    unlink(probe);
    unhold_signals(&old);
    if (e) return av_fail(err, AV_ERUNTIME, "cannot write in folder %s: %s", AV_SHOWN_WORD(dir, 252), strerror(e));
    return AV_OK;
}

/* ------------------------------------------------------------------------- */
/* whole-file read */

/* size: the file's bytes when known (a regular file's fstat), else -1 (a pipe, read up to the limit only):
 * `-f big.txt` said "is larger than the 1048576-byte limit" without saying by how much (a pass's report). */
static av_status too_large(av_err *err, const char *path, size_t max_bytes, long long size) {
    if (strcmp(path, "-") == 0)
        av_fail(err, AV_EUSAGE, "standard input is larger than the %zu-byte limit", max_bytes);
    else if (size >= 0)
        av_fail(err, AV_EUSAGE, "input file %s (%lld bytes) is larger than the %zu-byte limit", AV_SHOWN_WORD(path, 4200), size,
                max_bytes);
    else
        av_fail(err, AV_EUSAGE, "input file %s is larger than the %zu-byte limit", AV_SHOWN_WORD(path, 4200), max_bytes);
    if (err) err->too_large = 1;
    return AV_EUSAGE;
}

av_status av_dangling_link(const char *path, av_err *err) {
    struct stat st;
    char target[4096]; /* a link's whole target (PATH_MAX): 256 bytes cut a longer one, with no sign of the cut */
    ssize_t tn;
    int why = stat(path, &st) == 0 ? 0 : errno; /* ENOENT: the link's target is missing; ELOOP: a loop */
    if ((why != ENOENT && why != ELOOP) || lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) return AV_OK;
    if ((tn = readlink(path, target, sizeof target - 1)) < 0) return AV_OK;
    target[tn] = 0;
    return av_fail(err, AV_EUSAGE, "%s is a symbolic link to %s, %s", AV_SHOWN_WORD(path, 4200), AV_SHOWN_WORD(target, 1100),
                   why == ELOOP ? "which leads back to itself (a loop of links)" : "which does not exist");
}

av_status av_input_path_status(int e) {
    return e == ENOENT || e == ENOTDIR || e == EISDIR || e == ELOOP ? AV_EUSAGE : AV_ERUNTIME;
}

av_status av_read_file(const char *path, size_t max_bytes, char **out, size_t *len, av_err *err) {
    *out = NULL;
    *len = 0;
    int is_stdin = strcmp(path, "-") == 0;
    /* for I/O messages, as a user's path is shown (av_utf8_shown_name): -f $'x\u202eq' turned the rest around;
     * standard input is no path and goes unquoted, as in "standard input is larger than ..." */
    char quoted[4204];
    snprintf(quoted, sizeof quoted, "%s", AV_SHOWN_WORD(path, 4200));
    const char *shown = is_stdin ? "standard input" : quoted;
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    if (!fp) {
        int e = errno;
        /* `-f l2`, l2 a link to a missing file, said "cannot read l2: No such file or directory", and the user
         * found l2 there: say what --model says of such a config.json */
        av_status dl = !is_stdin && (e == ENOENT || e == ELOOP) ? av_dangling_link(path, err) : AV_OK;
        if (dl) return dl;
        return av_fail(err, av_input_path_status(e), "cannot read %s: %s", shown, strerror(e));
    }

    /* A regular file's size is a good first guess (and an early "too large");
     * stdin, pipes and files that grow while we read are handled by the loop. */
    size_t cap = 64 * 1024;
    struct stat st;
    /* fopen opens a folder, and standard input may be one (`attnviz -f - < docs`): its read fails with EISDIR,
     * which was exit 1 for "-" where -f /dev/stdin and -f docs were exit 2 (a tester's pass) */
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        if (!is_stdin) fclose(fp);
        return av_fail(err, AV_EUSAGE, "cannot read %s: %s", shown, strerror(EISDIR));
    }
    if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0) {
        /* (stdin may be a file read from an offset: no early verdict there) */
        if (!is_stdin && (uintmax_t)st.st_size > (uintmax_t)max_bytes) {
            fclose(fp);
            return too_large(err, path, max_bytes, (long long)st.st_size);
        }
        if ((uintmax_t)st.st_size < (uintmax_t)max_bytes)
            cap = (size_t)st.st_size + 1; /* +1 so EOF is seen without a regrow */
    }
    if (cap > max_bytes && max_bytes < SIZE_MAX) cap = max_bytes + 1;
    if (cap == 0) cap = 1;

    char *buf = malloc(cap + 1); /* +1 for the terminating NUL */
    if (!buf) {
        if (!is_stdin) fclose(fp);
        return av_fail(err, AV_ERUNTIME, "cannot read %s: out of memory", shown);
    }
    size_t n = 0;
    av_status s = AV_OK;
    for (;;) {
        if (n == cap) {
            if (n > max_bytes) break; /* already past the limit */
            size_t ncap = cap < SIZE_MAX / 2 ? cap * 2 : SIZE_MAX - 1;
            if (max_bytes < SIZE_MAX && ncap > max_bytes + 1) ncap = max_bytes + 1;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                s = av_fail(err, AV_ERUNTIME, "cannot read %s: out of memory", shown);
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t k = fread(buf + n, 1, cap - n, fp);
        n += k;
        if (k == 0 || n < cap) {
            if (ferror(fp)) s = av_fail(err, AV_ERUNTIME, "cannot read %s: %s", shown, strerror(errno));
            if (feof(fp) || ferror(fp)) break;
        }
    }
    if (is_stdin) clearerr(fp);
    else fclose(fp);
    if (s == AV_OK && n > max_bytes) s = too_large(err, path, max_bytes, -1);
    if (s) {
        free(buf);
        return s;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return AV_OK;
}

/* the partial file of dir/name's download (relative to dir) into found: 1, or 0 when there is none */
static int partial_download(char found[300], const char *dir, const char *name) {
    static const char *const ends[] = {".incomplete", ".part"};
    char path[4200], rel[300];
    struct stat sb;
    for (int i = 0; i < 2; i++) {
        snprintf(rel, sizeof rel, "%s%s", name, ends[i]);
        av_path_join(path, sizeof path, dir, rel);
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) return snprintf(found, 300, "%s", rel), 1;
    }
    static const char cache[] = ".cache/huggingface/download";
    av_path_join(path, sizeof path, dir, cache);
    DIR *d = opendir(path);
    char best[256] = "";
    int own = 0; /* best begins "name." (huggingface_hub 0.23's "NAME.ETAG.incomplete") */
    size_t nl = strlen(name);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len >= sizeof best || len <= 11 || strcmp(e->d_name + len - 11, ".incomplete")) continue;
        int mine = len > nl + 1 && !strncmp(e->d_name, name, nl) && e->d_name[nl] == '.';
        if (!best[0] || mine > own || (mine == own && strcmp(e->d_name, best) < 0))
            snprintf(best, sizeof best, "%s", e->d_name), own = mine;
    }
    if (d) closedir(d);
    if (best[0]) snprintf(found, 300, "%s/%.255s", cache, best);
    return best[0] != 0;
}

av_status av_unfinished_download(const char *dir, const char *name, av_err *err) {
    char found[300];
    if (!partial_download(found, dir, name)) return AV_OK;
    return av_fail(err, AV_EUSAGE, "--model %s has no %s, but holds %s, the partial file of a download that did not "
                   "finish; run the download again to finish it (hf download resumes where it stopped)",
                   AV_SHOWN_WORD(dir, 1200), name, AV_SHOWN_WORD(found, 400));
}

int av_lfs_pointer(const void *head, size_t have, size_t file_len) {
    const char *h = head;
    return file_len < 1024 && have >= 8 && memcmp(h, "version ", 8) == 0 && (have < 16 || memcmp(h + 8, "https://", 8) == 0);
}

av_status av_lfs_pointer_fail(const char *named, size_t len, const char *what, av_err *err) {
    return av_fail(err, AV_EUSAGE, "%s: a Git LFS pointer file (%zu bytes of text beginning \"version \"), not %s: the "
                   "model was cloned without Git LFS; run git lfs install && git lfs pull in its folder, or download the "
                   "file itself (e.g. hf download)", named, len, what);
}

av_status av_read_regular_file(const char *path, size_t max_bytes, char **out, size_t *len, av_err *err) {
    struct stat sb;
    *out = NULL;
    *len = 0;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) /* a folder too: the one wording av_safetensors_open gives */
        return av_not_regular(path, sb.st_mode, err);
    av_status s = av_read_file(path, max_bytes, out, len, err);
    /* a clone without Git LFS: tokenizer.json, config.json, ... as a pointer said "not valid JSON near byte 0" */
    if (!s && av_lfs_pointer(*out, *len, *len)) {
        s = av_lfs_pointer_fail(AV_SHOWN_WORD(path, 4200), *len, "the file's contents", err);
        free(*out);
        *out = NULL;
        *len = 0;
    }
    return s;
}

void av_file_ids_note(av_file_id *ids, const char *dir, const char *const *names, int n) {
    char path[4200];
    for (int i = 0; i < n; i++) {
        struct stat sb;
        av_path_join(path, sizeof path, dir, names[i]);
        memset(&ids[i], 0, sizeof ids[i]);
        if (stat(path, &sb) != 0) {
            ids[i].err_no = errno;
            continue;
        }
        ids[i].present = 1;
        ids[i].dev = (unsigned long long)sb.st_dev, ids[i].ino = (unsigned long long)sb.st_ino;
        ids[i].size = (long long)sb.st_size;
        ids[i].mtime_s = (long long)sb.st_mtim.tv_sec, ids[i].mtime_ns = (long long)sb.st_mtim.tv_nsec;
    }
}

int av_file_ids_changed(const av_file_id *a, const av_file_id *b, int n) {
    for (int i = 0; i < n; i++)
        if (a[i].present != b[i].present || a[i].err_no != b[i].err_no || a[i].dev != b[i].dev ||
            a[i].ino != b[i].ino || a[i].size != b[i].size || a[i].mtime_s != b[i].mtime_s ||
            a[i].mtime_ns != b[i].mtime_ns)
            return i;
    return -1;
}

av_status av_not_regular(const char *path, unsigned mode, av_err *err) {
    return av_fail(err, AV_EUSAGE, "cannot read %s: it is %s, not a regular file", AV_SHOWN_WORD(path, 4200),
                   S_ISDIR(mode) ? "a folder" : S_ISFIFO(mode) ? "a FIFO" : S_ISSOCK(mode) ? "a socket" : "a device");
}

/* The length of dir without its trailing '/': "out//" -> "out"; "/" and "//" -> "/". */
static size_t trimmed_len(const char *dir) {
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--;
    return len;
}

void av_path_shown(char *out, size_t n, const char *dir) {
    /* Lexically, part by part: empty parts ("//") and "." parts are dropped, ".." is kept (past a symbolic
     * link it is not the text before it). `--model ./train` and `--model train`, or `-w a//w`, gave other
     * titles and run ids than the same folder typed plainly, and removed each other's figures (a pass's report). */
    size_t len = trimmed_len(dir), k = 0;
    char *buf = malloc(len + 2);
    if (!buf) {
        snprintf(out, n, "%.*s", (int)len, dir);
        return;
    }
    if (len > 0 && dir[0] == '/') buf[k++] = '/';
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && dir[j] != '/') j++;
        if (j > i && !(j - i == 1 && dir[i] == '.')) {
            if (k > 0 && buf[k - 1] != '/') buf[k++] = '/';
            memcpy(buf + k, dir + i, j - i), k += j - i;
        }
        i = j + 1;
    }
    if (k == 0 && len > 0) buf[k++] = '.'; /* "./" and "." */
    buf[k] = 0;
    snprintf(out, n, "%s", buf);
    free(buf);
}

void av_path_split(char *folder, size_t nf, char *last, size_t nl, const char *path) {
    size_t len = trimmed_len(path), start = len, flen;
    while (start > 0 && path[start - 1] != '/') start--;
    for (flen = start; flen > 1 && path[flen - 1] == '/';) flen--; /* "/revers" keeps its "/" */
    snprintf(last, nl, "%.*s", (int)(len - start), path + start);
    if (nf) snprintf(folder, nf, "%.*s", (int)flen, path);
}

void av_path_join(char *out, size_t n, const char *dir, const char *name) {
    size_t len = trimmed_len(dir);
    const char *sep = len == 0 || dir[len - 1] == '/' ? "" : "/";
    snprintf(out, n, "%.*s%s%s", (int)len, dir, sep, name);
}
