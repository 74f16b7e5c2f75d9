// End-to-end: SSTables grouped by table (issue #29 item 4). A tree of two tables (directories
// `<table>-<32 hex table id>` in one keyspace, as Cassandra lays them out) is two tables: the
// Analytics table view, its overlaps and its expired blockers cover the selected SSTable's table
// only, the timeline labels each row and scrolls inside its box, and no view makes the page wider
// than a 1,280 px window.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, cli, openPage, inputFiles, fixturesOrSkip, OUT, generateSSTables, textOf } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

const USERS = 'users-5b6ca5a0e4c211e6a4b5b1c7a6ec8a25';
const EVENTS = 'events-0f1e2d3c4b5a69788796a5b4c3d2e1f0';

async function openAnalytics(page, rowText) {
  await page.locator('[data-testid=tab-sstables]').click();
  await page.locator('[data-testid=overview-row]', { hasText: rowText }).first().click();
  await page.locator('[data-testid=tab-analytics]').click();
  await page.locator('[data-testid=analytics]').waitFor();
  await page.locator('[data-testid=table-summary][data-ready=true]').waitFor();
}

/** What `sstable-inspect table DIR --json` reports for one table directory. */
function cliTable(dir) {
  return JSON.parse(execFileSync(cli(), ['table', dir, '--json']).toString());
}

test('a tree of two tables is two tables: each table view, its overlaps and its rows are its own SSTables', { timeout: 180000 }, async (t) => {
  if (!cli()) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  // ks1/users-…: 2 SSTables; ks1/events-…: 3 SSTables (random tokens: their ranges overlap).
  const root = generateSSTables('two-tables', [
    ...[1, 2].map((g) => ({ generation: g, subdir: `ks1/${USERS}`, args: ['--seed', String(g)] })),
    ...[1, 2, 3].map((g) => ({ generation: g, subdir: `ks1/${EVENTS}`, args: ['--seed', String(10 + g)] })),
  ]);
  const users = cliTable(path.join(root, 'ks1', USERS));
  const events = cliTable(path.join(root, 'ks1', EVENTS));
  assert.equal(users.sstables.length, 2);
  assert.equal(events.sstables.length, 3);
  // Across all five (what the page did before): more overlaps than within either table.
  const across = cliTable(path.join(root, 'ks1')).overlaps.length;
  assert.ok(across > users.overlaps.length + events.overlaps.length, `${across} overlaps across both tables`);

  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', root);
  assert.equal(await page.locator('[data-testid=overview-row]').count(), 5);
  for (const [dir, name, report] of [[USERS, 'ks1.users', users], [EVENTS, 'ks1.events', events]]) {
    await openAnalytics(page, `${dir}/`);
    const n = report.sstables.length;
    assert.equal(await textOf(page.locator('[data-testid=table-heading]')), `Table ${name}: ${n} SSTables`);
    assert.match(await textOf(page.locator('[data-testid=table-scope]')), new RegExp(`The SSTables of ${name.replace('.', '\\.')} loaded, one of 2 tables`));
    const summary = page.locator('[data-testid=table-summary]');
    assert.equal(await summary.getAttribute('data-overlaps'), String(report.overlaps.length));
    assert.match(await textOf(summary), new RegExp(`; ${report.overlaps.length} token-range overlaps;`));
    const labels = await page.locator('[data-testid=chart-table-timeline] [data-testid=timeline-label]').allTextContents();
    assert.deepEqual(labels, Array.from({ length: n }, (_, i) => `oa-${i + 1}-big`));
    assert.equal(await page.locator('[data-testid=chart-table-tokens] [data-testid=timeline-row]').count(), n);
    assert.deepEqual(await page.locator('[data-testid=table-sstable] code').allTextContents(),
      Array.from({ length: n }, (_, i) => `two-tables/ks1/${dir}/oa-${i + 1}-big`));
  }
  await page.screenshot({ path: path.join(OUT, 'two-tables.png'), fullPage: true });
  assert.deepEqual(errors, []);
});

test('a table of 60 SSTables: every timeline row labelled, the chart scrolls inside its box', { timeout: 240000 }, async (t) => {
  if (!cli()) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  const root = generateSSTables('sixty', Array.from({ length: 60 }, (_, i) => ({
    generation: i + 1, subdir: `ks1/${USERS}`, args: ['--partitions', '1', '--rows-per-partition', '1', '--seed', String(i)],
  })));
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', root);
  await openAnalytics(page, 'oa-1-big');
  assert.equal(await textOf(page.locator('[data-testid=table-heading]')), 'Table ks1.users: 60 SSTables');
  const chart = page.locator('[data-testid=chart-table-timeline]');
  const labels = await chart.locator('[data-testid=timeline-label]').allTextContents();
  assert.equal(labels.length, 60);
  assert.deepEqual([...labels].sort(), Array.from({ length: 60 }, (_, i) => `oa-${i + 1}-big`).sort());
  const box = await chart.locator('[data-testid=chart-scroll]').evaluate((b) => ({ client: b.clientHeight, scroll: b.scrollHeight }));
  assert.ok(box.scroll > box.client && box.client <= 32 * 16, JSON.stringify(box));
  assert.deepEqual(errors, []);
});

test('the whole fixture tree at 1,280 px: no view is wider than the window', { timeout: 300000 }, async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', path.join(fixtures, 'legacy-sstables'));
  const widths = {};
  const width = () => page.evaluate(() => document.documentElement.scrollWidth);
  widths.sstables = await width();
  // The overview table fits its box: its Status column is on screen, no scrolling sideways.
  const overview = await page.locator('[data-testid=overview-scroll]').evaluate((b) => ({
    scroll: b.scrollWidth, client: b.clientWidth,
    status: Math.round([...b.querySelectorAll('th')].find((th) => th.textContent === 'Status').getBoundingClientRect().right),
  }));
  assert.ok(overview.scroll <= overview.client && overview.status <= 1280, JSON.stringify(overview));
  // A long path is cut at its start: the SSTable's own name stays in view, the path is its title.
  const first = page.locator('[data-testid=overview-row] td.name button').first();
  assert.match(await first.getAttribute('title'), /^legacy-sstables\/[a-z]{2}\/.+-(big|bti|Data)?/);
  await openAnalytics(page, '/');
  widths.analytics = await width();
  for (const tab of ['components', 'data', 'index', 'verify', 'bloom']) {
    const button = page.locator(`[data-testid=tab-${tab}]`);
    if (!(await button.count())) continue;
    await button.click();
    await page.waitForTimeout(500);
    widths[tab] = await width();
  }
  await page.screenshot({ path: path.join(OUT, 'tree-1280.png') });
  for (const [tab, w] of Object.entries(widths)) assert.ok(w <= 1280, `${tab}: the page is ${w} px wide in a 1,280 px window (${JSON.stringify(widths)})`);
  assert.deepEqual(errors, []);
});
