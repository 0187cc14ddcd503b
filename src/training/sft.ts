/**
 * Supervised fine-tuning data from stored negotiations, in the chat format trainers read (`messages`,
 * and `tools` for tool calls). By default one example per move, exactly what the LLM agent sends
 * for that move (the system prompt and one user message, `buildPrompt`'s) followed by the seat's
 * answer, as a tool call or as a JSON move; `multi-turn` instead makes one example per seat per
 * negotiation, its moves' prompts and answers in one conversation. A model seat's prompts are the
 * ones it was actually sent (kept on each move's call record) when it was asked in the export's
 * interface; a scripted seat's (and a model's asked the other way) are rebuilt by replaying the
 * log, with short templated messages on message-less scripted moves, so the data reads like a
 * negotiation. Pure: usable from the command line and from the app.
 */
import { z } from 'zod';
import type { Move } from '../games/bilateral/moves';
import { bilateral, type BilateralObservation } from '../games/bilateral/protocol';
import { hashString } from '../engine/rng';
import type { Role } from '../games/bilateral/scenario';
import type { Retry } from '../engine/session';
import { DEFAULT_CONTEXT_WINDOW, MOVE_TOKENS, type ChatMessage } from '../agents/backends/types';
import { promptTokenBudget } from '../agents/llm/seat';
import { buildPrompt, money } from '../games/bilateral/llm/prompt';
import { promptText } from '../agents/llm/seat';
import { moveTools } from '../games/bilateral/llm/schema';
import type { MoveInterface } from '../agents/llm/settings';
import { isModelSpec } from '../agents/specs';
import { parseAgentSpec } from '../games/bilateral/specs';
import { isPlainObject } from '../agents/llm/fields';

export * from './sft-select';
import type { SftFormat, SftSource } from './sft-select';

/** Whether a text is a JSON object with no null anywhere: a tool call's arguments as the model is taught to write them. */
const isArgumentsObject = (text: string): boolean => {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) && !hasNull(value);
  } catch {
    return false;
  }
};
const hasNull = (value: unknown): boolean => value === null || (typeof value === 'object' && Object.values(value as Record<string, unknown>).some(hasNull));

const ToolCallSchema = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({
    name: z.string().min(1),
    /** JSON text (OpenAI's shape): a string column stays as written when `datasets` loads the file. */
    arguments: z.string().refine(isArgumentsObject, 'the arguments must be a JSON object with no null in it'),
  }),
});

/** One chat message of an example. */
export const SftMessageSchema = z.union([
  z.strictObject({ role: z.literal('system'), content: z.string().min(1) }),
  z.strictObject({ role: z.literal('user'), content: z.string().min(1) }),
  z.strictObject({ role: z.literal('assistant'), content: z.string().min(1) }),
  // Qwen3's template (and others) read `content` on every assistant turn: a call's is empty.
  z.strictObject({ role: z.literal('assistant'), content: z.literal(''), tool_calls: z.array(ToolCallSchema).length(1) }),
  z.strictObject({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: z.string().min(1) }),
]);
export type SftMessage = z.infer<typeof SftMessageSchema>;

const ToolSchema = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().min(1), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
});

/**
 * One example: the system message, then a user message before each assistant move (one of each in
 * the per-move format). With tools, each tool call but the last is answered by a `tool` message
 * before the next user message, as OpenAI's format asks.
 */
export const SftExampleSchema = z
  .strictObject({ messages: z.array(SftMessageSchema).min(3), tools: z.array(ToolSchema).min(1).optional() })
  .superRefine((ex, ctx) => {
    const roles = ex.messages.map((m) => m.role);
    if (roles[0] !== 'system') ctx.addIssue({ code: 'custom', message: 'the first message must be the system prompt' });
    if (roles.at(-1) !== 'assistant') ctx.addIssue({ code: 'custom', message: 'the last message must be an assistant move' });
    for (let i = 1; i < ex.messages.length; i++) {
      const m = ex.messages[i] as SftMessage;
      const before = roles[i - 1];
      const after = m.role === 'user' ? ['system', 'assistant', 'tool'] : m.role === 'assistant' ? ['user'] : m.role === 'tool' ? ['assistant'] : [];
      if (!after.includes(before as string)) ctx.addIssue({ code: 'custom', message: `message ${i} (${m.role}) cannot follow ${before}` });
      const calls = 'tool_calls' in m;
      if (m.role === 'assistant' && calls !== (ex.tools !== undefined))
        ctx.addIssue({ code: 'custom', message: `message ${i}: moves are tool calls exactly when the example has tools` });
      if (m.role === 'tool') {
        const prev = ex.messages[i - 1];
        const id = prev && 'tool_calls' in prev ? prev.tool_calls[0]?.id : undefined;
        if (id !== m.tool_call_id) ctx.addIssue({ code: 'custom', message: `message ${i}: answers no tool call of the message before` });
      }
    }
  });
