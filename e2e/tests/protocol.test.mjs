// End-to-end: the worker protocol (issue #29 item 1). 64-bit values cross the worker boundary
// exactly (as varints in the protocol's bytes; before those, as BigInts); before that, a value past 2^53 made the worker's reply
// throw and the load waited forever. A worker that fails or dies ends only the job it ran: that
// SSTable's card names the error, the others load, and the pool replaces the worker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, cli, openPage, inputFiles, OUT } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

/** Long.MAX_VALUE: the generator's timestamps saturate at it (`--base-timestamp`). */
const LONG_MAX = '9223372036854775807';
/** Long.MAX_VALUE microseconds after the epoch. */
const LONG_MAX_ISO = '294247-01-10T04:00:54.775807Z';

/**
 * A fresh directory of generated SSTables: for each entry, `generate --generation G` with the
 * options given (5 partitions of 3 rows, oa, LZ4).
 */
function generated(name, sstables) {
  const dir = path.join(OUT, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const { generation, args } of sstables) {
    execFileSync(cli(), ['generate', '--out', dir, '--version', 'oa', '--compression', 'lz4',
      '--partitions', '5', '--rows-per-partition', '3', '--generation', String(generation), ...args]);
  }
  return dir;
}

const text = async (locator) => (await locator.textContent())?.trim();

test('Long.MAX_VALUE timestamps and deletion times cross the worker exactly: the card and the data tab show them', { timeout: 120000 }, async (t) => {
  if (!cli()) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  // Generation 1: every write at Long.MAX_VALUE (the max timestamp, and every row, cell and range
  // deletion marked at it); generation 2: ordinary timestamps, beside it in the same directory.
  const dir = generated('long-max', [
    { generation: 1, args: ['--base-timestamp', LONG_MAX, '--tombstone-fraction', '0.5', '--seed', '3'] },
    { generation: 2, args: ['--seed', '4'] },
  ]);
  const info = execFileSync(cli(), ['info', path.join(dir, 'oa-1-big-Data.db')]).toString();
  assert.match(info, new RegExp(`Maximum timestamp: ${LONG_MAX} `));
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', dir);
  const cards = page.locator('[data-testid=sstable]');
  assert.equal(await cards.count(), 2);
  const huge = page.locator('[data-testid=sstable][data-prefix$="oa-1-big"]');
  const plain = page.locator('[data-testid=sstable][data-prefix$="oa-2-big"]');
  // Long.MAX_VALUE µs is 294247-01-10T04:00:54.775807Z, to the microsecond.
  assert.match(await text(huge.locator('[data-testid=timestamps]')), new RegExp(` … ${LONG_MAX_ISO.replaceAll('.', '\\.')}$`));
  assert.equal(await text(huge.locator('[data-testid=estimated-partitions]')), '5');
  assert.equal(await huge.locator('.error').count(), 0);
  // The ordinary SSTable beside it: the range the CLI's `info` reads from the same Statistics.db.
  const plainInfo = execFileSync(cli(), ['info', path.join(dir, 'oa-2-big-Data.db')]).toString();
  const iso = (which) => plainInfo.match(new RegExp(`${which} timestamp: \\d+ \\((\\S+)\\)`))[1];
  assert.equal(await text(plain.locator('[data-testid=timestamps]')), `${iso('Minimum')} … ${iso('Maximum')}`);
  // The data tab of generation 1: its rows' timestamps and deletions as Long.MAX_VALUE, exactly.
  await huge.locator('[data-testid=inspect]').click();
  await page.locator('[data-testid=tab-data]').click();
  await page.locator('[data-testid=row]').first().waitFor({ timeout: 60000 });
  const written = await page.locator('[data-testid=row] td:last-child').allTextContents();
  assert.ok(written.length > 0);
  // Long.MAX_VALUE µs, rendered as the data tab renders a write time, to the microsecond.
  assert.ok(written.every((w) => w.trim() === '' || w.trim() === LONG_MAX_ISO), JSON.stringify(written));
  assert.ok(written.some((w) => w.trim() === LONG_MAX_ISO), JSON.stringify(written));
  assert.deepEqual(errors, []);
});

