/**
 * The prompt, built from one observation: who the agent is, its own private value (the
 * observation holds no other), the rules, the turns left and the conversation so far. Compact,
 * for small models with small contexts: a system message and one user message, fitted into a
 * token budget by leaving out the oldest messages (never a binding action) when it must.
 */
import type { Action } from '../moves';
import { MAX_MESSAGE_LENGTH } from '../../../engine/message';
import type { BilateralObservation, TranscriptEntry } from '../protocol';
import { opponentOf, type Role } from '../scenario';
import type { Retry } from '../../../engine/session';
import type { ChatMessage } from '../../../agents/backends/types';
import { estimateTokens } from '../../../agents/llm/tokens';

export type PromptStyle = 'json' | 'tools';

export interface PromptOptions {
  style: PromptStyle;
  retry?: Retry;
  /** Tokens the two messages may take (estimated with `estimateTokens`); no limit when left out. */
  maxTokens?: number;
}

const MAX_REASON = 300;

/** Every amount in a prompt is written this way. */
export const money = (price: number): string => `$${price.toFixed(2)}`;

const FORMAT: Record<PromptStyle, string> = {
  json:
    'Answer with one JSON object and nothing else: {"message": "<what you say>", "action": {"type": "offer", "price": <number>}}. ' +
    'action.type is offer, accept, reject or walk_away; only an offer has a "price", in dollars. Set "action" to null to only talk.',
  tools:
    'Make your move by calling exactly one tool: make_offer, respond_to_offer (accept or reject their pending offer), ' +
    'send_message (talk only) or walk_away.',
};

/** What the agent knows about the deadline, and nothing more. */
function deadlineRule(obs: BilateralObservation): string {
  if (obs.turnLimit !== null) return `Turns alternate, ${obs.turnLimit} in all (${obs.ownTurns} yours). When they run out there is no deal.`;
  const { min, max } = obs.turnRange;
  return (
    `Turns alternate. The negotiation ends after some turn between ${min} and ${max}; nobody knows which in advance ` +
    `(you are sure of ${obs.ownTurns} turns). When it ends there is no deal.`
  );
}

function systemMessage(obs: BilateralObservation, style: PromptStyle): string {
  const r = money(obs.reservation);
  const { name, category, listPrice } = obs.item;
  const own =
    obs.role === 'buyer'
      ? `Your private value for it: ${r}. Paying more than ${r} is a loss.`
      : `Your private cost: ${r}. Selling for less than ${r} is a loss.`;
  const aim = obs.role === 'buyer' ? 'buy as cheaply as you can' : 'sell as dearly as you can';
  return [
    `You are the ${obs.role} in a one-on-one negotiation over one item: ${name} (${category}), list price ${money(listPrice)}.`,
    `${own} Never make or accept a deal at a loss: no deal is better. The ${opponentOf(obs.role)} does not know this number, and you do not know theirs. Your aim: ${aim}.`,
    '',
    'Rules:',
    `- ${deadlineRule(obs)}`,
    `- Each turn is one move: an optional message (at most ${MAX_MESSAGE_LENGTH} characters) and at most one action:`,
    '  offer (with a price): binding; it replaces your earlier offer, and the other side may accept it.',
    "  accept: take the other side's pending offer; the deal closes at that price.",
    '  reject: turn down their pending offer without a counter-offer.',
    '  walk_away: end the negotiation with no deal.',
    '  Or only send a message; a pending offer stays on the table.',
    '- Only actions bind: a price named in a message is not an offer.',
    '',
    FORMAT[style],
  ].join('\n');
}

function describeAction(action: Action, actor: Role, self: Role): string {
  switch (action.type) {
    case 'offer':
      return `[binding offer: ${money(action.price)}]`;
    case 'accept':
      return actor === self ? `[accepted the ${opponentOf(self)}'s offer]` : '[accepted your offer]';
    case 'reject':
      return actor === self ? `[rejected the ${opponentOf(self)}'s offer]` : '[rejected your offer]';
    case 'walk_away':
      return '[walked away]';
  }
}

/** One turn of the transcript; `elided` leaves its message out (its action stays; a message alone becomes "…"). */
function transcriptLine(entry: TranscriptEntry, self: Role, elided = false): string {
  const who = entry.actor === self ? 'you' : entry.actor;
  if ('forfeited' in entry) return `${entry.turn + 1}. ${who}: [missed the turn]`;
  const parts: string[] = [];
  if (entry.message !== undefined && !(elided && entry.action !== undefined)) parts.push(elided ? '"…"' : JSON.stringify(entry.message));
  if (entry.action !== undefined) parts.push(describeAction(entry.action, entry.actor, self));
  return `${entry.turn + 1}. ${who}: ${parts.join(' ')}`;
}

