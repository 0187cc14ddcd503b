// Entry point of `npm run parley`: the CLI's logic lives in main.ts, which tests call directly.
import { main } from './main';

process.exitCode = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  now: () => performance.now(),
  env: process.env,
});
