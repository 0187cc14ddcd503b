// Entry point of `npm run parley`: the CLI's logic lives in main.ts, which tests call directly.
import { main } from './main';

// The first Ctrl-C stops a tournament: it reports, and writes to --jsonl, what had finished.
// A second one quits at once.
const stop = new AbortController();
process.once('SIGINT', () => {
  process.stderr.write('parley: stopping; negotiations still in flight are left out. Ctrl-C again to quit at once\n');
  stop.abort();
  process.once('SIGINT', () => process.exit(130));
});

process.exitCode = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  now: () => Date.now(),
  env: process.env,
  signal: stop.signal,
});
