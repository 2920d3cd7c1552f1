#!/usr/bin/env node
// `npm run package:deb`: the Debian package of this checkout, ogserve_<version>_<arch>.deb,
// from its build (npm run build first) and its installed dependencies, production ones only.
//
// Usage: node scripts/package-deb.mjs [--out DIR] [--version VERSION]
//   --out      where the .deb goes (default: the checkout)
//   --version  the package's version (default: package.json's); the program's own stays
//
// Layout: the program in /usr/lib/ogserve (what the build emitted for core, cli and plugins,
// no tests, benches or source maps; config/, templates/; node_modules pruned to production),
// /usr/bin/ogserve, the configuration in /etc/ogserve as a conffile, the systemd units, the
// documentation in /usr/share/doc/ogserve; packaging/deb holds the maintainer scripts.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const version = option('--version') ?? pkg.version;
const outDir = path.resolve(option('--out') ?? root);
const arch = execFileSync('dpkg', ['--print-architecture'], { encoding: 'utf8' }).trim();
const lib = 'usr/lib/ogserve';
// Who builds the package, as Debian's tools ask it.
const maintainer = `${process.env.DEBFULLNAME ?? 'ogserve developers'} <${process.env.DEBEMAIL ?? 'ogserve@opengnsys.es'}>`;

const run = (command, argv, cwd, stderr = 'inherit') =>
  execFileSync(command, argv, { cwd, stdio: ['ignore', 'pipe', stderr], encoding: 'utf8' });
const gzip = (text) => gzipSync(text, { level: 9 });

for (const needed of ['dist/cli/main.js', 'node_modules/.package-lock.json'])
  if (!existsSync(path.join(root, needed))) throw new Error(`${needed} is missing: run npm ci and npm run build first`);

const work = mkdtempSync(path.join(os.tmpdir(), 'ogserve-deb-'));
const tree = path.join(work, 'tree');
const into = (...parts) => path.join(tree, ...parts);
const put = (relative, content, mode = 0o644) => {
  mkdirSync(path.dirname(into(relative)), { recursive: true });
  writeFileSync(into(relative), content);
  chmodSync(into(relative), mode);
};

