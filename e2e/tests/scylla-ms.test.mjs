// End-to-end: ScyllaDB `ms` (BTI indexes under the `big` name) first-class (issue #29 item 2).
// No ScyllaDB file is in the fixtures: the engine's `scylla_ms` example makes an `ms`-like SSTable
// of legacy_me_clust (me's Data.db and Statistics.db, as ScyllaDB's ms keeps them; a Partitions.db
// over its five partitions written as ScyllaDB's trie writer does; an empty Rows.db), next to the
// me SSTable itself in one table directory. The page reads ms-1-big as BTI: the Index tab lists the
// five partitions "0".."4" (MANIFEST §2) with tokens and the Data.db positions the me Index.db
// holds, Components decodes Partitions.db and Rows.db, the table's token chart has both SSTables,
// and Find goes through Partitions.db.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, cli, openPage, inputFiles, fixturesOrSkip, legacyTable, OUT, textOf } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

const TABLE = 'ks/clust-0f1e2d3c4b5a69788796a5b4c3d2e1f0';

/** The `scylla_ms` example beside the CLI (built with cargo when it is not there yet). */
function scyllaMs() {
  const targetProfile = path.dirname(cli());
  const bin = path.join(targetProfile, 'examples', 'scylla_ms');
  if (!fs.existsSync(bin)) {
    execFileSync('cargo', ['build', '-q', '-p', 'sstable-engine', '--example', 'scylla_ms'], {
      cwd: path.resolve('..'),
      env: { ...process.env, CARGO_TARGET_DIR: path.dirname(targetProfile) },
      stdio: 'inherit',
    });
  }
  return bin;
}

test('ScyllaDB ms: Index tab from Partitions.db, Partitions.db and Rows.db decoded, in the token chart, Find', { timeout: 240000 }, async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  if (!cli()) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  const me = legacyTable(fixtures, 'me', 'legacy_me_clust');
  const root = path.join(OUT, 'scylla-ms');
  const dir = path.join(root, TABLE);
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  execFileSync(scyllaMs(), [me, dir, '1']);
  for (const f of fs.readdirSync(me)) fs.copyFileSync(path.join(me, f), path.join(dir, f.replace('me-1-big-', 'me-2-big-')));
  assert.ok(fs.existsSync(path.join(dir, 'ms-1-big-Partitions.db')));
  assert.ok(!fs.existsSync(path.join(dir, 'ms-1-big-Index.db')));
  // The Data.db positions of the five partitions, as the me SSTable's Index.db gives them.
  const index = execFileSync(cli(), ['index', path.join(dir, 'me-2-big-Data.db')]).toString();
  const positions = [...index.matchAll(/^\s+\d+\s+(\d)\s+(3\d)\s+(\d+)/gm)].map((m) => m[3]);
  assert.equal(positions.length, 5, index);

  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', root);
  assert.equal(await page.locator('[data-testid=overview-row]').count(), 2);
  const card = page.locator('[data-testid=sstable][data-prefix$="ms-1-big"]');
  assert.equal(await textOf(card.locator('[data-testid=version]')), 'ms');
  assert.equal(await page.locator('[data-testid=decode-error]').count(), 0);

  // The Index tab, from Partitions.db: keys, tokens (ByteOrdered: the key's bytes), positions.
  await page.locator('[data-testid=tab-sstables]').click();
  await page.locator('[data-testid=overview-row]', { hasText: 'ms-1-big' }).first().click();
  await page.locator('[data-testid=tab-index]').click();
  await page.locator('[data-testid=index-timing]').waitFor();
  const view = await textOf(page.locator('[data-testid=index-view]'));
  assert.doesNotMatch(view, /no Index\.db was given/);
  assert.match(await textOf(page.locator('[data-testid=index-timing]')), /^partitions 0–4 of 5 listed/);
  assert.deepEqual(await page.locator('[data-testid=index-key]').allTextContents(), ['0', '1', '2', '3', '4']);
  const tokens = await page.locator('[data-testid=index-row]').evaluateAll((rows) => rows.map((r) => r.querySelectorAll('td')[2].textContent.trim()));
  assert.deepEqual(tokens, ['30', '31', '32', '33', '34']);
  assert.deepEqual(await page.locator('[data-testid=index-position]').allTextContents(), positions.map((p) => `Data.db ${p}`));

  // Components: Partitions.db and Rows.db as field trees.
  await page.locator('[data-testid=tab-components]').click();
  await page.locator('[data-testid=component-button]', { hasText: 'Partitions.db' }).click();
  const tree = await textOf(page.locator('[data-testid=component-view] .tree-pane'));
  assert.match(tree, /5 partitions, keys "0" … "4"/);
  assert.doesNotMatch(tree, /not decoded as a field tree/);
  await page.locator('[data-testid=component-button]', { hasText: 'Rows.db' }).click();
  assert.match(await textOf(page.locator('[data-testid=component-view] .tree-pane')), /empty: no partition has a row index/);

  // The table's token chart: both SSTables, their ranges 30…34 overlapping.
  await page.locator('[data-testid=tab-analytics]').click();
  await page.locator('[data-testid=table-summary][data-ready=true]').waitFor();
  const rows = await page.locator('[data-testid=chart-table-tokens] [data-testid=timeline-row]').evaluateAll((rs) => rs.map((r) => r.dataset.label));
  assert.equal(rows.length, 2, rows.join(', '));
  assert.ok(rows.some((l) => /ms-1-big/.test(l)), rows.join(', '));
  assert.equal(await page.locator('[data-testid=table-summary]').getAttribute('data-overlaps'), '1');

  // Find "3" in the ms SSTable: through Partitions.db, the partition shown.
  await page.locator('[data-testid=tab-data]').click();
  await page.locator('[data-testid=data-key]').fill('3');
  await page.locator('[data-testid=data-jump]').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=partition]').length === 1);
  assert.deepEqual(await page.locator('[data-testid=partition-key]').allTextContents(), ['3']);
  assert.match((await page.locator('[data-testid=read-step]').allTextContents()).join('\n'), /Partitions\.db/);
  await page.screenshot({ path: path.join(OUT, 'scylla-ms.png'), fullPage: true });
  assert.deepEqual(errors, []);
});
