// End-to-end: the release build in Chromium, real SSTable files loaded through the file input,
// the directory picker and a drag-and-drop; decoded values asserted on the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, dropFiles, inputFiles, cardFacts, filesIn, fixturesOrSkip, legacyTable, OUT, BASE_URL, copyTable, verifyNow } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

test('file input: nb-1-big-* of legacy_nb_clust is one SSTable, nb, big, generation 1, 8 components', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(legacyTable(fixtures, 'nb', 'legacy_nb_clust')));
  const cards = page.locator('[data-testid=sstable]');
  await cards.first().waitFor();
  assert.equal(await cards.count(), 1);
  assert.deepEqual(await cardFacts(cards.first()), {
    prefix: 'nb-1-big', version: 'nb', format: 'big', generation: '1', components: 8,
  });
  const names = await cards.first().locator('[data-testid=component] td:first-child').allTextContents();
  assert.deepEqual(names, ['Data.db', 'Index.db', 'Summary.db', 'Statistics.db', 'Filter.db', 'CompressionInfo.db', 'Digest.crc32', 'TOC.txt']);
  assert.equal(await page.locator('[data-testid=missing]').count(), 0);
  // Decoded metadata (MANIFEST §2, §3, §7).
  const fact = async (id) => (await cards.first().locator(`[data-testid=${id}]`).textContent()).trim();
  assert.equal(await fact('partitioner'), 'ByteOrderedPartitioner');
  assert.equal(await fact('fp-chance'), '0.01');
  assert.match(await fact('compressor'), /^LZ4Compressor 16 KiB chunks × 21, ratio /);
  assert.equal(await fact('estimated-partitions'), '5');
  assert.equal(await fact('total-rows'), '250');
  assert.equal(await fact('schema'), 'key text, clustering text, val text');
  assert.equal(await fact('digest'), 'CRC32 2568411107');
  assert.equal(await cards.first().locator('[data-testid=decode-error]').count(), 0);
  await page.screenshot({ path: path.join(OUT, 'overview.png'), fullPage: true });
  assert.deepEqual(errors, []);
});

test('drag and drop: da bti files and a stray file; the stray one is listed with its reason', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  const files = filesIn(legacyTable(fixtures, 'da', 'legacy_da_clust'));
  files.push(path.join(fixtures, 'MANIFEST.md'));
  await dropFiles(page, files);
  const card = page.locator('[data-testid=sstable]');
  await card.first().waitFor();
  assert.deepEqual(await cardFacts(card.first()), {
    prefix: 'da-1-bti', version: 'da', format: 'bti', generation: '1', components: 8,
  });
  assert.equal((await card.first().locator('[data-testid=digest]').textContent()).trim(), 'CRC32 1983729251');
  assert.equal((await card.first().locator('[data-testid=partitioner]').textContent()).trim(), 'ByteOrderedPartitioner');
  const ignored = await page.locator('[data-testid=ignored]').textContent();
  assert.match(ignored, /MANIFEST\.md: expected <version>-<id>-<format>-<Component>/);
  assert.deepEqual(errors, []);
});

test('directory picker: the whole ka directory, with the TOC that lists an absent Summary.db', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', path.join(fixtures, 'legacy-sstables', 'ka'));
  await page.locator('[data-testid=summary]').waitFor();
  // MANIFEST §2/§5: ka has 8 legacy tables + 15 extras; illegal_cell_names has 2 generations.
  const tocs = fs.readdirSync(path.join(fixtures, 'legacy-sstables', 'ka'), { recursive: true }).filter((f) => f.endsWith('TOC.txt'));
  const cards = page.locator('[data-testid=sstable]');
  assert.equal(await cards.count(), tocs.length);
  const missing = await page.locator('[data-testid=missing]').allTextContents();
  assert.deepEqual(missing, ['Listed in TOC.txt but not given: Summary.db', 'Listed in TOC.txt but not given: Summary.db']);
  const versions = new Set(await page.locator('[data-testid=version]').allTextContents());
  assert.deepEqual([...versions], ['ka']);
  // MANIFEST §5: legacy_ka_14912's Digest.sha1 holds a decimal Adler32, 2565739962.
  const ka14912 = page.locator('[data-testid=sstable][data-prefix$="legacy_ka_14912-ka-1"]');
  assert.equal((await ka14912.locator('[data-testid=digest]').textContent()).trim(), 'Adler32 2565739962');
  assert.equal(await page.locator('[data-testid=decode-error]').count(), 0);
  assert.deepEqual(errors, []);
});

