// The bare node:http baseline: the least a server can do to answer a small JSON body.
import { createServer } from 'node:http';

const BODY = JSON.stringify({ status: 'ok', service: 'baseline', items: [1, 2, 3] });

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(BODY) });
    response.end(BODY);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ msg: 'listening', service: 'baseline', listener: 'main', url: `http://127.0.0.1:${address.port}` })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
