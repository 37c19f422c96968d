/**
 * One placed field over its page: drag it to move, drag its corner to resize (pointer events, so mouse, pen
 * and touch all work), or with the keyboard: arrows move it 1 pt (Shift: 10 pt), Alt+arrows resize it,
 * Delete removes it. Every change goes through geometry.ts, so it never leaves its page.
 */
import { useRef, type CSSProperties, type KeyboardEvent, type PointerEvent } from 'react';
import { placeAt, resizeTo } from './geometry';
import type { EditorField, PageBox } from './types';

interface Props {
  field: EditorField;
  page: PageBox;
  scale: number;
  colour: string;
  /** What the box says: the type and the party's name. */
  caption: string;
  /** What a screen reader says for it (type, party, page, position). */
  description: string;
  selected: boolean;
  problem: string | undefined;
  problemId: string;
  onSelect(id: string): void;
  onChange(field: EditorField): void;
  onRemove(id: string): void;
}

type Gesture = { kind: 'move' | 'resize'; startX: number; startY: number; from: EditorField };

export function FieldBox({
  field,
  page,
  scale,
  colour,
  caption,
  description,
  selected,
  problem,
  problemId,
  onSelect,
  onChange,
  onRemove,
}: Props) {
  const gesture = useRef<Gesture | null>(null);

  const start = (kind: Gesture['kind']) => (event: PointerEvent<HTMLElement>) => {
    if (event.button !== 0) return;
    event.preventDefault();
    event.stopPropagation();
    onSelect(field.id);
    (event.currentTarget as HTMLElement).setPointerCapture(event.pointerId);
    (kind === 'move' ? event.currentTarget : event.currentTarget.parentElement)?.focus();
    gesture.current = { kind, startX: event.clientX, startY: event.clientY, from: field };
  };
  const move = (event: PointerEvent<HTMLElement>) => {
    const g = gesture.current;
    if (!g) return;
    const dx = (event.clientX - g.startX) / scale;
    const dy = (event.clientY - g.startY) / scale;
    onChange(
      g.kind === 'move'
        ? placeAt(g.from, g.from.x + dx, g.from.y + dy, page)
        : resizeTo(g.from, g.from.width + dx, g.from.height + dy, page),
    );
  };
  const end = () => {
    gesture.current = null;
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.target !== event.currentTarget) return;
    const step = event.shiftKey ? 10 : 1;
    const arrows: Record<string, [number, number]> = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step],
    };
    const arrow = arrows[event.key];
    if (arrow) {
      event.preventDefault();
      const [dx, dy] = arrow;
      onChange(
        event.altKey
          ? resizeTo(field, field.width + dx, field.height + dy, page, false)
          : placeAt(field, field.x + dx, field.y + dy, page, false),
      );
    } else if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      onRemove(field.id);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onSelect(field.id);
    }
  };

  const style: CSSProperties = {
    left: `${field.x * scale}px`,
    top: `${field.y * scale}px`,
    width: `${field.width * scale}px`,
    height: `${field.height * scale}px`,
    borderColor: colour,
    fontSize: `${Math.max(9, Math.min(field.height * scale * 0.45, 14))}px`,
  };
  return (
    <div
      className={`editor-field${selected ? ' selected' : ''}${problem ? ' has-problem' : ''}`}
      style={style}
      data-field-id={field.id}
      data-field-type={field.field_type}
      role="button"
      tabIndex={0}
      aria-pressed={selected}
      aria-label={description}
      aria-describedby={problem ? problemId : undefined}
      onPointerDown={start('move')}
      onPointerMove={move}
      onPointerUp={end}
      onPointerCancel={end}
      // Capture lost mid-drag (a dialog opened, the window lost focus): the pointerup may land elsewhere, and
      // without this a mouse merely hovering over the box later would keep moving it.
      onLostPointerCapture={end}
      onFocus={() => onSelect(field.id)}
      onKeyDown={onKeyDown}
    >
      <span className="editor-field-tint" style={{ backgroundColor: colour }} aria-hidden="true" />
      <span className="editor-field-caption" aria-hidden="true">
        {problem ? '⚠ ' : ''}
        {caption}
      </span>
      {problem && (
        <span className="editor-field-problem" id={problemId} role="note">
          {problem}
        </span>
      )}
      <span className="editor-field-handle" aria-hidden="true" onPointerDown={start('resize')} />
    </div>
  );
}
