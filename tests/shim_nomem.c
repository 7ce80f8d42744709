/* shim_nomem.c - LD_PRELOAD library for test_cli's
 * test_fonts_out_of_memory_is_an_error_not_a_crash (built as
 * BUILD/tests/shim_nomem.so, no sanitizer).
 *
 * It plays a memory limit (`ulimit -v`) that runs out while the fonts
 * load: when a thread maps a file whose name ends in SHIM_NOMEM (a bundled
 * font, "DejaVuSans.ttf"), the mapping fails with ENOMEM, and from then on
 * every malloc, calloc and realloc of that thread returns NULL (ENOMEM), as
 * FreeType's own fallback (reading the file into memory) would find; other
 * threads (the model's) are left alone, so the outcome does not depend on
 * which thread runs first. fontconfig, which crashes when an allocation
 * fails while it loads its configuration, is played by
 * FcInitLoadConfigAndFonts raising SIGSEGV once any thread has run out.
 *
 * With SHIM_NOMAP instead (test_fonts_on_a_file_system_without_mmap), a
 * file whose name ends in it cannot be mapped (ENODEV, as on a file system
 * without mmap) and memory stays: the fonts must still load. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static __thread int starved; /* this thread ran out */
static volatile int any_starved;

void *malloc(size_t n) {
    if (starved) return errno = ENOMEM, NULL;
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size) {
    if (starved) return errno = ENOMEM, NULL;
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n) {
    if (starved && n > 0) return errno = ENOMEM, NULL;
    return __libc_realloc(p, n);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
    void *(*real)(void *, size_t, int, int, int, off_t);
    *(void **)&real = dlsym(RTLD_NEXT, "mmap"); /* POSIX's way past ISO C's cast rule */
    const char *want = getenv("SHIM_NOMEM"), *nomap = getenv("SHIM_NOMAP");
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = fd >= 0 && (want || nomap) ? readlink(link, path, sizeof path - 1) : -1;
    if (n > 0 && nomap) {
        path[n] = 0;
        size_t k = strlen(nomap);
        if ((size_t)n >= k && strcmp(path + n - k, nomap) == 0) return errno = ENODEV, MAP_FAILED;
    } else if (n > 0) {
        path[n] = 0;
        size_t k = strlen(want);
        if ((size_t)n >= k && strcmp(path + n - k, want) == 0) {
            starved = any_starved = 1;
            errno = ENOMEM;
            return MAP_FAILED;
        }
    }
    return real(addr, len, prot, flags, fd, off);
}

void *FcInitLoadConfigAndFonts(void); /* fontconfig's, as FcConfig * */
void *FcInitLoadConfigAndFonts(void) {
    void *(*real)(void);
    if (any_starved) raise(SIGSEGV); /* fontconfig's own crash when memory runs out */
    *(void **)&real = dlsym(RTLD_NEXT, "FcInitLoadConfigAndFonts");
    return real();
}
