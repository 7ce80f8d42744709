/* lib.js - what the browser tests and the screenshot script share: start
 * Debian's chromium headless (puppeteer-core) and open a page from file://
 * with every other request aborted and recorded, and every console error,
 * warning and page error recorded, in page.problems. */
'use strict';
const fs = require('fs');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

/* The browser, or an Error saying how to install it (never a skip). */
async function launch() {
  if (!fs.existsSync(CHROMIUM)) throw new Error('no browser at ' + CHROMIUM + ' (install Debian\'s chromium: sh scripts/install-deps.sh)');
  const puppeteer = require('puppeteer-core');
  const args = ['--headless=new', '--disable-gpu', '--no-first-run', '--disable-extensions', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--metrics-recording-only', '--no-default-browser-check',
    '--disable-features=Translate,OptimizationHints,MediaRouter', '--font-render-hinting=none'];
  if (process.getuid && process.getuid() === 0) args.push('--no-sandbox'); /* chromium refuses root otherwise (CI) */
  return puppeteer.launch({ executablePath: CHROMIUM, headless: true, args, timeout: 60000 });
}

async function openPage(browser, file, width, height) {
  const page = await browser.newPage();
  const problems = [];
  /* the file's URL, percent-encoded: 'file://' + file under TMPDIR="/tmp/a b" gave a URL the browser could not load
   * and a request ("file:///tmp/a%20b/...") that was not the page's, so every test failed on a space */
  const url = require('url').pathToFileURL(file).href;
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    if (req.url() === url) req.continue();
    else { problems.push('request: ' + req.url()); req.abort(); }
  });
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warn') problems.push('console ' + m.type() + ': ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('requestfailed', (r) => { if (r.url() !== url) problems.push('failed request: ' + r.url()); });
  await page.setViewport({ width: width || 1280, height: height || 900 });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('#av-tokens .tok');
  page.problems = problems;
  return page;
}

async function view(page, name) {
  await page.click('#tab-' + name);
  await page.waitForSelector('#view-' + name + ':not([hidden])');
}

/* the window point of the centre of cell (i, j) of matrix panel runIdx, scrolled to the middle of
 * the window (clear of the sticky selector bar) unless noScroll */
async function cellPoint(page, runIdx, i, j, noScroll) {
  const cv = await page.$('#view-matrix canvas[data-run="' + runIdx + '"]');
  const c = Number(await cv.evaluate((e) => e.dataset.cell));
  if (!noScroll) await cv.evaluate((e, y) => { window.scrollBy(0, e.getBoundingClientRect().top + y - window.innerHeight / 2); }, (i + 0.5) * c);
  const box = await cv.boundingBox();
  return { x: box.x + (j + 0.5) * c, y: box.y + (i + 0.5) * c };
}

/* hover cell (i, j): the tooltip's text ('' if none) */
async function hoverCell(page, runIdx, i, j, noScroll) {
  const p = await cellPoint(page, runIdx, i, j, noScroll);
  await page.mouse.move(p.x, p.y);
  return page.$eval('#av-tip', (t) => (t.hidden ? '' : t.textContent));
}

/* click cell (i, j), which opens the cell view */
async function clickCell(page, runIdx, i, j) {
  const p = await cellPoint(page, runIdx, i, j);
  await page.mouse.click(p.x, p.y);
  await page.waitForSelector('#view-cell:not([hidden]) [data-role="weight"]');
}

/* A handle to a function of the page, box(e, a, b): the drawn box {l, r, t} (left, right, rounded top) of
 * e.textContent's [a, b), wherever e's text nodes split it (a DOM Range over them). Pass it to page.evaluate
 * to check the order text is drawn in (made by evaluateHandle: the page's CSP allows no eval). */
async function textBoxFn(page) {
  return page.evaluateHandle(() => (e, a, b) => {
    const w = document.createTreeWalker(e, NodeFilter.SHOW_TEXT), r = document.createRange();
    let at = 0;
    for (let t = w.nextNode(); t; t = w.nextNode()) {
      const n = t.textContent.length;
      if (a >= at && a <= at + n) r.setStart(t, a - at);
      if (b >= at && b <= at + n) { r.setEnd(t, b - at); break; }
      at += n;
    }
    const x = r.getBoundingClientRect();
    return { l: x.left, r: x.right, t: Math.round(x.top) };
  });
}

module.exports = { launch, openPage, view, hoverCell, clickCell, textBoxFn, CHROMIUM };
