// Browser benchmark helper (not a test): where the page's first render with its sample spends
// its time. Loads the page once per run in a fresh context with Chromium tracing on and prints,
// per thread (page, worker), the milestones from navigation: resource requests, WebAssembly
// compiles, script evaluations, user-timing marks, and the summary on screen.
//   node bench/startup_trace.mjs DIST_DIR [RUNS] [TRACE_JSON]
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { launch, serveDist } from './serve.mjs';

const [distArg, runsArg, traceOut] = process.argv.slice(2);
if (!distArg) {
  console.error('usage: node bench/startup_trace.mjs DIST_DIR [RUNS] [TRACE_JSON]');
  process.exit(2);
}
const dist = path.resolve(distArg);
const runs = Math.max(1, Number(runsArg ?? 1));
const { base, close } = await serveDist(dist);
const browser = await launch();
const categories = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.wasm', 'v8',
  'blink.user_timing', 'loading', 'v8.execute', 'toplevel'];
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await browser.startTracing(page, { categories });
  const navigated = Date.now();
  await page.goto(base);
  await page.waitForSelector('[data-testid=summary][data-sstables="sample/oa-1-big"]');
  const total = Date.now() - navigated;
  const trace = JSON.parse((await browser.stopTracing()).toString());
  if (traceOut) fs.writeFileSync(traceOut, JSON.stringify(trace));
  report(trace.traceEvents ?? trace, total);
  await context.close();
}
await browser.close();
close();
console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);

function report(events, total) {
  const names = new Map();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
  const nav = events.find((e) => e.name === 'navigationStart' || e.name === 'NavigationTiming' || e.name === 'fetchStart');
  const t0 = Math.min(...events.filter((e) => e.name === 'ResourceSendRequest').map((e) => e.ts));
  const rows = [];
  const interesting = /wasm|Wasm|EvaluateScript|ResourceSendRequest|ResourceFinish|ParseHTML|FirstContentfulPaint|firstContentfulPaint|mark|Mark|CompileScript|v8.compileModule|RunMicrotasks|TimerFire|FunctionCall|HandlePostMessage|Worker/;
  for (const e of events) {
    if (e.ph === 'M' || !interesting.test(e.name)) continue;
    const dur = e.dur ? e.dur / 1000 : 0;
    if ((e.name === 'FunctionCall' || e.name === 'RunMicrotasks' || e.name === 'EvaluateScript' || e.name === 'HandlePostMessage' || e.name === 'v8.compile') && dur < 3) continue;
    const detail = e.args?.data?.url ?? e.args?.data?.requestId ?? e.args?.url ?? e.args?.data?.functionName ?? '';
    rows.push([(e.ts - t0) / 1000, dur, names.get(`${e.pid}:${e.tid}`) ?? `${e.pid}:${e.tid}`, e.name, String(detail).replace(base, '')]);
  }
  rows.sort((a, b) => a[0] - b[0]);
  console.log(`--- run: summary on screen ${total} ms after goto`);
  for (const [t, d, th, n, det] of rows) console.log(`${t.toFixed(1).padStart(8)} ms  +${d.toFixed(1).padStart(6)}  ${th.padEnd(22).slice(0, 22)} ${n}  ${det}`);
}
