/* Layer io/ (file formats): includes only base/ and io/ headers.
 * (src/README.md; scripts/check-layers.sh checks it on every make test) */
/* fileio.h - atomic file output: write to a temporary name in the target's
 * folder, fsync-free but complete, then rename(2) over the target (or, when
 * the target is an existing file, swap the two names with renameat2
 * RENAME_EXCHANGE and unlink the old file: the same result without ext4's
 * forced write-out on a replacing rename; fileio.c replace_by_exchange).
 *
 * Data contract: a reader of `path` sees either the old file (or none) or the
 * complete new one, never a partial write. On any failure the temporary is
 * unlinked and the old file is left untouched.
 *
 * Usage:
 *   av_afile f;
 *   if (av_afile_open(&f, "out/head0.png", &err)) return ...;
 *   fwrite(..., f.fp);                // or hand f.fp to libpng
 *   if (av_afile_commit(&f, &err)) return ...;   // checks ferror+fclose, renames
 *   // on an error path before commit: av_afile_abort(&f);
 *
 * Threads: different handles may be used on different threads at once (the
 * PNG batch's worker writes while its caller writes SVGs); the Ctrl-C
 * clean-up of the temporaries is safe for that (the umask is never changed).
 *
 * Non-goals: cross-filesystem moves, directory fsync.
 */
#ifndef AV_FILEIO_H
#define AV_FILEIO_H

#include <stdio.h>

#include "base/common.h"

typedef struct {
    FILE *fp;
    char path[4096]; /* final name */
    char tmp[4096];  /* temporary name in the same folder */
    int werr;        /* errno of the first failed av_afile_write, or 0 */
    int slot;        /* 1 + the signal handler's slot for tmp (fileio.c), 0 = none */
} av_afile;

/* Create the temporary "<dir>/.<base>.tmpXXXXXX" (mkstemp) next to path and
 * open f->fp on it for binary writing; its mode is what fopen gives: 0666
 * minus the umask, or under the folder's default ACL (acl(5)) that ACL's.
 * f is fully initialised either way, so av_afile_abort is always safe.
 * Errors: AV_ERUNTIME naming path: "cannot write 'out/a.png': folder 'out'
 * does not exist", "...: 'out' is not a folder", "...: Permission denied";
 * AV_EUSAGE for an empty name, a name ending in '/', or one longer than
 * about 4 KiB. */
av_status av_afile_open(av_afile *f, const char *path, av_err *err);
/* fwrite n bytes to f->fp, remembering the errno of the first failure so
 * commit can name the cause (ENOSPC, EFBIG). Returns the count written. */
size_t av_afile_write(av_afile *f, const void *buf, size_t n);

/* Flush, check write errors (ferror, and fflush/fclose errno: ENOSPC, EFBIG,
 * EIO), close and rename the temporary over path. f->fp is closed either way.
 * Errors: AV_ERUNTIME "cannot write 'out/head0.png': No space left on device"
 * (or "...: an earlier write failed" when only the stream's error flag says
 * so); the temporary is removed and an existing file at path is untouched. */
av_status av_afile_commit(av_afile *f, av_err *err);
/* Close and remove the temporary; safe to call on a zeroed handle, after a
 * failed open, after commit (then it does nothing), twice, or with NULL. */
void av_afile_abort(av_afile *f);

/* 1 when name (a file name, no folder) has the form of av_afile_open's
 * temporary for a file named target: "." + target + ".tmp" + six letters or
 * digits (A-Z, a-z, 0-9: this file's open_tracked_tmp and glibc's mkstemp),
 * with target non-empty and holding no '/'; target (n bytes) then receives
 * it. 2 for av_dir_writable's probe ".attnviz-write-check." + six letters or
 * digits (target ""). Else 0: ".notes.tmp", "attention.gif.tmp1" (no dot in
 * front), ".a.png.tmp12345" (five) or ".a.png.tmpABC-12" are not. A process
 * killed by SIGKILL (the OOM killer, a power cut) while it wrote leaves such
 * a file, which no handler could remove; a later run that holds the folder's
 * lock may (app/figures.h av_figures_remove_leftovers). */
