// End-to-end: the Analytics tab's "Resurrection risks" for a table of several SSTables (issue
// #25, the page's part). A table written by `sstable-inspect generate --overlapping 4 --zombies`
// (the CLI's zombies test's table: nb, 25 partitions of 10 rows, seed 33, with 8 injected
// resurrections and 2 droppable tombstones that shadow nothing) is scanned in a worker; the page
// lists exactly the findings `sstable-inspect zombies DIR --json` lists at the same now and
// gc_grace — at the default gc grace and at one past every injected case.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, cli, openObserved, inputFiles, OUT, longTasksDuring, expectNoLongTasks } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

/** The table, written by the CLI; returns its directory and the `--now` it prints. */
function generateTable(bin) {
  const dir = path.join(OUT, 'table-zombies');
  fs.rmSync(dir, { recursive: true, force: true });
  const out = execFileSync(bin, [
    'generate', '--out', dir, '--version', 'nb', '--compression', 'lz4', '--partitions', '25',
    '--rows-per-partition', '10', '--seed', '33', '--overlapping', '4', '--zombies',
  ]).toString();
  assert.match(out, /finds 8 resurrections and 2 droppable tombstones/);
  return { dir, now: out.match(/--now (\d+)/)[1] };
}

/** One finding as comparable text: key, tombstone (SSTable, kind, clustering, column, mfda), shadowed. */
function cliFindings(report) {
  const tombstone = (t) => [t.sstable, t.kind, JSON.stringify(t.clustering), t.column ?? '', String(t.marked_for_delete_at)];
  const out = [
    ...report.resurrections.map((r) => [r.partition.key_hex, ...tombstone(r.tombstone),
      r.shadowed.sstable, String(r.shadowed.static), JSON.stringify(r.shadowed.clustering), String(r.shadowed.timestamp), String(r.shadowed.pieces)].join('|')),
    ...report.garbage.map((g) => [g.partition.key_hex, ...tombstone(g.tombstone)].join('|')),
  ];
  return out.sort();
}

async function pageFindings(page) {
  const rows = [];
  for (;;) {
    rows.push(...await page.locator('[data-testid=zombie-finding]').evaluateAll((trs) => trs.map((tr) => {
      const d = tr.dataset;
      const base = [d.keyHex, d.sstable, d.kind, d.clustering, d.column, d.mfda];
      return (d.finding === 'resurrection'
        ? [...base, d.shadowedSstable, d.shadowedStatic, d.shadowedClustering, d.shadowedTimestamp, d.pieces]
        : base).join('|');
    })));
    const next = page.locator('[data-testid=zombies-next]');
    if (!(await next.count()) || await next.isDisabled()) break;
    await next.click();
  }
  return rows.sort();
}

async function runScan(page) {
  await page.locator('[data-testid=zombies-run]').click();
  await page.locator('[data-testid=zombies-summary]').waitFor({ timeout: 60000 });
}

test('Resurrection risks: the page lists exactly the findings of sstable-inspect zombies --json', { timeout: 180000 }, async (t) => {
  const bin = cli();
  if (!bin) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  const { dir, now } = generateTable(bin);
  const cliAt = (gc) => JSON.parse(execFileSync(bin, ['zombies', dir, '--gc-grace', String(gc), '--now', now, '--json']).toString());
  const expected = cliAt(864000);
  assert.equal(expected.resurrections.length, 8);
  assert.equal(expected.garbage.length, 2);

  const { page, errors } = await openObserved(browser);
  await inputFiles(page, 'dir-input', dir);
  assert.equal(await page.locator('[data-testid=overview-row]').count(), 4);
  await page.locator('[data-testid=overview-row]').first().click();
  await page.locator('[data-testid=tab-analytics]').click();
  await page.locator('[data-testid=table-summary][data-ready=true]').waitFor();
  await page.locator('[data-testid=zombies-now]').fill(now);
  await page.locator('[data-testid=zombies-now]').dispatchEvent('change');
  const long = await longTasksDuring(page, () => runScan(page));
  await expectNoLongTasks(t, long, 'while finding resurrection risks');
  const summary = page.locator('[data-testid=zombies-summary]');
  assert.equal(await summary.getAttribute('data-complete'), 'true');
  assert.equal(await summary.getAttribute('data-partitions'), String(expected.partitions));
  assert.equal(await summary.getAttribute('data-resurrections'), '8');
  assert.equal(await summary.getAttribute('data-garbage'), '2');
  assert.deepEqual(await pageFindings(page), cliFindings(expected));
  await page.screenshot({ path: path.join(OUT, 'table-zombies.png'), fullPage: true });

  // The tab's gc grace is the scan's: past every injected case (30 days + 2 h), the page and
  // the CLI agree again (on fewer findings).
  const later = 30 * 86400 + 7200;
  const expectedLater = cliAt(later);
  assert.ok(expectedLater.resurrections.length + expectedLater.garbage.length < 10);
  await page.locator('[data-testid=gc-grace]').fill(String(later));
  await page.locator('[data-testid=gc-grace]').dispatchEvent('change');
  await page.locator('[data-testid=zombies-stale]').waitFor();
  await page.locator('[data-testid=zombies-run]').click();
  await page.locator(`[data-testid=zombies-summary][data-gc-grace="${later}"]`).waitFor({ timeout: 60000 });
  assert.equal(await summary.getAttribute('data-resurrections'), String(expectedLater.resurrections.length));
  assert.equal(await summary.getAttribute('data-garbage'), String(expectedLater.garbage.length));
  assert.deepEqual(await pageFindings(page), cliFindings(expectedLater));
  assert.deepEqual(errors, []);
});

