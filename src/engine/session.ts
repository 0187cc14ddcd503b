import type { Clock } from './clock';
import type { Protocol } from './protocol';

/** What one model call cost and said; scripted agents leave it out. */
export interface CallRecord {
  backend: string;
  model: string;
  /** The model's time; a grammar compile the backend reported is left out, in `grammarMs`. */
  latencyMs: number;
  /** Milliseconds the backend spent compiling the answer's grammar before the model wrote (WebLLM). */
  grammarMs?: number;
  tokensIn: number;
  tokensOut: number;
  /** The prompt sent, or a reference to where it is kept. */
  prompt?: string;
  raw?: string;
  thinking?: string;
}

/** Told to an agent whose last answer was refused, before it tries again. */
export interface Retry {
  attempt: number;
  reason: string;
}

export type AgentReply<Mv> = { kind: 'move'; move: Mv; call?: CallRecord } | { kind: 'invalid'; reason: string; raw: string; call?: CallRecord };

export interface Agent<Obs, Mv> {
  act(observation: Obs, signal: AbortSignal, retry?: Retry): AgentReply<Mv> | Promise<AgentReply<Mv>>;
}

/** Endings that come from the runner rather than the protocol. */
export type SessionFailure<Actor extends string> = { kind: 'error'; actor: Actor; message: string; turn: number } | { kind: 'cancelled'; turn: number };

export type SessionEvent<Actor extends string, Mv, Out> =
  | { type: 'move'; turn: number; actor: Actor; move: Mv; call?: CallRecord }
  | { type: 'invalid'; turn: number; actor: Actor; attempt: number; reason: string; raw: string; call?: CallRecord }
  | { type: 'forfeit'; turn: number; actor: Actor }
  | { type: 'end'; turn: number; outcome: Out | SessionFailure<Actor> };

export type EventType = SessionEvent<string, unknown, unknown>['type'];

export interface SessionRecord<Actor extends string, Mv, Out> {
  events: SessionEvent<Actor, Mv, Out>[];
  outcome: Out | SessionFailure<Actor>;
}

export interface RunOptions<Actor extends string, Mv, Out> {
  signal?: AbortSignal;
  /** Needed only for moveTimeoutMs. */
  clock?: Clock;
  /** Time allowed for one asynchronous answer; past it the negotiation ends as an error. */
  moveTimeoutMs?: number;
  /** Further tries after an invalid move before the turn is forfeited (default 2). */
  maxRetries?: number;
  onEvent?: (event: SessionEvent<Actor, Mv, Out>) => void;
}

export const DEFAULT_MAX_RETRIES = 2;

// Shared by every session given no signal (making one per session costs more than a scripted
// negotiation). Callers that run many remote calls at once pass a signal of their own.
const NEVER_ABORTED = new AbortController().signal;

class Timeout extends Error {}

/** Whether an answer is a promise (agents may answer at once or later). */
export function isThenable<T>(x: T | Promise<T>): x is Promise<T> {
  return typeof (x as { then?: unknown })?.then === 'function';
}

/** `f` of a value that may still be coming: at once for a value, after it for a promise. */
export const andThen = <T, U>(x: T | Promise<T>, f: (value: T) => U): U | Promise<U> => (isThenable(x) ? x.then(f) : f(x));

/** Awaits an agent's answer, bounded by the timeout and the cancel signal. */
async function settle<T>(
  pending: Promise<T>,
  controller: AbortController | null,
  outer: AbortSignal,
  clock: Clock | undefined,
  timeoutMs: number | undefined,
): Promise<T> {
  const stop = new AbortController();
  const races: Promise<T>[] = [pending];
  const onAbort = () => controller?.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  races.push(
    new Promise<T>((_, reject) => {
      if (outer.aborted) reject(outer.reason);
      outer.addEventListener('abort', () => reject(outer.reason), { once: true, signal: stop.signal });
    }),
  );
  if (clock && timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
    races.push(
      clock.sleep(timeoutMs, stop.signal).then(() => {
        controller?.abort(new Timeout(`no answer within ${timeoutMs} ms`));
        throw new Timeout(`no answer within ${timeoutMs} ms`);
      }),
    );
  }
  try {
    return await Promise.race(races);
  } finally {
    stop.abort();
    outer.removeEventListener('abort', onAbort);
  }
}

