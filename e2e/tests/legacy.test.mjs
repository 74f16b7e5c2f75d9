// End-to-end: Cassandra 2.1/2.2 SSTables (ka, la: the pre-3.0 cell layout) in the data browser —
// rows decoded by the engine's legacy path, the "atoms" toggle, Find through Index.db, and the
// promoted-index blocks with their composite names. Values are MANIFEST.md's (§3).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, openPage, dropFiles, inputFiles, filesIn, fixturesOrSkip, legacyTable, openObserved, longTasksDuring, expectNoLongTasks,
} from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => browser?.close());

/** MANIFEST §3: `LONG` is `0123456789` × 120; row i's clustering value is `${i}${LONG}`. */
const LONG = '0123456789'.repeat(120);

async function openData(page) {
  await page.locator('[data-testid=tab-data]').click();
  await page.locator('[data-testid=data-timing]').waitFor();
}

test('2.x data browser: legacy_la_simple (dropped) shows keys "0".."4", val "foo bar baz", its atoms, and Find "2"', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await dropFiles(page, filesIn(legacyTable(fixtures, 'la', 'legacy_la_simple')));
  await openData(page);
  // No schema in a 2.x SSTable: the page says how values are shown, as the CLI does.
  assert.match(await page.locator('[data-testid=legacy-note]').textContent(), /text when valid UTF-8, else as hex/);
  assert.deepEqual(await page.locator('[data-testid=partition-key]').allTextContents(), ['0', '1', '2', '3', '4']);
  const partitions = page.locator('[data-testid=partition]');
  for (let i = 0; i < 5; i++) {
    assert.equal(await partitions.nth(i).locator('[data-testid=row]').count(), 1);
    assert.deepEqual(await partitions.nth(i).locator('[data-testid=cell]').allTextContents(), ['foo bar baz']);
  }
  // The atoms of the same partitions: the row marker (empty column name) and the `val` cell.
  await page.locator('[data-testid=data-atoms-toggle]').click();
  await page.locator('[data-testid=atom-partition]').first().waitFor();
  assert.equal(await page.locator('[data-testid=atom-partition]').count(), 5);
  const first = page.locator('[data-testid=atom-partition]').first();
  assert.deepEqual(await first.locator('[data-testid=atom-type]').allTextContents(), ['cell', 'cell']);
  assert.deepEqual(await first.locator('[data-testid=atom-name]').allTextContents(), ['[]', '[val]']);
  assert.deepEqual(await first.locator('[data-testid=atom-value]').allTextContents(), ['', 'foo bar baz']);
  // Find goes through the SSTable's read path (Summary → Index.db → Data.db).
  await page.locator('[data-testid=data-key]').fill('2');
  await page.locator('[data-testid=data-jump]').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=atom-partition]').length === 1);
  assert.deepEqual(await page.locator('[data-testid=partition-key]').allTextContents(), ['2']);
  const steps = (await page.locator('[data-testid=read-step]').allTextContents()).join('\n');
  assert.match(steps, /Index\.db/, steps);
  assert.match(steps, /Data\.db/, steps);
  await page.locator('[data-testid=data-atoms-toggle]').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=partition]').length === 1);
  assert.deepEqual(await page.locator('[data-testid=partition-key]').allTextContents(), ['2']);
  assert.deepEqual(await page.locator('[data-testid=cell]').allTextContents(), ['foo bar baz']);
  // A key that is not there is said to be absent.
  await page.locator('[data-testid=data-key]').fill('5');
  await page.locator('[data-testid=data-jump]').click();
  await page.locator('[data-testid=data-error]').waitFor();
  assert.match(await page.locator('[data-testid=data-error]').textContent(), /^not in this SSTable/);
  assert.deepEqual(errors, []);
});

test('2.x data browser: legacy_ka_simple_counter shows counter 1 per key, a "counter" atom', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(legacyTable(fixtures, 'ka', 'legacy_ka_simple_counter')));
  await openData(page);
  assert.deepEqual(await page.locator('[data-testid=partition-key]').allTextContents(), ['0', '1', '2', '3', '4']);
  assert.deepEqual(await page.locator('[data-testid=cell]').allTextContents(), ['1', '1', '1', '1', '1']);
  await page.locator('[data-testid=data-atoms-toggle]').click();
  // The page grows its rows a few per animation frame: wait for all five.
  await page.locator('[data-testid=atom]').nth(4).waitFor();
  assert.deepEqual(await page.locator('[data-testid=atom-type]').allTextContents(), Array(5).fill('counter'));
  assert.deepEqual(await page.locator('[data-testid=atom-name]').allTextContents(), Array(5).fill('[val]'));
  assert.deepEqual(await page.locator('[data-testid=atom-value]').allTextContents(), Array(5).fill('1'));
  assert.deepEqual(errors, []);
});

