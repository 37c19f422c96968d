/**
 * The PIN window's preload: fills the local page (pin.html, which runs no script of its own) with what
 * is being signed and sends the PIN or a cancel to main. Text is set with textContent only. The input is
 * cleared as soon as the PIN is read. Bundled to CommonJS (sandboxed preload).
 */
import { ipcRenderer } from 'electron';
import type { PinRequest } from '../../signer/pin-prompt.js';
import { MAX_PIN_LENGTH, PIN_CHANNELS } from '../pin-channels.js';

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`pin.html lacks #${id}`);
  return found as T;
}

function show(id: string, text: string): void {
  element(id).textContent = text;
}

/** 64 hex digits in groups of 8, easier to compare by eye. */
function grouped(hex: string): string {
  return hex.replace(/(.{8})(?=.)/g, '$1 ');
}

let answered = false;
function answer(pin: string | null): void {
  if (answered) return;
  answered = true;
  ipcRenderer.send(PIN_CHANNELS.answer, pin === null ? null : { pin });
}

window.addEventListener('DOMContentLoaded', () => {
  void ipcRenderer.invoke(PIN_CHANNELS.request).then((request: PinRequest | null) => {
    if (request === null) return answer(null);
    show('document-name', request.documentName);
    show('document-sha256', grouped(request.documentSha256));
    // A batch: the list itself, so the signer sees every document the one PIN signs.
    const list = element('documents');
    for (const doc of request.documents ?? []) {
      const item = document.createElement('li');
      item.textContent = `${doc.name}: ${grouped(doc.sha256)}`;
      list.append(item);
    }
    list.hidden = (request.documents ?? []).length === 0;
    show('token', `${request.token.label} (${request.token.moduleName}, serial ${request.token.serialNumber})`);
    show('certificate-subject', request.certificate.subject);
    show('certificate-issuer', request.certificate.issuer);
    show('certificate-valid-until', request.certificate.notAfter.slice(0, 10));
    element('final-try').hidden = !request.finalTry;

    const form = element<HTMLFormElement>('pin-form');
    const input = element<HTMLInputElement>('pin');
    const sign = element<HTMLButtonElement>('sign');
    input.maxLength = MAX_PIN_LENGTH;
    input.addEventListener('input', () => {
      sign.disabled = input.value.length === 0;
    });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const pin = input.value;
      input.value = '';
      if (pin.length > 0) answer(pin);
    });
    element('cancel').addEventListener('click', () => answer(null));
    window.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') answer(null);
    });
    input.focus();
  });
});