test('Resurrection risks of a larger table: progress while it runs, Cancel stops it, then a whole scan reads every Data.db', { timeout: 300000 }, async (t) => {
  const bin = cli();
  if (!bin) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  const dir = path.join(OUT, 'table-zombies-large');
  fs.rmSync(dir, { recursive: true, force: true });
  const out = execFileSync(bin, [
    'generate', '--out', dir, '--version', 'nb', '--compression', 'lz4', '--partitions', '6000',
    '--rows-per-partition', '50', '--seed', '5', '--overlapping', '4',
  ]).toString();
  const now = out.match(/--now (\d+)/)[1];
  const dataBytes = fs.readdirSync(dir).filter((f) => f.endsWith('-Data.db')).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
  const { page, errors } = await openObserved(browser);
  await inputFiles(page, 'dir-input', dir);
  await page.locator('[data-testid=overview-row]').first().click();
  await page.locator('[data-testid=tab-analytics]').click();
  await page.locator('[data-testid=zombies-run]').waitFor();
  await page.locator('[data-testid=zombies-now]').fill(now);
  await page.locator('[data-testid=zombies-now]').dispatchEvent('change');
  await page.evaluate(() => {
    window.__zombieProgress = new Set();
    const note = () => document.querySelectorAll('[data-testid=zombies-progress]').forEach((p) => window.__zombieProgress.add(p.getAttribute('value')));
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['value'] });
  });
  await page.locator('[data-testid=zombies-run]').click();
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=zombies-progress]')?.getAttribute('value') ?? 0) > 0, null, { timeout: 60000 });
  await page.locator('[data-testid=zombies-cancel]').click();
  await page.locator('[data-testid=zombies-error]').waitFor({ timeout: 60000 });
  assert.equal((await page.locator('[data-testid=zombies-error]').textContent()).trim(), 'cancelled');
  assert.equal(await page.locator('[data-testid=zombies-summary]').count(), 0);
  const long = await longTasksDuring(page, () => runScan(page));
  await expectNoLongTasks(t, long, 'while finding the resurrection risks of 6,000 partitions');
  const summary = page.locator('[data-testid=zombies-summary]');
  assert.equal(await summary.getAttribute('data-partitions'), '6000');
  assert.equal(await summary.getAttribute('data-complete'), 'true');
  assert.match(await summary.textContent(), new RegExp(`\\(in a worker, ${dataBytes} bytes of Data.db read\\)`));
  const seen = (await page.evaluate(() => [...window.__zombieProgress])).map(Number).filter((v) => v > 0 && v < dataBytes);
  assert.ok(seen.length >= 1, `no progress value between 0 and ${dataBytes} was rendered`);
  // The CLI agrees on what it found.
  const report = JSON.parse(execFileSync(bin, ['zombies', dir, '--gc-grace', '864000', '--now', now, '--json']).toString());
  assert.equal(await summary.getAttribute('data-resurrections'), String(report.resurrections.length));
  assert.equal(await summary.getAttribute('data-garbage'), String(report.garbage.length));
  assert.deepEqual(errors, []);
});
