import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FILE_ITEM,
  MAX_FILE_SCENARIOS,
  MAX_SCENARIO_FILE_BYTES,
  MAX_SCENARIO_FILE_LINES,
  parseScenarioFile,
  SCENARIO_FILE_PROBLEMS,
  scenarioFileSizeProblem,
  type ScenarioFileProblem,
} from '../../../src/games/bilateral/scenario-file';
import { planTournament } from '../../../src/games/bilateral/tournament';
import { tierOf } from '../../../src/games/bilateral/catalog';
import { priceRangeOf, ScenarioSchema } from '../../../src/games/bilateral/scenario';

const FIXTURE = readFileSync(new URL('../../fixtures/negmas-reference-3.jsonl', import.meta.url), 'utf8');

const LINE = { id: 's1', listPrice: 80, buyerValue: 60, sellerCost: 30, turns: 12, first: 'buyer' };
const jsonl = (...lines: object[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

/** The refusal of a file. */
function refusal(text: string): ScenarioFileProblem {
  const r = parseScenarioFile(text);
  if (r.ok) throw new Error('the file was read');
  return r.error;
}

describe('parseScenarioFile', () => {
  it('reads a line into a scenario: a fixed turn limit, its opener, the tier of its list price', () => {
    const r = parseScenarioFile(jsonl({ ...LINE, lo: 10, hi: 100, name: 'Road bike', category: 'sports' }));
    expect(r).toEqual({
      ok: true,
      value: {
        repeats: 0,
        scenarios: [
          {
            id: 's1',
            item: { id: 's1', name: 'Road bike', category: 'sports', listPrice: 80 },
            buyerValue: 60,
            sellerCost: 30,
            tier: tierOf(80),
            turnLimit: 12,
            firstMover: 'buyer',
            priceRange: { lo: 10, hi: 100 },
          },
        ],
      },
    });
    if (r.ok) expect(ScenarioSchema.parse(r.value.scenarios[0])).toEqual(r.value.scenarios[0]);
  });

  it('defaults: no price range stored (priceRangeOf gives the standard one at the list price), the item "Item" (general)', () => {
    const r = parseScenarioFile(jsonl(LINE));
    if (!r.ok) throw new Error(r.error.message);
    const [s] = r.value.scenarios;
    expect(s).not.toHaveProperty('priceRange');
    expect(s).not.toHaveProperty('turnRange');
    expect(s).not.toHaveProperty('preset');
    expect(s?.item).toEqual({ id: 's1', ...DEFAULT_FILE_ITEM, listPrice: 80 });
    expect(DEFAULT_FILE_ITEM).toEqual({ name: 'Item', category: 'general' });
    expect(priceRangeOf(s!)).toEqual({ lo: 42, hi: 94 });
  });

  it('ignores fields it does not know, skips blank lines and a byte-order mark, and reads CRLF lines', () => {
    const extra = JSON.stringify({ ...LINE, offers: [[1, 2]], note: 'x' }).replace(/}$/, ',"__proto__":{"turns":3}}');
    const text = `\ufeff${extra}\r\n\r\n   \n${JSON.stringify({ ...LINE, id: 's2' })}\r\n`;
    const r = parseScenarioFile(text);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.scenarios.map((s) => [s.id, s.turnLimit])).toEqual([
      ['s1', 12],
      ['s2', 12],
    ]);
    expect(Object.keys(r.value.scenarios[0]!)).toEqual(['id', 'item', 'buyerValue', 'sellerCost', 'tier', 'turnLimit', 'firstMover']);
  });

  it("reads NegMAS's reference lines: each id's 9 lines are one scenario, read once, in the order of first lines", () => {
    const r = parseScenarioFile(FIXTURE);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.scenarios.map((s) => s.id)).toEqual(['101-0', '101-1', '101-2']);
    expect(r.value.repeats).toBe(24);
    const first = JSON.parse(FIXTURE.split('\n')[0]!);
    expect(r.value.scenarios[0]).toMatchObject({
      buyerValue: first.buyerValue,
      sellerCost: first.sellerCost,
      turnLimit: first.turns,
      firstMover: first.first,
      priceRange: { lo: first.lo, hi: first.hi },
      item: { listPrice: first.listPrice },
    });
  });

  it('a tournament over the scenarios plays each once per ordered pair, in the file order', () => {
    const r = parseScenarioFile(FIXTURE);
    if (!r.ok) throw new Error(r.error.message);
    const scenarios = r.value.scenarios;
    const jobs = planTournament({ agents: ['a', 'b'], scenariosPerPair: scenarios.length, preset: 'standard', seed: 1, selfPlay: false, scenarios });
    expect(jobs.map((j) => [j.id, j.scenario.id])).toEqual([
      ['0-1-0', '101-0'],
      ['1-0-0', '101-0'],
      ['0-1-1', '101-1'],
      ['1-0-1', '101-1'],
      ['0-1-2', '101-2'],
      ['1-0-2', '101-2'],
    ]);
    expect(jobs[2]?.scenario).toBe(scenarios[1]);
  });

  it.each([
    ['not JSON', '{"id": "a",', 'not-json', { error: expect.stringMatching(/./) }],
    ['a list', '[1, 2]', 'not-object', { got: 'a list' }],
    ['missing fields', '{"id": "a", "listPrice": 5}', 'fields-missing', { fields: ['buyerValue', 'sellerCost', 'turns', 'first'] }],
    ['one missing field', JSON.stringify({ ...LINE, first: undefined }), 'fields-missing', { fields: ['first'] }],
    [
      'a price as text',
      JSON.stringify({ ...LINE, listPrice: '80' }),
      'bad-field',
      { field: 'listPrice', expected: 'a list price above 0, in dollars', got: '"80"' },
    ],
    [
      'a zero list price',
      JSON.stringify({ ...LINE, listPrice: 0 }),
      'bad-field',
      { field: 'listPrice', expected: 'a list price above 0, in dollars', got: '0' },
    ],
    [
      'a negative cost',
      JSON.stringify({ ...LINE, sellerCost: -1 }),
      'bad-field',
      { field: 'sellerCost', expected: "the seller's cost, 0 or more, in dollars", got: '-1' },
    ],
    ['no turns', JSON.stringify({ ...LINE, turns: 0 }), 'bad-field', { field: 'turns', expected: 'a whole number of turns from 1 to 1000', got: '0' }],
    ['half a turn', JSON.stringify({ ...LINE, turns: 2.5 }), 'bad-field', { field: 'turns', expected: 'a whole number of turns from 1 to 1000', got: '2.5' }],
    [
      'too many turns',
      JSON.stringify({ ...LINE, turns: 1001 }),
      'bad-field',
      { field: 'turns', expected: 'a whole number of turns from 1 to 1000', got: '1001' },
    ],
    [
      'an unknown opener',
      JSON.stringify({ ...LINE, first: 'alternate' }),
      'bad-field',
      { field: 'first', expected: '"seller" or "buyer"', got: '"alternate"' },
    ],
    ['an empty id', JSON.stringify({ ...LINE, id: '' }), 'bad-field', { field: 'id', expected: 'a text of 1 to 200 characters', got: '""' }],
    ['a number for an id', JSON.stringify({ ...LINE, id: 7 }), 'bad-field', { field: 'id', expected: 'a text of 1 to 200 characters', got: '7' }],
    [
      'a long name',
      JSON.stringify({ ...LINE, name: 'n'.repeat(201) }),
      'bad-field',
      { field: 'name', expected: 'a text of 1 to 200 characters', got: `"${'n'.repeat(39)}…"` },
    ],
    ['lo alone', JSON.stringify({ ...LINE, lo: 5 }), 'range-half', { given: 'lo' }],
    ['hi alone', JSON.stringify({ ...LINE, hi: 5 }), 'range-half', { given: 'hi' }],
    ['lo above hi', JSON.stringify({ ...LINE, lo: 90, hi: 50 }), 'range-inverted', { lo: 90, hi: 50 }],
    ['an empty name', JSON.stringify({ ...LINE, name: '' }), 'bad-field', { field: 'name', expected: 'a text of 1 to 200 characters', got: '""' }],
    [
      'a value beyond any offer',
      JSON.stringify({ ...LINE, buyerValue: 8001 }),
      'beyond-any-offer',
      { field: 'buyerValue', value: 8001, multiple: 100, listPrice: 80 },
    ],
  ])('refuses %s, naming the line', (_what, bad, code, data) => {
    const error = refusal(`${JSON.stringify(LINE)}\n${bad}\n${JSON.stringify({ ...LINE, id: 'later' })}\n`);
    expect(error.code).toBe(code);
    expect(error.data).toEqual({ line: 2, ...data });
    expect(error.message).toMatch(/^line 2: /);
    expect(error.message).not.toContain('\n');
  });

  it('words each line’s refusal from its table, after the line', () => {
    const line = (bad: object | string) => refusal(`${JSON.stringify(LINE)}\n${typeof bad === 'string' ? bad : JSON.stringify(bad)}\n`).message;
    expect(line('{"id": "a",')).toMatch(/^line 2: not valid JSON \(/);
    expect(line('[1, 2]')).toBe('line 2: expected a JSON object with id, listPrice, buyerValue, sellerCost, turns, first; got a list');
    expect(line({ id: 'a', listPrice: 5 })).toBe('line 2: buyerValue, sellerCost, turns and first are missing');
    expect(line({ ...LINE, first: undefined })).toBe('line 2: first is missing');
    expect(line({ ...LINE, listPrice: '80' })).toBe('line 2: listPrice: expected a list price above 0, in dollars, got "80"');
    expect(line({ ...LINE, turns: 2.5 })).toBe('line 2: turns: expected a whole number of turns from 1 to 1000, got 2.5');
    expect(line({ ...LINE, first: 'alternate' })).toBe('line 2: first: expected "seller" or "buyer", got "alternate"');
    expect(line({ ...LINE, lo: 5 })).toBe('line 2: lo is given without hi (the price range needs both, or neither)');
    expect(line({ ...LINE, hi: 5 })).toBe('line 2: hi is given without lo (the price range needs both, or neither)');
    expect(line({ ...LINE, lo: 90, hi: 50 })).toBe('line 2: lo (90) must be below hi (50)');
    expect(line({ ...LINE, buyerValue: 8001 })).toBe('line 2: buyerValue (8001) is more than 100 times the list price (80), the most any offer may be');
    expect(SCENARIO_FILE_PROBLEMS['too-many-lines']({ lines: 100_001, max: 100_000 })).toBe(
      'the file has 100,001 lines; a scenario file may have up to 100,000',
    );
    expect(SCENARIO_FILE_PROBLEMS['too-many-scenarios']({ line: 10_001, max: 10_000 })).toBe(
      'line 10001: more than 10,000 scenarios; a scenario file may hold up to 10,000',
    );
  });

  it('counts blank lines in line numbers', () => {
    expect(refusal(`\n\n${JSON.stringify({ ...LINE, turns: -1 })}`)).toMatchObject({
      code: 'bad-field',
      data: { line: 3, field: 'turns' },
      message: expect.stringMatching(/^line 3: turns:/),
    });
  });

  it('an id repeated with other fields is refused, naming both lines and the field', () => {
    const text = jsonl(LINE, { ...LINE, id: 's2' }, { ...LINE, sellerCost: 31 });
    expect(refusal(text)).toEqual({
      code: 'duplicate-id',
      data: { line: 3, id: 's1', earlierLine: 1, field: 'sellerCost', here: '31', there: '30' },
      message: 'line 3: id "s1" is also at line 1 with other fields (sellerCost 31 here, 30 there); an id names one scenario',
    });
    // A field given on one line and left to its default on the other is a difference too.
    expect(refusal(jsonl(LINE, { ...LINE, name: 'Item' }))).toMatchObject({
      code: 'duplicate-id',
      data: { line: 2, earlierLine: 1, field: 'name', here: '"Item"', there: 'nothing' },
    });
  });

  it('a file with no scenarios is refused', () => {
    expect(refusal('\n  \n')).toEqual({
      code: 'empty',
      data: {},
      message: 'the file holds no scenarios (one JSON object a line: id, listPrice, buyerValue, sellerCost, turns, first)',
    });
  });

  it('refuses a file over the size limit by its size, before reading it', () => {
    expect(MAX_SCENARIO_FILE_BYTES).toBe(8 * 1024 * 1024);
    expect(scenarioFileSizeProblem(MAX_SCENARIO_FILE_BYTES)).toBeNull();
    expect(scenarioFileSizeProblem(MAX_SCENARIO_FILE_BYTES + 1)).toEqual({
      code: 'too-large',
      data: { size: MAX_SCENARIO_FILE_BYTES + 1, max: MAX_SCENARIO_FILE_BYTES },
      message: 'the file is 8.0 MB; a scenario file may hold up to 8.0 MB',
    });
    // The size given wins over the text: the text is not looked at.
    const r = parseScenarioFile(jsonl(LINE), 20 * 1024 * 1024);
    expect(r.ok ? null : r.error).toMatchObject({
      code: 'too-large',
      data: { size: 20 * 1024 * 1024 },
      message: 'the file is 20.0 MB; a scenario file may hold up to 8.0 MB',
    });
  });

  it('refuses more lines, or more scenarios, than it holds', () => {
    expect(refusal('\n'.repeat(MAX_SCENARIO_FILE_LINES))).toEqual(
      expect.objectContaining({ code: 'too-many-lines', data: { lines: MAX_SCENARIO_FILE_LINES + 1, max: MAX_SCENARIO_FILE_LINES } }),
    );
    const many = Array.from({ length: MAX_FILE_SCENARIOS + 1 }, (_, i) => JSON.stringify({ ...LINE, id: `s${i}` })).join('\n');
    expect(refusal(many)).toMatchObject({ code: 'too-many-scenarios', data: { line: MAX_FILE_SCENARIOS + 1, max: MAX_FILE_SCENARIOS } });
    const r = parseScenarioFile(many.split('\n').slice(0, MAX_FILE_SCENARIOS).join('\n'));
    expect(r.ok && r.value.scenarios.length).toBe(MAX_FILE_SCENARIOS);
  });
});
