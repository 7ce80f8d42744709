/* textlayout.c - label lines: fontconfig per script run, libraqm (FriBidi +
 * HarfBuzz) for bidi and shaping, FreeType for the glyphs.
 *
 * Sections: fonts (the bundled faces, fontconfig's sorted list, FreeType
 * faces, a code point → font cache), a line's code points (scripts, fonts
 * per run, the per-script language), shaping with raqm, entry points.
 *
 * fontconfig starts only when a line needs it (about 10 ms of CPU): a run
 * without a language and a character the bundled face of its weight has
 * take that face straight from FreeType, as fontconfig's list would give
 * it (the application fonts are sorted in front of that list, see
 * app_first); anything else (a character the face lacks, a run with a
 * language, no bundled fonts) asks fontconfig.
 *
 * Non-goals: see textlayout.h.
 */
#include "render/textlayout.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <fontconfig/fontconfig.h>
#include <fribidi.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_GLYPH_H
#include FT_MODULE_H
#include FT_OUTLINE_H
#include <hb-ft.h>
#include <hb.h>
#include <raqm.h>

#include "base/utf8.h"

/* ---------------------------------------------------------------- fonts */

#define MAX_FACES 32
#define CP_CACHE 4096 /* open-addressed code point → face slot cache, per weight */
#define MAX_LANG_SORTS 32
#define LAY_CACHE 16384 /* laid-out lines kept, by (text, size, weight): figures measure and draw
                         * the same labels many times, and every raqm call rebuilds HarfBuzz's
                         * font tables (about 25 calls per distinct label in a 200-token figure set;
                         * a 2048-token set has ~1,400 distinct labels per map, the same in every
                         * head's figure: 1024 slots kept evicting them) */
#define GLYPH_CACHE 4096 /* rendered glyph bitmaps kept, by (font, glyph, size, sub-pixel offset):
                          * a figure set draws the same digits and labels in every figure */
#define OUTLINE_CACHE 1024 /* hinted outlines kept, by (font, glyph, size): FreeType's light hinting
                           * (the auto-hinter) is about 2/3 of a glyph's cost and is the same at every
                           * sub-pixel offset; a figure set draws each glyph at ~3 offsets per size */
#define FAMILIES "DejaVu Sans,Noto Sans CJK SC,sans-serif" /* matplotlib's face first, then CJK */

typedef struct {
    FT_Face face;
    void *map;          /* the font file, mapped (face reads it; unmapped after FT_Done_Face) */
    size_t map_len;
    FT_F26Dot6 size;    /* current char size in 26.6, 0 = unset */
    hb_font_t *hb;      /* HarfBuzz's font on face for line_shape_direct, NULL until used */
    FT_F26Dot6 hb_size; /* the char size hb was last told of (hb_ft_font_changed) */
} face_slot;

typedef struct {
    char *text; /* NULL = empty */
    float size;
    int bold;
    av_text_layout lay;
} lay_entry;

typedef struct {
    unsigned cp;  /* code point + 1; 0 = empty */
    short slot;   /* face slot, -1 = no font has it */
} cp_entry;

typedef struct {
    int used, slot;
    unsigned gid;
    FT_F26Dot6 size; /* 26.6, as sized_face sets it */
    FT_Glyph glyph;  /* the outline as FT_Load_Glyph gives it at that size (hinted), at the origin */
} outline_entry;

typedef struct {
    int used, slot;
    unsigned gid;
    FT_F26Dot6 size;        /* 26.6, as sized_face sets it */
    int32_t fx, fy;         /* sub-pixel offset of the origin, 0..63 (1/64 px) */
    unsigned char *bits;    /* rows x cols, pitch cols */
    int rows, cols, left, top; /* FreeType's bitmap_left/top for that offset */
} glyph_entry;

static struct {
    int tried;    /* text_init_now ran: FreeType (ft, NULL if it failed) and fast[] */
    int fc_tried, fc_ok; /* fc_init_now ran; fontconfig and the sorted lists loaded */
    FT_Library ft;
    int fast[2];  /* [bold]: face slot of the bundled face fontconfig's list without a
                   * language starts with for that weight (fast_faces), -1 = none */
    FcConfig *fc;
    FcFontSet *sorted[2]; /* [bold]: the family list, no language */
    struct {
        const char *lang; /* a static string from run_language */
        int bold;
        FcFontSet *fs;
    } by_lang[MAX_LANG_SORTS]; /* the family list sorted for a language */
    int n_by_lang;
    face_slot faces[MAX_FACES];
    char *face_key[MAX_FACES]; /* "file\nindex" */
    char *face_file[MAX_FACES];
    int n_faces;
} T;

/* The caches, apart from T: unload() resets only the entries that were
 * filled (listed in *_used), so that exit does not read and zero 1.3 MB of
 * pages the run never touched (each a page fault). */
static struct {
    cp_entry cache[2][CP_CACHE];
    lay_entry lays[LAY_CACHE];
    glyph_entry glyphs[GLYPH_CACHE];
    outline_entry outlines[OUTLINE_CACHE];
    int cp_used[2 * CP_CACHE], lay_used[LAY_CACHE], glyph_used[GLYPH_CACHE]; /* filled slots, in order */
    int outline_used[OUTLINE_CACHE];
    int n_cp_used, n_lay_used, n_glyph_used, n_outline_used;
} C;

/* Font files registered by av_text_use_fonts (they outlive unload()). */
#define MAX_APP_FONTS 8
static struct {
    char *files[MAX_APP_FONTS];
    int n;
} app_fonts;

/* Memory ran out in the text layer (av_text_out_of_memory): FreeType's
 * library or a face could not be loaded for lack of it, or a line's layout
 * could not be allocated. Then fontconfig is not started (it crashes when an
 * allocation fails) and every layout fails. Written by the thread that holds
 * the text layer; kept through unload(), cleared by av_text_shutdown. */
static int text_oom;

static int fast_path_off; /* av_text_use_fast_path(0): every font from fontconfig (tests) */
static int direct_off;    /* av_text_use_direct_shaping(0): every line through raqm (tests) */
static const char *cjk_lang; /* av_text_use_cjk_language: "ja" or NULL (a static string, as run_language's) */

/* Release the cached layouts, the loaded fonts and fontconfig state (not the
 * app_fonts list). */
static void unload(void) {
    for (int i = 0; i < C.n_lay_used; i++) {
        lay_entry *e = &C.lays[C.lay_used[i]];
        free(e->text);
        free(e->lay.g);
        memset(e, 0, sizeof *e);
    }
    for (int i = 0; i < C.n_glyph_used; i++) {
        glyph_entry *e = &C.glyphs[C.glyph_used[i]];
        free(e->bits);
        memset(e, 0, sizeof *e);
    }
    for (int i = 0; i < C.n_cp_used; i++) {
        int k = C.cp_used[i];
        memset(&C.cache[k / CP_CACHE][k % CP_CACHE], 0, sizeof(cp_entry));
    }
    for (int i = 0; i < C.n_outline_used; i++) {
        outline_entry *e = &C.outlines[C.outline_used[i]];
        FT_Done_Glyph(e->glyph); /* before FT_Done_FreeType */
        memset(e, 0, sizeof *e);
    }
    C.n_lay_used = C.n_glyph_used = C.n_cp_used = C.n_outline_used = 0;
    for (int k = 0; k < T.n_faces; k++) {
        hb_font_destroy(T.faces[k].hb); /* before the face it references */
        FT_Done_Face(T.faces[k].face);
        munmap(T.faces[k].map, T.faces[k].map_len);
        free(T.face_key[k]);
        free(T.face_file[k]);
    }
    if (T.ft) FT_Done_Library(T.ft); /* made by FT_New_Library with the static ft_memory */
    for (int b = 0; b < 2; b++)
        if (T.sorted[b]) FcFontSetDestroy(T.sorted[b]);
    for (int k = 0; k < T.n_by_lang; k++)
        if (T.by_lang[k].fs) FcFontSetDestroy(T.by_lang[k].fs);
    if (T.fc) {
        FcConfigDestroy(T.fc);
        FcFini();
    }
    memset(&T, 0, sizeof T);
}

/* ------------------------------------------------------- set-up in advance */

/* The thread av_text_prepare started, if it is still to be joined. Every
 * entry point that uses T joins it first, so T is never used by two threads
 * at once. The lock lets av_text_prepare_wait join it from another thread. */
static struct {
    pthread_t thread;
    int running;
    int all;    /* load fontconfig whatever the text */
    char *text; /* the hint of av_text_prepare_for (owned), or NULL */
} prep;
static pthread_mutex_t prep_lock = PTHREAD_MUTEX_INITIALIZER;
static int shutdown_registered;

static void prepare_join(void) {
    pthread_mutex_lock(&prep_lock);
    if (prep.running) pthread_join(prep.thread, NULL);
    prep.running = 0;
    free(prep.text);
    prep.text = NULL;
    pthread_mutex_unlock(&prep_lock);
}

void av_text_prepare_wait(void) {
    prepare_join();
}

static void text_init_now(void);
static void fc_init_now(void);
static int text_needs_fontconfig(const char *utf8);

static int lay_line(const char *utf8, float size, int bold, av_text_layout *lay);
static int glyph_render_now(const av_glyph *g, int32_t x, float size, av_glyph_bitmap *out);

/* What the first label in each face and script costs, paid on the loader
 * thread instead of in the first figure: lay out the start of text (the
 * sentence, or nothing; its first 64 bytes, whole characters) and a number,
 * regular and bold, and render their glyphs. That
 * loads HarfBuzz's tables of the faces and builds their shape plans (the
 * first label took 0.84 ms, the first bold one 0.29 ms, the first number
 * 0.06 ms, the rest 2-15 us each) and FreeType's auto-hinter metrics. The
 * layouts are not cached (lay_line); the glyphs are, at one size. */
static void warm_up(const char *text) {
    char start[65] = "";
    size_t n = text ? strlen(text) : 0;
    if (n > 64)
        for (n = 64; n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80; n--) { /* not inside a character */
        }
    if (text) memcpy(start, text, n), start[n] = 0;
    const char *lines[2] = {"0.0", text ? start : NULL};
    for (int bold = 0; bold < 2; bold++)
        for (int k = 0; k < 2; k++) {
            av_text_layout lay;
            if (!lines[k] || lay_line(lines[k], 14, bold, &lay) != 0) continue;
            av_glyph_bitmap bm;
            for (int g = 0; g < lay.n; g++) (void)glyph_render_now(&lay.g[g], lay.g[g].x, 14, &bm);
            av_text_layout_free(&lay);
        }
}

static void *prepare_main(void *arg) {
    (void)arg;
    text_init_now();
    if (prep.all || text_needs_fontconfig(prep.text)) fc_init_now();
    warm_up(prep.text);
    return NULL;
}

/* Start the loader thread: FreeType and the bundled faces, and fontconfig
 * when all is set or text (NULL: none) needs it. */
static void prepare_start(const char *text, int all) {
    pthread_mutex_lock(&prep_lock);
    if (prep.running || T.fc_tried) {
        pthread_mutex_unlock(&prep_lock);
        return;
    }
    if (!shutdown_registered) { /* here, not on the thread; but libraries' exit handlers registered
                                  * later (HarfBuzz's, on first use) run before it: callers wait
                                  * (av_text_prepare_wait) before they exit */
        atexit(av_text_shutdown);
        shutdown_registered = 1;
    }
    prep.all = all;
    prep.text = NULL;
    if (text && !all && !(prep.text = malloc(strlen(text) + 1))) { /* no copy: memory is short, the fonts load */
        pthread_mutex_unlock(&prep_lock);                            /* on first use (and fail there) */
        return;
    }
    if (prep.text) strcpy(prep.text, text);
    prep.running = pthread_create(&prep.thread, NULL, prepare_main, NULL) == 0;
    if (!prep.running) {
        free(prep.text);
        prep.text = NULL;
    }
    pthread_mutex_unlock(&prep_lock);
}

void av_text_prepare(void) {
    prepare_start(NULL, 1);
}

void av_text_prepare_for(const char *utf8) {
    prepare_start(utf8, utf8 == NULL);
}

void av_text_use_direct_shaping(int on) {
    prepare_join();
    direct_off = !on;
    if (T.tried) unload(); /* no layout of the other way is reused */
}

const char *av_text_cjk_language(void) { return cjk_lang; }

void av_text_use_cjk_language(const char *lang) {
    prepare_join();
    const char *v = lang && strcmp(lang, "ja") == 0 ? "ja" : NULL;
    if (v == cjk_lang) return;
    cjk_lang = v;
    if (T.tried) unload(); /* the next text chooses its fonts and shapes for the new language */
}

void av_text_use_fast_path(int on) {
    prepare_join();
    if (fast_path_off == !on) return;
    fast_path_off = !on;
    if (T.tried) unload(); /* the next text chooses its fonts the new way */
}

int av_text_fontconfig_loaded(void) {
    prepare_join();
    return T.fc != NULL;
}

int av_text_out_of_memory(void) {
    prepare_join();
    return text_oom;
}

void av_text_shutdown(void) {
    prepare_join();
    unload();
    text_oom = 0;
    for (int i = 0; i < app_fonts.n; i++) free(app_fonts.files[i]);
    app_fonts.n = 0;
}

int av_text_use_fonts(const char *const *files, int n) {
    prepare_join();
    int same = n == app_fonts.n;
    for (int i = 0; same && i < n; i++) same = strcmp(files[i], app_fonts.files[i]) == 0;
    if (same) return app_fonts.n; /* loaded fonts stay */
    for (int i = 0; i < app_fonts.n; i++) free(app_fonts.files[i]);
    app_fonts.n = 0;
    for (int i = 0; i < n && app_fonts.n < MAX_APP_FONTS; i++) {
        char *copy = malloc(strlen(files[i]) + 1);
        if (!copy) break;
        strcpy(copy, files[i]);
        app_fonts.files[app_fonts.n++] = copy;
    }
    if (T.tried) unload(); /* the next text loads the fonts again, these first */
    return app_fonts.n;
}

/* sys (consumed) with the application fonts, sorted by the same pattern,
 * in front: the bundled fonts win over any system font. Used for the list
 * without a language (scripts whose runs get none, Latin among them); a
 * run with a language (Arabic, Devanagari, ...) keeps fontconfig's choice
 * for that language, in which the application fonts also take part. */
static FcFontSet *app_first(FcFontSet *sys, FcPattern *pat) {
    FcFontSet *app = FcConfigGetFonts(T.fc, FcSetApplication);
    if (!app || app->nfont == 0) return sys;
    FcResult res;
    FcFontSet *sorted = FcFontSetSort(T.fc, &app, 1, pat, FcFalse, NULL, &res);
    FcFontSet *out = sorted ? FcFontSetCreate() : NULL;
    if (!out) {
        if (sorted) FcFontSetDestroy(sorted);
        return sys;
    }
    FcFontSet *parts[2] = {sorted, sys};
    for (int s = 0; s < 2; s++)
        for (int k = 0; parts[s] && k < parts[s]->nfont; k++) {
            FcPatternReference(parts[s]->fonts[k]);
            if (!FcFontSetAdd(out, parts[s]->fonts[k])) FcPatternDestroy(parts[s]->fonts[k]);
        }
    FcFontSetDestroy(sorted);
    if (sys) FcFontSetDestroy(sys);
    return out;
}

/* fontconfig's list of every font, best first, for FAMILIES in the given
 * weight (upright), and language (BCP 47, or NULL for none). NULL on failure. */
static FcFontSet *sort_fonts(const char *lang, int bold) {
    FcPattern *pat = FcNameParse((const FcChar8 *)FAMILIES);
    if (!pat) return NULL;
    FcPatternAddInteger(pat, FC_WEIGHT, bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR);
    FcPatternAddInteger(pat, FC_SLANT, FC_SLANT_ROMAN);
    if (lang) FcPatternAddString(pat, FC_LANG, (const FcChar8 *)lang);
    FcConfigSubstitute(T.fc, pat, FcMatchPattern);
    FcDefaultSubstitute(pat);
    FcResult res;
    FcFontSet *fs = FcFontSort(T.fc, pat, FcFalse, NULL, &res);
    if (!lang) fs = app_first(fs, pat); /* Latin, Cyrillic, Han, digits, symbols */
    FcPatternDestroy(pat);
    return fs;
}

/* Load fontconfig's configuration, the application fonts and the sorted
 * family lists (once, after text_init_now; T.fc_ok says whether it worked). */
static void fc_init_now(void) {
    if (T.fc_tried || !T.ft || text_oom) return; /* fontconfig crashes when memory runs out */
    T.fc_tried = 1;
    T.fc = FcInitLoadConfigAndFonts();
    if (!T.fc) return;
    for (int i = 0; i < app_fonts.n; i++) FcConfigAppFontAddFile(T.fc, (const FcChar8 *)app_fonts.files[i]);
    for (int b = 0; b < 2; b++) T.sorted[b] = sort_fonts(NULL, b);
    T.fc_ok = T.sorted[0] != NULL;
}

/* fontconfig, loaded now if it is not yet: 1 if its lists are there. */
static int fc_ready(void) {
    fc_init_now();
    return T.fc_ok;
}

static int face_slot_for(const char *file, int index);

/* FreeType's memory: malloc, realloc and free (as FT_New_Memory's), noting
 * in ft_alloc_failed that an allocation failed: FreeType reports some as a
 * bad font file (a TrueType table that could not be read), which must not
 * send the text to fontconfig as a font it lacks would. */
static int ft_alloc_failed;

static void *ft_mem_alloc(FT_Memory memory, long size) {
    (void)memory;
    void *p = malloc((size_t)size);
    if (!p) ft_alloc_failed = 1;
    return p;
}

static void *ft_mem_realloc(FT_Memory memory, long cur_size, long new_size, void *block) {
    (void)memory, (void)cur_size;
    void *p = realloc(block, (size_t)new_size);
    if (!p) ft_alloc_failed = 1;
    return p;
}

static void ft_mem_free(FT_Memory memory, void *block) {
    (void)memory;
    free(block);
}

static struct FT_MemoryRec_ ft_memory = {NULL, ft_mem_alloc, ft_mem_free, ft_mem_realloc};

/* Does the family or style name of face contain word? */
static int face_name_has(FT_Face face, const char *word) {
    return (face->family_name && strstr(face->family_name, word)) || (face->style_name && strstr(face->style_name, word));
}

/* T.fast: the application font fontconfig's list without a language starts
 * with for each weight, found without fontconfig. That list begins with the
 * application fonts sorted by FAMILIES, weight and upright slant (app_first);
 * when they are all one sans-serif family of single-face, upright, outline
 * files (no collection, no variable font; the bundled DejaVu Sans and DejaVu
 * Sans Bold), family and slant tie and the weight decides: the one file
 * that is not bold comes first for regular text, the one bold file for
 * bold text. Any other list leaves fast[] at -1 (every font from
 * fontconfig). Keyed as fontconfig's FC_FILE for an application font (the
 * name as given) with index 0, so both ways share the face slot. */
static void fast_faces(void) {
    int slot[MAX_APP_FONTS];
    T.fast[0] = T.fast[1] = -1;
    if (fast_path_off || app_fonts.n == 0) return;
    for (int i = 0; i < app_fonts.n; i++) {
        slot[i] = face_slot_for(app_fonts.files[i], 0);
        if (slot[i] < 0) return;
        FT_Face f = T.faces[slot[i]].face, f0 = T.faces[slot[0]].face;
        if (f->num_faces != 1 || FT_HAS_MULTIPLE_MASTERS(f) || (f->style_flags & FT_STYLE_FLAG_ITALIC) ||
            face_name_has(f, "Italic") || face_name_has(f, "Oblique") || face_name_has(f, "Serif") ||
            !f->family_name || strcmp(f->family_name, f0->family_name) != 0)
            return;
    }
    for (int b = 0; b < 2; b++) {
        int found = -1, unique = 1;
        for (int i = 0; i < app_fonts.n; i++) {
            if (((T.faces[slot[i]].face->style_flags & FT_STYLE_FLAG_BOLD) != 0) != b) continue;
            if (found >= 0 && found != slot[i]) unique = 0;
            found = slot[i];
        }
        T.fast[b] = unique ? found : -1;
    }
}

/* FreeType and the bundled faces (once): what every line needs, without
 * fontconfig (fc_init_now loads that when a line needs it). FreeType's
 * library as FT_Init_FreeType makes it, with ft_memory for its memory. */
static void text_init_now(void) {
    if (T.tried) return;
    T.tried = 1;
    T.fast[0] = T.fast[1] = -1;
    if (!shutdown_registered) {
        atexit(av_text_shutdown);
        shutdown_registered = 1;
    }
    ft_alloc_failed = 0;
    FT_Error fe = FT_New_Library(&ft_memory, &T.ft);
    if (fe == 0) {
        FT_Add_Default_Modules(T.ft);
        FT_Set_Default_Properties(T.ft);
    }
    if (fe != 0 || ft_alloc_failed) {
        if (fe == 0) FT_Done_Library(T.ft);
        text_oom = ft_alloc_failed || fe == FT_Err_Out_Of_Memory;
        T.ft = NULL;
        return;
    }
    fast_faces();
}

/* text_init_now on the caller's thread, after any set-up av_text_prepare
 * started has finished. */
static void text_init(void) {
    prepare_join();
    text_init_now();
}

/* The sorted list for a language (cached per language and weight). */
static FcFontSet *sorted_for(const char *lang, int bold) {
    if (!lang) return T.sorted[bold] ? T.sorted[bold] : T.sorted[0];
    for (int k = 0; k < T.n_by_lang; k++)
        if (T.by_lang[k].lang == lang && T.by_lang[k].bold == bold) return T.by_lang[k].fs;
    FcFontSet *fs = sort_fonts(lang, bold);
    if (!fs || T.n_by_lang == MAX_LANG_SORTS) {
        if (fs) FcFontSetDestroy(fs);
        return T.sorted[bold] ? T.sorted[bold] : T.sorted[0];
    }
    T.by_lang[T.n_by_lang].lang = lang;
    T.by_lang[T.n_by_lang].bold = bold;
    T.by_lang[T.n_by_lang++].fs = fs;
    return fs;
}

/* The font file mapped read-only (or, where its file system cannot map it,
 * read into an anonymous mapping), its length in *len; NULL when it cannot
 * be opened or read or is not a non-empty regular file (fontconfig's next
 * font, or a box, then), or, with text_oom set, when the mapping failed for
 * lack of memory. attnviz maps the file itself, as FreeType would (FT_New_Face),
 * because FreeType, when its mapping and then its copy of the file fail,
 * goes on to look for Mac resource forks and reports the font as of an
 * unknown format: not to be told from a file that is not a font. */
static void *map_font(const char *file, size_t *len) {
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOMEM) text_oom = 1;
        return NULL;
    }
    struct stat st;
    void *map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        *len = (size_t)st.st_size;
        map = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED && errno != ENOMEM) { /* a file system that cannot map it (ENODEV): read it into */
            map = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); /* memory, as */
            size_t got = 0; /* FreeType's FT_Stream_Open does; every label was a box (a reviewer's pass) */
            for (ssize_t r = 1; map != MAP_FAILED && got < *len && r > 0; got += r > 0 ? (size_t)r : 0)
                r = pread(fd, (char *)map + got, *len - got, (off_t)got);
            if (map != MAP_FAILED && got < *len) munmap(map, *len), map = MAP_FAILED, errno = EIO;
        }
        if (map == MAP_FAILED && errno == ENOMEM) text_oom = 1;
    }
    close(fd);
    return map == MAP_FAILED ? NULL : map;
}