test('component view: a field highlights its bytes, a byte selects its field', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(legacyTable(fixtures, 'nb', 'legacy_nb_clust')));
  await page.locator('[data-testid=inspect]').click();
  await page.locator('[data-testid=component-button]', { hasText: 'Statistics.db' }).click();
  // Open VALIDATION and click its partitioner (a writeUTF) in the tree.
  await page.locator('[data-testid=field]', { hasText: 'VALIDATION' }).locator('.twisty').click();
  const partitioner = page.locator('[data-testid=field]', { hasText: 'org.apache.cassandra.dht.ByteOrderedPartitioner' }).first();
  await partitioner.click();
  const span = await partitioner.getAttribute('data-span');
  const [start, end] = span.split('..').map(Number);
  assert.ok(end - start > 40, `partitioner span ${span}`);
  const lit = page.locator('[data-testid=hex-view] .byte.lit');
  await lit.first().waitFor();
  const litOffsets = (await lit.evaluateAll((els) => els.map((e) => Number(e.dataset.offset))));
  assert.equal(litOffsets[0], start);
  // The bytes shown are the file's: the 2-byte length then "org.apache…".
  const stats = fs.readFileSync(path.join(legacyTable(fixtures, 'nb', 'legacy_nb_clust'), 'nb-1-big-Statistics.db'));
  const shown = await lit.evaluateAll((els) => els.map((e) => parseInt(e.textContent, 16)));
  assert.deepEqual(shown, [...stats.subarray(start, start + shown.length)]);
  await page.screenshot({ path: path.join(OUT, 'component-view.png'), fullPage: true });
  // Clicking a byte of the bloom FP chance selects that field.
  const fp = page.locator('[data-testid=field]', { hasText: /^bloom filter fp chance/ }).first();
  const fpSpan = (await fp.getAttribute('data-span')).split('..').map(Number);
  // Select something else first, so the byte click is what selects the FP chance.
  await partitioner.click();
  await page.locator(`[data-testid=hex-view] .byte[data-offset="${fpSpan[0] + 3}"]`).click();
  const selected = await page.locator('[data-testid=selected-field]').textContent();
  assert.match(selected, /0\.01/);
  assert.deepEqual(errors, []);
});

test('bloom lab: keys the SSTable holds are maybe-present with their probed bits; others absent', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  const verdict = async (key) => {
    await page.locator('[data-testid=bloom-key]').fill(key);
    return (await page.locator('[data-testid=bloom-verdict]').textContent()).trim();
  };
  // MANIFEST §6: bloom-filter/la holds int keys 1..10 (Murmur3); 2.2 records no key type, so hex.
  await inputFiles(page, 'file-input', filesIn(path.join(fixtures, 'other', 'bloom-filter', 'la', 'foo')));
  await page.locator('[data-testid=tab-bloom]').click();
  await page.locator('[data-testid=bloom-lab]').waitFor();
  const hex = (k) => '0x' + k.toString(16).padStart(8, '0');
  for (let k = 1; k <= 10; k++) {
    assert.match(await verdict(hex(k)), /^maybe present/, `key ${k}`);
    assert.equal(await page.locator('[data-testid=bloom-probe]').count(), 5);
  }
  let absent = 0;
  for (let k = 11; k <= 40; k++) if ((await verdict(hex(k))).startsWith('absent')) absent++;
  assert.ok(absent >= 25, `only ${absent} of 30 absent keys tested absent`);
  await page.screenshot({ path: path.join(OUT, 'bloom-lab.png'), fullPage: true });

  // A 3.0 table with an int key (MANIFEST §6 negative-local-expiration table1: keys 1 and 2):
  // keys are typed as cqlsh prints them.
  await inputFiles(page, 'file-input', filesIn(path.join(fixtures, 'other', 'negative-local-expiration-test', 'table1')));
  await page.locator('[data-testid=tab-bloom]').click();
  assert.match(await verdict('1'), /^maybe present/);
  // Murmur3 token of int 1 (bytes 00000001), as Cassandra computes it.
  assert.equal((await page.locator('[data-testid=bloom-token]').textContent()).trim(), '-4069959284402364209');
  assert.match(await verdict('2'), /^maybe present/);
  await page.locator('[data-testid=bloom-key]').fill('not-an-int');
  assert.match(await page.locator('[data-testid=bloom-error]').textContent(), /int/i);
  assert.deepEqual(errors, []);
});

