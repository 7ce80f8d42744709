/* embed.c - portable PRNG, token embeddings and weight initialisation. */
#include "nn/embed.h"

#include <math.h>

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

uint64_t av_rng_next(av_rng *r) {
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

double av_rng_uniform(av_rng *r) {
    return (double)((av_rng_next(r) >> 11) + 1) * 0x1.0p-53; /* (0, 1] */
}

double av_rng_normal(av_rng *r) {
    double u1 = av_rng_uniform(r);
    double u2 = av_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
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
    for (int c = 0; c < C; c++) x[c] = (float)av_rng_normal(&r);
}

void init_weight(float *w, const char *name, int C, uint64_t seed) {
    av_rng r;
    av_rng_seed(&r, mix_seed(av_hash_str(name) ^ 0x5745494748545321ull, seed));
    double sd = 1.0 / sqrt((double)C);
    for (long i = 0; i < (long)C * C; i++) w[i] = (float)(av_rng_normal(&r) * sd);
}
