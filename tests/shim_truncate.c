/* shim_truncate.c - LD_PRELOAD library for test_model_cli's
 * test_model_file_truncated_while_read (built as BUILD/tests/shim_truncate.so,
 * no sanitizer).
 *
 * It plays another program that empties a model file while attnviz reads
 * it (`> model.safetensors`, or a download tool rewriting it in place):
 * right after attnviz maps a file whose name ends in SHIM_TRUNCATE, the
 * shim truncates that file to 0 bytes, so the next read of the mapping
 * raises SIGBUS. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
    void *(*real)(void *, size_t, int, int, int, off_t);
    *(void **)&real = dlsym(RTLD_NEXT, "mmap"); /* POSIX's way past ISO C's cast rule */
    void *p = real(addr, len, prot, flags, fd, off);
    const char *want = getenv("SHIM_TRUNCATE");
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = fd >= 0 && want && p != MAP_FAILED ? readlink(link, path, sizeof path - 1) : -1;
    if (n <= 0) return p;
    path[n] = 0;
    size_t k = strlen(want);
    if ((size_t)n >= k && strcmp(path + n - k, want) == 0 && truncate(path, 0) != 0) {
        perror("shim_truncate");
        _exit(71);
    }
    return p;
}