/* Face slot for a font file + index, loading it on first use; -1 on
 * failure (text_oom set when it was for lack of memory). */
static int face_slot_for(const char *file, int index) {
    char key[4200];
    snprintf(key, sizeof key, "%s\n%d", file, index);
    for (int k = 0; k < T.n_faces; k++)
        if (strcmp(T.face_key[k], key) == 0) return k;
    if (T.n_faces == MAX_FACES) return -1;
    size_t len;
    void *map = map_font(file, &len);
    if (!map) return -1;
    FT_Face face;
    ft_alloc_failed = 0;
    FT_Error fe = FT_New_Memory_Face(T.ft, map, (FT_Long)len, index, &face);
    if (fe != 0) { /* FreeType reports some failed allocations as a bad file (Unknown_File_Format) */
        if (ft_alloc_failed || fe == FT_Err_Out_Of_Memory) text_oom = 1;
        munmap(map, len);
        return -1;
    }
    if (!FT_IS_SCALABLE(face)) {
        FT_Done_Face(face);
        munmap(map, len);
        return -1;
    }
    char *copy = malloc(strlen(key) + 1), *path = malloc(strlen(file) + 1);
    if (!copy || !path) {
        text_oom = 1;
        free(copy);
        free(path);
        FT_Done_Face(face);
        munmap(map, len);
        return -1;
    }
    strcpy(copy, key);
    strcpy(path, file);
    T.faces[T.n_faces] = (face_slot){face, map, len, 0, NULL, 0};
    T.face_key[T.n_faces] = copy;
    T.face_file[T.n_faces] = path;
    return T.n_faces++;
}

