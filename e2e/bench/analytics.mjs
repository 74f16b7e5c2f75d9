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
import { snapshot, diff, report } from './cpu.mjs';

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
  const cpuBefore = snapshot();
  const t0 = Date.now();
  await page.locator('[data-testid=scan-partitions]').click();
  await page.locator('[data-testid=scan-summary]').waitFor({ timeout: 3600000 });
  const wallMillis = Date.now() - t0;
  const cpu = diff(cpuBefore, snapshot());
  // The workers' own timings of the scan's jobs (User Timing measures named `sstable-analytics …`).
  const timings = [];
  for (const w of page.workers()) {
    try {
      timings.push(...await w.evaluate(() => performance.getEntriesByType('measure')
        .filter((m) => m.name.startsWith('sstable-analytics'))
        .map((m) => ({ name: m.name, start: performance.timeOrigin + m.startTime, ms: m.duration, detail: m.detail }))));
    } catch { /* a worker that ended */ }
  }
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
    cpu,
    timings,
  };
  await page.close();
  return r;
}

const cores = os.cpus().length;
const n = Math.max(2, Number(nArg ?? 2));
const loadBefore = os.loadavg();
// 1 worker and N alternately, so both see the same minutes of a shared machine.
let one;
let many;
const show = (workers, r) => {
  console.log(`  run: ${workers} worker${workers > 1 ? 's' : ' '} ${r.wallMillis} ms wall, page's scan ${r.pageMillis.toFixed(0)} ms, ` +
    `load average ${os.loadavg()[0].toFixed(2)}; Chromium's CPU ${(r.cpu.totalMs / (dataBytes / 1e9)).toFixed(0)} ms per GB`);
  for (const l of report(r.cpu, 50)) console.log(l);
  const t0 = Math.min(...r.timings.map((t) => t.start));
  for (const t of r.timings.sort((a, b) => a.start - b.start)) {
    console.log(`      +${(t.start - t0).toFixed(0).padStart(5)} ms ${t.ms.toFixed(0).padStart(6)} ms ${t.name} ${t.detail ?? ''}`);
  }
};
for (let i = 0; i < runs; i++) {
  const a = await scan(1);
  show(1, a);
  if (!one || a.wallMillis < one.wallMillis) one = a;
  const b = await scan(n);
  show(n, b);
  if (!many || b.wallMillis < many.wallMillis) many = b;
}
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
