/* assets.h - where attnviz finds its data folder (assets/ in the source
 * tree, PREFIX/share/attnviz once installed):
 *
 *   fonts/DejaVuSans.ttf, fonts/DejaVuSans-Bold.ttf, fonts/LICENSE
 *                       the bundled label fonts, drawn before system fonts
 *   sentences.txt       the example sentences (tests, make figures, demo)
 *   weights/identity-d8 example --weights folder: W_Q = W_K = W_V = W_O = I (8 x 8)
 *
 * Search order: the compiled-in AV_DATADIR (the Makefile sets it to
 * $(PREFIX)/share/attnviz), then, relative to the running binary's folder,
 * ../share/attnviz (an installation staged with DESTDIR or moved as a
 * whole), then the source tree: assets/ (./attnviz) or ../../assets
 * (build/san/attnviz). A folder counts when it holds fonts/DejaVuSans.ttf.
 */
#ifndef AV_ASSETS_H
#define AV_ASSETS_H

/* The data folder, or NULL when neither place has one. The string is
 * static (computed once). */
const char *av_assets_dir(void);

/* The path of the documentation file name ("conventions.md") that goes with the data folder found:
 * PREFIX/share/doc/attnviz/NAME of an installation (make install puts it there), or docs/NAME of the source
 * tree, its ".." resolved; NULL when there is none or it cannot be read. "See docs/conventions.md" in --help
 * named a file an installed attnviz does not have (the last note's list). The string is static. */
const char *av_assets_doc(const char *name);

/* The path of the man page attnviz(1) that goes with the data folder found: PREFIX/share/man/man1/attnviz.1
 * of an installation (make install's MANDIR), or docs/attnviz.1 of the source tree, its ".." resolved; NULL
 * when there is none or it cannot be read. --help said only "See attnviz(1)", and from the source tree (the
 * README's ./attnviz) `man attnviz` finds no page; `man PATH` reads this one wherever it is. The string is
 * static (its own buffer, not av_assets_doc's). */
const char *av_assets_man(void);

/* The compiled-in data folder searched first (AV_DATADIR, PREFIX/share/attnviz), found or not: for messages. */
const char *av_assets_datadir(void);

/* Hand the bundled fonts to the text renderer (textlayout.h av_text_use_fonts),
 * so Latin labels are drawn with the same DejaVu Sans on every machine.
 * Returns 0, or -1 when no data folder was found (system fonts are then
 * used, as before). */
int av_assets_use_fonts(void);

#endif
