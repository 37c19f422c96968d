/** IPC channels between the PIN window's preload and main (the PIN window is Mohar's own, never a web page). */
export const PIN_CHANNELS = {
  /** Preload -> main (invoke): what to show; null when the window has nothing to ask. */
  request: 'mohar:pin:request',
  /** Preload -> main: { pin } or null (cancelled). */
  answer: 'mohar:pin:answer',
} as const;

/** Longest PIN passed on to the token (PKCS#11 tokens take far shorter ones). */
export const MAX_PIN_LENGTH = 256;
