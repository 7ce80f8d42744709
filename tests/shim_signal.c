/* shim_signal.c - LD_PRELOAD library for test_train's
 * test_cli_train_ctrl_c_after_the_run_is_complete (built as
 * BUILD/tests/shim_signal.so, no sanitizer).
 *
 * It plays a Ctrl-C in the last instant of a run, every time at the same
 * moment: when attnviz closes its standard output on the way out (main.c
 * finish), the shim raises SIGINT first, with stdio's buffer not yet
 * flushed. Only when SHIM_SIGNAL_AT_EXIT is set. With SHIM_SIGNAL_AT_TMP it
 * raises SIGTERM as the first temporary file is made (below). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

int fclose(FILE *f) {
    int (*real)(FILE *);
    *(void **)&real = dlsym(RTLD_NEXT, "fclose"); /* POSIX's way past ISO C's cast rule */
    if (f == stdout && getenv("SHIM_SIGNAL_AT_EXIT")) raise(SIGINT);
    return real(f);
}

/* With SHIM_SIGNAL_AT_TMP set: a SIGTERM the instant a temporary file of attnviz's atomic writes exists (a
 * name holding ".tmp", made by mkstemp or by an O_EXCL open), before attnviz can note its name; the handler
 * must still remove it (test_figures test_sigterm_as_a_temporary_is_made_leaves_none). Once per process. */
static int tmp_signalled;

static void signal_at_tmp(const char *path, int fd) {
    if (fd >= 0 && path && strstr(path, ".tmp") && getenv("SHIM_SIGNAL_AT_TMP") && !tmp_signalled) {
        tmp_signalled = 1;
        raise(SIGTERM);
    }
}

int mkstemp(char *tmpl) {
    int (*real)(char *);
    *(void **)&real = dlsym(RTLD_NEXT, "mkstemp");
    int fd = real(tmpl);
    signal_at_tmp(tmpl, fd);
    return fd;
}

int open(const char *path, int flags, ...) {
    int (*real)(const char *, int, ...);
    *(void **)&real = dlsym(RTLD_NEXT, "open");
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    int fd = real(path, flags, mode);
    if (flags & O_EXCL) signal_at_tmp(path, fd);
    return fd;
}
