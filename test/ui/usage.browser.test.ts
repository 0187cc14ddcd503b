import { afterEach, beforeAll, describe, expect, onTestFinished, test, vi } from 'vitest';
import { flushSync } from 'svelte';
import { userEvent } from 'vitest/browser';
import UsageTable from '../../src/ui/components/UsageTable.svelte';
import Prices from '../../src/ui/components/Prices.svelte';
import Results from '../../src/ui/pages/Results.svelte';
import NegotiationPage from '../../src/ui/pages/NegotiationPage.svelte';
import { formatLatency } from '../../src/games/bilateral/usage';
import type { NegotiationResult } from '../../src/games/bilateral/tournament';
import { negotiationRow } from '../../src/storage/schema';
import { deletePrice } from '../../src/storage/prices';
import { database } from '../../src/ui/state/sim';
import type { Standings } from '../../src/games/bilateral/aggregate';
import { estimateCost, formatUsd, type Price } from '../../src/engine/cost';
import { getPrices, putPrice } from '../../src/storage/prices';
import { PriceBook } from '../../src/ui/state/prices.svelte';
import { playModelTournament } from '../support/model-tournament';
import { cleanup, must, reactive, render, text } from './helpers.svelte';
import { freshDb, storeRows } from '../storage/helpers';
import { deleteRun } from '../../src/storage/runs';

afterEach(cleanup);

const WEBLLM = 'webllm:Qwen3-0.6B-q4f32_1-MLC';
const AGENTS = ['boulware', 'groq:model-b', 'openai:model-a', WEBLLM];
let standings: Standings;
let results: NegotiationResult[];
beforeAll(async () => {
  ({ standings, results } = await playModelTournament({ agents: AGENTS, scenariosPerPair: 2 }));
});

