/**
 * The field types to place. A button per type: click it (or Enter) to add that field to the current page,
 * or press and drag it onto a page to drop it where it should go. Types the chosen party cannot hold are
 * disabled with the reason.
 */
import { useEffect, useRef, useState, type MouseEvent, type PointerEvent } from 'react';
import { useT } from '../i18n';
import type { ConsoleStringKey } from '../strings';
import { ALL_FIELD_TYPES, unavailableFor, type FieldType } from './field-kinds';
import type { EditorParty } from './types';

/** A pointer that moves this far (CSS px) after pressing is a drag, not a click. */
const DRAG_THRESHOLD = 4;

interface Props {
  party: EditorParty | undefined;
  colour: string;
  onAdd(type: number): void;
  onDrop(type: number, clientX: number, clientY: number): void;
}

/** The console's words for a field type: the key does not compile while a type has none in the catalogue. */
export function typeKey(type: number): ConsoleStringKey {
  const key: `compose.fields.type.${FieldType}` = `compose.fields.type.${type as FieldType}`;
  return key;
}

export function Palette({ party, colour, onAdd, onDrop }: Props) {
  const { t } = useT();
  const pressed = useRef<{ type: number; x: number; y: number; dragging: boolean } | null>(null);
  const suppressClick = useRef(false);
  const [ghost, setGhost] = useState<{ type: number; x: number; y: number } | null>(null);

  useEffect(() => {
    const onMove = (event: globalThis.PointerEvent) => {
      const p = pressed.current;
      if (!p) return;
      if (!p.dragging && Math.hypot(event.clientX - p.x, event.clientY - p.y) < DRAG_THRESHOLD) return;
      p.dragging = true;
      setGhost({ type: p.type, x: event.clientX, y: event.clientY });
    };
    const onUp = (event: globalThis.PointerEvent) => {
      const p = pressed.current;
      pressed.current = null;
      setGhost(null);
      if (!p?.dragging) return;
      suppressClick.current = true;
      onDrop(p.type, event.clientX, event.clientY);
    };
    window.addEventListener('pointermove', onMove);
    window.addEventListener('pointerup', onUp);
    window.addEventListener('pointercancel', onUp);
    return () => {
      window.removeEventListener('pointermove', onMove);
      window.removeEventListener('pointerup', onUp);
      window.removeEventListener('pointercancel', onUp);
    };
  }, [onDrop]);

  const press = (type: number) => (event: PointerEvent<HTMLButtonElement>) => {
    if (event.button !== 0) return;
    event.preventDefault(); // no text selection while dragging
    suppressClick.current = false;
    pressed.current = { type, x: event.clientX, y: event.clientY, dragging: false };
  };
  const click = (type: number, event: MouseEvent<HTMLButtonElement>) => {
    // The click that ends a drag is not an "add"; a keyboard click (detail 0) always is.
    const endsDrag = suppressClick.current && event.detail > 0;
    suppressClick.current = false;
    if (!endsDrag) onAdd(type);
  };

  return (
    <div className="palette" role="group" aria-label={t('compose.fields.palette')}>
      <p className="muted small-print">{t('compose.fields.paletteHint')}</p>
      <ul>
        {ALL_FIELD_TYPES.map((type) => {
          const unavailable = unavailableFor(type, party);
          return (
            <li key={type}>
              <button
                type="button"
                className="palette-item"
                data-field-type={type}
                disabled={!party || unavailable !== null}
                title={unavailable ? t(`compose.fields.problem.${unavailable}`) : undefined}
                onPointerDown={press(type)}
                onClick={(event) => click(type, event)}
              >
                <span className="palette-swatch" style={{ backgroundColor: colour }} aria-hidden="true" />
                {t(typeKey(type))}
              </button>
            </li>
          );
        })}
      </ul>
      {ghost && (
        <div
          className="palette-ghost"
          style={{ left: `${ghost.x}px`, top: `${ghost.y}px`, borderColor: colour }}
          aria-hidden="true"
        >
          {t(typeKey(ghost.type))}
        </div>
      )}
    </div>
  );
}
