/* gpt2run.c - the --model path (see gpt2run.h): options, loading, the
 * forward pass, layer L's view, the trace, the top-5 next tokens, --dump. */
#include "app/gpt2run.h"
#include "app/cli.h"
#include "app/train.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/compare.h"
#include "app/figures.h"
#include "app/page.h"
#include "app/teach.h"
#include "app/trace.h"
#include "app/term.h"
#include "base/utf8.h"
#include "io/fileio.h"
#include "io/jsonval.h"
#include "io/npy.h"
#include "io/safetensors.h"
#include "nn/attention_blas.h"
#include "nn/gpt2_decode.h"
#include "nn/tasks.h"

/* ---------------------------------------------------------------------------- options */

/* Which family the folder's config.json names, for messages: "a Llama
 * model" (model_type llama), "a Qwen2 model" (qwen2), "a model trained by
 * attnviz --train" (an "attnviz" object), else "a GPT-2 model"; "the model"
 * when config.json cannot be read or names another model_type (its own
 * error comes later). */
static const char *model_family(const char *dir) {
    char path[4200], *json = NULL;
    size_t len = 0;
    av_err ignored;
    av_path_join(path, sizeof path, dir, "config.json");
    if (av_read_regular_file(path, 1u << 20, &json, &len, &ignored)) return "the model";
    cJSON *root = cJSON_ParseWithLength(json, len);
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    const char *type = cJSON_IsString(mt) && mt->valuestring ? mt->valuestring : "";
    const char *family = !root ? "the model" : !strcmp(type, "llama") ? "a Llama model" : !strcmp(type, "qwen2") ? "a Qwen2 model"
                       : (mt && strcmp(type, "gpt2") && strcmp(type, AV_GPT2_ATTNVIZ_TYPE)) ? "the model" /* unsupported: its own error comes later */
                       : cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "attnviz")) ? "a model trained by attnviz --train"
                       : "a GPT-2 model";
    cJSON_Delete(root);
    free(json);
    return family;
}

static av_status check_options(const av_options *o, av_err *err) {
    const char *name, *fmt = av_model_refused(o, &name);
    if (fmt) {
        char why[400];
        snprintf(why, sizeof why, fmt, model_family(o->model_dir));
        return av_fail(err, AV_EUSAGE, "--%s cannot be used with --model: %s", name, why);
    }
    if (o->kernel == AV_KERNEL_FLASH + 1)
        return av_fail(err, AV_EUSAGE, "--kernel flash cannot be used with --model: the model keeps every layer's (H, T, T) "
                       "attention weights; allowed: auto (blas), reference, blas");
    if (o->compare && o->compare != AV_CMP_SCALE)
        return av_fail(err, AV_EUSAGE,
                       "--compare %s cannot be used with --model; allowed: scale (layer L's attention without ÷√d_k)",
                       av_compare_name(o->compare));
    unsigned single = AV_FIG_MEAN | AV_FIG_SCORES | AV_FIG_MASK; /* pe: RoPE models draw their angles */
    if (!o->figures_all && (o->figures & single))
        return av_fail(err, AV_EUSAGE,
                       "--figures %s: with --model the figures are model (layers × heads), grid (layer L's heads) and "
                       "heads (one file per head of layer L), pe for a RoPE model; mean, scores and mask are for the single layer",
                       (o->figures & AV_FIG_MEAN) ? "mean" : (o->figures & AV_FIG_SCORES) ? "scores" : "mask");
    return AV_OK;
}

/* ---------------------------------------------------------------------------- loading */

#define MODEL_FOLDER "a GPT-2 model folder holds config.json, model.safetensors, vocab.json and merges.txt (or " \
                     "tokenizer.json instead of both); " \
                     "a Llama/Qwen2 folder holds config.json, model.safetensors (or its index and shards) and tokenizer.json"

/* 1 if a and b are the same once their digits are left out ("seed1" and "seed2", "case20" and "case0"):
 * numbered folders are told apart on purpose, so one is no typo of the other. */
static int differ_in_digits_only(const char *a, const char *b) {
    for (;;) {
        while (*a >= '0' && *a <= '9') a++;
        while (*b >= '0' && *b <= '9') b++;
        if (*a != *b) return 0;
        if (!*a) return 1;
        a++, b++;
    }
}

/* " (did you mean --model runs/reverse, which holds a model?)" into hint (n bytes) when the missing
 * folder dir has a sibling that holds config.json and whose name is within 2 edits (av_edit_distance)
 * of dir's last part, and at most a third of it: "--model runs/revers" said only "no such folder" (a
 * new user's report). Not a sibling that differs in digits only (runs/seed2 for runs/seed1). The nearest
 * such sibling, the first in name order on a tie; else "". */
static void near_model_folder(char *hint, size_t n, const char *dir) {
    char parent[4096], last[256], found[256] = "";
    hint[0] = 0;
    av_path_split(parent, sizeof parent, last, sizeof last, dir);
    DIR *d = last[0] ? opendir(parent[0] ? parent : ".") : NULL;
    if (!d) return;
    int best = 3 > (int)strlen(last) / 3 ? (int)strlen(last) / 3 : 2;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof found) continue;
        if (differ_in_digits_only(last, e->d_name)) continue;
        int dist = av_edit_distance(last, e->d_name);
        if (dist > best || (dist == best && found[0] && strcmp(e->d_name, found) > 0)) continue;
        char sub[4400], cfg[4400];
        struct stat sb;
        av_path_join(sub, sizeof sub, parent, e->d_name);
        av_path_join(cfg, sizeof cfg, sub, "config.json");
        if (stat(cfg, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
        best = dist;
        snprintf(found, sizeof found, "%s", e->d_name);
    }
    closedir(d);
    if (!found[0]) return;
    char near[4400];
    av_path_join(near, sizeof near, parent, found);
    char word[4400]; /* one shell word to type: a CR in the name as $'\r', which pastes back (av_shell_word) */
    av_shell_word(word, sizeof word, near);
    snprintf(hint, n, " (did you mean --model %s, which holds a model?)", word);
}

static int cmp_names(const void *a, const void *b) {
    return strcmp((const char *)a, (const char *)b);
}

/* The folders directly inside dir that hold a config.json file (not hidden ones): their count, and into
 * names the first up to 4 in name order (of the first 64 read; a folder of more is sorted no further).
 * "runs", the parent of `attnviz --train reverse -o runs/reverse`, is what a new user gives --model after
 * the README's training commands. */
static int models_inside(char names[4][256], const char *dir) {
    char all[64][256];
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof all[0]) continue;
        char sub[4400], cfg[4700];
        struct stat sb;
        av_path_join(sub, sizeof sub, dir, e->d_name);
        av_path_join(cfg, sizeof cfg, sub, "config.json");
        if (stat(cfg, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
        if (n < 64) snprintf(all[n], sizeof all[0], "%s", e->d_name);
        n++;
    }
    if (d) closedir(d);
    qsort(all, (size_t)(n < 64 ? n : 64), sizeof all[0], cmp_names);
    for (int i = 0; i < n && i < 4; i++) memcpy(names[i], all[i], sizeof names[i]); /* each NUL-terminated */
    return n;
}

/* A Hugging Face cache folder (~/.cache/huggingface/hub/models--gpt2, what from_pretrained leaves) holds its
 * files in snapshots/<commit>/, refs/main naming the commit: into snap (n bytes) the snapshot with config.json,
 * refs/main's first, else the first in name order, and 1; -1 when dir has snapshots/ but none of them holds
 * config.json; 0 when dir has no snapshots/ folder. */
static int hf_cache_snapshot(char *snap, size_t n, const char *dir) {
    char path[4400], ref[128] = "", cfg[4600];
    struct stat sb;
    av_path_join(path, sizeof path, dir, "snapshots");
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) return 0;
    av_path_join(cfg, sizeof cfg, dir, "refs/main");
    FILE *f = fopen(cfg, "r");
    if (f) {
        if (!fgets(ref, sizeof ref, f)) ref[0] = 0;
        fclose(f);
        ref[strcspn(ref, "\r\n \t/")] = 0;
    }
    char best[256] = "";
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof best) continue;
        char sub[4600];
        av_path_join(sub, sizeof sub, path, e->d_name);
        av_path_join(cfg, sizeof cfg, sub, "config.json");
        if (stat(cfg, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
        if (!strcmp(e->d_name, ref) || !best[0] || (strcmp(best, ref) && strcmp(e->d_name, best) < 0))
            snprintf(best, sizeof best, "%s", e->d_name);
    }
    if (d) closedir(d);
    if (!best[0]) return -1;
    av_path_join(snap, n, path, best);
    return 1;
}

/* path as one shell word (av_shell_word) for the command a message gives to run, into buf (n >= 404 bytes): whole
 * when its word fits 400 bytes, else cut to fit 397 at a whole character or escape, its closing quote kept, and
 * "..." after it, as av_shown_word marks a cut: a word cut at 400 bytes with no sign of it gave a command to paste
 * that names another folder ("attnviz --model /tmp/…/深深/snaps TEXT" for .../snapshots/0123abc). Returns buf. */
static const char *command_word(char *buf, size_t n, const char *path) {
    size_t m = 16 * strlen(path) + 16; /* room for the whole word: a byte is at most $'\ooo' and its quotes */
    char *full = malloc(m);
    if (full) av_shell_word(full, m, path);
    int cut = full && strlen(full) > 400 && n >= 404;
    free(full);
    av_shell_word(buf, cut ? 398 : n < 401 ? n : 401, path);
    if (cut) strcat(buf, "...");
    return buf;
}

/* dir/SUB as one shell word (command_word), for a command to run, into buf (n >= 404 bytes), SUB the first of
 * the comma-separated names in list ("scale" of "scale, no-scale"); returns buf. */
static const char *shell_subdir(char *buf, size_t n, const char *dir, const char *list) {
    char sub[64], path[4200];
    snprintf(sub, sizeof sub, "%.*s", (int)strcspn(list, ","), list);
    av_path_join(path, sizeof path, dir, sub);
    return command_word(buf, n, path); /* at most 400 bytes of it, as the cache folder's command */
}

/* The run's input as a command to paste gives it, into buf (n >= 540 bytes): the sentence as one shell word
 * (av_shell_word), after "-- " when it starts with '-' ("-1 2 >" is no option), or "-f FILE"; SENTENCE for -f -
 * (the pasted command would wait for typing) and for a sentence over 120 bytes or 520 quoted (named, not repeated),
 * FILE for a path over 520 bytes quoted; none when
 * the run has no input. A command with a placeholder where the input was typed ran the model on "TEXT" when
 * pasted (a new user's pass). Returns buf. No errors. */
static const char *input_words(char *buf, size_t n, const av_options *o, const char *none) {
    const char *s = o->sentence;
    /* quoted whole, then kept only when it fits 520 bytes: a sentence of 110 bytes with control characters
     * ('a\x01' 55 times, each \x01 written $'\001') was cut inside word[520] and pasted back as 103 bytes, with no
     * mark (a review of the change); the worst quoting writes some 10 bytes for one */
    char word[2048];
    int fits = 1;
    if (o->file || s) {
        av_shell_word(word, sizeof word, o->file ? o->file : s);
        fits = strlen(word) < 520;
    }
    if (!s && !o->file) snprintf(buf, n, "%s", none);
    else if (o->file && !strcmp(o->file, "-")) snprintf(buf, n, "SENTENCE");
    else if (o->file) snprintf(buf, n, "-f %s", fits ? word : "FILE");
    else if (strlen(s) > 120 || !fits) snprintf(buf, n, "SENTENCE");
    else snprintf(buf, n, "%s%s", s[0] == '-' ? "-- " : "", word);
    return buf;
}

/* A usage error (exit 2) if the --model folder or its file `name` does not
 * exist: a missing file is bad input like a malformed one, and the message
 * says what a model folder holds; a command it gives to run takes input, the
 * run's input as command words (input_words), or NULL for TEXT. */
/* DIR/name, a file of the folder, as messages name it: the whole path as one shell word (av_shown_word), so
 * "'/tmp/a b/m/config.json'", not "'/tmp/a b/m'/config.json" (the folder quoted, the name outside: a path no shell
 * reads back). Into buf (n >= 8 bytes; a longer path is cut as av_shown_word cuts it). Returns buf. No errors. */
static const char *file_word(char *buf, size_t n, const char *dir, const char *name) {
    char path[4200];
    av_path_join(path, sizeof path, dir, name);
    return av_shown_word(buf, n, path);
}

