/**
 * The market prompts, built from one observation: the seller sees its catalog, its costs, which
 * buyers are left, the standing counters and the history; a buyer sees only its own values and its
 * own dealings with the seller. A system message and one user message, the history cut from the
 * oldest end to fit a token budget (sales and standing counters are listed apart, so none is lost).
 */
import type { MarketRole } from '../moves';
import { MAX_MESSAGE_LENGTH } from '../../../engine/message';
import type { BuyerObservation, MarketEntry, MarketObservation, SellerObservation } from '../protocol';
import type { Retry } from '../../../engine/session';
import type { ChatMessage } from '../../../agents/backends/types';
import type { MoveInterface } from '../../../agents/llm/settings';
import { estimateTokens } from '../../../agents/llm/tokens';

export interface MarketPromptOptions {
  style: MoveInterface;
  retry?: Retry;
  /** Tokens the two messages may take; no limit when left out. */
  maxTokens?: number;
}

const money = (x: number): string => `$${x.toFixed(2)}`;
const MAX_REASON = 300;

const FORMAT: Record<MarketRole, Record<MoveInterface, string>> = {
  seller: {
    json: 'Answer with one JSON object and nothing else: {"buyer": "<buyer id>", "product": "<product id>", "price": <number>, "message": "<your pitch>"}.',
    tools: 'Make your move by calling the tool offer_product exactly once.',
  },
  buyer: {
    json:
      'Answer with one JSON object and nothing else: {"response": {"type": "accept"}, "message": "<what you say>"}. ' +
      'response.type is accept, reject or counter; a counter also has "price", in dollars. "message" may be null.',
    tools: 'Make your move by calling exactly one tool: accept_offer, reject_offer or counter_offer.',
  },
};

function sellerSystem(obs: SellerObservation, style: MoveInterface): string {
  return [
    `You are the seller in a market. You have a catalog of products and ${obs.buyers.length} buyers. Each buyer buys at most one product,`,
    "and values each product privately: you do not know what they would pay. You gain the price minus the product's cost on each sale;",
    'unsold stock earns nothing.',
    '',
    'Rules:',
    `- You have ${obs.budget} turns in all. Each turn is one offer: one buyer, one product, one price, and a message (your pitch, at most ${MAX_MESSAGE_LENGTH} characters).`,
    '- The buyer you address answers: accept (a sale at your price), reject, or counter with a lower price.',
    '- A sale removes that unit from your stock and that buyer from the market.',
    '- A counter binds its buyer: offer that buyer that product at or below the counter and the buyer must accept.',
    "- Offers to a buyer who has bought, of a product out of stock, to unknown ids, or below the product's cost are refused.",
    '- The market ends when your turns run out, your stock is gone, or every buyer has bought.',
    '',
    FORMAT.seller[style],
  ].join('\n');
}

function buyerSystem(obs: BuyerObservation, style: MoveInterface): string {
  return [
    `You are buyer ${obs.buyer} in a market. You want at most one product. What each product is worth to you (private: the seller does not know):`,
    ...obs.products.map((p) => `- ${p.id} ${p.name} (list price ${money(p.listPrice)}): worth ${money(p.value)} to you`),
    '',
    'Rules:',
    '- The seller offers you one product at a time, at a price. You answer:',
    '  accept: you buy it at that price, gain your value minus the price, and leave the market;',
    '  reject: you turn it down;',
    '  counter: you name a lower price you would pay. It binds you: an offer of that product at or below your counter you must accept,',
    '  and a later counter for it may not be lower.',
    `- You may add a message (at most ${MAX_MESSAGE_LENGTH} characters). Only your response binds.`,
    '',
    FORMAT.buyer[style],
  ].join('\n');
}

/** One history line as `self` sees it. */
function entryLine(e: MarketEntry, self: MarketRole): string {
  const n = `${e.turn + 1}.`;
  switch (e.kind) {
    case 'offer':
      return `${n} ${self === 'seller' ? `you → ${e.buyer}` : 'seller'}: ${e.product} at ${money(e.price)}${e.message ? ` ${JSON.stringify(e.message)}` : ''}`;
    case 'answer': {
      const r = e.response;
      const what = r.type === 'counter' ? `counter ${money(r.price)}` : r.type;
      return `${n} ${self === 'seller' ? e.buyer : 'you'}: ${what}${e.message ? ` ${JSON.stringify(e.message)}` : ''}`;
    }
    case 'forfeit':
      return `${n} ${e.actor === self ? 'you' : e.actor === 'seller' ? 'seller' : (e.buyer ?? 'buyer')}: [missed the turn]`;
  }
}

