/**
 * Drawing a signature with a mouse, a finger or a pen (pointer events; a pen's pressure changes the line).
 * Coalesced events keep fast strokes smooth. Keyboard users type their signature instead.
 */
import { useEffect, useId, useRef, type PointerEvent as ReactPointerEvent, type RefObject } from 'react';
import { useI18n } from '../i18n/i18n';

const INK = '#1a2a6c';

interface Props {
  canvasRef: RefObject<HTMLCanvasElement | null>;
  onInk: (hasInk: boolean) => void;
  /** The help text and the drawing area's name (the signature's by default; initials have their own). */
  help?: string;
  areaLabel?: string;
}

export function DrawPad({ canvasRef, onInk, help, areaLabel }: Props) {
  const { t } = useI18n();
  const helpId = useId();
  const last = useRef<{ x: number; y: number } | null>(null);

  // The drawing surface follows the element's size (it is 0 until the dialog opens); ink drawn so far is kept.
  useEffect(() => {
    const canvas = canvasRef.current!;
    const observer = new ResizeObserver(() => {
      const ratio = window.devicePixelRatio || 1;
      const width = Math.round(canvas.clientWidth * ratio);
      const height = Math.round(canvas.clientHeight * ratio);
      if (width === canvas.width && height === canvas.height) return;
      const old =
        canvas.width > 0 && canvas.height > 0
          ? canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height)
          : null;
      canvas.width = width;
      canvas.height = height;
      if (old) canvas.getContext('2d')!.putImageData(old, 0, 0);
    });
    observer.observe(canvas);
    return () => observer.disconnect();
  }, [canvasRef]);

  const point = (e: PointerEvent | ReactPointerEvent) => {
    const canvas = canvasRef.current!;
    const rect = canvas.getBoundingClientRect();
    return {
      x: ((e.clientX - rect.left) * canvas.width) / rect.width,
      y: ((e.clientY - rect.top) * canvas.height) / rect.height,
    };
  };
  const width = (e: PointerEvent | ReactPointerEvent) => {
    const ratio = window.devicePixelRatio || 1;
    return (e.pointerType === 'pen' && e.pressure > 0 ? 1 + 3.5 * e.pressure : 2.5) * ratio;
  };
  const endStroke = () => {
    last.current = null;
  };
  const stroke = (from: { x: number; y: number }, to: { x: number; y: number }, lineWidth: number) => {
    const ctx = canvasRef.current!.getContext('2d')!;
    ctx.strokeStyle = INK;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.lineWidth = lineWidth;
    ctx.beginPath();
    ctx.moveTo(from.x, from.y);
    ctx.lineTo(to.x, to.y);
    ctx.stroke();
  };

  return (
    <div className="draw-pad">
      <p id={helpId} className="muted">
        {help ?? t('sig.drawHelp')}
      </p>
      <canvas
        ref={canvasRef}
        className="draw-canvas"
        role="img"
        aria-label={areaLabel ?? t('sig.drawArea')}
        aria-describedby={helpId}
        onPointerDown={(e) => {
          e.preventDefault();
          e.currentTarget.setPointerCapture(e.pointerId);
          const p = point(e);
          last.current = p;
          stroke(p, { x: p.x + 0.1, y: p.y + 0.1 }, width(e));
          onInk(true);
        }}
        onPointerMove={(e) => {
          if (!last.current) return;
          const events = e.nativeEvent.getCoalescedEvents?.() ?? [];
          for (const event of events.length > 0 ? events : [e.nativeEvent]) {
            const p = point(event);
            stroke(last.current, p, width(event));
            last.current = p;
          }
        }}
        // A stroke ends however the pointer goes: lifted, cancelled by the browser (a gesture took over), or
        // capture lost (the window lost focus, a dialog opened). Without the last, the pointerup can land
        // elsewhere and a mouse or pen merely hovering over the pad later would keep drawing.
        onPointerUp={endStroke}
        onPointerCancel={endStroke}
        onLostPointerCapture={endStroke}
      />
    </div>
  );
}