static av_status check_present(const char *dir, const char *name, const char *input, av_err *err) {
    struct stat sb;
    char named[4200]; /* dir in messages as a user's path is shown (av_utf8_shown_name): -m $'x\u202eq' turned the
                       * rest of "--model x<RLO>q: no such folder ..." around; as one shell word (av_shown_word), as
                       * the command after it gives it: "--model /tmp/a b/m is a file; ...: --model '/tmp/a b/m'"
                       * read as two words */
    av_shown_word(named, sizeof named, dir);
    int there = stat(dir, &sb) == 0, why = there ? 0 : errno; /* one stat answers the three questions below */
    if (!there && (why == ENOENT || why == ELOOP) && av_dangling_link(dir, err)) {
        av_err inner = *err; /* -m l2, l2 a link to a missing folder, said "no such folder", and l2 is there */
        return av_fail(err, AV_EUSAGE, "--model %s", inner.msg);
    }
    if (!there && why == ENOENT) {
        char near[4500]; /* the folder (4400) and the words around it */
        near_model_folder(near, sizeof near, dir);
        if (near[0]) /* a typo, most likely: the hint alone, so that the message fits av_err */
            return av_fail(err, AV_EUSAGE, "--model %s: no such folder%s", named, near);
        return av_fail(err, AV_EUSAGE, "--model %s: no such folder; %s (attnviz never downloads: fetch one once, "
                       "e.g. hf download gpt2 config.json model.safetensors vocab.json merges.txt "
                       "--local-dir gpt2, or train a toy one: attnviz --train reverse -o DIR)", named, MODEL_FOLDER);
    }
    if (there && !S_ISDIR(sb.st_mode)) {
        /* --model gpt2/model.safetensors (the weights file, as other tools take it) said "is not a folder; a GPT-2
         * model folder holds ..." without the folder to give (a user's report): a file of a model folder (its
         * folder holds config.json, or the file is named as a model's files are) is answered with its folder */
        char parent[4096], last[256], cfg[4400], word[300];
        av_path_split(parent, sizeof parent, last, sizeof last, dir);
        av_path_join(cfg, sizeof cfg, parent[0] ? parent : ".", "config.json");
        size_t n = strlen(last);
        int own = !strcmp(last, "merges.txt") || (n > 5 && !strcmp(last + n - 5, ".json")) ||
                  (n > 4 && !strcmp(last + n - 4, ".bin")) || (n > 12 && !strcmp(last + n - 12, ".safetensors"));
        if (own || (stat(cfg, &sb) == 0 && S_ISREG(sb.st_mode))) {
            av_shell_word(word, sizeof word, parent[0] ? parent : ".");
            return av_fail(err, AV_EUSAGE, "--model %s is a file; --model takes the folder that holds the model's "
                           "files (config.json, the weights, the tokenizer), not one of them: --model %s", named, word);
        }
        return av_fail(err, AV_EUSAGE, "--model %s is not a folder; %s", named, MODEL_FOLDER);
    }
    char path[4200];
    av_path_join(path, sizeof path, dir, name);
    if (stat(path, &sb) == 0 || errno != ENOENT) return AV_OK;
    av_status st = av_dangling_link(path, err); /* "has no config.json" hid the link */
    if (st) return st;
    /* `attnviz --train T --compare WHAT -o DIR` writes a model into each variant's folder, DIR/scale, DIR/no-scale...:
     * point there rather than only at what a model folder holds */
    char found[160] = "", sub[4200];
    size_t used = 0;
    const char *v;
    for (int c = AV_TRAIN_CMP_SCALE; c <= AV_TRAIN_CMP_POSITIONS && !strcmp(name, "config.json"); c++)
        for (int i = 0; (v = av_train_variant_dir(c, i)); i++) {
            av_path_join(sub, sizeof sub, dir, v);
            av_path_join(path, sizeof path, sub, "config.json");
            if (stat(path, &sb) == 0 && used < sizeof found)
                used += (size_t)snprintf(found + used, sizeof found - used, "%s%s", used ? ", " : "", v);
        }
    if (found[0])
        return av_fail(err, AV_EUSAGE, "--model %s has no config.json: it is a --train --compare folder, with a model "
                       "in each of its folders %s; run one of them: attnviz --model %s %s", AV_SHOWN_WORD(dir, 201),
                       found, shell_subdir(sub, sizeof sub, dir, found), input ? input : "TEXT");
    /* the Hugging Face cache folder of a model (models--gpt2, as from_pretrained leaves it): "has no config.json;
     * a GPT-2 model folder holds ..." did not say the files are one level down, in snapshots/<commit>/ */
    char snap[4400];
    int cached = strcmp(name, "config.json") ? 0 : hf_cache_snapshot(snap, sizeof snap, dir);
    if (cached > 0) {
        char word[4600];
        return av_fail(err, AV_EUSAGE, "--model %s has no config.json: it is a Hugging Face cache folder, which "
                       "keeps the model's files in snapshots/<commit>/; run that folder: attnviz --model %s %s",
                       AV_SHOWN_WORD(dir, 201), command_word(word, sizeof word, snap), input ? input : "TEXT");
    }
    if (cached < 0)
        return av_fail(err, AV_EUSAGE, "--model %s has no config.json: it is a Hugging Face cache folder, and none "
                       "of its snapshots/ folders holds config.json (a download that did not finish?); %s", AV_SHOWN_WORD(dir, 201),
                       MODEL_FOLDER);
    /* a folder an attnviz --train is writing now (made empty before its first step): "has no config.json; a
     * GPT-2 model folder holds ..." said the folder was the wrong kind, while its model comes at the last step
     * (a new user's report). A runtime state, not bad input: exit 1, as the second --train into it */
    if (av_train_folder_busy(dir))
        return av_fail(err, AV_ERUNTIME, "--model %s has no %s yet: an attnviz --train is writing this folder now (it "
                       "holds the folder's lock) and saves its model after the last step; run this again when that "
                       "run has ended", named, name);
    /* a download that stopped before its last byte (huggingface-cli download's NAME.incomplete, a browser's
     * NAME.part): "has no model.safetensors; a GPT-2 model folder holds ..." did not say it was on its way */
    if ((st = av_unfinished_download(dir, name, err))) return st;
    /* the folder that holds model folders: after `attnviz --train reverse -o runs/reverse`, `attnviz --model runs
     * "3 1 4 1 5 >"` said "has no config.json; a GPT-2 model folder holds ...", not that runs/reverse is one (a
     * new user's pass) */
    char inside[4][256];
    int n_inside = strcmp(name, "config.json") ? 0 : models_inside(inside, dir);
    if (n_inside > 0) {
        char list[1200] = "", first[4400], word[4600];
        size_t at = 0;
        for (int i = 0; i < n_inside && i < 4; i++) {
            char one[300]; /* one word each, as the command's path is: "its folders a b and c" read as three */
            av_shown_word(one, sizeof one, inside[i]);
            const char *sep = i == 0 ? "" : i + 1 == n_inside ? " and " : ", "; /* "a, b and c" */
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", sep, one);
        }
        if (n_inside > 4) snprintf(list + at, sizeof list - at, " and %d more", n_inside - 4);
        av_path_join(first, sizeof first, dir, inside[0]);
        return av_fail(err, AV_EUSAGE, "--model %s has no config.json, but its folder%s %s hold%s a model%s; "
                       "--model takes the model's own folder: attnviz --model %s %s", AV_SHOWN_WORD(dir, 201),
                       n_inside == 1 ? "" : "s", list, n_inside == 1 ? "s" : "", n_inside == 1 ? "" : " each",
                       command_word(word, sizeof word, first), input ? input : "TEXT");
    }
    /* a GPT-2 folder as older Hugging Face downloads and save_pretrained(safe_serialization=False) leave it, or a
     * large one save_pretrained split into shards: "has no model.safetensors" named neither file nor the way out
     * (a learner's pass). One line of Python, run in the folder, writes the one file the loader reads. */
    if (!strcmp(name, "model.safetensors") && (st = av_torch_weights_fail(dir, err))) return st; /* its shards too */
    av_path_join(path, sizeof path, dir, "model.safetensors.index.json");
    if (!strcmp(name, "model.safetensors") && stat(path, &sb) == 0)
        return av_fail(err, AV_EUSAGE, "--model %s has no model.safetensors but model.safetensors.index.json and "
                       "shards; a GPT-2 is read from one file: join them once, in that "
                       "folder: python3 -c \"import json, safetensors.torch as s; t = {}; [t.update(s.load_file(f)) for f "
                       "in set(json.load(open('model.safetensors.index.json'))['weight_map'].values())]; "
                       "s.save_file(t, 'model.safetensors', {'format': 'pt'})\"", AV_SHOWN_WORD(dir, 121));
    char shard[256]; /* the shards without their index: "has no model.safetensors" did not say they were seen */
    int shards = strcmp(name, "model.safetensors") ? 0 : av_llama_shards_present(dir, shard);
    if (shards)
        return av_fail(err, AV_EUSAGE, "--model %s has no model.safetensors, only %d shard file%s (%s%s) "
                       "without %s model.safetensors.index.json; a GPT-2 is read from one file: join them once, in "
                       "that folder: python3 -c \"import glob, safetensors.torch as s; t = {}; [t.update(s.load_file(f)) "
                       "for f in glob.glob('model-*-of-*.safetensors')]; s.save_file(t, 'model.safetensors', "
                       "{'format': 'pt'})\"", AV_SHOWN_WORD(dir, 121), shards, shards == 1 ? "" : "s",
                       AV_SHOWN_WORD(shard, 300), /* whole: "%.120s" cut a name inside one, AV_SHOWN(shard, 89) at 40 bytes unmarked */
                       shards == 1 ? "" : ", ...", shards == 1 ? "its" : "their");
    /* a Llama folder with SentencePiece's tokenizer.model only (older Llama 2 downloads, a checkpoint converted with
     * the slow tokenizer): "has no tokenizer.json" named neither the file it has nor the way to the one it reads.
     * transformers converts it to the fast tokenizer and save_pretrained writes tokenizer.json. */
    av_path_join(path, sizeof path, dir, "tokenizer.model");
    if (!strcmp(name, "tokenizer.json") && stat(path, &sb) == 0)
        return av_fail(err, AV_EUSAGE, "--model %s has no tokenizer.json, only tokenizer.model (SentencePiece's "
                       "protobuf format, which attnviz does not read); write tokenizer.json once, in that folder: "
                       "python3 -c \"from transformers import AutoTokenizer; "
                       "AutoTokenizer.from_pretrained('.').save_pretrained('.')\"", AV_SHOWN_WORD(dir, 121));
    return av_fail(err, AV_EUSAGE, "--model %s has no %s; %s", named, name, MODEL_FOLDER);
}

/* A GPT-2 folder's tokenizer_config.json beside vocab.json and merges.txt (dir): with "add_bos_token": true,
 * r->bos_first = 1 and r->bos_id = the vocab.json id of its "bos_token" (a string, or an object whose "content"
 * is one; absent: "<|endoftext|>"), as transformers does: AutoTokenizer converts the slow GPT2Tokenizer, which
 * reads both keys (tokenization_gpt2.py __init__, bos_token="<|endoftext|>"), to GPT2TokenizerFast with
 * GPT2Converter, whose post_processor is TemplateProcessing "{bos}:0 $A:0" under add_bos_token
 * (convert_slow_tokenizer.py), as GPT2Tokenizer's build_inputs_with_special_tokens puts [bos_token_id] first.
 * `--model T "the cat"` gave [1169, 3797] where transformers gives [50256, 1169, 3797]. No file, false, null or
 * absent: nothing first. Only with slow (the folder's vocab.json path): GPT2TokenizerFast reading tokenizer.json
 * leaves add_bos_token unused (hftok.h AV_HFTOK_BOS_GPT2_FAST). In both, "add_prefix_space": true is refused:
 * GPT2Tokenizer's prepare_for_tokenization, and GPT2TokenizerFast's __init__, which sets it on tokenizer.json's
 * ByteLevel pre_tokenizer too, put a space before the text ("the cat" is " the cat", [262, 3797]), which attnviz
 * does not; it ran the text unchanged without a word. Errors, AV_EUSAGE naming the file: av_read_regular_file's,
 * av_dangling_link's, av_json_parse_object's; an add_bos_token or add_prefix_space neither boolean nor null, a
 * bos_token that is no text (av_json_wrong_kind); "PATH: bos_token \"<s>\" is not a token of DIR/vocab.json
 * (add_bos_token true puts it first)"; "PATH: \"add_prefix_space\" is true: ...". */
static av_status read_tokenizer_config(av_gpt2run *r, int slow, av_err *err) {
    char path[4200], named[4200];
    av_path_join(path, sizeof path, r->dir, "tokenizer_config.json");
    cJSON *root = NULL;
    av_status st = av_json_read_optional_object(&root, path, AV_MAX_INPUT_BYTES, named, sizeof named, err);
    if (st || !root) return st; /* an error, or no file */
    const cJSON *add = cJSON_GetObjectItemCaseSensitive(root, "add_bos_token");
    const cJSON *bt = cJSON_GetObjectItemCaseSensitive(root, "bos_token");
    if (cJSON_IsObject(bt)) bt = cJSON_GetObjectItemCaseSensitive(bt, "content"); /* an AddedToken's dict */
    const cJSON *aps = cJSON_GetObjectItemCaseSensitive(root, "add_prefix_space");
    if (!st && aps && !cJSON_IsNull(aps) && !cJSON_IsBool(aps))
        st = av_json_wrong_kind(named, "\"add_prefix_space\"", aps, "true or false (null or absent: false)", err);
    else if (!st && cJSON_IsTrue(aps))
        st = av_fail(err, AV_EUSAGE, "%s: \"add_prefix_space\" is true: transformers' GPT-2 tokenizer then puts a "
                     "space before a text that does not start with one (\"the cat\" is read as \" the cat\"), and "
                     "attnviz runs the text as typed; allowed: false, null or absent (type the space instead: "
                     "\" the cat\")", named);
    if (!slow) add = NULL, bt = NULL; /* GPT2TokenizerFast keeps add_bos_token unused */
    if (!st && add && !cJSON_IsNull(add) && !cJSON_IsBool(add))
        st = av_json_wrong_kind(named, "\"add_bos_token\"", add, "true or false (null or absent: no token first)", err);
    else if (!st && cJSON_IsTrue(add) && bt && !cJSON_IsString(bt))
        st = av_json_wrong_kind(named, "\"bos_token\"", bt, "a token's text, as \"<|endoftext|>\" (absent: "
                                "\"<|endoftext|>\", which add_bos_token true puts first)", err);
    else if (!st && cJSON_IsTrue(add)) {
        const char *tok = bt ? bt->valuestring : "<|endoftext|>";
        int32_t id = av_bpe_find_text(r->bpe, tok, strlen(tok)); /* vocab.json's key, as Python's encoder */
        char shown[80], vocab[4200];
        if (id < 0) {
            av_path_join(vocab, sizeof vocab, r->dir, "vocab.json");
            if (bt) av_json_shown(shown, sizeof shown, bt);
            else snprintf(shown, sizeof shown, "\"%s\" (transformers' default)", tok);
            st = av_fail(err, AV_EUSAGE, "%s: bos_token %s is not a token of %s (add_bos_token true puts it first)",
                         named, shown, AV_SHOWN_WORD(vocab, 4200));
        } else {
            r->bos_first = 1, r->bos_id = id;
        }
    }
    cJSON_Delete(root);
    return st;
}

