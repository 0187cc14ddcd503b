import { Aggregator } from '../games/bilateral/aggregate';
import { arenaSeat, playNegotiation, type BilateralAgent } from '../games/bilateral/tournament';
import type { Role, Scenario } from '../games/bilateral/scenario';
import { createAgentFactory } from '../games/bilateral/registry';
import { everyModelThinks, HUMAN_SPEC } from '../agents/specs';
import { parseAgentSpecs } from '../games/bilateral/specs';
import { HumanSeat } from '../games/bilateral/human';
import { OracleScorer } from '../games/bilateral/oracle-agents';
import type { Move } from '../games/bilateral/moves';
import type { BilateralEvent } from '../games/bilateral/events';
import { llmSettings, type LlmSettings } from '../agents/llm/settings';
import { createRun, updateRun } from '../storage';
import { RunWriter } from '../storage/writer';
import { negotiationRow } from '../storage/schema';
import { useEngines } from '../runs/engines';
import type { RunHost } from './tournament-run';
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

/**
 * One live Arena negotiation: events stream to the page as they happen; the result is saved as a run.
 * A seat whose spec is `human` is the user's: it asks the page for each move (`arena.turn`) and
 * waits for `answer`; it is not paced (the user takes their own time). Both seats may be human (two
 * students passing one device): one HumanSeat serves both, as the seats take turns and each prompt
 * names its role.
 */
export class ArenaGame {
  readonly pacer: Pacer;
  private readonly controller = new AbortController();
  private readonly human: HumanSeat | null;

  constructor(
    private readonly host: RunHost,
    private readonly request: ArenaRequest,
  ) {
    this.pacer = new Pacer(request.delayMs, request.paused);
    const { gameId, buyer, seller } = request;
    this.human = buyer === HUMAN_SPEC || seller === HUMAN_SPEC ? new HumanSeat((prompt) => host.post({ type: 'arena.turn', gameId, prompt })) : null;
  }

  cancel(): void {
    this.controller.abort(new Error('cancelled'));
  }

  /** The user's move for their seat; a late or repeated one (another turn or attempt) is dropped. */
  answer(turn: number, attempt: number, move: Move): void {
    this.human?.answer(turn, attempt, move);
  }

  async play(): Promise<string | null> {
    const { gameId, scenario, buyer, seller, save } = this.request;
    const specs = parseAgentSpecs(
      [buyer, seller].filter((s, i, all) => all.indexOf(s) === i),
      { allowHuman: true },
    );
    if (!specs.ok) throw new Error(specs.error.message);
    const llm = llmSettings(this.request.llm);
    const reachable = llm.thinking ? everyModelThinks(specs.value) : null;
    if (reachable && !reachable.ok) throw new Error(reachable.error.message);
    const engines = useEngines(this.host.engines, [buyer, seller]);
    const makeAgent = createAgentFactory(remoteSettings(this.request.remote), engines.local, llm);
    const seat = (role: Role, spec: string): BilateralAgent =>
      spec === HUMAN_SPEC && this.human ? this.human : paced(makeAgent(spec, role, arenaSeat(gameId, role)), this.pacer);
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
    const writer = new RunWriter(db, run.id, { now });
    await writer.add(negotiationRow(run.id, { id: '0', index: 0, scenarioIndex: 0, buyer, seller, scenario, ...result }));
    await writer.flush();
    const aggregator = new Aggregator();
    aggregator.add(buyer, seller, scenario, new OracleScorer().score(buyer, seller, scenario, result.metrics));
    await updateRun(db, run.id, { status: 'done', standings: aggregator.standings({ samples: 0 }), updatedAt: now() });
    return run.id;
  }
}

export interface CompareRequest {
  gameId: string;
  scenario: Scenario;
  /** The seat each strategy takes: the user's in the game. */
  role: Role;
  opponent: string;
  strategies: readonly string[];
  remote?: RemoteConfig;
  llm?: Partial<LlmSettings>;
}

/**
 * Plays each strategy in the user's seat against the game's opponent on the game's scenario, the
 * opponent built and seeded exactly as in the game (so a deterministic one plays the same way),
 * unpaced and unsaved: what each would have got where the user sat. Returns the event logs.
 */
export async function compareInSeat(
  host: Pick<RunHost, 'engines'>,
  request: CompareRequest,
  signal?: AbortSignal,
): Promise<{ strategy: string; events: BilateralEvent[] }[]> {
  const { gameId, scenario, role, opponent, strategies } = request;
  const specs = parseAgentSpecs([opponent, ...strategies].filter((s, i, all) => all.indexOf(s) === i));
  if (!specs.ok) throw new Error(specs.error.message);
  const other: Role = role === 'buyer' ? 'seller' : 'buyer';
  const engines = useEngines(host.engines, [opponent]);
  const makeAgent = createAgentFactory(remoteSettings(request.remote), engines.local, llmSettings(request.llm));
  try {
    const games: { strategy: string; events: BilateralEvent[] }[] = [];
    for (const strategy of strategies) {
      const seats = { [role]: makeAgent(strategy, role, arenaSeat(gameId, role)), [other]: makeAgent(opponent, other, arenaSeat(gameId, other)) } as Record<
        Role,
        BilateralAgent
      >;
      const played = await playNegotiation(scenario, seats, signal ? { signal } : {});
      games.push({ strategy, events: played.events });
    }
    return games;
  } finally {
    engines.release();
  }
}
