import type { RecordedRequest } from '../../support/chat-server';

/** Headers Node's fetch adds by itself (a browser adds its own); the rest are the client's. */
const TRANSPORT_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'accept',
  'accept-language',
  'accept-encoding',
  'sec-fetch-mode',
  'user-agent',
]);

/** The headers the client chose to send. */
export function ownHeaders(request: RecordedRequest | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(request?.headers ?? {}).filter(([name]) => !TRANSPORT_HEADERS.has(name)));
}