/* A GPT-2 folder saved with its fast tokenizer only (tokenizer.json, no vocab.json and merges.txt: "has no
 * vocab.json" refused it though attnviz reads tokenizer.json for Llama; a user's report): its byte-level BPE
 * through text/hftok.h, which GPT-2's tokenizer.json (pre_tokenizer ByteLevel, the same vocabulary and merges)
 * encodes to the ids vocab.json and merges.txt give, but for an added token such as "<|endoftext|>" in the
 * text, which is its id here, as Hugging Face's tokenizers make it. tokenizer_config.json's add_bos_token and
 * add_eos_token are not read, as transformers' GPT2TokenizerFast does not (hftok.h AV_HFTOK_BOS_GPT2_FAST; a true
 * add_bos_token is noted). The trace says which file was read. */
static av_status load_tokenizer_json(av_gpt2run *r, const char *path, av_err *err) {
    av_status st = av_hftok_load_dir(&r->hftok, r->dir, AV_HFTOK_BOS_GPT2_FAST, r->g.cfg.vocab_size, err);
    if (st) return st;
    char note[640];
    if (av_hftok_note(note, sizeof note, r->hftok))
        av_message(stderr, "attnviz: note: %s: %s\n", AV_SHOWN_WORD(path, 4200), note);
    if ((st = read_tokenizer_config(r, 0, err))) return st; /* its add_prefix_space */
    if (av_hftok_bos_note(r->hftok)) av_message(stderr, "attnviz: note: %s\n", av_hftok_bos_note(r->hftok));
    int top = av_hftok_vocab_size(r->hftok) - 1, V = r->g.cfg.vocab_size; /* the largest id, vocabulary or added */
    if (top >= V) /* below is fine: a checkpoint may pad vocab_size past its tokenizer */
        return av_fail(err, AV_EUSAGE, "%s has token ids up to %d (its vocabulary and added tokens), but config.json's "
                       "vocab_size is %d: token id %d must fit within vocab_size %d (ids 0..%d); a tokenizer may have "
                       "fewer tokens than vocab_size, not more", AV_SHOWN_WORD(path, 4200), top, V, top, V, V - 1);
    return AV_OK;
}

/* A GPT-2 folder's added_tokens.json (path; save_pretrained writes it for the tokens added to the tokenizer past
 * vocab.json's, {"<pad>": 50257}): *n = how many of its tokens vocab.json does not hold at their id (bpe.h
 * av_bpe_find of the token's text), the first of them (its text, controls as <U+XXXX>, and id) into first and *id.
 * Hugging Face's tokenizers (GPT2Tokenizer reads the file, GPT2TokenizerFast holds its tokens in tokenizer.json)
 * match such a token in the text and give its id; vocab.json and merges.txt split "<pad>" into [<] [pad] [>].
 * Errors, AV_EUSAGE: av_read_regular_file's, av_json_parse_object's, and a value that is no id ("PATH: \"<pad>\"
 * is \"x\"; it must be a token id, a whole number from 0", av_json_wrong_kind). */
/* An added token's text into out (cap bytes, at least 80), controls as <U+XXXX>: whole up to 60 bytes, else its
 * first 60 bytes or fewer, at a whole character, and "..." (also when its escapes do not fit in cap - 4 bytes) (a token of 25 深 was cut at byte 60, inside a
 * character, and printed as "深…深\xE6\xB7" with no sign of the cut: from a review of the change). */
static void added_token_shown(char *out, size_t cap, const char *s) {
    size_t k = strlen(s), m = k < 60 ? k : 60;
    while (m < k && m > 0 && ((unsigned char)s[m] & 0xC0) == 0x80) m--; /* s[m] continues a character */
    char all[60 * 8 + 1]; /* the m bytes escaped whole: a control is 8 bytes, <U+0001> */
    size_t whole = av_utf8_escape_controls(s, m, all, sizeof all, 0);
    size_t w = av_utf8_escape_controls(s, m, out, cap - 4, 0); /* before an escape that does not fit */
    if (m < k || w < whole) strcat(out, "..."); /* ten \u0001 came out as nine escapes and no mark (a review) */
}

static av_status count_added_tokens(const av_bpe *bpe, const char *path, int *n, char *first, size_t cap, int *id,
                                    av_err *err) {
    char *text = NULL, named[4200], key[96];
    size_t len = 0;
    cJSON *root = NULL;
    *n = 0;
    av_shown_word(named, sizeof named, path);
    av_status st = av_read_regular_file(path, AV_MAX_INPUT_BYTES, &text, &len, err);
    if (!st) st = av_json_parse_object(&root, text, len, NULL, named, err);
    for (const cJSON *e = root ? root->child : NULL; !st && e; e = e->next) {
        size_t k = strlen(e->string);
        if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || e->valuedouble < 0 ||
            e->valuedouble > INT32_MAX) {
            added_token_shown(first, cap, e->string);
            snprintf(key, sizeof key, "\"%s\"", first);
            st = av_json_wrong_kind(named, key, e, "a token id, a whole number from 0", err);
        } else if (av_bpe_find(bpe, e->string, k) != (int32_t)e->valuedouble && (*n)++ == 0) {
            added_token_shown(first, cap, e->string);
            *id = (int)e->valuedouble;
        }
    }
    cJSON_Delete(root);
    free(text);
    return st;
}

/* vocab.json and merges.txt; a folder with neither but tokenizer.json is read from that (above), but a folder
 * --train wrote, whose toy vocabulary is checked token by token in vocab.json and merges.txt. A folder whose
 * added_tokens.json adds tokens vocab.json does not hold is read from its tokenizer.json, which holds them too,
 * as transformers' AutoTokenizer reads it; without tokenizer.json it is refused (AV_EUSAGE), as its text would
 * get other ids than Hugging Face gives. */
static av_status load_tokenizer(av_gpt2run *r, av_err *err) {
    char vocab[4200], merges[4200], json[4200];
    struct stat sb;
    av_path_join(vocab, sizeof vocab, r->dir, "vocab.json");
    av_path_join(merges, sizeof merges, r->dir, "merges.txt");
    av_path_join(json, sizeof json, r->dir, "tokenizer.json");
    if (!r->task[0] && lstat(vocab, &sb) != 0 && errno == ENOENT && lstat(merges, &sb) != 0 && errno == ENOENT &&
        stat(json, &sb) == 0)
        return load_tokenizer_json(r, json, err);
    /* a --train folder is read by its toy vocabulary's ids (check_toy_tokenizer): a tokenizer.json in place of
     * vocab.json and merges.txt was met with MODEL_FOLDER's "(or tokenizer.json instead of both)" */
    if (r->task[0] && stat(json, &sb) == 0 && (lstat(vocab, &sb) != 0 || lstat(merges, &sb) != 0)) {
        const char *gone = lstat(vocab, &sb) != 0 ? "vocab.json" : "merges.txt";
        return av_fail(err, AV_EUSAGE, "--model %s has no %s but a tokenizer.json: config.json's attnviz.task says "
                       "attnviz --train wrote this folder, and --model reads the task's text by the ids of the "
                       "vocab.json and merges.txt --train writes (tokenizer.json cannot stand in for them); restore "
                       "them as --train wrote them, or train again", AV_SHOWN_WORD(r->dir, 4200), gone);
    }
    av_status st = check_present(r->dir, "vocab.json", NULL, err);
    if (!st) st = check_present(r->dir, "merges.txt", NULL, err);
    if (st) return st;
    av_path_join(vocab, sizeof vocab, r->dir, "vocab.json");
    av_path_join(merges, sizeof merges, r->dir, "merges.txt");
    if ((st = av_bpe_load(&r->bpe, vocab, merges, err))) return st;
    char added[4200], first[80];
    int n_added = 0, first_id = 0;
    av_path_join(added, sizeof added, r->dir, "added_tokens.json");
    if (!r->task[0] && stat(added, &sb) == 0 &&
        (st = count_added_tokens(r->bpe, added, &n_added, first, sizeof first, &first_id, err)))
        return st;
    if (n_added > 0 && stat(json, &sb) == 0) { /* "<pad>" typed in the text is its id, as in Python */
        av_bpe_free(r->bpe);
        r->bpe = NULL;
        r->added_tokens = n_added;
        return load_tokenizer_json(r, json, err);
    }
    if (n_added > 0)
        return av_fail(err, AV_EUSAGE, "%s adds %d token%s that vocab.json does not hold (\"%s\" at id %d%s), and "
                       "the folder has no tokenizer.json, where attnviz reads added tokens from: with vocab.json and "
                       "merges.txt alone, \"%s\" in the text would be split into other tokens than Hugging Face's "
                       "tokenizer gives; write tokenizer.json once, in that folder: python3 -c \"from transformers "
                       "import AutoTokenizer; AutoTokenizer.from_pretrained('.').save_pretrained('.')\"",
                       AV_SHOWN_WORD(added, 4200), n_added, n_added == 1 ? "" : "s", first, first_id,
                       n_added == 1 ? "" : ", ...", first);
    if (!r->task[0] && (st = read_tokenizer_config(r, 1, err))) return st;
    int V = r->g.cfg.vocab_size, bv = av_bpe_vocab_size(r->bpe);
    if (bv > V) /* fewer is fine: a checkpoint may pad vocab_size past its tokenizer */
        return av_fail(err, AV_EUSAGE, "%s has %d tokens, ids 0..%d, but config.json's vocab_size is %d: token id %d "
                       "must fit within vocab_size %d (ids 0..%d); a tokenizer may have fewer tokens than vocab_size, "
                       "not more", vocab, bv, bv - 1, V, bv - 1, V, V - 1);
    return AV_OK;
}

/* A toy token's text as av_bpe_label shows a token: a leading space as "␣", a byte of 0x80 and more
 * (a byte token alone) as "<0xNN>", a control byte as "<0xNN>" too. */
static void toy_label(char *out, size_t cap, int id) {
    char t[16];
    if (av_toy_token_text(id, t) != 0) { snprintf(out, cap, "<id %d>", id); return; }
    unsigned char c = (unsigned char)t[0];
    if (c == ' ') snprintf(out, cap, "␣%s", t + 1);
    else if (!t[1] && (c < 0x21 || c >= 0x7F)) snprintf(out, cap, "<0x%02X>", c);
    else snprintf(out, cap, "%s", t);
}

/* A folder whose config.json names a --train task (attnviz.task) is read by
 * the toy vocabulary's ids: the notes that an input is outside the task or a
 * continuation wrong (nn/tasks.h av_task_ids_outside) and the task's example
 * text. So its vocab.json and merges.txt must be the ones --train writes:
 * AV_TOY_VOCAB tokens, each id with the toy token's bytes (av_toy_token_text),
 * and the AV_TOY_N_MERGES merges "Ġ c", each making its token once (in any
 * order: no two of them compete). Else AV_EUSAGE naming the file, the first id or merge that
 * differs and what --train writes there: a vocab.json with the ids of "3" and
 * "4" swapped ran "3 1 4 1 5 >" as "4 1 4 1 5 >", printed " 5 1 4 1 4", and
 * no note said the answer was wrong (a new user's report). */
static av_status check_toy_tokenizer(const av_gpt2run *r, av_err *err) {
    char vocab[4200], merges[4200], have[AV_BPE_LABEL_MAX], want[32];
    av_path_join(vocab, sizeof vocab, r->dir, "vocab.json");
    av_path_join(merges, sizeof merges, r->dir, "merges.txt");
    static const char why[] = "config.json's attnviz.task says attnviz --train wrote this folder, and --model reads "
                              "the task's text by the ids of the vocabulary --train writes; restore vocab.json and "
                              "merges.txt as --train wrote them, or train again";
    int V = av_bpe_vocab_size(r->bpe), M = av_bpe_n_merges(r->bpe);
    if (V != AV_TOY_VOCAB)
        return av_fail(err, AV_EUSAGE, "%s has %d tokens where --train writes %d: %s", vocab, V, AV_TOY_VOCAB, why);
    for (int id = 0; id < V; id++) {
        char t[16];
        size_t n;
        const unsigned char *b = av_bpe_token_bytes(r->bpe, id, &n);
        int ok = av_toy_token_text(id, t) == 0;
        size_t tn = t[0] ? strlen(t) : 1; /* byte 0's token is the one byte 0 */
        if (ok && b && n == tn && memcmp(b, t, n) == 0) continue;
        av_bpe_label(have, sizeof have, r->bpe, id);
        toy_label(want, sizeof want, id);
        return av_fail(err, AV_EUSAGE, "%s: token id %d is '%s' where --train writes '%s': %s", vocab, id, have, want,
                       why);
    }
    if (M != AV_TOY_N_MERGES)
        return av_fail(err, AV_EUSAGE, "%s has %d merges where --train writes %d: %s", merges, M, AV_TOY_N_MERGES, why);
    unsigned char made_once[AV_TOY_N_MERGES] = {0};
    for (int k = 0; k < M; k++) {
        int32_t left, right, made = av_bpe_merge_at(r->bpe, k, &left, &right), m = made - 256;
        if (m >= 0 && m < AV_TOY_N_MERGES && !made_once[m] && left == av_toy_byte_id(' ') &&
            right == av_toy_byte_id(av_toy_merge_byte(m))) {
            made_once[m] = 1;
            continue;
        }
        av_bpe_label(have, sizeof have, r->bpe, made);
        return av_fail(err, AV_EUSAGE, "%s: merge %d (line %d), making '%s', is not one of the merges --train writes "
                       "(each '␣' and one of 0-9, >, a-z, once): %s", merges, k, k + 2, have, why);
    }
    return AV_OK;
}

