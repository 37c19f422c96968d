/**
 * Draw, type or upload a signature; "Use this signature" adopts it for every Signature field of this signer.
 * The same dialog adopts their initials (draw or type, under an "initials" title) for every Initials field.
 */
import { useRef, useState, type KeyboardEvent } from 'react';
import { useI18n } from '../i18n/i18n';
import type { StringKey } from '../i18n/strings';
import { drawnSignature, typedSignature } from '../signature/image';
import type { AdoptedSignature } from '../types';
import { DrawPad } from './DrawPad';
import { Modal } from '../shared/Modal';
import { TypeSignature } from './TypeSignature';
import { UploadSignature } from './UploadSignature';

type Mode = 'draw' | 'type' | 'upload';
const SIGNATURE_MODES: readonly Mode[] = ['draw', 'type', 'upload'];
const INITIALS_MODES: readonly Mode[] = ['draw', 'type'];
const TAB_LABEL: Record<Mode, StringKey> = { draw: 'sig.draw', type: 'sig.type', upload: 'sig.upload' };

interface Props {
  /** What is adopted: the signature (default) or the initials (draw or type only). */
  purpose?: 'signature' | 'initials';
  defaultText: string;
  onAdopt: (signature: AdoptedSignature) => void;
  onClose: () => void;
}

export function SignatureDialog({ purpose = 'signature', defaultText, onAdopt, onClose }: Props) {
  const { t } = useI18n();
  const initials = purpose === 'initials';
  const MODES = initials ? INITIALS_MODES : SIGNATURE_MODES;
  const [mode, setMode] = useState<Mode>('draw');
  const [text, setText] = useState(defaultText);
  const [uploaded, setUploaded] = useState<AdoptedSignature | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [, setInk] = useState(false);
  const canvas = useRef<HTMLCanvasElement>(null);
  const tabs = useRef<Record<Mode, HTMLButtonElement | null>>({ draw: null, type: null, upload: null });

  const onTabKey = (e: KeyboardEvent) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    const next = MODES[(MODES.indexOf(mode) + step + MODES.length) % MODES.length]!;
    setMode(next);
    tabs.current[next]?.focus();
  };

  const adopt = async () => {
    const signature =
      mode === 'draw'
        ? canvas.current
          ? drawnSignature(canvas.current)
          : null
        : mode === 'type'
          ? await typedSignature(text)
          : uploaded;
    if (!signature) return setError(t(initials ? 'initials.empty' : 'sig.empty'));
    onAdopt(signature);
  };

  const clear = () => {
    const c = canvas.current;
    c?.getContext('2d')?.clearRect(0, 0, c.width, c.height);
    setInk(false);
  };

  return (
    <Modal title={t(initials ? 'initials.title' : 'sig.title')} onClose={onClose} className="signature-dialog">
      <div role="tablist" aria-label={t(initials ? 'initials.tabs' : 'sig.tabs')} className="tabs" onKeyDown={onTabKey}>
        {MODES.map((m) => (
          <button
            key={m}
            ref={(el) => {
              tabs.current[m] = el;
            }}
            type="button"
            role="tab"
            id={`sig-tab-${m}`}
            aria-selected={mode === m}
            aria-controls={`sig-panel-${m}`}
            tabIndex={mode === m ? 0 : -1}
            className={mode === m ? 'tab active' : 'tab'}
            onClick={() => {
              setMode(m);
              setError(null);
            }}
          >
            {t(TAB_LABEL[m])}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`sig-panel-${mode}`} aria-labelledby={`sig-tab-${mode}`} className="tab-panel">
        {mode === 'draw' && (
          <>
            <DrawPad
              canvasRef={canvas}
              onInk={setInk}
              {...(initials ? { help: t('initials.drawHelp'), areaLabel: t('initials.drawArea') } : {})}
            />
            <button type="button" className="button small" onClick={clear}>
              {t('sig.clear')}
            </button>
          </>
        )}
        {mode === 'type' && (
          <TypeSignature
            text={text}
            onText={setText}
            {...(initials ? { label: t('initials.typeLabel'), maxLength: 20 } : {})}
          />
        )}
        {mode === 'upload' && <UploadSignature value={uploaded} onValue={setUploaded} />}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          {t('sig.cancel')}
        </button>
        <button type="button" className="button primary" onClick={() => void adopt()}>
          {t(initials ? 'initials.adopt' : 'sig.adopt')}
        </button>
      </div>
    </Modal>
  );
}
