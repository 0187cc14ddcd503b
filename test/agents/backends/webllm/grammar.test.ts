/**
 * The grammar the WebLLM backend sends, compiled by the real xgrammar that WebLLM bundles, the way
 * WebLLM compiles it (json_object: compileJSONSchema; structural_tag: compileStructuralTag), and
 * run token by token through its GrammarMatcher as WebLLM's sampler does. The vocabulary is a toy
 * (one token per character, plus Qwen3's added tokens and its end token), which is enough to see
 * what the grammar lets through.
 */
import type { ResponseFormat } from '@mlc-ai/web-llm';
import type { StructuralTagLike } from '@mlc-ai/web-xgrammar';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../src/agents/backends/types';
import { toWebLlmRequest } from '../../../../src/agents/backends/webllm/backend';
import { moveResponseFormat } from '../../../../src/agents/backends/webllm/grammar';
import { MOVE_SCHEMA_NAME, moveJsonSchema, moveTools } from '../../../../src/agents/llm/schema';
import { loadXgrammar, xgrammarVersions } from './xgrammar';

const xgr = loadXgrammar();
const MODEL = 'Qwen3-1.7B-q4f16_1-MLC';
const ADDED = ['<think>', '</think>', '<tool_call>', '</tool_call>'];
const END = '<|im_end|>';
const VOCAB = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), '\n', '\t', ...ADDED, END];
const END_ID = VOCAB.indexOf(END);

let compiler: Awaited<ReturnType<typeof xgr.GrammarCompiler.createGrammarCompiler>>;
beforeAll(async () => {
  const info = await xgr.TokenizerInfo.createTokenizerInfo(VOCAB, 'raw', false, VOCAB.length, [END_ID]);
  compiler = await xgr.GrammarCompiler.createGrammarCompiler(info);
});

/** Qwen3's added tokens as one token each, everything else a character at a time. */
function tokenize(text: string): number[] {
  const ids: number[] = [];
  for (let i = 0; i < text.length; ) {
    const added = ADDED.find((t) => text.startsWith(t, i));
    const piece = added ?? (text[i] as string);
    const id = VOCAB.indexOf(piece);
    if (id < 0) throw new Error(`no token for ${JSON.stringify(piece)}`);
    ids.push(id);
    i += piece.length;
  }
  return ids;
}

/** Compiles the format as WebLLM 0.2.86 does (LLMChatPipeline.prepareGrammarMatcherForSampling). */
async function matcherFor(format: ResponseFormat | undefined) {
  if (!format) throw new Error('no response_format was sent');
  const grammar =
    format.type === 'json_object'
      ? await compiler.compileJSONSchema(format.schema as string)
      : await compiler.compileStructuralTag(format.structural_tag as StructuralTagLike);
  try {
    return await xgr.GrammarMatcher.createGrammarMatcher(grammar);
  } finally {
    grammar.dispose();
  }
}

/** Whether the grammar lets the model write exactly `text` and then stop. */
async function accepts(format: ResponseFormat | undefined, text: string): Promise<boolean> {
  const matcher = await matcherFor(format);
  try {
    for (const id of tokenize(text)) if (!matcher.acceptToken(id)) return false;
    return matcher.acceptToken(END_ID) && matcher.isTerminated();
  } finally {
    matcher.dispose();
  }
}

const messages: ChatRequest['messages'] = [
  { role: 'system', content: 'You are the buyer.' },
  { role: 'user', content: 'Your move.' },
];
const jsonRequest = (thinking: boolean): ChatRequest => ({
  messages,
  thinking,
  responseFormat: { type: 'json_schema', name: MOVE_SCHEMA_NAME, schema: moveJsonSchema() },
});
const toolsRequest = (thinking: boolean): ChatRequest => ({ messages, thinking, tools: moveTools() });
/** The response_format the backend sends for a request. */
const sent = (request: ChatRequest) => toWebLlmRequest(request, MODEL).response_format;

