/* fileio.h - atomic file output: write to a temporary name in the target's
 * folder, fsync-free but complete, then rename(2) over the target.
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
 * Non-goals: cross-filesystem moves, directory fsync.
 */
#ifndef AV_FILEIO_H
#define AV_FILEIO_H

#include <stdio.h>

#include "common.h"

typedef struct {
    FILE *fp;
    char path[4096]; /* final name */
    char tmp[4096];  /* temporary name in the same folder */
} av_afile;

/* Create a temporary file next to path. Errors: AV_ERUNTIME naming path
 * and strerror (unwritable folder, folder is a file, ...). */
av_status av_afile_open(av_afile *f, const char *path, av_err *err);
/* Flush, check write errors (e.g. ENOSPC on /dev/full-like devices), close
 * and rename the temporary over path. On failure the temporary is removed. */
av_status av_afile_commit(av_afile *f, av_err *err);
/* Close and remove the temporary; safe to call on a closed/zeroed handle. */
void av_afile_abort(av_afile *f);

/* Create directory dir (and missing parents, like mkdir -p).
 * Errors: AV_ERUNTIME if it exists as a non-directory or cannot be created. */
av_status av_mkdir_p(const char *dir, av_err *err);

/* Read a whole file (or stdin when path is "-") into a NUL-terminated buffer
 * of at most max_bytes. *len receives the byte count (embedded NULs are kept,
 * so callers can reject them). Errors: AV_ERUNTIME for I/O, AV_EUSAGE when the
 * file is larger than max_bytes. Caller frees *out. */
av_status av_read_file(const char *path, size_t max_bytes, char **out, size_t *len, av_err *err);

#endif
