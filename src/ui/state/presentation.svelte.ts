/**
 * Presentation mode, for a projector: large type, the Arena's setup folded away, and the
 * transcript, the chart and the outcome on one screen. Kept in this browser's localStorage.
 */
export const PRESENTATION_KEY = 'parley.presentation';

function stored(): boolean {
  try {
    return localStorage.getItem(PRESENTATION_KEY) === 'on';
  } catch {
    return false;
  }
}

export class Presentation {
  on = $state(stored());

  set(on: boolean): void {
    this.on = on;
    try {
      localStorage.setItem(PRESENTATION_KEY, on ? 'on' : 'off');
    } catch {
      // Storage refused (a private window): the mode still holds for this tab.
    }
  }
}

export const presentation = new Presentation();
