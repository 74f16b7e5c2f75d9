// End-to-end: the engine runs in workers and the UI thread stays free. A PerformanceObserver for
// `longtask` is registered before the page's own scripts run (addInitScript), so every task of the
// UI thread is seen; none may exceed 100 ms while loading ≥ 100 SSTables, verifying, or paging.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  launch, cli, inputFiles, filesIn, fixturesOrSkip, OUT, LONG_TASK_LIMIT_MS, openObserved as openObservedIn, longTasksDuring, expectNoLongTasks,
} from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

/** Opens the page with the long-task observer installed before anything else runs. */
const openObserved = () => openObservedIn(browser);

/** Copies a directory tree; flips one byte of the file whose path ends with `flip.file`. */
function copyTree(dir, flip) {
  const out = fs.mkdtempSync(path.join(OUT, 'tree-'));
  fs.cpSync(dir, out, { recursive: true });
  if (flip) {
    const target = fs.readdirSync(out, { recursive: true }).find((f) => f.endsWith(flip.file));
    const p = path.join(out, target);
    const bytes = fs.readFileSync(p);
    bytes[flip.offset] ^= 0xff;
    fs.writeFileSync(p, bytes);
  }
  return out;
}

async function verifyAll(page) {
  await page.locator('[data-testid=tab-sstables]').click();
  await page.locator('[data-testid=verify-all-start]').click();
  await page.waitForFunction(() => {
    const t = document.querySelector('[data-testid=verify-all-progress]');
    return t && t.getAttribute('value') === t.getAttribute('max');
  }, null, { timeout: 180000 });
  return page.locator('[data-testid=sstable]').evaluateAll((cards) => Object.fromEntries(cards.map((c) =>
    [c.dataset.prefix, c.querySelector('[data-testid=verify-status]').dataset.verdict])));
}

test('Verify all on the oa directory: every card valid, in workers, no long task on the UI thread', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openObserved();
  await inputFiles(page, 'dir-input', path.join(fixtures, 'legacy-sstables', 'oa'));
  let verdicts;
  const long = await longTasksDuring(page, async () => { verdicts = await verifyAll(page); });
  assert.equal(Object.keys(verdicts).length, 4);
  assert.deepEqual(Object.values(verdicts), Array(4).fill('valid'), JSON.stringify(verdicts));
  const summary = page.locator('[data-testid=verify-all-summary]');
  assert.equal(await summary.getAttribute('data-valid'), '4');
  assert.equal(await summary.getAttribute('data-invalid'), '0');
  await expectNoLongTasks(t, long, 'while verifying');
  // The export holds every report, in the CLI's verify --json shape.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=export-verify-all]').click()]);
  const reports = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  assert.equal(reports.length, 4);
  assert.ok(reports.every((r) => r.valid === true && r.complete === true && r.checks.length >= 3));
  assert.deepEqual(errors, []);
});

test('Verify all on a copy of oa with one flipped byte: exactly that SSTable and chunk are red', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openObserved();
  const flipped = 600;
  const tree = copyTree(path.join(fixtures, 'legacy-sstables', 'oa'), { file: path.join('legacy_oa_clust', 'oa-1-big-Data.db'), offset: flipped });
  await inputFiles(page, 'dir-input', tree);
  const verdicts = await verifyAll(page);
  const red = Object.entries(verdicts).filter(([, v]) => v !== 'valid');
  assert.equal(red.length, 1, JSON.stringify(verdicts));
  assert.match(red[0][0], /legacy_oa_clust\/oa-1-big$/);
  assert.equal(red[0][1], 'invalid');
  // Its verification: one red chunk, the one holding the flipped byte.
  await page.locator(`[data-testid=sstable][data-prefix="${red[0][0]}"] [data-testid=inspect]`).click();
  await page.locator('[data-testid=tab-verify]').click();
  const chunks = await page.locator('[data-testid=chunk][data-ok=false]').evaluateAll((els) => els.map((e) => Number(e.dataset.chunk)));
  assert.equal(chunks.length, 1);
  await page.locator(`[data-testid=chunk][data-chunk="${chunks[0]}"]`).click();
  const detail = await page.locator('[data-testid=chunk-detail]').textContent();
  const [, from, to] = detail.match(/at bytes (\d+)\.\.(\d+)/);
  assert.ok(Number(from) <= flipped && flipped < Number(to) + 4, detail);
  assert.deepEqual(errors, []);
});