int av_afile_leftover_name(const char *name, char *target, size_t n);

/* A set of files that appear together or not at all (a model folder's
 * config.json, model.safetensors, vocab.json and merges.txt: a new
 * model.safetensors beside the old config.json would lie about what it is;
 * a --dump folder's tokens.txt and 14 tensors, which describe one run).
 * Between av_afile_set_begin and av_afile_set_end, on the calling thread,
 * av_afile_commit does all its checks (a full disk fails there, removing
 * that temporary) but keeps the temporary instead of renaming it; the set
 * holds it (the Ctrl-C handler still removes it). av_afile_set_end(set, 1,
 * err) then renames every kept temporary over its target, in commit order;
 * av_afile_set_end(set, 0, NULL) removes them all, leaving every target as it
 * was. At most AV_AFILE_SET_MAX files: a further commit fails (AV_ERUNTIME).
 * set_end holds SIGINT, SIGTERM, SIGHUP and SIGPIPE while it renames, so a Ctrl-C
 * comes after all or none. Errors of set_end: av_afile_commit's rename
 * error, naming the file; the files renamed before it stay, the rest are
 * removed. A caller may set `renamed_msg` after set_begin: once every file
 * is renamed, set_end makes it the av_interrupt_message while the signals
 * are still held, so a Ctrl-C is told the set is in place from its first
 * moment there (a Ctrl-C just after the renames said "not saved"). */
#define AV_AFILE_SET_MAX 20
typedef struct {
    av_afile kept[AV_AFILE_SET_MAX];
    int n;
    const char *renamed_msg; /* or NULL: the interrupt message is left as it is */
} av_afile_set;
void av_afile_set_begin(av_afile_set *set);
av_status av_afile_set_end(av_afile_set *set, int commit, av_err *err);

/* What Ctrl-C (SIGINT), SIGTERM, SIGHUP or SIGPIPE (`| head` closed the pipe)
 * prints before the process ends:
 * msg (copied, at most AV_INTERRUPT_MSG_MAX bytes, cut there), written to
 * stderr by the handler that removes the temporaries above (write(2) is
 * async-signal-safe), then the default action (exit status 128 + signal).
 * NULL or "" prints nothing. On SIGPIPE the word "interrupted" in the
 * message's first 16 bytes is written as "standard output was closed (broken
 * pipe)". A control character in msg other than a newline is written as an
 * escape (base/utf8.h av_utf8_escape_controls), as a path that holds one is.
 * av_interrupt_clear_line(1) has the handler first write "\r\x1b[K", which
 * clears a progress line (gpt2run.c's --generate line), so the message starts
 * a line of its own; av_interrupt_clear_line(0) stops that, and the message
 * stays as set. (It once replaced the message: a Ctrl-C while --generate's
 * line showed said nothing, where in a pipe it said no file was written.)
 * Installs that handler if no file has yet. For a
 * long phase whose interruption leaves something the user should know of
 * (--train: "the model was not saved"; "saved, but its figures are not all
 * written"). Not thread-safe against itself: one caller thread sets it.
 * A signal ignored when the handler is installed stays ignored (nohup's
 * SIGHUP, a script's `cmd &` SIGINT), as in GNU tools. */
#define AV_INTERRUPT_MSG_MAX 2048 /* a --compare message names every variant folder and the comparison */
void av_interrupt_message(const char *msg);
void av_interrupt_clear_line(int on);

/* Remove what leaving by _exit would leave behind, as the Ctrl-C handler
 * does before its message: every temporary file still being written
 * (unlinked) and every folder av_mkdir_p made in this process that is still
 * empty (the last made first). For a thread that must end the process at
 * once (nn/attention_blas.h av_blas_set_exit_cleanup). Async-signal-safe;
 * no errors. */
void av_remove_unfinished(void);

