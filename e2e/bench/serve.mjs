// Shared by the browser benchmarks: DIST_DIR served on a free localhost port, and Chromium
// launched as the end-to-end tests launch it (tests/helpers.mjs).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

export { launch } from '../tests/helpers.mjs';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml' };

/** Serves `distDir` (files only inside it); resolves to its base URL and a `close()`. */
export async function serveDist(distDir) {
  const dist = path.resolve(distDir);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    let p = path.join(dist, decodeURIComponent(url.pathname));
    if (p.endsWith('/')) p = path.join(p, 'index.html');
    if (!p.startsWith(dist) || !fs.existsSync(p)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': TYPES[path.extname(p)] ?? 'application/octet-stream' });
    fs.createReadStream(p).pipe(res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}
