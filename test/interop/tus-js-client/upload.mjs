// Uploads one file to a tus 1.0 server with the official tus-js-client, the way a Node app would,
// and prints what happened as JSON lines on stdout (one object per line, each with an "event"):
//
//   request   a request tus-js-client is about to send: id, phase, method, url, tus headers it set
//   response  the answer to request id: status and the tus headers of the response
//   interrupt (interrupt mode) where the chunk in flight was cut and how many bytes the server was sent
//   head      (interrupt mode) this script's own HEAD of the upload after the interruption
//   result    the last line on success: mode, size, uploadUrl and the mode's findings
//   error     the last line on failure (the exit code is then non-zero)
//
// Freight.Server.Tests.Tus.Interop runs it against `freight serve` and checks the stored file's SHA-256.
//
//   node upload.mjs --endpoint http://127.0.0.1:5000/tus/ --file payload.bin --chunk-size 5242880 \
//                   --filename payload.bin --mode plain|interrupt|parallel [--timeout-ms 60000]
//
// Modes:
//   plain      one upload in --chunk-size PATCHes.
//   interrupt  the chunk holding the file's middle is cut halfway: the bytes before the cut reach the
//              server, then the connection is dropped (upload.abort()). The script HEADs the upload until
//              its offset settles, then a new tus.Upload resumes from that URL (uploadUrl, no endpoint, so
//              a lost upload fails instead of silently starting over).
//   parallel   parallelUploads: 3, i.e. the concatenation extension: three partial uploads, then a POST
//              with Upload-Concat: final;<urls>.

import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { Readable } from 'node:stream';
import * as tus from 'tus-js-client';

const { values: args } = parseArgs({
  options: {
    endpoint: { type: 'string' },
    file: { type: 'string' },
    'chunk-size': { type: 'string' },
    filename: { type: 'string' },
    mode: { type: 'string', default: 'plain' },
    'timeout-ms': { type: 'string', default: '60000' },
  },
  strict: true,
});

for (const name of ['endpoint', 'file', 'chunk-size', 'filename']) {
  if (!args[name]) {
    fail(`missing --${name}`);
  }
}

const endpoint = args.endpoint;
const file = args.file;
const chunkSize = Number(args['chunk-size']);
const filename = args.filename;
const mode = args.mode;
const timeoutMs = Number(args['timeout-ms']);
const size = fs.statSync(file).size;

if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0) {
  fail(`--chunk-size must be a positive integer, got ${args['chunk-size']}`);
}

// Bounded: a broken server fails the run quickly instead of retrying for minutes (the default is
// [0, 1000, 3000, 5000]). tus-js-client retries network errors, 5xx, 409 and 423.
const retryDelays = [0, 200, 500, 1000];

// The tus headers worth seeing in the log, on requests and on responses.
const requestHeaders = ['Upload-Offset', 'Upload-Length', 'Upload-Defer-Length', 'Upload-Concat', 'Upload-Metadata', 'Content-Type', 'Tus-Resumable'];
const responseHeaders = ['Upload-Offset', 'Upload-Length', 'Upload-Concat', 'Upload-Expires', 'Location', 'Tus-Resumable'];

// Every step is bounded by this one deadline: the process exits non-zero when it passes.
const watchdog = setTimeout(() => fail(`timed out after ${timeoutMs} ms`), timeoutMs);

// Every request either hook saw, in order: the assertions read them.
const requests = [];

try {
  let result;
  switch (mode) {
    case 'plain':
      result = await plain();
      break;
    case 'interrupt':
      result = await interrupt();
      break;
    case 'parallel':
      result = await parallel();
      break;
    default:
      fail(`unknown --mode ${mode} (plain, interrupt or parallel)`);
  }

  emit({ event: 'result', mode, size, chunkSize, ...result });
  clearTimeout(watchdog);
  process.exit(0);
} catch (error) {
  fail(error);
}

async function plain() {
  const upload = await run('main', fs.createReadStream(file), { endpoint, metadata: metadata() });
  return { uploadUrl: upload.url };
}