export type SftExample = z.infer<typeof SftExampleSchema>;

export interface SftOptions {
  interface: MoveInterface;
  /** Default 'per-move'. */
  format?: SftFormat;
  /** Templated messages on scripted agents' message-less moves (default true). */
  templates?: boolean;
}

const isScripted = (spec: string): boolean => {
  const parsed = parseAgentSpec(spec);
  return parsed.ok && !isModelSpec(parsed.value);
};

/** The budget the LLM agent gives its prompt with the default context window and token limit. */
const defaultBudget = (style: MoveInterface): number => promptTokenBudget(DEFAULT_CONTEXT_WINDOW, MOVE_TOKENS, style === 'tools');

/** The two messages of a prompt as `promptText` recorded them, or null when the record is not one. */
export function messagesOfPromptText(text: string): ChatMessage[] | null {
  const head = '[system]\n';
  const sep = '\n\n[user]\n';
  if (!text.startsWith(head)) return null;
  const at = text.indexOf(sep);
  if (at < 0) return null;
  const messages: ChatMessage[] = [
    { role: 'system', content: text.slice(head.length, at) },
    { role: 'user', content: text.slice(at + sep.length) },
  ];
  return promptText(messages) === text ? messages : null;
}

const lastLine = (text: string): string => text.slice(text.lastIndexOf('\n') + 1);

const pick = <T>(items: readonly T[], key: string): T => items[hashString(key) % items.length] as T;

/** A short message for a scripted move that has none; the same move in the same place always gets the same one. */
export function templatedMessage(move: Move, obs: BilateralObservation, key: string): string | undefined {
  const action = move.action;
  if (action === undefined) return undefined;
  const role = obs.role;
  switch (action.type) {
    case 'offer': {
      const p = money(action.price);
      if (obs.ownOffers.length === 0)
        return role === 'buyer'
          ? pick([`I'd pay ${p} for it.`, `Would you take ${p}?`, `I can offer ${p}.`], key)
          : pick([`I'm asking ${p}.`, `It's yours for ${p}.`, `The price is ${p}.`], key);
      return pick([`I can do ${p}.`, `How about ${p}?`, `${p} is where I am now.`, `Let's say ${p}.`], key);
    }
    case 'accept': {
      const price = obs.pending ?? undefined;
      return price === undefined ? 'Deal.' : pick([`Deal at ${money(price)}.`, `Agreed: ${money(price)}.`, `${money(price)} works for me.`], key);
    }
    case 'reject':
      return pick(["That doesn't work for me.", 'No, that is too far from my number.'], key);
    case 'walk_away':
      return pick(["We're too far apart; I'll pass.", "I'll walk away; this doesn't work for me."], key);
  }
}

/** A move as the tool call the LLM agent would have made for it: only the fields the move has, never a null. */
export function moveAsToolCall(move: Move): { name: string; arguments: Record<string, unknown> } {
  const said = move.message === undefined ? {} : { message: move.message };
  const action = move.action;
  if (action === undefined) return { name: 'send_message', arguments: { message: move.message ?? '' } };
  switch (action.type) {
    case 'offer':
      return { name: 'make_offer', arguments: { price: action.price, ...said } };
    case 'accept':
    case 'reject':
      return { name: 'respond_to_offer', arguments: { decision: action.type, ...said } };
    case 'walk_away':
      return { name: 'walk_away', arguments: said };
  }
}

/**
 * JSON as Python's `json.dumps` writes it (", " and ": " between items), which is how a chat
 * template's `tojson` writes arguments given as an object: the text the model learns is the same
 * whether a trainer's template reads the arguments as text or as an object.
 */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

/** What the environment answers a tool call with, in a multi-turn example's `tool` message. */
function toolResult(move: Move): string {
  const action = move.action;
  if (action === undefined) return 'message sent';
  switch (action.type) {
    case 'offer':
      return `offer of ${money(action.price)} made`;
    case 'accept':
      return 'offer accepted';
    case 'reject':
      return 'offer rejected';
    case 'walk_away':
      return 'walked away';
  }
}

