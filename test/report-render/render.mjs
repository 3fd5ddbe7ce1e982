// Opens a `freight report --html` page in headless Chromium (Debian's /usr/bin/chromium through playwright-core, no
// browser download) and prints one JSON object on stdout with what a reader would see:
//
//   consoleErrors  console messages of type error (a blocked load, a CSP violation, a parse error, ...)
//   pageErrors     uncaught page errors
//   requests       every URL the page asked for besides itself (a self-contained report asks for none)
//   charts[]       per <svg data-chart>: id, kind, title (its <title>), points (elements of class "point"),
//                  visiblePoints (those with a non-empty rendered box), declaredPoints (its data-points),
//                  tableRows (rows of the table of the same id), series (distinct data-series of its points)
//   tables         how many tables the page has
//   missingScenarios  names given with --scenarios that the page's text does not contain
//   screenshot     the PNG written (the whole page)
//
// Freight.Bench.Tests.Reports runs it on the fixture's report and asserts on the JSON.
//
//   node render.mjs --html /tmp/report.html --screenshot /tmp/report.png [--scenarios a/b,c/d]
//                   [--chromium /usr/bin/chromium] [--timeout-ms 60000]

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const { values: args } = parseArgs({
  options: {
    html: { type: 'string' },
    screenshot: { type: 'string' },
    scenarios: { type: 'string', default: '' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    'timeout-ms': { type: 'string', default: '60000' },
  },
  strict: true,
});

if (!args.html || !args.screenshot) {
  console.error('usage: node render.mjs --html FILE --screenshot PNG [--scenarios a,b] [--chromium PATH] [--timeout-ms N]');
  process.exit(2);
}

const timeout = Number(args['timeout-ms']);
const pageUrl = pathToFileURL(path.resolve(args.html)).href;
const browser = await chromium.launch({
  executablePath: args.chromium,
  // Root (CI containers) cannot use Chromium's sandbox; the page is our own file and runs no script.
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  timeout,
});

try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const consoleErrors = [];
  const pageErrors = [];
  const requests = [];
  page.on('console', (message) => {
    if (message.type() === 'error') {
      consoleErrors.push(message.text());
    }
  });
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  page.on('request', (request) => {
    if (request.url() !== pageUrl) {
      requests.push(request.url());
    }
  });

  await page.goto(pageUrl, { waitUntil: 'load', timeout });

  const expected = args.scenarios.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  const found = await page.evaluate((scenarios) => {
    const text = document.body.innerText;
    const charts = [...document.querySelectorAll('svg[data-chart]')].map((svg) => {
      const id = svg.getAttribute('data-chart');
      const points = [...svg.querySelectorAll('.point')];
      const visible = points.filter((p) => {
        const box = p.getBoundingClientRect();
        return box.width > 0 && box.height > 0;
      });
      const table = document.querySelector(`table[data-table="${CSS.escape(id)}"]`);
      return {
        id,
        kind: svg.getAttribute('data-kind'),
        title: svg.querySelector(':scope > title')?.textContent ?? null,
        points: points.length,
        visiblePoints: visible.length,
        declaredPoints: Number(svg.getAttribute('data-points')),
        tableRows: table ? table.querySelectorAll('tbody tr').length : null,
        series: [...new Set(points.map((p) => p.getAttribute('data-series')))],
      };
    });
    return {
      title: document.title,
      tables: document.querySelectorAll('table').length,
      charts,
      missingScenarios: scenarios.filter((s) => !text.includes(s)),
    };
  }, expected);

  await page.screenshot({ path: args.screenshot, fullPage: true, timeout });
  console.log(JSON.stringify({ ...found, consoleErrors, pageErrors, requests, screenshot: path.resolve(args.screenshot) }));
} finally {
  await browser.close();
}
