import type { SimClient } from '../../../worker/client';
import { learnPlanned, type FromWorker, type LearnExperiment } from '../../../worker/messages';
import { newId, sim } from '../../state/sim';

export type LearnDone = Extract<FromWorker, { type: 'learn.done' }>;

/** What `start` takes: the experiment, and the widget's `meta` where it has one. */
type StartArgs<Meta> = [experiment: LearnExperiment, ...meta: Meta extends null ? [] : [Meta]];

/**
 * One widget's experiment in the simulation worker: progress while it plays, its figures when it
 * ends (partial when stopped). Starting another replaces the one in flight, whose answer is dropped.
 */
export class LearnRun<Meta = null> {
  status = $state<'idle' | 'running' | 'done' | 'stopped' | 'failed'>('idle');
  done = $state(0);
  planned = $state(0);
  /** The last answer, with the experiment it answers (the widget may since have changed its settings). */
  result = $state.raw<{ experiment: LearnExperiment; meta: Meta; reply: LearnDone } | null>(null);
  error = $state<string | null>(null);
  private current: string | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly client: () => SimClient = sim) {}

  /** Plays `experiment`; `meta` (what the widget needs to label the answer) comes back with it. */
  async start(...[experiment, ...[meta]]: StartArgs<Meta>): Promise<void> {
    const client = this.client();
    if (this.current) client.send({ type: 'learn.cancel', running: this.current });
    this.unsubscribe ??= client.subscribe((message) => {
      if (message.type === 'learn.progress' && message.requestId === this.current) {
        this.done = message.done;
        this.planned = message.planned;
      }
    });
    const requestId = newId();
    this.current = requestId;
    this.status = 'running';
    this.error = null;
    this.done = 0;
    this.planned = learnPlanned(experiment);
    const reply = await client.request({ type: 'learn.run', requestId, experiment });
    if (this.current !== requestId) return;
    this.current = null;
    if (reply.type === 'learn.done') {
      this.result = { experiment, meta: (meta ?? null) as Meta, reply };
      this.done = reply.done;
      this.status = reply.cancelled ? 'stopped' : 'done';
    } else {
      this.error = reply.message;
      this.status = 'failed';
    }
  }

  /**
   * Plays what `settings` gives (null: nothing, the settings are not valid) once the settings have
   * stood still for `delayMs`, again each time they change, and stops when the widget goes away.
   * Call it while the widget is set up.
   */
  follow(settings: () => StartArgs<Meta> | null, delayMs = 200): void {
    $effect(() => {
      const args = settings();
      if (!args) return;
      const timer = setTimeout(() => void this.start(...args), delayMs);
      return () => clearTimeout(timer);
    });
    $effect(() => () => this.dispose());
  }

  /** Stops the experiment in flight; its answer (what it finished) is still shown. */
  stop(): void {
    if (this.current) this.client().send({ type: 'learn.cancel', running: this.current });
  }

  /** Stops and forgets the experiment in flight and stops listening: the widget is going away. */
  dispose(): void {
    this.stop();
    this.current = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}

/** What a status line reads of a run, whatever its widget's labels. */
export type LearnRunView = Pick<LearnRun<unknown>, 'status' | 'done' | 'planned' | 'error' | 'result' | 'stop'>;