test('2.x data browser and index: legacy_ka_clust has 50 rows per key in UTF-8 order, one val, composite block names', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(legacyTable(fixtures, 'ka', 'legacy_ka_clust')));
  await openData(page);
  assert.deepEqual(await page.locator('[data-testid=partition-key]').allTextContents(), ['0', '1', '2', '3', '4']);
  const partitions = page.locator('[data-testid=partition]');
  for (let i = 0; i < 5; i++) {
    assert.equal(Number(await partitions.nth(i).locator('[data-testid=rows-scroll]').getAttribute('data-rows')), 50);
  }
  // The first rows laid out, in UTF-8 byte order of the whole value: "0"+LONG, then "10"+LONG
  // ("100…" < "101…"), then "1"+LONG; and the same 128-character lowercase val in every row.
  const rows = partitions.first().locator('[data-testid=row]');
  // Rows grow a few per animation frame (data_browser.rs): wait for the first 20.
  await rows.nth(19).waitFor();
  const clustering = await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[1].textContent));
  const ck = (i) => `${i}${LONG}`;
  assert.ok(clustering.length >= 20, `${clustering.length} rows laid out`);
  assert.deepEqual(clustering.slice(0, 3).map((c) => [0, 10, 1].findIndex((i) => c === ck(i))), [0, 1, 2]);
  const cells = await partitions.first().locator('[data-testid=cell]').allTextContents();
  assert.ok(cells.length >= 20, `${cells.length} cells laid out`);
  assert.match(cells[0], /^[a-z]{128}$/);
  assert.ok(cells.every((c) => c === cells[0]));
  // Atoms: per row the row marker and `val`, named by clustering value and column.
  await page.locator('[data-testid=data-atoms-toggle]').click();
  const atoms = page.locator('[data-testid=atom-partition]').first().locator('[data-testid=atom-name]');
  await atoms.first().waitFor();
  assert.deepEqual((await atoms.allTextContents()).slice(0, 2), [`[0${LONG}, ]`, `[0${LONG}, val]`]);
  // Find "2" shows its 50 rows.
  await page.locator('[data-testid=data-atoms-toggle]').click();
  await page.locator('[data-testid=data-key]').fill('2');
  await page.locator('[data-testid=data-jump]').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=partition]').length === 1);
  assert.deepEqual(await page.locator('[data-testid=partition-key]').allTextContents(), ['2']);
  assert.equal(Number(await page.locator('[data-testid=rows-scroll]').getAttribute('data-rows')), 50);
  // The promoted index: 100 IndexInfo blocks (a block per row marker and per val cell), their
  // first/last names split as composites.
  await page.locator('[data-testid=tab-index]').click();
  await page.locator('[data-testid=index-row]').first().waitFor();
  // No key type before 3.0: keys are shown as text when valid UTF-8, as in the data view.
  assert.deepEqual(await page.locator('[data-testid=index-key]').allTextContents(), ['0', '1', '2', '3', '4']);
  await page.locator('[data-testid=index-row]').first().click();
  await page.locator('[data-testid=index-block]').first().waitFor();
  assert.equal(await page.locator('[data-testid=index-block]').count(), 100);
  const names = async (j) => page.locator('[data-testid=index-block]').nth(j).locator('td').evaluateAll((tds) => [tds[1].textContent, tds[2].textContent]);
  const head = `0${LONG}`.slice(0, 40);
  assert.deepEqual(await names(0), [`composite [${head}… (1201 chars), ]`, `composite [${head}… (1201 chars), ]`]);
  assert.deepEqual(await names(1), [`composite [${head}… (1201 chars), val]`, `composite [${head}… (1201 chars), val]`]);
  assert.deepEqual(errors, []);
});

