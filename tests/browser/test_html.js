#!/usr/bin/env node
/* test_html.js - attnviz.html in a real browser: Debian's chromium, headless,
 * driven by puppeteer-core. For each kind of run it makes the page and the
 * --dump of the same run, opens the page from file:// with every request but
 * the page itself failing the test (request interception) and every console
 * error failing it, then hovers and clicks through the head, matrix, model
 * and cell views and reads back the numbers the page shows. They must equal
 * weights.npy and scores.npy to the printed precision (half a unit in the
 * last printed digit).
 *
 * Output is cmocka's format ("[ RUN      ]", "[       OK ]", "[  PASSED  ] N
 * test(s).") so tests/run_tests.sh counts these tests with the C ones.
 * No browser is a failure, never a skip.
 *
 * Environment: ATTNVIZ_BIN (the binary), ATTNVIZ_SRCDIR (the tree),
 * CHROMIUM (default /usr/bin/chromium), ATTNVIZ_SHOTS (a folder: also save
 * one screenshot per view there, as make figures does for docs/figures/html/).
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const lib = require('./lib');
const { openPage, view, textBoxFn } = lib;

const BIN = process.env.ATTNVIZ_BIN || path.resolve(__dirname, '../../attnviz');
const SHOTS = process.env.ATTNVIZ_SHOTS || '';

// ---------------------------------------------------------------- cmocka-style report
const results = [];
async function test(name, fn) {
  console.log('[ RUN      ] ' + name);
  try {
    await fn();
    console.log('[       OK ] ' + name);
    results.push([name, true]);
  } catch (e) {
    console.log(String(e && e.stack ? e.stack : e).split('\n').slice(0, 4).join('\n'));
    console.log('[  FAILED  ] ' + name);
    results.push([name, false]);
  }
}
function summary() {
  const ok = results.filter((r) => r[1]).length, bad = results.length - ok;
  console.log('[==========] ' + results.length + ' test(s) run.');
  console.log('[  PASSED  ] ' + ok + ' test(s).');
  if (bad) {
    console.log('[  FAILED  ] ' + bad + ' test(s), listed below:');
    for (const r of results) if (!r[1]) console.log('[  FAILED  ] ' + r[0]);
  }
  return bad;
}
function check(cond, msg) { if (!cond) throw new Error(msg); }

// ---------------------------------------------------------------- npy (format 1.0/2.0, <f4 or |b1, C order)
function readNpy(file) {
  const b = fs.readFileSync(file);
  check(b.slice(0, 6).toString('latin1') === '\x93NUMPY', file + ': not .npy');
  const major = b[6], hl = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8), off = major === 1 ? 10 : 12;
  const hdr = b.slice(off, off + hl).toString('latin1');
  const shape = hdr.match(/'shape': \(([^)]*)\)/)[1].split(',').filter((s) => s.trim()).map(Number);
  const descr = hdr.match(/'descr': '([^']*)'/)[1];
  check(!/True/.test(hdr.match(/'fortran_order': (\w+)/)[1]), file + ': Fortran order');
  const data = b.slice(off + hl);
  const n = shape.reduce((a, x) => a * x, 1);
  const a = descr === '|b1' ? Uint8Array.from(data.slice(0, n)) : new Float32Array(n);
  if (descr === '<f4') for (let i = 0; i < n; i++) a[i] = data.readFloatLE(4 * i);
  return { shape, a, at: (...ix) => a[ix.reduce((o, x, k) => o * shape[k] + x, 0)] };
}

/* "−0.1234" (true minus) or "0.1234" → number */
function num(s) { return Number(String(s).trim().replace('\u2212', '-')); }
/* the page printed v with `digits` decimals: it must be ref rounded the same way */
function same(shown, ref, digits, what) {
  const tol = 0.5 * Math.pow(10, -digits) + 1e-9;
  check(Math.abs(num(shown) - ref) <= tol, what + ': page shows ' + shown + ', the .npy holds ' + ref);
}
function digitsOf(s) { const m = String(s).match(/\.(\d+)/); return m ? m[1].length : 0; }

// ---------------------------------------------------------------- runs
function attnviz(args) {
  return execFileSync(BIN, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

async function shot(page, name) {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SHOTS, name + '.png'), fullPage: false });
}

/* head view: hover query i, read the weights printed beside each key */
async function checkHeadView(page, W, h, i, runIdx) {
  const sel = '#view-head .hv[data-run="' + runIdx + '"]';
  await page.hover(sel + ' button[data-side="q"][data-i="' + i + '"]');
  const shown = await page.$$eval(sel + ' [data-role="weight-k"]', (s) => s.map((x) => x.textContent));
  const T = W.shape[W.shape.length - 1];
  check(shown.length === T, 'head view: ' + shown.length + ' key weights for ' + T + ' keys');
  for (let j = 0; j < T; j++) {
    if (shown[j] === 'masked') { check(W.at(h, i, j) === 0, 'head view: key ' + j + ' shown masked but weight ' + W.at(h, i, j)); continue; }
    same(shown[j], W.at(h, i, j), digitsOf(shown[j]), 'head view head ' + h + ' A[' + i + ',' + j + ']');
  }
  const visible = await page.$$eval(sel + ' line', (ls) => ls.filter((l) => l.style.display !== 'none').map((l) => [+l.dataset.i, +l.dataset.j]));
  check(visible.length > 0 && visible.every((p) => p[0] === i), 'head view: hovering query ' + i + ' shows other lines: ' + JSON.stringify(visible.slice(0, 5)));
}

/* matrix view: hover the centre of cell (i, j) of panel runIdx, parse the tooltip */
async function hoverCell(page, runIdx, i, j) {
  const tip = await lib.hoverCell(page, runIdx, i, j);
  const score = tip.match(/score (\S+)/), weight = tip.match(/weight (\S+)/);
  check(score && weight, 'matrix view: no score/weight in the tooltip: ' + JSON.stringify(tip));
  check(tip.includes('query ' + i + ' ') && tip.includes('key ' + j + ' '), 'matrix view: tooltip names another cell: ' + tip);
  return { tip, score: score[1], weight: weight[1] };
}

async function checkMatrix(page, W, S, h, runIdx, head0) {
  const T = W.shape[W.shape.length - 1];
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
    const t = await hoverCell(page, runIdx, i, j);
    same(t.score, S.at(h, i, j), digitsOf(t.score), (head0 || '') + 'matrix score S[' + h + ',' + i + ',' + j + ']');
    if (t.weight === '0') check(W.at(h, i, j) === 0, 'masked cell with weight ' + W.at(h, i, j));
    else same(t.weight, W.at(h, i, j), digitsOf(t.weight), (head0 || '') + 'matrix weight A[' + h + ',' + i + ',' + j + ']');
  }
}

async function checkCell(page, W, S, h, i, j) {
  const get = (role) => page.$eval('#view-cell [data-role="' + role + '"]', (e) => e.textContent);
  same(await get('score'), S.at(h, i, j), digitsOf(await get('score')), 'cell view score');
  same(await get('weight'), W.at(h, i, j), digitsOf(await get('weight')), 'cell view weight');
  const rows = await page.$$eval('#view-cell tr[data-j]', (trs) => trs.map((tr) => [
    tr.querySelector('[data-role="row-score"]').textContent, tr.querySelector('[data-role="row-weight"]').textContent]));
  const T = W.shape[W.shape.length - 1];
  check(rows.length === T, 'cell view: softmax row has ' + rows.length + ' entries, T = ' + T);
  for (let n = 0; n < T; n++) {
    if (!rows[n][0].includes('masked')) same(rows[n][0], S.at(h, i, n), digitsOf(rows[n][0]), 'cell view row S[' + n + ']');
    same(rows[n][1], W.at(h, i, n), digitsOf(rows[n][1]), 'cell view row A[' + n + ']');
  }
  /* the dot product the page does from q and k, times the scale, is the stored score */
  const dot = num(await get('dot'));
  const sc = await page.evaluate(() => window.attnviz.data.runs[window.attnviz.state.run].scale);
  check(Math.abs(dot * sc - S.at(h, i, j)) <= 1e-4 * Math.max(1, Math.abs(S.at(h, i, j))), 'cell view: q·k × scale = ' + dot * sc + ', scores.npy ' + S.at(h, i, j));
}

// ---------------------------------------------------------------- the tests
async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attnviz-html-'));
  let browser;
  await test('browser_found', async () => { browser = await lib.launch(); });
  if (!browser) { fs.rmSync(tmp, { recursive: true, force: true }); return summary(); }
  try {
    await singleLayer(browser, tmp);
    await compareRun(browser, tmp);
    await quantisedRuns(browser, tmp);
    await fullyMaskedRow(browser, tmp);
    await maskedCellReason(browser, tmp);
    await quotedTitle(browser, tmp);
    await rtlTitle(browser, tmp);
    await rtlCommandLine(browser, tmp);
    await longCommandLine(browser, tmp);
    await startCell(browser, tmp);
    await tinyWeight(browser, tmp);
    await maskedCellRowDigits(browser, tmp);
    await dotTableChecks(browser, tmp);
    await cellTablesAddUp(browser, tmp);
    await singleScoreLikeColumn(browser, tmp);
    await rowMaxNotShownAs0(browser, tmp);
    await lineExponentNotShownAs0(browser, tmp);
    await scoreBarNotShownAs0(browser, tmp);
    await dotLikeExplain(browser, tmp);
    await noScaleLineLikeExplain(browser, tmp);
    await percentLikeExplain(browser, tmp);
    await weightDigitsLikeExplain(browser, tmp);
    await zeroPrecision(browser, tmp);
    await tieWeight(browser, tmp);
    await ropeCell(browser, tmp);
    await noScaleModelCell(browser, tmp);
    await dkOneCell(browser, tmp);
    await modelRun(browser, tmp);
    await modelCompare(browser, tmp);
    await manyHeadsModel(browser, tmp);
    await matrixLabels(browser, tmp);
    await cjkColumnLabels(browser, tmp);
    await thinnedLastLabel(browser, tmp);
    await bidiOverrides(browser, tmp);
    await longMatrixLabels(browser, tmp);
    await rtlCutLabels(browser, tmp);
    await longToken(browser, tmp);
    await narrowWindow(browser, tmp);
    await phoneCellView(browser, tmp);
    await labelLanguages(browser, tmp);
    await nameLanguages(browser, tmp);
    await tooltipInWindow(browser, tmp);
    await tooltipEscape(browser, tmp);
    await arrowKeysOnALongMap(browser, tmp);
    await jumpKeys(browser, tmp);
    await smallCellFrame(browser, tmp);
    await queryOutsideHeadView(browser, tmp);
    await divergingCmap(browser, tmp);
    await figureColours(browser, tmp);
    await coarseColours(browser, tmp);
    await eightBitDivision(browser, tmp);
    await eightBitShownBound(browser, tmp);
    await tieRange(browser, tmp);
  } finally {
    await browser.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return summary();
}

async function singleLayer(browser, tmp) {
  const out = path.join(tmp, 'single'), dump = path.join(tmp, 'single-dump');
  attnviz(['--heads', '4', '-d', '32', '--causal', '--pad-to', '6', '--html', '--no-plot', '-o', out, '--dump', dump,
    'I love deep learning']);
  const W = readNpy(path.join(dump, 'weights.npy')), S = readNpy(path.join(dump, 'scores.npy'));
  const file = path.join(out, 'attnviz.html');
  let page;
  await test('html_single_opens_offline', async () => {
    check(fs.existsSync(file), 'no ' + file);
    page = await openPage(browser, file);
    const src = await page.$eval('#av-source', (e) => e.textContent);
    check(/random weights \(untrained, seed 42\)/.test(src), 'the page does not say the weights are random with seed 42: ' + src);
    const cmd = await page.$eval('#av-command', (e) => e.textContent);
    check(cmd.includes('--causal') && cmd.includes('--html'), 'command line missing: ' + cmd);
    check(page.problems.length === 0, page.problems.join('; '));
  });
  if (!page) return;
  await test('html_single_head_view', async () => {
    await view(page, 'head');
    for (const i of [0, 2, 3]) await checkHeadView(page, W, 0, i, 0);
    await page.click('#av-heads [data-h="2"]');
    for (const i of [1, 3]) await checkHeadView(page, W, 2, i, 0);
    /* the heading names the heads shown, "head 2" for one ("heads 0" read as a count: a new user's report) */
    const h2 = await page.$eval('#view-head .panel h2', (e) => e.textContent);
    const m = h2.match(/ \u00b7 (heads?) ([0-9, ]+)$/);
    check(m && (m[1] === 'head') === (m[2].split(',').length === 1), 'head view heading: ' + JSON.stringify(h2));
    await page.hover('#view-head .hv button[data-side="q"][data-i="3"]');
    await shot(page, 'head');
  });
  await test('html_single_matrix_view', async () => {
    await page.click('#av-heads [data-h="1"]');
    await view(page, 'matrix');
    await checkMatrix(page, W, S, 1, 0);
    await hoverCell(page, 0, 3, 1);
    await shot(page, 'matrix');
  });
  await test('html_single_matrix_scores_mode', async () => {
    await page.click('#view-matrix input[value="scores"]');
    const t = await hoverCell(page, 0, 2, 2);
    same(t.score, S.at(1, 2, 2), digitsOf(t.score), 'scores map');
    await page.click('#view-matrix input[value="weights"]');
  });
  await test('html_single_cell_view_by_click', async () => {
    await lib.clickCell(page, 0, 3, 1);
    await checkCell(page, W, S, 1, 3, 1);
    await shot(page, 'cell');
  });
  await test('html_single_model_view_opens_head', async () => {
    await view(page, 'model');
    await shot(page, 'model');
    await page.click('#view-model button[data-l="0"][data-h="3"]');
    await page.waitForSelector('#view-matrix:not([hidden]) canvas');
    const t = await hoverCell(page, 0, 4, 0);
    same(t.weight, W.at(3, 4, 0), digitsOf(t.weight), 'model view → matrix head 3');
  });
  await test('html_single_keyboard', async () => {
    await page.focus('#view-matrix canvas[data-run="0"]');
    const before = await page.evaluate(() => [window.attnviz.state.cell.i, window.attnviz.state.cell.j]);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowLeft');
    const i = Math.min(5, before[0] + 1), j = Math.max(0, before[1] - 1);
    const tip = await page.$eval('#av-tip', (t) => t.textContent);
    check(tip.includes('query ' + i + ' ') && tip.includes('key ' + j + ' '), 'arrow keys: tooltip ' + tip);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#view-cell:not([hidden]) [data-role="weight"]');
    await checkCell(page, W, S, 3, i, j);
    /* the tabs answer the arrow keys too */
    await page.focus('#tab-cell');
    await page.keyboard.press('ArrowLeft');
    const v = await page.evaluate(() => window.attnviz.state.view);
    check(v === 'model', 'ArrowLeft from the cell tab went to ' + v);
    check(page.problems.length === 0, page.problems.join('; '));
  });
  /* Enter or Space on a control that changes the state rebuilds the page's controls; the focus stays on
   * the control (rebuilt), not on <body>, so a keyboard user goes on from there (it fell to the top of
   * the page after every choice: a token, a head chip, a head-view checkbox, a matrix radio button) */
  await test('html_keyboard_choices_keep_the_focus', async () => {
    const steps = [
      ['head', '#av-tokens .tok[data-i="2"]', 'Enter', 's.query === 2'],
      ['head', '#av-heads .chip[data-h="2"]', 'Space', 's.head === 2'],
      ['head', '#view-head input[type="checkbox"][data-h="1"]', 'Space', 's.shown.has(1)'],
      ['head', '#view-head .showheads button:first-of-type', 'Enter', 's.shown.size === 4'],
      ['matrix', '#view-matrix input[value="scores"]', 'Space', 's.what === "scores"'],
      ['matrix', '#av-tokens .tok[data-i="2"]', 'Space', 's.query === -1'],
    ];
    for (const [v, sel, key, cond] of steps) {
      await view(page, v);
      await page.focus(sel);
      await page.keyboard.press(key);
      const ok = await page.evaluate((c) => { const s = window.attnviz.state; return Function('s', 'return ' + c)(s); }, cond);
      check(ok, key + ' on ' + sel + ': the state is not ' + cond);
      const where = await page.evaluate((q) => {
        const a = document.activeElement;
        return a.matches(q) ? '' : a === document.body ? '<body>' : a.outerHTML.slice(0, 80);
      }, sel);
      check(where === '', key + ' on ' + sel + ': the focus went to ' + where);
    }
    await page.click('#view-matrix input[value="weights"]');
    check(page.problems.length === 0, page.problems.join('; '));
  });
  await page.close();
}

async function compareRun(browser, tmp) {
  const out = path.join(tmp, 'cmp');
  attnviz(['--heads', '2', '-d', '16', '--compare', 'scale', '--html', '--no-plot', '-o', out, 'the cat sat down']);
  const plain = path.join(tmp, 'cmp-dump'), noscale = path.join(tmp, 'cmp-dump-noscale');
  attnviz(['--heads', '2', '-d', '16', '--no-plot', '-q', '--dump', plain, 'the cat sat down']);
  attnviz(['--heads', '2', '-d', '16', '--no-plot', '-q', '--no-scale', '--dump', noscale, 'the cat sat down']);
  let page;
  await test('html_compare_opens_offline', async () => {
    page = await openPage(browser, path.join(out, 'attnviz.html'));
    const n = await page.$$eval('#view-head .hv', (x) => x.length);
    check(n === 2, 'compare scale: ' + n + ' head-view panels, want 2 side by side');
    check(page.problems.length === 0, page.problems.join('; '));
  });
  if (!page) return;
  await test('html_compare_panels_match_each_run', async () => {
    const names = await page.evaluate(() => window.attnviz.data.runs.map((r) => r.name));
    await view(page, 'matrix');
    for (let k = 0; k < 2; k++) {
      const dir = /no/.test(names[k]) ? noscale : plain;
      const W = readNpy(path.join(dir, 'weights.npy')), S = readNpy(path.join(dir, 'scores.npy'));
      await checkMatrix(page, W, S, 0, k, names[k] + ': ');
    }
    await shot(page, 'compare');
    check(page.problems.length === 0, page.problems.join('; '));
  });
  await page.close();
}

/* --model --compare scale --html: the page shows the model's layer L under both settings side by side, as
 * the single layer's --compare page (it held the model's own run alone, the comparison only as the table in
 * its trace). The scaled panel must be the --dump's layer L; the no-scale panel's scores are those times √d_k
 * (d_k from the folder's config.json) and its weights their softmax over the keys the causal mask leaves,
 * computed here. */