/* The file and face index of an upright outline font of a sorted list;
 * 0 for fonts attnviz does not draw with (bitmap, slanted). */
static int usable_font(FcPattern *p, const char **file, int *index) {
    FcBool outline = FcTrue;
    int slant = FC_SLANT_ROMAN;
    FcChar8 *f;
    FcPatternGetBool(p, FC_OUTLINE, 0, &outline);
    FcPatternGetInteger(p, FC_SLANT, 0, &slant);
    if (!outline || slant != FC_SLANT_ROMAN) return 0;
    if (FcPatternGetString(p, FC_FILE, 0, &f) != FcResultMatch) return 0;
    *index = 0;
    FcPatternGetInteger(p, FC_INDEX, 0, index);
    *file = (const char *)f;
    return 1;
}

/* First upright outline font in the sorted list that has cp; -1 if none.
 * The bundled face of the weight heads that list: when it has cp, it is the
 * answer without fontconfig (its cmap is the FC_CHARSET fontconfig reads). */
static int find_face(unsigned cp, int bold) {
    int fast = T.fast[bold];
    if (fast >= 0 && FT_Get_Char_Index(T.faces[fast].face, cp) != 0) return fast;
    FcFontSet *fs = fc_ready() ? sorted_for(NULL, bold) : NULL;
    if (!fs) return -1;
    for (int k = 0; k < fs->nfont; k++) {
        FcCharSet *cs;
        const char *file;
        int index;
        if (FcPatternGetCharSet(fs->fonts[k], FC_CHARSET, 0, &cs) != FcResultMatch) continue;
        if (!FcCharSetHasChar(cs, cp) || !usable_font(fs->fonts[k], &file, &index)) continue;
        int slot = face_slot_for(file, index);
        if (slot >= 0 && FT_Get_Char_Index(T.faces[slot].face, cp) != 0) return slot;
    }
    return -1;
}

/* Cached find_face; on the thread that holds the text layer (public entry
 * points call text_init first; the loader thread's warm_up has it). */
static int face_for(unsigned cp, int bold) {
    text_init_now();
    if (!T.ft) return -1;
    cp_entry *tab = C.cache[bold ? 1 : 0];
    unsigned h = (cp * 2654435761u) % CP_CACHE;
    for (int probe = 0; probe < 16; probe++) {
        unsigned k = (h + (unsigned)probe) % CP_CACHE;
        cp_entry *e = &tab[k];
        if (e->cp == cp + 1) return e->slot;
        if (e->cp == 0) {
            int slot = find_face(cp, bold ? 1 : 0);
            C.cp_used[C.n_cp_used++] = (bold ? CP_CACHE : 0) + (int)k;
            e->cp = cp + 1;
            e->slot = (short)slot;
            return slot;
        }
    }
    return find_face(cp, bold ? 1 : 0);
}

int av_text_missing_codepoints(const char *utf8, int bold, unsigned *out, int cap) {
    text_init();
    const unsigned char *s = (const unsigned char *)utf8;
    int n = 0;
    while (*s) {
        unsigned cp = av_utf8_next(&s);
        if (av_utf8_is_ignorable(cp) || face_for(cp, bold) >= 0) continue;
        if (n < cap) out[n] = cp;
        n++;
    }
    return n;
}

int av_text_has_glyph(unsigned cp) {
    text_init();
    return face_for(cp, 0) >= 0;
}

static FT_Face sized_face(int slot, float size) {
    face_slot *fsl = &T.faces[slot];
    FT_F26Dot6 s = (FT_F26Dot6)lrintf(size * 64.0f);
    if (s < 64) s = 64;
    if (fsl->size != s) {
        FT_Set_Char_Size(fsl->face, 0, s, 72, 72); /* 72 dpi: 1 pt = 1 px */
        fsl->size = s;
    }
    return fsl->face;
}


/* Can font slot draw cp: its character map has cp, or every part of cp's
 * canonical decomposition (HarfBuzz decomposes what a font lacks, e.g. the
 * Tamil two-part vowel sign U+0BCA into U+0BC6 U+0BBE)? */
static int slot_has(int slot, unsigned cp) {
    if (slot < 0) return 0;
    if (FT_Get_Char_Index(T.faces[slot].face, cp) != 0) return 1;
    hb_codepoint_t a, b;
    if (!hb_unicode_decompose(hb_unicode_funcs_get_default(), cp, &a, &b)) return 0;
    return slot_has(slot, a) && (b == 0 || slot_has(slot, b));
}

static int slot_of_face(FT_Face face) {
    for (int k = 0; k < T.n_faces; k++)
        if (T.faces[k].face == face) return k;
    return -1;
}

/* ---------------------------------------------------------------- a line's code points */

