import { afterEach, describe, expect, test } from 'vitest';
import { flushSync } from 'svelte';
import { userEvent } from 'vitest/browser';
import AgentPicker from '../../src/ui/components/AgentPicker.svelte';
import ProgressBar from '../../src/ui/components/ProgressBar.svelte';
import ScenarioPicker from '../../src/ui/components/ScenarioPicker.svelte';
import { STRATEGIES } from '../../src/games/bilateral/strategies';
import { parseAgentSpec } from '../../src/games/bilateral/specs';
import { CATALOG, type CatalogItem } from '../../src/games/bilateral/catalog';
import { createRng, deriveSeed, hashString } from '../../src/engine/rng';
import { generateScenarios, makeScenario, type Scenario } from '../../src/games/bilateral/scenario';
import { bound, cleanup, control, must, reactive, render, text } from './helpers.svelte';

afterEach(cleanup);

describe('AgentPicker', () => {
  test('lists the scripted strategies and writes only non-default parameters', async () => {
    const { props, get } = bound('spec', 'boulware', { label: 'Buyer' });
    const target = render(AgentPicker, props);
    const select = control<HTMLSelectElement>(target, 'Agent');
    expect(must(select.querySelector('optgroup')).label).toBe('Scripted');
    expect([...select.options].map((o) => o.value)).toEqual(STRATEGIES.map((s) => s.name));
    expect(select.value).toBe('boulware');

    // The parameters are folded under "Advanced" until opened (with defaults, they start closed).
    const advanced = must(target.querySelector<HTMLDetailsElement>('details.advanced'));
    expect(advanced.open).toBe(false);
    expect(text(advanced.querySelector('summary'))).toBe('Advanced: parameters (beta, kappa)');
    await userEvent.click(must(advanced.querySelector('summary')));
    expect(advanced.open).toBe(true);
    const beta = control<HTMLInputElement>(target, 'beta');
    expect([beta.min, beta.max]).toEqual(['0.01', '100']);
    expect(text(document.getElementById(beta.getAttribute('aria-describedby') ?? ''))).toContain('concession speed');
    await userEvent.fill(beta, '0.3');
    expect(get()).toBe('boulware:beta=0.3');
    expect(parseAgentSpec(get()).ok).toBe(true);
    expect(text(target.querySelector('.spec code'))).toBe('boulware:beta=0.3');

    await userEvent.fill(beta, '0.25');
    expect(get()).toBe('boulware');
  });

  test('rejects out-of-range and empty input inline without touching the spec', async () => {
    const { props, writes, get } = bound('spec', 'boulware:kappa=0.1', { label: 'Seller' });
    const target = render(AgentPicker, props);
    // A spec with parameters of its own opens them.
    expect(must(target.querySelector<HTMLDetailsElement>('details.advanced')).open).toBe(true);
    const beta = control<HTMLInputElement>(target, 'beta');
    expect(control<HTMLInputElement>(target, 'kappa').value).toBe('0.1');
    await userEvent.fill(beta, '500');
    expect(beta.getAttribute('aria-invalid')).toBe('true');
    const error = must(target.querySelector('.error'));
    expect(text(error)).toBe('beta must be from 0.01 to 100; 500 is out of range.');
    expect(beta.getAttribute('aria-describedby')).toContain(error.id);
    await userEvent.fill(beta, '');
    expect(text(target.querySelector('.error'))).toBe('Enter a number from 0.01 to 100.');
    expect(writes).toEqual([]);
    expect(get()).toBe('boulware:kappa=0.1');
    await userEvent.fill(beta, '2');
    expect(target.querySelector('.error')).toBeNull();
    expect(get()).toBe('boulware:beta=2:kappa=0.1');
  });

  test('switching strategy resets its parameters; other agents plug in through groups', async () => {
    const groups = [{ label: 'Local models', options: [{ value: 'webllm:qwen3-1.7b', label: 'Qwen3 1.7B' }] }];
    const { props, get } = bound('spec', 'boulware:beta=0.5', { label: 'Buyer', groups });
    const target = render(AgentPicker, props);
    const select = control<HTMLSelectElement>(target, 'Agent');
    await userEvent.selectOptions(select, 'hardliner');
    expect(get()).toBe('hardliner');
    expect(() => control(target, 'beta')).toThrow();
    expect(control<HTMLInputElement>(target, 'anchor').value).toBe('0.1');
    await userEvent.selectOptions(select, 'webllm:qwen3-1.7b');
    expect(get()).toBe('webllm:qwen3-1.7b');
    expect(target.querySelectorAll('input')).toHaveLength(0);
  });

  test('follows a spec set from outside', () => {
    const props = reactive({ label: 'Buyer', spec: 'linear' });
    const target = render(AgentPicker, props);
    props.spec = 'tit-for-tat:start=0.2';
    flushSync();
    expect(control<HTMLSelectElement>(target, 'Agent').value).toBe('tit-for-tat');
    expect(control<HTMLInputElement>(target, 'start').value).toBe('0.2');
  });
});

