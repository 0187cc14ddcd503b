/**
 * A fake WebLLM engine: MLCEngine's interface as far as Parley uses it (`chat.completions.create`,
 * `interruptGenerate`, `getMessage`, `unload`), behaving as WebLLM 0.2.86 does wherever a test can
 * tell (node_modules/@mlc-ai/web-llm/lib/index.js):
 * - a request is checked before anything else, as getLLMStates and postInitAndCheckFields do
 *   (model loaded, message order, schema only with json_object, a structural tag only with
 *   structural_tag, value ranges);
 * - one generation at a time, behind a lock like WebLLM's per-model CustomLock; the interrupt flag
 *   is cleared once a request has taken the lock, so an interrupt sent while a request waits for
 *   the lock is lost, as it is in WebLLM;
 * - an interrupted generation resolves with finish_reason "abort";
 * - with `enable_thinking: false` the answer opens with the empty `<think>\n\n</think>\n\n` WebLLM prepends;
 * - a device lost after load (`loseDevice()`, or a `{ lose: true }` reply) is what WebLLM's
 *   device-lost handler makes of it: it unloads, so the move in progress (and any waiting for the
 *   lock) rejects with TVM's disposal error, and every later call with WebLLM's ModelNotLoadedError.
 *   `unload()` does the same, as WebLLM's does.
 */
import type { ChatCompletion, ChatCompletionRequestNonStreaming, InitProgressReport } from '@mlc-ai/web-llm';
import type { WebLlmEngineLike } from '../../../../src/agents/backends/webllm/backend';
import type { Role } from '../../../../src/games/bilateral/scenario';

/**
 * One answer: the text, an Error (or a string, as errors cross WebLLM's worker) to reject with, a
 * hang until interrupted, a stall that not even an interrupt ends (a stuck GPU), or the device lost
 * during this move.
 */
export type FakeReply =
  | string
  | { text: string; promptTokens?: number; completionTokens?: number; finish?: 'stop' | 'length'; model?: string }
  | { reject: unknown }
  | { hang: true; partial?: string }
  | { stall: true }
  | { lose: true; error?: Error };

export type FakeModel = (request: ChatCompletionRequestNonStreaming, index: number) => FakeReply | Promise<FakeReply>;

export interface FakeEngine extends WebLlmEngineLike {
  /** Every request received, in order, including refused ones. */
  readonly requests: ChatCompletionRequestNonStreaming[];
  /**
   * The one-token requests (the pool's grammar warm-ups: webllm/warmup.ts), kept apart from the
   * moves: the model is not asked, and a one-token answer comes back as WebLLM's would, cut at
   * its length.
   */
  readonly warmups: ChatCompletionRequestNonStreaming[];
  readonly interrupts: number;
  /** Requests WebLLM itself would have refused, with the reason. */
  readonly refused: string[];
  /** Requests held back by the lock, waiting for the generation in progress. */
  readonly waiting: number;
  readonly unloads: number;
  /** The GPU device is lost now: WebLLM's handler unloads the model (see above). */
  loseDevice(error?: Error): void;
  /** The answer so far; rejects with ModelNotLoadedError when no model is loaded, as WebLLM's does. */
  getMessage(): Promise<string>;
  unload(): Promise<void>;
}

export const EMPTY_THINKING = '<think>\n\n</think>\n\n';

/** WebLLM's ModelNotLoadedError, worded as its constructor words it. */
export function modelNotLoadedError(requestName: string): Error {
  const error = new Error(
    `Model not loaded before trying to complete ${requestName}. Please ensure you have called ` +
      `MLCEngine.reload(model) to load the model before initiating APIs, ` +
      `or initialize your engine using CreateMLCEngine() with a valid model configuration.`,
  );
  error.name = 'ModelNotLoadedError';
  return error;
}

/** What TVM's runtime throws (plain Errors) at work in progress once it has been disposed. */
export const DISPOSED_TEXTS = [
  'Tensor has already been disposed',
  'Object has already been disposed',
  'The current Object has already been disposed',
  'WebGPU context is not initialized',
  'Asyncify packed function has already been disposed',
] as const;

