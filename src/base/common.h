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
/* the way on after a text over AV_MAX_INPUT_BYTES (-f FILE, -f -, the arguments), a printf format of one int,
 * AV_MAX_TOKENS: "is larger than the 1048576-byte limit" said none (a pass's report) */
#define AV_TEXT_PART_HINT "give a part of it: a run takes at most %d tokens (a word, a punctuation mark or a CJK " \
                          "character each), and a --model its n_positions"
#define AV_MAX_TOKEN_BYTES 64         /* longer tokens are a usage error */

typedef enum {
    AV_OK = 0,
    AV_EUSAGE = 2,   /* bad input from the user: exit code 2 */
    AV_ERUNTIME = 1, /* I/O or resource failure: exit code 1 */
} av_status;

/* The fields sit in one anonymous struct, the int first, so that the
 * `av_err e = {{0}}` callers write zeroes both without a missing-initializer
 * or missing-braces warning (GCC and clang, -Wall -Wextra). */
typedef struct {
    struct {
        int overflowed; /* 0, or set by av_fail_overflow: the length of msg's first words, which name the
                         * value that left float32 ("layer 1: the scores q·kᵀ overflowed float32") */
        int too_large;  /* 0, or 1 when io/fileio.h av_read_file refused a file over its byte limit, so that a
                         * caller that knows what the file holds can add the way on (app/tensorio.c, for -f's
                         * text) without matching the message's words */
        char msg[2048]; /* 2 KB: a message that quotes a folder twice and a line of Python to paste (the
                         * PyTorch conversions, gpt2run.c and llama.c) fits for a Hugging Face cache snapshot's
                         * path; 512 cut that line in the middle */
    };
} av_err;

/* Format an error message into e (printf-style) and return code. A message
 * longer than e->msg keeps its start and its end, where it says what is
 * wrong, with " … " between, cut at whole UTF-8 characters
 * (av_utf8_cut_middle, base/utf8.h): never half of one. Clears
 * e->overflowed and e->too_large. */
av_status av_fail(av_err *e, av_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A computation whose values left float32 (inf or NaN): AV_EUSAGE with the
 * message "WHAT overflowed float32 " and fmt's text after it, and
 * e->overflowed set (see av_err), so that a caller can tell this error from
 * others without reading the words: --train reports it as a divergence
 * (app/train.c). The words are the callers' (nn/attention.c
 * av_overflow_fail, nn/model.c, nn/flash.c). */
