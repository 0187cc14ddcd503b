import { main } from '../../src/cli/main';

/** Runs the command line in-process with its output captured, a fixed clock and the given environment. */
export async function runCli(argv: readonly string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const status = await main([...argv], { out: (t) => (out += t), err: (t) => (err += t), now: () => 0, env });
  return { status, out, err };
}

export { parseCsv } from '../support/csv';
