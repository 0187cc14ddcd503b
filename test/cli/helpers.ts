import { UsageError } from '../../src/cli/args';
import { COMMANDS } from '../../src/cli/commands';
import { main } from '../../src/cli/main';

/** Runs the command line in-process with its output captured, a fixed clock and the given environment. */
export async function runCli(argv: readonly string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const status = await main([...argv], { out: (t) => (out += t), err: (t) => (err += t), now: () => 0, env });
  return { status, out, err };
}

export { parseCsv } from '../support/csv';

/** The usage error a command is refused with, as main catches it before printing its message: its code and data. */
export async function usageProblem(argv: readonly string[], env: Record<string, string> = {}): Promise<{ code: string; data: unknown }> {
  const [name, ...rest] = argv;
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new Error(`no command ${String(name)}`);
  try {
    await command.run(rest, { out: () => {}, err: () => {}, now: () => 0, env });
  } catch (e) {
    if (e instanceof UsageError) return { code: e.code, data: e.problem.data };
    throw e;
  }
  throw new Error(`${argv.join(' ')} was not refused`);
}