async function modelCompare(browser, tmp) {
  const toy = path.join(tmp, 'cmp-toy'), out = path.join(tmp, 'cmp-toy-page'), dump = path.join(tmp, 'cmp-toy-dump');
  attnviz(['--train', 'reverse', '--steps', '2', '-q', '-o', toy]);
  attnviz(['--model', toy, '--compare', 'scale', '--html', '--no-plot', '-q', '-o', out, '--dump', dump, '3 1 4 1 5 >']);
  const cfg = JSON.parse(fs.readFileSync(path.join(toy, 'config.json'), 'utf8')), D = cfg.n_embd / cfg.n_head;
  const A = readNpy(path.join(dump, 'attn.npy')), S = readNpy(path.join(dump, 'scores.npy'));
  const L = A.shape[0], T = A.shape[3];
  const S1 = (h, i, j) => S.at(L - 1, h, i, j) * Math.sqrt(D);
  const W1 = (h, i, j) => {
    if (j > i) return 0;
    let mx = -Infinity, tot = 0;
    for (let n = 0; n <= i; n++) mx = Math.max(mx, S1(h, i, n));
    for (let n = 0; n <= i; n++) tot += Math.exp(S1(h, i, n) - mx);
    return Math.exp(S1(h, i, j) - mx) / tot;
  };
  await test('html_model_compare_scale_shows_both_settings', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    const names = await page.evaluate(() => window.attnviz.data.runs.map((r) => r.name));
    check(names.length === 2 && names[0] === 'scaled \u00f7\u221ad_k (the model\'s own)' && names[1] === 'no scale',
      'the page\'s runs: ' + JSON.stringify(names));
    const heads = await page.$$eval('#view-head .panel h2', (e) => e.map((x) => x.textContent));
    check(heads.length === 2 && heads.every((t) => t.includes('layer ' + (L - 1) + ' of ' + L)), 'head view panels: ' + JSON.stringify(heads));
    await page.click('#av-heads [data-h="1"]');
    await view(page, 'matrix');
    await checkMatrix(page, layerOf(A, L - 1), layerOf(S, L - 1), 1, 0, 'scaled: ');
    for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
      const t = await hoverCell(page, 1, i, j), tol = (s) => 0.5 * Math.pow(10, -digitsOf(s)) + 1e-6;
      check(Math.abs(num(t.score) - S1(1, i, j)) <= tol(t.score), 'no scale S[1,' + i + ',' + j + ']: page ' + t.score + ', scores.npy × √' + D + ' = ' + S1(1, i, j));
      check(Math.abs(num(t.weight) - W1(1, i, j)) <= tol(t.weight), 'no scale A[1,' + i + ',' + j + ']: page ' + t.weight + ', softmax here ' + W1(1, i, j));
    }
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
  /* Each map's accessible name gives the model's layer, as its heading does: a screen reader read "attention weights of
   * layer 0 head 0" under the heading "layer 1 of 2 · head 0 of 4" (the page's stored index, not the model's layer) */
  await test('html_model_compare_map_names_the_models_layer', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    await view(page, 'matrix');
    const names = await page.$$eval('#view-matrix canvas[data-run]', (e) => e.map((x) => x.getAttribute('aria-label')));
    check(names.length === 2 && names.every((t) => t.startsWith('attention weights of layer ' + (L - 1) + ' head 0;')),
      'the maps\' names: ' + JSON.stringify(names));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* A 1-layer × 32-head model: the model view's 32 thumbnails (70 px each, over 2,200 px in one
 * row) wrap inside a 1400 px window, so the page never scrolls sideways. */
async function manyHeadsModel(browser, tmp) {
  const toy = path.join(tmp, 'h32'), out = path.join(tmp, 'h32-page');
  attnviz(['--train', 'reverse', '--layers', '1', '--heads', '32', '--d-model', '64', '--steps', '2', '-q', '-o', toy]);
  attnviz(['--model', toy, '--html', '--no-plot', '-q', '-o', out, '3 1 4 >']);
  await test('html_model_view_of_32_heads_wraps_in_the_window', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'), 1400, 900);
    await view(page, 'model');
    const m = await page.evaluate(() => {
      const b = [...document.querySelectorAll('#view-model button[data-l]')].map((e) => e.getBoundingClientRect());
      return { sw: document.documentElement.scrollWidth, iw: window.innerWidth, n: b.length,
               right: Math.max(...b.map((r) => r.right)), rows: new Set(b.map((r) => Math.round(r.top))).size };
    });
    check(m.n === 32, 'model view: ' + m.n + ' thumbnails for 32 heads');
    check(m.sw <= m.iw, 'the page is ' + m.sw + ' px wide in a ' + m.iw + ' px window');
    check(m.right <= m.iw, 'a thumbnail ends at x = ' + m.right + ', past the ' + m.iw + ' px window');
    check(m.rows >= 2, 'the 32 thumbnails are in ' + m.rows + ' line(s)');
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
  /* each head's lines, chip and swatch in its own colour: the 12-colour palette repeated, so heads 12..31
   * drew their lines in the colours of heads 0..19 */
  await test('html_every_head_has_its_own_colour', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'), 1400, 900);
    await view(page, 'head');
    const c = await page.evaluate(() => ({
      chips: [...document.querySelectorAll('#av-heads .chip')].map((e) => getComputedStyle(e).borderTopColor),
      swatches: [...document.querySelectorAll('#view-head .swatch')].map((e) => getComputedStyle(e).backgroundColor),
    }));
    check(c.chips.length === 32 && new Set(c.chips).size === 32, 'head chips: ' + new Set(c.chips).size + ' colours for ' + c.chips.length + ' heads');
    check(c.swatches.length === 32 && c.swatches.every((x, h) => x === c.chips[h]), 'head-view swatches differ from the chips');
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* The matrix view's labels (4 tokens: 44 px cells, one label per row and column): each row
 * label's text is level with the middle of its row (within 2 px), and every column label's
 * text starts below the map, clear of it (the first, "I", used to sit on the map's edge). */
async function matrixLabels(browser, tmp) {
  await matrixTest(browser, tmp, 'labels', 'I love deep learning', 'html_matrix_labels_sit_beside_their_rows_and_below_the_map', async (page) => {
    const m = await page.evaluate(() => {
      const cv = document.querySelector('#view-matrix canvas'), b = cv.getBoundingClientRect(), c = Number(cv.dataset.cell);
      const text = (e) => { const r = document.createRange(); r.selectNodeContents(e); return r.getBoundingClientRect(); };
      const rows = [...document.querySelectorAll('#view-matrix .mx .rows span')].map((e, i) => {
        const t = text(e); return { tok: e.textContent, mid: (t.top + t.bottom) / 2, want: b.top + (i + 0.5) * c }; });
      const cols = [...document.querySelectorAll('#view-matrix .mx .cols span')].map((e) => ({ tok: e.textContent, top: text(e).top }));
      return { bottom: b.bottom, rows, cols };
    });
    check(m.rows.length === 4 && m.cols.length === 4, m.rows.length + ' row and ' + m.cols.length + ' column labels for 4 tokens');
    for (const r of m.rows)
      check(Math.abs(r.mid - r.want) <= 2, 'row label "' + r.tok + '" is centred at y = ' + r.mid.toFixed(1) + ', its row at ' + r.want.toFixed(1));
    for (const c of m.cols)
      check(c.top >= m.bottom + 2, 'column label "' + c.tok + '" starts at y = ' + c.top.toFixed(1) + ', the map ends at ' + m.bottom.toFixed(1));
  });
}

/* Thinned matrix labels are never cut across their line: 205 tokens give 2 px cells and a label every 7
 * rows (0, 7, ..., 203), so the last one has 2 rows, 4 px, and its 12 px text was cut to a 4 px sliver
 * ("203 <pad>" unreadable under the map, and beside it). A line of 12 px text needs 12 px across it
 * (rows: height, the turned column labels: width); the spans cut long labels along the line only. */
async function thinnedLastLabel(browser, tmp) {
  const words = Array.from({ length: 205 }, (_, i) => 'w' + i).join(' ');
  await matrixTest(browser, tmp, 'thin-last', words, 'html_thinned_matrix_labels_keep_their_last_label_whole', async (page) => {
    const m = await page.evaluate(() => {
      const cv = document.querySelector('#view-matrix canvas');
      const across = (sel, dim) => [...document.querySelectorAll(sel)].map((e) => ({ tok: e.textContent,
        room: dim === 'h' ? e.clientHeight : e.clientWidth, need: dim === 'h' ? e.scrollHeight : e.scrollWidth }));
      return { c: Number(cv.dataset.cell), h: cv.getBoundingClientRect().height, rows: across('#view-matrix .mx .rows span', 'h'),
        cols: across('#view-matrix .mx .cols span', 'w'),
        rowsH: document.querySelector('#view-matrix .mx .rows').getBoundingClientRect().height };
    });
    check(m.c === 2 && m.rows.length === 30 && m.cols.length === 30, 'cells ' + m.c + ' px, ' + m.rows.length + ' row and ' +
      m.cols.length + ' column labels (want 2 px cells, a label every 7 rows: 30)');
    check(m.rows[29].tok === '203: w203' && m.cols[29].tok === '203: w203', 'last labels ' + m.rows[29].tok + ', ' + m.cols[29].tok);
    for (const [what, list] of [['row', m.rows], ['column', m.cols]])
      for (const l of list) check(l.room >= 12 && l.need <= l.room, what + ' label "' + l.tok + '" has ' + l.room + ' px across its line for ' + l.need + ' px of text');
    check(Math.abs(m.rowsH - m.h) <= 1, 'the row labels take ' + m.rowsH + ' px beside a ' + m.h + ' px map');
  });
}

/* A right-to-left override (U+202E) in the sentence or a --weights folder's name turns only that text
 * around on the page, not the page's own words after it: the heading's closing quote was drawn in the
 * middle of the sentence ("attnviz “I ”uoy evol"), "X random (untrained, seed 42)" backwards, and the
 * command's later arguments too. Measured in the browser: where each character is drawn. */
async function bidiOverrides(browser, tmp) {
  const dir = path.join(tmp, 'w\u202eabc'), out = path.join(tmp, 'rlo');
  /* attnviz makes no folder whose name holds a format character (89353fd): the user's own folder is dumped into */
  fs.mkdirSync(dir);
  attnviz(['-q', '--no-plot', '-d', '8', '--dump', dir, 'I love you']);
  fs.unlinkSync(path.join(dir, 'X.npy'));
  attnviz(['-q', '--no-plot', '--html', '-d', '8', '--weights', dir, '-o', out, 'I \u202elove you']);
  await test('html_rtl_override_in_user_text_stays_in_it', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    const m = await page.evaluate(() => {
      /* the left edge of every character of element id's text, in text order */
      const lefts = (id) => { const t = document.getElementById(id).firstChild, s = t.textContent, r = document.createRange(), x = [];
        for (let i = 0; i < s.length; i++) { r.setStart(t, i); r.setEnd(t, i + 1); x.push(r.getBoundingClientRect().left); }
        return { s, x }; };
      return { title: lefts('av-title'), source: lefts('av-source'), command: lefts('av-command') };
    });
    /* a run of the page's own words: each character right of the one before it */
    const inOrder = (what, o, from, to) => { for (let i = from + 1; i < to; i++) if (o.s[i] !== ' ' && o.s[i - 1] !== ' ')
      check(o.x[i] > o.x[i - 1], what + ': "' + o.s.slice(from, to) + '" is drawn turned around (' + JSON.stringify(o.s[i - 1] + o.s[i]) + ')'); };
    const t = m.title, last = t.s.length - 1;
    check(t.s[last] === '\u201d', 'title ' + JSON.stringify(t.s));
    const ctl = (c) => /[\u202a-\u202e\u2066-\u2069]/.test(c); /* drawn as nothing */
    for (let i = 0; i < last; i++) check(ctl(t.s[i]) || t.x[last] > t.x[i], 'the heading\'s closing quote is drawn left of ' + JSON.stringify(t.s[i]) + ': ' + JSON.stringify(t.s));
    const src = m.source, k = src.s.indexOf('; X random (untrained, seed 42)');
    check(k > 0, 'source ' + JSON.stringify(src.s));
    inOrder('weights line', src, k + 2, src.s.length);
    const cmd = m.command, a = cmd.s.indexOf(' -o ');
    check(a > 0, 'command ' + JSON.stringify(cmd.s));
    inOrder('command', cmd, a, a + 4);
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* Long tokens in the matrix view: each label is drawn whole inside its box, cut with "…" at its end, and
 * two tokens whose cut labels would read the same are told apart by their index. CSS cut the row label of
 * "Antidisestablishmentarianism" on its left ("tablishmentarianism", no sign of the cut), its column label
 * at both ends, and "Antidisestablishmentary" read the same. */
async function longMatrixLabels(browser, tmp) {
  const toks = ['Antidisestablishmentarianism', 'Antidisestablishmentary', 'is', 'long'];
  await matrixTest(browser, tmp, 'longlab', toks.join(' '), 'html_long_matrix_labels_are_cut_at_their_end_and_told_apart', async (page) => {
    const m = await page.evaluate(() => {
      const text = (e) => { const r = document.createRange(); r.selectNodeContents(e); return r.getBoundingClientRect(); };
      const of = (sel) => [...document.querySelectorAll(sel)].map((e) => { const b = e.getBoundingClientRect(), t = text(e);
        return { s: e.textContent.replace(/[\u2066-\u2069]/g, ''), tip: e.title, box: [b.left, b.top, b.right, b.bottom], text: [t.left, t.top, t.right, t.bottom] }; });
      return { rows: of('#view-matrix .mx .rows span'), cols: of('#view-matrix .mx .cols span') };
    });
    await view(page, 'head'); /* the head view's labels, cut by CSS, tell the two apart by their index too */
    const hv = await page.$$eval('#view-head .hv .tt', (es) => es.map((e) => e.textContent));
    check(hv.length === 8 && hv.slice(0, 4).every((t, i) => t === i + ': ' + toks[i]),
      'head view labels ' + JSON.stringify(hv) + ': want "0: Antidisestablishmentarianism", "1: Antidisestablishmentary", ...');
    for (const [what, list] of [['row', m.rows], ['column', m.cols]]) {
      check(list.length === 4, list.length + ' ' + what + ' labels');
      check(new Set(list.map((l) => l.s)).size === 4, what + ' labels do not tell the tokens apart: ' + JSON.stringify(list.map((l) => l.s)));
      list.forEach((l, i) => {
        check(l.tip === toks[i], what + ' label ' + i + ' has the tooltip ' + JSON.stringify(l.tip));
        const shown = l.s.replace(/^\d+: /, '');
        check(shown === toks[i] || (shown.endsWith('\u2026') && toks[i].startsWith(shown.slice(0, -1))),
          what + ' label ' + JSON.stringify(l.s) + ' is not token ' + i + ', ' + JSON.stringify(toks[i]) + ', or its start and "…"');
        const inside = l.text[0] >= l.box[0] - 0.5 && l.text[2] <= l.box[2] + 0.5 && l.text[1] >= l.box[1] - 0.5 && l.text[3] <= l.box[3] + 0.5;
        check(inside, what + ' label ' + JSON.stringify(l.s) + ': its text spans ' + JSON.stringify(l.text.map(Math.round)) +
          ', outside its box ' + JSON.stringify(l.box.map(Math.round)) + ' (cut off)');
      });
    }
  });
}

/* A right-to-left token too long for its label (the token strip, the head view's columns) is cut at its
 * end, which is on its left: CSS's "…" went on the right, the token's start, and hid it ("…ستمستمست" showed
 * the word's last letters). The token's first letter is drawn inside its label's box. */
async function rtlCutLabels(browser, tmp) {
  const out = path.join(tmp, 'rtlcut'), word = '\u0623\u0628\u062c\u062f' + '\u0645\u0633\u062a'.repeat(8); /* أبجد + مست… */
  attnviz(['--heads', '2', '--html', '--no-plot', '-q', '-o', out, 'I ' + word + ' love']);
  await test('html_cut_rtl_token_labels_keep_their_start', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'), 600, 800);
    await view(page, 'head');
    const m = await page.evaluate(() => [...document.querySelectorAll('#av-tokens .tok, #view-head .hv .tt')].filter((e) =>
      e.textContent.length > 10).map((e) => {
      const t = document.createTreeWalker(e, NodeFilter.SHOW_TEXT).nextNode(), r = document.createRange(); r.setStart(t, 0); r.setEnd(t, 1);
      const a = r.getBoundingClientRect(), b = e.getBoundingClientRect();
      return { cut: e.scrollWidth > e.clientWidth, first: [a.left, a.right], box: [b.left, b.right], where: e.className };
    }));
    check(m.length === 3, m.length + ' labels of the long token');
    for (const l of m) check(l.first[0] >= l.box[0] - 0.5 && l.first[1] <= l.box[1] + 0.5,
      l.where + ': the token\'s first letter is drawn at ' + JSON.stringify(l.first.map(Math.round)) + ', outside its label ' +
      JSON.stringify(l.box.map(Math.round)) + (l.cut ? ' (cut)' : ''));
    check(m.some((l) => l.cut), 'no label was cut: ' + JSON.stringify(m));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* Column labels of Chinese characters stay upright (horizontal writing, not
 * turned): the rotated vertical writing of the other labels turned them
 * upside down. "Transformer" among them still reads bottom to top. */
async function cjkColumnLabels(browser, tmp) {
  await matrixTest(browser, tmp, 'cjk', '\u6ce8\u610f\u529bTransformer\u7684', 'html_cjk_column_labels_stay_upright', async (page) => {
    const cols = await page.evaluate(() => [...document.querySelectorAll('#view-matrix .mx .cols span')].map((e) => {
      const st = getComputedStyle(e); return { tok: e.textContent, mode: st.writingMode, turn: st.transform }; }));
    check(cols.length === 5, cols.length + ' column labels for 5 tokens');
    for (const c of cols) {
      const latin = c.tok === 'Transformer';
      check(latin ? c.mode === 'vertical-rl' && c.turn !== 'none' : c.mode === 'horizontal-tb' && c.turn === 'none',
        'column label "' + c.tok + '": writing-mode ' + c.mode + ', transform ' + c.turn);
    }
  });
}

/* Test `name` on the --html page of sentence (2 heads, in tmp/dir) in the
 * matrix view: check(page), then no failed request or console error. */
async function matrixTest(browser, tmp, dir, sentence, name, checkPage) {
  const out = path.join(tmp, dir);
  attnviz(['--heads', '2', '--html', '--no-plot', '-q', '-o', out, sentence]);
  await test(name, async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    await view(page, 'matrix');
    await checkPage(page);
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* (L, H, T, T) as the (H, T, T) of layer l, for the checks above */
function layerOf(A, l) { return { shape: A.shape.slice(1), at: (h, i, j) => A.at(l, h, i, j) }; }

/* A trained toy model (attnviz --train, 3 steps) run with --model: every layer in the page. */
async function modelRun(browser, tmp) {
  const toy = path.join(tmp, 'toy'), out = path.join(tmp, 'toy-page'), dump = path.join(tmp, 'toy-dump');
  attnviz(['--train', 'reverse', '--steps', '3', '-q', '-o', toy]);
  attnviz(['--model', toy, '--html', '--no-plot', '-q', '-o', out, '--dump', dump, 'abcdefg']);
  const A = readNpy(path.join(dump, 'attn.npy')), S = readNpy(path.join(dump, 'scores.npy'));
  const L = A.shape[0];
  let page;
  await test('html_model_opens_offline_and_says_trained', async () => {
    check(L === 2 && A.shape.length === 4, 'attn.npy shape ' + A.shape);
    page = await openPage(browser, path.join(out, 'attnviz.html'));
    const src = await page.$eval('#av-source', (e) => e.textContent);
    check(/trained toy model .*--train reverse, step 3/.test(src), 'the page does not say the model is trained: ' + src);
    /* it opens on the layer the trace and the figures show, the last (it opened on layer 0: a figure-maker's report) */
    const opened = await page.evaluate(() => window.attnviz.state.layer);
    check(opened === L - 1, 'the page opens on layer ' + opened + ', the trace shows layer ' + (L - 1));
    const thumbs = await page.evaluate(() => { window.attnviz.state.view = 'model'; window.attnviz.render();
      return document.querySelectorAll('#view-model button[data-l]').length; });
    check(thumbs === L * A.shape[1], 'model view: ' + thumbs + ' thumbnails for ' + L + ' layers × ' + A.shape[1] + ' heads');
    check(page.problems.length === 0, page.problems.join('; '));
  });
  if (!page) return;
  /* The model view's thumbnails had no colour bar, while the matrix view and every figure have one (a
   * figure-maker's report). It is the matrix view's bar of the weights (0 .. 1, the chosen colour map),
   * whatever the matrix view shows, with a swatch of a masked cell as the thumbnails draw it (flat grey,
   * not hatched), and it follows the colour map. */
  await test('html_model_view_has_a_colour_bar', async () => {
    /* a canvas's pixel, read from a copy made for reading (repeated reads of the page's own canvases
     * draw Chrome's willReadFrequently warning, which the tests count as a problem) */
    await page.evaluate(() => { window.avPixel = (cv, x, y) => {
      const c = document.createElement('canvas');
      c.width = cv.width; c.height = cv.height;
      const g = c.getContext('2d', { willReadFrequently: true });
      g.drawImage(cv, 0, 0);
      return Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3));
    }; });
    const bar = (sel) => page.evaluate((s) => {
      const b = document.querySelector(s + ' .cbar');
      if (!b) return null;
      const cv = b.querySelector('canvas'), px = (x) => window.avPixel(cv, x, 6);
      const sw = getComputedStyle(b.querySelector('.legend-mask'));
      return { text: b.textContent, lo: px(0), hi: px(199), swatch: sw.backgroundColor, image: sw.backgroundImage };
    }, sel);
    await page.evaluate(() => { const s = window.attnviz.state; s.what = 'scores'; s.view = 'model'; window.attnviz.render(); });
    const m = await bar('#view-model');
    check(m !== null, 'the model view has no colour bar');
    check(/^0.*1 attention weight \(viridis\)/.test(m.text), 'model view colour bar: ' + m.text);
    const masked = await page.evaluate(() => { /* a causal thumbnail's top-right cell (query 0, key T - 1) */
      const cv = document.querySelector('#view-model button[data-l] canvas');
      return window.avPixel(cv, cv.width - 1, 0);
    });
    check(m.swatch === 'rgb(' + masked.join(', ') + ')' && m.image === 'none',
      'masked swatch ' + m.swatch + ' ' + m.image + ', masked thumbnail cell rgb(' + masked.join(', ') + ')');
    await page.evaluate(() => { const s = window.attnviz.state; s.what = 'weights'; s.view = 'matrix'; window.attnviz.render(); });
    const x = await bar('#view-matrix');
    check(x && String(x.lo) === String(m.lo) && String(x.hi) === String(m.hi),
      'model view bar ' + m.lo + ' .. ' + m.hi + ', matrix view bar ' + (x && x.lo) + ' .. ' + (x && x.hi));
    await page.select('#av-cmap', 'magma');
    await page.evaluate(() => { window.attnviz.state.view = 'model'; window.attnviz.render(); });
    const mg = await bar('#view-model');
    check(/attention weight \(magma\)/.test(mg.text) && String(mg.lo) !== String(m.lo), 'after magma: ' + mg.text + ' ' + mg.lo);
    await page.select('#av-cmap', 'viridis');
    check(page.problems.length === 0, page.problems.join('; '));
  });
  await test('html_model_every_layer_matches_the_dump', async () => {
    for (let l = 0; l < L; l++) {
      await view(page, 'model');
      await page.click('#view-model button[data-l="' + l + '"][data-h="1"]');
      await page.waitForSelector('#view-matrix:not([hidden]) canvas');
      await checkMatrix(page, layerOf(A, l), layerOf(S, l), 1, 0, 'layer ' + l + ': ');
    }
    await lib.clickCell(page, 0, 5, 2);
    await checkCell(page, layerOf(A, L - 1), layerOf(S, L - 1), 1, 5, 2);
    const ref = await page.$eval('#view-cell', (e) => e.textContent);
    check(ref.includes('attn.npy[' + (L - 1) + ', 1, 5, 2]'), 'cell view does not name attn.npy[l, h, i, j]');
    await view(page, 'head');
    await checkHeadView(page, layerOf(A, L - 1), 1, 6, 0);
    check(page.problems.length === 0, page.problems.join('; '));
  });
  await page.close();
}

/* A bool (n, n) .npy (format 1.0, C order), True where mask[i][j]. */
function writeBoolNpy(file, mask) {
  const n = mask.length;
  let hdr = "{'descr': '|b1', 'fortran_order': False, 'shape': (" + n + ', ' + n + '), }';
  hdr += ' '.repeat(63 - ((10 + hdr.length) % 64)) + '\n'; /* magic + version + length + header = 64·k bytes */
  const len = Buffer.alloc(2);
  len.writeUInt16LE(hdr.length);
  fs.writeFileSync(file, Buffer.concat([Buffer.from('\x93NUMPY\x01\x00', 'latin1'), len, Buffer.from(hdr, 'latin1'),
    Buffer.from(mask.flat().map((m) => (m ? 1 : 0)))]));
}

/* A sentence holding double quotes is headed with single ones, as the figures' titles: nested quotes
 * alternate (the heading began ““深度学习”..., two quotes opened: a Chinese reader's report). */
async function quotedTitle(browser, tmp) {
  const out = path.join(tmp, 'quoted');
  attnviz(['--html', '--no-plot', '-q', '-o', out, '“深度学习”很有趣']);
  await test('html_title_with_double_quotes_gets_single_ones', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    const t = await page.$eval('#av-title', (e) => e.textContent);
    check(t === '‘“深度学习”很有趣’', 'heading: ' + JSON.stringify(t));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* A right-to-left sentence with a Latin word in it is headed as the figures title it: its words from right to
 * left, between the quotes. The heading set it in the page's left-to-right line, so the Arabic words before
 * "GPT" ran right to left on their own and the rest followed on their right: "attnviz “أحب أنا GPT كثيرا”"
 * read "كثيرا GPT أنا أحب" from the right (a lecturer's pass). */
async function rtlTitle(browser, tmp) {
  const out = path.join(tmp, 'rtltitle'), words = ['\u0623\u0646\u0627', '\u0623\u062d\u0628', 'GPT', '\u0643\u062b\u064a\u0631\u0627'];
  attnviz(['--html', '--no-plot', '-q', '-o', out, words.join(' ')]); /* أنا أحب GPT كثيرا */
  await test('html_rtl_title_reads_right_to_left_as_the_figures', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    const m = await page.evaluate((box, words) => {
      const e = document.getElementById('av-title'), all = e.textContent;
      /* the drawn [left, right] of all[a, b), wherever the heading's text nodes split it */
      const span = (a, b) => {
        const x = box(e, a, b);
        return [x.l, x.r];
      };
      const at = [];
      for (const w of words) at.push(all.indexOf(w, at.length ? at[at.length - 1] : 0));
      return { all, words: at.map((a, k) => span(a, a + words[k].length)), open: span(0, 1), close: span(all.length - 1, all.length) };
    }, await textBoxFn(page), words);
    check(m.all.startsWith('\u201c') && m.all.endsWith('\u201d'), 'heading ' + JSON.stringify(m.all));
    for (let k = 1; k < words.length; k++)
      check(m.words[k][1] <= m.words[k - 1][0] + 0.5, 'word ' + k + ' "' + words[k] + '" is drawn at ' + JSON.stringify(m.words[k].map(Math.round)) +
        ', not left of word ' + (k - 1) + ' "' + words[k - 1] + '" at ' + JSON.stringify(m.words[k - 1].map(Math.round)) + ': ' + JSON.stringify(m.all));
    check(m.open[1] <= m.words[3][0] + 0.5 && m.close[0] >= m.words[0][1] - 0.5, 'the quotes are not around the words: ' + JSON.stringify(m));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* The command line's right-to-left sentence reads as the title's, in a 375 px window where it wraps: the
 * words and emoji of 'أنا أحب التعلم العميق 😀 🎉' each left of the one before or on a later line, the
 * opening quote left of the sentence on its first line, the closing one right of it on its last. The
 * command was set in the page's left-to-right line: the opening quote was drawn right of أنا and the emoji
 * out of the sentence's order (a teacher's pass). */
async function rtlCommandLine(browser, tmp) {
  const out = path.join(tmp, 'rtlcmd');
  const items = ['\u0623\u0646\u0627', '\u0623\u062d\u0628', '\u0627\u0644\u062a\u0639\u0644\u0645', '\u0627\u0644\u0639\u0645\u064a\u0642',
    '\u{1F600}', '\u{1F389}'];
  attnviz(['--heads', '2', '--html', '--no-plot', '-q', '-o', out, items.join(' ')]);
  await test('html_rtl_command_line_reads_as_the_title', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'), 375, 600);
    const m = await page.evaluate((textBox, items) => {
      const e = document.getElementById('av-command'), all = e.textContent;
      const box = (a, b) => textBox(e, a, b); /* the drawn box of all[a, b) */
      const first = all.indexOf("'" + items[0]), at = [];
      for (const w of items) at.push(all.indexOf(w, at.length ? at[at.length - 1] : first));
      const end = at[at.length - 1] + items[items.length - 1].length;
      return { all, items: at.map((a, k) => box(a, a + items[k].length)), open: box(first, first + 1), close: box(end, end + 1) };
    }, await textBoxFn(page), items);
    check(m.close && m.all.endsWith("'"), 'command ' + JSON.stringify(m.all));
    const bad = [], line = (a, b) => Math.abs(a.t - b.t) < 5;
    for (let k = 1; k < items.length; k++) {
      const a = m.items[k - 1], b = m.items[k];
      if (!(b.t > a.t + 5 || (line(a, b) && b.r <= a.l + 0.5))) bad.push(items[k] + ' at ' + JSON.stringify(b) + ' after ' + items[k - 1] + ' at ' + JSON.stringify(a));
    }
    const on = (q) => m.items.filter((x) => line(x, q));
    if (!line(m.open, m.items[0]) || on(m.open).some((x) => m.open.r > x.l + 0.5)) bad.push('opening quote at ' + JSON.stringify(m.open));
    if (!line(m.close, m.items[items.length - 1]) || on(m.close).some((x) => m.close.l < x.r - 0.5)) bad.push('closing quote at ' + JSON.stringify(m.close));
    check(bad.length === 0, 'out of order: ' + bad.join('; ') + ' in ' + JSON.stringify(m.all));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* A 240-token sentence typed as the command: its "command:" line filled about 15 lines of a 375 px window (5 of a
 * 1280 px one) above the controls (a tester's pass). Expected: the command folded in a closed <details> of one
 * line, "command (N characters): " and the command's start, N the command's length counted here (attnviz
 * --heads 2 --html --no-plot -q -o OUT 'w1 … w240', all ASCII), the controls (nav) starting within two lines
 * of it; opened, the whole command (#av-command's text) shown on its many lines. A command of 200 characters
 * or less (12 tokens) stays the one paragraph "command: …". */
async function longCommandLine(browser, tmp) {
  for (const T of [240, 12]) {
    const out = path.join(tmp, 'long-command' + T), sentence = Array.from({ length: T }, (_, i) => 'w' + (i + 1)).join(' ');
    attnviz(['--heads', '2', '--html', '--no-plot', '-q', '-o', out, sentence]);
    /* the -o word as the page's command writes it (shell-quoted when it holds more than letters, digits and ./_-:
     * TMPDIR="/tmp/it's" gives '/tmp/it'\''s/...') */
    const word = /^[A-Za-z0-9_./-]+$/.test(out) ? out : "'" + out.replace(/'/g, "'\\''") + "'";
    const cmd = 'attnviz --heads 2 --html --no-plot -q -o ' + word + " '" + sentence + "'";
    for (const W of T === 240 ? [375, 1280] : [375]) {
      await test('html_long_command_line_is_folded_' + T + '_tokens_' + W + '_px', async () => {
        const page = await openPage(browser, path.join(out, 'attnviz.html'), W, 700);
        const m = await page.evaluate(() => {
          const box = document.getElementById('av-command-box'), s = box && box.querySelector('summary');
          const code = document.getElementById('av-command'), r = (e) => e.getBoundingClientRect();
          return { box: !!box, open: box ? box.open : null, summary: s ? s.textContent : '', sh: s ? r(s).height : 0,
            top: r(box || code.parentNode).top, nav: r(document.querySelector('nav')).top, code: code.textContent,
            shown: code.checkVisibility(), para: code.parentNode.tagName === 'P' ? code.parentNode.textContent : '',
            line: parseFloat(getComputedStyle(document.body).lineHeight) };
        });
        check(m.code === cmd, 'the command is ' + JSON.stringify(m.code.slice(0, 80)) + '…, not ' + JSON.stringify(cmd.slice(0, 80)) + '…');
        if (T === 12) {
          check(cmd.length <= 200 && !m.box && m.para === 'command: ' + cmd, 'a ' + cmd.length + '-character command is ' +
            (m.box ? 'folded' : 'the paragraph ' + JSON.stringify(m.para)));
        } else {
          check(m.box && m.open === false, 'a ' + cmd.length + '-character command is not folded in a closed <details>');
          check(m.summary.startsWith('command (' + cmd.length.toLocaleString('en') + ' characters): ' + cmd.slice(0, 60)),
            'the fold says ' + JSON.stringify(m.summary.slice(0, 120)));
          check(m.sh < 2 * m.line, 'the folded command is ' + m.sh + ' px high, more than a line of ' + m.line + ' px');
          check(m.nav - m.top < 2.5 * m.line, 'the controls start ' + (m.nav - m.top) + ' px below the command line');
          check(!m.shown, 'the whole command is shown while folded');
          await page.click('#av-command-box summary');
          const h = await page.$eval('#av-command', (e) => e.getClientRects().length);
          check(h > 1, 'opened, the command is drawn on ' + h + ' line(s)');
        }
        check(page.problems.length === 0, page.problems.join('; '));
        await page.close();
      });
    }
  }
}

/* --head 2 --explain 爱,我 --html: the page opens on the cell view of head 2, query 1 (爱) → key 0 (我), with
 * the q·k --explain printed; it opened on head 0 and cell 0, 0 (a teacher's pass). Without them, the head
 * view of head 0 as before. */
async function startCell(browser, tmp) {
  const out = path.join(tmp, 'start'), plain = path.join(tmp, 'start-plain');
  const args = ['--heads', '4', '--head', '2', '--explain', '\u7231,\u6211', '\u6211\u7231\u6df1\u5ea6\u5b66\u4e60'];
  const trace = attnviz(args.concat(['--no-plot', '-q']));
  const dot = trace.match(/\n {8}= (-?[0-9.]+)\n/);
  check(dot, '--explain printed no q\u00b7k');
  attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out]));
  attnviz(['--heads', '4', '--html', '--no-plot', '-q', '-o', plain, '\u6211\u7231\u6df1\u5ea6\u5b66\u4e60']);
  await test('html_opens_on_the_explained_cell', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    const checked = await page.$eval('#av-heads [aria-checked="true"]', (e) => e.dataset.h);
    check(checked === '2', 'head selected: ' + checked);
    check(await page.$eval('#view-cell', (e) => !e.hidden), 'the cell view is not the one shown');
    const text = await page.$eval('#view-cell', (e) => e.textContent);
    check(text.includes('head 2: query 1 \u201c\u7231\u201d \u2192 key 0 \u201c\u6211\u201d'), 'cell view heading: ' + text.slice(0, 120));
    /* the query pressed in the token strip, as a click on that cell presses it (no token was: an interactive-page pass) */
    const pressed = await page.$$eval('[aria-pressed="true"][data-i]', (bs) => bs.map((b) => b.dataset.i));
    check(pressed.length > 0 && pressed.every((i) => i === '1'), 'pressed tokens on opening: ' + JSON.stringify(pressed));
    const shown = await page.$eval('#view-cell [data-role="dot"]', (e) => e.textContent);
    check(Math.abs(num(shown) - Number(dot[1])) <= 1e-4 * Math.max(1, Math.abs(Number(dot[1]))), 'cell view q\u00b7k ' + shown + ', --explain ' + dot[1]);
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
    const p2 = await openPage(browser, path.join(plain, 'attnviz.html'));
    check(await p2.$eval('#av-heads [aria-checked="true"]', (e) => e.dataset.h) === '0', 'without --head: not head 0');
    check(await p2.$eval('#view-head', (e) => !e.hidden), 'without --explain: not the head view');
    await p2.close();
  });
}

/* With RoPE the cell view's q and k are the rotated vectors, as --explain says ("(after RoPE)") and as
 * Q.npy and K.npy hold them; the page showed them with no word of it, beside "positions: RoPE" (a
 * teacher's pass). A sinusoidal run says nothing of RoPE; the trained toy model with RoPE says it too. */
async function ropeCell(browser, tmp) {
  const rope = path.join(tmp, 'rope-cell'), sin = path.join(tmp, 'sin-cell'), model = path.join(tmp, 'rope-model');
  const args = ['--heads', '2', '--positions', 'rope', '--causal', '--explain', '3,1', '\u6211\u7231\u6df1\u5ea6\u5b66\u4e60'];
  check(/\(after RoPE\)/.test(attnviz(args.concat(['--no-plot', '-q']))), '--explain no longer says (after RoPE)');
  attnviz(args.concat(['--html', '--no-plot', '-q', '-o', rope]));
  attnviz(['--heads', '2', '--explain', '3,1', '--html', '--no-plot', '-q', '-o', sin, 'I love deep learning']);
  attnviz(['--train', 'reverse', '--positions', 'rope', '--steps', '2', '-q', '-o', model]);
  attnviz(['--model', model, '--explain', '3,1', '--html', '--no-plot', '-q', '-o', path.join(model, 'page'), '3 1 4 >']);
  const lines = async (dir) => {
    const page = await openPage(browser, path.join(dir, 'attnviz.html'));
    await page.waitForSelector('#view-cell:not([hidden]) [data-role="q"]');
    const eq = await page.$$eval('#view-cell p.eq', (ps) => ps.map((p) => p.textContent).filter((t) => /^[qk]_\d/.test(t)));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
    return eq;
  };
  await test('html_rope_cell_view_says_q_and_k_are_rotated', async () => {
    for (const dir of [rope, path.join(model, 'page')]) {
      const eq = await lines(dir);
      check(eq.length === 2 && eq.every((t) => /\(after RoPE\)$/.test(t)), path.basename(dir) + ': q and k lines ' + JSON.stringify(eq));
    }
    const eq = await lines(sin);
    check(eq.length === 2 && eq.every((t) => !/RoPE/.test(t)), 'sinusoidal: q and k lines ' + JSON.stringify(eq));
  });
}

/* The cell view of a toy trained with --no-scale says it was trained without \u00f7\u221ad_k, as --explain and the
 * trace's scale line do: "(--no-scale)" named an option that is an error with --model (a teacher's report).
 * A single layer's --no-scale run still names the option; --compare scale's "no scale" run names --compare
 * scale (no --no-scale was typed). */
async function noScaleModelCell(browser, tmp) {
  const model = path.join(tmp, 'noscale-model'), single = path.join(tmp, 'noscale-single');
  const cmp = path.join(tmp, 'noscale-compare');
  attnviz(['--train', 'reverse', '--no-scale', '--steps', '2', '-q', '-o', model]);
  attnviz(['--model', model, '--explain', '3,1', '--html', '--no-plot', '-q', '-o', path.join(model, 'page'), '3 1 4 >']);
  attnviz(['--no-scale', '--explain', '1,0', '--html', '--no-plot', '-q', '-o', single, 'a b c']);
  attnviz(['--compare', 'scale', '--explain', '1,0', '--html', '--no-plot', '-q', '-o', cmp, 'a b c']);
  const line = async (dir) => {
    const page = await openPage(browser, path.join(dir, 'attnviz.html'));
    await page.waitForSelector('#view-cell:not([hidden]) [data-role="dot"]');
    const eq = await page.$$eval('#view-cell p.eq', (ps) => ps.map((p) => p.textContent).filter((t) => /^no \u00f7/.test(t)));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
    return eq;
  };
  await test('html_no_scale_model_cell_says_trained_so', async () => {
    const eq = await line(path.join(model, 'page'));
    check(eq.length === 1 && eq[0].startsWith('no \u00f7\u221ad_k (the model was trained without it): S = q\u00b7k in float32 (the sum above is in double) = '),
      'model: ' + JSON.stringify(eq));
    const eq1 = await line(single);
    check(eq1.length === 1 && eq1[0].startsWith('no \u00f7\u221ad_k (--no-scale): S = q\u00b7k in float32 (the sum above is in double) = '), 'single layer: ' + JSON.stringify(eq1));
    const page = await openPage(browser, path.join(cmp, 'attnviz.html'));
    await page.waitForSelector('#view-cell:not([hidden]) [data-role="dot"]');
    const eq2 = await page.evaluate(() => {
      const st = window.attnviz.state;
      st.run = window.attnviz.data.runs.findIndex((r) => r.name === 'no scale');
      window.attnviz.render();
      return Array.from(document.querySelectorAll('#view-cell p.eq'), (p) => p.textContent).filter((t) => /^no \u00f7/.test(t));
    });
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
    check(eq2.length === 1 && eq2[0].startsWith('no \u00f7\u221ad_k (--compare scale): S = q\u00b7k in float32 (the sum above is in double) = '), '--compare scale: ' + JSON.stringify(eq2));
    const trace = attnviz(['--model', model, '--explain', '3,1', '--no-plot', '-q', '3 1 4 >']);
    check(/\n  no \u00f7\u221ad_k \(the model was trained without it\): /.test(trace), '--explain: ' + trace);
  });
}

/* With d_k = 1 (-d 8 --heads 8) the scale 1/√d_k is 1, but the run is scaled: the cell view said "no ÷√d_k
 * (--no-scale): S = q·k" of it, because it took a scale of 1 for no scale (an auditor's pass). Paper eq. 1 divides
 * by √d_k whatever d_k is, and --explain of the same run says "÷√d_k: ... / √1 = ..."; the page must too, and a
 * --no-scale run at d_k = 1 still says "no ÷√d_k (--no-scale)". */
async function dkOneCell(browser, tmp) {
  const on = path.join(tmp, 'dk1'), off = path.join(tmp, 'dk1-noscale');
  const args = ['-d', '8', '--heads', '8', '--explain', '1,0', 'a b c'];
  check(/\n  \u00f7\u221ad_k: \S+ \/ \u221a1 = /.test(attnviz(args.concat(['--no-plot', '-q']))), '--explain no longer divides by \u221a1');
  attnviz(args.concat(['--html', '--no-plot', '-q', '-o', on]));
  attnviz(args.concat(['--no-scale', '--html', '--no-plot', '-q', '-o', off]));
  const line = async (dir) => {
    const page = await openPage(browser, path.join(dir, 'attnviz.html'));
    await page.waitForSelector('#view-cell:not([hidden]) [data-role="dot"]');
    const eq = await page.$$eval('#view-cell p.eq', (ps) => ps.map((p) => p.textContent).filter((t) => /^(no )?\u00f7/.test(t)));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
    return eq;
  };
  await test('html_d_k_1_cell_view_still_divides_by_sqrt_d_k', async () => {
    const eq = await line(on);
    check(eq.length === 1 && /^\u00f7\u221ad_k: \S+ \/ \u221a1 = /.test(eq[0]), 'scaled, d_k = 1: ' + JSON.stringify(eq));
    const eq1 = await line(off);
    check(eq1.length === 1 && eq1[0].startsWith('no \u00f7\u221ad_k (--no-scale): S = q\u00b7k in float32 (the sum above is in double) = '), '--no-scale, d_k = 1: ' + JSON.stringify(eq1));
  });
}

/* A float32 weight below the page's digits is written as --explain writes it, 6.65e\u22127, not 0.0000 (a
 * teacher's pass). --no-scale on "I love deep learning" gives head 0, query 0 ("I") → key 2 ("deep") a weight
 * of 6.65e-7 (weights.npy of the same run); the page opens on that cell (--explain 0,2). */
async function tinyWeight(browser, tmp) {
  const out = path.join(tmp, 'tiny');
  const args = ['--heads', '1', '--no-scale', '--explain', '0,2', 'I love deep learning'];
  const trace = attnviz(args.concat(['--no-plot', '-q']));
  const m = trace.match(/A\[0, 0, 2\] = exp\([^)]*\) \/ [0-9.]+ = ([0-9.e+-]+)/);
  check(m && Number(m[1]) > 0 && Number(m[1]) < 5e-5, '--explain 0,2 no longer gives a tiny weight: ' + (m ? m[1] : 'none'));
  const exArg = Number(trace.match(/A\[0, 0, 2\] = exp\(([^)]*)\)/)[1]); /* --explain's S \u2212 max, 9 digits */
  const dump = path.join(tmp, 'tiny_dump');
  attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out, '--dump', dump]));
  await test('html_tiny_weight_is_not_zero', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    const shown = await page.$eval('#view-cell [data-role="weight"]', (e) => e.textContent);
    check(/^[0-9.]+e\u2212[0-9]+$/.test(shown), 'cell view weight: ' + shown);
    check(Math.abs(num(shown.replace('\u2212', '-')) / Number(m[1]) - 1) < 0.01, 'cell view weight ' + shown + ', --explain ' + m[1]);
    /* and the weighted sum's A·v_j and "has weight P%" (they read 0.0000 and 0.0%, where --explain now gives the
     * weight and 6.7e-05 %: a learner's pass) */
    const text = await page.$eval('#view-cell', (e) => e.textContent);
    const av = text.match(/A\u00b7v_2 = ([0-9.e\u2212]+) \u00d7/), pct = text.match(/has weight ([0-9.e\u2212]+)% in query/);
    check(av && Math.abs(num(av[1].replace('\u2212', '-')) / Number(m[1]) - 1) < 0.01, 'A\u00b7v_2 line: ' + (av ? av[1] : 'none'));
    check(pct && Math.abs(num(pct[1].replace('\u2212', '-')) / (100 * Number(m[1])) - 1) < 0.01, '"has weight" ' + (pct ? pct[1] : 'none'));
    /* and the row of key 2 in the softmax table: S \u2212 max to the digits of the line's exponent, exp(S \u2212 max) (about
     * 1e-6) in scientific notation as the weight beside it, both as --explain's exp(S \u2212 max) gives them; it read
     * "0.0000" beside the weight 6.65e\u22127 */
    const row = await page.$$eval('#view-cell tr[data-j="2"] td', (tds) => tds.map((e) => e.textContent));
    const arg = text.match(/A\[0, 0, 0, 2\] = exp\(([^)]+)\)/), ex = Math.exp(exArg);
    check(arg && row[3] === arg[1] && Math.abs(num(row[3]) - exArg) <= 0.5 * Math.pow(10, -digitsOf(row[3])) + 1e-9,
      'row 2\u2019s S \u2212 max ' + row[3] + ', the line\u2019s ' + (arg && arg[1]) + ', --explain\u2019s ' + exArg);
    check(/^[0-9]\.[0-9]{4}e\u2212[0-9]{2,}$/.test(row[4]) && Math.abs(num(row[4].replace('\u2212', '-')) / ex - 1) <= 6e-5,
      'row 2\u2019s exp(S \u2212 max) ' + row[4] + ', exp(' + exArg + ') = ' + ex);
    /* and the vector A·v_2 itself, weights.npy[0, 0, 2] × V.npy[0, 2, :] (all about 1e-6), in scientific notation with
     * 4 digits as --explain prints it (numpy's rule: every entry below 1e-4), each within half a unit of its last
     * digit: it read [0.0000 0.0000 …] under "A·v_2 = 6.65e−7 × v_2" (a teacher's pass) */
    const W = readNpy(path.join(dump, 'weights.npy')), V = readNpy(path.join(dump, 'V.npy'));
    const avs = (await page.$$eval('#view-cell p.eq', (ps) => ps.filter((e) => e.textContent.startsWith('A\u00b7v_2 = '))
      .map((e) => e.querySelector('span.vec').textContent).join(''))).replace(/[[\]]/g, '').trim().split(/\s+/);
    check(avs.length === V.shape[2], 'A\u00b7v_2 has ' + avs.length + ' entries, d_k = ' + V.shape[2]);
    avs.forEach((t, d) => {
      const ref = W.at(0, 0, 2) * V.at(0, 2, d);
      check(/^\u2212?[0-9]\.[0-9]{4}e\u2212[0-9]{2,}$/.test(t) && Math.abs(num(t.replace(/\u2212/g, '-')) - ref) <= 6e-5 * Math.abs(ref),
        'A\u00b7v_2[' + d + ']: page shows ' + t + ', weights.npy \u00d7 V.npy gives ' + ref);
    });
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* A masked cell's softmax row checks as an unmasked one's: with --precision 0 the row of query 2 ("deep") of
 * `--causal --heads 2 "I love deep learning"`, opened on masked key 3, read "1  0  1  0.82" for key 0 and "row sum =
 * 1", where --explain gives exp(S \u2212 max) = 1 and a row sum of 1.21282355 for the weight 0.824522, and key 1's
 * exp(S \u2212 max) of 0.091332 read "0" beside its weight 0.075. The shown exp(S \u2212 max) of key 0 over the shown row
 * sum must give its shown weight to the weight's digits, the row sum and every exp(S \u2212 max) must be --explain's to
 * their digits, and no unmasked exp(S \u2212 max) may read 0. */
async function maskedCellRowDigits(browser, tmp) {
  const args = ['--precision', '0', '--causal', '--heads', '2', 'I love deep learning'];
  const ex = attnviz(args.concat(['--no-plot', '-q', '--explain', '2,3']));
  const sum = ex.match(/row sum \u03a3_j exp\(S \u2212 max\) = ([0-9.]+)/);
  const exps = [0, 1, 2].map((n) => { const m = ex.match(new RegExp('^ +' + n + ' +\\S+ +(\\S+) +(\\S+) +(\\S+) +(\\S+)$', 'm')); return m && Number(m[3]); });
  check(sum && exps.every((e) => e > 0) && /this cell is masked/.test(ex), '--explain 2,3 no longer gives a masked cell in a row of 3 keys: ' + ex);
  const out = path.join(tmp, 'maskrow');
  attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out]));
  await test('html_masked_cell_row_checks_on_a_calculator', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    const t = await page.evaluate(() => {
      const a = window.attnviz; a.state.head = 0; a.state.shown = new Set([0]); a.state.cell = { i: 2, j: 3 }; a.state.view = 'cell'; a.render();
      return { rows: [...document.querySelectorAll('#view-cell tr[data-j]')].map((tr) => [...tr.querySelectorAll('td')].map((e) => e.textContent)),
        line: [...document.querySelectorAll('#view-cell p.eq')].map((e) => e.textContent).find((e) => e.startsWith('row max')) };
    });
    const shownSum = t.line && t.line.match(/row sum \u03a3_j exp\(S \u2212 max\) = ([0-9.]+)$/);
    check(shownSum, 'no row sum: ' + t.line);
    const d = digitsOf(shownSum[1]);
    check(Math.abs(num(shownSum[1]) - Number(sum[1])) <= 0.5 * Math.pow(10, -d) + 1e-9, 'row sum ' + shownSum[1] + ', --explain ' + sum[1]);
    const q = num(t.rows[0][4]) / num(shownSum[1]), w = t.rows[0][5];
    check(Math.abs(q - num(w)) <= 0.5 * Math.pow(10, -digitsOf(w)) + 1e-9, 'key 0: ' + t.rows[0][4] + ' / ' + shownSum[1] + ' = ' + q + ', not the weight ' + w);
    for (const n of [0, 1, 2]) {
      const e = t.rows[n][4];
      check(num(e) > 0 && Math.abs(num(e) - exps[n]) <= 0.5 * Math.pow(10, -digitsOf(e)) + 1e-9, 'key ' + n + '\u2019s exp(S \u2212 max) ' + e + ', --explain ' + exps[n]);
    }
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* The cell view's tables read on a calculator in every cell of a page, not one: no exp(S − max) of a key that is not
 * masked shows as 0 (exp of a finite number is not 0), the column is one notation, as numpy prints one array and
 * --explain's table (teach.c: scientific for all when a number that is not 0 would print as 0), and each value is
 * exp(S − max) of scores.npy to its digits; and in the q·k table each partial sum is Q.npy·K.npy's running sum
 * in double to its digits, the products keep --precision digits (more only for one that would print as 0), and
 * the products shown down to a row add up to its partial sum within their rounding: k rows × half a unit of the
 * products' last digit, plus half a unit of the sum's, which the line under the table says in words (the
 * maintainer's choice over products of 5 to 7 digits that add up to one unit). With --precision 1 --no-scale
 * -d 64 --heads 2 on "我爱深度学习 and I love deep learning", head 0, cell (0, 0) read "度 3.3 −4.3 0.0 0.0086",
 * e^−4.326 = 0.0132 as 0.0, in the column of "学 … 9.7e−06"; an 8-bit --no-scale page (128 tokens) read "−5.31 |
 * 0.00" (head 2, query 5, key 1); with --precision 0 --causal --heads 2 "I love deep learning", head 0, query 2,
 * key 3, row 2 reads product 2 and partial sum 1 after 0, and row 3 product 0 and partial sum 2 after 1; at the
 * default 4 digits, cell (0, 0)'s products add up to 11.1226 at row 89, shown 11.1224: within the rounding, and
 * said so under the table. A product that is not 0, and its factors, do not show as 0 either: at --precision 1
 * row 1 of the first cell read "−0.3  −0.1  0.0", at --precision 0 row 21 of cell (2, 3) "0  0  −0.01". */
async function cellTablesAddUp(browser, tmp) {
  const zh = '\u6211\u7231\u6df1\u5ea6\u5b66\u4e60 and I love deep learning';
  const words = Array.from({ length: 128 }, (_, i) => 'w' + (i % 37)).join(' ');
  const fox = 'the quick brown fox jumps over the lazy dog and then the dog sleeps';
  const cases = [['--precision', '0', '--no-scale', '-d', '64', '--heads', '2', zh], ['--precision', '1', '--no-scale', '-d', '64', '--heads', '2', zh],
    ['--precision', '2', '--no-scale', '-d', '64', '--heads', '2', zh], ['--precision', '0', '--causal', '--heads', '2', 'I love deep learning'],
    ['--heads', '2', 'I love deep learning'], ['--heads', '2', '--precision', '0', '--no-scale', '-d', '64', fox], ['--heads', '8', '-d', '64', '--no-scale', '--causal', '--html-limit', '1', words]];
  for (let c = 0; c < cases.length; c++) {
    const args = cases[c], out = path.join(tmp, 'addup' + c), dump = path.join(tmp, 'addup' + c + '-dump');
    attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out, '--dump', dump]));
    const S = readNpy(path.join(dump, 'scores.npy')), Q = readNpy(path.join(dump, 'Q.npy')), K = readNpy(path.join(dump, 'K.npy'));
    await test('html_cell_tables_add_up_in_every_cell ' + args.slice(0, -1).join(' '), async () => {
      const page = await openPage(browser, path.join(out, 'attnviz.html'));
      const eight = await page.evaluate(() => window.attnviz.data.mode) === 1;
      /* every cell of every head of a float32 page; every row of every head of the 128-token 8-bit page, once */
      const cells = await page.evaluate((eight) => {
        const a = window.attnviz, r = a.data.runs[0], T = r.tokens.length, H = r.H, got = [];
        for (let h = 0; h < H; h++) for (let i = 0; i < T; i++) for (let j = 0; j < (eight ? 1 : T); j++) {
          a.state.head = h; a.state.shown = new Set([h]); a.state.cell = { i, j }; a.state.view = 'cell'; a.render();
          const tbs = document.querySelectorAll('#view-cell table');
          const rows = (tb) => [...tb.querySelectorAll('tr')].slice(1).map((tr) => [...tr.querySelectorAll('td')].map((e) => e.textContent));
          const note = document.querySelector('#view-cell [data-role="dot-rounding"]');
          got.push({ h, i, j, dot: eight ? [] : rows(tbs[0]), soft: rows(tbs[tbs.length - 1]), note: note ? note.textContent : null });
        }
        return got;
      }, eight);
      const n = (t) => Number(String(t).replace(/\u2212/g, '-'));
      const sci = (t) => /e/.test(t);
      /* one unit of the last digit shown, fixed or scientific */
      const unit = (t) => { const m = String(t).match(/^\u2212?\d+(?:\.(\d+))?(?:e([+\u2212]\d+))?$/);
        return Math.pow(10, -(m[1] ? m[1].length : 0) + (m[2] ? n(m[2]) : 0)); };
      const bad = [], prec = args.includes('--precision') ? Number(args[args.indexOf('--precision') + 1]) : 4;
      for (const { h, i, j, dot, soft, note } of cells) {
        const at = 'head ' + h + ' cell (' + i + ', ' + j + ')';
        const live = soft.filter((r) => r[2] !== '\u2212\u221e (masked)');
        let mx = -Infinity;
        for (const r of soft) if (r[2] !== '\u2212\u221e (masked)') mx = Math.max(mx, S.at(h, i, Number(r[0])));
        for (const r of live) {
          if (n(r[4]) === 0) bad.push(at + ': key ' + r[0] + ' exp(S \u2212 max) ' + r[4] + ' beside S \u2212 max ' + r[3]);
          else if (!eight) {
            const want = Math.exp(S.at(h, i, Number(r[0])) - mx);
            if (Math.abs(n(r[4]) - want) > 0.5 * unit(r[4]) * (1 + 1e-6) + 1e-12) bad.push(at + ': key ' + r[0] + ' exp(S \u2212 max) ' + r[4] + ', scores.npy gives ' + want);
          } else if (sci(r[4])) {
            /* an 8-bit page's scientific exp(S − max) gives the digits its S − max holds: that exponent, shown to
             * d digits, is within E ± u/2 (u = 10^−d), and exp over that range spans at most one unit of the last
             * digit shown, which takes d − 1 digits after the point (the mantissa is below 10: 10·u spans one unit
             * at d − 1); the shown value is within a unit of exp(E). "−5.71 | 3.31e−03" (head 2, query 3) gave
             * a third digit: exp(−5.715) = 3.296e−03 and exp(−5.705) = 3.329e−03 read 3.30, 3.31, 3.32, 3.33. */
            const E = n(r[3]), u = Math.pow(10, -digitsOf(r[3])), lo = Math.exp(E - u / 2), hi = Math.exp(E + u / 2);
            if (hi - lo > unit(r[4]) * (1 + 1e-9) || digitsOf(r[4]) !== Math.max(digitsOf(r[3]) - 1, 0) ||
                Math.abs(n(r[4]) - Math.exp(E)) > unit(r[4]) * (1 + 1e-9))
              bad.push(at + ': key ' + r[0] + ' exp(S \u2212 max) ' + r[4] + ' beside S \u2212 max ' + r[3] + ': exp(' + (E - u / 2) +
                ') = ' + lo + ' to exp(' + (E + u / 2) + ') = ' + hi);
          }
        }
        if (new Set(live.map((r) => sci(r[4]))).size > 1) bad.push(at + ': exp(S \u2212 max) column mixes notations: ' + live.map((r) => r[4]).join(' '));
        /* the S[i,j] column by the same rule on a float32 page: no score that is not 0 shows as 0, one notation, each
         * scores.npy's to its digits: the --precision 1 --no-scale case read "0.0" for −0.0275 (head 0, query 9, key 9),
         * the --precision 0 --causal one "0" for 0.165 (head 0, query 3, key 2) */
        if (!eight) {
          for (const r of live) {
            const s = S.at(h, i, Number(r[0]));
            if ((s !== 0 && n(r[2]) === 0) || Math.abs(n(r[2]) - s) > 0.5 * unit(r[2]) * (1 + 1e-6) + 1e-12) bad.push(at + ': key ' + r[0] + ' S[i,j] ' + r[2] + ', scores.npy ' + s);
          }
          if (new Set(live.map((r) => sci(r[2]))).size > 1) bad.push(at + ': S[i,j] column mixes notations: ' + live.map((r) => r[2]).join(' '));
          /* and the S − max column: with --precision 0 --no-scale -d 64 --heads 2 on the fox sentence, head 0, query 1,
           * key 4 read "0.0" for −0.0287 beside an exp(S − max) of "9.7e−01" */
          for (const r of live) {
            const d = S.at(h, i, Number(r[0])) - mx;
            if ((d !== 0 && n(r[3]) === 0) || Math.abs(n(r[3]) - d) > 0.5 * unit(r[3]) * (1 + 1e-6) + 1e-9) bad.push(at + ': key ' + r[0] + ' S \u2212 max ' + r[3] + ', scores.npy ' + d);
          }
          if (new Set(live.map((r) => sci(r[3]))).size > 1) bad.push(at + ': S \u2212 max column mixes notations: ' + live.map((r) => r[3]).join(' '));
        }
        /* each partial sum is Q.npy·K.npy's in double to its digits, the products shown down to its row add up to it
         * within their rounding and its own (half a unit of each one's last digit), and the table says so in words */
        if (!eight && !(note && /before rounding/.test(note) && /more or less, by up to half a unit of the last digit per row/.test(note))) bad.push(at + ': no line on the rounding under the q\u00b7k table: ' + note);
        let acc = 0, want = 0, slack = 0;
        for (const r of dot) {
          const d = Number(r[0]);
          acc += n(r[3]);
          const pr = Q.at(h, i, d) * K.at(h, j, d);
          want += pr;
          /* a product shows Q.npy·K.npy's to its digits, and neither it nor a factor as 0 when it is not 0 */
          if (Math.abs(n(r[3]) - pr) > 0.5 * unit(r[3]) * (1 + 1e-6) + 1e-9 || (pr !== 0 && (n(r[3]) === 0 || n(r[1]) === 0 || n(r[2]) === 0))) {
            bad.push(at + ': row ' + d + ' product ' + r[3] + ', Q.npy\u00b7K.npy gives ' + pr); break;
          }
          /* --precision digits, as the vectors above: more only for a product that would print as 0 with them */
          if ((sci(r[3]) || digitsOf(r[3]) !== prec) && Number(Math.abs(pr).toFixed(prec)) !== 0) {
            bad.push(at + ': row ' + d + ' product ' + r[3] + ' where --precision ' + prec + ' gives ' + pr.toFixed(prec)); break;
          }
          slack += 0.5 * unit(r[3]);
          if (Math.abs(acc - n(r[4])) > (slack + 0.5 * unit(r[4])) * (1 + 1e-6) + 1e-9) {
            bad.push(at + ': row ' + d + ' partial sum ' + r[4] + ', the products shown add up to ' + acc.toPrecision(8)); break;
          }
          if (Math.abs(want - n(r[4])) > 0.5 * unit(r[4]) * (1 + 1e-6) + 1e-9) { bad.push(at + ': row ' + d + ' partial sum ' + r[4] + ', Q.npy·K.npy gives ' + want); break; }
        }
      }
      check(cells.length > 0 && bad.length === 0, bad.length + ' faults in ' + cells.length + ' cells, e.g. ' + bad.slice(0, 6).join('; '));
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    });
  }
}

/* A score shown alone, in the matrix tooltip and the cell view's "stored score S[…] =" line, takes the S[i,j] column's
 * rule (a4edefa), numpy's for an array and --explain's for its table: a score that is not 0 goes scientific, with
 * --precision digits (1 at least), when it is below 1e-4 or its fixed digits would print it as 0. With --precision 1
 * (`--heads 4 "I love deep learning"`, head 1, query 1, key 2) both read "0.0" for 0.028732 (--explain's table), right
 * above the column's "2.9e−02"; C's "%.1e" of 0.028732 is "2.9e-02". At --precision 0 every score and the fixed or
 * scientific notation of each is checked against scores.npy in every cell of every head, in both places. */
async function singleScoreLikeColumn(browser, tmp) {
  for (const prec of ['1', '0']) {
    const out = path.join(tmp, 'onescore' + prec), dump = path.join(tmp, 'onescore' + prec + '_dump');
    attnviz(['--precision', prec, '--heads', '4', '--html', '--no-plot', '-q', '-o', out, '--dump', dump, 'I love deep learning']);
    const S = readNpy(path.join(dump, 'scores.npy')), p = Number(prec), H = S.shape[0], T = S.shape[2];
    await test('html_single_score_is_not_shown_as_0 --precision ' + prec, async () => {
      const page = await openPage(browser, path.join(out, 'attnviz.html'));
      const n = (t) => Number(String(t).replace(/\u2212/g, '-'));
      const bad = [];
      /* the notation the rule gives for s and, in it, s to its digits */
      const judge = (where, t, s) => {
        const a = Math.abs(s), sciWant = a > 0 && (a < 1e-4 || Number(a.toFixed(p)) === 0);
        const m = String(t).match(/^\u2212?\d+(?:\.(\d+))?(?:e([+\u2212])(\d\d+))?$/);
        if (!m || !!m[3] !== sciWant || (m[3] && (m[1] || '').length !== Math.max(p, 1)) || (!m[3] && (m[1] || '').length !== p) ||
            Math.abs(n(t) - s) > 0.5 * Math.pow(10, -(m[1] || '').length + (m[3] ? n(m[2] + m[3]) : 0)) * (1 + 1e-6) + 1e-12)
          bad.push(where + ': ' + t + ', scores.npy ' + s);
      };
      const lines = await page.evaluate((H, T) => {
        const a = window.attnviz, got = [];
        for (let h = 0; h < H; h++) for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
          a.state.head = h; a.state.shown = new Set([h]); a.state.cell = { i, j }; a.state.view = 'cell'; a.render();
          got.push([h, i, j, document.querySelector('#view-cell [data-role="score"]').textContent]);
        }
        return got;
      }, H, T);
      for (const [h, i, j, t] of lines) judge('cell view head ' + h + ' (' + i + ', ' + j + ')', t, S.at(h, i, j));
      if (prec === '1') check(lines.find((x) => x[0] === 1 && x[1] === 1 && x[2] === 2)[3] === '2.9e\u221202', 'cell view head 1 (1, 2): ' +
        lines.find((x) => x[0] === 1 && x[1] === 1 && x[2] === 2)[3]);
      await view(page, 'head');
      for (let h = 0; h < H; h++) {
        await page.click('#av-heads [data-h="' + h + '"]');
        await view(page, 'matrix');
        for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
          const t = await hoverCell(page, 0, i, j);
          judge('tooltip head ' + h + ' (' + i + ', ' + j + ')', t.score, S.at(h, i, j));
          if (prec === '1' && h === 1 && i === 1 && j === 2) check(t.score === '2.9e\u221202', 'tooltip head 1 (1, 2): ' + t.tip);
        }
        await view(page, 'head');
      }
      check(bad.length === 0, bad.length + ' faults, e.g. ' + bad.slice(0, 6).join('; '));
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    });
  }
}

/* The cell view's "row max =" is one score and says it as the matrix tooltip does: a row max that is not 0 does not show
 * as 0, and is scientific (--precision digits, 1 at least) exactly when it is below 1e-4 or its digits would print it as
 * 0. With --precision 0 --causal --heads 4 on "I love deep learning", head 3, query 0 (one key: weight 1, so 0 digits)
 * read "row max = 0" under the S[i,j] column's "3.8e−01" for 0.38367 (--explain's "row max = 0.383669764"); C's "%.1e"
 * of it is "3.8e-01". Checked in every cell of every head against scores.npy's row max over the keys not masked. */
async function rowMaxNotShownAs0(browser, tmp) {
  const args = ['--precision', '0', '--causal', '--heads', '4', 'I love deep learning'];
  const out = path.join(tmp, 'rowmax'), dump = path.join(tmp, 'rowmax_dump');
  attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out, '--dump', dump]));
  const S = readNpy(path.join(dump, 'scores.npy')), H = S.shape[0], T = S.shape[2];
  await test('html_row_max_is_not_shown_as_0', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    const got = await page.evaluate((H, T) => {
      const a = window.attnviz, res = [];
      for (let h = 0; h < H; h++) for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
        a.state.head = h; a.state.shown = new Set([h]); a.state.cell = { i, j }; a.state.view = 'cell'; a.render();
        const eq = [...document.querySelectorAll('#view-cell p.eq')].map((e) => e.textContent).find((t) => t.startsWith('row max = '));
        const sum = eq ? eq.match(/row sum \u03a3_j exp\(S \u2212 max\) = (\S+)/) : null;
        res.push([h, i, j, eq ? eq.match(/^row max = (\S+)/)[1] : null, sum ? sum[1] : null]);
      }
      return res;
    }, H, T);
    const bad = [];
    for (const [h, i, j, t, sum] of got) {
      let mx = -Infinity;
      for (let k = 0; k <= i; k++) mx = Math.max(mx, S.at(h, i, k)); /* --causal: keys 0..i */
      const m = t && t.match(/^\u2212?\d+(?:\.(\d+))?(?:e([+\u2212])(\d\d+))?$/), d = m ? (m[1] || '').length : 0;
      /* the fixed digits the line has, read from the row sum beside, which is always fixed (fL), so that a row max
       * written scientific where the rule wants it fixed is caught too (it was taken as wanted whenever shown) */
      const sm = sum && sum.match(/^\d+(?:\.(\d+))?$/), fixedDigits = sm ? (sm[1] || '').length : null, a = Math.abs(mx);
      if (fixedDigits === null) { bad.push('head ' + h + ' cell (' + i + ', ' + j + '): no fixed row sum: ' + sum); continue; }
      const sciWant = a > 0 && (a < 1e-4 || Number(a.toFixed(fixedDigits)) === 0);
      if (!m || (mx !== 0 && num(t.replace(/\u2212/g, '-')) === 0) || !!m[3] !== sciWant || (m[3] && d !== 1) ||
          Math.abs(Number(t.replace(/\u2212/g, '-')) - mx) > 0.5 * Math.pow(10, -d + (m[3] ? Number(m[2].replace('\u2212', '-') + m[3]) : 0)) * (1 + 1e-6) + 1e-12)
        bad.push('head ' + h + ' cell (' + i + ', ' + j + '): row max ' + t + ', scores.npy ' + mx);
    }
    check(bad.length === 0, bad.length + ' faults in ' + got.length + ' cells, e.g. ' + bad.slice(0, 6).join('; '));
    check(got.find((x) => x[0] === 3 && x[1] === 0 && x[2] === 0)[3] === '3.8e\u221201', 'head 3 cell (0, 0): row max ' + got.find((x) => x[0] === 3 && x[1] === 0 && x[2] === 0)[3]);
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* The cell view's line "A[…] = exp(S − max) / Σ = A" does not write an exponent that is not 0 as 0, as the S − max
 * column beside: with --precision 2 --heads 8 on "a b c d e f g h i j k l", head 7, query 8, key 11 (a near tie with
 * key 0, the max) it read "exp(0.00) / 4.26 = 0.23" for exp(−0.00176) (--explain: "exp(-0.00176477432)"); C's "%.2e"
 * of it is "-1.76e-03". In every cell of every head: the exponent is scores.npy's S − max to its digits, not 0 when it
 * is not, the same text as the column's when scientific, and exp(exponent) / sum as shown gives the weight shown to
 * half a unit of its last digit (or the line says what the page stores). */
async function lineExponentNotShownAs0(browser, tmp) {
  const args = ['--precision', '2', '--heads', '8', 'a b c d e f g h i j k l'];
  const out = path.join(tmp, 'lineexp'), dump = path.join(tmp, 'lineexp_dump');
  attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out, '--dump', dump]));
  const S = readNpy(path.join(dump, 'scores.npy')), H = S.shape[0], T = S.shape[2];
  await test('html_line_exponent_is_not_shown_as_0', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    const got = await page.evaluate((H, T) => {
      const a = window.attnviz, res = [];
      for (let h = 0; h < H; h++) for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
        a.state.head = h; a.state.shown = new Set([h]); a.state.cell = { i, j }; a.state.view = 'cell'; a.render();
        const eq = [...document.querySelectorAll('#view-cell p.eq')].map((e) => e.textContent).find((t) => /^A\[.*exp\(/.test(t));
        const col = document.querySelector('#view-cell tr[data-j="' + j + '"]').querySelectorAll('td')[3].textContent;
        res.push([h, i, j, eq, col]);
      }
      return res;
    }, H, T);
    const n = (t) => Number(String(t).replace(/\u2212/g, '-'));
    const unit = (t) => { const m = String(t).match(/^\u2212?\d+(?:\.(\d+))?(?:e([+\u2212]\d+))?$/);
      return Math.pow(10, -(m[1] ? m[1].length : 0) + (m[2] ? n(m[2]) : 0)); };
    const bad = [];
    for (const [h, i, j, eq, col] of got) {
      const at = 'head ' + h + ' cell (' + i + ', ' + j + ')';
      const m = eq && eq.match(/= exp\((\S+)\) \/ (\S+) = (\S+?)(;|$| )/);
      if (!m) { bad.push(at + ': no line: ' + eq); continue; }
      let mx = -Infinity;
      for (let k = 0; k < T; k++) mx = Math.max(mx, S.at(h, i, k));
      const d = S.at(h, i, j) - mx;
      /* the same text as the column's whenever either is scientific: "exp(−0.85)" beside "−8.47e−01" (head 7, query 8,
       * key 2) was let through, only a scientific line was compared */
      if ((d !== 0 && n(m[1]) === 0) || Math.abs(n(m[1]) - d) > 0.5 * unit(m[1]) * (1 + 1e-6) + 1e-12 || (/e/.test(m[1] + col) && m[1] !== col))
        bad.push(at + ': exponent ' + m[1] + ' beside the column\u2019s ' + col + ', scores.npy ' + d);
      if (m[4] !== ';' && Math.abs(Math.exp(n(m[1])) / n(m[2]) - n(m[3])) > 0.5 * unit(m[3]) * (1 + 1e-6))
        bad.push(at + ': exp(' + m[1] + ') / ' + m[2] + ' = ' + Math.exp(n(m[1])) / n(m[2]) + ', shown ' + m[3]);
    }
    check(bad.length === 0, bad.length + ' faults in ' + got.length + ' cells, e.g. ' + bad.slice(0, 6).join('; '));
    const c = got.find((x) => x[0] === 7 && x[1] === 8 && x[2] === 11);
    check(c[3].includes('exp(\u22121.76e\u221203) / '), 'head 7 cell (8, 11): ' + c[3]);
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* The matrix view's score colour bar ends at ±amax, the largest |score| of the head, and does not write it as 0 when it
 * is not: with --precision 0 --heads 1 on "I" (one score, 0.2377, so amax = 0.2377) it read "0 … 0", where the SVG
 * figure's ticks run from −0.2 to 0.2; by fmtScore's rule it is scientific with one digit, C's "%.1e": "2.4e-01".
 * A bar its digits say is unchanged: --heads 4 "I love deep learning", head 0, reads fixed to 2 digits. A bar held to
 * 2 digits (an 8-bit step's) keeps them when it goes scientific: with W_Q times 0.003 and -d 4 (scores about 2e−03)
 * and --precision 9 it read "−1.992509933e−03", ten significant digits (a review); now 2 after the point (here W_Q
 * times 0.0003 and -d 8, so that the largest score is below 0.005, "0.00" to 2 digits). */
async function scoreBarNotShownAs0(browser, tmp) {
  const small = path.join(tmp, 'sbar_w');
  attnviz(['-q', '--no-plot', '-d', '8', '--heads', '1', '--dump', small, 'a b c']);
  for (const f of fs.readdirSync(small)) if (!/^W_[QKVO]\.npy$/.test(f)) fs.unlinkSync(path.join(small, f));
  const wq = fs.readFileSync(path.join(small, 'W_Q.npy')), off = 10 + wq.readUInt16LE(8);
  for (let o = off; o + 4 <= wq.length; o += 4) wq.writeFloatLE(wq.readFloatLE(o) * 0.0003, o);
  fs.writeFileSync(path.join(small, 'W_Q.npy'), wq);
  await test('html_score_colour_bar_is_not_shown_as_0', async () => {
    for (const [args, want] of [[['--precision', '0', '--heads', '1', 'I'], ['\u22122.4e\u221201', '2.4e\u221201']], [['--heads', '4', 'I love deep learning'], null],
      [['--precision', '9', '-d', '8', '--heads', '1', '--weights', small, 'a b c'], 'sci2']]) {
      const out = path.join(tmp, 'sbar' + args.length), dump = out + '_dump';
      attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out, '--dump', dump]));
      const S = readNpy(path.join(dump, 'scores.npy')), T = S.shape[2];
      let amax = 0;
      for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) amax = Math.max(amax, Math.abs(S.at(0, i, j)));
      const page = await openPage(browser, path.join(out, 'attnviz.html'));
      await view(page, 'matrix');
      await page.click('#view-matrix input[value="scores"]');
      const bar = await page.$eval('#view-matrix .cbar', (b) => [b.querySelector('[data-role="cbar-lo"]').textContent, b.querySelector('[data-role="cbar-hi"]').textContent]);
      const v = (t) => Number(t.replace(/\u2212/g, '-'));
      check(v(bar[1]) !== 0 && v(bar[0]) === -v(bar[1]), args.join(' ') + ': bar ' + bar.join(' \u2026 '));
      if (want === 'sci2') {
        check(/^\d\.\d\de\u2212\d\d$/.test(bar[1]), args.join(' ') + ': bar ' + bar.join(' \u2026 ') + ', want 2 digits after the point');
        check(Math.abs(v(bar[1]) - amax) <= 0.5e-2 * Math.pow(10, Math.floor(Math.log10(amax))) * (1 + 1e-6), 'bar end ' + bar[1] + ', amax ' + amax);
      } else if (want) check(bar[0] === want[0] && bar[1] === want[1], args.join(' ') + ': bar ' + bar.join(' \u2026 ') + ', want ' + want.join(' \u2026 '));
      else { check(!/e/.test(bar[1]) && digitsOf(bar[1]) === 2, args.join(' ') + ': bar ' + bar.join(' \u2026 ')); same(bar[1], amax, 2, 'bar end'); }
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    }
  });
}

