/* test_fileio.c - atomic writer, mkdir -p, whole-file read, path joining.
 *
 * Every failure test also lists the folder afterwards: no ".tmp" file may be
 * left behind and an existing target must still hold its old bytes.
 *
 * How write failures are produced (the tests run as root in CI, where a
 * read-only folder does not stop writes, so chmod alone proves nothing):
 *   - ENOSPC: after av_afile_open, the handle's FILE* is pointed at /dev/full.
 *     The temporary file really exists in the folder; commit then meets a real
 *     kernel ENOSPC in fflush and must report it and remove the temporary.
 *     (A target path cannot simply be /dev/full: the writer would create its
 *     temporary in /dev and rename it over the device.)
 *   - EFBIG: RLIMIT_FSIZE is lowered to 4 KiB (SIGXFSZ ignored) while 64 KiB
 *     are written through the unmodified handle, so the real temporary file
 *     hits the limit, as it would hit a full disk.
 *   - rename failure: the target is a non-empty folder.
 *   - unwritable folder: as root, a forked child drops to uid 65534 first.
 * Making the folder read-only between open and commit is not used: rename
 * would fail, but so would unlinking the temporary, which is then left behind
 * by design of the file system, not by a bug in the writer.
 */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "testutil.h"

#include "io/fileio.h"

/* ------------------------------------------------------------------------- */
/* helpers */

typedef tu_fixture fixture;
#define teardown tu_teardown_tmpdir
#define in_dir tu_in

static int setup(void **state) {
    umask(022); /* the mode tests expect 0644 */
    return tu_setup_tmpdir(state);
}

/* Number of entries in dir whose name contains ".tmp". */
static int count_tmp(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp")) n++;
    closedir(d);
    return n;
}

static void put_file(const char *path, const char *text) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

static void assert_file_text(const char *path, const char *text) {
    char *buf = NULL;
    size_t len = 0;
    av_err err = {{0}};
    if (av_read_file(path, 1u << 20, &buf, &len, &err)) fail_msg("%s", err.msg);
    assert_int_equal(len, strlen(text));
    assert_memory_equal(buf, text, len);
    free(buf);
}

/* ------------------------------------------------------------------------- */
/* atomic writer: success */

