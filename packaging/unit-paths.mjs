#!/usr/bin/env node
// The systemd drop-in that lets ogserve write the folders its config names outside
// /var/lib/ogserve (packaging/ogserve.service's ProtectSystem=strict makes the rest
// read-only). Run it as the unit runs the service, after changing a folder in the config:
//
//   sudo node /opt/ogserve/packaging/unit-paths.mjs --write /etc/systemd/system/ogserve.service.d/paths.conf
//   sudo systemctl daemon-reload && sudo systemctl restart ogserve
//
// Options: --config FILE (default /etc/ogserve/ogserve.json), --state-dir DIR (default
// /var/lib/ogserve), --write FILE (default: print it). OGSERVE_* variables apply as they do
// to the service: pass those the unit sets with Environment=.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { configuredDataPaths, unitDropIn, writablePaths } = require('../dist/cli/unit-paths.js');

const options = { '--config': '/etc/ogserve/ogserve.json', '--state-dir': '/var/lib/ogserve', '--write': undefined };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 2) {
  if (!(args[i] in options) || args[i + 1] === undefined) {
    process.stderr.write(`usage: unit-paths.mjs [--config FILE] [--state-dir DIR] [--write FILE]\n`);
    process.exit(2);
  }
  options[args[i]] = args[i + 1];
}

try {
  const stateDir = path.resolve(options['--state-dir']);
  const paths = writablePaths(await configuredDataPaths(options['--config'], stateDir, process.env), stateDir);
  const text = unitDropIn(paths, options['--config']);
  if (!options['--write']) process.stdout.write(text);
  else {
    mkdirSync(path.dirname(options['--write']), { recursive: true });
    writeFileSync(`${options['--write']}.tmp`, text);
    renameSync(`${options['--write']}.tmp`, options['--write']);
    process.stdout.write(
      `${options['--write']}: ${paths.length === 0 ? 'no folder outside the state directory' : paths.map((p) => p.path).join(' ')}\n`,
    );
  }
} catch (error) {
  process.stderr.write(`unit-paths: ${error.message}\n`);
  process.exit(1);
}
