/**
 * The PinPrompt port: how the desktop signer asks the signer for the token PIN. The Electron shell
 * implements it as a small modal window of its own (local HTML, never the server's web content); tests
 * implement it in code. The PIN goes from the prompt straight to C_Login and is dropped afterwards.
 */

/** What the prompt shows, so the signer knows which key signs what before typing the PIN. */
export interface PinRequest {
  token: { label: string; serialNumber: string; moduleName: string };
  certificate: { subject: string; issuer: string; notAfter: string };
  /** As given by the page (control characters replaced, length capped): display it as plain text only. */
  documentName: string;
  /**
   * SHA-256 (hex) of the prepared PDF bytes that will be signed. For a batch: of its manifest, the lines
   * "<sha256>  <name>\n" of `documents` in order (what `sha256sum` prints for the files).
   */
  documentSha256: string;
  /** A batch (main/signer/batch.ts): every document the one PIN will sign, in order. */
  documents?: readonly { name: string; sha256: string }[];
  /** The token says the next wrong PIN locks it (CKF_USER_PIN_FINAL_TRY). */
  finalTry: boolean;
}

export interface PinPrompt {
  /** Resolves with the PIN, or null when the signer cancelled. */
  askPin(request: PinRequest): Promise<string | null>;
}
