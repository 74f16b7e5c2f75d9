// End-to-end: the Analytics tab. A version directory gives the table view (timeline, token
// overlaps); a partitions scan's chart shows, on hover, the figure `sstable-inspect partitions
// --json` prints for the same files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, openPage, inputFiles, fixturesOrSkip, legacyTable, OUT } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

/** The CLI built by cargo (`SSTABLE_INSPECT`, else target/{release,debug}). */
function cli() {
  const candidates = [process.env.SSTABLE_INSPECT, '../target/release/sstable-inspect', '../target/debug/sstable-inspect'];
  return candidates.find((c) => c && fs.existsSync(c));
}

async function openAnalytics(page, rowText) {
  await page.locator('[data-testid=overview-row]', { hasText: rowText }).first().click();
  await page.locator('[data-testid=tab-analytics]').click();
  await page.locator('[data-testid=analytics]').waitFor();
}

test('a version directory (oa) shows the timeline and the token overlaps of its four SSTables', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', path.join(fixtures, 'legacy-sstables', 'oa'));
  assert.equal(await page.locator('[data-testid=overview-row]').count(), 4);
  await openAnalytics(page, 'legacy_oa_clust/');
  const timeline = page.locator('[data-testid=chart-table-timeline] [data-testid=timeline-row]');
  assert.equal(await timeline.count(), 4);
  // MANIFEST §3: every legacy table holds keys "0".."4" (ByteOrdered): all six pairs overlap.
  const summary = page.locator('[data-testid=table-summary]');
  assert.equal(await summary.getAttribute('data-overlaps'), '6');
  assert.equal(await page.locator('[data-testid=chart-table-tokens] [data-testid=timeline-row]').count(), 4);
  // Keyboard focus shows a row's range in the readout.
  await timeline.first().focus();
  assert.match(await page.locator('[data-testid=chart-table-timeline] [data-testid=chart-readout]').textContent(), /timestamps \d+ … \d+ µs/);
  // Statistics.db histograms are drawn with bars.
  assert.ok(await page.locator('[data-testid=chart-stats-partition-size] [data-testid=bar]').count() > 0);
  await page.screenshot({ path: path.join(OUT, 'analytics-table.png'), fullPage: true });
  assert.deepEqual(errors, []);
});

test('the partition-size chart hovers to the figure the CLI prints', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const bin = cli();
  if (!bin) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  const dir = legacyTable(fixtures, 'nb', 'legacy_nb_clust');
  const report = JSON.parse(execFileSync(bin, ['partitions', dir, '--json']).toString())[0];
  const [upper, count] = report.summary.size_histogram[0];
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', path.join(fixtures, 'legacy-sstables', 'nb'));
  await openAnalytics(page, 'legacy_nb_clust/');
  await page.locator('[data-testid=scan-partitions]').click();
  await page.locator('[data-testid=scan-summary]').waitFor();
  assert.match(await page.locator('[data-testid=scan-summary]').textContent(), new RegExp(`^${report.summary.partitions} partitions scanned`));
  const bar = page.locator('[data-testid=chart-scan-partition-size] [data-testid=bar]').first();
  await bar.hover();
  assert.equal(Number(await bar.getAttribute('data-value')), count);
  assert.equal(
    await page.locator('[data-testid=chart-scan-partition-size] [data-testid=chart-readout]').textContent(),
    `${await bar.getAttribute('data-label')}: ${count} partitions of at most ${upper} bytes`,
  );
  await page.screenshot({ path: path.join(OUT, 'analytics-scan.png'), fullPage: true });
  assert.deepEqual(errors, []);
});