av_status av_fail_overflow(av_err *e, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Append printf-style text to e's message (a clause a caller adds to an error it got: "; the model was not
 * saved ..."), keeping e->overflowed and e->too_large. Cut as av_fail cuts: when the whole does not fit
 * e->msg, its start and its end with " … " between, at whole UTF-8 characters (av_utf8_cut_middle), so the
 * added clause, at the end, is kept; snprintf(e->msg + len, ...) cut it by bytes, half a character at the end. */
void av_fail_append(av_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* v to digits significant digits (1..17) in buf, for a measured number in a
 * trace: "%#.*g" (C11 7.21.6.1: the # flag keeps trailing zeros), without a
 * bare trailing point. 14.0 at 3 digits is "14.0" (plain "%.3g" gave "14",
 * which reads as an exact whole number), 4.41 is "4.41", 1273.4 at 4 is
 * "1273", 12734 at 4 is "1.273e+04", 1e-05 at 3 is "1.00e-05". Returns buf. */
const char *av_sig_text(char buf[32], double v, int digits);

/* A decimal read from a file, for a message: "%g", or "(a number past
 * 1.797e308)" / "(a number past -1.797e308)" for an infinity (cJSON reads
 * "1e400" as one; "inf" is not what the file says). Returns buf. */
const char *av_num_shown(char buf[32], double v);
/* As av_num_shown with "%.15g": every digit of a whole number a file wrote
 * (1099511627776, not 1.09951e+12), 1e+300 as 1e+300. Returns buf. */
const char *av_num_exact(char buf[32], double v);

/* need bytes in GiB (2^30 bytes) in buf, for "needs X GiB, more than the
 * limit GiB allowed": one decimal, or as many more (up to 6) as it takes to
 * read as more than limit bytes. 2,147,766,336 against a 2 GiB limit is
 * "2.0003" ("2.0" read as no more than 2); 3.5 GiB is "3.5"; a few bytes
 * over, rounded up at the 6th decimal ("2.000001"). Returns buf. */
const char *av_gib_over(char buf[32], double need, double limit);

/* Checked size arithmetic: returns 0 and sets *out on success, -1 on overflow. */
int av_mul_size(size_t *out, size_t a, size_t b);
int av_mul3_size(size_t *out, size_t a, size_t b, size_t c);

/* calloc of n*size bytes with overflow check; NULL on overflow or OOM. */
void *av_calloc(size_t n, size_t size);

/* n*size zeroed bytes for a large buffer that is soon written whole: a
 * figure's pixels (the rasteriser's RGB canvas), the model's matrices.
 * Freed with av_big_free only, never with free().
 *
 * Why not calloc: each 4 KiB page is faulted in on its first write. On the
 * 2-core VMs this project runs on a fault costs about 10 µs, so the
 * classroom command's 4,400 faults were a third of its CPU time. On Linux a
 * buffer of AV_BIG_MIN bytes or more gets its own mapping, 2 MiB-aligned and
 * advised MADV_HUGEPAGE (transparent huge pages, mode "madvise" or
 * "always"): one fault per 2 MiB. The kernel may still back it with 4 KiB
 * pages (THP "never", or no huge page free); the memory is the same.
 * Smaller buffers, other systems, a failed mapping and AddressSanitizer
 * builds (so that it checks these buffers' bounds and leaks) use the heap
 * (posix_memalign, 64-byte aligned).
 * Costs: the size rounded up to 2 MiB, plus one page (4 KiB on x86-64).
 * av_big_free keeps up to 4 such mappings (16 MiB in all) for the next
 * buffer of the same size in 2 MiB pages, which is then zeroed with memset
 * instead of faulted in afresh: a figure run draws canvas after canvas.
 * NULL on overflow of n*size or when out of memory. Source: Linux madvise(2),
 * Documentation/admin-guide/mm/transhuge.rst. */
#define AV_BIG_MIN ((size_t)1 << 20)
void *av_big_calloc(size_t n, size_t size);
/* Free a buffer from av_big_calloc; NULL is allowed. */
void av_big_free(void *p);

/* FNV-1a, 64 bits, of the n bytes at data, continuing from h: start with
 * AV_FNV1A64_BASIS, or pass an earlier result to hash pieces in a row (the
 * same as hashing them joined). For each byte: h ^= byte, h *= prime. Not a
 * cryptographic hash: for run ids and hash tables. Source: Fowler, Noll and
 * Vo, "FNV hash" (http://www.isthe.com/chongo/tech/comp/fnv/), 64-bit offset
 * basis 14695981039346656037 and prime 2^40 + 2^8 + 0xb3 = 1099511628211. */
#define AV_FNV1A64_BASIS 0xCBF29CE484222325ull
uint64_t av_fnv1a64(uint64_t h, const void *data, size_t n);

/* The edit distance between the strings a and b, in bytes: insertions,
 * deletions, substitutions and swaps of two neighbours, each 1 ("casual" to
 * "causal" is 1); each edit applies to text not touched by an earlier swap
 * (the optimal string alignment distance, Damerau 1964, as git's "did you
 * mean" measures). Returns 99 when either is longer than 63 bytes. For
 * "did you mean" hints, not for ranking long texts. */
int av_edit_distance(const char *a, const char *b);

/* AV_ASAN is 1 in builds with AddressSanitizer (make SANITIZE=1, the fuzz
 * targets; GCC's __SANITIZE_ADDRESS__ or clang's __has_feature), else 0:
 * code that would hide memory errors from it (own mappings, base/common.c)
 * or skip its leak check at exit (app/main.c) steps aside. */
#if defined(__SANITIZE_ADDRESS__)
#define AV_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AV_ASAN 1
#endif
#endif
#ifndef AV_ASAN
#define AV_ASAN 0
#endif

/* AV_SIMD_CLONES before a kernel function: GCC compiles it for AVX-512, AVX2
 * and plain x86-64 and picks the one the CPU has when the program starts
 * (target_clones, which needs ifunc, hence ELF). Without -ffast-math and with
 * -ffp-contract=off, each lane does the same IEEE operations and no sum is
 * reordered, so every clone gives the same bits; only the speed differs (16
 * floats per AVX-512 step instead of 4 with SSE2, the x86-64 baseline).
 * The AVX-512 clone is x86-64-v4 (AVX-512 F, BW, CD, DQ, VL: every AVX-512
 * CPU since Skylake-SP, and AMD Zen 4) where GCC 12 accepts that name:
 * with F alone GCC has no 256-bit AVX-512 forms (VL) nor 64-bit integer
 * conversions (DQ), and emulates the double-to-float conversions and the
 * byte masks of normal_block (nn/embed.c), which then took 2.9 ns a value
 * instead of 1.4 ns. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__) && __GNUC__ >= 12
#define AV_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__)
#define AV_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define AV_SIMD_CLONES
#endif

#endif
