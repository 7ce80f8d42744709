/* compare.h - --compare: the same sentence, X and weights under each setting
 * of one choice (scale, positions, rope-style, word order).
 */
#ifndef AV_COMPARE_H
#define AV_COMPARE_H

typedef enum { AV_CMP_NONE = 0, AV_CMP_SCALE, AV_CMP_POSITIONS, AV_CMP_ROPE_STYLE, AV_CMP_ORDER } av_compare_kind;

/* The one table of --compare names, indexed by av_compare_kind: the option
 * parser, the trace and the figure names (compare_<name>.png) read it. */
static inline const char *av_compare_name(int k) {
    static const char *const names[] = {"none", "scale", "positions", "rope-style", "order"};
    return k >= AV_CMP_NONE && k <= AV_CMP_ORDER ? names[k] : "?";
}

#endif
