/**
 * What a user gives for a remote provider, a key and a base URL, checked by one set of rules for
 * the Models page, the worker's messages and the command line; and URLs made safe to quote in an
 * error. It imports only core's Result and problems, so the page loads no backend for it.
 */
import { problems, type ProblemOf } from '../engine/errors';
import { err, ok, type Result } from '../engine/result';

/**
 * The longest key taken, in characters: what one HTTP header line holds on common servers (nginx
 * and most proxies take 8 KB), well above any provider's own keys (OpenAI's project keys are
 * under 200 characters, Anthropic's about 110, Gemini's 39) and room for a gateway's JWT.
 */
export const MAX_API_KEY_LENGTH = 8192;
/** The longest base URL taken, in characters. */
export const MAX_BASE_URL_LENGTH = 2000;

/**
 * Why a key or a base URL is refused (engine/errors.ts). Neither the data nor the message ever holds
 * the text it was given: a key is secret, and a base URL may hold a password.
 */
export const REMOTE_INPUT_PROBLEMS = {
  'base-url-too-long': (d: { length: number; max: number }) => `the base URL is longer than ${d.max.toLocaleString('en-US')} characters`,
  'base-url-not-url': () => 'the base URL is not a URL; give one such as https://api.openai.com/v1',
  'base-url-not-http': () => 'the base URL must start with http:// or https://',
  'base-url-has-credentials': () =>
    'the base URL holds a user name or password (user:password@…), which would be sent with every request and could be shown in errors; give the address alone, and the key in its own field (PARLEY_API_KEY on the command line)',
  'key-too-long': (d: { length: number; max: number }) =>
    `the key is ${d.length.toLocaleString('en-US')} characters long; Parley takes keys of up to ${d.max.toLocaleString('en-US')}`,
  'key-not-header-text': () =>
    'the key holds a space or a character an HTTP header cannot carry (keys are letters, digits and ASCII signs; leave out any "Bearer ")',
} as const;

export type RemoteInputProblem = ProblemOf<typeof REMOTE_INPUT_PROBLEMS>;
const remoteInputProblem = problems(REMOTE_INPUT_PROBLEMS);

export type InputCheck = Result<string, RemoteInputProblem>;

/** A base URL as it will be used (trimmed), or why it is refused. */
export function checkBaseUrl(text: string): InputCheck {
  const trimmed = text.trim();
  if (trimmed.length > MAX_BASE_URL_LENGTH) return err(remoteInputProblem('base-url-too-long', { length: trimmed.length, max: MAX_BASE_URL_LENGTH }));
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return err(remoteInputProblem('base-url-not-url'));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return err(remoteInputProblem('base-url-not-http'));
  if (url.username !== '' || url.password !== '') return err(remoteInputProblem('base-url-has-credentials'));
  return ok(trimmed);
}

/**
 * A key as it will be sent (trimmed, as an HTTP header is), or why it is refused: too long, or
 * holding a space or a character no HTTP header can carry.
 */
export function checkApiKey(text: string): InputCheck {
  const trimmed = text.trim();
  if (trimmed.length > MAX_API_KEY_LENGTH) return err(remoteInputProblem('key-too-long', { length: trimmed.length, max: MAX_API_KEY_LENGTH }));
  if (!/^[\x21-\x7e]*$/.test(trimmed)) return err(remoteInputProblem('key-not-header-text'));
  return ok(trimmed);
}

const redactParam = (param: string): string => {
  if (param === '') return param;
  const eq = param.indexOf('=');
  return eq < 0 ? '[redacted]' : `${param.slice(0, eq)}=[redacted]`;
};

// A URL's scheme, its authority (where a user name and password sit, before the last @) and the rest.
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#\\"'<>]*@)?([^\s?#"'<>]*)(\?[^\s#"'<>]*)?(#[^\s"'<>]*)?/gi;

/**
 * Every URL in a text with its user name and password left out and the values of its query
 * replaced by `[redacted]` (a provider may put a key there, as `?key=`), its fragment dropped:
 * for error messages, which may quote the URL a request was made to.
 */
export function redactUrls(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_IN_TEXT, (_all, scheme: string, _credentials: string | undefined, rest: string, query: string | undefined) => {
    const params = query === undefined ? '' : `?${query.slice(1).split('&').map(redactParam).join('&')}`;
    return `${scheme}${rest}${params}`;
  });
}
