/**
 * The bench's grammar stage: what a WebLLM seat's first move pays before the model writes. Each
 * move format Parley sends is compiled by the xgrammar WebLLM runs, over Qwen3's real vocabulary,
 * once cold (a fresh compiler, as on a freshly loaded model) and once again from the compiler's
 * cache (every later move).
 */
import os from 'node:os';
import type { ResponseFormat } from '@mlc-ai/web-llm';
import { toWebLlmRequest, WEBLLM_CAPABILITIES } from '../agents/backends/webllm/backend';
import type { MoveInterface } from '../agents/backends/webllm/grammar';
import { bilateralMoveAsk } from '../games/bilateral/llm/agent';
import { moveAsk, type MoveAsk } from '../agents/llm/seat';
import { MARKET_SCHEMA_NAMES, marketJsonSchema, marketTools } from '../games/market/llm/schema';
import { MAX_MESSAGE_LENGTH } from '../engine/message';
import {
  compileResponseFormat,
  grammarCompiler,
  loadXgrammar,
  qwen3TokenizerInfo,
  qwen3Vocabulary,
  xgrammarVersions,
  type TokenizerInfo,
  type Xgr,
} from './xgrammar';

export interface MoveFormat {
  /** "json", "json, thinking", "tools", "tools, thinking". */
  label: string;
  interface: MoveInterface;
  thinking: boolean;
  format: ResponseFormat;
}

const MODEL = 'Qwen3-1.7B-q4f16_1-MLC';

/**
 * The formats a WebLLM seat sends, each exactly as the agent's request makes it: the bilateral
 * move's four (json or tools, with or without thinking), then the market seller's and buyer's.
 */
export function moveFormats(): MoveFormat[] {
  const seats: { game: string; ask: (opts: { interface: MoveInterface; thinking: boolean }) => MoveAsk }[] = [
    { game: '', ask: (opts) => bilateralMoveAsk(WEBLLM_CAPABILITIES, opts) },
    ...(['seller', 'buyer'] as const).map((role) => ({
      game: `market ${role}: `,
      ask: (opts: { interface: MoveInterface; thinking: boolean }) =>
        moveAsk(WEBLLM_CAPABILITIES, { tools: () => marketTools(role), jsonSchema: () => marketJsonSchema(role), schemaName: MARKET_SCHEMA_NAMES[role] }, opts),
    })),
  ];
  return seats.flatMap(({ game, ask }) =>
    (['json', 'tools'] as const).flatMap((moveInterface) =>
      [false, true].map((thinking) => {
        const format = toWebLlmRequest({ messages: [{ role: 'user', content: '' }], ...ask({ interface: moveInterface, thinking }) }, MODEL).response_format;
        if (!format) throw new Error(`no response_format for the ${moveInterface} interface`);
        return { label: `${game}${thinking ? `${moveInterface}, thinking` : moveInterface}`, interface: moveInterface, thinking, format };
      }),
    ),
  );
}

/** A format with the message's `maxLength` put back, as the grammar was before the decoder took the limit. */
export function withMessageLimit(format: ResponseFormat): ResponseFormat {
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(walk);
    if (typeof x !== 'object' || x === null) return x;
    const out = Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v)]));
    const message = (out.properties as Record<string, Record<string, unknown>> | undefined)?.message;
    // A message is a string, or (where it may be left out) a string or null.
    const type = message?.type;
    if (message && (type === 'string' || (Array.isArray(type) && type.includes('string')))) message.maxLength = MAX_MESSAGE_LENGTH;
    return out;
  };
  if (format.type === 'json_object') return { ...format, schema: JSON.stringify(walk(JSON.parse(format.schema ?? '{}'))) };
  return walk(format) as ResponseFormat;
}

export interface CompileCost {
  /** A cold compile, on a compiler of its own. */
  ms: number;
  /** The same format again on that compiler: from its cache. */
  cachedMs: number;
}

/** One format's compile times, on a fresh compiler over `info`. */
export async function compileCost(xgr: Xgr, info: TokenizerInfo, format: ResponseFormat): Promise<CompileCost> {
  const compiler = await grammarCompiler(xgr, info);
  try {
    let started = performance.now();
    (await compileResponseFormat(compiler, format)).dispose();
    const ms = performance.now() - started;
    started = performance.now();
    (await compileResponseFormat(compiler, format)).dispose();
    return { ms, cachedMs: performance.now() - started };
  } finally {
    compiler.dispose();
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** The stage's lines; `messageLimit` also times each format with the message's maxLength (about ten seconds each). */
export async function benchGrammar(opts: { messageLimit?: boolean } = {}): Promise<string[]> {
  let xgr: Xgr;
  try {
    xgr = loadXgrammar();
  } catch (e) {
    return [`grammar: skipped, @mlc-ai/web-xgrammar cannot be loaded (${e instanceof Error ? e.message : String(e)})`];
  }
  const vocabulary = qwen3Vocabulary();
  const started = performance.now();
  const info = await qwen3TokenizerInfo(xgr, vocabulary);
  const tableMs = performance.now() - started;
  const { installed } = xgrammarVersions();
  const lines = [
    `grammar (xgrammar ${installed}, as WebLLM 0.2.86 compiles a response_format, over Qwen3's ${vocabulary.tokens.length.toLocaleString('en-US')} tokens; ` +
      `load ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} cores): token table ${seconds(tableMs)}, once per loaded model`,
  ];
  try {
    for (const { label, format } of moveFormats()) {
      const cost = await compileCost(xgr, info, format);
      let line = `  ${label} (${format.type}): ${seconds(cost.ms)} cold, ${cost.cachedMs.toFixed(1)} ms from the cache`;
      if (opts.messageLimit)
        line += `; with the message's maxLength ${MAX_MESSAGE_LENGTH}: ${seconds((await compileCost(xgr, info, withMessageLimit(format))).ms)}`;
      lines.push(line);
    }
  } finally {
    info.dispose();
  }
  return lines;
}
