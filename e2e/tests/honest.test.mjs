// End-to-end: answers that do not mislead (issue #29 item 5). Find on a key whose Data.db chunk
// fails its checksum says the key is there but unreadable; a CompressionInfo.db that does not
// decode is named, never "Compression: none"; an empty TOC.txt is a finding; the token chart
// says why it cannot draw instead of drawing NaN rectangles.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, cli, openPage, inputFiles, filesIn, fixturesOrSkip, legacyTable, OUT, generateSSTables, textOf } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

/** A copy of a fixture table in OUT/name/broken, with `change(dir)` applied to it. */
function brokenCopy(table, name, change) {
  const out = path.join(OUT, name, 'broken');
  fs.rmSync(path.join(OUT, name), { recursive: true, force: true });
  fs.cpSync(table, out, { recursive: true });
  change(out);
  return out;
}

/** The broken copy beside an intact one (OUT/name/intact), so the overview table lists both. */
function besideIntact(table, name, change) {
  brokenCopy(table, name, change);
  fs.cpSync(table, path.join(OUT, name, 'intact'), { recursive: true });
  return path.join(OUT, name);
}

/** The overview row's cells of the SSTable whose path contains `part`. */
const rowCells = (page, part) => page.locator('[data-testid=overview-row]', { hasText: part }).locator('td').allTextContents();

async function find(page, key) {
  await page.locator('[data-testid=data-key]').fill(key);
  await page.locator('[data-testid=data-jump]').click();
}

test('Find on a key whose Data.db chunk fails its checksum: "present but unreadable (chunk 0 fails its checksum)"', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  // MANIFEST §7: legacy_nb_clust's chunk 0 is Data.db bytes [0, 424), where partition "0" starts
  // (Index.db: position 0); one of its compressed bytes flipped.
  const dir = brokenCopy(legacyTable(fixtures, 'nb', 'legacy_nb_clust'), 'find-bad-chunk', (d) => {
    const p = path.join(d, 'nb-1-big-Data.db');
    const bytes = fs.readFileSync(p);
    bytes[100] ^= 0xff;
    fs.writeFileSync(p, bytes);
  });
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(dir));
  await page.locator('[data-testid=tab-data]').click();
  await find(page, '0');
  await page.waitForFunction(() => /present but unreadable/.test(document.querySelector('[data-testid=data-error]')?.textContent ?? ''), null, { timeout: 30000 });
  const said = await textOf(page.locator('[data-testid=data-error]'));
  assert.match(said, /^present but unreadable \(chunk 0 fails its checksum\): the index holds the key/);
  assert.match(said, /chunk 0 \(Data\.db 0\.\.424\) fails its checksum/);
  assert.doesNotMatch(said, /not in this SSTable/);
  // The read path shows the index step that found it.
  assert.match((await page.locator('[data-testid=read-step]').allTextContents()).join('\n'), /Index\.db/);
  // A key in an intact chunk is found; an absent key is still "not in this SSTable".
  await find(page, '3');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=partition]').length === 1);
  assert.deepEqual(await page.locator('[data-testid=partition-key]').allTextContents(), ['3']);
  await find(page, '5');
  await page.waitForFunction(() => /not in this SSTable/.test(document.querySelector('[data-testid=data-error]')?.textContent ?? ''));
  assert.deepEqual(errors, []);
});

test('a CompressionInfo.db that does not decode is named as such, never "Compression: none"', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  // Cut to 6 bytes: its compressor name (a 2-byte length, then "LZ4Compressor") ends early.
  const dir = besideIntact(legacyTable(fixtures, 'nb', 'legacy_nb_clust'), 'bad-compression-info', (d) => {
    const p = path.join(d, 'nb-1-big-CompressionInfo.db');
    fs.writeFileSync(p, fs.readFileSync(p).subarray(0, 6));
  });
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', dir);
  const fact = await textOf(page.locator('[data-testid=sstable][data-prefix$="broken/nb-1-big"] [data-testid=compressor]'));
  assert.match(fact, /^unknown: CompressionInfo\.db is present but does not decode \(at offset \d+: .+\)$/);
  const broken = await rowCells(page, 'broken/');
  assert.equal(broken[3], 'unknown: CompressionInfo.db does not decode');
  assert.match(broken[7], /^\d+ errors?$/);
  // The intact copy: its compressor, as MANIFEST §7's header says (LZ4Compressor, 16 KiB chunks).
  assert.equal((await rowCells(page, 'intact/'))[3], 'LZ4Compressor');
  assert.deepEqual(errors, []);
});

test('an empty TOC.txt is a finding, not a green "decoded"', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const dir = besideIntact(legacyTable(fixtures, 'nb', 'legacy_nb_clust'), 'empty-toc', (d) => {
    fs.writeFileSync(path.join(d, 'nb-1-big-TOC.txt'), '');
  });
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', dir);
  const findings = await page.locator('[data-testid=sstable][data-prefix$="broken/nb-1-big"] [data-testid=finding]').allTextContents();
  assert.ok(findings.some((f) => /^TOC\.txt: TOC\.txt lists no component \(it is empty\)/.test(f)), findings.join('\n'));
  assert.equal((await rowCells(page, 'broken/'))[7], '1 finding');
  // The intact copy: decoded, no finding.
  assert.equal((await rowCells(page, 'intact/'))[7], 'decoded');
  assert.equal(await page.locator('[data-testid=sstable][data-prefix$="intact/nb-1-big"] [data-testid=finding]').count(), 0);
  assert.deepEqual(errors, []);
});

test('the token chart, when every token is the same, says why it does not draw (no NaN rectangles)', { timeout: 120000 }, async (t) => {
  if (!cli()) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  // Three SSTables of one partition each, the same seed: the same key, so one token everywhere.
  const dir = generateSSTables('one-token', [1, 2, 3].map((g) => ({ generation: g, subdir: 'ks/t', args: ['--partitions', '1', '--rows-per-partition', '2', '--seed', '7'] })));
  const report = JSON.parse(execFileSync(cli(), ['table', path.join(dir, 'ks', 't'), '--json']).toString());
  const tokens = new Set(report.sstables.flatMap((s) => [s.first_token, s.last_token]));
  assert.equal(tokens.size, 1, [...tokens].join());
  const [token] = tokens;
  const { page, errors } = await openPage(browser);
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  await inputFiles(page, 'dir-input', dir);
  await page.locator('[data-testid=overview-row]').first().click();
  await page.locator('[data-testid=tab-analytics]').click();
  await page.locator('[data-testid=table-summary][data-ready=true]').waitFor();
  const chart = page.locator('[data-testid=chart-table-tokens]');
  const why = await textOf(chart.locator('[data-testid=chart-cannot-draw]'));
  assert.equal(why, `Not drawn: every SSTable's range is the same single token, with no span to draw (3 SSTables: tokens ${token} … ${token}).`);
  assert.equal(await chart.locator('[data-testid=timeline-row]').count(), 0);
  assert.deepEqual(await chart.locator('[data-testid=timeline-text-row]').allTextContents(),
    [1, 2, 3].map((g) => `oa-${g}-big: tokens ${token} … ${token}`));
  const nan = await page.evaluate(() => [...document.querySelectorAll('svg *')].filter((e) => [...e.attributes].some((a) => a.value.includes('NaN'))).length);
  assert.equal(nan, 0);
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(errors, []);
});