test('loading the whole fixture tree (≥ 100 SSTables) and verifying all of it: no UI-thread task over 100 ms', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openObserved();
  const t0 = await page.evaluate(() => performance.now());
  const longLoadAll = await longTasksDuring(page, () => inputFiles(page, 'dir-input', path.join(fixtures, 'legacy-sstables')));
  // The task that dispatches the input's `change` also holds Chromium's own work on the 838
  // picked files (a page with no script but the input shows a 350–460 ms task for the same
  // setInputFiles): that task counts only for the page's share of it, its handlers.
  const changes = await page.evaluate((t0) => window.__changes.filter((c) => c.at >= t0), t0);
  assert.equal(changes.length, 1);
  const inputTask = (t) => t.start <= changes[0].at && changes[0].at <= t.start + t.ms;
  const longLoad = longLoadAll.filter((t) => !inputTask(t));
  assert.ok(changes[0].pageMs <= LONG_TASK_LIMIT_MS, `the page's handlers of the file input took ${changes[0].pageMs} ms`);
  const count = await page.locator('[data-testid=sstable]').count();
  assert.ok(count >= 100, `${count} SSTables`);
  let verdicts;
  const longVerify = await longTasksDuring(page, async () => { verdicts = await verifyAll(page); });
  // Every card has a verdict.
  const values = Object.values(verdicts);
  assert.equal(values.length, count);
  assert.ok(values.every((v) => ['valid', 'invalid', 'not-verifiable'].includes(v)), JSON.stringify(verdicts));
  // MANIFEST §5: legacy_ka_14912's digest does not match; the oa tables are valid.
  const verdictOf = (suffix) => Object.entries(verdicts).find(([p]) => p.endsWith(suffix))?.[1];
  assert.equal(verdictOf('legacy_ka_14912-ka-1'), 'invalid');
  assert.equal(verdictOf('legacy_oa_clust/oa-1-big'), 'valid');
  const summary = page.locator('[data-testid=verify-all-summary]');
  const n = async (a) => Number(await summary.getAttribute(a));
  assert.equal(await n('data-valid') + await n('data-invalid') + await n('data-not-verifiable'), count);
  console.log(`loaded ${count} SSTables; verify all: ${await n('data-valid')} valid, ${await n('data-invalid')} invalid, ` +
    `${await n('data-not-verifiable')} not verifiable; long tasks: load ${JSON.stringify(longLoadAll)} (the input's handlers ` +
    `${changes[0].pageMs.toFixed(1)} ms of it), verify ${JSON.stringify(longVerify)}`);
  // KNOWN GAP (#12): Chromium's own task building the FileList of a large directory pick is
  // over 100 ms whatever the page does; kept visible as a todo, not counted against the page.
  await t.test('no UI-thread task over 100 ms at all, Chromium\'s FileList task included', {
    todo: 'KNOWN GAP #12: the browser\'s own file-input task for 838 files takes 350–460 ms on this machine',
  }, () => assert.deepEqual(longLoadAll, []));
  await expectNoLongTasks(t, longLoad, 'while loading');
  await expectNoLongTasks(t, longVerify, 'while verifying all');
  assert.deepEqual(errors, []);
});

