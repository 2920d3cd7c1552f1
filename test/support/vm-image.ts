import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The system the VM boot test's PC starts: Debian's cloud kernel and an initramfs of
 * busybox-static whose init brings the network up with DHCP and then answers ogserve as a
 * live image's agent does. Built from the .debs `apt-get download` fetches (no root needed),
 * once, into a cache folder named after the packages' versions and the scripts below.
 */

/** The virtio network driver and what it needs, in load order (the cloud kernel builds them as modules). */
const modules = [
  'virtio_ring',
  'virtio',
  'virtio_pci_legacy_dev',
  'virtio_pci_modern_dev',
  'virtio_pci',
  'failover',
  'net_failover',
  'virtio_net',
];

/**
 * Where the agent reaches ogserve: the test forwards this guest address and port to the
 * agent port. Inside the VM only, yet not the reference's agent port either, so that no test names
 * a default port.
 */
export const guestAgent = { host: '10.0.2.100', port: 17889 };

/** The PC's first process. No /dev/console in the archive (making one needs root): devtmpfs first, then the serial port. */
const init = `#!/bin/sh
/bin/busybox mount -t devtmpfs dev /dev
exec >/dev/ttyS0 2>&1 </dev/null
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
for m in ${modules.join(' ')}; do insmod /lib/modules/$m.ko || echo "vm: could not load $m"; done
ip link set eth0 up
udhcpc -i eth0 -n -q -s /bin/dhcp-bound || echo "vm: no DHCP answer"
echo "vm: eth0 is $(ip -4 -o addr show eth0)"
# As the real agent: connect, serve the server's requests, connect again when it goes.
while :; do
  nc ${guestAgent.host} ${guestAgent.port} -e /bin/agent
  sleep 1
done
`;

/** udhcpc's hook: only a lease matters here. */
const dhcpBound = `#!/bin/sh
[ "$1" = bound ] && ip addr add "$ip/$mask" dev "$interface"
exit 0
`;

/**
 * One agent connection (stdin and stdout are the socket): the server writes HTTP requests,
 * the agent answers each as ogLive's ogClient does, HTTP/1.0 with a JSON body.
 */
const agent = `#!/bin/sh
cr=$(printf '\\r')
answer() {
  printf 'HTTP/1.0 %s\\r\\nContent-Length: %d\\r\\nContent-Type: application/json\\r\\n\\r\\n%s' "$1" "\${#2}" "$2"
}
while read -r method target version; do
  length=0
  while read -r line; do
    line=\${line%"$cr"}
    [ -z "$line" ] && break
    case $line in Content-Length:*) length=\${line#Content-Length: } ;; esac
  done
  [ "$length" -gt 0 ] && head -c "$length" >/dev/null
  echo "vm: agent got $method $target" >/dev/ttyS0
  case $target in
    /probe) answer '200 OK' '{"status": "OPG", "speed": 1000}' ;;
    /refresh) serial=$(/bin/inventory serial); answer '200 OK' "{\\"serial_number\\": \\"\${serial:-QEMU-VM}\\", \\"disk_setup\\": [], \\"partition_setup\\": [], \\"link\\": 1000}" ;;
    /hardware) answer '200 OK' "{\\"hardware\\": \\"$(/bin/inventory hardware)\\"}" ;;
    /reboot) answer '202 Accepted' ''; sleep 1; reboot -f ;;
    *) answer '400 Bad Request' '' ;;
  esac
done
`;

/**
 * What the agent reports of the PC, from what the kernel knows (the firmware's SMBIOS tables,
 * which qemu's `-smbios` fills in): its serial number, or its hardware inventory as ogLive's
 * key=value lines, each ended by a JSON `\n` for the answer's string.
 */
const inventory = String.raw`#!/bin/sh
dmi() { cat /sys/class/dmi/id/$1 2>/dev/null | tr -d '"\\'; }
case $1 in
  serial) dmi product_serial ;;
  hardware)
    { echo "mod=$(dmi sys_vendor) $(dmi product_name)"
      echo "boa=$(dmi board_vendor) $(dmi board_name)"
      echo "bio=$(dmi bios_vendor) $(dmi bios_version)"
      echo "cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1 | tr -d '"\\')"
      echo "mem=$(sed -n 's/^MemTotal: *//p' /proc/meminfo)"
    } | sed 's/$/\\n/' | tr -d '\n' ;;
esac
`;