/* Each row of the q\u00b7k table checks on a calculator: the product of the q[d] and k[d] it shows gives the q[d]\u00b7k[d] it
 * shows within one unit of its last digit (half a unit for a whole number), as --explain's terms. With --precision 0 (`--causal --heads 2 "I love deep learning"`, head 0,
 * query 2, key 3) row 2 read "0  3  2" and row 4 "3  0  1" (--explain writes the terms "(0.5)(3.3)"). Every factor is
 * Q.npy's or K.npy's and the product theirs to the digits shown, the factors show the fewest digits from the vector
 * line's on that check (a row that checks with one digit fewer has too many), and rows 2 and 4 show one more digit. */
async function dotTableChecks(browser, tmp) {
  for (const prec of ['0', '4', '9', '10']) { /* 9 and 10: the factors' digits were capped at 9 (a review) */
    const args = ['--precision', prec, '--causal', '--heads', '2', 'I love deep learning'];
    const out = path.join(tmp, 'dotrow' + prec), dump = path.join(tmp, 'dotrow' + prec + '_dump');
    attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out, '--dump', dump]));
    const Q = readNpy(path.join(dump, 'Q.npy')), K = readNpy(path.join(dump, 'K.npy'));
    await test('html_dot_table_checks_on_a_calculator --precision ' + prec, async () => {
      const page = await openPage(browser, path.join(out, 'attnviz.html'));
      const rows = await page.evaluate(() => {
        const a = window.attnviz; a.state.head = 0; a.state.shown = new Set([0]); a.state.cell = { i: 2, j: 3 }; a.state.view = 'cell'; a.render();
        return [...document.querySelector('#view-cell table').querySelectorAll('tr')].slice(1).map((tr) => [...tr.querySelectorAll('td')].map((e) => e.textContent));
      });
      const D = Q.shape[2], base = Number(prec);
      check(rows.length === D, rows.length + ' rows for d_k ' + D);
      /* --explain's bound for its terms (teach.c explain_dot): one unit of the last digit, half of one for a whole number */
      const checks = (a, b, p) => Math.abs(num(a) * num(b) - num(p)) <= (digitsOf(p) ? 1 : 0.5) * Math.pow(10, -digitsOf(p)) * (1 + 1e-6);
      for (let d = 0; d < D; d++) {
        const [, q, k, p] = rows[d], qv = Q.at(0, 2, d), kv = K.at(0, 3, d);
        check(checks(q, k, p), 'row ' + d + ': ' + q + ' \u00d7 ' + k + ' = ' + num(q) * num(k) + ', shown ' + p);
        same(q, qv, digitsOf(q), 'q[' + d + ']');
        same(k, kv, digitsOf(k), 'k[' + d + ']');
        same(p, qv * kv, digitsOf(p), 'q[' + d + ']\u00b7k[' + d + ']');
        /* the products keep --precision digits, as the vectors above, more only for a product that is not 0 but would
         * print as 0 with them (the maintainer's choice: 5 to 7 digits beside 4-digit vectors were too noisy) */
        check((digitsOf(p) === base || (qv * kv !== 0 && Number(Math.abs(qv * kv).toFixed(base)) === 0 && digitsOf(p) > base)) &&
          digitsOf(q) === digitsOf(k) && digitsOf(q) >= base && (qv * kv === 0 || (num(q) !== 0 && num(k) !== 0)), 'row ' + d + ': ' + rows[d].join(' | '));
        const e = digitsOf(q) - 1;
        if (e >= base) check(!(checks(qv.toFixed(e), kv.toFixed(e), p) && (qv * kv === 0 || (Number(qv.toFixed(e)) !== 0 && Number(kv.toFixed(e)) !== 0))),
          'row ' + d + ': ' + q + ', ' + k + ' where ' + e + ' digits check');
      }
      /* hand-worked: q[2]·k[2] = 0.4816 × 3.2517 = 1.566, shown 2: 0 × 3 = 0 misses it by more than 0.5, 0.5 × 3.3 =
       * 1.65 does not; 2.9453 × 0.3161 = 0.931, shown 1: 3 × 0 misses it, 2.9 × 0.3 = 0.87 does not */
      if (prec === '0') check(rows[2].slice(1, 4).join(' ') === '0.5 3.3 2' && rows[4].slice(1, 4).join(' ') === '2.9 0.3 1',
        'rows 2 and 4: ' + rows[2].join(' | ') + '; ' + rows[4].join(' | '));
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    });
  }
}