/** Each row's cells as text, header cell first. */
const cells = (tr: Element) => [...tr.querySelectorAll('th, td')].map((c) => text(c));
const bodyRows = (target: HTMLElement) => [...target.querySelectorAll('tbody tr')].map(cells);
const count = (n: number) => n.toLocaleString('en-US');
const latency = (ms: number | null) => (ms === null ? '–' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

describe('UsageTable', () => {
  test('one row per agent that called a model, its numbers, its cost, and the run total', () => {
    const mini: Price = { inputPerMTok: 0.15, outputPerMTok: 0.6 };
    const props = reactive({ usage: standings.usage, prices: new Map([['openai:model-a', mini]]) as ReadonlyMap<string, Price> });
    const target = render(UsageTable, props);
    const overall = standings.usage.byAgent.filter((r) => r.role === 'all');
    expect(overall.map((r) => r.agent)).toEqual(['groq:model-b', 'openai:model-a', WEBLLM]);
    const a = overall[1]!;
    const costA = estimateCost(a, mini);
    expect(bodyRows(target)).toEqual([
      ['groq:model-b', ...numbers(overall[0]!), '—'],
      ['openai:model-a', ...numbers(a), formatUsd(costA)],
      [WEBLLM, ...numbers(overall[2]!), 'local (free)'],
    ]);
    const total = standings.usage.total;
    expect(total.negotiations).toBe(24);
    expect(cells(must(target.querySelector('tfoot tr')))).toEqual(['Run total', ...numbers(total), `≥ ${formatUsd(costA)}`]);
    expect(text(target.querySelector('.note'))).toContain('No price for groq:model-b, so the total counts only the priced models');
    expect(must(target.querySelector('.note a')).getAttribute('href')).toBe('#/models');

    // A price for the last model makes the total whole.
    const b: Price = { inputPerMTok: 1, outputPerMTok: 2 };
    props.prices = new Map([...props.prices, ['groq:model-b', b]]);
    flushSync();
    expect(text(target.querySelectorAll('tbody tr td[data-cost]')[0])).toBe(formatUsd(estimateCost(overall[0]!, b)));
    expect(text(target.querySelector('tfoot td[data-cost]'))).toBe(formatUsd(costA + estimateCost(overall[0]!, b)));
    expect(target.querySelector('.note')).toBeNull();
  });

  function numbers(u: { negotiations: number; calls: number; tokensIn: number; tokensOut: number; meanLatencyMs: number | null }) {
    expect(u.calls).toBeGreaterThan(0);
    return [count(u.negotiations), count(u.calls), count(u.tokensIn), count(u.tokensOut), latency(u.meanLatencyMs)];
  }
});

describe('Results', () => {
  test('shows model usage when an agent called a model, and nothing for standings stored without usage', () => {
    const withUsage = render(Results, { standings, agents: AGENTS });
    const heading = [...withUsage.querySelectorAll('h2')].find((h) => text(h) === 'Model usage and cost');
    expect(heading).toBeDefined();
    expect(withUsage.querySelectorAll('section[aria-labelledby="usage-title"] tbody tr')).toHaveLength(3);

    const { usage: _usage, ...old } = standings;
    const stored = render(Results, { standings: old, agents: AGENTS });
    expect([...stored.querySelectorAll('h2')].map((h) => text(h))).not.toContain('Model usage and cost');
    expect([...stored.querySelectorAll('h2')].map((h) => text(h))).toContain('Leaderboard');
  });
});

describe('NegotiationPage', () => {
  test('shows each side’s model calls, latency and, with a price, the cost of that negotiation', async () => {
    const db = database();
    const runId = `usage-test-${crypto.randomUUID()}`;
    const played = results.find((r) => r.buyer === 'openai:model-a' && r.seller === 'groq:model-b')!;
    const price: Price = { inputPerMTok: 2, outputPerMTok: 8 };
    await storeRows(db, runId, [negotiationRow(runId, played)]);
    await putPrice(db, 'openai:model-a', price);
    onTestFinished(async () => {
      await deleteRun(db, runId);
      await deletePrice(db, 'openai:model-a');
    });
    const target = render(NegotiationPage, { runId, jobId: played.id });
    const row = (name: string) => [...target.querySelectorAll('table.metrics tbody tr')].map(cells).find((r) => r[0] === name);
    await vi.waitFor(() => expect(row('Estimated cost')).toBeDefined());
    const { buyer, seller } = played.metrics;
    expect(buyer.calls).toBeGreaterThan(0);
    expect(seller.calls).toBeGreaterThan(0);
    expect(row('Model calls')).toEqual(['Model calls', String(buyer.calls), String(seller.calls)]);
    const lat = (s: typeof buyer) => `${formatLatency(s.latencyMs)} (${formatLatency(s.latencyMs / s.calls)} per call)`;
    expect(row('Latency')).toEqual(['Latency', lat(buyer), lat(seller)]);
    expect(row('Estimated cost')).toEqual(['Estimated cost', formatUsd(estimateCost(buyer, price)), '—']);
    // Every offer over list price, to one decimal, in order.
    const offers = (role: 'buyer' | 'seller') =>
      played.events
        .flatMap((e) =>
          e.type === 'move' && e.actor === role && e.move.action?.type === 'offer'
            ? [`${((100 * e.move.action.price) / played.scenario.item.listPrice).toFixed(1)}%`]
            : [],
        )
        .join(', ') || '–';
    expect(row('Offers / list price')).toEqual(['Offers / list price', offers('buyer'), offers('seller')]);
  });
});

const field = (target: HTMLElement, name: string): HTMLInputElement => {
  for (const label of target.querySelectorAll('label')) if (text(label) === name && label.control) return label.control as HTMLInputElement;
  throw new Error(`no control labelled ${name}`);
};
const button = (target: HTMLElement, name: string): HTMLButtonElement =>
  must(
    [...target.querySelectorAll('button')].find((b) => (b.getAttribute('aria-label') ?? text(b)) === name),
    name,
  );
const status = (target: HTMLElement) => text(target.querySelector('[role="status"]'));

describe('Prices', () => {
  test('adds a price from the keyboard alone, stores it and lists it', async () => {
    const db = freshDb();
    const book = new PriceBook(() => db);
    await book.load();
    const target = render(Prices, { book });
    expect(text(target)).toContain('No prices yet.');
    field(target, 'Model').focus();
    await userEvent.keyboard('openai:gpt-4o-mini+think');
    await userEvent.tab();
    await userEvent.keyboard('0.15');
    await userEvent.tab();
    await userEvent.keyboard('$0.60{Enter}');
    await vi.waitFor(() => expect(status(target)).toBe('Saved the price of openai:gpt-4o-mini.'));
    expect(await getPrices(db)).toEqual(new Map([['openai:gpt-4o-mini', { inputPerMTok: 0.15, outputPerMTok: 0.6 }]]));
    expect(bodyRows(target)).toEqual([['openai:gpt-4o-mini', '$0.15', '$0.60', 'Edit Delete']]);
    // The form is clear for the next one, and focus is back on its first field.
    expect([field(target, 'Model').value, field(target, 'Input, $ per million tokens').value]).toEqual(['', '']);
    expect(document.activeElement).toBe(field(target, 'Model'));
  });

  test('bad input says what is wrong beside each field, keeps what was typed and stores nothing', async () => {
    const db = freshDb();
    const book = new PriceBook(() => db);
    const target = render(Prices, { book });
    await userEvent.fill(field(target, 'Model'), 'boulware');
    await userEvent.fill(field(target, 'Input, $ per million tokens'), '-1');
    await userEvent.fill(field(target, 'Output, $ per million tokens'), 'cheap');
    await userEvent.click(button(target, 'Add price'));
    const spec = field(target, 'Model');
    const input = field(target, 'Input, $ per million tokens');
    const output = field(target, 'Output, $ per million tokens');
    expect([spec, input, output].map((f) => f.getAttribute('aria-invalid'))).toEqual(['true', 'true', 'true']);
    const described = (f: HTMLInputElement) => text(document.getElementById(f.getAttribute('aria-describedby')!));
    expect(described(spec)).toMatch(/^"boulware" is not a remote model; write PROVIDER:MODEL/);
    expect(described(input)).toBe('a price cannot be negative, got -1');
    expect(described(output)).toBe('"cheap" is not a number; write dollars per million tokens, e.g. 0.15');
    expect([spec.value, input.value, output.value]).toEqual(['boulware', '-1', 'cheap']);
    expect(document.activeElement).toBe(spec);
    expect(await db.settings.count()).toBe(0);

    // Fixing one field clears its error on the next try; a WebLLM model needs no price.
    await userEvent.fill(spec, WEBLLM);
    await userEvent.fill(input, '1');
    await userEvent.fill(output, '');
    await userEvent.click(button(target, 'Add price'));
    expect(described(spec)).toBe('WebLLM models run on this device and cost nothing; they need no price');
    expect(input.hasAttribute('aria-invalid')).toBe(false);
    expect(described(output)).toBe('no price given; write US dollars per million tokens (0 if free)');
    expect(await db.settings.count()).toBe(0);
  });

  test('edits, renames and deletes a stored price', async () => {
    const db = freshDb();
    await putPrice(db, 'anthropic:claude-x', { inputPerMTok: 3, outputPerMTok: 15 });
    await putPrice(db, 'openai:gpt-4o-mini', { inputPerMTok: 0.15, outputPerMTok: 0.6 });
    const book = new PriceBook(() => db);
    await book.load();
    const target = render(Prices, { book });
    expect(bodyRows(target).map((r) => r[0])).toEqual(['anthropic:claude-x', 'openai:gpt-4o-mini']);

    await userEvent.click(button(target, 'Edit the price of anthropic:claude-x'));
    const input = field(target, 'Input, $ per million tokens');
    expect([field(target, 'Model').value, input.value, field(target, 'Output, $ per million tokens').value]).toEqual(['anthropic:claude-x', '3', '15']);
    expect(document.activeElement).toBe(input);
    await userEvent.fill(input, '2.5');
    await userEvent.click(button(target, 'Save changes'));
    await vi.waitFor(async () => expect((await getPrices(db)).get('anthropic:claude-x')).toEqual({ inputPerMTok: 2.5, outputPerMTok: 15 }));

    await userEvent.click(button(target, 'Edit the price of openai:gpt-4o-mini'));
    await userEvent.fill(field(target, 'Model'), 'openai:gpt-4o');
    await userEvent.click(button(target, 'Save changes'));
    await vi.waitFor(async () => expect([...(await getPrices(db)).keys()]).toEqual(['anthropic:claude-x', 'openai:gpt-4o']));
    expect((await getPrices(db)).get('openai:gpt-4o')).toEqual({ inputPerMTok: 0.15, outputPerMTok: 0.6 });

    await userEvent.click(button(target, 'Delete the price of anthropic:claude-x'));
    await vi.waitFor(() => expect(status(target)).toBe('Deleted the price of anthropic:claude-x.'));
    expect([...(await getPrices(db)).keys()]).toEqual(['openai:gpt-4o']);
    expect(bodyRows(target).map((r) => r[0])).toEqual(['openai:gpt-4o']);
  });

  test('Cancel leaves an edit without changing the stored price', async () => {
    const db = freshDb();
    await putPrice(db, 'groq:llama', { inputPerMTok: 0.05, outputPerMTok: 0.08 });
    const book = new PriceBook(() => db);
    await book.load();
    const target = render(Prices, { book });
    await userEvent.click(button(target, 'Edit the price of groq:llama'));
    await userEvent.fill(field(target, 'Input, $ per million tokens'), '9');
    await userEvent.click(button(target, 'Cancel'));
    expect(field(target, 'Model').value).toBe('');
    expect(target.querySelector('button[type="submit"]')?.textContent?.trim()).toBe('Add price');
    expect((await getPrices(db)).get('groq:llama')).toEqual({ inputPerMTok: 0.05, outputPerMTok: 0.08 });
  });
});