const VAL = {
  nb: 'lxvwpnwfbdpmayjujittwghygywemwpvlemfkutzstfbiednkferyifrvvauhpdowraebccylljbibrbolnnoifwjkspqzgjdihyknypyzricuymwknfitpvjmvpcxob',
  da: 'wxappmnfhjwtvqhxcmeeupmryhmmvjmcxrcbvtxfdyeaxbeemxusoynrkhgatseiqrrcseynuwevqdipsgplgvqcelsjdtlkeetrcufulrzonyuscrlbowotizznpmcd',
};

for (const [version, table, rowsPer, val] of [
  ['nb', 'legacy_nb_clust', 50, VAL.nb],
  ['da', 'legacy_da_clust', 50, VAL.da],
  ['oa', 'legacy_oa_simple', 1, 'foo bar baz'],
]) {
  test(`data browser: ${table} shows keys "0".."4", ${rowsPer} rows each, val from MANIFEST`, async (t) => {
    const fixtures = fixturesOrSkip(t);
    if (!fixtures) return;
    const { page, errors } = await openPage(browser);
    await inputFiles(page, 'file-input', filesIn(legacyTable(fixtures, version, table)));
    await page.locator('[data-testid=tab-data]').click();
    const partitions = page.locator('[data-testid=partition]');
    await page.locator('[data-testid=data-timing]').waitFor();
    assert.deepEqual(await page.locator('[data-testid=partition-key]').allTextContents(), ['0', '1', '2', '3', '4']);
    for (let i = 0; i < 5; i++) {
      // Every row decoded; a partition's rows are laid out a few a frame up to 20, then 20 more
      // each time its box is scrolled near its end.
      const box = partitions.nth(i).locator('[data-testid=rows-scroll]');
      assert.equal(Number(await box.getAttribute('data-rows')), rowsPer);
      for (let shown = 0; shown < rowsPer;) {
        await box.evaluate((el) => { el.scrollTop = el.scrollHeight; el.dispatchEvent(new Event('scroll')); });
        await page.waitForFunction((el) => Number(el.dataset.rowsShown) > 0, await box.elementHandle());
        const now = Number(await box.getAttribute('data-rows-shown'));
        if (now === shown) await page.waitForTimeout(50); else shown = now;
      }
      assert.equal(await partitions.nth(i).locator('[data-testid=row]').count(), rowsPer);
    }
    const cells = await partitions.first().locator('[data-testid=cell]').allTextContents();
    assert.equal(cells.length, rowsPer);
    assert.ok(cells.every((c) => c === val), `val ${cells[0]}`);
    if (version === 'nb') await page.screenshot({ path: path.join(OUT, 'data-browser.png'), fullPage: false });
    // Jump to one partition by key.
    await page.locator('[data-testid=data-key]').fill('3');
    await page.locator('[data-testid=data-jump]').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=partition]').length === 1);
    assert.deepEqual(await page.locator('[data-testid=partition-key]').allTextContents(), ['3']);
    // Found through the SSTable's index, not by a scan: the read path names the index component.
    const steps = (await page.locator('[data-testid=read-step]').allTextContents()).join('\n');
    assert.match(steps, version === 'da' ? /Partitions\.db/ : /Index\.db/, steps);
    assert.match(steps, /Data\.db/, steps);
    await page.locator('[data-testid=data-key]').fill('5');
    await page.locator('[data-testid=data-jump]').click();
    await page.locator('[data-testid=data-error]').waitFor();
    assert.match(await page.locator('[data-testid=data-error]').textContent(), /^not in this SSTable/);
    await page.locator('[data-testid=data-key]').fill('3');
    await page.locator('[data-testid=data-jump]').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=partition]').length === 1);
    // A CREATE TABLE names the key; a wrong type is reported against the header.
    await page.locator('.schema-box summary').click();
    await page.locator('[data-testid=data-schema]').fill('CREATE TABLE t (pk int, val text, PRIMARY KEY (pk))');
    // The statement is parsed and checked in a worker: wait for its answer.
    await page.locator('[data-testid=schema-mismatch]').first().waitFor();
    const mismatch = await page.locator('[data-testid=schema-mismatch]').allTextContents();
    assert.ok(mismatch.some((m) => m.includes('partition key pk: the statement says int, the SSTable text')), mismatch.join('|'));
    assert.equal((await page.locator('[data-testid=partition-key]').textContent()).trim(), 'pk = 3');
    assert.deepEqual(errors, []);
  });
}