/** The newest history lines that fit `budget` tokens, with a note for those left out. */
function historyLines(entries: readonly MarketEntry[], self: MarketRole, budget: number): string[] {
  const lines = entries.map((e) => entryLine(e, self));
  let total = 0;
  let from = lines.length;
  const note = (k: number) => `(the ${k} oldest turns are left out to fit)`;
  while (from > 0) {
    const cost = estimateTokens(lines[from - 1] as string) + 1;
    if (total + cost + (from > 1 ? estimateTokens(note(from - 1)) + 1 : 0) > budget) break;
    total += cost;
    from--;
  }
  return from === 0 ? lines : [note(from), ...lines.slice(from)];
}

function retryLine(retry: Retry | undefined): string[] {
  if (retry === undefined) return [];
  const reason = retry.reason.length > MAX_REASON ? `${retry.reason.slice(0, MAX_REASON)}…` : retry.reason;
  return [`Your previous answer was refused: ${reason}. Answer again, following the format.`];
}

function sellerState(obs: SellerObservation, retry: Retry | undefined, budget: number): string {
  const active = obs.buyers.filter((b) => b.active).map((b) => b.id);
  const head = [
    `Turn ${obs.turn + 1}. Your turns left: ${obs.turnsLeft} of ${obs.budget} (this one included).`,
    'Products (id, name, list price, your cost, stock left):',
    ...obs.products.map((p) => `- ${p.id} ${p.name}: list ${money(p.listPrice)}, cost ${money(p.cost)}, stock ${p.stock}${p.stock === 0 ? ' (sold out)' : ''}`),
    `Buyers still in the market: ${active.join(', ')}.`,
    obs.sales.length === 0 ? 'Sales so far: none.' : `Sales so far: ${obs.sales.map((s) => `${s.buyer} bought ${s.product} at ${money(s.price)}`).join('; ')}.`,
    obs.counters.length === 0
      ? 'Standing counters: none.'
      : `Standing counters (an offer at or below one is a sure sale): ${obs.counters.map((c) => `${c.buyer} on ${c.product} ${money(c.price)}`).join('; ')}.`,
    obs.history.length === 0 ? 'No offers yet: you open.' : 'History:',
  ];
  const tail = [...retryLine(retry), 'Your move.'];
  const fixed = estimateTokens([...head, ...tail].join('\n')) + 1;
  return [...head, ...historyLines(obs.history, 'seller', budget - fixed), ...tail].join('\n');
}

function buyerState(obs: BuyerObservation, retry: Retry | undefined, budget: number): string {
  const { offer } = obs;
  const name = obs.products.find((p) => p.id === offer.product)?.name ?? offer.product;
  const head = [obs.history.length === 0 ? 'The seller has not dealt with you before.' : 'Your dealings with the seller so far:'];
  const tail = [
    `The offer now: ${offer.product} ${name} at ${money(offer.price)}${offer.message ? `, with the message ${JSON.stringify(offer.message)}` : ''}.`,
    `It is worth ${money(obs.value)} to you: buying at this price you would gain ${money(obs.value - offer.price)}.`,
    ...(obs.standingCounter !== null
      ? [
          `Your standing counter for it is ${money(obs.standingCounter)}${offer.price <= obs.standingCounter ? ': this offer is at or below it, so you must accept.' : '.'}`,
        ]
      : []),
    ...retryLine(retry),
    'Your move.',
  ];
  const fixed = estimateTokens([...head, ...tail].join('\n')) + 1;
  return [...head, ...historyLines(obs.history, 'buyer', budget - fixed), ...tail].join('\n');
}

export function buildMarketPrompt(obs: MarketObservation, opts: MarketPromptOptions): ChatMessage[] {
  const system = obs.role === 'seller' ? sellerSystem(obs, opts.style) : buyerSystem(obs, opts.style);
  const budget = opts.maxTokens === undefined ? Infinity : opts.maxTokens - estimateTokens(system);
  const user = obs.role === 'seller' ? sellerState(obs, opts.retry, budget) : buyerState(obs, opts.retry, budget);
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}
