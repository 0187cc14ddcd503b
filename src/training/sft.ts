/**
 * Supervised fine-tuning data from stored negotiations: one example per seat per negotiation, in
 * the chat format trainers read. The system prompt and each observation are exactly what the LLM
 * agent is given (`buildPrompt`); the seat's moves are the assistant turns, as tool calls (OpenAI's
 * fine-tuning shape, with `tools`) or as JSON moves. A model seat's prompts are the ones it was
 * actually sent (kept on each move's call record) when it was asked in the export's interface; a
 * scripted seat's (and a model's asked the other way) are rebuilt by replaying the log, with short
 * templated messages on message-less scripted moves, so the data reads like a negotiation. Pure:
 * usable from the command line and from the app.
 */
import { z } from 'zod';
import type { BilateralEvent } from '../games/bilateral/events';
import type { Move } from '../games/bilateral/moves';
import { bilateral, type BilateralObservation } from '../games/bilateral/protocol';
import { surplusShare } from '../games/bilateral/metrics';
import { hashString } from '../engine/rng';
import { TIERS } from '../games/bilateral/catalog';
import { hasGainsFromTrade, ROLES, ZoneBinSchema, zoneBinOf, type Role, type Scenario } from '../games/bilateral/scenario';
import type { Retry } from '../engine/session';
import { DEFAULT_CONTEXT_WINDOW, MOVE_TOKENS, type ChatMessage } from '../agents/backends/types';
import { promptTokenBudget } from '../agents/llm/seat';
import { buildPrompt, money } from '../games/bilateral/llm/prompt';
import { promptText } from '../agents/llm/seat';
import { moveTools } from '../games/bilateral/llm/schema';
import type { MoveInterface } from '../agents/llm/settings';
import { isModelSpec } from '../agents/specs';
import { parseAgentSpec } from '../games/bilateral/specs';

/** A negotiation as a run file holds it (the fields the export reads). */
export interface SftSource {
  jobId: string;
  buyer: string;
  seller: string;
  scenario: Scenario;
  events: readonly BilateralEvent[];
}

const ToolCallSchema = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().min(1), arguments: z.string() }),
});

/** One chat message of an example. */
export const SftMessageSchema = z.union([
  z.strictObject({ role: z.literal('system'), content: z.string().min(1) }),
  z.strictObject({ role: z.literal('user'), content: z.string().min(1) }),
  z.strictObject({ role: z.literal('assistant'), content: z.string().min(1) }),
  z.strictObject({ role: z.literal('assistant'), tool_calls: z.array(ToolCallSchema).length(1) }),
  z.strictObject({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: z.string().min(1) }),
]);
export type SftMessage = z.infer<typeof SftMessageSchema>;

const ToolSchema = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().min(1), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
});

/**
 * One example: a system message, then a user observation before each assistant move. With tools,
 * each tool call is answered by a `tool` message before the next observation, as OpenAI's format asks.
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

/** A move as the tool call the LLM agent would have made for it. */
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

/** What the environment answers a tool call with, in the example's `tool` message. */
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

/**
 * The example for one seat of one negotiation, or null when the seat made no move. The negotiation
 * must be a log the protocol accepts (as every imported or played one is).
 */
