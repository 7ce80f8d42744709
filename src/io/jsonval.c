/* jsonval.c - checked values of a parsed JSON object (see jsonval.h). */
#include "io/jsonval.h"

#include <math.h>

av_status av_json_int(int *out, const cJSON *root, const char *key, int required, const char *missing_why,
                      const char *name, av_err *err) {
    const cJSON *j = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, key) : NULL;
    if (!j || (cJSON_IsNull(j) && !required))
        return required ? av_fail(err, AV_EUSAGE, "%s: missing key \"%s\" (%s)", name, key, missing_why) : AV_OK;
    if (!cJSON_IsNumber(j))
        return av_fail(err, AV_EUSAGE, "%s: \"%s\" must be a whole number (it is %s)", name, key,
                       cJSON_IsNull(j) ? "null" : cJSON_IsString(j) ? "a string" : "not a number");
    double v = j->valuedouble;
    if (v != floor(v)) /* also NaN, which cJSON never gives */
        return av_fail(err, AV_EUSAGE, "%s: \"%s\" %.17g must be a whole number", name, key, v);
    if (v > AV_JSON_INT_MAX) /* whole, but no size of a model: say the value, not "not a whole number" */
        return av_fail(err, AV_EUSAGE, "%s: \"%s\" %.17g is too large (a whole number of at most 1e9)", name, key, v);
    if (v < -AV_JSON_INT_MAX)
        return av_fail(err, AV_EUSAGE, "%s: \"%s\" %.17g is too small (a whole number of at least -1e9)", name, key, v);
    *out = (int)v;
    return AV_OK;
}