async function parallel() {
  const upload = await run('main', fs.createReadStream(file), { endpoint, metadata: metadata(), parallelUploads: 3 });
  const creations = requests.filter((r) => r.method === 'POST');
  return {
    uploadUrl: upload.url,
    partialUrls: creations.filter((r) => r.headers['Upload-Concat'] === 'partial').map((r) => r.locationUrl),
    finalConcat: creations.find((r) => r.headers['Upload-Concat']?.startsWith('final;'))?.headers['Upload-Concat'] ?? null,
  };
}

async function interrupt() {
  // Cut in the middle of the chunk that holds the file's middle byte: whole chunks before it were
  // acknowledged, half of this one is on the wire when the connection drops.
  const chunkIndex = Math.floor(Math.floor(size / 2) / chunkSize);
  const chunkStart = chunkIndex * chunkSize;
  const cutAt = chunkStart + Math.floor(Math.min(chunkSize, size - chunkStart) / 2);
  if (cutAt <= 0 || cutAt >= size) {
    throw new Error(`file of ${size} bytes is too small to interrupt mid-chunk with chunks of ${chunkSize}`);
  }

  let inFlight = null;
  let interrupted;
  const cut = new Promise((resolve) => {
    interrupted = resolve;
  });

  const first = new tus.Upload(fs.createReadStream(file), {
    ...common('first'),
    endpoint,
    metadata: metadata(),
    fileReader: cuttingReader(chunkStart, cutAt, () => interrupted()),
    onBeforeRequest(req) {
      record('first', req);
      inFlight = req;
    },
    onError(error) {
      fail(error);
    },
    onSuccess() {
      fail('the upload finished although its source stalled mid-chunk');
    },
  });
  first.start();
  await cut;

  // Drop the connection only once the bytes before the cut have left this process, so the server
  // really receives a torn chunk rather than nothing.
  const flushed = await sentEverything(inFlight.getUnderlyingObject());
  const lastAcknowledged = requests.filter((r) => r.phase === 'first' && r.method === 'PATCH' && r.status === 204)
    .reduce((offset, r) => Math.max(offset, Number(r.responseHeaders['Upload-Offset'])), 0);
  await first.abort();
  emit({ event: 'interrupt', chunkStart, cutAt, flushed, lastAcknowledged, uploadUrl: first.url });

  // The server notices the dropped connection on its own schedule: read the offset until it holds still.
  const headOffset = await settledOffset(first.url);

  const resumed = await run('resumed', fs.createReadStream(file), { uploadUrl: first.url });
  const resumedPatches = requests.filter((r) => r.phase === 'resumed' && r.method === 'PATCH');
  const resumedHeads = requests.filter((r) => r.phase === 'resumed' && r.method === 'HEAD');
  return {
    uploadUrl: resumed.url,
    chunkStart,
    cutAt,
    lastAcknowledged,
    headOffset,
    resumedHeadOffset: resumedHeads.length > 0 ? Number(resumedHeads[0].responseHeaders['Upload-Offset']) : null,
    firstResumedPatchOffset: resumedPatches.length > 0 ? Number(resumedPatches[0].headers['Upload-Offset']) : null,
  };
}

/** Runs one tus.Upload to completion; resolves with it, rejects with tus-js-client's error. */
function run(phase, source, options) {
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(source, {
      ...common(phase),
      ...options,
      onError: reject,
      onSuccess: () => resolve(upload),
    });
    upload.start();
  });
}

function common(phase) {
  return {
    chunkSize,
    retryDelays,
    onBeforeRequest: (req) => record(phase, req),
    onAfterResponse: (req, res) => answer(req, res),
  };
}

function metadata() {
  return { filename, filetype: 'application/octet-stream' };
}

function record(phase, req) {
  const entry = { id: requests.length, phase, method: req.getMethod(), url: req.getURL(), headers: pick(requestHeaders, (name) => req.getHeader(name)) };
  requests.push(entry);
  req._freightLog = entry;
  emit({ event: 'request', ...entry });
}

