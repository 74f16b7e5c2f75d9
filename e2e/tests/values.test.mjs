// End-to-end: values as cqlsh shows them (issue #29 item 3). A non-frozen list, set and map
// column is one literal — `[1, 2]`, `{'a'}`, `{'k': 1}` — not its cells one by one; a range
// tombstone's bounds say inclusive / exclusive, where the partition is open, and when it was
// deleted. On generated SSTables, checked against the CLI's sstabledump-shaped JSON.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, cli, openPage, inputFiles, filesIn, OUT, generateSSTables } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

/** `sstable-inspect dump --json` of the one SSTable in `dir`. */
function dump(dir) {
  return JSON.parse(execFileSync(cli(), ['dump', '--json', dir]).toString());
}

test('list, set and map columns as cqlsh literals; range tombstone bounds with their deletion time', { timeout: 120000 }, async (t) => {
  if (!cli()) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  // The generator's table: v_list list<int>, v_map map<text, int>, v_set set<text> (non-frozen);
  // with tombstones, range tombstones too.
  const dir = generateSSTables('values-cqlsh', [{ generation: 1, args: ['--partitions', '3', '--rows-per-partition', '4', '--tombstone-fraction', '1', '--seed', '5'] }]);
  const partitions = dump(dir);
  // What cqlsh shows, from the cells sstabledump lists: list values in order, set elements and
  // map keys (already quoted as inside a collection) from the paths.
  const expected = [];
  const bounds = [];
  for (const p of partitions) {
    for (const r of p.rows) {
      if (r.type === 'range_tombstone_bound' || r.type === 'range_tombstone_boundary') bounds.push(r);
      if (r.type !== 'row') continue;
      const of = (name) => (r.cells ?? []).filter((c) => c.name === name);
      const live = (cells) => cells.length && cells.every((c) => !c.deletion_info);
      const row = {};
      if (live(of('v_list'))) row.v_list = `[${of('v_list').map((c) => c.value).join(', ')}]`;
      if (live(of('v_set'))) row.v_set = `{${of('v_set').map((c) => c.path[0]).join(', ')}}`;
      if (live(of('v_map'))) row.v_map = `{${of('v_map').map((c) => `${c.path[0]}: ${c.value}`).join(', ')}}`;
      expected.push(row);
    }
  }
  assert.ok(expected.some((r) => r.v_list && r.v_set && r.v_map), JSON.stringify(expected));
  assert.ok(bounds.length >= 2, 'the generator wrote range tombstones');

  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(dir));
  await page.locator('[data-testid=tab-data]').click();
  await page.locator('[data-testid=data-timing]').waitFor();
  // Every row laid out (a few per animation frame).
  const rowCount = partitions.reduce((n, p) => n + p.rows.length, 0);
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=row]').length === n, rowCount);
  const shown = await page.locator('[data-testid=row]').evaluateAll((rows) => rows
    .filter((r) => r.firstElementChild.textContent === 'row')
    .map((r) => Object.fromEntries([...r.querySelectorAll('[data-testid=collection]')].map((c) => [c.dataset.column, c.textContent]))));
  assert.deepEqual(shown, expected);
  // A literal is never the old cell-by-cell form ("path: value").
  for (const row of shown) for (const v of Object.values(row)) assert.match(v, /^[[{].*[\]}]$/);

  const tombstones = await page.locator('[data-testid=row] td.tombstone').allTextContents();
  const words = (b, side, open) => `${side} ${b.clustering.length ? `[${b.clustering.join(', ')}] ${b.type}` : open} (deleted at ${b.deletion_info.marked_deleted}, local deletion time ${b.deletion_info.local_delete_time})`;
  assert.deepEqual(tombstones, bounds.map((r) => [r.start && words(r.start, 'from', "the partition's start"), r.end && words(r.end, 'to', "the partition's end")].filter(Boolean).join(' ')));
  assert.match(tombstones[0], /^(from|to) \[\d+\] (inclusive|exclusive) \(deleted at \d{4}-\d\d-\d\dT[\d:.]+Z, local deletion time /);
  assert.deepEqual(errors, []);
});
