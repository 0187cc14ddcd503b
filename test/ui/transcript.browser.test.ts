import { afterEach, describe, expect, test, vi } from 'vitest';
import { flushSync } from 'svelte';
import Transcript from '../../src/ui/components/Transcript.svelte';
import type { BilateralEvent } from '../../src/games/bilateral/events';
import { ACCEPT, offer } from '../../src/games/bilateral/moves';
import { playNegotiation } from '../../src/games/bilateral/tournament';
import { replay, scenario } from '../games/bilateral/helpers';
import { agent, cleanup, must, reactive, render, text } from './helpers.svelte';

const HOSTILE = '<img src=x onerror=alert(1)><b>bold</b>';
const RAW = `<i>not json</i> ${'x'.repeat(1000)}`;
const agents = { buyer: 'scripted-buyer', seller: 'boulware' };

/** Seller boulware opens; the buyer fumbles once, offers $80 with a hostile message, then accepts. */
async function negotiation() {
  const s = scenario({ turnLimit: 6 }); // v = 150, c = 90, list price 200, seller first
  const buyer = replay([{ kind: 'invalid', reason: 'no JSON object in the answer', raw: RAW }, offer(80, HOSTILE), ACCEPT]);
  const { events, outcome } = await playNegotiation(s, { buyer, seller: agent('boulware', 'seller') });
  return { s, events, outcome };
}

afterEach(cleanup);

