/**
 * The chat server's answers in each provider's dialect, and the prompt of a recorded request
 * read back from any dialect.
 */
import type { Answer, RecordedRequest, Route } from './chat-server';

const json = { 'Content-Type': 'application/json' };

function argsObject(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

export function render(route: Route, answer: Answer, askedModel: string): [number, Record<string, string>, string] {
  if (answer.kind === 'raw') return [answer.status, { 'Content-Type': answer.contentType ?? 'text/plain' }, answer.body];
  if (answer.kind === 'redirect' || answer.kind === 'stream') throw new Error(`chat-server: a ${answer.kind} answer is written by the server itself`);
  if (answer.kind === 'error') return [answer.status, { ...json, ...answer.headers }, JSON.stringify(errorBody(route, answer.status, answer.message))];
  const model = answer.model ?? askedModel;
  const tokensIn = answer.tokensIn ?? 100;
  const tokensOut = answer.tokensOut ?? 20;
  const calls = answer.toolCalls ?? [];
  switch (route) {
    case 'openai': {
      // OpenAI sends a null content beside tool calls.
      const content = answer.content === '' && calls.length > 0 ? null : answer.content;
      const message: Record<string, unknown> = { role: 'assistant', content };
      if (answer.thinking !== undefined) message.reasoning_content = answer.thinking;
      if (calls.length > 0)
        message.tool_calls = calls.map((c, i) => ({
          id: `call_${i}`,
          type: 'function',
          function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
        }));
      return [
        200,
        json,
        JSON.stringify({
          id: 'chatcmpl-test',
          object: 'chat.completion',
          created: 0,
          model,
          choices: [{ index: 0, message, finish_reason: answer.cutOff ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop' }],
          usage: { prompt_tokens: tokensIn, completion_tokens: tokensOut, total_tokens: tokensIn + tokensOut },
        }),
      ];
    }
    case 'anthropic': {
      const content: unknown[] = [];
      if (answer.thinking !== undefined) content.push({ type: 'thinking', thinking: answer.thinking, signature: 'sig' });
      if (answer.content !== '') content.push({ type: 'text', text: answer.content });
      calls.forEach((c, i) => content.push({ type: 'tool_use', id: `toolu_${i}`, name: c.name, input: argsObject(c.arguments) }));
      return [
        200,
        json,
        JSON.stringify({
          id: 'msg_test',
          type: 'message',
          role: 'assistant',
          model,
          content,
          stop_reason: answer.cutOff ? 'max_tokens' : calls.length > 0 ? 'tool_use' : 'end_turn',
          usage: { input_tokens: tokensIn, output_tokens: tokensOut },
        }),
      ];
    }
    case 'gemini': {
      const parts: unknown[] = [];
      if (answer.thinking !== undefined) parts.push({ text: answer.thinking, thought: true });
      if (answer.content !== '') parts.push({ text: answer.content });
      for (const c of calls) parts.push({ functionCall: { name: c.name, args: argsObject(c.arguments) } });
      return [
        200,
        json,
        JSON.stringify({
          candidates: [{ content: { role: 'model', parts }, finishReason: answer.cutOff ? 'MAX_TOKENS' : 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: tokensIn, candidatesTokenCount: tokensOut, totalTokenCount: tokensIn + tokensOut },
          modelVersion: model,
        }),
      ];
    }
  }
}

function errorBody(route: Route, status: number, message: string): unknown {
  switch (route) {
    case 'openai':
      return { error: { message, type: status === 429 ? 'rate_limit_error' : 'server_error', code: null } };
    case 'anthropic':
      return { type: 'error', error: { type: status === 429 ? 'rate_limit_error' : 'api_error', message } };
    case 'gemini':
      return { error: { code: status, message, status: status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL' } };
  }
}

// ---- reading requests ---------------------------------------------------------------------

/** The system prompt and the rest of the conversation of a recorded request, in any dialect. */
export function promptOf(request: RecordedRequest): { system: string; user: string } {
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
  const texts = (xs: unknown): string[] => (Array.isArray(xs) ? xs : []).map((x) => (typeof x === 'string' ? x : ''));
  switch (request.route) {
    case 'openai': {
      const messages = (Array.isArray(body.messages) ? body.messages : []) as { role?: unknown; content?: unknown }[];
      const of = (system: boolean) => texts(messages.filter((m) => (m.role === 'system') === system).map((m) => m.content)).join('\n\n');
      return { system: of(true), user: of(false) };
    }
    case 'anthropic': {
      const messages = (Array.isArray(body.messages) ? body.messages : []) as { content?: unknown }[];
      return { system: typeof body.system === 'string' ? body.system : '', user: texts(messages.map((m) => m.content)).join('\n\n') };
    }
    case 'gemini': {
      const partsText = (c: unknown): string => texts(((c as { parts?: { text?: unknown }[] } | undefined)?.parts ?? []).map((p) => p.text)).join('');
      const contents = (Array.isArray(body.contents) ? body.contents : []) as unknown[];
      return { system: partsText(body.systemInstruction), user: contents.map(partsText).join('\n\n') };
    }
  }
}
