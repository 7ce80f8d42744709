/* shim_env.c - LD_PRELOAD library for test_cli's
 * test_environment_not_changed_while_fonts_load (built as
 * BUILD/tests/shim_env.so, no sanitizer).
 *
 * It makes attnviz believe OpenBLAS picked its generic "Prescott" kernels
 * (as OpenBLAS 0.3.21 does on CPUs newer than it knows), so that
 * nn/attention_blas.c sets and removes OPENBLAS_CORETYPE to select the
 * right ones. attnviz opens OpenBLAS with dlopen and takes its functions
 * with dlsym from that handle, which no LD_PRELOAD library overrides; so
 * dlopen("libopenblas.so.0") here returns a handle to this shim, which is
 * linked with OpenBLAS: dlsym finds openblas_get_corename below first and
 * everything else in OpenBLAS, a dependency of the shim. It slows fontconfig's start-up (FcInitLoadConfigAndFonts, run
 * on av_text_prepare's thread) by 0.3 s, as a cold font cache does, and
 * ends the process with status 70 and a message on stderr if setenv or
 * unsetenv is called while that start-up runs: glibc's setenv/unsetenv are
 * not safe while another thread reads the environment (fontconfig's
 * getenv of HOME, XDG_*, FONTCONFIG_*). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int g_fonts_loading;

char *openblas_get_corename(void);
char *openblas_get_corename(void) {
    return "Prescott";
}

void *dlopen(const char *file, int flags) {
    void *(*real)(const char *, int);
    *(void **)&real = dlsym(RTLD_NEXT, "dlopen");
    Dl_info self;
    if (file && strcmp(file, "libopenblas.so.0") == 0 && dladdr((void *)&g_fonts_loading, &self) && self.dli_fname)
        return real(self.dli_fname, flags);
    return real(file, flags);
}

void *FcInitLoadConfigAndFonts(void);
void *FcInitLoadConfigAndFonts(void) {
    void *(*real)(void);
    *(void **)&real = dlsym(RTLD_NEXT, "FcInitLoadConfigAndFonts"); /* POSIX's way past ISO C's cast rule */
    atomic_store(&g_fonts_loading, 1);
    usleep(300000);
    void *config = real ? real() : NULL;
    atomic_store(&g_fonts_loading, 0);
    return config;
}

static void check(const char *what) {
    if (!atomic_load(&g_fonts_loading)) return;
    static const char msg[] = "shim_env: the environment was changed while fontconfig loads on another thread: ";
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, what, strlen(what)) < 0 || write(2, "\n", 1) < 0) _exit(71);
    _exit(70);
}

int setenv(const char *name, const char *value, int overwrite) {
    check("setenv");
    int (*real)(const char *, const char *, int);
    *(void **)&real = dlsym(RTLD_NEXT, "setenv");
    return real(name, value, overwrite);
}

int unsetenv(const char *name) {
    check("unsetenv");
    int (*real)(const char *);
    *(void **)&real = dlsym(RTLD_NEXT, "unsetenv");
    return real(name);
}
