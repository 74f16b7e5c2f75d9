// End-to-end: "Compare replicas" (issue #25, the page's part). Three replicas written by
// `sstable-inspect generate --overlapping 4 --replicas 3` (5 injected divergences) are dropped
// one directory per node and compared in a worker; the page shows exactly the mismatching
// ranges and differing partitions `sstable-inspect diff A B C --json` reports (which replicas
// hold each, which is newest, the bytes each would stream per range) — on 3 nodes and on 2;
// each differing partition's pieces (computed in a worker, a page of them) are exactly the
// divergence the generator injected there, node by node, with the winner; the worker's memory
// for the merge and the diff stays under 128 MiB.
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

/** A row of `read --json` as the side-by-side view words it: [label, text]. */
function rowWords(r) {
  const values = (c) => c.map((v) => v ?? 'null').join(', ');
  if (r.type.startsWith('range_tombstone')) {
    const bound = r.start ?? r.end;
    const text = [['end', r.end], ['start', r.start]].filter(([, b]) => b).map(([side, b]) => `${side} deleted at ${b.deletion_info.marked_deleted}`).join('; ');
    return [`${r.type} (${bound ? values(bound.clustering) : ''})`, text];
  }
  const label = r.type === 'static_block' ? 'static' : `(${values(r.clustering ?? [])})`;
  const parts = [];
  if (r.liveness_info) parts.push(`written ${r.liveness_info.tstamp}`);
  if (r.deletion_info) parts.push(`deleted ${r.deletion_info.marked_deleted}`);
  parts.push((r.cells ?? []).map((c) => `${c.name}${c.path ? `[${c.path.join(',')}]` : ''}=${c.deletion_info ? '✝' : (c.value ?? '')}`
    + `${c.tstamp ? ` @${c.tstamp}` : ''}${c.ttl != null ? ` ttl ${c.ttl}` : ''}${c.expired ? ' expired' : ''}`).join(';'));
  return [label, parts.join(' | ')];
}

/** What the side-by-side view should show for a key: each row label, then each replica's text. */
function expectedSide(bin, dirs, now, keyHex) {
  const perReplica = dirs.map((d) => {
    const parts = JSON.parse(execFileSync(bin, ['read', d, '--now', now, '--key', `0x${keyHex}`, '--json']).toString());
    return new Map((parts[0]?.rows ?? []).map(rowWords));
  });
  const labels = [];
  for (const m of perReplica) for (const l of m.keys()) if (!labels.includes(l)) labels.push(l);
  return labels.map((l) => [l, ...perReplica.map((m) => m.get(l) ?? '')].join('|'));
}

/** The worker's WebAssembly memory bound the page's jobs are held to (issue #25). */
const WORKER_MEMORY_BOUND = 128 * 1024 * 1024;

/**
 * The pieces a divergence leaves in its partition, by construction (`write::replicas`: base time
 * t = now − 3600 s, gc_grace 10 days), as the page words each: `where|node1|…|nodeN|winner`.
 */
function injectedPieces(kind, node, nodes, now) {
  const secs = BigInt(now) - 3600n;
  const t = secs * 1000000n;
  const other = node === 0 ? 1 : 0;
  const row = (where, mine, theirs, winner) =>
    [where, ...Array.from({ length: nodes }, (_, i) => (i === node ? mine : theirs)), String(winner)].join('|');
  switch (kind) {
    case 'MissingPartition':
      return [row('Liveness (0)', '-', `Live @${t}`, other), row('Cell (0) v', '-', `Live v @${t}`, other)];
    case 'OlderCell':
      return [row('Cell (0) v', `Live older @${t - 1n}`, `Live v @${t}`, other)];
    case 'ExtraRow':
      return [row('Liveness (1)', `Live @${t}`, '-', node), row('Cell (1) v', `Live extra @${t}`, '-', node)];
    case 'ExtraRangeTombstone':
      return ['(2) InclStartBound', '(3) InclEndBound'].map((b) =>
        row(`RangeTombstoneBound ${b}`, `Deletion @${t + 1n} ldt ${secs}`, '-', node));
    case 'ExpiredTtl':
      // Both expiring at the same timestamp: the later expiry wins (Cells.reconcile).
      return [row('Cell (0) v', `Expired v @${t} ttl 60 ldt ${secs + 60n} (purged at gcBefore)`,
        `Expiring v @${t} ttl 1000000 ldt ${secs + 1000000n}`, other)];
    default:
      throw new Error(`unknown divergence ${kind}`);
  }
}

