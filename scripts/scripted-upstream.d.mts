/** Types for scripted-upstream.mjs (a scripted stand-in for a model, not a model: see its header). */
export declare const SCRIPTED_MODEL: string;
export interface ScriptedStep {
  text?: string;
  calls?: Array<{ name: string; args: Record<string, unknown> }>;
  expect?: RegExp;
}
export declare const SCRIPTS: Record<string, { match: string; steps: ScriptedStep[] }>;
export declare function answer(request: Record<string, unknown>): Record<string, unknown>;
export declare function startScriptedUpstream(port?: number): Promise<{ baseUrl: string; close(): Promise<void> }>;
