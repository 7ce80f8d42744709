/* optim.c - AdamW, clipping and schedules (see optim.h for the formulas). */
#include "nn/optim.h"

#include <math.h>
#include <string.h>

#include "base/utf8.h"

double av_lr_at(const av_adamw *o, int t) {
    if (t < 1) t = 1;
    switch (o->schedule) {
    case AV_SCHED_NOAM: {
        double w = o->warmup > 0 ? o->warmup : 1;
        double a = 1.0 / sqrt((double)t), b = (double)t * pow(w, -1.5);
        return o->lr_max * pow((double)o->d_model, -0.5) * (a < b ? a : b);
    }
    case AV_SCHED_COSINE: {
        if (t <= o->warmup) return o->lr_max * (double)t / (double)o->warmup;
        int span = o->steps - o->warmup;
        double p = span > 0 ? (double)(t - o->warmup) / (double)span : 1.0;
        if (p > 1) p = 1;
        return o->lr_min + 0.5 * (o->lr_max - o->lr_min) * (1.0 + cos(3.14159265358979323846 * p));
    }
    case AV_SCHED_CONSTANT: break;
    }
    return o->lr_max;
}

AV_SIMD_CLONES void adamw_update(float *p, const float *g, float *m, float *v, size_t n, const av_adamw *o, double lr, int t,
                  int decay) {
    double bc1 = 1.0 - pow(o->beta1, t), bc2 = 1.0 - pow(o->beta2, t);
    double keep = decay ? 1.0 - lr * o->weight_decay : 1.0;
    for (size_t i = 0; i < n; i++) {
        double gi = g[i];
        double mi = o->beta1 * m[i] + (1.0 - o->beta1) * gi;
        double vi = o->beta2 * v[i] + (1.0 - o->beta2) * gi * gi;
        m[i] = (float)mi;
        v[i] = (float)vi;
        double step = (mi / bc1) / (sqrt(vi / bc2) + o->eps);
        p[i] = (float)((double)p[i] * keep - lr * step);
    }
}

double grad_sumsq(const float *g, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)g[i] * g[i];
    return s;
}

double clip_factor(double norm, double max_norm) {
    if (!isfinite(norm)) return NAN; /* no factor makes it a gradient again: not 1 ("no clipping") */
    if (max_norm <= 0) return 1.0;
    double c = max_norm / (norm + 1e-6); /* torch's clip_coef, clamped to 1: it scales a norm 1e-6 under too */
    return c < 1.0 ? c : 1.0;
}

static const char *const sched_names[] = {"cosine", "noam", "constant"};

const char *av_schedule_name(av_schedule s) { return sched_names[s]; }

av_status av_schedule_parse(const char *name, av_schedule *s, av_err *err) {
    for (int k = 0; k < 3; k++)
        if (strcmp(name, sched_names[k]) == 0) { *s = (av_schedule)k; return AV_OK; }
    /* quoted as one shell word, cut at a whole character with "..." and controls shown: '%.100s' cut a name inside
     * a character, printed a newline raw and left "it's" an open quote */
    return av_fail(err, AV_EUSAGE, "--schedule %s is not a schedule (allowed: cosine, noam, constant)",
                   AV_QUOTED_WORD(name, 104));
}