test('trust: no network request after load, connections forbidden; exports are the CLI JSON shapes', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  // Loaded: the app and its workers. The pool starts its other workers after the sample's answer
  // (web/src/pool.rs), and once all have fetched their code the app forbids connections (a
  // second Content-Security-Policy meta); from then on nothing may be requested.
  await page.waitForFunction(() => document.querySelectorAll('meta[http-equiv="Content-Security-Policy"]').length >= 2);
  const requests = [];
  page.on('request', (r) => { if (!r.url().startsWith('blob:') && !r.url().startsWith('data:')) requests.push(r.url()); });
  await inputFiles(page, 'file-input', filesIn(legacyTable(fixtures, 'nb', 'legacy_nb_clust')));
  await page.locator('[data-testid=sstable]').waitFor();
  for (const tab of ['components', 'data', 'bloom', 'sstables']) await page.locator(`[data-testid=tab-${tab}]`).click();
  const attempt = await page.evaluate(() => fetch('./index.html').then(() => 'connected', () => 'blocked'));
  assert.equal(attempt, 'blocked');
  assert.deepEqual(requests.filter((u) => !u.endsWith('/index.html')), []);
  // The info export is the array `sstable-inspect info --json` prints.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=export-info]').click()]);
  const info = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  assert.equal(info.length, 1);
  assert.equal(info[0].version, 'nb');
  assert.equal(info[0].validation.partitioner, 'org.apache.cassandra.dht.ByteOrderedPartitioner');
  assert.equal(info[0].compression.chunk_count, 21);
  assert.equal(info[0].digest.value, '2568411107');
  await page.locator('[data-testid=tab-data]').click();
  await page.locator('[data-testid=data-timing]').waitFor();
  const [dumpDownload] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=export-dump]').click()]);
  const dump = JSON.parse(fs.readFileSync(await dumpDownload.path(), 'utf8'));
  assert.deepEqual(dump.map((p) => p.partition.key[0]), ['0', '1', '2', '3', '4']);
  assert.equal(dump[0].rows.length, 50);
  assert.equal(dump[0].rows[0].cells[0].value, VAL.nb);
  assert.deepEqual(errors, []);
});