/* 1 if the tokenizer has a token for id (the model's vocab_size may pad past it). */
static int has_token(const av_gpt2run *r, int32_t id) {
    char label[AV_BPE_LABEL_MAX];
    size_t n;
    return r->hftok ? av_hftok_label(label, sizeof label, r->hftok, id) > 0 : av_bpe_token_bytes(r->bpe, id, &n) != NULL;
}

/* The text token id stands for, into labels->text[t] (none for an id
 * without a token): its bytes from vocab.json, or tokenizer.json's decode
 * of the one id. */
static av_status set_token_text(av_tokens *labels, int t, const av_gpt2run *r, int32_t id, av_err *err) {
    size_t n = 0;
    if (!r->hftok) {
        const unsigned char *b = av_bpe_token_bytes(r->bpe, id, &n);
        return b ? av_tokens_set_text(labels, t, (const char *)b, n, err) : AV_OK;
    }
    char *own = NULL;
    av_status st = has_token(r, id) ? av_hftok_decode(r->hftok, &id, 1, &own, &n, err) : AV_OK;
    if (!st && own) st = av_tokens_set_text(labels, t, own, n, err);
    free(own);
    return st;
}

/* The sentence → ids, and their readable labels, each with the text its
 * token stands for (--explain finds a part the labels draw another way:
 * "我" in [<0xE6>] [<0x88>] [<0x91>]). */
static av_status tokenize(av_gpt2run *r, av_tokens *labels, const av_options *o, av_err *err) {
    size_t len, n = 0;
    av_status st = av_read_sentence(o, &r->text, &len, err);
    if (st) return st;
    st = r->hftok ? av_hftok_encode(r->hftok, r->text, len, &r->ids, &n, err)
                  : av_bpe_encode(r->bpe, r->text, len, &r->ids, &n, err);
    if (!st && r->bos_first) { /* tokenizer_config.json's add_bos_token, as hftok.h puts its BOS first */
        int32_t *all = realloc(r->ids, (n + 1) * sizeof *all);
        if (!all) return av_fail(err, AV_ERUNTIME, "out of memory");
        memmove(all + 1, all, n * sizeof *all);
        all[0] = r->bos_id, r->ids = all, n++;
    }
    if (st) return st;
    if (n == 0 && len == 0) return av_fail(err, AV_EUSAGE, "the sentence is empty: there is nothing to tokenize");
    if (n == 0) /* a tokenizer.json Split with behavior Removed can drop every character */
        return av_fail(err, AV_EUSAGE, "the sentence (%zu byte%s) gives no tokens: the pre-tokenizer of %s "
                       "removed all of it", len, len == 1 ? "" : "s",
                       file_word((char[4200]){0}, 4200, r->dir, r->hftok ? "tokenizer.json" : "vocab.json"));
    if (n > (size_t)AV_MAX_TOKENS) { /* the model's own limit first, when it has a smaller one */
        int mp = r->llama ? r->llama->cfg.max_positions
                          : r->g.cfg.positions == AV_POS_LEARNED ? r->g.cfg.n_positions : 0;
        const char *key = r->llama ? r->llama->cfg.max_positions_from : av_gpt2_positions_from(&r->g.cfg);
        if (mp > 0 && mp < AV_MAX_TOKENS)
            return av_fail(err, AV_EUSAGE, "%zu tokens is more than the model's %d position%s (%s); "
                           "allowed: 1..%d token%s", n, mp, mp == 1 ? "" : "s", key, mp, mp == 1 ? "" : "s");
        return av_fail(err, AV_EUSAGE, "the sentence is %zu tokens; at most %d (attnviz's token limit)", n, AV_MAX_TOKENS);
    }
    r->T = (int)n;
    char label[AV_BPE_LABEL_MAX];
    for (int t = 0; t < r->T && !st; t++) {
        av_gpt2run_label(label, sizeof label, r, r->ids[t]);
        if (!(st = av_tokens_push(labels, label, err))) st = set_token_text(labels, t, r, r->ids[t], err);
    }
    return st;
}

/* Layer L's attention as a single layer (gpt2run.h). */
static av_status make_view(av_model *v, const av_gpt2run *r, av_err *err) {
    const av_gpt2_config *c = &r->g.cfg;
    const av_gpt2_layer *w = &r->g.params.h[r->layer];
    int T = r->T, C = c->n_embd, H = c->n_head, l = r->layer;
    size_t TC = (size_t)T * C, HTT = (size_t)H * T * T;
    av_config vc = {.T = T, .n_real = T, .C = C, .H = H, .causal = 1, .scale = c->scale, .kernel = c->kernel,
                    .positions = c->positions == AV_POS_ROPE ? AV_POS_ROPE : AV_POS_LEARNED,
                    .rope_style = c->rope_style, .rope_base = c->rope_base};
    av_status st = av_model_init(v, &vc, err);
    if (st) return st;
    v->model_layer = l + 1;
    v->no_scale_why = av_gpt2_no_scale_why(c); /* "null, which transformers reads as false" as the trace says */
    const float *x = c->norm == AV_NORM_PRE ? r->a.ln1 + l * TC : r->a.hidden + l * TC;
    memcpy(v->X, x, TC * sizeof(float));
    float *W[3] = {v->W_Q, v->W_K, v->W_V}, **B[3] = {&v->b_Q, &v->b_K, &v->b_V};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < C; i++)
            memcpy(W[k] + (size_t)i * C, w->attn_c_attn_w + (size_t)i * 3 * C + (size_t)k * C, (size_t)C * sizeof(float));
        if (!(*B[k] = malloc((size_t)C * sizeof(float)))) return av_fail(err, AV_ERUNTIME, "out of memory");
        memcpy(*B[k], w->attn_c_attn_b + (size_t)k * C, (size_t)C * sizeof(float));
    }
    memcpy(v->W_O, w->attn_c_proj_w, (size_t)C * C * sizeof(float));
    if (!(v->b_O = malloc((size_t)C * sizeof(float)))) return av_fail(err, AV_ERUNTIME, "out of memory");
    memcpy(v->b_O, w->attn_c_proj_b, (size_t)C * sizeof(float));
    if ((st = av_model_forward(v, err))) return st;
    memcpy(v->att, r->a.att + l * HTT, HTT * sizeof(float)); /* the model's own maps, bit for bit */
    memcpy(v->scores, r->a.preatt + l * HTT, HTT * sizeof(float));
    return AV_OK;
}

size_t av_gpt2run_label(char *out, size_t cap, const av_gpt2run *r, int32_t id) {
    if (cap == 0) return 0;
    if (has_token(r, id)) return r->hftok ? av_hftok_label(out, cap, r->hftok, id) : av_bpe_label(out, cap, r->bpe, id);
    int n = snprintf(out, cap, "<id %d>", (int)id);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

int32_t av_gpt2run_bos(const av_gpt2run *r) {
    return r->hftok ? av_hftok_bos(r->hftok) : r->bos_first ? r->bos_id : -1;
}

int av_gpt2run_argmax(const float *logits, int row, int V) {
    const float *z = logits + (size_t)row * V;
    int best = 0;
    for (int v = 1; v < V; v++)
        if (z[v] > z[best]) best = v;
    return best;
}

/* st from a forward pass (or a --generate step) of the model in r->dir: a value that left float32
 * (err->overflowed, av_overflow_fail) is said of the folder, "--model DIR: layer 0: the residual stream overflowed
 * float32 (a value became infinite); the checkpoint's weights are too large", where it named no folder and the
 * user of several could not tell which checkpoint it meant (a pass's report); any other error is left as it is. */
static av_status of_folder(const av_gpt2run *r, av_status st, av_err *err) {
    if (st != AV_EUSAGE || !err->overflowed) return st;
    av_err inner = *err;
    return av_fail(err, st, "--model %s: %s", r->dir_shown, inner.msg);
}

/* The AV_GPT2RUN_TOPK largest softmax(logits[T-1]) entries, ranked by logit: a probability that underflows to 0
 * in double (a logit 745 or more below the largest) ties with every other such one, and a ranking by it put ids
 * 0..3 ("!", "\"", "#", "$") under a saturated first place, whatever their logits (a lying-checkpoint pass:
 * ln_f.weight of 3e37). The lowest id first among equal logits. */
static void top_next(av_gpt2run *r) {
    int V = r->g.cfg.vocab_size;
    const float *z = r->a.logits + (size_t)(r->T - 1) * V;
    double mx = -INFINITY, sum = 0.0, top_z[AV_GPT2RUN_TOPK];
    for (int v = 0; v < V; v++) mx = fmax(mx, z[v]);
    for (int v = 0; v < V; v++) sum += exp((double)z[v] - mx);
    for (int k = 0; k < AV_GPT2RUN_TOPK; k++) r->top_id[k] = -1, r->top_p[k] = -1, top_z[k] = -INFINITY;
    for (int v = 0; v < V; v++) {
        for (int k = 0; k < AV_GPT2RUN_TOPK; k++) {
            if (r->top_id[k] >= 0 && !(z[v] > top_z[k])) continue;
            memmove(&top_z[k + 1], &top_z[k], sizeof(double) * (AV_GPT2RUN_TOPK - 1 - k));
            memmove(&r->top_id[k + 1], &r->top_id[k], sizeof(int) * (AV_GPT2RUN_TOPK - 1 - k));
            top_z[k] = z[v], r->top_id[k] = v;
            break;
        }
    }
    for (int k = 0; k < AV_GPT2RUN_TOPK; k++)
        if (r->top_id[k] >= 0) r->top_p[k] = exp(top_z[k] - mx) / sum;
}

av_status av_trained_task_read(const char *dir, char task_out[32], int *step_out, int *present, int *diverged,
                               av_err *err) {
    char path[4200], *json = NULL, name[4300];
    size_t len = 0;
    av_err ignored;
    task_out[0] = 0;
    *present = 0;
    if (diverged) *diverged = 0;
    av_path_join(path, sizeof path, dir, "config.json");
    if (av_read_regular_file(path, 1u << 20, &json, &len, &ignored)) return AV_OK;
    /* as messages name a file, the whole path one shell word (av_shown_word): -o $'x\u202eq' turned the rest around */
    av_shown_word(name, 349 + 12, path); /* 300 bytes of the folder and its closers, as before, and /config.json */
    cJSON *root = NULL;
    av_status st = av_json_parse_object(&root, json, len, NULL, name, err);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "attnviz");
    const cJSON *task = cJSON_GetObjectItemCaseSensitive(a, "task");
    *present = task != NULL;
    if (task && !(cJSON_IsString(task) && av_task_find(task->valuestring) >= 0)) {
        char shown[64];
        av_json_shown(shown, sizeof shown, task);
        st = av_fail(err, AV_EUSAGE, "%s: attnviz.task %s: expected \"%s\", \"%s\" or \"%s\" (the task --train "
                     "trained)", name, shown, av_task_name(AV_TASK_REVERSE), av_task_name(AV_TASK_SORT),
                     av_task_name(AV_TASK_INDUCTION));
    }
    const cJSON *step = cJSON_GetObjectItemCaseSensitive(a, "step");
    char shown[64]; /* as written; 1e400 (read as infinity) as a number past a double's range, never "inf" */
    av_json_shown(shown, sizeof shown, step);
    if (!st && task && !step)
        st = av_fail(err, AV_EUSAGE, "%s: attnviz.step is missing; --train writes it beside attnviz.task (the step "
                     "it saved the model at)", name);
    else if (!st && task && !cJSON_IsNumber(step))
        st = av_json_wrong_kind(name, "attnviz.step", step, "a whole number in 0..1000000", err);
    else if (!st && task && !(step->valuedouble >= 0 && step->valuedouble <= 1e6 &&
                              step->valuedouble == floor(step->valuedouble)))
        st = av_fail(err, AV_EUSAGE, "%s: attnviz.step %s is not a whole number in 0..1000000 (the step --train "
                     "saved the model at)", name, shown);
    const cJSON *div = cJSON_GetObjectItemCaseSensitive(a, "diverged");
    if (!st && task && div && !cJSON_IsBool(div))
        st = av_json_wrong_kind(name, "attnviz.diverged", div, "true or false (--train writes true for a model whose "
                                "held-out loss rose)", err);
    if (!st && task && diverged) *diverged = cJSON_IsTrue(div);
    if (!st && task) *step_out = (int)step->valuedouble;
    if (!st && task) snprintf(task_out, 32, "%s", task->valuestring);
    cJSON_Delete(root);
    free(json);
    return st;
}

/* A trained toy model says when the input is not its task's text. Called
 * once the forward pass has run, so an input refused later (too long for
 * n_positions) gets only its error, not a note about it first. Printed with
 * -q too: it qualifies the continuation --generate prints even then. */
