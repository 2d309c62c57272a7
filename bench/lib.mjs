// Shared bench helpers: a seeded generator, a median, and timing a child process and its peak memory (VmHWM from
// /proc, polled).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A seeded uniform generator (mulberry32): fast enough for millions of draws, and the same draws every run. */
export function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs a command; resolves with wall ms, exit code and peak RSS in MB (Linux; NaN elsewhere). */
export function measure(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let peakKb = Number.NaN;
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peakKb = Math.max(Number.isNaN(peakKb) ? 0 : peakKb, Number(m[1]));
      } catch {
        /* exited */
      }
    }, 20);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({ ms: performance.now() - t0, code, peakMb: peakKb / 1024, stdout: out, stderr: err });
    });
  });
}
