/**
 * What WebLLM's grammar (its bundled xgrammar) lets Qwen3 write, as one `response_format`.
 *
 * - JSON moves without thinking: the move's JSON Schema (`json_object` with a schema). WebLLM puts
 *   the empty think block in front of the answer itself, so the grammar starts at the JSON.
 * - With thinking, a schema from the first token would forbid Qwen3's `<think>`, so a structural
 *   tag allows a think block of free text, a little whitespace, then only the move.
 * - Tools: WebLLM takes no `tools` for Qwen3, so the tools are written into the system prompt the
 *   way Qwen3's chat template writes them, and the structural tag forces exactly one call in
 *   Qwen3's own format, `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`, after the
 *   think block when there is one.
 */
import type { ResponseFormat } from '@mlc-ai/web-llm';
import type { ChatMessage, ToolSpec } from '../types';

/** How a move is asked of the model: one JSON object, or one call of a move tool. */
export type MoveInterface = 'json' | 'tools';

export interface MoveGrammar {
  interface: MoveInterface;
  thinking: boolean;
  /** The move's JSON Schema (json). */
  schema?: object;
  /** The tools one of which must be called (tools). */
  tools?: readonly ToolSpec[];
}

/** The structural-tag formats used here, as xgrammar 0.1.27 reads them. */
type Format =
  | { type: 'any_text' }
  | { type: 'regex'; pattern: string }
  | { type: 'json_schema'; json_schema: Record<string, unknown> | boolean }
  | { type: 'tag'; begin: string; content: Format; end: string }
  | { type: 'sequence'; elements: Format[] };

const THINK: Format = { type: 'tag', begin: '<think>', content: { type: 'any_text' }, end: '</think>' };
/** Qwen3 writes "\n\n" between its thinking and the answer; a little more or less is allowed. */
const GAP: Format = { type: 'regex', pattern: '\\s{0,4}' };

export const TOOL_CALL_BEGIN = '<tool_call>\n';
export const TOOL_CALL_END = '\n</tool_call>';

/** One call of any of the tools: its name, then arguments that match that tool's parameters. */
function toolCall(tools: readonly ToolSpec[]): Format {
  const calls = tools.map((tool) => ({
    type: 'object',
    properties: { name: { const: tool.name }, arguments: tool.parameters },
    required: ['name', 'arguments'],
    additionalProperties: false,
  }));
  return { type: 'tag', begin: TOOL_CALL_BEGIN, content: { type: 'json_schema', json_schema: { anyOf: calls } }, end: TOOL_CALL_END };
}

/** The `response_format` for one move; undefined leaves the model free (no schema, no tools). */
export function moveResponseFormat(grammar: MoveGrammar): ResponseFormat | undefined {
  let answer: Format;
  if (grammar.interface === 'tools') {
    if (!grammar.tools || grammar.tools.length === 0) return undefined;
    answer = toolCall(grammar.tools);
  } else {
    if (!grammar.schema) return undefined;
    if (!grammar.thinking) return { type: 'json_object', schema: JSON.stringify(grammar.schema) };
    answer = { type: 'json_schema', json_schema: grammar.schema as Record<string, unknown> };
  }
  const format: Format = grammar.thinking ? { type: 'sequence', elements: [THINK, GAP, answer] } : answer;
  return { type: 'structural_tag', structural_tag: { type: 'structural_tag', format } };
}

/** The tools as Qwen3's chat template puts them into the system message. */
export function toolsSystemText(tools: readonly ToolSpec[]): string {
  const signatures = tools.map((t) => JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  return [
    '# Tools',
    '',
    'You may call one or more functions to assist with the user query.',
    '',
    'You are provided with function signatures within <tools></tools> XML tags:',
    `<tools>\n${signatures.join('\n')}\n</tools>`,
    '',
    'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:',
    '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>',
  ].join('\n');
}

/** The messages with the tools appended to the system message (or in one of their own). */
export function withTools(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): ChatMessage[] {
  const text = toolsSystemText(tools);
  const [first, ...rest] = messages;
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${text}` }, ...rest];
  return [{ role: 'system', content: text }, ...messages];
}

const TOOL_CALL = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;

/**
 * The tool calls in a Qwen3 answer, and the answer without them (its thinking, if any). A call
 * whose JSON does not read is left in the text for the decoder to report.
 */
export function readToolCalls(text: string): { text: string; toolCalls: { name: string; arguments: string }[] } {
  const toolCalls: { name: string; arguments: string }[] = [];
  const rest = text.replace(TOOL_CALL, (whole, body: string) => {
    let call: unknown;
    try {
      call = JSON.parse(body);
    } catch {
      return whole;
    }
    if (typeof call !== 'object' || call === null) return whole;
    const { name, arguments: args } = call as { name?: unknown; arguments?: unknown };
    if (typeof name !== 'string') return whole;
    toolCalls.push({ name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) });
    return '';
  });
  return { text: toolCalls.length > 0 ? rest.trimEnd() : text, toolCalls };
}