try {
  copyProgram();
  copyDependencies();
  copySystemFiles();
  copyDocumentation();
  normalizeModes(tree);
  const deb = path.join(outDir, `ogserve_${version}_${arch}.deb`);
  writeControl();
  mkdirSync(outDir, { recursive: true });
  run('dpkg-deb', ['--root-owner-group', '-Zxz', '-z6', '--build', tree, deb]);
  process.stdout.write(`${deb}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** What the build emitted for each source of core, cli and plugins (a file whose source is gone is left out), and the built assets. */
function copyProgram() {
  for (const top of ['core', 'cli', 'plugins']) {
    for (const file of filesUnder(path.join(root, 'dist', top))) {
      const relative = path.relative(path.join(root, 'dist'), file);
      const built = relative.split(path.sep).includes('public');
      const source = relative.replace(/(\.d)?\.js$/, '');
      const fromSource = /\.js$/.test(relative) && ['.ts', '.tsx'].some((ext) => existsSync(path.join(root, source + ext)));
      if (built || fromSource) put(path.join(lib, 'dist', relative), readFileSync(file));
    }
  }
  for (const dir of ['config', 'templates']) cpSync(path.join(root, dir), into(lib, dir), { recursive: true });
  put(path.join(lib, 'packaging/unit-paths.mjs'), readFileSync(path.join(root, 'packaging/unit-paths.mjs')));
  // The version the program reports, and what lets a plugin import 'ogserve' from the install.
  const { devDependencies: _dev, scripts: _scripts, ...runtime } = pkg;
  put(path.join(lib, 'package.json'), `${JSON.stringify(runtime, null, 2)}\n`);
  put(path.join(lib, 'package-lock.json'), readFileSync(path.join(root, 'package-lock.json')));
}

/** The installed node_modules, pruned to production dependencies (nothing compiled again), without build leftovers. */
function copyDependencies() {
  const modules = into(lib, 'node_modules');
  // The folder itself where node_modules is a link to it (a git worktree sharing another's): a
  // copy of the link was pruned away by npm, leaving a package without its modules.
  cpSync(realpathSync(path.join(root, 'node_modules')), modules, { recursive: true, verbatimSymlinks: true });
  run('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts'], into(lib));
  rmSync(into(lib, 'package-lock.json'));
  rmSync(path.join(modules, '.bin'), { recursive: true, force: true });
  // sqlite3 needs its compiled module alone: its sources, objects and compiler (node-gyp, with
  // its Python) were the build's.
  const sqlite = path.join(modules, 'sqlite3');
  for (const leftover of ['deps', 'src', 'build/Release/obj.target', 'build/Release/.deps', 'build/deps'])
    rmSync(path.join(sqlite, leftover), { recursive: true, force: true });
  for (const leftover of filesUnder(path.join(sqlite, 'build')).filter((f) => !f.endsWith('.node'))) rmSync(leftover);
  rmSync(path.join(modules, 'node-gyp'), { recursive: true, force: true });
  // What the modules' authors kept for their own tools (lintian refuses some: eslint configs).
  const toolFile = /^(\.npmignore|\.travis\.yml|\.eslintrc(\..*)?|\.editorconfig|\.gitattributes|\.prettierrc(\..*)?)$|~$|\.map$/;
  for (const file of filesUnder(modules)) {
    const name = path.basename(file);
    if (toolFile.test(name)) rmSync(file);
    else if (name.endsWith('.node')) run('strip', ['--strip-unneeded', '--remove-section=.comment', '--remove-section=.note', file]);
  }
}

function copySystemFiles() {
  put('usr/bin/ogserve', readFileSync(path.join(root, 'packaging/deb/ogserve')), 0o755);
  put('etc/ogserve/ogserve.json', readFileSync(path.join(root, 'packaging/ogserve.json')));
  for (const unit of ['ogserve.service', 'ogserve-backup.service', 'ogserve-backup.timer']) {
    const text = readFileSync(path.join(root, 'packaging', unit), 'utf8')
      .replaceAll('/opt/ogserve/README.md', '/usr/share/doc/ogserve/README.md.gz')
      .replaceAll('/opt/ogserve/docs/', '/usr/share/doc/ogserve/docs/')
      .replaceAll('/opt/ogserve/', `/${lib}/`);
    put(`lib/systemd/system/${unit}`, text);
  }
  put('usr/share/man/man1/ogserve.1.gz', gzip(readFileSync(path.join(root, 'packaging/deb/ogserve.1'))));
}

function copyDocumentation() {
  const doc = 'usr/share/doc/ogserve';
  put(`${doc}/copyright`, readFileSync(path.join(root, 'packaging/deb/copyright')));
  put(`${doc}/changelog.gz`, gzip(debianChangelog()));
  for (const file of ['README.md', 'CHANGELOG.md']) put(`${doc}/${file}.gz`, gzip(readFileSync(path.join(root, file))));
  for (const file of readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')))
    put(`${doc}/docs/${file}.gz`, gzip(readFileSync(path.join(root, 'docs', file))));
  cpSync(path.join(root, 'examples'), into(doc, 'examples'), { recursive: true });
  // The nginx in front that sends file bytes for ogserve (transfers.handoff: nginx; docs/operations.md).
  put(`${doc}/examples/nginx/ogserve.conf`, readFileSync(path.join(root, 'packaging/nginx/ogserve.conf')));
}

/** Debian's changelog of this native package: one entry for the version, pointing at CHANGELOG.md. */
function debianChangelog() {
  const date = new Date(Number(process.env.SOURCE_DATE_EPOCH ?? statSync(path.join(root, 'CHANGELOG.md')).mtimeMs / 1000) * 1000);
  const stamp = date.toUTCString().replace(/^(\w+), (\d+) (\w+) (\d+) ([\d:]+) GMT$/, '$1, $2 $3 $4 $5 +0000');
  return [
    `ogserve (${version}) unstable; urgency=medium`,
    '',
    `  * Release ${pkg.version}: see /usr/share/doc/ogserve/CHANGELOG.md.gz.`,
    '',
    ` -- ${maintainer}  ${stamp}`,
    '',
  ].join('\n');
}

function writeControl() {
  const sharedObjects = filesUnder(into(lib, 'node_modules')).filter((f) => f.endsWith('.node'));
  const installedKiB = Math.ceil(filesUnder(tree).reduce((sum, f) => sum + statSync(f).size, 0) / 1024);
  const control = [
    'Package: ogserve',
    `Version: ${version}`,
    `Architecture: ${arch}`,
    `Maintainer: ${maintainer}`,
    `Installed-Size: ${installedKiB}`,
    `Depends: ${['nodejs (>= 20)', 'adduser', 'ipxe', 'libarchive-tools', ...sharedLibraries(sharedObjects)].join(', ')}`,
    // The signed first stages of the Secure Boot chain (shim, then GRUB), which the boot plugin finds where Debian puts them.
    'Recommends: kea-dhcp4-server, kea-ctrl-agent, shim-signed, grub-efi-amd64-signed',
    // nginx sends boot files' and images' bytes where a site puts it in front (transfers.handoff).
    'Suggests: nginx-light',
    'Section: net',
    'Priority: optional',
    'Homepage: https://github.com/opengnsys',
    `Description: ${pkg.description.replace(/, a drop-in.*/, '')}`,
    ' ogserve keeps an inventory of centers, rooms and PCs, wakes PCs with',
    ' Wake-on-LAN, serves their network boot (iPXE over HTTP, BIOS and UEFI boot',
    ' files) and relays imaging, partitioning and inventory work to the agent on',
    " each PC. It answers the OpenGnsys ogServer's REST interface, so existing web",
    ' consoles, command lines and agents work with it unchanged.',
    ' .',
    ' It needs Node.js 20 or later: Debian 13, or NodeSource on Debian 12.',
    '',
  ].join('\n');
  put('DEBIAN/control', control);
  put('DEBIAN/conffiles', '/etc/ogserve/ogserve.json\n');
  for (const script of ['postinst', 'prerm', 'postrm'])
    put(`DEBIAN/${script}`, readFileSync(path.join(root, 'packaging/deb', script)), 0o755);
  const sums = filesUnder(tree)
    .filter((f) => !path.relative(tree, f).startsWith('DEBIAN') && !path.relative(tree, f).startsWith('etc/'))
    .map((f) => `${createHash('md5').update(readFileSync(f)).digest('hex')}  ${path.relative(tree, f)}`);
  put('DEBIAN/md5sums', `${sums.sort().join('\n')}\n`);
}

/** The packages providing the libraries the compiled modules link to, as dpkg-shlibdeps names them. */
function sharedLibraries(objects) {
  if (objects.length === 0) return [];
  mkdirSync(path.join(work, 'debian'), { recursive: true });
  writeFileSync(path.join(work, 'debian/control'), 'Source: ogserve\n\nPackage: ogserve\nArchitecture: any\n');
  // Its warnings are about Node's own symbols (napi_*, uv_*), which no library provides.
  const out = run('dpkg-shlibdeps', ['-O', '--warnings=0', ...objects.map((f) => `-e${f}`)], work, 'ignore');
  const depends = /shlibs:Depends=(.*)/.exec(out)?.[1];
  return depends ? depends.split(', ') : [];
}

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full);
    return entry.isFile() ? [full] : [];
  });
}

/** Folders 0755; files 0755 when they are scripts (`#!/`: not the `#!ipxe` templates), else 0644, whatever the modules' authors or the umask left. */
function normalizeModes(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      chmodSync(full, 0o755);
      normalizeModes(full);
    } else if (entry.isFile()) {
      chmodSync(full, /^#! ?\//.test(head(full, 4)) ? 0o755 : 0o644);
    }
  }
}

/** A file's first `bytes` bytes, as text. */
function head(file, bytes) {
  const buffer = Buffer.alloc(bytes);
  const fd = openSync(file, 'r');
  try {
    return buffer.toString('latin1', 0, readSync(fd, buffer, 0, bytes, 0));
  } finally {
    closeSync(fd);
  }
}
