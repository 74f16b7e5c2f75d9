// Browser benchmark (not a test): the raw `FileReaderSync` read rate of a file in headless
// Chromium, by 1 dedicated worker over the whole file and by 2 over its halves at once, in
// blocks of 1, 4 and 16 MiB, each block copied into one reused buffer as the page's worker
// copies it into its WebAssembly memory — the read limit of the Analytics scan (issue #26),
// with the CPU time of Chromium's threads during each read (`cpu.mjs`).
//   node bench/read_rate.mjs FILE [RUNS] [BLOCKS_MIB]
// (e.g. the 1 GB bench's Data.db: /work/wt-perf/target/bench-large/oa-1-big-Data.db; BLOCKS_MIB
// a comma-separated list, default 1,4,16). Plain JS workers on a blank page: no WebAssembly.
import os from 'node:os';
import fs from 'node:fs';
import { launch } from './serve.mjs';
import { snapshot, diff, report } from './cpu.mjs';

const [file, runsArg, blocksArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/read_rate.mjs FILE [RUNS] [BLOCKS_MIB]');
  process.exit(2);
}
const runs = Math.max(1, Number(runsArg ?? 1));
const blocks = (blocksArg ?? '1,4,16').split(',').map(Number);
const size = fs.statSync(file).size;
const browser = await launch();
const page = await browser.newPage();
await page.setContent('<input type=file id=f>');
await page.setInputFiles('#f', file);

const WORKER = `onmessage = (e) => {
  const { file, start, end, block, copy } = e.data;
  const reader = new FileReaderSync();
  const dst = new Uint8Array(block);
  const t0 = performance.now();
  let n = 0, readMs = 0;
  for (let o = start; o < end; o += block) {
    const r0 = performance.now();
    const ab = reader.readAsArrayBuffer(file.slice(o, Math.min(end, o + block)));
    readMs += performance.now() - r0;
    if (copy) dst.set(new Uint8Array(ab));
    n += ab.byteLength;
  }
  postMessage({ n, ms: performance.now() - t0, readMs });
};`;

/** Reads the file's `parts` ranges at once, one worker a part; per worker bytes and ms. */
async function read(parts, blockMiB) {
  return page.evaluate(async ({ code, parts, block }) => {
    const file = document.getElementById('f').files[0];
    const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
    const workers = parts.map(() => new Worker(url));
    // Workers started first: their start is not in the time.
    await Promise.all(workers.map((w) => new Promise((r) => { w.onmessage = r; w.postMessage({ file, start: 0, end: 0, block, copy: true }); })));
    const t0 = performance.now();
    const results = await Promise.all(workers.map((w, i) => new Promise((r) => {
      w.onmessage = (e) => r(e.data);
      w.postMessage({ file, start: parts[i][0], end: parts[i][1], block, copy: true });
    })));
    const wall = performance.now() - t0;
    // Ended after the CPU snapshot (an ended thread's time leaves /proc/PID/task).
    window.workers = workers;
    return { wall, results };
  }, { code: WORKER, parts, block: blockMiB * 1048576 });
}

console.log(`raw FileReaderSync read: ${file}, ${size} bytes, Chromium, ${os.cpus().length} cores, best of ${runs} ` +
  `(load average before ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`);
for (const b of blocks) {
  for (const n of [1, 2, 1, 2].slice(0, runs > 1 ? 4 : 2)) {
    const half = Math.floor(size / n);
    const parts = Array.from({ length: n }, (_, i) => [i * half, i === n - 1 ? size : (i + 1) * half]);
    let best;
    for (let r = 0; r < runs; r++) {
      const before = snapshot();
      const res = await read(parts, b);
      const cpu = diff(before, snapshot());
      await page.evaluate(() => window.workers.forEach((w) => w.terminate()));
      if (!best || res.wall < best.res.wall) best = { res, cpu };
    }
    const { res, cpu } = best;
    const mbs = size / 1e6 / (res.wall / 1e3);
    console.log(`  ${b} MiB blocks, ${n} worker${n > 1 ? 's' : ' '}: ${res.wall.toFixed(0)} ms, ${mbs.toFixed(0)} MB/s ` +
      `(${res.results.map((r) => `${(r.n / 1e6 / (r.ms / 1e3)).toFixed(0)} MB/s, ${r.readMs.toFixed(0)} ms in readAsArrayBuffer`).join('; ')}); ` +
      `CPU ${(cpu.totalMs / (size / 1e9)).toFixed(0)} ms per GB`);
    for (const l of report(cpu)) console.log(l);
  }
}
console.log(`  load average after ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await browser.close();
