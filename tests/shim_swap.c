/* shim_swap.c - LD_PRELOAD library for test_model_cli's
 * test_model_folder_replaced_while_read (built as BUILD/tests/shim_swap.so,
 * no sanitizer).
 *
 * It plays an attnviz --train that saves into the --model folder while the
 * folder is being read, at the worst moment and every time the same way:
 * when attnviz opens DIR/model.safetensors (config.json is read by then),
 * the shim first puts another run's config.json, model.safetensors,
 * vocab.json and merges.txt in place, each by rename(2) over the name, as
 * --train's atomic set does (io/fileio.h av_afile_set_end). The runs come
 * from SHIM_SWAP_B, then SHIM_SWAP_A, B, A... (hard links, so each swap
 * gives the names other inodes), at most SHIM_SWAP_TIMES times (unset: 1).
 * SHIM_SWAP_ON names another file whose open makes the swap, and
 * SHIM_SWAP_NAMES (':' between names) other files to swap: a download that
 * replaces a Llama folder's shards, for test_llama_cli. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_swaps;

static void swap_in(const char *path) {
    const char *a = getenv("SHIM_SWAP_A"), *b = getenv("SHIM_SWAP_B"), *times = getenv("SHIM_SWAP_TIMES");
    const char *on = getenv("SHIM_SWAP_ON"), *list = getenv("SHIM_SWAP_NAMES");
    char trigger[300];
    snprintf(trigger, sizeof trigger, "/%s", on ? on : "model.safetensors");
    size_t len = strlen(path), tail = strlen(trigger);
    if (!a || !b || len < tail || strcmp(path + len - tail, trigger) != 0) return;
    if (g_swaps >= (times ? atoi(times) : 1)) return;
    const char *from = g_swaps++ % 2 ? a : b;
    char names[8][256];
    int n = 0;
    if (!list) list = "config.json:model.safetensors:vocab.json:merges.txt";
    for (const char *p = list; *p && n < 8; p += strcspn(p, ":"), p += *p == ':')
        snprintf(names[n++], sizeof names[0], "%.*s", (int)strcspn(p, ":"), p);
    for (int i = 0; i < n; i++) {
        char src[4200], tmp[4200], dst[4200];
        snprintf(src, sizeof src, "%s/%s", from, names[i]);
        snprintf(tmp, sizeof tmp, "%.*s/.shim_swap.tmp", (int)(len - tail), path);
        snprintf(dst, sizeof dst, "%.*s/%s", (int)(len - tail), path, names[i]);
        unlink(tmp);
        if (link(src, tmp) != 0 || rename(tmp, dst) != 0) {
            perror("shim_swap");
            _exit(71);
        }
    }
}

static int real_open(const char *name, const char *path, int flags, va_list ap) {
    int (*real)(const char *, int, ...);
    *(void **)&real = dlsym(RTLD_NEXT, name); /* POSIX's way past ISO C's cast rule */
    mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
    swap_in(path);
    return real(path, flags, mode);
}

int open(const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    int fd = real_open("open", path, flags, ap);
    va_end(ap);
    return fd;
}

int open64(const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    int fd = real_open("open64", path, flags, ap);
    va_end(ap);
    return fd;
}
