// Browser benchmark (not a test): the Analytics tab's "Resurrection risks" (a full merged read of
// a table's SSTables in one worker, issue #25) on a large generated table in headless Chromium.
// Prints the wall time, the Data.db bytes the worker read and the worker's WebAssembly memory at
// the end (that memory only grows, so it is the worker's peak: the issue bounds it at 128 MB).
//   node bench/zombies.mjs DIST_DIR TABLE_DIR NOW
// TABLE_DIR: one node of `sstable-inspect generate --version oa --compression lz4 --partitions
// 240000 --rows-per-partition 100 --overlapping 4 --replicas 2 --out DIR` (DIR/node1: 1 GB of
// Data.db in 5 SSTables); NOW: the `--now` that command prints.
import os from 'node:os';
import path from 'node:path';
import { launch, serveDist } from './serve.mjs';

const [distArg, dir, now] = process.argv.slice(2);
if (!distArg || !dir || !now) {
  console.error('usage: node bench/zombies.mjs DIST_DIR TABLE_DIR NOW');
  process.exit(2);
}
const { base, close } = await serveDist(path.resolve(distArg));
const browser = await launch();
const loadBefore = os.loadavg();
const page = await browser.newPage();
await page.goto(base);
await page.waitForSelector('[data-testid=summary][data-sstables="sample/oa-1-big"]');
await page.setInputFiles('[data-testid=dir-input]', path.resolve(dir));
await page.locator('[data-testid=overview-row]').first().click();
await page.locator('[data-testid=tab-analytics]').click();
await page.locator('[data-testid=zombies-run]').waitFor();
await page.locator('[data-testid=zombies-now]').fill(now);
await page.locator('[data-testid=zombies-now]').dispatchEvent('change');
const t0 = Date.now();
await page.locator('[data-testid=zombies-run]').click();
const summary = page.locator('[data-testid=zombies-summary]');
await summary.waitFor({ timeout: 7200000 });
const wallMillis = Date.now() - t0;
const text = (await summary.textContent()).trim();
const memory = Number(await summary.getAttribute('data-wasm-memory'));
const partitions = await summary.getAttribute('data-partitions');
const loadAfter = os.loadavg();
await browser.close();
close();
console.log(`browser zombies bench: ${partitions} merged partitions in ${wallMillis} ms ` +
  `(load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')})`);
console.log(`  ${text}`);
console.log(`  the worker's WebAssembly memory at the end: ${memory} bytes (${(memory / 1048576).toFixed(1)} MiB)`);