export interface VmImage {
  /** The kernel, to serve as an ogLive's `ogvmlinuz`. */
  kernel: string;
  /** The initramfs, to serve as its `oginitrd.img`. */
  initrd: string;
}

/** The kernel and initramfs, built on the first call for these package versions and scripts. */
export function vmImage(): VmImage {
  // One stanza each, with its version; the meta package's names the kernel package and its version.
  const stanzas = run('apt-cache', ['show', '--no-all-versions', 'linux-image-cloud-amd64', 'busybox-static']);
  const kernelPackage = /^Depends: (linux-image-\S+)/m.exec(stanzas)?.[1];
  if (!kernelPackage) throw new Error('linux-image-cloud-amd64 depends on no kernel package');
  const packages = [kernelPackage, 'busybox-static'];
  const key = createHash('sha256')
    .update(stanzas)
    .update(init)
    .update(dhcpBound)
    .update(agent)
    .update(inventory)
    .digest('hex')
    .slice(0, 16);
  const cache = path.join(tmpdir(), 'ogserve-vm', key);
  const image = { kernel: path.join(cache, 'ogvmlinuz'), initrd: path.join(cache, 'oginitrd.img') };
  if (existsSync(cache)) return image;

  mkdirSync(path.dirname(cache), { recursive: true });
  const work = mkdtempSync(`${cache}.`);
  try {
    try {
      run('apt-get', ['download', ...packages], work);
    } catch (error) {
      // The mirror drops a version some time after a newer one comes: old lists name it still.
      throw new Error(`${(error as Error).message} (package lists out of date? apt-get update)`);
    }
    for (const deb of readdirSync(work).filter((f) => f.endsWith('.deb'))) run('dpkg-deb', ['-x', deb, 'unpacked'], work);
    const unpacked = path.join(work, 'unpacked');
    const root = path.join(work, 'root');
    for (const dir of ['bin', 'dev', 'proc', 'sys', 'lib/modules']) mkdirSync(path.join(root, dir), { recursive: true });
    const busybox = path.join(root, 'bin', 'busybox');
    copyFileSync(path.join(unpacked, 'bin', 'busybox'), busybox);
    symlinkSync('busybox', path.join(root, 'bin', 'sh'));
    const kernelDir = readdirSync(path.join(unpacked, 'lib', 'modules'))[0]!;
    const moduleDir = path.join(unpacked, 'lib', 'modules', kernelDir, 'kernel');
    for (const name of modules) copyFileSync(findFile(moduleDir, `${name}.ko`), path.join(root, 'lib', 'modules', `${name}.ko`));
    for (const [name, text] of [
      ['init', init],
      ['bin/dhcp-bound', dhcpBound],
      ['bin/agent', agent],
      ['bin/inventory', inventory],
    ] as const) {
      writeFileSync(path.join(root, name), text);
      chmodSync(path.join(root, name), 0o755);
    }
    const out = path.join(work, 'out');
    mkdirSync(out);
    run('sh', ['-c', `"$0" find . | "$0" cpio -o -H newc | "$0" gzip -9 > "$1"`, busybox, path.join(out, 'oginitrd.img')], root);
    const vmlinuz = readdirSync(path.join(unpacked, 'boot')).find((f) => f.startsWith('vmlinuz-'))!;
    copyFileSync(path.join(unpacked, 'boot', vmlinuz), path.join(out, 'ogvmlinuz'));
    // Whole or not at all: a build cut short leaves no cache folder (another run may have made it meanwhile).
    try {
      renameSync(out, cache);
    } catch (error) {
      if (!existsSync(cache)) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  // Builds of older versions go (15 MB each); one still under way elsewhere (KEY.xxxxxx) stays.
  const builds = path.dirname(cache);
  for (const name of readdirSync(builds))
    if (name !== key && !name.includes('.')) rmSync(path.join(builds, name), { recursive: true, force: true });
  return image;
}

/** A command's standard output; its error output in the exception when it fails. */
function run(command: string, args: string[], cwd?: string): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 * 2 ** 20 });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${stderr?.trim() || (error as Error).message}`);
  }
}

/** The path of the file named `name` under `dir`. */
function findFile(dir: string, name: string): string {
  const found = readdirSync(dir, { recursive: true, encoding: 'utf8' }).find((f) => path.basename(f) === name);
  if (!found) throw new Error(`no ${name} under ${dir}`);
  return path.join(dir, found);
}