#define LOAD_FLAGS (FT_LOAD_TARGET_LIGHT)

typedef struct {
    uint32_t *cp;           /* n code points, logical order */
    hb_script_t *sc;        /* script of each; Common and Inherited resolved to their run's */
    int *font;              /* font slot each is shaped with; -1 = none */
    unsigned char *missing; /* 1 = no font has it: drawn as a box */
    unsigned char *starts;  /* 1 = starts an extended grapheme cluster (UAX #29, av_utf8_cluster_len);
                             * 2 = and line_fonts gave the cluster one font of its own (cluster_font) */
    size_t n;
} line;

static void line_free(line *ln) {
    free(ln->cp);
    free(ln->sc);
    free(ln->font);
    free(ln->missing);
    free(ln->starts);
    memset(ln, 0, sizeof *ln);
}

static int is_weak(hb_script_t sc) {
    return sc == HB_SCRIPT_COMMON || sc == HB_SCRIPT_INHERITED || sc == HB_SCRIPT_UNKNOWN;
}

static hb_script_t own_script(uint32_t cp) {
    return hb_unicode_script(hb_unicode_funcs_get_default(), cp);
}

#define MAX_ISOLATES 16 /* deeper isolates count as their parent's text */

static int opens_isolate(uint32_t cp) { return cp >= 0x2066 && cp <= 0x2068; } /* LRI RLI FSI */
static int closes_isolate(uint32_t cp) { return cp == 0x2069; }                  /* PDI */

/* Script runs (UAX #24 values): Common, Inherited and Unknown characters take
 * the script before them; leading ones the first script after them. An
 * isolate (LRI/RLI/FSI ... PDI, UAX #9 2.7) is its own context: text outside
 * it never takes a script from inside, so the quotes around a quoted Chinese
 * sentence in an English line are Latin (drawn by the label font at their
 * own width, not as full-width CJK punctuation), and the isolate's leading
 * punctuation takes the isolate's first script. */
static void line_scripts(line *ln) {
    hb_script_t prev = HB_SCRIPT_COMMON, saved[MAX_ISOLATES];
    int depth = 0;
    for (size_t i = 0; i < ln->n; i++) { /* forward: the script before, in the same isolate */
        uint32_t cp = ln->cp[i];
        if (closes_isolate(cp) && depth > 0) prev = saved[--depth];
        hb_script_t sc = own_script(cp);
        if (!is_weak(sc)) prev = sc;
        ln->sc[i] = prev;
        if (opens_isolate(cp) && depth < MAX_ISOLATES) saved[depth++] = prev, prev = HB_SCRIPT_COMMON;
    }
    hb_script_t next = HB_SCRIPT_COMMON; /* backward: leading ones take the script after */
    depth = 0;
    for (size_t i = ln->n; i-- > 0;) {
        uint32_t cp = ln->cp[i];
        if (opens_isolate(cp) && depth > 0) next = saved[--depth];
        if (is_weak(ln->sc[i])) ln->sc[i] = next;
        else next = ln->sc[i];
        if (closes_isolate(cp) && depth < MAX_ISOLATES) saved[depth++] = next, next = HB_SCRIPT_COMMON;
    }
}

/* Decode utf8 into ln (code points and their script runs). -1 when out of memory. */
static int line_open(line *ln, const char *utf8) {
    size_t cap = strlen(utf8) + 1;
    memset(ln, 0, sizeof *ln);
    ln->cp = malloc(cap * sizeof *ln->cp);
    ln->sc = malloc(cap * sizeof *ln->sc);
    ln->font = malloc(cap * sizeof *ln->font);
    ln->missing = calloc(cap, 1);
    ln->starts = calloc(cap, 1);
    if (!ln->cp || !ln->sc || !ln->font || !ln->missing || !ln->starts) {
        line_free(ln);
        return -1;
    }
    const unsigned char *s = (const unsigned char *)utf8, *end = s + cap - 1;
    while (*s) { /* cluster by cluster (both walkers read a bad byte as one U+FFFD) */
        const unsigned char *c_end = s + av_utf8_cluster_len((const char *)s, (size_t)(end - s));
        ln->starts[ln->n] = 1;
        while (*s && s < c_end) ln->cp[ln->n++] = av_utf8_next(&s);
    }
    line_scripts(ln);
    return 0;
}

static int run_has_any(const line *ln, size_t a, size_t b, const uint32_t *set, size_t n_set) {
    for (size_t i = a; i < b; i++)
        for (size_t k = 0; k < n_set; k++)
            if (ln->cp[i] == set[k]) return 1;
    return 0;
}

/* OpenType language of the script run [a, b) (BCP 47), or NULL for the
 * script's default forms. A script's main language; Arabic-script runs with
 * letters only Urdu (ٹ ڈ ڑ ں ے) or Persian (پ چ ژ گ ک ی) use get those. */
static const char *run_language(const line *ln, size_t a, size_t b) {
    static const uint32_t URDU[] = {0x0679, 0x0688, 0x0691, 0x06BA, 0x06D2};
    static const uint32_t PERSIAN[] = {0x067E, 0x0686, 0x0698, 0x06AF, 0x06A9, 0x06CC};
    static const struct {
        hb_script_t sc;
        const char *lang;
    } DEFAULT[] = {
        {HB_SCRIPT_ARABIC, "ar"},    {HB_SCRIPT_HEBREW, "he"},   {HB_SCRIPT_DEVANAGARI, "hi"},
        {HB_SCRIPT_BENGALI, "bn"},   {HB_SCRIPT_GURMUKHI, "pa"}, {HB_SCRIPT_GUJARATI, "gu"},
        {HB_SCRIPT_ORIYA, "or"},     {HB_SCRIPT_TAMIL, "ta"},    {HB_SCRIPT_TELUGU, "te"},
        {HB_SCRIPT_KANNADA, "kn"},   {HB_SCRIPT_MALAYALAM, "ml"}, {HB_SCRIPT_SINHALA, "si"},
        {HB_SCRIPT_THAI, "th"},      {HB_SCRIPT_LAO, "lo"},      {HB_SCRIPT_KHMER, "km"},
        {HB_SCRIPT_MYANMAR, "my"},   {HB_SCRIPT_TIBETAN, "bo"},  {HB_SCRIPT_SYRIAC, "syr"},
        {HB_SCRIPT_THAANA, "dv"},    {HB_SCRIPT_ARMENIAN, "hy"}, {HB_SCRIPT_GEORGIAN, "ka"},
        {HB_SCRIPT_GREEK, "el"},     {HB_SCRIPT_ETHIOPIC, "am"},
    };
    hb_script_t sc = ln->sc[a];
    if (sc == HB_SCRIPT_ARABIC && run_has_any(ln, a, b, URDU, sizeof URDU / sizeof *URDU)) return "ur";
    if (sc == HB_SCRIPT_ARABIC && run_has_any(ln, a, b, PERSIAN, sizeof PERSIAN / sizeof *PERSIAN)) return "fa";
    for (size_t k = 0; k < sizeof DEFAULT / sizeof *DEFAULT; k++)
        if (DEFAULT[k].sc == sc) return DEFAULT[k].lang;
    /* Han and kana: Japanese forms for a Japanese text (av_text_use_cjk_language), else the list's own
     * (Noto Sans CJK SC, Chinese forms) */
    if (cjk_lang && (sc == HB_SCRIPT_HAN || sc == HB_SCRIPT_HIRAGANA || sc == HB_SCRIPT_KATAKANA)) return cjk_lang;
    return NULL;
}

/* Does charset cs have cp, or every part of its canonical decomposition? */
static int charset_covers(FcCharSet *cs, unsigned cp) {
    if (FcCharSetHasChar(cs, cp)) return 1;
    hb_codepoint_t x, y;
    if (!hb_unicode_decompose(hb_unicode_funcs_get_default(), cp, &x, &y)) return 0;
    return charset_covers(cs, x) && (y == 0 || charset_covers(cs, y));
}

/* Is cp a character the run's font need not have: not of the run's
 * script sc and not a mark (spaces, digits, emoji), or an enclosing mark
 * (Me: the circle U+20DD, the keycap U+20E3), whose cluster line_fonts
 * gives a font of its own (cluster_font) rather than the whole run a symbol
 * font's Latin letters? */
static int run_may_lack(uint32_t cp, hb_script_t sc) {
    hb_script_t own = own_script(cp);
    return (own != sc && own != HB_SCRIPT_INHERITED) || av_utf8_category(cp) == AV_UC_ME;
}

/* Does font p have every letter of the script run [a, b) (characters of
 * the run's own script, and marks but enclosing ones)? Spaces, digits and
 * emoji may come from other fonts (run_may_lack). */
static int font_covers_run(FcPattern *p, const line *ln, size_t a, size_t b) {
    FcCharSet *cs;
    if (FcPatternGetCharSet(p, FC_CHARSET, 0, &cs) != FcResultMatch) return 0;
    for (size_t i = a; i < b; i++) {
        if (run_may_lack(ln->cp[i], ln->sc[a])) continue;
        if (!av_utf8_is_ignorable(ln->cp[i]) && !charset_covers(cs, ln->cp[i])) return 0;
    }
    return 1;
}

/* font_covers_run for a loaded face: its character map (with canonical
 * decompositions, as slot_has) in place of fontconfig's character set. */
static int slot_covers_run(int slot, const line *ln, size_t a, size_t b) {
    for (size_t i = a; i < b; i++) {
        if (run_may_lack(ln->cp[i], ln->sc[a])) continue;
        if (!av_utf8_is_ignorable(ln->cp[i]) && !slot_has(slot, ln->cp[i])) return 0;
    }
    return 1;
}

static int is_serif(FcPattern *p) {
    FcChar8 *family;
    return FcPatternGetString(p, FC_FAMILY, 0, &family) == FcResultMatch && strstr((const char *)family, "Serif");
}

/* The font of the script run [a, b): in fontconfig's list for FAMILIES and
 * the run's language, the first font that has every letter of the run, sans
 * serif before serif (labels are sans serif, as matplotlib's; fontconfig
 * ranks e.g. Noto Serif Kannada before Noto Sans Kannada). If none has them
 * all, the first font that has the run's first letter; a run of spaces,
 * digits or symbols only: the first font that has one of them. */