describe('ScenarioPicker', () => {
  const first = (seed: number) => generateScenarios({ preset: 'standard', seed, count: 1 })[0] as Scenario;

  test('random mode: the next button draws the next seed', async () => {
    const { props, get } = bound('scenario', first(1));
    const target = render(ScenarioPicker, props);
    expect(control<HTMLInputElement>(target, 'Seed').value).toBe('1');
    await userEvent.click(must([...target.querySelectorAll('button')].find((b) => text(b) === 'Next')));
    expect(get()).toEqual(first(2));
    const s = get();
    expect(text(target.querySelector('.summary'))).toContain(`tier ${s.tier} of 5`);
    await userEvent.selectOptions(control(target, 'Preset'), 'narrow');
    expect(get()).toEqual(generateScenarios({ preset: 'narrow', seed: 2, count: 1 })[0]);
  });

  test('your own: validates value and cost, and says whether there are gains from trade', async () => {
    const { props, writes, get } = bound('scenario', first(1));
    const target = render(ScenarioPicker, props);
    await userEvent.click(control(target, 'Your own'));
    await userEvent.selectOptions(control(target, 'Item'), 'laptop');
    await userEvent.fill(control(target, "Buyer's value ($)"), '900');
    await userEvent.fill(control(target, "Seller's cost ($)"), '700');
    expect(get()).toMatchObject({ item: { id: 'laptop' }, buyerValue: 900, sellerCost: 700 });
    expect(text(target.querySelector('.summary'))).toContain('gains from trade of $200.00');

    const count = writes.length;
    const cost = control<HTMLInputElement>(target, "Seller's cost ($)");
    await userEvent.fill(cost, '-5');
    expect(text(target.querySelector('.error'))).toBe("The seller's cost must be 0 or more.");
    expect(cost.getAttribute('aria-invalid')).toBe('true');
    expect(writes).toHaveLength(count);
    expect(get().sellerCost).toBe(700);

    // Laptop, list $1,299: no offer may pass 100 times that, so no cost or value may either.
    await userEvent.fill(cost, '129901');
    expect(text(target.querySelector('.error'))).toBe("The seller's cost must be at most $129,900.00 (100 times the list price).");
    expect(get().sellerCost).toBe(700);

    await userEvent.fill(cost, '1000');
    expect(target.querySelector('.error')).toBeNull();
    expect(text(target.querySelector('.summary'))).toContain('no gains from trade');

    await userEvent.click(control(target, 'Fixed limit'));
    await userEvent.fill(control(target, 'Turn limit'), '0');
    expect(text(target.querySelector('.error'))).toContain('turn limit');
    await userEvent.fill(control(target, 'Turn limit'), '8');
    await userEvent.selectOptions(control(target, 'First mover'), 'buyer');
    expect(get()).toMatchObject({ turnLimit: 8, firstMover: 'buyer', sellerCost: 1000 });
    expect(get().turnRange).toBeUndefined();
    expect(text(target.querySelector('.summary'))).toContain('Deadline: 8 turns (fixed).');
  });

  test('uncertain deadline: a range the agents know, the exact limit drawn from the seed or picked', async () => {
    const { props, writes, get } = bound('scenario', first(1));
    const target = render(ScenarioPicker, props);
    // The default scenario has the default uncertain deadline, and the picker shows it.
    expect(control<HTMLInputElement>(target, 'Uncertain limit').checked).toBe(true);
    expect([control<HTMLInputElement>(target, 'Fewest turns').value, control<HTMLInputElement>(target, 'Most turns').value]).toEqual(['16', '24']);
    expect(control<HTMLInputElement>(target, 'Pick the exact limit (else drawn from the seed)').checked).toBe(false);

    await userEvent.fill(control(target, 'Fewest turns'), '6');
    await userEvent.fill(control(target, 'Most turns'), '10');
    const drawn = generateScenarios({ preset: 'standard', seed: 1, count: 1, deadline: { kind: 'uncertain', min: 6, max: 10 }, firstMover: 'seller' })[0]!;
    expect(get()).toEqual(drawn);
    expect(get().turnRange).toEqual({ min: 6, max: 10 });
    expect(text(target.querySelector('.summary'))).toContain(
      `Deadline: 6–10 turns (uncertain), this game ${drawn.turnLimit} (the agents know only the range).`,
    );

    // A range upside down is refused and nothing is written; the numbers typed stay.
    const count = writes.length;
    await userEvent.fill(control(target, 'Fewest turns'), '12');
    expect(text(target.querySelector('.error'))).toBe('The fewest turns (12) must not be above the most (10).');
    expect(control<HTMLInputElement>(target, 'Fewest turns').getAttribute('aria-invalid')).toBe('true');
    expect(writes).toHaveLength(count);
    expect(control<HTMLInputElement>(target, 'Fewest turns').value).toBe('12');
    await userEvent.fill(control(target, 'Fewest turns'), '6');

    // Picked by hand: within the range, and only the limit changes.
    await userEvent.click(control(target, 'Pick the exact limit (else drawn from the seed)'));
    await userEvent.fill(control(target, 'Exact limit'), '11');
    expect(text(target.querySelector('.error'))).toContain('(6–10)');
    await userEvent.fill(control(target, 'Exact limit'), '7');
    expect(get()).toEqual({ ...drawn, turnLimit: 7 });

    // Your own scenario keeps the uncertain deadline, its limit drawn from the inputs when not picked.
    await userEvent.click(control(target, 'Pick the exact limit (else drawn from the seed)'));
    await userEvent.click(control(target, 'Your own'));
    await userEvent.fill(control(target, "Buyer's value ($)"), '120');
    await userEvent.fill(control(target, "Seller's cost ($)"), '100');
    const mine = get();
    expect(mine.turnRange).toEqual({ min: 6, max: 10 });
    expect(mine.turnLimit).toBeGreaterThanOrEqual(6);
    expect(mine.turnLimit).toBeLessThanOrEqual(10);
    await userEvent.fill(control(target, "Seller's cost ($)"), '101');
    await userEvent.fill(control(target, "Seller's cost ($)"), '100');
    expect(get()).toEqual(mine);
  });
});

