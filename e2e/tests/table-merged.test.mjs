// End-to-end: the data browser's "Merged (table)" mode (issue #25, the page's part). A table
// written by `sstable-inspect generate --overlapping 4` (4 overlapping SSTables) is merged in a
// worker; for a few keys the page's merged rows, values and SSTable badges equal `sstable-inspect
// read DIR --key K --json --explain`, and the "why" panels list exactly its explain entries
// (what lost, from which SSTable, beaten by what, from which SSTable). Paging goes by cursor:
// page 3 starts after page 2's last key (the worker's merge seeks there) and reads about a
// page of Data.db, where a merge from the table's first partition would read pages 1 to 3.
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

function generateTable(bin) {
  const dir = path.join(OUT, 'table-merged');
  fs.rmSync(dir, { recursive: true, force: true });
  const out = execFileSync(bin, [
    'generate', '--out', dir, '--version', 'nb', '--compression', 'lz4', '--chunk-kib', '1', '--partitions', '60',
    '--rows-per-partition', '10', '--seed', '33', '--overlapping', '4', '--zombies',
  ]).toString();
  return { dir, now: out.match(/--now (\d+)/)[1] };
}

/** A row or marker of `read --json` as comparable text. */
function cliRow(r) {
  if (r.type.startsWith('range_tombstone')) {
    return [r.type, r.end?.sstable ?? '', r.start?.sstable ?? ''].join('|');
  }
  const cells = (r.cells ?? []).map((c) => [c.name, c.path ? JSON.stringify(c.path) : '', c.value ?? '', String(!!c.deletion_info), c.sstable].join('='));
  return [r.type, JSON.stringify(r.clustering ?? []), (r.sstables ?? []).join(','), r.liveness_info?.sstable ?? '',
    r.deletion_info?.sstable ?? '', cells.join(';')].join('|');
}

function cliLoss(l) {
  const [kind] = Object.keys(l.beaten_by);
  return [l.lost, l.sstable, l.column ?? '', kind, l.beaten_by[kind].sstable ?? ''].join('|');
}

async function pageRows(partition) {
  return partition.locator('[data-testid=merged-row]').evaluateAll((trs) => trs.map((tr) => {
    const d = tr.dataset;
    if (d.kind.startsWith('range_tombstone')) {
      const side = (s) => tr.querySelector(`[data-testid=merged-bound][data-side=${s}]`)?.dataset.sstable ?? '';
      return [d.kind, side('end'), side('start')].join('|');
    }
    const cells = [...tr.querySelectorAll('[data-testid=merged-cell]')].map((c) => [c.dataset.name, c.dataset.path, c.dataset.value, c.dataset.tombstone, c.dataset.sstable].join('='));
    return [d.kind, d.clustering, d.sstables, d.livenessSstable, d.deletionSstable, cells.join(';')].join('|');
  }));
}

/** Every loss the page's "why" panels list for the partition: its own panel, then each row's. */
async function pageLosses(page, partition) {
  const out = [];
  const read = async (at) => {
    await page.locator(`[data-testid=why-for][data-at="${at}"]`).waitFor();
    out.push(...await page.locator('[data-testid=why-loss]').evaluateAll((lis) => lis.map((li) => {
      const d = li.dataset;
      return [d.what, d.sstable, d.column, d.beatenBy, d.winnerSstable].join('|');
    })));
  };
  const own = partition.locator('[data-testid=merged-why-partition]');
  if (await own.count()) {
    await own.click();
    await read('0:partition');
  }
  const whys = partition.locator('[data-testid=merged-why]');
  for (let i = 0; i < await whys.count(); i++) {
    await whys.nth(i).click();
    await read(`0:${i}`);
  }
  return out.sort();
}

