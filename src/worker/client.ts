import { randomId } from '../engine/id';
import { FromWorkerSchema, REPLY_TYPES, type FromWorker, type ReplyTo, type ToWorker, type WorkerRequest } from './messages';

/**
 * The client's own word that the worker is gone (it crashed, could not start, or died without a
 * word and the heartbeat found it gone); the next message starts a fresh one. `runs` were being
 * played in it and are cut off (stored, resumable: interrupted).
 */
export interface WorkerStopped {
  type: 'worker.stopped';
  message: string;
  runs: readonly string[];
}
/** What a subscriber hears: the worker's messages, and its end. */
export type SimMessage = FromWorker | WorkerStopped;
type Listener = (message: SimMessage) => void;

const startWorker = (): Worker => new Worker(new URL('./sim.worker.ts', import.meta.url), { type: 'module', name: 'parley-sim' });

/** Time and a repeating timer, passed in so that tests drive the heartbeat themselves. */
export interface HeartbeatClock {
  now(): number;
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
}

export interface HeartbeatOptions {
  clock?: HeartbeatClock;
  /** How often the page pings the worker. */
  intervalMs?: number;
  /** How long the worker may be silent (no pong, no message) before the client asks whether it still lives. */
  silentMs?: number;
  /** Where that cannot be asked (no Web Locks, or the worker never said it holds its lock): silence taken for death. */
  giveUpMs?: number;
  /** Whether anyone holds the Web Lock `name` (default: navigator.locks.query); null where that cannot be told. */
  lockHeld?: (name: string) => Promise<boolean | null>;
}

const realClock: HeartbeatClock = {
  now: () => performance.now(),
  every: (ms, tick) => {
    const timer = setInterval(tick, ms);
    return () => clearInterval(timer);
  },
};

async function anyoneHolds(name: string): Promise<boolean | null> {
  if (typeof navigator === 'undefined' || !navigator.locks) return null;
  const { held = [] } = await navigator.locks.query();
  return held.some((lock) => lock.name === name);
}

/** The prefix of the Web Lock each simulation worker holds for its lifetime. */
export const WORKER_LOCK_PREFIX = 'parley-sim-alive:';

/** The words for a worker that died without an error event (the browser ends a worker that runs out of memory so). */
export const SILENT_DEATH = 'The simulation worker stopped without a word (the browser may have ended it, for instance for lack of memory).';

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
  private readonly clock: HeartbeatClock;
  private readonly heartbeat: Required<Omit<HeartbeatOptions, 'clock'>>;
  /** The current worker's life: its lock's name, whether it said it holds it, when it was last heard. */
  private life: { lock: string; held: boolean; heardAt: number; beat: number; asking: boolean; stopBeating: () => void } | null = null;

  /**
   * `create` starts a worker (tests hand small scripts of their own). A heartbeat pings the worker;
   * one silent too long is asked after through the Web Lock it holds while it lives, so a worker
   * killed without an error event (out of memory) is found gone, and one merely busy is left alone.
   */
  constructor(
    private readonly create: () => Worker = startWorker,
    heartbeat: HeartbeatOptions = {},
  ) {
    this.clock = heartbeat.clock ?? realClock;
    this.heartbeat = {
      intervalMs: heartbeat.intervalMs ?? 2_000,
      silentMs: heartbeat.silentMs ?? 10_000,
      giveUpMs: heartbeat.giveUpMs ?? 60_000,
      lockHeld: heartbeat.lockHeld ?? anyoneHolds,
    };
  }

  /** The life lock the current worker has said it holds (null before it has, or with no worker). */
  get lifeLock(): string | null {
    return this.life?.held ? this.life.lock : null;
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const worker = this.create();
    worker.onmessage = (e: MessageEvent<unknown>) => {
      if (this.worker === worker && this.life) this.life.heardAt = this.clock.now();
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
    const lock = `${WORKER_LOCK_PREFIX}${randomId()}`;
    this.life = { lock, held: false, heardAt: this.clock.now(), beat: 0, asking: false, stopBeating: () => undefined };
    this.life.stopBeating = this.clock.every(this.heartbeat.intervalMs, () => this.beat(worker));
    return worker;
  }

  /** One heartbeat: ping the worker, and ask after it if it has been silent too long. */
  private beat(worker: Worker): void {
    const life = this.life;
    if (this.worker !== worker || !life) return;
    worker.postMessage({ type: 'ping', beat: ++life.beat, lock: life.lock } satisfies ToWorker);
    const silentFor = this.clock.now() - life.heardAt;
    if (silentFor < this.heartbeat.silentMs || life.asking) return;
    life.asking = true;
    const asked = life.held ? this.heartbeat.lockHeld(life.lock) : Promise.resolve(null);
    void asked
      .then((held) => {
        if (this.worker !== worker) return;
        // Its lock released means it is gone; still held, it is alive and busy (a long import, say).
        const dead = held === false || (held === null && silentFor >= this.heartbeat.giveUpMs);
        if (dead) this.stop(SILENT_DEATH);
      })
      .finally(() => (life.asking = false));
  }

  private dispatch(message: FromWorker): void {
    if (message.type === 'pong') {
      if (this.life && message.lock === this.life.lock) this.life.held = true;
      return;
    }
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
    this.life?.stopBeating();
    this.life = null;
    const waiting = [...this.waiting];
    const runs = [...this.openRuns];
    const games = [...this.openGames];
    this.waiting.clear();
    this.openRuns.clear();
    this.openGames.clear();
    for (const [requestId, settle] of waiting) settle({ type: 'failed', requestId, message: reason });
    for (const runId of runs) this.broadcast({ type: 'failed', runId, message: reason });
    for (const gameId of games) this.broadcast({ type: 'failed', gameId, message: reason });
    this.broadcast({ type: 'worker.stopped', message: reason, runs });
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