describe('Transcript', () => {
  test('renders messages as text, never as HTML', async () => {
    const { s, events } = await negotiation();
    const target = render(Transcript, { scenario: s, events, agents });
    const message = must(target.querySelector('.message'), 'message');
    expect(message.textContent).toBe(HOSTILE);
    expect(target.querySelector('img')).toBeNull();
    expect(target.querySelector('b')).toBeNull();
    expect(target.querySelector('i')).toBeNull();
  });

  test('one bubble per move, sides and labels, offer chips with $ and % of list', async () => {
    const { s, events } = await negotiation();
    const target = render(Transcript, { scenario: s, events, agents });
    const list = must(target.querySelector('ol'));
    expect(list.getAttribute('aria-live')).toBe('polite');
    const bubbles = [...target.querySelectorAll('li.bubble')];
    expect(bubbles).toHaveLength(events.filter((e) => e.type === 'move').length);
    const buyerBubble = must(target.querySelector('li.bubble.buyer'));
    expect(text(buyerBubble.querySelector('.who'))).toBe('Buyer scripted-buyer turn 2');
    expect(text(buyerBubble.querySelector('.chip.offer'))).toBe('Offers $80.00 40.0% of list');
    const sellerOpen = events[0];
    if (sellerOpen?.type !== 'move' || sellerOpen.move.action?.type !== 'offer') throw new Error('seller should open');
    const price = sellerOpen.move.action.price;
    expect(text(bubbles[0]?.querySelector('.chip'))).toBe(`Offers $${price.toFixed(2)} ${((price / 200) * 100).toFixed(1)}% of list`);
    expect(bubbles[0]?.classList.contains('seller')).toBe(true);
    // This scripted buyer accepts boulware's offer above its own value of $150: the chip says what it lost.
    expect(text(target.querySelector('.chip.accept'))).toMatch(/^Accepts \$\d+\.\d\d a loss of \$\d+\.\d\d for the buyer$/);
  });

  test('invalid attempts show the reason and the raw answer, truncated, as text', async () => {
    const { s, events } = await negotiation();
    const target = render(Transcript, { scenario: s, events, agents });
    const warning = must(target.querySelector('li.warning'));
    expect(text(warning)).toContain('turn 2, attempt 1: invalid move: no JSON object in the answer');
    const raw = must(warning.querySelector('code')).textContent ?? '';
    expect(raw.startsWith('<i>not json</i>')).toBe(true);
    expect(raw.length).toBeLessThan(300);
    expect(raw.endsWith('…')).toBe(true);
  });

  test('a model call folds away its backend, tokens, latency, thinking, raw answer and prompt, all as text', async () => {
    const { s, events } = await negotiation();
    const call = {
      backend: 'webllm',
      model: 'Qwen3-0.6B-q4f32_1-MLC',
      latencyMs: 1234,
      tokensIn: 321,
      tokensOut: 12,
      prompt: `You are the buyer. ${HOSTILE}`,
      raw: '{"action":{"type":"accept"}}',
      thinking: `They moved twice. ${HOSTILE}`,
    };
    const withCall = events.map((e) => (e.type === 'move' && e.actor === 'buyer' ? { ...e, call } : e));
    const target = render(Transcript, { scenario: s, events: withCall, agents });
    const details = [...target.querySelectorAll('li.bubble.buyer details')];
    expect(details).toHaveLength(withCall.filter((e) => e.type === 'move' && e.actor === 'buyer').length);
    const first = must(details[0]) as HTMLDetailsElement;
    expect(first.open).toBe(false);
    expect(text(first.querySelector('summary'))).toBe('Thinking and model call: webllm · Qwen3-0.6B-q4f32_1-MLC · 321 in / 12 out · 1.2 s');
    const [thinking, raw, prompt] = [...first.querySelectorAll('pre')].map((p) => p.textContent);
    expect(thinking).toBe(call.thinking);
    expect(raw).toBe(call.raw);
    expect(prompt).toBe(call.prompt);
    expect(target.querySelector('img')).toBeNull();
    // A grammar WebLLM compiled for the call is said apart from the model's time.
    const compiled = events.map((e) => (e.type === 'move' && e.actor === 'buyer' ? { ...e, call: { ...call, grammarMs: 240 } } : e));
    const again = render(Transcript, { scenario: s, events: compiled, agents });
    expect(text(must(again.querySelector('li.bubble.buyer details summary')))).toBe(
      'Thinking and model call: webllm · Qwen3-0.6B-q4f32_1-MLC · 321 in / 12 out · 1.2 s · grammar compiled in 240 ms',
    );
    expect(target.querySelectorAll('li.bubble.seller details')).toHaveLength(0);
  });

  test('closes with the outcome and shows forfeits', async () => {
    const s = scenario({ turnLimit: 4 });
    const bad = { kind: 'invalid' as const, reason: 'garbled', raw: '??' };
    const buyer = replay([bad, bad, bad]);
    const { events } = await playNegotiation(s, { buyer, seller: agent('hardliner', 'seller') });
    const target = render(Transcript, { scenario: s, events, agents });
    expect(text(target.querySelector('li.warning:not(:has(code))'))).toContain('forfeited turn 2');
    expect(text(target.querySelector('li.end'))).toMatch(/^No deal/);
  });

  test('follows live play to the newest entry, or the highlighted one in the inspector', async () => {
    const { s, events } = await negotiation();
    const spy = vi.spyOn(Element.prototype, 'scrollIntoView');
    const props = reactive({ scenario: s, events: [] as BilateralEvent[], agents, current: undefined as number | undefined });
    const target = render(Transcript, props);
    for (const e of events.slice(0, 3)) props.events.push(e);
    flushSync();
    expect(target.querySelectorAll('ol > li')).toHaveLength(3);
    expect(spy.mock.contexts.at(-1)).toBe(target.querySelector('ol > li:last-child'));

    props.current = 0;
    flushSync();
    const first = target.querySelector('ol > li');
    expect(first?.getAttribute('aria-current')).toBe('step');
    expect(spy.mock.contexts.at(-1)).toBe(first);
    spy.mockRestore();
  });

  test('a deal that breaks individual rationality is never green: its chip and its closing line are red and say who lost', async () => {
    const s = scenario({ turnLimit: 6 }); // v = 150, c = 90
    const colour = (el: Element | null) => getComputedStyle(must(el)).color;
    // The buyer accepts $180, over its value: a loss of $30.
    const over = await playNegotiation(s, { buyer: replay([ACCEPT]), seller: replay([offer(180)]) });
    let target = render(Transcript, { scenario: s, events: over.events, agents });
    const chip = must(target.querySelector('.chip.accept'));
    expect(chip.classList.contains('loss')).toBe(true);
    expect(text(chip)).toBe('Accepts $180.00 a loss of $30.00 for the buyer');
    const end = must(target.querySelector('li.end'));
    expect(end.classList.contains('violated')).toBe(true);
    expect(text(end)).toMatch(/It breaks individual rationality: the buyer loses \$30\.00\.$/);
    // The danger colour, resolved as the page resolves it.
    const probe = document.createElement('span');
    probe.style.color = 'var(--danger, #b3261e)';
    document.body.append(probe);
    const red = getComputedStyle(probe).color;
    probe.remove();
    expect(colour(chip)).toBe(red);
    expect(colour(end)).toBe(red);
    cleanup();

    // A fair deal ($120, inside [90, 150]) keeps its green, and a different colour from the loss.
    const fair = await playNegotiation(s, { buyer: replay([ACCEPT]), seller: replay([offer(120)]) });
    target = render(Transcript, { scenario: s, events: fair.events, agents });
    const ok = must(target.querySelector('.chip.accept'));
    expect(ok.classList.contains('loss')).toBe(false);
    expect(text(ok)).toBe('Accepts $120.00');
    expect(must(target.querySelector('li.end')).classList.contains('violated')).toBe(false);
    expect(colour(ok)).not.toBe(red);
    // The seller's side: accepting $80 under a cost of $90.
    cleanup();
    const under = await playNegotiation(s, { buyer: replay([offer(80)]), seller: replay([offer(200), ACCEPT]) });
    target = render(Transcript, { scenario: s, events: under.events, agents });
    expect(text(target.querySelector('.chip.accept'))).toBe('Accepts $80.00 a loss of $10.00 for the seller');
    expect(colour(target.querySelector('.chip.accept'))).toBe(red);
  });
});
