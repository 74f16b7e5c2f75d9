// End-to-end: the Analytics scan split over the worker pool (issue #26). With 2 workers the page
// asks one worker for Data.db's partition-aligned ranges, scans them on both, and merges the
// ranges' figures in file order in a worker (`sstable_engine::analytics::merge_in_order`); every
// figure the tab shows — counts, tombstones by kind, the size histogram, the largest partitions,
// the tombstone report and its timeline — equals the one-worker scan's, on a fixture, on a
// generated SSTable with partitions of many sizes, and on the large generated SSTable when
// E2E_LARGE_SSTABLE is set. Each scan runs on a fresh page (a worker's kept scan would answer).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  launch, cli, openObserved, inputFiles, filesIn, fixturesOrSkip, legacyTable, generateSSTables, OUT,
  longTasksDuring, expectNoLongTasks,
} from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

/** Loads `files` on a fresh page with `workers` in the pool, scans the SSTable whose overview
 * row holds `rowText`, and returns every figure the tab shows of the scan. */
async function scanWith(t, files, rowText, workers) {
  const { page, errors } = await openObserved(browser);
  await page.locator('[data-testid=tab-sstables]').click();
  await page.locator('[data-testid=pool-size]').fill(String(workers));
  await page.locator('[data-testid=pool-size]').dispatchEvent('change');
  assert.equal(await page.locator('[data-testid=pool-size]').inputValue(), String(workers));
  await inputFiles(page, 'file-input', files);
  // One SSTable is selected at once; of several, the overview row holding `rowText`.
  if (await page.locator('[data-testid=overview-row]').count() > 0) {
    await page.locator('[data-testid=overview-row]', { hasText: rowText }).first().click();
  }
  await page.locator('[data-testid=tab-analytics]').click();
  await page.locator('[data-testid=analytics]').waitFor();
  const long = await longTasksDuring(page, async () => {
    await page.locator('[data-testid=scan-partitions]').click();
    await page.locator('[data-testid=scan-summary]').waitFor({ timeout: 600000 });
  });
  await expectNoLongTasks(t, long, `while scanning with ${workers} worker(s)`);
  const summary = page.locator('[data-testid=scan-summary]');
  const text = (await summary.textContent()).trim();
  const bars = (id) => page.locator(`[data-testid=chart-${id}] [data-testid=bar]`)
    .evaluateAll((bs) => bs.map((b) => `${b.dataset.value} ${b.getAttribute('aria-label')}`));
  const figures = {
    // The counts, without the time, the bytes read and how it ran.
    counts: text.replace(/ scanned in \d+ ms \(.*?bytes of Data\.db read\)/, ''),
    sizes: await bars('scan-partition-size'),
    top: await page.locator('[data-testid=top-partitions] tbody tr')
      .evaluateAll((rs) => rs.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent.trim()))),
    tombstones: (await page.locator('[data-testid=tombstone-summary]').textContent()).trim(),
    timeline: await bars('scan-drop-timeline'),
  };
  const ranges = Number(await summary.getAttribute('data-ranges'));
  assert.deepEqual(errors, []);
  await page.close();
  return { figures, ranges, text };
}

async function sameFigures(t, files, rowText, { partitions }) {
  const one = await scanWith(t, files, rowText, 1);
  const two = await scanWith(t, files, rowText, 2);
  assert.equal(one.ranges, 1);
  assert.equal(two.ranges, 2, `the 2-worker scan was not split: ${two.text}`);
  assert.match(one.text, /\(in a worker, \d+ bytes of Data\.db read\)/);
  assert.match(two.text, /\(2 ranges over the workers, \d+ bytes of Data\.db read\)/);
  assert.ok(one.figures.counts.startsWith(`${partitions} partitions: `), one.figures.counts);
  assert.deepEqual(two.figures, one.figures);
  return one.figures;
}

test('a fixture: the 2-worker scan shows the one-worker figures', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  // MANIFEST: legacy_tables/legacy_nb_clust, keys "0".."4", 5 partitions.
  const dir = legacyTable(fixtures, 'nb', 'legacy_nb_clust');
  const figures = await sameFigures(t, filesIn(dir), 'legacy_nb_clust/', { partitions: 5 });
  assert.equal(figures.top.length, 5);
});

test('a generated SSTable of partitions of many sizes: the 2-worker scan shows the one-worker figures', async (t) => {
  if (!cli()) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  // 60 partitions of 1..~400 rows (--skew), TTL cells and tombstones of every kind, 4 KiB
  // chunks: the even cut falls inside a partition and inside a chunk.
  const dir = generateSSTables('analytics-pool', [{
    generation: 1,
    args: ['--partitions', '60', '--rows-per-partition', '40', '--skew', '10', '--chunk-kib', '4',
      '--ttl-fraction', '0.3', '--tombstone-fraction', '0.3', '--seed', '5'],
  }]);
  const figures = await sameFigures(t, filesIn(dir), 'oa-1-big', { partitions: 60 });
  assert.equal(figures.top.length, 10);
  assert.ok(figures.timeline.length > 0, 'no timeline: the options give TTL cells and tombstones');
});

test('the large generated SSTable: the 2-worker scan shows the one-worker figures', async (t) => {
  const large = process.env.E2E_LARGE_SSTABLE;
  if (!large) { t.skip('E2E_LARGE_SSTABLE not set'); return; }
  // `generate --partitions 470 --rows-per-partition 1000` (xtask's e2e-large).
  await sameFigures(t, filesIn(large), 'oa-', { partitions: 470 });
});
