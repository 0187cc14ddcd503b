/**
 * A remote model whose answers the test lets through, so a long run is held mid-way for as long
 * as the test wants, however fast the machine: the local chat server (chat-server.ts) answering as
 * the prompt-reading policy model (policy-model.ts), but only while the test allows it. Requests
 * beyond the allowance wait until `allow` raises it; with `everyMs`, one waiting request is also let
 * through per interval, so a run lasts at least that long per call beyond its allowance.
 */
import { randomBytes } from 'node:crypto';
import { start, type ChatServer } from './chat-server';
import { policyAnswer } from './policy-model';

export interface PacedModel {
  /** The OpenAI-compatible base URL (`…/v1`), for a `vllm:` spec. */
  baseUrl: string;
  /** Requests answered so far. */
  readonly answered: number;
  /** Requests waiting for the test to allow them (a dropped request stays counted until let through). */
  readonly held: number;
  /** Lets `n` more requests through (all of them, now and later, when `n` is omitted). */
  allow(n?: number): void;
  /** Lets nothing more through (`everyMs` stops) until `allow`. */
  hold(): void;
  /** From now on each answer carries this many characters of thinking (see `thinkingChars`). */
  think(chars: number): void;
  /** Resolves once at least `n` requests are waiting: the run that sent them cannot go on. */
  whenHeld(n?: number): Promise<void>;
  close(): Promise<void>;
}

export interface PaceOptions {
  /** Requests answered before the first hold (default 0). */
  allowance?: number;
  /** Lets one waiting request through per this many milliseconds. */
  everyMs?: number;
  /** Each answer also carries this many characters of thinking (random, so nothing compresses it). */
  thinkingChars?: number;
}

export async function startPacedModel(opts: PaceOptions = {}): Promise<PacedModel> {
  let allowance = opts.allowance ?? 0;
  let thinkingChars = opts.thinkingChars ?? 0;
  let answered = 0;
  const waiting: (() => void)[] = [];
  const watchers: { n: number; resolve: () => void }[] = [];
  const notify = () => {
    for (const w of watchers.splice(0)) {
      if (waiting.length >= w.n) w.resolve();
      else watchers.push(w);
    }
  };
  const release = () => {
    while (waiting.length > 0 && allowance > 0) {
      allowance--;
      waiting.shift()?.();
    }
  };
  const server: ChatServer = await start(async (request) => {
    if (allowance > 0) allowance--;
    else {
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        notify();
      });
    }
    answered++;
    const answer = policyAnswer(request);
    if (thinkingChars === 0 || answer.kind !== 'reply') return answer;
    return {
      ...answer,
      thinking: randomBytes(Math.ceil((thinkingChars * 3) / 4))
        .toString('base64')
        .slice(0, thinkingChars),
    };
  });
  let timer = opts.everyMs === undefined ? null : setInterval(() => waiting.shift()?.(), opts.everyMs);
  const stopTimer = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  return {
    baseUrl: `${server.url}/v1`,
    get answered() {
      return answered;
    },
    get held() {
      return waiting.length;
    },
    allow(n = Infinity) {
      allowance += n;
      release();
    },
    hold() {
      stopTimer();
      allowance = 0;
    },
    think(chars) {
      thinkingChars = chars;
    },
    whenHeld(n = 1) {
      return new Promise((resolve) => {
        watchers.push({ n, resolve });
        notify();
      });
    },
    async close() {
      stopTimer();
      allowance = Infinity;
      release();
      await server.close();
    },
  };
}