static void note_outside_task(av_gpt2run *r) {
    int kind = r->task[0] && r->bpe ? av_task_find(r->task) : -1, bad;
    char why[160], what[96], label[AV_BPE_LABEL_MAX];
    r->outside[0] = 0;
    if (kind < 0 || !av_task_ids_outside((av_task_kind)kind, r->ids, r->T, &bad, why, sizeof why)) return;
    av_task_describe(what, sizeof what, (av_task_kind)kind);
    if (av_task_ids_whole_example((av_task_kind)kind, r->ids, r->T)) {
        /* a training example as it was trained, the film strip's probe too: its attention is the trained
         * model's, so no figure says "outside its task" (a figure-maker's report); only what follows is */
        /* "of %s's task" read "of 'a b''s task" with a quoted folder; the task is named after the folder */
        av_message(stderr, "attnviz: note: this input is a whole example of the task %s was trained on, %s (%s), its "
                "answer complete, as training saw it; what comes after it is outside the task, so a continuation "
                "means nothing, however probable it looks\n", r->dir_shown, r->task, what);
        return;
    }
    if (bad >= 0) av_gpt2run_label(label, sizeof label, r, r->ids[bad]);
    /* kept for the figures and the page, which said nothing of it (a figure-maker's report) */
    if (bad >= 0) snprintf(r->outside, sizeof r->outside, "token %d [%.60s] %s", bad, label, why);
    else snprintf(r->outside, sizeof r->outside, "%s", why);
    /* "3,1,4 >" and "3、1、4 >" were told only that ',' or '、' "is not a digit or >", not what to type instead (a
     * learner's pass); the figures' titles keep r->outside as it is */
    const char *sep = av_task_separator_at(r->ids, r->T, bad) ? "; separate the tokens with one space instead" : "";
    /* and "3 1 4 》" or "3 1 4 →" only that '》' or '→' "is not a digit or >" (a tester's pass) */
    if (kind != (int)AV_TASK_INDUCTION && av_task_arrow_at(r->ids, r->T, bad))
        sep = "; the task's separator is > alone (the ASCII greater-than sign, 半角): type that instead";
    av_message(stderr, "attnviz: note: %s was trained on %s only (%s); this input is outside that: %s%s. Its "
            "continuation need not be the task's answer, however probable it looks\n", r->dir_shown, r->task, what,
            r->outside, sep);
}

/* Every file a folder's load reads but a Llama folder's shards, which its
 * index names (av_llama_shard_files adds them to the list for each load). */
static const char *const FOLDER_FILES[] = {"config.json", "model.safetensors", "model.safetensors.index.json",
                                           "vocab.json", "merges.txt", "tokenizer.json", "tokenizer_config.json",
                                           "generation_config.json", "added_tokens.json"};
#define N_FOLDER_FILES ((int)(sizeof FOLDER_FILES / sizeof FOLDER_FILES[0]))
#define N_LOAD_FILES (N_FOLDER_FILES + AV_LLAMA_MAX_SHARDS)
#define LOAD_TRIES 3 /* loads of a folder that changed while it was read, before giving up */

/* The ids --generate stops after, as Hugging Face's from_pretrained sets model.generation_config: from
 * generation_config.json when the folder has one (its eos_token_id, an id, a list or absent: none), else
 * config.json's (already in r->g.cfg). Qwen2.5-Instruct's config.json says 151643 and its
 * generation_config.json [151645, 151643]: the run went on past <|im_end|> (a Chinese learner's pass).
 * Errors: av_read_regular_file's and av_json_parse_object's for the file, av_json_token_ids' for the key. */
static av_status read_generation_eos(av_gpt2run *r, av_err *err) {
    char path[4200];
    struct stat sb;
    r->eos_file = "config.json";
    av_path_join(path, sizeof path, r->dir, "generation_config.json");
    if (stat(path, &sb) != 0) return AV_OK;
    char *text = NULL;
    size_t len = 0;
    cJSON *root = NULL;
    av_status st = av_read_regular_file(path, AV_MAX_INPUT_BYTES, &text, &len, err);
    char named[4200]; /* as messages name it, one shell word (av_shown_word) */
    av_shown_word(named, sizeof named, path);
    if (!st) st = av_json_parse_object(&root, text, len, NULL, named, err);
    av_gpt2_config *c = &r->g.cfg;
    if (!st)
        st = av_json_token_ids(c->eos_ids, &c->n_eos, &c->eos_left, &c->n_eos_left, AV_MAX_EOS, root, "eos_token_id",
                               c->vocab_size, named, err);
    if (!st) r->eos_file = "generation_config.json";
    cJSON_Delete(root);
    free(text);
    return st;
}

/* 1 if DIR/model.safetensors holds the tensor name (with or without prefix); 0 if not, or unreadable. */
static int has_tensor(const char *dir, const char *prefix, const char *name) {
    char path[4200], full[128];
    av_safetensors st;
    av_err ignored;
    av_path_join(path, sizeof path, dir, "model.safetensors");
    if (av_safetensors_open(&st, path, &ignored)) return 0;
    snprintf(full, sizeof full, "%s%s", prefix, name);
    int yes = av_safetensors_find(&st, name) || av_safetensors_find(&st, full);
    av_safetensors_close(&st);
    return yes;
}

/* A folder load_folder refused (AV_EUSAGE) whose config.json's model_type names the other family than its keys
 * and tensors: a GPT-2 folder edited to "llama" was told "has no tokenizer.json", a Llama one edited to "gpt2" (or
 * without model_type) 'missing key "n_layer"' (a learner's pass). Then err names the key, its value, what was
 * found and what is allowed, and 1 is returned; else 0 and err as it was. A folder that loads is never asked. */
static int family_mismatch(const char *dir, int llama, av_err *err) {
    char path[4200], *text = NULL, found[200], *f = found;
    size_t len = 0;
    av_err ignored;
    av_path_join(path, sizeof path, dir, "config.json");
    if (av_read_regular_file(path, AV_MAX_INPUT_BYTES, &text, &len, &ignored)) return 0;
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    if (!cJSON_IsObject(root)) return cJSON_Delete(root), 0;
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(root, "model_type"), *a = cJSON_GetObjectItemCaseSensitive(root, "attnviz");
    int gpt2_keys = cJSON_HasObjectItem(root, "n_layer"), llama_keys = cJSON_HasObjectItem(root, "num_hidden_layers");
    const cJSON *pos = cJSON_GetObjectItemCaseSensitive(a, "positions"), *norm = cJSON_GetObjectItemCaseSensitive(a, "norm");
    int variant = (cJSON_IsString(pos) && strcmp(pos->valuestring, "learned")) ||
                  (cJSON_IsString(norm) && !strcmp(norm->valuestring, "post")); /* what --train writes attnviz_gpt2 for */
    char type[48];
    snprintf(type, sizeof type, "%.40s", cJSON_IsString(mt) ? mt->valuestring : "");
    int typed = cJSON_IsString(mt);
    cJSON_Delete(root);
    if (mt && (!typed || (!llama && strcmp(type, "gpt2") && strcmp(type, AV_GPT2_ATTNVIZ_TYPE))))
        return 0; /* not a string, or another family ("mistral"): av_model_type_refused's message */
    if (llama) { /* a GPT-2 folder? */
        int wte = has_tensor(dir, "transformer.", "wte.weight"), emb = has_tensor(dir, "model.", "embed_tokens.weight");
        if (!(gpt2_keys || wte) || llama_keys || emb) return 0;
        struct stat sb;
        char vocab[4200], merges[4200];
        av_path_join(vocab, sizeof vocab, dir, "vocab.json");
        av_path_join(merges, sizeof merges, dir, "merges.txt");
        f += sprintf(f, "%s", gpt2_keys ? "config.json's n_layer, n_embd" : "");
        f += sprintf(f, "%s%s", wte && f > found ? "; " : "", wte ? "model.safetensors' wte.weight" : "");
        if (stat(vocab, &sb) == 0 && stat(merges, &sb) == 0) sprintf(f, "; vocab.json and merges.txt");
        av_fail(err, AV_EUSAGE, "--model %s: config.json's model_type is \"%s\", but the folder holds a GPT-2 (%s); "
                "allowed: \"%s\" for this folder%s (\"llama\" and \"qwen2\" are for a Llama/Qwen2 folder: hidden_size, "
                "model.embed_tokens.weight, tokenizer.json)", AV_SHOWN_WORD(dir, 100 + 49), type, found, variant ? AV_GPT2_ATTNVIZ_TYPE : "gpt2",
                variant ? ", as --train writes it for this layout" : "");
        return 1;
    }
    int emb = has_tensor(dir, "model.", "embed_tokens.weight"), wte = has_tensor(dir, "transformer.", "wte.weight");
    if (!(llama_keys || emb) || gpt2_keys || wte) return 0;
    int bias = has_tensor(dir, "model.", "layers.0.self_attn.q_proj.bias");
    f += sprintf(f, "%s", llama_keys ? "config.json's hidden_size, num_hidden_layers" : "");
    sprintf(f, "%s%s", emb && f > found ? "; " : "", emb ? "model.safetensors' model.embed_tokens.weight" : "");
    char said[80];
    if (typed) snprintf(said, sizeof said, "config.json's model_type is \"%s\"", type);
    else snprintf(said, sizeof said, "config.json has no model_type (read as GPT-2's)");
    av_fail(err, AV_EUSAGE, "--model %s: %s, but the folder holds a Llama/Qwen2 (%s); allowed: \"%s\" for this "
            "folder, whose q_proj has %s as a %s's (\"gpt2\" is for a GPT-2 folder: n_layer, wte.weight)",
            AV_SHOWN_WORD(dir, 100 + 49), said,
            found, bias ? "qwen2" : "llama", bias ? "a bias" : "no bias", bias ? "Qwen2" : "Llama");
    return 1;
}

/* One load of r->dir: config.json and the weights, the task of a --train
 * folder, the --layer/--head checks, the tokenizer. Reads no input text. */
static av_status load_folder(av_gpt2run *r, int *llama_out, const av_options *o, av_err *err) {
    /* the commands it gives keep the other options as typed, whole (av_options_pasted): `--model runs -o x "3 1 >"`
     * was told to run `attnviz --model runs/reverse '3 1 >'`, without -o x (a new user's pass) */
    char words[540], typed_opts[800], left[200], input[1600];
    av_options_pasted(typed_opts, sizeof typed_opts, left, sizeof left, o, "model");
    snprintf(input, sizeof input, "%s%s%s%s%s", typed_opts, input_words(words, sizeof words, o, "TEXT"),
             left[0] ? " (add your " : "", left, left[0] ? ": too long to repeat here)" : "");
    av_status st = check_present(r->dir, "config.json", input, err);
    int llama = *llama_out = !st && av_llamarun_is_llama(r->dir);
    if (!st) st = check_present(r->dir, llama ? "tokenizer.json" : "model.safetensors", input, err);
    if (!st) st = llama ? av_llamarun_load(r, err) : av_gpt2_load(&r->g, r->dir, err);
    if (st == AV_EUSAGE) family_mismatch(r->dir, llama, err); /* config.json there: a model_type edited */
    if (!st) st = read_generation_eos(r, err);
    if (st) return st;
    int trained; /* r->task "" for a GPT-2 or Llama folder */
    if ((st = av_trained_task_read(r->dir, r->task, &r->step, &trained, &r->diverged, err))) return st;
    if (!o->sentence && !o->file) { /* text of the model's own kind: its task's, or a sentence for GPT-2 or Llama */
        char dir[84], what[64] = "";
        int kind = r->task[0] ? av_task_find(r->task) : -1;
        av_shell_word(dir, sizeof dir, r->dir);
        if (kind >= 0) snprintf(what, sizeof what, " (the text of its task, %s)", r->task);
        const char *like = kind >= 0 ? av_task_prompt_text((av_task_kind)kind) : "I love deep learning";
        char hint[480], in[160];
        av_options_text_hint(hint, sizeof hint, o);
        av_stdin_text_hint(in, sizeof in);
        /* typed_opts: the other options as typed, whole: `--model DIR -o x` was told to try a command without
         * -o x (a new user's pass) */
        return av_fail(err, AV_EUSAGE, "no input text given%s%s; try: attnviz --model %s %s\"%s\"%s%s%s%s, or -f FILE, "
                       "or -f - for stdin", hint, in, dir, typed_opts, like, left[0] ? " (add your " : "", left,
                       left[0] ? ": too long to repeat here)" : "", what);
    }
    const av_gpt2_config *c = &r->g.cfg;
    int given = av_option_given(o, "layer");
    r->layer = given ? o->layer : c->n_layer - 1;
    char typed[80]; /* the value as typed: "--layer 01" was told "--layer 1 is outside 0..0" */
    if (r->layer < 0 || r->layer >= c->n_layer) /* no negative indexing: leaving --layer out gives the last */
        return av_fail(err, AV_EUSAGE, "--layer %s is outside 0..%d: --layer must be 0..L-1 for this model (L = %s = %d "
                       "from %s); leave --layer out for the last layer",
                       av_option_shown(typed, sizeof typed, o, "layer", r->layer), c->n_layer - 1,
                       llama ? "num_hidden_layers" : c->key_n_layer ? c->key_n_layer : "n_layer", c->n_layer,
                       file_word((char[349]){0}, 349, r->dir, "config.json")); /* 300 bytes and closers */
    if (o->head < 0 || o->head >= c->n_head) { /* cli.c leaves a negative --head to the model's range */
        char hint[80] = ""; /* --head H counted from 1, as cli.c says it for the single layer */
        if (o->head == c->n_head)
            snprintf(hint, sizeof hint, "; heads are numbered from 0, so the %s is %d",
                     c->n_head == 1 ? "only head" : "last", c->n_head - 1);
        return av_fail(err, AV_EUSAGE, "--head %s is outside 0..%d (the model has %d head%s)%s",
                       av_option_shown(typed, sizeof typed, o, "head", o->head), c->n_head - 1, c->n_head, c->n_head == 1 ? "" : "s", hint);
    }
    if (llama) return AV_OK;
    st = load_tokenizer(r, err);
    return !st && r->task[0] ? check_toy_tokenizer(r, err) : st;
}

