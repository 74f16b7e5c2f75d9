// End-to-end: "Compare replicas" (issue #25, the page's part). Three replicas written by
// `sstable-inspect generate --overlapping 4 --replicas 3` (5 injected divergences) are dropped
// one directory per node and compared in a worker; the page shows exactly the mismatching
// ranges and differing partitions `sstable-inspect diff A B C --json` reports (which replicas
// hold each, which is newest, the bytes each would stream per range) — on 3 nodes and on 2.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, cli, openObserved, OUT, longTasksDuring, expectNoLongTasks } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

/** `diff --json`, with the 64-bit tokens as strings (JSON numbers lose them past 2^53). */
function cliDiff(bin, dirs, now) {
  const text = execFileSync(bin, ['diff', ...dirs, '--now', now, '--json']).toString();
  const exact = text.replace(/"(start_token|end_token|token)": (-?\d+)/g, '"$1": "$2"');
  return JSON.parse(exact);
}

async function compare(page, expected) {
  const long = await longTasksDuring(page, async () => {
    await page.locator('[data-testid=replicas-run]').click();
    await page.locator(`[data-testid=replicas-summary][data-replicas="${expected.replicas}"]`).waitFor({ timeout: 60000 });
  });
  const summary = page.locator('[data-testid=replicas-summary]');
  assert.equal(await summary.getAttribute('data-depth'), String(expected.depth));
  assert.equal(await summary.getAttribute('data-ranges'), String(expected.mismatching_ranges.length));
  assert.equal(await summary.getAttribute('data-partitions'), String(expected.partition_diffs.length));
  assert.ok(await page.locator('[data-testid=ring-cell][data-ok=false]').count() >= 1);
  const ranges = page.locator('[data-testid=replica-range]');
  assert.equal(await ranges.count(), expected.mismatching_ranges.length);
  const seen = [];
  for (let i = 0; i < expected.mismatching_ranges.length; i++) {
    const want = expected.mismatching_ranges[i];
    assert.equal(await ranges.nth(i).getAttribute('data-start'), want.start_token);
    assert.equal(await ranges.nth(i).getAttribute('data-end'), want.end_token);
    await ranges.nth(i).click();
    const detail = page.locator(`[data-testid=range-detail][data-range="${i}"]`);
    await detail.waitFor();
    assert.deepEqual(await detail.locator('[data-testid=range-bytes]').evaluateAll((s) => s.map((x) => Number(x.dataset.bytes))), want.bytes);
    seen.push(...await detail.locator('[data-testid=differing-partition]').evaluateAll((trs) => trs.map((tr) =>
      [tr.dataset.keyHex, tr.dataset.token, tr.dataset.newest, tr.dataset.present].join('|'))));
  }
  const want = expected.partition_diffs.map((p) => [p.key_hex, p.token, String(p.newest), p.digests.map((d) => (d ? '1' : '0')).join('')].join('|'));
  assert.deepEqual(seen.sort(), want.sort());
  return long;
}

test('Compare replicas: exactly the ranges and partitions sstable-inspect diff --json reports, on 3 nodes and on 2', { timeout: 240000 }, async (t) => {
  const bin = cli();
  if (!bin) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  const dir = path.join(OUT, 'table-replicas');
  fs.rmSync(dir, { recursive: true, force: true });
  const out = execFileSync(bin, [
    'generate', '--out', dir, '--version', 'nb', '--compression', 'lz4', '--partitions', '25',
    '--rows-per-partition', '10', '--seed', '33', '--overlapping', '4', '--replicas', '3',
  ]).toString();
  const now = out.match(/--now (\d+)/)[1];
  const nodes = [1, 2, 3].map((i) => path.join(dir, `node${i}`));
  const three = cliDiff(bin, nodes, now);
  // The generator's 5 divergences, each a differing partition.
  assert.equal(three.partition_diffs.length, 5);

  const { page, errors } = await openObserved(browser);
  await page.locator('[data-testid=replicas] summary').click();
  await page.locator('[data-testid=replica-count]').selectOption('3');
  for (const [i, node] of nodes.entries()) {
    await page.setInputFiles(`[data-testid=node${i + 1}-dir-input]`, node);
    await page.waitForFunction((id) => /5 SSTables/.test(document.querySelector(`[data-testid=${id}]`)?.textContent ?? ''), `node${i + 1}-summary`);
  }
  await page.locator('[data-testid=replicas-now]').fill(now);
  await page.locator('[data-testid=replicas-now]').dispatchEvent('change');
  const long = await compare(page, three);
  await expectNoLongTasks(t, long, 'while comparing three replicas');
  await page.screenshot({ path: path.join(OUT, 'table-replicas.png'), fullPage: true });

  // Two nodes: node1 against node2 only.
  await page.locator('[data-testid=replica-count]').selectOption('2');
  const two = cliDiff(bin, nodes.slice(0, 2), now);
  assert.ok(two.partition_diffs.length >= 1);
  await compare(page, two);
  assert.deepEqual(errors, []);
});
