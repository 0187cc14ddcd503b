import { main } from '../../src/cli/main';

/** Runs the command line in-process with its output captured, a fixed clock and the given environment. */
export async function runCli(argv: readonly string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const status = await main([...argv], { out: (t) => (out += t), err: (t) => (err += t), now: () => 0, env });
  return { status, out, err };
}

/** An RFC 4180 reader (quoted fields, doubled quotes, line breaks inside quotes), to read back the CLI's CSV. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n') {
      rows.push([...row, field]);
      row = [];
      field = '';
    } else field += ch;
  }
  if (quoted || field !== '' || row.length > 0) throw new Error('the CSV does not end with a complete line');
  return rows;
}
