/* Layer base/ (the bottom): includes only base/ headers.
 * (src/README.md; scripts/check-layers.sh checks it on every make test) */
/* common.h - limits, error codes and small helpers shared by every attnviz module.
 *
 * Dimension legend used across the project (as in llm.c):
 *   T = tokens (sequence length, including <pad> tokens)
 *   C = d_model (embedding width)
 *   H = heads
 *   D = d_k = C / H (width of one head)
 *
 * Library code never exits: it returns an av_status and writes a one-line
 * message into a caller-supplied av_err. Only main.c turns that into an exit
 * code (2 = usage error, 1 = runtime failure).
 */
#ifndef AV_COMMON_H
#define AV_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define AV_VERSION "0.1.0"

/* Documented limits (docs/limits in README and attnviz(1)). Checked before any
 * allocation. The four weight matrices take 4*C*C*4 bytes (256 MiB at
 * C = 4096); activations about 8*T*C*4 bytes (1 GiB at T = 65536, C = 512).
 * The kernels that keep the (H, T, T) scores and weights (reference, BLAS)
 * need 2*H*T*T*4 bytes, at most AV_MAX_WEIGHT_BYTES; past that only the flash
 * kernel runs (it never forms them). */
#define AV_MAX_TOKENS 65536
#define AV_MAX_WEIGHT_BYTES ((size_t)2 << 30) /* 2 GiB of (H, T, T) scores + weights */
#define AV_MAX_D_MODEL 4096
#define AV_MAX_HEADS 64
#define AV_MAX_INPUT_BYTES (1u << 20) /* 1 MiB of sentence text */
#define AV_MAX_TOKEN_BYTES 64         /* longer tokens are a usage error */

typedef enum {
    AV_OK = 0,
    AV_EUSAGE = 2,   /* bad input from the user: exit code 2 */
    AV_ERUNTIME = 1, /* I/O or resource failure: exit code 1 */
} av_status;

typedef struct {
    char msg[512];
} av_err;

/* Format an error message into e (printf-style) and return code. */
av_status av_fail(av_err *e, av_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Checked size arithmetic: returns 0 and sets *out on success, -1 on overflow. */
int av_mul_size(size_t *out, size_t a, size_t b);
int av_mul3_size(size_t *out, size_t a, size_t b, size_t c);

/* calloc of n*size bytes with overflow check; NULL on overflow or OOM. */
void *av_calloc(size_t n, size_t size);

#endif