/* The cell view writes q\u00b7k and its \u00f7\u221ad_k quotient as --explain does (C's "%.9g"): it wrote --precision + 4
 * digits after the point, "\u221256.02160560" and "\u22121.24947180" where --explain prints "-56.0216056" and
 * "-1.2494718", and at --precision 0 "17.1109" for "17.1108901". */
async function dotLikeExplain(browser, tmp) {
  const cases = [['--heads', '2', '--explain', '1,1'], ['--heads', '2', '--head', '1', '--explain', '3,2'],
    ['--heads', '2', '--precision', '0', '--explain', '2,0'], ['--heads', '1', '--explain', '0,0']];
  await test('html_dot_is_written_as_explain', async () => {
    for (const [n, opts] of cases.entries()) {
      const args = opts.concat(['I love deep learning']);
      const ex = attnviz(args.concat(['--no-plot', '-q']));
      const dot = ex.match(/\n {8}= (\S+)\n/), quot = ex.match(/\u00f7\u221ad_k: \S+ \/ \u221a\d+ = \S+ \/ \S+ = ([^,\s]+)/);
      check(dot && quot, opts.join(' ') + ': --explain has no q\u00b7k or \u00f7\u221ad_k line');
      const out = path.join(tmp, 'dotex' + n);
      attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out]));
      const page = await openPage(browser, path.join(out, 'attnviz.html'));
      const got = await page.$eval('#view-cell [data-role="dot"]', (e) => e.textContent);
      const line = await page.$$eval('#view-cell p.eq', (ps) => ps.map((e) => e.textContent).find((t) => t.startsWith('\u00f7\u221ad_k')));
      check(got === dot[1].replace(/-/g, '\u2212'), opts.join(' ') + ': the page\u2019s q\u00b7k = ' + got + ', --explain\u2019s ' + dot[1]);
      const want = '\u00f7\u221ad_k: ' + got + ' / \u221a' + ex.match(/\/ \u221a(\d+)/)[1] + ' = ' + quot[1].replace(/-/g, '\u2212') + '   ';
      check(line && line.startsWith(want), opts.join(' ') + ': "' + line + '", --explain\u2019s quotient ' + quot[1]);
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    }
  });
}

