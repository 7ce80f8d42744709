#!/usr/bin/env node
/* shots.js PAGE OUTDIR [compare] - screenshots of attnviz.html for the docs
 * (scripts/figures.sh): head.png (heads 0-3 shown, query 1 hovered),
 * matrix.png (a cell hovered), model.png, cell.png; with "compare", only
 * compare.png (the matrix view, panels side by side); with "model", toy_model.png
 * (the model view) and toy_head.png (the last layer's heads, query 7 hovered).
 * Fails on any request or
 * console error, as the tests do. */
'use strict';
const path = require('path');
const { launch, openPage, view, hoverCell, clickCell } = require('./lib');

async function main() {
  const [file, out, mode] = process.argv.slice(2);
  const browser = await launch();
  try {
    const page = await openPage(browser, path.resolve(file), 1000, 640);
    const shot = (name) => page.screenshot({ path: path.join(out, name + '.png') });
    if (mode === 'model') { /* a --model page: model view, then the last layer's head view */
      await view(page, 'model');
      await shot('toy_model');
      const L = await page.evaluate(() => window.attnviz.data.runs[0].L);
      await page.click('#view-model button[data-l="' + (L - 1) + '"][data-h="0"]');
      await view(page, 'head');
      await page.click('#view-head .showheads button'); /* all heads */
      await page.hover('#view-head button[data-side="q"][data-i="7"]');
      await shot('toy_head');
    } else if (mode === 'compare') {
      await view(page, 'matrix');
      await hoverCell(page, 1, 3, 1, true);
      await shot('compare');
    } else {
      await page.click('#view-head .showheads button'); /* all heads */
      await page.hover('#view-head button[data-side="q"][data-i="1"]');
      await shot('head');
      await view(page, 'matrix');
      await hoverCell(page, 0, 3, 1, true);
      await shot('matrix');
      await view(page, 'model');
      await shot('model');
      await view(page, 'matrix');
      await clickCell(page, 0, 3, 1);
      await page.setViewport({ width: 1000, height: 1100 });
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot('cell');
    }
    if (page.problems.length) throw new Error(page.problems.join('; '));
  } finally {
    await browser.close();
  }
}
main().catch((e) => { console.error('shots.js: ' + e.message); process.exit(1); });
