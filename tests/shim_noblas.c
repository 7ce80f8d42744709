/* shim_noblas.c - LD_PRELOAD library for test_cli's
 * test_missing_openblas_is_an_error_not_a_crash (built as
 * BUILD/tests/shim_noblas.so, no sanitizer).
 *
 * It makes attnviz's dlopen("libopenblas.so.0") fail as it does on a
 * machine without the library: the call opens a file that does not exist
 * instead, so dlerror() gives the loader's own "cannot open shared object
 * file" text, naming that file (not libopenblas.so.0, so a test can tell
 * attnviz's message from dlerror's). Every other dlopen is left alone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

void *dlopen(const char *file, int flags) {
    void *(*real)(const char *, int);
    *(void **)&real = dlsym(RTLD_NEXT, "dlopen"); /* POSIX's way past ISO C's cast rule */
    const char *base = file ? strrchr(file, '/') : NULL;
    base = base ? base + 1 : file;
    if (base && strncmp(base, "libopenblas", 11) == 0) return real("/nonexistent/shim_noblas-hides-the-blas.so", flags);
    return real(file, flags);
}
