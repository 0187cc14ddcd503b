/**
 * A policy for training tests: a pure function of the prompt (the policy of policy-model.ts), that
 * now and then answers with something that is no move at all, so the same prompt always gets the
 * same answer, over HTTP or in-process.
 */
import http from 'node:http';
import type { ChatMessage, ChatResponse } from '../../src/agents/backends/types';
import { hashString } from '../../src/engine/rng';
import { policy } from '../support/policy-model';

/** The policy's answer to a prompt, as raw text or as tool calls (where the episode gave tools). */
export function policyAnswer(messages: readonly ChatMessage[], tools: boolean): ChatResponse {
  const prompt = messages.map((m) => m.content).join('\n');
  // About one answer in nine is malformed: an invalid move, retried under the game's rules.
  if (hashString(prompt) % 9 === 0) return { text: 'Let me think about that for a moment.', tokensIn: 0, tokensOut: 0 };
  const move = policy(prompt);
  const said = move.message === undefined ? {} : { message: move.message };
  if (!tools) return { text: JSON.stringify(move), tokensIn: 0, tokensOut: 0 };
  const action = move.action;
  const call =
    action?.type === 'offer'
      ? { name: 'make_offer', arguments: JSON.stringify({ price: action.price, ...said }) }
      : { name: 'respond_to_offer', arguments: JSON.stringify({ decision: 'accept', ...said }) };
  return { text: '', toolCalls: [call], tokensIn: 0, tokensOut: 0 };
}

/** The same answer as a step's body. */
export function stepBody(answer: ChatResponse): object {
  if (answer.toolCalls === undefined) return { completion: answer.text };
  return { tool_calls: answer.toolCalls.map((c, i) => ({ id: `call_${i}`, type: 'function', function: c })) };
}

// node:http with keep-alive: far lighter on the test machine's two cores than fetch, for the hundreds of
// requests in flight at once.
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });

/** POSTs JSON (a string is sent as it is) and reads the JSON answer, whatever its status. */
export function post(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          } catch (e) {
            reject(e);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}