export function sftExample(source: SftSource, seat: Role, opts: SftOptions): SftExample | null {
  const style = opts.interface;
  const templates = opts.templates ?? true;
  const scripted: Record<Role, boolean> = { buyer: isScripted(source.buyer), seller: isScripted(source.seller) };
  const budget = defaultBudget(style);
  const messages: SftMessage[] = [];
  let state = bilateral.initialState(source.scenario);
  let retry: Retry | undefined;
  let calls = 0;
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
      const prompt = sent ?? buildPrompt(obs, { style, maxTokens: budget, ...(retry !== undefined && { retry }) });
      const [system, user] = prompt as [ChatMessage, ChatMessage];
      if (messages.length === 0) messages.push({ role: 'system', content: system.content });
      messages.push({ role: 'user', content: user.content });
      if (style === 'tools') {
        const call = moveAsToolCall(move);
        const id = `call_${calls++}`;
        messages.push({ role: 'assistant', tool_calls: [{ id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] });
        messages.push({ role: 'tool', tool_call_id: id, content: toolResult(move) });
      } else messages.push({ role: 'assistant', content: moveAsJson(move) });
      retry = undefined;
    }
    const applied = bilateral.apply(state, e.actor, move);
    if (!applied.ok) throw new Error(`turn ${e.turn}: ${applied.error.reason}`);
    state = applied.value;
  }
  if (messages.length === 0) return null;
  // The last tool call needs no answer: the example ends on the seat's last move.
  if (messages.at(-1)?.role === 'tool') messages.pop();
  return style === 'tools' ? { messages, tools: openAiTools() } : { messages };
}

const openAiTools = () =>
  moveTools().map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters as Record<string, unknown> },
  }));

// ---------------------------------------------------------------------------------------------
// Which seats of which negotiations, the split and the summary.

export interface SftFilter {
  seat: Role | 'both';
  /** The seat's agent, as the run names it (its spec label). */
  agent?: string;
  tier?: number;
  /** Zone bin 1–5 (1: no gains from trade). */
  zone?: number;
  dealsOnly?: boolean;
  /** The seat's share of v − c at least this (only deals with gains from trade pass). */
  minShare?: number;
  /** Leave out a seat that made a deal at a loss. */
  irOnly?: boolean;
}

/** A filter's limits: the worker checks the page's filter with it, the command line reads its flags' ranges from it. */
export const SftFilterSchema = z.object({
  seat: z.enum([...ROLES, 'both']),
  agent: z.string().min(1).max(500).optional(),
  tier: z.int().min(1).max(TIERS.length).optional(),
  zone: ZoneBinSchema.optional(),
  dealsOnly: z.boolean().optional(),
  minShare: z.number().min(0).max(1).optional(),
  irOnly: z.boolean().optional(),
});
const sftFilterFits: z.infer<typeof SftFilterSchema> extends SftFilter ? true : false = true;
void sftFilterFits;

/** The fraction of scenarios held out for validation. */
export const SftValidationSchema = z.number().min(0).max(0.9);

/** The seat's share of v − c (in [0, 1], as `surplusShare` defines it) on a deal with gains from trade, and whether it lost money. */
export function seatOutcome(source: SftSource, seat: Role): { deal: boolean; share: number | null; loss: boolean; ended: string } {
  const end = source.events.at(-1);
  const outcome = end?.type === 'end' ? end.outcome : null;
  const { buyerValue: v, sellerCost: c } = source.scenario;
  if (outcome?.kind !== 'deal') return { deal: false, share: null, loss: false, ended: outcome?.kind ?? 'unfinished' };
  const utility = seat === 'buyer' ? v - outcome.price : outcome.price - c;
  return {
    deal: true,
    share: hasGainsFromTrade(source.scenario) ? surplusShare(source.scenario, outcome.price, seat) : null,
    loss: utility < -1e-9,
    ended: 'deal',
  };
}

/** The seats of a negotiation that pass the filter. Negotiations that ended in an error or were cancelled teach nothing: none pass. */
export function selectedSeats(source: SftSource, filter: SftFilter): Role[] {
  const seats: Role[] = filter.seat === 'both' ? ['buyer', 'seller'] : [filter.seat];
  return seats.filter((seat) => {
    const o = seatOutcome(source, seat);
    if (o.ended === 'error' || o.ended === 'cancelled' || o.ended === 'unfinished') return false;
    if (filter.agent !== undefined && source[seat] !== filter.agent) return false;
    if (filter.tier !== undefined && source.scenario.tier !== filter.tier) return false;
    if (filter.zone !== undefined && zoneBinOf(source.scenario) !== filter.zone) return false;
    if (filter.dealsOnly && !o.deal) return false;
    if (filter.minShare !== undefined && (o.share === null || o.share < filter.minShare)) return false;
    if (filter.irOnly && o.loss) return false;
    return true;
  });
}

