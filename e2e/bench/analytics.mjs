// Browser benchmark (not a test): the Analytics tab's partitions and tombstones scan of a large
// generated SSTable in headless Chromium with 1 worker and with N (issue #26: Data.db split into
// partition-aligned ranges over the pool, the ranges' figures merged in a worker).
//   node bench/analytics.mjs DIST_DIR SSTABLE_DIR [RUNS] [N]
// SSTABLE_DIR: `sstable-inspect generate --version oa --compression lz4 --partitions 7500
// --rows-per-partition 1000 --seed 11 --out DIR` (≥ 1 GiB Data.db; xtask's bench-large). Each
// run is a fresh page (a worker's kept scan would answer the second), best of RUNS (default 1)
// per pool size. Prints the wall time from the click to the figures on screen and the page's
// own scan time, MB/s of Data.db, the ratio N workers / 1 worker, whether the figures are equal,
// and the machine's load average before and after.
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { launch, serveDist } from './serve.mjs';

const [distArg, sstable, runsArg, nArg] = process.argv.slice(2);
if (!distArg || !sstable) {
  console.error('usage: node bench/analytics.mjs DIST_DIR SSTABLE_DIR [RUNS] [N]');
  process.exit(2);
}
const runs = Math.max(1, Number(runsArg ?? 1));
const { base, close } = await serveDist(path.resolve(distArg));
const browser = await launch();
const files = fs.readdirSync(sstable).sort().map((f) => path.join(sstable, f));
const dataBytes = fs.statSync(files.find((f) => f.endsWith('Data.db'))).size;

async function scan(workers) {
  const page = await browser.newPage();
  await page.goto(base);
  await page.waitForSelector('[data-testid=summary][data-sstables="sample/oa-1-big"]');
  await page.locator('[data-testid=tab-sstables]').click();
  await page.locator('[data-testid=pool-size]').fill(String(workers));
  await page.locator('[data-testid=pool-size]').dispatchEvent('change');
  await page.setInputFiles('[data-testid=file-input]', files);
  await page.waitForSelector('[data-testid=summary][data-loads="2"]');
  // Every worker of the pool started and loaded (the rest start after the first answer).
  await page.waitForTimeout(3000);
  await page.locator('[data-testid=tab-analytics]').click();
  await page.locator('[data-testid=analytics]').waitFor();
  const t0 = Date.now();
  await page.locator('[data-testid=scan-partitions]').click();
  await page.locator('[data-testid=scan-summary]').waitFor({ timeout: 3600000 });
  const wallMillis = Date.now() - t0;
  const summary = page.locator('[data-testid=scan-summary]');
  const text = (await summary.textContent()).trim();
  const r = {
    wallMillis,
    pageMillis: Number(await summary.getAttribute('data-millis')),
    ranges: Number(await summary.getAttribute('data-ranges')),
    figures: [
      text.replace(/ scanned in \d+ ms \(.*?bytes of Data\.db read\)/, ''),
      (await page.locator('[data-testid=top-partitions]').textContent()).trim(),
      (await page.locator('[data-testid=tombstone-summary]').textContent()).trim(),
    ].join('\n'),
    text,
  };
  await page.close();
  return r;
}

const cores = os.cpus().length;
const n = Math.max(2, Number(nArg ?? 2));
const loadBefore = os.loadavg();
const best = async (workers) => {
  let b;
  for (let i = 0; i < runs; i++) {
    const r = await scan(workers);
    if (!b || r.wallMillis < b.wallMillis) b = r;
  }
  return b;
};
const one = await best(1);
const many = await best(n);
const loadAfter = os.loadavg();
await browser.close();
close();
const mbs = (ms) => dataBytes / 1e6 / (ms / 1e3);
console.log(`browser analytics bench: Data.db ${dataBytes} bytes, Chromium, ${cores} cores, best of ${runs} ` +
  `(load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')})`);
console.log(`  ${one.text.slice(0, 120)}…`);
console.log(`  1 worker   ${one.wallMillis} ms wall (${mbs(one.wallMillis).toFixed(0)} MB/s), page's scan ${one.pageMillis.toFixed(0)} ms, ${one.ranges} range`);
console.log(`  ${n} workers  ${many.wallMillis} ms wall (${mbs(many.wallMillis).toFixed(0)} MB/s), page's scan ${many.pageMillis.toFixed(0)} ms, ${many.ranges} ranges`);
console.log(`  ${n} workers / 1 worker: ${(one.wallMillis / many.wallMillis).toFixed(2)} x (wall), ${(one.pageMillis / many.pageMillis).toFixed(2)} x (page's scan time)`);
console.log(`  figures equal: ${one.figures === many.figures}`);
if (one.figures !== many.figures) {
  console.error(`1 worker:\n${one.figures}\n${n} workers:\n${many.figures}`);
  process.exit(1);
}