test('the embedded sample (written by our own writer) is decoded on first load and on demand', async () => {
  const { page, errors } = await openPage(browser);
  const card = page.locator('[data-testid=sstable]');
  assert.equal(await card.count(), 1);
  assert.deepEqual(await cardFacts(card.first()), { prefix: 'sample/oa-1-big', version: 'oa', format: 'big', generation: '1', components: 8 });
  assert.equal((await card.locator('[data-testid=partitioner]').textContent()).trim(), 'Murmur3Partitioner');
  assert.equal((await card.locator('[data-testid=estimated-partitions]').textContent()).trim(), '20');
  assert.equal((await card.locator('[data-testid=digest]').textContent()).trim(), 'CRC32 4280019988');
  await page.locator('[data-testid=tab-data]').click();
  await page.locator('[data-testid=data-timing]').waitFor();
  assert.equal(await page.locator('[data-testid=partition]').count(), 10);
  assert.deepEqual(errors, []);
});

test('verification: nb_clust valid, 21 green chunks, timings; a flipped byte turns exactly chunk 1 red', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  const table = legacyTable(fixtures, 'nb', 'legacy_nb_clust');
  await inputFiles(page, 'file-input', filesIn(table));
  assert.match(await verifyNow(page), /^valid/);
  const chunks = page.locator('[data-testid=chunk]');
  assert.equal(await chunks.count(), 21);
  assert.equal(await page.locator('[data-testid=chunk][data-ok=false]').count(), 0);
  const checks = await page.locator('[data-testid=verify-check]').evaluateAll((rows) => rows.map((r) => r.dataset.ok));
  assert.ok(checks.length >= 3 && checks.every((ok) => ok === 'true'), checks.join());
  const phases = await page.locator('[data-testid=timing]').evaluateAll((rows) => rows.map((r) => r.dataset.phase));
  assert.ok(phases.includes('read') && phases.includes('checksum'), phases.join());
  await page.locator('[data-testid=tab-sstables]').click();
  assert.equal((await page.locator('[data-testid=verify-status]').textContent()).trim(), 'checksums valid');

  // MANIFEST §7: chunk 1 covers bytes [424, 836); flip one of its compressed bytes.
  const broken = copyTable(table, { file: 'Data.db', offset: 600 });
  await inputFiles(page, 'file-input', filesIn(broken));
  assert.match(await verifyNow(page), /^INVALID/);
  const red = await page.locator('[data-testid=chunk][data-ok=false]').evaluateAll((els) => els.map((e) => Number(e.dataset.chunk)));
  assert.deepEqual(red, [1]);
  await page.locator('[data-testid=chunk][data-chunk="1"]').click();
  const detail = await page.locator('[data-testid=chunk-detail]').textContent();
  assert.match(detail, /chunk 1/);
  assert.match(detail, /bytes 424\.\.832/);
  assert.match(detail, /overlapping partitions: 0/);
  await page.screenshot({ path: path.join(OUT, 'verification.png'), fullPage: true });
  const failed = await page.locator('[data-testid=verify-check][data-ok=false] td:first-child').allTextContents();
  assert.deepEqual(failed.sort(), ['Data.db', 'Digest.crc32']);
  assert.deepEqual(errors, []);
});

test('a ka table: the Digest.sha1 of legacy_ka_14912 (a decimal Adler32) does not match its Data.db', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(legacyTable(fixtures, 'ka', 'legacy_ka_14912')));
  const card = page.locator('[data-testid=sstable]');
  assert.equal((await card.locator('[data-testid=partitioner]').textContent()).trim(), 'ByteOrderedPartitioner');
  assert.match((await card.locator('[data-testid=compressor]').textContent()).trim(), /^LZ4Compressor 64 KiB/);
  assert.match(await verifyNow(page), /^INVALID/);
  const failedRow = page.locator('[data-testid=verify-check][data-ok=false]');
  assert.equal(await failedRow.count(), 1);
  assert.match(await failedRow.textContent(), /Digest\.sha1.*expected 2565739962 actual 4125366287/);
  assert.deepEqual(errors, []);
});

