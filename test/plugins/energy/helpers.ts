import 'reflect-metadata';
import assert from 'node:assert/strict';
import { container } from 'tsyringe';
import { ManualClock } from '../../../testing';
import { EnergyClock } from '../../../plugins/energy';
import { eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { type Lab, startLab } from '../../support/lab';
import { UdpReceiver } from '../../support/udp-receiver';

/** Monday 2026-11-23 00:00 UTC: where the energy clock starts in these tests. */
export const midnight = Date.parse('2026-11-23T00:00:00Z');
/** `hh:mm` of the test day as milliseconds since 1970. */
export const at = (hhmm: string) => midnight + (Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3))) * 60_000;

/** Room A: 127.0.71.1-2; room B: 127.0.72.1 (both /8, so a wake's broadcast is 127.255.255.255). */
export const roomA = ['127.0.71.1', '127.0.71.2'];
export const roomB = ['127.0.72.1'];

export interface EnergySite extends Lab {
  clock: ManualClock;
  roomA: number;
  roomB: number;
  /** Receives the wake-on-LAN packets (wol.port). */
  udp: UdpReceiver;
  /** GET /energy with this query, answered 200. */
  energy(query: string): Promise<any>;
  /** Resolves once GET /energy/now shows `ip` in `state` (what came before it is written). */
  shows(ip: string, state: string): Promise<void>;
  /** Move the clock to `hh:mm` of the test day. */
  to(hhmm: string): Promise<void>;
}

/**
 * A server whose energy clock is a ManualClock at `start` (`midnight`): rooms A and B of one
 * center, unless `populate` is false (a restart on the same store); in `dir` when given (a
 * restart test's, which then owns it).
 */
export async function energySite(
  config: Record<string, unknown> = {},
  { dir, populate = true, start = midnight }: { dir?: string; populate?: boolean; start?: number } = {},
): Promise<EnergySite> {
  const clock = new ManualClock(start);
  const services = container.createChildContainer();
  services.register(EnergyClock, { useValue: clock });
  const udp = await UdpReceiver.bind('127.255.255.255');
  const ids = { roomA: 0, roomB: 0 };
  const lab = await startLab({
    ips: [...roomA, ...roomB],
    server: { container: services, config: { wol: { port: udp.port }, ...config }, dir },
    serverFirst: true,
    populate: populate
      ? async (s) => {
          const center = await addCenter(s, 'Center');
          ids.roomA = await addRoom(s, center, 'A', '255.0.0.0');
          ids.roomB = await addRoom(s, center, 'B', '255.0.0.0');
          let n = 0;
          for (const ip of roomA) await addClient(s, ids.roomA, ip, macFor(++n));
          for (const ip of roomB) await addClient(s, ids.roomB, ip, macFor(++n));
          return { center, room: ids.roomA };
        }
      : false,
  });
  // Each PC added is off from then: written after its client/add answered, so waited for before the clock moves.
  await eventually(async () => {
    const r = await lab.s.get('/energy/now');
    return r.status === 200 && r.body.rooms.every((room: any) => room.pcs.every((pc: any) => pc.since !== null));
  }, 'every PC off from the start');
  const energy = async (query: string) => {
    const r = await lab.s.get(`/energy${query}`);
    assert.equal(r.status, 200, `GET /energy${query}: ${r.text}`);
    return r.body;
  };
  return {
    ...lab,
    ...ids,
    clock,
    udp,
    energy,
    async shows(ip, state) {
      await eventually(async () => {
        const r = await lab.s.get('/energy/now');
        assert.equal(r.status, 200, r.text);
        return r.body.rooms.some((room: any) => room.pcs.some((pc: any) => pc.ip === ip && pc.state === state));
      }, `${ip} ${state}`);
    },
    to: (hhmm) => clock.advanceTo(at(hhmm)),
    async close() {
      await lab.close();
      await udp.close();
    },
  };
}
