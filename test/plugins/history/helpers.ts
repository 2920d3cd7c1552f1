import 'reflect-metadata';
import { container } from 'tsyringe';
import { ManualClock } from '../../../testing';
import { HistoryClock } from '../../../plugins/history';
import { type FakeAgent, eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { type Lab, addresses, startLab } from '../../support/lab';

/** 2026-01-01T00:00:00Z: where the history's clock starts in these tests. */
export const start = Date.parse('2026-01-01T00:00:00Z');

export interface HistorySite extends Lab {
  clock: ManualClock;
}

/** A server with `count` clients 127.0.4.1... in one room, the history's clock a ManualClock at `start`. */
export async function historySite(count: number, config: Record<string, unknown> = {}, prefix = '127.0.4'): Promise<HistorySite> {
  const clock = new ManualClock(start);
  const services = container.createChildContainer();
  services.register(HistoryClock, { useValue: clock });
  const lab = await startLab({ ips: addresses(prefix, count), server: { container: services, config } });
  return { ...lab, clock };
}

async function stored(x: Lab, ip: string): Promise<void> {
  await eventually(async () => {
    const e = await x.entry(ip);
    return e?.state === 'OPG' && e.last_cmd.result === 'success';
  }, `${ip} stored`);
}

/** The agent answers the next hardware request with `text` (lines `type=description`); resolves once it is stored. */
export async function reportHardware(x: Lab, agent: FakeAgent, ip: string, text: string): Promise<void> {
  const seen = agent.requests.filter((r) => r.path === 'hardware').length;
  agent.on('hardware', { body: { hardware: text } });
  const r = await x.s.post('/hardware', { clients: [ip] });
  if (r.status !== 200) throw new Error(`POST /hardware: ${r.status} ${r.text}`);
  await agent.waitFor('hardware', seen);
  await stored(x, ip);
}

/** The agent answers the next software request of disk 1, partition `partition` with `text` (the OS line first). */
export async function reportSoftware(x: Lab, agent: FakeAgent, ip: string, text: string, partition = 2): Promise<void> {
  const seen = agent.requests.filter((r) => r.path === 'software').length;
  agent.on('software', (request) => ({ body: { partition: request.body?.partition, software: text } }));
  const r = await x.s.post('/software', { clients: [ip], disk: '1', partition: String(partition) });
  if (r.status !== 200) throw new Error(`POST /software: ${r.status} ${r.text}`);
  await agent.waitFor('software', seen);
  await stored(x, ip);
}

/** Rows of the history table: what a report cost. */
export async function historyRows(x: Lab): Promise<number> {
  const [row] = await x.s.app.database.query<{ n: number | string }>('select count(*) as n from client_history');
  return Number(row!.n);
}

/** A PC as the reference agent (ogListHardwareInfo over lshw) reports it. */
export const pc = {
  chassis: 'cha=Desktop',
  boot: 'boo=UEFI',
  board: 'boa=Dell Inc. 0J3C2F v.A00',
  cpu: 'cpu=Intel Corp. Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz 3200MHz v.6.94.3',
  bank0: 'mem=Kingston 9905678-031.A00G 8GiB 2400MHz (ChannelA-DIMM0)',
  bank1: 'mem=Kingston 9905678-031.A00G 8GiB 2400MHz (ChannelB-DIMM0)',
  disk: 'dis=Samsung SSD 860 EVO 500GB 465GiB v.RVT0',
  net: 'net=Intel Corporation Ethernet Connection I219-LM v.31',
};

export function hardwareText(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

/** The clients of `fleetSite`: two centers, three rooms. */
export const fleet = { n1: ['127.0.5.1', '127.0.5.2'], n2: ['127.0.5.3'], s1: ['127.0.6.1', '127.0.6.2'] };

export interface FleetSite extends HistorySite {
  north: number;
  south: number;
  roomN1: number;
  roomN2: number;
  roomS1: number;
}

/** Center North (rooms N1: 127.0.5.1-2, N2: 127.0.5.3) and center South (room S1: 127.0.6.1-2). */
export async function fleetSite(config: Record<string, unknown> = {}): Promise<FleetSite> {
  const clock = new ManualClock(start);
  const services = container.createChildContainer();
  services.register(HistoryClock, { useValue: clock });
  const ids = { north: 0, south: 0, roomN1: 0, roomN2: 0, roomS1: 0 };
  const lab = await startLab({
    ips: [...fleet.n1, ...fleet.n2, ...fleet.s1],
    server: { container: services, config },
    populate: async (s) => {
      ids.north = await addCenter(s, 'North');
      ids.south = await addCenter(s, 'South');
      ids.roomN1 = await addRoom(s, ids.north, 'N1', '255.0.0.0');
      ids.roomN2 = await addRoom(s, ids.north, 'N2', '255.0.0.0');
      ids.roomS1 = await addRoom(s, ids.south, 'S1', '255.0.0.0');
      let n = 0;
      for (const [room, ips] of [
        [ids.roomN1, fleet.n1],
        [ids.roomN2, fleet.n2],
        [ids.roomS1, fleet.s1],
      ] as const)
        for (const ip of ips) await addClient(s, room, ip, macFor(++n));
      return { center: ids.north, room: ids.roomN1 };
    },
  });
  return { ...lab, clock, ...ids };
}

export const i7 = 'cpu=Intel Corp. Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz 4300MHz v.6.158.10';
export const wdc = 'dis=WDC WD10EZEX-08WN4A0 931GiB v.1A01';

/**
 * The fleet's inventories: 127.0.5.1 the reference PC; .2 another clock, its memory as one
 * total line, a WDC disk; .3 an i7 booting BIOS; 127.0.6.1 two disks and Windows; 127.0.6.2
 * never reports.
 */
export async function reportFleet(x: FleetSite): Promise<Map<string, FakeAgent>> {
  const agents = new Map<string, FakeAgent>();
  for (const ip of [...fleet.n1, ...fleet.n2, fleet.s1[0]!]) agents.set(ip, await x.connect(ip));
  const a = (ip: string) => agents.get(ip)!;
  const [p1, p2] = fleet.n1 as [string, string];
  const p3 = fleet.n2[0]!;
  const p4 = fleet.s1[0]!;
  await reportHardware(x, a(p1), p1, hardwareText(pc.boot, pc.cpu, pc.bank0, pc.bank1, pc.disk, pc.net));
  await reportHardware(x, a(p2), p2, hardwareText(pc.boot, pc.cpu.replace('3200MHz', '3392MHz'), 'mem=16GiB', wdc));
  await reportHardware(x, a(p3), p3, hardwareText('boo=BIOS', i7, pc.bank0, pc.bank1, pc.disk));
  await reportHardware(x, a(p4), p4, hardwareText(pc.boot, pc.cpu, pc.bank0, pc.bank1, pc.disk, wdc));
  await reportSoftware(x, a(p1), p1, 'Ubuntu 22.04.4 LTS\nbash 5.1\nfirefox 115.0\n');
  await reportSoftware(x, a(p2), p2, 'Ubuntu 22.04.4 LTS\nfirefox 128.0\n');
  await reportSoftware(x, a(p3), p3, 'Ubuntu 22.04.4 LTS\nbash 5.1\n');
  await reportSoftware(x, a(p4), p4, 'Windows 10 Education\nMozilla Firefox (x64 es-ES) 115.0.2\n', 1);
  return agents;
}