/* Without the scale the cell view's line under q\u00b7k is --explain's: the stored score is float32's sum of the products,
 * not the double sum above it. `--no-scale --heads 2 --head 1 --explain 2,1 "I love deep learning"` read "no \u00f7\u221ad_k
 * (--no-scale): S = q\u00b7k = 30.7796686" (the double sum again) where --explain says "S = q\u00b7k in float32 (the sum above
 * is in double) = 30.7796688"; the two are the same string now, and its number is scores.npy's S[1, 2, 1] to 9 digits. */
async function noScaleLineLikeExplain(browser, tmp) {
  const args = ['--no-scale', '--heads', '2', '--head', '1', '--explain', '2,1', 'I love deep learning'];
  const ex = attnviz(args.concat(['--no-plot', '-q'])).split('\n').find((t) => t.startsWith('  no \u00f7\u221ad_k'));
  const out = path.join(tmp, 'noscaleline'), dump = path.join(tmp, 'noscaleline_dump');
  attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out, '--dump', dump]));
  const S = readNpy(path.join(dump, 'scores.npy'));
  await test('html_no_scale_line_is_explain_s', async () => {
    check(ex, '--explain has no "no \u00f7\u221ad_k" line');
    const want = ex.trim().replace(/ {3}\(= scores\.npy.*$/, '').replace(/= -(?=\d)/, '= \u2212');
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    const line = await page.$$eval('#view-cell p.eq', (ps) => ps.map((e) => e.textContent).find((t) => t.startsWith('no \u00f7')));
    check(line === want, 'the page\u2019s "' + line + '", --explain\u2019s "' + want + '"');
    const x = Number(line.split('= ').pop().replace('\u2212', '-'));
    check(Math.abs(x - S.at(1, 2, 1)) <= 5e-9 * Math.abs(S.at(1, 2, 1)), 'the line\u2019s S ' + x + ', scores.npy ' + S.at(1, 2, 1));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* A weight between 0 and 1 reads as --explain's contribution line writes it (teach.c weight_format): never a whole
 * number nor one significant digit, scientific below 1e-4. With --precision 0 a weight of 0.5085 read "1" on the page
 * ("A·v_0 = 1 × v_0", and "exp(0) / 2 = 1"), where --explain says "A·v_0 = 0.51 ×"; with --precision 1 0.0508
 * read "0.1" (--explain "0.051"), 0.6951 with --precision 0 "1" ("0.70"), and 6.25e-5 at the default digits
 * "0.0001" (--explain "6.2514e-05"). The page's cell view opens on --explain's cell. */
async function weightDigitsLikeExplain(browser, tmp) {
  const cases = [['--precision', '0', '--explain', '1,0'], ['--precision', '1', '--explain', '2,1'],
    ['--precision', '0', '--explain', '3,3'], ['--no-scale', '--head', '1', '--explain', '2,1']];
  await test('html_weight_digits_are_explain_s', async () => {
    for (const [k, opts] of cases.entries()) {
      const args = ['--heads', '2'].concat(opts, ['I love deep learning']);
      const ex = attnviz(args.concat(['--no-plot', '-q'])).match(/A\u00b7v_\d+ = ([^ ]+) \u00d7/);
      check(ex, opts.join(' ') + ': --explain has no contribution line');
      const out = path.join(tmp, 'wdig' + k);
      attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out]));
      const page = await openPage(browser, path.join(out, 'attnviz.html'));
      const text = await page.$eval('#view-cell', (e) => e.textContent), got = text.match(/A\u00b7v_\d+ = ([^ ]+) \u00d7/);
      const w = await page.$eval('#view-cell [data-role="weight"]', (e) => e.textContent);
      /* scientific too as --explain writes it, its digits and C's two-digit exponent, with the page's true minus: the
       * page wrote "6.25e\u22125" beside --explain's "6.2514e-05" (a learner's pass) */
      check(got && got[1] === ex[1].replace(/-/g, '\u2212'), opts.join(' ') + ': the page\u2019s "' + (got && got[0]) + '", --explain\u2019s "' + ex[0] + '"');
      check(got && w === got[1], opts.join(' ') + ': the cell\u2019s weight ' + w + ' beside ' + (got && got[0]));
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    }
  });
}

/* "has weight P%" under 0.05 % reads as --explain's sentence writes it (C's "%.2g" of 100·A): fixed for a weight
 * from 1e-6 on ("0.0011%", "0.00012%", "0.044%"), scientific below it ("6.7e-05%", on the page "6.7e\u221205%", its
 * true minus; it wrote "6.7e\u22125%"). The page wrote "1.1e\u22123%" where --explain says "0.0011%". The cells are of
 * --no-scale runs of "I love deep learning" whose --explain gives weights of 1.1e-5, 1.2e-6, 4.4e-4 and 6.7e-7. */
async function percentLikeExplain(browser, tmp) {
  const cases = [['--heads', '2', '--head', '1', '--explain', '0,1'], ['--heads', '2', '--head', '1', '--explain', '3,1'],
    ['--heads', '1', '--explain', '3,0'], ['--heads', '1', '--explain', '0,2']];
  await test('html_small_percent_is_written_as_explain', async () => {
    for (const [k, opts] of cases.entries()) {
      const args = opts.concat(['--no-scale', 'I love deep learning']);
      const ex = attnviz(args.concat(['--no-plot', '-q'])).match(/has weight ([^ ]+)% in query/);
      check(ex && Number(ex[1]) > 0 && Number(ex[1]) < 0.05, opts.join(' ') + ': --explain no longer gives a weight under 0.05 %: ' + (ex && ex[0]));
      const want = ex[1].replace(/-/g, '\u2212');
      const out = path.join(tmp, 'pct' + k);
      attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out]));
      const page = await openPage(browser, path.join(out, 'attnviz.html'));
      const text = await page.$eval('#view-cell', (e) => e.textContent), got = text.match(/has weight ([^ ]+)% in query/);
      check(got && got[1] === want, opts.join(' ') + ': the page says "' + (got && got[0]) + '", --explain "' + ex[0] + '"');
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    }
  });
}

/* With --precision 0 a weight under 0.5 reads as --explain writes it (teach.c weight_format: fixed, the fewest digits
 * that show two significant ones), 0.48, not 4.81e\u22121 (a teacher's pass: scientific notation is for weights below
 * 1e-4). "I love deep learning" at one head gives row 1 ("love") 0.481319, 0.082085, 0.204174, 0.232422
 * (weights.npy of the same run): by hand 0.48, 0.082, 0.20 and 0.23; the page opens on cell (1, 0). The vectors
 * beside that weight take its digits. */