static int run_font(const line *ln, size_t a, size_t b, int bold) {
    if (!is_weak(ln->sc[a])) {
        const char *lang = run_language(ln, a, b);
        if (!lang && T.fast[bold] >= 0 && slot_covers_run(T.fast[bold], ln, a, b))
            return T.fast[bold]; /* the head of the list without a language (fast_faces) */
        FcFontSet *fs = fc_ready() ? sorted_for(lang, bold) : NULL;
        for (int pass = 0; fs && pass < 2; pass++)
            for (int k = 0; k < fs->nfont; k++) {
                FcPattern *p = fs->fonts[k];
                const char *file;
                int index, slot;
                if ((pass == 0 && is_serif(p)) || !usable_font(p, &file, &index)) continue;
                if (font_covers_run(p, ln, a, b) && (slot = face_slot_for(file, index)) >= 0) return slot;
            }
        for (size_t i = a; i < b; i++)
            if (!is_weak(own_script(ln->cp[i]))) return face_for(ln->cp[i], bold);
    }
    for (size_t i = a; i < b; i++) {
        int f = av_utf8_is_ignorable(ln->cp[i]) ? -1 : face_for(ln->cp[i], bold);
        if (f >= 0) return f;
    }
    return -1;
}

/* 1 for the scripts whose fonts carry Latin letters, digits and ASCII
 * punctuation of their own design (Noto Sans CJK's are smaller and its
 * space narrower than the label font's). */
static int is_cjk_script(hb_script_t sc) {
    return sc == HB_SCRIPT_HAN || sc == HB_SCRIPT_HIRAGANA || sc == HB_SCRIPT_KATAKANA || sc == HB_SCRIPT_HANGUL ||
           sc == HB_SCRIPT_BOPOMOFO;
}

/* Font of character i in a run whose font is `run`: the run's font when it
 * has the character; a mark or joiner stays with the character before it;
 * anything else the first font that has it. A Common character of Latin-1
 * (digits, space, ASCII punctuation, ·) in a CJK run is drawn by the first
 * font that has it, as matplotlib's per-glyph fallback and CSS font-family
 * lists draw it: "14 元" and "16 ，" get the same digits, and the space in
 * `"你", then` its label-font width. Full-width forms (，。) stay with the
 * run. Marks ln->missing[i]. */
static int char_font(line *ln, size_t i, int run, int bold) {
    uint32_t cp = ln->cp[i];
    int prev = i > 0 && ln->font[i - 1] >= 0 ? ln->font[i - 1] : run;
    if (av_utf8_is_ignorable(cp)) return prev;
    if (own_script(cp) == HB_SCRIPT_INHERITED && slot_has(prev, cp)) return prev;
    if (cp >= 0x20 && cp < 0x100 && own_script(cp) == HB_SCRIPT_COMMON && is_cjk_script(ln->sc[i])) {
        int f = face_for(cp, bold);
        if (f >= 0) return f;
    }
    if (slot_has(run, cp)) return run;
    int f = face_for(cp, bold);
    ln->missing[i] = f < 0;
    return f >= 0 ? f : prev;
}

/* Does font slot have every character of [a, b) that is not default-ignorable
 * (slot_has: its character map, or a canonical decomposition)? */
static int slot_has_all(int slot, const line *ln, size_t a, size_t b) {
    for (size_t i = a; i < b; i++)
        if (!av_utf8_is_ignorable(ln->cp[i]) && !slot_has(slot, ln->cp[i])) return 0;
    return slot >= 0;
}

/* The same for font p of a sorted list, from fontconfig's character set. */
static int font_has_all(FcPattern *p, const line *ln, size_t a, size_t b) {
    FcCharSet *cs;
    if (FcPatternGetCharSet(p, FC_CHARSET, 0, &cs) != FcResultMatch) return 0;
    for (size_t i = a; i < b; i++)
        if (!av_utf8_is_ignorable(ln->cp[i]) && !charset_covers(cs, ln->cp[i])) return 0;
    return 1;
}

static hb_font_t *slot_hb_font(int slot);

/* Does [a, b) hold an enclosing mark (general category Me: the circle
 * U+20DD, the keycap U+20E3, ...)? */
static int has_enclosing_mark(const line *ln, size_t a, size_t b) {
    for (size_t i = a; i < b; i++)
        if (av_utf8_category(ln->cp[i]) == AV_UC_ME) return 1;
    return 0;
}

/* Does font slot draw the cluster [a, b) as one: HarfBuzz shapes it (at
 * 64 px, alone, default ignorables removed) without a .notdef glyph, and,
 * when the cluster has an enclosing mark, the ink of every glyph that does
 * not advance (the mark) is centred within the middle half of the cluster's
 * advance (other marks sit where the font's own positioning puts them,
 * above, below or beside)? Noto Sans Symbols has "1⃣" but puts
 * its keycap U+20E3 around the digit's right edge (centre at 1.0 of the
 * advance), Noto Sans CJK SC's circle U+20DD around a's left edge (0.11);
 * Symbola's (0.52, 0.51) enclose their base, and a ligature (Noto Sans
 * Symbols2's one_20E3) has no mark to check. */
static int slot_draws_cluster(int slot, const line *ln, size_t a, size_t b) {
    hb_buffer_t *buf = hb_buffer_create();
    if (!hb_buffer_allocation_successful(buf)) return 0;
    hb_buffer_add_utf32(buf, ln->cp, (int)ln->n, (unsigned)a, (int)(b - a));
    hb_buffer_guess_segment_properties(buf);
    hb_buffer_set_flags(buf, HB_BUFFER_FLAG_REMOVE_DEFAULT_IGNORABLES);
    sized_face(slot, 64.0f);
    hb_font_t *font = slot_hb_font(slot);
    hb_shape(font, buf, NULL, 0);
    unsigned ng;
    const hb_glyph_info_t *info = hb_buffer_get_glyph_infos(buf, &ng);
    const hb_glyph_position_t *pos = hb_buffer_get_glyph_positions(buf, NULL);
    int ok = hb_buffer_allocation_successful(buf) && ng > 0;
    int64_t w = 0, pen = 0;
    for (unsigned k = 0; ok && k < ng; k++) {
        ok = info[k].codepoint != 0;
        w += pos[k].x_advance;
    }
    for (unsigned k = 0; ok && has_enclosing_mark(ln, a, b) && k < ng; pen += pos[k].x_advance, k++) {
        hb_glyph_extents_t ext;
        if (pos[k].x_advance != 0 || !hb_font_get_glyph_extents(font, info[k].codepoint, &ext) || ext.width == 0)
            continue;
        int64_t centre2 = 2 * (pen + pos[k].x_offset + ext.x_bearing) + ext.width; /* twice the ink's centre */
        ok = w > 0 && 2 * centre2 >= w && 2 * centre2 <= 3 * w;
    }
    hb_buffer_destroy(buf);
    return ok;
}

/* The one font for the grapheme cluster [a, b) (UAX #29) whose characters
 * char_font gave different fonts or no font, or that has an enclosing mark
 * (which a font with the whole run's letters may draw beside its base, as
 * Noto Sans Symbols and Noto Sans CJK SC do): the font of its first
 * character when that has them all, else the first font of fontconfig's
 * list for the cluster's script run (its language, sans serif before serif,
 * as run_font) that has every character of it and draws them as one
 * (slot_draws_cluster; else the first that has them all), so that HarfBuzz sees base
 * and marks together and attaches them (the keycap "1⃣" as one glyph of
 * Noto Sans Symbols2 or Symbola, "a⃝" with its circle around the a), as
 * browsers' per-cluster font fallback and Pango do. -1 when no font has
 * them all (then each character keeps its own font: the base drawn, the
 * mark beside it). */
static int cluster_font(const line *ln, size_t a, size_t b, int bold) {
    if (!ln->missing[a] && slot_has_all(ln->font[a], ln, a, b) && slot_draws_cluster(ln->font[a], ln, a, b))
        return ln->font[a];
    size_t ra = a, rb = b; /* the script run around the cluster, for its language */
    while (ra > 0 && ln->sc[ra - 1] == ln->sc[a]) ra--;
    while (rb < ln->n && ln->sc[rb] == ln->sc[a]) rb++;
    const char *lang = is_weak(ln->sc[a]) ? NULL : run_language(ln, ra, rb);
    FcFontSet *fs = fc_ready() ? sorted_for(lang, bold) : NULL;
    int first = -1; /* the first font that has them all, if none draws them as one */
    for (int pass = 0; fs && pass < 2; pass++)
        for (int k = 0; k < fs->nfont; k++) {
            FcPattern *p = fs->fonts[k];
            const char *file;
            int index, slot;
            if ((pass == 0 && is_serif(p)) || !usable_font(p, &file, &index) || !font_has_all(p, ln, a, b)) continue;
            if ((slot = face_slot_for(file, index)) < 0 || !slot_has_all(slot, ln, a, b)) continue;
            if (slot_draws_cluster(slot, ln, a, b)) return slot;
            if (first < 0) first = slot;
        }
    return first;
}

/* Fonts for every character (script run by script run), then one font per
 * grapheme cluster of mixed fonts or with an enclosing mark, where one has
 * them all (cluster_font). Returns the first
 * font used, or -1 when no character has one (then all are boxes). */
