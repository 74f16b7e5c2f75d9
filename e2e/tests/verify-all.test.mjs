// End-to-end: Verify all's summary (issue #29 item 6) names every SSTable of each group — the
// invalid ones with how they failed (named chunks, or the digest only) and each "not verifiable"
// group with its reason — on generated SSTables broken in known ways.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, cli, openPage, inputFiles, OUT, generateSSTables, flipBytes, textOf } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

test('Verify all: the summary names each SSTable per group, digest-only failures apart from failing chunks', { timeout: 180000 }, async (t) => {
  if (!cli()) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  const big = ['--partitions', '40', '--rows-per-partition', '20', '--chunk-kib', '4'];
  const bare = ['--compression', 'none'];
  const dir = generateSSTables('verify-all-summary', [
    { generation: 1, args: [...big, '--seed', '1'] },
    { generation: 2, args: [...big, '--seed', '2'] },
    { generation: 3, args: [...big, '--seed', '3'] },
    { generation: 4, args: [...bare, '--seed', '4'] },
    { generation: 5, args: [...bare, '--seed', '5'] },
  ]);
  // oa-2: one byte flipped in each of two compressed chunks (bytes 7232 and 17930 of its 33
  // chunks of about 3.6 KB: chunks 1 and 4), which breaks its digest too.
  flipBytes(path.join(dir, 'oa-2-big-Data.db'), [7232, 17930]);
  // oa-3: every chunk intact, the digest file wrong.
  fs.writeFileSync(path.join(dir, 'oa-3-big-Digest.crc32'), '12345');
  // oa-4, oa-5: uncompressed, CRC.db and Digest.crc32 removed (TOC.txt still lists them).
  for (const g of [4, 5]) for (const c of ['CRC.db', 'Digest.crc32']) fs.rmSync(path.join(dir, `oa-${g}-big-${c}`));
  // The chunks the CLI names for oa-2, over the same engine (it exits 1: invalid).
  const report = JSON.parse(spawnSync(cli(), ['verify', '--json', path.join(dir, 'oa-2-big-Data.db')], { encoding: 'utf8' }).stdout);
  const chunks = report[0].checks.filter((c) => c.kind === 'chunk').flatMap((c) => c.failures.map((f) => f.chunk));
  assert.deepEqual(chunks, [1, 4]);

  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', dir);
  await page.locator('[data-testid=verify-all-start]').click();
  await page.waitForFunction(() => {
    const t = document.querySelector('[data-testid=verify-all-progress]');
    return t && t.getAttribute('value') === t.getAttribute('max');
  }, null, { timeout: 120000 });
  const summary = page.locator('[data-testid=verify-all-summary]');
  const d = path.basename(dir);
  assert.equal(await summary.getAttribute('data-valid'), '1');
  assert.equal(await summary.getAttribute('data-invalid'), '2');
  assert.equal(await summary.getAttribute('data-not-verifiable'), '2');

  const chunkGroup = summary.locator('[data-testid=summary-invalid-chunks]');
  assert.equal(await textOf(chunkGroup.locator('p')), 'Invalid, failing chunks (1 SSTable):');
  assert.deepEqual(await chunkGroup.locator('li').allTextContents(),
    [`${d}/oa-2-big — chunks 1 and 4 fail; Digest.crc32 fails`]);

  const digestGroup = summary.locator('[data-testid=summary-invalid-digest]');
  assert.equal(await textOf(digestGroup.locator('p')), 'Invalid, digest only (1 SSTable):');
  assert.deepEqual(await digestGroup.locator('li').allTextContents(),
    [`${d}/oa-3-big — digest only (Digest.crc32; every chunk passed)`]);

  const unverifiable = summary.locator('[data-testid=summary-not-verifiable]');
  assert.equal(await unverifiable.count(), 1);
  assert.equal(await textOf(unverifiable.locator('p').first()),
    'Not verifiable (2 SSTables): CRC.db is listed in TOC.txt but missing; Digest.crc32 is listed in TOC.txt but missing');
  assert.deepEqual(await unverifiable.locator('[data-testid=summary-sstable]').allTextContents(), [`${d}/oa-4-big`, `${d}/oa-5-big`]);
  await page.screenshot({ path: path.join(OUT, 'verify-all-summary.png'), fullPage: true });
  assert.deepEqual(errors, []);
});
