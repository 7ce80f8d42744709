/* textlayout.h - one line of label text as shaped glyphs in display order:
 * fonts per script run (fontconfig), the Unicode Bidirectional Algorithm
 * (FriBidi) and OpenType shaping (HarfBuzz), the last two through libraqm.
 *
 * How to use: av_text_lay(utf8, size, bold, &lay) gives the glyphs of the
 * line left to right with their pen positions; av_text_glyph_render turns
 * one glyph into a coverage bitmap; free the layout with
 * av_text_layout_free. av_text_measure gives the width alone (the same walk,
 * so a measured width is the drawn width: label thinning, centring and the
 * figure size all come from shaped advances). Strings are UTF-8; a byte that
 * does not start a valid sequence counts as U+FFFD. Units: px at 72 dpi for
 * the font size (1 pt = 1 px), positions in 1/64 px (FreeType's 26.6).
 *
 * What happens to a line, in order:
 *  1. Paragraph direction from the text: the first strong character decides
 *     (UAX #9 rules P2-P3, FriBidi); none gives left to right.
 *  2. Script runs: each code point's script (UAX #24, HarfBuzz's tables);
 *     Common and Inherited characters (spaces, digits, punctuation, marks)
 *     join the run before them (the first run, the one after them).
 *  3. Font per run: fontconfig's sorted list for "DejaVu Sans, Noto Sans CJK
 *     SC, sans-serif" (upright outline fonts only; weight bold or regular)
 *     gives the first font that has the run's first letter; the whole run
 *     uses it, so HarfBuzz sees the whole word. A character that font lacks
 *     (an emoji after a Latin word) takes the first font that has it; marks
 *     and joiners stay with the character before them. A character no font
 *     has is drawn as an outlined box and counted (the visible warning).
 *     Then each grapheme cluster (UAX #29) whose characters got different
 *     fonts, or that has an enclosing mark (U+20DD, the keycap U+20E3), is
 *     drawn from one font that has all of its characters, so that HarfBuzz
 *     attaches its marks to its base (as raqm and browsers shape a cluster
 *     in one font): the first of the list that draws it as one (no .notdef;
 *     an enclosing mark centred on its base: Noto Sans Symbols2's or
 *     Symbola's keycap, not Noto Sans Symbols', drawn beside the digit);
 *     else the first that has them all; else each keeps its own font.
 *  4. libraqm: bidi levels and reordering (UAX #9, FriBidi), then HarfBuzz
 *     shapes each (direction, script, font, language) run with the font's
 *     OpenType tables (conjuncts, reordered vowel signs, Arabic joining,
 *     mark positioning, kerning). The language is a default per script
 *     (Devanagari "hi", Arabic "ar", or "fa" / "ur" when the run has letters
 *     only Persian / Urdu use, ...); Latin, Cyrillic and Han get none.
 *     Default-ignorable characters (ZWJ, variation selectors) draw nothing.
 *     A line raqm would shape as one left-to-right run of one script (no
 *     right-to-left or explicit bidi character, no mark; most labels) goes
 *     to HarfBuzz directly with the same settings, through one HarfBuzz font
 *     kept per face: raqm 0.7 makes a new one per run, which reloads the
 *     face's OpenType tables (av_text_use_direct_shaping).
 * Advances use FreeType's light hinting, as the glyphs are drawn. A glyph
 * is hinted once per size and rasterised once per sub-pixel offset.
 *
 * Why libraqm rather than HarfBuzz + FriBidi by hand: raqm is exactly the
 * glue this needs (UAX #9 levels and the L2 reordering of runs, script
 * itemization with paired brackets, one HarfBuzz call per run, visual-order
 * output), the same route the Python imaging library takes; attnviz only
 * adds what raqm leaves to its caller, the font for each run.
 *
 * Fonts are loaded on first use, or in advance by av_text_prepare, and
 * released at exit (or by av_text_shutdown). fontconfig (about 10 ms of CPU
 * to start) is loaded only when a line needs it: a character in a run
 * without a language (Latin, digits, ...) that the bundled face of its
 * weight (av_text_use_fonts) has is drawn with that face, read by FreeType
 * alone, exactly as fontconfig's list would choose it (step 3), so figures
 * are the same byte for byte either way. Not thread-safe (one process-wide
 * font cache): call every function from one thread.
 *
 * Non-goals: line breaking, vertical text, colour (bitmap) emoji fonts,
 * user-chosen languages or fonts.
 */
