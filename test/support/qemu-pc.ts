import { copyFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { NetnsLab } from './netns-lab';

/**
 * A PC in qemu (TCG) on a namespace lab's bridge, booting from the network with real
 * firmware: OVMF with Secure Boot on and Microsoft's keys enrolled (Debian's `ovmf`: the
 * secure-boot code, a copy of `OVMF_VARS_4M.ms.fd`, q35 with SMM), or SeaBIOS with qemu's
 * network ROM. Its serial console comes through a Unix socket: read, and typed into.
 */
export interface Pc {
  /** What the PC wrote on its serial console so far, escape sequences removed. */
  screen(): string;
  /** Until the screen shows `pattern` (a deadline, not a timing assertion). */
  waitFor(pattern: RegExp, what: string, ms?: number): Promise<void>;
  /** Type on its console, a key at a time (firmware reads its serial port slowly). */
  type(text: string): Promise<void>;
  stop(): Promise<void>;
}

export const ovmf = {
  code: '/usr/share/OVMF/OVMF_CODE_4M.secboot.fd',
  vars: '/usr/share/OVMF/OVMF_VARS_4M.ms.fd',
};

/** The longest a VM may run: `timeout` ends it even when the test process is gone. */
const vmSeconds = 300;

export async function startPc(lab: NetnsLab, options: { firmware: 'uefi-secure-boot' | 'bios'; mac: string; name: string }): Promise<Pc> {
  const tap = lab.tap();
  const serial = path.join(lab.dir, `${options.name}.serial`);
  const firmware =
    options.firmware === 'bios'
      ? ['-m', '256', '-boot', 'n', '-device', `virtio-net-pci,netdev=n0,mac=${options.mac}`]
      : (() => {
          const vars = path.join(lab.dir, `${options.name}.vars.fd`);
          copyFileSync(ovmf.vars, vars);
          return [
            ...['-machine', 'q35,smm=on', '-m', '512', '-global', 'driver=cfi.pflash01,property=secure,value=on'],
            ...[
              '-drive',
              `if=pflash,format=raw,unit=0,readonly=on,file=${ovmf.code}`,
              '-drive',
              `if=pflash,format=raw,unit=1,file=${vars}`,
            ],
            // The firmware's own virtio-net driver: no option ROM.
            ...['-device', `virtio-net-pci,netdev=n0,mac=${options.mac},romfile=`],
          ];
        })();
  const args = [
    '--signal=KILL',
    String(vmSeconds),
    'qemu-system-x86_64',
    ...['-accel', 'tcg', '-no-user-config', '-nodefaults', '-nographic', '-monitor', 'none', '-vga', 'std'],
    // wait=on: the PC starts once the test reads its console, so nothing it writes is missed.
    ...['-chardev', `socket,id=s0,path=${serial},server=on,wait=on`, '-serial', 'chardev:s0'],
    ...['-netdev', `tap,id=n0,ifname=${tap},script=no,downscript=no`],
    ...firmware,
  ];
  let errors = '';
  const child = lab.spawn('timeout', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let raw = '';
  const console = await new Promise<net.Socket>((resolve, reject) => {
    const deadline = Date.now() + 15_000;
    const attempt = () => {
      const socket = net.connect(serial);
      socket.once('connect', () => resolve(socket));
      socket.once('error', () => {
        if (child.exitCode !== null) reject(new Error(`qemu exited: ${errors}`));
        else if (Date.now() > deadline) reject(new Error(`qemu's console never opened: ${errors}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
  console.on('data', (chunk: Buffer) => (raw += chunk.toString('latin1')));
  console.on('error', () => undefined);
  const screen = () => raw.replace(/\x1b\[[0-9;?=]*[A-Za-z]/g, '').replace(/\r/g, '');
  return {
    screen,
    async waitFor(pattern, what, ms = 240_000) {
      const deadline = Date.now() + ms;
      while (!pattern.test(screen())) {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`the PC stopped before ${what}: ${errors}\n--- its screen:\n${screen().slice(-3000)}`);
        if (Date.now() > deadline)
          throw new Error(`the PC never showed ${what} in ${ms / 1000} s\n--- its screen:\n${screen().slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    async type(text) {
      for (const key of text) {
        console.write(key);
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
    },
    async stop() {
      console.destroy();
      child.kill('SIGTERM');
      await exited;
    },
  };
}