/* Lock the folder dir (it exists) for this process: flock(LOCK_EX |
 * LOCK_NB) on an fd of the folder itself, so no lock file is left behind;
 * the kernel lets go when the fd (*fd_out, O_CLOEXEC) is closed or the
 * process ends, by a signal too. Advisory: a reader that takes no lock is
 * never blocked. Returns 1 when another process holds the lock (*fd_out
 * -1); else 0, with *fd_out the locked fd, or -1 when the folder cannot be
 * opened for reading (mode 0300) or its file system has no flock (EINVAL,
 * ENOLCK, EBADF on NFS): such a folder runs unlocked. Used by --train's
 * folders and by a run's -o figures. Source: flock(2). */
int av_lock_folder(const char *dir, int *fd_out);

/* A file mapped into memory (safetensors.h's av_safetensors_open) that
 * another program makes shorter while it is read (a truncation or a rewrite
 * in place) raises SIGBUS at the next read past its new end, which ended
 * attnviz with "Bus error" (exit 135). av_mapped_note(addr, len, path)
 * registers the mapping and installs a SIGBUS handler once; the handler
 * removes the temporaries (as for Ctrl-C), writes "attnviz: error: cannot
 * read PATH: it became shorter while it was being read (...)" (PATH as one
 * shell word, av_shown_word: '/tmp/it'\''s/m.safetensors') and ends
 * the process with exit status 1. av_mapped_forget(addr) before munmap. At
 * most 64 mappings are named at once; a fault in another one gets the
 * message without a name. Thread-safe. */
void av_mapped_note(const void *addr, size_t len, const char *path);
void av_mapped_forget(const void *addr);

/* Create directory dir (and missing parents, like mkdir -p), mode 0777 minus
 * the umask. An existing folder is fine; doubled and trailing '/' are fine.
 * Each folder it makes is remembered for av_remove_empty_made_folders and
 * the signal handler (below). Errors: AV_ERUNTIME "cannot create folder
 * 'a/b/c': 'a/b' exists and is not a folder", or naming dir and strerror;
 * AV_EUSAGE for an empty name. */
av_status av_mkdir_p(const char *dir, av_err *err);

/* Remove every folder av_mkdir_p made in this process that is empty now,
 * the last made first (rmdir(2): a folder holding anything stays, and so
 * does every folder that was there before), so a run that fails, or writes
 * nothing, leaves no empty folder it made. The Ctrl-C handler above does
 * the same after removing the temporaries (SIGINT, SIGTERM, SIGHUP, SIGPIPE;
 * av_mkdir_p installs it before its first folder). Folders of one process:
 * at most 32 are remembered, the later ones would stay. No errors. */
void av_remove_empty_made_folders(void);

/* 1 when av_mkdir_p made folder dir in this process (a trailing '/' is
 * ignored; the name as it was given, not resolved), else 0. So a message can
 * say that an interrupted run takes such a folder away again. */
int av_folder_made_here(const char *dir);

/* av_mkdir_p(dir), then check that a file can be made in it: create
 * "<dir>/.attnviz-write-check.XXXXXX" (mkstemp), write one byte, close and
 * remove it. For commands that work a long time before they write (--train),
 * so a folder that cannot be written fails before the work, not after it.
 * Errors: av_mkdir_p's; AV_ERUNTIME naming dir and the OS error: "cannot
 * write in folder 'out': Permission denied" (Read-only file system, No space
 * left on device, ...). */
av_status av_dir_writable(const char *dir, av_err *err);

/* The exit status for an input path the user named (a file or folder to read)
 * that could not be opened, from errno e: AV_EUSAGE (exit 2) when it does not
 * exist or is the wrong kind (ENOENT, ENOTDIR, EISDIR, ELOOP): the user's
 * value is wrong, like a malformed file; AV_ERUNTIME (exit 1) otherwise
 * (EACCES, EIO, EMFILE: the file is right, the machine failed). The README's
 * "Errors and exit codes" states the same rule. */
av_status av_input_path_status(int e);

