/**
 * The contract project's global setup: in vitest's main process, before any worker
 * starts, it serves the run's one pace (pace-coordinator.ts) and hands its URL to every
 * worker through CONTRACT_PACE_URL, which workers inherit.
 */
import { createPaceSchedule, servePaceSchedule } from './pace-coordinator.ts';

/** Starts the run's pace; vitest calls the returned function when the run ends. */
export default async function setup(): Promise<() => Promise<void>> {
  const server = await servePaceSchedule(createPaceSchedule(() => performance.now()));
  process.env.CONTRACT_PACE_URL = server.url;
  return async () => {
    delete process.env.CONTRACT_PACE_URL;
    await server.close();
  };
}