test('Merged (table): values, badges and why panels equal sstable-inspect read --json --explain', { timeout: 240000 }, async (t) => {
  const bin = cli();
  if (!bin) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  const { dir, now } = generateTable(bin);
  const all = JSON.parse(execFileSync(bin, ['read', dir, '--now', now, '--json', '--explain']).toString());
  // Keys worth comparing: the partition in most SSTables, one with a partition deletion, the
  // one with the most explain entries.
  const bySources = [...all].sort((a, b) => b.partition.sstables.length - a.partition.sstables.length)[0];
  const deleted = all.find((p) => p.partition.deletion_info);
  const mostLost = [...all].sort((a, b) => b.explain.length - a.explain.length)[0];
  const keys = [...new Set([bySources, deleted, mostLost].filter(Boolean).map((p) => p.partition.key.join(':')))];
  assert.ok(keys.length >= 2);

  const { page, errors } = await openObserved(browser);
  await inputFiles(page, 'dir-input', dir);
  await page.locator('[data-testid=overview-row]').first().click();
  await page.locator('[data-testid=tab-data]').click();
  await page.locator('[data-testid=mode-merged]').click();
  await page.locator('[data-testid=merged-view]').waitFor();
  await page.locator('[data-testid=merged-partition]').first().waitFor({ timeout: 60000 });
  await page.locator('[data-testid=merged-now]').fill(now);
  await page.locator('[data-testid=merged-now]').dispatchEvent('change');
  for (const key of keys) {
    const expected = JSON.parse(execFileSync(bin, ['read', dir, '--now', now, '--key', key, '--json', '--explain']).toString());
    assert.equal(expected.length, 1);
    const [want] = expected;
    await page.locator('[data-testid=merged-key]').fill(key);
    const long = await longTasksDuring(page, async () => {
      await page.locator('[data-testid=merged-find]').click();
      await page.locator(`[data-testid=merged-partition][data-key-hex="${want.partition.key_hex}"]`).waitFor({ timeout: 60000 });
    });
    await expectNoLongTasks(t, long, `while merging key ${key}`);
    const partition = page.locator('[data-testid=merged-partition]');
    assert.equal(await partition.count(), 1);
    assert.equal(await partition.getAttribute('data-sstables'), want.partition.sstables.join(','), key);
    if (want.partition.deletion_info) {
      assert.equal(await partition.locator('[data-testid=merged-partition-deletion]').getAttribute('data-sstable'), want.partition.deletion_info.sstable);
    }
    assert.deepEqual(await pageRows(partition), want.rows.map(cliRow), key);
    const losses = await pageLosses(page, partition);
    assert.deepEqual(losses, want.explain.map(cliLoss).sort(), key);
    console.log(`merged key ${key}: ${want.partition.sstables.length} SSTables, ${want.rows.length} rows and markers, ${losses.length} losses equal the CLI's`);
  }
  await page.screenshot({ path: path.join(OUT, 'table-merged.png'), fullPage: true });
  // Paging: the first page is the first partitions of `read --limit`.
  await page.locator('[data-testid=merged-key]').fill('');
  await page.locator('[data-testid=merged-find]').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=merged-partition]').length > 1, null, { timeout: 60000 });
  const shownKeys = () => page.locator('[data-testid=merged-partition]').evaluateAll((as) => as.map((a) => a.dataset.keyHex));
  // The Data.db bytes the worker read for the page shown.
  const bytesRead = async () => Number((await page.locator('[data-testid=merged-timing]').textContent()).match(/(\d+) bytes of Data\.db read/)[1]);
  const firstPage = await shownKeys();
  assert.equal(firstPage.length, 10);
  assert.deepEqual(firstPage, all.slice(0, firstPage.length).map((p) => p.partition.key_hex));
  const firstBytes = await bytesRead();
  const toPage = async (button, skip) => {
    await page.locator(`[data-testid=${button}]`).click();
    await page.waitForFunction((s) => document.querySelector('[data-testid=merged-timing]')?.dataset.skip === s, String(skip), { timeout: 60000 });
  };
  await toPage('merged-next', 10);
  const second = await shownKeys();
  assert.deepEqual(second, all.slice(10, 20).map((p) => p.partition.key_hex));
  const secondBytes = await bytesRead();
  await toPage('merged-next', 20);
  const third = await shownKeys();
  assert.deepEqual(third, all.slice(20, 30).map((p) => p.partition.key_hex));
  const thirdBytes = await bytesRead();
  // A merge from the first partition reads everything page 1 read and then the page's own
  // chunks (page 2: about twice page 1's bytes, page 3 three times, in 1 KiB chunks); the merge
  // started at the cursor reads about one page (the table is seeded: the figures are fixed).
  console.log(`merged pages: Data.db bytes read ${firstBytes} (page 1), ${secondBytes} (page 2), ${thirdBytes} (page 3)`);
  assert.ok(secondBytes < 1.6 * firstBytes, `page 2: ${secondBytes} bytes, page 1: ${firstBytes}`);
  assert.ok(thirdBytes < 2 * firstBytes, `page 3: ${thirdBytes} bytes, page 1: ${firstBytes}`);
  // Previous: the cursor of the page before, from the stack.
  await toPage('merged-prev', 10);
  assert.deepEqual(await shownKeys(), second);
  await toPage('merged-prev', 0);
  assert.deepEqual(await shownKeys(), firstPage);
  assert.deepEqual(errors, []);
});