/* av_afile_leftover_name knows the temporary of a real av_afile_open, and nothing that merely looks like one. */
static void test_leftover_name_is_the_writers_form_only(void **state) {
    (void)state;
    char dir[] = "/tmp/av_leftoverXXXXXX", path[64], target[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/attention.gif", dir);
    av_afile f;
    av_err err;
    assert_int_equal(av_afile_open(&f, path, &err), AV_OK);
    assert_int_equal(av_afile_leftover_name(strrchr(f.tmp, '/') + 1, target, sizeof target), 1);
    assert_string_equal(target, "attention.gif");
    av_afile_abort(&f);
    rmdir(dir);
    assert_int_equal(av_afile_leftover_name(".attnviz-write-check.Ab12Cd", target, sizeof target), 2);
    static const char *const kNot[] = {".notes.tmp", "attention.gif.tmp1", ".attention.gif.tmp1",
                                       ".attention.gif.tmpAB-12C", ".attention.gif.tmpABCDEFG", "..tmpABCDEF",
                                       ".tmpABCDEF", ".attnviz-write-check.Ab12C", ""};
    for (size_t i = 0; i < sizeof kNot / sizeof kNot[0]; i++)
        if (av_afile_leftover_name(kNot[i], target, sizeof target)) fail_msg("'%s' taken for a temporary", kNot[i]);
    assert_int_equal(av_afile_leftover_name(".a.png.tmpABCDEF", target, 5), 0); /* "a.png" needs 6 bytes */
}

/* A name too long for a folder or a file: the message shows its start, cut, with one "..." after it. Since
 * av_shown_word marks its own cut (856f16a), the formats' "%s...:" printed "a/a/...a......:" (from rereading the
 * change). By hand: "a/" 2040 times is 4080 bytes, past av_mkdir_p's 4063 and av_afile_open's path room. */
static void test_too_long_name_is_marked_cut_once(void **state) {
    (void)state;
    static char name[4200];
    name[0] = 0;
    for (int i = 0; i < 2040; i++) strcat(name, "a/");
    av_err err;
    assert_int_equal(av_mkdir_p(name, &err), AV_EUSAGE);
    if (!strstr(err.msg, "a...: the name is 4080 bytes long; at most 4063") || strstr(err.msg, "......"))
        fail_msg("%s", err.msg);
    strcat(name, "x.png");
    av_afile f;
    assert_int_equal(av_afile_open(&f, name, &err), AV_EUSAGE);
    if (!strstr(err.msg, "a...: path is longer than ") || strstr(err.msg, "......")) fail_msg("%s", err.msg);
}

static void test_commit_renames_into_place(void **state) {
    fixture *f = *state;
    const char *p = in_dir(f, "head0.txt");
    av_afile a;
    av_err err = {{0}};
    assert_int_equal(av_afile_open(&a, p, &err), AV_OK);
    /* the temporary lives in the same folder as ".head0.txt.tmpXXXXXX" */
    assert_int_equal(strncmp(a.tmp, in_dir(f, ".head0.txt.tmp"), strlen(in_dir(f, ".head0.txt.tmp"))), 0);
    assert_true(file_exists(a.tmp));
    assert_false(file_exists(p)); /* nothing visible under the final name yet */
    fputs("hello\n", a.fp);
    assert_int_equal(av_afile_commit(&a, &err), AV_OK);
    assert_file_text(p, "hello\n");
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    assert_int_equal(count_entries(f->dir), 1);
    assert_int_equal(count_tmp(f->dir), 0);
    av_afile_abort(&a); /* harmless after commit; must not remove the file */
    assert_file_text(p, "hello\n");
}

static void test_commit_replaces_existing_file(void **state) {
    fixture *f = *state;
    const char *p = in_dir(f, "out.txt");
    put_file(p, "old contents");
    av_afile a;
    av_err err = {{0}};
    assert_int_equal(av_afile_open(&a, p, &err), AV_OK);
    fputs("new", a.fp);
    fflush(a.fp);
    assert_file_text(p, "old contents"); /* readers see the old file until commit */
    assert_int_equal(av_afile_commit(&a, &err), AV_OK);
    assert_file_text(p, "new");
    assert_int_equal(count_entries(f->dir), 1);
}

/* Replacing an existing file swaps the two names (renameat2 RENAME_EXCHANGE)
 * and unlinks the old file: the result must be what rename(2) gives. */
static void test_commit_replaces_file_and_keeps_its_other_links(void **state) {
    fixture *f = *state;
    const char *p = in_dir(f, "out.png"), *other = in_dir(f, "hardlink.png");
    put_file(p, "old");
    assert_int_equal(link(p, other), 0);
    FILE *reader = fopen(p, "rb"); /* a reader that opened the old file keeps reading it */
    assert_non_null(reader);
    av_afile a;
    av_err err = {{0}};
    assert_int_equal(av_afile_open(&a, p, &err), AV_OK);
    fputs("new", a.fp);
    assert_int_equal(av_afile_commit(&a, &err), AV_OK);
    assert_file_text(p, "new");
    assert_file_text(other, "old"); /* the old inode lost one name, not its data */
    struct stat st;
    assert_int_equal(stat(other, &st), 0);
    assert_int_equal(st.st_nlink, 1);
    char buf[8] = {0};
    assert_int_equal(fread(buf, 1, sizeof buf - 1, reader), 3);
    assert_string_equal(buf, "old");
    fclose(reader);
    assert_int_equal(count_tmp(f->dir), 0);
    assert_int_equal(count_entries(f->dir), 2);
}

static void test_commit_replaces_symlink_not_its_target(void **state) {
    fixture *f = *state;
    const char *p = in_dir(f, "link.png"), *target = in_dir(f, "target.png");
    put_file(target, "target stays");
    assert_int_equal(symlink("target.png", p), 0);
    av_afile a;
    av_err err = {{0}};
    assert_int_equal(av_afile_open(&a, p, &err), AV_OK);
    fputs("new", a.fp);
    assert_int_equal(av_afile_commit(&a, &err), AV_OK);
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISREG(st.st_mode)); /* the name now holds a plain file, as rename(2) leaves it */
    assert_file_text(p, "new");
    assert_file_text(target, "target stays");
    assert_int_equal(count_tmp(f->dir), 0);
    assert_int_equal(count_entries(f->dir), 2);
}

static void test_relative_name_without_folder(void **state) {
    fixture *f = *state;
    char old[4096];
    assert_non_null(getcwd(old, sizeof old));
    assert_int_equal(chdir(f->dir), 0);
    av_afile a;
    av_err err = {{0}};
    av_status s = av_afile_open(&a, "plain.txt", &err);
    if (s == AV_OK) {
        fputs("x", a.fp);
        s = av_afile_commit(&a, &err);
    }
    assert_int_equal(chdir(old), 0);
    assert_int_equal(s, AV_OK);
    assert_file_text(in_dir(f, "plain.txt"), "x");
    assert_int_equal(count_entries(f->dir), 1);
}

