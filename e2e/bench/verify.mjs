// Browser benchmark (not a test): verification of a large generated SSTable in headless Chromium.
//   node bench/verify.mjs DIST_DIR SSTABLE_DIR
// SSTABLE_DIR: `sstable-inspect generate --version oa --compression lz4 --partitions 7500
// --rows-per-partition 1000 --out DIR` (≥ 1 GiB Data.db). Prints, from one run: the read limit
// (FileReaderSync pass), raw crc32fast, our CRC32 (the checksum phase), verify end to end with 1
// worker and N (one Data.db split across the N workers by chunk ranges), verify with
// decompression, peak wasm memory per worker, with ratios; the first render of the page with its
// sample; and the machine's load average.
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { launch, serveDist } from './serve.mjs';

const [distArg, sstable] = process.argv.slice(2);
const dist = distArg && path.resolve(distArg);
if (!distArg || !sstable) {
  console.error('usage: node bench/verify.mjs DIST_DIR SSTABLE_DIR');
  process.exit(2);
}
const { base, close } = await serveDist(dist);

const browser = await launch();
const page = await browser.newPage();
// First render: from navigation to the sample SSTable's summary on screen (the page's budget: 1 s).
const navigated = Date.now();
await page.goto(base);
await page.waitForSelector('[data-testid=summary][data-sstables="sample/oa-1-big"]');
const firstRenderMillis = Date.now() - navigated;
const files = fs.readdirSync(sstable).sort().map((f) => path.join(sstable, f));
const dataBytes = fs.statSync(files.find((f) => f.endsWith('Data.db'))).size;
await page.setInputFiles('[data-testid=file-input]', files);
await page.waitForSelector('[data-testid=summary][data-loads="2"]');
const cores = await page.evaluate(() => navigator.hardwareConcurrency);
const loadBefore = os.loadavg();

async function run({ workers, decompress }) {
  await page.locator('[data-testid=tab-sstables]').click();
  await page.locator('[data-testid=pool-size]').fill(String(workers));
  await page.locator('[data-testid=pool-size]').dispatchEvent('change');
  await page.locator('[data-testid=tab-verify]').click();
  await page.locator('[data-testid=verify-baseline]').setChecked(true);
  const box = page.locator('[data-testid=verify-view] input[type=checkbox]').first();
  await box.setChecked(decompress);
  const before = await page.locator('[data-testid=verify-badge]').count();
  await page.locator('[data-testid=verify-start]').click();
  if (before) await page.waitForSelector('[data-testid=verify-progress]');
  await page.waitForSelector('[data-testid=verify-progress]', { state: 'detached', timeout: 3600000 });
  await page.locator('[data-testid=verify-badge]').waitFor();
  const rows = await page.locator('[data-testid=timing]').evaluateAll((rs) => Object.fromEntries(rs.map((r) => [r.dataset.phase, [...r.querySelectorAll('td')].map((td) => td.textContent.trim())])));
  const memory = await page.locator('[data-testid=worker-timing], [data-testid=worker-combine]').evaluateAll((rs) => rs.map((r) => Number(r.dataset.memory)));
  const parts = await page.locator('[data-testid=worker-timing]').evaluateAll((rs) => rs.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent.trim())));
  const crc = await page.locator('[data-testid=timings]').first().getAttribute('data-crc32');
  return { rows, memory, parts, crc, badge: (await page.locator('[data-testid=verify-badge]').textContent()).trim() };
}

const mbs = (row) => (row ? parseFloat(row[3]) : NaN);
const n = Math.min(8, Math.max(2, cores));
const one = await run({ workers: 1, decompress: false });
const many = await run({ workers: n, decompress: false });
const dec = await run({ workers: 1, decompress: true });
const read = mbs(one.rows.read);
const raw = mbs(one.rows['raw-crc32']);
const ours = mbs(one.rows.checksum);
console.log(`browser bench: Data.db ${dataBytes} bytes, Chromium, ${cores} cores (load average before the runs ${loadBefore.map((l) => l.toFixed(2)).join(' ')}), CRC32 path ${one.crc}`);
console.log(`  first render with the sample  ${firstRenderMillis} ms (navigation to its summary; budget 1,000 ms)`);
console.log(`  read limit (FileReaderSync)   ${read.toFixed(0)} MB/s`);
console.log(`  raw crc32fast                 ${raw.toFixed(0)} MB/s`);
console.log(`  our CRC32 (checksum phase)    ${ours.toFixed(0)} MB/s = ${(ours / raw).toFixed(2)} x raw crc32fast`);
console.log(`  verify end to end, 1 worker   ${mbs(one.rows.total).toFixed(0)} MB/s = ${(mbs(one.rows.total) / read).toFixed(2)} x read limit  (${one.badge})`);
console.log(`  verify end to end, ${n} workers  ${mbs(many.rows.total).toFixed(0)} MB/s = ${(mbs(many.rows.total) / read).toFixed(2)} x read limit, ${(mbs(many.rows.total) / mbs(one.rows.total)).toFixed(2)} x 1 worker  (${many.badge})`);
for (const p of many.parts) console.log(`    worker ${p[0]}: ${p[1]}, ${p[2]} in ${p[3]}: ${p[4]}, wasm memory ${p[5]}`);
console.log(`  verify --decompress, 1 worker ${mbs(dec.rows.total).toFixed(0)} MB/s; decompress phase ${mbs(dec.rows.decompress).toFixed(0)} MB/s`);
console.log(`  peak wasm memory per worker   ${[...one.memory, ...many.memory, ...dec.memory].map((m) => (m / 1048576).toFixed(1) + ' MiB').join(', ')} (max ${(Math.max(...one.memory, ...many.memory, ...dec.memory) / 1048576).toFixed(1)} MiB)`);
console.log(`  load average after the runs   ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await browser.close();
close();