/** Differing partitions whose pieces were checked. */
let piecesChecked = 0;

async function compare(page, expected, side, pieces) {
  const long = await longTasksDuring(page, async () => {
    await page.locator('[data-testid=replicas-run]').click();
    await page.locator(`[data-testid=replicas-summary][data-replicas="${expected.replicas}"]`).waitFor({ timeout: 60000 });
  });
  const summary = page.locator('[data-testid=replicas-summary]');
  // The worker's memory only grows: after the merge and the diff it is the worker's peak.
  const memory = Number(await summary.getAttribute('data-wasm-memory'));
  console.log(`compare replicas: the worker's wasm memory after it ${memory} bytes`);
  assert.ok(memory > 0 && memory < WORKER_MEMORY_BOUND, `worker memory ${memory} bytes`);
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
    if (pieces) {
      // Each differing partition's pieces: exactly the divergence injected there.
      const rows = detail.locator('[data-testid=differing-partition]');
      for (let j = 0; j < await rows.count(); j++) {
        const keyHex = await rows.nth(j).getAttribute('data-key-hex');
        const long = await longTasksDuring(page, async () => {
          await rows.nth(j).locator('[data-testid=show-pieces]').click();
          await page.locator(`[data-testid=pieces-view][data-key-hex="${keyHex}"][data-ready=true]`).waitFor({ timeout: 60000 });
        });
        assert.deepEqual(long, [], `long tasks while showing the pieces of 0x${keyHex}`);
        const view = page.locator('[data-testid=pieces-view]');
        const shown = await view.locator('[data-testid=piece]').evaluateAll((trs) => trs.map((tr) =>
          [tr.dataset.where, ...[...tr.querySelectorAll('[data-testid=piece-version]')].map((td) => td.dataset.text), tr.dataset.newest].join('|')));
        assert.deepEqual(shown, pieces(keyHex), `pieces of 0x${keyHex}`);
        assert.equal(await view.getAttribute('data-total'), String(shown.length));
        // The winner is the one marked.
        const marked = await view.locator('[data-testid=piece]').evaluateAll((trs) => trs.map((tr) =>
          [...tr.querySelectorAll('[data-testid=piece-version]')].findIndex((td) => td.dataset.wins === 'true')));
        assert.deepEqual(marked.map(String), shown.map((s) => s.split('|').at(-1)));
        piecesChecked += 1;
      }
    }
    if (!side) continue;
    // Each differing partition side by side: each replica's rows as its merged read has them.
    const rows = detail.locator('[data-testid=differing-partition]');
    for (let j = 0; j < await rows.count(); j++) {
      const keyHex = await rows.nth(j).getAttribute('data-key-hex');
      await rows.nth(j).locator('[data-testid=side-by-side]').click();
      const view = page.locator(`[data-testid=side-by-side-view][data-key-hex="${keyHex}"][data-ready=true]`);
      await view.waitFor({ timeout: 60000 });
      const shown = await view.locator('[data-testid=side-row]').evaluateAll((trs) => trs.map((tr) =>
        [tr.dataset.label, ...[...tr.querySelectorAll('[data-testid=side-cell]')].map((td) => td.dataset.text)].join('|')));
      assert.deepEqual(shown, side(keyHex), `side by side 0x${keyHex}`);
      assert.ok(await view.locator('[data-testid=side-row][data-differs=true]').count() >= 1, `0x${keyHex}: no row differs`);
    }
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
  // "divergence KIND on nodeN: partition 0xKEY", one per injected divergence.
  const injected = new Map([...out.matchAll(/divergence (\w+) on node(\d+): partition 0x([0-9a-f]+)/g)]
    .map(([, kind, node, key]) => [key, injectedPieces(kind, Number(node) - 1, 3, now)]));
  assert.equal(injected.size, 5);
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
  const long = await compare(page, three, (keyHex) => expectedSide(bin, nodes, now, keyHex), (keyHex) => injected.get(keyHex));
  await expectNoLongTasks(t, long, 'while comparing three replicas');
  assert.equal(piecesChecked, injected.size);
  await page.screenshot({ path: path.join(OUT, 'table-replicas.png'), fullPage: true });

  // Two nodes: node1 against node2 only.
  await page.locator('[data-testid=replica-count]').selectOption('2');
  const two = cliDiff(bin, nodes.slice(0, 2), now);
  assert.ok(two.partition_diffs.length >= 1);
  await compare(page, two);
  assert.deepEqual(errors, []);
});

