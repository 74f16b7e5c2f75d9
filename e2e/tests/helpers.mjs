// Shared set-up for the end-to-end tests: the browser, the served page and the fixtures.
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

export const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
export const FIXTURES = process.env.SSTABLE_FIXTURES ?? '';
export const OUT = process.env.E2E_OUT ?? path.resolve('out');

const ci = ['1', 'true'].includes((process.env.CI ?? '').toLowerCase());

/** The CLI built by cargo (`SSTABLE_INSPECT`, else target/{release,debug}). */
export function cli() {
  const candidates = [process.env.SSTABLE_INSPECT, '../target/release/sstable-inspect', '../target/debug/sstable-inspect'];
  return candidates.find((c) => c && fs.existsSync(c));
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

/** The fixtures directory, or null after recording a skip (a failure when CI is set). */
export function fixturesOrSkip(t) {
  if (FIXTURES && fs.existsSync(path.join(FIXTURES, 'MANIFEST.md'))) return FIXTURES;
  if (ci) throw new Error('the Cassandra fixtures are required when CI is set');
  if (process.env.SSTABLE_SKIP_LOG) fs.appendFileSync(process.env.SSTABLE_SKIP_LOG, `e2e: ${t.name} (fixtures not found)\n`);
  t.skip('Cassandra fixtures not found');
  return null;
}

export function legacyTable(fixtures, version, table) {
  return path.join(fixtures, 'legacy-sstables', version, 'legacy_tables', table);
}

/** Opens the page and fails the test on any uncaught page error. */
export async function openPage(browser) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(BASE_URL);
  await page.waitForSelector('[data-testid=drop-zone]');
  // The embedded sample is decoded on first load.
  await page.waitForSelector('[data-testid=summary][data-sstables="sample/oa-1-big"]');
  return { page, errors };
}

/** Runs `action` (a file input or a drop) and waits until the page shows a new set of SSTables. */
async function replacing(page, action) {
  const before = await page.getAttribute('[data-testid=summary]', 'data-loads');
  await action();
  await page.waitForFunction(
    (b) => document.querySelector('[data-testid=summary]')?.dataset.loads !== b,
    before,
  );
  // Cards are rendered a few at a time: wait for all of them.
  await page.waitForFunction(() => document.querySelector('[data-testid=cards]')?.dataset.complete !== 'false');
}

/** Loads files (or, for the directory picker, a directory) through an `<input type=file>`. */
export async function inputFiles(page, testid, files) {
  await replacing(page, () => page.setInputFiles(`[data-testid=${testid}]`, files));
}

/** Drops files on the drop zone with a synthetic DataTransfer, as a user's drag and drop would. */
export async function dropFiles(page, filePaths) {
  await replacing(page, () => dropFilesNow(page, filePaths));
}

async function dropFilesNow(page, filePaths) {
  const payload = filePaths.map((p) => ({ name: path.basename(p), base64: fs.readFileSync(p).toString('base64') }));
  await page.evaluate((files) => {
    const transfer = new DataTransfer();
    for (const f of files) {
      const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
      transfer.items.add(new File([bytes], f.name));
    }
    const zone = document.querySelector('[data-testid=drop-zone]');
    for (const type of ['dragenter', 'dragover', 'drop']) {
      zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
    }
  }, payload);
}

export async function cardFacts(card) {
  const text = async (id) => (await card.locator(`[data-testid=${id}]`).textContent())?.trim();
  return {
    prefix: await card.getAttribute('data-prefix'),
    version: await text('version'),
    format: await text('format'),
    generation: await text('generation'),
    components: Number(await text('component-count')),
  };
}

export function filesIn(dir) {
  return fs.readdirSync(dir).sort().map((f) => path.join(dir, f));
}

/** The page's rule: no UI-thread task over this long. */
export const LONG_TASK_LIMIT_MS = 100;

/**
 * Opens the page with a `longtask` PerformanceObserver registered before any of the page's own
 * scripts run (addInitScript), so every task of the UI thread is seen; also records each file
 * input's `change` dispatch (when it began, how long the page's handlers took).
 */
export async function openObserved(browser) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, ms: e.duration });
    }).observe({ type: 'longtask', buffered: true });
    // Each file input's `change`: when its dispatch began and ended (window capture to window
    // bubble: the page's handlers and the microtasks they queue), to tell the page's share of
    // that task from Chromium's own work building the FileList.
    window.__changes = [];
    window.addEventListener('change', () => window.__changes.push({ at: performance.now() }), true);
    window.addEventListener('change', () => {
      const c = window.__changes[window.__changes.length - 1];
      if (c) c.pageMs = performance.now() - c.at;
    });
  });
  await page.goto(BASE_URL);
  await page.waitForSelector('[data-testid=summary][data-sstables="sample/oa-1-big"]');
  return { page, errors };
}

