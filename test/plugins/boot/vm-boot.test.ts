// Engine-independent: runs once, on SQLite.
// System needs: qemu
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { startLab } from '../../support/lab';
import { guestAgent, vmImage } from '../../support/vm-image';

/**
 * A real PC boot: a qemu VM (TCG) whose firmware is iPXE boots over the network from ogserve
 * alone. Its user-mode network is `restrict=on` (it reaches nothing else, nothing leaves the
 * machine); two guest addresses are forwarded to ogserve on loopback, one socat per
 * connection: 10.0.2.100:80 to the REST port (the DHCP filename names the script there,
 * iPXE filling in `${mac}`), and the agent's to the agent port from the PC's own address
 * (socat `bind=`, as ogserve knows an agent by its address).
 */

/** The PC as ogserve knows it: its agent connects from this address. */
const ip = '127.0.77.15';
const mac = '52:54:00:4f:47:01';

/** The qemu arguments of a PC that boots from its network card, its console on `serial`. */
function qemuArgs(restPort: number, agentPort: number, serial: string): string[] {
  const forward = (guest: string, port: number, bind = '') =>
    `guestfwd=tcp:${guest}-cmd:socat - TCP:127.0.0.1:${port}${bind ? `,,bind=${bind}` : ''}`;
  const netdev = [
    'user,id=n0,restrict=on',
    forward('10.0.2.100:80', restPort),
    forward(`${guestAgent.host}:${guestAgent.port}`, agentPort, ip),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: iPXE fills in ${mac} itself.
    'bootfile=http://10.0.2.100/boot/ipxe?mac=${mac}',
  ].join(',');
  // A video card: the ogLive's `vga=788` asks the video BIOS for its mode, and without one the
  // kernel waits 30 s at a prompt. -nographic: SeaBIOS and iPXE copy their screen to the serial port.
  return [
    ...['-accel', 'tcg', '-m', '256', '-no-user-config', '-nodefaults', '-nographic', '-vga', 'std', '-boot', 'n'],
    ...['-serial', `file:${serial}`, '-netdev', netdev, '-device', `virtio-net-pci,netdev=n0,mac=${mac}`],
  ];
}

/** The longest a VM may run: `timeout` ends it even when the test process is gone. */
const vmSeconds = 150;

/** The VM, running until stopped; what it wrote to stderr is kept for the failure message. */
function startVm(args: string[]): { stop(): Promise<void>; stderr: () => string } {
  let stderr = '';
  const child = spawn('timeout', ['--signal=KILL', String(vmSeconds), 'qemu-system-x86_64', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) =>
    child.on('exit', (code) => {
      if (code === 127) stderr += "(qemu-system-x86_64 comes with Debian's qemu-system-x86; .ci/run installs it)";
      resolve();
    }),
  );
  return {
    stop() {
      child.kill('SIGTERM'); // `timeout` passes it on to qemu
      return exited;
    },
    stderr: () => stderr,
  };
}

test('a PC booted once into ogLive: iPXE fetches its script, kernel and initrd from ogserve, its agent comes up in ogLive state, and its previous mode is back', async () => {
  const image = vmImage();
  const lab = await startLab({
    ips: [ip],
    server: { config: { boot: { public_url: 'http://10.0.2.100' } } },
    populate: async (s) => {
      const center = await addCenter(s);
      const room = await addRoom(s, center, 'Aula VM');
      await addClient(s, room, ip, mac);
      return { center, room };
    },
  });
  const { s } = lab;
  const live = path.join(s.dir, 'tftpboot', 'ogLive');
  mkdirSync(live, { recursive: true });
  copyFileSync(image.kernel, path.join(live, 'ogvmlinuz'));
  copyFileSync(image.initrd, path.join(live, 'oginitrd.img'));
  const serial = path.join(s.dir, 'serial.log');
  let vm: ReturnType<typeof startVm> | undefined;
  const reverted: string[] = [];
  s.app.events.on('test', 'boot.next.reverted', ({ reason }) => void reverted.push(reason));
  const mode = async () => (await s.get('/client/info', { client: [ip] })).body.boot as string;
  const timeline = async () => (await s.get(`/boot/timeline?client=${ip}`)).body.boots as { stages: Record<string, unknown>[] }[];
  try {
    // Its own mode boots the first disk; once, it boots ogLive, until its agent is up.
    assert.equal((await s.post('/mode', { clients: [ip], mode: '10' })).status, 200);
    const next = await s.post('/boot/next', { clients: [ip], mode: 'ogLive', revert: 'agent' });
    assert.equal(next.status, 200, next.text);
    assert.equal(await mode(), 'ogLive');

    vm = startVm(qemuArgs(s.port, lab.link.port(), serial));
    // Its agent's first refresh answered, the PC is listed in ogLive state (BSY until then).
    await eventually(async () => (await lab.entry(ip))?.state === 'OPG', 'the PC in GET /clients in ogLive state', 60_000);

    const boot = (await eventually(async () => {
      const [last] = await timeline();
      return last?.stages.some((stage) => stage.stage === 'agent') ? last : undefined;
    }, 'the agent stage in the timeline'))!;
    assert.deepEqual(
      boot.stages.map(({ stage, bytes, cut_short, state }) => ({ stage, bytes, cut_short, state })),
      [
        { stage: 'script', bytes: undefined, cut_short: undefined, state: undefined },
        { stage: 'kernel', bytes: statSync(image.kernel).size, cut_short: false, state: undefined },
        { stage: 'initrd', bytes: statSync(image.initrd).size, cut_short: false, state: undefined },
        { stage: 'agent', bytes: undefined, cut_short: undefined, state: 'OPG' },
      ],
      'each stage of the boot, the files whole',
    );
    await eventually(async () => (await mode()) === '10', 'the previous mode back');
    assert.deepEqual(reverted, ['agent'], 'reverted because its agent connected');
    assert.deepEqual((await s.get('/boot/next')).body.pending, [], 'no one-shot left');

    // The PC's next boot is its own mode again: ogserve reboots it through its agent.
    assert.equal((await s.post('/reboot', { clients: [ip] })).status, 200);
    await eventually(async () => (await timeline()).length === 2, 'a second boot', 30_000);
    assert.deepEqual(
      (await timeline())[0]!.stages.map((stage) => stage.stage),
      ['script'],
      'the disk mode: a script and no kernel',
    );
    await eventually(
      () => readFileSync(serial, 'utf8').includes('ogserve: booting from the first hard disk'),
      "mode 10's script run by iPXE",
      15_000,
    );
  } catch (error) {
    const screen = existsSync(serial) ? readFileSync(serial, 'utf8') : '(nothing)';
    const boots = JSON.stringify(await timeline().catch(() => 'unknown'));
    (error as Error).message +=
      `\n--- its boot timeline: ${boots}\n--- the VM's serial console:\n${screen}\n--- qemu's errors:\n${vm?.stderr() ?? ''}`;
    throw error;
  } finally {
    await vm?.stop();
    await lab.close();
  }
});

test.run();
