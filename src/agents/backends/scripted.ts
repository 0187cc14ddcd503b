import type { BackendCapabilities, ChatBackend, ChatRequest, ChatResponse } from './types';

/** One scripted answer: a response, an error to throw, or a function of the request. */
export type ScriptedReply = ChatResponse | Error | ((request: ChatRequest) => ChatResponse | Promise<ChatResponse>);

export interface ScriptedBackendOptions {
  name?: string;
  model?: string;
  capabilities?: Partial<BackendCapabilities>;
  /** Simulated time per call, in ms: a number, or one per call index. Needs nothing else. */
  latencyMs?: number | ((call: number) => number);
  /** How latency passes; a test passes a clock's sleep so that no real time goes by. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface ScriptedBackend extends ChatBackend {
  /** Every request received, in order, including those that were then aborted or failed. */
  readonly requests: readonly ChatRequest[];
  /** Replies not yet given. */
  readonly remaining: number;
}

/**
 * The only fake in the LLM stack: a ChatBackend that answers from a script, in order. It records
 * the requests it gets, honours the abort signal at every step, and throws once the script is
 * used up (a test that asks for more answers than it wrote is wrong).
 */
export function scriptedBackend(replies: readonly ScriptedReply[], opts: ScriptedBackendOptions = {}): ScriptedBackend {
  const requests: ChatRequest[] = [];
  const sleep = opts.sleep ?? realSleep;
  const capabilities: BackendCapabilities = { jsonSchema: true, tools: true, thinking: true, ...opts.capabilities };
  let next = 0;
  return {
    name: opts.name ?? 'scripted',
    model: opts.model ?? 'scripted-model',
    capabilities,
    requests,
    get remaining() {
      return replies.length - next;
    },
    async complete(request, signal) {
      const index = requests.length;
      requests.push(request);
      signal.throwIfAborted();
      if (next >= replies.length) throw new Error(`scripted backend: no reply left for request ${index + 1}`);
      const reply = replies[next++] as ScriptedReply;
      const latency = typeof opts.latencyMs === 'function' ? opts.latencyMs(index) : (opts.latencyMs ?? 0);
      if (latency > 0) await sleep(latency, signal);
      signal.throwIfAborted();
      if (reply instanceof Error) throw reply;
      const response = typeof reply === 'function' ? await untilAborted(Promise.resolve(reply(request)), signal) : reply;
      signal.throwIfAborted();
      return copyOf(response);
    },
  };
}

/** A copy, so that a reply in the script is never changed by whoever receives it. */
function copyOf(response: ChatResponse): ChatResponse {
  if (typeof response !== 'object' || response === null) return response; // a broken fake is passed on as it is
  const toolCalls = response.toolCalls;
  return Array.isArray(toolCalls) ? { ...response, toolCalls: toolCalls.map((c) => ({ ...c })) } : { ...response };
}

function untilAborted<T>(pending: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function realSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