/**
 * Drives any protocol to its end and returns the event log. Nothing an agent does throws past
 * this function: invalid answers are recorded and retried, a throw or a timeout ends the
 * session as an error, and the signal ends it as cancelled.
 */
export function runSession<Scn, State, Actor extends string, Obs, Mv, Out>(
  protocol: Protocol<Scn, State, Actor, Obs, Mv, Out>,
  scenario: Scn,
  agents: Record<Actor, Agent<Obs, Mv>>,
  opts: RunOptions<Actor, Mv, Out> = {},
): Promise<SessionRecord<Actor, Mv, Out>> {
  const record = playSession(protocol, scenario, agents, opts);
  return isThenable(record) ? record : Promise.resolve(record);
}

/**
 * `runSession` without a promise where none is needed: when every agent answers synchronously (the
 * scripted strategies), the whole session runs in one call and returns its record; the first
 * asynchronous answer turns the rest of it into a promise.
 */
export function playSession<Scn, State, Actor extends string, Obs, Mv, Out>(
  protocol: Protocol<Scn, State, Actor, Obs, Mv, Out>,
  scenario: Scn,
  agents: Record<Actor, Agent<Obs, Mv>>,
  opts: RunOptions<Actor, Mv, Out> = {},
): SessionRecord<Actor, Mv, Out> | Promise<SessionRecord<Actor, Mv, Out>> {
  return new Session(protocol, scenario, agents, opts).run();
}

/** One session's loop. `run` goes as far as it can synchronously; `resume` picks up after an await. */
class Session<Scn, State, Actor extends string, Obs, Mv, Out> {
  /** Handed to the agents: the caller's signal, or one that never aborts. */
  private readonly signal: AbortSignal;
  /** The caller's signal, checked before each turn; none, nothing to check. */
  private readonly outer: AbortSignal | undefined;
  private readonly onEvent: ((event: SessionEvent<Actor, Mv, Out>) => void) | undefined;
  private readonly maxRetries: number;
  private readonly timed: boolean;
  private readonly events: SessionEvent<Actor, Mv, Out>[] = [];
  private state: State;
  // The turn in progress: who is to move, which attempt, and what they were told after the last one.
  private actor!: Actor;
  private turn = 0;
  private attempt = 0;
  private retry: Retry | undefined = undefined;
  private controller: AbortController | null = null;

  constructor(
    private readonly protocol: Protocol<Scn, State, Actor, Obs, Mv, Out>,
    scenario: Scn,
    private readonly agents: Record<Actor, Agent<Obs, Mv>>,
    private readonly opts: RunOptions<Actor, Mv, Out>,
  ) {
    this.outer = opts.signal;
    this.signal = opts.signal ?? NEVER_ABORTED;
    this.onEvent = opts.onEvent;
    this.maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.timed = opts.clock !== undefined && opts.moveTimeoutMs !== undefined && Number.isFinite(opts.moveTimeoutMs);
    this.state = protocol.initialState(scenario);
    this.startTurn();
  }

  run(): SessionRecord<Actor, Mv, Out> | Promise<SessionRecord<Actor, Mv, Out>> {
    for (;;) {
      if (this.protocol.isTerminal(this.state)) return this.finish(this.protocol.outcome(this.state), this.protocol.turn(this.state));
      if (this.outer !== undefined && this.outer.aborted) return this.finish({ kind: 'cancelled', turn: this.turn }, this.turn);
      // With a timeout, the agent gets its own signal so that a late answer is also cancelled.
      this.controller = this.timed ? new AbortController() : null;
      let answer: AgentReply<Mv> | Promise<AgentReply<Mv>>;
      try {
        const agent = this.agents[this.actor];
        answer = agent.act(this.protocol.observe(this.state, this.actor), this.controller ? this.controller.signal : this.signal, this.retry);
      } catch (e) {
        return this.failed(e);
      }
      if (isThenable(answer)) return this.resume(answer);
      const ended = this.handle(answer);
      if (ended) return ended;
    }
  }

