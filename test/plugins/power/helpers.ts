import 'reflect-metadata';
import assert from 'node:assert/strict';
import { container } from 'tsyringe';
import { ManualClock } from '../../../testing';
import { PowerClock } from '../../../plugins/power';
import { type Lab, addresses, startLab } from '../../support/lab';
import { UdpReceiver } from '../../support/udp-receiver';

export interface PowerSite extends Lab {
  clock: ManualClock;
  /** Bound to 127.255.255.255 on wol.port: the directed broadcast of the /8 room. */
  broadcast: UdpReceiver;
  /** Every `power.calendar.fired` event, in order. */
  fired: { calendar: number; action: string; at: string; clients: string[]; skipped: { client: string; reason: string }[]; job?: number }[];
  /** Create a calendar; its id. */
  calendar(body: Record<string, unknown>): Promise<number>;
}

/** A server with inventory, agents, wol, jobs and power in Europe/Madrid, the power clock a ManualClock at `start`, one /8 room of `count` PCs 127.0.9.x. */
export async function powerSite(start: string, count = 3): Promise<PowerSite> {
  const broadcast = await UdpReceiver.bind('127.255.255.255');
  const clock = new ManualClock(Date.parse(start));
  const services = container.createChildContainer();
  services.register(PowerClock, { useValue: clock });
  try {
    const lab = await startLab({
      ips: addresses('127.0.9', count),
      netmask: '255.0.0.0',
      server: {
        container: services,
        config: {
          plugins: ['inventory', 'agents', 'wol', 'jobs', 'groups', 'power'],
          wol: { port: broadcast.port },
          power: { time_zone: 'Europe/Madrid' },
        },
      },
    });
    const fired: PowerSite['fired'] = [];
    lab.s.app.events.on('test', 'power.calendar.fired', (event) => void fired.push(event));
    return {
      ...lab,
      clock,
      broadcast,
      fired,
      async calendar(body) {
        const r = await lab.s.post('/power/calendars', body);
        assert.equal(r.status, 200, `POST /power/calendars: ${r.text}`);
        return r.body.id;
      },
      async close() {
        await lab.close();
        await broadcast.close();
      },
    };
  } catch (error) {
    await broadcast.close();
    throw error;
  }
}

/** Every weekday with the same times. */
export function everyDay(times: { on?: string; off?: string }): Record<string, { on?: string; off?: string }> {
  return Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, times]));
}