#ifndef AV_TEXTLAYOUT_H
#define AV_TEXTLAYOUT_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int slot;     /* font number (internal); -1 = no font has the character: draw a box */
    unsigned gid; /* glyph index in that font */
    int32_t x, y; /* glyph origin from the line's left end, on the baseline, 1/64 px; y up */
} av_glyph;

typedef struct {
    av_glyph *g;   /* n glyphs, left to right (display order) */
    int n;
    int32_t width; /* advance width of the line, 1/64 px */
    int missing;   /* characters no font has (drawn as boxes) */
    int chars;     /* code points, default-ignorable ones excluded */
    int rtl;       /* paragraph direction (UAX #9 P2-P3): 1 = right to left */
} av_text_layout;

/* A glyph's coverage: rows x cols bytes 0..255, `pitch` bytes per row, top
 * row first; its top-left corner is `left` px right of and `top` px above
 * the line's origin (left end of the baseline). Valid until the next
 * av_text_* call. */
typedef struct {
    const unsigned char *bits;
    int rows, cols, pitch;
    int left, top;
} av_glyph_bitmap;

/* Lay out one line at `size` px. Returns 0, or -1 when out of memory, now or
 * earlier in the run (av_text_out_of_memory; then lay is empty and needs no
 * free). Without any usable font every character is a box, in logical order
 * (no bundled font and no fontconfig; not a font that failed to load for
 * lack of memory). */
int av_text_lay(const char *utf8, float size, int bold, av_text_layout *lay);
void av_text_layout_free(av_text_layout *lay);

/* Render glyph g of a layout made at `size` (anti-aliased, light hinting),
 * its origin x (1/64 px) right of the line's origin and g->y above it, at
 * that exact sub-pixel position, so shaped glyphs (joined Arabic letters,
 * stacked marks) meet as HarfBuzz placed them. Returns 0, or -1 for a box
 * glyph (slot -1) or when FreeType fails. */
int av_text_glyph_render(const av_glyph *g, int32_t x, float size, av_glyph_bitmap *out);

/* Width of the box drawn for a missing character at `size`, 1/64 px. */
int32_t av_text_box_advance(float size);

typedef struct {
    float width;   /* advance width of the line, px */
    int missing;   /* characters drawn as boxes (no font has them) */
    int chars;     /* characters (code points) in the line, ignorable ones excluded */
} av_text_metrics;

/* Measure a UTF-8 line at `size` px (all zero when out of memory). */
void av_text_measure(const char *utf8, float size, int bold, av_text_metrics *m);

/* 1 if the paragraph direction of utf8 is right to left (UAX #9 P2-P3: its
 * first strong character is R or AL), else 0. */
int av_text_is_rtl(const char *utf8);

/* "k: label" into out (n bytes), the index first as an axis reads it. The
 * colon keeps a token that is itself a number from reading as part of the
 * index ("18 14" read as one token; "18: 14" is token 18, "14"). A label
 * whose first strong character is right to left would make the whole line
 * right to left and put k at its right end ("أنا :0" beside "5: hello"), so
 * such a label is isolated (FSI ... PDI) after a left-to-right mark. */
void av_text_index_label(char *out, size_t n, long k, const char *label);

/* The fonts utf8's characters are drawn with, in order of first use (boxes
 * and ignorable characters excluded): up to cap family names (as FreeType
 * reads them, e.g. "Noto Sans Devanagari") into families[] and font files
 * into files[] (either may be NULL). The strings live until
 * av_text_shutdown. Returns how many fonts there are (may exceed cap). */
int av_text_fonts(const char *utf8, int bold, const char **families, const char **files, int cap);

/* A grapheme cluster drawn from a font of its own: bytes [start, start + len)
 * of the line, and that font's family name (as av_text_fonts gives it; lives
 * until av_text_shutdown, NULL if FreeType has none). */
