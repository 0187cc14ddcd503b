import { afterEach } from 'vitest';
import { start, type ChatServer, type RecordedRequest, type Script } from '../../support/chat-server';

/** Headers Node's fetch adds by itself (a browser adds its own); the rest are the client's. */
const TRANSPORT_HEADERS = new Set(['host', 'connection', 'content-length', 'accept', 'accept-language', 'accept-encoding', 'sec-fetch-mode', 'user-agent']);

/** The headers the client chose to send. */
export function ownHeaders(request: RecordedRequest | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(request?.headers ?? {}).filter(([name]) => !TRANSPORT_HEADERS.has(name)));
}

/** A signal that is never aborted, fresh per call. */
export const live = (): AbortSignal => new AbortController().signal;

/**
 * `serve(script)` starts a local chat server for the test that calls it; every server a file
 * started is closed after each test.
 */
export function serverPerTest(): (script: Script) => Promise<ChatServer> {
  const servers: ChatServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (script) => {
    const s = await start(script);
    servers.push(s);
    return s;
  };
}
