// bench/startup: what skillprobe costs before it does any work, bundled (dist/cli.js, what the package's bin runs) beside
// the same command from tsc's modules (dist/cli/main.js, about 900 files with its dependencies), alternated over
// rounds. Each process reports its own CPU time at exit. Target: the bundle at most half the modules' CPU.
import { execa } from 'execa';
import { join } from 'node:path';
import { median } from './lib.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const ROUNDS = Number(process.env.STARTUP_ROUNDS ?? 15);
const REPORT_CPU =
  "data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\ncpu '+(u.user+u.system)/1000)})";
const MODULES = `import { main } from ${JSON.stringify(join(ROOT, 'dist/cli/main.js'))}; process.exitCode = await main(process.argv.slice(1), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });`;

async function cpuMs(args) {
  const r = await execa('node', ['--import', REPORT_CPU, ...args], { cwd: ROOT, reject: false });
  return Number(/cpu ([\d.]+)/.exec(r.stderr)?.[1]);
}

export async function benchStartup() {
  const sides = {
    bundle: (cmd) => cpuMs([join(ROOT, 'dist/cli.js'), ...cmd]),
    modules: (cmd) => cpuMs(['--input-type=module', '-e', MODULES, '--', ...cmd]),
  };
  const out = {};
  for (const [name, cmd] of [
    ['--version', ['--version']],
    ['run --help', ['run', '--help']],
  ]) {
    const times = { bundle: [], modules: [] };
    for (let i = 0; i < ROUNDS; i++) for (const side of Object.keys(sides)) times[side].push(await sides[side](cmd));
    out[name] = { bundle: median(times.bundle), modules: median(times.modules) };
  }
  return out;
}

export function printStartup(r) {
  console.log("\n== startup: CPU before any work, bundled dist/cli.js beside tsc's modules (median over rounds) ==");
  for (const [cmd, { bundle, modules }] of Object.entries(r))
    console.log(
      `  ${cmd.padEnd(12)} bundle ${bundle.toFixed(0)} ms · modules ${modules.toFixed(0)} ms · ratio ${(bundle / modules).toFixed(2)} (target ≤ 0.50)`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) printStartup(await benchStartup());
