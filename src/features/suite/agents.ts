/** The agents and attempt counts of a run, after the command line has had its say. */
export interface RunAgents {
  agents: string[];
  /** Attempts per task for the agents that get the most. */
  trials: number;
  /** Fewer attempts for some agents (a suite's per-agent `runs:`); undefined when all get `trials`. */
  agentTrials?: Record<string, number>;
}

/**
 * Command-line flags win over the file: `--agent` replaces the suite's agent list (a suite agent's
 * own `runs:` still applies when it is named again), and `--runs` replaces every `runs:` of the
 * suite. Without flags the suite's agents and runs apply; the default is one run.
 */
export function resolveRunAgents(
  input: { agents?: readonly string[]; agentRuns?: Readonly<Record<string, number>>; runs?: number },
  flags: { agents: readonly string[]; runs?: number },
): RunAgents {
  const agents = flags.agents.length > 0 ? [...flags.agents] : [...(input.agents ?? [])];
  const runsOf = (agent: string): number => flags.runs ?? input.agentRuns?.[agent] ?? input.runs ?? 1;
  const trials = Math.max(1, ...agents.map(runsOf));
  const fewer = Object.fromEntries(agents.filter((a) => runsOf(a) < trials).map((a) => [a, runsOf(a)]));
  return { agents, trials, ...(Object.keys(fewer).length > 0 ? { agentTrials: fewer } : {}) };
}