const OFFER = '{"message": "I can do 60.", "action": {"type": "offer", "price": 60}}';
const THOUGHT = '<think>\nThey asked 90; my value is 75. Offer 60.\n</think>\n\n';

describe('the xgrammar used here is the one WebLLM bundles', () => {
  it('@mlc-ai/web-xgrammar is installed at the version WebLLM 0.2.86 was built with', () => {
    const { installed, webllmBuiltWith } = xgrammarVersions();
    expect(webllmBuiltWith).toBe(installed);
    expect(installed).toBe('0.1.27');
  });
});

describe('JSON moves', () => {
  it('without thinking: the move schema, as json_object; a move passes, prose does not', async () => {
    const format = sent(jsonRequest(false));
    expect(format?.type).toBe('json_object');
    expect(await accepts(format, OFFER)).toBe(true);
    expect(await accepts(format, '{"action": {"type": "accept"}}')).toBe(true);
    expect(await accepts(format, 'I offer 60.')).toBe(false);
    expect(await accepts(format, '{"action": {"type": "bribe"}}')).toBe(false);
  });

  it('with thinking: a structural tag that takes a Qwen3 think block, then only the move', async () => {
    const format = sent(jsonRequest(true));
    expect(format?.type).toBe('structural_tag');
    expect(format).toEqual(moveResponseFormat({ interface: 'json', thinking: true, schema: moveJsonSchema() }));
    expect(await accepts(format, THOUGHT + OFFER)).toBe(true);
    expect(await accepts(format, '<think>\n\n</think>\n\n{"action": {"type": "walk_away"}}')).toBe(true);
    expect(await accepts(format, '<think>Accept.</think>{"action":{"type":"accept"}}')).toBe(true);
  });

  it('with thinking: refuses anything but JSON after the think block, and a move without one', async () => {
    const format = sent(jsonRequest(true));
    expect(await accepts(format, `${THOUGHT}I offer 60.`)).toBe(false);
    expect(await accepts(format, `${THOUGHT}Sure! ${OFFER}`)).toBe(false);
    expect(await accepts(format, `${THOUGHT}${OFFER} Deal?`)).toBe(false);
    expect(await accepts(format, `${THOUGHT}{"action": {"type": "offer", "price": "sixty"}}`)).toBe(false);
    expect(await accepts(format, OFFER)).toBe(false);
    expect(await accepts(format, '<think>never closed')).toBe(false);
  });
});

describe('tool calls in Qwen3’s own format', () => {
  const CALL = '<tool_call>\n{"name": "make_offer", "arguments": {"price": 60, "message": "I can do 60."}}\n</tool_call>';

  it('without thinking: exactly one call of a move tool, with arguments that fit it', async () => {
    const format = sent(toolsRequest(false));
    expect(format?.type).toBe('structural_tag');
    expect(await accepts(format, CALL)).toBe(true);
    expect(await accepts(format, '<tool_call>\n{"name": "respond_to_offer", "arguments": {"decision": "accept"}}\n</tool_call>')).toBe(true);
    expect(await accepts(format, '<tool_call>\n{"name": "walk_away", "arguments": {}}\n</tool_call>')).toBe(true);
    expect(await accepts(format, '<tool_call>\n{"name": "fly_away", "arguments": {}}\n</tool_call>')).toBe(false);
    expect(await accepts(format, '<tool_call>\n{"name": "make_offer", "arguments": {"decision": "accept"}}\n</tool_call>')).toBe(false);
    expect(await accepts(format, `${CALL}\n${CALL}`)).toBe(false);
    expect(await accepts(format, OFFER)).toBe(false);
  });

  it('with thinking: the think block, then the call', async () => {
    const format = sent(toolsRequest(true));
    expect(await accepts(format, THOUGHT + CALL)).toBe(true);
    expect(await accepts(format, `${THOUGHT}I will offer 60.`)).toBe(false);
    expect(await accepts(format, CALL)).toBe(false);
  });
});
