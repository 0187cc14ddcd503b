import type { BilateralEvent, BilateralResult } from '../../core/bilateral/events';
import { computeMetrics, type NegotiationMetrics } from '../../core/bilateral/metrics';
import type { Scenario } from '../../core/scenario';
import type { RemoteConfig } from '../../worker/messages';
import { llmSettings, type LlmSettings } from '../../agents/llm/settings';
import { newId, sim } from './sim';

export type ArenaStatus = 'idle' | 'playing' | 'finished' | 'failed';

/** One live Arena negotiation, played in the worker; the page only renders its events. */
export class ArenaSession {
  status = $state<ArenaStatus>('idle');
  events = $state.raw<BilateralEvent[]>([]);
  scenario = $state.raw<Scenario | null>(null);
  agents = $state.raw<{ buyer: string; seller: string }>({ buyer: '', seller: '' });
  runId = $state<string | null>(null);
  error = $state<string | null>(null);
  delayMs = $state(400);
  paused = $state(false);
  private gameId: string | null = null;
  private unsubscribe: (() => void) | null = null;

  /** `remote`: the user's keys and base URLs, read when a game starts. */
  constructor(private readonly remote: () => RemoteConfig | undefined = () => undefined) {}

  /** How the game ended, once it has. */
  get outcome(): BilateralResult | null {
    const last = this.events.at(-1);
    return last?.type === 'end' ? last.outcome : null;
  }

  get metrics(): NegotiationMetrics | null {
    const last = this.events.at(-1);
    return this.scenario && last?.type === 'end' ? computeMetrics(this.scenario, this.events) : null;
  }

  /** `llm`: how the model seats are asked for their moves (the defaults where left out). */
  start(scenario: Scenario, buyer: string, seller: string, llm: Partial<LlmSettings> = {}): void {
    this.stop();
    const gameId = newId();
    this.gameId = gameId;
    this.scenario = scenario;
    this.agents = { buyer, seller };
    this.events = [];
    this.runId = null;
    this.error = null;
    this.status = 'playing';
    const client = sim();
    this.unsubscribe = client.subscribe((m) => {
      if (!('gameId' in m) || m.gameId !== gameId) return;
      if (m.type === 'arena.event') this.events = [...this.events, m.event];
      else if (m.type === 'arena.end') {
        this.runId = m.runId;
        this.status = 'finished';
      } else if (m.type === 'failed') {
        this.error = m.message;
        this.status = 'failed';
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
      llm: llmSettings(llm),
      ...(remote ? { remote } : {}),
    });
  }

  setSpeed(delayMs: number): void {
    this.delayMs = delayMs;
    this.control({ delayMs });
  }

  setPaused(paused: boolean): void {
    this.paused = paused;
    this.control({ paused });
  }

  step(): void {
    this.control({ step: true });
  }

  cancel(): void {
    this.control({ cancel: true });
  }

  private control(change: { delayMs?: number; paused?: boolean; step?: boolean; cancel?: boolean }): void {
    if (this.gameId && this.status === 'playing') sim().send({ type: 'arena.control', gameId: this.gameId, ...change });
  }

  stop(): void {
    this.cancel();
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}
