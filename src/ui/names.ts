/**
 * Agent and run names come from users and imported files: any length, any script, and possibly
 * bidi control characters. Pages show them with Name.svelte (a <bdi>); these helpers serve the
 * places that take only text: option labels, sentences, and canvas text in the charts.
 */

const PDF = '\u202C';
const PDI = '\u2069';
const FSI = '\u2068';
/** Embeddings and overrides (LRE, RLE, PDF, LRO, RLO) and isolates (LRI, RLI, FSI, PDI). */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/u;
const BIDI_CONTROLS = new RegExp(BIDI_CONTROL.source, 'gu');
const OPENS_EMBEDDING = new Set(['\u202A', '\u202B', '\u202D', '\u202E']);
const OPENS_ISOLATE = new Set(['\u2066', '\u2067', FSI]);
/** Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko, …). */
const RIGHT_TO_LEFT = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

/**
 * The name with its bidi controls balanced: a closer with nothing to close is dropped, and every
 * embedding, override or isolate left open is closed at the end. An isolate around the result
 * (a <bdi>, or FSI … PDI) then holds, whatever the name contains.
 */
export function balanceBidi(name: string): string {
  if (!BIDI_CONTROL.test(name)) return name;
  const open: string[] = []; // the closer each open control needs, innermost last
  let out = '';
  for (const ch of name) {
    if (OPENS_EMBEDDING.has(ch)) open.push(PDF);
    else if (OPENS_ISOLATE.has(ch)) open.push(PDI);
    // As in the bidi algorithm: a PDF closes only an embedding opened inside the current isolate,
    else if (ch === PDF) {
      if (open.at(-1) !== PDF) continue;
      open.pop();
    } else if (ch === PDI) {
      // and a PDI closes its isolate along with every embedding opened inside it.
      if (!open.includes(PDI)) continue;
      while (open.pop() !== PDI);
    }
    out += ch;
  }
  return out + open.reverse().join('');
}

const needsIsolating = (name: string): boolean => RIGHT_TO_LEFT.test(name) || BIDI_CONTROL.test(name);

/**
 * The name as plain text that cannot reorder its neighbours (for an option label or a sentence
 * built as a string): a name with a right-to-left letter or a bidi control comes between FSI and
 * PDI, balanced; any other name is left as it is.
 */
export const isolateText = (name: string): string => (needsIsolating(name) ? `${FSI}${balanceBidi(name)}${PDI}` : name);

/** Characters a chart label keeps: legends and point labels have room for a short name only. */
export const CHART_LABEL_LENGTH = 32;

/**
 * A name for canvas text (legends, point labels, tooltips): bidi controls removed, cut in the
 * middle to `max` characters (the end of a model spec tells models apart as often as the start),
 * and isolated when it still holds a right-to-left letter. The chart's text alternative names it in full.
 */
export function chartLabel(name: string, max = CHART_LABEL_LENGTH): string {
  const chars = [...name.replace(BIDI_CONTROLS, '')];
  const head = Math.ceil((max - 1) * 0.4);
  const short = chars.length <= max ? chars.join('') : `${chars.slice(0, head).join('')}…${chars.slice(chars.length - (max - 1 - head)).join('')}`;
  return RIGHT_TO_LEFT.test(short) ? `${FSI}${short}${PDI}` : short;
}

/** Words to show, with the names among them kept apart so that a page renders each one isolated (Phrase.svelte). */
export type Phrase = readonly (string | { name: string })[];