/** The move as the JSON interface asks for it: `{"message": …, "action": {…}}`. */
const moveAsJson = (move: Move): string =>
  JSON.stringify({ ...(move.message !== undefined && { message: move.message }), ...(move.action !== undefined && { action: move.action }) });

/** The seat's answer for one move: a tool call (with empty content) or the JSON move. */
function answer(move: Move, style: MoveInterface, id: string): SftMessage {
  if (style === 'json') return { role: 'assistant', content: moveAsJson(move) };
  const call = moveAsToolCall(move);
  return { role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name: call.name, arguments: pythonJson(call.arguments) } }] };
}

/** One move of the seat: the two messages the agent was (or would have been) sent for it, and the move. */
interface SeatMove {
  system: string;
  user: string;
  move: Move;
}

/**
 * The seat's moves with their prompts, in order. The negotiation must be a log the protocol
 * accepts (as every imported or played one is).
 */
function seatMovesOf(source: SftSource, seat: Role, style: MoveInterface, templates: boolean): SeatMove[] {
  const scripted: Record<Role, boolean> = { buyer: isScripted(source.buyer), seller: isScripted(source.seller) };
  const budget = defaultBudget(style);
  const moves: SeatMove[] = [];
  let state = bilateral.initialState(source.scenario);
  let retry: Retry | undefined;
  // The system prompt's last line says how moves are asked for (tools or JSON).
  let formatLine: string | undefined;
  for (const e of source.events) {
    if (e.type === 'end') break;
    if (e.type === 'invalid') {
      if (e.actor === seat) retry = { attempt: e.attempt + 1, reason: e.reason };
      continue;
    }
    if (e.type === 'forfeit') {
      state = bilateral.forfeit(state, e.actor);
      if (e.actor === seat) retry = undefined;
      continue;
    }
    let move = e.move;
    if (templates && scripted[e.actor] && move.message === undefined) {
      const message = templatedMessage(move, bilateral.observe(state, e.actor), `${source.jobId}|${e.turn}`);
      if (message !== undefined) move = { message, ...move };
    }
    if (e.actor === seat) {
      const obs = bilateral.observe(state, seat);
      let sent = e.call?.prompt === undefined ? null : messagesOfPromptText(e.call.prompt);
      // A prompt sent in the other interface asked for its moves another way: this example's is rebuilt.
      if (sent !== null && lastLine(sent[0]?.content ?? '') !== (formatLine ??= lastLine(buildPrompt(obs, { style })[0]?.content ?? ''))) sent = null;
      const [system, user] = (sent ?? buildPrompt(obs, { style, maxTokens: budget, ...(retry !== undefined && { retry }) })) as [ChatMessage, ChatMessage];
      moves.push({ system: system.content, user: user.content, move });
      retry = undefined;
    }
    const applied = bilateral.apply(state, e.actor, move);
    if (!applied.ok) throw new Error(`turn ${e.turn}: ${applied.error.reason}`);
    state = applied.value;
  }
  return moves;
}

/**
 * The examples for one seat of one negotiation: one per move (the default), or one multi-turn
 * example; none when the seat made no move.
 */
export function sftExamples(source: SftSource, seat: Role, opts: SftOptions): SftExample[] {
  const style = opts.interface;
  const moves = seatMovesOf(source, seat, style, opts.templates ?? true);
  const first = moves[0];
  if (first === undefined) return [];
  const withTools = (messages: SftMessage[]): SftExample => (style === 'tools' ? { messages, tools: openAiTools() } : { messages });
  if ((opts.format ?? 'per-move') === 'per-move')
    return moves.map((m) => withTools([{ role: 'system', content: m.system }, { role: 'user', content: m.user }, answer(m.move, style, 'call_0')]));
  const messages: SftMessage[] = [{ role: 'system', content: first.system }];
  moves.forEach((m, i) => {
    if (i > 0 && style === 'tools') messages.push({ role: 'tool', tool_call_id: `call_${i - 1}`, content: toolResult(moves[i - 1]!.move) });
    messages.push({ role: 'user', content: m.user }, answer(m.move, style, `call_${i}`));
  });
  return [withTools(messages)];
}

/** The move tools as the OpenAI-compatible backend sends them (`{type: "function", function: {…}}`). */
const openAiTools = () =>
  moveTools().map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters as Record<string, unknown> },
  }));
