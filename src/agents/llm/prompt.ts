/**
 * The prompt, built from one observation: who the agent is, its own private value (the
 * observation holds no other), the rules, the turns left and the conversation so far. Compact,
 * for small models with small contexts: a system message and one user message.
 */
import { MAX_MESSAGE_LENGTH, type Action } from '../../core/bilateral/moves';
import type { BilateralObservation, TranscriptEntry } from '../../core/bilateral/protocol';
import { opponentOf, type Role } from '../../core/scenario';
import type { Retry } from '../../core/session';
import type { ChatMessage } from '../backends/types';

export type PromptStyle = 'json' | 'tools';

/** Only the latest turns are shown; a long negotiation would not fit a small context. */
export const MAX_TRANSCRIPT_ENTRIES = 30;
const MAX_REASON = 300;

/** Every amount in a prompt is written this way. */
export const money = (price: number): string => `$${price.toFixed(2)}`;

const FORMAT: Record<PromptStyle, string> = {
  json:
    'Answer with one JSON object and nothing else: {"message": "<what you say>", "action": {"type": "offer", "price": <number>}}. ' +
    'action.type is offer, accept, reject or walk_away; only an offer has a "price", in dollars. Leave out "action" to only talk.',
  tools:
    'Make your move by calling exactly one tool: make_offer, respond_to_offer (accept or reject their pending offer), ' +
    'send_message (talk only) or walk_away.',
};

/** What the agent knows about the deadline, and nothing more. */
function deadlineRule(obs: BilateralObservation): string {
  if (obs.turnLimit !== null)
    return `Turns alternate, ${obs.turnLimit} in all (${obs.ownTurns} yours). When they run out there is no deal.`;
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

function transcriptLine(entry: TranscriptEntry, self: Role): string {
  const who = entry.actor === self ? 'you' : entry.actor;
  if ('forfeited' in entry) return `${entry.turn + 1}. ${who}: [missed the turn]`;
  const parts: string[] = [];
  if (entry.message !== undefined) parts.push(JSON.stringify(entry.message));
  if (entry.action !== undefined) parts.push(describeAction(entry.action, entry.actor, self));
  return `${entry.turn + 1}. ${who}: ${parts.join(' ')}`;
}

function stateMessage(obs: BilateralObservation, retry: Retry | undefined): string {
  const lines: string[] = [];
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
  lines.push(timing);

  const shown = obs.transcript.slice(-MAX_TRANSCRIPT_ENTRIES);
  if (obs.transcript.length === 0) lines.push('No moves yet: you open.');
  else {
    lines.push('Conversation so far:');
    const hidden = obs.transcript.length - shown.length;
    if (hidden > 0) lines.push(`(${hidden} earlier turns not shown)`);
    for (const entry of shown) lines.push(transcriptLine(entry, obs.role));
  }

  const other = opponentOf(obs.role);
  if (obs.pending !== null)
    lines.push(`On the table: the ${other}'s binding offer of ${money(obs.pending)}; you may accept it.`);
  else if (obs.ownStanding !== null)
    lines.push(`On the table: your own offer of ${money(obs.ownStanding)}, waiting for the ${other}'s answer.`);
  else lines.push('On the table: no offer.');

  if (retry !== undefined) {
    const reason = retry.reason.length > MAX_REASON ? `${retry.reason.slice(0, MAX_REASON)}…` : retry.reason;
    lines.push(`Your previous answer was refused: ${reason}. Answer again, following the format.`);
  }
  lines.push('Your move.');
  return lines.join('\n');
}

export function buildPrompt(obs: BilateralObservation, opts: { retry?: Retry; style: PromptStyle }): ChatMessage[] {
  return [
    { role: 'system', content: systemMessage(obs, opts.style) },
    { role: 'user', content: stateMessage(obs, opts.retry) },
  ];
}

/** The messages as one text, for the record. */
export const promptText = (messages: readonly ChatMessage[]): string =>
  messages.map((m) => `[${m.role}]\n${m.content}`).join('\n\n');
