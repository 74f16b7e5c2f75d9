// Shared by the browser benchmarks: CPU time per thread of the Chromium this node process
// launched (Linux /proc: utime + stime of /proc/PID/task/TID/stat), so a run's time can be
// accounted for on a machine that other work shares. `snapshot()` before and after, `diff()`
// groups the threads' CPU by process type and thread name (the browser process's threads, the
// renderer's main thread, each dedicated worker thread, …); for a worker thread also its time
// runnable but waiting for a CPU (/proc/…/schedstat) and, the rest of the wall time, blocked.
import fs from 'node:fs';
import os from 'node:os';

const TICK_MS = 10; // getconf CLK_TCK = 100 on Linux

function read(p) {
  try { return fs.readFileSync(p, 'latin1'); } catch { return null; }
}

/** `[ppid, utime + stime in ticks]` of a /proc stat line (fields after the comm's last ')'). */
function parseStat(s) {
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return [Number(f[1]), Number(f[11]) + Number(f[12])];
}

/** Every process below `root` (this node process by default) with its threads' CPU ticks. */
export function snapshot(root = process.pid) {
  const parent = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const s = read(`/proc/${d}/stat`);
    if (s) parent.set(Number(d), parseStat(s)[0]);
  }
  const below = (pid) => {
    for (let p = parent.get(pid); p; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  const threads = new Map();
  for (const pid of parent.keys()) {
    if (!below(pid)) continue;
    const cmd = (read(`/proc/${pid}/cmdline`) ?? '').split(/[\0 ]/);
    if (!cmd[0]?.includes('chrom')) continue;
    const type = (cmd.find((a) => a.startsWith('--type=')) ?? '--type=browser').slice(7);
    const util = cmd.find((a) => a.startsWith('--utility-sub-type='));
    const kind = util ? `${type}(${util.slice(19).split('.').pop()})` : type;
    let tasks = [];
    try { tasks = fs.readdirSync(`/proc/${pid}/task`); } catch { continue; }
    for (const tid of tasks) {
      const s = read(`/proc/${pid}/task/${tid}/stat`);
      if (!s) continue;
      const comm = (read(`/proc/${pid}/task/${tid}/comm`) ?? '?').trim();
      // schedstat: ns on a CPU, ns runnable but waiting for one (the run queue), timeslices.
      const sched = (read(`/proc/${pid}/task/${tid}/schedstat`) ?? '0 0 0').trim().split(' ').map(Number);
      threads.set(`${pid}/${tid}`, { pid, kind, comm, ticks: parseStat(s)[1], runNs: sched[0], waitNs: sched[1] });
    }
  }
  return { at: performance.now(), threads, machine: machineTicks() };
}

/** Busy and total ticks of the whole machine (/proc/stat's cpu line). */
function machineTicks() {
  const f = (read('/proc/stat') ?? '').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** CPU milliseconds between two snapshots: per thread (those that ran ≥ 10 ms), grouped by
 * process kind and thread name (a process's threads of one name summed, each worker thread
 * apart), the total, and the whole machine's busy cores over the interval. */
export function diff(a, b) {
  const rows = [];
  for (const [key, t] of b.threads) {
    const before = a.threads.get(key);
    const ms = (t.ticks - (before?.ticks ?? 0)) * TICK_MS;
    const queuedMs = (t.waitNs - (before?.waitNs ?? 0)) / 1e6;
    if (ms > 0) rows.push({ key, pid: t.pid, kind: t.kind, comm: t.comm, ms, queuedMs });
  }
  const groups = new Map();
  for (const r of rows) {
    // Worker threads one by one; the other threads of a process by name.
    // A worker thread's wall time is its CPU, its time runnable in the run queue (the machine
    // busy) and its time blocked (a synchronous read, a yield, no job).
    const name = /Worker/i.test(r.comm)
      ? `${r.kind} ${r.comm} ${r.key} (${r.queuedMs.toFixed(0)} ms waiting for a CPU, ${(b.at - a.at - r.ms - r.queuedMs).toFixed(0)} ms blocked)`
      : `${r.kind} ${r.comm}`;
    groups.set(name, (groups.get(name) ?? 0) + r.ms);
  }
  const wallMs = b.at - a.at;
  const total = rows.reduce((s, r) => s + r.ms, 0);
  const dm = { busy: b.machine.busy - a.machine.busy, total: b.machine.total - a.machine.total };
  return {
    wallMs,
    totalMs: total,
    byKind: Object.fromEntries([...new Set(rows.map((r) => r.kind))].map((k) => [k, rows.filter((r) => r.kind === k).reduce((s, r) => s + r.ms, 0)])),
    groups: [...groups].sort((x, y) => y[1] - x[1]),
    machineBusyCores: dm.total > 0 ? (dm.busy / dm.total) * os.cpus().length : 0,
  };
}

/** Lines for a `diff()`: the groups of ≥ `min` ms, the total, cores busy. */
export function report(d, min = 30) {
  const lines = d.groups.filter(([, ms]) => ms >= min).map(([g, ms]) => `      ${String(ms).padStart(6)} ms  ${(ms / d.wallMs).toFixed(2)} cores  ${g}`);
  lines.push(`      Chromium ${d.totalMs} ms CPU in ${d.wallMs.toFixed(0)} ms wall = ${(d.totalMs / d.wallMs).toFixed(2)} cores (` +
    Object.entries(d.byKind).map(([k, ms]) => `${k} ${ms}`).join(', ') + `); the machine ${d.machineBusyCores.toFixed(2)} of ${os.cpus().length} cores busy`);
  return lines;
}