test('Compare replicas of a large generated table (3 nodes × 20,000 partitions × 50 rows): the worker\'s memory bounded, not the data\'s size', { timeout: 1800000 }, async (t) => {
  const bin = cli();
  if (!bin) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  const dir = path.join(OUT, 'table-replicas-large');
  const args = [
    'generate', '--out', dir, '--version', 'nb', '--compression', 'lz4', '--partitions', '20000',
    '--rows-per-partition', '50', '--seed', '34', '--overlapping', '4', '--replicas', '3',
  ];
  // Generated once and kept (a debug build takes minutes): the stamp, written once the set is
  // complete, holds the command and what it printed (the divergences asserted below), so the
  // set and what is expected of it always agree; the first test checks the generator afresh.
  const stamp = path.join(dir, 'generated.json');
  const key = JSON.stringify(args);
  let out = fs.existsSync(stamp) && JSON.parse(fs.readFileSync(stamp, 'utf8'));
  if (!out || out.key !== key) {
    fs.rmSync(dir, { recursive: true, force: true });
    out = { key, printed: execFileSync(bin, args).toString() };
    fs.writeFileSync(stamp, JSON.stringify(out));
  }
  const now = out.printed.match(/--now (\d+)/)[1];
  const injected = new Map([...out.printed.matchAll(/divergence (\w+) on node(\d+): partition 0x([0-9a-f]+)/g)]
    .map(([, kind, node, key]) => [key, injectedPieces(kind, Number(node) - 1, 3, now)]));
  assert.equal(injected.size, 5);
  const nodes = [1, 2, 3].map((i) => path.join(dir, `node${i}`));
  const dataBytes = nodes.flatMap((n) => fs.readdirSync(n).filter((f) => f.endsWith('Data.db')).map((f) => fs.statSync(path.join(n, f)).size))
    .reduce((a, b) => a + b, 0);

  const { page, errors } = await openObserved(browser);
  await page.locator('[data-testid=replicas] summary').click();
  await page.locator('[data-testid=replica-count]').selectOption('3');
  for (const [i, node] of nodes.entries()) {
    await page.setInputFiles(`[data-testid=node${i + 1}-dir-input]`, node);
    await page.waitForFunction((id) => /5 SSTables/.test(document.querySelector(`[data-testid=${id}]`)?.textContent ?? ''), `node${i + 1}-summary`);
  }
  await page.locator('[data-testid=replicas-now]').fill(now);
  await page.locator('[data-testid=replicas-now]').dispatchEvent('change');
  const started = Date.now();
  const summary = page.locator('[data-testid=replicas-summary][data-replicas="3"]');
  const long = await longTasksDuring(page, async () => {
    await page.locator('[data-testid=replicas-run]').click();
    await summary.waitFor({ timeout: 1500000 });
  });
  await expectNoLongTasks(t, long, 'while comparing three large replicas');
  // The generator's 5 divergences, and nothing else: the shared SSTables are alike on every node.
  assert.equal(await summary.getAttribute('data-partitions'), '5');
  const memory = Number(await summary.getAttribute('data-wasm-memory'));
  console.log(`compare replicas, large: Data.db ${dataBytes} bytes over 3 nodes, compared in ${Date.now() - started} ms; the worker's wasm memory after it ${memory} bytes`);
  assert.ok(memory > 0 && memory < WORKER_MEMORY_BOUND && memory < dataBytes / 2, `worker memory ${memory} bytes for ${dataBytes} bytes of Data.db`);
  // One differing partition's pieces, from the large set: the divergence injected there.
  await page.locator('[data-testid=replica-range]').first().click();
  const row = page.locator('[data-testid=differing-partition]').first();
  const keyHex = await row.getAttribute('data-key-hex');
  await row.locator('[data-testid=show-pieces]').click();
  const view = page.locator(`[data-testid=pieces-view][data-key-hex="${keyHex}"][data-ready=true]`);
  await view.waitFor({ timeout: 1500000 });
  const shown = await view.locator('[data-testid=piece]').evaluateAll((trs) => trs.map((tr) =>
    [tr.dataset.where, ...[...tr.querySelectorAll('[data-testid=piece-version]')].map((td) => td.dataset.text), tr.dataset.newest].join('|')));
  assert.deepEqual(shown, injected.get(keyHex));
  assert.deepEqual(errors, []);
});
