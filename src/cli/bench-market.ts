// The market's figures for `npm run bench` (src/cli/bench.ts calls benchMarkets): markets per second
// for the scripted sellers at 10 × 10 and 20 × 20, and the time of one optimal matching at 20 × 20.
import process from 'node:process';
import { optimalAllocation } from '../games/market/matching';
import { generateMarket, marketConfig } from '../games/market/scenario';
import { playMarket, type PlayedMarket } from '../games/market/tournament';
import { createRng } from '../engine/rng';
import { MARKET_STRATEGIES, makeMarketAgent } from '../games/market';

export interface MarketBenchOptions {
  /** Least time spent on each measurement, in seconds (default 1). */
  seconds?: number;
  /** Markets played first and not counted, per seller and size (default 200). */
  warmUp?: number;
  /** Least markets counted per seller and size, however short the time (default 20). */
  minMarkets?: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

// CPU time of this process, in ms: on a shared machine, what the markets themselves cost (wall time also counts the neighbours).
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** A 20 × 20 market with its optimal matching should take under this many milliseconds. */
export const MATCHING_TARGET_MS = 5;

/**
 * Printable lines: for each size and deterministic scripted seller (against margin buyers), markets
 * per second, each market generated, played and scored (optimal matching included); then the median
 * time of the optimal matching alone for a 20 × 20 market.
 */
export function benchMarkets(opts: MarketBenchOptions = {}): string[] {
  const seconds = opts.seconds ?? 1;
  const warmUp = opts.warmUp ?? 200;
  const minMarkets = opts.minMarkets ?? 20;
  const sellers = MARKET_STRATEGIES.seller.filter((d) => d.deterministic).map((d) => d.name);
  const seat = { rng: createRng(1), jobId: 'bench', seed: 1 };
  const buyer = makeMarketAgent('margin', 'buyer', seat);
  const lines = ['markets (margin buyers; each generated, played and scored with its optimal matching, one thread):'];
  for (const size of [10, 20]) {
    const config = marketConfig({ buyers: size, products: size });
    const rates: string[] = [];
    for (const name of sellers) {
      const seller = makeMarketAgent(name, 'seller', seat);
      const one = (i: number): number => {
        const played = playMarket(generateMarket(config, 7, i), { seller, buyer }) as PlayedMarket;
        return played.events.length;
      };
      for (let i = 0; i < warmUp; i++) one(i); // the JIT settles over the first hundred or so
      let n = 0;
      let events = 0;
      const c0 = cpuMs();
      const t0 = performance.now();
      let elapsed = 0;
      while (elapsed < seconds * 1000 || n < minMarkets) {
        events += one(1000 + n);
        n++;
        if ((n & 7) === 0 || n >= minMarkets) elapsed = performance.now() - t0;
      }
      elapsed = performance.now() - t0;
      const cpu = cpuMs() - c0;
      rates.push(
        `${name} ${Math.round(n / (elapsed / 1000)).toLocaleString('en-US')}/s (${(cpu / n).toFixed(2)} ms CPU, ${Math.round(events / n)} events each)`,
      );
    }
    lines.push(`  ${size}×${size}: ${rates.join('; ')}`);
  }
  const scenario = generateMarket(marketConfig({ buyers: 20, products: 20 }), 7);
  const batch = 50;
  const times: number[] = [];
  for (let i = 0; i < 5; i++) optimalAllocation(scenario); // warm-up
  const start = performance.now();
  while (times.length < 21 || performance.now() - start < seconds * 250) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) optimalAllocation(scenario);
    times.push((performance.now() - t0) / batch);
  }
  const ms = median(times);
  lines.push(
    `optimal matching (Hungarian), 20×20 market: median ${ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`} (target under ${MATCHING_TARGET_MS} ms: ${ms < MATCHING_TARGET_MS ? 'met' : 'missed'})`,
  );
  return lines;
}
