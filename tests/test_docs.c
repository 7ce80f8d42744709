/* test_docs.c - the command outputs that README.md and the tutorials show are
 * what the tool prints now.
 *
 * scripts/excerpts.sh fills each block written as
 *     <!-- run: COMMAND -->
 *     ```text
 *     ...
 *     ```
 *     <!-- end -->
 * (or <!-- run-md: COMMAND --> ... <!-- end -->, Markdown without the fence)
 * with the output of COMMAND, run by sh from the repository root with
 * ./attnviz first on PATH, NO_COLOR=1 and COLUMNS=80. Nothing ran it again
 * when the trace changed, so a page could show a trace the tool no longer
 * prints. Here every block's command runs again, as excerpts.sh runs it, and
 * its output must equal the block's body line for line.
 *
 * The commands run in a temporary folder, not the source tree: some write
 * figures (-o docs/figures/compare8), which land there. The folder's
 * docs/figures/train is a link to the tree's, which the training chapter's
 * commands only read (cat, sed, grep of logs that `make train-figures` made
 * on its machine: training is not run here). attnviz is a shell function
 * that runs $ATTNVIZ_BIN.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

/* printf into a new string (caller frees). */
static char *str_printf(const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    if (!s) abort();
    vsnprintf(s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return s;
}

/* The output of `{ cmd; } 2>&1` run by sh in dir, with attnviz a shell function that runs $ATTNVIZ_BIN (as
 * excerpts.sh puts ./attnviz first on PATH; a function, since a folder on PATH cannot hold a ':' of TMPDIR), as
 * excerpts.sh's awk reads it: line by line, each line ended by a newline (so a last line without one gets one).
 * Caller frees. */
static char *run_block(const char *dir, const char *cmd) {
    setenv("AV_DOC_DIR", dir, 1);
    setenv("AV_DOC_CMD", cmd, 1);
    setenv("AV_DOC_BIN", tu_bin(), 1);
    FILE *p = popen("cd \"$AV_DOC_DIR\" && NO_COLOR=1 COLUMNS=80 "
                    "sh -c 'attnviz() { \"$AV_DOC_BIN\" \"$@\"; }; { eval \"$AV_DOC_CMD\"; } 2>&1'",
                    "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    for (size_t k; (k = fread(out + n, 1, cap - n - 2, p)) > 0;) {
        n += k;
        if (cap - n < 4096) out = realloc(out, cap *= 2);
    }
    pclose(p);
    if (n > 0 && out[n - 1] != '\n') out[n++] = '\n';
    out[n] = 0;
    return out;
}

/* Run every block of the Markdown file at path (named rel in messages) and count them in *blocks; NULL when
 * each block's body is its command's output, else what is wrong, with how to mend it (caller frees). */
static char *doc_problem(const tu_fixture *f, const char *path, const char *rel, int *blocks) {
    char *msg = NULL;
    size_t len = 0;
    char *doc = tu_slurp_file(path, &len);
    *blocks = 0;
    if (!doc) return strdup("the file is missing");
    int line_no = 0;
    for (char *line = doc; *line && !msg;) {
        char *eol = strchr(line, '\n');
        size_t ll = eol ? (size_t)(eol - line) : strlen(line);
        line_no++;
        int md = strncmp(line, "<!-- run-md: ", 13) == 0;
        if ((md || strncmp(line, "<!-- run: ", 10) == 0) && ll > 4 && strncmp(line + ll - 4, " -->", 4) == 0) {
            size_t head = md ? 13 : 10;
            char *cmd = strndup(line + head, ll - head - 4);
            int start = line_no;
            /* the body: the lines up to <!-- end -->, less the ```text fence of a run block */
            char *body = eol ? eol + 1 : line + ll;
            char *end = strstr(body, "\n<!-- end -->");
            if (!end && strncmp(body, "<!-- end -->", 12) == 0) end = body - 1; /* an empty run-md body */
            if (!end) {
                msg = str_printf("%s:%d: the block of \"%s\" has no <!-- end --> line", rel, start, cmd);
                free(cmd);
                break;
            }
            char *want = strndup(body, (size_t)(end + 1 - body));
            if (!md) {
                if (strncmp(want, "```text\n", 8) != 0 || strlen(want) < 12 ||
                    strcmp(want + strlen(want) - 4, "```\n") != 0)
                    msg = str_printf("%s:%d: the block of \"%s\" is not a ```text fence", rel, start, cmd);
                if (msg) {
                    free(want), free(cmd);
                    break;
                }
                memmove(want, want + 8, strlen(want + 8) + 1);
                want[strlen(want) - 4] = 0;
            }
            char *got = run_block(f->dir, cmd);
            if (strcmp(got, want) != 0) {
                size_t k = 0;
                int l = 1;
                while (got[k] && got[k] == want[k]) l += got[k++] == '\n';
                const char *g = got + k, *w = want + k;
                while (g > got && g[-1] != '\n') g--;
                while (w > want && w[-1] != '\n') w--;
                msg = str_printf("%s:%d: the output of \"%s\" is not the block's (its line %d):\n  block: %.*s\n  now:   "
                         "%.*s\nrun `sh scripts/excerpts.sh %s`, read what changed, and commit it",
                             rel, start, cmd, l, (int)strcspn(w, "\n"), w, (int)strcspn(g, "\n"), g, rel);
            }
            free(got);
            free(want);
            free(cmd);
            ++*blocks;
        }
        if (!eol) break;
        line = eol + 1;
    }
    free(doc);
    return msg;
}

/* Every block of the tree's Markdown file rel is its command's output, and there are n of them. */
static void check_doc(const tu_fixture *f, const char *rel, int n) {
    int blocks = 0;
    char *msg = doc_problem(f, src_path(rel), rel, &blocks);
    if (msg) fail_msg("%s", msg);
    if (blocks != n) fail_msg("%s: %d run blocks, this test knows %d", rel, blocks, n);
}

static int setup(void **state) {
    tu_setup_tmpdir(state);
    tu_fixture *f = *state;
    char cmd[8600];
    snprintf(cmd, sizeof cmd, "mkdir -p %s && ln -s %s %s", tu_sh_word(tu_in(f, "docs/figures")),
             tu_sh_word(src_path("docs/figures/train")), tu_sh_word(tu_in(f, "docs/figures/train")));
    return system(cmd) == 0 ? 0 : -1;
}

static void readme_blocks_are_what_attnviz_prints(void **state) {
    check_doc(*state, "README.md", 2);
}

static void tutorial_blocks_are_what_attnviz_prints(void **state) {
    check_doc(*state, "docs/tutorial.md", 9);
    check_doc(*state, "docs/tutorial.zh.md", 9);
}

/* The training chapter's blocks quote the logs and tables `make train-figures` wrote: each must be the
 * file's text, as excerpts.sh put it there. */
static void train_chapter_blocks_are_its_logs(void **state) {
    check_doc(*state, "docs/train.md", 20);
    check_doc(*state, "docs/train.zh.md", 20);
}

/* The download commands the docs give a new user are typed as they are: huggingface_hub 1.0 (October 2025)
 * removed the huggingface-cli command for hf, whose `hf download REPO_ID [FILENAMES]... --local-dir DIR` takes the
 * same arguments (huggingface_hub's src/huggingface_hub/cli/download.py: "hf download gpt2 config.json"), and
 * `pip install -U huggingface_hub` installs 1.x, so the README's and the chapters' huggingface-cli lines failed
 * as pasted (a new user's pass). */
static void download_commands_use_the_hf_command(void **state) {
    (void)state;
    const char *docs[] = {"README.md", "docs/reading-heads.md", "docs/reading-heads.zh.md"};
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
        char *doc = tu_slurp_file(src_path(docs[i]), NULL);
        assert_non_null(doc);
        if (strstr(doc, "huggingface-cli download")) fail_msg("%s still says huggingface-cli download", docs[i]);
        if (!strstr(doc, "\nhf download gpt2 config.json model.safetensors vocab.json merges.txt --local-dir gpt2\n"))
            fail_msg("%s lost its hf download line for GPT-2", docs[i]);
        free(doc);
    }
}

