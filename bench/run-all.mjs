// npm run bench: every benchmark, printed as ratios against its target, in one run.
import { benchDemo, printDemo } from './demo.mjs';
import { benchOverhead, printOverhead } from './overhead.mjs';
import { benchRegrade, printRegrade } from './regrade.mjs';
import { benchSequential, printSequential } from './sequential.mjs';
import { benchCompare, printCompare } from './compare.mjs';
import { benchCanary, printCanary } from './canary.mjs';
import { benchBaselineCanary, printBaselineCanary } from './baseline-canary.mjs';
import { benchTune, printTune } from './tune.mjs';
import { benchJudge, printJudge } from './judge.mjs';
import { benchJudgeReal, printJudgeReal } from './judge-real.mjs';
import { benchConcurrency, printConcurrency } from './concurrency.mjs';
import { benchConcurrencyReal, printConcurrencyReal } from './concurrency-real.mjs';
import { benchIsolationStop, printIsolationStop } from './isolation-stop.mjs';

printSequential(benchSequential());
printCompare(benchCompare());
printCanary(benchCanary());
printBaselineCanary(benchBaselineCanary());
printTune(benchTune());
printJudge(benchJudge());
printJudgeReal(await benchJudgeReal());
printConcurrency(benchConcurrency());
printIsolationStop(benchIsolationStop());
printConcurrencyReal(await benchConcurrencyReal());
printRegrade(await benchRegrade());
printOverhead(await benchOverhead());
printDemo(await benchDemo());
