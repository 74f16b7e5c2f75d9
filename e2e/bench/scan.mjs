// Browser benchmark (not a test): the decode-only scan of a generated SSTable in ONE worker of
// the page, next to raw LZ4 decompression of the same Data.db in the same worker and run
// (issue #13 item 4; the native figures come from `sstable-inspect bench` on the same files).
//   node bench/scan.mjs DIST_DIR SSTABLE_DIR [RUNS]
// SSTABLE_DIR: xtask's target/bench-100x1000 (`generate --version oa --compression lz4
// --partitions 100 --rows-per-partition 1000 --seed 11`). The page's `wasmBindings.bench_scan`
// (web/src/main.rs) sends the files to a worker (web/src/worker/bench.rs): Data.db read into memory
// first, then best of RUNS (default 3) of each pass. Prints MB/s of uncompressed data, rows/s and
// the ratio to raw LZ4, and the machine's load average.
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { launch, serveDist } from './serve.mjs';

const [distArg, sstable, runsArg] = process.argv.slice(2);
if (!distArg || !sstable) {
  console.error('usage: node bench/scan.mjs DIST_DIR SSTABLE_DIR [RUNS]');
  process.exit(2);
}
const dist = path.resolve(distArg);
const runs = Math.max(1, Number(runsArg ?? 3));
const { base, close } = await serveDist(dist);
const browser = await launch();
const page = await browser.newPage();
await page.goto(base);
await page.waitForSelector('[data-testid=summary][data-sstables="sample/oa-1-big"]');
// The files go to the page through a file input of the bench's own (not the app's).
await page.evaluate(() => {
  const input = document.createElement('input');
  input.type = 'file';
  input.multiple = true;
  input.id = 'scan-bench-files';
  input.hidden = true;
  document.body.append(input);
});
const files = fs.readdirSync(sstable).sort().map((f) => path.join(sstable, f));
await page.setInputFiles('#scan-bench-files', files);
const loadBefore = os.loadavg();
const r = await page.evaluate((n) => window.wasmBindings.bench_scan(document.getElementById('scan-bench-files').files, n)
  .then((json) => JSON.parse(json), (error) => ({ error: String(error) })), runs);
const loadAfter = os.loadavg();
await browser.close();
close();
if (r.error) {
  console.error(`browser scan bench failed: ${r.error}`);
  process.exit(1);
}
const mbs = (ms) => r.uncompressed_bytes / 1e6 / (ms / 1e3);
const rowsPerSec = (ms) => r.rows / (ms / 1e3);
console.log(`browser scan bench: Data.db ${r.data_bytes} bytes (${r.uncompressed_bytes} uncompressed), Chromium, one worker, best of ${r.runs} ` +
  `(load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')})`);
console.log(`  ${r.partitions} partitions, ${r.rows} rows, ${r.cells} cells, ${r.tombstones} tombstones; Data.db read into the worker in ${r.read_millis.toFixed(0)} ms; MB/s of uncompressed data`);
if (r.lz4_millis != null) console.log(`  LZ4 decompress (raw)   ${mbs(r.lz4_millis).toFixed(0).padStart(8)} MB/s ${rowsPerSec(r.lz4_millis).toFixed(0).padStart(10)} rows/s`);
const ratio = r.lz4_millis != null ? `  = ${(r.lz4_millis / r.scan_millis).toFixed(2)} × raw LZ4` : '';
console.log(`  decode-only scan       ${mbs(r.scan_millis).toFixed(0).padStart(8)} MB/s ${rowsPerSec(r.scan_millis).toFixed(0).padStart(10)} rows/s${ratio}`);