test('a whole version directory (oa): four SSTables side by side, each decoded and valid', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'dir-input', path.join(fixtures, 'legacy-sstables', 'oa'));
  assert.equal(await page.locator('[data-testid=overview-row]').count(), 4);
  assert.deepEqual(new Set(await page.locator('[data-testid=partitioner]').allTextContents()), new Set(['ByteOrderedPartitioner']));
  const rows = page.locator('[data-testid=overview-row]');
  for (let i = 0; i < 4; i++) {
    await page.locator('[data-testid=tab-sstables]').click();
    await rows.nth(i).click();
    assert.match(await verifyNow(page), /^valid/, `sstable ${i}`);
  }
  await page.locator('[data-testid=tab-sstables]').click();
  assert.deepEqual(await page.locator('[data-testid=verify-status]').allTextContents(), Array(4).fill('checksums valid'));
  assert.deepEqual(errors, []);
});

test('a generated large SSTable verifies with progress while the page stays responsive', async (t) => {
  const large = process.env.E2E_LARGE_SSTABLE;
  if (!large) { t.skip('E2E_LARGE_SSTABLE not set'); return; }
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(large));
  const dataSize = fs.statSync(path.join(large, 'oa-1-big-Data.db')).size;
  assert.ok(dataSize > 48 * 1024 * 1024, `Data.db is only ${dataSize} bytes`);
  await page.locator('[data-testid=tab-verify]').click();
  await page.locator('[data-testid=verify-baseline]').check();
  // Every progress value the page renders, seen by a MutationObserver set up before the start
  // (sampling from here misses them when the workers finish the file in a few hundred ms).
  await page.evaluate(() => {
    window.__progressSeen = new Set();
    const note = () => document.querySelectorAll('[data-testid=verify-progress]').forEach((p) => window.__progressSeen.add(p.getAttribute('value')));
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['value'] });
  });
  await page.locator('[data-testid=verify-start]').click();
  let worstFrameMs = 0;
  while (!(await page.locator('[data-testid=verify-badge]').count())) {
    // The page answers: a frame is painted and an input event handled within a short time.
    const ms = await page.evaluate(() => new Promise((r) => { const t0 = performance.now(); requestAnimationFrame(() => r(performance.now() - t0)); }));
    worstFrameMs = Math.max(worstFrameMs, ms);
    await page.waitForTimeout(50);
  }
  assert.match((await page.locator('[data-testid=verify-badge]').textContent()).trim(), /^valid/);
  // Progress shown on the way: at least one value strictly between 0 and the whole file (the
  // pool splits this file across its workers, which report every 16 MiB read).
  const total = Number(await page.evaluate(() => document.querySelector('[data-testid=verify-progress]')?.getAttribute('max') ?? 0)) || dataSize;
  const progress = (await page.evaluate(() => [...window.__progressSeen])).map(Number).filter((v) => v > 0 && v < total);
  assert.ok(progress.length >= 1, `no progress value between 0 and ${total} was rendered`);
  assert.ok(worstFrameMs < 1000, `a frame took ${worstFrameMs} ms`);
  const memory = await page.evaluate(() => window.wasmBindings.wasm_memory_bytes());
  assert.ok(memory < 256 * 1024 * 1024, `wasm memory ${memory} bytes`);
  const timing = async (phase) => (await page.locator(`[data-testid=timing][data-phase=${phase}] td`).allTextContents()).map((s) => s.trim());
  const [checksum, raw] = [await timing('checksum'), await timing('raw-crc32')];
  assert.equal(raw.length, 5, 'the raw crc32fast baseline is shown');
  const ms = (row) => parseFloat(row[1]);
  const ratio = ms(raw) / ms(checksum);
  // The figures for the README's performance section (no timed assertion).
  console.log(`BENCH browser: Data.db ${dataSize} bytes; checksum phase ${checksum[3]}, raw crc32fast ${raw[3]} ` +
    `(checksum = ${ratio.toFixed(2)} x raw crc32fast); read ${(await timing('read'))[3]}; wasm memory ${memory} bytes; worst frame ${worstFrameMs.toFixed(1)} ms`);
  assert.deepEqual(errors, []);
});

