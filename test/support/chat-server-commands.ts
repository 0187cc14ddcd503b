/**
 * The local chat server (chat-server.ts) for browser-mode tests: it runs in Node, and the test
 * starts it with a list of answers (plain data, so it crosses to Node) and reads back what it was
 * sent through these Vitest browser commands (`commands.chatServerStart(…)` from 'vitest/browser').
 */
import { randomUUID } from 'node:crypto';
import type { BrowserCommand, BrowserCommandContext } from 'vitest/node';
import type { Answer, ChatServer, RecordedRequest } from './chat-server.ts';

/** Loaded through the test server on first use, as paced-commands.ts loads the paced model. */
const load = (context: BrowserCommandContext) =>
  context.project.vite.ssrLoadModule('/test/support/chat-server.ts') as Promise<typeof import('./chat-server.ts')>;

const servers = new Map<string, ChatServer>();
const server = (id: string): ChatServer => {
  const found = servers.get(id);
  if (!found) throw new Error(`no chat server ${id}`);
  return found;
};

/** What the test reads of a request: where it went, its headers, how much of a stream went out. */
export type SeenRequest = Pick<RecordedRequest, 'index' | 'route' | 'path' | 'headers' | 'model' | 'streamed'>;

export const chatServerCommands = {
  /** Answers in order; with `repeat`, the last answer again for every request after them. */
  chatServerStart: async (context, answers: Answer[], opts: { repeat?: boolean } = {}) => {
    const { start } = await load(context);
    let next = 0;
    const s = await start(() => {
      const answer = answers[Math.min(next++, answers.length - 1)];
      if (answer === undefined || (!opts.repeat && next > answers.length))
        return { kind: 'error', status: 500, message: `chat-server: no answer scripted for request ${next}` };
      return answer;
    });
    const id = randomUUID();
    servers.set(id, s);
    return { id, url: s.url };
  },
  chatServerRequests: (_context, id: string): SeenRequest[] =>
    server(id).requests.map(({ index, route, path, headers, model, streamed }) => ({
      index,
      route,
      path,
      headers,
      model,
      ...(streamed === undefined ? {} : { streamed: { ...streamed } }),
    })),
  chatServerState: (_context, id: string) => ({ inFlight: server(id).inFlight, preflights: server(id).preflights.length }),
  chatServerClose: async (_context, id: string) => {
    await servers.get(id)?.close();
    servers.delete(id);
  },
} satisfies Record<string, BrowserCommand<any[]>>;

type Commands = typeof chatServerCommands;
type AsCommand<F> = F extends (context: never, ...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;

declare module 'vitest/browser' {
  interface BrowserCommands {
    chatServerStart: AsCommand<Commands['chatServerStart']>;
    chatServerRequests: AsCommand<Commands['chatServerRequests']>;
    chatServerState: AsCommand<Commands['chatServerState']>;
    chatServerClose: AsCommand<Commands['chatServerClose']>;
  }
}
