/** A name made safe inside a file name: runs of other characters become `-`, at most 60 kept; `unnamed` where nothing is left. */
export const safeFileName = (text: string, unnamed = 'run'): string => text.replace(/[^\w.-]+/g, '-').slice(0, 60) || unnamed;

/** `parley-<run name>-<part>`, e.g. `parley-my-run-standings`: a file name without its extension. */
export const runFileStem = (runName: string, part: string): string => `parley-${safeFileName(runName)}-${safeFileName(part)}`;

/** `parley-<run name>-<part>.<ext>`, e.g. `parley-my-run-standings.csv`. */
export const runFileName = (runName: string, part: string, ext: string): string => `${runFileStem(runName, part)}.${ext}`;