static int line_fonts(line *ln, int bold) {
    for (size_t a = 0, b; a < ln->n; a = b) {
        for (b = a + 1; b < ln->n && ln->sc[b] == ln->sc[a]; b++) {
        }
        int run = run_font(ln, a, b, bold);
        for (size_t i = a; i < b; i++) ln->font[i] = char_font(ln, i, run, bold);
    }
    for (size_t a = 0, b; a < ln->n; a = b) {
        int mixed = 0;
        for (b = a + 1; b < ln->n && !ln->starts[b]; b++)
            mixed |= !av_utf8_is_ignorable(ln->cp[b]) && (ln->missing[b] || ln->font[b] != ln->font[a]);
        int f = mixed || (b > a + 1 && has_enclosing_mark(ln, a, b)) ? cluster_font(ln, a, b, bold) : -1;
        for (size_t i = a; f >= 0 && i < b; i++) ln->font[i] = f, ln->missing[i] = 0;
        if (f >= 0) ln->starts[a] = 2;
    }
    int any = -1;
    for (size_t i = 0; i < ln->n && any < 0; i++) any = ln->font[i];
    for (size_t i = 0; i < ln->n; i++)
        if (ln->font[i] < 0) ln->font[i] = any; /* a box: shaped as .notdef in a neighbour's font */
    return any;
}

/* Will laying out utf8 (NULL: nothing) load fontconfig? 1 when a run of it
 * gets a language, or a character that is not default-ignorable is missing
 * from the bundled regular or bold face (or there are none); 0 when both
 * faces draw all of it. Needs text_init_now. */
static int text_needs_fontconfig(const char *utf8) {
    line ln;
    if (!utf8) return 0;
    if (!T.ft || text_oom) return 0; /* without FreeType, or memory, nothing loads fontconfig */
    if (T.fast[0] < 0 || T.fast[1] < 0) return 1;
    if (line_open(&ln, utf8) != 0) {
        text_oom = 1;
        return 0;
    }
    int need = 0;
    for (size_t a = 0, b; a < ln.n && !need; a = b) {
        for (b = a + 1; b < ln.n && ln.sc[b] == ln.sc[a]; b++) {
        }
        need = !is_weak(ln.sc[a]) && run_language(&ln, a, b) != NULL;
        for (size_t i = a; i < b && !need; i++)
            need = !av_utf8_is_ignorable(ln.cp[i]) && (FT_Get_Char_Index(T.faces[T.fast[0]].face, ln.cp[i]) == 0 ||
                                                       FT_Get_Char_Index(T.faces[T.fast[1]].face, ln.cp[i]) == 0);
    }
    line_free(&ln);
    return need;
}

/* 1 if the paragraph is right to left (UAX #9 P2-P3, FriBidi). */
static int line_rtl(const line *ln) {
    if (ln->n == 0) return 0;
    FriBidiCharType *types = malloc(ln->n * sizeof *types);
    if (!types) return 0;
    fribidi_get_bidi_types(ln->cp, (FriBidiStrIndex)ln->n, types);
    int rtl = fribidi_get_par_direction(types, (FriBidiStrIndex)ln->n) == FRIBIDI_PAR_RTL;
    free(types);
    return rtl;
}

/* ---------------------------------------------------------------- shaping */

int32_t av_text_box_advance(float size) {
    return (int32_t)lrintf(size * 0.72f) * 64;
}

/* Glyphs from raqm (display order) into lay, pen positions summed here; a
 * .notdef glyph (a character no font has) becomes a box. -1 when out of memory. */
static int place_glyphs(av_text_layout *lay, const raqm_glyph_t *g, size_t ng, float size) {
    lay->g = malloc((ng ? ng : 1) * sizeof *lay->g);
    if (!lay->g) return -1;
    int32_t pen = 0;
    for (size_t k = 0; k < ng; k++) {
        av_glyph *o = &lay->g[lay->n++];
        o->slot = g[k].index ? slot_of_face(g[k].ftface) : -1;
        o->gid = g[k].index;
        o->x = pen + (o->slot >= 0 ? g[k].x_offset : 0);
        o->y = o->slot >= 0 ? g[k].y_offset : 0;
        pen += o->slot >= 0 ? g[k].x_advance : av_text_box_advance(size);
    }
    lay->width = pen;
    return 0;
}

/* Can line_shape_direct lay out ln with the glyphs raqm would give? When
 * the paragraph is left to right and no character has a right-to-left or
 * Arabic-number bidi type or is an explicit embedding, override or isolate
 * (FriBidi types), raqm's bidi pass gives one run at level 0 (UAX #9 W1-W7,
 * I1: European numbers and neutrals next to left-to-right text stay there).
 * When no character is Inherited (UAX #24) and at most one script besides
 * Common occurs, raqm's script pass (raqm.c _raqm_resolve_scripts, 0.7)
 * gives every character that script, or Common if there is none, and so
 * does line_scripts: one language for the line. */
static int line_is_direct(const line *ln, int rtl) {
    if (direct_off || rtl || ln->n == 0) return 0;
    FriBidiCharType *types = malloc(ln->n * sizeof *types);
    if (!types) return 0;
    fribidi_get_bidi_types(ln->cp, (FriBidiStrIndex)ln->n, types);
    int ok = 1;
    hb_script_t strong = HB_SCRIPT_COMMON;
    for (size_t i = 0; i < ln->n && ok; i++) {
        FriBidiCharType t = types[i];
        hb_script_t sc = own_script(ln->cp[i]);
        if (FRIBIDI_IS_RTL(t) || FRIBIDI_IS_ARABIC(t) || FRIBIDI_IS_EXPLICIT(t) || FRIBIDI_IS_ISOLATE(t)) ok = 0;
        if (sc == HB_SCRIPT_INHERITED || (sc != HB_SCRIPT_COMMON && strong != HB_SCRIPT_COMMON && sc != strong)) ok = 0;
        if (sc != HB_SCRIPT_COMMON) strong = sc;
    }
    free(types);
    return ok;
}

/* HarfBuzz's font for slot at its current char size: created once per face
 * (hb_ft, FreeType's hinted advances with LOAD_FLAGS, as raqm sets them) and
 * told of size changes, so that the face's OpenType tables, its shape plans
 * and their lookup accelerators are built once, not for every label. */
static hb_font_t *slot_hb_font(int slot) {
    face_slot *fsl = &T.faces[slot];
    if (!fsl->hb) {
        fsl->hb = hb_ft_font_create_referenced(fsl->face);
        hb_ft_font_set_load_flags(fsl->hb, LOAD_FLAGS);
        fsl->hb_size = fsl->size;
    } else if (fsl->hb_size != fsl->size) {
        hb_ft_font_changed(fsl->hb);
        fsl->hb_size = fsl->size;
    }
    return fsl->hb;
}

/* The shaping raqm does (raqm.c _raqm_shape, 0.7) for a line_is_direct
 * line, without raqm's fresh HarfBuzz font per run: one run per stretch of
 * equal fonts, each shaped with the whole line as context, the line's
 * script and language, left to right, default ignorables removed. -1 when
 * out of memory. */
static int line_shape_direct(const line *ln, float size, av_text_layout *lay) {
    hb_script_t sc = ln->sc[0];
    const char *lang = run_language(ln, 0, ln->n);
    hb_language_t language = lang ? hb_language_from_string(lang, -1) : hb_language_get_default();
    hb_buffer_t *buf = hb_buffer_create();
    if (!hb_buffer_allocation_successful(buf)) return -1;
    int rc = 0;
    int32_t pen = 0;
    for (size_t a = 0, b; a < ln->n && rc == 0; a = b) {
        for (b = a + 1; b < ln->n && ln->font[b] == ln->font[a]; b++) {
        }
        hb_buffer_clear_contents(buf);
        hb_buffer_add_utf32(buf, ln->cp, (int)ln->n, (unsigned)a, (int)(b - a));
        hb_buffer_set_script(buf, sc);
        hb_buffer_set_language(buf, language);
        hb_buffer_set_direction(buf, HB_DIRECTION_LTR);
        hb_buffer_set_flags(buf, HB_BUFFER_FLAG_BOT | HB_BUFFER_FLAG_EOT | HB_BUFFER_FLAG_REMOVE_DEFAULT_IGNORABLES);
        sized_face(ln->font[a], size);
        hb_shape_full(slot_hb_font(ln->font[a]), buf, NULL, 0, NULL);
        unsigned ng;
        const hb_glyph_info_t *info = hb_buffer_get_glyph_infos(buf, &ng);
        const hb_glyph_position_t *pos = hb_buffer_get_glyph_positions(buf, NULL);
        av_glyph *g = realloc(lay->g, ((size_t)lay->n + ng + 1) * sizeof *g);
        if (!hb_buffer_allocation_successful(buf) || !g) {
            rc = -1;
            break;
        }
        lay->g = g;
        for (unsigned k = 0; k < ng; k++) { /* as place_glyphs */
            av_glyph *o = &lay->g[lay->n++];
            o->slot = info[k].codepoint ? ln->font[a] : -1;
            o->gid = info[k].codepoint;
            o->x = pen + (o->slot >= 0 ? pos[k].x_offset : 0);
            o->y = o->slot >= 0 ? pos[k].y_offset : 0;
            pen += o->slot >= 0 ? pos[k].x_advance : av_text_box_advance(size);
        }
    }
    hb_buffer_destroy(buf);
    lay->width = pen;
    if (rc == 0 && !lay->g && !(lay->g = malloc(sizeof *lay->g))) rc = -1;
    return rc;
}

/* Bidi and shaping of the whole line by raqm: one font range per run of
 * equal fonts, one language per script run. -1 on failure. */
static int line_shape(const line *ln, float size, av_text_layout *lay) {
    raqm_t *rq = raqm_create();
    if (!rq) return -1;
    int ok = raqm_set_text(rq, ln->cp, ln->n) &&
             raqm_set_par_direction(rq, lay->rtl ? RAQM_DIRECTION_RTL : RAQM_DIRECTION_LTR) &&
             raqm_set_freetype_load_flags(rq, LOAD_FLAGS) && raqm_set_invisible_glyph(rq, -1);
    for (size_t a = 0, b; ok && a < ln->n; a = b) {
        for (b = a + 1; b < ln->n && ln->font[b] == ln->font[a]; b++) {
        }
        ok = raqm_set_freetype_face_range(rq, sized_face(ln->font[a], size), a, b - a);
    }
    for (size_t a = 0, b; ok && a < ln->n; a = b) {
        for (b = a + 1; b < ln->n && ln->sc[b] == ln->sc[a]; b++) {
        }
        const char *lang = run_language(ln, a, b);
        if (lang) ok = raqm_set_language(rq, lang, a, b - a);
    }
    ok = ok && raqm_layout(rq);
    size_t ng = 0;
    raqm_glyph_t *g = ok ? raqm_get_glyphs(rq, &ng) : NULL;
    int rc = g ? place_glyphs(lay, g, ng, size) : -1;
    raqm_destroy(rq);
    return rc;
}