async function zeroPrecision(browser, tmp) {
  const out = path.join(tmp, 'prec0'), dump = path.join(tmp, 'prec0_dump');
  attnviz(['--heads', '1', '--precision', '0', '--explain', '1,0', '--html', '--no-plot', '-q', '-o', out, '--dump', dump,
    'I love deep learning']);
  await test('html_precision_0_weights_are_not_scientific', async () => {
    const W = readNpy(path.join(dump, 'weights.npy'));
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    const row = await page.$$eval('#view-cell tr[data-j] [data-role="row-weight"]', (tds) => tds.map((e) => e.textContent));
    check(row.join(' ') === '0.48 0.082 0.20 0.23', 'cell view row 1 of A: ' + row.join(' '));
    row.forEach((t, j) => same(t, W.at(0, 1, j), digitsOf(t), 'cell view A[1, ' + j + ']'));
    check(await page.$eval('#view-cell [data-role="weight"]', (e) => e.textContent) === '0.48', 'cell view weight');
    /* and the line that divides takes them too, so it checks on a calculator: it read "exp(0) / 2 = 0.48", where 1 / 2
     * is 0.5; the row's max and Σ exp(S − max) from scores.npy, in double, to 2 digits */
    const S = readNpy(path.join(dump, 'scores.npy')), srow = [0, 1, 2, 3].map((n) => S.at(0, 1, n)), mx = Math.max(...srow);
    const tot = srow.reduce((t, x) => t + Math.exp(x - mx), 0);
    const eqs = await page.$$eval('#view-cell p.eq', (ps) => ps.map((e) => e.textContent));
    const want = 'A[0, 0, 1, 0] = exp(' + (S.at(0, 1, 0) - mx).toFixed(2) + ') / ' + tot.toFixed(2) + ' = 0.48';
    check(eqs.some((t) => t.startsWith(want)) && Math.abs(Math.exp(S.at(0, 1, 0) - mx) / Number(tot.toFixed(2)) - 0.48) < 0.005,
      'the weight\u2019s line is not "' + want + '": ' + eqs.filter((t) => t.startsWith('A[')).join(' | '));
    check(eqs.some((t) => t === 'row max = ' + mx.toFixed(2) + '   row sum \u03a3_j exp(S \u2212 max) = ' + tot.toFixed(2)),
      'row max and sum: ' + eqs.filter((t) => t.startsWith('row max')).join(' | '));
    /* v_0 and A·v_0 take the weight's 2 digits, as --explain's "A·v_0 = 0.48 × [ 0.13  2.29 …] = [ 0.06  1.10 …]": with
     * 0 digits "0.48 × v_0 = [0 2 1 …]" went on "= [0 1 0 …]" (0.48 × 1 is not 0) */
    const V = readNpy(path.join(dump, 'V.npy'));
    const vecs = await page.$$eval('#view-cell p.eq', (ps) => Object.fromEntries(ps.filter((e) => /^(v_0|A\u00b7v_0) = /.test(e.textContent))
      .map((e) => [e.textContent.split(' ')[0], e.querySelector('span.vec').textContent.replace(/[[\]]/g, '').trim().split(/\s+/)])));
    check(vecs.v_0 && vecs['A\u00b7v_0'] && vecs.v_0.length === 512 && vecs['A\u00b7v_0'].length === 512, 'v_0 and A\u00b7v_0 lines: ' + Object.keys(vecs));
    for (let d = 0; d < 512; d++) {
      check(digitsOf(vecs.v_0[d]) === 2 && digitsOf(vecs['A\u00b7v_0'][d]) === 2, 'v_0[' + d + '] ' + vecs.v_0[d] + ', A\u00b7v_0[' + d + '] ' + vecs['A\u00b7v_0'][d]);
      same(vecs.v_0[d], V.at(0, 0, d), 2, 'v_0[' + d + ']');
      same(vecs['A\u00b7v_0'][d], W.at(0, 1, 0) * V.at(0, 0, d), 2, 'A\u00b7v_0[' + d + ']');
    }
    await view(page, 'head');
    await page.hover('#view-head .hv button[data-side="q"][data-i="1"]');
    const tip = await page.$eval('#view-head', (e) => e.textContent);
    check(tip.includes('0.082') && !/e\u2212/.test(tip), 'head view of query 1: ' + tip);
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* A weight exactly half-way between two printed values (a uniform row over 8 keys: 0.125) reads in the page as
 * in --show, -v and the figures, which round an exact tie to the even digit as printf and numpy do: 0.12. The
 * page's toFixed took the larger digit, 0.13 in every cell and tooltip. */
async function tieWeight(browser, tmp) {
  const out = path.join(tmp, 'tie');
  const args = ['--positions', 'none', '-d', '8', '--precision', '2', 'the the the the the the the the'];
  const trace = attnviz(args.concat(['--no-plot', '--show', '-v']));
  check(/^1 the 0\.12( 0\.12){7}$/m.test(trace), '--show no longer prints 0.12 for 1/8: ' + trace);
  check(/^ +\[ +0\.12( +0\.12){7}\]$/m.test(trace), '-v no longer prints 0.12 for 1/8');
  attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out]));
  await test('html_exact_tie_rounds_as_the_trace', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    await view(page, 'matrix');
    for (const [i, j] of [[0, 0], [1, 2], [7, 7]]) {
      const t = await hoverCell(page, 0, i, j);
      check(t.weight === '0.12', 'matrix tooltip A[0,' + i + ',' + j + '] = 0.125 shows ' + t.weight + ', --show 0.12');
    }
    await lib.clickCell(page, 0, 1, 2);
    const w = await page.$eval('#view-cell [data-role="weight"]', (e) => e.textContent);
    check(w === '0.12', 'cell view weight 0.125 shows ' + w + ', --show 0.12');
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* --attn-mask with row 1 all True: the cell view states the rule --explain
 * prints for a fully masked row (all-zero weights), not "exp(−∞) / 0 = 0". */
async function fullyMaskedRow(browser, tmp) {
  const out = path.join(tmp, 'rowmask'), mask = path.join(tmp, 'rowmask.npy');
  writeBoolNpy(mask, [[false, false, false], [true, true, true], [false, true, false]]);
  const args = ['--heads', '2', '-d', '8', '--attn-mask', mask, 'a b c'];
  attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out]));
  const rule = attnviz(args.concat(['--no-plot', '-q', '--explain', '1,1'])).match(/every key of this row is masked:[^]*?\)\./);
  check(rule, '--explain 1,1 no longer states the rule for a fully masked row');
  await test('html_cell_view_fully_masked_row_states_the_rule', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    await view(page, 'matrix');
    await lib.clickCell(page, 0, 1, 1);
    const text = await page.$eval('#view-cell', (e) => e.textContent);
    const shown = await page.$eval('#view-cell [data-role="all-masked"]', (e) => e.textContent).catch(() => '');
    check(shown === rule[0].replace(/\s+/g, ' '), 'cell (1, 1): the page says ' + JSON.stringify(shown) + ', --explain ' + JSON.stringify(rule[0]));
    check(!/row sum|\/ 0/.test(text), 'cell (1, 1) still divides by the row sum: ' + text.slice(0, 400));
    /* exactly 0, as --explain's row writes it ("0", not "0.0000"), and no weighted sum after the rule, as --explain */
    const w11 = await page.$eval('#view-cell [data-role="weight"]', (e) => e.textContent);
    const exRow = rule.input.split('\n').find((t) => /^ *\u2192 /.test(t)).trim().split(/ {2,}/).slice(-4);
    const pgRow = await page.$eval('#view-cell tr[data-j="1"]', (tr) => [...tr.children].slice(2).map((td) => td.textContent));
    check(w11 === exRow[3] && JSON.stringify(pgRow) === JSON.stringify(exRow), 'cell (1, 1): weight ' + w11 + ', row ' + JSON.stringify(pgRow) +
      '; --explain\u2019s row ' + JSON.stringify(exRow));
    check(!/weighted sum of v|has weight/.test(text), 'cell (1, 1): a weighted sum after the rule');
    /* a partly masked row still shows its division */
    await view(page, 'matrix');
    await lib.clickCell(page, 0, 2, 1);
    check(await page.$('#view-cell [data-role="all-masked"]') === null, 'row 2 is not fully masked');
    check(/row sum/.test(await page.$eval('#view-cell', (e) => e.textContent)), 'row 2 lost its row sum');
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* A clicked masked cell says why it is masked and that its key adds nothing, and a <pad> query's cell ends
 * with the <pad>-query note, in --explain's words for the same cell (its terminal walk-through): the page
 * read "A[0, 0, 1, 5] = exp(−∞) / 1.1705 = 0.0000" under "stored score S[0, 0, 1, 5] = 1.9405", with no
 * word of the causal mask, a <pad> key or --attn-mask's file, and nothing on a <pad> query's row. */
async function maskedCellReason(browser, tmp) {
  const mask = path.join(tmp, 'cellmask.npy');
  writeBoolNpy(mask, [[false, true, false], [false, false, false], [false, false, false]]);
  const words = (t) => t.replace(/\s+/g, ' ');
  /* [page, run arguments, cells]: the causal mask beside <pad> keys (j > i wins, as --explain), a <pad> key
   * without it, a <pad> key and a real key of a <pad> query's row, --attn-mask's file */
  const cases = [
    ['mask-causal', ['--heads', '1', '--pad-to', '6', '--causal', 'I love deep learning'], [[1, 5], [1, 2], [5, 4], [5, 0]]],
    ['mask-pad', ['--heads', '1', '--pad-to', '6', 'I love deep learning'], [[1, 5], [1, 0], [5, 4], [5, 0]]],
    ['mask-user', ['--heads', '1', '-d', '8', '--attn-mask', mask, 'a b c'], [[0, 1], [0, 2]]],
  ];
  await test('html_masked_cell_says_why_as_explain', async () => {
    for (const [dir, args, cells] of cases) {
      const out = path.join(tmp, dir);
      attnviz(args.concat(['--html', '--no-plot', '-q', '-o', out]));
      const page = await openPage(browser, path.join(out, 'attnviz.html'));
      for (const [i, j] of cells) {
        const ex = attnviz(args.concat(['--no-plot', '-q', '--explain', i + ',' + j]));
        const why = ex.match(/this cell is masked: (.*?), so S = \u2212\u221e/), none = ex.match(/key \d+ contributes nothing to the output of query \d+\./);
        const pad = ex.match(/\(query \d+ is <pad>:[^)]*\)/);
        await view(page, 'matrix');
        await lib.clickCell(page, 0, i, j);
        const text = words(await page.$eval('#view-cell', (e) => e.textContent));
        const at = dir + ' cell (' + i + ', ' + j + ')';
        const shown = await page.$eval('#view-cell [data-role="masked"]', (e) => e.textContent).catch(() => null);
        if (why) {
          check(shown !== null, at + ': --explain says "' + why[0] + '", the page has no such line: ' + text.slice(text.indexOf('row max'), text.indexOf('row max') + 200));
          check(shown === 'this cell is masked: ' + why[1] + ', so S = \u2212\u221e, exp(\u2212\u221e) = 0 and A[0, 0, ' + i + ', ' + j + '] = 0.',
            at + ': the page says "' + shown + '", --explain "' + why[0] + '"');
          check(text.includes(none[0]), at + ': no "' + none[0] + '"');
          check(!/exp\(\u2212\u221e\) \//.test(text), at + ': still divides exp(\u2212\u221e) by the row sum');
          check(num(await page.$eval('#view-cell [data-role="weight"]', (e) => e.textContent)) === 0, at + ': weight not 0');
          /* and the row's masked key as --explain's table writes it: "−∞ (masked)  −∞  0  0" (the page wrote 0.0000) */
          const exRow = ex.split('\n').find((t) => /^ *\u2192 /.test(t)).trim().split(/ {2,}/).slice(-4);
          const pgRow = await page.$eval('#view-cell tr[data-j="' + j + '"]', (tr) => [...tr.children].slice(2).map((td) => td.textContent));
          check(JSON.stringify(pgRow) === JSON.stringify(exRow), at + ': the page\u2019s row ' + JSON.stringify(pgRow) + ', --explain\u2019s ' + JSON.stringify(exRow));
        } else check(shown === null && !none, at + ': not masked, but the page or --explain says it is');
        /* a masked cell ends at "contributes nothing", as --explain's: no weighted sum of v, no "has weight 0.0%"
         * (the page went on with "A·v_j = 0.0000 × v_j = [0.0000 …]"); an unmasked one has both, as --explain */
        const exSum = /contribution to o_\d+ = /.test(ex) && /has weight [^ ]+% in query/.test(ex);
        check(exSum === !why && text.includes('weighted sum of v: o_') === exSum && /has weight [^ ]+% in query/.test(text) === exSum,
          at + ': --explain ' + (exSum ? 'has' : 'has no') + ' weighted sum, the page: ' + text.slice(text.indexOf('contributes'), text.indexOf('contributes') + 120));
        const note = await page.$eval('#view-cell [data-role="pad-query"]', (e) => e.textContent).catch(() => null);
        if (pad) check(note === words(pad[0]), at + ': --explain ends "' + words(pad[0]) + '", the page ' + JSON.stringify(note));
        else check(note === null, at + ': a real query with a <pad> note: ' + note);
      }
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    }
  });
}

/* x as the smallest m·10^k (m = 1..9) at least that large, as text */
function upBound(x) {
  for (let k = -9; k <= 9; k++) for (let m = 1; m <= 9; m++) {
    const b = m * Math.pow(10, k);
    if (b >= x * (1 - 1e-12)) return b.toFixed(Math.max(0, -k));
  }
  throw new Error('no bound for ' + x);
}
/* What an 8-bit number over [lo, hi] (255 steps) supports: the digits whose unit is not finer than the step,
 * the error bound of the stored number, half a step, rounded up (upBound), and at(d), the bound of a number shown
 * to d digits: half a step plus half a unit of the last digit shown, rounded up (a score "0" is anywhere in
 * [−0.5, 0.5] before its 8-bit error). */
function q8Expect(lo, hi) {
  const step = (hi > lo ? hi - lo : 1) / 255, half = step / 2;
  let digits = 0;
  while (Math.pow(10, -(digits + 1)) >= step) digits++;
  const at = (d) => upBound(half + 0.5 * Math.pow(10, -d));
  return { digits, half, bound: upBound(half), shown: at(digits), at };
}

/* Over --html-limit: 8-bit weights and scores (mode 1), then panels cut (mode 2). Each value is shown
 * only to the digits its 8-bit step supports, followed by "(8-bit: ±E)", and must be within E plus half a
 * printed digit (the scores of head 5 were shown to 2 digits with a step of about 0.03: a learner read
 * digits that were not in the page). */
async function quantisedRuns(browser, tmp) {
  const words = (n) => Array.from({ length: n }, (_, i) => 'w' + (i % 37)).join(' ');
  const out = path.join(tmp, 'q8'), dump = path.join(tmp, 'q8-dump');
  /* 8 heads, T 128, d_k 8: float32 8·4·(2·128² + 3·128·8) B = 1.15 MiB > 1 MiB; 8-bit 256 KiB */
  attnviz(['--heads', '8', '-d', '64', '--causal', '--html', '--html-limit', '1', '--no-plot', '-q', '-o', out, '--dump', dump, words(128)]);
  const W = readNpy(path.join(dump, 'weights.npy')), S = readNpy(path.join(dump, 'scores.npy'));
  let page;
  await test('html_8bit_opens_and_says_so', async () => {
    page = await openPage(browser, path.join(out, 'attnviz.html'));
    const note = await page.$eval('#av-note', (e) => (e.hidden ? '' : e.textContent));
    check(/8 bits/.test(note) && /q, k, v are left out/.test(note), 'the page does not say it is 8-bit: ' + note);
    check(/The exact numbers are in weights\.npy and scores\.npy of this run\u2019s --dump folder\./.test(note),
      'the 8-bit page of a --dump run does not name its files: ' + note);
    check(page.problems.length === 0, page.problems.join('; '));
  });
  if (!page) return;
  await test('html_8bit_matrix_within_a_step', async () => {
    await page.click('#av-heads [data-h="5"]');
    await view(page, 'matrix');
    let lo = Infinity, hi = -Infinity;
    for (let i = 0; i < 128; i++) for (let j = 0; j < 128; j++) { lo = Math.min(lo, S.at(5, i, j)); hi = Math.max(hi, S.at(5, i, j)); }
    const qs = q8Expect(lo, hi), qw = q8Expect(0, 1);
    /* by hand: a step of 1/255, half of it 0.00196, plus 0.005 for the rounding to 2 digits: 0.00696, so ±0.007 */
    check(qw.digits === 2 && qw.bound === '0.002' && qw.shown === '0.007', 'weights: ' + JSON.stringify(qw));
    const within = (shown, ref, q, what) => {
      check(digitsOf(shown) === q.digits, what + ': ' + shown + ' has ' + digitsOf(shown) + ' digits; an 8-bit step of ' +
        (2 * q.half).toFixed(5) + ' supports ' + q.digits);
      check(Math.abs(num(shown) - ref) <= num(q.shown) + 1e-6, what + ": " + shown + " vs " + ref + ", beyond its \u00b1" + q.shown);
    };
    for (const [i, j] of [[0, 0], [5, 2], [64, 10], [127, 127], [127, 0], [90, 45], [33, 33], [100, 99]]) {
      const t = await hoverCell(page, 0, i, j);
      within(t.score, S.at(5, i, j), qs, 'S[5,' + i + ',' + j + ']');
      check(t.tip.includes('score ' + t.score + ' (8-bit: \u00b1' + qs.shown + ')'), 'the tooltip does not give the scores\' bound ' + qs.shown + ': ' + t.tip);
      if (t.weight === '0') { check(W.at(5, i, j) === 0, 'masked'); continue; }
      within(t.weight, W.at(5, i, j), qw, 'A[5,' + i + ',' + j + ']');
      check(t.tip.includes('weight ' + t.weight + ' (8-bit: \u00b10.007)'), 'the tooltip does not give the weights\' bound: ' + t.tip);
    }
    await lib.clickCell(page, 0, 5, 2);
    const cellNote = await page.$eval('#view-cell .note', (e) => e.textContent);
    check(/not stored/.test(cellNote), 'cell view of an 8-bit page: ' + cellNote);
    const w = await page.$eval('#view-cell [data-role="weight"]', (e) => e.textContent);
    within(w, W.at(5, 5, 2), qw, 'cell view A[5,5,2]');
    const rows = await page.$$eval('#view-cell tr[data-j]', (trs) => trs.map((tr) => tr.querySelector('[data-role="row-score"]').textContent));
    within(rows[0], S.at(5, 5, 0), qs, 'cell view row S[5,5,0]');
    const cellText = await page.$eval('#view-cell', (e) => e.textContent);
    check(cellText.includes('(8-bit: \u00b1' + qs.shown + ')') && cellText.includes('(8-bit: \u00b10.007)'), 'the cell view gives no 8-bit bounds');
    check(page.problems.length === 0, page.problems.join('; '));
  });
  await page.close();
  /* 16 heads, T 256: 8-bit 16·2·256² B = 2 MiB > 1 MiB: the first 8 heads are kept */
  const out2 = path.join(tmp, 'cut');
  attnviz(['--heads', '16', '-d', '64', '--html', '--html-limit', '1', '--no-plot', '-q', '-o', out2, words(256)]);
  await test('html_cut_keeps_the_first_panels_and_says_so', async () => {
    page = await openPage(browser, path.join(out2, 'attnviz.html'));
    const note = await page.$eval('#av-note', (e) => e.textContent);
    check(/8 of 16/.test(note), 'the page does not say which panels it kept: ' + note);
    /* no --dump: the note named "the --dump .npy files", which this run never wrote */
    check(!/are in/.test(note) && /run the same command with --dump DIR/.test(note),
      'the page of a run without --dump points at .npy files: ' + note);
    await page.click('#av-heads [data-h="12"]');
    await view(page, 'matrix');
    const msg = await page.$eval('#view-matrix .note', (e) => e.textContent);
    check(/not stored/.test(msg), 'head 12 of a cut page: ' + msg);
    await page.click('#av-heads [data-h="7"]');
    check(await page.$('#view-matrix canvas[data-run="0"]') !== null, 'head 7 (kept) has no map');
    await view(page, 'model');
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
  /* the head view says so too (it drew an empty diagram, as if head 12 attended nowhere) */
  await test('html_cut_head_view_says_the_head_is_not_stored', async () => {
    page = await openPage(browser, path.join(out2, 'attnviz.html'));
    await page.click('#av-heads [data-h="12"]');
    await view(page, 'head');
    const hv = await page.$eval('#view-head .panel', (e) => { const n = e.querySelector('.note'); return n ? n.textContent : ''; });
    check(/head 12 is not stored/.test(hv), 'head view of head 12 of a cut page: ' + JSON.stringify(hv));
    await page.click('#av-heads [data-h="3"]');
    check(!/not stored/.test(await page.$eval('#view-head .panel', (e) => e.textContent)), 'head 3 (kept) is said not to be stored');
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* A 60-letter token (tokens go up to 64 bytes): the head view's label columns grew to its width, so the
 * page scrolled sideways in a 1280 px window and the key weights beside it were out of sight. Now the
 * label is cut with "…", its button's title holds it whole, and every key weight is in the window. */
async function longToken(browser, tmp) {
  const out = path.join(tmp, 'longtok'), long = 'x'.repeat(60);
  attnviz(['--heads', '2', '--html', '--no-plot', '-q', '-o', out, 'I ' + long + ' love']);
  await test('html_long_token_keeps_the_page_in_the_window', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'), 1280, 900);
    await view(page, 'head');
    await page.hover('#view-head .hv button[data-side="q"][data-i="0"]');
    const m = await page.evaluate(() => ({
      sw: document.documentElement.scrollWidth, iw: window.innerWidth,
      w: [...document.querySelectorAll('#view-head [data-role="weight-k"]')].map((e) => [e.textContent, e.getBoundingClientRect().right]),
      title: document.querySelector('#view-head button[data-side="k"][data-j="1"]').title,
    }));
    check(m.sw <= m.iw, 'head view: the page is ' + m.sw + ' px wide in a ' + m.iw + ' px window');
    check(m.w.length === 3 && m.w.every(([t, right]) => t !== '' && right <= m.iw), 'key weights out of the window: ' + JSON.stringify(m.w));
    check(m.title === long, 'the long key label has no title with the whole token: ' + JSON.stringify(m.title));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* The head view in a 480 px window (a phone, a projector's half screen): its lines' column was a fixed 220 px,
 * so with the labels and the weights of a hovered query the view was 532 px wide and the page scrolled
 * sideways. Now nothing is wider than the window, each key weight is inside it, and the lines still run from
 * the query column to the key column. Also with a 60-letter token (in the title and the command line too). */
/* The cell view on a phone (375 px, an iPhone's width): its dot-product table (d, q[d], k[d], q[d]·k[d],
 * partial sum) was 373 px wide in a box that grew with it, so the page was 420 px wide and scrolled
 * sideways (a teacher's pass). The box now stays in the window and the table scrolls inside it. */
async function phoneCellView(browser, tmp) {
  const out = path.join(tmp, 'phone-cell');
  attnviz(['--heads', '4', '--explain', '1,2', '--html', '--no-plot', '-q', '-o', out, 'I love deep learning']);
  await test('html_cell_view_fits_a_375_px_window', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'), 375, 700);
    await page.waitForSelector('#view-cell:not([hidden]) [data-role="q"]');
    const m = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: window.innerWidth,
      boxes: [...document.querySelectorAll('#view-cell .scroll')].map((e) => [Math.round(e.getBoundingClientRect().right), e.scrollWidth, e.clientWidth]) }));
    check(m.sw <= m.iw, 'the page is ' + m.sw + ' px wide in a ' + m.iw + ' px window');
    check(m.boxes.length === 2 && m.boxes.every(([right]) => right <= m.iw), 'tables out of the window: ' + JSON.stringify(m.boxes));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
  /* The other views in a narrow window, and a long input's map in a wide one: the page never scrolls
   * sideways; what is wider scrolls inside its own box (the head view, the map) or wraps (the colour bar).
   * At 375 px the head view of docs/paragraph.txt was 410 px wide ("grandmother" and its weight in the key
   * column); its 200-token map (cells at least 2 px) 509 px, and 532 px in 480; the paragraph three times
   * (600 tokens) 1332 px in 1280; at 320 px the colour bar's "masked (−∞)" made the matrix and model views
   * 370 px wide (a teacher's pass). At 375 px the head view fits: the key weights are in the window. */
  const src = process.env.ATTNVIZ_SRCDIR || path.resolve(__dirname, '../..');
  const para = fs.readFileSync(path.join(src, 'docs/paragraph.txt'), 'utf8').trim(), para3 = path.join(tmp, 'para3.txt');
  fs.writeFileSync(para3, [para, para, para].join(' '));
  const p200 = path.join(tmp, 'phone-para'), p600 = path.join(tmp, 'phone-para3'), zh = path.join(tmp, 'phone-zh');
  attnviz(['--heads', '8', '--html', '--no-plot', '-q', '-o', p200, '-f', path.join(src, 'docs/paragraph.txt')]);
  attnviz(['--heads', '2', '--html', '--no-plot', '-q', '-o', p600, '-f', para3]);
  attnviz(['--heads', '2', '--positions', 'rope', '--causal', '--html', '--no-plot', '-q', '-o', zh, '我爱深度学习']);
  await test('html_views_fit_narrow_windows', async () => {
    const bad = []; /* every view and size that does not fit, not only the first */
    for (const [dir, width, v] of [[p200, 375, 'head'], [p200, 375, 'matrix'], [p200, 480, 'matrix'], [p600, 1280, 'matrix'],
      [zh, 320, 'matrix'], [zh, 320, 'model'], [zh, 320, 'head'], [zh, 320, 'cell']]) {
      const page = await openPage(browser, path.join(dir, 'attnviz.html'), width, 700);
      await view(page, v);
      if (v === 'head') await page.hover('#view-head .hv button[data-side="q"][data-i="0"]');
      const m = await page.evaluate((v) => ({ sw: document.documentElement.scrollWidth, iw: window.innerWidth,
        boxes: [...document.querySelectorAll('#view-' + v + ' :is(.hv, .mx, .cbar, .mv, .scroll)')].map((e) => [e.className, Math.round(e.getBoundingClientRect().right)]),
        w: [...document.querySelectorAll('#view-head [data-role="weight-k"]')].filter((e) => e.textContent).map((e) => Math.round(e.getBoundingClientRect().right)) }), v);
      const what = path.basename(dir) + ', ' + v + ' view, ' + width + ' px: ';
      if (m.sw > m.iw) bad.push(what + 'the page is ' + m.sw + ' px wide in a ' + m.iw + ' px window');
      if (!m.boxes.length || m.boxes.some(([, right]) => right > m.iw)) bad.push(what + 'boxes out of the window: ' + JSON.stringify(m.boxes));
      if (v === 'head' && (!m.w.length || m.w.some((right) => right > m.iw))) bad.push(what + 'key weights out of the window: ' + JSON.stringify(m.w));
      bad.push(...page.problems);
      await page.close();
    }
    check(bad.length === 0, bad.join('; '));
  });
}

async function narrowWindow(browser, tmp) {
  const out = path.join(tmp, 'narrow'), out2 = path.join(tmp, 'narrow-long');
  attnviz(['--heads', '4', '--html', '--no-plot', '-q', '-o', out, 'I love deep learning']);
  attnviz(['--heads', '2', '--html', '--no-plot', '-q', '-o', out2, 'I ' + 'x'.repeat(60) + ' love']);
  await test('html_head_view_fits_a_480_px_window', async () => {
    for (const [dir, T] of [[out, 4], [out2, 3]]) {
      const page = await openPage(browser, path.join(dir, 'attnviz.html'), 480, 800);
      await view(page, 'head');
      await page.hover('#view-head .hv button[data-side="q"][data-i="1"]');
      const m = await page.evaluate(() => {
        const hv = document.querySelector('#view-head .hv'), box = (s) => hv.querySelector(s).getBoundingClientRect();
        return { sw: document.documentElement.scrollWidth, iw: window.innerWidth,
          w: [...document.querySelectorAll('#view-head [data-role="weight-k"]')].map((e) => [e.textContent, e.getBoundingClientRect().right]),
          q: box('.col.left').right, svg: [box('svg').left, box('svg').right], k: box('.col.right').left };
      });
      check(m.sw <= m.iw, path.basename(dir) + ': the page is ' + m.sw + ' px wide in a ' + m.iw + ' px window');
      check(m.w.length === T && m.w.every(([t, right]) => t !== '' && right <= m.iw), 'key weights out of the window: ' + JSON.stringify(m.w));
      check(Math.abs(m.svg[0] - m.q) <= 1 && Math.abs(m.svg[1] - m.k) <= 1 && m.svg[1] - m.svg[0] >= 40,
        'the lines span x = ' + m.svg.map(Math.round) + ', the query column ends at ' + Math.round(m.q) + ', the key column starts at ' + Math.round(m.k));
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    }
  });
  /* The matrix view too: a 20-token map was 560 px wide (28 px cells), the page 607 px in a 480 px window.
   * The map now takes the window's width left of its row labels: its right edge, and every column label's,
   * inside the window, cells still square and one per token. Both settings of --compare side by side too. */
  const words = 'the quick brown fox jumps over the lazy dog and then it runs far away into the deep dark wood';
  const out3 = path.join(tmp, 'narrow-20'), out4 = path.join(tmp, 'narrow-cmp');
  attnviz(['--heads', '2', '--html', '--no-plot', '-q', '-o', out3, words]);
  attnviz(['--heads', '2', '--compare', 'scale', '--html', '--no-plot', '-q', '-o', out4, words]);
  await test('html_matrix_view_fits_a_480_px_window', async () => {
    for (const dir of [out3, out4]) {
      const page = await openPage(browser, path.join(dir, 'attnviz.html'), 480, 800);
      await view(page, 'matrix');
      const m = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: window.innerWidth,
        maps: [...document.querySelectorAll('#view-matrix .mx canvas')].map((c) => {
          const b = c.getBoundingClientRect(); return { right: b.right, w: b.width, h: b.height, T: c.closest('.mx').querySelectorAll('.cols span').length }; }),
        cols: [...document.querySelectorAll('#view-matrix .mx .cols span')].map((e) => e.getBoundingClientRect().right) }));
      const name = path.basename(dir);
      check(m.maps.length >= 1, name + ': no map');
      check(m.sw <= m.iw, name + ': the page is ' + m.sw + ' px wide in a ' + m.iw + ' px window');
      for (const c of m.maps) {
        check(c.right <= m.iw, name + ': a map ends at x = ' + c.right + ' in a ' + m.iw + ' px window');
        check(c.T === 20 && c.w === c.h && c.w % 20 === 0 && c.w >= 40, name + ': a map of ' + c.w + ' x ' + c.h + ' px for ' + c.T + ' column labels');
      }
      check(m.cols.every((r) => r <= m.iw), name + ': a column label ends past the window: ' + Math.max(...m.cols));
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    }
  });
}

/* Token labels carry the lang of their script, so the browser picks a font made for it (a Han character has
 * other forms in Japanese than in Chinese), while the page itself stays lang="en"; so does the title heading
 * when its text is in another script. Every label of the page was English, and a Japanese sentence was drawn
 * with Chinese forms. The expected languages are written by hand, one per token. */
async function labelLanguages(browser, tmp) {
  const cases = [
    ['zh', '我爱深度学习 사랑해 مرحبا שלום любовь love 。',
      { '我': 'zh', '爱': 'zh', '深': 'zh', '度': 'zh', '学': 'zh', '习': 'zh', '사랑해': 'ko', 'مرحبا': 'ar', 'שלום': 'he',
        'любовь': 'und-Cyrl', 'love': 'en', '。': 'zh' }, 'zh'],
    ['ja', '私は学生です', { '私': 'ja', 'は': 'ja', '学': 'ja', '生': 'ja', 'で': 'ja', 'す': 'ja' }, 'ja'],
    ['en', 'I love deep learning', { 'I': 'en', 'love': 'en', 'deep': 'en', 'learning': 'en' }, 'en'],
  ];
  await test('html_token_labels_carry_the_lang_of_their_script', async () => {
    for (const [dir, sentence, want, titleLang] of cases) {
      const out = path.join(tmp, 'lang-' + dir);
      attnviz(['--heads', '2', '--html', '--no-plot', '-q', '-o', out, sentence]);
      const page = await openPage(browser, path.join(out, 'attnviz.html'));
      /* the lang of a label's text (a strip button's text is in a span of its own) */
      const langOf = (sel) => page.$$eval(sel, (es) => es.map((e) => [e.textContent,
        document.createTreeWalker(e, NodeFilter.SHOW_TEXT).nextNode().parentElement.closest('[lang]').getAttribute('lang')]));
      const m = { html: await page.$eval('html', (e) => e.getAttribute('lang')),
        title: await page.$eval('#av-title', (e) => e.closest('[lang]').getAttribute('lang')) };
      check(m.html === 'en', dir + ': <html lang="' + m.html + '">, the page\'s English words want en');
      check(m.title === titleLang, dir + ': the title heading is lang ' + m.title + ', want ' + titleLang);
      await view(page, 'head');
      const got = [...await langOf('#av-tokens .tok'), ...await langOf('#view-head .hv .tt')];
      await view(page, 'matrix');
      got.push(...await langOf('#view-matrix .mx .rows span'), ...await langOf('#view-matrix .mx .cols span'));
      await lib.clickCell(page, 0, 0, 0);
      got.push(...(await langOf('#view-cell tr[data-j] td:nth-child(2)')));
      check(got.length === 6 * Object.keys(want).length, dir + ': ' + got.length + ' labels'); /* strip, 2 head-view columns, rows, columns, cell view */
      for (const [text, lang] of got) check(want[text] === lang, dir + ': label ' + JSON.stringify(text) + ' is lang ' + lang + ', want ' + want[text]);
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    }
  });
}

/* Every accessible name (and description) that mixes the page's English words with the user's text gives each
 * part its own language: the English words in lang en, a token in its script's lang. One aria-label "token 3 学"
 * on a lang="zh" button had a screen reader read "token 3" as Chinese, and "query 3 学" on a button of the page's
 * en read 学 as English. Checked for every button, select, input, focusable element, heading and the matrix
 * view's tooltip (a live region) of each view, from the DOM the way the name is computed (aria-labelledby's
 * spans, else aria-label, else the element's text; aria-describedby, else title), each part's lang the
 * nearest one; and the names in the browser's accessibility tree are the same words as before. The window's
 * <title> ("attnviz: 我爱…") holds text only, so it is left out. */
async function nameLanguages(browser, tmp) {
  const cases = [['zh', '我爱深度学习', 'zh'], ['en', 'I love deep learning', 'en']];
  await test('html_accessible_names_give_each_part_its_lang', async () => {
    for (const [dir, sentence, tokLang] of cases) {
      const out = path.join(tmp, 'names-' + dir);
      attnviz(['--heads', '2', '--html', '--no-plot', '-q', '-o', out, sentence]);
      const page = await openPage(browser, path.join(out, 'attnviz.html'));
      check(await page.$eval('html', (e) => e.getAttribute('lang')) === 'en', dir + ': the page is not lang="en"');
      const [toks, D] = await page.evaluate(() => [window.attnviz.data.runs[0].tokens, window.attnviz.data.runs[0].D]);
      /* each element's name and description as [text, lang] parts */
      const names = () => page.evaluate(() => {
        const langOf = (n) => (n.nodeType === 1 ? n : n.parentElement).closest('[lang]').getAttribute('lang');
        const texts = (root, skip) => { const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT), a = [];
          for (let t = w.nextNode(); t; t = w.nextNode()) if (t.textContent.trim() && !(skip && skip.contains(t))) a.push([t.textContent, langOf(t)]);
          return a; };
        const byIds = (ids) => ids.trim().split(/\s+/).flatMap((id) => texts(document.getElementById(id)));
        const out = [];
        for (const e of document.querySelectorAll('button, select, input, [tabindex], h1, h2, [role="status"]')) {
          if (e.closest('[hidden]') || e.closest('#av-names')) continue;
          let name;
          if (e.hasAttribute('aria-labelledby')) name = byIds(e.getAttribute('aria-labelledby'));
          else if (e.hasAttribute('aria-label')) name = [[e.getAttribute('aria-label'), langOf(e)]];
          else if (e.labels && e.labels.length) name = texts(e.labels[0], e);
          else name = e.tagName === 'SELECT' ? [] : texts(e);
          const desc = e.hasAttribute('aria-describedby') ? byIds(e.getAttribute('aria-describedby'))
            : e.title ? [[e.title, langOf(e)]] : [];
          out.push({ what: e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.dataset.side ? '[' + e.dataset.side + ']' : ''), name, desc });
        }
        return out;
      });
      const all = [];
      const seen = async (where) => { for (const n of await names()) all.push(Object.assign(n, { where })); };
      await page.click('#av-tokens .tok[data-i="1"]'); /* query 1: its token's name says "(focused query)" */
      await seen('head view');
      const tree = [];
      const walk = (n) => { tree.push([n.role, (n.name || '').replace(/\s+/g, ' ').trim()]); (n.children || []).forEach(walk); };
      walk(await page.accessibility.snapshot());
      await view(page, 'matrix');
      await lib.hoverCell(page, 0, 1, 0, true);
      await seen('matrix view');
      await lib.clickCell(page, 0, 1, 0);
      await seen('cell view');
      walk(await page.accessibility.snapshot());
      await view(page, 'model');
      await seen('model view');
      /* every part with letters is English (Latin, lang en) or the user's (Han, lang zh), never both */
      const latin = /\p{sc=Latin}/u, han = /\p{sc=Han}/u;
      let parts = 0;
      for (const n of all) for (const [kind, list] of [['name', n.name], ['description', n.desc]]) for (const [text, lang] of list) {
        const say = dir + ', ' + n.where + ', ' + n.what + '\'s ' + kind + ' part ' + JSON.stringify(text) + ' is lang ' + lang;
        check(!(latin.test(text) && han.test(text)), say + ': English words and the user\'s text in one part');
        if (han.test(text)) check(lang === tokLang, say + ', want ' + tokLang);
        if (latin.test(text)) check(lang === 'en', say + ', want en');
        parts++;
      }
      check(parts > 50, dir + ': only ' + parts + ' name parts');
      /* the names as before: the token strip, the head view's query and key buttons, the cell view's headings */
      const want = [];
      toks.forEach((t, i) => want.push(['button', 'token ' + i + ' ' + t + (i === 1 ? ' (focused query)' : '')],
        ['button', 'query ' + i + ' ' + t], ['button', 'key ' + i + ' ' + t]));
      want.push(['heading', 'layer 0, head 0: query 1 \u201c' + toks[1] + '\u201d \u2192 key 0 \u201c' + toks[0] + '\u201d (d_k = ' + D + ')'],
        ['heading', 'the whole row 1 of S (query \u201c' + toks[1] + '\u201d) and its softmax']);
      for (const [role, name] of want) {
        check(tree.some((x) => (x[0] === role || (role === 'button' && x[0] === 'toggle button')) && x[1] === name),
          dir + ': no ' + role + ' named ' + JSON.stringify(name) + ' in the accessibility tree');
      }
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    }
  });
}

/* Escape hides the matrix view's tooltip, of the keyboard (arrow keys on the map) or of the pointer, and the
 * focus stays on the map (Escape did nothing: the tooltip stayed over the map until the focus left it) */
/* A 1,000-token map (a million cells, causal: half of them hatched): each arrow key in the matrix view
 * redrew every cell with its own fillRect, about 3 s a key, so stepping ten cells took half a minute (a
 * teacher's pass). Ten keys must take under 5 s, and the map they leave must be the one a whole redraw
 * draws (render()), pixel for pixel, on cell (3, 5): three down, five right from (0, 0), as the tooltip
 * says. (Its 2 px cells are too small for the chosen cell's frame.) */
async function arrowKeysOnALongMap(browser, tmp) {
  for (const T of [1000, 12]) {
  const out = path.join(tmp, 'long-keys' + T);
  attnviz(['--heads', '2', '-d', '16', '--causal', '--html', '--no-plot', '-q', '-o', out,
    Array.from({ length: T }, (_, i) => 'w' + i).join(' ')]);
  /* 12 tokens: 44 px cells with their numbers and the frames, which the keys redraw around the cells */
  await test('html_arrow_keys_on_a_' + T + '_token_map_stay_quick', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    await page.evaluate(() => { window.attnviz.state.query = 4; window.attnviz.render(); }); /* the query's frame too */
    await view(page, 'matrix');
    const cv = '#view-matrix canvas[data-run="0"]';
    await page.focus(cv);
    const t0 = Date.now();
    for (const k of ['ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight',
      'ArrowRight', 'ArrowUp', 'ArrowDown']) await page.keyboard.press(k);
    await page.evaluate(() => new Promise((res) => requestAnimationFrame(() => res())));
    const ms = Date.now() - t0;
    const tip = await page.$eval('#av-tip', (t) => t.textContent);
    check(tip.includes('query 3 ') && tip.includes('key 5 '), 'after the keys the tooltip names ' + JSON.stringify(tip));
    const pixels = (sel) => page.$eval(sel, (e) => {
      const d = e.getContext('2d').getImageData(0, 0, e.width, e.height).data;
      let h = 0;
      for (let n = 0; n < d.length; n++) h = (h * 31 + d[n]) >>> 0;
      return { w: e.width, h: e.height, sum: h };
    });
    const stepped = await pixels(cv);
    await page.evaluate(() => window.attnviz.render());
    const whole = await pixels(cv);
    check(JSON.stringify(stepped) === JSON.stringify(whole), 'the map after the keys ' + JSON.stringify(stepped) +
      ' is not the map drawn whole ' + JSON.stringify(whole));
    check(ms < 5000, 'ten arrow keys on a 1,000-token map took ' + ms + ' ms');
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
  }
}

/* A keyboard user on a 1,000-token map could only step one cell at a time (a tester's pass). Home and End go to
 * the row's first and last key, Ctrl+Home and Ctrl+End to the map's corners, PageUp and PageDown a screenful of
 * rows, as a spreadsheet and the ARIA grid pattern. Expected by hand: 2 px cells (560 px / 1,000, at least 2), so
 * a screenful in the 900 px window is ⌊(900 − the sticky bar's height) / 2⌋ rows (p); from (0, 0): End (0, 999),
 * Home (0, 0), Ctrl+End (999, 999), PageUp (999 − p, 999), Home (999 − p, 0), three PageUp (0, 0), PageDown
 * (p, 0), End (p, 999), Ctrl+Home (0, 0); each chosen cell in the window below the bar; the map after them all
 * the map drawn whole, pixel for pixel, in under 5 s. On 12 tokens (44 px cells, all 12 rows in one screen)
 * PageDown goes to row 11 and PageUp back to row 0. The old page ignored these keys (the tooltip stayed on (0, 0)). */
async function jumpKeys(browser, tmp) {
  for (const T of [1000, 12]) {
  const out = path.join(tmp, 'jump-keys' + T);
  attnviz(['--heads', '2', '-d', '16', '--causal', '--html', '--no-plot', '-q', '-o', out,
    Array.from({ length: T }, (_, i) => 'w' + i).join(' ')]);
  await test('html_home_end_page_keys_on_a_' + T + '_token_map', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'), 1280, 900);
    await view(page, 'matrix');
    const cv = '#view-matrix canvas[data-run="0"]';
    const c = Number(await page.$eval(cv, (e) => e.dataset.cell));
    check(c === (T === 1000 ? 2 : 44), 'the map has ' + c + ' px cells');
    const bar = await page.$eval('nav', (n) => n.offsetHeight);
    const p = Math.floor((900 - bar) / c), last = T - 1;
    const press = async (key, ctrl) => {
      if (ctrl) await page.keyboard.down('Control');
      await page.keyboard.press(key);
      if (ctrl) await page.keyboard.up('Control');
    };
    const at = async (i, j, what) => {
      const tip = await page.$eval('#av-tip', (t) => t.textContent);
      check(tip.includes('query ' + i + ' ') && tip.includes('key ' + j + ' '), what + ': the tooltip names ' + JSON.stringify(tip) +
        ', not query ' + i + ' key ' + j);
      const y = await page.$eval(cv, (e, i, c) => e.getBoundingClientRect().top + i * c, i, c);
      check(y >= bar && y + c <= 900, what + ': cell (' + i + ', ' + j + ') is at y = ' + y + ', out of the window below the bar (' + bar + ' px)');
    };
    await page.focus(cv);
    const t0 = Date.now();
    if (T === 1000) {
      await press('End'); await at(0, last, 'End');
      await press('Home'); await at(0, 0, 'Home');
      await press('End', true); await at(last, last, 'Ctrl+End');
      await press('PageUp'); await at(last - p, last, 'PageUp');
      await press('Home'); await at(last - p, 0, 'Home');
      for (let n = 0; n < 3; n++) await press('PageUp');
      await at(0, 0, 'three PageUp');
      await press('PageDown'); await at(p, 0, 'PageDown');
      await press('End'); await at(p, last, 'End');
      await press('Home', true); await at(0, 0, 'Ctrl+Home');
      await press('PageDown'); await press('End'); await at(p, last, 'PageDown, End');
    } else {
      await press('PageDown'); await at(last, 0, 'PageDown');
      await press('End'); await at(last, last, 'End');
      await press('PageUp'); await at(0, last, 'PageUp');
      await press('Home', true); await at(0, 0, 'Ctrl+Home');
      await press('End', true); await at(last, last, 'Ctrl+End');
    }
    await page.evaluate(() => new Promise((res) => requestAnimationFrame(() => res())));
    const ms = Date.now() - t0;
    const pixels = (sel) => page.$eval(sel, (e) => {
      const d = e.getContext('2d').getImageData(0, 0, e.width, e.height).data;
      let h = 0;
      for (let n = 0; n < d.length; n++) h = (h * 31 + d[n]) >>> 0;
      return { w: e.width, h: e.height, sum: h };
    });
    const stepped = await pixels(cv);
    await page.evaluate(() => window.attnviz.render());
    const whole = await pixels(cv);
    check(JSON.stringify(stepped) === JSON.stringify(whole), 'the map after the keys ' + JSON.stringify(stepped) +
      ' is not the map drawn whole ' + JSON.stringify(whole));
    check(ms < 5000, 'the keys on a ' + T + '-token map took ' + ms + ' ms');
    const help = await page.$eval('#view-matrix .desc', (d) => d.textContent);
    check(/Home/.test(help) && /Page Up/.test(help), 'the matrix view\'s help says nothing of the keys: ' + JSON.stringify(help));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
  }
}

/* 240 tokens: 2 px cells (560 px / 240, as matrixPanel). The chosen cell's frame (#ff00ff) was a 2 px stroke
 * of a 0 × 0 rect: no marker at all. Expected by hand: a magenta ring round the cell, at least 8 px across
 * (a cell's 2 px with a 2 px line and a 1 px gap each side), holding the cell, the cell itself not covered;
 * at the map's edges and corners the sides that fit; after the keys the same as the map drawn whole (no
 * magenta left of the old cell). */
async function smallCellFrame(browser, tmp) {
  const out = path.join(tmp, 'small-frame'), T = 240;
  attnviz(['--heads', '2', '--html', '--no-plot', '-q', '-o', out, Array.from({ length: T }, (_, i) => 'w' + (i + 1)).join(' ')]);
  await test('html_chosen_cell_is_framed_on_a_240_token_map', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    await view(page, 'matrix');
    const cv = '#view-matrix canvas[data-run="0"]';
    const c = Number(await page.$eval(cv, (e) => e.dataset.cell));
    check(c === 2, 'the map has ' + c + ' px cells, not 2');
    /* the bounding box of the #ff00ff pixels (device px = CSS px here) and whether any lies on cell (i, j);
     * one read of the canvas a call (many reads warn) */
    const magenta = (i, j) => page.$eval(cv, (e, i, j, c) => {
      const d = e.getContext('2d').getImageData(0, 0, e.width, e.height).data, b = { n: 0, x0: 1e9, y0: 1e9, x1: -1, y1: -1, on: 0 };
      for (let y = 0; y < e.height; y++) for (let x = 0; x < e.width; x++) {
        const o = 4 * (y * e.width + x);
        if (d[o] !== 255 || d[o + 1] !== 0 || d[o + 2] !== 255) continue;
        b.n++; b.x0 = Math.min(b.x0, x); b.y0 = Math.min(b.y0, y); b.x1 = Math.max(b.x1, x); b.y1 = Math.max(b.y1, y);
        if (Math.floor(x / c) === j && Math.floor(y / c) === i) b.on++;
      }
      return b;
    }, i, j, c);
    /* at the map's edge the ring's outer sides fall off the map: the cell then touches the box's edge */
    const around = (b, i, j, what) => {
      check(b.n > 0, what + ': no pixel of the chosen cell\'s frame on the map');
      const m = T * c;
      check((j === 0 ? b.x0 === 0 : b.x0 < j * c) && (j === T - 1 ? b.x1 === m - 1 : b.x1 >= (j + 1) * c) &&
        (i === 0 ? b.y0 === 0 : b.y0 < i * c) && (i === T - 1 ? b.y1 === m - 1 : b.y1 >= (i + 1) * c),
        what + ': the frame ' + JSON.stringify(b) + ' does not hold cell (' + i + ', ' + j + ') of ' + c + ' px');
      if (i > 0 && j > 0 && i < T - 1 && j < T - 1) {
        check(b.x1 - b.x0 + 1 >= 8 && b.y1 - b.y0 + 1 >= 8, what + ': the frame is ' + (b.x1 - b.x0 + 1) + ' × ' + (b.y1 - b.y0 + 1) + ' px');
      }
      check(b.on === 0, what + ': the frame covers the cell');
    };
    await page.focus(cv);
    for (let n = 0; n < 5; n++) await page.keyboard.press('ArrowDown');
    for (let n = 0; n < 7; n++) await page.keyboard.press('ArrowRight');
    const tip = await page.$eval('#av-tip', (t) => t.textContent);
    check(tip.includes('query 5 ') && tip.includes('key 7 '), 'after the keys the tooltip names ' + JSON.stringify(tip));
    const stepped = await magenta(5, 7);
    around(stepped, 5, 7, 'cell (5, 7) after the keys');
    await page.evaluate(() => window.attnviz.render());
    check(JSON.stringify(await magenta(5, 7)) === JSON.stringify(stepped), 'the frame after the keys is not the frame of the map drawn whole');
    for (const [i, j] of [[0, 0], [T - 1, T - 1], [0, T - 1], [120, 3]]) {
      await page.evaluate((i, j) => { window.attnviz.state.cell = { i: i, j: j }; window.attnviz.render(); }, i, j);
      around(await magenta(i, j), i, j, 'cell (' + i + ', ' + j + ')');
    }
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* 240 tokens: the head view holds the first 96. Token 200 ("w201") chosen in the strip drew every line, as if
 * none were chosen, and the only word was the note at the bottom. Expected: a note above the lines naming
 * token 200 and the 96 of 240, whose button opens the matrix view on row 200; token 50 gets no such note. */
async function queryOutsideHeadView(browser, tmp) {
  const out = path.join(tmp, 'outside-head'), T = 240;
  attnviz(['--heads', '2', '--html', '--no-plot', '-q', '-o', out, Array.from({ length: T }, (_, i) => 'w' + (i + 1)).join(' ')]);
  await test('html_head_view_says_a_query_past_its_tokens', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    await page.click('#av-tokens button[data-i="50"]');
    check(await page.$('#view-head [data-role="query-outside"]') === null, 'token 50, inside the head view, is said to be outside');
    await page.click('#av-tokens button[data-i="50"]');
    await page.click('#av-tokens button[data-i="200"]');
    const note = await page.$eval('#view-head [data-role="query-outside"]', (e) => e.textContent).catch(() => '');
    check(note.startsWith('Token 200 \u201cw201\u201d is outside the head view, which shows the first 96 of 240 tokens'),
      'token 200 chosen: the head view says ' + JSON.stringify(note));
    const [noteY, gridY] = await page.$eval('#view-head .panel', (p) => [p.querySelector('[data-role="query-outside"]').getBoundingClientRect().top,
      p.querySelector('.hv').getBoundingClientRect().top]);
    check(noteY < gridY, 'the note is under the head view\'s lines, not above them');
    await page.click('#view-head [data-act="to-matrix"]');
    await page.waitForSelector('#view-matrix:not([hidden]) canvas');
    const s = await page.evaluate(() => ({ view: window.attnviz.state.view, q: window.attnviz.state.query, i: window.attnviz.state.cell.i,
      focus: document.activeElement.tagName }));
    check(s.view === 'matrix' && s.q === 200 && s.i === 200 && s.focus === 'CANVAS', 'the button gave ' + JSON.stringify(s));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

async function tooltipEscape(browser, tmp) {
  const out = path.join(tmp, 'tipesc');
  attnviz(['--heads', '2', '--html', '--no-plot', '-q', '-o', out, 'I love deep learning']);
  await test('html_escape_hides_the_tooltip', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'), 400, 700);
    await view(page, 'matrix');
    const tip = () => page.$eval('#av-tip', (e) => (e.hidden ? '' : e.textContent));
    await page.focus('#view-matrix canvas[data-run="0"]');
    await page.keyboard.press('ArrowDown');
    check((await tip()).includes('query 1 '), 'no tooltip after ArrowDown: ' + JSON.stringify(await tip()));
    await page.keyboard.press('Escape');
    check((await tip()) === '', 'the keyboard tooltip after Escape: ' + JSON.stringify(await tip()));
    check(await page.evaluate(() => document.activeElement.matches('#view-matrix canvas[data-run="0"]')), 'the focus left the map');
    await page.keyboard.press('ArrowRight');
    check((await tip()).includes('key 1 '), 'no tooltip after ArrowRight: ' + JSON.stringify(await tip()));
    check((await lib.hoverCell(page, 0, 2, 3)).includes('query 2 '), 'no tooltip on hover');
    await page.keyboard.press('Escape');
    check((await tip()) === '', 'the pointer\'s tooltip after Escape: ' + JSON.stringify(await tip()));
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* The matrix view's tooltip stays inside the window: for a cell at the window's bottom edge (it was put
 * 14 px below the pointer, past the edge: the numbers of the lower rows of a tall map could not be
 * read), and for a tooltip wider than 260 px near the right edge (a long token). */
async function tooltipInWindow(browser, tmp) {
  const out = path.join(tmp, 'tip'), words = Array.from({ length: 64 }, (_, i) => (i === 62 ? 'y'.repeat(60) : 'w' + (i % 23))).join(' ');
  attnviz(['--heads', '1', '--html', '--no-plot', '-q', '-o', out, words]);
  await test('html_tooltip_stays_in_the_window', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'), 900, 700);
    await view(page, 'matrix');
    const cv = await page.$('#view-matrix canvas[data-run="0"]');
    const c = Number(await cv.evaluate((e) => e.dataset.cell));
    /* the last row 10 px above the window's bottom edge */
    await cv.evaluate((e, y) => { window.scrollBy(0, e.getBoundingClientRect().top + y - window.innerHeight + 10); }, 64 * c);
    for (const j of [0, 62]) {
      const box = await cv.boundingBox();
      await page.mouse.move(box.x + (j + 0.5) * c, box.y + 63.5 * c);
      const t = await page.$eval('#av-tip', (e) => { const b = e.getBoundingClientRect();
        return { hidden: e.hidden, text: e.textContent, l: b.left, t: b.top, r: b.right, b: b.bottom, w: document.documentElement.clientWidth, h: window.innerHeight }; });
      check(!t.hidden && t.text.includes('query 63 ') && t.text.includes('key ' + j + ' '), 'no tooltip for cell (63, ' + j + '): ' + JSON.stringify(t.text));
      check(t.l >= 0 && t.t >= 0 && t.r <= t.w && t.b <= t.h, 'cell (63, ' + j + '): the tooltip spans (' + [t.l, t.t, t.r, t.b].map(Math.round) +
        ') of a ' + t.w + ' x ' + t.h + ' window');
    }
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* --cmap RdBu_r (allowed for the weights): the colour-map selector shows it and can choose it again after
 * another (it listed every map but RdBu_r, so it was blank); a page of another map does not offer it */
async function divergingCmap(browser, tmp) {
  const out = path.join(tmp, 'rdbu'), out2 = path.join(tmp, 'magma');
  attnviz(['--heads', '2', '--cmap', 'rdbu_r', '--html', '--no-plot', '-q', '-o', out, 'I love deep learning']);
  attnviz(['--heads', '2', '--cmap', 'magma', '--html', '--no-plot', '-q', '-o', out2, 'I love deep learning']);
  await test('html_cmap_selector_shows_the_pages_map', async () => {
    let page = await openPage(browser, path.join(out, 'attnviz.html'));
    const sel = () => page.$eval('#av-cmap', (s) => ({ value: s.value, options: [...s.options].map((o) => o.value) }));
    let s = await sel();
    check(s.value === 'RdBu_r', 'colour map selector of a --cmap RdBu_r page: ' + JSON.stringify(s));
    await page.select('#av-cmap', 'gray');
    await page.select('#av-cmap', 'RdBu_r');
    check((await sel()).value === 'RdBu_r' && await page.evaluate(() => window.attnviz.state.cmap) === 'RdBu_r', 'RdBu_r cannot be chosen again');
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
    page = await openPage(browser, path.join(out2, 'attnviz.html'));
    s = await sel();
    check(s.value === 'magma' && !s.options.includes('RdBu_r'), 'colour map selector of a --cmap magma page: ' + JSON.stringify(s));
    await page.close();
  });
}

/* head<h>.svg's cell colours, T × T "#rrggbb" (null: hatched, masked): its cell rects, merged along a row where
 * neighbours have one colour, before the frame's first #333333 rect */
function svgCells(file, T) {
  const rects = [];
  for (const m of fs.readFileSync(file, 'utf8').matchAll(/<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="([^"]+)"\/>/g)) {
    if (m[5] === '#333333') break;
    if (m[5] !== '#ffffff') rects.push(m.slice(1, 5).map(Number).concat([m[5]]));
  }
  const x0 = Math.min(...rects.map((r) => r[0])), y0 = Math.min(...rects.map((r) => r[1])), c = rects[0][3];
  const grid = Array.from({ length: T }, () => Array(T).fill(null));
  for (const [x, y, w, , f] of rects)
    for (let j = Math.round((x - x0) / c); j < Math.round((x + w - x0) / c); j++) grid[Math.round((y - y0) / c)][j] = f.startsWith('#') ? f : null;
  return grid;
}

/* The page colours the weights as the run's figures do: the same --vmax, --log-scale (and --vmax auto's
 * percentile of each head) and --cmap. It coloured every weight over 0..1 with a "0 … 1" colour bar, so with
 * `--vmax 0.2 --html --format svg` a cell of the matrix view and the same cell of head0.svg differed (the
 * figure's bar read "attention weight (0–0.2, --vmax)"). Each cell of the matrix view of heads 0 and 1 is
 * head<h>.svg's colour (±2 a channel), and the colour bar's ends and title say the figure's range. */
async function figureColours(browser, tmp) {
  const runs = [
    [['--vmax', '0.2'], '0', '0.2', /^attention weight \(viridis; 0\u20130\.2, --vmax\)$/],
    [['--vmax', '1', '--cmap', 'gray'], '0', '1', /^attention weight \(gray; 0\u20131, --vmax\)$/],
    [['--log-scale', '--cmap', 'magma', '--causal'], '\u22123.00', '0.00', /^log\u2081\u2080 attention weight \(magma\)$/],
    [['--vmax', 'auto', '--log-scale', '--cmap', 'cividis'], /^\u22123\.\d\d$/, /^\u22120\.\d\d$/,
      /^log\u2081\u2080 attention weight \(cividis; auto: 0\.000\d+ \u2013 0\.\d+, 99th percentile of this head\)$/],
  ];
  for (const [k, [opts, lo, hi, title]] of runs.entries()) {
    const out = path.join(tmp, 'colours' + k), T = 4;
    attnviz(['--heads', '2', '--html', '--format', 'svg', '-q', '-o', out].concat(opts, ['I love deep learning']));
    await test('html_colours_weights_as_the_figures ' + opts.join(' '), async () => {
      const page = await openPage(browser, path.join(out, 'attnviz.html'));
      await view(page, 'matrix');
      for (const h of [0, 1]) {
        await page.click('#av-heads [data-h="' + h + '"]');
        const svg = svgCells(path.join(out, 'head' + h + '.svg'), T);
        const px = await page.$eval('#view-matrix canvas[data-run="0"]', (cv, T) => {
          const c = Number(cv.dataset.cell), d = window.devicePixelRatio || 1, a = [];
          const img = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height); /* once: many reads warn */
          for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) { /* clear of the number and the cell's frame */
            const o = 4 * (Math.round((i + 0.2) * c * d) * cv.width + Math.round((j + 0.25) * c * d));
            a.push(Array.from(img.data.slice(o, o + 3)));
          }
          return a;
        }, T);
        for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
          const f = svg[i][j];
          if (f === null) continue;
          const want = [1, 3, 5].map((n) => parseInt(f.slice(n, n + 2), 16)), got = px[i * T + j];
          check(want.every((v, n) => Math.abs(v - got[n]) <= 2), 'head ' + h + ' cell ' + i + ',' + j + ': page rgb(' + got +
            '), head' + h + '.svg ' + f + ' (' + opts.join(' ') + ')');
        }
        const bar = await page.$eval('#view-matrix .cbar', (b) => [...b.querySelectorAll('[data-role]')].map((x) => x.textContent.trim()));
        const ok = (want, s) => (typeof want === 'string' ? s === want : want.test(s));
        check(bar.length === 3 && ok(lo, bar[0]) && ok(hi, bar[1]) && title.test(bar[2]), 'colour bar of ' + opts.join(' ') + ': ' + JSON.stringify(bar));
      }
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    });
  }
}

/* The cell view's division checks on a calculator on an 8-bit page: exp(shown S \u2212 max) / shown row sum, worked here
 * in double, is the shown weight to its digits; where the 8-bit scores (each off by up to half a step) do not give
 * the 8-bit weight at all, the line says so and gives that quotient and the stored weight apart. --no-scale scores
 * span over 25, a step over 0.1, so they keep 0 digits: cell (2, 0) of head 2 read "exp(\u22121) / 1 = 0.17" (exp(\u22121)
 * is 0.37; scores.npy gives S \u2212 max = \u22121.447 and a row sum of 1.391). Every weight is within its 8-bit bound of
 * weights.npy, the row max within the scores' bound of scores.npy. */
async function eightBitDivision(browser, tmp) {
  const words = Array.from({ length: 128 }, (_, i) => 'w' + (i % 37)).join(' ');
  const out = path.join(tmp, 'q8div'), dump = path.join(tmp, 'q8div-dump');
  attnviz(['--heads', '8', '-d', '64', '--no-scale', '--causal', '--html', '--html-limit', '1', '--no-plot', '-q', '-o', out, '--dump', dump, words]);
  const W = readNpy(path.join(dump, 'weights.npy')), S = readNpy(path.join(dump, 'scores.npy'));
  await test('html_8bit_division_checks_on_a_calculator', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    check(await page.evaluate(() => window.attnviz.data.mode) === 1, 'the page is no longer 8-bit');
    const cells = [[2, 2, 0], [5, 5, 2], [1, 3, 2], [0, 3, 1], [5, 64, 10], [3, 127, 0], [7, 40, 39], [4, 9, 9], [6, 100, 50], [0, 1, 0]];
    let apart = 0;
    for (const [h, i, j] of cells) {
      const at = 'head ' + h + ' cell (' + i + ', ' + j + ')';
      const t = await page.evaluate((h, i, j) => {
        const a = window.attnviz; a.state.head = h; a.state.shown = new Set([h]); a.state.cell = { i, j }; a.state.view = 'cell'; a.render();
        const eqs = [...document.querySelectorAll('#view-cell p.eq')].map((e) => e.textContent);
        const tds = [...document.querySelectorAll('#view-cell tr[data-j="' + j + '"] td')].map((e) => e.textContent);
        return { line: eqs.find((e) => e.startsWith('A[')), max: eqs.find((e) => e.startsWith('row max')),
          weight: document.querySelector('#view-cell [data-role="weight"]').textContent, row: tds.slice(3, 5) };
      }, h, i, j);
      const m = t.line.match(/= exp\(([^)]+)\) \/ ([0-9.]+) = ([0-9.]+)/);
      check(m, at + ': no division: ' + t.line);
      /* the table's row of key j checks like the line: its S \u2212 max is the line's exponent, its exp(S \u2212 max) that
       * exponent's exp to the same digits (they kept the scores' 0 digits: "\u22121" and "0" in the row of
       * "exp(\u22121.33) / ..."), and S \u2212 max is scores.npy's within the two scores' bounds */
      const ed = digitsOf(m[1]);
      /* in scientific notation (the column holds a number that is not 0 but would print as 0 in fixed point), with the
       * digits the exponent holds, one fewer than its own (0 at least: its half unit is 0.5·10^−ed of exp, up to
       * 5·10^−ed on a mantissa below 10), it is the exp of the exponent before rounding: within the exponent's half
       * unit (relative, as d exp(x) = exp(x) dx) and half a unit of its own last digit of exp(exponent shown) */
      const ev = Math.exp(num(m[1])), md = Math.max(ed - 1, 0), eOk = /e/.test(t.row[1])
        ? new RegExp('^\\d' + (md ? '\\.\\d{' + md + '}' : '') + 'e[+\u2212]\\d\\d$').test(t.row[1]) &&
          Math.abs(Number(t.row[1].replace('\u2212', '-')) / ev - 1) <= 0.5001 * Math.pow(10, -ed) + 0.5 * Math.pow(10, -md) + 1e-9
        : t.row[1] === ev.toFixed(ed);
      check(t.row[0] === m[1] && eOk, at + ': the row\u2019s S \u2212 max, exp(S \u2212 max) ' +
        JSON.stringify(t.row) + ' beside "' + t.line + '" (exp(' + m[1] + ') = ' + Math.exp(num(m[1])) + ')');
      const q = Math.exp(num(m[1])) / num(m[2]), d = digitsOf(m[3]);
      check(Math.abs(q - num(m[3])) <= 0.5 * Math.pow(10, -d) + 1e-9, at + ': "' + t.line + '", but exp(' + m[1] + ') / ' + m[2] + ' = ' + q);
      if (t.line.includes('the page stores')) {
        apart++;
        check(/ from the 8-bit scores \(each off by up to \u00b10\.\d+\); the page stores the weight apart: /.test(t.line), at + ': ' + t.line);
      } else check(m[3] === t.weight, at + ': the quotient ' + m[3] + ' is not the weight ' + t.weight);
      check(Math.abs(num(t.weight) - W.at(h, i, j)) <= 0.002 + 0.005 + 1e-6, at + ': weight ' + t.weight + ', weights.npy ' + W.at(h, i, j));
      let lo = Infinity, hi = -Infinity, mx = -Infinity;
      for (let a = 0; a < 128; a++) for (let b = 0; b < 128; b++) { lo = Math.min(lo, S.at(h, a, b)); hi = Math.max(hi, S.at(h, a, b)); }
      for (let b = 0; b <= i; b++) mx = Math.max(mx, S.at(h, i, b));
      const qs = q8Expect(lo, hi), mm = t.max.match(/^row max = (\u2212?[0-9.]+) \(8-bit: \u00b1([0-9.]+)\)/);
      check(qs.digits === 0, 'head ' + h + ': its scores keep ' + qs.digits + ' digits; the case wants 0');
      check(mm && mm[2] === qs.at(digitsOf(mm[1])) && Math.abs(num(mm[1]) - mx) <= num(mm[2]) + 1e-6,
        at + ': "' + t.max + '", scores.npy\u2019s row max ' + mx + ' (\u00b1' + (mm && qs.at(digitsOf(mm[1]))) + ')');
      check(Math.abs(num(t.row[0]) - (S.at(h, i, j) - mx)) <= 2 * qs.half + 0.5 * Math.pow(10, -ed) + 1e-6,
        at + ': S \u2212 max ' + t.row[0] + ', scores.npy gives ' + (S.at(h, i, j) - mx) + ' (\u00b12\u00b7' + qs.half + ')');
    }
    check(apart < cells.length / 2, apart + ' of ' + cells.length + ' cells give the quotient apart from the weight');
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* The bound an 8-bit page gives beside a number holds for the number as shown: on the --no-scale page above, whose
 * scores keep 0 digits (a step over 0.1), the S[i,j] column's heading said "(8-bit: \u00b10.07)", half a step, over
 * scores shown "0" that scores.npy holds as 0.33 (the rounding to 0 digits adds up to 0.5). Every unmasked score of
 * the row and the matrix tooltip's must be within the bound written beside them of scores.npy, and every weight of the row within its column's bound of weights.npy. */
async function eightBitShownBound(browser, tmp) {
  const words = Array.from({ length: 128 }, (_, i) => 'w' + (i % 37)).join(' ');
  const out = path.join(tmp, 'q8bound'), dump = path.join(tmp, 'q8bound-dump');
  attnviz(['--heads', '8', '-d', '64', '--no-scale', '--causal', '--html', '--html-limit', '1', '--no-plot', '-q', '-o', out, '--dump', dump, words]);
  const W = readNpy(path.join(dump, 'weights.npy')), S = readNpy(path.join(dump, 'scores.npy'));
  await test('html_8bit_bound_covers_the_shown_digits', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    check(await page.evaluate(() => window.attnviz.data.mode) === 1, 'the page is no longer 8-bit');
    let zeroDigits = 0;
    for (const [h, i, j] of [[2, 2, 0], [0, 1, 0], [5, 64, 10], [3, 127, 0], [6, 100, 50]]) {
      const t = await page.evaluate((h, i, j) => {
        const a = window.attnviz; a.state.head = h; a.state.shown = new Set([h]); a.state.cell = { i, j }; a.state.view = 'cell'; a.render();
        const th = [...document.querySelectorAll('#view-cell th')].map((e) => e.textContent);
        return { heads: th, rows: [...document.querySelectorAll('#view-cell tr[data-j]')].map((tr) => [...tr.querySelectorAll('td')].map((e) => e.textContent)) };
      }, h, i, j);
      const sb = t.heads.map((e) => e.match(/^S\[i,j\] \(8-bit: \u00b1([0-9.]+)\)$/)).find((m) => m);
      const wb = t.heads.map((e) => e.match(/^A\[i,j\] \(8-bit: \u00b1([0-9.]+)\)$/)).find((m) => m);
      check(sb && wb, 'head ' + h + ': the table\u2019s headings give no 8-bit bounds: ' + t.heads.join(' | '));
      for (let n = 0; n <= i; n++) {
        const [, , sc, , , w] = t.rows[n];
        if (digitsOf(sc) === 0) zeroDigits++;
        check(Math.abs(num(sc) - S.at(h, i, n)) <= num(sb[1]) + 1e-6, 'head ' + h + ' row ' + i + ' key ' + n + ': score ' + sc +
          ' (8-bit: \u00b1' + sb[1] + '), scores.npy ' + S.at(h, i, n));
        check(Math.abs(num(w) - W.at(h, i, n)) <= num(wb[1]) + 1e-6, 'head ' + h + ' row ' + i + ' key ' + n + ': weight ' + w +
          ' (8-bit: \u00b1' + wb[1] + '), weights.npy ' + W.at(h, i, n));
      }
      await view(page, 'matrix');
      const tip = await lib.hoverCell(page, 0, i, j), tm = tip.match(/score (\u2212?[0-9.]+) \(8-bit: \u00b1([0-9.]+)\)/);
      check(tm && Math.abs(num(tm[1]) - S.at(h, i, j)) <= num(tm[2]) + 1e-6, 'head ' + h + ' tooltip of (' + i + ', ' + j + '): ' + tip + ', scores.npy ' + S.at(h, i, j));
    }
    check(zeroDigits > 0, 'no score of these rows is shown to 0 digits: the case no longer tests the rounding');
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* An 8-bit page (its numbers over --html-limit) holds the weights in steps of 1/255: on a --log-scale range
 * (here auto, about 3e−5 – 0.03) every weight under 0.002 is stored as 0 and takes the bottom colour, so its
 * colours are coarser than the figures'. The colour bar says so; it said nothing (and a page of float32
 * numbers says nothing of it). */
async function coarseColours(browser, tmp) {
  const out = path.join(tmp, 'coarse');
  const words = Array.from({ length: 300 }, (_, i) => 'w' + (i % 50)).join(' ');
  attnviz(['--heads', '2', '--log-scale', '--html-limit', '1', '--html', '--no-plot', '-q', '-o', out, words]);
  await test('html_8bit_page_says_its_colours_are_coarser', async () => {
    const page = await openPage(browser, path.join(out, 'attnviz.html'));
    check(await page.evaluate(() => window.attnviz.data.mode) > 0, 'the page is no longer 8-bit');
    await view(page, 'matrix');
    const bar = await page.$eval('#view-matrix .cbar', (e) => e.textContent);
    check(/ log\u2081\u2080 attention weight \(viridis; auto: .* 99th percentile of this head; 8-bit weights in steps of 1\/255 = 0\.0039, so any below 0\.002 takes the bottom colour: coarser colours than the figures\u2019\) /.test(bar),
      'colour bar of an 8-bit --log-scale page: ' + bar);
    await view(page, 'model');
    const mbar = await page.$eval('#view-model .cbar', (e) => e.textContent);
    check(mbar.includes('8-bit weights in steps of 1/255'), 'model view colour bar of an 8-bit --log-scale page: ' + mbar);
    check(page.problems.length === 0, page.problems.join('; '));
    await page.close();
  });
}

/* The colour bar writes the range's ends as the figures' do (printf's %.3g): an exact tie to the even digit.
 * `--vmax 0.03125` and `--vmax auto` on a uniform row over 32 keys (every weight 1/32) read "0.0313" on the page
 * and "0–0.0312" in head0.svg's colour bar (toExponential and toFixed take the larger digit). */
async function tieRange(browser, tmp) {
  const the32 = Array(32).fill('the').join(' ');
  const runs = [[['--vmax', '0.03125'], 'I love deep learning'], [['--vmax', 'auto', '-p', 'none', '-d', '8'], the32]];
  for (const [k, [opts, text]] of runs.entries()) {
    const out = path.join(tmp, 'tie' + k);
    attnviz(['--html', '--format', 'svg', '-q', '-o', out].concat(opts, [text]));
    await test('html_colour_bar_range_rounds_as_the_figures ' + opts.join(' '), async () => {
      const fig = fs.readFileSync(path.join(out, 'head0.svg'), 'utf8').match(/attention weight \(([^)]*)\)/);
      check(fig && fig[1].includes('0\u20130.0312'), 'head0.svg colour bar: ' + (fig && fig[0]));
      const page = await openPage(browser, path.join(out, 'attnviz.html'));
      await view(page, 'matrix');
      const bar = await page.$eval('#view-matrix .cbar', (b) => [...b.querySelectorAll('[data-role]')].map((x) => x.textContent.trim()));
      check(bar[1] === '0.0312' && fig && bar[2].includes(fig[1]), 'colour bar of ' + opts.join(' ') + ': ' + JSON.stringify(bar) +
        ', head0.svg: ' + (fig && fig[1]));
      check(page.problems.length === 0, page.problems.join('; '));
      await page.close();
    });
  }
}

main().then((bad) => process.exit(bad ? 1 : 0), (e) => { console.log(e); summary(); console.log('[  FAILED  ] 1 test(s), listed below:'); process.exit(1); });