typedef struct {
    size_t start, len;
    const char *family;
} av_text_span;
/* The extended grapheme clusters (UAX #29) of utf8 that av_text_lay draws
 * from one font of their own rather than from their characters' fonts (step
 * 3: a base and a mark that are in different fonts, "a⃝" or "1⃣" after DejaVu
 * Sans' letters, or a cluster with an enclosing mark, which the run's font
 * may draw beside its base), in logical order: up to cap of them into
 * spans[]. The SVG back end names that font for the cluster (a <tspan>), so
 * a viewer's per-character fallback (Pango's) draws it as the raster does.
 * Returns how many there are (may exceed cap); 0 when out of memory. */
int av_text_cluster_fonts(const char *utf8, int bold, av_text_span *spans, int cap);
/* Code points of utf8 that no font has (drawn as boxes), in order and with
 * repeats, into out[0 .. cap-1]. Returns how many there are (may exceed cap). */
int av_text_missing_codepoints(const char *utf8, int bold, unsigned *out, int cap);

/* An emoji sequence (UTS #51) that is one character to the reader: bytes
 * [start, start + len) of the line, and its kind. */
enum { AV_SEQ_FLAG, AV_SEQ_TONE, AV_SEQ_ZWJ, AV_SEQ_KEYCAP, AV_SEQ_TAG };
typedef struct {
    size_t start, len;
    int kind; /* AV_SEQ_FLAG: two regional indicators (U+1F1E6..1F1FF, 🇯🇵); AV_SEQ_TONE: a base and a skin
                 tone U+1F3FB..1F3FF (👍🏽); AV_SEQ_ZWJ: emoji joined by U+200D (👩‍💻); AV_SEQ_KEYCAP: 0-9, # or *,
                 U+FE0F and U+20E3 (1️⃣); AV_SEQ_TAG: an emoji, tags U+E0020..E007E and the cancel tag
                 U+E007F (🏴󠁧󠁢󠁥󠁮󠁧󠁿, the flag of England: U+1F3F4, "gbeng" in tags, U+E007F) */
} av_text_seq;
/* The emoji sequences of utf8 (UTS #51 section 1.4: flags, modifier, ZWJ,
 * keycap and tag sequences) that av_text_lay draws as more than one thing
 * side by side, because no font found has a glyph for the whole sequence
 * (colour emoji fonts are not used): a flag as its two boxed letters, 👍🏽
 * as a thumb and a colour swatch; and the tag sequences it draws as their
 * base alone (the tags are default-ignorable, drawn as nothing): 🏴󠁧󠁢󠁥󠁮󠁧󠁿 as
 * a plain black flag 🏴. A glyph overlapping the one before it by half its
 * width or more (a keycap mark centred on its digit) counts as the same
 * thing. Up to cap of them into out[], in logical order; returns how many
 * there are (may exceed cap), 0 when out of memory. */
int av_text_split_sequences(const char *utf8, int bold, av_text_seq *out, int cap);

/* 1 if some installed font has code point cp: the bundled regular face, or
 * a font fontconfig finds (0 if none has it, or fontconfig cannot start). */
int av_text_has_glyph(unsigned cp);

/* Font files searched before any system font, in this order (fontconfig's
 * application fonts, FcConfigAppFontAddFile; sorted in front of the font
 * list for runs without a language, as Latin's, while a run with a language
 * keeps fontconfig's ranking for it): attnviz passes its bundled DejaVu Sans regular and bold
 * (assets/fonts), so Latin labels look the same on every machine whatever is
 * installed. Characters these files lack (CJK, emoji) still come from the
 * system fonts. Copies the names; fonts already loaded are released so the
 * next text uses the new list, unless the list is the one already in use
 * (then nothing changes). Returns how many names were kept (at most 8).
 * A file fontconfig cannot read is skipped when the fonts load. */
int av_text_use_fonts(const char *const *files, int n);

/* Start loading the fonts now, on a thread of their own: FreeType, the
 * av_text_use_fonts files, and fontconfig's configuration, cache and sorted
 * family lists, about 10 ms of CPU that then overlap the caller's own work
 * (the model's forward pass) instead of delaying the first figure; then a
 * number and the start of the av_text_prepare_for text are laid out and
 * drawn once in each weight, which builds HarfBuzz's and FreeType's
 * per-face state (about 1 ms the first figure used to spend). Call it
 * after av_text_use_fonts, from the thread that will use the text
 * functions; each of them waits for the loading to finish before it touches
 * the fonts. Nothing happens when fontconfig is loaded or the fonts are
 * loading already, or when the thread cannot start (they load on first use,
 * as without this call). */