function answer(req, res) {
  const entry = req._freightLog;
  entry.status = res.getStatus();
  entry.responseHeaders = pick(responseHeaders, (name) => res.getHeader(name));
  const location = entry.responseHeaders.Location;
  if (location) {
    entry.locationUrl = new URL(location, entry.url).toString();
  }

  emit({ event: 'response', id: entry.id, phase: entry.phase, method: entry.method, url: entry.url, status: entry.status, headers: entry.responseHeaders });
}

function pick(names, get) {
  const picked = {};
  for (const name of names) {
    const value = get(name);
    if (value !== undefined && value !== null) {
      picked[name] = String(value);
    }
  }

  return picked;
}

/**
 * tus-js-client's own file reader, except that the slice holding chunkStart stops after the bytes
 * before cutAt and never ends: the PATCH carrying it stays in flight, half sent, until it is aborted.
 */
function cuttingReader(chunkStart, cutAt, onStalled) {
  const reader = tus.defaultOptions.fileReader;
  return {
    async openFile(input, readerChunkSize) {
      const source = await reader.openFile(input, readerChunkSize);
      return {
        size: source.size,
        close: () => source.close(),
        async slice(start, end) {
          const slice = await source.slice(start, end);
          if (start !== chunkStart) {
            return slice;
          }

          return { ...slice, value: stalled(slice.value, cutAt - start, onStalled) };
        },
      };
    },
  };
}

/** Passes the first `limit` bytes of `inner` through, then stalls; calls onStalled once the consumer asks for more. */
function stalled(inner, limit, onStalled) {
  let passed = 0;
  const iterator = inner[Symbol.asyncIterator]();
  const stream = new Readable({
    async read() {
      if (passed >= limit) {
        // Everything before the cut went downstream and the consumer wants more: it waits forever.
        inner.destroy();
        onStalled();
        return;
      }

      const { value, done } = await iterator.next();
      if (done) {
        this.destroy(new Error('the source ended before the cut'));
        return;
      }

      const piece = value.subarray(0, limit - passed);
      passed += piece.length;
      this.push(piece);
    },
  });
  // Content-Length stays the whole chunk's: the server expects more than it will get.
  stream.size = inner.size;
  return stream;
}

/** Waits until the request has handed all it was given to the socket and the socket to the kernel. */
async function sentEverything(request) {
  let quiet = 0;
  for (let poll = 0; poll < 500; poll++) {
    const idle = request != null && request.socket != null && request.writableLength === 0 && request.socket.writableLength === 0;
    quiet = idle ? quiet + 1 : 0;
    if (quiet >= 3) {
      return true;
    }

    await delay(20);
  }

  return false;
}

/** HEADs the upload until three answers in a row give the same Upload-Offset; returns it. */
async function settledOffset(url) {
  let last = null;
  let same = 0;
  for (let poll = 0; poll < 100; poll++) {
    const response = await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' }, signal: AbortSignal.timeout(10_000) });
    const offset = response.headers.get('upload-offset');
    emit({
      event: 'head',
      url,
      status: response.status,
      headers: pick(responseHeaders, (name) => response.headers.get(name)),
    });
    if (response.status !== 200 || offset === null) {
      throw new Error(`HEAD ${url} after the interruption answered ${response.status} with Upload-Offset ${offset}`);
    }

    same = offset === last ? same + 1 : 1;
    last = offset;
    if (same >= 3) {
      return Number(offset);
    }

    await delay(100);
  }

  throw new Error(`the offset of ${url} never settled (last ${last})`);
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function emit(object) {
  process.stdout.write(JSON.stringify(object) + '\n');
}

function fail(error) {
  const entry = { event: 'error', mode: args.mode, message: error instanceof Error ? error.message : String(error) };
  // tus-js-client's DetailedError carries the request and response that failed.
  const request = error?.originalRequest;
  const response = error?.originalResponse;
  if (request) {
    entry.request = { method: request.getMethod(), url: request.getURL(), headers: pick(requestHeaders, (name) => request.getHeader(name)) };
  }

  if (response) {
    entry.response = { status: response.getStatus(), headers: pick(responseHeaders, (name) => response.getHeader(name)), body: response.getBody() };
  }

  emit(entry);
  process.exit(1);
}
