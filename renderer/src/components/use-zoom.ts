/**
 * Zoom: scale is CSS pixels per PDF point. "100%" is the usual 96/72 (a page as large as on paper). By default
 * pages fit the width of the screen but never exceed 100%; the buttons step by 25% or fit the width exactly.
 */
import { useCallback, useState } from 'react';

export const CSS_PER_POINT = 96 / 72;
const MIN = 0.25 * CSS_PER_POINT;
const MAX = 4 * CSS_PER_POINT;

export interface Zoom {
  scale: number;
  percent: number;
  zoomIn(): void;
  zoomOut(): void;
  fitWidth(): void;
  /** The width available to pages, in CSS pixels (measured by the document view). */
  setAvailableWidth(width: number): void;
}

const clamp = (value: number) => Math.min(MAX, Math.max(MIN, value));

export function useZoom(widestPage: number): Zoom {
  const [available, setAvailable] = useState(0);
  const [mode, setMode] = useState<'auto' | 'fit' | number>('auto');
  const fit = available > 0 && widestPage > 0 ? clamp(available / widestPage) : CSS_PER_POINT;
  const scale = mode === 'auto' ? Math.min(fit, CSS_PER_POINT) : mode === 'fit' ? fit : mode;
  const step = useCallback((factor: number) => setMode(clamp(Math.round((scale * factor) / CSS_PER_POINT * 20) / 20 * CSS_PER_POINT)), [scale]);
  return {
    scale,
    percent: Math.round((scale / CSS_PER_POINT) * 100),
    zoomIn: () => step(1.25),
    zoomOut: () => step(0.8),
    fitWidth: () => setMode('fit'),
    setAvailableWidth: setAvailable,
  };
}
