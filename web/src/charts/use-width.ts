import { useCallback, useRef, useState } from 'react';

/**
 * The width a chart is drawn at: its container's, between `min` and `max` pixels. A chart drawn
 * at the width it is shown keeps its text at full size on a phone, where a fixed-width chart
 * scaled down to fit would shrink every label with it.
 */
export function useFitWidth(max: number, min: number): { ref: (element: HTMLElement | null) => void; width: number } {
  const [width, setWidth] = useState(max);
  const observer = useRef<ResizeObserver | null>(null);
  const ref = useCallback(
    (element: HTMLElement | null) => {
      observer.current?.disconnect();
      observer.current = null;
      if (!element || typeof ResizeObserver === 'undefined') return;
      const watch = new ResizeObserver((entries) => {
        const seen = entries[0]?.contentRect.width;
        if (seen) setWidth(Math.max(min, Math.min(max, Math.floor(seen))));
      });
      watch.observe(element);
      observer.current = watch;
    },
    [max, min],
  );
  return { ref, width };
}
