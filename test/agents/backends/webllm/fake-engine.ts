/**
 * A fake WebLLM engine with exactly the interface the backend uses: `chat.completions.create`
 * and `interruptGenerate`. It checks every request the way WebLLM 0.2.86 does before it
 * generates (model loaded, message order, schema only with json_object, a structural tag only
 * with structural_tag, value ranges) and
 * answers like it: with `enable_thinking: false` the answer opens with the empty
 * `<think>\n\n</think>\n\n` WebLLM prepends; an interrupted generation resolves with
 * finish_reason "abort".
 */
import type { ChatCompletion, ChatCompletionRequestNonStreaming } from '@mlc-ai/web-llm';
import type { WebLlmEngineLike } from '../../../../src/agents/backends/webllm/backend';
import type { Role } from '../../../../src/core/scenario';

/** One answer: the text, an Error (or a string, as errors cross WebLLM's worker) to reject with, or a hang. */
export type FakeReply =
  | string
  | { text: string; promptTokens?: number; completionTokens?: number; finish?: 'stop' | 'length'; model?: string }
  | { reject: unknown }
  | { hang: true; partial?: string };

export type FakeModel = (request: ChatCompletionRequestNonStreaming, index: number) => FakeReply | Promise<FakeReply>;

export interface FakeEngine extends WebLlmEngineLike {
  /** Every request received, in order, including refused ones. */
  readonly requests: ChatCompletionRequestNonStreaming[];
  readonly interrupts: number;
  /** Requests WebLLM itself would have refused, with the reason. */
  readonly refused: string[];
}

export const EMPTY_THINKING = '<think>\n\n</think>\n\n';

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

function completion(request: ChatCompletionRequestNonStreaming, text: string, modelId: string, extra: {
  promptTokens?: number;
  completionTokens?: number;
  finish: 'stop' | 'length' | 'abort';
}): ChatCompletion {
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

export function fakeEngine(model: FakeModel | readonly FakeReply[], opts: { loaded?: readonly string[] } = {}): FakeEngine {
  const loaded = opts.loaded ?? ['Qwen3-0.6B-q4f16_1-MLC'];
  const requests: ChatCompletionRequestNonStreaming[] = [];
  const refused: string[] = [];
  let interrupts = 0;
  let wake: (() => void) | null = null;
  const answer: FakeModel =
    typeof model === 'function'
      ? model
      : (_, i) => {
          const reply = model[i];
          if (reply === undefined) throw new Error(`fake engine: no reply left for request ${i + 1}`);
          return reply;
        };

  return {
    requests,
    refused,
    get interrupts() {
      return interrupts;
    },
    interruptGenerate() {
      interrupts++;
      wake?.();
    },
    chat: {
      completions: {
        async create(request) {
          const index = requests.length;
          requests.push(structuredClone(request));
          const why = refusal(request, loaded);
          if (why !== null) {
            refused.push(why);
            throw new Error(why);
          }
          const modelId = request.model ?? (loaded[0] as string);
          const reply = await answer(request, index);
          const thinkingOff = request.extra_body?.enable_thinking === false;
          const prefix = thinkingOff ? EMPTY_THINKING : '';
          if (typeof reply === 'string') return completion(request, prefix + reply, modelId, { finish: 'stop' });
          if ('reject' in reply) throw reply.reject;
          if ('hang' in reply) {
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
            wake = null;
            return completion(request, prefix + (reply.partial ?? ''), modelId, { finish: 'abort' });
          }
          return completion(request, prefix + reply.text, reply.model ?? modelId, {
            finish: reply.finish ?? 'stop',
            ...(reply.promptTokens !== undefined && { promptTokens: reply.promptTokens }),
            ...(reply.completionTokens !== undefined && { completionTokens: reply.completionTokens }),
          });
        },
      },
    },
  };
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
