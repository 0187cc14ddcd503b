import type { Clock } from './clock';
import type { Protocol } from './protocol';

/** What one model call cost and said; scripted agents leave it out. */
export interface CallRecord {
  backend: string;
  model: string;
  latencyMs: number;
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

export type AgentReply<Mv> =
  | { kind: 'move'; move: Mv; call?: CallRecord }
  | { kind: 'invalid'; reason: string; raw: string; call?: CallRecord };

export interface Agent<Obs, Mv> {
  act(observation: Obs, signal: AbortSignal, retry?: Retry): AgentReply<Mv> | Promise<AgentReply<Mv>>;
}

/** Endings that come from the runner rather than the protocol. */
export type SessionFailure<Actor extends string> =
  | { kind: 'error'; actor: Actor; message: string; turn: number }
  | { kind: 'cancelled'; turn: number };

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

function isThenable<T>(x: T | Promise<T>): x is Promise<T> {
  return typeof (x as { then?: unknown })?.then === 'function';
}

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
export async function runSession<Scn, State, Actor extends string, Obs, Mv, Out>(
  protocol: Protocol<Scn, State, Actor, Obs, Mv, Out>,
  scenario: Scn,
  agents: Record<Actor, Agent<Obs, Mv>>,
  opts: RunOptions<Actor, Mv, Out> = {},
): Promise<SessionRecord<Actor, Mv, Out>> {
  const signal = opts.signal ?? NEVER_ABORTED;
  const maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
  const events: SessionEvent<Actor, Mv, Out>[] = [];
  const emit = (e: SessionEvent<Actor, Mv, Out>) => {
    events.push(e);
    opts.onEvent?.(e);
  };
  const finish = (outcome: Out | SessionFailure<Actor>, turn: number): SessionRecord<Actor, Mv, Out> => {
    emit({ type: 'end', turn, outcome });
    return { events, outcome };
  };

  const timed = opts.clock !== undefined && opts.moveTimeoutMs !== undefined && Number.isFinite(opts.moveTimeoutMs);
  let state = protocol.initialState(scenario);
  while (!protocol.isTerminal(state)) {
    const actor = protocol.currentActor(state);
    const turn = protocol.turn(state);
    const agent = agents[actor];
    let retry: Retry | undefined;
    let moved = false;
    for (let attempt = 0; attempt <= maxRetries && !moved; attempt++) {
      if (signal.aborted) return finish({ kind: 'cancelled', turn }, turn);
      let reply: AgentReply<Mv>;
      // With a timeout, the agent gets its own signal so that a late answer is also cancelled.
      const controller = timed ? new AbortController() : null;
      try {
        const answer = agent.act(protocol.observe(state, actor), controller ? controller.signal : signal, retry);
        reply = isThenable(answer) ? await settle(answer, controller, signal, opts.clock, opts.moveTimeoutMs) : answer;
      } catch (e) {
        if (signal.aborted) return finish({ kind: 'cancelled', turn }, turn);
        const message = e instanceof Error ? e.message : String(e);
        return finish({ kind: 'error', actor, message: message || 'agent failed', turn }, turn);
      }
      if (reply === null || typeof reply !== 'object' || (reply.kind !== 'move' && reply.kind !== 'invalid')) {
        const message = `agent answered ${safeStringify(reply)} instead of a move`;
        return finish({ kind: 'error', actor, message, turn }, turn);
      }
      if (reply.kind === 'invalid') {
        emit(invalidEvent(turn, actor, attempt, reply.reason, reply.raw, reply.call));
        retry = { attempt: attempt + 1, reason: reply.reason };
        continue;
      }
      const applied = protocol.apply(state, actor, reply.move);
      if (applied.ok) {
        state = applied.value;
        emit(
          reply.call === undefined
            ? { type: 'move', turn, actor, move: reply.move }
            : { type: 'move', turn, actor, move: reply.move, call: reply.call },
        );
        moved = true;
      } else {
        const raw = safeStringify(reply.move);
        emit(invalidEvent(turn, actor, attempt, applied.error.reason, raw, reply.call));
        retry = { attempt: attempt + 1, reason: applied.error.reason };
      }
    }
    if (!moved) {
      state = protocol.forfeit(state, actor);
      emit({ type: 'forfeit', turn, actor });
    }
  }
  return finish(protocol.outcome(state), protocol.turn(state));
}

function invalidEvent<Actor extends string>(
  turn: number,
  actor: Actor,
  attempt: number,
  reason: string,
  raw: string,
  call: CallRecord | undefined,
): { type: 'invalid'; turn: number; actor: Actor; attempt: number; reason: string; raw: string; call?: CallRecord } {
  return call === undefined
    ? { type: 'invalid', turn, actor, attempt, reason, raw }
    : { type: 'invalid', turn, actor, attempt, reason, raw, call };
}

function safeStringify(x: unknown): string {
  try {
    return JSON.stringify(x) ?? String(x);
  } catch {
    return String(x);
  }
}
