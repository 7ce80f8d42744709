/* page.js - the views of attnviz.html: head, matrix, model and cell view,
 * sharing one token strip and one head selector. Reads the run's numbers
 * from <script id="av-data"> (see src/render/html.h for the format); draws
 * with plain DOM, SVG and canvas; makes no request of any kind.
 * Legend: L layers, H heads, T tokens, D = d_k; tensors are (L, H, T, T)
 * and (L, H, T, D), C order. */
(function () {
  'use strict';

  // ------------------------------------------------------------------ data
  const DATA = JSON.parse(document.getElementById('av-data').textContent);
  const PREC = DATA.mode === 0 ? DATA.precision : 2; /* 8-bit data: 1/255 steps (q8 below) */
  const HEAD_COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#882255',
    '#44AA99', '#999933', '#AA4499', '#332288', '#000000']; /* Okabe-Ito, then Tol's muted */
  const ROW = 24; /* head view: px per token */

  function bytes(b64) {
    const bin = atob(b64 || '');
    const u = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
    return u;
  }
  function floats(b64) { /* little-endian float32, whatever the machine's order */
    const u = bytes(b64), dv = new DataView(u.buffer), a = new Float32Array(u.length / 4);
    for (let i = 0; i < a.length; i++) a[i] = dv.getFloat32(4 * i, true);
    return a;
  }
  for (const r of DATA.runs) {
    r.TT = r.T * r.T;
    r.M = r.mask ? bytes(r.mask) : null;
    if (DATA.mode === 0) {
      r.W = floats(r.weights); r.S = floats(r.scores);
      if (r.q) { r.Q = floats(r.q); r.K = floats(r.k); r.V = floats(r.v); }
    } else {
      r.W8 = bytes(r.weights); r.S8 = bytes(r.scores);
    }
  }
  const LUT = {};
  for (const name in DATA.cmaps) LUT[name] = bytes(DATA.cmaps[name]);

  function panelOf(r, l, h) { return l * r.H + h; }
  /* the name of stored layer l: a --model's --compare run holds the model's layer layer0 alone */
  function layerName(r, l) { return (r.layer0 || 0) + l; }
  function layerOf(r, l) { return 'layer ' + layerName(r, l) + ' of ' + (r.layers_of || r.L); }
  function stored(r, l, h) { return panelOf(r, l, h) < r.kept; }
  /* attention weight A[l, h, i, j] */
  function weight(r, l, h, i, j) {
    const p = panelOf(r, l, h), x = p * r.TT + i * r.T + j;
    return DATA.mode === 0 ? r.W[x] : r.W8[x] / 255;
  }
  /* score S[l, h, i, j] before the mask */
  function score(r, l, h, i, j) {
    const p = panelOf(r, l, h), x = p * r.TT + i * r.T + j;
    if (DATA.mode === 0) return r.S[x];
    const lo = r.scores_range[2 * p], hi = r.scores_range[2 * p + 1];
    return lo + (hi - lo) * r.S8[x] / 255;
  }
  /* What an 8-bit number of panel (l, h) can say: its step (the weights' 1/255 of [0, 1], the scores'
   * (max − min)/255 of the head, as html.c stores them), the digits that step supports (none finer than the
   * step: floor(−log10 step), at least 0), the error bound of the stored number, half a step, rounded up to one
   * significant digit ("0.002"), and the note beside a number shown to `shown` digits (the supported ones unless
   * given), whose bound adds the rounding to those digits, half a unit of the last: "0.31 (8-bit: ±0.007)". A score
   * head over [−40, 60] printed "12.34" with a step of 0.39: a learner read two digits that were not in the page; a
   * score shown "0 (8-bit: ±0.07)" was 0.33 (a teacher's pass). Float32 pages: the --precision digits, no bound. */
  function q8(r, l, h, what, shown) {
    if (DATA.mode === 0) return { digits: PREC, bound: '', note: '' };
    const p = panelOf(r, l, h);
    const span = what === 'weights' ? 1 : r.scores_range[2 * p + 1] - r.scores_range[2 * p];
    const step = (span > 0 ? span : 1) / 255, half = step / 2, digits = Math.max(0, Math.floor(-Math.log10(step) + 1e-9));
    const up = (x) => { /* x rounded up to one significant digit, as text */
      let e = Math.floor(Math.log10(x)), m = Math.ceil(x / Math.pow(10, e) - 1e-9);
      if (m >= 10) { m = 1; e += 1; }
      return (m * Math.pow(10, e)).toFixed(Math.max(0, -e));
    };
    const at = shown === undefined ? digits : shown;
    return { digits: digits, bound: up(half), note: ' (8-bit: \u00b1' + up(half + 0.5 * Math.pow(10, -at)) + ')' };
  }
  /* a float32 weight too small for the digits, as --explain prints it: "4.5800e−06", not "0.0000" (a
   * teacher's pass: the page's 0.0000 beside the trace's 4.58e-06); 8-bit pages cannot tell it from 0.
   * Scientific only below 1e-4, as --explain's (teach.c weight_format); from 1e-4 on, fixed with the fewest
   * digits from --precision on that show two significant ones: with --precision 0 every weight under 0.5
   * read "4.81e−1" (the tooltip, the head view, the cell view's row), where --explain prints "0.48". A weight
   * strictly between 0 and 1 never prints as a whole number either, nor with one significant digit, as
   * weight_format's: it took those digits only when the weight would print as 0, so with --precision 0 a weight
   * of 0.5085 read "1" ("A·v_0 = 1 × v_0 = [0  1  0 …]" beside v_0 = [0  2  1 …], --explain "0.51"), one of
   * 0.0732 with --precision 1 "0.1" (--explain "0.073"), and one of 6.3e-5 "0.0001" at the default 4 digits
   * (--explain scientific; a teacher's pass). Scientific as --explain's too (weight_format: the --precision digits,
   * 1 at least, and C's two-digit exponent, sci): the page wrote 3 significant digits and "6.33e\u22126" where --explain
   * says "6.3311e-06" for the same weight (a learner's pass). */
  function fmtW(r, l, h, x) {
    const d = q8(r, l, h, 'weights').digits;
    if (DATA.mode === 0 && x > 0 && x < 1) {
      if (x < 1e-4) return sci(x, Math.max(PREC, 1));
      let e = d;
      while (e < 9 && !(Number(fixed(x, e)) < 1 && fixed(x, e).replace(/^[0.]*/, '').length >= 2)) e++;
      return fmt(x, e);
    }
    return fmt(x, d);
  }
  function fmtS(r, l, h, x) { return fmt(x, q8(r, l, h, 'scores').digits); }
  /* whether score x of panel (l, h) takes scientific notation where fmtS's fixed digits would not say it: on a float32
   * page, when it is not 0 and below 1e-4 or would print as 0 in them, numpy's rule for an array (suppress=False) and
   * --explain's for its table (teach.c). An 8-bit page's score is no finer than its step: fmtS and its note say it. */
  function sciScore(r, l, h, x) { return hides(x, (a) => fmtS(r, l, h, a)); }
  /* whether f's fixed digits do not say x on a float32 page: x is not 0 and below 1e-4 or f prints it as 0 (sciScore's
   * rule for any number of the cell view that f writes in fixed point) */
  function hides(x, f) {
    const a = Math.abs(x);
    return DATA.mode === 0 && a > 0 && (a < 1e-4 || num(f(a)) === 0);
  }
  /* x as f writes it in fixed point, or scientific with k digits when f's digits do not say it (hides): the one rule
   * of every single number the cell view, the tooltip and the colour bar print */
  function fixedOrSci(x, f, k) { return hides(x, f) ? sci(x, k) : f(x); }
  /* one score shown alone, the matrix tooltip's and the cell view's "stored score S[…] =": scientific by sciScore,
   * with --precision digits, 1 at least, as the cell view's S[i,j] column (softmaxRow). With --precision 1 (`--heads
   * 4 "I love deep learning"`, head 1, query 1, key 2) both read "0.0" for a score of 0.0287 (--explain 0.028732),
   * right above the column's "2.9e−02"; with --precision 0 a score of −0.474 read "0" (head 0, query 0, key 1). */
  function fmtScore(r, l, h, x) { return fixedOrSci(x, (a) => fmtS(r, l, h, a), Math.max(PREC, 1)); }
  function masked(r, i, j) { return r.M !== null && r.M.length > 0 && r.M[i * r.T + j] === 1; }
  /* row vector x[l, h, t, :] of q, k or v */
  function vec(r, a, l, h, t) {
    const o = (panelOf(r, l, h) * r.T + t) * r.D;
    return a.subarray(o, o + r.D);
  }

  // ------------------------------------------------------------------ helpers
  /* x >= 0 with p digits as C's printf "%.*f" (the trace, the PNG, the SVG) and numpy print it: an exact tie goes
   * to the even digit. toFixed takes the larger one, so a uniform row over 8 keys, 0.125 each, read 0.13 in every
   * cell of the page and 0.12 in --show, -v and the figures. toFixed(100) is exact for any tie up to 10 digits. */
  function fixed(x, p) {
    const s = x.toFixed(p);
    if (!(x < 1e21) || p >= 100 || !x.toFixed(p + 1).endsWith('5')) return s;
    const e = x.toFixed(100), dot = e.indexOf('.'), t = e.slice(0, p ? dot + 1 + p : dot);
    return /^50*$/.test(e.slice(dot + 1 + p)) && '02468'.includes(t[t.length - 1]) ? t : s;
  }
  /* x in C's "%.*e" with p digits after the point and a true minus, as --explain prints a number (trace.h
   * av_format_number, numpy's notation): at least two digits of exponent, "6.3311e\u221206", "3.0000e+12", and an
   * exact tie to the even digit, as fixed() (toExponential takes the larger one; toExponential(100) is exact for any
   * tie at up to 10 digits). toExponential wrote "6.3311e\u22126", one digit of exponent, beside --explain's
   * "6.3311e-06" (a learner's pass). */
  function sci(x, p) {
    const a = Math.abs(x);
    let [m, e] = a.toExponential(p).split('e');
    const [em, ee] = a.toExponential(100).split('e'), keep = p ? 2 + p : 1;
    if (a > 0 && isFinite(a) && /^50*$/.test(em.slice(p ? keep : 2)) && '02468'.includes(em[keep - 1])) [m, e] = [em.slice(0, keep), ee];
    const X = Number(e);
    return (x < 0 ? '\u2212' : '') + m + 'e' + (X < 0 ? '\u2212' : '+') + String(Math.abs(X)).padStart(2, '0');
  }
  /* x in C's "%.9g" with a true minus, as --explain prints q\u00b7k and its \u00f7\u221ad_k line (teach.c explain_dot,
   * explain_cell): 9 significant digits, trailing zeros dropped, scientific when the exponent X (of sci's rounding, ties
   * to even) is below \u22124 or 9 or more. The cell view wrote q\u00b7k with --precision + 4 digits after the point,
   * "21.44821282" beside --explain's "21.4482128". */
  function g9(x) {
    if (!isFinite(x)) return x > 0 ? 'inf' : x < 0 ? '\u2212inf' : 'nan';
    const e = sci(x, 8), X = Number(e.slice(e.indexOf('e') + 1).replace('\u2212', '-'));
    if (X < -4 || X >= 9) return e.replace(/\.?0*e/, 'e');
    const s = fixed(Math.abs(x), 8 - X), t = s.includes('.') ? s.replace(/\.?0+$/, '') : s;
    return (x < 0 ? '\u2212' : '') + t;
  }
  /* a number the page shows ("\u22121.07", "6.3311e\u221206") as a number, to check what it shows on a calculator */
  function num(t) { return Number(t.replace(/\u2212/g, '-')); }
  /* fixed digits with a true minus sign, as the figures print */
  function fmt(x, p) {
    if (p === undefined) p = PREC;
    const s = fixed(Math.abs(x), p);
    return (x < 0 && Number(s) !== 0 ? '\u2212' : '') + s;
  }
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'class') e.className = attrs[k];
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), attrs[k]);
      else if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]); /* null: no attribute */
    }
    for (const c of kids) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  function svgEl(tag, attrs) {
    const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function rgb(lut, t) {
    const k = Math.min(255, Math.max(0, Math.floor(t * 256))); /* as colormap.c */
    return [lut[3 * k], lut[3 * k + 1], lut[3 * k + 2]];
  }
  function tokLabel(r, i) { return r.tokens[i]; }

  /* The language a label's script implies, for its lang attribute, so the browser takes a font made for it:
   * the same Han character is drawn differently for Chinese and Japanese (骨, 直), and the page is lang="en"
   * (its words are English), so every label was set as English and a Japanese sentence got Chinese glyph
   * forms. Han is "ja" when the page's tokens or title hold kana (a Japanese sentence, whose 私 is a token of Han only),
   * else "zh"; kana "ja"; Hangul "ko"; Arabic "ar", Hebrew "he", ...; Cyrillic, with many languages, "und-Cyrl".
   * The script with the most letters wins; a label of Latin, digits or spaces only gets none (the page's en),
   * one of CJK punctuation only (。，「」) the page's CJK language. */
  const SCRIPTS = [['Han', 'zh'], ['Hiragana', 'ja'], ['Katakana', 'ja'], ['Hangul', 'ko'], ['Bopomofo', 'zh'],
    ['Arabic', 'ar'], ['Hebrew', 'he'], ['Devanagari', 'hi'], ['Bengali', 'bn'], ['Tamil', 'ta'], ['Telugu', 'te'],
    ['Kannada', 'kn'], ['Malayalam', 'ml'], ['Gujarati', 'gu'], ['Gurmukhi', 'pa'], ['Oriya', 'or'], ['Sinhala', 'si'],
    ['Thai', 'th'], ['Lao', 'lo'], ['Khmer', 'km'], ['Myanmar', 'my'], ['Tibetan', 'bo'], ['Georgian', 'ka'],
    ['Armenian', 'hy'], ['Ethiopic', 'am'], ['Greek', 'el'], ['Cyrillic', 'und-Cyrl'], ['Thaana', 'dv'], ['Syriac', 'syr']]
    .map(([sc, lang]) => [new RegExp('\\p{sc=' + sc + '}', 'gu'), lang]);
  const KANA = /[\p{sc=Hiragana}\p{sc=Katakana}]/u, CJK_PUNCT = /^[\s\u3000-\u303F\uFF00-\uFFEF\u30FB]+$/u;
  const allText = DATA.runs.map((r) => r.tokens.join(' ')).join(' ') + ' ' + DATA.title;
  const HAN = KANA.test(allText) ? 'ja' : 'zh';
  function langOf(text) {
    let best = null, most = 0;
    for (const [re, lang] of SCRIPTS) {
      const n = (String(text).match(re) || []).length;
      if (n > most) { most = n; best = lang === 'zh' ? HAN : lang; }
    }
    if (best === null && CJK_PUNCT.test(text) && /\S/u.test(text)) best = /\p{sc=Hangul}/u.test(allText) && !/\p{sc=Han}/u.test(allText) ? 'ko' : HAN;
    return best;
  }

  /* Text that mixes the page's English words with the user's (a token, the sentence) gives each part its own
   * language, so a screen reader reads each in its own: one aria-label "token 3 学习" on a lang="zh" button had
   * "token 3" read as Chinese, "query 3 学习" on a button of the page's en had 学习 read as English, and so did
   * the cell view's headings and the matrix view's tooltip.
   * userText: the user's text inside a heading or the tooltip, a span of its script's lang; Latin text (the
   * page's en) stays plain text. No dir there, and runs() joins the strings next to each other into one text
   * node: a span's edge, or two text nodes, break the line's shaping ("“I”" was kerned otherwise), and the
   * page looks as before. quoted: `3 “学习”` as parts. */
  function userText(t) { const lang = langOf(t); return lang ? el('span', { text: t, lang: lang }) : t; }
  function runs(...parts) {
    return parts.reduce((a, p) => { if (typeof p === 'string' && typeof a[a.length - 1] === 'string') a[a.length - 1] += p; else a.push(p); return a; }, []);
  }
  function quoted(r, i) { return [i + ' \u201c', userText(tokLabel(r, i)), '\u201d']; }
  /* A control's accessible name of parts, as el() attributes: aria-labelledby the parts' spans, in order, in
   * the hidden #av-names (render() empties it): a string is the page's English (lang="en"), [t] the user's
   * text t (its script's lang, dir=auto). aria-describedby the last user part: the description was the
   * button's title (its tooltip, the token), which is read in the button's language. */
  const NAMES = el('div', { id: 'av-names', hidden: '' });
  document.body.append(NAMES);
  let nameSeq = 0;
  function nameOf(...parts) {
    const ids = [];
    let user = null;
    for (const p of parts) {
      const id = 'avn-' + nameSeq++;
      NAMES.append(typeof p === 'string' ? el('span', { id: id, lang: 'en', text: p })
        : el('span', { id: id, lang: langOf(p[0]), dir: 'auto', text: p[0] }));
      ids.push(id);
      if (typeof p !== 'string') user = id;
    }
    return { 'aria-labelledby': ids.join(' '), 'aria-describedby': user };
  }
  /* arrow keys move focus along a list of buttons (roving tabindex) */
  function roving(items, onMove, vertical) {
    items.forEach((b, k) => b.addEventListener('keydown', (ev) => {
      const prev = vertical ? 'ArrowUp' : 'ArrowLeft', next = vertical ? 'ArrowDown' : 'ArrowRight';
      let n = -1;
      if (ev.key === prev || (!vertical && ev.key === 'ArrowUp')) n = k - 1;
      else if (ev.key === next || (!vertical && ev.key === 'ArrowDown')) n = k + 1;
      else if (ev.key === 'Home') n = 0;
      else if (ev.key === 'End') n = items.length - 1;
      if (n < 0 || n >= items.length) return;
      ev.preventDefault();
      items.forEach((x) => x.setAttribute('tabindex', '-1'));
      items[n].setAttribute('tabindex', '0');
      items[n].focus();
      if (onMove) onMove(n);
    }));
  }

  // ------------------------------------------------------------------ state
  /* the layer the trace and the figures show (a model's --layer, default the last), when stored */
  const firstLayer = (r) => (r.first_layer > 0 && r.first_layer < r.L && stored(r, r.first_layer, 0) ? r.first_layer : 0);
  const st = {
    run: 0, layer: firstLayer(DATA.runs[0]), head: 0, shown: new Set([0]), query: -1,
    cell: { i: 0, j: 0 }, view: 'head', what: 'weights', cmap: DATA.cmap,
  };
  /* the head and cell the trace walked through (--head, --explain): the page opened on head 0 and the cell
   * view on query 0, key 0 beside a trace of head 2, 爱 → 我 (a teacher's pass) */
  if (DATA.start) {
    const r0 = DATA.runs[0], s0 = DATA.start;
    if (s0.head >= 0 && s0.head < r0.H && stored(r0, st.layer, s0.head)) { st.head = s0.head; st.shown = new Set([s0.head]); }
    /* and the query pressed, as a click on that cell presses it: the page opened on the cell view with no token
     * pressed and no matrix row marked (an interactive-page pass) */
    if (s0.query >= 0 && s0.query < r0.T && s0.key >= 0 && s0.key < r0.T) {
      st.cell = { i: s0.query, j: s0.key }; st.view = 'cell'; st.query = s0.query;
    }
  }
  const run = () => DATA.runs[st.run];
  /* the palette's 12, then for heads 12..63 hues a golden angle apart at two lightnesses (the palette
   * repeated: with -H 16 heads 12..15 drew their lines in the colours of heads 0..3, so "all" could not
   * tell head 0's lines from head 12's: a teacher's report) */
  function headColour(h) {
    if (h < HEAD_COLOURS.length) return HEAD_COLOURS[h];
    const n = h - HEAD_COLOURS.length;
    return 'hsl(' + ((n * 137.508 + 20) % 360).toFixed(1) + ', 70%, ' + (n % 2 ? 30 : 42) + '%)';
  }

  // ------------------------------------------------------------------ header, selectors
  function header() {
    /* a title holding double quotes gets single ones, as the figures' titles: nested quotes alternate */
    const single = /[\u201c\u201d"]/.test(DATA.title);
    const title = document.getElementById('av-title');
    title.textContent = (single ? '\u2018' : '\u201c') + DATA.title + (single ? '\u2019' : '\u201d');
    const lang = langOf(DATA.title); /* a title in another script is read in its own (the page stays en) */
    if (lang) title.setAttribute('lang', lang); else title.removeAttribute('lang');
    document.getElementById('av-source').textContent = 'weights: ' + DATA.source;
    commandLine(document.getElementById('av-command'), DATA.command);
    foldCommand(document.getElementById('av-command'), DATA.command);
    document.getElementById('av-trace').textContent = DATA.trace;
    document.getElementById('av-version').textContent = DATA.version;
    const note = document.getElementById('av-note');
    const mib = (b) => (b / 1048576).toFixed(1) + ' MiB';
    if (DATA.mode > 0) {
      note.hidden = false;
      /* the (T, T) mask stored counts in the limit too (html.c plan) */
      const masks = DATA.runs.filter((r) => r.mask).length;
      note.textContent = 'The numbers of this run (' + DATA.panels + ' layer\u00d7head panels' +
        (masks ? (masks > 1 ? ' and the (T, T) masks' : ' and the (T, T) mask') : '') + ') exceed this page\u2019s ' +
        mib(DATA.max_bytes) + ' limit, so weights and scores are stored with 8 bits and q, k, v are left out. Each number is shown ' +
        'only to the digits its 8-bit step supports, with its error bound: weights to 2 digits (8-bit: \u00b10.002), ' +
        'scores by the range of their head (a step of (max \u2212 min)/255, the bound half of it).' + (DATA.mode === 2
          ? ' Only the first panels that fit are kept: ' + DATA.runs.map((r) => r.kept + ' of ' + r.L * r.H).join(', ') + '.'
          : '') + ' ' + exactNumbers();
    }
  }

  /* The command line reads left to right, as typed in a shell (its <code> is dir="ltr"), and each argument
   * holding right-to-left letters (Hebrew, Arabic, Syriac, Thaana, N'Ko, ...) is set in its own isolate, a
   * <bdi> inside its quotes, as the title is (app/page.c isolate_rtl): in the page's left-to-right line the
   * sentence of `--html 'أنا أحب التعلم العميق 😀 🎉'` ran with its quote marks and emoji out of order, worse
   * where it wrapped (375 px: a teacher's pass). The words are av_command_line's: a bare word, '…' (a ' in
   * it written '\''), or $'…' (with a bidi control, \ escapes); the text is the command as written. */
  const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;
  function commandLine(code, cmd) {
    const word = /(\$')((?:[^'\\]|\\.)*)'|(')((?:[^']|'\\'')*)'|[^\s']+/gu, parts = [];
    let at = 0;
    for (let m = word.exec(cmd); m; m = word.exec(cmd)) {
      if (!RTL.test(m[0])) continue;
      const open = m[1] || m[3] || '', inner = m[1] ? m[2] : m[3] ? m[4] : m[0];
      parts.push(cmd.slice(at, m.index) + open, el('bdi', { text: inner, lang: langOf(inner) }), open ? "'" : '');
      at = m.index + m[0].length;
    }
    parts.push(cmd.slice(at));
    code.replaceChildren(...runs(...parts));
  }

  /* A command line of more than COMMAND_FOLD characters (graphemes) is folded into a <details> closed on one
   * line: "command (N characters): " and its first COMMAND_FOLD characters (cut at the last space after the
   * first half of them, else at a character), the line cut with "…" at the window's edge; opened, the whole
   * command (code, set by commandLine) below it. A 240-token sentence typed as the command filled about 15
   * lines of a 375 px window above the controls (a tester's pass). A shorter command stays one paragraph. */
  const COMMAND_FOLD = 200;
  function foldCommand(code, cmd) {
    const chars = GRAPHEMES ? Array.from(GRAPHEMES.segment(cmd), (g) => g.segment) : [...cmd];
    if (chars.length <= COMMAND_FOLD) return;
    const sp = chars.lastIndexOf(' ', COMMAND_FOLD), n = sp > COMMAND_FOLD / 2 ? sp : COMMAND_FOLD;
    const head = el('code', { dir: 'ltr' });
    commandLine(head, chars.slice(0, n).join(''));
    head.append(' \u2026');
    const p = code.parentNode, box = el('details', { id: 'av-command-box' });
    p.replaceWith(box);
    if (p.firstChild.nodeType === Node.TEXT_NODE) p.firstChild.remove(); /* "command: ": the summary says it */
    box.append(el('summary', {}, 'command (' + chars.length.toLocaleString('en') + ' characters): ',
      el('span', { class: 'fold' }, head)), p);
  }

  /* Where the exact numbers of an 8-bit page are: the --dump files when this run wrote them, else how to
   * get them (the note named "the --dump .npy files" of a run that had no --dump: a tester's report) */
  function exactNumbers() {
    const r = DATA.runs[0];
    if (DATA.runs.length === 1 && r.weights_file) {
      return 'The exact numbers are in ' + r.weights_file + ' and ' + r.scores_file + ' of this run\u2019s --dump folder.';
    }
    return 'This run wrote no .npy files: for the exact numbers, run the same command with --dump DIR' +
      (DATA.runs.length > 1 ? ' (with --compare it holds the base run, not each setting).' : '.');
  }

  function tokenStrip() {
    const box = document.getElementById('av-tokens'), r = run();
    box.replaceChildren();
    /* the button is of the page's language (its name starts in English), its text of the token's */
    const items = r.tokens.map((t, i) => el('button', {
      class: 'tok' + (t === '<pad>' ? ' pad' : ''), 'aria-pressed': String(st.query === i),
      tabindex: (st.query === i || (st.query < 0 && i === 0)) ? '0' : '-1',
      ...(st.query === i ? nameOf('token ' + i, [t], '(focused query)') : nameOf('token ' + i, [t])), 'data-i': String(i),
      title: t, dir: 'auto', /* a cut right-to-left token keeps its start, "…" on its left */
      onclick: () => { st.query = st.query === i ? -1 : i; if (st.query >= 0) st.cell.i = i; render(); },
    }, el('span', { text: t, lang: langOf(t) }))); /* no dir of its own: the button's dir=auto takes the token's */
    box.append(...items);
    roving(items, null, false);
  }

  function headChips() {
    const box = document.getElementById('av-heads'), r = run();
    box.replaceChildren();
    const items = [];
    for (let h = 0; h < r.H; h++) {
      items.push(el('button', {
        class: 'chip', role: 'radio', 'aria-checked': String(h === st.head), tabindex: h === st.head ? '0' : '-1',
        style: '--c:' + headColour(h), 'data-h': String(h), text: String(h), 'aria-label': 'head ' + h,
        onclick: () => selectHead(h),
      }));
    }
    box.append(...items);
    roving(items, (n) => selectHead(n, true), false);
  }

  function selectHead(h, keepFocus) {
    if (st.shown.size === 1) st.shown = new Set([h]);
    st.head = h;
    render();
    if (keepFocus) document.querySelector('#av-heads [data-h="' + h + '"]').focus();
  }

  function selects() {
    const lay = document.getElementById('av-layer'), r = run();
    lay.replaceChildren(...Array.from({ length: r.L }, (_, l) => el('option', { value: String(l), text: String(layerName(r, l)) })));
    lay.value = String(st.layer);
    lay.onchange = () => { st.layer = Number(lay.value); render(); };
    const cm = document.getElementById('av-cmap');
    /* RdBu_r (diverging, the scores' map) is offered for the weights only when --cmap chose it: left out,
     * the selector of a --cmap RdBu_r page was blank and RdBu_r could not be chosen again */
    cm.replaceChildren(...Object.keys(LUT).filter((n) => n !== 'RdBu_r' || DATA.cmap === 'RdBu_r')
      .map((n) => el('option', { value: n, text: n })));
    cm.value = st.cmap;
    cm.onchange = () => { st.cmap = cm.value; render(); };
    const rs = document.getElementById('av-run');
    document.getElementById('av-run-box').hidden = DATA.runs.length < 2;
    rs.replaceChildren(...DATA.runs.map((x, k) => el('option', { value: String(k), text: x.name || String(k) })));
    rs.value = String(st.run);
    rs.onchange = () => { st.run = Number(rs.value); render(); };
  }

  function tabs() {
    const names = ['head', 'matrix', 'model', 'cell'];
    const items = names.map((n) => document.getElementById('tab-' + n));
    items.forEach((b, k) => {
      const on = names[k] === st.view;
      b.setAttribute('aria-selected', String(on));
      b.setAttribute('tabindex', on ? '0' : '-1');
      b.onclick = () => showView(names[k]);
      document.getElementById('view-' + names[k]).hidden = !on;
    });
  }
  function showView(v, focus) {
    st.view = v;
    render();
    if (focus !== false) document.getElementById('tab-' + v).focus();
  }

  // ------------------------------------------------------------------ head view
  function headView(box) {
    const r0 = run();
    const checks = el('div', { class: 'showheads', role: 'group', 'aria-label': 'heads shown as lines' },
      el('span', { class: 'lab', text: 'lines of heads ' }));
    for (let h = 0; h < r0.H; h++) {
      const cb = el('input', { type: 'checkbox', 'data-h': String(h) });
      cb.checked = st.shown.has(h);
      cb.onchange = () => { if (cb.checked) st.shown.add(h); else st.shown.delete(h); render(); };
      checks.append(el('label', {}, cb, el('span', { class: 'swatch', style: '--c:' + headColour(h) }), ' ' + h));
    }
    checks.append(el('button', { text: 'all', 'data-act': 'all', onclick: () => { st.shown = new Set(Array.from({ length: r0.H }, (_, h) => h)); render(); } }),
      ' ', el('button', { text: 'only ' + st.head, 'data-act': 'only', onclick: () => { st.shown = new Set([st.head]); render(); } }));
    box.append(el('p', { class: 'desc', text: 'Lines go from each query (left) to each key (right); the darker the line, the larger ' +
      'the attention weight. Hover or focus a token to see only its lines and its weights in head ' + st.head + '.' }), checks);
    const panels = el('div', { class: 'panels' });
    DATA.runs.forEach((r, k) => panels.append(headPanel(r, k)));
    box.append(panels);
  }

  function headPanel(r, k) {
    const T = Math.min(r.T, 96), l = st.layer, hw = 220;
    /* stretched to its column's width (the CSS narrows it in a small window), never in height: each line
     * still ends level with its token's row */
    const svg = svgEl('svg', { height: T * ROW, viewBox: '0 0 ' + hw + ' ' + T * ROW, preserveAspectRatio: 'none', 'aria-hidden': 'true' });
    const lines = [], heads = [...st.shown].filter((h) => h < r.H && stored(r, l, h)).sort((a, b) => a - b);
    heads.forEach((h, n) => {
      const dy = (n - (heads.length - 1) / 2) * Math.min(3, 14 / heads.length); /* heads side by side, not on top */
      for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
        const a = weight(r, l, h, i, j);
        if (a < 0.005 || masked(r, i, j)) continue;
        const ln = svgEl('line', { x1: 2, y1: i * ROW + ROW / 2 + dy, x2: hw - 2, y2: j * ROW + ROW / 2 + dy,
          stroke: headColour(h), 'stroke-width': 2.5, 'stroke-opacity': a.toFixed(3), 'vector-effect': 'non-scaling-stroke' });
        ln.dataset.i = i; ln.dataset.j = j;
        lines.push(ln);
        svg.append(ln);
      }
    });
    const left = el('div', { class: 'col left' }), right = el('div', { class: 'col right' });
    const wspans = [];
    const show = (side, t) => { /* side 'q': lines from query t; 'k': lines into key t; null: all */
      for (const ln of lines) ln.style.display = side === null || Number(ln.dataset[side === 'q' ? 'i' : 'j']) === t ? '' : 'none';
      const on = side !== null && st.head < r.H && stored(r, l, st.head);
      for (let n = 0; n < T; n++) {
        wspans.q[n].textContent = ''; wspans.k[n].textContent = '';
        if (!on) continue;
        const i = side === 'q' ? t : n, j = side === 'q' ? n : t;
        (side === 'q' ? wspans.k : wspans.q)[n].textContent = masked(r, i, j) ? 'masked' : fmtW(r, l, st.head, weight(r, l, st.head, i, j));
      }
    };
    wspans.q = []; wspans.k = [];
    const rest = () => show(st.query >= 0 && st.query < T ? 'q' : null, st.query);
    for (let t = 0; t < T; t++) {
      const wq = el('span', { class: 'w num', 'data-role': 'weight-q' }), wk = el('span', { class: 'w num', 'data-role': 'weight-k' });
      wspans.q.push(wq); wspans.k.push(wk);
      const bq = el('button', { class: 'tok' + (t === st.query ? ' sel' : ''), 'data-side': 'q', 'data-i': String(t),
        ...nameOf('query ' + t, [r.tokens[t]]), onmouseenter: () => show('q', t), onfocus: () => show('q', t),
        onmouseleave: rest, onblur: rest, onclick: () => { st.query = st.query === t ? -1 : t; render(); }, title: r.tokens[t] },
      wq, ' ', el('span', { class: 'tt', text: hvLabel(r, t), lang: langOf(r.tokens[t]), dir: 'auto' }));
      const bk = el('button', { class: 'tok', 'data-side': 'k', 'data-j': String(t), ...nameOf('key ' + t, [r.tokens[t]]),
        onmouseenter: () => show('k', t), onfocus: () => show('k', t), onmouseleave: rest, onblur: rest, title: r.tokens[t] },
      el('span', { class: 'tt', text: hvLabel(r, t), lang: langOf(r.tokens[t]), dir: 'auto' }), ' ', wk);
      left.append(bq); right.append(bk);
    }
    const grid = el('div', { class: 'hv', 'data-run': String(k) }, left, svg, right);
    const title = (r.name ? r.name + ' \u00b7 ' : '') + layerOf(r, l) + ' \u00b7 ' +
      (st.shown.size === 1 ? 'head ' : 'heads ') + ([...st.shown].sort((a, b) => a - b).join(', ') || 'none');
    const out = el('div', { class: 'panel' }, el('h2', { text: title }), el('p', { class: 'desc', text: r.desc +
      (DATA.mode > 0 ? ' \u00b7 weights' + q8(r, l, 0, 'weights').note : '') }));
    /* a head cut by the size limit drew no lines and no weights, with nothing to say why (as if it
     * attended nowhere); the matrix and cell views said "not stored" */
    const missing = [...new Set([...st.shown, st.head])].filter((h) => h < r.H && !stored(r, l, h)).sort((a, b) => a - b);
    if (missing.length) {
      out.append(el('p', { class: 'note', text: 'Layer ' + layerName(r, l) + ' ' + (missing.length === 1 ? 'head ' : 'heads ') + missing.join(', ') +
        (missing.length === 1 ? ' is' : ' are') + ' not stored in the page (size limit): no lines or weights for ' +
        (missing.length === 1 ? 'it' : 'them') + '.' }));
    }
    /* a query past the view's tokens (the strip offers all of them) drew every line, as if none were chosen,
     * with a note at the bottom only (a tester's report: word200 of 240 clicked, nothing to see) */
    if (st.query >= T && st.query < r.T) {
      const q = st.query;
      out.append(el('p', { class: 'note', role: 'status', 'data-role': 'query-outside' },
        ...runs('Token ', ...quoted(r, q), ' is outside the head view, which shows the first ' + T + ' of ' + r.T + ' tokens: '),
        el('button', { text: 'show its row in the matrix view', 'data-act': 'to-matrix',
          onclick: () => { st.run = k; st.cell.i = q; showView('matrix', false);
            const cv = document.querySelector('#view-matrix canvas[data-run="' + k + '"]'); if (cv) cv.focus(); } })));
    }
    out.append(grid);
    if (r.T > T) out.append(el('p', { class: 'note', text: 'The head view shows the first ' + T + ' of ' + r.T + ' tokens; the matrix view shows all.' }));
    setTimeout(rest, 0);
    return out;
  }

  // ------------------------------------------------------------------ matrix view
  function scoreRange(r, l) { /* symmetric, over unmasked cells of every head of the layer, as the PNG */
    let a = 0;
    for (let h = 0; h < r.H; h++) {
      if (!stored(r, l, h)) continue;
      for (let i = 0; i < r.T; i++) for (let j = 0; j < r.T; j++)
        if (!masked(r, i, j)) a = Math.max(a, Math.abs(score(r, l, h, i, j)));
    }
    return a > 0 ? a : 1;
  }

  /* the digits every stored head of layer l supports for its scores (q8): for the layer's colour bar */
  function scoreDigits(r, l) {
    let d = PREC;
    for (let h = 0; h < r.H; h++) if (stored(r, l, h)) d = Math.min(d, q8(r, l, h, 'scores').digits);
    return d;
  }

  function matrixView(box) {
    const radio = (v, label) => {
      const b = el('input', { type: 'radio', name: 'av-what', value: v });
      b.checked = st.what === v;
      b.onchange = () => { st.what = v; render(); };
      return el('label', {}, b, ' ' + label + ' ');
    };
    box.append(el('p', { class: 'desc', text: 'Rows are queries, columns are keys; each row of weights sums to 1. ' +
      'Hover a cell (or focus the map and use the arrow keys; Home and End go to the row\u2019s first and last key, ' +
      'Ctrl+Home and Ctrl+End to the map\u2019s first and last cell, Page Up and Page Down a screenful of rows) to read it; ' +
      'click it (or press Enter) for the cell view.' }),
    el('div', { role: 'radiogroup', 'aria-label': 'what the map shows' }, radio('weights', 'attention weights A'),
      radio('scores', 'scores S before the softmax (Q\u00b7K\u1d40 \u00d7 scale)')));
    const panels = el('div', { class: 'panels' });
    DATA.runs.forEach((r, k) => panels.append(matrixPanel(r, k, box.clientWidth)));
    box.append(panels);
  }

  /* A map of c px cells labels one row (column) in every labelStep(c), as the PNG thins them; a thinned
   * label starts with its index, and so does every label of a run where two tokens' cut labels read the
   * same (labelsCollide). */
  function labelStep(c) { return Math.max(1, Math.ceil(13 / c)); }
  function mxLabel(r, i, step) {
    const index = step > 1 || labelsCollide(r) ? i + ': ' : '';
    return index + fitLabel(r.tokens[i], LABEL_PX - (index ? MEASURE.measureText(index).width : 0));
  }

  /* A token as the map's labels show it: whole up to `max` px of 12 px text, else cut at whole characters
   * (grapheme clusters) and ended with "…", as the PNG's labels (render/plot.c fit_text). CSS alone cut a
   * long row label on its left, away from its right alignment, with no sign of the cut
   * ("tablishmentarianism" for "Antidisestablishmentarianism"; its column label at both ends). A cut
   * label sits in an isolate (FSI … PDI), so a right-to-left one ends in "…" on its left. The whole
   * token is in the label's tooltip. */
  const LABEL_PX = 108; /* the column labels' 9em */
  const GRAPHEMES = typeof Intl === 'object' && Intl.Segmenter ? new Intl.Segmenter('en', { granularity: 'grapheme' }) : null;
  function fitLabel(text, max) {
    MEASURE.font = '12px ' + getComputedStyle(document.body).fontFamily;
    if (MEASURE.measureText(text).width <= max) return text;
    const g = GRAPHEMES ? Array.from(GRAPHEMES.segment(text), (x) => x.segment) : Array.from(text);
    let lo = 0, hi = g.length; /* the longest start that fits with its "…" */
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (MEASURE.measureText(g.slice(0, mid).join('') + '\u2026').width <= max) lo = mid; else hi = mid - 1;
    }
    return '\u2068' + g.slice(0, Math.max(1, lo)).join('') + '\u2026\u2069';
  }
  /* 1 if two different tokens of run r have the same cut label ("Antidisestablishmentarianism" and
   * "Antidisestablishmentary" both "Antidisestablishm…"): its map could not tell their rows apart */
  function labelsCollide(r) {
    if (r.labelsCollide === undefined) {
      const seen = new Map();
      r.labelsCollide = r.tokens.some((t) => { const f = fitLabel(t, LABEL_PX); if (f === t) return false;
        const o = seen.get(f); seen.set(f, t); return o !== undefined && o !== t; });
    }
    return r.labelsCollide;
  }

  /* A head view label: the token, after its index when two tokens' cut labels read the same (labelsCollide:
   * cut to 108 px; the head view's wider cut can only differ less) */
  function hvLabel(r, t) { return (labelsCollide(r) ? t + ': ' : '') + r.tokens[t]; }

  /* Widest of a map's row labels, px: 12 px text (the .mx .rows span
   * style), at most 10em, and their 4 px padding. */
  const MEASURE = document.createElement('canvas').getContext('2d');
  function rowLabelsWidth(r, step) {
    MEASURE.font = '12px ' + getComputedStyle(document.body).fontFamily;
    let w = 0;
    for (let i = 0; i < r.T; i += step) w = Math.max(w, MEASURE.measureText(mxLabel(r, i, step)).width);
    return Math.min(120, Math.ceil(w) + 1) + 4;
  }

  /* The weights' colour range of the figures (app/figures.c weight_meta, render/plot.c auto_range and
   * log_panels): the top is --vmax F, or with --vmax auto (the default past 32 tokens) the 99th percentile,
   * nearest rank, of the visible weights of the map (head h of layer l; h < 0: every stored head of every
   * layer, as the model figure), else 1; with --log-scale the map is log10 over [top / 1000, top], a weight
   * below it (or 0) in the bottom colour. The page coloured every weight over 0..1 whatever the run's
   * --vmax and --log-scale, so a cell of the page and the same cell of head0.png had other colours. */
  const WR = DATA.wrange || { vmax: 1, auto_pct: 0, log: false, named: 0 };
  function wRange(r, l, h) {
    const key = h < 0 ? 'all' : l + ',' + h;
    r.wr = r.wr || {};
    if (r.wr[key]) return r.wr[key];
    let top = WR.vmax > 0 ? WR.vmax : 1;
    if (WR.auto_pct > 0) { /* past 2^18 values, 2^18 of them evenly strided, as plot.c av_plot_percentile */
      const maps = [];
      for (let ll = 0; ll < r.L; ll++) for (let hh = 0; hh < r.H; hh++)
        if ((h < 0 || (ll === l && hh === h)) && stored(r, ll, hh)) maps.push([ll, hh]);
      const total = maps.length * r.TT, stride = Math.max(1, Math.ceil(total / 262144)), v = [];
      for (let at = 0; at < total; at += stride) {
        const [ll, hh] = maps[Math.floor(at / r.TT)], c = at % r.TT, i = Math.floor(c / r.T), j = c % r.T;
        if (!masked(r, i, j)) v.push(weight(r, ll, hh, i, j));
      }
      v.sort((a, b) => a - b);
      const k = Math.min(v.length, Math.max(1, Math.ceil(WR.auto_pct / 100 * v.length))) - 1;
      top = v.length && v[k] > 0 ? v[k] : 1;
    }
    top = Math.fround(top);
    const lo = Math.fround(top / 1000);
    return (r.wr[key] = { top: top, lo: lo, log: WR.log, llo: Math.log10(lo), lhi: Math.log10(top), scope: h < 0 ? 'every head' : 'this head' });
  }
  /* weight a's place on the colour map, 0..1 (rgb() clamps), in range R of wRange */
  function wPlace(R, a) {
    if (!R.log) return a / R.top;
    return ((a > 0 ? Math.max(Math.log10(a), R.llo) : R.llo) - R.llo) / (R.lhi - R.llo);
  }
  /* printf's %.3g with a true minus, as the figures' colour bars write their range (plot.c av_plot_g3): an exact
   * tie to the even digit, as fixed() (toExponential and toFixed take the larger one: --vmax 0.03125, or auto on
   * a uniform row over 32 keys, read 0.0313 on the page and 0.0312 in head0.png's colour bar); its 3 digits and
   * exponent X are sci's, which rounds the same way */
  function g3(x, expo) {
    if (x === 0 || !isFinite(x)) return String(x);
    const a = Math.abs(x), sign = x < 0 ? '-' : '', t = sci(a, 2), m = t.slice(0, t.indexOf('e'));
    const X = num(t.slice(t.indexOf('e') + 1)), strip = (t) => (t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t);
    const s = expo || X < -4 || X >= 3 ? strip(m) + 'e' + (X < 0 ? '-' : '+') + String(Math.abs(X)).padStart(2, '0') : strip(fixed(a, 2 - X));
    return (sign + s).replace(/-/g, '\u2212');
  }
  /* lo and hi in one notation, as the figures' colour bars write a log range (plot.c av_plot_g3_range): both
   * with the exponent when g3 gives it to one of them ("7.97e−05 – 7.97e−02", not "7.97e−05 – 0.0797") */
  function g3Range(lo, hi) {
    const a = g3(lo), b = g3(hi), expo = a.includes('e') !== b.includes('e');
    return g3(lo, expo) + ' \u2013 ' + g3(hi, expo);
  }
  /* the colour bar's words for range R, as the figures' titles: "log₁₀ attention weight (viridis; 0.0002 – 0.2, --vmax)" */
  function wWords(R) {
    const hi = g3(R.top), span = R.log ? g3Range(R.lo, R.top) : '0\u2013' + hi;
    const how = WR.auto_pct > 0 ? '; auto: ' + span + ', ' + WR.auto_pct + 'th percentile of ' + R.scope
      : WR.named === 2 ? '; ' + span + ', --vmax' : WR.named === 1 ? '; fixed ' + span : '';
    /* an 8-bit page holds the weights in steps of 1/255 (0.0039): over a range below 1, or 3 decades on a log
     * scale, its colours come in fewer, coarser steps than the figures' (a 300-token --log-scale page of
     * auto 2.93e−5 – 0.0293 drew every weight under 0.002 as 0, the bottom colour), and the bar said nothing */
    const coarse = DATA.mode > 0 && (R.log || R.top < 1) ? '; 8-bit weights in steps of 1/255 = 0.0039, ' +
      (R.log ? 'so any below 0.002 takes the bottom colour: ' : '') + 'coarser colours than the figures\u2019' : '';
    return (R.log ? 'log\u2081\u2080 ' : '') + 'attention weight (' + st.cmap + how + coarse + ')';
  }

  function cellColour(r, l, h, i, j, lut, amax) {
    if (st.what === 'weights') return rgb(lut, wPlace(wRange(r, l, h), weight(r, l, h, i, j)));
    return rgb(LUT.RdBu_r, (score(r, l, h, i, j) / amax + 1) / 2);
  }

  /* A masked cell as drawMatrix draws it, c px square at devicePixelRatio dpr: light grey hatched with dark
   * grey lines, drawn once per map as device pixels (n × n, n = ⌈c·dpr⌉ + 1, enough for any cell's share). */
  function hatchTile(c, dpr) {
    const n = Math.ceil(c * dpr) + 1, cv = document.createElement('canvas');
    cv.width = n; cv.height = n;
    const g = cv.getContext('2d', { willReadFrequently: true });
    g.scale(dpr, dpr);
    g.fillStyle = '#d9d9d9'; g.fillRect(0, 0, n, n);
    g.beginPath(); g.rect(0, 0, c, c); g.clip();
    g.strokeStyle = '#8c8c8c'; g.lineWidth = 1;
    for (let d = -c; d < c; d += 6) { g.beginPath(); g.moveTo(d, c); g.lineTo(d + c, 0); g.stroke(); }
    return { n: n, px: g.getImageData(0, 0, n, n).data };
  }

  /* Map (l, h) of run r on canvas cv, T × T cells of c px: each cell's colour (cellColour), a masked cell
   * hatched, the number in cells of 40 px and more, the query's row and the chosen cell framed (cellFrame).
   * The cells are written as device pixels, a band of rows at a time (putImageData), not one fillRect each, and an
   * arrow key redraws only the cells around the old and the new chosen cell (part: rows i0 .. i1 − 1,
   * columns j0 .. j1 − 1, on the map as drawn): a 1,000-token map (a million cells) took about 3 s on
   * every arrow key in the map, every head chip and every colour map chosen. Cell j spans device pixels
   * round(j·c·dpr) .. round((j + 1)·c·dpr). */
  function drawMatrix(cv, r, l, h, c, amax, part) {
    const T = r.T, dpr = window.devicePixelRatio || 1, lut = LUT[st.cmap];
    if (!part) {
      cv.width = Math.round(T * c * dpr); cv.height = Math.round(T * c * dpr);
      cv.style.width = T * c + 'px'; cv.style.height = T * c + 'px';
    }
    const g = cv.getContext('2d'), W = cv.width, edge = (n) => Math.min(W, Math.round(n * c * dpr));
    const pi0 = part ? Math.max(0, part.i0) : 0, pi1 = part ? Math.min(T, part.i1) : T;
    const pj0 = part ? Math.max(0, part.j0) : 0, pj1 = part ? Math.min(T, part.j1) : T;
    if (pi0 >= pi1 || pj0 >= pj1) return;
    const hatch = r.M !== null && r.M.length > 0 ? hatchTile(c, dpr) : null;
    const rgba = new Uint8ClampedArray(4 * T), R = st.what === 'weights' ? wRange(r, l, h) : null; /* as cellColour */
    const map = R ? lut : LUT.RdBu_r, x0 = edge(pj0), bw = edge(pj1) - x0;
    for (let i0 = pi0; i0 < pi1;) { /* a band of about 2^20 pixels */
      let i1 = i0 + 1;
      while (i1 < pi1 && (edge(i1 + 1) - edge(i0)) * bw <= 1048576) i1++;
      const y0 = edge(i0), bh = edge(i1) - y0;
      if (bh <= 0 || bw <= 0) { i0 = i1; continue; }
      const img = g.createImageData(bw, bh), px = img.data;
      for (let i = i0; i < i1; i++) {
        const ya = edge(i) - y0, yb = edge(i + 1) - y0;
        for (let j = pj0; j < pj1; j++) {
          if (masked(r, i, j)) { rgba[4 * j + 3] = 0; continue; }
          const t = R ? wPlace(R, weight(r, l, h, i, j)) : (score(r, l, h, i, j) / amax + 1) / 2;
          const m = 3 * Math.min(255, Math.max(0, Math.floor(t * 256))); /* rgb() */
          rgba[4 * j] = map[m]; rgba[4 * j + 1] = map[m + 1]; rgba[4 * j + 2] = map[m + 2]; rgba[4 * j + 3] = 255;
        }
        for (let y = ya; y < yb; y++) {
          const o = 4 * y * bw;
          for (let j = pj0; j < pj1; j++) {
            const xa = edge(j), xb = edge(j + 1);
            if (rgba[4 * j + 3] === 0) { /* masked: the hatch tile's row y − ya from its left edge */
              const t = 4 * (y - ya) * hatch.n;
              for (let x = xa; x < xb; x++) { const s = t + 4 * (x - xa), d = o + 4 * (x - x0);
                px[d] = hatch.px[s]; px[d + 1] = hatch.px[s + 1]; px[d + 2] = hatch.px[s + 2]; px[d + 3] = 255; }
              continue;
            }
            for (let x = xa; x < xb; x++) { const d = o + 4 * (x - x0);
              px[d] = rgba[4 * j]; px[d + 1] = rgba[4 * j + 1]; px[d + 2] = rgba[4 * j + 2]; px[d + 3] = 255; }
          }
        }
      }
      g.putImageData(img, x0, y0);
      i0 = i1;
    }
    g.save();
    g.beginPath(); g.rect(x0, edge(pi0), bw, edge(pi1) - edge(pi0)); g.clip(); /* device pixels: before the scale */
    g.scale(dpr, dpr);
    if (c >= 40) {
      g.font = '12px "DejaVu Sans", sans-serif'; g.textAlign = 'center'; g.textBaseline = 'middle';
      for (let i = pi0; i < pi1; i++) for (let j = pj0; j < pj1; j++) {
        if (masked(r, i, j)) continue;
        const [R, G, B] = cellColour(r, l, h, i, j, lut, amax);
        const v = st.what === 'weights' ? weight(r, l, h, i, j) : score(r, l, h, i, j);
        g.fillStyle = 0.299 * R + 0.587 * G + 0.114 * B > 128 ? '#000' : '#fff';
        g.fillText(fmt(v, Math.min(2, q8(r, l, h, st.what).digits)), j * c + c / 2, i * c + c / 2);
      }
    }
    g.lineWidth = 2;
    if (st.query >= 0 && st.query < T) { g.strokeStyle = '#b45309'; g.strokeRect(1, st.query * c + 1, T * c - 2, c - 2); }
    if (r === run() && st.cell.i < T && st.cell.j < T) {
      const f = cellFrame(c, st.cell.i, st.cell.j);
      g.strokeStyle = '#ff00ff'; g.strokeRect(f.x + 1, f.y + 1, f.s - 2, f.s - 2);
    }
    g.restore();
  }

  /* The chosen cell (i, j)'s frame on a map of cells of c px: the cell's own edge when c >= FRAME_MIN, else a
   * square of FRAME_MIN px (CSS px) centred on the cell, the cell showing inside it. The 2 px line of a
   * (c − 2)-px square had no size at c = 2 (above about 186 tokens: a keyboard user stepping with the arrow
   * keys saw no marker) and covered a 3 or 4 px cell whole. At the map's edge the square's outer sides fall
   * off the canvas and its inner ones remain (moved inside the map, its line covered an edge cell). Returns
   * {x, y, s} in CSS px: the frame's left, top and size; its stroke (2 px) lies inside. */
  const FRAME_MIN = 12;
  function cellFrame(c, i, j) {
    const s = Math.max(c, FRAME_MIN), at = (n) => Math.round(n * c - (s - c) / 2);
    return { x: at(j), y: at(i), s: s };
  }
  /* how many cells on each side of the chosen cell its frame (cellFrame) can reach, and one for rounding */
  function frameReach(c) { return Math.ceil(Math.max(0, FRAME_MIN - c) / 2 / c) + 1; }

  /* the tooltip's parts (the tokens as userText) */
  function tipText(r, l, h, i, j) {
    const m = masked(r, i, j);
    return [(r.name ? r.name + '\n' : '') + 'layer ' + layerName(r, l) + ' head ' + h + '\nquery ', ...quoted(r, i), '\nkey ', ...quoted(r, j),
      '\nscore ' + fmtScore(r, l, h, score(r, l, h, i, j)) + q8(r, l, h, 'scores').note + (m ? ' (masked: \u2212\u221e before the softmax)' : '') +
      '\nweight ' + (m ? '0 (masked)' : fmtW(r, l, h, weight(r, l, h, i, j)) + q8(r, l, h, 'weights').note)];
  }

  function showTip(parts, x, y) {
    const tip = document.getElementById('av-tip');
    tip.replaceChildren(...runs(...parts)); tip.hidden = false;
    /* beside the pointer, inside the window: above it near the bottom, to its left near the right edge
     * (it went below the window's bottom edge for the lower rows of a tall map, and past the right edge
     * when wider than 260 px: a long token) */
    const w = tip.offsetWidth, h = tip.offsetHeight, W = document.documentElement.clientWidth, H = window.innerHeight;
    const left = x + 14 + w <= W - 4 ? x + 14 : x - 14 - w, top = y + 14 + h <= H - 4 ? y + 14 : y - 14 - h;
    tip.style.left = Math.max(4, Math.min(left, W - 4 - w)) + 'px';
    tip.style.top = Math.max(4, Math.min(top, H - 4 - h)) + 'px';
  }
  function hideTip() { document.getElementById('av-tip').hidden = true; }

  /* A panel of run k: its map of square cells, c px each, as wide as 560 px,
   * its share of 1100 px, and the view's width `room` beside its row labels
   * allow (in a 480 px window a 20-token map was 560 px wide: the page
   * scrolled sideways), at least 2 px a cell. */
  function matrixPanel(r, k, room) {
    const l = st.layer, h = Math.min(st.head, r.H - 1), T = r.T;
    const fit = (c) => room > 0 ? room - rowLabelsWidth(r, labelStep(c)) - 2 : Infinity;
    let c = Math.max(2, Math.min(44, Math.floor(Math.min(560, 1100 / DATA.runs.length) / T)));
    while (c > 2 && c * T > fit(c)) c--; /* the labels thin (one per `step` rows) as the cells shrink */
    const out = el('div', { class: 'panel' });
    out.append(el('h2', { text: (r.name ? r.name + ' \u00b7 ' : '') + layerOf(r, l) + ' \u00b7 head ' + h + ' of ' + r.H }),
      el('p', { class: 'desc', text: r.desc }));
    if (!stored(r, l, h)) { out.append(el('p', { class: 'note', text: 'This layer and head are not stored in the page (size limit).' })); return out; }
    const amax = st.what === 'scores' ? scoreRange(r, l) : 1;
    const cv = el('canvas', { tabindex: '0', 'data-run': String(k), 'data-cell': String(c), role: 'img',
      'aria-label': (st.what === 'weights' ? 'attention weights' : 'scores') + ' of layer ' + layerName(r, l) + ' head ' + h +
        '; arrow keys move, Home and End to the row\u2019s ends, Ctrl+Home and Ctrl+End to the map\u2019s corners, ' +
        'Page Up and Page Down a screenful of rows, Enter opens the cell view' });
    drawMatrix(cv, r, l, h, c, amax);
    const at = (ev) => { const b = cv.getBoundingClientRect();
      return [Math.floor((ev.clientY - b.top) / c), Math.floor((ev.clientX - b.left) / c)]; };
    cv.addEventListener('mousemove', (ev) => { const [i, j] = at(ev);
      if (i >= 0 && j >= 0 && i < T && j < T) showTip(tipText(r, l, h, i, j), ev.clientX, ev.clientY); else hideTip(); });
    cv.addEventListener('mouseleave', hideTip);
    cv.addEventListener('click', (ev) => { const [i, j] = at(ev); if (i < T && j < T) openCell(k, i, j); });
    cv.addEventListener('keydown', (ev) => keyMatrix(ev, cv, r, k, l, h, c, amax));
    cv.addEventListener('blur', hideTip);
    const step = labelStep(c), lab = (i) => mxLabel(r, i, step);
    const rows = el('div', { class: 'rows' }), cols = el('div', { class: 'cols' });
    for (let i = 0; i < T; i += step) {
      /* every label has a whole group's room (step·c >= 13 px) across its line: a thinned map's last group
       * may have fewer rows (205 tokens, one label in 7: rows 203 and 204, 4 px, which cut "203 w203" to a
       * sliver), so its label spills past the map's end, the negative margin keeping the map's size */
      const px = step * c, spill = px - Math.min(step, T - i) * c;
      rows.append(el('span', { class: step > 1 ? 'thin' : '', text: lab(i), title: r.tokens[i], lang: langOf(r.tokens[i]),
        style: 'height:' + px + 'px;max-width:10em' + (spill ? ';margin-bottom:-' + spill + 'px' : '') }));
      cols.append(el('span', { class: upright(lab(i), px) ? 'up' : '', text: lab(i), title: r.tokens[i], lang: langOf(r.tokens[i]),
        style: 'width:' + px + 'px' + (spill ? ';margin-right:-' + spill + 'px' : '') }));
    }
    out.append(el('div', { class: 'axis', text: 'query (row) \u00d7 key (column)' }),
      el('div', { class: 'mx' }, rows, cv, el('span'), cols), colourBar(amax, null, false, scoreDigits(r, l), wRange(r, l, h)));
    return out;
  }

  /* A key label of Chinese, Japanese or Korean characters only stays
   * upright when it fits across its column of px pixels (12 px a
   * character): vertical CJK text is set upright (UAX #50), and the
   * rotated writing of the other labels would turn it upside down. As the
   * PNG's key labels (render/plot.c label_upright). */
  const WIDE = /^[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Bopomofo}\u3000-\u303F\uFF01-\uFF60\uFFE0-\uFFE6]+$/u;
  function upright(text, px) {
    return WIDE.test(text) && [...text].length * 12 + 2 <= px;
  }

  /* A key in map cv of run k ((l, h), cells of c px): the arrow keys move the chosen cell one cell, Home and End
   * to the first and the last key of its row, Ctrl+Home and Ctrl+End (Cmd on a Mac) to the map's first and last
   * cell, PageUp and PageDown a screenful of rows (the rows of c px the window shows below the sticky bar, its
   * height less the bar's, at least 1), as a spreadsheet and the ARIA grid pattern (https://www.w3.org/WAI/ARIA/apg/patterns/grid/): a
   * keyboard user on a 1,000-token map could only step one cell at a time. Enter or Space opens the cell view.
   * The chosen cell is scrolled into the window below the bar, and its tooltip shown. */
  function keyMatrix(ev, cv, r, k, l, h, c, amax) {
    if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); openCell(k, st.cell.i, st.cell.j); return; }
    const T = r.T, ctrl = ev.ctrlKey || ev.metaKey, nav = document.querySelector('nav');
    const page = Math.max(1, Math.floor((window.innerHeight - nav.offsetHeight) / c)), bar = Math.max(0, nav.getBoundingClientRect().bottom);
    const d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], PageUp: [-page, 0], PageDown: [page, 0],
      Home: ctrl ? [-T, -T] : [0, -T], End: ctrl ? [T, T] : [0, T] }[ev.key];
    if (!d) return;
    ev.preventDefault();
    /* the old and the new chosen cell, with the cells their frames can reach (cellFrame: a small cell's frame
     * is larger than the cell); a map that was not the chosen one has no frame to clear but is drawn whole,
     * so is any other run's map */
    const was = st.run === k ? { i: st.cell.i, j: st.cell.j } : null;
    st.run = k;
    st.cell.i = Math.min(T - 1, Math.max(0, st.cell.i + d[0]));
    st.cell.j = Math.min(T - 1, Math.max(0, st.cell.j + d[1]));
    if (!was) drawMatrix(cv, r, l, h, c, amax);
    else {
      const m = frameReach(c);
      for (const p of [was, st.cell]) drawMatrix(cv, r, l, h, c, amax, { i0: p.i - m, i1: p.i + m + 1, j0: p.j - m, j1: p.j + m + 1 });
    }
    let b = cv.getBoundingClientRect();
    /* the chosen cell into the window (PageDown and End leave it), below the bar, with a cell's margin */
    const top = b.top + st.cell.i * c, left = b.left + st.cell.j * c, W = document.documentElement.clientWidth;
    const dy = top < bar + c ? top - bar - c : top + 2 * c > window.innerHeight ? top + 2 * c - window.innerHeight : 0;
    const dx = left < c ? left - c : left + 2 * c > W ? left + 2 * c - W : 0;
    if (dx || dy) { window.scrollBy(dx, dy); b = cv.getBoundingClientRect(); }
    showTip(tipText(r, l, h, st.cell.i, st.cell.j), b.left + (st.cell.j + 1) * c, b.top + (st.cell.i + 1) * c);
  }

  /* The colour bar under a view: the weights (0 .. 1 on the chosen colour map) or the scores (RdBu_r,
   * centred on 0, ±amax), as `what` says (the matrix view's choice unless given), and the swatch of a
   * masked cell as the view draws it: hatched, or flat grey in the model view's thumbnails, with the
   * figures' words: "masked (score −∞, weight 0)" under weights, "masked (score −∞)" under scores. */
  function colourBar(amax, what, flatMask, digits, R) {
    const w = what || st.what;
    const cv = el('canvas', { width: '200', height: '12', 'aria-hidden': 'true' });
    const g = cv.getContext('2d'), lut = w === 'weights' ? LUT[st.cmap] : LUT.RdBu_r;
    for (let x = 0; x < 200; x++) { const [R, G, B] = rgb(lut, (x + 0.5) / 200); g.fillStyle = 'rgb(' + R + ',' + G + ',' + B + ')'; g.fillRect(x, 0, 1, 12); }
    const d = Math.min(2, digits === undefined ? 2 : digits); /* ±amax: no finer than an 8-bit step */
    /* the weights' ends and words as the figures' colour bar (wRange): "0 … 0.2", on a log scale its log10 units,
     * "−3.70 … −0.70", the title giving the range as weights */
    /* ±amax, one score, by fmtScore's rule in d digits: with --precision 0 (`--heads 1 "I"`, a score of 0.2377) the
     * bar read "0 … 0" where the figure's ticks go from −0.2 to 0.2 */
    const end = (x) => fixedOrSci(x, (a) => fmt(a, d), Math.max(d, 1)); /* d's digits: --precision 9 gave
     * "−1.992509933e−03", ten significant digits for an end the fixed form holds to two decimals */
    const lo = w === 'weights' ? (R.log ? fmt(R.llo, 2) : '0') : end(-amax), hi = w === 'weights' ? (R.log ? fmt(R.lhi, 2) : g3(R.top)) : end(amax);
    return el('div', { class: 'cbar', 'data-what': w }, el('span', { text: lo, 'data-role': 'cbar-lo' }), cv,
      el('span', { text: hi, 'data-role': 'cbar-hi' }),
      el('span', { 'data-role': 'cbar-title', text: (w === 'weights' ? ' ' + wWords(R) : ' score (RdBu_r, centred on 0)') + '   ' }),
      /* the swatch and its words wrap as one (a 320 px window: the bar made the page 370 px wide) */
      el('span', { class: 'mk' }, el('span', { class: flatMask ? 'legend-mask flat' : 'legend-mask' }), w === 'weights' ? ' masked (score \u2212\u221e, weight 0)' : ' masked (score \u2212\u221e)'));
  }

  function openCell(k, i, j) {
    st.run = k; st.cell = { i: i, j: j }; st.query = i;
    hideTip();
    showView('cell');
  }

  // ------------------------------------------------------------------ model view
  function modelView(box) {
    const r = run(), px = 64;
    box.append(el('p', { class: 'desc', text: 'Every head of every layer (a row per layer) of ' + (r.name || 'this run') +
      ', attention weights on the same colour map. Click a thumbnail (or press Enter on it) to open that head in the other views.' }));
    // one line per layer: its label, then its heads, which wrap to more lines when they are wider than
    // the window (32 heads are over 2,200 px), each captioned, so the page never scrolls sideways
    const grid = el('div', { class: 'mv' });
    const items = [];
    for (let l = 0; l < r.L; l++) {
      const heads = el('div', { class: 'mvh' });
      grid.append(el('div', { class: 'mvl' }, el('span', { class: 'hl', text: 'layer ' + layerName(r, l) }), heads));
      for (let h = 0; h < r.H; h++) {
        const b = el('button', { class: l === st.layer && h === st.head ? 'cur' : '', 'data-l': String(l), 'data-h': String(h),
          'aria-label': 'layer ' + layerName(r, l) + ' head ' + h, tabindex: l === st.layer && h === st.head ? '0' : '-1',
          onclick: () => { st.layer = l; st.head = h; if (st.shown.size <= 1) st.shown = new Set([h]); showView('matrix'); } });
        b.append(stored(r, l, h) ? thumb(r, l, h, px) : el('span', { class: 'hl', text: 'not stored' }));
        items.push(b);
        heads.append(el('div', { class: 'mvc', style: 'width: ' + (px + 6) + 'px' }, el('span', { class: 'hl', text: 'head ' + h }), b));
      }
    }
    /* the thumbnails' colour bar, as the matrix view and every figure have one (the model view had none);
     * weights always, whatever the matrix view shows; masked cells are flat grey there */
    box.append(grid, colourBar(1, 'weights', true, undefined, wRange(r, -1, -1)));
    gridKeys(items, r.H);
  }

  function gridKeys(items, cols) {
    items.forEach((b, k) => b.addEventListener('keydown', (ev) => {
      const d = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -cols, ArrowDown: cols }[ev.key];
      if (!d || k + d < 0 || k + d >= items.length) return;
      ev.preventDefault();
      items[k].setAttribute('tabindex', '-1'); items[k + d].setAttribute('tabindex', '0'); items[k + d].focus();
    }));
  }

  function thumb(r, l, h, px) {
    const T = r.T, cv = el('canvas', { width: String(T), height: String(T) });
    cv.style.width = px + 'px'; cv.style.height = px + 'px'; cv.style.imageRendering = 'pixelated';
    const g = cv.getContext('2d'), img = g.createImageData(T, T), lut = LUT[st.cmap], R = wRange(r, -1, -1);
    for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
      const o = 4 * (i * T + j), c = masked(r, i, j) ? [217, 217, 217] : rgb(lut, wPlace(R, weight(r, l, h, i, j)));
      img.data[o] = c[0]; img.data[o + 1] = c[1]; img.data[o + 2] = c[2]; img.data[o + 3] = 255;
    }
    g.putImageData(img, 0, 0);
    return cv;
  }

  // ------------------------------------------------------------------ cell view
  function cellView(box) {
    const r = run(), l = st.layer, h = Math.min(st.head, r.H - 1);
    const i = Math.min(st.cell.i, r.T - 1), j = Math.min(st.cell.j, r.T - 1);
    const pick = (label, cur, set) => {
      const s = el('select', { 'aria-label': label });
      r.tokens.forEach((t, n) => s.append(el('option', { value: String(n), text: n + ' ' + t, lang: langOf(t) })));
      s.value = String(cur);
      s.onchange = () => { set(Number(s.value)); render(); document.querySelector('#view-cell select[aria-label="' + label + '"]').focus(); };
      return el('label', {}, label + ' ', s, ' ');
    };
    box.append(el('p', {}, pick('query', i, (v) => { st.cell.i = v; st.query = v; }), pick('key', j, (v) => { st.cell.j = v; })),
      el('h2', {}, ...runs((r.name ? r.name + ' \u00b7 ' : '') + 'layer ' + layerName(r, l) + ', head ' + h + ': query ', ...quoted(r, i),
        ' \u2192 key ', ...quoted(r, j), '   (d_k = ' + r.D + ')')));
    if (!stored(r, l, h)) { box.append(el('p', { class: 'note', text: 'This layer and head are not stored in the page (size limit).' })); return; }
    const cv = el('div', { class: 'cv' });
    if (r.Q) dotProduct(cv, r, l, h, i, j);
    else cv.append(el('p', { class: 'note', text: 'q, k and v are not stored in this page (its numbers are over the size limit), ' +
      'so the dot product and the weighted sum are left out; the row below is 8-bit.' }));
    softmaxRow(cv, r, l, h, i, j);
    /* a masked cell ends where --explain's does (teach.c explain_cell), at "contributes nothing": its weighted-sum
     * section read "A·v_2 = 0.0000 × v_2 = [0.0000 …]" and "has weight 0.0%" under that line (a teacher's pass) */
    if (r.Q && !masked(r, i, j)) weightedSum(cv, r, l, h, i, j);
    /* a <pad> query's row is not masked, and its output is not used: --explain's note (teach.c pad_query_note);
     * the page said nothing on row 5 of --pad-to 6 */
    if (i >= nReal(r))
      cv.append(el('p', { class: 'note', 'data-role': 'pad-query', text: '(query ' + i + ' is <pad>: the key padding mask hides ' +
        '<pad> keys, not <pad> queries; a <pad> row still sees the real words, as in PyTorch, and its output o_' + i +
        ' is simply ignored later)' }));
    box.append(cv);
  }
  /* the run's tokens before --pad-to's <pad>s (html.c run_json: n_real) */
  function nReal(r) { return r.n_real > 0 && r.n_real < r.T ? r.n_real : r.T; }
  /* why cell (i, j) is masked, in --explain's words (teach.c explain_cell): the causal mask first, then a <pad>
   * key, else --attn-mask's file */
  function maskReason(r, i, j) {
    if (r.causal && j > i) return 'the causal mask hides keys after the query (j > i)';
    if (j >= nReal(r)) return 'this key is <pad> (key padding mask)';
    return 'the --attn-mask file masks this pair';
  }

  /* "   (= weights.npy[h, i, j])": where --dump keeps the number; (L, H, T, T) files for models */
  function dumpRef(r, file, l, h, i, j) {
    return file ? '   (= ' + file + '[' + (r.files_have_layers ? l + ', ' : '') + [h, i, j].join(', ') + '])' : '';
  }
  /* How a vector's entries print, one notation for the whole vector as --explain's (teach.c vec_format, trace.h
   * av_numpy_sci and av_numpy_digits, numpy's rule): scientific with PREC digits ("1.4851e\u221218") when its
   * largest |entry| is 1e8 or more or below 1e-4 but not 0, else fixed with PREC digits, more when the largest
   * would print as 0. The cell view of a --no-scale run read "A\u00b7v_1 = 4.05e\u221218 \u00d7 v_1 = [0.0000
   * 0.0000 \u2026]", where --explain prints "[ 1.4851e-18 -2.0348e-18 \u2026]" (a teacher's pass). prec: the
   * digits in place of PREC (the weighted sum's, when its weight shows more). */
  function vecFormat(x, prec) {
    let big = 0, d = prec === undefined ? PREC : prec;
    for (const v of x) if (Math.abs(v) > big && Math.abs(v) < Infinity) big = Math.abs(v);
    if (big >= 1e8 || (big > 0 && big < 1e-4)) return (v) => sci(v, d);
    while (big > 0 && Number(fixed(big, d)) === 0) d++;
    return (v) => fmt(v, d);
  }
  function vecText(x, prec) { const f = vecFormat(x, prec); return '[' + Array.from(x, f).join('  ') + ']'; }
  /* a vector: all of it up to 16 numbers; beyond, the first 6 and last 2, and all of it on demand */
  function vecEl(x, role, prec) {
    const full = el('span', { class: 'vec', text: vecText(x, prec) });
    if (role) full.setAttribute('data-role', role);
    if (x.length <= 16) return full;
    const a = Array.from(x, vecFormat(x, prec));
    const short = '[' + a.slice(0, 6).join('  ') + '  \u2026  ' + a.slice(-2).join('  ') + ']   (' + x.length + ' numbers)';
    return el('details', { class: 'vecbox' }, el('summary', { class: 'vec', text: short }), full);
  }

  function dotProduct(cv, r, l, h, i, j) {
    const q = vec(r, r.Q, l, h, i), k = vec(r, r.K, l, h, j);
    /* with RoPE, q and k are the rotated vectors S is made of, as --explain says (the page said nothing: a teacher's pass) */
    const rot = r.rope ? '   (after RoPE)' : '';
    cv.append(el('p', { class: 'eq' }, 'q_' + i + ' = Q[' + layerName(r, l) + ', ' + h + ', ' + i + ', :] = ', vecEl(q, 'q'), rot),
      el('p', { class: 'eq' }, 'k_' + j + ' = K[' + layerName(r, l) + ', ' + h + ', ' + j + ', :] = ', vecEl(k, 'k'), rot));
    const tb = el('table', {}, el('tr', {}, ...['d', 'q[d]', 'k[d]', 'q[d]\u00b7k[d]', 'partial sum'].map((t) => el('th', { text: t }))));
    let sum = 0;
    const qf = vecFormat(q), kf = vecFormat(k); /* the columns as the lines above print q and k */
    const places = (t) => (t.includes('.') ? t.length - t.indexOf('.') - 1 : 0);
    /* one unit of the last digit of a number shown, fixed or scientific */
    const unitOf = (t) => { const m = t.match(/e([+\u2212]\d+)$/);
      return Math.pow(10, -places(m ? t.slice(0, m.index) : t) + (m ? num(m[1]) : 0)); };
    /* the partial sums are the sums in double, as --explain's (teach.c explain_dot): one notation for the column
     * (vecFormat of them all, numpy's), and a sum that is not 0 but would print as 0 there one of its own. The
     * products keep --precision digits, as the vectors above (taking more until the rounded products added up to
     * every partial sum gave the default page 5 to 7 digits beside 4-digit vectors, too noisy for a teaching figure),
     * so down the d_k rows they may add up to more or less than the partial sum, by up to half a unit of the last
     * digit a row (14 units at row 221 of a 256-row column at the default 4 digits): the line under the table says
     * so in a learner's words (--explain's few terms take digits instead, teach.c explain_dot). */
    const parts = [];
    for (let d = 0, acc = 0; d < r.D; d++) parts.push(acc += q[d] * k[d]);
    const sf = vecFormat(parts), st = parts.map((x) => (x !== 0 && num(sf(x)) === 0 ? vecFormat([x])(x) : sf(x)));
    /* a product that is not 0 but would print as 0 takes its own notation, as such a partial sum: with --precision 1
     * (`--no-scale -d 64 --heads 2 "我爱深度学习 and I love deep learning"`, cell (0, 0)) row 1 read "−0.3  −0.1  0.0" */
    const prod = (x, e) => (x !== 0 && num(fmt(x, e)) === 0 ? vecFormat([x], e)(x) : fmt(x, e));
    for (let d = 0; d < r.D; d++) {
      const p = q[d] * k[d], pt = prod(p), unit = /e/.test(pt) || places(pt) ? unitOf(pt) + 1e-12 : 0.5 + 1e-12;
      sum += p;
      /* fixed-point factors take one more digit at a time (up to 20 after the point: a float32 factor is exact in
       * fewer; at --precision 9 and 10 a cap of 9 left 680 and 700 of 8192 rows off by more than a unit, a review of
       * the change) until the product of the two
       * shown gives the product shown within one unit of its last digit (half a unit for a whole number), the bound
       * --explain's terms keep (teach.c explain_dot), so the row checks on a calculator as the softmax row's division
       * does: with --precision 0 (`--causal --heads 2 "I love deep learning"`, head 0, query 2, key 3) row 2 read
       * "0  3  2" (q[2] = 0.5, k[2] = 3.3; --explain writes its terms "(0.5)(3.3)") and row 4 "3  0  1" (a
       * teacher's pass); and while a factor shows 0 beside a product that is not 0 ("0  0  −0.01", a product
       * that takes its own notation, prod) */
      let qt = qf(q[d]), kt = kf(k[d]);
      if (!/e/.test(qt + kt))
        for (let e = Math.max(places(qt), places(kt)) + 1; e <= 20 && (Math.abs(num(qt) * num(kt) - num(pt)) > unit || (p !== 0 && num(qt) * num(kt) === 0)); e++) {
          qt = fmt(q[d], e);
          kt = fmt(k[d], e);
        }
      tb.append(el('tr', {}, ...[String(d), qt, kt, pt, st[d]].map((t) => el('td', { class: 'num', text: t }))));
    }
    const s = score(r, l, h, i, j);
    cv.append(el('h2', { text: 'q\u00b7k = \u03a3_d q[d]\u00b7k[d]' }), el('div', { class: 'scroll' }, tb),
      el('p', { class: 'desc', 'data-role': 'dot-rounding', text: 'The partial sums add the products before rounding: the rounded ' +
        'products shown may add up to a little more or less, by up to half a unit of the last digit per row.' }),
      el('p', { class: 'eq' }, 'q\u00b7k = ', el('span', { 'data-role': 'dot', text: g9(sum) })),
      /* without the scale the stored score is q\u00b7k as float32 sums it, as --explain says and prints it (teach.c
       * explain_cell): the line gave the double sum again, "S = q\u00b7k = 30.7796686" under --explain's "S = q\u00b7k in float32
       * (the sum above is in double) = 30.7796688" */
      el('p', { class: 'eq', text: r.unscaled ? 'no \u00f7\u221ad_k (' + (r.no_scale_why || '--no-scale') + '): S = q\u00b7k in float32 (the sum above is in double) = ' + g9(s)
        : '\u00f7\u221ad_k: ' + g9(sum) + ' / \u221a' + r.D + ' = ' + g9(sum / Math.sqrt(r.D)) + '   (computed here in double precision)' }),
      el('p', { class: 'eq' }, 'stored score S[' + [layerName(r, l), h, i, j].join(', ') + '] = ', el('strong', { 'data-role': 'score', text: fmtScore(r, l, h, s) }),
        q8(r, l, h, 'scores').note, dumpRef(r, r.scores_file, l, h, i, j),
        masked(r, i, j) ? ' (masked: \u2212\u221e before the softmax)' : '')); /* as the matrix tooltip says it */
  }

  function softmaxRow(cv, r, l, h, i, j) {
    const fS = (x) => fmtS(r, l, h, x), fW = (x) => fmtW(r, l, h, x), wNote = q8(r, l, h, 'weights').note;
    let mx = -Infinity;
    for (let n = 0; n < r.T; n++) if (!masked(r, i, n)) mx = Math.max(mx, score(r, l, h, i, n));
    let tot = 0;
    for (let n = 0; n < r.T; n++) if (!masked(r, i, n)) tot += Math.exp(score(r, l, h, i, n) - mx);
    const cell = 'A[' + [layerName(r, l), h, i, j].join(', ') + '] = ';
    /* a masked cell has no division of its own: its row and the row max and sum take the digits that make the row's
     * largest weight check, as the line of that key would. With --precision 0 (`--causal --heads 2 "I love deep
     * learning"`, query 2, key 3) the row read "1  0  1  0.82" and "row sum = 1" for a sum of 1.2128, exp(0) / 1
     * giving 1, not 0.82, and key 1's exp(S \u2212 max) of 0.091 "0" beside its weight 0.075 (a teacher's pass). */
    let ref = j;
    if (masked(r, i, j)) for (let n = 0; n < r.T; n++) if (!masked(r, i, n) && (ref === j || weight(r, l, h, i, n) > weight(r, l, h, i, ref))) ref = n;
    const a = masked(r, i, ref) ? 0 : weight(r, l, h, i, ref);
    /* the max, the sum and the exponent take the weight's digits when it shows more (fixed, fmtW), then more until
     * the division of the numbers shown gives the weight shown, so it checks on a calculator: with --precision 0 it
     * read "exp(0) / 2 = 0.48" (1 / 2 is 0.5; the sum is 2.0776), and an 8-bit page, whose scores keep 0 digits at a
     * step over 0.1, "exp(\u22121) / 1 = 0.17" (the 8-bit scores give exp(\u22121.45) / 1.39; a teacher's pass). An 8-bit
     * weight is stored apart from the 8-bit scores, each off by up to half a step, so their quotient need not give
     * it at any digits: after 2 more digits the line gives the quotient and, beside it, the weight the page stores. */
    const at = fW(a), sd = q8(r, l, h, 'scores').digits, arg = score(r, l, h, i, ref) - mx;
    const ad = !/e/.test(at) && at.includes('.') ? at.length - at.indexOf('.') - 1 : 0;
    const shownQuotient = (d) => Math.exp(num(fmt(arg, d))) / num(fmt(tot, d));
    let dg = Math.max(sd, ad);
    const top = DATA.mode === 0 ? 9 : dg + 2;
    for (let d = dg; d <= top; d++) if (fW(shownQuotient(d)) === at) { dg = d; break; }
    const fL = (x) => (dg > sd ? fmt(x, dg) : fS(x));
    /* S − max and exp(S − max) as the line below writes its exponent and the numbers it divides (fL), so the row
     * checks like the line: an 8-bit --no-scale page kept the scores' 0 digits there, "−1" and "0" in the row of a
     * line "exp(−0.53) / 1.87 = 0.31", and a float32 one at --precision digits read "−11.5424" and "0.0000" beside
     * "exp(−11.54241)" and a weight of 6.3311e−06 (a teacher's pass). The exp(S − max) column is one array in
     * one notation, as numpy prints one and --explain's table (teach.c: scientific for all when a number that is
     * not 0 would print as 0, av_numpy_sci's 1e-4): scientific, with --precision digits, 1 at least, when one of
     * its numbers is below 1e-4 on a float32 page or would print as 0 in fL's digits. On an 8-bit page those digits
     * are the ones the S − max beside it supports, one fewer than its dg: an exponent shown to dg digits is within
     * half a unit of them, 0.5·10^−dg, so its exp is within that fraction of itself, up to 5·10^−dg on a mantissa
     * below 10, half a unit of the (dg − 1)th digit. "−5.71 | 3.31e−03" gave a digit the −5.71 does not hold
     * (exp(−5.715) = 3.296e−03, exp(−5.705) = 3.329e−03): now 3.3e−03. Only per column, not per table as
     * --explain: S[i,j] is the score as the matrix view and its 8-bit note print it (scientific by its own column,
     * below), A[i,j] the weight as the line below and the tooltip (fmtW), and S − max the line's exponent.
     * With --precision 1 --no-scale (`-d 64 --heads 2 "我爱深度学习 and I love deep learning"`, query 0) the column
     * read "0.0" for e^−4.326 = 0.0132 beside "9.7e−06", and an 8-bit page "−5.31 | 0.00" (a teacher's pass). */
    let eSci = false;
    for (let n = 0; n < r.T; n++) {
      const x = masked(r, i, n) ? 0 : Math.exp(score(r, l, h, i, n) - mx);
      if (x > 0 && ((DATA.mode === 0 && x < 1e-4) || num(fL(x)) === 0)) eSci = true;
    }
    const fE = (x) => (eSci ? sci(x, DATA.mode === 0 ? Math.max(PREC, 1) : Math.max(dg - 1, 0)) : fL(x));
    /* the S[i,j] column by the same rule on a float32 page: scientific with --precision digits, 1 at least, when
     * one of its scores that is not 0 is below 1e-4 or would print as 0 in fS's digits. With --precision 1
     * (`--heads 4 "I love deep learning"`, head 1, query 1) it read "0.0" for a score of 0.0287 (--explain
     * 0.028732) in a column of "−0.1 −2.8 0.0 −0.3". An 8-bit page keeps fS: its score is no finer than its step,
     * and "0 (8-bit: ±0.6)" is what it can say. */
    let sSci = false;
    for (let n = 0; n < r.T; n++) if (!masked(r, i, n) && sciScore(r, l, h, score(r, l, h, i, n))) sSci = true;
    const fSc = (x) => (sSci ? sci(x, Math.max(PREC, 1)) : fS(x));
    /* the S − max column by that rule too, on a float32 page: scientific when one of its numbers that is not 0 is below
     * 1e-4 or would print as 0 in fL's digits (an 8-bit one cannot: its S − max are whole steps, and dg digits show
     * one). With --precision 0 --no-scale -d 64 --heads 2 on "the quick brown fox jumps over the lazy dog and then the
     * dog sleeps" (head 0, query 1) it read "0.0" for −0.0287 beside "0.0" for the max and an exp(S − max) of
     * "9.7e−01". Its digits are --precision's, 1 at least, or more, so that its largest number keeps the dg digits
     * after the point that fL gave it: the exp(S − max) beside is worked from it and the line's exponent is one of
     * them ("−12.5" as "−1.25e+01", not "−1.2e+01", whose exp is 6e−06 beside 3.6e−06). */
    let dSci = false, big = 0;
    for (let n = 0; n < r.T; n++) {
      const x = masked(r, i, n) ? 0 : Math.abs(score(r, l, h, i, n) - mx);
      if (x > big) big = x;
      if (hides(x, fL)) dSci = true;
    }
    const expOf = (t) => num(t.slice(t.indexOf('e') + 1)), dX = big > 0 ? expOf(sci(big, 17)) : 0;
    let dP = Math.max(PREC, 1, dg + dX);
    if (expOf(sci(big, dP)) > dX) dP++; /* 9.97 to 1 digit read 1.0e+01 for a fixed 9.97 */
    const fD = (x) => (dSci ? sci(x, dP) : fL(x));
    const tb = el('table', {}, el('tr', {}, ...['j', 'key', 'S[i,j]' + q8(r, l, h, 'scores').note, 'S \u2212 max', 'exp(S \u2212 max)',
      'A[i,j]' + wNote].map((t) => el('th', { text: t }))));
    for (let n = 0; n < r.T; n++) {
      const m = masked(r, i, n), s = score(r, l, h, i, n);
      /* a masked key's exp(−∞) and weight are exactly 0, as --explain's row writes them ("0.0000" read as a rounded
       * number) */
      const cells = [String(n), r.tokens[n], m ? '\u2212\u221e (masked)' : fSc(s), m ? '\u2212\u221e' : fD(s - mx),
        m ? '0' : fE(Math.exp(s - mx)), m ? '0' : fW(weight(r, l, h, i, n))];
      const tr = el('tr', { class: n === j ? 'this' : '', 'data-j': String(n) });
      cells.forEach((t, c) => tr.append(el('td', { class: c === 1 ? '' : 'num', text: t, 'data-role': ['', '', 'row-score', '', '', 'row-weight'][c] || null,
        lang: c === 1 ? langOf(t) : null })));
      tb.append(tr);
    }
    cv.append(el('h2', {}, ...runs('the whole row ' + i + ' of S (query \u201c', userText(r.tokens[i]), '\u201d) and its softmax')),
      el('div', { class: 'scroll' }, tb));
    if (mx === -Infinity) { /* no row sum to divide by: the rule --explain states, not exp(−∞) / 0 */
      cv.append(el('p', { class: 'note', 'data-role': 'all-masked', text: 'every key of this row is masked: softmax of all ' +
        '\u2212\u221e is undefined, so the rule gives all-zero weights and a zero output row (never NaN).' }),
      el('p', { class: 'eq' }, cell, el('strong', { 'data-role': 'weight', text: '0' }), ' (the rule, not a division)',
        dumpRef(r, r.weights_file, l, h, i, j)));
      return;
    }
    /* the row max, one score, by fmtScore's rule in fL's digits: with --precision 0 --causal --heads 4 ("I love deep
     * learning", head 3, query 0) it read "row max = 0" for 0.3837 under the S[i,j] column's "3.8e−01" */
    const fM = (x) => fixedOrSci(x, fL, Math.max(PREC, 1));
    cv.append(el('p', { class: 'eq', text: 'row max = ' + fM(mx) + (dg > sd ? q8(r, l, h, 'scores', dg).note : '') +
      '   row sum \u03a3_j exp(S \u2212 max) = ' + fL(tot) }));
    /* a masked cell: why, and that it adds nothing, as --explain; it read "A[0, 0, 1, 5] = exp(\u2212\u221e) / 1.1705 =
     * 0.0000" under the stored score 1.9405, with no word of the mask */
    if (masked(r, i, j)) {
      cv.append(el('p', { class: 'eq', 'data-role': 'masked' }, 'this cell is masked: ' + maskReason(r, i, j) +
        ', so S = \u2212\u221e, exp(\u2212\u221e) = 0 and ' + cell, el('strong', { 'data-role': 'weight', text: '0' }), '.'),
      el('p', { class: 'eq', text: 'key ' + j + ' contributes nothing to the output of query ' + i + '.' }));
      return;
    }
    /* an exponent that is not 0 but that fL's digits do not say (a near tie with the max) as the S − max column beside
     * writes it, scientific, and the quotient of the numbers shown with it: with --precision 2 --heads 8 on "a b c d e
     * f g h i j k l" (head 7, query 8, key 11) the line read "exp(0.00) / 4.26 = 0.23" for exp(−0.00176) beside the
     * column's "−1.76e−03" (--explain: "exp(-0.00176477432)") */
    /* and as the column writes it whenever the column is scientific (dSci, which an exponent that hides sets): it read
     * "exp(−0.85)" beside the column's "−8.47e−01" (a review) */
    const argT = fD(arg), quot = dSci ? Math.exp(num(argT)) / num(fL(tot)) : shownQuotient(dg);
    const line = cell + 'exp(' + argT + ') / ' + fL(tot) + ' = ';
    if (fW(quot) === at) cv.append(el('p', { class: 'eq' }, line, el('strong', { 'data-role': 'weight', text: at }), wNote, dumpRef(r, r.weights_file, l, h, i, j)));
    else cv.append(el('p', { class: 'eq' }, line + fW(quot) + (DATA.mode === 0 ? '; the page stores ' : ' from the 8-bit scores (each off by up to \u00b1' +
      q8(r, l, h, 'scores').bound + '); the page stores the weight apart: '), el('strong', { 'data-role': 'weight', text: at }), wNote, dumpRef(r, r.weights_file, l, h, i, j)));
  }

  /* a weight as --explain's sentence gives it in percent: with the digits that keep it off 0 % and 100 %, and
   * under 0.05 % in two significant digits ("has weight 0.0%" for 2.4e-13, "100.0%" for 0.999998808: a
   * learner's pass), as C's "%.2g" writes them: fixed down to 0.0001 %, scientific only below (its exponent
   * as fmtW's, "6.7e\u221205"). The page wrote every one scientific: "1.1e\u22123%" where --explain says
   * "0.0011%" (a teacher's pass, a weight of 1.1e-5). */
  function percentOf(w) {
    if (w > 0 && 100 * w < 0.05) {
      const e = sci(100 * w, 1), x = Number(e.slice(e.indexOf('e') + 1).replace('\u2212', '-')); /* %g's exponent X */
      if (x < -4) return e.replace('.0e', 'e');
      return fixed(100 * w, 1 - x).replace(/\.?0+$/, ''); /* P − 1 − X digits, trailing zeros dropped */
    }
    let s = fixed(100 * w, 1);
    for (let dp = 2; dp <= 9 && w < 1 && Number(s) >= 100; dp++) s = fixed(100 * w, dp);
    return s;
  }
  function weightedSum(cv, r, l, h, i, j) {
    const D = r.D, o = new Float64Array(D), vj = vec(r, r.V, l, h, j), a = masked(r, i, j) ? 0 : weight(r, l, h, i, j);
    for (let n = 0; n < r.T; n++) {
      if (masked(r, i, n)) continue;
      const w = weight(r, l, h, i, n), v = vec(r, r.V, l, h, n);
      for (let d = 0; d < D; d++) o[d] += w * v[d];
    }
    /* v_j and A·v_j take the weight's digits when it shows more (fixed), as --explain's line (teach.c vd): with
     * --precision 0 "A·v_0 = 0.48 × v_0 = [0 2 1 …]" went on "= [0 1 0 …]", 0.48 × 1 printing as 0 */
    const at = fmtW(r, l, h, a), wd = /e/.test(at) || !at.includes('.') ? PREC : Math.max(PREC, at.length - at.indexOf('.') - 1);
    cv.append(el('h2', { text: 'weighted sum of v: o_' + i + ' = \u03a3_j A[i,j]\u00b7v_j' }),
      el('p', { class: 'eq' }, 'v_' + j + ' = ', vecEl(vj, null, wd)),
      el('p', { class: 'eq' }, 'A\u00b7v_' + j + ' = ' + at + ' \u00d7 v_' + j + ' = ', vecEl(vj.map((x) => a * x), null, wd)),
      el('p', { class: 'eq' }, 'o_' + i + ' = ', vecEl(o, 'o')),
      el('p', {}, ...runs('so key \u201c', userText(r.tokens[j]), '\u201d has weight ' + percentOf(a) + '% in query \u201c',
        userText(r.tokens[i]), '\u201d\u2019s weighted average of the value vectors in head ' + h + '.')));
  }

  // ------------------------------------------------------------------ render
  const VIEWS = { head: headView, matrix: matrixView, model: modelView, cell: cellView };
  /* Where the keyboard focus is, as [selector, n]: the n-th match of the selector, which names the
   * element by its id, or by its tag and data attributes inside the nearest element with an id.
   * render() rebuilds the controls, so focus by id alone fell to <body> after Enter or Space on a
   * token, a head chip, a head-view checkbox or a matrix radio button (a keyboard user's report:
   * every choice sent them back to the top of the page). */
  const FOCUS_ATTRS = ['data-i', 'data-j', 'data-h', 'data-l', 'data-side', 'data-act', 'data-run', 'type', 'value'];
  function focusKey() {
    const a = document.activeElement;
    if (!a || a === document.body || a === document.documentElement) return null;
    if (a.id) return ['#' + CSS.escape(a.id), 0];
    const box = a.parentElement && a.parentElement.closest('[id]');
    if (!box) return null;
    let sel = a.tagName.toLowerCase();
    for (const at of FOCUS_ATTRS) if (a.hasAttribute(at)) sel += '[' + at + '="' + CSS.escape(a.getAttribute(at)) + '"]';
    sel = '#' + CSS.escape(box.id) + ' ' + sel;
    return [sel, Array.prototype.indexOf.call(document.querySelectorAll(sel), a)];
  }
  function render() {
    const r = run();
    st.layer = Math.min(st.layer, r.L - 1); st.head = Math.min(st.head, r.H - 1);
    if (st.query >= r.T) st.query = -1;
    const key = focusKey();
    NAMES.replaceChildren(); nameSeq = 0;
    tokenStrip(); headChips(); selects(); tabs();
    for (const v in VIEWS) {
      const box = document.getElementById('view-' + v);
      box.replaceChildren();
      if (v === st.view) VIEWS[v](box);
    }
    if (key) {
      const again = document.querySelectorAll(key[0])[Math.max(0, key[1])];
      if (again && again !== document.activeElement) again.focus({ preventScroll: true });
    }
  }

  const tablist = ['head', 'matrix', 'model', 'cell'];
  document.getElementById('av-tabs').addEventListener('keydown', (ev) => {
    const k = tablist.indexOf(st.view), d = { ArrowLeft: -1, ArrowRight: 1 }[ev.key];
    if (!d) return;
    ev.preventDefault();
    showView(tablist[(k + d + tablist.length) % tablist.length]);
  });
  /* Escape hides the matrix view's tooltip, wherever the pointer and the focus are (WCAG 1.4.13): a keyboard
   * user's tooltip stayed over the map and the colour bar until the focus left the map, and Escape did nothing */
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && !document.getElementById('av-tip').hidden) { ev.preventDefault(); hideTip(); }
  });
  /* the matrix view's map follows the window's width (matrixPanel); the other views follow it in CSS */
  let resizing = 0;
  window.addEventListener('resize', () => {
    if (st.view !== 'matrix') return;
    clearTimeout(resizing);
    resizing = setTimeout(render, 100);
  });
  header();
  render();
  window.attnviz = { state: st, render: render, data: DATA }; /* for the console and the tests */
}());
