// `npm run bench`: a paper-scale round-robin of every deterministic strategy in one thread, the
// market game, what WebLLM's grammar compile costs a first move (--grammar-only for that alone), and
// the first page's gzipped JavaScript.
import os from 'node:os';
import { z } from 'zod';
import { Aggregator } from '../games/bilateral/aggregate';
import type { NegotiationResult, TournamentConfig } from '../games/bilateral/tournament';
import { OracleScorer } from '../games/bilateral/oracle-agents';
import { scenarioAt } from '../games/bilateral/scenario';
import { playReference, REFERENCE_STRATEGIES, type ReferenceOutcome } from './bench-reference';
import { makeAgent } from '../games/bilateral/registry';
import { STRATEGIES } from '../games/bilateral/strategies';
import { helpText, intFlag, parseFlags, rangeOf, UsageError, wantsHelp } from './args';
import { MarketRunConfigSchema } from '../storage/market-schema';
import { TournamentConfigSchema } from '../storage/schema';
import { benchMarkets } from './bench-market';
import { benchGrammar } from './bench-grammar';
import { runTournament } from '../engine/tournament';
import { bilateralGame } from '../games/bilateral/game';
import { describeFirstPage, measureFirstPage } from './bench-bundle';

/** Timed repeats: the bench's own value, so its limit is written here and read by the flag. */
const RepeatsSchema = z.int().min(1).max(100);
const agents = STRATEGIES.filter((s) => s.deterministic).map((s) => s.name);
const pairs = agents.length * (agents.length - 1);
const bench = {
  name: 'bench',
  invocation: 'npm run bench --',
  summary:
    "A paper-scale round-robin of every deterministic strategy in one thread, the market game, what WebLLM's grammar compile costs a first move, and the first page's gzipped JavaScript.",
  example: 'npm run bench -- --scenarios 100 --repeats 1 --no-grammar',
  flags: {
    // 15,000 negotiations by default: the size of a published frontier-model tournament.
    scenarios: {
      kind: 'int',
      value: 'N',
      ...rangeOf(TournamentConfigSchema.out.shape.scenariosPerPair),
      default: Math.ceil(15_000 / pairs),
      help: 'scenarios per ordered pair',
    },
    repeats: { kind: 'int', value: 'N', ...rangeOf(RepeatsSchema), default: 5, help: 'timed repeats' },
    samples: { kind: 'int', value: 'N', ...rangeOf(MarketRunConfigSchema.shape.samples), default: 1000, help: 'bootstrap resamples' },
    'grammar-only': { kind: 'switch', help: "only the grammar's compile time" },
    'no-grammar': { kind: 'switch', help: 'no grammar compile time' },
    'grammar-limit': { kind: 'switch', help: "also the grammar with the message's old maxLength (slow)" },
  },
} as const;
if (wantsHelp(process.argv.slice(2))) {
  process.stdout.write(helpText(bench));
  process.exit(0);
}
const { args, scenariosPerPair, repeats, samples } = (() => {
  try {
    const args = parseFlags(process.argv.slice(2), bench);
    return { args, scenariosPerPair: intFlag(args, 'scenarios'), repeats: intFlag(args, 'repeats'), samples: intFlag(args, 'samples') };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`bench: error: ${e.message}\n`);
    process.exit(2);
  }
})();
const config: TournamentConfig = { agents, scenariosPerPair, preset: 'standard', seed: 7, selfPlay: false };

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(`machine: ${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`);
if (!args.switches.has('grammar-only')) await benchEngine();
// The grammar a WebLLM seat's first move waits for, with Qwen3's vocabulary (--grammar-limit: also with the message's old maxLength, slow).
if (!args.switches.has('no-grammar')) for (const line of await benchGrammar({ messageLimit: args.switches.has('grammar-limit') })) console.log(line);
// What a cold visit to Home downloads, from a production build made for it (last: the build would disturb the timed runs).
if (!args.switches.has('grammar-only')) console.log(describeFirstPage(await measureFirstPage()));