/** Whether the seat made a move before the end: exactly when `sftExample` gives an example for it. */
export function seatMoved(source: SftSource, seat: Role): boolean {
  for (const e of source.events) {
    if (e.type === 'end') return false;
    if (e.type === 'move' && e.actor === seat) return true;
  }
  return false;
}

/**
 * The scenarios held out for validation: `fraction` of the distinct ids (rounded, at least one
 * when the fraction is above 0 and there are two or more, never all), chosen by a hash of the id,
 * so the same scenarios always go the same way and no scenario is on both sides.
 */
export function validationScenarios(scenarioIds: Iterable<string>, fraction: number): Set<string> {
  const ids = [...new Set(scenarioIds)];
  if (fraction <= 0 || ids.length < 2) return new Set();
  const n = Math.min(ids.length - 1, Math.max(1, Math.round(fraction * ids.length)));
  const ranked = ids.map((id) => ({ id, rank: hashString(`sft-validation|${id}`) })).sort((a, b) => a.rank - b.rank || (a.id < b.id ? -1 : 1));
  return new Set(ranked.slice(0, n).map((r) => r.id));
}

export interface SftSummary {
  examples: number;
  train: number;
  validation: number;
  scenarios: { train: number; validation: number };
  byTier: Record<string, number>;
  /** `agent (seat)` → examples. */
  byAgent: Record<string, number>;
  /** Shares over the examples whose negotiation was a deal with gains from trade. */
  share: {
    n: number;
    mean: number | null;
    min: number | null;
    p25: number | null;
    median: number | null;
    p75: number | null;
    max: number | null;
    histogram: number[];
  };
}

/** Tallies what was exported; `share` is each example's seat share (null without a deal with gains). */
export class SftTally {
  private readonly shares: number[] = [];
  private readonly byTier = new Map<number, number>();
  private readonly byAgent = new Map<string, number>();
  private readonly trainScenarios = new Set<string>();
  private readonly validationScenarios = new Set<string>();
  private train = 0;
  private validation = 0;

  add(source: SftSource, seat: Role, heldOut: boolean): void {
    if (heldOut) {
      this.validation++;
      this.validationScenarios.add(source.scenario.id);
    } else {
      this.train++;
      this.trainScenarios.add(source.scenario.id);
    }
    this.byTier.set(source.scenario.tier, (this.byTier.get(source.scenario.tier) ?? 0) + 1);
    const agent = `${source[seat]} (${seat})`;
    this.byAgent.set(agent, (this.byAgent.get(agent) ?? 0) + 1);
    const share = seatOutcome(source, seat).share;
    if (share !== null) this.shares.push(share);
  }

  summary(): SftSummary {
    const sorted = [...this.shares].sort((a, b) => a - b);
    const q = (p: number): number | null => (sorted.length === 0 ? null : (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number));
    // Ten bins over [0, 1]; a share outside (a deal at a loss for one side) goes to the end bin.
    const histogram = new Array<number>(10).fill(0);
    for (const s of sorted) histogram[Math.min(9, Math.max(0, Math.floor(s * 10)))]! += 1;
    return {
      examples: this.train + this.validation,
      train: this.train,
      validation: this.validation,
      scenarios: { train: this.trainScenarios.size, validation: this.validationScenarios.size },
      byTier: Object.fromEntries([...this.byTier].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v])),
      byAgent: Object.fromEntries([...this.byAgent].sort((a, b) => (a[0] < b[0] ? -1 : 1))),
      share: {
        n: sorted.length,
        mean: sorted.length === 0 ? null : sorted.reduce((a, b) => a + b, 0) / sorted.length,
        min: sorted[0] ?? null,
        p25: q(0.25),
        median: q(0.5),
        p75: q(0.75),
        max: sorted.at(-1) ?? null,
        histogram,
      },
    };
  }
}
