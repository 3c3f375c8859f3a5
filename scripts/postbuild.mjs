// tsc does not set the executable bit; npm only does so on install, so a fresh `npm run build`
// followed by `npx crucible` would otherwise fail with EACCES.
import { chmodSync } from 'node:fs';
chmodSync(new URL('../dist/cli/main.js', import.meta.url), 0o755);