/* A --model run holds the model's (L, H, T, T) scores and weights (2·L
 * arrays of (H, T, T) floats, what av_gpt2_acts_alloc counts, kept by every
 * kernel: --kernel flash is refused) and layer l's view of them (make_view,
 * av_llamarun_view: 2 more); --compare scale adds av_compare_run's two runs
 * (4): 2·L + 2 (+ 4) arrays of 4·H·T² bytes must fit in AV_MAX_WEIGHT_BYTES,
 * else a usage error with the most tokens that fit. Only the model's were
 * counted: `--model DIR -f` 16,000 tokens (L = 1, H = 1) ran 21 s and ran
 * out of memory (11585 fit), and with --compare scale 12,000 ran 19 s. */
static av_status model_fits(int T, int L, int H, int l, int compare, av_err *err) {
    int arrays = 2 * L + 2 + (compare ? 4 : 0);
    double need = 4.0 * arrays * H * (double)T * T, limit = (double)AV_MAX_WEIGHT_BYTES;
    if (need <= limit) return AV_OK;
    char gib[32];
    const char *s = H == 1 ? "" : "s", *ls = L == 1 ? "" : "s";
    int most = av_most_tokens_held(H, arrays, limit), alone = av_most_tokens_held(H, 2 * L + 2, limit);
    av_gib_over(gib, need, limit);
    if (!compare)
        return av_fail(err, AV_EUSAGE, "%d tokens with %d head%s need %s GiB for the (heads, T, T) scores and weights "
                       "of the model's %d layer%s and layer %d's copy, more than the %zu GiB allowed; give at most %d "
                       "tokens at %d head%s (--model keeps every layer's weights, so it cannot run the flash kernel)",
                       T, H, s, gib, L, ls, l, AV_MAX_WEIGHT_BYTES >> 30, most, H, s);
    return av_fail(err, AV_EUSAGE, "%d tokens with %d head%s need %s GiB for the (heads, T, T) scores and weights of "
                   "the model's %d layer%s, layer %d's copy and the 2 runs --compare scale holds at once, more than the "
                   "%zu GiB allowed; drop --compare or give at most %d tokens at %d head%s under --compare scale (%d "
                   "without it)", T, H, s, gib, L, ls, l, AV_MAX_WEIGHT_BYTES >> 30, most, H, s, alone);
}

av_status av_gpt2run_open(av_gpt2run *r, av_model *view, av_tokens *labels, const av_options *o, av_err *err) {
    memset(r, 0, sizeof *r);
    if (strlen(o->model_dir) >= sizeof r->dir_buf)
        return av_fail(err, AV_EUSAGE, "--model: the folder name is %zu bytes long; allowed: at most %zu",
                       strlen(o->model_dir), sizeof r->dir_buf - 1);
    av_path_shown(r->dir_buf, sizeof r->dir_buf, o->model_dir); /* "runs/x/" is shown as "runs/x" */
    r->dir = r->dir_buf;
    av_shown_word(r->dir_shown, sizeof r->dir_shown, r->dir);
    av_status st = check_options(o, err);
    if (!st && o->kernel != AV_KERNEL_REFERENCE + 1) st = av_blas_require(err); /* before the weights load */
    /* --train renames its four files one after another while --model reads them (and config.json more than once):
     * a load that saw the folder change is thrown away and made again, not blamed on a file (a tester's 1 in 2,319
     * loads: "model.safetensors: unexpected tensor "wpe.weight"" from a RoPE run's config.json and a learned one's
     * weights). --train's lock on the folder is not taken: reading must not wait for a long training.
     * A sharded Llama/Qwen2 folder's shards are noted too, as its index names them when the load begins (a
     * download that replaces them one by one gave a model of two versions' tensors). */
    int llama = 0, changed = -1;
    char shards[AV_LLAMA_MAX_SHARDS][256]; /* the index's shard files, names[N_FOLDER_FILES..] */
    const char *names[N_LOAD_FILES];
    for (int k = 0; !st && k < LOAD_TRIES; k++) {
        av_file_id before[N_LOAD_FILES], after[N_LOAD_FILES];
        av_gpt2run_free(r); /* the last try's (and its dir: shown again) */
        av_path_shown(r->dir_buf, sizeof r->dir_buf, o->model_dir);
        r->dir = r->dir_buf;
        av_shown_word(r->dir_shown, sizeof r->dir_shown, r->dir);
        av_file_ids_note(before, r->dir, FOLDER_FILES, N_FOLDER_FILES); /* the index before its shards are listed */
        int n = N_FOLDER_FILES + av_llama_shard_files(shards, AV_LLAMA_MAX_SHARDS, r->dir);
        for (int i = 0; i < n; i++) names[i] = i < N_FOLDER_FILES ? FOLDER_FILES[i] : shards[i - N_FOLDER_FILES];
        av_file_ids_note(before + N_FOLDER_FILES, r->dir, names + N_FOLDER_FILES, n - N_FOLDER_FILES);
        st = load_folder(r, &llama, o, err);
        av_file_ids_note(after, r->dir, names, n);
        if ((changed = av_file_ids_changed(before, after, n)) < 0) break;
        st = AV_OK;
    }
    if (!st && changed >= 0)
        st = av_fail(err, AV_ERUNTIME, "%s changed while it was being read (its %s, on each of %d tries; is %s writing "
                     "it?); try again when it is done", r->dir_shown, names[changed], LOAD_TRIES,
                     changed < N_FOLDER_FILES ? "an attnviz --train" : "a download");
    if (st) return st;
    /* a trained folder that another --train is writing now (a second training into it): its earlier model was
     * read without a word, though that run replaces it at its end (a learner's pass: `--model runs/reverse
     * --generate 5 ...` in a second terminal during `--train reverse -o runs/reverse --dpi 300`). Printed with
     * -q too, as the notes on the task: it qualifies what --generate prints. */
    if (r->task[0] && av_train_folder_busy(r->dir))
        av_message(stderr, "attnviz: note: an attnviz --train is writing %s now; this run reads the model the folder "
                "holds at this moment (%s, step %d), which that run replaces when it saves its own; run this again "
                "when that run has ended\n", r->dir_shown, r->task, r->step);
    /* a trained folder holding a tokenizer.json copied in (GPT-2's, to load the model in Python): this run read the
     * trained vocab.json and merges.txt without a word, while Hugging Face's AutoTokenizer reads tokenizer.json in
     * their place and gives other ids for the same text (a learner's pass). With -q too, as the notes above. */
    char foreign[160];
    int n_foreign = r->task[0] ? av_train_foreign_tokenizer(r->dir, foreign, sizeof foreign) : 0;
    if (n_foreign)
        av_message(stderr, "attnviz: note: %s holds%s, which attnviz --train did not write: this run reads the trained "
                "model's vocab.json and merges.txt, while Hugging Face's AutoTokenizer reads %s first and may give "
                "other token ids; remove %s (a --train into the folder removes %s too)\n", r->dir_shown,
                foreign, n_foreign == 1 ? "it" : "them", n_foreign == 1 ? "it" : "them",
                n_foreign == 1 ? "it" : "them");
    if (!llama && r->g.cfg.warning[0]) av_message(stderr, "attnviz: warning: %s\n", r->g.cfg.warning);
    const av_gpt2_config *c = &r->g.cfg;
    if ((st = tokenize(r, labels, o, err))) return st;
    { /* a page too large for one head is refused before the forward pass (main.c checks again): 3200 tokens
       * ran about 7 s first (a learner's pass); so is what the run holds (model_fits); the model's position
       * limit stays first */
        int C = llama ? r->llama->cfg.n_embd : c->n_embd, H = llama ? r->llama->cfg.n_head : c->n_head;
        int L = llama ? r->llama->cfg.n_layer : c->n_layer;
        st = llama ? av_acts_check_T(r->T, r->llama->cfg.max_positions, r->llama->cfg.max_positions_from, err)
                   : av_acts_check_T(r->T, c->positions == AV_POS_LEARNED ? c->n_positions : 0, av_gpt2_positions_from(c), err);
        if (!st && o->html) st = av_page_check_size(r->T, r->T, av_page_runs(o, C, H), o, 0, err);
        if (!st) st = model_fits(r->T, L, H, r->layer, o->compare != 0, err);
        /* an --explain cell that names no token of the input is refused first, as the single layer's run_model
         * does (a usage error before the folders' runtime ones); quietly when it resolves (trace.c prints its
         * notes) */
        int qi, kj;
        if (!st && o->explain && av_explain_locate(o->explain, labels, &qi, &kj))
            st = av_explain_parse_input(o, labels, &qi, &kj, err);
        /* -o and --dump are made and probed before the forward pass, as the single layer's run_model does:
         * `--model runs/reverse --generate 2 -o out.txt "3 1 >"` (out.txt a file) printed the whole trace and the
         * continuation, then "-o: cannot create folder out.txt: out.txt exists and is not a folder" (a
         * learner's pass); a GPT-2's --generate 32 worked 2 s for it */
        if (!st) st = av_output_folders_writable(o, err);
        if (st) return st;
    }
    r->g.cfg.kernel = o->kernel == AV_KERNEL_AUTO ? AV_KERNEL_BLAS : (av_kernel)(o->kernel - 1);
    if (llama) {
        if ((st = av_llamarun_forward(r, err))) return of_folder(r, st, err);
        note_outside_task(r);
        top_next(r);
        return av_llamarun_view(view, r, err);
    }
    if ((st = av_gpt2_acts_alloc(&r->a, &r->g.cfg, r->T, err))) return st;
    if ((st = av_gpt2_forward(&r->a, &r->g.params, &r->g.cfg, (const int *)r->ids, r->T, err)))
        return of_folder(r, st, err);
    if (r->T > c->n_positions && !o->quiet) /* learned positions refused it (no wpe row); a formula runs on */
        av_message(stderr, "attnviz: note: the input is %d tokens, more than %s %d in %s: %s, but the "
                "model was made for at most %d\n", r->T, c->key_n_positions ? c->key_n_positions : "n_positions",
                c->n_positions, file_word((char[4200]){0}, 4200, r->dir, "config.json"),
                c->positions == AV_POS_ROPE ? "RoPE is computed for any position"
                : c->positions == AV_POS_SINUSOIDAL ? "the sinusoidal encoding is computed for any position"
                                                    : "it adds no positions, so any length runs", c->n_positions);
    note_outside_task(r);
    top_next(r);
    return make_view(view, r, err);
}

/* A trained toy model's continuation of an input inside its task (ids: the
 * input's r->T tokens, then steps generated) goes on past the task's text,
 * where it was never trained: a note names the first generated token that is
 * not the task's (nn/tasks.h av_task_continuation_leaves), and why, as
 * note_outside_task does for an input. `--generate 10 "3 1 4 1 5 >"` printed
 * " 5 1 4 1 3 1 4 4 4 1" without a word. Printed with -q too, as that note. */
static void note_generated_past_task(const av_gpt2run *r, const int32_t *ids, int steps) {
    int kind = r->task[0] && r->bpe ? av_task_find(r->task) : -1, token;
    char why[160], label[AV_BPE_LABEL_MAX];
    int j = kind < 0 ? -1 : av_task_continuation_leaves((av_task_kind)kind, ids, r->T, steps, &token, why, sizeof why);
    if (j < 0) return;
    av_gpt2run_label(label, sizeof label, r, ids[r->T + j]);
    int wrong = token && strstr(why, "is not the task's answer") != NULL; /* a wrong digit */
    /* the right ones after a wrong one are not counted: " 5 1 3 1 3" for "3 1 4 1 5 >" said "The 3 tokens from
     * there on are not the task's answer", though 2 of them are its digits (a teacher's report) */
    /* a wrong token inside the answer, and more generated past the answer's end: the count was of all of them,
     * "6 of the 8 tokens from there on" for " 5 1 3 1 3 1 3 1 3 1" after "3 1 4 1 5 >", 1 wrong digit of the 3
     * up to the answer's end and 5 past it (a learner's pass); now the two are said apart, as the note says
     * "the answer is complete" for a right answer (induction: its longest sequence, 24 letters) */
    int end = av_task_sequence_end((av_task_kind)kind, ids, r->T), stop = r->T + steps;
    int split = wrong && r->T + j < end && end < stop, upto = split ? end : stop;
    int off = av_task_tokens_off((av_task_kind)kind, ids, upto, r->T + j), in = upto - (r->T + j);
    char count[32] = "The", after[256] = "";
    if (off < in) snprintf(count, sizeof count, "%d of the", off);
    int past = stop - end, induction = kind == AV_TASK_INDUCTION;
    if (split && induction)
        snprintf(after, sizeof after, "; its sequences have at most %d letters, so the %d token%s after generated "
                 "token %d %s past the task's text, where it was never trained", end, past, past == 1 ? "" : "s",
                 end - r->T, past == 1 ? "is" : "are");
    else if (split)
        snprintf(after, sizeof after, "; the answer is complete after generated token %d (%d answer digits for %d "
                 "digits), and the %d token%s after it %s past the task's text, where it was never trained",
                 end - r->T, (end - 1) / 2, (end - 1) / 2, past, past == 1 ? "" : "s", past == 1 ? "is" : "are");
    char upto_s[48];
    if (!split) snprintf(upto_s, sizeof upto_s, "from there on");
    else if (induction) snprintf(upto_s, sizeof upto_s, "from there to the %dth letter", end);
    else snprintf(upto_s, sizeof upto_s, "from there to the answer's end");
    av_message(stderr, "attnviz: note: %s was trained on %s only; the continuation %s at generated token %d "
            "(token %d of the input and its continuation, from 0) [%s] (%s%s). %s %d token%s %s %s "
            "not the task's answer%s\n", r->dir_shown, r->task, wrong ? "is wrong" : "leaves its task", j + 1, r->T + j,
            label, token ? "it " : "", why, count, in, in == 1 ? "" : "s", upto_s,
            (off < in ? off : in) == 1 ? "is" : "are", after);
}

