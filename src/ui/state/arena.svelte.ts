import type { BilateralEvent, BilateralResult } from '../../games/bilateral/events';
import { computeMetrics, type NegotiationMetrics } from '../../games/bilateral/metrics';
import type { RemoteConfig } from '../../worker/messages';
import { llmSettings, type LlmSettings } from '../../agents/llm/settings';
import { HUMAN_SPEC, type HumanPrompt } from '../../games/bilateral/human';
import { isModelSpec } from '../../agents/specs';
import { parseAgentSpec } from '../../games/bilateral/specs';
import type { Move } from '../../games/bilateral/moves';
import { opponentOf, ROLES, type Role, type Scenario } from '../../games/bilateral/scenario';
import { debriefable, DEBRIEF_STRATEGIES } from '../debrief';
import { SeatComparison } from './seat-comparison.svelte';
import { database, newId, sim } from './sim';
import { updateRun } from '../../storage/runs';
import { playerOf } from '../class-export';
import { passAndPlayName } from '../pass-and-play';
import { LiveGame } from './live-game.svelte';

/** One live Arena negotiation, played in the worker; the page only renders its events. */
export class ArenaSession extends LiveGame {
  events = $state.raw<BilateralEvent[]>([]);
  scenario = $state.raw<Scenario | null>(null);
  agents = $state.raw<{ buyer: string; seller: string }>({ buyer: '', seller: '' });
  runId = $state<string | null>(null);
  /** Pass and play: the stored game once it is named after both students (its hand-in waits for it). */
  namedRunId = $state<string | null>(null);
  error = $state<string | null>(null);
  /** Set while the user's seat is to move: what they may know now (their own side only). */
  prompt = $state.raw<HumanPrompt | null>(null);
  /**
   * Pass and play (both seats human): the seat whose private view is on screen, or null while the
   * device is being handed over. Set only by the student taking it (`takeSeat`), cleared by each move.
   */
  shownSeat = $state<Role | null>(null);
  /** Pass and play: the students' names, seat by seat, the game is stored under. */
  players = $state.raw<Record<Role, string>>({ buyer: '', seller: '' });
  /** The scripted strategies in the user's seat against the same opponent, for the debrief. */
  readonly comparison = new SeatComparison();
  private llm: LlmSettings = llmSettings({});
  private unsubscribe: (() => void) | null = null;

  /** `remote`: the user's keys and base URLs, read when a game starts. */
  constructor(private readonly remote: () => RemoteConfig | undefined = () => undefined) {
    super('arena.control', 400);
  }

  /** How the game ended, once it has. */
  get outcome(): BilateralResult | null {
    const last = this.events.at(-1);
    return last?.type === 'end' ? last.outcome : null;
  }

  get metrics(): NegotiationMetrics | null {
    const last = this.events.at(-1);
    return this.scenario && last?.type === 'end' ? computeMetrics(this.scenario, this.events) : null;
  }

  /** The seat the user plays in person (spec `human`), if any; the buyer's where both are. */
  get human(): Role | null {
    return ROLES.find((role) => this.agents[role] === HUMAN_SPEC) ?? null;
  }

  /** Two students on one device, one in each seat. */
  get passAndPlay(): boolean {
    return ROLES.every((role) => this.agents[role] === HUMAN_SPEC);
  }

  /**
   * The seat that may be seen now: the one whose turn it is once its student has taken the device
   * (pass and play), or the user's one seat. Null while the device is handed over.
   */
  get visibleSeat(): Role | null {
    if (!this.passAndPlay) return this.human;
    return this.prompt && this.prompt.role === this.shownSeat ? this.shownSeat : null;
  }

  /** The seat the device goes to next in pass and play: the one asked to move, or else the other side of the last move. */
  get nextSeat(): Role | null {
    if (!this.passAndPlay) return null;
    if (this.prompt) return this.prompt.role;
    const last = this.events.findLast((e) => e.type === 'move' || e.type === 'invalid' || e.type === 'forfeit');
    if (!last) return this.scenario?.firstMover ?? null;
    return last.type === 'invalid' ? last.actor : opponentOf(last.actor);
  }

