/* safetensors.h - read and write safetensors files, the format Hugging Face
 * checkpoints use (https://github.com/huggingface/safetensors, "Format"):
 *
 *   bytes 0..7    N, the header length, unsigned 64-bit little-endian
 *   bytes 8..8+N  a JSON object (UTF-8, may be padded with trailing spaces;
 *                 the reference library also reads \t, \n and \r there):
 *                   {"wte.weight": {"dtype": "F32", "shape": [50257, 768],
 *                                   "data_offsets": [BEGIN, END]}, ...,
 *                    "__metadata__": {"format": "pt"}}
 *   the rest      the data; BEGIN and END are byte offsets into it,
 *                 little-endian, C order
 *
 * Reading validates everything before any tensor is used: the header length
 * is at least 2 and at most 100 MB and inside the file; the header holds no
 * NUL byte outside a string (the format pads with spaces) and is a JSON
 * object (parsed with cJSON); each entry has a known dtype, a shape of at
 * most AV_ST_MAX_NDIM whole numbers, and data_offsets with BEGIN <= END <=
 * data length and END − BEGIN equal to the shape's size times the dtype's; no
 * name repeats; and the tensors tile the data exactly, as the reference
 * library's Metadata::validate and SafeTensors::deserialize require: sorted
 * by BEGIN, the first begins at 0, each begins where the one before it ends
 * (no gap, no overlap), and the last ends where the file ends (no bytes
 * after it). The checks are O(n log n) in the number of tensors. A file is
 * read header first and mapped read-only (mmap) only once the header passed,
 * so a file with more bytes than its tensors is refused without touching them.
 * F32, F16 and BF16 convert to float32; F32 whose data is 4-byte aligned in
 * the mapping is used in place (no copy).
 *
 * Writing produces: the 8-byte length, the compact JSON header
 * {"name":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},...} with the
 * tensors in the order given and packed back to back, padded with spaces to a
 * multiple of 8 bytes, then the data. tests/gen_gpt2_ref.py writes the same
 * bytes. The write is atomic (io/fileio.h).
 *
 * Non-goals: writing __metadata__, dtypes other than F32/F16/BF16 as data
 * (others parse, so ignored tensors may have them, but do not convert),
 * big-endian hosts.
 */
#ifndef AV_SAFETENSORS_H
#define AV_SAFETENSORS_H

#include <stddef.h>

#include "base/common.h"

#define AV_ST_MAX_NDIM 8
#define AV_ST_MAX_HEADER (100u * 1000u * 1000u) /* the reference library's limit */

typedef enum {
    AV_ST_F32, AV_ST_F16, AV_ST_BF16, /* convertible to float32 */
    AV_ST_F64, AV_ST_I64, AV_ST_I32, AV_ST_I16, AV_ST_I8, AV_ST_U8, AV_ST_BOOL, /* known, not converted */
    AV_ST_U16, AV_ST_U32, AV_ST_U64, AV_ST_F8_E4M3, AV_ST_F8_E5M2,
} av_st_dtype;

typedef struct {
    char *name;                        /* as in the header (owned by the file struct) */
    av_st_dtype dtype;
    int ndim;
    size_t shape[AV_ST_MAX_NDIM];
    size_t numel;                      /* product of shape (1 for a scalar) */
    size_t begin, end;                 /* byte offsets into the data section */
    const unsigned char *data;         /* begin's address in the mapping */
} av_st_tensor;

typedef struct {
    av_st_tensor *tensors;             /* n entries, in header order */
    int n;
    const unsigned char *buf;          /* whole file (mapping, or the caller's buffer) */
    size_t len;                        /* its length */
    size_t header_len;                 /* N */
    int mapped;                        /* 1 if buf is our mmap */
    char name[256];                    /* file name for messages */
} av_safetensors;

/* Name of a dtype as in the header ("F32"). */
const char *av_st_dtype_name(av_st_dtype d);
/* The dtypes of a loaded checkpoint, for messages: mask has bit (1 << d) set
 * for each dtype d among F32, F16 and BF16 that its tensors use. Returns a
 * static string: "F32", "F16", "BF16", or the mix ("F32 and F16", "F32, F16
 * and BF16"); "?" for an empty mask. */
const char *av_st_dtypes_name(unsigned mask);
/* Bytes per element of a dtype. */
size_t av_st_dtype_size(av_st_dtype d);
/* A shape as Python prints it, into buf (n bytes, truncated to fit): "(8, 4)",
 * "(8,)", "()" for ndim 0. For messages. */
void av_st_shape_str(char *buf, size_t n, const size_t *shape, int ndim);

