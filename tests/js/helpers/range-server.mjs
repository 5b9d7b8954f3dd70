// A loopback HTTP server for the remote-source tests: serves files from disk
// (never loading them whole) with Range support, counts the body bytes it
// sends, and misbehaves on request by path prefix:
//   /f/NAME         206 ranges, ETag + Last-Modified, honours If-Range
//   /redirect/NAME  302 to /f/NAME
//   /norange/NAME   ignores Range: 200 with the whole body
//   /changing/NAME  a new version (other bytes, other ETag) after the first request
//   /slow/NAME      answers nothing for `slowMs`
//   /stall/NAME     sends the headers and 16 bytes, then nothing for `slowMs`
//   anything else   404
// With `cors`, any origin may read it (Range/If-Range allowed, Content-Range
// and ETag exposed), as a CORS-enabled model host would.
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';

export async function startRangeServer(files, { slowMs = 2000, cors = false } = {}) {
  const stats = { bytes: 0, requests: 0, headers: [] };
  const changingSeen = new Set();
  const pending = new Set();
  const server = createServer((req, res) => {
    stats.requests += 1;
    stats.headers.push({ url: req.url, ...req.headers });
    if (cors) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Expose-Headers', 'Content-Range, Content-Length, ETag, Last-Modified, Accept-Ranges');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { 'Access-Control-Allow-Headers': 'Range, If-Range', 'Access-Control-Allow-Methods': 'GET, HEAD' }).end();
        return;
      }
    }
    const [, variant, name] = /^\/([a-z]+)\/(.+)$/.exec(req.url.split('?')[0]) ?? [];
    const path = files[name];
    if (!path || !['f', 'redirect', 'norange', 'changing', 'slow', 'stall'].includes(variant)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    if (variant === 'redirect') {
      res.writeHead(302, { Location: `/f/${name}` }).end();
      return;
    }
    if (variant === 'slow' || variant === 'stall') {
      if (variant === 'stall') res.writeHead(206, { 'Content-Length': '65536', 'Content-Range': 'bytes 0-65535/1000000' }).write(new Uint8Array(16));
      const timer = setTimeout(() => res.destroy(), slowMs);
      pending.add(timer);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    let { size, mtimeMs } = statSync(path);
    let version = 1;
    if (variant === 'changing') {
      if (changingSeen.has(name)) version = 2;
      changingSeen.add(name);
    }
    if (version === 2) mtimeMs += 60_000;
    const etag = `"v${version}-${size}-${Math.floor(mtimeMs)}"`;
    const lastModified = new Date(Math.floor(mtimeMs / 1000) * 1000).toUTCString();
    const send = (status, start, end, extra = {}) => {
      res.writeHead(status, { 'Content-Length': String(end - start), ETag: etag, 'Last-Modified': lastModified, 'Accept-Ranges': 'bytes', ...extra });
      if (req.method === 'HEAD' || end === start) {
        res.end();
        return;
      }
      const stream = createReadStream(path, { start, end: end - 1 });
      stream.on('data', (chunk) => {
        // Version 2 of a changing file: other bytes.
        if (version === 2) chunk = Buffer.from(chunk).map((b) => b ^ 0xff);
        stats.bytes += chunk.byteLength;
        if (!res.write(chunk)) {
          stream.pause();
          res.once('drain', () => stream.resume());
        }
      });
      stream.on('end', () => res.end());
      res.on('close', () => stream.destroy());
    };
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const ifRange = req.headers['if-range'];
    if (variant === 'norange' || !range || (ifRange && ifRange !== etag && ifRange !== lastModified)) {
      send(200, 0, size);
      return;
    }
    const start = Number(range[1]);
    const end = Math.min(size, range[2] === '' ? size : Number(range[2]) + 1);
    if (start >= size) {
      res.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
      return;
    }
    send(206, start, end, { 'Content-Range': `bytes ${start}-${end - 1}/${size}` });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    base,
    stats,
    url: (variant, name) => `${base}/${variant}/${name}`,
    reset() {
      stats.bytes = 0;
      stats.requests = 0;
      stats.headers = [];
    },
    close() {
      for (const t of pending) clearTimeout(t);
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
