import { writeSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

const SHOWN = 10;

/** A file's time in its worker: environment, harness, imports with suite callbacks, setup files, tests and hooks. */
export function workerMs(m: TestModule): number {
  const d = m.diagnostic();
  return d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
}

/** A file's time in its worker, and the CPU time it cost (unknown for a file that failed to load). */
export interface FileTime {
  file: string;
  pass: string;
  ms: number;
  cpuMs: number | undefined;
}

/**
 * The report's lines: the `shown` slowest files, then each pass (project) with its wall time, summed worker time and
 * CPU time. On a shared machine the wall and worker times say how loaded it was; the CPU times what the files cost.
 */
export function slowestFilesLines(
  files: ReadonlyArray<FileTime>,
  passes: ReadonlyArray<{ pass: string; wallMs: number }>,
  shown = SHOWN,
): string[] {
  const s = (ms: number | undefined) => (ms === undefined ? '?' : `${(ms / 1000).toFixed(1)} s`);
  const slowest = [...files].sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file)).slice(0, shown);
  const width = (texts: string[]) => Math.max(0, ...texts.map((t) => t.length));
  const [timeWidth, cpuWidth, passWidth] = [
    width(slowest.map((f) => s(f.ms))),
    width(slowest.map((f) => s(f.cpuMs))),
    width(slowest.map((f) => f.pass)),
  ];
  return [
    `${slowest.length} slowest test files (time in their worker, CPU time):`,
    ...slowest.map((f) => `  ${s(f.ms).padStart(timeWidth)}  ${s(f.cpuMs).padStart(cpuWidth)} CPU  ${f.pass.padEnd(passWidth)}  ${f.file}`),
    ...passes.map((p) => {
      const own = files.filter((f) => f.pass === p.pass);
      const sum = (ms: (f: FileTime) => number) => own.reduce((total, f) => total + ms(f), 0);
      return `pass ${p.pass}: ${s(p.wallMs)} wall, ${own.length} files, ${s(sum((f) => f.ms))} in workers, ${s(sum((f) => f.cpuMs ?? 0))} CPU`;
    }),
  ];
}

/** Prints, at the end of every run, the ten slowest test files and how long each pass took, so slow tests show in any log. */
export default class SlowestFilesReporter implements Reporter {
  private root = process.cwd();
  /** Per pass, when its first file was queued and its last one ended. */
  private readonly spans = new Map<string, { start: number; end: number }>();

  onInit(ctx: Vitest): void {
    this.root = ctx.config.root;
  }

  onTestModuleQueued(m: TestModule): void {
    const now = performance.now();
    const span = this.spans.get(m.project.name);
    if (span) span.start = Math.min(span.start, now);
    else this.spans.set(m.project.name, { start: now, end: now });
  }

  onTestModuleEnd(m: TestModule): void {
    const span = this.spans.get(m.project.name);
    if (span) span.end = Math.max(span.end, performance.now());
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (!modules.length) return;
    const files = modules.map((m) => ({
      file: relative(this.root, m.moduleId),
      pass: m.project.name,
      ms: workerMs(m),
      cpuMs: m.meta().cpuMs,
    }));
    const passes = [...this.spans].map(([pass, span]) => ({ pass, wallMs: span.end - span.start }));
    writeSync(1, `\n${slowestFilesLines(files, passes).join('\n')}\n`);
  }
}