  private async resume(answer: Promise<AgentReply<Mv>>): Promise<SessionRecord<Actor, Mv, Out>> {
    let reply: AgentReply<Mv>;
    try {
      reply = await settle(answer, this.controller, this.signal, this.opts.clock, this.opts.moveTimeoutMs);
    } catch (e) {
      return this.failed(e);
    }
    return this.handle(reply) ?? this.run();
  }

  private startTurn(): void {
    this.actor = this.protocol.currentActor(this.state);
    this.turn = this.protocol.turn(this.state);
    this.attempt = 0;
    this.retry = undefined;
  }

  /** One answer: a move applied, or an invalid one recorded (and the turn forfeited after the last retry). */
  private handle(reply: AgentReply<Mv>): SessionRecord<Actor, Mv, Out> | null {
    const { actor, turn, attempt } = this;
    if (reply === null || typeof reply !== 'object' || (reply.kind !== 'move' && reply.kind !== 'invalid')) {
      const message = `agent answered ${safeStringify(reply)} instead of a move`;
      return this.finish({ kind: 'error', actor, message, turn }, turn);
    }
    let reason: string;
    if (reply.kind === 'invalid') {
      reason = reply.reason;
      this.emit(invalidEvent(turn, actor, attempt, reason, reply.raw, reply.call));
    } else {
      const applied = this.protocol.apply(this.state, actor, reply.move);
      if (applied.ok) {
        this.state = applied.value;
        this.emit(
          reply.call === undefined ? { type: 'move', turn, actor, move: reply.move } : { type: 'move', turn, actor, move: reply.move, call: reply.call },
        );
        this.startTurn();
        return null;
      }
      reason = applied.error.reason;
      this.emit(invalidEvent(turn, actor, attempt, reason, safeStringify(reply.move), reply.call));
    }
    if (attempt < this.maxRetries) {
      this.attempt = attempt + 1;
      this.retry = { attempt: attempt + 1, reason };
      return null;
    }
    this.state = this.protocol.forfeit(this.state, actor);
    this.emit({ type: 'forfeit', turn, actor });
    this.startTurn();
    return null;
  }

  private failed(e: unknown): SessionRecord<Actor, Mv, Out> {
    const turn = this.turn;
    if (this.signal.aborted) return this.finish({ kind: 'cancelled', turn }, turn);
    const message = e instanceof Error ? e.message : String(e);
    return this.finish({ kind: 'error', actor: this.actor, message: message || 'agent failed', turn }, turn);
  }

  private emit(e: SessionEvent<Actor, Mv, Out>): void {
    this.events.push(e);
    if (this.onEvent !== undefined) this.onEvent(e);
  }

  private finish(outcome: Out | SessionFailure<Actor>, turn: number): SessionRecord<Actor, Mv, Out> {
    this.emit({ type: 'end', turn, outcome });
    return { events: this.events, outcome };
  }
}

function invalidEvent<Actor extends string>(
  turn: number,
  actor: Actor,
  attempt: number,
  reason: string,
  raw: string,
  call: CallRecord | undefined,
): { type: 'invalid'; turn: number; actor: Actor; attempt: number; reason: string; raw: string; call?: CallRecord } {
  return call === undefined ? { type: 'invalid', turn, actor, attempt, reason, raw } : { type: 'invalid', turn, actor, attempt, reason, raw, call };
}

function safeStringify(x: unknown): string {
  try {
    return JSON.stringify(x) ?? String(x);
  } catch {
    return String(x);
  }
}
