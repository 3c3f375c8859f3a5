import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TreeOverlay } from '../../src/infra/sandbox/index.js';

/** An overlay's four directories in `root` (lower, upper, work and the mount point `ws`), made empty. */
export function emptyOverlay(root: string): TreeOverlay {
  const overlay: TreeOverlay = {
    driver: 'kernel-overlay',
    lower: join(root, 'lower'),
    upper: join(root, 'upper'),
    work: join(root, 'work'),
    target: join(root, 'ws'),
  };
  for (const dir of [overlay.lower, overlay.upper, overlay.work, overlay.target]) mkdirSync(dir);
  return overlay;
}
