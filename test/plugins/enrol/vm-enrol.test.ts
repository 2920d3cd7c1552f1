// Engine-independent: runs once, on SQLite.
// System needs: qemu
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { eventually } from '../../support/fake-agent';
import { addCenter, addRoom } from '../../support/fixtures';
import { startLab } from '../../support/lab';
import { guestAgent, vmImage } from '../../support/vm-image';

/**
 * A PC nobody registered enrols itself, in a real boot: a qemu VM (TCG) whose firmware is
 * iPXE, with a MAC the inventory does not know, boots from ogserve alone (as the boot
 * plugin's VM test: `restrict=on`, two guest addresses forwarded to ogserve on loopback, one
 * socat per connection). Both go out from the PC's address (socat `bind=`), as on a network
 * without NAT, where its discovery boot and its agent share the address DHCP gave it.
 */

/** The address the PC comes from: in the discovery network. */
const ip = '127.0.77.16';
const mac = '52:54:00:4f:47:02';
const serial = 'VM-ENROL-1';

function qemuArgs(restPort: number, agentPort: number, serialFile: string): string[] {
  const forward = (guest: string, port: number) => `guestfwd=tcp:${guest}-cmd:socat - TCP:127.0.0.1:${port},,bind=${ip}`;
  const netdev = [
    'user,id=n0,restrict=on',
    forward('10.0.2.100:80', restPort),
    forward(`${guestAgent.host}:${guestAgent.port}`, agentPort),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: iPXE fills in ${mac} itself.
    'bootfile=http://10.0.2.100/boot/ipxe?mac=${mac}',
  ].join(',');
  return [
    ...['-accel', 'tcg', '-m', '256', '-no-user-config', '-nodefaults', '-nographic', '-vga', 'std', '-boot', 'n'],
    // What its firmware says of it: the agent's hardware inventory and serial number read it.
    ...['-smbios', `type=1,manufacturer=ogserve,product=Enrol Test PC,serial=${serial}`],
    ...['-serial', `file:${serialFile}`, '-netdev', netdev, '-device', `virtio-net-pci,netdev=n0,mac=${mac}`],
  ];
}

/** The longest the VM may run (two boots): `timeout` ends it even when the test process is gone. */
const vmSeconds = 300;

function startVm(args: string[]): { stop(): Promise<void>; stderr: () => string } {
  let stderr = '';
  const child = spawn('timeout', ['--signal=KILL', String(vmSeconds), 'qemu-system-x86_64', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
    stderr: () => stderr,
  };
}

test('a PC nobody registered boots the discovery live image, reports its hardware, is put in a room by REST, and its next boot is its own, as a client in ogLive state', async () => {
  const image = vmImage();
  const lab = await startLab({
    ips: [],
    server: {
      config: {
        plugins: ['+enrol'],
        boot: { public_url: 'http://10.0.2.100', unknown_client: { '127.0.77.0/24': 'discover', '*': 'local' } },
      },
    },
    populate: async (s) => {
      const center = await addCenter(s);
      const room = await addRoom(s, center, 'Aula VM', '255.255.255.0', { gateway: '127.0.77.1' });
      return { center, room };
    },
  });
  const { s } = lab;
  const live = path.join(s.dir, 'tftpboot', 'ogLive');
  mkdirSync(live, { recursive: true });
  copyFileSync(image.kernel, path.join(live, 'ogvmlinuz'));
  copyFileSync(image.initrd, path.join(live, 'oginitrd.img'));
  const serialFile = path.join(s.dir, 'serial.log');
  let vm: ReturnType<typeof startVm> | undefined;
  const listed = async () => (await s.get('/discovered')).body.discovered as any[];
  try {
    const poweredOn = Date.now();
    vm = startVm(qemuArgs(s.port, lab.link.port(), serialFile));
    const pc = await eventually(
      async () => (await listed()).find((d) => d.mac === mac && d.state === 'discovered'),
      'the PC discovered with its hardware',
      150_000,
    );
    const seconds = (Date.parse(pc.discovered_at) - poweredOn) / 1000;
    process.stderr.write(
      `  power-on to discovered: ${seconds.toFixed(1)} s (booted ${((Date.parse(pc.booted_at) - poweredOn) / 1000).toFixed(1)} s)\n`,
    );
    assert.equal(pc.ip, ip);
    assert.equal(pc.network, '127.0.77.0/24');
    assert.equal(pc.serial_number, serial, 'from its firmware');
    assert.equal(pc.model, 'ogserve Enrol Test PC');
    assert.deepEqual(
      pc.hardware.map((c: { type: string }) => c.type),
      ['mod', 'boa', 'bio', 'cpu', 'mem'],
    );
    assert.ok(readFileSync(serialFile, 'utf8').includes('ogserve: a new PC (52:54:00:4f:47:02)'), 'the discovery script run by iPXE');
    assert.deepEqual(
      (await lab.clients()).map((c) => c.addr),
      [],
      'not a client: GET /clients lists nothing',
    );

    // Put in the room with one request: it reboots into its own mode.
    const assigned = await s.post('/discovered/assign', { macs: [mac], room: lab.room, names: 'vm-pc{nn}', mode: 'ogLive' });
    assert.equal(assigned.status, 200, assigned.text);
    assert.deepEqual(assigned.body.clients, [{ mac, ip, name: 'vm-pc01' }]);
    assert.deepEqual(await listed(), []);
    await eventually(async () => (await lab.entry(ip))?.state === 'OPG', 'the new client in GET /clients in ogLive state', 150_000);
    const [boot] = (await s.get(`/boot/timeline?client=${ip}`)).body.boots as { stages: Record<string, unknown>[] }[];
    assert.deepEqual(
      boot!.stages.map(({ stage, bytes, state }) => ({ stage, bytes, state })),
      [
        { stage: 'script', bytes: undefined, state: undefined },
        { stage: 'kernel', bytes: statSync(image.kernel).size, state: undefined },
        { stage: 'initrd', bytes: statSync(image.initrd).size, state: undefined },
        { stage: 'agent', bytes: undefined, state: 'OPG' },
      ],
      'its own boot, from its own script',
    );
    const info = (await s.get('/client/info', { client: [ip] })).body;
    assert.equal(info.name, 'vm-pc01');
    assert.equal(info.serial_number, serial);
    assert.equal((await s.get('/hardware', { client: [ip] })).body.hardware.length, 5, "the hardware it reported is the client's");
  } catch (error) {
    const screen = existsSync(serialFile) ? readFileSync(serialFile, 'utf8') : '(nothing)';
    (error as Error).message += `\n--- the VM's serial console:\n${screen}\n--- qemu's errors:\n${vm?.stderr() ?? ''}`;
    throw error;
  } finally {
    await vm?.stop();
    await lab.close();
  }
});

test.run();
