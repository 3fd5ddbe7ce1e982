// The tus peer of Freight's bench (src/Freight.Bench/Peers/TusNode.cs starts it):
// @tus/server with its file store, stock settings, on 127.0.0.1 only.
//
//   node server.mjs PORT DIRECTORY
//
// PORT 0 picks a free port. Once the server accepts connections it prints one line,
// `listening: http://127.0.0.1:PORT`, as `freight serve` does. Uploads are created under
// /files; the file store writes upload ID's bytes to DIRECTORY/ID (its metadata beside it in
// DIRECTORY/ID.json). The process exits when its standard input closes, so a bench that dies
// leaves no server behind, and on SIGTERM or SIGINT.
import { Server } from '@tus/server';
import { FileStore } from '@tus/file-store';

const [portText, directory] = process.argv.slice(2);
const port = Number(portText);
if (!directory || !Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('usage: node server.mjs PORT DIRECTORY');
  process.exit(2);
}

const tus = new Server({
  path: '/files',
  datastore: new FileStore({ directory }),
  // Loopback only: nothing in front of it may rewrite the Location it answers.
  respectForwardedHeaders: false,
});

const server = tus.listen({ host: '127.0.0.1', port }, () => {
  console.log(`listening: http://127.0.0.1:${server.address().port}`);
});

// Node closes an idle keep-alive connection after 5 s by default; other rows of a run can take longer
// than that, and a reconnect would then be timed. 75 s, as the nginx peer is configured.
server.keepAliveTimeout = 75_000;

server.on('error', (error) => {
  console.error(`tus-node: ${error.message}`);
  process.exit(1);
});

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
