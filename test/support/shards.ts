/**
 * How CI's SQLite and MariaDB passes split the files between their two shards (OGSERVE_TEST_SHARD=i/n): the
 * files that take longest go first, each to the shard with the least time so far, so that
 * both end near the same time. Every other file counts as `usualSeconds`. The seconds are
 * what CI's run of 2026-12-07 took (two shards and the browser tests at once); only their
 * order and rough size matter: a wrong figure costs time, never a file.
 */
const secondsOf: Record<string, number> = {
  'packaging/debian-package.test.js': 156,
  'plugins/tftp/vm-boot.test.js': 93,
  'cli/backup.test.js': 74,
  'plugins/auth/sign-in-timing.test.js': 66,
  'plugins/multicast/lab.test.js': 54,
  'cli/import-opengnsys/write.test.js': 53,
  'cli/live-backup.test.js': 51,
  'core/typescript-plugin.test.js': 45,
  'plugins/tftp/protocol.test.js': 35,
  'cli/import-dhcpd.test.js': 30,
  'cli/import-opengnsys/boot-files-kill.test.js': 29,
  'cli/user.test.js': 28,
  'core/tls.test.js': 27,
  'plugins/boot/vm-boot.test.js': 25,
  'core/suite-runner.test.js': 25,
  'contract/real-clients.test.js': 24,
  'cli/live.test.js': 22,
  'plugins/multicast/sender.test.js': 21,
  'plugins/enrol/vm-enrol.test.js': 21,
};
const usualSeconds = 3;

/** The files of shard `index` (1-based) of `count`, from every file the pass would run; `relative` names a file as above. */
export function shardFiles<T>(files: readonly T[], index: number, count: number, relative: (file: T) => string): T[] {
  const load = new Array<number>(count).fill(0);
  const owner = new Map<T, number>();
  const heaviestFirst = [...files].sort((a, b) => weight(b) - weight(a) || relative(a).localeCompare(relative(b)));
  for (const file of heaviestFirst) {
    const lightest = load.indexOf(Math.min(...load));
    owner.set(file, lightest);
    load[lightest]! += weight(file);
  }
  return files.filter((file) => owner.get(file) === index - 1);

  function weight(file: T): number {
    return secondsOf[relative(file)] ?? usualSeconds;
  }
}
