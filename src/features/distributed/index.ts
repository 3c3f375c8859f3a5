/**
 * Distributed runs on Redis with BullMQ: a coordinator (`crucible run --queue`) whose attempts run
 * on workers (`crucible worker`), inputs and results moved through a content-addressed store.
 */
export { openQueueRunner, type QueueRunner, type QueueRunnerOptions } from './coordinator.js';
export { startWorker, type WorkerHandle, type WorkerOptions } from './worker.js';
export { parseQueueUrl, redisOptions, QUEUE_PASSWORD_ENV, type QueueAddress } from './url.js';
export { queueName, RUNS_KEY } from './keys.js';
export { checkQueueReachable } from './connect.js';
