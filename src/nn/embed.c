/* embed.c - portable PRNG, token embeddings and weight initialisation. */
#include "nn/embed.h"

#include <math.h>
#include <string.h>

#include "base/common.h" /* AV_SIMD_CLONES */

/* x86-64: normal_block (below) is also compiled for AVX2 and AVX-512 (4 and
 * 8 doubles a step instead of SSE2's 2), chosen at load time (AV_SIMD_CLONES,
 * base/common.h); the same operations in the same order, without FMA, so the
 * same values. Its helpers are INLINE, so that every copy has its own. */
#if defined(__GNUC__)
#define INLINE static inline __attribute__((always_inline))
#else
#define INLINE static inline
#endif

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void av_rng_seed(av_rng *r, uint64_t seed) {
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

INLINE uint64_t next_bits(av_rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t av_rng_next(av_rng *r) { return next_bits(r); }

INLINE double uniform(av_rng *r) {
    return (double)((next_bits(r) >> 11) + 1) * 0x1.0p-53; /* (0, 1] */
}

double av_rng_uniform(av_rng *r) { return uniform(r); }

/* The Box-Muller transform, cosine branch, with the C library's log and cos:
 * the reference every other path must match bit for bit. */
static double box_muller(double u1, double u2) {
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
}

double av_rng_normal(av_rng *r) {
    double u1 = av_rng_uniform(r);
    double u2 = av_rng_uniform(r);
    return box_muller(u1, u2);
}

/* ----------------------------------------------------------------------------
 * many normals at once, bit-identical to the scalar loop
 *
 * (float)(av_rng_normal(r) * sd) costs a libm log and cos per value, about
 * 40 ns; a (512, 512) matrix is 10 ms. The batch below computes the same
 * Box-Muller formula with polynomial log and cos that the compiler can
 * vectorise (plain loops over a block, no calls). Their series stop where
 * the truncation falls below 2^-44, so their double result v differs from the libm
 * one by at most 2^-44.3 relative (measured over 2·10^7 draws, seed 12345,
 * against box_muller; the longer series gave 2^-50.4 and took 13 % longer;
 * 2^-36 is assumed). Rounding to float is monotonic, so when v - 2^-36|v| and
 * v + 2^-36|v| round to the same float, the libm value, which lies between
 * them, rounds to that float too. Otherwise (about 1 value in 2,900) and for
 * v = 0, the value is recomputed with box_muller() itself. So every float
 * equals the scalar loop's whatever the seed, as long as the libm log and cos
 * stay within 2^-37 of the true values (glibc's are within 1 ulp, 2^-52);
 * the libm in use decides the bits, as before. */

enum { NORMAL_BLOCK = 256 };

#define CHECK_REL 0x1p-36 /* assumed bound on |v_poly - v_libm| / |v|, with a wide margin */

/* log(u) for u in (0, 1] (u a multiple of 2^-53, so never subnormal):
 * u = m·2^e with m in [√½, √2), log m = 2·atanh(s), s = (m-1)/(m+1),
 * |s| <= 0.1716, the series to s^15 (truncation z^8/17 <= 3.3e-14, 2^-44.8,
 * relative, z = s^2 <= 0.0295). */
INLINE double log_poly(double u) {
    uint64_t bits;
    memcpy(&bits, &u, sizeof bits);
    uint64_t ebits = 0x4330000000000000ull | (bits >> 52); /* 2^52 + biased exponent, exactly */
    uint64_t mbits = (bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
    double e, m;
    memcpy(&e, &ebits, sizeof e);
    memcpy(&m, &mbits, sizeof m);
    e = e - (0x1p52 + 1023.0);
    int big = m > 0x1.6a09e667f3bcdp+0; /* √2 */
    m = big ? m * 0.5 : m;
    e = big ? e + 1.0 : e;
    double f = m - 1.0; /* exact (Sterbenz) */
    double s = f / (2.0 + f), z = s * s;
    double p = 0x1.1111111111111p-4;  /* 1/15 */
    p = p * z + 0x1.3b13b13b13b14p-4; /* 1/13 */
    p = p * z + 0x1.745d1745d1746p-4; /* 1/11 */
    p = p * z + 0x1.c71c71c71c71cp-4; /* 1/9 */
    p = p * z + 0x1.2492492492492p-3; /* 1/7 */
    p = p * z + 0x1.999999999999ap-3; /* 1/5 */
    p = p * z + 0x1.5555555555555p-2; /* 1/3 */
    p = p * z + 1.0;
    /* ln 2 = LN2_HI + LN2_LO, LN2_HI with 40 bits: e·LN2_HI is exact */
    return e * 0x1.62e42fefa4000p-1 + (e * -0x1.8432a1b0e2634p-43 + 2.0 * s * p);
}

/* cos(x) for x in [0, 2π]: x = k·π/2 + r with k = round(x·2/π) in 0..4 and
 * π/2 in three parts (Cody & Waite; k·P1 and k·P2 exact, x - k·P1 exact by
 * Sterbenz), |r| <= π/4; then ±cos r or ±sin r by Taylor series (to r^14
 * and r^13: truncation r^16/16! <= 1.1e-15 and r^14/15! <= 2.6e-14, 2^-45.1,
 * relative). */
INLINE double cos_poly(double x) {
    double kd = (x * 0x1.45f306dc9c883p-1 + 0x1.8p52) - 0x1.8p52; /* round to nearest */
    double r = ((x - kd * 0x1.921fb54400000p+0) - kd * 0x1.0b4611a600000p-34) - kd * 0x1.3198a2e037073p-69;
    double z = r * r;
    double sp = 0x1.6124613a86d09p-33;                     /* 1/13! */
    sp = sp * z - 0x1.ae64567f544e4p-26;                   /* 1/11! */
    sp = sp * z + 0x1.71de3a556c734p-19;                   /* 1/9! */
    sp = sp * z - 0x1.a01a01a01a01ap-13;                   /* 1/7! */
    sp = sp * z + 0x1.1111111111111p-7;                    /* 1/5! */
    sp = sp * z - 0x1.5555555555555p-3;                    /* 1/3! */
    double sn = r + r * (z * sp);
    double cp = -0x1.93974a8c07c9dp-37;                    /* -1/14! */
    cp = cp * z + 0x1.1eed8eff8d898p-29;                   /* 1/12! */
    cp = cp * z - 0x1.27e4fb7789f5cp-22;                   /* 1/10! */
    cp = cp * z + 0x1.a01a01a01a01ap-16;                   /* 1/8! */
    cp = cp * z - 0x1.6c16c16c16c17p-10;                   /* 1/6! */
    cp = cp * z + 0x1.5555555555555p-5;                    /* 1/4! */
    cp = cp * z - 0.5;                                     /* 1/2! */
    double cs = 1.0 + z * cp;
    int odd = (kd == 1.0) | (kd == 3.0), neg = (kd == 1.0) | (kd == 2.0); /* | not ||: no branch, so it vectorises */
    double v = odd ? sn : cs;
    return neg ? -v : v;
}

/* out[0..n) = (float)(N(0,1) * sd) from r, n <= NORMAL_BLOCK, as the scalar loop gives. */
AV_SIMD_CLONES static void normal_block(float *out, int n, av_rng *r, double sd) {
    double u1[NORMAL_BLOCK], u2[NORMAL_BLOCK];
    unsigned char again[NORMAL_BLOCK];
    for (int i = 0; i < n; i++) {
        u1[i] = uniform(r);
        u2[i] = uniform(r);
    }
    for (int i = 0; i < n; i++) {
        double x = sqrt(-2.0 * log_poly(u1[i])) * cos_poly(6.283185307179586476925 * u2[i]) * sd;
        double a = fabs(x) * CHECK_REL;
        float lo = (float)(x - a), hi = (float)(x + a);
        out[i] = (float)x;
        again[i] = (lo != hi) | (x == 0.0);
    }
    for (int i = 0; i < n; i++)
        if (again[i]) out[i] = (float)(box_muller(u1[i], u2[i]) * sd);
}

void av_rng_normals(float *out, long n, av_rng *r, double sd) {
    for (long at = 0; at < n; at += NORMAL_BLOCK)
        normal_block(out + at, n - at < NORMAL_BLOCK ? (int)(n - at) : NORMAL_BLOCK, r, sd);
}

uint64_t av_hash_str(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t mix_seed(uint64_t a, uint64_t seed) {
    uint64_t x = seed;
    uint64_t s = splitmix64(&x);
    x = a ^ s;
    return splitmix64(&x);
}

void embed_token(float *x, const char *token, int C, uint64_t seed) {
    av_rng r;
    av_rng_seed(&r, mix_seed(av_hash_str(token), seed));
    av_rng_normals(x, C, &r, 1.0); /* = (float)av_rng_normal(&r) for each c */
}

void init_weight(float *w, const char *name, int C, uint64_t seed) {
    av_rng r;
    av_rng_seed(&r, mix_seed(av_hash_str(name) ^ 0x5745494748545321ull, seed));
    av_rng_normals(w, (long)C * C, &r, 1.0 / sqrt((double)C)); /* = (float)(av_rng_normal(&r) * sd) each */
}