/* Read a whole file (or stdin when path is "-") into a NUL-terminated buffer
 * of at most max_bytes (plus the NUL). *len receives the byte count (embedded
 * NULs are kept, so callers can reject them). On error *out is NULL and *len 0.
 * Errors: AV_EUSAGE "cannot read 'x': No such file or directory" (also "Not a
 * directory", "Is a directory": a path the user named that is not a file is bad
 * input, see av_input_path_status; "cannot read standard input: Is a
 * directory" when "-" is a folder), av_dangling_link's "'x' is a symbolic
 * link to 'y', which does not exist" (or "..., which leads back to itself")
 * for a link to nothing, and "input file 'x' is larger than the
 * 1048576-byte limit" ("standard input is larger than ..." for "-"), with
 * err->too_large set (base/common.h av_err);
 * AV_ERUNTIME for a file that exists but cannot be read (permission, I/O).
 * stdin is not closed. Caller frees *out. */
av_status av_read_file(const char *path, size_t max_bytes, char **out, size_t *len, av_err *err);

/* Whether a file is a Git LFS pointer: the text a clone made without Git LFS
 * (git clone https://huggingface.co/gpt2 where git-lfs is not installed)
 * leaves in place of each file LFS keeps, model.safetensors and often
 * tokenizer.json. Source: the Git LFS pointer spec (git-lfs/git-lfs
 * docs/spec.md): a pointer is UTF-8 text under 1024 bytes whose first line is
 * "version https://git-lfs.github.com/spec/v1" ("version
 * https://hawser.github.com/spec/v1" before Git LFS 1.0). head holds the
 * file's first have bytes, file_len is the whole file's length in bytes: 1
 * when file_len < 1024 and head begins "version " (8 bytes, all a
 * safetensors reader has when its length field is text), followed by
 * "https://" when have >= 16; else 0. Never fails. */
int av_lfs_pointer(const void *head, size_t have, size_t file_len);

/* The error for a Git LFS pointer (av_lfs_pointer) found in a file, named
 * as messages name it (one shell word, av_shown_word: the caller's, written
 * as it is, so a name already shown is not quoted twice), len its bytes,
 * what the file should hold ("the weights"): AV_EUSAGE "NAMED: a Git LFS
 * pointer file (134 bytes of text beginning \"version \"), not the weights:
 * the model was cloned without Git LFS; run git lfs install && git lfs pull in
 * its folder, or download the file itself (e.g. hf download)". */
av_status av_lfs_pointer_fail(const char *named, size_t len, const char *what, av_err *err);

/* For --model DIR without NAME: AV_EUSAGE when DIR holds the partial file of
 * a download of it that did not finish, "--model DIR has no NAME, but holds
 * NAME.incomplete, the partial file of a download that did not finish; run
 * the download again to finish it (...)", else AV_OK. The partial files
 * looked for: DIR/NAME.incomplete (huggingface_hub's), DIR/NAME.part (browsers
 * and download tools), and any *.incomplete in DIR/.cache/huggingface/download/,
 * where hf download --local-dir DIR keeps them
 * (huggingface_hub's _local_folder.py: "NAME.ETAG.incomplete" in 0.23, then
 * "HASH.ETAG.incomplete", which does not name the file), NAME's first. It
 * said "--model DIR has no model.safetensors; a GPT-2 model folder holds
 * ...", as of a folder the model was never put in. Errors: only that one. */
av_status av_unfinished_download(const char *dir, const char *name, av_err *err);

/* av_read_file for a file of a model folder (config.json, vocab.json,
 * merges.txt, tokenizer.json, ...): a path that names anything but a
 * regular file (a folder, a FIFO, a socket, a device) is refused before it
 * is opened, AV_EUSAGE "cannot read 'x': it is a FIFO, not a regular file",
 * where opening a FIFO waited for a writer forever (a new user's `mkfifo
 * DIR/config.json`), and a folder said "Is a directory" where
 * model.safetensors said "it is a folder, not a regular file". -f FILE keeps av_read_file: `-f <(cmd)` is a pipe.
 * A Git LFS pointer read in place of the file is refused with
 * av_lfs_pointer_fail's AV_EUSAGE "PATH: a Git LFS pointer file (...), not the
 * file's contents: ... git lfs pull ..." (it said "not valid JSON near byte 0"). */
