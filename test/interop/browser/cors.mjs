// A page on one origin using freight serve on another, in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core, no browser download), the way a front end would with fetch. Prints one JSON object on stdout:
//
//   discovery    OPTIONS /tus/ (tus discovery): status, Tus-Max-Size
//   tus          a tus upload by hand: creation status and Location, then the PATCH that finishes it: status,
//                Upload-Offset, Content-Location (where the file is), and the file's text read back from there
//   report       GET of the app's download: status, Content-Disposition
//   missing      GET of a file that is not there: status, Content-Type, the problem's JSON
//   compressed   PUT with Content-Encoding: gzip: status, the problem's JSON
//   failure      GET of a route that throws: status, the problem's JSON
//   timing       Resource Timing of the tus read-back: nextHopProtocol ("" when the server sends no Timing-Allow-Origin)
//   afterTab     a tab opens --shared (a navigation: no Origin), then the page fetches it: status and text
//   consoleErrors  what the page's console said at level error (a CORS refusal says why)
//
// A request the browser refused (CORS) is { error: "TypeError: Failed to fetch" }.
//
//   node cors.mjs --page http://127.0.0.1:5001/ --server http://127.0.0.1:5002 --file browser/hello.txt \
//                 --shared shared/old.txt [--chromium /usr/bin/chromium] [--timeout-ms 30000]

import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const { values: args } = parseArgs({
  options: {
    page: { type: 'string' },
    server: { type: 'string' },
    file: { type: 'string' },
    shared: { type: 'string' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    'timeout-ms': { type: 'string', default: '30000' },
  },
  strict: true,
});

if (!args.page || !args.server || !args.file || !args.shared) {
  console.error('usage: node cors.mjs --page URL --server URL --file NAME --shared NAME [--chromium PATH] [--timeout-ms N]');
  process.exit(2);
}

const timeout = Number(args['timeout-ms']);
const browser = await chromium.launch({
  executablePath: args.chromium,
  // Root (CI containers) cannot use Chromium's sandbox; the pages are the test's own.
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  timeout,
});

try {
  // The HTTP cache stays on (no request interception, which would also answer preflights itself): the navigation's
  // copy must be there for the page's fetch to find.
  const context = await browser.newContext();
  context.setDefaultTimeout(timeout);
  const page = await context.newPage();
  const consoleErrors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') {
      consoleErrors.push(message.text());
    }
  });
  await page.goto(args.page, { waitUntil: 'load' });

  const inPage = (step, argument) => page.evaluate(step, { server: args.server, ...argument });
  const found = await inPage(async ({ server, file }) => {
    const call = async (url, init, read) => {
      try {
        const response = await fetch(url, init);
        return { status: response.status, ...(await read(response)) };
      } catch (error) {
        return { error: String(error) };
      }
    };
    const problem = async (response) => ({ contentType: response.headers.get('Content-Type'), problem: await response.json() });
    const tus = { 'Tus-Resumable': '1.0.0' };

    const discovery = await call(`${server}/tus/`, { method: 'OPTIONS', headers: tus }, async (r) => ({ maxSize: r.headers.get('Tus-Max-Size') }));

    const body = new TextEncoder().encode('hello from another origin');
    const created = await call(`${server}/tus/`, {
      method: 'POST',
      headers: { ...tus, 'Upload-Length': String(body.length), 'Upload-Metadata': 'filename ' + btoa(file) },
    }, async (r) => ({ location: r.headers.get('Location') }));
    let finished = null;
    let readBack = null;
    if (created.location) {
      finished = await call(new URL(created.location, server).href, {
        method: 'PATCH',
        headers: { ...tus, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
        body,
      }, async (r) => ({ offset: r.headers.get('Upload-Offset'), contentLocation: r.headers.get('Content-Location') }));
      if (finished.contentLocation) {
        readBack = await call(new URL(finished.contentLocation, server).href, {}, async (r) => ({ text: await r.text() }));
      }
    }

    const report = await call(`${server}/my/report`, {}, async (r) => ({ contentDisposition: r.headers.get('Content-Disposition') }));
    const missing = await call(`${server}/files/${file}.missing`, {}, problem);
    const compressed = await call(`${server}/files/${file}.gz`, {
      method: 'PUT',
      headers: { 'Content-Encoding': 'gzip', 'Content-Type': 'application/octet-stream' },
      body: new Uint8Array([0x1f, 0x8b]),
    }, problem);
    const failure = await call(`${server}/my/fails`, {}, problem);
    const timed = readBack && performance.getEntriesByName(new URL(finished.contentLocation, server).href).pop();
    return {
      discovery,
      tus: { created, finished, readBack },
      report,
      missing,
      compressed,
      failure,
      timing: timed ? { nextHopProtocol: timed.nextHopProtocol } : null,
    };
  }, { file: args.file });

  // A tab that opened the file's URL (a link, window.open) leaves the answer in the browser's cache, keyed by URL.
  const tab = await context.newPage();
  await tab.goto(`${args.server}/files/${args.shared}`);
  await tab.close();
  const afterTab = await inPage(async ({ server, shared }) => {
    try {
      const response = await fetch(`${server}/files/${shared}`);
      return { status: response.status, text: await response.text() };
    } catch (error) {
      return { error: String(error) };
    }
  }, { shared: args.shared });

  console.log(JSON.stringify({ ...found, afterTab, consoleErrors }));
} finally {
  await browser.close();
}
