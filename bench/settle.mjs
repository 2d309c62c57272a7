// bench/settle: the demo through each real agent CLI against the simulator, with trials stopped once their outcome is
// settled and with `--no-settle`, on the same draws: model requests, output tokens and time per trigger-only trial and
// per verdict, where each trial's time goes, and whether the verdicts and every trial's outcome are the same.
// Targets (Claude Code): requests per trigger-only trial ≤ 0.55×, output tokens ≤ 0.5×, wall time per verdict ≤ 0.7×.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure } from './lib.mjs';
import { adapterFor } from '../dist/agents/registry.js';
import { settles } from '../dist/grade/settle.js';

const ROOT = new URL('..', import.meta.url).pathname;
const AGENTS = (process.env.SETTLE_AGENTS ?? 'claude-code,codex,gemini').split(',');
// A model's answer takes seconds; the demo profile answers at once. With this latency per request (Claude Code only)
// the bench shows what settling saves where model requests, not the CLI's start, take the time.
const LATENCY_MS = Number(process.env.SETTLE_LATENCY_MS ?? 1500);
const TARGETS = { requests: 0.55, output: 0.5, verdictTime: 0.7 };

/** One run of the demo; every trial with what it spent, read back from the run folder. */
async function demoRun(agent, settle, profile) {
  const work = mkdtempSync(join(tmpdir(), 'sp-bench-settle-'));
  try {
    const args = ['run', '--sim', profile, '--draw-seed', '1', '--no-gate', '--agent', agent, '--transcripts', work];
    const r = await measure('node', [join(ROOT, 'dist', 'cli.js'), ...args, ...(settle ? [] : ['--no-settle'])], { cwd: ROOT });
    if (r.code !== 0) throw new Error(`demo (${agent}) failed (exit ${r.code}): ${r.stderr.slice(-2000)}`);
    const dir = join(work, readdirSync(work)[0]);
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    const adapter = adapterFor(agent, 'bench');
    const defs = new Map(manifest.cases.defs.map((c) => [c.id, c]));
    const trials = results.outcomes.map((o) => {
      const base = join(dir, 'trials', o.caseId, o.arm, String(o.n));
      const meta = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8'));
      const t = adapter.parse(readFileSync(`${base}.jsonl`, 'utf8'), meta);
      const result = t.events.findLast((e) => e.kind === 'result');
      return {
        key: `${o.caseId}/${o.arm}/${o.n}`,
        triggerOnly: settles({ ...defs.get(o.caseId), settle: undefined }, o.arm),
        status: o.status,
        passed: o.passed,
        fired: o.fired,
        requests: o.requests,
        output: o.usage?.output,
        wallMs: o.wallMs,
        // The CLI's own time from its start of work to its result line: the rest of the trial is its start and exit.
        cliMs: result?.durationMs,
      };
    });
    return { seconds: r.ms / 1000, verdicts: results.verdicts.map((v) => `${v.caseId}:${v.verdict}`), trials };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The demo's profile with a latency before every answer, in a folder of its own (`dir`). */
function latencyProfile(ms, dir) {
  const text = readFileSync(join(ROOT, 'sim', 'demo.profile.yaml'), 'utf8');
  const file = join(dir, 'latency.profile.yaml');
  writeFileSync(file, `${text}\nprovider:\n  latency: { medianMs: ${ms}, p95Ms: ${ms * 2} }\n`);
  return file;
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const mean = (xs) => (xs.length ? sum(xs) / xs.length : NaN);

function compare(agent, label, off, on) {
  const byKey = new Map(off.trials.map((t) => [t.key, t]));
  const pairs = on.trials.map((t) => [byKey.get(t.key), t]).filter(([a]) => a);
  const differing = pairs.filter(([a, b]) => a.passed !== b.passed || a.fired !== b.fired).map(([, b]) => b.key);
  const trigger = pairs.filter(([a]) => a.triggerOnly);
  const settled = trigger.filter(([, b]) => b.status === 'settled');
  const ratio = (ps, f) => {
    const [a, b] = [ps.map(([x]) => f(x)), ps.map(([, y]) => f(y))];
    return a.some((x) => x === undefined) || b.some((x) => x === undefined) ? undefined : sum(b) / sum(a);
  };
  const startup = (ts) => mean(ts.filter((t) => t.cliMs !== undefined).map((t) => t.wallMs - t.cliMs));
  return {
    agent,
    label,
    trials: pairs.length,
    sameTrials: pairs.length === off.trials.length && pairs.length === on.trials.length,
    triggerOnly: trigger.length,
    settled: settled.length,
    requests: { all: ratio(trigger, (t) => t.requests), settled: ratio(settled, (t) => t.requests) },
    perTrial: { off: mean(trigger.map(([a]) => a.requests)), on: mean(trigger.map(([, b]) => b.requests)) },
    // No trial makes fewer than one request: the least any stopping rule could reach on this mix of trials.
    floor: trigger.length / sum(trigger.map(([a]) => a.requests)),
    output: { all: ratio(trigger, (t) => t.output), settled: ratio(settled, (t) => t.output) },
    trialTime: { all: ratio(trigger, (t) => t.wallMs), settled: ratio(settled, (t) => t.wallMs) },
    verdictTime: on.seconds / on.verdicts.length / (off.seconds / off.verdicts.length),
    seconds: { off: off.seconds, on: on.seconds },
    startupMs: { off: startup(off.trials), on: startup(on.trials) },
    trialMs: { off: mean(off.trials.map((t) => t.wallMs)), on: mean(on.trials.map((t) => t.wallMs)) },
    plainAnswers: trigger.filter(([a]) => a.requests === 1).length,
    sameVerdicts: JSON.stringify(off.verdicts) === JSON.stringify(on.verdicts),
    differing,
  };
}

export async function benchSettle() {
  const rows = [];
  const runs = AGENTS.map((agent) => ({ agent, label: 'demo profile', profile: 'sim/demo.profile.yaml' }));
  const scratch = mkdtempSync(join(tmpdir(), 'sp-bench-settle-profile-'));
  if (AGENTS.includes('claude-code') && LATENCY_MS > 0)
    runs.push({ agent: 'claude-code', label: `${LATENCY_MS} ms a request`, profile: latencyProfile(LATENCY_MS, scratch) });
  try {
    for (const { agent, label, profile } of runs) {
      const off = await demoRun(agent, false, profile);
      const on = await demoRun(agent, true, profile);
      rows.push(compare(agent, label, off, on));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return rows;
}

const x = (r) => (r === undefined ? 'not reported' : `${r.toFixed(2)}×`);

export function printSettle(rows) {
  console.log('\nbench/settle · the demo (SIMULATOR, real CLIs, same draws) with trials stopped once settled against --no-settle');
  for (const r of rows) {
    console.log(`  ${r.agent} · ${r.label} · ${r.trials} trials, ${r.triggerOnly} trigger-only, ${r.settled} of them settled`);
    console.log(
      `    model requests per trigger-only trial ${x(r.requests.all)} (${r.perTrial.off.toFixed(2)} → ${r.perTrial.on.toFixed(2)}; ` +
        `the settled alone ${x(r.requests.settled)}; ${r.plainAnswers} of ${r.triggerOnly} make one request either way, so no stop reaches below ` +
        `${r.floor.toFixed(2)}×) · target ≤ ${TARGETS.requests}×`,
    );
    console.log(
      `    output tokens per trigger-only trial ${x(r.output.all)} (the settled alone ${x(r.output.settled)}) · target ≤ ${TARGETS.output}×`,
    );
    console.log(
      `    time: per verdict ${r.verdictTime.toFixed(2)}× (run ${r.seconds.off.toFixed(0)} s → ${r.seconds.on.toFixed(0)} s) · target ≤ ${TARGETS.verdictTime}×; ` +
        `per trigger-only trial ${x(r.trialTime.all)} (the settled alone ${x(r.trialTime.settled)})`,
    );
    if (Number.isFinite(r.startupMs.off))
      console.log(
        `    where a trial's time goes: ${(r.trialMs.off / 1000).toFixed(1)} s a trial, ${(r.startupMs.off / 1000).toFixed(1)} s of it the CLI's start and exit ` +
          `(outside its own reported duration) with --no-settle; ${(r.trialMs.on / 1000).toFixed(1)} s and ${(r.startupMs.on / 1000).toFixed(1)} s settled`,
      );
    console.log(
      `    verdicts ${r.sameVerdicts ? 'identical' : 'DIFFER'}; per-trial outcomes ${r.differing.length ? `DIFFER: ${r.differing.join(', ')}` : 'identical'}` +
        `${r.sameTrials ? '' : ' (the runs ran different trials)'}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) printSettle(await benchSettle());