/** The binding offers of turns left out altogether, so no offer vanishes without a word. */
function foldedLine(entries: readonly TranscriptEntry[], self: Role): string {
  const first = (entries[0]?.turn ?? 0) + 1;
  const last = (entries.at(-1)?.turn ?? 0) + 1;
  const offers = (role: Role): number[] =>
    entries.flatMap((e) => (!('forfeited' in e) && e.actor === role && e.action?.type === 'offer' ? [e.action.price] : []));
  const range = (prices: number[]): string =>
    prices.length === 0
      ? 'none'
      : prices.length === 1
        ? money(prices[0] as number)
        : `${money(prices[0] as number)} first, ${money(prices.at(-1) as number)} last`;
  const other = opponentOf(self);
  return `(turns ${first}–${last} are not shown; your binding offers in them: ${range(offers(self))}; the ${other}'s: ${range(offers(other))})`;
}

/**
 * The transcript's lines within `budget` tokens: every line whole if they fit, else the oldest
 * messages left out one by one (their actions stay), and only if even that is too long, the
 * oldest turns folded into one line that names their first and last binding offers.
 */
function transcriptLines(obs: BilateralObservation, budget: number): string[] {
  const entries = obs.transcript;
  const whole = entries.map((e) => transcriptLine(e, obs.role));
  const bare = entries.map((e) => transcriptLine(e, obs.role, true));
  const cost = (line: string): number => estimateTokens(line) + 1;
  const wholeCost = whole.map(cost);
  const bareCost = bare.map(cost);
  let total = wholeCost.reduce((a, b) => a + b, 0);
  if (total <= budget) return whole;
  const note = (n: number) => `(the messages of turns 1–${(entries[n - 1]?.turn ?? 0) + 1} are left out to fit; every action is shown)`;
  let elided = 0;
  while (elided < entries.length && total + cost(note(elided + 1)) > budget) {
    total -= (wholeCost[elided] as number) - (bareCost[elided] as number);
    elided++;
  }
  if (total + cost(note(elided)) <= budget) return [note(elided), ...bare.slice(0, elided), ...whole.slice(elided)];
  // Even without their messages the turns are too many: fold the oldest into one line.
  let folded = 0;
  do {
    total -= bareCost[folded] as number;
    folded++;
  } while (folded < entries.length && total + cost(foldedLine(entries.slice(0, folded), obs.role)) > budget);
  return [foldedLine(entries.slice(0, folded), obs.role), ...bare.slice(folded)];
}

function stateMessage(obs: BilateralObservation, retry: Retry | undefined, budget: number): string {
  const head: string[] = [];
  const ownLeft = obs.ownTurns - obs.ownTurn;
  let timing: string;
  if (obs.turnLimit !== null) {
    timing = `Turn ${obs.turn + 1} of ${obs.turnLimit}; your turn ${obs.ownTurn + 1} of ${obs.ownTurns}.`;
    if (obs.turn + 1 >= obs.turnLimit) timing += ' This is the last turn: an offer now cannot be accepted.';
    else if (ownLeft <= 1) timing += ' This is your last turn.';
  } else {
    const { min, max } = obs.turnRange;
    timing = `Turn ${obs.turn + 1}; your turn ${obs.ownTurn + 1}. The negotiation ends after some turn between ${min} and ${max}.`;
    if (obs.turn + 1 >= max) timing += ' This is the last possible turn: an offer now cannot be accepted.';
    else if (obs.turn + 1 >= min) timing += ' It may end after this turn.';
  }
  head.push(timing);
  head.push(obs.transcript.length === 0 ? 'No moves yet: you open.' : 'Conversation so far:');

  const tail: string[] = [];
  const other = opponentOf(obs.role);
  if (obs.pending !== null) tail.push(`On the table: the ${other}'s binding offer of ${money(obs.pending)}; you may accept it.`);
  else if (obs.ownStanding !== null) tail.push(`On the table: your own offer of ${money(obs.ownStanding)}, waiting for the ${other}'s answer.`);
  else tail.push('On the table: no offer.');

  if (retry !== undefined) {
    const reason = retry.reason.length > MAX_REASON ? `${retry.reason.slice(0, MAX_REASON)}…` : retry.reason;
    tail.push(`Your previous answer was refused: ${reason}. Answer again, following the format.`);
  }
  tail.push('Your move.');
  const fixed = estimateTokens([...head, ...tail].join('\n')) + 1;
  return [...head, ...transcriptLines(obs, budget - fixed), ...tail].join('\n');
}

export function buildPrompt(obs: BilateralObservation, opts: PromptOptions): ChatMessage[] {
  const system = systemMessage(obs, opts.style);
  const budget = opts.maxTokens === undefined ? Infinity : opts.maxTokens - estimateTokens(system);
  return [
    { role: 'system', content: system },
    { role: 'user', content: stateMessage(obs, opts.retry, budget) },
  ];
}

/** The messages as one text, for the record. */
export const promptText = (messages: readonly ChatMessage[]): string => messages.map((m) => `[${m.role}]\n${m.content}`).join('\n\n');