  /** The student in `role` has the device: their seat's private view may show (only when it is their turn). */
  takeSeat(role: Role): void {
    if (this.passAndPlay && this.prompt?.role === role) this.shownSeat = role;
  }

  /**
   * `llm`: how the model seats are asked for their moves (the defaults where left out); `players`:
   * in pass and play, the students' names the game is stored under.
   */
  start(scenario: Scenario, buyer: string, seller: string, llm: Partial<LlmSettings> = {}, players: Record<Role, string> = { buyer: '', seller: '' }): void {
    this.stop();
    const gameId = newId();
    this.gameId = gameId;
    this.scenario = scenario;
    this.agents = { buyer, seller };
    this.events = [];
    this.runId = null;
    this.namedRunId = null;
    this.error = null;
    this.prompt = null;
    this.shownSeat = null;
    this.players = players;
    this.llm = llmSettings(llm);
    this.comparison.reset();
    this.status = 'playing';
    const client = sim();
    this.unsubscribe = client.subscribe((m) => {
      if (!('gameId' in m) || m.gameId !== gameId) return;
      if (m.type === 'arena.event') {
        this.events = [...this.events, m.event];
        if (m.event.type === 'end') this.prompt = null;
      } else if (m.type === 'arena.turn') this.prompt = m.prompt;
      else if (m.type === 'arena.end') {
        this.runId = m.runId;
        this.status = 'finished';
        this.prompt = null;
        if (m.runId && this.passAndPlay) void this.namePlayers(m.runId);
        if (this.human && this.opponentIsScripted()) this.compare();
      } else if (m.type === 'failed') {
        this.error = m.message;
        this.status = 'failed';
        this.prompt = null;
      }
    });
    const remote = this.remote();
    client.send({
      type: 'arena.start',
      gameId,
      scenario,
      buyer,
      seller,
      delayMs: this.delayMs,
      paused: this.paused,
      save: true,
      llm: this.llm,
      ...(remote ? { remote } : {}),
    });
  }

  /** The user's move for the turn they were asked; the form is closed until the worker asks again. */
  submit(move: Move): void {
    const prompt = this.prompt;
    if (!prompt || !this.gameId || this.status !== 'playing') return;
    this.prompt = null;
    // The move made, the seat's private view goes at once: the next student may already be looking.
    this.shownSeat = null;
    sim().send({ type: 'arena.move', gameId: this.gameId, turn: prompt.turn, attempt: prompt.retry?.attempt ?? 0, move });
  }

  /** Whether the user's opponent is a scripted strategy (its replays in the debrief cost nothing). */
  opponentIsScripted(): boolean {
    const human = this.human;
    if (!human || this.passAndPlay) return false;
    const parsed = parseAgentSpec(this.agents[opponentOf(human)]);
    return parsed.ok && !isModelSpec(parsed.value);
  }

  /** Plays each deterministic strategy in the user's seat against the same opponent on the same scenario. */
  compare(): void {
    const human = this.human;
    const outcome = this.outcome;
    // A person's moves cannot be replayed: against a second student there is nothing to compare.
    if (!human || this.passAndPlay || !this.scenario || !this.gameId || !outcome || !debriefable(outcome.kind)) return;
    const remote = this.remote();
    void this.comparison.run({
      type: 'arena.compare',
      requestId: newId(),
      gameId: this.gameId,
      scenario: this.scenario,
      role: human,
      opponent: this.agents[opponentOf(human)],
      strategies: [...DEBRIEF_STRATEGIES],
      llm: this.llm,
      ...(remote ? { remote } : {}),
    });
  }

  /** Stores a pass-and-play game under both students' names (once; a full disk leaves it under its own). */
  private async namePlayers(runId: string): Promise<void> {
    const db = database();
    try {
      const run = await db.runs.get(runId);
      if (run && typeof run.name === 'string' && playerOf(run.name) === null) await updateRun(db, runId, { name: passAndPlayName(this.players, run.name) });
    } catch {
      // Nothing to undo: the rename is one small write, made or not.
    } finally {
      if (this.runId === runId) this.namedRunId = runId;
    }
  }

  stop(): void {
    this.cancel();
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}
