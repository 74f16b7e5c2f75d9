// End-to-end: a 2.x SSTable typed by the CREATE TABLE given on the page (issue #29 item 3): the
// SSTable records no types, so without a statement its int keys and values are hex; with
// `CREATE TABLE foo.atable (pk int PRIMARY KEY, val int)` (MANIFEST §6: bloom-filter/ka, 10
// partitions pk = 1..10 with val = pk, Index.db order 5, 10, 1, 8, 2, 4, 7, 6, 9, 3) they read as
// cqlsh prints them, and Find takes the key as cqlsh writes it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, openPage, inputFiles, filesIn, fixturesOrSkip } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => browser?.close());

const ORDER = ['5', '10', '1', '8', '2', '4', '7', '6', '9', '3'];
const hexInt = (n) => `0x${n.toString(16).padStart(8, '0')}`;

test('2.x with a typed CREATE TABLE: ints as cqlsh shows them, Find "7" by its cqlsh form', { timeout: 120000 }, async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(path.join(fixtures, 'other', 'bloom-filter', 'ka', 'foo')));
  await page.locator('[data-testid=tab-data]').click();
  await page.locator('[data-testid=data-timing]').waitFor();
  const keys = page.locator('[data-testid=partition-key]');
  // No statement: the SSTable's bytes, in hex.
  assert.deepEqual(await keys.allTextContents(), ORDER.map((k) => hexInt(Number(k))));
  // Find "7" without one: the key is taken as the text "7", which the SSTable does not hold.
  await page.locator('[data-testid=data-key]').fill('7');
  await page.locator('[data-testid=data-jump]').click();
  await page.waitForFunction(() => /not in this SSTable/.test(document.querySelector('[data-testid=data-error]')?.textContent ?? ''));

  await page.locator('.schema-box summary').click();
  await page.locator('[data-testid=data-schema]').fill('CREATE TABLE foo.atable (pk int PRIMARY KEY, val int)');
  // Typed by the statement, and named by it once the worker has checked it: `pk = 5`, ….
  await page.waitForFunction((want) => [...document.querySelectorAll('[data-testid=partition-key]')].map((e) => e.textContent.trim()).join(',') === want, ORDER.map((k) => `pk = ${k}`).join(','));
  const partitions = page.locator('[data-testid=partition]');
  for (let i = 0; i < ORDER.length; i++) {
    assert.deepEqual(await partitions.nth(i).locator('[data-testid=cell]').allTextContents(), [ORDER[i]]);
  }
  await page.locator('[data-testid=data-key]').fill('7');
  await page.locator('[data-testid=data-jump]').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=partition]').length === 1);
  assert.deepEqual(await keys.allTextContents(), ['pk = 7']);
  assert.deepEqual(await page.locator('[data-testid=cell]').allTextContents(), ['7']);
  assert.match((await page.locator('[data-testid=read-step]').allTextContents()).join('\n'), /Index\.db/);
  assert.equal(await page.locator('[data-testid=data-error]').count(), 0);
  assert.deepEqual(errors, []);
});