/* A block whose output changed is found, and named: a copy of README.md with one line of a block changed. */
static void a_stale_block_fails(void **state) {
    tu_fixture *f = *state;
    size_t len = 0;
    char *doc = tu_slurp_file(src_path("README.md"), &len);
    assert_non_null(doc);
    char *p = strstr(doc, "  T = 4");
    assert_non_null(p);
    p[6] = '5'; /* "T = 5" */
    char path[4300];
    snprintf(path, sizeof path, "%s/stale.md", f->dir);
    FILE *o = fopen(path, "w");
    assert_non_null(o);
    fwrite(doc, 1, len, o);
    fclose(o);
    free(doc);
    int blocks = 0;
    char *msg = doc_problem(f, path, "stale.md", &blocks);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "stale.md:"));
    assert_non_null(strstr(msg, "block:   T = 5"));
    assert_non_null(strstr(msg, "now:     T = 4"));
    assert_non_null(strstr(msg, "sh scripts/excerpts.sh stale.md"));
    free(msg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(readme_blocks_are_what_attnviz_prints, setup, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(tutorial_blocks_are_what_attnviz_prints, setup, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(train_chapter_blocks_are_its_logs, setup, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(a_stale_block_fails, setup, tu_teardown_tmpdir),
        cmocka_unit_test(download_commands_use_the_hf_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
