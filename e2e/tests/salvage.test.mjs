// End-to-end: Salvage (#28) — the engine's scrub in a worker on an SSTable with one flipped byte in
// one chunk. The page's report names exactly the partitions `sstable-inspect scrub --json` names on
// the same bytes, the files it offers are the CLI's files byte for byte, and loaded back into the
// page they verify valid. No UI-thread task over the limit while it runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  launch, cli, openObserved, inputFiles, filesIn, fixturesOrSkip, legacyTable, OUT, longTasksDuring, expectNoLongTasks,
  copyTable, verifyNow,
} from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => browser?.close());

/** The files of an uncompressed tar: name → bytes (ustar headers, 512-byte blocks). */
function untar(bytes) {
  const files = new Map();
  for (let at = 0; at + 512 <= bytes.length;) {
    const header = bytes.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const name = header.subarray(0, 100).toString('latin1').replace(/\0.*$/s, '');
    const size = parseInt(header.subarray(124, 136).toString('latin1').replace(/\0.*$/s, ''), 8);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : header[i];
    assert.equal(parseInt(header.subarray(148, 154).toString('latin1'), 8), sum, `${name}: header checksum`);
    files.set(name, bytes.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

test('Salvage: nb_clust with a byte of chunk 1 flipped — the CLI scrub\'s partitions reported, its files offered, valid when loaded back', { timeout: 300000 }, async (t) => {
  const fixtures = fixturesOrSkip(t);
  if (!fixtures) return;
  if (!cli()) { t.skip('sstable-inspect not built (set SSTABLE_INSPECT)'); return; }
  // MANIFEST §7: chunk 1 of legacy_nb_clust covers bytes [424, 836) of Data.db.
  const broken = copyTable(legacyTable(fixtures, 'nb', 'legacy_nb_clust'), { file: 'Data.db', offset: 600 });
  const cliOut = path.join(OUT, 'salvage-cli');
  fs.rmSync(cliOut, { recursive: true, force: true });
  const run = spawnSync(cli(), ['scrub', '--json', '--version', 'nb', '--out', cliOut, path.join(broken, 'nb-1-big-Data.db')], { encoding: 'utf8' });
  assert.equal(run.status, 1, run.stderr);
  const expected = JSON.parse(run.stdout);
  assert.ok(expected.problems.length > 0, 'the CLI names the partitions of the broken chunk');
  assert.ok(expected.problems.every((p) => p.kind === 'chunk_checksum'), JSON.stringify(expected.problems));

  const { page, errors } = await openObserved(browser);
  await inputFiles(page, 'file-input', filesIn(broken));
  assert.match(await verifyNow(page), /^INVALID/);
  const salvage = page.locator('[data-testid=salvage]');
  assert.equal((await salvage.locator('[data-testid=salvage-start]').textContent()).trim(), 'Salvage');
  const long = await longTasksDuring(page, async () => {
    await salvage.locator('[data-testid=salvage-start]').click();
    await salvage.locator('[data-testid=salvage-report]').waitFor({ timeout: 120000 });
  });
  await expectNoLongTasks(t, long, 'while salvaging');
  await page.screenshot({ path: path.join(OUT, 'salvage-report.png'), fullPage: true });
  const report = salvage.locator('[data-testid=salvage-report]');
  assert.equal(await report.getAttribute('data-clean'), 'false');
  assert.equal(Number(await report.getAttribute('data-read')), expected.partitions_read);
  assert.equal(Number(await report.getAttribute('data-kept')), expected.partitions_kept);
  const problems = await report.locator('[data-testid=salvage-problem]').evaluateAll(
    (rows) => rows.map((r) => ({ key: r.dataset.key, start: Number(r.dataset.start) })));
  assert.deepEqual(problems, expected.problems.map((p) => ({ key: p.key ?? '(unknown)', start: p.start })));

  // Each file, downloaded: the CLI's files, byte for byte.
  const outDir = path.join(OUT, 'salvage-page');
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const buttons = report.locator('[data-testid=salvage-file]');
  const names = await buttons.evaluateAll((bs) => bs.map((b) => b.dataset.name));
  const cliFiles = expected.files.flat().map((f) => path.basename(f)).sort();
  assert.deepEqual([...names].sort(), cliFiles);
  for (let i = 0; i < names.length; i++) {
    const [download] = await Promise.all([page.waitForEvent('download'), buttons.nth(i).click()]);
    assert.equal(download.suggestedFilename(), names[i]);
    await download.saveAs(path.join(outDir, names[i]));
    assert.ok(fs.readFileSync(path.join(outDir, names[i])).equals(fs.readFileSync(path.join(cliOut, names[i]))), `${names[i]} equals the CLI's`);
  }
  // The same files in one tar.
  const [tarDownload] = await Promise.all([page.waitForEvent('download'), report.locator('[data-testid=salvage-download-all]').click()]);
  const tar = untar(fs.readFileSync(await tarDownload.path()));
  assert.deepEqual([...tar.keys()].sort(), cliFiles);
  for (const [name, bytes] of tar) assert.ok(Buffer.from(bytes).equals(fs.readFileSync(path.join(outDir, name))), `${name} in the tar`);

  // Loaded back into the page: valid.
  await inputFiles(page, 'file-input', filesIn(outDir));
  assert.match(await verifyNow(page), /^valid/);
  await page.screenshot({ path: path.join(OUT, 'salvage.png'), fullPage: true });
  assert.deepEqual(errors, []);
});

test('Rewrite of the large generated SSTable (64 MiB of Data.db): every partition kept, the worker\'s memory bounded, not the file\'s size', { timeout: 600000 }, async (t) => {
  const large = process.env.E2E_LARGE_SSTABLE;
  if (!large) { t.skip('E2E_LARGE_SSTABLE not set'); return; }
  const dataBytes = fs.statSync(filesIn(large).find((f) => f.endsWith('Data.db'))).size;
  const { page, errors } = await openObserved(browser);
  await inputFiles(page, 'file-input', filesIn(large));
  await page.locator('[data-testid=tab-verify]').click();
  const salvage = page.locator('[data-testid=salvage]');
  assert.equal((await salvage.locator('[data-testid=salvage-start]').textContent()).trim(), 'Rewrite');
  await salvage.locator('[data-testid=salvage-start]').click();
  const report = salvage.locator('[data-testid=salvage-report]');
  await report.waitFor({ timeout: 540000 });
  // xtask's `generate --partitions 470 --rows-per-partition 1000`: every partition read and kept.
  assert.equal(await report.getAttribute('data-clean'), 'true');
  assert.equal(Number(await report.getAttribute('data-read')), 470);
  assert.equal(Number(await report.getAttribute('data-kept')), 470);
  // The worker's WebAssembly memory only grows: after the rewrite it is the worker's peak. It
  // holds one partition (~144 KB here), the reads and the writer's buffers, never the file.
  const memory = Number(await report.getAttribute('data-wasm-memory'));
  console.log(`rewrite of the large SSTable: Data.db ${dataBytes} bytes, the worker's wasm memory after it ${memory} bytes`);
  assert.ok(memory > 0 && memory < 32 * 1024 * 1024 && memory < dataBytes / 2, `worker memory ${memory} bytes for a ${dataBytes}-byte Data.db`);
  assert.deepEqual(errors, []);
});
