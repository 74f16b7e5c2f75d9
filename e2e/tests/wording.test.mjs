// End-to-end: the small words of issue #29 item 7 — counts in the right number ("1 partition",
// "1 row", "1 error"), who wrote the SSTable named once, a failing chunk's detail that does not
// repeat "chunk N", a legend for the TTL and expired marks, and partition keys printed the same
// way in the Data tab, the Index tab and Find.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, cli, openPage, inputFiles, filesIn, fixturesOrSkip, legacyTable, OUT, generateSSTables, textOf } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

test('legacy_nb_simple: "1 row" per partition, Find gives "1 partition decoded", "Written by Cassandra 4.0 / 4.1", the cell legend', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  // MANIFEST §3: legacy_<v>_simple holds 5 partitions of 1 row each.
  await inputFiles(page, 'file-input', filesIn(legacyTable(fixtures, 'nb', 'legacy_nb_simple')));
  assert.equal(await textOf(page.locator('[data-testid=sstable] [data-testid=written-by]')), 'Cassandra 4.0 / 4.1');
  await page.locator('[data-testid=tab-data]').click();
  await page.locator('[data-testid=data-timing]').waitFor();
  assert.match(await textOf(page.locator('[data-testid=data-timing]')), /^5 partitions decoded in a worker/);
  const headings = await page.locator('[data-testid=partition] h3 .muted').allTextContents();
  assert.equal(headings.length, 5);
  for (const h of headings) assert.match(h.trim(), /^at \d+ · 1 row$/);
  await page.locator('[data-testid=data-key]').fill('3');
  await page.locator('[data-testid=data-jump]').click();
  await page.waitForFunction(() => /^1 partition decoded/.test(document.querySelector('[data-testid=data-timing]')?.textContent ?? ''));
  const legend = await textOf(page.locator('[data-testid=cell-legend]'));
  assert.match(legend, /has a TTL/);
  assert.match(legend, /its TTL has passed: expired \(struck through\)/);
  assert.deepEqual(errors, []);
});

test('a failing chunk\'s detail names the chunk once and its range with the checksum', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  // MANIFEST §7: legacy_nb_clust's chunk 1 covers bytes [424, 836): 408 compressed bytes and the
  // 4-byte checksum; one of them flipped.
  const dir = path.join(OUT, 'chunk-words');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(legacyTable(fixtures, 'nb', 'legacy_nb_clust'), dir, { recursive: true });
  const data = path.join(dir, 'nb-1-big-Data.db');
  const bytes = fs.readFileSync(data);
  bytes[600] ^= 0xff;
  fs.writeFileSync(data, bytes);
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(dir));
  await page.locator('[data-testid=tab-verify]').click();
  await page.locator('[data-testid=verify-start]').click();
  await page.locator('[data-testid=verify-badge]').waitFor({ timeout: 120000 });
  await page.locator('[data-testid=chunk][data-chunk="1"]').click();
  const detail = await textOf(page.locator('[data-testid=chunk-detail] p').first());
  assert.match(detail, /^chunk 1 — stored crc32 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8} at bytes 424\.\.832 \(408 bytes, then its 4-byte checksum\): expected \d+, actual \d+/);
  assert.equal(detail.match(/chunk 1/g).length, 1, detail);
  assert.deepEqual(errors, []);
});

test('partition keys read the same in the Data tab, the Index tab and Find', { timeout: 120000 }, async (t) => {
  if (!cli()) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  const dir = generateSSTables('key-words', [{ generation: 1, args: ['--partitions', '6', '--rows-per-partition', '1'] }]);
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(dir));
  await page.locator('[data-testid=tab-index]').click();
  await page.locator('[data-testid=index-row]').first().waitFor();
  const indexKeys = (await page.locator('[data-testid=index-key]').allTextContents()).map((k) => k.trim());
  assert.equal(indexKeys.length, 6);
  await page.locator('[data-testid=tab-data]').click();
  await page.locator('[data-testid=data-timing]').waitFor();
  // Data.db and Index.db are both in token order: the same keys, printed the same way.
  assert.deepEqual((await page.locator('[data-testid=partition-key]').allTextContents()).map((k) => k.trim()), indexKeys);
  // Find takes the key as printed and prints it back the same.
  await page.locator('[data-testid=data-key]').fill(indexKeys[4]);
  await page.locator('[data-testid=data-jump]').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=partition]').length === 1);
  assert.deepEqual(await page.locator('[data-testid=partition-key]').allTextContents(), [indexKeys[4]]);
  assert.deepEqual(errors, []);
});

test('a CRC.db with one checksum more than Data.db has chunks: the strip shows the chunks checked, a note the extra one', { timeout: 120000 }, async (t) => {
  if (!cli()) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  // Uncompressed, 1 KiB CRC.db chunks: Data.db of 8,215 bytes is 9 chunks (the CLI says so);
  // a tenth checksum appended to CRC.db.
  const dir = generateSSTables('crc-extra', [{ generation: 1, args: ['--compression', 'none', '--chunk-kib', '1', '--partitions', '10', '--rows-per-partition', '5'] }]);
  const data = fs.statSync(path.join(dir, 'oa-1-big-Data.db')).size;
  const chunks = Math.ceil(data / 1024);
  fs.appendFileSync(path.join(dir, 'oa-1-big-CRC.db'), Buffer.alloc(4));
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(dir));
  await page.locator('[data-testid=tab-verify]').click();
  await page.locator('[data-testid=verify-start]').click();
  await page.locator('[data-testid=verify-badge]').waitFor({ timeout: 120000 });
  const crc = page.locator('[data-testid=verify-check][data-kind=crcdb]');
  assert.equal(await crc.getAttribute('data-checked'), String(chunks));
  assert.equal(await page.locator('[data-testid=chunk]').count(), chunks);
  assert.equal(await textOf(page.locator('[data-testid=chunk-count-note]')),
    `CRC.db holds ${chunks + 1} checksums, Data.db's ${data} bytes make ${chunks} chunks: the last 1 checksum is not checked: no Data.db bytes are left for it.`);
  assert.deepEqual(errors, []);
});
