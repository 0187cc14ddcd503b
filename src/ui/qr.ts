/**
 * QR codes for links (qr by paulmillr: no network, no dependencies). The code is drawn from the
 * module grid as one SVG path, never from markup. Error correction: medium (15%) while the code
 * stays small; a long link (a result link, ~700 characters) takes low (7%), which keeps it near
 * version 18 (89 modules) rather than 22: a code shown on a screen is not scratched or folded, and
 * fewer, larger modules are what a phone camera needs.
 */
import encodeQR, { type ErrorCorrection } from 'qr';

/** Above this version, medium error correction gives way to low. */
const MAX_MEDIUM_VERSION = 12;
/** Quiet zone, in modules, as the standard asks. */
export const QR_BORDER = 4;

export interface QrGrid {
  /** Rows of modules, true where dark, the quiet zone included. */
  modules: boolean[][];
  version: number;
  ecc: ErrorCorrection;
}

const versionOf = (modules: boolean[][]) => (modules.length - 2 * QR_BORDER - 17) / 4;

export function qrGrid(text: string): QrGrid {
  const medium = encodeQR(text, 'raw', { ecc: 'medium', border: QR_BORDER });
  if (versionOf(medium) <= MAX_MEDIUM_VERSION) return { modules: medium, version: versionOf(medium), ecc: 'medium' };
  const low = encodeQR(text, 'raw', { ecc: 'low', border: QR_BORDER });
  return { modules: low, version: versionOf(low), ecc: 'low' };
}

/** The dark modules as one SVG path, one unit per module, each row's runs as rectangles. */
export function qrPath(modules: readonly (readonly boolean[])[]): string {
  const parts: string[] = [];
  modules.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) {
      if (!row[x]) continue;
      let end = x;
      while (row[end + 1]) end++;
      parts.push(`M${x} ${y}h${end - x + 1}v1h-${end - x + 1}z`);
      x = end;
    }
  });
  return parts.join('');
}