/** WebLLM's own request checks (postInitAndCheckFields and the generation config ranges). */
function refusal(request: ChatCompletionRequestNonStreaming, loaded: readonly string[]): string | null {
  if (request.model != null && !loaded.includes(request.model)) return `SpecifiedModelNotFoundError: ${request.model} is not loaded`;
  if (request.model == null && loaded.length > 1) return 'UnclearModelToUseError: several models are loaded';
  if (request.stream) return 'this fake answers only non-streaming requests';
  const messages = request.messages;
  if (messages.length === 0) return 'MessageOrderError: no messages';
  for (const [i, m] of messages.entries()) {
    if (m.role === 'system' && i !== 0) return 'SystemMessageOrderError';
    if (typeof m.content !== 'string') return 'this fake takes text content only';
  }
  if (messages[messages.length - 1]?.role !== 'user') return 'MessageOrderError: Last message should be from either `user` or `tool`.';
  const format = request.response_format;
  if (format?.schema !== undefined) {
    if (format.type !== 'json_object') return 'InvalidResponseFormatError: schema needs type json_object';
    if (typeof format.schema !== 'string') return 'the schema must be a JSON string';
    JSON.parse(format.schema);
  }
  if ((format?.structural_tag != null) !== (format?.type === 'structural_tag'))
    return 'InvalidResponseFormatStructuralTagError: structural_tag goes with type structural_tag';
  if (request.temperature != null && !(request.temperature >= 0 && request.temperature <= 2)) return 'RangeError: temperature';
  if (request.max_tokens != null && !(request.max_tokens > 0)) return 'MinValueError: max_tokens';
  if (request.tools !== undefined) return 'UnsupportedToolsError: Qwen3 is not a function-calling model in WebLLM';
  return null;
}

const approxTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

function completion(
  request: ChatCompletionRequestNonStreaming,
  text: string,
  modelId: string,
  extra: {
    promptTokens?: number;
    completionTokens?: number;
    finish: 'stop' | 'length' | 'abort';
  },
): ChatCompletion {
  const promptTokens = extra.promptTokens ?? approxTokens(request.messages.map((m) => String(m.content)).join('\n'));
  const completionTokens = extra.completionTokens ?? approxTokens(text);
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 0,
    model: modelId,
    choices: [{ index: 0, finish_reason: extra.finish, logprobs: null, message: { role: 'assistant', content: text } }],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      extra: { e2e_latency_s: 0, prefill_tokens_per_s: 0, decode_tokens_per_s: 0, time_to_first_token_s: 0, time_per_output_token_s: 0 },
    },
  };
}

/** WebLLM's CustomLock: taken at once when free, else handed over in order by release(). */
class Lock {
  private held = false;
  private readonly queue: (() => void)[] = [];

  get waiting(): number {
    return this.queue.length;
  }

  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.held = false;
  }
}

