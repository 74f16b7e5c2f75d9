// End-to-end: the table-wide views over 2.x SSTables (issue #25). `legacy_la_clust` (MANIFEST
// §3: `pk text, ck text, val text`, PK (pk, ck); 5 partitions "0".."4" of 50 rows, clustering i
// followed by LONG = "0123456789" × 120, every `val` one 128-character lowercase string) and a
// copy of it as generation 2. A 2.x SSTable records no schema: without the table's CREATE TABLE
// "Merged (table)" is the CLI's error naming the SSTable; with the statement typed, or with
// schema.cql dropped beside the SSTables, the two merge into the single table (each partition
// once, both SSTables named, the first one's cells kept), and the resurrection scan reads it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, inputFiles, legacyTable, fixturesOrSkip, OUT } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

const CQL = 'CREATE TABLE legacy_tables.legacy_la_clust (pk text, ck text, val text, PRIMARY KEY (pk, ck));\n';
const LONG = '0123456789'.repeat(120);

/** la-1 and a copy as la-2 in a fresh directory (with schema.cql when `withSchema`). */
function twoCopies(fixtures, name, withSchema) {
  const src = legacyTable(fixtures, 'la', 'legacy_la_clust');
  const dir = path.join(OUT, name, 'legacy_la_clust');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const f of fs.readdirSync(src)) {
    const bytes = fs.readFileSync(path.join(src, f));
    fs.writeFileSync(path.join(dir, f), bytes);
    fs.writeFileSync(path.join(dir, f.replace('la-1-', 'la-2-')), bytes);
  }
  if (withSchema) fs.writeFileSync(path.join(dir, 'schema.cql'), CQL);
  return dir;
}

async function openMerged(page) {
  await page.locator('[data-testid=overview-row]').first().click();
  await page.locator('[data-testid=tab-data]').click();
  await page.locator('[data-testid=mode-merged]').click();
  await page.locator('[data-testid=merged-view]').waitFor();
}

/** The merged page: the table's 5 partitions, each once, from both SSTables, MANIFEST's rows. */
async function assertMerged(page) {
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=merged-partition]').length === 5, null, { timeout: 90000 });
  const parts = page.locator('[data-testid=merged-partition]');
  assert.deepEqual(await parts.evaluateAll((as) => as.map((a) => a.dataset.key)).then((k) => [...k].sort()), ['0', '1', '2', '3', '4']);
  assert.deepEqual(await parts.evaluateAll((as) => [...new Set(as.map((a) => a.dataset.sstables))]), ['la-1-big,la-2-big']);
  // 50 rows each (the first 20 shown), nothing lost: the copies are equal.
  for (const text of await parts.locator('h3 .muted').allTextContents()) assert.match(text, /50 rows; 0 lost/);
  const first = parts.first().locator('[data-testid=merged-row]');
  assert.equal(await first.count(), 20);
  // Clusterings in UTF-8 order: "0"+LONG, "10"+LONG, "1"+LONG, …
  const clusterings = await first.evaluateAll((trs) => trs.map((tr) => JSON.parse(tr.dataset.clustering)[0]));
  assert.deepEqual(clusterings.slice(0, 3), [`0${LONG}`, `10${LONG}`, `1${LONG}`]);
  const cells = await page.locator('[data-testid=merged-cell]').evaluateAll((cs) => cs.map((c) => [c.dataset.name, c.dataset.value, c.dataset.sstable]));
  assert.equal(cells.length, 5 * 20);
  const values = new Set(cells.map(([, v]) => v));
  assert.equal(values.size, 1, 'every val is the same string');
  assert.match([...values][0], /^[a-z]{128}$/);
  // Equal copies: the first SSTable's cells are kept.
  assert.deepEqual([...new Set(cells.map(([n, , s]) => `${n}@${s}`))], ['val@la-1-big']);
}

test('Merged (table) of 2.x SSTables: an error naming the SSTable without a CREATE TABLE, the table merged with one typed', { timeout: 240000 }, async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const dir = twoCopies(fixtures, 'table-legacy-typed', false);
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', dir);
  assert.equal(await page.locator('[data-testid=overview-row]').count(), 2);
  await openMerged(page);
  const error = page.locator('[data-testid=merged-error]');
  await error.waitFor({ timeout: 60000 });
  const message = await error.textContent();
  assert.match(message, /la-1-big/);
  assert.match(message, /records no schema/);
  assert.match(message, /CREATE TABLE/);
  await page.locator('[data-testid=merged-schema]').fill(CQL);
  await assertMerged(page);
  assert.equal(await error.count(), 0);
  await page.screenshot({ path: path.join(OUT, 'table-legacy.png'), fullPage: true });
  assert.deepEqual(errors, []);
});

test('Merged (table) and resurrection risks of 2.x SSTables with schema.cql dropped beside them', { timeout: 240000 }, async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const dir = twoCopies(fixtures, 'table-legacy-file', true);
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', dir);
  assert.equal(await page.locator('[data-testid=overview-row]').count(), 2);
  await openMerged(page);
  await assertMerged(page);
  assert.match(await page.locator('[data-testid=table-schema-box] summary').textContent(), /schema\.cql/);
  // The resurrection scan merges the same table: 5 partitions, no tombstone at all.
  await page.locator('[data-testid=tab-analytics]').click();
  await page.locator('[data-testid=zombies-run]').click();
  const summary = page.locator('[data-testid=zombies-summary]');
  await summary.waitFor({ timeout: 90000 });
  assert.equal(await summary.getAttribute('data-complete'), 'true');
  assert.equal(await summary.getAttribute('data-partitions'), '5');
  assert.equal(await summary.getAttribute('data-resurrections'), '0');
  assert.equal(await summary.getAttribute('data-garbage'), '0');
  assert.deepEqual(errors, []);
});
