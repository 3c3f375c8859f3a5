import { constants } from 'node:os';

const SIGNAL_NUMBERS: Readonly<Record<string, number>> = constants.signals;

/** The signal's name, for a name or number this platform knows. */
export function signalName(signal: number | string): NodeJS.Signals | undefined {
  for (const [name, number] of Object.entries(SIGNAL_NUMBERS)) {
    if (name === signal || number === signal) return name as NodeJS.Signals;
  }
  return undefined;
}