export function fakeEngine(model: FakeModel | readonly FakeReply[], opts: { loaded?: readonly string[] } = {}): FakeEngine {
  let loaded = [...(opts.loaded ?? ['Qwen3-0.6B-q4f16_1-MLC'])];
  const requests: ChatCompletionRequestNonStreaming[] = [];
  const warmups: ChatCompletionRequestNonStreaming[] = [];
  const refused: string[] = [];
  const lock = new Lock();
  let interrupts = 0;
  let unloads = 0;
  // WebLLM's interruptSignal: one flag for the engine, raised by interruptGenerate, cleared by the request that takes the lock.
  let interruptSignal = false;
  let lastMessage = '';
  const wakers = new Set<() => void>();
  /** What work in progress meets once the runtime is disposed; null while the model is loaded. */
  let disposed: Error | null = null;
  const onDisposed = new Set<(error: Error) => void>();
  const answer: FakeModel =
    typeof model === 'function'
      ? model
      : (_, i) => {
          const reply = model[i];
          if (reply === undefined) throw new Error(`fake engine: no reply left for request ${i + 1}`);
          return reply;
        };

  /** WebLLM's unload, as its device-lost handler or a caller runs it: the runtime is disposed under whatever runs. */
  const dispose = (error: Error) => {
    loaded = [];
    disposed ??= error;
    for (const reject of [...onDisposed]) reject(disposed);
  };
  /** `work`, unless the runtime is disposed first. */
  const unlessDisposed = <T>(work: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (disposed) return reject(disposed);
      onDisposed.add(reject);
      work.then(resolve, reject).finally(() => onDisposed.delete(reject));
    });
  const untilInterrupted = (): Promise<void> =>
    new Promise((resolve) => {
      if (interruptSignal) return resolve();
      const wake = () => {
        wakers.delete(wake);
        resolve();
      };
      wakers.add(wake);
    });

  async function generate(request: ChatCompletionRequestNonStreaming, index: number, modelId: string): Promise<ChatCompletion> {
    if (index < 0) return unlessDisposed(Promise.resolve(completion(request, '{', modelId, { finish: 'length', completionTokens: 1 })));
    const reply = await unlessDisposed(Promise.resolve(answer(request, index)));
    const prefix = request.extra_body?.enable_thinking === false ? EMPTY_THINKING : '';
    if (typeof reply === 'string') return completion(request, prefix + reply, modelId, { finish: 'stop' });
    if ('reject' in reply) throw reply.reject;
    if ('lose' in reply) {
      dispose(reply.error ?? new Error(DISPOSED_TEXTS[0]));
      throw disposed;
    }
    if ('stall' in reply) return unlessDisposed(new Promise<never>(() => undefined));
    if ('hang' in reply) {
      await unlessDisposed(untilInterrupted());
      return completion(request, prefix + (reply.partial ?? ''), modelId, { finish: 'abort' });
    }
    return completion(request, prefix + reply.text, reply.model ?? modelId, {
      finish: reply.finish ?? 'stop',
      ...(reply.promptTokens !== undefined && { promptTokens: reply.promptTokens }),
      ...(reply.completionTokens !== undefined && { completionTokens: reply.completionTokens }),
    });
  }

  return {
    requests,
    warmups,
    refused,
    get interrupts() {
      return interrupts;
    },
    get waiting() {
      return lock.waiting;
    },
    get unloads() {
      return unloads;
    },
    interruptGenerate() {
      interrupts++;
      interruptSignal = true;
      for (const wake of [...wakers]) wake();
    },
    loseDevice(error = new Error(DISPOSED_TEXTS[0])) {
      dispose(error);
    },
    async getMessage() {
      if (loaded.length === 0) throw modelNotLoadedError('getMessage');
      return lastMessage;
    },
    async unload() {
      unloads++;
      dispose(new Error(DISPOSED_TEXTS[1]));
    },
    chat: {
      completions: {
        async create(request) {
          const warmup = request.max_tokens === 1;
          const index = warmup ? -1 : requests.length;
          (warmup ? warmups : requests).push(structuredClone(request));
          // Checked before the lock, as WebLLM's chatCompletion does.
          if (loaded.length === 0) throw modelNotLoadedError('ChatCompletionRequest');
          const why = refusal(request, loaded);
          if (why !== null) {
            refused.push(why);
            throw new Error(why);
          }
          const modelId = request.model ?? (loaded[0] as string);
          await lock.acquire();
          try {
            // WebLLM: "An interrupt applies only to the request that was running when it was raised."
            interruptSignal = false;
            if (disposed) throw disposed;
            const done = await generate(request, index, modelId);
            lastMessage = String(done.choices[0]?.message.content ?? '');
            return done;
          } finally {
            lock.release();
          }
        },
      },
    },
  };
}

/** How a fake load goes: its weight shards (and their size), its shader modules, whether the weights are cached already. */
export interface LoadShape {
  shards?: number;
  megabytes?: number;
  shaders?: number;
  cached?: boolean;
  gpu?: string;
}

/**
 * The reports WebLLM 0.2.86 sends its initProgressCallback during one load, in its words: each
 * phase goes from 0 to 1 on its own — the download ("Fetching param cache[…]", skipped when every
 * shard is cached), the copy to the GPU ("Loading model from cache[…]"), the shader compilation
 * ("Loading GPU shader modules[…]") — then "Finish loading on WebGPU - …" at 1.
 */
