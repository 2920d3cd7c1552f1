import 'reflect-metadata';
import { container } from 'tsyringe';
import { ManualClock } from '../../../testing';
import { JobsClock } from '../../../plugins/jobs';
import { eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { type Lab, startLab } from '../../support/lab';

/** 2026-01-01T00:00:00Z: where the jobs' clock starts in these tests. */
export const start = Date.parse('2026-01-01T00:00:00Z');

/** Room A: 127.0.7.1-3; room B: 127.0.8.1. */
export const roomA = ['127.0.7.1', '127.0.7.2', '127.0.7.3'];
export const roomB = ['127.0.8.1'];

export interface JobsSite extends Lab {
  clock: ManualClock;
  roomA: number;
  roomB: number;
  /** The addresses of each room. */
  inA: string[];
  inB: string[];
}

/**
 * A server with rooms A and B of one center (`roomA`, `roomB` unless given), the jobs' clock a
 * ManualClock at `start`; in `dir` (a restart test's, which then owns it) when given.
 */
export async function jobsSite(config: Record<string, unknown> = {}, inA = roomA, inB = roomB, dir?: string): Promise<JobsSite> {
  const clock = new ManualClock(start);
  const services = container.createChildContainer();
  services.register(JobsClock, { useValue: clock });
  const ids = { roomA: 0, roomB: 0 };
  const lab = await startLab({
    ips: [...inA, ...inB],
    server: { container: services, config, dir },
    // As in production: the service stops while its agents are still connected.
    serverFirst: true,
    populate: async (s) => {
      const center = await addCenter(s, 'Center');
      ids.roomA = await addRoom(s, center, 'A', '255.0.0.0');
      ids.roomB = await addRoom(s, center, 'B', '255.0.0.0');
      let n = 0;
      for (const ip of inA) await addClient(s, ids.roomA, ip, macFor(++n));
      for (const ip of inB) await addClient(s, ids.roomB, ip, macFor(++n));
      return { center, room: ids.roomA };
    },
  });
  return { ...lab, clock, ...ids, inA, inB };
}

/** GET /jobs/:id once `done` says it is as the test expects. */
export async function jobOnce(x: Lab, id: number, done: (job: any) => boolean, what: string): Promise<any> {
  return eventually(async () => {
    const r = await x.s.get(`/jobs/${id}`);
    return r.status === 200 && done(r.body) ? r.body : undefined;
  }, what);
}

/** Each client's state in a job, by address. */
export const statesOf = (job: { clients: { addr: string; state: string }[] }): Record<string, string> =>
  Object.fromEntries(job.clients.map((c) => [c.addr, c.state]));
