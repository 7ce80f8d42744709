/* shim_signal.c - LD_PRELOAD library for test_train's
 * test_cli_train_ctrl_c_after_the_run_is_complete (built as
 * BUILD/tests/shim_signal.so, no sanitizer).
 *
 * It plays a Ctrl-C in the last instant of a run, every time at the same
 * moment: when attnviz closes its standard output on the way out (main.c
 * finish), the shim raises SIGINT first, with stdio's buffer not yet
 * flushed. Only when SHIM_SIGNAL_AT_EXIT is set. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int fclose(FILE *f) {
    int (*real)(FILE *);
    *(void **)&real = dlsym(RTLD_NEXT, "fclose"); /* POSIX's way past ISO C's cast rule */
    if (f == stdout && getenv("SHIM_SIGNAL_AT_EXIT")) raise(SIGINT);
    return real(f);
}
