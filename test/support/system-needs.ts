import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What test files need of the machine besides Node and the database servers: the programs
 * they start (slapd, Kea, qemu, Chromium...), and the package test's leave to install on it.
 *
 * A module that starts one (a test file, or a support module test files import) says so on a
 * line of its own, `// System needs: slapd` (names of `systemNeeds`, comma-separated). The
 * suite runner reads the line in each test file it would run and in the test modules that
 * file imports, checks each need once, and before the first test says what is missing and the
 * one apt-get command that brings it. Then it skips the files that need it, one line each;
 * under CI (`CI` set, or `OGSERVE_TEST_PACKAGE=required` as .ci/run sets) a missing need fails
 * the run instead: there every file must run.
 */
export const systemNeedsMarker = '// System needs:';

export interface SystemNeed {
  /** Debian packages that bring it (none for a need no package meets). */
  packages: string[];
  /** Why this machine does not meet it (one clause), or undefined when it does. */
  missing(env: NodeJS.ProcessEnv): string | undefined;
}

/** `name` on the PATH, or an absolute file, executable. */
function hasProgram(name: string, env: NodeJS.ProcessEnv): boolean {
  const candidates = name.startsWith('/') ? [name] : (env.PATH ?? '').split(':').map((dir) => path.join(dir || '.', name));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** A need met by programs (names on the PATH, or absolute paths as the tests start them) and files. */
function programs(packages: string[], names: string[], files: string[] = []): SystemNeed {
  return {
    packages,
    missing(env) {
      const absent = [...names.filter((n) => !hasProgram(n, env)), ...files.filter((f) => !existsSync(f))];
      return absent.length ? `${absent.join(', ')} missing` : undefined;
    },
  };
}

/** Whether CI runs the suite: every file must run, so a missing need fails the run. */
export function everyFileRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI?.toLowerCase();
  return env.OGSERVE_TEST_PACKAGE === 'required' || (ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false');
}

/** dpkg's status of the package `name` ('install ok installed'), '' when it knows none. */
export function dpkgStatus(name: string): string {
  try {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format field.
    return execFileSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
}

export const systemNeeds: Record<string, SystemNeed> = {
  // The live plugin unpacks ogLive ISOs with bsdtar; the tests make their ISOs with it.
  bsdtar: programs(['libarchive-tools'], ['bsdtar']),
  chromium: programs(['chromium'], ['/usr/bin/chromium']),
  slapd: programs(['slapd', 'ldap-utils'], ['/usr/sbin/slapd', 'ldapadd', 'ldapmodify']),
  kea: programs(['kea-dhcp4-server', 'kea-ctrl-agent'], ['/usr/sbin/kea-dhcp4', '/usr/sbin/kea-ctrl-agent']),
  openssl: programs(['openssl'], ['openssl']),
  // The transfers handoff: nginx in front of ogserve, as packaging/nginx/ogserve.conf sets it up.
  nginx: programs(['nginx-light'], ['nginx']),
  // The images tests run their own smbd (its own config, port and folders) and play the agent with smbclient.
  samba: programs(['samba', 'smbclient'], ['/usr/sbin/smbd', 'smbclient', 'smbcontrol', 'smbpasswd']),
  // smbd switches to the share's users: it runs as root (CI does).
  root: {
    packages: [],
    missing: () => (process.getuid?.() === 0 ? undefined : 'it runs smbd, which must start as root: run as root (CI does)'),
  },
  strace: programs(['strace'], ['strace']),
  // A PC in qemu whose iPXE boots from ogserve; its kernel and busybox come from `apt-get download`.
  qemu: {
    packages: ['qemu-system-x86', 'ipxe-qemu', 'socat'],
    missing(env) {
      const absent = programs([], ['qemu-system-x86_64', 'socat'], ['/usr/lib/ipxe/qemu/efi-virtio.rom']).missing(env);
      if (absent) return absent;
      try {
        execFileSync('apt-cache', ['show', '--no-all-versions', 'linux-image-cloud-amd64', 'busybox-static'], { stdio: 'ignore' });
        return undefined;
      } catch {
        return 'the package lists know no linux-image-cloud-amd64 or busybox-static (apt-get update)';
      }
    },
  },
  // Multicast sessions: Debian's udpcast (udp-sender, udp-receiver), run in network namespaces.
  udpcast: programs(['udpcast'], ['udp-sender', 'udp-receiver']),
  // A partition image made and restored as an ogLive does (mkfs.ext4 -d, partclone, lzop), checked
  // with e2fsck; socat carries the test's requests into a namespace's loopback.
  partclone: programs(
    ['partclone', 'lzop', 'e2fsprogs', 'socat'],
    ['partclone.ext4', 'partclone.restore', 'lzop', 'mkfs.ext4', 'e2fsck', 'socat'],
  ),
  // A lab of network namespaces on a bridge the test makes (and removes): root only.
  netns: {
    packages: ['iproute2'],
    missing(env) {
      const absent = programs([], ['ip']).missing(env);
      if (absent) return absent;
      if (process.getuid?.() !== 0) return 'it makes network namespaces and a bridge (ip netns): run as root';
      return undefined;
    },
  },
  // The package test builds the .deb (dpkg-shlibdeps from dpkg-dev) and checks it with lintian.
  'deb-tools': programs(['lintian', 'dpkg-dev'], ['/usr/bin/dpkg-deb', '/usr/bin/apt-get', '/usr/bin/lintian', '/usr/bin/dpkg-shlibdeps']),
  // ... and installs it on this machine with apt-get: only where it is asked to.
  'package-install': {
    packages: [],
    missing(env) {
      if (!everyFileRequired(env))
        return 'it installs the .deb on this machine with apt-get (and purges it after): OGSERVE_TEST_PACKAGE=required runs it, as CI does';
      if (process.getuid?.() !== 0) return 'it installs a package: run as root';
      if (
        / (installed|config-files|unpacked|half-installed|half-configured|triggers-\w+)$/.test(dpkgStatus('ogserve')) ||
        existsSync('/etc/ogserve')
      )
        return 'ogserve is installed on this machine (or /etc/ogserve exists): the test would purge it';
      return undefined;
    },
  },
};

/** The needs a compiled module declares on its marker lines. */
function declaredNeeds(text: string, file: string): string[] {
  const names: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(systemNeedsMarker)) continue;
    for (const name of line
      .slice(systemNeedsMarker.length)
      .split(',')
      .map((n) => n.trim())) {
      if (!systemNeeds[name]) throw new Error(`${file}: unknown system need '${name}' (known: ${Object.keys(systemNeeds).join(', ')})`);
      names.push(name);
    }
  }
  return names;
}

