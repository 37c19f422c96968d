/**
 * Zoom: scale is CSS pixels per PDF point. "100%" is the usual 96/72 (a page as large as on paper). By default
 * pages fit the width of the screen but never exceed 100%; the buttons step through the usual levels or fit
 * the width exactly.
 */
import { useCallback, useState } from 'react';

export const CSS_PER_POINT = 96 / 72;
const MIN = 0.25 * CSS_PER_POINT;
const MAX = 4 * CSS_PER_POINT;

export interface Zoom {
  scale: number;
  /** False until the available width is known: pages are not drawn at a scale about to change. */
  measured: boolean;
  percent: number;
  zoomIn(): void;
  zoomOut(): void;
  fitWidth(): void;
  /** The width available to pages, in CSS pixels (measured by the document view). */
  setAvailableWidth(width: number): void;
}

const LEVELS = [25, 50, 75, 100, 125, 150, 200, 300, 400].map((percent) => (percent / 100) * CSS_PER_POINT);
const clamp = (value: number) => Math.min(MAX, Math.max(MIN, value));

export function useZoom(widestPage: number): Zoom {
  const [available, setAvailable] = useState(0);
  const [mode, setMode] = useState<'auto' | 'fit' | number>('auto');
  const fit = available > 0 && widestPage > 0 ? clamp(available / widestPage) : CSS_PER_POINT;
  const scale = mode === 'auto' ? Math.min(fit, CSS_PER_POINT) : mode === 'fit' ? fit : mode;
  // The next level up or down from the current scale (which may be a fitted one between two levels).
  const zoomIn = useCallback(() => setMode(LEVELS.find((level) => level > scale * 1.001) ?? MAX), [scale]);
  const zoomOut = useCallback(
    () => setMode([...LEVELS].reverse().find((level) => level < scale * 0.999) ?? MIN),
    [scale],
  );
  return {
    scale,
    measured: available > 0,
    percent: Math.round((scale / CSS_PER_POINT) * 100),
    zoomIn,
    zoomOut,
    fitWidth: () => setMode('fit'),
    setAvailableWidth: setAvailable,
  };
}