static void test_umask_is_honoured(void **state) {
    fixture *f = *state;
    mode_t old = umask(077);
    av_afile a;
    av_err err = {{0}};
    av_status s = av_afile_open(&a, in_dir(f, "private.txt"), &err);
    if (s == AV_OK) s = av_afile_commit(&a, &err);
    umask(old);
    assert_int_equal(s, AV_OK);
    struct stat st;
    assert_int_equal(stat(in_dir(f, "private.txt"), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    /* a group-shared folder's umask 002: 0664 files and 0775 folders, as fopen and mkdir -p give (files were
     * capped at 0644 and folders made 0755) */
    old = umask(002);
    s = av_mkdir_p(in_dir(f, "shared/figs"), &err);
    if (s == AV_OK) s = av_afile_open(&a, in_dir(f, "shared/figs/head0.png"), &err);
    if (s == AV_OK) s = av_afile_commit(&a, &err);
    umask(old);
    assert_int_equal(s, AV_OK);
    assert_int_equal(stat(in_dir(f, "shared/figs/head0.png"), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0664);
    assert_int_equal(stat(in_dir(f, "shared"), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0775);
    assert_int_equal(stat(in_dir(f, "shared/figs"), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0775);
}

/* Ctrl-C (SIGINT), SIGTERM or SIGHUP while files are open removes every
 * temporary, also when two are open at once (render/pngbatch.c writes a PNG
 * on its worker while the caller writes an SVG) and one of them is committed
 * first. The signal ends a forked child; the folder must then hold only the
 * committed file. */
static void test_signal_removes_every_open_temporary(void **state) {
    fixture *f = *state;
    for (int commit_b = 0; commit_b < 2; commit_b++) {
        char dir[4000];
        snprintf(dir, sizeof dir, "%s", in_dir(f, commit_b ? "sig1" : "sig0"));
        assert_int_equal(mkdir(dir, 0755), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            char pa[4300], pb[4300];
            snprintf(pa, sizeof pa, "%s/a.png", dir);
            snprintf(pb, sizeof pb, "%s/b.svg", dir);
            av_afile a, b;
            av_err err = {{0}};
            if (av_afile_open(&a, pa, &err) || av_afile_open(&b, pb, &err)) _exit(3);
            if (commit_b && av_afile_commit(&b, &err)) _exit(4);
            raise(SIGTERM);
            _exit(5); /* not reached: the handler re-raises with the default action */
        }
        int st = 0;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        if (!WIFSIGNALED(st)) fail_msg("child exit %d, not ended by SIGTERM", WEXITSTATUS(st));
        assert_int_equal(WTERMSIG(st), SIGTERM);
        assert_int_equal(count_tmp(dir), 0);
        assert_int_equal(count_entries(dir), commit_b);
    }
}

/* ------------------------------------------------------------------------- */
/* atomic writer: abort and failures */

static void test_abort_leaves_no_temp_and_old_file_survives(void **state) {
    fixture *f = *state;
    const char *p = in_dir(f, "keep.txt");
    put_file(p, "precious");
    av_afile a;
    av_err err = {{0}};
    assert_int_equal(av_afile_open(&a, p, &err), AV_OK);
    fputs("half-writ", a.fp);
    av_afile_abort(&a);
    assert_null(a.fp);
    assert_file_text(p, "precious");
    assert_int_equal(count_entries(f->dir), 1);
    assert_int_equal(count_tmp(f->dir), 0);
}

static void test_abort_is_safe_twice_and_on_zeroed_handle(void **state) {
    (void)state;
    av_afile a;
    memset(&a, 0, sizeof a);
    av_afile_abort(&a);
    av_afile_abort(&a);
    av_afile_abort(NULL);
    /* commit on a handle that was never opened is an error, not a crash */
    av_err err = {{0}};
    assert_int_equal(av_afile_commit(&a, &err), AV_ERUNTIME);
    assert_non_null(strstr(err.msg, "not open"));
}

static void test_open_into_missing_folder_names_it(void **state) {
    fixture *f = *state;
    const char *p = in_dir(f, "out/head0.png");
    av_afile a;
    av_err err = {{0}};
    assert_int_equal(av_afile_open(&a, p, &err), AV_ERUNTIME);
    assert_non_null(strstr(err.msg, tu_sh_word(p)));
    assert_non_null(strstr(err.msg, "does not exist"));
    assert_null(a.fp);
    av_afile_abort(&a); /* safe after a failed open */
    assert_int_equal(count_entries(f->dir), 0);
}

/* A folder that exists but where no file can be made (procfs: mkstemp in
 * /proc/self fails with ENOENT) was reported as "folder '/proc/self' does
 * not exist" (`attnviz -o /proc/self`): now the message says it is there
 * and takes no new files. */
static void test_open_into_folder_that_takes_no_files(void **state) {
    (void)state;
    struct stat st;
    if (stat("/proc/self", &st) != 0) skip();
    av_afile a;
    av_err err = {{0}};
    assert_int_equal(av_afile_open(&a, "/proc/self/head0.png", &err), AV_ERUNTIME);
    if (!strstr(err.msg, "does not take new files")) fail_msg("message: %s", err.msg);
    assert_null(strstr(err.msg, "does not exist"));
    assert_non_null(strstr(err.msg, "cannot write /proc/self/head0.png: folder /proc/self"));
}

static void test_open_into_folder_that_is_a_file(void **state) {
    fixture *f = *state;
    put_file(in_dir(f, "out"), "I am a file");
    const char *p = in_dir(f, "out/head0.png");
    av_afile a;
    av_err err = {{0}};
    assert_int_equal(av_afile_open(&a, p, &err), AV_ERUNTIME);
    assert_non_null(strstr(err.msg, tu_sh_word(p)));
    assert_non_null(strstr(err.msg, "is not a folder"));
    assert_file_text(in_dir(f, "out"), "I am a file");
    assert_int_equal(count_entries(f->dir), 1);
}

static void test_open_with_empty_or_folder_name_is_usage_error(void **state) {
    fixture *f = *state;
    av_afile a;
    av_err err = {{0}};
    assert_int_equal(av_afile_open(&a, "", &err), AV_EUSAGE);
    char p[4096];
    snprintf(p, sizeof p, "%s/", f->dir);
    assert_int_equal(av_afile_open(&a, p, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "ends in '/'"));
    char longp[5000];
    memset(longp, 'a', sizeof longp - 1);
    longp[sizeof longp - 1] = 0;
    assert_int_equal(av_afile_open(&a, longp, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "longer than"));
    assert_int_equal(count_entries(f->dir), 0);
}

static void test_open_into_unwritable_folder(void **state) {
    fixture *f = *state;
    const char *ro = in_dir(f, "ro");
    assert_int_equal(mkdir(ro, 0555), 0);
    assert_int_equal(chmod(ro, 0555), 0);
    assert_int_equal(chmod(f->dir, 0755), 0); /* let uid 65534 reach ro/ */
    const char *p = in_dir(f, "ro/x.png");
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        /* root ignores permission bits, so drop to "nobody" first */
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
        av_afile a;
        av_err err = {{0}};
        av_status s = av_afile_open(&a, p, &err);
        if (write(fds[1], err.msg, strlen(err.msg)) < 0) _exit(4);
        av_afile_abort(&a);
        _exit(s == AV_ERUNTIME ? 0 : 1);
    }
    close(fds[1]);
    char msg[600] = {0};
    ssize_t k = read(fds[0], msg, sizeof msg - 1);
    (void)k;
    close(fds[0]);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    if (WEXITSTATUS(st) == 3) skip(); /* root without CAP_SETUID: cannot test this here */
    if (WEXITSTATUS(st) != 0) fail_msg("child exit %d, message \"%s\"", WEXITSTATUS(st), msg);
    assert_non_null(strstr(msg, tu_sh_word(p)));
    assert_non_null(strstr(msg, "Permission denied"));
    assert_int_equal(count_entries(ro), 0);
}

static void test_commit_catches_enospc_on_dev_full(void **state) {
    fixture *f = *state;
    if (!file_exists("/dev/full")) skip();
    const char *p = in_dir(f, "head0.png");
    put_file(p, "old image");
    av_afile a;
    av_err err = {{0}};
    assert_int_equal(av_afile_open(&a, p, &err), AV_OK);
    assert_int_equal(count_tmp(f->dir), 1);
    /* Point the stream at a device whose every write fails with ENOSPC (see
     * the file comment); the temporary stays in the folder for commit to remove. */
    fclose(a.fp);
    a.fp = fopen("/dev/full", "wb");
    assert_non_null(a.fp);
    fputs("new image bytes", a.fp); /* buffered: the error shows in fflush */
    assert_int_equal(av_afile_commit(&a, &err), AV_ERUNTIME);
    char want[4200];
    snprintf(want, sizeof want, "cannot write %s: No space left on device", tu_sh_word(p));
    assert_string_equal(err.msg, want);
    assert_null(a.fp);
    assert_file_text(p, "old image");
    assert_int_equal(count_tmp(f->dir), 0);
    assert_int_equal(count_entries(f->dir), 1);
}

/* A set of files appears together or not at all: a full disk at the set's second file leaves the first
 * one's old text too (--train wrote a new model.safetensors beside the old config.json, which then
 * claimed another task and step; a new user's report), and a set that succeeds shows nothing of itself
 * until av_afile_set_end renames it, in commit order. */
static void test_set_appears_together_or_not_at_all(void **state) {
    fixture *f = *state;
    if (!file_exists("/dev/full")) skip();
    const char *p1 = in_dir(f, "model.safetensors"), *p2 = in_dir(f, "config.json");
    put_file(p1, "old model");
    put_file(p2, "old config");
    av_afile_set set;
    av_afile a, b;
    av_err err = {{0}};
    av_afile_set_begin(&set);
    assert_int_equal(av_afile_open(&a, p1, &err), AV_OK);
    fputs("new model", a.fp);
    assert_int_equal(av_afile_commit(&a, &err), AV_OK);
    assert_file_text(p1, "old model"); /* kept, not yet in place */
    assert_int_equal(count_tmp(f->dir), 1);
    assert_int_equal(av_afile_open(&b, p2, &err), AV_OK);
    fclose(b.fp);
    b.fp = fopen("/dev/full", "wb"); /* ENOSPC, as in test_commit_catches_enospc_on_dev_full */
    assert_non_null(b.fp);
    fputs("new config", b.fp);
    assert_int_equal(av_afile_commit(&b, &err), AV_ERUNTIME);
    assert_int_equal(av_afile_set_end(&set, 0, NULL), AV_OK);
    assert_file_text(p1, "old model");
    assert_file_text(p2, "old config");
    assert_int_equal(count_tmp(f->dir), 0);
    assert_int_equal(count_entries(f->dir), 2);
    /* and a set that succeeds replaces both */
    av_afile_set_begin(&set);
    assert_int_equal(av_afile_open(&a, p1, &err), AV_OK);
    fputs("new model", a.fp);
    assert_int_equal(av_afile_commit(&a, &err), AV_OK);
    assert_int_equal(av_afile_open(&b, p2, &err), AV_OK);
    fputs("new config", b.fp);
    assert_int_equal(av_afile_commit(&b, &err), AV_OK);
    assert_file_text(p2, "old config");
    av_afile_abort(&a); /* a gave its temporary to the set: a no-op */
    assert_int_equal(count_tmp(f->dir), 2);
    assert_int_equal(av_afile_set_end(&set, 1, &err), AV_OK);
    assert_file_text(p1, "new model");
    assert_file_text(p2, "new config");
    assert_int_equal(count_tmp(f->dir), 0);
    /* outside a set, a commit is in place at once again */
    assert_int_equal(av_afile_open(&a, p1, &err), AV_OK);
    fputs("newer", a.fp);
    assert_int_equal(av_afile_commit(&a, &err), AV_OK);
    assert_file_text(p1, "newer");
}

static void test_commit_catches_file_size_limit(void **state) {
    fixture *f = *state;
    const char *p = in_dir(f, "big.bin");
    put_file(p, "old");
    av_afile a;
    av_err err = {{0}};
    assert_int_equal(av_afile_open(&a, p, &err), AV_OK);

    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 4096;
    void (*old_sig)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    static char block[65536];
    memset(block, 'x', sizeof block);
    size_t wrote = fwrite(block, 1, sizeof block, a.fp); /* fails part way */
    av_status s = av_afile_commit(&a, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_sig);

    assert_true(wrote < sizeof block);
    assert_int_equal(s, AV_ERUNTIME);
    assert_non_null(strstr(err.msg, tu_sh_word(p)));
    /* glibc reports either the failed flush (EFBIG) or, when fwrite already
     * failed and emptied its buffer, the sticky stream error. */
    if (!strstr(err.msg, "File too large") && !strstr(err.msg, "an earlier write failed"))
        fail_msg("unexpected message: %s", err.msg);
    assert_file_text(p, "old");
    assert_int_equal(count_tmp(f->dir), 0);
    assert_int_equal(count_entries(f->dir), 1);
}

/* A folder under the target name, with files in it or empty: rename(2)
 * refuses (EISDIR). For the empty one, swapping the names (the writer's way
 * to replace a file, renameat2 RENAME_EXCHANGE) would have succeeded and
 * moved the folder to the temporary's name; it is only used over a file. */
static void test_commit_rename_failure_removes_temp(void **state) {
    fixture *f = *state;
    for (int empty = 0; empty < 2; empty++) {
        const char *p = in_dir(f, empty ? "empty" : "taken");
        assert_int_equal(mkdir(p, 0755), 0);
        if (!empty) put_file(in_dir(f, "taken/inside"), "stay");
        av_afile a;
        av_err err = {{0}};
        assert_int_equal(av_afile_open(&a, p, &err), AV_OK);
        fputs("data", a.fp);
        assert_int_equal(av_afile_commit(&a, &err), AV_ERUNTIME);
        assert_non_null(strstr(err.msg, tu_sh_word(p)));
        assert_non_null(strstr(err.msg, "Is a directory"));
        struct stat st;
        assert_int_equal(lstat(p, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        if (!empty) assert_file_text(in_dir(f, "taken/inside"), "stay");
        assert_int_equal(count_tmp(f->dir), 0);
        assert_int_equal(count_entries(f->dir), 1 + empty);
    }
}

/* ------------------------------------------------------------------------- */
/* mkdir -p */

static void test_mkdir_p_creates_parents(void **state) {
    fixture *f = *state;
    av_err err = {{0}};
    assert_int_equal(av_mkdir_p(in_dir(f, "a/b/c"), &err), AV_OK);
    struct stat st;
    assert_int_equal(stat(in_dir(f, "a/b/c"), &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    /* existing folders, doubled and trailing slashes are fine */
    assert_int_equal(av_mkdir_p(in_dir(f, "a/b/c"), &err), AV_OK);
    assert_int_equal(av_mkdir_p(in_dir(f, "a//b/d/"), &err), AV_OK);
    assert_int_equal(stat(in_dir(f, "a/b/d"), &st), 0);
    assert_int_equal(av_mkdir_p(f->dir, &err), AV_OK);
}

static void test_mkdir_p_on_existing_file_names_it(void **state) {
    fixture *f = *state;
    put_file(in_dir(f, "file"), "x");
    av_err err = {{0}};
    const char *p = in_dir(f, "file");
    assert_int_equal(av_mkdir_p(p, &err), AV_ERUNTIME);
    assert_non_null(strstr(err.msg, tu_sh_word(p)));
    assert_non_null(strstr(err.msg, "exists and is not a folder"));
    /* a file in the middle of the path */
    const char *q = in_dir(f, "file/sub/dir");
    assert_int_equal(av_mkdir_p(q, &err), AV_ERUNTIME);
    assert_non_null(strstr(err.msg, tu_sh_word(q)));
    assert_non_null(strstr(err.msg, "is not a folder"));
    assert_int_equal(av_mkdir_p("", &err), AV_EUSAGE);
}

/* A dangling symbolic link, as the folder or a parent of it: mkdir says only "File exists" and stat finds
 * nothing, so the message was "cannot create folder 'DL': File exists" (a new user's report). */
static void test_mkdir_p_on_dangling_link_names_its_target(void **state) {
    fixture *f = *state;
    char link[600];
    snprintf(link, sizeof link, "%s", in_dir(f, "DL"));
    assert_int_equal(symlink("/nonexistent/x", link), 0);
    av_err err = {{0}};
    assert_int_equal(av_mkdir_p(link, &err), AV_ERUNTIME);
    char want[800];
    snprintf(want, sizeof want, "%s is a symbolic link to /nonexistent/x, which does not exist", tu_sh_word(link));
    if (!strstr(err.msg, want)) fail_msg("%s", err.msg);
    assert_int_equal(av_mkdir_p(in_dir(f, "DL/sub"), &err), AV_ERUNTIME);
    if (!strstr(err.msg, want)) fail_msg("%s", err.msg);
    /* a link to itself exists as a name but leads nowhere: a loop, not "does not exist" */
    snprintf(link, sizeof link, "%s", in_dir(f, "loop"));
    assert_int_equal(symlink("loop", link), 0);
    assert_int_equal(av_mkdir_p(link, &err), AV_ERUNTIME);
    if (!strstr(err.msg, "is a symbolic link to loop, which leads back to itself (a loop of links)"))
        fail_msg("%s", err.msg);
}

/* ------------------------------------------------------------------------- */
/* whole-file read */

static void test_read_file_keeps_embedded_nul(void **state) {
    fixture *f = *state;
    const char *p = in_dir(f, "nul.txt");
    FILE *fp = fopen(p, "wb");
    fwrite("ab\0cd", 1, 5, fp);
    fclose(fp);
    char *buf = NULL;
    size_t len = 0;
    av_err err = {{0}};
    assert_int_equal(av_read_file(p, 100, &buf, &len, &err), AV_OK);
    assert_int_equal(len, 5);
    assert_memory_equal(buf, "ab\0cd", 5);
    assert_int_equal(buf[5], 0); /* NUL-terminated too */
    free(buf);
}

static void test_read_file_limit(void **state) {
    fixture *f = *state;
    const char *p = in_dir(f, "big.txt");
    put_file(p, "0123456789");
    char *buf = NULL;
    size_t len = 0;
    av_err err = {{0}};
    assert_int_equal(av_read_file(p, 10, &buf, &len, &err), AV_OK); /* exactly at the limit */
    assert_int_equal(len, 10);
    free(buf);
    assert_int_equal(av_read_file(p, 9, &buf, &len, &err), AV_EUSAGE);
    char want[4200];
    snprintf(want, sizeof want, "input file %s (10 bytes) is larger than the 9-byte limit", tu_sh_word(p));
    assert_string_equal(err.msg, want);
    assert_int_equal(err.too_large, 1); /* how -f's caller knows to add the way on (app/tensorio.c) */
    assert_null(buf);
    assert_int_equal(av_read_file(in_dir(f, "absent.txt"), 9, &buf, &len, &err), AV_EUSAGE);
    assert_int_equal(err.too_large, 0); /* any other error, in the av_err that held the limit's */
    assert_int_equal(av_read_file(p, 1048576, &buf, &len, &err), AV_OK);
    free(buf);
}

static void test_read_empty_file(void **state) {
    fixture *f = *state;
    const char *p = in_dir(f, "empty");
    put_file(p, "");
    char *buf = NULL;
    size_t len = 99;
    av_err err = {{0}};
    assert_int_equal(av_read_file(p, 0, &buf, &len, &err), AV_OK);
    assert_int_equal(len, 0);
    assert_non_null(buf);
    assert_int_equal(buf[0], 0);
    free(buf);
}

static void test_read_missing_file_and_folder(void **state) {
    fixture *f = *state;
    char *buf = NULL;
    size_t len = 0;
    av_err err = {{0}};
    const char *p = in_dir(f, "absent.txt");
    /* a path the user named that is not there or not a file is bad input: exit 2 */
    assert_int_equal(av_read_file(p, 100, &buf, &len, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, tu_sh_word(p)));
    assert_non_null(strstr(err.msg, "No such file or directory"));
    assert_int_equal(av_read_file(f->dir, 100, &buf, &len, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, tu_sh_word(f->dir)));
    assert_non_null(strstr(err.msg, "Is a directory"));
    char under_file[4200]; /* "present.txt/x": below a file, ENOTDIR */
    snprintf(under_file, sizeof under_file, "%s/x", in_dir(f, "present.txt"));
    FILE *fp = fopen(in_dir(f, "present.txt"), "w");
    assert_non_null(fp);
    fclose(fp);
    assert_int_equal(av_read_file(under_file, 100, &buf, &len, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "Not a directory"));
    assert_null(buf);
}

/* The rule for a named input path: wrong (not there, wrong kind) is usage, exit 2;
 * a right path the machine cannot read (permission, I/O) is runtime, exit 1. */
static void test_input_path_status_rule(void **state) {
    (void)state;
    assert_int_equal(av_input_path_status(ENOENT), AV_EUSAGE);
    assert_int_equal(av_input_path_status(ENOTDIR), AV_EUSAGE);
    assert_int_equal(av_input_path_status(EISDIR), AV_EUSAGE);
    assert_int_equal(av_input_path_status(ELOOP), AV_EUSAGE);
    assert_int_equal(av_input_path_status(EACCES), AV_ERUNTIME);
    assert_int_equal(av_input_path_status(EIO), AV_ERUNTIME);
    assert_int_equal(av_input_path_status(EMFILE), AV_ERUNTIME);
}

/* Run av_read_file("-") with stdin replaced by fd; returns status. stdin is
 * made unbuffered so that bytes read ahead from one fd cannot leak into the
 * next call (a real run reads stdin once). */
static av_status read_stdin_from(int fd, size_t max, char **buf, size_t *len, av_err *err) {
    setvbuf(stdin, NULL, _IONBF, 0);
    int saved = dup(0);
    dup2(fd, 0);
    clearerr(stdin);
    av_status s = av_read_file("-", max, buf, len, err);
    dup2(saved, 0);
    close(saved);
    clearerr(stdin);
    return s;
}

static void test_read_stdin_through_a_pipe(void **state) {
    (void)state;
    /* 200 000 bytes through a pipe: more than the first 64 KiB buffer */
    const size_t n = 200000;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        char chunk[1000];
        for (size_t i = 0; i < n; i += sizeof chunk) {
            for (size_t j = 0; j < sizeof chunk; j++) chunk[j] = (char)('a' + (i + j) % 26);
            if (write(fds[1], chunk, sizeof chunk) != (ssize_t)sizeof chunk) _exit(1);
        }
        _exit(0);
    }
    close(fds[1]);
    char *buf = NULL;
    size_t len = 0;
    av_err err = {{0}};
    av_status s = read_stdin_from(fds[0], 1u << 20, &buf, &len, &err);
    close(fds[0]);
    waitpid(pid, NULL, 0);
    if (s) fail_msg("%s", err.msg);
    assert_int_equal(len, n);
    for (size_t i = 0; i < n; i++)
        if (buf[i] != (char)('a' + i % 26)) fail_msg("byte %zu differs", i);
    free(buf);
}

static void test_read_stdin_over_limit(void **state) {
    fixture *f = *state;
    const char *p = in_dir(f, "stdin.txt");
    put_file(p, "too long for the limit");
    int fd = open(p, O_RDONLY);
    assert_true(fd >= 0);
    char *buf = NULL;
    size_t len = 0;
    av_err err = {{0}};
    assert_int_equal(read_stdin_from(fd, 5, &buf, &len, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "standard input is larger than the 5-byte limit");
    assert_int_equal(err.too_large, 1);
    lseek(fd, 0, SEEK_SET);
    assert_int_equal(read_stdin_from(fd, 100, &buf, &len, &err), AV_OK);
    assert_int_equal(len, 22);
    free(buf);
    close(fd);
}

/* av_path_join: one '/' between folder and name whatever the folder ends in
 * (a folder typed as "out/" once printed "out//heads.png"); the expected
 * strings are written by hand. */
static void test_path_join_never_doubles_the_slash(void **state) {
    (void)state;
    static const struct { const char *dir, *name, *want; } cases[] = {
        {"a", "b", "a/b"},         {"a/", "b", "a/b"},     {"a//", "b", "a/b"},
        {"/", "b", "/b"},          {"//", "b", "/b"},      {"", "b", "b"},
        {"x/y/", "c.png", "x/y/c.png"}, {"d", "fonts/f.ttf", "d/fonts/f.ttf"}, {"./", "b", "./b"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char out[64];
        av_path_join(out, sizeof out, cases[k].dir, cases[k].name);
        if (strcmp(out, cases[k].want) != 0)
            fail_msg("'%s' + '%s' gave '%s', want '%s'", cases[k].dir, cases[k].name, out, cases[k].want);
    }
    char small[6]; /* cut to fit, still terminated */
    av_path_join(small, sizeof small, "abc/", "def");
    assert_string_equal(small, "abc/d");
}

/* av_path_shown: a folder without its trailing '/', doubled '/' and "." parts (the trace printed
 * "model runs/reverse/ (trained toy model ..."); expected strings by hand. */
static void test_path_shown_drops_trailing_slashes(void **state) {
    (void)state;
    static const struct { const char *dir, *want; } cases[] = {
        {"runs/reverse/", "runs/reverse"}, {"runs/reverse//", "runs/reverse"}, {"runs/reverse", "runs/reverse"},
        {"/", "/"}, {"//", "/"}, {"", ""}, {"./", "."}, {"/abs/m/", "/abs/m"},
        /* doubled '/' and "." parts too, ".." kept: --model ./train was another run than --model train */
        {"./train", "train"}, {"././runs//reverse/./", "runs/reverse"}, {".", "."}, {"/./", "/"},
        {"//abs/./m", "/abs/m"}, {"../m/", "../m"}, {"a/../b", "a/../b"}, {".hidden/x", ".hidden/x"},
        {"..", ".."}, {"./.", "."},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char out[64];
        av_path_shown(out, sizeof out, cases[k].dir);
        if (strcmp(out, cases[k].want) != 0) fail_msg("'%s' gave '%s', want '%s'", cases[k].dir, out, cases[k].want);
    }
}

/* av_path_split: folder and last part, trailing '/' dropped first; expected strings by hand. */
static void test_path_split_by_hand(void **state) {
    (void)state;
    static const struct { const char *path, *folder, *last; } cases[] = {
        {"runs/revers/", "runs", "revers"}, {"revers", "", "revers"}, {"/revers", "/", "revers"},
        {"/", "/", ""}, {".", "", "."}, {"a//b", "a", "b"}, {"/abs/m/..", "/abs/m", ".."}, {"", "", ""},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char folder[64], last[64];
        av_path_split(folder, sizeof folder, last, sizeof last, cases[k].path);
        if (strcmp(folder, cases[k].folder) != 0 || strcmp(last, cases[k].last) != 0)
            fail_msg("'%s' gave '%s' and '%s', want '%s' and '%s'", cases[k].path, folder, last, cases[k].folder,
                     cases[k].last);
    }
    char last[4];
    av_path_split(NULL, 0, last, sizeof last, "runs/reverse"); /* no folder wanted; the part cut to fit */
    assert_string_equal(last, "rev");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_too_long_name_is_marked_cut_once),
        cmocka_unit_test_setup_teardown(test_commit_renames_into_place, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_replaces_existing_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_replaces_file_and_keeps_its_other_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_replaces_symlink_not_its_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_relative_name_without_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_umask_is_honoured, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signal_removes_every_open_temporary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abort_leaves_no_temp_and_old_file_survives, setup, teardown),
        cmocka_unit_test(test_abort_is_safe_twice_and_on_zeroed_handle),
        cmocka_unit_test_setup_teardown(test_open_into_missing_folder_names_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_into_folder_that_is_a_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_with_empty_or_folder_name_is_usage_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_into_unwritable_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_into_folder_that_takes_no_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_catches_enospc_on_dev_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_appears_together_or_not_at_all, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_catches_file_size_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_rename_failure_removes_temp, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mkdir_p_creates_parents, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mkdir_p_on_existing_file_names_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mkdir_p_on_dangling_link_names_its_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_file_keeps_embedded_nul, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_file_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_empty_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_missing_file_and_folder, setup, teardown),
        cmocka_unit_test(test_input_path_status_rule),
        cmocka_unit_test(test_read_stdin_through_a_pipe),
        cmocka_unit_test_setup_teardown(test_read_stdin_over_limit, setup, teardown),
        cmocka_unit_test(test_path_join_never_doubles_the_slash),
        cmocka_unit_test(test_path_shown_drops_trailing_slashes),
        cmocka_unit_test(test_path_split_by_hand),
        cmocka_unit_test(test_leftover_name_is_the_writers_form_only),
    };
    return cmocka_run_group_tests_name("fileio", tests, NULL, NULL);
}