void av_text_prepare(void);

/* Wait until the loading av_text_prepare started has finished (nothing
 * when none runs). While it runs, fontconfig reads the environment on that
 * thread, so setenv/unsetenv elsewhere must wait for it
 * (nn/attention_blas.h's av_blas_set_env_wait); so must exit: HarfBuzz's
 * exit handler frees strings that thread may be reading (app/main.c
 * finish). The one function here that may be called from any thread. */
void av_text_prepare_wait(void);

/* av_text_prepare for labels made from utf8 (UTF-8, e.g. the sentence; NULL:
 * unknown, load everything): fontconfig is loaded on the thread only if
 * utf8 will need it, that is if it has a script run with a language
 * (Arabic, Devanagari, ...) or a character the bundled regular or bold face
 * lacks (Chinese, emoji), or no bundled fonts are registered. For an
 * all-Latin sentence the thread opens the bundled faces (well under 1 ms)
 * and leaves both cores to the model; a label that does need fontconfig
 * later loads it then, on the caller's thread. */
void av_text_prepare_for(const char *utf8);

/* 1 if memory ran out in the text layer since it started (or since
 * av_text_shutdown), after waiting for any av_text_prepare thread: FreeType
 * or a font file (bundled or fontconfig's) could not be mapped or loaded for lack of
 * memory (FreeType's failed allocations, also those it reports as a bad
 * file), or a line's layout or glyph bitmap could not be allocated; else 0.
 * Then fontconfig is never started (it crashes when an allocation fails
 * while it loads), every av_text_lay fails and av_text_measure gives zeros,
 * so a figure laid out since is incomplete: the back ends refuse to write it
 * (raster.h av_raster_render, svgout.h av_svg_write: "out of memory"). A
 * font that is not bundled, a character no font has or a file FreeType
 * cannot read with memory to spare are not this: they fall back to
 * fontconfig, or a box, as before. */
int av_text_out_of_memory(void);

/* 1 if fontconfig is loaded (after waiting for any av_text_prepare thread),
 * else 0. For tests: an ASCII label in the bundled fonts leaves it 0. */
int av_text_fontconfig_loaded(void);

/* lang "ja": Han and kana runs are set as Japanese, in the font fontconfig
 * ranks first for Japanese (Noto Sans CJK JP) with its Japanese forms (the
 * OpenType language JAN: 直 and 骨 differ from the Chinese ones); NULL (the
 * default) or anything else: with the family list's own CJK font, Noto Sans
 * CJK SC, in Chinese forms. The caller decides for the whole text (a
 * sentence with kana is Japanese, figures.h av_figures_cjk_language), so the
 * title and each one-character label agree. Fonts already loaded are
 * released when this changes. No errors. */
void av_text_use_cjk_language(const char *lang);

/* The language av_text_use_cjk_language set: "ja" or NULL. */
const char *av_text_cjk_language(void);

/* on = 0: every font comes from fontconfig's lists, never straight from the
 * bundled faces; on = 1 (the default): the bundled faces first, as above.
 * Fonts already loaded are released when this changes. For tests that
 * compare the two ways byte for byte. */
void av_text_use_fast_path(int on);

/* on = 1 (the default): a line that is left to right with at most one
 * script besides Common and no Inherited character (marks) is shaped by
 * HarfBuzz straight, with one HarfBuzz font kept per face, giving the
 * glyphs and positions raqm gives (about 10 times faster: raqm 0.7 builds a
 * new HarfBuzz font, and so reloads the face's OpenType tables, for every
 * run it shapes). on = 0: every line through raqm. Cached layouts and loaded
 * fonts are released. For tests that compare the two ways glyph for glyph. */
void av_text_use_direct_shaping(int on);

/* 1 if av_text_lay shapes utf8 (one line, UTF-8) that way, else 0 (raqm). */
int av_text_shapes_directly(const char *utf8);

/* Release fonts, fontconfig state and the av_text_use_fonts list (also
 * registered with atexit on first use, so leak checkers stay quiet). Safe to
 * call more than once. */
void av_text_shutdown(void);

#endif