/** Runs `work` and returns the UI thread's tasks longer than the limit that started meanwhile. */
export async function longTasksDuring(page, work) {
  const t0 = await page.evaluate(() => performance.now());
  await work();
  // Long tasks are reported after they end: let the observer deliver them.
  await page.waitForTimeout(200);
  return page.evaluate(({ t0, limit }) => window.__longTasks.filter((t) => t.start >= t0 && t.ms > limit), { t0, limit: LONG_TASK_LIMIT_MS });
}

/**
 * The page's rule: no UI-thread task over LONG_TASK_LIMIT_MS, asserted. Where a known gap is
 * named (`knownGap`: what the tasks are, as traced), the strict check is a subtest that turns into
 * a todo naming the tasks when one appears, and only a task over twice the limit fails the test.
 * #12 traced the long tasks of loading 106 SSTables, of verifying and of a large file's report to
 * the page's own layout (a growing overview table and card grid, a 2,048-cell chunk strip); with
 * those fixed, loading, every verification and the small analytics scan passed the strict check
 * in three consecutive `cargo xtask e2e` runs on the busy 2-core machine, and are asserted.
 * Paging data (the layout of a new page's 16-column row tables, 113–173 ms) passed it too once a
 * page's rows grow a few per animation frame, and is asserted.
 */
export async function expectNoLongTasks(t, tasks, what, knownGap) {
  if (!knownGap) {
    assert.deepEqual(tasks, [], `UI-thread tasks over ${LONG_TASK_LIMIT_MS} ms ${what}: ${JSON.stringify(tasks)}`);
    return;
  }
  await t.test(`no UI-thread task over ${LONG_TASK_LIMIT_MS} ms ${what}`, {
    todo: tasks.length ? `KNOWN GAP #12 (${knownGap}): ${JSON.stringify(tasks)}` : false,
  }, () => assert.deepEqual(tasks, []));
  assert.ok(tasks.every((task) => task.ms < 2 * LONG_TASK_LIMIT_MS), `UI-thread tasks ${what}: ${JSON.stringify(tasks)}`);
}

/**
 * A fresh directory OUT/name of generated SSTables (`sstable-inspect generate`): for each entry,
 * `--generation G` with its own options after the common ones (oa, LZ4, 5 partitions of 3 rows
 * unless the entry's args say otherwise).
 */
export function generateSSTables(name, sstables) {
  const dir = path.join(OUT, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const { generation, args = [], subdir = '' } of sstables) {
    const base = { '--version': 'oa', '--compression': 'lz4', '--partitions': '5', '--rows-per-partition': '3' };
    for (let i = 0; i < args.length; i += 2) if (args[i] in base) { base[args[i]] = args[i + 1]; }
    const rest = args.filter((a, i) => !(a in base) && !(i > 0 && args[i - 1] in base));
    const out = path.join(dir, subdir);
    execFileSync(cli(), ['generate', '-q', '--out', out, ...Object.entries(base).flat(), '--generation', String(generation), ...rest]);
  }
  return dir;
}

/** Flips the byte at each offset of a file. */
export function flipBytes(file, offsets) {
  const bytes = fs.readFileSync(file);
  for (const o of offsets) bytes[o] ^= 0xff;
  fs.writeFileSync(file, bytes);
}

/** Copies a table's files to a temporary directory under OUT, flipping the byte at `flip.offset`
 * of the file whose name ends with `flip.file` (when given). */
export function copyTable(dir, flip) {
  const out = fs.mkdtempSync(path.join(OUT, 'copy-'));
  for (const f of fs.readdirSync(dir)) {
    const bytes = fs.readFileSync(path.join(dir, f));
    if (flip && f.endsWith(flip.file)) bytes[flip.offset] ^= 0xff;
    fs.writeFileSync(path.join(out, f), bytes);
  }
  return out;
}

/** Verifies the selected SSTable in the Verify tab; the verdict's text. */
export async function verifyNow(page) {
  await page.locator('[data-testid=tab-verify]').click();
  await page.locator('[data-testid=verify-start]').click();
  await page.locator('[data-testid=verify-badge]').waitFor({ timeout: 120000 });
  return (await page.locator('[data-testid=verify-badge]').textContent()).trim();
}

/** The trimmed text of a locator. */
export const textOf = async (locator) => (await locator.textContent())?.trim();
