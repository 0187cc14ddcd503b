import { FromWorkerSchema, REPLY_TYPES, type FromWorker, type ReplyTo, type ToWorker, type WorkerRequest } from './messages';

/** The client's own word that the worker is gone (it crashed, or could not start); the next message starts a fresh one. */
export interface WorkerStopped {
  type: 'worker.stopped';
  message: string;
}
/** What a subscriber hears: the worker's messages, and its end. */
export type SimMessage = FromWorker | WorkerStopped;
type Listener = (message: SimMessage) => void;

const startWorker = (): Worker => new Worker(new URL('./sim.worker.ts', import.meta.url), { type: 'module', name: 'parley-sim' });

/**
 * The page's side of the simulation worker: typed messages out, validated messages in. When the
 * worker dies, everything that waits on it hears why: each pending request is answered with a
 * `failed` reply, each run and game it was playing gets a `failed` message, and every subscriber
 * a `worker.stopped`.
 */
export class SimClient {
  private worker: Worker | null = null;
  private readonly listeners = new Set<Listener>();
  private readonly waiting = new Map<string, (reply: FromWorker) => void>();
  /** Runs and games sent to the worker and not yet ended there. */
  private readonly openRuns = new Set<string>();
  private readonly openGames = new Set<string>();

  constructor(private readonly create: () => Worker = startWorker) {}

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const worker = this.create();
    worker.onmessage = (e: MessageEvent<unknown>) => {
      // Without zod's compiled fast path: compiling it for the standings schema took one 50–90 ms
      // task on the first progress message; parsed without it, a message costs a few ms.
      const parsed = FromWorkerSchema.safeParse(e.data, { jitless: true });
      if (!parsed.success) {
        console.error('parley: ignored a malformed message from the worker', parsed.error.issues[0]);
        return;
      }
      this.dispatch(parsed.data);
    };
    // The worker reports the errors it can itself; one that reaches the page means it could not
    // start or is broken past that, so it is ended and replaced.
    worker.onerror = (e) => {
      e.preventDefault();
      if (this.worker === worker) this.stop(`The simulation worker stopped: ${e.message || 'it could not start'}.`);
    };
    this.worker = worker;
    return worker;
  }

  private dispatch(message: FromWorker): void {
    if (message.type === 'run.status' && message.status !== 'running') this.openRuns.delete(message.runId);
    if (message.type === 'arena.end') this.openGames.delete(message.gameId);
    if (message.type === 'market.status' && message.status !== 'running') this.openRuns.delete(message.runId);
    if (message.type === 'market.end') this.openGames.delete(message.gameId);
    if (message.type === 'failed') {
      if (message.runId) this.openRuns.delete(message.runId);
      if (message.gameId) this.openGames.delete(message.gameId);
    }
    if (REPLY_TYPES.has(message.type) && 'requestId' in message && message.requestId) {
      const settle = this.waiting.get(message.requestId);
      if (settle) {
        this.waiting.delete(message.requestId);
        settle(message);
        return;
      }
    }
    this.broadcast(message);
  }

  private broadcast(message: SimMessage): void {
    for (const listener of this.listeners) listener(message);
  }

  /** Ends the worker and tells everything that waited on it why. */
  private stop(reason: string): void {
    this.worker?.terminate();
    this.worker = null;
    const waiting = [...this.waiting];
    const runs = [...this.openRuns];
    const games = [...this.openGames];
    this.waiting.clear();
    this.openRuns.clear();
    this.openGames.clear();
    for (const [requestId, settle] of waiting) settle({ type: 'failed', requestId, message: reason });
    for (const runId of runs) this.broadcast({ type: 'failed', runId, message: reason });
    for (const gameId of games) this.broadcast({ type: 'failed', gameId, message: reason });
    this.broadcast({ type: 'worker.stopped', message: reason });
  }

  send(message: ToWorker): void {
    this.ensure().postMessage(message);
    if (message.type === 'run.start' || message.type === 'run.resume') this.openRuns.add(message.runId);
    if (message.type === 'arena.start') this.openGames.add(message.gameId);
    if (message.type === 'market.start' || message.type === 'market.resume') this.openRuns.add(message.runId);
    if (message.type === 'market.play') this.openGames.add(message.gameId);
  }

  /** Sends a request and waits for its reply, or for the failure that names it (the worker's, or its death). */
  request<R extends WorkerRequest>(message: R): Promise<ReplyTo<R>> {
    return new Promise((resolve) => {
      this.waiting.set(message.requestId, resolve as (reply: FromWorker) => void);
      this.send(message);
    });
  }

  subscribe(listener: Listener): () => void {
    this.ensure();
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends the worker; what waited on it is told so, as when it dies. */
  terminate(): void {
    if (this.worker) this.stop('The simulation worker was stopped.');
  }
}
