import { Aggregator } from '../core/bilateral/aggregate';
import { playNegotiation, type BilateralAgent } from '../core/bilateral/tournament';
import { createRng, deriveSeed, hashString } from '../core/rng';
import type { Role, Scenario } from '../core/scenario';
import { createAgentFactory, everyModelThinks, parseAgentSpecs } from '../agents/registry';
import { llmSettings, type LlmSettings } from '../agents/llm/settings';
import { createRun, updateRun } from '../storage';
import { NegotiationWriter } from '../storage/writer';
import { negotiationRow } from '../storage/schema';
import { useEngines, type RunHost } from './tournament-run';
import type { RemoteConfig } from './messages';
import { remoteSettings } from './remote-settings';

/** Holds each move back by a delay, or until a step when paused: the Arena's speed control. */
export class Pacer {
  private wake: (() => void) | null = null;

  constructor(
    public delayMs: number,
    public paused: boolean,
  ) {}

  /** Lets one waiting move through (stepping), or all of them if no longer paused. */
  release(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  wait(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const done = () => {
        if (this.wake === done) this.wake = null;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.wake = done;
      const timer = this.paused ? undefined : setTimeout(done, this.delayMs);
    });
  }

  /** Applies a new speed to the move that is waiting now, too. */
  set(delayMs: number | undefined, paused: boolean | undefined): void {
    if (delayMs !== undefined) this.delayMs = delayMs;
    if (paused !== undefined) this.paused = paused;
    if (!this.paused && this.wake) this.release();
  }
}

const paced = (agent: BilateralAgent, pacer: Pacer): BilateralAgent => ({
  act: async (observation, signal, retry) => {
    if (retry === undefined) await pacer.wait(signal);
    return agent.act(observation, signal, retry);
  },
});

export interface ArenaRequest {
  gameId: string;
  scenario: Scenario;
  buyer: string;
  seller: string;
  delayMs: number;
  paused: boolean;
  save: boolean;
  /** Keys and base URLs for remote agents; never saved with the run. */
  remote?: RemoteConfig;
  /** How the model seats are asked for their moves (the defaults where left out); saved with the run. */
  llm?: Partial<LlmSettings>;
}

/** One live Arena negotiation: events stream to the page as they happen; the result is saved as a run. */
export class ArenaGame {
  readonly pacer: Pacer;
  private readonly controller = new AbortController();

  constructor(
    private readonly host: RunHost,
    private readonly request: ArenaRequest,
  ) {
    this.pacer = new Pacer(request.delayMs, request.paused);
  }

  cancel(): void {
    this.controller.abort(new Error('cancelled'));
  }

  async play(): Promise<string | null> {
    const { gameId, scenario, buyer, seller, save } = this.request;
    const specs = parseAgentSpecs([buyer, seller].filter((s, i, all) => all.indexOf(s) === i));
    if (!specs.ok) throw new Error(specs.error);
    const seed = hashString(gameId);
    const llm = llmSettings(this.request.llm);
    const reachable = llm.thinking ? everyModelThinks(specs.value) : null;
    if (reachable && !reachable.ok) throw new Error(reachable.error);
    const engines = useEngines(this.host.engines, [buyer, seller]);
    const makeAgent = createAgentFactory(remoteSettings(this.request.remote), engines.local, llm);
    const seat = (role: Role, spec: string) =>
      paced(
        makeAgent(spec, role, {
          rng: createRng(seed ^ (role === 'buyer' ? 1 : 2)),
          negotiationId: gameId,
          seed: deriveSeed(seed, gameId, role),
        }),
        this.pacer,
      );
    let result: Awaited<ReturnType<typeof playNegotiation>>;
    try {
      result = await playNegotiation(
        scenario,
        { buyer: seat('buyer', buyer), seller: seat('seller', seller) },
        {
          signal: this.controller.signal,
          onEvent: (event) => this.host.post({ type: 'arena.event', gameId, event }),
        },
      );
    } finally {
      engines.release();
    }
    if (!save || result.outcome.kind === 'cancelled') return null;
    const { db, now } = this.host;
    const run = await createRun(db, {
      id: gameId,
      name: `${buyer} buys ${scenario.item.name} from ${seller}`,
      config: { kind: 'arena', buyer, seller, scenario, llm },
      planned: 1,
      createdAt: now(),
    });
    const writer = new NegotiationWriter(db, run.id, { now });
    await writer.add(
      negotiationRow(run.id, { id: '0', index: 0, scenarioIndex: 0, buyer, seller, scenario, ...result }),
    );
    await writer.flush();
    const aggregator = new Aggregator();
    aggregator.add(buyer, seller, scenario, result.metrics);
    await updateRun(db, run.id, { status: 'done', standings: aggregator.standings({ samples: 0 }), updatedAt: now() });
    return run.id;
  }
}
