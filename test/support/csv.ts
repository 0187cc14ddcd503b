/**
 * An RFC 4180 reader (quoted fields, doubled quotes, line breaks inside quotes), to read back the
 * CSV that Parley writes; a file that does not end with a complete line is refused.
 */
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
