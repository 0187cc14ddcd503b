/**
 * Scanning result links' QR codes with the camera: the browser's BarcodeDetector where it has one
 * (Chrome on Android and macOS), else each frame is decoded by the qr library's reader, the same
 * code the tests use to read back what the page drew. Each link is handed on once per scan.
 */
import { payloadsIn } from '../../storage/result-link';

/** How often a frame is read: a code held up is found within a fraction of a second. */
const FRAME_MS = 200;

interface Detector {
  detect(source: CanvasImageSource): Promise<{ rawValue: string }[]>;
}
type DetectorClass = { new (opts: { formats: string[] }): Detector; getSupportedFormats?: () => Promise<string[]> };

/** Why this browser cannot scan, or null when it can try (it still asks for the camera). */
export function cameraProblem(): string | null {
  if (typeof navigator === 'undefined' || !navigator.mediaDevices?.getUserMedia)
    return 'this browser gives this page no camera (a camera needs the page served over https, or from localhost)';
  return null;
}

export class CameraScan {
  status = $state<'off' | 'starting' | 'scanning' | 'failed'>('off');
  error = $state<string | null>(null);
  /** Which reader is decoding: the browser's own, or the qr library's. */
  reader = $state<'browser' | 'library' | null>(null);
  /** Links found in this scan. */
  found = $state(0);
  private stream: MediaStream | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private seen = new Set<string>();

  async start(video: HTMLVideoElement, onLink: (payload: string) => void): Promise<void> {
    const problem = cameraProblem();
    if (problem) {
      this.fail(problem);
      return;
    }
    this.stop();
    this.status = 'starting';
    this.error = null;
    this.found = 0;
    this.seen = new Set();
    try {
      this.stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
      video.srcObject = this.stream;
      await video.play();
    } catch (e) {
      this.stop();
      this.fail(`the camera could not be opened (${e instanceof Error ? e.message : String(e)})`);
      return;
    }
    const decode = await this.decoder();
    this.status = 'scanning';
    const canvas = document.createElement('canvas');
    const frame = async () => {
      if (this.status !== 'scanning') return;
      try {
        for (const text of await decode(video, canvas))
          for (const payload of payloadsIn(text)) {
            if (this.seen.has(payload)) continue;
            this.seen.add(payload);
            this.found += 1;
            onLink(payload);
          }
      } catch {
        // A frame that cannot be read (the camera still starting, a blur) is skipped.
      }
      if (this.status === 'scanning') this.timer = setTimeout(() => void frame(), FRAME_MS);
    };
    void frame();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.stream = null;
    if (this.status !== 'failed') this.status = 'off';
  }

  private fail(problem: string): void {
    this.error = problem;
    this.status = 'failed';
  }

  /** The browser's detector where it reads QR codes, else the library's reader over a canvas frame. */
  private async decoder(): Promise<(video: HTMLVideoElement, canvas: HTMLCanvasElement) => Promise<string[]>> {
    const Native = (globalThis as { BarcodeDetector?: DetectorClass }).BarcodeDetector;
    const formats = Native ? await Native.getSupportedFormats?.().catch(() => []) : [];
    if (Native && (formats === undefined || formats.includes('qr_code'))) {
      const detector = new Native({ formats: ['qr_code'] });
      this.reader = 'browser';
      return async (video) => (await detector.detect(video)).map((code) => code.rawValue);
    }
    const { default: decodeQR } = await import('qr/decode.js');
    this.reader = 'library';
    return async (video, canvas) => {
      const width = video.videoWidth;
      const height = video.videoHeight;
      if (!width || !height) return [];
      canvas.width = width;
      canvas.height = height;
      const context = canvas.getContext('2d', { willReadFrequently: true });
      if (!context) return [];
      context.drawImage(video, 0, 0, width, height);
      return [decodeQR(context.getImageData(0, 0, width, height))];
    };
  }
}
