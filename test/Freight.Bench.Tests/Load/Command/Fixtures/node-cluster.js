// A Node cluster as Node's docs start one: the primary forks two workers that serve HTTP on 127.0.0.1. On Linux the
// primary accepts (round-robin scheduling, the default) and hands each connection to a worker over IPC: the workers hold
// no listening socket. Prints "listening PORT WORKER WORKER" once both listen; every process ends after two minutes
// whatever happens to the test (and a worker when its primary goes).
const cluster = require('node:cluster');
const http = require('node:http');

setTimeout(() => process.exit(0), 120_000).unref();

if (cluster.isPrimary) {
  cluster.schedulingPolicy = cluster.SCHED_RR;
  const workers = [cluster.fork(), cluster.fork()];
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    if (++listening === workers.length) {
      console.log(`listening ${address.port} ${workers.map((w) => w.process.pid).join(' ')}`);
    }
  });
} else {
  const body = Buffer.alloc(64 * 1024, 'x');
  http.createServer((_request, response) => {
    response.writeHead(200, { 'content-length': body.length });
    response.end(body);
  }).listen(0, '127.0.0.1');
}