test('2.x pages in a worker: legacy_ka_indexed (p = 1, 5000 rows) rows, atoms, Find and its CREATE TABLE, no UI-thread task over 100 ms', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openObserved(browser);
  await inputFiles(page, 'file-input', filesIn(legacyTable(fixtures, 'ka', 'legacy_ka_indexed')));
  const hex = (i) => `0x${i.toString(16).padStart(8, '0')}`;
  const seen = {};
  const long = await longTasksDuring(page, async () => {
    await openData(page);
    seen.keys = await page.locator('[data-testid=partition-key]').allTextContents();
    seen.heading = await page.locator('[data-testid=partition] h3').textContent();
    seen.rows = await page.locator('[data-testid=row]').evaluateAll((trs) => trs.slice(0, 3).map((tr) => [...tr.querySelectorAll('td')].slice(0, 4).map((td) => td.textContent)));
    seen.schema = await page.locator('[data-testid=legacy-schema]').textContent();
    // The atoms toggle asks the worker for the same page with its atoms.
    await page.locator('[data-testid=data-atoms-toggle]').click();
    await page.locator('[data-testid=atom-partition]').first().waitFor();
    seen.atomHeading = await page.locator('[data-testid=atom-partition] h3').textContent();
    seen.atomNames = (await page.locator('[data-testid=atom-name]').allTextContents()).slice(0, 3);
    seen.atomValues = (await page.locator('[data-testid=atom-value]').allTextContents()).slice(0, 3);
    await page.locator('[data-testid=data-atoms-toggle]').click();
    // Find, through Summary → Index.db → Data.db in the worker.
    await page.locator('[data-testid=data-key]').fill('0x00000001');
    await page.locator('[data-testid=data-jump]').click();
    await page.locator('[data-testid=read-step]').first().waitFor();
    await page.waitForFunction(() => !document.querySelector('.data-controls')?.textContent.includes('decoding'));
    seen.foundKeys = await page.locator('[data-testid=partition-key]').allTextContents();
    seen.steps = (await page.locator('[data-testid=read-step]').allTextContents()).join('\n');
  });
  // MANIFEST §5: one partition, p = 1, with 5000 rows; a row (c) holds v1 = c and v2 = c + 1
  // (`sstable-inspect dump`); no schema, so ints are shown as hex.
  assert.deepEqual(seen.keys, ['0x00000001']);
  assert.match(seen.heading, /at 0 · 5000 rows/);
  assert.deepEqual(seen.rows, [0, 1, 2].map((c) => ['row', hex(c), hex(c), hex(c + 1)]));
  // Its CREATE TABLE, as far as the cell names tell: one clustering component, v1 and v2.
  assert.match(seen.schema, /^-- inferred from the cell names/);
  assert.match(seen.schema, /CREATE TABLE legacy_tables\.legacy_ka_indexed \(/);
  assert.match(seen.schema, /^ {4}column1 blob, -- clustering column/m);
  assert.match(seen.schema, /^ {4}v1 blob, -- type not in the SSTable\n {4}v2 blob, -- type not in the SSTable\n {4}PRIMARY KEY \(key, column1\)$/m);
  // Atoms: per row its marker, v1 and v2 (15,000 cells).
  assert.match(seen.atomHeading, /\(0x00000001\) at 0 · 15000 atoms: 15000 cell, 0 deleted/);
  assert.deepEqual(seen.atomNames, [`[${hex(0)}, ]`, `[${hex(0)}, v1]`, `[${hex(0)}, v2]`]);
  assert.deepEqual(seen.atomValues, ['', hex(0), hex(1)]);
  assert.deepEqual(seen.foundKeys, ['0x00000001']);
  assert.match(seen.steps, /Index\.db/, seen.steps);
  assert.match(seen.steps, /Data\.db/, seen.steps);
  console.log(`legacy_ka_indexed page: ${await page.locator('[data-testid=data-timing]').textContent()}; long tasks ${JSON.stringify(long)}`);
  await expectNoLongTasks(t, long, 'while paging a 2.x table');
  assert.deepEqual(errors, []);
});

test('2.x legacy_la_clust: its CREATE TABLE from the cell names, keys "0".."4" in the index view', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', legacyTable(fixtures, 'la', 'legacy_la_clust'));
  await openData(page);
  // la file names carry no keyspace or table: the directory picked names the table.
  const schema = await page.locator('[data-testid=legacy-schema]').textContent();
  assert.match(schema, /CREATE TABLE legacy_la_clust \(/);
  assert.match(schema, /^ {4}val blob, -- type not in the SSTable\n {4}PRIMARY KEY \(key, column1\)$/m);
  await page.locator('[data-testid=tab-index]').click();
  await page.locator('[data-testid=index-row]').first().waitFor();
  assert.deepEqual(await page.locator('[data-testid=index-key]').allTextContents(), ['0', '1', '2', '3', '4']);
  assert.deepEqual(errors, []);
});