/* Parse and validate an in-memory file of len bytes (not copied: buf must
 * outlive st). `name` starts every message (over 255 bytes, by its start and
 * end, base/utf8.h av_utf8_cut_middle). A tensor's name or __metadata__ key is
 * quoted as av_utf8_shown_name shows it (controls as <U+000A>, bidi closed;
 * over 199 bytes by its start and end), a dtype as JSON spells it
 * (io/jsonval.h av_json_shown: "F\n32"). Errors, AV_EUSAGE (offsets and
 * lengths in bytes; header offsets from 0 at the header's first byte, data
 * offsets from 0 at the data's):
 *   "model.safetensors: truncated: 5 bytes, fewer than the 8-byte header length",
 *   "model.safetensors: header length 4096 is larger than the file (100 bytes)",
 *   (with "(the file begins with the text \"<!DOCTYP\")" when its 8 bytes are printable),
 *   "model.safetensors: a Git LFS pointer file (134 bytes of text beginning
 *   \"version \"), not the weights: ... git lfs pull ..." (a file under 1024 bytes
 *   beginning "version ", as the LFS spec's pointer files do),
 *   "model.safetensors: header holds a NUL byte at offset 54 (of its 56
 *   bytes), where the format pads with spaces (0x20) and JSON allows none; is
 *   the file damaged?",
 *   "model.safetensors: header: not valid JSON near byte 17 of 120",
 *   "model.safetensors: header has bytes after its JSON object: 0x78 'x' at byte 3 of the header; only
 *   white space may follow it (the format pads with spaces, 0x20)", and
 *   av_json_parse_object's other errors (a name twice: "key \"a\" appears twice"),
 *   "model.safetensors: tensor \"wte.weight\": unknown dtype \"F99\" (known: F32, F16, BF16, ...)",
 *   "model.safetensors: tensor \"wte.weight\": data_offsets [0, 100] hold 100 bytes; shape (5, 6) F32 needs 120",
 *   "model.safetensors: tensor \"a\": data_offsets end 400 is past the end of the data (240 bytes; file truncated?)",
 *   "model.safetensors: tensor \"b\": data_offsets [16, 40] overlap tensor \"a\" [0, 24]",
 *   "model.safetensors: tensor \"b\": data_offsets [8, 12] begin 4 bytes after tensor \"a\" [0, 4] ends; the
 *   format packs tensors back to back (is the file damaged?)" (and "... begin at byte 4 of the data; the
 *   first tensor must begin at 0, ..." for the first),
 *   "model.safetensors: the file is 74 bytes where its header and tensors make 68 (8 + 56 header + 4 data):
 *   it holds 6 bytes after its last tensor (\"a\" ends at 4); is it damaged or was something appended?"
 *   (a header with no tensor: "... where its header makes 16 (8 + 8) and it lists no tensor: it holds 3
 *   bytes after its header; ...");
 * AV_ERUNTIME on out of memory. On error st is zeroed. */
av_status av_safetensors_parse(av_safetensors *st, const unsigned char *buf, size_t len, const char *name,
                               av_err *err);

/* Open path, read its 8-byte length and header (pread), validate them as
 * parse does against the file's length, and only then mmap the whole file
 * read-only (MAP_POPULATE: every byte is a tensor's, and is read). Errors:
 * AV_EUSAGE "cannot read 'x': No such file or directory" (a path that does
 * not exist, av_input_path_status), "cannot read 'x': it is a FIFO, not a
 * regular file" (a folder, a socket, a device: fileio.h av_not_regular),
 * and as parse (a file with bytes after its last tensor among them, refused
 * before its data is mapped); AV_ERUNTIME "cannot read 'x': ..." for a file
 * that cannot be read (fstat, pread, mmap, out of memory for the header) or
 * that changed while being read. Close with av_safetensors_close. */
av_status av_safetensors_open(av_safetensors *st, const char *path, av_err *err);

/* Unmap (if mapped), free the table, zero st; safe on a zeroed struct. */
void av_safetensors_close(av_safetensors *st);

/* The tensor called name, or NULL. */
const av_st_tensor *av_safetensors_find(const av_safetensors *st, const char *name);

/* A float32 view of t: *out points into the mapping (F32, aligned; *owned =
 * NULL) or to a new converted copy (*owned = the same pointer; caller frees).
 * F16 (IEEE binary16, subnormals included) and BF16 convert exactly; every
 * value must be finite. Errors: AV_EUSAGE "model.safetensors: tensor \"x\"
 * has dtype I64; expected F32, F16 or BF16", "... contains NaN at index 5";
 * AV_ERUNTIME on OOM. */
av_status av_safetensors_f32(const float **out, float **owned, const av_safetensors *st,
                             const av_st_tensor *t, av_err *err);

/* Whether t, read as float32 (av_safetensors_f32's conversion), is the (rows, cols) matrix want, bit for bit:
 * *equal = 1 when t's shape is (rows, cols) and every value equals want's (row-major), else 0 (another shape
 * is 0 without reading the data). For a tied output layer (lm_head.weight (V, C) beside the token embedding,
 * in GPT-2 and Llama folders: transformers' tie_word_embeddings). Errors: those of av_safetensors_f32 (dtype,
 * a non-finite value, out of memory); *equal is 0 then. */
av_status av_safetensors_equal_f32(int *equal, const av_safetensors *st, const av_st_tensor *t, const float *want,
                                   size_t rows, size_t cols, av_err *err);

/* One tensor to write: float32 data of shape[0..ndim-1], stored as dtype
 * (F32, F16 round-to-nearest-even, or BF16 round-to-nearest-even). */
typedef struct {
    const char *name;
    av_st_dtype dtype;
    int ndim;
    size_t shape[AV_ST_MAX_NDIM];
    const float *data;
} av_st_write_tensor;

/* Write n tensors to path atomically in the layout above. Errors: AV_EUSAGE
 * for a dtype other than F32/F16/BF16, ndim out of range, a name with '"' or
 * '\\' or a control character, a repeated name; AV_ERUNTIME naming path on
 * I/O failure or OOM. */
av_status av_safetensors_write(const char *path, const av_st_write_tensor *t, int n, av_err *err);

/* float32 <-> binary16 / bfloat16 (round to nearest even on the way down). */
float av_f16_to_f32(uint16_t h);
uint16_t av_f32_to_f16(float f);
float av_bf16_to_f32(uint16_t h);
uint16_t av_f32_to_bf16(float f);

#endif