/** The compiled file a relative require names, if it is one. */
function resolveRequire(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  return [base, `${base}.js`, path.join(base, 'index.js')].find((f) => f.endsWith('.js') && existsSync(f));
}

/**
 * The needs of the compiled test files under `root`: each file's own and those of the test
 * modules it requires (relative requires under `root`, followed to the end), each read once.
 */
export class NeedsReader {
  private readonly modules = new Map<string, { needs: string[]; requires: string[] }>();

  constructor(private readonly root: string) {}

  needsOf(file: string): string[] {
    const needs = new Set<string>();
    const seen = new Set<string>();
    const pending = [path.resolve(file)];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      if (seen.has(next)) continue;
      seen.add(next);
      const module = this.read(next);
      for (const name of module.needs) needs.add(name);
      pending.push(...module.requires);
    }
    return [...needs].sort();
  }

  private read(file: string): { needs: string[]; requires: string[] } {
    let module = this.modules.get(file);
    if (!module) {
      const text = readFileSync(file, 'utf8');
      const requires = [...text.matchAll(/\brequire\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g)]
        .map((match) => resolveRequire(file, match[1]!))
        .filter((f): f is string => f !== undefined && !path.relative(this.root, f).startsWith('..'));
      module = { needs: declaredNeeds(text, file), requires };
      this.modules.set(file, module);
    }
    return module;
  }
}

/** Each need's answer on this machine, asked once. */
export class NeedsCheck {
  private readonly answers = new Map<string, string | undefined>();

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  /** Why `name` is not met here, or undefined. */
  missing(name: string): string | undefined {
    if (!this.answers.has(name)) this.answers.set(name, systemNeeds[name]!.missing(this.env));
    return this.answers.get(name);
  }
}

/** The one command that brings what the missing needs' packages are. */
export function installCommand(names: string[]): string | undefined {
  const packages = [...new Set(names.flatMap((n) => systemNeeds[n]!.packages))];
  return packages.length ? `apt-get update && apt-get install -y ${packages.join(' ')}` : undefined;
}