async function benchEngine(): Promise<void> {
  console.log(`round-robin: ${agents.length} strategies (${agents.join(', ')}), ${pairs} ordered pairs x ${scenariosPerPair} scenarios`);

  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)] as number;
  };

  // The one-loop reference plays the same scenarios; it must reach the same deals at the same prices.
  if (agents.join() !== REFERENCE_STRATEGIES.join()) throw new Error(`the reference plays ${REFERENCE_STRATEGIES.join(', ')}`);
  const engineOutcomes: ReferenceOutcome[] = [];
  const referenceRates: number[] = [];

  // CPU time of this process, in ms: on a shared machine it is what the engine and the reference
  // themselves cost, where wall time also counts the other work the machine is doing.
  const cpuMs = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const engineCpu: number[] = [];
  const referenceCpu: number[] = [];

  const playRates: number[] = [];
  const eventRates: number[] = [];
  const statsTimes: number[] = [];
  let negotiations = 0;
  // The first runs warm the JIT up (the first is also checked against the reference); only later runs count.
  const WARM_UP = 3;
  for (let r = 1 - WARM_UP; r <= repeats; r++) {
    // No forced collection between runs: a full gc() shrinks the young generation to its minimum, and the
    // many short-lived objects of the next run then pay for scavenges no real run sees (3× slower here).
    const aggregator = new Aggregator();
    let events = 0;
    const c0 = cpuMs();
    const t0 = performance.now();
    const summary = await runTournament(bilateralGame, config, makeAgent, {
      onResult: (res) => {
        events += res.events.length;
        if (r === 1 - WARM_UP) engineOutcomes.push(res.outcome.kind === 'deal' ? res.outcome.price : NaN);
        aggregator.add(res.buyer, res.seller, res.scenario, res.metrics);
      },
    });
    const t1 = performance.now();
    const c1 = cpuMs();
    aggregator.standings({ samples, seed: 7 });
    const t2 = performance.now();
    negotiations = summary.played;
    const reference: ReferenceOutcome[] = [];
    const c3 = cpuMs();
    const t3 = performance.now();
    const referencePlayed = playReference(config.scenariosPerPair, (k) => scenarioAt(config, k), REFERENCE_STRATEGIES, reference);
    const t4 = performance.now();
    const c4 = cpuMs();
    if (r === 1 - WARM_UP) {
      const differ = reference.findIndex((p, i) => !Object.is(p, engineOutcomes[i]));
      if (referencePlayed !== summary.played || differ >= 0)
        throw new Error(`the one-loop reference disagrees with the engine at negotiation ${differ} of ${summary.played}`);
    }
    if (r <= 0) continue; // warm-up
    referenceRates.push(referencePlayed / ((t4 - t3) / 1000));
    engineCpu.push(c1 - c0);
    referenceCpu.push(c4 - c3);
    const seconds = (t1 - t0) / 1000;
    playRates.push(summary.played / seconds);
    eventRates.push(events / seconds);
    statsTimes.push(t2 - t1);
    console.log(
      `run ${r}: ${summary.played} negotiations, ${events} events in ${(t1 - t0).toFixed(0)} ms; intervals ${(t2 - t1).toFixed(0)} ms; ` +
        `one-loop reference ${(t4 - t3).toFixed(1)} ms`,
    );
  }
  console.log(
    `median of ${repeats}: ${Math.round(median(playRates)).toLocaleString('en-US')} negotiations/s, ` +
      `${Math.round(median(eventRates)).toLocaleString('en-US')} events/s (played, scored and aggregated), ` +
      `intervals (paired by scenario; bootstrap of ${samples} for small cells) ${median(statsTimes).toFixed(0)} ms for ${negotiations} negotiations`,
  );
  console.log(
    `one-loop reference (same scenarios made the same way, same deals at the same prices, no events): ${Math.round(median(referenceRates)).toLocaleString('en-US')} negotiations/s; ` +
      `engine at ${((100 * median(playRates)) / median(referenceRates)).toFixed(1)}% of it by wall time, ` +
      `${((100 * median(referenceCpu)) / median(engineCpu)).toFixed(1)}% by CPU time (${median(engineCpu).toFixed(0)} ms against ${median(referenceCpu).toFixed(1)} ms)`,
  );

  // The oracle reference, a stage of its own after play (the app and the CLI run it on every
  // negotiation as they aggregate): one search per scenario, counterpart and role.
  // The results are gathered after the engine's runs, so that holding them cannot slow those.
  const firstResults: Pick<NegotiationResult, 'buyer' | 'seller' | 'scenario' | 'metrics'>[] = [];
  await runTournament(bilateralGame, config, makeAgent, {
    onResult: ({ buyer, seller, scenario, metrics }) => void firstResults.push({ buyer, seller, scenario, metrics }),
  });
  const oracleCpu: number[] = [];
  for (let r = 0; r < repeats + 2; r++) {
    const scorer = new OracleScorer();
    const c0 = cpuMs();
    for (const res of firstResults) scorer.score(res.buyer, res.seller, res.scenario, res.metrics);
    if (r >= 2) oracleCpu.push(cpuMs() - c0);
  }
  console.log(
    `oracle reference (each seat's best against its deterministic counterpart, searched per scenario, counterpart and role): ` +
      `${median(oracleCpu).toFixed(0)} ms CPU for ${firstResults.length} negotiations, ${((1000 * median(oracleCpu)) / firstResults.length).toFixed(1)} µs each`,
  );

  // The market game: scripted sellers at 10 × 10 and 20 × 20, and the optimal matching's cost.
  for (const line of benchMarkets()) console.log(line);
}
