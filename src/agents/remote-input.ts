/**
 * What a user gives for a remote provider, a key and a base URL, checked by one set of rules for
 * the Models page, the worker's messages and the command line; and URLs made safe to quote in an
 * error. It imports only core's Result, so the page loads no backend for it.
 */
import { err, ok, type Result } from '../engine/result';

/**
 * The longest key taken, in characters: what one HTTP header line holds on common servers (nginx
 * and most proxies take 8 KB), well above any provider's own keys (OpenAI's project keys are
 * under 200 characters, Anthropic's about 110, Gemini's 39) and room for a gateway's JWT.
 */
export const MAX_API_KEY_LENGTH = 8192;
/** The longest base URL taken, in characters. */
export const MAX_BASE_URL_LENGTH = 2000;

export type InputCheck = Result<string, string>;

/**
 * A base URL as it will be used (trimmed), or why it is refused. The message never repeats the
 * text it was given, which may hold a password.
 */
export function checkBaseUrl(text: string): InputCheck {
  const trimmed = text.trim();
  if (trimmed.length > MAX_BASE_URL_LENGTH) return err(`the base URL is longer than ${MAX_BASE_URL_LENGTH.toLocaleString('en-US')} characters`);
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return err('the base URL is not a URL; give one such as https://api.openai.com/v1');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return err('the base URL must start with http:// or https://');
  if (url.username !== '' || url.password !== '')
    return err(
      'the base URL holds a user name or password (user:password@…), which would be sent with every request and could be shown in errors; give the address alone, and the key in its own field (PARLEY_API_KEY on the command line)',
    );
  return ok(trimmed);
}

/**
 * A key as it will be sent (trimmed, as an HTTP header is), or why it is refused: too long, or
 * holding a space or a character no HTTP header can carry. The message never repeats the key.
 */
export function checkApiKey(text: string): InputCheck {
  const trimmed = text.trim();
  if (trimmed.length > MAX_API_KEY_LENGTH)
    return err(
      `the key is ${trimmed.length.toLocaleString('en-US')} characters long; Parley takes keys of up to ${MAX_API_KEY_LENGTH.toLocaleString('en-US')}`,
    );
  if (!/^[\x21-\x7e]*$/.test(trimmed))
    return err('the key holds a space or a character an HTTP header cannot carry (keys are letters, digits and ASCII signs; leave out any "Bearer ")');
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