/* No character has a font: one box per drawable character. */
static int line_boxes(const line *ln, float size, av_text_layout *lay) {
    lay->g = malloc((ln->n ? ln->n : 1) * sizeof *lay->g);
    if (!lay->g) return -1;
    for (size_t i = 0; i < ln->n; i++) {
        if (av_utf8_is_ignorable(ln->cp[i])) continue;
        lay->g[lay->n++] = (av_glyph){-1, 0, lay->width, 0};
        lay->width += av_text_box_advance(size);
    }
    return 0;
}

/* ---------------------------------------------------------------- entry points */

/* Lay out one line without the cache. -1 when out of memory, now or
 * before (text_oom: the fonts may not have loaded, so the glyphs would be
 * boxes), and sets text_oom. */
static int lay_line(const char *utf8, float size, int bold, av_text_layout *lay) {
    line ln;
    memset(lay, 0, sizeof *lay);
    if (text_oom) return -1;
    if (line_open(&ln, utf8) != 0) return text_oom = 1, -1;
    int any = line_fonts(&ln, bold);
    for (size_t i = 0; i < ln.n; i++) {
        lay->missing += ln.missing[i];
        lay->chars += !av_utf8_is_ignorable(ln.cp[i]);
    }
    lay->rtl = line_rtl(&ln);
    int rc = ln.n == 0 ? 0
             : any < 0 ? line_boxes(&ln, size, lay)
             : line_is_direct(&ln, lay->rtl) ? line_shape_direct(&ln, size, lay)
             : line_shape(&ln, size, lay);
    line_free(&ln);
    if (rc != 0 || text_oom) { /* also a face that failed to load for lack of memory on the way */
        av_text_layout_free(lay);
        text_oom = 1;
        return -1;
    }
    return 0;
}

/* dst = a copy of src with its own glyph array; -1 when out of memory. */
static int lay_copy(av_text_layout *dst, const av_text_layout *src) {
    *dst = *src;
    dst->g = malloc((src->n ? (size_t)src->n : 1) * sizeof *dst->g);
    if (!dst->g) {
        memset(dst, 0, sizeof *dst);
        return -1;
    }
    if (src->n) memcpy(dst->g, src->g, (size_t)src->n * sizeof *dst->g);
    return 0;
}

/* The cache slot of (utf8, size, bold): FNV-1a over the bytes, size and weight. */
static lay_entry *lay_slot(const char *utf8, float size, int bold) {
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)utf8; *p; p++) h = (h ^ *p) * 16777619u;
    h = (h ^ (uint32_t)lrintf(size * 64.0f)) * 16777619u;
    h = (h ^ (uint32_t)bold) * 16777619u;
    return &C.lays[h % LAY_CACHE];
}

int av_text_lay(const char *utf8, float size, int bold, av_text_layout *lay) {
    bold = bold ? 1 : 0;
    text_init();
    lay_entry *e = lay_slot(utf8, size, bold);
    if (text_oom) {
        memset(lay, 0, sizeof *lay);
        return -1;
    }
    if (e->text && e->size == size && e->bold == bold && strcmp(e->text, utf8) == 0) {
        if (lay_copy(lay, &e->lay) == 0) return 0;
        text_oom = 1;
        return -1;
    }
    if (lay_line(utf8, size, bold, lay) != 0) return -1;
    char *text = malloc(strlen(utf8) + 1);
    av_text_layout keep;
    if (!text || lay_copy(&keep, lay) != 0) {
        free(text);
        return 0; /* not cached; the layout itself is fine */
    }
    strcpy(text, utf8);
    if (!e->text) C.lay_used[C.n_lay_used++] = (int)(e - C.lays);
    free(e->text);
    free(e->lay.g);
    *e = (lay_entry){text, size, bold, keep};
    return 0;
}

void av_text_layout_free(av_text_layout *lay) {
    free(lay->g);
    memset(lay, 0, sizeof *lay);
}

/* The cache slot of a glyph at a sub-pixel offset (direct-mapped). */
static glyph_entry *glyph_slot(int slot, unsigned gid, FT_F26Dot6 size, int32_t fx, int32_t fy) {
    uint32_t h = 2166136261u;
    uint32_t key[5] = {(uint32_t)slot, gid, (uint32_t)size, (uint32_t)fx, (uint32_t)fy};
    for (int k = 0; k < 5; k++) h = (h ^ key[k]) * 16777619u;
    return &C.glyphs[h % GLYPH_CACHE];
}

/* Keep a copy of bitmap bm (its top-left corner left px right of and top px
 * above the origin) in e; 0, or -1 when out of memory (e unchanged). */
static int glyph_keep(glyph_entry *e, int slot, unsigned gid, FT_F26Dot6 size, int32_t fx, int32_t fy,
                      const FT_Bitmap *bm, int left, int top) {
    int rows = (int)bm->rows, cols = (int)bm->width;
    unsigned char *bits = malloc(rows && cols ? (size_t)rows * (size_t)cols : 1);
    if (!bits) return text_oom = 1, -1;
    for (int r = 0; r < rows; r++) memcpy(bits + (size_t)r * cols, bm->buffer + (ptrdiff_t)r * bm->pitch, (size_t)cols);
    if (!e->used) C.glyph_used[C.n_glyph_used++] = (int)(e - C.glyphs);
    free(e->bits);
    *e = (glyph_entry){1, slot, gid, size, fx, fy, bits, rows, cols, left, top};
    return 0;
}

/* The hinted outline of glyph gid of slot at size (s26 its 26.6 value), at
 * the origin: FT_Load_Glyph's with LOAD_FLAGS, kept (direct-mapped by slot,
 * glyph and size). NULL when FreeType fails, the glyph is not an outline
 * (a bitmap strike) or memory runs out. */
static FT_Glyph hinted_outline(int slot, unsigned gid, float size, FT_F26Dot6 s26) {
    uint32_t h = 2166136261u;
    uint32_t key[3] = {(uint32_t)slot, gid, (uint32_t)s26};
    for (int k = 0; k < 3; k++) h = (h ^ key[k]) * 16777619u;
    outline_entry *e = &C.outlines[h % OUTLINE_CACHE];
    if (e->used && e->slot == slot && e->gid == gid && e->size == s26) return e->glyph;
    FT_Face face = sized_face(slot, size);
    FT_Glyph glyph;
    if (FT_Load_Glyph(face, gid, LOAD_FLAGS) != 0 || face->glyph->format != FT_GLYPH_FORMAT_OUTLINE ||
        FT_Get_Glyph(face->glyph, &glyph) != 0)
        return NULL;
    if (e->used) FT_Done_Glyph(e->glyph);
    else C.outline_used[C.n_outline_used++] = (int)(e - C.outlines);
    *e = (outline_entry){1, slot, gid, s26, glyph};
    return glyph;
}

int av_text_glyph_render(const av_glyph *g, int32_t x, float size, av_glyph_bitmap *out) {
    prepare_join();
    return glyph_render_now(g, x, size, out);
}

/* av_text_glyph_render on the thread that holds the text layer. */
static int glyph_render_now(const av_glyph *g, int32_t x, float size, av_glyph_bitmap *out) {
    if (g->slot < 0 || g->slot >= T.n_faces) return -1;
    int32_t ix = x >= 0 ? x / 64 : -((63 - x) / 64), iy = g->y >= 0 ? g->y / 64 : -((63 - g->y) / 64);
    FT_F26Dot6 s26 = (FT_F26Dot6)lrintf(size * 64.0f);
    if (s26 < 64) s26 = 64; /* as sized_face */
    glyph_entry *e = glyph_slot(g->slot, g->gid, s26, x - ix * 64, g->y - iy * 64);
    if (e->used && e->slot == g->slot && e->gid == g->gid && e->size == s26 && e->fx == x - ix * 64 &&
        e->fy == g->y - iy * 64) {
        *out = (av_glyph_bitmap){e->bits, e->rows, e->cols, e->cols, (int)ix + e->left, (int)iy + e->top};
        return 0;
    }
    FT_Glyph hinted = hinted_outline(g->slot, g->gid, size, s26);
    if (hinted) { /* the kept outline, moved to the sub-pixel offset and rasterised (then moved back) */
        FT_Vector offset = {x - ix * 64, g->y - iy * 64};
        FT_Glyph bitmap = hinted;
        if (FT_Glyph_To_Bitmap(&bitmap, FT_RENDER_MODE_NORMAL, &offset, 0) != 0) return -1;
        FT_BitmapGlyph bg = (FT_BitmapGlyph)bitmap;
        if (bg->bitmap.pixel_mode != FT_PIXEL_MODE_GRAY ||
            glyph_keep(e, g->slot, g->gid, s26, offset.x, offset.y, &bg->bitmap, bg->left, bg->top) != 0) {
            FT_Done_Glyph(bitmap);
            return -1;
        }
        FT_Done_Glyph(bitmap);
        *out = (av_glyph_bitmap){e->bits, e->rows, e->cols, e->cols, (int)ix + e->left, (int)iy + e->top};
        return 0;
    }
    FT_Face face = sized_face(g->slot, size); /* a bitmap strike: at the nearest whole pixel */
    if (FT_Load_Glyph(face, g->gid, LOAD_FLAGS) != 0) return -1;
    FT_GlyphSlot gs = face->glyph;
    ix = (x + 32) >> 6, iy = (g->y + 32) >> 6;
    if (FT_Render_Glyph(gs, FT_RENDER_MODE_NORMAL) != 0) return -1;
    if (gs->bitmap.pixel_mode != FT_PIXEL_MODE_GRAY) return -1;
    *out = (av_glyph_bitmap){gs->bitmap.buffer, (int)gs->bitmap.rows, (int)gs->bitmap.width, gs->bitmap.pitch,
                             (int)ix + gs->bitmap_left, (int)iy + gs->bitmap_top};
    return 0;
}