test('a worker that dies mid-load: that SSTable\'s card names the error, the others load, the pool replaces it', { timeout: 120000 }, async (t) => {
  if (!cli()) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  const dir = generated('worker-dies', [1, 2, 3, 4].map((g) => ({ generation: g, args: ['--seed', String(g)] })));
  const { page, errors } = await openPage(browser);
  // Every worker of the pool started (the rest start after the sample's answer).
  const poolSize = Number(await page.locator('[data-testid=pool-size]').inputValue());
  for (let i = 0; i < 100 && page.workers().length < poolSize; i++) await page.waitForTimeout(100);
  assert.ok(page.workers().length >= poolSize, `${page.workers().length} workers of ${poolSize}`);
  // In every worker: a Load of oa-3-big kills the worker as it arrives (it closes itself, so
  // the message is never answered), as a crash or an out-of-memory kill would.
  for (const w of page.workers()) {
    await w.evaluate(() => {
      // A message is the protocol's bytes with its handles beside them (web/src/protocol/wire.rs):
      // `[Uint8Array, handle…]`, a handle a `File` or a nested message.
      const mentions = (data, text) => (data instanceof Uint8Array
        ? new TextDecoder('latin1').decode(data).includes(text)
        : Array.isArray(data) ? data.some((d) => mentions(d, text)) : data instanceof File && data.name.includes(text));
      const handle = self.onmessage;
      self.__kill = true;
      self.onmessage = (e) => {
        if (self.__kill && mentions(e.data, 'oa-3-big')) {
          self.close();
          return;
        }
        handle.call(self, e);
      };
    });
  }
  await inputFiles(page, 'dir-input', dir);
  const cards = page.locator('[data-testid=sstable]');
  assert.equal(await cards.count(), 4);
  const card = (g) => page.locator(`[data-testid=sstable][data-prefix$="oa-${g}-big"]`);
  assert.match(await text(card(3).locator('.error')), /^the worker stopped while loading this SSTable/);
  assert.equal(await card(3).locator('[data-testid=timestamps]').count(), 0);
  for (const g of [1, 2, 4]) {
    assert.equal(await card(g).locator('.error').count(), 0, `oa-${g}-big`);
    assert.equal(await text(card(g).locator('[data-testid=estimated-partitions]')), '5', `oa-${g}-big`);
  }
  // The pool replaced the dead worker: loading again (with no worker killing it) loads all four.
  for (const w of page.workers()) await w.evaluate(() => { self.__kill = false; }).catch(() => {});
  await inputFiles(page, 'dir-input', dir);
  assert.equal(await page.locator('[data-testid=sstable] .error').count(), 0);
  for (const g of [1, 2, 3, 4]) {
    assert.equal(await text(card(g).locator('[data-testid=estimated-partitions]')), '5', `oa-${g}-big`);
  }
  assert.deepEqual(errors, []);
});

test('a pool of one worker, connections forbidden: its worker dies and the replacement, started from the kept WebAssembly, loads the rest', { timeout: 120000 }, async (t) => {
  if (!cli()) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  const dir = generated('worker-dies-alone', [1, 2, 3].map((g) => ({ generation: g, args: ['--seed', String(g)] })));
  const { page, errors } = await openPage(browser);
  // Connections are forbidden once every worker has loaded (a second Content-Security-Policy).
  await page.waitForFunction(() => document.querySelectorAll('meta[http-equiv=Content-Security-Policy]').length >= 2);
  const size = page.locator('[data-testid=pool-size]');
  await size.fill('1');
  await size.dispatchEvent('change');
  // The pool's only worker closes itself when the Load of oa-1-big arrives.
  for (const w of page.workers()) {
    await w.evaluate(() => {
      // A message is the protocol's bytes with its handles beside them (web/src/protocol/wire.rs):
      // `[Uint8Array, handle…]`, a handle a `File` or a nested message.
      const mentions = (data, text) => (data instanceof Uint8Array
        ? new TextDecoder('latin1').decode(data).includes(text)
        : Array.isArray(data) ? data.some((d) => mentions(d, text)) : data instanceof File && data.name.includes(text));
      const handle = self.onmessage;
      self.onmessage = (e) => {
        if (mentions(e.data, 'oa-1-big')) {
          self.close();
          return;
        }
        handle.call(self, e);
      };
    });
  }
  await inputFiles(page, 'dir-input', dir);
  const card = (g) => page.locator(`[data-testid=sstable][data-prefix$="oa-${g}-big"]`);
  assert.match(await text(card(1).locator('.error')), /^the worker stopped while loading this SSTable \(it closed or was killed\); another worker took its place$/);
  // Only a replacement could load these: the pool has one worker.
  for (const g of [2, 3]) {
    assert.equal(await card(g).locator('.error').count(), 0, `oa-${g}-big`);
    assert.equal(await text(card(g).locator('[data-testid=estimated-partitions]')), '5', `oa-${g}-big`);
  }
  assert.deepEqual(errors, []);
});