/* A run of --generate that did not stop: if the eos_token_id it read (config.json's or generation_config.json's)
 * named ids outside the vocabulary, a note says that --generate cannot stop on them. They were left out without a
 * word: `"eos_token_id": 9999` with vocab_size 294 loaded, and --generate ran its whole length, as if the folder
 * named no end (a learner's pass). Not refused: transformers loads such a config, and the id changes no number.
 * Only here, where it matters: the trace without --generate reads no eos_token_id, and a run that stopped on
 * another of its ids stopped as named. */
static void note_eos_left(const av_gpt2run *r) {
    const av_gpt2_config *c = &r->g.cfg;
    if (c->n_eos_left <= 0) return;
    int many = c->n_eos_left > 1;
    char more[48] = "";
    if (many) snprintf(more, sizeof more, " and %d more", c->n_eos_left - 1);
    av_message(stderr, "attnviz: note: eos_token_id%s %d%s in %s %s outside the vocabulary 0..%d (vocab_size %d): "
            "no token has %s, so --generate cannot stop on %s%s\n", many ? "'s ids" : "", c->eos_left, more,
            file_word((char[4200]){0}, 4200, r->dir, r->eos_file ? r->eos_file : "config.json"), many ? "are" : "is", c->vocab_size - 1,
            c->vocab_size, many ? "those ids" : "that id", many ? "them" : "it",
            c->n_eos > 0 ? "; it stops only on eos_token_id's other ids" : "");
}

static int is_eos(const av_gpt2_config *c, int32_t id) {
    for (int i = 0; i < c->n_eos; i++)
        if (id == c->eos_ids[i]) return 1;
    return 0;
}

/* The ids after ids[0..T-1] (ids[T] set from the input's logits), at most
 * steps in all, each new token run alone against a key/value cache filled
 * from r's forward of the input; *made of them, fewer when config.json's
 * eos_token_id came (kept, as Hugging Face's generate keeps it). progress:
 * the TTY line of av_gpt2run_generate. */
static av_status generate_ids(int32_t *ids, int *made, const av_gpt2run *r, int T, int steps, int progress,
                              av_err *err) {
    const av_gpt2_config *c = &r->g.cfg;
    av_gpt2_cache cache = {0};
    av_status st = r->llama ? av_llama_cache_alloc(&cache, &r->llama->cfg, T + steps, err)
                            : av_gpt2_cache_alloc(&cache, c, T + steps, err);
    if (!st && r->llama) av_llama_cache_prefill(&cache, &r->a, &r->llama->cfg);
    else if (!st) av_gpt2_cache_prefill(&cache, &r->a, c);
    double t0 = av_now_seconds();
    int shown = 0;
    int k = 1;
    for (; k < steps && !st; k++) {
        if (is_eos(c, ids[T + k - 1])) break;
        st = r->llama ? av_llama_decode(&cache, &r->llama->params, &r->llama->cfg, ids[T + k - 1], err)
                      : av_gpt2_decode(&cache, &r->g.params, c, ids[T + k - 1], err);
        if (!st) ids[T + k] = av_gpt2run_argmax(cache.logits, 0, c->vocab_size);
        else { /* the input ran: say which generated token did not (an overflow named only the layer) */
            st = of_folder(r, st, err);
            av_fail_append(err, " (in --generate: generated token %d, at position %d; "
                     "the input itself ran)", k, T + k - 1);
        }
        double el = av_now_seconds() - t0;
        if (progress && el >= 1.0 && (k + 1 == steps || el - shown * 0.25 >= 0.25)) { /* 4 redraws a second */
            char eta[96], line[160];
            av_format_eta_of(eta, sizeof eta, el, k, steps - 1, "token");
            snprintf(line, sizeof line, "--generate: token %d of %d  %s", k + 1, steps, eta);
            if (!shown) av_interrupt_clear_line(1); /* a Ctrl-C clears the line too: the prompt stood on it */
            fputc('\r', stderr); /* within the terminal's width, cut with "…": a wrapped line left a row a redraw */
            av_put_width(stderr, line, av_term_width_of(STDERR_FILENO) - 1, 0);
            fflush(stderr);
            shown = (int)(el / 0.25);
        }
    }
    if (shown) fputs("\r\x1b[K", stderr), av_interrupt_clear_line(0); /* the line goes: the continuation is
                                                                           * printed on stdout */
    av_gpt2_cache_free(&cache);
    *made = k < steps ? k : steps;
    return st;
}

/* What generate_to prints goes to f, or, when the --html page wants a copy
 * (av_gpt2run_generate's copy), to the memory stream ms first and on to f
 * by pass_on before each message on stderr and at the end, so the terminal
 * shows the continuation and its notes in the order they were made. */
typedef struct {
    FILE *f, *ms;   /* ms NULL: no copy, everything is printed on f */
    char *buf;      /* ms's text so far (open_memstream) */
    size_t len, done; /* its length, and how much of it f has */
    FILE *to;       /* where f's text goes: f itself, or at a terminal through tw */
    av_term_wrap tw; /* at a terminal, f is tw's memory stream, written broken at its width (app/term.h) */
} gen_out;

/* pass_on, what follows broken at a terminal's width (wrap) or written as it is (the quoted text, whose spaces a
 * break would take) */
static void pass_on_as(gen_out *g, int wrap) {
    if (g->ms && !fflush(g->ms)) {
        if (g->len > g->done) fwrite(g->buf + g->done, 1, g->len - g->done, g->f);
        g->done = g->len;
    }
    av_term_wrap_end(&g->tw); /* what the terminal is to show before a message on stderr: written now */
    g->f = wrap ? av_term_wrap_begin(&g->tw, g->to) : g->to;
}

static void pass_on(gen_out *g) { pass_on_as(g, 1); }

/* Why steps - n_known of the generated ids[0..steps) have no token, after the continuation: a vocab_size padded
 * past the tokenizer (the model may pick a row no token has), or an id inside the tokenizer's that is no token's:
 * an added token whose text is an earlier token's takes that token's id and leaves its own to no text (as Hugging
 * Face's tokenizers; av_hftok_note). Both are left out of the text, as Hugging Face's decode does. No errors. */
static void unknown_ids_note(FILE *f, const av_gpt2run *r, const int32_t *ids, int steps, int n_known) {
    int32_t tok_n = r->hftok ? av_hftok_vocab_size(r->hftok) : av_bpe_vocab_size(r->bpe), inside[3];
    int past = 0, n_inside = 0, more = 0;
    for (int k = 0; k < steps; k++) {
        if (has_token(r, ids[k])) continue;
        if (ids[k] >= tok_n) {
            past = 1;
            continue;
        }
        int seen = 0; /* each id once */
        for (int j = 0; j < n_inside; j++) seen |= inside[j] == ids[k];
        if (!seen && n_inside < 3) inside[n_inside++] = ids[k];
        else if (!seen) more = 1;
    }
    fprintf(f, "              (%d of the %d generated ids have no token in the tokenizer, shown <id N>: ", steps - n_known,
            steps);
    if (past) fprintf(f, "the model's vocab_size %d is past the tokenizer's ids%s", r->g.cfg.vocab_size, n_inside ? "; " : "");
    if (n_inside) {
        fprintf(f, "id%s", n_inside > 1 ? "s" : "");
        for (int j = 0; j < n_inside; j++) fprintf(f, "%s %d", j ? (j == n_inside - 1 && !more ? " and" : ",") : "", (int)inside[j]);
        char note[640];
        fprintf(f, "%s %s within the tokenizer's ids 0..%d but no token's%s", more ? " and more" : "",
                n_inside > 1 ? "are" : "is", (int)tok_n - 1,
                r->hftok && av_hftok_note(note, sizeof note, r->hftok)
                    ? " (an added token whose text is an earlier token's takes that token's id and leaves its own to "
                      "no text, as the note on tokenizer.json says)"
                    : "");
    }
    fprintf(f, "; the text leaves them out, as Hugging Face's decode does)\n");
}

static av_status generate_to(gen_out *g, const av_gpt2run *r, int n, int progress, av_err *err) {
    FILE *f = g->ms ? g->ms : g->f;
    const av_gpt2_config *c = &r->g.cfg;
    /* config.json's length for every kind of positions: a RoPE or sinusoidal toy model (n_positions 32) went on
     * to 1000 tokens, where a learned one stopped at 32 */
    int cap = c->n_positions < AV_MAX_TOKENS ? c->n_positions : AV_MAX_TOKENS;
    int T = r->T, room = cap - T, steps = n < room ? n : room;
    /* a Llama/Qwen2 config.json without the key: its default's source, as the length error names it */
    const char *mp = r->llama && r->llama->cfg.max_positions_default ? r->llama->cfg.max_positions_from
                                                                      : "the model's max_position_embeddings";
    const char *why = cap == c->n_positions ? (r->llama ? mp
                                               : c->key_n_positions ? "the model's max_position_embeddings"
                                                                    : "the model's n_positions")
                                            : "attnviz's token limit";
    if (steps <= 0) { /* Hugging Face's generate warns and returns the input unchanged; so does this */
        const char *at = T > cap ? "past" : "already"; /* a RoPE model runs a longer input; learned ones refuse it */
        av_message(stderr, "attnviz: warning: the input is %d token%s, %s the maximum length of %d position%s (%s), "
                "so --generate %d can generate no tokens\n", T, T == 1 ? "" : "s", at, cap, cap == 1 ? "" : "s", why, n);
        fprintf(f, "  generate    no tokens: the input is %s%s the maximum length of %d position%s (%s)\n", at,
                T > cap ? "" : " at", cap, cap == 1 ? "" : "s", why);
        pass_on_as(g, 0); /* the line above at the terminal's width, the quoted text as it is (as below) */
        f = g->ms ? g->ms : g->f;
        fprintf(f, "              text: ");
        av_print_quoted(f, r->text ? r->text : "", r->text ? strlen(r->text) : 0);
        fprintf(f, " (the input, nothing added)\n");
        pass_on(g);
        return AV_OK;
    }
    int32_t *ids = malloc((size_t)(T + steps) * sizeof *ids);
    if (!ids) return av_fail(err, AV_ERUNTIME, "out of memory");
    memcpy(ids, r->ids, (size_t)T * sizeof *ids);
    ids[T] = av_gpt2run_argmax(r->a.logits, T - 1, c->vocab_size);
    int asked = steps;
    av_status st = generate_ids(ids, &steps, r, T, asked, progress, err);
    char *text = NULL;
    size_t len = 0;
    int32_t *known = st ? NULL : malloc((size_t)steps * sizeof *known); /* the ids with a token: the text's */
    int n_known = 0;
    if (!st && !known) st = av_fail(err, AV_ERUNTIME, "out of memory");
    for (int k = 0; !st && k < steps; k++)
        if (has_token(r, ids[T + k])) known[n_known++] = ids[T + k];
    if (!st)
        st = r->hftok ? av_hftok_decode(r->hftok, known, (size_t)n_known, &text, &len, err)
                      : av_bpe_decode(r->bpe, known, (size_t)n_known, &text, &len, err);
    free(known);
    if (!st) {
        fprintf(f, "  generate    greedy, %d token%s after the input:", steps, steps == 1 ? "" : "s");
        char label[AV_BPE_LABEL_MAX];
        for (int k = 0; k < steps; k++) {
            av_gpt2run_label(label, sizeof label, r, ids[T + k]);
            fprintf(f, " [%s]", label);
        }
        fprintf(f, "\n              ids:");
        for (int k = 0; k < steps; k++) fprintf(f, " %d", (int)ids[T + k]);
        fputc('\n', f);
        pass_on_as(g, 0); /* the tokens and ids at the terminal's width, the text as it is */
        f = g->ms ? g->ms : g->f;
        fprintf(f, "              text: ");
        av_print_quoted(f, text ? text : "", len);
        fputc('\n', f);
        pass_on(g);
        f = g->ms ? g->ms : g->f;
        if (n_known < steps) unknown_ids_note(f, r, ids + T, steps, n_known);
        pass_on(g); /* the continuation, then its notes */
        f = g->ms ? g->ms : g->f;
        note_generated_past_task(r, ids, steps);
        if (steps < asked) { /* it ran on past <|endoftext|>, where Hugging Face's generate stops (a learner's pass) */
            int32_t last = ids[T + steps - 1];
            av_gpt2run_label(label, sizeof label, r, last);
            fprintf(f, "              stopped after %d of %d: the model generated [%s], its end of text (%s %d in "
                    "%s), where Hugging Face's generate stops too\n", steps, n, label,
                    c->n_eos > 1 ? "one of eos_token_id's ids," : "eos_token_id", (int)last,
                    r->eos_file ? r->eos_file : "config.json");
        } else if (steps < n) {
            fprintf(f, "              stopped after %d of %d: at most %d token%s (%s)\n", steps, n, cap,
                    cap == 1 ? "" : "s", why);
            pass_on(g);
            av_message(stderr, "attnviz: warning: --generate %d stopped after %d token%s: the sequence reached the maximum "
                    "length of %d positions (%s)\n", n, steps, steps == 1 ? "" : "s", cap, why);
        }
        if (steps == asked) note_eos_left(r);
    }
    free(text);
    free(ids);
    return st;
}