test('index view: Index.db lists keys "0".."4" at the Data.db positions; a partition shows its row-index blocks', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(legacyTable(fixtures, 'nb', 'legacy_nb_clust')));
  // Data.db positions of the five partitions, as the data browser decodes them.
  await page.locator('[data-testid=tab-data]').click();
  await page.locator('[data-testid=data-timing]').waitFor();
  const positions = await page.locator('[data-testid=partition]').evaluateAll((ps) =>
    ps.map((p) => p.querySelector('h3 .muted').textContent.match(/at (\d+)/)[1]));
  await page.locator('[data-testid=tab-index]').click();
  await page.locator('[data-testid=index-timing]').waitFor();
  assert.deepEqual(await page.locator('[data-testid=index-key]').allTextContents(), ['0', '1', '2', '3', '4']);
  assert.deepEqual(await page.locator('[data-testid=index-position]').allTextContents(), positions);
  const blockCount = Number((await page.locator('[data-testid=index-row]').first().locator('td').nth(4).textContent()).trim());
  assert.ok(blockCount >= 2, `blocks ${blockCount}`);
  await page.locator('[data-testid=index-row]').first().click();
  // The blocks are read in a worker.
  await page.locator('[data-testid=index-block]').first().waitFor();
  assert.equal(await page.locator('[data-testid=index-block]').count(), blockCount);
  assert.match(await page.locator('[data-testid=index-block]').first().textContent(), /0123456789/);
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=export-index]').click()]);
  const listing = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  assert.deepEqual(listing.map((r) => r.key), ['0', '1', '2', '3', '4']);
  assert.deepEqual(errors, []);
});

test('index view pages: the 900 partitions of jb Standard1 ("100".."999", MANIFEST §5) as a page of 500 and a page 2 of 400', async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  const { page, errors } = await openPage(browser);
  await inputFiles(page, 'file-input', filesIn(path.join(fixtures, 'legacy-sstables', 'jb', 'Keyspace1')));
  await page.locator('[data-testid=tab-index]').click();
  await page.locator('[data-testid=index-view][data-page="0"] [data-testid=index-row]').first().waitFor();
  const first = await page.locator('[data-testid=index-key]').allTextContents();
  assert.equal(first.length, 500);
  assert.equal(await page.locator('[data-testid=index-prev]').isDisabled(), true);
  await page.locator('[data-testid=index-next]').click();
  await page.locator('[data-testid=index-view][data-page="1"] [data-testid=index-row]').first().waitFor();
  const second = await page.locator('[data-testid=index-key]').allTextContents();
  assert.equal(second.length, 400);
  assert.equal(await page.locator('[data-testid=index-next]').isDisabled(), true);
  assert.match(await page.locator('[data-testid=index-timing]').textContent(), /partitions 500–899 of 900/);
  const all = [...first, ...second].sort();
  assert.deepEqual(all, Array.from({ length: 900 }, (_, i) => String(100 + i)));
  // Back to page 1: the same 500 keys.
  await page.locator('[data-testid=index-prev]').click();
  await page.locator('[data-testid=index-view][data-page="0"] [data-testid=index-row]').first().waitFor();
  assert.deepEqual(await page.locator('[data-testid=index-key]').allTextContents(), first);
  assert.deepEqual(errors, []);
});

test('hosting: the same build works from a sub-path of a static host', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(new URL('static-host/sub/path/', BASE_URL).href);
  await page.waitForSelector('[data-testid=summary][data-sstables="sample/oa-1-big"]');
  assert.equal((await page.locator('[data-testid=digest]').textContent()).trim(), 'CRC32 4280019988');
  assert.deepEqual(errors, []);
});
