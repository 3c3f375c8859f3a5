/** The built-in agent: an AI SDK tool loop on any provider, behind the model gateway. */
export { createModelAgent } from './agent.js';
export { TRAJECTORY_FILE, TRAJECTORY_VERSION, type TrajectoryEvent, type TurnUsage } from './trajectory.js';