test('ScenarioPicker works through a reactive binding and adopts a scenario set from outside', async () => {
  const props = reactive({ scenario: generateScenarios({ preset: 'wide', seed: 4, count: 1 })[0] as Scenario });
  const target = render(ScenarioPicker, props);
  expect(control<HTMLSelectElement>(target, 'Preset').value).toBe('wide');
  await userEvent.click(must([...target.querySelectorAll('button')].find((b) => text(b) === 'Next')));
  expect(props.scenario.id).toBe('wide-5-0');
  props.scenario = makeScenario('mine', CATALOG[3] as CatalogItem, 30, 20, { turnLimit: 6 });
  flushSync();
  expect(control<HTMLInputElement>(target, 'Your own').checked).toBe(true);
  expect(control<HTMLInputElement>(target, "Buyer's value ($)").value).toBe('30');
  expect(control<HTMLInputElement>(target, 'Fixed limit').checked).toBe(true);
  expect(control<HTMLInputElement>(target, 'Turn limit').value).toBe('6');
  expect(props.scenario.id).toBe('mine');
  // An uncertain scenario from outside: its range, and its limit shown as picked unless it is the one drawn for it.
  const drawn = 8 + createRng(deriveSeed(hashString('theirs'), 'turns')).int(5);
  const other = drawn === 12 ? 8 : drawn + 1;
  const pick = () => control<HTMLInputElement>(target, 'Pick the exact limit (else drawn from the inputs)');
  props.scenario = makeScenario('theirs', CATALOG[3] as CatalogItem, 30, 20, { turnLimit: other, turnRange: { min: 8, max: 12 } });
  flushSync();
  expect(control<HTMLInputElement>(target, 'Uncertain limit').checked).toBe(true);
  expect([control<HTMLInputElement>(target, 'Fewest turns').value, control<HTMLInputElement>(target, 'Most turns').value]).toEqual(['8', '12']);
  expect(pick().checked).toBe(true);
  expect(control<HTMLInputElement>(target, 'Exact limit').value).toBe(String(other));
  props.scenario = makeScenario('theirs', CATALOG[3] as CatalogItem, 30, 20, { turnLimit: drawn, turnRange: { min: 8, max: 12 } });
  flushSync();
  expect(pick().checked).toBe(false);
  expect(props.scenario.turnLimit).toBe(drawn);
});

describe('ProgressBar', () => {
  test('shows done / planned, the rate and the time left', () => {
    const target = render(ProgressBar, { done: 30, planned: 120, ratePerS: 2.5, etaS: 36, label: 'Tournament' });
    const bar = must(target.querySelector('progress'));
    expect([bar.value, bar.max]).toEqual([30, 120]);
    expect(text(bar.labels[0])).toBe('Tournament');
    expect(text(target.querySelector('.numbers'))).toBe('30 / 120 2.5/s about 36 s left');
  });

  test('leaves out unknown rate and time, and reads long waits in minutes', () => {
    const props = reactive({ done: 0, planned: 15000, ratePerS: null as number | null, etaS: null as number | null, label: 'Run' });
    const target = render(ProgressBar, props);
    expect(text(target.querySelector('.numbers'))).toBe('0 / 15,000');
    Object.assign(props, { done: 1500, ratePerS: 40, etaS: 337.5 });
    flushSync();
    expect(text(target.querySelector('.numbers'))).toBe('1,500 / 15,000 40/s about 6 min left');
  });
});