av_status av_gpt2run_generate(FILE *f, const av_gpt2run *r, int n, int progress, char **copy, av_err *err) {
    gen_out g = {f, NULL, NULL, 0, 0, f, {0}};
    if (copy) *copy = NULL;
    if (copy && !(g.ms = open_memstream(&g.buf, &g.len))) return av_fail(err, AV_ERUNTIME, "out of memory");
    g.f = av_term_wrap_begin(&g.tw, f); /* at a terminal's width: "  generate    greedy, 8 tokens after the
                                          * input: [␣0] ..." ran 80 columns past a 40-column one */
    av_status st = generate_to(&g, r, n, progress, err);
    pass_on(&g);
    av_term_wrap_end(&g.tw);
    if (g.ms && fclose(g.ms) == 0 && !st) *copy = g.buf; /* the page's trace ends with it */
    else free(g.buf);
    return st;
}

void av_gpt2run_run_id(char run[24], const av_gpt2run *gr, const av_tokens *toks) {
    char source[4300];
    av_gpt2run_source(source, sizeof source, gr);
    av_figures_model_run_id(run, source, toks);
}

/* --figures pe (or all) on a model without RoPE: say why there is no pe
 * figure, as the single layer does for --positions none (figures.c). pe
 * named (--figures pe, pe,model) is an option with no effect: a warning,
 * printed with -q too, as every such warning is (`-q --figures pe` wrote
 * nothing and said nothing, exit 0: a tester's report); for --figures all
 * it is a note, not with -q. */
static void note_no_pe(const av_gpt2run *gr, const av_options *o) {
    av_positions p = gr->g.cfg.positions;
    if (o->no_plot || !av_option_given(o, "figures") || !(o->figures & AV_FIG_PE) || p == AV_POS_ROPE) return;
    if (o->figures_all && o->quiet) return;
    const char *kind = o->figures_all ? "note" : "warning";
    if (p == AV_POS_SINUSOIDAL) {
        /* the command with this run's input: without it, it stopped at "no sentence given" (a learner's pass);
         * one shell word, as the messages' other commands give a folder; a long sentence is named, not repeated */
        char input[540];
        input_words(input, sizeof input, o, "''");
        av_message(stderr, "attnviz: %s: no pe figure: --model draws pe for RoPE models only; this model's sinusoidal "
                "encoding is the single layer's: attnviz --positions sinusoidal --d-model %d --figures pe %s\n", kind,
                gr->g.cfg.n_embd, input);
    } else
        av_message(stderr, "attnviz: %s: no pe figure: %s\n", kind,
                p == AV_POS_LEARNED ? "the model's positions are learned embeddings (wpe, one row of weights per "
                                      "position), not a formula to draw; --model draws pe for RoPE models (Llama, Qwen2, "
                                      "and toy models trained with --positions rope)"
                                    : "the model adds no positional encoding (attnviz.positions none in config.json)");
}

av_status av_gpt2run_sinks(const av_gpt2run *gr, const av_model *m, const av_comparison *c, const av_tokens *toks,
                           const av_options *o, const char *cmd, const char *run, av_written *w, av_err *err) {
    char source[4300];
    av_gpt2run_source(source, sizeof source, gr);
    av_status st = AV_OK;
    note_no_pe(gr, o);
    if (!o->no_plot)
        st = av_figures_model(m, toks, gr->a.att, gr->g.cfg.n_layer, gr->layer, source, gr->text, run, o, cmd, w,
                              err);
    if (!st && o->html) {
        av_figures_warn_vmax_page(m, o); /* as the figures warn, when none is drawn */
        char *trace = NULL;
        size_t len = 0;
        FILE *ms = open_memstream(&trace, &len);
        if (!ms) return av_fail(err, AV_ERUNTIME, "out of memory");
        av_gpt2run_trace(ms, gr, m, toks, 0);
        /* --compare scale's table, printed after the trace, was left out of the page's trace */
        if (c && c->n) fputc('\n', ms), av_compare_print(ms, c, toks, 0);
        /* --generate's continuation, printed after the trace: the page's "what attnviz printed" stopped at the
         * top-5 next tokens, though its command line showed --generate N (a teacher's pass) */
        if (gr->generated) fprintf(ms, "\n%s", gr->generated);
        fclose(ms);
        av_page_info page = {.command = cmd, .note = source, .trace = trace, .sentence = gr->text, .n_real = gr->T,
                             .run = run, .layer = gr->layer, .n_layer = gr->g.cfg.n_layer,
                             .norm = gr->llama ? "pre-norm RMSNorm" : NULL};
        /* --compare scale: layer L under each setting, as the single layer's --compare page (the page held
         * the model's own run alone, and the comparison only as the table under its trace) */
        if (c && c->n) st = av_page_compare(c, m, toks, o, &page, w, err);
        else st = av_page_model(&gr->g.cfg, &gr->a, toks, gr->T, o, &page, w, err);
        free(trace);
    }
    return st;
}

void av_gpt2run_free(av_gpt2run *r) {
    free(r->generated);
    av_gpt2_acts_free(&r->a);
    av_llamarun_free(r);
    av_gpt2_free(&r->g);
    av_bpe_free(r->bpe);
    free(r->ids);
    free(r->text);
    memset(r, 0, sizeof *r);
}

void av_gpt2run_weights(av_weights_source *src, const av_gpt2run *r) {
    src->kind = r->task[0] ? AV_WEIGHTS_TRAINED : AV_WEIGHTS_MODEL;
    src->x_file[0] = 0;
    av_gpt2run_source(src->text, sizeof src->text, r);
}

/* A GPT-2-layout folder's positions and the settings that differ from GPT-2's (config.json's "attnviz"
 * object: a --train folder's positions, Post-LN, no ÷√d_k), e.g. "; RoPE half, θ = 10000; Post-LN; no
 * scale", so every figure title says what the heads were computed with; "; positions: learned" for
 * GPT-2's own (a title that named sinusoidal and RoPE but said nothing for learned ones left the reader
 * to guess: a pass on figures). */
static void layout_differences(char *buf, size_t n, const av_gpt2_config *c) {
    size_t at = 0;
    buf[0] = '\0';
    if (c->positions == AV_POS_ROPE)
        at += (size_t)snprintf(buf, n, "; RoPE %s, θ = %.10g", av_rope_style_name(c->rope_style), c->rope_base);
    else /* "learned" for GPT-2's wpe too */
        at += (size_t)snprintf(buf, n, "; positions: %s", av_positions_name(c->positions));
    if (c->norm == AV_NORM_POST && at < n) at += (size_t)snprintf(buf + at, n - at, "; Post-LN");
    if (!c->scale && at < n) snprintf(buf + at, n - at, "; no scale");
}

/* The folder as a figure names it: dir itself, but for a path whose last part is "." or ".." ("--model ."
 * from inside the folder titled every figure "trained toy model .", so slides from two models could not
 * be told apart: a teacher's report) the folder's own name, realpath's last part ("reverse (.)"), into
 * buf (n bytes). Returns buf, or dir when it is kept. */
static const char *named_dir(const char *dir, char *buf, size_t n) {
    char last[4];
    av_path_split(NULL, 0, last, sizeof last, dir);
    if (strcmp(last, ".") != 0 && strcmp(last, "..") != 0) return dir;
    char *real = realpath(dir, NULL);
    const char *base = real ? strrchr(real, '/') : NULL;
    if (!base || !base[1]) { /* the root, or no realpath: keep what was typed */
        free(real);
        return dir;
    }
    char shown[4000]; /* an RLO in its name closed before " (.)" */
    av_utf8_shown_name(base + 1, shown, sizeof shown);
    snprintf(buf, n, "%s (%s)", shown, dir);
    free(real);
    return buf;
}

void av_gpt2run_source(char *buf, size_t n, const av_gpt2run *r) {
    char extra[96], dir[4200], named[4200], homed[4200]; /* the folder as av_utf8_shown_name shows it: a control
                                                           * character as <U+000A>, an RLO or other bidi control
                                                           * closed after it; a folder in $HOME from "~/" */
    if (!r->llama) layout_differences(extra, sizeof extra, &r->g.cfg);
    av_path_from_home(homed, sizeof homed, named_dir(r->dir, named, sizeof named));
    av_utf8_shown_name(homed, dir, sizeof dir);
    if (r->task[0])
        snprintf(buf, n, "trained toy model %s (attnviz --train %s, step %d; %s%s)%s%s%s", dir, r->task, r->step,
                 r->g.dtype ? r->g.dtype : "?", extra, r->diverged ? " · its training diverged" : "",
                 r->outside[0] ? " · this input is outside its task: " : "",
                 r->outside); /* a piece of its own: a title breaks its line there (inside the brackets it
                               * widened model.png by 300 px: a new user's report) */
    else if (r->llama && r->llama->cfg.n_kv_head == r->llama->cfg.n_head) /* no GQA: "1 query heads share each of 4" */
        snprintf(buf, n, "model %s (%s; %d heads, each with its own K/V head; RoPE half, θ = %.10g)", dir, r->g.dtype,
                 r->llama->cfg.n_head, r->llama->cfg.rope_theta);
    else if (r->llama && r->llama->cfg.n_kv_head == 1) /* "6 query heads share each of 1 K/V heads" */
        snprintf(buf, n, "model %s (%s; MQA: %d query heads share 1 K/V head; RoPE half, θ = %.10g)", dir, r->g.dtype,
                 r->llama->cfg.n_head, r->llama->cfg.rope_theta);
    else if (r->llama)
        snprintf(buf, n, "model %s (%s; GQA: %d query heads share each of %d K/V heads; RoPE half, θ = %.10g)", dir,
                 r->g.dtype, r->llama->cfg.n_head / r->llama->cfg.n_kv_head, r->llama->cfg.n_kv_head, r->llama->cfg.rope_theta);
    else
        snprintf(buf, n, "model %s (%s%s)", dir, r->g.dtype ? r->g.dtype : "?", extra);
}

/* ---------------------------------------------------------------------------- --dump */

/* DIR/source.txt of a --model dump (gpt2run.h av_gpt2run_dump): which model made it, as the figures name it,
 * and its layers; a single layer's --dump wrote one (tensorio.h av_dump_all), a --model's none, so its .npy
 * files did not say which model they came from. */
static av_status dump_source(const av_gpt2run *r, const char *dir, av_written *w, av_err *err) {
    char path[4200], source[4300];
    av_path_join(path, sizeof path, dir, "source.txt");
    av_afile f;
    av_status st = av_afile_open(&f, path, err);
    if (st) return st;
    av_gpt2run_source(source, sizeof source, r);
    fprintf(f.fp, "weights: %s\n", source);
    fprintf(f.fp, "layers: all %d in attn.npy and scores.npy (L, H, T, T) and hidden.npy (L+1, T, d_model); "
            "--layer %d is the one the trace, the layer figures and --explain show\n", r->g.cfg.n_layer, r->layer);
    /* a folder --train wrote: which model.safetensors, byte for byte, so that a --train replacing a model removes
     * only a dump of that model (train.c); "the task and step" in the weights line removed a dump of another
     * reverse model trained to the same step, dumped into the folder, as the replaced model's (a learner's pass) */
    av_path_join(path, sizeof path, r->dir, "model.safetensors");
    int64_t model_crc = r->task[0] ? av_file_crc32(path) : -1;
    if (model_crc >= 0)
        fprintf(f.fp, "model.safetensors crc32 %08lx (the CRC-32 of the whole weights file these tensors were "
                "computed from)\n", (unsigned long)model_crc);
    av_path_join(path, sizeof path, dir, "source.txt");
    if ((st = av_afile_commit(&f, err))) return st;
    av_written_add(w, path);
    return AV_OK;
}

/* av_gpt2run_dump's files, each kept in the caller's set. */
static av_status dump_files(const av_gpt2run *r, const av_tokens *labels, const char *dir, av_written *w,
                            av_err *err) {
    const av_gpt2_config *c = &r->g.cfg;
    size_t L = (size_t)c->n_layer, H = (size_t)c->n_head, T = (size_t)r->T, C = (size_t)c->n_embd;
    char path[4200];
    av_status st;
    if ((st = av_dump_tokens(labels, dir, w, err))) return st;
    if ((st = dump_source(r, dir, w, err))) return st;
    av_path_join(path, sizeof path, dir, "token_ids.npy");
    if ((st = av_npy_write_i32(path, r->ids, 1, &T, err))) return st;
    av_written_add(w, path);
    const struct {
        const char *name;
        const float *data;
        int ndim;
        size_t shape[4];
    } items[] = {
        {"attn.npy", r->a.att, 4, {L, H, T, T}},
        {"scores.npy", r->a.preatt, 4, {L, H, T, T}},
        {"hidden.npy", r->a.hidden, 3, {L + 1, T, C}},
        {"logits.npy", r->a.logits, 2, {T, (size_t)c->vocab_size}},
    };
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        av_path_join(path, sizeof path, dir, items[i].name);
        if ((st = av_npy_write(path, items[i].data, items[i].ndim, items[i].shape, err))) return st;
        av_written_add(w, path);
    }
    return AV_OK;
}

av_status av_gpt2run_dump(const av_gpt2run *r, const av_tokens *labels, const char *dir, av_written *w, av_err *err) {
    av_status st = av_mkdir_p(dir, err);
    if (st) return st;
    static av_afile_set set; /* the seven appear together or not at all (tensorio.h av_dump_all) */
    int64_t crc[5];
    int earlier = av_dump_earlier_kind(dir, crc, NULL, 0, NULL); /* before this run's source.txt replaces it */
    av_afile_set_begin(&set);
    if ((st = av_dump_set_end(&set, dump_files(r, labels, dir, w, err), err))) return st;
    return av_dump_remove_other(dir, 1, earlier, crc, 0, err); /* once this run's files are in place */
}
