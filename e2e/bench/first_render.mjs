// Browser benchmark (not a test): the page's first render with its sample, as verify.mjs times
// it (navigation to the sample SSTable's summary on screen; the page's budget is 1 s), repeated
// in a fresh browser context each time (no HTTP or code cache carried over).
//   node bench/first_render.mjs DIST_DIR [RUNS]
// Prints each run, the best and the median, and the machine's load average.
import os from 'node:os';
import path from 'node:path';
import { launch, serveDist } from './serve.mjs';

const [distArg, runsArg] = process.argv.slice(2);
if (!distArg) {
  console.error('usage: node bench/first_render.mjs DIST_DIR [RUNS]');
  process.exit(2);
}
const dist = path.resolve(distArg);
const runs = Math.max(1, Number(runsArg ?? 7));
const { base, close } = await serveDist(dist);
const browser = await launch();
const loadBefore = os.loadavg();
const times = [];
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const navigated = Date.now();
  await page.goto(base);
  await page.waitForSelector('[data-testid=summary][data-sstables="sample/oa-1-big"]');
  times.push(Date.now() - navigated);
  await context.close();
}
await browser.close();
close();
const sorted = [...times].sort((a, b) => a - b);
const median = sorted[Math.floor((sorted.length - 1) / 2)];
console.log(`first render with the sample: ${times.join(', ')} ms; best ${sorted[0]} ms, median ${median} ms ` +
  `(${runs} fresh contexts; load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}; budget 1,000 ms)`);