av_status av_read_regular_file(const char *path, size_t max_bytes, char **out, size_t *len, av_err *err);

/* A file's identity as stat(2) gives it, to tell whether a folder's files
 * changed while they were read: device and inode (a rename over the name,
 * as av_afile_commit and av_afile_set_end make, gives another inode), size
 * and modification time in ns (a write in place). present 0 when stat
 * failed (a missing file); err_no is then its errno. */
typedef struct {
    int present, err_no;
    unsigned long long dev, ino;
    long long size, mtime_s, mtime_ns;
} av_file_id;

/* ids[i] = the identity of dir/names[i], for i < n (n >= 0). Never fails: a
 * name that cannot be stat'ed is noted as absent, with its errno. */
void av_file_ids_note(av_file_id *ids, const char *dir, const char *const *names, int n);

/* The first i < n where a[i] and b[i] differ (the file appeared, went, or
 * has another inode, device, size or modification time), or -1 when all n
 * are the same. */
int av_file_ids_changed(const av_file_id *a, const av_file_id *b, int n);

/* AV_EUSAGE when path is a symbolic link whose target is missing:
 * "PATH is a symbolic link to 'TARGET', which does not exist" (the target
 * as the link holds it, cut to 255 bytes), or "..., which leads back to
 * itself (a loop of links)"; AV_OK for anything else (no file there, a link
 * that leads to a file, a file). For a caller that takes a name stat or
 * access cannot find as absent: a dangling link is a file the user put
 * there, and "DIR has no config.json" (or a tokenizer_config.json skipped
 * without a word) hid it. */
av_status av_dangling_link(const char *path, av_err *err);

/* The error for path, whose st_mode is mode and which is not a regular file:
 * AV_EUSAGE "cannot read 'x': it is a FIFO, not a regular file" (or a
 * folder, a socket, a device). The one wording for av_read_regular_file and
 * safetensors.h's av_safetensors_open, which checks the mode it opened. */
av_status av_not_regular(const char *path, unsigned mode, av_err *err);

/* dir + "/" + name into out (n bytes, NUL-terminated, cut to fit), the one
 * way attnviz joins a folder and a file name, so a folder typed with a
 * trailing slash never shows as "out//heads.png" in a message. Trailing '/'
 * of dir are dropped before the one separator: "out/" + "a.png" and
 * "out//" + "a.png" give "out/a.png", "/" + "a.png" gives "/a.png", and an
 * empty dir gives name alone (the current folder). name is used as given
 * (it may hold a '/' of its own: "fonts/DejaVuSans.ttf"). No errors. */
void av_path_join(char *out, size_t n, const char *dir, const char *name);

/* A folder as messages and titles show it, and as run ids hash it: dir
 * without its trailing '/' (as av_path_join drops them), doubled '/' and "."
 * parts, into out (n bytes, NUL-terminated, cut to fit): "runs/reverse/",
 * "./runs//reverse" and "runs/./reverse" give "runs/reverse"; ".." parts
 * stay ("../m"); "/" and "/./" give "/", "./" gives ".", "" stays "". No
 * errors (without memory, only the trailing '/' are dropped). */
void av_path_shown(char *out, size_t n, const char *dir);

/* path's folder and its last part, path's trailing '/' dropped first as
 * av_path_shown drops them: "runs/revers/" gives "runs" and "revers",
 * "revers" gives "" (the current folder: av_path_join("", x) is x) and
 * "revers", "/revers" gives "/" and "revers", "/" gives "/" and "". Each
 * into its buffer (nf, nl bytes), cut to fit; folder may be NULL with nf 0.
 * No errors. */
void av_path_split(char *folder, size_t nf, char *last, size_t nl, const char *path);

#endif
