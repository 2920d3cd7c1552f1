import { FakeAgent } from '../../test/support/fake-agent';

/**
 * A child process of fake agents that answer a full inventory: 16 hardware lines as the
 * reference agent writes them (ogListHardwareInfo) and an OS line with `packages` packages.
 * argv: <agent port> <packages> <address>...; reports {connected, failed} to the parent. A
 * message `{changed: n}` makes every n-th agent (by position) report another inventory from
 * then on: a memory bank gone on even ones, a browser updated on odd ones; `'stop'` ends it.
 */

const cpus = [
  'Intel Corp. Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz 3200MHz v.6.94.3',
  'Intel Corp. Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz 4300MHz v.6.158.10',
];
const disks = ['Samsung SSD 860 EVO 500GB 465GiB v.RVT0', 'WDC WD10EZEX-08WN4A0 931GiB v.1A01', 'Kingston SA400S37240G 223GiB v.03070009'];

export function hardwareOf(i: number, changed: boolean): string {
  const lines = [
    'cha=Desktop',
    i % 5 === 0 ? 'boo=BIOS' : 'boo=UEFI',
    'boa=Dell Inc. 0J3C2F v.A00',
    'bio=Dell Inc. 1.5.2 v.1.5.2',
    `cpu=${cpus[i % cpus.length]}`,
    'mem=Kingston 9905678-031.A00G 8GiB 2400MHz (ChannelA-DIMM0)',
    ...(changed && i % 2 === 0 ? [] : ['mem=Kingston 9905678-031.A00G 8GiB 2400MHz (ChannelB-DIMM0)']),
    `dis=${disks[i % disks.length]}`,
    'cdr=HL-DT-ST DVD+-RW GU90N v.A1C2',
    'net=Intel Corporation Ethernet Connection I219-LM v.31',
    'vga=Intel Corporation HD Graphics 530 v.06',
    'mul=Intel Corporation 100 Series/C230 Series Chipset Family HD Audio Controller v.31',
    'usb=Intel Corporation 100 Series/C230 Series Chipset Family USB 3.0 xHCI Controller v.31',
    'sto=Intel Corporation Q170/Q150/B150/H170/H110/Z170/CM236 Chipset SATA Controller [AHCI Mode] v.31',
    'bus=Intel Corporation 100 Series/C230 Series Chipset Family SMBus v.31',
    'ide=Intel Corporation 100 Series/C230 Series Chipset Family MEI Controller #1 v.31',
  ];
  return `${lines.join('\n')}\n`;
}

export function softwareOf(i: number, packages: number, changed: boolean): string {
  const lines = ['Ubuntu 22.04.4 LTS', `firefox ${changed && i % 2 === 1 ? '128.0' : '115.0'}`];
  for (let p = 0; p < packages - 1; p++) lines.push(`package-${p} ${1 + (p % 7)}.${p % 13}.${(p * 7) % 31}`);
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const [port, packages, ...addresses] = process.argv.slice(2);
  const agents: FakeAgent[] = [];
  let failed = 0;
  let every = 0;
  const changed = (i: number) => every > 0 && i % every === 0;
  const batch = 250;
  for (let i = 0; i < addresses.length; i += batch) {
    await Promise.all(
      addresses.slice(i, i + batch).map((localAddress, j) =>
        FakeAgent.connect({ port: Number(port), localAddress }).then(
          (agent) => {
            const n = i + j;
            agent.on('hardware', () => ({ body: { hardware: hardwareOf(n, changed(n)) } }), true);
            agent.on(
              'software',
              (r) => ({ body: { partition: r.body?.partition, software: softwareOf(n, Number(packages), changed(n)) } }),
              true,
            );
            agents.push(agent);
          },
          () => failed++,
        ),
      ),
    );
  }
  process.send!({ connected: agents.length, failed });
  process.on('message', (message: unknown) => {
    if (message && typeof message === 'object' && 'changed' in message) {
      every = Number((message as { changed: number }).changed);
      process.send!({ changed: every });
      return;
    }
    for (const agent of agents) agent.destroy();
    process.exit(0);
  });
}

if (require.main === module) void main();