export function webLlmLoadReports({ shards = 4, megabytes = 400, shaders = 3, cached = false, gpu = 'fake adapter' }: LoadShape = {}): InitProgressReport[] {
  const reports: InitProgressReport[] = [{ progress: 0, timeElapsed: 0, text: 'Start to fetch params' }];
  let seconds = 0;
  const shardPhase = (words: (i: number, mb: number, percent: number, secs: number) => string) => {
    for (let i = 1; i <= shards; i++) {
      const secs = ++seconds;
      const text = words(i, Math.ceil((megabytes * i) / shards), Math.floor((i * 100) / shards), secs);
      reports.push({ progress: i / shards, timeElapsed: secs, text });
    }
  };
  if (!cached)
    shardPhase(
      (i, mb, percent, secs) =>
        `Fetching param cache[${i}/${shards}]: ${mb}MB fetched. ${percent}% completed, ${secs} secs elapsed. ` +
        'It can take a while when we first visit this page to populate the cache. Later refreshes will become faster.',
    );
  shardPhase((i, mb, percent, secs) => `Loading model from cache[${i}/${shards}]: ${mb}MB loaded. ${percent}% completed, ${secs} secs elapsed.`);
  for (let i = 1; i <= shaders; i++) {
    const secs = ++seconds;
    const progress = i / shaders;
    reports.push({
      progress,
      timeElapsed: secs,
      text: `Loading GPU shader modules[${i}/${shaders}]: ${Math.floor(progress * 100)}% completed, ${secs} secs elapsed.`,
    });
  }
  reports.push({ progress: 1, timeElapsed: seconds, text: `Finish loading on WebGPU - ${gpu}` });
  return reports;
}

export const systemOf = (req: ChatCompletionRequestNonStreaming) => String(req.messages[0]?.content ?? '');
export const userOf = (req: ChatCompletionRequestNonStreaming) => String(req.messages[req.messages.length - 1]?.content ?? '');
const num = (re: RegExp, text: string): number | null => {
  const m = re.exec(text);
  return m ? Number(m[1]) : null;
};
const round2 = (x: number) => Math.round(x * 100) / 100;

/** Whether the request offers tools the way the backend writes them for Qwen3 (in the system message). */
export const toolsOffered = (req: ChatCompletionRequestNonStreaming): boolean => systemOf(req).includes('\n<tools>\n');

/** A move as Qwen3 calls a move tool: `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`. */
export function toolCallText(move: { message?: string; action?: { type: string; price?: number } }): string {
  const said = move.message === undefined ? {} : { message: move.message };
  const action = move.action;
  const [name, args] =
    action === undefined
      ? ['send_message', said]
      : action.type === 'offer'
        ? ['make_offer', { price: action.price, ...said }]
        : action.type === 'walk_away'
          ? ['walk_away', said]
          : ['respond_to_offer', { decision: action.type, ...said }];
  return `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
}

/**
 * A "model" that reads its prompt: it never goes past its own reservation value, concedes a
 * little each turn and accepts any pending offer it can afford. It answers with a tool call in
 * Qwen3's format when the request offers tools, else with the move as JSON.
 */
export function thrifty(wrap: (answer: string, req: ChatCompletionRequestNonStreaming) => FakeReply = (answer) => answer): FakeModel {
  return (req) => {
    const system = systemOf(req);
    const user = userOf(req);
    const role = /You are the (buyer|seller)/.exec(system)?.[1] as Role;
    const reservation = num(/Your private (?:value for it|cost): \$(\d+\.\d+)/, system) as number;
    const list = num(/list price \$(\d+\.\d+)/, system) as number;
    const pending = num(/binding offer of \$(\d+\.\d+); you may accept/, user);
    const ownTurn = num(/your turn (\d+) of/, user) as number;
    let json: string;
    if (pending !== null && (role === 'buyer' ? pending <= reservation : pending >= reservation))
      json = JSON.stringify({ message: 'Deal.', action: { type: 'accept' } });
    else {
      const step = 0.08 * (ownTurn - 1);
      const price = role === 'buyer' ? Math.min(reservation, list * (0.3 + step)) : Math.max(reservation, list * (1.4 - step));
      json = JSON.stringify({ message: `I can do ${round2(price)}.`, action: { type: 'offer', price: round2(price) } });
    }
    return wrap(toolsOffered(req) ? toolCallText(JSON.parse(json) as Parameters<typeof toolCallText>[0]) : json, req);
  };
}