void av_text_measure(const char *utf8, float size, int bold, av_text_metrics *m) {
    av_text_layout lay;
    memset(m, 0, sizeof *m);
    if (av_text_lay(utf8, size, bold, &lay) != 0) return;
    m->width = (float)lay.width / 64.0f;
    m->missing = lay.missing;
    m->chars = lay.chars;
    av_text_layout_free(&lay);
}

int av_text_shapes_directly(const char *utf8) {
    line ln;
    text_init();
    if (line_open(&ln, utf8) != 0) return 0;
    int direct = line_is_direct(&ln, line_rtl(&ln));
    line_free(&ln);
    return direct;
}

int av_text_is_rtl(const char *utf8) {
    line ln;
    if (line_open(&ln, utf8) != 0) return 0;
    int rtl = line_rtl(&ln);
    line_free(&ln);
    return rtl;
}

void av_text_index_label(char *out, size_t n, long k, const char *label) {
    if (av_text_is_rtl(label)) snprintf(out, n, "\xE2\x80\x8E%ld: \xE2\x81\xA8%s\xE2\x81\xA9", k, label); /* LRM, FSI, PDI */
    else snprintf(out, n, "%ld: %s", k, label);
}

int av_text_fonts(const char *utf8, int bold, const char **families, const char **files, int cap) {
    line ln;
    text_init();
    if (line_open(&ln, utf8) != 0) return 0;
    line_fonts(&ln, bold ? 1 : 0);
    int seen[MAX_FACES] = {0}, n = 0;
    for (size_t i = 0; i < ln.n; i++) {
        int f = ln.font[i];
        if (f < 0 || ln.missing[i] || av_utf8_is_ignorable(ln.cp[i]) || seen[f]) continue;
        seen[f] = 1;
        if (n < cap && families) families[n] = T.faces[f].face->family_name;
        if (n < cap && files) files[n] = T.face_file[f];
        n++;
    }
    line_free(&ln);
    return n;
}

int av_text_cluster_fonts(const char *utf8, int bold, av_text_span *spans, int cap) {
    line ln;
    text_init();
    if (line_open(&ln, utf8) != 0) return 0;
    line_fonts(&ln, bold ? 1 : 0);
    const unsigned char *s = (const unsigned char *)utf8, *end = s + strlen(utf8);
    int n = 0;
    for (size_t i = 0; *s;) { /* the walk of line_open, cluster by cluster */
        const unsigned char *c0 = s, *c_end = s + av_utf8_cluster_len((const char *)s, (size_t)(end - s));
        int held = ln.starts[i] == 2 && ln.font[i] >= 0;
        if (held && n < cap) spans[n] = (av_text_span){(size_t)(c0 - (const unsigned char *)utf8), (size_t)(c_end - c0),
                                                      T.faces[ln.font[i]].face->family_name};
        n += held;
        while (*s && s < c_end) av_utf8_next(&s), i++;
    }
    line_free(&ln);
    return n;
}

/* ---------------------------------------------------------------- emoji sequences drawn in parts */

static int is_regional(unsigned cp) {
    return cp >= 0x1F1E6 && cp <= 0x1F1FF;
}

static int is_skin_tone(unsigned cp) {
    return cp >= 0x1F3FB && cp <= 0x1F3FF; /* EMOJI MODIFIER FITZPATRICK TYPE-1-2 .. TYPE-6 */
}

/* Extended_Pictographic, approximately (UTS #51 / emoji-data.txt: the blocks
 * that hold it); enough to tell an emoji ZWJ sequence from a ZWJ between
 * letters (Devanagari, Arabic), which is not one. */
static int is_pictographic(unsigned cp) {
    return (cp >= 0x1F000 && cp <= 0x1FAFF) || (cp >= 0x2600 && cp <= 0x27BF) || (cp >= 0x2300 && cp <= 0x23FF) ||
           (cp >= 0x2B00 && cp <= 0x2BFF) || (cp >= 0x2190 && cp <= 0x21FF) || cp == 0x00A9 || cp == 0x00AE ||
           cp == 0x203C || cp == 0x2049 || cp == 0x2122 || cp == 0x2139 || cp == 0x3030 || cp == 0x303D;
}

/* How many parts the line's glyphs stand in, side by side: a glyph that
 * overlaps the part before it by half its width or more (a keycap centred on
 * its digit) joins it; an empty glyph (ZWJ, a variation selector) is none. */
static int drawn_parts(const char *utf8, int bold) {
    const float size = 32.0f;
    av_text_layout lay;
    if (av_text_lay(utf8, size, bold, &lay) != 0) return 0;
    int parts = 0;
    float pl = 0, pr = 0;
    for (int k = 0; k < lay.n; k++) {
        float l, r;
        av_glyph_bitmap bm;
        if (lay.g[k].slot < 0) {
            l = lay.g[k].x / 64.0f;
            r = l + av_text_box_advance(size) / 64.0f;
        } else if (av_text_glyph_render(&lay.g[k], lay.g[k].x, size, &bm) == 0 && bm.cols > 0 && bm.rows > 0) {
            l = (float)bm.left;
            r = l + bm.cols;
        } else {
            continue;
        }
        float over = (r < pr ? r : pr) - (l > pl ? l : pl), w = r - l, pw = pr - pl;
        if (parts > 0 && over >= 0.5f * (w < pw ? w : pw)) {
            if (l < pl) pl = l;
            if (r > pr) pr = r;
        } else {
            parts++;
            pl = l;
            pr = r;
        }
    }
    av_text_layout_free(&lay);
    return parts;
}

/* 1 if the len bytes at seq are laid out as the same glyphs as their
 * first base_len bytes alone (a tag sequence drawn as its base: the tags
 * get no glyph, and no font ligates the whole); 0 if not, or too long, or
 * out of memory. */
static int drawn_as_base(const char *seq, size_t len, size_t base_len, int bold) {
    char whole[256], base[256];
    if (len >= sizeof whole || base_len > len) return 0;
    memcpy(whole, seq, len);
    whole[len] = '\0';
    memcpy(base, seq, base_len);
    base[base_len] = '\0';
    av_text_layout a, b;
    if (av_text_lay(whole, 32.0f, bold, &a) != 0) return 0;
    if (av_text_lay(base, 32.0f, bold, &b) != 0) {
        av_text_layout_free(&a);
        return 0;
    }
    int same = a.n == b.n;
    for (int k = 0; same && k < a.n; k++) same = a.g[k].slot == b.g[k].slot && a.g[k].gid == b.g[k].gid;
    av_text_layout_free(&a);
    av_text_layout_free(&b);
    return same;
}

static int is_tag(unsigned cp) {
    return cp >= 0xE0020 && cp <= 0xE007E; /* TAG SPACE .. TAG TILDE; U+E007F CANCEL TAG ends the sequence */
}

int av_text_split_sequences(const char *utf8, int bold, av_text_seq *out, int cap) {
    const unsigned char *s = (const unsigned char *)utf8;
    size_t bytes = 0;
    int wide = 0; /* every sequence has a character from U+2000 up: a lead byte E2 or more */
    for (; s[bytes]; bytes++) wide |= s[bytes] >= 0xE2;
    if (!wide) return 0;
    unsigned *cp = malloc((bytes + 1) * sizeof *cp);
    size_t *at = malloc((bytes + 1) * sizeof *at);
    if (!cp || !at) {
        free(cp);
        free(at);
        return 0;
    }
    int n = 0;
    while (*s) {
        at[n] = (size_t)(s - (const unsigned char *)utf8);
        cp[n++] = av_utf8_next(&s);
    }
    at[n] = (size_t)(s - (const unsigned char *)utf8);
    cp[n] = 0;
    int found = 0;
    for (int i = 0; i < n;) {
        int j = i, kind = -1;
        if (is_regional(cp[i]) && is_regional(cp[i + 1])) {
            j = i + 2, kind = AV_SEQ_FLAG;
        } else if ((cp[i] >= '0' && cp[i] <= '9') || cp[i] == '#' || cp[i] == '*') {
            j = i + 1 + (cp[i + 1] == 0xFE0F);
            if (cp[j] == 0x20E3) j++, kind = AV_SEQ_KEYCAP;
        } else if (is_pictographic(cp[i]) && is_tag(cp[i + 1 + (cp[i + 1] == 0xFE0F)])) {
            int t = i + 1 + (cp[i + 1] == 0xFE0F); /* UTS #51 ED-14a: tag_base tag_spec tag_end */
            for (j = t; is_tag(cp[j]); j++) {}
            if (cp[j] == 0xE007F) {
                j++;
                kind = drawn_as_base(utf8 + at[i], at[j] - at[i], at[t] - at[i], bold) ? AV_SEQ_TAG : -1;
            }
        } else if (is_pictographic(cp[i])) {
            int tone = 0, zwj = 0;
            j = i + 1;
            for (;;) {
                while (cp[j] == 0xFE0F || is_skin_tone(cp[j])) tone |= is_skin_tone(cp[j]), j++;
                if (cp[j] != 0x200D || !is_pictographic(cp[j + 1])) break;
                zwj = 1, j += 2;
            }
            kind = zwj ? AV_SEQ_ZWJ : tone && !is_skin_tone(cp[i]) ? AV_SEQ_TONE : -1;
        }
        if (kind < 0) {
            i = j > i ? j : i + 1;
            continue;
        }
        char part[256];
        size_t len = at[j] - at[i];
        if (kind == AV_SEQ_TAG) { /* drawn as its base alone (drawn_as_base) */
            if (found < cap) out[found] = (av_text_seq){at[i], len, kind};
            found++;
        } else if (len < sizeof part) {
            memcpy(part, utf8 + at[i], len);
            part[len] = '\0';
            if (drawn_parts(part, bold) > 1) {
                if (found < cap) out[found] = (av_text_seq){at[i], len, kind};
                found++;
            }
        }
        i = j;
    }
    free(cp);
    free(at);
    return found;
}
