/* assets.c - the data folder (see assets.h). */
#include "app/assets.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/fileio.h"
#include "render/textlayout.h"

#ifndef AV_DATADIR
#define AV_DATADIR "/usr/local/share/attnviz"
#endif

#define PROBE "fonts/DejaVuSans.ttf"

/* 1 if dir holds the probe file. */
static int has_assets(const char *dir) {
    char path[4400];
    av_path_join(path, sizeof path, dir, PROBE);
    return access(path, R_OK) == 0;
}

/* A data folder found from the running binary's folder, into out: an
 * installation moved as a whole (DESTDIR staging: <bin>/../share/attnviz),
 * or the source tree (<bin>/assets, <bin>/../../assets). */
static int near_binary(char *out, size_t n) {
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) return -1;
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return -1;
    *slash = 0;
    static const char *const rel[] = {"../share/attnviz", "assets", "../../assets"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        av_path_join(out, n, exe, rel[i]);
        if (has_assets(out)) return 0;
    }
    return -1;
}

const char *av_assets_dir(void) {
    static char dir[4200];
    static int done;
    if (!done) {
        done = 1;
        if (has_assets(AV_DATADIR)) snprintf(dir, sizeof dir, "%s", AV_DATADIR);
        else if (near_binary(dir, sizeof dir) != 0) dir[0] = 0;
    }
    return dir[0] ? dir : NULL;
}

const char *av_assets_doc(const char *name) {
    static char found[PATH_MAX];
    const char *dir = av_assets_dir();
    if (!dir) return NULL;
    char path[4400];
    size_t n = strlen(dir), tail = strlen("/share/attnviz");
    if (n >= tail && strcmp(dir + n - tail, "/share/attnviz") == 0) /* installed: PREFIX/share/doc/attnviz */
        snprintf(path, sizeof path, "%.*s/share/doc/attnviz/%s", (int)(n - tail), dir, name);
    else /* the source tree's assets/: docs/ beside it */
        snprintf(path, sizeof path, "%s/../docs/%s", dir, name);
    return realpath(path, found) && access(found, R_OK) == 0 ? found : NULL;
}

const char *av_assets_man(void) {
    static char found[PATH_MAX];
    const char *dir = av_assets_dir();
    if (!dir) return NULL;
    char path[4400];
    size_t n = strlen(dir), tail = strlen("/share/attnviz");
    if (n >= tail && strcmp(dir + n - tail, "/share/attnviz") == 0) /* installed: PREFIX/share/man/man1 */
        snprintf(path, sizeof path, "%.*s/share/man/man1/attnviz.1", (int)(n - tail), dir);
    else /* the source tree's assets/: docs/attnviz.1 beside it */
        snprintf(path, sizeof path, "%s/../docs/attnviz.1", dir);
    return realpath(path, found) && access(found, R_OK) == 0 ? found : NULL;
}

const char *av_assets_datadir(void) {
    return AV_DATADIR;
}

int av_assets_use_fonts(void) {
    const char *dir = av_assets_dir();
    if (!dir) return -1;
    char regular[4300], bold[4300];
    av_path_join(regular, sizeof regular, dir, "fonts/DejaVuSans.ttf");
    av_path_join(bold, sizeof bold, dir, "fonts/DejaVuSans-Bold.ttf");
    const char *const files[] = {regular, bold};
    av_text_use_fonts(files, 2);
    return 0;
}
