/* embed.h - deterministic token embeddings and weight initialisation.
 *
 * Every number here comes from one portable generator, so the same command
 * gives the same tensors on every machine: xoshiro256** (Blackman & Vigna
 * 2018) seeded through splitmix64, and normal deviates by the Box-Muller
 * transform in double precision, rounded once to float32.
 *
 *   token vector:   seed_t = splitmix(FNV-1a-64(token bytes) ^ splitmix(seed))
 *                   X[t, c] ~ N(0, 1), c = 0..C-1
 *   weight matrix:  stream named "W_Q"/"W_K"/"W_V"/"W_O" mixed with seed,
 *                   W[i, j] ~ N(0, 1/C)   (so X·W keeps unit variance)
 *
 * The same token text gives the same row wherever it appears in the sentence
 * (embedding is a lookup, not a function of position), and the first k
 * components of a token's vector do not depend on d_model.
 *
 * Non-goals: trained embeddings, vocabularies.
 */
#ifndef AV_EMBED_H
#define AV_EMBED_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} av_rng;

/* Seed the generator from a 64-bit value (any value, including 0, is fine). */
void av_rng_seed(av_rng *r, uint64_t seed);
/* Next 64 random bits. */
uint64_t av_rng_next(av_rng *r);
/* Uniform double in (0, 1]. */
double av_rng_uniform(av_rng *r);
/* Standard normal deviate N(0, 1) (Box-Muller, cosine branch). */
double av_rng_normal(av_rng *r);

/* out[0..n) = (float)(av_rng_normal(r) * sd), in order, the same floats as
 * that scalar loop gives (bit for bit, for every seed; sd = 1 gives
 * (float)av_rng_normal(r)), about 10 times faster: polynomial log and cos,
 * and libm's own for the rare values that could round differently. */
void av_rng_normals(float *out, long n, av_rng *r, double sd);

/* FNV-1a 64-bit hash of a NUL-terminated string. */
uint64_t av_hash_str(const char *s);

/* x (C floats) = embedding of token text under seed: N(0,1) components. */
void embed_token(float *x, const char *token, int C, uint64_t seed);

/* w (C, C) row-major = N(0, 1/C) weights for the matrix named name
 * ("W_Q", "W_K", "W_V", "W_O") under seed. */
void init_weight(float *w, const char *name, int C, uint64_t seed);

#endif