test('the generated large SSTable: verified in a worker, paged in the data view (pages decoded in a worker, keys and values checked), no UI-thread task over 100 ms', async (t) => {
  const large = process.env.E2E_LARGE_SSTABLE;
  if (!large) { t.skip('E2E_LARGE_SSTABLE not set'); return; }
  const { page, errors } = await openObserved();
  await inputFiles(page, 'file-input', filesIn(large));
  await page.locator('[data-testid=tab-verify]').click();
  await page.locator('[data-testid=verify-baseline]').check();
  const longVerify = await longTasksDuring(page, async () => {
    await page.locator('[data-testid=verify-start]').click();
    await page.locator('[data-testid=verify-badge]').waitFor({ timeout: 180000 });
  });
  assert.match((await page.locator('[data-testid=verify-badge]').textContent()).trim(), /^valid/);
  const workerMemory = Number(await page.locator('[data-testid=worker-timing]').first().getAttribute('data-memory'));
  assert.ok(workerMemory > 0 && workerMemory < 64 * 1024 * 1024, `worker wasm memory ${workerMemory} bytes`);
  const timing = async (phase) => (await page.locator(`[data-testid=timing][data-phase=${phase}] td`).allTextContents()).map((s) => s.trim());
  console.log(`BENCH e2e (small file, not a benchmark): crc32 ${await page.locator('[data-testid=timings]').first().getAttribute('data-crc32')}; ` +
    `read ${(await timing('read'))[3]}; raw crc32fast ${(await timing('raw-crc32'))[3]}; checksum ${(await timing('checksum'))[3]} ${(await timing('checksum'))[4]}; ` +
    `end to end ${(await timing('total'))[3]} ${(await timing('total'))[4]}; worker memory ${workerMemory} bytes; ` +
    `long tasks while verifying ${JSON.stringify(longVerify)}`);
  await expectNoLongTasks(t, longVerify, 'while the large file verifies');

  // Pages are decoded in a worker; the UI thread only renders them. The large SSTable is
  // `generate --version oa --partitions 470 --rows-per-partition 1000 --seed 11` (xtask): its
  // partitions hold a static row and 1,000 rows, so a page (≤ 2,000 rows) is 2 partitions. The
  // values are that file's, as `sstable-inspect dump --jsonl` prints them.
  const keysByPage = [
    ['6654409173961458760', '-56246905597403532'],
    ['9045785976713289999', '-8072989396336414879'],
    ['-8915601478819932509', '-3418336944701892987'],
    ['-1084248719559573732', '-8187566551555438847'],
  ];
  const pageKeys = () => page.locator('[data-testid=partition-key]').allTextContents();
  const firstPage = {};
  const longPaging = await longTasksDuring(page, async () => {
    await page.locator('[data-testid=tab-data]').click();
    await page.locator('[data-testid=data-timing]').waitFor({ timeout: 60000 });
    firstPage.keys = await pageKeys();
    const first = page.locator('[data-testid=partition]').first();
    firstPage.heading = await first.locator('h3').textContent();
    firstPage.text = await first.textContent();
    firstPage.rows = await first.locator('[data-testid=row]').evaluateAll((trs) => trs.slice(0, 2).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    for (let i = 0; i < 3; i++) {
      const before = await page.locator('[data-testid=data-timing]').textContent();
      await page.locator('[data-testid=data-next]').click();
      await page.waitForFunction((b) => document.querySelector('[data-testid=data-timing]')?.textContent !== b, before, { timeout: 60000 });
      assert.deepEqual(await pageKeys(), keysByPage[i + 1], `page ${i + 2}`);
    }
    const before = await page.locator('[data-testid=data-timing]').textContent();
    await page.locator('[data-testid=data-prev]').click();
    await page.waitForFunction((b) => document.querySelector('[data-testid=data-timing]')?.textContent !== b, before, { timeout: 60000 });
    assert.deepEqual(await pageKeys(), keysByPage[2], 'back to page 3');
  });
  assert.deepEqual(firstPage.keys, keysByPage[0]);
  assert.match(firstPage.heading, /at 0 · 1001 rows/);
  // The worker built 200 rows of the partition (#12: a page caps what it materialises) and
  // counted the other 801.
  assert.match(firstPage.text, /… 801 more rows not shown/);
  // The static row (s = 'eocuiyegxz'), then the first row: clustering (0, 'k245'), v_text.
  const [staticRow, firstRow] = firstPage.rows;
  assert.equal(staticRow[0], 'static');
  assert.ok(staticRow.includes('eocuiyegxz'), JSON.stringify(staticRow));
  assert.deepEqual(firstRow.slice(0, 3), ['row', '0', 'k245']);
  assert.ok(firstRow.includes('fhnclayuqjwryiuktyjvclu'), JSON.stringify(firstRow));
  console.log(`data pages of the large SSTable: ${await page.locator('[data-testid=data-timing]').textContent()}; long tasks while paging ${JSON.stringify(longPaging)}`);
  // Pages decode in the workers, the UI thread only reads them back and renders (#12).
  await expectNoLongTasks(t, longPaging, 'while paging data');
  assert.deepEqual(errors, []);
});

/** Verifies the SSTable loaded with a pool of `workers`; the verify view's facts. */
async function verifySplit(page, workers) {
  await page.locator('[data-testid=tab-sstables]').click();
  await page.locator('[data-testid=pool-size]').fill(String(workers));
  await page.locator('[data-testid=pool-size]').dispatchEvent('change');
  await page.locator('[data-testid=tab-verify]').click();
  await page.locator('[data-testid=verify-start]').click();
  await page.locator('[data-testid=verify-badge]').waitFor({ timeout: 180000 });
  return {
    verdict: await page.locator('[data-testid=verify-badge]').getAttribute('data-verdict'),
    checks: await page.locator('[data-testid=verify-check]').evaluateAll((rs) => rs.map((r) => ({
      kind: r.dataset.kind, checked: Number(r.dataset.checked), failed: Number(r.dataset.failed), result: r.lastElementChild.textContent.trim(),
    }))),
    parts: await page.locator('[data-testid=worker-timing]').evaluateAll((rs) => rs.map((r) => ({
      worker: Number(r.dataset.worker), start: Number(r.dataset.start), end: Number(r.dataset.end),
    }))),
  };
}

test('one large Data.db split across a pool of 2: ≥ 2 parts, the CLI\'s verdict and digest; a flipped byte is red in exactly its chunk', async (t) => {
  const large = process.env.E2E_LARGE_SSTABLE;
  if (!large) { t.skip('E2E_LARGE_SSTABLE not set'); return; }
  const bin = cli();
  if (!bin) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  const cliReport = (dir) => {
    let out;
    try { out = execFileSync(bin, ['verify', '--json', dir]); } catch (e) { out = e.stdout; }
    return JSON.parse(out.toString())[0];
  };
  const checksOf = (r) => r.checks.filter((c) => c.kind !== 'crc_db').map((c) => ({ kind: c.kind, checked: c.checked, failed: c.failed }));
  const dataBytes = fs.statSync(filesIn(large).find((f) => f.endsWith('Data.db'))).size;

  const { page, errors } = await openObserved();
  await inputFiles(page, 'file-input', filesIn(large));
  let whole;
  const long = await longTasksDuring(page, async () => { whole = await verifySplit(page, 2); });
  const expected = cliReport(large);
  assert.equal(expected.verdict, 'valid');
  assert.equal(whole.verdict, expected.verdict);
  assert.deepEqual(whole.checks.map(({ kind, checked, failed }) => ({ kind, checked, failed })), checksOf(expected));
  // Two parts, each in its own worker, covering Data.db end to end.
  assert.equal(whole.parts.length, 2, JSON.stringify(whole.parts));
  assert.deepEqual(new Set(whole.parts.map((p) => p.worker)).size, 2, JSON.stringify(whole.parts));
  const sorted = [...whole.parts].sort((a, b) => a.start - b.start);
  assert.equal(sorted[0].start, 0);
  assert.equal(sorted[0].end, sorted[1].start);
  assert.equal(sorted[1].end, dataBytes);
  await expectNoLongTasks(t, long, 'while verifying in parts');

  // A flipped byte in the second part: the CLI names its chunk; the page shows exactly that chunk
  // red, and the digest combined from the parts is the CLI's (one pass) digest of the flipped file.
  const flipAt = Math.floor(dataBytes * 0.75);
  const copy = copyTree(large, { file: 'Data.db', offset: flipAt });
  const bad = cliReport(copy);
  assert.equal(bad.verdict, 'invalid');
  const chunkFailures = bad.checks.find((c) => c.kind === 'chunk').failures;
  assert.equal(chunkFailures.length, 1);
  const badChunk = chunkFailures[0].chunk;
  const digestFailure = bad.checks.find((c) => c.kind === 'digest').failures[0];
  const { page: page2, errors: errors2 } = await openObserved();
  await inputFiles(page2, 'file-input', filesIn(copy));
  const flipped = await verifySplit(page2, 2);
  assert.equal(flipped.verdict, 'invalid');
  assert.deepEqual(flipped.checks.map(({ kind, checked, failed }) => ({ kind, checked, failed })), checksOf(bad));
  const digestRow = flipped.checks.find((c) => c.kind === 'digest');
  assert.equal(digestRow.result, `expected ${digestFailure.expected} actual ${digestFailure.actual}`);
  assert.ok(flipped.parts.length >= 2 && flipped.parts.some((p) => p.start <= flipAt && flipAt < p.end));
  const red = page2.locator('[data-testid=chunk][data-ok=false]');
  assert.equal(await red.count(), 1);
  await red.click();
  const detail = await page2.locator('[data-testid=chunk-detail]').textContent();
  assert.match(detail, new RegExp(`^chunk ${badChunk} `));
  // Its partitions, named in the combining worker from Index.db in windows, are the CLI's.
  assert.ok(chunkFailures[0].partitions.length > 0);
  assert.ok(detail.includes(`overlapping partitions: ${chunkFailures[0].partitions.join(', ')}`), detail.slice(0, 500));
  assert.deepEqual(errors, []);
  assert.deepEqual(errors2, []);
});
